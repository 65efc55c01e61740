/*
** catalog.c -- the catalog of tables, indexes and views (see catalog.h for the stored form).
**
** Loading replays each object's DDL text through the parser and the same functions that apply
** DDL the first time, so the two paths cannot drift apart: catalog_create_table both defines a
** table when a user runs CREATE TABLE and rebuilds it from its stored text when a database opens.
*/
#include "catalog/catalog.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/parser.h"
#include "catalog/stats.h"
#include "../../colstore/rowgroup.h"

/* Entry value: u64 root (little-endian), u8 flags, then the DDL text. A table's u64 holds its row
** tree's root in the low 32 bits and its column tree's root (0: none yet) in the high 32 bits. */
#define ENTRY_HDR 9
#define FLAG_CONSTRAINT 1

/* Applying DDL: while loading, nothing is written to the file and text comes from the entry. */
typedef struct ddl {
    catalog *c;
    pager_txn *t;
    const char *sql;
    size_t sqllen;
    strata_err *err;
    bool loading;
    pgno_t root;     /* loading: the stored root */
    pgno_t col_root; /* loading: a table's stored column tree root */
} ddl;

__attribute__((format(printf, 3, 4))) static int ddl_error(ddl *d, size_t off, const char *fmt, ...) {
    char detail[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return sql_error_at(d->err, STRATA_ERROR, d->sql, d->sqllen, off, NULL, "%s", detail);
}

static int nomem(strata_err *err) { return err_set(err, STRATA_NOMEM, "out of memory (catalog)"); }

/* ---- names and lookups -------------------------------------------------------------------- */

int name_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64) return 1000;
    int prev[65], cur[65];
    for (size_t j = 0; j <= lb; j++) prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, sizeof(int) * (lb + 1));
    }
    return prev[lb];
}

table_def *catalog_table(catalog *c, const char *name) {
    for (uint32_t i = 0; i < c->ntables; i++)
        if (!strcmp(c->tables[i]->name, name)) return c->tables[i];
    return NULL;
}

view_def *catalog_view(catalog *c, const char *name) {
    for (uint32_t i = 0; i < c->nviews; i++)
        if (!strcmp(c->views[i]->name, name)) return c->views[i];
    return NULL;
}

index_def *catalog_index(catalog *c, const char *name) {
    for (uint32_t i = 0; i < c->nindexes; i++)
        if (!strcmp(c->indexes[i]->name, name)) return c->indexes[i];
    return NULL;
}

const char *catalog_suggest(catalog *c, const char *name) {
    const char *best = NULL;
    int bd = 3;
    for (uint32_t i = 0; i < c->ntables + c->nviews; i++) {
        const char *n = i < c->ntables ? c->tables[i]->name : c->views[i - c->ntables]->name;
        int d = name_distance(name, n);
        if (d < bd) bd = d, best = n;
    }
    return best;
}

/* push appends p to a growable pointer array in c->mem (old arrays stay in the arena). */
static int push(catalog *c, void ***arr, uint32_t *n, uint32_t *cap, void *p) {
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 8;
        void **na = arena_alloc(&c->mem, nc * sizeof *na);
        if (!na) return STRATA_NOMEM;
        if (*n) memcpy(na, *arr, *n * sizeof *na);
        *arr = na;
        *cap = nc;
    }
    (*arr)[(*n)++] = p;
    return STRATA_OK;
}

static void remove_ptr(void **arr, uint32_t *n, void *p) {
    for (uint32_t i = 0; i < *n; i++)
        if (arr[i] == p) {
            memmove(arr + i, arr + i + 1, (*n - i - 1) * sizeof *arr);
            (*n)--;
            return;
        }
}

/* ---- stored entries ----------------------------------------------------------------------- */

static int entry_key(char *buf, size_t cap, char kind, const char *name) {
    return snprintf(buf, cap, "%c:%s", kind, name);
}

/* entry_store writes the entry (kind, name) with value v of n bytes, making the catalog tree the
** first time. */
static int entry_store(ddl *d, char kind, const char *name, const uint8_t *v, size_t n) {
    char key[300];
    int klen = entry_key(key, sizeof key, kind, name);
    if (klen >= (int)sizeof key) return ddl_error(d, 0, "name \"%s\" is too long", name);
    pgno_t croot = (pgno_t)pager_meta_get(d->t, CATALOG_ROOT_SLOT);
    int rc = STRATA_OK;
    if (!croot) {
        if ((rc = btree_create(d->t, &croot)) == STRATA_OK) rc = pager_meta_set(d->t, CATALOG_ROOT_SLOT, croot);
    }
    if (rc == STRATA_OK) rc = btree_put(d->t, croot, key, (size_t)klen, v, n);
    if (rc) err_set(d->err, rc, "%s", pager_txn_err(d->t)->msg);
    return rc;
}

static int entry_put(ddl *d, char kind, const char *name, uint64_t root, int flags, const char *text) {
    if (d->loading) return STRATA_OK;
    size_t tl = strlen(text);
    uint8_t *v = malloc(ENTRY_HDR + tl);
    if (!v) return nomem(d->err);
    for (int i = 0; i < 8; i++) v[i] = (uint8_t)(root >> (8 * i));
    v[8] = (uint8_t)flags;
    memcpy(v + ENTRY_HDR, text, tl);
    int rc = entry_store(d, kind, name, v, ENTRY_HDR + tl);
    free(v);
    return rc;
}

/* table_entry_put stores table td's entry: its roots and DDL text. */
static int table_entry_put(ddl *d, const table_def *td) {
    return entry_put(d, 't', td->name, td->root | (uint64_t)td->desc.col_root << 32, 0, td->sql);
}

static int entry_delete(ddl *d, char kind, const char *name) {
    char key[300];
    int klen = entry_key(key, sizeof key, kind, name);
    pgno_t croot = (pgno_t)pager_meta_get(d->t, CATALOG_ROOT_SLOT);
    int rc = croot ? btree_delete(d->t, croot, key, (size_t)klen) : STRATA_NOTFOUND;
    if (rc == STRATA_NOTFOUND) return STRATA_OK;
    if (rc) err_set(d->err, rc, "%s", pager_txn_err(d->t)->msg);
    return rc;
}

/* forget_stats removes td's statistics, which no longer describe it after DDL (a dropped,
** added or renamed column, a renamed or dropped table). */
static int forget_stats(ddl *d, table_def *td) {
    stats_free(td->stats);
    td->stats = NULL;
    return d->loading ? STRATA_OK : entry_delete(d, 's', td->name);
}

/* ---- types -------------------------------------------------------------------------------- */

