/*
** test_tpch_expected.c -- strata's answers to the 22 TPC-H queries at SF 0.01, and at SF 0.1 on four threads, against the expected
** results of tests/datasets/tpch-expected/sf0.01/ (SQLite's, cross-checked against DuckDB: see its
** README), by the rule of datasets/tpch/tpch_check.h: same rows in the same order, strings, dates
** and integers equal, numbers within 0.01 or a relative 1e-9.
**
** It loads SF 0.01 with tpch-load and runs `tpch-run -c` on it, which compares every query and
** names the first differing row and column. The queries of TPCH_PENDING_QUERIES are skipped with a
** printed note; every other query must run and match. Also: a doctored expected value is caught
** and named, and the rule itself on single values.
*/
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers/run_program.h"
#include "helpers/tmpdir.h"
#include "tpch_check.h"

#if !defined(TPCH_LOAD_BIN) || !defined(TPCH_RUN_BIN) || !defined(TPCH_SCHEMA) || !defined(TPCH_QUERIES) ||  \
    !defined(TPCH_EXPECTED)
#error "the Makefile passes TPCH_LOAD_BIN, TPCH_RUN_BIN, TPCH_SCHEMA, TPCH_QUERIES and TPCH_EXPECTED"
#endif

#define QUERY_SECONDS "60" /* each query's limit: the slowest compared one takes about 2 s */

/* load makes a temporary folder (dir, 64 bytes) and loads SF sf into dir/tpch.db (db, 600). */
static void load(char *dir, char *db, const char *sf) {
    strcpy(dir, "/tmp/strata-tpch-expected-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(db, 600, "%s/tpch.db", dir);
    const char *argv[] = {TPCH_LOAD_BIN, "-s", sf, "-d", db, "-S", TPCH_SCHEMA, NULL};
    run_result r = run_program(dir, argv, NULL);
    cr_assert_eq(r.status, 0, "tpch-load: %s%s", r.out, r.err);
    run_free(&r);
}

/* compare runs tpch-run -c expected on db for the queries named in extra (NULL-terminated). */
static run_result compare(const char *dir, const char *db, const char *expected, const char *const *extra) {
    const char *argv[32] = {TPCH_RUN_BIN, "-d", db, "-q", TPCH_QUERIES, "-t", QUERY_SECONDS, "-c", expected};
    int n = 9;
    for (; extra && *extra && n < 31; extra++)
        argv[n++] = *extra;
    argv[n] = NULL;
    return run_program(dir, argv, NULL);
}

/* query_line finds the line of query q in tpch-run's output; returns its copy (freed by the
** caller), or NULL. */
static char *query_line(const char *out, int q) {
    char prefix[16];
    snprintf(prefix, sizeof prefix, "q%02d ", q);
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, prefix, 4) == 0) return strndup(p, strcspn(p, "\n"));
    return NULL;
}

/* expect_matches loads SF sf and expects every query but the pending to match its expected
** result, tpch-run given the options extra. */
static void expect_matches(const char *sf, const char *const *extra) {
    char dir[64], db[600], expected[64];
    load(dir, db, sf);
    snprintf(expected, sizeof expected, "%s/sf%s", TPCH_EXPECTED, sf);
    run_result r = compare(dir, db, expected, extra);
    for (int q = 1; q <= TPCH_QUERY_COUNT; q++) {
        char *line = query_line(r.out, q);
        cr_assert_not_null(line, "no line for q%02d in:\n%s", q, r.out);
        if (tpch_query_pending(q)) {
            cr_expect_not_null(strstr(line, "skipped: pending"), "pending q%02d: %s", q, line);
            fprintf(stderr, "tpch_expected: q%02d skipped (%s; TPCH_PENDING_QUERIES in tpch_check.h)\n", q,
                    TPCH_PENDING_REASON);
        } else {
            size_t n = strlen(line);
            cr_expect(n >= 6 && strcmp(line + n - 6, " match") == 0, "SF %s: %s", sf, line);
        }
        free(line);
    }
    cr_expect_eq(r.status, 0, "tpch-run -c exits 0 when every compared query matches:\n%s%s", r.out, r.err);
    run_free(&r);
    tmpdir_remove(dir);
}

