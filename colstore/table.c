/*
** table.c -- the table access layer over the row store (see table.h): a table is one B+tree of
** rowid_encode(rowid) -> record, an index one B+tree of key || rowid_encode(rowid) -> "".
**
** Scans keep one B+tree cursor: in a read transaction it keeps its leaf pinned between rows and
** between chunks, and records are decoded from the page straight into the chunk's vectors. In a
** write transaction the statement may change the table between two table_scan_next calls (an
** UPDATE writes the rows it just read), which invalidates a cursor, so each call after the first
** seeks again to the rowid after the last one returned (one descent per chunk). Index scans do
** the same with the last key returned.
**
** What it is not: no column store yet (a later issue adds row groups beside the tree), no
** catalog, no constraint checks beyond rowid uniqueness, no expression evaluation.
*/
#include "table.h"

#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "rowgroup.h"

/* ---- helpers ------------------------------------------------------------------------------ */

static int corrupt_record(strata_err *err, const table_desc *td, int64_t rowid, const char *why) {
    return err_set(err, STRATA_CORRUPT, "table with root page %u: corrupt record of rowid %lld: %s",
                   (unsigned)td->root, (long long)rowid, why);
}

/* decode_rowid is rowid_decode, inlined for the scan loop. */
static inline int64_t decode_rowid(const uint8_t *k) {
    uint64_t v;
    memcpy(&v, k, 8);
#if __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return (int64_t)(v ^ (UINT64_C(1) << 63));
}

/* cursor_rowid reads the rowid of the cursor's entry (the cursor is valid). */
static int cursor_rowid(btree_cursor *c, pgno_t root, strata_err *err, int64_t *rowid) {
    const uint8_t *k;
    size_t klen;
    int rc = btree_cursor_key(c, &k, &klen);
    if (rc) return rc;
    if (klen != ROWID_KEY_LEN)
        return err_set(err, STRATA_CORRUPT, "table with root page %u: a key of %zu bytes is not a rowid",
                       (unsigned)root, klen);
    *rowid = decode_rowid(k);
    return STRATA_OK;
}

/* check_chunk verifies that chunk has the table's columns (physically). */
static int check_chunk(const table_desc *td, const data_chunk *chunk, strata_err *err) {
    if (chunk->ncols != td->ncols)
        return err_set(err, STRATA_MISUSE, "a chunk of %u columns written to a table of %u columns (root page %u)",
                       chunk->ncols, td->ncols, (unsigned)td->root);
    for (uint32_t i = 0; i < td->ncols; i++)
        if (chunk->cols[i].phys != vec_phys_of((sql_type_id)td->types[i].id))
            return err_set(err, STRATA_MISUSE, "column %u of the chunk does not have the table's type (root page %u)",
                           i, (unsigned)td->root);
    return STRATA_OK;
}

int table_max_rowid(pager_txn *t, const table_desc *td, int64_t *out) {
    strata_err *err = pager_txn_err(t);
    btree_cursor *c = NULL;
    int rc = btree_cursor_open(t, td->root, &c);
    if (rc == STRATA_OK) rc = btree_cursor_last(c);
    int64_t max = 0;
    int rows = rc == STRATA_OK && btree_cursor_valid(c);
    if (rows) rc = cursor_rowid(c, td->root, err, &max);
    btree_cursor_close(c);
    int64_t migrated = 0;
    int any = 0;
    if (rc == STRATA_OK) rc = rowgroup_last_rowid(t, td, &migrated, &any);
    if (rc == STRATA_OK) *out = any && (!rows || migrated > max) ? migrated : max;
    return rc;
}

/* ---- writing ------------------------------------------------------------------------------ */

