/*
** value_scalar.c -- the scalar types other than DECIMAL and date/time: type names, checked integer
** arithmetic, DOUBLE arithmetic, parsing and shortest round-trip output, BOOLEAN, VARCHAR length
** rules, and BLOB text forms.
**
** No libm: the library links without -lm, so rounding (rint) is done by hand and only the
** classification macros of math.h, which compile to builtins, are used.
*/
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "value_internal.h"

/* ---- types ---- */

sql_type sql_type_make(uint8_t id) {
    sql_type t = {id, 0, 0, 0};
    if (id == TYPE_DECIMAL) t.precision = 18, t.scale = 3;
    return t;
}

sql_type sql_type_decimal(uint8_t precision, uint8_t scale) {
    sql_type t = {TYPE_DECIMAL, precision, scale, 0};
    return t;
}

sql_type sql_type_varchar(uint32_t max_len) {
    sql_type t = {TYPE_VARCHAR, 0, 0, max_len};
    return t;
}

int sql_type_check_decimal(int64_t precision, int64_t scale, strata_err *err) {
    if (precision < 1 || precision > DEC_MAX_PRECISION)
        return err_set(err, STRATA_ERROR, "DECIMAL precision %lld must be between 1 and %d",
                       (long long)precision, DEC_MAX_PRECISION);
    if (scale < 0 || scale > precision)
        return err_set(err, STRATA_ERROR, "DECIMAL scale %lld must be between 0 and precision %lld",
                       (long long)scale, (long long)precision);
    return STRATA_OK;
}

bool sql_type_equal(sql_type a, sql_type b) {
    if (a.id != b.id) return false;
    if (a.id == TYPE_DECIMAL) return a.precision == b.precision && a.scale == b.scale;
    if (a.id == TYPE_VARCHAR) return a.max_len == b.max_len;
    return true;
}

const char *sql_type_name(uint8_t id) {
    static const char *const names[TYPE_COUNT] = {
        "unknown", "boolean",           "smallint", "integer", "bigint",    "double precision",
        "numeric", "character varying", "blob",     "date",    "timestamp", "interval"};
    return id < TYPE_COUNT ? names[id] : "invalid type";
}

size_t sql_type_format(sql_type t, char *buf, size_t cap) {
    int n;
    if (t.id == TYPE_DECIMAL)
        n = snprintf(buf, cap, "numeric(%u,%u)", t.precision, t.scale);
    else if (t.id == TYPE_VARCHAR && t.max_len)
        n = snprintf(buf, cap, "character varying(%u)", (unsigned)t.max_len);
    else
        n = snprintf(buf, cap, "%s", sql_type_name(t.id));
    return n < 0 ? 0 : (size_t)n;
}

/* ---- strings ---- */

sstr sstr_ref(const char *p, uint32_t len) {
    sstr s;
    memset(&s, 0, sizeof s);
    s.len = len;
    if (len <= SSTR_INLINE) {
        if (len) memcpy(s.u.inl, p, len);
    } else {
        memcpy(s.u.ext.prefix, p, 4);
        s.u.ext.ptr = p;
    }
    return s;
}

int sstr_copy(arena *a, const char *p, size_t len, sstr *out, strata_err *err) {
    if (len > UINT32_MAX) return err_set(err, STRATA_TOOBIG, "string of %zu bytes is too long", len);
    if (len <= SSTR_INLINE) {
        *out = sstr_ref(p, (uint32_t)len);
        return STRATA_OK;
    }
    if (a == NULL) return err_set(err, STRATA_MISUSE, "a string of %zu bytes needs an arena", len);
    char *copy = arena_alloc(a, len);
    if (copy == NULL) return err_set(err, STRATA_NOMEM, "out of memory copying a string of %zu bytes", len);
    memcpy(copy, p, len);
    *out = sstr_ref(copy, (uint32_t)len);
    return STRATA_OK;
}

size_t utf8_length(const char *s, size_t len) {
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xc0) != 0x80;
    return n;
}

int varchar_check(const char *s, size_t len, uint32_t max_len, bool explicit_cast, size_t *out_len,
                  strata_err *err) {
    size_t cut = 0, chars = 0;
    if (max_len == 0 || len <= max_len) cut = len; /* bytes >= characters */
    for (; cut < len; cut++) {
        if (((unsigned char)s[cut] & 0xc0) != 0x80) {
            if (chars == max_len) break;
            chars++;
        }
    }
    if (cut < len && !explicit_cast)
        for (size_t i = cut; i < len; i++)
            if (s[i] != ' ')
                return err_set(err, STRATA_ERROR, "value too long for type character varying(%u)",
                               (unsigned)max_len);
    *out_len = cut;
    return STRATA_OK;
}

