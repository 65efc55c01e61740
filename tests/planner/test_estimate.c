/*
** test_estimate.c -- cardinality estimates against the rows that came: EXPLAIN ANALYZE of
** filters, joins and GROUP BYs over tables with known distributions must estimate every operator
** within a factor of two of its actual rows once the tables are analyzed; and the statistics'
** stored form reads back as written and refuses bytes that are not it.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/api_db.h"
#include "../../planner/catalog/stats.h"
#include "strata.h"

/* collect appends each result row's first value and a newline to the buffer arg. */
static int collect(void *arg, int n, char **v, char **names) {
    (void)names;
    if (n > 0) {
        strncat(arg, v[0] ? v[0] : "NULL", 16383 - strlen(arg));
        strncat(arg, "\n", 16383 - strlen(arg));
    }
    return 0;
}

/* check_within_2x runs EXPLAIN ANALYZE of sql and asserts est within [rows / 2, 2 * rows] on
** every operator line (a slack of 2 rows for the smallest counts). */
static void check_within_2x(strata_db *db, const char *sql) {
    static char out[16384];
    char q[1024];
    out[0] = 0;
    snprintf(q, sizeof q, "EXPLAIN ANALYZE %s", sql);
    cr_assert_eq(strata_exec(db, q, collect, out), STRATA_OK, "%s: %s", sql, strata_errmsg(db));
    int lines = 0;
    for (const char *l = strstr(out, "(est="); l; l = strstr(l + 1, "(est=")) {
        double est;
        unsigned long long rows;
        cr_assert_eq(sscanf(l, "(est=%lf rows=%llu", &est, &rows), 2, "%s", out);
        cr_assert(est <= 2.0 * (double)rows + 2 && est >= (double)rows / 2 - 2, "%s\n%s", sql, out);
        lines++;
    }
    cr_assert(lines > 0, "%s", out);
}

Test(estimate, within_factor_two_after_analyze) {
    strata_db *db = open_mem();
    /* in the row store: a column-store scan applies the filter's conditions itself, so its rows
    ** would be the filter's, not the table's the estimate counts */
    EXEC_OK(db, "CREATE TABLE f(id INTEGER PRIMARY KEY, k INTEGER, g VARCHAR, d DATE, n INTEGER) WITH (storage = 'row');"
                "CREATE TABLE dim(k INTEGER PRIMARY KEY, name VARCHAR);"
                "INSERT INTO f SELECT i, i % 500, 'g' || (i % 20), DATE '2020-01-01' + (i % 1000),"
                "  CASE WHEN i % 5 = 0 THEN NULL ELSE i END FROM generate_series(1, 20000) AS s(i);"
                "INSERT INTO dim SELECT i, 'n' || i FROM generate_series(0, 499) AS s(i);"
                "ANALYZE");
    static const char *queries[] = {
        "SELECT * FROM f WHERE k = 7",
        "SELECT * FROM f WHERE k < 100",
        "SELECT * FROM f WHERE k BETWEEN 100 AND 199",
        "SELECT * FROM f WHERE d >= DATE '2020-03-01' AND d < DATE '2020-06-01'",
        "SELECT * FROM f WHERE n IS NULL",
        "SELECT * FROM f WHERE n IS NOT NULL AND g = 'g3'",
        "SELECT * FROM f WHERE g IN ('g1', 'g2') OR k = 3",
        "SELECT g, count(*) FROM f GROUP BY g",
        "SELECT f.id, dim.name FROM f JOIN dim ON f.k = dim.k WHERE f.g = 'g4'",
        "SELECT g, count(*) FROM f WHERE k < 10 GROUP BY g",
        "SELECT * FROM f WHERE id BETWEEN 100 AND 600",
    };
    for (size_t i = 0; i < sizeof queries / sizeof *queries; i++) check_within_2x(db, queries[i]);
    strata_close(db);
}

/* scan_counts runs EXPLAIN ANALYZE of sql and reads the line of scan (its start, e.g. "SCAN f
** (join filter on k)"): its estimate, its rows and the rows its join filters dropped. */
static void scan_counts(strata_db *db, const char *sql, const char *scan, double *est, unsigned long long *rows,
                        unsigned long long *dropped) {
    static char out[16384];
    char q[512];
    snprintf(q, sizeof q, "EXPLAIN ANALYZE %s", sql);
    out[0] = 0;
    cr_assert_eq(strata_exec(db, q, collect, out), STRATA_OK, "%s", strata_errmsg(db));
    const char *l = strstr(out, scan);
    cr_assert_not_null(l, "%s", out);
    cr_assert_eq(sscanf(strstr(l, "(est="), "(est=%lf rows=%llu, %llu more dropped by join filters", est, rows, dropped),
                 3, "%s", out);
}

