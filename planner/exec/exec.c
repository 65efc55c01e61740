/*
** exec.c -- running plans as push-based pipelines of data chunks (see exec.h).
**
** Pipelines. pipelines_build cuts the operator tree at its breakers: a pipeline is a source,
** a chain of streaming operators and a sink. A breaker (aggregate, sort, distinct, set operation,
** the build side of a join, a DML operator) is the sink of the pipelines below it and the source
** of the one above. The last pipeline has no sink: exec_next hands its chunks to the caller.
**
** Streaming operators may produce more output than fits one chunk (a join's fan-out): they say
** so with `more`, and the executor calls them again with the same input before fetching new
** input. At the end of its input a streaming operator may flush rows it held back (an outer
** join's unmatched build rows).
**
** Collections (rows kept by a breaker) are lists of full data chunks whose values and strings are
** copied (chunk_append), so nothing kept refers to a page or another operator's vectors.
*/
#include "exec/exec.h"

#include "bigmem.h"
#include "hash.h"

#include <stdlib.h>
#include <strings.h>
#include <string.h>
#include <time.h>

#include "../../colstore/rowgroup.h"
#include "../../vector/kernel.h"
#include "bind/bind.h"
#include "load/copy.h"
#include "parser/parser.h"

static void op_close(plan_op *p, bool keep);
static void pipelines_free(void *pipes);
static int nomem(exec_ctx *x);

/* The collections and hash tables of a run are charged to its query memory (x->budget). */
static int rows_init(exec_ctx *x, vec_rows *c, const sql_type *types, uint32_t ncols) {
    int rc = vec_rows_init(c, types, ncols, x->err);
    c->budget = x->budget;
    return rc;
}

static int groups_init(exec_ctx *x, vec_groups *g, const sql_type *types, uint32_t ncols) {
    int rc = vec_groups_init(g, types, ncols, x->err);
    g->keys.budget = x->budget;
    return rc;
}

static int join_table_init(exec_ctx *x, vec_join_table *t, const sql_type *types, uint32_t nkeys) {
    int rc = vec_join_init(t, types, nkeys, x->err);
    t->groups.keys.budget = x->budget;
    return rc;
}

/* A row of a vec_rows: chunk index and row within it. */
typedef struct row_ref {
    uint32_t chunk, row;
} row_ref;

/* ---- operator states ---------------------------------------------------------------------- */

/* One aggregate's state in one group, by the aggregate's kind: counts keep an int64_t; sums and
** averages of integers and DECIMALs an isum_slot, of DOUBLEs a dsum_slot; MIN and MAX a
** best_slot (best valid once count > 0: the values seen). Each aggregate keeps its states in an
** array by group (agg_states) of just its kind's size: a GROUP BY of millions of groups counting
** rows keeps 8 bytes a group. Every kind begins with the count. */
typedef struct isum_slot {
    int64_t count;
    int128 sum;
} isum_slot;

typedef struct dsum_slot {
    int64_t count;
    double sum;
} dsum_slot;

typedef struct best_slot {
    int64_t count;
    sql_value best;
} best_slot;

typedef struct agg_states {
    char *base;   /* cap_slots states of width bytes */
    uint32_t width;
} agg_states;

/* Group keys that are all column-segment dictionaries (vector.h's dict_id) map to groups through
** their indexes: the indexes of a row's keys combine into one number below the product of the
** dictionaries' sizes, and gid[] of that number is the group (+ 1; 0 not looked up yet). The map
** serves one set of dictionaries (a row group) and starts again when they change. */
#define DICT_KEYS_MAX 4
#define DICT_MAP_MAX 65536

typedef struct dict_map {
    uint64_t ids[DICT_KEYS_MAX]; /* the dictionaries mapped, one per key */
    uint32_t size, cap;
    uint32_t *gid;
    uint32_t *combined;      /* scratch: each row's combined index */
    vector tmp[DICT_KEYS_MAX]; /* the keys of the rows looked up (slices) */
    bool ready;              /* tmp initialized */
} dict_map;

/* A single integer key whose values span at most DICT_MAP_MAX numbers maps to groups through a
** direct array too: gid[value - base] (+ 1; 0 not looked up yet). */
typedef struct range_map {
    int64_t base;
    uint32_t size; /* values base .. base + size - 1 are mapped */
    uint32_t *gid;
    bool given_up; /* a chunk's key was not such: hashed from then on */
} range_map;

typedef struct agg_state {
    vec_groups groups;
    dict_map dict;
    range_map range;
    agg_states *st; /* per aggregate */
    uint32_t cap_slots; /* groups each aggregate's states have room for */
    vec_groups *distinct; /* per aggregate with DISTINCT: (group, value) pairs seen */
    arena strings;         /* MIN/MAX strings */
    uint32_t *gids;
    uint8_t *is_new;
    uint64_t *hashes;
    uint32_t emitted;      /* source: groups output so far */
    bool done;
} agg_state;

/* The Bloom filter of a join filter (plan.h): a key's hash picks a word by its top bits and sets
** three of its bits by its low ones, so that a probe reads one word; 16 bits a key, up to 2^24
** words (a larger build side gives only the range). */
static inline uint64_t bloom_bits(uint64_t h) {
    return UINT64_C(1) << (h & 63) | UINT64_C(1) << ((h >> 6) & 63) | UINT64_C(1) << ((h >> 12) & 63);
}

/* A scan keeps applying a join filter while it drops enough rows for its cost: it is dropped for
** the rest of the run when, after SCAN_FILTER_TRIAL rows, it has passed more than 9 in 10. */
#define SCAN_FILTER_TRIAL (16 * VECTOR_SIZE)

typedef struct scan_state {
    table_scan *scan;
    bool prune_due;   /* the zone-map conditions are handed over at the first chunk, when the
                      ** join filters above are filled */
    uint64_t ftested[4], fpassed[4]; /* by join filter: rows tested and passed this run */
    uint64_t *hashes; /* scratch for a join filter's key hashes */
    sel_t *fsel;      /* the rows the join filters keep */
    data_chunk raw;   /* the decoded columns: proj[k] of the table is raw column k ... */
    uint32_t *proj;
    uint32_t nproj;
    int64_t *rowids;
    table_reader *point; /* a rowid lookup's reader, kept across runs (row groups stay open) */
    bool point_due;      /* a rowid lookup's row is still to be read (its rowid in rowids[0]) */
} scan_state;

/* scan_projection lists the table columns a scan decodes: those of its outputs some operator
** reads (need NULL: all). */
static int scan_projection(exec_ctx *x, const table_def *td, const uint32_t *cols, uint32_t ncols, const uint8_t *need,
                           uint32_t **proj, uint32_t *nproj, data_chunk *raw) {
    *proj = malloc((ncols + 1) * sizeof **proj);
    sql_type *types = malloc((ncols + 1) * sizeof *types);
    if (!*proj || !types) {
        free(types);
        return nomem(x);
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
static void null_column(vector *v) {
    vec_reset(v);
    vec_set_null(v, 0, 1);
    vec_make_constant(v);
}

/* scan_output shows the decoded columns as the scan's outputs; the others are constant NULLs. */
static void scan_output(data_chunk *raw, const uint8_t *need, uint32_t ncols, data_chunk *out) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < ncols; i++) {
        if (!need || need[i]) {
            vec_reference(&out->cols[i], &raw->cols[k++]);
            continue;
        }
        null_column(&out->cols[i]);
    }
}

typedef struct join_state {
    vec_rowtable build; /* build rows */
    bool *bnull;       /* by build column: every value a constant NULL (a column no one reads) */
    vec_join_table table; /* their keys */
    uint8_t *bmatched;   /* RIGHT/FULL: build row matched */
    uint64_t nbuild;
    bool build_null;     /* null_aware: some build key is NULL */
    /* probing one input chunk */
    uint64_t *phash;     /* scratch for the probe keys' hashes */
    uint32_t *heads;     /* each probe row's chain (vec_join_probe) */
    uint32_t pos_row;    /* next probe row */
    uint32_t pos_next;   /* next build row + 1 in the current chain (0: start the row's chain) */
    bool in_chain;
    uint8_t *pmatched;   /* probe rows matched in this chunk */
    int phase;           /* 0 pairs, 1 unmatched probe rows, 2 done with this chunk */
    uint32_t flush_pos;  /* RIGHT/FULL: next build row to consider at the end */
    data_chunk pairs;    /* candidate pairs, left then right columns */
    sel_t *prow;         /* probe row of each pair */
    uint32_t *brow;      /* build row of each pair */
    sel_t *sel;
} join_state;

typedef struct sort_state {
    vec_rows rows;
    row_ref *order;  /* the rows in sort order; ORDER BY ... LIMIT: first the kept rows' heap */
    uint64_t n, emitted;
    uint64_t cap;    /* ... and its room */
    bool sorted;
} sort_state;

typedef struct setop_state {
    vec_groups groups;  /* distinct rows with counts per side (UNION ALL: unused) */
    vec_rows all;      /* UNION ALL rows */
    uint64_t *counts;    /* 2 per group */
    uint32_t cap;
    uint32_t *gids;
    uint64_t *hashes;
    uint32_t emit_group;
    uint64_t emit_copy;
} setop_state;

typedef struct limit_state {
    int64_t skip, left; /* left < 0: no limit */
    bool ready;
} limit_state;

enum { BULK_UNDECIDED, BULK_ON, BULK_OFF }; /* dml_state.bulk_mode */
#define BULK_MIN_ROWS (VECTOR_SIZE / 8) /* the smallest input chunk that starts INSERT's bulk path */
#define BULK_TAIL_SHARE 4 /* a bulk INSERT's last rows make a row group from 1/4 of a full one ... */
#define BULK_TAIL_MIN (4 * VECTOR_SIZE) /* ... and from 4 vectors */

typedef struct dml_state {
    vec_rows pending;  /* input rows held until the input ends (see dml_must_hold) */
    bool hold;
    vec_rows returned; /* RETURNING rows */
    uint32_t emit_chunk;
    bool done;
    expr **checks;       /* bound CHECK constraints */
    expr ***index_keys;  /* per index: bound key expressions */
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
    rowgroup_job *bulk_job;  /* ... the one before it, being encoded while they come */
    size_t bulk_open_charged, bulk_job_charged; /* ... their memory charged to bulk_budget */
    vec_budget *bulk_budget;                    /* ... the run's query memory */
    data_chunk bulk_out;     /* ... rows read back for the row tree */
    int64_t bulk_last;       /* ... the largest rowid of the table and of the rows taken */
    uint8_t bulk_mode;       /* BULK_UNDECIDED, BULK_ON or BULK_OFF for this run */
    int32_t fail_row;        /* INSERT: the input row a constraint error is about; -1 none known */
    arena mem;           /* the bound checks and index keys: they stay while the plan does */
    uint32_t nchecks, nindexes, *index_nkeys; /* their counts (the table's definition may go first) */
} dml_state;

typedef struct series_state {
    int64_t next, stop, step;
    bool done;
} series_state;

typedef struct values_state {
    uint32_t next_row;
} values_state;

/* ---- helpers ------------------------------------------------------------------------------ */

static int nomem(exec_ctx *x) { return err_set(x->err, STRATA_NOMEM, "out of memory (executor)"); }

/* eval_scalar evaluates an expression without columns, cheaply for constants and parameters. */
static int eval_scalar(exec_ctx *x, expr *e, sql_value *out) {
    if (e->kind == EXPR_CONST) {
        *out = e->value;
        return STRATA_OK;
    }
    if (e->kind == EXPR_PARAM) return expr_param_value(x, e, out);
    return expr_eval_const(x, e, out);
}

static int table_error(exec_ctx *x, int rc) {
    if (x->err->code) return x->err->code;
    return err_set(x->err, rc, "%s", pager_txn_err(x->txn)->msg);
}

/* ---- sources ------------------------------------------------------------------------------ */

/* rowid_bound evaluates a bound of a rowid range scan: the value as a BIGINT, moved one step
** inward when exclusive. STRATA_DONE when no rowid can satisfy it (NULL, or beyond the range). */
static int rowid_bound(exec_ctx *x, expr *e, bool excl, bool lower, int64_t *out) {
    if (!e) return STRATA_OK;
    sql_value v;
    int rc = eval_scalar(x, e, &v);
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
        int rc = eval_scalar(x, vals[k], &v);
        if (rc) return rc;
        if (v.is_null) *null = true;
        if ((rc = key_encode(buf, &v, x->err))) return rc;
    }
    return STRATA_OK;
}

