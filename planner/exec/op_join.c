/*
** op_join.c -- the joins (operator.h): the hash join (the sink of its build side, child 1, and a
** streaming operator of its probe side, child 0, with the join filters it fills for the probe
** side's scans), the nested-loop join (a hash join without keys), and the index join, which looks
** each probe row's key up in the right table's index or rowids instead of reading that table.
*/
#include "exec/operator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- hash and nested-loop joins ---------------------------------------------------------- */


/* The states of a join's expressions (its node's ex, join_exprs' order): the probe keys, the
** build keys, the residual. */
static inline expr_state *lkey(expr_state **ex, uint32_t k) { return ex[k]; }
static inline expr_state *rkey(const plan_op *p, expr_state **ex, uint32_t k) { return ex[p->join.nkeys + k]; }
static inline expr_state *residual(const plan_op *p, expr_state **ex) { return ex[2 * p->join.nkeys]; }

/* marks_build: the kinds of join that mark the build rows matched, for the end (join_flush). */
static inline bool marks_build(join_kind k) { return k == JK_RIGHT || k == JK_FULL || k == JK_RSEMI || k == JK_RANTI; }

/* The build side: the run's node's, which its workers' nodes read once it is complete; they
** write only bmatched, a byte per build row that RIGHT/FULL/RIGHT_SEMI/RIGHT_ANTI joins set to 1
** when a probe row matches it, with relaxed atomic stores (mark_build; any number of workers may
** set one byte, none clears it), read at the end (join_flush, once every worker is done). A build
** side sunk by several workers is made of theirs (join_combine). */
typedef struct join_build {
    vec_rowtable build; /* build rows: the columns the plan keeps (join.keep), in their order */
    uint32_t ncols;    /* the build side's columns */
    uint32_t *slot;    /* by build column: its column of the build rows, UINT32_MAX: not kept */
    bool *bnull;       /* by build column: every value a constant NULL (a column no one reads) */
    vec_join_table table; /* their keys */
    uint8_t *bmatched;   /* RIGHT/FULL/RIGHT_SEMI/RIGHT_ANTI: build row matched */
    uint64_t nbuild;
    bool build_null;     /* null_aware: some build key is NULL */
    bool complete;       /* finalized: the probe side may read it */
} join_build;

/* A worker's share of a build side sunk by several workers: besides its rows (its node's
** build), their keys and, by partition of the keys' hash, the numbers of its rows in the
** partition; join_combine builds the run's table from them, a partition on each worker. Owned by
** the worker's node; charged to the query's memory through keys. */
#define JOIN_PARTS 64
typedef struct join_collect {
    vec_rows keys;              /* row r's keys: row r of the collection */
    uint32_t *rows[JOIN_PARTS]; /* partition k's rows, ascending */
    uint32_t n[JOIN_PARTS], cap[JOIN_PARTS];
} join_collect;

