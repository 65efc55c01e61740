/*
** test_parallel_join.c -- a hash join's build side sunk on several workers (planner/exec/op_join.c,
** join_combine): every kind of join gives the same rows at SET threads = 1, 2, 4 and 7 over a
** build side of more than a million rows in both stores (row groups, and rows inserted, updated
** and deleted since), with one and several keys, integer and long string keys, duplicate and NULL
** build keys; a small build side too; its join filters drop the same probe rows; a memory_limit
** that the build passes fails it with the same error at every thread count, and the handle goes
** on; EXPLAIN ANALYZE names the build pipeline's workers. The probe side of every kind runs on the
** workers too, RIGHT/FULL/RIGHT_SEMI/RIGHT_ANTI included (they mark the build rows matched; the
** unmatched come once, after every worker is done).
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/api_db.h"
#include "helpers/results.h"

/* b: 1,200,000 rows, 8 full row groups in the column store and the rest in the row store, with
** deletes and updates since; k repeats each key 3 times, v is NULL in every 17th row, s is a
** string longer than the 12 bytes kept inline. p: 600,000 rows likewise in both stores, k
** repeating the keys 0 .. 319999. */
static strata_db *open_tables(void) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE b(id INTEGER PRIMARY KEY, k INTEGER, k2 INTEGER, s VARCHAR, v INTEGER);"
                "INSERT INTO b SELECT i, i % 400000, i % 7, 'a-long-key-prefix-' || (i % 300000),"
                "  CASE WHEN i % 17 = 0 THEN NULL ELSE i END FROM generate_series(1, 1000000) AS x(i);"
                "CHECKPOINT;"
                "INSERT INTO b SELECT i, i % 400000, i % 7, 'a-long-key-prefix-' || (i % 300000), i"
                "  FROM generate_series(1000001, 1200000) AS x(i);"
                "DELETE FROM b WHERE id % 1000 = 7;"
                "UPDATE b SET k2 = k2 + 100 WHERE id % 5000 = 3;"
                "CREATE TABLE p(id INTEGER PRIMARY KEY, k INTEGER, g INTEGER);"
                "INSERT INTO p SELECT i, i % 320000, i % 10 FROM generate_series(1, 500000) AS x(i);"
                "CHECKPOINT;"
                "INSERT INTO p SELECT i, i % 320000, i % 10 FROM generate_series(500001, 600000) AS x(i)");
    return db;
}

/* The probe side: a series larger than b, so that b is the side the hash table is built on. */
#define PROBE "generate_series(1, 1300000) AS g(i)"

/* Under ThreadSanitizer (ten times slower) a few of the queries run: every kind of join builds its
** table alike, and those few take each path of it (long strings, several keys, a kind that marks
** build rows, the null-aware anti join, a build side the run's thread builds the table of). */
#ifdef __SANITIZE_THREAD__
#define ALL_QUERIES 0
#else
#define ALL_QUERIES 1
#endif

Test(parallel_join, every_kind_over_a_large_build_side, .timeout = 600) {
    strata_db *db = open_tables();
    /* inner: one key with duplicates; several keys; a long string key */
    if (ALL_QUERIES)
        same_at_threads(db, "SELECT count(*), sum(b.id), sum(g.i), min(b.s), max(b.v) FROM " PROBE " JOIN b ON b.k = g.i % 500000");
    same_at_threads(db, "SELECT count(*), sum(b.id) FROM " PROBE " JOIN b ON b.k = g.i % 500000 AND b.k2 = g.i % 7");
    same_at_threads(db, "SELECT count(*), sum(b.id), max(g.i) FROM " PROBE " JOIN b ON b.s = 'a-long-key-prefix-' || (g.i % 350000)");
    if (ALL_QUERIES) {
        /* rows listed, in a total order */
        same_at_threads(db, "SELECT g.i, b.id, b.s FROM " PROBE " JOIN b ON b.k = g.i WHERE g.i % 20000 = 1 ORDER BY 1, 2");
        /* NULL build keys match nothing */
        same_at_threads(db, "SELECT count(*), sum(g.i) FROM " PROBE " JOIN b ON b.v = g.i");
        /* left, and an outer side kept whole (b is the smaller: RIGHT and FULL joins building on it) */
        same_at_threads(db, "SELECT count(*), count(b.id), sum(b.v) FROM " PROBE " LEFT JOIN b ON b.k = g.i + 300000");
        same_at_threads(db, "SELECT count(*), count(g.i), sum(b.id) FROM b LEFT JOIN " PROBE " ON b.v = g.i * 3");
    }
    same_at_threads(db, "SELECT count(*), count(g.i), count(b.id), sum(b.id) FROM b FULL JOIN " PROBE " ON b.v = g.i + 1000000");
    /* semi and anti joins, the null-aware NOT IN (b.v has NULLs: no row passes) and NOT EXISTS */
    if (ALL_QUERIES)
        same_at_threads(db, "SELECT count(*), sum(g.i) FROM " PROBE " WHERE EXISTS (SELECT 1 FROM b WHERE b.k = g.i AND b.k2 < 3)");
    same_at_threads(db, "SELECT count(*) FROM " PROBE " WHERE g.i NOT IN (SELECT v FROM b)");
    if (ALL_QUERIES) {
        same_at_threads(db, "SELECT count(*), sum(g.i) FROM " PROBE " WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.v = g.i)");
        /* the build side's rows that some probe row joins, or none (RIGHT_SEMI, RIGHT_ANTI) */
        same_at_threads(db, "SELECT count(*), sum(b.id) FROM b WHERE EXISTS (SELECT 1 FROM " PROBE " WHERE g.i = b.v * 2)");
        same_at_threads(db, "SELECT count(*), sum(b.id) FROM b WHERE NOT EXISTS (SELECT 1 FROM " PROBE " WHERE g.i = b.v * 2)");
    }
    /* the rows of a RIGHT join listed (matched and unmatched build rows), in a total order */
    same_at_threads(db, "SELECT b.id, g.i FROM " PROBE " RIGHT JOIN b ON b.v = g.i * 5 WHERE b.id % 9973 = 1 ORDER BY 1, 2");
    /* a build side below the size whose table is built by partition on the workers */
    same_at_threads(db, "SELECT count(*), sum(b.id) FROM " PROBE " JOIN b ON b.k = g.i WHERE b.id % 50 = 3");
    strata_close(db);
}

