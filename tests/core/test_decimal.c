/*
** test_decimal.c -- DECIMAL(p,s): parsing with rounding, exact formatting, rescaling, result types,
** the four operations and %, conversions, int128 sums and averages, and round trips.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "value.h"

#include "helpers/expect.h"

static strata_err err;

static const char *fmt(int64_t v, int scale) {
    static char buf[8][DEC_TEXT_MAX];
    static int i;
    i = (i + 1) % 8;
    dec_format(v, (uint8_t)scale, buf[i]);
    return buf[i];
}

static int64_t parse(const char *s, int p, int sc) {
    int64_t v = 0;
    err_clear(&err);
    int rc = dec_parse(s, strlen(s), (uint8_t)p, (uint8_t)sc, &v, &err);
    cr_assert_eq(rc, STRATA_OK, "dec_parse(\"%s\", %d, %d): %s", s, p, sc, err.msg);
    return v;
}

static sql_type dt(int p, int s) { return sql_type_decimal((uint8_t)p, (uint8_t)s); }

Test(decimal, parse_values) {
    static const struct {
        const char *text;
        int p, s;
        int64_t want;
    } cases[] = {
        {"123.456", 10, 3, 123456},
        {"-0.5", 5, 1, -5},
        {"1e3", 10, 2, 100000},
        {".5", 3, 2, 50},
        {"5.", 3, 0, 5},
        {"  12.5  ", 5, 2, 1250},
        {"+7", 3, 0, 7},
        {"1.5E-2", 5, 3, 15},
        {"0.000", 5, 3, 0},
        {"-0", 5, 2, 0},
        {"00012.50", 6, 2, 1250},
        {"1234567890123456.78", 18, 2, 123456789012345678},
        {"999999999999999999", 18, 0, 999999999999999999},
        {"-999999999999999999", 18, 0, -999999999999999999},
        {"0.000000000000000001", 18, 18, 1},
        {"12e-1", 3, 1, 12},
        {"1.2e+1", 4, 1, 120},
        {"0.00000000000000000000000000000000000000000000000001", 5, 2, 0},
        {"\t3\n", 2, 0, 3},
        {"1e-400", 5, 2, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_assert_eq(parse(cases[i].text, cases[i].p, cases[i].s), cases[i].want, "%s", cases[i].text);
}

Test(decimal, parse_rounds_half_away_from_zero) {
    cr_assert_eq(parse("0.005", 3, 2), 1);
    cr_assert_eq(parse("0.004", 3, 2), 0);
    cr_assert_eq(parse("0.0049999", 3, 2), 0);
    cr_assert_eq(parse("-0.005", 3, 2), -1);
    cr_assert_eq(parse("-0.0049", 3, 2), 0);
    cr_assert_eq(parse("1.995", 5, 2), 200);
    cr_assert_eq(parse("2.5", 2, 0), 3);
    cr_assert_eq(parse("-2.5", 2, 0), -3);
    cr_assert_eq(parse("1.5", 2, 0), 2);
    cr_assert_eq(parse("9.995", 4, 2), 1000);
    cr_assert_eq(parse("0.125", 5, 2), 13); /* not half to even */
    cr_assert_eq(parse("1.00500000000000000000001", 5, 2), 101);
    cr_assert_eq(parse("5e-3", 5, 2), 1);
}

Test(decimal, parse_errors) {
    int64_t v;
    const char *bad[] = {"abc", "",  "1.2.3", "1e",  "--1",  "1 2",      "NaN",
                         "e5",  ".", "-",     "1e+", "0x10", "Infinity", "1,5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[128];
        snprintf(want, sizeof want, "invalid input syntax for type numeric: \"%s\"", bad[i]);
        EXPECT_ERR(dec_parse(bad[i], strlen(bad[i]), 10, 2, &v, &err), want);
    }
    EXPECT_ERR(dec_parse("1000", 4, 5, 2, &v, &err), "numeric field overflow");
    EXPECT_ERR(dec_parse("999.995", 7, 5, 2, &v, &err), "numeric field overflow"); /* rounds to 1000.00 */
    EXPECT_ERR(dec_parse("99.995", 6, 4, 2, &v, &err), "numeric field overflow");
    EXPECT_ERR(dec_parse("1e30", 4, 18, 0, &v, &err), "numeric field overflow");
    EXPECT_ERR(dec_parse("1e18", 4, 18, 0, &v, &err), "numeric field overflow");
    EXPECT_ERR(dec_parse("1e999999999999", 14, 18, 0, &v, &err), "numeric field overflow");
    char big[120];
    memset(big, '9', 100);
    big[100] = 0;
    EXPECT_ERR(dec_parse(big, 100, 18, 0, &v, &err), "numeric field overflow");
    EXPECT_ERR(dec_parse("1", 1, 3, 3, &v, &err), "numeric field overflow"); /* DECIMAL(3,3) holds < 1 */
}

