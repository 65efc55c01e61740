/*
** suite_load.c -- the TPC-H load: the eight .tbl files of the project's generator into a fresh
** database of strata, DuckDB and SQLite, each by its own bulk path for text files.
**
** The files are made once per scale factor by datasets/'s tpch-gen into bench/tmp/tpch-sf<SF>/
** (ignored by git) and made again when one is missing. Every repetition of every engine starts
** from a fresh database file, in a fresh process, and times everything from the open that
** creates the file to the close that leaves it complete: datasets/tpch/schema.sql (the same text
** for the three engines), the eight tables, the commits, and the close, at which every engine
** checkpoints its WAL into the file. The ways in:
**
**   - strata: `COPY <table> FROM '<dir>/<table>.tbl' (DELIMITER '|')`, one autocommit statement
**     per table; strata's COPY sees the .tbl lines' trailing '|' by itself. strata_changes()
**     after each COPY must equal the table's row count.
**   - DuckDB: `SET threads = 2`, strata's count (it parses on one thread and encodes row groups on
**     a second; the workload tpch_load_t1 repeats the load with 1 thread), then `COPY <table> FROM '<file>' (DELIMITER '|', HEADER false)`
**     per table, as DuckDB's documentation shows for its own TPC-H lineitem. Its CSV reader takes
**     a row with one field more than the table when that last field is empty.
**   - SQLite (WAL, synchronous=FULL: the harness's sqlite-wal engine): one transaction around the
**     schema and a prepared INSERT per row; the bench reads each file, splits each line at '|'
**     and binds integers as int64, decimals as double, dates and strings as text.
**
** Afterwards, outside the load's time, the database is opened again and `ANALYZE` (every table,
** each engine its own statement) is timed on its own, as tpch_load_analyze_ms: the statistics a
** loaded database is queried with, gathered again from scratch (strata merges the statistics its
** row groups were written with; DuckDB and SQLite read the tables). Then count(*) of every table must
** equal tpch_table_rows(), and lineitem's count(*), sum(l_extendedprice) in cents and the bytes of
** l_comment must equal the generator's (the checksum the harness compares between engines).
** bench/README.md describes the suite.
*/
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <strata.h>

#include "harness.h"
#include "tpch_gen.h"

#ifndef TPCH_GEN_BIN
#define TPCH_GEN_BIN "build/release/datasets/tpch-gen" /* the Makefile passes the built program */
#endif

#define SCHEMA_PATH "datasets/tpch/schema.sql"
#define DATA_ROOT "bench/tmp"
#define TBL_BUFFER (1u << 20) /* SQLite's reader: bytes read at a time (a line is at most TPCH_LINE_MAX) */

static const size_def sizes[] = {
    {"load_sf_milli", 1000, 100, 10}, /* the scale factor in thousandths: SF 1, 0.1, 0.01 */
};

static const workload_def workloads[] = {
    {"tpch_load", "tpch_load"},
    {"tpch_load_t1", "tpch_load_t1"},
};

#define TABLE_MS(t)                                                                                          \
    { "tpch_load_" t "_ms", "tpch_load", "   " t, "ms", "load", NULL, K_TIME, NULL }

static const metric_def metrics[] = {
    {"tpch_load_s", "tpch_load",
     "TPC-H load, 8 tables from .tbl into a fresh file: open, schema, load, commit, close", "s", "load", NULL,
     K_TIME, NULL},
    {"tpch_load_rows_s", "tpch_load", "   rows/s (all 8 tables)", "rows/s", "row", NULL, K_RATE, NULL},
    {"tpch_load_mb_s", "tpch_load", "   MB/s of .tbl text", "MB/s", "byte", NULL, K_RATE, NULL},
    {"tpch_load_schema_ms", "tpch_load", "   schema.sql (8 CREATE TABLE)", "ms", "load", NULL, K_TIME, NULL},
    TABLE_MS("region"),
    TABLE_MS("nation"),
    TABLE_MS("supplier"),
    TABLE_MS("customer"),
    TABLE_MS("part"),
    TABLE_MS("partsupp"),
    TABLE_MS("orders"),
    TABLE_MS("lineitem"),
    {"tpch_load_commit_ms", "tpch_load", "   COMMIT of the one transaction (SQLite)", "ms", "load", NULL,
     K_TIME, NULL},
    {"tpch_load_close_ms", "tpch_load", "   close (the WAL checkpointed into the file)", "ms", "load", NULL,
     K_TIME, NULL},
    {"tpch_load_bytes", "tpch_load", "   file size after close (file + WAL)", "bytes", "database", NULL,
     K_SIZE, NULL},
    {"tpch_load_peak_mib", "tpch_load", "   peak RSS (VmHWM) from open to close", "MiB", "process", NULL,
     K_MEMORY, NULL},
    {"tpch_load_rows", "tpch_load", "   rows loaded (checked per table)", "rows", "row", NULL, K_INFO, NULL},
    {"tpch_load_analyze_ms", "tpch_load", "ANALYZE of the loaded database, reopened (not in the load's time)", "ms",
     "database", NULL, K_TIME, NULL},
    {"tpch_load_t1_s", "tpch_load_t1", "DuckDB with SET threads = 1: the same load", "s", "load", NULL,
     K_TIME, NULL},
    {"tpch_load_t1_rows_s", "tpch_load_t1", "   rows/s", "rows/s", "row", NULL, K_RATE, NULL},
    {"tpch_load_t1_bytes", "tpch_load_t1", "   file size after close", "bytes", "database", NULL, K_SIZE,
     NULL},
    {"tpch_load_t1_peak_mib", "tpch_load_t1", "   peak RSS", "MiB", "process", NULL, K_MEMORY, NULL},
};

