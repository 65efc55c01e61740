/*
** groupkeys.c -- GROUP BY keys that the other keys determine (group_keys; optimize.h).
**
** A key is determined by the others when every row with the same values of the others has the
** same value of it: a column of a table whose primary key the others include (GROUP BY c_custkey,
** c_name), and, through the equalities of the inner joins below the aggregation, a column of a
** table whose primary key equals a column the others determine (c_nationkey = n_nationkey: n_name
** follows c_custkey). Such a key does not split any group, so the group table tells groups
** apart by the others only (plan agg.nhash, vec_groups_identify) and keeps its value beside them,
** from a group's first row; the keys are reordered for that when they must (the determining ones
** first) and a projection above puts the columns back in their order. Hashing and comparing one
** integer key instead of seven, four of them wide strings, is a third of TPC-H Q10's GROUP BY.
**
** The facts it uses hold whatever the data: a primary key (or a unique index on NOT NULL columns)
** is enforced, so one of its values is one row of its scan; an equality of an inner hash or index
** join holds for every row it outputs, and only integers, dates, timestamps and decimals of one
** scale count (values that compare equal are then the same value; not so for -0.0 and 0.0). A
** column is followed down through filters, projections of columns and joins to the scan that
** produces it (a LEFT join's preserved side, a semi join's passed side); anything computed on the
** way, or below another aggregation, is not.
*/
#include <string.h>

#include "bind/bind_internal.h"
#include "optimize/optimize.h"

/* A table column as one scan produces it (col -1: the rowid; in a set, -2 stands for all of the
** scan's columns). */
typedef struct base_col {
    const plan_op *scan;
    int32_t col;
} base_col;

#define FD_MAX 256 /* columns and equalities looked at per aggregation; more are left out */

typedef struct fd_facts {
    base_col eq[FD_MAX][2]; /* equalities of inner joins below the aggregation */
    uint32_t neq;
    base_col set[FD_MAX]; /* the columns determined so far (fd_closure) */
    uint32_t nset;
} fd_facts;

/* base_of follows output column col of p down to the scan that produces it unchanged. */
static bool base_of(const plan_op *p, uint32_t col, base_col *out) {
    for (;;) {
        switch (p->kind) {
        case PLAN_SCAN:
            if (col < p->scan.ncols) return *out = (base_col){p, (int32_t)p->scan.cols[col]}, true;
            if (p->scan.with_rowid && col == p->scan.ncols) return *out = (base_col){p, -1}, true;
            return false;
        case PLAN_FILTER: p = p->child[0]; continue;
        case PLAN_PROJECT: {
            const expr *e = p->project.exprs[col];
            if (e->kind != EXPR_COL) return false;
            col = e->col;
            p = p->child[0];
            continue;
        }
        case PLAN_HASH_JOIN:
        case PLAN_NL_JOIN:
        case PLAN_INDEX_JOIN: {
            join_kind k = p->join.kind;
            uint32_t n0 = p->child[0]->ncols;
            if (k == JK_RSEMI || k == JK_RANTI) { /* the right side is output */
                p = p->child[1];
                continue;
            }
            if (col < n0 && (k == JK_INNER || k == JK_LEFT || k == JK_SEMI || k == JK_ANTI)) {
                p = p->child[0];
                continue;
            }
            if (col >= n0 && k == JK_INNER) {
                col -= n0;
                p = p->child[1];
                continue;
            }
            return false;
        }
        default: return false;
        }
    }
}

static bool same_col(base_col a, base_col b) {
    return a.scan == b.scan && a.col == b.col;
}

static bool in_set(const fd_facts *f, base_col c) {
    for (uint32_t i = 0; i < f->nset; i++)
        if (same_col(f->set[i], c)) return true;
    return false;
}

/* has: c is determined (itself, or all of its scan's columns are) */
static bool has(const fd_facts *f, base_col c) {
    return in_set(f, c) || in_set(f, (base_col){c.scan, -2});
}

static void add_to_set(fd_facts *f, base_col c) {
    if (f->nset < FD_MAX && !in_set(f, c)) f->set[f->nset++] = c;
}

/* exact_eq: two values of type t that compare equal are the same value */
static bool exact_eq(sql_type t) {
    return sql_type_is_integer(t.id) || t.id == TYPE_DATE || t.id == TYPE_TIMESTAMP || t.id == TYPE_DECIMAL;
}

/* collect_eqs adds the key equalities of the inner joins of p's rows (through what base_of
** follows) to f. */
static void collect_eqs(const plan_op *p, fd_facts *f) {
    switch (p->kind) {
    case PLAN_FILTER:
    case PLAN_PROJECT: collect_eqs(p->child[0], f); return;
    case PLAN_HASH_JOIN:
    case PLAN_NL_JOIN:
    case PLAN_INDEX_JOIN: {
        join_kind k = p->join.kind;
        if (k == JK_RSEMI || k == JK_RANTI) {
            collect_eqs(p->child[1], f);
            return;
        }
        collect_eqs(p->child[0], f);
        if (k != JK_INNER) return;
        collect_eqs(p->child[1], f);
        for (uint32_t i = 0; p->kind != PLAN_NL_JOIN && i < p->join.nkeys && f->neq < FD_MAX; i++) {
            const expr *l = p->join.lkeys[i], *r = p->join.rkeys[i];
            base_col a, b;
            if (l->kind == EXPR_COL && r->kind == EXPR_COL && sql_type_equal(l->type, r->type) && exact_eq(l->type) &&
                base_of(p->child[0], l->col, &a) && base_of(p->child[1], r->col, &b)) {
                f->eq[f->neq][0] = a, f->eq[f->neq][1] = b;
                f->neq++;
            }
        }
        return;
    }
    default: return;
    }
}

