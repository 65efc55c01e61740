/*
** api.c -- the public C API of include/strata.h over the parser, binder, executor, the storage
** policy (storage/) and the pager.
**
** A statement is parsed and bound when prepared (so its columns are known at once) and bound
** again when the catalog changed since (schema_version), as SQLite re-prepares. Running it opens
** the plan's pipelines inside a transaction: the explicit one of BEGIN, or its own (autocommit),
** which a read statement keeps until its last row and a write statement commits before
** strata_step returns STRATA_DONE.
**
** Errors inside BEGIN ... COMMIT abort the transaction, as PostgreSQL does; see strata.h.
*/
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../colstore/rowgroup.h"
#include "../colstore/segcache.h"
#include "../rowstore/pager.h"
#include "bind/bind.h"
#include "optimize/estimate.h"
#include "optimize/optimize.h"
#include "exec/operator.h"
#include "parser/parser.h"
#include "recover.h"
#include "storage/maintain.h"
#include "storage/memory.h"
#include "strata.h"
#include "vfs.h"

struct strata_db {
    vfs *mem_vfs; /* ":memory:": the private file system to destroy */
    pager *p;
    catalog cat;
    uint64_t schema_version;
    pager_txn *txn;   /* the explicit transaction (BEGIN), or NULL */
    bool txn_aborted; /* an error happened inside it */
    strata_err err;   /* the last error */
    int64_t changes;
    int64_t rejects;    /* records the last statement (a COPY ... FROM with REJECTS) sent away */
    strata_progress_fn progress; /* strata_progress_handler */
    void *progress_arg;
    bool progress_off;  /* PRAGMA progress_bar = off */
    strata_stmt *stmts; /* open statements */
    strata_appender *apps; /* open appenders */
    volatile int interrupted; /* strata_interrupt: running statements stop; set and read with
                               ** __atomic builtins (another thread or a signal handler sets it) */
    size_t memory_limit;      /* SET memory_limit: page cache and query memory together */
    unsigned threads;         /* SET threads: the workers a statement's pipelines may run on */
    size_t query_limit;       /* ... of which a statement's run may take (the rest is the cache's) */
};

static void apply_memory_limit(strata_db *db, size_t limit);

struct strata_chunk {
    data_chunk *c;
    char text[VALUE_TEXT_MAX];
};

struct strata_stmt {
    strata_db *db;
    strata_stmt *next, *prev;
    char *sql;      /* this statement's text (a copy) */
    size_t sqllen;
    arena mem;      /* parse tree and plan */
    arena run;      /* per-run memory */
    sql_stmt *ast;
    plan_op *plan;  /* NULL for statements without a plan (DDL, transaction control) */
    void *pipelines; /* the plan's pipelines, kept between runs (exec_destroy frees them) */
    uint64_t runs;
    vec_budget budget; /* the query memory of the current run */
    uint64_t bound_version;
    int nparams;
    sql_value *params;
    char **pbuf;  /* each parameter's copy of its bound text or blob, reused by its next bind */
    size_t *pcap; /* ... and the room each has */
    /* running */
    exec_ctx x;
    strata_err run_err;
    pager_txn *own;  /* autocommit transaction */
    bool sp;         /* a savepoint of the explicit transaction undoes this statement if it fails */
    bool running, done, fetching;
    data_chunk out;
    bool out_ready;
    uint32_t row;    /* current row in out (after a step returned ROW) */
    char **text;     /* per column: text of the current row */
    size_t *text_cap;
    int ntext;       /* entries of text / text_cap */
    strata_chunk chunk;
    /* results of statements that answer without a plan (EXPLAIN, PRAGMA) */
    uint32_t nlines, line;
    char **lines;
    uint32_t ncols_fixed;
    const char **names_fixed;
    bool analyzed;        /* EXPLAIN ANALYZE ran: explain_op prints the operators' counts */
    uint64_t analyzed_rows;
    const char **decltypes; /* in mem: formatted on demand */
    cte_store *feed; /* an appender's INSERT: its rows come from here, not its VALUES (bind_feed) */
};

/* ---- errors ------------------------------------------------------------------------------- */

static int db_error(strata_db *db, const strata_err *e, int rc) {
    if (!db) return rc;
    db->err.code = rc;
    snprintf(db->err.msg, sizeof db->err.msg, "%s", e && e->code ? e->msg : strata_errstr(rc));
    return rc;
}

__attribute__((format(printf, 3, 4))) static int db_errorf(strata_db *db, int rc, const char *fmt, ...) {
    if (!db) return rc;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(db->err.msg, sizeof db->err.msg, fmt, ap);
    va_end(ap);
    db->err.code = rc;
    return rc;
}

const char *strata_libversion(void) { return STRATA_VERSION; }

int strata_errcode(strata_db *db) { return db ? db->err.code : STRATA_MISUSE; }
const char *strata_errmsg(strata_db *db) {
    if (!db) return "out of memory";
    return db->err.code ? db->err.msg : "not an error";
}
int64_t strata_changes(strata_db *db) { return db ? db->changes : 0; }
int64_t strata_rejects(strata_db *db) { return db ? db->rejects : 0; }

void strata_progress_handler(strata_db *db, strata_progress_fn fn, void *arg) {
    if (!db) return;
    db->progress = fn;
    db->progress_arg = arg;
}

/* ---- open and close ----------------------------------------------------------------------- */

/* load_catalog reads the catalog as the explicit transaction sees it, or as committed. */
static int load_catalog(strata_db *db, strata_err *err) {
    db->schema_version++;
    if (db->txn) return catalog_load(&db->cat, db->txn, err);
    pager_txn *t;
    int rc = pager_begin(db->p, 0, &t, err);
    if (rc) return rc;
    rc = catalog_load(&db->cat, t, err);
    pager_rollback(t);
    return rc;
}

/* SET threads takes 1 .. THREADS_MAX (the worker pool's bound); the default is the machine's
** online cores. */
#define THREADS_MAX 256

int strata_open(const char *path, strata_db **out) {
    *out = NULL;
    strata_db *db = calloc(1, sizeof *db);
    if (!db) return STRATA_NOMEM;
    *out = db;
    if (!path) return db_errorf(db, STRATA_MISUSE, "strata_open: path is NULL");
    vfs *v = vfs_posix();
    if (!strcmp(path, ":memory:")) {
        if (!(db->mem_vfs = vfs_mem_create())) return db_errorf(db, STRATA_NOMEM, "out of memory");
        v = db->mem_vfs;
        path = "memory.db";
    }
    pager_config cfg = {0};
    strata_err err;
    err_clear(&err);
    int rc = exec_check_operators(&err); /* a kind without its operator: a build that is not usable */
    if (rc) return db_error(db, &err, rc);
    if ((rc = pager_open(v, path, &cfg, &db->p, &err))) return db_error(db, &err, rc);
    arena_init(&db->cat.mem, 0);
    if (!(db->cat.segs = segcache_create(SEGMENT_CACHE_MAX))) return db_errorf(db, STRATA_NOMEM, "out of memory");
    if ((rc = load_catalog(db, &err))) {
        if (rc != STRATA_CORRUPT) return db_error(db, &err, rc);
        return db_errorf(db, rc,
                         "the catalog of %s (its table definitions) is damaged: %s; strata_recover() copies what is "
                         "readable into a new database (in the shell: strata -c \".recover %s NEWFILE\")",
                         path, err.msg, path);
    }
    apply_memory_limit(db, memory_limit_default());
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    db->threads = cores < 1 ? 1 : cores > THREADS_MAX ? THREADS_MAX : (unsigned)cores;
    return STRATA_OK;
}

int strata_close(strata_db *db) {
    if (!db) return STRATA_OK;
    while (db->apps) strata_appender_destroy(db->apps); /* their statements are among stmts */
    while (db->stmts) strata_finalize(db->stmts);
    if (db->txn) pager_rollback(db->txn);
    int rc = STRATA_OK;
    if (db->p) rc = pager_close(db->p);
    segcache_destroy(db->cat.segs);
    db->cat.segs = NULL;
    catalog_free(&db->cat);
    if (db->mem_vfs) vfs_destroy(db->mem_vfs);
    free(db);
    return rc;
}

int strata_checkpoint(strata_db *db) {
    if (!db) return STRATA_MISUSE;
    if (!db->p) return db_errorf(db, STRATA_MISUSE, "strata_checkpoint: the database is not open");
    if (db->txn) return db_errorf(db, STRATA_MISUSE, "strata_checkpoint: a transaction is open (COMMIT or ROLLBACK it first)");
    strata_err err;
    err_clear(&err);
    int rc = pager_checkpoint(db->p, &err);
    return rc ? db_error(db, &err, rc) : STRATA_OK;
}

