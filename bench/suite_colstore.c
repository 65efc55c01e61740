/*
** suite_colstore.c -- the column store against the row store, SQLite and DuckDB: file size per
** row, compression per column, migration throughput, scans warm and cold of migrated data, and
** point lookups on migrated rows.
**
** Two tables, each in its own database file: the sql suite's analytic table sales (the same
** generator, so the same rows) and a lineitem-like table with TPC-H lineitem's column types and
** value distributions (generated here, deterministically, from the row count). strata loads each
** twice: into a table WITH (storage = 'auto') followed by `CHECKPOINT <table>`, so that every
** full row group migrates into column segments (the "migrated" variant, compared with SQLite and
** DuckDB), and into a table WITH (storage = 'row'), which keeps the same rows in the row store
** (the "row store" variant: workloads whose id ends in _row, strata only). The other engines load
** each table once, by their bulk path, into the same schema.
**
** Phases, each a fresh process per engine and repetition: the loads (migration time, file size
** and the per-column compression of storage_info are measured there); one phase per scan query
** and variant (the first run after open is "cold", the median of the repeats that follow
** "warm"); one per lookup workload and variant (CREATE INDEX where needed, a reopen, then the
** same random lookups twice: cold, then warm). The row-store phase of a query runs before its
** migrated phase and leaves its times in a file of the repetition's directory, from which the
** migrated phase computes strata's speed-up row store / migrated (the issue's >= 5x target).
**
** Every read is checked against the generator: DECIMAL results exactly for strata and DuckDB
** (their DECIMAL is exact); SQLite keeps DECIMAL columns as REAL, so its floating-point sums are
** accepted within a relative 1e-9 of the exact value and then carry the exact checksum.
** bench/README.md describes the workloads and figures.
*/
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define DEFAULT_GROUP_ROWS 122880 /* strata's full row group; the WITH clause names other sizes only */
#define POOL_BYTES (1u << 20) /* the text pool l_comment is cut from */
#define COMMENT_MIN 10
#define COMMENT_MAX 43
#define MAX_SEG_COLS 32  /* columns of a table in storage_info (lineitem: 16 + rowid) */
#define MAX_ENCODINGS 8  /* distinct encodings tracked per column */
#define INEXACT_REL 1e-9 /* SQLite's REAL sums of DECIMAL values: accepted relative error */

static const size_def sizes[] = {
    {"cs_li_rows", 1200000, 250000, 20000},
    {"cs_sales_rows", 200000, 200000, 5000}, /* below 122,880 rows nothing would migrate */
    {"cs_row_group", DEFAULT_GROUP_ROWS, DEFAULT_GROUP_ROWS, 2048},
    {"cs_lookups", 10000, 2000, 100},
    {"cs_query_runs", 5, 3, 1},
};

static const workload_def workloads[] = {
    {"cs_load_li", "li_load"},
    {"cs_migrate_li", "li_migrate"},
    {"cs_compress_li", "li_load"},
    {"cs_load_li_row", "li_load_row"},
    {"cs_load_sales", "sales_load"},
    {"cs_compress_sales", "sales_load"},
    {"cs_load_sales_row", "sales_load_row"},
    {"cs_li_q1_row", "li_q1_row"},
    {"cs_li_q1", "li_q1"},
    {"cs_li_q2_row", "li_q2_row"},
    {"cs_li_q2", "li_q2"},
    {"cs_li_q3_row", "li_q3_row"},
    {"cs_li_q3", "li_q3"},
    {"cs_sales_q1_row", "sales_q1_row"},
    {"cs_sales_q1", "sales_q1"},
    {"cs_sales_q2_row", "sales_q2_row"},
    {"cs_sales_q2", "sales_q2"},
    {"cs_sales_q3_row", "sales_q3_row"},
    {"cs_sales_q3", "sales_q3"},
    {"cs_li_lookup_row", "li_lookup_row"},
    {"cs_li_lookup", "li_lookup"},
    {"cs_sales_lookup_row", "sales_lookup_row"},
    {"cs_sales_lookup", "sales_lookup"},
};

/* A column's compression figures (storage_info of the migrated table, strata only): the ratio in
** the report, the compressed and uncompressed bytes in the JSON. */
#define COL_RATIO(t, col)                                                                                    \
    { "cs_" t "_ratio_" col, "cs_compress_" t, "   " col, "×", "column", NULL, K_INFO, NULL }
#define COL_CBYTES(t, col)                                                                                   \
    { "cs_" t "_cbytes_" col, "cs_compress_" t, NULL, "bytes", "column", NULL, K_SIZE, NULL }
#define COL_UBYTES(t, col)                                                                                   \
    { "cs_" t "_ubytes_" col, "cs_compress_" t, NULL, "bytes", "column", NULL, K_SIZE, NULL }
#define COL_METRICS(t, col) COL_RATIO(t, col), COL_CBYTES(t, col), COL_UBYTES(t, col)

/* A scan's figures: cold and warm for both variants, and strata's speed-up of migrated data. */
#define SCAN_COLD(w, title)                                                                                  \
    { w "_cold_ms", w, title ": cold (reopened, first run)", "ms", "query run", NULL, K_TIME, NULL }
#define SCAN_WARM(w)                                                                                         \
    { w "_warm_ms", w, "   warm (median of %s repeats)", "ms", "query run", NULL, K_TIME, "cs_query_runs" }
#define SCAN_ROW(w, which, label)                                                                            \
    { w "_row_" which "_ms", w "_row", label, "ms", "query run", NULL, K_TIME, NULL }
#define SPEEDUP(w, which, label)                                                                             \
    { w "_speedup_" which, w, label, "×", "query run", NULL, K_INFO, NULL }
#define SCAN_METRICS(w, title)                                                                               \
    SCAN_COLD(w, title), SCAN_WARM(w), SCAN_ROW(w, "cold", "   strata row store (storage = 'row'): cold"),   \
        SCAN_ROW(w, "warm", "   strata row store: warm"),                                                    \
        SPEEDUP(w, "cold", "   strata speed-up, row store ÷ migrated: cold (target ≥ 5)"),                   \
        SPEEDUP(w, "warm", "   strata speed-up, row store ÷ migrated: warm (target ≥ 5)")

