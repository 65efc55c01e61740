/*
** engines.c -- strata and SQLite behind the harness's engine interface (engine.h).
**
** strata goes through its public API (include/strata.h) with the defaults of strata_open.
** SQLite (Debian's libsqlite3) runs in three journal modes, each set right after open and
** written into the report: WAL + synchronous=FULL and TRUNCATE + synchronous=FULL, its two
** crash-safe modes, and journal_mode=OFF as a non-atomic reference (a crash in a commit can
** corrupt the database). All get a 64 MiB page cache, strata's default. SQLite bulk-loads with a
** prepared INSERT in one transaction, the path its documentation recommends; strata with its
** appender in one transaction.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>
#include <strata.h>

#include "engine.h"

static int yes(const char **why) {
    *why = NULL;
    return 1;
}

/* ---- the loader both engines share: BEGIN, a prepared INSERT per row, COMMIT ---------------- */

typedef struct row_loader {
    const engine *e;
    void *db, *ins;
    int col;
} row_loader;

static int loader_begin(const engine *e, void *db, const char *table, int ncols, void **out) {
    char sql[1024];
    int n = snprintf(sql, sizeof sql, "INSERT INTO %s VALUES (", table);
    if (n < 0 || n + 3 * ncols + 2 > (int)sizeof sql) return -1; /* no engine message: a harness bug */
    for (int i = 0; i < ncols; i++)
        n += snprintf(sql + n, sizeof sql - (size_t)n, i ? ", ?" : "?");
    snprintf(sql + n, sizeof sql - (size_t)n, ")");
    row_loader *l = calloc(1, sizeof *l);
    if (l == NULL) return -1;
    l->e = e, l->db = db;
    if (e->exec(db, "BEGIN")) {
        free(l);
        return -1;
    }
    if (e->prepare(db, sql, &l->ins)) { /* the message stays: ROLLBACK succeeds */
        e->exec(db, "ROLLBACK");
        free(l);
        return -1;
    }
    *out = l;
    return 0;
}

static int loader_int64(void *ld, int64_t v) {
    row_loader *l = ld;
    return l->e->bind_int64(l->ins, ++l->col, v);
}
static int loader_double(void *ld, double v) {
    row_loader *l = ld;
    return l->e->bind_double(l->ins, ++l->col, v);
}
static int loader_text(void *ld, const char *v, int len) {
    row_loader *l = ld;
    return l->e->bind_text(l->ins, ++l->col, v, len);
}
static int loader_blob(void *ld, const void *v, int len) {
    row_loader *l = ld;
    return l->e->bind_blob(l->ins, ++l->col, v, len);
}
static int loader_end_row(void *ld) {
    row_loader *l = ld;
    l->col = 0;
    return l->e->step(l->ins) == 0 && l->e->reset(l->ins) == 0 ? 0 : -1;
}
static int loader_finish(void *ld) {
    row_loader *l = ld;
    l->e->finalize(l->ins);
    int rc = l->e->exec(l->db, "COMMIT");
    free(l);
    return rc;
}
static void loader_abort(void *ld) {
    row_loader *l = ld;
    l->e->finalize(l->ins);
    l->e->exec(l->db, "ROLLBACK");
    free(l);
}

/* ---- strata ------------------------------------------------------------------------------ */

