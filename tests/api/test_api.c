/*
** test_api.c -- the public C API of include/strata.h, function by function, as a program that
** embeds strata uses it: opening and closing (files and :memory:), exec with a callback,
** prepare/bind/step/column/reset/finalize, chunk-at-a-time results, changes, errors, misuse
** (which must give STRATA_MISUSE, never a crash) and the durability that strata.h promises.
**
** Only strata.h is included: these tests see the library exactly as a user does.
*/
#include <criterion/criterion.h>
#include <malloc.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers/api_db.h"
#include "helpers/tmpdir.h"
#include "strata.h"

/* ---- helpers ------------------------------------------------------------------------------ */

static char dir[256];
static char dbpath[300];

/* Each test runs in its own process (Criterion forks), so each gets its own directory. */
static void make_dir(void) {
    snprintf(dir, sizeof dir, "/tmp/strata-api-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(dbpath, sizeof dbpath, "%s/test.db", dir);
}
static void remove_dir(void) { tmpdir_remove(dir); }

/* query_text returns the first value of the first row as text (a static copy; "(null)" for NULL). */
static const char *query_text(strata_db *db, const char *sql) {
    static char buf[512];
    strata_stmt *s = prepare(db, sql);
    int rc = strata_step(s);
    cr_assert_eq(rc, STRATA_ROW, "\"%s\": step -> %d: %s", sql, rc, strata_errmsg(db));
    const char *t = strata_column_text(s, 0);
    snprintf(buf, sizeof buf, "%s", t ? t : "(null)");
    strata_finalize(s);
    return buf;
}

/* ---- opening and closing ------------------------------------------------------------------ */

TestSuite(open, .init = make_dir, .fini = remove_dir);

Test(open, memory_database_works_and_is_private) {
    strata_db *a = open_mem(), *b = open_mem();
    EXEC_OK(a, "CREATE TABLE t(x INTEGER)");
    EXEC_OK(a, "INSERT INTO t VALUES (1), (2)");
    cr_assert_eq(query_int64(a, "SELECT sum(x) FROM t"), 3);
    /* a second :memory: database is a different database: it has no table t */
    cr_assert_neq(strata_exec(b, "SELECT * FROM t", NULL, NULL), STRATA_OK);
    cr_assert_eq(strata_close(a), STRATA_OK);
    cr_assert_eq(strata_close(b), STRATA_OK);
}

Test(open, memory_database_is_gone_after_close) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(x INTEGER)");
    strata_close(db);
    db = open_mem();
    cr_assert_eq(strata_exec(db, "SELECT * FROM t", NULL, NULL), STRATA_ERROR);
    strata_close(db);
}

Test(open, file_is_created_and_reopen_keeps_data) {
    strata_db *db = open_file(dbpath);
    cr_assert_eq(access(dbpath, F_OK), 0, "the file was not created");
    EXEC_OK(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, v VARCHAR)");
    EXEC_OK(db, "INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, NULL)");
    cr_assert_eq(strata_close(db), STRATA_OK);

    db = open_file(dbpath);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 3);
    cr_assert_str_eq(query_text(db, "SELECT v FROM t WHERE k = 2"), "two");
    cr_assert_str_eq(query_text(db, "SELECT v FROM t WHERE k = 3"), "(null)");
    EXEC_OK(db, "INSERT INTO t VALUES (4, 'four')");
    strata_close(db);

    db = open_file(dbpath);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 4);
    strata_close(db);
}

Test(open, close_null_is_a_noop) { cr_assert_eq(strata_close(NULL), STRATA_OK); }

Test(open, libversion_is_the_header_version) {
    cr_assert_str_eq(strata_libversion(), STRATA_VERSION);
    cr_assert_neq(strchr(strata_libversion(), '.'), NULL);
}

Test(open, close_finalizes_open_statements) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (1), (2)");
    strata_stmt *a = prepare(db, "SELECT x FROM t");
    strata_stmt *b = prepare(db, "SELECT x FROM t");
    cr_assert_eq(strata_step(a), STRATA_ROW);
    (void)b;
    /* neither is finalized: close must free both (the sanitizer run checks the leak) */
    cr_assert_eq(strata_close(db), STRATA_OK);
}

/* A closed database is one file; the WAL exists while it is open; strata_checkpoint folds the WAL
** in on demand (not inside a transaction) and the handle writes on after it. */
Test(open, a_closed_database_is_one_file_and_checkpoint_works) {
    char wal[320];
    snprintf(wal, sizeof wal, "%s-wal", dbpath);
    strata_db *db = NULL;
    cr_assert_eq(strata_open(dbpath, &db), STRATA_OK, "%s", strata_errmsg(db));
    cr_assert_eq(access(wal, F_OK), 0, "an open database has its -wal");
    EXEC_OK(db, "CREATE TABLE t(x INTEGER PRIMARY KEY); INSERT INTO t VALUES (1), (2)");
    EXEC_OK(db, "BEGIN");
    cr_assert_eq(strata_checkpoint(db), STRATA_MISUSE, "inside BEGIN");
    cr_assert(strstr(strata_errmsg(db), "transaction"), "%s", strata_errmsg(db));
    EXEC_OK(db, "INSERT INTO t VALUES (3); COMMIT");
    cr_assert_eq(strata_checkpoint(db), STRATA_OK, "%s", strata_errmsg(db));
    EXEC_OK(db, "INSERT INTO t VALUES (4)");
    cr_assert_eq(strata_close(db), STRATA_OK);
    cr_assert_neq(access(wal, F_OK), 0, "a clean close removes the -wal");
    cr_assert_eq(strata_open(dbpath, &db), STRATA_OK, "%s", strata_errmsg(db));
    cr_assert_eq(query_int64(db, "SELECT sum(x) FROM t"), 10);
    cr_assert_eq(strata_close(db), STRATA_OK);
    cr_assert_neq(access(wal, F_OK), 0, "a session that only read removes it too");
    cr_assert_eq(strata_checkpoint(NULL), STRATA_MISUSE);
}

Test(open, not_a_database_file) {
    FILE *f = fopen(dbpath, "w");
    cr_assert_not_null(f);
    for (int i = 0; i < 2000; i++) fprintf(f, "this is a text file, not a database %d\n", i);
    fclose(f);
    strata_db *db = NULL;
    int rc = strata_open(dbpath, &db);
    cr_assert_eq(rc, STRATA_NOTADB, "open of a text file -> %d", rc);
    cr_assert_not_null(db, "*out must be set on error so that errmsg can say why");
    cr_assert_eq(strata_errcode(db), STRATA_NOTADB);
    const char *msg = strata_errmsg(db);
    cr_assert(msg && strlen(msg) > 0 && strcmp(msg, "not an error") != 0, "errmsg: \"%s\"", msg ? msg : "(null)");
    strata_close(db);
    /* and the file is left as it was */
    f = fopen(dbpath, "r");
    char line[64];
    cr_assert_not_null(fgets(line, sizeof line, f));
    cr_assert_str_eq(line, "this is a text file, not a database 0\n");
    fclose(f);
}

Test(open, short_garbage_file_is_not_a_database) {
    FILE *f = fopen(dbpath, "w");
    cr_assert_not_null(f);
    fputs("hello", f);
    fclose(f);
    strata_db *db = NULL;
    int rc = strata_open(dbpath, &db);
    cr_assert(rc == STRATA_NOTADB || rc == STRATA_CORRUPT, "open of a 5-byte file -> %d", rc);
    cr_assert_str_neq(strata_errmsg(db), "not an error");
    strata_close(db);
}

Test(open, second_handle_on_a_file_is_busy) {
    strata_db *a = open_file(dbpath);
    EXEC_OK(a, "CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (7)");
    strata_db *b = NULL;
    int rc = strata_open(dbpath, &b);
    cr_assert_eq(rc, STRATA_BUSY, "second open -> %d", rc);
    cr_assert_not_null(b);
    cr_assert_eq(strata_errcode(b), STRATA_BUSY);
    cr_assert_str_neq(strata_errmsg(b), "not an error");
    strata_close(b);
    /* the first handle is unaffected */
    cr_assert_eq(query_int64(a, "SELECT x FROM t"), 7);
    strata_close(a);
    /* and once it is closed, the file opens again */
    b = open_file(dbpath);
    cr_assert_eq(query_int64(b, "SELECT x FROM t"), 7);
    strata_close(b);
}

Test(open, missing_directory_is_an_error) {
    char p[400];
    snprintf(p, sizeof p, "%s/no/such/dir/x.db", dir);
    strata_db *db = NULL;
    int rc = strata_open(p, &db);
    cr_assert_neq(rc, STRATA_OK);
    cr_assert_not_null(db);
    cr_assert_str_neq(strata_errmsg(db), "not an error");
    strata_close(db);
}

Test(open, errstr_describes_every_code) {
    int codes[] = {STRATA_OK,       STRATA_ERROR,    STRATA_BUSY,    STRATA_CORRUPT,  STRATA_IOERR,   STRATA_NOMEM,
                   STRATA_FULL,     STRATA_CONSTRAINT, STRATA_MISUSE, STRATA_INTERRUPT, STRATA_NOTADB, STRATA_TOOBIG,
                   STRATA_NOTFOUND, STRATA_READONLY, STRATA_FORMAT,  STRATA_ROW,      STRATA_DONE};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *s = strata_errstr(codes[i]);
        cr_assert(s && *s, "no description for %d", codes[i]);
    }
    cr_assert_not_null(strata_errstr(12345));
}

/* ---- exec --------------------------------------------------------------------------------- */

typedef struct rows {
    int n;
    int ncol;
    char vals[16][4][32]; /* "(null)" for a NULL pointer */
    char names[4][32];
    int stop_after; /* return non-zero after this many rows (0: never) */
} rows;

