/*
** op_filter.c -- the streaming operators of one input: filter (WHERE, HAVING), projection and
** LIMIT/OFFSET (operator.h).
*/
#include "exec/operator.h"

#include <string.h>

/* ---- filter ------------------------------------------------------------------------------- */

static int filter_open(exec_ctx *x, op_node *n) { return expr_prepare(n->op->filter.pred, x->err); }

static void filter_release(const plan_op *p) { expr_release(p->filter.pred); }

static int filter_exec(exec_ctx *x, op_node *nd, data_chunk *in, data_chunk *out, bool *more, bool *finished) {
    (void)more, (void)finished;
    const plan_op *p = nd->op;
    sel_t sel[VECTOR_SIZE];
    uint32_t n;
    int rc = expr_select(x, p->filter.pred, in, in->count, sel, &n);
    if (rc) return rc;
    for (uint32_t c = 0; c < p->ncols; c++) vec_slice(&out->cols[c], &in->cols[c], sel, n);
    out->count = n;
    return STRATA_OK;
}

const op_vtable op_filter = {
    .name = "FILTER",
    .child = {CHILD_STREAM},
    .open = filter_open,
    .close = exec_no_close,
    .release = filter_release,
    .execute = filter_exec,
};

/* ---- projection --------------------------------------------------------------------------- */

static int project_open(exec_ctx *x, op_node *n) {
    const plan_op *p = n->op;
    for (uint32_t i = 0; i < p->ncols; i++) {
        int rc = expr_prepare(p->project.exprs[i], x->err);
        if (rc) return rc;
    }
    return STRATA_OK;
}

static void project_release(const plan_op *p) { exec_release_exprs(p->project.exprs, p->ncols); }

static int project_exec(exec_ctx *x, op_node *n, data_chunk *in, data_chunk *out, bool *more, bool *finished) {
    (void)more, (void)finished;
    const plan_op *p = n->op;
    if (in->sel) chunk_apply_sel(in);
    for (uint32_t c = 0; c < p->ncols; c++) {
        int rc = expr_eval(x, p->project.exprs[c], in, in->count);
        if (rc) return rc;
        vec_reference(&out->cols[c], p->project.exprs[c]->result);
    }
    out->count = in->count;
    return STRATA_OK;
}

const op_vtable op_project = {
    .name = "PROJECTION",
    .child = {CHILD_STREAM},
    .open = project_open,
    .close = exec_no_close,
    .release = project_release,
    .execute = project_exec,
};

/* ---- LIMIT -------------------------------------------------------------------------------- */

typedef struct limit_state {
    int64_t skip, left; /* left < 0: no limit */
    bool ready;
} limit_state;

static int limit_open(exec_ctx *x, op_node *n) { return exec_small_state(x, n, sizeof(limit_state)); }

static void limit_release(const plan_op *p) {
    expr_release(p->limit.limit);
    expr_release(p->limit.offset);
}

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
    .release = limit_release,
    .execute = limit_exec,
};
