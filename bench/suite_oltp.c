/*
** suite_oltp.c -- the seed report 003's suite B: eight OLTP workloads on one integer/text table
** at 1,000, 10,000 and 100,000 rows, each figure a latency per unit of work as 003 defines it
** (µs per inserted/updated/deleted row, per query, per database), and the storage after the
** insertion (file + WAL or journal).
**
** Each size runs in its own process (phase): create items and its explicit id index, insert
** every row in one transaction through a prepared 100-row INSERT; then, on the same connection,
** the reads (a set of queries run once to warm and check, then timed over repetitions of the
** set); then the writes on a few spread rows -- updated in one transaction, updated again with
** a commit each, deleted in one transaction; then close, and open + scan of what remains.
** Everything is checked against the data generator. bench/README.md describes the workloads.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define BATCH 100      /* rows per INSERT statement, as 003's reports */
#define RANGE_ROWS 50  /* ids per range query: "ranges returning up to 50 rows" */
#define CATEGORIES 50  /* groups of the aggregate */
#define PAYLOAD_LEN 64 /* a digest in hex, as 003's SHA-256 payloads */
#define N_SIZES 3

static const size_def sizes[] = {
    {"oltp_rows_1k", 1000, 1000, 100},
    {"oltp_rows_10k", 10000, 10000, 200},
    {"oltp_rows_100k", 100000, 20000, 300},
    {"oltp_queries", 100, 100, 10}, /* distinct point and range queries, the warmed set */
    {"oltp_read_reps", 20, 5, 1},   /* timed repetitions of that set */
    {"oltp_agg_runs", 100, 20, 1},  /* timed runs of the aggregate */
    {"oltp_writes", 20, 20, 5},     /* rows updated twice, then deleted (capped at the rows) */
};

static const char *const size_tags[N_SIZES] = {"1k", "10k", "100k"};

enum { W_INSERT, W_LOOKUP, W_RANGE, W_AGG, W_UPDATE_TXN, W_UPDATE_AUTO, W_DELETE, W_REOPEN, N_W };

static const char *const wl_names[N_W] = {"insert_transaction", "point_lookup",       "range_scan",
                                          "aggregate",          "update_transaction", "update_autocommit",
                                          "delete_transaction", "reopen_scan"};

/* One size's workloads, all in the phase oltp_<size>. */
/* clang-format off */
#define WL(name, t) {"oltp_" name "_" t, "oltp_" t}
#define SIZE_WORKLOADS(t)                                                                                    \
    WL("insert_transaction", t), WL("point_lookup", t), WL("range_scan", t), WL("aggregate", t),             \
        WL("update_transaction", t), WL("update_autocommit", t), WL("delete_transaction", t),                \
        WL("reopen_scan", t)

static const workload_def workloads[] = {SIZE_WORKLOADS("1k"), SIZE_WORKLOADS("10k"), SIZE_WORKLOADS("100k")};

/* One size's figures: each workload's µs per unit of work (units_size NULL: the value is already
** per unit), the storage right after the insertion (connection open, as 003 samples it) and
** after the writes and the close. */
#define US(name, label, per, t)                                                                              \
    {"oltp_" name "_" t "_us", "oltp_" name "_" t, label ", %s rows", "µs", per, NULL, K_TIME, "oltp_rows_" t}
#define BYTES(id, wl, label, t)                                                                              \
    {"oltp_" id "_" t "_bytes", "oltp_" wl "_" t, label, "bytes", "database", NULL, K_SIZE, "oltp_rows_" t}
#define SIZE_METRICS(t)                                                                                      \
    US("insert_transaction", "insert_transaction", "inserted row", t),                                      \
        US("point_lookup", "point_lookup", "query", t),                                                      \
        US("range_scan", "range_scan (≤ 50 rows)", "query", t),                                              \
        US("aggregate", "aggregate (GROUP BY category)", "query", t),                                        \
        US("update_transaction", "update_transaction", "updated row", t),                                    \
        US("update_autocommit", "update_autocommit", "updated row", t),                                      \
        US("delete_transaction", "delete_transaction", "deleted row", t),                                    \
        US("reopen_scan", "reopen_scan", "database", t),                                                     \
        BYTES("storage", "insert_transaction", "storage after insertion, %s rows (file + WAL, open)", t),    \
        BYTES("storage_closed", "reopen_scan", "storage after the writes and close, %s rows (file + WAL)", t)