static const phase_def phases[] = {
    {"tpch_load", NULL, NULL},
    {"tpch_load_t1", NULL, NULL},
};

/* The targets: strata faster than DuckDB with as many threads (two: strata encodes row
** groups on a second thread), and at least 3x faster than SQLite, each judged on the min-max
** ranges. */
static const target_def targets[] = {
    {"tpch_load_s", "duckdb", 1},
    {"tpch_load_s", "sqlite", 3},
};

/* The value types of each table's columns as SQLite binds them: I an integer (int64), D a
** DECIMAL(15,2) (double), T a DATE (text YYYY-MM-DD), S a string (text). In tpch_table order. */
static const char *const column_types[TPCH_TABLE_COUNT] = {
    "ISS",              /* region */
    "ISIS",             /* nation */
    "ISSISDS",          /* supplier */
    "ISSISDSS",         /* customer */
    "ISSSSISDS",        /* part */
    "IIIDS",            /* partsupp */
    "IISDTSSIS",        /* orders */
    "IIIIDDDDSSTTTSSS", /* lineitem */
};

static int is_strata(const engine *e) { return !strncmp(e->name, "strata", 6); } /* strata, strata-t1 */
static int is_duckdb(const engine *e) { return !strcmp(e->name, "duckdb"); }
static int is_sqlite(const engine *e) { return !strncmp(e->name, "sqlite", 6); }

/* ---------------------------------------------------------------------------------------------
** The data: the .tbl files, the schema, and what the generator says the tables hold.
*/

/* What the loads read and what they must produce. */
typedef struct tpch_data {
    double sf;
    char dir[4096];                 /* absolute: strata and DuckDB open the files themselves */
    int64_t rows[TPCH_TABLE_COUNT]; /* tpch_table_rows */
    int64_t total_rows;
    double tbl_bytes;  /* the 8 files */
    checksum lineitem; /* count(*), sum(l_extendedprice) in cents, bytes of l_comment */
    char *schema;      /* datasets/tpch/schema.sql, malloc'ed */
} tpch_data;

static double scale_factor(const options *o) { return (double)size_of(o, "load_sf_milli") / 1000; }

/* The folder of the files at sf, relative to the repository root: bench/tmp/tpch-sf1, ...-sf0.01. */
static void data_dir(char *out, size_t n, double sf) { snprintf(out, n, DATA_ROOT "/tpch-sf%g", sf); }

static void tbl_path(char *out, size_t n, const char *dir, tpch_table t) {
    snprintf(out, n, "%s/%s.tbl", dir, tpch_table_name(t));
}

/* Reads a whole file into a malloc'ed NUL-terminated string; NULL on error (errno set). */
static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    char *text = NULL;
    long n;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)n + 1)) != NULL) {
        if (fread(text, 1, (size_t)n, f) == (size_t)n)
            text[n] = '\0';
        else
            free(text), text = NULL;
    }
    fclose(f);
    return text;
}

/* generate runs tpch-gen for the tables of `tables` (a bit 1u << t per tpch_table) whose files
** are missing. Returns 0, or -1 with the message recorded. */
static int generate(const char *dir, double sf, unsigned tables) {
    char list[256] = "", sf_text[32], path[4300];
    size_t n = 0;
    for (int t = 0; t < TPCH_TABLE_COUNT; t++) {
        if (!(tables & (1u << t))) continue;
        tbl_path(path, sizeof path, dir, (tpch_table)t);
        if (access(path, R_OK) == 0) continue;
        n +=
            (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? "," : "", tpch_table_name((tpch_table)t));
    }
    if (n == 0) return 0;
    if (access(TPCH_GEN_BIN, X_OK) != 0)
        return wl_failf("the generator %s is missing (make BUILD=... datasets/tpch-gen): %s", TPCH_GEN_BIN,
                        strerror(errno));
    snprintf(sf_text, sizeof sf_text, "%g", sf);
    fprintf(stderr, " [generating TPC-H SF %s into %s: %s]", sf_text, dir, list);
    const char *argv[] = {TPCH_GEN_BIN, "-s", sf_text, "-o", dir, "-T", list, NULL};
    double seconds;
    int status = run_process(argv, &seconds);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return wl_failf("%s -s %s -o %s -T %s failed (status %d)", TPCH_GEN_BIN, sf_text, dir, list, status);
    return 0;
}

