/*
** datetime.c -- DATE, TIMESTAMP and INTERVAL: the calendar, parsing and PostgreSQL-style output,
** date and interval arithmetic, EXTRACT and date_trunc.
**
** The calendar is the proleptic Gregorian one over day numbers relative to 1970-01-01, converted
** with Howard Hinnant's days_from_civil / civil_from_days algorithms (exact for any year); the
** supported range is years 1..9999 (DATE_MIN..DATE_MAX, TS_MIN..TS_MAX). Intervals follow
** PostgreSQL: months, days and microseconds are kept apart, month arithmetic clamps the day of
** the month, and intervals compare by a 30-day-month span.
*/
#include <string.h>

#include "value_internal.h"

static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }
static int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

/* ---- the calendar ---- */

bool date_is_leap(int64_t y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }

int date_days_in_month(int64_t y, int m) {
    static const int dim[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && date_is_leap(y) ? 29 : dim[m - 1];
}

int64_t date_from_ymd(int64_t y, int m, int d) {
    y -= m <= 2;
    int64_t era = floor_div(y, 400), yoe = y - era * 400;          /* [0, 399] */
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1; /* [0, 365], from March 1 */
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;           /* [0, 146096] */
    return era * 146097 + doe - 719468;                            /* 719468: 0000-03-01 to 1970 */
}

void date_to_ymd(int64_t z, int64_t *year, int *month, int *day) {
    z += 719468;
    int64_t era = floor_div(z, 146097), doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *day = (int)(doy - (153 * mp + 2) / 5 + 1);
    *month = (int)(mp < 10 ? mp + 3 : mp - 9);
    *year = yoe + era * 400 + (*month <= 2);
}

/* dow: 0 = Sunday; 1970-01-01 was a Thursday. */
static int dow(int64_t days) { return (int)floor_mod(days + 4, 7); }

/* iso_week gives the ISO 8601 week and its year: the week's Thursday decides the year. */
static void iso_week(int64_t days, int64_t *week, int64_t *isoyear) {
    int isodow = dow(days) == 0 ? 7 : dow(days);
    int64_t thursday = days + 4 - isodow, y;
    int m, d;
    date_to_ymd(thursday, &y, &m, &d);
    *isoyear = y;
    *week = (thursday - date_from_ymd(y, 1, 1)) / 7 + 1;
}

/* ---- date and timestamp text ---- */

typedef enum dt_status { DT_OK, DT_SYNTAX, DT_FIELD, DT_RANGE } dt_status;

/* digits reads 1..max digits at *p into *v (returns how many; 0 if none). */
static int digits(const char **p, const char *end, int max, int64_t *v) {
    int n = 0;
    *v = 0;
    while (*p < end && is_digit(**p) && n < max)
        *v = *v * 10 + (*(*p)++ - '0'), n++;
    return n;
}

/* parse_datetime reads 'Y-M-D[( |T)H:MM[:SS[.f]][zone]]' into a day number and the microseconds
** since that day's midnight (up to a whole day, for 24:00:00). */
static dt_status parse_datetime(const char *s, size_t len, int64_t *days, int64_t *micros) {
    const char *p = s, *end = s + len;
    trim_spaces(&p, &end);
    int64_t y, m, d, h = 0, mi = 0, sec = 0, frac = 0;
    if (digits(&p, end, 9, &y) < 4 || p == end || *p++ != '-') return DT_SYNTAX;
    if (digits(&p, end, 2, &m) == 0 || p == end || *p++ != '-') return DT_SYNTAX;
    if (digits(&p, end, 2, &d) == 0) return DT_SYNTAX;
    if (p < end) {
        if (*p == 'T' || *p == 't')
            p++;
        else if (is_space(*p))
            while (p < end && is_space(*p))
                p++;
        else
            return DT_SYNTAX;
        if (digits(&p, end, 2, &h) == 0 || p == end || *p++ != ':') return DT_SYNTAX;
        if (digits(&p, end, 2, &mi) != 2) return DT_SYNTAX;
        if (p < end && *p == ':') {
            p++;
            if (digits(&p, end, 2, &sec) != 2) return DT_SYNTAX;
            if (p < end && *p == '.') {
                p++;
                int n = 0;
                for (; p < end && is_digit(*p); p++, n++) {
                    if (n < 6)
                        frac = frac * 10 + (*p - '0');
                    else if (n == 6 && *p >= '5')
                        frac++; /* round at the seventh digit */
                }
                if (n == 0) return DT_SYNTAX;
                for (; n < 6; n++)
                    frac *= 10;
            }
        }
        while (p < end && is_space(*p))
            p++;
        if (p < end) { /* a time zone, which a timestamp without time zone ignores */
            int64_t zh, zm;
            if (*p == 'Z' || *p == 'z') {
                p++;
            } else if (*p == '+' || *p == '-') {
                p++;
                int n = digits(&p, end, 4, &zh);
                if (n == 0 || n == 3) return DT_SYNTAX;
                if (n <= 2 && p < end && *p == ':') {
                    p++;
                    if (digits(&p, end, 2, &zm) != 2) return DT_SYNTAX;
                }
            }
            if (p != end) return DT_SYNTAX;
        }
    }
    if (y == 0 || m < 1 || m > 12 || d < 1 || d > date_days_in_month(y, (int)m)) return DT_FIELD;
    if (h > 24 || mi > 59 || sec > 60 || (h == 24 && (mi || sec || frac))) return DT_FIELD;
    if (y > 9999) return DT_RANGE;
    *days = date_from_ymd(y, (int)m, (int)d);
    *micros = h * MICROS_PER_HOUR + mi * MICROS_PER_MINUTE + sec * MICROS_PER_SEC + frac;
    return DT_OK;
}

static int dt_error(dt_status st, const char *type, const char *s, size_t len, strata_err *err) {
    if (st == DT_SYNTAX)
        return err_set(err, STRATA_ERROR, "invalid input syntax for type %s: \"%.*s\"", type, QUOTE_LEN(len),
                       s);
    if (st == DT_FIELD)
        return err_set(err, STRATA_ERROR, "date/time field value out of range: \"%.*s\"", QUOTE_LEN(len), s);
    return err_set(err, STRATA_ERROR, "%s out of range: \"%.*s\"", type, QUOTE_LEN(len), s);
}

int date_parse(const char *s, size_t len, int32_t *out, strata_err *err) {
    int64_t days, micros;
    dt_status st = parse_datetime(s, len, &days, &micros);
    if (st != DT_OK) return dt_error(st, "date", s, len, err);
    *out = (int32_t)days;
    return STRATA_OK;
}

int ts_parse(const char *s, size_t len, int64_t *out, strata_err *err) {
    int64_t days, micros;
    dt_status st = parse_datetime(s, len, &days, &micros);
    if (st == DT_OK && days * MICROS_PER_DAY + micros > TS_MAX) st = DT_RANGE;
    if (st != DT_OK) return dt_error(st, "timestamp", s, len, err);
    *out = days * MICROS_PER_DAY + micros;
    return STRATA_OK;
}

/* put writes v as exactly n digits (zero-padded) and returns the position after them. */
static char *put(char *p, int64_t v, int n) {
    for (int i = n - 1; i >= 0; i--, v /= 10)
        p[i] = (char)('0' + v % 10);
    return p + n;
}

/* put_fraction writes '.' and micros (0 < micros < 10^6) without trailing zeros. */
static char *put_fraction(char *p, int64_t micros) {
    int n = 6;
    while (micros % 10 == 0)
        micros /= 10, n--;
    *p++ = '.';
    return put(p, micros, n);
}

size_t date_format(int32_t days, char *buf) {
    int64_t y;
    int m, d;
    date_to_ymd(days, &y, &m, &d);
    char *p = put(buf, y, y > 9999 ? 5 : 4);
    *p++ = '-';
    p = put(p, m, 2);
    *p++ = '-';
    p = put(p, d, 2);
    *p = '\0';
    return (size_t)(p - buf);
}

size_t ts_format(int64_t ts, char *buf) {
    int64_t days = floor_div(ts, MICROS_PER_DAY), t = floor_mod(ts, MICROS_PER_DAY);
    char *p = buf + date_format((int32_t)days, buf);
    *p++ = ' ';
    p = put(p, t / MICROS_PER_HOUR, 2);
    *p++ = ':';
    p = put(p, t / MICROS_PER_MINUTE % 60, 2);
    *p++ = ':';
    p = put(p, t / MICROS_PER_SEC % 60, 2);
    if (t % MICROS_PER_SEC) p = put_fraction(p, t % MICROS_PER_SEC);
    *p = '\0';
    return (size_t)(p - buf);
}

/* ---- interval text ---- */

typedef enum iv_unit {
    U_MICRO,
    U_MILLI,
    U_SECOND,
    U_MINUTE,
    U_HOUR,
    U_DAY,
    U_WEEK,
    U_MONTH,
    U_YEAR,
    U_DECADE,
    U_CENTURY,
    U_MILLENNIUM,
    U_NONE
} iv_unit;

/* word_in: the n bytes at w are, ignoring case, one of the space-separated lower-case names. */
static bool word_in(const char *w, size_t n, const char *names) {
    for (const char *p = names; *p;) {
        size_t k = strcspn(p, " "), i = 0;
        if (k == n)
            while (i < n && to_lower(w[i]) == p[i])
                i++;
        if (k == n && i == n) return true;
        p += k + (p[k] == ' ');
    }
    return false;
}

/* The spellings of each unit, in iv_unit order. */
static const char *const iv_unit_names[] = {
    "microsecond microseconds us usec usecs",
    "millisecond milliseconds ms msec msecs",
    "second seconds s sec secs",
    "minute minutes m min mins",
    "hour hours h hr hrs",
    "day days d",
    "week weeks w",
    "month months mon mons",
    "year years y yr yrs",
    "decade decades",
    "century centuries",
    "millennium millennia millenniums",
};

static iv_unit unit_lookup(const char *w, size_t n) {
    for (int u = 0; u < U_NONE; u++)
        if (word_in(w, n, iv_unit_names[u])) return (iv_unit)u;
    return U_NONE;
}

/* An interval being accumulated, in 64-bit fields checked at the end. */
typedef struct iv_acc {
    int64_t months, days, micros;
    bool overflow;
} iv_acc;

static void acc_add(int64_t *field, int64_t v, bool *overflow) {
    if (__builtin_add_overflow(*field, v, field)) *overflow = true;
}

static int64_t mul_or_flag(int64_t a, int64_t b, bool *overflow) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) *overflow = true;
    return r;
}