static const metric_def metrics[] = {SIZE_METRICS("1k"), SIZE_METRICS("10k"), SIZE_METRICS("100k")};
/* clang-format on */

static const phase_def phases[] = {
    {"oltp_1k", NULL, NULL}, {"oltp_10k", NULL, NULL}, {"oltp_100k", NULL, NULL}};

static const char *const sql_create =
    "CREATE TABLE items(id INTEGER PRIMARY KEY, category INTEGER, value BIGINT, payload TEXT)";
static const char *const sql_index = "CREATE INDEX items_id ON items(id)";
static const char *const sql_lookup = "SELECT id, category, value, payload FROM items WHERE id = ?";
static const char *const sql_range =
    "SELECT id, category, value, payload FROM items WHERE id BETWEEN ? AND ? ORDER BY id";
static const char *const sql_aggregate = "SELECT category, count(*), sum(value) FROM items GROUP BY category";
static const char *const sql_update = "UPDATE items SET value = ?, payload = ? WHERE id = ?";
static const char *const sql_delete = "DELETE FROM items WHERE id = ?";
static const char *const sql_scan = "SELECT id, category, value, payload FROM items";

/* ---------------------------------------------------------------------------------------------
** Deterministic data. Row id (1..N) has a category that never changes, and a value and payload
** for each version: 0 as inserted, 1 after update_transaction, 2 after update_autocommit.
*/

typedef struct item {
    int64_t id, category, value;
    char payload[PAYLOAD_LEN];
} item;

static item item_for(int64_t id, int version) {
    static const char hex[] = "0123456789abcdef";
    item r = {.id = id};
    uint64_t s = (uint64_t)id * 0x9E3779B97F4A7C15u ^ 0x0C47E6u;
    r.category = (int64_t)below(&s, CATEGORIES);
    s = (uint64_t)id * 0xD1B54A32D192ED03u + (uint64_t)version * 0x8CB92BA72F3D8DD7u + 0x3u;
    r.value = (int64_t)below(&s, 1000000);
    for (int w = 0; w < PAYLOAD_LEN / 16; w++) {
        uint64_t word = splitmix64(&s);
        for (int k = 0; k < 16; k++)
            r.payload[w * 16 + k] = hex[(word >> (4 * k)) & 15];
    }
    return r;
}

static uint64_t row_hash(int64_t id, int64_t category, int64_t value, const char *payload, size_t len) {
    return mix(mix(mix(mix(0, (uint64_t)id), (uint64_t)category), (uint64_t)value),
               sum_bytes(payload, len) + len);
}

/* A row into a checksum: rows, sum of ids, sum of row hashes (order-independent). */
static void add_item(checksum *c, const item *r) {
    c->a++, c->b += (uint64_t)r->id, c->c += row_hash(r->id, r->category, r->value, r->payload, PAYLOAD_LEN);
}

static checksum times(checksum c, uint64_t k) { return (checksum){c.a * k, c.b * k, c.c * k}; }

/* The phase's state: the engine, the connection, the generated rows, the written ids and their
** version now committed, from which the expected results follow. */
typedef struct ctx {
    const engine *e;
    void *db;
    const options *o;
    char ids[N_W][64]; /* this size's workload ids */
    int64_t rows;
    item *items;      /* items[id - 1], as inserted */
    int64_t nkeys;    /* oltp_queries */
    int64_t *written; /* the ids the writes touch */
    int64_t nwritten; /* oltp_writes, capped at rows */
    int version;      /* of the written rows now committed; -1 after their delete */
} ctx;

static double us_per(uint64_t t0, uint64_t units) { return (double)(now_ns() - t0) / 1e3 / (double)units; }

/* read_row folds the current row's id, category, value and payload into a checksum (a NULL
** payload as an empty one, which no generated row has); order, when not NULL, also chains the
** row's hash in result order. */
static void read_row(const engine *e, void *stmt, checksum *c, uint64_t *order) {
    int len = 0;
    int64_t id = e->column_int64(stmt, 0), category = e->column_int64(stmt, 1),
            value = e->column_int64(stmt, 2);
    const char *p = e->column_text(stmt, 3, &len);
    if (p == NULL) p = "", len = 0;
    uint64_t h = row_hash(id, category, value, p, (size_t)len);
    c->a++, c->b += (uint64_t)id, c->c += h;
    if (order) *order = mix(*order, h);
}

