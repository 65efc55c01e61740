/*
** harness.c -- the benchmark harness: strata against SQLite and DuckDB, side by side.
**
** Every workload is written once against the engine interface of engine.h; the engines are
** strata (its public API), SQLite in its WAL + FULL, TRUNCATE + FULL and OFF modes, and DuckDB
** (loaded with dlopen; "not installed" when missing). bench/README.md describes the workloads,
** the method and the files a run writes.
**
** Method: each (engine, phase, repetition) runs in a fresh process -- the program re-executes
** itself with --child -- on a fresh database in bench/tmp/. A phase is a workload or a few that
** must share a process (the warm reads run right after the load they read). The engine order
** rotates per repetition. Every read workload returns a checksum of its result that must equal
** the one computed from the data generator, and the parent compares the engines' checksums:
** a disagreement fails the run naming the workload. A failing workload (error, wrong result,
** crash, timeout) is reported with its message and the others still run; work an engine cannot
** do is "n/a" with the reason.
**
** The child writes a result file of lines, flushed as written: "run W" before workload W (so a
** crash names it), "done W", "err W message", "na W reason", "m METRIC value", "ck W a b c".
*/
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_common.h"
#include "engine.h"

#ifndef BENCH_CFLAGS
#define BENCH_CFLAGS "unknown (not built by the Makefile)"
#endif
#ifndef BENCH_LIB
#define BENCH_LIB "unknown"
#endif

#define VALUE_LEN 32     /* characters of t.v */
#define POOL_BYTES 65536 /* values are windows of this pool of random characters (power of two) */
#define REGIONS 100
#define DEFAULT_REPS 5
#define DEFAULT_TIMEOUT 1800 /* seconds per child process */
#define MASK52 ((UINT64_C(1) << 52) - 1) /* checksums travel as doubles: keep them exact */
#define MAX_REPS 100

/* ---------------------------------------------------------------------------------------------
** Sizes, engines, workloads and metrics.
*/

enum size_key { S_ONE, S_ROWS, S_LOOKUPS, S_COMMITS, S_SALES, S_QUERY_RUNS, S_COUNT };
static const char *const size_ids[S_COUNT] = {"one", "rows", "lookups", "commits", "sales", "query_runs"};
/* The seeds' sizes, the quick sizes and the tiny sizes (CI: checksums only). */
static const uint64_t full_sizes[S_COUNT] = {1, 100000, 10000, 200, 200000, 5};
static const uint64_t quick_sizes[S_COUNT] = {1, 20000, 2000, 50, 40000, 3};
static const uint64_t tiny_sizes[S_COUNT] = {1, 500, 100, 5, 1000, 1};

static const engine *const all_engines[] = {&engine_strata, &engine_sqlite_wal, &engine_sqlite_truncate,
                                            &engine_sqlite_off, &engine_duckdb};
#define N_ENGINES ((int)(sizeof all_engines / sizeof all_engines[0]))

typedef struct workload {
    const char *id;
    const char *phase; /* the child phase that runs it */
    const char *group; /* --workloads accepts group names too */
} workload;

static const workload workloads[] = {
    {"bulk_insert", "oltp", "sql"},        {"lookup_warm", "oltp", "sql"},     {"scan_warm", "oltp", "sql"},
    {"count", "oltp", "sql"},              {"open", "oltp", "sql"},            {"lookup_cold", "oltp", "sql"},
    {"scan_cold", "oltp", "sql"},          {"durable_commits", "oltp", "sql"}, {"load_sales", "load", "sql"},
    {"q_filter_sum", "query0", "sql"},     {"q_group_by", "query1", "sql"},
    {"q_arith_filter_agg", "query2", "sql"},
};
#define N_WORKLOADS ((int)(sizeof workloads / sizeof workloads[0]))
static const char *const phases[] = {"oltp", "load", "query0", "query1", "query2"};
#define N_PHASES ((int)(sizeof phases / sizeof phases[0]))

enum kind { K_TIME, K_MEMORY, K_SIZE, K_INFO };
static const char *const kind_names[] = {"time", "memory", "size", "info"};

typedef struct metric_def {
    const char *id;
    const char *workload;
    const char *label; /* NULL: JSON only; %s gets the count of size_key */
    const char *unit;
    const char *per; /* the unit of work */
    int size_key;    /* how many units of work the figure covers */
    int kind;
    int label_key; /* the count the label shows */
} metric_def;

static const metric_def metrics[] = {
    {"bulk_insert_ms", "bulk_insert", "bulk insert, %s rows, 1 txn", "ms", "row", S_ROWS, K_TIME, S_ROWS},
    {"lookup_warm_ms", "lookup_warm", "point lookup ×%s, warm", "ms", "lookup", S_LOOKUPS, K_TIME, S_LOOKUPS},
    {"lookup_cold_ms", "lookup_cold", "point lookup ×%s, cold (reopened)", "ms", "lookup", S_LOOKUPS, K_TIME, S_LOOKUPS},
    {"scan_warm_ms", "scan_warm", "scan, read all %s values, warm", "ms", "row", S_ROWS, K_TIME, S_ROWS},
    {"scan_cold_ms", "scan_cold", "scan, read all %s values, cold (reopened)", "ms", "row", S_ROWS, K_TIME, S_ROWS},
    {"count_ms", "count", "count(*) of %s rows, warm", "ms", "query", S_ONE, K_TIME, S_ROWS},
    {"open_ms", "open", "open + first lookup", "ms", "open", S_ONE, K_TIME, S_ONE},
    {"commit_us_mean", "durable_commits", "%s single-row durable txns, mean", "µs", "commit", S_ONE, K_TIME, S_COMMITS},
    {"commit_us_p50", "durable_commits", "   single-row durable txn, p50", "µs", "commit", S_ONE, K_TIME, S_ONE},
    {"commit_us_p99", "durable_commits", "   single-row durable txn, p99", "µs", "commit", S_ONE, K_TIME, S_ONE},
    {"load_sales_ms", "load_sales", "load analytic table, %s rows", "ms", "row", S_SALES, K_TIME, S_SALES},
    {"q_filter_sum_first_ms", "q_filter_sum", "filter + sum: first run", "ms", "query", S_ONE, K_TIME, S_ONE},
    {"q_filter_sum_repeat_ms", "q_filter_sum", "filter + sum: repeat (median)", "ms", "query", S_ONE, K_TIME, S_ONE},
    {"q_group_by_first_ms", "q_group_by", "GROUP BY, 100 groups: first run", "ms", "query", S_ONE, K_TIME, S_ONE},
    {"q_group_by_repeat_ms", "q_group_by", "GROUP BY, 100 groups: repeat (median)", "ms", "query", S_ONE, K_TIME, S_ONE},
    {"q_arith_filter_agg_first_ms", "q_arith_filter_agg", "arithmetic filter + aggregate: first run", "ms", "query",
     S_ONE, K_TIME, S_ONE},
    {"q_arith_filter_agg_repeat_ms", "q_arith_filter_agg", "arithmetic filter + aggregate: repeat (median)", "ms",
     "query", S_ONE, K_TIME, S_ONE},
    {"size_t_bytes", "scan_warm", "size of t after the bulk insert (file + WAL)", "bytes", "db", S_ONE, K_SIZE, S_ONE},
    {"size_sales_bytes", "load_sales", "size of sales after the load (file + WAL)", "bytes", "db", S_ONE, K_SIZE, S_ONE},
    {"disk_floor_us", "durable_commits", NULL, "µs", "write", S_ONE, K_INFO, S_ONE},
    {"load1_at_end", NULL, NULL, "", "", S_ONE, K_INFO, S_ONE},
};
#define N_METRICS ((int)(sizeof metrics / sizeof metrics[0]))
/* every workload also has a peak-memory metric "peak_kib_<workload>", index N_METRICS + w */
#define N_ALL_METRICS (N_METRICS + N_WORKLOADS)

static const char *const query_sql[3] = {
    "SELECT sum(price) FROM sales WHERE qty > 50",
    "SELECT region, count(*), sum(qty) FROM sales GROUP BY region",
    "SELECT sum(price * qty) FROM sales WHERE price * qty > 1000",
};

