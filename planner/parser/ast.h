/*
** ast.h -- the syntax tree of one SQL statement, as the parser builds it for the binder.
**
** The tree says what was written, resolved against nothing: names are plain strings (folded to
** lower case unless quoted), types are names with modifiers, literals keep their source text
** where the binder must choose a type (1.5 is DECIMAL, 1e10 DOUBLE, 99999999999999999999 a
** numeric too large for BIGINT). Every node carries `off`, the byte offset in the SQL text of
** the token that starts it (an operator's node: the operator), for sql_error_at().
**
** All nodes, strings and lists live in the arena given to the parser and die with it; nothing
** in a tree is freed on its own. Lists are arrays of pointers (sql_list); each field says what
** its elements point to. A tree is at most about 2 * SQL_MAX_DEPTH nodes deep, so consumers may
** recurse over it.
*/
#ifndef STRATA_AST_H
#define STRATA_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sql_expr sql_expr;
typedef struct sql_select sql_select;
typedef struct sql_from sql_from;
typedef struct sql_stmt sql_stmt;

/* A list of pointers to nodes; items[0 .. n) are valid (cap is the parser's business). */
typedef struct sql_list {
    int n, cap;
    void **items;
} sql_list;

/* A type as written: DECIMAL(10,2) is {"decimal", 2, {10, 2}}. Names are lower case; the
** two-word names are "double precision" and "character varying". */
typedef struct ast_type {
    const char *name;
    int nmods; /* 0, 1 or 2 modifiers in parentheses */
    int64_t mods[2];
    size_t off;
} ast_type;

/* ---- expressions ---- */

typedef enum sql_expr_kind {
    EX_NULL,        /* NULL */
    EX_BOOL,        /* TRUE, FALSE: boolean */
    EX_INT,         /* an integer literal that fits in int64: integer (a folded '-' included) */
    EX_NUM,         /* any other number: text is its source ("1.5", "1e10", "-99999999999999999999") */
    EX_STR,         /* 'text': text (decoded; may not hold a NUL byte) */
    EX_BLOB,        /* X'ABCD': text (the bytes; may hold NUL bytes) */
    EX_TYPED,       /* DATE '...', TIMESTAMP '...', INTERVAL '...' [unit]: typed */
    EX_PARAM,       /* ? or $n: param (1-based; ? takes the highest number so far plus one) */
    EX_DEFAULT,     /* DEFAULT in a VALUES row or a SET */
    EX_COL,         /* a or t.a: col */
    EX_STAR,        /* * or t.*: col.table (NULL for *); only in select lists and RETURNING */
    EX_UNARY,       /* -x, +x, NOT x: unary */
    EX_BINARY,      /* arithmetic, comparison, ||, AND, OR: binary */
    EX_IS_NULL,     /* x IS [NOT] NULL: unary.arg, negated */
    EX_IS_DISTINCT, /* x IS [NOT] DISTINCT FROM y: binary.left/right, negated */
    EX_BETWEEN,     /* x [NOT] BETWEEN low AND high: between, negated */
    EX_IN,          /* x [NOT] IN (list | subquery): in, negated */
    EX_LIKE,        /* x [NOT] LIKE|ILIKE pattern [ESCAPE e]: like, negated */
    EX_CASE,        /* CASE [operand] WHEN ... THEN ... [ELSE ...] END: caseof */
    EX_CAST,        /* CAST(x AS type), x::type: cast */
    EX_FUNC,        /* f(args), count(*), count(DISTINCT x); SUBSTRING/TRIM forms become calls: func */
    EX_EXTRACT,     /* EXTRACT(field FROM x): extract */
    EX_EXISTS,      /* EXISTS (subquery): select */
    EX_SUBQUERY,    /* (SELECT ...) as a scalar: select */
    EX_QUANTIFIED   /* x op ANY|SOME|ALL (subquery): in.arg, in.select, in.op, in.all */
} sql_expr_kind;

typedef enum sql_op {
    OP_NEG,
    OP_PLUS,
    OP_NOT, /* unary */
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_MOD,
    OP_CONCAT, /* binary */
    OP_EQ,
    OP_NE,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_AND,
    OP_OR
} sql_op;

/* One WHEN ... THEN ... arm of a CASE. */
typedef struct sql_when {
    sql_expr *when, *then;
} sql_when;

