/*
** expr.c -- evaluating bound expressions a vector at a time.
**
** Each expression node owns a result vector (expr_prepare). Evaluating a node evaluates its
** arguments over the same rows and then runs one loop over the rows for the node, with the
** type dispatch outside the loop: comparisons and integer/double arithmetic have a loop per
** physical type; rarer operations (DECIMAL multiplication, dates, casts between unlike types) go
** through the single-value functions of core/value.h, still one call per row and no allocation.
**
** CASE evaluates each branch only on the rows that reach it, as PostgreSQL does, so that
** `CASE WHEN x = 0 THEN 0 ELSE 1 / x END` never divides by zero; AND/OR evaluate both sides
** (a later issue may short-circuit them too).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "parser.h"

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

int expr_prepare(expr *e, strata_err *err) {
    if (e->result) return STRATA_OK;
    for (int i = 0; i < e->nargs; i++) {
        int rc = expr_prepare(e->args[i], err);
        if (rc) return rc;
    }
    e->result = malloc(sizeof *e->result);
    if (!e->result) return err_set(err, STRATA_NOMEM, "out of memory (expression)");
    int rc = vec_init(e->result, e->type, err);
    if (rc) {
        free(e->result);
        e->result = NULL;
        return rc;
    }
    if (e->kind == EXPR_CASE) {
        case_aux *a = calloc(1, sizeof *a);
        sel_t *s = a ? malloc(4 * VECTOR_SIZE * sizeof *s) : NULL;
        if (!s) {
            free(a);
            return err_set(err, STRATA_NOMEM, "out of memory (expression)");
        }
        a->remaining = s, a->matched = s + VECTOR_SIZE, a->unmatched = s + 2 * VECTOR_SIZE, a->tmp = s + 3 * VECTOR_SIZE;
        e->aux = a;
    }
    return STRATA_OK;
}

void expr_release(expr *e) {
    if (!e) return;
    for (int i = 0; i < e->nargs; i++) expr_release(e->args[i]);
    if (e->result) {
        vec_free(e->result);
        free(e->result);
        e->result = NULL;
    }
    if (e->kind == EXPR_CASE && e->aux) {
        case_aux *a = e->aux;
        if (a->ready) chunk_free(&a->slice);
        free(a->remaining);
        free(a);
        e->aux = NULL;
    }
    if (e->kind == EXPR_SUBQUERY) exec_subquery_release(e);
}

int expr_error(exec_ctx *x, const expr *e, int code, const char *msg) {
    if (x->sql && e->off < x->sqllen)
        return sql_error_at(x->err, code, x->sql, x->sqllen, e->off, "error", "%s", msg);
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

/* ---- arithmetic --------------------------------------------------------------------------- */

