/*
** op_dml.c -- INSERT, UPDATE and DELETE (operator.h): sinks of the rows to insert, or of the rowids
** and new values of the rows to change, that check the table's constraints (NOT NULL, CHECK, keys,
** foreign keys), maintain its indexes, take ON CONFLICT, write a bulk INSERT's rows as row groups
** of the column store, send COPY ... FROM's refused rows to its REJECTS file, and are the source
** of their RETURNING rows.
*/
#include "exec/operator.h"

#include "../../colstore/rowgroup.h"
#include "bind/bind.h"
#include "load/copy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BULK_UNDECIDED, BULK_ON, BULK_OFF }; /* dml_state.bulk_mode */
#define BULK_MIN_ROWS (VECTOR_SIZE / 8) /* the smallest input chunk that starts INSERT's bulk path */
#define BULK_TAIL_SHARE 8 /* a bulk INSERT's last rows make a row group from 1/8 of a full one ... */
#define BULK_TAIL_MIN (4 * VECTOR_SIZE) /* ... and from 4 vectors */
#define BULK_JOBS_MAX 16 /* row groups a bulk INSERT encodes at a time: SET threads, up to this */

typedef struct dml_state {
    vec_rows pending;  /* input rows held until the input ends (see dml_must_hold) */
    bool hold;
    vec_rows returned; /* RETURNING rows */
    uint32_t emit_chunk;
    bool done;
    expr_state **checks;      /* bound CHECK constraints */
    expr_state ***index_keys; /* per index: bound key expressions */
    expr_state **ex;          /* the node's: RETURNING, then DO UPDATE's SET values and WHERE */
    data_chunk pair;     /* ON CONFLICT DO UPDATE: the existing row, then the proposed one */
    data_chunk upd;      /* ... and the row it becomes: rowid, then the table's columns */
    int64_t *aff;        /* ... rowids this statement inserted or updated (open addressing) */
    uint8_t *aff_used;
    uint32_t aff_cap, aff_n;
    data_chunk old;      /* UPDATE/DELETE: rows as they were */
    data_chunk row;      /* the table columns of the input (the part after the rowid) */
    int64_t *rowids;
    btree_buf key;
    rowgroup_job *bulk_open; /* INSERT's bulk path (bulk_add): the row group taking new rows */
    rowgroup_job *bulk_jobs[BULK_JOBS_MAX]; /* ... those before it, being encoded while rows come,
                                            ** oldest first: bulk_njobs of them */
    uint32_t bulk_njobs;
    size_t bulk_open_charged, bulk_jobs_charged[BULK_JOBS_MAX]; /* ... their memory charged to bulk_budget */
    vec_budget *bulk_budget;                    /* ... the run's query memory */
    data_chunk bulk_out;     /* ... rows read back for the row tree */
    int64_t bulk_last;       /* ... the largest rowid of the table and of the rows taken */
    uint8_t bulk_mode;       /* BULK_UNDECIDED, BULK_ON or BULK_OFF for this run */
    int32_t fail_row;        /* INSERT: the input row a constraint error is about; -1 none known */
    arena mem;           /* the bound checks and index keys: they stay while the plan does */
    uint32_t nchecks, nindexes, *index_nkeys; /* their counts (the table's definition may go first) */
} dml_state;

/* dml_must_hold says whether a DML operator must see all its input before changing the table:
** when the input reads the table itself, changing it while the scan runs could show the scan
** rows the statement itself wrote (an UPDATE that moves rows would meet them again). */
static bool dml_must_hold(const plan_op *p, const table_def *td) {
    if (!p) return false;
    if ((p->kind == PLAN_SCAN && p->scan.table == td) || (p->kind == PLAN_INDEX_SCAN && p->iscan.table == td)) return true;
    return dml_must_hold(p->child[0], td) || dml_must_hold(p->child[1], td);
}

static void dml_close(op_node *nd, bool keep);
static void bulk_drop(dml_state *s);

/* dml_state_new makes what a DML operator keeps between runs of its plan: the CHECK and index
** key expressions bound to the table, the chunks of ON CONFLICT DO UPDATE, the rowid buffer. */
static int dml_state_new(exec_ctx *x, op_node *nd, dml_state **out) {
    const plan_op *p = nd->op;
    dml_state *s = calloc(1, sizeof *s);
    if (!s) return exec_nomem(x);
    nd->state = s;
    *out = s;
    arena_init(&s->mem, 0);
    table_def *td = p->dml.table;
    bind_ctx b = {.cat = x->cat, .mem = &s->mem, .sql = "", .sqllen = 0, .err = x->err};
    int rc;
    s->checks = arena_alloc(&s->mem, (td->nchecks + 1) * sizeof *s->checks);
    s->index_keys = arena_alloc(&s->mem, (td->nindexes + 1) * sizeof *s->index_keys);
    s->index_nkeys = arena_alloc(&s->mem, (td->nindexes + 1) * sizeof *s->index_nkeys);
    s->rowids = vec_scratch_alloc(VECTOR_SIZE * sizeof *s->rowids);
    if (!s->checks || !s->index_keys || !s->index_nkeys || !s->rowids) return exec_nomem(x);
    memset(s->checks, 0, (td->nchecks + 1) * sizeof *s->checks);
    memset(s->index_keys, 0, (td->nindexes + 1) * sizeof *s->index_keys);
    s->nchecks = td->nchecks;
    s->nindexes = td->nindexes;
    expr *bound;
    for (uint32_t i = 0; i < td->nchecks; i++) {
        if ((rc = bind_table_expr(&b, td, td->checks[i].expr, &bound))) return rc;
        if ((rc = expr_state_make(bound, x->err, &s->checks[i]))) return rc;
    }
    for (uint32_t i = 0; i < td->nindexes; i++) {
        index_def *ix = td->indexes[i];
        s->index_keys[i] = arena_alloc(&s->mem, ix->nkeys * sizeof **s->index_keys);
        s->index_nkeys[i] = 0;
        if (!s->index_keys[i]) return exec_nomem(x);
        memset(s->index_keys[i], 0, ix->nkeys * sizeof **s->index_keys);
        s->index_nkeys[i] = ix->nkeys;
        for (uint32_t k = 0; k < ix->nkeys; k++) {
            if ((rc = bind_table_expr(&b, td, ix->keys[k], &bound))) return rc;
            if ((rc = expr_state_make(bound, x->err, &s->index_keys[i][k]))) return rc;
        }
    }
    s->hold = dml_must_hold(p->child[0], td);
    if (p->dml.on_conflict_update) {
        sql_type *t2 = arena_alloc(&s->mem, (2 * td->ncols + 1) * sizeof *t2);
        if (!t2) return exec_nomem(x);
        t2[0] = sql_type_make(TYPE_BIGINT);
        for (uint32_t i = 0; i < td->ncols; i++) t2[1 + i] = td->types[i];
        if ((rc = chunk_init(&s->upd, t2, td->ncols + 1, x->err))) return rc;
        for (uint32_t i = 0; i < 2 * td->ncols; i++) t2[i] = td->types[i % td->ncols];
        if ((rc = chunk_init(&s->pair, t2, 2 * td->ncols, x->err))) return rc;
    }
    s->row.ncols = td->ncols;
    return STRATA_OK;
}

