/*
** pipeline.c -- running plans as push-based pipelines of data chunks (see exec.h), through the
** operator table (operator.h).
**
** Pipelines. build cuts the operator tree where a child's role is CHILD_SINK: a pipeline is a
** source, a chain of streaming operators and a sink. An operator that sinks a child (aggregate,
** sort, distinct, set operation, the build side of a join, a DML operator, COPY TO) is the sink
** of the pipelines below it and the source, or a streaming operator (a join), of the one above.
** The last pipeline has no sink: exec_next hands its chunks to the caller.
**
** Streaming operators may produce more output than fits one chunk (a join's fan-out): they say
** so with `more`, and the executor calls them again with the same input before fetching new
** input. At the end of its input a streaming operator may flush rows it held back (an outer
** join's unmatched build rows).
**
** A run's plan (exec_plan) holds an op_node per operator, in the order they open (children
** first), and the pipelines, whose sources, operators and sinks point at those nodes. It stays
** with the prepared statement between runs (x->pipelines).
**
** Collections (rows kept by a breaker) are lists of full data chunks whose values and strings are
** copied (chunk_append), so nothing kept refers to a page or another operator's vectors.
*/
#include "exec/operator.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pool.h"

/* ---- the operator table ------------------------------------------------------------------ */

static const op_vtable *const op_table[] = {
    [PLAN_SCAN] = &op_scan,
    [PLAN_INDEX_SCAN] = &op_index_scan,
    [PLAN_VALUES] = &op_values,
    [PLAN_SERIES] = &op_series,
    [PLAN_STORAGE_INFO] = &op_storage_info,
    [PLAN_FILTER] = &op_filter,
    [PLAN_PROJECT] = &op_project,
    [PLAN_AGG] = &op_agg,
    [PLAN_HASH_JOIN] = &op_hash_join,
    [PLAN_NL_JOIN] = &op_nl_join,
    [PLAN_INDEX_JOIN] = &op_index_join,
    [PLAN_SORT] = &op_sort,
    [PLAN_LIMIT] = &op_limit,
    [PLAN_DISTINCT] = &op_distinct,
    [PLAN_SETOP] = &op_setop,
    [PLAN_INSERT] = &op_insert,
    [PLAN_UPDATE] = &op_update,
    [PLAN_DELETE] = &op_delete,
    [PLAN_CTE_SCAN] = &op_cte_scan,
    [PLAN_RECURSIVE] = &op_recursive,
    [PLAN_EMPTY] = &op_empty,
    [PLAN_FILE_SCAN] = &op_file_scan,
    [PLAN_COPY_TO] = &op_copy_to,
    [PLAN_INDEX_BUILD] = &op_index_build,
};
_Static_assert(sizeof op_table / sizeof op_table[0] == PLAN_KIND_COUNT, "an operator kind has no op_table entry");

const op_vtable *op_vt(const plan_op *p) { return op_table[p->kind]; }

int exec_check_operators(strata_err *err) {
    for (int k = 0; k < PLAN_KIND_COUNT; k++) {
        const op_vtable *v = op_table[k];
        if (!v) return err_set(err, STRATA_ERROR, "operator kind %d has no entry in op_table", k);
        const char *missing = !v->name ? "a name" : !v->open || !v->close ? "open and close" : NULL;
        /* the operator above a streamed child streams; one that is not streamed is a source */
        bool streams = v->child[0] == CHILD_STREAM, sinks = v->child[0] == CHILD_SINK || v->child[1] == CHILD_SINK;
        if (!missing && streams && !v->execute) missing = "execute";
        if (!missing && !streams && !v->source) missing = "source";
        if (!missing && sinks && !v->sink) missing = "sink";
        if (!missing && (v->child[0] == CHILD_NESTED || v->child[1] == CHILD_NESTED) && !v->nested) missing = "nested";
        if (missing) return err_set(err, STRATA_ERROR, "operator %s (kind %d) has no %s", v->name ? v->name : "?", k, missing);
    }
    return STRATA_OK;
}

/* ---- what the operators share ------------------------------------------------------------ */

int exec_nomem(exec_ctx *x) { return err_set(x->err, STRATA_NOMEM, "out of memory (executor)"); }

