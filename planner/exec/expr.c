/*
** expr.c -- evaluating bound expressions a vector at a time.
**
** Each node of an expression's state (expr_state, exec.h) owns a result vector. Evaluating a node evaluates its
** arguments over the same rows and then runs one loop over the rows for the node, with the
** type dispatch outside the loop: comparisons, arithmetic on integers, DOUBLE and DECIMAL, and
** casts between numbers have typed loops (DECIMAL in 64 bits, handing a row to core/decimal.c
** when 64 bits might not be exact); rarer operations (dates, intervals, casts from text) go
** through the single-value functions of core/value.h, still one call per row and no allocation.
**
** A WHERE selects rows through the SIMD kernels (vector/kernel.h) as row masks (expr_select):
** comparisons, BETWEEN in one pass, IN-lists of constants, LIKE prefixes, NOT, AND and OR; a
** column-segment dictionary's strings are decided once per dictionary entry.
**
** CASE evaluates each branch only on the rows that reach it, as PostgreSQL does, so that
** `CASE WHEN x = 0 THEN 0 ELSE 1 / x END` never divides by zero; AND/OR evaluate both sides
** (a later issue may short-circuit them too).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../vector/kernel.h"
#include "bind/bind.h"
#include "exec/exec.h"
#include "parser/parser.h"

/* ---- values in vectors -------------------------------------------------------------------- */

void vec_get_value(const vector *v, uint32_t r, sql_value *out) {
    uint32_t i = v->sel[r];
    memset(out, 0, sizeof *out);
    out->type = v->type;
    if (v->validity && !((v->validity[i >> 6] >> (i & 63)) & 1)) {
        out->is_null = 1;
        return;
    }
    switch ((vec_phys)v->phys) {
    case PHYS_BOOL: out->v.i = ((const uint8_t *)v->data)[i]; break;
    case PHYS_I16: out->v.i = ((const int16_t *)v->data)[i]; break;
    case PHYS_I32: out->v.i = ((const int32_t *)v->data)[i]; break;
    case PHYS_I64: out->v.i = ((const int64_t *)v->data)[i]; break;
    case PHYS_F64: out->v.d = ((const double *)v->data)[i]; break;
    case PHYS_STR: out->v.s = ((const sstr *)v->data)[i]; break;
    case PHYS_INTERVAL: out->v.iv = ((const sql_interval *)v->data)[i]; break;
    }
    if (v->type.id == TYPE_NULL) out->is_null = 1;
}

int vec_set_value(vector *v, uint32_t r, const sql_value *val, strata_err *err) {
    if (val->is_null) {
        vec_set_null(v, r, 1);
        return STRATA_OK;
    }
    vec_set_null(v, r, 0);
    switch ((vec_phys)v->phys) {
    case PHYS_BOOL: ((uint8_t *)v->data)[r] = (uint8_t)(val->v.i != 0); break;
    case PHYS_I16: ((int16_t *)v->data)[r] = (int16_t)val->v.i; break;
    case PHYS_I32: ((int32_t *)v->data)[r] = (int32_t)val->v.i; break;
    case PHYS_I64: ((int64_t *)v->data)[r] = val->v.i; break;
    case PHYS_F64: ((double *)v->data)[r] = val->v.d; break;
    case PHYS_STR: return vec_set_str(v, r, sstr_data(&val->v.s), val->v.s.len, err);
    case PHYS_INTERVAL: ((sql_interval *)v->data)[r] = val->v.iv; break;
    }
    return STRATA_OK;
}

/* ---- preparation -------------------------------------------------------------------------- */

/* CASE's scratch: a chunk whose columns slice the input, and the selections. */
typedef struct case_aux {
    data_chunk slice;
    bool ready;
    sel_t *remaining, *matched, *unmatched, *tmp;
} case_aux;

static bool cannot_fail(const expr *e);

/* An AND's scratch in a filter (and_mask), made for an AND of arguments that cannot fail: a chunk
** slicing the input's surviving rows, and what each argument cost and let through so far, which
** orders them. */
#define AND_ADAPT_MAX 8
typedef struct and_aux {
    data_chunk slice;
    bool ready;
    uint8_t order[AND_ADAPT_MAX];
    double ns_per_row[AND_ADAPT_MAX]; /* moving averages */
    double pass[AND_ADAPT_MAX];
} and_aux;
typedef struct pred_aux pred_aux; /* a predicate's state (the selection section) */
static void pred_aux_free(pred_aux *a);

void expr_state_free(expr_state *s) {
    if (!s) return;
    const expr *e = s->e;
    for (int i = 0; i < e->nargs && s->args; i++) expr_state_free(s->args[i]);
    free(s->args);
    if (s->result) {
        vec_free(s->result);
        free(s->result);
    }
    if (e->kind == EXPR_CASE && s->aux) {
        case_aux *a = s->aux;
        if (a->ready) chunk_free(&a->slice);
        free(a->remaining);
        free(a);
    }
    if (e->kind == EXPR_AND && s->aux) {
        and_aux *a = s->aux;
        if (a->ready) chunk_free(&a->slice);
        free(a);
    }
    if (e->kind == EXPR_SUBQUERY) exec_subquery_release(s);
    if (e->kind == EXPR_CMP || e->kind == EXPR_LIKE || e->kind == EXPR_IN_LIST) pred_aux_free(s->aux);
    free(s);
}

static int state_nomem(expr_state *s, strata_err *err) {
    expr_state_free(s);
    return err_set(err, STRATA_NOMEM, "out of memory (expression)");
}

int expr_state_make(const expr *e, strata_err *err, expr_state **out) {
    *out = NULL;
    if (!e) return STRATA_OK;
    expr_state *s = calloc(1, sizeof *s);
    if (!s) return err_set(err, STRATA_NOMEM, "out of memory (expression)");
    s->e = e;
    if (e->nargs && !(s->args = calloc((size_t)e->nargs, sizeof *s->args))) return state_nomem(s, err);
    for (int i = 0; i < e->nargs; i++) {
        int rc = expr_state_make(e->args[i], err, &s->args[i]);
        if (rc) {
            expr_state_free(s);
            return rc;
        }
    }
    if (!(s->result = malloc(sizeof *s->result))) return state_nomem(s, err);
    int rc = vec_init(s->result, e->type, err);
    if (rc) {
        free(s->result);
        s->result = NULL;
        expr_state_free(s);
        return rc;
    }
    if (e->kind == EXPR_CASE) {
        case_aux *a = calloc(1, sizeof *a);
        sel_t *sl = a ? malloc(4 * VECTOR_SIZE * sizeof *sl) : NULL;
        if (!sl) {
            free(a);
            return state_nomem(s, err);
        }
        a->remaining = sl, a->matched = sl + VECTOR_SIZE, a->unmatched = sl + 2 * VECTOR_SIZE, a->tmp = sl + 3 * VECTOR_SIZE;
        s->aux = a;
    }
    if (e->kind == EXPR_AND && e->nargs > 1 && e->nargs <= AND_ADAPT_MAX && cannot_fail(e)) {
        and_aux *a = calloc(1, sizeof *a);
        if (!a) return state_nomem(s, err);
        for (int i = 0; i < e->nargs; i++) a->order[i] = (uint8_t)i, a->pass[i] = 0.5;
        s->aux = a;
    }
    *out = s;
    return STRATA_OK;
}

int expr_states_make(expr *const *list, uint32_t n, strata_err *err, expr_state ***out) {
    *out = calloc(n + 1, sizeof **out);
    if (!*out) return err_set(err, STRATA_NOMEM, "out of memory (expression)");
    for (uint32_t i = 0; i < n; i++) {
        int rc = expr_state_make(list[i], err, &(*out)[i]);
        if (rc) {
            expr_states_free(*out, n);
            *out = NULL;
            return rc;
        }
    }
    return STRATA_OK;
}

void expr_states_free(expr_state **list, uint32_t n) {
    for (uint32_t i = 0; list && i < n; i++) expr_state_free(list[i]);
    free(list);
}

int expr_error(exec_ctx *x, const expr *e, int code, const char *msg) {
    if (x->sql && e->off < x->sqllen)
        return sql_error_at(x->err, code, x->sql, x->sqllen, e->off, NULL, "%s", msg);
    return err_set(x->err, code, "%s", msg);
}

/* fail_at positions the message a core function left in a scratch error. */
static int fail_at(exec_ctx *x, const expr *e, strata_err *tmp) {
    return expr_error(x, e, tmp->code ? tmp->code : STRATA_ERROR, tmp->msg);
}

/* ---- helpers ------------------------------------------------------------------------------ */

static inline bool row_null(const vector *v, uint32_t r) { return vec_is_null(v, r); }

/* set_const_value makes out a CONSTANT vector of val. */
static int set_const(vector *out, const sql_value *val, strata_err *err) {
    vec_reset(out);
    int rc = vec_set_value(out, 0, val, err);
    if (rc) return rc;
    vec_make_constant(out);
    return STRATA_OK;
}

static inline int64_t get_int(const vector *v, uint32_t i) {
    switch ((vec_phys)v->phys) {
    case PHYS_BOOL: return ((const uint8_t *)v->data)[i];
    case PHYS_I16: return ((const int16_t *)v->data)[i];
    case PHYS_I32: return ((const int32_t *)v->data)[i];
    default: return ((const int64_t *)v->data)[i];
    }
}

static inline void put_int(vector *v, uint32_t r, int64_t x) {
    switch ((vec_phys)v->phys) {
    case PHYS_BOOL: ((uint8_t *)v->data)[r] = (uint8_t)x; break;
    case PHYS_I16: ((int16_t *)v->data)[r] = (int16_t)x; break;
    case PHYS_I32: ((int32_t *)v->data)[r] = (int32_t)x; break;
    default: ((int64_t *)v->data)[r] = x; break;
    }
}

/* set_nulls_of marks NULL the rows of out that are NULL in a or in b (b may be NULL). */
static void set_nulls_of(vector *out, const vector *a, const vector *b, uint32_t count) {
    if (!a->validity && (!b || !b->validity)) return;
    for (uint32_t r = 0; r < count; r++)
        if (row_null(a, r) || (b && row_null(b, r))) vec_set_null(out, r, 1);
}

/* ---- arithmetic --------------------------------------------------------------------------- */

