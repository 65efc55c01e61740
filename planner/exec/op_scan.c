/*
** op_scan.c -- the sources that read rows: table scans (whole, a rowid range, a rowid lookup) with
** their zone-map pruning and join filters, index scans (covering or through the table), VALUES,
** generate_series/range, the no-row and one-row EMPTY, and pragma_storage_info (operator.h).
*/
#include "exec/operator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../colstore/rowgroup.h"

/* A scan keeps applying a join filter while it drops enough rows for its cost: it is dropped for
** the rest of the run when, after SCAN_FILTER_TRIAL rows, it has passed more than 9 in 10. */
#define SCAN_FILTER_TRIAL (16 * VECTOR_SIZE)

/* every join filter of a scan can be handed to the column store (scan_prune) */
_Static_assert(SCAN_MAX_FILTERS <= ROWGROUP_MAX_FILTERS, "a scan's join filters outnumber the column store's");

typedef struct scan_state {
    table_scan *scan;
    bool prune_due;   /* the zone-map conditions are handed over at the first chunk, when the
                      ** join filters above are filled */
    uint64_t ftested[SCAN_MAX_FILTERS], fpassed[SCAN_MAX_FILTERS]; /* by join filter: rows tested and passed this run */
    /* by join filter: the column store tests it before decoding the other columns (scan_prune;
    ** nd NULL: not), and the rows it tested and passed there */
    struct pushed { op_node *nd; uint32_t k; uint64_t tested, passed; } pushed[SCAN_MAX_FILTERS];
    uint64_t *hashes; /* scratch for a join filter's key hashes */
    sel_t *fsel;      /* the rows the join filters keep */
    data_chunk raw;   /* the decoded columns: proj[k] of the table is raw column k ... */
    uint32_t *proj;
    uint32_t nproj;
    int64_t *rowids;
    table_reader *point; /* a rowid lookup's reader, kept across runs (row groups stay open) */
    bool point_due;      /* a rowid lookup's row is still to be read (its rowid in rowids[0]) */
    table_range *ranges; /* a parallel run's morsels (table_scan_ranges): written by scan_morsels on
                         ** the run's thread before the workers start, read by them (scan_open_morsel
                         ** of the run's node), freed by the run's thread after they joined */
    uint32_t nranges;
} scan_state;

/* scan_projection lists the table columns a scan decodes: those of its outputs some operator
** reads (need NULL: all). */
int scan_projection(exec_ctx *x, const table_def *td, const uint32_t *cols, uint32_t ncols, const uint8_t *need,
                    uint32_t **proj, uint32_t *nproj, data_chunk *raw) {
    *proj = malloc((ncols + 1) * sizeof **proj);
    sql_type *types = malloc((ncols + 1) * sizeof *types);
    if (!*proj || !types) {
        free(types);
        return exec_nomem(x);
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < ncols; i++)
        if (!need || need[i]) {
            (*proj)[n] = cols[i];
            types[n++] = td->cols[cols[i]].type;
        }
    *nproj = n;
    int rc = chunk_init(raw, types, n, x->err);
    free(types);
    return rc;
}

/* null_column makes v a constant NULL: a column no one reads, or the side of an outer join's
** row that has none. */
void null_column(vector *v) {
    vec_reset(v);
    vec_set_null(v, 0, 1);
    vec_make_constant(v);
}

/* scan_output shows the decoded columns as the scan's outputs; the others are constant NULLs. */
void scan_output(data_chunk *raw, const uint8_t *need, uint32_t ncols, data_chunk *out) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < ncols; i++) {
        if (!need || need[i]) {
            vec_reference(&out->cols[i], &raw->cols[k++]);
            continue;
        }
        null_column(&out->cols[i]);
    }
}

typedef struct series_state {
    int64_t next, stop, step;
    bool done;
} series_state;

typedef struct values_state {
    uint32_t next_row;
} values_state;
/* ---- sources ------------------------------------------------------------------------------ */

/* rowid_bound evaluates a bound of a rowid range scan: the value as a BIGINT, moved one step
** inward when exclusive. STRATA_DONE when no rowid can satisfy it (NULL, or beyond the range). */
static int rowid_bound(exec_ctx *x, expr *e, bool excl, bool lower, int64_t *out) {
    if (!e) return STRATA_OK;
    sql_value v;
    int rc = exec_eval_scalar(x, e, &v);
    if (rc) return rc;
    if (v.is_null) return STRATA_DONE;
    int64_t b = v.v.i;
    if (excl) {
        if (lower ? b == INT64_MAX : b == INT64_MIN) return STRATA_DONE;
        b += lower ? 1 : -1;
    }
    *out = b;
    return STRATA_OK;
}

