/*
** func_math.c -- the numeric functions: abs, sign, round, trunc, floor, ceil, mod, sqrt, exp,
** ln, log, power, a vector at a time.
**
** Types, as PostgreSQL where it has the function and DuckDB where only DuckDB does:
**   - abs, sign, round, trunc, floor, ceil keep an integer argument's type (PostgreSQL would go
**     through double precision or numeric; the values are the same) and DOUBLE stays DOUBLE.
**   - DECIMAL(p,s): round, floor and ceil of one argument give DECIMAL(min(18, p-s+1), 0) (the
**     extra digit holds a carry: 99.5 -> 100), trunc gives DECIMAL(max(1, p-s), 0); round(x, n)
**     gives DECIMAL(min(18, p+1), s) and trunc(x, n) DECIMAL(p, s), with the digits below 10^-n
**     zeroed, because the type cannot depend on n's value (PostgreSQL's numeric result has
**     scale n). sign gives DECIMAL(1,0). A result beyond 18 digits is "numeric field overflow".
**   - Rounding: round(DOUBLE) is half to even (PostgreSQL's rint); DECIMAL and integers round
**     half away from zero (PostgreSQL numeric). round(DOUBLE, n) and trunc(DOUBLE, n), which
**     PostgreSQL lacks, are DuckDB's: x * 10^n rounded half away from zero (or truncated), / 10^n.
**   - sqrt, exp, ln, log, power take and give DOUBLE (integers and DECIMALs are cast), with
**     PostgreSQL's float8 errors; PostgreSQL's numeric variants are not provided.
**   - mod takes integers (the wider type) and DECIMALs (dec_result_type's rule for %); not
**     DOUBLE, which PostgreSQL's mod does not take either.
** A bare NULL argument counts as DOUBLE (as BIGINT for mod), or as the other argument's type.
*/
#include <math.h>

#include "func/func_internal.h"

/* ---- binding ---- */

static bool numeric_or_null(uint8_t id) { return sql_type_is_numeric(id) || id == TYPE_NULL; }

/* The four kinds of numeric signatures. */
enum {
    SIG_KEEP,  /* abs: the argument's type */
    SIG_SIGN,  /* sign: as abs, DECIMAL -> DECIMAL(1,0) */
    SIG_ROUND, /* round, floor, ceil, trunc (with an optional BIGINT n for round and trunc) */
    SIG_DOUBLE /* sqrt, exp, ... : every argument DOUBLE */
};

typedef struct math_sig {
    const char *name;
    int kind, min_args, max_args;
    bool truncates; /* trunc: DECIMAL(max(1, p-s), 0) with one argument, DECIMAL(p, s) with two */
} math_sig;

static int bind_math(const math_sig *sig, const sql_type *args, int nargs, sql_type *want, sql_type *ret,
                     strata_err *err) {
    if (nargs < sig->min_args || nargs > sig->max_args) return func_no_such(sig->name, args, nargs, err);
    for (int i = 0; i < nargs; i++)
        if (!numeric_or_null(args[i].id) ||
            (i > 0 && sig->kind == SIG_ROUND && !sql_type_is_integer(args[i].id) && args[i].id != TYPE_NULL))
            return func_no_such(sig->name, args, nargs, err);
    sql_type t = args[0].id == TYPE_NULL ? sql_type_make(TYPE_DOUBLE) : args[0];
    if (sig->kind == SIG_DOUBLE) t = sql_type_make(TYPE_DOUBLE);
    for (int i = 0; i < nargs; i++)
        want[i] = sig->kind == SIG_DOUBLE || i == 0 ? t : sql_type_make(TYPE_BIGINT);
    *ret = t;
    if (t.id == TYPE_DECIMAL) {
        int p = t.precision, s = t.scale;
        if (sig->kind == SIG_SIGN)
            *ret = sql_type_decimal(1, 0);
        else if (sig->kind == SIG_ROUND && nargs == 1 && sig->truncates)
            *ret = sql_type_decimal((uint8_t)(p - s > 1 ? p - s : 1), 0);
        else if (sig->kind == SIG_ROUND && nargs == 1)
            *ret = sql_type_decimal((uint8_t)(p - s + 1 < 18 ? p - s + 1 : 18), 0);
        else if (sig->kind == SIG_ROUND && !sig->truncates)
            *ret = sql_type_decimal((uint8_t)(p + 1 < 18 ? p + 1 : 18), (uint8_t)s);
    }
    return STRATA_OK;
}

