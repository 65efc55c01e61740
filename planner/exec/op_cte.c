/*
** op_cte.c -- WITH RECURSIVE (operator.h): the operator that runs its anchor (child 0) and then
** its step (child 1) again and again as nested runs, each over the rows of the iteration before
** (the working table), and the scan of that working table in the step.
*/
#include "exec/operator.h"

#include <stdlib.h>
#include <string.h>

/* ---- WITH RECURSIVE ----------------------------------------------------------------------- */

typedef struct rec_state {
    void *pipelines[2];   /* the run plans of the anchor and the step, kept between iterations and,
                          ** closed with keep, between runs */
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

static int rec_open(exec_ctx *x, op_node *nd) {
    const plan_op *p = nd->op;
    rec_state *s = nd->state;
    void *kept[2] = {s ? s->pipelines[0] : NULL, s ? s->pipelines[1] : NULL};
    if (!s && !(s = calloc(1, sizeof *s))) return exec_nomem(x);
    memset(s, 0, sizeof *s);
    memcpy(s->pipelines, kept, sizeof kept);
    nd->state = s;
    int rc;
    if ((rc = exec_rows_init(x, &s->cur, p->types, p->ncols)) || (rc = exec_rows_init(x, &s->next, p->types, p->ncols)) ||
        (rc = chunk_init(&s->tmp, p->types, p->ncols, x->err)))
        return rc;
    if (!p->rec.all && (rc = exec_groups_init(x, &s->seen, p->types, p->ncols))) return rc;
    return STRATA_OK;
}

/* rec_close frees the iterations' rows; the nested runs' plans (their operators closed by
** exec_close at the end of each iteration) stay for the next run with keep. */
static void rec_close(op_node *nd, bool keep) {
    rec_state *s = nd->state;
    if (!s) return;
    vec_rows_free(&s->cur);
    vec_rows_free(&s->next);
    chunk_free(&s->tmp);
    vec_groups_free(&s->seen);
    if (keep) return;
    for (int i = 0; i < 2; i++) exec_plan_free(s->pipelines[i]);
    free(s);
    nd->state = NULL;
}

/* rec_run runs child (anchor or step) to its end, adding its new rows to s->next; the step's
** scans of the working table read s->cur. */
static int rec_run(exec_ctx *x, const plan_op *p, rec_state *s, const plan_op *child) {
    exec_ctx sub = *x;
    sub.nested = true;
    cte_binding work = {.store = p->rec.work, .rows = &s->cur, .up = x->ctes};
    if (child == p->child[1]) sub.ctes = &work;
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
static int rec_next(exec_ctx *x, op_node *nd, data_chunk *out) {
    const plan_op *p = nd->op;
    rec_state *s = nd->state;
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
            rc = rec_run(x, p, s, p->child[1]);
        }
        if (rc) return rc;
        vec_rows_free(&s->cur);
        s->cur = s->next;
        if ((rc = exec_rows_init(x, &s->next, p->types, p->ncols))) return rc;
        s->phase = 1;
        s->emit = 0;
    }
}

static void *rec_nested(op_node *nd, int child) {
    const rec_state *s = nd->state;
    return s ? s->pipelines[child] : NULL;
}

/* its children run nested, per iteration (rec_run), not in the pipelines of the plan above */
const op_vtable op_recursive = {
    .name = "RECURSIVE_CTE",
    .child = {CHILD_NESTED, CHILD_NESTED},
    .open = rec_open,
    .close = rec_close,
    .source = rec_next,
    .nested = rec_nested,
};

/* ---- the working table -------------------------------------------------------------------- */

static int cte_scan_open(exec_ctx *x, op_node *nd) { return exec_small_state(x, nd, sizeof(uint32_t)); }

static int cte_scan_next(exec_ctx *x, op_node *nd, data_chunk *out) {
    const plan_op *p = nd->op;
    uint32_t *next = nd->state;
    const cte_binding *b = x->ctes;
    while (b && b->store != p->cte.store) b = b->up;
    vec_rows *rows = b ? b->rows : p->cte.store->rows;
    out->count = 0;
    if (!rows) return err_set(x->err, STRATA_MISUSE, "working table read outside its recursion");
    if (*next >= rows->nchunks) return STRATA_OK;
    data_chunk *ch = rows->chunks[(*next)++];
    for (uint32_t c = 0; c < p->ncols; c++) vec_reference(&out->cols[c], &ch->cols[c]);
    out->count = ch->count;
    return STRATA_OK;
}

const op_vtable op_cte_scan = {
    .name = "CTE_SCAN",
    .open = cte_scan_open,
    .close = exec_small_close,
    .source = cte_scan_next,
};
