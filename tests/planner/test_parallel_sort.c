/*
** test_parallel_sort.c -- ORDER BY, ORDER BY ... LIMIT, DISTINCT and the set operations on several
** workers (planner/exec/op_sort.c, op_setop.c): each gives the same rows, byte for byte, with SET
** threads = 1 and with 2, 4 and 7 threads, over a table of 600,000 rows in both stores; rows of
** equal sort keys come in the order the table's scan reads them (rowid order), whatever worker
** sorted them; DISTINCT and the set operations merge the workers' groups and counts; EXPLAIN
** ANALYZE shows the workers of the sinks' pipelines.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/same_at_threads.h"

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

Test(parallel_sort, order_by_matches_one_thread) {
    strata_db *db = open_table();
    /* one key of 97 values: every worker's run holds ties of every other's */
    same_at_threads(db, "SELECT g, id FROM t ORDER BY g");
    ties_in_input_order(db, "SELECT g, id FROM t ORDER BY g", "SELECT g, id FROM t ORDER BY g, id");
    /* several keys, DESC, NULLs first and last, strings, DECIMAL */
    same_at_threads(db, "SELECT n, s, id FROM t WHERE g < 30 ORDER BY n DESC NULLS FIRST, s");
    same_at_threads(db, "SELECT n, g, id FROM t WHERE k < 20000 ORDER BY n NULLS LAST, g DESC");
    same_at_threads(db, "SELECT s, m, id FROM t WHERE g % 3 = 1 ORDER BY s DESC, m");
    same_at_threads(db, "SELECT m, id FROM t WHERE id % 4 = 0 ORDER BY m DESC");
    ties_in_input_order(db, "SELECT m, s, id FROM t WHERE g = 5 ORDER BY m, s",
                        "SELECT m, s, id FROM t WHERE g = 5 ORDER BY m, s, id");
    /* an expression key, and all columns */
    same_at_threads(db, "SELECT id % 7 AS r, k FROM t WHERE g > 80 ORDER BY r, k DESC");
    same_at_threads(db, "SELECT * FROM t WHERE k BETWEEN 1000 AND 1100 ORDER BY s, n");
    /* through a join's probe */
    same_at_threads(db, "SELECT d.label, t.id FROM t JOIN d ON t.k = d.k WHERE t.g < 20 ORDER BY d.label");
    strata_close(db);
}

Test(parallel_sort, top_n_matches_one_thread) {
    strata_db *db = open_table();
    same_at_threads(db, "SELECT g, id FROM t ORDER BY g LIMIT 10");
    same_at_threads(db, "SELECT g, id, s FROM t ORDER BY g DESC, s LIMIT 1000");
    ties_in_input_order(db, "SELECT g, id FROM t ORDER BY g LIMIT 10000", "SELECT g, id FROM t ORDER BY g, id LIMIT 10000");
    /* with OFFSET; a heap that outgrows its rows (compacted) */
    same_at_threads(db, "SELECT s, id FROM t ORDER BY s DESC LIMIT 100 OFFSET 37");
    same_at_threads(db, "SELECT m, id FROM t ORDER BY m LIMIT 5000 OFFSET 100000");
    ties_in_input_order(db, "SELECT m, id FROM t ORDER BY m LIMIT 5000 OFFSET 100000",
                        "SELECT m, id FROM t ORDER BY m, id LIMIT 5000 OFFSET 100000");
    same_at_threads(db, "SELECT n, id FROM t ORDER BY n NULLS FIRST LIMIT 20000");
    /* more than the rows there are */
    same_at_threads(db, "SELECT s, id FROM t WHERE g = 3 ORDER BY s LIMIT 1000000");
    same_at_threads(db, "SELECT s, id FROM t WHERE g = 3 ORDER BY s LIMIT 1000000 OFFSET 6000");
    strata_close(db);
}

