/*
** test_appender.c -- the appender of include/strata.h (strata_appender_create, strata_append_*,
** strata_appender_end_row, _flush, _destroy) as a program that loads rows with it relies on: every
** column type filled from int64, double, text, blob and NULL exactly as INSERT converts them;
** conversion errors and misuse that drop the row being appended and name the row and column;
** when rows become visible (flush, destroy, every 122,880 rows); constraints that fail a whole
** flush and no more; indexes that find appended rows; the column store's bulk path (full row
** groups straight into segments, a large tail as a row group of its own, a small one in the row
** store); transactions; durability on a file; and tables that change under an appender.
**
** Only strata.h is included: these tests see the library exactly as a user does.
*/
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/api_db.h"
#include "helpers/tmpdir.h"
#include "strata.h"

/* ---- helpers ------------------------------------------------------------------------------ */

#define ROW_GROUP 122880 /* the column store's row group; the appender inserts one per statement */

static char dir[256];
static char dbpath[300];

/* Each test runs in its own process (Criterion forks), so each gets its own directory. */
static void make_dir(void) {
    snprintf(dir, sizeof dir, "/tmp/strata-appender-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(dbpath, sizeof dbpath, "%s/test.db", dir);
}
static void remove_dir(void) { tmpdir_remove(dir); }

/* APP_OK asserts that an appender call succeeds, showing the handle's message otherwise. */
#define APP_OK(db, expr)                                                                                     \
    do {                                                                                                     \
        int rc_ = (expr);                                                                                    \
        cr_assert_eq(rc_, STRATA_OK, "%s -> %d: %s", #expr, rc_, strata_errmsg(db));                         \
    } while (0)

/* APP_FAILS asserts that an appender call returns code and that the message holds each of the
** NULL-terminated fragments. */
#define APP_FAILS(db, expr, code, ...)                                                                       \
    do {                                                                                                     \
        int rc_ = (expr);                                                                                    \
        cr_assert_eq(rc_, (code), "%s -> %d, expected %d (%s)", #expr, rc_, (code), strata_errmsg(db));      \
        cr_assert_eq(strata_errcode(db), (code), "%s: errcode %d", #expr, strata_errcode(db));               \
        const char *frags_[] = {__VA_ARGS__, NULL};                                                          \
        for (int f_ = 0; frags_[f_]; f_++)                                                                   \
            cr_assert(strstr(strata_errmsg(db), frags_[f_]), "%s: message \"%s\" lacks \"%s\"", #expr,       \
                      strata_errmsg(db), frags_[f_]);                                                        \
    } while (0)

/* query_rows renders every row of a query as "v1,v2;v1,v2" (NULL as "NULL") in a static buffer. */
static const char *query_rows(strata_db *db, const char *sql) {
    static char buf[8192];
    size_t k = 0;
    buf[0] = 0;
    strata_stmt *s = prepare(db, sql);
    int rc, nrows = 0;
    while ((rc = strata_step(s)) == STRATA_ROW) {
        if (nrows++) k += (size_t)snprintf(buf + k, sizeof buf - k, ";");
        for (int i = 0; i < strata_column_count(s); i++) {
            const char *t = strata_column_text(s, i);
            k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s", i ? "," : "", t ? t : "NULL");
            cr_assert_lt(k, sizeof buf - 1, "\"%s\": result too long", sql);
        }
    }
    cr_assert_eq(rc, STRATA_DONE, "\"%s\": step -> %d: %s", sql, rc, strata_errmsg(db));
    strata_finalize(s);
    return buf;
}

static strata_appender *appender(strata_db *db, const char *table) {
    strata_appender *a = NULL;
    int rc = strata_appender_create(db, table, &a);
    cr_assert_eq(rc, STRATA_OK, "appender_create(%s) -> %d: %s", table, rc, strata_errmsg(db));
    cr_assert_not_null(a);
    return a;
}

/* append_ints appends one row of n int64 values and ends it. */
static void append_ints(strata_db *db, strata_appender *a, int n, const int64_t *v) {
    for (int i = 0; i < n; i++)
        APP_OK(db, strata_append_int64(a, v[i]));
    APP_OK(db, strata_appender_end_row(a));
}
#define APPEND_ROW(db, a, ...)                                                                               \
    append_ints((db), (a), (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)),                        \
                (int64_t[]){__VA_ARGS__})

static void expect_integrity_ok(strata_db *db) {
    cr_assert_str_eq(query_rows(db, "PRAGMA integrity_check"), "ok");
}

/* ---- every column type, converted as INSERT converts ------------------------------------- */

/* A value as the program has it, appended with the matching strata_append_* call or bound with the
** matching strata_bind_* call. */
enum { V_NULL, V_INT, V_DBL, V_TEXT, V_BLOB };
typedef struct {
    int kind;
    int64_t i;
    double d;
    const char *s; /* text or blob bytes (NULL pointer: the NULL of append_text/_blob) */
    int len;       /* -1 for NUL-terminated text */
} value;

#define NCOLS 13
static const char *const ALL_TYPES_TABLE =
    "(id INTEGER, b BOOLEAN, s SMALLINT, i INTEGER, g BIGINT, f DOUBLE, d DECIMAL(15,2), v VARCHAR, "
    "v3 VARCHAR(3), bl BLOB, dt DATE, ts TIMESTAMP, iv INTERVAL)";

static int append_value(strata_appender *a, const value *v) {
    switch (v->kind) {
    case V_INT: return strata_append_int64(a, v->i);
    case V_DBL: return strata_append_double(a, v->d);
    case V_TEXT: return strata_append_text(a, v->s, v->len);
    case V_BLOB: return strata_append_blob(a, v->s, v->len);
    default: return strata_append_null(a);
    }
}

static int bind_value(strata_stmt *s, int i, const value *v) {
    switch (v->kind) {
    case V_INT: return strata_bind_int64(s, i, v->i);
    case V_DBL: return strata_bind_double(s, i, v->d);
    case V_TEXT: return v->s ? strata_bind_text(s, i, v->s, v->len) : strata_bind_null(s, i);
    case V_BLOB: return v->s ? strata_bind_blob(s, i, v->s, v->len) : strata_bind_null(s, i);
    default: return strata_bind_null(s, i);
    }
}

/* The rows read best as a table. */
/* clang-format off */
#define I(x) {.kind = V_INT, .i = (x)}
#define D(x) {.kind = V_DBL, .d = (x)}
#define T(x) {.kind = V_TEXT, .s = (x), .len = -1}
#define BL(x, n) {.kind = V_BLOB, .s = (x), .len = (n)}
#define NUL {.kind = V_NULL}

static const value ROWS[][NCOLS] = {
    /* each column from the kind of value that is natural for it */
    {I(1), I(1), I(-32768), I(2147483647), I(INT64_MIN), D(0.1), T("12.345"), T("h\xc3\xa9llo w\xc3\xb6rld"),
     T("abc"), BL("\x00\x01\xff", 3), T("2020-01-31"), T("2020-01-31 12:34:56.5"),
     T("1 year 2 mons 3 days 04:05:06")},
    /* each column from another kind, as an assignment converts it */
    {D(2.0), T("false"), D(2.5), T("17"), D(-3.5), I(3), I(42), I(123), D(1.5), T("\\x0a0b"), T("1999-12-31"),
     T("2020-02-29"), T("-1 days")},
    /* NULL in every way the API has */
    {I(3), NUL, NUL, {.kind = V_TEXT, .s = NULL, .len = -1}, {.kind = V_BLOB, .s = NULL, .len = 0}, NUL, NUL,
     {.kind = V_TEXT, .s = NULL, .len = 5}, NUL, NUL, NUL, NUL, NUL},
    /* text with an explicit length, an empty string, an empty blob, extremes */
    {I(4), I(0), T("32767"), D(-2147483648.0), I(INT64_MAX), T("-1e300"), D(-0.5),
     {.kind = V_TEXT, .s = "abcdef", .len = 2}, T(""), BL("", 0), T("0001-01-01"), T("1970-01-01 00:00:00"),
     T("00:00:00.000001")},
};
#define NROWS ((int)(sizeof ROWS / sizeof ROWS[0]))

/* The text forms the rows above must read back as. */
static const char *const EXPECTED[NROWS] = {
    "1,true,-32768,2147483647,-9223372036854775808,0.1,12.35,h\xc3\xa9llo w\xc3\xb6rld,abc,\\x0001ff,"
        "2020-01-31,2020-01-31 12:34:56.5,1 year 2 mons 3 days 04:05:06",
    "2,false,2,17,-4,3,42.00,123,1.5,\\x0a0b,1999-12-31,2020-02-29 00:00:00,-1 days",
    "3,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL",
    "4,false,32767,-2147483648,9223372036854775807,-1e+300,-0.50,ab,,\\x,0001-01-01,1970-01-01 00:00:00,"
        "00:00:00.000001",
};
/* clang-format on */

TestSuite(appender, .init = make_dir, .fini = remove_dir);

Test(appender, every_type_reads_back_exactly) {
    strata_db *db = open_mem();
    char sql[512];
    snprintf(sql, sizeof sql, "CREATE TABLE t%s", ALL_TYPES_TABLE);
    EXEC_OK(db, sql);
    strata_appender *a = appender(db, "t");
    for (int r = 0; r < NROWS; r++) {
        for (int c = 0; c < NCOLS; c++) {
            int rc = append_value(a, &ROWS[r][c]);
            cr_assert_eq(rc, STRATA_OK, "row %d column %d -> %d: %s", r + 1, c, rc, strata_errmsg(db));
        }
        APP_OK(db, strata_appender_end_row(a));
    }
    APP_OK(db, strata_appender_destroy(a));
    strata_stmt *s = prepare(db, "SELECT * FROM t ORDER BY id");
    for (int r = 0; r < NROWS; r++) {
        cr_assert_eq(strata_step(s), STRATA_ROW, "row %d missing", r + 1);
        char got[512];
        size_t k = 0;
        for (int c = 0; c < NCOLS; c++) {
            const char *t = strata_column_text(s, c);
            k += (size_t)snprintf(got + k, sizeof got - k, "%s%s", c ? "," : "", t ? t : "NULL");
        }
        cr_assert_str_eq(got, EXPECTED[r], "row %d", r + 1);
    }
    cr_assert_eq(strata_step(s), STRATA_DONE);
    strata_finalize(s);
    /* the bytes of the blob and the types the columns report */
    s = prepare(db, "SELECT bl, f, dt FROM t WHERE id = 1");
    cr_assert_eq(strata_step(s), STRATA_ROW);
    cr_assert_eq(strata_column_bytes(s, 0), 3);
    cr_assert(memcmp(strata_column_blob(s, 0), "\x00\x01\xff", 3) == 0);
    cr_assert_eq(strata_column_type(s, 1), STRATA_TYPE_DOUBLE);
    cr_assert(strata_column_double(s, 1) == 0.1);
    cr_assert_eq(strata_column_type(s, 2), STRATA_TYPE_DATE);
    cr_assert_eq(strata_column_int64(s, 2), 18292); /* 2020-01-31 in days since 1970-01-01 */
    strata_finalize(s);
    strata_close(db);
}

Test(appender, converts_as_insert_with_bound_values_does) {
    strata_db *db = open_mem();
    char sql[512];
    snprintf(sql, sizeof sql, "CREATE TABLE app%s; CREATE TABLE ins%s", ALL_TYPES_TABLE, ALL_TYPES_TABLE);
    EXEC_OK(db, sql);
    strata_appender *a = appender(db, "app");
    strata_stmt *ins = prepare(db, "INSERT INTO ins VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (int r = 0; r < NROWS; r++) {
        for (int c = 0; c < NCOLS; c++) {
            APP_OK(db, append_value(a, &ROWS[r][c]));
            cr_assert_eq(bind_value(ins, c + 1, &ROWS[r][c]), STRATA_OK);
        }
        APP_OK(db, strata_appender_end_row(a));
        int rc = strata_step(ins);
        cr_assert_eq(rc, STRATA_DONE, "INSERT of row %d -> %d: %s", r + 1, rc, strata_errmsg(db));
        strata_reset(ins);
    }
    strata_finalize(ins);
    APP_OK(db, strata_appender_destroy(a));
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM app"), NROWS);
    /* the same rows, value for value (IS NOT DISTINCT FROM: NULLs match) */
    cr_assert_eq(query_int64(db,
                             "SELECT count(*) FROM app JOIN ins ON app.id = ins.id AND "
                             "app.b IS NOT DISTINCT FROM ins.b AND app.s IS NOT DISTINCT FROM ins.s AND "
                             "app.i IS NOT DISTINCT FROM ins.i AND app.g IS NOT DISTINCT FROM ins.g AND "
                             "app.f IS NOT DISTINCT FROM ins.f AND app.d IS NOT DISTINCT FROM ins.d AND "
                             "app.v IS NOT DISTINCT FROM ins.v AND app.v3 IS NOT DISTINCT FROM ins.v3 AND "
                             "app.bl IS NOT DISTINCT FROM ins.bl AND app.dt IS NOT DISTINCT FROM ins.dt AND "
                             "app.ts IS NOT DISTINCT FROM ins.ts AND app.iv IS NOT DISTINCT FROM ins.iv"),
                 NROWS);
    strata_close(db);
}

Test(appender, text_and_blob_bytes_are_copied) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR, b BLOB)");
    strata_appender *a = appender(db, "t");
    char buf[64];
    /* long enough not to be stored inline; the buffer is overwritten before the row is ended */
    for (int r = 0; r < 3000; r++) {
        APP_OK(db, strata_append_int64(a, r));
        snprintf(buf, sizeof buf, "value number %05d of the appender test", r);
        APP_OK(db, strata_append_text(a, buf, -1));
        memset(buf, 'X', sizeof buf - 1);
        APP_OK(db, strata_append_blob(a, buf, 20 + r % 10));
        memset(buf, 'Y', sizeof buf - 1);
        APP_OK(db, strata_appender_end_row(a));
    }
    APP_OK(db, strata_appender_destroy(a));
    cr_assert_str_eq(query_rows(db, "SELECT v, length(b) FROM t WHERE k = 2047"),
                     "value number 02047 of the appender test,27");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t WHERE v LIKE 'value number % of the appender test'"),
                 3000);
    cr_assert_eq(query_int64(db, "SELECT count(DISTINCT v) FROM t"), 3000);
    cr_assert_eq(query_int64(db, "SELECT sum(length(b)) FROM t"),
                 300 * (20 + 21 + 22 + 23 + 24 + 25 + 26 + 27 + 28 + 29));
    strata_close(db);
}

