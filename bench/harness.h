/*
** harness.h -- what the benchmark harness (harness.c) offers its suites of workloads.
**
** A suite (suite_*.c) declares its sizes, workloads, figures ("metrics") and phases, and runs a
** phase in a child process: one engine, one fresh directory, the workloads of that phase in
** order. harness.c does everything else: options, child processes, the engine order, collecting
** and cross-checking results, the report and the JSON.
**
** Inside a phase a suite reports through the calls below, which write lines to the child's
** result file: "run W" before workload W (so that a crash names it), "done W", "err W message",
** "na W reason" (the engine cannot do it: shown as n/a, not a failure), "m METRIC value" and
** "ck W a b c" (the result checksum that must agree between engines and repetitions).
**
** Not library code: nothing under the library folders includes this header.
*/
#ifndef BENCH_HARNESS_H
#define BENCH_HARNESS_H

#include <stdint.h>

#include "bench_common.h"
#include "engine.h"

#define MASK52 ((UINT64_C(1) << 52) - 1) /* checksums travel as doubles: keep them exact */

/* ---- what a suite declares ---------------------------------------------------------------- */

/* A size: a count the workloads use, with its value at the seeds' sizes, with --quick and with
** --tiny (CI: checksums only). --size ID=N sets it; the core sizes also have --rows etc. */
typedef struct size_def {
    const char *id;
    uint64_t full, quick, tiny;
} size_def;

typedef struct workload_def {
    const char *id;
    const char *phase; /* the phase that runs it */
} workload_def;

enum metric_kind { K_TIME, K_MEMORY, K_SIZE, K_RATE, K_INFO };

/* A figure. Its units of work are the value of the size units_size (NULL: 1); the label shows
** the value of label_size (NULL: none) where it has %s. Every workload also gets a peak-memory
** figure "peak_kib_<workload>" without being declared. */
typedef struct metric_def {
    const char *id;
    const char *workload; /* the workload that produces it (NULL: none) */
    const char *label;    /* a report row; NULL: JSON only */
    const char *unit;     /* "ms", "µs", "bytes", "ops/s", ... */
    const char *per;      /* the unit of work: "row", "lookup", "commit", "query run", ... */
    const char *units_size;
    int kind;
    const char *label_size;
} metric_def;

/* A phase: workloads sharing one child process. requires names a phase that must have run in
** the same repetition before (its database is read), and whose workload `key` must not have
** failed; it runs whenever a phase that requires it is selected. */
typedef struct phase_def {
    const char *id;
    const char *requires; /* NULL: none */
    const char *key;      /* the workload of `requires` whose failure skips this phase */
} phase_def;

/* A target the report checks against a peer: strata must beat the peer's figure `metric` by
** `factor` (for a time: strata's × factor below the peer's; for a rate: above), judged on the
** min-max ranges as the verdicts are: "met" when strata's worst repetition beats the peer's best,
** "missed" when strata's best does not reach the peer's worst, "unclear" otherwise. */
typedef struct target_def {
    const char *metric;
    const char *peer; /* "sqlite" (the row's faster crash-safe SQLite mode), "duckdb" or "duckdb-t1" */
    double factor;
} target_def;

/* A summary over a suite's queries (the tpch suite's geomean and total): for each engine, the
** geometric mean and the sum of the medians of the figures <workload id><suffix> over the selected
** workloads whose id starts with prefix and that every engine finished (no failed or n/a
** repetition); the report names the workloads left out and why. */
typedef struct summary_def {
    const char *prefix, *suffix;
    const char *label; /* e.g. "first run" */
} summary_def;

typedef struct options options;

typedef struct suite {
    const char *id; /* --workloads accepts suite ids for all their workloads */
    const char *title;
    const size_def *sizes;
    int nsizes;
    const workload_def *workloads;
    int nworkloads;
    const metric_def *metrics;
    int nmetrics;
    const phase_def *phases;
    int nphases;
    /* run_phase runs `phase` for engine e in the directory dir (fresh for each engine and
    ** repetition, shared by the phases of one repetition). */
    void (*run_phase)(const engine *e, const options *o, const char *dir, const char *phase);
    /* describe writes the suite's paragraph of the report: workloads, SQL, settings (Markdown). */
    void (*describe)(FILE *out, const options *o);
    /* warmup: before the measured repetitions each engine runs the suite's phases once and the
    ** figures are discarded (seed 003 does so). */
    int warmup;
    /* targets: printed beside the ratios of their metric's row (NULL: none). */
    const target_def *targets;
    int ntargets;
    /* summaries: rows after the suite's figures (NULL: none). */
    const summary_def *summaries;
    int nsummaries;
} suite;

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))
/* SUITE_TABLES fills a suite's tables from its file's arrays sizes, workloads, metrics, phases. */
#define SUITE_TABLES                                                                                         \
    .sizes = sizes, .nsizes = COUNT(sizes), .workloads = workloads, .nworkloads = COUNT(workloads),          \
    .metrics = metrics, .nmetrics = COUNT(metrics), .phases = phases, .nphases = COUNT(phases)

