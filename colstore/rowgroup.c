/*
** rowgroup.c -- row groups in a table's column tree (rowgroup.h): writing them from the row
** store (the tuple mover), scanning and point-reading their live rows, deleting through their
** CRoaring bitmaps.
**
** A row group is read through a `group` (below): its descriptor, its deletion bitmap, the
** reader of its rowid segment and, opened on demand, the readers of the columns a caller
** projects. Segment bytes are copied out of the column tree's overflow pages into buffers the
** group owns (the pages are not pinned between calls, so a write transaction may change the tree
** beside a scan).
**
** What it is not: no encoding (segment.c), no row-store records (record.c), no merging with the
** row store (table.c does that, in rowid order).
*/
#include "rowgroup.h"

#include <roaring/roaring.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "record.h"
#include "segcache.h"
#include "segment.h"
#include "../vector/kernel.h"

#define DESC_VERSION 1
#define DESC_SIZE (1 + 4 + 4 + 8 + 8 + 8 + 4)
#define GROUP_KEY_LEN (1 + ROWID_KEY_LEN)
#define SEG_KEY_LEN (1 + ROWID_KEY_LEN + 4)
#define STATS_VERSION 1
#define STATS_HEADER (1 + 1 + 8 + 4 + 4) /* version, HLL_BITS, row group id, columns, raw length */
#define FEW_ROWS 128 /* a scan reads this few rows of a vector one value at a time (segment_get_rows) */

/* ---- keys and descriptors ----------------------------------------------------------------- */

static void group_key(uint8_t *k, char tag, int64_t first) {
    k[0] = (uint8_t)tag;
    rowid_encode(first, k + 1);
}

static void seg_key(uint8_t k[SEG_KEY_LEN], int64_t first, uint32_t col) {
    group_key(k, 's', first);
    for (int i = 0; i < 4; i++) k[1 + ROWID_KEY_LEN + i] = (uint8_t)(col >> (24 - 8 * i));
}

static void put_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void desc_encode(const rowgroup_desc *d, uint8_t out[DESC_SIZE]) {
    out[0] = DESC_VERSION;
    put_le(out + 1, d->rows, 4);
    put_le(out + 5, d->ncols, 4);
    put_le(out + 9, (uint64_t)d->first, 8);
    put_le(out + 17, (uint64_t)d->last, 8);
    put_le(out + 25, d->id, 8);
    put_le(out + 33, d->deleted, 4);
}

static int group_corrupt(pager_txn *t, const table_desc *td, int64_t first, const char *what) {
    return err_set(pager_txn_err(t), STRATA_CORRUPT, "table with root page %u: row group at rowid %lld: %s",
                   (unsigned)td->root, (long long)first, what);
}

static int desc_decode(pager_txn *t, const table_desc *td, const uint8_t *key, const uint8_t *v, size_t len,
                       rowgroup_desc *d) {
    int64_t first = rowid_decode(key + 1);
    if (len != DESC_SIZE || v[0] != DESC_VERSION) return group_corrupt(t, td, first, "malformed descriptor");
    d->rows = (uint32_t)get_le(v + 1, 4);
    d->ncols = (uint32_t)get_le(v + 5, 4);
    d->first = (int64_t)get_le(v + 9, 8);
    d->last = (int64_t)get_le(v + 17, 8);
    d->id = get_le(v + 25, 8);
    d->deleted = (uint32_t)get_le(v + 33, 4);
    if (d->first != first || d->rows == 0 || d->rows > ROWGROUP_ROWS || d->last < d->first ||
        (uint64_t)(d->last - d->first) < d->rows - 1 || d->deleted >= d->rows)
        return group_corrupt(t, td, first, "inconsistent descriptor");
    return STRATA_OK;
}

/* cursor_group reads the descriptor under cursor c into d: *is_group = 0 when the entry is not
** a descriptor (or the cursor is past the end). */
static int cursor_group(pager_txn *t, const table_desc *td, btree_cursor *c, rowgroup_desc *d, int *is_group) {
    *is_group = 0;
    if (!btree_cursor_valid(c)) return STRATA_OK;
    const uint8_t *k, *v;
    size_t klen, vlen;
    int rc = btree_cursor_entry(c, &k, &klen, &v, &vlen);
    if (rc) return rc;
    if (klen != GROUP_KEY_LEN || k[0] != 'g') return STRATA_OK;
    *is_group = 1;
    return desc_decode(t, td, k, v, vlen, d);
}

/* group_at_or_before finds the row group with the largest first rowid <= rowid (*found = 0 when
** there is none). */
static int group_at_or_before(pager_txn *t, const table_desc *td, int64_t rowid, rowgroup_desc *d, int *found) {
    *found = 0;
    if (!td->col_root) return STRATA_OK;
    btree_cursor *c = NULL;
    int rc = btree_cursor_open(t, td->col_root, &c);
    if (rc) return rc;
    uint8_t key[GROUP_KEY_LEN];
    group_key(key, 'g', rowid);
    int exact = 0;
    if ((rc = btree_cursor_seek(c, key, sizeof key, &exact))) goto done;
    if (!exact) rc = btree_cursor_valid(c) ? btree_cursor_prev(c) : btree_cursor_last(c);
    if (rc == STRATA_OK) rc = cursor_group(t, td, c, d, found);
done:
    btree_cursor_close(c);
    return rc;
}

/* find_group finds the row group whose rowid range holds rowid. */
static int find_group(pager_txn *t, const table_desc *td, int64_t rowid, rowgroup_desc *d, int *found) {
    int rc = group_at_or_before(t, td, rowid, d, found);
    if (rc == STRATA_OK && *found) *found = rowid <= d->last;
    return rc;
}

/* group_after finds the row group with the smallest first rowid above rowid. */
static int group_after(pager_txn *t, const table_desc *td, int64_t rowid, rowgroup_desc *d, int *found) {
    *found = 0;
    if (!td->col_root || rowid == INT64_MAX) return STRATA_OK;
    btree_cursor *c = NULL;
    int rc = btree_cursor_open(t, td->col_root, &c);
    if (rc) return rc;
    uint8_t key[GROUP_KEY_LEN];
    group_key(key, 'g', rowid + 1);
    if ((rc = btree_cursor_seek(c, key, sizeof key, NULL)) == STRATA_OK) rc = cursor_group(t, td, c, d, found);
    btree_cursor_close(c);
    return rc;
}

int rowgroup_foreach_in(pager_txn *t, const table_desc *td, int64_t lo, int64_t hi,
                        int (*fn)(void *arg, const rowgroup_desc *d), void *arg) {
    if (!td->col_root || lo > hi) return STRATA_OK;
    rowgroup_desc d;
    int found = 0, rc = lo == INT64_MIN ? STRATA_OK : group_at_or_before(t, td, lo, &d, &found);
    if (rc) return rc;
    btree_cursor *c = NULL;
    if ((rc = btree_cursor_open(t, td->col_root, &c))) return rc;
    uint8_t key[GROUP_KEY_LEN];
    group_key(key, 'g', found && d.last >= lo ? d.first : lo); /* from the group that holds lo */
    if ((rc = btree_cursor_seek(c, key, sizeof key, NULL))) goto done;
    for (;;) {
        int is_group;
        if ((rc = cursor_group(t, td, c, &d, &is_group)) || !is_group || d.first > hi) break;
        if ((rc = fn(arg, &d)) || (rc = btree_cursor_next(c))) break;
    }
done:
    btree_cursor_close(c);
    return rc;
}

int rowgroup_foreach(pager_txn *t, const table_desc *td, int (*fn)(void *arg, const rowgroup_desc *d), void *arg) {
    return rowgroup_foreach_in(t, td, INT64_MIN, INT64_MAX, fn, arg);
}

int rowgroup_last_rowid(pager_txn *t, const table_desc *td, int64_t *last, int *any) {
    *last = 0;
    *any = 0;
    rowgroup_desc d;
    int rc = group_at_or_before(t, td, INT64_MAX, &d, any);
    if (rc == STRATA_OK && *any) *last = d.last;
    return rc;
}

/* ---- an open row group -------------------------------------------------------------------- */

typedef struct group_col {
    segment_reader *rd; /* the open reader: &own, or a cached entry's */
    segment_reader own;
    btree_buf buf;          /* own's bytes */
    segcache_entry *held;   /* the cache entry rd belongs to, or NULL */
    segcache *cache;        /* ... in this cache */
    int open;   /* rd is open */
    int stored; /* the row group stores this column (else it reads as the added default) */
} group_col;

typedef struct group {
    rowgroup_desc d;
    roaring_bitmap_t *del; /* NULL: none deleted */
    group_col rowid;       /* the rowid segment */
    group_col *cols;       /* [ncols] projected columns */
    uint32_t ncols;
} group;

static void group_col_close(group_col *c) {
    if (c->held) segcache_release(c->cache, c->held);
    else if (c->open) segment_reader_close(&c->own);
    c->held = NULL;
    c->open = 0;
}

static void group_close(group *g) {
    if (g->del) roaring_bitmap_free(g->del);
    g->del = NULL;
    group_col_close(&g->rowid);
    for (uint32_t i = 0; i < g->ncols; i++) group_col_close(&g->cols[i]);
}

static void group_free(group *g) {
    group_close(g);
    btree_buf_free(&g->rowid.buf);
    for (uint32_t i = 0; i < g->ncols; i++) btree_buf_free(&g->cols[i].buf);
    free(g->cols);
    g->cols = NULL;
}

