/*
** bench_sql.c -- strata through its public C API (include/strata.h) against SQLite, in one run.
**
** The workloads of issue 3, each written once against a small SQL interface (`sql_engine`)
** that both engines implement with prepared statements and the same bind types:
**   1. bulk insert of N rows into t(k INTEGER PRIMARY KEY, v TEXT), 32-character v, one txn
**   2. random point lookups SELECT v FROM t WHERE k = ?, warm (right after the load) and cold
**      (after close + reopen in the same process: engine cache empty, OS file cache not dropped)
**   3. a scan SELECT k, v FROM t reading every value, warm and cold
**   4. single-row durable transactions (autocommit INSERT each), µs per commit
**   5. an analytic table sales(id, region, qty, price, day) of 200k rows, loaded in one txn
**      (timed on its own), then three queries: filter + sum, GROUP BY over 100 groups, and an
**      arithmetic filter + aggregate; each is timed on its first run in a fresh process
**      (prepare included) and as the median of repeated runs of the prepared statement
** plus the floor of a durable commit on this disk (4 KiB pwrite + fdatasync), as bench_rowstore.
**
** Method (bench/README.md): every (engine, repetition) runs in fresh processes -- one for
** workloads 1-4, one for the analytic load, one per analytic query -- on fresh databases in
** bench/tmp/; the engine order alternates per repetition. Every read workload returns a result
** checksum that must equal the one computed from the data generator; the parent also compares
** the engines' checksums. A failing workload (error, wrong result, crash, timeout) is reported
** as n/a with its message, the other workloads still run, and the run exits non-zero naming it.
*/
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>
#include <strata.h>

#include "bench_common.h"

#ifndef BENCH_CFLAGS
#define BENCH_CFLAGS "unknown (not built by `make bench-sql`)"
#endif
#ifndef BENCH_LIB
#define BENCH_LIB "unknown"
#endif

#define VALUE_LEN 32     /* characters of t.v */
#define POOL_BYTES 65536 /* values are windows of this pool of random characters (power of two) */
#define DEFAULT_ROWS 100000
#define DEFAULT_LOOKUPS 10000
#define DEFAULT_COMMITS 200
#define DEFAULT_SALES 200000
#define DEFAULT_QUERY_RUNS 5
#define DEFAULT_REPS 5
#define DEFAULT_TIMEOUT 900 /* seconds per child process */
#define DISK_CHECK_WRITES 32
#define REGIONS 100
/* strata's page cache is its pager's default (64 MiB; the public API has no setting), and SQLite
** gets the same budget. Both databases fit in it. */
#define CACHE_MIB 64
#define SQLITE_SETTINGS                                                                                      \
    "journal_mode=WAL, synchronous=FULL, cache_size=-65536 (64 MiB), other settings default"
#define STRATA_SETTINGS "defaults of strata_open (8 KiB pages, 64 MiB page cache, WAL, durable commits)"
#define MASK52 ((UINT64_C(1) << 52) - 1) /* checksums travel as doubles: keep them exact */

static const char *const query_sql[3] = {
    "SELECT sum(price) FROM sales WHERE qty > 50",
    "SELECT region, count(*), sum(qty) FROM sales GROUP BY region",
    "SELECT sum(price * qty) FROM sales WHERE price * qty > 1000",
};

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
** a double whatever the order of addition, and both engines must give identical results. */
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

/* The checksum of a read workload's result: row count and two order-independent sums, each kept
** below 2^52 so that it travels exactly as a double. */
typedef struct checksum {
    uint64_t a, b, c;
} checksum;

/* ---------------------------------------------------------------------------------------------
** Options.
*/

typedef struct options {
    uint64_t rows, lookups, commits, sales;
    int query_runs, reps, timeout;
    const char *engines; /* "both", "strata" or "sqlite" */
    int keep, save;
    /* child only */
    const char *child_engine, *child_dir, *phase;
    int query; /* 0..2 for phase "query" */
} options;

static void usage(void) {
    fprintf(
        stderr,
        "usage: bench_sql [--quick] [--reps N] [--rows N] [--lookups N] [--commits N] [--sales N]\n"
        "                 [--query-runs N] [--engine both|strata|sqlite] [--timeout S] [--keep] [--no-save]\n"
        "  --quick          a short smoke run: 20k rows, 2k lookups, 50 commits, 40k sales, 3 query runs\n"
        "  --reps N         repetitions per engine, each in fresh processes (default %d)\n"
        "  --rows N         rows of t (default %d); --lookups N point lookups (default %d)\n"
        "  --commits N      single-row durable transactions (default %d)\n"
        "  --sales N        rows of the analytic table (default %d)\n"
        "  --query-runs N   repeated runs per analytic query after its first (default %d)\n"
        "  --timeout S      seconds before a child process is stopped (default %d)\n"
        "  --keep           keep the databases in bench/tmp/\n"
        "  --no-save        print only; do not write bench/results/\n"
        "Run from the repository root (make bench-sql does).\n",
        DEFAULT_REPS, DEFAULT_ROWS, DEFAULT_LOOKUPS, DEFAULT_COMMITS, DEFAULT_SALES, DEFAULT_QUERY_RUNS,
        DEFAULT_TIMEOUT);
    exit(2);
}

static uint64_t parse_count(const char *s, const char *flag) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s ? s : "", &end, 10);
    if (s == NULL || *s == '\0' || *end != '\0' || errno != 0 || v == 0 || v > INT32_MAX) {
        fprintf(stderr, "bench_sql: %s needs a positive integer below 2^31\n", flag);
        usage();
    }
    return v;
}

static void parse_options(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    *o = (options){.rows = DEFAULT_ROWS,
                   .lookups = DEFAULT_LOOKUPS,
                   .commits = DEFAULT_COMMITS,
                   .sales = DEFAULT_SALES,
                   .query_runs = DEFAULT_QUERY_RUNS,
                   .reps = DEFAULT_REPS,
                   .timeout = DEFAULT_TIMEOUT,
                   .engines = "both",
                   .save = 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quick"))
            o->rows = 20000, o->lookups = 2000, o->commits = 50, o->sales = 40000, o->query_runs = 3;
        else if (!strcmp(a, "--reps"))
            o->reps = (int)parse_count(next, a), i++;
        else if (!strcmp(a, "--rows"))
            o->rows = parse_count(next, a), i++;
        else if (!strcmp(a, "--lookups"))
            o->lookups = parse_count(next, a), i++;
        else if (!strcmp(a, "--commits"))
            o->commits = parse_count(next, a), i++;
        else if (!strcmp(a, "--sales"))
            o->sales = parse_count(next, a), i++;
        else if (!strcmp(a, "--query-runs"))
            o->query_runs = (int)parse_count(next, a), i++;
        else if (!strcmp(a, "--timeout"))
            o->timeout = (int)parse_count(next, a), i++;
        else if (!strcmp(a, "--engine") && next)
            o->engines = next, i++;
        else if (!strcmp(a, "--keep"))
            o->keep = 1;
        else if (!strcmp(a, "--no-save"))
            o->save = 0;
        else if (!strcmp(a, "--child") && i + 5 < argc) {
            o->child_engine = argv[++i];
            o->child_dir = argv[++i];
            o->phase = argv[++i];
            o->query = (int)strtol(argv[++i], NULL, 10);
        } else
            usage();
    }
    if (strcmp(o->engines, "both") && strcmp(o->engines, "strata") && strcmp(o->engines, "sqlite")) usage();
}

/* ---------------------------------------------------------------------------------------------
** The SQL interface both engines implement: a thin mirror of their C APIs. Calls return 0 on
** success and -1 on error (the message then comes from errmsg); step returns 1 for a row, 0
** when done, -1 on error. No call dies: a failing workload is reported, not fatal.
*/

