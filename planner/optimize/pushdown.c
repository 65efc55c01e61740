/*
** pushdown.c -- WHERE and ON conjuncts placed where they filter soonest (optimize.h).
**
** The binder hands each conjunct over as soon as the FROM items it reads are bound (an ON
** condition as its join is bound, a WHERE once the whole FROM clause is), before the operators
** above exist. A conjunct goes down a join tree to the lowest input that has all its columns,
** its columns shifted to that input's, as long as the joins let it: an outer join's preserved
** side is filtered by the WHERE but not by the join's own ON condition, the other side the other
** way round. A conjunct that stays at a join is one of its hash keys when it is an equality
** between the two inputs (so comma joins linked in WHERE never run as cross products), else the
** join's residual; below the joins, a filter. A conjunct that is an OR first has the conjuncts
** that all its branches share taken out (TPC-H Q19's join condition), so that they too can become
** hash keys or filters of their table.
*/
#include "bind/bind_internal.h"
#include "optimize/optimize.h"

#include <string.h>

static int nomem(bind_ctx *b) { return err_set(b->err, STRATA_NOMEM, "out of memory (binder)"); }

/* ---- conjuncts and columns ---------------------------------------------------------------- */

/* expr_conjuncts flattens an AND tree. */
int expr_conjuncts(bind_ctx *b, expr *e, expr ***list, int *n, int *cap) {
    if (e->kind == EXPR_AND) {
        for (int i = 0; i < e->nargs; i++) {
            int rc = expr_conjuncts(b, e->args[i], list, n, cap);
            if (rc) return rc;
        }
        return STRATA_OK;
    }
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 8;
        expr **nl = bind_alloc0(b, (size_t)nc * sizeof *nl);
        if (!nl) return nomem(b);
        if (*n) memcpy(nl, *list, (size_t)*n * sizeof *nl);
        *list = nl;
        *cap = nc;
    }
    (*list)[(*n)++] = e;
    return STRATA_OK;
}

/* expr_shift_cols adds delta to every column reference (pushing an expression to a join input). */
void expr_shift_cols(expr *e, int64_t delta) {
    if (e->kind == EXPR_COL) e->col = (uint32_t)((int64_t)e->col + delta);
    if (e->kind == EXPR_SUBQUERY && e->sub.correlated)
        for (uint32_t i = 0; i < e->sub.nouter; i++) e->sub.outer[i] = (uint32_t)((int64_t)e->sub.outer[i] + delta);
    for (int i = 0; i < e->nargs; i++) expr_shift_cols(e->args[i], delta);
}

/* has_subquery: e has a subquery anywhere in it. */
static bool has_subquery(const expr *e) {
    if (e->kind == EXPR_SUBQUERY) return true;
    for (int i = 0; i < e->nargs; i++)
        if (has_subquery(e->args[i])) return true;
    return false;
}

/* ---- joins ------------------------------------------------------------------------------- */

/* join_add_key and join_add_residual: a join's hash keys, or its residual, grown by one. */
int join_add_key(bind_ctx *b, plan_op *j, expr *l, expr *r) {
    uint32_t n = j->join.nkeys;
    expr **lk = bind_alloc0(b, (n + 1) * sizeof *lk), **rk = bind_alloc0(b, (n + 1) * sizeof *rk);
    if (!lk || !rk) return nomem(b);
    if (n) memcpy(lk, j->join.lkeys, n * sizeof *lk), memcpy(rk, j->join.rkeys, n * sizeof *rk);
    lk[n] = l, rk[n] = r;
    j->join.lkeys = lk, j->join.rkeys = rk;
    j->join.nkeys = n + 1;
    j->kind = PLAN_HASH_JOIN;
    return STRATA_OK;
}

int join_add_residual(bind_ctx *b, plan_op *j, expr *pred) {
    if (!j->join.pred) {
        j->join.pred = pred;
        return STRATA_OK;
    }
    expr *both = bind_mk2(b, EXPR_AND, sql_type_make(TYPE_BOOLEAN), pred->off, j->join.pred, pred);
    if (!both) return nomem(b);
    j->join.pred = both;
    return STRATA_OK;
}