struct sql_expr {
    sql_expr_kind kind;
    bool negated; /* the NOT forms of IS NULL, IS DISTINCT FROM, BETWEEN, IN, LIKE */
    size_t off;
    union {
        bool boolean;
        int64_t integer;
        struct {
            const char *ptr; /* NUL-terminated; len excludes the NUL */
            size_t len;
        } text;
        struct {
            const char *type; /* "date", "timestamp" or "interval" */
            const char *text; /* the string, or the number of INTERVAL 3 DAY */
            const char *unit; /* INTERVAL '3' DAY: "day" (lower case, as written); NULL otherwise */
        } typed;
        int param;
        struct {
            const char *table; /* NULL when unqualified */
            const char *column;
        } col;
        struct {
            sql_op op;
            sql_expr *arg;
        } unary;
        struct {
            sql_op op;
            sql_expr *left, *right;
        } binary;
        struct {
            sql_expr *arg, *low, *high;
        } between;
        struct {
            sql_expr *arg;
            sql_list list;      /* sql_expr; empty when select is set */
            sql_select *select; /* x IN (SELECT ...) */
            sql_op op;          /* EX_QUANTIFIED: the comparison */
            bool all;           /* EX_QUANTIFIED: ALL (ANY and SOME otherwise) */
        } in;
        struct {
            sql_expr *arg, *pattern, *escape; /* escape may be NULL */
            bool ilike;
        } like;
        struct {
            sql_expr *operand;   /* CASE x WHEN ...; NULL for a searched CASE */
            sql_list whens;      /* sql_when, at least one */
            sql_expr *otherwise; /* ELSE; NULL when absent */
        } caseof;
        struct {
            sql_expr *arg;
            ast_type type;
        } cast;
        struct {
            const char *name; /* lower case unless quoted; TRIM(LEADING ..) is ltrim, TRAILING rtrim */
            sql_list args;    /* sql_expr */
            bool distinct;    /* count(DISTINCT x) */
            bool star;        /* count(*): args is empty */
        } func;
        struct {
            const char *field; /* lower case: "year", "month", "epoch", ... as written */
            sql_expr *arg;
        } extract;
        sql_select *select;
    };
};

/* ---- queries ---- */

typedef enum sql_nulls { NULLS_DEFAULT, NULLS_FIRST, NULLS_LAST } sql_nulls;

/* An ORDER BY item (also an index key): an expression, a position (EX_INT) or an alias (EX_COL). */
typedef struct sql_order {
    sql_expr *expr;
    bool desc;
    sql_nulls nulls;
} sql_order;

/* A select-list or RETURNING item: expr [AS alias]; expr may be EX_STAR. */
typedef struct sql_target {
    sql_expr *expr;
    const char *alias; /* NULL when none was written */
} sql_target;

/* WITH name [(columns)] AS (query). */
typedef struct sql_cte {
    const char *name;
    sql_list columns; /* const char */
    sql_select *select;
    size_t off;
} sql_cte;

typedef enum sql_from_kind { FROM_TABLE, FROM_SUBQUERY, FROM_FUNC, FROM_JOIN } sql_from_kind;
typedef enum sql_join_type { JOIN_INNER, JOIN_LEFT, JOIN_RIGHT, JOIN_FULL, JOIN_CROSS } sql_join_type;

/* A FROM item: a table, a subquery, a table function, or a join of two items. A comma list is
** a left-deep tree of JOIN_CROSS joins marked `comma`. */
struct sql_from {
    sql_from_kind kind;
    size_t off;
    const char *alias;      /* [AS] alias; NULL when none (always NULL for a join) */
    sql_list alias_columns; /* [AS] alias(a, b): const char */
    union {
        const char *table;    /* FROM_TABLE */
        sql_select *subquery; /* FROM_SUBQUERY */
        sql_expr *func;       /* FROM_FUNC: an EX_FUNC, e.g. generate_series(1, 10) */
        struct {
            sql_join_type type;
            bool natural, comma;
            sql_from *left, *right;
            sql_expr *on;   /* NULL unless ON was written */
            sql_list using; /* USING (a, b): const char */
        } join;
    };
};

typedef enum sql_select_kind {
    SEL_CORE,     /* SELECT ... FROM ... WHERE ... GROUP BY ... HAVING ... */
    SEL_VALUES,   /* VALUES (...), (...) */
    SEL_UNION,    /* left UNION [ALL] right */
    SEL_EXCEPT,   /* left EXCEPT [ALL] right */
    SEL_INTERSECT /* left INTERSECT [ALL] right */
} sql_select_kind;

/* A query. WITH, ORDER BY, LIMIT and OFFSET belong to the query they are written on: for a set
** operation they apply to its result, a parenthesized operand keeps its own. */
struct sql_select {
    sql_select_kind kind;
    size_t off;
    sql_list with;  /* sql_cte */
    bool recursive; /* WITH RECURSIVE */
    /* SEL_CORE */
    bool distinct;
    sql_list targets; /* sql_target, at least one */
    sql_from *from;   /* NULL without FROM */
    sql_expr *where, *having;
    sql_list group_by; /* sql_expr */
    /* SEL_VALUES */
    sql_list rows; /* sql_list (of sql_expr), at least one, all of them non-empty */
    /* set operations */
    bool all;
    sql_select *left, *right;
    /* any kind */
    sql_list order_by;        /* sql_order */
    sql_expr *limit, *offset; /* NULL when absent (LIMIT ALL is absent) */
};

/* ---- statements ---- */

typedef enum sql_cons_kind {
    CONS_PRIMARY_KEY,
    CONS_NOT_NULL,
    CONS_NULL,
    CONS_UNIQUE,
    CONS_DEFAULT,
    CONS_CHECK,
    CONS_FOREIGN_KEY
} sql_cons_kind;