static int collect(void *arg, int ncol, char **values, char **names) {
    rows *r = arg;
    r->ncol = ncol;
    for (int i = 0; i < ncol && i < 4; i++) {
        if (r->n < 16) snprintf(r->vals[r->n][i], 32, "%s", values[i] ? values[i] : "(null)");
        snprintf(r->names[i], 32, "%s", names[i] ? names[i] : "(null)");
    }
    r->n++;
    return r->stop_after && r->n >= r->stop_after;
}

TestSuite(exec);

Test(exec, callback_gets_values_and_names) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR, d DOUBLE)");
    EXEC_OK(db, "INSERT INTO t VALUES (1, 'one', 1.5), (2, NULL, NULL)");
    rows r = {0};
    cr_assert_eq(strata_exec(db, "SELECT k, v, d AS dbl FROM t ORDER BY k", collect, &r), STRATA_OK, "%s",
                 strata_errmsg(db));
    cr_assert_eq(r.n, 2);
    cr_assert_eq(r.ncol, 3);
    cr_assert_str_eq(r.names[0], "k");
    cr_assert_str_eq(r.names[1], "v");
    cr_assert_str_eq(r.names[2], "dbl");
    cr_assert_str_eq(r.vals[0][0], "1");
    cr_assert_str_eq(r.vals[0][1], "one");
    cr_assert_str_eq(r.vals[0][2], "1.5");
    cr_assert_str_eq(r.vals[1][0], "2");
    cr_assert_str_eq(r.vals[1][1], "(null)", "SQL NULL must reach the callback as a NULL pointer");
    cr_assert_str_eq(r.vals[1][2], "(null)");
    strata_close(db);
}

Test(exec, runs_every_statement_and_calls_back_for_each_query) {
    strata_db *db = open_mem();
    rows r = {0};
    int rc = strata_exec(db,
                         "CREATE TABLE t(x INTEGER);\n"
                         "INSERT INTO t VALUES (1);\n"
                         "SELECT x FROM t;\n"
                         "INSERT INTO t VALUES (2);\n"
                         "SELECT x FROM t ORDER BY x;  -- trailing comment\n",
                         collect, &r);
    cr_assert_eq(rc, STRATA_OK, "%s", strata_errmsg(db));
    cr_assert_eq(r.n, 3, "1 row from the first SELECT, 2 from the second; got %d", r.n);
    cr_assert_str_eq(r.vals[0][0], "1");
    cr_assert_str_eq(r.vals[1][0], "1");
    cr_assert_str_eq(r.vals[2][0], "2");
    strata_close(db);
}

Test(exec, null_callback_and_empty_text) {
    strata_db *db = open_mem();
    cr_assert_eq(strata_exec(db, "", NULL, NULL), STRATA_OK);
    cr_assert_eq(strata_exec(db, "  \n\t -- only a comment\n /* and another */ ", NULL, NULL), STRATA_OK);
    cr_assert_eq(strata_exec(db, "SELECT 1", NULL, NULL), STRATA_OK);
    strata_close(db);
}

Test(exec, nonzero_callback_return_interrupts) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (1), (2), (3), (4)");
    rows r = {.stop_after = 2};
    int rc = strata_exec(db, "SELECT x FROM t; INSERT INTO t VALUES (5)", collect, &r);
    cr_assert_eq(rc, STRATA_INTERRUPT);
    cr_assert_eq(r.n, 2, "the callback must not be called again after it asked to stop");
    cr_assert_eq(strata_errcode(db), STRATA_INTERRUPT);
    /* the statements after the interrupted one did not run */
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 4);
    /* and the handle is still usable */
    EXEC_OK(db, "INSERT INTO t VALUES (6)");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 5);
    strata_close(db);
}

Test(exec, stops_at_first_error) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(x INTEGER)");
    int rc = strata_exec(db, "INSERT INTO t VALUES (1); INSERT INTO nosuch VALUES (2); INSERT INTO t VALUES (3)", NULL,
                         NULL);
    cr_assert_eq(rc, STRATA_ERROR);
    cr_assert_eq(strata_errcode(db), STRATA_ERROR);
    cr_assert(strstr(strata_errmsg(db), "nosuch") != NULL, "errmsg: %s", strata_errmsg(db));
    /* autocommit: the first statement committed, the third never ran */
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 1);
    cr_assert_eq(query_int64(db, "SELECT x FROM t"), 1);
    strata_close(db);
}

Test(exec, syntax_error_in_later_statement_runs_nothing_after_it) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(x INTEGER)");
    int rc = strata_exec(db, "INSERT INTO t VALUES (1); SELEC 2; INSERT INTO t VALUES (3)", NULL, NULL);
    cr_assert_eq(rc, STRATA_ERROR);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 1);
    strata_close(db);
}

Test(exec, misuse_with_null_arguments) {
    strata_db *db = open_mem();
    cr_assert_eq(strata_exec(db, NULL, NULL, NULL), STRATA_MISUSE);
    cr_assert_eq(strata_exec(NULL, "SELECT 1", NULL, NULL), STRATA_MISUSE);
    strata_close(db);
}

/* ---- prepare ------------------------------------------------------------------------------ */

TestSuite(prepare);

Test(prepare, tail_walks_a_script) {
    strata_db *db = open_mem();
    const char *script = "CREATE TABLE t(x INTEGER);\n"
                         "INSERT INTO t VALUES (10), (20);  -- two rows\n"
                         "/* a comment */ SELECT sum(x) FROM t;\n"
                         "  -- trailing comment only\n";
    const char *p = script;
    int nstmt = 0;
    int64_t sum = -1;
    for (;;) {
        strata_stmt *s = (strata_stmt *)1;
        const char *tail = NULL;
        int rc = strata_prepare(db, p, &s, &tail);
        cr_assert_eq(rc, STRATA_OK, "prepare at \"%s\": %s", p, strata_errmsg(db));
        if (s == NULL) break;
        cr_assert_not_null(tail);
        cr_assert(tail > p && tail <= script + strlen(script), "tail must advance inside the text");
        nstmt++;
        while ((rc = strata_step(s)) == STRATA_ROW) sum = strata_column_int64(s, 0);
        cr_assert_eq(rc, STRATA_DONE, "%s", strata_errmsg(db));
        strata_finalize(s);
        p = tail;
        cr_assert(nstmt < 10, "tail does not advance");
    }
    cr_assert_eq(nstmt, 3);
    cr_assert_eq(sum, 30);
    strata_close(db);
}

Test(prepare, tail_may_be_null_and_only_the_first_statement_runs) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(x INTEGER)");
    strata_stmt *s = NULL;
    cr_assert_eq(strata_prepare(db, "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)", &s, NULL), STRATA_OK);
    cr_assert_eq(strata_step(s), STRATA_DONE);
    strata_finalize(s);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 1);
    strata_close(db);
}

Test(prepare, empty_text_gives_null_statement) {
    strata_db *db = open_mem();
    const char *empties[] = {"", "   ", "\n\t\n", "-- comment", "/* c */", "  /* a */ -- b\n  "};
    for (size_t i = 0; i < sizeof empties / sizeof empties[0]; i++) {
        strata_stmt *s = (strata_stmt *)1;
        int rc = strata_prepare(db, empties[i], &s, NULL);
        cr_assert_eq(rc, STRATA_OK, "\"%s\" -> %d: %s", empties[i], rc, strata_errmsg(db));
        cr_assert_null(s, "\"%s\" must give a NULL statement", empties[i]);
    }
    strata_close(db);
}

Test(prepare, error_gives_null_statement_and_message) {
    strata_db *db = open_mem();
    strata_stmt *s = (strata_stmt *)1;
    int rc = strata_prepare(db, "SELECT FROM WHERE", &s, NULL);
    cr_assert_eq(rc, STRATA_ERROR);
    cr_assert_null(s);
    cr_assert_eq(strata_errcode(db), STRATA_ERROR);
    s = (strata_stmt *)1;
    rc = strata_prepare(db, "SELECT * FROM missing_table", &s, NULL);
    cr_assert_eq(rc, STRATA_ERROR);
    cr_assert_null(s);
    cr_assert(strstr(strata_errmsg(db), "missing_table"), "%s", strata_errmsg(db));
    strata_close(db);
}

Test(prepare, result_shape_is_known_before_step) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(a INTEGER, b VARCHAR, c DOUBLE)");
    strata_stmt *s = prepare(db, "SELECT a, b AS bee, c * 2 FROM t");
    cr_assert_eq(strata_column_count(s), 3);
    cr_assert_str_eq(strata_column_name(s, 0), "a");
    cr_assert_str_eq(strata_column_name(s, 1), "bee");
    cr_assert_not_null(strata_column_name(s, 2));
    cr_assert_str_eq(strata_column_decltype(s, 0), "integer");
    cr_assert_str_eq(strata_column_decltype(s, 1), "character varying");
    cr_assert_str_eq(strata_column_decltype(s, 2), "double precision");
    strata_finalize(s);
    s = prepare(db, "INSERT INTO t VALUES (1, 'x', 2)");
    cr_assert_eq(strata_column_count(s), 0);
    strata_finalize(s);
    s = prepare(db, "CREATE TABLE u(x INTEGER)");
    cr_assert_eq(strata_column_count(s), 0);
    strata_finalize(s);
    strata_close(db);
}

Test(prepare, statement_survives_schema_change) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(a INTEGER); INSERT INTO t VALUES (1)");
    strata_stmt *s = prepare(db, "SELECT count(*) FROM t");
    EXEC_OK(db, "CREATE TABLE u(b INTEGER)");
    EXEC_OK(db, "INSERT INTO t VALUES (2)");
    cr_assert_eq(strata_step(s), STRATA_ROW, "%s", strata_errmsg(db));
    cr_assert_eq(strata_column_int64(s, 0), 2);
    strata_finalize(s);
    /* a statement whose table was dropped fails cleanly at step */
    s = prepare(db, "SELECT a FROM t");
    EXEC_OK(db, "DROP TABLE t");
    int rc = strata_step(s);
    cr_assert_eq(rc, STRATA_ERROR, "step over a dropped table -> %d", rc);
    strata_finalize(s);
    strata_close(db);
}

