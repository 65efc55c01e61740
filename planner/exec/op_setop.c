/*
** op_setop.c -- DISTINCT and the set operations (UNION [ALL], INTERSECT [ALL], EXCEPT [ALL]):
** sinks of their inputs that count each distinct row per side, and the source of the rows the
** operation keeps (operator.h).
*/
#include "exec/operator.h"

#include <stdlib.h>
#include <string.h>

typedef struct setop_state setop_state;
struct setop_state {
    vec_groups groups;  /* distinct rows with counts per side (UNION ALL: unused) */
    vec_rows all;      /* UNION ALL rows */
    uint64_t *counts;    /* 2 per group */
    uint32_t cap;
    uint32_t *gids;
    uint64_t *hashes;
    uint32_t emit_group;
    uint64_t emit_copy;
    uint8_t sides;       /* the inputs it sank rows of: bit 1 << side */
    setop_state **parts; /* a parallel run's groups, merged by partition (setop_combine): the source
                         ** outputs these, part by part, instead (nparts of them) */
    uint32_t nparts, emit_part;
    /* UNION ALL on several workers: a worker's node keeps the rows of each morsel it took as a
    ** run of their own (run_morsel[i] run i's); the run's node takes the workers' runs in morsel
    ** order (setop_combine), its own rows (`all`, of an input that ran on its thread) at the
    ** place they came in, and the source outputs the runs in turn. */
    vec_rows *runs;
    uint64_t *run_morsel;
    uint32_t nruns, cap_runs, emit_run;
    bool local; /* a worker's node */
};

/* union_all: UNION ALL keeps every row of both sides, in order, without counting them */
static bool union_all(const plan_op *p) { return p->kind == PLAN_SETOP && p->setop.kind == SETOP_UNION && p->setop.all; }

static void setop_state_free(setop_state *s) {
    if (!s) return;
    for (uint32_t i = 0; i < s->nparts; i++) setop_state_free(s->parts[i]);
    free(s->parts);
    vec_groups_free(&s->groups);
    vec_rows_free(&s->all);
    for (uint32_t i = 0; i < s->nruns; i++) vec_rows_free(&s->runs[i]);
    free(s->runs);
    free(s->run_morsel);
    free(s->counts);
    free(s->gids);
    free(s->hashes);
    free(s);
}

/* setop_state_new makes an empty state: p's rows (UNION ALL) or groups. */
static int setop_state_new(exec_ctx *x, const plan_op *p, setop_state **out) {
    setop_state *s = *out = calloc(1, sizeof *s);
    if (!s) return exec_nomem(x);
    s->gids = malloc(VECTOR_SIZE * sizeof *s->gids);
    s->hashes = malloc(VECTOR_SIZE * sizeof *s->hashes);
    if (!s->gids || !s->hashes) return exec_nomem(x);
    if (union_all(p)) return exec_rows_init(x, &s->all, p->types, p->ncols);
    return exec_groups_init(x, &s->groups, p->types, p->ncols);
}

static int setop_open(exec_ctx *x, op_node *nd) {
    setop_state *s = NULL;
    int rc = setop_state_new(x, nd->op, &s);
    nd->state = s;
    return rc;
}

static void setop_close(op_node *nd, bool keep) {
    (void)keep;
    setop_state_free(nd->state);
    nd->state = NULL;
}

/* ensure_counts gives s's counts room for its groups. */
static int ensure_counts(exec_ctx *x, setop_state *s) {
    if (s->groups.ngroups <= s->cap) return STRATA_OK;
    uint32_t nc = s->cap ? s->cap : 1024;
    while (nc < s->groups.ngroups) nc *= 2;
    int rc = vec_rows_charge(&s->groups.keys, 2 * (size_t)(nc - s->cap) * sizeof *s->counts, x->err);
    if (rc) return rc;
    uint64_t *n = realloc(s->counts, 2 * (size_t)nc * sizeof *n);
    if (!n) return exec_nomem(x);
    memset(n + 2 * (size_t)s->cap, 0, 2 * (size_t)(nc - s->cap) * sizeof *n);
    s->counts = n;
    s->cap = nc;
    return STRATA_OK;
}

/* run_room makes room for one more run in s. */
static int run_room(exec_ctx *x, setop_state *s) {
    if (s->nruns < s->cap_runs) return STRATA_OK;
    uint32_t nc = s->cap_runs ? 2 * s->cap_runs : 8;
    vec_rows *r = realloc(s->runs, nc * sizeof *r);
    if (r) s->runs = r;
    uint64_t *m = r ? realloc(s->run_morsel, nc * sizeof *m) : NULL;
    if (m) s->run_morsel = m;
    if (!r || !m) return exec_nomem(x);
    s->cap_runs = nc;
    return STRATA_OK;
}

