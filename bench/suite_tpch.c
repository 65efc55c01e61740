/*
** suite_tpch.c -- the TPC-H benchmark: the 22 queries on strata, SQLite WAL and DuckDB (default
** threads and threads=1), each in a fresh process per engine and repetition.
**
** Data: the project's generator's eight tables at scale factor tpch_sf_milli / 1000, loaded with
** datasets/tpch/schema.sql verbatim (its primary keys, nothing more, for every engine) by each
** engine's bulk path as the load suite loads them (tpch_load_db: strata and DuckDB COPY from the
** .tbl files, SQLite prepared INSERTs in one transaction), then checked (row counts, lineitem's
** checksum). The peers' databases are kept between runs in bench/tmp/tpch-sf<SF>/ beside the
** .tbl files (SQLite's SF 1 load takes minutes): a marker file holding the engine's version says
** the database is whole and which version made it; another version, or no marker, loads it again.
** strata's database is loaded once per run of the harness, in the run's folder, so that it always
** has the format of the library measured.
**
** Queries: datasets/tpch/queries/qNN.sql for strata and DuckDB, datasets/tpch/sqlite/qNN.sql
** (their dialect-adapted copies) for SQLite, after `PRAGMA case_sensitive_like = ON` (the spec's
** LIKE is case-sensitive). One phase per query: open, `SELECT 1`, the first run (prepare + every
** row), then tpch_runs runs of the prepared statement (time_query: the median is the repeat).
** Each run may take tpch_limit_s seconds; a run that takes longer stops the process and the query
** is shown as failed for that engine (workload_time_limit), as is a query the engine refuses.
**
** Checks: every repeat must return the first run's rows; the engines' checksums are compared by
** the harness. A checksum hashes every value's text, numbers rounded to 2 decimals first
** (tpch_normalize_value), because SQLite computes the DECIMAL columns in REAL and the engines print
** numbers differently (304.00, 304; 0.000000, 0): a value on a half cent may still round
** differently, and the harness then reports the mismatch.
** Exact correctness is tests/datasets/test_tpch_expected.c's and `make tpch-check`'s job.
** bench/README.md describes the suite.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "tpch_check.h"
#include "tpch_gen.h"

#define QUERIES_DIR "datasets/tpch/queries"
#define SQLITE_QUERIES_DIR "datasets/tpch/sqlite"
#define CACHE_FORMAT "strata-bench-tpch-db 1" /* first line of a cached database's marker */

static const size_def sizes[] = {
    {"tpch_sf_milli", 1000, 100, 10}, /* the scale factor in thousandths */
    {"tpch_runs", 5, 3, 1},           /* repeats of each prepared query after its first run */
    {"tpch_limit_s", 300, 120, 60},   /* the most one run of a query may take, seconds */
};

/* clang-format off */
#define Q(nn) {"tpch_q" #nn, "q" #nn}
static const workload_def workloads[] = {
    {"tpch_db", "db"}, Q(01), Q(02), Q(03), Q(04), Q(05), Q(06), Q(07), Q(08), Q(09), Q(10), Q(11),
    Q(12),             Q(13), Q(14), Q(15), Q(16), Q(17), Q(18), Q(19), Q(20), Q(21), Q(22),
};
#undef Q

#define QM(nn)                                                                                               \
    {"tpch_q" #nn "_first_ms", "tpch_q" #nn, "Q" #nn ": first run (fresh process: prepare + run)", "ms",      \
     "query run", NULL, K_TIME, NULL},                                                                       \
    {                                                                                                        \
        "tpch_q" #nn "_repeat_ms", "tpch_q" #nn, "   Q" #nn " repeat (median of %s runs)", "ms", "query run", \
            NULL, K_TIME, "tpch_runs"                                                                        \
    }