Test(decimal, format_prints_every_scale_digit) {
    cr_assert_str_eq(fmt(150, 2), "1.50");
    cr_assert_str_eq(fmt(-5, 2), "-0.05");
    cr_assert_str_eq(fmt(0, 3), "0.000");
    cr_assert_str_eq(fmt(0, 0), "0");
    cr_assert_str_eq(fmt(123, 0), "123");
    cr_assert_str_eq(fmt(-123, 0), "-123");
    cr_assert_str_eq(fmt(INT64_MIN, 0), "-9223372036854775808");
    cr_assert_str_eq(fmt(INT64_MAX, 18), "9.223372036854775807");
    cr_assert_str_eq(fmt(1, 18), "0.000000000000000001");
    cr_assert_str_eq(fmt(-999999999999999999, 18), "-0.999999999999999999");
    cr_assert_str_eq(fmt(100, 2), "1.00");
    cr_assert_str_eq(fmt(-100000, 1), "-10000.0");
    char buf[DEC_TEXT_MAX];
    cr_assert_eq(dec_format(-5, 2, buf), 5);
}

Test(decimal, round_trips) {
    srand(7);
    char buf[DEC_TEXT_MAX];
    for (int i = 0; i < 20000; i++) {
        int p = 1 + rand() % 18, s = rand() % (p + 1);
        int64_t lim = dec_pow10[p];
        int64_t v =
            (int64_t)(((uint64_t)rand() << 40 ^ (uint64_t)rand() << 20 ^ (uint64_t)rand()) % (uint64_t)lim);
        if (rand() & 1) v = -v;
        size_t n = dec_format(v, (uint8_t)s, buf);
        int64_t back;
        EXPECT_OK(dec_parse(buf, n, (uint8_t)p, (uint8_t)s, &back, &err));
        cr_assert_eq(back, v, "%s at (%d,%d)", buf, p, s);
    }
    const char *canon[] = {"0.00", "1.50", "-0.05", "123456789012345.678", "-1", "0", "0.000000000000000001"};
    const int scales[] = {2, 2, 2, 3, 0, 0, 18};
    for (size_t i = 0; i < sizeof canon / sizeof canon[0]; i++)
        cr_assert_str_eq(fmt(parse(canon[i], 18, scales[i]), scales[i]), canon[i]);
}

Test(decimal, rescale) {
    int64_t v;
    EXPECT_OK(dec_rescale(12345, 3, dt(10, 2), &v, &err));
    cr_assert_eq(v, 1235); /* 12.345 -> 12.35 */
    EXPECT_OK(dec_rescale(-12345, 3, dt(10, 2), &v, &err));
    cr_assert_eq(v, -1235);
    EXPECT_OK(dec_rescale(12344, 3, dt(10, 2), &v, &err));
    cr_assert_eq(v, 1234);
    EXPECT_OK(dec_rescale(15, 1, dt(5, 0), &v, &err));
    cr_assert_eq(v, 2);
    EXPECT_OK(dec_rescale(-15, 1, dt(5, 0), &v, &err));
    cr_assert_eq(v, -2);
    EXPECT_OK(dec_rescale(5, 1, dt(5, 0), &v, &err));
    cr_assert_eq(v, 1);
    EXPECT_OK(dec_rescale(4, 1, dt(5, 0), &v, &err));
    cr_assert_eq(v, 0);
    EXPECT_OK(dec_rescale(15, 1, dt(10, 3), &v, &err));
    cr_assert_eq(v, 1500);
    EXPECT_OK(dec_rescale(1005, 3, dt(10, 2), &v, &err));
    cr_assert_eq(v, 101);
    EXPECT_OK(dec_rescale(999999999999999999, 18, dt(18, 17), &v, &err));
    cr_assert_eq(v, 100000000000000000); /* 0.99..9 -> 1.00..0 still fits 18 digits at scale 17 */
    EXPECT_ERR(dec_rescale(99999, 2, dt(4, 2), &v, &err), "numeric field overflow");
    EXPECT_ERR(dec_rescale(9995, 3, dt(3, 2), &v, &err), "numeric field overflow"); /* 9.995 -> 10.00 */
    EXPECT_ERR(dec_rescale(100000000000000000, 0, dt(18, 2), &v, &err), "numeric field overflow");
    EXPECT_ERR(dec_rescale(INT64_MAX, 0, dt(18, 18), &v, &err), "numeric field overflow");
    EXPECT_OK(dec_check(999, 3, &err));
    EXPECT_ERR(dec_check(-1000, 3, &err), "numeric field overflow");
}