int exec_eval_scalar(exec_ctx *x, expr *e, sql_value *out) {
    if (e->kind == EXPR_CONST) {
        *out = e->value;
        return STRATA_OK;
    }
    if (e->kind == EXPR_PARAM) return expr_param_value(x, e, out);
    return expr_eval_const(x, e, out);
}

int exec_table_error(exec_ctx *x, int rc) {
    if (x->err->code) return x->err->code;
    int code = err_copy(x->err, pager_txn_err(x->txn));
    return code ? code : err_set(x->err, rc, "%s", strata_errstr(rc));
}

int exec_rows_init(exec_ctx *x, vec_rows *c, const sql_type *types, uint32_t ncols) {
    int rc = vec_rows_init(c, types, ncols, x->err);
    c->budget = x->budget;
    return rc;
}

int exec_groups_init(exec_ctx *x, vec_groups *g, const sql_type *types, uint32_t ncols) {
    int rc = vec_groups_init(g, types, ncols, x->err);
    g->keys.budget = x->budget;
    return rc;
}

int exec_join_table_init(exec_ctx *x, vec_join_table *t, const sql_type *types, uint32_t nkeys) {
    int rc = vec_join_init(t, types, nkeys, x->err);
    t->groups.keys.budget = x->budget;
    return rc;
}

int exec_key_vectors(exec_ctx *x, const sql_type *types, uint32_t n, vector *tmp) {
    for (uint32_t k = 0; k < n; k++) {
        int rc = vec_init(&tmp[k], types[k], x->err);
        if (rc) {
            exec_key_vectors_free(tmp, k);
            return rc;
        }
    }
    return STRATA_OK;
}

void exec_key_vectors_free(vector *tmp, uint32_t n) {
    for (uint32_t k = 0; k < n; k++) vec_free(&tmp[k]);
}

int exec_small_state(exec_ctx *x, op_node *n, size_t bytes) {
    if (n->state) memset(n->state, 0, bytes);
    else if (!(n->state = calloc(1, bytes))) return exec_nomem(x);
    return STRATA_OK;
}

void exec_small_close(op_node *n, bool keep) {
    if (keep) return;
    free(n->state);
    n->state = NULL;
}

bool exec_parallel_always(const plan_op *p, int side) {
    (void)p, (void)side;
    return true;
}

int exec_no_open(exec_ctx *x, op_node *n) {
    (void)x, (void)n;
    return STRATA_OK;
}

void exec_no_close(op_node *n, bool keep) { (void)n, (void)keep; }

uint32_t exec_list_exprs(expr *const *from, uint32_t n, const expr **list) {
    for (uint32_t i = 0; list && i < n; i++) list[i] = from[i];
    return n;
}

/* node_exprs makes the states of the expressions node n evaluates. */
static int node_exprs(exec_ctx *x, op_node *n) {
    uint32_t k = n->vt->exprs(n->op, NULL);
    const expr *list[k + 1];
    n->vt->exprs(n->op, list);
    int rc = expr_states_make((expr *const *)list, k, x->err, &n->ex);
    if (!rc) n->nex = k;
    return rc;
}

/* ---- pipelines ---------------------------------------------------------------------------- */

#define MAX_PIPE_OPS 64

typedef struct pipeline {
    op_node *source;
    op_node *ops[MAX_PIPE_OPS];
    int nops;
    op_node *sink; /* NULL: the result */
    int side;      /* which input of the sink */
    data_chunk bufs[MAX_PIPE_OPS + 1];
    bool ready;    /* bufs initialized */
    bool more[MAX_PIPE_OPS];
    bool source_done, finished;
    bool hold_flush; /* a worker's pipeline on a morsel: the operators' held-back rows wait for
                     ** the end of every morsel (pipe_flush_workers) */
    int flush_op;  /* next op to flush */
} pipeline;

typedef struct exec_plan {
    int n, cap;
    pipeline **pipes; /* in dependency order; the last is the result pipeline */
    uint32_t nnodes;
    op_node *nodes;   /* every operator run, children before their parent */
} exec_plan;