static const metric_def metrics[] = {
    {"tpch_db_load_s", "tpch_db",
     "TPC-H SF %s/1000: load of the database (only where it was loaded in this run, not taken from the cache)",
     "s", "load", NULL, K_TIME, "tpch_sf_milli"},
    {"tpch_db_bytes", "tpch_db", "   database size (file + WAL)", "bytes", "database", NULL, K_SIZE, NULL},
    QM(01), QM(02), QM(03), QM(04), QM(05), QM(06), QM(07), QM(08), QM(09), QM(10), QM(11),
    QM(12), QM(13), QM(14), QM(15), QM(16), QM(17), QM(18), QM(19), QM(20), QM(21), QM(22),
};
#undef QM

#define PH(nn) {"q" #nn, "db", "tpch_db"}
static const phase_def phases[] = {
    {"db", NULL, NULL}, PH(01), PH(02), PH(03), PH(04), PH(05), PH(06), PH(07), PH(08), PH(09), PH(10), PH(11),
    PH(12),             PH(13), PH(14), PH(15), PH(16), PH(17), PH(18), PH(19), PH(20), PH(21), PH(22),
};
#undef PH
/* clang-format on */

static const summary_def summaries[] = {
    {"tpch_q", "_first_ms", "first run"},
    {"tpch_q", "_repeat_ms", "repeat"},
};

static int is_strata(const engine *e) { return !strncmp(e->name, "strata", 6); } /* strata, strata-t1 */
static int is_sqlite(const engine *e) { return !strncmp(e->name, "sqlite", 6); }
static int is_duckdb(const engine *e) { return !strncmp(e->name, "duckdb", 6); }

static double scale_factor(const options *o) { return (double)size_of(o, "tpch_sf_milli") / 1000; }

/* ---------------------------------------------------------------------------------------------
** The databases: strata's in the run's folder (the parent of dir), the peers' cached beside the
** .tbl files. DuckDB's two engines share one file, and so do strata's two (the threads are a
** setting of the open, not of the data).
*/

static void database_path(char *out, size_t n, const engine *e, const char *dir, const char *data,
                          double sf) {
    if (is_strata(e)) {
        const char *slash = strrchr(dir, '/');
        snprintf(out, n, "%.*s/tpch-strata-sf%g.db", slash ? (int)(slash - dir) : 1, slash ? dir : ".", sf);
    } else
        snprintf(out, n, "%s/db-%s.db", data, is_duckdb(e) ? "duckdb" : "sqlite");
}

/* The marker of a cached database: CACHE_FORMAT, the engine's version and the scale factor. */
static void marker_text(char *out, size_t n, const engine *e, double sf) {
    snprintf(out, n, "%s\n%s\nsf %g\n", CACHE_FORMAT, e->version(), sf);
}

/* cached: the database at path is whole and made by this engine's version (strata: it exists). */
static int cached(const engine *e, const char *path, double sf) {
    char marker[4400], want[512], got[512] = "";
    if (is_strata(e)) return access(path, R_OK) == 0;
    snprintf(marker, sizeof marker, "%s.ok", path);
    FILE *f = fopen(marker, "r");
    if (f == NULL) return 0;
    size_t n = fread(got, 1, sizeof got - 1, f);
    got[n] = '\0';
    fclose(f);
    marker_text(want, sizeof want, e, sf);
    return strcmp(got, want) == 0;
}

static int write_marker(const engine *e, const char *path, double sf) {
    char marker[4400], text[512];
    if (is_strata(e)) return 0;
    snprintf(marker, sizeof marker, "%s.ok", path);
    marker_text(text, sizeof text, e, sf);
    FILE *f = fopen(marker, "w");
    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) return wl_failf("cannot write %s", marker);
    return 0;
}

