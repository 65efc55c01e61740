/*
** engine_check.c -- checks engines of the benchmark harness against the contract of engine.h.
**
**   engine_check DIR ENGINE...      e.g. engine_check /tmp/ec strata sqlite-wal duckdb
**
** For each engine named, on a fresh database in DIR/<engine>/: a table x(k, v, d) loaded with
** 3000 rows through the loader, a load of 210,000 rows that is aborted, count(*), sum(k) and a
** negative sum (DuckDB: 128-bit), prepared lookups returning text and double, a key that is
** missing, texts of 5, 12 and 39 bytes both ways (DuckDB inlines strings of up to 12 bytes),
** bound text, NULLs, syntax errors, reset with and without new bindings, a prepared INSERT, a scan
** of every row, BLOBs with zero bytes (loaded, bound, read), a second connection (it sees the
** committed rows, or is refused with a message), and a close and reopen that keeps the rows.
**
** Prints one line per engine: "<name>: ok", "<name>: <why it is unavailable>" (skipped, not a
** failure), or "<name>: FAILED: <check> ..." for the first check that failed. Exits 0 when every
** available engine passed, 1 when one failed, 2 on a usage error.
*/
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"

#define ROWS 3000
#define MISSING_KEY 999999
/* An aborted load is larger than the 204,800 rows after which DuckDB's appender flushes by
** itself, so that the check sees whether abort takes back rows already flushed. */
#define ABORTED_ROWS 210000
#define SUM_K ((int64_t)ROWS * (ROWS - 1) / 2)
#define INSERTED_TEXT "inserted by a prepared statement"

static const engine *const engines[] = {&engine_strata, &engine_sqlite_wal, &engine_sqlite_truncate,
                                        &engine_sqlite_off, &engine_duckdb};

/* The value of v for key k, in buf (at least 48 bytes): the decimal k, then letters up to
** 5 + 7k % 36 bytes (5..40: k = 0 gives 5 bytes, k = 1 exactly 12, k = 1234 39), then a '#' that
** is not part of it, so that an engine reading past the length is caught. Returns the length. */
static int value_for(int64_t k, char *buf) {
    int len = 5 + (int)(k * 7 % 36);
    int n = snprintf(buf, 48, "%" PRId64, k);
    for (int i = n; i < len; i++)
        buf[i] = (char)('a' + (k + i) % 26);
    buf[len] = '#';
    return len;
}

static double d_for(int64_t k) { return (double)k * 0.5; }

/* What the checks are about, for the message of a failure in a shared helper. */
static const char *stage = "";

/* A failed check: the stage, the check, its line and the engine's last message, on one line.
** Returns -1. */
static int failed(const engine *e, void *db, int line, const char *what) {
    char msg[512] = "";
    if (db && e->errmsg(db)) snprintf(msg, sizeof msg, "%s", e->errmsg(db));
    for (char *c = msg; *c; c++)
        if (*c == '\n') *c = ' ';
    printf("%s: FAILED: %s%s%s (engine_check.c:%d)%s%s\n", e->name, stage, *stage ? ": " : "", what, line,
           *msg ? "; last errmsg: " : "", msg);
    return -1;
}

#define CHECK(cond, what)                                                                                    \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            failed(e, db, __LINE__, what);                                                                   \
            goto fail;                                                                                       \
        }                                                                                                    \
    } while (0)

/* Removes the files of dir (made when missing), so that the engine starts from nothing. */
static int fresh_dir(const char *dir) {
    if (mkdir(dir, 0755) && errno != EEXIST) return -1;
    DIR *d = opendir(dir);
    if (d == NULL) return -1;
    struct dirent *ent;
    char path[4096];
    while ((ent = readdir(d)) != NULL) {
        if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, "..")) continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, ent->d_name) < (int)sizeof path) unlink(path);
    }
    closedir(d);
    return 0;
}