#define MSIG(id, name, kind, min_args, max_args, truncates)                                                  \
    static int bind_##id(const sql_type *args, int nargs, sql_type *want, sql_type *rt, strata_err *err) {   \
        static const math_sig sig = {name, kind, min_args, max_args, truncates};                             \
        return bind_math(&sig, args, nargs, want, rt, err);                                                  \
    }

MSIG(abs, "abs", SIG_KEEP, 1, 1, false)
MSIG(sign, "sign", SIG_SIGN, 1, 1, false)
MSIG(round, "round", SIG_ROUND, 1, 2, false)
MSIG(trunc, "trunc", SIG_ROUND, 1, 2, true)
MSIG(floor, "floor", SIG_ROUND, 1, 1, false)
MSIG(ceil, "ceil", SIG_ROUND, 1, 1, false)
MSIG(ceiling, "ceiling", SIG_ROUND, 1, 1, false)
MSIG(sqrt, "sqrt", SIG_DOUBLE, 1, 1, false)
MSIG(exp, "exp", SIG_DOUBLE, 1, 1, false)
MSIG(ln, "ln", SIG_DOUBLE, 1, 1, false)
MSIG(log, "log", SIG_DOUBLE, 1, 2, false)
MSIG(power, "power", SIG_DOUBLE, 2, 2, false)
MSIG(pow, "pow", SIG_DOUBLE, 2, 2, false)

/* mod: integers give the wider integer type; a DECIMAL makes both DECIMAL (integers as
** DECIMAL(5,0), (10,0), (18,0)) with dec_result_type's type for %. */
static int bind_mod(const sql_type *args, int nargs, sql_type *want, sql_type *ret, strata_err *err) {
    if (nargs != 2 || !numeric_or_null(args[0].id) || !numeric_or_null(args[1].id) ||
        args[0].id == TYPE_DOUBLE || args[1].id == TYPE_DOUBLE)
        return func_no_such("mod", args, nargs, err);
    sql_type a = args[0].id == TYPE_NULL ? args[1] : args[0], b = args[1].id == TYPE_NULL ? a : args[1];
    if (a.id == TYPE_NULL) a = b = sql_type_make(TYPE_BIGINT);
    if (a.id != TYPE_DECIMAL && b.id != TYPE_DECIMAL) {
        sql_type t = a.id > b.id ? a : b; /* SMALLINT < INTEGER < BIGINT */
        want[0] = want[1] = *ret = t;
        return STRATA_OK;
    }
    for (int i = 0; i < 2; i++) {
        sql_type *w = &want[i], t = i ? b : a;
        *w = t.id != TYPE_DECIMAL ? sql_type_decimal(t.id == TYPE_SMALLINT  ? 5
                                                     : t.id == TYPE_INTEGER ? 10
                                                                            : 18,
                                                     0)
                                  : t;
    }
    *ret = dec_result_type(VALUE_MOD, want[0], want[1]);
    return STRATA_OK;
}

/* ---- integer and decimal rounding ---- */

enum { R_HALF_AWAY, R_FLOOR, R_CEIL, R_TRUNC };

/* round_multiple rounds v to a multiple of 10^k (0 <= k <= 18) by mode; false when the result
** does not fit an int64. */
static bool round_multiple(int64_t v, int k, int mode, int64_t *out) {
    if (k == 0) {
        *out = v;
        return true;
    }
    int64_t q = dec_pow10[k], rem = v % q, base = v - rem, step = 0;
    switch (mode) {
    case R_HALF_AWAY:
        if (rem >= 0 ? rem >= q - rem : -rem >= q + rem) step = rem < 0 ? -q : q;
        break;
    case R_FLOOR: step = rem < 0 ? -q : 0; break;
    case R_CEIL: step = rem > 0 ? q : 0; break;
    default: break;
    }
    return !__builtin_add_overflow(base, step, out);
}