/* compute_expected writes the generator's lineitem checksum into path (through path.tmp). */
static int compute_expected(const char *path, double sf) {
    char tmp[4400];
    tpch_gen *g;
    tpch_row row;
    checksum c = {0};
    if (tpch_gen_open(&g, TPCH_LINEITEM, sf) != STRATA_OK) return -1;
    while (tpch_gen_next(g, &row) == STRATA_ROW)
        c.a++, c.b += (uint64_t)row.lineitem.extendedprice, c.c += row.lineitem.comment.len;
    tpch_gen_close(g);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL) return -1;
    fprintf(f, "%llu %llu %llu\n", (unsigned long long)c.a, (unsigned long long)c.b, (unsigned long long)c.c);
    return fclose(f) == 0 && rename(tmp, path) == 0 ? 0 : -1;
}

/* The generator's lineitem checksum -- count, sum of l_extendedprice in cents, bytes of l_comment
** -- kept in <dir>/lineitem.expected beside the files. When missing it is made in a child process
** (it generates every line, about a second per SF, and the generator's text pool would stay in
** this process's memory, which the load's peak RSS measures). Returns 0, or -1 with the message
** recorded. (harness.h: the analytics suite checks its lineitem with it too.) */
int tpch_lineitem_expected(const char *dir, double sf, checksum *c) {
    char path[4300];
    unsigned long long a, b, cc;
    snprintf(path, sizeof path, "%s/lineitem.expected", dir);
    if (access(path, R_OK) != 0) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) return wl_failf("fork: %s", strerror(errno));
        if (pid == 0) _exit(compute_expected(path, sf) ? 1 : 0);
        int status;
        while (waitpid(pid, &status, 0) < 0)
            if (errno != EINTR) return wl_failf("waitpid: %s", strerror(errno));
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            return wl_failf("computing %s from the generator failed", path);
    }
    FILE *f = fopen(path, "r");
    if (f == NULL) return wl_failf("cannot read %s: %s", path, strerror(errno));
    int n = fscanf(f, "%llu %llu %llu", &a, &b, &cc);
    fclose(f);
    if (n != 3) return wl_failf("%s: not three numbers (remove it to make it again)", path);
    *c = (checksum){a, b, cc};
    return 0;
}

/* tpch_files (harness.h) makes sure the .tbl files of `tables` at sf exist in the folder of sf,
** making the missing ones, and gives the folder's absolute path. Nothing here is timed. */
int tpch_files(double sf, unsigned tables, char *dir, size_t n) {
    char rel[256], *abs;
    if (!tpch_sf_valid(sf))
        return wl_failf("scale factor %g is outside %g .. %g", sf, TPCH_SF_MIN, TPCH_SF_MAX);
    data_dir(rel, sizeof rel, sf);
    if (mkdir(rel, 0755) != 0 && errno != EEXIST) return wl_failf("mkdir %s: %s", rel, strerror(errno));
    if (generate(rel, sf, tables)) return -1;
    if ((abs = realpath(rel, NULL)) == NULL) return wl_failf("realpath %s: %s", rel, strerror(errno));
    int fits = strlen(abs) < n;
    if (fits) memcpy(dir, abs, strlen(abs) + 1);
    free(abs);
    return fits ? 0 : wl_failf("the path of %s is too long", rel);
}

/* prepare_data makes sure the files of scale factor sf exist and fills *d. Returns 0, or -1 with
** the message recorded. Nothing here is timed. */
static int prepare_data(double sf, tpch_data *d) {
    char path[4300];
    memset(d, 0, sizeof *d);
    d->sf = sf;
    if (!tpch_sf_valid(d->sf))
        return wl_failf("scale factor %g is outside %g .. %g", d->sf, TPCH_SF_MIN, TPCH_SF_MAX);
    if (tpch_files(d->sf, (1u << TPCH_TABLE_COUNT) - 1, d->dir, sizeof d->dir)) return -1;
    for (int t = 0; t < TPCH_TABLE_COUNT; t++) {
        if ((int)strlen(column_types[t]) != tpch_table_columns((tpch_table)t))
            return wl_failf("%s: %d column types for %d columns", tpch_table_name((tpch_table)t),
                            (int)strlen(column_types[t]), tpch_table_columns((tpch_table)t));
        d->rows[t] = tpch_table_rows((tpch_table)t, d->sf);
        d->total_rows += d->rows[t];
        tbl_path(path, sizeof path, d->dir, (tpch_table)t);
        d->tbl_bytes += file_size(path);
    }
    if (tpch_lineitem_expected(d->dir, d->sf, &d->lineitem)) return -1;
    if ((d->schema = read_text(SCHEMA_PATH)) == NULL)
        return wl_failf("cannot read %s: %s", SCHEMA_PATH, strerror(errno));
    return 0;
}

