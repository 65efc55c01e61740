/*
** test_parallel.c -- pipelines on several workers (planner/exec/pipeline.c): every query gives the
** same rows with SET threads = 1 and with more threads than the machine has cores, over a table
** whose rows are in both stores (row groups, and rows inserted, updated and deleted since);
** grouped aggregates merge the workers' groups (DISTINCT ones their values) and, merged by
** partition, are read on the workers a partition a morsel; joins probe one build side from every
** worker;
** an error in a worker stops the statement with its message; a transaction that has written
** reads on its own thread; an interrupt stops the workers, memory_limit holds for them together,
** and a statement stepped across a commit keeps its snapshot; the setting is checked.
*/
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers/api_db.h"
#include "helpers/results.h"

/* handle_goes_on: after a statement failed, the handle answers the next one (t's first 1,000
** rowids less the deleted id 7) */
static void handle_goes_on(strata_db *db) {
    char *r = result(db, "SELECT count(*), sum(g) FROM t WHERE id <= 1000");
    cr_assert_str_eq(r, "999|47018\n");
    free(r);
}

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
    /* keys in the order of the rows: most partitions are one worker's groups, output from its table */
    same_at_threads(db, "SELECT id / 3 AS b, count(*), sum(m), min(s), max(n), avg(m) FROM t GROUP BY b ORDER BY b");
    /* a range of rowids, and a filter that keeps nothing */
    same_at_threads(db, "SELECT count(*), sum(g) FROM t WHERE id BETWEEN 100000 AND 450000");
    same_at_threads(db, "SELECT count(*), sum(m), min(s) FROM t WHERE g = 1000");
    strata_close(db);
}

/* DISTINCT aggregates: a value that several workers saw in a group counts once (n has NULLs) */
Test(parallel, distinct_aggregates_match_one_thread) {
    strata_db *db = open_table();
    same_at_threads(db, "SELECT count(DISTINCT k), count(DISTINCT s), sum(DISTINCT m), avg(DISTINCT n), count(*), "
                        "sum(m) FROM t");
    same_at_threads(db, "SELECT g, count(DISTINCT k), count(DISTINCT n), sum(DISTINCT m), min(s), count(*) FROM t "
                        "GROUP BY g ORDER BY g");
    /* more groups than the serial merge takes without DISTINCT */
    same_at_threads(db, "SELECT k, count(DISTINCT s), sum(DISTINCT m), max(n) FROM t GROUP BY k ORDER BY k "
                        "LIMIT 500 OFFSET 20000");
    same_at_threads(db, "SELECT count(*), sum(c) FROM (SELECT id % 70000 AS b, count(DISTINCT g) AS c FROM t GROUP BY b)");
    /* few groups, more (group, value) pairs than the serial merge takes: merged by partition of
    ** their group, two DISTINCT aggregates beside a plain one, one and two keys */
    same_at_threads(db, "SELECT g, count(DISTINCT id), sum(DISTINCT m), count(*), max(s) FROM t GROUP BY g ORDER BY g");
    same_at_threads(db, "SELECT g, n IS NULL, count(DISTINCT k), count(DISTINCT id % 5000) FROM t GROUP BY 1, 2 "
                        "ORDER BY 1, 2");
    strata_close(db);
}

Test(parallel, joins_match_one_thread) {
    strata_db *db = open_table();
    same_at_threads(db, "SELECT d.label, count(*), sum(t.m) FROM t JOIN d ON t.k = d.k GROUP BY d.label ORDER BY 1");
    same_at_threads(db, "SELECT count(*), count(d.label) FROM t LEFT JOIN d ON t.k = d.k");
    same_at_threads(db, "SELECT count(*) FROM t WHERE EXISTS (SELECT 1 FROM d WHERE d.k = t.k)");
    same_at_threads(db, "SELECT count(*), sum(id) FROM t WHERE k NOT IN (SELECT k FROM d)");
    /* RIGHT and FULL joins mark build rows: they probe on one worker, with the same results */
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
    same_row_counts(one, many);
    cr_assert(strstr(many, " workers)"), "the scan's pipeline names its workers: %s", many);
    cr_assert(!strstr(one, " workers)"), "%s", one);
    free(one);
    free(many);
    strata_close(db);
}