static int dml_open(exec_ctx *x, op_node *nd) {
    const plan_op *p = nd->op;
    dml_state *s = nd->state; /* kept from the plan's last run (close with keep), or new */
    int rc;
    if (!s && (rc = dml_state_new(x, nd, &s))) {
        dml_close(nd, false); /* nothing half-made is kept for the next run */
        return rc;
    }
    s->ex = nd->ex;
    s->emit_chunk = 0;
    s->done = false;
    if (p->dml.nreturning && (rc = exec_rows_init(x, &s->returned, p->types, p->ncols))) return rc;
    if (s->hold && (rc = exec_rows_init(x, &s->pending, p->child[0]->types, p->child[0]->ncols))) return rc;
    return STRATA_OK;
}

/* dml_old gives s->old, the chunk that rows read back from the table go to, empty (made on
** first use: most INSERTs never read a row back). */
static int dml_old(exec_ctx *x, const plan_op *p, dml_state *s) {
    if (!s->old.cols && p->dml.table->ncols) return chunk_init(&s->old, p->dml.table->types, p->dml.table->ncols, x->err);
    chunk_reset(&s->old);
    return STRATA_OK;
}

/* dml_close ends a run: the rows it held go; with keep the rest stays for the plan's next run. */
static void dml_close(op_node *nd, bool keep) {
    dml_state *s = nd->state;
    if (!s) return;
    vec_rows_free(&s->returned);
    vec_rows_free(&s->pending);
    s->bulk_mode = BULK_UNDECIDED;
    bulk_drop(s); /* a run that failed: its row groups go unstored */
    free(s->aff);
    free(s->aff_used);
    s->aff = NULL;
    s->aff_used = NULL;
    s->aff_cap = s->aff_n = 0;
    if (keep) {
        if (s->old.cols) chunk_reset(&s->old);
        return;
    }
    nd->state = NULL;
    for (uint32_t i = 0; i < s->nchecks && s->checks; i++) expr_state_free(s->checks[i]);
    for (uint32_t i = 0; i < s->nindexes && s->index_keys && s->index_nkeys; i++)
        for (uint32_t k = 0; k < s->index_nkeys[i] && s->index_keys[i]; k++) expr_state_free(s->index_keys[i][k]);
    chunk_free(&s->pair);
    chunk_free(&s->upd);
    chunk_free(&s->old);
    chunk_free(&s->bulk_out);
    btree_buf_free(&s->key);
    vec_scratch_free(s->rowids, VECTOR_SIZE * sizeof *s->rowids);
    arena_free(&s->mem);
    free(s);
}

static int constraint_error(exec_ctx *x, const char *fmt, const char *a, const char *b) {
    return err_set(x->err, STRATA_CONSTRAINT, fmt, a, b);
}

/* key_text renders row r's values of vectors keys[0..n) as "a, b" for messages. */
static void key_text(vector *const *keys, uint32_t n, uint32_t r, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = 0;
    for (uint32_t k = 0; k < n && len < cap; k++) {
        sql_value v;
        vec_get_value(keys[k], r, &v);
        if (k) len += (size_t)snprintf(buf + len, cap - len, ", ");
        if (len < cap) len += value_to_text(&v, buf + len, cap - len);
    }
}

/* check_rows enforces NOT NULL and CHECK over the count rows of row (the table's columns). */
static int check_rows(exec_ctx *x, const plan_op *p, dml_state *s, data_chunk *row) {
    table_def *td = p->dml.table;
    for (uint32_t c = 0; c < td->ncols; c++) {
        if (!td->cols[c].not_null) continue;
        for (uint32_t r = 0; r < row->count; r++)
            if (vec_is_null(&row->cols[c], r) && (s->fail_row = (int32_t)r) >= 0)
                return err_set(x->err, STRATA_CONSTRAINT,
                               "null value in column \"%s\" of relation \"%s\" violates not-null constraint",
                               td->cols[c].name, td->name);
    }
    for (uint32_t i = 0; i < td->nchecks; i++) {
        int rc = expr_eval(x, s->checks[i], row, row->count);
        if (rc) return rc;
        vector *v = s->checks[i]->result;
        for (uint32_t r = 0; r < row->count; r++)
            if (!vec_is_null(v, r) && !((const uint8_t *)v->data)[v->sel[r]] && (s->fail_row = (int32_t)r) >= 0)
                return constraint_error(x, "new row for relation \"%s\" violates check constraint \"%s\"", td->name,
                                        td->checks[i].name);
    }
    return STRATA_OK;
}

/* index_keys_eval evaluates index i's keys over row into vecs. */
static int index_keys_eval(exec_ctx *x, dml_state *s, index_def *ix, uint32_t i, data_chunk *row, vector **vecs) {
    for (uint32_t k = 0; k < ix->nkeys; k++) {
        int rc = expr_eval(x, s->index_keys[i][k], row, row->count);
        if (rc) return rc;
        vecs[k] = s->index_keys[i][k]->result;
    }
    return STRATA_OK;
}

static bool keys_have_null(vector *const *vecs, uint32_t n, uint32_t r) {
    for (uint32_t k = 0; k < n; k++)
        if (vec_is_null(vecs[k], r)) return true;
    return false;
}

static int encode_key(exec_ctx *x, dml_state *s, vector *const *vecs, uint32_t n, uint32_t r) {
    s->key.len = 0;
    for (uint32_t k = 0; k < n; k++) {
        int rc = key_encode_row(&s->key, vecs[k], 1, r, x->err);
        if (rc) return rc;
    }
    return STRATA_OK;
}

/* index_update adds (add) or removes the index entries of rows of row with rowids. Adding to a
** unique index checks for an existing entry first; *conflict (may be NULL) then gets the row
** instead of an error. */
static int index_update(exec_ctx *x, const plan_op *p, dml_state *s, data_chunk *row, const int64_t *rowids, bool add,
                        uint8_t *skip) {
    table_def *td = p->dml.table;
    for (uint32_t i = 0; i < td->nindexes; i++) {
        index_def *ix = td->indexes[i];
        vector *vecs[ix->nkeys];
        int rc = index_keys_eval(x, s, ix, i, row, vecs);
        if (rc) return rc;
        for (uint32_t r = 0; r < row->count; r++) {
            if (skip && skip[r]) continue;
            if ((rc = encode_key(x, s, vecs, ix->nkeys, r))) return rc;
            if (!add) {
                rc = index_delete(x->txn, ix->root, s->key.data, s->key.len, rowids[r]);
                if (rc && rc != STRATA_NOTFOUND) return exec_table_error(x, rc);
                continue;
            }
            if (ix->unique && !keys_have_null(vecs, ix->nkeys, r)) {
                rc = index_insert_unique(x->txn, ix->root, s->key.data, s->key.len, rowids[r]);
                if (rc == STRATA_CONSTRAINT) {
                    s->fail_row = (int32_t)r;
                    char kt[200], names[200];
                    size_t len = 0;
                    names[0] = 0;
                    for (uint32_t k = 0; k < ix->nkeys; k++)
                        len += (size_t)snprintf(names + len, sizeof names - len > 0 ? sizeof names - len : 0, "%s%s",
                                                k ? ", " : "", ix->key_cols[k] >= 0 ? td->cols[ix->key_cols[k]].name : "expr");
                    key_text(vecs, ix->nkeys, r, kt, sizeof kt);
                    return err_set(x->err, STRATA_CONSTRAINT,
                                   "duplicate key value violates unique constraint \"%s\"\nDETAIL: Key (%s)=(%s) already exists.",
                                   ix->name, names, kt);
                }
                if (rc) return exec_table_error(x, rc);
                continue;
            }
            if ((rc = index_insert(x->txn, ix->root, s->key.data, s->key.len, rowids[r]))) return exec_table_error(x, rc);
        }
    }
    return STRATA_OK;
}

