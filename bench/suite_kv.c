/*
** suite_kv.c -- the key-value phases of seed report 004 (suite C): a table kv(k, v) of 64-bit keys
** and blob values, run as the seed's sequence -- populate, compact, reopen, random_read,
** iterate_keys, iterate_values -- once for each value size (128 B, 1 KiB, 16 KiB), with the
** seed's key and read counts. The sequence of a value size shares one process and one database
** (each phase reads what the one before left); the three value sizes are three harness phases.
** bench/README.md describes the workloads.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define POOL_BYTES (UINT64_C(1) << 24) /* values are windows of this pool of random bytes */
#define VALUE_MAX 16384
#define KEY_STRIDE UINT64_C(0x9E3779B1) /* odd: keys below POOL_BYTES get distinct windows */

static const size_def sizes[] = {
    {"kv_keys_128", 2000000, 400000, 500}, {"kv_reads_128", 500000, 100000, 300},
    {"kv_keys_1k", 500000, 100000, 300},   {"kv_reads_1k", 300000, 60000, 300},
    {"kv_keys_16k", 50000, 10000, 200},    {"kv_reads_16k", 100000, 20000, 200},
    {"kv_batch", 1000, 1000, 100},
};

/* clang-format off */
#define KV_WORKLOADS(S)                                                                                \
    {"kv_populate_" S, "kv_" S}, {"kv_compact_" S, "kv_" S}, {"kv_reopen_" S, "kv_" S},                \
    {"kv_random_read_" S, "kv_" S}, {"kv_iterate_keys_" S, "kv_" S}, {"kv_iterate_values_" S, "kv_" S}

/* Rates are operations per second (a row written, a lookup, a row read), so that one operation
** takes 1e6 / rate µs: their unit of work is one operation (units_size NULL). */
#define KV_METRICS(S, T)                                                                               \
    {"kv_populate_" S "_ops", "kv_populate_" S, T ": populate, %s keys", "ops/s", "op", NULL, K_RATE,   \
     "kv_keys_" S},                                                                                    \
    {"kv_populate_" S "_size_bytes", "kv_populate_" S, T ": data size after populate (file + WAL)",    \
     "bytes", "database", NULL, K_SIZE, NULL},                                                         \
    {"kv_compact_" S "_ms", "kv_compact_" S, T ": compact (checkpoint)", "ms", "checkpoint", NULL,      \
     K_TIME, NULL},                                                                                    \
    {"kv_compact_" S "_size_bytes", "kv_compact_" S, T ": data size after compact (file + WAL)",       \
     "bytes", "database", NULL, K_SIZE, NULL},                                                         \
    {"kv_reopen_" S "_us", "kv_reopen_" S, T ": reopen (close + open + first read)", "µs", "reopen",   \
     NULL, K_TIME, NULL},                                                                              \
    {"kv_reopen_" S "_close_us", "kv_reopen_" S, "   of which close", "µs", "close", NULL, K_TIME,      \
     NULL},                                                                                            \
    {"kv_random_read_" S "_ops", "kv_random_read_" S, T ": random read ×%s", "ops/s", "op", NULL,      \
     K_RATE, "kv_reads_" S},                                                                           \
    {"kv_iterate_keys_" S "_ops", "kv_iterate_keys_" S, T ": iterate keys (ORDER BY k), %s rows",      \
     "ops/s", "op", NULL, K_RATE, "kv_keys_" S},                                                       \
    {"kv_iterate_values_" S "_ops", "kv_iterate_values_" S, T ": iterate values, %s rows", "ops/s",    \
     "op", NULL, K_RATE, "kv_keys_" S}

#define KV_SET(S, L)                                                                                   \
    {"kv_" S, L, "kv_keys_" S, "kv_reads_" S,                                                          \
     {"kv_populate_" S, "kv_compact_" S, "kv_reopen_" S, "kv_random_read_" S, "kv_iterate_keys_" S,    \
      "kv_iterate_values_" S}}
/* clang-format on */

static const workload_def workloads[] = {KV_WORKLOADS("128"), KV_WORKLOADS("1k"), KV_WORKLOADS("16k")};

