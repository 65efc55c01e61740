/*
** test_datetime.c -- DATE, TIMESTAMP, INTERVAL: the calendar against an independent day-by-day walk,
** parsing with strict validation, PostgreSQL output, month-end clamping, negative intervals,
** EXTRACT and date_trunc, and round trips.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "value.h"

#include "helpers/expect.h"

static strata_err err;

static int32_t D(const char *s) {
    int32_t d = 0;
    err_clear(&err);
    cr_assert_eq(date_parse(s, strlen(s), &d, &err), STRATA_OK, "date_parse(\"%s\"): %s", s, err.msg);
    return d;
}

static int64_t TS(const char *s) {
    int64_t t = 0;
    err_clear(&err);
    cr_assert_eq(ts_parse(s, strlen(s), &t, &err), STRATA_OK, "ts_parse(\"%s\"): %s", s, err.msg);
    return t;
}

static sql_interval IV(const char *s) {
    sql_interval iv = {0, 0, 0};
    err_clear(&err);
    cr_assert_eq(interval_parse(s, strlen(s), NULL, &iv, &err), STRATA_OK, "interval_parse(\"%s\"): %s", s,
                 err.msg);
    return iv;
}

static const char *dstr(int32_t d) {
    static char buf[4][32];
    static int i;
    i = (i + 1) % 4;
    date_format(d, buf[i]);
    return buf[i];
}

static const char *tstr(int64_t t) {
    static char buf[4][32];
    static int i;
    i = (i + 1) % 4;
    ts_format(t, buf[i]);
    return buf[i];
}

static const char *istr(sql_interval iv) {
    static char buf[4][VALUE_TEXT_MAX];
    static int i;
    i = (i + 1) % 4;
    interval_format(iv, buf[i]);
    return buf[i];
}

/* ---- the calendar ---- */

Test(datetime, calendar_anchors) {
    cr_assert_eq(date_from_ymd(1970, 1, 1), 0);
    cr_assert_eq(date_from_ymd(2000, 3, 1), 11017);
    cr_assert_eq(date_from_ymd(1, 1, 1), DATE_MIN);
    cr_assert_eq(date_from_ymd(9999, 12, 31), DATE_MAX);
    cr_assert_eq(date_from_ymd(1969, 12, 31), -1);
    cr_assert(date_is_leap(2000) && date_is_leap(2024) && date_is_leap(4) && date_is_leap(400));
    cr_assert(!date_is_leap(1900) && !date_is_leap(2023) && !date_is_leap(100) && !date_is_leap(9999));
    cr_assert_eq(date_days_in_month(2024, 2), 29);
    cr_assert_eq(date_days_in_month(2023, 2), 28);
    cr_assert_eq(date_days_in_month(2023, 4), 30);
    cr_assert_eq(date_days_in_month(2023, 12), 31);
}