typedef struct sql_engine {
    const char *name;
    int (*open)(const char *path, void **db); /* *db is set also on error, for errmsg and close */
    void (*close)(void *db);
    int (*exec)(void *db, const char *sql);
    int (*prepare)(void *db, const char *sql, void **stmt);
    int (*bind_int64)(void *stmt, int i, int64_t v);
    int (*bind_double)(void *stmt, int i, double v);
    int (*bind_text)(void *stmt, int i, const char *v, int len); /* v stays valid until the step */
    int (*step)(void *stmt);
    int64_t (*column_int64)(void *stmt, int i);
    double (*column_double)(void *stmt, int i);
    const char *(*column_text)(void *stmt, int i, int *len);
    int (*reset)(void *stmt);
    void (*finalize)(void *stmt);
    const char *(*errmsg)(void *db);
} sql_engine;

/* --- strata ------------------------------------------------------------------------------ */

static int st_status(int rc) { return rc == STRATA_OK ? 0 : -1; }
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
static int st_step(void *s) {
    int rc = strata_step(s);
    return rc == STRATA_ROW ? 1 : rc == STRATA_DONE ? 0 : -1;
}
static int64_t st_column_int64(void *s, int i) { return strata_column_int64(s, i); }
static double st_column_double(void *s, int i) { return strata_column_double(s, i); }
static const char *st_column_text(void *s, int i, int *len) {
    const char *t = strata_column_text(s, i);
    *len = strata_column_bytes(s, i);
    return t;
}
static int st_reset(void *s) { return st_status(strata_reset(s)); }
static void st_finalize(void *s) { strata_finalize(s); }
static const char *st_errmsg(void *db) { return db ? strata_errmsg(db) : "out of memory"; }

static const sql_engine strata_engine = {
    "strata",         st_open,        st_close,     st_exec,     st_prepare,
    st_bind_int64,    st_bind_double, st_bind_text, st_step,     st_column_int64,
    st_column_double, st_column_text, st_reset,     st_finalize, st_errmsg,
};

/* --- SQLite ------------------------------------------------------------------------------ */

