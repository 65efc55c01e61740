/*
** prune.c -- projection pruning (optimize_prune, optimize.h; api.c calls it on each finished plan):
** each operator is told which of its input's columns some operator above reads.
**
** Walking down from the root, a table scan marks the columns it must decode (scan.need), and an
** index scan whose every column read is a plain key of its index, or the rowid, reads the keys
** alone (covering: iscan.key_pos); a projection does not compute the outputs nothing reads (a
** NULL stands for each, so a view's or a subquery's unused column raises no error). The plans of
** subqueries in expressions are pruned in turn. Each hash join, once its inputs are pruned, gets
** its join filters (join_filter_place, joinfilter.c), which need the scans' final columns.
*/
#include "bind/bind_internal.h"
#include "optimize/optimize.h"

#include <string.h>

static int nomem(bind_ctx *b) { return err_set(b->err, STRATA_NOMEM, "out of memory (binder)"); }

static int prune(bind_ctx *b, plan_op *p, const uint8_t *need);

/* refs marks the columns e reads in need[0..n) (shifted by -base), and prunes subquery plans. */
static int refs(bind_ctx *b, const expr *e, uint8_t *need, uint32_t base, uint32_t n) {
    if (!e) return STRATA_OK;
    if (e->kind == EXPR_COL && e->col >= base && e->col - base < n) need[e->col - base] = 1;
    if (e->kind == EXPR_SUBQUERY) {
        for (uint32_t i = 0; e->sub.correlated && i < e->sub.nouter; i++)
            if (e->sub.outer[i] >= base && e->sub.outer[i] - base < n) need[e->sub.outer[i] - base] = 1;
        int rc = prune(b, e->sub.plan, NULL);
        if (rc) return rc;
    }
    for (int i = 0; i < e->nargs; i++) {
        int rc = refs(b, e->args[i], need, base, n);
        if (rc) return rc;
    }
    return STRATA_OK;
}

static int refs_all(bind_ctx *b, expr *const *list, uint32_t count, uint8_t *need, uint32_t base, uint32_t n) {
    for (uint32_t i = 0; i < count; i++) {
        int rc = refs(b, list[i], need, base, n);
        if (rc) return rc;
    }
    return STRATA_OK;
}

