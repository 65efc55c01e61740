/*
** bind.c -- names, types and plans (see bind.h).
**
** Scopes. A FROM clause produces a scope: the list of columns its plan outputs, each with the
** name of the table (or alias) it came from. Expressions bind against a scope; a column reference
** becomes EXPR_COL with the column's position in the plan's output chunk.
**
** Aggregation. When a query groups or aggregates, the select list, HAVING and ORDER BY bind in
** "aggregate mode": an aggregate call binds its argument against the FROM scope and becomes a
** reference to the aggregate's output column; a subexpression equal to a GROUP BY key becomes a
** reference to that key's column; any other column reference is PostgreSQL's "must appear in the
** GROUP BY clause" error.
*/
#include "bind/bind_internal.h"
#include "optimize/optimize.h"

#include "load/copy.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/parser.h"
#include "catalog/stats.h"

/* ---- scopes ------------------------------------------------------------------------------- */

typedef struct scope_col {
    const char *table; /* the table or alias name; NULL for a derived column without one */
    const char *name;
    sql_type type;
    bool hidden;       /* a USING column's other copy: only a qualified name reaches it */
} scope_col;

typedef struct scope {
    uint32_t n, cap;
    scope_col *cols;
} scope;

typedef struct agg_state {
    scope *pre; /* the FROM scope the aggregate's input has */
    uint32_t nkeys;
    expr **keys;
    uint32_t naggs, cap;
    agg_expr *aggs;
} agg_state;

typedef struct ectx {
    bind_ctx *b;
    scope *sc;
    agg_state *agg;    /* non-NULL: aggregate mode */
    const char *where; /* a clause that refuses aggregates ("WHERE"); NULL when allowed */
} ectx;

/* A subquery being bound: columns of the enclosing query it refers to become correlation
** slots, EXPR_PARAM with param -(slot + 1), filled from the outer row at run time. */
typedef struct corr_ctx {
    scope *outer;     /* the enclosing query's scope */
    uint32_t n, cap;
    uint32_t *cols;   /* outer column of each slot */
    struct corr_ctx *parent;
} corr_ctx;

/* A WITH name visible while binding: its definition, the names visible where it was defined,
** and while its recursive part is bound, the working table that references to it read. */
typedef struct cte_scope {
    const sql_cte *cte;
    struct cte_scope *next;
    bool recursive;     /* WITH RECURSIVE: it may refer to itself */
    cte_store *work;    /* binding its recursive part: references scan this */
    plan_op *anchor;    /* ... with the anchor's types */
} cte_scope;

__attribute__((format(printf, 3, 4))) static int bind_error(bind_ctx *b, size_t off, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sql_error_at(b->err, STRATA_ERROR, b->sql, b->sqllen, off, NULL, "%s", msg);
}

static int nomem(bind_ctx *b) { return err_set(b->err, STRATA_NOMEM, "out of memory (binder)"); }

static void *alloc0(bind_ctx *b, size_t n) {
    void *p = arena_alloc(b->mem, n ? n : 1);
    if (p) memset(p, 0, n ? n : 1);
    return p;
}

static int scope_add(bind_ctx *b, scope *s, const char *table, const char *name, sql_type type) {
    if (s->n == s->cap) {
        uint32_t nc = s->cap ? s->cap * 2 : 16;
        scope_col *a = arena_alloc(b->mem, nc * sizeof *a);
        if (!a) return nomem(b);
        if (s->n) memcpy(a, s->cols, s->n * sizeof *a);
        s->cols = a;
        s->cap = nc;
    }
    s->cols[s->n++] = (scope_col){table, name, type, false};
    return STRATA_OK;
}

/* ---- expression constructors -------------------------------------------------------------- */

static expr *mk(bind_ctx *b, expr_kind kind, sql_type type, size_t off, int nargs) {
    expr *e = alloc0(b, sizeof *e);
    if (!e) return NULL;
    e->kind = kind;
    e->type = type;
    e->off = off;
    e->nargs = nargs;
    if (nargs && !(e->args = alloc0(b, (size_t)nargs * sizeof *e->args))) return NULL;
    return e;
}

static expr *mk_col(bind_ctx *b, uint32_t col, sql_type type, size_t off) {
    expr *e = mk(b, EXPR_COL, type, off, 0);
    if (e) e->col = col;
    return e;
}

static expr *mk_const(bind_ctx *b, sql_value v, size_t off) {
    expr *e = mk(b, EXPR_CONST, v.type, off, 0);
    if (e) e->value = v;
    return e;
}

static expr *mk2(bind_ctx *b, expr_kind kind, sql_type type, size_t off, expr *x, expr *y) {
    expr *e = mk(b, kind, type, off, y ? 2 : 1);
    if (!e) return NULL;
    e->args[0] = x;
    if (y) e->args[1] = y;
    return e;
}

bool expr_equal(const expr *a, const expr *c) {
    if (a->kind != c->kind || a->nargs != c->nargs || !sql_type_equal(a->type, c->type) || a->negated != c->negated)
        return false;
    switch (a->kind) {
    case EXPR_COL:
        if (a->col != c->col) return false;
        break;
    case EXPR_CONST:
        if (a->value.is_null != c->value.is_null || (!a->value.is_null && value_compare(&a->value, &c->value)))
            return false;
        break;
    case EXPR_PARAM:
        if (a->param != c->param) return false;
        break;
    case EXPR_ARITH:
        if (a->aop != c->aop) return false;
        break;
    case EXPR_CMP:
        if (a->cmp != c->cmp) return false;
        break;
    case EXPR_FUNC:
        if (a->fn != c->fn) return false;
        break;
    case EXPR_EXTRACT:
        if (a->field != c->field) return false;
        break;
    case EXPR_LIKE: /* LIKE and ILIKE, or two escape characters, are different tests */
        if (a->like.escape != c->like.escape || a->like.ilike != c->like.ilike) return false;
        break;
    case EXPR_SUBQUERY: return false;
    default: break;
    }
    for (int i = 0; i < a->nargs; i++)
        if (!expr_equal(a->args[i], c->args[i])) return false;
    return true;
}

/* col_range gives the smallest and largest column an expression reads (*lo > *hi: none). */
static void col_range(const expr *e, uint32_t *lo, uint32_t *hi) {
    if (e->kind == EXPR_COL) {
        if (e->col < *lo) *lo = e->col;
        if (e->col > *hi || *hi == UINT32_MAX) *hi = e->col;
    }
    if (e->kind == EXPR_SUBQUERY && e->sub.correlated)
        for (uint32_t i = 0; i < e->sub.nouter; i++) {
            if (e->sub.outer[i] < *lo) *lo = e->sub.outer[i];
            if (e->sub.outer[i] > *hi || *hi == UINT32_MAX) *hi = e->sub.outer[i];
        }
    for (int i = 0; i < e->nargs; i++) col_range(e->args[i], lo, hi);
}

/* ---- casts -------------------------------------------------------------------------------- */

int bind_cast(bind_ctx *b, expr *e, sql_type t, bool explicit_cast, expr **out) {
    if (sql_type_equal(e->type, t) && !e->untyped) {
        *out = e;
        return STRATA_OK;
    }
    if (e->kind == EXPR_PARAM && e->untyped) { /* a parameter takes the type its use asks for */
        e->type = t;
        e->untyped = false;
        if (e->param <= b->cap_params) b->param_types[e->param - 1] = t;
        *out = e;
        return STRATA_OK;
    }
    if (e->kind == EXPR_CONST) { /* fold: a bad literal is an error now, at its position */
        sql_value v;
        strata_err tmp;
        err_clear(&tmp);
        if (value_cast(&e->value, t, explicit_cast, b->mem, &v, &tmp))
            return sql_error_at(b->err, tmp.code ? tmp.code : STRATA_ERROR, b->sql, b->sqllen, e->off, NULL, "%s",
                                tmp.msg);
        expr *c = mk_const(b, v, e->off);
        if (!c) return nomem(b);
        *out = c;
        return STRATA_OK;
    }
    expr *c = mk2(b, EXPR_CAST, t, e->off, e, NULL);
    if (!c) return nomem(b);
    c->explicit_cast = explicit_cast;
    *out = c;
    return STRATA_OK;
}

static int type_error(bind_ctx *b, size_t off, strata_err *tmp) {
    return sql_error_at(b->err, tmp->code ? tmp->code : STRATA_ERROR, b->sql, b->sqllen, off, NULL, "%s", tmp->msg);
}

/* common_type of two expressions as value_common_type sees them (untyped literals adapt). */
static int common_type(bind_ctx *b, const expr *x, const expr *y, size_t off, sql_type *out) {
    strata_err tmp;
    err_clear(&tmp);
    if (x->untyped && x->kind == EXPR_PARAM) {
        *out = y->untyped && y->kind == EXPR_PARAM ? sql_type_make(TYPE_VARCHAR) : y->type;
        if (out->id == TYPE_NULL) *out = sql_type_make(TYPE_VARCHAR);
        return STRATA_OK;
    }
    if (y->untyped && y->kind == EXPR_PARAM) {
        *out = x->type.id == TYPE_NULL ? sql_type_make(TYPE_VARCHAR) : x->type;
        return STRATA_OK;
    }
    int flags = (x->untyped ? VALUE_LITERAL_A : 0) | (y->untyped ? VALUE_LITERAL_B : 0);
    if (value_common_type(x->type, y->type, flags, out, &tmp)) return type_error(b, off, &tmp);
    return STRATA_OK;
}

static int require_bool(bind_ctx *b, expr **e, const char *what) {
    if ((*e)->type.id == TYPE_BOOLEAN && !(*e)->untyped) return STRATA_OK;
    if ((*e)->type.id == TYPE_NULL || (*e)->untyped) return bind_cast(b, *e, sql_type_make(TYPE_BOOLEAN), false, e);
    return bind_error(b, (*e)->off, "argument of %s must be type boolean, not type %s", what,
                      sql_type_name((*e)->type.id));
}

/* ---- expressions -------------------------------------------------------------------------- */

static int bind_expr(ectx *c, const sql_expr *a, expr **out);

static bool is_aggregate_name(const char *n) {
    return !strcmp(n, "count") || !strcmp(n, "sum") || !strcmp(n, "avg") || !strcmp(n, "min") || !strcmp(n, "max");
}

static bool has_aggregate(const sql_expr *a) {
    if (!a) return false;
    switch (a->kind) {
    case EX_FUNC:
        if (is_aggregate_name(a->func.name)) return true;
        for (int i = 0; i < a->func.args.n; i++)
            if (has_aggregate(a->func.args.items[i])) return true;
        return false;
    case EX_UNARY:
    case EX_IS_NULL: return has_aggregate(a->unary.arg);
    case EX_BINARY:
    case EX_IS_DISTINCT: return has_aggregate(a->binary.left) || has_aggregate(a->binary.right);
    case EX_BETWEEN: return has_aggregate(a->between.arg) || has_aggregate(a->between.low) || has_aggregate(a->between.high);
    case EX_IN:
        if (has_aggregate(a->in.arg)) return true;
        for (int i = 0; i < a->in.list.n; i++)
            if (has_aggregate(a->in.list.items[i])) return true;
        return false;
    case EX_LIKE: return has_aggregate(a->like.arg) || has_aggregate(a->like.pattern);
    case EX_QUANTIFIED: return has_aggregate(a->in.arg);
    case EX_CASE:
        if (has_aggregate(a->caseof.operand) || has_aggregate(a->caseof.otherwise)) return true;
        for (int i = 0; i < a->caseof.whens.n; i++) {
            sql_when *w = a->caseof.whens.items[i];
            if (has_aggregate(w->when) || has_aggregate(w->then)) return true;
        }
        return false;
    case EX_CAST: return has_aggregate(a->cast.arg);
    case EX_EXTRACT: return has_aggregate(a->extract.arg);
    default: return false;
    }
}

static int resolve_column(ectx *c, const sql_expr *a, expr **out) {
    bind_ctx *b = c->b;
    scope *s = c->sc;
    int found = -1;
    for (uint32_t i = 0; s && i < s->n; i++) {
        const scope_col *sc = &s->cols[i];
        if (strcmp(sc->name, a->col.column)) continue;
        if (a->col.table && (!sc->table || strcmp(sc->table, a->col.table))) continue;
        if (sc->hidden && !a->col.table) continue;
        if (found >= 0) return bind_error(b, a->off, "column reference \"%s\" is ambiguous", a->col.column);
        found = (int)i;
    }
    if (found >= 0) {
        *out = mk_col(b, (uint32_t)found, s->cols[found].type, a->off);
        return *out ? STRATA_OK : nomem(b);
    }
    /* a column of the enclosing query: a correlation slot */
    corr_ctx *cc = b->corr;
    if (cc && cc->outer) {
        scope *o = cc->outer;
        for (uint32_t i = 0; i < o->n; i++) {
            const scope_col *sc = &o->cols[i];
            if (strcmp(sc->name, a->col.column)) continue;
            if (a->col.table && (!sc->table || strcmp(sc->table, a->col.table))) continue;
            if (found >= 0) return bind_error(b, a->off, "column reference \"%s\" is ambiguous", a->col.column);
            found = (int)i;
        }
        if (found >= 0) {
            uint32_t slot = cc->n;
            for (uint32_t k = 0; k < cc->n; k++)
                if (cc->cols[k] == (uint32_t)found) slot = k;
            if (slot == cc->n) {
                if (cc->n == cc->cap) {
                    uint32_t nc = cc->cap ? cc->cap * 2 : 8;
                    uint32_t *n = alloc0(b, nc * sizeof *n);
                    if (!n) return nomem(b);
                    if (cc->n) memcpy(n, cc->cols, cc->n * sizeof *n);
                    cc->cols = n;
                    cc->cap = nc;
                }
                cc->cols[cc->n++] = (uint32_t)found;
            }
            expr *e = mk(b, EXPR_PARAM, o->cols[found].type, a->off, 0);
            if (!e) return nomem(b);
            e->param = -(int)(slot + 1);
            *out = e;
            return STRATA_OK;
        }
    }
    /* not found: suggest the closest name */
    const char *best = NULL;
    int bd = 3;
    bool table_known = !a->col.table;
    for (uint32_t i = 0; s && i < s->n; i++) {
        if (a->col.table && s->cols[i].table && !strcmp(s->cols[i].table, a->col.table)) table_known = true;
        if (s->cols[i].hidden) continue;
        int d = name_distance(a->col.column, s->cols[i].name);
        if (d < bd) bd = d, best = s->cols[i].name;
    }
    if (!table_known) return bind_error(b, a->off, "missing FROM-clause entry for table \"%s\"", a->col.table);
    if (best)
        return bind_error(b, a->off, "column \"%s\" does not exist (did you mean \"%s\"?)", a->col.column, best);
    return bind_error(b, a->off, "column \"%s\" does not exist", a->col.column);
}

