/*
** optimize.h -- the optimizer: the rewrites that make a bound plan faster without changing its
** results. This is the room's one header for the rewrites: the entry points the binder and api.c
** call, and what the room's files share among themselves. Row estimates have their own header,
** estimate.h, which needs no binder and which EXPLAIN (api.c) uses too.
**
** The binder (bind/bind.c) calls the rewrites while it builds the plan, because each needs the plan
** at that moment: an expression rewrite (simplify.c) as the expression is bound, so that the
** equality it makes can become a hash key; each WHERE and ON conjunct placed (pushdown.c) as its
** FROM clause is bound, before the operators above it exist, a WHERE's subqueries decorrelated
** there too (decorrelate.c); and once a query is bound, optimize_query for the rest (optimize.c:
** top-N, access paths, join order). api.c prunes the finished statement's columns
** (optimize_prune, prune.c), which places the join filters too (joinfilter.c).
**
** Every rewrite allocates in the plan's arena (b->mem) with the binder's constructors
** (bind/bind_internal.h); on error the statement fails, and the plan may be left half-rewritten.
*/
#ifndef STRATA_OPTIMIZE_H
#define STRATA_OPTIMIZE_H

#include "bind/bind.h"

/* ---- what the binder calls ----------------------------------------------------------------- */

/* optimize_query rewrites the plan *p of a query that bind_query has just bound (each query: a
** view, a subquery, a side of a set operation, a WITH query): an ORDER BY ... LIMIT (constants) at
** its root becomes a top-N sort; filters over table scans get their access paths (choose_access);
** unless the query is (within) a subquery of an expression, its inner joins are reordered
** (join_order); hash joins with a selective probe side become index joins (join_lookups). *p is
** replaced when its root changes. (optimize.c) */
int optimize_query(bind_ctx *b, plan_op **p);
/* optimize_subquery orders the joins of an uncorrelated subquery of an expression once it is bound
** (optimize_query leaves them while any subquery is bound; a correlated subquery's are ordered in
** the outer query once it is decorrelated) and makes its index joins. (optimize.c) */
int optimize_subquery(bind_ctx *b, plan_op **p);

/* pushdown_where places the conjuncts of a WHERE (over *p's output) on *p: first those without
** subqueries, each as pushdown_conjuncts does, so that the joins decorrelation makes of the others
** (semi and anti joins pushed down the same way, LEFT joins with aggregates on top) see the
** filtered inputs; what decorrelation leaves is placed last. (pushdown.c) */
int pushdown_where(bind_ctx *b, plan_op **p, expr *where);
/* pushdown_conjuncts places each conjunct of pred (an AND tree over *p's output) as
** pushdown_conjunct does; a conjunct that is an OR has the conjuncts that all its branches share
** taken out and placed on their own ((a AND b) OR (a AND c) is a AND (b OR c)). from_on: pred is
** the ON condition of *p itself. (pushdown.c) */
int pushdown_conjuncts(bind_ctx *b, plan_op **p, expr *pred, bool from_on);
/* pushdown_conjunct pushes conjunct e (over *p's output) down to the lowest join input that has
** its columns, where joins let it (an outer join's preserved side is not filtered by its own ON
** condition); an equality between the two inputs of a join becomes a hash key (the join a
** PLAN_HASH_JOIN), anything else that stays at a join its residual; else a filter, merged with a
** filter already there. from_on: e comes from the ON clause of *p itself. (pushdown.c) */
int pushdown_conjunct(bind_ctx *b, plan_op **p, expr *e, bool from_on);

/* choose_access turns each FILTER over a full table scan in p (subtrees included) into a rowid
** range scan or an index scan when the filter has equality or range conjuncts (a `LIKE 'prefix%'`
** counts as the prefix's range) on the rowid column or on an index's key prefix, and otherwise
** records the conjuncts the column store's zone maps can skip row groups by. (access.c) */
int choose_access(bind_ctx *b, plan_op *p);

/* decorrelate_conjunct takes conjunct *e of a WHERE over *p's output. When it is [NOT] EXISTS or
** x [NOT] IN (subquery) that can run as a semi or anti join, the join goes into *p and *e becomes
** NULL. Otherwise the correlated scalar subqueries in *e that can run as a join with an aggregate
** become LEFT joins on top of *p (whose output grows by their columns), *e reads their values
** instead, and the caller places *e over the new *p. On error the plan may be half-changed (the
** statement fails). (decorrelate.c) */
int decorrelate_conjunct(bind_ctx *b, plan_op **p, expr **e);
/* decorrelate_scalars does the latter for any expression *e over *p's output (a select item); an
** expression without such subqueries is left as it is. (decorrelate.c) */
int decorrelate_scalars(bind_ctx *b, plan_op **p, expr **e);

