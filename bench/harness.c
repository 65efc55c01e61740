/*
** harness.c -- the benchmark harness: strata against SQLite and DuckDB, side by side.
**
** The workloads live in suites (suite_*.c, harness.h says what a suite declares), each written
** once against the engine interface of engine.h. The engines are strata (its public API), SQLite
** in its WAL + FULL, TRUNCATE + FULL and OFF modes, and DuckDB (loaded with dlopen; "not
** installed" when missing), also as duckdb-t1 (SET threads = 1; only when --engines names it).
** bench/README.md describes the workloads, the method and the files a run writes.
**
** Method: each (engine, phase, repetition) runs in a fresh process -- the program re-executes
** itself with --child -- in a fresh directory under bench/tmp/. A phase is a workload or a few
** that must share a process (the warm reads run right after the load they read). The engine
** order rotates per repetition. Every read workload returns a checksum of its result that must
** equal the one computed from the data generator, and the parent compares the engines'
** checksums: a disagreement fails the run naming the workload. A failing workload (error, wrong
** result, crash, timeout) is reported with its message and the others still run; work an engine
** cannot do is "n/a" with the reason.
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

#include "harness.h"

#ifndef BENCH_CFLAGS
#define BENCH_CFLAGS "unknown (not built by the Makefile)"
#endif
#ifndef BENCH_LIB
#define BENCH_LIB "unknown"
#endif

#define DEFAULT_REPS 5
#define DEFAULT_TIMEOUT 1800 /* seconds per child process */
#define MAX_REPS 100
#define MAX_WORKLOADS 192
#define MAX_METRICS 768
#define MAX_PHASES 128

static const suite *const suites[] = {&suite_sql,      &suite_joins, &suite_index,     &suite_oltp,
                                      &suite_kv,       &suite_concurrency, &suite_colstore, &suite_load,
                                      &suite_analytics, &suite_tpch};
static const engine *const all_engines[] = {&engine_strata,     &engine_sqlite_wal, &engine_sqlite_truncate,
                                            &engine_sqlite_off, &engine_duckdb,     &engine_duckdb_t1,
                                            &engine_strata_t1};
#define N_ENGINES COUNT(all_engines)
enum { DUCKDB = 4, DUCKDB_T1 = 5 }; /* the peers of the ratio columns (checked in registry_init) */
/* The engines a run takes without --engines: duckdb-t1 and strata-t1 only when named. */
#define DEFAULT_ENGINES "strata,sqlite-wal,sqlite-truncate,sqlite-off,duckdb"

/* ---------------------------------------------------------------------------------------------
** The registry: every suite's sizes, workloads, metrics and phases in one numbering.
*/

typedef struct metric {
    const metric_def *d; /* NULL for a workload's peak-memory figure */
    int workload;        /* -1: none */
    char id[96];
} metric;

typedef struct phase {
    const suite *s;
    const phase_def *d;
} phase;

static const size_def *sizes[MAX_SIZES];
static int n_sizes;
static const workload_def *wls[MAX_WORKLOADS];
static const suite *wl_suite[MAX_WORKLOADS];
static int n_wls;
static metric metrics[MAX_METRICS];
static int n_metrics;
static phase phases[MAX_PHASES];
static int n_phases;

static const char *const kind_names[] = {"time", "memory", "size", "rate", "info"};

static int workload_index(const char *id) {
    for (int w = 0; w < n_wls; w++)
        if (!strcmp(wls[w]->id, id)) return w;
    return -1;
}

static int size_index(const char *id) {
    for (int i = 0; i < n_sizes; i++)
        if (!strcmp(sizes[i]->id, id)) return i;
    return -1;
}

static int metric_index(const char *id) {
    for (int m = 0; m < n_metrics; m++)
        if (!strcmp(metrics[m].id, id)) return m;
    return -1;
}

static void registry_init(void) {
    if (all_engines[DUCKDB] != &engine_duckdb || all_engines[DUCKDB_T1] != &engine_duckdb_t1)
        die("harness.c: DUCKDB and DUCKDB_T1 do not index their engines");
    for (int k = 0; k < COUNT(suites); k++) {
        const suite *s = suites[k];
        for (int i = 0; i < s->nsizes; i++) {
            if (size_index(s->sizes[i].id) >= 0) die("size %s declared twice", s->sizes[i].id);
            if (n_sizes == MAX_SIZES) die("too many sizes");
            sizes[n_sizes++] = &s->sizes[i];
        }
        for (int i = 0; i < s->nworkloads; i++) {
            if (workload_index(s->workloads[i].id) >= 0)
                die("workload %s declared twice", s->workloads[i].id);
            if (n_wls == MAX_WORKLOADS) die("too many workloads");
            wl_suite[n_wls] = s;
            wls[n_wls++] = &s->workloads[i];
        }
        for (int i = 0; i < s->nphases; i++) {
            if (n_phases == MAX_PHASES) die("too many phases");
            phases[n_phases++] = (phase){s, &s->phases[i]};
        }
    }
    for (int k = 0; k < COUNT(suites); k++)
        for (int i = 0; i < suites[k]->nmetrics; i++) {
            const metric_def *d = &suites[k]->metrics[i];
            if (n_metrics == MAX_METRICS) die("too many metrics");
            metric *m = &metrics[n_metrics++];
            m->d = d;
            m->workload = d->workload ? workload_index(d->workload) : -1;
            if (d->workload && m->workload < 0) die("metric %s: no workload %s", d->id, d->workload);
            snprintf(m->id, sizeof m->id, "%s", d->id);
        }
    static const metric_def load1 = {"load1_at_end", NULL, NULL, "", "", NULL, K_INFO, NULL};
    metrics[n_metrics++] = (metric){&load1, -1, "load1_at_end"};
    for (int w = 0; w < n_wls; w++) {
        if (n_metrics == MAX_METRICS) die("too many metrics");
        metric *m = &metrics[n_metrics++];
        m->workload = w;
        snprintf(m->id, sizeof m->id, "peak_kib_%s", wls[w]->id);
    }
}

/* ---------------------------------------------------------------------------------------------
** Options.
*/

static int use_engine[N_ENGINES];
static int use_workload[MAX_WORKLOADS];

