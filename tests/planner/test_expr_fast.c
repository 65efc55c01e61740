/*
** test_expr_fast.c -- the typed loops of planner/exec/expr.c that replace the row-at-a-time path
** through sql_value: DECIMAL + - * / % with DECIMAL and integer operands (64-bit steps, the
** 128-bit fallback, rounding half away from zero when a product drops digits, "numeric field
** overflow"), constants on either side, NULLs on either side, rows a WHERE filtered out (vectors
** with a selection), negation, casts between numbers, comparisons of DECIMALs of different scales
** and with integers on both sides of the boundary, DOUBLE arithmetic's errors, and WHERE's
** selection. Expected values are hand-computed or come from int128 arithmetic in this file, which
** is itself checked against value_arith (the generic path) on the same inputs.
*/
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/api_db.h"
#include "strata.h"
#include "value.h"

__extension__ typedef __int128 i128;

/* expect_rows runs sql and asserts its rows: `want` lists the values row by row, each row's
** values separated by '|' and rows by ';' ("NULL" for NULL). */
static void expect_rows(strata_db *db, const char *sql, const char *want) {
    strata_stmt *s = prepare(db, sql);
    char got[4096];
    size_t n = 0;
    got[0] = '\0';
    int rc;
    while ((rc = strata_step(s)) == STRATA_ROW) {
        for (int c = 0; c < strata_column_count(s); c++) {
            const char *t = strata_column_is_null(s, c) ? "NULL" : strata_column_text(s, c);
            n += (size_t)snprintf(got + n, sizeof got - n, "%s%s", n == 0 ? "" : c == 0 ? ";" : "|", t);
            cr_assert_lt(n, sizeof got);
        }
    }
    cr_assert_eq(rc, STRATA_DONE, "\"%s\": step -> %d: %s", sql, rc, strata_errmsg(db));
    strata_finalize(s);
    cr_assert_str_eq(got, want, "\"%s\":\n got  %s\n want %s", sql, got, want);
}

/* expect_error runs sql and asserts that it fails with STRATA_ERROR and a message that contains
** text and, when col > 0, points at that column of line 1. */
static void expect_error(strata_db *db, const char *sql, const char *text, int col) {
    strata_stmt *s = prepare(db, sql);
    int rc;
    while ((rc = strata_step(s)) == STRATA_ROW) {}
    cr_assert_eq(rc, STRATA_ERROR, "\"%s\": expected an error, got %d", sql, rc);
    const char *msg = strata_errmsg(db);
    cr_assert_not_null(strstr(msg, text), "\"%s\": message \"%s\" lacks \"%s\"", sql, msg, text);
    if (col > 0) {
        char at[48];
        snprintf(at, sizeof at, "line 1, column %d:", col);
        cr_assert_not_null(strstr(msg, at), "\"%s\": message \"%s\" is not at column %d", sql, msg, col);
    }
    strata_finalize(s);
}

/* expect_type asserts the declared type of sql's first column. */
static void expect_type(strata_db *db, const char *sql, const char *type) {
    strata_stmt *s = prepare(db, sql);
    cr_assert_str_eq(strata_column_decltype(s, 0), type, "\"%s\"", sql);
    strata_finalize(s);
}

/* ---- hand-computed values ---- */

Test(expr_fast, decimal_times_decimal) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER, p DECIMAL(15,2), d DECIMAL(15,2))");
    EXEC_OK(db, "INSERT INTO t VALUES (1, 1000.00, 0.05), (2, 12.34, -0.10), (3, -99999.99, -99999.99), "
                "(4, NULL, 1.00), (5, 1.00, NULL), (6, 9999999.99, 999999.99), (7, 0.01, 0.01)");
    /* DECIMAL(15,2) * DECIMAL(15,2): 30 digits > 18, so DECIMAL(18, min(4, max(2, 12))) */
    expect_type(db, "SELECT p * d FROM t", "numeric(18,4)");
    expect_rows(db, "SELECT p * d FROM t ORDER BY id",
                "50.0000;-1.2340;9999998000.0001;NULL;NULL;9999999890000.0001;0.0001");
    /* the TPC-H shape, the constant on the left, and a WHERE that filters rows out first */
    expect_type(db, "SELECT 1 - d FROM t", "numeric(16,2)");
    expect_rows(db, "SELECT p * (1 - d), 1 - d, d - 1 FROM t WHERE id <> 3 AND id <> 6 ORDER BY id",
                "950.0000|0.95|-0.95;13.5740|1.10|-1.10;NULL|0.00|0.00;NULL|NULL|NULL;0.0099|0.99|-0.99");
    strata_close(db);
}

