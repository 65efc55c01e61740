/*
** op_setop.c -- DISTINCT and the set operations (UNION [ALL], INTERSECT [ALL], EXCEPT [ALL]):
** sinks of their inputs that count each distinct row per side, and the source of the rows the
** operation keeps (operator.h).
*/
#include "exec/operator.h"

#include <stdlib.h>
#include <string.h>

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

/* union_all: UNION ALL keeps every row of both sides, in order, without counting them */
static bool union_all(const plan_op *p) { return p->kind == PLAN_SETOP && p->setop.kind == SETOP_UNION && p->setop.all; }

static int setop_open(exec_ctx *x, op_node *nd) {
    const plan_op *p = nd->op;
    setop_state *s = calloc(1, sizeof *s);
    if (!s) return exec_nomem(x);
    nd->state = s;
    s->gids = malloc(VECTOR_SIZE * sizeof *s->gids);
    s->hashes = malloc(VECTOR_SIZE * sizeof *s->hashes);
    if (!s->gids || !s->hashes) return exec_nomem(x);
    if (union_all(p)) return exec_rows_init(x, &s->all, p->types, p->ncols);
    return exec_groups_init(x, &s->groups, p->types, p->ncols);
}

static void setop_close(op_node *nd, bool keep) {
    (void)keep;
    setop_state *s = nd->state;
    if (!s) return;
    nd->state = NULL;
    vec_groups_free(&s->groups);
    vec_rows_free(&s->all);
    free(s->counts);
    free(s->gids);
    free(s->hashes);
    free(s);
}

static int setop_sink(exec_ctx *x, op_node *nd, data_chunk *in, int side) {
    const plan_op *p = nd->op;
    setop_state *s = nd->state;
    if (in->sel) chunk_apply_sel(in);
    if (union_all(p)) return vec_rows_append(&s->all, in, NULL, in->count, x->err);
    vector *cols[p->ncols + 1];
    for (uint32_t c = 0; c < p->ncols; c++) cols[c] = &in->cols[c];
    int rc = vec_groups_find_or_add(&s->groups, cols, in->count, s->gids, NULL, s->hashes, x->err);
    if (rc) return rc;
    if (s->groups.ngroups > s->cap) {
        uint32_t nc = s->cap ? s->cap : 1024;
        while (nc < s->groups.ngroups) nc *= 2;
        uint64_t *n = realloc(s->counts, 2 * (size_t)nc * sizeof *n);
        if (!n) return exec_nomem(x);
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

static int setop_next(exec_ctx *x, op_node *nd, data_chunk *out) {
    const plan_op *p = nd->op;
    setop_state *s = nd->state;
    if (union_all(p)) {
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
    return exec_emit_refs(x, &s->groups.keys, refs, n, out);
}


const op_vtable op_distinct = {
    .name = "DISTINCT",
    .child = {CHILD_SINK},
    .open = setop_open,
    .close = setop_close,
    .sink = setop_sink,
    .source = setop_next,
};

const op_vtable op_setop = {
    .name = "SET_OPERATION",
    .child = {CHILD_SINK, CHILD_SINK},
    .open = setop_open,
    .close = setop_close,
    .sink = setop_sink,
    .source = setop_next,
};