static const metric_def metrics[] = {
    /* lineitem: load, size, migration, compression */
    {"cs_load_li_ms", "cs_load_li", "lineitem: load %s rows, 1 txn (commit included)", "ms", "row",
     "cs_li_rows", K_TIME, "cs_li_rows"},
    {"cs_load_li_rows_s", "cs_load_li", "   load throughput", "rows/s", "row", NULL, K_RATE, NULL},
    {"cs_load_li_final_ms", "cs_load_li", "   load + CHECKPOINT (strata) + close: the final file", "ms",
     "row", "cs_li_rows", K_TIME, NULL},
    {"cs_li_bytes", "cs_load_li", "   file size after load + CHECKPOINT + close (file + WAL)", "bytes",
     "database", NULL, K_SIZE, NULL},
    {"cs_li_bytes_per_row", "cs_load_li", "   file size per row", "B/row", "row", NULL, K_SIZE, NULL},
    {"cs_li_main_bytes", "cs_load_li", "   the database file alone (its WAL, or DuckDB's, not counted)", "bytes",
     "database", NULL, K_SIZE, NULL},
    {"cs_load_li_row_ms", "cs_load_li_row", "   strata row store (storage = 'row'): load", "ms", "row",
     "cs_li_rows", K_TIME, NULL},
    {"cs_li_row_bytes", "cs_load_li_row", "   strata row store: file size after close", "bytes", "database",
     NULL, K_SIZE, NULL},
    {"cs_li_row_bytes_per_row", "cs_load_li_row", "   strata row store: file size per row", "B/row", "row",
     NULL, K_SIZE, NULL},
    {"cs_li_commit_migrated", "cs_compress_li", "   rows the load wrote straight into row groups (bulk path)",
     "rows", "row", NULL, K_INFO, NULL},
    {"cs_migrate_li_rows", "cs_migrate_li",
     "   the tuple mover: rows migrated by `CHECKPOINT lineitem` after a load by prepared INSERTs", "rows", "row",
     NULL, K_INFO, NULL},
    {"cs_migrate_li_ms", "cs_migrate_li", "   `CHECKPOINT lineitem` alone", "ms", "row", NULL, K_TIME, NULL},
    {"cs_migrate_li_rows_s", "cs_migrate_li", "   migration throughput of the CHECKPOINT", "rows/s", "row",
     NULL, K_RATE, NULL},
    {"cs_li_rowstore_rows", "cs_compress_li", "   rows left in the row store (not a full row group)", "rows",
     "row", NULL, K_INFO, NULL},
    {"cs_li_rowstore_bytes", "cs_compress_li", "   row store pages of those rows", "bytes", "table", NULL,
     K_SIZE, NULL},
    {"cs_li_segment_bytes", "cs_compress_li", "   column segments, compressed", "bytes", "table", NULL,
     K_SIZE, NULL},
    {"cs_li_ratio_all", "cs_compress_li", "   compression, all columns (uncompressed ÷ compressed)", "×",
     "table", NULL, K_INFO, NULL},
    COL_METRICS("li", "l_orderkey"),
    COL_METRICS("li", "l_partkey"),
    COL_METRICS("li", "l_suppkey"),
    COL_METRICS("li", "l_linenumber"),
    COL_METRICS("li", "l_quantity"),
    COL_METRICS("li", "l_extendedprice"),
    COL_METRICS("li", "l_discount"),
    COL_METRICS("li", "l_tax"),
    COL_METRICS("li", "l_returnflag"),
    COL_METRICS("li", "l_linestatus"),
    COL_METRICS("li", "l_shipdate"),
    COL_METRICS("li", "l_commitdate"),
    COL_METRICS("li", "l_receiptdate"),
    COL_METRICS("li", "l_shipinstruct"),
    COL_METRICS("li", "l_shipmode"),
    COL_METRICS("li", "l_comment"),
    COL_METRICS("li", "rowid"),

    /* sales: load, size, compression */
    {"cs_load_sales_ms", "cs_load_sales", "sales: load %s rows, 1 txn (commit included)", "ms", "row",
     "cs_sales_rows", K_TIME, "cs_sales_rows"},
    {"cs_load_sales_rows_s", "cs_load_sales", "   load throughput", "rows/s", "row", NULL, K_RATE, NULL},
    {"cs_load_sales_final_ms", "cs_load_sales", "   load + CHECKPOINT (strata) + close: the final file", "ms",
     "row", "cs_sales_rows", K_TIME, NULL},
    {"cs_sales_bytes", "cs_load_sales", "   file size after load + CHECKPOINT + close (file + WAL)", "bytes",
     "database", NULL, K_SIZE, NULL},
    {"cs_sales_bytes_per_row", "cs_load_sales", "   file size per row", "B/row", "row", NULL, K_SIZE, NULL},
    {"cs_sales_main_bytes", "cs_load_sales", "   the database file alone (its WAL, or DuckDB's, not counted)", "bytes",
     "database", NULL, K_SIZE, NULL},
    {"cs_load_sales_row_ms", "cs_load_sales_row", "   strata row store (storage = 'row'): load", "ms", "row",
     "cs_sales_rows", K_TIME, NULL},
    {"cs_sales_row_bytes", "cs_load_sales_row", "   strata row store: file size after close", "bytes",
     "database", NULL, K_SIZE, NULL},
    {"cs_sales_row_bytes_per_row", "cs_load_sales_row", "   strata row store: file size per row", "B/row",
     "row", NULL, K_SIZE, NULL},
    {"cs_sales_migrated", "cs_compress_sales", "   rows migrated (load's commit + CHECKPOINT)", "rows", "row",
     NULL, K_INFO, NULL},
    {"cs_sales_rowstore_rows", "cs_compress_sales", "   rows left in the row store", "rows", "row", NULL,
     K_INFO, NULL},
    {"cs_sales_rowstore_bytes", "cs_compress_sales", "   row store pages of those rows", "bytes", "table",
     NULL, K_SIZE, NULL},
    {"cs_sales_segment_bytes", "cs_compress_sales", "   column segments, compressed", "bytes", "table", NULL,
     K_SIZE, NULL},
    {"cs_sales_ratio_all", "cs_compress_sales", "   compression, all columns (uncompressed ÷ compressed)",
     "×", "table", NULL, K_INFO, NULL},
    COL_METRICS("sales", "id"),
    COL_METRICS("sales", "region"),
    COL_METRICS("sales", "qty"),
    COL_METRICS("sales", "price"),
    COL_METRICS("sales", "day"),
    COL_METRICS("sales", "rowid"),

    /* scans */
    SCAN_METRICS("cs_li_q1",
                 "lineitem Q1, sum(l_extendedprice * (1 - l_discount)) WHERE l_shipdate ≤ 1998-09-02"),
    SCAN_METRICS("cs_li_q2", "lineitem Q2, GROUP BY l_returnflag, l_linestatus: count, sum(l_quantity)"),
    SCAN_METRICS("cs_li_q3", "lineitem Q3, count(*) WHERE l_quantity < 5"),
    SCAN_METRICS("cs_sales_q1", "sales filter + sum"),
    SCAN_METRICS("cs_sales_q2", "sales GROUP BY, 100 groups"),
    SCAN_METRICS("cs_sales_q3", "sales arithmetic filter + aggregate"),

    /* lookups */
    {"cs_li_index_ms", "cs_li_lookup", "CREATE INDEX ON lineitem(l_orderkey), after the load", "ms", "row",
     "cs_li_rows", K_TIME, NULL},
    {"cs_li_lookup_cold_ms", "cs_li_lookup", "lineitem: %s lookups by l_orderkey (~4 rows each), cold", "ms",
     "lookup", "cs_lookups", K_TIME, "cs_lookups"},
    {"cs_li_lookup_warm_ms", "cs_li_lookup", "   the same lookups again: warm", "ms", "lookup", "cs_lookups",
     K_TIME, NULL},
    {"cs_li_lookup_row_index_ms", "cs_li_lookup_row", "   strata row store: CREATE INDEX", "ms", "row",
     "cs_li_rows", K_TIME, NULL},
    {"cs_li_lookup_row_cold_ms", "cs_li_lookup_row", "   strata row store: cold", "ms", "lookup",
     "cs_lookups", K_TIME, NULL},
    {"cs_li_lookup_row_warm_ms", "cs_li_lookup_row", "   strata row store: warm", "ms", "lookup",
     "cs_lookups", K_TIME, NULL},
    SPEEDUP("cs_li_lookup", "cold", "   strata speed-up, row store ÷ migrated: cold"),
    SPEEDUP("cs_li_lookup", "warm", "   strata speed-up, row store ÷ migrated: warm"),
    {"cs_sales_lookup_cold_ms", "cs_sales_lookup", "sales: %s lookups by id (INTEGER PRIMARY KEY), cold",
     "ms", "lookup", "cs_lookups", K_TIME, "cs_lookups"},
    {"cs_sales_lookup_warm_ms", "cs_sales_lookup", "   the same lookups again: warm", "ms", "lookup",
     "cs_lookups", K_TIME, NULL},
    {"cs_sales_lookup_row_cold_ms", "cs_sales_lookup_row", "   strata row store: cold", "ms", "lookup",
     "cs_lookups", K_TIME, NULL},
    {"cs_sales_lookup_row_warm_ms", "cs_sales_lookup_row", "   strata row store: warm", "ms", "lookup",
     "cs_lookups", K_TIME, NULL},
    SPEEDUP("cs_sales_lookup", "cold", "   strata speed-up, row store ÷ migrated: cold"),
    SPEEDUP("cs_sales_lookup", "warm", "   strata speed-up, row store ÷ migrated: warm"),
    /* JSON only: how far SQLite's floating-point Q1 sum was from the exact decimal, in units of 1e-4 */
    {"cs_li_q1_float_dev", "cs_li_q1", NULL, "1e-4", "query run", NULL, K_INFO, NULL},
};

static const phase_def phases[] = {
    {"li_load", NULL, NULL},
    {"li_load_row", NULL, NULL},
    {"li_migrate", NULL, NULL},
    {"sales_load", NULL, NULL},
    {"sales_load_row", NULL, NULL},
    {"li_q1_row", "li_load_row", "cs_load_li_row"},
    {"li_q1", "li_load", "cs_load_li"},
    {"li_q2_row", "li_load_row", "cs_load_li_row"},
    {"li_q2", "li_load", "cs_load_li"},
    {"li_q3_row", "li_load_row", "cs_load_li_row"},
    {"li_q3", "li_load", "cs_load_li"},
    {"sales_q1_row", "sales_load_row", "cs_load_sales_row"},
    {"sales_q1", "sales_load", "cs_load_sales"},
    {"sales_q2_row", "sales_load_row", "cs_load_sales_row"},
    {"sales_q2", "sales_load", "cs_load_sales"},
    {"sales_q3_row", "sales_load_row", "cs_load_sales_row"},
    {"sales_q3", "sales_load", "cs_load_sales"},
    {"li_lookup_row", "li_load_row", "cs_load_li_row"},
    {"li_lookup", "li_load", "cs_load_li"},
    {"sales_lookup_row", "sales_load_row", "cs_load_sales_row"},
    {"sales_lookup", "sales_load", "cs_load_sales"},
};

/* ---------------------------------------------------------------------------------------------
** The tables and their SQL. The schemas are the same text for every engine; strata's CREATE
** TABLE adds its WITH clause (storage_clause).
*/

#define LINEITEM_COLUMNS                                                                                     \
    "(l_orderkey BIGINT, l_partkey INTEGER, l_suppkey INTEGER, l_linenumber INTEGER, "                       \
    "l_quantity DECIMAL(15,2), l_extendedprice DECIMAL(15,2), l_discount DECIMAL(15,2), l_tax "              \
    "DECIMAL(15,2), "                                                                                        \
    "l_returnflag CHAR(1), l_linestatus CHAR(1), l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE, "   \
    "l_shipinstruct VARCHAR(25), l_shipmode VARCHAR(10), l_comment VARCHAR(44))"
