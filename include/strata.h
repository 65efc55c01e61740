/*
** strata.h -- the public interface of the strata embedded SQL database.
**
** This header is the user's manual. Every entry point returns an int status code: STRATA_OK (0)
** on success, one of the codes below otherwise. The message that explains an error is kept on
** the object the call was made on and is read with the matching errmsg call.
**
** Quick start:
**
**     strata_db *db;
**     if (strata_open("app.db", &db) != STRATA_OK) { ... strata_errmsg(db) ... strata_close(db); }
**     strata_exec(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT);"
**                     "INSERT INTO t VALUES (1, 'one'), (2, 'two')", NULL, NULL);
**     strata_stmt *s;
**     strata_prepare(db, "SELECT v FROM t WHERE k = ?", &s, NULL);
**     strata_bind_int64(s, 1, 2);
**     while (strata_step(s) == STRATA_ROW) printf("%s\n", strata_column_text(s, 0));
**     strata_finalize(s);
**     strata_close(db);
**
** Errors. The status of the last failing call on a database handle, and its message, are read
** with strata_errcode() and strata_errmsg(); a call that succeeds does not clear them. Messages
** about SQL name the position: "line 1, column 15: column "nme" does not exist (did you mean
** "name"?)", followed by the statement's line and a caret under the position.
**
** Threads. A strata_db handle and its statements are used by one thread at a time (the caller
** serializes); several handles on one file in one process are refused with STRATA_BUSY, as a
** second process is: one handle owns the file.
**
** Transactions. Every statement outside BEGIN ... COMMIT runs in its own transaction and is
** durable when strata_step() returns STRATA_DONE (or strata_exec() returns). Inside BEGIN, a
** statement that fails leaves no trace and the transaction goes on (statement-level atomicity,
** as in SQLite; PostgreSQL would abort the whole transaction). The one exception is a statement
** that changed more than the page cache holds before failing: then the transaction is aborted,
** later statements fail with "current transaction is aborted" until ROLLBACK (or COMMIT, which
** then rolls back).
**
** Memory. SET memory_limit = '2GB' (or TO, or PRAGMA memory_limit = ...; units B, KB, MB, GB, TB
** in powers of 1000, KiB, MiB, GiB, TiB in powers of 1024; at least 1 MiB) bounds what a handle
** holds: its page cache takes at most half of the limit and at most 64 MiB, and each running
** statement's hash tables, sorts and held rows may take the rest. A statement that would need
** more fails with STRATA_NOMEM, a message naming memory_limit, and no trace. The default is 80 %
** of the machine's memory (DuckDB's default). PRAGMA memory_limit returns the current value;
** the setting lasts until the handle is closed.
*/
#ifndef STRATA_H
#define STRATA_H

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version; strata_libversion() returns the version the library was built as. */
#define STRATA_VERSION "0.1.0"
const char *strata_libversion(void);

/* Status codes. */
#define STRATA_OK 0         /* success */
#define STRATA_ERROR 1      /* a generic error: SQL error, missing object, bad argument value */
#define STRATA_BUSY 2       /* the database is locked by another process or writer */
#define STRATA_CORRUPT 3    /* the file is damaged: a checksum mismatch or a broken structure */
#define STRATA_IOERR 4      /* the operating system reported an I/O error */
#define STRATA_NOMEM 5      /* a memory allocation failed or a memory limit was reached */
#define STRATA_FULL 6       /* the disk is full (ENOSPC) or the file reached its size limit */
#define STRATA_CONSTRAINT 7 /* a constraint was violated (unique key, not null, ...) */
#define STRATA_MISUSE 8     /* the API was used incorrectly (finalized object, wrong index) */
#define STRATA_INTERRUPT 9  /* the operation was interrupted */
#define STRATA_NOTADB 10    /* the file is not a strata database */
#define STRATA_TOOBIG 11    /* a key or value exceeds the documented size limit */
#define STRATA_NOTFOUND 12  /* a looked-up key or object does not exist */
#define STRATA_READONLY 13  /* a write was attempted through a read-only handle or transaction */
#define STRATA_FORMAT 14    /* the file uses a format version this build cannot read */
#define STRATA_ROW 100      /* strata_step(): a row is ready */
#define STRATA_DONE 101     /* strata_step(): the statement has finished */