static void usage(void) {
    fprintf(
        stderr,
        "usage: harness [--quick | --tiny] [--reps N] [--engines E,...] [--workloads W,...]\n"
        "               [--size ID=N ...] [--rows N] [--lookups N] [--commits N] [--sales N] [--sf X]\n"
        "               [--timeout S] [--keep] [--no-save]\n"
        "  --quick        a small version of every workload\n"
        "  --tiny         checksums only (CI): tiny sizes, 1 repetition, nothing saved\n"
        "  --reps N       repetitions per engine (default %d), each in fresh processes\n"
        "  --engines      any of strata, sqlite-wal, sqlite-truncate, sqlite-off (or sqlite for all three),\n"
        "                 duckdb, duckdb-t1, strata-t1 (DuckDB, strata with SET threads = 1; default all but these two)\n"
        "  --workloads    workload or suite ids (default all); bench/README.md lists them\n"
        "  --size ID=N    set a size (bench/README.md); --rows N is --size rows=N, and so on\n"
        "  --sf X         the load and tpch suites' TPC-H scale factor (--size load_sf_milli=X*1000,\n"
        "                 tpch_sf_milli=X*1000)\n"
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
        fprintf(stderr, "harness: %s needs a positive number, not '%s'\n", opt, s);
        exit(2);
    }
    return v;
}

static void select_engines(const char *list) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int e = 0; e < N_ENGINES; e++)
            if (!strcmp(t, all_engines[e]->name) ||
                (!strcmp(t, "sqlite") && !strncmp(all_engines[e]->name, "sqlite-", 7)))
                use_engine[e] = 1, found = 1;
        if (!found) {
            fprintf(stderr, "harness: unknown engine '%s'\n", t);
            usage();
        }
    }
}

static void select_workloads(const char *list) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int w = 0; w < n_wls; w++)
            if (!strcmp(t, "all") || !strcmp(t, wls[w]->id) || !strcmp(t, wl_suite[w]->id))
                use_workload[w] = 1, found = 1;
        if (!found) {
            fprintf(stderr, "harness: unknown workload '%s'\n", t);
            usage();
        }
    }
}

static void set_size(uint64_t *given, const char *id, const char *value, const char *opt) {
    int i = size_index(id);
    if (i < 0) {
        fprintf(stderr, "harness: unknown size '%s'\n", id);
        usage();
    }
    given[i] = parse_count(value, opt);
}

static void parse_options(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->reps = DEFAULT_REPS, o->timeout = DEFAULT_TIMEOUT, o->save = 1;
    o->engines_arg = DEFAULT_ENGINES;
    o->workloads_arg = "all";
    uint64_t given[MAX_SIZES] = {0};
    static const char *const aliases[][2] = {{"--rows", "rows"},
                                             {"--lookups", "lookups"},
                                             {"--commits", "commits"},
                                             {"--sales", "sales"},
                                             {"--query-runs", "query_runs"}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        int alias = -1;
        for (int k = 0; k < COUNT(aliases); k++)
            if (!strcmp(a, aliases[k][0])) alias = k;
        if (alias >= 0)
            set_size(given, aliases[alias][1], next, a), i++;
        else if (!strcmp(a, "--size") && next && strchr(next, '=')) {
            char id[64];
            snprintf(id, sizeof id, "%.*s", (int)(strchr(next, '=') - next), next);
            set_size(given, id, strchr(next, '=') + 1, a), i++;
        } else if (!strcmp(a, "--sf") && next) {
            char milli[32], *end;
            double sf = strtod(next, &end);
            if (*end || !(sf >= 0.001 && sf <= 1e9)) {
                fprintf(stderr, "harness: --sf needs a scale factor of at least 0.001, not '%s'\n", next);
                exit(2);
            }
            snprintf(milli, sizeof milli, "%.0f", sf * 1000);
            set_size(given, "load_sf_milli", milli, a), i++;
            set_size(given, "tpch_sf_milli", milli, a);
        } else if (!strcmp(a, "--quick"))
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
        else if (!strcmp(a, "--child") && i + 4 < argc) {
            o->child_engine = argv[++i];
            o->child_dir = argv[++i];
            o->child_suite = argv[++i];
            o->phase = argv[++i];
        } else
            usage();
    }
    if (o->tiny) o->reps = 1, o->save = 0;
    if (o->reps > MAX_REPS) o->reps = MAX_REPS;
    for (int i = 0; i < n_sizes; i++)
        o->size[i] = given[i]   ? given[i]
                     : o->tiny  ? sizes[i]->tiny
                     : o->quick ? sizes[i]->quick
                                : sizes[i]->full;
    select_engines(o->engines_arg);
    select_workloads(o->workloads_arg);
}

uint64_t size_of(const options *o, const char *id) {
    int i = size_index(id);
    if (i < 0) die("no suite declares the size %s", id);
    return o->size[i];
}

/* ---------------------------------------------------------------------------------------------
** The child's side: the result file and the calls of harness.h.
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

static void one_line(char *s) {
    for (char *p = s; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
}

int selected(const char *w) {
    int i = workload_index(w);
    return i >= 0 && use_workload[i];
}

int workload_begin(const char *w, int always) {
    if (!always && !selected(w)) return 0;
    result_line("run %s", w);
    current_workload = w;
    wl_error[0] = '\0';
    return 1;
}

int workload_end(const char *w, int rc) {
    if (rc == 0)
        result_line("done %s", w);
    else
        result_line("err %s %s", w, wl_error[0] ? wl_error : "failed");
    return rc;
}

void skip_workloads(const char *const *ws, int n, const char *why) {
    for (int i = 0; i < n; i++)
        if (selected(ws[i])) result_line("err %s not run: %s", ws[i], why);
}

void not_applicable(const char *w, const char *why) {
    if (selected(w)) result_line("na %s %s", w, why);
}

void put_metric(const char *id, double v) { result_line("m %s %.17g", id, v); }
void put_peak(const char *w) { result_line("m peak_kib_%s %.17g", w, peak_kib()); }

void put_checksum(const char *w, const checksum *c) {
    result_line("ck %s %llu %llu %llu", w, (unsigned long long)(c->a & MASK52),
                (unsigned long long)(c->b & MASK52), (unsigned long long)(c->c & MASK52));
}

int checksum_equal(const checksum *x, const checksum *y) {
    return ((x->a ^ y->a) & MASK52) == 0 && ((x->b ^ y->b) & MASK52) == 0 && ((x->c ^ y->c) & MASK52) == 0;
}

void checksum_add_row(checksum *c, uint64_t k, const void *v, size_t len) {
    c->a++, c->b += k, c->c += sum_bytes(v, len) + len;
}

void checksum_add(checksum *to, const checksum *c) { to->a += c->a, to->b += c->b, to->c += c->c; }

const char *wl_message(void) { return wl_error; }

int wl_fail(const engine *e, void *db, const char *what) {
    snprintf(wl_error, sizeof wl_error, "%s: %s", what, e->errmsg(db));
    one_line(wl_error);
    return -1;
}

int wl_failf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(wl_error, sizeof wl_error, fmt, ap);
    va_end(ap);
    one_line(wl_error);
    return -1;
}

int wrong_result(const char *what, const checksum *got, const checksum *want) {
    return wl_failf("wrong result of %s: checksum %llu/%llu/%llu, expected %llu/%llu/%llu", what,
                    (unsigned long long)got->a, (unsigned long long)got->b, (unsigned long long)got->c,
                    (unsigned long long)want->a, (unsigned long long)want->b, (unsigned long long)want->c);
}

/* The line a stopped workload leaves, made before the alarm so that the handler only writes it. */
static char limit_line[256];
static size_t limit_len;

