/*
** decorrelate.c -- subqueries of a WHERE turned into joins (optimize.h).
**
** The binder binds a subquery as an EXPR_SUBQUERY whose plan reads the enclosing row's columns as
** correlation parameters (EXPR_PARAM with param < 0); the executor runs a correlated plan once per
** outer row. For a conjunct of a WHERE (where false and NULL both drop the row) the common shapes
** have a set-at-a-time form:
**
**   [NOT] EXISTS (q)        a SEMI (ANTI) join of the outer rows with q's rows: q's correlation
**                           equalities are the hash keys, its other correlated conditions the
**                           join's residual predicate;
**   x [NOT] IN (q)          the same with x = q's column as one more key. NOT IN keeps SQL's NULL
**                           rules: uncorrelated, the anti join is null-aware (plan.h); correlated,
**                           x = y OR x IS NULL OR y IS NULL is the residual (a NULL on either side
**                           of a non-empty set removes the row);
**   ... (SELECT agg ...)    a correlated scalar subquery that is one aggregate without GROUP BY,
**                           correlated by equalities only: the aggregate grouped by the
**                           equalities' inner sides, LEFT joined to the outer rows on their outer
**                           sides; the conjunct reads the joined value (a count over no rows is 0,
**                           not the NULL of an unmatched row).
**
** Correlation conditions are pulled up from the filters and inner joins of q's plan. When a
** parameter is left anywhere else (under an aggregate or a LIMIT, in an IN's select list, a hash
** key) the plan is put back as it was and the subquery keeps the per-row path, as do subqueries
** under OR and outside WHERE. Semi and anti joins go down to the lowest join input that has the
** outer columns they read, as WHERE conjuncts do.
*/
#include "bind/bind_internal.h"
#include "optimize/optimize.h"

#include <string.h>

#define MAX_PULLED 32 /* correlated conjuncts of one subquery; more keeps the per-row path */

static int nomem(bind_ctx *b) { return err_set(b->err, STRATA_NOMEM, "out of memory (binder)"); }

/* ---- correlation parameters --------------------------------------------------------------- */

/* has_param: e reads a correlation parameter of the subquery at hand (those of subqueries inside e
** live in their own plans). */
static bool has_param(const expr *e) {
    if (!e) return false;
    if (e->kind == EXPR_PARAM && e->param < 0) return true;
    for (int i = 0; i < e->nargs; i++)
        if (has_param(e->args[i])) return true;
    return false;
}

static bool any_param(expr *const *list, uint32_t n) {
    for (uint32_t i = 0; list && i < n; i++)
        if (has_param(list[i])) return true;
    return false;
}

/* plan_has_param: some expression of p's operators reads a correlation parameter. */
static bool plan_has_param(const plan_op *p) {
    if (!p) return false;
    bool found = false;
    switch (p->kind) {
    case PLAN_SCAN:
        found = has_param(p->scan.lo_expr) || has_param(p->scan.hi_expr) || any_param(p->scan.zone_vals, p->scan.nzone);
        break;
    case PLAN_INDEX_SCAN:
        found = any_param(p->iscan.lo, (uint32_t)p->iscan.nlo) || any_param(p->iscan.hi, (uint32_t)p->iscan.nhi);
        break;
    case PLAN_VALUES: found = any_param(p->values.cells, p->values.nrows * p->ncols); break;
    case PLAN_SERIES: found = has_param(p->series.start) || has_param(p->series.stop) || has_param(p->series.step); break;
    case PLAN_FILTER: found = has_param(p->filter.pred); break;
    case PLAN_PROJECT: found = any_param(p->project.exprs, p->ncols); break;
    case PLAN_AGG:
        found = any_param(p->agg.keys, p->agg.nkeys);
        for (uint32_t a = 0; a < p->agg.naggs && !found; a++) found = has_param(p->agg.aggs[a].arg);
        break;
    case PLAN_HASH_JOIN:
    case PLAN_NL_JOIN:
    case PLAN_INDEX_JOIN:
        found = any_param(p->join.lkeys, p->join.nkeys) || any_param(p->join.rkeys, p->join.nkeys) || has_param(p->join.pred);
        break;
    case PLAN_SORT:
        for (uint32_t k = 0; k < p->sort.nkeys && !found; k++) found = has_param(p->sort.keys[k].e);
        break;
    case PLAN_LIMIT: found = has_param(p->limit.limit) || has_param(p->limit.offset); break;
    default: break;
    }
    return found || plan_has_param(p->child[0]) || plan_has_param(p->child[1]);
}