Test(tpch_expected, every_query_but_the_pending_matches_at_sf001, .timeout = 300) { expect_matches("0.01", NULL); }

/* SF 0.1's lineitem spans five row groups: its scans run on the workers, four of them (more than
** the machine's cores) */
Test(tpch_expected, every_query_but_the_pending_matches_at_sf01_on_four_threads, .timeout = 600) {
    const char *const four[] = {"-T", "4", NULL};
    expect_matches("0.1", four);
}

/* A wrong value in the expected results must be caught and named by query, row and column. */
Test(tpch_expected, a_difference_names_query_row_and_column, .timeout = 120) {
    char dir[64], db[600], results[700], path[800];
    load(dir, db, "0.01");
    snprintf(results, sizeof results, "%s/results", dir);
    cr_assert_eq(mkdir(results, 0755), 0);
    tpch_result want;
    tpch_result_path(path, sizeof path, TPCH_EXPECTED "/sf0.01", 1);
    cr_assert_eq(tpch_result_read(path, &want), 0, "cannot read %s", path);
    cr_assert_geq(want.nrows, 2);
    char **sum_qty = &want.values[1 * want.ncols + 2]; /* row 2, column 3 */
    char changed[64];
    snprintf(changed, sizeof changed, "%.2f", strtod(*sum_qty, NULL) + 1);
    free(*sum_qty);
    *sum_qty = strdup(changed);
    tpch_result_path(path, sizeof path, results, 1);
    cr_assert_eq(tpch_result_write(&want, path), 0);
    tpch_result_free(&want);

    run_result r = compare(dir, db, results, (const char *const[]){"1", NULL});
    cr_expect_eq(r.status, 1, "a mismatch makes the exit status 1:\n%s", r.out);
    cr_expect_not_null(strstr(r.out, "MISMATCH: q01 row 2 column 3 (sum_qty)"), "%s", r.out);
    run_free(&r);
    /* a query whose expected file is missing is a failure, not a silent pass */
    r = compare(dir, db, results, (const char *const[]){"6", NULL});
    cr_expect_eq(r.status, 1, "%s", r.out);
    cr_expect_not_null(strstr(r.out, "MISMATCH: cannot read"), "%s", r.out);
    run_free(&r);
    unlink(path);
    rmdir(results);
    tmpdir_remove(dir);
}

Test(tpch_expected, the_rule_on_single_values) {
    cr_expect(tpch_values_match("BUILDING", "BUILDING"));
    cr_expect(!tpch_values_match("BUILDING", "BUILDING "), "strings are compared as text");
    cr_expect(!tpch_values_match("1995-03-15", "1995-03-16"));
    cr_expect(!tpch_values_match("15", "16"), "integers are compared as text");
    cr_expect(tpch_values_match("13", "13.0000001"), "a fraction on one side compares as numbers");
    cr_expect(tpch_values_match("383794", "383794.00"));
    cr_expect(tpch_values_match("509700807.2164", "509700807.21640003"));
    cr_expect(tpch_values_match("0.0499867426753257", "0.04998674"));
    cr_expect(!tpch_values_match("0.05", "0.07"));
    cr_expect(tpch_values_match("123456789012.34", "123456789012.4"), "relative 1e-9 of a large sum");
    cr_expect(!tpch_values_match("123456789012.34", "123456789212.34"), "200 is more than 1e-9 of it");
    cr_expect(tpch_values_match(NULL, NULL));
    cr_expect(!tpch_values_match(NULL, "0"));
    cr_expect(!tpch_values_match("0.00", NULL));
    char buf[64];
    cr_expect_str_eq(tpch_normalize_value("2311.61142857143", buf, sizeof buf), "2311.61");
    cr_expect_str_eq(tpch_normalize_value("-0.001", buf, sizeof buf), "0.00");
    cr_expect_str_eq(tpch_normalize_value("15086", buf, sizeof buf), "15086.00");
    cr_expect_str_eq(tpch_normalize_value("0", buf, sizeof buf), "0.00");
    cr_expect_str_eq(tpch_normalize_value("Customer#000001421", buf, sizeof buf), "Customer#000001421");
    cr_expect_str_eq(tpch_normalize_value(NULL, buf, sizeof buf), "\\N");
}