/* runs_in_plan: a child of this role is one of the run's operators (not run, or run nested, else) */
static bool runs_in_plan(child_role r) { return r == CHILD_STREAM || r == CHILD_SINK; }

/* count_nodes is the number of operators of p's tree that the run of p runs itself. */
static uint32_t count_nodes(const plan_op *p) {
    const op_vtable *v = op_vt(p);
    uint32_t n = 1;
    for (int i = 0; i < 2; i++)
        if (p->child[i] && runs_in_plan(v->child[i])) n += count_nodes(p->child[i]);
    return n;
}

static op_node *add_nodes(exec_plan *ep, const plan_op *p) {
    const op_vtable *v = op_vt(p);
    for (int i = 0; i < 2; i++)
        if (p->child[i] && runs_in_plan(v->child[i])) add_nodes(ep, p->child[i]);
    op_node *n = &ep->nodes[ep->nnodes++];
    *n = (op_node){.op = p, .vt = v};
    return n;
}

static op_node *node_of(exec_plan *ep, const plan_op *p) {
    for (uint32_t i = 0; i < ep->nnodes; i++)
        if (ep->nodes[i].op == p) return &ep->nodes[i];
    return NULL;
}

op_node *exec_node(exec_ctx *x, const plan_op *p) { return x->pipelines ? node_of(x->pipelines, p) : NULL; }

static int pipe_add(exec_ctx *x, exec_plan *ep, pipeline **out) {
    if (ep->n == ep->cap) {
        int nc = ep->cap ? ep->cap * 2 : 8;
        pipeline **n = realloc(ep->pipes, (size_t)nc * sizeof *n);
        if (!n) return exec_nomem(x);
        ep->pipes = n;
        ep->cap = nc;
    }
    pipeline *pl = calloc(1, sizeof *pl);
    if (!pl) return exec_nomem(x);
    ep->pipes[ep->n++] = pl;
    *out = pl;
    return STRATA_OK;
}

/* pipe_bufs makes pl's chunk buffers: bufs[0] has the source's types, bufs[i + 1] ops[i]'s. */
static int pipe_bufs(exec_ctx *x, pipeline *pl) {
    for (int i = 0; i <= pl->nops; i++) {
        const plan_op *o = i ? pl->ops[i - 1]->op : pl->source->op;
        int rc = chunk_init(&pl->bufs[i], o->types, o->ncols, x->err);
        if (rc) {
            for (int k = 0; k < i; k++) chunk_free(&pl->bufs[k]);
            return rc;
        }
    }
    pl->ready = true;
    return STRATA_OK;
}

static void pipe_bufs_free(pipeline *pl) {
    if (!pl->ready) return;
    for (int k = 0; k <= pl->nops; k++) chunk_free(&pl->bufs[k]);
    pl->ready = false;
}

/* pipe_rewind makes pl ready to run from its source's start again. */
static void pipe_rewind(pipeline *pl) {
    memset(pl->more, 0, sizeof pl->more);
    pl->source_done = pl->finished = false;
    pl->flush_op = 0;
    for (int k = 0; k <= pl->nops; k++) chunk_reset(&pl->bufs[k]);
}

/* build walks down from p (the top of a pipeline's operator chain, collected top-down in
** chain[0..n)) to its source, creating the pipelines it depends on first: those of the children
** it sinks (a set operation's left input before its right one, a join's build side before the
** probe side streams through it). */
static int build(exec_ctx *x, exec_plan *ep, const plan_op *p, op_node **chain, int n, op_node *sink, int side) {
    int rc;
    if (n >= MAX_PIPE_OPS) return err_set(x->err, STRATA_ERROR, "query too complex (pipeline of more than %d operators)", MAX_PIPE_OPS);
    const op_vtable *v = op_vt(p);
    op_node *self = node_of(ep, p);
    for (int i = 0; i < 2; i++) {
        if (v->child[i] != CHILD_SINK) continue;
        op_node *sub[MAX_PIPE_OPS];
        if ((rc = build(x, ep, p->child[i], sub, 0, self, i))) return rc;
    }
    if (v->child[0] == CHILD_STREAM) {
        chain[n] = self;
        return build(x, ep, p->child[0], chain, n + 1, sink, side);
    }
    pipeline *pl = NULL;
    if ((rc = pipe_add(x, ep, &pl))) return rc;
    pl->source = self;
    pl->nops = n;
    for (int i = 0; i < n; i++) pl->ops[i] = chain[n - 1 - i];
    pl->sink = sink;
    pl->side = side;
    return pipe_bufs(x, pl);
}