static void finalize(const engine *e, void **stmt) {
    if (*stmt) e->finalize(*stmt);
    *stmt = NULL;
}

/* End an open transaction after a failure; the failure's message is already recorded. */
static void rollback(ctx *x) { x->e->exec(x->db, "ROLLBACK"); }

static void put_us(const char *w, double us) {
    char id[96];
    snprintf(id, sizeof id, "%s_us", w);
    put_metric(id, us);
}

/* --- insert_transaction ------------------------------------------------------------------- */

/* bind_rows binds rows r[0..n) to the 4n parameters of a multi-row INSERT. */
static int bind_rows(const engine *e, void *stmt, const item *r, int n) {
    for (int i = 0; i < n; i++)
        if (e->bind_int64(stmt, 4 * i + 1, r[i].id) || e->bind_int64(stmt, 4 * i + 2, r[i].category) ||
            e->bind_int64(stmt, 4 * i + 3, r[i].value) ||
            e->bind_text(stmt, 4 * i + 4, r[i].payload, PAYLOAD_LEN))
            return -1;
    return 0;
}

/* insert_sql returns "INSERT INTO items VALUES (?, ?, ?, ?), ..." for n rows, malloc'ed. */
static char *insert_sql(int n) {
    static const char head[] = "INSERT INTO items VALUES ", row[] = "(?, ?, ?, ?)";
    size_t cap = sizeof head + (size_t)n * (sizeof row + 2), len;
    char *s = malloc(cap);
    if (s == NULL) die("out of memory");
    len = (size_t)snprintf(s, cap, "%s", head);
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(s + len, cap - len, "%s%s", i ? ", " : "", row);
    return s;
}

/* Every row in one transaction: BEGIN, a prepared INSERT of 100 rows per statement (its
** preparation timed: 003 counts the first preparation of unseen SQL in writes), the remainder in
** one statement, COMMIT. The schema is created before the timer; the rows are checked after. */
static int wl_insert(ctx *x) {
    const engine *e = x->e;
    void *db = x->db, *stmt = NULL;
    int64_t full = x->rows / BATCH, rest = x->rows % BATCH;
    char *batch_sql = insert_sql(BATCH), *rest_sql = insert_sql(rest ? (int)rest : 1);
    const char *what = sql_create;
    int rc = -1, in_txn = 0;
    checksum want = {0}, got = {0};
    if (e->exec(db, sql_create) || (what = sql_index, e->exec(db, sql_index))) goto fail;
    peak_reset();
    uint64_t t0 = now_ns();
    what = "BEGIN";
    if (e->exec(db, "BEGIN")) goto fail;
    in_txn = 1;
    what = "the 100-row INSERT";
    if (full && e->prepare(db, batch_sql, &stmt)) goto fail;
    for (int64_t b = 0; b < full; b++)
        if (bind_rows(e, stmt, x->items + b * BATCH, BATCH) || e->step(stmt) != 0 || e->reset(stmt))
            goto fail;
    finalize(e, &stmt);
    what = "the last INSERT";
    if (rest && (e->prepare(db, rest_sql, &stmt) || bind_rows(e, stmt, x->items + full * BATCH, (int)rest) ||
                 e->step(stmt) != 0))
        goto fail;
    finalize(e, &stmt);
    what = "COMMIT";
    if (e->exec(db, "COMMIT")) goto fail;
    double us = us_per(t0, (uint64_t)x->rows);
    put_peak(x->ids[W_INSERT]);
    in_txn = 0;

    for (int64_t i = 0; i < x->rows; i++)
        want.a++, want.b += (uint64_t)x->items[i].id, want.c += (uint64_t)x->items[i].value;
    what = "SELECT count(*), sum(id), sum(value) FROM items";
    if (e->prepare(db, what, &stmt) || e->step(stmt) != 1) goto fail;
    got = (checksum){(uint64_t)e->column_int64(stmt, 0), (uint64_t)e->column_int64(stmt, 1),
                     (uint64_t)e->column_int64(stmt, 2)};
    if (!checksum_equal(&got, &want)) {
        wrong_result("the table after the insert", &got, &want);
        goto out;
    }
    put_us(x->ids[W_INSERT], us);
    put_checksum(x->ids[W_INSERT], &got);
    rc = 0;
    goto out;
fail:
    wl_fail(e, db, what);
    finalize(e, &stmt);
    if (in_txn) rollback(x);
out:
    finalize(e, &stmt);
    free(batch_sql);
    free(rest_sql);
    return rc;
}