Test(appender, quoted_table_name) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE \"we\"\"ird tab\"(a INTEGER)");
    strata_appender *a = appender(db, "we\"ird tab");
    APPEND_ROW(db, a, 7);
    APP_OK(db, strata_appender_destroy(a));
    cr_assert_eq(query_int64(db, "SELECT a FROM \"we\"\"ird tab\""), 7);
    strata_close(db);
}

/* ---- errors: conversion, misuse, missing tables ------------------------------------------ */

Test(appender, conversion_error_names_row_and_column_and_drops_the_row) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE c(id INTEGER, i INTEGER, s SMALLINT, dt DATE, v VARCHAR(3))");
    strata_appender *a = appender(db, "c");
    APP_OK(db, strata_append_int64(a, 1));
    APP_OK(db, strata_append_int64(a, 1));
    APP_OK(db, strata_append_int64(a, 1));
    APP_OK(db, strata_append_text(a, "2020-01-01", -1));
    APP_OK(db, strata_append_text(a, "a", -1));
    APP_OK(db, strata_appender_end_row(a));

    /* row 2: text that is no integer (rows are numbered as begun, the dropped ones included) */
    APP_OK(db, strata_append_int64(a, 2));
    APP_FAILS(db, strata_append_text(a, "abc", -1), STRATA_ERROR, "row 2", "\"i\"",
              "invalid input syntax for type integer: \"abc\"");
    /* the next values start a new row */
    APP_OK(db, strata_append_int64(a, 3));
    APP_OK(db, strata_append_int64(a, 3));
    APP_OK(db, strata_append_int64(a, 3));
    APP_OK(db, strata_append_text(a, "2020-01-03", -1));
    APP_OK(db, strata_append_text(a, "c", -1));
    APP_OK(db, strata_appender_end_row(a));

    /* an int64 out of SMALLINT's range */
    APP_OK(db, strata_append_int64(a, 4));
    APP_OK(db, strata_append_int64(a, 4));
    APP_FAILS(db, strata_append_int64(a, 40000), STRATA_ERROR, "row 4", "\"s\"", "smallint out of range");
    /* a date that does not exist */
    APP_OK(db, strata_append_int64(a, 5));
    APP_OK(db, strata_append_int64(a, 5));
    APP_OK(db, strata_append_int64(a, 5));
    APP_FAILS(db, strata_append_text(a, "2020-13-45", -1), STRATA_ERROR, "row 5", "\"dt\"", "2020-13-45");
    /* an int64 where a DATE is expected (as for a bound parameter: no implicit cast) */
    APP_OK(db, strata_append_int64(a, 6));
    APP_OK(db, strata_append_int64(a, 6));
    APP_OK(db, strata_append_int64(a, 6));
    APP_FAILS(db, strata_append_int64(a, 18000), STRATA_ERROR, "row 6", "\"dt\"", "cannot cast type bigint to date");
    /* a string longer than VARCHAR(3): an error, not a truncation */
    APP_OK(db, strata_append_int64(a, 7));
    APP_OK(db, strata_append_int64(a, 7));
    APP_OK(db, strata_append_int64(a, 7));
    APP_OK(db, strata_append_text(a, "2020-01-07", -1));
    APP_FAILS(db, strata_append_text(a, "abcd", -1), STRATA_ERROR, "row 7", "\"v\"",
              "value too long for type character varying(3)");
    /* a double that is no integer's: NaN and out of range */
    APP_FAILS(db, strata_append_double(a, 1e300), STRATA_ERROR, "row 8", "\"id\"", "integer out of range");
    /* the first column of a row */
    APP_FAILS(db, strata_append_text(a, "x", -1), STRATA_ERROR, "row 9", "\"id\"");
    APP_OK(db, strata_append_int64(a, 8));
    APP_OK(db, strata_append_text(a, "8", -1));
    APP_OK(db, strata_append_double(a, 8.0));
    APP_OK(db, strata_append_text(a, "2020-01-08", -1));
    APP_OK(db, strata_append_text(a, "xyz", -1));
    APP_OK(db, strata_appender_end_row(a));
    APP_OK(db, strata_appender_destroy(a));

    cr_assert_str_eq(query_rows(db, "SELECT * FROM c ORDER BY id"),
                     "1,1,1,2020-01-01,a;3,3,3,2020-01-03,c;8,8,8,2020-01-08,xyz");
    strata_close(db);
}