/* node_close ends n's run; without keep its expressions' states go too. */
static void node_close(op_node *n, bool keep) {
    n->vt->close(n, keep);
    if (keep) return;
    expr_states_free(n->ex, n->nex);
    n->ex = NULL, n->nex = 0;
}

static void nodes_close(exec_plan *ep, bool keep) {
    for (uint32_t i = 0; i < ep->nnodes; i++) node_close(&ep->nodes[i], keep);
}

void exec_plan_free(void *pipes) {
    exec_plan *ep = pipes;
    if (!ep) return;
    nodes_close(ep, false);
    for (int i = 0; i < ep->n; i++) {
        pipe_bufs_free(ep->pipes[i]);
        free(ep->pipes[i]);
    }
    free(ep->pipes);
    free(ep->nodes);
    free(ep);
}

/* plan_make builds the run's plan of root: its nodes and pipelines. */
static int plan_make(exec_ctx *x, const plan_op *root, exec_plan **out) {
    exec_plan *ep = calloc(1, sizeof *ep);
    if (!ep) return exec_nomem(x);
    if (!(ep->nodes = calloc(count_nodes(root), sizeof *ep->nodes))) {
        free(ep);
        return exec_nomem(x);
    }
    add_nodes(ep, root);
    op_node *chain[MAX_PIPE_OPS];
    int rc = build(x, ep, root, chain, 0, NULL, 0);
    if (rc) {
        exec_plan_free(ep);
        return rc;
    }
    *out = ep;
    return STRATA_OK;
}

/* plan_rewind makes the pipelines of an earlier run of the plan ready to run again. */
static void plan_rewind(exec_plan *ep) {
    for (int i = 0; i < ep->n; i++) pipe_rewind(ep->pipes[i]);
}

static uint64_t clock_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* source_next asks source n for its next chunk (timed and counted for EXPLAIN ANALYZE). */
static int source_next(exec_ctx *x, op_node *n, data_chunk *out) {
    if (!x->analyze) return n->vt->source(x, n, out);
    uint64_t t0 = clock_ns();
    int rc = n->vt->source(x, n, out);
    n->stats.ns += clock_ns() - t0;
    n->stats.rows_out += out->count;
    return rc;
}

static int op_execute(exec_ctx *x, op_node *n, data_chunk *in, data_chunk *out, bool *more, bool *finished) {
    *more = false;
    if (!x->analyze) return n->vt->execute(x, n, in, out, more, finished);
    uint64_t t0 = clock_ns();
    int rc = n->vt->execute(x, n, in, out, more, finished);
    n->stats.ns += clock_ns() - t0;
    n->stats.rows_out += out->count;
    return rc;
}

/* run_from runs ops[start..nops) on bufs[start]; *result is the last output, or NULL when an
** operator produced nothing this time. */
static int run_from(exec_ctx *x, pipeline *pl, int start, data_chunk **result) {
    bool finished = false;
    *result = NULL;
    for (int i = start; i < pl->nops; i++) {
        data_chunk *out = &pl->bufs[i + 1];
        chunk_reset(out);
        int rc = op_execute(x, pl->ops[i], &pl->bufs[i], out, &pl->more[i], &finished);
        if (rc) return rc;
        if (finished) pl->finished = true;
        if (out->count == 0) return STRATA_OK;
    }
    *result = &pl->bufs[pl->nops];
    return STRATA_OK;
}

#define PROGRESS_NS 100000000u /* 100 ms between calls of a progress handler */

/* progress_tick calls the progress handler with done when it is due. */
static int progress_tick(exec_ctx *x, uint64_t done) {
    uint64_t now = clock_ns();
    if (now < x->progress_due) return STRATA_OK;
    x->progress_due = now + PROGRESS_NS;
    if (x->progress(x->progress_arg, done, x->progress_total, x->progress_unit ? x->progress_unit : "rows"))
        return err_set(x->err, STRATA_INTERRUPT, "interrupted");
    return STRATA_OK;
}

