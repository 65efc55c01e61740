/*
** plan.h -- bound expressions and the operator tree a statement runs as.
**
** The binder (bind.c) turns a syntax tree into this form: every name resolved, every type known,
** every implicit cast made explicit. An expression refers to the columns of the chunk its
** operator receives by index (EXPR_COL). An operator tree is executed as push-based pipelines
** (pipeline.c, through the operator table of operator.h): a source produces chunks, streaming operators transform them, and a sink (hash
** aggregate, sort, hash join build, the result) consumes them; the sink of one pipeline is the
** source of the next.
**
** Everything of a plan lives in the statement's arena. The executor does not write an operator:
** its run-time state (hash tables, cursors, counters) lives in the run's op_node (operator.h).
** An expression's evaluated vectors are its expr_state's (exec.h), one per operator that runs
** it. What a run still writes through the plan: a join filter (filled by its join, read by its
** scan).
*/
#ifndef STRATA_PLAN_H
#define STRATA_PLAN_H

#include <stdbool.h>

#include "../../colstore/table.h"
#include "../../vector/vector.h"
#include "parser/ast.h"
#include "func/func.h"
#include "value.h"

typedef struct catalog catalog;
typedef struct table_def table_def;
typedef struct index_def index_def;
typedef struct plan_op plan_op;
typedef struct exec_ctx exec_ctx;

/* ---- expressions ------------------------------------------------------------------------- */

typedef enum expr_kind {
    EXPR_COL,         /* column `col` of the input chunk */
    EXPR_CONST,       /* value */
    EXPR_PARAM,       /* parameter `param` (1-based), cast to `type` at run time */
    EXPR_CAST,        /* args[0] to type; explicit says CAST vs assignment */
    EXPR_ARITH,       /* args[0] aop args[1]; operands already cast for numbers */
    EXPR_NEG,         /* -args[0] */
    EXPR_CMP,         /* args[0] cmp args[1], both of one type */
    EXPR_AND,         /* args[0..n): three-valued AND */
    EXPR_OR,          /* args[0..n): three-valued OR */
    EXPR_NOT,
    EXPR_IS_NULL,     /* args[0] IS [NOT] NULL (negated) */
    EXPR_IS_DISTINCT, /* args[0] IS [NOT] DISTINCT FROM args[1] (negated) */
    EXPR_CASE,        /* args: when0, then0, when1, then1, ..., else (always present) */
    EXPR_COALESCE,    /* first non-NULL of args */
    EXPR_FUNC,        /* fn(args) */
    EXPR_LIKE,        /* args[0] LIKE args[1]; like.* */
    EXPR_IN_LIST,     /* args[0] IN (args[1..n)), all of one type; negated */
    EXPR_EXTRACT,     /* EXTRACT(field FROM args[0]) */
    EXPR_CONCAT,      /* args[0] || args[1] as text */
    EXPR_SUBQUERY     /* sub: a scalar subquery, EXISTS, x IN (subquery) or x op ANY|ALL (subquery) (args[0] = x) */
} expr_kind;

typedef enum cmp_op { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE } cmp_op;
typedef enum subquery_kind { SUB_SCALAR, SUB_EXISTS, SUB_IN, SUB_ANY, SUB_ALL } subquery_kind;

typedef struct expr expr;
struct expr {
    expr_kind kind;
    sql_type type; /* the result type */
    size_t off;    /* SQL position, for run-time errors */
    int nargs;
    expr **args;
    bool negated;      /* IS NULL, IS DISTINCT, LIKE, IN */
    bool explicit_cast;
    bool untyped;      /* a string literal or parameter whose type the context decides */
    union {
        uint32_t col;
        sql_value value;
        int param;
        value_op aop;
        cmp_op cmp;
        const func_def *fn;
        struct {
            int escape; /* 0: none */
            bool ilike;
        } like;
        dt_field field;
        struct {
            subquery_kind kind;
            plan_op *plan;    /* one output column (SUB_SCALAR, SUB_IN) */
            bool correlated;  /* refers to outer columns: re-run per outer row */
            uint32_t nouter;  /* correlated: outer column indexes ... */
            uint32_t *outer;  /* ... of the input chunk, bound as the plan's params */
            cmp_op cmp;       /* SUB_ANY, SUB_ALL: x cmp ANY|ALL (subquery), x = args[0] */
        } sub;
    };
};

/* ---- operators --------------------------------------------------------------------------- */