Test(appender, too_many_values_is_misuse_and_drops_the_row) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(a INTEGER, b INTEGER)");
    strata_appender *a = appender(db, "t");
    APP_OK(db, strata_append_int64(a, 1));
    APP_OK(db, strata_append_int64(a, 2));
    APP_FAILS(db, strata_append_int64(a, 3), STRATA_MISUSE, "row 1");
    /* the row (1, 2, 3) is dropped: the next values start a new row */
    APP_OK(db, strata_append_int64(a, 10));
    APP_OK(db, strata_append_int64(a, 20));
    APP_OK(db, strata_appender_end_row(a));
    APP_OK(db, strata_appender_destroy(a));
    cr_assert_str_eq(query_rows(db, "SELECT a, b FROM t"), "10,20");
    strata_close(db);
}

Test(appender, too_many_values_then_end_row_inserts_nothing) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(a INTEGER, b INTEGER)");
    strata_appender *a = appender(db, "t");
    APP_OK(db, strata_append_int64(a, 1));
    APP_OK(db, strata_append_int64(a, 2));
    APP_FAILS(db, strata_append_int64(a, 3), STRATA_MISUSE, "row 1");
    /* the row was dropped: ending it now ends a second row, of no values */
    APP_FAILS(db, strata_appender_end_row(a), STRATA_MISUSE, "row 2", "0 of the 2 columns");
    APP_OK(db, strata_appender_destroy(a));
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 0);
    strata_close(db);
}

