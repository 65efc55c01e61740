/*
** op_filter.c -- the streaming operators of one input: filter (WHERE, HAVING), projection and
** LIMIT/OFFSET (operator.h).
*/
#include "exec/operator.h"

#include <string.h>

/* ---- filter ------------------------------------------------------------------------------- */

static uint32_t filter_exprs(const plan_op *p, const expr **list) { return exec_list_exprs(&p->filter.pred, 1, list); }


static int filter_exec(exec_ctx *x, op_node *nd, data_chunk *in, data_chunk *out, bool *more, bool *finished) {
    (void)more, (void)finished;
    const plan_op *p = nd->op;
    sel_t sel[VECTOR_SIZE];
    uint32_t n;
    int rc = expr_select(x, nd->ex[0], in, in->count, sel, &n);
    if (rc) return rc;
    for (uint32_t c = 0; c < p->ncols; c++) vec_slice(&out->cols[c], &in->cols[c], sel, n);
    out->count = n;
    return STRATA_OK;
}

const op_vtable op_filter = {
    .name = "FILTER",
    .child = {CHILD_STREAM},
    .open = exec_no_open,
    .close = exec_no_close,
    .exprs = filter_exprs,
    .parallel = exec_parallel_always,
    .execute = filter_exec,
};

/* ---- projection --------------------------------------------------------------------------- */

static uint32_t project_exprs(const plan_op *p, const expr **list) { return exec_list_exprs(p->project.exprs, p->ncols, list); }

static int project_exec(exec_ctx *x, op_node *n, data_chunk *in, data_chunk *out, bool *more, bool *finished) {
    (void)more, (void)finished;
    const plan_op *p = n->op;
    if (in->sel) chunk_apply_sel(in);
    for (uint32_t c = 0; c < p->ncols; c++) {
        int rc = expr_eval(x, n->ex[c], in, in->count);
        if (rc) return rc;
        vec_reference(&out->cols[c], n->ex[c]->result);
    }
    out->count = in->count;
    return STRATA_OK;
}

const op_vtable op_project = {
    .name = "PROJECTION",
    .child = {CHILD_STREAM},
    .open = exec_no_open,
    .close = exec_no_close,
    .exprs = project_exprs,
    .parallel = exec_parallel_always,
    .execute = project_exec,
};

/* ---- LIMIT -------------------------------------------------------------------------------- */

typedef struct limit_state {
    int64_t skip, left; /* left < 0: no limit */
    bool ready;
} limit_state;

static int limit_open(exec_ctx *x, op_node *n) { return exec_small_state(x, n, sizeof(limit_state)); }

static int limit_exec(exec_ctx *x, op_node *nd, data_chunk *in, data_chunk *out, bool *more, bool *finished) {
    (void)more;
    const plan_op *p = nd->op;
    limit_state *s = nd->state;
    if (!s->ready) {
        sql_value v;
        int rc;
        s->left = -1;
        if (p->limit.limit) {
            if ((rc = exec_eval_scalar(x, p->limit.limit, &v))) return rc;
            if (!v.is_null) {
                if (v.v.i < 0) return expr_error(x, p->limit.limit, STRATA_ERROR, "LIMIT must not be negative");
                s->left = v.v.i;
            }
        }
        if (p->limit.offset) {
            if ((rc = exec_eval_scalar(x, p->limit.offset, &v))) return rc;
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

const op_vtable op_limit = {
    .name = "LIMIT",
    .child = {CHILD_STREAM},
    .open = limit_open,
    .close = exec_small_close,
    .execute = limit_exec,
};