/* ---- booleans ---- */

/* prefix_of: s (at least min bytes) is a case-insensitive prefix of word. */
static bool prefix_of(const char *s, size_t len, const char *word, size_t min) {
    if (len < min || len > strlen(word)) return false;
    for (size_t i = 0; i < len; i++)
        if (to_lower(s[i]) != word[i]) return false;
    return true;
}

int bool_parse(const char *s, size_t len, bool *out, strata_err *err) {
    const char *p = s, *end = s + len;
    trim_spaces(&p, &end);
    size_t n = (size_t)(end - p);
    static const struct {
        const char *word;
        size_t min;
        bool value;
    } words[] = {{"true", 1, true}, {"false", 1, false}, {"yes", 1, true}, {"no", 1, false},
                 {"on", 2, true},   {"off", 2, false},   {"1", 1, true},   {"0", 1, false}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (prefix_of(p, n, words[i].word, words[i].min)) {
            *out = words[i].value;
            return STRATA_OK;
        }
    return err_set(err, STRATA_ERROR, "invalid input syntax for type boolean: \"%.*s\"", QUOTE_LEN(len), s);
}

/* ---- blobs ---- */

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    c = to_lower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int blob_parse(const char *s, size_t len, arena *a, sstr *out, strata_err *err) {
    /* decoding never grows the input, so len bytes are enough */
    char small[SSTR_INLINE], *buf = small;
    if (len > SSTR_INLINE) {
        if (a == NULL) return err_set(err, STRATA_MISUSE, "a blob of %zu bytes needs an arena", len);
        if ((buf = arena_alloc(a, len)) == NULL)
            return err_set(err, STRATA_NOMEM, "out of memory decoding a blob");
    }
    size_t n = 0;
    if (len >= 2 && s[0] == '\\' && (s[1] == 'x' || s[1] == 'X')) {
        for (size_t i = 2; i < len;) {
            if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
                i++;
                continue;
            }
            int hi = hex_value(s[i]);
            if (hi < 0) return err_set(err, STRATA_ERROR, "invalid hexadecimal digit: \"%c\"", s[i]);
            if (i + 1 == len)
                return err_set(err, STRATA_ERROR, "invalid hexadecimal data: odd number of digits");
            int lo = hex_value(s[i + 1]);
            if (lo < 0) return err_set(err, STRATA_ERROR, "invalid hexadecimal digit: \"%c\"", s[i + 1]);
            buf[n++] = (char)(hi << 4 | lo);
            i += 2;
        }
    } else {
        for (size_t i = 0; i < len;) {
            if (s[i] != '\\') {
                buf[n++] = s[i++];
            } else if (i + 1 < len && s[i + 1] == '\\') {
                buf[n++] = '\\';
                i += 2;
            } else if (i + 3 < len && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' &&
                       s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
                buf[n++] = (char)((s[i + 1] - '0') << 6 | (s[i + 2] - '0') << 3 | (s[i + 3] - '0'));
                i += 4;
            } else {
                return err_set(err, STRATA_ERROR, "invalid input syntax for type bytea");
            }
        }
    }
    *out = sstr_ref(buf, (uint32_t)n); /* n <= 12 is copied inline, so small may go out of scope */
    return STRATA_OK;
}

size_t blob_format(const void *p, size_t n, char *buf) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *b = p;
    buf[0] = '\\';
    buf[1] = 'x';
    for (size_t i = 0; i < n; i++) {
        buf[2 + 2 * i] = hex[b[i] >> 4];
        buf[3 + 2 * i] = hex[b[i] & 15];
    }
    buf[2 + 2 * n] = '\0';
    return 2 + 2 * n;
}

/* ---- integers ---- */

int fits_int(uint8_t id, int128 v, int64_t *out, strata_err *err) {
    int64_t lo = id == TYPE_SMALLINT ? INT16_MIN : id == TYPE_INTEGER ? INT32_MIN : INT64_MIN;
    int64_t hi = id == TYPE_SMALLINT ? INT16_MAX : id == TYPE_INTEGER ? INT32_MAX : INT64_MAX;
    if (v < lo || v > hi) return err_set(err, STRATA_ERROR, "%s out of range", sql_type_name(id));
    *out = (int64_t)v;
    return STRATA_OK;
}

int int_check_range(uint8_t id, int64_t v, strata_err *err) {
    int64_t ignored;
    return fits_int(id, v, &ignored, err);
}