extern const suite suite_sql, suite_joins, suite_index, suite_oltp, suite_kv, suite_concurrency,
    suite_colstore, suite_load, suite_analytics, suite_tpch;

/* ---- options and sizes -------------------------------------------------------------------- */

#define MAX_SIZES 64

struct options {
    int reps, timeout, keep, save, tiny, quick;
    const char *engines_arg, *workloads_arg;
    uint64_t size[MAX_SIZES]; /* by harness size index */
    /* child only */
    const char *child_engine, *child_dir, *child_suite, *phase;
};

/* size_of returns the value of the size named id (dies when no suite declares it). */
uint64_t size_of(const options *o, const char *id);

/* ---- inside a phase (child process) ------------------------------------------------------- */

/* selected: workload w is asked for in this run. */
int selected(const char *w);
/* RUN(w, call) announces workload w, evaluates call (0 on success, -1 after wl_fail and friends
** recorded the message) and records the outcome; its value is call's, or 0 without evaluating
** call when w is not selected. RUN_ALWAYS evaluates call in any case (later workloads need
** what it does, as a load before the reads of it). */
int workload_begin(const char *w, int always); /* 1: evaluate the body */
int workload_end(const char *w, int rc);
#define RUN(w, call) (workload_begin((w), 0) ? workload_end((w), (call)) : 0)
#define RUN_ALWAYS(w, call) (workload_begin((w), 1), workload_end((w), (call)))
/* skip_workloads records "not run: why" for each selected workload of ws[0..n). */
void skip_workloads(const char *const *ws, int n, const char *why);
/* not_applicable records that engine cannot run w (n/a with the reason). */
void not_applicable(const char *w, const char *why);

void put_metric(const char *id, double v);
void put_peak(const char *w); /* the peak RSS since peak_reset() as w's memory figure */

typedef struct checksum {
    uint64_t a, b, c;
} checksum;
void put_checksum(const char *w, const checksum *c);
int checksum_equal(const checksum *x, const checksum *y);
/* checksum_add_row folds a row (key k, value v of len bytes) into c: rows, key sum, byte sum. */
void checksum_add_row(checksum *c, uint64_t k, const void *v, size_t len);
void checksum_add(checksum *to, const checksum *c); /* adds c's sums into to's */

/* wl_fail records "what: <engine message>" as the running workload's failure and returns -1;
** wl_failf records a message of its own; wrong_result a result that differs from the
** generator's. */
int wl_fail(const engine *e, void *db, const char *what);
int wl_failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int wrong_result(const char *what, const checksum *got, const checksum *want);
/* wl_message: the message the last wl_fail, wl_failf or wrong_result recorded. */
const char *wl_message(void);

double ms_since(uint64_t t0);
uint64_t mix(uint64_t h, uint64_t v); /* an order-dependent hash step */
uint64_t double_bits(double d);       /* -0.0 as 0.0 */

/* workload_time_limit stops the child process `seconds` from now, recording that workload w
** exceeded its time limit (an error line, then exit); a later call re-arms it, alarm(0) disarms it.
** It replaces the --timeout of the whole child. */
void workload_time_limit(const char *w, int seconds);

/* time_query times a query as the seed reports do, in a fresh process: every engine first reads
** its catalog (SELECT 1; SQLite reads its schema at the first prepare, strata at open), then the
** first run (prepare included), then `runs` runs of the prepared statement (reset, run to the
** end). run(e, stmt, arg, c) binds what it needs, steps to the end and folds the result into c
** (-1 on an engine error); every run's result must equal want (NULL: the first run's). It records the figures
** <w>_first_ms and <w>_repeat_ms (the median), w's peak memory and checksum; 0, or -1 with the
** message recorded. */
typedef int (*query_run_fn)(const engine *e, void *stmt, void *arg, checksum *c);
int time_query(const engine *e, void *db, const char *w, const char *sql, int runs, query_run_fn run,
               void *arg, const checksum *want);