/* union_rows keeps the rows of in: a worker's in the run of its morsel x->morsel. */
static int union_rows(exec_ctx *x, const plan_op *p, setop_state *s, data_chunk *in) {
    if (!s->local) return vec_rows_append(&s->all, in, NULL, in->count, x->err);
    if (!s->nruns || s->run_morsel[s->nruns - 1] != x->morsel) {
        int rc = run_room(x, s);
        if (rc || (rc = exec_rows_init(x, &s->runs[s->nruns], p->types, p->ncols))) return rc;
        s->run_morsel[s->nruns++] = x->morsel;
    }
    return vec_rows_append(&s->runs[s->nruns - 1], in, NULL, in->count, x->err);
}

/* take_all moves the run's node's own rows, when it has some, to the end of its runs (the rows
** of an input that ran on its thread, before those of an input that ran on workers, or after). */
static int take_all(exec_ctx *x, const plan_op *p, setop_state *s) {
    if (!s->all.rows) return STRATA_OK;
    int rc = run_room(x, s);
    if (rc) return rc;
    s->runs[s->nruns] = s->all;
    s->run_morsel[s->nruns++] = 0;
    return exec_rows_init(x, &s->all, p->types, p->ncols);
}

static int setop_sink(exec_ctx *x, op_node *nd, data_chunk *in, int side) {
    const plan_op *p = nd->op;
    setop_state *s = nd->state;
    if (in->sel) chunk_apply_sel(in);
    if (union_all(p)) return union_rows(x, p, s, in);
    s->sides |= (uint8_t)(1u << side);
    vector *cols[p->ncols + 1];
    for (uint32_t c = 0; c < p->ncols; c++) cols[c] = &in->cols[c];
    int rc = vec_groups_find_or_add(&s->groups, cols, in->count, s->gids, NULL, s->hashes, x->err);
    if (rc || (rc = ensure_counts(x, s))) return rc;
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

/* setop_emit outputs the next rows of s's groups. */
static int setop_emit(exec_ctx *x, const plan_op *p, setop_state *s, data_chunk *out) {
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
    return exec_emit_refs(x, &s->groups.keys, refs, n, out);
}

static int setop_next(exec_ctx *x, op_node *nd, data_chunk *out) {
    const plan_op *p = nd->op;
    setop_state *s = nd->state;
    if (union_all(p)) {
        out->count = 0;
        const vec_rows *r = &s->all;
        if (s->nruns) { /* the runs in turn; emit_group is the next chunk of run emit_run */
            while (s->emit_run < s->nruns && s->emit_group >= s->runs[s->emit_run].nchunks) s->emit_run++, s->emit_group = 0;
            if (s->emit_run == s->nruns) return STRATA_OK;
            r = &s->runs[s->emit_run];
        }
        if (s->emit_group >= r->nchunks) return STRATA_OK;
        data_chunk *ch = r->chunks[s->emit_group++];
        for (uint32_t c = 0; c < p->ncols; c++) vec_reference(&out->cols[c], &ch->cols[c]);
        out->count = ch->count;
        return STRATA_OK;
    }
    if (!s->nparts) return setop_emit(x, p, s, out);
    for (; s->emit_part < s->nparts; s->emit_part++) {
        int rc = setop_emit(x, p, s->parts[s->emit_part], out);
        if (rc || out->count) return rc;
    }
    out->count = 0;
    return STRATA_OK;
}

/* DISTINCT and the set operations run on several workers, each side: each worker's node counts
** its rows' groups in a table of its own, which setop_combine adds to the run's node's (where
** the other side's rows are, or come). Their order out is the order the merged table found its
** groups in, which with several workers is not the serial run's (as GROUP BY's): ORDER BY fixes
** it. UNION ALL's workers keep their rows by morsel, and it outputs them in the serial order. */
static int setop_open_local(exec_ctx *x, op_node *local, op_node *global) {
    (void)global;
    int rc = setop_open(x, local);
    if (local->state) ((setop_state *)local->state)->local = true;
    return rc;
}

static int setop_finalize(exec_ctx *x, op_node *nd) {
    setop_state *s = nd->state;
    return union_all(nd->op) && s->nruns ? take_all(x, nd->op, s) : STRATA_OK;
}

/* A worker's run, for union_combine: by morsel (one worker took each). */
typedef struct run_ref {
    uint64_t morsel;
    uint32_t worker, run;
} run_ref;

static int by_morsel(const void *a, const void *b) {
    uint64_t x = ((const run_ref *)a)->morsel, y = ((const run_ref *)b)->morsel;
    return x < y ? -1 : x > y;
}

/* union_combine moves the workers' runs to the run's node in morsel order, after its own rows. */
static int union_combine(exec_ctx *x, const plan_op *p, setop_state *g, setop_state *const *ls, unsigned n) {
    uint64_t total = 0;
    for (unsigned i = 0; i < n; i++) total += ls[i]->nruns;
    run_ref *order = malloc((total + 1) * sizeof *order);
    int rc = order ? take_all(x, p, g) : exec_nomem(x);
    uint64_t k = 0;
    for (unsigned i = 0; i < n; i++)
        for (uint32_t r = 0; order && r < ls[i]->nruns; r++) order[k++] = (run_ref){ls[i]->run_morsel[r], i, r};
    if (!rc) qsort(order, total, sizeof *order, by_morsel);
    for (uint64_t e = 0; e < total && !rc; e++) {
        setop_state *l = ls[order[e].worker];
        if ((rc = run_room(x, g))) break;
        g->runs[g->nruns] = l->runs[order[e].run];
        g->run_morsel[g->nruns++] = order[e].morsel;
        memset(&l->runs[order[e].run], 0, sizeof *l->runs); /* moved: freeing it is a no-op */
    }
    free(order);
    return rc;
}

typedef struct setop_merge_ctx {
    setop_state **locals;
    setop_state **parts;
    const plan_op *p;
} setop_merge_ctx;

/* setop_add (groups_merge.add) adds the counts of groups sel[0..m) of chunk `first` of worker
** i's state to those of groups gids[] of state into. */
static int setop_add(exec_ctx *x, void *arg, void *into, unsigned i, uint32_t first, const sel_t *sel, uint32_t m,
                     const uint32_t *gids) {
    setop_state *g = into, *l = ((setop_merge_ctx *)arg)->locals[i];
    int rc = ensure_counts(x, g);
    for (uint32_t r = 0; r < m && !rc; r++) {
        const uint64_t *from = l->counts + 2 * (size_t)(first + (sel ? sel[r] : r));
        g->counts[2 * (size_t)gids[r]] += from[0];
        g->counts[2 * (size_t)gids[r] + 1] += from[1];
    }
    return rc;
}

/* setop_part (groups_merge.part) makes partition part's state. */
static int setop_part(exec_ctx *x, void *arg, uint32_t part, void **into, vec_groups **to) {
    setop_merge_ctx *c = arg;
    int rc = setop_state_new(x, c->p, &c->parts[part]);
    *into = c->parts[part];
    *to = &c->parts[part]->groups;
    return rc;
}

/* setop_combine merges the workers' groups into the run's node. Those of the last input (a set
** operation's right one) go by partition when they are more than GROUPS_MERGE_SERIAL with the run's
** node's own (its first input's), which go to the partitions too; those of a first input stay in
** the run's node, where the right input's rows find them. */
static int setop_combine(exec_ctx *x, op_node *gn, op_node *const *locals, unsigned n) {
    const plan_op *p = gn->op;
    setop_state *g = gn->state, *ls[n + 2];
    vec_groups *tables[n + 2];
    uint64_t groups = g->groups.ngroups;
    bool last = p->kind == PLAN_DISTINCT;
    for (unsigned i = 0; i < n; i++) {
        ls[i] = locals[i]->state, tables[i] = &ls[i]->groups, groups += tables[i]->ngroups;
        last |= ls[i]->sides >> 1;
    }
    if (union_all(p)) return union_combine(x, p, g, ls, n);
    setop_merge_ctx c = {ls, NULL, p};
    groups_merge m = {.from = tables, .n = n, .arg = &c, .add = setop_add, .part = setop_part};
    if (!last || groups <= GROUPS_MERGE_SERIAL) return exec_groups_merge(x, &m, g, &g->groups);
    if (g->groups.ngroups) ls[n] = g, tables[n] = &g->groups, m.n++;
    if (!(c.parts = calloc(GROUPS_PARTS, sizeof *c.parts))) return exec_nomem(x);
    int rc = exec_groups_merge_parts(x, &m);
    g->parts = c.parts, g->nparts = GROUPS_PARTS; /* set after: g's own groups were an input */
    return rc;
}

const op_vtable op_distinct = {
    .name = "DISTINCT",
    .child = {CHILD_SINK},
    .open = setop_open,
    .close = setop_close,
    .sink = setop_sink,
    .source = setop_next,
    .parallel = exec_parallel_always,
    .open_local = setop_open_local,
    .combine = setop_combine,
};

const op_vtable op_setop = {
    .name = "SET_OPERATION",
    .child = {CHILD_SINK, CHILD_SINK},
    .open = setop_open,
    .close = setop_close,
    .sink = setop_sink,
    .finalize = setop_finalize,
    .source = setop_next,
    .parallel = exec_parallel_always,
    .open_local = setop_open_local,
    .combine = setop_combine,
};