/* An index scan: the rowids from the index, then the rows by rowid. */
typedef struct iscan_state {
    index_scan *scan;
    data_chunk raw;   /* rows read from the table, or for a covering scan the index keys */
    uint32_t *proj;
    uint32_t nproj;
    btree_buf keys;   /* covering: the entries' keys ... */
    uint32_t key_off[VECTOR_SIZE + 1]; /* ... entry k's at key_off[k] */
    int64_t rowids[VECTOR_SIZE];
    uint8_t found[VECTOR_SIZE];
    table_reader *reader; /* kept across runs: a prepared lookup finds its row groups open */
    btree_buf lo, hi;
    bool empty;
} iscan_state;

static int encode_bounds(exec_ctx *x, expr **vals, int n, btree_buf *buf, bool *null) {
    buf->len = 0;
    for (int k = 0; k < n; k++) {
        sql_value v;
        int rc = exec_eval_scalar(x, vals[k], &v);
        if (rc) return rc;
        if (v.is_null) *null = true;
        if ((rc = key_encode(buf, &v, x->err))) return rc;
    }
    return STRATA_OK;
}

static int iscan_open(exec_ctx *x, op_node *nd) {
    const plan_op *p = nd->op;
    iscan_state *s = nd->state; /* kept from the last run, or new */
    int rc;
    if (!s) {
        if (!(s = calloc(1, sizeof *s))) return exec_nomem(x);
        nd->state = s;
        if (p->iscan.key_pos) { /* raw holds the index's keys */
            index_def *ix = p->iscan.index;
            sql_type types[ix->nkeys];
            for (uint32_t k = 0; k < ix->nkeys; k++) types[k] = p->iscan.table->cols[ix->key_cols[k]].type;
            rc = chunk_init(&s->raw, types, ix->nkeys, x->err);
        } else {
            rc = scan_projection(x, p->iscan.table, p->iscan.cols, p->iscan.ncols, p->iscan.need, &s->proj, &s->nproj,
                                 &s->raw);
            if (rc == STRATA_OK && table_reader_open(&p->iscan.table->desc, s->proj, s->nproj, &s->reader))
                rc = exec_nomem(x);
        }
        if (rc) return rc;
    }
    s->empty = false;
    bool null = false;
    if ((rc = encode_bounds(x, p->iscan.lo, p->iscan.nlo, &s->lo, &null)) ||
        (rc = encode_bounds(x, p->iscan.hi, p->iscan.nhi, &s->hi, &null)))
        return rc;
    if (null) { /* a comparison with NULL matches nothing */
        s->empty = true;
        return STRATA_OK;
    }
    rc = index_scan_open(x->txn, p->iscan.index->root, p->iscan.nlo ? s->lo.data : NULL, s->lo.len, p->iscan.lo_incl,
                         p->iscan.nhi ? s->hi.data : NULL, s->hi.len, p->iscan.hi_incl, &s->scan);
    return rc ? exec_table_error(x, rc) : STRATA_OK;
}

static void iscan_close(op_node *nd, bool keep) {
    iscan_state *s = nd->state;
    if (!s) return;
    if (s->scan) index_scan_close(s->scan);
    s->scan = NULL;
    if (keep) {
        chunk_reset(&s->raw);
        return;
    }
    nd->state = NULL;
    table_reader_close(s->reader);
    chunk_free(&s->raw);
    free(s->proj);
    btree_buf_free(&s->keys);
    btree_buf_free(&s->lo);
    btree_buf_free(&s->hi);
    free(s);
}

/* iscan_covering_next answers a covering index scan from the index's keys alone. */
static int iscan_covering_next(exec_ctx *x, const plan_op *p, iscan_state *s, data_chunk *out) {
    uint32_t n;
    int rc = index_scan_next_keys(s->scan, s->rowids, VECTOR_SIZE, &n, &s->keys, s->key_off);
    if (rc) return exec_table_error(x, rc);
    chunk_reset(&s->raw);
    for (uint32_t k = 0; k < n; k++) {
        const uint8_t *q = s->keys.data + s->key_off[k], *end = s->keys.data + s->key_off[k + 1];
        for (uint32_t j = 0; j < s->raw.ncols; j++)
            if ((rc = key_decode(q, end, &s->raw.cols[j], k, &q, x->err))) return rc;
    }
    s->raw.count = n;
    for (uint32_t i = 0; i < p->iscan.ncols; i++) {
        vector *o = &out->cols[i];
        if (p->iscan.key_pos[i] >= 0) {
            vec_reference(o, &s->raw.cols[p->iscan.key_pos[i]]);
            continue;
        }
        vec_reset(o);
        if (p->iscan.key_pos[i] == -1) { /* not read by anyone */
            vec_set_null(o, 0, 1);
            vec_make_constant(o);
            continue;
        }
        for (uint32_t k = 0; k < n; k++) { /* the rowid column (an integer type) */
            sql_value v = value_int(o->type.id, s->rowids[k]);
            vec_set_value(o, k, &v, NULL);
        }
    }
    if (p->iscan.with_rowid) memcpy(out->cols[p->iscan.ncols].data, s->rowids, n * sizeof(int64_t));
    out->count = n;
    return STRATA_OK;
}