static int workload_index(const char *id) {
    for (int w = 0; w < N_WORKLOADS; w++)
        if (!strcmp(workloads[w].id, id)) return w;
    return -1;
}

static char peak_ids[N_WORKLOADS][64];

static const char *metric_id(int m) { return m < N_METRICS ? metrics[m].id : peak_ids[m - N_METRICS]; }

static int metric_index(const char *id) {
    for (int m = 0; m < N_ALL_METRICS; m++)
        if (!strcmp(metric_id(m), id)) return m;
    return -1;
}

/* the workload a metric belongs to, -1 for none */
static int metric_workload(int m) {
    if (m >= N_METRICS) return m - N_METRICS;
    return metrics[m].workload ? workload_index(metrics[m].workload) : -1;
}

/* ---------------------------------------------------------------------------------------------
** Deterministic data.
*/

static char value_pool[POOL_BYTES + VALUE_LEN];

static void value_pool_init(void) {
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    uint64_t s = 0x5EED0002u;
    for (size_t i = 0; i < sizeof value_pool; i++)
        value_pool[i] = alphabet[below(&s, sizeof alphabet - 1)];
}

/* The 32 characters of t.v for key k (not NUL-terminated). */
static const char *value_for(uint64_t k) {
    uint64_t s = k ^ 0xA5A5A5A5DEADBEEFu;
    return value_pool + (splitmix64(&s) & (POOL_BYTES - 1));
}

/* One row of sales. price is a multiple of 0.25, so that every sum the queries take is exact in
** a double whatever the order of addition, and all engines must give identical results. */
typedef struct sale {
    int64_t id, region, qty, day;
    double price;
} sale;

static sale sale_for(uint64_t id) {
    uint64_t s = id * 0x100000001B3u + 0x5A1E5u;
    sale r = {.id = (int64_t)id};
    r.region = (int64_t)below(&s, REGIONS);
    r.qty = 1 + (int64_t)below(&s, 100);
    r.price = (double)(1 + below(&s, 400)) * 0.25;
    r.day = 19000 + (int64_t)below(&s, 365);
    return r;
}

/* sum_bytes adds p up as little-endian 64-bit words and then its last n % 8 bytes: cheap, and
** every byte counts. */
static uint64_t sum_bytes(const char *p, size_t n) {
    uint64_t s = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        s += w;
    }
    for (; i < n; i++)
        s += (unsigned char)p[i];
    return s;
}

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15u + (h << 6) + (h >> 2);
    return splitmix64(&h);
}

static uint64_t double_bits(double d) {
    uint64_t u;
    d += 0.0; /* -0.0 -> 0.0 */
    memcpy(&u, &d, sizeof u);
    return u;
}

/* The checksum of a read workload's result: row count and two order-independent sums, each
** kept below 2^52 so that it travels exactly as a double. */
typedef struct checksum {
    uint64_t a, b, c;
} checksum;

static int checksum_equal(const checksum *x, const checksum *y) {
    return ((x->a ^ y->a) & MASK52) == 0 && ((x->b ^ y->b) & MASK52) == 0 && ((x->c ^ y->c) & MASK52) == 0;
}

static void add_row(checksum *c, uint64_t k, const char *v, size_t len) {
    c->a++, c->b += k, c->c += sum_bytes(v, len) + len;
}

/* ---------------------------------------------------------------------------------------------
** Options.
*/

typedef struct options {
    uint64_t size[S_COUNT];
    int reps, timeout, keep, save, tiny, quick;
    int use_engine[N_ENGINES];
    int use_workload[N_WORKLOADS];
    const char *engines_arg, *workloads_arg;
    /* child only */
    const char *child_engine, *child_dir, *phase;
} options;

static void usage(void) {
    fprintf(stderr,
            "usage: harness [--quick | --tiny] [--reps N] [--engines E,...] [--workloads W,...]\n"
            "               [--rows N] [--lookups N] [--commits N] [--sales N] [--query-runs N]\n"
            "               [--timeout S] [--keep] [--no-save]\n"
            "  --quick        a small version: 20k rows, 2k lookups, 50 commits, 40k sales, 3 query runs\n"
            "  --tiny         checksums only (CI): 500 rows, 1 repetition, nothing saved, no timing verdicts\n"
            "  --reps N       repetitions per engine (default %d), each in fresh processes\n"
            "  --engines      any of strata, sqlite-wal, sqlite-truncate, sqlite-off, duckdb (default all)\n"
            "  --workloads    workload ids or the group 'sql' (default all); see bench/README.md\n"
            "  --keep         keep the databases under bench/tmp/\n"
            "  --no-save      print the report only (no files under bench/results/)\n",
            DEFAULT_REPS);
    exit(2);
}

static uint64_t parse_count(const char *s, const char *opt) {
    char *end;
    if (s == NULL) usage();
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v == 0) {
        fprintf(stderr, "harness: %s needs a positive number, not '%s'\n", opt, s ? s : "");
        exit(2);
    }
    return v;
}

/* select_list marks the names of a comma-separated list in use[]; names[i](i) gives the i-th
** name, group(i) (may be NULL) a group name that also selects it. Unknown names are fatal. */
static void select_engines(const char *list, int *use) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int e = 0; e < N_ENGINES; e++)
            if (!strcmp(t, all_engines[e]->name) || (!strcmp(t, "sqlite") && !strncmp(all_engines[e]->name, "sqlite", 6)))
                use[e] = 1, found = 1;
        if (!found) {
            fprintf(stderr, "harness: unknown engine '%s'\n", t);
            usage();
        }
    }
}

static void select_workloads(const char *list, int *use) {
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int w = 0; w < N_WORKLOADS; w++)
            if (!strcmp(t, workloads[w].id) || !strcmp(t, workloads[w].group) || !strcmp(t, "all"))
                use[w] = 1, found = 1;
        if (!found) {
            fprintf(stderr, "harness: unknown workload '%s'\n", t);
            usage();
        }
    }
}

static void parse_options(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    memcpy(o->size, full_sizes, sizeof o->size);
    o->reps = DEFAULT_REPS, o->timeout = DEFAULT_TIMEOUT, o->save = 1;
    o->engines_arg = "strata,sqlite-wal,sqlite-truncate,sqlite-off,duckdb";
    o->workloads_arg = "all";
    uint64_t given[S_COUNT] = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        int s = -1;
        if (!strcmp(a, "--quick"))
            o->quick = 1;
        else if (!strcmp(a, "--tiny"))
            o->tiny = 1;
        else if (!strcmp(a, "--reps"))
            o->reps = (int)parse_count(next, a), i++;
        else if (!strcmp(a, "--timeout"))
            o->timeout = (int)parse_count(next, a), i++;
        else if (!strcmp(a, "--engines") && next)
            o->engines_arg = next, i++;
        else if (!strcmp(a, "--workloads") && next)
            o->workloads_arg = next, i++;
        else if (!strcmp(a, "--keep"))
            o->keep = 1;
        else if (!strcmp(a, "--no-save"))
            o->save = 0;
        else if (!strcmp(a, "--child") && i + 3 < argc) {
            o->child_engine = argv[++i];
            o->child_dir = argv[++i];
            o->phase = argv[++i];
        } else if (!strcmp(a, "--rows"))
            s = S_ROWS;
        else if (!strcmp(a, "--lookups"))
            s = S_LOOKUPS;
        else if (!strcmp(a, "--commits"))
            s = S_COMMITS;
        else if (!strcmp(a, "--sales"))
            s = S_SALES;
        else if (!strcmp(a, "--query-runs"))
            s = S_QUERY_RUNS;
        else
            usage();
        if (s >= 0) given[s] = parse_count(next, a), i++;
    }
    if (o->tiny) memcpy(o->size, tiny_sizes, sizeof o->size), o->reps = 1, o->save = 0;
    if (o->quick) memcpy(o->size, quick_sizes, sizeof o->size);
    for (int s = 0; s < S_COUNT; s++)
        if (given[s]) o->size[s] = given[s];
    if (o->reps > MAX_REPS) o->reps = MAX_REPS;
    select_engines(o->engines_arg, o->use_engine);
    select_workloads(o->workloads_arg, o->use_workload);
}