static int st_status(int rc) { return rc == STRATA_OK ? 0 : -1; }
static const char *st_version(void) { return strata_libversion(); }
static int st_open(const char *path, void **db) { return st_status(strata_open(path, (strata_db **)db)); }
static void st_close(void *db) { strata_close(db); }
static int st_exec(void *db, const char *sql) { return st_status(strata_exec(db, sql, NULL, NULL)); }
static int st_prepare(void *db, const char *sql, void **stmt) {
    int rc = strata_prepare(db, sql, (strata_stmt **)stmt, NULL);
    return rc == STRATA_OK && *stmt ? 0 : -1;
}
static int st_bind_int64(void *s, int i, int64_t v) { return st_status(strata_bind_int64(s, i, v)); }
static int st_bind_double(void *s, int i, double v) { return st_status(strata_bind_double(s, i, v)); }
static int st_bind_text(void *s, int i, const char *v, int len) {
    return st_status(strata_bind_text(s, i, v, len));
}
static int st_bind_blob(void *s, int i, const void *v, int len) {
    return st_status(strata_bind_blob(s, i, v, len));
}
static int st_step(void *s) {
    int rc = strata_step(s);
    return rc == STRATA_ROW ? 1 : rc == STRATA_DONE ? 0 : -1;
}
static int st_column_count(void *s) { return strata_column_count(s); }
static int st_column_is_null(void *s, int i) { return strata_column_type(s, i) == STRATA_TYPE_NULL; }
static int64_t st_column_int64(void *s, int i) { return strata_column_int64(s, i); }
static double st_column_double(void *s, int i) { return strata_column_double(s, i); }
static const char *st_column_text(void *s, int i, int *len) {
    const char *t = strata_column_text(s, i);
    *len = strata_column_bytes(s, i);
    return t;
}
static const void *st_column_blob(void *s, int i, int *len) {
    const void *b = strata_column_blob(s, i);
    *len = strata_column_bytes(s, i);
    return b;
}
static int st_connect(void *db, const char *path, void **conn) {
    (void)db;
    return st_open(path, conn);
}
static int st_reset(void *s) { return st_status(strata_reset(s)); }
static void st_finalize(void *s) { strata_finalize(s); }
static const char *st_errmsg(void *db) { return db ? strata_errmsg(db) : "out of memory"; }
/* strata bulk-loads through its appender (strata_appender_*) in one transaction: whole row
** groups go straight into column segments for tables that migrate. */
typedef struct st_loader {
    strata_db *db;
    strata_appender *app;
} st_loader;

static int st_load_begin(void *db, const char *table, int ncols, void **ld) {
    (void)ncols;
    st_loader *l = calloc(1, sizeof *l);
    if (l == NULL) return -1;
    l->db = db;
    if (strata_exec(db, "BEGIN", NULL, NULL)) {
        free(l);
        return -1;
    }
    if (strata_appender_create(db, table, &l->app)) { /* the message stays: ROLLBACK succeeds */
        strata_exec(db, "ROLLBACK", NULL, NULL);
        free(l);
        return -1;
    }
    *ld = l;
    return 0;
}
static int st_load_int64(void *ld, int64_t v) { return st_status(strata_append_int64(((st_loader *)ld)->app, v)); }
static int st_load_double(void *ld, double v) { return st_status(strata_append_double(((st_loader *)ld)->app, v)); }
static int st_load_text(void *ld, const char *v, int len) {
    return st_status(strata_append_text(((st_loader *)ld)->app, v, len));
}
static int st_load_blob(void *ld, const void *v, int len) {
    return st_status(strata_append_blob(((st_loader *)ld)->app, v, len));
}
static int st_load_end_row(void *ld) { return st_status(strata_appender_end_row(((st_loader *)ld)->app)); }
static int st_load_finish(void *ld) {
    st_loader *l = ld;
    int rc = strata_appender_destroy(l->app);
    if (rc == STRATA_OK) rc = strata_exec(l->db, "COMMIT", NULL, NULL);
    else strata_exec(l->db, "ROLLBACK", NULL, NULL); /* the appender's message stays: see errmsg */
    free(l);
    return st_status(rc);
}
static void st_load_abort(void *ld) {
    st_loader *l = ld;
    strata_appender_destroy(l->app); /* flushes into the transaction that goes */
    strata_exec(l->db, "ROLLBACK", NULL, NULL);
    free(l);
}

/* The calls strata's engines share: all but open, connect and the bulk loader. */
#define STRATA_CALLS                                                                                         \
    .crash_safe = 1, .available = yes, .version = st_version, .close = st_close,                            \
    .exec = st_exec, .prepare = st_prepare, .bind_int64 = st_bind_int64, .bind_double = st_bind_double,     \
    .bind_text = st_bind_text, .bind_blob = st_bind_blob, .step = st_step,                                  \
    .column_count = st_column_count, .column_is_null = st_column_is_null, .column_int64 = st_column_int64,                                   \
    .column_double = st_column_double, .column_text = st_column_text, .column_blob = st_column_blob,        \
    .reset = st_reset, .finalize = st_finalize, .errmsg = st_errmsg, .disconnect = st_close

/* strata's bulk loader: its appender. */
#define STRATA_APPENDER                                                                                      \
    .load_begin = st_load_begin, .load_int64 = st_load_int64, .load_double = st_load_double,                \
    .load_text = st_load_text, .load_blob = st_load_blob, .load_end_row = st_load_end_row,                  \
    .load_finish = st_load_finish, .load_abort = st_load_abort