Test(prepare, misuse_with_null_arguments) {
    strata_db *db = open_mem();
    strata_stmt *s = (strata_stmt *)1;
    cr_assert_eq(strata_prepare(db, NULL, &s, NULL), STRATA_MISUSE);
    cr_assert_null(s);
    cr_assert_eq(strata_prepare(db, "SELECT 1", NULL, NULL), STRATA_MISUSE);
    s = (strata_stmt *)1;
    cr_assert_eq(strata_prepare(NULL, "SELECT 1", &s, NULL), STRATA_MISUSE);
    strata_close(db);
}

/* ---- bind --------------------------------------------------------------------------------- */

TestSuite(bind);

Test(bind, parameter_count_and_range) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(a INTEGER, b VARCHAR, c DOUBLE)");
    strata_stmt *s = prepare(db, "INSERT INTO t VALUES (?, ?, ?)");
    cr_assert_eq(strata_bind_parameter_count(s), 3);
    cr_assert_eq(strata_bind_int64(s, 0, 1), STRATA_MISUSE, "index 0: parameters are 1-based");
    cr_assert_eq(strata_errcode(db), STRATA_MISUSE);
    cr_assert_eq(strata_bind_int64(s, 4, 1), STRATA_MISUSE);
    cr_assert_eq(strata_bind_int64(s, -1, 1), STRATA_MISUSE);
    cr_assert_eq(strata_bind_null(s, 4), STRATA_MISUSE);
    cr_assert_eq(strata_bind_double(s, 4, 1.0), STRATA_MISUSE);
    cr_assert_eq(strata_bind_text(s, 4, "x", -1), STRATA_MISUSE);
    cr_assert_eq(strata_bind_blob(s, 4, "x", 1), STRATA_MISUSE);
    cr_assert_eq(strata_bind_int64(s, 1, 1), STRATA_OK);
    cr_assert_eq(strata_bind_text(s, 2, "x", -1), STRATA_OK);
    cr_assert_eq(strata_bind_double(s, 3, 0.5), STRATA_OK);
    cr_assert_eq(strata_step(s), STRATA_DONE, "%s", strata_errmsg(db));
    strata_finalize(s);
    s = prepare(db, "SELECT $2::INTEGER + $1::INTEGER");
    cr_assert_eq(strata_bind_parameter_count(s), 2);
    strata_finalize(s);
    s = prepare(db, "SELECT a FROM t");
    cr_assert_eq(strata_bind_parameter_count(s), 0);
    cr_assert_eq(strata_bind_int64(s, 1, 1), STRATA_MISUSE);
    strata_finalize(s);
    strata_close(db);
}

Test(bind, numbered_parameters) {
    strata_db *db = open_mem();
    strata_stmt *s = prepare(db, "SELECT $2::BIGINT - $1::BIGINT, $1::BIGINT");
    cr_assert_eq(strata_bind_int64(s, 1, 10), STRATA_OK);
    cr_assert_eq(strata_bind_int64(s, 2, 100), STRATA_OK);
    cr_assert_eq(strata_step(s), STRATA_ROW, "%s", strata_errmsg(db));
    cr_assert_eq(strata_column_int64(s, 0), 90);
    cr_assert_eq(strata_column_int64(s, 1), 10);
    strata_finalize(s);
    strata_close(db);
}

Test(bind, text_lengths_and_copying) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR)");
    strata_stmt *s = prepare(db, "INSERT INTO t VALUES (?, ?)");

    char *buf = strdup("hello world");
    cr_assert_eq(strata_bind_int64(s, 1, 1), STRATA_OK);
    cr_assert_eq(strata_bind_text(s, 2, buf, -1), STRATA_OK);
    /* the text is copied: the caller may change and free its buffer before step */
    memset(buf, 'X', strlen(buf));
    free(buf);
    cr_assert_eq(strata_step(s), STRATA_DONE, "%s", strata_errmsg(db));
    strata_reset(s);

    cr_assert_eq(strata_bind_int64(s, 1, 2), STRATA_OK);
    cr_assert_eq(strata_bind_text(s, 2, "hello world", 5), STRATA_OK); /* explicit length: "hello" */
    cr_assert_eq(strata_step(s), STRATA_DONE, "%s", strata_errmsg(db));
    strata_reset(s);

    cr_assert_eq(strata_bind_int64(s, 1, 3), STRATA_OK);
    cr_assert_eq(strata_bind_text(s, 2, "", 0), STRATA_OK); /* empty, not NULL */
    cr_assert_eq(strata_step(s), STRATA_DONE, "%s", strata_errmsg(db));
    strata_reset(s);

    /* a long text (beyond any inline-string size) */
    char big[5000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    cr_assert_eq(strata_bind_int64(s, 1, 4), STRATA_OK);
    cr_assert_eq(strata_bind_text(s, 2, big, -1), STRATA_OK);
    cr_assert_eq(strata_step(s), STRATA_DONE, "%s", strata_errmsg(db));
    strata_reset(s);

    /* UTF-8 passes through unchanged */
    cr_assert_eq(strata_bind_int64(s, 1, 5), STRATA_OK);
    cr_assert_eq(strata_bind_text(s, 2, "h\xc3\xa9llo \xe2\x82\xac", -1), STRATA_OK);
    cr_assert_eq(strata_step(s), STRATA_DONE, "%s", strata_errmsg(db));
    strata_finalize(s);

    cr_assert_str_eq(query_text(db, "SELECT v FROM t WHERE k = 1"), "hello world");
    cr_assert_str_eq(query_text(db, "SELECT v FROM t WHERE k = 2"), "hello");
    cr_assert_str_eq(query_text(db, "SELECT v FROM t WHERE k = 3"), "");
    cr_assert_eq(query_int64(db, "SELECT length(v) FROM t WHERE k = 4"), 4999);
    cr_assert_str_eq(query_text(db, "SELECT v FROM t WHERE k = 5"), "h\xc3\xa9llo \xe2\x82\xac");
    cr_assert_eq(query_int64(db, "SELECT length(v) FROM t WHERE k = 5"), 7);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t WHERE v IS NULL"), 0);
    strata_close(db);
}

Test(bind, blob_with_nul_bytes_round_trips) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, b BLOB)");
    strata_stmt *s = prepare(db, "INSERT INTO t VALUES (?, ?)");
    unsigned char bytes[300];
    for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (unsigned char)(i * 7); /* bytes[0] is 0 */
    unsigned char *copy = malloc(sizeof bytes);
    memcpy(copy, bytes, sizeof bytes);
    cr_assert_eq(strata_bind_int64(s, 1, 1), STRATA_OK);
    cr_assert_eq(strata_bind_blob(s, 2, copy, (int)sizeof bytes), STRATA_OK);
    free(copy);
    cr_assert_eq(strata_step(s), STRATA_DONE, "%s", strata_errmsg(db));
    strata_reset(s);
    cr_assert_eq(strata_bind_int64(s, 1, 2), STRATA_OK);
    cr_assert_eq(strata_bind_blob(s, 2, "a\0b", 3), STRATA_OK);
    cr_assert_eq(strata_step(s), STRATA_DONE, "%s", strata_errmsg(db));
    strata_finalize(s);

    s = prepare(db, "SELECT b FROM t ORDER BY k");
    cr_assert_eq(strata_step(s), STRATA_ROW, "%s", strata_errmsg(db));
    cr_assert_eq(strata_column_type(s, 0), STRATA_TYPE_BLOB);
    cr_assert_eq(strata_column_bytes(s, 0), (int)sizeof bytes);
    const void *got = strata_column_blob(s, 0);
    cr_assert_not_null(got);
    cr_assert_eq(memcmp(got, bytes, sizeof bytes), 0, "blob bytes differ");
    cr_assert_eq(strata_step(s), STRATA_ROW);
    cr_assert_eq(strata_column_bytes(s, 0), 3);
    cr_assert_eq(memcmp(strata_column_blob(s, 0), "a\0b", 3), 0);
    /* text renders a blob as \x... hex */
    cr_assert_str_eq(strata_column_text(s, 0), "\\x610062");
    cr_assert_eq(strata_step(s), STRATA_DONE);
    strata_finalize(s);
    strata_close(db);
}

Test(bind, rebinding_after_reset_and_unbound_is_null) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR)");
    EXEC_OK(db, "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')");
    strata_stmt *s = prepare(db, "SELECT v FROM t WHERE k = ?");
    /* never bound: NULL, so k = NULL matches nothing */
    cr_assert_eq(strata_step(s), STRATA_DONE, "%s", strata_errmsg(db));
    strata_reset(s);
    for (int k = 1; k <= 3; k++) {
        cr_assert_eq(strata_bind_int64(s, 1, k), STRATA_OK);
        cr_assert_eq(strata_step(s), STRATA_ROW, "k=%d: %s", k, strata_errmsg(db));
        char want[2] = {(char)('a' + k - 1), 0};
        cr_assert_str_eq(strata_column_text(s, 0), want);
        cr_assert_eq(strata_step(s), STRATA_DONE);
        cr_assert_eq(strata_reset(s), STRATA_OK);
    }
    /* reset keeps the bindings */
    cr_assert_eq(strata_step(s), STRATA_ROW);
    cr_assert_str_eq(strata_column_text(s, 0), "c");
    strata_reset(s);
    /* clear_bindings sets them back to NULL */
    cr_assert_eq(strata_clear_bindings(s), STRATA_OK);
    cr_assert_eq(strata_step(s), STRATA_DONE);
    strata_reset(s);
    /* bind_null explicitly */
    cr_assert_eq(strata_bind_int64(s, 1, 2), STRATA_OK);
    cr_assert_eq(strata_bind_null(s, 1), STRATA_OK);
    cr_assert_eq(strata_step(s), STRATA_DONE);
    strata_finalize(s);
    strata_close(db);
}

