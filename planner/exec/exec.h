/*
** exec.h -- running a plan: expression evaluation over vectors and push-based pipelines.
**
** A plan (plan.h) runs as pipelines: a source produces chunks, streaming operators (filter,
** project, limit, hash-join probe) transform them, and a sink consumes them. Operators that must
** see all their input first -- hash aggregate, sort, the build side of a hash join, DISTINCT and
** the set operations -- are sinks of one pipeline and the source of the next. exec_open prepares
** every operator; exec_next runs the final pipeline until it has a chunk of result rows, running
** the pipelines it depends on to completion first.
**
** Run-time errors (overflow, division by zero, a constraint) stop the statement with the error
** on ctx->err; the caller rolls back what the statement changed.
*/
#ifndef STRATA_EXEC_H
#define STRATA_EXEC_H

#include "catalog/catalog.h"
#include "exec/plan.h"

/* A working table of WITH RECURSIVE while its step runs: the rows the step's scans of store read
** (op_cte.c), bound in the step's run, inside the bindings of the runs around it (up). */
typedef struct cte_binding {
    const cte_store *store;
    void *rows;
    const struct cte_binding *up;
} cte_binding;

struct exec_ctx {
    pager_txn *txn;
    catalog *cat;
    sql_value *params; /* 1-based parameter i is params[i - 1] */
    int nparams;
    arena *mem;        /* the statement's run-time arena (parameter text, subquery results) */
    strata_err *err;
    const char *sql;   /* the statement's text, for positioned run-time errors */
    size_t sqllen;
    int64_t changes;   /* rows changed by INSERT/UPDATE/DELETE */
    int depth;         /* subquery nesting, bounded */
    void *pipelines;   /* the run's plan: operator states and pipelines (pipeline.c), kept between runs */
    sql_value *outer;  /* a correlated subquery's outer values (EXPR_PARAM -1, -2, ...) */
    const cte_binding *ctes; /* the working tables of the recursions this run is a step of */
    uint32_t nouter;
    volatile int *interrupt; /* set (non-zero) by strata_interrupt: stop with STRATA_INTERRUPT;
                              ** read with __atomic_load_n (another thread sets it) */
    const struct pool_worker *worker; /* a parallel pipeline's worker: its run stopping (another
                              ** worker's error) stops its morsel too, as the interrupt does */
    uint64_t run;      /* which run of the statement this is (uncorrelated subqueries run once per run) */
    bool analyze;      /* EXPLAIN ANALYZE: count rows and time per operator (op_node stats) */
    bool nested;       /* a run nested in an operator (WITH RECURSIVE's): its counters add up */
    unsigned threads;  /* workers a pipeline may run on (SET threads); 0 or 1: one */
    uint64_t morsel;   /* a worker's: the morsel of the source it runs now (pipeline.c). The
                       ** source's morsels in turn are the rows of the serial run in its order, and
                       ** a worker takes them in increasing order: what a sink keeps in order of
                       ** input (ORDER BY's ties) it orders by morsel across the workers. */
    vec_budget *budget; /* the query memory of this run (SET memory_limit); NULL: none */
    int64_t rejects;   /* records a COPY ... FROM sent to its REJECTS file */
    /* progress of a long statement: the sources add what they read (a COPY's file in bytes, the
    ** table scans in rows; total 0 when not known), and pipe_step calls progress() with it every
    ** PROGRESS_NS or so; a non-zero return stops the statement as an interrupt. */
    int (*progress)(void *arg, uint64_t done, uint64_t total, const char *unit);
    void *progress_arg;
    uint64_t progress_done, progress_total, progress_due;
    uint64_t *progress_shared; /* a parallel pipeline's worker 0: what every worker has read, added
                               ** to with __atomic builtins (progress_done is this worker's since) */
    const char *progress_unit;
};

/* ---- values in vectors (expr.c) ---------------------------------------------------------- */

/* vec_get_value reads row r of v as a sql_value (strings reference v's bytes). */
void vec_get_value(const vector *v, uint32_t r, sql_value *out);
/* vec_set_value writes row r of a writable FLAT vector (strings copied into its heap); the value
** must have v's physical type. */
int vec_set_value(vector *v, uint32_t r, const sql_value *val, strata_err *err);

/* ---- expressions (expr.c) ---------------------------------------------------------------- */