/* resolve_type maps a written type to a sql_type. */
static int resolve_type(ddl *d, const ast_type *at, sql_type *out) {
    static const struct {
        const char *name;
        uint8_t id;
    } names[] = {{"boolean", TYPE_BOOLEAN},   {"bool", TYPE_BOOLEAN},       {"smallint", TYPE_SMALLINT},
                 {"int2", TYPE_SMALLINT},     {"integer", TYPE_INTEGER},    {"int", TYPE_INTEGER},
                 {"int4", TYPE_INTEGER},      {"bigint", TYPE_BIGINT},      {"int8", TYPE_BIGINT},
                 {"double precision", TYPE_DOUBLE}, {"double", TYPE_DOUBLE}, {"float", TYPE_DOUBLE},
                 {"float8", TYPE_DOUBLE},     {"real", TYPE_DOUBLE},        {"float4", TYPE_DOUBLE},
                 {"decimal", TYPE_DECIMAL},   {"numeric", TYPE_DECIMAL},    {"varchar", TYPE_VARCHAR},
                 {"character varying", TYPE_VARCHAR}, {"text", TYPE_VARCHAR}, {"string", TYPE_VARCHAR},
                 {"char", TYPE_VARCHAR},      {"character", TYPE_VARCHAR},  {"blob", TYPE_BLOB},
                 {"bytea", TYPE_BLOB},        {"date", TYPE_DATE},          {"timestamp", TYPE_TIMESTAMP},
                 {"interval", TYPE_INTERVAL}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(at->name, names[i].name)) continue;
        uint8_t id = names[i].id;
        if (id == TYPE_DECIMAL) {
            int64_t p = at->nmods > 0 ? at->mods[0] : 18, s = at->nmods > 1 ? at->mods[1] : (at->nmods ? 0 : 3);
            if (sql_type_check_decimal(p, s, d->err)) {
                char msg[STRATA_ERRMSG_MAX];
                snprintf(msg, sizeof msg, "%s", d->err->msg);
                err_clear(d->err);
                return sql_error_at(d->err, STRATA_ERROR, d->sql, d->sqllen, at->off, NULL, "%s", msg);
            }
            *out = sql_type_decimal((uint8_t)p, (uint8_t)s);
            return STRATA_OK;
        }
        if (id == TYPE_VARCHAR && at->nmods > 0) {
            if (at->mods[0] < 1 || at->mods[0] > 10485760)
                return sql_error_at(d->err, STRATA_ERROR, d->sql, d->sqllen, at->off, NULL,
                                    "length for type varchar must be between 1 and 10485760");
            *out = sql_type_varchar((uint32_t)at->mods[0]);
            return STRATA_OK;
        }
        if (at->nmods > 0 && id != TYPE_TIMESTAMP)
            return sql_error_at(d->err, STRATA_ERROR, d->sql, d->sqllen, at->off, NULL,
                                "type %s does not take modifiers", at->name);
        *out = sql_type_make(id);
        return STRATA_OK;
    }
    return sql_error_at(d->err, STRATA_ERROR, d->sql, d->sqllen, at->off, NULL, "type \"%s\" does not exist",
                        at->name);
}

int catalog_resolve_type(const ast_type *at, const char *sql, size_t sqllen, sql_type *out, strata_err *err) {
    ddl d = {.sql = sql, .sqllen = sqllen, .err = err};
    return resolve_type(&d, at, out);
}

/* ---- tables ------------------------------------------------------------------------------- */

static int column_index(const table_def *td, const char *name) {
    for (uint32_t i = 0; i < td->ncols; i++)
        if (td->cols[i].name && !strcmp(td->cols[i].name, name)) return (int)i;
    return -1;
}

/* refresh_desc rebuilds the arrays the access layer reads after the columns changed. */
static int refresh_desc(catalog *c, table_def *td) {
    td->types = arena_alloc(&c->mem, (td->ncols + 1) * sizeof *td->types);
    td->defaults = arena_alloc(&c->mem, (td->ncols + 1) * sizeof *td->defaults);
    if (!td->types || !td->defaults) return STRATA_NOMEM;
    for (uint32_t i = 0; i < td->ncols; i++) {
        td->types[i] = td->cols[i].type;
        td->defaults[i] = td->cols[i].added_default;
    }
    td->desc.root = td->root;
    td->desc.cache = c->segs;
    td->desc.ncols = td->ncols;
    td->desc.types = td->types;
    td->desc.defaults = td->defaults;
    return STRATA_OK;
}