static int iscan_next(exec_ctx *x, op_node *nd, data_chunk *out) {
    const plan_op *p = nd->op;
    iscan_state *s = nd->state;
    out->count = 0;
    if (s->empty) return STRATA_OK;
    if (p->iscan.key_pos) return iscan_covering_next(x, p, s, out);
    for (;;) {
        uint32_t n;
        int rc = index_scan_next(s->scan, s->rowids, VECTOR_SIZE, &n);
        if (rc) return exec_table_error(x, rc);
        if (!n) return STRATA_OK;
        chunk_reset(&s->raw);
        if ((rc = table_reader_get(s->reader, x->txn, s->rowids, n, &s->raw, s->found))) return exec_table_error(x, rc);
        if (!s->raw.count) continue;
        scan_output(&s->raw, p->iscan.need, p->iscan.ncols, out);
        if (p->iscan.with_rowid) {
            int64_t *d = out->cols[p->iscan.ncols].data;
            uint32_t k = 0;
            for (uint32_t r = 0; r < n; r++)
                if (s->found[r]) d[k++] = s->rowids[r];
        }
        out->count = s->raw.count;
        return STRATA_OK;
    }
}

/* zone_const turns v into c, the representation of a column of type t, when that is exact. */
static bool zone_const(const sql_value *v, sql_type t, seg_const *c) {
    uint8_t a = v->type.id, b = t.id;
    if (sql_type_is_integer(a) && sql_type_is_integer(b)) return c->i = v->v.i, true;
    if (a != b) return false;
    switch (a) {
    case TYPE_DECIMAL: return v->type.scale == t.scale && (c->i = v->v.i, true);
    case TYPE_DOUBLE: return c->d = v->v.d, true;
    case TYPE_DATE:
    case TYPE_TIMESTAMP: return c->i = v->v.i, true;
    default: return false;
    }
}

/* bitmap_rows is filter_rows by f's bitmap, for v of the integer representation phys (a constant
** where it is called, so that each gets its loop). */
static inline __attribute__((always_inline)) uint32_t bitmap_rows(vec_phys phys, const join_filter *f, const vector *v,
                                                                 const sel_t *rows, uint32_t m, sel_t *out) {
    const uint64_t last = (uint64_t)f->max - (uint64_t)f->min, *valid = v->validity;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < m; i++) {
        uint32_t r = rows ? rows[i] : i, j = v->sel[r];
        int64_t key = phys == PHYS_I64 ? VEC_DATA(v, int64_t)[j]
                      : phys == PHYS_I32 ? VEC_DATA(v, int32_t)[j]
                      : phys == PHYS_I16 ? VEC_DATA(v, int16_t)[j]
                                         : VEC_DATA(v, uint8_t)[j];
        uint64_t b = (uint64_t)key - (uint64_t)f->min, in = b <= last ? b : 0; /* a NULL's value too */
        bool pass = b <= last && (f->bitmap[in / 64] >> (in % 64) & 1);
        if (valid) pass &= valid[j >> 6] >> (j & 63) & 1;
        out[kept] = (sel_t)r;
        kept += pass;
    }
    return kept;
}

/* filter_rows sets out[0..) to the rows of v (rows[0..m), rows NULL: 0..m-1) whose key join
** filter f may find (a NULL key matches nothing) and returns how many; out may be rows. */
static uint32_t filter_rows(const join_filter *f, scan_state *s, const vector *v, const sel_t *rows, uint32_t m,
                            sel_t *out) {
    if (f->bitmap) switch ((vec_phys)v->phys) {
        case PHYS_I64: return bitmap_rows(PHYS_I64, f, v, rows, m, out);
        case PHYS_I32: return bitmap_rows(PHYS_I32, f, v, rows, m, out);
        case PHYS_I16: return bitmap_rows(PHYS_I16, f, v, rows, m, out);
        default: return bitmap_rows(PHYS_BOOL, f, v, rows, m, out);
        }
    uint32_t kept = 0;
    if (f->bloom) vec_hash(v, rows, m, s->hashes);
    for (uint32_t i = 0; i < m; i++) {
        uint32_t r = rows ? rows[i] : i;
        bool pass = !vec_is_null(v, r);
        if (pass && f->bloom) {
            uint64_t h = s->hashes[i], b = bloom_bits(h);
            pass = (f->bloom[h >> f->bloom_shift] & b) == b;
        }
        out[kept] = (sel_t)r;
        kept += pass;
    }
    return kept;
}