/* simplify_in_one makes x IN (y) (NOT IN: negated) in *out as x = y (x <> y), NULLs alike, so that
** the equality can be a hash key or a lookup; x and y have their common type. (simplify.c) */
int simplify_in_one(bind_ctx *b, expr *x, expr *y, bool negated, size_t off, expr **out);
/* simplify_like makes a case-sensitive `text LIKE pattern` (NOT LIKE: negated) whose pattern is a
** constant without wildcards in *out as `text = 'literal'` (<>), the literal the pattern's
** unescaped text, so that an index or a hash join can use it; text is the LIKE's left side before
** its cast to VARCHAR. *out is NULL when the rewrite does not apply. (simplify.c) */
int simplify_like(bind_ctx *b, expr *text, const expr *pattern, int escape, bool ilike, bool negated, size_t off,
                  expr **out);
/* simplify_date_vs_timestamp rewrites `date x op timestamp constant c` (either side first: *x op
** *y) as a comparison of x with a DATE constant, which compares the column as it is stored (no
** cast per row; zone maps and encoded filters apply): with c at midnight of day d, x op d; with c
** later in day d, x < c and x <= c are x <= d, x > c and x >= c are x > d. *op, *x and *y are
** replaced (the column first); false, and nothing changed, when it does not apply (= and <> with a
** time of day, a day outside DATE's range, out of memory). The binder calls it before it types a
** comparison. (simplify.c) */
bool simplify_date_vs_timestamp(bind_ctx *b, cmp_op *op, expr **x, expr **y);

/* ---- what api.c calls ---------------------------------------------------------------------- */

/* group_keys makes each GROUP BY of plan *p (not those of subqueries in expressions) tell its
** groups apart by only the keys that the others do not determine (a primary key determines its
** table's columns, an inner join's equality carries that on): those first (agg.nhash of them),
** with a projection above when the keys had to be reordered. Call it once on a finished plan,
** before optimize_prune. (groupkeys.c) */
int group_keys(bind_ctx *b, plan_op **p);

/* optimize_prune marks, in every table scan of plan p (subqueries included), the columns that
** some operator above reads, so that the scan decodes only those; a projection's outputs that
** nothing reads are not computed; each hash join gets its join filters (join_filter_place). Call
** it once on a finished plan. (prune.c) */
int optimize_prune(bind_ctx *b, plan_op *p);

/* ---- what the files of optimize/ share ----------------------------------------------------- */

/* JOIN_ORDER_DP: join_order orders a tree of up to this many relations by dynamic programming
** over their subsets, a larger one greedily. */
#define JOIN_ORDER_DP 12

/* join_order reorders the inner joins in plan *p (the subtrees of its relations included, not
** the plans of subqueries in expressions), replacing *p when its root changes. (joinorder.c) */
int join_order(bind_ctx *b, plan_op **p);
/* join_lookups turns each hash join of p whose build side is a whole table joined on its rowid or
** on an index's first key into an index join, when its probe side is selective (a rowid lookup
** or range, an index scan, a few VALUES): each probe row then reads its matches by key instead of
** the join hashing the whole table. (joinorder.c) */
void join_lookups(plan_op *p);
/* join_filter_place gives each key of hash join j (any kind but LEFT, FULL and ANTI) whose probe
** side is a column that a scan below the probe side produces unchanged a join filter (plan.h),
** and hands the filter to that scan. Called once the scans' columns are pruned (optimize_prune).
** (joinfilter.c) */
int join_filter_place(bind_ctx *b, plan_op *j);

/* expr_conjuncts appends the conjuncts of e (an AND tree flattened) to *list (*n of *cap used,
** grown in the plan's arena). (pushdown.c) */
int expr_conjuncts(bind_ctx *b, expr *e, expr ***list, int *n, int *cap);
/* expr_shift_cols adds delta to every input column e reads (an expression moved to a join input,
** or from one). (pushdown.c) */
void expr_shift_cols(expr *e, int64_t delta);
/* join_add_key adds the hash key l = r (over child[0] and child[1]) to join j, which becomes a
** PLAN_HASH_JOIN; join_add_residual ANDs pred (over the joined columns) to its residual.
** (pushdown.c) */
int join_add_key(bind_ctx *b, plan_op *j, expr *l, expr *r);
int join_add_residual(bind_ctx *b, plan_op *j, expr *pred);

#endif
