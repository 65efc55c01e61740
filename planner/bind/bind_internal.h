/*
** bind_internal.h -- what bind.c shares with decorrelate.c: plan and expression constructors of
** the binder, and the decorrelation of WHERE conjuncts that bind.c calls.
*/
#ifndef STRATA_BIND_INTERNAL_H
#define STRATA_BIND_INTERNAL_H

#include "bind/bind.h"

/* bind_new_op makes an operator with ncols output columns (types and names zeroed); NULL when out
** of memory. */
plan_op *bind_new_op(bind_ctx *b, plan_kind kind, uint32_t ncols);
/* bind_mk makes an expression with nargs (zeroed) arguments; NULL when out of memory. */
expr *bind_mk(bind_ctx *b, expr_kind kind, sql_type type, size_t off, int nargs);
/* bind_col_range gives the smallest and largest input column e reads (*lo > *hi: none); the
** callers start with both UINT32_MAX. */
void bind_col_range(const expr *e, uint32_t *lo, uint32_t *hi);
/* bind_shift_cols adds delta to every input column e reads. */
void bind_shift_cols(expr *e, int64_t delta);
/* bind_conjuncts appends the conjuncts of e (an AND tree flattened) to *list. */
int bind_conjuncts(bind_ctx *b, expr *e, expr ***list, int *n, int *cap);
/* bind_add_join_key adds the hash key l = r (over child[0] and child[1]) to join j, which becomes
** a PLAN_HASH_JOIN; bind_add_residual ANDs pred (over the joined columns) to its residual. */
int bind_add_join_key(bind_ctx *b, plan_op *j, expr *l, expr *r);
int bind_add_residual(bind_ctx *b, plan_op *j, expr *pred);

/* decorrelate_conjunct (decorrelate.c) takes conjunct *e of a WHERE over *p's output. When it is
** [NOT] EXISTS or x [NOT] IN (subquery) that can run as a semi or anti join, the join goes into *p
** and *e becomes NULL. Otherwise the correlated scalar subqueries in *e that can run as a join
** with an aggregate become LEFT joins on top of *p (whose output grows by their columns), *e reads
** their values instead, and the caller places *e over the new *p. On error the plan may be
** half-changed (the statement fails). */
int decorrelate_conjunct(bind_ctx *b, plan_op **p, expr **e);
/* decorrelate_scalars does the latter for any expression *e over *p's output (a select item). */
int decorrelate_scalars(bind_ctx *b, plan_op **p, expr **e);

#endif