/* load_bitmap reads the deletion bitmap of row group d into *out (NULL when none is stored). */
static int load_bitmap(pager_txn *t, const table_desc *td, const rowgroup_desc *d, roaring_bitmap_t **out) {
    *out = NULL;
    if (d->deleted == 0) return STRATA_OK; /* a bitmap is stored only once a row is deleted */
    uint8_t key[GROUP_KEY_LEN];
    group_key(key, 'x', d->first);
    btree_buf b = {0};
    int rc = btree_get(t, td->col_root, key, sizeof key, &b);
    if (rc == STRATA_NOTFOUND) {
        btree_buf_free(&b);
        return d->deleted ? group_corrupt(t, td, d->first, "its deletion bitmap is missing") : STRATA_OK;
    }
    if (rc) {
        btree_buf_free(&b);
        return rc;
    }
    roaring_bitmap_t *r = roaring_bitmap_portable_deserialize_safe((const char *)b.data, b.len);
    btree_buf_free(&b);
    if (r == NULL) return group_corrupt(t, td, d->first, "its deletion bitmap does not parse");
    if (roaring_bitmap_get_cardinality(r) != d->deleted ||
        (d->deleted && roaring_bitmap_maximum(r) >= d->rows)) {
        roaring_bitmap_free(r);
        return group_corrupt(t, td, d->first, "its deletion bitmap does not match its descriptor");
    }
    *out = r;
    return STRATA_OK;
}

/* open_segment opens the segment of column col (type type) of row group d into c: from the
** table's segment cache when it holds it, else read from the column tree (and then cached when
** the transaction only reads: see segcache.h). */
/* group_committed: row group d was committed before t began (ids are given in increasing order,
** ROWGROUP_ID_SLOT holding the last), so its segments are the same in every later transaction,
** even one that rolls back: they may go into the segment cache. A group t made itself may not (its
** id is given again after a rollback). */
static int group_committed(const pager_txn *t, const rowgroup_desc *d) {
    return !pager_txn_is_write(t) || d->id <= pager_meta_begin(t, ROWGROUP_ID_SLOT);
}

static int open_segment(pager_txn *t, const table_desc *td, const rowgroup_desc *d, uint32_t col, sql_type type,
                        group_col *c) {
    c->cache = td->cache;
    if (td->cache && (c->held = segcache_get(td->cache, d->id, col))) {
        c->rd = segcache_reader(c->held);
        c->open = 1;
        return STRATA_OK;
    }
    uint8_t key[SEG_KEY_LEN];
    seg_key(key, d->first, col);
    int rc = btree_get(t, td->col_root, key, sizeof key, &c->buf);
    if (rc == STRATA_NOTFOUND) {
        if (col == ROWGROUP_ROWID_COL) return group_corrupt(t, td, d->first, "its rowid segment is missing");
        return err_set(pager_txn_err(t), STRATA_CORRUPT,
                       "table with root page %u: row group at rowid %lld: the segment of column %u is missing",
                       (unsigned)td->root, (long long)d->first, col);
    }
    if (rc) return rc;
    strata_err why; /* the segment's reason, t's once prefixed: t's slot may be shared by workers */
    err_clear(&why);
    if ((rc = segment_open(&c->own, c->buf.data, c->buf.len, type, &why))) {
        if (rc == STRATA_CORRUPT) { /* say which row group and column, before the segment's reason */
            char name[16];
            if (col == ROWGROUP_ROWID_COL) snprintf(name, sizeof name, "rowid");
            else snprintf(name, sizeof name, "%u", col);
            err_set(pager_txn_err(t), STRATA_CORRUPT, "table with root page %u: row group at rowid %lld, column %s: %s",
                    (unsigned)td->root, (long long)d->first, name, why.msg);
        }
        err_copy(pager_txn_err(t), &why);
        return rc;
    }
    c->rd = &c->own;
    c->open = 1;
    if (segment_rows(c->rd) != d->rows) {
        group_col_close(c);
        return group_corrupt(t, td, d->first, "a segment's row count differs from the descriptor's");
    }
    if (td->cache && group_committed(t, d) && (c->held = segcache_put(td->cache, d->id, col, &c->buf, &c->own)))
        c->rd = segcache_reader(c->held);
    return STRATA_OK;
}

static const sql_type ROWID_TYPE = {.id = TYPE_BIGINT};

/* group_dense says whether the rowids of g have no gaps: position p holds rowid first + p. */
static inline int group_dense(const group *g) { return (uint64_t)(g->d.last - g->d.first) == g->d.rows - 1; }

/* group_load makes g the row group d: bitmap and rowid segment now, columns on demand. */
static int group_load(pager_txn *t, const table_desc *td, group *g, const rowgroup_desc *d) {
    group_close(g);
    g->d = *d;
    int rc = load_bitmap(t, td, d, &g->del);
    if (rc == STRATA_OK) rc = open_segment(t, td, d, ROWGROUP_ROWID_COL, ROWID_TYPE, &g->rowid);
    return rc;
}

/* group_col_ready opens projected column i (table column col) of the group when it is stored. */
static int group_col_ready(pager_txn *t, const table_desc *td, group *g, uint32_t i, uint32_t col) {
    group_col *c = &g->cols[i];
    c->stored = col < g->d.ncols;
    if (c->open || !c->stored) return STRATA_OK;
    return open_segment(t, td, &g->d, col, td->types[col], c);
}

static int group_is_deleted(const group *g, uint32_t pos) { return g->del && roaring_bitmap_contains(g->del, pos); }

/* fill_default sets rows [from, to) of v to the added default of column col (NULL when none). */
static int fill_default(const table_desc *td, uint32_t col, vector *v, uint32_t from, uint32_t to, strata_err *err) {
    const sql_value *dflt = td->defaults ? &td->defaults[col] : NULL;
    for (uint32_t r = from; r < to; r++) {
        int rc = record_set_value(v, r, dflt, err);
        if (rc) return rc;
    }
    return STRATA_OK;
}

/* ---- scans -------------------------------------------------------------------------------- */

static int seek_rowid(pager_txn *t, group *g, int64_t rowid, vector *ids, uint32_t *ids_k, uint32_t *pos,
                      int *exact);

struct rowgroup_scan {
    pager_txn *t;
    const table_desc *td;
    const uint32_t *cols;
    int64_t lo, hi;
    group g;
    int have; /* g holds a row group */
    int done;
    uint32_t pos;     /* the next position to look at in g */
    vector rowids;    /* the decoded rowids of vector rowids_k of g */
    uint32_t rowids_k; /* UINT32_MAX: none decoded */
    int reload;       /* write transaction: reread the bitmap before each call */
    rowgroup_pred preds[ROWGROUP_MAX_PREDS]; /* rowgroup_scan_prune */
    uint32_t npreds;
    struct {
        rowgroup_row_filter fn; /* rowgroup_scan_filter: on projected column col */
        void *arg;
        uint32_t col;
    } filters[ROWGROUP_MAX_FILTERS];
    uint32_t nfilters;
    uint32_t checked_k; /* the vector of g whose zone maps were checked last (UINT32_MAX: none) */
    uint64_t skipped;
    const int64_t *skip; /* rowgroup_scan_skip: first rowids of groups not read, ascending */
    uint32_t nskip, skip_at;
};

void rowgroup_scan_skip(rowgroup_scan *s, const int64_t *firsts, uint32_t n) {
    s->skip = firsts;
    s->nskip = n;
}

void rowgroup_scan_filter(rowgroup_scan *s, uint32_t i, rowgroup_row_filter fn, void *arg) {
    if (i >= s->g.ncols || s->nfilters == ROWGROUP_MAX_FILTERS) return;
    s->filters[s->nfilters].fn = fn, s->filters[s->nfilters].arg = arg, s->filters[s->nfilters++].col = i;
}

void rowgroup_scan_prune(rowgroup_scan *s, const rowgroup_pred *preds, uint32_t n) {
    s->npreds = n < ROWGROUP_MAX_PREDS ? n : ROWGROUP_MAX_PREDS;
    for (uint32_t i = 0; i < s->npreds; i++)
        if (preds[i].i < s->g.ncols) s->preds[i] = preds[i];
        else s->npreds = i; /* not a projected column: keep the ones before */
}

uint64_t rowgroup_scan_skipped(const rowgroup_scan *s) { return s->skipped; }

/* zone_may_pass says whether a row of zone z may meet `value op c` (NULLs never do). */
static int zone_may_pass(const seg_zone *z, uint8_t phys, const rowgroup_pred *p) {
    if (z->rows == 0 || z->null_count == z->rows) return z->rows == 0;
    if (!z->has_minmax || phys == PHYS_STR || phys == PHYS_INTERVAL) return 1;
    int lo_cmp, hi_cmp; /* min vs c, max vs c: -1, 0, 1 */
    if (phys == PHYS_F64) {
        if (isnan(p->c.d) || isnan(z->min_d) || isnan(z->max_d)) return 1; /* NaN sorts last: keep it simple */
        lo_cmp = (z->min_d > p->c.d) - (z->min_d < p->c.d);
        hi_cmp = (z->max_d > p->c.d) - (z->max_d < p->c.d);
    } else {
        lo_cmp = (z->min_i > p->c.i) - (z->min_i < p->c.i);
        hi_cmp = (z->max_i > p->c.i) - (z->max_i < p->c.i);
    }
    switch (p->op) {
    case SEG_EQ: return lo_cmp <= 0 && hi_cmp >= 0;
    case SEG_NE: return !(lo_cmp == 0 && hi_cmp == 0);
    case SEG_LT: return lo_cmp < 0;
    case SEG_LE: return lo_cmp <= 0;
    case SEG_GT: return hi_cmp > 0;
    default: return hi_cmp >= 0;
    }
}

