/*
** engine.h -- the SQL interface every engine of the benchmark harness implements.
**
** A thin mirror of the engines' C APIs, enough for the harness's workloads: open and close a
** database file, run a statement without results, prepared statements with int64, double and
** text parameters and int64, double and text columns, and a bulk loader that uses each engine's
** recommended path (a prepared INSERT in one transaction for SQLite, the appender in one
** transaction for strata and DuckDB).
**
** Conventions: calls return 0 on success and -1 on error (the message then comes from errmsg);
** step returns 1 for a row, 0 when the statement is done, -1 on error. No call exits or aborts:
** a failing workload is reported, not fatal. Column values stay valid until the next step,
** reset or finalize of their statement. Indexes: parameters from 1, columns from 0, as in
** sqlite3.h.
**
** Not library code: nothing under the library folders includes this header.
*/
#ifndef BENCH_ENGINE_H
#define BENCH_ENGINE_H

#include <stdint.h>

typedef struct engine {
    const char *name;     /* on the command line and in the JSON: "strata", "sqlite-wal", ... */
    const char *title;    /* in reports: "strata", "SQLite WAL", ... */
    const char *settings; /* every setting the harness makes or relies on, for the report */
    int crash_safe;       /* 1 when a commit that returned survives power loss */
    /* available: 1 when the engine can run; otherwise 0 and *why says why ("not installed: ..."). */
    int (*available)(const char **why);
    const char *(*version)(void);

    int (*open)(const char *path, void **db); /* *db is set also on error, for errmsg and close */
    void (*close)(void *db);
    int (*exec)(void *db, const char *sql); /* one statement, results discarded */
    int (*prepare)(void *db, const char *sql, void **stmt);
    int (*bind_int64)(void *stmt, int i, int64_t v);
    int (*bind_double)(void *stmt, int i, double v);
    int (*bind_text)(void *stmt, int i, const char *v, int len); /* v stays valid until the step */
    int (*bind_blob)(void *stmt, int i, const void *v, int len); /* likewise */
    int (*step)(void *stmt);
    /* column_count: the result's columns; known after the first step (DuckDB executes there). */
    int (*column_count)(void *stmt);
    int (*column_is_null)(void *stmt, int i);
    int64_t (*column_int64)(void *stmt, int i); /* integers of any width; a 128-bit sum that fits */
    double (*column_double)(void *stmt, int i);
    const char *(*column_text)(void *stmt, int i, int *len); /* not NUL-terminated: use len */
    const void *(*column_blob)(void *stmt, int i, int *len);
    int (*reset)(void *stmt); /* ready to bind and step again; bindings are kept */
    void (*finalize)(void *stmt);
    const char *(*errmsg)(void *db);
    /* connect opens another connection to the database that db has open, for another thread:
    ** strata and SQLite open path again, DuckDB connects to db's database instance. *conn is
    ** set also on error (for errmsg); disconnect closes it. Use conn as a db in the calls above,
    ** except close. db must stay open while conn is. */
    int (*connect)(void *db, const char *path, void **conn);
    void (*disconnect)(void *conn);

    /* Bulk loading into an existing table of ncols columns: values of a row in column order,
    ** then end_row; finish makes every row durable and frees the loader, abort discards them. */
    int (*load_begin)(void *db, const char *table, int ncols, void **ld);
    int (*load_int64)(void *ld, int64_t v);
    int (*load_double)(void *ld, double v);
    int (*load_text)(void *ld, const char *v, int len);
    int (*load_blob)(void *ld, const void *v, int len);
    int (*load_end_row)(void *ld);
    int (*load_finish)(void *ld);
    void (*load_abort)(void *ld);
} engine;

/* The engines, in report order: strata, SQLite in its WAL + FULL, TRUNCATE + FULL and
** journal_mode=OFF modes, DuckDB (loaded with dlopen), DuckDB again with `SET threads = 1`
** after open and on every connection ("duckdb-t1": one worker thread), and strata so
** ("strata-t1"). */
extern const engine engine_strata, engine_sqlite_wal, engine_sqlite_truncate, engine_sqlite_off,
    engine_duckdb, engine_duckdb_t1, engine_strata_t1;
/* strata loading by a prepared INSERT per row in one transaction (rows reach the row store first),
** for the tuple mover's workload; not an engine of its own in reports. */
extern const engine engine_strata_rows;

/* DuckDB's shared library: $STRATA_DUCKDB_LIB if set, else the file `make bench-deps` installs. */
#define DUCKDB_LIB_DEFAULT "bench/deps/node_modules/@duckdb/node-bindings-linux-x64/libduckdb.so"

#endif /* BENCH_ENGINE_H */