/* ---- prepare ------------------------------------------------------------------------------ */

static void stmt_release_run(strata_stmt *s);

/* bind_stmt (re)parses and binds the statement's text against the current catalog. */
/* free_result frees the result chunk kept between runs. */
static void free_result(strata_stmt *s) {
    if (s->out_ready) chunk_free(&s->out);
    s->out_ready = false;
}

static int bind_stmt(strata_stmt *s, strata_err *err) {
    exec_destroy(&s->pipelines); /* what the old plan kept between runs */
    free_result(s);
    arena_reset(&s->mem);
    s->decltypes = NULL;
    s->plan = NULL;
    s->ast = NULL;
    sql_stmt *st;
    const char *tail;
    int rc = sql_parse(&s->mem, s->sql, &st, &tail, err);
    if (rc) return rc;
    s->ast = st;
    bind_ctx b = {.cat = &s->db->cat, .mem = &s->mem, .sql = s->sql, .sqllen = s->sqllen, .err = err};
    sql_stmt *target = st;
    if (st && st->kind == ST_EXPLAIN) target = st->explain.stmt;
    if (!target) return STRATA_OK;
    switch (target->kind) {
    case ST_SELECT: rc = bind_query(&b, target->select, &s->plan); break;
    case ST_INSERT: rc = bind_insert(&b, target, &s->plan); break;
    case ST_COPY: rc = bind_copy(&b, target, &s->plan); break;
    case ST_UPDATE: rc = bind_update(&b, target, &s->plan); break;
    case ST_DELETE: rc = bind_delete(&b, target, &s->plan); break;
    default: break;
    }
    if (!rc && s->plan && s->feed) rc = bind_feed(&b, s->plan, s->feed);
    if (!rc && s->plan) rc = group_keys(&b, &s->plan);
    if (!rc && s->plan) rc = optimize_prune(&b, s->plan);
    if (rc) return rc;
    estimate_plan(s->plan);
    if (b.nparams > s->nparams) {
        sql_value *np = realloc(s->params, (size_t)b.nparams * sizeof *np);
        if (np) s->params = np;
        char **nb = np ? realloc(s->pbuf, (size_t)b.nparams * sizeof *nb) : NULL;
        if (nb) s->pbuf = nb;
        size_t *nc = nb ? realloc(s->pcap, (size_t)b.nparams * sizeof *nc) : NULL;
        if (!nc) return err_set(err, STRATA_NOMEM, "out of memory");
        s->pcap = nc;
        for (int i = s->nparams; i < b.nparams; i++) {
            np[i] = value_null(sql_type_make(TYPE_NULL));
            nb[i] = NULL;
            nc[i] = 0;
        }
        s->nparams = b.nparams;
    }
    s->bound_version = s->db->schema_version;
    return STRATA_OK;
}

/* params_free frees the parameters and the copies of their bound bytes. */
static void params_free(strata_stmt *s) {
    for (int i = 0; i < s->nparams; i++) free(s->pbuf[i]);
    free(s->pbuf);
    free(s->pcap);
    free(s->params);
}

int strata_prepare(strata_db *db, const char *sql, strata_stmt **out, const char **tail) {
    if (!out) return db_errorf(db, STRATA_MISUSE, "strata_prepare: out is NULL");
    *out = NULL;
    if (!db || !sql) return db_errorf(db, STRATA_MISUSE, "strata_prepare: NULL argument");
    /* find the statement's extent first: parse into a scratch arena */
    arena scratch;
    arena_init(&scratch, 0);
    strata_err err;
    err_clear(&err);
    sql_stmt *st;
    const char *t;
    int rc = sql_parse(&scratch, sql, &st, &t, &err);
    arena_free(&scratch);
    if (rc) return db_error(db, &err, rc);
    if (tail) *tail = t;
    if (!st) return STRATA_OK;
    strata_stmt *s = calloc(1, sizeof *s);
    if (!s) return db_errorf(db, STRATA_NOMEM, "out of memory");
    s->db = db;
    s->sqllen = (size_t)(t - sql);
    s->sql = malloc(s->sqllen + 1);
    if (!s->sql) {
        free(s);
        return db_errorf(db, STRATA_NOMEM, "out of memory");
    }
    memcpy(s->sql, sql, s->sqllen);
    s->sql[s->sqllen] = 0;
    arena_init(&s->mem, 0);
    arena_init(&s->run, 0);
    if ((rc = bind_stmt(s, &err))) {
        arena_free(&s->mem);
        arena_free(&s->run);
        params_free(s);
        free(s->sql);
        free(s);
        return db_error(db, &err, rc);
    }
    s->next = db->stmts;
    if (db->stmts) db->stmts->prev = s;
    db->stmts = s;
    *out = s;
    return STRATA_OK;
}

/* ---- binding ------------------------------------------------------------------------------ */

static int bind_check(strata_stmt *s, int i) {
    if (!s) return STRATA_MISUSE;
    if (s->running) return db_errorf(s->db, STRATA_MISUSE, "cannot bind a running statement: reset it first");
    if (i < 1 || i > s->nparams) return db_errorf(s->db, STRATA_MISUSE, "parameter index %d out of range (1..%d)", i, s->nparams);
    return STRATA_OK;
}

int strata_bind_parameter_count(strata_stmt *s) { return s ? s->nparams : 0; }

int strata_bind_null(strata_stmt *s, int i) {
    int rc = bind_check(s, i);
    if (rc) return rc;
    s->params[i - 1] = value_null(sql_type_make(TYPE_NULL));
    return STRATA_OK;
}

int strata_bind_int64(strata_stmt *s, int i, int64_t v) {
    int rc = bind_check(s, i);
    if (rc) return rc;
    s->params[i - 1] = value_int(TYPE_BIGINT, v);
    return STRATA_OK;
}

int strata_bind_double(strata_stmt *s, int i, double v) {
    int rc = bind_check(s, i);
    if (rc) return rc;
    s->params[i - 1] = value_double(v);
    return STRATA_OK;
}

static int bind_bytes(strata_stmt *s, int i, const void *v, int len, uint8_t type) {
    int rc = bind_check(s, i);
    if (rc) return rc;
    if (!v) return strata_bind_null(s, i);
    size_t n = len < 0 ? strlen(v) : (size_t)len;
    if (s->pcap[i - 1] < n + 1) { /* the room of the parameter's last value is reused */
        char *grown = realloc(s->pbuf[i - 1], n + 1);
        if (!grown) return db_errorf(s->db, STRATA_NOMEM, "out of memory");
        s->pbuf[i - 1] = grown;
        s->pcap[i - 1] = n + 1;
    }
    char *copy = s->pbuf[i - 1];
    memmove(copy, v, n);
    copy[n] = 0;
    s->params[i - 1] = type == TYPE_BLOB ? value_blob(copy, (uint32_t)n) : value_text(copy, (uint32_t)n);
    return STRATA_OK;
}

int strata_bind_text(strata_stmt *s, int i, const char *v, int len) { return bind_bytes(s, i, v, len, TYPE_VARCHAR); }
int strata_bind_blob(strata_stmt *s, int i, const void *v, int len) { return bind_bytes(s, i, v, len < 0 ? 0 : len, TYPE_BLOB); }

int strata_clear_bindings(strata_stmt *s) {
    if (!s) return STRATA_MISUSE;
    if (s->running) return db_errorf(s->db, STRATA_MISUSE, "cannot bind a running statement: reset it first");
    for (int i = 0; i < s->nparams; i++) s->params[i] = value_null(sql_type_make(TYPE_NULL));
    return STRATA_OK;
}

/* ---- transactions ------------------------------------------------------------------------- */

static bool plan_writes(const plan_op *p) {
    return p->kind == PLAN_INSERT || p->kind == PLAN_UPDATE || p->kind == PLAN_DELETE;
}

/* needs_savepoint says whether a writing statement can fail after it changed something, so that
** undoing it needs a savepoint: every statement but a one-row INSERT ... VALUES into a table
** without secondary indexes (whose checks all come before its one B+tree put, and a put that
** fails refuses before changing the tree -- other failures of a put abort the transaction, see
** fail_statement). The savepoint costs a page copy per statement, a third of a one-row insert. */
static bool needs_savepoint(const plan_op *p) {
    if (!p || p->kind != PLAN_INSERT) return true;
    const plan_op *src = p->child[0];
    return !(src->kind == PLAN_VALUES && src->values.nrows == 1 && p->dml.table->nindexes == 0 &&
             !p->dml.on_conflict_update && !p->dml.on_conflict_nothing);
}