typedef enum plan_kind {
    PLAN_SCAN,      /* table rows: source */
    PLAN_INDEX_SCAN,/* table rows found through an index key range: source */
    PLAN_VALUES,    /* rows of expressions (without input columns): source */
    PLAN_SERIES,    /* generate_series / range: source */
    PLAN_STORAGE_INFO, /* pragma_storage_info(table): a row per segment and one for the row store: source */
    PLAN_FILTER,    /* rows where pred is true */
    PLAN_PROJECT,   /* exprs */
    PLAN_AGG,       /* GROUP BY keys with aggregates: sink, then source */
    PLAN_HASH_JOIN, /* child[0] probe, child[1] build; equi keys plus residual pred; SEMI and ANTI
                    ** output the probe columns only */
    PLAN_NL_JOIN,   /* child[0] outer, child[1] inner (materialized); pred */
    PLAN_INDEX_JOIN,/* child[0] probe; child[1] a table scan never run: each probe row looks its
                    ** key up by rowid or through join.lookup (INNER and LEFT only) */
    PLAN_SORT,      /* ORDER BY keys, with limit for top-N: sink, then source */
    PLAN_LIMIT,     /* OFFSET then LIMIT */
    PLAN_DISTINCT,  /* distinct rows of all columns */
    PLAN_SETOP,     /* UNION [ALL] / EXCEPT [ALL] / INTERSECT [ALL] of child[0], child[1] */
    PLAN_INSERT,    /* child rows into a table: sink; output RETURNING or nothing */
    PLAN_UPDATE,    /* child rows = (rowid, new column values...) */
    PLAN_DELETE,    /* child rows = (rowid, old values...) */
    PLAN_CTE_SCAN,  /* rows of a materialized CTE or the working table of WITH RECURSIVE */
    PLAN_RECURSIVE, /* WITH RECURSIVE: child[0] anchor, child[1] step reading the working table */
    PLAN_EMPTY,     /* no rows (a false WHERE), or one row without columns (SELECT without FROM) */
    PLAN_FILE_SCAN, /* the records of a CSV file (COPY ... FROM): source */
    PLAN_COPY_TO,   /* child rows into a CSV file (COPY ... TO): sink; outputs nothing */
    PLAN_INDEX_BUILD, /* CREATE INDEX: child rows = (key values..., rowid) sorted as entries: sink; outputs nothing */
    PLAN_KIND_COUNT
} plan_kind;

typedef enum agg_fn { AGG_COUNT_STAR, AGG_COUNT, AGG_SUM, AGG_AVG, AGG_MIN, AGG_MAX } agg_fn;

typedef struct agg_expr {
    agg_fn fn;
    bool distinct;
    expr *arg;   /* NULL for count(*); evaluated over the aggregate's input */
    sql_type type;
} agg_expr;

typedef struct sort_key {
    expr *e;
    bool desc, nulls_first;
} sort_key;

/* SEMI and ANTI pass the left rows that have (have no) partner on the right; RSEMI and RANTI,
** which join_order makes of them when the left input is the smaller, pass the right rows that
** have (have no) partner on the left: the hash table is then on the rows that are output, and the
** left input only marks them. The output of all four is the passed side's columns. */
typedef enum join_kind { JK_INNER, JK_LEFT, JK_RIGHT, JK_FULL, JK_SEMI, JK_ANTI, JK_RSEMI, JK_RANTI } join_kind;
typedef enum setop_kind { SETOP_UNION, SETOP_EXCEPT, SETOP_INTERSECT } setop_kind;

/* The rows a PLAN_CTE_SCAN reads: WITH RECURSIVE's working table, the rows of the last iteration,
** which the recursive step's run binds to it (exec.h's cte_binding; rows NULL in the plan); or an
** appender's rows, fixed when its statement is made (rows then set once, before it runs). */
typedef struct cte_store {
    void *rows;
} cte_store;

/* A join filter: the keys of a hash join's build side, handed to a scan below its probe side
** (joinfilter.c places them), which drops the rows whose key the join would find no match for
** and skips the row groups outside the keys' range. The join fills it when its build side is
** complete, before its probe side starts (op_join.c); the scan reads it from its first chunk on. */
typedef struct join_filter {
    bool ready;          /* filled for this run */
    bool ranged;         /* every build key lies in min..max (keys stored as integers) */
    int64_t min, max;
    uint64_t *bloom;     /* a Bloom filter of the build keys' hashes (vec_hash): bloom_mask + 1 words */
    uint64_t bloom_mask;
    uint32_t bloom_shift; /* a hash's word is its top bits: h >> bloom_shift */
    uint64_t *bitmap;     /* ranged keys of a range no wider than JOIN_BITMAP_KEY_BITS bits a key:
                          ** bit key - min is set when a build key is key (exact: no Bloom filter) */
} join_filter;

/* A scan takes at most this many join filters. */
#define SCAN_MAX_FILTERS 4