/* strata_errstr returns a static English description of a status code ("disk is full"). */
const char *strata_errstr(int code);

#include <stdint.h>

typedef struct strata_db strata_db;       /* an open database */
typedef struct strata_stmt strata_stmt;   /* a prepared statement */
typedef struct strata_chunk strata_chunk; /* up to 2048 result rows, column by column */

/* Value types as the column_type calls and chunks report them. A NULL value is STRATA_TYPE_NULL
** from strata_column_type() (the column's declared type from strata_column_decltype()). */
#define STRATA_TYPE_NULL 0
#define STRATA_TYPE_BOOLEAN 1   /* read as int64 0/1 */
#define STRATA_TYPE_SMALLINT 2
#define STRATA_TYPE_INTEGER 3
#define STRATA_TYPE_BIGINT 4
#define STRATA_TYPE_DOUBLE 5
#define STRATA_TYPE_DECIMAL 6   /* read as text for the exact value, as double otherwise */
#define STRATA_TYPE_VARCHAR 7
#define STRATA_TYPE_BLOB 8
#define STRATA_TYPE_DATE 9      /* int64: days since 1970-01-01; text YYYY-MM-DD */
#define STRATA_TYPE_TIMESTAMP 10/* int64: microseconds since 1970-01-01 00:00:00 */
#define STRATA_TYPE_INTERVAL 11 /* text only: "1 year 2 mons 3 days 04:05:06" */

/* ---- opening and closing ---------------------------------------------------------------- */

/* strata_open opens the database at path, creating it when it does not exist; ":memory:" opens
** a private in-memory database. *out is always set, also on error (except STRATA_NOMEM before
** anything was allocated, when it is NULL), so that strata_errmsg(*out) can say why; close it
** with strata_close in every case. Errors: STRATA_NOTADB (not a strata file), STRATA_FORMAT (a
** newer format), STRATA_BUSY (another handle or process has it open), STRATA_CORRUPT (the
** header, the WAL or the catalog is damaged; the message points to strata_recover below; damage
** elsewhere in the file does not stop the open, see "damaged files" below), STRATA_IOERR. A database that has no write-ahead log (it was closed cleanly) where none can be
** created -- a full disk, a directory without write permission -- opens for reading only: queries
** work, and a statement that writes fails with STRATA_READONLY saying why. */
int strata_open(const char *path, strata_db **out);
/* strata_close destroys every appender still open on db (inserting its rows, as
** strata_appender_destroy does), finalizes every statement still open, rolls back an open
** transaction, checkpoints, removes the write-ahead log and closes the file. NULL is a no-op.
** Files: while a database at PATH is open, its commits go to the write-ahead log PATH-wal beside
** it; a clean close folds the log into PATH and removes it, so a closed database is one file.
** The log stays after a crash, and after a close whose checkpoint failed (a full disk): it then
** holds commits that PATH does not, and the next open applies them. Copy or move the two files
** together; never delete PATH-wal alone.
** strata_close returns STRATA_OK also when that checkpoint fails: every commit that returned OK
** is durable in PATH-wal, so nothing is lost and nothing is reported as failed. To learn whether
** the log could be folded in (to warn, as the shell does), call strata_checkpoint first. */
int strata_close(strata_db *db);
/* strata_checkpoint folds the write-ahead log into the database file now (the work the close
** does; the SQL statement CHECKPOINT also migrates full row groups into column segments). On
** error -- STRATA_FULL when the disk is full, STRATA_IOERR -- no commit is lost: the log keeps
** them, the handle stays usable, and strata_errmsg says that PATH-wal could not be folded into
** PATH and stays beside it. STRATA_MISUSE inside BEGIN ... COMMIT. */
int strata_checkpoint(strata_db *db);

