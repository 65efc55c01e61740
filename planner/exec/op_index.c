/*
** op_index.c -- CREATE INDEX's build: the sink that takes (key values..., rowid) rows of a table
** scan, encodes each as its index entry (key || rowid, colstore/table.h) and sorts the entries;
** exec_index_load then loads them into the new, empty index bottom-up (btree_load_*), pages
** filled in key order, instead of inserting them one by one into a tree that grows at random
** places. The two steps are apart so that the scan runs before the statement writes a page (the
** catalog's entry, the index's root): a write transaction with pages of its own is read on its
** thread alone (pager_txn_shareable).
**
** On several workers each worker's node encodes the rows of its morsels into entries of its own;
** index_combine takes them over as runs and sorts each run on the pool (one job a run), and
** exec_index_load merges the runs into the loader on the statement's thread (the pages are
** written in its transaction). Entries are unique (the rowid is part of each), so the merged order, and the
** index, are the same at any SET threads. A unique index refuses a key two entries share, unless
** it holds a NULL (NULLs are distinct, as in PostgreSQL): two such entries are neighbours in the
** sorted order. The entries are charged to the query's memory_limit.
*/
#include "exec/keysort.h"
#include "exec/operator.h"

#include <stdlib.h>
#include <string.h>

/* The entries of one node (a worker's, or the run's in a serial run), or after a parallel run
** the run's node holding the workers' as runs. */
typedef struct index_state index_state;
struct index_state {
    uint8_t *data;
    uint64_t len, cap;
    key_entry *e; /* aux: a key value is NULL (never a duplicate) */
    uint64_t n, ecap;
    vec_budget *budget; /* the query's memory ... */
    size_t charged;     /* ... of which these bytes are charged here */
    btree_buf key;      /* scratch: one row's key */
    index_state *runs;  /* the run's node after index_combine */
    uint32_t nruns;
};

static void index_state_free(index_state *s) {
    for (uint32_t i = 0; i < s->nruns; i++) index_state_free(&s->runs[i]);
    free(s->runs);
    free(s->data);
    free(s->e);
    btree_buf_free(&s->key);
    vec_budget_release(s->budget, s->charged);
    memset(s, 0, sizeof *s);
}

/* grow makes room for `more` bytes past *len of the block *p of *cap bytes (each unit `size`),
** charging what it adds. */
static int grow(exec_ctx *x, index_state *s, void **p, uint64_t *cap, uint64_t len, uint64_t more, size_t size) {
    if (len + more <= *cap) return STRATA_OK;
    uint64_t nc = *cap ? *cap : 1024;
    while (nc < len + more) nc *= 2;
    int rc = vec_budget_charge(s->budget, (nc - *cap) * size, x->err);
    if (rc) return rc;
    void *q = realloc(*p, nc * size);
    if (!q) {
        vec_budget_release(s->budget, (nc - *cap) * size);
        return exec_nomem(x);
    }
    s->charged += (nc - *cap) * size;
    *p = q, *cap = nc;
    return STRATA_OK;
}

/* index_sink encodes each row (key columns 0..nkeys-1, the rowid last) as an entry. */
static int index_sink(exec_ctx *x, op_node *nd, data_chunk *in, int side) {
    (void)side;
    index_state *s = nd->state;
    if (in->sel) chunk_apply_sel(in);
    uint32_t nkeys = in->ncols - 1;
    const vector *rowids = &in->cols[nkeys];
    int rc = grow(x, s, (void **)&s->e, &s->ecap, s->n, in->count, sizeof *s->e);
    for (uint32_t r = 0; r < in->count && !rc; r++) {
        s->key.len = 0;
        uint32_t has_null = 0;
        for (uint32_t k = 0; k < nkeys; k++) has_null |= (uint32_t)vec_is_null(&in->cols[k], r);
        if ((rc = key_encode_row(&s->key, in->cols, nkeys, r, x->err))) break;
        uint32_t len = (uint32_t)s->key.len + ROWID_KEY_LEN;
        if ((rc = grow(x, s, (void **)&s->data, &s->cap, s->len, len, 1))) break;
        uint8_t *d = s->data + s->len;
        memcpy(d, s->key.data, s->key.len);
        rowid_encode(VEC_DATA(rowids, int64_t)[vec_index(rowids, r)], d + s->key.len);
        s->e[s->n] = key_entry_make(s->data, s->len, len);
        s->e[s->n++].aux = has_null;
        s->len += len;
    }
    return rc;
}

