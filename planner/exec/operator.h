/*
** operator.h -- the operator interface: one table of functions per operator kind.
**
** Each kind of plan_op (plan.h) is one op_vtable, defined in the file of its family (op_scan.c,
** op_filter.c, op_aggregate.c, op_join.c, op_sort.c, op_setop.c, op_cte.c, op_dml.c, op_index.c,
** and COPY's two in load/copy.c); op_table (pipeline.c) lists them by kind, and exec_check_operators says at
** startup which kind has no entry, or an entry without the functions its roles need. The executor
** never switches on the kind: pipeline.c builds pipelines from the children's roles and calls
** the entries.
**
** The plan is not written while it runs: an operator's state lives in its op_node, one per
** operator of a run's plan (pipeline.c keeps them with the pipelines, between runs of a prepared
** statement), and so do the EXPLAIN ANALYZE counters and the states of the expressions it
** evaluates (op_node.ex); a recursive CTE's working table is bound in its step's run
** (exec_ctx.ctes). (A join filter is still written through a pointer of the plan: see plan.h.)
**
** A pipeline is a source, streaming operators and a sink: the source's `source` fills chunks,
** each streaming operator's `execute` transforms them, and the sink's `sink` consumes them; once
** every pipeline feeding a sink is done, its `finalize` runs, and it is the source of the next
** pipeline. An operator may take more than one role: a hash join streams its probe side (child 0)
** and is the sink of its build side (child 1); an aggregate is the sink of its input and the
** source of what is above it.
*/
#ifndef STRATA_OPERATOR_H
#define STRATA_OPERATOR_H

#include "exec/exec.h"
#include "pool.h"

/* How an operator takes a child's rows. */
typedef enum child_role {
    CHILD_NONE,   /* no child, or one never run (an index join's right side, read by key) */
    CHILD_STREAM, /* the child's rows flow through the operator in the child's pipeline */
    CHILD_SINK,   /* a pipeline of its own ends in the operator (side: the child's index) */
    CHILD_NESTED  /* the operator runs the child itself, as nested runs (WITH RECURSIVE) */
} child_role;

/* EXPLAIN ANALYZE's counters of one operator in one run. */
typedef struct op_stats {
    uint64_t rows_out;     /* rows it produced */
    uint64_t ns;           /* time spent in it */
    uint64_t rows_dropped; /* a scan: rows its join filters dropped */
    uint32_t workers;      /* the most workers its pipeline ran on (0 or 1: the run's thread) */
} op_stats;

typedef struct op_vtable op_vtable;

/* An operator of a run: the plan's operator, its table, and its run-time state. */
typedef struct op_node {
    const plan_op *op;
    const op_vtable *vt;
    void *state;    /* the operator's, made by open; kept between runs when close keeps it */
    expr_state **ex; /* the states of the expressions it evaluates (vt->exprs' order), made before
                     ** its first open and kept while the run's plan is */
    uint32_t nex;
    op_stats stats;
} op_node;

struct op_vtable {
    const char *name;          /* as EXPLAIN shows it */
    child_role child[2];
    /* open starts a run (n->state is what close kept from the last run, or NULL); close ends it,
    ** with keep leaving what the next run of the plan reuses in n->state (NULL otherwise). Both
    ** are required. */
    int (*open)(exec_ctx *x, op_node *n);
    void (*close)(op_node *n, bool keep);
    /* exprs lists the expressions the operator evaluates over its rows into list (NULL: only
    ** their number), entries may be NULL; the node's ex[i] is the state of list[i]. May be NULL. */
    uint32_t (*exprs)(const plan_op *p, const expr **list);
    /* a source: the next chunk, out->count 0 at the end */
    int (*source)(exec_ctx *x, op_node *n, data_chunk *out);
    /* a streaming operator: out from in; *more when it has more output for the same input, and
    ** *finished when it will take no more input (LIMIT) */
    int (*execute)(exec_ctx *x, op_node *n, data_chunk *in, data_chunk *out, bool *more, bool *finished);
    /* a streaming operator's rows held back to the end of its input (an outer join's unmatched
    ** build rows); may be NULL */
    int (*flush)(exec_ctx *x, op_node *n, data_chunk *out, bool *more);
    /* a sink: rows of the pipeline of child `side`; finalize once all of them are in (may be NULL) */
    int (*sink)(exec_ctx *x, op_node *n, data_chunk *in, int side);
    int (*finalize)(exec_ctx *x, op_node *n);
    /* explain appends what EXPLAIN shows after the name (" lineitem", " top 10"); may be NULL */
    void (*explain)(const plan_op *p, char *buf, size_t cap);
    /* an operator with CHILD_NESTED children: the run plan of child i (NULL before it ran), for
    ** EXPLAIN ANALYZE's counters */
    void *(*nested)(op_node *n, int child);