/* A scan whose join filter drops rows says how many: its estimate counts them (they are read),
** its rows do not. Keys of a narrow range (dense, or sparse in a range of at most 2^23) filter
** through an exact bitmap: just the matching rows pass; others through a Bloom filter, which lets
** a few more by. */
Test(estimate, explain_analyze_counts_the_rows_join_filters_drop) {
    strata_db *db = open_mem();
    /* in the row store: the column store skips row groups outside the filter's key range unread */
    EXEC_OK(db, "CREATE TABLE f(id INTEGER PRIMARY KEY, k INTEGER) WITH (storage = 'row');"
                "CREATE TABLE few(k INTEGER);"
                "CREATE TABLE spread(k INTEGER);"
                "INSERT INTO f SELECT i, i % 500 FROM generate_series(1, 20000) AS s(i);"
                "INSERT INTO few SELECT i FROM generate_series(0, 9) AS s(i);"
                "INSERT INTO spread SELECT i * 100 FROM generate_series(0, 9) AS s(i);" /* 901 wide: 90 bits a key */
                "CREATE TABLE wide(k INTEGER);"
                "INSERT INTO wide SELECT i * 1000000 FROM generate_series(0, 9) AS s(i);" /* wider than 2^23 */
                "ANALYZE");
    double est;
    unsigned long long rows, dropped;
    scan_counts(db, "SELECT count(*) FROM f JOIN few ON f.k = few.k", "SCAN f (join filter on k)", &est, &rows, &dropped);
    cr_assert_eq(rows + dropped, 20000);
    cr_assert_eq(rows, 400, "the 400 matching rows pass, no other");
    cr_assert_eq(est, 20000);
    scan_counts(db, "SELECT count(*) FROM f JOIN spread ON f.k = spread.k", "SCAN f (join filter on k)", &est, &rows,
                &dropped);
    cr_assert_eq(rows + dropped, 20000);
    cr_assert_eq(rows, 200, "sparse keys of a small range: the 200 matching rows pass, no other");
    EXEC_OK(db, "UPDATE f SET k = k * 10000 WHERE k % 100 = 0");
    scan_counts(db, "SELECT count(*) FROM f JOIN wide ON f.k = wide.k", "SCAN f (join filter on k)", &est, &rows,
                &dropped);
    cr_assert_eq(rows + dropped, 20000);
    cr_assert(rows >= 200 && rows < 1000, "the 200 matching rows pass, and few others: %llu", rows);
    strata_close(db);
}

/* A scan under several joins tests each join filter in the column store in turn, each on the rows
** the ones before passed, before the other columns are decoded: the rows that pass are exactly the
** rows that match every key (the bitmaps are exact), with their other columns, as the same joins
** over a row-store copy (whose scan tests the filters on its chunks) give them; filters on one
** column, and on a string column (tested after decoding), likewise. */
Test(estimate, every_join_filter_of_a_scan_drops_rows_in_the_column_store) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE f(id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, s VARCHAR)"
                "  WITH (storage = 'column', row_group_size = 2048);"
                "CREATE TABLE r(id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, s VARCHAR) WITH (storage = 'row');"
                "CREATE TABLE da(k INTEGER); CREATE TABLE db(k INTEGER); CREATE TABLE ds(k VARCHAR);"
                "INSERT INTO f SELECT i, i % 100, i % 37, 'tag-' || (i % 11) FROM generate_series(1, 12000) AS s(i);"
                "INSERT INTO r SELECT * FROM f;"
                "INSERT INTO da SELECT i * 3 FROM generate_series(0, 9) AS s(i);"
                "INSERT INTO db SELECT i FROM generate_series(0, 4) AS s(i);"
                "INSERT INTO ds VALUES ('tag-1'), ('tag-2'), ('tag-3'), ('tag-5'), ('tag-8');"
                "ANALYZE");
    static const char *const joins[] = {
        "JOIN da ON t.a = da.k JOIN db ON t.b = db.k",
        "JOIN da ON t.a = da.k JOIN db ON t.a = db.k",
        "JOIN da ON t.a = da.k JOIN db ON t.b = db.k JOIN ds ON t.s = ds.k",
    };
    for (size_t c = 0; c < sizeof joins / sizeof *joins; c++) {
        static char got[16384], want[16384];
        char sql[512];
        got[0] = want[0] = 0;
        snprintf(sql, sizeof sql, "SELECT count(*) || ' ' || sum(t.id) || sum(t.a) || sum(t.b) || min(t.s) || max(t.s) FROM f t %s",
                 joins[c]);
        cr_assert_eq(strata_exec(db, sql, collect, got), STRATA_OK, "%s", strata_errmsg(db));
        sql[strstr(sql, "FROM f t") - sql + 5] = 'r';
        cr_assert_eq(strata_exec(db, sql, collect, want), STRATA_OK, "%s", strata_errmsg(db));
        cr_assert_str_eq(got, want, "%s", joins[c]);
        double est;
        unsigned long long rows, dropped;
        snprintf(sql, sizeof sql, "SELECT count(*) FROM f t %s", joins[c]);
        scan_counts(db, sql, "SCAN f (join filter on", &est, &rows, &dropped);
        cr_assert_eq(rows + dropped, 12000, "%s", joins[c]);
        cr_assert_eq(rows, strtoull(want, NULL, 10), "%s: only the matching rows pass", joins[c]);
    }
    strata_close(db);
}