static int bind_literal_num(bind_ctx *b, const sql_expr *a, expr **out) {
    const char *t = a->text.ptr;
    strata_err tmp;
    err_clear(&tmp);
    sql_value v;
    if (strpbrk(t, "eE")) {
        double d;
        if (dbl_parse(t, strlen(t), &d, &tmp)) return type_error(b, a->off, &tmp);
        v = value_double(d);
    } else {
        const char *p = t + (*t == '-' || *t == '+');
        int digits = 0, scale = 0;
        bool dot = false;
        while (*p == '0' && p[1] && p[1] != '.') p++;
        for (; *p; p++) {
            if (*p == '.') dot = true;
            else digits++, scale += dot;
        }
        if (digits > 18 || digits < 1) {
            double d;
            if (dbl_parse(t, strlen(t), &d, &tmp)) return type_error(b, a->off, &tmp);
            v = value_double(d);
        } else {
            int64_t x;
            uint8_t prec = (uint8_t)(digits < scale + 1 ? scale + 1 : digits);
            if (prec > 18) prec = 18;
            if (dec_parse(t, strlen(t), prec, (uint8_t)scale, &x, &tmp)) return type_error(b, a->off, &tmp);
            v = value_decimal(x, prec, (uint8_t)scale);
        }
    }
    *out = mk_const(b, v, a->off);
    return *out ? STRATA_OK : nomem(b);
}

static int bind_typed_literal(bind_ctx *b, const sql_expr *a, expr **out) {
    strata_err tmp;
    err_clear(&tmp);
    sql_value v;
    const char *s = a->typed.text;
    if (!strcmp(a->typed.type, "date")) {
        int32_t d;
        if (date_parse(s, strlen(s), &d, &tmp)) return type_error(b, a->off, &tmp);
        v = value_date(d);
    } else if (!strcmp(a->typed.type, "timestamp")) {
        int64_t ts;
        if (ts_parse(s, strlen(s), &ts, &tmp)) return type_error(b, a->off, &tmp);
        v = value_timestamp(ts);
    } else {
        sql_interval iv;
        if (interval_parse(s, strlen(s), a->typed.unit, &iv, &tmp)) return type_error(b, a->off, &tmp);
        v = value_interval(iv);
    }
    *out = mk_const(b, v, a->off);
    return *out ? STRATA_OK : nomem(b);
}

static const value_op arith_of[] = {[OP_ADD] = VALUE_ADD, [OP_SUB] = VALUE_SUB, [OP_MUL] = VALUE_MUL,
                                    [OP_DIV] = VALUE_DIV, [OP_MOD] = VALUE_MOD};
static const cmp_op cmp_of[] = {[OP_EQ] = CMP_EQ, [OP_NE] = CMP_NE, [OP_LT] = CMP_LT,
                                [OP_LE] = CMP_LE, [OP_GT] = CMP_GT, [OP_GE] = CMP_GE};

/* longer_text: e is a string constant with more characters than type t allows. */
static bool longer_text(const expr *e, sql_type t) {
    return e->kind == EXPR_CONST && !e->value.is_null && e->value.type.id == TYPE_VARCHAR && t.max_len &&
           utf8_length(sstr_data(&e->value.v.s), e->value.v.s.len) > t.max_len;
}

/* make_cmp builds x op y with both sides cast to their common type. A string longer than a
** VARCHAR(n) side allows compares as text, as in PostgreSQL (it equals no value of the column),
** rather than failing its cast. */
static int make_cmp(bind_ctx *b, cmp_op op, expr *x, expr *y, size_t off, expr **out) {
    sql_type ct;
    simplify_date_vs_timestamp(b, &op, &x, &y);
    int rc = common_type(b, x, y, off, &ct);
    if (rc) return rc;
    if (ct.id == TYPE_NULL) ct = sql_type_make(TYPE_VARCHAR);
    if (ct.id == TYPE_VARCHAR && (longer_text(x, ct) || longer_text(y, ct))) ct.max_len = 0;
    if ((rc = bind_cast(b, x, ct, false, &x)) || (rc = bind_cast(b, y, ct, false, &y))) return rc;
    expr *e = mk2(b, EXPR_CMP, sql_type_make(TYPE_BOOLEAN), off, x, y);
    if (!e) return nomem(b);
    e->cmp = op;
    *out = e;
    return STRATA_OK;
}

static int make_arith(bind_ctx *b, value_op op, expr *x, expr *y, size_t off, expr **out) {
    strata_err tmp;
    err_clear(&tmp);
    sql_type rt;
    int rc;
    /* untyped parameters take the other side's type (numbers) */
    if (x->untyped && x->kind == EXPR_PARAM && !y->untyped && (rc = bind_cast(b, x, y->type, false, &x))) return rc;
    if (y->untyped && y->kind == EXPR_PARAM && !x->untyped && (rc = bind_cast(b, y, x->type, false, &y))) return rc;
    int flags = (x->untyped ? VALUE_LITERAL_A : 0) | (y->untyped ? VALUE_LITERAL_B : 0);
    if (value_arith_type(op, x->type, y->type, flags, &rt, &tmp)) return type_error(b, off, &tmp);
    /* literals take their operand's type; numbers meet in the result type where it is DOUBLE */
    if (x->untyped && (rc = bind_cast(b, x, y->untyped ? rt : (sql_type_is_numeric(rt.id) ? rt : y->type.id == TYPE_INTERVAL ? y->type : rt), false, &x))) return rc;
    if (y->untyped && (rc = bind_cast(b, y, sql_type_is_numeric(rt.id) ? rt : (y->type.id == TYPE_VARCHAR && x->type.id != TYPE_VARCHAR && (x->type.id == TYPE_DATE || x->type.id == TYPE_TIMESTAMP) ? sql_type_make(sql_type_is_integer(rt.id) ? TYPE_INTEGER : TYPE_INTERVAL) : rt), false, &y))) return rc;
    if (rt.id == TYPE_DOUBLE) {
        if ((rc = bind_cast(b, x, rt, false, &x)) || (rc = bind_cast(b, y, rt, false, &y))) return rc;
    }
    if (x->kind == EXPR_CONST && y->kind == EXPR_CONST) { /* folded once, as the executor would compute it */
        sql_value v;
        if (x->value.is_null || y->value.is_null) {
            v = value_null(rt);
        } else if (value_arith(op, &x->value, &y->value, &v, &tmp) ||
                   (!sql_type_equal(v.type, rt) && value_cast(&v, rt, true, b->mem, &v, &tmp))) {
            goto unfolded; /* the error is the executor's to report, if a row ever reaches it */
        }
        return (*out = mk_const(b, v, off)) ? STRATA_OK : nomem(b);
    }
unfolded:;
    expr *e = mk2(b, EXPR_ARITH, rt, off, x, y);
    if (!e) return nomem(b);
    e->aop = op;
    *out = e;
    return STRATA_OK;
}

/* fold_common casts every expression of list to their common type. */
static int fold_common(bind_ctx *b, expr **list, int n, size_t off, sql_type *out) {
    sql_type t = sql_type_make(TYPE_NULL);
    bool all_untyped = true;
    for (int i = 0; i < n; i++) {
        if (list[i]->untyped) continue;
        if (all_untyped) {
            t = list[i]->type;
            all_untyped = false;
            continue;
        }
        strata_err tmp;
        err_clear(&tmp);
        if (value_common_type(t, list[i]->type, 0, &t, &tmp)) return type_error(b, list[i]->off ? list[i]->off : off, &tmp);
    }
    if (all_untyped || t.id == TYPE_NULL) t = all_untyped && n && list[0]->type.id != TYPE_NULL ? sql_type_make(TYPE_VARCHAR) : t;
    if (t.id == TYPE_NULL) t = sql_type_make(TYPE_VARCHAR);
    for (int i = 0; i < n; i++) {
        int rc = bind_cast(b, list[i], t, false, &list[i]);
        if (rc) return rc;
    }
    *out = t;
    return STRATA_OK;
}

static int bind_aggregate(ectx *c, const sql_expr *a, expr **out) {
    bind_ctx *b = c->b;
    if (!c->agg) {
        if (c->where) return bind_error(b, a->off, "aggregate functions are not allowed in %s", c->where);
        return bind_error(b, a->off, "aggregate function calls cannot be nested");
    }
    agg_expr ag = {0};
    const char *n = a->func.name;
    ag.distinct = a->func.distinct;
    if (a->func.star) {
        ag.fn = AGG_COUNT_STAR;
        ag.type = sql_type_make(TYPE_BIGINT);
    } else {
        if (a->func.args.n != 1) return bind_error(b, a->off, "function %s takes exactly one argument", n);
        ectx inner = {b, c->agg->pre, NULL, NULL};
        int rc = bind_expr(&inner, a->func.args.items[0], &ag.arg);
        if (rc) return rc;
        strata_err tmp;
        err_clear(&tmp);
        if (ag.arg->untyped && (rc = bind_cast(b, ag.arg, sql_type_make(TYPE_VARCHAR), false, &ag.arg))) return rc;
        if (!strcmp(n, "count")) {
            ag.fn = AGG_COUNT;
            ag.type = sql_type_make(TYPE_BIGINT);
        } else if (!strcmp(n, "sum")) {
            ag.fn = AGG_SUM;
            if (value_sum_type(ag.arg->type, &ag.type, &tmp)) return type_error(b, a->off, &tmp);
        } else if (!strcmp(n, "avg")) {
            ag.fn = AGG_AVG;
            if (value_avg_type(ag.arg->type, &ag.type, &tmp)) return type_error(b, a->off, &tmp);
        } else {
            ag.fn = !strcmp(n, "min") ? AGG_MIN : AGG_MAX;
            ag.type = ag.arg->type;
            if (ag.type.id == TYPE_NULL) ag.type = sql_type_make(TYPE_VARCHAR);
        }
    }
    agg_state *s = c->agg;
    uint32_t idx = s->naggs;
    for (uint32_t i = 0; i < s->naggs; i++)
        if (s->aggs[i].fn == ag.fn && s->aggs[i].distinct == ag.distinct &&
            ((!s->aggs[i].arg && !ag.arg) || (s->aggs[i].arg && ag.arg && expr_equal(s->aggs[i].arg, ag.arg))))
            idx = i;
    if (idx == s->naggs) {
        if (s->naggs == s->cap) {
            uint32_t nc = s->cap ? s->cap * 2 : 8;
            agg_expr *na = arena_alloc(b->mem, nc * sizeof *na);
            if (!na) return nomem(b);
            if (s->naggs) memcpy(na, s->aggs, s->naggs * sizeof *na);
            s->aggs = na;
            s->cap = nc;
        }
        s->aggs[s->naggs++] = ag;
    }
    *out = mk_col(b, s->nkeys + idx, s->aggs[idx].type, a->off);
    return *out ? STRATA_OK : nomem(b);
}

static int bind_func(ectx *c, const sql_expr *a, expr **out) {
    bind_ctx *b = c->b;
    const char *n = a->func.name;
    int nargs = a->func.args.n;
    if (is_aggregate_name(n)) return bind_aggregate(c, a, out);
    if (a->func.star || a->func.distinct) return bind_error(b, a->off, "%s(*) or DISTINCT is only for aggregates", n);
    expr *args[FUNC_MAX_ARGS + 24];
    if (nargs > (int)(sizeof args / sizeof args[0])) return bind_error(b, a->off, "too many arguments to %s", n);
    for (int i = 0; i < nargs; i++) {
        int rc = bind_expr(c, a->func.args.items[i], &args[i]);
        if (rc) return rc;
    }
    if (!strcmp(n, "coalesce")) {
        if (nargs < 1) return bind_error(b, a->off, "coalesce needs at least one argument");
        sql_type t;
        int rc = fold_common(b, args, nargs, a->off, &t);
        if (rc) return rc;
        expr *e = mk(b, EXPR_COALESCE, t, a->off, nargs);
        if (!e) return nomem(b);
        memcpy(e->args, args, (size_t)nargs * sizeof *args);
        *out = e;
        return STRATA_OK;
    }
    if (!strcmp(n, "nullif")) {
        if (nargs != 2) return bind_error(b, a->off, "function nullif takes two arguments");
        sql_type t;
        int rc = fold_common(b, args, 2, a->off, &t);
        expr *eq;
        if (rc || (rc = make_cmp(b, CMP_EQ, args[0], args[1], a->off, &eq))) return rc;
        expr *e = mk(b, EXPR_CASE, t, a->off, 3);
        expr *nul = mk_const(b, value_null(t), a->off);
        if (!e || !nul) return nomem(b);
        e->args[0] = eq, e->args[1] = nul, e->args[2] = args[0];
        *out = e;
        return STRATA_OK;
    }
    const func_def *fd = func_lookup(n);
    if (!fd) {
        const char *s = func_suggest(n);
        if (s) return bind_error(b, a->off, "function %s does not exist (did you mean %s?)", n, s);
        return bind_error(b, a->off, "function %s does not exist", n);
    }
    if (nargs > FUNC_MAX_ARGS) return bind_error(b, a->off, "too many arguments to %s", n);
    sql_type at[FUNC_MAX_ARGS], want[FUNC_MAX_ARGS], rt;
    for (int i = 0; i < nargs; i++) at[i] = args[i]->untyped && args[i]->kind == EXPR_PARAM ? sql_type_make(TYPE_NULL) : args[i]->type;
    strata_err tmp;
    err_clear(&tmp);
    if (fd->bind(at, nargs, want, &rt, &tmp)) return type_error(b, a->off, &tmp);
    expr *e = mk(b, EXPR_FUNC, rt, a->off, nargs);
    if (!e) return nomem(b);
    e->fn = fd;
    for (int i = 0; i < nargs; i++) {
        int rc = bind_cast(b, args[i], want[i], false, &e->args[i]);
        if (rc) return rc;
    }
    *out = e;
    /* round/trunc of a DECIMAL to a constant number of digits has that scale, as PostgreSQL's
    ** numeric result does (round(2.567, 2) is 2.57, not 2.570) */
    if ((!strcmp(n, "round") || !strcmp(n, "trunc")) && rt.id == TYPE_DECIMAL &&
        (nargs == 1 || (e->args[1]->kind == EXPR_CONST && !e->args[1]->value.is_null))) {
        int64_t digits = nargs == 1 ? 0 : e->args[1]->value.v.i;
        uint8_t scale = digits <= 0 ? 0 : digits >= rt.scale ? rt.scale : (uint8_t)digits;
        if (scale != rt.scale) {
            sql_type t = sql_type_decimal(rt.precision, scale);
            expr *c = mk2(b, EXPR_CAST, t, a->off, e, NULL);
            if (!c) return nomem(b);
            *out = c;
        }
    }
    return STRATA_OK;
}