Test(parallel_sort, distinct_matches_one_thread) {
    strata_db *db = open_table();
    /* few values, and many: 50,000 a worker, merged by partition of the key's range (one integer
    ** key) and of the keys' hash (two keys, strings) */
    same_at_threads(db, "SELECT DISTINCT g FROM t ORDER BY g");
    same_at_threads(db, "SELECT DISTINCT s, n IS NULL FROM t ORDER BY 1, 2");
    same_at_threads(db, "SELECT DISTINCT k FROM t ORDER BY k");
    same_at_threads(db, "SELECT DISTINCT CASE WHEN id % 13 = 0 THEN NULL ELSE id % 90000 END AS kk FROM t ORDER BY kk");
    same_at_threads(db, "SELECT DISTINCT k, s FROM t WHERE g < 50 ORDER BY k, s");
    same_at_threads(db, "SELECT DISTINCT m FROM t ORDER BY m DESC");
    same_at_threads(db, "SELECT count(*), sum(k) FROM (SELECT DISTINCT k, g FROM t) AS x");
    strata_close(db);
}

Test(parallel_sort, set_operations_match_one_thread) {
    strata_db *db = open_table();
    /* both inputs on the workers; few groups and many */
    same_at_threads(db, "SELECT g FROM t WHERE id < 300000 UNION SELECT g + 50 FROM t WHERE id > 200000 ORDER BY 1");
    same_at_threads(db, "SELECT k FROM t WHERE g < 50 UNION SELECT id FROM t WHERE g = 60 ORDER BY 1");
    same_at_threads(db, "SELECT k, s FROM t WHERE g < 50 INTERSECT SELECT k, s FROM t WHERE g >= 40 ORDER BY 1, 2");
    same_at_threads(db, "SELECT id % 90000 FROM t INTERSECT SELECT k FROM t WHERE g < 10 ORDER BY 1");
    same_at_threads(db, "SELECT id % 70000 FROM t WHERE g < 50 EXCEPT SELECT k FROM t WHERE g > 10 ORDER BY 1");
    same_at_threads(db, "SELECT id % 90000 FROM t EXCEPT SELECT k * 2 FROM t ORDER BY 1");
    /* ALL: the counts of each side add up over the workers */
    same_at_threads(db, "SELECT g FROM t WHERE id < 300000 INTERSECT ALL SELECT g FROM t WHERE id > 450000 ORDER BY 1");
    same_at_threads(db, "SELECT g, n IS NULL FROM t EXCEPT ALL SELECT g, false FROM t WHERE id > 100000 ORDER BY 1, 2");
    same_at_threads(db, "SELECT s FROM t WHERE g = 1 UNION ALL SELECT s FROM t WHERE g = 2 ORDER BY 1");
    /* one input from a small table, run on the run's thread */
    same_at_threads(db, "SELECT k FROM t INTERSECT SELECT k FROM d ORDER BY 1");
    same_at_threads(db, "SELECT k FROM d EXCEPT SELECT k FROM t WHERE g < 90 ORDER BY 1");
    strata_close(db);
}

Test(parallel_sort, explain_analyze_shows_the_sorts_workers) {
    strata_db *db = open_table();
    EXEC_OK(db, "SET threads = 4");
    static const char *queries[] = {
        "EXPLAIN ANALYZE SELECT g, id FROM t WHERE n > 5 ORDER BY g",
        "EXPLAIN ANALYZE SELECT g, id FROM t WHERE n > 5 ORDER BY g LIMIT 7",
        "EXPLAIN ANALYZE SELECT DISTINCT k FROM t WHERE n > 5",
        "EXPLAIN ANALYZE SELECT k FROM t WHERE n > 5 EXCEPT SELECT g FROM t",
    };
    static const char *sinks[] = {"ORDER_BY", "ORDER_BY", "DISTINCT", "SET_OPERATION"};
    for (size_t q = 0; q < sizeof queries / sizeof *queries; q++) {
        char *plan = result(db, queries[q]);
        const char *sort = strstr(plan, sinks[q]);
        cr_assert(sort, "%s", plan);
        const char *eol = strchr(sort, '\n');
        cr_assert(strstr(sort, " workers)") && strstr(sort, " workers)") < eol, "the sink ran on the workers: %s", plan);
        cr_assert(strstr(plan, "SCAN") && strstr(strstr(plan, "SCAN"), " workers)"), "%s", plan);
        free(plan);
    }
    strata_close(db);
}