/* ---------------------------------------------------------------------------------------------
** SQLite's way in: the bench reads the .tbl text and binds each field to a prepared INSERT (the
** analytics suite feeds the same fields to every engine's bulk loader: tbl_load).
*/

typedef struct tbl_reader {
    int fd;
    char *buf;
    size_t len, pos; /* bytes in buf, start of the next line */
    int eof;
    int64_t line; /* lines returned */
} tbl_reader;

/* tbl_next sets *line and *n to the next line without its '\n'. Returns 1, 0 at the end of the
** file, -1 on a read error or a line longer than the buffer (message recorded). */
static int tbl_next(tbl_reader *r, const char *path, char **line, size_t *n) {
    for (;;) {
        char *start = r->buf + r->pos, *nl = memchr(start, '\n', r->len - r->pos);
        if (nl) {
            *line = start, *n = (size_t)(nl - start);
            r->pos += *n + 1;
            r->line++;
            return 1;
        }
        if (r->eof) {
            if (r->pos == r->len) return 0;
            return wl_failf("%s: the last line has no newline", path);
        }
        memmove(r->buf, start, r->len - r->pos);
        r->len -= r->pos, r->pos = 0;
        if (r->len == TBL_BUFFER) return wl_failf("%s: line %lld is too long", path, (long long)r->line + 1);
        ssize_t got = read(r->fd, r->buf + r->len, TBL_BUFFER - r->len);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return wl_failf("read %s: %s", path, strerror(errno));
        if (got == 0) r->eof = 1;
        r->len += (size_t)got;
    }
}

/* An integer field: optional '-', then digits. Returns 0, or -1 when it is not one. */
static int parse_int(const char *p, size_t n, int64_t *out) {
    size_t i = n && p[0] == '-';
    if (i == n || n - i > 18) return -1;
    int64_t v = 0;
    for (; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return -1;
        v = v * 10 + (p[i] - '0');
    }
    *out = p[0] == '-' ? -v : v;
    return 0;
}

/* parse_decimal (harness.h): a decimal as a count of 10^-scale units: optional '-', digits,
** optionally '.' and digits of which at most `scale` are not trailing zeros. Returns 0, or -1 when
** it is not one or does not fit. */
int parse_decimal(const char *p, size_t n, int scale, int64_t *units) {
    const char *dot = memchr(p, '.', n);
    size_t nw = dot ? (size_t)(dot - p) : n, nf = dot ? n - nw - 1 : 0;
    int64_t whole, frac = 0, unit = 1;
    if (scale < 0 || scale > 18) return -1;
    while (nf > (size_t)scale && dot[nf] == '0')
        nf--;
    if (nf > (size_t)scale || parse_int(p, nw, &whole) ||
        (nf && (dot[1] == '-' || parse_int(dot + 1, nf, &frac))))
        return -1;
    for (int k = 0; k < scale; k++)
        unit *= 10;
    for (size_t k = nf; k < (size_t)scale; k++)
        frac *= 10;
    if (whole > (INT64_MAX - frac) / unit || whole < (INT64_MIN + frac) / unit) return -1;
    *units = n && p[0] == '-' ? whole * unit - frac : whole * unit + frac;
    return 0;
}

/* A decimal as a count of hundredths (a DECIMAL(15,2) field). */
static int parse_cents(const char *p, size_t n, int64_t *cents) { return parse_decimal(p, n, 2, cents); }

/* Where the fields of a line go: the parameters of a prepared INSERT (by index), or an engine's
** bulk loader (in column order). */
typedef struct field_target {
    const engine *e;
    void *to; /* the prepared statement or the loader */
    int loader;
} field_target;

static int put_int64(const field_target *t, int i, int64_t v) {
    return t->loader ? t->e->load_int64(t->to, v) : t->e->bind_int64(t->to, i + 1, v);
}
static int put_double(const field_target *t, int i, double v) {
    return t->loader ? t->e->load_double(t->to, v) : t->e->bind_double(t->to, i + 1, v);
}
static int put_text(const field_target *t, int i, const char *v, int len) {
    return t->loader ? t->e->load_text(t->to, v, len) : t->e->bind_text(t->to, i + 1, v, len);
}