static int group_col_ready(pager_txn *t, const table_desc *td, group *g, uint32_t i, uint32_t col);

/* pruned sets *skip when the zone maps of vector k of the current group (k = -1: of the whole
** group) show that no row meets every condition of the scan. */
static int pruned(rowgroup_scan *s, int k, int *skip) {
    *skip = 0;
    for (uint32_t j = 0; j < s->npreds && !*skip; j++) {
        const rowgroup_pred *p = &s->preds[j];
        int rc = group_col_ready(s->t, s->td, &s->g, p->i, s->cols[p->i]);
        if (rc) return rc;
        group_col *c = &s->g.cols[p->i];
        if (!c->stored) continue; /* the added default: no zone map */
        seg_zone z;
        if (segment_zone(c->rd, k, &z)) continue;
        *skip = !zone_may_pass(&z, c->rd->phys, p);
    }
    return STRATA_OK;
}

void rowgroup_scan_close(rowgroup_scan *s) {
    if (s == NULL) return;
    group_free(&s->g);
    vec_free(&s->rowids);
    free(s);
}

int rowgroup_scan_open(pager_txn *t, const table_desc *td, const uint32_t *cols, uint32_t ncols, int64_t lo,
                       int64_t hi, rowgroup_scan **out) {
    strata_err *err = pager_txn_err(t);
    *out = NULL;
    rowgroup_scan *s = calloc(1, sizeof *s);
    if (s == NULL) return err_set(err, STRATA_NOMEM, "out of memory (row group scan)");
    s->t = t;
    s->td = td;
    s->cols = cols;
    s->lo = lo;
    s->hi = hi;
    s->rowids_k = UINT32_MAX;
    s->checked_k = UINT32_MAX;
    s->reload = pager_txn_is_write(t);
    s->g.ncols = ncols;
    int rc = STRATA_NOMEM;
    if (ncols && (s->g.cols = calloc(ncols, sizeof *s->g.cols)) == NULL) {
        err_set(err, rc, "out of memory (row group scan)");
        goto fail;
    }
    if ((rc = vec_init(&s->rowids, ROWID_TYPE, err))) goto fail;
    s->done = !td->col_root || lo > hi;
    *out = s;
    return STRATA_OK;
fail:
    rowgroup_scan_close(s);
    return rc;
}

/* next_group loads the first row group after the current one (or the one holding lo) that
** reaches into [lo, hi]; s->done when none is left. */
static int next_group(rowgroup_scan *s) {
    rowgroup_desc d;
    int found = 0, rc;
    if (s->have) { /* the one after the current group */
        rc = s->g.d.last < s->hi ? group_after(s->t, s->td, s->g.d.last, &d, &found) : STRATA_OK;
    } else { /* the group holding lo (it may start before lo), else the first one after lo */
        rc = group_at_or_before(s->t, s->td, s->lo, &d, &found);
        if (rc == STRATA_OK && (!found || d.last < s->lo)) rc = group_after(s->t, s->td, s->lo, &d, &found);
    }
    if (rc || !found || d.first > s->hi) {
        s->done = 1;
        return rc;
    }
    if ((rc = group_load(s->t, s->td, &s->g, &d))) {
        s->done = 1;
        return rc;
    }
    s->have = 1;
    s->pos = 0;
    s->rowids_k = UINT32_MAX;
    s->checked_k = UINT32_MAX;
    while (s->skip_at < s->nskip && s->skip[s->skip_at] < d.first) s->skip_at++;
    if (s->skip_at < s->nskip && s->skip[s->skip_at] == d.first) { /* the caller's to skip */
        s->pos = d.rows;
        return STRATA_OK;
    }
    int skip;
    if (s->npreds && (rc = pruned(s, -1, &skip)) == STRATA_OK && skip) { /* the whole group */
        s->skipped += (d.rows + VECTOR_SIZE - 1) / VECTOR_SIZE;
        s->pos = d.rows;
        return STRATA_OK;
    }
    if (rc) {
        s->done = 1;
        return rc;
    }
    int exact;
    if (s->lo > d.first && (rc = seek_rowid(s->t, &s->g, s->lo, &s->rowids, &s->rowids_k, &s->pos, &exact)))
        s->done = 1;
    return rc;
}

/* id_at is the rowid at position p of g, from ids (the decoded vector starting at position base)
** or, when ids is NULL (a dense group), computed. */
static inline int64_t id_at(const group *g, const int64_t *ids, uint32_t base, uint32_t p) {
    return ids ? ids[p - base] : g->d.first + p;
}

/* rowids_of decodes the rowids of vector k of the current group (once); *out is NULL for a dense
** group, whose rowids id_at computes. */
static int rowids_of(rowgroup_scan *s, uint32_t k, const int64_t **out) {
    *out = NULL;
    if (group_dense(&s->g)) return STRATA_OK; /* computed by id_at */
    if (s->rowids_k != k) {
        vec_reset(&s->rowids);
        int rc = segment_decode_vector(s->g.rowid.rd, k, &s->rowids, pager_txn_err(s->t));
        if (rc) return rc;
        s->rowids_k = k;
    }
    *out = VEC_DATA(&s->rowids, int64_t);
    return STRATA_OK;
}

/* refresh rereads the current group's descriptor and bitmap (write transactions: the statement
** may have deleted rows of it since the last call); a group removed meanwhile is left. */
static int refresh(rowgroup_scan *s) {
    rowgroup_desc d;
    int found;
    int rc = find_group(s->t, s->td, s->g.d.first, &d, &found);
    if (rc) return rc;
    if (!found || d.id != s->g.d.id) {
        s->pos = s->g.d.rows;
        return STRATA_OK;
    }
    if (d.deleted == s->g.d.deleted) return STRATA_OK;
    roaring_bitmap_t *del;
    if ((rc = load_bitmap(s->t, s->td, &d, &del))) return rc;
    if (s->g.del) roaring_bitmap_free(s->g.del);
    s->g.del = del;
    s->g.d.deleted = d.deleted;
    return STRATA_OK;
}

/* settle moves to the next live row in [lo, hi] (loading row groups as needed). */
static int settle(rowgroup_scan *s) {
    for (;;) {
        if (s->done) return STRATA_OK;
        if (!s->have || s->pos >= s->g.d.rows) {
            int rc = next_group(s);
            if (rc || s->done) return rc;
            continue;
        }
        uint32_t k = s->pos / VECTOR_SIZE;
        uint32_t end = (k + 1) * VECTOR_SIZE < s->g.d.rows ? (k + 1) * VECTOR_SIZE : s->g.d.rows;
        int rc;
        if (s->npreds && s->checked_k != k) {
            int skip;
            if ((rc = pruned(s, (int)k, &skip))) return rc;
            s->checked_k = k;
            if (skip) {
                s->skipped++;
                s->pos = end;
                continue;
            }
        }
        const int64_t *ids;
        if ((rc = rowids_of(s, k, &ids))) return rc;
        for (; s->pos < end; s->pos++) {
            int64_t id = id_at(&s->g, ids, k * VECTOR_SIZE, s->pos);
            if (id > s->hi) {
                s->done = 1;
                return STRATA_OK;
            }
            if (id >= s->lo && !group_is_deleted(&s->g, s->pos)) return STRATA_OK;
        }
    }
}

int rowgroup_scan_peek(rowgroup_scan *s, int *more, int64_t *rowid) {
    *more = 0;
    int rc = settle(s);
    if (rc || s->done) return rc;
    const int64_t *ids;
    if ((rc = rowids_of(s, s->pos / VECTOR_SIZE, &ids))) return rc;
    *rowid = id_at(&s->g, ids, s->pos / VECTOR_SIZE * VECTOR_SIZE, s->pos);
    *more = 1;
    return STRATA_OK;
}

/* filter_decoded: projected column i is decoded whole, the column of one of the row filters
** whose bits are set in decoded. */
static bool filter_decoded(const rowgroup_scan *s, uint32_t decoded, uint32_t i) {
    for (uint32_t f = 0; f < s->nfilters; f++)
        if ((decoded >> f & 1) && s->filters[f].col == i) return true;
    return false;
}