/* SELECT count(*), sum(k) FROM x must give one row (count, sum), as int64 and as double. */
static int check_count_sum(const engine *e, void *db, int64_t count, int64_t sum) {
    void *s = NULL;
    CHECK(e->prepare(db, "SELECT count(*), sum(k) FROM x", &s) == 0, "prepare SELECT count(*), sum(k)");
    CHECK(e->step(s) == 1, "SELECT count(*), sum(k) returns a row");
    CHECK(e->column_int64(s, 0) == count, "count(*) as int64");
    CHECK(e->column_int64(s, 1) == sum, "sum(k) as int64");
    CHECK(e->column_double(s, 1) == (double)sum, "sum(k) as double");
    CHECK(!e->column_is_null(s, 1), "sum(k) is not NULL");
    CHECK(e->step(s) == 0, "SELECT count(*), sum(k) returns one row");
    e->finalize(s);
    s = NULL;
    /* A negative 128-bit value in DuckDB: its low word alone is not the value. */
    CHECK(e->prepare(db, "SELECT sum(k) - 100000000 FROM x", &s) == 0, "prepare SELECT sum(k) - 100000000");
    CHECK(e->step(s) == 1, "SELECT sum(k) - 100000000 returns a row");
    CHECK(e->column_int64(s, 0) == sum - 100000000, "sum(k) - 100000000 as int64");
    CHECK(e->column_double(s, 0) == (double)(sum - 100000000), "sum(k) - 100000000 as double");
    e->finalize(s);
    return 0;
fail:
    if (s) e->finalize(s);
    return -1;
}

/* After bind and step, the lookup statement (SELECT v, d FROM x WHERE k = ?) is on key k's row. */
static int check_row(const engine *e, void *db, void *sel, int64_t k) {
    char want[48];
    int want_len = value_for(k, want), len = -1;
    const char *v = e->column_text(sel, 0, &len);
    CHECK(v != NULL && len == want_len && !memcmp(v, want, (size_t)len), "text of the row looked up");
    CHECK(e->column_double(sel, 1) == d_for(k), "double of the row looked up");
    CHECK(!e->column_is_null(sel, 0) && !e->column_is_null(sel, 1), "values of the row are not NULL");
    return 0;
fail:
    return -1;
}

/* Loads `rows` rows with keys from `first` on through the loader, then finishes the load, or
** aborts it when abort is set. */
static int load_rows(const engine *e, void *db, int64_t first, int64_t rows, int abort) {
    void *ld = NULL;
    char v[48];
    CHECK(e->load_begin(db, "x", 3, &ld) == 0, "load_begin");
    for (int64_t k = first; k < first + rows; k++) {
        int len = value_for(k, v);
        CHECK(e->load_int64(ld, k) == 0, "load_int64");
        CHECK(e->load_text(ld, v, len) == 0, "load_text");
        CHECK(e->load_double(ld, d_for(k)) == 0, "load_double");
        CHECK(e->load_end_row(ld) == 0, "load_end_row");
    }
    if (abort) {
        e->load_abort(ld);
        return 0;
    }
    void *finishing = ld;
    ld = NULL; /* finish frees the loader, also when it fails */
    CHECK(e->load_finish(finishing) == 0, "load_finish");
    return 0;
fail:
    if (ld) e->load_abort(ld);
    return -1;
}