    /* Parallel runs (pipeline.c). A pipeline runs on several workers when its source cuts its
    ** rows into morsels, each streaming operator may run on each worker and its sink combines
    ** what each worker sank. A worker has a node of its own for each operator of the pipeline
    ** (its local state and expression states); the run's node is the global one. */
    /* a source: cuts this run's rows into *count morsels (0: not worth it, the run is serial) */
    int (*morsels)(exec_ctx *x, op_node *n, uint64_t *count);
    /* ... and opens worker node local on morsel m (called for each morsel the worker takes; the
    ** worker's node is closed with keep between morsels) */
    int (*open_morsel)(exec_ctx *x, op_node *local, op_node *global, uint64_t m);
    /* whether p may run on several workers (NULL: never) as a streaming operator (side -1) or as
    ** the sink of its child side's pipeline */
    bool (*parallel)(const plan_op *p, int side);
    /* opens a worker's node of a streaming operator or sink, beside the run's node global, which
    ** is open (NULL: open, as for a run of its own) */
    int (*open_local)(exec_ctx *x, op_node *local, op_node *global);
    /* a sink: adds what the workers' nodes sank (locals[0..n)) to the run's node, on the run's
    ** thread (it may run work on the pool: exec_pool_run); the workers' nodes are closed after */
    int (*combine)(exec_ctx *x, op_node *global, op_node *const *locals, unsigned n);
};

extern const op_vtable op_scan, op_index_scan, op_values, op_series, op_storage_info, op_empty, op_filter,
    op_project, op_limit, op_agg, op_hash_join, op_nl_join, op_index_join, op_sort, op_distinct, op_setop, op_insert,
    op_update, op_delete, op_cte_scan, op_recursive, op_file_scan, op_copy_to, op_index_build;

/* op_vt is the table of p's kind. */
const op_vtable *op_vt(const plan_op *p);
/* exec_check_operators checks that every kind has a table with the functions its roles need;
** STRATA_OK, or an error naming the kind. */
int exec_check_operators(strata_err *err);

/* exec_node is operator p's node in the running plan of x (NULL when p is not one of its
** operators): for an operator that reads another's state (an INSERT its COPY source's). */
op_node *exec_node(exec_ctx *x, const plan_op *p);

/* ---- what the operators share ----------------------------------------------------------- */

int exec_nomem(exec_ctx *x);
/* exec_table_error turns a storage error rc of x->txn into x->err, unless x->err holds one: the
** transaction's error, code and message (err_copy: whole even while another worker of the run
** records it; several workers failing at once all copy the one error the transaction kept), or
** rc with its description when the transaction recorded none. Returns the code recorded. */
int exec_table_error(exec_ctx *x, int rc);
/* exec_eval_scalar evaluates an expression without columns, cheaply for constants and parameters. */
int exec_eval_scalar(exec_ctx *x, expr *e, sql_value *out);
/* The collections and hash tables of a run are charged to its query memory (x->budget). */
int exec_rows_init(exec_ctx *x, vec_rows *c, const sql_type *types, uint32_t ncols);
int exec_groups_init(exec_ctx *x, vec_groups *g, const sql_type *types, uint32_t ncols);
int exec_join_table_init(exec_ctx *x, vec_join_table *t, const sql_type *types, uint32_t nkeys);
/* exec_key_vectors makes tmp[0..n) empty vectors of types[0..n), for keys kept in rows to be
** sliced into; on error none is left. exec_key_vectors_free frees them. */
int exec_key_vectors(exec_ctx *x, const sql_type *types, uint32_t n, vector *tmp);
void exec_key_vectors_free(vector *tmp, uint32_t n);
/* exec_small_state gives n->state zeroed bytes: those kept from the plan's last run, or new. */
int exec_small_state(exec_ctx *x, op_node *n, size_t bytes);
/* exec_small_close frees a small state, unless keep (exec_small_state zeroes it at the next run). */
void exec_small_close(op_node *n, bool keep);
/* exec_pool_run runs job on the process's worker pool with x->threads workers (job->workers is
** set here); the first error is x->err's. */
int exec_pool_run(exec_ctx *x, pool_job *job);
/* exec_parallel_always: an operator that may always run on several workers. */
bool exec_parallel_always(const plan_op *p, int side);
/* exec_no_open and exec_no_close are the open and close of an operator without a state. */
int exec_no_open(exec_ctx *x, op_node *n);
void exec_no_close(op_node *n, bool keep);
/* exec_list_exprs copies n expressions to list (when not NULL) and returns n: for vt->exprs. */
uint32_t exec_list_exprs(expr *const *from, uint32_t n, const expr **list);

/* ---- merging the workers' group tables (group_merge.c) ------------------------------------ */