static void on_time_limit(int sig) {
    (void)sig;
    if (write(fileno(result_file), limit_line, limit_len) < 0) _exit(1);
    _exit(0);
}

void workload_time_limit(const char *w, int seconds) {
    limit_len = (size_t)snprintf(limit_line, sizeof limit_line,
                                 "err %s exceeded the time limit of %d s per run (stopped)\n", w, seconds);
    if (limit_len >= sizeof limit_line) limit_len = sizeof limit_line - 1;
    fflush(result_file);
    signal(SIGALRM, on_time_limit);
    alarm((unsigned)seconds);
}

double ms_since(uint64_t t0) { return (double)(now_ns() - t0) / 1e6; }

uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15u + (h << 6) + (h >> 2);
    return splitmix64(&h);
}

uint64_t double_bits(double d) {
    uint64_t u;
    d += 0.0; /* -0.0 -> 0.0 */
    memcpy(&u, &d, sizeof u);
    return u;
}

int time_query_runs(const engine *e, void *db, const char *w, const char *sql, int runs, query_run_fn run,
                    void *arg, const checksum *want, double *first_ms, double *repeat_ms) {
    checksum got;
    void *stmt = NULL;
    double *times = calloc((size_t)runs, sizeof *times);
    if (times == NULL) die("out of memory");
    if (e->prepare(db, "SELECT 1", &stmt) == 0) {
        e->step(stmt);
        e->finalize(stmt);
        stmt = NULL;
    }
    peak_reset();
    uint64_t t0 = now_ns();
    if (e->prepare(db, sql, &stmt) || run(e, stmt, arg, &got) < 0) goto fail;
    *first_ms = ms_since(t0);
    checksum first = got;
    if (want == NULL) want = &first; /* no generator's answer: every repeat must equal the first run */
    if (!checksum_equal(&got, want)) goto wrong;
    for (int r = 0; r < runs; r++) {
        t0 = now_ns();
        if (e->reset(stmt) || run(e, stmt, arg, &got) < 0) goto fail;
        times[r] = ms_since(t0);
        if (!checksum_equal(&got, want)) goto wrong;
    }
    *repeat_ms = summary_of(times, runs).median;
    put_peak(w);
    put_checksum(w, &got);
    e->finalize(stmt);
    free(times);
    return 0;
fail:
    if (!wl_message()[0]) wl_fail(e, db, sql);
    goto out;
wrong:
    wrong_result(sql, &got, want);
out:
    e->finalize(stmt);
    free(times);
    return -1;
}

int time_query(const engine *e, void *db, const char *w, const char *sql, int runs, query_run_fn run,
               void *arg, const checksum *want) {
    double first, repeat;
    if (time_query_runs(e, db, w, sql, runs, run, arg, want, &first, &repeat)) return -1;
    char id[96];
    snprintf(id, sizeof id, "%s_first_ms", w);
    put_metric(id, first);
    snprintf(id, sizeof id, "%s_repeat_ms", w);
    put_metric(id, repeat);
    return 0;
}

sale sale_for(uint64_t id) {
    uint64_t s = id * 0x100000001B3u + 0x5A1E5u;
    sale r = {.id = (int64_t)id};
    r.region = (int64_t)below(&s, SALES_REGIONS);
    r.qty = 1 + (int64_t)below(&s, 100);
    r.price = (double)(1 + below(&s, 400)) * 0.25;
    r.day = 19000 + (int64_t)below(&s, 365);
    return r;
}

const char *const sales_query_sql[3] = {
    "SELECT sum(price) FROM sales WHERE qty > 50",
    "SELECT region, count(*), sum(qty) FROM sales GROUP BY region",
    "SELECT sum(price * qty) FROM sales WHERE price * qty > 1000",
};

static uint64_t sales_group_hash(int64_t region, int64_t count, int64_t sum_qty) {
    return mix(mix(mix(0, (uint64_t)region), (uint64_t)count), (uint64_t)sum_qty) & MASK52;
}

checksum sales_expected(int q, uint64_t rows) {
    checksum c = {0};
    if (q == 1) {
        int64_t count[SALES_REGIONS] = {0}, qty[SALES_REGIONS] = {0};
        for (uint64_t i = 0; i < rows; i++) {
            sale s = sale_for(i);
            count[s.region]++, qty[s.region] += s.qty;
        }
        for (int r = 0; r < SALES_REGIONS; r++)
            if (count[r])
                c.a++, c.b += (uint64_t)count[r],
                    c.c = (c.c + sales_group_hash(r, count[r], qty[r])) & MASK52;
        return c;
    }
    double sum = 0;
    for (uint64_t i = 0; i < rows; i++) {
        sale s = sale_for(i);
        if (q == 0 && s.qty > 50) sum += s.price;
        if (q == 2 && s.price * (double)s.qty > 1000) sum += s.price * (double)s.qty;
    }
    c.a = 1, c.b = double_bits(sum) >> 12, c.c = double_bits(sum) & 0xFFF;
    return c;
}

int sales_load(const engine *e, void *db, uint64_t rows) {
    void *ld = NULL;
    if (e->load_begin(db, "sales", 5, &ld)) return wl_fail(e, db, "begin the load of sales");
    for (uint64_t i = 0; i < rows; i++) {
        sale s = sale_for(i);
        if (e->load_int64(ld, s.id) || e->load_int64(ld, s.region) || e->load_int64(ld, s.qty) ||
            e->load_double(ld, s.price) || e->load_int64(ld, s.day) || e->load_end_row(ld)) {
            wl_fail(e, db, "load a row of sales");
            e->load_abort(ld);
            return -1;
        }
    }
    if (e->load_finish(ld)) return wl_fail(e, db, "finish the load of sales");
    return 0;
}

