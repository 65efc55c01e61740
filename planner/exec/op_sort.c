/*
** op_sort.c -- ORDER BY: the sink that keeps its input's rows (all of them, or for ORDER BY ...
** LIMIT the best limit + offset in a heap) and the source of them in order (operator.h).
**
** A full sort orders its rows by normalized keys (encode_row: one byte string a row, compared by
** memcmp through keysort.h, 16 bytes of it beside each row's ref), not by comparing the rows'
** values column by column; ORDER BY ... LIMIT keeps its heap by comparing values.
**
** Rows of equal keys come in input order (a stable sort), so that a result is the same at any
** SET threads. On several workers each worker's node keeps the rows it sank (or its own heap of
** the best limit + offset) and notes where each of its morsels begins (x->morsel); sort_combine
** takes the workers' rows over as runs and sorts each run on the pool, one job a run, and the
** source merges the runs as it outputs them. Rows of equal keys from two runs come in the order
** of their morsels, the order a serial run reads them in (exec.h), and so do a run's own (a
** worker may take a later morsel before an earlier one, core/pool.h); so the merged order is the
** serial one, ties too, whatever worker took a morsel.
*/
#include "exec/keysort.h"
#include "exec/operator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../colstore/record.h" /* record_buf_reserve */

/* Where a worker's rows of one morsel begin in its collection (its row index). */
typedef struct morsel_start {
    uint64_t first, morsel;
} morsel_start;

typedef struct sort_state sort_state;
struct sort_state {
    vec_rows rows;
    row_ref *order;  /* the rows in sort order; ORDER BY ... LIMIT: first the kept rows' heap */
    uint64_t n, emitted;
    uint64_t cap;    /* ... and its room */
    /* a worker's node (sort_open_local): where its rows of each morsel begin, in rows' order */
    bool local;
    morsel_start *starts;
    uint32_t nstarts, cap_starts;
    /* the run's node after a parallel run (sort_combine): the workers' states as runs, each with
    ** its rows sorted (a run's order[0..n), its emitted the next to output), and chunks, every
    ** run's chunks in turn, which the runs' refs number (run i's from its coff on); heap holds
    ** the runs with rows left, the one whose next row comes first at the root */
    sort_state *runs;
    uint32_t nruns, coff, nheap;
    data_chunk **chunks;
    uint32_t *heap;
};
/* ---- sort --------------------------------------------------------------------------------- */

typedef struct sort_cmp_ctx {
    const plan_op *p;
    data_chunk *const *chunks; /* the rows' chunks, by the refs' chunk numbers */
    const sort_state *run;     /* a worker's rows (their morsels noted), or NULL */
} sort_cmp_ctx;