/* write_rows is table_insert (insert != 0) and table_update: one B+tree descent per row, which
** refuses an existing rowid (insert) or a missing one (update) itself. */
static int write_rows(pager_txn *t, const table_desc *td, const data_chunk *chunk, const sel_t *sel, uint32_t count,
                      const int64_t *rowids, int insert, uint32_t *done) {
    if (done) *done = 0;
    strata_err *err = pager_txn_err(t);
    if (!pager_txn_is_write(t))
        return err_set(err, STRATA_READONLY, "table with root page %u: write in a read transaction",
                       (unsigned)td->root);
    int rc = check_chunk(td, chunk, err);
    if (rc || count == 0) return rc;
    int64_t migrated = 0; /* rowids up to this may be in a row group */
    int any = 0;
    if ((rc = rowgroup_last_rowid(t, td, &migrated, &any))) return rc;
    btree_buf heap = {0}; /* for records too large for small[] */
    uint8_t small[1024];
    rowgroup_deleter *dl = NULL; /* an UPDATE of migrated rows: made at the first */
    for (uint32_t k = 0; k < count; k++) {
        uint32_t row = sel ? sel[k] : k;
        if (chunk->sel) row = chunk->sel[row];
        int64_t rowid = rowids[k];
        uint8_t key[ROWID_KEY_LEN];
        rowid_encode(rowid, key);
        size_t max = record_max_size(td, chunk->cols, row);
        uint8_t *rec = small;
        if (max > sizeof small) {
            heap.len = 0;
            if ((rc = record_buf_reserve(&heap, max, err))) break;
            rec = heap.data;
        }
        size_t len = record_encode_into(rec, td, chunk->cols, row);
        int in_group = 0;
        if (any && rowid <= migrated && insert && (rc = rowgroup_has(t, td, rowid, &in_group))) break;
        if (in_group) {
            rc = STRATA_CONSTRAINT;
        } else {
            rc = btree_put_mode(t, td->root, key, sizeof key, rec, len, insert ? BTREE_PUT_INSERT : BTREE_PUT_REPLACE);
            if (rc == STRATA_NOTFOUND && any && rowid <= migrated) {
                /* a migrated row: its row group forgets it and the new version goes to the row tree */
                if ((rc = dl ? STRATA_OK : rowgroup_deleter_open(t, td, &dl)) == STRATA_OK &&
                    (rc = rowgroup_deleter_add(dl, rowid, &in_group)) == STRATA_OK)
                    rc = in_group ? btree_put_mode(t, td->root, key, sizeof key, rec, len, BTREE_PUT_INSERT)
                                  : STRATA_NOTFOUND;
            }
        }
        if (rc == STRATA_CONSTRAINT) {
            rc = err_set(err, STRATA_CONSTRAINT, "table with root page %u: rowid %lld already exists", (unsigned)td->root,
                         (long long)rowid);
        } else if (rc == STRATA_NOTFOUND) {
            rc = err_set(err, STRATA_NOTFOUND, "table with root page %u: no row has rowid %lld", (unsigned)td->root,
                         (long long)rowid);
        }
        if (rc) break;
        if (done) *done = k + 1;
    }
    btree_buf_free(&heap);
    return rowgroup_deleter_end(dl, rc);
}

int table_insert(pager_txn *t, const table_desc *td, const data_chunk *chunk, const sel_t *sel, uint32_t count,
                 const int64_t *rowids) {
    return write_rows(t, td, chunk, sel, count, rowids, 1, NULL);
}

int table_insert_counted(pager_txn *t, const table_desc *td, const data_chunk *chunk, const sel_t *sel, uint32_t count,
                         const int64_t *rowids, uint32_t *done) {
    return write_rows(t, td, chunk, sel, count, rowids, 1, done);
}

int table_update(pager_txn *t, const table_desc *td, const data_chunk *chunk, const sel_t *sel, uint32_t count,
                 const int64_t *rowids) {
    return write_rows(t, td, chunk, sel, count, rowids, 0, NULL);
}

/* delete_rows is table_delete (groups != 0) and table_delete_rowstore. */
static int delete_rows(pager_txn *t, const table_desc *td, const int64_t *rowids, uint32_t count, int groups) {
    strata_err *err = pager_txn_err(t);
    rowgroup_deleter *dl = NULL; /* made at the first migrated row */
    int rc = STRATA_OK;
    for (uint32_t k = 0; k < count && !rc; k++) {
        uint8_t key[ROWID_KEY_LEN];
        rowid_encode(rowids[k], key);
        rc = btree_delete(t, td->root, key, sizeof key);
        if (rc == STRATA_NOTFOUND && groups && td->col_root) {
            int found = 0;
            if ((rc = dl ? STRATA_OK : rowgroup_deleter_open(t, td, &dl)) || (rc = rowgroup_deleter_add(dl, rowids[k], &found)))
                break;
            if (found) continue;
            rc = STRATA_NOTFOUND;
        }
        if (rc == STRATA_NOTFOUND)
            rc = err_set(err, STRATA_NOTFOUND, "table with root page %u: no row has rowid %lld", (unsigned)td->root,
                         (long long)rowids[k]);
    }
    return rowgroup_deleter_end(dl, rc);
}

int table_delete(pager_txn *t, const table_desc *td, const int64_t *rowids, uint32_t count) {
    return delete_rows(t, td, rowids, count, 1);
}

int table_delete_rowstore(pager_txn *t, const table_desc *td, const int64_t *rowids, uint32_t count) {
    return delete_rows(t, td, rowids, count, 0);
}