/* find_conflict says whether row r conflicts with an existing row on the ON CONFLICT arbiter (the
** rowid or one index), or without one on the rowid or any unique index; *other gets that row. */
static int find_conflict(exec_ctx *x, const plan_op *p, dml_state *s, data_chunk *row, uint32_t r, int64_t rowid,
                         bool *conflict, int64_t *other) {
    table_def *td = p->dml.table;
    bool any = !p->dml.conflict_rowid && !p->dml.conflict_index;
    *conflict = false;
    if (td->rowid_col >= 0 && (any || p->dml.conflict_rowid)) {
        uint8_t found = 0;
        uint32_t none = 0;
        int rc = dml_old(x, p, s);
        if (!rc) rc = table_get(x->txn, &td->desc, &none, 0, &rowid, 1, &s->old, &found);
        if (rc) return exec_table_error(x, rc);
        if (found) {
            *conflict = true;
            *other = rowid;
            return STRATA_OK;
        }
    }
    for (uint32_t i = 0; i < td->nindexes; i++) {
        index_def *ix = td->indexes[i];
        if (!ix->unique || (!any && ix != p->dml.conflict_index)) continue;
        vector *vecs[ix->nkeys];
        int rc = index_keys_eval(x, s, ix, i, row, vecs);
        if (rc) return rc;
        if (keys_have_null(vecs, ix->nkeys, r)) continue;
        if ((rc = encode_key(x, s, vecs, ix->nkeys, r))) return rc;
        rc = index_find_first(x->txn, ix->root, s->key.data, s->key.len, other);
        if (rc == STRATA_OK) {
            *conflict = true;
            return STRATA_OK;
        }
        if (rc != STRATA_NOTFOUND) return exec_table_error(x, rc);
    }
    return STRATA_OK;
}

/* The rowids an upsert touched: DO UPDATE may not change a row twice in one statement. */
static int affected_add(exec_ctx *x, dml_state *s, int64_t rowid, bool *was) {
    if (2 * (s->aff_n + 1) > s->aff_cap) {
        uint32_t nc = s->aff_cap ? 2 * s->aff_cap : 1024;
        int64_t *na = malloc(nc * sizeof *na);
        uint8_t *nu = calloc(nc, 1);
        if (!na || !nu) {
            free(na);
            free(nu);
            return exec_nomem(x);
        }
        for (uint32_t i = 0; i < s->aff_cap; i++)
            if (s->aff_used[i]) {
                uint32_t h = (uint32_t)vec_hash_i64(s->aff[i]) & (nc - 1);
                while (nu[h]) h = (h + 1) & (nc - 1);
                nu[h] = 1, na[h] = s->aff[i];
            }
        free(s->aff);
        free(s->aff_used);
        s->aff = na, s->aff_used = nu, s->aff_cap = nc;
    }
    uint32_t h = (uint32_t)vec_hash_i64(rowid) & (s->aff_cap - 1);
    for (; s->aff_used[h]; h = (h + 1) & (s->aff_cap - 1))
        if (s->aff[h] == rowid) {
            *was = true;
            return STRATA_OK;
        }
    s->aff_used[h] = 1;
    s->aff[h] = rowid;
    s->aff_n++;
    *was = false;
    return STRATA_OK;
}

static int update_chunk(exec_ctx *x, const plan_op *p, dml_state *s, data_chunk *in);

/* upsert_update applies DO UPDATE to existing row `other` for proposed row r of in. */
static int upsert_update(exec_ctx *x, const plan_op *p, dml_state *s, data_chunk *in, uint32_t r, int64_t other) {
    table_def *td = p->dml.table;
    uint32_t n = td->ncols;
    bool was;
    int rc = affected_add(x, s, other, &was);
    if (rc) return rc;
    if (was)
        return err_set(x->err, STRATA_ERROR,
                       "ON CONFLICT DO UPDATE command cannot affect row a second time\nHINT: Ensure that no rows "
                       "proposed for insertion within the same command have duplicate constrained values.");
    uint32_t *all = arena_alloc(x->mem, n * sizeof *all);
    if (!all) return exec_nomem(x);
    for (uint32_t c = 0; c < n; c++) all[c] = c;
    if ((rc = dml_old(x, p, s))) return rc;
    if ((rc = table_get(x->txn, &td->desc, all, n, &other, 1, &s->old, NULL))) return exec_table_error(x, rc);
    if (s->old.count != 1) return err_set(x->err, STRATA_CORRUPT, "row of \"%s\" vanished during ON CONFLICT", td->name);
    chunk_reset(&s->pair);
    sel_t rr = r;
    for (uint32_t c = 0; c < n; c++) {
        if ((rc = vec_copy(&s->pair.cols[c], 0, &s->old.cols[c], NULL, 1, x->err)) ||
            (rc = vec_copy(&s->pair.cols[n + c], 0, &in->cols[c], &rr, 1, x->err)))
            return rc;
    }
    s->pair.count = 1;
    if (p->dml.conflict_where) {
        sel_t sel[1];
        uint32_t m;
        if ((rc = expr_select(x, s->ex[p->dml.nreturning + p->dml.nconflict_set], &s->pair, 1, sel, &m))) return rc;
        if (!m) return STRATA_OK; /* the WHERE of DO UPDATE keeps the row as it is */
    }
    chunk_reset(&s->upd);
    ((int64_t *)s->upd.cols[0].data)[0] = other;
    for (uint32_t c = 0; c < n; c++)
        if ((rc = vec_copy(&s->upd.cols[1 + c], 0, &s->old.cols[c], NULL, 1, x->err))) return rc;
    for (uint32_t k = 0; k < p->dml.nconflict_set; k++) {
        expr_state *e = s->ex[p->dml.nreturning + k];
        if ((rc = expr_eval(x, e, &s->pair, 1))) return rc;
        vector *dst = &s->upd.cols[1 + p->dml.conflict_cols[k]];
        vec_reset(dst);
        if ((rc = vec_copy(dst, 0, e->result, NULL, 1, x->err))) return rc;
    }
    s->upd.count = 1;
    return update_chunk(x, p, s, &s->upd);
}