/* A parameter bound again and again keeps one copy of its value: the statement's memory does not
** grow with the bytes bound over its life (it did: every bind kept its copy until finalize). A
** shorter value after a longer one comes back exactly, and a value survives reset. */
Test(bind, rebinding_reuses_the_room_of_each_parameter) {
    strata_db *db = open_mem();
    strata_stmt *s = prepare(db, "SELECT length(?), ?");
    enum { BIG = 1 << 20, ROUNDS = 64 };
    char *big = malloc(BIG);
    cr_assert_not_null(big);
    size_t before = 0;
    for (int r = 0; r < ROUNDS; r++) {
        memset(big, 'a' + r % 26, BIG);
        cr_assert_eq(strata_bind_text(s, 1, big, BIG), STRATA_OK);
        cr_assert_eq(strata_bind_text(s, 2, r % 2 ? "a longer text value" : "short", -1), STRATA_OK);
        cr_assert_eq(strata_step(s), STRATA_ROW, "%s", strata_errmsg(db));
        cr_assert_eq(strata_column_int64(s, 0), BIG);
        cr_assert_str_eq(strata_column_text(s, 1), r % 2 ? "a longer text value" : "short");
        cr_assert_eq(strata_reset(s), STRATA_OK);
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
        size_t used = mallinfo2().uordblks + mallinfo2().hblkhd;
        if (r == 0) before = used;
        cr_assert_lt(used, before + 8 * (size_t)BIG, "round %d: %zu bytes in use, %zu after the first", r, used, before);
#else
        (void)before;
#endif
    }
    cr_assert_eq(strata_step(s), STRATA_ROW, "reset keeps the bindings");
    cr_assert_str_eq(strata_column_text(s, 1), "a longer text value");
    strata_finalize(s);
    free(big);
    strata_close(db);
}

Test(bind, null_value_inserts_null) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR)");
    strata_stmt *s = prepare(db, "INSERT INTO t VALUES (?, ?)");
    cr_assert_eq(strata_bind_int64(s, 1, 1), STRATA_OK);
    cr_assert_eq(strata_bind_text(s, 2, NULL, -1), STRATA_OK); /* a NULL pointer binds SQL NULL */
    cr_assert_eq(strata_step(s), STRATA_DONE, "%s", strata_errmsg(db));
    strata_finalize(s);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t WHERE v IS NULL"), 1);
    strata_close(db);
}

Test(bind, types_follow_their_use) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(d DATE, n DECIMAL(10,2), x DOUBLE, i INTEGER)");
    strata_stmt *s = prepare(db, "INSERT INTO t VALUES (?, ?, ?, ?)");
    cr_assert_eq(strata_bind_text(s, 1, "2024-02-29", -1), STRATA_OK); /* text is parsed as a DATE */
    cr_assert_eq(strata_bind_text(s, 2, "12.345", -1), STRATA_OK);
    cr_assert_eq(strata_bind_int64(s, 3, 3), STRATA_OK);
    cr_assert_eq(strata_bind_double(s, 4, 42.0), STRATA_OK);
    cr_assert_eq(strata_step(s), STRATA_DONE, "%s", strata_errmsg(db));
    strata_reset(s);
    /* an int64 where a DATE is expected is an error at step time */
    cr_assert_eq(strata_bind_int64(s, 1, 5), STRATA_OK);
    int rc = strata_step(s);
    cr_assert_neq(rc, STRATA_DONE, "an int64 bound to a DATE must fail");
    cr_assert_neq(rc, STRATA_ROW);
    cr_assert_str_neq(strata_errmsg(db), "not an error");
    strata_finalize(s);
    cr_assert_str_eq(query_text(db, "SELECT d FROM t"), "2024-02-29");
    cr_assert_str_eq(query_text(db, "SELECT n FROM t"), "12.35"); /* rounded to the column's scale */
    cr_assert_str_eq(query_text(db, "SELECT x FROM t"), "3");
    cr_assert_eq(query_int64(db, "SELECT i FROM t"), 42);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 1);
    strata_close(db);
}

Test(bind, running_statement_refuses_binding) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER); INSERT INTO t VALUES (1), (2), (3)");
    strata_stmt *s = prepare(db, "SELECT k FROM t WHERE k >= ? ORDER BY k");
    cr_assert_eq(strata_bind_int64(s, 1, 1), STRATA_OK);
    cr_assert_eq(strata_step(s), STRATA_ROW);
    cr_assert_eq(strata_bind_int64(s, 1, 3), STRATA_MISUSE);
    cr_assert_eq(strata_errcode(db), STRATA_MISUSE);
    cr_assert_eq(strata_bind_text(s, 1, "3", -1), STRATA_MISUSE);
    cr_assert_eq(strata_clear_bindings(s), STRATA_MISUSE);
    /* the running statement is unaffected */
    cr_assert_eq(strata_step(s), STRATA_ROW);
    cr_assert_eq(strata_column_int64(s, 0), 2);
    strata_reset(s);
    cr_assert_eq(strata_bind_int64(s, 1, 3), STRATA_OK);
    cr_assert_eq(strata_step(s), STRATA_ROW);
    cr_assert_eq(strata_column_int64(s, 0), 3);
    strata_finalize(s);
    strata_close(db);
}

Test(bind, null_statement_is_misuse) {
    cr_assert_eq(strata_bind_int64(NULL, 1, 1), STRATA_MISUSE);
    cr_assert_eq(strata_bind_null(NULL, 1), STRATA_MISUSE);
    cr_assert_eq(strata_bind_double(NULL, 1, 1), STRATA_MISUSE);
    cr_assert_eq(strata_bind_text(NULL, 1, "x", -1), STRATA_MISUSE);
    cr_assert_eq(strata_bind_blob(NULL, 1, "x", 1), STRATA_MISUSE);
    cr_assert_eq(strata_clear_bindings(NULL), STRATA_MISUSE);
    cr_assert_eq(strata_bind_parameter_count(NULL), 0);
}

/* ---- step, reset, finalize ---------------------------------------------------------------- */

TestSuite(step);

Test(step, rerun_after_reset_gives_same_rows) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR)");
    EXEC_OK(db, "INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 3000) AS s(g)");
    strata_stmt *s = prepare(db, "SELECT k, v FROM t WHERE k % 7 = 3 ORDER BY k DESC");
    int64_t first[500];
    int n1 = 0, rc;
    while ((rc = strata_step(s)) == STRATA_ROW) {
        cr_assert_lt(n1, 500);
        first[n1++] = strata_column_int64(s, 0);
    }
    cr_assert_eq(rc, STRATA_DONE, "%s", strata_errmsg(db));
    cr_assert_eq(n1, 429);
    cr_assert_eq(strata_reset(s), STRATA_OK);
    int n2 = 0;
    while ((rc = strata_step(s)) == STRATA_ROW) {
        cr_assert_lt(n2, n1);
        cr_assert_eq(strata_column_int64(s, 0), first[n2], "row %d differs on the second run", n2);
        n2++;
    }
    cr_assert_eq(rc, STRATA_DONE);
    cr_assert_eq(n2, n1);
    /* reset in the middle of a run, then a full run */
    strata_reset(s);
    cr_assert_eq(strata_step(s), STRATA_ROW);
    cr_assert_eq(strata_step(s), STRATA_ROW);
    cr_assert_eq(strata_reset(s), STRATA_OK);
    int n3 = 0;
    while (strata_step(s) == STRATA_ROW) n3++;
    cr_assert_eq(n3, n1);
    strata_finalize(s);
    strata_close(db);
}

Test(step, unfinished_read_does_not_block_writes_after_reset) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER)");
    EXEC_OK(db, "INSERT INTO t SELECT g FROM generate_series(1, 5000) AS s(g)");
    strata_stmt *s = prepare(db, "SELECT k FROM t");
    cr_assert_eq(strata_step(s), STRATA_ROW);
    strata_reset(s);
    EXEC_OK(db, "INSERT INTO t VALUES (0)");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 5001);
    strata_finalize(s);
    strata_close(db);
}

Test(step, write_runs_at_first_step_and_reruns_after_reset) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER)");
    strata_stmt *s = prepare(db, "INSERT INTO t VALUES (1)");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 0, "prepare must not run the statement");
    cr_assert_eq(strata_step(s), STRATA_DONE);
    strata_reset(s);
    cr_assert_eq(strata_step(s), STRATA_DONE);
    strata_finalize(s);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 2);
    strata_close(db);
}

Test(step, step_after_done_is_misuse) {
    strata_db *db = open_mem();
    strata_stmt *s = prepare(db, "SELECT 1");
    cr_assert_eq(strata_step(s), STRATA_ROW);
    cr_assert_eq(strata_step(s), STRATA_DONE);
    cr_assert_eq(strata_step(s), STRATA_MISUSE);
    cr_assert_eq(strata_errcode(db), STRATA_MISUSE);
    cr_assert_eq(strata_step(s), STRATA_MISUSE);
    strata_reset(s);
    cr_assert_eq(strata_step(s), STRATA_ROW);
    strata_finalize(s);
    strata_close(db);
}

Test(step, after_error_reset_runs_again) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER PRIMARY KEY)");
    strata_stmt *s = prepare(db, "INSERT INTO t VALUES (?)");
    strata_bind_int64(s, 1, 1);
    cr_assert_eq(strata_step(s), STRATA_DONE);
    strata_reset(s);
    int rc = strata_step(s);
    cr_assert_eq(rc, STRATA_CONSTRAINT, "duplicate key -> %d: %s", rc, strata_errmsg(db));
    cr_assert_eq(strata_errcode(db), STRATA_CONSTRAINT);
    cr_assert_eq(strata_reset(s), STRATA_OK);
    strata_bind_int64(s, 1, 2);
    cr_assert_eq(strata_step(s), STRATA_DONE, "%s", strata_errmsg(db));
    strata_finalize(s);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 2);
    strata_close(db);
}