/* statement_txn gives the transaction a statement runs in: the explicit one, or a new one. */
static int statement_txn(strata_stmt *s, bool write, pager_txn **t) {
    strata_db *db = s->db;
    if (db->txn) {
        if (db->txn_aborted)
            return db_errorf(db, STRATA_ERROR, "current transaction is aborted, commands ignored until end of transaction block");
        if (write && needs_savepoint(s->plan)) { /* a failing statement must leave the transaction as it was */
            int rc = pager_savepoint(db->txn);
            if (rc) return db_error(db, pager_txn_err(db->txn), rc);
            s->sp = true;
        }
        *t = db->txn;
        return STRATA_OK;
    }
    strata_err err;
    err_clear(&err);
    int rc = pager_begin(db->p, write, &s->own, &err);
    if (rc) return db_error(db, &err, rc);
    *t = s->own;
    return STRATA_OK;
}

static int end_own(strata_stmt *s, bool ok);
static int fail_statement(strata_stmt *s, const strata_err *err, int rc);

/* run_analyze carries out ANALYZE [table]: the statistics of the table (of every table) are
** computed again from all its rows, in the statement's transaction. Prepared statements bind
** again, so that their estimates use them. */
static int run_analyze(strata_stmt *s) {
    strata_db *db = s->db;
    const char *name = s->ast->maint.table;
    if (name && !catalog_table(&db->cat, name)) return db_errorf(db, STRATA_ERROR, "relation \"%s\" does not exist", name);
    pager_txn *t;
    int rc = statement_txn(s, true, &t);
    if (rc) return rc;
    strata_err err;
    err_clear(&err);
    rc = storage_analyze(&db->cat, t, name, &err);
    db->schema_version++;
    if (rc) return fail_statement(s, &err, rc);
    return end_own(s, true);
}

/* after_commit lets the storage policy work after a commit (no transaction is open): the tuple
** mover and the statistics refresh. When it read the catalog again, statements bind again. */
static void after_commit(strata_db *db) {
    bool reread = false;
    storage_after_commit(db->p, &db->cat, &reread);
    if (reread) db->schema_version++;
}

/* end_own ends a statement that succeeded or was abandoned: its savepoint in the explicit
** transaction is let go (the changes stay), its autocommit transaction commits (ok) or rolls
** back. */
static int end_own(strata_stmt *s, bool ok) {
    strata_db *db = s->db;
    if (s->sp) {
        pager_savepoint_release(db->txn);
        s->sp = false;
    }
    if (!s->own) return STRATA_OK;
    pager_txn *t = s->own;
    s->own = NULL;
    if (!ok || !pager_txn_is_write(t)) {
        pager_rollback(t);
        return STRATA_OK;
    }
    strata_err err;
    err_clear(&err);
    int rc = pager_commit(t, &err);
    if (rc) {
        db_error(db, &err, rc);
        strata_err e2;
        err_clear(&e2);
        load_catalog(db, &e2);
        return rc;
    }
    after_commit(db);
    return STRATA_OK;
}

/* fail_statement records an error and undoes the statement: its autocommit transaction rolls
** back, or inside BEGIN the transaction returns to the statement's savepoint; the catalog is read
** again in case DDL changed it. When the savepoint cannot undo the statement (it spilled pages
** to the WAL), the explicit transaction is marked aborted instead. */
static int fail_statement(strata_stmt *s, const strata_err *err, int rc) {
    strata_db *db = s->db;
    db_error(db, err, rc);
    stmt_release_run(s);
    strata_err e2;
    err_clear(&e2);
    if (s->own) {
        pager_rollback(s->own);
        s->own = NULL;
        load_catalog(db, &e2);
    } else if (s->sp) {
        s->sp = false;
        if (pager_savepoint_rollback(db->txn) == STRATA_OK) load_catalog(db, &e2);
        else db->txn_aborted = true;
    } else if (db->txn && s->plan && plan_writes(s->plan) && rc != STRATA_CONSTRAINT && rc != STRATA_ERROR &&
               rc != STRATA_INTERRUPT) {
        db->txn_aborted = true; /* a write without a savepoint failed inside the B+tree: may be half done */
    }
    s->running = false;
    s->done = true;
    return rc;
}

static int run_control(strata_stmt *s) {
    strata_db *db = s->db;
    strata_err err;
    err_clear(&err);
    int rc;
    switch (s->ast->kind) {
    case ST_BEGIN:
        if (db->txn) return db_errorf(db, STRATA_ERROR, "there is already a transaction in progress");
        if ((rc = pager_begin(db->p, 1, &db->txn, &err))) return db_error(db, &err, rc);
        db->txn_aborted = false;
        return STRATA_OK;
    case ST_COMMIT:
        if (!db->txn) return db_errorf(db, STRATA_ERROR, "there is no transaction in progress");
        if (db->txn_aborted) { /* PostgreSQL: COMMIT of an aborted transaction rolls it back */
            pager_rollback(db->txn);
            db->txn = NULL;
            db->txn_aborted = false;
            if ((rc = load_catalog(db, &err))) return db_error(db, &err, rc);
            return STRATA_OK;
        }
        rc = pager_commit(db->txn, &err);
        db->txn = NULL;
        if (rc) {
            strata_err e2;
            err_clear(&e2);
            load_catalog(db, &e2);
            return db_error(db, &err, rc);
        }
        after_commit(db);
        return STRATA_OK;
    case ST_ROLLBACK:
        if (!db->txn) return db_errorf(db, STRATA_ERROR, "there is no transaction in progress");
        pager_rollback(db->txn);
        db->txn = NULL;
        db->txn_aborted = false;
        if ((rc = load_catalog(db, &err))) return db_error(db, &err, rc);
        return STRATA_OK;
    case ST_VACUUM:
        if (db->txn) return db_errorf(db, STRATA_ERROR, "VACUUM cannot run inside a transaction block");
        if ((rc = storage_vacuum(db->p, &db->cat, s->ast->maint.table, &err))) return db_error(db, &err, rc);
        return STRATA_OK;
    case ST_CHECKPOINT: {
        if (db->txn) return db_errorf(db, STRATA_ERROR, "CHECKPOINT cannot run inside a transaction block");
        bool reread = false;
        rc = storage_checkpoint(db->p, &db->cat, s->ast->maint.table, &reread, &err);
        if (reread) db->schema_version++;
        if (rc) return db_error(db, &err, rc);
        return STRATA_OK;
    }
    default: return STRATA_OK;
    }
}

static exec_ctx run_ctx(strata_stmt *s, pager_txn *t);

/* create_index carries out CREATE INDEX in transaction t: the entries of the table's rows are made
** and sorted first, by a plan of a scan under CREATE INDEX's build (op_index.c) run as a query is
** (on the workers too: the transaction has written nothing yet), then the index is made in the
** catalog and loaded with them. */
static int create_index(strata_stmt *s, pager_txn *t, strata_err *err) {
    const sql_stmt *st = s->ast;
    catalog *cat = &s->db->cat;
    table_def *td = catalog_table(cat, st->create_index.table);
    if (!td || (st->create_index.name && catalog_index(cat, st->create_index.name)))
        return catalog_create_index(cat, t, st, s->sql, s->sqllen, err); /* its error, or IF NOT EXISTS */
    uint32_t nkeys = (uint32_t)st->create_index.keys.n;
    sql_expr **keys = arena_alloc(&s->run, nkeys * sizeof *keys);
    if (!keys) return err_set(err, STRATA_NOMEM, "out of memory");
    for (uint32_t k = 0; k < nkeys; k++) keys[k] = ((sql_order *)st->create_index.keys.items[k])->expr;
    bind_ctx b = {.cat = cat, .mem = &s->run, .sql = s->sql, .sqllen = s->sqllen, .err = err};
    plan_op *p;
    int rc = bind_index_build(&b, td, keys, nkeys, &p);
    if (!rc) rc = optimize_prune(&b, p);
    if (rc) return rc;
    exec_ctx x = run_ctx(s, t);
    x.pipelines = NULL;
    x.err = err;
    data_chunk out = {0};
    uint32_t before = td->nindexes;
    if (!(rc = exec_open(&x, p))) rc = exec_next(&x, p, &out); /* the build runs to its end: no rows */
    if (!rc) rc = catalog_create_index(cat, t, st, s->sql, s->sqllen, err);
    td = catalog_table(cat, st->create_index.table);
    if (!rc && td->nindexes > before) /* not when IF NOT EXISTS found the name it made */
        rc = exec_index_load(&x, p, td->indexes[td->nindexes - 1]);
    exec_close(&x, p);
    exec_plan_free(x.pipelines);
    return rc;
}

