/*
** catalog.h -- tables, indexes and views: their definitions in memory and in the database file.
**
** The catalog is a B+tree whose root is meta slot CATALOG_ROOT_SLOT. Each object is one entry,
** keyed by kind and name ("t:orders", "i:orders_pkey", "v:recent"). An entry's value is the root
** page of the object's tree (0 for a view), a flag byte and the DDL text that defines it: for a
** table its CREATE TABLE statement followed by every ALTER TABLE applied since, replayed in
** order when the catalog is loaded; for an index its CREATE INDEX; for a view its CREATE VIEW.
** Keeping the text, as SQLite does, keeps the file format independent of the binder's structures.
**
** Because the entries are ordinary B+tree entries, DDL is transactional: a CREATE inside a
** transaction that rolls back leaves no trace in the file. The in-memory catalog follows the
** file: after a rollback of a transaction that changed it, the caller reloads it (catalog_load).
**
** A table's statistics (stats.h) are an entry of their own, "s:name", in a binary form; DROP and
** ALTER TABLE remove it, and a file without such entries opens as a database never analyzed.
**
** Names are compared as written after the parser's folding (unquoted names are lower case).
*/
#ifndef STRATA_CATALOG_H
#define STRATA_CATALOG_H

#include <stdbool.h>

#include "../../colstore/table.h"
#include "arena.h"
#include "parser/ast.h"
#include "exec/plan.h"

#define CATALOG_ROOT_SLOT 1

typedef struct column_def {
    const char *name;
    sql_type type;
    bool not_null;
    sql_expr *default_expr; /* as written; NULL: DEFAULT NULL */
    sql_value added_default; /* what rows stored before ADD COLUMN read (the default then) */
} column_def;

typedef struct check_def {
    const char *name;
    sql_expr *expr;
} check_def;

typedef struct fk_def {
    const char *name;
    uint32_t ncols;
    uint32_t *cols;        /* this table's columns */
    const char *ref_table;
    const char **ref_names; /* the referenced columns as written; NULL: its primary key */
    uint32_t *ref_cols;    /* the referenced table's columns (its primary key or a unique key);
                           ** NULL until resolved (loading resolves once every table is there) */
} fk_def;

struct index_def {
    const char *name;
    table_def *table;
    pgno_t root;
    bool unique;
    bool primary;    /* the PRIMARY KEY constraint's index */
    bool constraint; /* made by a PRIMARY KEY or UNIQUE constraint (dropped with the table) */
    uint32_t nkeys;
    sql_expr **keys; /* as written; a plain column is an EX_COL */
    int32_t *key_cols; /* the table column of a plain-column key, -1 for an expression */
    const char *sql; /* the CREATE INDEX text stored */
};

/* Where a table's rows live (CREATE TABLE ... WITH (storage = ...)). */
typedef enum table_storage {
    TABLE_STORAGE_AUTO,   /* the row store; full row groups migrate, one per commit */
    TABLE_STORAGE_ROW,    /* the row store only */
    TABLE_STORAGE_COLUMN, /* every full row group migrates at the commit that fills it */
} table_storage;

struct table_def {
    const char *name;
    uint32_t ncols;
    column_def *cols;
    pgno_t root;
    int32_t rowid_col; /* the INTEGER/BIGINT PRIMARY KEY column that is the rowid, or -1 */
    uint32_t nchecks;
    check_def *checks;
    uint32_t nfks;
    fk_def *fks;
    uint32_t nindexes;
    index_def **indexes;
    table_desc desc;     /* for the access layer (types and added defaults) */
    sql_type *types;
    sql_value *defaults;
    const char *sql;     /* DDL text stored (CREATE TABLE; ALTER TABLE ...) */
    int64_t next_rowid;  /* 0: not known yet in this transaction */
    uint8_t storage;     /* table_storage */
    int64_t pending;     /* about how many row-store rows wait to migrate; -1 not counted yet */
    int64_t inserted;    /* rows inserted into the row store since the tuple mover last looked (storage_after_commit) */
    int64_t bulk_inserted; /* rows the bulk path wrote straight into row groups since then */
    struct table_stats *stats; /* stats.h; NULL: never analyzed (owned, freed with the catalog) */
    int64_t unanalyzed;  /* rows inserted since the statistics last saw the table (in memory) */
};