/* DECIMAL arithmetic. dec_arith computes every row exactly in 128 bits; the kernels below do the
** common rows in 64 bits and hand a row back to dec_arith whenever 64 bits might not be exact (a
** scale factor or product that overflows) or the result needs the overflow check's message. So
** every value, rounding and error is dec_arith's, which is what value_arith calls. */

/* A side of a DECIMAL operation as int64 values: row r is v[sel[r]], at scale `scale` (0 for the
** integer types, which take part as DECIMAL(5/10/18, 0)). */
typedef struct dec_side {
    const int64_t *v;
    const sel_t *sel;
    uint8_t scale;
    int64_t konst; /* a narrow CONSTANT's value, widened once */
} dec_side;

/* dec_side_init reads vector a as int64 values. DECIMAL and BIGINT are read in place; a SMALLINT
** or INTEGER constant is widened once (its sel is all zeros, so every row reads konst); any other
** SMALLINT or INTEGER vector is widened into wide[0..count) (only one side can be narrow). */
static void dec_side_init(dec_side *s, const vector *a, int64_t *wide, uint32_t count) {
    s->scale = a->type.id == TYPE_DECIMAL ? a->type.scale : 0;
    if (a->phys == PHYS_I64) {
        s->v = a->data, s->sel = a->sel;
    } else if (a->kind == VEC_CONSTANT) {
        s->konst = get_int(a, a->sel[0]);
        s->v = &s->konst, s->sel = a->sel;
    } else {
        if (a->phys == PHYS_I16)
            for (uint32_t r = 0; r < count; r++) wide[r] = ((const int16_t *)a->data)[a->sel[r]];
        else
            for (uint32_t r = 0; r < count; r++) wide[r] = get_int(a, a->sel[r]);
        s->v = wide, s->sel = sel_identity();
    }
}

/* dec_row computes row r of e with dec_arith into o[r]: the exact path for a row the 64-bit
** kernel gave up on, and the error, positioned at e, when it overflows. A NULL row (whose slot
** may hold anything) is left for set_nulls_of. */
static __attribute__((noinline)) int dec_row(exec_ctx *x, const expr_state *s, const dec_side *a, const dec_side *b,
                                             uint32_t r, int64_t *o) {
    const expr *e = s->e;
    if (row_null(s->args[0]->result, r) || row_null(s->args[1]->result, r)) {
        o[r] = 0;
        return STRATA_OK;
    }
    strata_err tmp;
    err_clear(&tmp);
    if (dec_arith(e->aop, a->v[a->sel[r]], a->scale, b->v[b->sel[r]], b->scale, e->type, &o[r], &tmp))
        return fail_at(x, e, &tmp);
    return STRATA_OK;
}

/* out_of_range says whether |v| >= lim (lim = 10^precision), without a branch: v is in range
** exactly when v + lim - 1, computed without overflow in unsigned, is at most 2 * lim - 2. */
static inline bool out_of_range(int64_t v, int64_t lim) {
    return (uint64_t)v + (uint64_t)(lim - 1) > 2 * (uint64_t)(lim - 1);
}

/* The 64-bit steps: each sets *res and returns true when 64 bits did not hold the exact result. */
static inline bool add_scaled(int64_t u, int64_t fu, int64_t v, int64_t fv, int64_t *res) {
    int64_t su, sv;
    bool bad = __builtin_mul_overflow(u, fu, &su);
    bad |= __builtin_mul_overflow(v, fv, &sv);
    return bad | __builtin_add_overflow(su, sv, res);
}

static inline bool sub_scaled(int64_t u, int64_t fu, int64_t v, int64_t fv, int64_t *res) {
    int64_t su, sv;
    bool bad = __builtin_mul_overflow(u, fu, &su);
    bad |= __builtin_mul_overflow(v, fv, &sv);
    return bad | __builtin_sub_overflow(su, sv, res);
}

/* div_round_i64: v / d (d = 10^k, k >= 1) rounded half away from zero, as div_round does. */
static inline int64_t div_round_i64(int64_t v, int64_t d) {
    int64_t q = v / d, rem = v % d;
    uint64_t ar = rem < 0 ? -(uint64_t)rem : (uint64_t)rem;
    return q + (ar >= (uint64_t)d - ar ? (v < 0 ? -1 : 1) : 0);
}

/* mul_round: u * v / d rounded as div_round_i64. */
static inline bool mul_round(int64_t u, int64_t v, int64_t d, int64_t *res) {
    int64_t p;
    bool bad = __builtin_mul_overflow(u, v, &p);
    *res = div_round_i64(p, d);
    return bad;
}

/* DEC_LOOP runs STEP, an expression of u and v that sets res and says whether 64 bits failed,
** over every row; such a row, or one whose result is out of range, goes to dec_row. */
#define DEC_LOOP(STEP)                                                                           \
    for (uint32_t r = 0; r < count; r++) {                                                       \
        int64_t u = a->v[a->sel[r]], v = b->v[b->sel[r]], res;                                   \
        bool bad = (STEP);                                                                       \
        bad |= out_of_range(res, lim);                                                           \
        o[r] = res;                                                                              \
        if (__builtin_expect(bad, 0) && (rc = dec_row(x, s, a, b, r, o))) return rc;             \
    }

/* eval_dec_arith: e's result is DECIMAL and its operands DECIMAL or integers, of the types
** dec_result_type maps to e->type. Scale factors and the result bound are found once per vector:
** + and - bring both sides to the larger scale (the result's), * keeps the sum of the scales
** unless the result type drops digits, which are then rounded half away from zero as div_round
** does. / and % go to dec_arith row by row. */
static int eval_dec_arith(exec_ctx *x, expr_state *s, uint32_t count) {
    const expr *e = s->e;
    vector *va = s->args[0]->result, *vb = s->args[1]->result, *out = s->result;
    int64_t *o = out->data;
    /* a narrow side is widened apart from o: the kernels write o before they may give up and
    ** leave the vector to the loops, which then read both sides again */
    int64_t wide[VECTOR_SIZE];
    dec_side sa, sb;
    dec_side_init(&sa, va, wide, count);
    dec_side_init(&sb, vb, wide, count);
    const dec_side *a = &sa, *b = &sb;
    int m = a->scale > b->scale ? a->scale : b->scale, drop = a->scale + b->scale - e->type.scale;
    int64_t lim = dec_pow10[e->type.precision > 18 ? 18 : e->type.precision];
    int64_t fa = dec_pow10[m - a->scale], fb = dec_pow10[m - b->scale];
    int rc = STRATA_OK;
    /* operands within int32's range: the kernels, whose check fails over to the loops below */
    const sel_t *ka = a->sel == sel_identity() ? NULL : a->sel, *kb = b->sel == sel_identity() ? NULL : b->sel;
    bool done = false;
    switch (e->aop) {
    case VALUE_ADD: done = kern_dec_add(a->v, ka, fa, b->v, kb, fb, count, lim, o); break;
    case VALUE_SUB: done = kern_dec_sub(a->v, ka, fa, b->v, kb, fb, count, lim, o); break;
    case VALUE_MUL: done = drop == 0 && kern_dec_mul(a->v, ka, b->v, kb, count, lim, o); break;
    default: break;
    }
    if (done) {
        set_nulls_of(out, va, vb, count);
        return STRATA_OK;
    }
    switch (e->aop) {
    case VALUE_ADD: DEC_LOOP(add_scaled(u, fa, v, fb, &res)); break;
    case VALUE_SUB: DEC_LOOP(sub_scaled(u, fa, v, fb, &res)); break;
    case VALUE_MUL:
        if (drop == 0) {
            DEC_LOOP(__builtin_mul_overflow(u, v, &res));
        } else if (drop > 0 && drop <= 18) {
            int64_t d = dec_pow10[drop];
            DEC_LOOP(mul_round(u, v, d, &res));
        } else {
            for (uint32_t r = 0; r < count; r++)
                if ((rc = dec_row(x, s, a, b, r, o))) return rc;
        }
        break;
    default:
        for (uint32_t r = 0; r < count; r++)
            if ((rc = dec_row(x, s, a, b, r, o))) return rc;
        break;
    }
    set_nulls_of(out, va, vb, count);
    return STRATA_OK;
}

/* dec_operands says whether e (of type DECIMAL) can run in eval_dec_arith: a DECIMAL with a
** DECIMAL or an integer, and e's type the one value_arith computes in (else it casts after). */
static bool dec_operands(const expr *e, sql_type a, sql_type b) {
    bool da = a.id == TYPE_DECIMAL, db = b.id == TYPE_DECIMAL;
    if (!(da || db) || !(da || sql_type_is_integer(a.id)) || !(db || sql_type_is_integer(b.id))) return false;
    return sql_type_equal(dec_result_type(e->aop, a, b), e->type);
}

/* dbl_row computes row r of e with dbl_arith into o[r]: a row whose result may be one of its
** errors (infinite, zero, a zero divisor). A NULL row is left for set_nulls_of. */
static __attribute__((noinline)) int dbl_row(exec_ctx *x, const expr_state *s, uint32_t r, double u, double v, double *o) {
    const expr *e = s->e;
    if (row_null(s->args[0]->result, r) || row_null(s->args[1]->result, r)) {
        o[r] = 0;
        return STRATA_OK;
    }
    strata_err tmp;
    err_clear(&tmp);
    if (dbl_arith(e->aop, u, v, &o[r], &tmp)) return fail_at(x, e, &tmp);
    return STRATA_OK;
}

/* DBL_LOOP computes RES from u and v for every row; a row for which SUSPECT holds (a superset of
** dbl_arith's error conditions) is redone by dbl_row. */
#define DBL_LOOP(RES, SUSPECT)                                                                   \
    for (uint32_t r = 0; r < count; r++) {                                                       \
        double u = da[as[r]], v = db[bs[r]], res = (RES);                                        \
        o[r] = res;                                                                              \
        if (__builtin_expect((SUSPECT), 0) && (rc = dbl_row(x, s, r, u, v, o))) return rc;       \
    }

