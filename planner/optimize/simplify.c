/*
** simplify.c -- comparisons rewritten as they are bound, into forms the other rewrites and the
** scans can use (optimize.h).
**
** The binder calls these while it binds an expression, before the conjunct the expression is in
** is placed (pushdown.c). `x IN (y)` binds as `x = y`, NULLs alike, and a case-sensitive LIKE
** whose pattern is a constant without wildcards as an equality with the pattern's text: an
** equality that stays at a join becomes a hash key there, one over a table scan bounds an index
** scan (access.c). A DATE expression compared with a TIMESTAMP constant is compared with a DATE
** constant instead, so that a column is compared as it is stored. None of them changes a result.
*/
#include "bind/bind_internal.h"
#include "optimize/optimize.h"

static int nomem(bind_ctx *b) { return err_set(b->err, STRATA_NOMEM, "out of memory (binder)"); }

int simplify_in_one(bind_ctx *b, expr *x, expr *y, bool negated, size_t off, expr **out) {
    if (!(*out = bind_mk2(b, EXPR_CMP, sql_type_make(TYPE_BOOLEAN), off, x, y))) return nomem(b);
    (*out)->cmp = negated ? CMP_NE : CMP_EQ;
    return STRATA_OK;
}

int simplify_like(bind_ctx *b, expr *text, const expr *pattern, int escape, bool ilike, bool negated, size_t off,
                  expr **out) {
    *out = NULL;
    char *lit;
    size_t len;
    if (ilike || pattern->kind != EXPR_CONST || pattern->value.is_null ||
        !(lit = arena_alloc(b->mem, pattern->value.v.s.len + 1)) ||
        !like_exact(sstr_data(&pattern->value.v.s), pattern->value.v.s.len, escape, lit, &len))
        return STRATA_OK;
    sql_value v = {.type = sql_type_make(TYPE_VARCHAR)};
    if (sstr_copy(b->mem, lit, len, &v.v.s, b->err)) return STRATA_NOMEM;
    expr *k = bind_mk_const(b, v, pattern->off);
    if (!k) return nomem(b);
    k->untyped = true;
    return bind_make_cmp(b, negated ? CMP_NE : CMP_EQ, text, k, off, out);
}

bool simplify_date_vs_timestamp(bind_ctx *b, cmp_op *op, expr **x, expr **y) {
    static const cmp_op mirrored[] = {CMP_EQ, CMP_NE, CMP_GT, CMP_GE, CMP_LT, CMP_LE};
    bool swap = (*x)->kind == EXPR_CONST;
    expr *col = swap ? *y : *x, *k = swap ? *x : *y;
    if (col->type.id != TYPE_DATE || k->kind != EXPR_CONST || k->type.id != TYPE_TIMESTAMP || k->value.is_null)
        return false;
    cmp_op o = swap ? mirrored[*op] : *op;
    const int64_t day_us = INT64_C(86400000000);
    int64_t ts = k->value.v.i, d = ts / day_us - (ts % day_us < 0), frac = ts - d * day_us;
    if (d < INT32_MIN || d > INT32_MAX) return false;
    if (frac != 0) {
        if (o == CMP_EQ || o == CMP_NE) return false;
        if (o == CMP_LT) o = CMP_LE;
        if (o == CMP_GE) o = CMP_GT;
    }
    expr *c = bind_mk_const(b, value_date((int32_t)d), k->off);
    if (!c) return false;
    *x = col, *y = c, *op = o;
    return true;
}