/* digits_to_drop: how many low digits of a value at scale s rounding to n decimals clears;
** 19 stands for "all of them" (every int64 rounds to 0 then, half away included). */
static int digits_to_drop(int64_t n, int s) {
    if (n >= s) return 0;
    if (n < (int64_t)s - 18) return 19;
    return (int)(s - n);
}

static int round_int(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err, int mode) {
    uint8_t id = out->type.id;
    for (uint32_t r = 0; r < count; r++) {
        if (row_has_null(args, nargs, r)) {
            vec_set_null(out, r, 1);
            continue;
        }
        int64_t v = arg_int(&args[0], r), res = v;
        int k = nargs > 1 ? digits_to_drop(arg_i64(&args[1], r), 0) : 0;
        if (k == 19)
            res = 0;
        else if (!round_multiple(v, k, mode, &res))
            return err_set(err, STRATA_ERROR, "%s out of range", sql_type_name(id));
        int rc = int_check_range(id, res, err);
        if (rc != STRATA_OK) return rc;
        out_int(out, r, res);
    }
    return STRATA_OK;
}

/* round_dec: with one argument the result has scale 0 (the value divided by 10^s after
** rounding), with n it keeps the argument's scale. */
static int round_dec(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err, int mode) {
    int s = args[0].type.scale;
    for (uint32_t r = 0; r < count; r++) {
        if (row_has_null(args, nargs, r)) {
            vec_set_null(out, r, 1);
            continue;
        }
        int64_t v = arg_i64(&args[0], r), res = 0;
        int k = nargs > 1 ? digits_to_drop(arg_i64(&args[1], r), s) : s;
        if (k < 19) round_multiple(v, k, mode, &res); /* |v| < 10^18: cannot overflow an int64 */
        if (nargs == 1) res /= dec_pow10[s];
        int rc = dec_check(res, out->type.precision, err);
        if (rc != STRATA_OK) return rc;
        VEC_DATA(out, int64_t)[r] = res;
    }
    return STRATA_OK;
}

/* round_dbl: one argument rounds half to even (round) or by floor, ceil, trunc; with n, DuckDB's
** rule: x * 10^n (x / 10^-n) rounded or truncated, scaled back; when that overflows, x. */
static int round_dbl(const vector *args, int nargs, uint32_t count, vector *out, int mode) {
    for (uint32_t r = 0; r < count; r++) {
        if (row_has_null(args, nargs, r)) {
            vec_set_null(out, r, 1);
            continue;
        }
        double x = arg_f64(&args[0], r), res;
        if (nargs == 1) {
            res = mode == R_FLOOR   ? floor(x)
                  : mode == R_CEIL  ? ceil(x)
                  : mode == R_TRUNC ? trunc(x)
                  : isfinite(x)     ? dbl_round_half_even(x)
                                    : x;
        } else {
            int64_t n = arg_i64(&args[1], r);
            n = n < -400 ? -400 : n > 400 ? 400 : n; /* beyond, 10^n is 0 or infinite anyway */
            double m = pow(10.0, (double)(n < 0 ? -n : n));
            double scaled = n < 0 ? x / m : x * m;
            double rounded = mode == R_TRUNC ? trunc(scaled) : round(scaled);
            res = n < 0 ? rounded * m : rounded / m;
            if (!isfinite(res) || !isfinite(scaled)) res = n < 0 && isfinite(x) ? 0.0 * x : x;
        }
        VEC_DATA(out, double)[r] = res;
    }
    return STRATA_OK;
}