/* fk_check: every foreign key of rows of row must find its referenced row. */
static int fk_check(exec_ctx *x, const plan_op *p, dml_state *s, data_chunk *row) {
    table_def *td = p->dml.table;
    for (uint32_t f = 0; f < td->nfks; f++) {
        fk_def *fk = &td->fks[f];
        table_def *rt = catalog_table(x->cat, fk->ref_table);
        if (!rt) return err_set(x->err, STRATA_ERROR, "relation \"%s\" does not exist", fk->ref_table);
        index_def *ix = NULL;
        bool by_rowid = fk->ncols == 1 && rt->rowid_col == (int32_t)fk->ref_cols[0];
        for (uint32_t i = 0; i < rt->nindexes && !by_rowid && !ix; i++) {
            index_def *c = rt->indexes[i];
            if (!c->unique || c->nkeys != fk->ncols) continue;
            bool same = true;
            for (uint32_t k = 0; k < fk->ncols; k++) same &= c->key_cols[k] == (int32_t)fk->ref_cols[k];
            if (same) ix = c;
        }
        if (!by_rowid && !ix)
            return err_set(x->err, STRATA_ERROR, "there is no unique constraint matching given keys for referenced table \"%s\"", rt->name);
        for (uint32_t r = 0; r < row->count; r++) {
            vector *vecs[fk->ncols];
            for (uint32_t k = 0; k < fk->ncols; k++) vecs[k] = &row->cols[fk->cols[k]];
            if (keys_have_null(vecs, fk->ncols, r)) continue;
            int rc;
            bool found;
            if (by_rowid) {
                sql_value v;
                vec_get_value(vecs[0], r, &v);
                uint8_t fnd = 0;
                uint32_t none = 0;
                if ((rc = dml_old(x, p, s))) return rc;
                rc = table_get(x->txn, &rt->desc, &none, 0, &v.v.i, 1, &s->old, &fnd);
                if (rc) return exec_table_error(x, rc);
                found = fnd;
            } else {
                /* the key is encoded as the referenced columns' types */
                s->key.len = 0;
                for (uint32_t k = 0; k < fk->ncols; k++) {
                    sql_value v, cv;
                    strata_err tmp;
                    err_clear(&tmp);
                    vec_get_value(vecs[k], r, &v);
                    if (value_cast(&v, rt->cols[fk->ref_cols[k]].type, false, x->mem, &cv, &tmp))
                        return err_set(x->err, STRATA_CONSTRAINT, "%s", tmp.msg);
                    if ((rc = key_encode(&s->key, &cv, x->err))) return rc;
                }
                int64_t other;
                rc = index_find_first(x->txn, ix->root, s->key.data, s->key.len, &other);
                if (rc && rc != STRATA_NOTFOUND) return exec_table_error(x, rc);
                found = rc == STRATA_OK;
            }
            if (!found) {
                char kt[200];
                s->fail_row = (int32_t)r;
                key_text(vecs, fk->ncols, r, kt, sizeof kt);
                return err_set(x->err, STRATA_CONSTRAINT,
                               "insert or update on table \"%s\" violates foreign key constraint \"%s\"\nDETAIL: Key (%s)=(%s) is not present in table \"%s\".",
                               td->name, fk->name, td->cols[fk->cols[0]].name, kt, rt->name);
            }
        }
    }
    return STRATA_OK;
}

/* fk_restrict: rows about to disappear (or change key) must not be referenced. */
static int fk_restrict(exec_ctx *x, const plan_op *p, data_chunk *old) {
    table_def *td = p->dml.table;
    for (uint32_t t = 0; t < x->cat->ntables; t++) {
        table_def *ct = x->cat->tables[t];
        for (uint32_t f = 0; f < ct->nfks; f++) {
            fk_def *fk = &ct->fks[f];
            if (strcmp(fk->ref_table, td->name)) continue;
            /* scan the referencing table for any row whose key equals one of old's keys */
            table_scan *sc;
            data_chunk ch;
            sql_type types[fk->ncols];
            for (uint32_t k = 0; k < fk->ncols; k++) types[k] = ct->cols[fk->cols[k]].type;
            int rc = chunk_init(&ch, types, fk->ncols, x->err);
            if (rc) return rc;
            if ((rc = table_scan_open(x->txn, &ct->desc, fk->cols, fk->ncols, INT64_MIN, INT64_MAX, &sc))) {
                chunk_free(&ch);
                return exec_table_error(x, rc);
            }
            bool referenced = false;
            for (;;) {
                chunk_reset(&ch);
                if ((rc = table_scan_next(sc, &ch, NULL)) || ch.count == 0) break;
                for (uint32_t a = 0; a < ch.count && !referenced; a++)
                    for (uint32_t r = 0; r < old->count && !referenced; r++) {
                        bool eq = true;
                        for (uint32_t k = 0; k < fk->ncols && eq; k++) {
                            sql_value u, v;
                            vec_get_value(&ch.cols[k], a, &u);
                            vec_get_value(&old->cols[fk->ref_cols[k]], r, &v);
                            eq = !u.is_null && !v.is_null && value_compare(&u, &v) == 0;
                        }
                        referenced = eq;
                    }
                if (referenced) break;
            }
            table_scan_close(sc);
            chunk_free(&ch);
            if (rc) return exec_table_error(x, rc);
            if (referenced)
                return err_set(x->err, STRATA_CONSTRAINT,
                               "update or delete on table \"%s\" violates foreign key constraint \"%s\" on table \"%s\"",
                               td->name, fk->name, ct->name);
        }
    }
    return STRATA_OK;
}

static int dml_return(exec_ctx *x, const plan_op *p, dml_state *s, data_chunk *row, const sel_t *sel, uint32_t n) {
    if (!p->dml.nreturning || !n) return STRATA_OK;
    data_chunk src = *row;
    if (sel) {
        /* the kept rows only */
        data_chunk tmp;
        int rc = chunk_init(&tmp, p->dml.table->types, p->dml.table->ncols, x->err);
        if (rc) return rc;
        uint32_t got;
        if ((rc = chunk_append(&tmp, row, sel, n, &got, x->err))) {
            chunk_free(&tmp);
            return rc;
        }
        rc = dml_return(x, p, s, &tmp, NULL, n);
        chunk_free(&tmp);
        return rc;
    }
    data_chunk out = {.ncols = p->dml.nreturning, .count = n};
    vector cols[p->dml.nreturning];
    for (uint32_t i = 0; i < p->dml.nreturning; i++) {
        int rc = expr_eval(x, s->ex[i], &src, n);
        if (rc) return rc;
        cols[i] = *s->ex[i]->result;
    }
    out.cols = cols;
    return vec_rows_append(&s->returned, &out, NULL, n, x->err);
}

/* ---- INSERT's bulk path --------------------------------------------------------------------
** A statement that inserts whole vectors of new rows into a table that migrates (storage 'auto'
** or 'column') writes them straight into row groups instead of through the row tree: the rows
** are copied into an open row group's segment builders (rowgroup_job_add) until it is full, then
** it is encoded beside the statement (bulk_write). What is left at the end makes a smaller row
** group when it is at least 1/BULK_TAIL_SHARE of a full one and BULK_TAIL_MIN rows, else it is read
** back from the builders into the row tree. The path starts at the first input
** chunk of at least BULK_MIN_ROWS rows (rows before it took the row tree, and move into a row
** group of their own ahead of the first one written: rowgroup_job_start). It needs rowids that ascend above every rowid of the table --
** always so for tables without an INTEGER PRIMARY KEY; the first rows that break it send the
** held rows to the row tree and the statement on without the path. Indexes, constraints and
** RETURNING see every row as on the row-tree path. */

/* bulk_allowed says whether the table may take the bulk path. */
static bool bulk_allowed(const plan_op *p) {
    const table_def *td = p->dml.table;
    if (td->storage == TABLE_STORAGE_ROW) return false;
    for (uint32_t i = 0; i < td->nfks; i++) /* a row may refer to one held: not visible yet */
        if (!strcasecmp(td->fks[i].ref_table, td->name)) return false;
    return true;
}

/* bulk_charge charges the rows held in the open row group to the statement's memory. */
static int bulk_charge(exec_ctx *x, dml_state *s) {
    size_t now = rowgroup_job_bytes(s->bulk_open);
    if (now <= s->bulk_open_charged) return STRATA_OK;
    s->bulk_budget = x->budget;
    int rc = vec_budget_charge(x->budget, now - s->bulk_open_charged, x->err);
    if (rc == STRATA_OK) s->bulk_open_charged = now;
    return rc;
}

/* bulk_drop frees the row groups of the path, stored or not, and gives back their charge. */
static void bulk_drop(dml_state *s) {
    for (uint32_t i = 0; i < s->bulk_njobs; i++) {
        rowgroup_job_free(s->bulk_jobs[i]);
        vec_budget_release(s->bulk_budget, s->bulk_jobs_charged[i]);
    }
    s->bulk_njobs = 0;
    rowgroup_job_free(s->bulk_open);
    s->bulk_open = NULL;
    vec_budget_release(s->bulk_budget, s->bulk_open_charged);
    s->bulk_open_charged = 0;
}