const engine engine_strata = {
    .name = "strata",
    .title = "strata",
    .settings = "defaults of strata_open (8 KiB pages, 64 MiB page cache, WAL, durable commits); bulk "
                "loads: its appender (strata_appender_*) in one transaction",
    STRATA_CALLS,
    STRATA_APPENDER,
    .open = st_open,
    .connect = st_connect,
};

/* strata-t1: the same, with `SET threads = 1` after open and on every connection (the setting is
** the handle's): one thread, as strata ran before its pipelines ran on several. */
static int st_open_t1(const char *path, void **db) {
    if (st_open(path, db)) return -1;
    return st_exec(*db, "SET threads = 1");
}

static int st_connect_t1(void *db, const char *path, void **conn) {
    (void)db;
    return st_open_t1(path, conn);
}

const engine engine_strata_t1 = {
    .name = "strata-t1",
    .title = "strata threads=1",
    .settings = "`SET threads = 1` right after open and on every further connection (no worker threads "
                "besides the calling one); otherwise the defaults of strata_open; bulk loads: its appender",
    STRATA_CALLS,
    STRATA_APPENDER,
    .open = st_open_t1,
    .connect = st_connect_t1,
};

static int st_rows_load_begin(void *db, const char *table, int ncols, void **ld) {
    return loader_begin(&engine_strata_rows, db, table, ncols, ld);
}

const engine engine_strata_rows = {
    .name = "strata",
    .title = "strata",
    .settings = "defaults of strata_open; bulk loads: a prepared INSERT per row in one transaction",
    STRATA_CALLS,
    .open = st_open,
    .connect = st_connect,
    .load_begin = st_rows_load_begin,
    .load_int64 = loader_int64,
    .load_double = loader_double,
    .load_text = loader_text,
    .load_blob = loader_blob,
    .load_end_row = loader_end_row,
    .load_finish = loader_finish,
    .load_abort = loader_abort,
};

/* ---- SQLite ------------------------------------------------------------------------------ */

static int sq_status(int rc) { return rc == SQLITE_OK ? 0 : -1; }
static const char *sq_version(void) { return sqlite3_libversion(); }