static int eval_arith(exec_ctx *x, expr *e, uint32_t count) {
    vector *a = e->args[0]->result, *b = e->args[1]->result, *out = e->result;
    strata_err tmp;
    err_clear(&tmp);
    uint8_t id = e->type.id;
    bool ints = sql_type_is_integer(id) && sql_type_is_integer(a->type.id) && sql_type_is_integer(b->type.id);
    bool dbls = id == TYPE_DOUBLE && a->type.id == TYPE_DOUBLE && b->type.id == TYPE_DOUBLE;
    if (ints) {
        int64_t lo = id == TYPE_SMALLINT ? INT16_MIN : id == TYPE_INTEGER ? INT32_MIN : INT64_MIN;
        int64_t hi = id == TYPE_SMALLINT ? INT16_MAX : id == TYPE_INTEGER ? INT32_MAX : INT64_MAX;
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
    if (dbls && e->aop != VALUE_DIV && e->aop != VALUE_MOD) {
        const double *da = a->data, *db = b->data;
        double *o = out->data;
        for (uint32_t r = 0; r < count; r++) {
            if (row_null(a, r) || row_null(b, r)) {
                vec_set_null(out, r, 1);
                continue;
            }
            double u = da[a->sel[r]], v = db[b->sel[r]], res;
            res = e->aop == VALUE_ADD ? u + v : e->aop == VALUE_SUB ? u - v : u * v;
            if (isinf(res) && !isinf(u) && !isinf(v)) return expr_error(x, e, STRATA_ERROR, "value out of range: overflow");
            o[r] = res;
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

static int eval_neg(exec_ctx *x, expr *e, uint32_t count) {
    vector *a = e->args[0]->result, *out = e->result;
    strata_err tmp;
    err_clear(&tmp);
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

#define CMP_LOOP(T, CMPEXPR)                                                                     \
    do {                                                                                         \
        const T *da = a->data, *db = b->data;                                                    \
        for (uint32_t r = 0; r < count; r++) {                                                   \
            T u = da[a->sel[r]], v = db[b->sel[r]];                                              \
            o[r] = (uint8_t)cmp_holds(e->cmp, (CMPEXPR));                                        \
        }                                                                                        \
    } while (0)

static void set_nulls_of(vector *out, const vector *a, const vector *b, uint32_t count) {
    if (!a->validity && (!b || !b->validity)) return;
    for (uint32_t r = 0; r < count; r++)
        if (row_null(a, r) || (b && row_null(b, r))) vec_set_null(out, r, 1);
}

static int eval_cmp(exec_ctx *x, expr *e, uint32_t count) {
    (void)x;
    vector *a = e->args[0]->result, *b = e->args[1]->result, *out = e->result;
    uint8_t *o = out->data;
    if (a->phys == b->phys && a->type.id != TYPE_DECIMAL) {
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
static int eval_andor(expr *e, uint32_t count) {
    vector *out = e->result;
    uint8_t *o = out->data;
    bool is_and = e->kind == EXPR_AND;
    for (uint32_t r = 0; r < count; r++) {
        bool decided = false, any_null = false;
        for (int i = 0; i < e->nargs && !decided; i++) {
            vector *a = e->args[i]->result;
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

static int eval_not(expr *e, uint32_t count) {
    vector *a = e->args[0]->result, *out = e->result;
    uint8_t *o = out->data;
    for (uint32_t r = 0; r < count; r++) o[r] = !((const uint8_t *)a->data)[a->sel[r]];
    set_nulls_of(out, a, NULL, count);
    return STRATA_OK;
}

static int eval_is_null(expr *e, uint32_t count) {
    vector *a = e->args[0]->result;
    uint8_t *o = e->result->data;
    for (uint32_t r = 0; r < count; r++) o[r] = (uint8_t)(row_null(a, r) != e->negated);
    return STRATA_OK;
}

static int eval_is_distinct(expr *e, uint32_t count) {
    vector *a = e->args[0]->result, *b = e->args[1]->result;
    uint8_t *o = e->result->data;
    for (uint32_t r = 0; r < count; r++) {
        sql_value u, v;
        vec_get_value(a, r, &u);
        vec_get_value(b, r, &v);
        bool distinct = u.is_null != v.is_null || (!u.is_null && value_compare(&u, &v) != 0);
        o[r] = (uint8_t)(distinct != e->negated);
    }
    return STRATA_OK;
}

static int eval_in_list(exec_ctx *x, expr *e, uint32_t count) {
    (void)x;
    vector *a = e->args[0]->result, *out = e->result;
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
            vec_get_value(e->args[i]->result, r, &v);
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

static int eval_cast(exec_ctx *x, expr *e, uint32_t count) {
    vector *a = e->args[0]->result, *out = e->result;
    strata_err tmp;
    err_clear(&tmp);
    if (sql_type_equal(a->type, e->type)) {
        vec_reference(out, a);
        return STRATA_OK;
    }
    bool widen = sql_type_is_integer(a->type.id) && sql_type_is_integer(e->type.id) && a->type.id <= e->type.id;
    bool to_dbl = sql_type_is_integer(a->type.id) && e->type.id == TYPE_DOUBLE;
    for (uint32_t r = 0; r < count; r++) {
        if (row_null(a, r)) {
            vec_set_null(out, r, 1);
            continue;
        }
        if (widen) {
            put_int(out, r, get_int(a, a->sel[r]));
            continue;
        }
        if (to_dbl) {
            ((double *)out->data)[r] = (double)get_int(a, a->sel[r]);
            continue;
        }
        sql_value u, v;
        vec_get_value(a, r, &u);
        if (value_cast(&u, e->type, e->explicit_cast, x->mem, &v, &tmp)) return fail_at(x, e, &tmp);
        if (vec_set_value(out, r, &v, x->err)) return STRATA_NOMEM;
    }
    return STRATA_OK;
}

static int eval_extract(exec_ctx *x, expr *e, uint32_t count) {
    vector *a = e->args[0]->result, *out = e->result;
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

static int eval_concat(exec_ctx *x, expr *e, uint32_t count) {
    vector *a = e->args[0]->result, *b = e->args[1]->result, *out = e->result;
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

static int eval_coalesce(exec_ctx *x, expr *e, uint32_t count) {
    vector *out = e->result;
    for (uint32_t r = 0; r < count; r++) {
        int i = 0;
        while (i < e->nargs - 1 && row_null(e->args[i]->result, r)) i++;
        sql_value v;
        vec_get_value(e->args[i]->result, r, &v);
        if (vec_set_value(out, r, &v, x->err)) return STRATA_NOMEM;
    }
    return STRATA_OK;
}

/* ---- CASE --------------------------------------------------------------------------------- */

/* eval_on evaluates e over rows sel[0..n) of in (in may be NULL), through a sliced chunk. */
static int eval_on(exec_ctx *x, case_aux *a, expr *e, data_chunk *in, const sel_t *sel, uint32_t n) {
    if (!in) return expr_eval(x, e, NULL, n);
    for (uint32_t c = 0; c < in->ncols; c++) vec_slice(&a->slice.cols[c], &in->cols[c], sel, n);
    a->slice.count = n;
    a->slice.sel = NULL;
    return expr_eval(x, e, &a->slice, n);
}

static int eval_case(exec_ctx *x, expr *e, data_chunk *in, uint32_t count) {
    case_aux *a = e->aux;
    vector *out = e->result;
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
        expr *then;
        uint32_t nm = 0, nu = 0;
        if (arm < narms) {
            expr *when = e->args[2 * arm];
            then = e->args[2 * arm + 1];
            int rc = eval_on(x, a, when, in, a->remaining, nrem);
            if (rc) return rc;
            vector *w = when->result;
            for (uint32_t k = 0; k < nrem; k++) {
                bool t = !row_null(w, k) && ((const uint8_t *)w->data)[w->sel[k]];
                if (t) a->matched[nm++] = a->remaining[k];
                else a->unmatched[nu++] = a->remaining[k];
            }
        } else {
            then = e->args[e->nargs - 1];
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

int expr_eval(exec_ctx *x, expr *e, data_chunk *in, uint32_t count) {
    vector *out = e->result;
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
    case EXPR_CASE: return eval_case(x, e, in, count);
    default: break;
    }
    if (in && in->sel) chunk_apply_sel(in);
    for (int i = 0; i < e->nargs; i++)
        if ((rc = expr_eval(x, e->args[i], in, count))) return rc;
    switch (e->kind) {
    case EXPR_CAST: rc = eval_cast(x, e, count); break;
    case EXPR_ARITH: rc = eval_arith(x, e, count); break;
    case EXPR_NEG: rc = eval_neg(x, e, count); break;
    case EXPR_CMP: rc = eval_cmp(x, e, count); break;
    case EXPR_AND:
    case EXPR_OR: rc = eval_andor(e, count); break;
    case EXPR_NOT: rc = eval_not(e, count); break;
    case EXPR_IS_NULL: rc = eval_is_null(e, count); break;
    case EXPR_IS_DISTINCT: rc = eval_is_distinct(e, count); break;
    case EXPR_COALESCE: rc = eval_coalesce(x, e, count); break;
    case EXPR_IN_LIST: rc = eval_in_list(x, e, count); break;
    case EXPR_EXTRACT: rc = eval_extract(x, e, count); break;
    case EXPR_CONCAT: rc = eval_concat(x, e, count); break;
    case EXPR_SUBQUERY: rc = exec_subquery(x, e, in, count); break;
    case EXPR_FUNC: {
        vector args[FUNC_MAX_ARGS];
        for (int i = 0; i < e->nargs; i++) args[i] = *e->args[i]->result;
        strata_err tmp;
        err_clear(&tmp);
        rc = e->fn->exec(args, e->nargs, count, out, &tmp);
        if (rc) return tmp.code ? fail_at(x, e, &tmp) : rc;
        break;
    }
    case EXPR_LIKE: {
        strata_err tmp;
        err_clear(&tmp);
        rc = like_exec(e->args[0]->result, e->args[1]->result, e->like.escape, e->like.ilike, e->negated, count, out,
                       &tmp);
        if (rc) return fail_at(x, e, &tmp);
        break;
    }
    default: rc = err_set(x->err, STRATA_MISUSE, "expression kind %d cannot be evaluated", e->kind); break;
    }
    return rc;
}

int expr_select(exec_ctx *x, expr *e, data_chunk *in, uint32_t count, sel_t *sel, uint32_t *n) {
    int rc = expr_eval(x, e, in, count);
    if (rc) return rc;
    vector *v = e->result;
    const uint8_t *d = v->data;
    uint32_t k = 0;
    if (v->kind == VEC_CONSTANT) {
        if (!row_null(v, 0) && d[0])
            for (uint32_t r = 0; r < count; r++) sel[k++] = r;
    } else {
        for (uint32_t r = 0; r < count; r++) {
            uint32_t i = v->sel[r];
            sel[k] = r;
            k += d[i] && !(v->validity && !((v->validity[i >> 6] >> (i & 63)) & 1));
        }
    }
    *n = k;
    return STRATA_OK;
}

int expr_eval_const(exec_ctx *x, expr *e, sql_value *out) {
    int rc = expr_prepare(e, x->err);
    if (rc) return rc;
    if ((rc = expr_eval(x, e, NULL, 1))) return rc;
    sql_value v;
    vec_get_value(e->result, 0, &v);
    if (!v.is_null && (v.type.id == TYPE_VARCHAR || v.type.id == TYPE_BLOB)) {
        sstr s;
        if ((rc = sstr_copy(x->mem, sstr_data(&v.v.s), v.v.s.len, &s, x->err))) return rc;
        v.v.s = s;
    }
    *out = v;
    return STRATA_OK;
}