/* ---- scans -------------------------------------------------------------------------------- */

struct table_scan {
    pager_txn *t;
    const table_desc *td;
    btree_cursor *cur;
    rowgroup_scan *rg; /* the migrated rows; NULL when there are none (left) */
    record_plan plan;
    uint32_t ncols; /* projected columns */
    int64_t hi;
    int64_t last;  /* the last rowid returned */
    int returned;  /* a row was returned (last is set) */
    int reseek;    /* write transaction: seek to last + 1 before reading on */
    int rs_done;   /* the row tree has no more rows for this scan */
    int64_t *own_ids; /* write transactions: the rowids of a chunk when the caller wants none */
};

static int scan_open(pager_txn *t, const table_desc *td, const uint32_t *cols, uint32_t ncols, int64_t lo, int64_t hi,
                     int rowstore_only, table_scan **out) {
    strata_err *err = pager_txn_err(t);
    *out = NULL;
    table_scan *s = calloc(1, sizeof *s);
    if (s == NULL) return err_set(err, STRATA_NOMEM, "out of memory (table scan)");
    s->t = t;
    s->td = td;
    s->ncols = ncols;
    s->hi = hi;
    s->reseek = pager_txn_is_write(t);
    int rc = record_plan_init(&s->plan, td, cols, ncols, 1, err);
    if (rc) {
        free(s);
        return rc;
    }
    if (s->reseek && (s->own_ids = malloc(VECTOR_SIZE * sizeof *s->own_ids)) == NULL) {
        rc = err_set(err, STRATA_NOMEM, "out of memory (table scan)");
        goto fail;
    }
    if ((rc = btree_cursor_open(t, td->root, &s->cur))) goto fail;
    if (lo > hi) {
        s->rs_done = 1;
        *out = s;
        return STRATA_OK;
    }
    uint8_t key[ROWID_KEY_LEN];
    rowid_encode(lo, key);
    if ((rc = btree_cursor_seek(s->cur, key, sizeof key, NULL))) goto fail;
    if (td->col_root && !rowstore_only && (rc = rowgroup_scan_open(t, td, cols, ncols, lo, hi, &s->rg))) goto fail;
    *out = s;
    return STRATA_OK;
fail:
    table_scan_close(s);
    return rc;
}

int table_scan_open(pager_txn *t, const table_desc *td, const uint32_t *cols, uint32_t ncols, int64_t lo,
                    int64_t hi, table_scan **out) {
    return scan_open(t, td, cols, ncols, lo, hi, 0, out);
}

int table_scan_open_rowstore(pager_txn *t, const table_desc *td, const uint32_t *cols, uint32_t ncols, int64_t lo,
                             int64_t hi, table_scan **out) {
    return scan_open(t, td, cols, ncols, lo, hi, 1, out);
}

/* rowstore_peek sets *rowid to the rowid of the row tree's next row for the scan (*more = 0 when
** there is none). */
static int rowstore_peek(table_scan *s, int *more, int64_t *rowid) {
    *more = 0;
    if (s->rs_done) return STRATA_OK;
    if (!btree_cursor_valid(s->cur)) {
        s->rs_done = 1;
        return STRATA_OK;
    }
    int rc = cursor_rowid(s->cur, s->td->root, pager_txn_err(s->t), rowid);
    if (rc) return rc;
    if (*rowid > s->hi) s->rs_done = 1;
    else *more = 1;
    return STRATA_OK;
}

/* rowstore_next reads up to VECTOR_SIZE rows of the row tree with rowids up to max into out. */
static int rowstore_next(table_scan *s, data_chunk *out, int64_t *rowids, int64_t max) {
    strata_err *err = pager_txn_err(s->t);
    btree_cursor *c = s->cur;
    uint32_t n = 0;
    int rc = STRATA_OK;
    while (n < VECTOR_SIZE) {
        const uint8_t *k, *val;
        size_t klen, vlen;
        rc = btree_cursor_entry(c, &k, &klen, &val, &vlen);
        if (rc == STRATA_DONE) {
            rc = STRATA_OK;
            s->rs_done = 1;
            break;
        }
        if (rc) goto fail;
        if (klen != ROWID_KEY_LEN) {
            rc = err_set(err, STRATA_CORRUPT, "table with root page %u: a key of %zu bytes is not a rowid",
                         (unsigned)s->td->root, klen);
            goto fail;
        }
        int64_t rowid = decode_rowid(k);
        if (rowid > s->hi) {
            s->rs_done = 1;
            break;
        }
        if (rowid > max) break;
        const char *why = NULL;
        if ((rc = record_decode(&s->plan, val, vlen, out, n, &why, err))) {
            if (rc == STRATA_CORRUPT) corrupt_record(err, s->td, rowid, why);
            goto fail;
        }
        if (rowids) rowids[n] = rowid;
        n++;
        if ((rc = btree_cursor_next(c))) goto fail;
    }
    out->count = n;
    return STRATA_OK;
fail:
    out->count = n;
    s->rs_done = 1;
    return rc;
}