/* filter_encoded narrows keep[0..*n) (positions in vector k, ascending; the identity when *n is
** the vector's row count, whose entries it then does not read) to the rows that meet the scan's
** conditions on columns whose encoding compares without decoding (dictionary codes,
** frame-of-reference offsets, a constant), before any column of the vector is decoded. Each
** condition gives a row mask; the masks AND together and become keep at the end. */
static int filter_encoded(rowgroup_scan *s, uint32_t k, sel_t *keep, uint32_t *n) {
    uint64_t rows[VALIDITY_WORDS], pass[VALIDITY_WORDS];
    uint32_t vrows = 0;
    bool any = false, done[ROWGROUP_MAX_PREDS] = {false};
    for (uint32_t j = 0; j < s->npreds; j++) {
        if (done[j]) continue;
        const rowgroup_pred *p = &s->preds[j];
        group_col *c = &s->g.cols[p->i];
        int rc = group_col_ready(s->t, s->td, &s->g, p->i, s->cols[p->i]);
        if (rc) return rc;
        if (!c->stored || c->rd->phys == PHYS_STR) continue;
        uint8_t e = c->rd->encoding;
        if (e != SEG_DICTIONARY && e != SEG_FOR && e != SEG_CONSTANT) continue;
        seg_cond conds[ROWGROUP_MAX_PREDS]; /* every condition on this column: one decode */
        uint32_t nc = 0;
        for (uint32_t q = j; q < s->npreds; q++)
            if (s->preds[q].i == p->i) {
                conds[nc++] = (seg_cond){s->preds[q].op, s->preds[q].c};
                done[q] = true;
            }
        if ((rc = segment_filter_mask(c->rd, k, conds, nc, any ? pass : rows, pager_txn_err(s->t)))) return rc;
        if (!any) {
            vrows = segment_vector_rows(c->rd, k);
            any = true;
            if (*n < vrows) { /* only the rows in keep may pass */
                memset(pass, 0, sizeof pass);
                for (uint32_t i = 0; i < *n; i++) pass[keep[i] >> 6] |= (uint64_t)1 << (keep[i] & 63);
            } else {
                continue;
            }
        }
        for (uint32_t w = 0; w < KERN_WORDS(vrows); w++) rows[w] &= pass[w];
    }
    if (any) *n = kern_mask_to_sel(rows, vrows, keep);
    return STRATA_OK;
}

/* compact keeps rows keep[0..n) of v (increasing), moving them to rows 0..n-1. */
#define COMPACT_AS(T)                                                                             \
    do {                                                                                          \
        T *d = v->data;                                                                           \
        for (uint32_t i = 0; i < n; i++) d[i] = d[keep[i]];                                       \
    } while (0)

static void compact(vector *v, const sel_t *keep, uint32_t n) {
    uint32_t w = v->width;
    switch (w) { /* typed copies: this runs for every row a selective scan returns */
    case 1: COMPACT_AS(uint8_t); break;
    case 2: COMPACT_AS(uint16_t); break;
    case 4: COMPACT_AS(uint32_t); break;
    case 8: COMPACT_AS(uint64_t); break;
    default: {
        uint8_t *d = v->data;
        for (uint32_t i = 0; i < n; i++)
            if (keep[i] != i) memcpy(d + (size_t)i * w, d + (size_t)keep[i] * w, w);
    }
    }
    if (v->validity)
        for (uint32_t i = 0; i < n; i++) {
            uint32_t from = keep[i];
            vec_set_null(v, i, !((v->validity[from >> 6] >> (from & 63)) & 1));
        }
}

int rowgroup_scan_next(rowgroup_scan *s, data_chunk *out, int64_t *rowids, int64_t max) {
    out->count = 0;
    int rc = STRATA_OK;
    if (s->reload && s->have && !s->done && (rc = refresh(s))) return rc;
    if ((rc = settle(s)) || s->done) return rc;
    pager_txn *t = s->t;
    strata_err *err = pager_txn_err(t);
    group *g = &s->g;
    uint32_t k = s->pos / VECTOR_SIZE, base = k * VECTOR_SIZE;
    uint32_t end = base + VECTOR_SIZE < g->d.rows ? base + VECTOR_SIZE : g->d.rows;
    const int64_t *ids;
    if ((rc = rowids_of(s, k, &ids))) return rc;
    /* the rows to return: live, in [lo, hi], up to max, from pos to the end of the vector */
    sel_t keep[VECTOR_SIZE];
    uint32_t n = 0, p = s->pos;
    int64_t bound = max < s->hi ? max : s->hi;
    if (!g->del && id_at(g, ids, base, p) >= s->lo && id_at(g, ids, base, end - 1) <= bound) {
        /* the common case: every row to the end; from the vector's start keep is the identity,
        ** which nothing below reads while every row of the vector stays (whole) */
        if (p == base) {
            n = end - base;
            p = end;
        }
        for (; p < end; p++) keep[n++] = (sel_t)(p - base);
    }
    for (; p < end; p++) {
        int64_t id = id_at(g, ids, base, p);
        if (id > max || id > s->hi) break;
        if (id >= s->lo && !group_is_deleted(g, p)) keep[n++] = p - base;
    }
    if (p < end && id_at(g, ids, base, p) > s->hi) s->done = 1;
    s->pos = p;
    uint32_t vrows = end - base;
    if (n && s->npreds) {
        uint32_t before = n;
        if ((rc = filter_encoded(s, k, keep, &n))) return rc;
        /* the conditions are a hint (the caller filters again): when most of a whole vector passes,
        ** it goes whole, which saves copying every column's passing rows together */
        if (before == vrows && n >= vrows - vrows / 4) n = vrows;
    }
    /* the row filters' columns first, whole, each filter on the rows the ones before passed; the
    ** other columns then for the rows that pass them all */
    uint32_t decoded = 0; /* bit f: filter f's column is decoded whole into out */
    for (uint32_t f = 0; f < s->nfilters && n; f++) {
        uint32_t i = s->filters[f].col;
        if ((rc = group_col_ready(t, s->td, g, i, s->cols[i]))) return rc;
        if (!g->cols[i].stored || segment_is_string_dict(g->cols[i].rd)) continue;
        if (!filter_decoded(s, decoded, i)) {
            if ((rc = segment_decode_vector(g->cols[i].rd, k, &out->cols[i], err))) return rc;
            if (!decoded && n == vrows)
                for (uint32_t r = 0; r < n; r++) keep[r] = (sel_t)r; /* the identity, now read */
            decoded |= 1u << f;
        }
        n = s->filters[f].fn(s->filters[f].arg, &out->cols[i], keep, n);
    }
    if (n == 0) return STRATA_OK; /* the caller peeks again: the scan moved on */
    int whole = n == vrows, few = n <= FEW_ROWS; /* few: read the rows one by one, not the vector */
    for (uint32_t i = 0; i < g->ncols; i++) {
        uint32_t col = s->cols[i];
        vector *v = &out->cols[i];
        if ((rc = group_col_ready(t, s->td, g, i, col))) return rc;
        if (filter_decoded(s, decoded, i)) {
            if (!whole) compact(v, keep, n);
        } else if (!g->cols[i].stored) {
            rc = fill_default(s->td, col, v, 0, n, err);
        } else if (segment_is_string_dict(g->cols[i].rd)) { /* codes only: no string is copied */
            rc = segment_decode_dict(g->cols[i].rd, k, whole ? NULL : keep, n, v, err);
        } else if (!whole && (few || (g->cols[i].rd->phys == PHYS_STR && n <= vrows / 2))) {
            rc = segment_get_rows(g->cols[i].rd, k, keep, n, v, err);
        } else {
            rc = segment_decode_vector(g->cols[i].rd, k, v, err);
            if (rc == STRATA_OK && !whole) compact(v, keep, n);
        }
        if (rc) return rc;
    }
    if (rowids)
        for (uint32_t i = 0; i < n; i++) rowids[i] = id_at(g, ids, base, base + (whole ? i : keep[i]));
    out->count = n;
    return STRATA_OK;
}

/* ---- point reads and deletes -------------------------------------------------------------- */

/* seek_rowid sets *pos to the first position of group g (its rowid segment open) whose rowid is
** >= rowid (g->d.rows when there is none), and *exact to whether that rowid is rowid itself. A
** row group without gaps computes it; otherwise the rowid vectors' zone maps find the vector and
** a binary search the row. ids holds the decoded rowids of vector *ids_k (UINT32_MAX: none yet;
** ids is made on first use when it is a zeroed vector). */
static int seek_rowid(pager_txn *t, group *g, int64_t rowid, vector *ids, uint32_t *ids_k, uint32_t *pos,
                      int *exact) {
    *exact = 0;
    if (group_dense(g)) {
        *pos = rowid <= g->d.first ? 0 : rowid > g->d.last ? g->d.rows : (uint32_t)(rowid - g->d.first);
        *exact = rowid >= g->d.first && rowid <= g->d.last;
        return STRATA_OK;
    }
    uint32_t nv = segment_nvectors(g->rowid.rd);
    for (uint32_t k = 0; k < nv; k++) {
        seg_zone z;
        segment_zone(g->rowid.rd, (int)k, &z);
        if (z.max_i < rowid) continue;
        int rc;
        if (!ids->data && (rc = vec_init(ids, ROWID_TYPE, pager_txn_err(t)))) return rc;
        if (*ids_k != k) {
            vec_reset(ids);
            if ((rc = segment_decode_vector(g->rowid.rd, k, ids, pager_txn_err(t)))) return rc;
            *ids_k = k;
        }
        const int64_t *v = VEC_DATA(ids, int64_t);
        uint32_t lo = 0, hi = z.rows;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (v[mid] < rowid) lo = mid + 1;
            else hi = mid;
        }
        *pos = k * VECTOR_SIZE + lo;
        *exact = lo < z.rows && v[lo] == rowid;
        return STRATA_OK;
    }
    *pos = g->d.rows;
    return STRATA_OK;
}

/* open_row loads the row group holding rowid live into g: *pos, or *found = 0. */
static int open_row(pager_txn *t, const table_desc *td, int64_t rowid, group *g, uint32_t *pos, int *found) {
    rowgroup_desc d;
    int rc = find_group(t, td, rowid, &d, found);
    if (rc || !*found) return rc;
    if ((rc = group_load(t, td, g, &d))) return rc;
    vector ids = {0};
    uint32_t ids_k = UINT32_MAX;
    rc = seek_rowid(t, g, rowid, &ids, &ids_k, pos, found);
    vec_free(&ids);
    if (rc == STRATA_OK && *found && group_is_deleted(g, *pos)) *found = 0;
    return rc;
}

