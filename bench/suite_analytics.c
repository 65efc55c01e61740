/*
** suite_analytics.c -- issue 7's end-to-end analytic benchmark: strata against DuckDB (with its
** default threads, and with `SET threads = 1`: the engine duckdb-t1) and SQLite WAL for reference,
** on two tables, each in its own database file:
**
**   - the sql suite's analytic table sales (the same schema and generator, sale_for), with its
**     three queries (filter + sum, GROUP BY region, arithmetic filter + aggregate);
**   - TPC-H lineitem loaded from the project's generator's lineitem.tbl (suite_load.c makes the
**     file and reads it: tbl_load), with TPC-H Q1, Q6, the ten orders with the most lines, and
**     the sum of l_extendedprice per supplier.
**
** strata's tables are analytic ones, as suite_colstore.c makes its migrated tables: `WITH (storage
** = 'column')`, the load by the appender (every full row group, and a tail of at least a quarter
** of one, straight into column segments), then `CHECKPOINT <table>`; storage_info is read
** afterwards (every full row group must be in segments). Every engine loads by its bulk path in
** one transaction: the appender for strata and DuckDB, a prepared INSERT for SQLite.
**
** Phases, each a fresh process per engine and repetition: the load of each table, then one per
** query: open, `SELECT 1`, the first run (prepare + every row) timed, then the median of
** `analytics_runs` runs of the prepared statement (time_query). Every result is checked against
** the generator (sales: sale_for; lineitem: the tpch generator, whose answers are computed once
** per scale factor into analytics.expected beside the .tbl files) and between engines; DECIMAL
** results exactly for strata and DuckDB, SQLite's REAL sums within a relative 1e-9 (they then
** carry the exact checksum), averages within 1e-5 (strata's avg of a DECIMAL(15,2) has 5
** decimals). bench/README.md describes the suite.
*/
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <strata.h>

#include "harness.h"
#include "tpch_gen.h"

#define GROUP_ROWS 122880 /* strata's default row group */
#define INEXACT_REL 1e-9  /* SQLite's REAL sums of DECIMAL values: accepted relative error */
#define AVG_ABS 1e-5      /* averages: accepted absolute error (strata's DECIMAL avg has 5 decimals) */
#define TOP_N 10
#define MAX_SF 10 /* the exact sums (units of 1e-6 for Q1's sum_charge) fit in an int64 up to here */
#define EXPECTED_FILE "analytics.expected"
#define EXPECTED_MAGIC "strata-analytics-expected 1"

static const size_def sizes[] = {
    {"analytics_sales", 200000, 200000, 40000}, /* tiny: a tail of 40,000 rows still goes to segments */
    {"analytics_sf_milli", 1000, 100, 10},      /* lineitem's scale factor in thousandths */
    {"analytics_runs", 5, 3, 1},                /* repeats of each prepared query */
};

static const workload_def workloads[] = {
    {"an_load_sales", "sales_load"},   {"an_sales_filter_sum", "sales_q0"},
    {"an_sales_group_by", "sales_q1"}, {"an_sales_arith_agg", "sales_q2"},
    {"an_load_li", "li_load"},         {"an_tpch_q1", "li_q1"},
    {"an_tpch_q6", "li_q6"},           {"an_li_top_orders", "li_top"},
    {"an_li_supp_sum", "li_supp"},
};

/* A query's figures: the first run and the median of the repeats. */
#define QUERY_FIRST(w, title)                                                                                \
    {                                                                                                        \
        w "_first_ms", w, title ": first run (fresh process: prepare + run)", "ms", "query run", NULL,       \
            K_TIME, NULL                                                                                     \
    }
#define QUERY_REPEAT(w)                                                                                      \
    { w "_repeat_ms", w, "   repeat (median of %s runs)", "ms", "query run", NULL, K_TIME, "analytics_runs" }
#define QUERY_METRICS(w, title) QUERY_FIRST(w, title), QUERY_REPEAT(w)