/* pipe_step produces the next chunk at the end of pl's operator chain (*result NULL or empty
** while more may come; pl->finished when nothing more will). Operators that have more output
** for their current input go first (the deepest one), then new input from the source, and once
** the source is done, rows that operators held back (an outer join's unmatched build rows) flow
** through the operators after them. */
static int pipe_step(exec_ctx *x, pipeline *pl, data_chunk **result) {
    int rc;
    *result = NULL;
    if ((x->interrupt && __atomic_load_n(x->interrupt, __ATOMIC_RELAXED)) || (x->worker && pool_stopping(x->worker)))
        return err_set(x->err, STRATA_INTERRUPT, "interrupted");
    if (x->progress &&
        (rc = progress_tick(x, x->progress_done + (x->progress_shared ? __atomic_load_n(x->progress_shared, __ATOMIC_RELAXED) : 0))))
        return rc;
    for (int i = pl->nops - 1; i >= 0; i--)
        if (pl->more[i]) return run_from(x, pl, i, result);
    if (!pl->source_done) {
        data_chunk *src = &pl->bufs[0];
        chunk_reset(src);
        if ((rc = source_next(x, pl->source, src))) return rc;
        if (src->count) return run_from(x, pl, 0, result);
        pl->source_done = true;
    }
    while (!pl->hold_flush && pl->flush_op < pl->nops) {
        op_node *o = pl->ops[pl->flush_op];
        if (!o->vt->flush) {
            pl->flush_op++;
            continue;
        }
        int f = pl->flush_op;
        data_chunk *out = &pl->bufs[f + 1];
        bool more;
        chunk_reset(out);
        if ((rc = o->vt->flush(x, o, out, &more))) return rc;
        if (x->analyze) o->stats.rows_out += out->count; /* the rows a join outputs at its end count too */
        if (!more) pl->flush_op++;
        if (out->count) {
            if (f + 1 == pl->nops) {
                *result = out;
                return STRATA_OK;
            }
            return run_from(x, pl, f + 1, result);
        }
    }
    pl->finished = true;
    return STRATA_OK;
}

static int pipe_run(exec_ctx *x, pipeline *pl) {
    op_node *sink = pl->sink;
    while (!pl->finished) {
        data_chunk *out;
        int rc = pipe_step(x, pl, &out);
        if (rc) return rc;
        if (!out || !out->count) continue;
        uint64_t t0 = x->analyze ? clock_ns() : 0;
        if ((rc = sink->vt->sink(x, sink, out, pl->side))) return rc;
        if (x->analyze) sink->stats.ns += clock_ns() - t0;
    }
    return STRATA_OK;
}

/* stats_reset zeroes the counters of ep's operators and of the runs nested in them. */
static void stats_reset(exec_plan *ep) {
    for (uint32_t i = 0; ep && i < ep->nnodes; i++) {
        op_node *n = &ep->nodes[i];
        n->stats = (op_stats){0};
        for (int c = 0; n->vt->nested && c < 2; c++) stats_reset(n->vt->nested(n, c));
    }
}

/* ---- parallel pipelines ------------------------------------------------------------------ */

/* The workers are one pool per process, shared by every handle (core/pool.h says why), made at
** the first parallel run; a run on a pool another run holds runs on its own thread. */
static pool *shared_pool;
static pthread_once_t shared_pool_once = PTHREAD_ONCE_INIT;

static void shared_pool_make(void) { shared_pool = pool_create(POOL_MAX_WORKERS); }

/* A worker of a parallel pipeline: its own nodes of the pipeline's operators (source, streaming
** operators, sink), a pipeline over them, and a context whose error, arena and counters are its
** own. Made when the worker takes its first morsel. Owned by the worker's thread while the pool
** runs, by the run's thread before and after. */
typedef struct worker {
    bool ready;
    exec_ctx x;
    arena mem;
    op_node nodes[MAX_PIPE_OPS + 2];
    pipeline pl;
} worker;

