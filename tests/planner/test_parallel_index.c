/*
** test_parallel_index.c -- CREATE INDEX on several workers (planner/exec/op_index.c): at SET
** threads 1, 2, 4 and 7 an index over a table of 600,000 rows in both stores (with deleted and
** updated rows) finds the same rows, in the index's order (key, then rowid), as the table's scan
** ordered so; plain, composite, expression and NULL keys; a unique index refuses a duplicated key
** (NULLs are distinct) and is not made; a memory_limit and an interrupt stop the build and leave
** no index; inside a transaction that wrote rows of its own the index has them.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers/results.h"

static const char *thread_counts[] = {"1", "2", "4", "7"};

/* An index, a query its scan answers (in the index's order) and the same rows from the table. */
typedef struct index_case {
    const char *create, *name, *query, *ordered;
} index_case;

static const index_case cases[] = {
    {"CREATE INDEX ix ON t(g)", "ix", "SELECT g, id FROM t WHERE g BETWEEN 3 AND 5",
     "SELECT g, id FROM t WHERE g BETWEEN 3 AND 5 ORDER BY g, id"},
    {"CREATE INDEX ix ON t(s, n)", "ix", "SELECT s, n, id FROM t WHERE s = 'name7'",
     "SELECT s, n, id FROM t WHERE s = 'name7' ORDER BY s, n NULLS LAST, id"},
    {"CREATE INDEX ix ON t(n)", "ix", "SELECT n, id FROM t WHERE n < 3",
     "SELECT n, id FROM t WHERE n < 3 ORDER BY n, id"},
    {"CREATE INDEX ix ON t(lower(s), m)", "ix", "SELECT s, m, id FROM t WHERE lower(s) = 'late3'",
     "SELECT s, m, id FROM t WHERE lower(s) = 'late3' ORDER BY m, id"},
    {"CREATE UNIQUE INDEX ix ON t(k, id)", "ix", "SELECT k, id FROM t WHERE k = 4321",
     "SELECT k, id FROM t WHERE k = 4321 ORDER BY id"},
};

Test(parallel_index, an_index_built_at_any_threads_finds_the_same_rows, .timeout = 600) {
    strata_db *db = open_table();
    size_t ncases = sizeof cases / sizeof *cases;
    char *want[sizeof cases / sizeof *cases];
    EXEC_OK(db, "SET threads = 1");
    for (size_t c = 0; c < ncases; c++) {
        want[c] = result(db, cases[c].ordered);
        cr_assert(strchr(want[c], '\n'), "%s gave no rows", cases[c].ordered);
    }
    for (size_t k = 0; k < sizeof thread_counts / sizeof *thread_counts; k++) {
        char sql[200];
        snprintf(sql, sizeof sql, "SET threads = %s", thread_counts[k]);
        EXEC_OK(db, sql);
        for (size_t c = 0; c < ncases; c++) {
            EXEC_OK(db, cases[c].create);
            snprintf(sql, sizeof sql, "EXPLAIN %s", cases[c].query);
            char *plan = result(db, sql);
            cr_assert(strstr(plan, "USING ix"), "the query reads the index: %s", plan);
            free(plan);
            char *got = result(db, cases[c].query);
            cr_assert_str_eq(got, want[c], "%s at threads = %s", cases[c].create, thread_counts[k]);
            free(got);
            EXEC_OK(db, "DROP INDEX ix");
        }
    }
    for (size_t c = 0; c < ncases; c++) free(want[c]);
    char *check = result(db, "PRAGMA integrity_check");
    cr_assert_str_eq(check, "ok\n");
    free(check);
    strata_close(db);
}

/* A unique index over a duplicated key fails at every threads and is not made; NULLs do not
** count as duplicates. */
Test(parallel_index, a_unique_index_refuses_a_duplicated_key, .timeout = 600) {
    strata_db *db = open_table();
    EXEC_OK(db, "CREATE TABLE u(x INTEGER, y VARCHAR)");
    EXEC_OK(db, "INSERT INTO u SELECT CASE WHEN i % 3 = 0 THEN NULL ELSE i END, 'y' || (i % 5) "
                "FROM generate_series(1, 200000) AS x(i)");
    for (size_t k = 0; k < sizeof thread_counts / sizeof *thread_counts; k++) {
        char sql[200];
        snprintf(sql, sizeof sql, "SET threads = %s", thread_counts[k]);
        EXEC_OK(db, sql);
        static const char *dups[] = {"CREATE UNIQUE INDEX bad ON t(k)", "CREATE UNIQUE INDEX bad ON t(n)",
                                     "CREATE UNIQUE INDEX bad ON u(y, (x % 7))", "CREATE UNIQUE INDEX bad ON t(m, s)"};
        for (size_t d = 0; d < sizeof dups / sizeof *dups; d++) {
            cr_assert_eq(strata_exec(db, dups[d], NULL, NULL), STRATA_CONSTRAINT, "%s: %s", dups[d], strata_errmsg(db));
            cr_assert(strstr(strata_errmsg(db), "could not create unique index \"bad\": key is duplicated"), "%s",
                      strata_errmsg(db));
            cr_assert_eq(query_int64(db, "SELECT count(*) FROM strata_catalog WHERE type = 'index' AND name = 'bad'"), 0);
        }
        EXEC_OK(db, "CREATE UNIQUE INDEX ok1 ON u(x)"); /* NULLs are distinct */
        EXEC_OK(db, "CREATE UNIQUE INDEX ok2 ON t(id, g)");
        EXEC_OK(db, "CREATE UNIQUE INDEX ok3 ON u(y, x)"); /* y repeats, with a NULL x too */
        cr_assert_eq(query_int64(db, "SELECT count(*) FROM u WHERE x = 200000 - 1"), 1);
        cr_assert_eq(strata_exec(db, "INSERT INTO u VALUES (1, 'again')", NULL, NULL), STRATA_CONSTRAINT);
        EXEC_OK(db, "INSERT INTO u VALUES (NULL, 'null again')");
        EXEC_OK(db, "DELETE FROM u WHERE y = 'null again'");
        EXEC_OK(db, "DROP INDEX ok1");
        EXEC_OK(db, "DROP INDEX ok2");
        EXEC_OK(db, "DROP INDEX ok3");
    }
    strata_close(db);
}