static int run_ddl(strata_stmt *s) {
    strata_db *db = s->db;
    pager_txn *t;
    int rc = statement_txn(s, true, &t);
    if (rc) return rc;
    strata_err err;
    err_clear(&err);
    const sql_stmt *st = s->ast;
    switch (st->kind) {
    case ST_CREATE_TABLE: rc = catalog_create_table(&db->cat, t, st, s->sql, s->sqllen, &err); break;
    case ST_CREATE_VIEW: {
        rc = catalog_create_view(&db->cat, t, st, s->sql, s->sqllen, &err);
        if (!rc) { /* the view must bind now: refuse a broken one */
            bind_ctx b = {.cat = &db->cat, .mem = &s->run, .sql = s->sql, .sqllen = s->sqllen, .err = &err};
            plan_op *p;
            rc = bind_query(&b, st->create_view.select, &p);
        }
        break;
    }
    case ST_CREATE_INDEX: rc = create_index(s, t, &err); break;
    case ST_DROP: rc = catalog_drop(&db->cat, t, st, s->sql, s->sqllen, &err); break;
    case ST_ALTER_TABLE:
        rc = catalog_alter_table(&db->cat, t, st, s->sql, s->sqllen, &err);
        if (!rc && st->alter.action == ALTER_ADD_COLUMN) {
            /* rows already stored read the column's DEFAULT, evaluated once now */
            table_def *td = catalog_table(&db->cat, st->alter.table);
            column_def *col = &td->cols[td->ncols - 1];
            if (col->default_expr) {
                bind_ctx b = {.cat = &db->cat, .mem = &s->run, .sql = s->sql, .sqllen = s->sqllen, .err = &err};
                exec_ctx x = {.txn = t, .cat = &db->cat, .mem = &s->run, .err = &err, .sql = s->sql, .sqllen = s->sqllen};
                expr *e;
                sql_value v;
                rc = bind_table_expr(&b, NULL, col->default_expr, &e);
                if (!rc) rc = bind_cast(&b, e, col->type, false, &e);
                if (!rc) rc = expr_eval_const(&x, e, &v);
                if (!rc) rc = catalog_set_added_default(&db->cat, t, td, &v, &err);
            } else if (col->not_null) {
                int64_t mx = 0;
                if ((rc = table_max_rowid(t, &td->desc, &mx))) err_set(&err, rc, "%s", pager_txn_err(t)->msg);
                else if (mx != 0) rc = err_set(&err, STRATA_CONSTRAINT, "column \"%s\" of relation \"%s\" contains null values", col->name, td->name);
            }
        }
        break;
    default: rc = err_set(&err, STRATA_ERROR, "statement not supported yet"); break;
    }
    db->schema_version++;
    /* the definitions just made point into this statement's syntax tree: read them back from
    ** the entries written, so that the catalog owns all it refers to */
    if (!rc) rc = catalog_load(&db->cat, t, &err);
    if (rc) return fail_statement(s, &err, rc);
    return end_own(s, true);
}

/* ---- running ------------------------------------------------------------------------------ */

static void stmt_release_run(strata_stmt *s) {
    if (s->running && s->plan) {
        exec_close(&s->x, s->plan);
        s->pipelines = s->x.pipelines;
    }
    s->out.count = 0; /* the result chunk stays for the next run (free_result frees it) */
    s->analyzed = false;
    for (uint32_t i = 0; i < s->nlines; i++) free(s->lines[i]);
    free(s->lines);
    s->lines = NULL;
    s->nlines = s->line = 0;
    arena_reset(&s->run);
}


/* explain_lines renders the plan as an indented tree, one operator per line. */
static void explain_add(strata_stmt *s, const char *line) {
    char **n = realloc(s->lines, (s->nlines + 1) * sizeof *n);
    if (!n) return;
    s->lines = n;
    s->lines[s->nlines] = strdup(line);
    if (s->lines[s->nlines]) s->nlines++;
}

static void explain_op(strata_stmt *s, const plan_op *p, int depth) {
    const op_vtable *v = op_vt(p);
    char line[512];
    int n = snprintf(line, sizeof line, "%*s%s", 2 * depth, "", v->name);
    if (v->explain && (size_t)n < sizeof line) v->explain(p, line + n, sizeof line - (size_t)n);
    size_t l = strlen(line);
    const op_stats *st = s->analyzed ? exec_stats(s->pipelines, p) : NULL;
    op_stats none = {0};
    if (s->analyzed && !st) st = &none;
    char workers[32] = ""; /* a parallel pipeline's time is summed over its workers */
    if (st && st->workers > 1) snprintf(workers, sizeof workers, " on %u workers", st->workers);
    if (st && st->rows_dropped) /* a scan's estimate counts the rows its join filters drop */
        snprintf(line + l, sizeof line - l, "  (est=%.0f rows=%llu, %llu more dropped by join filters, time=%.3f ms%s)",
                 p->est_rows, (unsigned long long)st->rows_out, (unsigned long long)st->rows_dropped, st->ns / 1e6,
                 workers);
    else if (st)
        snprintf(line + l, sizeof line - l, "  (est=%.0f rows=%llu time=%.3f ms%s)", p->est_rows,
                 (unsigned long long)st->rows_out, st->ns / 1e6, workers);
    else
        snprintf(line + l, sizeof line - l, "  (est=%.0f)", p->est_rows);
    explain_add(s, line);
    for (int i = 0; i < 2; i++) /* an index join's right side is read by key, not run: not shown */
        if (p->child[i] && v->child[i] != CHILD_NONE) explain_op(s, p->child[i], depth + 1);
}

static const char *explain_names[] = {"plan"};

/* run_ctx is the execution context of a new run of s's plan in transaction t. */
static exec_ctx run_ctx(strata_stmt *s, pager_txn *t) {
    s->budget = (vec_budget){.used = 0, .limit = s->db->query_limit};
    return (exec_ctx){.txn = t, .cat = &s->db->cat, .params = s->params, .nparams = s->nparams, .mem = &s->run,
                      .err = &s->run_err, .sql = s->sql, .sqllen = s->sqllen, .interrupt = &s->db->interrupted,
                      .pipelines = s->pipelines, .run = ++s->runs, .budget = &s->budget, .threads = s->db->threads,
                      .progress = s->db->progress_off ? NULL : s->db->progress, .progress_arg = s->db->progress_arg};
}

/* explain_analyze runs the plan to its end (its changes too, as PostgreSQL's EXPLAIN ANALYZE
** does), counting rows and time per operator for explain_op to print. */
static int explain_analyze(strata_stmt *s) {
    pager_txn *t;
    int rc = statement_txn(s, plan_writes(s->plan), &t);
    if (rc) return rc;
    exec_ctx x = run_ctx(s, t);
    x.analyze = true;
    err_clear(&s->run_err);
    data_chunk out;
    if ((rc = chunk_init(&out, s->plan->types, s->plan->ncols, &s->run_err))) return fail_statement(s, &s->run_err, rc);
    rc = exec_open(&x, s->plan);
    s->pipelines = x.pipelines;
    uint64_t rows = 0;
    while (!rc) {
        chunk_reset(&out);
        if ((rc = exec_next(&x, s->plan, &out)) || !out.count) break;
        rows += out.count;
    }
    exec_close(&x, s->plan);
    chunk_free(&out);
    if (rc) return fail_statement(s, &s->run_err, rc);
    s->analyzed = true;
    s->analyzed_rows = rows;
    return end_own(s, true);
}

static bool any_running(strata_db *db) {
    for (strata_stmt *o = db->stmts; o; o = o->next)
        if (o->running) return true;
    return false;
}

void strata_interrupt(strata_db *db) {
    if (db) __atomic_store_n(&db->interrupted, 1, __ATOMIC_RELAXED); /* lock-free: signal-safe */
}

/* PRAGMA integrity_check lists at most this many problems (as sqlite3's does), unless
** PRAGMA integrity_check(N) asks for another number. */
#define INTEGRITY_MAX_ROWS 100

/* integrity_add gives one of storage_check's lines to the statement arg as a row. */
static void integrity_add(void *arg, const char *line) { explain_add(arg, line); }

/* integrity_lines carries out PRAGMA integrity_check [(N)]: storage_check's lines, at most the
** cap's, in the explicit transaction or a read transaction of its own. */
static int integrity_lines(strata_stmt *s) {
    strata_db *db = s->db;
    strata_err err;
    err_clear(&err);
    uint64_t max = INTEGRITY_MAX_ROWS;
    const sql_expr *v = s->ast->set.value;
    if (v && v->kind == EX_INT && v->integer > 0) max = (uint64_t)v->integer;
    else if (v) return db_errorf(db, STRATA_ERROR, "PRAGMA integrity_check takes a positive number of rows");
    pager_txn *t = db->txn;
    int rc = STRATA_OK;
    if (!t && (rc = pager_begin(db->p, 0, &t, &err))) return db_error(db, &err, rc);
    rc = storage_check(t, &db->cat, max, integrity_add, s, &err);
    if (t != db->txn) pager_rollback(t);
    return rc ? db_error(db, &err, rc) : STRATA_OK;
}