/* A sink that finds its rows' groups in a table per worker (GROUP BY, DISTINCT, the set
** operations) merges the workers' tables in its combine: into the run's node's table, on the
** run's thread, while they hold at most GROUPS_MERGE_SERIAL groups together; more by partition
** on the pool (GROUPS_PARTS partitions, a partition a table of its own). */
#define GROUPS_MERGE_SERIAL 65536
#define GROUPS_PARTS 64

typedef struct groups_merge {
    vec_groups *const *from; /* the workers' tables, of one set of key types */
    unsigned n;
    void *arg;               /* the sink's, for add and part */
    /* add adds what groups sel[0..m) of chunk `first` of from[i] (sel NULL: its first m groups)
    ** carry to into, the state whose table now has them as groups gids[] */
    int (*add)(exec_ctx *x, void *arg, void *into, unsigned i, uint32_t first, const sel_t *sel, uint32_t m,
               const uint32_t *gids);
    /* part makes the state *into of partition part, its table *to (exec_groups_merge_parts calls it
    ** once for each partition, on a worker of the pool, x with the worker's error) */
    int (*part)(exec_ctx *x, void *arg, uint32_t part, void **into, vec_groups **to);
    /* one, when not NULL, takes partition part whose groups are all from[i]'s as they are, in
    ** place of part and add: its groups are entries[first .. first + n) of the array the merge
    ** leaves in *entries (i << 32 | group, in order; the caller frees it, also after an error) */
    int (*one)(exec_ctx *x, void *arg, uint32_t part, unsigned i, uint64_t first, uint64_t n);
    uint64_t **entries;
    /* prepare, when not NULL, learns each group's partition before the partitions are merged
    ** (part_of[i][g]: that of from[i]'s group g), on the caller's thread; done, when not NULL, is
    ** called as a partition that part made has all its groups, on the worker that merged them */
    int (*prepare)(exec_ctx *x, void *arg, uint8_t *const *part_of);
    int (*done)(exec_ctx *x, void *arg, uint32_t part, void *into);
} groups_merge;

/* exec_groups_merge merges m's tables into state into, whose table is to, on this thread;
** exec_groups_merge_parts into the partitions' states, on the pool: a group goes to the partition
** of its key's range for one integer key (so that a partition's keys stay dense), else of its
** keys' hash. The first error is x->err's. */
int exec_groups_merge(exec_ctx *x, const groups_merge *m, void *into, vec_groups *to);
int exec_groups_merge_parts(exec_ctx *x, const groups_merge *m);

/* A row of a vec_rows: chunk index and row within it. */
typedef struct row_ref {
    uint32_t chunk, row;
} row_ref;
/* exec_emit_refs copies the rows refs[0..n) of rows into out; exec_emit_chunk_refs those of the
** chunks (of ncols columns each) that the refs' chunk numbers index. */
int exec_emit_refs(exec_ctx *x, const vec_rows *rows, const row_ref *refs, uint32_t n, data_chunk *out);
int exec_emit_chunk_refs(exec_ctx *x, data_chunk *const *chunks, uint32_t ncols, const row_ref *refs, uint32_t n,
                         data_chunk *out);

/* A table's columns as a scan decodes them (op_scan.c; the index join reads its right side so):
** scan_projection lists the table columns of the outputs some operator reads (need NULL: all)
** and makes the chunk raw they are decoded into; scan_output shows raw as the outputs (the
** unread ones constant NULLs). */
int scan_projection(exec_ctx *x, const table_def *td, const uint32_t *cols, uint32_t ncols, const uint8_t *need,
                    uint32_t **proj, uint32_t *nproj, data_chunk *raw);
void scan_output(data_chunk *raw, const uint8_t *need, uint32_t ncols, data_chunk *out);
/* null_column makes v a constant NULL: a column no one reads, or the side of an outer join's row
** that has none. */
void null_column(vector *v);

/* The Bloom filter of a join filter (plan.h): a key's hash picks a word by its top bits and sets
** three of its bits by its low ones, so that a probe reads one word; 16 bits a key, up to 2^24
** words (a larger build side gives only the range). */
static inline uint64_t bloom_bits(uint64_t h) {
    return UINT64_C(1) << (h & 63) | UINT64_C(1) << ((h >> 6) & 63) | UINT64_C(1) << ((h >> 12) & 63);
}

/* A join filter's bitmap (instead of the Bloom filter) takes at most JOIN_BITMAP_KEY_BITS bits a
** key (the Bloom filter 16) or at most JOIN_BITMAP_SMALL bits (1 MiB: a scan tests it without
** hashing, in cache, however sparse the keys), and JOIN_BITMAP_MAX bits in all (16 MiB). */
#define JOIN_BITMAP_KEY_BITS 64
#define JOIN_BITMAP_SMALL (UINT64_C(1) << 23)
#define JOIN_BITMAP_MAX (UINT64_C(1) << 27)

#endif
