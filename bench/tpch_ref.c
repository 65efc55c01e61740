/*
** tpch_ref.c -- the tpch-ref program: expected results of the 22 TPC-H queries from SQLite,
** cross-checked against DuckDB, for the comparison of strata's answers (tpch-run -c, the test
** tests/datasets/test_tpch_expected.c, `make tpch-check`).
**
**   tpch-ref -s SF -o OUTDIR [-d TBLDIR] [-q DIR] [-Q DIR] [-k]
**
** loads the eight .tbl files of the project's generator at SF (from TBLDIR, default
** bench/tmp/tpch-sf<SF>, written there by the generator when missing) into a fresh SQLite
** database and runs DIR/q01.sql .. q22.sql (default datasets/tpch/sqlite: the dialect-adapted
** copies), writing each result to OUTDIR/qNN.txt (tpch_check.h: the format). Then, when DuckDB's
** library is there (engine_duckdb.c: bench/deps or $STRATA_DUCKDB_LIB), it loads the same files
** into DuckDB, runs the original queries (-Q, default datasets/tpch/queries) and compares each
** result with SQLite's by tpch_check.h's rule, printing every disagreement. Exit status 0, 1 when
** the engines disagree or something fails, 2 on a usage error.
**
** SQLite: datasets/tpch/schema.sql verbatim (DECIMAL columns get NUMERIC affinity: REAL values,
** or INTEGER where a value has no fraction; dates are ISO text), every field bound as text (the
** affinity converts it), journal_mode=OFF and synchronous=OFF (a reference database, made again
** on every run), `PRAGMA case_sensitive_like = ON` (the spec's LIKE is case-sensitive; SQLite's
** is not by default), and indexes on the foreign keys the correlated subqueries of Q2, Q4, Q17,
** Q20, Q21 and Q22 look up (they change no result, and without them Q17 and Q20 scan lineitem
** once per outer row). DuckDB: the same schema, `COPY <table> FROM '<file>' (DELIMITER '|',
** HEADER false)`, in memory.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "engine.h"
#include "tpch_check.h"
#include "tpch_gen.h"

#define SCHEMA_PATH "datasets/tpch/schema.sql"
#define SQLITE_QUERIES "datasets/tpch/sqlite"
#define ORIGINAL_QUERIES "datasets/tpch/queries"
#define MAX_COLUMNS 64

/* Indexes for SQLite's correlated subqueries (see the file's comment). */
static const char *const sqlite_indexes = "CREATE INDEX ref_l_part_supp ON lineitem(l_partkey, l_suppkey);"
                                          "CREATE INDEX ref_o_cust ON orders(o_custkey);"
                                          "CREATE INDEX ref_ps_supp ON partsupp(ps_suppkey);";

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void fail(const char *fmt, const char *a, const char *b) {
    fprintf(stderr, "tpch-ref: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    exit(1);
}

/* ---- the data ------------------------------------------------------------------------------ */

static void tbl_path(char *out, size_t n, const char *dir, int t) {
    snprintf(out, n, "%s/%s.tbl", dir, tpch_table_name((tpch_table)t));
}

/* make_dirs makes dir and its missing parents (mkdir -p). */
static void make_dirs(const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1;; p++) {
        int end = *p == '\0';
        if (*p != '/' && !end) continue;
        *p = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST) fail("mkdir %s: %s", path, strerror(errno));
        if (end) return;
        *p = '/';
    }
}

/* make_files writes the tables' .tbl files that are missing from dir (made when missing). */
static void make_files(const char *dir, double sf) {
    char path[4300], tmp[4400];
    make_dirs(dir);
    for (int t = 0; t < TPCH_TABLE_COUNT; t++) {
        tbl_path(path, sizeof path, dir, t);
        if (access(path, R_OK) == 0) continue;
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        FILE *f = fopen(tmp, "w");
        if (f == NULL) fail("cannot write %s: %s", tmp, strerror(errno));
        if (tpch_write_tbl((tpch_table)t, sf, f, NULL) != 0 || fclose(f) != 0 || rename(tmp, path) != 0)
            fail("cannot write %s%s", path, "");
    }
}

/* ---- SQLite ------------------------------------------------------------------------------ */

static void sqlite_exec(sqlite3 *db, const char *sql) {
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) fail("SQLite: %s: %s", err, sql);
}

/* Loads table t's file: every field of a line (ended by '|') bound as text to a prepared INSERT. */
static void sqlite_load_table(sqlite3 *db, const char *dir, int t) {
    char path[4300], sql[512], line[TPCH_LINE_MAX + 2];
    int ncols = tpch_table_columns((tpch_table)t);
    int n = snprintf(sql, sizeof sql, "INSERT INTO %s VALUES (", tpch_table_name((tpch_table)t));
    for (int i = 0; i < ncols; i++)
        n += snprintf(sql + n, sizeof sql - (size_t)n, i ? ", ?" : "?");
    snprintf(sql + n, sizeof sql - (size_t)n, ")");
    sqlite3_stmt *ins;
    if (sqlite3_prepare_v2(db, sql, -1, &ins, NULL) != SQLITE_OK)
        fail("SQLite: %s: %s", sqlite3_errmsg(db), sql);
    tbl_path(path, sizeof path, dir, t);
    FILE *f = fopen(path, "r");
    if (f == NULL) fail("cannot read %s: %s", path, strerror(errno));
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        for (int i = 1; i <= ncols; i++) {
            char *end = strchr(p, '|');
            if (end == NULL) fail("%s: a line with too few fields: %s", path, line);
            sqlite3_bind_text(ins, i, p, (int)(end - p), SQLITE_STATIC);
            p = end + 1;
        }
        if (sqlite3_step(ins) != SQLITE_DONE || sqlite3_reset(ins) != SQLITE_OK)
            fail("SQLite: %s (%s)", sqlite3_errmsg(db), path);
    }
    fclose(f);
    sqlite3_finalize(ins);
}