/* unparam turns the parameters of e into the outer columns they stand for (sub's outer[], moved
** by delta), in place. */
static void unparam(expr *e, const expr *sub, int64_t delta) {
    if (e->kind == EXPR_PARAM && e->param < 0) {
        e->kind = EXPR_COL;
        e->col = (uint32_t)((int64_t)sub->sub.outer[-e->param - 1] + delta);
    }
    for (int i = 0; i < e->nargs; i++) unparam(e->args[i], sub, delta);
}

static bool reads_columns(const expr *e) {
    uint32_t lo = UINT32_MAX, hi = UINT32_MAX;
    bind_col_range(e, &lo, &hi);
    return lo != UINT32_MAX;
}

/* ---- pulling correlated conjuncts up ------------------------------------------------------ */

/* The correlated conjuncts taken out of a subquery's body, and how to put them back. */
typedef struct pull_ctx {
    bind_ctx *b;
    int n;
    expr *conds[MAX_PULLED];   /* each over the columns of the operator it came from ... */
    uint32_t base[MAX_PULLED]; /* ... whose output starts at this column of the body's */
    int nundo;
    expr **slot[MAX_PULLED];   /* predicates changed, and their old value */
    expr *old[MAX_PULLED];
    bool full;                 /* more than MAX_PULLED: give up */
} pull_ctx;

/* pull_pred moves the correlated conjuncts of *slot (over columns starting at base) to pc, leaving
** the others (NULL: none). */
static int pull_pred(pull_ctx *pc, expr **slot, uint32_t base) {
    if (!*slot || !has_param(*slot)) return STRATA_OK;
    if (pc->nundo == MAX_PULLED) {
        pc->full = true;
        return STRATA_OK;
    }
    expr **list = NULL;
    int n = 0, cap = 0;
    int rc = expr_conjuncts(pc->b, *slot, &list, &n, &cap);
    if (rc) return rc;
    pc->slot[pc->nundo] = slot;
    pc->old[pc->nundo++] = *slot;
    expr *rest = NULL;
    for (int i = 0; i < n; i++) {
        if (has_param(list[i])) {
            if (pc->n == MAX_PULLED) {
                pc->full = true;
                return STRATA_OK;
            }
            pc->conds[pc->n] = list[i];
            pc->base[pc->n++] = base;
            continue;
        }
        if (rest) {
            expr *both = bind_mk(pc->b, EXPR_AND, sql_type_make(TYPE_BOOLEAN), list[i]->off, 2);
            if (!both) return nomem(pc->b);
            both->args[0] = rest, both->args[1] = list[i];
            list[i] = both;
        }
        rest = list[i];
    }
    *slot = rest;
    return STRATA_OK;
}

/* pull takes the correlated conjuncts out of the filters and inner-join conditions of p (whose
** output starts at column base of the body's), down through the inputs whose rows pass to the
** body's output unchanged. */
static int pull(pull_ctx *pc, plan_op *p, uint32_t base) {
    int rc;
    switch (p->kind) {
    case PLAN_FILTER:
        if ((rc = pull_pred(pc, &p->filter.pred, base))) return rc;
        return pull(pc, p->child[0], base);
    case PLAN_HASH_JOIN:
    case PLAN_NL_JOIN:
    case PLAN_INDEX_JOIN:
        if (p->join.kind == JK_LEFT || p->join.kind == JK_SEMI || p->join.kind == JK_ANTI)
            return pull(pc, p->child[0], base); /* the left side's rows pass */
        if (p->join.kind == JK_RSEMI || p->join.kind == JK_RANTI) return pull(pc, p->child[1], base);
        if (p->join.kind != JK_INNER) return STRATA_OK;
        if ((rc = pull_pred(pc, &p->join.pred, base)) || (rc = pull(pc, p->child[0], base))) return rc;
        if (p->kind == PLAN_INDEX_JOIN) return STRATA_OK; /* its right side is read by key */
        return pull(pc, p->child[1], base + p->child[0]->ncols);
    default: return STRATA_OK;
    }
}

static void pull_undo(pull_ctx *pc) {
    while (pc->nundo > 0) {
        pc->nundo--;
        *pc->slot[pc->nundo] = pc->old[pc->nundo];
    }
}