static const metric_def metrics[] = {KV_METRICS("128", "128 B"), KV_METRICS("1k", "1 KiB"),
                                     KV_METRICS("16k", "16 KiB")};

static const phase_def phases[] = {{"kv_128", NULL, NULL}, {"kv_1k", NULL, NULL}, {"kv_16k", NULL, NULL}};

/* A value size: its phase runs the six workloads w[] in the seed's order. */
enum { POPULATE, COMPACT, REOPEN, RANDOM_READ, ITERATE_KEYS, ITERATE_VALUES, N_STEPS };

typedef struct value_set {
    const char *phase;
    int len;                  /* bytes of every value */
    const char *keys, *reads; /* size ids */
    const char *w[N_STEPS];
} value_set;

static const value_set value_sets[] = {KV_SET("128", 128), KV_SET("1k", 1024), KV_SET("16k", 16384)};

#define SELECT_ONE "SELECT v FROM kv WHERE k = ?"
#define SELECT_KEYS "SELECT k FROM kv ORDER BY k"
#define SELECT_VALUES "SELECT v FROM kv"

/* ---------------------------------------------------------------------------------------------
** Deterministic data: the value of key k is the window of `len` bytes of a pool of random bytes
** at an offset that k alone gives (distinct for every key below 2^24, so no two values are
** equal). Nothing is generated or copied per row: the timed loops bind pool memory.
*/

static unsigned char *pool;

static void pool_init(void) {
    if (pool) return;
    if ((pool = malloc(POOL_BYTES + VALUE_MAX)) == NULL) die("out of memory");
    uint64_t s = 0x5EED0004u;
    for (size_t i = 0; i < POOL_BYTES + VALUE_MAX; i += 8) {
        uint64_t r = splitmix64(&s);
        memcpy(pool + i, &r, 8);
    }
}

static const unsigned char *value_for(uint64_t k) { return pool + ((k * KEY_STRIDE) & (POOL_BYTES - 1)); }

/* A value read back: a row, its length, every byte. Order-independent. */
static void add_value(checksum *c, const void *v, size_t len) {
    c->a++, c->b += len, c->c += sum_bytes(v, len);
}

/* The engine's own table: a 64-bit integer key and a blob. SQLite gets INTEGER PRIMARY KEY -- a
** 64-bit integer there too -- because only that spelling makes k its rowid, the key of its table
** b-tree; with BIGINT it keeps a rowid table plus a separate index on k, two b-trees per row,
** which is not how SQLite stores a key-value table. */
static const char *create_sql(const engine *e) {
    return strncmp(e->name, "sqlite-", 7) == 0 ? "CREATE TABLE kv(k INTEGER PRIMARY KEY, v BLOB)"
                                               : "CREATE TABLE kv(k BIGINT PRIMARY KEY, v BLOB)";
}

/* ---------------------------------------------------------------------------------------------
** The workloads.
*/

/* populate: keys 0..n-1 in order, batches of kv_batch rows, each batch one transaction (BEGIN,
** the prepared INSERT per row, COMMIT), the commits durable as each engine makes them. */
static int wl_populate(const engine *e, void *db, const options *o, const value_set *vs, const char *path) {
    uint64_t n = size_of(o, vs->keys), batch = size_of(o, "kv_batch");
    void *ins = NULL;
    int in_txn = 0;
    char id[96];
    if (e->exec(db, create_sql(e))) return wl_fail(e, db, create_sql(e));
    peak_reset();
    uint64_t t0 = now_ns();
    if (e->prepare(db, "INSERT INTO kv VALUES (?, ?)", &ins)) return wl_fail(e, db, "prepare INSERT INTO kv");
    for (uint64_t k = 0; k < n; k++) {
        if (k % batch == 0) {
            if (e->exec(db, "BEGIN")) goto fail;
            in_txn = 1;
        }
        if (e->reset(ins) || e->bind_int64(ins, 1, (int64_t)k) ||
            e->bind_blob(ins, 2, value_for(k), vs->len) || e->step(ins) != 0)
            goto fail;
        if (k % batch == batch - 1 || k == n - 1) {
            if (e->reset(ins) || e->exec(db, "COMMIT")) goto fail;
            in_txn = 0;
        }
    }
    double ms = ms_since(t0);
    e->finalize(ins);
    snprintf(id, sizeof id, "%s_ops", vs->w[POPULATE]);
    put_metric(id, (double)n / (ms / 1e3));
    put_peak(vs->w[POPULATE]);
    snprintf(id, sizeof id, "%s_size_bytes", vs->w[POPULATE]);
    put_metric(id, db_size(path));
    return 0;
fail:
    wl_fail(e, db, "INSERT INTO kv VALUES (?, ?) in a batch");
    e->finalize(ins);
    if (in_txn) e->exec(db, "ROLLBACK");
    return -1;
}