/* pushed_filter (table_row_filter) tests a pushed join filter of the scan on a column-store
** vector before its other columns are decoded; like scan_filter it stops once the filter passes
** most rows. */
static uint32_t pushed_filter(void *arg, const vector *v, sel_t *keep, uint32_t n) {
    struct pushed *ps = arg;
    scan_state *s = ps->nd->state;
    if (ps->tested >= SCAN_FILTER_TRIAL && ps->passed * 10 > ps->tested * 9) return n;
    uint32_t m = filter_rows(ps->nd->op->scan.filters[ps->k], s, v, keep, n, keep);
    ps->tested += n, ps->passed += m;
    ps->nd->stats.rows_dropped += n - m;
    return m;
}

/* scan_prune gives the scan the filter's conditions on its columns whose values are known now,
** so that the column store can skip row groups and vectors by their zone maps, and the join
** filters filled, which it tests in turn before decoding the other columns. */
static int scan_prune(exec_ctx *x, op_node *nd) {
    static const seg_cmp ops[] = {[CMP_EQ] = SEG_EQ, [CMP_NE] = SEG_NE, [CMP_LT] = SEG_LT,
                                  [CMP_LE] = SEG_LE, [CMP_GT] = SEG_GT, [CMP_GE] = SEG_GE};
    const plan_op *p = nd->op;
    scan_state *s = nd->state;
    rowgroup_pred preds[ROWGROUP_MAX_PREDS];
    uint32_t n = 0;
    for (uint32_t k = 0; k < p->scan.nzone && n < ROWGROUP_MAX_PREDS; k++) {
        uint32_t out = p->scan.zone_cols[k], i = 0; /* i: its position among the decoded columns */
        if (p->scan.need && !p->scan.need[out]) continue;
        for (uint32_t j = 0; j < out; j++) i += !p->scan.need || p->scan.need[j];
        sql_value v;
        int rc = exec_eval_scalar(x, p->scan.zone_vals[k], &v);
        if (rc) return rc;
        rowgroup_pred *pr = &preds[n];
        *pr = (rowgroup_pred){.i = i, .op = ops[p->scan.zone_ops[k]]};
        if (!v.is_null && zone_const(&v, p->scan.table->cols[p->scan.cols[out]].type, &pr->c)) n++;
    }
    for (uint32_t k = 0; k < p->scan.nfilters; k++) {
        const join_filter *f = p->scan.filters[k];
        uint32_t out = p->scan.filter_cols[k], i = 0;
        if (!f->ready || (p->scan.need && !p->scan.need[out])) continue;
        for (uint32_t j = 0; j < out; j++) i += !p->scan.need || p->scan.need[j];
        if (f->bloom || f->bitmap) {
            s->pushed[k] = (struct pushed){.nd = nd, .k = k};
            table_scan_filter(s->scan, i, pushed_filter, &s->pushed[k]);
        }
        if (!f->ranged || !sql_type_is_integer(p->types[out].id) || n + 2 > ROWGROUP_MAX_PREDS) continue;
        preds[n++] = (rowgroup_pred){.i = i, .op = SEG_GE, .c.i = f->min};
        preds[n++] = (rowgroup_pred){.i = i, .op = SEG_LE, .c.i = f->max};
    }
    table_scan_prune(s->scan, preds, n);
    return STRATA_OK;
}

/* scan_filter drops the rows of out (the scan's chunk) whose key a join filter rules out, as a
** selection on out; its rows left. */
static uint32_t scan_filter(op_node *nd, scan_state *s, data_chunk *out) {
    const plan_op *p = nd->op;
    uint32_t n = out->count, m = n;
    bool sliced = false;
    for (uint32_t k = 0; k < p->scan.nfilters && m; k++) {
        const join_filter *f = p->scan.filters[k];
        if (!f->ready || (s->ftested[k] >= SCAN_FILTER_TRIAL && s->fpassed[k] * 10 > s->ftested[k] * 9)) continue;
        uint32_t kept = filter_rows(f, s, &out->cols[p->scan.filter_cols[k]], sliced ? s->fsel : NULL, m, s->fsel);
        s->ftested[k] += m, s->fpassed[k] += kept;
        m = kept, sliced = true;
    }
    if (sliced && m && m < n) chunk_slice(out, s->fsel, m);
    nd->stats.rows_dropped += n - m;
    return m;
}