static int iscan_open(exec_ctx *x, plan_op *p) {
    iscan_state *s = p->state; /* kept from the last run, or new */
    int rc;
    if (!s) {
        if (!(s = calloc(1, sizeof *s))) return nomem(x);
        p->state = s;
        if (p->iscan.key_pos) { /* raw holds the index's keys */
            index_def *ix = p->iscan.index;
            sql_type types[ix->nkeys];
            for (uint32_t k = 0; k < ix->nkeys; k++) types[k] = p->iscan.table->cols[ix->key_cols[k]].type;
            rc = chunk_init(&s->raw, types, ix->nkeys, x->err);
        } else {
            rc = scan_projection(x, p->iscan.table, p->iscan.cols, p->iscan.ncols, p->iscan.need, &s->proj, &s->nproj,
                                 &s->raw);
            if (rc == STRATA_OK && table_reader_open(&p->iscan.table->desc, s->proj, s->nproj, &s->reader))
                rc = nomem(x);
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
    return rc ? table_error(x, rc) : STRATA_OK;
}

static void iscan_close(plan_op *p, bool keep) {
    iscan_state *s = p->state;
    if (!s) return;
    if (s->scan) index_scan_close(s->scan);
    s->scan = NULL;
    if (keep) {
        chunk_reset(&s->raw);
        return;
    }
    p->state = NULL;
    table_reader_close(s->reader);
    chunk_free(&s->raw);
    free(s->proj);
    btree_buf_free(&s->keys);
    btree_buf_free(&s->lo);
    btree_buf_free(&s->hi);
    free(s);
}

/* iscan_covering_next answers a covering index scan from the index's keys alone. */
static int iscan_covering_next(exec_ctx *x, plan_op *p, iscan_state *s, data_chunk *out) {
    uint32_t n;
    int rc = index_scan_next_keys(s->scan, s->rowids, VECTOR_SIZE, &n, &s->keys, s->key_off);
    if (rc) return table_error(x, rc);
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

static int iscan_next(exec_ctx *x, plan_op *p, data_chunk *out) {
    iscan_state *s = p->state;
    out->count = 0;
    if (s->empty) return STRATA_OK;
    if (p->iscan.key_pos) return iscan_covering_next(x, p, s, out);
    for (;;) {
        uint32_t n;
        int rc = index_scan_next(s->scan, s->rowids, VECTOR_SIZE, &n);
        if (rc) return table_error(x, rc);
        if (!n) return STRATA_OK;
        chunk_reset(&s->raw);
        if ((rc = table_reader_get(s->reader, x->txn, s->rowids, n, &s->raw, s->found))) return table_error(x, rc);
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

/* scan_prune gives the scan the filter's conditions on its columns whose values are known now,
** so that the column store can skip row groups and vectors by their zone maps. */
static int scan_prune(exec_ctx *x, plan_op *p, scan_state *s) {
    static const seg_cmp ops[] = {[CMP_EQ] = SEG_EQ, [CMP_NE] = SEG_NE, [CMP_LT] = SEG_LT,
                                  [CMP_LE] = SEG_LE, [CMP_GT] = SEG_GT, [CMP_GE] = SEG_GE};
    rowgroup_pred preds[ROWGROUP_MAX_PREDS];
    uint32_t n = 0;
    for (uint32_t k = 0; k < p->scan.nzone && n < ROWGROUP_MAX_PREDS; k++) {
        uint32_t out = p->scan.zone_cols[k], i = 0; /* i: its position among the decoded columns */
        if (p->scan.need && !p->scan.need[out]) continue;
        for (uint32_t j = 0; j < out; j++) i += !p->scan.need || p->scan.need[j];
        sql_value v;
        int rc = eval_scalar(x, p->scan.zone_vals[k], &v);
        if (rc) return rc;
        rowgroup_pred *pr = &preds[n];
        *pr = (rowgroup_pred){.i = i, .op = ops[p->scan.zone_ops[k]]};
        if (!v.is_null && zone_const(&v, p->scan.table->cols[p->scan.cols[out]].type, &pr->c)) n++;
    }
    for (uint32_t k = 0; k < p->scan.nfilters && n + 2 <= ROWGROUP_MAX_PREDS; k++) {
        const join_filter *f = p->scan.filters[k];
        uint32_t out = p->scan.filter_cols[k], i = 0;
        if (!f->ready || !f->ranged || !sql_type_is_integer(p->types[out].id)) continue;
        for (uint32_t j = 0; j < out; j++) i += !p->scan.need || p->scan.need[j];
        preds[n++] = (rowgroup_pred){.i = i, .op = SEG_GE, .c.i = f->min};
        preds[n++] = (rowgroup_pred){.i = i, .op = SEG_LE, .c.i = f->max};
    }
    table_scan_prune(s->scan, preds, n);
    return STRATA_OK;
}

/* scan_filter drops the rows of out (the scan's chunk) whose key a join filter rules out (a NULL
** key too: it matches nothing), as a selection on out; its rows left. */
static uint32_t scan_filter(plan_op *p, scan_state *s, data_chunk *out) {
    uint32_t n = out->count, m = n;
    bool sliced = false;
    for (uint32_t k = 0; k < p->scan.nfilters && m; k++) {
        const join_filter *f = p->scan.filters[k];
        if (!f->ready || (s->ftested[k] >= SCAN_FILTER_TRIAL && s->fpassed[k] * 10 > s->ftested[k] * 9)) continue;
        const vector *v = &out->cols[p->scan.filter_cols[k]];
        const sel_t *rows = sliced ? s->fsel : NULL;
        uint32_t kept = 0;
        if (f->bloom) vec_hash(v, rows, m, s->hashes);
        for (uint32_t i = 0; i < m; i++) {
            uint32_t r = rows ? rows[i] : i;
            bool pass = !vec_is_null(v, r);
            if (pass && f->bloom) {
                uint64_t h = s->hashes[i], b = bloom_bits(h);
                pass = (f->bloom[h >> f->bloom_shift] & b) == b;
            }
            s->fsel[kept] = (sel_t)r;
            kept += pass;
        }
        s->ftested[k] += m, s->fpassed[k] += kept;
        m = kept, sliced = true;
    }
    if (sliced && m && m < n) chunk_slice(out, s->fsel, m);
    p->rows_dropped += n - m;
    return m;
}

static int scan_open(exec_ctx *x, plan_op *p) {
    scan_state *s = p->state; /* kept from the plan's last run (op_close with keep), or new */
    int rc;
    if (!s) {
        if (!(s = calloc(1, sizeof *s))) return nomem(x);
        p->state = s;
        s->rowids = vec_scratch_alloc(VECTOR_SIZE * sizeof *s->rowids);
        if (!s->rowids) return nomem(x);
        if (p->scan.nfilters) {
            s->hashes = malloc(VECTOR_SIZE * sizeof *s->hashes);
            s->fsel = malloc(VECTOR_SIZE * sizeof *s->fsel);
            if (!s->hashes || !s->fsel) return nomem(x);
        }
        rc = scan_projection(x, p->scan.table, p->scan.cols, p->scan.ncols, p->scan.need, &s->proj, &s->nproj, &s->raw);
        if (rc) return rc;
    }
    int64_t lo = p->scan.lo, hi = p->scan.hi;
    if ((rc = rowid_bound(x, p->scan.lo_expr, p->scan.lo_excl, true, &lo)) ||
        (rc = rowid_bound(x, p->scan.hi_expr, p->scan.hi_excl, false, &hi)))
        return rc == STRATA_DONE ? STRATA_OK : rc; /* DONE: no row can match; s->scan stays NULL */
    if (lo == hi) { /* one rowid: read as an index's match is (table_reader), not scanned */
        if (!s->point && table_reader_open(&p->scan.table->desc, s->proj, s->nproj, &s->point)) return nomem(x);
        s->rowids[0] = lo;
        s->point_due = true;
        return STRATA_OK;
    }
    rc = table_scan_open(x->txn, &p->scan.table->desc, s->proj, s->nproj, lo, hi, &s->scan);
    if (rc) return table_error(x, rc);
    s->prune_due = p->scan.nzone || p->scan.nfilters;
    memset(s->ftested, 0, sizeof s->ftested);
    memset(s->fpassed, 0, sizeof s->fpassed);
    return STRATA_OK;
}

/* scan_close ends a scan; with keep its buffers stay for the plan's next run. */
static void scan_close(plan_op *p, bool keep) {
    scan_state *s = p->state;
    if (!s) return;
    if (s->scan) table_scan_close(s->scan);
    s->scan = NULL;
    s->point_due = false;
    if (keep) {
        chunk_reset(&s->raw);
        return;
    }
    p->state = NULL;
    table_reader_close(s->point);
    chunk_free(&s->raw);
    free(s->proj);
    vec_scratch_free(s->rowids, VECTOR_SIZE * sizeof *s->rowids);
    free(s->hashes);
    free(s->fsel);
    free(s);
}

/* scan_emit shows the rows read (s->raw) as the scan's output. */
static int scan_emit(exec_ctx *x, plan_op *p, scan_state *s, data_chunk *out) {
    uint32_t n = s->raw.count;
    scan_output(&s->raw, p->scan.need, p->scan.ncols, out);
    if (p->scan.with_rowid) memcpy(out->cols[p->scan.ncols].data, s->rowids, n * sizeof(int64_t));
    out->count = n;
    if (!x->progress_unit) x->progress_done += n; /* rows, unless a file's bytes are counted */
    return STRATA_OK;
}

static int scan_next(exec_ctx *x, plan_op *p, data_chunk *out) {
    scan_state *s = p->state;
    out->count = 0;
    int rc;
    if (s->point_due) {
        s->point_due = false;
        chunk_reset(&s->raw);
        if ((rc = table_reader_get(s->point, x->txn, s->rowids, 1, &s->raw, NULL))) return table_error(x, rc);
        return scan_emit(x, p, s, out);
    }
    if (!s->scan) return STRATA_OK; /* an empty rowid range, or a rowid lookup done */
    if (s->prune_due) {
        s->prune_due = false;
        if ((rc = scan_prune(x, p, s))) return rc;
    }
    do { /* until a chunk keeps some row, or the scan ends */
        chunk_reset(&s->raw);
        if ((rc = table_scan_next(s->scan, &s->raw, p->scan.with_rowid ? s->rowids : NULL))) return table_error(x, rc);
        if ((rc = scan_emit(x, p, s, out))) return rc;
    } while (s->raw.count && p->scan.nfilters && !scan_filter(p, s, out));
    return STRATA_OK;
}

static int values_next(exec_ctx *x, plan_op *p, data_chunk *out) {
    values_state *s = p->state;
    uint32_t n = 0;
    while (s->next_row < p->values.nrows && n < VECTOR_SIZE) {
        for (uint32_t k = 0; k < p->ncols; k++) {
            expr *e = p->values.cells[s->next_row * p->ncols + k];
            sql_value v;
            int rc = eval_scalar(x, e, &v);
            if (rc) return rc;
            if ((rc = vec_set_value(&out->cols[k], n, &v, x->err))) return rc;
        }
        n++;
        s->next_row++;
    }
    out->count = n;
    return STRATA_OK;
}

static int series_next(exec_ctx *x, plan_op *p, data_chunk *out) {
    series_state *s = p->state;
    if (!s->done && s->step == 0 && s->stop == 0 && s->next == 0) {
        sql_value a, b, c;
        int rc;
        if ((rc = eval_scalar(x, p->series.start, &a)) || (rc = eval_scalar(x, p->series.stop, &b)) ||
            (rc = eval_scalar(x, p->series.step, &c)))
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

/* ---- aggregate ---------------------------------------------------------------------------- */

static int agg_open(exec_ctx *x, plan_op *p) {
    agg_state *s = calloc(1, sizeof *s);
    if (!s) return nomem(x);
    p->state = s;
    arena_init(&s->strings, 0);
    s->gids = malloc(VECTOR_SIZE * sizeof *s->gids);
    s->is_new = malloc(VECTOR_SIZE);
    s->hashes = malloc(VECTOR_SIZE * sizeof *s->hashes);
    s->st = calloc(p->agg.naggs + 1, sizeof *s->st);
    if (!s->gids || !s->is_new || !s->hashes || !s->st) return nomem(x);
    for (uint32_t a = 0; a < p->agg.naggs; a++) {
        const agg_expr *ag = &p->agg.aggs[a];
        agg_states *st = &s->st[a];
        if (ag->fn == AGG_COUNT_STAR || ag->fn == AGG_COUNT) st->width = sizeof(int64_t);
        else if (ag->fn == AGG_MIN || ag->fn == AGG_MAX) st->width = sizeof(best_slot);
        else if (vec_phys_of(ag->arg->type.id) == PHYS_F64) st->width = sizeof(dsum_slot);
        else st->width = sizeof(isum_slot);
    }
    sql_type kt[p->agg.nkeys + 1];
    for (uint32_t k = 0; k < p->agg.nkeys; k++) kt[k] = p->agg.keys[k]->type;
    int rc = groups_init(x, &s->groups, kt, p->agg.nkeys);
    if (rc) return rc;
    for (uint32_t k = 0; k < p->agg.nkeys; k++)
        if ((rc = expr_prepare(p->agg.keys[k], x->err))) return rc;
    for (uint32_t a = 0; a < p->agg.naggs; a++) {
        agg_expr *ag = &p->agg.aggs[a];
        if (ag->arg && (rc = expr_prepare(ag->arg, x->err))) return rc;
        if (ag->distinct) {
            if (!s->distinct && !(s->distinct = calloc(p->agg.naggs, sizeof *s->distinct))) return nomem(x);
            sql_type dt[2] = {sql_type_make(TYPE_INTEGER), ag->arg ? ag->arg->type : sql_type_make(TYPE_INTEGER)};
            if ((rc = groups_init(x, &s->distinct[a], dt, 2))) return rc;
        }
    }
    return STRATA_OK;
}

static void agg_close(plan_op *p) {
    agg_state *s = p->state;
    if (!s) return;
    vec_groups_free(&s->groups);
    if (s->distinct) {
        for (uint32_t a = 0; a < p->agg.naggs; a++) vec_groups_free(&s->distinct[a]);
        free(s->distinct);
    }
    arena_free(&s->strings);
    free(s->dict.gid);
    free(s->dict.combined);
    free(s->range.gid);
    if (s->dict.ready)
        for (uint32_t k = 0; k < p->agg.nkeys; k++) vec_free(&s->dict.tmp[k]);
    if (s->st)
        for (uint32_t a = 0; a < p->agg.naggs; a++) bigmem_free(s->st[a].base, (size_t)s->cap_slots * s->st[a].width);
    free(s->st);
    free(s->gids);
    free(s->is_new);
    free(s->hashes);
    free(s);
}

static inline void *slot_at(const agg_state *s, uint32_t a, uint32_t g) {
    return s->st[a].base + (size_t)g * s->st[a].width;
}

/* count_at is the count every kind of state begins with. */
static inline int64_t *count_at(const agg_state *s, uint32_t a, uint32_t g) { return slot_at(s, a, g); }

static int agg_ensure_slots(exec_ctx *x, agg_state *s, uint32_t naggs) {
    if (s->groups.ngroups <= s->cap_slots) return STRATA_OK;
    uint32_t nc = s->cap_slots ? s->cap_slots : 256;
    while (nc < s->groups.ngroups) nc *= 2;
    for (uint32_t a = 0; a < naggs; a++) {
        agg_states *st = &s->st[a];
        int rc = vec_rows_charge(&s->groups.keys, (size_t)(nc - s->cap_slots) * st->width, x->err);
        if (rc) return rc;
        char *n = bigmem_grow(st->base, (size_t)s->cap_slots * st->width, (size_t)nc * st->width);
        if (!n) return nomem(x);
        st->base = n;
    }
    s->cap_slots = nc;
    return STRATA_OK;
}

/* AGG_SUM_LOOP adds the non-NULL values of v (element type T) to their groups' states, of type S. */
#define AGG_SUM_LOOP(T, S)                                                                               \
    do {                                                                                                 \
        const T *d = v->data;                                                                            \
        S *st = (S *)(void *)s->st[a].base;                                                              \
        for (uint32_t r = 0; r < count; r++) {                                                           \
            if (v->validity && vec_is_null(v, r)) continue;                                              \
            st[gids[r]].count++;                                                                         \
            st[gids[r]].sum += d[v->sel[r]];                                                             \
        }                                                                                                \
    } while (0)

/* agg_sum_one adds the non-NULL values of v to the one group's state of an aggregate without
** GROUP BY, through the sum kernels; false for a type they do not sum. */
static bool agg_sum_one(void *state, const vector *v, uint32_t count) {
    int64_t n;
    const sel_t *sel = kern_sel(v);
    isum_slot *is = state;
    dsum_slot *ds = state;
    switch ((vec_phys)v->phys) {
    case PHYS_I16: is->sum += kern_sum_i16(v->data, sel, v->validity, count, &n); break;
    case PHYS_I32: is->sum += kern_sum_i32(v->data, sel, v->validity, count, &n); break;
    case PHYS_I64: is->sum += kern_sum_i64(v->data, sel, v->validity, count, &n); break;
    case PHYS_F64: ds->sum += kern_sum_f64(v->data, sel, v->validity, count, &n); break;
    default: return false;
    }
    *(int64_t *)state += n;
    return true;
}

/* agg_minmax_one updates MIN or MAX of integers (and DATE, TIMESTAMP, DECIMAL: one column type,
** compared by their stored values) of an aggregate without GROUP BY through the min/max kernels;
** false for other types. */
static bool agg_minmax_one(best_slot *sl, agg_fn fn, const vector *v, uint32_t count) {
    int64_t lo, hi;
    uint32_t n;
    const sel_t *sel = kern_sel(v);
    switch ((vec_phys)v->phys) {
    case PHYS_I16: n = kern_minmax_i16(v->data, sel, v->validity, count, &lo, &hi); break;
    case PHYS_I32: n = kern_minmax_i32(v->data, sel, v->validity, count, &lo, &hi); break;
    case PHYS_I64: n = kern_minmax_i64(v->data, sel, v->validity, count, &lo, &hi); break;
    default: return false;
    }
    int64_t x = fn == AGG_MIN ? lo : hi;
    if (n && (!sl->count || (fn == AGG_MIN ? x < sl->best.v.i : x > sl->best.v.i))) {
        memset(&sl->best, 0, sizeof sl->best);
        sl->best.type = v->type;
        sl->best.v.i = x;
        sl->count = 1;
    }
    return true;
}

/* agg_few_groups updates aggregate a of a GROUP BY with at most KERN_GROUPS_MAX groups through
** the grouped-sum kernels: count(*), and count, sum and avg over numbers without a NULL in this
** chunk. rows[g] is the chunk's row count of group g. false: not such an aggregate (or values
** too large for the kernel's int64 lanes); agg_update does it. */
static bool agg_few_groups(plan_op *p, agg_state *s, uint32_t a, const vector *v, uint32_t count,
                           const int64_t *rows) {
    agg_expr *ag = &p->agg.aggs[a];
    uint32_t ng = s->groups.ngroups;
    bool counts = ag->fn == AGG_COUNT_STAR || (ag->fn == AGG_COUNT && !v->validity);
    bool sums = (ag->fn == AGG_SUM || ag->fn == AGG_AVG) && !v->validity;
    if (ag->distinct || (!counts && !sums)) return false;
    if (sums) {
        int64_t acc[KERN_GROUPS_MAX];
        double dacc[KERN_GROUPS_MAX];
        const sel_t *sel = kern_sel(v);
        memset(acc, 0, ng * sizeof *acc);
        switch ((vec_phys)v->phys) {
        case PHYS_I16: kern_group_sum_i16(v->data, sel, s->gids, count, ng, acc); break;
        case PHYS_I32: kern_group_sum_i32(v->data, sel, s->gids, count, ng, acc); break;
        case PHYS_I64:
            if (!kern_group_sum_i64(v->data, sel, s->gids, count, ng, acc)) return false;
            break;
        case PHYS_F64:
            memset(dacc, 0, ng * sizeof *dacc);
            kern_group_sum_f64(v->data, sel, s->gids, count, ng, dacc);
            for (uint32_t g = 0; g < ng; g++) ((dsum_slot *)slot_at(s, a, g))->sum += dacc[g];
            break;
        default: return false;
        }
        if (v->phys != PHYS_F64)
            for (uint32_t g = 0; g < ng; g++) ((isum_slot *)slot_at(s, a, g))->sum += acc[g];
    }
    for (uint32_t g = 0; g < ng; g++) *count_at(s, a, g) += rows[g];
    return true;
}

/* agg_update_typed is agg_update for count(*), count, sum and avg over numbers (not DISTINCT), a
** loop per type with the dispatch outside it; false for the other aggregates. */
static bool agg_update_typed(plan_op *p, agg_state *s, uint32_t a, const vector *v, const uint32_t *gids,
                             uint32_t count) {
    agg_fn fn = p->agg.aggs[a].fn;
    if (!p->agg.nkeys && (fn == AGG_SUM || fn == AGG_AVG)) return agg_sum_one(slot_at(s, a, 0), v, count);
    if (!p->agg.nkeys && (fn == AGG_MIN || fn == AGG_MAX)) return agg_minmax_one(slot_at(s, a, 0), fn, v, count);
    if (fn == AGG_COUNT_STAR || (fn == AGG_COUNT && !v->validity)) {
        int64_t *c = (int64_t *)(void *)s->st[a].base;
        for (uint32_t r = 0; r < count; r++) c[gids[r]]++;
        return true;
    }
    if (fn != AGG_SUM && fn != AGG_AVG) return false;
    switch ((vec_phys)v->phys) {
    case PHYS_I16: AGG_SUM_LOOP(int16_t, isum_slot); return true;
    case PHYS_I32: AGG_SUM_LOOP(int32_t, isum_slot); return true;
    case PHYS_I64: AGG_SUM_LOOP(int64_t, isum_slot); return true;
    case PHYS_F64: AGG_SUM_LOOP(double, dsum_slot); return true;
    default: return false;
    }
}

/* agg_best keeps val as MIN or MAX state sl when it beats what sl holds (strings copied into the
** aggregate's arena). */
static int agg_best(exec_ctx *x, agg_state *s, agg_fn fn, best_slot *sl, sql_value val) {
    int c = sl->count ? value_compare(&val, &sl->best) : 0;
    if (sl->count && (fn == AGG_MIN ? c >= 0 : c <= 0)) return STRATA_OK;
    if (val.type.id == TYPE_VARCHAR || val.type.id == TYPE_BLOB) {
        strata_err tmp;
        err_clear(&tmp);
        sstr cp;
        if (sstr_copy(&s->strings, sstr_data(&val.v.s), val.v.s.len, &cp, &tmp)) return nomem(x);
        val.v.s = cp;
    }
    sl->best = val;
    sl->count = 1;
    return STRATA_OK;
}

static int agg_update(exec_ctx *x, plan_op *p, agg_state *s, uint32_t a, const uint32_t *gids, uint32_t count) {
    agg_expr *ag = &p->agg.aggs[a];
    vector *v = ag->arg ? ag->arg->result : NULL;
    uint8_t *fresh = NULL;
    if (ag->distinct && v) {
        /* only the first (group, value) pair counts */
        vector g;
        sql_type it = sql_type_make(TYPE_INTEGER);
        int rc = vec_init(&g, it, x->err);
        if (rc) return rc;
        for (uint32_t r = 0; r < count; r++) ((int32_t *)g.data)[r] = (int32_t)gids[r];
        vector *cols[2] = {&g, v};
        uint32_t *dg = malloc(count * sizeof *dg);
        fresh = malloc(count);
        uint64_t *h = malloc(count * sizeof *h);
        rc = dg && fresh && h ? vec_groups_find_or_add(&s->distinct[a], cols, count, dg, fresh, h, x->err) : nomem(x);
        free(dg);
        free(h);
        vec_free(&g);
        if (rc) {
            free(fresh);
            return rc;
        }
    }
    if (!fresh && agg_update_typed(p, s, a, v, gids, count)) return STRATA_OK;
    int rc = STRATA_OK;
    for (uint32_t r = 0; r < count && !rc; r++) {
        if (fresh && !fresh[r]) continue;
        void *sl = slot_at(s, a, gids[r]);
        if (ag->fn == AGG_COUNT_STAR) {
            (*(int64_t *)sl)++;
            continue;
        }
        if (vec_is_null(v, r)) continue;
        uint32_t i = v->sel[r];
        switch (ag->fn) {
        case AGG_COUNT: (*(int64_t *)sl)++; break;
        case AGG_SUM:
        case AGG_AVG:
            (*(int64_t *)sl)++;
            switch ((vec_phys)v->phys) {
            case PHYS_I16: ((isum_slot *)sl)->sum += ((const int16_t *)v->data)[i]; break;
            case PHYS_I32: ((isum_slot *)sl)->sum += ((const int32_t *)v->data)[i]; break;
            case PHYS_I64: ((isum_slot *)sl)->sum += ((const int64_t *)v->data)[i]; break;
            case PHYS_F64: ((dsum_slot *)sl)->sum += ((const double *)v->data)[i]; break;
            default: break;
            }
            break;
        default: {
            sql_value val;
            vec_get_value(v, r, &val);
            rc = agg_best(x, s, ag->fn, sl, val);
            break;
        }
        }
    }
    free(fresh);
    return rc;
}

/* map_scratch makes the dict_map's scratch (each row's combined index, the key slices) once. */
static int map_scratch(exec_ctx *x, dict_map *m, vector **keys, uint32_t nk) {
    if (m->ready) return STRATA_OK;
    if (!m->combined && !(m->combined = malloc(VECTOR_SIZE * sizeof *m->combined))) return nomem(x);
    for (uint32_t k = 0; k < nk; k++) {
        int rc = vec_init(&m->tmp[k], keys[k]->type, x->err);
        if (rc) {
            for (uint32_t j = 0; j < k; j++) vec_free(&m->tmp[j]);
            return rc;
        }
    }
    m->ready = true;
    return STRATA_OK;
}

/* map_lookup sets s->gids from each row's combined index c[i] through gid[] (group + 1, 0 not
** looked up yet), looking up in the group table only the first row of each index not mapped. */
static int map_lookup(exec_ctx *x, agg_state *s, vector **keys, uint32_t nk, const uint32_t *c, uint32_t *gid,
                      uint32_t count) {
    sel_t miss[VECTOR_SIZE];
    uint32_t nmiss = 0;
    for (uint32_t i = 0; i < count; i++)
        if (!gid[c[i]]) {
            gid[c[i]] = UINT32_MAX; /* looked up below, once */
            miss[nmiss++] = i;
        }
    if (nmiss) {
        vector *cols[DICT_KEYS_MAX];
        for (uint32_t k = 0; k < nk; k++) {
            vec_slice(&s->dict.tmp[k], keys[k], miss, nmiss);
            cols[k] = &s->dict.tmp[k];
        }
        int rc = vec_groups_find_or_add(&s->groups, cols, nmiss, s->gids, NULL, s->hashes, x->err);
        if (rc) {
            for (uint32_t j = 0; j < nmiss; j++) gid[c[miss[j]]] = 0;
            return rc;
        }
        for (uint32_t j = 0; j < nmiss; j++) gid[c[miss[j]]] = s->gids[j] + 1;
    }
    for (uint32_t i = 0; i < count; i++) s->gids[i] = gid[c[i]] - 1;
    return STRATA_OK;
}

/* dict_groups sets s->gids of rows whose keys are all dictionaries through the dict_map. *done
** false: the keys are not such (or their combinations too many), and the caller hashes them. */
static int dict_groups(exec_ctx *x, plan_op *p, agg_state *s, vector **keys, uint32_t count, bool *done) {
    uint32_t nk = p->agg.nkeys;
    *done = false;
    if (nk > DICT_KEYS_MAX) return STRATA_OK;
    uint64_t size = 1;
    for (uint32_t k = 0; k < nk; k++) {
        if (!keys[k]->dict_id || keys[k]->kind != VEC_DICTIONARY) return STRATA_OK;
        if ((size *= keys[k]->dict_size) > DICT_MAP_MAX) return STRATA_OK;
    }
    dict_map *m = &s->dict;
    int rc = map_scratch(x, m, keys, nk);
    if (rc) return rc;
    bool same = m->size == size;
    for (uint32_t k = 0; k < nk && same; k++) same = m->ids[k] == keys[k]->dict_id;
    if (!same) {
        if (size > m->cap) {
            uint32_t *g = realloc(m->gid, size * sizeof *g);
            if (!g) return nomem(x);
            m->gid = g, m->cap = (uint32_t)size;
        }
        memset(m->gid, 0, size * sizeof *m->gid);
        for (uint32_t k = 0; k < nk; k++) m->ids[k] = keys[k]->dict_id;
        m->size = (uint32_t)size;
    }
    uint32_t *c = m->combined;
    memcpy(c, keys[0]->sel, count * sizeof *c);
    for (uint32_t k = 1; k < nk; k++) {
        const sel_t *sel = keys[k]->sel;
        uint32_t w = keys[k]->dict_size;
        for (uint32_t i = 0; i < count; i++) c[i] = c[i] * w + sel[i];
    }
    if ((rc = map_lookup(x, s, keys, nk, c, m->gid, count))) return rc;
    *done = true;
    return STRATA_OK;
}

/* key_range sets [*lo, *hi] to the range of integer key v's values; false when v is not such a
** key (another type, or a NULL among them: NULL keys are hashed). */
static bool key_range(const vector *v, uint32_t count, int64_t *lo, int64_t *hi) {
    if (v->validity || !count) return false;
    const sel_t *sel = kern_sel(v);
    switch ((vec_phys)v->phys) {
    case PHYS_I16: return kern_minmax_i16(v->data, sel, NULL, count, lo, hi) != 0;
    case PHYS_I32: return kern_minmax_i32(v->data, sel, NULL, count, lo, hi) != 0;
    case PHYS_I64: return kern_minmax_i64(v->data, sel, NULL, count, lo, hi) != 0;
    default: return false;
    }
}

/* range_groups sets s->gids of rows with one integer key through the range_map while the key's
** values seen so far span at most DICT_MAP_MAX numbers (the range grows to cover each chunk's,
** keeping the groups mapped so far). *done false: the key is not such, and the caller hashes it
** (from the first chunk that is not, for every later chunk too). */
static int range_groups(exec_ctx *x, plan_op *p, agg_state *s, vector **keys, uint32_t count, bool *done) {
    range_map *m = &s->range;
    *done = false;
    int64_t lo, hi;
    if (p->agg.nkeys != 1 || m->given_up || !key_range(keys[0], count, &lo, &hi)) {
        m->given_up = true;
        return STRATA_OK;
    }
    int rc = map_scratch(x, &s->dict, keys, 1);
    if (rc) return rc;
    if (!m->gid || lo < m->base || hi > m->base + (int64_t)m->size - 1) { /* grow to cover [lo, hi] */
        int64_t nlo = m->gid && m->base < lo ? m->base : lo;
        int64_t nhi = m->gid && m->base + (int64_t)m->size - 1 > hi ? m->base + (int64_t)m->size - 1 : hi;
        if ((uint64_t)nhi - (uint64_t)nlo >= DICT_MAP_MAX) {
            m->given_up = true;
            return STRATA_OK;
        }
        uint32_t size = (uint32_t)((uint64_t)nhi - (uint64_t)nlo + 1);
        uint32_t *g = calloc(size, sizeof *g);
        if (!g) return nomem(x);
        if (m->gid) memcpy(g + (m->base - nlo), m->gid, m->size * sizeof *g);
        free(m->gid);
        m->gid = g, m->base = nlo, m->size = size;
    }
    uint32_t *c = s->dict.combined;
    const vector *v = keys[0];
    const sel_t *sel = v->sel;
    uint64_t base = (uint64_t)m->base;
    switch ((vec_phys)v->phys) {
    case PHYS_I16:
        for (uint32_t i = 0; i < count; i++) c[i] = (uint32_t)((uint64_t)VEC_DATA(v, int16_t)[sel[i]] - base);
        break;
    case PHYS_I32:
        for (uint32_t i = 0; i < count; i++) c[i] = (uint32_t)((uint64_t)VEC_DATA(v, int32_t)[sel[i]] - base);
        break;
    default:
        for (uint32_t i = 0; i < count; i++) c[i] = (uint32_t)((uint64_t)VEC_DATA(v, int64_t)[sel[i]] - base);
        break;
    }
    if ((rc = map_lookup(x, s, keys, 1, c, m->gid, count))) return rc;
    *done = true;
    return STRATA_OK;
}

static int agg_sink(exec_ctx *x, plan_op *p, data_chunk *in) {
    agg_state *s = p->state;
    uint32_t count = in->count;
    int rc;
    if (in->sel) chunk_apply_sel(in);
    vector *keys[p->agg.nkeys + 1];
    for (uint32_t k = 0; k < p->agg.nkeys; k++) {
        if ((rc = expr_eval(x, p->agg.keys[k], in, count))) return rc;
        keys[k] = p->agg.keys[k]->result;
    }
    bool mapped = false;
    if (p->agg.nkeys && (rc = dict_groups(x, p, s, keys, count, &mapped))) return rc;
    if (p->agg.nkeys && !mapped && (rc = range_groups(x, p, s, keys, count, &mapped))) return rc;
    if (p->agg.nkeys && !mapped) {
        if ((rc = vec_groups_find_or_add(&s->groups, keys, count, s->gids, NULL, s->hashes, x->err))) return rc;
    } else if (!p->agg.nkeys) {
        if (s->groups.ngroups == 0) {
            s->groups.ngroups = 1;
        }
        memset(s->gids, 0, count * sizeof *s->gids);
    }
    if ((rc = agg_ensure_slots(x, s, p->agg.naggs))) return rc;
    /* few groups: each group's rows counted once, then the grouped-sum kernels */
    bool few = p->agg.nkeys && s->groups.ngroups <= KERN_GROUPS_MAX;
    int64_t rows[KERN_GROUPS_MAX];
    if (few) {
        memset(rows, 0, s->groups.ngroups * sizeof *rows);
        kern_group_count(s->gids, count, s->groups.ngroups, rows);
    }
    for (uint32_t a = 0; a < p->agg.naggs; a++) {
        agg_expr *ag = &p->agg.aggs[a];
        if (ag->arg && (rc = expr_eval(x, ag->arg, in, count))) return rc;
        if (few && agg_few_groups(p, s, a, ag->arg ? ag->arg->result : NULL, count, rows)) continue;
        if ((rc = agg_update(x, p, s, a, s->gids, count))) return rc;
    }
    return STRATA_OK;
}

static int agg_finalize(exec_ctx *x, plan_op *p) {
    agg_state *s = p->state;
    if (p->agg.nkeys == 0 && s->groups.ngroups == 0) { /* no input: one row of empty aggregates */
        s->groups.ngroups = 1;
        return agg_ensure_slots(x, s, p->agg.naggs);
    }
    return STRATA_OK;
}

static int agg_result(exec_ctx *x, const agg_expr *ag, const void *state, sql_value *out) {
    int64_t count = *(const int64_t *)state;
    const isum_slot *is = state;
    const dsum_slot *ds = state;
    strata_err tmp;
    err_clear(&tmp);
    *out = value_null(ag->type);
    switch (ag->fn) {
    case AGG_COUNT_STAR:
    case AGG_COUNT: *out = value_int(TYPE_BIGINT, count); return STRATA_OK;
    case AGG_SUM:
        if (!count) return STRATA_OK;
        if (ag->type.id == TYPE_DOUBLE) {
            *out = value_double(ds->sum);
        } else if (ag->type.id == TYPE_DECIMAL) {
            int64_t v;
            if (sum_to_dec(is->sum, ag->type.precision, &v, &tmp)) return expr_error(x, ag->arg, STRATA_ERROR, tmp.msg);
            *out = value_decimal(v, ag->type.precision, ag->type.scale);
        } else {
            int64_t v;
            if (sum_to_bigint(is->sum, &v, &tmp)) return expr_error(x, ag->arg, STRATA_ERROR, tmp.msg);
            *out = value_int(TYPE_BIGINT, v);
        }
        return STRATA_OK;
    case AGG_AVG:
        if (!count) return STRATA_OK;
        if (ag->type.id == TYPE_DECIMAL) {
            int64_t v;
            if (dec_avg(is->sum, count, ag->arg->type.scale, ag->type, &v, &tmp))
                return expr_error(x, ag->arg, STRATA_ERROR, tmp.msg);
            *out = value_decimal(v, ag->type.precision, ag->type.scale);
        } else if (ag->arg->type.id == TYPE_DOUBLE) {
            *out = value_double(ds->sum / (double)count);
        } else {
            *out = value_double(avg_to_double(is->sum, count, 0));
        }
        return STRATA_OK;
    default:
        if (count) *out = ((const best_slot *)state)->best;
        return STRATA_OK;
    }
}

/* agg_emit_sums writes SUM over integers or DECIMALs (states isum_slot) of groups first ..
** first + n - 1 into o, an int64 vector: each sum checked against the result type's range as
** agg_result does, without a value between. */
static int agg_emit_sums(exec_ctx *x, const agg_expr *ag, const agg_state *s, uint32_t a, uint32_t first, uint32_t n,
                         vector *o) {
    const isum_slot *st = (const isum_slot *)(const void *)s->st[a].base + first;
    int64_t *d = o->data;
    bool dec = ag->type.id == TYPE_DECIMAL;
    strata_err tmp;
    err_clear(&tmp);
    vec_reset(o);
    for (uint32_t r = 0; r < n; r++) {
        if (!st[r].count) {
            vec_set_null(o, r, 1);
            continue;
        }
        if (dec ? sum_to_dec(st[r].sum, ag->type.precision, &d[r], &tmp) : sum_to_bigint(st[r].sum, &d[r], &tmp))
            return expr_error(x, ag->arg, STRATA_ERROR, tmp.msg);
    }
    return STRATA_OK;
}

static int agg_next(exec_ctx *x, plan_op *p, data_chunk *out) {
    agg_state *s = p->state;
    uint32_t n = 0;
    uint32_t nk = p->agg.nkeys;
    if (s->emitted < s->groups.ngroups) {
        uint32_t first = s->emitted;
        n = s->groups.ngroups - first;
        if (n > VECTOR_SIZE - first % VECTOR_SIZE) n = VECTOR_SIZE - first % VECTOR_SIZE;
        if (nk) {
            uint32_t kr;
            const data_chunk *kc = vec_groups_key(&s->groups, first, &kr);
            for (uint32_t k = 0; k < nk; k++) {
                int rc = vec_copy(&out->cols[k], 0, &kc->cols[k], sel_identity() + kr, n, x->err);
                if (rc) return rc;
            }
        }
        for (uint32_t a = 0; a < p->agg.naggs; a++) {
            const agg_expr *ag = &p->agg.aggs[a];
            if ((ag->fn == AGG_COUNT_STAR || ag->fn == AGG_COUNT) && out->cols[nk + a].phys == PHYS_I64) {
                int64_t *o = out->cols[nk + a].data; /* counts: no value to convert */
                memcpy(o, s->st[a].base + (size_t)first * sizeof *o, n * sizeof *o);
                continue;
            }
            if (ag->fn == AGG_SUM && s->st[a].width == sizeof(isum_slot) && out->cols[nk + a].phys == PHYS_I64) {
                int rc = agg_emit_sums(x, ag, s, a, first, n, &out->cols[nk + a]);
                if (rc) return rc;
                continue;
            }
            for (uint32_t r = 0; r < n; r++) {
                sql_value v;
                int rc = agg_result(x, &p->agg.aggs[a], slot_at(s, a, first + r), &v);
                if (rc || (rc = vec_set_value(&out->cols[nk + a], r, &v, x->err))) return rc;
            }
        }
        s->emitted += n;
    }
    out->count = n;
    return STRATA_OK;
}

/* ---- filter, project, limit --------------------------------------------------------------- */

static int filter_exec(exec_ctx *x, plan_op *p, data_chunk *in, data_chunk *out) {
    sel_t sel[VECTOR_SIZE];
    uint32_t n;
    int rc = expr_select(x, p->filter.pred, in, in->count, sel, &n);
    if (rc) return rc;
    for (uint32_t c = 0; c < p->ncols; c++) vec_slice(&out->cols[c], &in->cols[c], sel, n);
    out->count = n;
    return STRATA_OK;
}

static int project_exec(exec_ctx *x, plan_op *p, data_chunk *in, data_chunk *out) {
    if (in->sel) chunk_apply_sel(in);
    for (uint32_t c = 0; c < p->ncols; c++) {
        int rc = expr_eval(x, p->project.exprs[c], in, in->count);
        if (rc) return rc;
        vec_reference(&out->cols[c], p->project.exprs[c]->result);
    }
    out->count = in->count;
    return STRATA_OK;
}

static int limit_exec(exec_ctx *x, plan_op *p, data_chunk *in, data_chunk *out, bool *finished) {
    limit_state *s = p->state;
    if (!s->ready) {
        sql_value v;
        int rc;
        s->left = -1;
        if (p->limit.limit) {
            if ((rc = eval_scalar(x, p->limit.limit, &v))) return rc;
            if (!v.is_null) {
                if (v.v.i < 0) return expr_error(x, p->limit.limit, STRATA_ERROR, "LIMIT must not be negative");
                s->left = v.v.i;
            }
        }
        if (p->limit.offset) {
            if ((rc = eval_scalar(x, p->limit.offset, &v))) return rc;
            if (!v.is_null) {
                if (v.v.i < 0) return expr_error(x, p->limit.offset, STRATA_ERROR, "OFFSET must not be negative");
                s->skip = v.v.i;
            }
        }
        s->ready = true;
    }
    uint32_t start = 0, n = in->count;
    if (s->skip > 0) {
        uint32_t k = (int64_t)n < s->skip ? n : (uint32_t)s->skip;
        s->skip -= k;
        start = k;
    }
    uint32_t take = n - start;
    if (s->left >= 0 && (int64_t)take > s->left) take = (uint32_t)s->left;
    if (s->left >= 0) {
        s->left -= take;
        if (s->left == 0) *finished = true;
    }
    for (uint32_t c = 0; c < p->ncols; c++) vec_slice(&out->cols[c], &in->cols[c], sel_identity() + start, take);
    out->count = take;
    return STRATA_OK;
}

/* ---- sort --------------------------------------------------------------------------------- */

typedef struct sort_cmp_ctx {
    const plan_op *p;
    const vec_rows *rows;
} sort_cmp_ctx;

static __thread const sort_cmp_ctx *sort_ctx;

/* cell_compare compares row ra of a with row rb of b, two vectors of one column (one type),
** neither row NULL, as value_compare does: numbers of one physical type (and DATE, TIMESTAMP,
** DECIMAL of the column's one scale) by their stored values, DOUBLE with NaN above everything,
** strings by their bytes; anything else through value_compare. */
static int cell_compare(const vector *a, uint32_t ra, const vector *b, uint32_t rb) {
    uint32_t i = a->sel[ra], j = b->sel[rb];
#define CMP_AS(T)                                                                                \
    do {                                                                                         \
        T u = ((const T *)a->data)[i], v = ((const T *)b->data)[j];                              \
        return (u > v) - (u < v);                                                                \
    } while (0)
    switch ((vec_phys)a->phys) {
    case PHYS_BOOL: CMP_AS(uint8_t);
    case PHYS_I16: CMP_AS(int16_t);
    case PHYS_I32: CMP_AS(int32_t);
    case PHYS_I64: CMP_AS(int64_t);
    case PHYS_F64: {
        double u = ((const double *)a->data)[i], v = ((const double *)b->data)[j];
        if (isnan(u) || isnan(v)) return isnan(u) - isnan(v);
        return (u > v) - (u < v);
    }
    case PHYS_STR: {
        const sstr *u = &((const sstr *)a->data)[i], *v = &((const sstr *)b->data)[j];
        uint32_t n = u->len < v->len ? u->len : v->len;
        int c = n ? memcmp(sstr_data(u), sstr_data(v), n) : 0;
        if (c) return c < 0 ? -1 : 1;
        return (u->len > v->len) - (u->len < v->len);
    }
    default: {
        sql_value u, v;
        vec_get_value(a, ra, &u);
        vec_get_value(b, rb, &v);
        return value_compare(&u, &v);
    }
    }
#undef CMP_AS
}

/* key_compare compares row ra of chunk a with row rb of chunk b by p's sort keys alone. */
static int key_compare(const plan_op *p, const data_chunk *a, uint32_t ra, const data_chunk *b, uint32_t rb) {
    for (uint32_t k = 0; k < p->sort.nkeys; k++) {
        const sort_key *sk = &p->sort.keys[k];
        const vector *u = &a->cols[sk->e->col], *v = &b->cols[sk->e->col];
        bool un = vec_is_null(u, ra), vn = vec_is_null(v, rb);
        int c;
        if (un || vn) {
            if (un && vn) continue;
            c = un ? 1 : -1; /* NULL is the largest ... */
            if (sk->nulls_first) c = -c;
            return c;             /* ... placed by NULLS FIRST/LAST regardless of DESC */
        }
        c = cell_compare(u, ra, v, rb);
        if (c) return sk->desc ? -c : c;
    }
    return 0;
}

static int sort_compare(const void *a, const void *b) {
    const row_ref *x = a, *y = b;
    const vec_rows *rows = sort_ctx->rows;
    int c = key_compare(sort_ctx->p, rows->chunks[x->chunk], x->row, rows->chunks[y->chunk], y->row);
    if (c) return c;
    /* stable: input order */
    if (x->chunk != y->chunk) return x->chunk < y->chunk ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* sift_down restores the max-heap (by sort_compare: the root is the row that sorts last) of
** h[0..n) below position i; sift_up above it. */
static void sift_down(row_ref *h, uint64_t n, uint64_t i) {
    for (;;) {
        uint64_t l = 2 * i + 1, m = i;
        if (l < n && sort_compare(&h[l], &h[m]) > 0) m = l;
        if (l + 1 < n && sort_compare(&h[l + 1], &h[m]) > 0) m = l + 1;
        if (m == i) return;
        row_ref t = h[i];
        h[i] = h[m], h[m] = t;
        i = m;
    }
}

static void sift_up(row_ref *h, uint64_t i) {
    while (i) {
        uint64_t up = (i - 1) / 2;
        if (sort_compare(&h[i], &h[up]) <= 0) return;
        row_ref t = h[i];
        h[i] = h[up], h[up] = t;
        i = up;
    }
}

static int ref_order(const void *a, const void *b) {
    const row_ref *x = a, *y = b;
    if (x->chunk != y->chunk) return x->chunk < y->chunk ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* topn_compact copies the rows of the heap, in input order, into a new collection that replaces
** s->rows, and makes the heap again over them: the rows that fell out of the first k go. */
static int topn_compact(exec_ctx *x, plan_op *p, sort_state *s) {
    vec_rows kept;
    int rc = rows_init(x, &kept, p->types, p->ncols);
    if (rc) return rc;
    qsort(s->order, s->n, sizeof *s->order, ref_order);
    sel_t sel[VECTOR_SIZE];
    for (uint64_t i = 0; i < s->n && !rc;) { /* a run of refs in one chunk at a time */
        uint32_t c = s->order[i].chunk, n = 0;
        for (; i < s->n && s->order[i].chunk == c; i++) sel[n++] = (sel_t)s->order[i].row;
        rc = vec_rows_append(&kept, s->rows.chunks[c], sel, n, x->err);
    }
    if (!rc) rc = vec_rows_charge(&kept, s->cap * sizeof *s->order, x->err);
    if (rc) {
        vec_rows_free(&kept);
        return rc;
    }
    vec_rows_free(&s->rows);
    s->rows = kept;
    for (uint64_t i = 0; i < s->n; i++) s->order[i] = (row_ref){(uint32_t)(i / VECTOR_SIZE), (uint32_t)(i % VECTOR_SIZE)};
    sort_cmp_ctx ctx = {p, &s->rows};
    sort_ctx = &ctx;
    for (uint64_t i = s->n / 2; i-- > 0;) sift_down(s->order, s->n, i);
    sort_ctx = NULL;
    return STRATA_OK;
}

/* topn_sink is ORDER BY ... LIMIT k's sink: it keeps the first k rows in sort order seen so far,
** a max-heap (s->order[0..s->n)) whose root is the row that sorts last. A row joins the kept rows
** only when it sorts before the root (once k are kept): equal keys keep the earlier row, as a
** stable sort does. When the rows held grow to twice k (and a few vectors), those that fell out
** go (topn_compact). */
static int topn_sink(exec_ctx *x, plan_op *p, sort_state *s, data_chunk *in) {
    uint64_t k = (uint64_t)p->sort.limit;
    if (k == 0 || !in->count) return STRATA_OK;
    sel_t sel[VECTOR_SIZE];
    uint32_t n = 0;
    if (s->n < k) n = in->count;
    else {
        const row_ref *root = &s->order[0];
        const data_chunk *rc = s->rows.chunks[root->chunk];
        for (uint32_t r = 0; r < in->count; r++)
            if (key_compare(p, in, r, rc, root->row) < 0) sel[n++] = (sel_t)r;
        if (!n) return STRATA_OK;
    }
    uint64_t first = s->rows.rows;
    int rc = vec_rows_append(&s->rows, in, s->n < k ? NULL : sel, n, x->err);
    if (rc) return rc;
    uint64_t want = s->n + n < k ? s->n + n : k;
    if (want > s->cap) { /* the heap grows with the rows kept, up to k */
        uint64_t nc = s->cap ? s->cap : 64;
        while (nc < want) nc *= 2;
        if (nc > k) nc = k;
        if ((rc = vec_rows_charge(&s->rows, (nc - s->cap) * sizeof *s->order, x->err))) return rc;
        row_ref *h = realloc(s->order, nc * sizeof *h);
        if (!h) return nomem(x);
        s->order = h, s->cap = nc;
    }
    sort_cmp_ctx ctx = {p, &s->rows};
    sort_ctx = &ctx;
    for (uint64_t i = first; i < first + n; i++) {
        row_ref ref = {(uint32_t)(i / VECTOR_SIZE), (uint32_t)(i % VECTOR_SIZE)};
        if (s->n < k) {
            s->order[s->n] = ref;
            sift_up(s->order, s->n++);
        } else if (sort_compare(&ref, &s->order[0]) < 0) {
            s->order[0] = ref;
            sift_down(s->order, s->n, 0);
        }
    }
    sort_ctx = NULL;
    if (s->n == k && s->rows.rows >= 2 * k + 4 * VECTOR_SIZE) return topn_compact(x, p, s);
    return STRATA_OK;
}

static int sort_finalize(exec_ctx *x, plan_op *p) {
    sort_state *s = p->state;
    sort_cmp_ctx ctx = {p, &s->rows};
    if (p->sort.limit < 0) { /* every row, in order */
        s->n = s->rows.rows;
        int rc = vec_rows_charge(&s->rows, (s->n + 1) * sizeof *s->order, x->err);
        if (rc) return rc;
        s->order = malloc((s->n + 1) * sizeof *s->order);
        if (!s->order) return nomem(x);
        uint64_t i = 0;
        for (uint32_t c = 0; c < s->rows.nchunks; c++)
            for (uint32_t r = 0; r < s->rows.chunks[c]->count; r++) s->order[i++] = (row_ref){c, r};
    } /* else topn_sink kept the first rows */
    sort_ctx = &ctx;
    if (s->n) qsort(s->order, s->n, sizeof *s->order, sort_compare);
    sort_ctx = NULL;
    return STRATA_OK;
}

/* emit_refs copies the rows refs[0..n) of a vec_rows into out. */
static int emit_refs(exec_ctx *x, const vec_rows *rows, const row_ref *refs, uint32_t n, data_chunk *out) {
    for (uint32_t c = 0; c < rows->ncols; c++)
        for (uint32_t r = 0; r < n; r++) {
            sel_t sr = refs[r].row;
            int rc = vec_copy(&out->cols[c], r, &rows->chunks[refs[r].chunk]->cols[c], &sr, 1, x->err);
            if (rc) return rc;
        }
    out->count = n;
    return STRATA_OK;
}

static int sort_next(exec_ctx *x, plan_op *p, data_chunk *out) {
    sort_state *s = p->state;
    uint64_t n = s->n - s->emitted;
    if (n > VECTOR_SIZE) n = VECTOR_SIZE;
    int rc = emit_refs(x, &s->rows, s->order + s->emitted, (uint32_t)n, out);
    s->emitted += n;
    return rc;
}

/* ---- distinct and set operations ---------------------------------------------------------- */

static int setop_open(exec_ctx *x, plan_op *p) {
    setop_state *s = calloc(1, sizeof *s);
    if (!s) return nomem(x);
    p->state = s;
    s->gids = malloc(VECTOR_SIZE * sizeof *s->gids);
    s->hashes = malloc(VECTOR_SIZE * sizeof *s->hashes);
    if (!s->gids || !s->hashes) return nomem(x);
    if (p->kind == PLAN_SETOP && p->setop.kind == SETOP_UNION && p->setop.all) return rows_init(x, &s->all, p->types, p->ncols);
    return groups_init(x, &s->groups, p->types, p->ncols);
}

static void setop_close(plan_op *p) {
    setop_state *s = p->state;
    if (!s) return;
    vec_groups_free(&s->groups);
    vec_rows_free(&s->all);
    free(s->counts);
    free(s->gids);
    free(s->hashes);
    free(s);
}

static int setop_sink(exec_ctx *x, plan_op *p, data_chunk *in, int side) {
    setop_state *s = p->state;
    if (in->sel) chunk_apply_sel(in);
    if (p->kind == PLAN_SETOP && p->setop.kind == SETOP_UNION && p->setop.all) return vec_rows_append(&s->all, in, NULL, in->count, x->err);
    vector *cols[p->ncols + 1];
    for (uint32_t c = 0; c < p->ncols; c++) cols[c] = &in->cols[c];
    int rc = vec_groups_find_or_add(&s->groups, cols, in->count, s->gids, NULL, s->hashes, x->err);
    if (rc) return rc;
    if (s->groups.ngroups > s->cap) {
        uint32_t nc = s->cap ? s->cap : 1024;
        while (nc < s->groups.ngroups) nc *= 2;
        uint64_t *n = realloc(s->counts, 2 * (size_t)nc * sizeof *n);
        if (!n) return nomem(x);
        memset(n + 2 * (size_t)s->cap, 0, 2 * (size_t)(nc - s->cap) * sizeof *n);
        s->counts = n;
        s->cap = nc;
    }
    for (uint32_t r = 0; r < in->count; r++) s->counts[2 * (size_t)s->gids[r] + side]++;
    return STRATA_OK;
}

/* copies of group g the set operation outputs */
static uint64_t setop_copies(const plan_op *p, const uint64_t *cnt) {
    if (p->kind == PLAN_DISTINCT) return 1;
    bool all = p->setop.all;
    switch (p->setop.kind) {
    case SETOP_UNION: return 1;
    case SETOP_INTERSECT: return cnt[0] && cnt[1] ? (all ? (cnt[0] < cnt[1] ? cnt[0] : cnt[1]) : 1) : 0;
    default: return cnt[0] > cnt[1] ? (all ? cnt[0] - cnt[1] : (cnt[1] ? 0 : 1)) : 0;
    }
}

static int setop_next(exec_ctx *x, plan_op *p, data_chunk *out) {
    setop_state *s = p->state;
    if (p->kind == PLAN_SETOP && p->setop.kind == SETOP_UNION && p->setop.all) {
        out->count = 0;
        if (s->emit_group >= s->all.nchunks) return STRATA_OK;
        data_chunk *ch = s->all.chunks[s->emit_group++];
        for (uint32_t c = 0; c < p->ncols; c++) vec_reference(&out->cols[c], &ch->cols[c]);
        out->count = ch->count;
        return STRATA_OK;
    }
    row_ref refs[VECTOR_SIZE];
    uint32_t n = 0;
    while (n < VECTOR_SIZE && s->emit_group < s->groups.ngroups) {
        uint32_t g = s->emit_group;
        uint64_t copies = s->counts ? setop_copies(p, s->counts + 2 * (size_t)g) : 1;
        if (s->emit_copy < copies) {
            refs[n++] = (row_ref){g / VECTOR_SIZE, g % VECTOR_SIZE};
            s->emit_copy++;
        } else {
            s->emit_group++;
            s->emit_copy = 0;
        }
    }
    return emit_refs(x, &s->groups.keys, refs, n, out);
}

/* ---- joins -------------------------------------------------------------------------------- */

/* join_filter_fill fills filter f of key k from the join's complete build side: a Bloom filter
** of the key's hashes (those of the distinct keys, each column alone when there are several), and
** for one integer key its range. */
static int join_filter_fill(exec_ctx *x, plan_op *p, join_state *s, uint32_t k, join_filter *f) {
    const vec_groups *g = &s->table.groups;
    uint32_t bits = 3; /* at least 8 words */
    while (bits < 24 && (UINT64_C(1) << bits) * 4 < g->ngroups) bits++;
    if ((UINT64_C(1) << bits) * 4 >= g->ngroups) {
        size_t bytes = ((size_t)1 << bits) * sizeof *f->bloom;
        int rc = vec_rowtable_charge(&s->build, bytes, x->err);
        if (rc) return rc;
        if (!(f->bloom = calloc((size_t)1 << bits, sizeof *f->bloom))) return nomem(x);
        f->bloom_mask = (UINT64_C(1) << bits) - 1, f->bloom_shift = 64 - bits;
        for (uint64_t row = 0; row < g->ngroups; row += VECTOR_SIZE) {
            const data_chunk *ch = vec_rows_chunk(&g->keys, row);
            vec_hash(&ch->cols[k], NULL, ch->count, s->phash);
            for (uint32_t r = 0; r < ch->count; r++)
                f->bloom[s->phash[r] >> f->bloom_shift] |= bloom_bits(s->phash[r]);
        }
    }
    f->ranged = p->join.nkeys == 1 && vec_groups_range(g, &f->min, &f->max);
    f->ready = true;
    return STRATA_OK;
}

static void join_filter_clear(join_filter *f) {
    if (!f) return;
    free(f->bloom);
    memset(f, 0, sizeof *f);
}

static int join_open(exec_ctx *x, plan_op *p) {
    join_state *s = calloc(1, sizeof *s);
    if (!s) return nomem(x);
    p->state = s;
    plan_op *r = p->child[1];
    /* a semi or anti join without a residual reads no build column: it only counts the rows */
    bool no_columns = (p->join.kind == JK_SEMI || p->join.kind == JK_ANTI) && !p->join.pred;
    int rc = vec_rowtable_init(&s->build, r->types, no_columns ? 0 : r->ncols, x->budget, x->err);
    if (rc) return rc;
    sql_type kt[p->join.nkeys + 1];
    for (uint32_t k = 0; k < p->join.nkeys; k++) {
        kt[k] = p->join.rkeys[k]->type;
        if ((rc = expr_prepare(p->join.lkeys[k], x->err)) || (rc = expr_prepare(p->join.rkeys[k], x->err))) return rc;
    }
    if ((rc = join_table_init(x, &s->table, kt, p->join.nkeys))) return rc;
    if (p->join.pred && (rc = expr_prepare(p->join.pred, x->err))) return rc;
    /* pairs hold both sides' columns, also for SEMI and ANTI, which output the left ones only */
    plan_op *l = p->child[0];
    sql_type both[l->ncols + r->ncols + 1];
    memcpy(both, l->types, l->ncols * sizeof *both);
    memcpy(both + l->ncols, r->types, r->ncols * sizeof *both);
    if ((rc = chunk_init(&s->pairs, both, l->ncols + r->ncols, x->err))) return rc;
    s->phash = malloc(VECTOR_SIZE * sizeof *s->phash);
    s->heads = malloc(VECTOR_SIZE * sizeof *s->heads);
    if (!(s->bnull = malloc(r->ncols + 1))) return nomem(x);
    memset(s->bnull, 1, r->ncols + 1);
    s->pmatched = malloc(VECTOR_SIZE);
    s->prow = malloc(VECTOR_SIZE * sizeof *s->prow);
    s->brow = malloc(VECTOR_SIZE * sizeof *s->brow);
    s->sel = malloc(VECTOR_SIZE * sizeof *s->sel);
    if (!s->phash || !s->heads || !s->pmatched || !s->prow || !s->brow || !s->sel) return nomem(x);
    s->phase = 2;
    return STRATA_OK;
}

static void join_close(plan_op *p) {
    join_state *s = p->state;
    for (uint32_t k = 0; p->kind == PLAN_HASH_JOIN && p->join.filters && k < p->join.nkeys; k++)
        join_filter_clear(p->join.filters[k]);
    if (!s) return;
    vec_rowtable_free(&s->build);
    vec_join_free(&s->table);
    chunk_free(&s->pairs);
    free(s->bmatched);
    free(s->phash);
    free(s->heads);
    free(s->bnull);
    free(s->pmatched);
    free(s->prow);
    free(s->brow);
    free(s->sel);
    free(s);
}

static int join_sink(exec_ctx *x, plan_op *p, data_chunk *in) {
    join_state *s = p->state;
    if (in->sel) chunk_apply_sel(in);
    int rc = vec_rowtable_append(&s->build, in, x->err);
    for (uint32_t c = 0; c < in->ncols; c++)
        if (in->cols[c].kind != VEC_CONSTANT || !vec_is_null(&in->cols[c], 0)) s->bnull[c] = false;
    if (rc || !p->join.nkeys) return rc;
    vector *keys[p->join.nkeys];
    for (uint32_t k = 0; k < p->join.nkeys; k++) {
        if ((rc = expr_eval(x, p->join.rkeys[k], in, in->count))) return rc;
        keys[k] = p->join.rkeys[k]->result;
    }
    for (uint32_t r = 0; p->join.null_aware && !s->build_null && r < in->count; r++) s->build_null = vec_is_null(keys[0], r);
    return vec_join_add(&s->table, keys, in->count, x->err);
}


static int join_finalize(exec_ctx *x, plan_op *p) {
    join_state *s = p->state;
    uint64_t n = s->build.rows;
    s->nbuild = n;
    if (n > UINT32_MAX - 1) return err_set(x->err, STRATA_TOOBIG, "join build side too large");
    for (uint32_t k = 0; p->join.filters && k < p->join.nkeys; k++) {
        if (!p->join.filters[k]) continue;
        join_filter_clear(p->join.filters[k]);
        int rc = join_filter_fill(x, p, s, k, p->join.filters[k]);
        if (rc) return rc;
    }
    s->bmatched = calloc(n + 1, 1);
    return s->bmatched ? STRATA_OK : nomem(x);
}

/* build_columns writes the columns of build rows s->brow[0..n) to cols[0..ncols) (constant NULLs
** for a column no one reads). */
static void build_columns(join_state *s, uint32_t n, vector *cols) {
    const uint8_t *rows[VECTOR_SIZE];
    vec_rowtable_locate(&s->build, s->brow, n, rows);
    for (uint32_t c = 0; c < s->build.ncols; c++) {
        if (s->bnull[c]) null_column(&cols[c]);
        else vec_rowtable_gather(&s->build, c, rows, n, &cols[c]);
    }
}

/* join_match_pairs builds the joined rows of pairs (s->prow, s->brow)[0..n) into s->pairs, applies
** the residual predicate, and marks the matches; s->sel[0..*m) are the pairs that passed. */
static int join_match_pairs(exec_ctx *x, plan_op *p, join_state *s, data_chunk *in, uint32_t n, uint32_t *m) {
    uint32_t nl = p->child[0]->ncols;
    chunk_reset(&s->pairs);
    for (uint32_t c = 0; c < nl; c++) vec_slice(&s->pairs.cols[c], &in->cols[c], s->prow, n);
    build_columns(s, n, s->pairs.cols + nl);
    s->pairs.count = n;
    *m = n;
    if (p->join.pred) {
        int rc = expr_select(x, p->join.pred, &s->pairs, n, s->sel, m);
        if (rc) return rc;
    } else {
        for (uint32_t k = 0; k < n; k++) s->sel[k] = k;
    }
    for (uint32_t k = 0; k < *m; k++) {
        s->pmatched[s->prow[s->sel[k]]] = 1;
        s->bmatched[s->brow[s->sel[k]]] = 1;
    }
    return STRATA_OK;
}

/* join_emit_pairs moves the pairs that match (join_match_pairs) to out. */
static int join_emit_pairs(exec_ctx *x, plan_op *p, join_state *s, data_chunk *in, uint32_t n, data_chunk *out) {
    uint32_t m;
    int rc = join_match_pairs(x, p, s, in, n, &m);
    if (rc) return rc;
    for (uint32_t c = 0; c < p->ncols; c++) vec_slice(&out->cols[c], &s->pairs.cols[c], s->sel, m);
    out->count = m;
    return STRATA_OK;
}

/* rows with NULLs on one side: left rows sel (from in), or build rows brow[] */
static int join_emit_outer(plan_op *p, join_state *s, data_chunk *in, const sel_t *sel, uint32_t n, bool left_rows,
                           data_chunk *out) {
    uint32_t nl = p->child[0]->ncols, nr = p->child[1]->ncols;
    chunk_reset(&s->pairs);
    for (uint32_t c = 0; c < nl; c++) { /* the side that has no row: NULLs */
        if (left_rows) vec_slice(&s->pairs.cols[c], &in->cols[c], sel, n);
        else null_column(&s->pairs.cols[c]);
    }
    if (!left_rows) build_columns(s, n, s->pairs.cols + nl);
    for (uint32_t c = 0; left_rows && c < nr; c++) null_column(&s->pairs.cols[nl + c]);
    s->pairs.count = n;
    for (uint32_t c = 0; c < p->ncols; c++) vec_reference(&out->cols[c], &s->pairs.cols[c]);
    out->count = n;
    return STRATA_OK;
}

/* probe_chunk evaluates the probe keys of in into pkeys[0..nkeys) and, for a join with keys,
** sets each row's chain in s->heads (vec_join_probe). */
static int probe_chunk(exec_ctx *x, plan_op *p, join_state *s, data_chunk *in, vector **pkeys) {
    for (uint32_t k = 0; k < p->join.nkeys; k++) {
        int rc = expr_eval(x, p->join.lkeys[k], in, in->count);
        if (rc) return rc;
        pkeys[k] = p->join.lkeys[k]->result;
    }
    if (p->join.nkeys) vec_join_probe(&s->table, pkeys, in->count, s->phash, s->heads);
    return STRATA_OK;
}

/* semi_match marks in s->pmatched the probe rows of in (whose chains vec_join_probe put in
** s->heads) that some build row joins: without a residual predicate a non-empty chain says so;
** with one, the chains' pairs are checked a chunk at a time, and a row's chain is left as soon as
** the row has matched. */
static int semi_match(exec_ctx *x, plan_op *p, join_state *s, data_chunk *in) {
    bool keyed = p->join.nkeys > 0;
    if (!p->join.pred) {
        for (uint32_t r = 0; r < in->count; r++) s->pmatched[r] = keyed ? s->heads[r] != 0 : s->nbuild > 0;
        return STRATA_OK;
    }
    memset(s->pmatched, 0, in->count);
    uint32_t r = 0, next = 0, n = 0, m;
    bool in_chain = false;
    while (r < in->count) {
        if (!in_chain) next = keyed ? s->heads[r] : s->nbuild ? 1 : 0, in_chain = true;
        while (next && n < VECTOR_SIZE && !s->pmatched[r]) {
            uint32_t b = next - 1;
            next = keyed ? vec_join_next(&s->table, b) : b + 1 < s->nbuild ? b + 2 : 0;
            s->prow[n] = r;
            s->brow[n++] = b;
        }
        if (!next || s->pmatched[r]) r++, in_chain = false;
        if (n == VECTOR_SIZE || (r == in->count && n)) {
            int rc = join_match_pairs(x, p, s, in, n, &m);
            if (rc) return rc;
            n = 0;
        }
    }
    return STRATA_OK;
}

/* semi_exec: SEMI and ANTI joins pass each probe row once, by whether some build row joins it.
** The null-aware anti join of NOT IN counts a NULL probe key as a match (the row goes) unless the
** build side is empty, and every row as one when a build key is NULL. */
static int semi_exec(exec_ctx *x, plan_op *p, join_state *s, data_chunk *in, data_chunk *out) {
    vector *pkeys[p->join.nkeys + 1];
    int rc;
    if ((rc = probe_chunk(x, p, s, in, pkeys)) || (rc = semi_match(x, p, s, in))) return rc;
    if (p->join.null_aware && s->nbuild)
        for (uint32_t r = 0; r < in->count; r++) s->pmatched[r] |= s->build_null || vec_is_null(pkeys[0], r);
    uint8_t want = p->join.kind == JK_SEMI;
    uint32_t n = 0;
    for (uint32_t r = 0; r < in->count; r++)
        if (s->pmatched[r] == want) s->sel[n++] = r;
    for (uint32_t c = 0; c < p->ncols; c++) vec_slice(&out->cols[c], &in->cols[c], s->sel, n);
    out->count = n;
    return STRATA_OK;
}

/* rsemi_mark: RIGHT_SEMI and RIGHT_ANTI joins mark the build rows that some probe row of in
** joins, and output nothing until the end (join_flush). Without a residual predicate a chain is
** marked whole, so a chain whose first row is marked is done; with one, only the unmarked rows of
** a chain are paired and checked. */
static int rsemi_mark(exec_ctx *x, plan_op *p, join_state *s, data_chunk *in) {
    vector *pkeys[p->join.nkeys + 1];
    int rc = probe_chunk(x, p, s, in, pkeys);
    if (rc) return rc;
    if (!p->join.pred) {
        for (uint32_t r = 0; r < in->count; r++)
            for (uint32_t next = s->heads[r]; next && !s->bmatched[next - 1]; next = vec_join_next(&s->table, next - 1))
                s->bmatched[next - 1] = 1;
        return STRATA_OK;
    }
    uint32_t n = 0, m;
    for (uint32_t r = 0; r < in->count; r++) {
        for (uint32_t next = s->heads[r]; next; next = vec_join_next(&s->table, next - 1)) {
            if (s->bmatched[next - 1]) continue;
            s->prow[n] = r;
            s->brow[n++] = next - 1;
            if (n == VECTOR_SIZE) {
                if ((rc = join_match_pairs(x, p, s, in, n, &m))) return rc;
                n = 0;
            }
        }
    }
    return n ? join_match_pairs(x, p, s, in, n, &m) : STRATA_OK;
}

static int join_exec(exec_ctx *x, plan_op *p, data_chunk *in, data_chunk *out, bool *more) {
    join_state *s = p->state;
    int rc;
    if (in->sel) chunk_apply_sel(in);
    if (p->join.kind == JK_SEMI || p->join.kind == JK_ANTI) {
        *more = false;
        return semi_exec(x, p, s, in, out);
    }
    if (p->join.kind == JK_RSEMI || p->join.kind == JK_RANTI) {
        *more = false;
        out->count = 0;
        return rsemi_mark(x, p, s, in);
    }
    if (s->phase == 2) { /* a new probe chunk */
        vector *pkeys[p->join.nkeys + 1];
        if ((rc = probe_chunk(x, p, s, in, pkeys))) return rc;
        memset(s->pmatched, 0, in->count);
        s->pos_row = 0;
        s->in_chain = false;
        s->phase = 0;
    }
    *more = true;
    if (s->phase == 0) {
        uint32_t n = 0;
        while (s->pos_row < in->count && n < VECTOR_SIZE) {
            uint32_t r = s->pos_row;
            if (!s->in_chain) {
                s->in_chain = true;
                s->pos_next = p->join.nkeys ? s->heads[r] : s->nbuild ? 1 : 0;
            }
            while (s->pos_next && n < VECTOR_SIZE) { /* every build row on the chain has the key */
                uint32_t b = s->pos_next - 1;
                s->pos_next = p->join.nkeys ? vec_join_next(&s->table, b) : b + 1 < s->nbuild ? b + 2 : 0;
                s->prow[n] = r;
                s->brow[n++] = b;
            }
            if (!s->pos_next) {
                s->pos_row++;
                s->in_chain = false;
            }
        }
        if (s->pos_row >= in->count) s->phase = 1;
        if (n) return join_emit_pairs(x, p, s, in, n, out);
    }
    if (s->phase == 1) {
        s->phase = 2;
        *more = false;
        if (p->join.kind == JK_LEFT || p->join.kind == JK_FULL) {
            uint32_t n = 0;
            for (uint32_t r = 0; r < in->count; r++)
                if (!s->pmatched[r]) s->sel[n++] = r;
            sel_t rows[VECTOR_SIZE];
            memcpy(rows, s->sel, n * sizeof *rows);
            return join_emit_outer(p, s, in, rows, n, true, out);
        }
    }
    out->count = 0;
    return STRATA_OK;
}

/* join_flush: RIGHT/FULL and RIGHT_ANTI joins output the build rows nothing matched, RIGHT_SEMI
** joins those something matched. */
static int join_flush(plan_op *p, data_chunk *out, bool *more) {
    join_state *s = p->state;
    join_kind k = p->join.kind;
    *more = false;
    out->count = 0;
    if (k != JK_RIGHT && k != JK_FULL && k != JK_RSEMI && k != JK_RANTI) return STRATA_OK;
    uint8_t want = k == JK_RSEMI;
    uint32_t n = 0;
    while (s->flush_pos < s->nbuild && n < VECTOR_SIZE) {
        uint32_t b = s->flush_pos++;
        if (s->bmatched[b] == want) s->brow[n++] = b;
    }
    *more = s->flush_pos < s->nbuild;
    if (k == JK_RIGHT || k == JK_FULL) return join_emit_outer(p, s, NULL, NULL, n, false, out);
    build_columns(s, n, out->cols); /* the build rows are the output */
    out->count = n;
    return STRATA_OK;
}

/* ---- index joins -------------------------------------------------------------------------- */

typedef struct ijoin_state {
    data_chunk fetched;  /* right rows read by key: the columns of child[1]'s projection */
    uint32_t *proj;
    uint32_t nproj;
    data_chunk pairs;    /* joined rows, left columns then right */
    data_chunk right;    /* a view of pairs' right columns, for scan_output */
    index_scan *open;    /* the lookup of the current probe row, when it did not fit one chunk */
    table_reader *reader; /* keeps the right table's row groups open from lookup to lookup */
    btree_buf key;
    uint32_t pos_row;
    int phase;           /* 0 lookups, 1 unmatched probe rows (LEFT), 2 done with this chunk */
    sel_t prow[VECTOR_SIZE], kept[VECTOR_SIZE], sel[VECTOR_SIZE];
    int64_t rids[VECTOR_SIZE];
    uint8_t found[VECTOR_SIZE], pmatched[VECTOR_SIZE];
} ijoin_state;

static int ijoin_open(exec_ctx *x, plan_op *p) {
    ijoin_state *s = calloc(1, sizeof *s);
    if (!s) return nomem(x);
    p->state = s;
    s->phase = 2;
    plan_op *r = p->child[1];
    int rc = scan_projection(x, r->scan.table, r->scan.cols, r->scan.ncols, r->scan.need, &s->proj, &s->nproj, &s->fetched);
    if (rc == STRATA_OK && table_reader_open(&r->scan.table->desc, s->proj, s->nproj, &s->reader)) rc = nomem(x);
    if (rc || (rc = chunk_init(&s->pairs, p->types, p->ncols, x->err))) return rc;
    if ((rc = expr_prepare(p->join.lkeys[0], x->err))) return rc;
    if (p->join.pred && (rc = expr_prepare(p->join.pred, x->err))) return rc;
    s->right.ncols = r->ncols;
    s->right.cols = s->pairs.cols + p->child[0]->ncols;
    return STRATA_OK;
}

static void ijoin_close(plan_op *p) {
    ijoin_state *s = p->state;
    if (!s) return;
    if (s->open) index_scan_close(s->open);
    table_reader_close(s->reader);
    chunk_free(&s->fetched);
    chunk_free(&s->pairs);
    free(s->proj);
    btree_buf_free(&s->key);
    free(s);
}

static int ijoin_exec(exec_ctx *x, plan_op *p, data_chunk *in, data_chunk *out, bool *more) {
    ijoin_state *s = p->state;
    plan_op *r = p->child[1];
    uint32_t nl = p->child[0]->ncols;
    expr *key = p->join.lkeys[0];
    int rc;
    if (in->sel) chunk_apply_sel(in);
    if (s->phase == 2) {
        if ((rc = expr_eval(x, key, in, in->count))) return rc;
        memset(s->pmatched, 0, in->count);
        s->pos_row = 0;
        s->phase = 0;
    }
    *more = true;
    out->count = 0;
    if (s->phase == 0) {
        uint32_t n = 0;
        while (s->pos_row < in->count && n < VECTOR_SIZE) {
            uint32_t row = s->pos_row;
            if (vec_is_null(key->result, row)) { /* a NULL key matches nothing */
                s->pos_row++;
                continue;
            }
            if (!p->join.lookup) {
                sql_value v;
                vec_get_value(key->result, row, &v);
                s->prow[n] = row;
                s->rids[n++] = v.v.i;
                s->pos_row++;
                continue;
            }
            if (!s->open) {
                s->key.len = 0;
                if ((rc = key_encode_row(&s->key, key->result, 1, row, x->err))) return rc;
                if ((rc = index_scan_open(x->txn, p->join.lookup->root, s->key.data, s->key.len, 1, s->key.data, s->key.len, 1,
                                          &s->open)))
                    return table_error(x, rc);
            }
            uint32_t got;
            if ((rc = index_scan_next(s->open, s->rids + n, VECTOR_SIZE - n, &got))) return table_error(x, rc);
            for (uint32_t k = 0; k < got; k++) s->prow[n + k] = row;
            n += got;
            if (!got) {
                index_scan_close(s->open);
                s->open = NULL;
                s->pos_row++;
            }
        }
        if (s->pos_row >= in->count) s->phase = 1;
        if (n) {
            chunk_reset(&s->fetched);
            if ((rc = table_reader_get(s->reader, x->txn, s->rids, n, &s->fetched, s->found)))
                return table_error(x, rc);
            uint32_t m = 0;
            for (uint32_t k = 0; k < n; k++)
                if (s->found[k]) s->kept[m++] = s->prow[k];
            chunk_reset(&s->pairs);
            for (uint32_t c = 0; c < nl; c++) vec_slice(&s->pairs.cols[c], &in->cols[c], s->kept, m);
            scan_output(&s->fetched, r->scan.need, r->scan.ncols, &s->right);
            s->pairs.count = m;
            uint32_t q = m;
            if (p->join.pred) {
                if ((rc = expr_select(x, p->join.pred, &s->pairs, m, s->sel, &q))) return rc;
            } else {
                for (uint32_t k = 0; k < m; k++) s->sel[k] = k;
            }
            for (uint32_t k = 0; k < q; k++) s->pmatched[s->kept[s->sel[k]]] = 1;
            for (uint32_t c = 0; c < p->ncols; c++) vec_slice(&out->cols[c], &s->pairs.cols[c], s->sel, q);
            out->count = q;
            return STRATA_OK;
        }
    }
    if (s->phase == 1) {
        s->phase = 2;
        *more = false;
        if (p->join.kind == JK_LEFT) { /* probe rows nothing matched, with NULLs on the right */
            uint32_t m = 0;
            for (uint32_t row = 0; row < in->count; row++)
                if (!s->pmatched[row]) s->kept[m++] = row;
            chunk_reset(&s->pairs);
            for (uint32_t c = 0; c < nl; c++) vec_slice(&out->cols[c], &in->cols[c], s->kept, m);
            for (uint32_t c = nl; c < p->ncols; c++) {
                vector *v = &s->pairs.cols[c];
                vec_set_null(v, 0, 1);
                vec_make_constant(v);
                vec_reference(&out->cols[c], v);
            }
            out->count = m;
        }
    }
    return STRATA_OK;
}

/* ---- DML ---------------------------------------------------------------------------------- */

/* dml_must_hold says whether a DML operator must see all its input before changing the table:
** when the input reads the table itself, changing it while the scan runs could show the scan
** rows the statement itself wrote (an UPDATE that moves rows would meet them again). */
static bool dml_must_hold(const plan_op *p, const table_def *td) {
    if (!p) return false;
    if ((p->kind == PLAN_SCAN && p->scan.table == td) || (p->kind == PLAN_INDEX_SCAN && p->iscan.table == td)) return true;
    return dml_must_hold(p->child[0], td) || dml_must_hold(p->child[1], td);
}

static void dml_close(plan_op *p, bool keep);
static void bulk_drop(dml_state *s);

/* dml_state_new makes what a DML operator keeps between runs of its plan: the CHECK and index
** key expressions bound to the table, the chunks of ON CONFLICT DO UPDATE, the rowid buffer. */
static int dml_state_new(exec_ctx *x, plan_op *p, dml_state **out) {
    dml_state *s = calloc(1, sizeof *s);
    if (!s) return nomem(x);
    p->state = s;
    *out = s;
    arena_init(&s->mem, 0);
    table_def *td = p->dml.table;
    bind_ctx b = {.cat = x->cat, .mem = &s->mem, .sql = "", .sqllen = 0, .err = x->err};
    int rc;
    s->checks = arena_alloc(&s->mem, (td->nchecks + 1) * sizeof *s->checks);
    s->index_keys = arena_alloc(&s->mem, (td->nindexes + 1) * sizeof *s->index_keys);
    s->index_nkeys = arena_alloc(&s->mem, (td->nindexes + 1) * sizeof *s->index_nkeys);
    s->rowids = vec_scratch_alloc(VECTOR_SIZE * sizeof *s->rowids);
    if (!s->checks || !s->index_keys || !s->index_nkeys || !s->rowids) return nomem(x);
    memset(s->checks, 0, (td->nchecks + 1) * sizeof *s->checks);
    memset(s->index_keys, 0, (td->nindexes + 1) * sizeof *s->index_keys);
    s->nchecks = td->nchecks;
    s->nindexes = td->nindexes;
    for (uint32_t i = 0; i < td->nchecks; i++) {
        if ((rc = bind_table_expr(&b, td, td->checks[i].expr, &s->checks[i]))) return rc;
        if ((rc = expr_prepare(s->checks[i], x->err))) return rc;
    }
    for (uint32_t i = 0; i < td->nindexes; i++) {
        index_def *ix = td->indexes[i];
        s->index_keys[i] = arena_alloc(&s->mem, ix->nkeys * sizeof **s->index_keys);
        s->index_nkeys[i] = 0;
        if (!s->index_keys[i]) return nomem(x);
        memset(s->index_keys[i], 0, ix->nkeys * sizeof **s->index_keys);
        s->index_nkeys[i] = ix->nkeys;
        for (uint32_t k = 0; k < ix->nkeys; k++) {
            if ((rc = bind_table_expr(&b, td, ix->keys[k], &s->index_keys[i][k]))) return rc;
            if ((rc = expr_prepare(s->index_keys[i][k], x->err))) return rc;
        }
    }
    for (uint32_t i = 0; i < p->dml.nreturning; i++)
        if ((rc = expr_prepare(p->dml.returning[i], x->err))) return rc;
    s->hold = dml_must_hold(p->child[0], td);
    if (p->dml.on_conflict_update) {
        sql_type *t2 = arena_alloc(&s->mem, (2 * td->ncols + 1) * sizeof *t2);
        if (!t2) return nomem(x);
        t2[0] = sql_type_make(TYPE_BIGINT);
        for (uint32_t i = 0; i < td->ncols; i++) t2[1 + i] = td->types[i];
        if ((rc = chunk_init(&s->upd, t2, td->ncols + 1, x->err))) return rc;
        for (uint32_t i = 0; i < 2 * td->ncols; i++) t2[i] = td->types[i % td->ncols];
        if ((rc = chunk_init(&s->pair, t2, 2 * td->ncols, x->err))) return rc;
        for (uint32_t k = 0; k < p->dml.nconflict_set; k++)
            if ((rc = expr_prepare(p->dml.conflict_values[k], x->err))) return rc;
        if (p->dml.conflict_where && (rc = expr_prepare(p->dml.conflict_where, x->err))) return rc;
    }
    s->row.ncols = td->ncols;
    return STRATA_OK;
}

static int dml_open(exec_ctx *x, plan_op *p) {
    dml_state *s = p->state; /* kept from the plan's last run (op_close with keep), or new */
    int rc;
    if (!s && (rc = dml_state_new(x, p, &s))) {
        dml_close(p, false); /* nothing half-made is kept for the next run */
        return rc;
    }
    s->emit_chunk = 0;
    s->done = false;
    if (p->dml.nreturning && (rc = rows_init(x, &s->returned, p->types, p->ncols))) return rc;
    if (s->hold && (rc = rows_init(x, &s->pending, p->child[0]->types, p->child[0]->ncols))) return rc;
    return STRATA_OK;
}

/* dml_old gives s->old, the chunk that rows read back from the table go to, empty (made on
** first use: most INSERTs never read a row back). */
static int dml_old(exec_ctx *x, plan_op *p, dml_state *s) {
    if (!s->old.cols && p->dml.table->ncols) return chunk_init(&s->old, p->dml.table->types, p->dml.table->ncols, x->err);
    chunk_reset(&s->old);
    return STRATA_OK;
}

/* dml_close ends a run: the rows it held go; with keep the rest stays for the plan's next run. */
static void dml_close(plan_op *p, bool keep) {
    dml_state *s = p->state;
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
    p->state = NULL;
    for (uint32_t i = 0; i < s->nchecks && s->checks; i++) expr_release(s->checks[i]);
    for (uint32_t i = 0; i < s->nindexes && s->index_keys && s->index_nkeys; i++)
        for (uint32_t k = 0; k < s->index_nkeys[i] && s->index_keys[i]; k++) expr_release(s->index_keys[i][k]);
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
static int check_rows(exec_ctx *x, plan_op *p, dml_state *s, data_chunk *row) {
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
static int index_update(exec_ctx *x, plan_op *p, dml_state *s, data_chunk *row, const int64_t *rowids, bool add,
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
                if (rc && rc != STRATA_NOTFOUND) return table_error(x, rc);
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
                if (rc) return table_error(x, rc);
                continue;
            }
            if ((rc = index_insert(x->txn, ix->root, s->key.data, s->key.len, rowids[r]))) return table_error(x, rc);
        }
    }
    return STRATA_OK;
}

/* find_conflict says whether row r conflicts with an existing row on the ON CONFLICT arbiter (the
** rowid or one index), or without one on the rowid or any unique index; *other gets that row. */
static int find_conflict(exec_ctx *x, plan_op *p, dml_state *s, data_chunk *row, uint32_t r, int64_t rowid,
                         bool *conflict, int64_t *other) {
    table_def *td = p->dml.table;
    bool any = !p->dml.conflict_rowid && !p->dml.conflict_index;
    *conflict = false;
    if (td->rowid_col >= 0 && (any || p->dml.conflict_rowid)) {
        uint8_t found = 0;
        uint32_t none = 0;
        int rc = dml_old(x, p, s);
        if (!rc) rc = table_get(x->txn, &td->desc, &none, 0, &rowid, 1, &s->old, &found);
        if (rc) return table_error(x, rc);
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
        if (rc != STRATA_NOTFOUND) return table_error(x, rc);
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
            return nomem(x);
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

static int update_sink(exec_ctx *x, plan_op *p, data_chunk *in);

/* upsert_update applies DO UPDATE to existing row `other` for proposed row r of in. */
static int upsert_update(exec_ctx *x, plan_op *p, dml_state *s, data_chunk *in, uint32_t r, int64_t other) {
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
    if (!all) return nomem(x);
    for (uint32_t c = 0; c < n; c++) all[c] = c;
    if ((rc = dml_old(x, p, s))) return rc;
    if ((rc = table_get(x->txn, &td->desc, all, n, &other, 1, &s->old, NULL))) return table_error(x, rc);
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
        if ((rc = expr_select(x, p->dml.conflict_where, &s->pair, 1, sel, &m))) return rc;
        if (!m) return STRATA_OK; /* the WHERE of DO UPDATE keeps the row as it is */
    }
    chunk_reset(&s->upd);
    ((int64_t *)s->upd.cols[0].data)[0] = other;
    for (uint32_t c = 0; c < n; c++)
        if ((rc = vec_copy(&s->upd.cols[1 + c], 0, &s->old.cols[c], NULL, 1, x->err))) return rc;
    for (uint32_t k = 0; k < p->dml.nconflict_set; k++) {
        expr *e = p->dml.conflict_values[k];
        if ((rc = expr_eval(x, e, &s->pair, 1))) return rc;
        vector *dst = &s->upd.cols[1 + p->dml.conflict_cols[k]];
        vec_reset(dst);
        if ((rc = vec_copy(dst, 0, e->result, NULL, 1, x->err))) return rc;
    }
    s->upd.count = 1;
    return update_sink(x, p, &s->upd);
}

/* fk_check: every foreign key of rows of row must find its referenced row. */
static int fk_check(exec_ctx *x, plan_op *p, dml_state *s, data_chunk *row) {
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
                if (rc) return table_error(x, rc);
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
                if (rc && rc != STRATA_NOTFOUND) return table_error(x, rc);
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
static int fk_restrict(exec_ctx *x, plan_op *p, data_chunk *old) {
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
                return table_error(x, rc);
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
            if (rc) return table_error(x, rc);
            if (referenced)
                return err_set(x->err, STRATA_CONSTRAINT,
                               "update or delete on table \"%s\" violates foreign key constraint \"%s\" on table \"%s\"",
                               td->name, fk->name, ct->name);
        }
    }
    return STRATA_OK;
}

static int dml_return(exec_ctx *x, plan_op *p, dml_state *s, data_chunk *row, const sel_t *sel, uint32_t n) {
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
        int rc = expr_eval(x, p->dml.returning[i], &src, n);
        if (rc) return rc;
        cols[i] = *p->dml.returning[i]->result;
    }
    out.cols = cols;
    return vec_rows_append(&s->returned, &out, NULL, n, x->err);
}

/* ---- INSERT's bulk path --------------------------------------------------------------------
** A statement that inserts whole vectors of new rows into a table that migrates (storage 'auto'
** or 'column') writes them straight into row groups instead of through the row tree: the rows
** are copied into an open row group's segment builders (rowgroup_job_add) until it is full, then
** it is encoded beside the statement (bulk_write). What is left at the end is read back from the
** builders into the row tree, or, for storage 'column', makes a smaller row group when it is at least
** 1/BULK_TAIL_SHARE of a full one and BULK_TAIL_MIN rows. The path starts at the first input
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
    rowgroup_job_free(s->bulk_job);
    rowgroup_job_free(s->bulk_open);
    s->bulk_job = s->bulk_open = NULL;
    vec_budget_release(s->bulk_budget, s->bulk_job_charged + s->bulk_open_charged);
    s->bulk_job_charged = s->bulk_open_charged = 0;
}

/* bulk_wait stores the row group being encoded, if any (after the ones before it). */
static int bulk_wait(exec_ctx *x, table_def *td, dml_state *s) {
    rowgroup_job *j = s->bulk_job;
    s->bulk_job = NULL;
    int rc = j ? rowgroup_write_finish(x->txn, &td->desc, j) : STRATA_OK;
    vec_budget_release(s->bulk_budget, s->bulk_job_charged);
    s->bulk_job_charged = 0;
    return rc ? table_error(x, rc) : STRATA_OK;
}

/* bulk_flush_rows sends the rows of the open row group to the row tree after all. */
static int bulk_flush_rows(exec_ctx *x, table_def *td, dml_state *s) {
    int rc = bulk_wait(x, td, s);
    if (rc || !s->bulk_open) return rc;
    uint32_t rows = rowgroup_job_rows(s->bulk_open);
    if (rows && !s->bulk_out.cols && (rc = chunk_init(&s->bulk_out, td->types, td->ncols, x->err))) return rc;
    int64_t ids[VECTOR_SIZE];
    for (uint32_t at = 0; at < rows && rc == STRATA_OK; at += VECTOR_SIZE) {
        uint32_t n = rows - at < VECTOR_SIZE ? rows - at : VECTOR_SIZE;
        if ((rc = rowgroup_job_read(s->bulk_open, at, n, &s->bulk_out, ids, x->err))) break;
        if ((rc = table_insert(x->txn, &td->desc, &s->bulk_out, NULL, n, ids))) {
            rc = table_error(x, rc);
            break;
        }
        td->inserted += n; /* for the tuple mover, after the commit */
    }
    bulk_drop(s);
    return rc;
}

/* bulk_write stores the open row group (the table's column tree made the first time): it is
** encoded on a thread of its own while the statement goes on (two cores parse and encode side by
** side), and stored at the next bulk_write or at bulk_wait (at most one is in flight). */
static int bulk_write(exec_ctx *x, table_def *td, dml_state *s) {
    int rc;
    if (!td->desc.col_root) {
        pgno_t root;
        if ((rc = btree_create(x->txn, &root))) return table_error(x, rc);
        if ((rc = catalog_set_col_root(x->cat, x->txn, td, root, x->err))) return rc;
    }
    if ((rc = bulk_wait(x, td, s))) return rc;
    if ((rc = rowgroup_job_start(x->txn, &td->desc, s->bulk_open))) return table_error(x, rc);
    td->bulk_inserted += rowgroup_job_rows(s->bulk_open); /* for the statistics, after the commit */
    s->bulk_job = s->bulk_open, s->bulk_job_charged = s->bulk_open_charged;
    s->bulk_open = NULL, s->bulk_open_charged = 0;
    return STRATA_OK;
}

/* bulk_add takes rows 0..n) of in under rowids, or sets *taken = false (and leaves the path)
** when they do not ascend above the rows before them. The rows go into the open row group's
** builders (split where a row group fills: that one goes to bulk_write). */
static int bulk_add(exec_ctx *x, plan_op *p, dml_state *s, data_chunk *in, const int64_t *rowids, bool *taken) {
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
        if ((rc = table_max_rowid(x->txn, &td->desc, &s->bulk_last))) return table_error(x, rc);
        if (s->bulk_last == 0) { /* 0 also means an empty table: then any first rowid will do */
            uint8_t found = 0;
            uint32_t none = 0;
            int64_t zero = 0;
            if ((rc = dml_old(x, p, s))) return rc;
            if ((rc = table_get(x->txn, &td->desc, &none, 0, &zero, 1, &s->old, &found))) return table_error(x, rc);
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

/* bulk_finish ends the path at the end of the input: the rows still held go to the row tree --
** for storage 'column' they make a row group of their own when they are many enough (as a
** column store keeps the tail of a bulk load). storage 'auto' keeps the newest rows, less than a
** row group, in the row store, where point reads and updates are cheapest. */
static int bulk_finish(exec_ctx *x, plan_op *p, dml_state *s) {
    if (s->bulk_mode != BULK_ON) return STRATA_OK;
    s->bulk_mode = BULK_OFF;
    table_def *td = p->dml.table;
    uint32_t tail = rowgroup_rows(&td->desc) / BULK_TAIL_SHARE, held = s->bulk_open ? rowgroup_job_rows(s->bulk_open) : 0;
    if (td->storage != TABLE_STORAGE_COLUMN || held < (tail > BULK_TAIL_MIN ? tail : BULK_TAIL_MIN))
        return bulk_flush_rows(x, td, s);
    int rc = bulk_write(x, td, s);
    return rc ? rc : bulk_wait(x, td, s);
}

static int insert_rows(exec_ctx *x, plan_op *p, data_chunk *in) {
    dml_state *s = p->state;
    table_def *td = p->dml.table;
    int rc;
    if (in->sel) chunk_apply_sel(in);
    uint32_t n = in->count;
    if ((rc = check_rows(x, p, s, in))) return rc;
    /* rowids */
    if (td->rowid_col < 0 && td->next_rowid == 0) {
        int64_t mx;
        if ((rc = table_max_rowid(x->txn, &td->desc, &mx))) return table_error(x, rc);
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
        if ((rc = table_insert(x->txn, &td->desc, in, &keep[nkeep], 1, &rid))) return table_error(x, rc);
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
        if (rc) return table_error(x, rc);
        if ((rc = index_update(x, p, s, in, s->rowids, true, NULL))) return rc;
    }
    x->changes += nkeep;
    if (!bulk) td->inserted += nkeep; /* for the tuple mover, after the commit */
    return dml_return(x, p, s, in, nkeep == n ? NULL : keep, nkeep);
}

/* copy_source is the PLAN_FILE_SCAN an INSERT's rows come from, row for row (COPY ... FROM, with
** a projection between them for a column list), or NULL. */
static plan_op *copy_source(plan_op *p) {
    plan_op *q = p->child[0];
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
static int copy_screen(exec_ctx *x, plan_op *p, dml_state *s, plan_op *src, data_chunk *in, sel_t *keep,
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
            rc = table_error(x, rc);
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
            if (f && f != STRATA_NOTFOUND) { rc = table_error(x, f); break; }
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
    rc = nomem(x);
    goto done;
}

/* insert_sink inserts a chunk of rows. Under COPY ... FROM the CSV line of a row that breaks a
** constraint is named ("file 'f': CSV line 7: duplicate key ..."), and with REJECTS such rows go
** to the REJECTS file while the others go in (copy_screen). */
static int insert_sink(exec_ctx *x, plan_op *p, data_chunk *in) {
    dml_state *s = p->state;
    plan_op *src = copy_source(p);
    if (!src) return insert_rows(x, p, in);
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
    rc = insert_rows(x, p, in);
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

static int update_sink(exec_ctx *x, plan_op *p, data_chunk *in) {
    dml_state *s = p->state;
    table_def *td = p->dml.table;
    int rc;
    if (in->sel) chunk_apply_sel(in);
    view_row(s, in);
    uint32_t n = in->count;
    if ((rc = check_rows(x, p, s, &s->row))) return rc;
    /* the old rows, for their index entries */
    uint32_t *all = malloc(td->ncols * sizeof *all);
    if (!all) return nomem(x);
    for (uint32_t c = 0; c < td->ncols; c++) all[c] = c;
    rc = dml_old(x, p, s);
    if (!rc) rc = table_get(x->txn, &td->desc, all, td->ncols, s->rowids, n, &s->old, NULL);
    free(all);
    if (rc) return table_error(x, rc);
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
            if ((rc = table_delete(x->txn, &td->desc, s->rowids, n))) return table_error(x, rc);
            rc = table_insert(x->txn, &td->desc, &s->row, NULL, n, newids);
            if (rc == STRATA_CONSTRAINT) {
                err_clear(x->err);
                return err_set(x->err, STRATA_CONSTRAINT, "duplicate key value violates unique constraint \"%s_pkey\"", td->name);
            }
            if (rc) return table_error(x, rc);
            memcpy(s->rowids, newids, n * sizeof *newids);
        } else if ((rc = table_update(x->txn, &td->desc, &s->row, NULL, n, s->rowids))) {
            return table_error(x, rc);
        }
    } else if ((rc = table_update(x->txn, &td->desc, &s->row, NULL, n, s->rowids))) {
        return table_error(x, rc);
    }
    if ((rc = index_update(x, p, s, &s->row, s->rowids, true, NULL))) return rc;
    if ((rc = fk_check(x, p, s, &s->row))) return rc;
    x->changes += n;
    return dml_return(x, p, s, &s->row, NULL, n);
}

static int delete_sink(exec_ctx *x, plan_op *p, data_chunk *in) {
    dml_state *s = p->state;
    table_def *td = p->dml.table;
    int rc;
    if (in->sel) chunk_apply_sel(in);
    view_row(s, in);
    if ((rc = fk_restrict(x, p, &s->row))) return rc;
    if ((rc = index_update(x, p, s, &s->row, s->rowids, false, NULL))) return rc;
    if ((rc = dml_return(x, p, s, &s->row, NULL, in->count))) return rc;
    if ((rc = table_delete(x->txn, &td->desc, s->rowids, in->count))) return table_error(x, rc);
    x->changes += in->count;
    return STRATA_OK;
}

static int dml_apply(exec_ctx *x, plan_op *p, data_chunk *in) {
    switch (p->kind) {
    case PLAN_INSERT: return insert_sink(x, p, in);
    case PLAN_UPDATE: return update_sink(x, p, in);
    default: return delete_sink(x, p, in);
    }
}

static int dml_next(exec_ctx *x, plan_op *p, data_chunk *out) {
    (void)x;
    dml_state *s = p->state;
    out->count = 0;
    if (s->emit_chunk >= s->returned.nchunks) return STRATA_OK;
    data_chunk *ch = s->returned.chunks[s->emit_chunk++];
    for (uint32_t c = 0; c < p->ncols; c++) vec_reference(&out->cols[c], &ch->cols[c]);
    out->count = ch->count;
    return STRATA_OK;
}

/* ---- WITH RECURSIVE ----------------------------------------------------------------------- */

typedef struct rec_state {
    void *pipelines[2];   /* of the anchor and the step, kept between iterations */
    vec_rows cur, next; /* this iteration's rows (the working table), the next one's */
    vec_groups seen;     /* UNION: every row so far */
    int phase;            /* 0 before the anchor, 1 streaming cur, 2 done */
    uint32_t emit;        /* next chunk of cur to output */
    data_chunk tmp;
    uint32_t gids[VECTOR_SIZE];
    uint8_t is_new[VECTOR_SIZE];
    uint64_t hashes[VECTOR_SIZE];
    sel_t sel[VECTOR_SIZE];
} rec_state;

static int rec_open(exec_ctx *x, plan_op *p) {
    rec_state *s = calloc(1, sizeof *s);
    if (!s) return nomem(x);
    p->state = s;
    int rc;
    if ((rc = rows_init(x, &s->cur, p->types, p->ncols)) || (rc = rows_init(x, &s->next, p->types, p->ncols)) ||
        (rc = chunk_init(&s->tmp, p->types, p->ncols, x->err)))
        return rc;
    if (!p->rec.all && (rc = groups_init(x, &s->seen, p->types, p->ncols))) return rc;
    return STRATA_OK;
}

static void rec_close(plan_op *p, bool keep) {
    rec_state *s = p->state;
    if (!s) return;
    for (int i = 0; i < 2; i++) { /* the children's expressions stay prepared (op_release) */
        op_close(p->child[i], keep);
        pipelines_free(s->pipelines[i]);
    }
    vec_rows_free(&s->cur);
    vec_rows_free(&s->next);
    chunk_free(&s->tmp);
    vec_groups_free(&s->seen);
    free(s);
}

/* rec_run runs child (anchor or step) to its end, adding its new rows to s->next. */
static int rec_run(exec_ctx *x, plan_op *p, rec_state *s, plan_op *child) {
    exec_ctx sub = *x;
    int which = child == p->child[1];
    sub.pipelines = s->pipelines[which];
    int rc = exec_open(&sub, child);
    s->pipelines[which] = sub.pipelines;
    while (!rc) {
        chunk_reset(&s->tmp);
        if ((rc = exec_next(&sub, child, &s->tmp)) || !s->tmp.count) break;
        if (s->tmp.sel) chunk_apply_sel(&s->tmp);
        if (p->rec.all) {
            rc = vec_rows_append(&s->next, &s->tmp, NULL, s->tmp.count, x->err);
            continue;
        }
        vector *cols[p->ncols + 1];
        for (uint32_t c = 0; c < p->ncols; c++) cols[c] = &s->tmp.cols[c];
        if ((rc = vec_groups_find_or_add(&s->seen, cols, s->tmp.count, s->gids, s->is_new, s->hashes, x->err))) break;
        uint32_t n = 0;
        for (uint32_t r = 0; r < s->tmp.count; r++)
            if (s->is_new[r]) s->sel[n++] = r;
        rc = vec_rows_append(&s->next, &s->tmp, s->sel, n, x->err);
    }
    exec_close(&sub, child);
    return rc;
}

/* rec_next outputs the anchor's rows, then each iteration's, computing an iteration when the
** previous one has been output (so a LIMIT above stops the recursion). */
static int rec_next(exec_ctx *x, plan_op *p, data_chunk *out) {
    rec_state *s = p->state;
    out->count = 0;
    for (;;) {
        if (s->phase == 2) return STRATA_OK;
        if (s->phase == 1 && s->emit < s->cur.nchunks) {
            data_chunk *ch = s->cur.chunks[s->emit++];
            for (uint32_t c = 0; c < p->ncols; c++) vec_reference(&out->cols[c], &ch->cols[c]);
            out->count = ch->count;
            return STRATA_OK;
        }
        int rc;
        if (s->phase == 0) {
            rc = rec_run(x, p, s, p->child[0]);
        } else {
            if (s->cur.rows == 0) {
                s->phase = 2;
                return STRATA_OK;
            }
            p->rec.work->rows = &s->cur;
            rc = rec_run(x, p, s, p->child[1]);
            p->rec.work->rows = NULL;
        }
        if (rc) return rc;
        vec_rows_free(&s->cur);
        s->cur = s->next;
        if ((rc = rows_init(x, &s->next, p->types, p->ncols))) return rc;
        s->phase = 1;
        s->emit = 0;
    }
}

static int cte_scan_next(exec_ctx *x, plan_op *p, data_chunk *out) {
    uint32_t *next = p->state;
    vec_rows *rows = p->cte.store->rows;
    out->count = 0;
    if (!rows) return err_set(x->err, STRATA_MISUSE, "working table read outside its recursion");
    if (*next >= rows->nchunks) return STRATA_OK;
    data_chunk *ch = rows->chunks[(*next)++];
    for (uint32_t c = 0; c < p->ncols; c++) vec_reference(&out->cols[c], &ch->cols[c]);
    out->count = ch->count;
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
static int info_build_rows(exec_ctx *x, plan_op *p, info_state *s) {
    info_build b = {.x = x, .td = p->info.table, .s = s, .group = -1};
    int rc = chunk_init(&b.ch, p->types, p->ncols, x->err);
    if (rc) return rc;
    btree_stats st;
    if ((rc = btree_get_stats(x->txn, b.td->root, &st))) {
        rc = table_error(x, rc);
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
        if (!x->err->code) rc = table_error(x, rc);
        goto done;
    }
    rc = info_flush(&b);
done:
    chunk_free(&b.ch);
    return rc;
}

static int info_open(exec_ctx *x, plan_op *p) {
    info_state *s = calloc(1, sizeof *s);
    if (!s) return nomem(x);
    p->state = s;
    return vec_rows_init(&s->rows, p->types, p->ncols, x->err);
}

static int info_next(exec_ctx *x, plan_op *p, data_chunk *out) {
    info_state *s = p->state;
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

static void info_close(plan_op *p) {
    info_state *s = p->state;
    if (s) vec_rows_free(&s->rows);
    free(s);
}

/* ---- operator dispatch -------------------------------------------------------------------- */

static bool is_breaker(const plan_op *p) {
    switch (p->kind) {
    case PLAN_AGG:
    case PLAN_SORT:
    case PLAN_DISTINCT:
    case PLAN_SETOP:
    case PLAN_INSERT:
    case PLAN_UPDATE:
    case PLAN_DELETE:
    case PLAN_COPY_TO: return true;
    default: return false;
    }
}

/* small_state gives p a zeroed state of n bytes: the one kept from the plan's last run, or new. */
static int small_state(exec_ctx *x, plan_op *p, size_t n) {
    if (p->state) memset(p->state, 0, n);
    else if (!(p->state = calloc(1, n))) return nomem(x);
    return STRATA_OK;
}

static int op_open(exec_ctx *x, plan_op *p) {
    int rc;
    if (p->kind == PLAN_RECURSIVE) return rec_open(x, p); /* its children run nested, per iteration */
    for (int i = 0; i < 2; i++)
        if (p->child[i] && !(i == 1 && p->kind == PLAN_INDEX_JOIN) && (rc = op_open(x, p->child[i]))) return rc;
    switch (p->kind) {
    case PLAN_CTE_SCAN: return small_state(x, p, sizeof(uint32_t));
    case PLAN_SCAN: return scan_open(x, p);
    case PLAN_INDEX_SCAN: return iscan_open(x, p);
    case PLAN_VALUES: return small_state(x, p, sizeof(values_state));
    case PLAN_SERIES: return small_state(x, p, sizeof(series_state));
    case PLAN_STORAGE_INFO: return info_open(x, p);
    case PLAN_LIMIT: return small_state(x, p, sizeof(limit_state));
    case PLAN_FILTER: return expr_prepare(p->filter.pred, x->err);
    case PLAN_PROJECT:
        for (uint32_t i = 0; i < p->ncols; i++)
            if ((rc = expr_prepare(p->project.exprs[i], x->err))) return rc;
        return STRATA_OK;
    case PLAN_AGG: return agg_open(x, p);
    case PLAN_SORT: {
        sort_state *s = calloc(1, sizeof *s);
        if (!s) return nomem(x);
        p->state = s;
        return rows_init(x, &s->rows, p->types, p->ncols);
    }
    case PLAN_DISTINCT:
    case PLAN_SETOP: return setop_open(x, p);
    case PLAN_HASH_JOIN:
    case PLAN_NL_JOIN: return join_open(x, p);
    case PLAN_INDEX_JOIN: return ijoin_open(x, p);
    case PLAN_INSERT:
    case PLAN_UPDATE:
    case PLAN_DELETE: return dml_open(x, p);
    case PLAN_EMPTY: return small_state(x, p, sizeof(int));
    case PLAN_FILE_SCAN: return copy_scan_open(x, p);
    case PLAN_COPY_TO: return copy_to_open(x, p);
    default: return err_set(x->err, STRATA_ERROR, "operator %d is not supported yet", p->kind);
    }
}

static void release_exprs(expr **list, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) expr_release(list[i]);
}

/* op_close frees the run-time states of p's tree (a run ends), except, with keep, the buffers of
** scans, which the next run of the plan reuses; the prepared expressions stay for the next run
** (op_release frees those). */
static void op_close(plan_op *p, bool keep) {
    if (!p) return;
    if (p->kind == PLAN_RECURSIVE) { /* its children ran nested and were closed there */
        rec_close(p, keep);
        p->state = NULL;
        return;
    }
    op_close(p->child[0], keep);
    op_close(p->child[1], keep);
    switch (p->kind) {
    case PLAN_SCAN: scan_close(p, keep); return;
    case PLAN_INDEX_SCAN: iscan_close(p, keep); return;
    case PLAN_AGG: agg_close(p); break;
    case PLAN_SORT:
        if (p->state) {
            sort_state *s = p->state;
            vec_rows_free(&s->rows);
            free(s->order);
            free(s);
        }
        break;
    case PLAN_DISTINCT:
    case PLAN_SETOP: setop_close(p); break;
    case PLAN_HASH_JOIN:
    case PLAN_NL_JOIN: join_close(p); break;
    case PLAN_INDEX_JOIN: ijoin_close(p); break;
    case PLAN_STORAGE_INFO: info_close(p); break;
    case PLAN_FILE_SCAN: copy_scan_close(p); return;
    case PLAN_COPY_TO: copy_to_close(p); return;
    case PLAN_INSERT:
    case PLAN_UPDATE:
    case PLAN_DELETE: dml_close(p, keep); return;
    case PLAN_CTE_SCAN:
    case PLAN_VALUES:
    case PLAN_SERIES:
    case PLAN_LIMIT:
    case PLAN_EMPTY:
        if (keep) return; /* small_state zeroes it at the next run */
        free(p->state);
        break;
    default: free(p->state); break;
    }
    p->state = NULL;
}

/* op_release frees the prepared expressions of p's tree (the plan is done with for good). */
static void op_release(plan_op *p) {
    if (!p) return;
    op_release(p->child[0]);
    op_release(p->child[1]);
    switch (p->kind) {
    case PLAN_SCAN:
        expr_release(p->scan.lo_expr);
        expr_release(p->scan.hi_expr);
        break;
    case PLAN_INDEX_SCAN:
        for (int k = 0; k < p->iscan.nlo; k++) expr_release(p->iscan.lo[k]);
        for (int k = 0; k < p->iscan.nhi; k++) expr_release(p->iscan.hi[k]);
        break;
    case PLAN_FILTER: expr_release(p->filter.pred); break;
    case PLAN_PROJECT: release_exprs(p->project.exprs, p->ncols); break;
    case PLAN_AGG:
        release_exprs(p->agg.keys, p->agg.nkeys);
        for (uint32_t a = 0; a < p->agg.naggs; a++) expr_release(p->agg.aggs[a].arg);
        break;
    case PLAN_HASH_JOIN:
    case PLAN_NL_JOIN:
    case PLAN_INDEX_JOIN:
        release_exprs(p->join.lkeys, p->join.nkeys);
        release_exprs(p->join.rkeys, p->join.nkeys);
        expr_release(p->join.pred);
        break;
    case PLAN_INSERT:
    case PLAN_UPDATE:
    case PLAN_DELETE:
        release_exprs(p->dml.returning, p->dml.nreturning);
        release_exprs(p->dml.conflict_values, p->dml.nconflict_set);
        expr_release(p->dml.conflict_where);
        break;
    case PLAN_VALUES:
        for (uint64_t i = 0; i < (uint64_t)p->values.nrows * p->ncols; i++) expr_release(p->values.cells[i]);
        break;
    case PLAN_SERIES:
        expr_release(p->series.start);
        expr_release(p->series.stop);
        expr_release(p->series.step);
        break;
    case PLAN_LIMIT:
        expr_release(p->limit.limit);
        expr_release(p->limit.offset);
        break;
    default: break;
    }
}

static uint64_t clock_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int source_next_op(exec_ctx *x, plan_op *p, data_chunk *out);

/* source_next asks source p for its next chunk (timed and counted for EXPLAIN ANALYZE). */
static int source_next(exec_ctx *x, plan_op *p, data_chunk *out) {
    if (!x->analyze) return source_next_op(x, p, out);
    uint64_t t0 = clock_ns();
    int rc = source_next_op(x, p, out);
    p->ns += clock_ns() - t0;
    p->rows_out += out->count;
    return rc;
}

static int source_next_op(exec_ctx *x, plan_op *p, data_chunk *out) {
    switch (p->kind) {
    case PLAN_SCAN: return scan_next(x, p, out);
    case PLAN_INDEX_SCAN: return iscan_next(x, p, out);
    case PLAN_VALUES: return values_next(x, p, out);
    case PLAN_SERIES: return series_next(x, p, out);
    case PLAN_STORAGE_INFO: return info_next(x, p, out);
    case PLAN_AGG: return agg_next(x, p, out);
    case PLAN_SORT: return sort_next(x, p, out);
    case PLAN_RECURSIVE: return rec_next(x, p, out);
    case PLAN_CTE_SCAN: return cte_scan_next(x, p, out);
    case PLAN_FILE_SCAN: return copy_scan_next(x, p, out);
    case PLAN_COPY_TO: out->count = 0; return STRATA_OK;
    case PLAN_DISTINCT:
    case PLAN_SETOP: return setop_next(x, p, out);
    case PLAN_INSERT:
    case PLAN_UPDATE:
    case PLAN_DELETE: return dml_next(x, p, out);
    case PLAN_EMPTY: {
        int *done = p->state;
        out->count = p->empty.one_row && !*done ? 1 : 0;
        *done = 1;
        return STRATA_OK;
    }
    default: return err_set(x->err, STRATA_MISUSE, "operator %d is not a source", p->kind);
    }
}

static int sink_chunk(exec_ctx *x, plan_op *p, data_chunk *in, int side) {
    switch (p->kind) {
    case PLAN_AGG: return agg_sink(x, p, in);
    case PLAN_SORT: {
        sort_state *s = p->state;
        if (in->sel) chunk_apply_sel(in);
        if (p->sort.limit >= 0) return topn_sink(x, p, s, in);
        return vec_rows_append(&s->rows, in, NULL, in->count, x->err);
    }
    case PLAN_DISTINCT:
    case PLAN_SETOP: return setop_sink(x, p, in, side);
    case PLAN_HASH_JOIN:
    case PLAN_NL_JOIN: return join_sink(x, p, in);
    case PLAN_COPY_TO: return copy_to_sink(x, p, in);
    case PLAN_INSERT:
    case PLAN_UPDATE:
    case PLAN_DELETE: {
        dml_state *s = p->state;
        if (s->hold) {
            if (in->sel) chunk_apply_sel(in);
            return vec_rows_append(&s->pending, in, NULL, in->count, x->err);
        }
        return dml_apply(x, p, in);
    }
    default: return err_set(x->err, STRATA_MISUSE, "operator %d is not a sink", p->kind);
    }
}

static int sink_finalize(exec_ctx *x, plan_op *p) {
    switch (p->kind) {
    case PLAN_INSERT:
    case PLAN_UPDATE:
    case PLAN_DELETE: {
        dml_state *s = p->state;
        for (uint32_t i = 0; i < s->pending.nchunks; i++) {
            int rc = dml_apply(x, p, s->pending.chunks[i]);
            if (rc) return rc;
        }
        return p->kind == PLAN_INSERT ? bulk_finish(x, p, s) : STRATA_OK;
    }
    case PLAN_AGG: return agg_finalize(x, p);
    case PLAN_SORT: return sort_finalize(x, p);
    case PLAN_COPY_TO: return copy_to_finish(x, p);
    case PLAN_HASH_JOIN:
    case PLAN_NL_JOIN: return join_finalize(x, p);
    default: return STRATA_OK;
    }
}

/* ---- pipelines ---------------------------------------------------------------------------- */

#define MAX_PIPE_OPS 64

typedef struct pipeline {
    plan_op *source;
    plan_op *ops[MAX_PIPE_OPS];
    int nops;
    plan_op *sink; /* NULL: the result */
    int side;      /* which input of a set operation */
    data_chunk bufs[MAX_PIPE_OPS + 1];
    bool ready;    /* bufs initialized */
    bool more[MAX_PIPE_OPS];
    bool source_done, finished, flushing;
    int flush_op;  /* next op to flush */
} pipeline;

typedef struct exec_plan {
    int n, cap;
    pipeline **pipes; /* in dependency order; the last is the result pipeline */
} exec_plan;

static int pipe_add(exec_ctx *x, exec_plan *ep, pipeline **out) {
    if (ep->n == ep->cap) {
        int nc = ep->cap ? ep->cap * 2 : 8;
        pipeline **n = realloc(ep->pipes, (size_t)nc * sizeof *n);
        if (!n) return nomem(x);
        ep->pipes = n;
        ep->cap = nc;
    }
    pipeline *pl = calloc(1, sizeof *pl);
    if (!pl) return nomem(x);
    ep->pipes[ep->n++] = pl;
    *out = pl;
    return STRATA_OK;
}

/* build walks down from p (the top of a pipeline's operator chain, collected top-down in
** chain[0..n)) to its source, creating the pipelines it depends on first. */
static int build(exec_ctx *x, exec_plan *ep, plan_op *p, plan_op **chain, int n, plan_op *sink, int side) {
    int rc;
    if (n >= MAX_PIPE_OPS) return err_set(x->err, STRATA_ERROR, "query too complex (pipeline of more than %d operators)", MAX_PIPE_OPS);
    switch (p->kind) {
    case PLAN_FILTER:
    case PLAN_PROJECT:
    case PLAN_LIMIT:
    case PLAN_INDEX_JOIN:
        chain[n] = p;
        return build(x, ep, p->child[0], chain, n + 1, sink, side);
    case PLAN_HASH_JOIN:
    case PLAN_NL_JOIN: {
        plan_op *sub[MAX_PIPE_OPS];
        if ((rc = build(x, ep, p->child[1], sub, 0, p, 1))) return rc;
        chain[n] = p;
        return build(x, ep, p->child[0], chain, n + 1, sink, side);
    }
    case PLAN_SETOP: {
        plan_op *sub[MAX_PIPE_OPS];
        if ((rc = build(x, ep, p->child[0], sub, 0, p, 0)) || (rc = build(x, ep, p->child[1], sub, 0, p, 1))) return rc;
        break;
    }
    default:
        if (is_breaker(p)) {
            plan_op *sub[MAX_PIPE_OPS];
            if ((rc = build(x, ep, p->child[0], sub, 0, p, 0))) return rc;
        }
        break;
    }
    pipeline *pl = NULL;
    if ((rc = pipe_add(x, ep, &pl))) return rc;
    pl->source = p;
    pl->nops = n;
    for (int i = 0; i < n; i++) pl->ops[i] = chain[n - 1 - i];
    pl->sink = sink;
    pl->side = side;
    /* chunk buffers: bufs[0] has the source's types, bufs[i + 1] ops[i]'s */
    for (int i = 0; i <= n; i++) {
        plan_op *o = i ? pl->ops[i - 1] : p;
        if ((rc = chunk_init(&pl->bufs[i], o->types, o->ncols, x->err))) {
            for (int k = 0; k < i; k++) chunk_free(&pl->bufs[k]);
            return rc;
        }
    }
    pl->ready = true;
    return STRATA_OK;
}

static int op_execute_op(exec_ctx *x, plan_op *p, data_chunk *in, data_chunk *out, bool *more, bool *finished);

static int op_execute(exec_ctx *x, plan_op *p, data_chunk *in, data_chunk *out, bool *more, bool *finished) {
    if (!x->analyze) return op_execute_op(x, p, in, out, more, finished);
    uint64_t t0 = clock_ns();
    int rc = op_execute_op(x, p, in, out, more, finished);
    p->ns += clock_ns() - t0;
    p->rows_out += out->count;
    return rc;
}

static int op_execute_op(exec_ctx *x, plan_op *p, data_chunk *in, data_chunk *out, bool *more, bool *finished) {
    *more = false;
    switch (p->kind) {
    case PLAN_FILTER: return filter_exec(x, p, in, out);
    case PLAN_PROJECT: return project_exec(x, p, in, out);
    case PLAN_LIMIT: return limit_exec(x, p, in, out, finished);
    case PLAN_HASH_JOIN:
    case PLAN_NL_JOIN: return join_exec(x, p, in, out, more);
    case PLAN_INDEX_JOIN: return ijoin_exec(x, p, in, out, more);
    default: return err_set(x->err, STRATA_MISUSE, "operator %d does not stream", p->kind);
    }
}

/* run_from runs ops[start..nops) on bufs[start]; *result is the last output, or NULL when an
** operator produced nothing this time. */
static int run_from(exec_ctx *x, pipeline *pl, int start, data_chunk **result) {
    bool finished = false;
    *result = NULL;
    for (int i = start; i < pl->nops; i++) {
        data_chunk *out = &pl->bufs[i + 1];
        chunk_reset(out);
        int rc = op_execute(x, pl->ops[i], &pl->bufs[i], out, &pl->more[i], &finished);
        if (rc) return rc;
        if (finished) pl->finished = true;
        if (out->count == 0) return STRATA_OK;
    }
    *result = &pl->bufs[pl->nops];
    return STRATA_OK;
}

#define PROGRESS_NS 100000000u /* 100 ms between calls of a progress handler */

/* progress_tick calls the progress handler when it is due. */
static int progress_tick(exec_ctx *x) {
    uint64_t now = clock_ns();
    if (now < x->progress_due) return STRATA_OK;
    x->progress_due = now + PROGRESS_NS;
    if (x->progress(x->progress_arg, x->progress_done, x->progress_total, x->progress_unit ? x->progress_unit : "rows"))
        return err_set(x->err, STRATA_INTERRUPT, "interrupted");
    return STRATA_OK;
}

/* pipe_step produces the next chunk at the end of pl's operator chain (*result NULL or empty
** while more may come; pl->finished when nothing more will). Operators that have more output
** for their current input go first (the deepest one), then new input from the source, and once
** the source is done, rows that operators held back (an outer join's unmatched build rows) flow
** through the operators after them. */
static int pipe_step(exec_ctx *x, pipeline *pl, data_chunk **result) {
    int rc;
    *result = NULL;
    if (x->interrupt && __atomic_load_n(x->interrupt, __ATOMIC_RELAXED))
        return err_set(x->err, STRATA_INTERRUPT, "interrupted");
    if (x->progress && (rc = progress_tick(x))) return rc;
    for (int i = pl->nops - 1; i >= 0; i--)
        if (pl->more[i]) return run_from(x, pl, i, result);
    if (!pl->source_done) {
        data_chunk *src = &pl->bufs[0];
        chunk_reset(src);
        if ((rc = source_next(x, pl->source, src))) return rc;
        if (src->count) return run_from(x, pl, 0, result);
        pl->source_done = true;
    }
    while (pl->flush_op < pl->nops) {
        plan_op *o = pl->ops[pl->flush_op];
        if (o->kind != PLAN_HASH_JOIN && o->kind != PLAN_NL_JOIN) {
            pl->flush_op++;
            continue;
        }
        int f = pl->flush_op;
        data_chunk *out = &pl->bufs[f + 1];
        bool more;
        chunk_reset(out);
        if ((rc = join_flush(o, out, &more))) return rc;
        if (x->analyze) o->rows_out += out->count; /* the rows a join outputs at its end count too */
        if (!more) pl->flush_op++;
        if (out->count) {
            if (f + 1 == pl->nops) {
                *result = out;
                return STRATA_OK;
            }
            return run_from(x, pl, f + 1, result);
        }
    }
    pl->finished = true;
    return STRATA_OK;
}

static int pipe_run(exec_ctx *x, pipeline *pl) {
    while (!pl->finished) {
        data_chunk *out;
        int rc = pipe_step(x, pl, &out);
        if (rc) return rc;
        if (!out || !out->count) continue;
        uint64_t t0 = x->analyze ? clock_ns() : 0;
        if ((rc = sink_chunk(x, pl->sink, out, pl->side))) return rc;
        if (x->analyze) pl->sink->ns += clock_ns() - t0;
    }
    return STRATA_OK;
}

static void pipelines_free(void *pipes) {
    exec_plan *ep = pipes;
    if (!ep) return;
    for (int i = 0; i < ep->n; i++) {
        if (ep->pipes[i]->ready)
            for (int k = 0; k <= ep->pipes[i]->nops; k++) chunk_free(&ep->pipes[i]->bufs[k]);
        free(ep->pipes[i]);
    }
    free(ep->pipes);
    free(ep);
}

/* pipelines_rewind makes pipelines of an earlier run of the plan ready to run again. */
static void pipelines_rewind(exec_plan *ep) {
    for (int i = 0; i < ep->n; i++) {
        pipeline *pl = ep->pipes[i];
        memset(pl->more, 0, sizeof pl->more);
        pl->source_done = pl->finished = pl->flushing = false;
        pl->flush_op = 0;
        for (int k = 0; k <= pl->nops; k++) chunk_reset(&pl->bufs[k]);
    }
}

int exec_open(exec_ctx *x, plan_op *root) {
    int rc = op_open(x, root);
    if (rc) return rc;
    if (x->pipelines) { /* the plan ran before: its pipelines are there */
        pipelines_rewind(x->pipelines);
        return STRATA_OK;
    }
    exec_plan *ep = calloc(1, sizeof *ep);
    if (!ep) return nomem(x);
    plan_op *chain[MAX_PIPE_OPS];
    rc = build(x, ep, root, chain, 0, NULL, 0);
    if (rc) {
        pipelines_free(ep);
        return rc;
    }
    x->pipelines = ep;
    return STRATA_OK;
}

int exec_next(exec_ctx *x, plan_op *root, data_chunk *out) {
    (void)root;
    exec_plan *ep = x->pipelines;
    out->count = 0;
    int rc;
    for (int i = 0; i < ep->n - 1; i++) {
        pipeline *pl = ep->pipes[i];
        if (pl->finished) continue;
        if ((rc = pipe_run(x, pl))) return rc;
        /* the sink is complete once every pipeline feeding it is done */
        bool last_feeder = true;
        for (int k = i + 1; k < ep->n; k++)
            if (ep->pipes[k]->sink == pl->sink && !ep->pipes[k]->finished) last_feeder = false;
        uint64_t t0 = x->analyze ? clock_ns() : 0;
        if (last_feeder && (rc = sink_finalize(x, pl->sink))) return rc;
        if (x->analyze) pl->sink->ns += clock_ns() - t0;
    }
    pipeline *pl = ep->pipes[ep->n - 1];
    while (!pl->finished) {
        data_chunk *res;
        if ((rc = pipe_step(x, pl, &res))) return rc;
        if (res && res->count) {
            if (res->sel) chunk_apply_sel(res);
            for (uint32_t c = 0; c < out->ncols; c++) vec_reference(&out->cols[c], &res->cols[c]);
            out->count = res->count;
            return STRATA_OK;
        }
    }
    return STRATA_OK;
}

void exec_close(exec_ctx *x, plan_op *root) {
    (void)x;
    op_close(root, true);
}

void exec_destroy(plan_op *root, void **pipelines) {
    if (!root) return;
    op_close(root, false);
    op_release(root);
    pipelines_free(*pipelines);
    *pipelines = NULL;
}

/* What a subquery keeps between evaluations: the chunk its plan writes into, and for an
** uncorrelated one its result (a value, or for IN the set of values). */
typedef struct sub_state {
    void *pipelines;  /* of e->sub.plan, kept between runs */
    plan_op *plan;
    uint64_t run;     /* uncorrelated: the statement run its result belongs to */
    data_chunk out;
    bool ready;     /* out initialized */
    bool computed;  /* uncorrelated: result known */
    sql_value value;
    vec_groups set; /* IN: the distinct values */
    bool set_ready, set_has_null;
    arena mem;       /* strings of value and of vals */
    sql_value *vals; /* SUB_ANY, SUB_ALL: every value the subquery returned */
    uint32_t nvals, cap_vals;
    uint32_t gid[VECTOR_SIZE];
    uint64_t hashes[VECTOR_SIZE];
} sub_state;

void exec_subquery_release(expr *e) {
    sub_state *s = e->aux;
    if (!s) return;
    exec_destroy(s->plan, &s->pipelines);
    if (s->ready) chunk_free(&s->out);
    if (s->set_ready) vec_groups_free(&s->set);
    arena_free(&s->mem);
    free(s->vals);
    free(s);
    e->aux = NULL;
}

/* sub_run runs e's plan once with the given outer values: for SUB_SCALAR *value gets the single
** row's value (NULL when none; more than one is an error); for SUB_EXISTS whether any row came;
** for SUB_IN the rows go into s->set. */
static int sub_run(exec_ctx *x, expr *e, sub_state *s, sql_value *outer, sql_value *value) {
    if (x->depth > 64) return expr_error(x, e, STRATA_ERROR, "subqueries nested too deeply");
    exec_ctx sub = *x;
    sub.pipelines = s->pipelines;
    sub.outer = outer;
    sub.nouter = e->sub.nouter;
    sub.depth = x->depth + 1;
    plan_op *p = e->sub.plan;
    s->plan = p;
    int rc = exec_open(&sub, p);
    s->pipelines = sub.pipelines;
    uint64_t rows = 0;
    *value = value_null(e->type);
    if (e->sub.kind == SUB_IN && !s->set_ready && !rc) {
        if (!(rc = groups_init(x, &s->set, p->types, 1))) s->set_ready = true;
    }
    while (!rc) {
        chunk_reset(&s->out);
        if ((rc = exec_next(&sub, p, &s->out)) || !s->out.count) break;
        if (s->out.sel) chunk_apply_sel(&s->out);
        if (e->sub.kind == SUB_EXISTS) {
            rows = 1;
            break; /* one row decides */
        }
        if (e->sub.kind == SUB_ANY || e->sub.kind == SUB_ALL) {
            for (uint32_t r = 0; r < s->out.count && !rc; r++) {
                if (s->nvals == s->cap_vals) {
                    uint32_t nc = s->cap_vals ? 2 * s->cap_vals : 64;
                    sql_value *nv = realloc(s->vals, nc * sizeof *nv);
                    if (!nv) {
                        rc = nomem(x);
                        break;
                    }
                    s->vals = nv, s->cap_vals = nc;
                }
                sql_value *v = &s->vals[s->nvals++];
                vec_get_value(&s->out.cols[0], r, v);
                if (!v->is_null && (v->type.id == TYPE_VARCHAR || v->type.id == TYPE_BLOB)) {
                    sstr cp;
                    if ((rc = sstr_copy(&s->mem, sstr_data(&v->v.s), v->v.s.len, &cp, x->err))) break;
                    v->v.s = cp;
                }
            }
            continue;
        }
        if (e->sub.kind == SUB_IN) {
            vector *col = &s->out.cols[0];
            if ((rc = vec_groups_find_or_add(&s->set, &col, s->out.count, s->gid, NULL, s->hashes, x->err))) break;
            for (uint32_t r = 0; r < s->out.count; r++) s->set_has_null |= vec_is_null(col, r);
            continue;
        }
        rows += s->out.count;
        if (rows > 1) {
            rc = expr_error(x, e, STRATA_ERROR, "more than one row returned by a subquery used as an expression");
            break;
        }
        vec_get_value(&s->out.cols[0], 0, value);
        if (!value->is_null && (value->type.id == TYPE_VARCHAR || value->type.id == TYPE_BLOB)) {
            sstr cp;
            if ((rc = sstr_copy(&s->mem, sstr_data(&value->v.s), value->v.s.len, &cp, x->err))) break;
            value->v.s = cp;
        }
    }
    exec_close(&sub, p);
    if (!rc && e->sub.kind == SUB_EXISTS) *value = value_bool(rows > 0);
    return rc;
}

/* quantified_result: x cmp ANY|ALL (the values) with SQL's NULL rules: ANY is true when some
** comparison is true, else NULL when some is NULL, else false (so false for no values); ALL is
** false when some comparison is false, else NULL when some is NULL, else true. */
static void quantified_result(sub_state *s, expr *e, uint32_t r, vector *out) {
    sql_value a;
    vec_get_value(e->args[0]->result, r, &a);
    bool any_null = false, decided = false, is_all = e->sub.kind == SUB_ALL;
    for (uint32_t i = 0; i < s->nvals && !decided; i++) {
        if (a.is_null || s->vals[i].is_null) {
            any_null = true;
            continue;
        }
        int c = value_compare(&a, &s->vals[i]);
        bool holds;
        switch (e->sub.cmp) {
        case CMP_EQ: holds = c == 0; break;
        case CMP_NE: holds = c != 0; break;
        case CMP_LT: holds = c < 0; break;
        case CMP_LE: holds = c <= 0; break;
        case CMP_GT: holds = c > 0; break;
        default: holds = c >= 0; break;
        }
        if (holds != is_all) decided = true;
    }
    if (decided) ((uint8_t *)out->data)[r] = !is_all;
    else if (any_null) vec_set_null(out, r, 1);
    else ((uint8_t *)out->data)[r] = is_all;
}

/* in_result: x IN (the set) with SQL's NULL rules. */
static void in_result(sub_state *s, expr *e, uint32_t r, vector *out) {
    vector *arg = e->args[0]->result;
    if (vec_is_null(arg, r)) { /* NULL IN (nothing) is false; NULL IN (anything) is NULL */
        if (s->set.ngroups == 0) ((uint8_t *)out->data)[r] = e->negated;
        else vec_set_null(out, r, 1);
        return;
    }
    uint64_t h;
    vector one = *arg;
    sel_t idx = arg->sel[r];
    one.sel = &idx;
    one.kind = VEC_DICTIONARY; /* read through sel, not as the flat vector it may be */
    /* look the value up without adding it: a probe of one row */
    vec_hash(&one, NULL, 1, &h);
    vector *cols[1] = {&one};
    if (vec_groups_find(&s->set, cols, 0, h) != UINT32_MAX) ((uint8_t *)out->data)[r] = !e->negated;
    else if (s->set_has_null) vec_set_null(out, r, 1);
    else ((uint8_t *)out->data)[r] = e->negated;
}

int exec_subquery(exec_ctx *x, expr *e, data_chunk *in, uint32_t count) {
    sub_state *s = e->aux;
    if (!s) {
        if (!(s = calloc(1, sizeof *s))) return nomem(x);
        arena_init(&s->mem, 0);
        e->aux = s;
    }
    if (!s->ready) {
        int rc = chunk_init(&s->out, e->sub.plan->types, e->sub.plan->ncols, x->err);
        if (rc) return rc;
        s->ready = true;
    }
    vector *out = e->result;
    int rc;
    if (!e->sub.correlated) {
        if (!s->computed || s->run != x->run) { /* once per run of the statement */
            if (s->set_ready) {
                vec_groups_free(&s->set);
                s->set_ready = s->set_has_null = false;
            }
            arena_reset(&s->mem);
            s->nvals = 0;
            if ((rc = sub_run(x, e, s, NULL, &s->value))) return rc;
            s->computed = true;
            s->run = x->run;
        }
        if (e->sub.kind == SUB_ANY || e->sub.kind == SUB_ALL) {
            for (uint32_t r = 0; r < count; r++) quantified_result(s, e, r, out);
            return STRATA_OK;
        }
        if (e->sub.kind != SUB_IN) {
            vec_reset(out);
            if ((rc = vec_set_value(out, 0, &s->value, x->err))) return rc;
            vec_make_constant(out);
            return STRATA_OK;
        }
        for (uint32_t r = 0; r < count; r++) in_result(s, e, r, out);
        return STRATA_OK;
    }
    sql_value outer[e->sub.nouter ? e->sub.nouter : 1];
    for (uint32_t r = 0; r < count; r++) {
        for (uint32_t k = 0; k < e->sub.nouter; k++) vec_get_value(&in->cols[e->sub.outer[k]], r, &outer[k]);
        sql_value v;
        if (e->sub.kind == SUB_IN && s->set_ready) { /* a fresh set per row */
            vec_groups_free(&s->set);
            s->set_ready = false;
            s->set_has_null = false;
        }
        arena_reset(&s->mem);
        s->nvals = 0;
        if ((rc = sub_run(x, e, s, outer, &v))) return rc;
        if (e->sub.kind == SUB_ANY || e->sub.kind == SUB_ALL) quantified_result(s, e, r, out);
        else if (e->sub.kind == SUB_IN) in_result(s, e, r, out);
        else if ((rc = vec_set_value(out, r, &v, x->err))) return rc;
    }
    return STRATA_OK;
}