/* --- point_lookup and range_scan ---------------------------------------------------------- */

/* run_keys runs the prepared lookup (range: the range query) once for each of keys[0..n), every
** row read into *c; a range's rows also chain in result order (ORDER BY id). 0, or -1 on an
** engine error. */
static int run_keys(const engine *e, void *stmt, const int64_t *keys, int64_t n, int range, checksum *c) {
    for (int64_t i = 0; i < n; i++) {
        uint64_t order = 0;
        int rc;
        if (e->reset(stmt) || e->bind_int64(stmt, 1, keys[i]) ||
            (range && e->bind_int64(stmt, 2, keys[i] + RANGE_ROWS - 1)))
            return -1;
        while ((rc = e->step(stmt)) == 1)
            read_row(e, stmt, c, range ? &order : NULL);
        if (rc < 0) return -1;
        c->c += order;
    }
    return 0;
}

/* 003's reads: a set of oltp_queries queries (uniform ids; a range is the ids from its key to key
** + 49, up to 50 rows), prepared and run once to warm and check, then the set is timed
** oltp_read_reps times; the figure is µs per executed query. */
static int wl_keyed(ctx *x, int w) {
    const engine *e = x->e;
    int range = w == W_RANGE;
    const char *sql = range ? sql_range : sql_lookup;
    int64_t n = x->nkeys, *keys = malloc((size_t)n * sizeof *keys);
    uint64_t reps = size_of(x->o, "oltp_read_reps"), rng = range ? 0x4A46E5u : 0x100C0Bu;
    checksum want = {0}, warm = {0}, got = {0};
    void *stmt = NULL;
    if (keys == NULL) die("out of memory");
    for (int64_t i = 0; i < n; i++) {
        keys[i] = 1 + (int64_t)below(&rng, (uint64_t)x->rows);
        uint64_t order = 0;
        for (int64_t id = keys[i]; id < keys[i] + (range ? RANGE_ROWS : 1) && id <= x->rows; id++) {
            add_item(&want, &x->items[id - 1]);
            order = mix(order, row_hash(id, x->items[id - 1].category, x->items[id - 1].value,
                                        x->items[id - 1].payload, PAYLOAD_LEN));
        }
        if (range) want.c += order;
    }
    if (e->prepare(x->db, sql, &stmt) || run_keys(e, stmt, keys, n, range, &warm)) goto fail;
    if (!checksum_equal(&warm, &want)) {
        wrong_result(sql, &warm, &want);
        goto out;
    }
    peak_reset();
    uint64_t t0 = now_ns();
    for (uint64_t r = 0; r < reps; r++)
        if (run_keys(e, stmt, keys, n, range, &got)) goto fail;
    double us = us_per(t0, (uint64_t)n * reps);
    put_peak(x->ids[w]);
    e->reset(stmt);
    checksum all = times(want, reps);
    if (!checksum_equal(&got, &all)) {
        wrong_result(sql, &got, &all);
        goto out;
    }
    put_us(x->ids[w], us);
    put_checksum(x->ids[w], &warm);
    finalize(e, &stmt);
    free(keys);
    return 0;
fail:
    wl_fail(e, x->db, sql);
out:
    finalize(e, &stmt);
    free(keys);
    return -1;
}

/* --- aggregate ---------------------------------------------------------------------------- */

static uint64_t group_hash(int64_t category, int64_t count, int64_t sum) {
    return mix(mix(mix(0, (uint64_t)category), (uint64_t)count), (uint64_t)sum);
}

/* One run of the prepared aggregate to its end, each group into *c (order-independent). */
static int run_aggregate(const engine *e, void *stmt, checksum *c) {
    int rc;
    if (e->reset(stmt)) return -1;
    while ((rc = e->step(stmt)) == 1) {
        int64_t count = e->column_int64(stmt, 1);
        c->a++, c->b += (uint64_t)count;
        c->c += group_hash(e->column_int64(stmt, 0), count, e->column_int64(stmt, 2));
    }
    return rc;
}