/* A prepared write keeps its constraint checks, index upkeep and ON CONFLICT state between runs:
** each run checks and maintains as a fresh statement would, and an upsert's "same row twice"
** rule applies within one run only. */
Test(step, prepared_writes_rerun_with_checks_indexes_and_upserts) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, v INTEGER CHECK (v >= 0), w TEXT UNIQUE)");
    EXEC_OK(db, "CREATE INDEX t_v ON t(v)");
    strata_stmt *ins = prepare(db, "INSERT INTO t VALUES (?, ?, ?) RETURNING k + v");
    struct { int64_t k, v; const char *w; int rc; } runs[] = {
        {1, 10, "a", STRATA_ROW}, {2, -1, "b", STRATA_CONSTRAINT}, {3, 30, "a", STRATA_CONSTRAINT},
        {4, 40, "d", STRATA_ROW}, {1, 50, "e", STRATA_CONSTRAINT}, {5, 50, "e", STRATA_ROW},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        strata_reset(ins);
        strata_bind_int64(ins, 1, runs[i].k);
        strata_bind_int64(ins, 2, runs[i].v);
        strata_bind_text(ins, 3, runs[i].w, -1);
        int rc = strata_step(ins);
        cr_assert_eq(rc, runs[i].rc, "run %zu -> %d: %s", i, rc, strata_errmsg(db));
        if (rc == STRATA_ROW) {
            cr_assert_eq(strata_column_int64(ins, 0), runs[i].k + runs[i].v, "run %zu RETURNING", i);
            cr_assert_eq(strata_step(ins), STRATA_DONE);
        }
    }
    strata_finalize(ins);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 3);
    cr_assert_eq(query_int64(db, "SELECT sum(k) FROM t WHERE v >= 10"), 10); /* through the index */
    strata_stmt *up = prepare(db, "INSERT INTO t VALUES (?, 0, ?) ON CONFLICT (k) DO UPDATE SET v = t.v + 1");
    for (int i = 0; i < 3; i++) { /* the same key each run: allowed, once per run */
        strata_reset(up);
        strata_bind_int64(up, 1, 4);
        strata_bind_text(up, 2, "z", -1);
        cr_assert_eq(strata_step(up), STRATA_DONE, "upsert run %d: %s", i, strata_errmsg(db));
    }
    strata_finalize(up);
    cr_assert_eq(query_int64(db, "SELECT v FROM t WHERE k = 4"), 43);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t WHERE v = 43"), 1);
    strata_stmt *chk = prepare(db, "PRAGMA integrity_check");
    cr_assert_eq(strata_step(chk), STRATA_ROW);
    cr_assert_str_eq(strata_column_text(chk, 0), "ok");
    strata_finalize(chk);
    strata_close(db);
}

Test(step, runtime_error_is_reported) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER); INSERT INTO t VALUES (1), (0)");
    strata_stmt *s = prepare(db, "SELECT 10 / k FROM t ORDER BY k DESC");
    int rc;
    while ((rc = strata_step(s)) == STRATA_ROW) {
    }
    cr_assert_eq(rc, STRATA_ERROR, "division by zero -> %d", rc);
    cr_assert(strstr(strata_errmsg(db), "division by zero"), "%s", strata_errmsg(db));
    strata_finalize(s);
    strata_close(db);
}

Test(step, finalize_null_and_null_statement) {
    cr_assert_eq(strata_finalize(NULL), STRATA_OK);
    cr_assert_eq(strata_step(NULL), STRATA_MISUSE);
    cr_assert_eq(strata_reset(NULL), STRATA_MISUSE);
    cr_assert_eq(strata_column_count(NULL), 0);
    cr_assert_null(strata_column_name(NULL, 0));
    cr_assert_null(strata_column_text(NULL, 0));
    cr_assert_eq(strata_column_int64(NULL, 0), 0);
}

Test(step, finalize_mid_run_and_unstepped) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER)");
    EXEC_OK(db, "INSERT INTO t SELECT g FROM generate_series(1, 5000) AS s(g)");
    strata_stmt *a = prepare(db, "SELECT k FROM t ORDER BY k");
    strata_stmt *b = prepare(db, "SELECT k FROM t");
    cr_assert_eq(strata_step(a), STRATA_ROW);
    cr_assert_eq(strata_finalize(a), STRATA_OK);
    cr_assert_eq(strata_finalize(b), STRATA_OK);
    EXEC_OK(db, "DELETE FROM t");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 0);
    strata_close(db);
}

/* ---- columns ------------------------------------------------------------------------------ */

TestSuite(column);

Test(column, types_and_conversions) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(b BOOLEAN, s SMALLINT, i INTEGER, g BIGINT, d DOUBLE, n DECIMAL(10,2), "
                "v VARCHAR, bl BLOB, dt DATE, ts TIMESTAMP)");
    EXEC_OK(db, "INSERT INTO t VALUES (true, 7, -42, 9000000000, 2.5, 12345678.90, '12', X'00FF', "
                "DATE '2024-02-29', TIMESTAMP '2024-02-29 13:14:15')");
    strata_stmt *s = prepare(db, "SELECT * FROM t");
    cr_assert_eq(strata_column_count(s), 10);
    cr_assert_eq(strata_step(s), STRATA_ROW, "%s", strata_errmsg(db));

    int want_types[] = {STRATA_TYPE_BOOLEAN, STRATA_TYPE_SMALLINT, STRATA_TYPE_INTEGER, STRATA_TYPE_BIGINT,
                        STRATA_TYPE_DOUBLE,  STRATA_TYPE_DECIMAL,  STRATA_TYPE_VARCHAR, STRATA_TYPE_BLOB,
                        STRATA_TYPE_DATE,    STRATA_TYPE_TIMESTAMP};
    for (int c = 0; c < 10; c++) {
        cr_assert_eq(strata_column_type(s, c), want_types[c], "column %d type %d", c, strata_column_type(s, c));
        cr_assert_eq(strata_column_is_null(s, c), 0);
    }
    /* BOOLEAN reads as 0/1 and prints as true/false */
    cr_assert_eq(strata_column_int64(s, 0), 1);
    cr_assert_str_eq(strata_column_text(s, 0), "true");
    cr_assert_eq(strata_column_int64(s, 1), 7);
    cr_assert_eq(strata_column_int64(s, 2), -42);
    cr_assert_str_eq(strata_column_text(s, 2), "-42");
    cr_assert_float_eq(strata_column_double(s, 2), -42.0, 0);
    cr_assert_eq(strata_column_int64(s, 3), 9000000000LL);
    /* DOUBLE 2.5 -> 2 (round half to even, as CAST) */
    cr_assert_float_eq(strata_column_double(s, 4), 2.5, 0);
    cr_assert_eq(strata_column_int64(s, 4), 2);
    cr_assert_str_eq(strata_column_text(s, 4), "2.5");
    /* DECIMAL as text is exact; as double approximately; as int64 rounded */
    cr_assert_str_eq(strata_column_text(s, 5), "12345678.90");
    cr_assert_float_eq(strata_column_double(s, 5), 12345678.90, 1e-6);
    cr_assert_eq(strata_column_int64(s, 5), 12345679);
    /* VARCHAR '12' converts to 12 */
    cr_assert_str_eq(strata_column_text(s, 6), "12");
    cr_assert_eq(strata_column_int64(s, 6), 12);
    cr_assert_float_eq(strata_column_double(s, 6), 12.0, 0);
    cr_assert_eq(strata_column_bytes(s, 6), 2);
    cr_assert_eq(memcmp(strata_column_blob(s, 6), "12", 2), 0);
    /* BLOB */
    cr_assert_eq(strata_column_bytes(s, 7), 2);
    cr_assert_eq(memcmp(strata_column_blob(s, 7), "\x00\xff", 2), 0);
    cr_assert_str_eq(strata_column_text(s, 7), "\\x00ff");
    /* DATE: text YYYY-MM-DD, int64 days since 1970-01-01 */
    cr_assert_str_eq(strata_column_text(s, 8), "2024-02-29");
    cr_assert_eq(strata_column_int64(s, 8), 19782); /* days since 1970-01-01 */
    cr_assert_eq(strata_column_int64(s, 9), INT64_C(1709212455000000)); /* microseconds */
    /* blob of a non-string value is its text */
    cr_assert_eq(strata_column_bytes(s, 8), 10);
    cr_assert_eq(memcmp(strata_column_blob(s, 8), "2024-02-29", 10), 0);
    /* TIMESTAMP */
    cr_assert_str_eq(strata_column_text(s, 9), "2024-02-29 13:14:15");

    cr_assert_eq(strata_step(s), STRATA_DONE);
    strata_finalize(s);
    strata_close(db);
}

Test(column, decltype_names_postgres_types) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(b BOOLEAN, s SMALLINT, i INTEGER, g BIGINT, d DOUBLE, n DECIMAL(10,2), "
                "v VARCHAR, bl BLOB, dt DATE, ts TIMESTAMP)");
    strata_stmt *s = prepare(db, "SELECT * FROM t");
    const char *want[] = {"boolean",       "smallint",          "integer", "bigint", "double precision",
                          "numeric(10,2)", "character varying", "blob",    "date",   "timestamp"};
    for (int c = 0; c < 10; c++) {
        const char *d = strata_column_decltype(s, c);
        cr_assert_not_null(d);
        cr_assert_str_eq(d, want[c], "column %d", c);
    }
    strata_finalize(s);
    strata_close(db);
}