#define LINEITEM_NCOLS 16
/* the sql suite's schema of sales (suite_sql.c) */
#define SALES_COLUMNS "(id INTEGER PRIMARY KEY, region INTEGER, qty INTEGER, price DOUBLE, day INTEGER)"
#define SALES_NCOLS 5

static const char *const li_index_sql = "CREATE INDEX li_orderkey ON lineitem(l_orderkey)";
static const char *const li_lookup_sql =
    "SELECT l_linenumber, l_quantity, l_extendedprice, l_comment FROM lineitem WHERE l_orderkey = ?";
static const char *const sales_lookup_sql = "SELECT region, qty, price, day FROM sales WHERE id = ?";

/* A scan query. sqlite_sql: SQLite's text where its dialect differs (it has no DATE literal; its
** dates are ISO text, so the string comparison is the same predicate). */
typedef struct scan_query {
    const char *workload, *phase, *sql, *sqlite_sql;
    int lineitem; /* 1: on lineitem, 0: on sales */
    int q;        /* 0..2 within its table */
} scan_query;

static const scan_query scans[6] = {
    {"cs_li_q1", "li_q1",
     "SELECT sum(l_extendedprice * (1 - l_discount)) FROM lineitem WHERE l_shipdate <= DATE '1998-09-02'",
     "SELECT sum(l_extendedprice * (1 - l_discount)) FROM lineitem WHERE l_shipdate <= '1998-09-02'", 1, 0},
    {"cs_li_q2", "li_q2",
     "SELECT l_returnflag, l_linestatus, count(*), sum(l_quantity) FROM lineitem GROUP BY 1, 2 ORDER BY 1, 2",
     NULL, 1, 1},
    {"cs_li_q3", "li_q3", "SELECT count(*) FROM lineitem WHERE l_quantity < 5", NULL, 1, 2},
    /* the sql suite's three queries, verbatim */
    {"cs_sales_q1", "sales_q1", "SELECT sum(price) FROM sales WHERE qty > 50", NULL, 0, 0},
    {"cs_sales_q2", "sales_q2", "SELECT region, count(*), sum(qty) FROM sales GROUP BY region", NULL, 0, 1},
    {"cs_sales_q3", "sales_q3", "SELECT sum(price * qty) FROM sales WHERE price * qty > 1000", NULL, 0, 2},
};

static int is_strata(const engine *e) { return !strncmp(e->name, "strata", 6); } /* strata, strata-t1 */
static int is_sqlite(const engine *e) { return !strncmp(e->name, "sqlite", 6); }

static const char *scan_sql(const engine *e, const scan_query *s) {
    return is_sqlite(e) && s->sqlite_sql ? s->sqlite_sql : s->sql;
}

/* The storage of strata's variants: the migrated tables are analytic ones ('column': every row
** group of a load in segments, its tail too); the row store; the tuple mover's table ('auto'). */
#define STORAGE_MIGRATED "column"
#define STORAGE_ROW "row"
#define STORAGE_MOVER "auto"

/* storage_clause writes strata's WITH clause for a table of the given storage. */
static void storage_clause(char *out, size_t n, const options *o, const char *storage) {
    uint64_t g = size_of(o, "cs_row_group");
    if (g != DEFAULT_GROUP_ROWS)
        snprintf(out, n, " WITH (storage = '%s', row_group_size = %llu)", storage, (unsigned long long)g);
    else
        snprintf(out, n, " WITH (storage = '%s')", storage);
}

/* ---------------------------------------------------------------------------------------------
** lineitem, after TPC-H's specification (clause 4.2.3): orders of 1-7 lines with sparse sorted
** keys (8 of every 32), order dates uniform over 1992-01-01 .. 1998-08-02, ship/commit/receipt
** dates after them, return flag and line status from the receipt and ship dates against
** 1995-06-17, part and supplier keys of a scale factor of rows / 6,000,000, extended price =
** quantity * the part's retail price, discount 0.00-0.10, tax 0.00-0.08, the spec's word lists,
** and a comment of 10-43 characters cut from a pool of text made of the spec's grammar words.
** Everything comes from the order's index through splitmix64, so that a row does not depend on
** how many rows follow it.
*/

static const char *const instructions[4] = {"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"};
static const char *const modes[7] = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};

typedef struct li_row {
    int64_t orderkey;
    int64_t partkey, suppkey, linenumber, quantity; /* quantity: a whole number */
    int64_t price_cents;                            /* l_extendedprice in cents */
    int64_t discount, tax;                          /* hundredths */
    char returnflag, linestatus;
    int32_t shipdate, commitdate, receiptdate;
    int instruct, mode;
    const char *comment;
    int comment_len;
} li_row;

typedef struct li_gen {
    uint64_t rows, row; /* rows to make, rows made */
    uint64_t order;     /* the current order's index */
    int lines, line;    /* its lines, the last one made */
    int32_t orderdate;
    uint64_t rng;
    uint64_t parts, suppliers;
} li_gen;

static char text_pool[POOL_BYTES];
static int text_pool_ready;

/* The pool of comment text: sentences of TPC-H's grammar words (clause 4.2.2.10), made once. */
static void text_pool_init(void) {
    static const char *const nouns[] = {
        "foxes",     "ideas",     "theodolites", "pinto beans", "instructions",   "dependencies",
        "excuses",   "platelets", "asymptotes",  "courts",      "dolphins",       "multipliers",
        "sauternes", "warthogs",  "frets",       "dinos",       "attainments",    "somas",
        "Tiresias",  "patterns",  "forges",      "braids",      "hockey players", "frays",
        "warhorses", "dugouts",   "notornis",    "epitaphs",    "pearls",         "tithes",
        "waters",    "orbits",    "gifts",       "sheaves",     "depths",         "sentiments",
        "decoys",    "realms",    "pains",       "grouches",    "escapades",      "accounts",
        "requests",  "packages",  "deposits"};
    static const char *const verbs[] = {
        "sleep",  "wake",   "are",       "cajole",   "haggle", "nag",   "use",     "boost",
        "affix",  "detect", "integrate", "maintain", "nod",    "was",   "lose",    "sublate",
        "solve",  "thrash", "promise",   "engage",   "hinder", "print", "x-ray",   "breach",
        "eat",    "grow",   "impress",   "mold",     "poach",  "serve", "run",     "dazzle",
        "snooze", "doze",   "unwind",    "kindle",   "play",   "hang",  "believe", "doubt"};
    static const char *const adjectives[] = {
        "furious",  "sly",     "careful", "blithe",  "quick",  "fluffy", "slow",     "quiet",
        "ruthless", "thin",    "close",   "dogged",  "daring", "brave",  "stealthy", "permanent",
        "enticing", "idle",    "busy",    "regular", "final",  "ironic", "even",     "bold",
        "silent",   "express", "pending", "special", "unusual"};
    static const char *const adverbs[] = {
        "sometimes", "always",    "never",   "furiously",  "slyly",       "carefully",  "blithely",
        "quickly",   "fluffily",  "slowly",  "quietly",    "ruthlessly",  "thinly",     "closely",
        "doggedly",  "daringly",  "bravely", "stealthily", "permanently", "enticingly", "idly",
        "busily",    "regularly", "finally", "ironically", "evenly",      "boldly",     "silently"};
    static const char *const prepositions[] = {
        "about",   "above", "according to", "across", "after",   "against", "along",   "among",
        "around",  "at",    "atop",         "before", "behind",  "beneath", "beside",  "between",
        "beyond",  "by",    "despite",      "during", "except",  "for",     "from",    "inside",
        "into",    "near",  "of",           "on",     "outside", "over",    "past",    "since",
        "through", "to",    "toward",       "under",  "until",   "upon",    "without", "with"};
    static const char *const terminators[] = {".", ";", ":", "?", "!", "--"};
#define PICK(list) list[below(&s, sizeof list / sizeof list[0])]
    uint64_t s = 0x7E57C0DE;
    size_t n = 0;
    while (n < POOL_BYTES) {
        char sentence[256];
        int len;
        if (below(&s, 2))
            len =
                snprintf(sentence, sizeof sentence, "%s %s %s %s the %s %s%s ", PICK(adjectives), PICK(nouns),
                         PICK(verbs), PICK(prepositions), PICK(adjectives), PICK(nouns), PICK(terminators));
        else
            len = snprintf(sentence, sizeof sentence, "%s %s %s %s%s ", PICK(nouns), PICK(adverbs),
                           PICK(verbs), PICK(adverbs), PICK(terminators));
        for (int i = 0; i < len && n < POOL_BYTES; i++)
            text_pool[n++] = sentence[i];
    }
#undef PICK
    text_pool_ready = 1;
}

static int64_t orderkey_of(uint64_t order) { return (int64_t)((order / 8) * 32 + order % 8 + 1); }

static void li_gen_init(li_gen *g, uint64_t rows) {
    if (!text_pool_ready) text_pool_init();
    memset(g, 0, sizeof *g);
    g->rows = rows;
    g->order = UINT64_MAX;                      /* the first row starts order 0 */
    g->parts = rows / 30 ? rows / 30 : 1;       /* SF * 200,000 with SF = rows / 6,000,000 */
    g->suppliers = rows / 600 ? rows / 600 : 1; /* SF * 10,000 */
}

