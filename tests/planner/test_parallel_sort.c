/*
** test_parallel_sort.c -- ORDER BY, ORDER BY ... LIMIT, DISTINCT and the set operations on several
** workers (planner/exec/op_sort.c, op_setop.c): each gives the same rows, byte for byte, with SET
** threads = 1 and with 2, 4 and 7 threads, over a table of 600,000 rows in both stores; rows of
** equal sort keys come in the order the table's scan reads them (rowid order), whatever worker
** sorted them; DISTINCT and the set operations merge the workers' groups and counts, UNION ALL
** takes their rows by morsel (the serial order, without ORDER BY too); EXPLAIN
** ANALYZE shows the workers of the sinks' pipelines.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/results.h"

/* ties_in_input_order asserts that sql (ORDER BY keys with ties) gives, at 4 threads, the rows
** of sql_by_id (the same keys, then id: the order t's scan reads its rows in) at 1 thread. */
static void ties_in_input_order(strata_db *db, const char *sql, const char *sql_by_id) {
    EXEC_OK(db, "SET threads = 1");
    char *want = result(db, sql_by_id);
    EXEC_OK(db, "SET threads = 4");
    char *got = result(db, sql);
    cr_assert_str_eq(got, want, "%s", sql);
    free(want);
    free(got);
}

/* One table for many queries: making it is most of a test's time under TSan. */
Test(parallel_sort, order_by_and_top_n_match_one_thread) {
    strata_db *db = open_table();
    /* one key of 97 values: every worker's run holds ties of every other's (results are kept to
    ** some 10,000s of rows; the sorts' inputs are of every morsel) */
    same_at_threads(db, "SELECT g, id FROM t WHERE id % 20 = 0 ORDER BY g");
    ties_in_input_order(db, "SELECT g, id FROM t WHERE id % 20 = 0 ORDER BY g",
                        "SELECT g, id FROM t WHERE id % 20 = 0 ORDER BY g, id");
    /* several keys, DESC, NULLs first and last, strings, DECIMAL, an expression */
    same_at_threads(db, "SELECT n, s, id FROM t WHERE g < 3 ORDER BY n DESC NULLS FIRST, s");
    same_at_threads(db, "SELECT n, g, id FROM t WHERE k < 2000 ORDER BY n NULLS LAST, g DESC");
    same_at_threads(db, "SELECT s, m, id FROM t WHERE g % 30 = 1 ORDER BY s DESC, m");
    ties_in_input_order(db, "SELECT m, s, id FROM t WHERE g = 5 ORDER BY m, s",
                        "SELECT m, s, id FROM t WHERE g = 5 ORDER BY m, s, id");
    same_at_threads(db, "SELECT id % 7 AS r, k FROM t WHERE g > 94 ORDER BY r, k DESC");
    /* through a join's probe */
    same_at_threads(db, "SELECT d.label, t.id FROM t JOIN d ON t.k = d.k WHERE t.g < 5 ORDER BY d.label");
    /* top-N: a heap a worker, merged */
    same_at_threads(db, "SELECT g, id FROM t ORDER BY g LIMIT 10");
    ties_in_input_order(db, "SELECT g, id FROM t ORDER BY g LIMIT 10000", "SELECT g, id FROM t ORDER BY g, id LIMIT 10000");
    same_at_threads(db, "SELECT n, id FROM t ORDER BY n NULLS FIRST LIMIT 2000");
    /* with OFFSET; a heap that outgrows its rows (compacted); more than the rows there are */
    same_at_threads(db, "SELECT s, id FROM t ORDER BY s DESC LIMIT 100 OFFSET 37");
    same_at_threads(db, "SELECT m, id FROM t ORDER BY m LIMIT 500 OFFSET 100000");
    same_at_threads(db, "SELECT s, id FROM t WHERE g = 3 ORDER BY s LIMIT 1000000 OFFSET 5000");

    /* EXPLAIN ANALYZE names the workers of the sorts' pipelines, and of DISTINCT's, EXCEPT's and UNION ALL's */
    EXEC_OK(db, "SET threads = 4");
    static const char *queries[] = {
        "EXPLAIN ANALYZE SELECT g, id FROM t WHERE n > 5 ORDER BY g",
        "EXPLAIN ANALYZE SELECT g, id FROM t WHERE n > 5 ORDER BY g LIMIT 7",
        "EXPLAIN ANALYZE SELECT DISTINCT k FROM t WHERE n > 5",
        "EXPLAIN ANALYZE SELECT k FROM t WHERE n > 5 EXCEPT SELECT g FROM t",
        "EXPLAIN ANALYZE SELECT k FROM t WHERE n > 5 UNION ALL SELECT g FROM t",
    };
    static const char *sinks[] = {"ORDER_BY", "ORDER_BY", "DISTINCT", "SET_OPERATION", "SET_OPERATION"};
    for (size_t q = 0; q < sizeof queries / sizeof *queries; q++) {
        const char *ops[] = {sinks[q], "SCAN"};
        bool all;
        char *plan = explain_on_workers(db, queries[q], ops, 2, &all);
        cr_assert(all, "the sink and the scan ran on the workers: %s", plan);
        free(plan);
    }
    strata_close(db);
}