/* scan_buffers makes the state's buffers, unless a plan's earlier run (or morsel) kept them. */
static int scan_buffers(exec_ctx *x, op_node *nd) {
    const plan_op *p = nd->op;
    scan_state *s = nd->state;
    if (s) return STRATA_OK;
    if (!(s = calloc(1, sizeof *s))) return exec_nomem(x);
    nd->state = s;
    s->rowids = vec_scratch_alloc(VECTOR_SIZE * sizeof *s->rowids);
    if (!s->rowids) return exec_nomem(x);
    if (p->scan.nfilters) {
        s->hashes = malloc(VECTOR_SIZE * sizeof *s->hashes);
        s->fsel = malloc(VECTOR_SIZE * sizeof *s->fsel);
        if (!s->hashes || !s->fsel) return exec_nomem(x);
    }
    return scan_projection(x, p->scan.table, p->scan.cols, p->scan.ncols, p->scan.need, &s->proj, &s->nproj, &s->raw);
}

/* scan_bounds is this run's rowid range; STRATA_DONE when no row can match. */
static int scan_bounds(exec_ctx *x, const plan_op *p, int64_t *lo, int64_t *hi) {
    *lo = p->scan.lo, *hi = p->scan.hi;
    int rc = rowid_bound(x, p->scan.lo_expr, p->scan.lo_excl, true, lo);
    return rc ? rc : rowid_bound(x, p->scan.hi_expr, p->scan.hi_excl, false, hi);
}

/* scan_start opens the table scan of rowids lo..hi. */
static int scan_start(exec_ctx *x, op_node *nd, int64_t lo, int64_t hi) {
    const plan_op *p = nd->op;
    scan_state *s = nd->state;
    int rc = table_scan_open(x->txn, &p->scan.table->desc, s->proj, s->nproj, lo, hi, &s->scan);
    if (rc) return exec_table_error(x, rc);
    s->prune_due = p->scan.nzone || p->scan.nfilters;
    memset(s->ftested, 0, sizeof s->ftested);
    memset(s->fpassed, 0, sizeof s->fpassed);
    memset(s->pushed, 0, sizeof s->pushed);
    return STRATA_OK;
}

static int scan_open(exec_ctx *x, op_node *nd) {
    const plan_op *p = nd->op;
    int rc = scan_buffers(x, nd); /* kept from the plan's last run (close with keep), or new */
    if (rc) return rc;
    scan_state *s = nd->state;
    int64_t lo, hi;
    if ((rc = scan_bounds(x, p, &lo, &hi))) return rc == STRATA_DONE ? STRATA_OK : rc; /* s->scan stays NULL */
    if (lo == hi) { /* one rowid: read as an index's match is (table_reader), not scanned */
        if (!s->point && table_reader_open(&p->scan.table->desc, s->proj, s->nproj, &s->point)) return exec_nomem(x);
        s->rowids[0] = lo;
        s->point_due = true;
        return STRATA_OK;
    }
    return scan_start(x, nd, lo, hi);
}

/* scan_morsels cuts the run's rowid range into morsels of about a row group's rows each
** (table_scan_ranges: row groups whole, the row store between leaves; both stores' rows of a range
** are one table_scan's). A scan of one morsel or less is not cut (*count 0). Once cut, the workers'
** scans read the morsels (scan_open_morsel) and the node's own scan is closed. */
static int scan_morsels(exec_ctx *x, op_node *nd, uint64_t *count) {
    const plan_op *p = nd->op;
    scan_state *s = nd->state;
    *count = 0;
    int64_t lo, hi;
    int rc = scan_bounds(x, p, &lo, &hi);
    if (rc) return rc == STRATA_DONE ? STRATA_OK : rc;
    if (lo == hi) return STRATA_OK;
    const table_desc *td = &p->scan.table->desc;
    table_ranges_free(s->ranges);
    s->ranges = NULL, s->nranges = 0;
    table_range *r;
    uint32_t n;
    if ((rc = table_scan_ranges(x->txn, td, lo, hi, rowgroup_rows(td), &r, &n))) return exec_table_error(x, rc);
    if (n < 2) {
        table_ranges_free(r);
        return STRATA_OK;
    }
    s->ranges = r, s->nranges = n;
    if (s->scan) table_scan_close(s->scan);
    s->scan = NULL;
    *count = n;
    return STRATA_OK;
}

/* scan_open_morsel opens worker node nd's scan on morsel m of the run's (global's) ranges. */
static int scan_open_morsel(exec_ctx *x, op_node *nd, op_node *global, uint64_t m) {
    const scan_state *g = global->state;
    int rc = scan_buffers(x, nd);
    if (rc) return rc;
    scan_state *s = nd->state;
    if (s->scan) table_scan_close(s->scan);
    s->scan = NULL;
    return scan_start(x, nd, g->ranges[m].lo, g->ranges[m].hi);
}