/* drop_empty_filters removes the filters that pulling left without a predicate. */
static void drop_empty_filters(plan_op **p) {
    while (*p && (*p)->kind == PLAN_FILTER && !(*p)->filter.pred) *p = (*p)->child[0];
    if (!*p) return;
    drop_empty_filters(&(*p)->child[0]);
    drop_empty_filters(&(*p)->child[1]);
}

/* A subquery's correlation as a join: equalities inner = outer, the rest. */
typedef struct corr_split {
    int nkeys;
    expr *inner[MAX_PULLED]; /* over the body */
    expr *outer[MAX_PULLED]; /* parameters and constants only */
    int nrest;
    expr *rest[MAX_PULLED];  /* over the body and parameters */
} corr_split;

/* key_side: conjunct c is inner = outer, the inner side reading the body's columns and no
** parameter, the outer side parameters without columns: the index of the inner side, else -1. */
static int key_side(const expr *c) {
    if (c->kind != EXPR_CMP || c->cmp != CMP_EQ) return -1;
    for (int side = 0; side < 2; side++) {
        const expr *in = c->args[side], *out = c->args[1 - side];
        if (!has_param(in) && reads_columns(in) && !reads_columns(out)) return side;
    }
    return -1;
}

/* split sorts the pulled conjuncts (moved to the body's columns) into keys and the rest. */
static void split(pull_ctx *pc, corr_split *cs) {
    memset(cs, 0, sizeof *cs);
    for (int i = 0; i < pc->n; i++) {
        expr *c = pc->conds[i];
        expr_shift_cols(c, pc->base[i]);
        int side = key_side(c);
        if (side < 0) {
            cs->rest[cs->nrest++] = c;
            continue;
        }
        cs->inner[cs->nkeys] = c->args[side];
        cs->outer[cs->nkeys++] = c->args[1 - side];
    }
}

/* take_correlation pulls the correlation out of *body into cs. It says no (*ok false), with *body
** as it was, when some parameter stays behind (also in the expressions extra[0..nextra)) or, with
** keys_only, a correlated conjunct is not an equality key. */
static int take_correlation(bind_ctx *b, plan_op **body, expr *const *extra, int nextra, bool keys_only, corr_split *cs,
                            bool *ok) {
    pull_ctx pc = {.b = b};
    int rc = pull(&pc, *body, 0);
    if (rc) return rc;
    *ok = !pc.full && !plan_has_param(*body) && !any_param(extra, (uint32_t)nextra);
    for (int i = 0; i < pc.n && *ok && keys_only; i++) *ok = key_side(pc.conds[i]) >= 0;
    if (!*ok) {
        pull_undo(&pc);
        return STRATA_OK;
    }
    drop_empty_filters(body);
    split(&pc, cs);
    return STRATA_OK;
}

/* ---- semi and anti joins ------------------------------------------------------------------ */

/* semi_target finds where below *p a semi or anti join reading outer columns lo..hi of *p's output
** may go: the lowest join input that has them all; *off is that input's first column in *p's
** output. A filter right over a table scan keeps its place (the access path comes from the pair). */
static plan_op **semi_target(plan_op **p, uint32_t lo, uint32_t hi, uint32_t *off) {
    *off = 0;
    while (lo != UINT32_MAX) {
        plan_op *j = *p;
        if (j->kind == PLAN_FILTER && j->child[0]->kind != PLAN_SCAN) {
            p = &j->child[0];
            continue;
        }
        if (j->kind != PLAN_HASH_JOIN && j->kind != PLAN_NL_JOIN && j->kind != PLAN_INDEX_JOIN) break;
        uint32_t n0 = j->child[0]->ncols;
        join_kind k = j->join.kind;
        if (k == JK_RSEMI || k == JK_RANTI) break;
        if (hi < n0 && k != JK_RIGHT && k != JK_FULL) {
            p = &j->child[0];
        } else if (lo >= n0 && k == JK_INNER && j->kind != PLAN_INDEX_JOIN) {
            p = &j->child[1];
            lo -= n0, hi -= n0, *off += n0;
        } else {
            break;
        }
    }
    return p;
}

/* not_in_residual: (x = y) IS DISTINCT FROM false, that is x = y OR x IS NULL OR y IS NULL (x over
** the outer columns, y over the joined ones): the rows of a correlated NOT IN's set that exclude
** x. NULL when out of memory. */
static expr *not_in_residual(bind_ctx *b, expr *x, expr *y) {
    sql_type tb = sql_type_make(TYPE_BOOLEAN);
    expr *eq = bind_mk(b, EXPR_CMP, tb, x->off, 2), *no = bind_mk(b, EXPR_CONST, tb, x->off, 0);
    expr *not_false = bind_mk(b, EXPR_IS_DISTINCT, tb, x->off, 2);
    if (!eq || !no || !not_false) return NULL;
    eq->cmp = CMP_EQ;
    eq->args[0] = x, eq->args[1] = y;
    no->value = value_bool(false);
    not_false->args[0] = eq, not_false->args[1] = no;
    return not_false;
}