/* Every day from 0001-01-01 to 9999-12-31, walked one day at a time with the textbook month
** table: an algorithm that shares nothing with the library's closed-form conversion. */
Test(datetime, calendar_matches_a_day_by_day_walk) {
    static const int dim[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int64_t y = 1;
    int m = 1, d = 1;
    for (int64_t day = DATE_MIN; day <= DATE_MAX; day++) {
        int64_t yy;
        int mm, dd;
        date_to_ymd(day, &yy, &mm, &dd);
        if (yy != y || mm != m || dd != d || date_from_ymd(y, m, d) != day)
            cr_assert_fail("day %lld: library %lld-%d-%d, walk %lld-%d-%d", (long long)day, (long long)yy, mm,
                           dd, (long long)y, m, d);
        bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        if (++d > dim[m - 1] + (m == 2 && leap)) {
            d = 1;
            if (++m > 12) m = 1, y++;
        }
    }
    cr_assert_eq(y, 10000);
}

/* Random dates against a second independent algorithm: counting whole years and months. */
static int64_t naive_days(int64_t y, int m, int d) {
    static const int dim[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int64_t n = 0;
    for (int64_t i = 1970; i < y; i++)
        n += 365 + ((i % 4 == 0 && i % 100 != 0) || i % 400 == 0);
    for (int64_t i = y; i < 1970; i++)
        n -= 365 + ((i % 4 == 0 && i % 100 != 0) || i % 400 == 0);
    for (int i = 1; i < m; i++)
        n += dim[i - 1] + (i == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
    return n + d - 1;
}

Test(datetime, random_dates_cross_checked) {
    srand(42);
    char buf[32];
    for (int i = 0; i < 500; i++) {
        int64_t y = 1 + rand() % 9999;
        int m = 1 + rand() % 12, d = 1 + rand() % date_days_in_month(y, m);
        int64_t want = naive_days(y, m, d);
        cr_assert_eq(date_from_ymd(y, m, d), want, "%lld-%d-%d", (long long)y, m, d);
        snprintf(buf, sizeof buf, "%04lld-%02d-%02d", (long long)y, m, d);
        cr_assert_eq(D(buf), want, "%s", buf);
        cr_assert_str_eq(dstr((int32_t)want), buf);
    }
}

/* ---- dates ---- */

Test(datetime, date_parse_and_format) {
    cr_assert_eq(D("1970-01-01"), 0);
    cr_assert_eq(D("2024-01-02"), 19724);
    cr_assert_eq(D(" 2024-1-2 "), 19724);
    cr_assert_eq(D("2024-01-02 10:11:12"), 19724); /* the time is checked and ignored */
    cr_assert_eq(D("2024-01-02T23:59:59.999"), 19724);
    cr_assert_eq(D("0001-01-01"), DATE_MIN);
    cr_assert_eq(D("9999-12-31"), DATE_MAX);
    cr_assert_str_eq(dstr(D("2024-02-29")), "2024-02-29");
    cr_assert_str_eq(dstr(D("2000-02-29")), "2000-02-29");
    cr_assert_str_eq(dstr(0), "1970-01-01");
    cr_assert_str_eq(dstr(-1), "1969-12-31");
    cr_assert_str_eq(dstr(DATE_MIN), "0001-01-01");
    cr_assert_str_eq(dstr(DATE_MAX), "9999-12-31");
    cr_assert_str_eq(dstr(D("0099-03-04")), "0099-03-04");
    char buf[16];
    cr_assert_eq(date_format(0, buf), 10);
}

Test(datetime, date_parse_errors) {
    int32_t d;
    const char *field[] = {"2023-02-29", "1900-02-29", "2024-13-01",       "2024-00-10",      "2024-04-31",
                           "2024-01-00", "0000-01-01", "2024-01-02 25:00", "2024-01-02 10:60"};
    for (size_t i = 0; i < sizeof field / sizeof field[0]; i++) {
        char want[128];
        snprintf(want, sizeof want, "date/time field value out of range: \"%s\"", field[i]);
        EXPECT_ERR(date_parse(field[i], strlen(field[i]), &d, &err), want);
    }
    const char *syntax[] = {"abc",
                            "",
                            "2024-01",
                            "24-01-02",
                            "2024/01/02",
                            "2024-01-02x",
                            "2024-001-02",
                            "2024-01-02 1",
                            "2024-01-02 10:5",
                            "-2024-01-02",
                            "2024-01-02 10:00:00.",
                            " "};
    for (size_t i = 0; i < sizeof syntax / sizeof syntax[0]; i++) {
        char want[128];
        snprintf(want, sizeof want, "invalid input syntax for type date: \"%s\"", syntax[i]);
        EXPECT_ERR(date_parse(syntax[i], strlen(syntax[i]), &d, &err), want);
    }
    EXPECT_ERR(date_parse("10000-01-01", 11, &d, &err), "date out of range: \"10000-01-01\"");
}

Test(datetime, date_arithmetic) {
    int32_t d;
    EXPECT_OK(date_add_days(D("2024-02-28"), 1, &d, &err));
    cr_assert_str_eq(dstr(d), "2024-02-29");
    EXPECT_OK(date_add_days(D("2023-02-28"), 1, &d, &err));
    cr_assert_str_eq(dstr(d), "2023-03-01");
    EXPECT_OK(date_add_days(D("2024-03-01"), -1, &d, &err));
    cr_assert_str_eq(dstr(d), "2024-02-29");
    EXPECT_OK(date_add_days(D("2023-12-31"), 366, &d, &err));
    cr_assert_str_eq(dstr(d), "2024-12-31");
    EXPECT_OK(date_add_days(DATE_MAX, 0, &d, &err));
    EXPECT_ERR(date_add_days(DATE_MAX, 1, &d, &err), "date out of range");
    EXPECT_ERR(date_add_days(DATE_MIN, -1, &d, &err), "date out of range");
    EXPECT_ERR(date_add_days(0, INT64_MAX, &d, &err), "date out of range");
    cr_assert_eq(date_diff(D("2024-03-01"), D("2024-02-01")), 29);
    cr_assert_eq(date_diff(D("2023-03-01"), D("2023-02-01")), 28);
    cr_assert_eq(date_diff(D("2024-01-01"), D("2025-01-01")), -366);
    cr_assert_eq(date_diff(DATE_MAX, DATE_MIN), 3652058);
    cr_assert_eq(ts_to_date(TS("1969-12-31 12:00:00")), -1);
    cr_assert_eq(ts_to_date(TS("2024-01-02 23:59:59.999999")), D("2024-01-02"));
    cr_assert_eq(date_to_ts(D("2024-01-02")), TS("2024-01-02 00:00:00"));
}

/* ---- timestamps ---- */

Test(datetime, timestamp_parse_and_format) {
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"2024-01-02 03:04:05", "2024-01-02 03:04:05"},
        {"2024-01-02T03:04:05", "2024-01-02 03:04:05"},
        {"2024-01-02t03:04:05", "2024-01-02 03:04:05"},
        {"2024-01-02   03:04:05  ", "2024-01-02 03:04:05"},
        {"2024-01-02 03:04:05.5", "2024-01-02 03:04:05.5"},
        {"2024-01-02 03:04:05.123456", "2024-01-02 03:04:05.123456"},
        {"2024-01-02 03:04:05.120", "2024-01-02 03:04:05.12"},
        {"2024-01-02 03:04:05.000", "2024-01-02 03:04:05"},
        {"2024-01-02 03:04:05.1234567", "2024-01-02 03:04:05.123457"},
        {"2024-01-02 03:04:05.1234564", "2024-01-02 03:04:05.123456"},
        {"2024-01-02 23:59:59.9999995", "2024-01-03 00:00:00"},
        {"2024-01-02", "2024-01-02 00:00:00"},
        {"2024-01-02 24:00:00", "2024-01-03 00:00:00"},
        {"2024-01-02 3:04", "2024-01-02 03:04:00"},
        {"2024-01-02 03:04:05+02", "2024-01-02 03:04:05"},
        {"2024-01-02 03:04:05-05:30", "2024-01-02 03:04:05"},
        {"2024-01-02 03:04:05 +0530", "2024-01-02 03:04:05"},
        {"2024-01-02T03:04:05Z", "2024-01-02 03:04:05"},
        {"2024-01-02 23:59:60", "2024-01-03 00:00:00"},
        {"1969-12-31 23:59:59.5", "1969-12-31 23:59:59.5"},
        {"0001-01-01 00:00:00", "0001-01-01 00:00:00"},
        {"9999-12-31 23:59:59.999999", "9999-12-31 23:59:59.999999"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_assert_str_eq(tstr(TS(cases[i].in)), cases[i].out, "%s", cases[i].in);
    cr_assert_eq(TS("1970-01-01 00:00:01"), 1000000);
    cr_assert_eq(TS("0001-01-01"), TS_MIN);
    cr_assert_eq(TS("9999-12-31 23:59:59.999999"), TS_MAX);
    cr_assert_eq(TS("1969-12-31 23:59:59.999999"), -1);
}

Test(datetime, timestamp_parse_errors) {
    int64_t t;
    EXPECT_ERR(ts_parse("2024-01-02 03:60:00", 19, &t, &err),
               "date/time field value out of range: \"2024-01-02 03:60:00\"");
    EXPECT_ERR(ts_parse("2024-01-02 24:00:01", 19, &t, &err),
               "date/time field value out of range: \"2024-01-02 24:00:01\"");
    EXPECT_ERR(ts_parse("2024-01-02 03:04:61", 19, &t, &err),
               "date/time field value out of range: \"2024-01-02 03:04:61\"");
    EXPECT_ERR(ts_parse("2023-02-29 00:00:00", 19, &t, &err),
               "date/time field value out of range: \"2023-02-29 00:00:00\"");
    EXPECT_ERR(ts_parse("9999-12-31 24:00:00", 19, &t, &err),
               "timestamp out of range: \"9999-12-31 24:00:00\"");
    EXPECT_ERR(ts_parse("10000-01-01 00:00:00", 20, &t, &err),
               "timestamp out of range: \"10000-01-01 00:00:00\"");
    const char *syntax[] = {"2024-01-02 3:4:5",        "2024-01-02 03:04:05.",    "2024-01-02 03",
                            "2024-01-02X03:04",        "2024-01-02 03:04:05 CET", "abc",
                            "2024-01-02 03:04:05+123", "2024-01-02 03:04:05+02:3"};
    for (size_t i = 0; i < sizeof syntax / sizeof syntax[0]; i++) {
        char want[128];
        snprintf(want, sizeof want, "invalid input syntax for type timestamp: \"%s\"", syntax[i]);
        EXPECT_ERR(ts_parse(syntax[i], strlen(syntax[i]), &t, &err), want);
    }
}

Test(datetime, timestamp_round_trips) {
    srand(5);
    char buf[32];
    for (int i = 0; i < 20000; i++) {
        uint64_t r = ((uint64_t)rand() << 42) ^ ((uint64_t)rand() << 21) ^ (uint64_t)rand();
        int64_t t = TS_MIN + (int64_t)(r % (uint64_t)(TS_MAX - TS_MIN + 1));
        if (i % 3 == 0) t -= t % MICROS_PER_SEC; /* whole seconds too */
        size_t n = ts_format(t, buf);
        int64_t back;
        EXPECT_OK(ts_parse(buf, n, &back, &err));
        cr_assert_eq(back, t, "%s", buf);
    }
}

/* ---- intervals ---- */

Test(datetime, interval_parse_and_format) {
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"3 days", "3 days"},
        {"1 day", "1 day"},
        {"1 year 2 months", "1 year 2 mons"},
        {"2 hours 30 minutes", "02:30:00"},
        {"1 day 02:03:04", "1 day 02:03:04"},
        {"-1 week", "-7 days"},
        {"1 year 2 mons 3 days 04:05:06", "1 year 2 mons 3 days 04:05:06"},
        {"0", "00:00:00"},
        {"0 days", "00:00:00"},
        {"1.5 days", "1 day 12:00:00"},
        {"0.5 month", "15 days"},
        {"1.5 months", "1 mon 15 days"},
        {"1.5 years", "1 year 6 mons"},
        {"1.5 weeks", "10 days 12:00:00"},
        {"-1 day 02:00:00", "-1 days +02:00:00"},
        {"1 day -02:00:00", "1 day -02:00:00"},
        {"@ 1 day ago", "-1 days"},
        {"1 year 2 months ago", "-1 years -2 mons"},
        {"1 year -2 mons", "10 mons"}, /* one month count, as PostgreSQL */
        {"-1 year 2 mons", "-10 mons"},
        {"-1 mon 1 day", "-1 mons +1 day"},
        {"-1 year 1 day", "-1 years +1 day"},
        {"-1 year -2 mons -3 days -04:05:06", "-1 years -2 mons -3 days -04:05:06"},
        {"10:00", "10:00:00"},
        {"-10:00:00", "-10:00:00"},
        {"-0:30", "-00:30:00"},
        {"100 hours", "100:00:00"},
        {"1.5 seconds", "00:00:01.5"},
        {"1 millisecond", "00:00:00.001"},
        {"1 microsecond", "00:00:00.000001"},
        {"3 DAYS", "3 days"},
        {"1 mon", "1 mon"},
        {"2 mons", "2 mons"},
        {"1 h 30 m", "01:30:00"},
        {"5", "00:00:05"},
        {"1 day 5", "1 day 00:00:05"},
        {"1 century", "100 years"},
        {"2 decades", "20 years"},
        {"1 millennium", "1000 years"},
        {"1 week 2 days", "9 days"},
        {"-1.5 hours", "-01:30:00"},
        {"3days", "3 days"},
        {"12:34:56.789", "12:34:56.789"},
        {"1 day 1 day", "2 days"},
        {"13 months", "1 year 1 mon"},
        {"-13 months", "-1 years -1 mons"},
        {"25 hours", "25:00:00"},
        {"+5 days", "5 days"},
        {"  2 years  ", "2 years"},
        {"1 mon -1 day 1:00", "1 mon -1 days +01:00:00"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_assert_str_eq(istr(IV(cases[i].in)), cases[i].out, "%s", cases[i].in);
    /* the canonical outputs read back to themselves */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_assert_str_eq(istr(IV(cases[i].out)), cases[i].out, "%s", cases[i].out);
    sql_interval iv = IV("1 year 2 months 3 days 04:05:06.5");
    cr_assert_eq(iv.months, 14);
    cr_assert_eq(iv.days, 3);
    cr_assert_eq(iv.micros, 14706500000);
}

Test(datetime, interval_with_a_separate_unit) {
    static const struct {
        const char *in, *unit, *out;
    } cases[] = {
        {"3", "day", "3 days"},
        {"3", "DAY", "3 days"},
        {"1.5", "hour", "01:30:00"},
        {"-2", "month", "-2 mons"},
        {"10", "years", "10 years"},
        {"3", "week", "21 days"},
        {"90", "day", "90 days"},
        {"45", "minute", "00:45:00"},
        {"2.5", "second", "00:00:02.5"},
        {"1 day 2 hours", "day", "1 day"},
        {"2 years 3 months", "year", "2 years"},
        {"1 day 02:03:04", "hour", "1 day 02:00:00"},
        {"1 day 02:03:04", "minute", "1 day 02:03:00"},
        {"1 year 2 months 3 days", "month", "1 year 2 mons"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sql_interval iv;
        EXPECT_OK(interval_parse(cases[i].in, strlen(cases[i].in), cases[i].unit, &iv, &err));
        cr_assert_str_eq(istr(iv), cases[i].out, "'%s' %s", cases[i].in, cases[i].unit);
    }
    sql_interval iv;
    EXPECT_ERR(interval_parse("3", 1, "fortnight", &iv, &err), "invalid interval unit: \"fortnight\"");
    EXPECT_ERR(interval_parse("x", 1, "day", &iv, &err), "invalid input syntax for type interval: \"x\"");
}

Test(datetime, interval_parse_errors) {
    sql_interval iv;
    const char *syntax[] = {"abc", "",    "3 fortnights", "1 day ago ago", "ago",     "1 day ago 2 days",
                            "1:",  "day", "1 2 3 x",      "1.5:30",        "- 1 day", "@"};
    for (size_t i = 0; i < sizeof syntax / sizeof syntax[0]; i++) {
        char want[128];
        snprintf(want, sizeof want, "invalid input syntax for type interval: \"%s\"", syntax[i]);
        EXPECT_ERR(interval_parse(syntax[i], strlen(syntax[i]), NULL, &iv, &err), want);
    }
    const char *range[] = {
        "99999999999 years", "3000000000 days", "1:60", "1:00:60", "99999999999999999999 seconds",
        "200000000 years",   "-3000000000 days"};
    for (size_t i = 0; i < sizeof range / sizeof range[0]; i++) {
        char want[128];
        snprintf(want, sizeof want, "interval field value out of range: \"%s\"", range[i]);
        EXPECT_ERR(interval_parse(range[i], strlen(range[i]), NULL, &iv, &err), want);
    }
}

Test(datetime, interval_format_extremes) {
    sql_interval iv = {INT32_MIN, INT32_MIN, INT64_MIN};
    cr_assert_str_eq(istr(iv), "-178956970 years -8 mons -2147483648 days -2562047788:00:54.775808");
    sql_interval mx = {INT32_MAX, INT32_MAX, INT64_MAX};
    cr_assert_str_eq(istr(mx), "178956970 years 7 mons 2147483647 days 2562047788:00:54.775807");
    cr_assert(strlen(istr(iv)) < VALUE_TEXT_MAX);
    sql_interval z = {0, 0, 0};
    cr_assert_str_eq(istr(z), "00:00:00");
    sql_interval neg_us = {0, 0, -1};
    cr_assert_str_eq(istr(neg_us), "-00:00:00.000001");
    sql_interval mixed = {0, 3, -1};
    cr_assert_str_eq(istr(mixed), "3 days -00:00:00.000001");
    sql_interval after_neg = {0, -3, 1};
    cr_assert_str_eq(istr(after_neg), "-3 days +00:00:00.000001");
}

Test(datetime, interval_arithmetic_and_comparison) {
    sql_interval r;
    EXPECT_OK(interval_add(IV("1 mon 2 days"), IV("3 days 01:00"), &r, &err));
    cr_assert_str_eq(istr(r), "1 mon 5 days 01:00:00");
    EXPECT_OK(interval_sub(IV("1 day"), IV("2 days"), &r, &err));
    cr_assert_str_eq(istr(r), "-1 days");
    EXPECT_OK(interval_neg(IV("1 year -2 days 03:00"), &r, &err));
    cr_assert_str_eq(istr(r), "-1 years +2 days -03:00:00");
    sql_interval big = {INT32_MAX, 0, 0}, minm = {INT32_MIN, 0, 0}, minus = {0, 0, INT64_MIN};
    EXPECT_ERR(interval_add(big, IV("1 mon"), &r, &err), "interval out of range");
    EXPECT_ERR(interval_neg(minm, &r, &err), "interval out of range");
    EXPECT_ERR(interval_neg(minus, &r, &err), "interval out of range");
    EXPECT_ERR(interval_sub(minm, IV("1 mon"), &r, &err), "interval out of range");
    cr_assert_eq(interval_compare(IV("1 mon"), IV("30 days")), 0);
    cr_assert_eq(interval_compare(IV("1 day"), IV("24 hours")), 0);
    cr_assert_eq(interval_compare(IV("1 day"), IV("25 hours")), -1);
    cr_assert_eq(interval_compare(IV("1 year"), IV("360 days")), 0);
    cr_assert_eq(interval_compare(IV("-1 day"), IV("00:00:00")), -1);
    cr_assert_eq(interval_compare(big, IV("1 day")), 1);
    cr_assert(interval_span(IV("1 mon 1 day 00:00:01")) == (int128)31 * MICROS_PER_DAY + MICROS_PER_SEC);
}

/* ---- timestamp +/- interval ---- */

static const char *add(const char *ts, const char *iv) {
    int64_t t;
    err_clear(&err);
    cr_assert_eq(ts_add_interval(TS(ts), IV(iv), &t, &err), STRATA_OK, "%s + %s: %s", ts, iv, err.msg);
    return tstr(t);
}

static const char *sub(const char *ts, const char *iv) {
    int64_t t;
    err_clear(&err);
    cr_assert_eq(ts_sub_interval(TS(ts), IV(iv), &t, &err), STRATA_OK, "%s - %s: %s", ts, iv, err.msg);
    return tstr(t);
}

Test(datetime, month_arithmetic_clamps_the_day) {
    cr_assert_str_eq(add("2023-01-31", "1 mon"), "2023-02-28 00:00:00");
    cr_assert_str_eq(add("2024-01-31", "1 mon"), "2024-02-29 00:00:00");
    cr_assert_str_eq(add("2024-03-31", "-1 mon"), "2024-02-29 00:00:00");
    cr_assert_str_eq(sub("2023-03-31", "1 mon"), "2023-02-28 00:00:00");
    cr_assert_str_eq(add("2024-02-29", "1 year"), "2025-02-28 00:00:00");
    cr_assert_str_eq(add("2024-02-29", "4 years"), "2028-02-29 00:00:00");
    cr_assert_str_eq(add("2024-01-31 10:00", "1 mon 1 day"), "2024-03-01 10:00:00"); /* months first */
    cr_assert_str_eq(add("2024-05-31", "1 mon"), "2024-06-30 00:00:00");
    cr_assert_str_eq(add("2024-01-15", "13 mons"), "2025-02-15 00:00:00");
    cr_assert_str_eq(add("2024-01-15", "-1 mon"), "2023-12-15 00:00:00");
    cr_assert_str_eq(add("2024-01-15", "-25 mons"), "2021-12-15 00:00:00");
    cr_assert_str_eq(add("2024-12-31 23:59:59", "1 second"), "2025-01-01 00:00:00");
    cr_assert_str_eq(add("2024-01-02 03:04:05", "1 day -02:00:00"), "2024-01-03 01:04:05");
    cr_assert_str_eq(add("2024-01-02", "-1 days +02:00:00"), "2024-01-01 02:00:00");
    cr_assert_str_eq(add("1969-12-31 23:59:59.5", "0.5 seconds"), "1970-01-01 00:00:00");
    cr_assert_str_eq(sub("1998-12-01", "90 days"), "1998-09-02 00:00:00"); /* TPC-H Q1 */
    cr_assert_str_eq(add("2024-01-02 03:04:05", "00:00:00"), "2024-01-02 03:04:05");
    int64_t t;
    EXPECT_ERR(ts_add_interval(TS("9999-12-31 12:00"), IV("1 day"), &t, &err), "timestamp out of range");
    EXPECT_ERR(ts_add_interval(TS("9999-12-01"), IV("1 mon"), &t, &err), "timestamp out of range");
    EXPECT_ERR(ts_sub_interval(TS_MIN, IV("1 microsecond"), &t, &err), "timestamp out of range");
    sql_interval huge = {INT32_MAX, INT32_MAX, INT64_MAX}, days = {0, INT32_MAX, 0};
    EXPECT_ERR(ts_add_interval(0, huge, &t, &err), "timestamp out of range");
    EXPECT_ERR(ts_add_interval(0, days, &t, &err), "timestamp out of range");
    sql_interval minm = {INT32_MIN, 0, 0};
    EXPECT_ERR(ts_sub_interval(0, minm, &t, &err), "interval out of range");
}

Test(datetime, timestamp_difference) {
    cr_assert_str_eq(istr(ts_diff(TS("2024-01-03 01:00"), TS("2024-01-01 00:00"))), "2 days 01:00:00");
    cr_assert_str_eq(istr(ts_diff(TS("2024-01-01 00:00"), TS("2024-01-03 01:00"))), "-2 days -01:00:00");
    cr_assert_str_eq(istr(ts_diff(TS("2024-03-01"), TS("2024-02-01"))), "29 days");
    cr_assert_str_eq(istr(ts_diff(TS("2024-01-01 00:00:00.5"), TS("2024-01-01"))), "00:00:00.5");
    cr_assert_str_eq(istr(ts_diff(TS("2024-01-01"), TS("2024-01-01"))), "00:00:00");
    cr_assert_str_eq(istr(ts_diff(TS_MAX, TS_MIN)), "3652058 days 23:59:59.999999");
    /* a + (b - a) == b */
    srand(9);
    for (int i = 0; i < 2000; i++) {
        int64_t a =
            TS_MIN / 2 + (int64_t)((((uint64_t)rand() << 31) ^ (uint64_t)rand()) % (uint64_t)(TS_MAX / 2));
        int64_t b =
            TS_MIN / 2 + (int64_t)((((uint64_t)rand() << 31) ^ (uint64_t)rand()) % (uint64_t)(TS_MAX / 2));
        int64_t back;
        EXPECT_OK(ts_add_interval(a, ts_diff(b, a), &back, &err));
        cr_assert_eq(back, b);
    }
}

/* ---- EXTRACT and date_trunc ---- */

static int64_t ex_ts(const char *field, const char *ts) {
    dt_field f;
    int64_t v;
    EXPECT_OK(dt_field_parse(field, strlen(field), TYPE_TIMESTAMP, &f, &err));
    EXPECT_OK(ts_extract(f, TS(ts), &v, &err));
    return v;
}

static int64_t ex_date(const char *field, const char *d) {
    dt_field f;
    int64_t v;
    EXPECT_OK(dt_field_parse(field, strlen(field), TYPE_DATE, &f, &err));
    EXPECT_OK(date_extract(f, D(d), &v, &err));
    return v;
}

static const char *ex_iv(const char *field, const char *iv) {
    static char buf[4][48];
    static int i;
    i = (i + 1) % 4;
    dt_field f;
    int64_t v;
    sql_type t;
    EXPECT_OK(dt_field_parse(field, strlen(field), TYPE_INTERVAL, &f, &err));
    EXPECT_OK(interval_extract(f, IV(iv), &v, &err));
    EXPECT_OK(dt_extract_type(f, TYPE_INTERVAL, &t, &err));
    if (t.id == TYPE_DECIMAL)
        dec_format(v, t.scale, buf[i]);
    else
        int_format(v, buf[i]);
    return buf[i];
}

Test(datetime, extract_from_timestamp) {
    const char *t = "2024-01-02 03:04:05.5";
    cr_assert_eq(ex_ts("year", t), 2024);
    cr_assert_eq(ex_ts("YEAR", t), 2024);
    cr_assert_eq(ex_ts("quarter", t), 1);
    cr_assert_eq(ex_ts("month", t), 1);
    cr_assert_eq(ex_ts("day", t), 2);
    cr_assert_eq(ex_ts("hour", t), 3);
    cr_assert_eq(ex_ts("minute", t), 4);
    cr_assert_eq(ex_ts("second", t), 5500000);       /* DECIMAL(8,6): 5.500000 */
    cr_assert_eq(ex_ts("milliseconds", t), 5500000); /* DECIMAL(8,3): 5500.000 */
    cr_assert_eq(ex_ts("microseconds", t), 5500000);
    cr_assert_eq(ex_ts("dow", t), 2); /* Tuesday */
    cr_assert_eq(ex_ts("isodow", t), 2);
    cr_assert_eq(ex_ts("doy", t), 2);
    cr_assert_eq(ex_ts("epoch", t), INT64_C(1704164645500000));
    cr_assert_eq(ex_ts("week", t), 1);
    cr_assert_eq(ex_ts("decade", t), 202);
    cr_assert_eq(ex_ts("century", t), 21);
    cr_assert_eq(ex_ts("millennium", t), 3);
    cr_assert_eq(ex_ts("quarter", "2024-12-31 23:59:59"), 4);
    cr_assert_eq(ex_ts("quarter", "2024-04-01"), 2);
    cr_assert_eq(ex_ts("dow", "2024-01-07"), 0); /* Sunday */
    cr_assert_eq(ex_ts("isodow", "2024-01-07"), 7);
    cr_assert_eq(ex_ts("doy", "2024-12-31"), 366);
    cr_assert_eq(ex_ts("doy", "2023-12-31"), 365);
    cr_assert_eq(ex_ts("century", "2000-06-01"), 20);
    cr_assert_eq(ex_ts("century", "2001-01-01"), 21);
    cr_assert_eq(ex_ts("millennium", "2000-12-31"), 2);
    cr_assert_eq(ex_ts("hour", "1969-12-31 23:00:00"), 23);
    cr_assert_eq(ex_ts("epoch", "1969-12-31 23:59:59"), -1000000);
    cr_assert_eq(ex_ts("year", "0001-01-01"), 1);
    cr_assert_eq(ex_ts("century", "0001-01-01"), 1);
    /* ISO weeks at year boundaries */
    cr_assert_eq(ex_ts("week", "2021-01-01"), 53); /* a Friday: week 53 of 2020 */
    cr_assert_eq(ex_ts("isoyear", "2021-01-01"), 2020);
    cr_assert_eq(ex_ts("week", "2008-12-29"), 1); /* a Monday: week 1 of 2009 */
    cr_assert_eq(ex_ts("isoyear", "2008-12-29"), 2009);
    cr_assert_eq(ex_ts("week", "2020-12-31"), 53);
    cr_assert_eq(ex_ts("week", "2024-12-30"), 1);
    cr_assert_eq(ex_ts("week", "2023-01-01"), 52);
    cr_assert_eq(ex_ts("week", "0001-01-01"), 1); /* a Monday */
    cr_assert_eq(ex_ts("week", "9999-12-31"), 52);
    sql_type ty;
    EXPECT_OK(dt_extract_type(DT_SECOND, TYPE_TIMESTAMP, &ty, &err));
    cr_assert(ty.id == TYPE_DECIMAL && ty.precision == 8 && ty.scale == 6);
    EXPECT_OK(dt_extract_type(DT_EPOCH, TYPE_TIMESTAMP, &ty, &err));
    cr_assert(ty.id == TYPE_DECIMAL && ty.precision == 18 && ty.scale == 6);
    EXPECT_OK(dt_extract_type(DT_YEAR, TYPE_TIMESTAMP, &ty, &err));
    cr_assert_eq(ty.id, TYPE_BIGINT);
    dt_field f;
    EXPECT_ERR(dt_field_parse("fortnight", 9, TYPE_TIMESTAMP, &f, &err),
               "unit \"fortnight\" not recognized for type timestamp");
}

Test(datetime, extract_from_date) {
    cr_assert_eq(ex_date("year", "2024-01-02"), 2024);
    cr_assert_eq(ex_date("month", "2024-01-02"), 1);
    cr_assert_eq(ex_date("day", "2024-01-02"), 2);
    cr_assert_eq(ex_date("epoch", "2024-01-02"), 1704153600);
    cr_assert_eq(ex_date("epoch", "1969-12-31"), -86400);
    cr_assert_eq(ex_date("dow", "1970-01-01"), 4);
    cr_assert_eq(ex_date("week", "2021-01-03"), 53);
    cr_assert_eq(ex_date("isoyear", "2021-01-03"), 2020);
    cr_assert_eq(ex_date("year", "9999-12-31"), 9999);
    int64_t v;
    EXPECT_ERR(date_extract(DT_HOUR, 0, &v, &err), "unit \"hour\" not supported for type date");
    EXPECT_ERR(date_extract(DT_SECOND, 0, &v, &err), "unit \"second\" not supported for type date");
    dt_field f;
    EXPECT_ERR(dt_field_parse("hours!", 6, TYPE_DATE, &f, &err),
               "unit \"hours!\" not recognized for type date");
    sql_type ty;
    EXPECT_OK(dt_extract_type(DT_EPOCH, TYPE_DATE, &ty, &err));
    cr_assert_eq(ty.id, TYPE_BIGINT);
}

Test(datetime, extract_from_interval) {
    const char *iv = "1 year 2 months 3 days 04:05:06.5";
    cr_assert_str_eq(ex_iv("year", iv), "1");
    cr_assert_str_eq(ex_iv("month", iv), "2");
    cr_assert_str_eq(ex_iv("day", iv), "3");
    cr_assert_str_eq(ex_iv("hour", iv), "4");
    cr_assert_str_eq(ex_iv("minute", iv), "5");
    cr_assert_str_eq(ex_iv("second", iv), "6.500000");
    cr_assert_str_eq(ex_iv("millisecond", iv), "6500.000");
    cr_assert_str_eq(ex_iv("microsecond", iv), "6500000");
    cr_assert_str_eq(ex_iv("epoch", iv), "37015506.500000"); /* 365.25 + 60 + 3 days, 04:05:06.5 */
    cr_assert_str_eq(ex_iv("quarter", iv), "1");
    cr_assert_str_eq(ex_iv("quarter", "11 months"), "4");
    cr_assert_str_eq(ex_iv("year", "-1 year -2 mons"), "-1");
    cr_assert_str_eq(ex_iv("month", "-1 year -2 mons"), "-2");
    cr_assert_str_eq(ex_iv("year", "-13 months"), "-1");
    cr_assert_str_eq(ex_iv("second", "-00:00:01.25"), "-1.250000");
    cr_assert_str_eq(ex_iv("hour", "100 hours"), "100");
    cr_assert_str_eq(ex_iv("epoch", "-1 day"), "-86400.000000");
    cr_assert_str_eq(ex_iv("epoch", "1 mon"), "2592000.000000");
    cr_assert_str_eq(ex_iv("century", "250 years"), "2");
    cr_assert_str_eq(ex_iv("decade", "25 years"), "2");
    cr_assert_str_eq(ex_iv("millennium", "2500 years"), "2");
    int64_t v;
    EXPECT_ERR(interval_extract(DT_DOW, IV("1 day"), &v, &err),
               "unit \"dow\" not supported for type interval");
    EXPECT_ERR(interval_extract(DT_WEEK, IV("1 day"), &v, &err),
               "unit \"week\" not supported for type interval");
    sql_interval huge = {INT32_MAX, 0, 0};
    EXPECT_ERR(interval_extract(DT_EPOCH, huge, &v, &err), "numeric field overflow");
}

static const char *trunc_ts(const char *field, const char *ts) {
    dt_field f;
    int64_t v;
    EXPECT_OK(dt_field_parse(field, strlen(field), TYPE_TIMESTAMP, &f, &err));
    EXPECT_OK(ts_trunc(f, TS(ts), &v, &err));
    return tstr(v);
}

Test(datetime, date_trunc) {
    const char *t = "2024-05-17 13:14:15.678901";
    cr_assert_str_eq(trunc_ts("microseconds", t), "2024-05-17 13:14:15.678901");
    cr_assert_str_eq(trunc_ts("milliseconds", t), "2024-05-17 13:14:15.678");
    cr_assert_str_eq(trunc_ts("second", t), "2024-05-17 13:14:15");
    cr_assert_str_eq(trunc_ts("minute", t), "2024-05-17 13:14:00");
    cr_assert_str_eq(trunc_ts("hour", t), "2024-05-17 13:00:00");
    cr_assert_str_eq(trunc_ts("day", t), "2024-05-17 00:00:00");
    cr_assert_str_eq(trunc_ts("week", t), "2024-05-13 00:00:00");
    cr_assert_str_eq(trunc_ts("week", "2024-05-13 00:00:01"), "2024-05-13 00:00:00");
    cr_assert_str_eq(trunc_ts("week", "2024-05-19 23:59:59"), "2024-05-13 00:00:00");
    cr_assert_str_eq(trunc_ts("month", t), "2024-05-01 00:00:00");
    cr_assert_str_eq(trunc_ts("quarter", t), "2024-04-01 00:00:00");
    cr_assert_str_eq(trunc_ts("year", t), "2024-01-01 00:00:00");
    cr_assert_str_eq(trunc_ts("decade", t), "2020-01-01 00:00:00");
    cr_assert_str_eq(trunc_ts("century", t), "2001-01-01 00:00:00");
    cr_assert_str_eq(trunc_ts("century", "2000-12-31"), "1901-01-01 00:00:00");
    cr_assert_str_eq(trunc_ts("millennium", t), "2001-01-01 00:00:00");
    cr_assert_str_eq(trunc_ts("millennium", "2000-01-01"), "1001-01-01 00:00:00");
    cr_assert_str_eq(trunc_ts("second", "1969-12-31 23:59:59.5"), "1969-12-31 23:59:59");
    cr_assert_str_eq(trunc_ts("milliseconds", "1969-12-31 23:59:59.0005"), "1969-12-31 23:59:59");
    cr_assert_str_eq(trunc_ts("year", "0001-06-01"), "0001-01-01 00:00:00");
    int64_t v;
    EXPECT_ERR(ts_trunc(DT_DOW, 0, &v, &err), "unit \"dow\" not supported for type timestamp");
    EXPECT_ERR(ts_trunc(DT_EPOCH, 0, &v, &err), "unit \"epoch\" not supported for type timestamp");
    EXPECT_ERR(ts_trunc(DT_DECADE, TS("0005-01-01"), &v, &err), "timestamp out of range");
}