/* eval_dbl_arith: DOUBLE with DOUBLE (the binder casts other numbers to DOUBLE first), with
** dbl_arith's results and errors. */
static int eval_dbl_arith(exec_ctx *x, expr_state *s, uint32_t count) {
    const expr *e = s->e;
    vector *a = s->args[0]->result, *b = s->args[1]->result, *out = s->result;
    const double *da = a->data, *db = b->data;
    const sel_t *as = a->sel, *bs = b->sel;
    double *o = out->data;
    int rc = STRATA_OK;
    /* the kernel computes the vector and says whether a row may be an error; only then is the
    ** vector redone row by row */
    if (!kern_arith_f64((kern_arith)e->aop, da, kern_sel(a), db, kern_sel(b), count, o)) {
        set_nulls_of(out, a, b, count);
        return STRATA_OK;
    }
    switch (e->aop) {
    case VALUE_ADD: DBL_LOOP(u + v, isinf(res)); break;
    case VALUE_SUB: DBL_LOOP(u - v, isinf(res)); break;
    case VALUE_MUL: DBL_LOOP(u * v, isinf(res) | (res == 0)); break; /* 0 * x too: rare, and exact */
    default: DBL_LOOP(u / v, isinf(res) | (res == 0) | (v == 0)); break;
    }
    set_nulls_of(out, a, b, count);
    return STRATA_OK;
}

/* widen_i32 makes the SMALLINT operand v an INTEGER one for kern_arith_i32: row r at w[r]. */
static const int32_t *widen_i32(const vector *v, uint32_t count, int32_t *w) {
    const int16_t *d = v->data;
    for (uint32_t r = 0; r < count; r++) w[r] = d[v->sel[r]];
    return w;
}

/* small_int_kernel computes +, - or * of INTEGER and SMALLINT operands into an INTEGER or
** SMALLINT result (out) through kern_arith_i32 or kern_arith_i16 and returns true when the vector
** is done; false when the kernel does not apply, or when some row's result (NULL rows included)
** is out of range, which leaves the vector to eval_arith's loop, that skips NULL rows and reports
** the error. A SMALLINT side of an INTEGER result is widened apart first. */
static bool small_int_kernel(const expr *e, const vector *a, const vector *b, vector *out, uint32_t count) {
    kern_arith op = (kern_arith)e->aop;
    bool a16 = a->phys == PHYS_I16, b16 = b->phys == PHYS_I16;
    if ((!a16 && a->phys != PHYS_I32) || (!b16 && b->phys != PHYS_I32)) return false;
    if (out->phys == PHYS_I16)
        return a16 && b16 && !kern_arith_i16(op, a->data, kern_sel(a), b->data, kern_sel(b), count, out->data);
    if (out->phys != PHYS_I32) return false;
    int32_t wa[VECTOR_SIZE], wb[VECTOR_SIZE];
    const int32_t *da = a16 ? widen_i32(a, count, wa) : a->data, *db = b16 ? widen_i32(b, count, wb) : b->data;
    const sel_t *sa = a16 ? NULL : kern_sel(a), *sb = b16 ? NULL : kern_sel(b);
    return !kern_arith_i32(op, da, sa, db, sb, count, out->data);
}

static int eval_arith(exec_ctx *x, expr_state *s, uint32_t count) {
    const expr *e = s->e;
    vector *a = s->args[0]->result, *b = s->args[1]->result, *out = s->result;
    strata_err tmp;
    err_clear(&tmp);
    uint8_t id = e->type.id;
    bool ints = sql_type_is_integer(id) && sql_type_is_integer(a->type.id) && sql_type_is_integer(b->type.id);
    bool dbls = id == TYPE_DOUBLE && a->type.id == TYPE_DOUBLE && b->type.id == TYPE_DOUBLE;
    if (id == TYPE_DECIMAL && dec_operands(e, a->type, b->type)) return eval_dec_arith(x, s, count);
    if (dbls && e->aop != VALUE_MOD) return eval_dbl_arith(x, s, count);
    if (ints) {
        int64_t lo = id == TYPE_SMALLINT ? INT16_MIN : id == TYPE_INTEGER ? INT32_MIN : INT64_MIN;
        int64_t hi = id == TYPE_SMALLINT ? INT16_MAX : id == TYPE_INTEGER ? INT32_MAX : INT64_MAX;
        /* 64-bit operands and a result that fits: the kernel; an overflow anywhere (NULL rows
        ** included) leaves it to the loop below, which skips NULL rows and reports the error */
        if (a->phys == PHYS_I64 && b->phys == PHYS_I64 && out->phys == PHYS_I64 && e->aop <= VALUE_MUL &&
            !kern_arith_i64((kern_arith)e->aop, a->data, kern_sel(a), b->data, kern_sel(b), count, lo, hi,
                            out->data)) {
            set_nulls_of(out, a, b, count);
            return STRATA_OK;
        }
        if (e->aop <= VALUE_MUL && small_int_kernel(e, a, b, out, count)) {
            set_nulls_of(out, a, b, count);
            return STRATA_OK;
        }
        for (uint32_t r = 0; r < count; r++) {
            uint32_t ia = a->sel[r], ib = b->sel[r];
            if (row_null(a, r) || row_null(b, r)) {
                vec_set_null(out, r, 1);
                continue;
            }
            int64_t u = get_int(a, ia), v = get_int(b, ib), res;
            bool ovf;
            switch (e->aop) {
            case VALUE_ADD: ovf = __builtin_add_overflow(u, v, &res); break;
            case VALUE_SUB: ovf = __builtin_sub_overflow(u, v, &res); break;
            case VALUE_MUL: ovf = __builtin_mul_overflow(u, v, &res); break;
            default:
                if (int_arith(e->aop, id, u, v, &res, &tmp)) return fail_at(x, e, &tmp);
                ovf = false;
                break;
            }
            if (ovf || res < lo || res > hi) {
                char msg[64];
                snprintf(msg, sizeof msg, "%s out of range", sql_type_name(id));
                return expr_error(x, e, STRATA_ERROR, msg);
            }
            put_int(out, r, res);
        }
        return STRATA_OK;
    }
    for (uint32_t r = 0; r < count; r++) {
        sql_value u, v, res;
        vec_get_value(a, r, &u);
        vec_get_value(b, r, &v);
        if (u.is_null || v.is_null) {
            vec_set_null(out, r, 1);
            continue;
        }
        if (value_arith(e->aop, &u, &v, &res, &tmp)) return fail_at(x, e, &tmp);
        if (!sql_type_equal(res.type, e->type)) {
            sql_value c;
            if (value_cast(&res, e->type, true, x->mem, &c, &tmp)) return fail_at(x, e, &tmp);
            res = c;
        }
        if (vec_set_value(out, r, &res, x->err)) return STRATA_NOMEM;
    }
    return STRATA_OK;
}

/* eval_neg: numbers in a typed loop with value_negate's rules (an integer type's minimum has no
** negation: int_neg's error; DECIMAL and DOUBLE cannot overflow), intervals through it. */
static int eval_neg(exec_ctx *x, expr_state *s, uint32_t count) {
    const expr *e = s->e;
    vector *a = s->args[0]->result, *out = s->result;
    strata_err tmp;
    err_clear(&tmp);
    uint8_t id = a->type.id;
    if (sql_type_is_numeric(id) && sql_type_equal(a->type, e->type)) {
        int64_t hi = id == TYPE_SMALLINT ? INT16_MAX : id == TYPE_INTEGER ? INT32_MAX : INT64_MAX;
        for (uint32_t r = 0; r < count; r++) {
            if (row_null(a, r)) {
                vec_set_null(out, r, 1);
            } else if (id == TYPE_DOUBLE) {
                ((double *)out->data)[r] = -((const double *)a->data)[a->sel[r]];
            } else {
                int64_t v = get_int(a, a->sel[r]), ignored;
                if (id != TYPE_DECIMAL && (v == INT64_MIN || -v > hi) && int_neg(id, v, &ignored, &tmp))
                    return fail_at(x, e, &tmp);
                put_int(out, r, (int64_t)(0 - (uint64_t)v));
            }
        }
        return STRATA_OK;
    }
    for (uint32_t r = 0; r < count; r++) {
        sql_value u, res;
        vec_get_value(a, r, &u);
        if (u.is_null) {
            vec_set_null(out, r, 1);
            continue;
        }
        if (value_negate(&u, &res, &tmp)) return fail_at(x, e, &tmp);
        if (vec_set_value(out, r, &res, x->err)) return STRATA_NOMEM;
    }
    return STRATA_OK;
}

/* ---- comparison --------------------------------------------------------------------------- */

static inline int sstr_cmp(const sstr *a, const sstr *b) {
    uint32_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(sstr_data(a), sstr_data(b), n);
    if (c) return c < 0 ? -1 : 1;
    return a->len < b->len ? -1 : a->len > b->len;
}

static inline bool cmp_holds(cmp_op op, int c) {
    switch (op) {
    case CMP_EQ: return c == 0;
    case CMP_NE: return c != 0;
    case CMP_LT: return c < 0;
    case CMP_LE: return c <= 0;
    case CMP_GT: return c > 0;
    default: return c >= 0;
    }
}

/* CMP_LOOP compares rows of two vectors of element type T by the three-way CMPEXPR of u and v,
** with one loop per operator so that none is chosen per row; the pointers are read into locals
** first, since o (bytes) may alias anything and would make the compiler reload them each row. */
#define CMP_ROWS(T, CMPEXPR, HOLDS)                                                              \
    for (uint32_t r = 0; r < count; r++) {                                                       \
        T u = da[as[r]], v = db[bs[r]];                                                          \
        o[r] = (uint8_t)((CMPEXPR)HOLDS);                                                        \
    }
#define CMP_LOOP(T, CMPEXPR)                                                                     \
    do {                                                                                         \
        const T *da = a->data, *db = b->data;                                                    \
        const sel_t *as = a->sel, *bs = b->sel;                                                  \
        switch (e->cmp) {                                                                        \
        case CMP_EQ: CMP_ROWS(T, CMPEXPR, == 0) break;                                           \
        case CMP_NE: CMP_ROWS(T, CMPEXPR, != 0) break;                                           \
        case CMP_LT: CMP_ROWS(T, CMPEXPR, < 0) break;                                            \
        case CMP_LE: CMP_ROWS(T, CMPEXPR, <= 0) break;                                           \
        case CMP_GT: CMP_ROWS(T, CMPEXPR, > 0) break;                                            \
        default: CMP_ROWS(T, CMPEXPR, >= 0) break;                                               \
        }                                                                                        \
    } while (0)