Test(decimal, compare_across_scales) {
    cr_assert_eq(dec_compare(150, 2, 15, 1), 0);
    cr_assert_eq(dec_compare(-1, 0, 5, 1), -1);
    cr_assert_eq(dec_compare(5, 1, -1, 0), 1);
    cr_assert_eq(dec_compare(INT64_MAX, 0, 999999999999999999, 18), 1);
    cr_assert_eq(dec_compare(INT64_MIN, 0, -999999999999999999, 18), -1);
    cr_assert_eq(dec_compare(1, 18, 0, 0), 1);
    cr_assert_eq(dec_compare(100, 2, 1, 0), 0);
}

static void expect_type(sql_type t, int p, int s) {
    cr_assert_eq(t.id, TYPE_DECIMAL);
    cr_assert_eq(t.precision, p, "precision %d, want %d", t.precision, p);
    cr_assert_eq(t.scale, s, "scale %d, want %d", t.scale, s);
}

Test(decimal, result_types) {
    expect_type(dec_result_type(VALUE_ADD, dt(10, 2), dt(5, 4)), 13, 4);
    expect_type(dec_result_type(VALUE_SUB, dt(18, 2), dt(18, 2)), 18, 2);
    expect_type(dec_result_type(VALUE_ADD, dt(3, 3), dt(3, 3)), 4, 3);
    expect_type(dec_result_type(VALUE_MUL, dt(5, 2), dt(4, 1)), 9, 3);
    expect_type(dec_result_type(VALUE_MUL, dt(15, 2), dt(16, 2)), 18, 4); /* TPC-H price * (1 - discount) */
    expect_type(dec_result_type(VALUE_MUL, dt(10, 9), dt(10, 9)), 18, 12);
    expect_type(dec_result_type(VALUE_MUL, dt(18, 18), dt(18, 18)), 18, 18);
    expect_type(dec_result_type(VALUE_MUL, dt(9, 9), dt(9, 9)), 18, 18);
    expect_type(dec_result_type(VALUE_DIV, dt(10, 2), dt(5, 2)), 18, 8);
    expect_type(dec_result_type(VALUE_DIV, dt(18, 4), dt(18, 4)), 18, 6);
    expect_type(dec_result_type(VALUE_DIV, dt(4, 2), dt(4, 2)), 11, 7);
    expect_type(dec_result_type(VALUE_MOD, dt(10, 2), dt(5, 3)), 5, 3);
    sql_type integer = sql_type_make(TYPE_INTEGER), bigint = sql_type_make(TYPE_BIGINT);
    expect_type(dec_result_type(VALUE_ADD, integer, dt(5, 2)), 13, 2);
    expect_type(dec_result_type(VALUE_MUL, bigint, dt(5, 2)), 18, 2);
    expect_type(dec_result_type(VALUE_DIV, integer, integer), 18, 8);
}