static int bind_expr_plain(ectx *c, const sql_expr *a, expr **out);

static int bind_expr(ectx *c, const sql_expr *a, expr **out) {
    bind_ctx *b = c->b;
    if (++b->depth > SQL_MAX_DEPTH) {
        b->depth--;
        return bind_error(b, a->off, "expression nested too deeply");
    }
    int rc;
    if (c->agg && !(a->kind == EX_FUNC && is_aggregate_name(a->func.name)) && !has_aggregate(a) &&
        a->kind != EX_SUBQUERY && a->kind != EX_EXISTS && a->kind != EX_QUANTIFIED && a->kind != EX_IN) {
        /* aggregate mode: a GROUP BY key, a constant, or an error for a bare column */
        ectx pre = {b, c->agg->pre, NULL, "GROUP BY"};
        expr *plain;
        rc = bind_expr_plain(&pre, a, &plain);
        if (rc == STRATA_OK) {
            for (uint32_t k = 0; k < c->agg->nkeys; k++)
                if (expr_equal(plain, c->agg->keys[k])) {
                    b->depth--;
                    *out = mk_col(b, k, plain->type, a->off);
                    return *out ? STRATA_OK : nomem(b);
                }
            uint32_t lo = UINT32_MAX, hi = UINT32_MAX;
            col_range(plain, &lo, &hi);
            if (lo == UINT32_MAX) {
                b->depth--;
                *out = plain;
                return STRATA_OK;
            }
            if (a->kind == EX_COL) {
                b->depth--;
                return bind_error(b, a->off,
                                  "column \"%s\" must appear in the GROUP BY clause or be used in an aggregate function",
                                  a->col.column);
            }
        } else {
            b->depth--;
            return rc;
        }
    }
    rc = bind_expr_plain(c, a, out);
    b->depth--;
    return rc;
}

/* bind_subquery binds q as a subquery of an expression bound in c, making e an EXPR_SUBQUERY. */
static int bind_subquery(ectx *c, const sql_select *q, subquery_kind kind, size_t off, expr **out) {
    bind_ctx *b = c->b;
    corr_ctx cc = {.outer = c->sc, .parent = b->corr};
    b->corr = &cc;
    plan_op *p;
    int rc = bind_query(b, q, &p);
    b->corr = cc.parent;
    if (!rc && !cc.n) rc = optimize_subquery(b, &p);
    if (rc) return rc;
    if (kind != SUB_EXISTS && p->ncols != 1)
        return bind_error(b, off, kind == SUB_IN ? "subquery has too many columns" : "subquery must return only one column");
    if (cc.n && c->agg) return bind_error(b, off, "correlated subqueries in an aggregating query are not supported yet");
    expr *e = mk(b, EXPR_SUBQUERY, kind == SUB_SCALAR ? p->types[0] : sql_type_make(TYPE_BOOLEAN), off, 0);
    if (!e) return nomem(b);
    e->sub.kind = kind;
    e->sub.plan = p;
    e->sub.correlated = cc.n > 0;
    e->sub.nouter = cc.n;
    e->sub.outer = cc.cols;
    *out = e;
    return STRATA_OK;
}

static int cast_columns(bind_ctx *b, plan_op **p, const sql_type *types);

static int bind_expr_plain(ectx *c, const sql_expr *a, expr **out) {
    bind_ctx *b = c->b;
    int rc;
    expr *x, *y;
    sql_type tbool = sql_type_make(TYPE_BOOLEAN);
    switch (a->kind) {
    case EX_NULL:
        *out = mk_const(b, value_null(sql_type_make(TYPE_NULL)), a->off);
        if (*out) (*out)->untyped = true;
        break;
    case EX_BOOL: *out = mk_const(b, value_bool(a->boolean), a->off); break;
    case EX_INT:
        *out = mk_const(b, a->integer >= INT32_MIN && a->integer <= INT32_MAX ? value_int(TYPE_INTEGER, a->integer)
                                                                               : value_int(TYPE_BIGINT, a->integer),
                        a->off);
        break;
    case EX_NUM: return bind_literal_num(b, a, out);
    case EX_STR:
        *out = mk_const(b, value_text(a->text.ptr, (uint32_t)a->text.len), a->off);
        if (*out) (*out)->untyped = true;
        break;
    case EX_BLOB: *out = mk_const(b, value_blob(a->text.ptr, (uint32_t)a->text.len), a->off); break;
    case EX_TYPED: return bind_typed_literal(b, a, out);
    case EX_PARAM: {
        if (a->param > 65535) return bind_error(b, a->off, "parameter number too large");
        if (a->param > b->cap_params) {
            int nc = a->param + 16;
            sql_type *na = alloc0(b, (size_t)nc * sizeof *na);
            if (!na) return nomem(b);
            if (b->cap_params) memcpy(na, b->param_types, (size_t)b->cap_params * sizeof *na);
            b->param_types = na;
            b->cap_params = nc;
        }
        if (a->param > b->nparams) b->nparams = a->param;
        expr *e = mk(b, EXPR_PARAM, sql_type_make(TYPE_VARCHAR), a->off, 0);
        if (!e) return nomem(b);
        e->param = a->param;
        e->untyped = true;
        *out = e;
        return STRATA_OK;
    }
    case EX_DEFAULT: return bind_error(b, a->off, "DEFAULT is not allowed in this context");
    case EX_COL: return resolve_column(c, a, out);
    case EX_STAR: return bind_error(b, a->off, "\"*\" is not allowed here");
    case EX_UNARY:
        if ((rc = bind_expr(c, a->unary.arg, &x))) return rc;
        if (a->unary.op == OP_NOT) {
            if ((rc = require_bool(b, &x, "NOT"))) return rc;
            *out = mk2(b, EXPR_NOT, tbool, a->off, x, NULL);
        } else if (a->unary.op == OP_PLUS) {
            *out = x;
        } else {
            if (x->untyped && (rc = bind_cast(b, x, sql_type_make(TYPE_DOUBLE), false, &x))) return rc;
            if (!sql_type_is_numeric(x->type.id) && x->type.id != TYPE_INTERVAL)
                return bind_error(b, a->off, "operator does not exist: - %s", sql_type_name(x->type.id));
            *out = mk2(b, EXPR_NEG, x->type, a->off, x, NULL);
        }
        break;
    case EX_BINARY: {
        if ((rc = bind_expr(c, a->binary.left, &x)) || (rc = bind_expr(c, a->binary.right, &y))) return rc;
        sql_op op = a->binary.op;
        if (op == OP_AND || op == OP_OR) {
            const char *w = op == OP_AND ? "AND" : "OR";
            if ((rc = require_bool(b, &x, w)) || (rc = require_bool(b, &y, w))) return rc;
            *out = mk2(b, op == OP_AND ? EXPR_AND : EXPR_OR, tbool, a->off, x, y);
        } else if (op == OP_CONCAT) {
            sql_type tv = sql_type_make(TYPE_VARCHAR);
            if ((rc = bind_cast(b, x, tv, true, &x)) || (rc = bind_cast(b, y, tv, true, &y))) return rc;
            *out = mk2(b, EXPR_CONCAT, tv, a->off, x, y);
        } else if (op >= OP_EQ && op <= OP_GE) {
            return make_cmp(b, cmp_of[op], x, y, a->off, out);
        } else {
            return make_arith(b, arith_of[op], x, y, a->off, out);
        }
        break;
    }
    case EX_IS_NULL:
        if ((rc = bind_expr(c, a->unary.arg, &x))) return rc;
        *out = mk2(b, EXPR_IS_NULL, tbool, a->off, x, NULL);
        if (*out) (*out)->negated = a->negated;
        break;
    case EX_IS_DISTINCT: {
        if ((rc = bind_expr(c, a->binary.left, &x)) || (rc = bind_expr(c, a->binary.right, &y))) return rc;
        sql_type ct;
        if ((rc = common_type(b, x, y, a->off, &ct))) return rc;
        if (ct.id == TYPE_NULL) ct = sql_type_make(TYPE_VARCHAR);
        if ((rc = bind_cast(b, x, ct, false, &x)) || (rc = bind_cast(b, y, ct, false, &y))) return rc;
        *out = mk2(b, EXPR_IS_DISTINCT, tbool, a->off, x, y);
        if (*out) (*out)->negated = a->negated;
        break;
    }
    case EX_BETWEEN: {
        expr *lo, *hi, *x2, *c1, *c2;
        if ((rc = bind_expr(c, a->between.arg, &x)) || (rc = bind_expr(c, a->between.low, &lo)) ||
            (rc = bind_expr(c, a->between.high, &hi)) || (rc = bind_expr(c, a->between.arg, &x2)))
            return rc;
        if ((rc = make_cmp(b, CMP_GE, x, lo, a->off, &c1)) || (rc = make_cmp(b, CMP_LE, x2, hi, a->off, &c2))) return rc;
        expr *both = mk2(b, EXPR_AND, tbool, a->off, c1, c2);
        if (!both) return nomem(b);
        *out = a->negated ? mk2(b, EXPR_NOT, tbool, a->off, both, NULL) : both;
        break;
    }
    case EX_IN: {
        if (a->in.select) {
            expr *sub, *arg;
            if ((rc = bind_expr(c, a->in.arg, &arg)) || (rc = bind_subquery(c, a->in.select, SUB_IN, a->off, &sub))) return rc;
            plan_op *p = sub->sub.plan;
            sql_type t;
            expr probe = {.kind = EXPR_COL, .type = p->types[0]};
            if ((rc = common_type(b, arg, &probe, a->off, &t))) return rc;
            if (t.id == TYPE_NULL) t = sql_type_make(TYPE_VARCHAR);
            if ((rc = bind_cast(b, arg, t, false, &arg)) || (rc = cast_columns(b, &p, &t))) return rc;
            sub->sub.plan = p;
            sub->nargs = 1;
            if (!(sub->args = alloc0(b, sizeof *sub->args))) return nomem(b);
            sub->args[0] = arg;
            sub->negated = a->negated;
            *out = sub;
            return STRATA_OK;
        }
        int n = a->in.list.n + 1;
        expr **list = alloc0(b, (size_t)n * sizeof *list);
        if (!list) return nomem(b);
        if ((rc = bind_expr(c, a->in.arg, &list[0]))) return rc;
        for (int i = 1; i < n; i++)
            if ((rc = bind_expr(c, a->in.list.items[i - 1], &list[i]))) return rc;
        sql_type t;
        if ((rc = fold_common(b, list, n, a->off, &t))) return rc;
        if (n == 2) return simplify_in_one(b, list[0], list[1], a->negated, a->off, out);
        expr *e = mk(b, EXPR_IN_LIST, tbool, a->off, 0);
        if (!e) return nomem(b);
        e->nargs = n;
        e->args = list;
        e->negated = a->negated;
        *out = e;
        break;
    }
    case EX_LIKE: {
        sql_type tv = sql_type_make(TYPE_VARCHAR);
        if ((rc = bind_expr(c, a->like.arg, &x)) || (rc = bind_expr(c, a->like.pattern, &y))) return rc;
        if ((x->type.id != TYPE_VARCHAR && !x->untyped && x->type.id != TYPE_NULL) ||
            (y->type.id != TYPE_VARCHAR && !y->untyped && y->type.id != TYPE_NULL))
            return bind_error(b, a->off, "operator does not exist: %s %s %s", sql_type_name(x->type.id),
                              a->like.ilike ? "~~*" : "~~", sql_type_name(y->type.id));
        expr *text = x; /* before its cast to VARCHAR: an equality compares it as `text = 'literal'` does */
        if ((rc = bind_cast(b, x, tv, false, &x)) || (rc = bind_cast(b, y, tv, false, &y))) return rc;
        int esc = '\\';
        if (a->like.escape) {
            if (a->like.escape->kind != EX_STR || a->like.escape->text.len > 1)
                return bind_error(b, a->like.escape->off, "invalid escape string");
            esc = a->like.escape->text.len ? (unsigned char)a->like.escape->text.ptr[0] : 0;
        }
        if ((rc = simplify_like(b, text, y, esc, a->like.ilike, a->negated, a->off, out))) return rc;
        if (*out) break;
        expr *e = mk2(b, EXPR_LIKE, tbool, a->off, x, y);
        if (!e) return nomem(b);
        e->like.escape = esc;
        e->like.ilike = a->like.ilike;
        e->negated = a->negated;
        *out = e;
        break;
    }
    case EX_CASE: {
        int nw = a->caseof.whens.n;
        expr **thens = alloc0(b, (size_t)(nw + 1) * sizeof *thens);
        expr *e = mk(b, EXPR_CASE, tbool, a->off, 2 * nw + 1);
        if (!thens || !e) return nomem(b);
        for (int i = 0; i < nw; i++) {
            sql_when *w = a->caseof.whens.items[i];
            expr *cond;
            if (a->caseof.operand) {
                expr *op, *v;
                if ((rc = bind_expr(c, a->caseof.operand, &op)) || (rc = bind_expr(c, w->when, &v)) ||
                    (rc = make_cmp(b, CMP_EQ, op, v, w->when->off, &cond)))
                    return rc;
            } else {
                if ((rc = bind_expr(c, w->when, &cond)) || (rc = require_bool(b, &cond, "CASE/WHEN"))) return rc;
            }
            e->args[2 * i] = cond;
            if ((rc = bind_expr(c, w->then, &thens[i]))) return rc;
        }
        if (a->caseof.otherwise) {
            if ((rc = bind_expr(c, a->caseof.otherwise, &thens[nw]))) return rc;
        } else {
            thens[nw] = mk_const(b, value_null(sql_type_make(TYPE_NULL)), a->off);
            if (!thens[nw]) return nomem(b);
            thens[nw]->untyped = true;
        }
        sql_type t;
        if ((rc = fold_common(b, thens, nw + 1, a->off, &t))) return rc;
        for (int i = 0; i < nw; i++) e->args[2 * i + 1] = thens[i];
        e->args[2 * nw] = thens[nw];
        e->type = t;
        *out = e;
        break;
    }
    case EX_CAST: {
        sql_type t;
        if ((rc = bind_expr(c, a->cast.arg, &x))) return rc;
        if ((rc = catalog_resolve_type(&a->cast.type, b->sql, b->sqllen, &t, b->err))) return rc;
        if (x->kind == EXPR_CONST && x->untyped) x->untyped = false; /* '...'::T parses as T */
        return bind_cast(b, x, t, true, out);
    }
    case EX_FUNC: return bind_func(c, a, out);
    case EX_EXTRACT: {
        if ((rc = bind_expr(c, a->extract.arg, &x))) return rc;
        strata_err tmp;
        err_clear(&tmp);
        dt_field f;
        sql_type t;
        if (x->untyped && (rc = bind_cast(b, x, sql_type_make(TYPE_TIMESTAMP), false, &x))) return rc;
        if (dt_field_parse(a->extract.field, strlen(a->extract.field), x->type.id, &f, &tmp) ||
            dt_extract_type(f, x->type.id, &t, &tmp))
            return type_error(b, a->off, &tmp);
        expr *e = mk2(b, EXPR_EXTRACT, t, a->off, x, NULL);
        if (!e) return nomem(b);
        e->field = f;
        *out = e;
        break;
    }
    case EX_EXISTS: return bind_subquery(c, a->select, SUB_EXISTS, a->off, out);
    case EX_QUANTIFIED: {
        expr *sub, *arg;
        if ((rc = bind_expr(c, a->in.arg, &arg)) ||
            (rc = bind_subquery(c, a->in.select, a->in.all ? SUB_ALL : SUB_ANY, a->off, &sub)))
            return rc;
        plan_op *p = sub->sub.plan;
        if (p->ncols != 1) return bind_error(b, a->off, "subquery has too many columns");
        sql_type t;
        expr probe = {.kind = EXPR_COL, .type = p->types[0]};
        if ((rc = common_type(b, arg, &probe, a->off, &t))) return rc;
        if (t.id == TYPE_NULL) t = sql_type_make(TYPE_VARCHAR);
        if ((rc = bind_cast(b, arg, t, false, &arg)) || (rc = cast_columns(b, &p, &t))) return rc;
        sub->sub.plan = p;
        sub->sub.cmp = cmp_of[a->in.op];
        sub->nargs = 1;
        if (!(sub->args = alloc0(b, sizeof *sub->args))) return nomem(b);
        sub->args[0] = arg;
        *out = sub;
        return STRATA_OK;
    }
    case EX_SUBQUERY: return bind_subquery(c, a->select, SUB_SCALAR, a->off, out);
    }
    return *out ? STRATA_OK : nomem(b);
}