int sales_run_query(const engine *e, void *stmt, void *arg, checksum *c) {
    int q = *(const int *)arg, rc;
    memset(c, 0, sizeof *c);
    while ((rc = e->step(stmt)) == 1) {
        c->a++;
        if (q == 1) {
            int64_t count = e->column_int64(stmt, 1);
            c->b += (uint64_t)count;
            c->c =
                (c->c + sales_group_hash(e->column_int64(stmt, 0), count, e->column_int64(stmt, 2))) & MASK52;
        } else {
            uint64_t u = double_bits(e->column_double(stmt, 0));
            c->b = u >> 12, c->c = u & 0xFFF;
        }
    }
    return rc;
}

int32_t days_from_civil(int y, int m, int d) {
    y -= m <= 2;
    int era = (y >= 0 ? y : y - 399) / 400;
    int yoe = y - era * 400;
    int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void db_path(char *out, size_t n, const char *dir, const char *name) {
    snprintf(out, n, "%s/%s.db", dir, name);
}

static const char *const db_sides[] = {"", "-wal", "-journal", ".wal", "-shm"};

void remove_db(const char *path) {
    char p[4300];
    for (int i = 0; i < COUNT(db_sides); i++) {
        snprintf(p, sizeof p, "%s%s", path, db_sides[i]);
        unlink(p);
    }
}

double db_size(const char *path) {
    char p[4300];
    double total = 0;
    for (int i = 0; i < COUNT(db_sides) - 1; i++) { /* the -shm index is memory, not storage */
        snprintf(p, sizeof p, "%s%s", path, db_sides[i]);
        total += file_size(p);
    }
    return total;
}

void *open_db(const engine *e, const char *path, const char *const *ws, int n) {
    void *db = NULL;
    if (e->open(path, &db) == 0) return db;
    char what[4300];
    snprintf(what, sizeof what, "open %s", path);
    wl_fail(e, db, what);
    for (int i = 0; i < n; i++)
        if (selected(ws[i])) result_line("err %s %s", ws[i], wl_error);
    e->close(db);
    return NULL;
}

static void run_child(const options *o) {
    char path[4200];
    current_engine = o->child_engine;
    snprintf(path, sizeof path, "%s/result-%s-%s.txt", o->child_dir, o->child_suite, o->phase);
    if ((result_file = fopen(path, "w")) == NULL) die("cannot write %s: %s", path, strerror(errno));
    alarm((unsigned)o->timeout); /* a hung engine is killed by SIGALRM and reported */
    const engine *e = NULL;
    for (int i = 0; i < N_ENGINES; i++)
        if (!strcmp(all_engines[i]->name, o->child_engine)) e = all_engines[i];
    const suite *s = NULL;
    for (int i = 0; i < COUNT(suites); i++)
        if (!strcmp(suites[i]->id, o->child_suite)) s = suites[i];
    if (e == NULL || s == NULL) die("unknown engine %s or suite %s", o->child_engine, o->child_suite);
    s->run_phase(e, o, o->child_dir, o->phase);
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
    double m[MAX_METRICS];
    int has_ck[MAX_WORKLOADS];
    double ck[MAX_WORKLOADS][3];
    char *err[MAX_WORKLOADS]; /* malloc'ed message of a failed workload, NULL when it succeeded */
    char *na[MAX_WORKLOADS];  /* malloc'ed reason the engine cannot run it */
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
    for (int m = 0; m < n_metrics; m++)
        if (metrics[m].workload == w) s->m[m] = NAN;
    s->has_ck[w] = 0;
}

static int phase_has(const phase *p, int w) {
    return wl_suite[w] == p->s && !strcmp(wls[w]->phase, p->d->id);
}

/* read_phase merges a child's result file into s. When the child died (how is in death), each
** selected workload of the phase without an outcome gets an error saying so. */
static void read_phase(const char *path, sample *s, const phase *p, const char *death) {
    FILE *f = fopen(path, "r");
    char line[2048], id[128];
    int started[MAX_WORKLOADS] = {0}, done[MAX_WORKLOADS] = {0}, last = -1;
    double vals[MAX_METRICS], v;
    for (int m = 0; m < n_metrics; m++)
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
            const char *msg = n ? line + n : "";
            if (!strcmp(kind, "run")) started[w] = 1, done[w] = 0, last = w;
            if (!strcmp(kind, "done")) done[w] = 1;
            if (!strcmp(kind, "err")) done[w] = 1, set_error(s, w, msg[0] ? msg : "failed");
            if (!strcmp(kind, "na") && !s->na[w])
                done[w] = 1, s->na[w] = strdup(msg[0] ? msg : "not supported");
        }
    }
    if (f) fclose(f);
    for (int m = 0; m < n_metrics; m++) {
        int w = metrics[m].workload;
        if (!isnan(vals[m]) && (w < 0 || !s->err[w])) s->m[m] = vals[m];
    }
    if (death == NULL) return;
    char msg[256];
    int blamed = 0;
    for (int w = 0; w < n_wls; w++) {
        if (done[w] || !phase_has(p, w) || !use_workload[w]) continue;
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
static void run_phase(run_state *st, const char *dir, sample *s, const phase *p) {
    const options *o = st->o;
    static char sz[MAX_SIZES][96];
    char timeout[16];
    const char *argv[2 * MAX_SIZES + 16];
    int a = 0;
    argv[a++] = st->exe;
    argv[a++] = "--child";
    argv[a++] = all_engines[s->engine]->name;
    argv[a++] = dir;
    argv[a++] = p->s->id;
    argv[a++] = p->d->id;
    for (int k = 0; k < n_sizes; k++) {
        snprintf(sz[k], sizeof sz[k], "%s=%llu", sizes[k]->id, (unsigned long long)o->size[k]);
        argv[a++] = "--size";
        argv[a++] = sz[k];
    }
    snprintf(timeout, sizeof timeout, "%d", o->timeout);
    argv[a++] = "--timeout";
    argv[a++] = timeout;
    argv[a++] = "--workloads";
    argv[a++] = o->workloads_arg;
    if (o->tiny) argv[a++] = "--tiny"; /* a suite may leave out what only a full run needs */
    argv[a] = NULL;
    double seconds;
    int status = run_process(argv, &seconds);
    s->seconds += seconds;
    char death[96] = "", path[4200];
    if (WIFSIGNALED(status))
        snprintf(death, sizeof death, "signal %d%s", WTERMSIG(status),
                 WTERMSIG(status) == SIGALRM ? ", the --timeout" : "");
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        snprintf(death, sizeof death, "exit status %d", WEXITSTATUS(status));
    snprintf(path, sizeof path, "%s/result-%s-%s.txt", dir, p->s->id, p->d->id);
    read_phase(path, s, p, death[0] ? death : NULL);
    if (death[0]) fprintf(stderr, " [%s %s: %s]", all_engines[s->engine]->name, p->d->id, death);
}

static int phase_selected(const phase *p) {
    for (int w = 0; w < n_wls; w++)
        if (use_workload[w] && phase_has(p, w)) return 1;
    return 0;
}

/* phase_needed: selected, or required by a selected phase of its suite. */
static int phase_needed(const phase *p) {
    if (phase_selected(p)) return 1;
    for (int i = 0; i < n_phases; i++)
        if (phases[i].s == p->s && phases[i].d->requires && !strcmp(phases[i].d->requires, p->d->id) &&
            phase_selected(&phases[i]))
            return 1;
    return 0;
}

/* run_sample runs every needed phase for s (rep 0: the warm-up, only the phases of suites that
** ask for one). */
static void run_sample(run_state *st, sample *s) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s-%d", st->run_dir, all_engines[s->engine]->name, s->rep);
    if (mkdir(dir, 0755) != 0) die("mkdir %s: %s", dir, strerror(errno));
    for (int m = 0; m < n_metrics; m++)
        s->m[m] = NAN;
    for (int i = 0; i < n_phases; i++) {
        const phase *p = &phases[i];
        if (!phase_needed(p) || (s->rep == 0 && !p->s->warmup)) continue;
        int key = p->d->key ? workload_index(p->d->key) : -1;
        if (key >= 0 && s->err[key]) {
            char why[256];
            snprintf(why, sizeof why, "not run: %s failed", p->d->key);
            for (int w = 0; w < n_wls; w++)
                if (use_workload[w] && phase_has(p, w)) set_error(s, w, why);
            continue;
        }
        fprintf(stderr, " %s", p->d->id);
        run_phase(st, dir, s, p);
    }
    if (!st->o->keep) remove_tree(dir);
}