Test(decimal, arithmetic) {
    int64_t v;
    EXPECT_OK(dec_arith(VALUE_ADD, 150, 2, 225, 2, dt(4, 2), &v, &err));
    cr_assert_str_eq(fmt(v, 2), "3.75");
    EXPECT_OK(dec_arith(VALUE_ADD, 15, 1, 25, 2, dt(4, 2), &v, &err));
    cr_assert_str_eq(fmt(v, 2), "1.75");
    EXPECT_OK(dec_arith(VALUE_SUB, 15, 1, 225, 2, dt(4, 2), &v, &err));
    cr_assert_str_eq(fmt(v, 2), "-0.75");
    EXPECT_OK(dec_arith(VALUE_MUL, 15, 1, 15, 1, dt(4, 2), &v, &err));
    cr_assert_str_eq(fmt(v, 2), "2.25");
    EXPECT_OK(dec_arith(VALUE_MUL, -15, 1, 15, 1, dt(4, 2), &v, &err));
    cr_assert_str_eq(fmt(v, 2), "-2.25");
    /* 0.1234567891 * 0.0000000001 at scale 12: 0.00000000001234567891 rounds to 0.000000000012 */
    EXPECT_OK(dec_arith(VALUE_MUL, 1234567891, 10, 1, 10, dt(18, 12), &v, &err));
    cr_assert_str_eq(fmt(v, 12), "0.000000000012");
    EXPECT_OK(dec_arith(VALUE_MUL, 1500000000, 10, 10000000000, 10, dt(18, 12), &v, &err));
    cr_assert_str_eq(fmt(v, 12), "0.150000000000");
    /* division */
    sql_type q = dec_result_type(VALUE_DIV, dt(10, 0), dt(10, 0));
    EXPECT_OK(dec_arith(VALUE_DIV, 1, 0, 3, 0, q, &v, &err));
    cr_assert_str_eq(fmt(v, q.scale), "0.33333333");
    EXPECT_OK(dec_arith(VALUE_DIV, 2, 0, 3, 0, q, &v, &err));
    cr_assert_str_eq(fmt(v, q.scale), "0.66666667");
    EXPECT_OK(dec_arith(VALUE_DIV, -2, 0, 3, 0, q, &v, &err));
    cr_assert_str_eq(fmt(v, q.scale), "-0.66666667");
    EXPECT_OK(dec_arith(VALUE_DIV, 2, 0, -3, 0, q, &v, &err));
    cr_assert_str_eq(fmt(v, q.scale), "-0.66666667");
    EXPECT_OK(dec_arith(VALUE_DIV, 1000, 2, 400, 2, dt(11, 7), &v, &err));
    cr_assert_str_eq(fmt(v, 7), "2.5000000");
    EXPECT_OK(dec_arith(VALUE_DIV, 1, 2, 3, 0, dt(18, 2), &v, &err)); /* 0.01 / 3 = 0.0033 -> 0.00 */
    cr_assert_str_eq(fmt(v, 2), "0.00");
    EXPECT_OK(dec_arith(VALUE_DIV, 5, 3, 1, 0, dt(18, 2), &v, &err)); /* 0.005 / 1 -> 0.01 */
    cr_assert_str_eq(fmt(v, 2), "0.01");
    EXPECT_OK(dec_arith(VALUE_DIV, 1, 0, 7, 18, dt(18, 0), &v, &err)); /* 1 / 7e-18 */
    cr_assert_str_eq(fmt(v, 0), "142857142857142857");
    EXPECT_ERR(dec_arith(VALUE_DIV, 999999999999999999, 0, 1, 18, dt(18, 0), &v, &err),
               "numeric field overflow");
    EXPECT_ERR(dec_arith(VALUE_DIV, 1, 0, 0, 2, q, &v, &err), "division by zero");
    EXPECT_ERR(dec_arith(VALUE_DIV, 100000000000000000, 0, 1, 3, dt(18, 6), &v, &err),
               "numeric field overflow");
    /* modulo: sign of the dividend */
    EXPECT_OK(dec_arith(VALUE_MOD, 105, 1, 3, 0, dt(3, 1), &v, &err));
    cr_assert_str_eq(fmt(v, 1), "1.5");
    EXPECT_OK(dec_arith(VALUE_MOD, -105, 1, 3, 0, dt(3, 1), &v, &err));
    cr_assert_str_eq(fmt(v, 1), "-1.5");
    EXPECT_OK(dec_arith(VALUE_MOD, 105, 1, -3, 0, dt(3, 1), &v, &err));
    cr_assert_str_eq(fmt(v, 1), "1.5");
    EXPECT_ERR(dec_arith(VALUE_MOD, 105, 1, 0, 0, dt(3, 1), &v, &err), "division by zero");
    /* overflow beyond the result precision */
    EXPECT_ERR(dec_arith(VALUE_ADD, 999999999999999999, 0, 1, 0, dt(18, 0), &v, &err),
               "numeric field overflow");
    EXPECT_ERR(dec_arith(VALUE_MUL, 999999999999999999, 0, 999999999999999999, 0, dt(18, 0), &v, &err),
               "numeric field overflow");
    EXPECT_ERR(dec_arith(VALUE_MUL, 999999999999999999, 9, 999999999999999999, 9, dt(18, 12), &v, &err),
               "numeric field overflow");
    EXPECT_ERR(dec_arith(VALUE_ADD, 99999, 2, 1, 2, dt(5, 2), &v, &err), "numeric field overflow");
    EXPECT_OK(dec_arith(VALUE_ADD, 99999, 2, -1, 2, dt(5, 2), &v, &err));
    cr_assert_eq(v, 99998);
    /* the result scale can exceed both operands' */
    EXPECT_OK(dec_arith(VALUE_ADD, 1, 0, 1, 0, dt(10, 4), &v, &err));
    cr_assert_str_eq(fmt(v, 4), "2.0000");
}