/* cmp_dict compares a column-segment dictionary (vector.h's dict_id) with a constant once per
** dictionary entry, and the rows through their indexes: for dictionaries no larger than the
** rows compared. false when a and b are not such a pair. */
static bool cmp_dict(expr_state *s, const vector *a, const vector *b, uint32_t count, uint8_t *o) {
    const expr *e = s->e;
    bool swap = b->dict_id != 0;
    const vector *d = swap ? b : a, *c = swap ? a : b;
    if (d->phys != PHYS_STR || !d->dict_id || d->kind != VEC_DICTIONARY || c->kind != VEC_CONSTANT ||
        d->dict_size > count)
        return false;
    const sstr *dict = d->data, *k = &((const sstr *)c->data)[0];
    uint8_t res[VECTOR_SIZE];
    for (uint32_t i = 0; i < d->dict_size; i++) {
        int cmp = sstr_cmp(&dict[i], k);
        res[i] = (uint8_t)cmp_holds(e->cmp, swap ? -cmp : cmp);
    }
    const sel_t *sel = d->sel;
    for (uint32_t r = 0; r < count; r++) o[r] = res[sel[r]];
    return true;
}

static int eval_cmp(exec_ctx *x, expr_state *s, uint32_t count) {
    const expr *e = s->e;
    (void)x;
    vector *a = s->args[0]->result, *b = s->args[1]->result, *out = s->result;
    uint8_t *o = out->data;
    if ((a->dict_id || b->dict_id) && cmp_dict(s, a, b, count, o)) {
        /* done through the dictionary */
    } else if (a->phys == b->phys && a->type.id != TYPE_DECIMAL) {
        switch ((vec_phys)a->phys) {
        case PHYS_BOOL: CMP_LOOP(uint8_t, (u > v) - (u < v)); break;
        case PHYS_I16: CMP_LOOP(int16_t, (u > v) - (u < v)); break;
        case PHYS_I32: CMP_LOOP(int32_t, (u > v) - (u < v)); break;
        case PHYS_I64: CMP_LOOP(int64_t, (u > v) - (u < v)); break;
        case PHYS_F64: CMP_LOOP(double, (isnan(u) || isnan(v)) ? (isnan(u) - isnan(v)) : (u > v) - (u < v)); break;
        case PHYS_STR: CMP_LOOP(sstr, sstr_cmp(&u, &v)); break;
        case PHYS_INTERVAL: CMP_LOOP(sql_interval, interval_compare(u, v)); break;
        }
    } else if (a->type.id == TYPE_DECIMAL && b->type.id == TYPE_DECIMAL && a->type.scale == b->type.scale) {
        CMP_LOOP(int64_t, (u > v) - (u < v));
    } else {
        for (uint32_t r = 0; r < count; r++) {
            sql_value u, v;
            vec_get_value(a, r, &u);
            vec_get_value(b, r, &v);
            o[r] = (uint8_t)cmp_holds(e->cmp, value_compare(&u, &v));
        }
    }
    set_nulls_of(out, a, b, count);
    return STRATA_OK;
}

/* ---- logic -------------------------------------------------------------------------------- */

/* Three-valued logic over BOOLEAN vectors: AND is false if any is false, else NULL if any is
** NULL; OR dually. */
static int eval_andor(expr_state *s, uint32_t count) {
    const expr *e = s->e;
    vector *out = s->result;
    uint8_t *o = out->data;
    bool is_and = e->kind == EXPR_AND;
    for (uint32_t r = 0; r < count; r++) {
        bool decided = false, any_null = false;
        for (int i = 0; i < e->nargs && !decided; i++) {
            vector *a = s->args[i]->result;
            if (row_null(a, r)) {
                any_null = true;
                continue;
            }
            bool v = ((const uint8_t *)a->data)[a->sel[r]] != 0;
            if (v != is_and) decided = true;
        }
        if (decided) o[r] = !is_and;
        else if (any_null) vec_set_null(out, r, 1);
        else o[r] = is_and;
    }
    return STRATA_OK;
}

static int eval_not(expr_state *s, uint32_t count) {
    vector *a = s->args[0]->result, *out = s->result;
    uint8_t *o = out->data;
    for (uint32_t r = 0; r < count; r++) o[r] = !((const uint8_t *)a->data)[a->sel[r]];
    set_nulls_of(out, a, NULL, count);
    return STRATA_OK;
}

static int eval_is_null(expr_state *s, uint32_t count) {
    const expr *e = s->e;
    vector *a = s->args[0]->result;
    uint8_t *o = s->result->data;
    for (uint32_t r = 0; r < count; r++) o[r] = (uint8_t)(row_null(a, r) != e->negated);
    return STRATA_OK;
}

static int eval_is_distinct(expr_state *s, uint32_t count) {
    const expr *e = s->e;
    vector *a = s->args[0]->result, *b = s->args[1]->result;
    uint8_t *o = s->result->data;
    for (uint32_t r = 0; r < count; r++) {
        sql_value u, v;
        vec_get_value(a, r, &u);
        vec_get_value(b, r, &v);
        bool distinct = u.is_null != v.is_null || (!u.is_null && value_compare(&u, &v) != 0);
        o[r] = (uint8_t)(distinct != e->negated);
    }
    return STRATA_OK;
}

static int eval_in_list(exec_ctx *x, expr_state *s, uint32_t count) {
    const expr *e = s->e;
    (void)x;
    vector *a = s->args[0]->result, *out = s->result;
    uint8_t *o = out->data;
    for (uint32_t r = 0; r < count; r++) {
        sql_value u;
        vec_get_value(a, r, &u);
        if (u.is_null) {
            vec_set_null(out, r, 1);
            continue;
        }
        bool found = false, any_null = false;
        for (int i = 1; i < e->nargs && !found; i++) {
            sql_value v;
            vec_get_value(s->args[i]->result, r, &v);
            if (v.is_null) any_null = true;
            else if (value_compare(&u, &v) == 0) found = true;
        }
        if (found) o[r] = !e->negated;
        else if (any_null) vec_set_null(out, r, 1);
        else o[r] = e->negated;
    }
    return STRATA_OK;
}

/* ---- casts and other per-row operations --------------------------------------------------- */

/* cast_to_decimal: an integer or DECIMAL vector to e's DECIMAL type, as dec_rescale does (an
** integer being a DECIMAL of scale 0, for which dec_from_int is the same rescale): the scale goes
** up by a multiplication or down by a division rounded half away from zero; a row whose product
** overflows 64 bits or whose result is out of range goes to dec_rescale, for its error. */
static int cast_to_decimal(exec_ctx *x, expr_state *s, uint32_t count) {
    const expr *e = s->e;
    vector *a = s->args[0]->result, *out = s->result;
    int64_t *o = out->data;
    dec_side ds;
    dec_side_init(&ds, a, o, count);
    int up = e->type.scale - ds.scale;
    int64_t f = dec_pow10[up >= 0 ? up : -up], lim = dec_pow10[e->type.precision > 18 ? 18 : e->type.precision];
    for (uint32_t r = 0; r < count; r++) {
        if (row_null(a, r)) {
            vec_set_null(out, r, 1);
            continue;
        }
        int64_t v = ds.v[ds.sel[r]], res;
        bool bad = false;
        if (up >= 0) bad = __builtin_mul_overflow(v, f, &res);
        else res = div_round_i64(v, f);
        if (__builtin_expect(bad || out_of_range(res, lim), 0)) {
            strata_err tmp;
            err_clear(&tmp);
            if (dec_rescale(v, ds.scale, e->type, &res, &tmp)) return fail_at(x, e, &tmp);
        }
        o[r] = res;
    }
    return STRATA_OK;
}

/* ints_to_double converts rows 0..count-1 of an integer vector (NULL rows too: their slots hold
** some integer, and the caller marks them NULL). */
static void ints_to_double(const vector *a, double *o, uint32_t count) {
    const sel_t *sel = a->sel;
    switch ((vec_phys)a->phys) {
    case PHYS_I16:
        for (uint32_t r = 0; r < count; r++) o[r] = ((const int16_t *)a->data)[sel[r]];
        break;
    case PHYS_I32: kern_to_f64_i32(a->data, kern_sel(a), count, o); break;
    default: kern_to_f64_i64(a->data, kern_sel(a), count, o); break;
    }
}

static int eval_cast(exec_ctx *x, expr_state *s, uint32_t count) {
    const expr *e = s->e;
    vector *a = s->args[0]->result, *out = s->result;
    strata_err tmp;
    err_clear(&tmp);
    uint8_t from = a->type.id, to = e->type.id;
    bool wider_text = from == TYPE_VARCHAR && to == TYPE_VARCHAR &&
                      (e->type.max_len == 0 || (a->type.max_len != 0 && a->type.max_len <= e->type.max_len));
    if (sql_type_equal(a->type, e->type) || wider_text) { /* every value stays as it is */
        vec_reference(out, a);
        return STRATA_OK;
    }
    if (to == TYPE_DECIMAL && (from == TYPE_DECIMAL || sql_type_is_integer(from))) return cast_to_decimal(x, s, count);
    if (sql_type_is_integer(from) && to == TYPE_DOUBLE) {
        ints_to_double(a, out->data, count);
        set_nulls_of(out, a, NULL, count);
        return STRATA_OK;
    }
    /* the other casts between numbers call what value_cast would, without going through values */
    bool widen = sql_type_is_integer(from) && sql_type_is_integer(to) && from <= to;
    bool dec_to_dbl = from == TYPE_DECIMAL && to == TYPE_DOUBLE;
    bool dec_to_integer = from == TYPE_DECIMAL && sql_type_is_integer(to);
    for (uint32_t r = 0; r < count; r++) {
        if (row_null(a, r)) {
            vec_set_null(out, r, 1);
            continue;
        }
        if (widen) {
            put_int(out, r, get_int(a, a->sel[r]));
            continue;
        }
        if (dec_to_dbl) {
            ((double *)out->data)[r] = dec_to_double(((const int64_t *)a->data)[a->sel[r]], a->type.scale);
            continue;
        }
        if (dec_to_integer) {
            int64_t v;
            if (dec_to_int(to, ((const int64_t *)a->data)[a->sel[r]], a->type.scale, &v, &tmp))
                return fail_at(x, e, &tmp);
            put_int(out, r, v);
            continue;
        }
        sql_value u, v;
        vec_get_value(a, r, &u);
        if (value_cast(&u, e->type, e->explicit_cast, x->mem, &v, &tmp)) return fail_at(x, e, &tmp);
        if (vec_set_value(out, r, &v, x->err)) return STRATA_NOMEM;
    }
    return STRATA_OK;
}