/* The retail price of a part in cents (P_RETAILPRICE of clause 4.2.3). */
static int64_t retail_cents(int64_t partkey) {
    return 90000 + (partkey / 10) % 20001 + 100 * (partkey % 1000);
}

/* li_next makes the next row into *r; 0 when all rows are made. r->comment points into the
** pool. Every line draws the same number of random values, whatever their outcome. */
static int li_next(li_gen *g, li_row *r) {
    static const int32_t current_date = 9298; /* 1995-06-17 */
    static const int32_t start_date = 8035;   /* 1992-01-01 */
    static const int32_t order_days = 2405;   /* 1992-01-01 .. 1998-08-02 */
    if (g->row == g->rows) return 0;
    if (g->order == UINT64_MAX || g->line == g->lines) {
        g->order++;
        g->rng = g->order * 0xD1B54A32D192ED03u ^ 0x11E17E3u;
        g->lines = 1 + (int)below(&g->rng, 7);
        g->orderdate = start_date + (int32_t)below(&g->rng, order_days);
        g->line = 0;
    }
    uint64_t *s = &g->rng;
    g->line++;
    g->row++;
    r->orderkey = orderkey_of(g->order);
    r->linenumber = g->line;
    r->partkey = 1 + (int64_t)below(s, g->parts);
    int64_t sup = (int64_t)g->suppliers, i = (int64_t)below(s, 4);
    r->suppkey = (r->partkey + i * (sup / 4 + (r->partkey - 1) / sup)) % sup + 1;
    r->quantity = 1 + (int64_t)below(s, 50);
    r->price_cents = r->quantity * retail_cents(r->partkey);
    r->discount = (int64_t)below(s, 11);
    r->tax = (int64_t)below(s, 9);
    r->shipdate = g->orderdate + 1 + (int32_t)below(s, 121);
    r->commitdate = g->orderdate + 30 + (int32_t)below(s, 61);
    r->receiptdate = r->shipdate + 1 + (int32_t)below(s, 30);
    int ra = (int)below(s, 2);
    r->returnflag = r->receiptdate <= current_date ? (ra ? 'R' : 'A') : 'N';
    r->linestatus = r->shipdate > current_date ? 'O' : 'F';
    r->instruct = (int)below(s, 4);
    r->mode = (int)below(s, 7);
    r->comment_len = COMMENT_MIN + (int)below(s, COMMENT_MAX - COMMENT_MIN + 1);
    r->comment = text_pool + below(s, POOL_BYTES - COMMENT_MAX);
    return 1;
}


/* ---------------------------------------------------------------------------------------------
** Loads.
*/

static int load_lineitem(const engine *e, void *db, uint64_t rows) {
    void *ld = NULL;
    li_gen g;
    li_row r;
    char ship[11], commit[11], receipt[11];
    li_gen_init(&g, rows);
    if (e->load_begin(db, "lineitem", LINEITEM_NCOLS, &ld))
        return wl_fail(e, db, "begin the load of lineitem");
    while (li_next(&g, &r)) {
        date_text(ship, r.shipdate);
        date_text(commit, r.commitdate);
        date_text(receipt, r.receiptdate);
        const char *ins = instructions[r.instruct], *mode = modes[r.mode];
        if (e->load_int64(ld, r.orderkey) || e->load_int64(ld, r.partkey) || e->load_int64(ld, r.suppkey) ||
            e->load_int64(ld, r.linenumber) || e->load_double(ld, (double)r.quantity) ||
            e->load_double(ld, (double)r.price_cents / 100) || e->load_double(ld, (double)r.discount / 100) ||
            e->load_double(ld, (double)r.tax / 100) || e->load_text(ld, &r.returnflag, 1) ||
            e->load_text(ld, &r.linestatus, 1) || e->load_text(ld, ship, 10) ||
            e->load_text(ld, commit, 10) || e->load_text(ld, receipt, 10) ||
            e->load_text(ld, ins, (int)strlen(ins)) || e->load_text(ld, mode, (int)strlen(mode)) ||
            e->load_text(ld, r.comment, r.comment_len) || e->load_end_row(ld)) {
            wl_fail(e, db, "load a row of lineitem");
            e->load_abort(ld);
            return -1;
        }
    }
    if (e->load_finish(ld)) return wl_fail(e, db, "finish the load of lineitem");
    return 0;
}

/* A table of the suite: what its phases need to create, load and name it. */
typedef struct table_load {
    const char *key;       /* "li" or "sales", in workload and figure ids (cs_load_<key>, ...) */
    const char *table;     /* its SQL name */
    const char *columns;   /* the column list of CREATE TABLE, the same for every engine */
    const char *rows_size; /* the size that gives its rows */
    int (*load)(const engine *e, void *db, uint64_t rows); /* the bulk load; -1 with the message */
} table_load;

static const table_load tables[2] = {
    {"li", "lineitem", LINEITEM_COLUMNS, "cs_li_rows", load_lineitem},
    {"sales", "sales", SALES_COLUMNS, "cs_sales_rows", sales_load},
};

/* The database file of a table and variant in dir. */
static void table_path(char *out, size_t n, const char *dir, const table_load *t, int row) {
    char name[64];
    snprintf(name, sizeof name, "cs_%s%s", t->key, row ? "_row" : "");
    db_path(out, n, dir, name);
}

/* ---------------------------------------------------------------------------------------------
** storage_info: the segments of the migrated table, summed per column.
*/

typedef struct seg_column {
    char name[64];
    uint64_t rows, compressed, uncompressed;
    int nenc;
    char enc[MAX_ENCODINGS][32];
    int enc_count[MAX_ENCODINGS];
} seg_column;

typedef struct storage_summary {
    seg_column cols[MAX_SEG_COLS];
    int ncols;
    uint64_t rowstore_rows, rowstore_bytes, migrated_rows, compressed, uncompressed;
} storage_summary;