Test(decimal, arithmetic_matches_exact_rationals) {
    /* random operands; compare against long double only where it is exact enough: small values */
    srand(11);
    for (int i = 0; i < 5000; i++) {
        int64_t a = rand() % 2000001 - 1000000, b = rand() % 2000001 - 1000000;
        int sa = rand() % 4, sb = rand() % 4;
        sql_type ta = dt(7 + sa, sa), tb = dt(7 + sb, sb);
        int64_t v;
        sql_type rt = dec_result_type(VALUE_ADD, ta, tb);
        EXPECT_OK(dec_arith(VALUE_ADD, a, (uint8_t)sa, b, (uint8_t)sb, rt, &v, &err));
        long double exact = (long double)a / dec_pow10[sa] + (long double)b / dec_pow10[sb];
        cr_assert(v == (int64_t)(exact * dec_pow10[rt.scale] + (exact < 0 ? -0.5L : 0.5L)), "%lld",
                  (long long)v);
        rt = dec_result_type(VALUE_MUL, ta, tb);
        EXPECT_OK(dec_arith(VALUE_MUL, a, (uint8_t)sa, b, (uint8_t)sb, rt, &v, &err));
        cr_assert_eq(v, a * b, "mul keeps the full scale s1+s2");
        if (b != 0) {
            rt = dec_result_type(VALUE_DIV, ta, tb);
            EXPECT_OK(dec_arith(VALUE_DIV, a, (uint8_t)sa, b, (uint8_t)sb, rt, &v, &err));
            /* exact rational check: |v * b * 10^sa - a * 10^(rt.scale + sb)| <= |b| * 10^sa / 2 */
            __int128 lhs = (__int128)v * b * dec_pow10[sa],
                     rhs = (__int128)a * dec_pow10[rt.scale] * dec_pow10[sb];
            __int128 diff = lhs - rhs, half = (__int128)(b < 0 ? -b : b) * dec_pow10[sa];
            if (diff < 0) diff = -diff;
            cr_assert(2 * diff <= half, "%lld / %lld: %lld at scale %d", (long long)a, (long long)b,
                      (long long)v, rt.scale);
        }
    }
}