typedef struct par_run {
    exec_ctx *x;       /* the run's */
    pipeline *pl;      /* the run's pipeline, over the run's nodes */
    worker *w;         /* by worker index */
    uint64_t progress; /* what the run's sources had read and the workers' have, added to (with
                       ** __atomic builtins) after each morsel; worker 0 reports it */
} par_run;

int exec_pool_run(exec_ctx *x, pool_job *job) {
    pthread_once(&shared_pool_once, shared_pool_make);
    if (!shared_pool) return exec_nomem(x);
    job->workers = x->threads < POOL_MAX_WORKERS ? x->threads : POOL_MAX_WORKERS;
    return pool_run(shared_pool, job, NULL, x->err);
}

/* worker_node makes a worker's node of global, the run's node of the same operator. */
static int worker_node(exec_ctx *x, op_node *n, op_node *global, bool source) {
    *n = (op_node){.op = global->op, .vt = global->vt};
    int rc = n->vt->exprs ? node_exprs(x, n) : STRATA_OK;
    for (uint32_t i = 0; !rc && i < n->nex && i < global->nex; i++) exec_subqueries_link(n->ex[i], global->ex[i]);
    if (rc || source) return rc; /* a source's node opens on each morsel */
    return n->vt->open_local ? n->vt->open_local(x, n, global) : n->vt->open(x, n);
}

static int worker_start(par_run *pr, worker *wk, pool_worker *w) {
    const pipeline *g = pr->pl;
    wk->x = *pr->x;
    wk->x.err = &w->err;
    wk->x.threads = 1; /* what it runs nested runs on its thread */
    /* the progress handler is called on the run's thread (worker 0), as in a run on one thread */
    if (w->index != 0) wk->x.progress = NULL;
    wk->x.progress_done = 0;
    wk->x.progress_shared = &pr->progress;
    wk->x.worker = w;
    arena_init(&wk->mem, 0);
    wk->x.mem = &wk->mem;
    wk->ready = true;
    pipeline *pl = &wk->pl;
    pl->nops = g->nops;
    pl->side = g->side;
    pl->hold_flush = true;
    pl->source = &wk->nodes[0];
    pl->sink = &wk->nodes[g->nops + 1];
    int rc = worker_node(&wk->x, pl->source, g->source, true);
    for (int i = 0; i < g->nops && !rc; i++) {
        pl->ops[i] = &wk->nodes[1 + i];
        rc = worker_node(&wk->x, pl->ops[i], g->ops[i], false);
    }
    if (!rc) rc = worker_node(&wk->x, pl->sink, g->sink, false);
    return rc ? rc : pipe_bufs(&wk->x, pl);
}

static void worker_end(worker *wk) {
    if (!wk->ready) return;
    for (int i = 0; i < wk->pl.nops + 2; i++)
        if (wk->nodes[i].vt) node_close(&wk->nodes[i], false);
    pipe_bufs_free(&wk->pl);
    arena_free(&wk->mem);
    wk->ready = false;
}

/* run_morsels: pool_run's task, the pipeline over morsels [begin, end) on worker w's nodes. */
static int run_morsels(void *arg, pool_worker *w, uint64_t begin, uint64_t end) {
    par_run *pr = arg;
    worker *wk = &pr->w[w->index];
    int rc = wk->ready ? STRATA_OK : worker_start(pr, wk, w);
    for (uint64_t m = begin; m < end && !rc; m++) {
        op_node *src = wk->pl.source;
        wk->x.morsel = m;
        if ((rc = src->vt->open_morsel(&wk->x, src, pr->pl->source, m))) break;
        pipe_rewind(&wk->pl);
        rc = pipe_run(&wk->x, &wk->pl);
        src->vt->close(src, true);
        __atomic_fetch_add(&pr->progress, wk->x.progress_done, __ATOMIC_RELAXED);
        wk->x.progress_done = 0;
    }
    return rc;
}

/* poll_progress: pool_run's poll, the progress handler while the run's thread waits for the
** other workers, with what every worker has read. */
static int poll_progress(void *arg, pool_worker *w) {
    par_run *pr = arg;
    worker *wk = &pr->w[w->index];
    exec_ctx *x = wk->ready ? &wk->x : pr->x;
    strata_err *err = x->err;
    x->err = &w->err;
    int rc = progress_tick(x, __atomic_load_n(&pr->progress, __ATOMIC_RELAXED));
    x->err = err;
    return rc;
}