/* The load phase: the database made when it is not there (or not whole), its size recorded. */
static int wl_db(const engine *e, const options *o, const char *dir) {
    char data[4096], path[4300], marker[4400];
    double sf = scale_factor(o), seconds;
    const char *why;
    if (!e->available(&why)) return wl_failf("%s", why);
    if (tpch_files(sf, (1u << TPCH_TABLE_COUNT) - 1, data, sizeof data)) return -1;
    database_path(path, sizeof path, e, dir, data, sf);
    if (!cached(e, path, sf)) {
        snprintf(marker, sizeof marker, "%s.ok", path);
        unlink(marker);
        fprintf(stderr, " [loading TPC-H SF %g into %s]", sf, path);
        peak_reset();
        if (tpch_load_db(e, path, sf, &seconds)) return -1;
        put_peak("tpch_db");
        put_metric("tpch_db_load_s", seconds);
        if (write_marker(e, path, sf)) return -1;
    }
    put_metric("tpch_db_bytes", db_size(path));
    return 0;
}

/* ---------------------------------------------------------------------------------------------
** The queries.
*/

typedef struct query_run {
    const char *workload;
    int limit_s;
} query_run;

/* One run of a prepared query to its end: rows into c->a, a hash of the normalized values into
** c->b and c->c. Each run gets the time limit afresh. */
static int run_tpch(const engine *e, void *stmt, void *arg, checksum *c) {
    const query_run *q = arg;
    char text[512], norm[512];
    uint64_t h = 0;
    int rc, len;
    workload_time_limit(q->workload, q->limit_s);
    memset(c, 0, sizeof *c);
    while ((rc = e->step(stmt)) == 1) {
        int ncols = e->column_count(stmt);
        for (int i = 0; i < ncols; i++) {
            const char *t = e->column_text(stmt, i, &len);
            if (t) snprintf(text, sizeof text, "%.*s", len, t);
            size_t n = strlen(tpch_normalize_value(t ? text : NULL, norm, sizeof norm));
            h = mix(h, sum_bytes(norm, n) + n);
        }
        h = mix(h, UINT64_C(0x1E)); /* the end of a row */
        c->a++;
    }
    alarm(0);
    c->b = h & MASK52, c->c = h >> 52;
    return rc < 0 ? -1 : 0;
}

static int wl_query(const engine *e, const options *o, const char *dir, int q, const char *w) {
    char data[4096], path[4300], file[256];
    double sf = scale_factor(o);
    if (tpch_files(sf, (1u << TPCH_TABLE_COUNT) - 1, data, sizeof data)) return -1;
    database_path(path, sizeof path, e, dir, data, sf);
    snprintf(file, sizeof file, "%s/q%02d.sql", is_sqlite(e) ? SQLITE_QUERIES_DIR : QUERIES_DIR, q);
    char *sql = tpch_read_file(file);
    if (sql == NULL) return wl_failf("cannot read %s: %s", file, strerror(errno));
    void *db = NULL;
    int rc = -1;
    if (e->open(path, &db)) {
        wl_fail(e, db, "open the TPC-H database");
        goto out;
    }
    if (is_sqlite(e) && e->exec(db, "PRAGMA case_sensitive_like = ON")) {
        wl_fail(e, db, "PRAGMA case_sensitive_like = ON");
        goto out;
    }
    query_run run = {w, (int)size_of(o, "tpch_limit_s")};
    rc = time_query(e, db, w, sql, (int)size_of(o, "tpch_runs"), run_tpch, &run, NULL);
out:
    e->close(db);
    free(sql);
    return rc;
}

static void run_phase(const engine *e, const options *o, const char *dir, const char *phase) {
    if (is_sqlite(e) && strcmp(e->name, "sqlite-wal")) { /* the queries only read: one journal mode */
        for (int i = 0; i < COUNT(workloads); i++)
            if (!strcmp(workloads[i].phase, phase)) not_applicable(workloads[i].id, "sqlite-wal only");
        return;
    }
    if (!strcmp(phase, "db")) {
        RUN_ALWAYS("tpch_db", wl_db(e, o, dir));
        return;
    }
    int q = atoi(phase + 1);
    if (q < 1 || q > TPCH_QUERY_COUNT || strcmp(workloads[q].phase, phase))
        die("tpch: unknown phase %s", phase);
    const char *w = workloads[q].id;
    /* the tiny run checks checksums in `make test`: there strata's pending queries would only time out */
    if (o->tiny && is_strata(e) && tpch_query_pending(q)) return not_applicable(w, TPCH_PENDING_REASON);
    RUN(w, wl_query(e, o, dir, q, w));
}