Test(column, rounding_of_doubles_to_int64) {
    strata_db *db = open_mem();
    strata_stmt *s = prepare(db, "SELECT 2.5::DOUBLE, 3.5::DOUBLE, -2.5::DOUBLE, 2.4999::DOUBLE, 1e300::DOUBLE");
    cr_assert_eq(strata_step(s), STRATA_ROW, "%s", strata_errmsg(db));
    cr_assert_eq(strata_column_int64(s, 0), 2);
    cr_assert_eq(strata_column_int64(s, 1), 4);
    cr_assert_eq(strata_column_int64(s, 2), -2);
    cr_assert_eq(strata_column_int64(s, 3), 2);
    /* out of range: 0 and STRATA_ERROR on the handle */
    cr_assert_eq(strata_column_int64(s, 4), 0);
    cr_assert_eq(strata_errcode(db), STRATA_ERROR);
    strata_finalize(s);
    strata_close(db);
}

Test(column, unconvertible_text_gives_zero_and_error) {
    strata_db *db = open_mem();
    strata_stmt *s = prepare(db, "SELECT 'abc', '2.75'");
    cr_assert_eq(strata_step(s), STRATA_ROW, "%s", strata_errmsg(db));
    cr_assert_eq(strata_errcode(db), STRATA_OK);
    cr_assert_eq(strata_column_int64(s, 0), 0);
    cr_assert_eq(strata_errcode(db), STRATA_ERROR);
    cr_assert_str_neq(strata_errmsg(db), "not an error");
    cr_assert_float_eq(strata_column_double(s, 0), 0.0, 0);
    cr_assert_float_eq(strata_column_double(s, 1), 2.75, 0);
    strata_finalize(s);
    strata_close(db);
}

Test(column, decimal_text_is_exact) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(n DECIMAL(18,4))");
    EXEC_OK(db, "INSERT INTO t VALUES (0.1), (-0.0001), (12345678901234.5678), (1.5)");
    strata_stmt *s = prepare(db, "SELECT n FROM t");
    const char *want[] = {"0.1000", "-0.0001", "12345678901234.5678", "1.5000"};
    for (int r = 0; r < 4; r++) {
        cr_assert_eq(strata_step(s), STRATA_ROW, "%s", strata_errmsg(db));
        cr_assert_str_eq(strata_column_text(s, 0), want[r]);
    }
    cr_assert_eq(strata_step(s), STRATA_DONE);
    strata_finalize(s);
    cr_assert_str_eq(query_text(db, "SELECT sum(n) FROM t"), "12345678901236.1677");
    strata_close(db);
}

Test(column, null_values) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(i INTEGER, v VARCHAR, d DATE, b BLOB)");
    EXEC_OK(db, "INSERT INTO t VALUES (NULL, NULL, NULL, NULL)");
    strata_stmt *s = prepare(db, "SELECT * FROM t");
    cr_assert_eq(strata_step(s), STRATA_ROW);
    for (int c = 0; c < 4; c++) {
        cr_assert_eq(strata_column_is_null(s, c), 1);
        cr_assert_eq(strata_column_type(s, c), STRATA_TYPE_NULL);
        cr_assert_null(strata_column_text(s, c));
        cr_assert_null(strata_column_blob(s, c));
        cr_assert_eq(strata_column_bytes(s, c), 0);
        cr_assert_eq(strata_column_int64(s, c), 0);
        cr_assert_float_eq(strata_column_double(s, c), 0.0, 0);
    }
    /* the declared type is still known */
    cr_assert_str_eq(strata_column_decltype(s, 2), "date");
    strata_finalize(s);
    strata_close(db);
}

Test(column, text_stays_valid_until_next_step) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(a VARCHAR, b INTEGER)");
    EXEC_OK(db, "INSERT INTO t VALUES ('first value that is long enough not to be inlined', 1)");
    strata_stmt *s = prepare(db, "SELECT a, b FROM t");
    cr_assert_eq(strata_step(s), STRATA_ROW);
    const char *a = strata_column_text(s, 0);
    const char *b = strata_column_text(s, 1);
    /* reading other columns, or the same one again, does not invalidate it */
    (void)strata_column_int64(s, 1);
    (void)strata_column_text(s, 0);
    (void)strata_column_blob(s, 0);
    cr_assert_str_eq(a, "first value that is long enough not to be inlined");
    cr_assert_str_eq(b, "1");
    strata_finalize(s);
    strata_close(db);
}

Test(column, index_out_of_range_is_misuse) {
    strata_db *db = open_mem();
    strata_stmt *s = prepare(db, "SELECT 1, 'x'");
    cr_assert_null(strata_column_name(s, 2));
    cr_assert_eq(strata_errcode(db), STRATA_MISUSE);
    cr_assert_null(strata_column_decltype(s, -1));
    cr_assert_eq(strata_step(s), STRATA_ROW);
    int bad[] = {-1, 2, 1000, INT32_MIN};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        int i = bad[k];
        cr_assert_null(strata_column_name(s, i));
        cr_assert_null(strata_column_text(s, i));
        cr_assert_null(strata_column_blob(s, i));
        cr_assert_eq(strata_column_bytes(s, i), 0);
        cr_assert_eq(strata_column_int64(s, i), 0);
        cr_assert_float_eq(strata_column_double(s, i), 0.0, 0);
        cr_assert_eq(strata_column_type(s, i), STRATA_TYPE_NULL);
        cr_assert_eq(strata_errcode(db), STRATA_MISUSE);
    }
    /* the row is still readable */
    cr_assert_eq(strata_column_int64(s, 0), 1);
    cr_assert_str_eq(strata_column_text(s, 1), "x");
    strata_finalize(s);
    strata_close(db);
}

Test(column, no_current_row_is_misuse) {
    strata_db *db = open_mem();
    strata_stmt *s = prepare(db, "SELECT 1");
    /* before the first step */
    cr_assert_null(strata_column_text(s, 0));
    cr_assert_eq(strata_column_int64(s, 0), 0);
    cr_assert_eq(strata_errcode(db), STRATA_MISUSE);
    cr_assert_eq(strata_step(s), STRATA_ROW);
    cr_assert_eq(strata_step(s), STRATA_DONE);
    /* after the last */
    cr_assert_null(strata_column_text(s, 0));
    cr_assert_null(strata_column_blob(s, 0));
    cr_assert_eq(strata_column_is_null(s, 0), 1);
    strata_finalize(s);
    /* a statement without columns */
    EXEC_OK(db, "CREATE TABLE t(x INTEGER)");
    s = prepare(db, "INSERT INTO t VALUES (1)");
    cr_assert_eq(strata_step(s), STRATA_DONE);
    cr_assert_null(strata_column_text(s, 0));
    cr_assert_null(strata_column_name(s, 0));
    strata_finalize(s);
    strata_close(db);
}

Test(column, expression_columns) {
    strata_db *db = open_mem();
    strata_stmt *s = prepare(db, "SELECT 1 + 2 AS three, 'a' || 'b', NULL, 7 / 2, 7.0 / 2, DATE '2024-01-31' + 1");
    cr_assert_eq(strata_step(s), STRATA_ROW, "%s", strata_errmsg(db));
    cr_assert_str_eq(strata_column_name(s, 0), "three");
    cr_assert_eq(strata_column_int64(s, 0), 3);
    cr_assert_str_eq(strata_column_text(s, 1), "ab");
    cr_assert_eq(strata_column_is_null(s, 2), 1);
    cr_assert_eq(strata_column_int64(s, 3), 3, "integer division");
    cr_assert_float_eq(strata_column_double(s, 4), 3.5, 0);
    cr_assert_str_eq(strata_column_text(s, 5), "2024-02-01");
    strata_finalize(s);
    strata_close(db);
}

/* ---- changes ------------------------------------------------------------------------------ */

TestSuite(changes);

Test(changes, counts_rows_of_last_write) {
    strata_db *db = open_mem();
    cr_assert_eq(strata_changes(db), 0);
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR)");
    EXEC_OK(db, "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')");
    cr_assert_eq(strata_changes(db), 4);
    EXEC_OK(db, "UPDATE t SET v = 'x' WHERE k >= 3");
    cr_assert_eq(strata_changes(db), 2);
    EXEC_OK(db, "UPDATE t SET v = 'y' WHERE k > 100");
    cr_assert_eq(strata_changes(db), 0);
    EXEC_OK(db, "DELETE FROM t WHERE k = 1");
    cr_assert_eq(strata_changes(db), 1);
    EXEC_OK(db, "INSERT INTO t SELECT g, 'g' FROM generate_series(10, 5009) AS s(g)");
    cr_assert_eq(strata_changes(db), 5000);
    /* a query does not change the count */
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 5003);
    cr_assert_eq(strata_changes(db), 5000);
    EXEC_OK(db, "DELETE FROM t");
    cr_assert_eq(strata_changes(db), 5003);
    cr_assert_eq(strata_changes(NULL), 0);
    strata_close(db);
}

Test(changes, prepared_insert_counts_each_run) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER)");
    strata_stmt *s = prepare(db, "INSERT INTO t VALUES (?), (?)");
    strata_bind_int64(s, 1, 1);
    strata_bind_int64(s, 2, 2);
    cr_assert_eq(strata_step(s), STRATA_DONE);
    cr_assert_eq(strata_changes(db), 2);
    strata_finalize(s);
    strata_close(db);
}

/* ---- chunks ------------------------------------------------------------------------------- */

TestSuite(chunk);

#define NROWS 5000