static int sq_open_with(const char *path, void **db, const char *pragmas) {
    int rc = sqlite3_open_v2(path, (sqlite3 **)db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) return -1;
    return sq_status(sqlite3_exec(*db, pragmas, NULL, NULL, NULL));
}
#define SQ_CACHE "PRAGMA cache_size=-65536;"
static int sq_open_wal(const char *path, void **db) {
    return sq_open_with(path, db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;" SQ_CACHE);
}
static int sq_open_truncate(const char *path, void **db) {
    return sq_open_with(path, db, "PRAGMA journal_mode=TRUNCATE; PRAGMA synchronous=FULL;" SQ_CACHE);
}
static int sq_open_off(const char *path, void **db) {
    return sq_open_with(path, db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=FULL;" SQ_CACHE);
}
static void sq_close(void *db) { sqlite3_close_v2(db); }
static int sq_exec(void *db, const char *sql) { return sq_status(sqlite3_exec(db, sql, NULL, NULL, NULL)); }
static int sq_prepare(void *db, const char *sql, void **stmt) {
    return sq_status(sqlite3_prepare_v2(db, sql, -1, (sqlite3_stmt **)stmt, NULL));
}
static int sq_bind_int64(void *s, int i, int64_t v) { return sq_status(sqlite3_bind_int64(s, i, v)); }
static int sq_bind_double(void *s, int i, double v) { return sq_status(sqlite3_bind_double(s, i, v)); }
static int sq_bind_text(void *s, int i, const char *v, int len) {
    return sq_status(sqlite3_bind_text(s, i, v, len, SQLITE_STATIC));
}
static int sq_bind_blob(void *s, int i, const void *v, int len) {
    return sq_status(sqlite3_bind_blob(s, i, v, len, SQLITE_STATIC));
}
static int sq_step(void *s) {
    int rc = sqlite3_step(s);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}
static int sq_column_count(void *s) { return sqlite3_column_count(s); }
static int sq_column_is_null(void *s, int i) { return sqlite3_column_type(s, i) == SQLITE_NULL; }
static int64_t sq_column_int64(void *s, int i) { return sqlite3_column_int64(s, i); }
static double sq_column_double(void *s, int i) { return sqlite3_column_double(s, i); }
static const char *sq_column_text(void *s, int i, int *len) {
    const char *t = (const char *)sqlite3_column_text(s, i);
    *len = sqlite3_column_bytes(s, i);
    return t;
}
static const void *sq_column_blob(void *s, int i, int *len) {
    const void *b = sqlite3_column_blob(s, i);
    *len = sqlite3_column_bytes(s, i);
    return b;
}
static int sq_reset(void *s) { return sq_status(sqlite3_reset(s)); }
static void sq_finalize(void *s) { sqlite3_finalize(s); }
static const char *sq_errmsg(void *db) { return db ? sqlite3_errmsg(db) : "out of memory"; }

#define SQ_COMMON                                                                                            \
    .available = yes, .version = sq_version, .close = sq_close, .exec = sq_exec, .prepare = sq_prepare,      \
    .bind_int64 = sq_bind_int64, .bind_double = sq_bind_double, .bind_text = sq_bind_text,                   \
    .bind_blob = sq_bind_blob, .step = sq_step, .column_count = sq_column_count, .column_is_null = sq_column_is_null,                         \
    .column_int64 = sq_column_int64, .column_double = sq_column_double, .column_text = sq_column_text,       \
    .column_blob = sq_column_blob, .reset = sq_reset, .finalize = sq_finalize, .errmsg = sq_errmsg,          \
    .disconnect = sq_close, .load_int64 = loader_int64, .load_double = loader_double,                        \
    .load_text = loader_text, .load_blob = loader_blob, .load_end_row = loader_end_row,                      \
    .load_finish = loader_finish, .load_abort = loader_abort
#define SQ_SETTINGS_TAIL                                                                                     \
    ", cache_size=-65536 (64 MiB), page size 4,096 (default), locking_mode NORMAL, other settings default; " \
    "text bound SQLITE_STATIC; bulk loads: a prepared INSERT in one transaction"

static int sq_connect_wal(void *db, const char *path, void **conn) {
    (void)db;
    return sq_open_wal(path, conn);
}
static int sq_load_begin_wal(void *db, const char *table, int ncols, void **ld) {
    return loader_begin(&engine_sqlite_wal, db, table, ncols, ld);
}
static int sq_connect_truncate(void *db, const char *path, void **conn) {
    (void)db;
    return sq_open_truncate(path, conn);
}
static int sq_load_begin_truncate(void *db, const char *table, int ncols, void **ld) {
    return loader_begin(&engine_sqlite_truncate, db, table, ncols, ld);
}
static int sq_connect_off(void *db, const char *path, void **conn) {
    (void)db;
    return sq_open_off(path, conn);
}
static int sq_load_begin_off(void *db, const char *table, int ncols, void **ld) {
    return loader_begin(&engine_sqlite_off, db, table, ncols, ld);
}

const engine engine_sqlite_wal = {
    .name = "sqlite-wal",
    .title = "SQLite WAL",
    .settings =
        "journal_mode=WAL, synchronous=FULL, wal_autocheckpoint 1000 pages (default)" SQ_SETTINGS_TAIL,
    .crash_safe = 1,
    .open = sq_open_wal,
    .connect = sq_connect_wal,
    .load_begin = sq_load_begin_wal,
    SQ_COMMON,
};

const engine engine_sqlite_truncate = {
    .name = "sqlite-truncate",
    .title = "SQLite TRUNCATE",
    .settings = "journal_mode=TRUNCATE (rollback journal), synchronous=FULL" SQ_SETTINGS_TAIL,
    .crash_safe = 1,
    .open = sq_open_truncate,
    .connect = sq_connect_truncate,
    .load_begin = sq_load_begin_truncate,
    SQ_COMMON,
};

const engine engine_sqlite_off = {
    .name = "sqlite-off",
    .title = "SQLite OFF",
    .settings = "journal_mode=OFF (no journal: not crash-atomic, a reference only), "
                "synchronous=FULL" SQ_SETTINGS_TAIL,
    .crash_safe = 0,
    .open = sq_open_off,
    .connect = sq_connect_off,
    .load_begin = sq_load_begin_off,
    SQ_COMMON,
};