Test(expr_fast, decimal_and_integers) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER, d DECIMAL(15,2), i INTEGER, s SMALLINT, g BIGINT)");
    EXEC_OK(db, "INSERT INTO t VALUES (1, 1.25, 2, 3, 4), (2, -1.25, -2147483648, -32768, 9223372036854775807), "
                "(3, NULL, 7, NULL, 1), (4, 0.01, NULL, 1, NULL)");
    /* INTEGER is DECIMAL(10,0): + gives DECIMAL(min(18, max(13, 10) + 2 + 1), 2) */
    expect_type(db, "SELECT d + i FROM t", "numeric(16,2)");
    expect_type(db, "SELECT s * d FROM t", "numeric(18,2)"); /* 5 + 15 digits > 18: scale min(2, 12) */
    expect_rows(db, "SELECT d + i, i - d, s * d, d * s, d + s FROM t WHERE id <> 2 ORDER BY id",
                "3.25|0.75|3.75|3.75|4.25;NULL|NULL|NULL|NULL|NULL;NULL|NULL|0.01|0.01|1.01");
    expect_rows(db, "SELECT d + i, i - d, s * d, d - s FROM t WHERE id = 2",
                "-2147483649.25|-2147483646.75|40960.00|32766.75");
    /* BIGINT is DECIMAL(18,0); its maximum times 100 overflows 64 bits and DECIMAL(18,2) */
    expect_type(db, "SELECT g + d FROM t", "numeric(18,2)");
    expect_rows(db, "SELECT g + d, g * d FROM t WHERE id <> 2 ORDER BY id", "5.25|5.00;NULL|NULL;NULL|NULL");
    expect_error(db, "SELECT g + d FROM t", "numeric field overflow", 10);
    strata_close(db);
}

Test(expr_fast, mixed_scales) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER, a DECIMAL(10,4), b DECIMAL(15,2))");
    EXEC_OK(db, "INSERT INTO t VALUES (1, 1.2345, 100.01), (2, -0.0001, 0.00), (3, 999999.9999, -0.01)");
    expect_type(db, "SELECT a + b FROM t", "numeric(18,4)");
    expect_type(db, "SELECT a * b FROM t", "numeric(18,6)"); /* 25 digits: scale min(6, max(4, 12)) */
    expect_rows(db, "SELECT a + b, b - a, a * b, b * a FROM t ORDER BY id",
                "101.2445|98.7755|123.462345|123.462345;-0.0001|0.0001|0.000000|0.000000;"
                "999999.9899|-1000000.0099|-9999.999999|-9999.999999");
    /* the constants hoisted on either side, with the other scale */
    expect_rows(db, "SELECT a + 0.5, 0.5 - a, a * 2.50, 2 * b FROM t ORDER BY id",
                "1.7345|-0.7345|3.086250|200.02;0.4999|0.5001|-0.000250|0.00;"
                "1000000.4999|-999999.4999|2499999.999750|-0.02");
    strata_close(db);
}

