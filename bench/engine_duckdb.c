/*
** engine_duckdb.c -- DuckDB behind the harness's engine interface (engine.h), loaded at run time.
**
** DuckDB is a peer of the benchmark, not a dependency of strata: nothing here includes duckdb.h.
** The few entry points of DuckDB's C API that the engine calls are declared below, with the ABI
** of DuckDB 1.x, and resolved with dlopen/dlsym from $STRATA_DUCKDB_LIB, or DUCKDB_LIB_DEFAULT
** (what `make bench-deps` installs) when that is unset. A missing library or symbol makes the
** engine unavailable, with the reason; it never aborts the harness.
**
** Settings: the defaults of duckdb_open_ext, listed in `settings` below; the second engine,
** duckdb-t1, differs only by `SET threads = 1` after open and after every connect. Prepared
** statements run materialized (duckdb_execute_prepared) and step() walks the result's data
** chunks, reading each column's vector directly (data array + validity mask), not through the
** per-value duckdb_value_* functions. Bulk loads use the appender, inside one explicit
** transaction so that abort can discard every row (the appender alone commits each of its
** flushes in autocommit mode).
**
** Not thread-safe: the library is loaded once, on first use, by the harness's only thread.
*/
#include <dlfcn.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "engine.h"

/* ---------------------------------------------------------------------------------------------
** Our declarations of DuckDB's C API types (ABI of duckdb.h, v1.x). Handles are pointers to
** opaque structures; ddb_result is allocated by the caller, so its layout must be DuckDB's.
*/

typedef uint64_t ddb_idx;
typedef enum { DDB_SUCCESS = 0, DDB_ERROR = 1 } ddb_state;

typedef struct ddb_database_s *ddb_database;
typedef struct ddb_connection_s *ddb_connection;
typedef struct ddb_config_s *ddb_config;
typedef struct ddb_prepared_s *ddb_prepared;
typedef struct ddb_appender_s *ddb_appender;
typedef struct ddb_data_chunk_s *ddb_data_chunk;
typedef struct ddb_vector_s *ddb_vector;
typedef struct ddb_logical_type_s *ddb_logical_type;

typedef struct ddb_result {
    ddb_idx deprecated_column_count;
    ddb_idx deprecated_row_count;
    ddb_idx deprecated_rows_changed;
    void *deprecated_columns;
    char *deprecated_error_message;
    void *internal_data;
} ddb_result;

/* A VARCHAR or BLOB value in a vector: 16 bytes, the bytes inlined when length <= 12. */
typedef struct ddb_string {
    union {
        struct {
            uint32_t length;
            char prefix[4];
            const char *ptr;
        } pointer;
        struct {
            uint32_t length;
            char inlined[12];
        } inlined;
    } value;
} ddb_string;
#define DDB_STRING_INLINE 12

typedef struct ddb_hugeint {
    uint64_t lower;
    int64_t upper; /* the value is upper * 2^64 + lower */
} ddb_hugeint;

typedef struct ddb_uhugeint {
    uint64_t lower;
    uint64_t upper;
} ddb_uhugeint;

_Static_assert(sizeof(ddb_result) == 48, "duckdb_result is 48 bytes");
_Static_assert(sizeof(ddb_string) == 16, "duckdb_string_t is 16 bytes");
_Static_assert(sizeof(ddb_hugeint) == 16, "duckdb_hugeint is 16 bytes");

/* duckdb_type values (a C enum: int in the ABI) of the types the engine reads. */
enum {
    DDB_TYPE_BOOLEAN = 1,
    DDB_TYPE_TINYINT = 2,
    DDB_TYPE_SMALLINT = 3,
    DDB_TYPE_INTEGER = 4,
    DDB_TYPE_BIGINT = 5,
    DDB_TYPE_UTINYINT = 6,
    DDB_TYPE_USMALLINT = 7,
    DDB_TYPE_UINTEGER = 8,
    DDB_TYPE_UBIGINT = 9,
    DDB_TYPE_FLOAT = 10,
    DDB_TYPE_DOUBLE = 11,
    DDB_TYPE_DATE = 13,
    DDB_TYPE_HUGEINT = 16,
    DDB_TYPE_VARCHAR = 17,
    DDB_TYPE_BLOB = 18,
    DDB_TYPE_DECIMAL = 19,
    DDB_TYPE_UHUGEINT = 32,
};

/* duckdb_result_type: only a QUERY_RESULT has rows (INSERT returns a CHANGED_ROWS count). */
enum { DDB_RESULT_QUERY = 3 };