struct plan_op {
    plan_kind kind;
    uint32_t ncols;     /* output columns */
    sql_type *types;
    const char **names; /* output column names (for the API), may be NULL inside the tree */
    uint8_t *untyped;   /* a query's output column that is a bare 'literal' (NULL: none): a set
                        ** operation gives it the other side's type, as PostgreSQL's "unknown" */
    plan_op *child[2];
    union {
        struct {
            table_def *table;
            uint32_t ncols;    /* projected table columns ... */
            uint32_t *cols;    /* ... (output columns 0..ncols-1) */
            bool with_rowid;   /* output column ncols is the rowid (BIGINT) */
            int64_t lo, hi;    /* rowid range */
            expr *lo_expr, *hi_expr; /* when set: bounds on the rowid evaluated at open (NULL: no row) */
            bool lo_excl, hi_excl;   /* ... excluding the bound itself */
            uint8_t *need;           /* output columns anyone reads (NULL: all): the others are
                                     ** not decoded and come out as constant NULLs */
            uint32_t nzone;          /* conditions `output zone_cols[k] zone_ops[k] zone_vals[k]`
                                     ** (cmp_op; values evaluated at open) of the filter above, by
                                     ** which the column store may skip row groups and vectors */
            uint32_t *zone_cols;
            uint8_t *zone_ops;
            expr **zone_vals;
            uint32_t nfilters;       /* join filters on output columns filter_cols[k], at most
                                     ** SCAN_MAX_FILTERS */
            uint32_t *filter_cols;
            join_filter **filters;
        } scan;
        struct {
            table_def *table;
            index_def *index;  /* NULL: the rowid itself is the key (lo/hi of scan) */
            uint32_t ncols;
            uint32_t *cols;
            bool with_rowid;
            expr **lo, **hi;   /* key values (constant or parameters): nlo/nhi leading key columns */
            int nlo, nhi;
            bool lo_incl, hi_incl;
            uint8_t *need;     /* as scan.need */
            int32_t *key_pos;  /* covering scan (not NULL): output i is index key key_pos[i], or
                               ** the rowid (-2), or not read (-1); the table is not read */
        } iscan;
        struct {
            uint32_t nrows;
            expr **cells; /* nrows * ncols */
        } values;
        struct {
            expr *start, *stop, *step;
            bool inclusive; /* generate_series: stop included; range: not */
        } series;
        struct {
            table_def *table;
        } info; /* PLAN_STORAGE_INFO */
        struct {
            expr *pred;
        } filter;
        struct {
            expr **exprs;
        } project;
        struct {
            uint32_t nkeys;
            expr **keys;
            uint32_t naggs;
            agg_expr *aggs; /* output: keys then aggregates */
            uint32_t nhash; /* 0, or the leading keys that determine the others (group_keys,
                            ** optimize/groupkeys.c): groups are told apart by these alone */
        } agg;
        struct {
            join_kind kind;
            uint32_t nkeys;
            expr **lkeys, **rkeys; /* over child[0] and child[1] columns */
            expr *pred;            /* residual, over the joined columns (left then right); may be NULL */
            index_def *lookup;     /* PLAN_INDEX_JOIN: the index of rkeys[0], NULL for the rowid */
            bool ordered;          /* an inner join that join_order made (joinorder.c) */
            bool null_aware;       /* JK_ANTI of x NOT IN (subquery), one key: no row passes when a
                                   ** build key is NULL, nor a NULL probe key unless the build side
                                   ** is empty */
            join_filter **filters; /* PLAN_HASH_JOIN: by key, its build keys for a scan below the
                                   ** probe side (NULL, or an entry NULL: none placed) */
            uint8_t *keep;         /* hash and nested-loop joins: the build side's columns some
                                   ** operator above or the residual reads (prune.c; NULL: all),
                                   ** the only ones its build rows keep */
        } join;
        struct {
            uint32_t nkeys;
            sort_key *keys;
            int64_t limit; /* top-N when >= 0 (limit + offset rows kept) */
        } sort;
        struct {
            expr *limit, *offset; /* may be NULL */
        } limit;
        struct {
            setop_kind kind;
            bool all;
        } setop;
        struct {
            table_def *table;
            /* INSERT: child gives all table columns, already cast and defaulted.
            ** UPDATE: child gives rowid, then all table columns (new values).
            ** DELETE: child gives rowid, then all table columns (old values). */
            bool on_conflict_nothing;  /* ON CONFLICT DO NOTHING */
            bool on_conflict_update;   /* ON CONFLICT DO UPDATE */
            bool conflict_rowid;       /* the arbiter is the rowid (INTEGER PRIMARY KEY) */
            uint32_t nreturning;
            expr **returning; /* over the table's columns */
            /* ON CONFLICT DO UPDATE */
            uint32_t nconflict_set;
            uint32_t *conflict_cols;  /* table columns set ... */
            expr **conflict_values;   /* ... to these, over (old columns, excluded columns) */
            expr *conflict_where;
            index_def *conflict_index;/* the arbiter index; NULL with !conflict_rowid: any unique constraint */
        } dml;
        struct {
            cte_store *store;
        } cte;
        struct {
            cte_store *work; /* the working table the step reads */
            bool all;        /* UNION ALL */
        } rec;
        struct {
            bool one_row;
        } empty;
        struct {
            struct copy_spec *spec; /* copy.h */
        } copy; /* PLAN_FILE_SCAN, PLAN_COPY_TO */
    };
    double est_rows; /* the rows it is estimated to produce (estimate.h), set once bound */
};

#endif