static const metric_def metrics[] = {
    {"an_load_sales_ms", "an_load_sales", "sales: load %s rows, bulk path, 1 txn (commit included)", "ms",
     "row", "analytics_sales", K_TIME, "analytics_sales"},
    {"an_load_sales_final_ms", "an_load_sales", "   load + CHECKPOINT (strata) + close: the final file", "ms",
     "row", "analytics_sales", K_TIME, NULL},
    {"an_sales_bytes", "an_load_sales", "   file size after close (file + WAL)", "bytes", "database", NULL,
     K_SIZE, NULL},
    {"an_sales_segment_rows", "an_load_sales", "   strata: rows in column segments after the CHECKPOINT",
     "rows", "row", NULL, K_INFO, NULL},
    {"an_sales_rowstore_rows", "an_load_sales", "   strata: rows left in the row store", "rows", "row", NULL,
     K_INFO, NULL},
    QUERY_METRICS("an_sales_filter_sum", "sales filter + sum"),
    QUERY_METRICS("an_sales_group_by", "sales GROUP BY region (100 groups)"),
    QUERY_METRICS("an_sales_arith_agg", "sales arithmetic filter + aggregate"),
    {"an_load_li_ms", "an_load_li",
     "lineitem, TPC-H SF %s/1000: load lineitem.tbl (read + parse included), bulk path, 1 txn", "ms", "load",
     NULL, K_TIME, "analytics_sf_milli"},
    {"an_load_li_rows_s", "an_load_li", "   load throughput", "rows/s", "row", NULL, K_RATE, NULL},
    {"an_load_li_final_ms", "an_load_li", "   load + CHECKPOINT (strata) + close: the final file", "ms",
     "load", NULL, K_TIME, NULL},
    {"an_li_bytes", "an_load_li", "   file size after close (file + WAL)", "bytes", "database", NULL, K_SIZE,
     NULL},
    {"an_li_rows", "an_load_li", "   rows loaded (checked)", "rows", "row", NULL, K_INFO, NULL},
    {"an_li_segment_rows", "an_load_li", "   strata: rows in column segments after the CHECKPOINT", "rows",
     "row", NULL, K_INFO, NULL},
    {"an_li_rowstore_rows", "an_load_li", "   strata: rows left in the row store", "rows", "row", NULL,
     K_INFO, NULL},
    QUERY_METRICS("an_tpch_q1", "TPC-H Q1 (GROUP BY l_returnflag, l_linestatus, 8 aggregates, ORDER BY)"),
    QUERY_METRICS("an_tpch_q6", "TPC-H Q6 (filtered sum of l_extendedprice * l_discount)"),
    QUERY_METRICS("an_li_top_orders", "top 10 orders by line count (GROUP BY l_orderkey, ORDER BY, LIMIT)"),
    QUERY_METRICS("an_li_supp_sum", "sum(l_extendedprice) GROUP BY l_suppkey (every supplier)"),
    /* JSON only: SQLite's largest deviation from the exact Q1 sums, relative */
    {"an_tpch_q1_float_dev", "an_tpch_q1", NULL, "relative", "query run", NULL, K_INFO, NULL},
};

static const phase_def phases[] = {
    {"sales_load", NULL, NULL},
    {"sales_q0", "sales_load", "an_load_sales"},
    {"sales_q1", "sales_load", "an_load_sales"},
    {"sales_q2", "sales_load", "an_load_sales"},
    {"li_load", NULL, NULL},
    {"li_q1", "li_load", "an_load_li"},
    {"li_q6", "li_load", "an_load_li"},
    {"li_top", "li_load", "an_load_li"},
    {"li_supp", "li_load", "an_load_li"},
};

/* ---------------------------------------------------------------------------------------------
** Tables and queries. The schemas are the same text for every engine; strata's CREATE TABLE adds
** STRATA_WITH.
*/

#define STRATA_WITH " WITH (storage = 'column')"
/* the sql suite's sales (suite_sql.c) */
#define SALES_TABLE "sales(id INTEGER PRIMARY KEY, region INTEGER, qty INTEGER, price DOUBLE, day INTEGER)"
/* datasets/tpch/schema.sql's lineitem without its PRIMARY KEY (no index to maintain on any engine) */
#define LINEITEM_TABLE                                                                                       \
    "lineitem(l_orderkey BIGINT NOT NULL, l_partkey INTEGER NOT NULL, l_suppkey INTEGER NOT NULL, "          \
    "l_linenumber INTEGER NOT NULL, l_quantity DECIMAL(15,2) NOT NULL, l_extendedprice DECIMAL(15,2) NOT "   \
    "NULL, l_discount DECIMAL(15,2) NOT NULL, l_tax DECIMAL(15,2) NOT NULL, l_returnflag CHAR(1) NOT NULL, " \
    "l_linestatus CHAR(1) NOT NULL, l_shipdate DATE NOT NULL, l_commitdate DATE NOT NULL, l_receiptdate "    \
    "DATE NOT NULL, l_shipinstruct CHAR(25) NOT NULL, l_shipmode CHAR(10) NOT NULL, l_comment VARCHAR(44) "  \
    "NOT NULL)"

#define Q1_SELECT                                                                                            \
    "SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS "                \
    "sum_base_price, "                                                                                       \
    "sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price, "                                            \
    "sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge, avg(l_quantity) AS avg_qty, "      \
    "avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc, count(*) AS count_order FROM lineitem " \
    "WHERE l_shipdate <= "
#define Q1_REST " GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus"
#define Q6_SELECT "SELECT sum(l_extendedprice * l_discount) AS revenue FROM lineitem WHERE "
#define Q6_REST " AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"

enum { LI_Q1, LI_Q6, LI_TOP, LI_SUPP, LI_QUERIES };

/* A lineitem query. sqlite_sql: SQLite's text where its dialect differs (it has no DATE literal;
** its dates are ISO text, so the string comparison is the same predicate). */
typedef struct li_query {
    const char *workload, *phase, *sql, *sqlite_sql;
} li_query;