/* ---- running SQL ------------------------------------------------------------------------ */

/* strata_exec runs every statement of sql in turn, stopping at the first error. For each
** result row of each statement, cb (may be NULL) gets the values as NUL-terminated text (NULL
** for SQL NULL) and the column names; a non-zero return from cb stops with STRATA_INTERRUPT. */
int strata_exec(strata_db *db, const char *sql,
                int (*cb)(void *arg, int ncol, char **values, char **names), void *arg);

/* strata_prepare compiles the first statement of sql. *tail (may be NULL) is set to the text
** after it, so that a script can be prepared statement by statement. When sql holds only white
** space and comments, *out is NULL and the status STRATA_OK. Parameters are ? or $1, $2, ... */
int strata_prepare(strata_db *db, const char *sql, strata_stmt **out, const char **tail);
/* Binding values to parameter i (1-based) before the first step or after a reset. Text and blobs
** are copied; len -1 for text means NUL-terminated. A parameter never bound is NULL. Errors:
** STRATA_MISUSE for an index out of range or a statement that is running (step it to the end or
** reset it first). A parameter takes the type its use asks for (as PostgreSQL infers it); an
** int64 bound where a DATE is expected is an error at step time, a text is parsed. */
int strata_bind_null(strata_stmt *s, int i);
int strata_bind_int64(strata_stmt *s, int i, int64_t v);
int strata_bind_double(strata_stmt *s, int i, double v);
int strata_bind_text(strata_stmt *s, int i, const char *v, int len);
int strata_bind_blob(strata_stmt *s, int i, const void *v, int len);
/* strata_bind_parameter_count is the number of parameters (the highest index used). */
int strata_bind_parameter_count(strata_stmt *s);
/* strata_clear_bindings sets every parameter back to NULL. */
int strata_clear_bindings(strata_stmt *s);

/* strata_step runs the statement to its next row: STRATA_ROW when a row is ready, STRATA_DONE
** when the statement has finished (for INSERT/UPDATE/DELETE without RETURNING, at once), or an
** error, after which the statement must be reset or finalized. */
int strata_step(strata_stmt *s);
/* strata_reset stops the statement (an unfinished autocommit read ends) so that it can run
** again, with the same bindings. */
int strata_reset(strata_stmt *s);
/* strata_finalize frees the statement. NULL is a no-op. Returns STRATA_OK. */
int strata_finalize(strata_stmt *s);

/* ---- reading a row ---------------------------------------------------------------------- */

/* The result's shape is known after prepare. Column indexes are 0-based; an index out of range
** returns the zero value (0, NULL pointer) and records STRATA_MISUSE on the handle. The values
** are those of the current row (after strata_step returned STRATA_ROW). */
int strata_column_count(strata_stmt *s);
const char *strata_column_name(strata_stmt *s, int i);
/* strata_column_decltype: the column's SQL type as PostgreSQL names it ("integer",
** "numeric(10,2)", "character varying"). */
const char *strata_column_decltype(strata_stmt *s, int i);
/* strata_column_type: STRATA_TYPE_... of this row's value; STRATA_TYPE_NULL for NULL. */
int strata_column_type(strata_stmt *s, int i);
int strata_column_is_null(strata_stmt *s, int i);
/* strata_column_int64 and _double convert as SQL CAST does (DOUBLE 2.5 -> 2 by rounding half to
** even, text '12' -> 12); a value that does not convert gives 0 and records STRATA_ERROR on the
** handle. NULL gives 0. */
int64_t strata_column_int64(strata_stmt *s, int i);
double strata_column_double(strata_stmt *s, int i);
/* strata_column_text renders any value as text as PostgreSQL prints it (true/false, 1.50 for
** numeric(3,2), DATE as YYYY-MM-DD, blobs as \x...). NULL gives a NULL pointer. The text is
** NUL-terminated UTF-8, valid until the next step, reset or finalize. */
const char *strata_column_text(strata_stmt *s, int i);
/* strata_column_blob gives the bytes of a BLOB or VARCHAR value (others as their text); valid as
** column_text; strata_column_bytes their length. */
const void *strata_column_blob(strata_stmt *s, int i);
int strata_column_bytes(strata_stmt *s, int i);