typedef struct view_def {
    const char *name;
    const char *sql;       /* CREATE VIEW text */
    uint32_t ncolnames;
    const char **colnames; /* CREATE VIEW v(a, b): names given; else none */
    sql_select *query;
} view_def;

struct catalog {
    arena mem; /* every definition */
    struct segcache *segs; /* the database's segment cache, handed to every table (kept by catalog_free) */
    uint32_t ntables, nviews, nindexes;
    table_def **tables;
    view_def **views;
    index_def **indexes;
    uint32_t cap_tables, cap_views, cap_indexes;
};

/* catalog_load (re)reads the catalog from the file as transaction t sees it, replacing what c
** held. STRATA_CORRUPT when a stored definition does not parse. */
int catalog_load(catalog *c, pager_txn *t, strata_err *err);
/* catalog_salvage is catalog_load for a damaged file: it reads the catalog's tree as far as its
** pages read (btree_salvage), calls lost for every page it cannot read, loads every readable
** definition and calls skipped (entry key, reason) for each that does not load, leaving it out
** (foreign keys to tables left out are dropped). Fails only for STRATA_NOMEM. A stored table
** definition that replays ALTERs keeps the text; the caller reads td->sql, ix->sql, v->sql. */
int catalog_salvage(catalog *c, pager_txn *t, void (*lost)(void *arg, pgno_t pgno, const char *why),
                    void (*skipped)(void *arg, const char *entry, const char *why), void *arg, strata_err *err);
void catalog_free(catalog *c);

table_def *catalog_table(catalog *c, const char *name);
view_def *catalog_view(catalog *c, const char *name);
index_def *catalog_index(catalog *c, const char *name);
/* catalog_suggest returns the table or view name closest to name, or NULL. */
const char *catalog_suggest(catalog *c, const char *name);

/* DDL. Each changes the file inside write transaction t and the in-memory catalog; sql is the
** statement's text as written (stored). Errors are positioned on the statement's nodes. */
int catalog_create_table(catalog *c, pager_txn *t, const sql_stmt *st, const char *sql, size_t sqllen,
                         strata_err *err);
int catalog_create_index(catalog *c, pager_txn *t, const sql_stmt *st, const char *sql, size_t sqllen,
                         strata_err *err);
int catalog_create_view(catalog *c, pager_txn *t, const sql_stmt *st, const char *sql, size_t sqllen,
                        strata_err *err);
int catalog_drop(catalog *c, pager_txn *t, const sql_stmt *st, const char *sql, size_t sqllen, strata_err *err);
/* catalog_alter_table applies ALTER TABLE; ADD COLUMN with a non-constant default and DROP
** COLUMN rewrite the table's rows. */
int catalog_alter_table(catalog *c, pager_txn *t, const sql_stmt *st, const char *sql, size_t sqllen,
                        strata_err *err);

/* catalog_set_added_default records the value rows stored before the last ADD COLUMN of td read
** (its DEFAULT, evaluated once by the caller) and stores it with the table's DDL. */
int catalog_set_added_default(catalog *c, pager_txn *t, table_def *td, const sql_value *v, strata_err *err);
/* catalog_set_col_root records the root of td's column tree (rowgroup.h) in td and in the file. */
int catalog_set_col_root(catalog *c, pager_txn *t, table_def *td, pgno_t col_root, strata_err *err);

/* catalog_set_stats replaces td's statistics by st (taken over, also on error) in td and in the
** file (a "s:name" entry), inside write transaction t; st NULL removes them. */
int catalog_set_stats(catalog *c, pager_txn *t, table_def *td, struct table_stats *st, strata_err *err);

/* catalog_resolve_type maps a written type to a sql_type ("type \"x\" does not exist"). */
int catalog_resolve_type(const ast_type *at, const char *sql, size_t sqllen, sql_type *out, strata_err *err);

/* name_distance: the edit distance of two names (case-sensitive), for suggestions. */
int name_distance(const char *a, const char *b);

#endif