/* compact: the engine's checkpoint, which moves the WAL into the database file. strata and
** DuckDB: CHECKPOINT; SQLite WAL: PRAGMA wal_checkpoint(TRUNCATE), whose busy flag must be 0. */
static int wl_compact(const engine *e, void *db, const value_set *vs, const char *path) {
    int sqlite = strncmp(e->name, "sqlite-", 7) == 0;
    const char *sql = sqlite ? "PRAGMA wal_checkpoint(TRUNCATE)" : "CHECKPOINT";
    void *s = NULL;
    peak_reset();
    uint64_t t0 = now_ns();
    if (e->prepare(db, sql, &s)) return wl_fail(e, db, sql);
    int rc, busy = 0;
    while ((rc = e->step(s)) == 1)
        if (sqlite) busy = (int)e->column_int64(s, 0);
    double ms = ms_since(t0);
    if (rc < 0) wl_fail(e, db, sql);
    e->finalize(s);
    if (rc < 0) return -1;
    if (busy) return wl_failf("%s: busy (the checkpoint did not complete)", sql);
    char id[96];
    snprintf(id, sizeof id, "%s_ms", vs->w[COMPACT]);
    put_metric(id, ms);
    put_peak(vs->w[COMPACT]);
    snprintf(id, sizeof id, "%s_size_bytes", vs->w[COMPACT]);
    put_metric(id, db_size(path));
    return 0;
}

/* The value of key 0 read with SELECT_ONE into *got (prepare included). */
static int first_read(const engine *e, void *db, checksum *got) {
    void *sel = NULL;
    int len = 0;
    if (e->prepare(db, SELECT_ONE, &sel)) return wl_fail(e, db, "prepare " SELECT_ONE);
    int rc = e->bind_int64(sel, 1, 0) ? -1 : e->step(sel);
    const void *v = rc == 1 ? e->column_blob(sel, 0, &len) : NULL;
    if (v) add_value(got, v, (size_t)len);
    if (rc < 0) wl_fail(e, db, SELECT_ONE);
    e->finalize(sel);
    return rc < 0 ? -1 : 0;
}

/* reopen: close the database (*dbp), open it again and read one value; *dbp gets the new
** handle (NULL when the open failed). */
static int wl_reopen(const engine *e, void **dbp, const char *path, const value_set *vs) {
    checksum got = {0}, want = {0};
    add_value(&want, value_for(0), (size_t)vs->len);
    void *db = NULL;
    peak_reset();
    uint64_t t0 = now_ns();
    e->close(*dbp);
    double close_us = (double)(now_ns() - t0) / 1e3;
    *dbp = NULL;
    if (e->open(path, &db)) {
        wl_fail(e, db, "open");
        e->close(db);
        return -1;
    }
    *dbp = db;
    if (first_read(e, db, &got)) return -1;
    double us = (double)(now_ns() - t0) / 1e3;
    if (!checksum_equal(&got, &want)) return wrong_result("the first read", &got, &want);
    char id[96];
    snprintf(id, sizeof id, "%s_us", vs->w[REOPEN]);
    put_metric(id, us);
    snprintf(id, sizeof id, "%s_close_us", vs->w[REOPEN]);
    put_metric(id, close_us);
    put_peak(vs->w[REOPEN]);
    put_checksum(vs->w[REOPEN], &got);
    return 0;
}