Test(parallel_sort, distinct_and_set_operations_match_one_thread) {
    strata_db *db = open_table();
    /* few values, and many: 50,000 a worker, merged by partition of the key's range (one integer
    ** key, its NULL too) and of the keys' hash (two keys, strings) */
    same_at_threads(db, "SELECT DISTINCT g FROM t ORDER BY g");
    same_at_threads(db, "SELECT DISTINCT m FROM t ORDER BY m DESC");
    same_at_threads(db, "SELECT DISTINCT k FROM t ORDER BY k LIMIT 2000");
    same_at_threads(db, "SELECT DISTINCT CASE WHEN id % 13 = 0 THEN NULL ELSE id % 90000 END AS kk FROM t "
                        "ORDER BY kk DESC LIMIT 2000");
    same_at_threads(db, "SELECT DISTINCT k, s FROM t ORDER BY k, s LIMIT 2000");
    /* both inputs on the workers; few groups and many (the right input's merged by partition,
    ** with the left one's) */
    same_at_threads(db, "SELECT g FROM t WHERE id < 300000 UNION SELECT g + 50 FROM t WHERE id > 200000 ORDER BY 1");
    same_at_threads(db, "SELECT k FROM t WHERE g < 50 UNION SELECT id FROM t WHERE g = 60 ORDER BY 1 LIMIT 3000 OFFSET 48000");
    same_at_threads(db, "SELECT k, s FROM t WHERE g < 50 INTERSECT SELECT k, s FROM t WHERE g >= 40 ORDER BY 1, 2 LIMIT 3000");
    same_at_threads(db, "SELECT id % 90000 FROM t INTERSECT SELECT k FROM t WHERE g < 10 ORDER BY 1 DESC LIMIT 3000");
    same_at_threads(db, "SELECT id % 90000 FROM t EXCEPT SELECT k * 2 FROM t ORDER BY 1 LIMIT 3000 OFFSET 20000");
    /* ALL: the counts of each side add up over the workers */
    same_at_threads(db, "SELECT g, count(*) FROM (SELECT g FROM t WHERE id < 300000 INTERSECT ALL "
                        "SELECT g FROM t WHERE id > 450000) AS x GROUP BY g ORDER BY 1");
    same_at_threads(db, "SELECT g, z, count(*) FROM (SELECT g, n IS NULL AS z FROM t EXCEPT ALL "
                        "SELECT g, false FROM t WHERE id > 100000) AS x GROUP BY g, z ORDER BY 1, 2");
    same_at_threads(db, "SELECT s FROM t WHERE g = 1 UNION ALL SELECT s FROM t WHERE g = 2 ORDER BY 1 LIMIT 3000");
    /* UNION ALL on the workers keeps the serial order: each input's rows in scan order, the left
    ** input's first, also when an input is small (read on the run's thread) -- no ORDER BY needed */
    same_at_threads(db, "SELECT id, s FROM t WHERE g < 3 UNION ALL SELECT id, s FROM t WHERE g > 90 LIMIT 500 OFFSET 9000");
    same_at_threads(db, "SELECT * FROM (SELECT id, s FROM t WHERE g < 3 UNION ALL SELECT id, s FROM t WHERE g > 90) "
                        "AS u LIMIT 500 OFFSET 21000");
    same_at_threads(db, "SELECT * FROM (SELECT k FROM d UNION ALL SELECT id FROM t WHERE g = 7 UNION ALL SELECT k FROM d) "
                        "AS u LIMIT 400 OFFSET 5900");
    same_at_threads(db, "SELECT g % 3, id FROM (SELECT g, id FROM t WHERE g < 30 UNION ALL SELECT g, id FROM t WHERE g > 70) "
                        "AS u ORDER BY 1 LIMIT 300 OFFSET 70000");
    /* one input from a small table, run on the run's thread */
    same_at_threads(db, "SELECT k FROM t INTERSECT SELECT k FROM d ORDER BY 1 LIMIT 3000");
    strata_close(db);
}