static sqlite3 *sqlite_load(const char *path, const char *dir, const char *schema) {
    sqlite3 *db;
    unlink(path);
    if (sqlite3_open(path, &db) != SQLITE_OK) fail("SQLite: cannot open %s: %s", path, sqlite3_errmsg(db));
    sqlite_exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -262144;"
                    "PRAGMA case_sensitive_like = ON; BEGIN");
    sqlite_exec(db, schema);
    for (int t = 0; t < TPCH_TABLE_COUNT; t++)
        sqlite_load_table(db, dir, t);
    sqlite_exec(db, sqlite_indexes);
    sqlite_exec(db, "COMMIT; ANALYZE");
    return db;
}

/* Runs the statements of sql; the last one's rows go into *r. */
static void sqlite_query(sqlite3 *db, const char *sql, const char *name, tpch_result *r) {
    const char *tail = sql;
    memset(r, 0, sizeof *r);
    while (*tail) {
        sqlite3_stmt *s = NULL;
        if (sqlite3_prepare_v2(db, tail, -1, &s, &tail) != SQLITE_OK)
            fail("SQLite %s: %s", name, sqlite3_errmsg(db));
        if (s == NULL) break;
        int ncols = sqlite3_column_count(s);
        if (ncols > MAX_COLUMNS) fail("%s: too many columns%s", name, "");
        const char *names[MAX_COLUMNS], *values[MAX_COLUMNS];
        for (int i = 0; i < ncols; i++)
            names[i] = sqlite3_column_name(s, i);
        tpch_result_free(r);
        if (tpch_result_init(r, ncols, names)) fail("out of memory%s%s", "", "");
        int rc;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
            for (int i = 0; i < ncols; i++)
                values[i] = (const char *)sqlite3_column_text(s, i);
            if (tpch_result_add(r, values, NULL)) fail("out of memory%s%s", "", "");
        }
        if (rc != SQLITE_DONE) fail("SQLite %s: %s", name, sqlite3_errmsg(db));
        sqlite3_finalize(s);
    }
}

/* ---- DuckDB (engine_duckdb.c) -------------------------------------------------------------- */

static void *duckdb_load(const engine *e, const char *dir, const char *schema) {
    void *db = NULL;
    char sql[4600], path[4300];
    if (e->open(":memory:", &db)) fail("DuckDB: %s%s", e->errmsg(db), "");
    if (e->exec(db, schema)) fail("DuckDB: %s: %s", e->errmsg(db), SCHEMA_PATH);
    for (int t = 0; t < TPCH_TABLE_COUNT; t++) {
        tbl_path(path, sizeof path, dir, t);
        snprintf(sql, sizeof sql, "COPY %s FROM '%s' (DELIMITER '|', HEADER false)",
                 tpch_table_name((tpch_table)t), path);
        if (e->exec(db, sql)) fail("DuckDB: %s: %s", e->errmsg(db), sql);
    }
    return db;
}

/* result_init makes r a result of ncols columns named c1, c2, ... (names and ptrs: their room). */
static int result_init(tpch_result *r, int ncols, char names[][8], const char **ptrs) {
    if (ncols > MAX_COLUMNS) fail("too many columns%s%s", "", "");
    for (int i = 0; i < ncols; i++)
        snprintf(names[i], 8, "c%d", i + 1), ptrs[i] = names[i];
    if (tpch_result_init(r, ncols, ptrs)) fail("out of memory%s%s", "", "");
    return 0;
}

/* Runs the one statement of sql; its rows go into *r (the engine interface has no column names:
** "c1", ...). Returns 0, or -1 with the message on the engine. */
static int duckdb_query(const engine *e, void *db, const char *sql, tpch_result *r) {
    void *s = NULL;
    memset(r, 0, sizeof *r);
    if (e->prepare(db, sql, &s)) return -1;
    const char *values[MAX_COLUMNS];
    char names[MAX_COLUMNS][8];
    const char *name_ptrs[MAX_COLUMNS];
    int lens[MAX_COLUMNS], rc;
    while ((rc = e->step(s)) == 1) {
        if (r->names == NULL && result_init(r, e->column_count(s), names, name_ptrs)) break;
        for (int i = 0; i < r->ncols; i++)
            values[i] = e->column_text(s, i, &lens[i]);
        if (tpch_result_add(r, values, lens)) fail("out of memory%s%s", "", "");
    }
    if (rc == 0 && r->names == NULL) result_init(r, e->column_count(s), names, name_ptrs);
    e->finalize(s);
    return rc < 0 ? -1 : 0;
}