/* random_read: kv_reads uniformly random existing keys, each SELECT_ONE its own autocommit
** read, every byte of the value read; prepare included. */
static int wl_random_read(const engine *e, void *db, const options *o, const value_set *vs) {
    uint64_t n = size_of(o, vs->reads), keys = size_of(o, vs->keys), rng = 0x7EAD0004u;
    checksum want = {0}, got = {0};
    for (uint64_t i = 0; i < n; i++)
        add_value(&want, value_for(below(&rng, keys)), (size_t)vs->len);
    void *sel = NULL;
    rng = 0x7EAD0004u;
    peak_reset();
    uint64_t t0 = now_ns();
    if (e->prepare(db, SELECT_ONE, &sel)) return wl_fail(e, db, "prepare " SELECT_ONE);
    for (uint64_t i = 0; i < n; i++) {
        int len, rc;
        if (e->reset(sel) || e->bind_int64(sel, 1, (int64_t)below(&rng, keys)) || (rc = e->step(sel)) < 0)
            goto fail;
        if (rc == 0) continue; /* no row: the checksum says so */
        const void *v = e->column_blob(sel, 0, &len);
        if (v == NULL) goto fail;
        add_value(&got, v, (size_t)len);
    }
    e->reset(sel); /* ends the last read */
    double ms = ms_since(t0);
    e->finalize(sel);
    if (!checksum_equal(&got, &want)) return wrong_result("the random reads", &got, &want);
    char id[96];
    snprintf(id, sizeof id, "%s_ops", vs->w[RANDOM_READ]);
    put_metric(id, (double)n / (ms / 1e3));
    put_peak(vs->w[RANDOM_READ]);
    put_checksum(vs->w[RANDOM_READ], &got);
    return 0;
fail:
    wl_fail(e, db, SELECT_ONE);
    e->finalize(sel);
    return -1;
}

