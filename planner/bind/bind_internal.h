/*
** bind_internal.h -- what bind.c offers the optimizer's files (optimize/): the binder's plan and
** expression constructors, which allocate in the plan's arena and record "out of memory" on
** b->err when they fail.
*/
#ifndef STRATA_BIND_INTERNAL_H
#define STRATA_BIND_INTERNAL_H

#include "bind/bind.h"

/* bind_alloc0 gives n zeroed bytes (at least one) of the plan's arena; NULL when out of memory
** (nothing is recorded). */
void *bind_alloc0(bind_ctx *b, size_t n);
/* bind_new_op makes an operator with ncols output columns (types and names zeroed); NULL when out
** of memory. */
plan_op *bind_new_op(bind_ctx *b, plan_kind kind, uint32_t ncols);
/* bind_mk makes an expression with nargs (zeroed) arguments; bind_mk2 one with the arguments x
** and y (y NULL: x alone); bind_mk_const a constant. NULL when out of memory. */
expr *bind_mk(bind_ctx *b, expr_kind kind, sql_type type, size_t off, int nargs);
expr *bind_mk2(bind_ctx *b, expr_kind kind, sql_type type, size_t off, expr *x, expr *y);
expr *bind_mk_const(bind_ctx *b, sql_value v, size_t off);
/* bind_col_range gives the smallest and largest input column e reads (*lo > *hi: none); the
** callers start with both UINT32_MAX. */
void bind_col_range(const expr *e, uint32_t *lo, uint32_t *hi);
/* bind_make_cmp makes x op y in *out with both sides cast to their common type, as the binder
** binds a comparison (the errors positioned at off). */
int bind_make_cmp(bind_ctx *b, cmp_op op, expr *x, expr *y, size_t off, expr **out);
/* bind_add_filter puts pred (over *p's output) on top of *p, ANDed to the predicate of a filter
** already there. */
int bind_add_filter(bind_ctx *b, plan_op **p, expr *pred);

#endif