int table_scan_next(table_scan *s, data_chunk *out, int64_t *rowids) {
    strata_err *err = pager_txn_err(s->t);
    if (out->ncols < s->ncols)
        return err_set(err, STRATA_MISUSE, "table_scan_next into a chunk of %u columns for %u projected columns",
                       out->ncols, s->ncols);
    chunk_reset(out);
    record_plan_reset_regions(&s->plan);
    int rc = STRATA_OK;
    int64_t *ids = rowids ? rowids : s->own_ids; /* a write transaction's scan needs the rowids */
    if (s->reseek && s->returned && !s->rs_done) {
        if (s->last == INT64_MAX || s->last >= s->hi) {
            s->rs_done = 1;
        } else {
            uint8_t key[ROWID_KEY_LEN];
            rowid_encode(s->last + 1, key);
            if ((rc = btree_cursor_seek(s->cur, key, sizeof key, NULL))) goto fail;
        }
    }
    while (out->count == 0 && (!s->rs_done || s->rg)) {
        int rs_more = 0, rg_more = 0;
        int64_t rs_next = 0, rg_next = 0;
        if ((rc = rowstore_peek(s, &rs_more, &rs_next))) goto fail;
        if (s->rg && (rc = rowgroup_scan_peek(s->rg, &rg_more, &rg_next))) goto fail;
        if (s->rg && !rg_more) {
            rowgroup_scan_close(s->rg);
            s->rg = NULL;
        }
        if (rg_more && rs_more && rg_next == rs_next) {
            rc = err_set(err, STRATA_CORRUPT, "table with root page %u: rowid %lld is in both stores",
                         (unsigned)s->td->root, (long long)rs_next);
        } else if (rg_more && (!rs_more || rg_next < rs_next)) {
            rc = rowgroup_scan_next(s->rg, out, ids, rs_more ? rs_next - 1 : INT64_MAX);
        } else if (!rs_more) {
            break;
        } else if (s->ncols == 0 && rowids == NULL && !rg_more && s->hi == INT64_MAX && !s->reseek) {
            /* no column and no rowid wanted to the end of the table (count(*)): rows are counted a
            ** leaf at a time, not read */
            uint32_t n = 0;
            rc = btree_cursor_skip(s->cur, VECTOR_SIZE, &n);
            if (n < VECTOR_SIZE) s->rs_done = 1;
            out->count = n;
            return rc;
        } else {
            rc = rowstore_next(s, out, ids, rg_more ? rg_next - 1 : INT64_MAX);
        }
        if (rc) goto fail;
    }
    if (out->count && ids) {
        s->last = ids[out->count - 1];
        s->returned = 1;
    }
    return STRATA_OK;
fail:
    s->rs_done = 1;
    rowgroup_scan_close(s->rg);
    s->rg = NULL;
    return rc;
}

void table_scan_prune(table_scan *s, const rowgroup_pred *preds, uint32_t n) {
    if (s->rg) rowgroup_scan_prune(s->rg, preds, n);
}

void table_scan_filter(table_scan *s, uint32_t i, table_row_filter fn, void *arg) {
    if (s->rg) rowgroup_scan_filter(s->rg, i, fn, arg);
}

void table_scan_skip_groups(table_scan *s, const int64_t *firsts, uint32_t n) {
    if (s->rg) rowgroup_scan_skip(s->rg, firsts, n);
}

void table_scan_close(table_scan *s) {
    if (s == NULL) return;
    btree_cursor_close(s->cur);
    rowgroup_scan_close(s->rg);
    record_plan_free(&s->plan);
    free(s->own_ids);
    free(s);
}

/* ---- ranges for scans of their own --------------------------------------------------------- */

/* grow makes room for one more item of size bytes in *items (*n of them, *cap allocated). */
static int grow(void **items, uint32_t n, uint32_t *cap, size_t size, strata_err *err) {
    if (n < *cap) return STRATA_OK;
    uint32_t c = *cap ? 2 * *cap : 16;
    void *p = realloc(*items, c * size);
    if (!p) return err_set(err, STRATA_NOMEM, "out of memory (table scan ranges)");
    *items = p;
    *cap = c;
    return STRATA_OK;
}