/* A point reader keeps the row groups of its last reads open (descriptor, bitmap, rowid and
** projected segments), so that reads of nearby rowids -- an index's matches of one key, usually
** one order's lines -- find and open their row group once, and a prepared lookup run again on an
** unchanged database (rowgroup_reader_rebind) finds the row groups of its earlier runs open. At
** most READER_GROUPS are open; past that the one opened longest ago makes room. */
#define READER_GROUPS 16

typedef struct open_group {
    group g;
    vector ids;     /* decoded rowids of vector ids_k of g (a group with gaps in its rowids) */
    uint32_t ids_k;
    int uncached;   /* g holds a segment outside the segment cache (group_uncached), from its load on */
} open_group;

struct rowgroup_reader {
    pager_txn *t;
    const table_desc *td;
    const uint32_t *cols;
    uint32_t ncols;
    open_group og[READER_GROUPS];
    uint32_t nopen;   /* og[0..nopen) hold a row group */
    uint32_t last;    /* the one read last */
    uint32_t victim;  /* the next to make room, once all are open */
    uint64_t version; /* pager_txn_version of the transaction they were read in */
};

int rowgroup_reader_open(pager_txn *t, const table_desc *td, const uint32_t *cols, uint32_t ncols,
                         rowgroup_reader **out) {
    rowgroup_reader *r = calloc(1, sizeof *r);
    *out = r;
    if (r == NULL) return err_set(pager_txn_err(t), STRATA_NOMEM, "out of memory (row group read)");
    r->t = t, r->td = td, r->cols = cols, r->ncols = ncols;
    r->version = pager_txn_version(t);
    return STRATA_OK;
}

static void reader_drop_all(rowgroup_reader *r) {
    for (uint32_t i = 0; i < r->nopen; i++) group_close(&r->og[i].g);
    r->nopen = r->last = r->victim = 0;
}

void rowgroup_reader_close(rowgroup_reader *r) {
    if (r == NULL) return;
    for (uint32_t i = 0; i < READER_GROUPS; i++) {
        group_free(&r->og[i].g);
        vec_free(&r->og[i].ids);
    }
    free(r);
}

/* group_uncached says whether g holds a segment outside the segment cache (its own copy, read
** when the cache had no room): memory that the cache's budget does not count. */
static int group_uncached(const group *g) {
    if (g->rowid.open && !g->rowid.held) return 1;
    for (uint32_t i = 0; i < g->ncols; i++)
        if (g->cols[i].open && !g->cols[i].held) return 1;
    return 0;
}

/* Between transactions the reader keeps only row groups whose segments the segment cache holds:
** their memory counts in its budget (memory_limit), where copies of its own would not. */
void rowgroup_reader_rebind(rowgroup_reader *r, pager_txn *t) {
    uint64_t v = pager_txn_version(t);
    r->t = t;
    int keep = v != 0 && v == r->version;
    for (uint32_t i = 0; keep && i < r->nopen; i++) keep = !r->og[i].uncached;
    if (!keep) reader_drop_all(r);
    r->version = v;
}

/* reader_find gives the open row group whose rowid range holds rowid, or NULL. */
static open_group *reader_find(const rowgroup_reader *r, int64_t rowid) {
    for (uint32_t k = 0; k < r->nopen; k++) {
        uint32_t i = (r->last + k) % r->nopen; /* the last one read first */
        const group *g = &r->og[i].g;
        if (rowid >= g->d.first && rowid <= g->d.last) return (open_group *)&r->og[i];
    }
    return NULL;
}

int rowgroup_reader_holds(const rowgroup_reader *r, int64_t rowid) { return reader_find(r, rowid) != NULL; }

/* reader_load opens the row group holding rowid in a free slot, or in place of the one opened
** longest ago: *out, or NULL when no row group holds rowid. */
static int reader_load(rowgroup_reader *r, int64_t rowid, open_group **out) {
    rowgroup_desc d;
    int found;
    *out = NULL;
    int rc = find_group(r->t, r->td, rowid, &d, &found);
    if (rc || !found) return rc;
    open_group *o;
    if (r->nopen < READER_GROUPS) {
        o = &r->og[r->nopen];
        if (o->g.cols == NULL && r->ncols && (o->g.cols = calloc(r->ncols, sizeof *o->g.cols)) == NULL)
            return err_set(pager_txn_err(r->t), STRATA_NOMEM, "out of memory (row group read)");
        o->g.ncols = r->ncols;
        r->nopen++;
    } else {
        o = &r->og[r->victim];
        r->victim = (r->victim + 1) % READER_GROUPS;
    }
    o->ids_k = UINT32_MAX;
    rc = group_load(r->t, r->td, &o->g, &d);
    for (uint32_t i = 0; rc == STRATA_OK && i < r->ncols; i++) /* a lookup reads every projected column */
        rc = group_col_ready(r->t, r->td, &o->g, i, r->cols[i]);
    if (rc) { /* an error: start over with none open */
        reader_drop_all(r);
        return rc;
    }
    o->uncached = group_uncached(&o->g);
    *out = o;
    return STRATA_OK;
}

int rowgroup_reader_get(rowgroup_reader *r, int64_t rowid, data_chunk *out, int *found) {
    pager_txn *t = r->t;
    int rc;
    *found = 0;
    open_group *o = reader_find(r, rowid);
    if (o == NULL && ((rc = reader_load(r, rowid, &o)) || o == NULL)) return rc;
    r->last = (uint32_t)(o - r->og);
    group *g = &o->g;
    uint32_t pos = 0;
    if ((rc = seek_rowid(t, g, rowid, &o->ids, &o->ids_k, &pos, found)) || !*found) return rc;
    if (group_is_deleted(g, pos)) {
        *found = 0;
        return STRATA_OK;
    }
    for (int step = 0; step < 3; step++) /* the columns' cache misses at once (segment_prefetch) */
        for (uint32_t i = 0; i < g->ncols; i++) {
            if (!g->cols[i].stored) continue;
            if (step < 2) segment_prefetch(g->cols[i].rd, pos, step);
            else if ((rc = segment_prepare(g->cols[i].rd, pos, pager_txn_err(t)))) return rc;
        }
    for (uint32_t i = 0; i < g->ncols; i++) {
        vector *v = &out->cols[i];
        if (g->cols[i].stored) rc = segment_get(g->cols[i].rd, pos, v, out->count, pager_txn_err(t));
        else rc = fill_default(r->td, r->cols[i], v, out->count, out->count + 1, pager_txn_err(t));
        if (rc) return rc;
    }
    out->count++;
    return STRATA_OK;
}

int rowgroup_get(pager_txn *t, const table_desc *td, const uint32_t *cols, uint32_t ncols, int64_t rowid,
                 data_chunk *out, int *found) {
    rowgroup_reader *r;
    int rc = rowgroup_reader_open(t, td, cols, ncols, &r);
    if (rc == STRATA_OK) rc = rowgroup_reader_get(r, rowid, out, found);
    rowgroup_reader_close(r);
    return rc;
}

int rowgroup_has(pager_txn *t, const table_desc *td, int64_t rowid, int *found) {
    group g = {0};
    uint32_t pos;
    int rc = open_row(t, td, rowid, &g, &pos, found);
    group_free(&g);
    return rc;
}

/* drop_group removes every entry of row group d. */
static int drop_group(pager_txn *t, const table_desc *td, const rowgroup_desc *d) {
    uint8_t key[SEG_KEY_LEN];
    int rc = STRATA_OK;
    for (uint32_t col = 0; col < d->ncols && rc == STRATA_OK; col++) {
        seg_key(key, d->first, col);
        rc = btree_delete(t, td->col_root, key, SEG_KEY_LEN);
    }
    if (rc == STRATA_OK) {
        seg_key(key, d->first, ROWGROUP_ROWID_COL);
        rc = btree_delete(t, td->col_root, key, SEG_KEY_LEN);
    }
    if (rc == STRATA_OK && d->deleted) {
        group_key(key, 'x', d->first);
        rc = btree_delete(t, td->col_root, key, GROUP_KEY_LEN);
    }
    if (rc == STRATA_OK) { /* absent when an earlier version wrote the group */
        group_key(key, 'h', d->first);
        if ((rc = btree_delete(t, td->col_root, key, GROUP_KEY_LEN)) == STRATA_NOTFOUND) rc = STRATA_OK;
    }
    if (rc == STRATA_OK) {
        group_key(key, 'g', d->first);
        rc = btree_delete(t, td->col_root, key, GROUP_KEY_LEN);
    }
    if (rc == STRATA_NOTFOUND) rc = group_corrupt(t, td, d->first, "an entry of it is missing");
    return rc;
}

/* A deleter keeps the row group of its last delete open, its new deletions in the bitmap, and
** writes them (bitmap and descriptor) once it moves to another row group or finishes: a DELETE or
** UPDATE of many rows of one row group serializes and stores its bitmap once, not once a row (a
** row each made 10,000 changes of one group take seconds). */
struct rowgroup_deleter {
    pager_txn *t;
    const table_desc *td;
    group g;
    int open;       /* g holds a row group */
    uint32_t added; /* its rows deleted since it was opened */
    vector ids;     /* seek_rowid's decoded rowids (of vector ids_k) */
    uint32_t ids_k;
};