static int exec_rounding(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err,
                         int mode) {
    switch (args[0].type.id) {
    case TYPE_DOUBLE: return round_dbl(args, nargs, count, out, mode);
    case TYPE_DECIMAL: return round_dec(args, nargs, count, out, err, mode);
    default: return round_int(args, nargs, count, out, err, mode);
    }
}
static int exec_round(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    return exec_rounding(args, nargs, count, out, err, R_HALF_AWAY);
}
static int exec_floor(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    return exec_rounding(args, nargs, count, out, err, R_FLOOR);
}
static int exec_ceil(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    return exec_rounding(args, nargs, count, out, err, R_CEIL);
}
static int exec_trunc(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    return exec_rounding(args, nargs, count, out, err, R_TRUNC);
}

/* ---- abs, sign ---- */

static int exec_abs(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    uint8_t id = out->type.id;
    for (uint32_t r = 0; r < count; r++) {
        if (row_has_null(args, nargs, r)) {
            vec_set_null(out, r, 1);
            continue;
        }
        if (id == TYPE_DOUBLE) {
            VEC_DATA(out, double)[r] = fabs(arg_f64(&args[0], r));
        } else if (id == TYPE_DECIMAL) {
            int64_t v = arg_i64(&args[0], r);
            VEC_DATA(out, int64_t)[r] = v < 0 ? -v : v; /* |v| < 10^18 */
        } else {
            int64_t v = arg_int(&args[0], r);
            if (v < 0) {
                int rc = int_neg(id, v, &v, err);
                if (rc != STRATA_OK) return rc;
            }
            out_int(out, r, v);
        }
    }
    return STRATA_OK;
}

/* sign: -1, 0 or 1 in the result type; sign(NaN) is 0, as PostgreSQL's float8 sign. */
static int exec_sign(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    uint8_t id = args[0].type.id;
    for (uint32_t r = 0; r < count; r++) {
        if (row_has_null(args, nargs, r)) {
            vec_set_null(out, r, 1);
            continue;
        }
        if (id == TYPE_DOUBLE) {
            double x = arg_f64(&args[0], r);
            VEC_DATA(out, double)[r] = x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
        } else {
            int64_t v = arg_int(&args[0], r);
            out_int(out, r, (v > 0) - (v < 0));
        }
    }
    (void)err;
    return STRATA_OK;
}

/* ---- mod ---- */

static int exec_mod(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    sql_type t = out->type;
    for (uint32_t r = 0; r < count; r++) {
        if (row_has_null(args, nargs, r)) {
            vec_set_null(out, r, 1);
            continue;
        }
        int64_t res;
        int rc = t.id == TYPE_DECIMAL
                     ? dec_arith(VALUE_MOD, arg_i64(&args[0], r), args[0].type.scale, arg_i64(&args[1], r),
                                 args[1].type.scale, t, &res, err)
                     : int_arith(VALUE_MOD, t.id, arg_int(&args[0], r), arg_int(&args[1], r), &res, err);
        if (rc != STRATA_OK) return rc;
        if (t.id == TYPE_DECIMAL)
            VEC_DATA(out, int64_t)[r] = res;
        else
            out_int(out, r, res);
    }
    return STRATA_OK;
}

/* ---- DOUBLE functions, with PostgreSQL's float8 checks ---- */

static int overflow(strata_err *err) { return err_set(err, STRATA_ERROR, "value out of range: overflow"); }
static int underflow(strata_err *err) { return err_set(err, STRATA_ERROR, "value out of range: underflow"); }

static int f_sqrt(const double *x, double *out, strata_err *err) {
    if (x[0] < 0) return err_set(err, STRATA_ERROR, "cannot take square root of a negative number");
    *out = sqrt(x[0]);
    return STRATA_OK;
}

static int f_exp(const double *x, double *out, strata_err *err) {
    double a = x[0];
    if (isnan(a) || isinf(a)) {
        *out = isinf(a) && a < 0 ? 0.0 : a;
        return STRATA_OK;
    }
    *out = exp(a);
    if (isinf(*out)) return overflow(err);
    if (*out == 0.0) return underflow(err);
    return STRATA_OK;
}

