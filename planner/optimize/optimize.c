/*
** optimize.c -- the rewrites of a query once it is bound (optimize_query, optimize_subquery;
** optimize.h): a top-N sort, the access paths (access.c), the join order and the index joins
** (joinorder.c).
**
** They run on each query as bind_query finishes it, innermost first, so a view or a subquery in
** FROM is rewritten before the query around it sees it. The joins of a query bound within a
** subquery of an expression are left in the order the binder built them: when the subquery is
** uncorrelated, optimize_subquery orders them once it is bound; when it is correlated, its plan
** may yet be taken apart into a join of the outer query (decorrelate.c), whose order then covers
** it.
*/
#include "optimize/optimize.h"

/* top_n makes a LIMIT (constant, with a constant OFFSET or none) directly over a SORT a top-N sort:
** the sort keeps only its first limit + offset rows. */
static void top_n(plan_op *p) {
    if (p->kind == PLAN_LIMIT && p->child[0]->kind == PLAN_SORT && p->limit.limit && p->limit.limit->kind == EXPR_CONST &&
        !p->limit.limit->value.is_null && (!p->limit.offset || (p->limit.offset->kind == EXPR_CONST && !p->limit.offset->value.is_null))) {
        int64_t lim = p->limit.limit->value.v.i, off = p->limit.offset ? p->limit.offset->value.v.i : 0;
        if (lim >= 0 && off >= 0 && lim <= INT64_MAX - off) p->child[0]->sort.limit = lim + off;
    }
}

int optimize_query(bind_ctx *b, plan_op **p) {
    top_n(*p);
    int rc;
    if ((rc = choose_access(b, *p)) || (!b->corr && (rc = join_order(b, p)))) return rc;
    join_lookups(*p);
    return STRATA_OK;
}

int optimize_subquery(bind_ctx *b, plan_op **p) {
    int rc = join_order(b, p);
    if (!rc) join_lookups(*p);
    return rc;
}