/* in_value gives the expression of an IN subquery's column over the input of its projection
** *root, looking through the projection of a cast that the binder may put on top (the plan is
** left as it is); NULL for another shape or when out of memory. */
static expr *in_value(bind_ctx *b, plan_op **root) {
    plan_op *p = *root;
    expr *y = p->project.exprs[0];
    if (p->child[0]->kind != PLAN_PROJECT) return y;
    if (y->kind != EXPR_CAST || y->args[0]->kind != EXPR_COL || y->args[0]->col != 0) return NULL;
    expr *cast = bind_mk(b, EXPR_CAST, y->type, y->off, 1);
    if (!cast) return NULL;
    expr **args = cast->args;
    *cast = *y;
    cast->args = args;
    *root = p->child[0];
    args[0] = (*root)->project.exprs[0];
    return cast;
}

/* mark_cols sets used[c - base] for the columns base <= c < base + n that e reads. */
static void mark_cols(const expr *e, uint8_t *used, uint32_t base, uint32_t n) {
    if (!e) return;
    if (e->kind == EXPR_COL && e->col >= base && e->col - base < n) used[e->col - base] = 1;
    for (uint32_t k = 0; e->kind == EXPR_SUBQUERY && e->sub.correlated && k < e->sub.nouter; k++)
        if (e->sub.outer[k] >= base && e->sub.outer[k] - base < n) used[e->sub.outer[k] - base] = 1;
    for (int i = 0; i < e->nargs; i++) mark_cols(e->args[i], used, base, n);
}

/* remap_cols renumbers the columns base <= c < base + n that e reads to base + map[c - base]. */
static void remap_cols(expr *e, const uint32_t *map, uint32_t base, uint32_t n) {
    if (!e) return;
    if (e->kind == EXPR_COL && e->col >= base && e->col - base < n) e->col = base + map[e->col - base];
    for (uint32_t k = 0; e->kind == EXPR_SUBQUERY && e->sub.correlated && k < e->sub.nouter; k++)
        if (e->sub.outer[k] >= base && e->sub.outer[k] - base < n) e->sub.outer[k] = base + map[e->sub.outer[k] - base];
    for (int i = 0; i < e->nargs; i++) remap_cols(e->args[i], map, base, n);
}

/* narrow_build puts a projection of the columns that semi or anti join j reads (its keys, its
** residual) over its build side: the join keeps its build rows for the residual, and a subquery's
** SELECT * would have it keep every column of them. */
static int narrow_build(bind_ctx *b, plan_op *j) {
    plan_op *body = j->child[1];
    uint32_t nl = j->child[0]->ncols, nb = body->ncols, n = 0;
    uint8_t *used = arena_alloc(b->mem, nb + 1);
    uint32_t *map = arena_alloc(b->mem, (nb + 1) * sizeof *map);
    if (!used || !map) return nomem(b);
    memset(used, 0, nb + 1);
    for (uint32_t k = 0; k < j->join.nkeys; k++) mark_cols(j->join.rkeys[k], used, 0, nb);
    mark_cols(j->join.pred, used, nl, nb);
    for (uint32_t c = 0; c < nb; c++) n += used[c];
    if (n == nb) return STRATA_OK;
    plan_op *proj = bind_new_op(b, PLAN_PROJECT, n);
    expr **cols = arena_alloc(b->mem, (n + 1) * sizeof *cols);
    if (!proj || !cols) return nomem(b);
    for (uint32_t c = 0, i = 0; c < nb; c++) {
        if (!used[c]) continue;
        if (!(cols[i] = bind_mk(b, EXPR_COL, body->types[c], 0, 0))) return nomem(b);
        cols[i]->col = c;
        proj->types[i] = body->types[c];
        proj->names[i] = body->names[c];
        map[c] = i++;
    }
    proj->project.exprs = cols;
    proj->child[0] = body;
    for (uint32_t k = 0; k < j->join.nkeys; k++) remap_cols(j->join.rkeys[k], map, 0, nb);
    remap_cols(j->join.pred, map, nl, nb);
    j->child[1] = proj;
    return STRATA_OK;
}