static int log_domain(double a, strata_err *err) {
    if (a == 0.0) return err_set(err, STRATA_ERROR, "cannot take logarithm of zero");
    if (a < 0.0) return err_set(err, STRATA_ERROR, "cannot take logarithm of a negative number");
    return STRATA_OK;
}

static int f_ln(const double *x, double *out, strata_err *err) {
    int rc = log_domain(x[0], err);
    if (rc == STRATA_OK) *out = log(x[0]);
    return rc;
}

static int f_log10(const double *x, double *out, strata_err *err) {
    int rc = log_domain(x[0], err);
    if (rc == STRATA_OK) *out = log10(x[0]);
    return rc;
}

/* log(b, x): the logarithm of x to base b (PostgreSQL's log(numeric, numeric), in DOUBLE). */
static int f_log_base(const double *x, double *out, strata_err *err) {
    int rc = log_domain(x[0], err);
    if (rc == STRATA_OK) rc = log_domain(x[1], err);
    if (rc != STRATA_OK) return rc;
    double lb = log(x[0]);
    if (lb == 0.0) return err_set(err, STRATA_ERROR, "division by zero");
    *out = log(x[1]) / lb;
    return STRATA_OK;
}

/* power follows PostgreSQL's dpow: NaN rules first, then the undefined cases, then range. */
static int f_power(const double *x, double *out, strata_err *err) {
    double a = x[0], b = x[1];
    if (isnan(a)) {
        *out = isnan(b) || b != 0.0 ? a : 1.0;
        return STRATA_OK;
    }
    if (isnan(b)) {
        *out = a != 1.0 ? b : 1.0;
        return STRATA_OK;
    }
    if (a == 0.0 && b < 0.0)
        return err_set(err, STRATA_ERROR, "zero raised to a negative power is undefined");
    if (a < 0.0 && isfinite(b) && floor(b) != b)
        return err_set(err, STRATA_ERROR,
                       "a negative number raised to a non-integer power yields a complex result");
    *out = pow(a, b);
    if (isinf(*out) && isfinite(a) && isfinite(b)) return overflow(err);
    if (*out == 0.0 && a != 0.0 && isfinite(a) && isfinite(b)) return underflow(err);
    return STRATA_OK;
}

typedef int (*dbl_fn)(const double *x, double *out, strata_err *err);

static int exec_dbl(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err, dbl_fn f) {
    for (uint32_t r = 0; r < count; r++) {
        if (row_has_null(args, nargs, r)) {
            vec_set_null(out, r, 1);
            continue;
        }
        double x[2] = {arg_f64(&args[0], r), nargs > 1 ? arg_f64(&args[1], r) : 0.0};
        int rc = f(x, &VEC_DATA(out, double)[r], err);
        if (rc != STRATA_OK) return rc;
    }
    return STRATA_OK;
}
static int exec_sqrt(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    return exec_dbl(args, nargs, count, out, err, f_sqrt);
}
static int exec_exp(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    return exec_dbl(args, nargs, count, out, err, f_exp);
}
static int exec_ln(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    return exec_dbl(args, nargs, count, out, err, f_ln);
}
static int exec_log(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    return exec_dbl(args, nargs, count, out, err, nargs == 1 ? f_log10 : f_log_base);
}
static int exec_power(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    return exec_dbl(args, nargs, count, out, err, f_power);
}

const func_def func_math_defs[] = {
    {"abs", bind_abs, exec_abs},          {"ceil", bind_ceil, exec_ceil},
    {"ceiling", bind_ceiling, exec_ceil}, {"exp", bind_exp, exec_exp},
    {"floor", bind_floor, exec_floor},    {"ln", bind_ln, exec_ln},
    {"log", bind_log, exec_log},          {"mod", bind_mod, exec_mod},
    {"pow", bind_pow, exec_power},        {"power", bind_power, exec_power},
    {"round", bind_round, exec_round},    {"sign", bind_sign, exec_sign},
    {"sqrt", bind_sqrt, exec_sqrt},       {"trunc", bind_trunc, exec_trunc},
};
const int func_math_count = (int)(sizeof func_math_defs / sizeof func_math_defs[0]);