/* ---- plans -------------------------------------------------------------------------------- */

static plan_op *new_op(bind_ctx *b, plan_kind kind, uint32_t ncols) {
    plan_op *p = alloc0(b, sizeof *p);
    if (!p) return NULL;
    p->kind = kind;
    p->ncols = ncols;
    p->types = alloc0(b, (ncols + 1) * sizeof *p->types);
    p->names = alloc0(b, (ncols + 1) * sizeof *p->names);
    return p->types && p->names ? p : NULL;
}

int bind_feed(bind_ctx *b, plan_op *insert, cte_store *feed) {
    if (insert->kind != PLAN_INSERT || insert->dml.nreturning || !insert->child[0])
        return err_set(b->err, STRATA_MISUSE, "an appender's statement is not an INSERT of rows");
    table_def *td = insert->dml.table;
    plan_op *in = insert->child[0];
    const vec_rows *rows = feed->rows;
    bool same = in->ncols == td->ncols && rows->ncols == td->ncols;
    for (uint32_t i = 0; same && i < td->ncols; i++)
        same = sql_type_equal(in->types[i], td->types[i]) && sql_type_equal(rows->types[i], td->types[i]);
    if (!same) /* ALTER TABLE, or DROP and CREATE, since the appender was made */
        return err_set(b->err, STRATA_ERROR, "table \"%s\" changed since its appender was created: its rows were not inserted",
                       td->name);
    plan_op *f = new_op(b, PLAN_CTE_SCAN, td->ncols);
    if (!f) return nomem(b);
    for (uint32_t i = 0; i < td->ncols; i++) f->types[i] = td->types[i], f->names[i] = td->cols[i].name;
    f->cte.store = feed;
    insert->child[0] = f;
    return STRATA_OK;
}

static int bind_select_core(bind_ctx *b, const sql_select *q, plan_op **out);
static int project(bind_ctx *b, plan_op *child, expr **exprs, const char **names, uint32_t n, plan_op **out);

/* A FROM item bound: its plan and scope. */
static int bind_from(bind_ctx *b, const sql_from *f, plan_op **out, scope *sc);

static int scan_table(bind_ctx *b, table_def *td, const char *alias, bool with_rowid, plan_op **out, scope *sc) {
    uint32_t n = td->ncols;
    plan_op *p = new_op(b, PLAN_SCAN, n + with_rowid);
    if (!p) return nomem(b);
    p->scan.table = td;
    p->scan.ncols = n;
    p->scan.cols = alloc0(b, n * sizeof *p->scan.cols);
    if (!p->scan.cols) return nomem(b);
    p->scan.with_rowid = with_rowid;
    p->scan.lo = INT64_MIN;
    p->scan.hi = INT64_MAX;
    for (uint32_t i = 0; i < n; i++) {
        p->scan.cols[i] = i;
        p->types[i] = td->cols[i].type;
        p->names[i] = td->cols[i].name;
        if (sc && scope_add(b, sc, alias, td->cols[i].name, td->cols[i].type)) return nomem(b);
    }
    if (with_rowid) p->types[n] = sql_type_make(TYPE_BIGINT), p->names[n] = "rowid";
    *out = p;
    return STRATA_OK;
}

/* add_filter puts pred (over p's output) on top of p, merging with a filter already there. */
static int add_filter(bind_ctx *b, plan_op **p, expr *pred) {
    if ((*p)->kind == PLAN_FILTER) {
        expr *both = mk2(b, EXPR_AND, sql_type_make(TYPE_BOOLEAN), pred->off, (*p)->filter.pred, pred);
        if (!both) return nomem(b);
        (*p)->filter.pred = both;
        return STRATA_OK;
    }
    plan_op *f = new_op(b, PLAN_FILTER, (*p)->ncols);
    if (!f) return nomem(b);
    memcpy(f->types, (*p)->types, (*p)->ncols * sizeof *f->types);
    memcpy(f->names, (*p)->names, (*p)->ncols * sizeof *f->names);
    f->child[0] = *p;
    f->filter.pred = pred;
    *p = f;
    return STRATA_OK;
}

/* What optimize/ builds with (bind_internal.h). */
void *bind_alloc0(bind_ctx *b, size_t n) { return alloc0(b, n); }
plan_op *bind_new_op(bind_ctx *b, plan_kind kind, uint32_t ncols) { return new_op(b, kind, ncols); }
expr *bind_mk(bind_ctx *b, expr_kind kind, sql_type type, size_t off, int nargs) { return mk(b, kind, type, off, nargs); }
expr *bind_mk2(bind_ctx *b, expr_kind kind, sql_type type, size_t off, expr *x, expr *y) { return mk2(b, kind, type, off, x, y); }
expr *bind_mk_const(bind_ctx *b, sql_value v, size_t off) { return mk_const(b, v, off); }
void bind_col_range(const expr *e, uint32_t *lo, uint32_t *hi) { col_range(e, lo, hi); }
int bind_make_cmp(bind_ctx *b, cmp_op op, expr *x, expr *y, size_t off, expr **out) { return make_cmp(b, op, x, y, off, out); }
int bind_add_filter(bind_ctx *b, plan_op **p, expr *pred) { return add_filter(b, p, pred); }

static int bind_subquery_from(bind_ctx *b, const sql_select *q, const char *alias, const sql_list *colnames,
                              size_t off, plan_op **out, scope *sc) {
    plan_op *p;
    int rc = bind_query(b, q, &p);
    if (rc) return rc;
    if (colnames && colnames->n > (int)p->ncols)
        return bind_error(b, off, "table \"%s\" has %u columns available but %d columns specified", alias ? alias : "?",
                          p->ncols, colnames->n);
    for (uint32_t i = 0; i < p->ncols; i++) {
        const char *nm = colnames && (int)i < colnames->n ? colnames->items[i] : p->names[i];
        if (scope_add(b, sc, alias, nm ? nm : "?column?", p->types[i])) return nomem(b);
    }
    *out = p;
    return STRATA_OK;
}

/* The columns of pragma_storage_info (PRAGMA storage_info): one row per (row group, column)
** segment, and a row for the rows still in the row store (row_group and column NULL).
** distinct_count is the estimate of the row group's statistics (NULL for the rowids and for a
** group written without them). */
static const char *const INFO_NAMES[] = {"row_group", "column",     "rows",      "encoding",  "compressed_bytes",
                                         "uncompressed_bytes", "min", "max", "null_count", "distinct_count",
                                         "deleted_rows"};
static const sql_type_id INFO_TYPES[] = {TYPE_BIGINT,  TYPE_VARCHAR, TYPE_BIGINT,  TYPE_VARCHAR, TYPE_BIGINT,
                                         TYPE_BIGINT,  TYPE_VARCHAR, TYPE_VARCHAR, TYPE_BIGINT,  TYPE_BIGINT,
                                         TYPE_BIGINT};

static int bind_storage_info(bind_ctx *b, const sql_from *f, plan_op **out, scope *sc) {
    const sql_expr *fe = f->func;
    if (fe->func.args.n != 1 || ((sql_expr *)fe->func.args.items[0])->kind != EX_STR)
        return bind_error(b, f->off, "pragma_storage_info takes one table name in quotes");
    const char *name = ((sql_expr *)fe->func.args.items[0])->text.ptr;
    table_def *td = catalog_table(b->cat, name);
    if (!td) return bind_error(b, ((sql_expr *)fe->func.args.items[0])->off, "relation \"%s\" does not exist", name);
    uint32_t n = sizeof INFO_NAMES / sizeof *INFO_NAMES;
    plan_op *p = new_op(b, PLAN_STORAGE_INFO, n);
    if (!p) return nomem(b);
    p->info.table = td;
    for (uint32_t i = 0; i < n; i++) {
        p->types[i] = sql_type_make(INFO_TYPES[i]);
        p->names[i] = INFO_NAMES[i];
        if (scope_add(b, sc, f->alias ? f->alias : "storage_info", INFO_NAMES[i], p->types[i])) return nomem(b);
    }
    *out = p;
    return STRATA_OK;
}

static int bind_series(bind_ctx *b, const sql_from *f, plan_op **out, scope *sc) {
    const sql_expr *fe = f->func;
    const char *n = fe->func.name;
    if (!strcmp(n, "pragma_storage_info")) return bind_storage_info(b, f, out, sc);
    bool gs = !strcmp(n, "generate_series");
    if (!gs && strcmp(n, "range")) return bind_error(b, f->off, "table function %s does not exist", n);
    int na = fe->func.args.n;
    if (na < 1 || na > 3 || (gs && na < 2))
        return bind_error(b, f->off, "function %s takes %s arguments", n, gs ? "2 or 3" : "1 to 3");
    expr *args[3];
    ectx c = {b, NULL, NULL, "FROM"};
    for (int i = 0; i < na; i++) {
        int rc = bind_expr(&c, fe->func.args.items[i], &args[i]);
        if (rc) return rc;
        if ((rc = bind_cast(b, args[i], sql_type_make(TYPE_BIGINT), false, &args[i]))) return rc;
    }
    plan_op *p = new_op(b, PLAN_SERIES, 1);
    if (!p) return nomem(b);
    p->types[0] = sql_type_make(TYPE_BIGINT);
    const char *cname = f->alias_columns.n ? f->alias_columns.items[0] : (gs ? "generate_series" : "range");
    p->names[0] = cname;
    if (na == 1) {
        p->series.start = mk_const(b, value_int(TYPE_BIGINT, 0), f->off);
        p->series.stop = args[0];
    } else {
        p->series.start = args[0];
        p->series.stop = args[1];
    }
    p->series.step = na == 3 ? args[2] : mk_const(b, value_int(TYPE_BIGINT, 1), f->off);
    p->series.inclusive = gs;
    if (!p->series.start || !p->series.step) return nomem(b);
    if (scope_add(b, sc, f->alias ? f->alias : n, cname, p->types[0])) return nomem(b);
    *out = p;
    return STRATA_OK;
}

/* bind_cte binds the query of WITH entry cs: a UNION whose left side does not refer to the name
** becomes a recursive plan when the entry is RECURSIVE; anything else is an ordinary query. */
static int bind_cte(bind_ctx *b, cte_scope *cs, size_t off, plan_op **out) {
    const sql_select *q = cs->cte->select;
    cte_scope *saved = b->ctes;
    int rc;
    if (++b->depth > 256) {
        b->depth--;
        return bind_error(b, off, "WITH queries nested too deeply");
    }
    if (!cs->recursive || q->kind != SEL_UNION || cs->work) {
        b->ctes = cs->next; /* a plain WITH query sees the names defined before it */
        rc = bind_query(b, q, out);
        b->ctes = saved;
        b->depth--;
        return rc;
    }
    plan_op *anchor, *step;
    b->ctes = cs->next;
    rc = bind_query(b, q->left, &anchor);
    b->ctes = saved;
    if (rc) {
        b->depth--;
        return rc;
    }
    for (uint32_t i = 0; i < anchor->ncols; i++)
        if (anchor->types[i].id == TYPE_NULL) anchor->types[i] = sql_type_make(TYPE_VARCHAR);
    cte_store *work = alloc0(b, sizeof *work);
    if (!work) return nomem(b);
    cs->work = work;
    cs->anchor = anchor;
    rc = bind_query(b, q->right, &step);
    cs->work = NULL;
    b->depth--;
    if (rc) return rc;
    if (step->ncols != anchor->ncols)
        return bind_error(b, q->off, "each UNION query must have the same number of columns");
    if ((rc = cast_columns(b, &step, anchor->types))) return rc;
    plan_op *p = new_op(b, PLAN_RECURSIVE, anchor->ncols);
    if (!p) return nomem(b);
    memcpy(p->types, anchor->types, anchor->ncols * sizeof *p->types);
    memcpy(p->names, anchor->names, anchor->ncols * sizeof *p->names);
    p->child[0] = anchor;
    p->child[1] = step;
    p->rec.work = work;
    p->rec.all = q->all;
    *out = p;
    return STRATA_OK;
}