/* semi_join makes the join of an EXISTS or IN subquery sub (anti: its negation) under *p, when
** its shape allows; *done says whether it did. */
static int semi_join(bind_ctx *b, plan_op **p, expr *sub, bool anti, bool *done) {
    *done = false;
    bool is_in = sub->sub.kind != SUB_EXISTS;
    if (!is_in && !sub->sub.correlated) return STRATA_OK; /* evaluated once already */
    plan_op *body = sub->sub.plan;
    expr *x = is_in ? sub->args[0] : NULL, *y = NULL;
    corr_split cs = {0};
    int rc;
    if (sub->sub.correlated) {
        plan_op *root = body;
        if (root->kind == PLAN_DISTINCT) root = root->child[0]; /* duplicates do not change a semi join */
        if (root->kind != PLAN_PROJECT || (is_in && !(y = in_value(b, &root)))) return STRATA_OK;
        body = root->child[0];
        bool ok;
        if ((rc = take_correlation(b, &body, &y, y ? 1 : 0, false, &cs, &ok)) || !ok) return rc;
    } else if (!(y = bind_mk(b, EXPR_COL, body->types[0], sub->off, 0))) {
        return nomem(b);
    }
    uint32_t lo = UINT32_MAX, hi = UINT32_MAX, off;
    if (x) bind_col_range(x, &lo, &hi);
    for (uint32_t k = 0; k < sub->sub.nouter; k++) {
        if (sub->sub.outer[k] < lo || lo == UINT32_MAX) lo = sub->sub.outer[k];
        if (sub->sub.outer[k] > hi || hi == UINT32_MAX) hi = sub->sub.outer[k];
    }
    plan_op **at = semi_target(p, lo, hi, &off);
    plan_op *left = *at, *j = bind_new_op(b, PLAN_NL_JOIN, left->ncols);
    if (!j) return nomem(b);
    memcpy(j->types, left->types, left->ncols * sizeof *j->types);
    memcpy(j->names, left->names, left->ncols * sizeof *j->names);
    j->child[0] = left;
    j->child[1] = body;
    j->join.kind = anti ? JK_ANTI : JK_SEMI;
    for (int k = 0; k < cs.nkeys; k++) {
        unparam(cs.outer[k], sub, -(int64_t)off);
        if ((rc = join_add_key(b, j, cs.outer[k], cs.inner[k]))) return rc;
    }
    for (int k = 0; k < cs.nrest; k++) {
        expr_shift_cols(cs.rest[k], left->ncols);
        unparam(cs.rest[k], sub, -(int64_t)off);
        if ((rc = join_add_residual(b, j, cs.rest[k]))) return rc;
    }
    if (x) {
        expr_shift_cols(x, -(int64_t)off);
        if (!anti || !sub->sub.correlated) {
            if ((rc = join_add_key(b, j, x, y))) return rc;
            j->join.null_aware = anti;
        } else {
            expr_shift_cols(y, left->ncols);
            expr *r = not_in_residual(b, x, y);
            if (!r) return nomem(b);
            if ((rc = join_add_residual(b, j, r))) return rc;
        }
    }
    if (j->join.pred && (rc = narrow_build(b, j))) return rc;
    *at = j;
    *done = true;
    return STRATA_OK;
}

/* ---- scalar subqueries with an aggregate -------------------------------------------------- */

/* agg_columns makes the projection's expression e (over an aggregate's output without keys) read
** the aggregates at column first of the join instead; a count of an unmatched row reads 0. */
static int agg_columns(bind_ctx *b, expr **e, const plan_op *agg, uint32_t first) {
    expr *c = *e;
    if (c->kind == EXPR_COL) {
        agg_fn fn = agg->agg.aggs[c->col].fn;
        c->col += first;
        if (fn != AGG_COUNT && fn != AGG_COUNT_STAR) return STRATA_OK;
        expr *zero = bind_mk(b, EXPR_CONST, c->type, c->off, 0), *co = bind_mk(b, EXPR_COALESCE, c->type, c->off, 2);
        if (!zero || !co) return nomem(b);
        zero->value = value_int(c->type.id, 0);
        co->args[0] = c, co->args[1] = zero;
        *e = co;
        return STRATA_OK;
    }
    for (int i = 0; i < c->nargs; i++) {
        int rc = agg_columns(b, &c->args[i], agg, first);
        if (rc) return rc;
    }
    return STRATA_OK;
}