int rowgroup_deleter_open(pager_txn *t, const table_desc *td, rowgroup_deleter **out) {
    rowgroup_deleter *dl = calloc(1, sizeof *dl);
    *out = dl;
    if (!dl) return err_set(pager_txn_err(t), STRATA_NOMEM, "out of memory (row group delete)");
    dl->t = t, dl->td = td;
    return STRATA_OK;
}

/* deleter_store writes the deletions of dl's open row group: its bitmap and descriptor, or, when
** no live row is left, drops it. */
static int deleter_store(rowgroup_deleter *dl) {
    group *g = &dl->g;
    int rc = STRATA_OK;
    if (dl->open && dl->added) {
        rowgroup_desc d = g->d;
        d.deleted += dl->added;
        if (d.deleted == d.rows) { /* the last live row went: the row group goes */
            rc = drop_group(dl->t, dl->td, &g->d);
        } else {
            roaring_bitmap_run_optimize(g->del);
            size_t len = roaring_bitmap_portable_size_in_bytes(g->del);
            char *bytes = malloc(len);
            if (!bytes) return err_set(pager_txn_err(dl->t), STRATA_NOMEM, "out of memory (deletion bitmap)");
            roaring_bitmap_portable_serialize(g->del, bytes);
            uint8_t key[GROUP_KEY_LEN], desc[DESC_SIZE];
            group_key(key, 'x', d.first);
            rc = btree_put(dl->t, dl->td->col_root, key, sizeof key, bytes, len);
            free(bytes);
            if (rc == STRATA_OK) {
                desc_encode(&d, desc);
                group_key(key, 'g', d.first);
                rc = btree_put(dl->t, dl->td->col_root, key, sizeof key, desc, sizeof desc);
            }
        }
    }
    dl->open = 0, dl->added = 0;
    return rc;
}

int rowgroup_deleter_add(rowgroup_deleter *dl, int64_t rowid, int *found) {
    *found = 0;
    group *g = &dl->g;
    int rc;
    if (!dl->open || rowid < g->d.first || rowid > g->d.last) {
        if ((rc = deleter_store(dl))) return rc;
        rowgroup_desc d;
        int in = 0;
        if ((rc = find_group(dl->t, dl->td, rowid, &d, &in)) || !in) return rc;
        if ((rc = group_load(dl->t, dl->td, g, &d))) return rc;
        dl->open = 1, dl->ids_k = UINT32_MAX;
    }
    uint32_t pos = 0;
    int exact = 0;
    if ((rc = seek_rowid(dl->t, g, rowid, &dl->ids, &dl->ids_k, &pos, &exact)) || !exact || group_is_deleted(g, pos))
        return rc;
    if (!g->del && !(g->del = roaring_bitmap_create()))
        return err_set(pager_txn_err(dl->t), STRATA_NOMEM, "out of memory (deletion bitmap)");
    roaring_bitmap_add(g->del, pos);
    dl->added++;
    *found = 1;
    return STRATA_OK;
}

int rowgroup_deleter_end(rowgroup_deleter *dl, int rc) {
    if (!dl) return rc;
    if (!rc) rc = deleter_store(dl);
    group_free(&dl->g);
    vec_free(&dl->ids);
    free(dl);
    return rc;
}

/* ---- the tuple mover ---------------------------------------------------------------------- */

/* migration_start sets *from to the first rowid the tuple mover may take: above the last
** migrated rowid (*none when that is INT64_MAX), or INT64_MIN when no row group exists. */
static int migration_start(pager_txn *t, const table_desc *td, int64_t *from, int *none) {
    int64_t last;
    int any;
    int rc = rowgroup_last_rowid(t, td, &last, &any);
    *from = any ? last + (last < INT64_MAX) : INT64_MIN;
    *none = any && last == INT64_MAX;
    return rc;
}

int rowgroup_pending(pager_txn *t, const table_desc *td, uint32_t limit, uint32_t *count) {
    *count = 0;
    int64_t from;
    int none;
    int rc = migration_start(t, td, &from, &none);
    if (rc || none) return rc;
    btree_cursor *c = NULL;
    if ((rc = btree_cursor_open(t, td->root, &c))) return rc;
    uint8_t key[ROWID_KEY_LEN];
    rowid_encode(from, key);
    if ((rc = btree_cursor_seek(c, key, sizeof key, NULL)) == STRATA_OK) rc = btree_cursor_skip(c, limit, count);
    btree_cursor_close(c);
    return rc;
}

/* A row group being written: a segment builder per column and one for the rowids, filled a
** chunk at a time, then encoded into the column tree. */
typedef struct group_writer {
    uint32_t ncols, rows, cap;
    segment_builder *b; /* [ncols + 1]: b[ncols] holds the rowids */
    uint32_t ninit;
    int64_t *ids;       /* [cap + VECTOR_SIZE]: the rowids (a source's last chunk may overshoot) */
    uint32_t *cols;     /* 0 .. ncols-1: every column, to scan with */
    data_chunk ch;      /* the chunk sources read into */
    vector idv;         /* the rowids of a chunk, for their builder */
    btree_buf stats;    /* writer_encode's 'h' entry, its row group id left to writer_put */
} group_writer;

static void writer_free(group_writer *w) {
    for (uint32_t i = 0; i < w->ninit; i++) segment_builder_free(&w->b[i]);
    vec_free(&w->idv);
    btree_buf_free(&w->stats);
    chunk_free(&w->ch);
    free(w->cols);
    free(w->ids);
    free(w->b);
}

/* writer_init prepares w for up to cap rows of table td. */
static int writer_init(group_writer *w, const table_desc *td, uint32_t cap, strata_err *err) {
    uint32_t n = td->ncols;
    *w = (group_writer){.ncols = n, .cap = cap};
    w->b = calloc(n + 1, sizeof *w->b);
    w->ids = malloc(((size_t)cap + VECTOR_SIZE) * sizeof *w->ids);
    w->cols = malloc((n ? n : 1) * sizeof *w->cols);
    if (w->b == NULL || w->ids == NULL || w->cols == NULL)
        return err_set(err, STRATA_NOMEM, "out of memory (writing a row group)");
    for (uint32_t i = 0; i < n; i++) w->cols[i] = i;
    int rc;
    for (; w->ninit <= n; w->ninit++)
        if ((rc = segment_builder_init(&w->b[w->ninit], w->ninit < n ? td->types[w->ninit] : ROWID_TYPE, err)))
            return rc;
    if ((rc = chunk_init(&w->ch, td->types, n, err))) return rc;
    return vec_init(&w->idv, ROWID_TYPE, err);
}

/* writer_add adds rows sel[0..take) (sel NULL: the first take) of ch (td's columns), whose rowids
** are at w->ids + w->rows. */
static int writer_add(group_writer *w, const data_chunk *ch, const sel_t *sel, uint32_t take, strata_err *err) {
    int rc;
    for (uint32_t i = 0; i < w->ncols; i++)
        if ((rc = segment_builder_append(&w->b[i], &ch->cols[i], sel, take, err))) return rc;
    memcpy(VEC_DATA(&w->idv, int64_t), w->ids + w->rows, take * sizeof *w->ids);
    if ((rc = segment_builder_append(&w->b[w->ncols], &w->idv, NULL, take, err))) return rc;
    w->rows += take;
    return STRATA_OK;
}

/* writer_take adds the first take rows of w->ch. */
static int writer_take(group_writer *w, uint32_t take, strata_err *err) { return writer_add(w, &w->ch, NULL, take, err); }

/* writer_stats fills w->stats with the entry of the columns' statistics (the file comment):
** the columns' stored summaries (colstats_put) in one zstd frame. */
static int writer_stats(group_writer *w, strata_err *err) {
    size_t raw_cap = (size_t)w->ncols * COLSTATS_MAX_BYTES, raw_len = 0;
    uint8_t *raw = malloc(raw_cap ? raw_cap : 1);
    column_stats *c = malloc(sizeof *c);
    size_t bound = ZSTD_compressBound(raw_cap);
    int rc = STRATA_OK;
    if (!raw || !c || (rc = record_buf_reserve(&w->stats, STATS_HEADER + bound, err))) {
        if (!rc) rc = err_set(err, STRATA_NOMEM, "out of memory (row group statistics)");
        goto done;
    }
    for (uint32_t i = 0; i < w->ncols; i++) {
        colstats_init(c);
        segment_builder_stats(&w->b[i], c);
        raw_len += colstats_put(c, raw + raw_len);
    }
    /* with zstd's checksum of the content: damage reads as no statistics, not as wrong ones */
    ZSTD_CCtx *cz = ZSTD_createCCtx();
    size_t z = cz ? ZSTD_CCtx_setParameter(cz, ZSTD_c_checksumFlag, 1) : 0;
    if (cz && !ZSTD_isError(z)) z = ZSTD_compress2(cz, w->stats.data + STATS_HEADER, bound, raw, raw_len);
    ZSTD_freeCCtx(cz);
    if (!cz || ZSTD_isError(z)) {
        rc = err_set(err, STRATA_NOMEM, "out of memory (row group statistics)");
        goto done;
    }
    uint8_t *h = w->stats.data;
    h[0] = STATS_VERSION;
    h[1] = HLL_BITS;
    put_le(h + 10, w->ncols, 4);
    put_le(h + 14, raw_len, 4);
    w->stats.len = STATS_HEADER + z;
done:
    free(raw);
    free(c);
    return rc;
}