/* An expression's run-time state in one operator of one run (of one worker, once runs are
** parallel): a tree mirroring the expression's, each node with its result vector and its kind's
** scratch (CASE's sliced input, a predicate's prepared constants, a subquery's kept result). The
** expression (plan.h) is never written while it runs: any number of states may evaluate it at
** once. */
typedef struct expr_state expr_state;
struct expr_state {
    const expr *e;
    vector *result;      /* the evaluated vector */
    void *aux;           /* per-kind scratch */
    expr_state **args;   /* the arguments' states (e->nargs) */
};

/* expr_state_make makes the state of e and its subtree (e NULL: *out NULL); expr_state_free frees
** one (NULL: nothing). expr_states_make / _free do so for a list. */
int expr_state_make(const expr *e, strata_err *err, expr_state **out);
void expr_state_free(expr_state *s);
int expr_states_make(expr *const *list, uint32_t n, strata_err *err, expr_state ***out);
void expr_states_free(expr_state **list, uint32_t n);
/* expr_eval computes s's expression for the count rows of in (in->sel applied), into s->result:
** row i of the result is row i of in. in may be NULL for expressions without columns (count rows
** then). */
int expr_eval(exec_ctx *x, expr_state *s, data_chunk *in, uint32_t count);
/* expr_select evaluates a BOOLEAN expression and writes the rows where it is true into sel; *n is
** their number. */
int expr_select(exec_ctx *x, expr_state *s, data_chunk *in, uint32_t count, sel_t *sel, uint32_t *n);
/* expr_param_value gives the value of an EXPR_PARAM (a bound parameter or a correlated
** subquery's outer value) cast to the parameter's type; strings are not copied. */
int expr_param_value(exec_ctx *x, const expr *e, sql_value *out);
/* expr_eval_const evaluates an expression without columns to one value (strings in x->mem),
** through a state of its own. */
int expr_eval_const(exec_ctx *x, const expr *e, sql_value *out);
/* expr_error records a run-time error positioned at e. */
int expr_error(exec_ctx *x, const expr *e, int code, const char *msg);

/* ---- plans (pipeline.c) ------------------------------------------------------------------- */

/* exec_open starts a run of root: its operators' states are made, and its pipelines built with
** the states of the expressions each operator evaluates, or reused when x->pipelines holds those
** of an earlier run of the same plan. */
int exec_open(exec_ctx *x, const plan_op *root);
/* exec_next fills out (the root's output types) with the next rows: out->count 0 at the end. */
int exec_next(exec_ctx *x, const plan_op *root, data_chunk *out);
/* exec_close ends a run: the operators' states go, but for what the next run reuses; the run's
** plan (x->pipelines, with the expressions' states) stays for the next run. exec_destroy frees it
** (pipelines: the x->pipelines of the last run), as exec_plan_free does. */
void exec_close(exec_ctx *x, const plan_op *root);
void exec_destroy(void **pipelines);
void exec_plan_free(void *pipelines);
/* exec_index_load loads the entries that root, a PLAN_INDEX_BUILD run to its end (exec_next) and
** not yet closed, sorted into ix, a new and empty index (op_index.c); STRATA_CONSTRAINT when ix is
** unique and two entries share a key without NULLs. */
int exec_index_load(exec_ctx *x, const plan_op *root, const struct index_def *ix);
/* exec_stats is operator p's EXPLAIN ANALYZE counters in the last run of pipelines (NULL: p did
** not run). */
const struct op_stats *exec_stats(void *pipelines, const plan_op *p);
/* exec_subquery evaluates an EXPR_SUBQUERY over the count rows of in into s->result (expr.c
** calls it): an uncorrelated subquery runs once per statement run and its result is kept in
** s->aux, a correlated one runs for every row with that row's outer values.
** exec_subquery_release frees what s->aux kept. */
int exec_subquery(exec_ctx *x, expr_state *s, data_chunk *in, uint32_t count);
void exec_subquery_release(expr_state *s);
/* exec_subqueries_share computes, on the run's thread and with the run's threads, the
** uncorrelated subqueries in s's tree that have no result for this run yet, before a pipeline
** runs on the workers (a failure is left for a worker to meet when a row needs the value);
** exec_subqueries_link then has a worker's states of the same expressions (local) read those
** results instead of each running the subquery again. */
void exec_subqueries_share(exec_ctx *x, expr_state *s);
void exec_subqueries_link(expr_state *local, const expr_state *global);

#endif