static const char *integrity_names[] = {"integrity_check"};
static const char *memory_limit_names[] = {"memory_limit"};
static const char *threads_names[] = {"threads"};
static const char *progress_bar_names[] = {"progress_bar"};

/* progress_bar carries out PRAGMA progress_bar [= on|off]: whether strata_progress_handler's
** handler is called (the shell draws its progress bar from it). */
static int progress_bar(strata_stmt *s) {
    strata_db *db = s->db;
    const sql_expr *v = s->ast->set.value;
    if (!v) {
        explain_add(s, db->progress_off ? "off" : "on");
        s->ncols_fixed = 1;
        s->names_fixed = progress_bar_names;
        s->running = true;
        return STRATA_OK;
    }
    const char *w = v->kind == EX_COL ? v->col.column : v->kind == EX_STR ? v->text.ptr : NULL;
    if (v->kind == EX_BOOL) db->progress_off = !v->boolean;
    else if (w && (!strcasecmp(w, "on") || !strcasecmp(w, "true"))) db->progress_off = false;
    else if (w && (!strcasecmp(w, "off") || !strcasecmp(w, "false"))) db->progress_off = true;
    else return db_errorf(db, STRATA_ERROR, "PRAGMA progress_bar takes on or off");
    return STRATA_DONE;
}

/* ---- settings ------------------------------------------------------------------------------ */

/* apply_memory_limit sets the memory limit: the caches' shares (storage/memory.h) and the rest,
** each statement run's. */
static void apply_memory_limit(strata_db *db, size_t limit) {
    db->memory_limit = limit;
    db->query_limit = memory_limit_apply(db->p, db->cat.segs, limit);
}

/* set_threads carries out SET threads = n (PRAGMA threads = n): a whole number 1 .. THREADS_MAX. */
static int set_threads(strata_db *db, const sql_expr *v) {
    if (!v || v->kind != EX_INT || v->integer < 1 || v->integer > THREADS_MAX)
        return db_errorf(db, STRATA_ERROR, "threads must be a whole number from 1 to %d", THREADS_MAX);
    db->threads = (unsigned)v->integer;
    return STRATA_OK;
}

/* run_setting carries out SET name = value (and PRAGMA name = value). */
static int run_setting(strata_stmt *s) {
    strata_db *db = s->db;
    const char *name = s->ast->set.name;
    const sql_expr *v = s->ast->set.value;
    if (!strcasecmp(name, "threads")) return set_threads(db, v);
    if (strcasecmp(name, "memory_limit") != 0)
        return db_errorf(db, STRATA_ERROR, "unrecognized configuration parameter \"%s\"", name);
    char num[32];
    const char *text = NULL;
    if (v && v->kind == EX_STR) {
        text = v->text.ptr;
    } else if (v && v->kind == EX_INT && v->integer >= 0) {
        snprintf(num, sizeof num, "%lld", (long long)v->integer);
        text = num;
    } else if (v && v->kind == EX_NUM) {
        text = v->text.ptr;
    }
    size_t limit;
    strata_err err;
    err_clear(&err);
    int rc = memory_limit_parse(text, &limit, &err);
    if (rc) return db_error(db, &err, rc);
    apply_memory_limit(db, limit);
    return STRATA_OK;
}

static int start(strata_stmt *s) {
    strata_db *db = s->db;
    strata_err err;
    err_clear(&err);
    int rc;
    if (!any_running(db)) __atomic_store_n(&db->interrupted, 0, __ATOMIC_RELAXED);
    if (s->bound_version != db->schema_version && (rc = bind_stmt(s, &err))) return db_error(db, &err, rc);
    if (!s->ast) return STRATA_DONE;
    switch (s->ast->kind) {
    case ST_BEGIN:
    case ST_COMMIT:
    case ST_ROLLBACK:
    case ST_CHECKPOINT:
    case ST_VACUUM: return (rc = run_control(s)) ? rc : STRATA_DONE;
    case ST_ANALYZE: return (rc = run_analyze(s)) ? rc : STRATA_DONE;
    case ST_CREATE_TABLE:
    case ST_CREATE_INDEX:
    case ST_CREATE_VIEW:
    case ST_DROP:
    case ST_ALTER_TABLE: return (rc = run_ddl(s)) ? rc : STRATA_DONE;
    case ST_EXPLAIN:
        if (!s->plan) return db_errorf(db, STRATA_ERROR, "EXPLAIN needs a query, INSERT, UPDATE or DELETE");
        if (s->ast->explain.analyze && (rc = explain_analyze(s))) return rc;
        explain_op(s, s->plan, 0);
        s->ncols_fixed = 1;
        s->names_fixed = explain_names;
        s->running = true;
        return STRATA_OK;
    case ST_SELECT:
    case ST_INSERT:
    case ST_UPDATE:
    case ST_DELETE:
    case ST_COPY: break;
    case ST_SET: return (rc = run_setting(s)) ? rc : STRATA_DONE;
    case ST_PRAGMA:
        if (!strcasecmp(s->ast->set.name, "threads")) {
            if (s->ast->set.value) return (rc = run_setting(s)) ? rc : STRATA_DONE;
            char buf[16];
            snprintf(buf, sizeof buf, "%u", db->threads);
            explain_add(s, buf);
            s->ncols_fixed = 1;
            s->names_fixed = threads_names;
            s->running = true;
            return STRATA_OK;
        }
        if (!strcasecmp(s->ast->set.name, "memory_limit")) {
            if (s->ast->set.value) return (rc = run_setting(s)) ? rc : STRATA_DONE;
            char buf[32];
            vec_format_bytes(buf, sizeof buf, db->memory_limit);
            explain_add(s, buf);
            s->ncols_fixed = 1;
            s->names_fixed = memory_limit_names;
            s->running = true;
            return STRATA_OK;
        }
        if (!strcmp(s->ast->set.name, "integrity_check")) {
            if ((rc = integrity_lines(s))) return rc;
            s->ncols_fixed = 1;
            s->names_fixed = integrity_names;
            s->running = true;
            return STRATA_OK;
        }
        if (!strcasecmp(s->ast->set.name, "progress_bar")) return progress_bar(s);
        return db_errorf(db, STRATA_ERROR, "unrecognized PRAGMA \"%s\"", s->ast->set.name);
    default: return db_errorf(db, STRATA_ERROR, "statement not supported yet");
    }
    pager_txn *t;
    if ((rc = statement_txn(s, plan_writes(s->plan), &t))) return rc;
    if (plan_writes(s->plan) && !pager_txn_is_write(t))
        return fail_statement(s, &(strata_err){STRATA_READONLY, "cannot write in a read-only transaction"}, STRATA_READONLY);
    s->x = run_ctx(s, t);
    err_clear(&s->run_err);
    if (!s->out_ready) {
        if ((rc = chunk_init(&s->out, s->plan->types, s->plan->ncols, &s->run_err))) return fail_statement(s, &s->run_err, rc);
        s->out_ready = true;
    }
    chunk_reset(&s->out);
    s->running = true;
    rc = exec_open(&s->x, s->plan);
    s->pipelines = s->x.pipelines;
    if (rc) return fail_statement(s, &s->run_err, rc);
    return STRATA_OK;
}

static int finish_ok(strata_stmt *s) {
    strata_db *db = s->db;
    if (s->plan && (plan_writes(s->plan) || s->plan->kind == PLAN_COPY_TO)) db->changes = s->x.changes;
    db->rejects = s->x.rejects;
    stmt_release_run(s);
    s->running = false;
    s->done = true;
    int rc = end_own(s, true);
    return rc ? rc : STRATA_DONE;
}

/* advance moves to the next result row: STRATA_ROW or STRATA_DONE. */
static int advance(strata_stmt *s) {
    if (s->nlines) {
        if (s->line < s->nlines) {
            s->row = s->line++;
            return STRATA_ROW;
        }
        return finish_ok(s);
    }
    if (s->out.count && s->row + 1 < s->out.count) {
        s->row++;
        return STRATA_ROW;
    }
    int rc = exec_next(&s->x, s->plan, &s->out);
    if (rc) return fail_statement(s, &s->run_err, rc);
    if (!s->out.count) return finish_ok(s);
    if (s->out.sel) chunk_apply_sel(&s->out);
    s->row = 0;
    return STRATA_ROW;
}

/* run_start starts a run of s: STRATA_OK when rows may follow, STRATA_DONE when the statement
** finished at once (DDL, transaction control), or an error (the statement left no trace). */
static int run_start(strata_stmt *s) {
    s->db->rejects = 0;
    int rc = start(s);
    if (rc != STRATA_OK) s->done = true;
    return rc;
}