/* ---------------------------------------------------------------------------------------------
** The child's side: running workloads and writing the result file.
*/

static FILE *result_file;
static char wl_error[1024]; /* the message of the workload that just failed */

static void result_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void result_line(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(result_file, fmt, ap);
    va_end(ap);
    fputc('\n', result_file);
    fflush(result_file);
}

static void put_metric(const char *id, double v) { result_line("m %s %.17g", id, v); }
static void put_peak(const char *w) { result_line("m peak_kib_%s %.17g", w, peak_kib()); }
static void put_checksum(const char *w, const checksum *c) {
    result_line("ck %s %llu %llu %llu", w, (unsigned long long)(c->a & MASK52),
                (unsigned long long)(c->b & MASK52), (unsigned long long)(c->c & MASK52));
}

/* fail records "what: engine message" as the failing workload's message, on one line, and
** returns -1. */
static int fail(const engine *e, void *db, const char *what) {
    snprintf(wl_error, sizeof wl_error, "%s: %s", what, e->errmsg(db));
    for (char *p = wl_error; *p; p++)
        if (*p == '\n') *p = ' ';
    return -1;
}

static int wrong_result(const char *what, const checksum *got, const checksum *want) {
    snprintf(wl_error, sizeof wl_error, "wrong result of %s: checksum %llu/%llu/%llu, expected %llu/%llu/%llu",
             what, (unsigned long long)got->a, (unsigned long long)got->b, (unsigned long long)got->c,
             (unsigned long long)want->a, (unsigned long long)want->b, (unsigned long long)want->c);
    return -1;
}

static double ms_since(uint64_t t0) { return (double)(now_ns() - t0) / 1e6; }

/* --- t(k, v): bulk insert, lookups, scans, count, open, durable commits -------------------- */