static strata_db *chunk_db(void) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(i INTEGER, g BIGINT, d DOUBLE, v VARCHAR, n DECIMAL(10,2), dt DATE, b BOOLEAN, "
                "s SMALLINT)");
    /* every 10th row has NULLs in all columns but i */
    EXEC_OK(db, "INSERT INTO t SELECT x, CASE WHEN x % 10 = 0 THEN NULL ELSE x * 1000000000 END, "
                "CASE WHEN x % 10 = 0 THEN NULL ELSE x / 4.0 END, "
                "CASE WHEN x % 10 = 0 THEN NULL ELSE 'row ' || x END, "
                "CASE WHEN x % 10 = 0 THEN NULL ELSE x + 0.25 END, "
                "CASE WHEN x % 10 = 0 THEN NULL ELSE DATE '2000-01-01' + x END, "
                "CASE WHEN x % 10 = 0 THEN NULL ELSE x % 2 = 0 END, "
                "CASE WHEN x % 10 = 0 THEN NULL ELSE x % 1000 END "
                "FROM generate_series(1, 5000) AS s(x)");
    return db;
}

Test(chunk, typed_columns_validity_and_several_chunks) {
    strata_db *db = chunk_db();
    strata_stmt *s = prepare(db, "SELECT i, g, d, v, n, dt, b, s FROM t ORDER BY i");
    strata_chunk *c;
    int rc, nchunks = 0;
    int64_t seen = 0;
    while ((rc = strata_fetch_chunk(s, &c)) == STRATA_ROW) {
        cr_assert_not_null(c);
        int n = strata_chunk_count(c);
        cr_assert(n > 0 && n <= 2048, "chunk of %d rows", n);
        nchunks++;
        cr_assert_eq(strata_chunk_column_type(c, 0), STRATA_TYPE_INTEGER);
        cr_assert_eq(strata_chunk_column_type(c, 1), STRATA_TYPE_BIGINT);
        cr_assert_eq(strata_chunk_column_type(c, 2), STRATA_TYPE_DOUBLE);
        cr_assert_eq(strata_chunk_column_type(c, 3), STRATA_TYPE_VARCHAR);
        cr_assert_eq(strata_chunk_column_type(c, 4), STRATA_TYPE_DECIMAL);
        cr_assert_eq(strata_chunk_scale(c, 4), 2);
        cr_assert_eq(strata_chunk_column_type(c, 5), STRATA_TYPE_DATE);
        cr_assert_eq(strata_chunk_column_type(c, 6), STRATA_TYPE_BOOLEAN);
        cr_assert_eq(strata_chunk_column_type(c, 7), STRATA_TYPE_SMALLINT);
        const int32_t *ci = strata_chunk_data(c, 0);
        const int64_t *cg = strata_chunk_data(c, 1);
        const double *cd = strata_chunk_data(c, 2);
        const int64_t *cn = strata_chunk_data(c, 4);
        const int32_t *cdt = strata_chunk_data(c, 5);
        const uint8_t *cb = strata_chunk_data(c, 6);
        const int16_t *cs = strata_chunk_data(c, 7);
        cr_assert(ci && cg && cd && cn && cdt && cb && cs);
        for (int r = 0; r < n; r++) {
            int64_t x = seen + r + 1;
            cr_assert_eq(strata_chunk_is_null(c, 0, r), 0);
            cr_assert_eq(ci[r], x, "row %lld: i = %d", (long long)x, ci[r]);
            int null = x % 10 == 0;
            for (int col = 1; col < 8; col++)
                cr_assert_eq(strata_chunk_is_null(c, col, r), null, "row %lld col %d validity", (long long)x, col);
            int len = -1;
            const char *t = strata_chunk_text(c, 3, r, &len);
            if (null) {
                cr_assert_null(t);
                continue;
            }
            cr_assert_eq(cg[r], x * 1000000000LL);
            cr_assert_float_eq(cd[r], (double)x / 4.0, 1e-12);
            char want[32];
            int wl = snprintf(want, sizeof want, "row %lld", (long long)x);
            cr_assert_eq(len, wl);
            cr_assert_eq(memcmp(t, want, (size_t)wl), 0);
            cr_assert_eq(cn[r], x * 100 + 25);
            cr_assert_eq(cdt[r], 10957 + x); /* 2000-01-01 is day 10957 */
            cr_assert_eq(cb[r], x % 2 == 0);
            cr_assert_eq(cs[r], x % 1000);
        }
        seen += n;
    }
    cr_assert_eq(rc, STRATA_DONE, "%d: %s", rc, strata_errmsg(db));
    cr_assert_null(c);
    cr_assert_eq(seen, NROWS);
    cr_assert_geq(nchunks, 3, "5000 rows in chunks of at most 2048 need at least 3 chunks");
    /* after DONE, again DONE */
    cr_assert_eq(strata_fetch_chunk(s, &c), STRATA_DONE);
    cr_assert_null(c);
    /* reset: a new run by chunks */
    strata_reset(s);
    seen = 0;
    while (strata_fetch_chunk(s, &c) == STRATA_ROW) seen += strata_chunk_count(c);
    cr_assert_eq(seen, NROWS);
    strata_finalize(s);
    strata_close(db);
}

Test(chunk, text_rendering_of_non_string_columns) {
    strata_db *db = chunk_db();
    strata_stmt *s = prepare(db, "SELECT n, dt, b FROM t WHERE i = 3");
    strata_chunk *c;
    cr_assert_eq(strata_fetch_chunk(s, &c), STRATA_ROW, "%s", strata_errmsg(db));
    cr_assert_eq(strata_chunk_count(c), 1);
    int len;
    const char *t = strata_chunk_text(c, 0, 0, &len);
    cr_assert(t && len == 4 && memcmp(t, "3.25", 4) == 0, "decimal text \"%.*s\"", len, t ? t : "");
    t = strata_chunk_text(c, 1, 0, &len);
    cr_assert(t && len == 10 && memcmp(t, "2000-01-04", 10) == 0, "date text \"%.*s\"", len, t ? t : "");
    t = strata_chunk_text(c, 2, 0, &len);
    cr_assert(t && len == 5 && memcmp(t, "false", 5) == 0, "bool text \"%.*s\"", len, t ? t : "");
    /* out of range in a chunk: NULL / defaults, never a crash */
    cr_assert_null(strata_chunk_text(c, 5, 0, &len));
    cr_assert_null(strata_chunk_text(c, 0, 1, &len));
    cr_assert_null(strata_chunk_text(c, -1, 0, NULL));
    cr_assert_null(strata_chunk_data(c, 3));
    cr_assert_eq(strata_chunk_is_null(c, 0, 7), 1);
    cr_assert_eq(strata_chunk_column_type(c, 9), STRATA_TYPE_NULL);
    cr_assert_eq(strata_fetch_chunk(s, &c), STRATA_DONE);
    strata_finalize(s);
    strata_close(db);
}

Test(chunk, empty_result) {
    strata_db *db = chunk_db();
    strata_stmt *s = prepare(db, "SELECT i FROM t WHERE i < 0");
    strata_chunk *c = (strata_chunk *)1;
    cr_assert_eq(strata_fetch_chunk(s, &c), STRATA_DONE);
    cr_assert_null(c);
    strata_finalize(s);
    strata_close(db);
}

Test(chunk, mixing_with_step_is_misuse) {
    strata_db *db = chunk_db();
    strata_stmt *s = prepare(db, "SELECT i FROM t");
    strata_chunk *c;
    cr_assert_eq(strata_step(s), STRATA_ROW);
    cr_assert_eq(strata_fetch_chunk(s, &c), STRATA_MISUSE);
    cr_assert_null(c);
    cr_assert_eq(strata_errcode(db), STRATA_MISUSE);
    /* stepping goes on */
    cr_assert_eq(strata_step(s), STRATA_ROW);
    cr_assert_eq(strata_column_int64(s, 0), 2);
    strata_reset(s);

    cr_assert_eq(strata_fetch_chunk(s, &c), STRATA_ROW);
    cr_assert_eq(strata_step(s), STRATA_MISUSE);
    int64_t seen = strata_chunk_count(c);
    while (strata_fetch_chunk(s, &c) == STRATA_ROW) seen += strata_chunk_count(c);
    cr_assert_eq(seen, NROWS);
    strata_reset(s);
    /* after a reset, stepping is allowed again */
    cr_assert_eq(strata_step(s), STRATA_ROW);
    strata_finalize(s);
    cr_assert_eq(strata_fetch_chunk(NULL, &c), STRATA_MISUSE);
    strata_close(db);
}

Test(chunk, runtime_error_in_chunk_fetch) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER); INSERT INTO t VALUES (1), (0)");
    strata_stmt *s = prepare(db, "SELECT 10 / k FROM t");
    strata_chunk *c;
    int rc;
    while ((rc = strata_fetch_chunk(s, &c)) == STRATA_ROW) {
    }
    cr_assert_eq(rc, STRATA_ERROR);
    cr_assert(strstr(strata_errmsg(db), "division by zero"), "%s", strata_errmsg(db));
    strata_finalize(s);
    strata_close(db);
}

/* ---- errors ------------------------------------------------------------------------------- */

TestSuite(errors);

Test(errors, initially_not_an_error) {
    strata_db *db = open_mem();
    cr_assert_eq(strata_errcode(db), STRATA_OK);
    cr_assert_str_eq(strata_errmsg(db), "not an error");
    strata_close(db);
}

Test(errors, syntax_error_has_position_and_caret) {
    strata_db *db = open_mem();
    int rc = strata_exec(db, "SELECT 1,\n  2 FROM WHERE x", NULL, NULL);
    cr_assert_eq(rc, STRATA_ERROR);
    const char *m = strata_errmsg(db);
    cr_assert(strstr(m, "line 2, column 10") != NULL, "message without the position: %s", m);
    cr_assert(strstr(m, "\n  2 FROM WHERE x") != NULL, "message without the statement's line: %s", m);
    /* the caret sits under WHERE: column 10 of the line */
    const char *caret = strstr(m, "\n         ^");
    cr_assert(caret != NULL, "message without a caret under the position: %s", m);
    strata_close(db);
}