/* The entry points we call: X(return type, name without the duckdb_ prefix, parameters). */
#define DDB_FUNCTIONS(X)                                                                                     \
    X(const char *, library_version, (void))                                                                 \
    X(ddb_state, open_ext, (const char *path, ddb_database *out, ddb_config config, char **out_error))       \
    X(void, close, (ddb_database * database))                                                                \
    X(ddb_state, connect, (ddb_database database, ddb_connection * out))                                     \
    X(void, disconnect, (ddb_connection * connection))                                                       \
    X(void, free, (void *ptr))                                                                               \
    X(ddb_state, query, (ddb_connection connection, const char *sql, ddb_result *out))                       \
    X(void, destroy_result, (ddb_result * result))                                                           \
    X(const char *, result_error, (ddb_result * result))                                                     \
    X(int, result_return_type, (ddb_result result))                                                          \
    X(ddb_idx, column_count, (ddb_result * result))                                                          \
    X(ddb_logical_type, column_logical_type, (ddb_result * result, ddb_idx col))                             \
    X(int, get_type_id, (ddb_logical_type type))                                                             \
    X(uint8_t, decimal_scale, (ddb_logical_type type))                                                       \
    X(int, decimal_internal_type, (ddb_logical_type type))                                                   \
    X(void, destroy_logical_type, (ddb_logical_type * type))                                                 \
    X(ddb_state, prepare, (ddb_connection connection, const char *sql, ddb_prepared *out))                   \
    X(const char *, prepare_error, (ddb_prepared prepared))                                                  \
    X(void, destroy_prepare, (ddb_prepared * prepared))                                                      \
    X(ddb_state, bind_int64, (ddb_prepared prepared, ddb_idx i, int64_t v))                                  \
    X(ddb_state, bind_double, (ddb_prepared prepared, ddb_idx i, double v))                                  \
    X(ddb_state, bind_varchar_length, (ddb_prepared prepared, ddb_idx i, const char *v, ddb_idx len))        \
    X(ddb_state, bind_blob, (ddb_prepared prepared, ddb_idx i, const void *v, ddb_idx len))                  \
    X(ddb_state, execute_prepared, (ddb_prepared prepared, ddb_result * out))                                \
    X(ddb_data_chunk, fetch_chunk, (ddb_result result))                                                      \
    X(void, destroy_data_chunk, (ddb_data_chunk * chunk))                                                    \
    X(ddb_idx, data_chunk_get_size, (ddb_data_chunk chunk))                                                  \
    X(ddb_vector, data_chunk_get_vector, (ddb_data_chunk chunk, ddb_idx col))                                \
    X(void *, vector_get_data, (ddb_vector vector))                                                          \
    X(uint64_t *, vector_get_validity, (ddb_vector vector))                                                  \
    X(ddb_state, appender_create,                                                                            \
      (ddb_connection c, const char *schema, const char *table, ddb_appender *o))                            \
    X(ddb_idx, appender_column_count, (ddb_appender appender))                                               \
    X(const char *, appender_error, (ddb_appender appender))                                                 \
    X(ddb_state, append_int64, (ddb_appender appender, int64_t v))                                           \
    X(ddb_state, append_double, (ddb_appender appender, double v))                                           \
    X(ddb_state, append_varchar_length, (ddb_appender appender, const char *v, ddb_idx len))                 \
    X(ddb_state, append_blob, (ddb_appender appender, const void *v, ddb_idx len))                           \
    X(ddb_state, appender_end_row, (ddb_appender appender))                                                  \
    X(ddb_state, appender_clear, (ddb_appender appender))                                                    \
    X(ddb_state, appender_close, (ddb_appender appender))                                                    \
    X(ddb_state, appender_destroy, (ddb_appender * appender))

#define DDB_POINTER(ret, name, params) ret(*name) params;
static struct { DDB_FUNCTIONS(DDB_POINTER) } ddb;
#undef DDB_POINTER

/* ---------------------------------------------------------------------------------------------
** Loading the library.
*/

static int load_state; /* 0: not tried yet, 1: loaded, -1: unavailable (load_why says why) */
static char load_why[512];

/* Loads DuckDB and resolves every entry point, once. Returns 1 when usable; otherwise 0 and
** load_why names the library or symbol that is missing. The library is never unloaded: DuckDB
** keeps threads and static state that outlive any database. */
static int load_library(void) {
    if (load_state) return load_state > 0;
    const char *path = getenv("STRATA_DUCKDB_LIB");
    if (path == NULL || *path == '\0') path = DUCKDB_LIB_DEFAULT;
    load_state = -1;
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        snprintf(load_why, sizeof load_why, "not installed (run `make bench-deps`): %s", dlerror());
        return 0;
    }