/* iterate_keys (SELECT_KEYS, the checksum depends on the order) or iterate_values
** (SELECT_VALUES, every byte of every value, order-independent). */
static int wl_iterate(const engine *e, void *db, const options *o, const value_set *vs, int step) {
    const char *sql = step == ITERATE_KEYS ? SELECT_KEYS : SELECT_VALUES, *w = vs->w[step];
    uint64_t n = size_of(o, vs->keys);
    checksum want = {0}, got = {0};
    for (uint64_t k = 0; k < n; k++)
        if (step == ITERATE_KEYS)
            want.a++, want.b += k, want.c = mix(want.c, k);
        else
            add_value(&want, value_for(k), (size_t)vs->len);
    void *s = NULL;
    int rc;
    peak_reset();
    uint64_t t0 = now_ns();
    if (e->prepare(db, sql, &s)) return wl_fail(e, db, sql);
    if (step == ITERATE_KEYS)
        while ((rc = e->step(s)) == 1) {
            uint64_t k = (uint64_t)e->column_int64(s, 0);
            got.a++, got.b += k, got.c = mix(got.c, k);
        }
    else
        while ((rc = e->step(s)) == 1) {
            int len;
            const void *v = e->column_blob(s, 0, &len);
            if (v == NULL) {
                rc = -1;
                break;
            }
            add_value(&got, v, (size_t)len);
        }
    double ms = ms_since(t0);
    if (rc != 0) wl_fail(e, db, sql);
    e->finalize(s);
    if (rc != 0) return -1;
    if (!checksum_equal(&got, &want)) return wrong_result(sql, &got, &want);
    char id[96];
    snprintf(id, sizeof id, "%s_ops", w);
    put_metric(id, (double)n / (ms / 1e3));
    put_peak(w);
    put_checksum(w, &got);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
** The phase of one value size: the seed's sequence on one database.
*/

static void run_set(const engine *e, const options *o, const char *dir, const value_set *vs) {
    char path[4200];
    db_path(path, sizeof path, dir, vs->phase);
    remove_db(path);
    void *db = open_db(e, path, vs->w, 1);
    if (db == NULL) return skip_workloads(vs->w + 1, N_STEPS - 1, "the database did not open");
    /* every later phase reads what populate wrote: it always runs */
    if (RUN_ALWAYS(vs->w[POPULATE], wl_populate(e, db, o, vs, path))) {
        e->close(db);
        skip_workloads(vs->w + 1, N_STEPS - 1, "populate failed");
        goto out;
    }
    if (strcmp(e->name, "sqlite-truncate") == 0 || strcmp(e->name, "sqlite-off") == 0) {
        /* the size row still shows the size at this point of the sequence */
        not_applicable(vs->w[COMPACT], "no WAL: each commit wrote the database file");
        char id[96];
        snprintf(id, sizeof id, "%s_size_bytes", vs->w[COMPACT]);
        if (selected(vs->w[COMPACT])) put_metric(id, db_size(path));
    } else
        RUN(vs->w[COMPACT], wl_compact(e, db, vs, path));
    if (selected(vs->w[REOPEN])) {
        if (RUN(vs->w[REOPEN], wl_reopen(e, &db, path, vs))) {
            if (db) e->close(db);
            skip_workloads(vs->w + RANDOM_READ, N_STEPS - RANDOM_READ, "the reopen failed");
            goto out;
        }
    } else {
        e->close(db);
        if ((db = open_db(e, path, vs->w + RANDOM_READ, N_STEPS - RANDOM_READ)) == NULL) goto out;
    }
    RUN(vs->w[RANDOM_READ], wl_random_read(e, db, o, vs));
    RUN(vs->w[ITERATE_KEYS], wl_iterate(e, db, o, vs, ITERATE_KEYS));
    RUN(vs->w[ITERATE_VALUES], wl_iterate(e, db, o, vs, ITERATE_VALUES));
    e->close(db);
out:
    if (!o->keep) remove_db(path); /* up to a GB each: free the disk for the next value size */
}

static void run_phase(const engine *e, const options *o, const char *dir, const char *phase) {
    pool_init();
    for (size_t i = 0; i < sizeof value_sets / sizeof value_sets[0]; i++)
        if (!strcmp(phase, value_sets[i].phase)) run_set(e, o, dir, &value_sets[i]);
    free(pool);
    pool = NULL;
}

static void describe(FILE *out, const options *o) {
    fprintf(
        out,
        "- kv(k BIGINT PRIMARY KEY, v BLOB) (SQLite: k INTEGER PRIMARY KEY, its 64-bit rowid key); one "
        "process "
        "and one database per value size, the seed's phases in order. Values: 128 B × %llu keys (%llu random "
        "reads), 1 KiB × %llu keys (%llu reads), 16 KiB × %llu keys (%llu reads); deterministic random "
        "bytes, "
        "a distinct value per key. populate: keys 0..N-1 in order, `INSERT INTO kv VALUES (?, ?)` prepared "
        "(bind int64 + blob), %llu rows per transaction (BEGIN ... COMMIT, durable); compact: `CHECKPOINT` "
        "on "
        "strata and DuckDB, `PRAGMA wal_checkpoint(TRUNCATE)` on SQLite WAL, n/a on SQLite TRUNCATE and OFF "
        "(no WAL: every commit already wrote the database file); reopen: close + open + `%s` of key 0 "
        "(prepare included; the close, with whatever the engine does at close, also shown alone); "
        "random_read: uniformly random "
        "existing keys, `%s`, each an autocommit read, every value byte read; iterate_keys: `%s`; "
        "iterate_values: `%s`, every byte read. Rates are operations (rows written, lookups, rows read) per "
        "second; data size is the database file plus its WAL or journal, after populate (still open) and "
        "after compact.\n",
        (unsigned long long)size_of(o, "kv_keys_128"), (unsigned long long)size_of(o, "kv_reads_128"),
        (unsigned long long)size_of(o, "kv_keys_1k"), (unsigned long long)size_of(o, "kv_reads_1k"),
        (unsigned long long)size_of(o, "kv_keys_16k"), (unsigned long long)size_of(o, "kv_reads_16k"),
        (unsigned long long)size_of(o, "kv_batch"), SELECT_ONE, SELECT_ONE, SELECT_KEYS, SELECT_VALUES);
}

const suite suite_kv = {
    .id = "kv",
    .title = "Key-value phases (seed 004)",
    SUITE_TABLES,
    .run_phase = run_phase,
    .describe = describe,
};