static char *text_copy(catalog *c, const char *s, size_t n) {
    char *p = arena_alloc(&c->mem, n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

/* index_new registers an index over td (keys as written) in the in-memory catalog. */
static int index_new(ddl *d, table_def *td, const char *name, sql_list *keys_orders, sql_list *key_names,
                     bool unique, bool primary, bool constraint, pgno_t root, const char *sqltext, index_def **out) {
    catalog *c = d->c;
    index_def *ix = arena_alloc(&c->mem, sizeof *ix);
    if (!ix) return nomem(d->err);
    memset(ix, 0, sizeof *ix);
    ix->name = arena_strdup(&c->mem, name);
    ix->table = td;
    ix->root = root;
    ix->unique = unique;
    ix->primary = primary;
    ix->constraint = constraint;
    ix->sql = sqltext;
    uint32_t n = keys_orders ? (uint32_t)keys_orders->n : (uint32_t)key_names->n;
    ix->nkeys = n;
    ix->keys = arena_alloc(&c->mem, n * sizeof *ix->keys);
    ix->key_cols = arena_alloc(&c->mem, n * sizeof *ix->key_cols);
    if (!ix->name || !ix->keys || !ix->key_cols) return nomem(d->err);
    for (uint32_t k = 0; k < n; k++) {
        sql_expr *e;
        if (keys_orders) {
            e = ((sql_order *)keys_orders->items[k])->expr;
        } else {
            e = arena_alloc(&c->mem, sizeof *e);
            if (!e) return nomem(d->err);
            memset(e, 0, sizeof *e);
            e->kind = EX_COL;
            e->col.column = key_names->items[k];
        }
        ix->keys[k] = e;
        ix->key_cols[k] = -1;
        if (e->kind == EX_COL && (!e->col.table || !strcmp(e->col.table, td->name))) {
            int ci = column_index(td, e->col.column);
            if (ci < 0)
                return ddl_error(d, e->off, "column \"%s\" does not exist", e->col.column);
            ix->key_cols[k] = ci;
        }
    }
    void **arr = (void **)td->indexes;
    uint32_t cap = td->nindexes; /* arrays are rebuilt each time: cheap, indexes are few */
    void **na = arena_alloc(&c->mem, (cap + 1) * sizeof *na);
    if (!na) return nomem(d->err);
    if (cap) memcpy(na, arr, cap * sizeof *na);
    na[cap] = ix;
    td->indexes = (index_def **)na;
    td->nindexes = cap + 1;
    if (push(c, (void ***)&c->indexes, &c->nindexes, &c->cap_indexes, ix)) return nomem(d->err);
    *out = ix;
    return STRATA_OK;
}

/* constraint_index creates (or, loading, finds the stored root of) a PRIMARY KEY / UNIQUE
** index named name over columns cols of td. */
static int constraint_index(ddl *d, table_def *td, const char *name, sql_list *cols, bool primary) {
    pgno_t root = 0;
    char text[600];
    if (d->loading) {
        /* its entry is loaded separately (it carries the root); link later in load_index */
        return STRATA_OK;
    }
    int rc = btree_create(d->t, &root);
    if (rc) return err_set(d->err, rc, "%s", pager_txn_err(d->t)->msg);
    int n = snprintf(text, sizeof text, "CREATE UNIQUE INDEX \"%s\" ON \"%s\" (", name, td->name);
    for (int i = 0; i < cols->n && n < (int)sizeof text; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%s\"%s\"", i ? ", " : "", (const char *)cols->items[i]);
    if (n < (int)sizeof text) snprintf(text + n, sizeof text - (size_t)n, ")");
    char *stored = arena_strdup(&d->c->mem, text);
    if (!stored) return nomem(d->err);
    index_def *ix;
    if ((rc = index_new(d, td, name, NULL, cols, true, primary, true, root, stored, &ix))) return rc;
    return entry_put(d, 'i', name, root, FLAG_CONSTRAINT | (primary ? 2 : 0), stored);
}

static bool is_integer_pk_type(sql_type t) { return sql_type_is_integer(t.id); }

/* resolve_fk finds the columns fk references: those named, or the referenced table's primary
** key (its rowid column or its primary index). */
static int resolve_fk(ddl *d, fk_def *fk) {
    catalog *c = d->c;
    table_def *rt = catalog_table(c, fk->ref_table);
    if (!rt) return ddl_error(d, 0, "relation \"%s\" does not exist", fk->ref_table);
    uint32_t *cols = arena_alloc(&c->mem, fk->ncols * sizeof *cols);
    if (!cols) return nomem(d->err);
    index_def *rpk = NULL;
    for (uint32_t x = 0; x < rt->nindexes; x++)
        if (rt->indexes[x]->primary) rpk = rt->indexes[x];
    for (uint32_t j = 0; j < fk->ncols; j++) {
        if (fk->ref_names) {
            int ci = column_index(rt, fk->ref_names[j]);
            if (ci < 0)
                return ddl_error(d, 0, "column \"%s\" referenced in foreign key constraint does not exist", fk->ref_names[j]);
            cols[j] = (uint32_t)ci;
        } else if (rt->rowid_col >= 0 && fk->ncols == 1) {
            cols[j] = (uint32_t)rt->rowid_col;
        } else if (rpk && rpk->nkeys == fk->ncols && rpk->key_cols[j] >= 0) {
            cols[j] = (uint32_t)rpk->key_cols[j];
        } else {
            return ddl_error(d, 0, "there is no primary key for referenced table \"%s\"", rt->name);
        }
    }
    fk->ref_cols = cols;
    return STRATA_OK;
}

/* fk_from makes the foreign key of constraint cn over td's columns cols (names); the referenced
** columns are resolved later (resolve_fk), once the referenced table is known. */
static int fk_from(ddl *d, table_def *td, const sql_constraint *cn, const sql_list *cols, fk_def *fk) {
    memset(fk, 0, sizeof *fk);
    fk->name = cn->name;
    fk->ncols = (uint32_t)cols->n;
    fk->cols = arena_alloc(&d->c->mem, fk->ncols * sizeof *fk->cols);
    if (!fk->cols) return nomem(d->err);
    for (uint32_t j = 0; j < fk->ncols; j++) fk->cols[j] = (uint32_t)column_index(td, cols->items[j]);
    fk->ref_table = cn->ref_table;
    if (cn->ref_columns.n && cn->ref_columns.n != cols->n)
        return ddl_error(d, cn->off, "number of referencing and referenced columns for foreign key disagree");
    fk->ref_names = cn->ref_columns.n ? (const char **)cn->ref_columns.items : NULL;
    return STRATA_OK;
}

/* option_word reads an option's value as a lower-case word or string into buf. */
static bool option_word(const sql_option *o, char *buf, size_t cap) {
    const sql_expr *v = o->value;
    const char *w = NULL;
    if (v && v->kind == EX_COL && !v->col.table) w = v->col.column;
    else if (v && v->kind == EX_STR) w = v->text.ptr;
    if (!w || strlen(w) >= cap) return false;
    size_t i = 0;
    for (; w[i]; i++) buf[i] = (char)tolower((unsigned char)w[i]);
    buf[i] = 0;
    return true;
}

/* table_options applies CREATE TABLE ... WITH (storage = 'auto' | 'row' | 'column',
** compression = 'zstd' | 'none', row_group_size = n): where rows live, whether segments may be
** zstd-compressed, and the rows of a full row group (fewer than the default are for tests and
** small tables; they cost more per row). */
static int table_options(ddl *d, const sql_stmt *st, table_def *td) {
    td->storage = TABLE_STORAGE_AUTO;
    td->desc.zstd_level = SEGMENT_ZSTD_DEFAULT;
    td->pending = -1;
    for (int i = 0; i < st->create_table.options.n; i++) {
        const sql_option *o = st->create_table.options.items[i];
        char w[16];
        bool ok = option_word(o, w, sizeof w);
        if (!strcmp(o->name, "storage")) {
            if (ok && !strcmp(w, "auto")) td->storage = TABLE_STORAGE_AUTO;
            else if (ok && !strcmp(w, "row")) td->storage = TABLE_STORAGE_ROW;
            else if (ok && !strcmp(w, "column")) td->storage = TABLE_STORAGE_COLUMN;
            else return ddl_error(d, o->off, "storage must be 'auto', 'row' or 'column'");
        } else if (!strcmp(o->name, "compression")) {
            if (ok && !strcmp(w, "zstd")) td->desc.zstd_level = SEGMENT_ZSTD_DEFAULT;
            else if (ok && !strcmp(w, "none")) td->desc.zstd_level = 0;
            else return ddl_error(d, o->off, "compression must be 'zstd' or 'none'");
        } else if (!strcmp(o->name, "row_group_size")) {
            const sql_expr *v = o->value;
            if (!v || v->kind != EX_INT || v->integer < VECTOR_SIZE || v->integer > ROWGROUP_ROWS)
                return ddl_error(d, o->off, "row_group_size must be an integer from %d to %u", VECTOR_SIZE,
                                 ROWGROUP_ROWS);
            td->desc.group_rows = (uint32_t)v->integer;
        } else {
            return ddl_error(d, o->off, "unrecognized table option \"%s\" (storage, compression and row_group_size are)",
                             o->name);
        }
    }
    return STRATA_OK;
}

static int apply_create_table(ddl *d, const sql_stmt *st) {
    catalog *c = d->c;
    const char *name = st->create_table.name;
    if (catalog_table(c, name) || catalog_view(c, name)) {
        if (st->create_table.if_not_exists) return STRATA_OK;
        return ddl_error(d, st->off, "relation \"%s\" already exists", name);
    }
    if (st->create_table.as_select)
        return ddl_error(d, st->off, "CREATE TABLE ... AS is not supported yet");
    uint32_t n = (uint32_t)st->create_table.columns.n;
    if (n == 0) return ddl_error(d, st->off, "a table needs at least one column");
    table_def *td = arena_alloc(&c->mem, sizeof *td);
    if (!td) return nomem(d->err);
    memset(td, 0, sizeof *td);
    td->name = arena_strdup(&c->mem, name);
    td->ncols = n;
    td->cols = arena_alloc(&c->mem, n * sizeof *td->cols);
    td->rowid_col = -1;
    if (!td->name || !td->cols) return nomem(d->err);
    memset(td->cols, 0, n * sizeof *td->cols); /* columns not yet defined have no name */
    /* primary key and unique constraints, collected as column-name lists */
    sql_list *pk = NULL;
    sql_list uniques[64];
    int nuniq = 0;
    sql_list single[64];
    int nsingle = 0;
    check_def checks[64];
    int nchecks = 0;
    fk_def fks[16];
    int nfks = 0;
    for (uint32_t i = 0; i < n; i++) {
        sql_column_def *cd = st->create_table.columns.items[i];
        column_def *col = &td->cols[i];
        memset(col, 0, sizeof *col);
        col->name = cd->name;
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(td->cols[j].name, cd->name))
                return ddl_error(d, cd->off, "column \"%s\" specified more than once", cd->name);
        int rc = resolve_type(d, &cd->type, &col->type);
        if (rc) return rc;
        col->added_default = value_null(col->type);
        for (int k = 0; k < cd->constraints.n; k++) {
            sql_constraint *cn = cd->constraints.items[k];
            switch (cn->kind) {
            case CONS_PRIMARY_KEY:
                if (pk) return ddl_error(d, cn->off, "multiple primary keys for table \"%s\" are not allowed", name);
                if (nsingle >= 64) return ddl_error(d, cn->off, "too many constraints");
                single[nsingle].n = 1;
                single[nsingle].items = (void **)&col->name;
                pk = &single[nsingle++];
                col->not_null = true;
                break;
            case CONS_NOT_NULL: col->not_null = true; break;
            case CONS_NULL: break;
            case CONS_UNIQUE:
                if (nuniq >= 64 || nsingle >= 64) return ddl_error(d, cn->off, "too many constraints");
                single[nsingle].n = 1;
                single[nsingle].items = (void **)&col->name;
                uniques[nuniq++] = single[nsingle++];
                break;
            case CONS_DEFAULT: col->default_expr = cn->expr; break;
            case CONS_CHECK:
                if (nchecks >= 64) return ddl_error(d, cn->off, "too many constraints");
                checks[nchecks].name = cn->name;
                checks[nchecks++].expr = cn->expr;
                break;
            case CONS_FOREIGN_KEY: {
                if (nfks >= 16) return ddl_error(d, cn->off, "too many foreign keys");
                sql_list one = {1, 1, (void **)&col->name};
                int rc = fk_from(d, td, cn, &one, &fks[nfks++]);
                if (rc) return rc;
                break;
            }
            }
        }
    }
    for (int k = 0; k < st->create_table.constraints.n; k++) {
        sql_constraint *cn = st->create_table.constraints.items[k];
        for (int j = 0; j < cn->columns.n; j++)
            if (column_index(td, cn->columns.items[j]) < 0)
                return ddl_error(d, cn->off, "column \"%s\" named in key does not exist",
                                 (const char *)cn->columns.items[j]);
        switch (cn->kind) {
        case CONS_PRIMARY_KEY:
            if (pk) return ddl_error(d, cn->off, "multiple primary keys for table \"%s\" are not allowed", name);
            pk = &cn->columns;
            for (int j = 0; j < cn->columns.n; j++) td->cols[column_index(td, cn->columns.items[j])].not_null = true;
            break;
        case CONS_UNIQUE:
            if (nuniq >= 64) return ddl_error(d, cn->off, "too many constraints");
            uniques[nuniq++] = cn->columns;
            break;
        case CONS_CHECK:
            if (nchecks >= 64) return ddl_error(d, cn->off, "too many constraints");
            checks[nchecks].name = cn->name;
            checks[nchecks++].expr = cn->expr;
            break;
        case CONS_FOREIGN_KEY: {
            if (nfks >= 16) return ddl_error(d, cn->off, "too many foreign keys");
            int rc = fk_from(d, td, cn, &cn->columns, &fks[nfks++]);
            if (rc) return rc;
            break;
        }
        default: break;
        }
    }
    for (int k = 0; k < nfks; k++)
        if (!fks[k].name) {
            char nm[300];
            snprintf(nm, sizeof nm, "%s_%s_fkey", name, td->cols[fks[k].cols[0]].name);
            if (!(fks[k].name = arena_strdup(&c->mem, nm))) return nomem(d->err);
        }
    td->nchecks = (uint32_t)nchecks;
    td->checks = arena_alloc(&c->mem, (size_t)(nchecks + 1) * sizeof *td->checks);
    td->nfks = (uint32_t)nfks;
    td->fks = arena_alloc(&c->mem, (size_t)(nfks + 1) * sizeof *td->fks);
    if (!td->checks || !td->fks) return nomem(d->err);
    for (int k = 0; k < nchecks; k++) {
        td->checks[k] = checks[k];
        if (!td->checks[k].name) {
            char nm[300];
            snprintf(nm, sizeof nm, "%s_check%s", name, k ? "" : "");
            if (k) snprintf(nm, sizeof nm, "%s_check%d", name, k);
            td->checks[k].name = arena_strdup(&c->mem, nm);
            if (!td->checks[k].name) return nomem(d->err);
        }
    }
    memcpy(td->fks, fks, (size_t)nfks * sizeof *fks);
    /* the tree */
    int rc;
    if ((rc = table_options(d, st, td))) return rc;
    if (d->loading) {
        td->root = d->root;
        td->desc.col_root = d->col_root;
    } else if ((rc = btree_create(d->t, &td->root))) {
        return err_set(d->err, rc, "%s", pager_txn_err(d->t)->msg);
    }
    td->sql = d->loading ? NULL : text_copy(c, d->sql + st->off, st->end - st->off);
    if (!d->loading && !td->sql) return nomem(d->err);
    if ((rc = refresh_desc(c, td))) return nomem(d->err);
    if (push(c, (void ***)&c->tables, &c->ntables, &c->cap_tables, td)) return nomem(d->err);
    /* a single-column integer primary key is the rowid */
    if (pk && pk->n == 1 && is_integer_pk_type(td->cols[column_index(td, pk->items[0])].type)) {
        td->rowid_col = column_index(td, pk->items[0]);
    } else if (pk) {
        char nm[300];
        snprintf(nm, sizeof nm, "%s_pkey", name);
        if ((rc = constraint_index(d, td, nm, pk, true))) return rc;
    }
    for (int k = 0; k < nuniq; k++) {
        char nm[300];
        int m = snprintf(nm, sizeof nm, "%s", name);
        for (int j = 0; j < uniques[k].n && m < (int)sizeof nm; j++)
            m += snprintf(nm + m, sizeof nm - (size_t)m, "_%s", (const char *)uniques[k].items[j]);
        snprintf(nm + (m < (int)sizeof nm ? m : (int)sizeof nm - 1), sizeof nm - (size_t)(m < (int)sizeof nm ? m : (int)sizeof nm - 1), "_key");
        if (catalog_index(c, nm)) snprintf(nm + strlen(nm), sizeof nm - strlen(nm), "%d", k);
        if ((rc = constraint_index(d, td, nm, &uniques[k], false))) return rc;
    }
    /* foreign keys: the referenced table and key must exist now (loading: once all are loaded) */
    for (uint32_t k = 0; k < td->nfks && !d->loading; k++)
        if ((rc = resolve_fk(d, &td->fks[k]))) return rc;
    return table_entry_put(d, td);
}

int catalog_create_table(catalog *c, pager_txn *t, const sql_stmt *st, const char *sql, size_t sqllen,
                         strata_err *err) {
    ddl d = {.c = c, .t = t, .sql = sql, .sqllen = sqllen, .err = err};
    return apply_create_table(&d, st);
}

/* ---- indexes and views -------------------------------------------------------------------- */

static int apply_create_index(ddl *d, const sql_stmt *st, int flags, index_def **out) {
    catalog *c = d->c;
    *out = NULL;
    const char *name = st->create_index.name;
    char autoname[300];
    table_def *td = catalog_table(c, st->create_index.table);
    if (!td) return ddl_error(d, st->off, "relation \"%s\" does not exist", st->create_index.table);
    if (!name) {
        int m = snprintf(autoname, sizeof autoname, "%s", td->name);
        for (int k = 0; k < st->create_index.keys.n && m < (int)sizeof autoname; k++) {
            sql_expr *e = ((sql_order *)st->create_index.keys.items[k])->expr;
            m += snprintf(autoname + m, sizeof autoname - (size_t)m, "_%s", e->kind == EX_COL ? e->col.column : "expr");
        }
        if (m < (int)sizeof autoname - 4) snprintf(autoname + m, sizeof autoname - (size_t)m, "_idx");
        name = autoname;
    }
    if (catalog_index(c, name) && !d->loading) {
        if (st->create_index.if_not_exists) return STRATA_OK;
        return ddl_error(d, st->off, "relation \"%s\" already exists", name);
    }
    pgno_t root = d->root;
    int rc;
    if (!d->loading && (rc = btree_create(d->t, &root))) return err_set(d->err, rc, "%s", pager_txn_err(d->t)->msg);
    const char *text = d->loading ? NULL : text_copy(c, d->sql + st->off, st->end - st->off);
    if (!d->loading && !text) return nomem(d->err);
    sql_list keys = st->create_index.keys;
    if ((rc = index_new(d, td, name, &keys, NULL, st->create_index.unique, (flags & 2) != 0,
                        (flags & FLAG_CONSTRAINT) != 0, root, text, out)))
        return rc;
    return entry_put(d, 'i', name, root, flags, text);
}

int catalog_create_index(catalog *c, pager_txn *t, const sql_stmt *st, const char *sql, size_t sqllen,
                         strata_err *err) {
    ddl d = {.c = c, .t = t, .sql = sql, .sqllen = sqllen, .err = err};
    index_def *ix;
    return apply_create_index(&d, st, 0, &ix);
}

static int apply_create_view(ddl *d, const sql_stmt *st) {
    catalog *c = d->c;
    const char *name = st->create_view.name;
    if (catalog_table(c, name) || catalog_view(c, name)) {
        if (st->create_view.if_not_exists) return STRATA_OK;
        return ddl_error(d, st->off, "relation \"%s\" already exists", name);
    }
    view_def *v = arena_alloc(&c->mem, sizeof *v);
    if (!v) return nomem(d->err);
    memset(v, 0, sizeof *v);
    v->name = arena_strdup(&c->mem, name);
    v->sql = text_copy(c, d->sql + st->off, st->end - st->off);
    v->query = st->create_view.select;
    v->ncolnames = (uint32_t)st->create_view.columns.n;
    v->colnames = (const char **)st->create_view.columns.items;
    if (!v->name || !v->sql) return nomem(d->err);
    if (push(c, (void ***)&c->views, &c->nviews, &c->cap_views, v)) return nomem(d->err);
    return entry_put(d, 'v', name, 0, 0, v->sql);
}

int catalog_create_view(catalog *c, pager_txn *t, const sql_stmt *st, const char *sql, size_t sqllen,
                        strata_err *err) {
    ddl d = {.c = c, .t = t, .sql = sql, .sqllen = sqllen, .err = err};
    return apply_create_view(&d, st);
}

/* ---- DROP --------------------------------------------------------------------------------- */

static int drop_index(ddl *d, index_def *ix) {
    int rc = btree_drop(d->t, ix->root);
    if (rc) return err_set(d->err, rc, "%s", pager_txn_err(d->t)->msg);
    if ((rc = entry_delete(d, 'i', ix->name))) return rc;
    table_def *td = ix->table;
    uint32_t n = td->nindexes;
    remove_ptr((void **)td->indexes, &n, ix);
    td->nindexes = n;
    remove_ptr((void **)d->c->indexes, &d->c->nindexes, ix);
    return STRATA_OK;
}

int catalog_drop(catalog *c, pager_txn *t, const sql_stmt *st, const char *sql, size_t sqllen, strata_err *err) {
    ddl d = {.c = c, .t = t, .sql = sql, .sqllen = sqllen, .err = err};
    int rc;
    for (int i = 0; i < st->drop.names.n; i++) {
        const char *name = st->drop.names.items[i];
        switch (st->drop.object) {
        case OBJ_TABLE: {
            table_def *td = catalog_table(c, name);
            if (!td) {
                if (st->drop.if_exists) continue;
                const char *sug = catalog_suggest(c, name);
                if (sug) return ddl_error(&d, st->off, "table \"%s\" does not exist (did you mean \"%s\"?)", name, sug);
                return ddl_error(&d, st->off, "table \"%s\" does not exist", name);
            }
            for (uint32_t k = 0; k < c->ntables; k++) {
                table_def *o = c->tables[k];
                if (o == td) continue;
                for (uint32_t f = 0; f < o->nfks; f++)
                    if (!strcmp(o->fks[f].ref_table, td->name))
                        return ddl_error(&d, st->off, "cannot drop table %s because other objects depend on it (table %s)",
                                         td->name, o->name);
            }
            while (td->nindexes)
                if ((rc = drop_index(&d, td->indexes[td->nindexes - 1]))) return rc;
            if ((rc = btree_drop(t, td->root)) || (td->desc.col_root && (rc = btree_drop(t, td->desc.col_root))))
                return err_set(err, rc, "%s", pager_txn_err(t)->msg);
            if ((rc = entry_delete(&d, 't', name)) || (rc = forget_stats(&d, td))) return rc;
            remove_ptr((void **)c->tables, &c->ntables, td);
            break;
        }
        case OBJ_INDEX: {
            index_def *ix = catalog_index(c, name);
            if (!ix) {
                if (st->drop.if_exists) continue;
                return ddl_error(&d, st->off, "index \"%s\" does not exist", name);
            }
            if (ix->constraint)
                return ddl_error(&d, st->off, "cannot drop index %s because constraint %s on table requires it", name, name);
            if ((rc = drop_index(&d, ix))) return rc;
            break;
        }
        case OBJ_VIEW: {
            view_def *v = catalog_view(c, name);
            if (!v) {
                if (st->drop.if_exists) continue;
                return ddl_error(&d, st->off, "view \"%s\" does not exist", name);
            }
            if ((rc = entry_delete(&d, 'v', name))) return rc;
            remove_ptr((void **)c->views, &c->nviews, v);
            break;
        }
        }
    }
    return STRATA_OK;
}

/* ---- ALTER TABLE -------------------------------------------------------------------------- */

/* rename_in_expr renames column references from `from` to `to` in an expression tree written
** over one table (CHECK, DEFAULT and index expressions). */
/* visit_cols calls fn on every column reference of an expression written over one table (CHECK,
** DEFAULT and index expressions); it counts the calls that return true. */
static int visit_cols(sql_expr *e, bool (*fn)(sql_expr *col, void *arg), void *arg) {
    if (!e) return 0;
    int n = 0;
    switch (e->kind) {
    case EX_COL: return fn(e, arg);
    case EX_UNARY:
    case EX_IS_NULL: return visit_cols(e->unary.arg, fn, arg);
    case EX_BINARY:
    case EX_IS_DISTINCT: return visit_cols(e->binary.left, fn, arg) + visit_cols(e->binary.right, fn, arg);
    case EX_BETWEEN:
        return visit_cols(e->between.arg, fn, arg) + visit_cols(e->between.low, fn, arg) +
               visit_cols(e->between.high, fn, arg);
    case EX_IN:
        n = visit_cols(e->in.arg, fn, arg);
        for (int i = 0; i < e->in.list.n; i++) n += visit_cols(e->in.list.items[i], fn, arg);
        return n;
    case EX_LIKE:
        return visit_cols(e->like.arg, fn, arg) + visit_cols(e->like.pattern, fn, arg) + visit_cols(e->like.escape, fn, arg);
    case EX_CASE:
        n = visit_cols(e->caseof.operand, fn, arg) + visit_cols(e->caseof.otherwise, fn, arg);
        for (int i = 0; i < e->caseof.whens.n; i++) {
            sql_when *w = e->caseof.whens.items[i];
            n += visit_cols(w->when, fn, arg) + visit_cols(w->then, fn, arg);
        }
        return n;
    case EX_CAST: return visit_cols(e->cast.arg, fn, arg);
    case EX_FUNC:
        for (int i = 0; i < e->func.args.n; i++) n += visit_cols(e->func.args.items[i], fn, arg);
        return n;
    case EX_EXTRACT: return visit_cols(e->extract.arg, fn, arg);
    default: return 0;
    }
}

typedef struct rename_arg {
    const char *from, *to;
} rename_arg;

static bool rename_col(sql_expr *col, void *arg) {
    rename_arg *r = arg;
    if (strcmp(col->col.column, r->from)) return false;
    col->col.column = r->to;
    return true;
}

static bool names_col(sql_expr *col, void *arg) { return !strcmp(col->col.column, (const char *)arg); }

/* rename_in_expr renames column references from `from` to `to`. */
static void rename_in_expr(sql_expr *e, const char *from, const char *to) {
    rename_arg r = {from, to};
    visit_cols(e, rename_col, &r);
}

/* ddl_text_append returns text followed by ";\n" and the statement st, in the catalog's arena
** (NULL: out of memory). */
static char *ddl_text_append(ddl *d, const char *text, const sql_stmt *st) {
    size_t a = strlen(text), b = st->end - st->off;
    char *s = arena_alloc(&d->c->mem, a + b + 3);
    if (!s) return NULL;
    memcpy(s, text, a);
    memcpy(s + a, ";\n", 2);
    memcpy(s + a + 2, d->sql + st->off, b);
    s[a + b + 2] = 0;
    return s;
}

/* index_text_append records a rename that followed an index's CREATE INDEX in its stored text,
** which loading replays onto the index's keys (see load_entry). */
static int index_text_append(ddl *d, index_def *ix, const sql_stmt *st) {
    if (d->loading) return STRATA_OK;
    char *s = ddl_text_append(d, ix->sql, st);
    if (!s) return nomem(d->err);
    ix->sql = s;
    return entry_put(d, 'i', ix->name, ix->root, (ix->constraint ? FLAG_CONSTRAINT : 0) | (ix->primary ? 2 : 0), s);
}

/* The text stored for a table grows by each ALTER: "CREATE TABLE ...;\nALTER TABLE ...". */
static int append_ddl(ddl *d, table_def *td, const sql_stmt *st) {
    if (d->loading) return STRATA_OK;
    char *s = ddl_text_append(d, td->sql, st);
    if (!s) return nomem(d->err);
    td->sql = s;
    return STRATA_OK;
}

/* rewrite_rows re-encodes every row of td from the old column layout to the current one:
** keep[i] is the old column index of new column i. */
static int rewrite_rows(ddl *d, table_def *td, const table_desc *old, const uint32_t *keep) {
    if (d->loading) return STRATA_OK;
    uint32_t n = td->ncols;
    data_chunk ch;
    int64_t *rowids = malloc(VECTOR_SIZE * sizeof *rowids);
    int rc = rowids ? chunk_init(&ch, td->types, n, d->err) : nomem(d->err);
    if (rc) {
        free(rowids);
        return rc;
    }
    int64_t lo = INT64_MIN;
    for (;;) {
        table_scan *s;
        chunk_reset(&ch);
        if ((rc = table_scan_open(d->t, old, keep, n, lo, INT64_MAX, &s))) break;
        rc = table_scan_next(s, &ch, rowids);
        table_scan_close(s);
        if (rc || ch.count == 0) break;
        if ((rc = table_update(d->t, &td->desc, &ch, NULL, ch.count, rowids))) break;
        if (rowids[ch.count - 1] == INT64_MAX) break;
        lo = rowids[ch.count - 1] + 1;
    }
    if (rc && !d->err->code) err_set(d->err, rc, "%s", pager_txn_err(d->t)->msg);
    chunk_free(&ch);
    free(rowids);
    return rc;
}

static int apply_alter(ddl *d, const sql_stmt *st, sql_value *added) {
    catalog *c = d->c;
    table_def *td = catalog_table(c, st->alter.table);
    if (!td) return ddl_error(d, st->off, "relation \"%s\" does not exist", st->alter.table);
    int rc = forget_stats(d, td);
    if (rc) return rc;
    switch (st->alter.action) {
    case ALTER_ADD_COLUMN: {
        sql_column_def *cd = st->alter.column;
        if (column_index(td, cd->name) >= 0) {
            if (st->alter.if_exists) return STRATA_OK;
            return ddl_error(d, cd->off, "column \"%s\" of relation \"%s\" already exists", cd->name, td->name);
        }
        column_def *nc = arena_alloc(&c->mem, (td->ncols + 1) * sizeof *nc);
        if (!nc) return nomem(d->err);
        memcpy(nc, td->cols, td->ncols * sizeof *nc);
        column_def *col = &nc[td->ncols];
        memset(col, 0, sizeof *col);
        col->name = cd->name;
        if ((rc = resolve_type(d, &cd->type, &col->type))) return rc;
        col->added_default = value_null(col->type);
        for (int k = 0; k < cd->constraints.n; k++) {
            sql_constraint *cn = cd->constraints.items[k];
            if (cn->kind == CONS_DEFAULT) col->default_expr = cn->expr;
            else if (cn->kind == CONS_NOT_NULL) col->not_null = true;
            else if (cn->kind != CONS_NULL)
                return ddl_error(d, cn->off, "only DEFAULT, NULL and NOT NULL are supported in ADD COLUMN");
        }
        /* the value existing rows read: given by the caller (who evaluated the default), or,
        ** loading, parsed from the entry's text below */
        if (added) col->added_default = *added;
        if (col->added_default.type.id == TYPE_VARCHAR || col->added_default.type.id == TYPE_BLOB) {
            sstr s;
            if (sstr_copy(&c->mem, sstr_data(&col->added_default.v.s), col->added_default.v.s.len, &s, d->err))
                return STRATA_NOMEM;
            col->added_default.v.s = s;
        }
        td->cols = nc;
        td->ncols++;
        if ((rc = refresh_desc(c, td))) return nomem(d->err);
        if ((rc = append_ddl(d, td, st))) return rc;
        break;
    }
    case ALTER_DROP_COLUMN: {
        int ci = column_index(td, st->alter.name);
        if (ci < 0) {
            if (st->alter.if_exists) return STRATA_OK;
            return ddl_error(d, st->off, "column \"%s\" of relation \"%s\" does not exist", st->alter.name, td->name);
        }
        if (td->ncols == 1) return ddl_error(d, st->off, "cannot drop the only column of table \"%s\"", td->name);
        if (ci == td->rowid_col) return ddl_error(d, st->off, "cannot drop column %s: it is the primary key of %s", st->alter.name, td->name);
        for (uint32_t k = 0; k < td->nindexes; k++)
            for (uint32_t j = 0; j < td->indexes[k]->nkeys; j++)
                if (td->indexes[k]->key_cols[j] == ci ||
                    (td->indexes[k]->key_cols[j] < 0 && visit_cols(td->indexes[k]->keys[j], names_col, (void *)st->alter.name)))
                    return ddl_error(d, st->off, "cannot drop column %s because index %s depends on it",
                                     st->alter.name, td->indexes[k]->name);
        for (uint32_t k = 0; k < td->nchecks; k++)
            if (visit_cols(td->checks[k].expr, names_col, (void *)st->alter.name))
                return ddl_error(d, st->off, "cannot drop column %s because constraint %s depends on it", st->alter.name,
                                 td->checks[k].name);
        table_desc old = td->desc;
        uint32_t *keep = arena_alloc(&c->mem, td->ncols * sizeof *keep);
        column_def *nc = arena_alloc(&c->mem, td->ncols * sizeof *nc);
        if (!keep || !nc) return nomem(d->err);
        uint32_t m = 0;
        for (uint32_t i = 0; i < td->ncols; i++)
            if ((int)i != ci) keep[m] = i, nc[m++] = td->cols[i];
        td->cols = nc;
        td->ncols = m;
        if (td->rowid_col > ci) td->rowid_col--;
        for (uint32_t k = 0; k < td->nindexes; k++)
            for (uint32_t j = 0; j < td->indexes[k]->nkeys; j++)
                if (td->indexes[k]->key_cols[j] > ci) td->indexes[k]->key_cols[j]--;
        for (uint32_t f = 0; f < td->nfks; f++)
            for (uint32_t j = 0; j < td->fks[f].ncols; j++) {
                if ((int)td->fks[f].cols[j] == ci)
                    return ddl_error(d, st->off, "cannot drop column %s because constraint %s depends on it",
                                     st->alter.name, td->fks[f].name);
                if ((int)td->fks[f].cols[j] > ci) td->fks[f].cols[j]--;
            }
        if ((rc = refresh_desc(c, td))) return nomem(d->err);
        if ((rc = rewrite_rows(d, td, &old, keep)) || (rc = append_ddl(d, td, st))) return rc;
        break;
    }
    case ALTER_RENAME_COLUMN: {
        int ci = column_index(td, st->alter.name);
        if (ci < 0) return ddl_error(d, st->off, "column \"%s\" does not exist", st->alter.name);
        if (column_index(td, st->alter.new_name) >= 0)
            return ddl_error(d, st->off, "column \"%s\" of relation \"%s\" already exists", st->alter.new_name, td->name);
        const char *to = arena_strdup(&c->mem, st->alter.new_name);
        if (!to) return nomem(d->err);
        for (uint32_t k = 0; k < td->nchecks; k++) rename_in_expr(td->checks[k].expr, td->cols[ci].name, to);
        for (uint32_t k = 0; k < td->ncols; k++) rename_in_expr(td->cols[k].default_expr, td->cols[ci].name, to);
        for (uint32_t k = 0; k < td->nindexes; k++) {
            for (uint32_t j = 0; j < td->indexes[k]->nkeys; j++)
                rename_in_expr(td->indexes[k]->keys[j], td->cols[ci].name, to);
            if ((rc = index_text_append(d, td->indexes[k], st))) return rc;
        }
        td->cols[ci].name = to;
        if ((rc = append_ddl(d, td, st))) return rc;
        break;
    }
    case ALTER_RENAME_TABLE: {
        if (catalog_table(c, st->alter.new_name) || catalog_view(c, st->alter.new_name))
            return ddl_error(d, st->off, "relation \"%s\" already exists", st->alter.new_name);
        if ((rc = entry_delete(d, 't', td->name))) return rc;
        td->name = arena_strdup(&c->mem, st->alter.new_name);
        if (!td->name) return nomem(d->err);
        if ((rc = append_ddl(d, td, st))) return rc;
        for (uint32_t k = 0; k < td->nindexes; k++)
            if ((rc = index_text_append(d, td->indexes[k], st))) return rc;
        break;
    }
    }
    return table_entry_put(d, td);
}

int catalog_alter_table(catalog *c, pager_txn *t, const sql_stmt *st, const char *sql, size_t sqllen,
                        strata_err *err) {
    ddl d = {.c = c, .t = t, .sql = sql, .sqllen = sqllen, .err = err};
    return apply_alter(&d, st, NULL);
}

/* catalog_set_added_default sets what existing rows read for the last column of td (the ADD
** COLUMN default, evaluated by the caller) and stores it with the DDL text as a trailing
** "-- default: <text>" comment line that loading reads back. */
int catalog_set_added_default(catalog *c, pager_txn *t, table_def *td, const sql_value *v, strata_err *err) {
    column_def *col = &td->cols[td->ncols - 1];
    col->added_default = *v;
    if (v->type.id == TYPE_VARCHAR || v->type.id == TYPE_BLOB) {
        sstr s;
        if (sstr_copy(&c->mem, sstr_data(&v->v.s), v->v.s.len, &s, err)) return STRATA_NOMEM;
        col->added_default.v.s = s;
    }
    int rc = refresh_desc(c, td);
    if (rc) return nomem(err);
    if (v->is_null) return STRATA_OK;
    const char *txt;
    size_t len;
    arena tmp;
    arena_init(&tmp, 0);
    if ((rc = value_to_text_arena(v, &tmp, &txt, &len, err))) {
        arena_free(&tmp);
        return rc;
    }
    /* a quoted literal cast to the type, in a comment line of its own */
    size_t a = strlen(td->sql);
    char *s = arena_alloc(&c->mem, a + 2 * len + 32);
    if (!s) {
        arena_free(&tmp);
        return nomem(err);
    }
    memcpy(s, td->sql, a);
    size_t n = a;
    memcpy(s + n, "\n-- default: ", 13);
    n += 13;
    for (size_t i = 0; i < len; i++) {
        char ch = txt[i];
        if (ch == '\n') ch = ' '; /* defaults with newlines: not representable; keep one line */
        s[n++] = ch;
    }
    s[n++] = '\n';
    s[n] = 0;
    arena_free(&tmp);
    td->sql = s;
    ddl d = {.c = c, .t = t, .sql = "", .sqllen = 0, .err = err};
    return table_entry_put(&d, td);
}

/* ---- loading ------------------------------------------------------------------------------ */

/* added_default_line finds the "-- default: " line that follows the statement ending at end. */
static const char *added_default_line(const char *end, size_t *len) {
    const char *p = end;
    while (*p == ';' || *p == ' ' || *p == '\n') {
        if (!strncmp(p, "\n-- default: ", 13)) {
            p += 13;
            const char *e = strchr(p, '\n');
            *len = e ? (size_t)(e - p) : strlen(p);
            return p;
        }
        p++;
    }
    return NULL;
}

/* load_stats attaches a stored "s:name" entry to its table (loaded in the first pass). Statistics
** are advisory: a form this build does not read, or one of a table that is gone, is passed over. */
static int load_stats(catalog *c, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen) {
    char name[300];
    if (klen - 2 >= sizeof name) return STRATA_OK;
    memcpy(name, key + 2, klen - 2);
    name[klen - 2] = 0;
    table_def *td = catalog_table(c, name);
    if (td && !td->stats) td->stats = stats_decode(val, vlen, td->ncols);
    return STRATA_OK;
}

static int load_entry(catalog *c, pager_txn *t, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen,
                      int pass, strata_err *err) {
    if (klen >= 3 && key[0] == 's') return pass == 1 ? load_stats(c, key, klen, val, vlen) : STRATA_OK;
    if (klen < 3 || vlen < ENTRY_HDR) return err_set(err, STRATA_CORRUPT, "catalog entry malformed");
    char kind = (char)key[0];
    if ((pass == 0) != (kind == 't')) return STRATA_OK; /* tables first, then indexes and views */
    uint64_t roots = 0;
    for (int i = 0; i < 8; i++) roots |= (uint64_t)val[i] << (8 * i);
    pgno_t root = (pgno_t)roots;
    int flags = val[8];
    char *text = text_copy(c, (const char *)val + ENTRY_HDR, vlen - ENTRY_HDR);
    if (!text) return nomem(err);
    ddl d = {.c = c, .t = t, .sql = text, .sqllen = vlen - ENTRY_HDR, .err = err, .loading = true, .root = root,
             .col_root = kind == 't' ? (pgno_t)(roots >> 32) : 0};
    sql_script sc;
    sql_script_init(&sc, text, vlen - ENTRY_HDR);
    table_def *td = NULL;
    for (;;) {
        sql_stmt *st;
        int rc = sql_script_next(&sc, &c->mem, &st, err);
        if (rc) {
            char msg[STRATA_ERRMSG_MAX];
            snprintf(msg, sizeof msg, "%s", err->msg);
            err_clear(err);
            return err_set(err, STRATA_CORRUPT, "catalog entry %.*s does not parse: %s", (int)klen, key, msg);
        }
        if (!st) break;
        if (st->kind == ST_CREATE_TABLE && kind == 't') {
            rc = apply_create_table(&d, st);
            td = c->ntables ? c->tables[c->ntables - 1] : NULL;
        } else if (st->kind == ST_ALTER_TABLE && kind == 't') {
            sql_value added;
            size_t dlen;
            const char *dl = added_default_line(text + st->end, &dlen);
            sql_value *ap = NULL;
            if (st->alter.action == ALTER_ADD_COLUMN && dl) {
                sql_type ty;
                if ((rc = resolve_type(&d, &st->alter.column->type, &ty))) return rc;
                sql_value lit = value_text(dl, (uint32_t)dlen);
                if ((rc = value_cast(&lit, ty, true, &c->mem, &added, err))) return rc;
                ap = &added;
            }
            if (st->alter.action == ALTER_RENAME_TABLE && td) {
                td->name = arena_strdup(&c->mem, st->alter.new_name);
                if (!td->name) return nomem(err);
                continue;
            }
            /* the table may have been renamed since: apply to the one being loaded */
            sql_stmt copy = *st;
            copy.alter.table = td ? td->name : st->alter.table;
            rc = apply_alter(&d, &copy, ap);
        } else if (st->kind == ST_CREATE_INDEX && kind == 'i') {
            /* renames recorded after it apply to its keys and table name first */
            sql_script rest = sc;
            sql_stmt copy = *st;
            for (;;) {
                sql_stmt *al;
                if ((rc = sql_script_next(&rest, &c->mem, &al, err)) || !al) break;
                if (al->kind != ST_ALTER_TABLE) continue;
                if (al->alter.action == ALTER_RENAME_TABLE && !strcmp(copy.create_index.table, al->alter.table))
                    copy.create_index.table = al->alter.new_name;
                else if (al->alter.action == ALTER_RENAME_COLUMN)
                    for (int k = 0; k < copy.create_index.keys.n; k++)
                        rename_in_expr(((sql_order *)copy.create_index.keys.items[k])->expr, al->alter.name, al->alter.new_name);
            }
            index_def *ix;
            if (!rc) rc = apply_create_index(&d, &copy, flags, &ix);
            if (!rc && ix) ix->sql = text;
            if (!rc) break; /* the ALTERs that follow were applied above */
        } else if (st->kind == ST_CREATE_VIEW && kind == 'v') {
            rc = apply_create_view(&d, st);
            if (!rc) c->views[c->nviews - 1]->sql = text;
        } else {
            rc = err_set(err, STRATA_CORRUPT, "catalog entry %.*s holds an unexpected statement", (int)klen, key);
        }
        if (rc) {
            if (rc == STRATA_NOMEM) return rc;
            char msg[STRATA_ERRMSG_MAX];
            snprintf(msg, sizeof msg, "%s", err->msg);
            err_clear(err);
            return err_set(err, STRATA_CORRUPT, "catalog entry %.*s cannot be applied: %s", (int)klen, key, msg);
        }
    }
    if (td) td->sql = text;
    return STRATA_OK;
}

void catalog_free(catalog *c) {
    for (uint32_t i = 0; i < c->ntables; i++) stats_free(c->tables[i]->stats);
    arena_free(&c->mem);
    struct segcache *segs = c->segs; /* the database's, not the catalog's */
    memset(c, 0, sizeof *c);
    c->segs = segs;
}

int catalog_load(catalog *c, pager_txn *t, strata_err *err) {
    catalog_free(c);
    arena_init(&c->mem, 0);
    pgno_t croot = (pgno_t)pager_meta_get(t, CATALOG_ROOT_SLOT);
    if (!croot) return STRATA_OK;
    for (int pass = 0; pass < 2; pass++) {
        btree_cursor *cur;
        int rc = btree_cursor_open(t, croot, &cur);
        if (rc) return err_set(err, rc, "%s", pager_txn_err(t)->msg);
        for (rc = btree_cursor_first(cur); rc == STRATA_OK && btree_cursor_valid(cur); rc = btree_cursor_next(cur)) {
            const uint8_t *k, *v;
            size_t kl, vl;
            if ((rc = btree_cursor_key(cur, &k, &kl))) break;
            if ((rc = btree_cursor_value(cur, &v, &vl))) {
                /* statistics are advisory: an unreadable value (a damaged overflow page) is passed over */
                if (rc != STRATA_CORRUPT || kl < 1 || k[0] != 's') break;
                err_clear(pager_txn_err(t));
                rc = STRATA_OK;
                continue;
            }
            if ((rc = load_entry(c, t, k, kl, v, vl, pass, err))) break;
        }
        btree_cursor_close(cur);
        if (rc) {
            if (!err->code) err_set(err, rc, "%s", pager_txn_err(t)->msg);
            return rc;
        }
    }
    ddl d = {.c = c, .t = t, .sql = "", .sqllen = 0, .err = err, .loading = true};
    for (uint32_t i = 0; i < c->ntables; i++)
        for (uint32_t k = 0; k < c->tables[i]->nfks; k++) {
            int rc = resolve_fk(&d, &c->tables[i]->fks[k]);
            if (rc) {
                char msg[STRATA_ERRMSG_MAX];
                snprintf(msg, sizeof msg, "%s", err->msg);
                err_clear(err);
                return err_set(err, STRATA_CORRUPT, "catalog: table %s: %s", c->tables[i]->name, msg);
            }
        }
    return STRATA_OK;
}

int catalog_set_col_root(catalog *c, pager_txn *t, table_def *td, pgno_t col_root, strata_err *err) {
    ddl d = {.c = c, .t = t, .sql = td->sql, .sqllen = strlen(td->sql), .err = err};
    pgno_t was = td->desc.col_root;
    td->desc.col_root = col_root;
    int rc = table_entry_put(&d, td);
    if (rc) td->desc.col_root = was;
    return rc;
}

int catalog_set_stats(catalog *c, pager_txn *t, table_def *td, table_stats *st, strata_err *err) {
    ddl d = {.c = c, .t = t, .sql = "", .sqllen = 0, .err = err};
    int rc = forget_stats(&d, td);
    if (rc || !st) {
        stats_free(st);
        return rc;
    }
    size_t n;
    uint8_t *v = stats_encode(st, &n);
    if (!v) {
        stats_free(st);
        return nomem(err);
    }
    rc = entry_store(&d, 's', td->name, v, n);
    free(v);
    if (rc) stats_free(st);
    else td->stats = st;
    return rc;
}

/* ---- salvage -------------------------------------------------------------------------------- */

typedef struct salvaged {
    uint8_t **keys, **vals;
    size_t *klens, *vlens;
    uint32_t n, cap;
    int nomem;
    void (*lost)(void *arg, pgno_t pgno, const char *why);
    void *arg;
} salvaged;

static int salvage_entry(void *arg, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen) {
    salvaged *sv = arg;
    if (sv->n == sv->cap) {
        uint32_t cap = sv->cap ? 2 * sv->cap : 64;
        uint8_t **k = realloc(sv->keys, cap * sizeof *k), **v = k ? realloc(sv->vals, cap * sizeof *v) : NULL;
        if (k) sv->keys = k;
        if (v) sv->vals = v;
        size_t *kl = v ? realloc(sv->klens, cap * sizeof *kl) : NULL, *vl = kl ? realloc(sv->vlens, cap * sizeof *vl) : NULL;
        if (kl) sv->klens = kl;
        if (vl) sv->vlens = vl;
        if (!vl) return STRATA_NOMEM;
        sv->cap = cap;
    }
    uint8_t *k = malloc(klen + 1), *v = malloc(vlen + 1);
    if (!k || !v) {
        free(k);
        free(v);
        return STRATA_NOMEM;
    }
    memcpy(k, key, klen);
    memcpy(v, val, vlen);
    sv->keys[sv->n] = k;
    sv->vals[sv->n] = v;
    sv->klens[sv->n] = klen;
    sv->vlens[sv->n] = vlen;
    sv->n++;
    return STRATA_OK;
}

static void salvage_lost_page(void *arg, pgno_t pgno, const char *why) {
    salvaged *sv = arg;
    if (sv->lost) sv->lost(sv->arg, pgno, why);
}

int catalog_salvage(catalog *c, pager_txn *t, void (*lost)(void *arg, pgno_t pgno, const char *why),
                    void (*skipped)(void *arg, const char *entry, const char *why), void *arg, strata_err *err) {
    catalog_free(c);
    arena_init(&c->mem, 0);
    pgno_t croot = (pgno_t)pager_meta_get(t, CATALOG_ROOT_SLOT);
    if (!croot) return STRATA_OK;
    salvaged sv = {.lost = lost, .arg = arg};
    btree_salvage_fns fns = {.entry = salvage_entry, .lost = salvage_lost_page, .arg = &sv};
    int rc = btree_salvage(t, croot, &fns);
    if (rc) rc = err_set(err, STRATA_NOMEM, "out of memory reading the catalog");
    for (int pass = 0; pass < 2 && !rc; pass++)
        for (uint32_t i = 0; i < sv.n && !rc; i++) {
            uint32_t had = c->ntables;
            int r = load_entry(c, t, sv.keys[i], sv.klens[i], sv.vals[i], sv.vlens[i], pass, err);
            if (r == STRATA_NOMEM) rc = r;
            else if (r) {
                char name[300];
                snprintf(name, sizeof name, "%.*s", (int)(sv.klens[i] < 200 ? sv.klens[i] : 200), (const char *)sv.keys[i]);
                if (skipped) skipped(arg, name, err->msg);
                err_clear(err);
                c->ntables = had; /* a table half applied is left out */
            }
        }
    for (uint32_t i = 0; i < sv.n; i++) {
        free(sv.keys[i]);
        free(sv.vals[i]);
    }
    free(sv.keys);
    free(sv.vals);
    free(sv.klens);
    free(sv.vlens);
    /* foreign keys whose table was lost are dropped: the rows keep their values */
    ddl d = {.c = c, .t = t, .sql = "", .sqllen = 0, .err = err, .loading = true};
    for (uint32_t i = 0; i < c->ntables && !rc; i++) {
        table_def *td = c->tables[i];
        uint32_t keep = 0;
        for (uint32_t k = 0; k < td->nfks; k++) {
            if (resolve_fk(&d, &td->fks[k])) {
                err_clear(err);
                continue;
            }
            td->fks[keep++] = td->fks[k];
        }
        td->nfks = keep;
    }
    return rc;
}
