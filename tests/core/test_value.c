/*
** test_value.c -- checked integer arithmetic, DOUBLE parsing and shortest output, BOOLEAN, VARCHAR(n)
** and BLOB rules, and the tagged sql_value: comparison, hashing, casts, text, arithmetic and the
** implicit-cast type rules.
*/
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "value.h"

#include "helpers/expect.h"

static strata_err err;

/* ---- integers ---- */

Test(integer, arithmetic_and_overflow) {
    static const struct {
        value_op op;
        uint8_t id;
        int64_t a, b, want;
        const char *error;
    } cases[] = {
        {VALUE_ADD, TYPE_SMALLINT, 32767, 0, 32767, NULL},
        {VALUE_ADD, TYPE_SMALLINT, 32767, 1, 0, "smallint out of range"},
        {VALUE_SUB, TYPE_SMALLINT, -32768, 1, 0, "smallint out of range"},
        {VALUE_MUL, TYPE_SMALLINT, 256, 128, 0, "smallint out of range"},
        {VALUE_DIV, TYPE_SMALLINT, -32768, -1, 0, "smallint out of range"},
        {VALUE_MUL, TYPE_SMALLINT, -128, 256, -32768, NULL},
        {VALUE_ADD, TYPE_INTEGER, 2147483647, 1, 0, "integer out of range"},
        {VALUE_SUB, TYPE_INTEGER, -2147483648LL, 1, 0, "integer out of range"},
        {VALUE_MUL, TYPE_INTEGER, 65536, 65536, 0, "integer out of range"},
        {VALUE_MUL, TYPE_INTEGER, 65536, 32767, 2147418112, NULL},
        {VALUE_DIV, TYPE_INTEGER, -2147483648LL, -1, 0, "integer out of range"},
        {VALUE_MOD, TYPE_INTEGER, -2147483648LL, -1, 0, NULL},
        {VALUE_ADD, TYPE_BIGINT, INT64_MAX, 1, 0, "bigint out of range"},
        {VALUE_ADD, TYPE_BIGINT, INT64_MAX, INT64_MIN, -1, NULL},
        {VALUE_SUB, TYPE_BIGINT, INT64_MIN, 1, 0, "bigint out of range"},
        {VALUE_SUB, TYPE_BIGINT, 0, INT64_MIN, 0, "bigint out of range"},
        {VALUE_MUL, TYPE_BIGINT, INT64_MIN, -1, 0, "bigint out of range"},
        {VALUE_MUL, TYPE_BIGINT, 4294967296LL, 4294967296LL, 0, "bigint out of range"},
        {VALUE_MUL, TYPE_BIGINT, 3037000499LL, 3037000499LL, 9223372030926249001LL, NULL},
        {VALUE_DIV, TYPE_BIGINT, INT64_MIN, -1, 0, "bigint out of range"},
        {VALUE_DIV, TYPE_BIGINT, INT64_MIN, 1, INT64_MIN, NULL},
        {VALUE_DIV, TYPE_BIGINT, INT64_MAX, -1, -INT64_MAX, NULL},
        {VALUE_MOD, TYPE_BIGINT, INT64_MIN, -1, 0, NULL},
        {VALUE_MOD, TYPE_BIGINT, INT64_MIN, 10, -8, NULL},
        {VALUE_DIV, TYPE_INTEGER, 7, 2, 3, NULL},
        {VALUE_DIV, TYPE_INTEGER, -7, 2, -3, NULL}, /* toward zero */
        {VALUE_DIV, TYPE_INTEGER, 7, -2, -3, NULL},
        {VALUE_DIV, TYPE_INTEGER, -7, -2, 3, NULL},
        {VALUE_MOD, TYPE_INTEGER, 7, 3, 1, NULL},
        {VALUE_MOD, TYPE_INTEGER, -7, 3, -1, NULL}, /* the sign of the dividend */
        {VALUE_MOD, TYPE_INTEGER, 7, -3, 1, NULL},
        {VALUE_DIV, TYPE_INTEGER, 1, 0, 0, "division by zero"},
        {VALUE_MOD, TYPE_INTEGER, 1, 0, 0, "division by zero"},
        {VALUE_DIV, TYPE_BIGINT, 0, 0, 0, "division by zero"},
        {VALUE_DIV, TYPE_SMALLINT, 0, 0, 0, "division by zero"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t v = 12345;
        err_clear(&err);
        int rc = int_arith(cases[i].op, cases[i].id, cases[i].a, cases[i].b, &v, &err);
        if (cases[i].error) {
            cr_assert_eq(rc, STRATA_ERROR, "case %zu", i);
            cr_assert_str_eq(err.msg, cases[i].error, "case %zu", i);
            cr_assert_eq(v, 12345, "case %zu: out written on error", i);
        } else {
            cr_assert_eq(rc, STRATA_OK, "case %zu: %s", i, err.msg);
            cr_assert_eq(v, cases[i].want, "case %zu: %lld", i, (long long)v);
        }
    }
    int64_t v;
    EXPECT_OK(int_neg(TYPE_INTEGER, 5, &v, &err));
    cr_assert_eq(v, -5);
    EXPECT_OK(int_neg(TYPE_INTEGER, -2147483647, &v, &err));
    EXPECT_ERR(int_neg(TYPE_INTEGER, -2147483648LL, &v, &err), "integer out of range");
    EXPECT_ERR(int_neg(TYPE_SMALLINT, -32768, &v, &err), "smallint out of range");
    EXPECT_ERR(int_neg(TYPE_BIGINT, INT64_MIN, &v, &err), "bigint out of range");
    EXPECT_OK(int_check_range(TYPE_SMALLINT, -32768, &err));
    EXPECT_ERR(int_check_range(TYPE_SMALLINT, 32768, &err), "smallint out of range");
    EXPECT_ERR(int_check_range(TYPE_INTEGER, 2147483648LL, &err), "integer out of range");
}

Test(integer, random_arithmetic_matches_wide_arithmetic) {
    srand(1);
    for (int i = 0; i < 100000; i++) {
        int64_t a = (int64_t)(((uint64_t)rand() << 33) ^ ((uint64_t)rand() << 2) ^ (uint64_t)rand());
        int64_t b = (int64_t)(((uint64_t)rand() << 33) ^ ((uint64_t)rand() << 2) ^ (uint64_t)rand());
        if (i & 1) b >>= 32;
        value_op op = (value_op)(i % 5);
        __int128 wide = op == VALUE_ADD   ? (__int128)a + b
                        : op == VALUE_SUB ? (__int128)a - b
                        : op == VALUE_MUL ? (__int128)a * b
                        : b == 0          ? 0
                        : op == VALUE_DIV ? (__int128)a / b
                                          : (__int128)a % b;
        int64_t v;
        err_clear(&err);
        int rc = int_arith(op, TYPE_BIGINT, a, b, &v, &err);
        if ((op == VALUE_DIV || op == VALUE_MOD) && b == 0)
            cr_assert_str_eq(err.msg, "division by zero");
        else if (wide > INT64_MAX || wide < INT64_MIN)
            cr_assert_eq(rc, STRATA_ERROR);
        else
            cr_assert(rc == STRATA_OK && v == (int64_t)wide);
    }
}

Test(integer, parse_and_format) {
    static const struct {
        const char *text;
        uint8_t id;
        int64_t want;
    } ok[] = {{"42", TYPE_INTEGER, 42},
              {" -17 ", TYPE_INTEGER, -17},
              {"+5", TYPE_INTEGER, 5},
              {"2147483647", TYPE_INTEGER, 2147483647},
              {"-2147483648", TYPE_INTEGER, -2147483648LL},
              {"-9223372036854775808", TYPE_BIGINT, INT64_MIN},
              {"9223372036854775807", TYPE_BIGINT, INT64_MAX},
              {"-32768", TYPE_SMALLINT, -32768},
              {"007", TYPE_SMALLINT, 7},
              {"\t0\n", TYPE_BIGINT, 0}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int64_t v;
        EXPECT_OK(int_parse(ok[i].id, ok[i].text, strlen(ok[i].text), &v, &err));
        cr_assert_eq(v, ok[i].want, "%s", ok[i].text);
    }
    int64_t v;
    EXPECT_ERR(int_parse(TYPE_INTEGER, "abc", 3, &v, &err), "invalid input syntax for type integer: \"abc\"");
    EXPECT_ERR(int_parse(TYPE_INTEGER, "", 0, &v, &err), "invalid input syntax for type integer: \"\"");
    EXPECT_ERR(int_parse(TYPE_INTEGER, "1.0", 3, &v, &err), "invalid input syntax for type integer: \"1.0\"");
    EXPECT_ERR(int_parse(TYPE_INTEGER, "1e3", 3, &v, &err), "invalid input syntax for type integer: \"1e3\"");
    EXPECT_ERR(int_parse(TYPE_INTEGER, "12 3", 4, &v, &err),
               "invalid input syntax for type integer: \"12 3\"");
    EXPECT_ERR(int_parse(TYPE_INTEGER, "-", 1, &v, &err), "invalid input syntax for type integer: \"-\"");
    EXPECT_ERR(int_parse(TYPE_BIGINT, "--1", 3, &v, &err), "invalid input syntax for type bigint: \"--1\"");
    EXPECT_ERR(int_parse(TYPE_SMALLINT, "x", 1, &v, &err), "invalid input syntax for type smallint: \"x\"");
    EXPECT_ERR(int_parse(TYPE_INTEGER, "2147483648", 10, &v, &err),
               "value \"2147483648\" is out of range for type integer");
    EXPECT_ERR(int_parse(TYPE_SMALLINT, "32768", 5, &v, &err),
               "value \"32768\" is out of range for type smallint");
    EXPECT_ERR(int_parse(TYPE_BIGINT, "9223372036854775808", 19, &v, &err),
               "value \"9223372036854775808\" is out of range for type bigint");
    EXPECT_ERR(int_parse(TYPE_BIGINT, "-99999999999999999999", 21, &v, &err),
               "value \"-99999999999999999999\" is out of range for type bigint");
    char buf[21];
    cr_assert_eq(int_format(INT64_MIN, buf), 20);
    cr_assert_str_eq(buf, "-9223372036854775808");
    int_format(0, buf);
    cr_assert_str_eq(buf, "0");
    int_format(-1, buf);
    cr_assert_str_eq(buf, "-1");
    int_format(INT64_MAX, buf);
    cr_assert_str_eq(buf, "9223372036854775807");
}

/* ---- doubles ---- */

static const char *dfmt(double d) {
    static char buf[4][32];
    static int i;
    i = (i + 1) % 4;
    dbl_format(d, buf[i]);
    return buf[i];
}

Test(double, format_like_postgresql) {
    static const struct {
        double d;
        const char *want;
    } cases[] = {
        {0.1, "0.1"},
        {1e20, "1e+20"},
        {1.5e-7, "1.5e-07"},
        {100, "100"},
        {0, "0"},
        {1e15, "1e+15"},
        {123456789012345.0, "123456789012345"},
        {1e14, "100000000000000"},
        {999999999999999.0, "999999999999999"},
        {1234567890123456.0, "1.234567890123456e+15"},
        {0.0001, "0.0001"},
        {0.00012345, "0.00012345"},
        {0.00001, "1e-05"},
        {1.0 / 3, "0.3333333333333333"},
        {2.0 / 3, "0.6666666666666666"},
        {1e100, "1e+100"},
        {5e-324, "5e-324"},
        {DBL_MAX, "1.7976931348623157e+308"},
        {DBL_MIN, "2.2250738585072014e-308"},
        {-1.5, "-1.5"},
        {3.14, "3.14"},
        {0.1 + 0.2, "0.30000000000000004"},
        {123.456, "123.456"},
        {1234567.0, "1234567"},
        {12345678901234567890.0, "1.2345678901234567e+19"},
        {-0.001, "-0.001"},
        {1.5, "1.5"},
        {9007199254740993.0, "9.007199254740992e+15"},
        {100.5, "100.5"},
        {-1e-10, "-1e-10"},
        {1e-100, "1e-100"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_assert_str_eq(dfmt(cases[i].d), cases[i].want, "case %zu", i);
    cr_assert_str_eq(dfmt(-0.0), "-0");
    cr_assert_str_eq(dfmt(NAN), "NaN");
    cr_assert_str_eq(dfmt(INFINITY), "Infinity");
    cr_assert_str_eq(dfmt(-INFINITY), "-Infinity");
}

Test(double, random_doubles_round_trip_shortest) {
    srand(2);
    char buf[32], shorter[40];
    for (int i = 0; i < 20000; i++) {
        uint64_t bits = ((uint64_t)rand() << 42) ^ ((uint64_t)rand() << 21) ^ (uint64_t)rand();
        double d;
        memcpy(&d, &bits, sizeof d);
        if (isnan(d) || isinf(d)) continue;
        if (i % 4 == 0) d = (double)(rand() % 1000000) / 1000; /* short decimals too */
        size_t n = dbl_format(d, buf);
        cr_assert(n < 32);
        double back;
        EXPECT_OK(dbl_parse(buf, n, &back, &err));
        cr_assert(memcmp(&back, &d, sizeof d) == 0 || (d == 0 && back == 0), "%s does not read back", buf);
        /* shortest: one significant digit fewer does not read back */
        char sig[32];
        int digits = 0;
        for (const char *p = buf; *p && *p != 'e'; p++)
            if (*p >= '0' && *p <= '9' && (digits > 0 || *p != '0')) sig[digits++] = *p;
        while (digits > 0 && sig[digits - 1] == '0')
            digits--;
        if (digits > 1 && d != 0) {
            snprintf(shorter, sizeof shorter, "%.*e", digits - 2, d);
            cr_assert(strtod(shorter, NULL) != d, "%s is not the shortest (%s reads back)", buf, shorter);
        }
    }
}

Test(double, parse) {
    static const struct {
        const char *text;
        double want;
    } ok[] = {{"1.5", 1.5},      {" 2 ", 2}, {"1e308", 1e308},     {".5", 0.5},  {"5.", 5},
              {"-1E-3", -0.001}, {"+3", 3},  {"4.9e-324", 5e-324}, {"0x10", 16}, {"1e-310", 1e-310}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        double d;
        EXPECT_OK(dbl_parse(ok[i].text, strlen(ok[i].text), &d, &err));
        cr_assert(d == ok[i].want, "%s", ok[i].text);
    }
    double d;
    const char *inf[] = {"Infinity", "infinity", "inf", "+inf", "+Infinity", " INF "};
    for (size_t i = 0; i < sizeof inf / sizeof inf[0]; i++) {
        EXPECT_OK(dbl_parse(inf[i], strlen(inf[i]), &d, &err));
        cr_assert(isinf(d) && d > 0, "%s", inf[i]);
    }
    EXPECT_OK(dbl_parse("-Infinity", 9, &d, &err));
    cr_assert(isinf(d) && d < 0);
    EXPECT_OK(dbl_parse("-inf", 4, &d, &err));
    cr_assert(isinf(d) && d < 0);
    EXPECT_OK(dbl_parse("NaN", 3, &d, &err));
    cr_assert(isnan(d));
    EXPECT_OK(dbl_parse("nan", 3, &d, &err));
    cr_assert(isnan(d));
    EXPECT_OK(dbl_parse("-0", 2, &d, &err));
    cr_assert(d == 0 && signbit(d));
    const char *bad[] = {"abc", "", "1.5x", "-nan", "nan(1)", "1 2", ".", "e5", "infinit", "- 1", "1e"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[128];
        snprintf(want, sizeof want, "invalid input syntax for type double precision: \"%s\"", bad[i]);
        EXPECT_ERR(dbl_parse(bad[i], strlen(bad[i]), &d, &err), want);
    }
    char longnum[400] = "0.";
    memset(longnum + 2, '0', 300);
    strcpy(longnum + 302, "15e301"); /* 0.000...15e301 = 1.5 */
    EXPECT_OK(dbl_parse(longnum, strlen(longnum), &d, &err));
    cr_assert(d == 1.5);
    EXPECT_ERR(dbl_parse("1e400", 5, &d, &err), "\"1e400\" is out of range for type double precision");
    EXPECT_ERR(dbl_parse("-1e400", 6, &d, &err), "\"-1e400\" is out of range for type double precision");
    EXPECT_ERR(dbl_parse("1e-400", 6, &d, &err), "\"1e-400\" is out of range for type double precision");
}

Test(double, arithmetic_errors) {
    double d;
    EXPECT_OK(dbl_arith(VALUE_ADD, 0.1, 0.2, &d, &err));
    cr_assert(d == 0.1 + 0.2);
    EXPECT_OK(dbl_arith(VALUE_DIV, 1, 4, &d, &err));
    cr_assert(d == 0.25);
    EXPECT_ERR(dbl_arith(VALUE_MUL, 1e308, 10, &d, &err), "value out of range: overflow");
    EXPECT_ERR(dbl_arith(VALUE_ADD, 1e308, 1e308, &d, &err), "value out of range: overflow");
    EXPECT_ERR(dbl_arith(VALUE_SUB, -1e308, 1e308, &d, &err), "value out of range: overflow");
    EXPECT_ERR(dbl_arith(VALUE_DIV, 1e308, 1e-308, &d, &err), "value out of range: overflow");
    EXPECT_ERR(dbl_arith(VALUE_MUL, 1e-308, 1e-308, &d, &err), "value out of range: underflow");
    EXPECT_ERR(dbl_arith(VALUE_DIV, 1e-308, 1e308, &d, &err), "value out of range: underflow");
    EXPECT_ERR(dbl_arith(VALUE_DIV, 1, 0, &d, &err), "division by zero");
    EXPECT_ERR(dbl_arith(VALUE_DIV, 0, 0, &d, &err), "division by zero");
    EXPECT_ERR(dbl_arith(VALUE_MOD, 5, 3, &d, &err),
               "operator does not exist: double precision % double precision");
    EXPECT_OK(dbl_arith(VALUE_ADD, INFINITY, 1, &d, &err));
    cr_assert(isinf(d));
    EXPECT_OK(dbl_arith(VALUE_DIV, NAN, 0, &d, &err));
    cr_assert(isnan(d));
    EXPECT_OK(dbl_arith(VALUE_DIV, 1, INFINITY, &d, &err));
    cr_assert(d == 0);
    EXPECT_OK(dbl_arith(VALUE_MUL, 0, 1e-308, &d, &err));
    cr_assert(d == 0);
}

Test(double, to_integer_rounds_half_to_even) {
    static const struct {
        double d;
        uint8_t id;
        int64_t want;
    } ok[] = {{2.5, TYPE_INTEGER, 2},
              {3.5, TYPE_INTEGER, 4},
              {-2.5, TYPE_INTEGER, -2},
              {-3.5, TYPE_INTEGER, -4},
              {0.5, TYPE_INTEGER, 0},
              {-0.5, TYPE_INTEGER, 0},
              {1.4999, TYPE_INTEGER, 1},
              {1.5000001, TYPE_INTEGER, 2},
              {2147483647.4, TYPE_INTEGER, 2147483647},
              {-2147483648.5, TYPE_INTEGER, -2147483648LL},
              {32767.4, TYPE_SMALLINT, 32767},
              {-9223372036854775808.0, TYPE_BIGINT, INT64_MIN},
              {9223372036854774784.0, TYPE_BIGINT, 9223372036854774784LL},
              {4503599627370497.0, TYPE_BIGINT, 4503599627370497LL},
              {1e15 + 0.5, TYPE_BIGINT, 1000000000000000LL}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int64_t v;
        EXPECT_OK(dbl_to_int(ok[i].id, ok[i].d, &v, &err));
        cr_assert_eq(v, ok[i].want, "case %zu: %lld", i, (long long)v);
    }
    int64_t v;
    EXPECT_ERR(dbl_to_int(TYPE_INTEGER, 2147483647.5, &v, &err), "integer out of range");
    EXPECT_ERR(dbl_to_int(TYPE_INTEGER, -2147483649.0, &v, &err), "integer out of range");
    EXPECT_ERR(dbl_to_int(TYPE_SMALLINT, 32767.5, &v, &err), "smallint out of range");
    EXPECT_ERR(dbl_to_int(TYPE_BIGINT, 9223372036854775808.0, &v, &err), "bigint out of range");
    EXPECT_ERR(dbl_to_int(TYPE_BIGINT, 9.3e18, &v, &err), "bigint out of range");
    EXPECT_ERR(dbl_to_int(TYPE_BIGINT, NAN, &v, &err), "bigint out of range");
    EXPECT_ERR(dbl_to_int(TYPE_INTEGER, INFINITY, &v, &err), "integer out of range");
    EXPECT_ERR(dbl_to_int(TYPE_INTEGER, -INFINITY, &v, &err), "integer out of range");
    /* against a simple reference for many halves and near-halves */
    for (int i = -2000; i <= 2000; i++) {
        double d = i / 4.0;
        int64_t floor_i = (int64_t)(d < 0 && d != (int64_t)d ? (int64_t)d - 1 : (int64_t)d);
        double f = d - (double)floor_i;
        int64_t want = f < 0.5 ? floor_i : f > 0.5 ? floor_i + 1 : (floor_i % 2 == 0 ? floor_i : floor_i + 1);
        EXPECT_OK(dbl_to_int(TYPE_INTEGER, d, &v, &err));
        cr_assert_eq(v, want, "%g", d);
        cr_assert(dbl_round_half_even(d) == (double)want);
    }
    cr_assert(signbit(dbl_round_half_even(-0.4)));
}

/* ---- booleans, strings, blobs ---- */

Test(boolean, parse_like_postgresql) {
    const char *yes[] = {"t",   "true", "TRUE", "True", "tr", "tru",    "y",
                         "yes", "YE",   "on",   "ON",   "1",  " true ", "\tyes"};
    const char *no[] = {"f", "false", "FALSE", "fa", "fals", "n", "no", "NO", "off", "of", "OFF", "0", " f "};
    bool b;
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        EXPECT_OK(bool_parse(yes[i], strlen(yes[i]), &b, &err));
        cr_assert(b, "%s", yes[i]);
    }
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        EXPECT_OK(bool_parse(no[i], strlen(no[i]), &b, &err));
        cr_assert(!b, "%s", no[i]);
    }
    const char *bad[] = {"o", "maybe", "", "truee", "2", "10", "yess", "nope", "offf", "t rue", "-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[128];
        snprintf(want, sizeof want, "invalid input syntax for type boolean: \"%s\"", bad[i]);
        EXPECT_ERR(bool_parse(bad[i], strlen(bad[i]), &b, &err), want);
    }
}

Test(varchar, length_rules) {
    size_t n;
    EXPECT_OK(varchar_check("hello", 5, 5, false, &n, &err));
    cr_assert_eq(n, 5);
    EXPECT_OK(varchar_check("hello", 5, 0, false, &n, &err));
    cr_assert_eq(n, 5);
    n = 99;
    EXPECT_ERR(varchar_check("hello!", 6, 5, false, &n, &err),
               "value too long for type character varying(5)");
    cr_assert_eq(n, 99, "the length is left alone on error");
    EXPECT_OK(varchar_check("hello!", 6, 5, true, &n, &err)); /* explicit CAST truncates */
    cr_assert_eq(n, 5);
    EXPECT_OK(varchar_check("hi     ", 7, 2, false, &n, &err)); /* excess spaces are cut */
    cr_assert_eq(n, 2);
    EXPECT_ERR(varchar_check("hi   x", 6, 2, false, &n, &err),
               "value too long for type character varying(2)");
    const char *utf = "h\xc3\xa9llo"; /* héllo: 6 bytes, 5 characters */
    EXPECT_OK(varchar_check(utf, 6, 5, false, &n, &err));
    cr_assert_eq(n, 6);
    EXPECT_OK(varchar_check(utf, 6, 2, true, &n, &err));
    cr_assert_eq(n, 3);
    EXPECT_ERR(varchar_check(utf, 6, 4, false, &n, &err), "value too long for type character varying(4)");
    cr_assert_eq(utf8_length(utf, 6), 5);
    cr_assert_eq(utf8_length("\xe2\x82\xac\xf0\x9f\x98\x80", 7), 2);
    cr_assert_eq(utf8_length("", 0), 0);
}

Test(blob, parse_and_format) {
    arena a;
    arena_init(&a, 0);
    sstr s;
    EXPECT_OK(blob_parse("\\x0102ff", 8, &a, &s, &err));
    cr_assert_eq(s.len, 3);
    cr_assert(memcmp(sstr_data(&s), "\x01\x02\xff", 3) == 0);
    EXPECT_OK(blob_parse("\\xABcd", 6, &a, &s, &err));
    cr_assert(s.len == 2 && memcmp(sstr_data(&s), "\xab\xcd", 2) == 0);
    EXPECT_OK(blob_parse("\\x01 02\n03", 10, &a, &s, &err));
    cr_assert(s.len == 3 && memcmp(sstr_data(&s), "\x01\x02\x03", 3) == 0);
    EXPECT_OK(blob_parse("\\x", 2, &a, &s, &err));
    cr_assert_eq(s.len, 0);
    EXPECT_OK(blob_parse("abc\\\\d\\001\\377", 14, &a, &s, &err));
    cr_assert(s.len == 7 && memcmp(sstr_data(&s), "abc\\d\x01\xff", 7) == 0, "%u", s.len);
    const char *long_hex = "\\x000102030405060708090a0b0c0d0e0f10";
    EXPECT_OK(blob_parse(long_hex, strlen(long_hex), &a, &s, &err));
    cr_assert_eq(s.len, 17);
    for (int i = 0; i < 17; i++)
        cr_assert_eq(sstr_data(&s)[i], i);
    EXPECT_ERR(blob_parse("\\x0", 3, &a, &s, &err), "invalid hexadecimal data: odd number of digits");
    EXPECT_ERR(blob_parse("\\x0g", 4, &a, &s, &err), "invalid hexadecimal digit: \"g\"");
    EXPECT_ERR(blob_parse("\\xzz", 4, &a, &s, &err), "invalid hexadecimal digit: \"z\"");
    EXPECT_ERR(blob_parse("\\9", 2, &a, &s, &err), "invalid input syntax for type bytea");
    EXPECT_ERR(blob_parse("ab\\", 3, &a, &s, &err), "invalid input syntax for type bytea");
    EXPECT_ERR(blob_parse("\\400", 4, &a, &s, &err), "invalid input syntax for type bytea");
    err_clear(&err);
    cr_assert_eq(blob_parse(long_hex, strlen(long_hex), NULL, &s, &err), STRATA_MISUSE);
    char buf[64];
    cr_assert_eq(blob_format("\x01\x02\xff", 3, buf), 8);
    cr_assert_str_eq(buf, "\\x0102ff");
    blob_format("", 0, buf);
    cr_assert_str_eq(buf, "\\x");
    arena_free(&a);
}

/* ---- sql_value: comparison and hashing ---- */

static sql_value I(int64_t v) { return value_int(TYPE_INTEGER, v); }
static sql_value BI(int64_t v) { return value_int(TYPE_BIGINT, v); }
static sql_value SI(int64_t v) { return value_int(TYPE_SMALLINT, v); }
static sql_value DEC(int64_t v, int p, int s) { return value_decimal(v, (uint8_t)p, (uint8_t)s); }
static sql_value DBL(double d) { return value_double(d); }
static sql_value TXT(const char *s) { return value_text(s, (uint32_t)strlen(s)); }

static sql_value DATEV(const char *s) {
    int32_t d;
    EXPECT_OK(date_parse(s, strlen(s), &d, &err));
    return value_date(d);
}

static sql_value TSV(const char *s) {
    int64_t t;
    EXPECT_OK(ts_parse(s, strlen(s), &t, &err));
    return value_timestamp(t);
}

static sql_value IVV(const char *s) {
    sql_interval iv;
    EXPECT_OK(interval_parse(s, strlen(s), NULL, &iv, &err));
    return value_interval(iv);
}

static int cmp(sql_value a, sql_value b) { return value_compare(&a, &b); }

Test(value, compare) {
    cr_assert_eq(cmp(I(5), BI(5)), 0);
    cr_assert_eq(cmp(SI(3), BI(4)), -1);
    cr_assert_eq(cmp(BI(INT64_MAX), I(-1)), 1);
    cr_assert_eq(cmp(DEC(500, 5, 2), I(5)), 0);
    cr_assert_eq(cmp(DEC(501, 5, 2), I(5)), 1);
    cr_assert_eq(cmp(DEC(15, 2, 1), DEC(150, 5, 2)), 0);
    cr_assert_eq(cmp(DEC(-1, 5, 2), DEC(0, 5, 0)), -1);
    cr_assert_eq(cmp(DEC(15, 2, 1), DBL(1.5)), 0);
    cr_assert_eq(cmp(DEC(1, 2, 1), DBL(0.1)), 0); /* as doubles, PostgreSQL's implicit cast */
    cr_assert_eq(cmp(BI(9007199254740993), DBL(9007199254740992.0)), 0);
    cr_assert_eq(cmp(I(1), DBL(1.5)), -1);
    cr_assert_eq(cmp(DBL(NAN), DBL(1e308)), 1);
    cr_assert_eq(cmp(DBL(NAN), DBL(INFINITY)), 1);
    cr_assert_eq(cmp(DBL(NAN), DBL(NAN)), 0);
    cr_assert_eq(cmp(DBL(-0.0), DBL(0.0)), 0);
    cr_assert_eq(cmp(DBL(-INFINITY), I(INT32_MIN)), -1);
    cr_assert_eq(cmp(TXT("abc"), TXT("abd")), -1);
    cr_assert_eq(cmp(TXT("ab"), TXT("abc")), -1);
    cr_assert_eq(cmp(TXT(""), TXT("a")), -1);
    cr_assert_eq(cmp(TXT("\xff"), TXT("a")), 1); /* bytes compare unsigned */
    cr_assert_eq(cmp(TXT("a long string over twelve bytes"), TXT("a long string over twelve bytes")), 0);
    cr_assert_eq(cmp(TXT("a long string over twelve bytes"), TXT("a long string over twelve bytez")), -1);
    cr_assert_eq(cmp(TXT("abcdefghijklm"), TXT("abcdefghijkl")), 1);
    cr_assert_eq(cmp(value_blob("\x01\x02", 2), value_blob("\x01", 1)), 1);
    cr_assert_eq(cmp(DATEV("2024-01-02"), TSV("2024-01-02 00:00:00")), 0);
    cr_assert_eq(cmp(DATEV("2024-01-02"), TSV("2024-01-02 00:00:01")), -1);
    cr_assert_eq(cmp(TSV("2024-01-01 23:59:59"), DATEV("2024-01-02")), -1);
    cr_assert_eq(cmp(IVV("1 mon"), IVV("30 days")), 0);
    cr_assert_eq(cmp(IVV("1 mon"), IVV("31 days")), -1);
    cr_assert_eq(cmp(value_bool(false), value_bool(true)), -1);
    sql_value n = value_null(sql_type_make(TYPE_INTEGER));
    cr_assert_eq(cmp(n, I(1)), 1); /* NULLS LAST */
    cr_assert_eq(cmp(I(1), n), -1);
    cr_assert_eq(cmp(n, value_null(sql_type_make(TYPE_NULL))), 0);
    cr_assert_eq(cmp(value_bool(true), TXT("a")), -1); /* unrelated types: by type id */
    sql_value seven = I(7), seven_dec = DEC(700, 3, 2);
    cr_assert(value_equal(&seven, &seven_dec));
    /* a sort by value_compare puts doubles in PostgreSQL's order */
    double in[] = {3, NAN, -INFINITY, 0.0, INFINITY, -1, -0.0, 2.5, NAN, -1e308};
    sql_value vs[10];
    for (int i = 0; i < 10; i++)
        vs[i] = DBL(in[i]);
    for (int i = 1; i < 10; i++)
        for (int j = i; j > 0 && value_compare(&vs[j - 1], &vs[j]) > 0; j--) {
            sql_value t = vs[j];
            vs[j] = vs[j - 1];
            vs[j - 1] = t;
        }
    const char *want[] = {"-Infinity", "-1e+308", "-1", "0", "-0", "2.5", "3", "Infinity", "NaN", "NaN"};
    char buf[32];
    for (int i = 0; i < 10; i++) {
        dbl_format(vs[i].v.d, buf);
        if (i == 3 || i == 4)
            cr_assert(vs[i].v.d == 0);
        else
            cr_assert_str_eq(buf, want[i], "position %d", i);
    }
}

static uint64_t h(sql_value v) { return value_hash(&v); }

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

Test(value, hash_is_consistent_with_equality) {
    cr_assert_eq(h(I(5)), h(BI(5)));
    cr_assert_eq(h(SI(5)), h(BI(5)));
    cr_assert_eq(h(SI(-1)), h(BI(-1)));
    cr_assert_eq(h(DEC(150, 5, 2)), h(DEC(150, 18, 2))); /* the same scale, any precision */
    cr_assert_eq(h(DBL(-0.0)), h(DBL(0.0)));
    cr_assert_eq(h(DBL(NAN)), h(DBL(-NAN)));
    cr_assert_eq(h(IVV("1 mon")), h(IVV("30 days")));
    cr_assert_eq(h(IVV("1 day")), h(IVV("24 hours")));
    cr_assert_eq(h(TXT("a long string over twelve bytes")), h(TXT("a long string over twelve bytes")));
    cr_assert_neq(h(TXT("abc")), h(TXT("abd")));
    cr_assert_neq(h(I(1)), h(I(2)));
    cr_assert_neq(h(TXT("")), h(TXT(" ")));
    cr_assert_neq(h(IVV("1 mon")), h(IVV("1 day")));
    cr_assert_eq(h(value_null(sql_type_make(TYPE_INTEGER))), VALUE_HASH_NULL);
    cr_assert_eq(h(value_null(sql_type_make(TYPE_VARCHAR))), VALUE_HASH_NULL);
    /* the scheme vector/ uses, so values and vectors meet in one hash table */
    cr_assert_eq(h(BI(-7)), hash_i64(-7));
    cr_assert_eq(h(DATEV("2024-01-02")), hash_i64(19724));
    cr_assert_eq(h(value_bool(true)), hash_i64(1));
    cr_assert_eq(h(DBL(2.5)), hash_f64(2.5));
    cr_assert_eq(h(TXT("key")), hash_bytes("key", 3, 0));
    cr_assert_eq(h(value_blob("\x00\x01", 2)), hash_bytes("\x00\x01", 2, 0));
    cr_assert_eq(h(IVV("1 day")), hash_interval(IVV("1 day").v.iv));
    /* random values: equal values of one type hash alike, across integer widths, and values that
    ** compare equal across types hash alike once cast to their common type */
    srand(4);
    for (int i = 0; i < 20000; i++) {
        int64_t x = rand() % 20001 - 10000;
        int s = rand() % 4;
        sql_value ints[] = {SI(x), I(x), BI(x)};
        for (int j = 0; j < 3; j++)
            cr_assert_eq(value_hash(&ints[j]), value_hash(&ints[0]));
        sql_value forms[] = {SI(x),
                             I(x),
                             BI(x),
                             DEC(x * dec_pow10[s], 18, s),
                             DEC(x, 18, 0),
                             DBL((double)x),
                             DEC(x * 10, 18, 1)};
        for (int j = 0; j < 7; j++)
            for (int k = 0; k < 7; k++) {
                cr_assert(value_equal(&forms[j], &forms[k]));
                sql_type t;
                EXPECT_OK(value_common_type(forms[j].type, forms[k].type, 0, &t, &err));
                sql_value cj, ck;
                EXPECT_OK(value_cast(&forms[j], t, false, NULL, &cj, &err));
                EXPECT_OK(value_cast(&forms[k], t, false, NULL, &ck, &err));
                cr_assert_eq(value_hash(&cj), value_hash(&ck), "%d and %d", j, k);
            }
    }
    sql_value d = DATEV("2024-01-02"), ts = TSV("2024-01-02"), dc;
    EXPECT_OK(value_cast(&d, sql_type_make(TYPE_TIMESTAMP), false, NULL, &dc, &err));
    cr_assert_eq(value_hash(&dc), value_hash(&ts));
    /* distinct values spread: no collisions among 10000 integers or strings */
    uint64_t *seen = malloc(20000 * sizeof *seen);
    char buf[32];
    for (int i = 0; i < 10000; i++) {
        seen[i] = h(BI(i));
        snprintf(buf, sizeof buf, "key-%d", i);
        seen[10000 + i] = h(TXT(buf));
    }
    qsort(seen, 20000, sizeof *seen, cmp_u64);
    for (int i = 1; i < 20000; i++)
        cr_assert_neq(seen[i - 1], seen[i], "a hash collision");
    free(seen);
}

/* ---- sql_value: casts and text ---- */

static const char *text_of(sql_value v) {
    static char buf[8][256];
    static int i;
    i = (i + 1) % 8;
    value_to_text(&v, buf[i], sizeof buf[i]);
    return buf[i];
}

static arena A;
static void setup(void) { arena_init(&A, 0); }
static void teardown(void) { arena_free(&A); }

/* cast_text casts in to `to` and returns the result's text. */
static const char *cast_text(sql_value in, sql_type to, bool explicit_cast) {
    sql_value out;
    err_clear(&err);
    int rc = value_cast(&in, to, explicit_cast, &A, &out, &err);
    cr_assert_eq(rc, STRATA_OK, "cast of %s to %s: %s", text_of(in), sql_type_name(to.id), err.msg);
    cr_assert_eq(out.type.id, to.id);
    return text_of(out);
}

static void cast_fails(sql_value in, sql_type to, const char *msg) {
    sql_value out;
    EXPECT_ERR(value_cast(&in, to, true, &A, &out, &err), msg);
}

static sql_type T(uint8_t id) { return sql_type_make(id); }

Test(value, casts_from_text, .init = setup, .fini = teardown) {
    cr_assert_str_eq(cast_text(TXT(" 42 "), T(TYPE_INTEGER), true), "42");
    cr_assert_str_eq(cast_text(TXT("-7"), T(TYPE_SMALLINT), true), "-7");
    cr_assert_str_eq(cast_text(TXT("1.5e3"), T(TYPE_DOUBLE), true), "1500");
    cr_assert_str_eq(cast_text(TXT("1.005"), sql_type_decimal(10, 2), true), "1.01");
    cr_assert_str_eq(cast_text(TXT("yes"), T(TYPE_BOOLEAN), true), "true");
    cr_assert_str_eq(cast_text(TXT("off"), T(TYPE_BOOLEAN), true), "false");
    cr_assert_str_eq(cast_text(TXT("2024-1-2"), T(TYPE_DATE), true), "2024-01-02");
    cr_assert_str_eq(cast_text(TXT("2024-01-02T03:04:05.100"), T(TYPE_TIMESTAMP), true),
                     "2024-01-02 03:04:05.1");
    cr_assert_str_eq(cast_text(TXT("1 year 2 months 3 days"), T(TYPE_INTERVAL), true),
                     "1 year 2 mons 3 days");
    cr_assert_str_eq(cast_text(TXT("\\x0102ff"), T(TYPE_BLOB), true), "\\x0102ff");
    cr_assert_str_eq(cast_text(TXT("abc"), T(TYPE_VARCHAR), true), "abc");
    cast_fails(TXT("abc"), T(TYPE_INTEGER), "invalid input syntax for type integer: \"abc\"");
    cast_fails(TXT("40000"), T(TYPE_SMALLINT), "value \"40000\" is out of range for type smallint");
    cast_fails(TXT("x1"), T(TYPE_DOUBLE), "invalid input syntax for type double precision: \"x1\"");
    cast_fails(TXT("1.2.3"), sql_type_decimal(10, 2), "invalid input syntax for type numeric: \"1.2.3\"");
    cast_fails(TXT("1000"), sql_type_decimal(5, 2), "numeric field overflow");
    cast_fails(TXT("maybe"), T(TYPE_BOOLEAN), "invalid input syntax for type boolean: \"maybe\"");
    cast_fails(TXT("2023-02-29"), T(TYPE_DATE), "date/time field value out of range: \"2023-02-29\"");
    cast_fails(TXT("noon"), T(TYPE_TIMESTAMP), "invalid input syntax for type timestamp: \"noon\"");
    cast_fails(TXT("soon"), T(TYPE_INTERVAL), "invalid input syntax for type interval: \"soon\"");
    cast_fails(TXT("\\xz"), T(TYPE_BLOB), "invalid hexadecimal digit: \"z\"");
}

Test(value, casts_between_types, .init = setup, .fini = teardown) {
    /* integers */
    cast_fails(I(40000), T(TYPE_SMALLINT), "smallint out of range");
    cast_fails(BI(INT64_MAX), T(TYPE_INTEGER), "integer out of range");
    cr_assert_str_eq(cast_text(SI(-5), T(TYPE_BIGINT), false), "-5");
    /* double -> int rounds half to even, decimal -> int half away from zero */
    cr_assert_str_eq(cast_text(DBL(2.5), T(TYPE_INTEGER), true), "2");
    cr_assert_str_eq(cast_text(DBL(3.5), T(TYPE_INTEGER), true), "4");
    cr_assert_str_eq(cast_text(DBL(-2.5), T(TYPE_BIGINT), true), "-2");
    cr_assert_str_eq(cast_text(DEC(25, 2, 1), T(TYPE_INTEGER), true), "3");
    cr_assert_str_eq(cast_text(DEC(-25, 2, 1), T(TYPE_INTEGER), true), "-3");
    cast_fails(DBL(1e10), T(TYPE_INTEGER), "integer out of range");
    cast_fails(DEC(400000, 6, 1), T(TYPE_SMALLINT), "smallint out of range");
    /* to double */
    cr_assert_str_eq(cast_text(I(7), T(TYPE_DOUBLE), true), "7");
    cr_assert_str_eq(cast_text(DEC(1, 2, 1), T(TYPE_DOUBLE), true), "0.1");
    cr_assert_str_eq(cast_text(BI(INT64_MAX), T(TYPE_DOUBLE), true), "9.223372036854776e+18");
    /* to decimal */
    cr_assert_str_eq(cast_text(I(123), sql_type_decimal(5, 2), true), "123.00");
    cast_fails(I(1000), sql_type_decimal(5, 2), "numeric field overflow");
    cr_assert_str_eq(cast_text(DBL(2.675), sql_type_decimal(10, 2), true), "2.68");
    cr_assert_str_eq(cast_text(DBL(-0.125), sql_type_decimal(10, 2), true), "-0.13");
    cr_assert_str_eq(cast_text(DEC(1005, 10, 3), sql_type_decimal(10, 2), true), "1.01");
    cr_assert_str_eq(cast_text(DEC(-1005, 10, 3), sql_type_decimal(10, 2), true), "-1.01");
    cr_assert_str_eq(cast_text(DEC(15, 2, 1), sql_type_decimal(10, 4), true), "1.5000");
    cast_fails(DBL(NAN), sql_type_decimal(10, 2), "cannot convert NaN to numeric");
    /* booleans */
    cr_assert_str_eq(cast_text(I(5), T(TYPE_BOOLEAN), true), "true");
    cr_assert_str_eq(cast_text(BI(0), T(TYPE_BOOLEAN), true), "false");
    cr_assert_str_eq(cast_text(value_bool(true), T(TYPE_INTEGER), true), "1");
    cr_assert_str_eq(cast_text(value_bool(true), T(TYPE_VARCHAR), true), "true");
    cr_assert_str_eq(cast_text(value_bool(false), T(TYPE_VARCHAR), true), "false");
    cast_fails(value_bool(true), T(TYPE_DOUBLE), "cannot cast type boolean to double precision");
    cast_fails(DBL(1), T(TYPE_BOOLEAN), "cannot cast type double precision to boolean");
    /* dates and timestamps */
    cr_assert_str_eq(cast_text(TSV("2024-01-02 23:59:59"), T(TYPE_DATE), true), "2024-01-02");
    cr_assert_str_eq(cast_text(TSV("1969-12-31 12:00:00"), T(TYPE_DATE), true), "1969-12-31");
    cr_assert_str_eq(cast_text(DATEV("2024-01-02"), T(TYPE_TIMESTAMP), true), "2024-01-02 00:00:00");
    cast_fails(DATEV("2024-01-02"), T(TYPE_INTEGER), "cannot cast type date to integer");
    cast_fails(I(1), T(TYPE_DATE), "cannot cast type integer to date");
    cast_fails(IVV("1 day"), T(TYPE_DATE), "cannot cast type interval to date");
    cast_fails(IVV("1 day"), T(TYPE_TIMESTAMP), "cannot cast type interval to timestamp");
    cast_fails(TXT("x"), T(TYPE_NULL), "cannot cast type character varying to unknown");
    /* everything to text */
    cr_assert_str_eq(cast_text(DBL(0.1), T(TYPE_VARCHAR), true), "0.1");
    cr_assert_str_eq(cast_text(DEC(150, 10, 2), T(TYPE_VARCHAR), true), "1.50");
    cr_assert_str_eq(cast_text(IVV("-1 day 02:00"), T(TYPE_VARCHAR), true), "-1 days +02:00:00");
    cr_assert_str_eq(cast_text(value_blob("\x01\x02\xff", 3), T(TYPE_VARCHAR), true), "\\x0102ff");
    cr_assert_str_eq(
        cast_text(value_blob("0123456789abcdefghij0123456789abcdefghij0123456789", 50), T(TYPE_VARCHAR),
                  true),
        "\\x303132333435363738396162636465666768696a303132333435363738396162636465666768696a3031323334"
        "3536373839");
    cr_assert_str_eq(cast_text(TSV("2024-01-02 03:04:05"), T(TYPE_VARCHAR), true), "2024-01-02 03:04:05");
    /* VARCHAR(n): explicit casts truncate, assignments fail */
    cr_assert_str_eq(cast_text(TXT("abcdef"), sql_type_varchar(3), true), "abc");
    cr_assert_str_eq(cast_text(TXT("a long string over twelve bytes"), sql_type_varchar(13), true),
                     "a long string");
    cr_assert_str_eq(cast_text(I(12345), sql_type_varchar(3), true), "123");
    cr_assert_str_eq(cast_text(TXT("ab  "), sql_type_varchar(2), false), "ab");
    sql_value out, in = TXT("abcdef");
    EXPECT_ERR(value_cast(&in, sql_type_varchar(3), false, &A, &out, &err),
               "value too long for type character varying(3)");
    in = I(12345);
    EXPECT_ERR(value_cast(&in, sql_type_varchar(3), false, &A, &out, &err),
               "value too long for type character varying(3)");
    /* NULL stays NULL, with the target type */
    sql_value n = value_null(T(TYPE_NULL));
    EXPECT_OK(value_cast(&n, T(TYPE_DATE), true, &A, &out, &err));
    cr_assert(out.is_null && out.type.id == TYPE_DATE);
    /* long text needs an arena */
    in = TSV("2024-01-02 03:04:05");
    err_clear(&err);
    cr_assert_eq(value_cast(&in, T(TYPE_VARCHAR), true, NULL, &out, &err), STRATA_MISUSE);
    in = I(42);
    EXPECT_OK(value_cast(&in, T(TYPE_VARCHAR), true, NULL, &out, &err)); /* fits inline */
    cr_assert_str_eq(text_of(out), "42");
}

Test(value, cast_round_trips_through_text, .init = setup, .fini = teardown) {
    /* text -> type -> text is the identity on canonical text */
    static const struct {
        uint8_t id;
        const char *text;
    } cases[] = {
        {TYPE_INTEGER, "-2147483648"},
        {TYPE_BIGINT, "9223372036854775807"},
        {TYPE_SMALLINT, "32767"},
        {TYPE_DOUBLE, "1e+20"},
        {TYPE_DOUBLE, "1.5e-07"},
        {TYPE_DOUBLE, "-Infinity"},
        {TYPE_DOUBLE, "NaN"},
        {TYPE_DOUBLE, "0.30000000000000004"},
        {TYPE_BOOLEAN, "true"},
        {TYPE_DATE, "0001-01-01"},
        {TYPE_DATE, "9999-12-31"},
        {TYPE_TIMESTAMP, "2024-02-29 12:00:00.5"},
        {TYPE_INTERVAL, "1 year 2 mons 3 days 04:05:06"},
        {TYPE_INTERVAL, "-1 days +02:00:00"},
        {TYPE_BLOB, "\\x00ff10"},
        {TYPE_VARCHAR, "plain text"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sql_value typed, in = TXT(cases[i].text);
        EXPECT_OK(value_cast(&in, T(cases[i].id), true, &A, &typed, &err));
        cr_assert_str_eq(cast_text(typed, T(TYPE_VARCHAR), true), cases[i].text);
        const char *arena_text;
        size_t len;
        EXPECT_OK(value_to_text_arena(&typed, &A, &arena_text, &len, &err));
        cr_assert_str_eq(arena_text, cases[i].text);
        cr_assert_eq(len, strlen(cases[i].text));
    }
    sql_value in = TXT("-0.05"), typed;
    EXPECT_OK(value_cast(&in, sql_type_decimal(4, 2), true, &A, &typed, &err));
    cr_assert_str_eq(text_of(typed), "-0.05");
}

Test(value, to_text_buffer_rules) {
    char buf[8];
    sql_value v = value_int(TYPE_BIGINT, 1234567890123);
    cr_assert_eq(value_to_text(&v, buf, sizeof buf), 13);
    cr_assert_str_eq(buf, "1234567");
    cr_assert_eq(value_to_text(&v, NULL, 0), 13);
    sql_value b = value_blob("\x01\x02\x03\x04", 4);
    cr_assert_eq(value_to_text(&b, buf, sizeof buf), 10);
    cr_assert_str_eq(buf, "\\x01020");
    cr_assert_eq(value_to_text(&b, buf, 1), 10);
    cr_assert_str_eq(buf, "");
    sql_value n = value_null(T(TYPE_INTEGER));
    value_to_text(&n, buf, sizeof buf);
    cr_assert_str_eq(buf, "NULL");
    cr_assert_str_eq(text_of(value_bool(true)), "true");
    cr_assert_str_eq(text_of(DEC(-5, 3, 2)), "-0.05");
    cr_assert_str_eq(text_of(DBL(1e20)), "1e+20");
    cr_assert_str_eq(text_of(DATEV("2024-02-29")), "2024-02-29");
    cr_assert_str_eq(text_of(TSV("2024-01-02 03:04:05.120")), "2024-01-02 03:04:05.12");
    cr_assert_str_eq(text_of(IVV("1 year 2 mons 3 days 04:05:06")), "1 year 2 mons 3 days 04:05:06");
    cr_assert_str_eq(text_of(value_blob("", 0)), "\\x");
    cr_assert_str_eq(text_of(TXT("")), "");
}

/* ---- sql_value: arithmetic ---- */

static sql_value arith(value_op op, sql_value a, sql_value b) {
    sql_value r;
    err_clear(&err);
    int rc = value_arith(op, &a, &b, &r, &err);
    cr_assert_eq(rc, STRATA_OK, "%s op %s: %s", text_of(a), text_of(b), err.msg);
    return r;
}

static void arith_fails(value_op op, sql_value a, sql_value b, const char *msg) {
    sql_value r;
    EXPECT_ERR(value_arith(op, &a, &b, &r, &err), msg);
}

Test(value, arithmetic) {
    sql_value r = arith(VALUE_ADD, I(1), BI(2));
    cr_assert(r.type.id == TYPE_BIGINT && r.v.i == 3);
    r = arith(VALUE_DIV, I(7), I(2));
    cr_assert(r.type.id == TYPE_INTEGER && r.v.i == 3);
    r = arith(VALUE_MUL, SI(100), SI(300));
    cr_assert_eq(r.type.id, TYPE_SMALLINT);
    arith_fails(VALUE_MUL, SI(200), SI(300), "smallint out of range");
    arith_fails(VALUE_ADD, I(INT32_MAX), I(1), "integer out of range");
    arith_fails(VALUE_DIV, I(1), I(0), "division by zero");
    r = arith(VALUE_ADD, I(1), DEC(150, 5, 2));
    cr_assert(r.type.id == TYPE_DECIMAL && r.type.precision == 13 && r.type.scale == 2);
    cr_assert_str_eq(text_of(r), "2.50");
    r = arith(VALUE_MUL, DEC(150, 5, 2), DEC(20, 3, 1));
    cr_assert_str_eq(text_of(r), "3.000");
    r = arith(VALUE_DIV, DEC(100, 5, 2), I(3));
    cr_assert_str_eq(text_of(r), "0.3333333333333"); /* numeric(16,13) */
    r = arith(VALUE_MOD, DEC(105, 3, 1), I(3));
    cr_assert_str_eq(text_of(r), "1.5");
    arith_fails(VALUE_DIV, DEC(100, 5, 2), DEC(0, 5, 2), "division by zero");
    r = arith(VALUE_ADD, DBL(0.5), I(1));
    cr_assert(r.type.id == TYPE_DOUBLE && r.v.d == 1.5);
    r = arith(VALUE_MUL, DEC(15, 2, 1), DBL(2));
    cr_assert(r.type.id == TYPE_DOUBLE && r.v.d == 3);
    arith_fails(VALUE_MOD, DBL(5), I(3), "operator does not exist: double precision % integer");
    /* dates */
    r = arith(VALUE_ADD, DATEV("2024-02-28"), I(1));
    cr_assert_eq(r.type.id, TYPE_DATE);
    cr_assert_str_eq(text_of(r), "2024-02-29");
    cr_assert_str_eq(text_of(arith(VALUE_ADD, I(2), DATEV("2024-02-28"))), "2024-03-01");
    cr_assert_str_eq(text_of(arith(VALUE_SUB, DATEV("2024-03-01"), BI(1))), "2024-02-29");
    r = arith(VALUE_SUB, DATEV("2024-03-01"), DATEV("2024-02-01"));
    cr_assert(r.type.id == TYPE_INTEGER && r.v.i == 29);
    arith_fails(VALUE_ADD, DATEV("9999-12-31"), I(1), "date out of range");
    arith_fails(VALUE_SUB, DATEV("2024-01-01"), BI(INT64_MIN), "date out of range");
    r = arith(VALUE_SUB, DATEV("1998-12-01"), IVV("90 days"));
    cr_assert_eq(r.type.id, TYPE_TIMESTAMP);
    cr_assert_str_eq(text_of(r), "1998-09-02 00:00:00");
    cr_assert_str_eq(text_of(arith(VALUE_ADD, DATEV("2024-01-31"), IVV("1 mon"))), "2024-02-29 00:00:00");
    cr_assert_str_eq(text_of(arith(VALUE_ADD, IVV("1 day 01:00"), TSV("2024-01-01"))), "2024-01-02 01:00:00");
    r = arith(VALUE_SUB, TSV("2024-01-03 01:00"), TSV("2024-01-01"));
    cr_assert_eq(r.type.id, TYPE_INTERVAL);
    cr_assert_str_eq(text_of(r), "2 days 01:00:00");
    cr_assert_str_eq(text_of(arith(VALUE_SUB, TSV("2024-01-03 01:00"), DATEV("2024-01-04"))), "-23:00:00");
    cr_assert_str_eq(text_of(arith(VALUE_ADD, IVV("1 day"), IVV("-2 hours"))), "1 day -02:00:00");
    cr_assert_str_eq(text_of(arith(VALUE_SUB, IVV("1 mon"), IVV("1 day"))), "1 mon -1 days");
    arith_fails(VALUE_ADD, DATEV("2024-01-01"), DATEV("2024-01-01"), "operator does not exist: date + date");
    arith_fails(VALUE_ADD, value_bool(true), I(1), "operator does not exist: boolean + integer");
    arith_fails(VALUE_MUL, IVV("1 day"), I(2), "operator does not exist: interval * integer");
    arith_fails(VALUE_ADD, TXT("1"), I(1), "operator does not exist: character varying + integer");
    arith_fails(VALUE_SUB, I(1), DATEV("2024-01-01"), "operator does not exist: integer - date");
    arith_fails(VALUE_ADD, TSV("2024-01-01"), TSV("2024-01-01"),
                "operator does not exist: timestamp + timestamp");
    /* NULL operands give NULL of the result type */
    sql_value n = value_null(T(TYPE_NULL));
    r = arith(VALUE_ADD, n, I(1));
    cr_assert(r.is_null && r.type.id == TYPE_INTEGER);
    r = arith(VALUE_ADD, DATEV("2024-01-01"), n);
    cr_assert(r.is_null && r.type.id == TYPE_DATE);
    r = arith(VALUE_ADD, value_null(T(TYPE_BIGINT)), I(1));
    cr_assert(r.is_null && r.type.id == TYPE_BIGINT);
    /* negation */
    sql_value neg, in = I(INT32_MIN);
    EXPECT_ERR(value_negate(&in, &neg, &err), "integer out of range");
    in = DEC(-150, 5, 2);
    EXPECT_OK(value_negate(&in, &neg, &err));
    cr_assert_str_eq(text_of(neg), "1.50");
    in = IVV("1 day -02:00");
    EXPECT_OK(value_negate(&in, &neg, &err));
    cr_assert_str_eq(text_of(neg), "-1 days +02:00:00");
    in = DBL(0.5);
    EXPECT_OK(value_negate(&in, &neg, &err));
    cr_assert(neg.v.d == -0.5);
    in = DATEV("2024-01-01");
    EXPECT_ERR(value_negate(&in, &neg, &err), "operator does not exist: - date");
}

Test(value, extract) {
    sql_value r, in = TSV("2024-01-02 03:04:05.5");
    EXPECT_OK(value_extract(DT_SECOND, &in, &r, &err));
    cr_assert_str_eq(text_of(r), "5.500000");
    EXPECT_OK(value_extract(DT_MILLISECOND, &in, &r, &err));
    cr_assert_str_eq(text_of(r), "5500.000");
    EXPECT_OK(value_extract(DT_EPOCH, &in, &r, &err));
    cr_assert_str_eq(text_of(r), "1704164645.500000");
    EXPECT_OK(value_extract(DT_YEAR, &in, &r, &err));
    cr_assert(r.type.id == TYPE_BIGINT && r.v.i == 2024);
    in = DATEV("2024-01-02");
    EXPECT_OK(value_extract(DT_EPOCH, &in, &r, &err));
    cr_assert_str_eq(text_of(r), "1704153600");
    EXPECT_ERR(value_extract(DT_HOUR, &in, &r, &err), "unit \"hour\" not supported for type date");
    in = IVV("1 day 00:00:01.5");
    EXPECT_OK(value_extract(DT_EPOCH, &in, &r, &err));
    cr_assert_str_eq(text_of(r), "86401.500000");
    in = I(5);
    EXPECT_ERR(value_extract(DT_YEAR, &in, &r, &err), "unit \"year\" not supported for type integer");
    in = value_null(T(TYPE_TIMESTAMP));
    EXPECT_OK(value_extract(DT_SECOND, &in, &r, &err));
    cr_assert(r.is_null && r.type.id == TYPE_DECIMAL);
}

/* ---- type rules ---- */

static sql_type common(sql_type a, sql_type b, int flags) {
    sql_type t;
    err_clear(&err);
    cr_assert_eq(value_common_type(a, b, flags, &t, &err), STRATA_OK, "%s", err.msg);
    return t;
}

static const char *tname(sql_type t) {
    static char buf[4][64];
    static int i;
    i = (i + 1) % 4;
    sql_type_format(t, buf[i], sizeof buf[i]);
    return buf[i];
}

Test(types, names_and_modifiers) {
    cr_assert_str_eq(tname(T(TYPE_INTEGER)), "integer");
    cr_assert_str_eq(tname(T(TYPE_DOUBLE)), "double precision");
    cr_assert_str_eq(tname(sql_type_decimal(10, 2)), "numeric(10,2)");
    cr_assert_str_eq(tname(sql_type_varchar(5)), "character varying(5)");
    cr_assert_str_eq(tname(sql_type_varchar(0)), "character varying");
    cr_assert_str_eq(tname(T(TYPE_BLOB)), "blob");
    cr_assert_str_eq(sql_type_name(200), "invalid type");
    sql_type d = T(TYPE_DECIMAL);
    cr_assert(d.precision == 18 && d.scale == 3);
    cr_assert(sql_type_equal(sql_type_decimal(10, 2), sql_type_decimal(10, 2)));
    cr_assert(!sql_type_equal(sql_type_decimal(10, 2), sql_type_decimal(10, 3)));
    cr_assert(!sql_type_equal(sql_type_varchar(1), sql_type_varchar(2)));
    cr_assert(sql_type_equal(T(TYPE_DATE), T(TYPE_DATE)));
    char small[4];
    cr_assert_eq(sql_type_format(sql_type_decimal(10, 2), small, sizeof small), 13);
    cr_assert_str_eq(small, "num");
    EXPECT_OK(sql_type_check_decimal(18, 18, &err));
    EXPECT_ERR(sql_type_check_decimal(19, 2, &err), "DECIMAL precision 19 must be between 1 and 18");
    EXPECT_ERR(sql_type_check_decimal(0, 0, &err), "DECIMAL precision 0 must be between 1 and 18");
    EXPECT_ERR(sql_type_check_decimal(5, 6, &err), "DECIMAL scale 6 must be between 0 and precision 5");
    EXPECT_ERR(sql_type_check_decimal(5, -1, &err), "DECIMAL scale -1 must be between 0 and precision 5");
}

Test(types, common_type) {
    cr_assert_str_eq(tname(common(T(TYPE_INTEGER), T(TYPE_BIGINT), 0)), "bigint");
    cr_assert_str_eq(tname(common(T(TYPE_SMALLINT), T(TYPE_INTEGER), 0)), "integer");
    cr_assert_str_eq(tname(common(T(TYPE_INTEGER), sql_type_decimal(5, 2), 0)), "numeric(12,2)");
    cr_assert_str_eq(tname(common(sql_type_decimal(5, 2), T(TYPE_SMALLINT), 0)), "numeric(7,2)");
    cr_assert_str_eq(tname(common(T(TYPE_BIGINT), sql_type_decimal(15, 2), 0)), "numeric(18,2)");
    cr_assert_str_eq(tname(common(sql_type_decimal(10, 2), sql_type_decimal(8, 4), 0)), "numeric(12,4)");
    cr_assert_str_eq(tname(common(sql_type_decimal(5, 2), T(TYPE_DOUBLE), 0)), "double precision");
    cr_assert_str_eq(tname(common(T(TYPE_BIGINT), T(TYPE_DOUBLE), 0)), "double precision");
    cr_assert_str_eq(tname(common(T(TYPE_DATE), T(TYPE_TIMESTAMP), 0)), "timestamp");
    cr_assert_str_eq(tname(common(T(TYPE_NULL), T(TYPE_DATE), 0)), "date");
    cr_assert_str_eq(tname(common(T(TYPE_BOOLEAN), T(TYPE_NULL), 0)), "boolean");
    cr_assert_str_eq(tname(common(sql_type_varchar(5), sql_type_varchar(10), 0)), "character varying(10)");
    cr_assert_str_eq(tname(common(sql_type_varchar(5), sql_type_varchar(0), 0)), "character varying");
    cr_assert_str_eq(tname(common(T(TYPE_VARCHAR), T(TYPE_DATE), VALUE_LITERAL_A)), "date");
    cr_assert_str_eq(tname(common(T(TYPE_TIMESTAMP), T(TYPE_VARCHAR), VALUE_LITERAL_B)), "timestamp");
    cr_assert_str_eq(tname(common(T(TYPE_INTEGER), T(TYPE_VARCHAR), VALUE_LITERAL_B)), "integer");
    cr_assert_str_eq(tname(common(T(TYPE_VARCHAR), T(TYPE_VARCHAR), VALUE_LITERAL_A | VALUE_LITERAL_B)),
                     "character varying");
    cr_assert_str_eq(tname(common(T(TYPE_VARCHAR), T(TYPE_NULL), VALUE_LITERAL_A)), "character varying");
    cr_assert_str_eq(tname(common(T(TYPE_INTERVAL), T(TYPE_INTERVAL), 0)), "interval");
    sql_type t;
    EXPECT_ERR(value_common_type(T(TYPE_VARCHAR), T(TYPE_DATE), 0, &t, &err),
               "types character varying and date cannot be matched");
    EXPECT_ERR(value_common_type(T(TYPE_BOOLEAN), T(TYPE_INTEGER), 0, &t, &err),
               "types boolean and integer cannot be matched");
    EXPECT_ERR(value_common_type(T(TYPE_DATE), T(TYPE_INTERVAL), 0, &t, &err),
               "types date and interval cannot be matched");
    EXPECT_ERR(value_common_type(T(TYPE_VARCHAR), T(TYPE_BLOB), 0, &t, &err),
               "types character varying and blob cannot be matched");
    EXPECT_ERR(value_common_type(T(TYPE_VARCHAR), T(TYPE_DATE), VALUE_LITERAL_B, &t, &err),
               "types character varying and date cannot be matched"); /* the flag is on the other side */
}

static const char *arith_type(value_op op, sql_type a, sql_type b, int flags) {
    sql_type t;
    err_clear(&err);
    cr_assert_eq(value_arith_type(op, a, b, flags, &t, &err), STRATA_OK, "%s", err.msg);
    return tname(t);
}

Test(types, arithmetic_types) {
    cr_assert_str_eq(arith_type(VALUE_ADD, T(TYPE_INTEGER), T(TYPE_BIGINT), 0), "bigint");
    cr_assert_str_eq(arith_type(VALUE_DIV, T(TYPE_INTEGER), T(TYPE_INTEGER), 0), "integer");
    cr_assert_str_eq(arith_type(VALUE_ADD, T(TYPE_SMALLINT), T(TYPE_SMALLINT), 0), "smallint");
    cr_assert_str_eq(arith_type(VALUE_ADD, T(TYPE_INTEGER), sql_type_decimal(5, 2), 0), "numeric(13,2)");
    cr_assert_str_eq(arith_type(VALUE_MUL, sql_type_decimal(15, 2), sql_type_decimal(16, 2), 0),
                     "numeric(18,4)");
    cr_assert_str_eq(arith_type(VALUE_DIV, sql_type_decimal(10, 2), sql_type_decimal(5, 2), 0),
                     "numeric(18,8)");
    cr_assert_str_eq(arith_type(VALUE_ADD, sql_type_decimal(10, 2), T(TYPE_DOUBLE), 0), "double precision");
    cr_assert_str_eq(arith_type(VALUE_ADD, T(TYPE_DATE), T(TYPE_INTEGER), 0), "date");
    cr_assert_str_eq(arith_type(VALUE_ADD, T(TYPE_BIGINT), T(TYPE_DATE), 0), "date");
    cr_assert_str_eq(arith_type(VALUE_SUB, T(TYPE_DATE), T(TYPE_SMALLINT), 0), "date");
    cr_assert_str_eq(arith_type(VALUE_SUB, T(TYPE_DATE), T(TYPE_DATE), 0), "integer");
    cr_assert_str_eq(arith_type(VALUE_ADD, T(TYPE_DATE), T(TYPE_INTERVAL), 0), "timestamp");
    cr_assert_str_eq(arith_type(VALUE_SUB, T(TYPE_DATE), T(TYPE_INTERVAL), 0), "timestamp");
    cr_assert_str_eq(arith_type(VALUE_ADD, T(TYPE_INTERVAL), T(TYPE_TIMESTAMP), 0), "timestamp");
    cr_assert_str_eq(arith_type(VALUE_SUB, T(TYPE_TIMESTAMP), T(TYPE_TIMESTAMP), 0), "interval");
    cr_assert_str_eq(arith_type(VALUE_SUB, T(TYPE_TIMESTAMP), T(TYPE_DATE), 0), "interval");
    cr_assert_str_eq(arith_type(VALUE_SUB, T(TYPE_INTERVAL), T(TYPE_INTERVAL), 0), "interval");
    cr_assert_str_eq(arith_type(VALUE_ADD, T(TYPE_VARCHAR), T(TYPE_INTEGER), VALUE_LITERAL_A), "integer");
    cr_assert_str_eq(arith_type(VALUE_ADD, T(TYPE_DATE), T(TYPE_NULL), 0), "date");
    cr_assert_str_eq(arith_type(VALUE_ADD, T(TYPE_NULL), T(TYPE_TIMESTAMP), 0), "timestamp");
    cr_assert_str_eq(arith_type(VALUE_MUL, T(TYPE_NULL), T(TYPE_NULL), 0), "integer");
    sql_type t;
    EXPECT_ERR(value_arith_type(VALUE_ADD, T(TYPE_DATE), T(TYPE_DATE), 0, &t, &err),
               "operator does not exist: date + date");
    EXPECT_ERR(value_arith_type(VALUE_MOD, T(TYPE_DOUBLE), T(TYPE_DOUBLE), 0, &t, &err),
               "operator does not exist: double precision % double precision");
    EXPECT_ERR(value_arith_type(VALUE_ADD, T(TYPE_VARCHAR), T(TYPE_VARCHAR),
                                VALUE_LITERAL_A | VALUE_LITERAL_B, &t, &err),
               "operator does not exist: character varying + character varying");
    EXPECT_ERR(value_arith_type(VALUE_SUB, T(TYPE_TIMESTAMP), T(TYPE_VARCHAR), VALUE_LITERAL_B, &t, &err),
               "operator does not exist: timestamp - character varying");
    EXPECT_ERR(value_arith_type(VALUE_DIV, T(TYPE_INTERVAL), T(TYPE_INTERVAL), 0, &t, &err),
               "operator does not exist: interval / interval");
    EXPECT_ERR(value_arith_type(VALUE_SUB, T(TYPE_INTERVAL), T(TYPE_DATE), 0, &t, &err),
               "operator does not exist: interval - date");
}

Test(types, aggregate_types) {
    sql_type t;
    EXPECT_OK(value_sum_type(T(TYPE_INTEGER), &t, &err));
    cr_assert_eq(t.id, TYPE_BIGINT);
    EXPECT_OK(value_sum_type(sql_type_decimal(15, 2), &t, &err));
    cr_assert_str_eq(tname(t), "numeric(18,2)");
    EXPECT_OK(value_sum_type(T(TYPE_DOUBLE), &t, &err));
    cr_assert_eq(t.id, TYPE_DOUBLE);
    EXPECT_ERR(value_sum_type(T(TYPE_DATE), &t, &err), "function sum(date) does not exist");
    EXPECT_OK(value_avg_type(T(TYPE_BIGINT), &t, &err));
    cr_assert_eq(t.id, TYPE_DOUBLE);
    EXPECT_OK(value_avg_type(sql_type_decimal(15, 2), &t, &err));
    cr_assert_str_eq(tname(t), "numeric(18,5)");
    EXPECT_OK(value_avg_type(sql_type_decimal(5, 2), &t, &err));
    cr_assert_str_eq(tname(t), "numeric(18,6)");
    EXPECT_OK(value_avg_type(sql_type_decimal(18, 10), &t, &err));
    cr_assert_str_eq(tname(t), "numeric(18,10)");
    EXPECT_ERR(value_avg_type(T(TYPE_VARCHAR), &t, &err), "function avg(character varying) does not exist");
}