static int eval_extract(exec_ctx *x, expr_state *s, uint32_t count) {
    const expr *e = s->e;
    vector *a = s->args[0]->result, *out = s->result;
    strata_err tmp;
    err_clear(&tmp);
    for (uint32_t r = 0; r < count; r++) {
        sql_value u, v;
        vec_get_value(a, r, &u);
        if (u.is_null) {
            vec_set_null(out, r, 1);
            continue;
        }
        if (value_extract(e->field, &u, &v, &tmp)) return fail_at(x, e, &tmp);
        if (!sql_type_equal(v.type, e->type)) {
            sql_value c;
            if (value_cast(&v, e->type, true, x->mem, &c, &tmp)) return fail_at(x, e, &tmp);
            v = c;
        }
        if (vec_set_value(out, r, &v, x->err)) return STRATA_NOMEM;
    }
    return STRATA_OK;
}

static int eval_concat(exec_ctx *x, expr_state *s, uint32_t count) {
    vector *a = s->args[0]->result, *b = s->args[1]->result, *out = s->result;
    char *buf = NULL;
    size_t cap = 0;
    int rc = STRATA_OK;
    for (uint32_t r = 0; r < count && !rc; r++) {
        if (row_null(a, r) || row_null(b, r)) {
            vec_set_null(out, r, 1);
            continue;
        }
        const sstr *u = &((const sstr *)a->data)[a->sel[r]], *v = &((const sstr *)b->data)[b->sel[r]];
        size_t n = (size_t)u->len + v->len;
        if (n == 0) {
            rc = vec_set_str(out, r, "", 0, x->err);
            continue;
        }
        if (n > cap) {
            char *nb = realloc(buf, n + 1);
            if (!nb) {
                rc = err_set(x->err, STRATA_NOMEM, "out of memory (||)");
                break;
            }
            buf = nb, cap = n;
        }
        memcpy(buf, sstr_data(u), u->len);
        memcpy(buf + u->len, sstr_data(v), v->len);
        rc = vec_set_str(out, r, buf, n, x->err);
    }
    free(buf);
    return rc;
}

static int eval_coalesce(exec_ctx *x, expr_state *s, uint32_t count) {
    const expr *e = s->e;
    vector *out = s->result;
    for (uint32_t r = 0; r < count; r++) {
        int i = 0;
        while (i < e->nargs - 1 && row_null(s->args[i]->result, r)) i++;
        sql_value v;
        vec_get_value(s->args[i]->result, r, &v);
        if (vec_set_value(out, r, &v, x->err)) return STRATA_NOMEM;
    }
    return STRATA_OK;
}

/* ---- CASE --------------------------------------------------------------------------------- */

/* eval_on evaluates e over rows sel[0..n) of in (in may be NULL), through a sliced chunk. */
static int eval_on(exec_ctx *x, case_aux *a, expr_state *s, data_chunk *in, const sel_t *sel, uint32_t n) {
    if (!in) return expr_eval(x, s, NULL, n);
    for (uint32_t c = 0; c < in->ncols; c++) vec_slice(&a->slice.cols[c], &in->cols[c], sel, n);
    a->slice.count = n;
    a->slice.sel = NULL;
    return expr_eval(x, s, &a->slice, n);
}

static int eval_case(exec_ctx *x, expr_state *s, data_chunk *in, uint32_t count) {
    const expr *e = s->e;
    case_aux *a = s->aux;
    vector *out = s->result;
    if (in && !a->ready) {
        sql_type types[in->ncols ? in->ncols : 1];
        for (uint32_t c = 0; c < in->ncols; c++) types[c] = in->cols[c].type;
        int rc = chunk_init(&a->slice, types, in->ncols, x->err);
        if (rc) return rc;
        a->ready = true;
    }
    uint32_t nrem = count;
    for (uint32_t r = 0; r < count; r++) a->remaining[r] = r;
    int narms = (e->nargs - 1) / 2;
    for (int arm = 0; arm <= narms && nrem > 0; arm++) {
        expr_state *then;
        uint32_t nm = 0, nu = 0;
        if (arm < narms) {
            expr_state *when = s->args[2 * arm];
            then = s->args[2 * arm + 1];
            int rc = eval_on(x, a, when, in, a->remaining, nrem);
            if (rc) return rc;
            vector *w = when->result;
            for (uint32_t k = 0; k < nrem; k++) {
                bool t = !row_null(w, k) && ((const uint8_t *)w->data)[w->sel[k]];
                if (t) a->matched[nm++] = a->remaining[k];
                else a->unmatched[nu++] = a->remaining[k];
            }
        } else {
            then = s->args[e->nargs - 1];
            memcpy(a->matched, a->remaining, nrem * sizeof(sel_t));
            nm = nrem;
        }
        if (nm) {
            memcpy(a->tmp, a->matched, nm * sizeof(sel_t));
            int rc = eval_on(x, a, then, in, a->tmp, nm);
            if (rc) return rc;
            for (uint32_t k = 0; k < nm; k++) {
                sql_value v;
                vec_get_value(then->result, k, &v);
                if (vec_set_value(out, a->matched[k], &v, x->err)) return STRATA_NOMEM;
            }
        }
        memcpy(a->remaining, a->unmatched, nu * sizeof(sel_t));
        nrem = nu;
    }
    return STRATA_OK;
}

/* ---- the dispatcher ----------------------------------------------------------------------- */

int expr_param_value(exec_ctx *x, const expr *e, sql_value *out) {
    sql_value p;
    if (e->param < 0) p = (uint32_t)-e->param <= x->nouter ? x->outer[-e->param - 1] : value_null(e->type);
    else p = e->param <= x->nparams ? x->params[e->param - 1] : value_null(e->type);
    if (p.is_null) {
        *out = value_null(e->type);
        return STRATA_OK;
    }
    if (sql_type_equal(p.type, e->type)) {
        *out = p;
        return STRATA_OK;
    }
    strata_err tmp;
    err_clear(&tmp);
    if (value_cast(&p, e->type, false, x->mem, out, &tmp)) return fail_at(x, e, &tmp);
    return STRATA_OK;
}

/* eval_op computes e into its reset result from its arguments' results (evaluated already). */
static int eval_op(exec_ctx *x, expr_state *s, data_chunk *in, uint32_t count) {
    const expr *e = s->e;
    vector *out = s->result;
    int rc = STRATA_OK;
    switch (e->kind) {
    case EXPR_CAST: rc = eval_cast(x, s, count); break;
    case EXPR_ARITH: rc = eval_arith(x, s, count); break;
    case EXPR_NEG: rc = eval_neg(x, s, count); break;
    case EXPR_CMP: rc = eval_cmp(x, s, count); break;
    case EXPR_AND:
    case EXPR_OR: rc = eval_andor(s, count); break;
    case EXPR_NOT: rc = eval_not(s, count); break;
    case EXPR_IS_NULL: rc = eval_is_null(s, count); break;
    case EXPR_IS_DISTINCT: rc = eval_is_distinct(s, count); break;
    case EXPR_COALESCE: rc = eval_coalesce(x, s, count); break;
    case EXPR_IN_LIST: rc = eval_in_list(x, s, count); break;
    case EXPR_EXTRACT: rc = eval_extract(x, s, count); break;
    case EXPR_CONCAT: rc = eval_concat(x, s, count); break;
    case EXPR_SUBQUERY: rc = exec_subquery(x, s, in, count); break;
    case EXPR_FUNC: {
        vector args[FUNC_MAX_ARGS];
        for (int i = 0; i < e->nargs; i++) args[i] = *s->args[i]->result;
        strata_err tmp;
        err_clear(&tmp);
        rc = e->fn->exec(args, e->nargs, count, out, &tmp);
        if (rc) return tmp.code ? fail_at(x, e, &tmp) : rc;
        break;
    }
    case EXPR_LIKE: {
        strata_err tmp;
        err_clear(&tmp);
        rc = like_exec(s->args[0]->result, s->args[1]->result, e->like.escape, e->like.ilike, e->negated, count, out,
                       &tmp);
        if (rc) return fail_at(x, e, &tmp);
        break;
    }
    default: rc = err_set(x->err, STRATA_MISUSE, "expression kind %d cannot be evaluated", e->kind); break;
    }
    return rc;
}

int expr_eval(exec_ctx *x, expr_state *s, data_chunk *in, uint32_t count) {
    const expr *e = s->e;
    vector *out = s->result;
    vec_reset(out);
    int rc = STRATA_OK;
    switch (e->kind) {
    case EXPR_COL:
        if (in->sel) chunk_apply_sel(in);
        vec_reference(out, &in->cols[e->col]);
        return STRATA_OK;
    case EXPR_CONST: return set_const(out, &e->value, x->err);
    case EXPR_PARAM: {
        sql_value v;
        int rc2 = expr_param_value(x, e, &v);
        return rc2 ? rc2 : set_const(out, &v, x->err);
    }
    case EXPR_CASE: return eval_case(x, s, in, count);
    default: break;
    }
    if (in && in->sel) chunk_apply_sel(in);
    for (int i = 0; i < e->nargs; i++)
        if ((rc = expr_eval(x, s->args[i], in, count))) return rc;
    return eval_op(x, s, in, count);
}

/* ---- selection ---------------------------------------------------------------------------- */

/* A predicate selects rows into a row mask (kernel.h): with negate the rows where it is false
** rather than true (NOT's true rows); NULL rows are in neither, which is what a WHERE keeps. */

/* What a predicate keeps between vectors, in s->aux (EXPR_CMP, EXPR_LIKE, EXPR_IN_LIST): an
** IN-list's constants prepared for the kernels, a LIKE pattern's prefix, and the bits of the last
** column-segment dictionary it was evaluated on (one per entry, 1 = selected), reused while the
** vectors come from that dictionary and the constants are the statement's own. */
struct pred_aux {
    bool prepared;   /* IN: items ready */
    bool null_item;  /* IN: the list holds a NULL */
    uint32_t nitems; /* IN: the non-NULL items, prepared (kern_in_prepare_T; sstr sorted) */
    void *items;
    int64_t *short_keys; /* IN of strings: the items of at most 7 bytes as short_key()s, prepared */
    uint32_t nshort;
    bool has_long;       /* ... and whether some item is longer */
    char *prefix; /* LIKE: the pattern's unescaped prefix (prefix_cap bytes) */
    size_t prefix_cap;
    like_plan like; /* LIKE: any other pattern, analyzed (like.bytes NULL: none yet) */
    uint64_t dict_id; /* the dictionary of dict_bits; 0: none kept */
    bool dict_negate, dict_nulls; /* the bits select false rows; they were computed with the NULL entry known */
    uint64_t *dict_bits;
    uint32_t dict_words;
};