/* time_query_runs is time_query giving the two figures to the caller instead of recording them. */
int time_query_runs(const engine *e, void *db, const char *w, const char *sql, int runs, query_run_fn run,
                    void *arg, const checksum *want, double *first_ms, double *repeat_ms);

/* The analytic table of the sql and colstore suites: sales(id INTEGER PRIMARY KEY, region
** INTEGER, qty INTEGER, price DOUBLE, day INTEGER). sale_for gives row id (deterministic); price is
** a multiple of 0.25, so that every sum the queries take is exact in a double whatever the order
** of addition, and all engines must give identical results. */
#define SALES_REGIONS 100
typedef struct sale {
    int64_t id, region, qty, day;
    double price;
} sale;
sale sale_for(uint64_t id);
/* The sql suite's three queries on sales (also the analytics suite's): filter + sum, GROUP BY
** region, arithmetic filter + aggregate. sales_expected gives query q's checksum over the first
** `rows` rows of the generator; sales_run_query (a query_run_fn whose arg is a const int *q) runs
** the prepared query to its end and folds its result the same way. */
extern const char *const sales_query_sql[3];
checksum sales_expected(int q, uint64_t rows);
/* sales_load bulk-loads rows 0..rows-1 of sales (sale_for) into the existing table through the
** engine's loader: 0, or -1 with the failure recorded (wl_fail). */
int sales_load(const engine *e, void *db, uint64_t rows);

/* days_from_civil is the date y-m-d as days since 1970-01-01 (proleptic Gregorian; H. Hinnant's
** algorithm), as DATE values are stored. */
int32_t days_from_civil(int y, int m, int d);
int sales_run_query(const engine *e, void *stmt, void *arg, checksum *c);

/* Databases in a phase's directory: db_path gives <dir>/<name>.db; remove_db removes it and the
** side files any engine keeps (WAL, journal); db_size adds them up; open_db opens path, and on
** failure records the message for each selected workload of ws[0..n) and returns NULL. */
void db_path(char *out, size_t n, const char *dir, const char *name);
void remove_db(const char *path);
double db_size(const char *path);
void *open_db(const engine *e, const char *path, const char *const *ws, int n);

/* TPC-H .tbl files of the project's generator (suite_load.c; the analytics suite reads lineitem's
** too). A table is a tpch_table of datasets/tpch/tpch_gen.h. Each returns 0, or -1 with the
** message recorded; nothing here is timed except what tbl_load does.
** tpch_files: the files of the tables in the mask `tables` (1u << table each) at scale factor sf
** exist in bench/tmp/tpch-sf<sf>/ -- tpch-gen makes the missing ones -- whose absolute path goes
** into dir.
** tpch_lineitem_expected: the generator's lineitem checksum (count, sum of l_extendedprice in
** cents, bytes of l_comment), kept in <dir>/lineitem.expected (computed in a child process when
** missing).
** tbl_load: reads <dir>/<table>.tbl and loads its lines into the existing table of that name,
** integers bound as int64, DECIMAL(15,2) as double, dates and strings as text: loader 1 through
** the engine's bulk loader (load_begin .. load_finish, its own transaction), loader 0 through a
** prepared INSERT stepped once per line inside the caller's transaction. *rows: lines loaded.
** tpch_check_lineitem: lineitem's count(*), sum(l_extendedprice) in cents, sum(length(l_comment))
** into *got, which must equal *want (exact: SQLite sums its REAL values rounded to cents).
** parse_decimal: exact decimal text ("-12.3400") as units of 10^-scale; -1 when it is not one, has
** more significant decimals than scale, or does not fit in an int64. */
int tpch_files(double sf, unsigned tables, char *dir, size_t n);
int tpch_lineitem_expected(const char *dir, double sf, checksum *c);
int tbl_load(const engine *e, void *db, const char *dir, int table, int loader, int64_t *rows);
int tpch_check_lineitem(const engine *e, void *db, const checksum *want, checksum *got);
int parse_decimal(const char *p, size_t n, int scale, int64_t *units);
/* tpch_load_db: a fresh database at path holding the eight tables at sf, loaded as the load suite
** does (datasets/tpch/schema.sql; strata and DuckDB by COPY, DuckDB with SET threads = 2; SQLite
** by prepared INSERTs in one transaction), closed, then reopened and checked (every table's rows,
** lineitem's checksum). *seconds: the load from open to close. Returns 0, or -1 with the message
** recorded. */
int tpch_load_db(const engine *e, const char *path, double sf, double *seconds);

#endif /* BENCH_HARNESS_H */