static int wl_bulk(const engine *e, void *db, const options *o) {
    void *ld = NULL;
    if (e->exec(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT)")) return fail(e, db, "CREATE TABLE t");
    peak_reset();
    uint64_t t0 = now_ns();
    if (e->load_begin(db, "t", 2, &ld)) return fail(e, db, "begin the load of t");
    for (uint64_t k = 0; k < o->size[S_ROWS]; k++)
        if (e->load_int64(ld, (int64_t)k) || e->load_text(ld, value_for(k), VALUE_LEN) || e->load_end_row(ld)) {
            fail(e, db, "load a row of t");
            e->load_abort(ld);
            return -1;
        }
    if (e->load_finish(ld)) return fail(e, db, "finish the load of t");
    put_metric("bulk_insert_ms", ms_since(t0));
    put_peak("bulk_insert");
    return 0;
}

/* Uniformly random existing keys, each lookup its own autocommit read; prepare included. */
static int wl_lookups(const engine *e, void *db, const options *o, const char *w) {
    checksum want = {0}, got = {0};
    uint64_t rng = 0x6E75C0DEu, n = o->size[S_LOOKUPS], rows = o->size[S_ROWS];
    for (uint64_t i = 0; i < n; i++) {
        uint64_t k = below(&rng, rows);
        add_row(&want, k, value_for(k), VALUE_LEN);
    }
    void *sel = NULL;
    peak_reset();
    rng = 0x6E75C0DEu;
    uint64_t t0 = now_ns();
    if (e->prepare(db, "SELECT v FROM t WHERE k = ?", &sel)) return fail(e, db, "prepare SELECT v FROM t WHERE k = ?");
    for (uint64_t i = 0; i < n; i++) {
        uint64_t k = below(&rng, rows);
        int len, rc;
        if (e->reset(sel) || e->bind_int64(sel, 1, (int64_t)k) || (rc = e->step(sel)) < 0) goto fail;
        if (rc == 0) continue; /* no row: the checksum says so */
        const char *v = e->column_text(sel, 0, &len);
        if (v == NULL) goto fail;
        add_row(&got, k, v, (size_t)len);
    }
    e->reset(sel); /* ends the last read */
    double ms = ms_since(t0);
    e->finalize(sel);
    if (!checksum_equal(&got, &want)) return wrong_result("the lookups", &got, &want);
    char id[64];
    snprintf(id, sizeof id, "%s_ms", w);
    put_metric(id, ms);
    put_peak(w);
    put_checksum(w, &got);
    return 0;
fail:
    fail(e, db, "SELECT v FROM t WHERE k = ?");
    e->finalize(sel);
    return -1;
}

/* Every row, every value read; the checksum does not depend on the row order. */
static int wl_scan(const engine *e, void *db, const options *o, const char *w) {
    checksum want = {0}, got = {0};
    for (uint64_t k = 0; k < o->size[S_ROWS]; k++)
        add_row(&want, k, value_for(k), VALUE_LEN);
    void *scan = NULL;
    int rc;
    peak_reset();
    uint64_t t0 = now_ns();
    if (e->prepare(db, "SELECT k, v FROM t", &scan)) return fail(e, db, "prepare SELECT k, v FROM t");
    while ((rc = e->step(scan)) == 1) {
        int len;
        int64_t k = e->column_int64(scan, 0);
        const char *v = e->column_text(scan, 1, &len);
        if (v == NULL) break;
        add_row(&got, (uint64_t)k, v, (size_t)len);
    }
    double ms = ms_since(t0);
    if (rc != 0) {
        fail(e, db, "SELECT k, v FROM t");
        e->finalize(scan);
        return -1;
    }
    e->finalize(scan);
    if (!checksum_equal(&got, &want)) return wrong_result("the scan", &got, &want);
    char id[64];
    snprintf(id, sizeof id, "%s_ms", w);
    put_metric(id, ms);
    put_peak(w);
    put_checksum(w, &got);
    return 0;
}

/* query_one runs sql (no parameters) and returns its first row's first column as an integer. */
static int query_one(const engine *e, void *db, const char *sql, int64_t *out) {
    void *s = NULL;
    if (e->prepare(db, sql, &s)) return fail(e, db, sql);
    int rc = e->step(s);
    if (rc == 1) *out = e->column_int64(s, 0);
    if (rc != 1) fail(e, db, sql);
    e->finalize(s);
    return rc == 1 ? 0 : -1;
}

static int wl_count(const engine *e, void *db, const options *o) {
    int64_t n = 0;
    peak_reset();
    uint64_t t0 = now_ns();
    if (query_one(e, db, "SELECT count(*) FROM t", &n)) return -1;
    double ms = ms_since(t0);
    checksum got = {(uint64_t)n, 0, 0}, want = {o->size[S_ROWS], 0, 0};
    if (!checksum_equal(&got, &want)) return wrong_result("count(*)", &got, &want);
    put_metric("count_ms", ms);
    put_peak("count");
    put_checksum("count", &got);
    return 0;
}

/* open: the database is closed; open it and read one row. *dbp gets the open handle. */
static int wl_open(const engine *e, const char *path, void **dbp) {
    void *db = NULL, *sel = NULL;
    int len = 0;
    peak_reset();
    uint64_t t0 = now_ns();
    if (e->open(path, &db)) {
        fail(e, db, "open");
        e->close(db);
        return -1;
    }
    *dbp = db;
    if (e->prepare(db, "SELECT v FROM t WHERE k = 0", &sel)) return fail(e, db, "prepare the first lookup");
    int rc = e->step(sel);
    const char *v = rc == 1 ? e->column_text(sel, 0, &len) : NULL;
    double ms = ms_since(t0);
    checksum got = {0}, want = {0};
    if (v) add_row(&got, 0, v, (size_t)len);
    add_row(&want, 0, value_for(0), VALUE_LEN);
    if (rc < 0) fail(e, db, "the first lookup");
    e->finalize(sel);
    if (rc < 0) return -1;
    if (!checksum_equal(&got, &want)) return wrong_result("the first lookup", &got, &want);
    put_metric("open_ms", ms);
    put_peak("open");
    put_checksum("open", &got);
    return 0;
}

/* Keys N, N+1, ... each inserted by an autocommit INSERT: one durable transaction each. */
static int wl_commits(const engine *e, void *db, const options *o) {
    uint64_t n = o->size[S_COMMITS], *lat = malloc(n * sizeof *lat), total = 0;
    void *ins = NULL;
    if (lat == NULL) die("out of memory");
    if (e->prepare(db, "INSERT INTO t(k, v) VALUES (?, ?)", &ins)) {
        free(lat);
        return fail(e, db, "prepare INSERT");
    }
    peak_reset();
    for (uint64_t i = 0; i < n; i++) {
        uint64_t k = o->size[S_ROWS] + i, t0 = now_ns();
        if (e->reset(ins) || e->bind_int64(ins, 1, (int64_t)k) || e->bind_text(ins, 2, value_for(k), VALUE_LEN) ||
            e->step(ins) != 0) {
            fail(e, db, "autocommit INSERT");
            e->finalize(ins);
            free(lat);
            return -1;
        }
        lat[i] = now_ns() - t0;
        total += lat[i];
    }
    put_peak("durable_commits");
    e->finalize(ins);
    qsort(lat, n, sizeof *lat, cmp_u64);
    put_metric("commit_us_mean", (double)total / (double)n / 1e3);
    put_metric("commit_us_p50", (double)lat[(n - 1) / 2] / 1e3);
    put_metric("commit_us_p99", (double)lat[(size_t)ceil(0.99 * (double)n) - 1] / 1e3);
    free(lat);
    return 0;
}

/* After the commits and a reopen, the last committed row must be there. */
static int check_last_commit(const engine *e, void *db, const options *o) {
    void *sel = NULL;
    uint64_t k = o->size[S_ROWS] + o->size[S_COMMITS] - 1;
    int len = 0;
    if (e->prepare(db, "SELECT v FROM t WHERE k = ?", &sel)) return fail(e, db, "prepare SELECT after reopen");
    int rc = e->bind_int64(sel, 1, (int64_t)k) ? -1 : e->step(sel);
    const char *v = rc == 1 ? e->column_text(sel, 0, &len) : NULL;
    int ok = v && len == VALUE_LEN && memcmp(v, value_for(k), VALUE_LEN) == 0;
    if (rc < 0)
        fail(e, db, "SELECT after reopen");
    else if (!ok)
        snprintf(wl_error, sizeof wl_error, "the last committed row (k = %llu) is missing or wrong after reopen",
                 (unsigned long long)k);
    e->finalize(sel);
    return ok ? 0 : -1;
}

/* --- the analytic table ------------------------------------------------------------------ */

static int wl_load_sales(const engine *e, void *db, const options *o) {
    void *ld = NULL;
    if (e->exec(db, "CREATE TABLE sales(id INTEGER PRIMARY KEY, region INTEGER, qty INTEGER, price DOUBLE, "
                    "day INTEGER)"))
        return fail(e, db, "CREATE TABLE sales");
    peak_reset();
    uint64_t t0 = now_ns();
    if (e->load_begin(db, "sales", 5, &ld)) return fail(e, db, "begin the load of sales");
    for (uint64_t i = 0; i < o->size[S_SALES]; i++) {
        sale s = sale_for(i);
        if (e->load_int64(ld, s.id) || e->load_int64(ld, s.region) || e->load_int64(ld, s.qty) ||
            e->load_double(ld, s.price) || e->load_int64(ld, s.day) || e->load_end_row(ld)) {
            fail(e, db, "load a row of sales");
            e->load_abort(ld);
            return -1;
        }
    }
    if (e->load_finish(ld)) return fail(e, db, "finish the load of sales");
    put_metric("load_sales_ms", ms_since(t0));
    put_peak("load_sales");
    return 0;
}

static uint64_t group_row_hash(int64_t region, int64_t count, int64_t sum_qty) {
    return mix(mix(mix(0, (uint64_t)region), (uint64_t)count), (uint64_t)sum_qty) & MASK52;
}

/* The result of query q computed from the data generator. */
static checksum query_expected(int q, const options *o) {
    checksum c = {0};
    if (q == 1) {
        int64_t count[REGIONS] = {0}, qty[REGIONS] = {0};
        for (uint64_t i = 0; i < o->size[S_SALES]; i++) {
            sale s = sale_for(i);
            count[s.region]++, qty[s.region] += s.qty;
        }
        for (int r = 0; r < REGIONS; r++)
            if (count[r]) c.a++, c.b += (uint64_t)count[r], c.c = (c.c + group_row_hash(r, count[r], qty[r])) & MASK52;
        return c;
    }
    double sum = 0;
    for (uint64_t i = 0; i < o->size[S_SALES]; i++) {
        sale s = sale_for(i);
        if (q == 0 && s.qty > 50) sum += s.price;
        if (q == 2 && s.price * (double)s.qty > 1000) sum += s.price * (double)s.qty;
    }
    c.a = 1, c.b = double_bits(sum) >> 12, c.c = double_bits(sum) & 0xFFF;
    return c;
}

/* One run of the prepared query to its end, its result folded into *c. */
static int run_query(const engine *e, void *stmt, int q, checksum *c) {
    int rc;
    memset(c, 0, sizeof *c);
    while ((rc = e->step(stmt)) == 1) {
        c->a++;
        if (q == 1) {
            int64_t count = e->column_int64(stmt, 1);
            c->b += (uint64_t)count;
            c->c = (c->c + group_row_hash(e->column_int64(stmt, 0), count, e->column_int64(stmt, 2))) & MASK52;
        } else {
            uint64_t u = double_bits(e->column_double(stmt, 0));
            c->b = u >> 12, c->c = u & 0xFFF;
        }
    }
    return rc;
}

/* Query q on the loaded table in a fresh process: the first run (prepare included), then
** query_runs runs of the prepared statement (reset, run to the end), their median. */
static int wl_query(const engine *e, void *db, const options *o, int q, const char *w) {
    checksum want = query_expected(q, o), got;
    void *stmt = NULL;
    int runs_n = (int)o->size[S_QUERY_RUNS];
    double *runs = calloc((size_t)runs_n, sizeof *runs);
    if (runs == NULL) die("out of memory");
    /* Every engine reads its catalog here, so that the first run does not pay for it in one
    ** engine only (SQLite reads its schema at the first prepare, strata at open). */
    if (e->prepare(db, "SELECT 1", &stmt) == 0) {
        e->step(stmt);
        e->finalize(stmt);
        stmt = NULL;
    }
    peak_reset();
    uint64_t t0 = now_ns();
    if (e->prepare(db, query_sql[q], &stmt) || run_query(e, stmt, q, &got) < 0) goto fail;
    double first = ms_since(t0);
    if (!checksum_equal(&got, &want)) goto wrong;
    for (int r = 0; r < runs_n; r++) {
        t0 = now_ns();
        if (e->reset(stmt) || run_query(e, stmt, q, &got) < 0) goto fail;
        runs[r] = ms_since(t0);
        if (!checksum_equal(&got, &want)) goto wrong;
    }
    char id[96];
    snprintf(id, sizeof id, "%s_first_ms", w);
    put_metric(id, first);
    snprintf(id, sizeof id, "%s_repeat_ms", w);
    put_metric(id, summary_of(runs, runs_n).median);
    put_peak(w);
    put_checksum(w, &got);
    e->finalize(stmt);
    free(runs);
    return 0;
fail:
    fail(e, db, query_sql[q]);
    goto out;
wrong:
    wrong_result(query_sql[q], &got, &want);
out:
    e->finalize(stmt);
    free(runs);
    return -1;
}

/* --- phases ------------------------------------------------------------------------------ */

static const options *child_opts;

/* run_workload announces w, runs its body (an expression that is 0 on success) and records the
** outcome; it returns 0 when w succeeded or was not selected (then the body is not run). */
#define RUN(w, call)                                                                                        \
    (!selected(w) ? 0                                                                                       \
                  : (result_line("run %s", w), current_workload = w, wl_error[0] = '\0',                    \
                     (call) == 0 ? (result_line("done %s", w), 0) : (result_line("err %s %s", w, wl_error), -1)))

static int selected(const char *w) {
    int i = workload_index(w);
    return i >= 0 && child_opts->use_workload[i];
}

static void skip_rest(const char *const *ws, int n, const char *why) {
    for (int i = 0; i < n; i++)
        if (selected(ws[i])) result_line("err %s not run: %s", ws[i], why);
}

static void db_path(char *out, size_t n, const options *o, const char *name) {
    snprintf(out, n, "%s/%s.db", o->child_dir, name);
}

/* remove_db removes a database and every side file an engine may keep beside it. */
static void remove_db(const char *path) {
    static const char *const sides[] = {"", "-wal", "-shm", "-journal", ".wal"};
    char p[4300];
    for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++) {
        snprintf(p, sizeof p, "%s%s", path, sides[i]);
        unlink(p);
    }
}