static void pred_aux_free(pred_aux *a) {
    if (!a) return;
    free(a->items);
    free(a->short_keys);
    free(a->prefix);
    like_plan_free(&a->like);
    free(a->dict_bits);
    free(a);
}

static int pred_aux_of(exec_ctx *x, expr_state *s, pred_aux **out) {
    if (!s->aux && !(s->aux = calloc(1, sizeof(pred_aux)))) return err_set(x->err, STRATA_NOMEM, "out of memory (predicate)");
    *out = s->aux;
    return STRATA_OK;
}

static inline bool is_const(const expr *e) { return e->kind == EXPR_CONST || e->kind == EXPR_PARAM; }

static inline bool kernel_phys(vec_phys p) { return p == PHYS_I16 || p == PHYS_I32 || p == PHYS_I64 || p == PHYS_F64; }

/* bool_mask sets mask to the rows of BOOLEAN vector v that are true (negate: false). */
static void bool_mask(const vector *v, uint32_t count, bool negate, uint64_t *mask) {
    uint32_t words = KERN_WORDS(count);
    const uint8_t *d = v->data;
    if (v->kind == VEC_CONSTANT) {
        bool on = !row_null(v, 0) && (d[0] != 0) != negate;
        memset(mask, on ? 0xff : 0, words * sizeof *mask);
        if (count % 64) mask[words - 1] &= ((uint64_t)1 << (count % 64)) - 1;
        return;
    }
    memset(mask, 0, words * sizeof *mask);
    for (uint32_t r = 0; r < count; r++) mask[r >> 6] |= (uint64_t)((d[v->sel[r]] != 0) != negate) << (r & 63);
    kern_mask_valid(mask, v->validity, kern_sel(v), count);
}

/* op_mask computes e, whose arguments are evaluated, as expr_eval would, into mask: the way for
** the shapes the kernels do not take. */
static int op_mask(exec_ctx *x, expr_state *s, data_chunk *in, uint32_t count, bool negate, uint64_t *mask) {
    vec_reset(s->result);
    int rc = eval_op(x, s, in, count);
    if (rc == STRATA_OK) bool_mask(s->result, count, negate, mask);
    return rc;
}

static void clear_mask(uint64_t *mask, uint32_t count) { memset(mask, 0, KERN_WORDS(count) * sizeof *mask); }

/* A predicate of one operand against constants, as leaf_rows evaluates it. */
typedef enum leaf_kind {
    LEAF_CMP,     /* operand op c */
    LEAF_BETWEEN, /* c <= operand <= c2 */
    LEAF_IN,      /* operand IN set's items (NOT IN when negate) */
    LEAF_PREFIX,  /* operand LIKE 'pat%' */
    LEAF_LIKE     /* operand LIKE pat, any pattern (strings of a dictionary only) */
} leaf_kind;

typedef struct leaf {
    leaf_kind kind;
    vec_phys phys;
    bool negate;
    kern_cmp op;
    const vector *c, *c2; /* CONSTANT vectors, not NULL */
    const pred_aux *set;
    const char *pat; /* LEAF_PREFIX */
    size_t plen;
    const like_plan *like; /* LEAF_LIKE */
    int escape;
} leaf;

/* sstr_find says whether s is one of the sorted strings items[0..n). */
static bool sstr_find(const sstr *items, uint32_t n, const sstr *s) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = sstr_cmp(&items[mid], s);
        if (c == 0) return true;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return false;
}

static int sstr_order(const void *a, const void *b) { return sstr_cmp(a, b); }

