/*
** decimal.c -- DECIMAL(p,s) as an int64 scaled by 10^s: parsing, formatting, rescaling, the four
** operations and %, conversions to and from integers and doubles, and int128 sums and averages.
**
** Every operation computes exactly in 128 bits (operands below 10^18 keep products below 10^36)
** and rounds once, half away from zero, to the result scale, as PostgreSQL NUMERIC does; a
** result at or beyond 10^precision is "numeric field overflow". The result-type rules are
** documented at dec_result_type() in value.h.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "value_internal.h"

const int64_t dec_pow10[19] = {1,
                               10,
                               100,
                               1000,
                               10000,
                               100000,
                               1000000,
                               10000000,
                               100000000,
                               1000000000,
                               10000000000,
                               100000000000,
                               1000000000000,
                               10000000000000,
                               100000000000000,
                               1000000000000000,
                               10000000000000000,
                               100000000000000000,
                               1000000000000000000};

static int overflow(strata_err *err) { return err_set(err, STRATA_ERROR, "numeric field overflow"); }

/* limit is 10^precision, the bound of DECIMAL(precision, _). */
static int64_t limit(uint8_t precision) { return dec_pow10[precision > 18 ? 18 : precision]; }

/* fit stores v when |v| < 10^precision. */
static int fit(int128 v, uint8_t precision, int64_t *out, strata_err *err) {
    int128 lim = limit(precision);
    if (v >= lim || v <= -lim) return overflow(err);
    *out = (int64_t)v;
    return STRATA_OK;
}

int dec_check(int64_t v, uint8_t precision, strata_err *err) {
    int64_t ignored;
    return fit(v, precision, &ignored, err);
}

/* round_to moves v from scale `from` to scale `to`, rounding when digits are dropped. The caller
** guarantees a scale-up cannot overflow (|v| < 10^19 and to - from <= 18). */
static int128 round_to(int128 v, int from, int to) {
    if (to >= from) return v * (int128)pow10_u128(to - from);
    return div_round(v, (int128)pow10_u128(from - to));
}

/* ---- text ---- */

int dec_parse(const char *s, size_t len, uint8_t precision, uint8_t scale, int64_t *out, strata_err *err) {
    const char *p = s, *end = s + len;
    trim_spaces(&p, &end);
    bool neg = false;
    if (p < end && (*p == '+' || *p == '-')) neg = *p++ == '-';
    /* The value is 0.d1 d2 d3 ... * 10^e over the significant digits d. Only the digits that land
    ** in the integer part of value * 10^scale, and the one after them, matter; there are at most
    ** 20 of those before the value overflows, so 40 kept digits are plenty. */
    char dig[40];
    int nd = 0;
    int64_t e = 0;
    bool any = false, started = false, point = false;
    for (; p < end; p++) {
        if (is_digit(*p)) {
            any = true;
            if (!started && *p == '0') {
                if (point) e--;
                continue;
            }
            started = true;
            if (!point) e++;
            if (nd < (int)sizeof dig) dig[nd++] = (char)(*p - '0');
        } else if (*p == '.' && !point) {
            point = true;
        } else {
            break;
        }
    }
    if (any && p < end && (*p == 'e' || *p == 'E')) {
        p++;
        bool eneg = false;
        if (p < end && (*p == '+' || *p == '-')) eneg = *p++ == '-';
        if (p == end || !is_digit(*p)) any = false;
        int64_t x = 0;
        for (; p < end && is_digit(*p); p++)
            if (x < 1000000) x = x * 10 + (*p - '0');
        e += eneg ? -x : x;
    }
    if (!any || p != end)
        return err_set(err, STRATA_ERROR, "invalid input syntax for type numeric: \"%.*s\"", QUOTE_LEN(len),
                       s);
    uint64_t mag = 0;
    if (nd > 0) {
        int64_t k = e + scale; /* digits in the integer part of value * 10^scale */
        if (k > 19) return overflow(err);
        for (int64_t i = 0; i < k; i++)
            mag = mag * 10 + (uint64_t)(i < nd ? dig[i] : 0);
        if (k >= 0 && k < nd && dig[k] >= 5) mag++;
    }
    if (mag >= (uint64_t)limit(precision)) return overflow(err);
    *out = neg ? -(int64_t)mag : (int64_t)mag;
    return STRATA_OK;
}