/* scalar_join puts the LEFT join of a correlated scalar subquery sub's aggregate, grouped by its
** correlation, on top of *p, and gives in *value the subquery's value over the joined row (NULL:
** the shape does not allow it). */
static int scalar_join(bind_ctx *b, plan_op **p, expr *sub, expr **value) {
    *value = NULL;
    plan_op *root = sub->sub.plan, *agg = root->child[0];
    if (root->kind != PLAN_PROJECT || root->ncols != 1 || agg->kind != PLAN_AGG || agg->agg.nkeys) return STRATA_OK;
    for (uint32_t a = 0; a < agg->agg.naggs; a++)
        if (has_param(agg->agg.aggs[a].arg)) return STRATA_OK; /* the aggregate reads the outer row */
    corr_split cs;
    bool ok;
    int rc = take_correlation(b, &agg->child[0], NULL, 0, true, &cs, &ok);
    if (rc || !ok) return rc;
    /* the aggregate by the correlation's inner sides: output keys then aggregates */
    uint32_t nk = (uint32_t)cs.nkeys, na = agg->agg.naggs, nl = (*p)->ncols;
    plan_op *grouped = bind_new_op(b, PLAN_AGG, nk + na), *j = bind_new_op(b, PLAN_NL_JOIN, nl + nk + na);
    expr **keys = arena_alloc(b->mem, (nk + 1) * sizeof *keys);
    if (!grouped || !j || !keys) return nomem(b);
    memcpy(keys, cs.inner, nk * sizeof *keys);
    grouped->child[0] = agg->child[0];
    grouped->agg = agg->agg;
    grouped->agg.nkeys = nk;
    grouped->agg.keys = keys;
    for (uint32_t k = 0; k < nk; k++) grouped->types[k] = keys[k]->type;
    memcpy(grouped->types + nk, agg->types, na * sizeof *agg->types);
    memcpy(j->types, (*p)->types, nl * sizeof *j->types);
    memcpy(j->names, (*p)->names, nl * sizeof *j->names);
    memcpy(j->types + nl, grouped->types, (nk + na) * sizeof *j->types);
    j->child[0] = *p;
    j->child[1] = grouped;
    j->join.kind = JK_LEFT;
    for (uint32_t k = 0; k < nk; k++) {
        expr *col = bind_mk(b, EXPR_COL, cs.inner[k]->type, cs.inner[k]->off, 0);
        if (!col) return nomem(b);
        col->col = k;
        unparam(cs.outer[k], sub, 0);
        if ((rc = join_add_key(b, j, cs.outer[k], col))) return rc;
    }
    expr *v = root->project.exprs[0];
    if ((rc = agg_columns(b, &v, agg, nl + nk))) return rc;
    unparam(v, sub, 0);
    *p = j;
    *value = v;
    return STRATA_OK;
}

/* decorrelate_scalars replaces the correlated scalar subqueries in *e that scalar_join can join. */
int decorrelate_scalars(bind_ctx *b, plan_op **p, expr **e) {
    expr *c = *e;
    if (c->kind == EXPR_SUBQUERY && c->sub.kind == SUB_SCALAR && c->sub.correlated) {
        expr *v;
        int rc = scalar_join(b, p, c, &v);
        if (rc || !v) return rc;
        *e = v;
        return STRATA_OK;
    }
    for (int i = 0; i < c->nargs; i++) {
        int rc = decorrelate_scalars(b, p, &c->args[i]);
        if (rc) return rc;
    }
    return STRATA_OK;
}

int decorrelate_conjunct(bind_ctx *b, plan_op **p, expr **e) {
    bool anti = false;
    expr *s = *e;
    while (s->kind == EXPR_NOT) anti = !anti, s = s->args[0];
    if (s->kind == EXPR_SUBQUERY) {
        /* x = ANY (q) is x IN (q), x <> ALL (q) is x NOT IN (q) */
        bool in = s->sub.kind == SUB_IN || (s->sub.kind == SUB_ANY && s->sub.cmp == CMP_EQ);
        bool not_in = s->sub.kind == SUB_ALL && s->sub.cmp == CMP_NE;
        if (s->sub.kind == SUB_EXISTS || in || not_in) {
            bool done;
            int rc = semi_join(b, p, s, anti != (not_in || (s->sub.kind == SUB_IN && s->negated)), &done);
            if (rc || done) {
                if (!rc) *e = NULL;
                return rc;
            }
        }
    }
    return decorrelate_scalars(b, p, e);
}