static summary summarize(const run_state *st, int engine, int metric) {
    double v[MAX_REPS];
    int n = 0;
    for (int i = 0; i < st->n && n < MAX_REPS; i++)
        if (st->samples[i].engine == engine && !isnan(st->samples[i].m[metric]))
            v[n++] = st->samples[i].m[metric];
    return summary_of(v, n);
}

/* cross_check compares every sample's checksums with the first sample that has them; each
** child already compared its own with the data generator's. Returns the number of disagreements
** (each printed, naming the workload). */
static int cross_check(const run_state *st) {
    int bad = 0;
    for (int w = 0; w < n_wls; w++) {
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
                        "harness: FAILED: workload '%s': engines disagree: checksum %.0f/%.0f/%.0f from %s "
                        "rep %d, "
                        "%.0f/%.0f/%.0f from %s rep %d\n",
                        wls[w]->id, s->ck[w][0], s->ck[w][1], s->ck[w][2], all_engines[s->engine]->name,
                        s->rep, ref->ck[w][0], ref->ck[w][1], ref->ck[w][2], all_engines[ref->engine]->name,
                        ref->rep);
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
        for (int w = 0; w < n_wls; w++)
            n += st->samples[i].err[w] != NULL;
    return n;
}

/* --- report ------------------------------------------------------------------------------ */

static double metric_units(const options *o, const metric *m) {
    return m->d && m->d->units_size ? (double)size_of(o, m->d->units_size) : 1;
}

static void row_label(char *out, size_t n, const options *o, const metric *m) {
    char count[40] = "";
    if (!m->d || !m->d->label) {
        snprintf(out, n, "%s", m->id);
        return;
    }
    if (m->d->label_size) fmt_num(count, sizeof count, (double)size_of(o, m->d->label_size));
    snprintf(out, n, m->d->label, count);
}

/* A cell: the summary; the engine's reason when it cannot run or cannot do this workload; "**n/a
** (failed)**" when every repetition failed, and the summary with the count of failures when
** some did. */
static void cell(char *out, size_t n, const run_state *st, int e, int m) {
    if (st->why_not[e]) {
        snprintf(out, n, "%s", st->why_not[e]);
        return;
    }
    int w = metrics[m].workload, failed = 0;
    const char *na = NULL;
    for (int i = 0; i < st->n; i++) {
        const sample *s = &st->samples[i];
        if (s->engine != e || w < 0) continue;
        failed += s->err[w] != NULL;
        if (s->na[w]) na = s->na[w];
    }
    summary s = summarize(st, e, m);
    char sum[160];
    fmt_summary(sum, sizeof sum, s, 1);
    if (na && !s.n)
        snprintf(out, n, "n/a (%s)", na);
    else if (failed && s.n)
        snprintf(out, n, "%s, **failed in %d rep(s)**", sum, failed);
    else if (failed)
        snprintf(out, n, "**n/a (failed)**");
    else
        snprintf(out, n, "%s", sum);
}

static int engine_runs(const run_state *st, int e) { return use_engine[e] && !st->why_not[e]; }

/* best_sqlite: the crash-safe SQLite mode with the lowest median of m, -1 when none ran. */
static int best_sqlite(const run_state *st, int m) {
    int best = -1;
    double bm = INFINITY;
    for (int e = 0; e < N_ENGINES; e++) {
        if (!engine_runs(st, e) || strncmp(all_engines[e]->name, "sqlite-", 7) || !all_engines[e]->crash_safe)
            continue;
        summary s = summarize(st, e, m);
        if (s.n && s.median < bm) bm = s.median, best = e;
    }
    return best;
}

/* target_note writes "; target ≥ F×: met|missed|unclear" for the target of metric m against
** peer_kind ("sqlite" or "duckdb"), judged on the min-max ranges of strata (a) and the peer (b);
** "" when the metric has no such target. */
static void target_note(char *out, size_t n, int m, const char *peer_kind, summary a, summary b) {
    out[0] = '\0';
    int w = metrics[m].workload;
    if (!metrics[m].d || w < 0) return;
    const suite *su = wl_suite[w];
    for (int i = 0; i < su->ntargets; i++) {
        const target_def *t = &su->targets[i];
        if (strcmp(t->metric, metrics[m].id) || strcmp(t->peer, peer_kind)) continue;
        const char *how;
        if (metrics[m].d->kind == K_RATE) /* more is better */
            how = a.min > t->factor * b.max ? "met" : a.max < t->factor * b.min ? "missed" : "unclear";
        else
            how = a.max * t->factor < b.min ? "met" : a.min * t->factor > b.max ? "missed" : "unclear";
        const char *better = metrics[m].d->kind == K_SIZE ? "smaller" : "faster";
        if (t->factor == 1)
            snprintf(out, n, "; target %s: %s", better, how);
        else
            snprintf(out, n, "; target ≥ %g× %s: %s", t->factor, better, how);
        return;
    }
}