/* What the two stores say of a range: its row groups and where its row-store leaves begin. */
typedef struct range_parts {
    rowgroup_desc *groups;
    uint32_t ngroups, cap_groups;
    int64_t *leaves; /* first rowids (at most: see btree_leaf_starts) of the leaves after the first */
    uint32_t nleaves, cap_leaves;
    int64_t lo, hi;
    strata_err *err;
} range_parts;

static int add_group(void *arg, const rowgroup_desc *d) {
    range_parts *p = arg;
    int rc = grow((void **)&p->groups, p->ngroups, &p->cap_groups, sizeof *p->groups, p->err);
    if (rc == STRATA_OK) p->groups[p->ngroups++] = *d;
    return rc;
}

static int add_leaf_start(void *arg, const uint8_t *key, size_t klen) {
    range_parts *p = arg;
    if (klen > ROWID_KEY_LEN)
        return err_set(p->err, STRATA_CORRUPT, "row tree: a separator of %zu bytes is not a rowid", klen);
    uint8_t k[ROWID_KEY_LEN] = {0}; /* a separator is a prefix: as a rowid, the smallest it bounds */
    memcpy(k, key, klen);
    int64_t r = rowid_decode(k);
    if (r <= p->lo || r > p->hi) return STRATA_OK;
    int rc = grow((void **)&p->leaves, p->nleaves, &p->cap_leaves, sizeof *p->leaves, p->err);
    if (rc == STRATA_OK) p->leaves[p->nleaves++] = r;
    return rc;
}

/* group_rows_in is the live rows of d in [lo, hi]: all of them, or its share by rowids. */
static uint64_t group_rows_in(const rowgroup_desc *d, int64_t lo, int64_t hi) {
    uint64_t live = d->rows - d->deleted;
    if (d->first >= lo && d->last <= hi) return live;
    int64_t a = d->first > lo ? d->first : lo, z = d->last < hi ? d->last : hi;
    double share = ((double)((uint64_t)z - (uint64_t)a) + 1) / ((double)((uint64_t)d->last - (uint64_t)d->first) + 1);
    return (uint64_t)((double)live * share + 0.5);
}

/* The ranges made so far and the open one: from start, rows rows. */
typedef struct range_cut {
    table_range *r;
    uint32_t n, cap;
    int64_t start;
    uint64_t rows, target;
    strata_err *err;
} range_cut;

/* cut_end closes the open range at rowid end. */
static int cut_end(range_cut *c, int64_t end) {
    int rc = grow((void **)&c->r, c->n, &c->cap, sizeof *c->r, c->err);
    if (rc) return rc;
    c->r[c->n++] = (table_range){c->start, end, c->rows};
    c->rows = 0;
    return STRATA_OK;
}

/* cut_piece adds rows beginning at rowid at, where a range may begin (at >= the open range's
** start): the open range closes before at when it holds its target, or is nearer the target
** without the piece than with it (so a row group with a few rows deleted is still a range). */
static int cut_piece(range_cut *c, int64_t at, uint64_t rows) {
    if (at > c->start && (c->rows >= c->target || (c->rows && 2 * c->rows + rows > 2 * c->target))) {
        int rc = cut_end(c, at - 1);
        if (rc) return rc;
        c->start = at;
    }
    c->rows += rows;
    return STRATA_OK;
}

int table_scan_ranges(pager_txn *t, const table_desc *td, int64_t lo, int64_t hi, uint64_t target_rows,
                      table_range **out, uint32_t *n) {
    *out = NULL;
    *n = 0;
    if (lo > hi) return STRATA_OK;
    range_parts p = {.lo = lo, .hi = hi, .err = pager_txn_err(t)};
    uint8_t lok[ROWID_KEY_LEN], hik[ROWID_KEY_LEN];
    rowid_encode(lo, lok);
    rowid_encode(hi, hik);
    uint64_t per_leaf = 0;
    int rc = rowgroup_foreach_in(t, td, lo, hi, add_group, &p);
    if (rc == STRATA_OK) rc = btree_leaf_starts(t, td->root, lok, sizeof lok, hik, sizeof hik, add_leaf_start, &p, &per_leaf);
    /* the stores' pieces in rowid order: a row group whole, a leaf from where it begins */
    range_cut c = {.start = lo, .rows = per_leaf, .target = target_rows ? target_rows : 1, .err = p.err};
    uint32_t g = 0, l = 0;
    while (rc == STRATA_OK && (g < p.ngroups || l < p.nleaves)) {
        if (l < p.nleaves && (g == p.ngroups || p.leaves[l] < p.groups[g].first)) {
            rc = cut_piece(&c, p.leaves[l++], per_leaf);
            continue;
        }
        const rowgroup_desc *d = &p.groups[g++];
        rc = cut_piece(&c, d->first > lo ? d->first : lo, group_rows_in(d, lo, hi));
        for (; l < p.nleaves && p.leaves[l] <= d->last; l++) c.rows += per_leaf; /* no cut inside d */
        if (rc == STRATA_OK && d->last < hi) rc = cut_piece(&c, d->last + 1, 0);
    }
    if (rc == STRATA_OK && c.n && !c.rows) c.r[c.n - 1].hi = hi; /* nothing after: the last range goes on */
    else if (rc == STRATA_OK) rc = cut_end(&c, hi);
    free(p.groups);
    free(p.leaves);
    if (rc) {
        free(c.r);
        return rc;
    }
    *out = c.r;
    *n = c.n;
    return STRATA_OK;
}

