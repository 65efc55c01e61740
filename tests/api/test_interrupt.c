/*
** test_interrupt.c -- strata_interrupt stops a running statement from another thread, the
** statement's changes are rolled back and the handle goes on working; EXPLAIN ANALYZE reports
** the rows each operator produced.
*/
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "strata.h"

static strata_db *open_mem(void) {
    strata_db *db = NULL;
    int rc = strata_open(":memory:", &db);
    cr_assert_eq(rc, STRATA_OK, "open -> %d", rc);
    return db;
}

static int64_t count_of(strata_db *db, const char *sql) {
    strata_stmt *s;
    cr_assert_eq(strata_prepare(db, sql, &s, NULL), STRATA_OK, "%s", strata_errmsg(db));
    cr_assert_eq(strata_step(s), STRATA_ROW, "%s", strata_errmsg(db));
    int64_t v = strata_column_int64(s, 0);
    strata_finalize(s);
    return v;
}

static void *interrupt_later(void *arg) {
    usleep(100 * 1000);
    strata_interrupt(arg);
    return NULL;
}

Test(interrupt, stops_an_endless_recursive_query) {
    strata_db *db = open_mem();
    pthread_t th;
    pthread_create(&th, NULL, interrupt_later, db);
    /* never ends by itself: counts upward without a bound */
    int rc = strata_exec(db, "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c",
                         NULL, NULL);
    pthread_join(th, NULL);
    cr_assert_eq(rc, STRATA_INTERRUPT, "-> %d: %s", rc, strata_errmsg(db));
    cr_assert(strstr(strata_errmsg(db), "interrupted") != NULL, "%s", strata_errmsg(db));
    /* the handle works on; a new statement is not interrupted */
    cr_assert_eq(count_of(db, "SELECT count(*) FROM generate_series(1, 10)"), 10);
    strata_close(db);
}

Test(interrupt, rolls_back_an_interrupted_write) {
    strata_db *db = open_mem();
    cr_assert_eq(strata_exec(db, "CREATE TABLE t(a BIGINT)", NULL, NULL), STRATA_OK);
    pthread_t th;
    pthread_create(&th, NULL, interrupt_later, db);
    /* a write whose input never ends */
    int rc = strata_exec(db,
                         "INSERT INTO t WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) "
                         "SELECT n FROM c",
                         NULL, NULL);
    pthread_join(th, NULL);
    cr_assert_eq(rc, STRATA_INTERRUPT, "-> %d: %s", rc, strata_errmsg(db));
    cr_assert_eq(count_of(db, "SELECT count(*) FROM t"), 0);
    strata_close(db);
}

static int collect(void *arg, int n, char **v, char **names) {
    (void)names;
    char *buf = arg;
    for (int i = 0; i < n; i++) {
        strcat(buf, v[i] ? v[i] : "NULL");
        strcat(buf, "\n");
    }
    return 0;
}

/* line_has says whether a line of text starts (after indentation) with head and holds part. */
static bool line_has(const char *text, const char *head, const char *part) {
    for (const char *l = strstr(text, head); l; l = strstr(l + 1, head)) {
        const char *end = strchr(l, '\n');
        const char *p = strstr(l, part);
        if (p && (!end || p < end)) return true;
    }
    return false;
}

Test(explain, analyze_counts_rows_per_operator) {
    strata_db *db = open_mem();
    cr_assert_eq(strata_exec(db,
                             "CREATE TABLE t(k INTEGER PRIMARY KEY, g INTEGER);"
                             "INSERT INTO t SELECT n, n % 7 FROM generate_series(1, 5000) AS s(n)",
                             NULL, NULL),
                 STRATA_OK, "%s", strata_errmsg(db));
    static char out[8192];
    out[0] = 0;
    cr_assert_eq(strata_exec(db, "EXPLAIN ANALYZE SELECT g, count(*) FROM t WHERE k > 1000 GROUP BY g", collect, out),
                 STRATA_OK, "%s", strata_errmsg(db));
    /* the scan reads the rowid range k > 1000 (4000 rows), the aggregate makes 7 groups; each
    ** line shows the estimate beside the count (the statistics were gathered after the insert) */
    cr_assert(line_has(out, "SCAN t (rowid range)  (est=", " rows=4000 "), "%s", out);
    cr_assert(line_has(out, "HASH_GROUP_BY (1 key, 1 aggregate)  (est=7 ", " rows=7 "), "%s", out);
    /* EXPLAIN ANALYZE of a write performs it, as PostgreSQL's does */
    out[0] = 0;
    cr_assert_eq(strata_exec(db, "EXPLAIN ANALYZE DELETE FROM t WHERE g = 0", collect, out), STRATA_OK, "%s",
                 strata_errmsg(db));
    cr_assert(strstr(out, "DELETE t") != NULL, "%s", out);
    cr_assert_eq(count_of(db, "SELECT count(*) FROM t WHERE g = 0"), 0);
    cr_assert_eq(count_of(db, "SELECT count(*) FROM t"), 5000 - 714);
    strata_close(db);
}
