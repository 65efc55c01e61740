/*
** chunk.c -- data chunks: up to VECTOR_SIZE rows as one vector per column.
**
** What it is. A chunk is what one operator hands the next. A filter does not move data: it
** composes its result into the chunk's lazy selection (chunk_slice), which costs one pass over
** the selection whatever the number of columns; the next operator reads through c->sel, or
** pushes it into the columns as dictionaries (chunk_apply_sel), or materializes (chunk_flatten).
** The two selection buffers let a slice compose from the current selection into the other one
** without a temporary. Sinks that keep rows (collections, hash tables, sorts) accumulate them
** with chunk_append, which copies values and string bytes and stops at VECTOR_SIZE rows.
**
** What it is not: no knowledge of operators or pipelines (planner/), no row-at-a-time access.
*/
#include "vector_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

int chunk_init(data_chunk *c, const sql_type *types, uint32_t ncols, strata_err *err) {
    memset(c, 0, sizeof *c);
    c->sel_buf[0] = vec_scratch_alloc(2 * VECTOR_SIZE * sizeof(sel_t));
    if (c->sel_buf[0] == NULL) return err_set(err, STRATA_NOMEM, "out of memory allocating a data chunk");
    c->sel_buf[1] = c->sel_buf[0] + VECTOR_SIZE;
    if (ncols > 0) {
        c->cols = vec_alloc((size_t)ncols * sizeof(vector));
        if (c->cols == NULL) {
            chunk_free(c);
            return err_set(err, STRATA_NOMEM, "out of memory allocating a data chunk of %u columns", ncols);
        }
        memset(c->cols, 0, (size_t)ncols * sizeof(vector)); /* vec_free is safe on the ones not reached */
        c->ncols = ncols;
    }
    for (uint32_t i = 0; i < ncols; i++) {
        int rc = vec_init(&c->cols[i], types[i], err);
        if (rc != STRATA_OK) {
            chunk_free(c);
            return rc;
        }
    }
    return STRATA_OK;
}

void chunk_free(data_chunk *c) {
    for (uint32_t i = 0; i < c->ncols; i++)
        vec_free(&c->cols[i]);
    free(c->cols);
    vec_scratch_free(c->sel_buf[0], 2 * VECTOR_SIZE * sizeof(sel_t));
    memset(c, 0, sizeof *c);
}

void chunk_reset(data_chunk *c) {
    for (uint32_t i = 0; i < c->ncols; i++)
        vec_reset(&c->cols[i]);
    c->count = 0;
    c->sel = NULL;
}

void chunk_slice(data_chunk *c, const sel_t *sel, uint32_t n) {
    assert(n <= c->count);
    sel_t *out = c->sel == c->sel_buf[0] ? c->sel_buf[1] : c->sel_buf[0];
    sel_compose(out, c->sel, sel, n);
    c->sel = out;
    c->count = n;
}

void chunk_apply_sel(data_chunk *c) {
    if (c->sel == NULL) return;
    for (uint32_t i = 0; i < c->ncols; i++)
        vec_slice(&c->cols[i], &c->cols[i], c->sel, c->count);
    c->sel = NULL;
}

void chunk_flatten(data_chunk *c) {
    chunk_apply_sel(c);
    for (uint32_t i = 0; i < c->ncols; i++)
        vec_flatten(&c->cols[i], c->count);
}

int chunk_append(data_chunk *dst, const data_chunk *src, const sel_t *sel, uint32_t n, uint32_t *appended,
                 strata_err *err) {
    assert(dst != src && dst->sel == NULL && dst->ncols == src->ncols);
    *appended = 0;
    uint32_t room = VECTOR_SIZE - dst->count;
    uint32_t m = n < room ? n : room;
    if (m == 0) return STRATA_OK;
    const sel_t *rows = sel;
    if (src->sel != NULL) { /* dst has no selection of its own: its buffer holds the composition */
        sel_compose(dst->sel_buf[0], src->sel, sel ? sel : sel_identity(), m);
        rows = dst->sel_buf[0];
    }
    for (uint32_t i = 0; i < dst->ncols; i++) {
        int rc = vec_copy(&dst->cols[i], dst->count, &src->cols[i], rows, m, err);
        if (rc != STRATA_OK) return rc;
    }
    dst->count += m;
    *appended = m;
    return STRATA_OK;
}
