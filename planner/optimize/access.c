/*
** access.c -- access paths: how a scan reads its table, chosen from the filter over it
** (choose_access, optimize.h).
**
** A filter's conjuncts `key op value`, where value is known when the scan starts (constants,
** parameters, uncorrelated subqueries), bound the scan: on the rowid column, a rowid range scan;
** else on an index's leading keys, an index scan, the index with the most equalities on its key
** prefix (a range on the next key counting half) taken whenever there is one, whatever the
** estimates say. A `key LIKE 'prefix%'` bounds the key to the prefix's range. The filter stays
** above the scan to check its conjuncts again, so the choice never changes a result, except the
** equalities an index decides exactly (decided), which go. A filter that bounds neither records
** its conjuncts on columns other than strings for the column store's zone maps to skip row
** groups by.
*/
#include "bind/bind_internal.h"
#include "optimize/optimize.h"

#include <string.h>

static int nomem(bind_ctx *b) { return err_set(b->err, STRATA_NOMEM, "out of memory (binder)"); }

/* is_key_value: an expression a scan can evaluate once at its start (no columns, no correlation). */
static bool is_key_value(const expr *e) {
    uint32_t lo = UINT32_MAX, hi = UINT32_MAX;
    bind_col_range(e, &lo, &hi);
    if (lo != UINT32_MAX) return false;
    if (e->kind == EXPR_PARAM && e->param < 0) return false;
    for (int i = 0; i < e->nargs; i++)
        if (!is_key_value(e->args[i])) return false;
    return !(e->kind == EXPR_SUBQUERY && e->sub.correlated);
}

/* match_cmp: conj is `target op value` (or reversed, op flipped) with value a key value. */
static bool match_cmp(const expr *conj, const expr *target, cmp_op *op, expr **value) {
    static const cmp_op flip[] = {[CMP_EQ] = CMP_EQ, [CMP_NE] = CMP_NE, [CMP_LT] = CMP_GT,
                                  [CMP_LE] = CMP_GE, [CMP_GT] = CMP_LT, [CMP_GE] = CMP_LE};
    if (conj->kind != EXPR_CMP || conj->cmp == CMP_NE) return false;
    for (int side = 0; side < 2; side++) {
        const expr *k = conj->args[side], *v = conj->args[1 - side];
        if (!sql_type_equal(k->type, target->type) || !expr_equal(k, target) || !is_key_value(v)) continue;
        *op = side == 0 ? conj->cmp : flip[conj->cmp];
        *value = (expr *)v;
        return true;
    }
    return false;
}

/* A range on one key: lo/hi values (NULL: unbounded), each inclusive or not, or an equality. */
typedef struct key_range {
    expr *eq, *lo, *hi;
    bool lo_incl, hi_incl;
    int eq_at; /* the conjunct eq comes from */
} key_range;

/* like_range: conj is `target LIKE 'prefix%'` (case-sensitive, a constant pattern), whose rows all
** lie in [prefix, the prefix with its last byte below 0xFF raised by one): sets *lo and *hi (NULL
** when every byte is 0xFF) to those bounds. The LIKE itself stays to re-check them. */
static bool like_range(bind_ctx *b, const expr *conj, const expr *target, expr **lo, expr **hi) {
    if (conj->kind != EXPR_LIKE || conj->negated || conj->like.ilike || target->type.id != TYPE_VARCHAR) return false;
    const expr *text = conj->args[0], *pat = conj->args[1];
    if (text->kind == EXPR_CAST) text = text->args[0];
    if (!expr_equal(text, target) || pat->kind != EXPR_CONST || pat->value.is_null) return false;
    const sstr *ps = &pat->value.v.s;
    char *pre = arena_alloc(b->mem, ps->len + 1);
    size_t n;
    if (!pre || !like_prefix(sstr_data(ps), ps->len, conj->like.escape, pre, &n) || n == 0) return false;
    if (target->type.max_len && utf8_length(pre, n) > target->type.max_len) return false; /* matches nothing */
    sql_value v = {.type = target->type};
    strata_err tmp; /* out of memory here only leaves the index unused */
    err_clear(&tmp);
    if (sstr_copy(b->mem, pre, n, &v.v.s, &tmp) || !(*lo = bind_mk_const(b, v, conj->off))) return false;
    *hi = NULL;
    while (n > 0 && (unsigned char)pre[n - 1] == 0xFF) n--;
    if (n == 0) return true;
    pre[n - 1] = (char)((unsigned char)pre[n - 1] + 1);
    return !sstr_copy(b->mem, pre, n, &v.v.s, &tmp) && (*hi = bind_mk_const(b, v, conj->off));
}

