/*
** bind.h -- from a syntax tree to a plan: names resolved against the catalog, types checked and
** implicit casts made explicit (PostgreSQL's rules, core/value.h), errors positioned with a
** caret and, for unknown names, a suggestion.
**
** The binder builds the plan; the optimizer (optimize/optimize.h) rewrites it as it is built, at
** the moments each rewrite needs: conjuncts of WHERE and ON pushed to the lowest join input that
** has their columns, equalities between the two inputs of a join as hash-join keys (so comma
** joins linked in WHERE never run as cross products), subqueries decorrelated, and once a query is
** bound its access paths, top-N sort and join order. api.c then prunes the finished plan's columns
** (optimize_prune).
*/
#ifndef STRATA_BIND_H
#define STRATA_BIND_H

#include "catalog/catalog.h"
#include "exec/plan.h"

typedef struct bind_ctx {
    catalog *cat;
    arena *mem;       /* the plan's arena */
    const char *sql;  /* the statement text (positions count from here) */
    size_t sqllen;
    strata_err *err;
    int nparams;      /* the highest parameter number seen */
    sql_type *param_types; /* inferred types of parameters, by number (grown as needed) */
    int cap_params;
    int depth;
    struct corr_ctx *corr; /* binding a subquery: where its outer references go */
    struct cte_scope *ctes; /* WITH names visible here, innermost first */
} bind_ctx;

/* bind_query binds a SELECT / VALUES / set operation into a plan whose output has names. */
int bind_query(bind_ctx *b, const sql_select *q, plan_op **out);
/* bind_insert / bind_update / bind_delete bind DML into a plan whose root is the DML operator. */
int bind_insert(bind_ctx *b, const sql_stmt *st, plan_op **out);
/* bind_copy binds COPY ... FROM (an INSERT plan) or COPY ... TO (a PLAN_COPY_TO root). */
int bind_copy(bind_ctx *b, const sql_stmt *st, plan_op **out);
int bind_update(bind_ctx *b, const sql_stmt *st, plan_op **out);
int bind_delete(bind_ctx *b, const sql_stmt *st, plan_op **out);
/* bind_index_build makes CREATE INDEX's build of an index of td on keys (as written): their values
** and each row's rowid from a scan of td into a PLAN_INDEX_BUILD. */
int bind_index_build(bind_ctx *b, table_def *td, sql_expr *const *keys, uint32_t nkeys, plan_op **out);
/* bind_feed makes the INSERT plan of `INSERT INTO t VALUES (...)` (every column, no RETURNING)
** take its rows from feed (a vec_rows, an appender's) instead of its VALUES: STRATA_ERROR when the
** rows' column types are no longer the table's, STRATA_MISUSE when the plan is not of that shape. */
int bind_feed(bind_ctx *b, plan_op *insert, cte_store *feed);
/* bind_table_expr binds an expression over the columns of one table (CHECK, DEFAULT, index keys;
** td NULL: no columns at all). */
int bind_table_expr(bind_ctx *b, table_def *td, const sql_expr *e, expr **out);
/* bind_cast wraps e in a cast to type t unless it has that type already. */
int bind_cast(bind_ctx *b, expr *e, sql_type t, bool explicit_cast, expr **out);
/* expr_equal says whether two bound expressions compute the same thing: the same kinds, types,
** columns, constants and operators throughout (a subquery equals nothing). */
bool expr_equal(const expr *a, const expr *c);

#endif