/* A column or table constraint. A column constraint has no columns (it is on its column); a
** column REFERENCES t(c) is a CONS_FOREIGN_KEY with ref_columns (c) or none (t's primary key). */
typedef struct sql_constraint {
    sql_cons_kind kind;
    const char *name;      /* CONSTRAINT name; NULL when unnamed */
    sql_list columns;      /* table constraints: const char */
    sql_expr *expr;        /* DEFAULT value, CHECK condition */
    const char *ref_table; /* FOREIGN KEY / REFERENCES */
    sql_list ref_columns;  /* const char */
    size_t off;
} sql_constraint;

typedef struct sql_column_def {
    const char *name;
    ast_type type;
    sql_list constraints; /* sql_constraint, in order written */
    size_t off;
} sql_column_def;

/* SET column = value, of UPDATE and ON CONFLICT DO UPDATE; value may be EX_DEFAULT. */
typedef struct sql_assign {
    const char *column;
    sql_expr *value;
    size_t off;
} sql_assign;

typedef struct sql_on_conflict {
    sql_list columns; /* const char; may be empty for DO NOTHING */
    bool do_update;   /* DO UPDATE SET ...; DO NOTHING otherwise */
    sql_list set;     /* sql_assign */
    sql_expr *where;
    size_t off;
} sql_on_conflict;

/* A COPY or CREATE TABLE ... WITH option, PRAGMA-like: name [value]; value NULL when only the name was written. A word
** value (FORMAT csv) is an EX_COL naming it. */
typedef struct sql_option {
    const char *name;
    sql_expr *value;
    size_t off;
} sql_option;

typedef enum sql_stmt_kind {
    ST_SELECT,
    ST_INSERT,
    ST_UPDATE,
    ST_DELETE,
    ST_CREATE_TABLE,
    ST_CREATE_INDEX,
    ST_CREATE_VIEW,
    ST_DROP,
    ST_ALTER_TABLE,
    ST_BEGIN,
    ST_COMMIT,
    ST_ROLLBACK,
    ST_CHECKPOINT,
    ST_VACUUM,
    ST_EXPLAIN,
    ST_SET,
    ST_PRAGMA,
    ST_COPY,
    ST_ANALYZE
} sql_stmt_kind;

typedef enum sql_object_kind { OBJ_TABLE, OBJ_INDEX, OBJ_VIEW } sql_object_kind;
typedef enum sql_alter_kind {
    ALTER_ADD_COLUMN,
    ALTER_DROP_COLUMN,
    ALTER_RENAME_COLUMN,
    ALTER_RENAME_TABLE
} sql_alter_kind;

struct sql_stmt {
    sql_stmt_kind kind;
    size_t off, end; /* the statement's text is sql[off, end), without the ';' */
    union {
        sql_select *select; /* ST_SELECT */
        struct {
            const char *table, *alias;
            sql_list columns;   /* const char; empty when no column list was written */
            sql_select *source; /* VALUES or a query; NULL for DEFAULT VALUES */
            sql_on_conflict *on_conflict;
            sql_list returning; /* sql_target */
        } insert;
        struct {
            const char *table, *alias;
            sql_list set; /* sql_assign */
            sql_from *from;
            sql_expr *where;
            sql_list returning;
        } update;
        struct {
            const char *table, *alias;
            sql_expr *where;
            sql_list returning;
        } delete_;
        struct {
            const char *name;
            bool if_not_exists;
            sql_list columns;      /* sql_column_def */
            sql_list constraints;  /* sql_constraint: the table constraints */
            sql_select *as_select; /* CREATE TABLE t AS query: columns are empty */
            sql_list options;      /* sql_option: WITH (storage = 'row', ...) */
        } create_table;
        struct {
            const char *name, *table;
            bool unique, if_not_exists;
            sql_list keys; /* sql_order: columns or expressions */
        } create_index;
        struct {
            const char *name;
            bool if_not_exists;
            sql_list columns; /* const char */
            sql_select *select;
            size_t query_off, query_end; /* the query's text, for the catalog */
        } create_view;
        struct {
            sql_object_kind object;
            bool if_exists;
            sql_list names; /* const char, at least one */
        } drop;
        struct {
            const char *table;
            sql_alter_kind action;
            sql_column_def *column; /* ADD COLUMN */
            const char *name;       /* DROP/RENAME COLUMN: the column */
            const char *new_name;   /* RENAME: the new column or table name */
            bool if_exists;         /* DROP COLUMN IF EXISTS, ADD COLUMN IF NOT EXISTS */
        } alter;
        struct {
            sql_stmt *stmt;
            bool analyze;
        } explain;
        struct {
            const char *table; /* NULL: every table */
        } maint;               /* ST_CHECKPOINT, ST_VACUUM and ST_ANALYZE */
        struct {
            const char *name;
            sql_expr *value; /* NULL for a PRAGMA without a value; a word is an EX_COL */
        } set;               /* ST_SET and ST_PRAGMA */
        struct {
            const char *table; /* NULL when copying a query out */
            sql_list columns;  /* const char */
            sql_select *query; /* COPY (query) TO ... */
            bool to;           /* TO a file; FROM otherwise */
            const char *file;
            sql_list options; /* sql_option */
        } copy;
    };
};

#endif