/* Every check on a fresh database at dir/check.db. Returns 0 when all passed; otherwise -1 after
** printing the first failure. */
static int check_engine(const engine *e, const char *dir) {
    char path[4096], v[48];
    void *db = NULL, *sel = NULL, *s = NULL;
    const char *text;
    int len;
    stage = "";
    CHECK(snprintf(path, sizeof path, "%s/check.db", dir) < (int)sizeof path, "a path that fits");
    CHECK(fresh_dir(dir) == 0, "a fresh directory for the database");

    CHECK(e->open(path, &db) == 0, "open a fresh database");
    CHECK(e->exec(db, "CREATE TABLE x(k BIGINT PRIMARY KEY, v VARCHAR, d DOUBLE)") == 0, "CREATE TABLE x");
    stage = "the load";
    if (load_rows(e, db, 0, ROWS, 0)) goto fail;
    stage = "the rows loaded";
    if (check_count_sum(e, db, ROWS, SUM_K)) goto fail;
    stage = "an aborted load";
    if (load_rows(e, db, 1000000, ABORTED_ROWS, 1)) goto fail;
    stage = "an aborted load leaves no row";
    if (check_count_sum(e, db, ROWS, SUM_K)) goto fail;
    stage = "";

    /* Lookups: texts of 39, 12 and 5 bytes; reset in the middle of a result and after its end. */
    CHECK(e->prepare(db, "SELECT v, d FROM x WHERE k = ?", &sel) == 0,
          "prepare SELECT v, d FROM x WHERE k = ?");
    CHECK(e->bind_int64(sel, 1, 1234) == 0, "bind_int64");
    CHECK(e->step(sel) == 1, "lookup of key 1234 returns a row");
    if (check_row(e, db, sel, 1234)) goto fail;
    CHECK(e->reset(sel) == 0, "reset in the middle of a result");
    CHECK(e->bind_int64(sel, 1, 1) == 0, "bind_int64 after reset");
    CHECK(e->step(sel) == 1, "lookup after reset + rebind returns a row");
    if (check_row(e, db, sel, 1)) goto fail;
    CHECK(e->step(sel) == 0, "lookup of key 1 returns one row");
    CHECK(e->reset(sel) == 0, "reset after the end of a result");
    CHECK(e->bind_int64(sel, 1, 0) == 0, "bind_int64 after reset");
    CHECK(e->step(sel) == 1, "lookup of key 0 returns a row");
    if (check_row(e, db, sel, 0)) goto fail;
    CHECK(e->reset(sel) == 0, "reset");
    CHECK(e->step(sel) == 1, "the binding is kept by reset");
    if (check_row(e, db, sel, 0)) goto fail;
    CHECK(e->reset(sel) == 0, "reset");
    CHECK(e->bind_int64(sel, 1, MISSING_KEY) == 0, "bind_int64 of a missing key");
    CHECK(e->step(sel) == 0, "a missing key returns no row");
    CHECK(e->reset(sel) == 0, "reset after no row");
    e->finalize(sel);
    sel = NULL;

    /* Bound text, with bytes after the length that are not part of it. */
    CHECK(e->prepare(db, "SELECT k, d FROM x WHERE v = ?", &s) == 0,
          "prepare SELECT k, d FROM x WHERE v = ?");
    static const int64_t text_keys[] = {1234, 1, 0};
    for (size_t i = 0; i < sizeof text_keys / sizeof *text_keys; i++) {
        int64_t k = text_keys[i];
        len = value_for(k, v);
        CHECK(e->reset(s) == 0, "reset");
        CHECK(e->bind_text(s, 1, v, len) == 0, "bind_text");
        CHECK(e->step(s) == 1, "lookup by bound text returns a row");
        CHECK(e->column_int64(s, 0) == k && e->column_double(s, 1) == d_for(k), "the row of the bound text");
        CHECK(e->step(s) == 0, "lookup by bound text returns one row");
    }
    e->finalize(s);
    s = NULL;

    /* Errors: the call fails and the message says something. */
    CHECK(e->exec(db, "SELEC k FROM x") == -1, "exec of a syntax error fails");
    CHECK(e->errmsg(db) != NULL && *e->errmsg(db), "errmsg after a syntax error in exec");
    CHECK(e->prepare(db, "SELECT k FROM x WHER k = 1", &s) == -1, "prepare of a syntax error fails");
    CHECK(e->errmsg(db) != NULL && *e->errmsg(db), "errmsg after a syntax error in prepare");
    s = NULL;
    CHECK(e->exec(db, "SELECT k FROM no_such_table") == -1, "exec on a missing table fails");
    CHECK(e->errmsg(db) != NULL && *e->errmsg(db), "errmsg after a missing table");

    /* A scan of every row (DuckDB: more than one chunk of 2048). */
    CHECK(e->prepare(db, "SELECT k, v, d FROM x", &s) == 0, "prepare SELECT k, v, d FROM x");
    int64_t rows = 0, sum = 0;
    int rc;
    while ((rc = e->step(s)) == 1) {
        int64_t k = e->column_int64(s, 0);
        int want_len = value_for(k, v);
        text = e->column_text(s, 1, &len);
        CHECK(text != NULL && len == want_len && !memcmp(text, v, (size_t)len), "text of a scanned row");
        CHECK(e->column_double(s, 2) == d_for(k), "double of a scanned row");
        rows++, sum += k;
    }
    CHECK(rc == 0, "the scan ends without error");
    CHECK(rows == ROWS && sum == SUM_K, "the scan returns every row");
    e->finalize(s);
    s = NULL;

    /* A DATE reads as text YYYY-MM-DD (SQLite has no DATE type: its dates are that text already). */
    if (strncmp(e->name, "sqlite", 6) != 0) {
        CHECK(e->prepare(db, "SELECT DATE '1995-03-15'", &s) == 0, "prepare a DATE");
        CHECK(e->step(s) == 1, "a DATE's row");
        text = e->column_text(s, 0, &len);
        CHECK(text != NULL && len == 10 && !memcmp(text, "1995-03-15", 10), "a DATE as text");
        e->finalize(s);
        s = NULL;
    }

    /* NULLs. */
    CHECK(e->exec(db, "INSERT INTO x VALUES (3000, NULL, NULL)") == 0, "INSERT of NULLs");
    CHECK(e->prepare(db, "SELECT k, v, d FROM x WHERE k = 3000", &s) == 0, "prepare SELECT of NULLs");
    CHECK(e->step(s) == 1, "SELECT of NULLs returns a row");
    CHECK(e->column_count(s) == 3, "column_count after a step");
    CHECK(!e->column_is_null(s, 0), "column_is_null of a value");
    CHECK(e->column_is_null(s, 1) && e->column_is_null(s, 2), "column_is_null of NULLs");
    CHECK(e->step(s) == 0, "SELECT of NULLs returns one row");
    e->finalize(s);
    s = NULL;

    /* A prepared INSERT returns no row. */
    CHECK(e->prepare(db, "INSERT INTO x VALUES (?, ?, ?)", &s) == 0, "prepare INSERT");
    for (int64_t k = 3001; k <= 3002; k++) {
        CHECK(e->reset(s) == 0, "reset of the INSERT");
        CHECK(e->bind_int64(s, 1, k) == 0 &&
                  e->bind_text(s, 2, INSERTED_TEXT, (int)strlen(INSERTED_TEXT)) == 0 &&
                  e->bind_double(s, 3, d_for(k)) == 0,
              "bind the INSERT's values");
        CHECK(e->step(s) == 0, "a prepared INSERT returns no row");
    }
    e->finalize(s);
    s = NULL;
    stage = "the rows inserted";
    if (check_count_sum(e, db, ROWS + 3, SUM_K + 3000 + 3001 + 3002)) goto fail;
    stage = "";

    /* BLOBs: bound, loaded and read back, with zero bytes inside. */
    CHECK(e->exec(db, "CREATE TABLE b(k BIGINT PRIMARY KEY, v BLOB)") == 0, "CREATE TABLE b");
    {
        static const unsigned char blob[] = {0, 1, 2, 0xff, 0, 'x', 0, 0x80, 7, 0, 0, 0, 0, 9, 0};
        void *ld = NULL;
        const void *got;
        CHECK(e->load_begin(db, "b", 2, &ld) == 0, "load_begin of b");
        int loaded = e->load_int64(ld, 1) == 0 && e->load_blob(ld, blob, (int)sizeof blob) == 0 &&
                     e->load_end_row(ld) == 0;
        if (!loaded) e->load_abort(ld);
        CHECK(loaded && e->load_finish(ld) == 0, "load a BLOB");
        CHECK(e->prepare(db, "INSERT INTO b VALUES (?, ?)", &s) == 0, "prepare INSERT INTO b");
        CHECK(e->bind_int64(s, 1, 2) == 0 && e->bind_blob(s, 2, blob, 5) == 0 && e->step(s) == 0,
              "bind a BLOB");
        e->finalize(s);
        s = NULL;
        CHECK(e->prepare(db, "SELECT v FROM b WHERE k = ?", &s) == 0, "prepare SELECT v FROM b");
        for (int64_t k = 1; k <= 2; k++) {
            int want = k == 1 ? (int)sizeof blob : 5;
            CHECK(e->reset(s) == 0 && e->bind_int64(s, 1, k) == 0 && e->step(s) == 1, "a BLOB row");
            got = e->column_blob(s, 0, &len);
            CHECK(got != NULL && len == want && !memcmp(got, blob, (size_t)want), "the bytes of a BLOB");
        }
        e->finalize(s);
        s = NULL;
    }

    /* A second connection (another thread's) sees committed rows, or is refused with a message. */
    {
        void *conn = NULL;
        if (e->connect(db, path, &conn) == 0) {
            int64_t n = -1;
            CHECK(e->prepare(conn, "SELECT count(*) FROM x", &s) == 0 && e->step(s) == 1,
                  "count(*) on a connection");
            n = e->column_int64(s, 0);
            e->finalize(s);
            s = NULL;
            e->disconnect(conn);
            CHECK(n == ROWS + 3, "a second connection sees the committed rows");
        } else {
            const char *msg = conn ? e->errmsg(conn) : NULL;
            int has_msg = msg && *msg;
            if (has_msg) printf("%s: a second connection is refused: %s\n", e->name, msg);
            e->disconnect(conn);
            CHECK(has_msg, "a refused connection has a message");
        }
    }

    /* Close and reopen. */
    e->close(db);
    db = NULL;
    CHECK(e->open(path, &db) == 0, "reopen the database");
    stage = "after reopen";
    if (check_count_sum(e, db, ROWS + 3, SUM_K + 3000 + 3001 + 3002)) goto fail;
    CHECK(e->prepare(db, "SELECT v, d FROM x WHERE k = ?", &sel) == 0, "prepare a lookup after reopen");
    CHECK(e->bind_int64(sel, 1, 1234) == 0 && e->step(sel) == 1, "lookup after reopen returns a row");
    if (check_row(e, db, sel, 1234)) goto fail;
    CHECK(e->reset(sel) == 0 && e->bind_int64(sel, 1, 3002) == 0 && e->step(sel) == 1, "lookup of an INSERT");
    text = e->column_text(sel, 0, &len);
    CHECK(text && len == (int)strlen(INSERTED_TEXT) && !memcmp(text, INSERTED_TEXT, (size_t)len),
          "text of a prepared INSERT after reopen");
    e->finalize(sel);
    e->close(db);
    return 0;
fail:
    if (sel) e->finalize(sel);
    if (s) e->finalize(s);
    if (db) e->close(db);
    return -1;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr,
                "usage: %s DIR ENGINE...  (engines: strata sqlite-wal sqlite-truncate sqlite-off duckdb)\n",
                argv[0]);
        return 2;
    }
    if (mkdir(argv[1], 0755) && errno != EEXIST) {
        fprintf(stderr, "%s: cannot make %s: %s\n", argv[0], argv[1], strerror(errno));
        return 2;
    }
    int failures = 0;
    for (int i = 2; i < argc; i++) {
        const engine *e = NULL;
        for (size_t j = 0; j < sizeof engines / sizeof *engines; j++)
            if (!strcmp(engines[j]->name, argv[i])) e = engines[j];
        if (e == NULL) {
            printf("%s: unknown engine (skipped)\n", argv[i]);
            continue;
        }
        const char *why = NULL;
        if (!e->available(&why)) {
            printf("%s: %s\n", e->name, why ? why : "not available");
            continue;
        }
        char dir[4096];
        if (snprintf(dir, sizeof dir, "%s/%s", argv[1], e->name) >= (int)sizeof dir) {
            printf("%s: FAILED: the directory name is too long\n", e->name);
            failures++;
        } else if (check_engine(e, dir)) {
            failures++;
        } else {
            printf("%s: ok\n", e->name);
        }
        fflush(stdout);
    }
    return failures ? 1 : 0;
}