static seg_column *seg_column_of(storage_summary *s, const char *name) {
    for (int i = 0; i < s->ncols; i++)
        if (!strcmp(s->cols[i].name, name)) return &s->cols[i];
    if (s->ncols == MAX_SEG_COLS) return NULL;
    seg_column *c = &s->cols[s->ncols++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    return c;
}

/* read_storage_info sums storage_info of table into *s: 0, or -1 with the message recorded. */
static int read_storage_info(const engine *e, void *db, const char *table, storage_summary *s) {
    char sql[256];
    void *st = NULL;
    int rc, len;
    memset(s, 0, sizeof *s);
    snprintf(sql, sizeof sql,
             "SELECT row_group, \"column\", rows, encoding, compressed_bytes, uncompressed_bytes "
             "FROM pragma_storage_info('%s')",
             table);
    if (e->prepare(db, sql, &st)) return wl_fail(e, db, sql);
    while ((rc = e->step(st)) == 1) {
        uint64_t rows = (uint64_t)e->column_int64(st, 2), cbytes = (uint64_t)e->column_int64(st, 4);
        if (e->column_is_null(st, 0)) { /* the rows still in the row store */
            s->rowstore_rows += rows, s->rowstore_bytes += cbytes;
            continue;
        }
        char name[64], enc[32];
        const char *t = e->column_text(st, 1, &len);
        snprintf(name, sizeof name, "%.*s", t ? len : 0, t ? t : "");
        t = e->column_text(st, 3, &len);
        snprintf(enc, sizeof enc, "%.*s", t ? len : 0, t ? t : "");
        seg_column *c = seg_column_of(s, name);
        if (c == NULL) {
            e->finalize(st);
            return wl_failf("storage_info of %s: more than %d columns", table, MAX_SEG_COLS);
        }
        uint64_t ubytes = (uint64_t)e->column_int64(st, 5);
        c->rows += rows, c->compressed += cbytes, c->uncompressed += ubytes;
        s->compressed += cbytes, s->uncompressed += ubytes;
        if (!strcmp(name, "rowid")) s->migrated_rows += rows;
        int k = 0;
        while (k < c->nenc && strcmp(c->enc[k], enc))
            k++;
        if (k == c->nenc && k < MAX_ENCODINGS) snprintf(c->enc[c->nenc++], sizeof c->enc[0], "%s", enc);
        if (k < c->nenc) c->enc_count[k]++;
    }
    e->finalize(st);
    if (rc < 0) return wl_fail(e, db, sql);
    return 0;
}

/* check_storage: after CHECKPOINT every full row group has migrated and each row is in exactly
** one store. Returns 0, or -1 with the message recorded. */
/* The rows of a table that strata keeps in row groups after a CHECKPOINT: every full row group,
** and after a load by its appender (bulk) also the tail when it is at least a quarter of a row
** group and 8192 rows (the bulk path's rule, docs/ARCHITECTURE.md). */
static uint64_t rows_in_groups(uint64_t rows, uint64_t group, int bulk) {
    uint64_t full = rows / group * group, tail = rows - full, min = group / 4 > 8192 ? group / 4 : 8192;
    return bulk && tail >= min ? rows : full;
}

static int check_storage(const storage_summary *s, const char *table, uint64_t rows, uint64_t group, int bulk) {
    uint64_t want = rows_in_groups(rows, group, bulk);
    if (s->migrated_rows != want || s->rowstore_rows != rows - want)
        return wl_failf("storage_info of %s after CHECKPOINT: %llu rows in row groups and %llu in the row "
                        "store; expected %llu and %llu (row groups of %llu rows)",
                        table, (unsigned long long)s->migrated_rows, (unsigned long long)s->rowstore_rows,
                        (unsigned long long)want, (unsigned long long)(rows - want),
                        (unsigned long long)group);
    for (int i = 0; i < s->ncols; i++)
        if (s->cols[i].rows != s->migrated_rows)
            return wl_failf("storage_info of %s: column %s has %llu rows in segments, the rowids %llu", table,
                            s->cols[i].name, (unsigned long long)s->cols[i].rows,
                            (unsigned long long)s->migrated_rows);
    return 0;
}

/* write_storage_file writes the per-column summary to <dir>/storage_info-<table>.txt (kept with
** --keep), for bench/README.md's table of encodings. */
static void write_storage_file(const storage_summary *s, const char *dir, const char *table) {
    char path[4300];
    snprintf(path, sizeof path, "%s/storage_info-%s.txt", dir, table);
    FILE *f = fopen(path, "w");
    if (f == NULL) return;
    fprintf(
        f,
        "| column | encodings (segments) | compressed bytes | uncompressed bytes | ratio | bytes/value |\n");
    fprintf(f, "|---|---|---|---|---|---|\n");
    for (int i = 0; i < s->ncols; i++) {
        const seg_column *c = &s->cols[i];
        char enc[300] = "";
        size_t n = 0;
        for (int k = 0; k < c->nenc && n < sizeof enc; k++)
            n += (size_t)snprintf(enc + n, sizeof enc - n, "%s%s ×%d", k ? ", " : "", c->enc[k],
                                  c->enc_count[k]);
        fprintf(f, "| %s | %s | %llu | %llu | %.2f | %.2f |\n", c->name, enc,
                (unsigned long long)c->compressed, (unsigned long long)c->uncompressed,
                c->compressed ? (double)c->uncompressed / (double)c->compressed : 0,
                c->rows ? (double)c->compressed / (double)c->rows : 0);
    }
    fprintf(f, "\nrow groups: %llu rows; row store: %llu rows in %llu bytes of pages\n",
            (unsigned long long)s->migrated_rows, (unsigned long long)s->rowstore_rows,
            (unsigned long long)s->rowstore_bytes);
    fclose(f);
}

/* compress_figures records the compression figures of *s under cs_<key>_... */
static void compress_figures(const storage_summary *s, const char *key) {
    char id[128];
    snprintf(id, sizeof id, "cs_%s_rowstore_rows", key);
    put_metric(id, (double)s->rowstore_rows);
    snprintf(id, sizeof id, "cs_%s_rowstore_bytes", key);
    put_metric(id, (double)s->rowstore_bytes);
    snprintf(id, sizeof id, "cs_%s_segment_bytes", key);
    put_metric(id, (double)s->compressed);
    if (s->compressed) {
        snprintf(id, sizeof id, "cs_%s_ratio_all", key);
        put_metric(id, (double)s->uncompressed / (double)s->compressed);
    }
    for (int i = 0; i < s->ncols; i++) {
        const seg_column *c = &s->cols[i];
        snprintf(id, sizeof id, "cs_%s_cbytes_%s", key, c->name);
        put_metric(id, (double)c->compressed);
        snprintf(id, sizeof id, "cs_%s_ubytes_%s", key, c->name);
        put_metric(id, (double)c->uncompressed);
        if (c->compressed) {
            snprintf(id, sizeof id, "cs_%s_ratio_%s", key, c->name);
            put_metric(id, (double)c->uncompressed / (double)c->compressed);
        }
    }
}

/* ---------------------------------------------------------------------------------------------
** The load phases.
*/

/* CREATE TABLE (strata: with the WITH clause of the variant) and the bulk load, timed. */
static int create_and_load(const engine *e, void *db, const options *o, const table_load *t, const char *storage,
                           double *ms) {
    char sql[1024], with[128] = "";
    if (is_strata(e)) storage_clause(with, sizeof with, o, storage);
    snprintf(sql, sizeof sql, "CREATE TABLE %s%s%s", t->table, t->columns, with);
    if (e->exec(db, sql)) return wl_fail(e, db, sql);
    peak_reset();
    uint64_t t0 = now_ns();
    if (t->load(e, db, size_of(o, t->rows_size))) return -1;
    *ms = ms_since(t0);
    return 0;
}

/* The load workload of the migrated variant (and of the other engines): its time and rate. */
static int wl_load(const engine *e, void *db, const options *o, const table_load *t, double *ms) {
    char id[96];
    if (create_and_load(e, db, o, t, STORAGE_MIGRATED, ms)) return -1;
    snprintf(id, sizeof id, "cs_load_%s_ms", t->key);
    put_metric(id, *ms);
    snprintf(id, sizeof id, "cs_load_%s_rows_s", t->key);
    put_metric(id, (double)size_of(o, t->rows_size) / (*ms / 1e3));
    snprintf(id, sizeof id, "cs_load_%s", t->key);
    put_peak(id);
    return 0;
}

/* strata: `CHECKPOINT <table>`, timed into *ms, with storage_info before (*before: the rows in
** row groups after the load) and after (*after, checked: every full row group migrated, and the
** tail of a bulk load as rows_in_groups says). */
static int migrate(const engine *e, void *db, const options *o, const table_load *t, int bulk, double *ms,
                   uint64_t *before, storage_summary *after) {
    storage_summary s;
    char sql[128];
    if (read_storage_info(e, db, t->table, &s)) return -1;
    *before = s.migrated_rows;
    snprintf(sql, sizeof sql, "CHECKPOINT %s", t->table);
    peak_reset();
    uint64_t t0 = now_ns();
    if (e->exec(db, sql)) return wl_fail(e, db, sql);
    *ms = ms_since(t0);
    if (read_storage_info(e, db, t->table, after)) return -1;
    return check_storage(after, t->table, size_of(o, t->rows_size), size_of(o, "cs_row_group"), bulk);
}

/* cs_migrate_li: lineitem's CHECKPOINT and its throughput. */
static int wl_migrate_li(const engine *e, void *db, const options *o, double *ms, storage_summary *after) {
    uint64_t before;
    if (migrate(e, db, o, &tables[0], 0, ms, &before, after)) return -1;
    put_peak("cs_migrate_li");
    uint64_t moved = after->migrated_rows - before;
    put_metric("cs_migrate_li_rows", (double)moved);
    put_metric("cs_migrate_li_ms", *ms);
    if (moved) put_metric("cs_migrate_li_rows_s", (double)moved / (*ms / 1e3));
    return 0;
}

/* cs_compress_<key>: storage_info's figures, and its per-column file. */
static int wl_compress(const storage_summary *s, const char *dir, const table_load *t) {
    compress_figures(s, t->key);
    if (strcmp(t->key, "sales") == 0) put_metric("cs_sales_migrated", (double)s->migrated_rows);
    write_storage_file(s, dir, t->table);
    return 0;
}

/* A workload that already succeeded fails after all (what it made cannot be used): an error
** line after its "done" marks it failed, and the phases that need it are skipped. */
static void fail_afterwards(const char *w, const char *why) {
    workload_begin(w, 1);
    workload_end(w, wl_failf("%s", why));
}

/* The migrated variant (and the only one of the other engines): the load (strata's appender
** writes every full row group straight into segments); strata's CHECKPOINT (part of the load: it
** finds nothing left to migrate, checked) and storage_info; close; the file's size. */
static void phase_load(const engine *e, const options *o, const char *dir, const table_load *t) {
    char path[4200], w_load[64], w_compress[64], id[96];
    snprintf(w_load, sizeof w_load, "cs_load_%s", t->key);
    snprintf(w_compress, sizeof w_compress, "cs_compress_%s", t->key);
    const char *const ws[2] = {w_load, w_compress};
    int nws = 2;
    table_path(path, sizeof path, dir, t, 0);
    remove_db(path);
    if (!is_strata(e)) {
        for (int i = 1; i < nws; i++)
            not_applicable(ws[i], "strata only");
    }
    void *db = open_db(e, path, ws, is_strata(e) ? nws : 1);
    if (db == NULL) return;
    double load_ms = 0, migrate_ms = 0;
    /* the scans and lookups read this table: it is loaded whether or not its time is asked for */
    if (RUN_ALWAYS(w_load, wl_load(e, db, o, t, &load_ms))) {
        e->close(db);
        if (is_strata(e)) skip_workloads(ws + 1, nws - 1, "the load failed");
        return;
    }
    if (is_strata(e)) {
        storage_summary s;
        uint64_t before;
        /* the CHECKPOINT always runs: the scans of the migrated variant need every full row group
        ** in segments */
        int rc = migrate(e, db, o, t, 1, &migrate_ms, &before, &s);
        if (rc == 0 && t == &tables[0]) put_metric("cs_li_commit_migrated", (double)before);
        if (rc) {
            char why[1100];
            snprintf(why, sizeof why, "the CHECKPOINT that migrates its rows failed: %s", wl_message());
            fail_afterwards(w_load, why);
            skip_workloads(ws + 1, 1, "the CHECKPOINT failed");
            e->close(db);
            return;
        }
        RUN(w_compress, wl_compress(&s, dir, t));
    }
    uint64_t t0 = now_ns();
    e->close(db);
    double close_ms = ms_since(t0);
    snprintf(id, sizeof id, "cs_load_%s_final_ms", t->key);
    put_metric(id, load_ms + migrate_ms + close_ms);
    double bytes = db_size(path);
    snprintf(id, sizeof id, "cs_%s_bytes", t->key);
    put_metric(id, bytes);
    snprintf(id, sizeof id, "cs_%s_bytes_per_row", t->key);
    put_metric(id, bytes / (double)size_of(o, t->rows_size));
    snprintf(id, sizeof id, "cs_%s_main_bytes", t->key);
    put_metric(id, file_size(path));
}

/* The tuple mover's workload, strata only, in a database of its own: lineitem (storage 'auto')
** loaded by prepared INSERTs in one transaction (the rows go to the row store; the commit moves
** one full row group), then `CHECKPOINT lineitem`, timed: cs_migrate_li. */
static void phase_migrate(const engine *e, const options *o, const char *dir) {
    const char *const ws[1] = {"cs_migrate_li"};
    if (!is_strata(e)) return not_applicable(ws[0], "strata only");
    char path[4200];
    db_path(path, sizeof path, dir, "cs_li_migrate");
    remove_db(path);
    void *db = open_db(e, path, ws, 1);
    if (db == NULL) return;
    double ms = 0;
    storage_summary s;
    RUN(ws[0], create_and_load(&engine_strata_rows, db, o, &tables[0], STORAGE_MOVER, &ms) ? -1
                                                                                : wl_migrate_li(e, db, o, &ms, &s));
    e->close(db);
}

/* The row-store variant, strata only: storage = 'row', the same rows, close, the size. */
static int wl_load_row(const engine *e, void *db, const options *o, const table_load *t) {
    char w[64], id[96];
    double ms;
    snprintf(w, sizeof w, "cs_load_%s_row", t->key);
    if (create_and_load(e, db, o, t, STORAGE_ROW, &ms)) return -1;
    snprintf(id, sizeof id, "cs_load_%s_row_ms", t->key);
    put_metric(id, ms);
    put_peak(w);
    return 0;
}

static void phase_load_row(const engine *e, const options *o, const char *dir, const table_load *t) {
    char path[4200], w[64], id[96];
    snprintf(w, sizeof w, "cs_load_%s_row", t->key);
    if (!is_strata(e)) return not_applicable(w, "strata only");
    table_path(path, sizeof path, dir, t, 1);
    remove_db(path);
    const char *const ws[1] = {w};
    void *db = open_db(e, path, ws, 1);
    if (db == NULL) return;
    int rc = RUN_ALWAYS(w, wl_load_row(e, db, o, t));
    e->close(db);
    if (rc) return;
    double bytes = db_size(path);
    snprintf(id, sizeof id, "cs_%s_row_bytes", t->key);
    put_metric(id, bytes);
    snprintf(id, sizeof id, "cs_%s_row_bytes_per_row", t->key);
    put_metric(id, bytes / (double)size_of(o, t->rows_size));
}

/* ---------------------------------------------------------------------------------------------
** Expected results, from the generators.
*/

/* A DECIMAL value in units of 10^-scale. Exact engines give their exact text, parsed here;
** SQLite's REAL goes through its double. *exact says which. Returns 0, or -1 for a NULL or a text
** that is not a plain decimal. */
static int decimal_units(const engine *e, void *stmt, int col, int scale, int64_t *units, int *exact) {
    if (e->column_is_null(stmt, col)) return -1;
    *exact = !is_sqlite(e);
    if (!*exact) {
        *units = llround(e->column_double(stmt, col) * pow(10, scale));
        return 0;
    }
    int len;
    const char *t = e->column_text(stmt, col, &len);
    if (t == NULL) return -1;
    int i = 0, neg = 0, frac = -1;
    int64_t v = 0;
    if (i < len && (t[i] == '-' || t[i] == '+')) neg = t[i++] == '-';
    for (; i < len; i++) {
        if (t[i] == '.' && frac < 0) {
            frac = 0;
            continue;
        }
        if (t[i] < '0' || t[i] > '9') return -1;
        if (frac >= 0 && ++frac > scale) {
            if (t[i] != '0') return -1; /* more digits than the scale */
            continue;
        }
        v = v * 10 + (t[i] - '0');
    }
    for (int k = frac < 0 ? 0 : frac; k < scale; k++)
        v *= 10;
    *units = neg ? -v : v;
    return 0;
}

/* The results of the three lineitem queries. */
typedef struct li_answers {
    int64_t q1_units;                     /* sum(l_extendedprice * (1 - l_discount)), 10^-4 */
    int64_t q2_count[3][2], q2_qty[3][2]; /* [A, N, R][F, O]: count(*), sum(l_quantity) */
    int64_t q3_count;
} li_answers;

static const char flags[3] = {'A', 'N', 'R'}, statuses[2] = {'F', 'O'};

static void li_expected(const options *o, li_answers *a) {
    li_gen g;
    li_row r;
    int32_t q1_date = days_from_civil(1998, 9, 2);
    memset(a, 0, sizeof *a);
    li_gen_init(&g, size_of(o, "cs_li_rows"));
    while (li_next(&g, &r)) {
        if (r.shipdate <= q1_date) a->q1_units += r.price_cents * (100 - r.discount);
        int f = r.returnflag == 'A' ? 0 : r.returnflag == 'N' ? 1 : 2, s = r.linestatus == 'O';
        a->q2_count[f][s]++, a->q2_qty[f][s] += r.quantity;
        a->q3_count += r.quantity < 5;
    }
}

static uint64_t q2_row_hash(int flag, int status, int64_t count, int64_t qty_cents) {
    return mix(mix(mix(mix(0, (uint64_t)flag), (uint64_t)status), (uint64_t)count), (uint64_t)qty_cents) &
           MASK52;
}

static checksum li_checksum(int q, const li_answers *a) {
    checksum c = {0};
    if (q == 0) {
        c.a = 1, c.b = (uint64_t)a->q1_units & MASK52, c.c = (uint64_t)a->q1_units >> 52;
    } else if (q == 1) {
        for (int f = 0; f < 3; f++)
            for (int s = 0; s < 2; s++)
                if (a->q2_count[f][s])
                    c.a++, c.b += (uint64_t)a->q2_count[f][s],
                        c.c = (c.c +
                               q2_row_hash(flags[f], statuses[s], a->q2_count[f][s], a->q2_qty[f][s] * 100)) &
                              MASK52;
    } else {
        c.a = 1, c.b = (uint64_t)a->q3_count;
    }
    return c;
}

/* The sql suite's expected results of its three queries (suite_sql.c, query_expected). */
static uint64_t sales_group_hash(int64_t region, int64_t count, int64_t sum_qty) {
    return mix(mix(mix(0, (uint64_t)region), (uint64_t)count), (uint64_t)sum_qty) & MASK52;
}

static checksum sales_checksum(int q, const options *o) { return sales_expected(q, size_of(o, "cs_sales_rows")); }

/* ---------------------------------------------------------------------------------------------
** Scans.
*/

/* What a run of a scan needs: the query, the exact Q1 answer, and SQLite's deviation from it. */
typedef struct scan_run {
    const scan_query *sq;
    int64_t q1_units;
    double q1_dev; /* |SQLite's Q1 - exact| in 10^-4, the largest of its runs */
} scan_run;

/* One run of the prepared scan to its end, folded into *c as the expected checksum is. */
static int run_scan(const engine *e, void *stmt, scan_run *sr, checksum *c) {
    int rc, q = sr->sq->q;
    memset(c, 0, sizeof *c);
    while ((rc = e->step(stmt)) == 1) {
        c->a++;
        if (!sr->sq->lineitem) {
            if (q == 1) {
                int64_t count = e->column_int64(stmt, 1);
                c->b += (uint64_t)count;
                c->c = (c->c + sales_group_hash(e->column_int64(stmt, 0), count, e->column_int64(stmt, 2))) &
                       MASK52;
            } else {
                uint64_t u = double_bits(e->column_double(stmt, 0));
                c->b = u >> 12, c->c = u & 0xFFF;
            }
        } else if (q == 0) {
            int64_t units;
            int exact;
            if (decimal_units(e, stmt, 0, 4, &units, &exact)) return wl_failf("Q1: the sum is not a decimal");
            if (!exact) { /* SQLite: a REAL sum, accepted within INEXACT_REL of the exact one */
                double dev = fabs((double)(units - sr->q1_units));
                if (dev > sr->q1_dev) sr->q1_dev = dev;
                if (dev <= INEXACT_REL * fabs((double)sr->q1_units)) units = sr->q1_units;
            }
            c->b = (uint64_t)units & MASK52, c->c = (uint64_t)units >> 52;
        } else if (q == 1) {
            int lf, ls, exact;
            const char *f = e->column_text(stmt, 0, &lf), *s = e->column_text(stmt, 1, &ls);
            int64_t count = e->column_int64(stmt, 2), qty;
            if (decimal_units(e, stmt, 3, 2, &qty, &exact))
                return wl_failf("Q2: sum(l_quantity) is not a decimal");
            c->b += (uint64_t)count;
            c->c = (c->c + q2_row_hash(f && lf ? f[0] : 0, s && ls ? s[0] : 0, count, qty)) & MASK52;
        } else {
            c->b = (uint64_t)e->column_int64(stmt, 0);
        }
    }
    return rc < 0 ? -1 : 0;
}

/* scan_fn runs a prepared scan for time_query_runs. */
static int scan_fn(const engine *e, void *stmt, void *arg, checksum *c) { return run_scan(e, stmt, arg, c); }

/* timed_scan times a query as time_query (harness.c) does -- SELECT 1 first, then the first run
** (prepare included: "cold", the engine's cache empty after open), then `runs` runs of the
** prepared statement ("warm", median) -- and returns both figures. Every run must match want. */
static int timed_scan(const engine *e, void *db, const char *w, scan_run *sr, int runs, const checksum *want,
                      double *cold, double *warm) {
    return time_query_runs(e, db, w, scan_sql(e, sr->sq), runs, scan_fn, sr, want, cold, warm);
}

/* The file in which a row-store phase leaves its cold and warm times for the migrated phase. */
static void row_times_path(char *out, size_t n, const char *dir, const char *w) {
    snprintf(out, n, "%s/cs-row-times-%s.txt", dir, w);
}

static void save_row_times(const char *dir, const char *w, double cold, double warm) {
    char path[4300];
    row_times_path(path, sizeof path, dir, w);
    FILE *f = fopen(path, "w");
    if (f == NULL) die("cannot write %s: %s", path, strerror(errno));
    fprintf(f, "%.17g %.17g\n", cold, warm);
    fclose(f);
}

/* speedups records w_speedup_cold/_warm = row store ÷ migrated when the row-store phase of this
** repetition left its times. */
static void speedups(const char *dir, const char *w, const char *w_row, double cold, double warm) {
    char path[4300], id[128];
    double rc, rw;
    row_times_path(path, sizeof path, dir, w_row);
    FILE *f = fopen(path, "r");
    if (f == NULL) return;
    int n = fscanf(f, "%lf %lf", &rc, &rw);
    fclose(f);
    if (n != 2 || cold <= 0 || warm <= 0) return;
    snprintf(id, sizeof id, "%s_speedup_cold", w);
    put_metric(id, rc / cold);
    snprintf(id, sizeof id, "%s_speedup_warm", w);
    put_metric(id, rw / warm);
}

static int wl_scan(const engine *e, void *db, const options *o, const char *dir, const scan_query *sq,
                   int row) {
    char w[64], id[128];
    snprintf(w, sizeof w, "%s%s", sq->workload, row ? "_row" : "");
    scan_run sr = {.sq = sq};
    checksum want;
    if (sq->lineitem) {
        li_answers a;
        li_expected(o, &a);
        sr.q1_units = a.q1_units;
        want = li_checksum(sq->q, &a);
    } else {
        want = sales_checksum(sq->q, o);
    }
    double cold, warm;
    if (timed_scan(e, db, w, &sr, (int)size_of(o, "cs_query_runs"), &want, &cold, &warm)) return -1;
    snprintf(id, sizeof id, "%s_cold_ms", w);
    put_metric(id, cold);
    snprintf(id, sizeof id, "%s_warm_ms", w);
    put_metric(id, warm);
    if (sq->lineitem && sq->q == 0 && is_sqlite(e)) put_metric("cs_li_q1_float_dev", sr.q1_dev);
    if (is_strata(e) && row) save_row_times(dir, w, cold, warm);
    if (is_strata(e) && !row) {
        char w_row[64];
        snprintf(w_row, sizeof w_row, "%s_row", sq->workload);
        speedups(dir, sq->workload, w_row, cold, warm);
    }
    return 0;
}

static void phase_scan(const engine *e, const options *o, const char *dir, const scan_query *sq, int row) {
    char w[64], path[4200];
    snprintf(w, sizeof w, "%s%s", sq->workload, row ? "_row" : "");
    if (row && !is_strata(e)) return not_applicable(w, "strata only");
    table_path(path, sizeof path, dir, &tables[sq->lineitem ? 0 : 1], row);
    const char *ws[1] = {w};
    void *db = open_db(e, path, ws, 1);
    if (db == NULL) return;
    RUN(w, wl_scan(e, db, o, dir, sq, row));
    e->close(db);
}

/* ---------------------------------------------------------------------------------------------
** Lookups. The keys are those of rows that strata migrated (the first rows / row group * row
** group rows loaded), the same keys for every engine and variant.
*/

/* A lineitem lookup row: its order key and values folded; the sums make the order of rows free. */
static void fold_li_lookup(checksum *c, int64_t key, int64_t line, int64_t qty_cents, int64_t price_cents,
                           const char *comment, int len) {
    uint64_t h =
        mix(mix(mix(mix(0, (uint64_t)key), (uint64_t)line), (uint64_t)qty_cents), (uint64_t)price_cents);
    c->a++, c->b = (c->b + h) & MASK52, c->c += sum_bytes(comment, (size_t)len) + (uint64_t)len;
}

static void fold_sales_lookup(checksum *c, const sale *s) {
    uint64_t h =
        mix(mix(mix(mix(0, (uint64_t)s->id), (uint64_t)s->region), (uint64_t)s->qty), double_bits(s->price));
    c->a++, c->b = (c->b + h) & MASK52, c->c += (uint64_t)s->day;
}

/* The lookups of one workload: keys, and the checksum of one pass over them. */
typedef struct lookup_set {
    int64_t *keys;
    uint64_t n;
    checksum want;
} lookup_set;

static void li_lookups(const options *o, lookup_set *ls) {
    uint64_t rows = size_of(o, "cs_li_rows"), group = size_of(o, "cs_row_group");
    uint64_t migrated = rows / group * group, eligible = 0;
    li_gen g;
    li_row r;
    /* the orders whose every line is among the migrated rows (all orders when none migrated) */
    li_gen_init(&g, migrated ? migrated : rows);
    uint64_t last_order = 0;
    while (li_next(&g, &r))
        last_order = g.order;
    eligible = migrated && migrated < rows ? last_order : last_order + 1; /* the last may go on past */
    if (eligible == 0) eligible = 1;
    checksum *per_order = calloc(eligible, sizeof *per_order);
    ls->n = size_of(o, "cs_lookups");
    ls->keys = malloc(ls->n * sizeof *ls->keys);
    if (per_order == NULL || ls->keys == NULL) die("out of memory");
    li_gen_init(&g, rows);
    while (li_next(&g, &r) && g.order < eligible)
        fold_li_lookup(&per_order[g.order], r.orderkey, r.linenumber, r.quantity * 100, r.price_cents,
                       r.comment, r.comment_len);
    memset(&ls->want, 0, sizeof ls->want);
    uint64_t rng = 0x100C0075u;
    for (uint64_t i = 0; i < ls->n; i++) {
        uint64_t order = below(&rng, eligible);
        ls->keys[i] = orderkey_of(order);
        checksum_add(&ls->want, &per_order[order]);
    }
    ls->want.b &= MASK52;
    free(per_order);
}

static void sales_lookups(const options *o, lookup_set *ls) {
    uint64_t rows = size_of(o, "cs_sales_rows"), group = size_of(o, "cs_row_group");
    uint64_t migrated = rows / group * group, rng = 0x5A1E5100u;
    ls->n = size_of(o, "cs_lookups");
    ls->keys = malloc(ls->n * sizeof *ls->keys);
    if (ls->keys == NULL) die("out of memory");
    memset(&ls->want, 0, sizeof ls->want);
    for (uint64_t i = 0; i < ls->n; i++) {
        ls->keys[i] = (int64_t)below(&rng, migrated ? migrated : rows);
        sale s = sale_for((uint64_t)ls->keys[i]);
        fold_sales_lookup(&ls->want, &s);
    }
}

/* One pass over the keys with the prepared lookup, each an autocommit read. */
static int lookup_pass(const engine *e, void *stmt, int lineitem, const lookup_set *ls, checksum *got) {
    memset(got, 0, sizeof *got);
    for (uint64_t i = 0; i < ls->n; i++) {
        int rc;
        if (e->reset(stmt) || e->bind_int64(stmt, 1, ls->keys[i])) return -1;
        while ((rc = e->step(stmt)) == 1) {
            if (lineitem) {
                int64_t qty, price;
                int exact, len;
                if (decimal_units(e, stmt, 1, 2, &qty, &exact) ||
                    decimal_units(e, stmt, 2, 2, &price, &exact))
                    return wl_failf("a lookup's l_quantity or l_extendedprice is not a decimal");
                const char *comment = e->column_text(stmt, 3, &len);
                if (comment == NULL) return -1;
                fold_li_lookup(got, ls->keys[i], e->column_int64(stmt, 0), qty, price, comment, len);
            } else {
                sale s = {.id = ls->keys[i],
                          .region = e->column_int64(stmt, 0),
                          .qty = e->column_int64(stmt, 1),
                          .price = e->column_double(stmt, 2),
                          .day = e->column_int64(stmt, 3)};
                fold_sales_lookup(got, &s);
            }
        }
        if (rc < 0) return -1;
    }
    e->reset(stmt); /* ends the last read */
    return 0;
}

/* The lookup phase: lineitem gets its index first (timed), then a reopen; then SELECT 1, the
** lookups prepared once and run twice: cold (prepare included) and warm. */
static void phase_lookup(const engine *e, const options *o, const char *dir, int lineitem, int row) {
    const table_load *t = &tables[lineitem ? 0 : 1];
    char w[64], path[4200], id[128];
    snprintf(w, sizeof w, "cs_%s_lookup%s", t->key, row ? "_row" : "");
    if (row && !is_strata(e)) return not_applicable(w, "strata only");
    if (!selected(w)) return;
    table_path(path, sizeof path, dir, t, row);
    const char *ws[1] = {w};
    lookup_set ls;
    if (lineitem)
        li_lookups(o, &ls);
    else
        sales_lookups(o, &ls);
    void *db = open_db(e, path, ws, 1), *stmt = NULL;
    if (db == NULL) goto out;
    workload_begin(w, 0);
    int rc = 0;
    const char *sql = lineitem ? li_lookup_sql : sales_lookup_sql;
    if (lineitem) {
        uint64_t t0 = now_ns();
        if (e->exec(db, li_index_sql)) {
            workload_end(w, wl_fail(e, db, li_index_sql));
            goto close;
        }
        snprintf(id, sizeof id, "%s_index_ms", row ? w : "cs_li");
        put_metric(id, ms_since(t0));
        e->close(db);
        if ((db = open_db(e, path, ws, 1)) == NULL) goto out;
    }
    if (e->prepare(db, "SELECT 1", &stmt) == 0) {
        e->step(stmt);
        e->finalize(stmt);
        stmt = NULL;
    }
    checksum got;
    double ms[2];
    peak_reset();
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        uint64_t t0 = now_ns();
        if (pass == 0 && e->prepare(db, sql, &stmt)) {
            rc = wl_fail(e, db, sql);
            break;
        }
        if (lookup_pass(e, stmt, lineitem, &ls, &got)) {
            rc = wl_message()[0] ? -1 : wl_fail(e, db, sql);
            break;
        }
        ms[pass] = ms_since(t0);
        if (!checksum_equal(&got, &ls.want)) rc = wrong_result(sql, &got, &ls.want);
    }
    if (rc == 0) {
        snprintf(id, sizeof id, "%s_cold_ms", w);
        put_metric(id, ms[0]);
        snprintf(id, sizeof id, "%s_warm_ms", w);
        put_metric(id, ms[1]);
        put_peak(w);
        put_checksum(w, &got);
        if (is_strata(e) && row) save_row_times(dir, w, ms[0], ms[1]);
        if (is_strata(e) && !row) {
            char w_row[80];
            snprintf(w_row, sizeof w_row, "%s_row", w);
            speedups(dir, w, w_row, ms[0], ms[1]);
        }
    }
    e->finalize(stmt);
    workload_end(w, rc);
close:
    e->close(db);
out:
    free(ls.keys);
}