/* covers_unique says whether f determines the rowid column of scan's table, or its primary key,
** or a unique index's NOT NULL columns (each value of them one row of the scan). */
static bool covers_unique(const fd_facts *f, const plan_op *scan) {
    const table_def *td = scan->scan.table;
    if (td->rowid_col >= 0 && (has(f, (base_col){scan, td->rowid_col}) || has(f, (base_col){scan, -1})))
        return true;
    for (uint32_t i = 0; i < td->nindexes; i++) {
        const index_def *ix = td->indexes[i];
        if (!ix->unique) continue;
        bool all = true;
        for (uint32_t k = 0; k < ix->nkeys && all; k++)
            all = ix->key_cols[k] >= 0 && (ix->primary || td->cols[ix->key_cols[k]].not_null) &&
                  has(f, (base_col){scan, ix->key_cols[k]});
        if (all) return true;
    }
    return false;
}

/* fd_closure grows f->set to every column it determines: across equalities, and to all columns
** of a scan whose unique key it holds. */
static void fd_closure(fd_facts *f) {
    for (bool grew = true; grew;) {
        uint32_t before = f->nset;
        for (uint32_t i = 0; i < f->neq; i++) {
            if (has(f, f->eq[i][0])) add_to_set(f, f->eq[i][1]);
            if (has(f, f->eq[i][1])) add_to_set(f, f->eq[i][0]);
        }
        for (uint32_t i = 0; i < f->nset; i++) {
            const plan_op *s = f->set[i].scan;
            if (!in_set(f, (base_col){s, -2}) && covers_unique(f, s)) add_to_set(f, (base_col){s, -2}); /* all of s */
        }
        grew = f->nset != before;
    }
}

/* determined says whether column c follows from the keys marked in keep (traced to cols[]). */
static bool determined(fd_facts *f, const base_col *cols, const bool *traced, const bool *keep, uint32_t nkeys,
                       base_col c) {
    f->nset = 0;
    for (uint32_t k = 0; k < nkeys; k++)
        if (keep[k] && traced[k]) add_to_set(f, cols[k]);
    fd_closure(f);
    return has(f, c);
}

/* reduce_agg makes aggregation *slot tell its groups apart by the keys the others do not follow
** from: they go first (nhash of them), and when that reorders the keys a projection above puts
** the columns back. */
static int reduce_agg(bind_ctx *b, plan_op **slot) {
    plan_op *a = *slot;
    uint32_t nk = a->agg.nkeys;
    if (nk < 2 || nk > 64 || a->agg.nhash) return STRATA_OK;
    fd_facts *f = bind_alloc0(b, sizeof *f);
    if (!f) return err_set(b->err, STRATA_NOMEM, "out of memory (GROUP BY keys)");
    base_col cols[64];
    bool traced[64], keep[64];
    collect_eqs(a->child[0], f);
    uint32_t left = nk;
    for (uint32_t k = 0; k < nk; k++) {
        const expr *e = a->agg.keys[k];
        traced[k] = e->kind == EXPR_COL && base_of(a->child[0], e->col, &cols[k]);
        keep[k] = true;
    }
    for (uint32_t k = nk; k-- > 0;) { /* the last keys first: the leading ones are mostly the keys */
        if (!traced[k]) continue;
        keep[k] = false;
        if (determined(f, cols, traced, keep, nk, cols[k])) left--;
        else keep[k] = true;
    }
    if (left == nk) return STRATA_OK;
    uint32_t order[64], n = 0; /* the kept keys, then the others, each in their order */
    for (uint32_t k = 0; k < nk; k++)
        if (keep[k]) order[n++] = k;
    for (uint32_t k = 0; k < nk; k++)
        if (!keep[k]) order[n++] = k;
    bool moved = false;
    for (uint32_t k = 0; k < nk; k++) moved |= order[k] != k;
    a->agg.nhash = left;
    if (!moved) return STRATA_OK;
    plan_op *proj = bind_new_op(b, PLAN_PROJECT, a->ncols);
    expr **keys = bind_alloc0(b, nk * sizeof *keys), **exprs = bind_alloc0(b, a->ncols * sizeof *exprs);
    sql_type *types = bind_alloc0(b, a->ncols * sizeof *types);
    if (!proj || !keys || !exprs || !types) return err_set(b->err, STRATA_NOMEM, "out of memory (GROUP BY keys)");
    memcpy(types, a->types, a->ncols * sizeof *types);
    for (uint32_t c = 0; c < a->ncols; c++) {
        uint32_t from = c;
        for (uint32_t k = 0; c < nk && k < nk; k++)
            if (order[k] == c) from = k;
        if (!(exprs[c] = bind_mk(b, EXPR_COL, types[c], 0, 0)))
            return err_set(b->err, STRATA_NOMEM, "out of memory (GROUP BY keys)");
        exprs[c]->col = from;
        proj->types[c] = types[c];
        if (a->names) proj->names[c] = a->names[c];
    }
    for (uint32_t k = 0; k < nk; k++) keys[k] = a->agg.keys[order[k]], a->types[k] = types[order[k]];
    a->agg.keys = keys;
    proj->project.exprs = exprs;
    proj->child[0] = a;
    proj->est_rows = a->est_rows;
    *slot = proj;
    return STRATA_OK;
}

int group_keys(bind_ctx *b, plan_op **p) {
    if (!*p) return STRATA_OK;
    int rc;
    if ((rc = group_keys(b, &(*p)->child[0])) || (rc = group_keys(b, &(*p)->child[1]))) return rc;
    return (*p)->kind == PLAN_AGG ? reduce_agg(b, p) : STRATA_OK;
}