/* SHORT_KEY_MAX: strings of at most this many bytes are IN-tested as one integer (short_key). */
#define SHORT_KEY_MAX 7
/* A string of at most SHORT_KEY_MAX bytes as a number equal only for equal strings: its length in
** the top byte, its bytes (kept inline in the sstr, read 8 at once) below. */
static inline int64_t short_key(const sstr *s) {
    uint64_t v;
    memcpy(&v, s->u.inl, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return (int64_t)((uint64_t)s->len << 56 | (v & ((UINT64_C(1) << (8 * s->len)) - 1)));
}

/* str_in sets mask to the rows of strings d (row r: d[sel[r]]) that are items of a: the short
** ones through kern_in_i64 on their short_keys (no byte compared), the others by a search of the
** sorted items. */
static void str_in(const pred_aux *a, const sstr *d, const sel_t *sel, uint32_t n, uint64_t *mask) {
    int64_t keys[VECTOR_SIZE];
    bool longer = false;
    if (n == 0) return;
    const int64_t none = (int64_t)(UINT64_C(0xFF) << 56); /* no short_key has such a length */
    for (uint32_t r = 0; r < n; r++) {
        const sstr *t = &d[sel ? sel[r] : r];
        keys[r] = t->len <= SHORT_KEY_MAX ? short_key(t) : none;
        longer |= t->len > SHORT_KEY_MAX;
    }
    kern_in_i64(keys, NULL, n, a->short_keys, a->nshort, mask);
    if (!longer || !a->has_long) return;
    for (uint32_t r = 0; r < n; r++)
        if (keys[r] == none && sstr_find(a->items, a->nitems, &d[sel ? sel[r] : r])) mask[r >> 6] |= UINT64_C(1) << (r & 63);
}

/* leaf_rows sets mask to the rows that p selects among n rows of an operand (row r: data[sel[r]],
** sel NULL: data[r]; validity indexed like data). */
static void leaf_rows(const leaf *p, const void *data, const sel_t *sel, const uint64_t *validity, uint32_t n,
                      uint64_t *mask) {
    static const kern_cmp negated[] = {KERN_NE, KERN_EQ, KERN_GE, KERN_GT, KERN_LE, KERN_LT};
    bool invert = p->negate; /* the kernel found the rows where the predicate holds */
    switch (p->kind) {
    case LEAF_CMP: {
        kern_cmp op = p->negate ? negated[p->op] : p->op; /* a total order: NOT (x < c) is x >= c */
        invert = false;
        switch (p->phys) {
        case PHYS_I16: kern_cmp_i16(op, data, sel, n, VEC_DATA(p->c, int16_t)[0], mask); break;
        case PHYS_I32: kern_cmp_i32(op, data, sel, n, VEC_DATA(p->c, int32_t)[0], mask); break;
        case PHYS_I64: kern_cmp_i64(op, data, sel, n, VEC_DATA(p->c, int64_t)[0], mask); break;
        case PHYS_F64: kern_cmp_f64(op, data, sel, n, VEC_DATA(p->c, double)[0], mask); break;
        default: {
            const sstr *d = data, *k = &VEC_DATA(p->c, sstr)[0];
            clear_mask(mask, n);
            for (uint32_t r = 0; r < n; r++)
                mask[r >> 6] |= (uint64_t)cmp_holds((cmp_op)op, sstr_cmp(&d[sel ? sel[r] : r], k)) << (r & 63);
            break;
        }
        }
        break;
    }
    case LEAF_BETWEEN:
        switch (p->phys) {
        case PHYS_I16:
            kern_between_i16(data, sel, n, VEC_DATA(p->c, int16_t)[0], VEC_DATA(p->c2, int16_t)[0], mask);
            break;
        case PHYS_I32:
            kern_between_i32(data, sel, n, VEC_DATA(p->c, int32_t)[0], VEC_DATA(p->c2, int32_t)[0], mask);
            break;
        case PHYS_I64:
            kern_between_i64(data, sel, n, VEC_DATA(p->c, int64_t)[0], VEC_DATA(p->c2, int64_t)[0], mask);
            break;
        default: kern_between_f64(data, sel, n, VEC_DATA(p->c, double)[0], VEC_DATA(p->c2, double)[0], mask); break;
        }
        break;
    case LEAF_IN: {
        const pred_aux *a = p->set;
        if (p->negate && a->null_item) { /* x NOT IN (..., NULL) is false or NULL on every row */
            clear_mask(mask, n);
            return;
        }
        switch (p->phys) {
        case PHYS_I16: kern_in_i16(data, sel, n, a->items, a->nitems, mask); break;
        case PHYS_I32: kern_in_i32(data, sel, n, a->items, a->nitems, mask); break;
        case PHYS_I64: kern_in_i64(data, sel, n, a->items, a->nitems, mask); break;
        case PHYS_F64: kern_in_f64(data, sel, n, a->items, a->nitems, mask); break;
        default: str_in(a, data, sel, n, mask); break;
        }
        break;
    }
    case LEAF_PREFIX: kern_prefix(data, sel, n, p->pat, (uint32_t)p->plen, mask); break;
    case LEAF_LIKE: {
        const sstr *d = data;
        clear_mask(mask, n);
        for (uint32_t r = 0; r < n; r++) {
            const sstr *t = &d[sel ? sel[r] : r];
            mask[r >> 6] |= (uint64_t)like_plan_match(p->like, sstr_data(t), t->len) << (r & 63);
        }
        break;
    }
    }
    if (invert) kern_mask_not(mask, n);
    kern_mask_valid(mask, validity, sel, n);
}

/* leaf_select sets mask to the rows of v (count of them) that p selects: a column-segment
** dictionary's strings (vector.h's dict_id) once per entry and then by their codes, keeping the
** entries' bits in e's pred_aux for the next vectors of the dictionary when keep (the constants
** cannot change; otherwise only for a dictionary no larger than the rows); numbers through the
** kernels, other strings row by row on their typed values (a search of the sorted IN items, the
** byte order, like_match). */
static int leaf_select(exec_ctx *x, expr_state *s, const leaf *p, bool keep, const vector *v, uint32_t count,
                       uint64_t *mask) {
    if (v->phys == PHYS_STR && v->dict_id && v->kind == VEC_DICTIONARY && (keep || v->dict_size <= count)) {
        pred_aux *a = NULL;
        int rc = pred_aux_of(x, s, &a);
        if (rc) return rc;
        /* the NULL entry is the dictionary's last; a vector without NULLs does not say so (validity NULL)
        ** and none of its rows uses it, so bits computed from such a vector serve only vectors alike */
        bool fresh = keep && a->dict_id == v->dict_id && a->dict_negate == p->negate && (a->dict_nulls || !v->validity);
        if (!fresh) {
            uint32_t words = KERN_WORDS(v->dict_size);
            if (words > a->dict_words) {
                uint64_t *bits = realloc(a->dict_bits, words * sizeof *bits);
                if (!bits) return err_set(x->err, STRATA_NOMEM, "out of memory (dictionary predicate)");
                a->dict_bits = bits, a->dict_words = words;
            }
            a->dict_id = 0;
            for (uint32_t k = 0; k < v->dict_size; k += VECTOR_SIZE) /* the kernels take VECTOR_SIZE rows */
                leaf_rows(p, (const sstr *)v->data + k, NULL, v->validity ? v->validity + k / 64 : NULL,
                          v->dict_size - k < VECTOR_SIZE ? v->dict_size - k : VECTOR_SIZE, a->dict_bits + k / 64);
            if (keep) a->dict_id = v->dict_id, a->dict_negate = p->negate, a->dict_nulls = v->validity != NULL;
        }
        kern_dict_mask(a->dict_bits, v->dict_size, v->sel, count, mask);
        return STRATA_OK;
    }
    leaf_rows(p, v->data, kern_sel(v), v->validity, count, mask);
    return STRATA_OK;
}

/* cmp_select selects by comparison e through the kernels: a column (any expression) against a
** constant or parameter -- numbers, or the strings of a column-segment dictionary -- or two
** columns of numbers, of one physical type (DECIMALs of one scale, as eval_cmp's typed loops
** need); other comparisons are evaluated by eval_cmp. *done false when e is none of these shapes
** (nothing evaluated). */
static int cmp_select(exec_ctx *x, expr_state *s, data_chunk *in, uint32_t count, bool negate, uint64_t *mask, bool *done) {
    const expr *e = s->e;
    static const kern_cmp mirrored[] = {KERN_EQ, KERN_NE, KERN_GT, KERN_GE, KERN_LT, KERN_LE};
    static const kern_cmp negated[] = {KERN_NE, KERN_EQ, KERN_GE, KERN_GT, KERN_LE, KERN_LT};
    *done = false;
    const expr *ea = e->args[0], *eb = e->args[1];
    int ia = 0; /* ea's argument */
    kern_cmp op = (kern_cmp)e->cmp;
    if (is_const(ea)) { /* 5 < x is x > 5 */
        ea = e->args[1], eb = e->args[0], ia = 1;
        op = mirrored[op];
    }
    vec_phys phys = vec_phys_of(ea->type.id);
    if (phys != vec_phys_of(eb->type.id) || !(kernel_phys(phys) || (phys == PHYS_STR && is_const(eb)))) return STRATA_OK;
    if ((ea->type.id == TYPE_DECIMAL || eb->type.id == TYPE_DECIMAL) &&
        (ea->type.id != eb->type.id || ea->type.scale != eb->type.scale))
        return STRATA_OK;
    int rc; /* evaluated left to right, as expr_eval does: the first error reported is the same */
    if ((rc = expr_eval(x, s->args[0], in, count)) || (rc = expr_eval(x, s->args[1], in, count))) return rc;
    *done = true;
    vector *u = s->args[ia]->result, *v = s->args[1 - ia]->result;
    if (u->kind == VEC_CONSTANT) return op_mask(x, s, in, count, negate, mask); /* both constant: rare */
    if (v->kind == VEC_CONSTANT) {
        if (row_null(v, 0)) { /* x op NULL holds nowhere, and fails nowhere */
            clear_mask(mask, count);
            return STRATA_OK;
        }
        leaf p = {.kind = LEAF_CMP, .phys = phys, .negate = negate, .op = op, .c = v};
        return leaf_select(x, s, &p, eb->kind == EXPR_CONST, u, count, mask);
    }
    if (negate) op = negated[op];
    const sel_t *us = kern_sel(u), *vs = kern_sel(v);
    switch ((vec_phys)u->phys) {
    case PHYS_I16: kern_cmp2_i16(op, u->data, us, v->data, vs, count, mask); break;
    case PHYS_I32: kern_cmp2_i32(op, u->data, us, v->data, vs, count, mask); break;
    case PHYS_I64: kern_cmp2_i64(op, u->data, us, v->data, vs, count, mask); break;
    default: kern_cmp2_f64(op, u->data, us, v->data, vs, count, mask); break;
    }
    kern_mask_valid(mask, v->validity, vs, count);
    kern_mask_valid(mask, u->validity, us, count);
    return STRATA_OK;
}

/* between_select selects by `x >= lo AND x <= hi` as BETWEEN binds (bind.c: x bound twice, equal
** expressions), lo and hi constants or parameters of x's type, numbers: x evaluated once and one
** pass of kern_between_T. negate (NOT BETWEEN) selects x < lo OR x > hi. *done false for any
** other AND (nothing evaluated). */
static int between_select(exec_ctx *x, expr_state *s, data_chunk *in, uint32_t count, bool negate, uint64_t *mask,
                          bool *done) {
    const expr *e = s->e;
    *done = false;
    if (e->nargs != 2 || e->args[0]->kind != EXPR_CMP || e->args[1]->kind != EXPR_CMP || e->args[0]->cmp != CMP_GE ||
        e->args[1]->cmp != CMP_LE)
        return STRATA_OK;
    expr *xe = e->args[0]->args[0], *lo = e->args[0]->args[1], *hi = e->args[1]->args[1];
    if (is_const(xe) || !is_const(lo) || !is_const(hi) || !kernel_phys(vec_phys_of(xe->type.id)) ||
        !sql_type_equal(lo->type, xe->type) || !sql_type_equal(hi->type, xe->type) ||
        !expr_equal(xe, e->args[1]->args[0]))
        return STRATA_OK;
    int rc;
    expr_state *xs = s->args[0]->args[0], *los = s->args[0]->args[1], *his = s->args[1]->args[1];
    if ((rc = expr_eval(x, xs, in, count)) || (rc = expr_eval(x, los, in, count)) || (rc = expr_eval(x, his, in, count)))
        return rc;
    *done = true;
    const vector *u = xs->result, *lv = los->result, *hv = his->result;
    bool lnull = row_null(lv, 0), hnull = row_null(hv, 0);
    leaf p = {.kind = LEAF_BETWEEN, .phys = u->phys, .negate = negate, .c = lv, .c2 = hv};
    if (lnull || hnull) { /* x >= NULL is NULL: BETWEEN holds nowhere, NOT BETWEEN where the other side fails */
        if (!negate || (lnull && hnull)) {
            clear_mask(mask, count);
            return STRATA_OK;
        }
        p = (leaf){.kind = LEAF_CMP, .phys = u->phys, .op = lnull ? KERN_GT : KERN_LT, .c = lnull ? hv : lv};
    }
    leaf_rows(&p, u->data, kern_sel(u), u->validity, count, mask);
    return STRATA_OK;
}

/* in_select selects by IN-list e when its items are constants and its operand a number or a
** column-segment dictionary's strings (through kern_in_T, or once per dictionary entry); other
** operands are evaluated by eval_in_list. *done false for a list with another item (nothing
** evaluated). */
static int in_select(exec_ctx *x, expr_state *s, data_chunk *in, uint32_t count, bool negate, uint64_t *mask, bool *done) {
    const expr *e = s->e;
    *done = false;
    vec_phys phys = vec_phys_of(e->args[0]->type.id);
    if (!kernel_phys(phys) && phys != PHYS_STR) return STRATA_OK;
    for (int i = 1; i < e->nargs; i++)
        if (e->args[i]->kind != EXPR_CONST || vec_phys_of(e->args[i]->type.id) != phys) return STRATA_OK;
    pred_aux *a = NULL;
    int rc = pred_aux_of(x, s, &a);
    if (rc) return rc;
    if (!a->prepared) {
        uint32_t width = vec_phys_width(phys), n = 0;
        if (!(a->items = malloc((size_t)e->nargs * width))) return err_set(x->err, STRATA_NOMEM, "out of memory (IN list)");
        for (int i = 1; i < e->nargs; i++) {
            const sql_value *v = &e->args[i]->value;
            if (v->is_null) {
                a->null_item = true;
                continue;
            }
            switch (phys) {
            case PHYS_I16: ((int16_t *)a->items)[n++] = (int16_t)v->v.i; break;
            case PHYS_I32: ((int32_t *)a->items)[n++] = (int32_t)v->v.i; break;
            case PHYS_I64: ((int64_t *)a->items)[n++] = v->v.i; break;
            case PHYS_F64: ((double *)a->items)[n++] = v->v.d; break;
            default: ((sstr *)a->items)[n++] = v->v.s; break;
            }
        }
        switch (phys) {
        case PHYS_I16: n = kern_in_prepare_i16(a->items, n); break;
        case PHYS_I32: n = kern_in_prepare_i32(a->items, n); break;
        case PHYS_I64: n = kern_in_prepare_i64(a->items, n); break;
        case PHYS_F64: n = kern_in_prepare_f64(a->items, n); break;
        default:
            qsort(a->items, n, sizeof(sstr), sstr_order);
            if (!(a->short_keys = malloc(((size_t)n + 1) * sizeof *a->short_keys)))
                return err_set(x->err, STRATA_NOMEM, "out of memory (IN list)");
            for (uint32_t i = 0; i < n; i++) {
                const sstr *t = &((const sstr *)a->items)[i];
                if (t->len <= SHORT_KEY_MAX) a->short_keys[a->nshort++] = short_key(t);
                else a->has_long = true;
            }
            a->nshort = kern_in_prepare_i64(a->short_keys, a->nshort);
            break;
        }
        a->nitems = n;
        a->prepared = true;
    }
    if ((rc = expr_eval(x, s->args[0], in, count))) return rc;
    leaf p = {.kind = LEAF_IN, .phys = phys, .negate = negate != e->negated, .set = a};
    *done = true;
    return leaf_select(x, s, &p, true, s->args[0]->result, count, mask);
}

/* like_select selects by LIKE e (not ILIKE) with a constant or parameter pattern: a literal prefix
** and '%' (like_prefix) through kern_prefix, any pattern on a column-segment dictionary once per
** entry; the rest by like_exec, which also reports a malformed pattern. *done false for ILIKE
** (nothing evaluated). */
static int like_select(exec_ctx *x, expr_state *s, data_chunk *in, uint32_t count, bool negate, uint64_t *mask, bool *done) {
    const expr *e = s->e;
    *done = false;
    if (e->like.ilike) return STRATA_OK;
    int rc;
    if ((rc = expr_eval(x, s->args[0], in, count)) || (rc = expr_eval(x, s->args[1], in, count))) return rc;
    *done = true;
    const vector *t = s->args[0]->result, *pv = s->args[1]->result;
    if (pv->kind != VEC_CONSTANT || t->phys != PHYS_STR) return op_mask(x, s, in, count, negate, mask);
    if (row_null(pv, 0)) { /* LIKE NULL is NULL */
        clear_mask(mask, count);
        return STRATA_OK;
    }
    pred_aux *a = NULL;
    if ((rc = pred_aux_of(x, s, &a))) return rc;
    const sstr *pat = &VEC_DATA(pv, sstr)[0];
    if (pat->len + 1 > a->prefix_cap) {
        char *b = realloc(a->prefix, pat->len + 1);
        if (!b) return err_set(x->err, STRATA_NOMEM, "out of memory (LIKE pattern)");
        a->prefix = b, a->prefix_cap = pat->len + 1;
    }
    leaf p = {.kind = LEAF_PREFIX, .phys = PHYS_STR, .negate = negate != e->negated, .escape = e->like.escape};
    if (like_prefix(sstr_data(pat), pat->len, e->like.escape, a->prefix, &p.plen)) {
        p.pat = a->prefix;
    } else {
        like_plan *lp = &a->like;
        if (!lp->bytes || lp->plen != pat->len || memcmp(lp->bytes, sstr_data(pat), pat->len) != 0) {
            like_plan_free(lp); /* a parameter's new value */
            strata_err tmp;
            err_clear(&tmp);
            rc = like_plan_init(lp, sstr_data(pat), pat->len, e->like.escape, false, &tmp);
            if (rc == STRATA_NOMEM) return err_set(x->err, rc, "%s", tmp.msg);
            if (rc) return op_mask(x, s, in, count, negate, mask); /* malformed: like_exec reports it if a row needs it */
        }
        p.kind = LEAF_LIKE, p.like = lp;
    }
    return leaf_select(x, s, &p, e->args[1]->kind == EXPR_CONST, t, count, mask);
}

/* cannot_fail says whether evaluating e can raise no error (nor has effects), so that a filter
** may evaluate it on fewer rows, in any order: columns, constants, parameters, comparisons,
** AND, OR, NOT, IS NULL and IN lists of such. */
static bool cannot_fail(const expr *e) {
    switch (e->kind) {
    case EXPR_COL:
    case EXPR_CONST:
    case EXPR_PARAM: return true;
    case EXPR_CMP:
    case EXPR_AND:
    case EXPR_OR:
    case EXPR_NOT:
    case EXPR_IS_NULL:
    case EXPR_IN_LIST:
        for (int i = 0; i < e->nargs; i++)
            if (!cannot_fail(e->args[i])) return false;
        return true;
    default: return false;
    }
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int select_mask(exec_ctx *x, expr_state *s, data_chunk *in, uint32_t count, bool negate, uint64_t *mask);

/* and_mask is select_mask for an AND of arguments that cannot fail, in an adaptive order: the
** argument that removes the most rows for its time goes first (ranked by nanoseconds a row over
** the share of rows it removes, both measured as the filter runs), and each later one sees only
** the rows still in: all of them through the kernels while most are, a slice of the survivors
** once few are, none once no row is left. false in *done: not such an AND. */
static int and_mask(exec_ctx *x, expr_state *s, data_chunk *in, uint32_t count, uint64_t *mask, bool *done) {
    const expr *e = s->e;
    and_aux *a = s->aux;
    *done = false;
    if (!a || !in) return STRATA_OK;
    *done = true;
    int n = e->nargs, rc;
    uint8_t *ord = a->order;
    for (int i = 1; i < n; i++) { /* insertion sort by rank: a handful of arguments */
        uint8_t k = ord[i];
        double rk = a->ns_per_row[k] / (1.0 - a->pass[k] + 1e-3);
        int j = i;
        for (; j > 0 && a->ns_per_row[ord[j - 1]] / (1.0 - a->pass[ord[j - 1]] + 1e-3) > rk; j--) ord[j] = ord[j - 1];
        ord[j] = k;
    }
    if (!a->ready) {
        sql_type types[in->ncols ? in->ncols : 1];
        for (uint32_t c = 0; c < in->ncols; c++) types[c] = in->cols[c].type;
        if ((rc = chunk_init(&a->slice, types, in->ncols, x->err))) return rc;
        a->ready = true;
    }
    uint32_t words = KERN_WORDS(count), live = count;
    uint64_t m[VALIDITY_WORDS];
    sel_t rows[VECTOR_SIZE];
    for (int i = 0; i < n; i++) {
        expr_state *arg = s->args[ord[i]];
        uint32_t evaluated = live, passed;
        uint64_t t0 = now_ns();
        if (i == 0) {
            if ((rc = select_mask(x, arg, in, count, false, mask))) return rc;
            passed = 0;
            for (uint32_t w = 0; w < words; w++) passed += (uint32_t)__builtin_popcountll(mask[w]);
        } else if (live >= count / 4) { /* most rows in: every row through the kernels */
            evaluated = count;
            if ((rc = select_mask(x, arg, in, count, false, m))) return rc;
            passed = 0;
            for (uint32_t w = 0; w < words; w++) {
                passed += (uint32_t)__builtin_popcountll(m[w] & mask[w]);
                mask[w] &= m[w];
            }
        } else { /* few: the survivors only, as a slice of the input */
            uint32_t nl = kern_mask_to_sel(mask, count, rows);
            for (uint32_t c = 0; c < in->ncols; c++) vec_slice(&a->slice.cols[c], &in->cols[c], rows, nl);
            a->slice.count = nl;
            a->slice.sel = NULL;
            if ((rc = select_mask(x, arg, &a->slice, nl, false, m))) return rc;
            memset(mask, 0, words * sizeof *mask);
            passed = 0;
            for (uint32_t k = 0; k < nl; k++)
                if ((m[k >> 6] >> (k & 63)) & 1) {
                    mask[rows[k] >> 6] |= (uint64_t)1 << (rows[k] & 63);
                    passed++;
                }
        }
        double ns = (double)(now_ns() - t0) / (evaluated ? evaluated : 1), pass = evaluated ? (double)passed / live : 1;
        a->ns_per_row[ord[i]] = a->ns_per_row[ord[i]] ? 0.8 * a->ns_per_row[ord[i]] + 0.2 * ns : ns;
        if (live) a->pass[ord[i]] = 0.8 * a->pass[ord[i]] + 0.2 * pass;
        live = passed;
        if (!live) break; /* nothing left: the other arguments need not run */
    }
    return STRATA_OK;
}

/* select_mask sets mask to the rows of in where e is true (negate: false; neither keeps a NULL).
** NOT flips negate; AND and OR combine their arguments' masks (a row is true under AND when every
** argument is true, under OR when one is; with negate, as NOT (a AND b) = NOT a OR NOT b, the
** other way round); BETWEEN, comparisons, IN-lists and LIKE go through the kernels where their
** shapes allow; anything else is evaluated into its BOOLEAN vector. Every argument is evaluated on
** every row, in expr_eval's order, but for an AND of arguments that cannot fail (and_mask). */
static int select_mask(exec_ctx *x, expr_state *s, data_chunk *in, uint32_t count, bool negate, uint64_t *mask) {
    const expr *e = s->e;
    int rc = STRATA_OK;
    bool done = false;
    uint32_t words = KERN_WORDS(count);
    if (in && in->sel) chunk_apply_sel(in);
    switch (e->kind) {
    case EXPR_NOT: return select_mask(x, s->args[0], in, count, !negate, mask);
    case EXPR_AND:
    case EXPR_OR: {
        if (e->kind == EXPR_AND && ((rc = between_select(x, s, in, count, negate, mask, &done)) || done)) return rc;
        if (e->kind == EXPR_AND && !negate && ((rc = and_mask(x, s, in, count, mask, &done)) || done)) return rc;
        if (e->nargs == 0) break;
        bool all = (e->kind == EXPR_AND) != negate;
        if ((rc = select_mask(x, s->args[0], in, count, negate, mask))) return rc;
        uint64_t m[VALIDITY_WORDS];
        for (int i = 1; i < e->nargs; i++) {
            if ((rc = select_mask(x, s->args[i], in, count, negate, m))) return rc;
            for (uint32_t w = 0; w < words; w++) mask[w] = all ? mask[w] & m[w] : mask[w] | m[w];
        }
        return STRATA_OK;
    }
    case EXPR_CMP: rc = cmp_select(x, s, in, count, negate, mask, &done); break;
    case EXPR_IN_LIST: rc = in_select(x, s, in, count, negate, mask, &done); break;
    case EXPR_LIKE: rc = like_select(x, s, in, count, negate, mask, &done); break;
    default: break;
    }
    if (rc || done) return rc;
    if ((rc = expr_eval(x, s, in, count))) return rc;
    bool_mask(s->result, count, negate, mask);
    return STRATA_OK;
}

int expr_select(exec_ctx *x, expr_state *s, data_chunk *in, uint32_t count, sel_t *sel, uint32_t *n) {
    uint64_t mask[VALIDITY_WORDS];
    int rc = select_mask(x, s, in, count, false, mask);
    if (rc) return rc;
    *n = kern_mask_to_sel(mask, count, sel);
    return STRATA_OK;
}

int expr_eval_const(exec_ctx *x, const expr *e, sql_value *out) {
    expr_state *s;
    int rc = expr_state_make(e, x->err, &s);
    if (rc) return rc;
    if ((rc = expr_eval(x, s, NULL, 1))) {
        expr_state_free(s);
        return rc;
    }
    sql_value v;
    vec_get_value(s->result, 0, &v);
    if (!v.is_null && (v.type.id == TYPE_VARCHAR || v.type.id == TYPE_BLOB)) {
        sstr cp;
        if ((rc = sstr_copy(x->mem, sstr_data(&v.v.s), v.v.s.len, &cp, x->err))) {
            expr_state_free(s);
            return rc;
        }
        v.v.s = cp;
    }
    expr_state_free(s);
    *out = v;
    return STRATA_OK;
}