static double db_size(const char *path) {
    static const char *const sides[] = {"", "-wal", "-journal", ".wal"};
    char p[4300];
    double total = 0;
    for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++) {
        snprintf(p, sizeof p, "%s%s", path, sides[i]);
        total += file_size(p);
    }
    return total;
}

/* open_db opens path; on failure it records the message for the workloads ws[0..n) and returns
** NULL. */
static void *open_db(const engine *e, const char *path, const char *const *ws, int n) {
    void *db = NULL;
    if (e->open(path, &db) == 0) return db;
    char what[4300];
    snprintf(what, sizeof what, "open %s", path);
    fail(e, db, what);
    for (int i = 0; i < n; i++)
        if (selected(ws[i])) result_line("err %s %s", ws[i], wl_error);
    e->close(db);
    return NULL;
}

static void phase_oltp(const engine *e, const options *o) {
    static const char *const later[] = {"lookup_warm", "scan_warm", "count",         "open",
                                        "lookup_cold", "scan_cold", "durable_commits"};
    const int n_later = (int)(sizeof later / sizeof later[0]);
    char path[4200];
    db_path(path, sizeof path, o, "t");
    remove_db(path);
    void *db = open_db(e, path, (const char *const[]){"bulk_insert"}, 1);
    if (db == NULL) return skip_rest(later, n_later, "the database did not open");
    /* everything after the bulk insert reads its rows: it always runs */
    result_line("run bulk_insert"), current_workload = "bulk_insert", wl_error[0] = '\0';
    if (wl_bulk(e, db, o)) {
        if (selected("bulk_insert")) result_line("err bulk_insert %s", wl_error);
        e->close(db);
        return skip_rest(later, n_later, "the bulk insert failed");
    }
    if (selected("bulk_insert")) result_line("done bulk_insert");
    RUN("lookup_warm", wl_lookups(e, db, o, "lookup_warm"));
    RUN("scan_warm", wl_scan(e, db, o, "scan_warm"));
    RUN("count", wl_count(e, db, o));
    e->close(db);
    put_metric("size_t_bytes", db_size(path));

    db = NULL;
    if (selected("open")) {
        if (RUN("open", wl_open(e, path, &db))) {
            if (db) e->close(db);
            return skip_rest(later + 5, 2, "the reopen failed");
        }
        e->close(db);
    }
    if ((db = open_db(e, path, later + 4, 3)) == NULL) return;
    RUN("lookup_cold", wl_lookups(e, db, o, "lookup_cold"));
    e->close(db);
    if ((db = open_db(e, path, later + 5, 2)) == NULL) return;
    RUN("scan_cold", wl_scan(e, db, o, "scan_cold"));
    if (selected("durable_commits")) {
        char scratch[4300];
        snprintf(scratch, sizeof scratch, "%s/disk-check.dat", o->child_dir);
        current_workload = "disk check";
        put_metric("disk_floor_us", floor_median_us(scratch, 1, 32));
        if (RUN("durable_commits", wl_commits(e, db, o)) == 0) {
            e->close(db);
            if ((db = open_db(e, path, later + 6, 1)) == NULL) return;
            /* the figures stay; the failure of this check marks the workload failed */
            RUN("durable_commits", check_last_commit(e, db, o));
        }
    }
    e->close(db);
}

static void phase_load(const engine *e, const options *o) {
    char path[4200];
    db_path(path, sizeof path, o, "sales");
    remove_db(path);
    void *db = open_db(e, path, (const char *const[]){"load_sales"}, 1);
    if (db == NULL) return;
    /* the queries read this table: it is loaded whether or not its time is asked for */
    result_line("run load_sales"), current_workload = "load_sales", wl_error[0] = '\0';
    if (wl_load_sales(e, db, o) == 0)
        result_line("done load_sales");
    else
        result_line("err load_sales %s", wl_error);
    e->close(db);
    put_metric("size_sales_bytes", db_size(path));
}

static void phase_query(const engine *e, const options *o, int q) {
    static const char *const ids[3] = {"q_filter_sum", "q_group_by", "q_arith_filter_agg"};
    char path[4200];
    db_path(path, sizeof path, o, "sales");
    void *db = open_db(e, path, &ids[q], 1);
    if (db == NULL) return;
    RUN(ids[q], wl_query(e, db, o, q, ids[q]));
    e->close(db);
}

static const engine *engine_named(const char *name) {
    for (int i = 0; i < N_ENGINES; i++)
        if (!strcmp(all_engines[i]->name, name)) return all_engines[i];
    return NULL;
}

static void run_child(const options *o) {
    char path[4200];
    current_engine = o->child_engine;
    child_opts = o;
    snprintf(path, sizeof path, "%s/result-%s.txt", o->child_dir, o->phase);
    if ((result_file = fopen(path, "w")) == NULL) die("cannot write %s: %s", path, strerror(errno));
    alarm((unsigned)o->timeout); /* a hung engine is killed by SIGALRM and reported */
    const engine *e = engine_named(o->child_engine);
    if (e == NULL) die("unknown engine %s", o->child_engine);
    if (!strcmp(o->phase, "oltp"))
        phase_oltp(e, o);
    else if (!strcmp(o->phase, "load"))
        phase_load(e, o);
    else if (!strncmp(o->phase, "query", 5) && o->phase[5] >= '0' && o->phase[5] <= '2')
        phase_query(e, o, o->phase[5] - '0');
    else
        die("unknown phase %s", o->phase);
    double load[1];
    if (getloadavg(load, 1) == 1) put_metric("load1_at_end", load[0]);
    fclose(result_file);
}

/* ---------------------------------------------------------------------------------------------
** The parent: spawn the children, collect, check, report.
*/

typedef struct sample {
    int engine, rep, position; /* position: order within the repetition (0 = ran first) */
    double seconds;            /* wall time of its child processes */
    double m[N_ALL_METRICS];
    int has_ck[N_WORKLOADS];
    double ck[N_WORKLOADS][3];
    char *err[N_WORKLOADS]; /* malloc'ed message of a failed workload, NULL when it succeeded */
} sample;

typedef struct run_state {
    const options *o;
    const char *exe, *run_dir;
    sample *samples;
    int n;
    const char *why_not[N_ENGINES]; /* an engine that cannot run: why */
} run_state;

static void set_error(sample *s, int w, const char *msg) {
    if (s->err[w]) return; /* the first message is the cause */
    s->err[w] = strdup(msg);
    for (int m = 0; m < N_ALL_METRICS; m++)
        if (metric_workload(m) == w) s->m[m] = NAN;
    s->has_ck[w] = 0;
}

static int phase_has(const char *phase, int w) { return !strcmp(workloads[w].phase, phase); }