/* scan_close ends a scan; with keep its buffers stay for the plan's next run. */
static void scan_close(op_node *nd, bool keep) {
    scan_state *s = nd->state;
    if (!s) return;
    if (s->scan) table_scan_close(s->scan);
    s->scan = NULL;
    s->point_due = false;
    table_ranges_free(s->ranges); /* a run's; a worker's node has none */
    s->ranges = NULL, s->nranges = 0;
    if (keep) {
        chunk_reset(&s->raw);
        return;
    }
    nd->state = NULL;
    table_reader_close(s->point);
    chunk_free(&s->raw);
    free(s->proj);
    vec_scratch_free(s->rowids, VECTOR_SIZE * sizeof *s->rowids);
    free(s->hashes);
    free(s->fsel);
    free(s);
}

/* scan_emit shows the rows read (s->raw) as the scan's output. */
static int scan_emit(exec_ctx *x, const plan_op *p, scan_state *s, data_chunk *out) {
    uint32_t n = s->raw.count;
    scan_output(&s->raw, p->scan.need, p->scan.ncols, out);
    if (p->scan.with_rowid) memcpy(out->cols[p->scan.ncols].data, s->rowids, n * sizeof(int64_t));
    out->count = n;
    if (!x->progress_unit) x->progress_done += n; /* rows, unless a file's bytes are counted */
    return STRATA_OK;
}

static int scan_next(exec_ctx *x, op_node *nd, data_chunk *out) {
    const plan_op *p = nd->op;
    scan_state *s = nd->state;
    out->count = 0;
    int rc;
    if (s->point_due) {
        s->point_due = false;
        chunk_reset(&s->raw);
        if ((rc = table_reader_get(s->point, x->txn, s->rowids, 1, &s->raw, NULL))) return exec_table_error(x, rc);
        return scan_emit(x, p, s, out);
    }
    if (!s->scan) return STRATA_OK; /* an empty rowid range, or a rowid lookup done */
    if (s->prune_due) {
        s->prune_due = false;
        if ((rc = scan_prune(x, nd))) return rc;
    }
    do { /* until a chunk keeps some row, or the scan ends */
        chunk_reset(&s->raw);
        if ((rc = table_scan_next(s->scan, &s->raw, p->scan.with_rowid ? s->rowids : NULL))) return exec_table_error(x, rc);
        if ((rc = scan_emit(x, p, s, out))) return rc;
    } while (s->raw.count && p->scan.nfilters && !scan_filter(nd, s, out));
    return STRATA_OK;
}

static int values_next(exec_ctx *x, op_node *nd, data_chunk *out) {
    const plan_op *p = nd->op;
    values_state *s = nd->state;
    uint32_t n = 0;
    while (s->next_row < p->values.nrows && n < VECTOR_SIZE) {
        for (uint32_t k = 0; k < p->ncols; k++) {
            expr *e = p->values.cells[s->next_row * p->ncols + k];
            sql_value v;
            int rc = exec_eval_scalar(x, e, &v);
            if (rc) return rc;
            if ((rc = vec_set_value(&out->cols[k], n, &v, x->err))) return rc;
        }
        n++;
        s->next_row++;
    }
    out->count = n;
    return STRATA_OK;
}

static int series_next(exec_ctx *x, op_node *nd, data_chunk *out) {
    const plan_op *p = nd->op;
    series_state *s = nd->state;
    if (!s->done && s->step == 0 && s->stop == 0 && s->next == 0) {
        sql_value a, b, c;
        int rc;
        if ((rc = exec_eval_scalar(x, p->series.start, &a)) || (rc = exec_eval_scalar(x, p->series.stop, &b)) ||
            (rc = exec_eval_scalar(x, p->series.step, &c)))
            return rc;
        if (a.is_null || b.is_null || c.is_null) {
            s->done = true;
        } else {
            if (c.v.i == 0) return expr_error(x, p->series.step, STRATA_ERROR, "step size cannot equal zero");
            s->next = a.v.i, s->stop = b.v.i, s->step = c.v.i;
            if (!p->series.inclusive) { /* range: stop excluded */
                if (s->step > 0) {
                    if (s->stop == INT64_MIN) s->done = true;
                    else s->stop--;
                } else {
                    if (s->stop == INT64_MAX) s->done = true;
                    else s->stop++;
                }
            }
        }
        if (!s->done && s->step == 0) s->done = true;
    }
    int64_t *d = out->cols[0].data;
    uint32_t n = 0;
    while (!s->done && n < VECTOR_SIZE) {
        if (s->step > 0 ? s->next > s->stop : s->next < s->stop) {
            s->done = true;
            break;
        }
        d[n++] = s->next;
        if (__builtin_add_overflow(s->next, s->step, &s->next)) s->done = true;
    }
    out->count = n;
    return STRATA_OK;
}