#define DDB_RESOLVE(ret, name, params)                                                                       \
    if ((ddb.name = (ret(*) params)dlsym(lib, "duckdb_" #name)) == NULL) {                                   \
        snprintf(load_why, sizeof load_why, "not installed (run `make bench-deps`): %s has no duckdb_%s",    \
                 path, #name);                                                                               \
        dlclose(lib);                                                                                        \
        return 0;                                                                                            \
    }
    DDB_FUNCTIONS(DDB_RESOLVE)
#undef DDB_RESOLVE
    load_state = 1;
    return 1;
}

/* 1 when DuckDB's library loads and has every entry point we call; otherwise 0 and *why. */
static int duck_available(const char **why) {
    int ok = load_library();
    *why = ok ? NULL : load_why;
    return ok;
}

static const char *duck_version(void) { return load_library() ? ddb.library_version() : "not installed"; }

/* ---------------------------------------------------------------------------------------------
** Database, connection and the message of the last error.
*/

typedef struct duck_db {
    ddb_database database; /* NULL in a connection of connect(): the database is its db's */
    ddb_connection conn;
    char err[1024]; /* the last error, copied: DuckDB frees its own text with its object */
} duck_db;

/* Formats the message of the last error into d->err. Returns -1. */
static int set_err(duck_db *d, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err, sizeof d->err, fmt, ap);
    va_end(ap);
    return -1;
}

/* The text of a failed call, or a fallback when DuckDB gave none. Returns -1. */
static int copy_err(duck_db *d, const char *duck_text, const char *what) {
    return set_err(d, "%s", duck_text && *duck_text ? duck_text : what);
}

/* Opens (or creates) the database file with the defaults of duckdb_open_ext, and one connection.
** *out is set also on error, for errmsg and close. */
static int duck_open(const char *path, void **out) {
    duck_db *d = calloc(1, sizeof *d);
    *out = d;
    if (d == NULL) return -1;
    const char *why;
    if (!duck_available(&why)) return set_err(d, "%s", why);
    char *open_err = NULL;
    if (ddb.open_ext(path, &d->database, NULL, &open_err) != DDB_SUCCESS) {
        copy_err(d, open_err, "duckdb_open_ext failed");
        if (open_err) ddb.free(open_err);
        return -1;
    }
    if (ddb.connect(d->database, &d->conn) != DDB_SUCCESS) return set_err(d, "duckdb_connect failed");
    return 0;
}

/* Closes the connection and the database (DuckDB checkpoints its WAL into the file on close). */
static void duck_close(void *db) {
    duck_db *d = db;
    if (d == NULL) return;
    if (d->conn) ddb.disconnect(&d->conn);
    if (d->database) ddb.close(&d->database);
    free(d);
}

/* A further connection to db's database instance (DuckDB lets one process open a file once). */
static int duck_connect(void *db, const char *path, void **out) {
    (void)path;
    duck_db *parent = db, *d = calloc(1, sizeof *d);
    *out = d;
    if (d == NULL) return -1;
    if (parent == NULL || parent->database == NULL) return set_err(d, "the database is not open");
    if (ddb.connect(parent->database, &d->conn) != DDB_SUCCESS) return set_err(d, "duckdb_connect failed");
    return 0;
}

static void duck_disconnect(void *conn) {
    duck_db *d = conn;
    if (d == NULL) return;
    if (d->conn) ddb.disconnect(&d->conn);
    free(d);
}

/* Runs sql with duckdb_query (the whole result is materialized, then discarded). */
static int duck_exec(void *db, const char *sql) {
    duck_db *d = db;
    if (d->conn == NULL) return set_err(d, "the database is not open");
    ddb_result res;
    memset(&res, 0, sizeof res);
    int rc = 0;
    if (ddb.query(d->conn, sql, &res) != DDB_SUCCESS)
        rc = copy_err(d, ddb.result_error(&res), "duckdb_query failed");
    ddb.destroy_result(&res); /* also after an error: the result holds the message */
    return rc;
}

/* duckdb-t1: the same, with `SET threads = 1` right after the connection is made. The setting is
** the database instance's (DuckDB's worker threads are per instance), so connect() repeats it
** only to be sure that no connection of this engine runs with more. */
static int duck_open_t1(const char *path, void **out) {
    if (duck_open(path, out)) return -1;
    return duck_exec(*out, "SET threads = 1");
}

static int duck_connect_t1(void *db, const char *path, void **out) {
    if (duck_connect(db, path, out)) return -1;
    return duck_exec(*out, "SET threads = 1");
}

static const char *duck_errmsg(void *db) { return db ? ((duck_db *)db)->err : "out of memory"; }

/* ---------------------------------------------------------------------------------------------
** Prepared statements. A statement is READY until its first step, which executes it into a
** materialized result; the rows are then read chunk by chunk. reset() destroys the result and
** makes the statement READY again with its bindings (DuckDB keeps them in the statement).
*/

enum stmt_state { STMT_READY, STMT_ROWS, STMT_DONE, STMT_FAILED };

/* A result column: its type, and where the current chunk keeps its values. */
typedef struct duck_column {
    int type;              /* DDB_TYPE_* of the column */
    int storage;           /* the type of the stored values: for a DECIMAL its integer type */
    int scale;             /* digits after the point of a DECIMAL, else 0 */
    const void *data;      /* the current chunk's values, an array of `storage` */
    const uint64_t *nulls; /* the current chunk's validity mask; NULL when every value is valid */
    char text[48];         /* column_text of a number */
} duck_column;

typedef struct duck_stmt {
    duck_db *db;
    ddb_prepared prepared;
    enum stmt_state state;
    ddb_result result;    /* while STMT_ROWS or STMT_DONE */
    ddb_data_chunk chunk; /* the chunk holding the current row, or NULL */
    ddb_idx chunk_rows;   /* rows in chunk */
    ddb_idx row;          /* the current row in chunk */
    int ncols, cols_cap;
    duck_column *cols;
} duck_stmt;

/* Prepares one statement (duckdb_prepare). *out is NULL on error. */
static int duck_prepare(void *db, const char *sql, void **out) {
    duck_db *d = db;
    *out = NULL;
    if (d->conn == NULL) return set_err(d, "the database is not open");
    duck_stmt *s = calloc(1, sizeof *s);
    if (s == NULL) return set_err(d, "out of memory");
    s->db = d;
    if (ddb.prepare(d->conn, sql, &s->prepared) != DDB_SUCCESS) {
        copy_err(d, ddb.prepare_error(s->prepared), "duckdb_prepare failed");
        ddb.destroy_prepare(&s->prepared); /* also after an error: it holds the message */
        free(s);
        return -1;
    }
    *out = s;
    return 0;
}

/* 0 for a bind that succeeded; otherwise -1 with DuckDB's message (it keeps the message of a
** failed bind in the statement) or ours. */
static int bind_status(duck_stmt *s, ddb_state rc, int i) {
    if (rc == DDB_SUCCESS) return 0;
    const char *text = ddb.prepare_error(s->prepared);
    if (text && *text) return copy_err(s->db, text, "");
    return set_err(s->db, "cannot bind parameter %d (no such parameter, or a value of the wrong type)", i);
}
static int duck_bind_int64(void *stmt, int i, int64_t v) {
    duck_stmt *s = stmt;
    return bind_status(s, ddb.bind_int64(s->prepared, (ddb_idx)i, v), i);
}
static int duck_bind_double(void *stmt, int i, double v) {
    duck_stmt *s = stmt;
    return bind_status(s, ddb.bind_double(s->prepared, (ddb_idx)i, v), i);
}
/* DuckDB copies the text into the statement's parameter value. */
static int duck_bind_text(void *stmt, int i, const char *v, int len) {
    duck_stmt *s = stmt;
    return bind_status(s, ddb.bind_varchar_length(s->prepared, (ddb_idx)i, v, (ddb_idx)len), i);
}

static int duck_bind_blob(void *stmt, int i, const void *v, int len) {
    duck_stmt *s = stmt;
    return bind_status(s, ddb.bind_blob(s->prepared, (ddb_idx)i, v, (ddb_idx)len), i);
}

/* Ends the current result, if any: the statement is READY again. */
static void end_result(duck_stmt *s) {
    if (s->chunk) ddb.destroy_data_chunk(&s->chunk);
    if (s->state == STMT_ROWS || s->state == STMT_DONE) ddb.destroy_result(&s->result);
    s->chunk = NULL;
    s->chunk_rows = s->row = 0;
    s->ncols = 0;
    s->state = STMT_READY;
}

/* Reads the result's column types into s->cols. Returns 0, or -1 when out of memory. */
static int describe_columns(duck_stmt *s) {
    ddb_idx n = ddb.column_count(&s->result);
    if (n > (ddb_idx)s->cols_cap) {
        duck_column *cols = realloc(s->cols, (size_t)n * sizeof *cols);
        if (cols == NULL) return set_err(s->db, "out of memory");
        s->cols = cols;
        s->cols_cap = (int)n;
    }
    for (ddb_idx i = 0; i < n; i++) {
        duck_column *c = &s->cols[i];
        ddb_logical_type t = ddb.column_logical_type(&s->result, i);
        c->type = c->storage = t ? ddb.get_type_id(t) : 0;
        c->scale = 0;
        if (c->type == DDB_TYPE_DECIMAL) {
            c->storage = ddb.decimal_internal_type(t);
            c->scale = ddb.decimal_scale(t);
        }
        if (t) ddb.destroy_logical_type(&t);
        c->data = NULL;
        c->nulls = NULL;
    }
    s->ncols = (int)n;
    return 0;
}

/* Runs the statement into s->result. Returns 1 when it has rows to read, 0 when it returns none
** (INSERT, UPDATE, DDL: DuckDB's row count of a change is not a row here), -1 on error. */
static int execute(duck_stmt *s) {
    memset(&s->result, 0, sizeof s->result);
    if (ddb.execute_prepared(s->prepared, &s->result) != DDB_SUCCESS) {
        copy_err(s->db, ddb.result_error(&s->result), "duckdb_execute_prepared failed");
        ddb.destroy_result(&s->result);
        s->state = STMT_FAILED;
        return -1;
    }
    s->state = STMT_ROWS;
    if (ddb.result_return_type(s->result) != DDB_RESULT_QUERY) {
        s->state = STMT_DONE;
        return 0;
    }
    if (describe_columns(s)) {
        s->state = STMT_DONE;
        return -1;
    }
    return 1;
}

/* Fetches the next non-empty chunk and points the columns at its vectors. Returns 1, 0 at the
** end of the result, -1 on error. */
static int next_chunk(duck_stmt *s) {
    for (;;) {
        if (s->chunk) ddb.destroy_data_chunk(&s->chunk);
        s->chunk = ddb.fetch_chunk(s->result);
        if (s->chunk == NULL) {
            s->chunk_rows = s->row = 0;
            s->state = STMT_DONE;
            const char *text = ddb.result_error(&s->result);
            return text && *text ? copy_err(s->db, text, "") : 0;
        }
        s->chunk_rows = ddb.data_chunk_get_size(s->chunk);
        if (s->chunk_rows == 0) continue;
        for (int i = 0; i < s->ncols; i++) {
            ddb_vector v = ddb.data_chunk_get_vector(s->chunk, (ddb_idx)i);
            s->cols[i].data = ddb.vector_get_data(v);
            s->cols[i].nulls = ddb.vector_get_validity(v);
        }
        s->row = 0;
        return 1;
    }
}

/* READY: executes, then moves to the first row. ROWS: the next row, fetching the next chunk at the
** end of one. DONE: 0, FAILED: -1, until reset. */
static int duck_step(void *stmt) {
    duck_stmt *s = stmt;
    switch (s->state) {
    case STMT_READY: {
        int rc = execute(s);
        if (rc <= 0) return rc;
        return next_chunk(s);
    }
    case STMT_ROWS:
        if (s->chunk && ++s->row < s->chunk_rows) return 1;
        return next_chunk(s);
    case STMT_DONE: return 0;
    case STMT_FAILED: return -1;
    }
    return -1;
}

/* Ends the result; the bindings stay, for the next execution. Never fails. */
static int duck_reset(void *stmt) {
    end_result(stmt);
    return 0;
}

static void duck_finalize(void *stmt) {
    duck_stmt *s = stmt;
    if (s == NULL) return;
    end_result(s);
    ddb.destroy_prepare(&s->prepared);
    free(s->cols);
    free(s);
}

/* ---------------------------------------------------------------------------------------------
** Columns of the current row. Each call reads one value of the current chunk's vector; a column
** out of range, or read before a row, reads as NULL.
*/

static duck_column *current(duck_stmt *s, int i) {
    if (s->state != STMT_ROWS || s->chunk == NULL || i < 0 || i >= s->ncols) return NULL;
    return &s->cols[i];
}

static int is_null(const duck_column *c, ddb_idx r) {
    return c->nulls && !((c->nulls[r >> 6] >> (r & 63)) & 1);
}

static int duck_column_count(void *stmt) { return ((duck_stmt *)stmt)->ncols; }

static int duck_column_is_null(void *stmt, int i) {
    duck_stmt *s = stmt;
    const duck_column *c = current(s, i);
    return c == NULL || is_null(c, s->row);
}

/* 10^k, for k <= 18: the unit of a DECIMAL's scale. */
static int64_t pow10_i64(int k) {
    int64_t p = 1;
    while (k-- > 0)
        p *= 10;
    return p;
}

/* The stored value at row r as an int64 (a DECIMAL's unscaled integer). Returns 1, or 0 when the
** storage is not an integer type or the value does not fit. */
static int stored_int(const duck_column *c, ddb_idx r, int64_t *v) {
    switch (c->storage) {
    case DDB_TYPE_BOOLEAN: *v = ((const uint8_t *)c->data)[r] != 0; return 1;
    case DDB_TYPE_TINYINT: *v = ((const int8_t *)c->data)[r]; return 1;
    case DDB_TYPE_SMALLINT: *v = ((const int16_t *)c->data)[r]; return 1;
    case DDB_TYPE_INTEGER: *v = ((const int32_t *)c->data)[r]; return 1;
    case DDB_TYPE_BIGINT: *v = ((const int64_t *)c->data)[r]; return 1;
    case DDB_TYPE_UTINYINT: *v = ((const uint8_t *)c->data)[r]; return 1;
    case DDB_TYPE_USMALLINT: *v = ((const uint16_t *)c->data)[r]; return 1;
    case DDB_TYPE_UINTEGER: *v = ((const uint32_t *)c->data)[r]; return 1;
    case DDB_TYPE_UBIGINT: {
        uint64_t u = ((const uint64_t *)c->data)[r];
        *v = (int64_t)u;
        return u <= INT64_MAX;
    }
    case DDB_TYPE_HUGEINT: {
        ddb_hugeint h = ((const ddb_hugeint *)c->data)[r];
        *v = (int64_t)h.lower; /* two's complement: the low word is the value when it fits */
        return (h.upper == 0 && h.lower <= INT64_MAX) || (h.upper == -1 && h.lower > INT64_MAX);
    }
    case DDB_TYPE_UHUGEINT: {
        ddb_uhugeint h = ((const ddb_uhugeint *)c->data)[r];
        *v = (int64_t)h.lower;
        return h.upper == 0 && h.lower <= INT64_MAX;
    }
    default: return 0;
    }
}

/* The value at row r as a double: any number, a DECIMAL scaled; 0 for other types. */
static double value_double(const duck_column *c, ddb_idx r) {
    double v;
    int64_t i;
    switch (c->storage) {
    case DDB_TYPE_DOUBLE: return ((const double *)c->data)[r];
    case DDB_TYPE_FLOAT: return ((const float *)c->data)[r];
    case DDB_TYPE_UBIGINT: v = (double)((const uint64_t *)c->data)[r]; break;
    case DDB_TYPE_HUGEINT:
        if (stored_int(c, r, &i)) {
            v = (double)i; /* exact; the sum of the words below would lose small negatives */
        } else {
            ddb_hugeint h = ((const ddb_hugeint *)c->data)[r];
            v = (double)h.upper * 18446744073709551616.0 + (double)h.lower;
        }
        break;
    case DDB_TYPE_UHUGEINT: {
        ddb_uhugeint h = ((const ddb_uhugeint *)c->data)[r];
        v = (double)h.upper * 18446744073709551616.0 + (double)h.lower;
        break;
    }
    default:
        if (!stored_int(c, r, &i)) return 0;
        v = (double)i;
    }
    for (int k = c->scale; k > 0; k -= 18)
        v /= (double)pow10_i64(k < 18 ? k : 18);
    return v;
}

/* Integers as stored; a DECIMAL truncated toward zero; a float truncated and clamped to the
** int64 range (as SQLite converts a REAL); 0 for other types and NULL. */
static int64_t duck_column_int64(void *stmt, int i) {
    duck_stmt *s = stmt;
    const duck_column *c = current(s, i);
    if (c == NULL || is_null(c, s->row)) return 0;
    int64_t v;
    if (stored_int(c, s->row, &v) && c->scale <= 18) return v / pow10_i64(c->scale);
    double d = value_double(c, s->row);
    if (d != d) return 0;
    if (d >= 9223372036854775807.0) return INT64_MAX;
    if (d <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)d;
}

static double duck_column_double(void *stmt, int i) {
    duck_stmt *s = stmt;
    const duck_column *c = current(s, i);
    return c == NULL || is_null(c, s->row) ? 0 : value_double(c, s->row);
}

/* Writes a number's text into c->text. Returns its length. */
static int format_number(duck_column *c, ddb_idx r) {
    int64_t v;
    if (c->storage == DDB_TYPE_DOUBLE || c->storage == DDB_TYPE_FLOAT || !stored_int(c, r, &v))
        return snprintf(c->text, sizeof c->text, "%.17g", value_double(c, r));
    if (c->scale > 18) return snprintf(c->text, sizeof c->text, "%.17g", value_double(c, r));
    if (c->scale == 0) return snprintf(c->text, sizeof c->text, "%" PRId64, v);
    uint64_t magnitude = v < 0 ? 0 - (uint64_t)v : (uint64_t)v, unit = (uint64_t)pow10_i64(c->scale);
    return snprintf(c->text, sizeof c->text, "%s%" PRIu64 ".%0*" PRIu64, v < 0 ? "-" : "", magnitude / unit,
                    c->scale, magnitude % unit);
}

/* VARCHAR and BLOB: the bytes in the chunk, NOT NUL-terminated (use *len). Numbers: their text;
** dates: YYYY-MM-DD. NULL and other types: NULL, *len 0. */
static const char *duck_column_text(void *stmt, int i, int *len) {
    duck_stmt *s = stmt;
    *len = 0;
    duck_column *c = current(s, i);
    if (c == NULL || is_null(c, s->row)) return NULL;
    switch (c->type) {
    case DDB_TYPE_VARCHAR:
    case DDB_TYPE_BLOB: {
        const ddb_string *str = &((const ddb_string *)c->data)[s->row];
        *len = (int)str->value.inlined.length;
        return str->value.inlined.length <= DDB_STRING_INLINE ? str->value.inlined.inlined
                                                              : str->value.pointer.ptr;
    }
    case DDB_TYPE_BOOLEAN:
    case DDB_TYPE_TINYINT:
    case DDB_TYPE_SMALLINT:
    case DDB_TYPE_INTEGER:
    case DDB_TYPE_BIGINT:
    case DDB_TYPE_UTINYINT:
    case DDB_TYPE_USMALLINT:
    case DDB_TYPE_UINTEGER:
    case DDB_TYPE_UBIGINT:
    case DDB_TYPE_HUGEINT:
    case DDB_TYPE_UHUGEINT:
    case DDB_TYPE_FLOAT:
    case DDB_TYPE_DOUBLE:
    case DDB_TYPE_DECIMAL: *len = format_number(c, s->row); return c->text;
    case DDB_TYPE_DATE: /* int32 days since 1970-01-01, as YYYY-MM-DD like strata's and SQLite's */
        date_text(c->text, ((const int32_t *)c->data)[s->row]);
        *len = 10;
        return c->text;
    default: return NULL;
    }
}

/* BLOB and VARCHAR values as bytes (column_text's view of them). */
static const void *duck_column_blob(void *stmt, int i, int *len) {
    duck_stmt *s = stmt;
    duck_column *c = current(s, i);
    if (c == NULL || (c->type != DDB_TYPE_BLOB && c->type != DDB_TYPE_VARCHAR)) {
        *len = 0;
        return NULL;
    }
    return duck_column_text(stmt, i, len);
}

/* ---------------------------------------------------------------------------------------------
** The bulk loader: DuckDB's appender, in an explicit transaction (BEGIN at load_begin, COMMIT at
** load_finish, ROLLBACK at load_abort). Without it the appender would commit each flush on its
** own (it flushes by itself every 204,800 rows, and duckdb_appender_destroy flushes too), and an
** abort could not take back the rows already flushed.
*/

typedef struct duck_loader {
    duck_db *db;
    ddb_appender app;
} duck_loader;

/* 0 for an append that succeeded; otherwise -1 with the appender's message. */
static int append_status(duck_loader *l, ddb_state rc) {
    return rc == DDB_SUCCESS ? 0 : copy_err(l->db, ddb.appender_error(l->app), "the appender failed");
}

/* Drops the appender's buffered rows and the transaction, and frees the loader. */
static void discard(duck_loader *l) {
    if (l->app) {
        ddb.appender_clear(l->app);
        ddb.appender_destroy(&l->app); /* flushes, but nothing is left to flush */
    }
    ddb_result res;
    memset(&res, 0, sizeof res);
    ddb.query(l->db->conn, "ROLLBACK", &res); /* a failure here keeps the first message */
    ddb.destroy_result(&res);
    free(l);
}

/* BEGIN, then an appender on table (schema main), which must have ncols columns. */
static int duck_load_begin(void *db, const char *table, int ncols, void **out) {
    duck_db *d = db;
    *out = NULL;
    if (d->conn == NULL) return set_err(d, "the database is not open");
    duck_loader *l = calloc(1, sizeof *l);
    if (l == NULL) return set_err(d, "out of memory");
    l->db = d;
    if (duck_exec(d, "BEGIN")) {
        free(l);
        return -1;
    }
    if (ddb.appender_create(d->conn, NULL, table, &l->app) != DDB_SUCCESS) {
        copy_err(d, l->app ? ddb.appender_error(l->app) : NULL, "duckdb_appender_create failed");
        goto fail;
    }
    ddb_idx n = ddb.appender_column_count(l->app);
    if (n != (ddb_idx)ncols) {
        set_err(d, "table %s has %" PRIu64 " columns, the loader was given %d", table, n, ncols);
        goto fail;
    }
    *out = l;
    return 0;
fail:
    discard(l);
    return -1;
}

static int duck_load_int64(void *ld, int64_t v) {
    duck_loader *l = ld;
    return append_status(l, ddb.append_int64(l->app, v));
}
static int duck_load_double(void *ld, double v) {
    duck_loader *l = ld;
    return append_status(l, ddb.append_double(l->app, v));
}
static int duck_load_text(void *ld, const char *v, int len) {
    duck_loader *l = ld;
    return append_status(l, ddb.append_varchar_length(l->app, v, (ddb_idx)len));
}
static int duck_load_blob(void *ld, const void *v, int len) {
    duck_loader *l = ld;
    return append_status(l, ddb.append_blob(l->app, v, (ddb_idx)len));
}
static int duck_load_end_row(void *ld) {
    duck_loader *l = ld;
    return append_status(l, ddb.appender_end_row(l->app));
}

/* Flushes the appender and commits; on any error the rows are rolled back. Frees the loader. */
static int duck_load_finish(void *ld) {
    duck_loader *l = ld;
    duck_db *d = l->db;
    if (append_status(l, ddb.appender_close(l->app))) {
        discard(l);
        return -1;
    }
    ddb.appender_destroy(&l->app);
    free(l);
    return duck_exec(d, "COMMIT");
}

static void duck_load_abort(void *ld) { discard(ld); }

/* Everything but the name, title, settings, open and connect: the same for both DuckDB engines. */
#define DUCK_COMMON                                                                                          \
    .crash_safe = 1, .available = duck_available, .version = duck_version, .close = duck_close,              \
    .exec = duck_exec, .prepare = duck_prepare, .bind_int64 = duck_bind_int64,                               \
    .bind_double = duck_bind_double, .bind_text = duck_bind_text, .bind_blob = duck_bind_blob,               \
    .step = duck_step, .column_count = duck_column_count, .column_is_null = duck_column_is_null, .column_int64 = duck_column_int64,             \
    .column_double = duck_column_double, .column_text = duck_column_text, .column_blob = duck_column_blob,   \
    .reset = duck_reset, .finalize = duck_finalize, .errmsg = duck_errmsg, .disconnect = duck_disconnect,    \
    .load_begin = duck_load_begin, .load_int64 = duck_load_int64, .load_double = duck_load_double,           \
    .load_text = duck_load_text, .load_blob = duck_load_blob, .load_end_row = duck_load_end_row,             \
    .load_finish = duck_load_finish, .load_abort = duck_load_abort

#define DUCK_SETTINGS_TAIL                                                                                   \
    "memory_limit 80% of RAM, WAL synced at commit, checkpoint_threshold 16 MiB, checkpoint on close); "     \
    "prepared statements executed materialized (duckdb_execute_prepared), rows read from the result's "      \
    "data chunks; bulk loads: the appender inside one explicit transaction (BEGIN ... COMMIT)"

const engine engine_duckdb = {
    .name = "duckdb",
    .title = "DuckDB",
    .settings = "defaults of duckdb_open_ext (threads: all cores, " DUCK_SETTINGS_TAIL,
    .open = duck_open,
    .connect = duck_connect,
    DUCK_COMMON,
};

const engine engine_duckdb_t1 = {
    .name = "duckdb-t1",
    .title = "DuckDB threads=1",
    .settings = "`SET threads = 1` right after open and on every further connection (no worker threads "
                "besides the calling one); otherwise the defaults of duckdb_open_ext (" DUCK_SETTINGS_TAIL,
    .open = duck_open_t1,
    .connect = duck_connect_t1,
    DUCK_COMMON,
};