int int_arith(value_op op, uint8_t id, int64_t a, int64_t b, int64_t *out, strata_err *err) {
    int64_t r;
    bool overflow = false;
    switch (op) {
    case VALUE_ADD: overflow = __builtin_add_overflow(a, b, &r); break;
    case VALUE_SUB: overflow = __builtin_sub_overflow(a, b, &r); break;
    case VALUE_MUL: overflow = __builtin_mul_overflow(a, b, &r); break;
    case VALUE_DIV:
        if (b == 0) return err_set(err, STRATA_ERROR, "division by zero");
        overflow = b == -1 && a == INT64_MIN;
        r = b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b; /* unsigned: INT64_MIN / -1 must not trap */
        break;
    default:
        if (b == 0) return err_set(err, STRATA_ERROR, "division by zero");
        r = b == -1 ? 0 : a % b;
        break;
    }
    if (overflow) return err_set(err, STRATA_ERROR, "%s out of range", sql_type_name(id));
    return fits_int(id, r, out, err);
}

int int_neg(uint8_t id, int64_t a, int64_t *out, strata_err *err) {
    if (a == INT64_MIN) return err_set(err, STRATA_ERROR, "%s out of range", sql_type_name(id));
    return fits_int(id, -a, out, err);
}

int int_parse(uint8_t id, const char *s, size_t len, int64_t *out, strata_err *err) {
    const char *p = s, *end = s + len;
    trim_spaces(&p, &end);
    bool neg = false;
    if (p < end && (*p == '+' || *p == '-')) neg = *p++ == '-';
    if (p == end)
        return err_set(err, STRATA_ERROR, "invalid input syntax for type %s: \"%.*s\"", sql_type_name(id),
                       QUOTE_LEN(len), s);
    uint64_t mag = 0;
    bool big = false;
    for (; p < end; p++) {
        if (!is_digit(*p))
            return err_set(err, STRATA_ERROR, "invalid input syntax for type %s: \"%.*s\"", sql_type_name(id),
                           QUOTE_LEN(len), s);
        if (__builtin_mul_overflow(mag, 10, &mag) || __builtin_add_overflow(mag, (uint64_t)(*p - '0'), &mag))
            big = true;
    }
    int128 v = neg ? -(int128)mag : (int128)mag;
    int64_t lo = id == TYPE_SMALLINT ? INT16_MIN : id == TYPE_INTEGER ? INT32_MIN : INT64_MIN;
    int64_t hi = id == TYPE_SMALLINT ? INT16_MAX : id == TYPE_INTEGER ? INT32_MAX : INT64_MAX;
    if (big || v < lo || v > hi)
        return err_set(err, STRATA_ERROR, "value \"%.*s\" is out of range for type %s", QUOTE_LEN(len), s,
                       sql_type_name(id));
    *out = (int64_t)v;
    return STRATA_OK;
}

size_t int_format(int64_t v, char *buf) {
    return uint128_digits(v < 0 ? -(uint128)v : (uint128)v, v < 0, 0, buf);
}

/* ---- doubles ---- */

int dbl_arith(value_op op, double a, double b, double *out, strata_err *err) {
    double r;
    switch (op) {
    case VALUE_ADD: r = a + b; break;
    case VALUE_SUB: r = a - b; break;
    case VALUE_MUL:
        r = a * b;
        if (r == 0 && a != 0 && b != 0) return err_set(err, STRATA_ERROR, "value out of range: underflow");
        break;
    case VALUE_DIV:
        if (b == 0 && !isnan(a)) return err_set(err, STRATA_ERROR, "division by zero");
        r = a / b;
        if (r == 0 && a != 0 && !isinf(b)) return err_set(err, STRATA_ERROR, "value out of range: underflow");
        if (isinf(r) && !isinf(a)) return err_set(err, STRATA_ERROR, "value out of range: overflow");
        *out = r;
        return STRATA_OK;
    default:
        return err_set(err, STRATA_ERROR, "operator does not exist: double precision %% double precision");
    }
    if (isinf(r) && !isinf(a) && !isinf(b)) return err_set(err, STRATA_ERROR, "value out of range: overflow");
    *out = r;
    return STRATA_OK;
}