/* ratio_cell: strata ÷ peer, the verdict, which SQLite mode the peer is, and the row's target
** against that peer (peer_kind "sqlite" or "duckdb"). */
static void ratio_cell(char *out, size_t n, const run_state *st, int m, int peer, const char *peer_kind) {
    summary a = summarize(st, 0, m), b = peer >= 0 ? summarize(st, peer, m) : (summary){0};
    if (!a.n || !b.n || b.median == 0) {
        snprintf(out, n, "–");
        return;
    }
    int kind = metrics[m].d ? metrics[m].d->kind : K_MEMORY;
    int is_size = kind == K_SIZE || kind == K_MEMORY; /* "smaller"/"larger", not "faster" */
    const char *v =
        a.n < 2 || b.n < 2 ? "1 sample" : verdict(kind == K_RATE ? b : a, kind == K_RATE ? a : b, is_size);
    const char *mode = strncmp(all_engines[peer]->name, "sqlite-", 7) ? NULL : all_engines[peer]->title + 7;
    char target[96];
    target_note(target, sizeof target, m, peer_kind, a, b);
    if (mode)
        snprintf(out, n, "%.2f %s (%s)%s", a.median / b.median, v, mode, target);
    else
        snprintf(out, n, "%.2f %s%s", a.median / b.median, v, target);
}

/* finished: engine e has a median of metric m and no repetition of its workload failed or was n/a. */
static int finished(const run_state *st, int e, int m) {
    int w = metrics[m].workload;
    for (int i = 0; i < st->n && w >= 0; i++)
        if (st->samples[i].engine == e && (st->samples[i].err[w] || st->samples[i].na[w])) return 0;
    return summarize(st, e, m).n > 0;
}

/* summary_metric: the metric of workload w that summary d covers, or -1. */
static int summary_metric(const suite *su, const summary_def *d, int w) {
    char id[160];
    snprintf(id, sizeof id, "%s%s", wls[w]->id, d->suffix);
    if (wl_suite[w] != su || !use_workload[w] || strncmp(wls[w]->id, d->prefix, strlen(d->prefix))) return -1;
    return metric_index(id);
}

/* The engines a summary compares: those that ran and have a figure of at least one of its metrics
** (not those for which the suite is n/a, as SQLite's other journal modes). */
static void summary_engines(const run_state *st, const suite *su, const summary_def *d, int *part) {
    for (int e = 0; e < N_ENGINES; e++) {
        part[e] = 0;
        for (int w = 0; w < n_wls && engine_runs(st, e) && !part[e]; w++) {
            int m = summary_metric(su, d, w);
            part[e] = m >= 0 && summarize(st, e, m).n > 0;
        }
    }
}

/* The metrics a summary covers (those every engine of part finished) into ms; the workloads left
** out, per engine, into left_out. Returns how many metrics. */
static int summary_metrics(const run_state *st, const suite *su, const summary_def *d, const int *part, int *ms,
                           char left_out[][1024]) {
    int n = 0;
    for (int w = 0; w < n_wls; w++) {
        int m = summary_metric(su, d, w), all = 1;
        if (m < 0) continue;
        for (int e = 0; e < N_ENGINES; e++) {
            if (!part[e] || finished(st, e, m)) continue;
            all = 0;
            size_t len = strlen(left_out[e]);
            snprintf(left_out[e] + len, 1024 - len, "%s%s", len ? ", " : "", wls[w]->id);
        }
        if (all) ms[n++] = m;
    }
    return n;
}

/* A summary row: the geometric mean (geo) or the sum of the medians of ms for each engine, then
** strata ÷ the peers (the faster crash-safe SQLite mode, DuckDB, DuckDB threads=1). */
static void summary_row(FILE *out, const run_state *st, const int *part, const char *label, const int *ms, int n,
                        int geo, int t1) {
    double v[N_ENGINES];
    char c[64];
    fprintf(out, "| %s", label);
    for (int e = 0; e < N_ENGINES; e++) {
        double acc = 0;
        for (int i = 0; i < n; i++) {
            double med = summarize(st, e, ms[i]).median;
            acc += geo ? log(med > 1e-3 ? med : 1e-3) : med; /* a 0 ms median would make the mean 0 */
        }
        v[e] = !part[e] || n == 0 ? NAN : geo ? exp(acc / n) : acc;
        if (!use_engine[e]) continue;
        fmt_num(c, sizeof c, v[e]);
        fprintf(out, " | %s", c);
    }
    double sqlite = NAN;
    for (int e = 0; e < N_ENGINES; e++)
        if (part[e] && !strncmp(all_engines[e]->name, "sqlite-", 7) && all_engines[e]->crash_safe &&
            !(v[e] >= sqlite))
            sqlite = v[e];
    const double peers[3] = {sqlite, v[DUCKDB], v[DUCKDB_T1]};
    fprintf(out, " | ms");
    for (int p = 0; p < 2 + t1; p++) {
        if (isnan(v[0]) || isnan(peers[p]) || peers[p] == 0)
            fprintf(out, " | –");
        else
            fprintf(out, " | %.2f", v[0] / peers[p]);
    }
    fprintf(out, " |\n");
}

/* write_summaries writes the suite's summary rows (inside its table) and, with notes set, the
** lines naming what each engine left out (after the table). */
static void write_summaries(FILE *out, const run_state *st, const suite *su, int t1, int notes) {
    for (int k = 0; k < su->nsummaries; k++) {
        const summary_def *d = &su->summaries[k];
        int ms[MAX_WORKLOADS], part[N_ENGINES];
        char left_out[N_ENGINES][1024] = {{0}}, label[256];
        summary_engines(st, su, d, part);
        int n = summary_metrics(st, su, d, part, ms, left_out);
        if (notes) {
            for (int e = 0; e < N_ENGINES; e++)
                if (part[e] && left_out[e][0])
                    fprintf(out, "- %s: %s — %s left out (failed, stopped at the time limit or n/a in a repetition).\n",
                            all_engines[e]->title, d->label, left_out[e]);
            continue;
        }
        snprintf(label, sizeof label, "**geomean, %s** (the %d queries every engine finished)", d->label, n);
        summary_row(out, st, part, label, ms, n, 1, t1);
        snprintf(label, sizeof label, "**total, %s** (the same %d queries)", d->label, n);
        summary_row(out, st, part, label, ms, n, 0, t1);
    }
}