/* Puts the fields of one line ("v1|v2|...|vN|") into t by the table's column types. Returns 0,
** 1 when the line is malformed (*why says how), -1 on an engine error. */
static int bind_line(const field_target *t, const char *types, char *line, size_t n, const char **why) {
    char *p = line, *end = line + n;
    for (int i = 0; types[i]; i++) {
        char *bar = memchr(p, '|', (size_t)(end - p));
        if (bar == NULL) {
            *why = "fewer fields than the table has columns";
            return 1;
        }
        size_t len = (size_t)(bar - p);
        int64_t iv;
        int rc;
        switch (types[i]) {
        case 'I':
            if (parse_int(p, len, &iv)) return *why = "a field is not an integer", 1;
            rc = put_int64(t, i, iv);
            break;
        case 'D': /* cents / 100 rounds as strtod does: to the double nearest the decimal */
            if (parse_cents(p, len, &iv)) return *why = "a field is not a decimal of 2 decimals", 1;
            rc = put_double(t, i, (double)iv / 100);
            break;
        default: rc = put_text(t, i, p, (int)len);
        }
        if (rc) return -1;
        p = bar + 1;
    }
    if (p != end) return *why = "more fields than the table has columns (after the trailing '|')", 1;
    return 0;
}

/* tbl_load (harness.h) loads table t's file from dir: with loader 0 by the prepared `INSERT INTO
** t VALUES (?, ...)` stepped once per line (inside the caller's transaction: SQLite's way in of
** this suite), with loader 1 by the engine's bulk loader (load_begin .. load_finish, one
** transaction of its own). Integers go as int64, DECIMAL(15,2) as double, dates and strings as
** text. *rows gets the lines loaded. Returns 0, or -1 with the message recorded. */
int tbl_load(const engine *e, void *db, const char *dir, int table, int loader, int64_t *rows) {
    tpch_table t = (tpch_table)table;
    char sql[512], path[4300];
    const char *types = column_types[t], *why = NULL;
    int n = snprintf(sql, sizeof sql, "INSERT INTO %s VALUES (", tpch_table_name(t));
    for (int i = 0; types[i]; i++)
        n += snprintf(sql + n, sizeof sql - (size_t)n, i ? ", ?" : "?");
    snprintf(sql + n, sizeof sql - (size_t)n, ")");
    tbl_path(path, sizeof path, dir, t);
    *rows = 0;
    tbl_reader r = {.fd = open(path, O_RDONLY)};
    if (r.fd < 0) return wl_failf("open %s: %s", path, strerror(errno));
    field_target to = {.e = e, .loader = loader};
    int rc = -1;
    if ((r.buf = malloc(TBL_BUFFER)) == NULL) {
        wl_failf("out of memory");
        goto out;
    }
    if (loader ? e->load_begin(db, tpch_table_name(t), (int)strlen(types), &to.to)
               : e->prepare(db, sql, &to.to)) {
        wl_fail(e, db, loader ? "begin the bulk load" : sql);
        to.to = NULL;
        goto out;
    }
    char *line;
    size_t len;
    int got;
    while ((got = tbl_next(&r, path, &line, &len)) == 1) {
        int b = bind_line(&to, types, line, len, &why);
        if (b > 0) {
            wl_failf("%s line %lld: %s", path, (long long)r.line, why);
            goto out;
        }
        if (b < 0 || (loader ? e->load_end_row(to.to) : e->step(to.to) != 0 || e->reset(to.to))) {
            wl_fail(e, db, loader ? "load a row" : sql);
            goto out;
        }
    }
    if (got != 0) goto out;
    *rows = r.line;
    if (loader) {
        void *ld = to.to;
        to.to = NULL; /* finish frees the loader, also when it fails */
        if (e->load_finish(ld)) {
            wl_fail(e, db, "finish the bulk load");
            goto out;
        }
    }
    rc = 0;
out:
    if (to.to && loader) e->load_abort(to.to);
    if (to.to && !loader) e->finalize(to.to);
    free(r.buf);
    close(r.fd);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
** The load.
*/

/* Runs one statement that returns one row and gives its columns as integers, NULL as 0. */
static int query_row(const engine *e, void *db, const char *sql, int64_t *out, int n) {
    void *s = NULL;
    if (e->prepare(db, sql, &s) || e->step(s) != 1) {
        wl_fail(e, db, sql);
        e->finalize(s);
        return -1;
    }
    for (int i = 0; i < n; i++)
        out[i] = e->column_is_null(s, i) ? 0 : e->column_int64(s, i);
    e->finalize(s);
    return 0;
}

/* The exact DECIMAL sum in column i as cents: strata and DuckDB print their exact decimal text. */
static int decimal_cents(const engine *e, void *stmt, int i, int64_t *cents) {
    int len;
    const char *t = e->column_text(stmt, i, &len);
    return t == NULL ? -1 : parse_cents(t, (size_t)len, cents);
}

/* tpch_check_lineitem (harness.h): lineitem's count(*), sum(l_extendedprice) in cents and
** sum(length(l_comment)) into *got, which must equal *want (the generator's: lineitem.expected).
** Returns 0, or -1 with the message recorded. */
int tpch_check_lineitem(const engine *e, void *db, const checksum *want, checksum *got) {
    void *s = NULL;
    int rc = -1;
    /* SQLite keeps DECIMAL as REAL: each value rounded to its cents is exact, and so is their sum */
    const char *li_sql = is_sqlite(e) ? "SELECT count(*), sum(round(l_extendedprice * 100)), "
                                        "sum(length(l_comment)) FROM lineitem"
                                      : "SELECT count(*), sum(l_extendedprice), sum(length(l_comment)) "
                                        "FROM lineitem";
    if (e->prepare(db, li_sql, &s) || e->step(s) != 1) {
        wl_fail(e, db, li_sql);
        goto out;
    }
    int64_t cents;
    if (is_sqlite(e))
        cents = llround(e->column_double(s, 1));
    else if (decimal_cents(e, s, 1, &cents)) {
        wl_failf("%s: sum(l_extendedprice) is not a decimal of 2 decimals", li_sql);
        goto out;
    }
    *got = (checksum){(uint64_t)e->column_int64(s, 0), (uint64_t)cents, (uint64_t)e->column_int64(s, 2)};
    if (!checksum_equal(got, want)) {
        wrong_result(li_sql, got, want);
        goto out;
    }
    rc = 0;
out:
    e->finalize(s);
    return rc;
}

/* check_tables reopens the closed database (and, when analyze_ms is not NULL, times ANALYZE into
** it first): every table's count(*) against the generator, and lineitem's checksum (its count,
** sum(l_extendedprice) in cents, the bytes of l_comment) into *got. Returns 0, or -1 with the
** message recorded. */
static int check_tables(const engine *e, const char *path, const tpch_data *d, checksum *got, double *analyze_ms) {
    void *db = NULL;
    char sql[256];
    int rc = -1;
    if (e->open(path, &db)) {
        wl_fail(e, db, "reopen to check the tables");
        goto out;
    }
    if (analyze_ms) {
        uint64_t t = now_ns();
        if (e->exec(db, "ANALYZE")) {
            wl_fail(e, db, "ANALYZE");
            goto out;
        }
        *analyze_ms = ms_since(t);
    }
    for (int t = 0; t < TPCH_TABLE_COUNT; t++) {
        int64_t n;
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", tpch_table_name((tpch_table)t));
        if (query_row(e, db, sql, &n, 1)) goto out;
        if (n != d->rows[t]) {
            wl_failf("%s holds %lld rows after the load, the generator made %lld",
                     tpch_table_name((tpch_table)t), (long long)n, (long long)d->rows[t]);
            goto out;
        }
    }
    if (tpch_check_lineitem(e, db, &d->lineitem, got)) goto out;
    rc = 0;
out:
    e->close(db);
    return rc;
}

/* The figures of one load, in ms. */
typedef struct load_times {
    double schema, table[TPCH_TABLE_COUNT], commit, close, total;
} load_times;

/* Runs sql on db; on an error records "what: <engine message>" and returns -1. */
static int exec_or_fail(const engine *e, void *db, const char *sql, const char *what) {
    return e->exec(db, sql) ? wl_fail(e, db, what ? what : sql) : 0;
}

/* Loads table t by the engine's way in (COPY, or SQLite's prepared INSERTs inside the caller's
** transaction). *rows gets what the engine says it loaded (strata_changes, the lines SQLite got),
** -1 when it does not say. Returns 0, or -1 with the message recorded. */
static int load_table(const engine *e, void *db, const tpch_data *d, tpch_table t, int64_t *rows) {
    char sql[4500], file[4300];
    *rows = -1;
    if (is_sqlite(e)) return tbl_load(e, db, d->dir, t, 0, rows);
    tbl_path(file, sizeof file, d->dir, t);
    snprintf(sql, sizeof sql, "COPY %s FROM '%s' (DELIMITER '|'%s)", tpch_table_name(t), file,
             is_duckdb(e) ? ", HEADER false" : "");
    if (exec_or_fail(e, db, sql, NULL)) return -1;
    if (is_strata(e)) *rows = strata_changes(db);
    return 0;
}

/* The timed part: open (creating the file), the schema, the tables, SQLite's commit, close. For
** DuckDB, SET threads first. rows[t] as load_table gives it. Returns 0, or -1 with the message
** recorded (the database is closed in every case). */
static int timed_load(const engine *e, const char *path, const tpch_data *d, int threads, load_times *lt,
                      int64_t *rows) {
    char sql[64];
    void *db = NULL;
    int sqlite = is_sqlite(e), opened = 0;
    memset(lt, 0, sizeof *lt);
    uint64_t t0 = now_ns(), t;
    if (e->open(path, &db)) {
        wl_fail(e, db, "open a new database");
        goto fail;
    }
    opened = 1;
    snprintf(sql, sizeof sql, "SET threads = %d", threads);
    if (is_duckdb(e) && exec_or_fail(e, db, sql, NULL)) goto fail;
    /* SQLite: BEGIN opens the one transaction of the whole load; the others commit the schema */
    t = now_ns();
    if (exec_or_fail(e, db, "BEGIN", NULL) || exec_or_fail(e, db, d->schema, SCHEMA_PATH) ||
        (!sqlite && exec_or_fail(e, db, "COMMIT", "COMMIT the schema")))
        goto fail;
    lt->schema = ms_since(t);
    for (int i = 0; i < TPCH_TABLE_COUNT; i++) {
        t = now_ns();
        if (load_table(e, db, d, (tpch_table)i, &rows[i])) goto fail;
        lt->table[i] = ms_since(t);
    }
    t = now_ns();
    if (sqlite && exec_or_fail(e, db, "COMMIT", NULL)) goto fail;
    lt->commit = ms_since(t);
    t = now_ns();
    e->close(db);
    lt->close = ms_since(t);
    lt->total = ms_since(t0);
    return 0;
fail:
    if (sqlite && opened) e->exec(db, "ROLLBACK");
    e->close(db);
    return -1;
}

/* One workload: w is tpch_load (DuckDB on 2 threads) or tpch_load_t1 (DuckDB on 1). */
static int wl_load(const engine *e, const char *dir, const tpch_data *d, const char *w, int threads) {
    char path[4200], id[96];
    int64_t rows[TPCH_TABLE_COUNT];
    load_times lt;
    checksum got;
    const char *why;
    db_path(path, sizeof path, dir, "tpch");
    remove_db(path);
    if (!e->available(&why)) return wl_failf("%s", why); /* DuckDB: its library is loaded here, untimed */
    peak_reset();
    if (timed_load(e, path, d, threads, &lt, rows)) return -1;
    double peak_mib = peak_kib() / 1024, bytes = db_size(path);
    put_peak(w);
    for (int t = 0; t < TPCH_TABLE_COUNT; t++)
        if (rows[t] >= 0 && rows[t] != d->rows[t])
            return wl_failf("%s: %s reports %lld rows loaded into %s, the generator made %lld", w,
                            is_strata(e) ? "strata_changes()" : "the bench", (long long)rows[t],
                            tpch_table_name((tpch_table)t), (long long)d->rows[t]);
    double analyze_ms;
    if (check_tables(e, path, d, &got, &analyze_ms)) return -1;
    put_checksum(w, &got);
#define FIGURE(suffix, v) (snprintf(id, sizeof id, "%s_" suffix, w), put_metric(id, (v)))
    FIGURE("s", lt.total / 1e3);
    FIGURE("rows_s", (double)d->total_rows / (lt.total / 1e3));
    FIGURE("bytes", bytes);
    FIGURE("peak_mib", peak_mib);
    if (strcmp(w, "tpch_load") == 0) {
        FIGURE("mb_s", d->tbl_bytes / 1e6 / (lt.total / 1e3));
        FIGURE("schema_ms", lt.schema);
        for (int t = 0; t < TPCH_TABLE_COUNT; t++) {
            snprintf(id, sizeof id, "%s_%s_ms", w, tpch_table_name((tpch_table)t));
            put_metric(id, lt.table[t]);
        }
        if (is_sqlite(e)) FIGURE("commit_ms", lt.commit);
        FIGURE("close_ms", lt.close);
        FIGURE("rows", (double)d->total_rows);
        FIGURE("analyze_ms", analyze_ms);
    }
#undef FIGURE
    return 0;
}

/* tpch_load_db (harness.h): the untimed load of another suite -- timed_load and check_tables. */
int tpch_load_db(const engine *e, const char *path, double sf, double *seconds) {
    tpch_data d;
    int64_t rows[TPCH_TABLE_COUNT];
    load_times lt;
    checksum got;
    int rc = prepare_data(sf, &d);
    remove_db(path);
    if (rc == 0) rc = timed_load(e, path, &d, 2, &lt, rows);
    for (int t = 0; rc == 0 && t < TPCH_TABLE_COUNT; t++)
        if (rows[t] >= 0 && rows[t] != d.rows[t])
            rc = wl_failf("%lld rows loaded into %s, the generator made %lld", (long long)rows[t],
                          tpch_table_name((tpch_table)t), (long long)d.rows[t]);
    if (rc == 0) rc = check_tables(e, path, &d, &got, NULL);
    *seconds = rc == 0 ? lt.total / 1e3 : 0;
    free(d.schema);
    return rc;
}

static void run_phase(const engine *e, const options *o, const char *dir, const char *phase) {
    int t1 = !strcmp(phase, "tpch_load_t1");
    const char *w = t1 ? "tpch_load_t1" : "tpch_load";
    if (!t1 && strcmp(phase, "tpch_load")) die("load: unknown phase %s", phase);
    if (!strcmp(e->name, "duckdb-t1")) /* its 1-thread load is the duckdb engine's tpch_load_t1 */
        return not_applicable(w, "DuckDB with 1 thread: engine duckdb's tpch_load_t1");
    if (t1 && !is_duckdb(e)) return not_applicable(w, "DuckDB only");
    if (is_sqlite(e) && strcmp(e->name, "sqlite-wal")) return not_applicable(w, "sqlite-wal only");
    if (!selected(w)) return;
    tpch_data d;
    workload_begin(w, 0);
    int rc = prepare_data(scale_factor(o), &d);
    if (rc == 0) rc = wl_load(e, dir, &d, w, t1 ? 1 : 2);
    workload_end(w, rc);
    free(d.schema);
}

static void describe(FILE *out, const options *o) {
    char rel[256];
    double sf = scale_factor(o);
    data_dir(rel, sizeof rel, sf);
    fprintf(
        out,
        "- Data: TPC-H at SF %g (`--size load_sf_milli=%llu`; `--sf X` sets it), the eight `.tbl` files of "
        "`tpch-gen -s %g -o %s` (made once, again when a file is missing; read from the OS page cache, "
        "which is not dropped). Schema: `%s` verbatim for every engine — no dialect needed adapting it "
        "(SQLite gives DECIMAL and DATE columns NUMERIC affinity and CHAR/VARCHAR TEXT; a single `INTEGER` "
        "PRIMARY KEY is its rowid, the others get a unique index; DuckDB keeps an ART index per PRIMARY "
        "KEY).\n",
        sf, (unsigned long long)size_of(o, "load_sf_milli"), sf, rel, SCHEMA_PATH);
    fprintf(
        out,
        "- Timed, in a fresh process on a fresh file each repetition: open (creating the file), schema.sql "
        "(BEGIN, the 8 CREATE TABLE, COMMIT), the tables in the schema's order, and close, at which every "
        "engine checkpoints its WAL into the file (strata and DuckDB at close; SQLite's last connection "
        "checkpoints and removes its WAL). The file size is measured after that close.\n");
    fprintf(
        out,
        "- strata: `COPY <table> FROM '<dir>/<table>.tbl' (DELIMITER '|')`, one autocommit statement per "
        "table (COPY recognises the trailing '|' itself); `strata_changes()` after each must equal the "
        "table's rows.\n"
        "- DuckDB: `SET threads = 2` right after open, strata's thread count (strata parses on one thread "
        "and encodes each row group on a second; `tpch_load_t1` is the same load with `SET threads = 1`), "
        "then `COPY <table> FROM '<file>' (DELIMITER '|', HEADER false)` "
        "per table, autocommit, the form of DuckDB's COPY documentation. The trailing '|': DuckDB's CSV "
        "reader accepts a row with one field more than the table when that last field is empty (its "
        "sniffer's rule for files whose lines end with the delimiter), so no option is needed; quoting "
        "and the rest are left to its sniffer (the files hold no quotes).\n"
        "- SQLite (`sqlite-wal` only: WAL, synchronous=FULL, 64 MiB cache): BEGIN, schema.sql, then per "
        "table a prepared `INSERT INTO <table> VALUES (?, ...)` stepped once per line, COMMIT once at "
        "the end. The bench reads each file (1 MiB reads), splits every line at '|' and binds integers "
        "with sqlite3_bind_int64, DECIMAL(15,2) as double, dates and strings as text (SQLITE_STATIC).\n");
    fprintf(
        out,
        "- Checked after the close, untimed: a reopen, count(*) of every table = `tpch_table_rows()`, and "
        "lineitem's count(*), sum(l_extendedprice) in cents and sum(length(l_comment)) = the "
        "generator's (SQLite: `sum(round(l_extendedprice * 100))`, exact over its REAL values); this "
        "checksum must agree between engines. A mismatch fails the workload.\n"
        "- Targets: strata faster than DuckDB with as many threads (two), and at least 3× faster than SQLite — "
        "\"met\" only when strata's slowest repetition beats the peer's fastest by the factor.\n");
}

const suite suite_load = {
    .id = "load",
    .title = "TPC-H load from .tbl files: strata COPY, DuckDB COPY, SQLite prepared INSERTs",
    SUITE_TABLES,
    .targets = targets,
    .ntargets = COUNT(targets),
    .run_phase = run_phase,
    .describe = describe,
};