int dbl_parse(const char *s, size_t len, double *out, strata_err *err) {
    const char *p = s, *end = s + len;
    trim_spaces(&p, &end);
    size_t n = (size_t)(end - p);
    const char *body = p + (n > 0 && (*p == '+' || *p == '-'));
    bool neg = n > 0 && *p == '-';
    size_t bn = (size_t)(end - body);
    if (word_eq_ci(body, bn, "infinity") || word_eq_ci(body, bn, "inf")) {
        *out = neg ? -HUGE_VAL : HUGE_VAL;
        return STRATA_OK;
    }
    if (body == p && word_eq_ci(body, bn, "nan")) {
        *out = NAN;
        return STRATA_OK;
    }
    /* strtod needs a NUL-terminated copy */
    char small[128], *buf = small;
    if (n == 0 || !(is_digit(*body) || *body == '.')) goto syntax;
    if (n >= sizeof small && (buf = malloc(n + 1)) == NULL)
        return err_set(err, STRATA_NOMEM, "out of memory reading a number of %zu bytes", n);
    memcpy(buf, p, n);
    buf[n] = '\0';
    char *stop;
    errno = 0;
    double d = strtod(buf, &stop);
    bool whole = stop == buf + n, range = errno == ERANGE;
    if (buf != small) free(buf);
    if (!whole) goto syntax;
    if (range && (d == 0 || isinf(d)))
        return err_set(err, STRATA_ERROR, "\"%.*s\" is out of range for type double precision",
                       QUOTE_LEN(len), s);
    *out = d;
    return STRATA_OK;
syntax:
    return err_set(err, STRATA_ERROR, "invalid input syntax for type double precision: \"%.*s\"",
                   QUOTE_LEN(len), s);
}

size_t dbl_format(double d, char *buf) {
    const char *special = isnan(d) ? "NaN" : isinf(d) ? (d > 0 ? "Infinity" : "-Infinity") : NULL;
    if (d == 0) special = signbit(d) ? "-0" : "0";
    if (special) return (size_t)snprintf(buf, 32, "%s", special);
    /* Fewest digits that read back: the round-trip property is monotonic in the digit count (more
    ** correctly rounded digits are only closer), so a binary search over %.0e..%.16e finds it. */
    char e[40];
    int lo = 0, hi = 16;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        snprintf(e, sizeof e, "%.*e", mid, d);
        if (strtod(e, NULL) == d)
            hi = mid;
        else
            lo = mid + 1;
    }
    snprintf(e, sizeof e, "%.*e", lo, d);
    /* e is [-]D[.DDD]e(+|-)XX: collect the digits and the decimal exponent */
    char dig[20];
    int nd = 0;
    const char *p = e;
    bool neg = *p == '-';
    if (neg) p++;
    for (; *p != 'e'; p++)
        if (is_digit(*p)) dig[nd++] = *p;
    int exp = atoi(p + 1);
    while (nd > 1 && dig[nd - 1] == '0')
        nd--;
    char *o = buf;
    if (neg) *o++ = '-';
    if (exp >= -4 && exp < 15) {
        if (exp < 0) {
            *o++ = '0';
            *o++ = '.';
            for (int i = -1; i > exp; i--)
                *o++ = '0';
            for (int i = 0; i < nd; i++)
                *o++ = dig[i];
        } else {
            for (int i = 0; i <= exp || i < nd; i++) {
                if (i == exp + 1) *o++ = '.';
                *o++ = i < nd ? dig[i] : '0';
            }
        }
    } else {
        *o++ = dig[0];
        if (nd > 1) {
            *o++ = '.';
            for (int i = 1; i < nd; i++)
                *o++ = dig[i];
        }
        o += sprintf(o, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    }
    *o = '\0';
    return (size_t)(o - buf);
}

double dbl_round_half_even(double d) {
    if (!(d < 4503599627370496.0 && d > -4503599627370496.0)) return d; /* |d| >= 2^52: whole, or NaN */
    int64_t t = (int64_t)d;                                             /* toward zero */
    double f = d - (double)t;
    if (f > 0.5 || (f == 0.5 && (t & 1)))
        t++;
    else if (f < -0.5 || (f == -0.5 && (t & 1)))
        t--;
    return t == 0 ? (d < 0 ? -0.0 : 0.0) : (double)t;
}

int dbl_to_int(uint8_t id, double d, int64_t *out, strata_err *err) {
    double r = dbl_round_half_even(d);
    double lo = id == TYPE_SMALLINT ? -32768.0 : id == TYPE_INTEGER ? -2147483648.0 : -9223372036854775808.0;
    if (isnan(r) || r < lo || r >= -lo)
        return err_set(err, STRATA_ERROR, "%s out of range", sql_type_name(id));
    *out = (int64_t)r;
    return STRATA_OK;
}