static void describe(FILE *out, const options *o) {
    double sf = scale_factor(o);
    fprintf(
        out,
        "- Data: TPC-H SF %g (`--size tpch_sf_milli=%llu`) of the project's generator, "
        "`datasets/tpch/schema.sql` "
        "verbatim for every engine (the spec's primary keys, no other index), loaded as the `load` suite "
        "loads it: strata and DuckDB `COPY` from the `.tbl` files (DuckDB with `SET threads = 2`), SQLite "
        "prepared INSERTs in one transaction; then reopened and checked (every table's count, lineitem's "
        "checksum). SQLite's and DuckDB's databases are cached in `bench/tmp/tpch-sf%g/` (`db-sqlite.db`, "
        "`db-duckdb.db`, shared by both DuckDB engines) with a marker naming the engine version that made "
        "them; strata's is loaded once per harness run. The load row shows a time only where this run "
        "loaded.\n",
        sf, (unsigned long long)size_of(o, "tpch_sf_milli"), sf);
    fprintf(
        out,
        "- Queries: `%s/qNN.sql` (the spec's validation parameters) for strata and DuckDB; SQLite runs "
        "`%s/qNN.sql`, copies adapted only where its dialect needs it (dates as ISO text, `date()` for "
        "intervals, strftime for EXTRACT, substr, Q6's BETWEEN bounds computed, Q13's column list; each "
        "file's header lists its changes), after `PRAGMA case_sensitive_like = ON`. SQLite in WAL mode only "
        "(`sqlite-wal`; the queries only read); DuckDB with its default threads (`duckdb`) and one thread "
        "(`duckdb-t1`).\n",
        QUERIES_DIR, SQLITE_QUERIES_DIR);
    fprintf(
        out,
        "- Each query in a fresh process per engine and repetition, the engine order rotating: open, "
        "`SELECT 1` (untimed), the first run (prepare + every row: the engine's cache is empty, the OS page "
        "cache is not dropped), then %llu runs of the prepared statement whose median is the repeat. Peak "
        "RSS from the first run to the last repeat. A run longer than %llu s (`--size tpch_limit_s=N`) is "
        "stopped and the query shown as failed, like a query the engine refuses; such queries are left out "
        "of the geomean and total rows, which cover only the queries every engine finished (named "
        "above when any was left out).",
        (unsigned long long)size_of(o, "tpch_runs"), (unsigned long long)size_of(o, "tpch_limit_s"));
    if (o->tiny)
        fprintf(out, " In this tiny run strata's pending queries (%s) are n/a.", TPCH_PENDING_REASON);
    fprintf(
        out,
        "\n- Checks: every repeat returns the first run's rows; the engines' checksums (row count and a hash "
        "of every value's text, numbers rounded to 2 decimals first, since SQLite computes DECIMAL columns "
        "in "
        "REAL and the engines print numbers differently) are compared, and a disagreement is reported (a "
        "value on a half cent can "
        "round apart). Exact answers are checked by `make tpch-check` against SQLite's and DuckDB's results "
        "(tests/datasets/tpch-expected/).\n");
}

const suite suite_tpch = {
    .id = "tpch",
    .title = "TPC-H: the 22 queries, strata vs SQLite WAL and DuckDB (default threads and threads=1)",
    SUITE_TABLES,
    .run_phase = run_phase,
    .describe = describe,
    .summaries = summaries,
    .nsummaries = COUNT(summaries),
};