/* read_phase merges a child's result file into s. When the child died (how is in death), each
** workload of the phase without an outcome gets an error saying so. */
static void read_phase(const options *o, const char *path, sample *s, const char *phase, const char *death) {
    FILE *f = fopen(path, "r");
    char line[2048], id[128];
    int started[N_WORKLOADS] = {0}, done[N_WORKLOADS] = {0}, last = -1;
    double vals[N_ALL_METRICS], v;
    for (int m = 0; m < N_ALL_METRICS; m++)
        vals[m] = NAN;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        int n = 0, w;
        unsigned long long a, b, c;
        char kind[8];
        if (sscanf(line, "m %127s %lf", id, &v) == 2) {
            int m = metric_index(id);
            if (m >= 0) vals[m] = v;
        } else if (sscanf(line, "ck %127s %llu %llu %llu", id, &a, &b, &c) == 4) {
            if ((w = workload_index(id)) >= 0)
                s->has_ck[w] = 1, s->ck[w][0] = (double)a, s->ck[w][1] = (double)b, s->ck[w][2] = (double)c;
        } else if (sscanf(line, "%7s %127s %n", kind, id, &n) >= 2 && (w = workload_index(id)) >= 0) {
            if (!strcmp(kind, "run")) started[w] = 1, done[w] = 0, last = w;
            if (!strcmp(kind, "done")) done[w] = 1;
            if (!strcmp(kind, "err")) done[w] = 1, set_error(s, w, n ? line + n : "failed");
        }
    }
    if (f) fclose(f);
    for (int m = 0; m < N_ALL_METRICS; m++) {
        int w = metric_workload(m);
        if (!isnan(vals[m]) && (w < 0 || !s->err[w])) s->m[m] = vals[m];
    }
    if (death == NULL) return;
    char msg[256];
    int blamed = 0;
    for (int w = 0; w < N_WORKLOADS; w++) {
        if (done[w] || !phase_has(phase, w) || !o->use_workload[w]) continue;
        snprintf(msg, sizeof msg,
                 started[w] ? "the process died (%s) during this workload" : "not run: the process died (%s) before it",
                 death);
        set_error(s, w, msg);
        blamed = 1;
    }
    if (!blamed && last >= 0) {
        snprintf(msg, sizeof msg, "the process died (%s) after this workload", death);
        set_error(s, last, msg);
    }
}

/* run_phase runs one child for s and merges its results. */
static void run_phase(run_state *st, const char *dir, sample *s, const char *phase) {
    const options *o = st->o;
    char num[S_COUNT][32], reps[16], timeout[16];
    const char *argv[64];
    int a = 0;
    argv[a++] = st->exe;
    argv[a++] = "--child";
    argv[a++] = all_engines[s->engine]->name;
    argv[a++] = dir;
    argv[a++] = phase;
    static const char *const size_opts[S_COUNT] = {NULL, "--rows", "--lookups", "--commits", "--sales", "--query-runs"};
    for (int k = 1; k < S_COUNT; k++) {
        snprintf(num[k], sizeof num[k], "%llu", (unsigned long long)o->size[k]);
        argv[a++] = size_opts[k];
        argv[a++] = num[k];
    }
    snprintf(reps, sizeof reps, "%d", o->reps);
    snprintf(timeout, sizeof timeout, "%d", o->timeout);
    argv[a++] = "--timeout";
    argv[a++] = timeout;
    argv[a++] = "--workloads";
    argv[a++] = o->workloads_arg;
    argv[a] = NULL;
    double seconds;
    int status = run_process(argv, &seconds);
    s->seconds += seconds;
    char death[96] = "", path[4200];
    if (WIFSIGNALED(status))
        snprintf(death, sizeof death, "signal %d%s", WTERMSIG(status), WTERMSIG(status) == SIGALRM ? ", the --timeout" : "");
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        snprintf(death, sizeof death, "exit status %d", WEXITSTATUS(status));
    snprintf(path, sizeof path, "%s/result-%s.txt", dir, phase);
    read_phase(o, path, s, phase, death[0] ? death : NULL);
    if (death[0]) fprintf(stderr, " [%s %s: %s]", all_engines[s->engine]->name, phase, death);
}

static int phase_selected(const options *o, const char *phase) {
    for (int w = 0; w < N_WORKLOADS; w++)
        if (o->use_workload[w] && phase_has(phase, w)) return 1;
    return 0;
}

static void run_sample(run_state *st, sample *s) {
    const options *o = st->o;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s-%d", st->run_dir, all_engines[s->engine]->name, s->rep);
    if (mkdir(dir, 0755) != 0) die("mkdir %s: %s", dir, strerror(errno));
    for (int m = 0; m < N_ALL_METRICS; m++)
        s->m[m] = NAN;
    int queries = phase_selected(o, "query0") || phase_selected(o, "query1") || phase_selected(o, "query2");
    for (int p = 0; p < N_PHASES; p++) {
        const char *phase = phases[p];
        int w_load = workload_index("load_sales");
        if (!strcmp(phase, "load") ? !(phase_selected(o, "load") || queries) : !phase_selected(o, phase)) continue;
        if (!strncmp(phase, "query", 5) && s->err[w_load]) {
            for (int w = 0; w < N_WORKLOADS; w++)
                if (o->use_workload[w] && phase_has(phase, w)) set_error(s, w, "not run: the analytic table load failed");
            continue;
        }
        fprintf(stderr, " %s", phase);
        run_phase(st, dir, s, phase);
    }
    if (!o->keep) remove_tree(dir);
}

static summary summarize(const run_state *st, int engine, int metric) {
    double v[MAX_REPS];
    int n = 0;
    for (int i = 0; i < st->n && n < MAX_REPS; i++)
        if (st->samples[i].engine == engine && !isnan(st->samples[i].m[metric])) v[n++] = st->samples[i].m[metric];
    return summary_of(v, n);
}

/* cross_check compares every sample's checksums with the first sample that has them; each
** child already compared its own with the data generator's. Returns the number of disagreements
** (each printed, naming the workload). */
static int cross_check(const run_state *st) {
    int bad = 0;
    for (int w = 0; w < N_WORKLOADS; w++) {
        const sample *ref = NULL;
        for (int i = 0; i < st->n; i++) {
            const sample *s = &st->samples[i];
            if (!s->has_ck[w]) continue;
            if (ref == NULL) {
                ref = s;
                continue;
            }
            if (memcmp(s->ck[w], ref->ck[w], sizeof s->ck[w])) {
                fprintf(stderr,
                        "harness: FAILED: workload '%s': engines disagree: checksum %.0f/%.0f/%.0f from %s rep %d, "
                        "%.0f/%.0f/%.0f from %s rep %d\n",
                        workloads[w].id, s->ck[w][0], s->ck[w][1], s->ck[w][2], all_engines[s->engine]->name, s->rep,
                        ref->ck[w][0], ref->ck[w][1], ref->ck[w][2], all_engines[ref->engine]->name, ref->rep);
                bad++;
                break;
            }
        }
    }
    return bad;
}

static int count_failures(const run_state *st) {
    int n = 0;
    for (int i = 0; i < st->n; i++)
        for (int w = 0; w < N_WORKLOADS; w++)
            n += st->samples[i].err[w] != NULL;
    return n;
}

/* --- report ------------------------------------------------------------------------------ */

static double metric_units(const options *o, int m) {
    return m < N_METRICS ? (double)o->size[metrics[m].size_key] : 1;
}

static void row_label(char *out, size_t n, const options *o, int m) {
    char count[40];
    fmt_num(count, sizeof count, (double)o->size[metrics[m].label_key]);
    snprintf(out, n, metrics[m].label, count);
}

/* A cell: the summary, "n/a (why)" when the engine cannot run, "**n/a (failed)**" when every
** repetition failed, and the summary with the count of failures when some did. */
static void cell(char *out, size_t n, const run_state *st, int e, int m) {
    if (st->why_not[e]) {
        snprintf(out, n, "%s", st->why_not[e]);
        return;
    }
    int w = metric_workload(m), failed = 0;
    for (int i = 0; i < st->n; i++)
        failed += st->samples[i].engine == e && w >= 0 && st->samples[i].err[w] != NULL;
    summary s = summarize(st, e, m);
    char sum[160];
    fmt_summary(sum, sizeof sum, s, 1);
    if (failed && s.n)
        snprintf(out, n, "%s, **failed in %d rep(s)**", sum, failed);
    else if (failed)
        snprintf(out, n, "**n/a (failed)**");
    else
        snprintf(out, n, "%s", sum);
}

static int engine_used(const run_state *st, int e) { return st->o->use_engine[e]; }

/* best_sqlite: the crash-safe SQLite mode with the lowest median of m, -1 when none ran. */
static int best_sqlite(const run_state *st, int m) {
    int best = -1;
    double bm = INFINITY;
    for (int e = 0; e < N_ENGINES; e++) {
        if (!engine_used(st, e) || st->why_not[e] || strncmp(all_engines[e]->name, "sqlite", 6) ||
            !all_engines[e]->crash_safe)
            continue;
        summary s = summarize(st, e, m);
        if (s.n && s.median < bm) bm = s.median, best = e;
    }
    return best;
}