Test(expr_fast, product_drops_digits) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER, c DECIMAL(18,10), d DECIMAL(18,8))");
    /* scales 10 + 8 = 18 > 12: the product keeps 12 digits and rounds the 6 it drops half away
    ** from zero. Row 1: 1e-10 * 0.005 = 5e-13, exactly half: 1e-12. Row 2 its negative. Row 3:
    ** 4.99999e-13: down. Row 4: 12.3456789012 * 45.67891234 = 563.9371843057023208... whose
    ** scaled product (5.6e20) overflows 64 bits: the 128-bit path. Row 5: its negative. */
    EXEC_OK(db, "INSERT INTO t VALUES (1, 0.0000000001, 0.005), (2, 0.0000000001, -0.005), "
                "(3, 0.0000000001, 0.00499999), (4, 12.3456789012, 45.67891234), "
                "(5, -12.3456789012, 45.67891234), (6, 0.0000000003, 0.00000500), (7, NULL, 1)");
    expect_type(db, "SELECT c * d FROM t", "numeric(18,12)");
    expect_rows(db, "SELECT c * d FROM t ORDER BY id",
                "0.000000000001;-0.000000000001;0.000000000000;563.937184305702;-563.937184305702;"
                "0.000000000000;NULL");
    /* -3e-10 * 5e-6 = -1.5e-15: rounds to -0.000000000000 = 0 (no negative zero) */
    expect_rows(db, "SELECT c * -d FROM t WHERE id = 6", "0.000000000000");
    /* 1e-10 * 0.015 = 1.5e-12 -> 2e-12; -2.5e-12 -> -3e-12 */
    expect_rows(db, "SELECT c * 0.015, c * -0.025 FROM t WHERE id = 1", "0.000000000002|-0.000000000003");
    strata_close(db);
}

Test(expr_fast, overflow_errors) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER, a DECIMAL(18,2), b DECIMAL(15,2))");
    EXEC_OK(db, "INSERT INTO t VALUES (1, 1.00, 1.00), (2, 9999999999999999.99, 9999999999999.99), (3, 2.00, 3.00)");
    /* DECIMAL(18,2) + DECIMAL(15,2) is DECIMAL(18,2): row 2 reaches 10^16 */
    expect_error(db, "SELECT a + b FROM t", "numeric field overflow", 10);
    expect_error(db, "SELECT -a - b FROM t", "numeric field overflow", 11);
    /* DECIMAL(18,2) * DECIMAL(15,2) is DECIMAL(18,4): 64 bits overflow in row 2 */
    expect_error(db, "SELECT a * b FROM t", "numeric field overflow", 10);
    expect_error(db, "SELECT id, b * b FROM t", "numeric field overflow", 14);
    /* a row filtered out is never computed */
    expect_rows(db, "SELECT a + b, a * b FROM t WHERE id <> 2 ORDER BY id", "2.00|1.0000;5.00|6.0000");
    /* just below and at the bound of DECIMAL(18,4) (|v| < 10^14) */
    expect_rows(db, "SELECT b * 10.00 FROM t WHERE id = 2", "99999999999999.9000");
    expect_error(db, "SELECT b * 10.01 FROM t WHERE id = 2", "numeric field overflow", 10);
    expect_rows(db, "SELECT -b * 10.00 FROM t WHERE id = 2", "-99999999999999.9000");
    /* exactly 10^16, the bound of DECIMAL(18,2), overflows; one unit less does not */
    expect_rows(db, "SELECT a + 0.00, -a - 0.00 FROM t WHERE id = 2", "9999999999999999.99|-9999999999999999.99");
    expect_error(db, "SELECT a + 0.01 FROM t WHERE id = 2", "numeric field overflow", 10);
    expect_error(db, "SELECT -a - 0.01 FROM t WHERE id = 2", "numeric field overflow", 11);
    expect_rows(db, "SELECT id * 4999999999999999.99 FROM t WHERE id = 2", "9999999999999999.98");
    expect_error(db, "SELECT id * 5000000000000000.00 FROM t WHERE id = 2", "numeric field overflow", 11);
    /* division and modulo keep their errors, and a NULL divisor (stored as 0) is no error */
    expect_error(db, "SELECT a / (b - b) FROM t", "division by zero", 10);
    expect_error(db, "SELECT a % (b - 1) FROM t", "division by zero", 10);
    EXEC_OK(db, "INSERT INTO t VALUES (4, 5.00, NULL)");
    expect_rows(db, "SELECT a / b, a % b, b / a FROM t WHERE id <> 2 ORDER BY id",
                "1.000000|0.00|1.000000;0.666667|2.00|1.500000;NULL|NULL|NULL");
    strata_close(db);
}