static __thread const sort_cmp_ctx *sort_ctx;
static uint64_t ref_morsel(const sort_state *r, const row_ref *ref);

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
    data_chunk *const *chunks = sort_ctx->chunks;
    int c = key_compare(sort_ctx->p, chunks[x->chunk], x->row, chunks[y->chunk], y->row);
    if (c) return c;
    /* stable: input order -- a worker's by morsel first (it may take a later morsel before an
    ** earlier one: core/pool.h), then as it came */
    const sort_state *run = sort_ctx->run;
    uint64_t mx = run ? ref_morsel(run, x) : 0, my = run ? ref_morsel(run, y) : 0;
    if (mx != my) return mx < my ? -1 : 1;
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
static int topn_compact(exec_ctx *x, const plan_op *p, sort_state *s) {
    vec_rows kept;
    int rc = exec_rows_init(x, &kept, p->types, p->ncols);
    if (rc) return rc;
    qsort(s->order, s->n, sizeof *s->order, ref_order);
    /* a worker's morsels begin where their first kept row goes */
    for (uint64_t j = 0, i = 0; j < s->nstarts; j++) {
        while (i < s->n && (uint64_t)s->order[i].chunk * VECTOR_SIZE + s->order[i].row < s->starts[j].first) i++;
        s->starts[j].first = i;
    }
    sel_t sel[VECTOR_SIZE];
    for (uint64_t i = 0; i < s->n && !rc;) { /* a run of refs in one chunk at a time */
        uint32_t c = s->order[i].chunk, n = 0;
        for (; i < s->n && s->order[i].chunk == c; i++) sel[n++] = (sel_t)s->order[i].row;
        rc = vec_rows_append(&kept, s->rows.chunks[c], sel, n, x->err);
    }
    if (!rc) rc = vec_rows_charge(&kept, s->cap * sizeof *s->order + s->cap_starts * sizeof *s->starts, x->err);
    if (rc) {
        vec_rows_free(&kept);
        return rc;
    }
    vec_rows_free(&s->rows);
    s->rows = kept;
    for (uint64_t i = 0; i < s->n; i++) s->order[i] = (row_ref){(uint32_t)(i / VECTOR_SIZE), (uint32_t)(i % VECTOR_SIZE)};
    sort_cmp_ctx ctx = {p, s->rows.chunks, s->local ? s : NULL};
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
static int topn_sink(exec_ctx *x, const plan_op *p, sort_state *s, data_chunk *in) {
    uint64_t k = (uint64_t)p->sort.limit;
    if (k == 0 || !in->count) return STRATA_OK;
    sel_t sel[VECTOR_SIZE];
    uint32_t n = 0;
    if (s->n < k) n = in->count;
    else {
        const row_ref *root = &s->order[0];
        const data_chunk *rc = s->rows.chunks[root->chunk];
        /* a worker's row equal to the root comes before it when its morsel does */
        bool earlier = s->local && x->morsel < ref_morsel(s, root);
        for (uint32_t r = 0; r < in->count; r++) {
            int c = key_compare(p, in, r, rc, root->row);
            if (c < 0 || (c == 0 && earlier)) sel[n++] = (sel_t)r;
        }
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
        if (!h) return exec_nomem(x);
        s->order = h, s->cap = nc;
    }
    sort_cmp_ctx ctx = {p, s->rows.chunks, s->local ? s : NULL};
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

/* ---- normalized keys --------------------------------------------------------------------- */

/* encode_row appends the sort keys of row r of chunk c to buf as one byte string whose memcmp
** order is key_compare's, then the row's place in the input (its morsel, then its ordinal, 8
** bytes each in rowid_encode's form), which makes every row's string distinct and orders rows of
** equal keys as sort_compare does. A key is its key_encode_row encoding (colstore/table.h:
** self-delimiting; NaN, -0 and intervals ordered as value_compare orders them) whose first byte,
** a tag, is made 0x00 for a NULL placed first and 0xFF for one placed last (a value's tag lies
** between), and whose value bytes are inverted for DESC (a self-delimiting code inverted orders
** the other way). */
static int encode_row(exec_ctx *x, const plan_op *p, const data_chunk *c, uint32_t r, uint64_t morsel,
                      uint64_t ordinal, btree_buf *buf) {
    for (uint32_t k = 0; k < p->sort.nkeys; k++) {
        const sort_key *sk = &p->sort.keys[k];
        const vector *v = &c->cols[sk->e->col];
        size_t at = buf->len;
        int rc = key_encode_row(buf, v, 1, r, x->err);
        if (rc) return rc;
        if (vec_is_null(v, r)) buf->data[at] = sk->nulls_first ? 0x00 : 0xFF;
        else if (sk->desc)
            for (size_t i = at + 1; i < buf->len; i++) buf->data[i] = (uint8_t)~buf->data[i];
    }
    int rc = record_buf_reserve(buf, 2 * ROWID_KEY_LEN, x->err);
    if (rc) return rc;
    /* rowid_encode's form orders numbers below 2^63 (as both are) by memcmp */
    rowid_encode((int64_t)morsel, buf->data + buf->len);
    rowid_encode((int64_t)ordinal, buf->data + buf->len + ROWID_KEY_LEN);
    buf->len += 2 * ROWID_KEY_LEN;
    return STRATA_OK;
}

/* sort_by_keys puts every row of s (its chunks numbered from coff on) into s->order, sorted by
** their encode_row strings (keysort.h); those and their entries are charged while they live. */
static int sort_by_keys(exec_ctx *x, const plan_op *p, sort_state *s, uint32_t coff) {
    uint64_t n = s->n, i = 0;
    size_t charged = 2 * n * sizeof(key_entry);
    int rc = vec_budget_charge(s->rows.budget, charged, x->err);
    if (rc) return rc;
    key_entry *e = malloc((n + 1) * sizeof *e), *tmp = malloc((n + 1) * sizeof *tmp);
    btree_buf keys = {0};
    uint32_t start = 0; /* s->starts[start]: the morsel of the rows from its first on */
    if (!e || !tmp) rc = exec_nomem(x);
    for (uint32_t c = 0; c < s->rows.nchunks && !rc; c++)
        for (uint32_t r = 0; r < s->rows.chunks[c]->count && !rc; r++, i++) {
            while (start + 1 < s->nstarts && s->starts[start + 1].first <= i) start++;
            size_t at = keys.len;
            rc = encode_row(x, p, s->rows.chunks[c], r, s->nstarts ? s->starts[start].morsel : 0, i, &keys);
            if (rc) break;
            e[i] = key_entry_make(keys.data, at, (uint32_t)(keys.len - at));
            e[i].item = (uint64_t)(coff + c) << 32 | r;
        }
    if (!rc && !(rc = vec_budget_charge(s->rows.budget, keys.cap, x->err))) {
        charged += keys.cap;
        key_entries_sort(e, n, keys.data, tmp);
        for (i = 0; i < n; i++) s->order[i] = (row_ref){(uint32_t)(e[i].item >> 32), (uint32_t)e[i].item};
    }
    free(e);
    free(tmp);
    btree_buf_free(&keys);
    vec_budget_release(s->rows.budget, charged);
    return rc;
}

/* sort_rows puts s's rows in order: all of them, or for ORDER BY ... LIMIT the heap topn_sink
** kept. chunks are the chunks the refs number, s's own from coff on (a parallel run's runs). */
static int sort_rows(exec_ctx *x, const plan_op *p, sort_state *s, data_chunk *const *chunks, uint32_t coff) {
    if (p->sort.limit < 0) { /* every row, by their normalized keys */
        s->n = s->rows.rows;
        int rc = vec_rows_charge(&s->rows, (s->n + 1) * sizeof *s->order, x->err);
        if (rc) return rc;
        s->order = malloc((s->n + 1) * sizeof *s->order);
        if (!s->order) return exec_nomem(x);
        return sort_by_keys(x, p, s, coff);
    }
    /* the best limit + offset rows topn_sink kept */
    for (uint64_t i = 0; coff && i < s->n; i++) s->order[i].chunk += coff;
    sort_cmp_ctx ctx = {p, chunks, s->nstarts ? s : NULL};
    sort_ctx = &ctx;
    if (s->n) qsort(s->order, s->n, sizeof *s->order, sort_compare);
    sort_ctx = NULL;
    return STRATA_OK;
}

static int sort_finalize(exec_ctx *x, op_node *nd) {
    sort_state *s = nd->state;
    return s->runs ? STRATA_OK : sort_rows(x, nd->op, s, s->rows.chunks, 0); /* sort_combine sorted the runs */
}

/* GATHER_REFS copies column c's values of rows refs[0..n) into d, elements of type T, with their
** NULLs. */
#define GATHER_REFS(T)                                                                          \
    for (uint32_t r = 0; r < n; r++) {                                                          \
        const vector *v = &chunks[refs[r].chunk]->cols[c];                                      \
        ((T *)d->data)[r] = ((const T *)v->data)[v->sel[refs[r].row]];                          \
        if (vec_is_null(v, refs[r].row)) vec_set_null(d, r, 1);                                 \
        else if (d->validity) vec_set_null(d, r, 0);                                            \
    }

int exec_emit_chunk_refs(exec_ctx *x, data_chunk *const *chunks, uint32_t ncols, const row_ref *refs, uint32_t n,
                         data_chunk *out) {
    for (uint32_t c = 0; c < ncols; c++) {
        vector *d = &out->cols[c];
        /* values of 1 to 8 bytes copied straight (a vec_copy a row costs more than the copy);
        ** strings and intervals through vec_copy */
        switch (d->kind == VEC_FLAT ? d->width : 0) {
        case 1: GATHER_REFS(uint8_t) continue;
        case 2: GATHER_REFS(uint16_t) continue;
        case 4: GATHER_REFS(uint32_t) continue;
        case 8: GATHER_REFS(uint64_t) continue;
        default: break;
        }
        for (uint32_t r = 0; r < n; r++) {
            sel_t sr = refs[r].row;
            int rc = vec_copy(d, r, &chunks[refs[r].chunk]->cols[c], &sr, 1, x->err);
            if (rc) return rc;
        }
    }
    out->count = n;
    return STRATA_OK;
}
#undef GATHER_REFS

int exec_emit_refs(exec_ctx *x, const vec_rows *rows, const row_ref *refs, uint32_t n, data_chunk *out) {
    return exec_emit_chunk_refs(x, rows->chunks, rows->ncols, refs, n, out);
}

/* ---- the runs of a parallel run ----------------------------------------------------------- */

/* ref_morsel is the morsel run r's row ref (numbered in the run's parent's chunks) came from. */
static uint64_t ref_morsel(const sort_state *r, const row_ref *ref) {
    uint64_t row = (uint64_t)(ref->chunk - r->coff) * VECTOR_SIZE + ref->row;
    uint32_t lo = 0, hi = r->nstarts; /* the last start at or before row: starts[lo] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->starts[mid].first <= row) lo = mid;
        else hi = mid;
    }
    return r->starts[lo].morsel;
}

/* run_before: the next row of run a comes before that of run b: by the keys, then by morsel (two
** runs never share one). */
static bool run_before(const plan_op *p, const sort_state *g, uint32_t a, uint32_t b) {
    const sort_state *ra = &g->runs[a], *rb = &g->runs[b];
    const row_ref *u = &ra->order[ra->emitted], *v = &rb->order[rb->emitted];
    int c = key_compare(p, g->chunks[u->chunk], u->row, g->chunks[v->chunk], v->row);
    return c ? c < 0 : ref_morsel(ra, u) < ref_morsel(rb, v);
}

/* merge_down restores g's heap of runs below position i. */
static void merge_down(const plan_op *p, sort_state *g, uint32_t i) {
    for (uint32_t *h = g->heap;;) {
        uint32_t l = 2 * i + 1, first = i;
        if (l < g->nheap && run_before(p, g, h[l], h[first])) first = l;
        if (l + 1 < g->nheap && run_before(p, g, h[l + 1], h[first])) first = l + 1;
        if (first == i) return;
        uint32_t t = h[i];
        h[i] = h[first], h[first] = t;
        i = first;
    }
}

/* merge_next outputs the next rows of the runs' merge. */
static int merge_next(exec_ctx *x, const plan_op *p, sort_state *g, data_chunk *out) {
    row_ref refs[VECTOR_SIZE];
    uint32_t n = 0;
    for (; n < VECTOR_SIZE && g->emitted < g->n; g->emitted++) {
        sort_state *r = &g->runs[g->heap[0]];
        refs[n++] = r->order[r->emitted++];
        if (r->emitted == r->n) g->heap[0] = g->heap[--g->nheap];
        merge_down(p, g, 0);
    }
    return exec_emit_chunk_refs(x, g->chunks, p->ncols, refs, n, out);
}

typedef struct sort_job {
    exec_ctx *x;
    const plan_op *p;
    sort_state *g;
} sort_job;

/* sort_runs: pool_run's task, runs [begin, end) sorted. */
static int sort_runs(void *arg, pool_worker *w, uint64_t begin, uint64_t end) {
    sort_job *j = arg;
    exec_ctx x = *j->x;
    x.err = &w->err;
    int rc = STRATA_OK;
    for (uint64_t i = begin; i < end && !rc; i++) {
        sort_state *r = &j->g->runs[i];
        rc = sort_rows(&x, j->p, r, j->g->chunks, r->coff);
    }
    return rc;
}

/* sort_combine takes the workers' rows over as runs, sorts each on the pool and starts their
** merge. */
static int sort_combine(exec_ctx *x, op_node *gn, op_node *const *locals, unsigned n) {
    const plan_op *p = gn->op;
    sort_state *g = gn->state;
    if (!(g->runs = calloc(n + 1, sizeof *g->runs))) return exec_nomem(x);
    uint32_t nchunks = 0;
    for (unsigned i = 0; i < n; i++) { /* the worker's node is left empty, to close */
        sort_state *l = locals[i]->state;
        g->runs[i] = *l;
        memset(l, 0, sizeof *l);
        g->runs[i].coff = nchunks;
        nchunks += g->runs[i].rows.nchunks;
    }
    g->nruns = n;
    int rc = vec_rows_charge(&g->rows, (nchunks + 1) * sizeof *g->chunks + (n + 1) * sizeof *g->heap, x->err);
    if (rc) return rc;
    g->chunks = malloc((nchunks + 1) * sizeof *g->chunks);
    g->heap = malloc((n + 1) * sizeof *g->heap);
    if (!g->chunks || !g->heap) return exec_nomem(x);
    for (unsigned i = 0; i < n; i++) /* a worker whose morsels kept no row has no chunks */
        if (g->runs[i].rows.nchunks)
            memcpy(g->chunks + g->runs[i].coff, g->runs[i].rows.chunks, g->runs[i].rows.nchunks * sizeof *g->chunks);
    sort_job j = {x, p, g};
    pool_job job = {.total = n, .morsel = 1, .run_morsel = sort_runs, .arg = &j, .interrupt = x->interrupt};
    if ((rc = exec_pool_run(x, &job))) return rc;
    for (unsigned i = 0; i < n; i++)
        if (g->runs[i].n) g->heap[g->nheap++] = i, g->n += g->runs[i].n;
    if (p->sort.limit >= 0 && g->n > (uint64_t)p->sort.limit) g->n = (uint64_t)p->sort.limit;
    for (uint32_t i = g->nheap / 2; i-- > 0;) merge_down(p, g, i);
    return STRATA_OK;
}

static int sort_next(exec_ctx *x, op_node *nd, data_chunk *out) {
    sort_state *s = nd->state;
    if (s->runs) return merge_next(x, nd->op, s, out);
    uint64_t n = s->n - s->emitted;
    if (n > VECTOR_SIZE) n = VECTOR_SIZE;
    int rc = exec_emit_refs(x, &s->rows, s->order + s->emitted, (uint32_t)n, out);
    s->emitted += n;
    return rc;
}


static int sort_open(exec_ctx *x, op_node *nd) {
    const plan_op *p = nd->op;
    sort_state *s = calloc(1, sizeof *s);
    if (!s) return exec_nomem(x);
    nd->state = s;
    return exec_rows_init(x, &s->rows, p->types, p->ncols);
}

/* sort_open_local opens a worker's node: it notes where its morsels begin. */
static int sort_open_local(exec_ctx *x, op_node *local, op_node *global) {
    (void)global;
    int rc = sort_open(x, local);
    if (!rc) ((sort_state *)local->state)->local = true;
    return rc;
}

static void sort_state_free(sort_state *s) {
    for (uint32_t i = 0; i < s->nruns; i++) sort_state_free(&s->runs[i]);
    vec_rows_free(&s->rows);
    free(s->order);
    free(s->starts);
    free(s->runs);
    free(s->chunks);
    free(s->heap);
}

static void sort_close(op_node *nd, bool keep) {
    (void)keep;
    sort_state *s = nd->state;
    if (!s) return;
    sort_state_free(s);
    free(s);
    nd->state = NULL;
}

/* morsel_begins notes that a worker's rows from here on come from morsel x->morsel. */
static int morsel_begins(exec_ctx *x, sort_state *s) {
    if (s->nstarts == s->cap_starts) {
        uint32_t nc = s->cap_starts ? 2 * s->cap_starts : 16;
        int rc = vec_rows_charge(&s->rows, (nc - s->cap_starts) * sizeof *s->starts, x->err);
        if (rc) return rc;
        morsel_start *m = realloc(s->starts, nc * sizeof *m);
        if (!m) return exec_nomem(x);
        s->starts = m, s->cap_starts = nc;
    }
    s->starts[s->nstarts++] = (morsel_start){s->rows.rows, x->morsel};
    return STRATA_OK;
}

static int sort_sink(exec_ctx *x, op_node *nd, data_chunk *in, int side) {
    (void)side;
    sort_state *s = nd->state;
    if (in->sel) chunk_apply_sel(in);
    if (s->local && (!s->nstarts || s->starts[s->nstarts - 1].morsel != x->morsel)) {
        int rc = morsel_begins(x, s);
        if (rc) return rc;
    }
    if (nd->op->sort.limit >= 0) return topn_sink(x, nd->op, s, in);
    return vec_rows_append(&s->rows, in, NULL, in->count, x->err);
}

static void sort_explain(const plan_op *p, char *buf, size_t cap) {
    if (p->sort.limit >= 0) snprintf(buf, cap, " top %lld", (long long)p->sort.limit);
}

const op_vtable op_sort = {
    .name = "ORDER_BY",
    .child = {CHILD_SINK},
    .open = sort_open,
    .close = sort_close,
    .sink = sort_sink,
    .finalize = sort_finalize,
    .source = sort_next,
    .explain = sort_explain,
    .parallel = exec_parallel_always,
    .open_local = sort_open_local,
    .combine = sort_combine,
};