Test(appender, end_row_with_too_few_values_is_misuse_and_drops_the_row) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(a INTEGER, b INTEGER)");
    strata_appender *a = appender(db, "t");
    APPEND_ROW(db, a, 1, 1);
    APP_OK(db, strata_append_int64(a, 2));
    APP_FAILS(db, strata_appender_end_row(a), STRATA_MISUSE, "row 2", "1 of the 2 columns");
    /* no values at all: a third row (messages count the rows begun, dropped ones included) */
    APP_FAILS(db, strata_appender_end_row(a), STRATA_MISUSE, "row 3", "0 of the 2 columns");
    APPEND_ROW(db, a, 3, 3);
    APP_OK(db, strata_appender_destroy(a));
    cr_assert_str_eq(query_rows(db, "SELECT a, b FROM t ORDER BY a"), "1,1;3,3");
    strata_close(db);
}

Test(appender, missing_table_null_arguments_and_destroy_null) {
    strata_db *db = open_mem();
    strata_appender *a = (strata_appender *)&a; /* not NULL: create must set it */
    APP_FAILS(db, strata_appender_create(db, "nope", &a), STRATA_ERROR, "relation \"nope\" does not exist");
    cr_assert_null(a);
    cr_assert_eq(strata_appender_destroy(NULL), STRATA_OK);
    cr_assert_eq(strata_appender_create(db, "nope", NULL), STRATA_MISUSE);
    cr_assert_eq(strata_appender_create(db, NULL, &a), STRATA_MISUSE);
    cr_assert_eq(strata_appender_create(NULL, "t", &a), STRATA_MISUSE);
    cr_assert_eq(strata_append_int64(NULL, 1), STRATA_MISUSE);
    cr_assert_eq(strata_append_double(NULL, 1), STRATA_MISUSE);
    cr_assert_eq(strata_append_null(NULL), STRATA_MISUSE);
    cr_assert_eq(strata_append_text(NULL, "x", -1), STRATA_MISUSE);
    cr_assert_eq(strata_append_blob(NULL, "x", 1), STRATA_MISUSE);
    cr_assert_eq(strata_appender_end_row(NULL), STRATA_MISUSE);
    cr_assert_eq(strata_appender_flush(NULL), STRATA_MISUSE);

    EXEC_OK(db, "CREATE TABLE t(b BLOB)");
    a = appender(db, "t");
    APP_FAILS(db, strata_append_blob(a, "x", -1), STRATA_MISUSE, "negative length");
    APP_OK(db, strata_append_blob(a, "x", 1));
    APP_OK(db, strata_appender_end_row(a));
    APP_OK(db, strata_appender_destroy(a));
    cr_assert_str_eq(query_rows(db, "SELECT b FROM t"), "\\x78");
    strata_close(db);
}

/* ---- when rows become visible ------------------------------------------------------------ */

Test(appender, rows_are_visible_after_flush_and_destroy) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR)");
    strata_appender *a = appender(db, "t");
    for (int k = 1; k <= 10; k++) {
        APP_OK(db, strata_append_int64(a, k));
        APP_OK(db, strata_append_text(a, "x", -1));
        APP_OK(db, strata_appender_end_row(a));
    }
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 0, "rows visible before the flush");
    APP_OK(db, strata_appender_flush(a));
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 10);
    cr_assert_eq(query_int64(db, "SELECT sum(k) FROM t"), 55);
    APP_OK(db, strata_appender_flush(a)); /* nothing to insert */
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 10);
    for (int k = 11; k <= 15; k++) {
        APP_OK(db, strata_append_int64(a, k));
        APP_OK(db, strata_append_null(a));
        APP_OK(db, strata_appender_end_row(a));
    }
    /* a row not ended is dropped by destroy */
    APP_OK(db, strata_append_int64(a, 99));
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 10);
    APP_OK(db, strata_appender_destroy(a));
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 15);
    cr_assert_eq(query_int64(db, "SELECT sum(k) FROM t WHERE v IS NULL"), 11 + 12 + 13 + 14 + 15);
    strata_close(db);
}

Test(appender, every_row_group_of_rows_is_inserted_without_a_flush) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k BIGINT) WITH (storage = 'row')");
    strata_appender *a = appender(db, "t");
    for (int64_t k = 1; k < ROW_GROUP; k++)
        APPEND_ROW(db, a, k);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 0);
    APPEND_ROW(db, a, ROW_GROUP); /* the 122,880th row: its end_row inserts them all */
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), ROW_GROUP);
    APPEND_ROW(db, a, ROW_GROUP + 1);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), ROW_GROUP);
    APP_OK(db, strata_appender_destroy(a));
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), ROW_GROUP + 1);
    cr_assert_eq(query_int64(db, "SELECT sum(k) FROM t"), (int64_t)(ROW_GROUP + 1) * (ROW_GROUP + 2) / 2);
    strata_close(db);
}

