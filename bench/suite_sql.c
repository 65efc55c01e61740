/*
** suite_sql.c -- the SQL workloads of the seed reports' suite A (000, 001, 002), part one:
** t(k, v) -- bulk insert, point lookups and scans warm and cold, count(*), open, durable
** single-row transactions -- and the analytic table sales with filter + sum, GROUP BY over 100
** groups and an arithmetic filter + aggregate. bench/README.md describes each.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define VALUE_LEN 32     /* characters of t.v */
#define POOL_BYTES 65536 /* values are windows of this pool of random characters (power of two) */

static const size_def sizes[] = {
    {"rows", 100000, 20000, 500},   {"lookups", 10000, 2000, 100}, {"commits", 200, 50, 5},
    {"sales", 200000, 40000, 1000}, {"query_runs", 5, 3, 1},
};

static const workload_def workloads[] = {
    {"bulk_insert", "oltp"},  {"lookup_warm", "oltp"},
    {"scan_warm", "oltp"},    {"count", "oltp"},
    {"open", "oltp"},         {"lookup_cold", "oltp"},
    {"scan_cold", "oltp"},    {"durable_commits", "oltp"},
    {"load_sales", "load"},   {"q_filter_sum", "query0"},
    {"q_group_by", "query1"}, {"q_arith_filter_agg", "query2"},
};

static const metric_def metrics[] = {
    {"bulk_insert_ms", "bulk_insert", "bulk insert, %s rows, 1 txn", "ms", "row", "rows", K_TIME, "rows"},
    {"lookup_warm_ms", "lookup_warm", "point lookup ×%s, warm", "ms", "lookup", "lookups", K_TIME, "lookups"},
    {"lookup_cold_ms", "lookup_cold", "point lookup ×%s, cold (reopened)", "ms", "lookup", "lookups", K_TIME,
     "lookups"},
    {"scan_warm_ms", "scan_warm", "scan, read all %s values, warm", "ms", "row", "rows", K_TIME, "rows"},
    {"scan_cold_ms", "scan_cold", "scan, read all %s values, cold (reopened)", "ms", "row", "rows", K_TIME,
     "rows"},
    {"count_ms", "count", "count(*) of %s rows, warm", "ms", "query", NULL, K_TIME, "rows"},
    {"open_ms", "open", "open + first lookup", "ms", "open", NULL, K_TIME, NULL},
    {"commit_us_mean", "durable_commits", "%s single-row durable txns, mean", "µs", "commit", NULL, K_TIME,
     "commits"},
    {"commit_us_p50", "durable_commits", "   single-row durable txn, p50", "µs", "commit", NULL, K_TIME,
     NULL},
    {"commit_us_p99", "durable_commits", "   single-row durable txn, p99", "µs", "commit", NULL, K_TIME,
     NULL},
    {"load_sales_ms", "load_sales", "load analytic table, %s rows", "ms", "row", "sales", K_TIME, "sales"},
    {"q_filter_sum_first_ms", "q_filter_sum", "filter + sum: first run", "ms", "query run", NULL, K_TIME,
     NULL},
    {"q_filter_sum_repeat_ms", "q_filter_sum", "filter + sum: repeat (median)", "ms", "query run", NULL,
     K_TIME, NULL},
    {"q_group_by_first_ms", "q_group_by", "GROUP BY, 100 groups: first run", "ms", "query run", NULL, K_TIME,
     NULL},
    {"q_group_by_repeat_ms", "q_group_by", "GROUP BY, 100 groups: repeat (median)", "ms", "query run", NULL,
     K_TIME, NULL},
    {"q_arith_filter_agg_first_ms", "q_arith_filter_agg", "arithmetic filter + aggregate: first run", "ms",
     "query run", NULL, K_TIME, NULL},
    {"q_arith_filter_agg_repeat_ms", "q_arith_filter_agg", "arithmetic filter + aggregate: repeat (median)",
     "ms", "query run", NULL, K_TIME, NULL},
    {"size_t_bytes", "bulk_insert", "size of t after the bulk insert (file + WAL)", "bytes", "database", NULL,
     K_SIZE, NULL},
    {"size_sales_bytes", "load_sales", "size of sales after the load (file + WAL)", "bytes", "database", NULL,
     K_SIZE, NULL},
    {"disk_floor_us", "durable_commits", NULL, "µs", "write", NULL, K_INFO, NULL},
};