int strata_step(strata_stmt *s) {
    if (!s) return STRATA_MISUSE;
    strata_db *db = s->db;
    if (s->fetching) return db_errorf(db, STRATA_MISUSE, "strata_step after strata_fetch_chunk on the same run");
    if (s->done) return db_errorf(db, STRATA_MISUSE, "statement has finished: reset it to run it again");
    if (!s->running) {
        int rc = run_start(s);
        if (rc) return rc;
    }
    return advance(s); /* a write has run to its end by now; RETURNING rows are read from here */
}

int strata_reset(strata_stmt *s) {
    if (!s) return STRATA_MISUSE;
    stmt_release_run(s);
    if (s->sp) { /* a write stopped before its end: what it did stays, as its rows were read */
        pager_savepoint_release(s->db->txn);
        s->sp = false;
    }
    if (s->own) {
        pager_rollback(s->own); /* an unfinished statement: a read ends, an unfinished write is undone */
        s->own = NULL;
    }
    s->running = s->done = s->fetching = false;
    s->row = 0;
    return STRATA_OK;
}

int strata_finalize(strata_stmt *s) {
    if (!s) return STRATA_OK;
    strata_reset(s);
    exec_destroy(&s->pipelines);
    free_result(s);
    strata_db *db = s->db;
    if (s->prev) s->prev->next = s->next;
    else db->stmts = s->next;
    if (s->next) s->next->prev = s->prev;
    for (int i = 0; i < s->ntext; i++) free(s->text[i]);
    free(s->text);
    free(s->text_cap);
    arena_free(&s->mem);
    arena_free(&s->run);
    params_free(s);
    free(s->sql);
    free(s);
    return STRATA_OK;
}

/* ---- columns ------------------------------------------------------------------------------ */

int strata_column_count(strata_stmt *s) {
    if (!s) return 0;
    if (s->ast && (s->ast->kind == ST_EXPLAIN ||
                   (s->ast->kind == ST_PRAGMA && (!s->ast->set.value || !strcmp(s->ast->set.name, "integrity_check")))))
        return 1;
    return s->plan ? (int)s->plan->ncols : 0;
}

static bool col_ok(strata_stmt *s, int i) {
    if (!s) return false;
    if (i < 0 || i >= strata_column_count(s)) {
        db_errorf(s->db, STRATA_MISUSE, "column index %d out of range", i);
        return false;
    }
    return true;
}

const char *strata_column_name(strata_stmt *s, int i) {
    if (!col_ok(s, i)) return NULL;
    if (s->ast->kind == ST_EXPLAIN) return "plan";
    if (s->ast->kind == ST_PRAGMA) return s->ast->set.name;
    const char *n = s->plan->names[i];
    return n ? n : "?column?";
}

const char *strata_column_decltype(strata_stmt *s, int i) {
    if (!col_ok(s, i)) return NULL;
    if (s->ast->kind == ST_EXPLAIN || s->ast->kind == ST_PRAGMA) return "character varying";
    if (!s->decltypes) {
        s->decltypes = arena_alloc(&s->mem, s->plan->ncols * sizeof *s->decltypes);
        if (!s->decltypes) return sql_type_name(s->plan->types[i].id);
        memset(s->decltypes, 0, s->plan->ncols * sizeof *s->decltypes);
    }
    if (!s->decltypes[i]) {
        char buf[64];
        sql_type_format(s->plan->types[i], buf, sizeof buf);
        s->decltypes[i] = arena_strdup(&s->mem, buf);
        if (!s->decltypes[i]) return sql_type_name(s->plan->types[i].id);
    }
    return s->decltypes[i];
}

static bool have_row(strata_stmt *s) { return s->running && (s->nlines ? s->row < s->nlines : s->row < s->out.count); }

static bool row_value(strata_stmt *s, int i, sql_value *v) {
    if (!col_ok(s, i)) return false;
    if (!have_row(s)) {
        db_errorf(s->db, STRATA_MISUSE, "no current row: strata_step has not returned STRATA_ROW");
        return false;
    }
    if (s->nlines) {
        *v = value_text(s->lines[s->row], (uint32_t)strlen(s->lines[s->row]));
        return true;
    }
    vec_get_value(&s->out.cols[i], s->row, v);
    return true;
}

int strata_column_type(strata_stmt *s, int i) {
    sql_value v;
    if (!row_value(s, i, &v)) return STRATA_TYPE_NULL;
    return v.is_null ? STRATA_TYPE_NULL : v.type.id;
}

int strata_column_is_null(strata_stmt *s, int i) {
    sql_value v;
    return row_value(s, i, &v) ? v.is_null : 1;
}

int64_t strata_column_int64(strata_stmt *s, int i) {
    sql_value v, c;
    if (!row_value(s, i, &v) || v.is_null) return 0;
    if (v.type.id == TYPE_DATE || v.type.id == TYPE_TIMESTAMP) return v.v.i; /* days, microseconds */
    strata_err err;
    err_clear(&err);
    if (value_cast(&v, sql_type_make(TYPE_BIGINT), true, &s->run, &c, &err)) {
        db_error(s->db, &err, STRATA_ERROR);
        return 0;
    }
    return c.v.i;
}

double strata_column_double(strata_stmt *s, int i) {
    sql_value v, c;
    if (!row_value(s, i, &v) || v.is_null) return 0;
    strata_err err;
    err_clear(&err);
    if (value_cast(&v, sql_type_make(TYPE_DOUBLE), true, &s->run, &c, &err)) {
        db_error(s->db, &err, STRATA_ERROR);
        return 0;
    }
    return c.v.d;
}

/* column_text_len renders column i of the current row into the statement's buffer. */
static const char *column_text_len(strata_stmt *s, int i, size_t *len) {
    sql_value v;
    if (!row_value(s, i, &v) || v.is_null) return NULL;
    int n = strata_column_count(s);
    if (n > s->ntext) { /* (re)bound to more columns than before: grow the buffers */
        char **t = realloc(s->text, (size_t)n * sizeof *t);
        if (t) s->text = t;
        size_t *c = t ? realloc(s->text_cap, (size_t)n * sizeof *c) : NULL;
        if (!t || !c) {
            db_errorf(s->db, STRATA_NOMEM, "out of memory");
            return NULL;
        }
        s->text_cap = c;
        for (int k = s->ntext; k < n; k++) s->text[k] = NULL, s->text_cap[k] = 0;
        s->ntext = n;
    }
    size_t need;
    if (v.type.id == TYPE_VARCHAR) need = v.v.s.len + 1;
    else if (v.type.id == TYPE_BLOB) need = 2 * (size_t)v.v.s.len + 3;
    else need = VALUE_TEXT_MAX;
    if (need > s->text_cap[i]) {
        char *nb = realloc(s->text[i], need);
        if (!nb) {
            db_errorf(s->db, STRATA_NOMEM, "out of memory");
            return NULL;
        }
        s->text[i] = nb;
        s->text_cap[i] = need;
    }
    size_t l;
    if (v.type.id == TYPE_VARCHAR) {
        memcpy(s->text[i], sstr_data(&v.v.s), v.v.s.len);
        s->text[i][v.v.s.len] = 0;
        l = v.v.s.len;
    } else {
        l = value_to_text(&v, s->text[i], s->text_cap[i]);
    }
    if (len) *len = l;
    return s->text[i];
}

const char *strata_column_text(strata_stmt *s, int i) { return column_text_len(s, i, NULL); }

const void *strata_column_blob(strata_stmt *s, int i) {
    sql_value v;
    if (!row_value(s, i, &v) || v.is_null) return NULL;
    if (v.type.id == TYPE_BLOB || v.type.id == TYPE_VARCHAR) return sstr_data(&((sstr *)s->out.cols[i].data)[s->out.cols[i].sel[s->row]]);
    return column_text_len(s, i, NULL);
}

int strata_column_bytes(strata_stmt *s, int i) {
    sql_value v;
    if (!row_value(s, i, &v) || v.is_null) return 0;
    if (v.type.id == TYPE_BLOB || v.type.id == TYPE_VARCHAR) return (int)v.v.s.len;
    size_t len = 0;
    column_text_len(s, i, &len);
    return (int)len;
}

/* ---- chunks ------------------------------------------------------------------------------- */