/* dropped is the number of rows the join filters dropped in an EXPLAIN ANALYZE output (the first
** line that has some). */
static unsigned long long dropped(const char *text) {
    const char *a = strstr(text, " more dropped by join filters");
    cr_assert(a, "the join filter drops rows: %s", text);
    while (a > text && a[-1] >= '0' && a[-1] <= '9') a--;
    return strtoull(a, NULL, 10);
}

Test(parallel_join, join_filters_and_explain_analyze, .timeout = 600) {
    strata_db *db = open_tables();
    /* the build side, b's rows of v < 300000 whose k is a multiple of 97, gives the scan of p its
    ** keys' range and Bloom filter (the keys too far apart for a bitmap: operator.h): every
    ** morsel of p has rows in the range and past it, and with 96 in 97 keys not there the filter
    ** stays on in every worker (a scan stops checking one that passes 9 rows in 10): the same
    ** Bloom filter drops the same rows */
    const char *q = "SELECT p.g, count(*), sum(b.id) FROM p JOIN b ON p.k = b.k WHERE b.v < 300000 AND b.k % 97 = 0 "
                    "GROUP BY p.g ORDER BY p.g";
    same_at_threads(db, q);
    char ex[512];
    snprintf(ex, sizeof ex, "EXPLAIN ANALYZE %s", q);
    EXEC_OK(db, "SET threads = 1");
    char *one = result(db, ex);
    EXEC_OK(db, "SET threads = 4");
    char *many = result(db, ex);
    same_row_counts(one, many);
    cr_assert_eq(dropped(one), dropped(many), "%s\n%s", one, many);
    cr_assert_gt(dropped(one), 0, "%s", one);
    /* the build pipeline ran on the workers, and so did the probe: the join's line and b's scan
    ** name them (each side has few morsels with rows in range) */
    free(many);
    static const char *const both[] = {"HASH_JOIN", "SCAN b"};
    bool all;
    many = explain_on_workers(db, ex, both, 2, &all);
    cr_assert(all, "%s", many);
    cr_assert(!strstr(one, " workers)"), "%s", one);
    free(one);
    free(many);
    /* a FULL join's probe side (b, built on the series) runs on the workers, and its unmatched
    ** build rows come once */
    q = "EXPLAIN ANALYZE SELECT count(*), count(g.i), count(b.id) FROM b FULL JOIN " PROBE " ON b.v = g.i + 1000000";
    static const char *const probe[] = {"SCAN b"};
    many = explain_on_workers(db, q, probe, 1, &all);
    cr_assert(all, "%s", many);
    free(many);
    same_at_threads(db, q + strlen("EXPLAIN ANALYZE "));
    strata_close(db);
}

Test(parallel_join, a_memory_limit_fails_the_build_cleanly, .timeout = 600) {
    strata_db *db = open_tables();
    const char *q = "SELECT count(*), sum(b.id) FROM " PROBE " JOIN b ON b.s = 'a-long-key-prefix-' || g.i";
    EXEC_OK(db, "SET memory_limit = '48MB'");
    char first[512] = "";
    static const char *threads[] = {"SET threads = 1", "SET threads = 2", "SET threads = 4", "SET threads = 7"};
    for (size_t i = 0; i < sizeof threads / sizeof *threads; i++) {
        EXEC_OK(db, threads[i]);
        int rc = strata_exec(db, q, NULL, NULL);
        cr_assert_eq(rc, STRATA_NOMEM, "%s: %d %s", threads[i], rc, strata_errmsg(db));
        if (i == 0) snprintf(first, sizeof first, "%s", strata_errmsg(db));
        cr_assert(strstr(first, "memory_limit"), "%s", first);
        cr_assert_str_eq(strata_errmsg(db), first, "%s", threads[i]);
        /* the handle goes on, within the limit */
        char *r = result(db, "SELECT count(*), max(k) FROM b WHERE id <= 1000");
        cr_assert_str_eq(r, "999|1000\n");
        free(r);
    }
    EXEC_OK(db, "SET memory_limit = '4GB'");
    if (ALL_QUERIES) same_at_threads(db, q);
    strata_close(db);
}