/* ---- constraints ------------------------------------------------------------------------- */

Test(appender, not_null_violation_fails_that_flush_only) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(a INTEGER NOT NULL, b INTEGER)");
    strata_appender *a = appender(db, "t");
    APPEND_ROW(db, a, 1, 1);
    APPEND_ROW(db, a, 2, 2);
    APP_OK(db, strata_appender_flush(a));
    APPEND_ROW(db, a, 3, 3);
    APP_OK(db, strata_append_null(a)); /* accepted here: NOT NULL is checked by the insert */
    APP_OK(db, strata_append_int64(a, 4));
    APP_OK(db, strata_appender_end_row(a));
    APPEND_ROW(db, a, 5, 5);
    APP_FAILS(db, strata_appender_flush(a), STRATA_CONSTRAINT, "null value in column \"a\"", "not-null");
    cr_assert_str_eq(query_rows(db, "SELECT a FROM t ORDER BY a"), "1;2");
    /* the failed flush's rows are gone; the appender goes on */
    APPEND_ROW(db, a, 6, 6);
    APP_OK(db, strata_appender_destroy(a));
    cr_assert_str_eq(query_rows(db, "SELECT a FROM t ORDER BY a"), "1;2;6");
    strata_close(db);
}

Test(appender, unique_violation_fails_that_flush_and_destroy_reports_it) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, u INTEGER UNIQUE)");
    strata_appender *a = appender(db, "t");
    for (int k = 1; k <= 100; k++)
        APPEND_ROW(db, a, k, 1000 + k);
    APP_OK(db, strata_appender_flush(a));
    /* a key of an earlier flush */
    for (int k = 101; k <= 200; k++)
        APPEND_ROW(db, a, k, 1000 + k);
    APPEND_ROW(db, a, 50, 5000);
    APP_FAILS(db, strata_appender_flush(a), STRATA_CONSTRAINT, "duplicate key");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 100);
    /* a UNIQUE value twice within one flush, reported by destroy */
    for (int k = 201; k <= 300; k++)
        APPEND_ROW(db, a, k, 1000 + k);
    APPEND_ROW(db, a, 301, 1250);
    APP_FAILS(db, strata_appender_destroy(a), STRATA_CONSTRAINT, "duplicate key");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 100);
    cr_assert_eq(query_int64(db, "SELECT max(k) FROM t"), 100);
    strata_close(db);
}

Test(appender, constraint_error_at_the_row_group_insert_is_returned_by_end_row) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k BIGINT UNIQUE)");
    strata_appender *a = appender(db, "t");
    for (int64_t k = 1; k < ROW_GROUP; k++)
        APPEND_ROW(db, a, k);
    APP_OK(db, strata_append_int64(a, 77));
    APP_FAILS(db, strata_appender_end_row(a), STRATA_CONSTRAINT, "duplicate key");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 0);
    APPEND_ROW(db, a, 5);
    APPEND_ROW(db, a, 6);
    APP_OK(db, strata_appender_destroy(a));
    cr_assert_str_eq(query_rows(db, "SELECT k FROM t ORDER BY k"), "5;6");
    strata_close(db);
}

/* ---- indexes ----------------------------------------------------------------------------- */

/* expect_index_finds checks, through the index the plan uses, that name = 'n<k>' finds id k. */
static void expect_index_finds(strata_db *db, int n, int step) {
    cr_assert(
        strstr(query_rows(db, "EXPLAIN SELECT id FROM t WHERE name = 'n1'"), "INDEX_SCAN t USING t_name"),
        "the lookup does not use the index: %s",
        query_rows(db, "EXPLAIN SELECT id FROM t WHERE name = 'n1'"));
    cr_assert(strstr(query_rows(db, "EXPLAIN SELECT name FROM t WHERE id = 1"), "INDEX_SCAN t USING t_id"));
    strata_stmt *by_name = prepare(db, "SELECT id FROM t WHERE name = ?");
    strata_stmt *by_id = prepare(db, "SELECT name FROM t WHERE id = ?");
    char key[32];
    for (int k = 0; k < n; k += step) {
        snprintf(key, sizeof key, "n%d", k);
        strata_bind_text(by_name, 1, key, -1);
        cr_assert_eq(strata_step(by_name), STRATA_ROW, "name %s not found", key);
        cr_assert_eq(strata_column_int64(by_name, 0), k);
        cr_assert_eq(strata_step(by_name), STRATA_DONE, "name %s found twice", key);
        strata_reset(by_name);
        strata_bind_int64(by_id, 1, k);
        cr_assert_eq(strata_step(by_id), STRATA_ROW, "id %d not found", k);
        cr_assert_str_eq(strata_column_text(by_id, 0), key);
        cr_assert_eq(strata_step(by_id), STRATA_DONE);
        strata_reset(by_id);
    }
    strata_bind_text(by_name, 1, "absent", -1);
    cr_assert_eq(strata_step(by_name), STRATA_DONE);
    strata_finalize(by_name);
    strata_finalize(by_id);
}

static void append_named_rows(strata_db *db, int from, int to) {
    strata_appender *a = appender(db, "t");
    char name[32];
    for (int k = from; k < to; k++) {
        APP_OK(db, strata_append_int64(a, k));
        snprintf(name, sizeof name, "n%d", k);
        APP_OK(db, strata_append_text(a, name, -1));
        APP_OK(db, strata_appender_end_row(a));
    }
    APP_OK(db, strata_appender_destroy(a));
}

Test(appender, indexes_find_appended_rows_in_the_row_store) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER, name VARCHAR) WITH (storage = 'row');"
                "CREATE INDEX t_name ON t(name); CREATE UNIQUE INDEX t_id ON t(id)");
    append_named_rows(db, 0, 5000);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 5000);
    expect_index_finds(db, 5000, 7);
    strata_close(db);
}