static void ratio_cell(char *out, size_t n, const run_state *st, int m, int peer, int is_size) {
    int strata = 0;
    summary a = summarize(st, strata, m), b = peer >= 0 ? summarize(st, peer, m) : (summary){0};
    if (!a.n || !b.n || b.median == 0) {
        snprintf(out, n, "–");
        return;
    }
    const char *v = a.n < 2 || b.n < 2 ? "1 sample" : verdict(a, b, is_size);
    const char *name = strncmp(all_engines[peer]->name, "sqlite", 6) ? "" : all_engines[peer]->title + 7;
    snprintf(out, n, "%.2f %s%s%s%s", a.median / b.median, v, name[0] ? " (" : "", name, name[0] ? ")" : "");
}

static void write_report(FILE *out, const run_state *st, const environment *env, const char *saved_as,
                         int disagreements) {
    const options *o = st->o;
    char c[600], label[200];
    int duck = N_ENGINES - 1;
    fprintf(out, "# strata vs SQLite and DuckDB — benchmark harness\n\n");
    fprintf(out,
            "%d repetition(s) per engine; each (engine, phase, repetition) in a fresh process on a fresh "
            "database, engine order rotating per repetition. Median (min–max) over repetitions; a verdict "
            "(faster/slower) only when the min–max ranges do not overlap, otherwise \"overlap\". strata ÷ SQLite "
            "is against the faster crash-safe SQLite mode of each row (named); below 1 strata takes less time.%s\n\n",
            o->reps, o->tiny ? " **A tiny run: checksums only; its times mean nothing.**" : "");
    fprintf(out, "| workload | unit");
    for (int e = 0; e < N_ENGINES; e++)
        if (engine_used(st, e)) fprintf(out, " | %s", all_engines[e]->title);
    fprintf(out, " | strata ÷ SQLite | strata ÷ DuckDB |\n|---|---");
    for (int e = 0; e < N_ENGINES; e++)
        if (engine_used(st, e)) fprintf(out, "|---");
    fprintf(out, "|---|---|\n");
    for (int m = 0; m < N_METRICS; m++) {
        int w = metric_workload(m);
        if (!metrics[m].label || w < 0 || !o->use_workload[w]) continue;
        row_label(label, sizeof label, o, m);
        fprintf(out, "| %s | %s", label, metrics[m].unit);
        for (int e = 0; e < N_ENGINES; e++) {
            if (!engine_used(st, e)) continue;
            cell(c, sizeof c, st, e, m);
            fprintf(out, " | %s", c);
        }
        int is_size = metrics[m].kind == K_SIZE;
        ratio_cell(c, sizeof c, st, m, best_sqlite(st, m), is_size);
        fprintf(out, " | %s", c);
        ratio_cell(c, sizeof c, st, m, engine_used(st, duck) && !st->why_not[duck] ? duck : -1, is_size);
        fprintf(out, " | %s |\n", c);
    }

    fprintf(out, "\nPeak memory (MiB, the process's resident high-water mark during the workload, median):\n\n");
    fprintf(out, "| workload");
    for (int e = 0; e < N_ENGINES; e++)
        if (engine_used(st, e)) fprintf(out, " | %s", all_engines[e]->title);
    fprintf(out, " |\n|---");
    for (int e = 0; e < N_ENGINES; e++)
        if (engine_used(st, e)) fprintf(out, "|---");
    fprintf(out, "|\n");
    for (int w = 0; w < N_WORKLOADS; w++) {
        if (!o->use_workload[w]) continue;
        fprintf(out, "| %s", workloads[w].id);
        for (int e = 0; e < N_ENGINES; e++) {
            if (!engine_used(st, e)) continue;
            fmt_mib(c, sizeof c, summarize(st, e, N_METRICS + w));
            fprintf(out, " | %s", c);
        }
        fprintf(out, " |\n");
    }

    int failures = count_failures(st);
    if (failures || disagreements) {
        fprintf(out, "\n## FAILURES\n\n");
        if (disagreements)
            fprintf(out, "- **The engines' result checksums disagree on %d workload(s)** (named on stderr).\n",
                    disagreements);
        for (int i = 0; i < st->n; i++)
            for (int w = 0; w < N_WORKLOADS; w++)
                if (st->samples[i].err[w])
                    fprintf(out, "- %s, repetition %d, workload `%s`: %s\n", all_engines[st->samples[i].engine]->title,
                            st->samples[i].rep, workloads[w].id, st->samples[i].err[w]);
    }

    fprintf(out, "\nEngines and settings:\n");
    for (int e = 0; e < N_ENGINES; e++) {
        if (!engine_used(st, e)) continue;
        const engine *en = all_engines[e];
        fprintf(out, "- **%s** %s: %s%s.%s%s\n", en->title, st->why_not[e] ? "" : en->version(), en->settings,
                en->crash_safe ? "" : " — **not crash-safe**", st->why_not[e] ? " " : "",
                st->why_not[e] ? st->why_not[e] : "");
    }
    fprintf(out, "\nWorkloads (bench/README.md has each one's SQL):\n");
    fprintf(out,
            "- t(k INTEGER PRIMARY KEY, v TEXT), %llu rows of 32-character v, loaded by each engine's bulk path "
            "(commit included); %llu point lookups `SELECT v FROM t WHERE k = ?`, each its own autocommit read; "
            "scans `SELECT k, v FROM t` reading every value; warm = right after the load on the same connection, "
            "cold = after close and reopen (the engine's cache is empty; the OS page cache is not dropped); "
            "%llu autocommit INSERTs, each a durable transaction, checked after a reopen.\n",
            (unsigned long long)o->size[S_ROWS], (unsigned long long)o->size[S_LOOKUPS],
            (unsigned long long)o->size[S_COMMITS]);
    fprintf(out,
            "- sales(id INTEGER PRIMARY KEY, region INTEGER, qty INTEGER, price DOUBLE, day INTEGER), %llu rows, "
            "loaded in its own process; each query in a fresh process: open, `SELECT 1`, the first run timed "
            "(prepare + every row), then %llu runs of the prepared statement, median. Queries: `%s`; `%s`; `%s`.\n",
            (unsigned long long)o->size[S_SALES], (unsigned long long)o->size[S_QUERY_RUNS], query_sql[0],
            query_sql[1], query_sql[2]);
    fprintf(out,
            "- Every read workload's result checksum was compared with the data generator's in each process and "
            "between engines%s.%s\n",
            disagreements ? " — **they disagree, see above**" : "",
            peak_reset_works ? "" : " The high-water-mark reset FAILED: peaks are cumulative.");
    fprintf(out,
            "\nEnvironment: %s, %ld cores, %.1f GiB RAM; %s; file system of bench/tmp: %s. Compiler %s; flags `%s`; "
            "library %s. Load average before/after: %s / %s. Git commit %s%s. Date %s.%s%s\n",
            env->cpu, env->cores, env->mem_gib, env->kernel, env->fs, COMPILER, BENCH_CFLAGS, BENCH_LIB,
            env->load_before, env->load_after, env->commit,
            env->git_status[0] ? " (working tree dirty: uncommitted changes were measured)" : " (clean)", env->date,
            saved_as ? " Raw samples: " : "", saved_as ? saved_as : "");
}