/* bind_cte_ref binds a FROM reference to a WITH name. */
static int bind_cte_ref(bind_ctx *b, cte_scope *cs, const sql_from *f, plan_op **out, scope *sc) {
    const char *alias = f->alias ? f->alias : cs->cte->name;
    const sql_list *names = f->alias_columns.n ? &f->alias_columns : &cs->cte->columns;
    plan_op *p;
    int rc;
    if (cs->work) { /* inside its own recursive part: the working table */
        p = new_op(b, PLAN_CTE_SCAN, cs->anchor->ncols);
        if (!p) return nomem(b);
        memcpy(p->types, cs->anchor->types, p->ncols * sizeof *p->types);
        memcpy(p->names, cs->anchor->names, p->ncols * sizeof *p->names);
        p->cte.store = cs->work;
    } else if ((rc = bind_cte(b, cs, f->off, &p))) {
        return rc;
    }
    if (names->n > (int)p->ncols)
        return bind_error(b, f->off, "table \"%s\" has %u columns available but %d columns specified", alias, p->ncols, names->n);
    for (uint32_t i = 0; i < p->ncols; i++) {
        const char *nm = (int)i < names->n ? names->items[i] : p->names[i];
        if (scope_add(b, sc, alias, nm ? nm : "?column?", p->types[i])) return nomem(b);
    }
    *out = p;
    return STRATA_OK;
}

/* bind_catalog_rows binds strata_catalog, the relation that lists the catalog as SQLite's
** sqlite_schema does: (type, name, tbl_name, sql), one row per table, index and view, with the DDL
** text stored for it. The index of a PRIMARY KEY or UNIQUE constraint has '' for sql, as SQLite's
** autoindexes have NULL: its table's CREATE TABLE makes it, so that the texts run in turn make the
** schema again. Its rows are those of the catalog when the statement is bound. */
static int bind_catalog_rows(bind_ctx *b, const sql_from *f, plan_op **out, scope *sc) {
    catalog *c = b->cat;
    uint32_t n = 0, cap = c->ntables + c->nindexes + c->nviews;
    plan_op *p = new_op(b, PLAN_VALUES, 4);
    if (!p) return nomem(b);
    static const char *names[4] = {"type", "name", "tbl_name", "sql"};
    p->values.cells = alloc0(b, (size_t)(cap + 1) * 4 * sizeof(expr *));
    if (!p->values.cells) return nomem(b);
    for (uint32_t i = 0; i < cap; i++) {
        const char *type, *name, *tbl, *text;
        if (i < c->ntables) {
            table_def *td = c->tables[i];
            type = "table", name = tbl = td->name, text = td->sql;
        } else if (i < c->ntables + c->nindexes) {
            index_def *ix = c->indexes[i - c->ntables];
            type = "index", name = ix->name, tbl = ix->table->name, text = ix->constraint ? NULL : ix->sql;
        } else {
            view_def *v = c->views[i - c->ntables - c->nindexes];
            type = "view", name = tbl = v->name, text = v->sql;
        }
        const char *vals[4] = {type, name, tbl, text ? text : ""};
        for (int k = 0; k < 4; k++) {
            expr *e = mk_const(b, value_text(vals[k], (uint32_t)strlen(vals[k])), f->off);
            if (!e) return nomem(b);
            p->values.cells[n * 4 + (uint32_t)k] = e;
        }
        n++;
    }
    p->values.nrows = n;
    const char *alias = f->alias ? f->alias : "strata_catalog";
    for (int k = 0; k < 4; k++) {
        p->types[k] = sql_type_make(TYPE_VARCHAR);
        p->names[k] = names[k];
        if (scope_add(b, sc, alias, names[k], p->types[k])) return nomem(b);
    }
    *out = p;
    return STRATA_OK;
}

/* bind_stats_rows binds strata_stats, the table statistics a row per table column (stats.h),
** as they are when the statement is bound. */
static int bind_stats_rows(bind_ctx *b, const sql_from *f, plan_op **out, scope *sc) {
    catalog *c = b->cat;
    uint32_t nrows = 0, w = STATS_RELATION_COLS;
    for (uint32_t t = 0; t < c->ntables; t++) nrows += c->tables[t]->ncols;
    plan_op *p = new_op(b, PLAN_VALUES, w);
    if (!p || !(p->values.cells = alloc0(b, ((size_t)nrows + 1) * w * sizeof(expr *)))) return nomem(b);
    for (uint32_t t = 0; t < c->ntables; t++)
        for (uint32_t col = 0; col < c->tables[t]->ncols; col++, p->values.nrows++) {
            sql_value row[STATS_RELATION_COLS];
            stats_relation_row(c->tables[t], col, row);
            for (uint32_t k = 0; k < w; k++) {
                if (row[k].type.id == TYPE_VARCHAR && !row[k].is_null) { /* the statistics may be replaced */
                    char *copy = arena_alloc(b->mem, row[k].v.s.len + 1);
                    if (!copy) return nomem(b);
                    memcpy(copy, sstr_data(&row[k].v.s), row[k].v.s.len);
                    row[k] = value_text(copy, row[k].v.s.len);
                }
                if (!(p->values.cells[p->values.nrows * w + k] = mk_const(b, row[k], f->off))) return nomem(b);
            }
        }
    for (uint32_t k = 0; k < w; k++) {
        p->types[k] = sql_type_make(STATS_RELATION_TYPES[k]);
        p->names[k] = STATS_RELATION_NAMES[k];
        if (scope_add(b, sc, f->alias ? f->alias : "strata_stats", p->names[k], p->types[k])) return nomem(b);
    }
    *out = p;
    return STRATA_OK;
}

static int bind_from(bind_ctx *b, const sql_from *f, plan_op **out, scope *sc) {
    int rc;
    switch (f->kind) {
    case FROM_TABLE: {
        for (cte_scope *cs = b->ctes; cs; cs = cs->next)
            if (!strcmp(cs->cte->name, f->table)) return bind_cte_ref(b, cs, f, out, sc);
        table_def *td = catalog_table(b->cat, f->table);
        if (td) {
            if (f->alias_columns.n) return bind_error(b, f->off, "column aliases on tables are not supported yet");
            return scan_table(b, td, f->alias ? f->alias : td->name, false, out, sc);
        }
        view_def *v = catalog_view(b->cat, f->table);
        if (v) {
            if (++b->depth > 64) return bind_error(b, f->off, "views nested too deeply");
            sql_list names = {(int)v->ncolnames, (int)v->ncolnames, (void **)v->colnames};
            rc = bind_subquery_from(b, v->query, f->alias ? f->alias : v->name, f->alias_columns.n ? &f->alias_columns : &names,
                                    f->off, out, sc);
            b->depth--;
            return rc;
        }
        if (!strcmp(f->table, "strata_catalog")) return bind_catalog_rows(b, f, out, sc);
        if (!strcmp(f->table, "strata_stats")) return bind_stats_rows(b, f, out, sc);
        const char *s = catalog_suggest(b->cat, f->table);
        if (s) return bind_error(b, f->off, "relation \"%s\" does not exist (did you mean \"%s\"?)", f->table, s);
        return bind_error(b, f->off, "relation \"%s\" does not exist", f->table);
    }
    case FROM_SUBQUERY:
        return bind_subquery_from(b, f->subquery, f->alias, &f->alias_columns, f->off, out, sc);
    case FROM_FUNC: return bind_series(b, f, out, sc);
    case FROM_JOIN: break;
    }
    plan_op *l, *r;
    scope ls = {0}, rs = {0};
    if ((rc = bind_from(b, f->join.left, &l, &ls)) || (rc = bind_from(b, f->join.right, &r, &rs))) return rc;
    static const join_kind kinds[] = {[JOIN_INNER] = JK_INNER, [JOIN_LEFT] = JK_LEFT, [JOIN_RIGHT] = JK_RIGHT,
                                      [JOIN_FULL] = JK_FULL, [JOIN_CROSS] = JK_INNER};
    plan_op *j = new_op(b, PLAN_NL_JOIN, l->ncols + r->ncols);
    if (!j) return nomem(b);
    j->child[0] = l;
    j->child[1] = r;
    j->join.kind = kinds[f->join.type];
    for (uint32_t i = 0; i < l->ncols; i++) j->types[i] = l->types[i], j->names[i] = l->names[i];
    for (uint32_t i = 0; i < r->ncols; i++) j->types[l->ncols + i] = r->types[i], j->names[l->ncols + i] = r->names[i];
    scope all = {0};
    for (uint32_t i = 0; i < ls.n + rs.n; i++) {
        const scope_col *c = i < ls.n ? &ls.cols[i] : &rs.cols[i - ls.n];
        if (scope_add(b, &all, c->table, c->name, c->type)) return nomem(b);
        all.cols[i].hidden = c->hidden;
    }
    *out = j;
    /* USING / NATURAL: equalities on the named columns */
    sql_list using = f->join.using;
    const char *natural[256];
    if (f->join.natural) {
        int n = 0;
        for (uint32_t i = 0; i < ls.n && n < 256; i++)
            for (uint32_t k = 0; k < rs.n; k++)
                if (!strcmp(ls.cols[i].name, rs.cols[k].name)) {
                    natural[n++] = ls.cols[i].name;
                    break;
                }
        using.n = n;
        using.items = (void **)natural;
    }
    for (int u = 0; u < using.n; u++) {
        const char *name = using.items[u];
        int li = -1, ri = -1;
        for (uint32_t i = 0; i < ls.n; i++)
            if (!strcmp(ls.cols[i].name, name)) li = (int)i;
        for (uint32_t i = 0; i < rs.n; i++)
            if (!strcmp(rs.cols[i].name, name)) ri = (int)i;
        if (li < 0 || ri < 0)
            return bind_error(b, f->off, "column \"%s\" specified in USING clause does not exist in %s table", name,
                              li < 0 ? "left" : "right");
        expr *x = mk_col(b, (uint32_t)li, ls.cols[li].type, f->off), *y = mk_col(b, l->ncols + (uint32_t)ri, rs.cols[ri].type, f->off), *eq;
        if (!x || !y) return nomem(b);
        if ((rc = make_cmp(b, CMP_EQ, x, y, f->off, &eq)) || (rc = pushdown_conjunct(b, out, eq, true))) return rc;
        /* the right side's copy is hidden from unqualified references (the left one answers) */
        all.cols[l->ncols + (uint32_t)ri].hidden = true;
        if (j->join.kind == JK_RIGHT) all.cols[(uint32_t)li].hidden = true, all.cols[l->ncols + (uint32_t)ri].hidden = false;
    }
    if (j->join.kind == JK_FULL && using.n) {
        /* FULL JOIN USING: the unqualified name is a new column holding whichever side has the
        ** row; x.col and y.col stay each side's own */
        uint32_t n = j->ncols + (uint32_t)using.n;
        expr **ex = alloc0(b, n * sizeof *ex);
        const char **names = alloc0(b, n * sizeof *names);
        if (!ex || !names) return nomem(b);
        for (uint32_t i = 0; i < j->ncols; i++) {
            if (!(ex[i] = mk_col(b, i, j->types[i], f->off))) return nomem(b);
            names[i] = j->names[i];
        }
        for (int u = 0; u < using.n; u++) {
            const char *name = using.items[u];
            int li = -1, ri = -1;
            for (uint32_t i = 0; i < ls.n; i++)
                if (!strcmp(ls.cols[i].name, name)) li = (int)i;
            for (uint32_t i = 0; i < rs.n; i++)
                if (!strcmp(rs.cols[i].name, name)) ri = (int)i;
            expr *two[2] = {mk_col(b, (uint32_t)li, j->types[li], f->off), mk_col(b, l->ncols + (uint32_t)ri, j->types[l->ncols + (uint32_t)ri], f->off)};
            if (!two[0] || !two[1]) return nomem(b);
            sql_type t;
            if ((rc = fold_common(b, two, 2, f->off, &t))) return rc;
            expr *co = mk(b, EXPR_COALESCE, t, f->off, 2);
            if (!co) return nomem(b);
            co->args[0] = two[0], co->args[1] = two[1];
            ex[j->ncols + (uint32_t)u] = co;
            names[j->ncols + (uint32_t)u] = name;
            all.cols[li].hidden = true;
            all.cols[l->ncols + (uint32_t)ri].hidden = true;
            if (scope_add(b, &all, NULL, name, t)) return nomem(b);
        }
        if ((rc = project(b, *out, ex, names, n, out))) return rc;
    }
    if (f->join.on) {
        ectx c = {b, &all, NULL, "JOIN conditions"};
        expr *on;
        if ((rc = bind_expr(&c, f->join.on, &on)) || (rc = require_bool(b, &on, "JOIN/ON"))) return rc;
        if ((rc = pushdown_conjuncts(b, out, on, true))) return rc;
    }
    *sc = all;
    return STRATA_OK;
}

/* ---- SELECT ------------------------------------------------------------------------------- */

static int project(bind_ctx *b, plan_op *child, expr **exprs, const char **names, uint32_t n, plan_op **out) {
    plan_op *p = new_op(b, PLAN_PROJECT, n);
    if (!p) return nomem(b);
    p->child[0] = child;
    p->project.exprs = exprs;
    for (uint32_t i = 0; i < n; i++) {
        p->types[i] = exprs[i]->type;
        p->names[i] = names ? names[i] : NULL;
    }
    *out = p;
    return STRATA_OK;
}

/* default_name is the column name PostgreSQL gives an unnamed select item. */
static const char *default_name(const sql_expr *a) {
    switch (a->kind) {
    case EX_COL: return a->col.column;
    case EX_FUNC: return a->func.name;
    case EX_CAST: return a->cast.arg->kind == EX_COL ? a->cast.arg->col.column : a->cast.type.name;
    case EX_EXTRACT: return "extract";
    case EX_CASE: return "case";
    default: return "?column?";
    }
}