/* can_run_parallel: pl's operators can run on several workers (the source's morsels aside). */
static bool can_run_parallel(const pipeline *pl) {
    const op_vtable *sv = pl->source->vt, *kv = pl->sink ? pl->sink->vt : NULL;
    if (!sv->morsels || !sv->open_morsel || !kv || !kv->combine || !kv->parallel || !kv->parallel(pl->sink->op, pl->side)) return false;
    for (int i = 0; i < pl->nops; i++) {
        const op_vtable *v = pl->ops[i]->vt;
        if (!v->parallel || !v->parallel(pl->ops[i]->op, -1)) return false;
    }
    return true;
}

/* pipe_flush_workers: once every morsel is done, the rows the pipeline's operators held back (an
** outer join's unmatched build rows, read from the run's build side) flow through the rest of
** the pipeline on one worker's nodes, on this thread, into that worker's sink; for an ORDER BY's
** ties they come after every morsel's rows, as in a serial run. */
static int pipe_flush_workers(exec_ctx *x, par_run *pr, unsigned nw, uint64_t morsels) {
    pipeline *pl = pr->pl;
    bool any = false;
    for (int k = 0; k < pl->nops; k++) any |= pl->ops[k]->vt->flush != NULL;
    worker *wk = pr->w;
    while (wk < pr->w + nw && !wk->ready) wk++;
    if (!any || wk == pr->w + nw) return STRATA_OK;
    wk->x.err = x->err; /* the pool's workers are another run's once pool_run returned */
    wk->x.worker = NULL;
    wk->x.morsel = morsels;
    pipe_rewind(&wk->pl);
    wk->pl.source_done = true;
    wk->pl.hold_flush = false;
    return pipe_run(&wk->x, &wk->pl);
}

static void stats_add(op_stats *to, const op_stats *from) {
    to->rows_out += from->rows_out;
    to->ns += from->ns;
    to->rows_dropped += from->rows_dropped;
    to->workers++;
}

/* pipe_parallel runs pl on x->threads workers when it can and its source has morsels enough;
** *ran false: it did not (run it on this thread). The workers' sinks are combined into the run's
** sink here, on this thread, one after the other. A transaction that has written pages of its own
** runs on its thread: only that thread may read them (pager_txn_shareable). */
static int pipe_parallel(exec_ctx *x, pipeline *pl, bool *ran) {
    *ran = false;
    if (x->threads < 2 || !pager_txn_shareable(x->txn) || !can_run_parallel(pl)) return STRATA_OK;
    uint64_t morsels;
    int rc = pl->source->vt->morsels(x, pl->source, &morsels);
    if (rc || morsels < 2) return rc;
    *ran = true;
    op_node *nodes[MAX_PIPE_OPS + 2] = {pl->source, pl->sink};
    for (int i = 0; i < pl->nops; i++) nodes[2 + i] = pl->ops[i];
    for (int k = 0; k < pl->nops + 2; k++)
        for (uint32_t i = 0; i < nodes[k]->nex; i++) exec_subqueries_share(x, nodes[k]->ex[i]);
    unsigned nw = x->threads < POOL_MAX_WORKERS ? x->threads : POOL_MAX_WORKERS, nl = 0;
    par_run pr = {.x = x, .pl = pl, .w = calloc(nw, sizeof(worker)), .progress = x->progress_done};
    op_node **locals = calloc(nw, sizeof *locals);
    if (!pr.w || !locals) {
        free(pr.w);
        free(locals);
        return exec_nomem(x);
    }
    pool_job job = {.total = morsels, .morsel = 1, .run_morsel = run_morsels, .arg = &pr, .interrupt = x->interrupt,
                    .poll = x->progress ? poll_progress : NULL};
    rc = exec_pool_run(x, &job);
    if (!rc) rc = pipe_flush_workers(x, &pr, nw, morsels);
    x->progress_done = pr.progress;
    for (unsigned i = 0; i < nw; i++)
        if (pr.w[i].ready) locals[nl++] = pr.w[i].pl.sink;
    if (x->analyze) { /* the workers' counters add up below, and so does their number */
        pl->source->stats.workers = 0;
        for (int k = 0; k < pl->nops; k++) pl->ops[k]->stats.workers = 0;
        pl->sink->stats.workers = 0;
    }
    if (!rc) rc = pl->sink->vt->combine(x, pl->sink, locals, nl);
    for (unsigned i = 0; i < nw; i++) {
        worker *wk = &pr.w[i];
        if (!wk->ready) continue;
        if (x->analyze) {
            stats_add(&pl->source->stats, &wk->pl.source->stats);
            for (int k = 0; k < pl->nops; k++) stats_add(&pl->ops[k]->stats, &wk->pl.ops[k]->stats);
            stats_add(&pl->sink->stats, &wk->pl.sink->stats);
        }
        worker_end(wk);
    }
    free(pr.w);
    free(locals);
    pl->finished = true;
    return rc;
}