/* apply adds (whole + frac) units, whole and frac having the same sign and |frac| < 1, spilling
** the fraction down as PostgreSQL does: years to whole months, months to 30 days, weeks to 7
** days, days and below to microseconds. */
static void apply(iv_acc *acc, iv_unit u, int64_t whole, double frac) {
    static const int64_t micros_of[] = {1, 1000, MICROS_PER_SEC, MICROS_PER_MINUTE, MICROS_PER_HOUR};
    static const int64_t months_of[] = {12, 120, 1200, 12000};
    bool *ov = &acc->overflow;
    if (u <= U_HOUR) {
        acc_add(&acc->micros, mul_or_flag(whole, micros_of[u], ov), ov);
        acc_add(&acc->micros, (int64_t)dbl_round_half_even(frac * (double)micros_of[u]), ov);
    } else if (u == U_DAY || u == U_WEEK || u == U_MONTH) {
        int64_t per = u == U_DAY ? 1 : u == U_WEEK ? 7 : 30;
        if (u == U_MONTH)
            acc_add(&acc->months, whole, ov);
        else
            acc_add(&acc->days, mul_or_flag(whole, per, ov), ov);
        double fd = frac * (double)per;
        int64_t wd = (int64_t)fd; /* whole days of the fraction, toward zero */
        acc_add(&acc->days, wd, ov);
        acc_add(&acc->micros, (int64_t)dbl_round_half_even((fd - (double)wd) * (double)MICROS_PER_DAY), ov);
    } else {
        int64_t per = months_of[u - U_YEAR];
        acc_add(&acc->months, mul_or_flag(whole, per, ov), ov);
        acc_add(&acc->months, (int64_t)dbl_round_half_even(frac * (double)per), ov);
    }
}