/* settle gives an output expression that is still untyped (a bare 'literal', parameter or NULL)
** its final type, VARCHAR, as PostgreSQL resolves "unknown" output columns to text. */
static int settle(bind_ctx *b, expr **e) {
    if (!(*e)->untyped && (*e)->type.id != TYPE_NULL) return STRATA_OK;
    return bind_cast(b, *e, sql_type_make(TYPE_VARCHAR), false, e);
}

static int eval_limit_expr(bind_ctx *b, const sql_expr *a, expr **out, const char *what) {
    ectx c = {b, NULL, NULL, what};
    int rc = bind_expr(&c, a, out);
    if (rc) return rc;
    return bind_cast(b, *out, sql_type_make(TYPE_BIGINT), false, out);
}

/* add_limit puts q's LIMIT and OFFSET (constants or parameters, as BIGINT) over plan p. */
static int add_limit(bind_ctx *b, const sql_select *q, plan_op **p) {
    if (!q->limit && !q->offset) return STRATA_OK;
    plan_op *l = new_op(b, PLAN_LIMIT, (*p)->ncols);
    if (!l) return nomem(b);
    memcpy(l->types, (*p)->types, (*p)->ncols * sizeof *l->types);
    memcpy(l->names, (*p)->names, (*p)->ncols * sizeof *l->names);
    l->child[0] = *p;
    int rc;
    if (q->limit && (rc = eval_limit_expr(b, q->limit, &l->limit.limit, "LIMIT"))) return rc;
    if (q->offset && (rc = eval_limit_expr(b, q->offset, &l->limit.offset, "OFFSET"))) return rc;
    *p = l;
    return STRATA_OK;
}

/* order_key_output returns the output column an ORDER BY item names by position or alias, or -1. */
static int order_key_output(bind_ctx *b, const sql_order *o, plan_op *p, int *col) {
    *col = -1;
    if (o->expr->kind == EX_INT) {
        int64_t k = o->expr->integer;
        if (k < 1 || k > (int64_t)p->ncols) return bind_error(b, o->expr->off, "ORDER BY position %lld is not in select list", (long long)k);
        *col = (int)(k - 1);
        return STRATA_OK;
    }
    if (o->expr->kind == EX_COL && !o->expr->col.table) {
        for (uint32_t i = 0; i < p->ncols; i++)
            if (p->names[i] && !strcmp(p->names[i], o->expr->col.column)) {
                if (*col >= 0) return bind_error(b, o->expr->off, "ORDER BY \"%s\" is ambiguous", o->expr->col.column);
                *col = (int)i;
            }
    }
    return STRATA_OK;
}

static int make_sort(bind_ctx *b, plan_op **p, sort_key *keys, uint32_t nkeys) {
    plan_op *s = new_op(b, PLAN_SORT, (*p)->ncols);
    if (!s) return nomem(b);
    memcpy(s->types, (*p)->types, (*p)->ncols * sizeof *s->types);
    memcpy(s->names, (*p)->names, (*p)->ncols * sizeof *s->names);
    s->child[0] = *p;
    s->sort.keys = keys;
    s->sort.nkeys = nkeys;
    s->sort.limit = -1;
    *p = s;
    return STRATA_OK;
}

static int bind_select_core(bind_ctx *b, const sql_select *q, plan_op **out) {
    int rc;
    plan_op *p;
    scope sc = {0};
    if (q->from) {
        if ((rc = bind_from(b, q->from, &p, &sc))) return rc;
    } else {
        p = new_op(b, PLAN_EMPTY, 0);
        if (!p) return nomem(b);
        p->empty.one_row = true;
    }
    if (q->where) {
        ectx c = {b, &sc, NULL, "WHERE"};
        expr *w;
        if ((rc = bind_expr(&c, q->where, &w)) || (rc = require_bool(b, &w, "WHERE"))) return rc;
        if ((rc = pushdown_where(b, &p, w))) return rc;
    }
    /* aggregation? */
    bool aggregating = q->group_by.n > 0 || q->having;
    for (int i = 0; i < q->targets.n && !aggregating; i++)
        aggregating = has_aggregate(((sql_target *)q->targets.items[i])->expr);
    for (int i = 0; i < q->order_by.n && !aggregating; i++)
        aggregating = has_aggregate(((sql_order *)q->order_by.items[i])->expr);
    agg_state ag = {0};
    ag.pre = &sc;
    if (aggregating) {
        ag.nkeys = (uint32_t)q->group_by.n;
        ag.keys = alloc0(b, (ag.nkeys + 1) * sizeof *ag.keys);
        if (!ag.keys) return nomem(b);
        for (uint32_t k = 0; k < ag.nkeys; k++) {
            const sql_expr *ge = q->group_by.items[k];
            ectx c = {b, &sc, NULL, "GROUP BY"};
            /* GROUP BY 1 names a select item; GROUP BY alias too, when no column has the name */
            if (ge->kind == EX_INT) {
                if (ge->integer < 1 || ge->integer > q->targets.n)
                    return bind_error(b, ge->off, "GROUP BY position %lld is not in select list", (long long)ge->integer);
                ge = ((sql_target *)q->targets.items[ge->integer - 1])->expr;
            }
            rc = bind_expr(&c, ge, &ag.keys[k]);
            if (rc && ge->kind == EX_COL && !ge->col.table) {
                for (int t = 0; t < q->targets.n; t++) {
                    sql_target *tg = q->targets.items[t];
                    if (tg->alias && !strcmp(tg->alias, ge->col.column)) {
                        err_clear(b->err);
                        rc = bind_expr(&c, tg->expr, &ag.keys[k]);
                        break;
                    }
                }
            }
            if (rc) return rc;
            if ((rc = settle(b, &ag.keys[k]))) return rc;
        }
    }
    ectx sel = {b, &sc, aggregating ? &ag : NULL, NULL};
    uint8_t *untyped = NULL;
    /* the select list */
    uint32_t cap = 16, n = 0;
    expr **exprs = alloc0(b, cap * sizeof *exprs);
    const char **names = alloc0(b, cap * sizeof *names);
    if (!exprs || !names) return nomem(b);
    for (int i = 0; i < q->targets.n; i++) {
        sql_target *tg = q->targets.items[i];
        if (tg->expr->kind == EX_STAR) {
            if (aggregating) return bind_error(b, tg->expr->off, "SELECT * with GROUP BY is not supported");
            bool any = false;
            for (uint32_t k = 0; k < sc.n; k++) {
                if (tg->expr->col.table && (!sc.cols[k].table || strcmp(sc.cols[k].table, tg->expr->col.table))) continue;
                if (sc.cols[k].hidden) continue; /* a USING column's other copy */
                if (n + 1 >= cap) {
                    expr **ne = alloc0(b, cap * 2 * sizeof *ne);
                    const char **nn = alloc0(b, cap * 2 * sizeof *nn);
                    if (!ne || !nn) return nomem(b);
                    memcpy(ne, exprs, n * sizeof *ne), memcpy(nn, names, n * sizeof *nn);
                    exprs = ne, names = nn, cap *= 2;
                }
                exprs[n] = mk_col(b, k, sc.cols[k].type, tg->expr->off);
                if (!exprs[n]) return nomem(b);
                names[n++] = sc.cols[k].name;
                any = true;
            }
            if (!any && tg->expr->col.table)
                return bind_error(b, tg->expr->off, "missing FROM-clause entry for table \"%s\"", tg->expr->col.table);
            continue;
        }
        if (n + 1 >= cap) {
            expr **ne = alloc0(b, cap * 2 * sizeof *ne);
            const char **nn = alloc0(b, cap * 2 * sizeof *nn);
            if (!ne || !nn) return nomem(b);
            memcpy(ne, exprs, n * sizeof *ne), memcpy(nn, names, n * sizeof *nn);
            exprs = ne, names = nn, cap *= 2;
        }
        if ((rc = bind_expr(&sel, tg->expr, &exprs[n]))) return rc;
        if (exprs[n]->untyped && exprs[n]->kind == EXPR_CONST && exprs[n]->type.id == TYPE_VARCHAR) {
            if (!untyped && !(untyped = alloc0(b, (size_t)q->targets.n + 64))) return nomem(b);
            if (n < (uint32_t)q->targets.n + 64) untyped[n] = 1;
        }
        if ((rc = settle(b, &exprs[n]))) return rc;
        names[n++] = tg->alias ? tg->alias : default_name(tg->expr);
    }
    expr *having = NULL;
    if (untyped && n > (uint32_t)q->targets.n + 64) untyped = NULL; /* SELECT * made the list long: give up the hint */
    if (q->having) {
        if ((rc = bind_expr(&sel, q->having, &having)) || (rc = require_bool(b, &having, "HAVING"))) return rc;
    }
    /* ORDER BY: output columns by position/alias, else expressions appended as hidden columns */
    uint32_t nvisible = n, nkeys = (uint32_t)q->order_by.n;
    sort_key *keys = alloc0(b, (nkeys + 1) * sizeof *keys);
    int *keycol = alloc0(b, (nkeys + 1) * sizeof *keycol);
    if (!keys || !keycol) return nomem(b);
    plan_op fake = {.ncols = n, .names = names};
    for (uint32_t k = 0; k < nkeys; k++) {
        const sql_order *o = q->order_by.items[k];
        if ((rc = order_key_output(b, o, &fake, &keycol[k]))) return rc;
        if (keycol[k] >= 0) continue;
        if (q->distinct) return bind_error(b, o->expr->off, "for SELECT DISTINCT, ORDER BY expressions must appear in select list");
        expr *e;
        if ((rc = bind_expr(&sel, o->expr, &e)) || (rc = settle(b, &e))) return rc;
        int found = -1;
        for (uint32_t i = 0; i < n && found < 0; i++)
            if (expr_equal(exprs[i], e)) found = (int)i;
        if (found < 0) {
            if (n + 1 >= cap) {
                expr **ne = alloc0(b, cap * 2 * sizeof *ne);
                const char **nn = alloc0(b, cap * 2 * sizeof *nn);
                if (!ne || !nn) return nomem(b);
                memcpy(ne, exprs, n * sizeof *ne), memcpy(nn, names, n * sizeof *nn);
                exprs = ne, names = nn, cap *= 2;
            }
            exprs[n] = e;
            names[n] = NULL;
            found = (int)n++;
        }
        keycol[k] = found;
    }
    /* correlated aggregates in the select list and ORDER BY join as they do in WHERE (an
    ** aggregating query refuses correlated subqueries there) */
    for (uint32_t i = 0; i < n && !aggregating; i++)
        if ((rc = decorrelate_scalars(b, &p, &exprs[i]))) return rc;
    if (aggregating) {
        plan_op *a = new_op(b, PLAN_AGG, ag.nkeys + ag.naggs);
        if (!a) return nomem(b);
        a->child[0] = p;
        a->agg.nkeys = ag.nkeys;
        a->agg.keys = ag.keys;
        a->agg.naggs = ag.naggs;
        a->agg.aggs = ag.aggs;
        for (uint32_t k = 0; k < ag.nkeys; k++) a->types[k] = ag.keys[k]->type;
        for (uint32_t k = 0; k < ag.naggs; k++) a->types[ag.nkeys + k] = ag.aggs[k].type;
        p = a;
        if (having && (rc = add_filter(b, &p, having))) return rc;
    }
    if ((rc = project(b, p, exprs, names, n, &p))) return rc;
    if (q->distinct) {
        plan_op *d = new_op(b, PLAN_DISTINCT, p->ncols);
        if (!d) return nomem(b);
        memcpy(d->types, p->types, p->ncols * sizeof *d->types);
        memcpy(d->names, p->names, p->ncols * sizeof *d->names);
        d->child[0] = p;
        p = d;
    }
    if (nkeys) {
        for (uint32_t k = 0; k < nkeys; k++) {
            const sql_order *o = q->order_by.items[k];
            keys[k].e = mk_col(b, (uint32_t)keycol[k], p->types[keycol[k]], o->expr->off);
            if (!keys[k].e) return nomem(b);
            keys[k].desc = o->desc;
            keys[k].nulls_first = o->nulls == NULLS_DEFAULT ? o->desc : o->nulls == NULLS_FIRST;
        }
        if ((rc = make_sort(b, &p, keys, nkeys))) return rc;
    }
    if ((rc = add_limit(b, q, &p))) return rc;
    if (n > nvisible) { /* drop the hidden ORDER BY columns */
        expr **vis = alloc0(b, nvisible * sizeof *vis);
        if (!vis) return nomem(b);
        for (uint32_t i = 0; i < nvisible; i++)
            if (!(vis[i] = mk_col(b, i, p->types[i], 0))) return nomem(b);
        if ((rc = project(b, p, vis, names, nvisible, &p))) return rc;
    }
    p->untyped = untyped;
    *out = p;
    return STRATA_OK;
}

/* order_by_outputs adds q's ORDER BY (which may only name output columns, by position or name:
** `what` says so otherwise), LIMIT and OFFSET on top of p. */
static int order_by_outputs(bind_ctx *b, const sql_select *q, plan_op **p, const char *what) {
    int rc;
    if (q->order_by.n) {
        sort_key *keys = alloc0(b, (size_t)q->order_by.n * sizeof *keys);
        if (!keys) return nomem(b);
        for (int k = 0; k < q->order_by.n; k++) {
            const sql_order *o = q->order_by.items[k];
            int col;
            if ((rc = order_key_output(b, o, *p, &col))) return rc;
            if (col < 0) return bind_error(b, o->expr->off, "%s", what);
            if (!(keys[k].e = mk_col(b, (uint32_t)col, (*p)->types[col], o->expr->off))) return nomem(b);
            keys[k].desc = o->desc;
            keys[k].nulls_first = o->nulls == NULLS_DEFAULT ? o->desc : o->nulls == NULLS_FIRST;
        }
        if ((rc = make_sort(b, p, keys, (uint32_t)q->order_by.n))) return rc;
    }
    return add_limit(b, q, p);
}