/* A GROUP BY whose groups were merged by partition outputs them on the workers, a partition a
** morsel, into the sink above (an ORDER BY, a join's build side, another GROUP BY): the same rows
** as one thread gives, ties of the ORDER BY in the same order, and the ORDER BY's line names its
** workers. */
Test(parallel, a_partitioned_group_by_is_read_on_the_workers) {
    strata_db *db = open_table();
    same_at_threads(db, "SELECT id / 3 AS b, count(*), sum(m), min(s) FROM t GROUP BY b ORDER BY b");
    same_at_threads(db, "SELECT id % 1000 AS b, count(*) AS c, max(s) FROM t GROUP BY id % 1000, id / 1000 "
                        "ORDER BY c, b, 3");
    same_at_threads(db, "SELECT count(*), sum(c) FROM (SELECT c, count(*) AS w FROM "
                        "(SELECT id / 7 AS b, count(*) AS c FROM t GROUP BY b) x GROUP BY c) y");
    same_at_threads(db, "SELECT count(*), sum(t.m) FROM t JOIN (SELECT id / 2 AS b FROM t GROUP BY b "
                        "HAVING count(*) > 1) h ON t.id / 2 = h.b");
    EXEC_OK(db, "SET threads = 4");
    static const char *const order_by[] = {"ORDER_BY"};
    bool on_workers;
    char *many = explain_on_workers(db, "EXPLAIN ANALYZE SELECT id / 3 AS b, count(*) FROM t GROUP BY b ORDER BY b",
                                    order_by, 1, &on_workers);
    cr_assert(on_workers, "the ORDER BY sinks the groups on the workers: %s", many);
    free(many);
    strata_close(db);
}

/* An uncorrelated subquery in a pipeline that runs on the workers is run once, on the run's
** thread before they start, and each worker reads its result: the same rows as one thread gives
** for scalar, IN, ANY and ALL subqueries; one that fails fails as on one thread. */
Test(parallel, uncorrelated_subqueries_run_once_for_the_workers) {
    strata_db *db = open_table();
    same_at_threads(db, "SELECT count(*), sum(m) FROM t WHERE m > (SELECT avg(m) FROM t WHERE g < 100)");
    same_at_threads(db, "SELECT count(*), sum(id) FROM t WHERE k IN (SELECT k FROM t WHERE id % 97 = 0)");
    same_at_threads(db, "SELECT count(*) FROM t WHERE k NOT IN (SELECT k FROM t WHERE id % 97 = 0)");
    same_at_threads(db, "SELECT count(*) FROM t WHERE m > ALL (SELECT m FROM t WHERE id < 50)");
    same_at_threads(db, "SELECT count(*) FROM t WHERE m < ANY (SELECT m FROM t WHERE id < 50) AND n > 10");
    same_at_threads(db, "SELECT g, count(*) FROM t WHERE m > (SELECT min(m) + 5 FROM t) GROUP BY g ORDER BY g");
    /* a subquery that fails: the same outcome at either setting (an error only where the rows
    ** reach it: a scan whose rowid range is empty never evaluates it) */
    static const char *const failing[] = {
        "SELECT count(*) FROM t WHERE id < 0 AND m = (SELECT m FROM t)",
        "SELECT count(*) FROM t WHERE n < -5 AND m = (SELECT m FROM t)",
        "SELECT count(*) FROM t WHERE m = (SELECT m FROM t)",
    };
    for (size_t q = 0; q < sizeof failing / sizeof *failing; q++) {
        int rc[2];
        char msg[2][256];
        for (int k = 0; k < 2; k++) {
            EXEC_OK(db, k ? "SET threads = 4" : "SET threads = 1");
            rc[k] = strata_exec(db, failing[q], NULL, NULL);
            snprintf(msg[k], sizeof msg[k], "%s", rc[k] ? strata_errmsg(db) : "");
            handle_goes_on(db);
        }
        cr_assert_eq(rc[0], rc[1], "%s: %s | %s", failing[q], msg[0], msg[1]);
        cr_assert_str_eq(msg[0], msg[1], "%s", failing[q]);
    }
    strata_close(db);
}