/* stop_soon stops the statement at the handler's second call; the first sleeps the 100 ms between
** calls, so that the second is due at the next chunk even where the build would end sooner. */
static int stop_soon(void *arg, uint64_t done, uint64_t total, const char *unit) {
    (void)done, (void)total, (void)unit;
    if (*(int *)arg == 0) usleep(120000);
    return ++*(int *)arg >= 2;
}

/* A memory_limit too small for the entries, and an interrupt, stop the build at every threads:
** no index is left, and the handle goes on. */
Test(parallel_index, a_memory_limit_and_an_interrupt_leave_no_index, .timeout = 600) {
    strata_db *db = open_table();
    for (size_t k = 0; k < sizeof thread_counts / sizeof *thread_counts; k++) {
        char sql[200];
        snprintf(sql, sizeof sql, "SET threads = %s", thread_counts[k]);
        EXEC_OK(db, sql);
        EXEC_OK(db, "SET memory_limit = '12MB'");
        cr_assert_eq(strata_exec(db, "CREATE INDEX ix ON t(s, g)", NULL, NULL), STRATA_NOMEM, "threads = %s: %s",
                     thread_counts[k], strata_errmsg(db));
        cr_assert(strstr(strata_errmsg(db), "memory_limit"), "%s", strata_errmsg(db));
        EXEC_OK(db, "SET memory_limit = '4GB'");
        cr_assert_eq(query_int64(db, "SELECT count(*) FROM strata_catalog WHERE type = 'index' AND name = 'ix'"), 0);

        int calls = 0;
        strata_progress_handler(db, stop_soon, &calls);
        cr_assert_eq(strata_exec(db, "CREATE INDEX ix ON t(s, g)", NULL, NULL), STRATA_INTERRUPT, "threads = %s: %s",
                     thread_counts[k], strata_errmsg(db));
        strata_progress_handler(db, NULL, NULL);
        cr_assert_eq(query_int64(db, "SELECT count(*) FROM strata_catalog WHERE type = 'index' AND name = 'ix'"), 0);
    }
    EXEC_OK(db, "CREATE INDEX ix ON t(s, g)");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t WHERE s = 'name5' AND g = 5"),
                 query_int64(db, "SELECT count(*) FROM t WHERE s || '' = 'name5' AND g + 0 = 5"));
    strata_close(db);
}

/* In a transaction that wrote rows of its own the build reads them too (on the statement's
** thread), and a rollback takes the index away with them. */
Test(parallel_index, an_index_made_in_a_transaction_has_its_rows, .timeout = 600) {
    strata_db *db = open_table();
    EXEC_OK(db, "SET threads = 4");
    EXEC_OK(db, "BEGIN");
    EXEC_OK(db, "INSERT INTO t(id, g, k, s) SELECT i, 1000, i, 'tx' FROM generate_series(700001, 700500) AS x(i)");
    EXEC_OK(db, "CREATE INDEX ix ON t(g)");
    char *plan = result(db, "EXPLAIN SELECT count(*) FROM t WHERE g = 1000");
    cr_assert(strstr(plan, "USING ix"), "%s", plan);
    free(plan);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t WHERE g = 1000"), 500);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t WHERE g = 96"), query_int64(db, "SELECT count(*) FROM t WHERE g + 0 = 96"));
    EXEC_OK(db, "ROLLBACK");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM strata_catalog WHERE type = 'index' AND name = 'ix'"), 0);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t WHERE g = 1000"), 0);
    strata_close(db);
}

/* IF NOT EXISTS of an index there leaves it as it was; another name on the same keys is another
** index of the same entries. */
Test(parallel_index, if_not_exists_leaves_the_index_as_it_was) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE u(x INTEGER, y VARCHAR)");
    EXEC_OK(db, "INSERT INTO u SELECT i % 1000, 'y' || i FROM generate_series(1, 20000) AS x(i)");
    EXEC_OK(db, "CREATE INDEX IF NOT EXISTS ux ON u(x)");
    EXEC_OK(db, "CREATE INDEX IF NOT EXISTS ux ON u(y)");
    EXEC_OK(db, "CREATE INDEX ux2 ON u(x)");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM strata_catalog WHERE type = 'index'"), 2);
    char *plan = result(db, "EXPLAIN SELECT count(*) FROM u WHERE x = 5");
    cr_assert(strstr(plan, "USING ux"), "%s", plan);
    free(plan);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM u WHERE x = 5"), 20);
    char *check = result(db, "PRAGMA integrity_check");
    cr_assert_str_eq(check, "ok\n");
    free(check);
    strata_close(db);
}
