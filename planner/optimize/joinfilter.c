/*
** joinfilter.c -- placing join filters: a hash join's build keys, handed down to the scan that
** its probe key comes from.
**
** A hash join that drops the probe rows without a match (INNER; RIGHT, whose probe side is the
** left; SEMI; RIGHT_SEMI and RIGHT_ANTI, whose probe rows only mark build rows) would drop every probe row whose key is not among its build keys. When a key is
** a column that some scan below the probe side produces unchanged (through filters,
** projections of plain columns, GROUP BY keys, the outputs of other joins), the scan can drop
** such rows itself (by each key column alone when the key has several), before any operator
** between works on them, and skip whole row groups by the
** keys' range: in TPC-H a lineitem scan below a join with a few hundred parts passes a few
** thousand of its six million rows on. Below another join the key column is either its source
** row's value or NULL (an outer join's missing side), and a NULL key is dropped by this join
** anyway, so filtering that source changes no row this join outputs.
**
** exec/op_join.c fills the filter (plan.h's join_filter: min, max, an exact bitmap of the keys or
** a Bloom filter of their hashes) when the join's build side is complete, which is before its
** probe side produces a row (the pipelines below the probe side run after the build pipeline),
** and the scan applies it.
*/
#include <string.h>

#include "optimize/optimize.h"

/* scan_of follows output column *col of p down to the scan that produces it unchanged, setting
** *col to the scan's output column; NULL when it is computed on the way, or comes from an input
** whose rows do not all pass up (a LIMIT), or a side that is not output. */
static plan_op *scan_of(plan_op *p, uint32_t *col) {
    for (;;) {
        switch (p->kind) {
        case PLAN_SCAN: {
            bool lookup = p->scan.lo_expr && p->scan.lo_expr == p->scan.hi_expr; /* one row: nothing to gain */
            return *col < p->scan.ncols && (!p->scan.need || p->scan.need[*col]) && !lookup ? p : NULL;
        }
        case PLAN_FILTER: break;
        case PLAN_SORT:
            if (p->sort.limit >= 0) return NULL;
            break;
        case PLAN_PROJECT: {
            const expr *e = p->project.exprs[*col];
            if (e->kind != EXPR_COL) return NULL;
            *col = e->col;
            break;
        }
        case PLAN_AGG: {
            if (*col >= p->agg.nkeys || p->agg.keys[*col]->kind != EXPR_COL) return NULL;
            *col = p->agg.keys[*col]->col;
            break;
        }
        case PLAN_HASH_JOIN:
        case PLAN_NL_JOIN:
        case PLAN_INDEX_JOIN: {
            uint32_t n0 = p->child[0]->ncols;
            if (p->join.kind == JK_RSEMI || p->join.kind == JK_RANTI) { /* the right side is output */
                p = p->child[1];
                continue;
            }
            if (*col < n0) break;
            if (p->kind == PLAN_INDEX_JOIN || p->join.kind == JK_SEMI || p->join.kind == JK_ANTI) return NULL;
            *col -= n0;
            p = p->child[1];
            continue;
        }
        default: return NULL;
        }
        p = p->child[0];
    }
}

/* place_one gives key k of hash join j a join filter when its probe column comes from a scan. */
static int place_one(bind_ctx *b, plan_op *j, uint32_t k) {
    const expr *key = j->join.lkeys[k];
    if (key->kind != EXPR_COL) return STRATA_OK;
    uint32_t col = key->col;
    plan_op *s = scan_of(j->child[0], &col);
    if (!s || s->scan.nfilters >= SCAN_MAX_FILTERS || !sql_type_equal(s->types[col], key->type)) return STRATA_OK;
    uint32_t n = s->scan.nfilters;
    join_filter *f = arena_alloc(b->mem, sizeof *f);
    uint32_t *cols = arena_alloc(b->mem, (n + 1) * sizeof *cols);
    join_filter **filters = arena_alloc(b->mem, (n + 1) * sizeof *filters);
    if (!f || !cols || !filters) return err_set(b->err, STRATA_NOMEM, "out of memory (join filter)");
    memset(f, 0, sizeof *f);
    if (n) {
        memcpy(cols, s->scan.filter_cols, n * sizeof *cols);
        memcpy(filters, s->scan.filters, n * sizeof *filters);
    }
    cols[n] = col, filters[n] = f;
    s->scan.filter_cols = cols, s->scan.filters = filters, s->scan.nfilters = n + 1;
    j->join.filters[k] = f;
    return STRATA_OK;
}

int join_filter_place(bind_ctx *b, plan_op *j) {
    if (j->kind != PLAN_HASH_JOIN || !j->join.nkeys || j->join.filters || j->join.null_aware) return STRATA_OK;
    join_kind kind = j->join.kind;
    if (kind == JK_LEFT || kind == JK_FULL || kind == JK_ANTI) return STRATA_OK; /* their probe rows pass */
    if (!(j->join.filters = arena_alloc(b->mem, j->join.nkeys * sizeof *j->join.filters)))
        return err_set(b->err, STRATA_NOMEM, "out of memory (join filter)");
    memset(j->join.filters, 0, j->join.nkeys * sizeof *j->join.filters);
    for (uint32_t k = 0; k < j->join.nkeys; k++) {
        int rc = place_one(b, j, k);
        if (rc) return rc;
    }
    return STRATA_OK;
}