Test(parallel, a_workers_error_stops_the_statement) {
    strata_db *db = open_table();
    EXEC_OK(db, "SET threads = 4");
    /* one row in the middle of the table divides by zero */
    int rc = strata_exec(db, "SELECT sum(10 / (id - 300001)) FROM t", NULL, NULL);
    cr_assert_eq(rc, STRATA_ERROR);
    cr_assert(strstr(strata_errmsg(db), "division by zero"), "%s", strata_errmsg(db));
    handle_goes_on(db);
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

static void *interrupt_soon(void *db) {
    usleep(150 * 1000);
    strata_interrupt(db);
    return NULL;
}

/* strata_interrupt from another thread stops the workers of a long parallel join, and the handle
** goes on */
Test(parallel, an_interrupt_stops_the_workers) {
    strata_db *db = open_table();
    EXEC_OK(db, "SET threads = 7");
    pthread_t th;
    pthread_create(&th, NULL, interrupt_soon, db);
    /* 600,000 rows joined with 6,000 each: far longer than the interrupt takes */
    int rc = strata_exec(db, "SELECT count(*), sum(a.id + b.id) FROM t a JOIN t b ON a.g = b.g", NULL, NULL);
    pthread_join(th, NULL);
    cr_assert_eq(rc, STRATA_INTERRUPT, "-> %d: %s", rc, strata_errmsg(db));
    cr_assert(strstr(strata_errmsg(db), "interrupted"), "%s", strata_errmsg(db));
    handle_goes_on(db);
    strata_close(db);
}

typedef struct progress_seen {
    pthread_t caller;
    int calls, other_thread, decreasing;
    uint64_t last;
} progress_seen;

static int on_progress(void *arg, uint64_t done, uint64_t total, const char *unit) {
    progress_seen *p = arg;
    (void)total, (void)unit;
    if (!pthread_equal(pthread_self(), p->caller)) p->other_thread++;
    if (done < p->last) p->decreasing++;
    p->last = done;
    return ++p->calls >= 3; /* the third call stops the statement */
}

/* the progress handler is called while the workers run, from the thread that steps the
** statement, with the rows every worker read; returning non-zero stops them all */
Test(parallel, the_progress_handler_sees_the_workers_and_stops_them) {
    strata_db *db = open_table();
    EXEC_OK(db, "SET threads = 7");
    progress_seen seen = {.caller = pthread_self()};
    strata_progress_handler(db, on_progress, &seen);
    int rc = strata_exec(db, "SELECT count(*), sum(a.id + b.id) FROM t a JOIN t b ON a.g = b.g", NULL, NULL);
    strata_progress_handler(db, NULL, NULL);
    cr_assert_eq(rc, STRATA_INTERRUPT, "-> %d: %s", rc, strata_errmsg(db));
    cr_assert_eq(seen.calls, 3);
    cr_assert_eq(seen.other_thread, 0);
    cr_assert_eq(seen.decreasing, 0);
    cr_assert_gt(seen.last, 0, "rows read by the workers are counted");
    handle_goes_on(db);
    strata_close(db);
}

/* a memory_limit the workers' group tables pass together fails the statement as it does on one
** thread, with the limit named, and a smaller statement runs after it */
Test(parallel, the_memory_limit_holds_for_the_workers_together) {
    strata_db *db = open_table();
    const char *small = "SELECT g, count(*) FROM t WHERE g < 3 GROUP BY g ORDER BY g";
    char *want = result(db, small);
    EXEC_OK(db, "SET memory_limit = '24MB'");
    const char *big = "SELECT id, count(*), max(s) FROM t GROUP BY id ORDER BY 2 DESC LIMIT 1";
    static const char *settings[] = {"SET threads = 1", "SET threads = 4", "SET threads = 7"};
    int first = STRATA_OK;
    for (size_t i = 0; i < sizeof settings / sizeof *settings; i++) {
        EXEC_OK(db, settings[i]);
        int rc = strata_exec(db, big, NULL, NULL);
        if (i == 0) first = rc;
        cr_assert(rc != STRATA_OK && rc == first, "%s: %d (one thread: %d) %s", settings[i], rc, first, strata_errmsg(db));
        cr_assert(strstr(strata_errmsg(db), "memory_limit"), "%s: %s", settings[i], strata_errmsg(db));
        char *r = result(db, small);
        cr_assert_str_eq(r, want, "%s", settings[i]);
        free(r);
    }
    free(want);
    strata_close(db);
}

/* rest_of collects the rows of st from its current row on (3 columns) as result() does. */
static char *rest_of(strata_stmt *st) {
    text_buf b = {0};
    put(&b, "");
    int rc = STRATA_ROW;
    for (; rc == STRATA_ROW; rc = strata_step(st))
        for (int c = 0; c < 3; c++) {
            const char *v = (const char *)strata_column_text(st, c);
            put(&b, c ? "|" : "");
            put(&b, v ? v : "NULL");
            put(&b, c == 2 ? "\n" : "");
        }
    cr_assert_eq(rc, STRATA_DONE);
    return b.p;
}

/* a statement stepped across a commit that adds rows, deletes others and moves rows into new row
** groups (CHECKPOINT) answers from its snapshot; run again, it sees the commit */
Test(parallel, a_statement_keeps_its_snapshot_across_a_commit) {
    strata_db *db = open_table();
    EXEC_OK(db, "SET threads = 4");
    const char *sql = "SELECT g, count(*), sum(m) FROM t GROUP BY g ORDER BY g";
    char *before = result(db, sql);
    strata_stmt *st;
    cr_assert_eq(strata_prepare(db, sql, &st, NULL), STRATA_OK);
    cr_assert_eq(strata_step(st), STRATA_ROW, "%s", strata_errmsg(db));
    EXEC_OK(db, "INSERT INTO t SELECT i, i % 97, 0, 'new', 1, i FROM generate_series(600001, 900000) AS x(i);"
                "DELETE FROM t WHERE id % 10 = 1; CHECKPOINT");
    char *old = rest_of(st);
    cr_assert_str_eq(old, before);
    char *after = result(db, sql);
    cr_assert_str_neq(after, before);
    cr_assert_eq(strata_reset(st), STRATA_OK);
    cr_assert_eq(strata_step(st), STRATA_ROW);
    char *again = rest_of(st);
    cr_assert_str_eq(again, after, "run again, it sees the commit");
    strata_finalize(st);
    free(old);
    free(after);
    free(again);
    free(before);
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

/* rowids far apart (explicit INTEGER PRIMARY KEY values): a row group spans the gap, the morsels
** follow the row groups and the row store's leaves, not the rowids' span */
Test(parallel, sparse_rowids_match_one_thread) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE sp(id INTEGER PRIMARY KEY, g INTEGER, s VARCHAR);"
                "INSERT INTO sp SELECT i, i % 31, 'a' || (i % 17) FROM generate_series(1, 1000) AS x(i);"
                "INSERT INTO sp SELECT i, i % 31, 'b' || (i % 19) FROM generate_series(1000000000, 1000500000) AS x(i);"
                "CHECKPOINT;"
                "INSERT INTO sp SELECT i, i % 31, 'c' FROM generate_series(2000000000, 2000500000, 5) AS x(i);"
                "DELETE FROM sp WHERE id % 777 = 5");
    same_at_threads(db, "SELECT g, count(*), sum(id), min(s), max(s) FROM sp GROUP BY g ORDER BY g");
    same_at_threads(db, "SELECT count(*), sum(id), sum(g) FROM sp");
    same_at_threads(db, "SELECT count(*), sum(id) FROM sp WHERE id BETWEEN 500 AND 1000250000");
    same_at_threads(db, "SELECT s, count(*) FROM sp WHERE id > 1000400000 GROUP BY s ORDER BY s");
    char *r = result(db, "SET threads = 7; SELECT count(*) FROM sp");
    cr_assert_str_eq(r, "600228\n");
    free(r);
    strata_close(db);
}