static void table_head(FILE *out, const char *first, const char *const *extra, int nextra) {
    fprintf(out, "| %s", first);
    for (int e = 0; e < N_ENGINES; e++)
        if (use_engine[e]) fprintf(out, " | %s", all_engines[e]->title);
    for (int i = 0; i < nextra; i++)
        fprintf(out, " | %s", extra[i]);
    fprintf(out, " |\n|---");
    for (int e = 0; e < N_ENGINES; e++)
        if (use_engine[e]) fprintf(out, "|---");
    for (int i = 0; i < nextra; i++)
        fprintf(out, "|---");
    fprintf(out, "|\n");
}

static void write_report(FILE *out, const run_state *st, const environment *env, const char *saved_as,
                         int disagreements) {
    const options *o = st->o;
    char c[600], label[200];
    fprintf(out, "# strata vs SQLite and DuckDB — benchmark harness\n\n");
    fprintf(
        out,
        "%d repetition(s) per engine; each (engine, phase, repetition) in a fresh process on a fresh "
        "database, "
        "engine order rotating per repetition. Median (min–max) over repetitions; a verdict (faster/slower) "
        "only "
        "when the min–max ranges do not overlap, otherwise \"overlap\". strata ÷ SQLite is against the "
        "faster "
        "crash-safe SQLite mode of each row (named); below 1 strata takes less time (for ops/s, more is "
        "better). The suites of seed 003 (oltp, concurrency) first run one warm-up per engine, discarded, as "
        "003 does.%s\n",
        o->reps, o->tiny ? " **A tiny run: checksums only; its times mean nothing.**" : "");
    for (int k = 0; k < COUNT(suites); k++) {
        const suite *su = suites[k];
        int any = 0;
        for (int w = 0; w < n_wls; w++)
            any |= use_workload[w] && wl_suite[w] == su;
        if (!any) continue;
        fprintf(out, "\n## %s\n\n", su->title);
        int t1 = engine_runs(st, DUCKDB_T1); /* its ratio column only when it ran */
        table_head(
            out, "workload",
            (const char *const[]){"unit", "strata ÷ SQLite", "strata ÷ DuckDB", "strata ÷ DuckDB threads=1"},
            3 + t1);
        for (int m = 0; m < n_metrics; m++) {
            const metric *me = &metrics[m];
            int w = me->workload;
            if (!me->d || !me->d->label || w < 0 || wl_suite[w] != su || !use_workload[w]) continue;
            row_label(label, sizeof label, o, me);
            fprintf(out, "| %s", label);
            for (int e = 0; e < N_ENGINES; e++) {
                if (!use_engine[e]) continue;
                cell(c, sizeof c, st, e, m);
                fprintf(out, " | %s", c);
            }
            fprintf(out, " | %s", me->d->unit);
            ratio_cell(c, sizeof c, st, m, best_sqlite(st, m), "sqlite");
            fprintf(out, " | %s", c);
            ratio_cell(c, sizeof c, st, m, engine_runs(st, DUCKDB) ? DUCKDB : -1, "duckdb");
            fprintf(out, " | %s", c);
            if (t1) {
                ratio_cell(c, sizeof c, st, m, DUCKDB_T1, "duckdb-t1");
                fprintf(out, " | %s", c);
            }
            fprintf(out, " |\n");
        }
        write_summaries(out, st, su, t1, 0);
        fprintf(out, "\n");
        write_summaries(out, st, su, t1, 1);
        su->describe(out, o);
    }

    fprintf(
        out,
        "\n## Peak memory\n\nMiB, the process's resident high-water mark during the workload, median:\n\n");
    table_head(out, "workload", NULL, 0);
    for (int w = 0; w < n_wls; w++) {
        if (!use_workload[w]) continue;
        fprintf(out, "| %s", wls[w]->id);
        for (int e = 0; e < N_ENGINES; e++) {
            if (!use_engine[e]) continue;
            fmt_mib(c, sizeof c, summarize(st, e, n_metrics - n_wls + w)); /* the peaks come last */
            fprintf(out, " | %s", c);
        }
        fprintf(out, " |\n");
    }

    int failures = count_failures(st);
    if (failures || disagreements) {
        fprintf(out, "\n## FAILURES\n\n");
        if (disagreements)
            fprintf(out,
                    "- **The engines' result checksums disagree on %d workload(s)** (named on stderr).\n",
                    disagreements);
        for (int i = 0; i < st->n; i++)
            for (int w = 0; w < n_wls; w++)
                if (st->samples[i].err[w])
                    fprintf(out, "- %s, repetition %d, workload `%s`: %s\n",
                            all_engines[st->samples[i].engine]->title, st->samples[i].rep, wls[w]->id,
                            st->samples[i].err[w]);
    }

    fprintf(out, "\n## Engines and method\n\n");
    for (int e = 0; e < N_ENGINES; e++) {
        if (!use_engine[e]) continue;
        const engine *en = all_engines[e];
        fprintf(out, "- **%s** %s: %s%s.%s%s\n", en->title, st->why_not[e] ? "" : en->version(), en->settings,
                en->crash_safe ? "" : " — **not crash-safe**", st->why_not[e] ? " " : "",
                st->why_not[e] ? st->why_not[e] : "");
    }
    fprintf(
        out,
        "- Every read workload's result checksum was compared with the data generator's in each process and "
        "between engines%s. Peak memory: the RSS high-water mark, reset before each workload (sync() "
        "first).%s\n",
        disagreements ? " — **they disagree, see above**" : "",
        peak_reset_works ? "" : " The high-water-mark reset FAILED: peaks are cumulative.");
    fprintf(out,
            "\nEnvironment: %s, %ld cores, %.1f GiB RAM; %s; file system of bench/tmp: %s. Compiler %s; "
            "flags `%s`; "
            "library %s. Load average before/after: %s / %s. Git commit %s%s. Date %s.%s%s\n",
            env->cpu, env->cores, env->mem_gib, env->kernel, env->fs, COMPILER, BENCH_CFLAGS, BENCH_LIB,
            env->load_before, env->load_after, env->commit,
            env->git_status[0] ? " (working tree dirty: uncommitted changes were measured)" : " (clean)",
            env->date, saved_as ? " Raw samples: " : "", saved_as ? saved_as : "");
}

static void json_str_field(FILE *f, const char *sep, const char *key, const char *value) {
    fprintf(f, "%s\"%s\": ", sep, key);
    if (value)
        json_str(f, value);
    else
        fprintf(f, "null");
}