static const li_query li_queries[LI_QUERIES] = {
    {"an_tpch_q1", "li_q1", Q1_SELECT "DATE '1998-09-02'" Q1_REST, Q1_SELECT "'1998-09-02'" Q1_REST},
    {"an_tpch_q6", "li_q6",
     Q6_SELECT "l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'" Q6_REST,
     Q6_SELECT "l_shipdate >= '1994-01-01' AND l_shipdate < '1995-01-01'" Q6_REST},
    /* the tie-break on l_orderkey makes the ten rows deterministic (many orders have 7 lines) */
    {"an_li_top_orders", "li_top",
     "SELECT l_orderkey, count(*) FROM lineitem GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 10", NULL},
    {"an_li_supp_sum", "li_supp", "SELECT l_suppkey, sum(l_extendedprice) FROM lineitem GROUP BY 1", NULL},
};

static const char *const sales_workloads[3] = {"an_sales_filter_sum", "an_sales_group_by",
                                               "an_sales_arith_agg"};

static int is_strata(const engine *e) { return !strncmp(e->name, "strata", 6); } /* strata, strata-t1 */
static int is_sqlite(const engine *e) { return !strncmp(e->name, "sqlite", 6); }

static double scale_factor(const options *o) { return (double)size_of(o, "analytics_sf_milli") / 1000; }

/* ---------------------------------------------------------------------------------------------
** lineitem's answers, from the generator: computed once per scale factor in a child process (as
** suite_load.c does for lineitem.expected: the generator's text pool would stay in this
** process's memory) and kept in <dir>/analytics.expected.
*/

typedef struct q1_group {
    char flag, status;
    int64_t count, qty, price, disc; /* sums in cents */
    int64_t disc_price;              /* sum(l_extendedprice * (1 - l_discount)), units of 1e-4 */
    int64_t charge;                  /* sum(... * (1 + l_tax)), units of 1e-6 */
} q1_group;

typedef struct li_answers {
    int nq1;
    q1_group q1[6]; /* in ORDER BY l_returnflag, l_linestatus */
    int64_t q6;     /* units of 1e-4 */
    int ntop;
    int64_t top_key[TOP_N], top_count[TOP_N];
    int64_t nsupp;
    int64_t *supp_cents; /* [suppkey - 1]; -1: no line of that supplier */
} li_answers;

/* Puts order (key, count) into the top list when it ranks: more lines first, then the lower key. */
static void top_offer(li_answers *a, int64_t key, int64_t count) {
    int i = a->ntop;
    while (i > 0 &&
           (a->top_count[i - 1] < count || (a->top_count[i - 1] == count && a->top_key[i - 1] > key)))
        i--;
    if (i == TOP_N) return;
    int last = a->ntop < TOP_N ? a->ntop : TOP_N - 1;
    for (int k = last; k > i; k--)
        a->top_key[k] = a->top_key[k - 1], a->top_count[k] = a->top_count[k - 1];
    a->top_key[i] = key, a->top_count[i] = count;
    if (a->ntop < TOP_N) a->ntop++;
}

/* compute_answers runs the generator over lineitem at sf and writes the answers to path (through
** path.tmp). Returns 0, or -1 (in the child: its exit status says it). */
static int compute_answers(const char *path, double sf) {
    int32_t q1_date = days_from_civil(1998, 9, 2), q6_from = days_from_civil(1994, 1, 1),
            q6_to = days_from_civil(1995, 1, 1);
    int64_t nsupp = tpch_table_rows(TPCH_SUPPLIER, sf);
    li_answers a = {0};
    q1_group g[3][2] = {{{0}}}; /* [A, N, R][F, O] */
    int64_t *supp = calloc((size_t)(nsupp > 0 ? nsupp : 1), sizeof *supp);
    char *seen = calloc((size_t)(nsupp > 0 ? nsupp : 1), 1);
    tpch_gen *gen = NULL;
    tpch_row row;
    if (nsupp <= 0 || supp == NULL || seen == NULL || tpch_gen_open(&gen, TPCH_LINEITEM, sf) != STRATA_OK)
        return -1;
    int64_t order = -1, lines = 0;
    while (tpch_gen_next(gen, &row) == STRATA_ROW) {
        const tpch_lineitem *l = &row.lineitem;
        if (l->orderkey != order) {
            if (l->orderkey < order) return -1; /* an order's lines must come together, in key order */
            if (order >= 0) top_offer(&a, order, lines);
            order = l->orderkey, lines = 0;
        }
        lines++;
        if (l->suppkey < 1 || l->suppkey > nsupp) return -1;
        supp[l->suppkey - 1] += l->extendedprice, seen[l->suppkey - 1] = 1;
        if (l->shipdate <= q1_date) {
            int f = l->returnflag == 'A' ? 0 : l->returnflag == 'N' ? 1 : l->returnflag == 'R' ? 2 : -1;
            int s = l->linestatus == 'F' ? 0 : l->linestatus == 'O' ? 1 : -1;
            if (f < 0 || s < 0) return -1;
            q1_group *q = &g[f][s];
            q->flag = l->returnflag, q->status = l->linestatus;
            q->count++, q->qty += l->quantity, q->price += l->extendedprice, q->disc += l->discount;
            q->disc_price += l->extendedprice * (100 - l->discount);
            q->charge += l->extendedprice * (100 - l->discount) * (100 + l->tax);
        }
        if (l->shipdate >= q6_from && l->shipdate < q6_to && l->discount >= 5 && l->discount <= 7 &&
            l->quantity < 2400)
            a.q6 += l->extendedprice * l->discount;
    }
    if (order >= 0) top_offer(&a, order, lines);
    tpch_gen_close(gen);
    char tmp[4400];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL) return -1;
    fprintf(f, "%s sf %.17g\n", EXPECTED_MAGIC, sf);
    for (int i = 0; i < 3; i++)
        for (int s = 0; s < 2; s++)
            if (g[i][s].count) a.q1[a.nq1++] = g[i][s];
    fprintf(f, "q1 %d\n", a.nq1);
    for (int i = 0; i < a.nq1; i++) {
        const q1_group *q = &a.q1[i];
        fprintf(f, "%c %c %lld %lld %lld %lld %lld %lld\n", q->flag, q->status, (long long)q->count,
                (long long)q->qty, (long long)q->price, (long long)q->disc, (long long)q->disc_price,
                (long long)q->charge);
    }
    fprintf(f, "q6 %lld\ntop %d\n", (long long)a.q6, a.ntop);
    for (int i = 0; i < a.ntop; i++)
        fprintf(f, "%lld %lld\n", (long long)a.top_key[i], (long long)a.top_count[i]);
    fprintf(f, "supp %lld\n", (long long)nsupp);
    for (int64_t i = 0; i < nsupp; i++)
        fprintf(f, "%lld\n", seen[i] ? (long long)supp[i] : -1LL);
    free(supp);
    free(seen);
    return fclose(f) == 0 && rename(tmp, path) == 0 ? 0 : -1;
}