Test(expr_fast, negation_and_casts) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER, d DECIMAL(5,2), i INTEGER, s SMALLINT, f DOUBLE)");
    EXEC_OK(db, "INSERT INTO t VALUES (1, 2.25, 1000, 5, 1.5), (2, -2.35, -7, -32768, NULL), (3, NULL, NULL, NULL, -0.25), "
                "(4, 2.24, -2147483648, 0, 0)");
    expect_rows(db, "SELECT -d, -i, -s, -f FROM t WHERE id <> 4 AND id <> 2 ORDER BY id", "-2.25|-1000|-5|-1.5;NULL|NULL|NULL|0.25");
    expect_rows(db, "SELECT -d FROM t WHERE id = 2", "2.35");
    expect_error(db, "SELECT -s FROM t", "smallint out of range", 0);
    expect_error(db, "SELECT -i FROM t", "integer out of range", 0);
    /* DECIMAL -> DECIMAL down rounds half away from zero; up is exact; both check the bound */
    expect_rows(db, "SELECT CAST(d AS DECIMAL(4,1)), CAST(d AS DECIMAL(9,5)) FROM t ORDER BY id",
                "2.3|2.25000;-2.4|-2.35000;NULL|NULL;2.2|2.24000");
    expect_error(db, "SELECT CAST(d AS DECIMAL(2,2)) FROM t", "numeric field overflow", 0);
    /* 99.94 rounds to 99.9; 99.95 rounds to 100.0, beyond DECIMAL(3,1) */
    expect_rows(db, "SELECT CAST(d + 97.70 AS DECIMAL(3,1)) FROM t WHERE id = 4", "99.9");
    expect_error(db, "SELECT CAST(d + 97.70 AS DECIMAL(3,1)) FROM t WHERE id = 1", "numeric field overflow", 0);
    expect_rows(db, "SELECT CAST(i AS DECIMAL(12,2)), CAST(s AS DECIMAL(8,3)) FROM t WHERE id <> 4 ORDER BY id",
                "1000.00|5.000;-7.00|-32768.000;NULL|NULL");
    expect_error(db, "SELECT CAST(i AS DECIMAL(5,2)) FROM t", "numeric field overflow", 0);
    expect_rows(db, "SELECT CAST(d AS DOUBLE), CAST(d AS INTEGER), CAST(d AS SMALLINT) FROM t ORDER BY id",
                "2.25|2|2;-2.35|-2|-2;NULL|NULL|NULL;2.24|2|2");
    expect_rows(db, "SELECT CAST(d * 100 AS INTEGER) FROM t WHERE id = 2", "-235");
    strata_close(db);
}

Test(expr_fast, double_arithmetic) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER, f DOUBLE, q INTEGER, d DECIMAL(6,2))");
    EXEC_OK(db, "INSERT INTO t VALUES (1, 2.5, 4, 1.10), (2, 1e-200, 3, NULL), (3, 1e300, NULL, -0.50)");
    expect_type(db, "SELECT f * q FROM t", "double precision");
    expect_rows(db, "SELECT f * q, q / f, f + d, d * f FROM t WHERE id = 1", "10|1.6|3.6|2.75");
    expect_rows(db, "SELECT f * q, f + d FROM t WHERE id <> 1 ORDER BY id", "3e-200|NULL;NULL|1e+300");
    /* PostgreSQL's float8 errors, whichever loop computes the row */
    expect_error(db, "SELECT f * f FROM t WHERE id = 2", "value out of range: underflow", 10);
    expect_error(db, "SELECT f * f FROM t WHERE id = 3", "value out of range: overflow", 10);
    expect_error(db, "SELECT f / (q - q) FROM t WHERE id = 1", "division by zero", 10);
    expect_error(db, "SELECT f / 1e300 FROM t WHERE id = 2", "value out of range: underflow", 10);
    strata_close(db);
}