/* ---- pragma_storage_info ------------------------------------------------------------------ */

typedef struct info_state {
    vec_rows rows;
    uint32_t next; /* the next chunk of rows to hand out */
    bool built;
} info_state;

typedef struct info_build {
    exec_ctx *x;
    const table_def *td;
    data_chunk ch;
    info_state *s;
    int64_t group; /* ordinal of the current row group */
    int64_t first; /* its first rowid */
} info_build;

/* info_text sets row r of v to s (NULL when s is NULL). */
static int info_text(info_build *b, vector *v, uint32_t r, const char *s) {
    if (!s) {
        vec_set_null(v, r, 1);
        return STRATA_OK;
    }
    sql_value t = value_text(s, (uint32_t)strlen(s));
    return vec_set_value(v, r, &t, b->x->err);
}

static void info_int(vector *v, uint32_t r, int64_t i, bool null) {
    vec_set_null(v, r, null);
    VEC_DATA(v, int64_t)[r] = i;
}

/* info_flush appends the rows built so far to the state's collection. */
static int info_flush(info_build *b) {
    int rc = b->ch.count ? vec_rows_append(&b->s->rows, &b->ch, NULL, b->ch.count, b->x->err) : STRATA_OK;
    chunk_reset(&b->ch);
    return rc;
}

/* zone_text renders a zone map's min (or max) as the column's text. */
static void zone_text(const seg_zone *z, sql_type type, bool max, char *buf, size_t cap) {
    sql_value v = {.type = type};
    switch (vec_phys_of(type.id)) {
    case PHYS_F64: v.v.d = max ? z->max_d : z->min_d; break;
    case PHYS_STR: {
        const uint8_t *p = max ? z->max_s : z->min_s;
        v.v.s = sstr_make(p, max ? z->max_len : z->min_len);
        break;
    }
    default: v.v.i = max ? z->max_i : z->min_i; break;
    }
    value_to_text(&v, buf, cap);
}

static int info_segment(void *arg, const rowgroup_desc *d, uint32_t col, const seg_info *info,
                        const column_stats *stats) {
    info_build *b = arg;
    int rc;
    if (b->ch.count == VECTOR_SIZE && (rc = info_flush(b))) return rc;
    if (d->first != b->first || b->group < 0) {
        b->group++;
        b->first = d->first;
    }
    uint32_t r = b->ch.count;
    vector *c = b->ch.cols;
    bool rowid = col == ROWGROUP_ROWID_COL;
    sql_type type = rowid ? sql_type_make(TYPE_BIGINT) : b->td->cols[col].type;
    char lo[VALUE_TEXT_MAX], hi[VALUE_TEXT_MAX];
    bool minmax = info->zone.has_minmax;
    if (minmax) {
        zone_text(&info->zone, type, false, lo, sizeof lo);
        zone_text(&info->zone, type, true, hi, sizeof hi);
    }
    info_int(&c[0], r, b->group, false);
    if ((rc = info_text(b, &c[1], r, rowid ? "rowid" : b->td->cols[col].name))) return rc;
    info_int(&c[2], r, info->rows, false);
    if ((rc = info_text(b, &c[3], r, info->encoding))) return rc;
    info_int(&c[4], r, (int64_t)info->compressed_bytes, false);
    info_int(&c[5], r, (int64_t)info->uncompressed_bytes, false);
    if ((rc = info_text(b, &c[6], r, minmax ? lo : NULL)) || (rc = info_text(b, &c[7], r, minmax ? hi : NULL)))
        return rc;
    info_int(&c[8], r, info->null_count, false);
    info_int(&c[9], r, stats ? (int64_t)(stats->distinct + 0.5) : 0, !stats);
    info_int(&c[10], r, d->deleted, false);
    b->ch.count++;
    return STRATA_OK;
}

/* info_build_rows makes the rows of pragma_storage_info: the row store's, then every segment's. */
static int info_build_rows(exec_ctx *x, const plan_op *p, info_state *s) {
    info_build b = {.x = x, .td = p->info.table, .s = s, .group = -1};
    int rc = chunk_init(&b.ch, p->types, p->ncols, x->err);
    if (rc) return rc;
    btree_stats st;
    if ((rc = btree_get_stats(x->txn, b.td->root, &st))) {
        rc = exec_table_error(x, rc);
        goto done;
    }
    uint64_t pages = st.leaf_pages + st.interior_pages + st.overflow_pages;
    vector *c = b.ch.cols;
    info_int(&c[0], 0, 0, true);
    vec_set_null(&c[1], 0, 1);
    info_int(&c[2], 0, (int64_t)st.entries, false);
    if ((rc = info_text(&b, &c[3], 0, "row store"))) goto done;
    info_int(&c[4], 0, (int64_t)(pages * pager_page_size(pager_txn_pager(x->txn))), false);
    for (int k = 5; k < 10; k++) vec_set_null(&c[k], 0, 1);
    info_int(&c[10], 0, 0, false);
    b.ch.count = 1;
    if ((rc = rowgroup_describe(x->txn, &b.td->desc, info_segment, &b))) {
        if (!x->err->code) rc = exec_table_error(x, rc);
        goto done;
    }
    rc = info_flush(&b);
done:
    chunk_free(&b.ch);
    return rc;
}