void table_ranges_free(table_range *r) { free(r); }

struct table_reader {
    const table_desc *td;
    const uint32_t *cols;
    uint32_t ncols;
    rowgroup_reader *rg; /* made at the first migrated row */
};

int table_reader_open(const table_desc *td, const uint32_t *cols, uint32_t ncols, table_reader **out) {
    table_reader *r = calloc(1, sizeof *r);
    *out = r;
    if (r == NULL) return STRATA_NOMEM;
    *r = (table_reader){td, cols, ncols, NULL};
    return STRATA_OK;
}

void table_reader_close(table_reader *r) {
    if (r == NULL) return;
    rowgroup_reader_close(r->rg);
    free(r);
}

/* A rowid that a row group open in the reader holds live is read there without a look into the
** row tree: a live row is in one store only (an UPDATE of a migrated row marks it deleted in its
** row group before its new version goes to the row tree). Any other rowid is looked up in the
** row tree first, then in the row groups. */
int table_reader_get(table_reader *r, pager_txn *t, const int64_t *rowids, uint32_t count, data_chunk *out,
                     uint8_t *found) {
    const table_desc *td = r->td;
    strata_err *err = pager_txn_err(t);
    if ((size_t)out->count + count > VECTOR_SIZE)
        return err_set(err, STRATA_MISUSE, "table_get of %u rows into a chunk holding %u", count, out->count);
    if (count == 0) return STRATA_OK;
    if (r->rg) rowgroup_reader_rebind(r->rg, t);
    record_plan plan;
    btree_cursor *c = NULL; /* opened at the first row not read from a row group */
    int rc = record_plan_init(&plan, td, r->cols, r->ncols, 0, err);
    if (rc) return rc;
    for (uint32_t k = 0; k < count; k++) {
        int exact = 0, tried = 0;
        if (r->rg && rowgroup_reader_holds(r->rg, rowids[k])) {
            if ((rc = rowgroup_reader_get(r->rg, rowids[k], out, &exact))) goto done;
            tried = 1;
            if (exact) {
                if (found) found[k] = 1;
                continue;
            }
        }
        if (!c && (rc = btree_cursor_open(t, td->root, &c))) goto done;
        uint8_t key[ROWID_KEY_LEN];
        rowid_encode(rowids[k], key);
        if ((rc = btree_cursor_seek(c, key, sizeof key, &exact))) goto done;
        if (!exact && td->col_root && !tried) { /* a migrated row? */
            if ((!r->rg && (rc = rowgroup_reader_open(t, td, r->cols, r->ncols, &r->rg))) ||
                (rc = rowgroup_reader_get(r->rg, rowids[k], out, &exact)))
                goto done;
            if (found) found[k] = (uint8_t)exact;
            continue;
        }
        if (found) found[k] = (uint8_t)exact;
        if (!exact) continue;
        const uint8_t *val;
        size_t vlen;
        if ((rc = btree_cursor_value(c, &val, &vlen))) goto done;
        const char *why = NULL;
        if ((rc = record_decode(&plan, val, vlen, out, out->count, &why, err))) {
            if (rc == STRATA_CORRUPT) corrupt_record(err, td, rowids[k], why);
            goto done;
        }
        out->count++;
    }
done:
    btree_cursor_close(c);
    record_plan_free(&plan);
    return rc;
}

int table_get(pager_txn *t, const table_desc *td, const uint32_t *cols, uint32_t ncols, const int64_t *rowids,
              uint32_t count, data_chunk *out, uint8_t *found) {
    table_reader r = {td, cols, ncols, NULL};
    int rc = table_reader_get(&r, t, rowids, count, out, found);
    rowgroup_reader_close(r.rg);
    return rc;
}