/* ---- sorting and loading ------------------------------------------------------------------ */

/* sort_entries sorts a node's entries (keysort.h), its scratch charged while it lives. */
static int sort_entries(exec_ctx *x, index_state *s) {
    if (s->n <= KEYSORT_RUN) {
        key_entries_sort(s->e, s->n, s->data, NULL);
        return STRATA_OK;
    }
    int rc = vec_budget_charge(s->budget, s->n * sizeof *s->e, x->err);
    if (rc) return rc;
    key_entry *tmp = malloc(s->n * sizeof *tmp);
    if (tmp) key_entries_sort(s->e, s->n, s->data, tmp);
    free(tmp);
    vec_budget_release(s->budget, s->n * sizeof *s->e);
    return tmp ? STRATA_OK : exec_nomem(x);
}

typedef struct sort_job {
    exec_ctx *x;
    index_state *g;
} sort_job;

/* sort_runs: pool_run's task, runs [begin, end) sorted. */
static int sort_runs(void *arg, pool_worker *w, uint64_t begin, uint64_t end) {
    sort_job *j = arg;
    exec_ctx x = *j->x;
    x.err = &w->err;
    int rc = STRATA_OK;
    for (uint64_t i = begin; i < end && !rc; i++) rc = sort_entries(&x, &j->g->runs[i]);
    return rc;
}

/* index_combine takes the workers' entries over as runs and sorts each on the pool. */
static int index_combine(exec_ctx *x, op_node *gn, op_node *const *locals, unsigned n) {
    index_state *g = gn->state;
    if (!(g->runs = calloc(n, sizeof *g->runs))) return exec_nomem(x);
    for (unsigned i = 0; i < n; i++) { /* the worker's node is left empty, to close */
        index_state *l = locals[i]->state;
        btree_buf_free(&l->key);
        g->runs[i] = *l;
        memset(l, 0, sizeof *l);
    }
    g->nruns = n;
    sort_job j = {x, g};
    pool_job job = {.total = n, .morsel = 1, .run_morsel = sort_runs, .arg = &j, .interrupt = x->interrupt};
    return exec_pool_run(x, &job);
}

/* A run's next entry, for the merge. */
typedef struct merge_head {
    const index_state *run;
    uint64_t next;
} merge_head;

static bool head_before(const merge_head *a, const merge_head *b) {
    return key_entry_compare(a->run->data, &a->run->e[a->next], b->run->data, &b->run->e[b->next]) < 0;
}

static void heap_down(merge_head *h, uint32_t n, uint32_t i) {
    for (;;) {
        uint32_t l = 2 * i + 1, first = i;
        if (l < n && head_before(&h[l], &h[first])) first = l;
        if (l + 1 < n && head_before(&h[l + 1], &h[first])) first = l + 1;
        if (first == i) return;
        merge_head t = h[i];
        h[i] = h[first], h[first] = t;
        i = first;
    }
}

/* PREFETCH_AHEAD: a run's entry whose bytes are fetched ahead of their turn (sorted, the entries
** are read from all over their run's data). */
#define PREFETCH_AHEAD 8

/* PROGRESS_EVERY: entries loaded between looks at the interrupt flag. */
#define PROGRESS_EVERY 65536