static void find_range(bind_ctx *b, expr **conj, int n, const expr *target, key_range *r) {
    memset(r, 0, sizeof *r);
    for (int i = 0; i < n; i++) {
        cmp_op op;
        expr *v, *hi;
        if (!r->lo && !r->hi && like_range(b, conj[i], target, &v, &hi)) {
            r->lo = v, r->lo_incl = true;
            r->hi = hi, r->hi_incl = false;
            continue;
        }
        if (!match_cmp(conj[i], target, &op, &v)) continue;
        switch (op) {
        case CMP_EQ:
            if (!r->eq) r->eq = v, r->eq_at = i;
            break;
        case CMP_GT:
        case CMP_GE:
            if (!r->lo) r->lo = v, r->lo_incl = op == CMP_GE;
            break;
        default:
            if (!r->hi) r->hi = v, r->hi_incl = op == CMP_LE;
            break;
        }
    }
}

#define MAX_ZONE_CONDS 8 /* ROWGROUP_MAX_PREDS */

/* zone_conditions records in scan the conjuncts `column op value` of the filter over it (equality
** and ranges, as find_range finds them), for the column store's zone maps to skip by. */
static int zone_conditions(bind_ctx *b, plan_op *scan, expr **conj, int n) {
    table_def *td = scan->scan.table;
    uint32_t cols[MAX_ZONE_CONDS], k = 0;
    uint8_t ops[MAX_ZONE_CONDS];
    expr *vals[MAX_ZONE_CONDS];
    for (uint32_t i = 0; i < scan->scan.ncols && k + 3 <= MAX_ZONE_CONDS; i++) {
        expr target = {.kind = EXPR_COL, .col = i, .type = td->cols[scan->scan.cols[i]].type};
        if (target.type.id == TYPE_VARCHAR) continue; /* zone maps keep no strings */
        key_range r;
        find_range(b, conj, n, &target, &r);
        if (r.eq) cols[k] = i, ops[k] = CMP_EQ, vals[k++] = r.eq;
        if (r.lo) cols[k] = i, ops[k] = r.lo_incl ? CMP_GE : CMP_GT, vals[k++] = r.lo;
        if (r.hi) cols[k] = i, ops[k] = r.hi_incl ? CMP_LE : CMP_LT, vals[k++] = r.hi;
    }
    if (k == 0) return STRATA_OK;
    scan->scan.zone_cols = bind_alloc0(b, k * sizeof *cols);
    scan->scan.zone_ops = bind_alloc0(b, k);
    scan->scan.zone_vals = bind_alloc0(b, k * sizeof *vals);
    if (!scan->scan.zone_cols || !scan->scan.zone_ops || !scan->scan.zone_vals) return nomem(b);
    memcpy(scan->scan.zone_cols, cols, k * sizeof *cols);
    memcpy(scan->scan.zone_ops, ops, k);
    memcpy(scan->scan.zone_vals, vals, k * sizeof *vals);
    scan->scan.nzone = k;
    return STRATA_OK;
}

/* decided says whether an index scan bounded by key = value returns exactly the rows where the
** conjunct holds, so that it needs no re-check: the key is a column, the value has its exact type,
** and the type is not floating point (whose -0.0 and NaN the key encoding orders its own way).
** (A NULL value makes the scan empty, as the comparison would.) */
static bool decided(const expr *key, const expr *value) {
    sql_type_id t = (sql_type_id)key->type.id;
    return key->kind == EXPR_COL && sql_type_equal(key->type, value->type) && t != TYPE_DOUBLE;
}