Test(appender, indexes_find_appended_rows_in_bulk_written_row_groups) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER, name VARCHAR) WITH (storage = 'auto', row_group_size = 2048);"
                "CREATE INDEX t_name ON t(name); CREATE UNIQUE INDEX t_id ON t(id)");
    append_named_rows(db, 0, 10000);
    /* 4 row groups of 2048 straight into segments, 1808 rows in the row store */
    cr_assert_str_eq(
        query_rows(db, "SELECT row_group, rows FROM pragma_storage_info('t') "
                       "WHERE \"column\" = 'id' OR row_group IS NULL ORDER BY row_group NULLS FIRST"),
        "NULL,1808;0,2048;1,2048;2,2048;3,2048");
    expect_index_finds(db, 10000, 3);
    /* a duplicate of a row in a segment is still refused through the index */
    strata_appender *a = appender(db, "t");
    APP_OK(db, strata_append_int64(a, 100));
    APP_OK(db, strata_append_text(a, "dup", -1));
    APP_OK(db, strata_appender_end_row(a));
    APP_FAILS(db, strata_appender_destroy(a), STRATA_CONSTRAINT, "duplicate key");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 10000);
    strata_close(db);
}

/* ---- the bulk path ----------------------------------------------------------------------- */

/* load_and_check appends n rows (a: a permutation of -1000 .. n - 1001, b = a / 2, c = 'k<i % 1000>'
** or NULL for every tenth row), checks the aggregates against the values computed here and
** returns the storage layout of column a as query_rows renders it. */
static const char *load_and_check(strata_db *db, const char *storage, int64_t n) {
    char sql[256];
    snprintf(sql, sizeof sql, "CREATE TABLE t(a BIGINT, b DOUBLE, c VARCHAR) WITH (storage = '%s')", storage);
    EXEC_OK(db, sql);
    strata_appender *a = appender(db, "t");
    int64_t sum_a = 0, min_a = INT64_MAX, max_a = INT64_MIN;
    double sum_b = 0;
    int64_t count_c = 0;
    char c[16];
    for (int64_t i = 0; i < n; i++) {
        int64_t v = (i * 7919) % n - 1000; /* n is no multiple of 7919 */
        APP_OK(db, strata_append_int64(a, v));
        APP_OK(db, strata_append_double(a, (double)v / 2));
        if (i % 10 == 0) {
            APP_OK(db, strata_append_null(a));
        } else {
            snprintf(c, sizeof c, "k%d", (int)(i % 1000));
            APP_OK(db, strata_append_text(a, c, -1));
            count_c++;
        }
        APP_OK(db, strata_appender_end_row(a));
        sum_a += v;
        sum_b += (double)v / 2;
        if (v < min_a) min_a = v;
        if (v > max_a) max_a = v;
    }
    APP_OK(db, strata_appender_destroy(a));
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), n);
    cr_assert_eq(query_int64(db, "SELECT sum(a) FROM t"), sum_a);
    cr_assert_eq(query_int64(db, "SELECT min(a) FROM t"), min_a);
    cr_assert_eq(query_int64(db, "SELECT max(a) FROM t"), max_a);
    cr_assert_eq(query_int64(db, "SELECT count(DISTINCT a) FROM t"), n);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t WHERE b * 2 = a"), n);
    strata_stmt *s = prepare(db, "SELECT sum(b) FROM t");
    cr_assert_eq(strata_step(s), STRATA_ROW);
    cr_assert(strata_column_double(s, 0) == sum_b, "sum(b) %.17g, expected %.17g", strata_column_double(s, 0),
              sum_b);
    strata_finalize(s);
    cr_assert_eq(query_int64(db, "SELECT count(c) FROM t"), count_c);
    cr_assert_eq(query_int64(db, "SELECT count(DISTINCT c) FROM t"), 900);
    /* single rows from the first row group, the second, and the tail */
    int64_t probes[] = {0, ROW_GROUP - 1, ROW_GROUP, ROW_GROUP + 5, 2 * ROW_GROUP + 5, n - 1};
    for (size_t p = 0; p < sizeof probes / sizeof probes[0]; p++) {
        int64_t i = probes[p], v = (i * 7919) % n - 1000;
        if (i >= n) continue;
        char q[128], want[64];
        snprintf(q, sizeof q, "SELECT CAST(b * 2 AS BIGINT), c FROM t WHERE a = %lld", (long long)v);
        if (i % 10 == 0)
            snprintf(want, sizeof want, "%lld,NULL", (long long)v);
        else
            snprintf(want, sizeof want, "%lld,k%d", (long long)v, (int)(i % 1000));
        const char *got = query_rows(db, q);
        cr_assert_str_eq(got, want, "row %lld: \"%s\", expected \"%s\"", (long long)i, got, want);
    }
    return query_rows(db, "SELECT row_group, rows FROM pragma_storage_info('t') "
                          "WHERE \"column\" = 'a' OR row_group IS NULL ORDER BY row_group NULLS FIRST");
}

/* A bulk INSERT's tail (here the appender's last flush) makes a row group of its own when it holds
** at least an eighth of a full one and 8192 rows (planner/exec/op_dml.c, bulk_finish), else it goes to the
** row store; for storage 'auto' and 'column' alike. */
Test(appender, bulk_path_auto_writes_row_groups_to_segments) {
    strata_db *db = open_mem();
    /* 2 full row groups, and the tail of 54,240 rows (at least an eighth of a row group) */
    cr_assert_str_eq(load_and_check(db, "auto", 300000), "NULL,0;0,122880;1,122880;2,54240");
    strata_close(db);
}

Test(appender, bulk_path_auto_short_tail_goes_to_the_row_store) {
    strata_db *db = open_mem();
    cr_assert_str_eq(load_and_check(db, "auto", ROW_GROUP + 12000), "NULL,12000;0,122880");
    strata_close(db);
}

Test(appender, bulk_path_column_writes_row_groups_to_segments) {
    strata_db *db = open_mem();
    /* storage 'column': the tail of 54,240 rows (at least an eighth of a row group) is one too */
    cr_assert_str_eq(load_and_check(db, "column", 300000), "NULL,0;0,122880;1,122880;2,54240");
    strata_close(db);
}

Test(appender, bulk_path_short_tail_goes_to_the_row_store) {
    strata_db *db = open_mem();
    /* storage 'column', a tail of 12,000 rows: less than an eighth of a row group */
    cr_assert_str_eq(load_and_check(db, "column", ROW_GROUP + 12000), "NULL,12000;0,122880");
    strata_close(db);
}

Test(appender, storage_row_keeps_every_row_in_the_row_store) {
    strata_db *db = open_mem();
    cr_assert_str_eq(load_and_check(db, "row", 300000), "NULL,300000");
    strata_close(db);
}

/* ---- transactions ------------------------------------------------------------------------ */