/* strata_interrupt makes every statement running on db stop at its next chunk of work with
** STRATA_INTERRUPT (the statement's changes are rolled back, as for any error). It may be called
** from another thread or a signal handler. */
void strata_interrupt(strata_db *db);

/* strata_changes: rows inserted, updated or deleted by the last INSERT/UPDATE/DELETE, rows loaded
** by the last COPY ... FROM or written by the last COPY ... TO. */
int64_t strata_changes(strata_db *db);

/* strata_rejects: records the last statement run on db sent to a REJECTS file instead of loading
** them (COPY t FROM 'f' (REJECTS 'bad.csv')); 0 after any other statement. Those are the records
** that do not parse or fit their columns and those that break NOT NULL, a CHECK, the primary key
** or a unique index (a duplicate of an existing row or of an earlier line: the first line of a key
** loads); the file has one CSV record per reject: line,column,column_name,reason,record. Without
** REJECTS, any such record fails the whole COPY with an error naming the file and its CSV line,
** and nothing of it is loaded; a foreign key violation does so also with REJECTS. */
int64_t strata_rejects(strata_db *db);

/* A progress handler is called about every 100 ms while a statement runs, from the thread that
** steps it: done of total units so far ("bytes" of the file a COPY reads; "rows" read by the
** table scans, total 0 as it is not known beforehand). Returning non-zero stops the statement as
** strata_interrupt does. strata_progress_handler installs fn (NULL removes it); `PRAGMA
** progress_bar = off` stops the calls until `PRAGMA progress_bar = on`. */
typedef int (*strata_progress_fn)(void *arg, uint64_t done, uint64_t total, const char *unit);
void strata_progress_handler(strata_db *db, strata_progress_fn fn, void *arg);

/* ---- chunk-at-a-time results ------------------------------------------------------------ */

/* strata_fetch_chunk returns the next up to 2048 rows of s as typed columns, in place of
** stepping: STRATA_ROW with *out set, STRATA_DONE with *out NULL when there are no more rows, or
** an error. The chunk is owned by the statement and valid until the next fetch, step, reset or
** finalize. Do not mix with strata_step on one run of a statement (STRATA_MISUSE). */
int strata_fetch_chunk(strata_stmt *s, strata_chunk **out);
/* The chunk's row count and its columns. Column data by type (rows 0 .. count-1):
**   BOOLEAN uint8_t; SMALLINT int16_t; INTEGER int32_t; BIGINT int64_t; DOUBLE double;
**   DECIMAL int64_t scaled by 10^strata_chunk_scale(); DATE int32_t days; TIMESTAMP int64_t
**   microseconds; VARCHAR and BLOB: use strata_chunk_text(); INTERVAL: strata_chunk_text().
** strata_chunk_is_null says whether row r of column i is NULL (the data slot is then undefined). */
int strata_chunk_count(const strata_chunk *c);
int strata_chunk_column_type(const strata_chunk *c, int i);
int strata_chunk_scale(const strata_chunk *c, int i);
const void *strata_chunk_data(const strata_chunk *c, int i);
int strata_chunk_is_null(const strata_chunk *c, int i, int r);
/* strata_chunk_text: the bytes of a VARCHAR/BLOB value (not NUL-terminated) and their length;
** other types render as text into a buffer owned by the chunk (valid until the next call). */
const char *strata_chunk_text(strata_chunk *c, int i, int r, int *len);

/* ---- loading rows without SQL: the appender -------------------------------------------- */