/* ---- the program ------------------------------------------------------------------------- */

static void usage(void) {
    fprintf(stderr, "usage: tpch-ref -s SF -o OUTDIR [-d TBLDIR] [-q SQLITE_QUERIES] [-Q QUERIES] [-k]\n"
                    "  -s SF      the scale factor (the generator's: 0.01 and up)\n"
                    "  -o OUTDIR  where q01.txt .. q22.txt go (made when missing)\n"
                    "  -d TBLDIR  the .tbl files (default bench/tmp/tpch-sf<SF>; written when missing)\n"
                    "  -q DIR     SQLite's queries (default " SQLITE_QUERIES ")\n"
                    "  -Q DIR     the original queries, for DuckDB (default " ORIGINAL_QUERIES ")\n"
                    "  -k         keep SQLite's database (TBLDIR/ref-sqlite.db)\n");
    exit(2);
}

static char *read_query(const char *dir, int q) {
    char path[4300];
    snprintf(path, sizeof path, "%s/q%02d.sql", dir, q);
    char *sql = tpch_read_file(path);
    if (sql == NULL) fail("cannot read %s: %s", path, strerror(errno));
    return sql;
}

int main(int argc, char **argv) {
    const char *out = NULL, *tbl = NULL, *sqlite_dir = SQLITE_QUERIES, *orig_dir = ORIGINAL_QUERIES;
    double sf = 0;
    int keep = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-k")) {
            keep = 1;
            continue;
        }
        if (next == NULL) usage();
        if (!strcmp(a, "-s"))
            sf = strtod(next, NULL);
        else if (!strcmp(a, "-o"))
            out = next;
        else if (!strcmp(a, "-d"))
            tbl = next;
        else if (!strcmp(a, "-q"))
            sqlite_dir = next;
        else if (!strcmp(a, "-Q"))
            orig_dir = next;
        else
            usage();
        i++;
    }
    if (out == NULL || !tpch_sf_valid(sf)) usage();
    char tbl_dir[4096], db_path[4300], path[4300];
    if (tbl)
        snprintf(tbl_dir, sizeof tbl_dir, "%s", tbl);
    else
        snprintf(tbl_dir, sizeof tbl_dir, "bench/tmp/tpch-sf%g", sf);
    make_dirs(out);
    make_files(tbl_dir, sf);
    char *schema = tpch_read_file(SCHEMA_PATH);
    if (schema == NULL)
        fail("cannot read %s: %s (run from the repository root)", SCHEMA_PATH, strerror(errno));

    double t0 = now_s();
    snprintf(db_path, sizeof db_path, "%s/ref-sqlite.db", tbl_dir);
    sqlite3 *sq = sqlite_load(db_path, tbl_dir, schema);
    printf("SQLite %s: SF %g loaded from %s in %.1f s\n", sqlite3_libversion(), sf, tbl_dir, now_s() - t0);
    const engine *duck = &engine_duckdb;
    const char *why = NULL;
    void *dk = NULL;
    if (duck->available(&why)) {
        t0 = now_s();
        dk = duckdb_load(duck, tbl_dir, schema);
        printf("DuckDB %s: loaded in %.1f s\n", duck->version(), now_s() - t0);
    } else
        printf("DuckDB: %s: results not cross-checked\n", why ? why : "not available");

    int disagree = 0;
    for (int q = 1; q <= TPCH_QUERY_COUNT; q++) {
        char name[8], msg[512];
        snprintf(name, sizeof name, "q%02d", q);
        char *sql = read_query(sqlite_dir, q);
        tpch_result want, got;
        t0 = now_s();
        sqlite_query(sq, sql, name, &want);
        free(sql);
        printf("%s %6lld rows  SQLite %8.2f s", name, (long long)want.nrows, now_s() - t0);
        tpch_result_path(path, sizeof path, out, q);
        if (tpch_result_write(&want, path)) fail("cannot write %s: %s", path, strerror(errno));
        if (dk) {
            sql = read_query(orig_dir, q);
            t0 = now_s();
            if (duckdb_query(duck, dk, sql, &got)) {
                printf("  DuckDB error: %s\n", duck->errmsg(dk));
                disagree++;
            } else if (tpch_result_compare(&want, &got, msg, sizeof msg)) {
                printf("  DuckDB %6.2f s DISAGREES: %s\n", now_s() - t0, msg);
                disagree++;
            } else
                printf("  DuckDB %6.2f s agrees\n", now_s() - t0);
            free(sql);
            tpch_result_free(&got);
        } else
            printf("\n");
        tpch_result_free(&want);
        fflush(stdout);
    }
    sqlite3_close(sq);
    if (!keep) unlink(db_path);
    if (dk) duck->close(dk);
    free(schema);
    if (disagree) printf("SQLite and DuckDB disagree on %d quer%s\n", disagree, disagree == 1 ? "y" : "ies");
    return disagree ? 1 : 0;
}