typedef struct join_state {
    expr_state **ex;     /* the node's expression states */
    join_build *b;       /* &own, or a worker's probing: the run's node's */
    join_build own;
    join_collect *collect; /* a worker's node sinking build rows (join_open_local), else NULL */
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
static inline void mark_build(join_build *b, uint32_t row) { __atomic_store_n(&b->bmatched[row], 1, __ATOMIC_RELAXED); }
static inline bool build_marked(const join_build *b, uint32_t row) {
    return __atomic_load_n(&b->bmatched[row], __ATOMIC_RELAXED);
}

/* join_filter_fill fills filter f of key k from the join's complete build side: for one integer
** key its range and, when the range is narrow enough (operator.h), an exact bitmap of
** the keys, which a scan tests without hashing and, when its keys come in order, in order; else a
** Bloom filter of the key's hashes (those of the distinct keys, each column alone when there are
** several). */
static int join_filter_fill(exec_ctx *x, const plan_op *p, join_state *s, uint32_t k, join_filter *f) {
    const vec_groups *g = &s->b->table.groups;
    f->ranged = p->join.nkeys == 1 && vec_groups_range(g, &f->min, &f->max);
    uint64_t span = f->ranged ? (uint64_t)f->max - (uint64_t)f->min + 1 : 0;
    if (span && span <= JOIN_BITMAP_MAX && (span <= JOIN_BITMAP_SMALL || span / JOIN_BITMAP_KEY_BITS <= g->ngroups)) {
        size_t words = (size_t)(span + 63) / 64;
        int rc = vec_rowtable_charge(&s->b->build, words * sizeof *f->bitmap, x->err);
        if (rc) return rc;
        if (!(f->bitmap = calloc(words, sizeof *f->bitmap))) return exec_nomem(x);
        for (uint32_t i = 0; i < g->ngroups; i++) {
            if (i == g->null_gid) continue;
            uint64_t b = (uint64_t)g->ikeys[i] - (uint64_t)f->min;
            f->bitmap[b / 64] |= UINT64_C(1) << (b % 64);
        }
        f->ready = true;
        return STRATA_OK;
    }
    uint32_t bits = 3; /* at least 8 words */
    while (bits < 24 && (UINT64_C(1) << bits) * 4 < g->ngroups) bits++;
    if ((UINT64_C(1) << bits) * 4 >= g->ngroups) {
        size_t bytes = ((size_t)1 << bits) * sizeof *f->bloom;
        int rc = vec_rowtable_charge(&s->b->build, bytes, x->err);
        if (rc) return rc;
        if (!(f->bloom = calloc((size_t)1 << bits, sizeof *f->bloom))) return exec_nomem(x);
        f->bloom_mask = (UINT64_C(1) << bits) - 1, f->bloom_shift = 64 - bits;
        for (uint64_t row = 0; row < g->ngroups; row += VECTOR_SIZE) {
            const data_chunk *ch = vec_rows_chunk(&g->keys, row);
            vec_hash(&ch->cols[k], NULL, ch->count, s->phash);
            for (uint32_t r = 0; r < ch->count; r++)
                f->bloom[s->phash[r] >> f->bloom_shift] |= bloom_bits(s->phash[r]);
        }
    }
    f->ready = true;
    return STRATA_OK;
}

static void join_filter_clear(join_filter *f) {
    if (!f) return;
    free(f->bloom);
    free(f->bitmap);
    memset(f, 0, sizeof *f);
}

static int join_probe_init(exec_ctx *x, op_node *nd, join_state *s);

/* key_types writes the types of p's build keys to kt. */
static void key_types(const plan_op *p, sql_type *kt) {
    for (uint32_t k = 0; k < p->join.nkeys; k++) kt[k] = p->join.rkeys[k]->type;
}

/* build_init makes s's own build side empty: its rows, and its table (the run's node) or its
** collection of keys (a worker's node sinking build rows). */
static int build_init(exec_ctx *x, const plan_op *p, join_state *s, bool worker) {
    plan_op *r = p->child[1];
    s->b = &s->own;
    /* the build rows keep the columns read above the join or by its residual (a semi or anti
    ** join without a residual reads none: it only counts the rows) */
    bool no_columns = (p->join.kind == JK_SEMI || p->join.kind == JK_ANTI) && !p->join.pred;
    if (!(s->b->slot = malloc((r->ncols + 1) * sizeof *s->b->slot))) return exec_nomem(x);
    sql_type kept[r->ncols + 1];
    uint32_t nkept = 0;
    for (uint32_t c = 0; c < r->ncols; c++) {
        bool keep = p->join.keep ? p->join.keep[c] : !no_columns;
        s->b->slot[c] = keep ? nkept : UINT32_MAX;
        if (keep) kept[nkept++] = r->types[c];
    }
    s->b->ncols = r->ncols;
    int rc = vec_rowtable_init(&s->b->build, kept, nkept, x->budget, x->err);
    if (rc) return rc;
    sql_type kt[p->join.nkeys + 1];
    key_types(p, kt);
    if (!worker) rc = exec_join_table_init(x, &s->b->table, kt, p->join.nkeys);
    else if (!(s->collect = calloc(1, sizeof *s->collect))) rc = exec_nomem(x);
    else rc = exec_rows_init(x, &s->collect->keys, kt, p->join.nkeys);
    if (rc) return rc;
    if (!(s->b->bnull = malloc(r->ncols + 1))) return exec_nomem(x);
    memset(s->b->bnull, 1, r->ncols + 1);
    return STRATA_OK;
}

static int join_open(exec_ctx *x, op_node *nd) {
    join_state *s = calloc(1, sizeof *s);
    if (!s) return exec_nomem(x);
    nd->state = s;
    int rc = build_init(x, nd->op, s, false);
    return rc ? rc : join_probe_init(x, nd, s);
}

/* join_probe_init makes the scratch of probing (of the run's node, or a worker's). */
static int join_probe_init(exec_ctx *x, op_node *nd, join_state *s) {
    const plan_op *p = nd->op, *l = p->child[0], *r = p->child[1];
    s->ex = nd->ex;
    /* pairs hold both sides' columns, also for SEMI and ANTI, which output the left ones only */
    sql_type both[l->ncols + r->ncols + 1];
    memcpy(both, l->types, l->ncols * sizeof *both);
    memcpy(both + l->ncols, r->types, r->ncols * sizeof *both);
    int rc = chunk_init(&s->pairs, both, l->ncols + r->ncols, x->err);
    if (rc) return rc;
    s->phash = malloc(VECTOR_SIZE * sizeof *s->phash);
    s->heads = malloc(VECTOR_SIZE * sizeof *s->heads);
    s->pmatched = malloc(VECTOR_SIZE);
    s->prow = malloc(VECTOR_SIZE * sizeof *s->prow);
    s->brow = malloc(VECTOR_SIZE * sizeof *s->brow);
    s->sel = malloc(VECTOR_SIZE * sizeof *s->sel);
    if (!s->phash || !s->heads || !s->pmatched || !s->prow || !s->brow || !s->sel) return exec_nomem(x);
    s->phase = 2;
    return STRATA_OK;
}

static void join_close(op_node *nd, bool keep) {
    (void)keep;
    const plan_op *p = nd->op;
    join_state *s = nd->state;
    if (!s) return;
    nd->state = NULL;
    if (s->b == &s->own) { /* the run's node, or a worker's sinking build rows */
        for (uint32_t k = 0; !s->collect && p->kind == PLAN_HASH_JOIN && p->join.filters && k < p->join.nkeys; k++)
            join_filter_clear(p->join.filters[k]);
        vec_rowtable_free(&s->own.build);
        vec_join_free(&s->own.table);
        free(s->own.bmatched);
        free(s->own.bnull);
        free(s->own.slot);
    }
    if (s->collect) {
        vec_rows_free(&s->collect->keys);
        for (int k = 0; k < JOIN_PARTS; k++) free(s->collect->rows[k]);
        free(s->collect);
    }
    chunk_free(&s->pairs);
    free(s->phash);
    free(s->heads);
    free(s->pmatched);
    free(s->prow);
    free(s->brow);
    free(s->sel);
    free(s);
}

/* collect_keys keeps the keys of the count build rows from row `first` on in a worker's
** collection c, and each row's number in the list of its keys' partition. */
static int collect_keys(exec_ctx *x, join_collect *c, vector *const *keys, uint32_t nkeys, uint32_t count, uint64_t first) {
    vector view[nkeys];
    for (uint32_t k = 0; k < nkeys; k++) view[k] = *keys[k];
    data_chunk kc = {.ncols = nkeys, .count = count, .cols = view};
    int rc = vec_rows_append(&c->keys, &kc, NULL, count, x->err);
    if (rc) return rc;
    uint64_t h[VECTOR_SIZE];
    uint32_t add[JOIN_PARTS] = {0};
    vec_hash(keys[0], NULL, count, h);
    for (uint32_t k = 1; k < nkeys; k++) vec_hash_combine(keys[k], NULL, count, h);
    for (uint32_t r = 0; r < count; r++) add[h[r] % JOIN_PARTS]++;
    for (int k = 0; k < JOIN_PARTS; k++) {
        if (c->n[k] + add[k] <= c->cap[k]) continue;
        uint32_t cap = c->cap[k] ? c->cap[k] : 256;
        while (cap < c->n[k] + add[k]) cap *= 2;
        uint32_t *rows = realloc(c->rows[k], (size_t)cap * sizeof *rows);
        if (!rows) return exec_nomem(x);
        c->rows[k] = rows;
        if ((rc = vec_rows_charge(&c->keys, (size_t)(cap - c->cap[k]) * sizeof *rows, x->err))) return rc;
        c->cap[k] = cap;
    }
    for (uint32_t r = 0; r < count; r++) {
        uint32_t k = h[r] % JOIN_PARTS;
        c->rows[k][c->n[k]++] = (uint32_t)(first + r);
    }
    return STRATA_OK;
}

static int join_sink(exec_ctx *x, op_node *nd, data_chunk *in, int side) {
    (void)side; /* the build side, child 1 */
    const plan_op *p = nd->op;
    join_state *s = nd->state;
    if (in->sel) chunk_apply_sel(in);
    uint64_t first = s->b->build.rows;
    vector kept[s->b->build.ncols + 1];
    for (uint32_t c = 0; c < in->ncols; c++)
        if (s->b->slot[c] != UINT32_MAX) kept[s->b->slot[c]] = in->cols[c];
    data_chunk rows = {.ncols = s->b->build.ncols, .count = in->count, .cols = kept};
    int rc = vec_rowtable_append(&s->b->build, &rows, x->err);
    for (uint32_t c = 0; c < in->ncols; c++)
        if (in->cols[c].kind != VEC_CONSTANT || !vec_is_null(&in->cols[c], 0)) s->b->bnull[c] = false;
    if (rc || !p->join.nkeys) return rc;
    vector *keys[p->join.nkeys];
    for (uint32_t k = 0; k < p->join.nkeys; k++) {
        if ((rc = expr_eval(x, rkey(p, s->ex, k), in, in->count))) return rc;
        keys[k] = rkey(p, s->ex, k)->result;
    }
    for (uint32_t r = 0; p->join.null_aware && !s->b->build_null && r < in->count; r++) s->b->build_null = vec_is_null(keys[0], r);
    if (s->collect) return collect_keys(x, s->collect, keys, p->join.nkeys, in->count, first);
    return vec_join_add(&s->b->table, keys, in->count, x->err);
}

static int join_finalize(exec_ctx *x, op_node *nd) {
    const plan_op *p = nd->op;
    join_state *s = nd->state;
    uint64_t n = s->b->build.rows;
    s->b->nbuild = n;
    if (n > UINT32_MAX - 1) return err_set(x->err, STRATA_TOOBIG, "join build side too large");
    for (uint32_t k = 0; p->join.filters && k < p->join.nkeys; k++) {
        if (!p->join.filters[k]) continue;
        join_filter_clear(p->join.filters[k]);
        int rc = join_filter_fill(x, p, s, k, p->join.filters[k]);
        if (rc) return rc;
    }
    s->b->bmatched = calloc(n + 1, 1);
    s->b->complete = true;
    return s->b->bmatched ? STRATA_OK : exec_nomem(x);
}

/* build_columns writes the columns of build rows s->brow[0..n) to cols[0..ncols) (constant NULLs
** for a column no one reads). */
static void build_columns(join_state *s, uint32_t n, vector *cols) {
    const uint8_t *rows[VECTOR_SIZE];
    vec_rowtable_locate(&s->b->build, s->brow, n, rows);
    for (uint32_t c = 0; c < s->b->ncols; c++) {
        uint32_t k = s->b->slot[c];
        if (k == UINT32_MAX || s->b->bnull[c]) null_column(&cols[c]);
        else vec_rowtable_gather(&s->b->build, k, rows, n, &cols[c]);
    }
}

/* join_match_pairs builds the joined rows of pairs (s->prow, s->brow)[0..n) into s->pairs, applies
** the residual predicate, and marks the matches; s->sel[0..*m) are the pairs that passed. */
static int join_match_pairs(exec_ctx *x, const plan_op *p, join_state *s, data_chunk *in, uint32_t n, uint32_t *m) {
    uint32_t nl = p->child[0]->ncols;
    chunk_reset(&s->pairs);
    for (uint32_t c = 0; c < nl; c++) vec_slice(&s->pairs.cols[c], &in->cols[c], s->prow, n);
    build_columns(s, n, s->pairs.cols + nl);
    s->pairs.count = n;
    *m = n;
    if (p->join.pred) {
        int rc = expr_select(x, residual(p, s->ex), &s->pairs, n, s->sel, m);
        if (rc) return rc;
    } else {
        for (uint32_t k = 0; k < n; k++) s->sel[k] = k;
    }
    bool marks = marks_build(p->join.kind);
    for (uint32_t k = 0; k < *m; k++) {
        s->pmatched[s->prow[s->sel[k]]] = 1;
        if (marks) mark_build(s->b, s->brow[s->sel[k]]);
    }
    return STRATA_OK;
}

/* join_emit_pairs moves the pairs that match (join_match_pairs) to out. */
static int join_emit_pairs(exec_ctx *x, const plan_op *p, join_state *s, data_chunk *in, uint32_t n, data_chunk *out) {
    uint32_t m;
    int rc = join_match_pairs(x, p, s, in, n, &m);
    if (rc) return rc;
    for (uint32_t c = 0; c < p->ncols; c++) vec_slice(&out->cols[c], &s->pairs.cols[c], s->sel, m);
    out->count = m;
    return STRATA_OK;
}

/* rows with NULLs on one side: left rows sel (from in), or build rows brow[] */
static int join_emit_outer(const plan_op *p, join_state *s, data_chunk *in, const sel_t *sel, uint32_t n, bool left_rows,
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
static int probe_chunk(exec_ctx *x, const plan_op *p, join_state *s, data_chunk *in, vector **pkeys) {
    for (uint32_t k = 0; k < p->join.nkeys; k++) {
        int rc = expr_eval(x, lkey(s->ex, k), in, in->count);
        if (rc) return rc;
        pkeys[k] = lkey(s->ex, k)->result;
    }
    if (p->join.nkeys) vec_join_probe(&s->b->table, pkeys, in->count, s->phash, s->heads);
    return STRATA_OK;
}

/* semi_match marks in s->pmatched the probe rows of in (whose chains vec_join_probe put in
** s->heads) that some build row joins: without a residual predicate a non-empty chain says so;
** with one, the chains' pairs are checked a chunk at a time, and a row's chain is left as soon as
** the row has matched. */
static int semi_match(exec_ctx *x, const plan_op *p, join_state *s, data_chunk *in) {
    bool keyed = p->join.nkeys > 0;
    if (!p->join.pred) {
        for (uint32_t r = 0; r < in->count; r++) s->pmatched[r] = keyed ? s->heads[r] != 0 : s->b->nbuild > 0;
        return STRATA_OK;
    }
    memset(s->pmatched, 0, in->count);
    uint32_t r = 0, next = 0, n = 0, m;
    bool in_chain = false;
    while (r < in->count) {
        if (!in_chain) next = keyed ? s->heads[r] : s->b->nbuild ? 1 : 0, in_chain = true;
        while (next && n < VECTOR_SIZE && !s->pmatched[r]) {
            uint32_t b = next - 1;
            next = keyed ? vec_join_next(&s->b->table, b) : b + 1 < s->b->nbuild ? b + 2 : 0;
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
static int semi_exec(exec_ctx *x, const plan_op *p, join_state *s, data_chunk *in, data_chunk *out) {
    vector *pkeys[p->join.nkeys + 1];
    int rc;
    if ((rc = probe_chunk(x, p, s, in, pkeys)) || (rc = semi_match(x, p, s, in))) return rc;
    if (p->join.null_aware && s->b->nbuild)
        for (uint32_t r = 0; r < in->count; r++) s->pmatched[r] |= s->b->build_null || vec_is_null(pkeys[0], r);
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
static int rsemi_mark(exec_ctx *x, const plan_op *p, join_state *s, data_chunk *in) {
    vector *pkeys[p->join.nkeys + 1];
    int rc = probe_chunk(x, p, s, in, pkeys);
    if (rc) return rc;
    if (!p->join.pred) {
        for (uint32_t r = 0; r < in->count; r++)
            for (uint32_t next = s->heads[r]; next && !build_marked(s->b, next - 1); next = vec_join_next(&s->b->table, next - 1))
                mark_build(s->b, next - 1);
        return STRATA_OK;
    }
    uint32_t n = 0, m;
    for (uint32_t r = 0; r < in->count; r++) {
        for (uint32_t next = s->heads[r]; next; next = vec_join_next(&s->b->table, next - 1)) {
            if (build_marked(s->b, next - 1)) continue;
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

static int join_exec(exec_ctx *x, op_node *nd, data_chunk *in, data_chunk *out, bool *more, bool *finished) {
    (void)finished;
    const plan_op *p = nd->op;
    join_state *s = nd->state;
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
                s->pos_next = p->join.nkeys ? s->heads[r] : s->b->nbuild ? 1 : 0;
            }
            while (s->pos_next && n < VECTOR_SIZE) { /* every build row on the chain has the key */
                uint32_t b = s->pos_next - 1;
                s->pos_next = p->join.nkeys ? vec_join_next(&s->b->table, b) : b + 1 < s->b->nbuild ? b + 2 : 0;
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
static int join_flush(exec_ctx *x, op_node *nd, data_chunk *out, bool *more) {
    (void)x;
    const plan_op *p = nd->op;
    join_state *s = nd->state;
    join_kind k = p->join.kind;
    *more = false;
    out->count = 0;
    if (k != JK_RIGHT && k != JK_FULL && k != JK_RSEMI && k != JK_RANTI) return STRATA_OK;
    uint8_t want = k == JK_RSEMI;
    uint32_t n = 0;
    while (s->flush_pos < s->b->nbuild && n < VECTOR_SIZE) {
        uint32_t b = s->flush_pos++;
        if (build_marked(s->b, b) == want) s->brow[n++] = b;
    }
    *more = s->flush_pos < s->b->nbuild;
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

static int ijoin_open(exec_ctx *x, op_node *nd) {
    const plan_op *p = nd->op;
    ijoin_state *s = calloc(1, sizeof *s);
    if (!s) return exec_nomem(x);
    nd->state = s;
    s->phase = 2;
    plan_op *r = p->child[1];
    int rc = scan_projection(x, r->scan.table, r->scan.cols, r->scan.ncols, r->scan.need, &s->proj, &s->nproj, &s->fetched);
    if (rc == STRATA_OK && table_reader_open(&r->scan.table->desc, s->proj, s->nproj, &s->reader)) rc = exec_nomem(x);
    if (rc || (rc = chunk_init(&s->pairs, p->types, p->ncols, x->err))) return rc;
    s->right.ncols = r->ncols;
    s->right.cols = s->pairs.cols + p->child[0]->ncols;
    return STRATA_OK;
}

static void ijoin_close(op_node *nd, bool keep) {
    (void)keep;
    ijoin_state *s = nd->state;
    if (!s) return;
    nd->state = NULL;
    if (s->open) index_scan_close(s->open);
    table_reader_close(s->reader);
    chunk_free(&s->fetched);
    chunk_free(&s->pairs);
    free(s->proj);
    btree_buf_free(&s->key);
    free(s);
}

static int ijoin_exec(exec_ctx *x, op_node *nd, data_chunk *in, data_chunk *out, bool *more, bool *finished) {
    (void)finished;
    const plan_op *p = nd->op;
    ijoin_state *s = nd->state;
    plan_op *r = p->child[1];
    uint32_t nl = p->child[0]->ncols;
    expr_state *key = lkey(nd->ex, 0);
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
                    return exec_table_error(x, rc);
            }
            uint32_t got;
            if ((rc = index_scan_next(s->open, s->rids + n, VECTOR_SIZE - n, &got))) return exec_table_error(x, rc);
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
                return exec_table_error(x, rc);
            uint32_t m = 0;
            for (uint32_t k = 0; k < n; k++)
                if (s->found[k]) s->kept[m++] = s->prow[k];
            chunk_reset(&s->pairs);
            for (uint32_t c = 0; c < nl; c++) vec_slice(&s->pairs.cols[c], &in->cols[c], s->kept, m);
            scan_output(&s->fetched, r->scan.need, r->scan.ncols, &s->right);
            s->pairs.count = m;
            uint32_t q = m;
            if (p->join.pred) {
                if ((rc = expr_select(x, residual(p, nd->ex), &s->pairs, m, s->sel, &q))) return rc;
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


static uint32_t join_exprs(const plan_op *p, const expr **list) {
    uint32_t nk = p->join.nkeys;
    exec_list_exprs(p->join.lkeys, nk, list);
    exec_list_exprs(p->join.rkeys, nk, list ? list + nk : NULL);
    if (list) list[2 * nk] = p->join.pred;
    return 2 * nk + 1;
}

static const char *const join_kind_names[] = {"INNER", "LEFT", "RIGHT", "FULL", "SEMI", "ANTI", "RIGHT_SEMI", "RIGHT_ANTI"};

static void join_explain(const plan_op *p, char *buf, size_t cap) {
    snprintf(buf, cap, " %s%s%s%s", join_kind_names[p->join.kind], p->join.null_aware ? " (null-aware)" : "",
             p->join.nkeys ? " on equality keys" : "", p->join.pred ? " with condition" : "");
}

static void ijoin_explain(const plan_op *p, char *buf, size_t cap) {
    snprintf(buf, cap, " %s %s %s%s", join_kind_names[p->join.kind], p->child[1]->scan.table->name,
             p->join.lookup ? "USING " : "BY rowid", p->join.lookup ? p->join.lookup->name : "");
}

/* a worker's node: of the build side's pipeline while the run's build side is not complete, else
** of the probe side's */
static int join_open_local(exec_ctx *x, op_node *local, op_node *global) {
    join_state *s = calloc(1, sizeof *s);
    if (!s) return exec_nomem(x);
    local->state = s;
    join_build *b = ((join_state *)global->state)->b;
    if (!b->complete) {
        s->ex = local->ex;
        return build_init(x, local->op, s, true);
    }
    s->b = b;
    return join_probe_init(x, local, s);
}

/* Below JOIN_MERGE_SERIAL build rows, the run's thread builds the table of the workers' rows; from
** there on each partition of the keys is built on a worker of the pool, as a table of its own,
** and the partitions' tables are entered into the run's table at once (vec_join_merge_part). */
#define JOIN_MERGE_SERIAL 65536

/* What join_combine's jobs share: read-only but for parts[k] (partition k's job) and the entries of
** next of the rows of the partition being built. */
typedef struct build_job {
    exec_ctx *x;
    const plan_op *p;
    join_state *const *ls;           /* the workers' nodes' states */
    unsigned n;
    const vec_rowtable_moved *moved; /* by worker: where its rows went in the run's build rows */
    vec_join_table *table;           /* the run's */
    vec_join_table *parts;           /* by partition */
    const uint32_t *base;            /* by partition: its first group in the run's table */
} build_job;

/* add_partition adds the build rows of partition k of every worker to t (the run's table or
** partition k's), one chunk of keys at a time, sliced into tmp (the keys' types). */
static int add_partition(exec_ctx *x, const build_job *j, uint32_t k, vec_join_table *t, vector *tmp) {
    uint32_t nk = j->p->join.nkeys;
    vector *cols[nk];
    for (uint32_t q = 0; q < nk; q++) cols[q] = &tmp[q];
    sel_t sel[VECTOR_SIZE];
    uint32_t at[VECTOR_SIZE];
    for (unsigned i = 0; i < j->n; i++) {
        const join_collect *c = j->ls[i]->collect;
        const uint32_t *rows = c->rows[k];
        for (uint32_t e = 0, m; e < c->n[k]; e += m) {
            uint32_t chunk = rows[e] / VECTOR_SIZE;
            for (m = 0; e + m < c->n[k] && rows[e + m] / VECTOR_SIZE == chunk; m++) {
                sel[m] = rows[e + m] % VECTOR_SIZE;
                at[m] = (uint32_t)vec_rowtable_moved_row(&j->moved[i], rows[e + m]);
            }
            for (uint32_t q = 0; q < nk; q++) vec_slice(&tmp[q], &c->keys.chunks[chunk]->cols[q], sel, m);
            int rc = vec_join_add_rows(t, cols, m, at, j->table->next, x->err);
            if (rc) return rc;
        }
    }
    return STRATA_OK;
}

/* build_parts: a pool task, the tables of partitions [begin, end). */
static int build_parts(void *arg, pool_worker *w, uint64_t begin, uint64_t end) {
    const build_job *j = arg;
    exec_ctx x = *j->x;
    x.err = &w->err;
    uint32_t nk = j->p->join.nkeys;
    sql_type kt[nk + 1];
    key_types(j->p, kt);
    vector tmp[nk + 1];
    int rc = exec_key_vectors(&x, kt, nk, tmp);
    if (rc) return rc;
    for (uint64_t k = begin; k < end && !rc; k++)
        if (!(rc = exec_join_table_init(&x, &j->parts[k], kt, nk))) rc = add_partition(&x, j, (uint32_t)k, &j->parts[k], tmp);
    exec_key_vectors_free(tmp, nk);
    return rc;
}

/* enter_parts: a pool task, partitions [begin, end) entered into the run's table. */
static int enter_parts(void *arg, pool_worker *w, uint64_t begin, uint64_t end) {
    (void)w;
    const build_job *j = arg;
    for (uint64_t k = begin; k < end; k++) vec_join_merge_part(j->table, &j->parts[k], j->base[k]);
    return STRATA_OK;
}

/* join_combine makes the run's build side of the workers' (all of it: the run's node sank nothing):
** their rows move to its rows, and its table is built of their keys, by partition on the pool
** when they are many. The workers' nodes keep what is left to free. */
static int join_combine(exec_ctx *x, op_node *gn, op_node *const *locals, unsigned n) {
    const plan_op *p = gn->op;
    join_build *b = ((join_state *)gn->state)->b;
    join_state *ls[n + 1];
    vec_rowtable *from[n + 1];
    vec_rowtable_moved moved[n + 1];
    uint64_t rows = 0;
    for (unsigned i = 0; i < n; i++) {
        ls[i] = locals[i]->state;
        from[i] = &ls[i]->own.build;
        rows += from[i]->rows;
        b->build_null |= ls[i]->own.build_null;
        for (uint32_t c = 0; c < p->child[1]->ncols; c++) b->bnull[c] &= ls[i]->own.bnull[c];
    }
    if (rows > UINT32_MAX - 1) return err_set(x->err, STRATA_TOOBIG, "join build side too large");
    int rc = vec_rowtable_take(&b->build, from, n, moved, x->err);
    if (rc || !p->join.nkeys || (rc = vec_join_rows(&b->table, rows, x->err))) return rc;
    uint32_t nk = p->join.nkeys, base[JOIN_PARTS];
    build_job j = {.x = x, .p = p, .ls = ls, .n = n, .moved = moved, .table = &b->table, .base = base};
    if (rows < JOIN_MERGE_SERIAL) {
        sql_type kt[nk + 1];
        key_types(p, kt);
        vector tmp[nk + 1];
        if ((rc = exec_key_vectors(x, kt, nk, tmp))) return rc;
        for (uint32_t k = 0; k < JOIN_PARTS && !rc; k++) rc = add_partition(x, &j, k, &b->table, tmp);
        exec_key_vectors_free(tmp, nk);
        return rc;
    }
    if (!(j.parts = calloc(JOIN_PARTS, sizeof *j.parts))) return exec_nomem(x);
    pool_job job = {.total = JOIN_PARTS, .morsel = 1, .run_morsel = build_parts, .arg = &j, .interrupt = x->interrupt};
    rc = exec_pool_run(x, &job);
    if (!rc) rc = vec_join_merge_begin(&b->table, j.parts, JOIN_PARTS, base, x->err);
    job.run_morsel = enter_parts;
    if (!rc) rc = exec_pool_run(x, &job);
    if (!rc) rc = vec_join_merge_end(&b->table, j.parts, JOIN_PARTS, x->err);
    for (uint32_t k = 0; k < JOIN_PARTS; k++) vec_join_free(&j.parts[k]);
    free(j.parts);
    return rc;
}

/* a nested-loop join is a hash join without keys: one table of functions, two names. Both run
** on several workers in both roles: each worker's node sinks build rows and keys of its own
** (collect_keys), which join_combine makes one build side of, and each probes the run's node's
** build side with scratch of its own; the build rows a RIGHT/FULL/RIGHT_SEMI/RIGHT_ANTI join
** outputs at the end come once every worker is done (join_flush on one worker's node, pipeline.c's
** pipe_flush_workers). */
#define JOIN_OPERATOR(label)                                                                     \
    {                                                                                            \
        .name = label, .child = {CHILD_STREAM, CHILD_SINK}, .open = join_open, .close = join_close, \
        .exprs = join_exprs, .execute = join_exec, .flush = join_flush, .sink = join_sink,       \
        .finalize = join_finalize, .explain = join_explain, .parallel = exec_parallel_always,    \
        .open_local = join_open_local, .combine = join_combine,                                  \
    }
const op_vtable op_hash_join = JOIN_OPERATOR("HASH_JOIN");
const op_vtable op_nl_join = JOIN_OPERATOR("NESTED_LOOP_JOIN");

/* the index join's right side (child 1) is not run: its table is read by key */
const op_vtable op_index_join = {
    .name = "INDEX_JOIN",
    .child = {CHILD_STREAM, CHILD_NONE},
    .open = ijoin_open,
    .close = ijoin_close,
    .exprs = join_exprs,
    .execute = ijoin_exec,
    .explain = ijoin_explain,
};
