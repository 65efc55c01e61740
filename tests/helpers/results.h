/*
** results.h -- query results as text through the public API, for tests that compare runs: a
** result's rows joined by newlines (values by '|', NULL as "NULL"), and the check that a query
** gives the same text at SET threads = 1 and at more threads than the machine has cores, and
** the table the parallel executor's tests (tests/planner/test_parallel*.c) run on.
** Header-only (static inline).
*/
#ifndef STRATA_TESTS_RESULTS_H
#define STRATA_TESTS_RESULTS_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "api_db.h"

/* A result as text: each row's values joined by '|', rows by newlines, in the query's order. */
typedef struct text_buf {
    char *p;
    size_t len, cap;
} text_buf;

static inline void put(text_buf *b, const char *s) {
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        cr_assert_not_null(b->p);
    }
    memcpy(b->p + b->len, s, n + 1);
    b->len += n;
}

static inline int collect(void *arg, int n, char **v, char **names) {
    (void)names;
    for (int i = 0; i < n; i++) {
        put(arg, i ? "|" : "");
        put(arg, v[i] ? v[i] : "NULL");
    }
    put(arg, "\n");
    return 0;
}

static inline char *result(strata_db *db, const char *sql) {
    text_buf b = {0};
    put(&b, "");
    int rc = strata_exec(db, sql, collect, &b);
    cr_assert_eq(rc, STRATA_OK, "%s: %s", sql, strata_errmsg(db));
    return b.p;
}

/* same_at_threads runs sql with 1 thread and then with each of the others, and asserts the
** results equal (and not empty). */
static inline void same_at_threads(strata_db *db, const char *sql) {
    EXEC_OK(db, "SET threads = 1");
    char *one = result(db, sql);
    cr_assert(strlen(one) > 0, "%s gave nothing", sql);
    static const char *others[] = {"SET threads = 2", "SET threads = 4", "SET threads = 7"};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        EXEC_OK(db, others[i]);
        char *many = result(db, sql);
        cr_assert_str_eq(many, one, "%s with %s", sql, others[i]);
        free(many);
    }
    free(one);
}

/* same_row_counts asserts that the rows= of each line of two EXPLAIN ANALYZE outputs of one query
** agree (the times do not), over 3 lines at least. */
static inline void same_row_counts(const char *one, const char *many) {
    const char *a = one, *b = many;
    int lines = 0;
    while ((a = strstr(a, "rows=")) && (b = strstr(b, "rows="))) {
        cr_assert_eq(strtoull(a + 5, NULL, 10), strtoull(b + 5, NULL, 10), "%s\n%s", one, many);
        a += 5, b += 5, lines++;
    }
    cr_assert_geq(lines, 3, "%s", many);
}

/* names_workers says whether the first line of an EXPLAIN ANALYZE output that starts with op
** names the workers that ran it. */
static inline bool names_workers(const char *text, const char *op) {
    const char *l = strstr(text, op), *w = l ? strstr(l, " workers)") : NULL;
    return w && w < strchr(l, '\n');
}

/* explain_on_workers runs sql (an EXPLAIN ANALYZE) until the lines of each of ops[0..n) name
** their workers (*all), up to 200 times: on a loaded machine the run's thread may take every
** morsel of a pipeline before a pool thread wakes (core/pool.h). The last output is the caller's
** to assert on and free. */
static inline char *explain_on_workers(strata_db *db, const char *sql, const char *const *ops, int n, bool *all) {
    char *plan = NULL;
    *all = false;
    for (int tries = 0; tries < 200 && !*all; tries++) {
        free(plan);
        plan = result(db, sql);
        *all = true;
        for (int i = 0; i < n && *all; i++) *all = names_workers(plan, ops[i]);
    }
    return plan;
}

/* open_table makes t, a table of 600,000 rows: 4 full row groups in the column store, the rest
** and the changes in the row store; and d, a small table of some of t's k. */
static inline strata_db *open_table(void) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, g INTEGER, k INTEGER, s VARCHAR, m DECIMAL(12,2), n INTEGER);"
                "INSERT INTO t SELECT i, i % 97, i % 50000, 'name' || (i % 1013), (i % 10000) / 100.0,"
                "  CASE WHEN i % 11 = 0 THEN NULL ELSE i % 1000 END FROM generate_series(1, 500000) AS x(i);"
                "CHECKPOINT;"
                "INSERT INTO t SELECT i, i % 97, i % 50000, 'late' || (i % 7), 1.5, i FROM generate_series(500001, 600000) AS x(i);"
                "DELETE FROM t WHERE id % 1000 = 7;"
                "UPDATE t SET m = m + 1000 WHERE id % 5000 = 3;"
                "CREATE TABLE d(k INTEGER PRIMARY KEY, label VARCHAR);"
                "INSERT INTO d SELECT i, 'd' || (i % 13) FROM generate_series(0, 49999, 3) AS x(i)");
    return db;
}

#endif