/* ---------------------------------------------------------------------------------------------
** Phases and the report's paragraph.
*/

static void run_phase(const engine *e, const options *o, const char *dir, const char *phase) {
    if (!text_pool_ready) text_pool_init(); /* outside every timer */
    if (!strcmp(phase, "li_load")) return phase_load(e, o, dir, &tables[0]);
    if (!strcmp(phase, "sales_load")) return phase_load(e, o, dir, &tables[1]);
    if (!strcmp(phase, "li_load_row")) return phase_load_row(e, o, dir, &tables[0]);
    if (!strcmp(phase, "li_migrate")) return phase_migrate(e, o, dir);
    if (!strcmp(phase, "sales_load_row")) return phase_load_row(e, o, dir, &tables[1]);
    if (!strcmp(phase, "li_lookup")) return phase_lookup(e, o, dir, 1, 0);
    if (!strcmp(phase, "li_lookup_row")) return phase_lookup(e, o, dir, 1, 1);
    if (!strcmp(phase, "sales_lookup")) return phase_lookup(e, o, dir, 0, 0);
    if (!strcmp(phase, "sales_lookup_row")) return phase_lookup(e, o, dir, 0, 1);
    for (int i = 0; i < COUNT(scans); i++) {
        size_t n = strlen(scans[i].phase);
        if (!strncmp(phase, scans[i].phase, n) && (phase[n] == '\0' || !strcmp(phase + n, "_row")))
            return phase_scan(e, o, dir, &scans[i], phase[n] != '\0');
    }
    die("colstore: unknown phase %s", phase);
}