size_t uint128_digits(uint128 v, bool neg, int scale, char *buf) {
    char tmp[48];
    int n = 0;
    while (v > UINT64_MAX) { /* 128-bit division only for the digits above 64 bits */
        tmp[n++] = (char)('0' + (int)(v % 10));
        v /= 10;
    }
    uint64_t w = (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + (int)(w % 10));
        w /= 10;
    } while (w != 0 || n <= scale); /* at least one digit before the point */
    size_t len = 0;
    if (neg) buf[len++] = '-';
    while (n > scale)
        buf[len++] = tmp[--n];
    if (scale > 0) {
        buf[len++] = '.';
        while (n > 0)
            buf[len++] = tmp[--n];
    }
    buf[len] = '\0';
    return len;
}

size_t dec_format(int64_t v, uint8_t scale, char *buf) {
    return uint128_digits(v < 0 ? -(uint128)v : (uint128)v, v < 0, scale, buf);
}

size_t int128_format(int128 v, uint8_t scale, char *buf) {
    return uint128_digits(v < 0 ? -(uint128)v : (uint128)v, v < 0, scale, buf);
}

/* ---- scale, comparison, result types ---- */

int dec_rescale(int64_t v, uint8_t from_scale, sql_type to, int64_t *out, strata_err *err) {
    return fit(round_to(v, from_scale, to.scale), to.precision, out, err);
}

int dec_compare(int64_t a, uint8_t sa, int64_t b, uint8_t sb) {
    int m = sa > sb ? sa : sb;
    int128 x = round_to(a, sa, m), y = round_to(b, sb, m);
    return x < y ? -1 : x > y;
}

static int imax(int a, int b) { return a > b ? a : b; }
static int imin(int a, int b) { return a < b ? a : b; }

sql_type dec_as_decimal(sql_type t) {
    switch (t.id) {
    case TYPE_SMALLINT: return sql_type_decimal(5, 0);
    case TYPE_INTEGER: return sql_type_decimal(10, 0);
    case TYPE_BIGINT: return sql_type_decimal(18, 0);
    default: return t;
    }
}

sql_type dec_result_type(value_op op, sql_type a, sql_type b) {
    a = dec_as_decimal(a);
    b = dec_as_decimal(b);
    int p1 = a.precision, s1 = a.scale, p2 = b.precision, s2 = b.scale, p, s;
    switch (op) {
    case VALUE_ADD:
    case VALUE_SUB:
        s = imax(s1, s2);
        p = imin(18, imax(p1 - s1, p2 - s2) + s + 1);
        break;
    case VALUE_MUL:
        if (p1 + p2 <= 18) {
            p = p1 + p2;
            s = s1 + s2;
        } else {
            p = 18;
            s = imin(s1 + s2, imax(imax(s1, s2), 12));
        }
        break;
    case VALUE_DIV: {
        int i = (p1 - s1) + s2;
        s = imax(6, s1 + p2 + 1);
        if (i + s > 18) s = imax(6, 18 - i);
        p = imin(18, i + s);
        break;
    }
    default: /* VALUE_MOD */
        s = imax(s1, s2);
        p = imin(18, imin(p1 - s1, p2 - s2) + s);
        break;
    }
    return sql_type_decimal((uint8_t)imax(p, 1), (uint8_t)s);
}

/* udiv_scaled computes round_half_up(n * 10^k / d) for k >= -38, failing (false) when the
** quotient reaches limit. Positive k runs a digit at a time, so n * 10^k never has to fit. */
static bool udiv_scaled(uint128 n, uint128 d, int k, uint128 limit, uint128 *q_out) {
    if (k < 0) {
        uint128 dd = d * pow10_u128(-k), q = n / dd, r = n % dd;
        if (r >= dd - r) q++;
        if (q >= limit) return false;
        *q_out = q;
        return true;
    }
    uint128 q = n / d, r = n % d;
    if (q >= limit) return false;
    for (int i = 0; i < k; i++) {
        r *= 10; /* r < d < 2^124, so 10r fits */
        q = q * 10 + r / d;
        r %= d;
        if (q >= limit) return false;
    }
    if (r >= d - r) q++;
    if (q >= limit) return false;
    *q_out = q;
    return true;
}

