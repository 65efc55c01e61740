/*
** test_operators.c -- the operator table (planner/exec/operator.h): every plan kind has an entry
** with the functions its roles need and a name of its own; EXPLAIN shows those names; and the
** EXPLAIN ANALYZE counters belong to one run: a prepared statement run twice counts the same rows
** each time, also in the nested runs of WITH RECURSIVE, whose counters add up over its
** iterations.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "helpers/api_db.h"
#include "../../planner/exec/operator.h"

Test(operators, every_kind_has_a_complete_entry) {
    strata_err err;
    err_clear(&err);
    cr_assert_eq(exec_check_operators(&err), STRATA_OK, "%s", err.msg);
    for (int a = 0; a < PLAN_KIND_COUNT; a++) {
        plan_op pa = {.kind = (plan_kind)a};
        const op_vtable *va = op_vt(&pa);
        cr_assert_not_null(va, "kind %d", a);
        for (int b = 0; b < a; b++) {
            plan_op pb = {.kind = (plan_kind)b};
            const op_vtable *vb = op_vt(&pb);
            /* two kinds may share functions, never a name: EXPLAIN tells them apart */
            cr_assert_str_neq(va->name, vb->name, "kinds %d and %d", a, b);
        }
    }
}

/* explain_lines runs stmt to its end and joins its rows, one line each, into out. */
static void explain_lines(strata_stmt *s, char *out, size_t cap) {
    out[0] = 0;
    int rc;
    while ((rc = strata_step(s)) == STRATA_ROW) {
        strncat(out, (const char *)strata_column_text(s, 0), cap - strlen(out) - 1);
        strncat(out, "\n", cap - strlen(out) - 1);
    }
    cr_assert_eq(rc, STRATA_DONE, "%s", out);
    cr_assert_eq(strata_reset(s), STRATA_OK);
}

/* rows_of gives the rows= count on the line of operator name (its first line). */
static unsigned long long rows_of(const char *out, const char *name) {
    const char *l = strstr(out, name);
    cr_assert_not_null(l, "no %s in\n%s", name, out);
    const char *r = strstr(l, "rows=");
    cr_assert_not_null(r, "%s", out);
    return strtoull(r + 5, NULL, 10);
}

Test(operators, analyze_counts_one_run) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(a INTEGER, b VARCHAR);"
                "INSERT INTO t SELECT i, 'v' || (i % 7) FROM generate_series(1, 5000) AS s(i)");
    strata_stmt *s = prepare(db, "EXPLAIN ANALYZE SELECT b, count(*) FROM t WHERE a % 2 = 0 GROUP BY b ORDER BY b");
    static char first[8192], second[8192];
    explain_lines(s, first, sizeof first);
    explain_lines(s, second, sizeof second);
    for (int run = 0; run < 2; run++) {
        const char *out = run ? second : first;
        cr_assert_eq(rows_of(out, "SCAN t"), 5000, "%s", out);
        cr_assert_eq(rows_of(out, "FILTER"), 2500, "%s", out);
        cr_assert_eq(rows_of(out, "HASH_GROUP_BY"), 7, "%s", out);
        cr_assert_eq(rows_of(out, "ORDER_BY"), 7, "%s", out);
    }
    strata_finalize(s);
    strata_close(db);
}

Test(operators, analyze_counts_recursive_iterations) {
    strata_db *db = open_mem();
    /* ten iterations of the step, each reading one row of the working table; the last keeps none */
    strata_stmt *s = prepare(db, "EXPLAIN ANALYZE WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) "
                                 "SELECT n FROM r");
    static char out[8192];
    for (int run = 0; run < 2; run++) {
        explain_lines(s, out, sizeof out);
        cr_assert_eq(rows_of(out, "RECURSIVE_CTE"), 10, "%s", out);
        cr_assert_eq(rows_of(out, "CTE_SCAN"), 10, "%s", out);
        cr_assert_eq(rows_of(out, "FILTER"), 9, "%s", out);
    }
    strata_finalize(s);
    strata_close(db);
}