static void answers_free(li_answers *a) {
    free(a->supp_cents);
    a->supp_cents = NULL;
}

/* read_answers reads the file compute_answers wrote. Returns 0, or -1 when it is not one. */
static int read_answers(const char *path, double sf, li_answers *a) {
    char magic[64], flag, status;
    double file_sf;
    long long v[6], n;
    memset(a, 0, sizeof *a);
    FILE *f = fopen(path, "r");
    if (f == NULL) return -1;
    int ok = fscanf(f, "strata-analytics-expected %63s sf %lf", magic, &file_sf) == 2 &&
             !strcmp(magic, strchr(EXPECTED_MAGIC, ' ') + 1) && file_sf == sf &&
             fscanf(f, " q1 %lld", &n) == 1 && n >= 0 && n <= 6;
    for (int i = 0; ok && i < n; i++) {
        ok = fscanf(f, " %c %c %lld %lld %lld %lld %lld %lld", &flag, &status, &v[0], &v[1], &v[2], &v[3],
                    &v[4], &v[5]) == 8;
        a->q1[i] = (q1_group){flag, status, v[0], v[1], v[2], v[3], v[4], v[5]};
        a->nq1 = i + 1;
    }
    ok = ok && fscanf(f, " q6 %lld top %lld", &v[0], &n) == 2 && n >= 0 && n <= TOP_N;
    if (ok) a->q6 = v[0], a->ntop = (int)n;
    for (int i = 0; ok && i < a->ntop; i++) {
        ok = fscanf(f, " %lld %lld", &v[0], &v[1]) == 2;
        a->top_key[i] = v[0], a->top_count[i] = v[1];
    }
    ok = ok && fscanf(f, " supp %lld", &n) == 1 && n > 0 &&
         (a->supp_cents = malloc((size_t)n * sizeof *a->supp_cents)) != NULL;
    if (ok) a->nsupp = n;
    for (int64_t i = 0; ok && i < a->nsupp; i++) {
        ok = fscanf(f, " %lld", &v[0]) == 1;
        a->supp_cents[i] = v[0];
    }
    fclose(f);
    if (!ok) answers_free(a);
    return ok ? 0 : -1;
}