/* number reads [+-]digits[.digits] or [+-].digits; false when there is no digit. */
static bool number(const char **pp, const char *end, int64_t *whole, double *frac, bool *overflow) {
    const char *p = *pp;
    bool neg = false, any = false;
    if (p < end && (*p == '+' || *p == '-')) neg = *p++ == '-';
    int64_t w = 0;
    for (; p < end && is_digit(*p); p++) {
        any = true;
        if (__builtin_mul_overflow(w, 10, &w) || __builtin_add_overflow(w, *p - '0', &w)) *overflow = true;
    }
    double f = 0, scale = 1;
    if (p < end && *p == '.') {
        p++;
        int64_t num = 0;
        for (int n = 0; p < end && is_digit(*p); p++, n++) {
            any = true;
            if (n < 17) num = num * 10 + (*p - '0'), scale *= 10;
        }
        f = (double)num / scale;
    }
    if (!any) return false;
    *whole = neg ? -w : w;
    *frac = neg ? -f : f;
    *pp = p;
    return true;
}

/* time_field reads the rest of [-]H:MM[:SS[.f]] after the hours, into microseconds. */
static bool time_field(const char **pp, const char *end, int64_t hours, bool neg, iv_acc *acc) {
    const char *p = *pp;
    int64_t mi, sec = 0, frac = 0;
    if (p == end || *p++ != ':' || digits(&p, end, 2, &mi) == 0) return false;
    if (p < end && *p == ':') {
        p++;
        if (digits(&p, end, 2, &sec) == 0) return false;
        if (p < end && *p == '.') {
            p++;
            int n = 0;
            for (; p < end && is_digit(*p); p++, n++) {
                if (n < 6)
                    frac = frac * 10 + (*p - '0');
                else if (n == 6 && *p >= '5')
                    frac++;
            }
            for (; n < 6; n++)
                frac *= 10;
        }
    }
    if (mi > 59 || sec > 59) acc->overflow = true;
    int64_t t = mi * MICROS_PER_MINUTE + sec * MICROS_PER_SEC + frac;
    acc_add(&t, mul_or_flag(hours < 0 ? -hours : hours, MICROS_PER_HOUR, &acc->overflow), &acc->overflow);
    acc_add(&acc->micros, neg ? -t : t, &acc->overflow);
    *pp = p;
    return true;
}