static int sq_status(int rc) { return rc == SQLITE_OK ? 0 : -1; }
static int sq_open(const char *path, void **db) {
    int rc = sqlite3_open_v2(path, (sqlite3 **)db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) return -1;
    return sq_status(sqlite3_exec(
        *db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA cache_size=-65536", NULL, NULL, NULL));
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
static int sq_step(void *s) {
    int rc = sqlite3_step(s);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}
static int64_t sq_column_int64(void *s, int i) { return sqlite3_column_int64(s, i); }
static double sq_column_double(void *s, int i) { return sqlite3_column_double(s, i); }
static const char *sq_column_text(void *s, int i, int *len) {
    const char *t = (const char *)sqlite3_column_text(s, i);
    *len = sqlite3_column_bytes(s, i);
    return t;
}
static int sq_reset(void *s) { return sq_status(sqlite3_reset(s)); }
static void sq_finalize(void *s) { sqlite3_finalize(s); }
static const char *sq_errmsg(void *db) { return db ? sqlite3_errmsg(db) : "out of memory"; }

static const sql_engine sqlite_engine = {
    "sqlite",         sq_open,        sq_close,     sq_exec,     sq_prepare,
    sq_bind_int64,    sq_bind_double, sq_bind_text, sq_step,     sq_column_int64,
    sq_column_double, sq_column_text, sq_reset,     sq_finalize, sq_errmsg,
};

/* ---------------------------------------------------------------------------------------------
** Workloads and their figures. A workload either stores its figures or fails with a message;
** a failed workload's figures are absent (n/a), and those that depend on it are not run.
*/

enum workload {
    W_BULK,
    W_LOOKUP_WARM,
    W_SCAN_WARM,
    W_LOOKUP_COLD,
    W_SCAN_COLD,
    W_COMMITS,
    W_LOAD,
    W_Q1,
    W_Q2,
    W_Q3,
    W_COUNT
};

static const char *const workload_ids[W_COUNT] = {
    "bulk_insert",     "lookup_warm", "scan_warm",    "lookup_cold", "scan_cold",
    "durable_commits", "load_sales",  "q_filter_sum", "q_group_by",  "q_arith_filter_agg",
};

enum metric {
    M_BULK,
    M_LOOKUP_WARM,
    M_SCAN_WARM,
    M_LOOKUP_COLD,
    M_SCAN_COLD,
    M_COMMIT,
    M_COMMIT_P50,
    M_COMMIT_P99,
    M_DISK_CHECK,
    M_LOAD,
    M_Q1_FIRST,
    M_Q1_REPEAT,
    M_Q2_FIRST,
    M_Q2_REPEAT,
    M_Q3_FIRST,
    M_Q3_REPEAT,
    M_MEM_BULK,
    M_MEM_LOOKUP_WARM,
    M_MEM_SCAN_WARM,
    M_MEM_LOOKUP_COLD,
    M_MEM_SCAN_COLD,
    M_MEM_COMMIT,
    M_MEM_LOAD,
    M_MEM_Q1,
    M_MEM_Q2,
    M_MEM_Q3,
    M_SIZE_T,
    M_SIZE_SALES,
    M_CK, /* 3 checksum figures per read workload follow, in workload order */
    M_FLOOR = M_CK + 3 * W_COUNT,
    M_FLOOR_APPEND,
    M_LOAD1,
    M_COUNT
};

typedef struct metric_def {
    const char *id;
    const char *label; /* NULL: JSON only; %s gets a count */
    const char *unit;
    int workload; /* the workload that produces it, -1 for none */
    int mem;      /* the metric with the workload's peak RSS, or -1 */
} metric_def;

static metric_def metric_defs[M_COUNT] = {
    [M_BULK] = {"bulk_insert_ms", "1. bulk insert, %s rows, 1 txn", "ms", W_BULK, M_MEM_BULK},
    [M_LOOKUP_WARM] = {"lookup_warm_ms", "2. point lookups ×%s, warm", "ms", W_LOOKUP_WARM,
                       M_MEM_LOOKUP_WARM},
    [M_LOOKUP_COLD] = {"lookup_cold_ms", "   point lookups ×%s, cold (reopened)", "ms", W_LOOKUP_COLD,
                       M_MEM_LOOKUP_COLD},
    [M_SCAN_WARM] = {"scan_warm_ms", "3. scan, read all values, warm", "ms", W_SCAN_WARM, M_MEM_SCAN_WARM},
    [M_SCAN_COLD] = {"scan_cold_ms", "   scan, read all values, cold (reopened)", "ms", W_SCAN_COLD,
                     M_MEM_SCAN_COLD},
    [M_COMMIT] = {"commit_us_mean", "4. single-row durable txn (%s), mean", "µs/commit", W_COMMITS,
                  M_MEM_COMMIT},
    [M_COMMIT_P50] = {"commit_us_p50", "   single-row durable txn, p50", "µs", W_COMMITS, -1},
    [M_COMMIT_P99] = {"commit_us_p99", "   single-row durable txn, p99", "µs", W_COMMITS, -1},
    [M_DISK_CHECK] = {"disk_check_us", "   disk floor measured just before 4", "µs", W_COMMITS, -1},
    [M_LOAD] = {"load_sales_ms", "5. load analytic table, %s rows, 1 txn", "ms", W_LOAD, M_MEM_LOAD},
    [M_Q1_FIRST] = {"q_filter_sum_first_ms", "   filter + sum: first run", "ms", W_Q1, M_MEM_Q1},
    [M_Q1_REPEAT] = {"q_filter_sum_repeat_ms", "   filter + sum: repeat (median)", "ms", W_Q1, -1},
    [M_Q2_FIRST] = {"q_group_by_first_ms", "   GROUP BY, 100 groups: first run", "ms", W_Q2, M_MEM_Q2},
    [M_Q2_REPEAT] = {"q_group_by_repeat_ms", "   GROUP BY, 100 groups: repeat (median)", "ms", W_Q2, -1},
    [M_Q3_FIRST] = {"q_arith_filter_agg_first_ms", "   arithmetic filter + aggregate: first run", "ms", W_Q3,
                    M_MEM_Q3},
    [M_Q3_REPEAT] = {"q_arith_filter_agg_repeat_ms", "   arithmetic filter + aggregate: repeat (median)",
                     "ms", W_Q3, -1},
    [M_MEM_BULK] = {"peak_rss_kib_bulk_insert", NULL, "KiB", W_BULK, -1},
    [M_MEM_LOOKUP_WARM] = {"peak_rss_kib_lookup_warm", NULL, "KiB", W_LOOKUP_WARM, -1},
    [M_MEM_SCAN_WARM] = {"peak_rss_kib_scan_warm", NULL, "KiB", W_SCAN_WARM, -1},
    [M_MEM_LOOKUP_COLD] = {"peak_rss_kib_lookup_cold", NULL, "KiB", W_LOOKUP_COLD, -1},
    [M_MEM_SCAN_COLD] = {"peak_rss_kib_scan_cold", NULL, "KiB", W_SCAN_COLD, -1},
    [M_MEM_COMMIT] = {"peak_rss_kib_durable_commits", NULL, "KiB", W_COMMITS, -1},
    [M_MEM_LOAD] = {"peak_rss_kib_load_sales", NULL, "KiB", W_LOAD, -1},
    [M_MEM_Q1] = {"peak_rss_kib_q_filter_sum", NULL, "KiB", W_Q1, -1},
    [M_MEM_Q2] = {"peak_rss_kib_q_group_by", NULL, "KiB", W_Q2, -1},
    [M_MEM_Q3] = {"peak_rss_kib_q_arith_filter_agg", NULL, "KiB", W_Q3, -1},
    [M_SIZE_T] = {"size_t_bytes", NULL, "bytes (db + WAL after the bulk insert and close)", W_BULK, -1},
    [M_SIZE_SALES] = {"size_sales_bytes", NULL, "bytes (db + WAL after the load and close)", W_LOAD, -1},
    [M_FLOOR] = {"floor_pwrite_fdatasync_us", NULL, "µs", -1, -1},
    [M_FLOOR_APPEND] = {"floor_append_pwrite_fdatasync_us", NULL, "µs", -1, -1},
    [M_LOAD1] = {"load1_at_end", NULL, "", -1, -1},
};

/* Table rows in this order. */
static const int report_rows[] = {M_BULK,       M_LOOKUP_WARM, M_LOOKUP_COLD, M_SCAN_WARM,
                                  M_SCAN_COLD,  M_COMMIT,      M_COMMIT_P50,  M_COMMIT_P99,
                                  M_DISK_CHECK, M_LOAD,        M_Q1_FIRST,    M_Q1_REPEAT,
                                  M_Q2_FIRST,   M_Q2_REPEAT,   M_Q3_FIRST,    M_Q3_REPEAT};

static char checksum_ids[W_COUNT][3][48];

static void metric_defs_init(void) {
    for (int w = 0; w < W_COUNT; w++)
        for (int i = 0; i < 3; i++) {
            snprintf(checksum_ids[w][i], sizeof checksum_ids[w][i], "checksum_%s_%c", workload_ids[w],
                     'a' + i);
            metric_defs[M_CK + 3 * w + i] = (metric_def){checksum_ids[w][i], NULL, "", w, -1};
        }
}

/* --- a child's result file ----------------------------------------------------------------
** Lines "run W" (written before workload W starts, so that a crash names it), "m ID VALUE" and
** "err W MESSAGE", flushed as they are written. */

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

static void put_metric(int m, double v) { result_line("m %s %.17g", metric_defs[m].id, v); }

static void put_checksum(int w, const checksum *c) {
    put_metric(M_CK + 3 * w, (double)(c->a & MASK52));
    put_metric(M_CK + 3 * w + 1, (double)(c->b & MASK52));
    put_metric(M_CK + 3 * w + 2, (double)(c->c & MASK52));
}

/* fail records "what: engine message" as the failing workload's message, on one line (strata's
** messages end with the statement and a caret line), and returns -1. */
static int fail(const sql_engine *e, void *db, const char *what) {
    snprintf(wl_error, sizeof wl_error, "%s: %s", what, e->errmsg(db));
    for (char *p = wl_error; *p; p++)
        if (*p == '\n') *p = ' ';
    return -1;
}

static int wrong_result(const char *what, const checksum *got, const checksum *want) {
    snprintf(wl_error, sizeof wl_error,
             "wrong result of %s: checksum %llu/%llu/%llu, expected %llu/%llu/%llu", what,
             (unsigned long long)got->a, (unsigned long long)got->b, (unsigned long long)got->c,
             (unsigned long long)want->a, (unsigned long long)want->b, (unsigned long long)want->c);
    return -1;
}

static int checksum_equal(const checksum *x, const checksum *y) {
    return ((x->a ^ y->a) & MASK52) == 0 && ((x->b ^ y->b) & MASK52) == 0 && ((x->c ^ y->c) & MASK52) == 0;
}

static double ms_since(uint64_t t0) { return (double)(now_ns() - t0) / 1e6; }

/* --- workloads 1-4 on t ---------------------------------------------------------------- */

/* 1. rows 0..N-1 through one prepared INSERT (int64 key, 32-character text) in one transaction. */
static int wl_bulk(const sql_engine *e, void *db, const options *o) {
    void *ins = NULL;
    if (e->exec(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT)")) return fail(e, db, "CREATE TABLE t");
    peak_reset();
    uint64_t t0 = now_ns();
    if (e->exec(db, "BEGIN")) return fail(e, db, "BEGIN");
    if (e->prepare(db, "INSERT INTO t(k, v) VALUES (?, ?)", &ins)) return fail(e, db, "prepare INSERT");
    for (uint64_t k = 0; k < o->rows; k++) {
        if ((k > 0 && e->reset(ins)) || e->bind_int64(ins, 1, (int64_t)k) ||
            e->bind_text(ins, 2, value_for(k), VALUE_LEN) || e->step(ins) != 0)
            goto fail;
    }
    e->finalize(ins);
    if (e->exec(db, "COMMIT")) return fail(e, db, "COMMIT");
    put_metric(M_BULK, ms_since(t0));
    put_metric(M_MEM_BULK, peak_kib());
    return 0;
fail:
    fail(e, db, "INSERT");
    e->finalize(ins);
    return -1;
}

/* 2. Uniformly random existing keys, each lookup its own autocommit statement. */
static int wl_lookups(const sql_engine *e, void *db, const options *o, int w) {
    checksum want = {0}, got = {0};
    uint64_t rng = 0x6E75C0DEu;
    for (uint64_t i = 0; i < o->lookups; i++) {
        uint64_t k = below(&rng, o->rows);
        want.a++, want.b += k, want.c += sum_bytes(value_for(k), VALUE_LEN) + VALUE_LEN;
    }
    void *sel = NULL;
    peak_reset();
    rng = 0x6E75C0DEu;
    uint64_t t0 = now_ns();
    if (e->prepare(db, "SELECT v FROM t WHERE k = ?", &sel)) return fail(e, db, "prepare SELECT");
    for (uint64_t i = 0; i < o->lookups; i++) {
        uint64_t k = below(&rng, o->rows);
        int len;
        if (e->reset(sel) || e->bind_int64(sel, 1, (int64_t)k)) goto fail;
        int rc = e->step(sel);
        if (rc < 0) goto fail;
        if (rc == 0) continue; /* no row: the checksum says so */
        const char *v = e->column_text(sel, 0, &len);
        if (v == NULL) goto fail;
        got.a++, got.b += k, got.c += sum_bytes(v, (size_t)len) + (uint64_t)len;
    }
    e->reset(sel); /* ends the last read */
    double ms = ms_since(t0);
    e->finalize(sel);
    if (!checksum_equal(&got, &want)) return wrong_result("the lookups", &got, &want);
    put_metric(w == W_LOOKUP_WARM ? M_LOOKUP_WARM : M_LOOKUP_COLD, ms);
    put_metric(w == W_LOOKUP_WARM ? M_MEM_LOOKUP_WARM : M_MEM_LOOKUP_COLD, peak_kib());
    put_checksum(w, &got);
    return 0;
fail:
    fail(e, db, "SELECT v FROM t WHERE k = ?");
    e->finalize(sel);
    return -1;
}

/* 3. Every row, every value read; the checksum does not depend on the row order. */
static int wl_scan(const sql_engine *e, void *db, const options *o, int w) {
    checksum want = {0}, got = {0};
    for (uint64_t k = 0; k < o->rows; k++)
        want.a++, want.b += k, want.c += sum_bytes(value_for(k), VALUE_LEN) + VALUE_LEN;
    void *scan = NULL;
    peak_reset();
    uint64_t t0 = now_ns();
    if (e->prepare(db, "SELECT k, v FROM t", &scan)) return fail(e, db, "prepare SELECT k, v FROM t");
    int rc;
    while ((rc = e->step(scan)) == 1) {
        int len;
        int64_t k = e->column_int64(scan, 0);
        const char *v = e->column_text(scan, 1, &len);
        if (v == NULL) goto fail;
        got.a++, got.b += (uint64_t)k, got.c += sum_bytes(v, (size_t)len) + (uint64_t)len;
    }
    if (rc < 0) goto fail;
    double ms = ms_since(t0);
    e->finalize(scan);
    if (!checksum_equal(&got, &want)) return wrong_result("the scan", &got, &want);
    put_metric(w == W_SCAN_WARM ? M_SCAN_WARM : M_SCAN_COLD, ms);
    put_metric(w == W_SCAN_WARM ? M_MEM_SCAN_WARM : M_MEM_SCAN_COLD, peak_kib());
    put_checksum(w, &got);
    return 0;
fail:
    fail(e, db, "SELECT k, v FROM t");
    e->finalize(scan);
    return -1;
}

/* 4. Keys N, N+1, ... each inserted by an autocommit INSERT: one durable transaction each. */
static int wl_commits(const sql_engine *e, void *db, const options *o) {
    uint64_t *lat = malloc(o->commits * sizeof *lat), total = 0;
    void *ins = NULL;
    if (lat == NULL) die("out of memory");
    if (e->prepare(db, "INSERT INTO t(k, v) VALUES (?, ?)", &ins)) {
        free(lat);
        return fail(e, db, "prepare INSERT");
    }
    peak_reset();
    for (uint64_t i = 0; i < o->commits; i++) {
        uint64_t k = o->rows + i, t0 = now_ns();
        if (e->reset(ins) || e->bind_int64(ins, 1, (int64_t)k) ||
            e->bind_text(ins, 2, value_for(k), VALUE_LEN) || e->step(ins) != 0) {
            fail(e, db, "autocommit INSERT");
            e->finalize(ins);
            free(lat);
            return -1;
        }
        lat[i] = now_ns() - t0;
        total += lat[i];
    }
    put_metric(M_MEM_COMMIT, peak_kib());
    e->finalize(ins);
    qsort(lat, o->commits, sizeof *lat, cmp_u64);
    put_metric(M_COMMIT, (double)total / (double)o->commits / 1e3);
    put_metric(M_COMMIT_P50, (double)lat[(o->commits - 1) / 2] / 1e3);
    put_metric(M_COMMIT_P99, (double)lat[(size_t)ceil(0.99 * (double)o->commits) - 1] / 1e3);
    free(lat);
    return 0;
}

/* After the commits and a reopen, the last committed row must be there. */
static int check_last_commit(const sql_engine *e, void *db, const options *o) {
    void *sel = NULL;
    uint64_t k = o->rows + o->commits - 1;
    int len = 0;
    if (e->prepare(db, "SELECT v FROM t WHERE k = ?", &sel))
        return fail(e, db, "prepare SELECT after reopen");
    int rc = e->bind_int64(sel, 1, (int64_t)k) ? -1 : e->step(sel);
    const char *v = rc == 1 ? e->column_text(sel, 0, &len) : NULL;
    int ok = v && len == VALUE_LEN && memcmp(v, value_for(k), VALUE_LEN) == 0;
    if (rc < 0)
        fail(e, db, "SELECT after reopen");
    else if (!ok)
        snprintf(wl_error, sizeof wl_error,
                 "the last committed row (k = %llu) is missing or wrong after reopen", (unsigned long long)k);
    e->finalize(sel);
    return ok ? 0 : -1;
}

/* --- workload 5: the analytic table ------------------------------------------------------ */

static int wl_load_sales(const sql_engine *e, void *db, const options *o) {
    void *ins = NULL;
    if (e->exec(db, "CREATE TABLE sales(id INTEGER PRIMARY KEY, region INTEGER, qty INTEGER, price DOUBLE, "
                    "day INTEGER)"))
        return fail(e, db, "CREATE TABLE sales");
    peak_reset();
    uint64_t t0 = now_ns();
    if (e->exec(db, "BEGIN")) return fail(e, db, "BEGIN");
    if (e->prepare(db, "INSERT INTO sales(id, region, qty, price, day) VALUES (?, ?, ?, ?, ?)", &ins))
        return fail(e, db, "prepare INSERT INTO sales");
    for (uint64_t i = 0; i < o->sales; i++) {
        sale s = sale_for(i);
        if ((i > 0 && e->reset(ins)) || e->bind_int64(ins, 1, s.id) || e->bind_int64(ins, 2, s.region) ||
            e->bind_int64(ins, 3, s.qty) || e->bind_double(ins, 4, s.price) || e->bind_int64(ins, 5, s.day) ||
            e->step(ins) != 0) {
            fail(e, db, "INSERT INTO sales");
            e->finalize(ins);
            return -1;
        }
    }
    e->finalize(ins);
    if (e->exec(db, "COMMIT")) return fail(e, db, "COMMIT");
    put_metric(M_LOAD, ms_since(t0));
    put_metric(M_MEM_LOAD, peak_kib());
    return 0;
}

static uint64_t group_row_hash(int64_t region, int64_t count, int64_t sum_qty) {
    return mix(mix(mix(0, (uint64_t)region), (uint64_t)count), (uint64_t)sum_qty) & MASK52;
}

static uint64_t double_bits(double d) {
    uint64_t u;
    d += 0.0; /* -0.0 -> 0.0 */
    memcpy(&u, &d, sizeof u);
    return u;
}

/* The result of query q computed from the data generator. */
static checksum query_expected(int q, const options *o) {
    checksum c = {0};
    if (q == 1) {
        int64_t count[REGIONS] = {0}, qty[REGIONS] = {0};
        for (uint64_t i = 0; i < o->sales; i++) {
            sale s = sale_for(i);
            count[s.region]++, qty[s.region] += s.qty;
        }
        for (int r = 0; r < REGIONS; r++)
            if (count[r])
                c.a++, c.b += (uint64_t)count[r], c.c = (c.c + group_row_hash(r, count[r], qty[r])) & MASK52;
        return c;
    }
    double sum = 0;
    for (uint64_t i = 0; i < o->sales; i++) {
        sale s = sale_for(i);
        if (q == 0 && s.qty > 50) sum += s.price;
        if (q == 2 && s.price * (double)s.qty > 1000) sum += s.price * (double)s.qty;
    }
    c.a = 1, c.b = double_bits(sum) >> 12, c.c = double_bits(sum) & 0xFFF;
    return c;
}

/* One run of the prepared query to its end, its result folded into *c. */
static int run_query(const sql_engine *e, void *stmt, int q, checksum *c) {
    int rc;
    memset(c, 0, sizeof *c);
    while ((rc = e->step(stmt)) == 1) {
        c->a++;
        if (q == 1) {
            int64_t count = e->column_int64(stmt, 1);
            c->b += (uint64_t)count;
            c->c =
                (c->c + group_row_hash(e->column_int64(stmt, 0), count, e->column_int64(stmt, 2))) & MASK52;
        } else {
            uint64_t u = double_bits(e->column_double(stmt, 0));
            c->b = u >> 12, c->c = u & 0xFFF;
        }
    }
    return rc;
}

/* 5a-c. Query q on the loaded table in a fresh process: the first run (prepare included), then
** query_runs runs of the prepared statement (reset, run to the end), their median. */
static int wl_query(const sql_engine *e, void *db, const options *o, int q) {
    static const int first_metric[3] = {M_Q1_FIRST, M_Q2_FIRST, M_Q3_FIRST};
    checksum want = query_expected(q, o), got;
    void *stmt = NULL;
    double *runs = calloc((size_t)o->query_runs, sizeof *runs);
    if (runs == NULL) die("out of memory");
    /* Both engines read their catalog here, so that the first run does not pay for it in one
    ** engine only (SQLite reads its schema at the first prepare, strata at open). */
    if (e->prepare(db, "SELECT 1", &stmt) == 0) {
        e->step(stmt);
        e->finalize(stmt);
        stmt = NULL;
    }
    peak_reset();
    uint64_t t0 = now_ns();
    if (e->prepare(db, query_sql[q], &stmt)) goto fail;
    if (run_query(e, stmt, q, &got) < 0) goto fail;
    double first = ms_since(t0);
    if (!checksum_equal(&got, &want)) goto wrong;
    for (int r = 0; r < o->query_runs; r++) {
        t0 = now_ns();
        if (e->reset(stmt) || run_query(e, stmt, q, &got) < 0) goto fail;
        runs[r] = ms_since(t0);
        if (!checksum_equal(&got, &want)) goto wrong;
    }
    put_metric(first_metric[q], first);
    put_metric(first_metric[q] + 1, summary_of(runs, o->query_runs).median);
    put_metric(M_MEM_Q1 + q, peak_kib());
    put_checksum(W_Q1 + q, &got);
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

/* ---------------------------------------------------------------------------------------------
** Child processes. Each runs one phase for one engine and writes <dir>/result-<phase>.txt.
*/

/* RUN_WORKLOAD announces workload w, runs call and records its outcome; 0 when it succeeded. */
#define RUN_WORKLOAD(w, call)                                                                                \
    (result_line("run %s", workload_ids[w]), current_workload = workload_ids[w], wl_error[0] = '\0',         \
     (call) == 0 ? (result_line("done %s", workload_ids[w]), 0)                                              \
                 : (result_line("err %s %s", workload_ids[w], wl_error), -1))

static void skip(int w, const char *why) { result_line("err %s not run: %s", workload_ids[w], why); }

static void open_result_file(const options *o) {
    char path[4200];
    snprintf(path, sizeof path, "%s/result-%s%d.txt", o->child_dir, o->phase, o->query);
    if ((result_file = fopen(path, "w")) == NULL) die("cannot write %s: %s", path, strerror(errno));
}

/* open_db opens path (fresh: removing the old files first); on failure it records the message
** for each workload in [w_from, w_to] and returns NULL. */
static void *open_db(const sql_engine *e, const char *path, int fresh, int w_from, int w_to) {
    char side[4300];
    if (fresh) {
        unlink(path);
        snprintf(side, sizeof side, "%s-wal", path), unlink(side);
        snprintf(side, sizeof side, "%s-shm", path), unlink(side);
    }
    void *db = NULL;
    if (e->open(path, &db) == 0) return db;
    char what[4300];
    snprintf(what, sizeof what, "open %s", path);
    fail(e, db, what);
    for (int w = w_from; w <= w_to; w++)
        result_line("err %s %s", workload_ids[w], wl_error);
    e->close(db);
    return NULL;
}

static double db_size(const char *path) {
    char wal[4300];
    snprintf(wal, sizeof wal, "%s-wal", path);
    return file_size(path) + file_size(wal);
}

static void child_oltp(const sql_engine *e, const options *o) {
    char path[4200], scratch[4200];
    snprintf(path, sizeof path, "%s/t.db", o->child_dir);
    void *db = open_db(e, path, 1, W_BULK, W_COMMITS);
    if (db == NULL) return;
    if (RUN_WORKLOAD(W_BULK, wl_bulk(e, db, o))) {
        for (int w = W_LOOKUP_WARM; w <= W_COMMITS; w++)
            skip(w, "the bulk insert failed");
        e->close(db);
        return;
    }
    RUN_WORKLOAD(W_LOOKUP_WARM, wl_lookups(e, db, o, W_LOOKUP_WARM));
    RUN_WORKLOAD(W_SCAN_WARM, wl_scan(e, db, o, W_SCAN_WARM));
    e->close(db);
    put_metric(M_SIZE_T, db_size(path));

    if ((db = open_db(e, path, 0, W_LOOKUP_COLD, W_COMMITS)) == NULL) return;
    RUN_WORKLOAD(W_LOOKUP_COLD, wl_lookups(e, db, o, W_LOOKUP_COLD));
    e->close(db);
    if ((db = open_db(e, path, 0, W_SCAN_COLD, W_COMMITS)) == NULL) return;
    RUN_WORKLOAD(W_SCAN_COLD, wl_scan(e, db, o, W_SCAN_COLD));

    snprintf(scratch, sizeof scratch, "%s/disk-check.dat", o->child_dir);
    current_workload = "disk check";
    put_metric(M_DISK_CHECK, floor_median_us(scratch, 1, DISK_CHECK_WRITES));
    if (RUN_WORKLOAD(W_COMMITS, wl_commits(e, db, o)) == 0) {
        e->close(db);
        if ((db = open_db(e, path, 0, W_COMMITS, W_COMMITS)) == NULL) return;
        /* the figures stay; the failure of this check marks the workload failed */
        RUN_WORKLOAD(W_COMMITS, check_last_commit(e, db, o));
    }
    e->close(db);
}

static void child_load(const sql_engine *e, const options *o) {
    char path[4200];
    snprintf(path, sizeof path, "%s/sales.db", o->child_dir);
    void *db = open_db(e, path, 1, W_LOAD, W_LOAD);
    if (db == NULL) return;
    RUN_WORKLOAD(W_LOAD, wl_load_sales(e, db, o));
    e->close(db);
    put_metric(M_SIZE_SALES, db_size(path));
}

static void child_query(const sql_engine *e, const options *o) {
    char path[4200];
    snprintf(path, sizeof path, "%s/sales.db", o->child_dir);
    void *db = open_db(e, path, 0, W_Q1 + o->query, W_Q1 + o->query);
    if (db == NULL) return;
    RUN_WORKLOAD(W_Q1 + o->query, wl_query(e, db, o, o->query));
    e->close(db);
}

static void child_floor(const options *o) {
    char path[4200];
    current_workload = "4 KiB pwrite + fdatasync";
    snprintf(path, sizeof path, "%s/floor.dat", o->child_dir);
    put_metric(M_FLOOR, floor_median_us(path, 1, FLOOR_WRITES));
    put_metric(M_FLOOR_APPEND, floor_median_us(path, 0, FLOOR_WRITES));
}

static void run_child_phase(const options *o) {
    current_engine = o->child_engine;
    open_result_file(o);
    alarm((unsigned)o->timeout); /* a hung engine is killed by SIGALRM and reported */
    const sql_engine *e = !strcmp(o->child_engine, "strata") ? &strata_engine : &sqlite_engine;
    if (!strcmp(o->phase, "floor"))
        child_floor(o);
    else if (!strcmp(o->phase, "oltp"))
        child_oltp(e, o);
    else if (!strcmp(o->phase, "load"))
        child_load(e, o);
    else if (!strcmp(o->phase, "query") && o->query >= 0 && o->query < 3)
        child_query(e, o);
    else
        die("unknown phase %s", o->phase);
    double load[1];
    if (getloadavg(load, 1) == 1) put_metric(M_LOAD1, load[0]);
    fclose(result_file);
}

/* ---------------------------------------------------------------------------------------------
** The parent: spawn the children, collect, check, report.
*/

enum { E_STRATA, E_SQLITE, E_FLOOR, E_COUNT };
static const char *const engine_names[E_COUNT] = {"strata", "sqlite", "floor"};
static const char *const engine_titles[E_COUNT] = {"strata", "SQLite", "floor"};

typedef struct sample {
    int engine, rep, position; /* position: order within the repetition (0 = ran first) */
    double seconds;            /* wall time of its child processes */
    double m[M_COUNT];
    char *err[W_COUNT]; /* malloc'ed message of a failed workload, NULL when it succeeded */
} sample;

static void set_error(sample *s, int w, const char *msg) {
    if (s->err[w]) return; /* the first message is the cause */
    s->err[w] = strdup(msg);
    for (int m = 0; m < M_COUNT; m++)
        if (metric_defs[m].workload == w) s->m[m] = NAN;
}

/* read_phase merges a child's result file into s. When the child died (how is in `death`), each
** workload of [w_from, w_to] without an outcome gets an error saying so. */
static void read_phase(const char *path, sample *s, int w_from, int w_to, const char *death) {
    FILE *f = fopen(path, "r");
    char line[2048], id[128];
    int started[W_COUNT] = {0}, done[W_COUNT] = {0}, last = -1;
    double vals[M_COUNT], v;
    for (int m = 0; m < M_COUNT; m++)
        vals[m] = NAN;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        int n = 0;
        if (sscanf(line, "m %127s %lf", id, &v) == 2) {
            for (int m = 0; m < M_COUNT; m++)
                if (!strcmp(id, metric_defs[m].id)) vals[m] = v;
            continue;
        }
        char kind[8];
        if (sscanf(line, "%7s %127s %n", kind, id, &n) < 2) continue;
        for (int w = 0; w < W_COUNT; w++) {
            if (strcmp(id, workload_ids[w])) continue;
            if (!strcmp(kind, "run")) started[w] = 1, done[w] = 0, last = w;
            if (!strcmp(kind, "done")) done[w] = 1;
            if (!strcmp(kind, "err")) done[w] = 1, set_error(s, w, line + n);
        }
    }
    if (f) fclose(f);
    for (int m = 0; m < M_COUNT; m++) {
        int w = metric_defs[m].workload;
        if (!isnan(vals[m]) && (w < 0 || !s->err[w])) s->m[m] = vals[m];
    }
    if (death == NULL) return;
    char msg[256];
    int blamed = 0;
    for (int w = w_from; w <= w_to; w++) {
        if (done[w]) continue;
        snprintf(msg, sizeof msg,
                 started[w] ? "the process died (%s) during this workload"
                            : "not run: the process died (%s) before it",
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
static void run_phase(const char *exe, const options *o, const char *dir, sample *s, const char *phase,
                      int query) {
    char num[7][32];
    snprintf(num[0], sizeof num[0], "%d", query);
    snprintf(num[1], sizeof num[1], "%llu", (unsigned long long)o->rows);
    snprintf(num[2], sizeof num[2], "%llu", (unsigned long long)o->lookups);
    snprintf(num[3], sizeof num[3], "%llu", (unsigned long long)o->commits);
    snprintf(num[4], sizeof num[4], "%llu", (unsigned long long)o->sales);
    snprintf(num[5], sizeof num[5], "%d", o->query_runs);
    snprintf(num[6], sizeof num[6], "%d", o->timeout);
    const char *argv[] = {exe,       "--child",   engine_names[s->engine],
                          dir,       phase,       num[0],
                          "--rows",  num[1],      "--lookups",
                          num[2],    "--commits", num[3],
                          "--sales", num[4],      "--query-runs",
                          num[5],    "--timeout", num[6],
                          NULL};
    double seconds;
    int status = run_process(argv, &seconds);
    s->seconds += seconds;
    char death[96] = "", path[4200];
    if (WIFSIGNALED(status))
        snprintf(death, sizeof death, "signal %d%s", WTERMSIG(status),
                 WTERMSIG(status) == SIGALRM ? ", the --timeout" : "");
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        snprintf(death, sizeof death, "exit status %d", WEXITSTATUS(status));
    snprintf(path, sizeof path, "%s/result-%s%d.txt", dir, phase, query);
    int w_from = !strcmp(phase, "oltp") ? W_BULK : !strcmp(phase, "load") ? W_LOAD : W_Q1 + query;
    int w_to = !strcmp(phase, "oltp") ? W_COMMITS : w_from;
    if (!strcmp(phase, "floor")) w_from = 0, w_to = -1;
    read_phase(path, s, w_from, w_to, death[0] ? death : NULL);
    if (death[0]) fprintf(stderr, " [%s %s: %s]", engine_names[s->engine], phase, death);
}

static void run_sample(const char *exe, const options *o, const char *run_dir, sample *s) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s-%d", run_dir, engine_names[s->engine], s->rep);
    if (mkdir(dir, 0755) != 0) die("mkdir %s: %s", dir, strerror(errno));
    for (int m = 0; m < M_COUNT; m++)
        s->m[m] = NAN;
    if (s->engine == E_FLOOR) {
        run_phase(exe, o, dir, s, "floor", 0);
    } else {
        run_phase(exe, o, dir, s, "oltp", 0);
        run_phase(exe, o, dir, s, "load", 0);
        for (int q = 0; q < 3; q++)
            if (s->err[W_LOAD])
                set_error(s, W_Q1 + q, "not run: the analytic table load failed");
            else
                run_phase(exe, o, dir, s, "query", q);
    }
    if (!o->keep) remove_tree(dir);
}

static summary summarize(const sample *samples, int nsamples, int engine, int metric) {
    double v[256];
    int n = 0;
    for (int i = 0; i < nsamples && n < 256; i++)
        if (samples[i].engine == engine && !isnan(samples[i].m[metric])) v[n++] = samples[i].m[metric];
    return summary_of(v, n);
}

/* cross_check compares every sample's checksums with the first sample that has them; each
** child already compared its own with the data generator's. Returns the number of disagreements
** (each printed, naming the workload). */
static int cross_check(const sample *samples, int nsamples) {
    int bad = 0;
    for (int w = 0; w < W_COUNT; w++) {
        const sample *ref = NULL;
        for (int i = 0; i < nsamples; i++) {
            const sample *s = &samples[i];
            if (s->engine == E_FLOOR || isnan(s->m[M_CK + 3 * w])) continue;
            if (ref == NULL) {
                ref = s;
                continue;
            }
            for (int c = 0; c < 3; c++)
                if (s->m[M_CK + 3 * w + c] != ref->m[M_CK + 3 * w + c]) {
                    fprintf(stderr,
                            "bench_sql: FAILED: workload '%s': engines disagree: %s = %.0f for %s rep %d, "
                            "%.0f for %s rep %d\n",
                            workload_ids[w], metric_defs[M_CK + 3 * w + c].id, s->m[M_CK + 3 * w + c],
                            engine_names[s->engine], s->rep, ref->m[M_CK + 3 * w + c],
                            engine_names[ref->engine], ref->rep);
                    bad++;
                    break;
                }
        }
    }
    return bad;
}

static int count_failures(const sample *samples, int nsamples) {
    int n = 0;
    for (int i = 0; i < nsamples; i++)
        for (int w = 0; w < W_COUNT; w++)
            n += samples[i].err[w] != NULL;
    return n;
}

/* --- report ------------------------------------------------------------------------------ */

static void row_label(char *out, size_t n, int m, const options *o) {
    char count[40];
    uint64_t c = m == M_BULK ? o->rows : m == M_LOAD ? o->sales : m == M_COMMIT ? o->commits : o->lookups;
    fmt_num(count, sizeof count, (double)c);
    snprintf(out, n, metric_defs[m].label, count);
}

/* A cell: the summary, or "n/a (failed)" when some repetition failed this workload. */
static void cell(char *out, size_t n, const sample *samples, int nsamples, int engine, int m) {
    int w = metric_defs[m].workload, failed = 0;
    for (int i = 0; i < nsamples; i++)
        failed += samples[i].engine == engine && w >= 0 && samples[i].err[w] != NULL;
    summary s = summarize(samples, nsamples, engine, m);
    char sum[160];
    fmt_summary(sum, sizeof sum, s, 1);
    if (failed && s.n)
        snprintf(out, n, "%s, **failed in %d rep(s)**", sum, failed);
    else if (failed)
        snprintf(out, n, "**n/a (failed)**");
    else
        snprintf(out, n, "%s", sum);
}

static void write_report(FILE *out, const options *o, const environment *env, const sample *samples,
                         int nsamples, const char *saved_as, int disagreements) {
    char c[4][200], label[160];
    fprintf(out, "# strata vs SQLite — SQL benchmark\n\n");
    fprintf(
        out,
        "strata through include/strata.h, SQLite through sqlite3.h, prepared statements on both sides; "
        "%d repetition(s) per engine, each in fresh processes on fresh databases, engine order alternating. "
        "Median (min–max) over repetitions; a verdict only when the min–max ranges do not overlap.\n\n",
        o->reps);
    fprintf(out, "| workload | unit | strata | SQLite | strata ÷ SQLite | verdict | strata peak MiB | SQLite "
                 "peak MiB |\n");
    fprintf(out, "|---|---|---|---|---|---|---|---|\n");
    for (size_t r = 0; r < sizeof report_rows / sizeof report_rows[0]; r++) {
        int m = report_rows[r];
        const metric_def *d = &metric_defs[m];
        summary a = summarize(samples, nsamples, E_STRATA, m), b = summarize(samples, nsamples, E_SQLITE, m);
        row_label(label, sizeof label, m, o);
        cell(c[0], sizeof c[0], samples, nsamples, E_STRATA, m);
        cell(c[1], sizeof c[1], samples, nsamples, E_SQLITE, m);
        if (a.n && b.n && b.median != 0)
            snprintf(c[2], sizeof c[2], "%.2f", a.median / b.median);
        else
            snprintf(c[2], sizeof c[2], "–");
        fmt_mib(c[3], sizeof c[3],
                d->mem >= 0 ? summarize(samples, nsamples, E_STRATA, d->mem) : (summary){0});
        char sq[64];
        fmt_mib(sq, sizeof sq, d->mem >= 0 ? summarize(samples, nsamples, E_SQLITE, d->mem) : (summary){0});
        const char *v = m == M_DISK_CHECK    ? "–"
                        : a.n < 2 || b.n < 2 ? (a.n && b.n ? "1 sample: none" : "n/a")
                                             : verdict(a, b, 0);
        fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", label, d->unit, c[0], c[1], c[2], v, c[3],
                sq);
    }

    summary fl = summarize(samples, nsamples, E_FLOOR, M_FLOOR),
            fa = summarize(samples, nsamples, E_FLOOR, M_FLOOR_APPEND);
    summary sc = summarize(samples, nsamples, E_STRATA, M_COMMIT),
            qc = summarize(samples, nsamples, E_SQLITE, M_COMMIT);
    fmt_summary(c[0], sizeof c[0], fl, 1);
    fmt_summary(c[1], sizeof c[1], fa, 1);
    fprintf(out,
            "\n**Durable-commit floor** on this disk (%s): one 4 KiB pwrite + fdatasync, median of %d per "
            "repetition: "
            "%s µs overwriting a synced file; %s µs appending to a new file.",
            env->fs, FLOOR_WRITES, c[0], c[1]);
    if (fl.n && sc.n) fprintf(out, " strata's single-row transaction: %.2f × floor.", sc.median / fl.median);
    if (fl.n && qc.n) fprintf(out, " SQLite's: %.2f × floor.", qc.median / fl.median);
    if (fl.n > 1 && fl.max > 3 * fl.min)
        fprintf(out,
                " **Warning:** the floor varied from %.0f to %.0f µs between repetitions: the disk was not "
                "quiet.",
                fl.min, fl.max);
    fprintf(out, "\n");

    int failures = count_failures(samples, nsamples);
    if (failures || disagreements) {
        fprintf(out, "\n## FAILURES\n\n");
        if (disagreements)
            fprintf(
                out,
                "- **The engines' result checksums disagree on %d workload(s)** (named on stderr and in the "
                "JSON checksums).\n",
                disagreements);
        for (int i = 0; i < nsamples; i++)
            for (int w = 0; w < W_COUNT; w++)
                if (samples[i].err[w])
                    fprintf(out, "- %s, repetition %d, workload `%s`: %s\n", engine_titles[samples[i].engine],
                            samples[i].rep, workload_ids[w], samples[i].err[w]);
    }

    fprintf(out, "\nWorkloads and settings:\n");
    fprintf(
        out,
        "- t(k INTEGER PRIMARY KEY, v TEXT), %llu rows, v 32 characters. 1: `INSERT INTO t(k, v) VALUES (?, "
        "?)` "
        "prepared once, int64 + text bound per row, between BEGIN and COMMIT (commit included). 2: %llu "
        "uniformly random keys, `SELECT v FROM t WHERE k = ?` prepared once, each lookup its own autocommit "
        "read (reset, bind int64, step, read the text); prepare included. 3: `SELECT k, v FROM t`, every key "
        "and value read. Warm = right after 1 on the same connection; cold = after close and reopen in the "
        "same process (engine cache empty; the OS page cache is not dropped). 4: %llu autocommit `INSERT`s "
        "(keys after the loaded ones), each a durable transaction, into the reopened database.\n",
        (unsigned long long)o->rows, (unsigned long long)o->lookups, (unsigned long long)o->commits);
    fprintf(out,
            "- 5: sales(id INTEGER PRIMARY KEY, region INTEGER, qty INTEGER, price DOUBLE, day INTEGER), "
            "%llu rows: "
            "region 0..99, qty 1..100, price a multiple of 0.25 in 0.25..100 (sums exact in a double), "
            "loaded in its "
            "own process by a prepared INSERT (int64 ×4 + double) in one transaction. Each query then runs "
            "in a fresh "
            "process: open, `SELECT 1` (both engines read their catalog), then the first run timed (prepare "
            "+ every "
            "row), then %d runs of the prepared statement (reset + every row), median. Queries: `%s`; `%s`; "
            "`%s`.\n",
            (unsigned long long)o->sales, o->query_runs, query_sql[0], query_sql[1], query_sql[2]);
    fprintf(
        out,
        "- strata: %s. SQLite %s: %s; page size 4,096 (default), WAL auto-checkpoint 1000 pages (default), "
        "locking_mode NORMAL; text bound SQLITE_STATIC (strata copies bound text).\n",
        STRATA_SETTINGS, sqlite3_libversion(), SQLITE_SETTINGS);
    fprintf(out,
            "- Every read workload's result checksum was compared with the data generator's in each process "
            "and between engines%s. Peak MiB: the process's RSS high-water mark during the workload (reset "
            "before it; sync() before every timed workload).%s\n",
            disagreements ? " — **they disagree, see above**" : "",
            peak_reset_works ? "" : " The high-water-mark reset FAILED: peaks are cumulative.");
    fprintf(out, "- strata ÷ SQLite is the ratio of medians: below 1 strata takes less time.\n");

    fprintf(out,
            "\nEnvironment: %s, %ld cores, %.1f GiB RAM; %s; file system of bench/tmp: %s. Compiler %s; "
            "flags `%s`; "
            "library %s. Load average before/after: %s / %s. Git commit %s%s. Date %s.%s%s\n",
            env->cpu, env->cores, env->mem_gib, env->kernel, env->fs, COMPILER, BENCH_CFLAGS, BENCH_LIB,
            env->load_before, env->load_after, env->commit,
            env->git_status[0] ? " (working tree dirty: uncommitted changes were measured)" : " (clean)",
            env->date, saved_as ? " Raw samples: " : "", saved_as ? saved_as : "");
}

static void write_json(FILE *f, const options *o, const environment *env, const sample *samples,
                       int nsamples) {
    fprintf(f, "{\n  \"benchmark\": \"sql\",\n  \"date\": ");
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
    fprintf(f, ", \"sqlite\": ");
    json_str(f, sqlite3_libversion());
    fprintf(f, ", \"load_before\": ");
    json_str(f, env->load_before);
    fprintf(f, ", \"load_after\": ");
    json_str(f, env->load_after);
    fprintf(f,
            "},\n  \"config\": {\"rows\": %llu, \"value_chars\": %d, \"lookups\": %llu, \"commits\": %llu, "
            "\"sales\": %llu, \"query_runs\": %d, \"reps\": %d, \"timeout_s\": %d, \"engines\": ",
            (unsigned long long)o->rows, VALUE_LEN, (unsigned long long)o->lookups,
            (unsigned long long)o->commits, (unsigned long long)o->sales, o->query_runs, o->reps, o->timeout);
    json_str(f, o->engines);
    fprintf(f, ", \"strata_settings\": ");
    json_str(f, STRATA_SETTINGS);
    fprintf(f, ", \"sqlite_settings\": ");
    json_str(f, SQLITE_SETTINGS ", page_size default, wal_autocheckpoint default, locking_mode NORMAL");
    fprintf(f, ", \"queries\": [");
    for (int q = 0; q < 3; q++) {
        json_str(f, query_sql[q]);
        fprintf(f, q < 2 ? ", " : "]},\n");
    }
    fprintf(f, "  \"samples\": [\n");
    for (int i = 0; i < nsamples; i++) {
        const sample *s = &samples[i];
        fprintf(
            f,
            "    {\"engine\": \"%s\", \"rep\": %d, \"position\": %d, \"child_seconds\": %.3f, \"metrics\": {",
            engine_names[s->engine], s->rep, s->position, s->seconds);
        int first = 1;
        for (int m = 0; m < M_COUNT; m++) {
            if (isnan(s->m[m])) continue;
            fprintf(f, "%s\"%s\": ", first ? "" : ", ", metric_defs[m].id);
            json_num(f, s->m[m]);
            first = 0;
        }
        fprintf(f, "}, \"errors\": {");
        first = 1;
        for (int w = 0; w < W_COUNT; w++) {
            if (!s->err[w]) continue;
            fprintf(f, "%s\"%s\": ", first ? "" : ", ", workload_ids[w]);
            json_str(f, s->err[w]);
            first = 0;
        }
        fprintf(f, "}}%s\n", i + 1 < nsamples ? "," : "");
    }
    fprintf(f, "  ],\n  \"summary\": [\n");
    int first = 1;
    for (int m = 0; m < M_COUNT; m++)
        for (int e = 0; e < E_COUNT; e++) {
            summary s = summarize(samples, nsamples, e, m);
            if (s.n == 0 || m >= M_CK) continue;
            fprintf(f, "%s    {\"metric\": \"%s\", \"unit\": ", first ? "" : ",\n", metric_defs[m].id);
            json_str(f, metric_defs[m].unit);
            fprintf(f, ", \"engine\": \"%s\", \"n\": %d, \"median\": ", engine_names[e], s.n);
            json_num(f, s.median);
            fprintf(f, ", \"min\": ");
            json_num(f, s.min);
            fprintf(f, ", \"max\": ");
            json_num(f, s.max);
            fprintf(f, "}");
            first = 0;
        }
    fprintf(f, "\n  ]\n}\n");
}

static int run_parent(const options *o) {
    char run_dir[256], exe[4096];
    run_setup("sql-run", run_dir, sizeof run_dir, exe, sizeof exe);

    environment env;
    gather_environment(&env, run_dir);
    int use[2] = {strcmp(o->engines, "sqlite") != 0, strcmp(o->engines, "strata") != 0};
    sample *samples = calloc((size_t)o->reps * E_COUNT, sizeof *samples);
    if (samples == NULL) die("out of memory");
    int nsamples = 0;
    for (int rep = 1; rep <= o->reps; rep++) {
        int order[E_COUNT] = {E_FLOOR, rep % 2 ? E_STRATA : E_SQLITE, rep % 2 ? E_SQLITE : E_STRATA};
        for (int i = 0, pos = 0; i < E_COUNT; i++) {
            if (order[i] != E_FLOOR && !use[order[i]]) continue;
            sample *s = &samples[nsamples++];
            s->engine = order[i];
            s->rep = rep;
            s->position = pos++;
            fprintf(stderr, "rep %d/%d: %-6s ...", rep, o->reps, engine_names[s->engine]);
            run_sample(exe, o, run_dir, s);
            fprintf(stderr, " %.1f s\n", s->seconds);
        }
    }
    if (!o->keep) remove_tree(run_dir);
    load_average(env.load_after, sizeof env.load_after);
    int disagreements = cross_check(samples, nsamples), failures = count_failures(samples, nsamples);

    char md_path[512] = "", json_path[512] = "";
    if (o->save) result_paths("sql", &env, md_path, json_path, sizeof md_path);
    write_report(stdout, o, &env, samples, nsamples, o->save ? json_path : NULL, disagreements);
    if (o->save) {
        FILE *f = fopen(md_path, "w");
        if (f == NULL) die("cannot write %s: %s", md_path, strerror(errno));
        write_report(f, o, &env, samples, nsamples, json_path, disagreements);
        if (fclose(f) != 0) die("cannot write %s", md_path);
        if ((f = fopen(json_path, "w")) == NULL) die("cannot write %s: %s", json_path, strerror(errno));
        write_json(f, o, &env, samples, nsamples);
        if (fclose(f) != 0) die("cannot write %s", json_path);
        printf("\nSaved %s and %s\n", md_path, json_path);
    }
    for (int i = 0; i < nsamples; i++)
        for (int w = 0; w < W_COUNT; w++)
            if (samples[i].err[w]) {
                fprintf(stderr, "bench_sql: FAILED: %s rep %d, workload '%s': %s\n",
                        engine_names[samples[i].engine], samples[i].rep, workload_ids[w], samples[i].err[w]);
                free(samples[i].err[w]);
            }
    free(env.git_status);
    free(samples);
    return failures || disagreements ? 1 : 0;
}

int main(int argc, char **argv) {
    options o;
    bench_program = "bench_sql";
    parse_options(argc, argv, &o);
    metric_defs_init();
    value_pool_init();
    if (o.child_engine) {
        run_child_phase(&o);
        return 0;
    }
    return run_parent(&o);
}