int exec_open(exec_ctx *x, const plan_op *root) {
    exec_plan *ep = x->pipelines;
    int rc;
    if (ep) { /* the plan ran before: its nodes and pipelines are there */
        plan_rewind(ep);
    } else {
        if ((rc = plan_make(x, root, &ep))) return rc;
        x->pipelines = ep;
    }
    if (x->analyze && !x->nested) stats_reset(ep); /* a nested run's counters add up over its runs */
    for (uint32_t i = 0; i < ep->nnodes; i++) {
        op_node *n = &ep->nodes[i];
        if (n->vt->exprs && !n->ex && (rc = node_exprs(x, n))) return rc;
        if ((rc = n->vt->open(x, n))) return rc;
    }
    return STRATA_OK;
}

int exec_next(exec_ctx *x, const plan_op *root, data_chunk *out) {
    (void)root;
    exec_plan *ep = x->pipelines;
    out->count = 0;
    int rc;
    for (int i = 0; i < ep->n - 1; i++) {
        pipeline *pl = ep->pipes[i];
        if (pl->finished) continue;
        bool ran;
        if ((rc = pipe_parallel(x, pl, &ran)) || (!ran && (rc = pipe_run(x, pl)))) return rc;
        /* the sink is complete once every pipeline feeding it is done */
        bool last_feeder = true;
        for (int k = i + 1; k < ep->n; k++)
            if (ep->pipes[k]->sink == pl->sink && !ep->pipes[k]->finished) last_feeder = false;
        op_node *sink = pl->sink;
        if (!last_feeder || !sink->vt->finalize) continue;
        uint64_t t0 = x->analyze ? clock_ns() : 0;
        if ((rc = sink->vt->finalize(x, sink))) return rc;
        if (x->analyze) sink->stats.ns += clock_ns() - t0;
    }
    pipeline *pl = ep->pipes[ep->n - 1];
    while (!pl->finished) {
        data_chunk *res;
        if ((rc = pipe_step(x, pl, &res))) return rc;
        if (res && res->count) {
            if (res->sel) chunk_apply_sel(res);
            for (uint32_t c = 0; c < out->ncols; c++) vec_reference(&out->cols[c], &res->cols[c]);
            out->count = res->count;
            return STRATA_OK;
        }
    }
    return STRATA_OK;
}

void exec_close(exec_ctx *x, const plan_op *root) {
    (void)root;
    if (x->pipelines) nodes_close(x->pipelines, true);
}

void exec_destroy(void **pipelines) {
    exec_plan_free(*pipelines);
    *pipelines = NULL;
}

const op_stats *exec_stats(void *pipelines, const plan_op *p) {
    exec_plan *ep = pipelines;
    op_node *n = ep ? node_of(ep, p) : NULL;
    if (n) return &n->stats;
    for (uint32_t i = 0; ep && i < ep->nnodes; i++) {
        op_node *o = &ep->nodes[i];
        for (int c = 0; o->vt->nested && c < 2; c++) {
            const op_stats *st = exec_stats(o->vt->nested(o, c), p);
            if (st) return st;
        }
    }
    return NULL;
}