/* ---- indexes ------------------------------------------------------------------------------ */

/* INDEX_KEY_STACK: index keys up to this size are built on the stack. */
#define INDEX_KEY_STACK 512

enum { ENTRY_DELETE, ENTRY_PUT, ENTRY_PUT_UNIQUE };

/* index_entry_op calls btree_delete, btree_put or btree_insert_unique (op) on the entry key ||
** rowid. */
static int index_entry_op(pager_txn *t, pgno_t root, const uint8_t *key, size_t klen, int64_t rowid, int op) {
    uint8_t stack[INDEX_KEY_STACK];
    uint8_t *e = stack;
    size_t elen = klen + ROWID_KEY_LEN;
    if (elen > sizeof stack && (e = malloc(elen)) == NULL)
        return err_set(pager_txn_err(t), STRATA_NOMEM, "out of memory (index key of %zu bytes)", elen);
    if (klen) memcpy(e, key, klen);
    rowid_encode(rowid, e + klen);
    int rc;
    if (op == ENTRY_PUT) {
        rc = btree_put(t, root, e, elen, NULL, 0);
    } else if (op == ENTRY_PUT_UNIQUE) {
        rc = btree_insert_unique(t, root, e, elen, klen);
    } else {
        rc = btree_delete(t, root, e, elen);
        if (rc == STRATA_NOTFOUND)
            err_set(pager_txn_err(t), STRATA_NOTFOUND, "index with root page %u: no entry for rowid %lld",
                    (unsigned)root, (long long)rowid);
    }
    if (e != stack) free(e);
    return rc;
}

int index_insert(pager_txn *t, pgno_t root, const uint8_t *key, size_t klen, int64_t rowid) {
    return index_entry_op(t, root, key, klen, rowid, ENTRY_PUT);
}

int index_insert_unique(pager_txn *t, pgno_t root, const uint8_t *key, size_t klen, int64_t rowid) {
    return index_entry_op(t, root, key, klen, rowid, ENTRY_PUT_UNIQUE);
}

int index_delete(pager_txn *t, pgno_t root, const uint8_t *key, size_t klen, int64_t rowid) {
    return index_entry_op(t, root, key, klen, rowid, ENTRY_DELETE);
}

/* entry_rowid reads the rowid at the end of an index entry. */
static int entry_rowid(const uint8_t *e, size_t elen, pgno_t root, strata_err *err, int64_t *rowid) {
    if (elen < ROWID_KEY_LEN)
        return err_set(err, STRATA_CORRUPT, "index with root page %u: an entry of %zu bytes has no rowid",
                       (unsigned)root, elen);
    *rowid = rowid_decode(e + elen - ROWID_KEY_LEN);
    return STRATA_OK;
}

int index_find_first(pager_txn *t, pgno_t root, const uint8_t *key, size_t klen, int64_t *rowid) {
    btree_cursor *c = NULL;
    int rc = btree_cursor_open(t, root, &c);
    if (rc == STRATA_OK) rc = btree_cursor_seek(c, key, klen, NULL);
    if (rc == STRATA_OK) {
        const uint8_t *e;
        size_t elen;
        rc = STRATA_NOTFOUND;
        if (btree_cursor_valid(c) && btree_cursor_key(c, &e, &elen) == STRATA_OK && elen >= klen + ROWID_KEY_LEN &&
            (klen == 0 || memcmp(e, key, klen) == 0))
            rc = entry_rowid(e, elen, root, pager_txn_err(t), rowid);
    }
    btree_cursor_close(c);
    return rc;
}

struct index_scan {
    pager_txn *t;
    pgno_t root;
    btree_cursor *cur;
    uint8_t *hi; /* a copy; NULL: no upper bound */
    size_t hi_len;
    int hi_inclusive;
    int reseek;      /* write transaction: seek past last before reading on */
    btree_buf last;  /* the last entry returned (write transactions) */
    int returned;
    int done;
};

/* prefix_successor turns p[0..*len) into the smallest byte string greater than every string that
** starts with it (trailing 0xFF bytes dropped, the last other byte incremented). Returns 0 when
** there is none (p is empty or all 0xFF). */
static int prefix_successor(uint8_t *p, size_t *len) {
    while (*len > 0 && p[*len - 1] == 0xFF) (*len)--;
    if (*len == 0) return 0;
    p[*len - 1]++;
    return 1;
}