/* COUNT and SUM grouped by category: run once to warm and check, then oltp_agg_runs timed runs;
** µs per query. */
static int wl_aggregate(ctx *x) {
    const engine *e = x->e;
    int64_t count[CATEGORIES] = {0}, sum[CATEGORIES] = {0};
    uint64_t runs = size_of(x->o, "oltp_agg_runs");
    checksum want = {0}, warm = {0}, got = {0};
    void *stmt = NULL;
    for (int64_t i = 0; i < x->rows; i++)
        count[x->items[i].category]++, sum[x->items[i].category] += x->items[i].value;
    for (int g = 0; g < CATEGORIES; g++)
        if (count[g]) want.a++, want.b += (uint64_t)count[g], want.c += group_hash(g, count[g], sum[g]);
    if (e->prepare(x->db, sql_aggregate, &stmt) || run_aggregate(e, stmt, &warm)) goto fail;
    if (!checksum_equal(&warm, &want)) {
        wrong_result(sql_aggregate, &warm, &want);
        goto out;
    }
    peak_reset();
    uint64_t t0 = now_ns();
    for (uint64_t r = 0; r < runs; r++)
        if (run_aggregate(e, stmt, &got)) goto fail;
    double us = us_per(t0, runs);
    put_peak(x->ids[W_AGG]);
    checksum all = times(want, runs);
    if (!checksum_equal(&got, &all)) {
        wrong_result(sql_aggregate, &got, &all);
        goto out;
    }
    put_us(x->ids[W_AGG], us);
    put_checksum(x->ids[W_AGG], &warm);
    finalize(e, &stmt);
    return 0;
fail:
    wl_fail(e, x->db, sql_aggregate);
out:
    finalize(e, &stmt);
    return -1;
}

/* --- the writes --------------------------------------------------------------------------- */

/* The written rows as the database should now hold them: each of them at x->version (none after
** the delete), read back with point lookups; after the delete also count(*) and sum(id) of the
** table. The checksum is put for workload w. */
static int check_written(ctx *x, int w) {
    const engine *e = x->e;
    checksum want = {0}, got = {0};
    void *stmt = NULL;
    const char *what = sql_lookup;
    for (int64_t i = 0; i < x->nwritten && x->version >= 0; i++) {
        item r = item_for(x->written[i], x->version);
        add_item(&want, &r);
    }
    if (e->prepare(x->db, sql_lookup, &stmt) || run_keys(e, stmt, x->written, x->nwritten, 0, &got))
        goto fail;
    finalize(e, &stmt);
    if (x->version < 0) {
        uint64_t ids = (uint64_t)(x->rows * (x->rows + 1) / 2);
        for (int64_t i = 0; i < x->nwritten; i++)
            ids -= (uint64_t)x->written[i];
        want.a += (uint64_t)(x->rows - x->nwritten), want.b += ids;
        what = "SELECT count(*), sum(id) FROM items";
        if (e->prepare(x->db, what, &stmt) || e->step(stmt) != 1) goto fail;
        got.a += (uint64_t)e->column_int64(stmt, 0), got.b += (uint64_t)e->column_int64(stmt, 1);
        finalize(e, &stmt);
    }
    if (!checksum_equal(&got, &want)) return wrong_result("the written rows, read back", &got, &want);
    put_checksum(x->ids[w], &got);
    return 0;
fail:
    wl_fail(e, x->db, what);
    finalize(e, &stmt);
    return -1;
}

/* The oltp_writes rows (spread evenly over the ids): update_transaction sets a new value and
** payload of each in one transaction, update_autocommit sets another with a commit per
** statement, delete_transaction deletes them in one transaction. Transactions are timed from
** BEGIN to COMMIT with the statement's preparation (unseen SQL, as 003 counts it);
** update_autocommit's UPDATE was seen before, it is prepared before the timer. µs per row. */
static int wl_write(ctx *x, int w) {
    const engine *e = x->e;
    void *db = x->db, *stmt = NULL;
    int version = w == W_UPDATE_TXN ? 1 : w == W_UPDATE_AUTO ? 2 : -1, txn = w != W_UPDATE_AUTO, in_txn = 0;
    const char *sql = version < 0 ? sql_delete : sql_update, *what = sql;
    item *next = malloc((size_t)x->nwritten * sizeof *next);
    if (next == NULL) die("out of memory");
    for (int64_t i = 0; i < x->nwritten; i++)
        next[i] = item_for(x->written[i], version < 0 ? 0 : version);
    if (!txn && e->prepare(db, sql, &stmt)) goto fail;
    peak_reset();
    uint64_t t0 = now_ns();
    if (txn) {
        what = "BEGIN";
        if (e->exec(db, "BEGIN")) goto fail;
        in_txn = 1, what = sql;
        if (e->prepare(db, sql, &stmt)) goto fail;
    }
    for (int64_t i = 0; i < x->nwritten; i++) {
        if (e->reset(stmt)) goto fail;
        if (version < 0 ? e->bind_int64(stmt, 1, next[i].id)
                        : e->bind_int64(stmt, 1, next[i].value) ||
                              e->bind_text(stmt, 2, next[i].payload, PAYLOAD_LEN) ||
                              e->bind_int64(stmt, 3, next[i].id))
            goto fail;
        if (e->step(stmt) != 0) goto fail;
    }
    what = "COMMIT";
    if (txn && e->exec(db, "COMMIT")) goto fail;
    double us = us_per(t0, (uint64_t)x->nwritten);
    put_peak(x->ids[w]);
    finalize(e, &stmt);
    free(next);
    x->version = version;
    if (check_written(x, w)) return -1;
    put_us(x->ids[w], us);
    return 0;
fail:
    wl_fail(e, db, what);
    finalize(e, &stmt);
    if (in_txn) rollback(x);
    free(next);
    return -1;
}