/* The exact bitmap of a narrow key range, for every integer representation: the keys at both ends
** of the range pass, negative ones too, NULL keys and keys outside the range do not; in the row
** store and in column segments alike. */
Test(estimate, a_narrow_key_range_filters_exactly_in_every_integer_type) {
    static const char *const types[] = {"SMALLINT", "INTEGER", "BIGINT", "DATE", "BOOLEAN"};
    static const char *const key[] = {"i % 300 - 150", "i % 300 - 150", "i % 300 + 5000000000000",
                                      "DATE '2020-01-01' + (i % 300 - 150)", "i % 3 = 0"};
    static const char *const dim[] = {"(i * 7) % 61 - 150", "(i * 7) % 61 - 150", "(i * 7) % 61 + 5000000000000",
                                      "DATE '2020-01-01' + ((i * 7) % 61 - 150)", "true"};
    for (unsigned t = 0; t < sizeof types / sizeof *types; t++) {
        for (int col = 0; col < 2; col++) {
            strata_db *db = open_mem();
            char sql[1024];
            snprintf(sql, sizeof sql,
                     "CREATE TABLE f(id INTEGER PRIMARY KEY, k %s) WITH (storage = '%s', row_group_size = 2048);"
                     "CREATE TABLE d(k %s);"
                     "INSERT INTO f SELECT i, CASE WHEN i %% 17 = 0 THEN NULL ELSE %s END FROM generate_series(1, 12000) AS s(i);"
                     "INSERT INTO d SELECT %s FROM generate_series(0, 40) AS s(i);"
                     "INSERT INTO d VALUES (NULL);"
                     "ANALYZE",
                     types[t], col ? "column" : "row", types[t], key[t], dim[t]);
            EXEC_OK(db, sql);
            static char want[64];
            want[0] = 0;
            cr_assert_eq(strata_exec(db, "SELECT count(*) FROM f WHERE k IN (SELECT k FROM d)", collect, want), STRATA_OK,
                         "%s", strata_errmsg(db));
            double est;
            unsigned long long rows, dropped;
            scan_counts(db, "SELECT count(*) FROM f JOIN (SELECT DISTINCT k FROM d) d ON f.k = d.k",
                        "SCAN f (join filter on k)", &est, &rows, &dropped);
            cr_assert_eq(rows, strtoull(want, NULL, 10), "%s %s storage: %llu rows passed, %s match", types[t],
                         col ? "column" : "row", rows, want);
            cr_assert_gt(dropped, 0);
            strata_close(db);
        }
    }
}

Test(estimate, stored_form_round_trip) {
    table_stats *s = stats_new(2);
    cr_assert_not_null(s);
    s->rows = 12345;
    s->max_rowid = 99999;
    s->cols[0].nulls = 5;
    s->cols[0].has_range = s->cols[0].numeric = true;
    s->cols[0].lo = -3.5;
    s->cols[0].hi = 1e9;
    strcpy(s->cols[0].min, "-3.5");
    strcpy(s->cols[0].max, "1000000000");
    for (uint64_t v = 0; v < 777; v++) hll_add(&s->cols[0].sketch, v);
    s->cols[1].has_range = true;
    strcpy(s->cols[1].min, "apple");
    strcpy(s->cols[1].max, "pear");
    size_t n;
    uint8_t *bytes = stats_encode(s, &n);
    cr_assert_not_null(bytes);
    table_stats *back = stats_decode(bytes, n, 2);
    cr_assert_not_null(back);
    cr_assert_eq(back->rows, 12345);
    cr_assert_eq(back->max_rowid, 99999);
    cr_assert_eq(back->cols[0].nulls, 5);
    cr_assert(back->cols[0].numeric && back->cols[0].lo == -3.5 && back->cols[0].hi == 1e9);
    cr_assert_str_eq(back->cols[0].max, "1000000000");
    cr_assert_str_eq(back->cols[1].min, "apple");
    cr_assert(!back->cols[1].numeric);
    cr_assert_eq(memcmp(back->cols[0].sketch.reg, s->cols[0].sketch.reg, HLL_REGISTERS), 0);
    cr_assert(back->cols[0].distinct > 760 && back->cols[0].distinct < 795, "%f", back->cols[0].distinct);
    /* another column count, a cut or lengthened buffer, another format: not read */
    cr_assert_null(stats_decode(bytes, n, 3));
    cr_assert_null(stats_decode(bytes, n - 1, 2));
    uint8_t *longer = calloc(1, n + 1);
    memcpy(longer, bytes, n);
    cr_assert_null(stats_decode(longer, n + 1, 2));
    bytes[0] ^= 0x40;
    cr_assert_null(stats_decode(bytes, n, 2));
    free(longer);
    free(bytes);
    stats_free(back);
    stats_free(s);
}