Test(errors, misspelled_column_suggests) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE people(id INTEGER, name VARCHAR)");
    int rc = strata_exec(db, "SELECT nme FROM people", NULL, NULL);
    cr_assert_eq(rc, STRATA_ERROR);
    cr_assert_eq(strata_errcode(db), STRATA_ERROR);
    const char *m = strata_errmsg(db);
    cr_assert(strstr(m, "line 1, column 8") != NULL, "%s", m);
    cr_assert(strstr(m, "column \"nme\" does not exist (did you mean \"name\"?)") != NULL, "%s", m);
    cr_assert(strstr(m, "^") != NULL, "%s", m);
    rc = strata_exec(db, "SELECT * FROM peeple", NULL, NULL);
    cr_assert_eq(rc, STRATA_ERROR);
    cr_assert(strstr(strata_errmsg(db), "did you mean \"people\"") != NULL, "%s", strata_errmsg(db));
    strata_close(db);
}

Test(errors, success_does_not_clear_the_error) {
    strata_db *db = open_mem();
    cr_assert_eq(strata_exec(db, "SELECT nosuchcolumn", NULL, NULL), STRATA_ERROR);
    char saved[512];
    snprintf(saved, sizeof saved, "%s", strata_errmsg(db));
    EXEC_OK(db, "SELECT 1");
    cr_assert_eq(strata_errcode(db), STRATA_ERROR);
    cr_assert_str_eq(strata_errmsg(db), saved);
    strata_close(db);
}

Test(errors, constraint_violation_names_the_constraint) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, v VARCHAR NOT NULL)");
    EXEC_OK(db, "INSERT INTO t VALUES (1, 'a')");
    cr_assert_eq(strata_exec(db, "INSERT INTO t VALUES (1, 'b')", NULL, NULL), STRATA_CONSTRAINT);
    cr_assert_eq(strata_errcode(db), STRATA_CONSTRAINT);
    cr_assert_eq(strata_exec(db, "INSERT INTO t VALUES (2, NULL)", NULL, NULL), STRATA_CONSTRAINT);
    cr_assert(strstr(strata_errmsg(db), "\"v\"") != NULL, "%s", strata_errmsg(db));
    /* a failing multi-row INSERT changes nothing */
    cr_assert_eq(strata_exec(db, "INSERT INTO t VALUES (3, 'c'), (1, 'dup')", NULL, NULL), STRATA_CONSTRAINT);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 1);
    strata_close(db);
}

Test(errors, errcode_of_null_handle) {
    cr_assert_eq(strata_errcode(NULL), STRATA_MISUSE);
    cr_assert_not_null(strata_errmsg(NULL));
}

/* ---- transactions and durability ---------------------------------------------------------- */

TestSuite(durability, .init = make_dir, .fini = remove_dir);

Test(durability, committed_insert_survives_reopen) {
    strata_db *db = open_file(dbpath);
    EXEC_OK(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, v VARCHAR)");
    EXEC_OK(db, "BEGIN");
    EXEC_OK(db, "INSERT INTO t VALUES (1, 'a')");
    EXEC_OK(db, "INSERT INTO t VALUES (2, 'b')");
    EXEC_OK(db, "COMMIT");
    strata_stmt *s = prepare(db, "INSERT INTO t VALUES (?, 'p')");
    strata_bind_int64(s, 1, 3);
    cr_assert_eq(strata_step(s), STRATA_DONE);
    strata_finalize(s);
    strata_close(db);
    db = open_file(dbpath);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 3);
    cr_assert_str_eq(query_text(db, "SELECT v FROM t WHERE k = 2"), "b");
    strata_close(db);
}

Test(durability, rolled_back_insert_is_gone) {
    strata_db *db = open_file(dbpath);
    EXEC_OK(db, "CREATE TABLE t(k INTEGER)");
    EXEC_OK(db, "INSERT INTO t VALUES (1)");
    EXEC_OK(db, "BEGIN");
    EXEC_OK(db, "INSERT INTO t VALUES (2)");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 2, "the transaction sees its own write");
    EXEC_OK(db, "ROLLBACK");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 1);
    strata_close(db);
    db = open_file(dbpath);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 1);
    strata_close(db);
}

Test(durability, open_transaction_is_rolled_back_by_close) {
    strata_db *db = open_file(dbpath);
    EXEC_OK(db, "CREATE TABLE t(k INTEGER)");
    EXEC_OK(db, "BEGIN; INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)");
    cr_assert_eq(strata_close(db), STRATA_OK);
    db = open_file(dbpath);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 0);
    strata_close(db);
}

Test(durability, ddl_is_transactional) {
    strata_db *db = open_file(dbpath);
    EXEC_OK(db, "BEGIN; CREATE TABLE t(k INTEGER); INSERT INTO t VALUES (1); ROLLBACK");
    cr_assert_eq(strata_exec(db, "SELECT * FROM t", NULL, NULL), STRATA_ERROR);
    EXEC_OK(db, "BEGIN; CREATE TABLE t(k INTEGER); INSERT INTO t VALUES (1); COMMIT");
    strata_close(db);
    db = open_file(dbpath);
    cr_assert_eq(query_int64(db, "SELECT k FROM t"), 1);
    strata_close(db);
}

Test(durability, a_failing_statement_inside_begin_leaves_no_trace) {
    strata_db *db = open_file(dbpath);
    EXEC_OK(db, "CREATE TABLE t(k INTEGER PRIMARY KEY)");
    EXEC_OK(db, "INSERT INTO t VALUES (1)");
    EXEC_OK(db, "BEGIN");
    EXEC_OK(db, "INSERT INTO t VALUES (2)");
    /* the second row conflicts after the first was written: neither stays */
    cr_assert_eq(strata_exec(db, "INSERT INTO t VALUES (9), (1)", NULL, NULL), STRATA_CONSTRAINT);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t WHERE k = 9"), 0);
    /* the transaction goes on */
    EXEC_OK(db, "INSERT INTO t VALUES (3)");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 3);
    EXEC_OK(db, "COMMIT");
    strata_close(db);
    db = open_file(dbpath);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 3);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t WHERE k = 9"), 0);
    strata_close(db);
}

Test(durability, errors_at_prepare_and_in_reads_do_not_end_a_transaction) {
    strata_db *db = open_file(dbpath);
    EXEC_OK(db, "CREATE TABLE t(k INTEGER)");
    EXEC_OK(db, "BEGIN; INSERT INTO t VALUES (1)");
    cr_assert_eq(strata_exec(db, "SELECT nosuch FROM t", NULL, NULL), STRATA_ERROR);
    strata_stmt *s = prepare(db, "SELECT 1 / (k - 1) FROM t");
    cr_assert_eq(strata_step(s), STRATA_ERROR);
    strata_finalize(s);
    EXEC_OK(db, "INSERT INTO t VALUES (2)");
    EXEC_OK(db, "COMMIT");
    strata_close(db);
    db = open_file(dbpath);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 2);
    strata_close(db);
}

Test(durability, a_failing_update_inside_begin_is_undone_with_its_index_entries) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, v INTEGER UNIQUE);"
                "INSERT INTO t SELECT n, n FROM generate_series(1, 3000) AS g(n)");
    EXEC_OK(db, "BEGIN");
    EXEC_OK(db, "DELETE FROM t WHERE k > 2900");
    /* v + 1 collides with the next row's v partway through: the rows already changed go back */
    cr_assert_eq(strata_exec(db, "UPDATE t SET v = v + 1 WHERE k <= 2000", NULL, NULL), STRATA_CONSTRAINT);
    cr_assert_eq(query_int64(db, "SELECT sum(v) FROM t"), (int64_t)2900 * 2901 / 2);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t WHERE v = 5"), 1);
    EXEC_OK(db, "COMMIT");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 2900);
    static char out[256];
    strata_stmt *s = prepare(db, "PRAGMA integrity_check");
    cr_assert_eq(strata_step(s), STRATA_ROW);
    snprintf(out, sizeof out, "%s", strata_column_text(s, 0));
    strata_finalize(s);
    cr_assert_str_eq(out, "ok");
    strata_close(db);
}

Test(durability, transaction_control_errors) {
    strata_db *db = open_mem();
    cr_assert_eq(strata_exec(db, "COMMIT", NULL, NULL), STRATA_ERROR);
    cr_assert_eq(strata_exec(db, "ROLLBACK", NULL, NULL), STRATA_ERROR);
    EXEC_OK(db, "BEGIN");
    cr_assert_eq(strata_exec(db, "BEGIN", NULL, NULL), STRATA_ERROR);
    /* a nested BEGIN is an error, but it does not abort the transaction */
    EXEC_OK(db, "CREATE TABLE t(k INTEGER)");
    EXEC_OK(db, "COMMIT");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 0);
    strata_close(db);
}

Test(durability, many_reopens_keep_everything) {
    for (int round = 0; round < 5; round++) {
        strata_db *db = open_file(dbpath);
        if (round == 0) EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR)");
        strata_stmt *s = prepare(db, "INSERT INTO t VALUES (?, ?)");
        EXEC_OK(db, "BEGIN");
        for (int i = 0; i < 200; i++) {
            char v[64];
            snprintf(v, sizeof v, "round %d row %d", round, i);
            strata_bind_int64(s, 1, round * 1000 + i);
            strata_bind_text(s, 2, v, -1);
            cr_assert_eq(strata_step(s), STRATA_DONE, "%s", strata_errmsg(db));
            strata_reset(s);
        }
        EXEC_OK(db, "COMMIT");
        strata_finalize(s);
        cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), (round + 1) * 200);
        strata_close(db);
    }
    strata_db *db = open_file(dbpath);
    cr_assert_str_eq(query_text(db, "SELECT v FROM t WHERE k = 3150"), "round 3 row 150");
    strata_close(db);
}