/* lineitem_answers gives the answers at sf from <dir>/analytics.expected, making the file first
** (in a child process) when it is missing or not of this format and scale factor. Returns 0, or
** -1 with the message recorded. */
static int lineitem_answers(const char *dir, double sf, li_answers *a) {
    char path[4300];
    if (sf > MAX_SF) /* Q1's sum_charge of a group, in units of 1e-6, would pass the int64 range */
        return wl_failf("SF %g: the suite checks its sums in int64, up to SF %d", sf, MAX_SF);
    snprintf(path, sizeof path, "%s/" EXPECTED_FILE, dir);
    if (read_answers(path, sf, a) == 0) return 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return wl_failf("fork: %s", strerror(errno));
    if (pid == 0) _exit(compute_answers(path, sf) ? 1 : 0);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return wl_failf("waitpid: %s", strerror(errno));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return wl_failf("computing %s from the generator failed", path);
    if (read_answers(path, sf, a)) return wl_failf("%s: unreadable after it was made", path);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
** Checking results. A DECIMAL value in units of 10^-scale: strata and DuckDB give their exact
** decimal text (parsed exactly); SQLite's REAL goes through its double, and is accepted when it is
** within INEXACT_REL of the exact value, which it then takes (so that its checksum is the exact
** one); otherwise its own rounded value stays and the checksum disagrees.
*/

typedef struct li_run {
    int q;
    const li_answers *a;
    double float_dev; /* SQLite: the largest relative deviation of a Q1 sum */
} li_run;

static int decimal_value(const engine *e, void *stmt, int col, int scale, int64_t exact, int64_t *units,
                         double *dev) {
    if (e->column_is_null(stmt, col)) return -1;
    if (is_sqlite(e)) {
        double v = e->column_double(stmt, col) * pow(10, scale), d = fabs(v - (double)exact);
        double rel = exact ? d / fabs((double)exact) : d;
        if (dev && rel > *dev) *dev = rel;
        *units = d <= INEXACT_REL * fabs((double)exact) ? exact : llround(v);
        return 0;
    }
    int len;
    const char *t = e->column_text(stmt, col, &len);
    return t == NULL ? -1 : parse_decimal(t, (size_t)len, scale, units);
}

/* An average: within AVG_ABS of sum / count, or within INEXACT_REL of it. */
static int avg_ok(double got, double sum, int64_t count) {
    double want = sum / (double)count, d = fabs(got - want);
    return d <= AVG_ABS || d <= INEXACT_REL * fabs(want);
}

static uint64_t q1_row_hash(const q1_group *g) {
    uint64_t h = mix(mix(0, (uint64_t)g->flag), (uint64_t)g->status);
    h = mix(mix(mix(h, (uint64_t)g->count), (uint64_t)g->qty), (uint64_t)g->price);
    return mix(mix(h, (uint64_t)g->disc_price), (uint64_t)g->charge) & MASK52;
}

static uint64_t supp_row_hash(int64_t suppkey, int64_t cents) {
    return mix(mix(0, (uint64_t)suppkey), (uint64_t)cents) & MASK52;
}

/* The checksum of query q's exact answer, folded as run_li folds an engine's rows. */
static checksum li_checksum(int q, const li_answers *a) {
    checksum c = {0};
    switch (q) {
    case LI_Q1:
        for (int i = 0; i < a->nq1; i++)
            c.a++, c.b += (uint64_t)a->q1[i].count, c.c = mix(c.c, q1_row_hash(&a->q1[i])) & MASK52;
        break;
    case LI_Q6: c.a = 1, c.b = (uint64_t)a->q6 & MASK52, c.c = (uint64_t)a->q6 >> 52; break;
    case LI_TOP:
        for (int i = 0; i < a->ntop; i++)
            c.a++, c.b += (uint64_t)a->top_count[i],
                c.c = mix(c.c, mix((uint64_t)a->top_key[i], (uint64_t)a->top_count[i])) & MASK52;
        break;
    default:
        for (int64_t i = 0; i < a->nsupp; i++)
            if (a->supp_cents[i] >= 0)
                c.a++, c.b += (uint64_t)(i + 1),
                    c.c = (c.c + supp_row_hash(i + 1, a->supp_cents[i])) & MASK52;
    }
    return c;
}

/* Q1's row: the group it names, its values checked and folded into c. */
static int fold_q1_row(const engine *e, void *stmt, li_run *r, checksum *c) {
    int lf, ls;
    const char *f = e->column_text(stmt, 0, &lf), *s = e->column_text(stmt, 1, &ls);
    char flag = f && lf ? f[0] : 0, status = s && ls ? s[0] : 0;
    const q1_group *want = NULL;
    for (int i = 0; i < r->a->nq1; i++)
        if (r->a->q1[i].flag == flag && r->a->q1[i].status == status) want = &r->a->q1[i];
    if (want == NULL) return wl_failf("Q1: a group (%c, %c) that the generator does not make", flag, status);
    q1_group g = {.flag = flag, .status = status, .count = e->column_int64(stmt, 9)};
    double *dev = &r->float_dev;
    if (decimal_value(e, stmt, 2, 2, want->qty, &g.qty, dev) ||
        decimal_value(e, stmt, 3, 2, want->price, &g.price, dev) ||
        decimal_value(e, stmt, 4, 4, want->disc_price, &g.disc_price, dev) ||
        decimal_value(e, stmt, 5, 6, want->charge, &g.charge, dev))
        return wl_failf("Q1 group (%c, %c): a sum is NULL or not a decimal of its scale", flag, status);
    static const char *const avg_names[3] = {"avg_qty", "avg_price", "avg_disc"};
    const double avg_sums[3] = {(double)want->qty / 100, (double)want->price / 100, (double)want->disc / 100};
    for (int k = 0; k < 3; k++) {
        double got = e->column_double(stmt, 6 + k);
        if (e->column_is_null(stmt, 6 + k) || !avg_ok(got, avg_sums[k], want->count))
            return wl_failf("Q1 group (%c, %c): %s is %.9g, expected %.9g", flag, status, avg_names[k], got,
                            avg_sums[k] / (double)want->count);
    }
    c->a++, c->b += (uint64_t)g.count, c->c = mix(c->c, q1_row_hash(&g)) & MASK52;
    return 0;
}

/* One run of a prepared lineitem query to its end, folded into *c as li_checksum folds the
** answer. */
static int run_li(const engine *e, void *stmt, void *arg, checksum *c) {
    li_run *r = arg;
    int rc;
    memset(c, 0, sizeof *c);
    while ((rc = e->step(stmt)) == 1) {
        switch (r->q) {
        case LI_Q1:
            if (fold_q1_row(e, stmt, r, c)) return -1;
            break;
        case LI_Q6: {
            int64_t units;
            if (decimal_value(e, stmt, 0, 4, r->a->q6, &units, NULL))
                return wl_failf("Q6: the revenue is NULL or not a decimal of 4 decimals");
            c->a++, c->b = (uint64_t)units & MASK52, c->c = (uint64_t)units >> 52;
            break;
        }
        case LI_TOP: {
            int64_t key = e->column_int64(stmt, 0), count = e->column_int64(stmt, 1);
            c->a++, c->b += (uint64_t)count, c->c = mix(c->c, mix((uint64_t)key, (uint64_t)count)) & MASK52;
            break;
        }
        default: {
            int64_t key = e->column_int64(stmt, 0), cents;
            int64_t want = key >= 1 && key <= r->a->nsupp ? r->a->supp_cents[key - 1] : -1;
            if (decimal_value(e, stmt, 1, 2, want, &cents, NULL))
                return wl_failf("supplier %lld: the sum is NULL or not a decimal of 2 decimals",
                                (long long)key);
            c->a++, c->b += (uint64_t)key, c->c = (c->c + supp_row_hash(key, cents)) & MASK52;
        }
        }
    }
    return rc < 0 ? -1 : 0;
}

/* ---------------------------------------------------------------------------------------------
** Loads.
*/

/* strata's storage after the CHECKPOINT: rows in column segments and rows in the row store. */
static int strata_storage(const engine *e, void *db, const char *table, int64_t *segments,
                          int64_t *rowstore) {
    char sql[256];
    int64_t *out[2] = {segments, rowstore};
    static const char *const where[2] = {"\"column\" = 'rowid' AND row_group IS NOT NULL",
                                         "row_group IS NULL"};
    for (int i = 0; i < 2; i++) {
        void *s = NULL;
        snprintf(sql, sizeof sql, "SELECT sum(rows) FROM pragma_storage_info('%s') WHERE %s", table,
                 where[i]);
        if (e->prepare(db, sql, &s) || e->step(s) != 1) {
            wl_fail(e, db, sql);
            e->finalize(s);
            return -1;
        }
        *out[i] = e->column_is_null(s, 0) ? 0 : e->column_int64(s, 0);
        e->finalize(s);
    }
    return 0;
}

/* strata: `CHECKPOINT <table>`, then storage_info: every full row group must be in segments.
** Records <key>_segment_rows and <key>_rowstore_rows. */
static int migrate_and_checkpoint(const engine *e, void *db, const char *table, const char *key, int64_t rows) {
    char sql[128], id[96];
    int64_t segments, rowstore;
    snprintf(sql, sizeof sql, "CHECKPOINT %s", table);
    if (e->exec(db, sql)) return wl_fail(e, db, sql);
    if (strata_storage(e, db, table, &segments, &rowstore)) return -1;
    snprintf(id, sizeof id, "%s_segment_rows", key);
    put_metric(id, (double)segments);
    snprintf(id, sizeof id, "%s_rowstore_rows", key);
    put_metric(id, (double)rowstore);
    if (segments + rowstore != rows || segments < rows / GROUP_ROWS * GROUP_ROWS)
        return wl_failf("storage_info of %s after CHECKPOINT: %lld rows in column segments, %lld in the row "
                        "store, of %lld (every full row group of %d rows should be in segments)",
                        table, (long long)segments, (long long)rowstore, (long long)rows, GROUP_ROWS);
    return 0;
}

static int create_table(const engine *e, void *db, const char *table) {
    char sql[1024];
    snprintf(sql, sizeof sql, "CREATE TABLE %s%s", table, is_strata(e) ? STRATA_WITH : "");
    return e->exec(db, sql) ? wl_fail(e, db, sql) : 0;
}

/* The load of sales: CREATE TABLE, the bulk load timed, strata's CHECKPOINT, close; the size. */
static int wl_load_sales(const engine *e, const char *path, const options *o) {
    uint64_t rows = size_of(o, "analytics_sales");
    void *db = NULL;
    if (e->open(path, &db)) {
        wl_fail(e, db, "open a new database");
        e->close(db);
        return -1;
    }
    if (create_table(e, db, SALES_TABLE)) goto fail;
    peak_reset();
    uint64_t t0 = now_ns();
    if (sales_load(e, db, rows)) goto fail;
    double load_ms = ms_since(t0);
    if (is_strata(e) && migrate_and_checkpoint(e, db, "sales", "an_sales", (int64_t)rows)) goto fail;
    e->close(db);
    double final_ms = ms_since(t0);
    put_peak("an_load_sales");
    put_metric("an_load_sales_ms", load_ms);
    put_metric("an_load_sales_final_ms", final_ms);
    put_metric("an_sales_bytes", db_size(path));
    return 0;
fail:
    e->close(db);
    return -1;
}

/* The load of lineitem from lineitem.tbl: CREATE TABLE, the bulk load (the bench reads and parses
** the file for every engine) timed, strata's CHECKPOINT, close; then, untimed, a reopen and the
** check of count(*), sum(l_extendedprice) and the comments' bytes against the generator's. */
static int wl_load_li(const engine *e, const char *path, const options *o) {
    char dir[4096];
    double sf = scale_factor(o);
    checksum want, got;
    li_answers a;
    if (sf > MAX_SF) /* before the generator writes the file */
        return wl_failf("SF %g: the suite checks its sums in int64, up to SF %d", sf, MAX_SF);
    if (tpch_files(sf, 1u << TPCH_LINEITEM, dir, sizeof dir) || tpch_lineitem_expected(dir, sf, &want) ||
        lineitem_answers(dir, sf, &a)) /* made here, once per scale factor, for the query phases */
        return -1;
    answers_free(&a);
    int64_t rows = 0, want_rows = tpch_table_rows(TPCH_LINEITEM, sf);
    void *db = NULL;
    if (e->open(path, &db)) {
        wl_fail(e, db, "open a new database");
        e->close(db);
        return -1;
    }
    if (create_table(e, db, LINEITEM_TABLE)) goto fail;
    peak_reset();
    uint64_t t0 = now_ns();
    if (tbl_load(e, db, dir, TPCH_LINEITEM, 1, &rows)) goto fail;
    double load_ms = ms_since(t0);
    if (rows != want_rows) {
        wl_failf("lineitem.tbl has %lld lines, the generator makes %lld", (long long)rows,
                 (long long)want_rows);
        goto fail;
    }
    if (is_strata(e) && migrate_and_checkpoint(e, db, "lineitem", "an_li", rows)) goto fail;
    e->close(db);
    double final_ms = ms_since(t0);
    put_peak("an_load_li");
    put_metric("an_load_li_ms", load_ms);
    put_metric("an_load_li_rows_s", (double)rows / (load_ms / 1e3));
    put_metric("an_load_li_final_ms", final_ms);
    put_metric("an_li_bytes", db_size(path));
    put_metric("an_li_rows", (double)rows);
    if (e->open(path, &db)) {
        wl_fail(e, db, "reopen to check lineitem");
        goto fail;
    }
    if (tpch_check_lineitem(e, db, &want, &got)) goto fail;
    e->close(db);
    put_checksum("an_load_li", &got);
    return 0;
fail:
    e->close(db);
    return -1;
}

/* ---------------------------------------------------------------------------------------------
** Phases.
*/

static void phase_load(const engine *e, const options *o, const char *dir, int lineitem) {
    const char *w = lineitem ? "an_load_li" : "an_load_sales";
    char path[4200];
    db_path(path, sizeof path, dir, lineitem ? "an_lineitem" : "an_sales");
    remove_db(path);
    /* the queries read this table: it is loaded whether or not its figures are asked for */
    RUN_ALWAYS(w, lineitem ? wl_load_li(e, path, o) : wl_load_sales(e, path, o));
}

static void phase_sales_query(const engine *e, const options *o, const char *dir, int q) {
    char path[4200];
    db_path(path, sizeof path, dir, "an_sales");
    if (!selected(sales_workloads[q])) return;
    void *db = open_db(e, path, &sales_workloads[q], 1);
    if (db == NULL) return;
    checksum want = sales_expected(q, size_of(o, "analytics_sales"));
    RUN(sales_workloads[q], time_query(e, db, sales_workloads[q], sales_query_sql[q],
                                       (int)size_of(o, "analytics_runs"), sales_run_query, &q, &want));
    e->close(db);
}

static int wl_li_query(const engine *e, void *db, const options *o, const char *dir, int q) {
    li_run r = {.q = q};
    li_answers a;
    if (lineitem_answers(dir, scale_factor(o), &a)) return -1;
    r.a = &a;
    checksum want = li_checksum(q, &a);
    const li_query *lq = &li_queries[q];
    int rc = time_query(e, db, lq->workload, is_sqlite(e) && lq->sqlite_sql ? lq->sqlite_sql : lq->sql,
                        (int)size_of(o, "analytics_runs"), run_li, &r, &want);
    if (rc == 0 && q == LI_Q1 && is_sqlite(e)) put_metric("an_tpch_q1_float_dev", r.float_dev);
    answers_free(&a);
    return rc;
}

static void phase_li_query(const engine *e, const options *o, const char *dir, int q) {
    const char *w = li_queries[q].workload;
    char path[4200], data[4096];
    if (!selected(w)) return;
    db_path(path, sizeof path, dir, "an_lineitem");
    void *db = open_db(e, path, &w, 1);
    if (db == NULL) return;
    workload_begin(w, 0);
    /* the answers are read before the query's timing and its peak-memory reset */
    int rc = tpch_files(scale_factor(o), 1u << TPCH_LINEITEM, data, sizeof data);
    if (rc == 0) rc = wl_li_query(e, db, o, data, q);
    workload_end(w, rc);
    e->close(db);
}

static void run_phase(const engine *e, const options *o, const char *dir, const char *phase) {
    if (is_sqlite(e) && strcmp(e->name, "sqlite-wal")) { /* read-only queries: one journal mode is enough */
        for (int i = 0; i < COUNT(workloads); i++)
            if (!strcmp(workloads[i].phase, phase)) not_applicable(workloads[i].id, "sqlite-wal only");
        return;
    }
    if (!strcmp(phase, "sales_load")) return phase_load(e, o, dir, 0);
    if (!strcmp(phase, "li_load")) return phase_load(e, o, dir, 1);
    if (!strncmp(phase, "sales_q", 7)) return phase_sales_query(e, o, dir, phase[7] - '0');
    for (int q = 0; q < LI_QUERIES; q++)
        if (!strcmp(phase, li_queries[q].phase)) return phase_li_query(e, o, dir, q);
    die("analytics: unknown phase %s", phase);
}

static void describe(FILE *out, const options *o) {
    double sf = scale_factor(o);
    fprintf(
        out,
        "- Engines: strata, SQLite (`sqlite-wal` only: the queries read, one journal mode is enough; "
        "the other modes show n/a), DuckDB with its default threads (`duckdb`) and with `SET threads = 1` "
        "after open (`duckdb-t1`, named with `--engines`). Each engine's settings are listed under "
        "\"Engines and method\".\n");
    fprintf(
        out,
        "- Tables, each in its own database file: the sql suite's `%s` (%llu rows of its generator) and "
        "`lineitem`, datasets/tpch/schema.sql's columns without the PRIMARY KEY, loaded from the "
        "generator's `lineitem.tbl` at SF %g (`--size analytics_sf_milli=%llu`; %lld rows). strata's "
        "tables are `CREATE TABLE ...%s` and get `CHECKPOINT <table>` after the load (storage_info is "
        "read: every full row group in column segments). Loads by each engine's bulk path in one "
        "transaction — strata's and DuckDB's appenders, SQLite a prepared INSERT — the .tbl file read and "
        "split by the bench for every engine (integers as int64, DECIMAL(15,2) as double, dates and "
        "strings as text); the load's time includes reading and parsing the file.\n",
        SALES_TABLE, (unsigned long long)size_of(o, "analytics_sales"), sf,
        (unsigned long long)size_of(o, "analytics_sf_milli"), (long long)tpch_table_rows(TPCH_LINEITEM, sf),
        STRATA_WITH);
    fprintf(
        out,
        "- Each query in a fresh process: open, `SELECT 1` (untimed), the first run (prepare + every row), "
        "then %llu runs of the prepared statement, median = repeat. Peak memory (RSS high-water mark) from "
        "the first run to the last repeat. sales: `%s`; `%s`; `%s`. lineitem: TPC-H Q1 `%s` (SQLite: "
        "`... WHERE l_shipdate <= '1998-09-02' ...`, it has no DATE literal and keeps dates as ISO text); "
        "Q6 `%s` (SQLite: the same with `'1994-01-01'` and `'1995-01-01'`); `%s` (the tie-break on column 1 "
        "makes the 10 rows deterministic: many orders have 7 lines); `%s` (every supplier's row, checked "
        "order-independently).\n",
        (unsigned long long)size_of(o, "analytics_runs"), sales_query_sql[0], sales_query_sql[1],
        sales_query_sql[2], li_queries[LI_Q1].sql, li_queries[LI_Q6].sql, li_queries[LI_TOP].sql,
        li_queries[LI_SUPP].sql);
    fprintf(
        out,
        "- Checks: every result equals the generator's (lineitem's answers computed once per scale factor "
        "into `%s` beside the .tbl files) and agrees between engines. DECIMAL results exactly for strata "
        "and DuckDB; SQLite stores DECIMAL as REAL, so its sums are accepted within a relative %g of the "
        "exact value; averages within %g (strata's avg of a DECIMAL(15,2) has 5 decimals, DuckDB's and "
        "SQLite's are doubles). The load is checked after a reopen: count(*), sum(l_extendedprice) and "
        "sum(length(l_comment)) against the generator's.\n",
        EXPECTED_FILE, INEXACT_REL, AVG_ABS);
}

const suite suite_analytics = {
    .id = "analytics",
    .title = "Analytics: strata vs DuckDB (threads=1 and default) and SQLite WAL, sales and TPC-H lineitem",
    SUITE_TABLES,
    .run_phase = run_phase,
    .describe = describe,
};
