/*
** joinorder.h -- the order of inner joins, chosen from estimated row counts.
**
** The binder builds joins in the order the FROM clause names the tables, with each WHERE and ON
** conjunct placed at the lowest join that has its columns. join_order takes each tree of inner
** joins of a plan (its relations: the inputs that are not inner joins themselves) and rebuilds
** it in the order that makes the smallest intermediate results by the estimates (the sum of the
** joins' output rows): by dynamic programming over the subsets of up to JOIN_ORDER_DP relations,
** greedily beyond. Two sets are joined only when some condition links them, unless no order
** avoids a cross product (the query itself asks for one). Each hash join builds on its smaller
** estimated input. A projection on top gives the columns in the original order.
*/
#ifndef STRATA_JOINORDER_H
#define STRATA_JOINORDER_H

#include "bind.h"

#define JOIN_ORDER_DP 12

/* The estimates the order comes from: the rows plan p outputs, and the distinct values of its
** output column col (both at least 1). */
typedef struct join_estimates {
    double (*rows)(void *arg, const plan_op *p);
    double (*distinct)(void *arg, const plan_op *p, uint32_t col);
    void *arg;
} join_estimates;

/* join_order reorders the inner joins in plan *p (the subtrees of its relations included, not
** the plans of subqueries in expressions), replacing *p when its root changes. */
int join_order(bind_ctx *b, plan_op **p, const join_estimates *est);

#endif