/* writer_encode encodes the builders of the rows taken into segs[0..ncols] (the rowids' last) and
** their statistics: no pager, so it may run on a thread of its own. */
static int writer_encode(group_writer *w, const segment_options *opt, btree_buf *segs, strata_err *err) {
    int rc = writer_stats(w, err);
    for (uint32_t i = 0; i <= w->ncols && rc == STRATA_OK; i++) rc = segment_builder_finish(&w->b[i], opt, &segs[i], err);
    return rc;
}

/* writer_put stores segs (writer_encode's) as a new row group of td, with its statistics (their
** entry gets the group's id here) and its descriptor. */
static int writer_put(pager_txn *t, const table_desc *td, group_writer *w, const btree_buf *segs) {
    rowgroup_desc d = {.first = w->ids[0], .last = w->ids[w->rows - 1], .rows = w->rows, .ncols = w->ncols};
    d.id = pager_meta_get(t, ROWGROUP_ID_SLOT) + 1;
    int rc = pager_meta_set(t, ROWGROUP_ID_SLOT, d.id);
    uint8_t key[SEG_KEY_LEN];
    for (uint32_t i = 0; i <= w->ncols && rc == STRATA_OK; i++) {
        seg_key(key, d.first, i < w->ncols ? i : ROWGROUP_ROWID_COL);
        rc = btree_put(t, td->col_root, key, SEG_KEY_LEN, segs[i].data, segs[i].len);
    }
    if (rc == STRATA_OK) {
        put_le(w->stats.data + 2, d.id, 8);
        group_key(key, 'h', d.first);
        rc = btree_put(t, td->col_root, key, GROUP_KEY_LEN, w->stats.data, w->stats.len);
    }
    if (rc == STRATA_OK) {
        uint8_t desc[DESC_SIZE];
        desc_encode(&d, desc);
        group_key(key, 'g', d.first);
        rc = btree_put(t, td->col_root, key, GROUP_KEY_LEN, desc, sizeof desc);
    }
    return rc;
}

static segment_options writer_options(const table_desc *td) {
    return (segment_options){.zstd_level = td->zstd_level, .force_encoding = -1};
}

/* writer_store encodes the rows taken (at least one) into a new row group of td. */
static int writer_store(pager_txn *t, const table_desc *td, group_writer *w) {
    btree_buf *segs = calloc(w->ncols + 1, sizeof *segs);
    if (segs == NULL) return err_set(pager_txn_err(t), STRATA_NOMEM, "out of memory (writing a row group)");
    segment_options opt = writer_options(td);
    int rc = writer_encode(w, &opt, segs, pager_txn_err(t));
    if (rc == STRATA_OK) rc = writer_put(t, td, w, segs);
    for (uint32_t i = 0; i <= w->ncols; i++) btree_buf_free(&segs[i]);
    free(segs);
    return rc;
}

/* migrate_one writes one row group (of at most a full row group's rows) from the row-store rows
** above the last migrated rowid, when at least min of them wait. */
static int migrate_one(pager_txn *t, const table_desc *td, uint32_t min, int *moved) {
    strata_err *err = pager_txn_err(t);
    *moved = 0;
    int64_t from;
    int none;
    uint32_t pending;
    uint32_t full = rowgroup_rows(td);
    int rc = rowgroup_pending(t, td, full, &pending);
    if (rc || pending < min || pending == 0) return rc;
    if ((rc = migration_start(t, td, &from, &none))) return rc;
    group_writer w;
    table_scan *sc = NULL;
    if ((rc = writer_init(&w, td, full, err)) ||
        (rc = table_scan_open_rowstore(t, td, w.cols, w.ncols, from, INT64_MAX, &sc)))
        goto done;
    while (w.rows < full) {
        if ((rc = table_scan_next(sc, &w.ch, w.ids + w.rows))) goto done;
        if (w.ch.count == 0) break;
        if ((rc = writer_take(&w, w.ch.count < full - w.rows ? w.ch.count : full - w.rows, err))) goto done;
    }
    table_scan_close(sc);
    sc = NULL;
    if (w.rows < min || w.rows == 0) goto done; /* counted, but not there: leave it */
    /* the rows leave the row tree first, so that the segments take the pages they free */
    if ((rc = table_delete_rowstore(t, td, w.ids, w.rows)) || (rc = writer_store(t, td, &w))) goto done;
    *moved = 1;
done:
    table_scan_close(sc);
    writer_free(&w);
    return rc;
}

/* vacuum_group rewrites row group d with its live rows only (nothing when none is left). */
static int vacuum_group(pager_txn *t, const table_desc *td, const rowgroup_desc *d) {
    strata_err *err = pager_txn_err(t);
    group_writer w;
    rowgroup_scan *sc = NULL;
    int rc = writer_init(&w, td, d->rows, err);
    if (rc == STRATA_OK) rc = rowgroup_scan_open(t, td, w.cols, w.ncols, d->first, d->last, &sc);
    while (rc == STRATA_OK) {
        chunk_reset(&w.ch);
        if ((rc = rowgroup_scan_next(sc, &w.ch, w.ids + w.rows, INT64_MAX)) || w.ch.count == 0) break;
        rc = writer_take(&w, w.ch.count, err);
    }
    rowgroup_scan_close(sc);
    if (rc == STRATA_OK) rc = drop_group(t, td, d);
    if (rc == STRATA_OK && w.rows) rc = writer_store(t, td, &w);
    writer_free(&w);
    return rc;
}

typedef struct group_list {
    rowgroup_desc *d;
    uint32_t n, cap;
} group_list;

static int collect_group(void *arg, const rowgroup_desc *d) {
    group_list *l = arg;
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? 2 * l->cap : 16;
        rowgroup_desc *nd = realloc(l->d, cap * sizeof *nd);
        if (nd == NULL) return STRATA_NOMEM;
        l->d = nd;
        l->cap = cap;
    }
    l->d[l->n++] = *d;
    return STRATA_OK;
}

int rowgroup_vacuum(pager_txn *t, const table_desc *td, uint32_t percent, uint32_t *rewritten) {
    *rewritten = 0;
    group_list l = {0};
    int rc = rowgroup_foreach(t, td, collect_group, &l);
    if (rc == STRATA_NOMEM) err_set(pager_txn_err(t), rc, "out of memory (VACUUM)");
    for (uint32_t i = 0; rc == STRATA_OK && i < l.n; i++) {
        if ((uint64_t)l.d[i].deleted * 100 < (uint64_t)percent * l.d[i].rows) continue;
        if ((rc = vacuum_group(t, td, &l.d[i])) == STRATA_OK) (*rewritten)++;
    }
    free(l.d);
    return rc;
}

int rowgroup_migrate(pager_txn *t, const table_desc *td, uint32_t max_groups, uint32_t *moved) {
    *moved = 0;
    if (!td->col_root)
        return err_set(pager_txn_err(t), STRATA_MISUSE, "table with root page %u has no column tree",
                       (unsigned)td->root);
    for (uint32_t g = 0; g < max_groups; g++) {
        int one;
        int rc = migrate_one(t, td, rowgroup_rows(td), &one);
        if (rc) return rc;
        if (!one) break;
        (*moved)++;
    }
    return STRATA_OK;
}

/* A row group of the bulk path: rows taken into its builders, then encoded on a thread of its
** own (rowgroup_job_start), then stored (rowgroup_write_finish). */
struct rowgroup_job {
    group_writer w;
    segment_options opt;
    btree_buf *segs; /* [ncols + 1] */
    strata_err err;  /* the thread's */
    int rc;
    int threaded;    /* thread runs and is to be joined */
    pthread_t thread;
};

/* job_encode encodes the rows taken: no pager, any thread. */
static void *job_encode(void *arg) {
    rowgroup_job *j = arg;
    j->rc = writer_encode(&j->w, &j->opt, j->segs, &j->err);
    return NULL;
}

void rowgroup_job_free(rowgroup_job *j) {
    if (j == NULL) return;
    if (j->threaded) pthread_join(j->thread, NULL);
    for (uint32_t i = 0; j->segs && i <= j->w.ncols; i++) btree_buf_free(&j->segs[i]);
    free(j->segs);
    writer_free(&j->w);
    free(j);
}

int rowgroup_job_open(const table_desc *td, rowgroup_job **out, strata_err *err) {
    rowgroup_job *j = calloc(1, sizeof *j);
    *out = NULL;
    if (j == NULL) return err_set(err, STRATA_NOMEM, "out of memory (writing a row group)");
    int rc = writer_init(&j->w, td, ROWGROUP_ROWS, err);
    if (rc == STRATA_OK && (j->segs = calloc(j->w.ncols + 1, sizeof *j->segs)) == NULL)
        rc = err_set(err, STRATA_NOMEM, "out of memory (writing a row group)");
    if (rc) {
        rowgroup_job_free(j);
        return rc;
    }
    j->opt = writer_options(td);
    *out = j;
    return STRATA_OK;
}

int rowgroup_job_add(rowgroup_job *j, const data_chunk *ch, const sel_t *sel, uint32_t n, const int64_t *ids,
                     strata_err *err) {
    group_writer *w = &j->w;
    if (n > w->cap - w->rows)
        return err_set(err, STRATA_MISUSE, "a row group of %u rows takes %u more", w->rows, n);
    memcpy(w->ids + w->rows, ids, n * sizeof *ids);
    return writer_add(w, ch, sel, n, err);
}

uint32_t rowgroup_job_rows(const rowgroup_job *j) { return j->w.rows; }

size_t rowgroup_job_bytes(const rowgroup_job *j) {
    size_t n = (size_t)j->w.cap * sizeof *j->w.ids;
    for (uint32_t i = 0; i <= j->w.ncols; i++) n += segment_builder_bytes(&j->w.b[i]);
    return n;
}