int dec_arith(value_op op, int64_t a, uint8_t sa, int64_t b, uint8_t sb, sql_type rt, int64_t *out,
              strata_err *err) {
    int m = imax(sa, sb), rs;
    int128 r;
    switch (op) {
    case VALUE_ADD: r = round_to(a, sa, m) + round_to(b, sb, m), rs = m; break;
    case VALUE_SUB: r = round_to(a, sa, m) - round_to(b, sb, m), rs = m; break;
    case VALUE_MUL: r = (int128)a * b, rs = sa + sb; break;
    case VALUE_MOD:
        if (b == 0) return err_set(err, STRATA_ERROR, "division by zero");
        r = round_to(a, sa, m) % round_to(b, sb, m), rs = m;
        break;
    default: { /* VALUE_DIV: q = a / 10^sa / (b / 10^sb) * 10^rt.scale */
        if (b == 0) return err_set(err, STRATA_ERROR, "division by zero");
        uint128 q, na = a < 0 ? -(uint128)a : (uint128)a, nb = b < 0 ? -(uint128)b : (uint128)b;
        if (!udiv_scaled(na, nb, rt.scale + sb - sa, (uint128)limit(rt.precision), &q)) return overflow(err);
        *out = (a < 0) != (b < 0) ? -(int64_t)q : (int64_t)q;
        return STRATA_OK;
    }
    }
    /* |r| < 2^127 / 10^18 is needed to scale up; anything that large overflows anyway. */
    int128 lim = (int128)dec_pow10[18] * dec_pow10[18];
    if (rt.scale > rs && (r >= lim || r <= -lim)) return overflow(err);
    return fit(round_to(r, rs, rt.scale), rt.precision, out, err);
}

/* ---- conversions ---- */

int dec_to_int(uint8_t id, int64_t v, uint8_t scale, int64_t *out, strata_err *err) {
    return fits_int(id, round_to(v, scale, 0), out, err);
}

int dec_from_int(int64_t v, sql_type to, int64_t *out, strata_err *err) {
    return fit((int128)v * dec_pow10[to.scale], to.precision, out, err);
}

double dec_to_double(int64_t v, uint8_t scale) {
    /* Both operands exact, so the one division rounds correctly; beyond 2^53 go through text,
    ** since strtod rounds correctly and two roundings might not. */
    if (scale == 0) return (double)v;
    if (v <= (INT64_C(1) << 53) && v >= -(INT64_C(1) << 53)) return (double)v / (double)dec_pow10[scale];
    char buf[DEC_TEXT_MAX];
    dec_format(v, scale, buf);
    return strtod(buf, NULL);
}

int dec_from_double(double d, sql_type to, int64_t *out, strata_err *err) {
    if (d != d) return err_set(err, STRATA_ERROR, "cannot convert NaN to numeric");
    if (d > 1e300 || d < -1e300) return overflow(err); /* infinities too */
    /* The value is d rounded to 15 significant digits, then to the scale (as PostgreSQL's
    ** float8 -> numeric). Without text when that cannot differ from rounding d * 10^scale: the
    ** product has at most 14 integer digits, so the 15-digit rounding moves it by less than
    ** |y| * 5e-15, and the product's own error is below |y| * 2.3e-16; a fraction that far from
    ** .5 rounds the same either way. Other values (rare) go through the text. */
    double y = d * (double)dec_pow10[to.scale > 18 ? 18 : to.scale];
    if (y < 1e14 && y > -1e14) {
        double fl = floor(y), frac = y - fl, slack = fabs(y) * 6e-15 + 1e-12;
        if (fabs(frac - 0.5) > slack) {
            int64_t n = (int64_t)fl + (frac > 0.5);
            if (n < limit(to.precision) && n > -limit(to.precision)) {
                *out = n;
                return STRATA_OK;
            }
        }
    }
    char buf[40];
    int n = snprintf(buf, sizeof buf, "%.15g", d);
    return dec_parse(buf, (size_t)n, to.precision, to.scale, out, err);
}

/* ---- sums and averages ---- */

int sum_to_bigint(int128 sum, int64_t *out, strata_err *err) { return fits_int(TYPE_BIGINT, sum, out, err); }

int sum_to_dec(int128 sum, uint8_t precision, int64_t *out, strata_err *err) {
    return fit(sum, precision, out, err);
}

int dec_avg(int128 sum, int64_t count, uint8_t in_scale, sql_type out, int64_t *result, strata_err *err) {
    if (count <= 0) return err_set(err, STRATA_MISUSE, "dec_avg: count must be positive");
    uint128 q, n = sum < 0 ? -(uint128)sum : (uint128)sum;
    if (!udiv_scaled(n, (uint128)count, out.scale - in_scale, (uint128)limit(out.precision), &q))
        return overflow(err);
    *result = sum < 0 ? -(int64_t)q : (int64_t)q;
    return STRATA_OK;
}

double avg_to_double(int128 sum, int64_t count, uint8_t scale) {
    /* The integer part of the quotient is exact in 128 bits; only the final divisions round. */
    int128 q = sum / count, r = sum % count;
    double v = (double)q + (double)r / (double)count;
    return scale == 0 ? v : v / (double)dec_pow10[scale];
}