static const phase_def phases[] = {
    {"oltp", NULL, NULL},
    {"load", NULL, NULL},
    {"query0", "load", "load_sales"},
    {"query1", "load", "load_sales"},
    {"query2", "load", "load_sales"},
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


/* --- t(k, v): bulk insert, lookups, scans, count, open, durable commits -------------------- */

static int wl_bulk(const engine *e, void *db, const options *o) {
    void *ld = NULL;
    if (e->exec(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT)")) return wl_fail(e, db, "CREATE TABLE t");
    peak_reset();
    uint64_t t0 = now_ns();
    if (e->load_begin(db, "t", 2, &ld)) return wl_fail(e, db, "begin the load of t");
    for (uint64_t k = 0, rows = size_of(o, "rows"); k < rows; k++)
        if (e->load_int64(ld, (int64_t)k) || e->load_text(ld, value_for(k), VALUE_LEN) ||
            e->load_end_row(ld)) {
            wl_fail(e, db, "load a row of t");
            e->load_abort(ld);
            return -1;
        }
    if (e->load_finish(ld)) return wl_fail(e, db, "finish the load of t");
    put_metric("bulk_insert_ms", ms_since(t0));
    put_peak("bulk_insert");
    return 0;
}

/* Uniformly random existing keys, each lookup its own autocommit read; prepare included. */
static int wl_lookups(const engine *e, void *db, const options *o, const char *w) {
    checksum want = {0}, got = {0};
    uint64_t rng = 0x6E75C0DEu, n = size_of(o, "lookups"), rows = size_of(o, "rows");
    for (uint64_t i = 0; i < n; i++) {
        uint64_t k = below(&rng, rows);
        checksum_add_row(&want, k, value_for(k), VALUE_LEN);
    }
    void *sel = NULL;
    peak_reset();
    rng = 0x6E75C0DEu;
    uint64_t t0 = now_ns();
    if (e->prepare(db, "SELECT v FROM t WHERE k = ?", &sel))
        return wl_fail(e, db, "prepare SELECT v FROM t WHERE k = ?");
    for (uint64_t i = 0; i < n; i++) {
        uint64_t k = below(&rng, rows);
        int len, rc;
        if (e->reset(sel) || e->bind_int64(sel, 1, (int64_t)k) || (rc = e->step(sel)) < 0) goto fail;
        if (rc == 0) continue; /* no row: the checksum says so */
        const char *v = e->column_text(sel, 0, &len);
        if (v == NULL) goto fail;
        checksum_add_row(&got, k, v, (size_t)len);
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
    wl_fail(e, db, "SELECT v FROM t WHERE k = ?");
    e->finalize(sel);
    return -1;
}

/* Every row, every value read; the checksum does not depend on the row order. */
static int wl_scan(const engine *e, void *db, const options *o, const char *w) {
    checksum want = {0}, got = {0};
    for (uint64_t k = 0, rows = size_of(o, "rows"); k < rows; k++)
        checksum_add_row(&want, k, value_for(k), VALUE_LEN);
    void *scan = NULL;
    int rc;
    peak_reset();
    uint64_t t0 = now_ns();
    if (e->prepare(db, "SELECT k, v FROM t", &scan)) return wl_fail(e, db, "prepare SELECT k, v FROM t");
    while ((rc = e->step(scan)) == 1) {
        int len;
        int64_t k = e->column_int64(scan, 0);
        const char *v = e->column_text(scan, 1, &len);
        if (v == NULL) break;
        checksum_add_row(&got, (uint64_t)k, v, (size_t)len);
    }
    double ms = ms_since(t0);
    if (rc != 0) {
        wl_fail(e, db, "SELECT k, v FROM t");
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
    if (e->prepare(db, sql, &s)) return wl_fail(e, db, sql);
    int rc = e->step(s);
    if (rc == 1) *out = e->column_int64(s, 0);
    if (rc != 1) wl_fail(e, db, sql);
    e->finalize(s);
    return rc == 1 ? 0 : -1;
}

static int wl_count(const engine *e, void *db, const options *o) {
    int64_t n = 0;
    peak_reset();
    uint64_t t0 = now_ns();
    if (query_one(e, db, "SELECT count(*) FROM t", &n)) return -1;
    double ms = ms_since(t0);
    checksum got = {(uint64_t)n, 0, 0}, want = {size_of(o, "rows"), 0, 0};
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
        wl_fail(e, db, "open");
        e->close(db);
        return -1;
    }
    *dbp = db;
    if (e->prepare(db, "SELECT v FROM t WHERE k = 0", &sel))
        return wl_fail(e, db, "prepare the first lookup");
    int rc = e->step(sel);
    const char *v = rc == 1 ? e->column_text(sel, 0, &len) : NULL;
    double ms = ms_since(t0);
    checksum got = {0}, want = {0};
    if (v) checksum_add_row(&got, 0, v, (size_t)len);
    checksum_add_row(&want, 0, value_for(0), VALUE_LEN);
    if (rc < 0) wl_fail(e, db, "the first lookup");
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
    uint64_t n = size_of(o, "commits"), *lat = malloc(n * sizeof *lat), total = 0;
    void *ins = NULL;
    if (lat == NULL) die("out of memory");
    if (e->prepare(db, "INSERT INTO t(k, v) VALUES (?, ?)", &ins)) {
        free(lat);
        return wl_fail(e, db, "prepare INSERT");
    }
    peak_reset();
    for (uint64_t i = 0; i < n; i++) {
        uint64_t k = size_of(o, "rows") + i, t0 = now_ns();
        if (e->reset(ins) || e->bind_int64(ins, 1, (int64_t)k) ||
            e->bind_text(ins, 2, value_for(k), VALUE_LEN) || e->step(ins) != 0) {
            wl_fail(e, db, "autocommit INSERT");
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
    uint64_t k = size_of(o, "rows") + size_of(o, "commits") - 1;
    int len = 0;
    if (e->prepare(db, "SELECT v FROM t WHERE k = ?", &sel))
        return wl_fail(e, db, "prepare SELECT after reopen");
    int rc = e->bind_int64(sel, 1, (int64_t)k) ? -1 : e->step(sel);
    const char *v = rc == 1 ? e->column_text(sel, 0, &len) : NULL;
    int ok = v && len == VALUE_LEN && memcmp(v, value_for(k), VALUE_LEN) == 0;
    if (rc < 0)
        wl_fail(e, db, "SELECT after reopen");
    else if (!ok)
        wl_failf("the last committed row (k = %llu) is missing or wrong after reopen", (unsigned long long)k);
    e->finalize(sel);
    return ok ? 0 : -1;
}

/* --- the analytic table ------------------------------------------------------------------ */

static int wl_load_sales(const engine *e, void *db, const options *o) {
    if (e->exec(db, "CREATE TABLE sales(id INTEGER PRIMARY KEY, region INTEGER, qty INTEGER, price DOUBLE, "
                    "day INTEGER)"))
        return wl_fail(e, db, "CREATE TABLE sales");
    peak_reset();
    uint64_t t0 = now_ns();
    if (sales_load(e, db, size_of(o, "sales"))) return -1;
    put_metric("load_sales_ms", ms_since(t0));
    put_peak("load_sales");
    return 0;
}

/* Query q on the loaded table in a fresh process (time_query). */
static int wl_query(const engine *e, void *db, const options *o, int q, const char *w) {
    checksum want = sales_expected(q, size_of(o, "sales"));
    return time_query(e, db, w, sales_query_sql[q], (int)size_of(o, "query_runs"), sales_run_query, &q,
                      &want);
}

/* --- phases ------------------------------------------------------------------------------ */

static void phase_oltp(const engine *e, const options *o, const char *dir) {
    static const char *const later[] = {"lookup_warm", "scan_warm", "count",          "open",
                                        "lookup_cold", "scan_cold", "durable_commits"};
    const int n_later = (int)(sizeof later / sizeof later[0]);
    char path[4200];
    db_path(path, sizeof path, dir, "t");
    remove_db(path);
    void *db = open_db(e, path, (const char *const[]){"bulk_insert"}, 1);
    if (db == NULL) return skip_workloads(later, n_later, "the database did not open");
    /* everything after the bulk insert reads its rows: it always runs */
    if (RUN_ALWAYS("bulk_insert", wl_bulk(e, db, o))) {
        e->close(db);
        return skip_workloads(later, n_later, "the bulk insert failed");
    }
    RUN("lookup_warm", wl_lookups(e, db, o, "lookup_warm"));
    RUN("scan_warm", wl_scan(e, db, o, "scan_warm"));
    RUN("count", wl_count(e, db, o));
    e->close(db);
    put_metric("size_t_bytes", db_size(path));

    db = NULL;
    if (selected("open")) {
        if (RUN("open", wl_open(e, path, &db))) {
            if (db) e->close(db);
            return skip_workloads(later + 4, 3, "the reopen failed");
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
        snprintf(scratch, sizeof scratch, "%s/disk-check.dat", dir);
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

static void phase_load(const engine *e, const options *o, const char *dir) {
    char path[4200];
    db_path(path, sizeof path, dir, "sales");
    remove_db(path);
    void *db = open_db(e, path, (const char *const[]){"load_sales"}, 1);
    if (db == NULL) return;
    /* the queries read this table: it is loaded whether or not its time is asked for */
    RUN_ALWAYS("load_sales", wl_load_sales(e, db, o));
    e->close(db);
    put_metric("size_sales_bytes", db_size(path));
}

static void phase_query(const engine *e, const options *o, const char *dir, int q) {
    static const char *const ids[3] = {"q_filter_sum", "q_group_by", "q_arith_filter_agg"};
    char path[4200];
    db_path(path, sizeof path, dir, "sales");
    void *db = open_db(e, path, &ids[q], 1);
    if (db == NULL) return;
    RUN(ids[q], wl_query(e, db, o, q, ids[q]));
    e->close(db);
}

static void run_phase(const engine *e, const options *o, const char *dir, const char *phase) {
    value_pool_init();
    if (!strcmp(phase, "oltp"))
        phase_oltp(e, o, dir);
    else if (!strcmp(phase, "load"))
        phase_load(e, o, dir);
    else
        phase_query(e, o, dir, phase[5] - '0');
}

static void describe(FILE *out, const options *o) {
    fprintf(
        out,
        "- t(k INTEGER PRIMARY KEY, v TEXT), %llu rows of 32-character v, loaded by each engine's bulk path "
        "(commit included); %llu point lookups `SELECT v FROM t WHERE k = ?`, each its own autocommit read; "
        "scans `SELECT k, v FROM t` reading every value; warm = right after the load on the same connection, "
        "cold = after close and reopen (the engine's cache is empty; the OS page cache is not dropped); "
        "`SELECT count(*) FROM t`; open = open of the closed database + one lookup; %llu autocommit INSERTs, "
        "each a durable transaction, checked after a reopen.\n",
        (unsigned long long)size_of(o, "rows"), (unsigned long long)size_of(o, "lookups"),
        (unsigned long long)size_of(o, "commits"));
    fprintf(
        out,
        "- sales(id INTEGER PRIMARY KEY, region INTEGER, qty INTEGER, price DOUBLE, day INTEGER), %llu rows, "
        "loaded in its own process; each query in a fresh process: open, `SELECT 1`, the first run timed "
        "(prepare + every row), then %llu runs of the prepared statement, median. Queries: `%s`; `%s`; "
        "`%s`.\n",
        (unsigned long long)size_of(o, "sales"), (unsigned long long)size_of(o, "query_runs"),
        sales_query_sql[0], sales_query_sql[1], sales_query_sql[2]);
}

const suite suite_sql = {
    .id = "sql",
    .title = "SQL: t(k, v) and the analytic table",
    SUITE_TABLES,
    .run_phase = run_phase,
    .describe = describe,
};
