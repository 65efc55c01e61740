/*
** op_sort.c -- ORDER BY: the sink that keeps its input's rows (all of them, or for ORDER BY ...
** LIMIT the best limit + offset in a heap) and the source of them in order (operator.h).
*/
#include "exec/operator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sort_state {
    vec_rows rows;
    row_ref *order;  /* the rows in sort order; ORDER BY ... LIMIT: first the kept rows' heap */
    uint64_t n, emitted;
    uint64_t cap;    /* ... and its room */
    bool sorted;
} sort_state;
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
static int topn_compact(exec_ctx *x, const plan_op *p, sort_state *s) {
    vec_rows kept;
    int rc = exec_rows_init(x, &kept, p->types, p->ncols);
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
static int topn_sink(exec_ctx *x, const plan_op *p, sort_state *s, data_chunk *in) {
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
        if (!h) return exec_nomem(x);
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

static int sort_finalize(exec_ctx *x, op_node *nd) {
    const plan_op *p = nd->op;
    sort_state *s = nd->state;
    sort_cmp_ctx ctx = {p, &s->rows};
    if (p->sort.limit < 0) { /* every row, in order */
        s->n = s->rows.rows;
        int rc = vec_rows_charge(&s->rows, (s->n + 1) * sizeof *s->order, x->err);
        if (rc) return rc;
        s->order = malloc((s->n + 1) * sizeof *s->order);
        if (!s->order) return exec_nomem(x);
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
int exec_emit_refs(exec_ctx *x, const vec_rows *rows, const row_ref *refs, uint32_t n, data_chunk *out) {
    for (uint32_t c = 0; c < rows->ncols; c++)
        for (uint32_t r = 0; r < n; r++) {
            sel_t sr = refs[r].row;
            int rc = vec_copy(&out->cols[c], r, &rows->chunks[refs[r].chunk]->cols[c], &sr, 1, x->err);
            if (rc) return rc;
        }
    out->count = n;
    return STRATA_OK;
}

static int sort_next(exec_ctx *x, op_node *nd, data_chunk *out) {
    sort_state *s = nd->state;
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

static void sort_close(op_node *nd, bool keep) {
    (void)keep;
    sort_state *s = nd->state;
    if (!s) return;
    vec_rows_free(&s->rows);
    free(s->order);
    free(s);
    nd->state = NULL;
}

static int sort_sink(exec_ctx *x, op_node *nd, data_chunk *in, int side) {
    (void)side;
    sort_state *s = nd->state;
    if (in->sel) chunk_apply_sel(in);
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
};
