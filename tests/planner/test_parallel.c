/*
** test_parallel.c -- pipelines on several workers (planner/exec/pipeline.c): every query gives the
** same rows with SET threads = 1 and with more threads than the machine has cores, over a table
** whose rows are in both stores (row groups, and rows inserted, updated and deleted since);
** grouped aggregates merge the workers' groups, joins probe one build side from every worker;
** an error in a worker stops the statement with its message; a transaction that has written
** reads on its own thread; the setting is checked.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/same_at_threads.h"

Test(parallel, aggregates_match_one_thread) {
    strata_db *db = open_table();
    same_at_threads(db, "SELECT count(*), count(n), sum(id), sum(m), min(s), max(s), min(m), max(n), avg(m) FROM t");
    same_at_threads(db, "SELECT count(*), sum(m) FROM t WHERE g < 40 AND s LIKE 'name1%'");
    same_at_threads(db, "SELECT g, count(*), sum(m), min(s), max(n), avg(n) FROM t GROUP BY g ORDER BY g");
    /* many groups: the workers' tables merge */
    same_at_threads(db, "SELECT k, count(*), sum(id), max(s) FROM t GROUP BY k ORDER BY k");
    same_at_threads(db, "SELECT s, n IS NULL, count(*) FROM t WHERE id > 123456 GROUP BY s, n IS NULL ORDER BY 1, 2");
    /* more groups than the run's thread merges alone: by partition of the keys' range (one integer
    ** key, its NULL group too) and of their hash (two keys) */
    same_at_threads(db, "SELECT CASE WHEN id % 13 = 0 THEN NULL ELSE id % 90000 END AS kk, count(*), sum(m), min(s) "
                        "FROM t GROUP BY kk ORDER BY kk");
    same_at_threads(db, "SELECT k, s, count(*), max(id) FROM t GROUP BY k, s ORDER BY k, s");
    /* a range of rowids, and a filter that keeps nothing */
    same_at_threads(db, "SELECT count(*), sum(g) FROM t WHERE id BETWEEN 100000 AND 450000");
    same_at_threads(db, "SELECT count(*), sum(m), min(s) FROM t WHERE g = 1000");
    strata_close(db);
}

Test(parallel, joins_match_one_thread) {
    strata_db *db = open_table();
    same_at_threads(db, "SELECT d.label, count(*), sum(t.m) FROM t JOIN d ON t.k = d.k GROUP BY d.label ORDER BY 1");
    same_at_threads(db, "SELECT count(*), count(d.label) FROM t LEFT JOIN d ON t.k = d.k");
    same_at_threads(db, "SELECT count(*) FROM t WHERE EXISTS (SELECT 1 FROM d WHERE d.k = t.k)");
    same_at_threads(db, "SELECT count(*), sum(id) FROM t WHERE k NOT IN (SELECT k FROM d)");
    /* RIGHT and FULL joins mark build rows: they stay on one worker, with the same results */
    same_at_threads(db, "SELECT count(*), count(t.id) FROM d LEFT JOIN t ON t.k = d.k AND t.g = 5");
    same_at_threads(db, "SELECT count(*) FROM t FULL JOIN d ON t.k = d.k + 1000000");
    strata_close(db);
}

Test(parallel, explain_analyze_counts_every_worker) {
    strata_db *db = open_table();
    EXEC_OK(db, "SET threads = 1");
    char *one = result(db, "EXPLAIN ANALYZE SELECT g, count(*) FROM t WHERE n > 500 GROUP BY g");
    EXEC_OK(db, "SET threads = 4");
    char *many = result(db, "EXPLAIN ANALYZE SELECT g, count(*) FROM t WHERE n > 500 GROUP BY g");
    /* the rows= of each line agree; the times do not */
    const char *a = one, *b = many;
    int lines = 0;
    while ((a = strstr(a, "rows=")) && (b = strstr(b, "rows="))) {
        cr_assert_eq(strtoull(a + 5, NULL, 10), strtoull(b + 5, NULL, 10), "%s\n%s", one, many);
        a += 5, b += 5, lines++;
    }
    cr_assert_geq(lines, 3, "%s", many);
    cr_assert(strstr(many, " workers)"), "the scan's pipeline names its workers: %s", many);
    cr_assert(!strstr(one, " workers)"), "%s", one);
    free(one);
    free(many);
    strata_close(db);
}

Test(parallel, a_workers_error_stops_the_statement) {
    strata_db *db = open_table();
    EXEC_OK(db, "SET threads = 4");
    /* one row in the middle of the table divides by zero */
    int rc = strata_exec(db, "SELECT sum(10 / (id - 300001)) FROM t", NULL, NULL);
    cr_assert_eq(rc, STRATA_ERROR);
    cr_assert(strstr(strata_errmsg(db), "division by zero"), "%s", strata_errmsg(db));
    /* the handle goes on */
    char *r = result(db, "SELECT count(*) FROM t WHERE id <= 1000");
    cr_assert_str_eq(r, "999\n");
    free(r);
    strata_close(db);
}

/* the rows a transaction wrote are its own pages, which only its thread may read: its queries
** then run on that thread, and see them */
Test(parallel, a_transaction_that_wrote_reads_on_its_thread) {
    strata_db *db = open_table();
    EXEC_OK(db, "BEGIN");
    char *before = result(db, "EXPLAIN ANALYZE SELECT g, count(*) FROM t GROUP BY g");
    cr_assert(strstr(before, " workers)"), "nothing written yet: on the workers: %s", before);
    EXEC_OK(db, "INSERT INTO t SELECT i, 1, 1, 'txn', 2.5, i FROM generate_series(700001, 700100) AS x(i);"
                "DELETE FROM t WHERE id % 1000 = 11");
    char *after = result(db, "EXPLAIN ANALYZE SELECT g, count(*) FROM t GROUP BY g");
    cr_assert(!strstr(after, " workers)"), "%s", after);
    same_at_threads(db, "SELECT g, count(*), sum(m), max(s) FROM t GROUP BY g ORDER BY g");
    char *r = result(db, "SELECT count(*) FROM t WHERE s = 'txn'");
    cr_assert_str_eq(r, "99\n"); /* 700011 deleted */
    EXEC_OK(db, "ROLLBACK");
    free(r);
    r = result(db, "SELECT count(*) FROM t WHERE s = 'txn'");
    cr_assert_str_eq(r, "0\n");
    free(r);
    free(before);
    free(after);
    strata_close(db);
}

Test(parallel, the_setting) {
    strata_db *db = open_mem();
    char *r = result(db, "PRAGMA threads");
    cr_assert(atoi(r) >= 1, "%s", r); /* the machine's cores */
    free(r);
    EXEC_OK(db, "SET threads = 3");
    r = result(db, "PRAGMA threads");
    cr_assert_str_eq(r, "3\n");
    free(r);
    EXEC_OK(db, "PRAGMA threads = 1");
    r = result(db, "PRAGMA threads");
    cr_assert_str_eq(r, "1\n");
    free(r);
    cr_assert_eq(strata_exec(db, "SET threads = 0", NULL, NULL), STRATA_ERROR);
    cr_assert(strstr(strata_errmsg(db), "threads must be"), "%s", strata_errmsg(db));
    cr_assert_eq(strata_exec(db, "SET threads = 'many'", NULL, NULL), STRATA_ERROR);
    cr_assert_eq(strata_exec(db, "SET threads = 100000", NULL, NULL), STRATA_ERROR);
    strata_close(db);
}