/* bulk_wait stores the row groups being encoded, in the order they were started, until at most
** `keep` are left. */
static int bulk_wait(exec_ctx *x, table_def *td, dml_state *s, uint32_t keep) {
    int rc = STRATA_OK;
    while (s->bulk_njobs > keep) {
        rowgroup_job *j = s->bulk_jobs[0];
        size_t charged = s->bulk_jobs_charged[0];
        s->bulk_njobs--;
        memmove(s->bulk_jobs, s->bulk_jobs + 1, s->bulk_njobs * sizeof *s->bulk_jobs);
        memmove(s->bulk_jobs_charged, s->bulk_jobs_charged + 1, s->bulk_njobs * sizeof *s->bulk_jobs_charged);
        rc = rowgroup_write_finish(x->txn, &td->desc, j);
        vec_budget_release(s->bulk_budget, charged);
        if (rc) return exec_table_error(x, rc);
    }
    return STRATA_OK;
}

/* bulk_flush_rows sends the rows of the open row group to the row tree after all. */
static int bulk_flush_rows(exec_ctx *x, table_def *td, dml_state *s) {
    int rc = bulk_wait(x, td, s, 0);
    if (rc || !s->bulk_open) return rc;
    uint32_t rows = rowgroup_job_rows(s->bulk_open);
    if (rows && !s->bulk_out.cols && (rc = chunk_init(&s->bulk_out, td->types, td->ncols, x->err))) return rc;
    int64_t ids[VECTOR_SIZE];
    for (uint32_t at = 0; at < rows && rc == STRATA_OK; at += VECTOR_SIZE) {
        uint32_t n = rows - at < VECTOR_SIZE ? rows - at : VECTOR_SIZE;
        if ((rc = rowgroup_job_read(s->bulk_open, at, n, &s->bulk_out, ids, x->err))) break;
        if ((rc = table_insert(x->txn, &td->desc, &s->bulk_out, NULL, n, ids))) {
            rc = exec_table_error(x, rc);
            break;
        }
        td->inserted += n; /* for the tuple mover, after the commit */
    }
    bulk_drop(s);
    return rc;
}

/* bulk_write stores the open row group (the table's column tree made the first time): it is
** encoded on a thread of its own while the statement goes on (parsing and encoding side by side),
** and stored, after the ones started before it, once SET threads row groups are being encoded at
** a bulk_write, or at bulk_wait. */
static int bulk_write(exec_ctx *x, table_def *td, dml_state *s) {
    int rc;
    if (!td->desc.col_root) {
        pgno_t root;
        if ((rc = btree_create(x->txn, &root))) return exec_table_error(x, rc);
        if ((rc = catalog_set_col_root(x->cat, x->txn, td, root, x->err))) return rc;
    }
    uint32_t most = x->threads > 1 ? (x->threads < BULK_JOBS_MAX ? x->threads : BULK_JOBS_MAX) : 1;
    if ((rc = bulk_wait(x, td, s, most - 1))) return rc;
    if ((rc = rowgroup_job_start(x->txn, &td->desc, s->bulk_open))) return exec_table_error(x, rc);
    td->bulk_inserted += rowgroup_job_rows(s->bulk_open); /* for the statistics, after the commit */
    s->bulk_jobs[s->bulk_njobs] = s->bulk_open, s->bulk_jobs_charged[s->bulk_njobs++] = s->bulk_open_charged;
    s->bulk_open = NULL, s->bulk_open_charged = 0;
    return STRATA_OK;
}

/* bulk_add takes rows 0..n) of in under rowids, or sets *taken = false (and leaves the path)
** when they do not ascend above the rows before them. The rows go into the open row group's
** builders (split where a row group fills: that one goes to bulk_write). */
static int bulk_add(exec_ctx *x, const plan_op *p, dml_state *s, data_chunk *in, const int64_t *rowids, bool *taken) {
    table_def *td = p->dml.table;
    uint32_t n = in->count;
    int rc;
    *taken = false;
    if (s->bulk_mode == BULK_UNDECIDED) {
        if (!bulk_allowed(p)) {
            s->bulk_mode = BULK_OFF;
            return STRATA_OK;
        }
        if (n < BULK_MIN_ROWS) return STRATA_OK; /* small inserts (one row ...) take the row tree */
        s->bulk_mode = BULK_OFF;
        if ((rc = table_max_rowid(x->txn, &td->desc, &s->bulk_last))) return exec_table_error(x, rc);
        if (s->bulk_last == 0) { /* 0 also means an empty table: then any first rowid will do */
            uint8_t found = 0;
            uint32_t none = 0;
            int64_t zero = 0;
            if ((rc = dml_old(x, p, s))) return rc;
            if ((rc = table_get(x->txn, &td->desc, &none, 0, &zero, 1, &s->old, &found))) return exec_table_error(x, rc);
            if (!found) s->bulk_last = INT64_MIN;
        }
        s->bulk_mode = BULK_ON;
    }
    if (s->bulk_mode != BULK_ON) return STRATA_OK;
    bool ascending = true;
    for (uint32_t r = 0; r < n && ascending; r++) ascending = rowids[r] > (r ? rowids[r - 1] : s->bulk_last);
    if (!ascending) {
        s->bulk_mode = BULK_OFF;
        return bulk_flush_rows(x, td, s);
    }
    uint32_t full = rowgroup_rows(&td->desc);
    for (uint32_t done = 0; done < n;) {
        if (!s->bulk_open && (rc = rowgroup_job_open(&td->desc, &s->bulk_open, x->err))) return rc;
        uint32_t room = full - rowgroup_job_rows(s->bulk_open), take = n - done < room ? n - done : room;
        if ((rc = rowgroup_job_add(s->bulk_open, in, done ? sel_identity() + done : NULL, take, rowids + done, x->err)) ||
            (rc = bulk_charge(x, s)))
            return rc;
        done += take;
        if (rowgroup_job_rows(s->bulk_open) == full && (rc = bulk_write(x, td, s))) return rc;
    }
    s->bulk_last = rowids[n - 1];
    *taken = true;
    return STRATA_OK;
}

/* bulk_finish ends the path at the end of the input: the rows still held make a row group of
** their own when they are many enough (as a column store keeps the tail of a bulk load: scanning
** them there costs a fraction of what the row tree's cells do), else they go to the row tree,
** for storage 'auto' and 'column' alike. */
static int bulk_finish(exec_ctx *x, const plan_op *p, dml_state *s) {
    if (s->bulk_mode != BULK_ON) return STRATA_OK;
    s->bulk_mode = BULK_OFF;
    table_def *td = p->dml.table;
    uint32_t tail = rowgroup_rows(&td->desc) / BULK_TAIL_SHARE, held = s->bulk_open ? rowgroup_job_rows(s->bulk_open) : 0;
    if (held < (tail > BULK_TAIL_MIN ? tail : BULK_TAIL_MIN)) return bulk_flush_rows(x, td, s);
    int rc = bulk_write(x, td, s);
    return rc ? rc : bulk_wait(x, td, s, 0);
}