static int bind_values(bind_ctx *b, const sql_select *q, plan_op **out) {
    uint32_t nrows = (uint32_t)q->rows.n;
    uint32_t ncols = (uint32_t)((sql_list *)q->rows.items[0])->n;
    plan_op *p = new_op(b, PLAN_VALUES, ncols);
    if (!p) return nomem(b);
    p->values.nrows = nrows;
    p->values.cells = alloc0(b, (size_t)nrows * ncols * sizeof *p->values.cells);
    expr **col = alloc0(b, nrows * sizeof *col);
    if (!p->values.cells || !col) return nomem(b);
    ectx c = {b, NULL, NULL, "VALUES"};
    for (uint32_t r = 0; r < nrows; r++) {
        sql_list *row = q->rows.items[r];
        if ((uint32_t)row->n != ncols)
            return bind_error(b, row->n ? ((sql_expr *)row->items[0])->off : q->off, "VALUES lists must all be the same length");
        for (uint32_t k = 0; k < ncols; k++) {
            int rc = bind_expr(&c, row->items[k], &p->values.cells[r * ncols + k]);
            if (rc) return rc;
        }
    }
    for (uint32_t k = 0; k < ncols; k++) {
        for (uint32_t r = 0; r < nrows; r++) col[r] = p->values.cells[r * ncols + k];
        sql_type t;
        int rc = fold_common(b, col, (int)nrows, q->off, &t);
        if (rc) return rc;
        for (uint32_t r = 0; r < nrows; r++) p->values.cells[r * ncols + k] = col[r];
        p->types[k] = t;
        char nm[24];
        snprintf(nm, sizeof nm, "column%u", k + 1);
        p->names[k] = arena_strdup(b->mem, nm);
        if (!p->names[k]) return nomem(b);
    }
    *out = p;
    return STRATA_OK;
}

/* cast_columns projects p so that its columns have the given types. */
static int cast_columns(bind_ctx *b, plan_op **p, const sql_type *types) {
    bool same = true;
    for (uint32_t i = 0; i < (*p)->ncols; i++) same &= sql_type_equal((*p)->types[i], types[i]);
    if (same) return STRATA_OK;
    expr **ex = alloc0(b, (*p)->ncols * sizeof *ex);
    if (!ex) return nomem(b);
    for (uint32_t i = 0; i < (*p)->ncols; i++) {
        expr *c = mk_col(b, i, (*p)->types[i], 0);
        if (!c) return nomem(b);
        int rc = bind_cast(b, c, types[i], false, &ex[i]);
        if (rc) return rc;
    }
    return project(b, *p, ex, (*p)->names, (*p)->ncols, p);
}

int bind_query(bind_ctx *b, const sql_select *q, plan_op **out) {
    int rc;
    if (++b->depth > SQL_MAX_DEPTH) {
        b->depth--;
        return bind_error(b, q->off, "query nested too deeply");
    }
    cte_scope *saved_ctes = b->ctes;
    for (int i = 0; i < q->with.n; i++) {
        const sql_cte *ct = q->with.items[i];
        for (int k = 0; k < i; k++)
            if (!strcmp(((const sql_cte *)q->with.items[k])->name, ct->name)) {
                b->ctes = saved_ctes;
                b->depth--;
                return bind_error(b, ct->off, "WITH query name \"%s\" specified more than once", ct->name);
            }
        cte_scope *cs = alloc0(b, sizeof *cs);
        if (!cs) return nomem(b);
        cs->cte = ct;
        cs->next = b->ctes;
        cs->recursive = q->recursive;
        b->ctes = cs;
    }
    plan_op *p;
    switch (q->kind) {
    case SEL_CORE: rc = bind_select_core(b, q, &p); break;
    case SEL_VALUES:
        rc = bind_values(b, q, &p);
        if (!rc) rc = order_by_outputs(b, q, &p, "ORDER BY on VALUES must name an output column");
        break;
    default: {
        plan_op *l, *r;
        if ((rc = bind_query(b, q->left, &l)) || (rc = bind_query(b, q->right, &r))) break;
        if (l->ncols != r->ncols) {
            rc = bind_error(b, q->off, "each %s query must have the same number of columns",
                            q->kind == SEL_UNION ? "UNION" : q->kind == SEL_EXCEPT ? "EXCEPT" : "INTERSECT");
            break;
        }
        sql_type *t = alloc0(b, l->ncols * sizeof *t);
        if (!t) return nomem(b);
        for (uint32_t i = 0; i < l->ncols && !rc; i++) {
            strata_err tmp;
            err_clear(&tmp);
            int flags = (l->untyped && l->untyped[i] ? VALUE_LITERAL_A : 0) | (r->untyped && r->untyped[i] ? VALUE_LITERAL_B : 0);
            if (value_common_type(l->types[i], r->types[i], flags, &t[i], &tmp)) rc = type_error(b, q->off, &tmp);
            if (t[i].id == TYPE_NULL) t[i] = sql_type_make(TYPE_VARCHAR);
        }
        if (rc || (rc = cast_columns(b, &l, t)) || (rc = cast_columns(b, &r, t))) break;
        p = new_op(b, PLAN_SETOP, l->ncols);
        if (!p) return nomem(b);
        memcpy(p->types, t, l->ncols * sizeof *t);
        memcpy(p->names, l->names, l->ncols * sizeof *p->names);
        p->child[0] = l;
        p->child[1] = r;
        p->setop.kind = q->kind == SEL_UNION ? SETOP_UNION : q->kind == SEL_EXCEPT ? SETOP_EXCEPT : SETOP_INTERSECT;
        p->setop.all = q->all;
        rc = order_by_outputs(b, q, &p, "ORDER BY on a UNION/INTERSECT/EXCEPT result must be on one of the result columns");
        break;
    }
    }
    b->depth--;
    b->ctes = saved_ctes;
    if (rc) return rc;
    if ((rc = optimize_query(b, &p))) return rc;
    *out = p;
    return STRATA_OK;
}

/* ---- DML ---------------------------------------------------------------------------------- */

int bind_table_expr(bind_ctx *b, table_def *td, const sql_expr *e, expr **out) {
    scope sc = {0};
    for (uint32_t i = 0; td && i < td->ncols; i++)
        if (scope_add(b, &sc, td->name, td->cols[i].name, td->cols[i].type)) return nomem(b);
    ectx c = {b, &sc, NULL, "this context"};
    return bind_expr(&c, e, out);
}

/* column_default binds column i's DEFAULT (NULL when none), cast to its type. */
static int column_default(bind_ctx *b, table_def *td, uint32_t i, size_t off, expr **out) {
    column_def *col = &td->cols[i];
    int rc;
    if (col->default_expr) {
        if ((rc = bind_table_expr(b, NULL, col->default_expr, out))) return rc;
    } else {
        *out = mk_const(b, value_null(col->type), off);
        if (!*out) return nomem(b);
    }
    return bind_cast(b, *out, col->type, false, out);
}

static table_def *dml_table(bind_ctx *b, const char *name, size_t off, int *rc) {
    table_def *td = catalog_table(b->cat, name);
    if (td) return td;
    if (catalog_view(b->cat, name)) {
        *rc = bind_error(b, off, "cannot change view \"%s\"", name);
        return NULL;
    }
    const char *s = catalog_suggest(b->cat, name);
    *rc = s ? bind_error(b, off, "relation \"%s\" does not exist (did you mean \"%s\"?)", name, s)
            : bind_error(b, off, "relation \"%s\" does not exist", name);
    return NULL;
}

static int bind_returning(bind_ctx *b, table_def *td, const sql_list *ret, plan_op *p) {
    if (!ret->n) return STRATA_OK;
    scope sc = {0};
    for (uint32_t i = 0; i < td->ncols; i++)
        if (scope_add(b, &sc, td->name, td->cols[i].name, td->cols[i].type)) return nomem(b);
    ectx c = {b, &sc, NULL, "RETURNING"};
    uint32_t n = 0, cap = (uint32_t)ret->n + td->ncols;
    expr **ex = alloc0(b, cap * sizeof *ex);
    const char **names = alloc0(b, cap * sizeof *names);
    sql_type *types = alloc0(b, cap * sizeof *types);
    if (!ex || !names || !types) return nomem(b);
    for (int i = 0; i < ret->n; i++) {
        sql_target *tg = ret->items[i];
        if (tg->expr->kind == EX_STAR) {
            for (uint32_t k = 0; k < td->ncols; k++) {
                if (n >= cap) return bind_error(b, tg->expr->off, "too many RETURNING columns");
                ex[n] = mk_col(b, k, td->cols[k].type, tg->expr->off);
                if (!ex[n]) return nomem(b);
                names[n] = td->cols[k].name;
                types[n++] = td->cols[k].type;
            }
            continue;
        }
        if (n >= cap) return bind_error(b, tg->expr->off, "too many RETURNING columns");
        int rc = bind_expr(&c, tg->expr, &ex[n]);
        if (rc || (rc = settle(b, &ex[n]))) return rc;
        names[n] = tg->alias ? tg->alias : default_name(tg->expr);
        types[n] = ex[n]->type;
        n++;
    }
    p->ncols = n;
    p->types = types;
    p->names = names;
    p->dml.nreturning = n;
    p->dml.returning = ex;
    return STRATA_OK;
}

/* bind_on_conflict finds the arbiter of ON CONFLICT (the rowid or a unique index whose keys are
** exactly the columns named) and binds DO UPDATE's SET and WHERE over the existing row's columns
** followed by the proposed row's ("excluded"). */
static int bind_on_conflict(bind_ctx *b, table_def *td, const sql_stmt *st, plan_op *p) {
    const sql_on_conflict *oc = st->insert.on_conflict;
    uint32_t n = td->ncols;
    int rc;
    p->dml.on_conflict_nothing = !oc->do_update;
    p->dml.on_conflict_update = oc->do_update;
    if (!oc->columns.n) {
        if (oc->do_update)
            return bind_error(b, oc->off, "ON CONFLICT DO UPDATE requires inference specification or constraint name");
        return STRATA_OK; /* DO NOTHING on any unique constraint */
    }
    uint32_t want[64];
    uint32_t nw = (uint32_t)oc->columns.n;
    if (nw > 64) return bind_error(b, oc->off, "too many ON CONFLICT columns");
    for (uint32_t k = 0; k < nw; k++) {
        int ci = -1;
        for (uint32_t i = 0; i < n; i++)
            if (!strcmp(td->cols[i].name, oc->columns.items[k])) ci = (int)i;
        if (ci < 0) return bind_error(b, oc->off, "column \"%s\" does not exist", (const char *)oc->columns.items[k]);
        want[k] = (uint32_t)ci;
    }
    if (nw == 1 && (int32_t)want[0] == td->rowid_col) {
        p->dml.conflict_rowid = true;
    } else {
        for (uint32_t i = 0; i < td->nindexes && !p->dml.conflict_index; i++) {
            index_def *ix = td->indexes[i];
            if (!ix->unique || ix->nkeys != nw) continue;
            bool all = true;
            for (uint32_t k = 0; k < nw && all; k++) {
                bool found = false;
                for (uint32_t j = 0; j < ix->nkeys; j++) found |= ix->key_cols[j] == (int32_t)want[k];
                all = found;
            }
            if (all) p->dml.conflict_index = ix;
        }
        if (!p->dml.conflict_index)
            return bind_error(b, oc->off, "there is no unique or exclusion constraint matching the ON CONFLICT specification");
    }
    if (!oc->do_update) return STRATA_OK;
    scope sc = {0};
    const char *tname = st->insert.alias ? st->insert.alias : td->name;
    for (uint32_t i = 0; i < 2 * n; i++)
        if (scope_add(b, &sc, i < n ? tname : "excluded", td->cols[i % n].name, td->cols[i % n].type)) return nomem(b);
    ectx c = {b, &sc, NULL, "ON CONFLICT DO UPDATE"};
    p->dml.nconflict_set = (uint32_t)oc->set.n;
    p->dml.conflict_cols = alloc0(b, (size_t)oc->set.n * sizeof *p->dml.conflict_cols);
    p->dml.conflict_values = alloc0(b, (size_t)oc->set.n * sizeof *p->dml.conflict_values);
    if (!p->dml.conflict_cols || !p->dml.conflict_values) return nomem(b);
    for (int k = 0; k < oc->set.n; k++) {
        sql_assign *as = oc->set.items[k];
        int ci = -1;
        for (uint32_t i = 0; i < n; i++)
            if (!strcmp(td->cols[i].name, as->column)) ci = (int)i;
        if (ci < 0) return bind_error(b, as->off, "column \"%s\" of relation \"%s\" does not exist", as->column, td->name);
        expr *v;
        if (as->value->kind == EX_DEFAULT) rc = column_default(b, td, (uint32_t)ci, as->off, &v);
        else if (!(rc = bind_expr(&c, as->value, &v))) rc = bind_cast(b, v, td->cols[ci].type, false, &v);
        if (rc) return rc;
        p->dml.conflict_cols[k] = (uint32_t)ci;
        p->dml.conflict_values[k] = v;
    }
    if (oc->where && ((rc = bind_expr(&c, oc->where, &p->dml.conflict_where)) ||
                      (rc = require_bool(b, &p->dml.conflict_where, "WHERE"))))
        return rc;
    return STRATA_OK;
}

/* map_columns sets from[i] (all -1 on entry) to the position in cols of table column i. */
static int map_columns(bind_ctx *b, table_def *td, const sql_list *cols, size_t off, int32_t *from) {
    for (int k = 0; k < cols->n; k++) {
        const char *cn = cols->items[k];
        int ci = -1;
        for (uint32_t i = 0; i < td->ncols; i++)
            if (!strcmp(td->cols[i].name, cn)) ci = (int)i;
        if (ci < 0) return bind_error(b, off, "column \"%s\" of relation \"%s\" does not exist", cn, td->name);
        if (from[ci] >= 0) return bind_error(b, off, "column \"%s\" specified more than once", cn);
        from[ci] = k;
    }
    return STRATA_OK;
}

/* table_row projects *src to the table's columns: column i is source column from[i] cast to its
** type, or its default where from[i] < 0. */
static int table_row(bind_ctx *b, table_def *td, const int32_t *from, size_t off, plan_op **src) {
    uint32_t n = td->ncols;
    expr **ex = alloc0(b, n * sizeof *ex);
    if (!ex) return nomem(b);
    int rc;
    for (uint32_t i = 0; i < n; i++) {
        if (from[i] >= 0) {
            expr *cref = mk_col(b, (uint32_t)from[i], (*src)->types[from[i]], off);
            if (!cref) return nomem(b);
            if ((rc = bind_cast(b, cref, td->cols[i].type, false, &ex[i]))) return rc;
        } else if ((rc = column_default(b, td, i, off, &ex[i]))) {
            return rc;
        }
    }
    return project(b, *src, ex, NULL, n, src);
}