Test(appender, rollback_removes_flushed_rows) {
    strata_db *db = open_file(dbpath);
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR) WITH (storage = 'auto', row_group_size = 2048)");
    EXEC_OK(db, "INSERT INTO t VALUES (-1, 'before')");
    EXEC_OK(db, "BEGIN");
    strata_appender *a = appender(db, "t");
    for (int k = 0; k < 100; k++) {
        APP_OK(db, strata_append_int64(a, k));
        APP_OK(db, strata_append_text(a, "in txn", -1));
        APP_OK(db, strata_appender_end_row(a));
    }
    APP_OK(db, strata_appender_flush(a));
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 101);
    /* enough for the bulk path: two row groups written inside the transaction */
    for (int k = 100; k < 5000; k++) {
        APP_OK(db, strata_append_int64(a, k));
        APP_OK(db, strata_append_text(a, "in txn", -1));
        APP_OK(db, strata_appender_end_row(a));
    }
    APP_OK(db, strata_appender_destroy(a));
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 5001);
    cr_assert_gt(query_int64(db, "SELECT count(*) FROM pragma_storage_info('t') WHERE row_group IS NOT NULL"),
                 0);
    EXEC_OK(db, "ROLLBACK");
    cr_assert_str_eq(query_rows(db, "SELECT k, v FROM t"), "-1,before");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM pragma_storage_info('t') WHERE row_group IS NOT NULL"),
                 0);
    expect_integrity_ok(db);
    strata_close(db);
    db = open_file(dbpath);
    cr_assert_str_eq(query_rows(db, "SELECT k, v FROM t"), "-1,before");
    expect_integrity_ok(db);
    strata_close(db);
}

Test(appender, commit_keeps_rows_and_a_failed_flush_leaves_the_transaction_going) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER PRIMARY KEY)");
    EXEC_OK(db, "BEGIN");
    strata_appender *a = appender(db, "t");
    for (int k = 1; k <= 50; k++)
        APPEND_ROW(db, a, k);
    APP_OK(db, strata_appender_flush(a));
    APPEND_ROW(db, a, 51);
    APPEND_ROW(db, a, 1);
    APP_FAILS(db, strata_appender_flush(a), STRATA_CONSTRAINT, "duplicate key");
    for (int k = 52; k <= 60; k++)
        APPEND_ROW(db, a, k);
    APP_OK(db, strata_appender_destroy(a));
    EXEC_OK(db, "COMMIT");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 59);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t WHERE k = 51"), 0);
    cr_assert_eq(query_int64(db, "SELECT sum(k) FROM t"), 60 * 61 / 2 - 51);
    strata_close(db);
}

/* ---- durability -------------------------------------------------------------------------- */

Test(appender, rows_survive_close_and_reopen) {
    strata_db *db = open_file(dbpath);
    char sql[512];
    snprintf(sql, sizeof sql, "CREATE TABLE t%s", ALL_TYPES_TABLE);
    EXEC_OK(db, sql);
    EXEC_OK(db, "CREATE TABLE big(k BIGINT, v VARCHAR) WITH (storage = 'auto', row_group_size = 2048);"
                "CREATE INDEX big_v ON big(v)");
    strata_appender *a = appender(db, "t");
    for (int r = 0; r < NROWS; r++) {
        for (int c = 0; c < NCOLS; c++)
            APP_OK(db, append_value(a, &ROWS[r][c]));
        APP_OK(db, strata_appender_end_row(a));
    }
    APP_OK(db, strata_appender_destroy(a));
    a = appender(db, "big");
    char v[32];
    for (int k = 0; k < 9000; k++) {
        APP_OK(db, strata_append_int64(a, k));
        snprintf(v, sizeof v, "v%d", k);
        APP_OK(db, strata_append_text(a, v, -1));
        APP_OK(db, strata_appender_end_row(a));
    }
    APP_OK(db, strata_appender_destroy(a));
    cr_assert_eq(strata_close(db), STRATA_OK);

    db = open_file(dbpath);
    expect_integrity_ok(db);
    strata_stmt *s = prepare(db, "SELECT * FROM t ORDER BY id");
    for (int r = 0; r < NROWS; r++) {
        cr_assert_eq(strata_step(s), STRATA_ROW, "row %d missing after reopen", r + 1);
        char got[512];
        size_t k = 0;
        for (int c = 0; c < NCOLS; c++) {
            const char *t = strata_column_text(s, c);
            k += (size_t)snprintf(got + k, sizeof got - k, "%s%s", c ? "," : "", t ? t : "NULL");
        }
        cr_assert_str_eq(got, EXPECTED[r], "row %d after reopen", r + 1);
    }
    cr_assert_eq(strata_step(s), STRATA_DONE);
    strata_finalize(s);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM big"), 9000);
    cr_assert_eq(query_int64(db, "SELECT sum(k) FROM big"), 9000LL * 8999 / 2);
    cr_assert_str_eq(query_rows(db, "SELECT k FROM big WHERE v = 'v4321'"), "4321");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM pragma_storage_info('big') WHERE \"column\" = 'k'"),
                 4);
    strata_close(db);
}

/* ---- the table changing under an appender ------------------------------------------------ */

/* An appender holding rows of a table's old shape must not crash when the table changes: the
** flush fails with a message, and none of its rows go in. */
Test(appender, table_altered_under_an_appender_is_an_error) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(a INTEGER, b INTEGER)");
    strata_appender *a = appender(db, "t");
    APPEND_ROW(db, a, 1, 2);
    EXEC_OK(db, "ALTER TABLE t ADD COLUMN c INTEGER");
    APP_FAILS(db, strata_appender_destroy(a), STRATA_ERROR, "table \"t\" changed since its appender was created");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 0);
    strata_close(db);
}

Test(appender, table_recreated_with_other_types_under_an_appender_is_an_error) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(a INTEGER, b INTEGER)");
    strata_appender *a = appender(db, "t");
    APPEND_ROW(db, a, 1, 2);
    EXEC_OK(db, "DROP TABLE t; CREATE TABLE t(a VARCHAR, b INTEGER)");
    APP_FAILS(db, strata_appender_destroy(a), STRATA_ERROR, "table \"t\" changed since its appender was created");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 0);
    strata_close(db);
}

Test(appender, dropped_table_under_an_appender_is_an_error) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(a INTEGER, b INTEGER)");
    strata_appender *a = appender(db, "t");
    APPEND_ROW(db, a, 1, 2);
    EXEC_OK(db, "DROP TABLE t");
    APP_FAILS(db, strata_appender_destroy(a), STRATA_ERROR, "relation \"t\" does not exist");
    strata_close(db);
}