static int insert_rows(exec_ctx *x, const plan_op *p, dml_state *s, data_chunk *in) {
    table_def *td = p->dml.table;
    int rc;
    if (in->sel) chunk_apply_sel(in);
    uint32_t n = in->count;
    if ((rc = check_rows(x, p, s, in))) return rc;
    /* rowids */
    if (td->rowid_col < 0 && td->next_rowid == 0) {
        int64_t mx;
        if ((rc = table_max_rowid(x->txn, &td->desc, &mx))) return exec_table_error(x, rc);
        td->next_rowid = mx + 1;
    }
    sel_t keep[VECTOR_SIZE];
    uint32_t nkeep = 0;
    bool upsert = p->dml.on_conflict_nothing || p->dml.on_conflict_update;
    int64_t *rowids = s->rowids; /* upsert_update's UPDATE takes s->rowids over: keep ours apart */
    int64_t own[upsert ? VECTOR_SIZE : 1];
    if (upsert) rowids = own;
    if (upsert && (rc = fk_check(x, p, s, in))) return rc;
    for (uint32_t r = 0; r < n; r++) {
        if (td->rowid_col >= 0) {
            sql_value v;
            vec_get_value(&in->cols[td->rowid_col], r, &v);
            rowids[r] = v.v.i;
        } else {
            if (td->next_rowid == INT64_MAX) return err_set(x->err, STRATA_FULL, "table \"%s\" has no rowids left", td->name);
            rowids[r] = td->next_rowid++;
        }
        if (!upsert) {
            keep[nkeep++] = r;
            continue;
        }
        /* one row at a time: a row may conflict with one inserted just before it */
        bool conflict;
        int64_t other;
        if ((rc = find_conflict(x, p, s, in, r, rowids[r], &conflict, &other))) return rc;
        if (conflict) {
            if (p->dml.on_conflict_update && (rc = upsert_update(x, p, s, in, r, other))) return rc;
            continue;
        }
        keep[nkeep] = r;
        int64_t rid = rowids[r];
        if ((rc = table_insert(x->txn, &td->desc, in, &keep[nkeep], 1, &rid))) return exec_table_error(x, rc);
        uint8_t sk[VECTOR_SIZE];
        memset(sk, 1, n);
        sk[r] = 0;
        if ((rc = index_update(x, p, s, in, rowids, true, sk))) return rc;
        bool was;
        if (p->dml.on_conflict_update && (rc = affected_add(x, s, rid, &was))) return rc;
        nkeep++;
    }
    bool bulk = false;
    if (!upsert) {
        if ((rc = fk_check(x, p, s, in)) || (rc = bulk_add(x, p, s, in, s->rowids, &bulk))) return rc;
        uint32_t done = 0;
        rc = bulk ? STRATA_OK : table_insert_counted(x->txn, &td->desc, in, NULL, n, s->rowids, &done);
        if (rc == STRATA_CONSTRAINT && td->rowid_col >= 0 && done < n) {
            /* rows before row done went in; its rowid is the one that is taken */
            s->fail_row = (int32_t)done;
            err_clear(x->err);
            char kt[32], nm[300];
            snprintf(kt, sizeof kt, "%lld", (long long)s->rowids[done]);
            snprintf(nm, sizeof nm, "%s_pkey", td->name);
            return err_set(x->err, STRATA_CONSTRAINT,
                           "duplicate key value violates unique constraint \"%s\"\nDETAIL: Key (%s)=(%s) already exists.", nm,
                           td->cols[td->rowid_col].name, kt);
        }
        if (rc) return exec_table_error(x, rc);
        if ((rc = index_update(x, p, s, in, s->rowids, true, NULL))) return rc;
    }
    x->changes += nkeep;
    if (!bulk) td->inserted += nkeep; /* for the tuple mover, after the commit */
    return dml_return(x, p, s, in, nkeep == n ? NULL : keep, nkeep);
}

/* copy_source is the PLAN_FILE_SCAN an INSERT's rows come from, row for row (COPY ... FROM, with
** a projection between them for a column list), or NULL. */
static const plan_op *copy_source(const plan_op *p) {
    const plan_op *q = p->child[0];
    for (int depth = 0; q && depth < 3; depth++, q = q->child[0]) {
        if (q->kind == PLAN_FILE_SCAN) return q;
        if (q->kind != PLAN_PROJECT) return NULL;
    }
    return NULL;
}

/* A set of the keys (encoded, or rowids as 8 bytes) that earlier rows of one chunk take. */
typedef struct key_set {
    uint64_t *hash;
    uint32_t *off, *len, cap, n;
    uint8_t *bytes;
    size_t used, room;
} key_set;

static void key_set_free(key_set *k) {
    free(k->hash), free(k->off), free(k->len), free(k->bytes);
    memset(k, 0, sizeof *k);
}

/* key_set_find says whether key is in k; key_set_add adds it (VECTOR_SIZE keys at most). */
static bool key_set_find(const key_set *k, const uint8_t *key, uint32_t len, uint64_t h) {
    if (!k->cap) return false;
    for (uint32_t i = (uint32_t)h & (k->cap - 1); k->len[i]; i = (i + 1) & (k->cap - 1))
        if (k->hash[i] == h && k->len[i] == len + 1 && !memcmp(k->bytes + k->off[i], key, len)) return true;
    return false;
}

static int key_set_add(key_set *k, const uint8_t *key, uint32_t len, uint64_t h) {
    if (!k->cap) {
        k->cap = 2 * VECTOR_SIZE;
        k->hash = calloc(k->cap, sizeof *k->hash), k->off = calloc(k->cap, sizeof *k->off);
        k->len = calloc(k->cap, sizeof *k->len);
        if (!k->hash || !k->off || !k->len) return STRATA_NOMEM;
    }
    if (k->used + len > k->room) {
        size_t room = (k->room ? k->room * 2 : 4096) + len;
        uint8_t *b = realloc(k->bytes, room);
        if (!b) return STRATA_NOMEM;
        k->bytes = b, k->room = room;
    }
    uint32_t i = (uint32_t)h & (k->cap - 1);
    while (k->len[i]) i = (i + 1) & (k->cap - 1);
    memcpy(k->bytes + k->used, key, len);
    k->hash[i] = h, k->off[i] = (uint32_t)k->used, k->len[i] = len + 1; /* len + 1: 0 marks a free slot */
    k->used += len, k->n++;
    return STRATA_OK;
}