int strata_fetch_chunk(strata_stmt *s, strata_chunk **out) {
    if (!out) return STRATA_MISUSE;
    *out = NULL;
    if (!s) return STRATA_MISUSE;
    strata_db *db = s->db;
    if (s->done) return STRATA_DONE;
    if (s->running && !s->fetching) return db_errorf(db, STRATA_MISUSE, "strata_fetch_chunk after strata_step on the same run");
    if (!s->running) {
        int rc = run_start(s);
        if (rc) return rc;
        if (s->nlines) {
            finish_ok(s);
            return db_errorf(db, STRATA_MISUSE, "EXPLAIN output is read with strata_step");
        }
    }
    s->fetching = true;
    int rc = exec_next(&s->x, s->plan, &s->out);
    if (rc) return fail_statement(s, &s->run_err, rc);
    if (!s->out.count) return finish_ok(s);
    if (s->out.sel) chunk_apply_sel(&s->out);
    for (uint32_t c = 0; c < s->out.ncols; c++) vec_flatten(&s->out.cols[c], s->out.count);
    s->chunk.c = &s->out;
    *out = &s->chunk;
    return STRATA_ROW;
}

int strata_chunk_count(const strata_chunk *c) { return c ? (int)c->c->count : 0; }

static bool chunk_col_ok(const strata_chunk *c, int i) { return c && i >= 0 && (uint32_t)i < c->c->ncols; }

int strata_chunk_column_type(const strata_chunk *c, int i) { return chunk_col_ok(c, i) ? c->c->cols[i].type.id : STRATA_TYPE_NULL; }
int strata_chunk_scale(const strata_chunk *c, int i) { return chunk_col_ok(c, i) ? c->c->cols[i].type.scale : 0; }
const void *strata_chunk_data(const strata_chunk *c, int i) { return chunk_col_ok(c, i) ? c->c->cols[i].data : NULL; }

int strata_chunk_is_null(const strata_chunk *c, int i, int r) {
    if (!chunk_col_ok(c, i) || r < 0 || (uint32_t)r >= c->c->count) return 1;
    return vec_is_null(&c->c->cols[i], (uint32_t)r);
}

const char *strata_chunk_text(strata_chunk *c, int i, int r, int *len) {
    if (len) *len = 0;
    if (!chunk_col_ok(c, i) || r < 0 || (uint32_t)r >= c->c->count) return NULL;
    sql_value v;
    vec_get_value(&c->c->cols[i], (uint32_t)r, &v);
    if (v.is_null) return NULL;
    if (v.type.id == TYPE_VARCHAR || v.type.id == TYPE_BLOB) {
        const sstr *st = &((const sstr *)c->c->cols[i].data)[c->c->cols[i].sel[r]];
        if (len) *len = (int)st->len;
        return sstr_data(st);
    }
    size_t n = value_to_text(&v, c->text, sizeof c->text);
    if (len) *len = (int)(n < sizeof c->text ? n : sizeof c->text - 1);
    return c->text;
}

/* ---- exec --------------------------------------------------------------------------------- */

int strata_exec(strata_db *db, const char *sql, int (*cb)(void *arg, int ncol, char **values, char **names), void *arg) {
    if (!db || !sql) return db_errorf(db, STRATA_MISUSE, "strata_exec: NULL argument");
    const char *p = sql;
    while (*p) {
        strata_stmt *s;
        const char *tail;
        int rc = strata_prepare(db, p, &s, &tail);
        if (rc) return rc;
        if (!s) break;
        int n = strata_column_count(s);
        char **vals = NULL, **names = NULL;
        if (cb && n) {
            vals = calloc((size_t)n, sizeof *vals);
            names = calloc((size_t)n, sizeof *names);
            if (!vals || !names) {
                free(vals);
                free(names);
                strata_finalize(s);
                return db_errorf(db, STRATA_NOMEM, "out of memory");
            }
        }
        while ((rc = strata_step(s)) == STRATA_ROW) {
            if (!cb) continue;
            for (int i = 0; i < n; i++) {
                vals[i] = (char *)strata_column_text(s, i);
                names[i] = (char *)strata_column_name(s, i);
            }
            if (cb(arg, n, vals, names)) {
                rc = STRATA_INTERRUPT;
                db_errorf(db, rc, "callback requested stop");
                break;
            }
        }
        free(vals);
        free(names);
        strata_finalize(s);
        if (rc != STRATA_DONE) return rc;
        p = tail;
    }
    return STRATA_OK;
}

/* ---- the appender ------------------------------------------------------------------------- */

/* An appender collects rows a value at a time into a chunk, moves full chunks into rows, and
** inserts rows through an INSERT statement of its own whose input is rows (bind_feed): the
** statement checks constraints and keeps indexes as any INSERT, and a row group's worth of rows
** takes the column store's bulk path. */
struct strata_appender {
    strata_db *db;
    strata_appender *next, *prev; /* db->apps */
    strata_stmt *ins;
    cte_store feed;  /* feed.rows = &rows */
    vec_rows rows;   /* whole chunks appended, not yet inserted */
    data_chunk cur;  /* the chunk being filled; row cur.count is the row being appended */
    uint32_t ncols, col; /* columns of the table; the next column of the current row */
    sql_type *types;
    char **names;
    uint64_t row_no; /* rows begun before the current one (ended or dropped): for messages */
    arena mem;       /* casts' text, until the value is stored */
};

#define APPENDER_FLUSH_ROWS ((uint64_t)ROWGROUP_ROWS) /* one row group per insert */

static void appender_free(strata_appender *a) {
    if (a->prev) a->prev->next = a->next;
    else if (a->db->apps == a) a->db->apps = a->next;
    if (a->next) a->next->prev = a->prev;
    strata_finalize(a->ins);
    arena_free(&a->mem);
    vec_rows_free(&a->rows);
    chunk_free(&a->cur);
    for (uint32_t i = 0; a->names && i < a->ncols; i++) free(a->names[i]);
    free(a->names);
    free(a->types);
    free(a);
}

int strata_appender_create(strata_db *db, const char *table, strata_appender **out) {
    if (!out) return db_errorf(db, STRATA_MISUSE, "strata_appender_create: out is NULL");
    *out = NULL;
    if (!db || !table) return db_errorf(db, STRATA_MISUSE, "strata_appender_create: NULL argument");
    table_def *td = catalog_table(&db->cat, table);
    if (!td) { /* the name as SQL folds it unquoted */
        char folded[256];
        size_t n = strlen(table);
        for (size_t i = 0; i < n && i < sizeof folded - 1; i++) folded[i] = (char)tolower((unsigned char)table[i]);
        folded[n < sizeof folded - 1 ? n : sizeof folded - 1] = 0;
        if (n < sizeof folded) td = catalog_table(&db->cat, folded);
    }
    if (!td) return db_errorf(db, STRATA_ERROR, "relation \"%s\" does not exist", table);
    table = td->name;
    strata_appender *a = calloc(1, sizeof *a);
    if (!a) return db_errorf(db, STRATA_NOMEM, "out of memory");
    a->db = db;
    arena_init(&a->mem, 0);
    a->ncols = td->ncols;
    a->types = malloc((td->ncols + 1) * sizeof *a->types);
    a->names = calloc(td->ncols + 1, sizeof *a->names);
    /* INSERT INTO "t" VALUES (?, ?, ...), the name quoted as an identifier */
    size_t len = 2 * strlen(table) + 4 * td->ncols + 64;
    char *sql = malloc(len);
    strata_err err;
    err_clear(&err);
    int rc = !a->types || !a->names || !sql ? STRATA_NOMEM : STRATA_OK;
    for (uint32_t i = 0; rc == STRATA_OK && i < td->ncols; i++) {
        a->types[i] = td->types[i];
        if (!(a->names[i] = strdup(td->cols[i].name))) rc = STRATA_NOMEM;
    }
    if (rc == STRATA_OK) {
        size_t k = (size_t)snprintf(sql, len, "INSERT INTO \"");
        for (const char *c = table; *c; c++) {
            if (*c == '"') sql[k++] = '"';
            sql[k++] = *c;
        }
        k += (size_t)snprintf(sql + k, len - k, "\" VALUES (");
        for (uint32_t i = 0; i < td->ncols; i++) k += (size_t)snprintf(sql + k, len - k, i ? ", ?" : "?");
        snprintf(sql + k, len - k, ")");
        rc = chunk_init(&a->cur, a->types, a->ncols, &err);
        if (rc == STRATA_OK) rc = vec_rows_init(&a->rows, a->types, a->ncols, &err);
        if (rc) db_error(db, &err, rc);
    } else {
        db_errorf(db, rc, "out of memory");
    }
    if (rc == STRATA_OK && (rc = strata_prepare(db, sql, &a->ins, NULL)) == STRATA_OK) {
        a->feed.rows = &a->rows;
        a->ins->feed = &a->feed;
        if ((rc = bind_stmt(a->ins, &err))) db_error(db, &err, rc);
    }
    free(sql);
    if (rc) {
        appender_free(a);
        return rc;
    }
    a->next = db->apps;
    if (db->apps) db->apps->prev = a;
    db->apps = a;
    *out = a;
    return STRATA_OK;
}