/* --- reopen_scan -------------------------------------------------------------------------- */

/* The database is closed: open it and read every remaining row (prepare included); µs per
** database. x->db is the open handle afterwards (NULL when the open failed). */
static int wl_reopen(ctx *x, const char *path) {
    const engine *e = x->e;
    checksum want = {0}, got = {0};
    void *stmt = NULL;
    int rc;
    char *written = calloc((size_t)x->rows + 1, 1);
    if (written == NULL) die("out of memory");
    for (int64_t i = 0; i < x->nwritten; i++)
        written[x->written[i]] = 1;
    for (int64_t id = 1; id <= x->rows; id++) {
        item r = written[id] ? item_for(id, x->version) : x->items[id - 1];
        if (!written[id] || x->version >= 0) add_item(&want, &r);
    }
    free(written);
    peak_reset();
    uint64_t t0 = now_ns();
    if (e->open(path, &x->db)) {
        wl_fail(e, x->db, "open");
        e->close(x->db);
        x->db = NULL;
        return -1;
    }
    if (e->prepare(x->db, sql_scan, &stmt)) return wl_fail(e, x->db, sql_scan);
    while ((rc = e->step(stmt)) == 1)
        read_row(e, stmt, &got, NULL);
    double us = us_per(t0, 1);
    put_peak(x->ids[W_REOPEN]);
    if (rc < 0) wl_fail(e, x->db, sql_scan);
    finalize(e, &stmt);
    if (rc < 0) return -1;
    if (!checksum_equal(&got, &want)) return wrong_result(sql_scan, &got, &want);
    put_us(x->ids[W_REOPEN], us);
    put_checksum(x->ids[W_REOPEN], &got);
    return 0;
}

/* --- the phase: one size ------------------------------------------------------------------ */

static void run_size(const engine *e, const options *o, const char *dir, int z) {
    ctx x = {.e = e, .o = o};
    const char *ws[N_W];
    char name[64], path[4200];
    for (int k = 0; k < N_W; k++) {
        snprintf(x.ids[k], sizeof x.ids[k], "oltp_%s_%s", wl_names[k], size_tags[z]);
        ws[k] = x.ids[k];
    }
    snprintf(name, sizeof name, "oltp_rows_%s", size_tags[z]);
    x.rows = (int64_t)size_of(o, name);
    x.nkeys = (int64_t)size_of(o, "oltp_queries");
    x.nwritten = (int64_t)size_of(o, "oltp_writes");
    if (x.nwritten > x.rows) x.nwritten = x.rows;
    x.items = malloc((size_t)x.rows * sizeof *x.items);
    x.written = malloc((size_t)x.nwritten * sizeof *x.written);
    if (x.items == NULL || x.written == NULL) die("out of memory");
    for (int64_t i = 0; i < x.rows; i++)
        x.items[i] = item_for(i + 1, 0);
    for (int64_t i = 0; i < x.nwritten; i++) /* distinct: the stride rows / nwritten is >= 1 */
        x.written[i] = 1 + i * x.rows / x.nwritten + x.rows / x.nwritten / 2;

    snprintf(name, sizeof name, "oltp_%s", size_tags[z]);
    db_path(path, sizeof path, dir, name);
    remove_db(path);
    if ((x.db = open_db(e, path, ws, N_W)) == NULL) goto out;
    /* everything after the insert reads its rows: it always runs */
    if (RUN_ALWAYS(ws[W_INSERT], wl_insert(&x))) {
        e->close(x.db);
        skip_workloads(ws + 1, N_W - 1, "the insert failed");
        goto out;
    }
    snprintf(name, sizeof name, "oltp_storage_%s_bytes", size_tags[z]);
    put_metric(name, db_size(path)); /* connection open, as 003 samples it */
    RUN(ws[W_LOOKUP], wl_keyed(&x, W_LOOKUP));
    RUN(ws[W_RANGE], wl_keyed(&x, W_RANGE));
    RUN(ws[W_AGG], wl_aggregate(&x));
    /* reopen_scan reads the table as the writes leave it: they run when it is asked for */
    int force = selected(ws[W_REOPEN]), writes_failed = 0;
    for (int k = W_UPDATE_TXN; k <= W_DELETE; k++)
        writes_failed |= (force ? RUN_ALWAYS(ws[k], wl_write(&x, k)) : RUN(ws[k], wl_write(&x, k))) != 0;
    e->close(x.db);
    x.db = NULL;
    snprintf(name, sizeof name, "oltp_storage_closed_%s_bytes", size_tags[z]);
    put_metric(name, db_size(path));
    if (writes_failed)
        skip_workloads(ws + W_REOPEN, 1, "a write workload failed");
    else
        RUN(ws[W_REOPEN], wl_reopen(&x, path));
    if (x.db) e->close(x.db);
out:
    free(x.items);
    free(x.written);
}