/* An appender adds rows to one table a value at a time, as fast as a bulk INSERT: rows collect in
** memory and go in as one INSERT per 122,880 rows (a row group of the column store, written
** straight into compressed segments for tables that migrate) and at flush or destroy. Each such
** insert is a statement of its own: inside BEGIN it is part of the transaction, otherwise it
** commits by itself. Constraints and indexes apply as for INSERT; a constraint error fails that
** insert (none of its rows go in) and is returned by the call that made it
** (strata_appender_end_row, _flush or _destroy), with the message on strata_errmsg(db).
**
** A row is appended column by column, in the table's column order, every column, then ended:
**     strata_appender *a;
**     strata_appender_create(db, "t", &a);
**     strata_append_int64(a, 1); strata_append_text(a, "x", -1); strata_appender_end_row(a);
**     strata_appender_destroy(a); // inserts what is left
** A value is converted to its column's type as INSERT converts it (an int64 into DECIMAL, a
** text '2024-01-31' into DATE); one that does not convert is STRATA_ERROR naming the row and the
** column, and drops the row being appended (the next value starts a new row). Appending more
** values than columns, or ending a row with fewer, is STRATA_MISUSE (the row is dropped). Messages
** number rows from 1 in the order they were begun, dropped ones included. The table is found by
** its name as given, or as SQL folds it unquoted (lower case); a table altered, or dropped and
** made again, since the appender was created fails the next insert with STRATA_ERROR.
** Each flush is an INSERT: flushing often makes many small inserts (and, on a table that
** migrates, row groups smaller than a full one); let the appender insert by the row group. */
typedef struct strata_appender strata_appender;
/* strata_appender_create: STRATA_ERROR when the table does not exist. */
int strata_appender_create(strata_db *db, const char *table, strata_appender **out);
int strata_append_null(strata_appender *a);
int strata_append_int64(strata_appender *a, int64_t v);
int strata_append_double(strata_appender *a, double v);
/* text and blob bytes are copied; len -1 for text means NUL-terminated; a NULL pointer appends NULL */
int strata_append_text(strata_appender *a, const char *v, int len);
int strata_append_blob(strata_appender *a, const void *v, int len);
int strata_appender_end_row(strata_appender *a);

/* Column-at-a-time: strata_append_columns appends nrows whole rows given as one array per table
** column (ncols must be the table's column count), each converted as the single-value calls
** convert it. A column's values are type STRATA_TYPE_BIGINT (int64_t[]), STRATA_TYPE_DOUBLE
** (double[]), STRATA_TYPE_VARCHAR (const char *[], NUL-terminated; a NULL pointer is NULL) or
** STRATA_TYPE_NULL (values unused: every row NULL); nulls (may be NULL) marks row r NULL where
** nulls[r] != 0. It stops at the first value that does not convert: the rows before it are
** appended, that row is dropped, and the error names its row and column, as strata_append_*
** does. It must be called between rows (not after some values of a row). */
typedef struct strata_column_data {
    int type;
    const void *values;
    const uint8_t *nulls;
} strata_column_data;
int strata_append_columns(strata_appender *a, const strata_column_data *cols, int ncols, int64_t nrows);

/* strata_appender_flush inserts the rows ended so far. The rows of a flush that fails are
** dropped (none of them was inserted). */
int strata_appender_flush(strata_appender *a);
/* strata_appender_destroy flushes, then frees the appender (also when the flush fails: its
** status is returned). A row not ended is dropped. NULL is a no-op. */
int strata_appender_destroy(strata_appender *a);

/* ---- damaged files: integrity check and recovery ---------------------------------------- */