static void write_json(FILE *f, const run_state *st, const environment *env) {
    const options *o = st->o;
    fprintf(f, "{\n  \"benchmark\": \"harness\",\n  \"date\": ");
    json_str(f, env->date);
    fprintf(f, ",\n  \"git\": {\"commit\": ");
    json_str(f, env->commit);
    fprintf(f, ", \"dirty\": %s, \"status\": ", env->git_status[0] ? "true" : "false");
    json_str(f, env->git_status);
    fprintf(f, "},\n  \"environment\": {\"cpu\": ");
    json_str(f, env->cpu);
    fprintf(f, ", \"cores\": %ld, \"mem_gib\": %.2f, \"kernel\": ", env->cores, env->mem_gib);
    json_str(f, env->kernel);
    fprintf(f, ", \"filesystem\": ");
    json_str(f, env->fs);
    fprintf(f, ", \"compiler\": ");
    json_str(f, COMPILER);
    fprintf(f, ", \"cflags\": ");
    json_str(f, BENCH_CFLAGS);
    fprintf(f, ", \"library\": ");
    json_str(f, BENCH_LIB);
    const char *why;
    fprintf(f, ", \"versions\": {\"strata\": ");
    json_str(f, engine_strata.version());
    fprintf(f, ", \"sqlite\": ");
    json_str(f, engine_sqlite_wal.version());
    fprintf(f, ", \"duckdb\": ");
    if (engine_duckdb.available(&why))
        json_str(f, engine_duckdb.version());
    else
        fprintf(f, "null");
    fprintf(f, "}, \"load_before\": ");
    json_str(f, env->load_before);
    fprintf(f, ", \"load_after\": ");
    json_str(f, env->load_after);
    fprintf(f, "},\n  \"config\": {\"quick\": %s, \"tiny\": %s, \"reps\": %d, \"sizes\": {", o->quick ? "true" : "false",
            o->tiny ? "true" : "false", o->reps);
    for (int k = 1; k < S_COUNT; k++)
        fprintf(f, "%s\"%s\": %llu", k > 1 ? ", " : "", size_ids[k], (unsigned long long)o->size[k]);
    fprintf(f, "}, \"engines\": [");
    for (int e = 0, first = 1; e < N_ENGINES; e++) {
        if (!engine_used(st, e)) continue;
        const engine *en = all_engines[e];
        fprintf(f, "%s\n    {\"name\": \"%s\", \"title\": ", first ? "" : ",", en->name);
        json_str(f, en->title);
        fprintf(f, ", \"settings\": ");
        json_str(f, en->settings);
        fprintf(f, ", \"crash_safe\": %s, \"available\": %s, \"version\": ", en->crash_safe ? "true" : "false",
                st->why_not[e] ? "false" : "true");
        if (st->why_not[e])
            json_str(f, st->why_not[e]);
        else
            json_str(f, en->version());
        fprintf(f, "}");
        first = 0;
    }
    fprintf(f, "],\n  \"workloads\": [");
    for (int w = 0, first = 1; w < N_WORKLOADS; w++)
        if (o->use_workload[w]) fprintf(f, "%s\"%s\"", first ? "" : ", ", workloads[w].id), first = 0;
    fprintf(f, "]},\n  \"metrics\": [");
    for (int m = 0; m < N_ALL_METRICS; m++) {
        int w = metric_workload(m);
        fprintf(f, "%s\n    {\"id\": \"%s\", \"workload\": ", m ? "," : "", metric_id(m));
        if (w >= 0)
            json_str(f, workloads[w].id);
        else
            fprintf(f, "null");
        fprintf(f, ", \"label\": ");
        char label[200];
        if (m < N_METRICS && metrics[m].label) {
            row_label(label, sizeof label, o, m);
            json_str(f, label);
        } else {
            json_str(f, metric_id(m));
        }
        fprintf(f, ", \"unit\": ");
        json_str(f, m < N_METRICS ? metrics[m].unit : "KiB");
        fprintf(f, ", \"units\": %.0f, \"per\": ", metric_units(o, m));
        json_str(f, m < N_METRICS ? metrics[m].per : "process");
        fprintf(f, ", \"kind\": \"%s\"}", kind_names[m < N_METRICS ? metrics[m].kind : K_MEMORY]);
    }
    fprintf(f, "\n  ],\n  \"samples\": [\n");
    for (int i = 0; i < st->n; i++) {
        const sample *s = &st->samples[i];
        fprintf(f, "    {\"engine\": \"%s\", \"rep\": %d, \"position\": %d, \"child_seconds\": %.3f, \"metrics\": {",
                all_engines[s->engine]->name, s->rep, s->position, s->seconds);
        int first = 1;
        for (int m = 0; m < N_ALL_METRICS; m++) {
            if (isnan(s->m[m])) continue;
            fprintf(f, "%s\"%s\": ", first ? "" : ", ", metric_id(m));
            json_num(f, s->m[m]);
            first = 0;
        }
        fprintf(f, "}, \"checksums\": {");
        first = 1;
        for (int w = 0; w < N_WORKLOADS; w++) {
            if (!s->has_ck[w]) continue;
            fprintf(f, "%s\"%s\": [%.0f, %.0f, %.0f]", first ? "" : ", ", workloads[w].id, s->ck[w][0], s->ck[w][1],
                    s->ck[w][2]);
            first = 0;
        }
        fprintf(f, "}, \"errors\": {");
        first = 1;
        for (int w = 0; w < N_WORKLOADS; w++) {
            if (!s->err[w]) continue;
            fprintf(f, "%s\"%s\": ", first ? "" : ", ", workloads[w].id);
            json_str(f, s->err[w]);
            first = 0;
        }
        fprintf(f, "}}%s\n", i + 1 < st->n ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
}

static void save_report(const run_state *st, const environment *env, int disagreements) {
    char md[512], json[512];
    result_paths(st->o->quick ? "harness-quick" : "harness", env, md, json, sizeof md);
    FILE *f = fopen(md, "w");
    if (f == NULL) die("cannot write %s: %s", md, strerror(errno));
    write_report(f, st, env, json, disagreements);
    if (fclose(f) != 0) die("cannot write %s", md);
    if ((f = fopen(json, "w")) == NULL) die("cannot write %s: %s", json, strerror(errno));
    write_json(f, st, env);
    if (fclose(f) != 0) die("cannot write %s", json);
    printf("\nSaved %s and %s\n", md, json);
}

static int run_parent(const options *o) {
    char run_dir[256], exe[4096];
    run_setup("harness", run_dir, sizeof run_dir, exe, sizeof exe);
    environment env;
    gather_environment(&env, run_dir);
    run_state st = {.o = o, .exe = exe, .run_dir = run_dir};
    int engines[N_ENGINES], ne = 0;
    for (int e = 0; e < N_ENGINES; e++) {
        if (!o->use_engine[e]) continue;
        const char *why = NULL;
        if (!all_engines[e]->available(&why)) {
            st.why_not[e] = why ? why : "not available";
            fprintf(stderr, "%s: %s\n", all_engines[e]->name, st.why_not[e]);
            continue;
        }
        engines[ne++] = e;
    }
    st.samples = calloc((size_t)o->reps * N_ENGINES, sizeof *st.samples);
    if (st.samples == NULL) die("out of memory");
    for (int rep = 1; rep <= o->reps; rep++)
        for (int i = 0; i < ne; i++) {
            sample *s = &st.samples[st.n++];
            s->engine = engines[(i + rep - 1) % ne]; /* the order rotates per repetition */
            s->rep = rep;
            s->position = i;
            fprintf(stderr, "rep %d/%d: %-16s", rep, o->reps, all_engines[s->engine]->name);
            run_sample(&st, s);
            fprintf(stderr, "  %.1f s\n", s->seconds);
        }
    if (!o->keep) remove_tree(run_dir);
    load_average(env.load_after, sizeof env.load_after);
    int disagreements = cross_check(&st), failures = count_failures(&st);
    write_report(stdout, &st, &env, NULL, disagreements);
    if (o->save) save_report(&st, &env, disagreements);
    for (int i = 0; i < st.n; i++)
        for (int w = 0; w < N_WORKLOADS; w++)
            if (st.samples[i].err[w]) {
                fprintf(stderr, "harness: FAILED: %s rep %d, workload '%s': %s\n", all_engines[st.samples[i].engine]->name,
                        st.samples[i].rep, workloads[w].id, st.samples[i].err[w]);
                free(st.samples[i].err[w]);
            }
    if (o->tiny && !failures && !disagreements)
        printf("harness: every read workload's checksum agreed with the data generator and between engines\n");
    free(env.git_status);
    free(st.samples);
    return failures || disagreements ? 1 : 0;
}

int main(int argc, char **argv) {
    options o;
    bench_program = "harness";
    parse_options(argc, argv, &o);
    for (int w = 0; w < N_WORKLOADS; w++)
        snprintf(peak_ids[w], sizeof peak_ids[w], "peak_kib_%s", workloads[w].id);
    value_pool_init();
    if (o.child_engine) {
        run_child(&o);
        return 0;
    }
    return run_parent(&o);
}