static void run_phase(const engine *e, const options *o, const char *dir, const char *phase) {
    for (int z = 0; z < N_SIZES; z++)
        if (!strcmp(phase + 5, size_tags[z])) return run_size(e, o, dir, z);
    die("suite oltp: no phase %s", phase);
}

static void describe(FILE *out, const options *o) {
    unsigned long long writes = size_of(o, "oltp_writes");
    fprintf(
        out,
        "- Seed 003's suite B at %llu, %llu and %llu rows, each size in its own process per engine and "
        "repetition: `%s` and `%s` (003's explicit id index); category uniform in 0..%d, value in "
        "0..999999, payload 64 hex characters of a deterministic hash (003: a SHA-256 digest). Every "
        "figure is µs per unit of work as 003 defines it: per inserted, updated or deleted row, per query, "
        "per database.\n",
        (unsigned long long)size_of(o, "oltp_rows_1k"), (unsigned long long)size_of(o, "oltp_rows_10k"),
        (unsigned long long)size_of(o, "oltp_rows_100k"), sql_create, sql_index, CATEGORIES - 1);
    fprintf(
        out,
        "- insert_transaction: BEGIN, a prepared `INSERT INTO items VALUES (?, ?, ?, ?), ...` of %d rows "
        "per statement (its preparation timed), COMMIT. Storage (main file + WAL or journal): right after "
        "that COMMIT with the connection open, where 003 samples it, and after the writes and the close.\n",
        BATCH);
    fprintf(
        out,
        "- Reads on the same connection, before the writes; %llu queries prepared and run once (warm-up "
        "and check), then the set timed %llu times: point_lookup `%s` on uniform ids; range_scan `%s` with "
        "(k, k + %d), up to %d rows; aggregate `%s`, run once, then %llu timed runs.\n",
        (unsigned long long)size_of(o, "oltp_queries"), (unsigned long long)size_of(o, "oltp_read_reps"),
        sql_lookup, sql_range, RANGE_ROWS - 1, RANGE_ROWS, sql_aggregate,
        (unsigned long long)size_of(o, "oltp_agg_runs"));
    fprintf(out,
            "- Writes on %llu rows spread evenly over the ids: update_transaction `%s` for each in one "
            "BEGIN/COMMIT (preparation timed); update_autocommit the same UPDATE (prepared before the timer) "
            "with new values, a commit per statement; delete_transaction `%s` for each in one BEGIN/COMMIT "
            "(preparation timed); each checked by reading the rows back. reopen_scan: after the close, open "
            "+ `%s` reading every remaining row (the OS cache is warm).\n",
            writes, sql_update, sql_delete, sql_scan);
}

const suite suite_oltp = {
    .id = "oltp",
    .title = "OLTP at three sizes (seed 003)",
    SUITE_TABLES,
    .run_phase = run_phase,
    .describe = describe,
    .warmup = 1, /* 003 discards one warm-up sample per engine */
};