Test(appender, close_inserts_the_rows_of_an_appender_left_open) {
    strata_db *db = open_file(dbpath);
    EXEC_OK(db, "CREATE TABLE t(a INTEGER, b VARCHAR)");
    strata_appender *a = appender(db, "t");
    for (int i = 1; i <= 100; i++) {
        APP_OK(db, strata_append_int64(a, i));
        APP_OK(db, strata_append_text(a, "x", -1));
        APP_OK(db, strata_appender_end_row(a));
    }
    cr_assert_eq(strata_close(db), STRATA_OK); /* destroys the appender: nothing is lost */
    db = open_file(dbpath);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 100);
    cr_assert_eq(query_int64(db, "SELECT sum(a) FROM t"), 5050);
    strata_close(db);
}

Test(appender, the_table_name_is_found_as_sql_folds_it) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE Mixed(a INTEGER)");
    strata_appender *a = appender(db, "Mixed"); /* stored as mixed */
    APP_OK(db, strata_append_int64(a, 7));
    APP_OK(db, strata_appender_end_row(a));
    APP_OK(db, strata_appender_destroy(a));
    cr_assert_eq(query_int64(db, "SELECT a FROM mixed"), 7);
    EXEC_OK(db, "CREATE TABLE \"Quoted\"(a INTEGER)");
    a = appender(db, "Quoted"); /* a quoted name keeps its case */
    APP_OK(db, strata_append_int64(a, 8));
    APP_OK(db, strata_appender_end_row(a));
    APP_OK(db, strata_appender_destroy(a));
    cr_assert_eq(query_int64(db, "SELECT a FROM \"Quoted\""), 8);
    strata_close(db);
}

/* ---- column-at-a-time ------------------------------------------------------------------------ */

Test(appender, columns_append_arrays_with_nulls_and_conversions) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE c(id BIGINT, price DECIMAL(10,2), name VARCHAR, d DATE, x DOUBLE)");
    strata_appender *a;
    APP_OK(db, strata_appender_create(db, "c", &a));
    int64_t ids[] = {1, 2, 3};
    double prices[] = {1.5, 2.25, 3.0};
    const char *names[] = {"one", NULL, "three"};
    const char *days[] = {"2024-01-31", "2024-02-29", "1999-12-31"};
    uint8_t null_price[] = {0, 1, 0};
    strata_column_data cols[] = {
        {STRATA_TYPE_BIGINT, ids, NULL},
        {STRATA_TYPE_DOUBLE, prices, null_price},
        {STRATA_TYPE_VARCHAR, names, NULL},
        {STRATA_TYPE_VARCHAR, days, NULL},
        {STRATA_TYPE_NULL, NULL, NULL},
    };
    APP_OK(db, strata_append_columns(a, cols, 5, 3));
    APP_OK(db, strata_appender_destroy(a));
    cr_expect_str_eq(query_rows(db, "SELECT id, price, name, d, x FROM c ORDER BY id"),
                     "1,1.50,one,2024-01-31,NULL;2,NULL,NULL,2024-02-29,NULL;3,3.00,three,1999-12-31,NULL");
    strata_close(db);
}

Test(appender, columns_stop_at_the_first_bad_value_naming_row_and_column) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE c(id INTEGER, d DATE)");
    strata_appender *a;
    APP_OK(db, strata_appender_create(db, "c", &a));
    int64_t ids[] = {1, 2, 3, 4};
    const char *days[] = {"2024-01-01", "2024-01-02", "2024-13-01", "2024-01-04"};
    strata_column_data cols[] = {{STRATA_TYPE_BIGINT, ids, NULL}, {STRATA_TYPE_VARCHAR, days, NULL}};
    APP_FAILS(db, strata_append_columns(a, cols, 2, 4), STRATA_ERROR, "row 3", "column \"d\"");
    /* misuse: wrong column count, a row begun, an unknown type */
    APP_FAILS(db, strata_append_columns(a, cols, 1, 4), STRATA_MISUSE, "needs 2 columns");
    APP_OK(db, strata_append_int64(a, 9));
    APP_FAILS(db, strata_append_columns(a, cols, 2, 1), STRATA_MISUSE, "no row begun");
    APP_OK(db, strata_append_text(a, "2024-05-05", -1));
    APP_OK(db, strata_appender_end_row(a));
    strata_column_data odd[] = {{STRATA_TYPE_BIGINT, ids, NULL}, {STRATA_TYPE_BLOB, days, NULL}};
    APP_FAILS(db, strata_append_columns(a, odd, 2, 1), STRATA_MISUSE, "column 2: type");
    APP_OK(db, strata_appender_destroy(a));
    cr_expect_str_eq(query_rows(db, "SELECT id, d FROM c ORDER BY id"), "1,2024-01-01;2,2024-01-02;9,2024-05-05");
    strata_close(db);
}

Test(appender, columns_fill_a_row_group_through_the_bulk_path) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE big(k BIGINT, v DOUBLE) WITH (storage = 'column')");
    enum { N = ROW_GROUP + 1000 };
    int64_t *k = malloc(N * sizeof *k);
    double *v = malloc(N * sizeof *v);
    cr_assert(k && v);
    for (int i = 0; i < N; i++) k[i] = i, v[i] = i * 0.5;
    strata_appender *a;
    APP_OK(db, strata_appender_create(db, "big", &a));
    strata_column_data cols[] = {{STRATA_TYPE_BIGINT, k, NULL}, {STRATA_TYPE_DOUBLE, v, NULL}};
    APP_OK(db, strata_append_columns(a, cols, 2, N));
    APP_OK(db, strata_appender_destroy(a));
    cr_expect_eq(query_int64(db, "SELECT count(*) FROM big"), N);
    cr_expect_eq(query_int64(db, "SELECT sum(k) FROM big"), (int64_t)N * (N - 1) / 2);
    cr_expect_eq(query_int64(db, "SELECT min(rows) FROM pragma_storage_info('big') WHERE row_group = 0"), ROW_GROUP,
                 "a full row group in segments");
    cr_expect_eq(query_int64(db, "SELECT rows FROM pragma_storage_info('big') WHERE row_group IS NULL"), 1000,
                 "the small tail in the row store");
    free(k);
    free(v);
    strata_close(db);
}