int bind_insert(bind_ctx *b, const sql_stmt *st, plan_op **out) {
    int rc = STRATA_OK;
    table_def *td = dml_table(b, st->insert.table, st->off, &rc);
    if (!td) return rc;
    uint32_t n = td->ncols;
    /* which source column feeds each table column (-1: its default) */
    int32_t *from = alloc0(b, n * sizeof *from);
    if (!from) return nomem(b);
    for (uint32_t i = 0; i < n; i++) from[i] = st->insert.columns.n ? -1 : (int32_t)i;
    uint32_t nsrc = st->insert.columns.n ? (uint32_t)st->insert.columns.n : n;
    /* without a column list, fewer values than columns fill the first ones (PostgreSQL) */
    if (!st->insert.columns.n && st->insert.source) {
        uint32_t have = n;
        if (st->insert.source->kind == SEL_VALUES) have = (uint32_t)((sql_list *)st->insert.source->rows.items[0])->n;
        if (have < n) {
            nsrc = have;
            for (uint32_t i = have; i < n; i++) from[i] = -1;
        }
    }
    if ((rc = map_columns(b, td, &st->insert.columns, st->off, from))) return rc;
    plan_op *src;
    if (!st->insert.source) {
        src = new_op(b, PLAN_EMPTY, 0);
        if (!src) return nomem(b);
        src->empty.one_row = true;
        nsrc = 0;
        for (uint32_t i = 0; i < n; i++) from[i] = -1;
    } else if (st->insert.source->kind == SEL_VALUES && !st->insert.source->order_by.n && !st->insert.source->limit) {
        /* VALUES rows bind straight against the target columns: DEFAULT allowed, each cell cast */
        const sql_select *q = st->insert.source;
        uint32_t nrows = (uint32_t)q->rows.n;
        src = new_op(b, PLAN_VALUES, n);
        if (!src) return nomem(b);
        src->values.nrows = nrows;
        src->values.cells = alloc0(b, (size_t)nrows * n * sizeof *src->values.cells);
        if (!src->values.cells) return nomem(b);
        ectx c = {b, NULL, NULL, "VALUES"};
        for (uint32_t r = 0; r < nrows; r++) {
            sql_list *row = q->rows.items[r];
            if ((uint32_t)row->n != nsrc)
                return bind_error(b, row->n ? ((sql_expr *)row->items[0])->off : q->off,
                                  "INSERT has %s expressions than target columns", (uint32_t)row->n > nsrc ? "more" : "fewer");
            for (uint32_t i = 0; i < n; i++) {
                expr **cell = &src->values.cells[r * n + i];
                const sql_expr *a = from[i] >= 0 ? row->items[from[i]] : NULL;
                if (!a || a->kind == EX_DEFAULT) {
                    rc = column_default(b, td, i, a ? a->off : q->off, cell);
                } else {
                    rc = bind_expr(&c, a, cell);
                    if (!rc) rc = bind_cast(b, *cell, td->cols[i].type, false, cell);
                }
                if (rc) return rc;
            }
        }
        for (uint32_t i = 0; i < n; i++) src->types[i] = td->cols[i].type, src->names[i] = td->cols[i].name;
    } else {
        if ((rc = bind_query(b, st->insert.source, &src))) return rc;
        if (!st->insert.columns.n && src->ncols < n) {
            nsrc = src->ncols;
            for (uint32_t i = nsrc; i < n; i++) from[i] = -1;
        }
        if (src->ncols != nsrc)
            return bind_error(b, st->off, "INSERT has %s expressions than target columns", src->ncols > nsrc ? "more" : "fewer");
        if ((rc = table_row(b, td, from, st->off, &src))) return rc;
    }
    if (!st->insert.source) {
        expr **ex = alloc0(b, n * sizeof *ex);
        if (!ex) return nomem(b);
        for (uint32_t i = 0; i < n; i++)
            if ((rc = column_default(b, td, i, st->off, &ex[i]))) return rc;
        if ((rc = project(b, src, ex, NULL, n, &src))) return rc;
    }
    plan_op *p = new_op(b, PLAN_INSERT, 0);
    if (!p) return nomem(b);
    p->child[0] = src;
    p->dml.table = td;
    if (st->insert.on_conflict && (rc = bind_on_conflict(b, td, st, p))) return rc;
    if ((rc = bind_returning(b, td, &st->insert.returning, p))) return rc;
    *out = p;
    return STRATA_OK;
}

/* bind_copy: COPY t [(cols)] FROM 'file' is an INSERT over a PLAN_FILE_SCAN of the listed columns
** (all, in table order, without a list), each read in its column's type; the others get their
** defaults. COPY t [(cols)] TO and COPY (query) TO are the rows of a scan or the query under a
** PLAN_COPY_TO. */
int bind_copy(bind_ctx *b, const sql_stmt *st, plan_op **out) {
    copy_spec *spec = alloc0(b, sizeof *spec);
    if (!spec) return nomem(b);
    int rc = copy_spec_make(st->copy.file, st->copy.to, &st->copy.options, spec, b->err);
    if (rc) return rc;
    plan_op *src = NULL;
    if (st->copy.query) {
        if ((rc = bind_query(b, st->copy.query, &src))) return rc;
    } else {
        if (st->copy.to && catalog_view(b->cat, st->copy.table))
            return bind_error(b, st->off, "cannot copy from view \"%s\": copy (SELECT * FROM %s) instead",
                              st->copy.table, st->copy.table);
        table_def *td = dml_table(b, st->copy.table, st->off, &rc);
        if (!td) return rc;
        uint32_t n = td->ncols, nsrc = st->copy.columns.n ? (uint32_t)st->copy.columns.n : n;
        int32_t *from = alloc0(b, n * sizeof *from);
        if (!from) return nomem(b);
        for (uint32_t i = 0; i < n; i++) from[i] = st->copy.columns.n ? -1 : (int32_t)i;
        if ((rc = map_columns(b, td, &st->copy.columns, st->off, from))) return rc;
        if (st->copy.to) {
            if ((rc = scan_table(b, td, td->name, false, &src, NULL))) return rc;
            expr **ex = alloc0(b, nsrc * sizeof *ex);
            const char **names = alloc0(b, nsrc * sizeof *names);
            if (!ex || !names) return nomem(b);
            for (uint32_t i = 0; i < n; i++)
                if (from[i] >= 0 && !(ex[from[i]] = mk_col(b, i, td->cols[i].type, st->off))) return nomem(b);
            for (uint32_t k = 0; k < nsrc; k++) names[k] = st->copy.columns.n ? st->copy.columns.items[k] : td->cols[k].name;
            if ((rc = project(b, src, ex, names, nsrc, &src))) return rc;
        } else {
            if (!(src = new_op(b, PLAN_FILE_SCAN, nsrc))) return nomem(b);
            src->copy.spec = spec;
            for (uint32_t i = 0; i < n; i++)
                if (from[i] >= 0) src->types[from[i]] = td->cols[i].type, src->names[from[i]] = td->cols[i].name;
            if (st->copy.columns.n && (rc = table_row(b, td, from, st->off, &src))) return rc;
            plan_op *p = new_op(b, PLAN_INSERT, 0);
            if (!p) return nomem(b);
            p->child[0] = src;
            p->dml.table = td;
            *out = p;
            return STRATA_OK;
        }
    }
    plan_op *p = new_op(b, PLAN_COPY_TO, 0);
    if (!p) return nomem(b);
    p->child[0] = src;
    p->copy.spec = spec;
    *out = p;
    return STRATA_OK;
}

/* dml_source scans td with its rowid as the last column, filtered by where. */
static int dml_source(bind_ctx *b, table_def *td, const char *alias, const sql_expr *where, plan_op **out, scope *sc) {
    int rc = scan_table(b, td, alias ? alias : td->name, true, out, sc);
    if (rc) return rc;
    if (where) {
        ectx c = {b, sc, NULL, "WHERE"};
        expr *w;
        if ((rc = bind_expr(&c, where, &w)) || (rc = require_bool(b, &w, "WHERE")) || (rc = add_filter(b, out, w)))
            return rc;
        return choose_access(b, *out);
    }
    return STRATA_OK;
}

int bind_update(bind_ctx *b, const sql_stmt *st, plan_op **out) {
    int rc = STRATA_OK;
    table_def *td = dml_table(b, st->update.table, st->off, &rc);
    if (!td) return rc;
    scope sc = {0};
    plan_op *src;
    uint32_t n = td->ncols;
    if (st->update.from) {
        /* UPDATE ... FROM: the table (with its rowid) joined with the FROM items; WHERE links them */
        plan_op *fp, *tp;
        scope fsc = {0};
        const char *alias = st->update.alias ? st->update.alias : td->name;
        if ((rc = scan_table(b, td, alias, true, &tp, &sc)) || (rc = scope_add(b, &sc, alias, "rowid", sql_type_make(TYPE_BIGINT))))
            return rc;
        sc.cols[n].hidden = true;
        if ((rc = bind_from(b, st->update.from, &fp, &fsc))) return rc;
        plan_op *j = new_op(b, PLAN_NL_JOIN, tp->ncols + fp->ncols);
        if (!j) return nomem(b);
        j->child[0] = tp;
        j->child[1] = fp;
        j->join.kind = JK_INNER;
        for (uint32_t i = 0; i < tp->ncols; i++) j->types[i] = tp->types[i], j->names[i] = tp->names[i];
        for (uint32_t i = 0; i < fp->ncols; i++) j->types[tp->ncols + i] = fp->types[i], j->names[tp->ncols + i] = fp->names[i];
        for (uint32_t i = 0; i < fsc.n; i++) {
            if (scope_add(b, &sc, fsc.cols[i].table, fsc.cols[i].name, fsc.cols[i].type)) return nomem(b);
            sc.cols[sc.n - 1].hidden = fsc.cols[i].hidden;
        }
        src = j;
        if (st->update.where) {
            ectx c = {b, &sc, NULL, "WHERE"};
            expr *w;
            if ((rc = bind_expr(&c, st->update.where, &w)) || (rc = require_bool(b, &w, "WHERE")) ||
                (rc = pushdown_conjuncts(b, &src, w, false)) || (rc = choose_access(b, src)))
                return rc;
        }
    } else if ((rc = dml_source(b, td, st->update.alias, st->update.where, &src, &sc))) {
        return rc;
    }
    expr **ex = alloc0(b, (n + 1) * sizeof *ex);
    if (!ex) return nomem(b);
    if (!(ex[0] = mk_col(b, n, sql_type_make(TYPE_BIGINT), st->off))) return nomem(b);
    for (uint32_t i = 0; i < n; i++)
        if (!(ex[i + 1] = mk_col(b, i, td->cols[i].type, st->off))) return nomem(b);
    ectx c = {b, &sc, NULL, "UPDATE"};
    for (int k = 0; k < st->update.set.n; k++) {
        sql_assign *as = st->update.set.items[k];
        int ci = -1;
        for (uint32_t i = 0; i < n; i++)
            if (!strcmp(td->cols[i].name, as->column)) ci = (int)i;
        if (ci < 0) return bind_error(b, as->off, "column \"%s\" of relation \"%s\" does not exist", as->column, td->name);
        expr *v;
        if (as->value->kind == EX_DEFAULT) rc = column_default(b, td, (uint32_t)ci, as->off, &v);
        else if (!(rc = bind_expr(&c, as->value, &v))) rc = bind_cast(b, v, td->cols[ci].type, false, &v);
        if (rc) return rc;
        ex[ci + 1] = v;
    }
    if ((rc = project(b, src, ex, NULL, n + 1, &src))) return rc;
    plan_op *p = new_op(b, PLAN_UPDATE, 0);
    if (!p) return nomem(b);
    p->child[0] = src;
    p->dml.table = td;
    if ((rc = bind_returning(b, td, &st->update.returning, p))) return rc;
    *out = p;
    return STRATA_OK;
}

int bind_index_build(bind_ctx *b, table_def *td, sql_expr *const *keys, uint32_t nkeys, plan_op **out) {
    scope sc = {0};
    plan_op *src;
    int rc = scan_table(b, td, td->name, true, &src, &sc);
    if (rc) return rc;
    expr **ex = alloc0(b, (nkeys + 1) * sizeof *ex);
    if (!ex) return nomem(b);
    ectx c = {b, &sc, NULL, "index expressions"};
    for (uint32_t k = 0; k < nkeys; k++)
        if ((rc = bind_expr(&c, keys[k], &ex[k]))) return rc;
    if (!(ex[nkeys] = mk_col(b, td->ncols, sql_type_make(TYPE_BIGINT), 0))) return nomem(b);
    if ((rc = project(b, src, ex, NULL, nkeys + 1, &src))) return rc;
    plan_op *p = new_op(b, PLAN_INDEX_BUILD, 0);
    if (!p) return nomem(b);
    p->child[0] = src;
    *out = p;
    return STRATA_OK;
}

int bind_delete(bind_ctx *b, const sql_stmt *st, plan_op **out) {
    int rc = STRATA_OK;
    table_def *td = dml_table(b, st->delete_.table, st->off, &rc);
    if (!td) return rc;
    scope sc = {0};
    plan_op *src;
    if ((rc = dml_source(b, td, st->delete_.alias, st->delete_.where, &src, &sc))) return rc;
    uint32_t n = td->ncols;
    expr **ex = alloc0(b, (n + 1) * sizeof *ex);
    if (!ex) return nomem(b);
    if (!(ex[0] = mk_col(b, n, sql_type_make(TYPE_BIGINT), st->off))) return nomem(b);
    for (uint32_t i = 0; i < n; i++)
        if (!(ex[i + 1] = mk_col(b, i, td->cols[i].type, st->off))) return nomem(b);
    if ((rc = project(b, src, ex, NULL, n + 1, &src))) return rc;
    plan_op *p = new_op(b, PLAN_DELETE, 0);
    if (!p) return nomem(b);
    p->child[0] = src;
    p->dml.table = td;
    if ((rc = bind_returning(b, td, &st->delete_.returning, p))) return rc;
    *out = p;
    return STRATA_OK;
}