/* copy_screen is COPY ... FROM with REJECTS: a row of `in` that a constraint refuses -- NOT NULL,
** CHECK, the primary key or a unique index, against the table and the rows before it in the COPY
** -- goes to the REJECTS file as a bad record (its line, the reason, its text) instead of failing
** the statement. keep[0..*nkeep) gets the rows that pass, in order. Foreign keys are not screened:
** a row that breaks one fails the COPY, naming its line. */
static int copy_screen(exec_ctx *x, const plan_op *p, dml_state *s, const op_node *src, data_chunk *in, sel_t *keep,
                       uint32_t *nkeep) {
    table_def *td = p->dml.table;
    uint32_t n = in->count;
    int rc = STRATA_OK;
    char reason[STRATA_ERRMSG_MAX], kt[200];
    char *bad[VECTOR_SIZE]; /* the reason a row is refused (malloc'd), NULL: none yet */
    memset(bad, 0, n * sizeof *bad);
    *nkeep = 0;
    int64_t rowids[VECTOR_SIZE];
    uint8_t found[VECTOR_SIZE];
    uint32_t nunique = 0;
    for (uint32_t i = 0; i < td->nindexes; i++) nunique += td->indexes[i]->unique;
    key_set *sets = calloc(1 + nunique, sizeof *sets); /* [0] the rowids, [1 + u] unique index u's keys */
    vector ***vecs = calloc(nunique + 1, sizeof *vecs);
    index_def **uix = calloc(nunique + 1, sizeof *uix);
    uint64_t *hs = calloc(nunique + 1, sizeof *hs);
    if (!sets || !vecs || !uix || !hs) goto oom;
    for (uint32_t r = 0; r < n; r++) /* NOT NULL */
        for (uint32_t c = 0; c < td->ncols && !bad[r]; c++)
            if (td->cols[c].not_null && vec_is_null(&in->cols[c], r)) {
                snprintf(reason, sizeof reason, "null value in column \"%s\" of relation \"%s\" violates not-null constraint",
                         td->cols[c].name, td->name);
                if (!(bad[r] = strdup(reason))) goto oom;
            }
    for (uint32_t i = 0; i < td->nchecks; i++) { /* CHECK */
        if ((rc = expr_eval(x, s->checks[i], in, n))) goto done;
        vector *v = s->checks[i]->result;
        for (uint32_t r = 0; r < n; r++)
            if (!bad[r] && !vec_is_null(v, r) && !((const uint8_t *)v->data)[v->sel[r]]) {
                snprintf(reason, sizeof reason, "new row for relation \"%s\" violates check constraint \"%s\"", td->name,
                         td->checks[i].name);
                if (!(bad[r] = strdup(reason))) goto oom;
            }
    }
    /* The keys: the primary key (the rowid) and every unique index, row by row, so that of two rows
    ** with one key the first is kept. Rows the bulk path holds are not in the table yet: when a
    ** rowid could be one of theirs, they go to the row tree first. */
    if (td->rowid_col >= 0) {
        bool older = false;
        for (uint32_t r = 0; r < n; r++) {
            sql_value v;
            vec_get_value(&in->cols[td->rowid_col], r, &v);
            rowids[r] = v.is_null ? INT64_MIN : v.v.i;
            older |= s->bulk_mode == BULK_ON && rowids[r] <= s->bulk_last;
        }
        if (older) {
            s->bulk_mode = BULK_OFF;
            if ((rc = bulk_flush_rows(x, td, s))) goto done;
        }
        uint32_t none = 0;
        if (s->bulk_mode == BULK_ON) { /* every rowid is above the table's largest (bulk_last): none exists */
            memset(found, 0, n);
        } else if ((rc = dml_old(x, p, s)) || (rc = table_get(x->txn, &td->desc, &none, 0, rowids, n, &s->old, found))) {
            rc = exec_table_error(x, rc);
            goto done;
        }
    }
    for (uint32_t i = 0, u = 0; i < td->nindexes; i++) {
        index_def *ix = td->indexes[i];
        if (!ix->unique) continue;
        uix[u] = ix;
        if (!(vecs[u] = arena_alloc(x->mem, ix->nkeys * sizeof *vecs[u]))) goto oom;
        if ((rc = index_keys_eval(x, s, ix, i, in, vecs[u]))) goto done;
        u++;
    }
    for (uint32_t r = 0; r < n && !rc; r++) {
        if (bad[r]) continue;
        const char *name = NULL;
        bool exists = false;
        if (td->rowid_col >= 0) {
            uint64_t h = vec_hash_i64(rowids[r]);
            exists = found[r] || key_set_find(&sets[0], (const uint8_t *)&rowids[r], 8, h);
            if (exists) {
                snprintf(kt, sizeof kt, "%lld", (long long)rowids[r]);
                snprintf(reason, sizeof reason,
                         "duplicate key value violates unique constraint \"%s_pkey\": Key (%s)=(%s) already exists%s",
                         td->name, td->cols[td->rowid_col].name, kt, found[r] ? "" : " (an earlier line of this COPY)");
                name = reason;
            }
        }
        for (uint32_t u = 0; u < nunique && !name; u++) {
            index_def *ix = uix[u];
            hs[u] = 0;
            if (keys_have_null(vecs[u], ix->nkeys, r)) continue;
            if ((rc = encode_key(x, s, vecs[u], ix->nkeys, r))) break;
            hs[u] = hash_bytes(s->key.data, s->key.len, 0) | 1;
            bool earlier = key_set_find(&sets[1 + u], s->key.data, (uint32_t)s->key.len, hs[u]);
            int64_t other;
            int f = earlier ? STRATA_NOTFOUND : index_find_first(x->txn, ix->root, s->key.data, s->key.len, &other);
            if (f && f != STRATA_NOTFOUND) { rc = exec_table_error(x, f); break; }
            if (earlier || f == STRATA_OK) {
                char cols[200];
                size_t len = 0;
                cols[0] = 0;
                for (uint32_t k = 0; k < ix->nkeys && len < sizeof cols; k++)
                    len += (size_t)snprintf(cols + len, sizeof cols - len, "%s%s", k ? ", " : "",
                                            ix->key_cols[k] >= 0 ? td->cols[ix->key_cols[k]].name : "expr");
                key_text(vecs[u], ix->nkeys, r, kt, sizeof kt);
                snprintf(reason, sizeof reason, "duplicate key value violates unique constraint \"%s\": Key (%s)=(%s) already exists%s",
                         ix->name, cols, kt, earlier ? " (an earlier line of this COPY)" : "");
                name = reason;
            }
        }
        if (rc) break;
        if (name) {
            if (!(bad[r] = strdup(reason))) goto oom;
            continue;
        }
        if (td->rowid_col >= 0 && (rc = key_set_add(&sets[0], (const uint8_t *)&rowids[r], 8, vec_hash_i64(rowids[r]))))
            break;
        for (uint32_t u = 0; u < nunique && !rc; u++) {
            if (!hs[u]) continue;
            if (!(rc = encode_key(x, s, vecs[u], uix[u]->nkeys, r)))
                rc = key_set_add(&sets[1 + u], s->key.data, (uint32_t)s->key.len, hs[u]);
        }
        if (rc) break;
        keep[(*nkeep)++] = (sel_t)r;
    }
    if (rc == STRATA_NOMEM && !x->err->code) goto oom;
done: /* the refused rows go to the REJECTS file in the order of their lines */
    for (uint32_t r = 0; r < n; r++) {
        if (bad[r] && !rc) rc = copy_scan_reject_row(x, src, r, 0, bad[r]);
        free(bad[r]);
    }
    for (uint32_t u = 0; sets && u < 1 + nunique; u++) key_set_free(&sets[u]);
    free(sets), free(vecs), free(uix), free(hs);
    return rc;
oom:
    rc = exec_nomem(x);
    goto done;
}

/* insert_sink inserts a chunk of rows. Under COPY ... FROM the CSV line of a row that breaks a
** constraint is named ("file 'f': CSV line 7: duplicate key ..."), and with REJECTS such rows go
** to the REJECTS file while the others go in (copy_screen). */
static int insert_chunk(exec_ctx *x, const plan_op *p, dml_state *s, data_chunk *in) {
    const plan_op *q = copy_source(p);
    const op_node *src = q ? exec_node(x, q) : NULL;
    if (!src) return insert_rows(x, p, s, in);
    if (in->sel) chunk_apply_sel(in); /* nothing between the scan and here selects: rows stay rows */
    sel_t keep[VECTOR_SIZE];
    uint32_t nkeep = in->count;
    bool screened = copy_scan_rejects(src);
    int rc;
    if (screened) {
        if ((rc = copy_screen(x, p, s, src, in, keep, &nkeep))) return rc;
        if (nkeep == 0) return STRATA_OK;
        if (nkeep < in->count) {
            in->sel = keep;
            in->count = nkeep;
        } else {
            screened = false;
        }
    }
    s->fail_row = -1;
    rc = insert_rows(x, p, s, in);
    if (rc == STRATA_CONSTRAINT && s->fail_row >= 0)
        return copy_scan_row_error(x, src, screened ? keep[s->fail_row] : (uint32_t)s->fail_row, rc);
    return rc;
}