static int info_open(exec_ctx *x, op_node *nd) {
    const plan_op *p = nd->op;
    info_state *s = calloc(1, sizeof *s);
    if (!s) return exec_nomem(x);
    nd->state = s;
    return vec_rows_init(&s->rows, p->types, p->ncols, x->err);
}

static int info_next(exec_ctx *x, op_node *nd, data_chunk *out) {
    const plan_op *p = nd->op;
    info_state *s = nd->state;
    out->count = 0;
    int rc;
    if (!s->built && (rc = info_build_rows(x, p, s))) return rc;
    s->built = true;
    if (s->next >= s->rows.nchunks) return STRATA_OK;
    data_chunk *ch = s->rows.chunks[s->next++];
    for (uint32_t c = 0; c < p->ncols; c++) vec_reference(&out->cols[c], &ch->cols[c]);
    out->count = ch->count;
    return STRATA_OK;
}

static void info_close(op_node *nd, bool keep) {
    (void)keep;
    info_state *s = nd->state;
    if (s) vec_rows_free(&s->rows);
    free(s);
    nd->state = NULL;
}

/* ---- the operators ------------------------------------------------------------------------ */

static void scan_explain(const plan_op *p, char *buf, size_t cap) {
    int n = snprintf(buf, cap, " %s%s", p->scan.table->name,
                     p->scan.lo_expr && p->scan.lo_expr == p->scan.hi_expr ? " (rowid lookup)"
                     : p->scan.lo_expr || p->scan.hi_expr               ? " (rowid range)"
                                                                        : "");
    for (uint32_t k = 0; k < p->scan.nfilters && (size_t)n < cap; k++)
        n += snprintf(buf + n, cap - (size_t)n, "%s%s", k ? ", " : " (join filter on ",
                      p->scan.table->cols[p->scan.cols[p->scan.filter_cols[k]]].name);
    if (p->scan.nfilters && (size_t)n < cap) snprintf(buf + n, cap - (size_t)n, ")");
}

const op_vtable op_scan = {
    .name = "SCAN",
    .open = scan_open,
    .close = scan_close,
    .source = scan_next,
    .explain = scan_explain,
    .morsels = scan_morsels,
    .open_morsel = scan_open_morsel,
};

static void iscan_explain(const plan_op *p, char *buf, size_t cap) {
    int keys = p->iscan.nlo > p->iscan.nhi ? p->iscan.nlo : p->iscan.nhi;
    snprintf(buf, cap, " %s USING %s (%d key%s%s)", p->iscan.table->name, p->iscan.index->name, keys, keys == 1 ? "" : "s",
             p->iscan.key_pos ? ", covering" : "");
}

const op_vtable op_index_scan = {
    .name = "INDEX_SCAN",
    .open = iscan_open,
    .close = iscan_close,
    .source = iscan_next,
    .explain = iscan_explain,
};

static int values_open(exec_ctx *x, op_node *nd) { return exec_small_state(x, nd, sizeof(values_state)); }

const op_vtable op_values = {
    .name = "VALUES",
    .open = values_open,
    .close = exec_small_close,
    .source = values_next,
};

static int series_open(exec_ctx *x, op_node *nd) { return exec_small_state(x, nd, sizeof(series_state)); }

const op_vtable op_series = {
    .name = "SERIES",
    .open = series_open,
    .close = exec_small_close,
    .source = series_next,
};

const op_vtable op_storage_info = {
    .name = "STORAGE_INFO",
    .open = info_open,
    .close = info_close,
    .source = info_next,
};

/* EMPTY: no row (a false WHERE), or one row without columns (SELECT without FROM). */
static int empty_open(exec_ctx *x, op_node *nd) { return exec_small_state(x, nd, sizeof(int)); }

static int empty_next(exec_ctx *x, op_node *nd, data_chunk *out) {
    (void)x;
    int *done = nd->state;
    out->count = nd->op->empty.one_row && !*done ? 1 : 0;
    *done = 1;
    return STRATA_OK;
}

const op_vtable op_empty = {
    .name = "EMPTY",
    .open = empty_open,
    .close = exec_small_close,
    .source = empty_next,
};