static void write_json(FILE *f, const run_state *st, const environment *env) {
    const options *o = st->o;
    const char *why;
    fprintf(f, "{\n  \"benchmark\": \"harness\",\n");
    json_str_field(f, "  ", "date", env->date);
    json_str_field(f, ",\n  \"git\": {", "commit", env->commit);
    fprintf(f, ", \"dirty\": %s", env->git_status[0] ? "true" : "false");
    json_str_field(f, ", ", "status", env->git_status);
    json_str_field(f, "},\n  \"environment\": {", "cpu", env->cpu);
    fprintf(f, ", \"cores\": %ld, \"mem_gib\": %.2f", env->cores, env->mem_gib);
    json_str_field(f, ", ", "kernel", env->kernel);
    json_str_field(f, ", ", "filesystem", env->fs);
    json_str_field(f, ", ", "compiler", COMPILER);
    json_str_field(f, ", ", "cflags", BENCH_CFLAGS);
    json_str_field(f, ", ", "library", BENCH_LIB);
    json_str_field(f, ", \"versions\": {", "strata", engine_strata.version());
    json_str_field(f, ", ", "sqlite", engine_sqlite_wal.version());
    json_str_field(f, ", ", "duckdb", engine_duckdb.available(&why) ? engine_duckdb.version() : NULL);
    json_str_field(f, "}, ", "load_before", env->load_before);
    json_str_field(f, ", ", "load_after", env->load_after);
    fprintf(f, "},\n  \"config\": {\"quick\": %s, \"tiny\": %s, \"reps\": %d, \"sizes\": {",
            o->quick ? "true" : "false", o->tiny ? "true" : "false", o->reps);
    for (int k = 0; k < n_sizes; k++)
        fprintf(f, "%s\"%s\": %llu", k ? ", " : "", sizes[k]->id, (unsigned long long)o->size[k]);
    fprintf(f, "}, \"engines\": [");
    for (int e = 0, first = 1; e < N_ENGINES; e++) {
        if (!use_engine[e]) continue;
        const engine *en = all_engines[e];
        fprintf(f, "%s\n    {\"name\": \"%s\"", first ? "" : ",", en->name);
        json_str_field(f, ", ", "title", en->title);
        json_str_field(f, ", ", "settings", en->settings);
        fprintf(f, ", \"crash_safe\": %s, \"available\": %s", en->crash_safe ? "true" : "false",
                st->why_not[e] ? "false" : "true");
        json_str_field(f, ", ", "version", st->why_not[e] ? st->why_not[e] : en->version());
        fprintf(f, "}");
        first = 0;
    }
    fprintf(f, "],\n  \"workloads\": [");
    for (int w = 0, first = 1; w < n_wls; w++)
        if (use_workload[w]) fprintf(f, "%s\"%s\"", first ? "" : ", ", wls[w]->id), first = 0;
    fprintf(f, "]},\n  \"metrics\": [");
    for (int m = 0; m < n_metrics; m++) {
        const metric *me = &metrics[m];
        char label[200];
        row_label(label, sizeof label, o, me);
        fprintf(f, "%s\n    {\"id\": \"%s\"", m ? "," : "", me->id);
        json_str_field(f, ", ", "workload", me->workload >= 0 ? wls[me->workload]->id : NULL);
        json_str_field(f, ", ", "label", label);
        json_str_field(f, ", ", "unit", me->d ? me->d->unit : "KiB");
        fprintf(f, ", \"units\": %.0f", metric_units(o, me));
        json_str_field(f, ", ", "per", me->d ? me->d->per : "process");
        fprintf(f, ", \"kind\": \"%s\"}", kind_names[me->d ? me->d->kind : K_MEMORY]);
    }
    fprintf(f, "\n  ],\n  \"samples\": [\n");
    for (int i = 0; i < st->n; i++) {
        const sample *s = &st->samples[i];
        fprintf(
            f,
            "    {\"engine\": \"%s\", \"rep\": %d, \"position\": %d, \"child_seconds\": %.3f, \"metrics\": {",
            all_engines[s->engine]->name, s->rep, s->position, s->seconds);
        int first = 1;
        for (int m = 0; m < n_metrics; m++) {
            if (isnan(s->m[m])) continue;
            fprintf(f, "%s\"%s\": ", first ? "" : ", ", metrics[m].id);
            json_num(f, s->m[m]);
            first = 0;
        }
        fprintf(f, "}, \"checksums\": {");
        first = 1;
        for (int w = 0; w < n_wls; w++) {
            if (!s->has_ck[w]) continue;
            fprintf(f, "%s\"%s\": [%.0f, %.0f, %.0f]", first ? "" : ", ", wls[w]->id, s->ck[w][0],
                    s->ck[w][1], s->ck[w][2]);
            first = 0;
        }
        fprintf(f, "}, \"errors\": {");
        first = 1;
        for (int w = 0; w < n_wls; w++) {
            if (!s->err[w]) continue;
            json_str_field(f, first ? "" : ", ", wls[w]->id, s->err[w]);
            first = 0;
        }
        fprintf(f, "}, \"not_applicable\": {");
        first = 1;
        for (int w = 0; w < n_wls; w++) {
            if (!s->na[w]) continue;
            json_str_field(f, first ? "" : ", ", wls[w]->id, s->na[w]);
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
        if (!use_engine[e]) continue;
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
    int warmup = 0;
    for (int i = 0; i < n_phases; i++)
        warmup |= phases[i].s->warmup && phase_needed(&phases[i]);
    for (int i = 0; i < ne && warmup && !o->tiny; i++) { /* its figures are discarded */
        sample *w = calloc(1, sizeof *w);
        if (w == NULL) die("out of memory");
        w->engine = engines[i];
        fprintf(stderr, "warm-up: %-16s", all_engines[w->engine]->name);
        run_sample(&st, w);
        fprintf(stderr, "  %.1f s\n", w->seconds);
        for (int k = 0; k < n_wls; k++)
            free(w->err[k]), free(w->na[k]);
        free(w);
    }
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
        for (int w = 0; w < n_wls; w++) {
            if (st.samples[i].err[w])
                fprintf(stderr, "harness: FAILED: %s rep %d, workload '%s': %s\n",
                        all_engines[st.samples[i].engine]->name, st.samples[i].rep, wls[w]->id,
                        st.samples[i].err[w]);
            free(st.samples[i].err[w]);
            free(st.samples[i].na[w]);
        }
    if (!failures && !disagreements)
        printf(
            "harness: every read workload's checksum agreed with the data generator and between engines\n");
    free(env.git_status);
    free(st.samples);
    return failures || disagreements ? 1 : 0;
}

int main(int argc, char **argv) {
    options o;
    bench_program = "harness";
    registry_init();
    parse_options(argc, argv, &o);
    if (o.child_engine) {
        run_child(&o);
        return 0;
    }
    return run_parent(&o);
}