/* view_row makes s->row show the table columns of in (columns 1..n, after the rowid). */
static void view_row(dml_state *s, data_chunk *in) {
    s->row.cols = in->cols + 1;
    s->row.count = in->count;
    s->row.sel = NULL;
    for (uint32_t r = 0; r < in->count; r++) s->rowids[r] = ((const int64_t *)in->cols[0].data)[in->cols[0].sel[r]];
}

static int update_chunk(exec_ctx *x, const plan_op *p, dml_state *s, data_chunk *in) {
    table_def *td = p->dml.table;
    int rc;
    if (in->sel) chunk_apply_sel(in);
    view_row(s, in);
    uint32_t n = in->count;
    if ((rc = check_rows(x, p, s, &s->row))) return rc;
    /* the old rows, for their index entries */
    uint32_t *all = malloc(td->ncols * sizeof *all);
    if (!all) return exec_nomem(x);
    for (uint32_t c = 0; c < td->ncols; c++) all[c] = c;
    rc = dml_old(x, p, s);
    if (!rc) rc = table_get(x->txn, &td->desc, all, td->ncols, s->rowids, n, &s->old, NULL);
    free(all);
    if (rc) return exec_table_error(x, rc);
    if (s->old.count != n) return err_set(x->err, STRATA_CORRUPT, "row of \"%s\" vanished during UPDATE", td->name);
    if ((rc = index_update(x, p, s, &s->old, s->rowids, false, NULL))) return rc;
    if (td->rowid_col >= 0) {
        /* a changed key moves the row */
        int64_t newids[VECTOR_SIZE];
        bool moved = false;
        for (uint32_t r = 0; r < n; r++) {
            sql_value v;
            vec_get_value(&s->row.cols[td->rowid_col], r, &v);
            newids[r] = v.v.i;
            moved |= newids[r] != s->rowids[r];
        }
        if (moved) {
            if ((rc = fk_restrict(x, p, &s->old))) return rc;
            if ((rc = table_delete(x->txn, &td->desc, s->rowids, n))) return exec_table_error(x, rc);
            rc = table_insert(x->txn, &td->desc, &s->row, NULL, n, newids);
            if (rc == STRATA_CONSTRAINT) {
                err_clear(x->err);
                return err_set(x->err, STRATA_CONSTRAINT, "duplicate key value violates unique constraint \"%s_pkey\"", td->name);
            }
            if (rc) return exec_table_error(x, rc);
            memcpy(s->rowids, newids, n * sizeof *newids);
        } else if ((rc = table_update(x->txn, &td->desc, &s->row, NULL, n, s->rowids))) {
            return exec_table_error(x, rc);
        }
    } else if ((rc = table_update(x->txn, &td->desc, &s->row, NULL, n, s->rowids))) {
        return exec_table_error(x, rc);
    }
    if ((rc = index_update(x, p, s, &s->row, s->rowids, true, NULL))) return rc;
    if ((rc = fk_check(x, p, s, &s->row))) return rc;
    x->changes += n;
    return dml_return(x, p, s, &s->row, NULL, n);
}

static int delete_chunk(exec_ctx *x, const plan_op *p, dml_state *s, data_chunk *in) {
    table_def *td = p->dml.table;
    int rc;
    if (in->sel) chunk_apply_sel(in);
    view_row(s, in);
    if ((rc = fk_restrict(x, p, &s->row))) return rc;
    if ((rc = index_update(x, p, s, &s->row, s->rowids, false, NULL))) return rc;
    if ((rc = dml_return(x, p, s, &s->row, NULL, in->count))) return rc;
    if ((rc = table_delete(x->txn, &td->desc, s->rowids, in->count))) return exec_table_error(x, rc);
    x->changes += in->count;
    return STRATA_OK;
}

static int dml_next(exec_ctx *x, op_node *nd, data_chunk *out) {
    (void)x;
    const plan_op *p = nd->op;
    dml_state *s = nd->state;
    out->count = 0;
    if (s->emit_chunk >= s->returned.nchunks) return STRATA_OK;
    data_chunk *ch = s->returned.chunks[s->emit_chunk++];
    for (uint32_t c = 0; c < p->ncols; c++) vec_reference(&out->cols[c], &ch->cols[c]);
    out->count = ch->count;
    return STRATA_OK;
}


static uint32_t dml_exprs(const plan_op *p, const expr **list) {
    uint32_t nr = p->dml.nreturning, nc = p->dml.nconflict_set;
    exec_list_exprs(p->dml.returning, nr, list);
    exec_list_exprs(p->dml.conflict_values, nc, list ? list + nr : NULL);
    if (list) list[nr + nc] = p->dml.conflict_where;
    return nr + nc + 1;
}

static void dml_explain(const plan_op *p, char *buf, size_t cap) { snprintf(buf, cap, " %s", p->dml.table->name); }

/* The sinks: a chunk of rows changes the table at once, or, when the input reads the table
** (dml_must_hold), is held until the input ends and applied by the finalize. */
typedef int dml_chunk_fn(exec_ctx *x, const plan_op *p, dml_state *s, data_chunk *in);

static int dml_sink(exec_ctx *x, op_node *nd, data_chunk *in, dml_chunk_fn *apply) {
    dml_state *s = nd->state;
    if (!s->hold) return apply(x, nd->op, s, in);
    if (in->sel) chunk_apply_sel(in);
    return vec_rows_append(&s->pending, in, NULL, in->count, x->err);
}

static int dml_apply_pending(exec_ctx *x, op_node *nd, dml_chunk_fn *apply) {
    dml_state *s = nd->state;
    for (uint32_t i = 0; i < s->pending.nchunks; i++) {
        int rc = apply(x, nd->op, s, s->pending.chunks[i]);
        if (rc) return rc;
    }
    return STRATA_OK;
}

static int insert_sink(exec_ctx *x, op_node *nd, data_chunk *in, int side) {
    (void)side;
    return dml_sink(x, nd, in, insert_chunk);
}

static int insert_finalize(exec_ctx *x, op_node *nd) {
    int rc = dml_apply_pending(x, nd, insert_chunk);
    return rc ? rc : bulk_finish(x, nd->op, nd->state);
}

static int update_sink(exec_ctx *x, op_node *nd, data_chunk *in, int side) {
    (void)side;
    return dml_sink(x, nd, in, update_chunk);
}

static int update_finalize(exec_ctx *x, op_node *nd) { return dml_apply_pending(x, nd, update_chunk); }

static int delete_sink(exec_ctx *x, op_node *nd, data_chunk *in, int side) {
    (void)side;
    return dml_sink(x, nd, in, delete_chunk);
}

static int delete_finalize(exec_ctx *x, op_node *nd) { return dml_apply_pending(x, nd, delete_chunk); }

/* Each is the sink of its input and the source of its RETURNING rows; its state stays between
** runs (the bound CHECK and index key expressions). */
#define DML_OPERATOR(label, sink_fn, finalize_fn)                                                    \
    {                                                                                                \
        .name = label, .child = {CHILD_SINK}, .open = dml_open, .close = dml_close, .exprs = dml_exprs, \
        .sink = sink_fn, .finalize = finalize_fn, .source = dml_next, .explain = dml_explain,          \
    }
const op_vtable op_insert = DML_OPERATOR("INSERT", insert_sink, insert_finalize);
const op_vtable op_update = DML_OPERATOR("UPDATE", update_sink, update_finalize);
const op_vtable op_delete = DML_OPERATOR("DELETE", delete_sink, delete_finalize);