/* prune walks down from p, whose parent reads need[] of its output (NULL: all of it). */
static int prune(bind_ctx *b, plan_op *p, const uint8_t *need) {
    if (!p) return STRATA_OK;
    uint32_t n0 = p->child[0] ? p->child[0]->ncols : 0;
    uint8_t *c0 = bind_alloc0(b, n0 + 1);
    if (!c0) return nomem(b);
    int rc = STRATA_OK;
    switch (p->kind) {
    case PLAN_SCAN:
    case PLAN_INDEX_SCAN: {
        uint8_t *mark = bind_alloc0(b, p->ncols + 1);
        if (!mark) return nomem(b);
        for (uint32_t i = 0; i < p->ncols; i++) mark[i] = need ? need[i] : 1;
        if (p->kind == PLAN_SCAN) {
            rc = refs(b, p->scan.lo_expr, NULL, 0, 0);
            if (!rc) rc = refs(b, p->scan.hi_expr, NULL, 0, 0);
            p->scan.need = mark;
            return rc;
        }
        p->iscan.need = mark;
        /* covering: every column read is a plain key of the index (and decodable from it) */
        index_def *ix = p->iscan.index;
        int32_t *pos = bind_alloc0(b, (p->iscan.ncols + 1) * sizeof *pos);
        if (!pos) return nomem(b);
        for (uint32_t i = 0; i < p->iscan.ncols; i++) {
            pos[i] = -1;
            if (!mark[i]) continue;
            for (uint32_t k = 0; k < ix->nkeys && pos[i] < 0; k++)
                if (ix->key_cols[k] == (int32_t)p->iscan.cols[i]) pos[i] = (int32_t)k;
            if (pos[i] < 0 && (int32_t)p->iscan.cols[i] == p->iscan.table->rowid_col) pos[i] = -2; /* the entry's rowid */
            if (pos[i] == -1 || p->iscan.table->cols[p->iscan.cols[i]].type.id == TYPE_INTERVAL) return STRATA_OK;
        }
        for (uint32_t k = 0; k < ix->nkeys; k++) /* every key must decode to step over it */
            if (ix->key_cols[k] < 0 || p->iscan.table->cols[ix->key_cols[k]].type.id == TYPE_INTERVAL) return STRATA_OK;
        p->iscan.key_pos = pos;
        return STRATA_OK;
    }
    case PLAN_FILTER:
        for (uint32_t i = 0; i < n0; i++) c0[i] = need ? need[i] : 1;
        rc = refs(b, p->filter.pred, c0, 0, n0);
        break;
    case PLAN_PROJECT: /* the outputs no one reads need no input, and are not computed: a NULL
                        ** stands for them (a view's or subquery's unused column raises no error) */
        for (uint32_t i = 0; i < p->ncols && !rc; i++) {
            expr *e = p->project.exprs[i];
            if (!need || need[i]) {
                rc = refs(b, e, c0, 0, n0);
            } else if (e->kind != EXPR_COL && e->kind != EXPR_CONST) {
                sql_value none = {.type = e->type, .is_null = true};
                if (!(p->project.exprs[i] = bind_mk_const(b, none, e->off))) return nomem(b);
            }
        }
        break;
    case PLAN_LIMIT:
        for (uint32_t i = 0; i < n0; i++) c0[i] = need ? need[i] : 1;
        break;
    case PLAN_SORT:
        for (uint32_t i = 0; i < n0; i++) c0[i] = need ? need[i] : 1;
        for (uint32_t k = 0; k < p->sort.nkeys && !rc; k++) rc = refs(b, p->sort.keys[k].e, c0, 0, n0);
        break;
    case PLAN_AGG:
        rc = refs_all(b, p->agg.keys, p->agg.nkeys, c0, 0, n0);
        for (uint32_t a = 0; a < p->agg.naggs && !rc; a++) rc = refs(b, p->agg.aggs[a].arg, c0, 0, n0);
        break;
    case PLAN_HASH_JOIN:
    case PLAN_NL_JOIN:
    case PLAN_INDEX_JOIN: {
        uint32_t n1 = p->child[1]->ncols;
        uint8_t *c1 = bind_alloc0(b, n1 + 1);
        if (!c1) return nomem(b);
        for (uint32_t i = 0; i < n0; i++) c0[i] = need ? need[i] : 1;
        bool semi = p->join.kind == JK_SEMI || p->join.kind == JK_ANTI; /* the right side is not output */
        bool rsemi = p->join.kind == JK_RSEMI || p->join.kind == JK_RANTI; /* only the right side is */
        if (rsemi) memset(c0, 0, n0);
        for (uint32_t i = 0; i < n1; i++) c1[i] = semi ? 0 : need ? need[rsemi ? i : n0 + i] : 1;
        /* the build rows keep the columns read above and by the residual, not those only their
        ** keys read (the hash table has the keys) */
        uint8_t *keep = p->kind == PLAN_INDEX_JOIN ? NULL : bind_alloc0(b, n1 + 1);
        if (keep) memcpy(keep, c1, n1);
        else if (p->kind != PLAN_INDEX_JOIN) return nomem(b);
        if (keep && (rc = refs(b, p->join.pred, keep, n0, n1))) return rc;
        p->join.keep = keep;
        rc = refs_all(b, p->join.lkeys, p->join.nkeys, c0, 0, n0);
        if (!rc) rc = refs_all(b, p->join.rkeys, p->join.nkeys, c1, 0, n1);
        if (!rc) rc = refs(b, p->join.pred, c0, 0, n0);
        if (!rc) rc = refs(b, p->join.pred, c1, n0, n1);
        if (!rc) rc = prune(b, p->child[1], c1);
        if (!rc) rc = prune(b, p->child[0], c0);
        if (!rc) rc = join_filter_place(b, p);
        return rc;
    }
    case PLAN_VALUES:
    case PLAN_SERIES:
    case PLAN_STORAGE_INFO:
    case PLAN_EMPTY:
    case PLAN_FILE_SCAN:
    case PLAN_CTE_SCAN: return STRATA_OK;
    default: /* DISTINCT, set operations, DML, recursion: every input column counts */
        if (p->kind == PLAN_INSERT || p->kind == PLAN_UPDATE || p->kind == PLAN_DELETE) {
            if ((rc = refs_all(b, p->dml.returning, p->dml.nreturning, NULL, 0, 0)) ||
                (rc = refs_all(b, p->dml.conflict_values, p->dml.nconflict_set, NULL, 0, 0)) ||
                (rc = refs(b, p->dml.conflict_where, NULL, 0, 0)))
                return rc;
        }
        if ((rc = prune(b, p->child[0], NULL))) return rc;
        return prune(b, p->child[1], NULL);
    }
    if (rc) return rc;
    return prune(b, p->child[0], c0);
}

int optimize_prune(bind_ctx *b, plan_op *p) { return prune(b, p, NULL); }