/* ---- placing conjuncts -------------------------------------------------------------------- */

/* pushdown_conjunct pushes conjunct e (over p's output columns) as far down as it may go. from_on
** says e comes from the ON clause of p itself (for outer joins, where it may not filter the
** preserved side). */
int pushdown_conjunct(bind_ctx *b, plan_op **p, expr *e, bool from_on) {
    uint32_t lo = UINT32_MAX, hi = UINT32_MAX;
    bind_col_range(e, &lo, &hi);
    plan_op *j = *p;
    if ((j->kind == PLAN_HASH_JOIN || j->kind == PLAN_NL_JOIN) && lo == UINT32_MAX && from_on)
        return join_add_residual(b, j, e); /* a constant ON condition of an outer join keeps its rows */
    if ((j->kind == PLAN_HASH_JOIN || j->kind == PLAN_NL_JOIN) && lo != UINT32_MAX) {
        uint32_t nl = j->child[0]->ncols;
        join_kind k = j->join.kind;
        bool left_ok = k == JK_INNER || k == JK_SEMI || k == JK_ANTI || (k == JK_LEFT && !from_on) || (k == JK_RIGHT && from_on);
        bool right_ok = k == JK_INNER || (k == JK_RIGHT && !from_on) || (k == JK_LEFT && from_on);
        if (hi < nl && left_ok) return pushdown_conjunct(b, &j->child[0], e, false);
        if (lo >= nl && right_ok) {
            expr_shift_cols(e, -(int64_t)nl);
            return pushdown_conjunct(b, &j->child[1], e, false);
        }
        if (k == JK_INNER || from_on) {
            /* an equality between the two sides is a hash key */
            if (e->kind == EXPR_CMP && e->cmp == CMP_EQ) {
                uint32_t l0 = UINT32_MAX, h0 = UINT32_MAX, l1 = UINT32_MAX, h1 = UINT32_MAX;
                bind_col_range(e->args[0], &l0, &h0);
                bind_col_range(e->args[1], &l1, &h1);
                expr *lk = NULL, *rk = NULL;
                if (l0 != UINT32_MAX && l1 != UINT32_MAX && h0 < nl && l1 >= nl) lk = e->args[0], rk = e->args[1];
                else if (l0 != UINT32_MAX && l1 != UINT32_MAX && h1 < nl && l0 >= nl) lk = e->args[1], rk = e->args[0];
                if (lk) {
                    expr_shift_cols(rk, -(int64_t)nl);
                    return join_add_key(b, j, lk, rk);
                }
            }
            if (k == JK_INNER || from_on) return join_add_residual(b, j, e);
        }
    }
    if (j->kind == PLAN_FILTER && j->child[0]->kind != PLAN_SCAN && lo != UINT32_MAX)
        return pushdown_conjunct(b, &j->child[0], e, false) == STRATA_OK ? STRATA_OK : STRATA_ERROR;
    return bind_add_filter(b, p, e);
}

/* same_conjunct: x and y test the same (an equality also with its sides swapped). */
static bool same_conjunct(const expr *x, const expr *y) {
    if (expr_equal(x, y)) return true;
    return x->kind == EXPR_CMP && y->kind == EXPR_CMP && x->cmp == CMP_EQ && y->cmp == CMP_EQ &&
           expr_equal(x->args[0], y->args[1]) && expr_equal(x->args[1], y->args[0]);
}

static bool has_term(expr *const *terms, int n, const expr *x) {
    for (int i = 0; i < n; i++)
        if (same_conjunct(terms[i], x)) return true;
    return false;
}

/* or_branches lists the branches of nested ORs into out (NULL: counts them only). */
static void or_branches(expr *e, expr **out, int *n) {
    if (e->kind != EXPR_OR) {
        if (out) out[*n] = e;
        (*n)++;
        return;
    }
    for (int i = 0; i < e->nargs; i++) or_branches(e->args[i], out, n);
}