/* app_put casts v to the type of the appender's next column and stores it in the current row. */
static int app_put(strata_appender *a, const sql_value *v) {
    if (!a) return STRATA_MISUSE;
    uint32_t c = a->col;
    if (c >= a->ncols) { /* the row is dropped: the next value starts a new one */
        a->col = 0;
        return db_errorf(a->db, STRATA_MISUSE, "appender: row %llu has only %u columns",
                        (unsigned long long)++a->row_no, a->ncols);
    }
    strata_err err;
    err_clear(&err);
    sql_value cast = *v;
    int rc = STRATA_OK;
    if (!v->is_null && !sql_type_equal(v->type, a->types[c]))
        rc = value_cast(v, a->types[c], false, &a->mem, &cast, &err);
    if (rc == STRATA_OK) rc = vec_set_value(&a->cur.cols[c], a->cur.count, &cast, &err);
    arena_reset(&a->mem);
    if (rc) {
        a->col = 0; /* the row is dropped: the next value starts a new one */
        return db_errorf(a->db, rc, "appender: row %llu, column \"%s\" (%s): %s", (unsigned long long)++a->row_no,
                        a->names[c], sql_type_name(a->types[c].id), err.code ? err.msg : strata_errstr(rc));
    }
    a->col++;
    return STRATA_OK;
}

int strata_append_null(strata_appender *a) {
    sql_value v = value_null(sql_type_make(TYPE_NULL));
    return app_put(a, &v);
}
int strata_append_int64(strata_appender *a, int64_t x) {
    sql_value v = value_int(TYPE_BIGINT, x);
    return app_put(a, &v);
}
int strata_append_double(strata_appender *a, double x) {
    sql_value v = value_double(x);
    return app_put(a, &v);
}
static int app_bytes(strata_appender *a, uint8_t type, const void *p, int len) {
    if (!a) return STRATA_MISUSE;
    if (!p) return strata_append_null(a);
    if (len < 0) len = (int)strlen(p);
    sql_value v = {.type = sql_type_make(type)};
    v.v.s = sstr_ref(p, (uint32_t)len);
    return app_put(a, &v);
}
int strata_append_text(strata_appender *a, const char *s, int len) { return app_bytes(a, TYPE_VARCHAR, s, len); }
int strata_append_blob(strata_appender *a, const void *p, int len) {
    if (len < 0) return a ? db_errorf(a->db, STRATA_MISUSE, "strata_append_blob: negative length") : STRATA_MISUSE;
    return app_bytes(a, TYPE_BLOB, p, len);
}

int strata_appender_end_row(strata_appender *a) {
    if (!a) return STRATA_MISUSE;
    if (a->col != a->ncols) {
        uint32_t got = a->col;
        a->col = 0;
        return db_errorf(a->db, STRATA_MISUSE, "appender: row %llu has %u of the %u columns of its table",
                        (unsigned long long)++a->row_no, got, a->ncols);
    }
    a->col = 0;
    a->row_no++;
    if (++a->cur.count < VECTOR_SIZE) return STRATA_OK;
    strata_err err;
    err_clear(&err);
    int rc = vec_rows_append(&a->rows, &a->cur, NULL, a->cur.count, &err);
    chunk_reset(&a->cur);
    if (rc) return db_error(a->db, &err, rc);
    return a->rows.rows >= APPENDER_FLUSH_ROWS ? strata_appender_flush(a) : STRATA_OK;
}

/* append_cell appends row r of one column of strata_append_columns (its type checked). */
static int append_cell(strata_appender *a, const strata_column_data *c, int64_t r) {
    if (c->type == STRATA_TYPE_NULL || (c->nulls && c->nulls[r])) return strata_append_null(a);
    if (c->type == STRATA_TYPE_BIGINT) return strata_append_int64(a, ((const int64_t *)c->values)[r]);
    if (c->type == STRATA_TYPE_DOUBLE) return strata_append_double(a, ((const double *)c->values)[r]);
    return strata_append_text(a, ((const char *const *)c->values)[r], -1);
}

int strata_append_columns(strata_appender *a, const strata_column_data *cols, int ncols, int64_t nrows) {
    if (!a) return STRATA_MISUSE;
    if (!cols || nrows < 0 || ncols != (int)a->ncols || a->col != 0)
        return db_errorf(a->db, STRATA_MISUSE, "strata_append_columns: needs %u columns, nrows >= 0, and no row begun",
                         a->ncols);
    for (int k = 0; k < ncols; k++) {
        int t = cols[k].type;
        if (t != STRATA_TYPE_NULL && t != STRATA_TYPE_BIGINT && t != STRATA_TYPE_DOUBLE && t != STRATA_TYPE_VARCHAR)
            return db_errorf(a->db, STRATA_MISUSE,
                             "strata_append_columns: column %d: type %d is not BIGINT, DOUBLE, VARCHAR or NULL", k + 1, t);
        if (t != STRATA_TYPE_NULL && !cols[k].values)
            return db_errorf(a->db, STRATA_MISUSE, "strata_append_columns: column %d has no values", k + 1);
    }
    for (int64_t r = 0; r < nrows; r++) {
        int rc;
        for (int k = 0; k < ncols; k++)
            if ((rc = append_cell(a, &cols[k], r))) return rc; /* the row was dropped, named in the message */
        if ((rc = strata_appender_end_row(a))) return rc;
    }
    return STRATA_OK;
}

int strata_appender_flush(strata_appender *a) {
    if (!a) return STRATA_MISUSE;
    strata_err err;
    err_clear(&err);
    int rc = STRATA_OK;
    if (a->cur.count) rc = vec_rows_append(&a->rows, &a->cur, NULL, a->cur.count, &err);
    chunk_reset(&a->cur);
    if (rc) return db_error(a->db, &err, rc);
    if (a->rows.rows == 0) return STRATA_OK;
    rc = strata_step(a->ins);
    strata_reset(a->ins);
    /* inserted or not, the rows go: a failed flush inserted none of them (the statement's rollback) */
    vec_rows_free(&a->rows);
    int rc2 = vec_rows_init(&a->rows, a->types, a->ncols, &err);
    if (rc != STRATA_DONE) return rc;
    return rc2 ? db_error(a->db, &err, rc2) : STRATA_OK;
}

int strata_appender_destroy(strata_appender *a) {
    if (!a) return STRATA_OK;
    int rc = strata_appender_flush(a);
    appender_free(a);
    return rc;
}

/* ---- recovery (recover.c does the copy) --------------------------------------------------------- */

int appender_add_rows(strata_appender *a, const data_chunk *ch, const sel_t *sel, uint32_t n) {
    if (!a || a->col || a->cur.count) return STRATA_MISUSE;
    strata_err err;
    err_clear(&err);
    int rc = vec_rows_append(&a->rows, ch, sel, n, &err);
    return rc ? db_error(a->db, &err, rc) : STRATA_OK;
}

int strata_recover(const char *damaged_path, const char *new_path, strata_recover_report **report) {
    if (!report) return STRATA_MISUSE;
    strata_recover_report *r = *report = calloc(1, sizeof *r);
    if (!r) return STRATA_NOMEM;
    if (!damaged_path || !new_path) {
        snprintf(r->message, sizeof r->message, "strata_recover: a path is NULL");
        return STRATA_MISUSE;
    }
    pager_config cfg = {.read_only = 1};
    strata_err err;
    err_clear(&err);
    pager *p;
    int rc = pager_open(vfs_posix(), damaged_path, &cfg, &p, &err);
    if (rc) {
        snprintf(r->message, sizeof r->message, "%s", err.msg); /* it names the file */
        return rc;
    }
    struct segcache *segs = segcache_create(SEGMENT_CACHE_MAX);
    if (!segs) {
        pager_close(p);
        snprintf(r->message, sizeof r->message, "out of memory");
        return STRATA_NOMEM;
    }
    r->wal_damaged = pager_wal_damage(p)[0] != 0;
    rc = recover_copy(p, NULL, segs, new_path, r);
    segcache_destroy(segs);
    pager_close(p);
    return rc;
}

int strata_recover_db(strata_db *db, const char *new_path, strata_recover_report **report) {
    if (!report) return STRATA_MISUSE;
    strata_recover_report *r = *report = calloc(1, sizeof *r);
    if (!r) return STRATA_NOMEM;
    if (!db || !new_path || db->txn || db->apps) {
        snprintf(r->message, sizeof r->message, "strata_recover_db: %s",
                 !db || !new_path ? "NULL argument" : "the handle has an open transaction or appender");
        return STRATA_MISUSE;
    }
    return recover_copy(db->p, &db->cat, db->cat.segs, new_path, r);
}

void strata_recover_free(strata_recover_report *report) {
    if (!report) return;
    for (int i = 0; i < report->ntables; i++) free((char *)report->tables[i].name);
    free(report->tables);
    free(report);
}