/* choose_access turns FILTER over a full table scan into a rowid range scan or an index scan when
** the filter has equality or range conjuncts on the rowid column or on an index's key prefix.
** The filter stays to re-check the conjuncts, so the choice never changes a result, but for the
** equalities the index decides exactly (decided): those go, and the filter with them when none is
** left, so that a point lookup reads no column only to compare it again. */
int choose_access(bind_ctx *b, plan_op *p) {
    if (!p) return STRATA_OK;
    int rc;
    if ((rc = choose_access(b, p->child[0])) || (rc = choose_access(b, p->child[1]))) return rc;
    if (p->kind != PLAN_FILTER || p->child[0]->kind != PLAN_SCAN || p->child[0]->scan.lo_expr || p->child[0]->scan.hi_expr)
        return STRATA_OK;
    plan_op *scan = p->child[0];
    table_def *td = scan->scan.table;
    expr **conj = NULL;
    int n = 0, cap = 0;
    if ((rc = expr_conjuncts(b, p->filter.pred, &conj, &n, &cap))) return rc;
    if (td->rowid_col >= 0) {
        expr target = {.kind = EXPR_COL, .col = (uint32_t)td->rowid_col, .type = td->cols[td->rowid_col].type};
        key_range r;
        find_range(b, conj, n, &target, &r);
        if (r.eq || r.lo || r.hi) {
            scan->scan.lo_expr = r.eq ? r.eq : r.lo;
            scan->scan.hi_expr = r.eq ? r.eq : r.hi;
            scan->scan.lo_excl = !r.eq && r.lo && !r.lo_incl;
            scan->scan.hi_excl = !r.eq && r.hi && !r.hi_incl;
            if (!r.eq && !r.lo) scan->scan.lo_expr = NULL;
            return STRATA_OK;
        }
    }
    /* the index whose key prefix has the most equalities (a range on the next key counts half) */
    index_def *best = NULL;
    int best_score = 0;
    key_range best_ranges[16];
    expr *best_targets[16];
    int best_neq = 0;
    for (uint32_t i = 0; i < td->nindexes; i++) {
        index_def *ix = td->indexes[i];
        key_range ranges[16];
        expr *targets[16];
        int neq = 0, score = 0;
        for (uint32_t k = 0; k < ix->nkeys && k < 16; k++) {
            expr *target;
            if ((rc = bind_table_expr(b, td, ix->keys[k], &target))) {
                err_clear(b->err);
                break;
            }
            targets[k] = target;
            find_range(b, conj, n, target, &ranges[k]);
            if (ranges[k].eq) {
                neq++;
                score += 2;
                continue;
            }
            if (ranges[k].lo || ranges[k].hi) score += 1;
            break;
        }
        if (score > best_score) {
            best = ix, best_score = score, best_neq = neq;
            memcpy(best_ranges, ranges, sizeof ranges);
            memcpy(best_targets, targets, sizeof targets);
        }
    }
    if (!best) return zone_conditions(b, scan, conj, n);
    plan_op *is = bind_alloc0(b, sizeof *is);
    if (!is) return nomem(b);
    *is = *scan;
    is->kind = PLAN_INDEX_SCAN;
    memset(&is->iscan, 0, sizeof is->iscan);
    is->iscan.table = td;
    is->iscan.index = best;
    is->iscan.ncols = scan->scan.ncols;
    is->iscan.cols = scan->scan.cols;
    is->iscan.with_rowid = scan->scan.with_rowid;
    int nk = best_neq + (best_neq < (int)best->nkeys && best_neq < 16 ? 1 : 0);
    is->iscan.lo = bind_alloc0(b, (size_t)(nk + 1) * sizeof(expr *));
    is->iscan.hi = bind_alloc0(b, (size_t)(nk + 1) * sizeof(expr *));
    if (!is->iscan.lo || !is->iscan.hi) return nomem(b);
    for (int k = 0; k < best_neq; k++) is->iscan.lo[k] = is->iscan.hi[k] = best_ranges[k].eq;
    is->iscan.nlo = is->iscan.nhi = best_neq;
    is->iscan.lo_incl = is->iscan.hi_incl = true;
    if (nk > best_neq) {
        key_range *r = &best_ranges[best_neq];
        if (r->lo) is->iscan.lo[is->iscan.nlo++] = r->lo, is->iscan.lo_incl = r->lo_incl;
        if (r->hi) is->iscan.hi[is->iscan.nhi++] = r->hi, is->iscan.hi_incl = r->hi_incl;
    }
    int keep = 0;
    for (int i = 0; i < n; i++) {
        bool drop = false;
        for (int k = 0; k < best_neq && !drop; k++)
            drop = best_ranges[k].eq_at == i && decided(best_targets[k], best_ranges[k].eq);
        if (!drop) conj[keep++] = conj[i];
    }
    if (keep == 0) { /* the index scan takes the filter's place */
        *p = *is;
        return STRATA_OK;
    }
    if (keep < n) {
        expr *pred = conj[0];
        for (int i = 1; i < keep && pred; i++)
            pred = bind_mk2(b, EXPR_AND, sql_type_make(TYPE_BOOLEAN), conj[i]->off, pred, conj[i]);
        if (!pred) return nomem(b);
        p->filter.pred = pred;
    }
    p->child[0] = is;
    return STRATA_OK;
}