int rowgroup_job_read(const rowgroup_job *j, uint32_t from, uint32_t n, data_chunk *out, int64_t *ids,
                      strata_err *err) {
    chunk_reset(out);
    int rc = STRATA_OK;
    for (uint32_t i = 0; i < j->w.ncols && rc == STRATA_OK; i++)
        rc = segment_builder_read(&j->w.b[i], from, n, &out->cols[i], err);
    if (rc) return rc;
    memcpy(ids, j->w.ids + from, n * sizeof *ids);
    out->count = n;
    return STRATA_OK;
}

int rowgroup_job_start(pager_txn *t, const table_desc *td, rowgroup_job *j) {
    strata_err *err = pager_txn_err(t);
    if (!td->col_root)
        return err_set(err, STRATA_MISUSE, "table with root page %u has no column tree", (unsigned)td->root);
    if (j->w.rows == 0) return err_set(err, STRATA_MISUSE, "a row group of no rows");
    /* the row-store rows waiting to migrate are below the job's rowids: they go first, in row
    ** groups of their own, so that every row above the last migrated rowid stays in the row store */
    for (int one = 1; one;) {
        int rc = migrate_one(t, td, 1, &one);
        if (rc) return rc;
    }
    int64_t last;
    int any;
    int rc = rowgroup_last_rowid(t, td, &last, &any);
    if (rc) return rc;
    if (any && j->w.ids[0] <= last)
        return err_set(err, STRATA_MISUSE, "rowid %lld is not above the last migrated rowid",
                       (long long)j->w.ids[0]);
    j->threaded = pthread_create(&j->thread, NULL, job_encode, j) == 0;
    if (!j->threaded) job_encode(j); /* no thread to be had: encode here */
    return STRATA_OK;
}

int rowgroup_write_finish(pager_txn *t, const table_desc *td, rowgroup_job *j) {
    if (j->threaded) pthread_join(j->thread, NULL);
    j->threaded = 0;
    int rc = j->rc;
    if (rc) err_set(pager_txn_err(t), rc, "%s", j->err.msg);
    else rc = writer_put(t, td, &j->w, j->segs);
    rowgroup_job_free(j);
    return rc;
}

int rowgroup_write(pager_txn *t, const table_desc *td, data_chunk *const *chunks, uint32_t nchunks,
                   const int64_t *ids) {
    strata_err *err = pager_txn_err(t);
    uint64_t rows = 0;
    for (uint32_t i = 0; i < nchunks; i++) rows += chunks[i]->count;
    if (rows == 0 || rows > ROWGROUP_ROWS)
        return err_set(err, STRATA_MISUSE, "a row group of %llu rows", (unsigned long long)rows);
    rowgroup_job *j;
    int rc = rowgroup_job_open(td, &j, err);
    for (uint32_t i = 0; i < nchunks && rc == STRATA_OK; ids += chunks[i]->count, i++)
        rc = rowgroup_job_add(j, chunks[i], NULL, chunks[i]->count, ids, err);
    if (rc == STRATA_OK && (rc = rowgroup_job_start(t, td, j)) == STRATA_OK) return rowgroup_write_finish(t, td, j);
    rowgroup_job_free(j);
    return rc;
}

/* ---- describing --------------------------------------------------------------------------- */

/* stats_parse reads entry b of row group d's statistics into cols: 0 when it is not one. */
static int stats_parse(const btree_buf *b, const rowgroup_desc *d, column_stats *cols) {
    const uint8_t *h = b->data;
    if (b->len < STATS_HEADER || h[0] != STATS_VERSION || h[1] != HLL_BITS || get_le(h + 2, 8) != d->id ||
        get_le(h + 10, 4) != d->ncols)
        return 0;
    size_t raw_len = get_le(h + 14, 4);
    if (raw_len > (size_t)d->ncols * COLSTATS_MAX_BYTES ||
        ZSTD_getFrameContentSize(h + STATS_HEADER, b->len - STATS_HEADER) != raw_len)
        return 0; /* damage never asks for a large allocation */
    uint8_t *raw = malloc(raw_len ? raw_len : 1);
    if (!raw || ZSTD_decompress(raw, raw_len, h + STATS_HEADER, b->len - STATS_HEADER) != raw_len) {
        free(raw);
        return 0;
    }
    const uint8_t *p = raw, *end = raw + raw_len;
    for (uint32_t i = 0; i < d->ncols && p; i++) {
        column_stats *c = &cols[i];
        if ((p = colstats_get(c, p, end)) && c->nulls > d->rows) p = NULL;
        if (p) c->distinct = fmin(hll_estimate(&c->sketch), (double)(d->rows - c->nulls));
    }
    free(raw);
    return p == end;
}

int rowgroup_stats(pager_txn *t, const table_desc *td, const rowgroup_desc *d, column_stats *cols, int *found) {
    *found = 0;
    uint8_t key[GROUP_KEY_LEN];
    group_key(key, 'h', d->first);
    btree_buf b = {0};
    int rc = btree_get(t, td->col_root, key, sizeof key, &b);
    if (rc == STRATA_OK) *found = stats_parse(&b, d, cols);
    btree_buf_free(&b);
    return rc == STRATA_NOTFOUND ? STRATA_OK : rc;
}

typedef struct describe_walk {
    pager_txn *t;
    const table_desc *td;
    int (*fn)(void *arg, const rowgroup_desc *d, uint32_t col, const seg_info *info, const column_stats *stats);
    void *arg;
} describe_walk;

static int describe_group(void *arg, const rowgroup_desc *d) {
    describe_walk *w = arg;
    column_stats *stats = malloc((d->ncols ? d->ncols : 1) * sizeof *stats);
    int found = 0;
    int rc = stats ? rowgroup_stats(w->t, w->td, d, stats, &found)
                   : err_set(pager_txn_err(w->t), STRATA_NOMEM, "out of memory (row group statistics)");
    uint32_t n = d->ncols < w->td->ncols ? d->ncols : w->td->ncols; /* more: columns dropped since */
    for (uint32_t i = 0; i <= n && rc == STRATA_OK; i++) {
        uint32_t col = i < n ? i : ROWGROUP_ROWID_COL;
        group_col c = {0};
        rc = open_segment(w->t, w->td, d, col, col == ROWGROUP_ROWID_COL ? ROWID_TYPE : w->td->types[col], &c);
        if (rc == STRATA_OK) {
            seg_info info;
            segment_describe(c.rd, &info);
            rc = w->fn(w->arg, d, col, &info, found && i < n ? &stats[i] : NULL);
        }
        group_col_close(&c);
        btree_buf_free(&c.buf);
    }
    free(stats);
    return rc;
}

int rowgroup_describe(pager_txn *t, const table_desc *td,
                      int (*fn)(void *arg, const rowgroup_desc *d, uint32_t col, const seg_info *info,
                                const column_stats *stats),
                      void *arg) {
    describe_walk w = {t, td, fn, arg};
    return rowgroup_foreach(t, td, describe_group, &w);
}

/* ---- checking ------------------------------------------------------------------------------- */

typedef struct seg_checker {
    const table_desc *td;
    void (*problem)(void *arg, const char *line);
    void *arg;
    uint64_t found;
} seg_checker;

static int check_segment_entry(void *arg, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen) {
    seg_checker *ck = arg;
    if (klen != SEG_KEY_LEN || key[0] != 's') return STRATA_OK;
    int64_t first = rowid_decode(key + 1);
    uint32_t col = (uint32_t)key[9] << 24 | (uint32_t)key[10] << 16 | (uint32_t)key[11] << 8 | key[12];
    char name[16], line[STRATA_ERRMSG_MAX + 128];
    if (col != ROWGROUP_ROWID_COL && col >= ck->td->ncols) {
        snprintf(line, sizeof line, "table with root page %u: row group at rowid %lld: a segment of column %u, "
                 "which the table does not have", (unsigned)ck->td->root, (long long)first, col);
        ck->found++;
        ck->problem(ck->arg, line);
        return STRATA_OK;
    }
    sql_type type = col == ROWGROUP_ROWID_COL ? sql_type_make(TYPE_BIGINT) : ck->td->types[col];
    segment_reader r;
    memset(&r, 0, sizeof r);
    strata_err err;
    err_clear(&err);
    int rc = segment_open(&r, val, vlen, type, &err);
    segment_reader_close(&r);
    if (rc == STRATA_NOMEM) return rc;
    if (rc) {
        if (col == ROWGROUP_ROWID_COL) snprintf(name, sizeof name, "rowid");
        else snprintf(name, sizeof name, "%u", col);
        snprintf(line, sizeof line, "table with root page %u: row group at rowid %lld, column %s: %s",
                 (unsigned)ck->td->root, (long long)first, name, err.msg);
        ck->found++;
        ck->problem(ck->arg, line);
    }
    return STRATA_OK;
}

int rowgroup_check_segments(pager_txn *t, const table_desc *td, void (*problem)(void *arg, const char *line),
                            void *arg, uint64_t *found) {
    seg_checker ck = {.td = td, .problem = problem, .arg = arg};
    *found = 0;
    if (!td->col_root) return STRATA_OK;
    btree_salvage_fns fns = {.entry = check_segment_entry, .arg = &ck};
    int rc = btree_salvage(t, td->col_root, &fns);
    err_clear(pager_txn_err(t)); /* unreadable pages are the tree check's to report */
    *found = ck.found;
    return rc;
}