Test(decimal, integer_conversions) {
    int64_t v;
    EXPECT_OK(dec_to_int(TYPE_INTEGER, 25, 1, &v, &err));
    cr_assert_eq(v, 3);
    EXPECT_OK(dec_to_int(TYPE_INTEGER, -25, 1, &v, &err));
    cr_assert_eq(v, -3);
    EXPECT_OK(dec_to_int(TYPE_INTEGER, 24, 1, &v, &err));
    cr_assert_eq(v, 2);
    EXPECT_OK(dec_to_int(TYPE_INTEGER, 249, 2, &v, &err));
    cr_assert_eq(v, 2);
    EXPECT_OK(dec_to_int(TYPE_SMALLINT, 327674, 1, &v, &err));
    cr_assert_eq(v, 32767);
    EXPECT_ERR(dec_to_int(TYPE_SMALLINT, 327675, 1, &v, &err), "smallint out of range");
    EXPECT_ERR(dec_to_int(TYPE_INTEGER, 2147483648, 0, &v, &err), "integer out of range");
    EXPECT_OK(dec_to_int(TYPE_BIGINT, 999999999999999999, 0, &v, &err));
    cr_assert_eq(v, 999999999999999999);
    EXPECT_OK(dec_from_int(5, dt(5, 2), &v, &err));
    cr_assert_eq(v, 500);
    EXPECT_OK(dec_from_int(-999, dt(5, 2), &v, &err));
    cr_assert_eq(v, -99900);
    EXPECT_ERR(dec_from_int(1000, dt(5, 2), &v, &err), "numeric field overflow");
    EXPECT_ERR(dec_from_int(INT64_MAX, dt(18, 0), &v, &err), "numeric field overflow");
    EXPECT_ERR(dec_from_int(INT64_MIN, dt(18, 18), &v, &err), "numeric field overflow");
}

Test(decimal, double_conversions) {
    cr_assert(dec_to_double(150, 2) == 1.5);
    cr_assert(dec_to_double(1, 1) == 0.1);
    cr_assert(dec_to_double(-1, 1) == -0.1);
    cr_assert(dec_to_double(123456789012345678, 18) == strtod("0.123456789012345678", NULL));
    cr_assert(dec_to_double(INT64_MAX, 3) == strtod("9223372036854775.807", NULL));
    srand(3);
    char buf[DEC_TEXT_MAX];
    for (int i = 0; i < 5000; i++) { /* correctly rounded, like strtod of the text */
        int64_t v =
            (int64_t)(((uint64_t)rand() << 40) ^ ((uint64_t)rand() << 20) ^ (uint64_t)rand()) % dec_pow10[18];
        int s = rand() % 19;
        dec_format(v, (uint8_t)s, buf);
        cr_assert(dec_to_double(v, (uint8_t)s) == strtod(buf, NULL), "%s", buf);
    }
    int64_t v;
    EXPECT_OK(dec_from_double(2.675, dt(10, 2), &v, &err)); /* PostgreSQL: through 15 digits */
    cr_assert_eq(v, 268);
    EXPECT_OK(dec_from_double(0.1, dt(5, 4), &v, &err));
    cr_assert_eq(v, 1000);
    EXPECT_OK(dec_from_double(-0.5, dt(5, 0), &v, &err));
    cr_assert_eq(v, -1);
    EXPECT_OK(dec_from_double(1.0 / 3, dt(18, 17), &v, &err));
    cr_assert_eq(v, 33333333333333300);
    EXPECT_OK(dec_from_double(1e-300, dt(5, 2), &v, &err));
    cr_assert_eq(v, 0);
    EXPECT_ERR(dec_from_double(1e20, dt(18, 0), &v, &err), "numeric field overflow");
    EXPECT_ERR(dec_from_double(1e300 * 1e300, dt(18, 0), &v, &err), "numeric field overflow");
    EXPECT_ERR(dec_from_double(-(1e300 * 1e300), dt(18, 0), &v, &err), "numeric field overflow");
    double nan = 0.0;
    nan = nan / nan;
    EXPECT_ERR(dec_from_double(nan, dt(18, 0), &v, &err), "cannot convert NaN to numeric");
    EXPECT_ERR(dec_from_double(999.995, dt(5, 2), &v, &err), "numeric field overflow");
}