/* load adds the runs' entries in key order to the index, refusing a duplicated key of a unique
** one. */
static int load(exec_ctx *x, const index_def *ix, const index_state *runs, uint32_t nruns) {
    merge_head *h = malloc((nruns + 1) * sizeof *h);
    if (!h) return exec_nomem(x);
    uint32_t nh = 0;
    for (uint32_t i = 0; i < nruns; i++)
        if (runs[i].n) h[nh++] = (merge_head){&runs[i], 0};
    for (uint32_t i = nh / 2; i-- > 0;) heap_down(h, nh, i);
    btree_loader *l = NULL;
    int rc = btree_load_begin(x->txn, ix->root, &l);
    if (rc) rc = exec_table_error(x, rc);
    const uint8_t *last = NULL; /* the key of the entry before, when it has no NULL */
    uint32_t last_len = 0;
    for (uint64_t count = 0; !rc && nh; count++) {
        const index_state *r = h[0].run;
        const key_entry *e = &r->e[h[0].next];
        const uint8_t *d = r->data + e->off;
        uint32_t klen = e->len - ROWID_KEY_LEN;
        if (ix->unique && last && last_len == klen && !memcmp(last, d, klen)) {
            rc = err_set(x->err, STRATA_CONSTRAINT, "could not create unique index \"%s\": key is duplicated", ix->name);
            break;
        }
        last = e->aux ? NULL : d, last_len = klen;
        if ((rc = btree_load_add(l, d, e->len, NULL, 0))) {
            rc = exec_table_error(x, rc);
            break;
        }
        if (h[0].next + PREFETCH_AHEAD < r->n) __builtin_prefetch(r->data + r->e[h[0].next + PREFETCH_AHEAD].off);
        if (++h[0].next == r->n) h[0] = h[--nh];
        heap_down(h, nh, 0);
        if (count % PROGRESS_EVERY == PROGRESS_EVERY - 1 && x->interrupt && __atomic_load_n(x->interrupt, __ATOMIC_RELAXED))
            rc = err_set(x->err, STRATA_INTERRUPT, "interrupted");
    }
    free(h);
    if (!l) return rc;
    if (rc) {
        btree_load_abort(l);
        return rc;
    }
    if ((rc = btree_load_finish(l))) return exec_table_error(x, rc);
    return STRATA_OK;
}

static int index_finalize(exec_ctx *x, op_node *nd) {
    index_state *s = nd->state;
    return s->runs ? STRATA_OK : sort_entries(x, s); /* index_combine sorted the runs */
}

int exec_index_load(exec_ctx *x, const plan_op *p, const index_def *ix) {
    op_node *nd = exec_node(x, p);
    index_state *s = nd ? nd->state : NULL;
    if (!s) return err_set(x->err, STRATA_MISUSE, "CREATE INDEX: the build has not run");
    return s->runs ? load(x, ix, s->runs, s->nruns) : load(x, ix, s, 1);
}

/* the root of its plan: it returns no rows */
static int index_next(exec_ctx *x, op_node *nd, data_chunk *out) {
    (void)x, (void)nd;
    out->count = 0;
    return STRATA_OK;
}

static int index_open(exec_ctx *x, op_node *nd) {
    index_state *s = calloc(1, sizeof *s);
    if (!s) return exec_nomem(x);
    s->budget = x->budget;
    nd->state = s;
    return STRATA_OK;
}

static int index_open_local(exec_ctx *x, op_node *local, op_node *global) {
    (void)global;
    return index_open(x, local);
}

/* The memory a node charged goes back when it is freed (a worker's goes with its entries to the
** run's node: index_combine). */
static void index_close(op_node *nd, bool keep) {
    (void)keep;
    index_state *s = nd->state;
    if (!s) return;
    index_state_free(s);
    free(s);
    nd->state = NULL;
}

const op_vtable op_index_build = {
    .name = "CREATE_INDEX",
    .child = {CHILD_SINK},
    .open = index_open,
    .close = index_close,
    .sink = index_sink,
    .finalize = index_finalize,
    .source = index_next,
    .parallel = exec_parallel_always,
    .open_local = index_open_local,
    .combine = index_combine,
};