static void describe(FILE *out, const options *o) {
    char with[128], with_row[128];
    storage_clause(with, sizeof with, o, STORAGE_MIGRATED);
    storage_clause(with_row, sizeof with_row, o, STORAGE_ROW);
    fprintf(
        out,
        "- Tables, each in its own database: `lineitem%s` (%llu rows: TPC-H lineitem's types and "
        "distributions at scale factor rows / 6,000,000, sorted order keys, 1-7 lines per order) and the sql "
        "suite's `sales%s` (%llu rows, the same generator). Loaded by each engine's bulk path in one "
        "transaction (SQLite a prepared INSERT; strata and DuckDB their appenders); DECIMAL values bound as "
        "doubles, dates as 'YYYY-MM-DD' text.\n",
        LINEITEM_COLUMNS, (unsigned long long)size_of(o, "cs_li_rows"), SALES_COLUMNS,
        (unsigned long long)size_of(o, "cs_sales_rows"));
    fprintf(
        out,
        "- strata, migrated: `CREATE TABLE ...%s` (compression default: zstd where it pays), the load "
        "(the appender writes every full row group, and for storage 'column' the tail when it is at least a "
        "quarter of one, straight into segments), then `CHECKPOINT <table>` (storage_info is checked: every "
        "full row group of %llu rows and such a tail in segments, a shorter tail in the row store), then close. "
        "The tuple mover's figures come from a database of their own: lineitem `WITH (storage = 'auto')` "
        "loaded by prepared INSERTs, then `CHECKPOINT lineitem`. strata, row store: `CREATE TABLE ...%s`, the same rows. "
        "SQLite and DuckDB: the same schema, loaded, closed (SQLite checkpoints its WAL at close, DuckDB "
        "checkpoints at close). File size = file + WAL/journal after close. The compression rows are "
        "storage_info's uncompressed ÷ compressed bytes per column over all row groups.\n",
        with, (unsigned long long)size_of(o, "cs_row_group"), with_row);
    fprintf(
        out,
        "- Scans, each in a fresh process per variant: open, `SELECT 1`, the first run (prepare + every row) "
        "= cold, then %llu runs of the prepared statement, median = warm. Q1 `%s` (SQLite: `%s`, it has no "
        "DATE literal and keeps dates as ISO text); Q2 `%s`; Q3 `%s`; sales: `%s`; `%s`; `%s`. strata's "
        "speed-up = its row-store time ÷ its migrated time, per repetition.\n",
        (unsigned long long)size_of(o, "cs_query_runs"), scans[0].sql, scans[0].sqlite_sql, scans[1].sql,
        scans[2].sql, scans[3].sql, scans[4].sql, scans[5].sql);
    fprintf(
        out,
        "- Lookups: `%s` (after `%s`, timed, in the same process, then a reopen) and `%s`, %llu random keys "
        "of rows that strata migrated, prepared once, each an autocommit read: the first pass (prepare "
        "included) = cold, the second = warm.\n",
        li_lookup_sql, li_index_sql, sales_lookup_sql, (unsigned long long)size_of(o, "cs_lookups"));
    fprintf(
        out,
        "- Checks: every result equals the generator's; DECIMAL results exactly for strata and DuckDB; "
        "SQLite stores DECIMAL as REAL, so its Q1 sum is accepted within a relative %g of the exact value.\n",
        INEXACT_REL);
}

/* The targets against peers: strata's file no larger than DuckDB's (with and without the
** WAL strata keeps allocated after a close), and lookups of migrated rows faster than SQLite's. (The
** scans' target, migrated ≥ 5× the row store, is strata against itself: the speed-up rows.) */
static const target_def targets[] = {
    {"cs_li_bytes", "duckdb", 1},
    {"cs_li_main_bytes", "duckdb", 1},
    {"cs_sales_bytes", "duckdb", 1},
    {"cs_sales_main_bytes", "duckdb", 1},
    {"cs_li_lookup_cold_ms", "sqlite", 1},
    {"cs_li_lookup_warm_ms", "sqlite", 1},
    {"cs_sales_lookup_cold_ms", "sqlite", 1},
    {"cs_sales_lookup_warm_ms", "sqlite", 1},
};

const suite suite_colstore = {
    .id = "colstore",
    .title = "Column store: file size, compression, migration, scans and lookups of migrated data",
    SUITE_TABLES,
    .run_phase = run_phase,
    .describe = describe,
    .targets = targets,
    .ntargets = COUNT(targets),
};