/* A damaged file (a disk error, a truncated copy, flipped bytes) opens as long as its catalog
** reads; a query that reaches a damaged page fails with STRATA_CORRUPT naming the page, and the
** others work. `PRAGMA integrity_check` lists every problem it finds, one row each (at most 100
** rows; `ok` when there is none): pages that do not read or parse, broken B+tree structure,
** column segments whose checksum does not match, pages owned twice or by nothing. When the
** catalog itself is damaged, strata_open fails with STRATA_CORRUPT and a message that points to
** recovery. Recovery copies what is readable into a new database:
**
**     strata_recover_report *r;
**     int rc = strata_recover("broken.db", "new.db", &r);
**     for (int i = 0; r && i < r->ntables; i++) printf("%s: %lld rows\n", r->tables[i].name,
**                                                       (long long)r->tables[i].rows);
**     if (rc) fprintf(stderr, "%s\n", r ? r->message : strata_errstr(rc));
**     strata_recover_free(r);
**
** The damaged file is opened read-only and is never changed: no WAL or other file is created
** beside it (a WAL that is there is read; a damaged one does not stop recovery, see
** wal_damaged). The new database gets the schema (tables with their
** constraints, indexes, views) and every row that reads: the rows of every readable leaf of each
** table's B+tree and of every readable row group of its column segments. Rows under an interior
** page that is lost are found by scanning the file for leaves that no tree reaches ("orphan"
** leaves), when the page format identifies their table: a leaf of rowid keys whose records all
** decode as rows of the one table that lost row-tree pages (of several, the one whose column
** count the records store); row groups under a lost page of a column tree likewise, through a
** temporary database beside the new one (NEW-recover-tmp, removed at the end). No row is
** copied twice. When the
** catalog is damaged, the definitions that still read are recovered and the report says so. */

/* The report of one table. */
typedef struct strata_recover_table {
    const char *name;
    int64_t rows;           /* rows copied into the new database */
    int64_t orphan_rows;    /* of those, rows found in orphan leaves */
    int64_t rows_rejected;  /* rows read but not copied: a record that does not decode, or a row
                            ** the new database refuses (a constraint, such as a foreign key
                            ** whose parent row was lost) */
    int64_t pages_lost;     /* pages of the table's trees (row tree, column tree) that did not read */
    int64_t rowgroups_lost; /* row groups (column store) whose segments did not read */
    int schema_failed;      /* the table could not be created in the new database (no rows) */
} strata_recover_table;

typedef struct strata_recover_report {
    int ntables;
    strata_recover_table *tables; /* in catalog order */
    int64_t catalog_pages_lost;   /* pages of the catalog that did not read: tables may be missing */
    int64_t definitions_lost;     /* catalog entries that read but did not load, and indexes and
                                  ** views that could not be created in the new database */
    int64_t orphan_leaves;        /* leaves no tree reaches; orphan_rows above counts the rows taken */
    int wal_damaged;              /* the WAL beside the file was damaged: the commits from the
                                  ** damage on (all of the WAL's, for a damaged header) are left
                                  ** out, and the copy is the state of the last commit before it */
    char message[512];            /* on error, why; else empty */
} strata_recover_report;

/* strata_recover copies the database at damaged_path into a new database at new_path, which
** must not exist. Returns STRATA_OK when the copy was made, however much was lost (the report
** says what); an error when nothing could be copied: STRATA_NOTADB or STRATA_FORMAT for a file
** that is not a strata database this build reads, STRATA_CORRUPT when even the file's header is
** damaged or no table definition survives in the catalog (no file is made then), STRATA_BUSY
** when another handle has the file open (close it, or use strata_recover_db), STRATA_ERROR when
** new_path exists, STRATA_IOERR, STRATA_NOMEM. *report is
** set in every case but STRATA_NOMEM before anything was allocated (NULL then); free it with
** strata_recover_free. */
int strata_recover(const char *damaged_path, const char *new_path, strata_recover_report **report);
/* strata_recover_db is strata_recover of the database db has open (as its committed state; db
** must have no open transaction), for a file that opened but is damaged. */
int strata_recover_db(strata_db *db, const char *new_path, strata_recover_report **report);
/* strata_recover_free frees a report. NULL is a no-op. */
void strata_recover_free(strata_recover_report *report);

/* ---- errors ----------------------------------------------------------------------------- */

/* strata_errcode: the status of the last failed call on db (STRATA_OK if none); strata_errmsg
** its message ("not an error" if none). Statement calls record on their statement's handle. */
int strata_errcode(strata_db *db);
const char *strata_errmsg(strata_db *db);

#ifdef __cplusplus
}
#endif
#endif /* STRATA_H */