/* dec_from_double takes a short path for most values; it must agree with the definition (the
** value rounded to 15 significant digits as text, then parsed) on every value and scale. */
Test(decimal, double_conversion_agrees_with_the_15_digit_text) {
    srand(11);
    char buf[64];
    for (int i = 0; i < 400000; i++) {
        int s = rand() % 19, p = s + rand() % (19 - s);
        if (p == 0) p = 1;
        double mag = pow(10.0, rand() % 36 - 18);
        double d = ((double)rand() / RAND_MAX - 0.5) * 2 * mag;
        if (i % 4 == 1) d = round(d * pow(10.0, s)) / pow(10.0, s);         /* on the scale's grid */
        if (i % 4 == 2) d = (floor(d * pow(10.0, s)) + 0.5) / pow(10.0, s); /* halfway between */
        int64_t got = 0, want = 0;
        strata_err e1 = {0}, e2 = {0};
        int rc = dec_from_double(d, dt((uint8_t)p, (uint8_t)s), &got, &e1);
        int n = snprintf(buf, sizeof buf, "%.15g", d);
        int rw = dec_parse(buf, (size_t)n, (uint8_t)p, (uint8_t)s, &want, &e2);
        cr_assert_eq(rc, rw, "%.17g into (%d,%d): status %d, the text gives %d", d, p, s, rc, rw);
        if (rc == STRATA_OK) cr_assert_eq(got, want, "%.17g into (%d,%d): %lld, the text gives %lld", d, p, s,
                                          (long long)got, (long long)want);
    }
}

Test(decimal, sums_and_averages) {
    int128 acc = 0;
    for (int i = 0; i < 1000; i++)
        sum_add(&acc, 999999999999999999);
    int64_t v;
    EXPECT_ERR(sum_to_dec(acc, 18, &v, &err), "numeric field overflow");
    EXPECT_ERR(sum_to_bigint(acc, &v, &err), "bigint out of range");
    char buf[48];
    int128_format(acc, 2, buf);
    cr_assert_str_eq(buf, "9999999999999999990.00");
    for (int i = 0; i < 1000; i++)
        sum_add(&acc, -999999999999999999);
    EXPECT_OK(sum_to_dec(acc, 18, &v, &err));
    cr_assert_eq(v, 0);
    acc = 0;
    sum_add(&acc, INT64_MAX);
    sum_add(&acc, INT64_MAX);
    EXPECT_ERR(sum_to_bigint(acc, &v, &err), "bigint out of range");
    sum_add(&acc, INT64_MIN);
    sum_add(&acc, INT64_MIN);
    sum_add(&acc, -5);
    EXPECT_OK(sum_to_bigint(acc, &v, &err));
    cr_assert_eq(v, -7);
    int128_format(-(int128)12345, 3, buf);
    cr_assert_str_eq(buf, "-12.345");
    /* averages, rounded half away from zero */
    EXPECT_OK(dec_avg(10, 3, 2, dt(18, 6), &v, &err)); /* 0.10 / 3 */
    cr_assert_str_eq(fmt(v, 6), "0.033333");
    EXPECT_OK(dec_avg(5, 2, 0, dt(18, 0), &v, &err));
    cr_assert_eq(v, 3);
    EXPECT_OK(dec_avg(-5, 2, 0, dt(18, 0), &v, &err));
    cr_assert_eq(v, -3);
    EXPECT_OK(dec_avg(2, 3, 0, dt(18, 6), &v, &err));
    cr_assert_str_eq(fmt(v, 6), "0.666667");
    EXPECT_OK(dec_avg(12345, 1, 4, dt(18, 2), &v, &err)); /* scale down */
    cr_assert_str_eq(fmt(v, 2), "1.23");
    int128 huge = (int128)dec_pow10[18] * dec_pow10[12]; /* 10^30 over 10^15 rows */
    EXPECT_OK(dec_avg(huge, 1000000000000000, 0, dt(18, 2), &v, &err));
    cr_assert_str_eq(fmt(v, 2), "1000000000000000.00");
    EXPECT_ERR(dec_avg(huge, 1, 0, dt(18, 2), &v, &err), "numeric field overflow");
    err_clear(&err);
    cr_assert_eq(dec_avg(1, 0, 0, dt(18, 2), &v, &err), STRATA_MISUSE);
    cr_assert(avg_to_double(7, 2, 0) == 3.5);
    cr_assert(avg_to_double(-7, 2, 1) == -0.35);
    cr_assert(avg_to_double(huge, 1000000000000000, 0) == 1e15);
}