int index_scan_open(pager_txn *t, pgno_t root, const uint8_t *lo, size_t lo_len, int lo_inclusive,
                    const uint8_t *hi, size_t hi_len, int hi_inclusive, index_scan **out) {
    strata_err *err = pager_txn_err(t);
    *out = NULL;
    index_scan *s = calloc(1, sizeof *s);
    if (s == NULL) return err_set(err, STRATA_NOMEM, "out of memory (index scan)");
    s->t = t;
    s->root = root;
    s->hi_inclusive = hi_inclusive;
    s->reseek = pager_txn_is_write(t);
    int rc = STRATA_OK;
    uint8_t *lo_copy = NULL;
    if (hi != NULL) {
        if ((s->hi = malloc(hi_len ? hi_len : 1)) == NULL) goto nomem;
        if (hi_len) memcpy(s->hi, hi, hi_len);
        s->hi_len = hi_len;
    }
    if ((rc = btree_cursor_open(t, root, &s->cur))) goto fail;
    if (lo == NULL) {
        rc = btree_cursor_first(s->cur);
    } else if (lo_inclusive) {
        rc = btree_cursor_seek(s->cur, lo, lo_len, NULL);
    } else {
        if ((lo_copy = malloc(lo_len ? lo_len : 1)) == NULL) goto nomem;
        if (lo_len) memcpy(lo_copy, lo, lo_len);
        size_t n = lo_len;
        if (prefix_successor(lo_copy, &n))
            rc = btree_cursor_seek(s->cur, lo_copy, n, NULL);
        else
            s->done = 1;
    }
    free(lo_copy);
    if (rc) goto fail;
    *out = s;
    return STRATA_OK;
nomem:
    free(lo_copy);
    rc = err_set(err, STRATA_NOMEM, "out of memory (index scan)");
fail:
    index_scan_close(s);
    return rc;
}

/* past_hi says whether entry e lies beyond the scan's upper bound. */
static int past_hi(const index_scan *s, const uint8_t *e, size_t elen) {
    if (s->hi == NULL) return 0;
    size_t m = elen < s->hi_len ? elen : s->hi_len;
    int c = m ? memcmp(e, s->hi, m) : 0;
    if (c != 0) return c > 0;
    if (elen < s->hi_len) return 0; /* a proper prefix of hi sorts before it */
    return !s->hi_inclusive;        /* e starts with hi */
}

int index_scan_next(index_scan *s, int64_t *rowids, uint32_t max, uint32_t *n) {
    return index_scan_next_keys(s, rowids, max, n, NULL, NULL);
}

int index_scan_next_keys(index_scan *s, int64_t *rowids, uint32_t max, uint32_t *n, btree_buf *keys,
                         uint32_t *key_off) {
    strata_err *err = pager_txn_err(s->t);
    if (keys) {
        keys->len = 0;
        key_off[0] = 0;
    }
    *n = 0;
    if (s->done || max == 0) return STRATA_OK;
    btree_cursor *c = s->cur;
    uint32_t k = 0;
    int rc;
    if (s->reseek && s->returned) {
        int exact = 0;
        if ((rc = btree_cursor_seek(c, s->last.data, s->last.len, &exact))) goto fail;
        if (exact && (rc = btree_cursor_next(c))) goto fail;
    }
    const uint8_t *e = NULL;
    size_t elen = 0;
    while (k < max) {
        if (!btree_cursor_valid(c)) {
            s->done = 1;
            break;
        }
        if ((rc = btree_cursor_key(c, &e, &elen))) goto fail;
        if (past_hi(s, e, elen)) {
            s->done = 1;
            break;
        }
        if ((rc = entry_rowid(e, elen, s->root, err, &rowids[k]))) goto fail;
        if (keys) {
            size_t kl = elen - ROWID_KEY_LEN;
            if ((rc = record_buf_reserve(keys, kl, err))) goto fail;
            memcpy(keys->data + keys->len, e, kl);
            keys->len += kl;
            key_off[k + 1] = (uint32_t)keys->len;
        }
        k++;
        if (s->reseek) {
            s->last.len = 0;
            if ((rc = record_buf_reserve(&s->last, elen, err))) goto fail;
            memcpy(s->last.data, e, elen);
            s->last.len = elen;
            s->returned = 1;
        }
        if ((rc = btree_cursor_next(c))) goto fail;
    }
    *n = k;
    return STRATA_OK;
fail:
    *n = k;
    s->done = 1;
    return rc;
}

void index_scan_close(index_scan *s) {
    if (s == NULL) return;
    btree_cursor_close(s->cur);
    btree_buf_free(&s->last);
    free(s->hi);
    free(s);
}