Test(expr_fast, comparisons_across_scales) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER, m DECIMAL(5,2), a DECIMAL(10,4), i INTEGER, g BIGINT)");
    EXEC_OK(db, "INSERT INTO t VALUES (1, 1.00, 1.0000, 1, 1), (2, 1.00, 0.9999, 0, 0), (3, 1.00, 1.0001, 2, 2), "
                "(4, -1.00, -1.0001, -1, -1), (5, NULL, 1, NULL, NULL), (6, 2.35, 2.3450, 3, 3)");
    /* a column against a constant of more digits, either side */
    expect_rows(db, "SELECT id FROM t WHERE m < 2.345 ORDER BY id", "1;2;3;4");
    expect_rows(db, "SELECT id FROM t WHERE 2.345 < m ORDER BY id", "6");
    expect_rows(db, "SELECT id FROM t WHERE m >= 2.351 ORDER BY id", "");
    expect_rows(db, "SELECT id FROM t WHERE m = 1.000 ORDER BY id", "1;2;3");
    /* two columns of different scales */
    expect_rows(db, "SELECT id, m = a, m < a, m > a, m <> a FROM t ORDER BY id",
                "1|true|false|false|false;2|false|false|true|true;3|false|true|false|true;"
                "4|false|false|true|true;5|NULL|NULL|NULL|NULL;6|false|false|true|true");
    /* with integers: columns and constants, on both sides of each boundary */
    expect_rows(db, "SELECT id, m = i, m > i, i >= m, g < a FROM t ORDER BY id",
                "1|true|false|true|false;2|false|true|false|true;3|false|false|true|false;"
                "4|true|false|true|false;5|NULL|NULL|NULL|NULL;6|false|false|true|false");
    expect_rows(db, "SELECT id FROM t WHERE a > 1 ORDER BY id", "3;6");
    expect_rows(db, "SELECT id FROM t WHERE a >= 1 ORDER BY id", "1;3;5;6");
    expect_rows(db, "SELECT id FROM t WHERE -1 > a ORDER BY id", "4");
    strata_close(db);
}

/* ---- random rows against int128 arithmetic ---- */

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* rand_scaled: a random stored value with up to `digits` digits, negative half the time. */
static int64_t rand_scaled(int digits) {
    int n = (int)(next_rand() % (uint64_t)(digits + 1));
    int64_t v = n == 0 ? 0 : (int64_t)(next_rand() % (uint64_t)dec_pow10[n]);
    return next_rand() & 1 ? -v : v;
}

static i128 pow10_i128(int n) {
    i128 r = 1;
    while (n-- > 0) r *= 10;
    return r;
}

/* round_div: n / d rounded half away from zero. */
static i128 round_div(i128 n, i128 d) {
    i128 q = n / d, r = n % d;
    if (r < 0) r = -r;
    if (2 * r >= (d < 0 ? -d : d)) q += (n < 0) == (d < 0) ? 1 : -1;
    return q;
}

/* fmt writes v at scale as PostgreSQL prints a numeric. */
static void fmt(i128 v, int scale, char *buf) {
    char tmp[64];
    int n = 0;
    unsigned __int128 m = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    do {
        tmp[n++] = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m || n <= scale);
    size_t k = 0;
    if (v < 0) buf[k++] = '-';
    while (n > scale) buf[k++] = tmp[--n];
    if (scale) buf[k++] = '.';
    while (n > 0) buf[k++] = tmp[--n];
    buf[k] = '\0';
}

/* One expression of the random test: x op y over stored values at scales sx, sy, into
** DECIMAL(p, s) (hand-derived from the rules of dec_result_type). */
typedef struct rand_case {
    const char *sql;
    int x, y; /* columns of the row array */
    value_op op;
    int sx, sy, p, s;
} rand_case;

enum { C_A, C_B, C_C, C_D, C_I, C_S, C_G, NCOLS };
static const int col_scale[NCOLS] = {2, 2, 10, 8, 0, 0, 0};

/* expected: the text of x op y at (p, s) from int128 arithmetic; "NULL" or "error". */
static void expected(const rand_case *k, i128 x, i128 y, char *buf) {
    int m = k->sx > k->sy ? k->sx : k->sy;
    i128 r;
    switch (k->op) {
    case VALUE_ADD: r = x * pow10_i128(m - k->sx) + y * pow10_i128(m - k->sy); break;
    case VALUE_SUB: r = x * pow10_i128(m - k->sx) - y * pow10_i128(m - k->sy); break;
    case VALUE_MUL: r = round_div(x * y, pow10_i128(k->sx + k->sy - k->s)); break;
    case VALUE_DIV: /* x / 10^sx / (y / 10^sy) at scale s */
        if (y == 0) return (void)strcpy(buf, "error");
        r = round_div(x * pow10_i128(k->s + k->sy - k->sx), y);
        break;
    default:
        if (y == 0) return (void)strcpy(buf, "error");
        r = (x * pow10_i128(m - k->sx)) % (y * pow10_i128(m - k->sy));
        break;
    }
    if (r >= pow10_i128(k->p) || r <= -pow10_i128(k->p)) return (void)strcpy(buf, "error");
    fmt(r, k->s, buf);
}