/* factor_or takes out of OR e the conjuncts that every branch has, appending them to list: (a AND
** b) OR (a AND c) is a AND (b OR c), in three-valued logic too. *rest is what remains of e, NULL
** when some branch had nothing else (a OR (a AND b) is a). A join condition repeated in every
** branch so becomes a hash key. */
static int factor_or(bind_ctx *b, expr *e, expr ***list, int *n, int *cap, expr **rest) {
    int nb = 0;
    or_branches(e, NULL, &nb);
    int *nt = bind_alloc0(b, (size_t)nb * sizeof *nt);
    expr **branch = bind_alloc0(b, (size_t)nb * sizeof *branch);
    expr ***terms = bind_alloc0(b, (size_t)nb * sizeof *terms);
    if (!nt || !terms || !branch) return nomem(b);
    nb = 0;
    or_branches(e, branch, &nb);
    for (int i = 0; i < nb; i++) {
        int tcap = 0, rc = expr_conjuncts(b, branch[i], &terms[i], &nt[i], &tcap);
        if (rc) return rc;
    }
    int before = *n;
    for (int k = 0; k < nt[0]; k++) {
        bool common = !has_term(*list + before, *n - before, terms[0][k]);
        for (int i = 1; i < nb && common; i++) common = has_term(terms[i], nt[i], terms[0][k]);
        int rc = common ? expr_conjuncts(b, terms[0][k], list, n, cap) : STRATA_OK;
        if (rc) return rc;
    }
    *rest = e;
    if (*n == before) return STRATA_OK;
    expr *or = bind_mk(b, EXPR_OR, e->type, e->off, nb);
    if (!or) return nomem(b);
    for (int i = 0; i < nb; i++) {
        int m = 0;
        for (int k = 0; k < nt[i]; k++)
            if (!has_term(*list + before, *n - before, terms[i][k])) terms[i][m++] = terms[i][k];
        if (m == 0) { /* this branch is just the common part: the OR adds nothing */
            *rest = NULL;
            return STRATA_OK;
        }
        if (m == 1) {
            or->args[i] = terms[i][0];
            continue;
        }
        if (!(or->args[i] = bind_mk(b, EXPR_AND, e->type, branch[i]->off, m))) return nomem(b);
        memcpy(or->args[i]->args, terms[i], (size_t)m * sizeof *terms[i]);
    }
    *rest = or;
    return STRATA_OK;
}

/* place_listed places conjunct i of list[0..n), an OR's common conjuncts appended to the list. */
static int place_listed(bind_ctx *b, plan_op **p, expr ***list, int *n, int *cap, int i, bool from_on) {
    expr *e = (*list)[i];
    int rc = e->kind == EXPR_OR ? factor_or(b, e, list, n, cap, &e) : STRATA_OK;
    return rc || !e ? rc : pushdown_conjunct(b, p, e, from_on);
}

/* pushdown_conjuncts places each conjunct of pred, ORs factored first. */
int pushdown_conjuncts(bind_ctx *b, plan_op **p, expr *pred, bool from_on) {
    expr **list = NULL;
    int n = 0, cap = 0;
    int rc = expr_conjuncts(b, pred, &list, &n, &cap);
    for (int i = 0; i < n && !rc; i++) rc = place_listed(b, p, &list, &n, &cap, i, from_on);
    return rc;
}

/* pushdown_where places the conjuncts of a WHERE over p: first those without subqueries, pushed
** down, so that the joins decorrelate.c makes of the others (semi and anti joins pushed down the
** same way, LEFT joins with aggregates on top) see the filtered inputs. */
int pushdown_where(bind_ctx *b, plan_op **p, expr *where) {
    expr **list = NULL;
    int n = 0, cap = 0, nsub = 0;
    int rc = expr_conjuncts(b, where, &list, &n, &cap);
    for (int i = 0; i < n && !rc; i++) {
        if (has_subquery(list[i])) list[nsub++] = list[i];
        else rc = place_listed(b, p, &list, &n, &cap, i, false);
    }
    for (int i = 0; i < nsub && !rc; i++) {
        expr *e = list[i];
        if (!(rc = decorrelate_conjunct(b, p, &e)) && e) rc = pushdown_conjunct(b, p, e, false);
    }
    return rc;
}