int interval_parse(const char *s, size_t len, const char *unit, sql_interval *out, strata_err *err) {
    const char *p = s, *end = s + len;
    trim_spaces(&p, &end);
    iv_acc acc = {0, 0, 0, false};
    iv_unit outer = U_NONE;
    if (unit != NULL && (outer = unit_lookup(unit, strlen(unit))) == U_NONE)
        return err_set(err, STRATA_ERROR, "invalid interval unit: \"%s\"", unit);
    const char *q = p;
    int64_t whole;
    double frac;
    if (outer != U_NONE && number(&q, end, &whole, &frac, &acc.overflow) && q == end) {
        apply(&acc, outer, whole, frac); /* INTERVAL '3' DAY */
    } else {
        bool ago = false, any = false;
        if (p < end && *p == '@') p++;
        while (p < end) {
            while (p < end && is_space(*p))
                p++;
            if (p == end) break;
            if (ago) goto syntax; /* "ago" comes last */
            const char *start = p;
            if (number(&p, end, &whole, &frac, &acc.overflow)) {
                if (p < end && *p == ':') { /* a time of day, its sign covering all of it */
                    const char *h = start;
                    if (*h == '+' || *h == '-') h++;
                    if (frac != 0 || *h == '.' || !time_field(&p, end, whole, *start == '-', &acc))
                        goto syntax;
                } else {
                    while (p < end && is_space(*p))
                        p++;
                    const char *w = p;
                    while (p < end && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
                        p++;
                    iv_unit u = w == p ? U_SECOND : unit_lookup(w, (size_t)(p - w));
                    if (u == U_NONE) goto syntax;
                    apply(&acc, u, whole, frac);
                }
                any = true;
            } else {
                const char *w = p;
                while (p < end && !is_space(*p))
                    p++;
                if (!any || !word_eq_ci(w, (size_t)(p - w), "ago")) goto syntax;
                ago = true;
            }
        }
        if (!any) goto syntax;
        if (ago) acc.months = -acc.months, acc.days = -acc.days, acc.micros = -acc.micros;
        /* INTERVAL '1 day 2 hours' DAY keeps only the fields down to the unit */
        if (outer >= U_YEAR && outer != U_NONE) acc.months -= acc.months % 12;
        if (outer >= U_MONTH && outer != U_NONE) acc.days = 0;
        if (outer >= U_DAY && outer != U_NONE) acc.micros = 0;
        if (outer == U_HOUR || outer == U_MINUTE) {
            int64_t per = outer == U_HOUR ? MICROS_PER_HOUR : MICROS_PER_MINUTE;
            acc.micros -= acc.micros % per;
        }
    }
    if (acc.overflow || acc.months > INT32_MAX || acc.months < INT32_MIN || acc.days > INT32_MAX ||
        acc.days < INT32_MIN)
        return err_set(err, STRATA_ERROR, "interval field value out of range: \"%.*s\"", QUOTE_LEN(len), s);
    out->months = (int32_t)acc.months;
    out->days = (int32_t)acc.days;
    out->micros = acc.micros;
    return STRATA_OK;
syntax:
    return err_set(err, STRATA_ERROR, "invalid input syntax for type interval: \"%.*s\"", QUOTE_LEN(len), s);
}

/* put_int writes a signed decimal integer. */
static char *put_int(char *p, int64_t v) { return p + int_format(v, p); }

/* put_part appends "<v> <unit>[s]" for a nonzero part, PostgreSQL's AddPostgresIntPart: a '+' marks
** a positive part that follows a negative one. */
static char *put_part(char *p, int64_t v, const char *unit, bool *is_zero, bool *is_before) {
    if (v == 0) return p;
    if (!*is_zero) *p++ = ' ';
    if (*is_before && v > 0) *p++ = '+';
    p = put_int(p, v);
    *p++ = ' ';
    size_t n = strlen(unit);
    memcpy(p, unit, n);
    p += n;
    if (v != 1) *p++ = 's';
    *is_before = v < 0;
    *is_zero = false;
    return p;
}

size_t interval_format(sql_interval iv, char *buf) {
    bool is_zero = true, is_before = false;
    char *p = buf;
    p = put_part(p, iv.months / 12, "year", &is_zero, &is_before);
    p = put_part(p, iv.months % 12, "mon", &is_zero, &is_before);
    p = put_part(p, iv.days, "day", &is_zero, &is_before);
    if (is_zero || iv.micros != 0) {
        int64_t h = iv.micros / MICROS_PER_HOUR, mi = iv.micros / MICROS_PER_MINUTE % 60;
        int64_t sec = iv.micros / MICROS_PER_SEC % 60, fs = iv.micros % MICROS_PER_SEC;
        bool minus = iv.micros < 0;
        if (!is_zero) *p++ = ' ';
        if (minus)
            *p++ = '-';
        else if (is_before)
            *p++ = '+';
        h = h < 0 ? -h : h;
        p = h >= 100 ? put_int(p, h) : put(p, h, 2);
        *p++ = ':';
        p = put(p, mi < 0 ? -mi : mi, 2);
        *p++ = ':';
        p = put(p, sec < 0 ? -sec : sec, 2);
        if (fs) p = put_fraction(p, fs < 0 ? -fs : fs);
    }
    *p = '\0';
    return (size_t)(p - buf);
}

/* ---- arithmetic ---- */

int date_add_days(int32_t d, int64_t n, int32_t *out, strata_err *err) {
    int64_t r;
    if (__builtin_add_overflow((int64_t)d, n, &r) || r < DATE_MIN || r > DATE_MAX)
        return err_set(err, STRATA_ERROR, "date out of range");
    *out = (int32_t)r;
    return STRATA_OK;
}

int32_t ts_to_date(int64_t ts) { return (int32_t)floor_div(ts, MICROS_PER_DAY); }

static int ts_range(strata_err *err) { return err_set(err, STRATA_ERROR, "timestamp out of range"); }

int ts_add_interval(int64_t ts, sql_interval iv, int64_t *out, strata_err *err) {
    int64_t t = ts;
    if (iv.months != 0) {
        int64_t days = floor_div(t, MICROS_PER_DAY), y;
        int m, d;
        date_to_ymd(days, &y, &m, &d);
        int64_t mm = y * 12 + (m - 1) + iv.months, ny = floor_div(mm, 12);
        int nm = (int)floor_mod(mm, 12) + 1;
        if (ny < 1 || ny > 9999) return ts_range(err);
        int dim = date_days_in_month(ny, nm);
        t = date_from_ymd(ny, nm, d > dim ? dim : d) * MICROS_PER_DAY + floor_mod(t, MICROS_PER_DAY);
    }
    int64_t day_micros;
    if (__builtin_mul_overflow((int64_t)iv.days, MICROS_PER_DAY, &day_micros) ||
        __builtin_add_overflow(t, day_micros, &t) || __builtin_add_overflow(t, iv.micros, &t) || t < TS_MIN ||
        t > TS_MAX)
        return ts_range(err);
    *out = t;
    return STRATA_OK;
}

int ts_sub_interval(int64_t ts, sql_interval iv, int64_t *out, strata_err *err) {
    sql_interval neg;
    int rc = interval_neg(iv, &neg, err);
    return rc != STRATA_OK ? rc : ts_add_interval(ts, neg, out, err);
}

sql_interval ts_diff(int64_t a, int64_t b) {
    int64_t m = a - b; /* at most ~3.2e17 for timestamps in range */
    sql_interval r = {0, (int32_t)(m / MICROS_PER_DAY), m % MICROS_PER_DAY};
    return r;
}

static int iv_range(strata_err *err) { return err_set(err, STRATA_ERROR, "interval out of range"); }

int interval_add(sql_interval a, sql_interval b, sql_interval *out, strata_err *err) {
    sql_interval r;
    if (__builtin_add_overflow(a.months, b.months, &r.months) ||
        __builtin_add_overflow(a.days, b.days, &r.days) ||
        __builtin_add_overflow(a.micros, b.micros, &r.micros))
        return iv_range(err);
    *out = r;
    return STRATA_OK;
}

int interval_sub(sql_interval a, sql_interval b, sql_interval *out, strata_err *err) {
    sql_interval r;
    if (__builtin_sub_overflow(a.months, b.months, &r.months) ||
        __builtin_sub_overflow(a.days, b.days, &r.days) ||
        __builtin_sub_overflow(a.micros, b.micros, &r.micros))
        return iv_range(err);
    *out = r;
    return STRATA_OK;
}

int interval_neg(sql_interval a, sql_interval *out, strata_err *err) {
    sql_interval zero = {0, 0, 0};
    return interval_sub(zero, a, out, err);
}

int128 interval_span(sql_interval iv) {
    return ((int128)iv.months * 30 + iv.days) * MICROS_PER_DAY + iv.micros;
}

int interval_compare(sql_interval a, sql_interval b) {
    int128 x = interval_span(a), y = interval_span(b);
    return x < y ? -1 : x > y;
}

/* ---- EXTRACT and date_trunc ---- */

/* The spellings of each field, in dt_field order; the first is the name messages use. */
static const char *const dt_field_names[] = {"millennium millenniums millennia mil mils",
                                             "century centuries c cent",
                                             "decade decades dec decs",
                                             "year years y yr yrs",
                                             "isoyear",
                                             "quarter qtr",
                                             "month months mon mons",
                                             "week weeks w",
                                             "day days d",
                                             "dow",
                                             "isodow",
                                             "doy",
                                             "hour hours h hr hrs",
                                             "minute minutes m min mins",
                                             "second seconds s sec secs",
                                             "millisecond milliseconds ms msec msecs",
                                             "microsecond microseconds us usec usecs",
                                             "epoch"};

/* field_name_len: the length of f's first spelling, the one messages use. */
static int field_name_len(dt_field f) { return (int)strcspn(dt_field_names[f], " "); }

int dt_field_parse(const char *name, size_t len, uint8_t type_id, dt_field *out, strata_err *err) {
    for (int f = 0; f <= DT_EPOCH; f++)
        if (word_in(name, len, dt_field_names[f])) {
            *out = (dt_field)f;
            return STRATA_OK;
        }
    return err_set(err, STRATA_ERROR, "unit \"%.*s\" not recognized for type %s", QUOTE_LEN(len), name,
                   sql_type_name(type_id));
}

static bool is_time_field(dt_field f) { return f >= DT_HOUR && f <= DT_MICROSECOND; }
static bool is_calendar_field(dt_field f) {
    return f == DT_ISOYEAR || (f >= DT_WEEK && f <= DT_DOY && f != DT_DAY);
}

int dt_extract_type(dt_field f, uint8_t type_id, sql_type *out, strata_err *err) {
    if ((type_id == TYPE_DATE && is_time_field(f)) || (type_id == TYPE_INTERVAL && is_calendar_field(f)) ||
        (type_id != TYPE_DATE && type_id != TYPE_TIMESTAMP && type_id != TYPE_INTERVAL))
        return err_set(err, STRATA_ERROR, "unit \"%.*s\" not supported for type %s", field_name_len(f),
                       dt_field_names[f], sql_type_name(type_id));
    if (f == DT_SECOND)
        *out = sql_type_decimal(8, 6);
    else if (f == DT_MILLISECOND)
        *out = sql_type_decimal(8, 3);
    else if (f == DT_EPOCH && type_id != TYPE_DATE)
        *out = sql_type_decimal(18, 6);
    else
        *out = sql_type_make(TYPE_BIGINT);
    return STRATA_OK;
}

/* extract_days gives the calendar fields of a day number; false for a time field. */
static bool extract_days(dt_field f, int64_t days, int64_t *out) {
    int64_t y, week, isoyear;
    int m, d;
    date_to_ymd(days, &y, &m, &d);
    switch (f) {
    case DT_MILLENNIUM: *out = y > 0 ? (y + 999) / 1000 : -((999 - (y - 1)) / 1000); return true;
    case DT_CENTURY: *out = y > 0 ? (y + 99) / 100 : -((99 - (y - 1)) / 100); return true;
    case DT_DECADE: *out = floor_div(y, 10); return true;
    case DT_YEAR: *out = y; return true;
    case DT_QUARTER: *out = (m - 1) / 3 + 1; return true;
    case DT_MONTH: *out = m; return true;
    case DT_DAY: *out = d; return true;
    case DT_DOW: *out = dow(days); return true;
    case DT_ISODOW: *out = dow(days) == 0 ? 7 : dow(days); return true;
    case DT_DOY: *out = days - date_from_ymd(y, 1, 1) + 1; return true;
    case DT_WEEK: iso_week(days, &week, &isoyear), *out = week; return true;
    case DT_ISOYEAR: iso_week(days, &week, &isoyear), *out = isoyear; return true;
    default: return false;
    }
}

int date_extract(dt_field f, int32_t d, int64_t *out, strata_err *err) {
    sql_type t;
    int rc = dt_extract_type(f, TYPE_DATE, &t, err);
    if (rc != STRATA_OK) return rc;
    if (f == DT_EPOCH)
        *out = (int64_t)d * 86400;
    else
        extract_days(f, d, out);
    return STRATA_OK;
}

int ts_extract(dt_field f, int64_t ts, int64_t *out, strata_err *err) {
    int64_t t = floor_mod(ts, MICROS_PER_DAY);
    switch (f) {
    case DT_HOUR: *out = t / MICROS_PER_HOUR; break;
    case DT_MINUTE: *out = t / MICROS_PER_MINUTE % 60; break;
    case DT_SECOND:      /* DECIMAL(8,6): the microseconds of the minute */
    case DT_MILLISECOND: /* DECIMAL(8,3): milliseconds with 3 decimals, the same number */
    case DT_MICROSECOND: *out = t % MICROS_PER_MINUTE; break;
    case DT_EPOCH: *out = ts; break; /* DECIMAL(18,6) seconds */
    default: extract_days(f, floor_div(ts, MICROS_PER_DAY), out); break;
    }
    (void)err;
    return STRATA_OK;
}

int interval_extract(dt_field f, sql_interval iv, int64_t *out, strata_err *err) {
    sql_type t;
    int rc = dt_extract_type(f, TYPE_INTERVAL, &t, err);
    if (rc != STRATA_OK) return rc;
    int64_t years = iv.months / 12;
    switch (f) {
    case DT_MILLENNIUM: *out = years / 1000; break;
    case DT_CENTURY: *out = years / 100; break;
    case DT_DECADE: *out = years / 10; break;
    case DT_YEAR: *out = years; break;
    case DT_QUARTER: *out = iv.months % 12 / 3 + 1; break;
    case DT_MONTH: *out = iv.months % 12; break;
    case DT_DAY: *out = iv.days; break;
    case DT_HOUR: *out = iv.micros / MICROS_PER_HOUR; break;
    case DT_MINUTE: *out = iv.micros / MICROS_PER_MINUTE % 60; break;
    case DT_SECOND:
    case DT_MILLISECOND:
    case DT_MICROSECOND: *out = iv.micros % MICROS_PER_MINUTE; break;
    default: { /* DT_EPOCH: a year of 365.25 days, a month of 30 (PostgreSQL), in quarter days */
        int128 quarter_days = (int128)1461 * years + (int128)120 * (iv.months % 12) + (int128)4 * iv.days;
        return sum_to_dec(quarter_days * (MICROS_PER_DAY / 4) + iv.micros, 18, out, err);
    }
    }
    return STRATA_OK;
}

int ts_trunc(dt_field f, int64_t ts, int64_t *out, strata_err *err) {
    int64_t days = floor_div(ts, MICROS_PER_DAY), t = floor_mod(ts, MICROS_PER_DAY), y;
    int m, d;
    date_to_ymd(days, &y, &m, &d);
    switch (f) {
    case DT_MICROSECOND: *out = ts; return STRATA_OK;
    case DT_MILLISECOND: *out = ts - floor_mod(ts, 1000); return STRATA_OK;
    case DT_SECOND: *out = ts - t % MICROS_PER_SEC; return STRATA_OK;
    case DT_MINUTE: *out = ts - t % MICROS_PER_MINUTE; return STRATA_OK;
    case DT_HOUR: *out = ts - t % MICROS_PER_HOUR; return STRATA_OK;
    case DT_DAY: break;
    case DT_WEEK: days -= (dow(days) + 6) % 7; break;
    case DT_MONTH: days = date_from_ymd(y, m, 1); break;
    case DT_QUARTER: days = date_from_ymd(y, (m - 1) / 3 * 3 + 1, 1); break;
    case DT_YEAR: days = date_from_ymd(y, 1, 1); break;
    case DT_DECADE: days = date_from_ymd(y - floor_mod(y, 10), 1, 1); break;
    case DT_CENTURY: days = date_from_ymd((y - 1) / 100 * 100 + 1, 1, 1); break;
    case DT_MILLENNIUM: days = date_from_ymd((y - 1) / 1000 * 1000 + 1, 1, 1); break;
    default:
        return err_set(err, STRATA_ERROR, "unit \"%.*s\" not supported for type timestamp", field_name_len(f),
                       dt_field_names[f]);
    }
    /* decade 0 of year 1..9 would start before year 1 */
    if (days < DATE_MIN) return ts_range(err);
    *out = days * MICROS_PER_DAY;
    return STRATA_OK;
}
