/*
** joinorder.h -- the order of inner joins, chosen from estimated row counts.
**
** The binder builds joins in the order the FROM clause names the tables, with each WHERE and ON
** conjunct placed at the lowest join that has its columns. join_order takes each tree of inner
** joins of a plan (its relations: the inputs that are not inner joins themselves) and rebuilds
** it in the order that makes the smallest intermediate results by the estimates of estimate.h
** (the sum of the joins' output rows): by dynamic programming over the subsets of up to JOIN_ORDER_DP relations,
** greedily beyond. Two sets are joined only when some condition links them, unless no order
** avoids a cross product (the query itself asks for one). Each hash join builds on its smaller
** estimated input, unless the other way round its build side can be looked up by key (an index
** join, see join_lookups); LEFT joins whose left input is the smaller become RIGHT joins with
** their inputs swapped, and SEMI and ANTI joins RIGHT_SEMI and RIGHT_ANTI ones. A projection on top gives the columns in the original order.
*/
#ifndef STRATA_JOINORDER_H
#define STRATA_JOINORDER_H

#include "bind/bind.h"

#define JOIN_ORDER_DP 12

/* join_order reorders the inner joins in plan *p (the subtrees of its relations included, not
** the plans of subqueries in expressions), replacing *p when its root changes. */
int join_order(bind_ctx *b, plan_op **p);

/* join_lookups turns each hash join of p whose build side is a whole table joined on its rowid or
** on an index's first key into an index join, when its probe side is selective (a rowid lookup
** or range, an index scan, a few VALUES): each probe row then reads its matches by key instead of
** the join hashing the whole table. */
void join_lookups(plan_op *p);

/* join_filter_place gives each key of hash join j (any kind but LEFT, FULL and ANTI) whose probe side is a
** column that a scan below the probe side produces unchanged a join filter (plan.h), and hands
** the filter to that scan (joinfilter.c). Called once the scans' columns are pruned (bind_prune). */
int join_filter_place(bind_ctx *b, plan_op *j);

#endif