/* generic: the same through value_arith, the row-at-a-time path the loops replace. */
static void generic(const rand_case *k, int64_t x, int64_t y, const sql_type *types, char *buf) {
    sql_value u = {0}, v = {0}, res;
    u.type = types[k->x], u.v.i = x;
    v.type = types[k->y], v.v.i = y;
    strata_err e;
    err_clear(&e);
    if (value_arith(k->op, &u, &v, &res, &e)) return (void)strcpy(buf, "error");
    cr_assert_eq(res.type.id, TYPE_DECIMAL);
    cr_assert_eq(res.type.precision, k->p, "%s", k->sql);
    cr_assert_eq(res.type.scale, k->s, "%s", k->sql);
    dec_format(res.v.i, res.type.scale, buf);
}

Test(expr_fast, random_rows_match_int128) {
    /* 5000 rows (three vectors), a tenth of each column NULL. Magnitudes keep every result in its
    ** type, except where a case says so: a, b below 10^9 stored (10^7), c, d below 10^12 (their
    ** product overflows 64 bits and is rounded), g below 10^8. */
    enum { N = 5000 };
    static const int digits[NCOLS] = {9, 9, 12, 12, 9, 4, 8};
    static int64_t vals[N][NCOLS];
    static bool nul[N][NCOLS];
    sql_type types[NCOLS] = {sql_type_decimal(15, 2), sql_type_decimal(15, 2), sql_type_decimal(18, 10),
                             sql_type_decimal(18, 8), sql_type_make(TYPE_INTEGER),  sql_type_make(TYPE_SMALLINT),
                             sql_type_make(TYPE_BIGINT)};
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE r(id INTEGER, a DECIMAL(15,2), b DECIMAL(15,2), c DECIMAL(18,10), d DECIMAL(18,8), "
                "i INTEGER, s SMALLINT, g BIGINT)");
    EXEC_OK(db, "BEGIN");
    strata_stmt *ins = prepare(db, "INSERT INTO r VALUES (?, CAST(? AS DECIMAL(15,2)), CAST(? AS DECIMAL(15,2)), "
                                   "CAST(? AS DECIMAL(18,10)), CAST(? AS DECIMAL(18,8)), ?, ?, ?)");
    for (int row = 0; row < N; row++) {
        strata_bind_int64(ins, 1, row);
        for (int c = 0; c < NCOLS; c++) {
            int64_t v = rand_scaled(digits[c]);
            /* every fourth row: c tiny and d a multiple of 5 * 10^5, so products end in ...5 exactly
            ** at the first dropped digit: the half-way rounding */
            if (row % 4 == 1 && c == C_C) v = (int64_t)(next_rand() % 19) - 9;
            if (row % 4 == 1 && c == C_D) v = 500000 * ((int64_t)(next_rand() % 2001) - 1000);
            vals[row][c] = v;
            nul[row][c] = next_rand() % 10 == 0;
            if (nul[row][c]) {
                strata_bind_null(ins, c + 2);
            } else if (c < C_I) {
                char t[48];
                fmt(v, col_scale[c], t);
                strata_bind_text(ins, c + 2, t, -1);
            } else {
                strata_bind_int64(ins, c + 2, v);
            }
        }
        cr_assert_eq(strata_step(ins), STRATA_DONE, "insert: %s", strata_errmsg(db));
        strata_reset(ins);
    }
    strata_finalize(ins);
    EXEC_OK(db, "COMMIT");

    static const rand_case cases[] = {
        {"a * b", C_A, C_B, VALUE_MUL, 2, 2, 18, 4},  {"a + b", C_A, C_B, VALUE_ADD, 2, 2, 16, 2},
        {"b - a", C_B, C_A, VALUE_SUB, 2, 2, 16, 2},  {"a + i", C_A, C_I, VALUE_ADD, 2, 0, 16, 2},
        {"i - a", C_I, C_A, VALUE_SUB, 0, 2, 16, 2},  {"s * a", C_S, C_A, VALUE_MUL, 0, 2, 18, 2},
        {"a - s", C_A, C_S, VALUE_SUB, 2, 0, 16, 2},  {"c * d", C_C, C_D, VALUE_MUL, 10, 8, 18, 12},
        {"d * c", C_D, C_C, VALUE_MUL, 8, 10, 18, 12}, {"c + a", C_C, C_A, VALUE_ADD, 10, 2, 18, 10},
        {"d - c", C_D, C_C, VALUE_SUB, 8, 10, 18, 10}, {"g * a", C_G, C_A, VALUE_MUL, 0, 2, 18, 2},
        {"a + g", C_A, C_G, VALUE_ADD, 2, 0, 18, 2},  {"s * d", C_S, C_D, VALUE_MUL, 0, 8, 18, 8},
        {"a / b", C_A, C_B, VALUE_DIV, 2, 2, 18, 6},  {"a % b", C_A, C_B, VALUE_MOD, 2, 2, 15, 2},
    };
    /* without and with a filter (vectors with a selection); / and % only where b is not 0 */
    static const char *wheres[] = {"WHERE b IS NULL OR b <> 0", "WHERE id % 3 <> 1 AND (b IS NULL OR b <> 0)"};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        for (int w = 0; w < 2; w++) {
            char sql[256];
            snprintf(sql, sizeof sql, "SELECT id, %s FROM r %s ORDER BY id", cases[k].sql, wheres[w]);
            strata_stmt *s = prepare(db, sql);
            int rc, seen = 0;
            for (int row = 0; row < N; row++) {
                bool bnull = nul[row][C_B];
                if (!bnull && vals[row][C_B] == 0) continue;
                if (w == 1 && row % 3 == 1) continue;
                rc = strata_step(s);
                cr_assert_eq(rc, STRATA_ROW, "%s: row %d: %d %s", sql, row, rc, strata_errmsg(db));
                cr_assert_eq(strata_column_int64(s, 0), row, "%s", sql);
                char want[64], gen[64];
                const rand_case *c = &cases[k];
                if (nul[row][c->x] || nul[row][c->y]) {
                    cr_assert(strata_column_is_null(s, 1), "%s: row %d: %s, not NULL", sql, row, strata_column_text(s, 1));
                } else {
                    expected(c, vals[row][c->x], vals[row][c->y], want);
                    generic(c, vals[row][c->x], vals[row][c->y], types, gen);
                    cr_assert_str_eq(want, gen, "%s: row %d: int128 and value_arith disagree", sql, row);
                    cr_assert_str_eq(strata_column_text(s, 1), want, "%s: row %d", sql, row);
                }
                seen++;
            }
            cr_assert_eq(strata_step(s), STRATA_DONE, "%s: more rows", sql);
            cr_assert_gt(seen, N / 2);
            strata_finalize(s);
        }
    }
    strata_close(db);
}

/* ---- WHERE's selection ---- */

Test(expr_fast, where_selects_exactly_the_true_rows) {
    /* alternating true, false and NULL conditions across vector boundaries: the branch-free
    ** selection keeps exactly the rows whose condition is true */
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER, q INTEGER, b BOOLEAN)");
    EXEC_OK(db, "INSERT INTO t SELECT x, CASE WHEN x % 5 = 0 THEN NULL ELSE x % 100 END, "
                "CASE WHEN x % 7 = 0 THEN NULL ELSE x % 3 = 0 END FROM generate_series(1, 5000) AS g(x)");
    /* q > 50: x % 100 in 51..99 (49 of every 100), minus the multiples of 5 among them (9) */
    expect_rows(db, "SELECT count(*), sum(id) FROM t WHERE q > 50", "2000|5050000");
    /* b: x % 3 = 0 and not x % 7 = 0 */
    expect_rows(db, "SELECT count(*) FROM t WHERE b", "1428");
    expect_rows(db, "SELECT count(*) FROM t WHERE NOT b", "2858");
    expect_rows(db, "SELECT count(*) FROM t WHERE b AND q > 50", "567");
    expect_rows(db, "SELECT count(*) FROM t WHERE b IS NULL", "714");
    strata_close(db);
}
