/*
** bench_rowstore.c -- strata's key-value API (rowstore/kv.h) against SQLite, in the same run.
**
** Workloads (each written once against a small engine interface, `engine`, and run for both):
**   1. sequential insert of N rows in one transaction, then commit         ns/row (commit incl.)
**      (+ strata only: the same rows through kv_load, the sorted bulk loader)
**   2. random-order insert of N rows (a fixed permutation) into a fresh db ns/row (commit incl.)
**   3. warm random point get on the loaded db, reading the value             ns/get
**   4. full cursor scan reading every key and value                          ns/row
**   5. single-row durable commits appended to the loaded db                  us/commit
**   6. open of the loaded db after close, plus its first read                us
**   7. file size after the sequential load (main file + WAL, after close)    bytes
** plus the floor of a durable commit on this disk: one 4 KiB pwrite + fdatasync, measured in its
** own process each repetition, and paired with the commits of workload 5: before each commit the
** engine's process times one such write to a scratch file beside the database, so that every
** commit is read against the disk of its moment (the disk's speed drifts within a minute).
**
** Method: every (engine, repetition) runs in a fresh process (fork + exec of this program with
** --child) on fresh databases in bench/tmp/, which sits on the repository's file system; the
** engine order alternates per repetition. A child writes its figures to a result file; the parent
** reports median and min-max per workload and calls a difference "faster"/"slower" only when the
** min-max ranges do not overlap. Every read workload yields a checksum (row count, sum of key
** values, sum of value bytes) that must equal the one computed from the data generator, and
** both engines must agree; a mismatch stops the run naming the workload.
**
** The program is not a test of correctness beyond those checksums, and it is not part of the
** library: it only uses the headers of rowstore/ and libsqlite3.
*/
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <malloc.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "../rowstore/kv.h"
#include "bench_common.h"

#ifndef BENCH_CFLAGS
#define BENCH_CFLAGS "unknown (not built by `make bench-rowstore`)"
#endif
#ifndef BENCH_LIB
#define BENCH_LIB "unknown"
#endif

#define VALUE_LEN 100    /* bytes per value */
#define POOL_BYTES 65536 /* values are windows of this pool of random bytes (power of two) */
#define DEFAULT_ROWS 1000000
#define QUICK_ROWS 100000
#define DEFAULT_REPS 5
#define DEFAULT_COMMITS 200
/* Both engines get the same cache budget, large enough that the 1M-row database (about 110 MB)
** fits: "warm" reads then come from the engine cache, as the seeds define warm. */
#define DEFAULT_CACHE_MIB 256

/* ---------------------------------------------------------------------------------------------
** Deterministic data (failure, time and random numbers are in bench_common.h).
*/

static uint8_t value_pool[POOL_BYTES + VALUE_LEN];

static void value_pool_init(void) {
    uint64_t s = 0x5EED0001u;
    for (size_t i = 0; i < sizeof value_pool; i += 8) {
        uint64_t r = splitmix64(&s);
        memcpy(value_pool + i, &r, sizeof value_pool - i < 8 ? sizeof value_pool - i : 8);
    }
}

/* The value of key k: VALUE_LEN pseudo-random bytes, the same on every call and in every
** process, at no generation cost inside the timed loops. */
static const uint8_t *value_for(uint64_t k) {
    uint64_t s = k ^ 0xA5A5A5A5DEADBEEFu;
    return value_pool + (splitmix64(&s) & (POOL_BYTES - 1));
}

static void key_encode(uint8_t out[8], uint64_t k) {
    for (int i = 7; i >= 0; i--, k >>= 8)
        out[i] = (uint8_t)k;
}

static uint64_t key_decode(const uint8_t in[8]) {
    uint64_t k = 0;
    for (int i = 0; i < 8; i++)
        k = (k << 8) | in[i];
    return k;
}

/* The result checksum of a read workload. */
typedef struct checksum {
    uint64_t rows, key_sum, value_sum;
} checksum;

static void checksum_add(checksum *c, uint64_t key, const uint8_t *val, size_t vlen) {
    c->rows++;
    c->key_sum += key;
    c->value_sum += sum_bytes(val, vlen) + vlen;
}

static void checksum_expect(const checksum *got, const checksum *want) {
    if (got->rows != want->rows || got->key_sum != want->key_sum || got->value_sum != want->value_sum)
        die("checksum mismatch: got rows=%llu keys=%llu values=%llu, expected rows=%llu keys=%llu "
            "values=%llu",
            (unsigned long long)got->rows, (unsigned long long)got->key_sum,
            (unsigned long long)got->value_sum, (unsigned long long)want->rows,
            (unsigned long long)want->key_sum, (unsigned long long)want->value_sum);
}

/* ---------------------------------------------------------------------------------------------
** Options.
*/

typedef struct options {
    uint64_t rows, gets, commits;
    int reps;
    size_t cache_mib;
    int sqlite_page_size; /* 0: SQLite's default */
    const char *engines;  /* "both", "strata" or "sqlite" */
    int keep;             /* keep the temporary databases */
    int save;             /* write bench/results/ */
    /* child only */
    const char *child_engine;
    const char *child_dir;
} options;

static void usage(void) {
    fprintf(stderr,
            "usage: bench_rowstore [--rows N | --quick] [--reps N] [--gets N] [--commits N]\n"
            "                      [--cache-mib N] [--sqlite-page-size N] [--engine both|strata|sqlite]\n"
            "                      [--keep] [--no-save]\n"
            "  --rows N            rows per database (default %d); --quick = --rows %d\n"
            "  --reps N            repetitions per engine, each in a fresh process (default %d)\n"
            "  --gets N            random point gets (default: rows)\n"
            "  --commits N         single-row durable commits (default %d)\n"
            "  --cache-mib N       page cache of both engines in MiB (default %d)\n"
            "  --sqlite-page-size  SQLite page size for new files (default: SQLite's own)\n"
            "  --keep              keep the databases in bench/tmp/\n"
            "  --no-save           print only; do not write bench/results/\n"
            "Run from the repository root (make bench-rowstore does).\n",
            DEFAULT_ROWS, QUICK_ROWS, DEFAULT_REPS, DEFAULT_COMMITS, DEFAULT_CACHE_MIB);
    exit(2);
}

static uint64_t parse_count(const char *s, const char *flag) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s ? s : "", &end, 10);
    if (s == NULL || *s == '\0' || *end != '\0' || errno != 0 || v == 0) {
        fprintf(stderr, "bench_rowstore: %s needs a positive integer\n", flag);
        usage();
    }
    return v;
}

static void parse_options(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->rows = DEFAULT_ROWS;
    o->reps = DEFAULT_REPS;
    o->commits = DEFAULT_COMMITS;
    o->cache_mib = DEFAULT_CACHE_MIB;
    o->engines = "both";
    o->save = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--rows"))
            o->rows = parse_count(next, a), i++;
        else if (!strcmp(a, "--quick"))
            o->rows = QUICK_ROWS;
        else if (!strcmp(a, "--reps"))
            o->reps = (int)parse_count(next, a), i++;
        else if (!strcmp(a, "--gets"))
            o->gets = parse_count(next, a), i++;
        else if (!strcmp(a, "--commits"))
            o->commits = parse_count(next, a), i++;
        else if (!strcmp(a, "--cache-mib"))
            o->cache_mib = parse_count(next, a), i++;
        else if (!strcmp(a, "--sqlite-page-size"))
            o->sqlite_page_size = (int)parse_count(next, a), i++;
        else if (!strcmp(a, "--engine") && next)
            o->engines = next, i++;
        else if (!strcmp(a, "--keep"))
            o->keep = 1;
        else if (!strcmp(a, "--no-save"))
            o->save = 0;
        else if (!strcmp(a, "--child") && i + 3 < argc && !strcmp(argv[i + 2], "--dir")) {
            o->child_engine = argv[i + 1];
            o->child_dir = argv[i + 3];
            i += 3;
        } else
            usage();
    }
    if (o->gets == 0) o->gets = o->rows;
    if (o->rows > UINT32_MAX) die("--rows is limited to %u", UINT32_MAX);
    if (strcmp(o->engines, "both") && strcmp(o->engines, "strata") && strcmp(o->engines, "sqlite")) usage();
}

/* ---------------------------------------------------------------------------------------------
** The engine interface. Every workload is written once against it. Calls die on any error, so
** workloads contain only the operations they measure. Keys are integers; each engine encodes
** them its own way (strata: 8 bytes big-endian so memcmp order is numeric order; SQLite: the
** INTEGER PRIMARY KEY).
*/

typedef struct engine_stats {
    double leaf_fill;        /* average leaf fill 0..1, NAN when the engine does not say */
    double syncs, wal_pages; /* pager counters so far, NAN when unknown */
    double page_size;
} engine_stats;

typedef struct engine {
    const char *name;
    /* open (creating when fresh) the database at path with a page cache of cache_bytes */
    void *(*open)(const char *path, int fresh, const options *o);
    void (*close)(void *db);
    void (*begin_write)(void *db);
    void (*commit)(void *db); /* returns only once the write transaction is durable */
    void (*begin_read)(void *db);
    void (*end_read)(void *db);
    void (*put)(void *db, uint64_t key, const uint8_t *val, size_t vlen);
    /* get the value of an existing key; the pointer is valid until the next call on db */
    void (*get)(void *db, uint64_t key, const uint8_t **val, size_t *vlen);
    /* a full scan in key order inside a read transaction; next returns 0 at the end */
    void (*scan_begin)(void *db);
    int (*scan_next)(void *db, uint64_t *key, const uint8_t **val, size_t *vlen);
    void (*scan_end)(void *db);
    /* bulk load keys [0, rows) into the empty db inside a write transaction; NULL if none */
    void (*load)(void *db, uint64_t rows);
    /* counters; walk_tree also walks the whole tree for its fill (slow, and it fills the cache) */
    void (*stats)(void *db, int walk_tree, engine_stats *out);
} engine;

/* --- strata ---------------------------------------------------------------------------------- */

typedef struct kvs_db {
    kv_db *db;
    kv_txn *txn;
    kv_cursor *cursor;
    int cursor_started;
    btree_buf value; /* kv_get copies into it; reused, so no allocation per get */
} kvs_db;

static void *kvs_open(const char *path, int fresh, const options *o) {
    (void)fresh;
    kvs_db *s = calloc(1, sizeof *s);
    if (s == NULL) die("out of memory");
    kv_options opt;
    memset(&opt, 0, sizeof opt);
    opt.pager.cache_bytes = o->cache_mib << 20; /* other fields zero: the pager's defaults */
    strata_err err = {0};
    int rc = kv_open(path, &opt, &s->db, &err);
    if (rc != STRATA_OK) die("kv_open(%s): %s (%s)", path, err.msg, strata_errstr(rc));
    return s;
}

static void kvs_close(void *h) {
    kvs_db *s = h;
    int rc = kv_close(s->db);
    if (rc != STRATA_OK) die("kv_close: %s", strata_errstr(rc));
    btree_buf_free(&s->value);
    free(s);
}

static void kvs_begin(kvs_db *s, int write) {
    strata_err err = {0};
    int rc = kv_begin(s->db, write, &s->txn, &err);
    if (rc != STRATA_OK) die("kv_begin(%d): %s (%s)", write, err.msg, strata_errstr(rc));
}

static void kvs_begin_write(void *h) { kvs_begin(h, 1); }
static void kvs_begin_read(void *h) { kvs_begin(h, 0); }

static void kvs_commit(void *h) {
    kvs_db *s = h;
    int rc = kv_commit(s->txn); /* frees the transaction in every case */
    s->txn = NULL;
    if (rc != STRATA_OK) die("kv_commit: %s", strata_errstr(rc));
}

static void kvs_end_read(void *h) {
    kvs_db *s = h;
    kv_rollback(s->txn);
    s->txn = NULL;
}

static void kvs_put(void *h, uint64_t key, const uint8_t *val, size_t vlen) {
    kvs_db *s = h;
    uint8_t k[8];
    key_encode(k, key);
    int rc = kv_put(s->txn, k, sizeof k, val, vlen);
    if (rc != STRATA_OK)
        die("kv_put(%llu): %s (%s)", (unsigned long long)key, kv_txn_errmsg(s->txn), strata_errstr(rc));
}

static void kvs_get(void *h, uint64_t key, const uint8_t **val, size_t *vlen) {
    kvs_db *s = h;
    uint8_t k[8];
    key_encode(k, key);
    int rc = kv_get(s->txn, k, sizeof k, &s->value);
    if (rc != STRATA_OK)
        die("kv_get(%llu): %s (%s)", (unsigned long long)key, kv_txn_errmsg(s->txn), strata_errstr(rc));
    *val = s->value.data;
    *vlen = s->value.len;
}

static void kvs_scan_begin(void *h) {
    kvs_db *s = h;
    int rc = kv_cursor_open(s->txn, &s->cursor);
    if (rc != STRATA_OK) die("kv_cursor_open: %s", strata_errstr(rc));
    s->cursor_started = 0;
}

static int kvs_scan_next(void *h, uint64_t *key, const uint8_t **val, size_t *vlen) {
    kvs_db *s = h;
    int rc = s->cursor_started ? kv_cursor_next(s->cursor) : kv_cursor_first(s->cursor);
    s->cursor_started = 1;
    if (rc != STRATA_OK && rc != STRATA_DONE && rc != STRATA_NOTFOUND)
        die("cursor step: %s (%s)", kv_txn_errmsg(s->txn), strata_errstr(rc));
    const uint8_t *k;
    size_t klen;
    rc = kv_cursor_entry(s->cursor, &k, &klen, val, vlen);
    if (rc == STRATA_DONE) return 0;
    if (rc != STRATA_OK) die("cursor read: %s (%s)", kv_txn_errmsg(s->txn), strata_errstr(rc));
    if (klen != 8) die("cursor: key of %zu bytes", klen);
    *key = key_decode(k);
    return 1;
}

static void kvs_scan_end(void *h) {
    kvs_db *s = h;
    kv_cursor_close(s->cursor);
    s->cursor = NULL;
}

typedef struct row_source {
    uint64_t next, end;
    uint8_t key[8];
} row_source;

static int row_source_next(void *arg, const void **key, size_t *klen, const void **val, size_t *vlen) {
    row_source *src = arg;
    if (src->next == src->end) return STRATA_DONE;
    key_encode(src->key, src->next);
    *key = src->key;
    *klen = sizeof src->key;
    *val = value_for(src->next);
    *vlen = VALUE_LEN;
    src->next++;
    return STRATA_OK;
}

static void kvs_load(void *h, uint64_t rows) {
    kvs_db *s = h;
    row_source src = {.next = 0, .end = rows};
    int rc = kv_load(s->txn, row_source_next, &src);
    if (rc != STRATA_OK) die("kv_load: %s (%s)", kv_txn_errmsg(s->txn), strata_errstr(rc));
}

static void kvs_stats(void *h, int walk_tree, engine_stats *out) {
    kvs_db *s = h;
    pager_stats ps;
    pager_get_stats(kv_pager(s->db), &ps);
    out->syncs = (double)ps.syncs;
    out->wal_pages = (double)ps.pages_written_wal;
    out->page_size = pager_page_size(kv_pager(s->db));
    out->leaf_fill = NAN;
    if (!walk_tree) return;
    btree_stats bs;
    kvs_begin(s, 0);
    if (btree_get_stats(kv_txn_pager(s->txn), kv_root(s->txn), &bs) == STRATA_OK)
        out->leaf_fill = bs.leaf_fill;
    kvs_end_read(s);
}

static const engine strata_engine = {
    .name = "strata",
    .open = kvs_open,
    .close = kvs_close,
    .begin_write = kvs_begin_write,
    .commit = kvs_commit,
    .begin_read = kvs_begin_read,
    .end_read = kvs_end_read,
    .put = kvs_put,
    .get = kvs_get,
    .scan_begin = kvs_scan_begin,
    .scan_next = kvs_scan_next,
    .scan_end = kvs_scan_end,
    .load = kvs_load,
    .stats = kvs_stats,
};

/* --- SQLite ---------------------------------------------------------------------------------- */

/* Statements are prepared on first use, so that the open workload pays only for what its first
** read needs (the SELECT), and every later use is bind/step/reset. */
typedef struct sqlite_db {
    sqlite3 *db;
    sqlite3_stmt *begin, *commit, *insert, *select, *scan;
} sqlite_db;

static void sqlite_check(sqlite_db *s, int rc, int want, const char *what) {
    if (rc != want) die("%s: %s (%d)", what, sqlite3_errmsg(s->db), rc);
}

static sqlite3_stmt *sqlite_stmt(sqlite_db *s, sqlite3_stmt **slot, const char *sql) {
    if (*slot == NULL) sqlite_check(s, sqlite3_prepare_v2(s->db, sql, -1, slot, NULL), SQLITE_OK, sql);
    return *slot;
}

static void *sqlite_open(const char *path, int fresh, const options *o) {
    sqlite_db *s = calloc(1, sizeof *s);
    if (s == NULL) die("out of memory");
    int rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    sqlite_check(s, rc, SQLITE_OK, "sqlite3_open_v2");
    char sql[512];
    int n = 0;
    if (fresh && o->sqlite_page_size)
        n += snprintf(sql + n, sizeof sql - n, "PRAGMA page_size=%d;", o->sqlite_page_size);
    n += snprintf(sql + n, sizeof sql - n,
                  "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA cache_size=-%zu;",
                  o->cache_mib * 1024);
    if (fresh) snprintf(sql + n, sizeof sql - n, "CREATE TABLE t(k INTEGER PRIMARY KEY, v BLOB);");
    sqlite_check(s, sqlite3_exec(s->db, sql, NULL, NULL, NULL), SQLITE_OK, sql);
    return s;
}

static void sqlite_close(void *h) {
    sqlite_db *s = h;
    sqlite3_stmt *all[] = {s->begin, s->commit, s->insert, s->select, s->scan};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        sqlite3_finalize(all[i]);
    sqlite_check(s, sqlite3_close(s->db), SQLITE_OK, "sqlite3_close");
    free(s);
}

static void sqlite_begin(void *h) {
    sqlite_db *s = h;
    sqlite3_stmt *st = sqlite_stmt(s, &s->begin, "BEGIN");
    sqlite_check(s, sqlite3_step(st), SQLITE_DONE, "BEGIN");
    sqlite3_reset(st);
}

static void sqlite_commit(void *h) {
    sqlite_db *s = h;
    if (s->select) sqlite3_reset(s->select);
    if (s->scan) sqlite3_reset(s->scan);
    sqlite3_stmt *st = sqlite_stmt(s, &s->commit, "COMMIT");
    sqlite_check(s, sqlite3_step(st), SQLITE_DONE, "COMMIT");
    sqlite3_reset(st);
}

static void sqlite_put(void *h, uint64_t key, const uint8_t *val, size_t vlen) {
    sqlite_db *s = h;
    sqlite3_stmt *st = sqlite_stmt(s, &s->insert, "INSERT INTO t(k, v) VALUES (?1, ?2)");
    sqlite3_bind_int64(st, 1, (sqlite3_int64)key);
    sqlite3_bind_blob(st, 2, val, (int)vlen, SQLITE_STATIC);
    sqlite_check(s, sqlite3_step(st), SQLITE_DONE, "INSERT");
    sqlite3_reset(st);
}

static void sqlite_get(void *h, uint64_t key, const uint8_t **val, size_t *vlen) {
    sqlite_db *s = h;
    sqlite3_stmt *st = sqlite_stmt(s, &s->select, "SELECT v FROM t WHERE k = ?1");
    sqlite3_reset(st); /* the previous row's value stayed valid until now */
    sqlite3_bind_int64(st, 1, (sqlite3_int64)key);
    if (sqlite3_step(st) != SQLITE_ROW)
        die("SELECT %llu: no row (%s)", (unsigned long long)key, sqlite3_errmsg(s->db));
    *val = sqlite3_column_blob(st, 0);
    *vlen = (size_t)sqlite3_column_bytes(st, 0);
}

static void sqlite_scan_begin(void *h) {
    sqlite_db *s = h;
    sqlite3_reset(sqlite_stmt(s, &s->scan, "SELECT k, v FROM t ORDER BY k"));
}

static int sqlite_scan_next(void *h, uint64_t *key, const uint8_t **val, size_t *vlen) {
    sqlite_db *s = h;
    int rc = sqlite3_step(s->scan);
    if (rc == SQLITE_DONE) return 0;
    sqlite_check(s, rc, SQLITE_ROW, "scan step");
    *key = (uint64_t)sqlite3_column_int64(s->scan, 0);
    *val = sqlite3_column_blob(s->scan, 1);
    *vlen = (size_t)sqlite3_column_bytes(s->scan, 1);
    return 1;
}

static void sqlite_scan_end(void *h) {
    sqlite_db *s = h;
    sqlite3_reset(s->scan);
}

static void sqlite_stats(void *h, int walk_tree, engine_stats *out) {
    sqlite_db *s = h;
    (void)walk_tree;
    sqlite3_stmt *st;
    out->leaf_fill = out->syncs = out->wal_pages = out->page_size = NAN;
    if (sqlite3_prepare_v2(s->db, "PRAGMA page_size", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) out->page_size = (double)sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
}

static const engine sqlite_engine = {
    .name = "sqlite",
    .open = sqlite_open,
    .close = sqlite_close,
    .begin_write = sqlite_begin,
    .commit = sqlite_commit,
    .begin_read = sqlite_begin, /* deferred BEGIN: a read transaction until the first write */
    .end_read = sqlite_commit,
    .put = sqlite_put,
    .get = sqlite_get,
    .scan_begin = sqlite_scan_begin,
    .scan_next = sqlite_scan_next,
    .scan_end = sqlite_scan_end,
    .load = NULL,
    .stats = sqlite_stats,
};

static const engine *engine_by_name(const char *name) {
    if (!strcmp(name, "strata")) return &strata_engine;
    if (!strcmp(name, "sqlite")) return &sqlite_engine;
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
** What a child measures. Every figure has an id (its name in the result file and the JSON).
*/

enum metric {
    M_SEQ_INSERT,
    M_SEQ_COMMIT,
    M_BULK_LOAD,
    M_RAND_INSERT,
    M_GET,
    M_SCAN,
    M_COMMIT,
    M_COMMIT_P50,
    M_COMMIT_P99,
    M_PAIRED_FLOOR,
    M_COMMIT_VS_PAIRED,
    M_OPEN,
    M_SIZE,
    M_SIZE_WAL,
    M_RAND_SIZE,
    M_BULK_SIZE,
    M_SEQ_FILL,
    M_RAND_FILL,
    M_SYNCS_PER_COMMIT,
    M_WAL_PAGES_PER_COMMIT,
    M_PAGE_SIZE,
    M_MEM_SEQ,
    M_MEM_BULK,
    M_MEM_RAND,
    M_MEM_GET,
    M_MEM_SCAN,
    M_MEM_COMMIT,
    M_MEM_OPEN,
    M_MAXRSS,
    M_GET_ROWS,
    M_GET_KEYS,
    M_GET_VALUES,
    M_SCAN_ROWS,
    M_SCAN_KEYS,
    M_SCAN_VALUES,
    M_FLOOR,
    M_FLOOR_APPEND,
    M_PEAK_RESET_OK,
    M_LOAD1,
    M_IO_PRESSURE,
    M_CPU_SECONDS,
    M_COUNT
};

typedef struct metric_def {
    const char *id;
    const char *label; /* NULL: JSON only */
    const char *unit;
    int mem;     /* the metric holding the workload's peak RSS, or -1 */
    int is_size; /* smaller/larger instead of faster/slower */
} metric_def;

/* Table rows appear in this order; labels with %s get the row count. */
static const metric_def metric_defs[M_COUNT] = {
    [M_SEQ_INSERT] = {"seq_insert_ns_per_row", "1. sequential insert, %s rows, 1 txn (commit incl.)",
                      "ns/row", M_MEM_SEQ, 0},
    [M_SEQ_COMMIT] = {"seq_insert_commit_us", "   of which the final commit", "µs", -1, 0},
    [M_BULK_LOAD] = {"bulk_load_ns_per_row", "1+. bulk load (sorted loader), %s rows", "ns/row", M_MEM_BULK,
                     0},
    [M_RAND_INSERT] = {"rand_insert_ns_per_row", "2. random insert, %s rows, 1 txn (commit incl.)", "ns/row",
                       M_MEM_RAND, 0},
    [M_GET] = {"get_ns", "3. warm random point get (value read)", "ns/get", M_MEM_GET, 0},
    [M_SCAN] = {"scan_ns_per_row", "4. full cursor scan (keys + values read)", "ns/row", M_MEM_SCAN, 0},
    [M_COMMIT] = {"commit_us_mean", "5. single-row durable commit, mean", "µs", M_MEM_COMMIT, 0},
    [M_COMMIT_P50] = {"commit_us_p50", "   single-row durable commit, p50 in a rep", "µs", -1, 0},
    [M_COMMIT_P99] = {"commit_us_p99", "   single-row durable commit, p99 in a rep", "µs", -1, 0},
    [M_PAIRED_FLOOR] = {"paired_floor_us", "   paired floor: 4 KiB pwrite + fdatasync before each commit, mean", "µs", -1, 0},
    [M_COMMIT_VS_PAIRED] = {"commit_over_paired_floor", "   durable commit mean ÷ paired floor mean", "×", -1, 0},
    [M_OPEN] = {"open_us", "6. open + first read of the loaded db", "µs", M_MEM_OPEN, 0},
    [M_SIZE] = {"size_bytes", "7. file size after sequential load (db + WAL)", "bytes", -1, 1},
    [M_SIZE_WAL] = {"size_wal_bytes", "   of which WAL", "bytes", -1, 1},
    [M_RAND_SIZE] = {"rand_size_bytes", "   file size after random insert", "bytes", -1, 1},
    [M_BULK_SIZE] = {"bulk_size_bytes", "   file size after bulk load", "bytes", -1, 1},
    [M_SEQ_FILL] = {"seq_leaf_fill", "   leaf fill after sequential insert", "0..1", -1, 0},
    [M_RAND_FILL] = {"rand_leaf_fill", "   leaf fill after random insert", "0..1", -1, 0},
    [M_SYNCS_PER_COMMIT] = {"syncs_per_commit", "   fsyncs per durable commit", "count", -1, 0},
    [M_WAL_PAGES_PER_COMMIT] = {"wal_pages_per_commit", "   WAL pages written per durable commit", "pages",
                                -1, 0},
    [M_PAGE_SIZE] = {"page_size", NULL, "bytes", -1, 0},
    [M_MEM_SEQ] = {"peak_rss_kib_seq_insert", NULL, "KiB", -1, 0},
    [M_MEM_BULK] = {"peak_rss_kib_bulk_load", NULL, "KiB", -1, 0},
    [M_MEM_RAND] = {"peak_rss_kib_rand_insert", NULL, "KiB", -1, 0},
    [M_MEM_GET] = {"peak_rss_kib_get", NULL, "KiB", -1, 0},
    [M_MEM_SCAN] = {"peak_rss_kib_scan", NULL, "KiB", -1, 0},
    [M_MEM_COMMIT] = {"peak_rss_kib_commit", NULL, "KiB", -1, 0},
    [M_MEM_OPEN] = {"peak_rss_kib_open", NULL, "KiB", -1, 0},
    [M_MAXRSS] = {"maxrss_kib", "process peak RSS (getrusage ru_maxrss)", "MiB", -1, 1},
    [M_GET_ROWS] = {"checksum_get_rows", NULL, "", -1, 0},
    [M_GET_KEYS] = {"checksum_get_keys", NULL, "", -1, 0},
    [M_GET_VALUES] = {"checksum_get_values", NULL, "", -1, 0},
    [M_SCAN_ROWS] = {"checksum_scan_rows", NULL, "", -1, 0},
    [M_SCAN_KEYS] = {"checksum_scan_keys", NULL, "", -1, 0},
    [M_SCAN_VALUES] = {"checksum_scan_values", NULL, "", -1, 0},
    [M_FLOOR] = {"floor_pwrite_fdatasync_us", NULL, "µs", -1, 0},
    [M_FLOOR_APPEND] = {"floor_append_pwrite_fdatasync_us", NULL, "µs", -1, 0},
    [M_PEAK_RESET_OK] = {"peak_rss_reset_ok", NULL, "1 = per-workload peaks", -1, 0},
    [M_LOAD1] = {"load1_at_end", NULL, "", -1, 0},
    [M_IO_PRESSURE] = {"io_pressure_some_avg10_at_end", NULL, "%", -1, 0},
    [M_CPU_SECONDS] = {"cpu_seconds", NULL, "s", -1, 0},
};

/* Checksums travel as metrics: doubles hold these integers exactly below 2^53. */
static const int checksum_metrics[] = {M_GET_ROWS,  M_GET_KEYS,  M_GET_VALUES,
                                       M_SCAN_ROWS, M_SCAN_KEYS, M_SCAN_VALUES};


/* ---------------------------------------------------------------------------------------------
** The workloads, written once for both engines. Each stores its figures in m[].
*/

static void *open_fresh(const engine *e, const char *path, const options *o) {
    char wal[4096];
    snprintf(wal, sizeof wal, "%s-wal", path);
    unlink(path);
    unlink(wal);
    return e->open(path, 1, o);
}

/* 1. Keys 0..rows-1 in order, one transaction, then the commit. */
static void wl_seq_insert(const engine *e, void *db, const options *o, double *m) {
    current_workload = "sequential insert";
    peak_reset();
    uint64_t t0 = now_ns();
    e->begin_write(db);
    for (uint64_t k = 0; k < o->rows; k++)
        e->put(db, k, value_for(k), VALUE_LEN);
    uint64_t t1 = now_ns();
    e->commit(db);
    uint64_t t2 = now_ns();
    m[M_SEQ_INSERT] = (double)(t2 - t0) / (double)o->rows;
    m[M_SEQ_COMMIT] = (double)(t2 - t1) / 1e3;
    m[M_MEM_SEQ] = peak_kib();
}

/* 1+. The same rows through the engine's sorted bulk loader. */
static void wl_bulk_load(const engine *e, void *db, const options *o, double *m) {
    current_workload = "bulk load (sorted loader)";
    peak_reset();
    uint64_t t0 = now_ns();
    e->begin_write(db);
    e->load(db, o->rows);
    e->commit(db);
    uint64_t t1 = now_ns();
    m[M_BULK_LOAD] = (double)(t1 - t0) / (double)o->rows;
    m[M_MEM_BULK] = peak_kib();
}

/* 2. The keys in a fixed random order (the same permutation for both engines). */
static void wl_rand_insert(const engine *e, void *db, const options *o, double *m) {
    current_workload = "random insert";
    uint32_t *perm = malloc(o->rows * sizeof *perm);
    if (perm == NULL) die("out of memory");
    for (uint64_t i = 0; i < o->rows; i++)
        perm[i] = (uint32_t)i;
    uint64_t rng = 0x0BADC0DEu;
    for (uint64_t i = o->rows - 1; i > 0; i--) {
        uint64_t j = below(&rng, i + 1);
        uint32_t tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
    peak_reset();
    uint64_t t0 = now_ns();
    e->begin_write(db);
    for (uint64_t i = 0; i < o->rows; i++)
        e->put(db, perm[i], value_for(perm[i]), VALUE_LEN);
    e->commit(db);
    uint64_t t1 = now_ns();
    m[M_RAND_INSERT] = (double)(t1 - t0) / (double)o->rows;
    m[M_MEM_RAND] = peak_kib();
    free(perm);
}

/* 3. Uniformly random existing keys, all in one read transaction, every value byte read. */
static void wl_get(const engine *e, void *db, const options *o, double *m) {
    current_workload = "warm random point get";
    checksum want = {0}, got = {0};
    uint64_t rng = 0x6E75C0DEu;
    for (uint64_t i = 0; i < o->gets; i++) {
        uint64_t k = below(&rng, o->rows);
        checksum_add(&want, k, value_for(k), VALUE_LEN);
    }
    peak_reset();
    rng = 0x6E75C0DEu;
    uint64_t t0 = now_ns();
    e->begin_read(db);
    for (uint64_t i = 0; i < o->gets; i++) {
        uint64_t k = below(&rng, o->rows);
        const uint8_t *v;
        size_t vlen;
        e->get(db, k, &v, &vlen);
        checksum_add(&got, k, v, vlen);
    }
    e->end_read(db);
    uint64_t t1 = now_ns();
    m[M_GET] = (double)(t1 - t0) / (double)o->gets;
    m[M_MEM_GET] = peak_kib();
    checksum_expect(&got, &want);
    m[M_GET_ROWS] = (double)got.rows;
    m[M_GET_KEYS] = (double)got.key_sum;
    m[M_GET_VALUES] = (double)got.value_sum;
}

/* 4. Every row in key order; keys must come strictly increasing. */
static void wl_scan(const engine *e, void *db, const options *o, double *m) {
    current_workload = "full cursor scan";
    checksum want = {0}, got = {0};
    for (uint64_t k = 0; k < o->rows; k++)
        checksum_add(&want, k, value_for(k), VALUE_LEN);
    peak_reset();
    uint64_t key, prev = 0, t0 = now_ns();
    const uint8_t *v;
    size_t vlen;
    e->begin_read(db);
    e->scan_begin(db);
    while (e->scan_next(db, &key, &v, &vlen)) {
        if (got.rows > 0 && key <= prev)
            die("key %llu after %llu", (unsigned long long)key, (unsigned long long)prev);
        prev = key;
        checksum_add(&got, key, v, vlen);
    }
    e->scan_end(db);
    e->end_read(db);
    uint64_t t1 = now_ns();
    m[M_SCAN] = (double)(t1 - t0) / (double)o->rows;
    m[M_MEM_SCAN] = peak_kib();
    checksum_expect(&got, &want);
    m[M_SCAN_ROWS] = (double)got.rows;
    m[M_SCAN_KEYS] = (double)got.key_sum;
    m[M_SCAN_VALUES] = (double)got.value_sum;
}

/* 6. Open the closed database and read one row: what a process pays before its first answer. */
static void *wl_open(const engine *e, const char *path, const options *o, double *m) {
    current_workload = "open + first read";
    peak_reset();
    uint64_t t0 = now_ns();
    void *db = e->open(path, 0, o);
    const uint8_t *v;
    size_t vlen;
    e->begin_read(db);
    e->get(db, o->rows / 2, &v, &vlen);
    if (vlen != VALUE_LEN || memcmp(v, value_for(o->rows / 2), VALUE_LEN) != 0) die("wrong value");
    e->end_read(db);
    uint64_t t1 = now_ns();
    m[M_OPEN] = (double)(t1 - t0) / 1e3;
    m[M_MEM_OPEN] = peak_kib();
    return db;
}

/* 5. One row per durable transaction, appended after the loaded keys (rows, rows+1, ...); before
** each, the paired floor write to `scratch` (not counted in the commit's time). */
static void wl_commits(const engine *e, void *db, const options *o, const char *scratch, double *m) {
    current_workload = "single-row durable commits";
    uint64_t *lat = malloc(o->commits * sizeof *lat), total = 0, floor_total = 0;
    if (lat == NULL) die("out of memory");
    floor_file ff;
    floor_open(&ff, scratch, (int)o->commits);
    engine_stats before, after;
    e->stats(db, 0, &before);
    peak_reset();
    for (uint64_t i = 0; i < o->commits; i++) {
        floor_total += floor_write_ns(&ff, (int)i);
        uint64_t k = o->rows + i, t0 = now_ns();
        e->begin_write(db);
        e->put(db, k, value_for(k), VALUE_LEN);
        e->commit(db);
        lat[i] = now_ns() - t0;
        total += lat[i];
    }
    m[M_MEM_COMMIT] = peak_kib();
    floor_close(&ff);
    e->stats(db, 0, &after);
    qsort(lat, o->commits, sizeof *lat, cmp_u64);
    m[M_COMMIT] = (double)total / (double)o->commits / 1e3;
    m[M_PAIRED_FLOOR] = (double)floor_total / (double)o->commits / 1e3;
    m[M_COMMIT_VS_PAIRED] = m[M_COMMIT] / m[M_PAIRED_FLOOR];
    m[M_COMMIT_P50] = (double)lat[(o->commits - 1) / 2] / 1e3;
    m[M_COMMIT_P99] = (double)lat[(size_t)ceil(0.99 * (double)o->commits) - 1] / 1e3;
    m[M_SYNCS_PER_COMMIT] = (after.syncs - before.syncs) / (double)o->commits;
    m[M_WAL_PAGES_PER_COMMIT] = (after.wal_pages - before.wal_pages) / (double)o->commits;
    free(lat);
}


/* ---------------------------------------------------------------------------------------------
** A child process: one engine, all workloads, figures written to <dir>/result.txt.
*/

static void write_results(const char *dir, const double *m) {
    char path[4096];
    snprintf(path, sizeof path, "%s/result.txt", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL) die("cannot write %s: %s", path, strerror(errno));
    for (int i = 0; i < M_COUNT; i++)
        if (!isnan(m[i])) fprintf(f, "%s %.17g\n", metric_defs[i].id, m[i]);
    if (fclose(f) != 0) die("cannot write %s: %s", path, strerror(errno));
}

static void run_engine_child(const engine *e, const options *o) {
    double m[M_COUNT];
    for (int i = 0; i < M_COUNT; i++)
        m[i] = NAN;
    char path[4096], wal[4200], scratch[4200];
    current_engine = e->name;

    /* Sequential load, then the reads on that warm database. */
    snprintf(path, sizeof path, "%s/seq.db", o->child_dir);
    snprintf(wal, sizeof wal, "%s-wal", path);
    void *db = open_fresh(e, path, o);
    wl_seq_insert(e, db, o, m);
    wl_get(e, db, o, m);
    wl_scan(e, db, o, m);
    engine_stats st;
    e->stats(db, 1, &st);
    m[M_SEQ_FILL] = st.leaf_fill;
    m[M_PAGE_SIZE] = st.page_size;
    current_workload = "close after load";
    e->close(db);
    m[M_SIZE_WAL] = file_size(wal);
    m[M_SIZE] = file_size(path) + m[M_SIZE_WAL];

    /* Reopen, then durable commits into the loaded database. */
    db = wl_open(e, path, o, m);
    snprintf(scratch, sizeof scratch, "%s/paired-floor.dat", o->child_dir);
    wl_commits(e, db, o, scratch, m);
    current_workload = "check of the durable commits after reopen";
    e->close(db);
    db = e->open(path, 0, o);
    const uint8_t *v;
    size_t vlen;
    e->begin_read(db);
    e->get(db, o->rows + o->commits - 1, &v, &vlen);
    if (vlen != VALUE_LEN || memcmp(v, value_for(o->rows + o->commits - 1), VALUE_LEN) != 0)
        die("the last committed row has a wrong value");
    e->end_read(db);
    e->close(db);

    /* Random-order insert into a fresh database. */
    snprintf(path, sizeof path, "%s/rand.db", o->child_dir);
    snprintf(wal, sizeof wal, "%s-wal", path);
    db = open_fresh(e, path, o);
    wl_rand_insert(e, db, o, m);
    e->stats(db, 1, &st);
    m[M_RAND_FILL] = st.leaf_fill;
    e->close(db);
    m[M_RAND_SIZE] = file_size(path) + file_size(wal);

    if (e->load) {
        snprintf(path, sizeof path, "%s/bulk.db", o->child_dir);
        snprintf(wal, sizeof wal, "%s-wal", path);
        db = open_fresh(e, path, o);
        wl_bulk_load(e, db, o, m);
        e->close(db);
        m[M_BULK_SIZE] = file_size(path) + file_size(wal);
    }

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    m[M_MAXRSS] = (double)ru.ru_maxrss;
    m[M_PEAK_RESET_OK] = peak_reset_works;
    m[M_CPU_SECONDS] = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    double load[1];
    if (getloadavg(load, 1) == 1) m[M_LOAD1] = load[0];
    m[M_IO_PRESSURE] = io_pressure();
    write_results(o->child_dir, m);
}

static void run_floor_child(const options *o) {
    double m[M_COUNT];
    for (int i = 0; i < M_COUNT; i++)
        m[i] = NAN;
    char path[4096];
    current_engine = "floor";
    current_workload = "4 KiB pwrite + fdatasync";
    snprintf(path, sizeof path, "%s/floor.dat", o->child_dir);
    m[M_FLOOR] = floor_median_us(path, 1, FLOOR_WRITES);
    m[M_FLOOR_APPEND] = floor_median_us(path, 0, FLOOR_WRITES);
    write_results(o->child_dir, m);
}

/* ---------------------------------------------------------------------------------------------
** The parent: spawn the children, collect, summarize, report.
*/

enum { E_STRATA, E_SQLITE, E_FLOOR, E_COUNT };
static const char *const engine_names[E_COUNT] = {"strata", "sqlite", "floor"};

typedef struct sample {
    int engine, rep, position; /* position: order within the repetition (0 = ran first) */
    double seconds;            /* wall time of the child */
    double m[M_COUNT];
} sample;


static void read_results(const char *dir, sample *s) {
    char path[4200], id[128];
    double v;
    snprintf(path, sizeof path, "%s/result.txt", dir);
    FILE *f = fopen(path, "r");
    if (f == NULL) die("no result file %s", path);
    for (int i = 0; i < M_COUNT; i++)
        s->m[i] = NAN;
    while (fscanf(f, "%127s %lf", id, &v) == 2)
        for (int i = 0; i < M_COUNT; i++)
            if (!strcmp(id, metric_defs[i].id)) s->m[i] = v;
    fclose(f);
}

static void run_child(const char *exe, const options *o, const char *run_dir, sample *s) {
    char dir[4096], num[4][32];
    snprintf(dir, sizeof dir, "%s/%s-%d", run_dir, engine_names[s->engine], s->rep);
    if (mkdir(dir, 0755) != 0) die("mkdir %s: %s", dir, strerror(errno));
    snprintf(num[0], sizeof num[0], "%llu", (unsigned long long)o->rows);
    snprintf(num[1], sizeof num[1], "%llu", (unsigned long long)o->gets);
    snprintf(num[2], sizeof num[2], "%llu", (unsigned long long)o->commits);
    snprintf(num[3], sizeof num[3], "%zu", o->cache_mib);
    char psz[32];
    snprintf(psz, sizeof psz, "%d", o->sqlite_page_size);
    const char *argv[] = {exe,
                          "--child",
                          engine_names[s->engine],
                          "--dir",
                          dir,
                          "--rows",
                          num[0],
                          "--gets",
                          num[1],
                          "--commits",
                          num[2],
                          "--cache-mib",
                          num[3],
                          o->sqlite_page_size ? "--sqlite-page-size" : NULL,
                          psz,
                          NULL};
    int status = run_process(argv, &s->seconds);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr,
                "bench_rowstore: the %s child of repetition %d failed (%s %d); databases kept in %s\n",
                engine_names[s->engine], s->rep, WIFEXITED(status) ? "exit status" : "signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), dir);
        exit(1);
    }
    read_results(dir, s);
    if (!o->keep) remove_tree(dir);
}


static summary summarize(const sample *samples, int nsamples, int engine, int metric) {
    double v[256];
    int n = 0;
    for (int i = 0; i < nsamples && n < 256; i++)
        if (samples[i].engine == engine && !isnan(samples[i].m[metric])) v[n++] = samples[i].m[metric];
    return summary_of(v, n);
}


/* --- report ------------------------------------------------------------------------------ */


/* "strata 1.2 (1.0–1.5), SQLite 1.1 (...)" for a figure of the environment recorded by each child. */
static void fmt_by_engine(char *out, size_t n, const sample *samples, int nsamples, int metric) {
    char a[96], b[96];
    fmt_summary(a, sizeof a, summarize(samples, nsamples, E_STRATA, metric), 1);
    fmt_summary(b, sizeof b, summarize(samples, nsamples, E_SQLITE, metric), 1);
    snprintf(out, n, "strata %s, SQLite %s", a, b);
}

static void write_report(FILE *out, const options *o, const environment *env, const sample *samples,
                         int nsamples, const char *saved_as) {
    char rows[40], cell[4][160];
    fmt_num(rows, sizeof rows, (double)o->rows);
    double strata_ps = summarize(samples, nsamples, E_STRATA, M_PAGE_SIZE).median;
    double sqlite_ps_v = summarize(samples, nsamples, E_SQLITE, M_PAGE_SIZE).median;

    fprintf(out, "# strata row store vs SQLite — key-value benchmark\n\n");
    fprintf(out,
            "%s rows of 8-byte keys and %d-byte values; %llu random gets; %llu single-row durable "
            "commits; %d repetition(s) per engine, each in a fresh process on fresh databases, "
            "engine order alternating. Median (min–max) over repetitions.\n\n",
            rows, VALUE_LEN, (unsigned long long)o->gets, (unsigned long long)o->commits, o->reps);
    fprintf(out, "| workload | unit | strata | SQLite | strata ÷ SQLite | verdict | strata peak MiB | SQLite "
                 "peak MiB |\n");
    fprintf(out, "|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < M_COUNT; i++) {
        const metric_def *d = &metric_defs[i];
        if (d->label == NULL) continue;
        summary a = summarize(samples, nsamples, E_STRATA, i), b = summarize(samples, nsamples, E_SQLITE, i);
        if (a.n == 0 && b.n == 0) continue;
        double scale = i == M_MAXRSS ? 1.0 / 1024 : 1.0;
        char label[160];
        snprintf(label, sizeof label, d->label, rows);
        fmt_summary(cell[0], sizeof cell[0], a, scale);
        fmt_summary(cell[1], sizeof cell[1], b, scale);
        if (a.n && b.n && b.median != 0)
            snprintf(cell[2], sizeof cell[2], "%.2f", a.median / b.median);
        else
            snprintf(cell[2], sizeof cell[2], "–");
        fmt_mib(cell[3], sizeof cell[3],
                d->mem >= 0 ? summarize(samples, nsamples, E_STRATA, d->mem) : (summary){0});
        char sq[64];
        fmt_mib(sq, sizeof sq, d->mem >= 0 ? summarize(samples, nsamples, E_SQLITE, d->mem) : (summary){0});
        fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", label, d->unit, cell[0], cell[1], cell[2],
                verdict(a, b, d->is_size), cell[3], sq);
    }

    summary fl = summarize(samples, nsamples, E_FLOOR, M_FLOOR);
    summary fa = summarize(samples, nsamples, E_FLOOR, M_FLOOR_APPEND);
    summary sc = summarize(samples, nsamples, E_STRATA, M_COMMIT);
    summary qc = summarize(samples, nsamples, E_SQLITE, M_COMMIT);
    fmt_summary(cell[0], sizeof cell[0], fl, 1);
    fmt_summary(cell[1], sizeof cell[1], fa, 1);
    fprintf(out,
            "\n**Durable-commit floor** on this disk (%s): one 4 KiB pwrite + fdatasync, median of %d per "
            "repetition: %s µs overwriting a synced file; %s µs appending to a new file.\n",
            env->fs, FLOOR_WRITES, cell[0], cell[1]);
    summary sp = summarize(samples, nsamples, E_STRATA, M_COMMIT_P50);
    summary qp = summarize(samples, nsamples, E_SQLITE, M_COMMIT_P50);
    summary pr = summarize(samples, nsamples, E_STRATA, M_COMMIT_VS_PAIRED);
    if (pr.n)
        fprintf(out,
                "Target for strata's single-row durable commit: ≤ 1.3 × the floor. Against the paired floor "
                "(timed before each commit, same process, same moment): commit mean ÷ floor mean %.2f "
                "(%.2f–%.2f over repetitions), **%s** at the median%s.\n",
                pr.median, pr.min, pr.max, pr.median <= 1.3 ? "met" : "not met",
                pr.max <= 1.3 ? " and in every repetition" : "");
    if (fl.n && sc.n)
        fprintf(out,
                "Against the floor process's median: mean %.1f µs = %.2f × floor; p50 %.1f µs = %.2f × floor.\n",
                sc.median, sc.median / fl.median, sp.median, sp.median / fl.median);
    if (fl.n && qc.n)
        fprintf(out, "SQLite's single-row durable commit: mean %.2f × floor, p50 %.2f × floor.\n",
                qc.median / fl.median, qp.median / fl.median);

    if (fl.n > 1 && fl.max > 3 * fl.min)
        fprintf(out,
                "**Warning:** the floor varied from %.0f to %.0f µs between repetitions: the disk was not "
                "quiet (other processes' I/O), and durable-commit figures of this run carry that noise. "
                "Compare each sample's commit with the disk floor its own process measured just before "
                "(rows above; every repetition in the JSON).\n",
                fl.min, fl.max);
    fmt_num(cell[2], sizeof cell[2], strata_ps);
    fmt_num(cell[3], sizeof cell[3], sqlite_ps_v);
    fprintf(out, "\nNotes:\n");
    fprintf(out, "- SQLite's figures include its SQL layer: each statement is prepared once, then "
                 "bind/step/reset per row (INSERT INTO t(k, v) VALUES (?1, ?2) with an int64 key and a blob "
                 "value; SELECT v FROM t WHERE k = ?1; SELECT k, v FROM t ORDER BY k). strata's figures are "
                 "kv.h calls with 8-byte big-endian keys; kv_get copies the value into a reused buffer.\n");
    fprintf(out,
            "- Durability: SQLite journal_mode=WAL, synchronous=FULL; strata's kv_commit is durable. "
            "Page cache %zu MiB for both (strata pager_config.cache_bytes, other pager fields default; "
            "SQLite PRAGMA cache_size=-%zu). Page size (bytes): strata %s, SQLite %s. Auto-checkpoint: both "
            "engines' defaults.\n",
            o->cache_mib, o->cache_mib * 1024, cell[2], cell[3]);
    fprintf(out,
            "- The OS page cache is not dropped: \"warm\" reads and the open test read files the OS already "
            "holds. Gets and the scan each run in one read transaction (SQLite: BEGIN ... COMMIT) on "
            "the database just loaded by workload 1, still open. Its files (strata %.0f MiB, SQLite %.0f "
            "MiB) against the %zu MiB engine cache: what does not fit is read from the OS cache.\n",
            summarize(samples, nsamples, E_STRATA, M_SIZE).median / 1048576,
            summarize(samples, nsamples, E_SQLITE, M_SIZE).median / 1048576, o->cache_mib);
    fprintf(out, "- strata ÷ SQLite is the ratio of medians: below 1 strata takes less time (or space).\n");
    fprintf(out,
            "- Workload 5 appends keys %s.. to the loaded database after it was closed and reopened "
            "(workload 6); each commit is its own transaction (BEGIN, one insert, COMMIT).\n",
            rows);
    fprintf(out, "- Workload 6 times open + first read: kv_open + one kv_get; SQLite: sqlite3_open_v2, the "
                 "PRAGMAs above, prepare of the SELECT, one step.\n");
    fprintf(out, "- File sizes are measured after close (both engines checkpoint on close); they include the "
                 "WAL if one remains, not SQLite's -shm.\n");
    fprintf(out,
            "- Peak MiB is the process's RSS high-water mark during the workload (reset before it via "
            "/proc/self/clear_refs%s), so it includes what the process already held (the data "
            "generator's few MiB, the 4 MiB permutation for random insert).\n",
            summarize(samples, nsamples, E_STRATA, M_PEAK_RESET_OK).min == 0 ||
                    summarize(samples, nsamples, E_SQLITE, M_PEAK_RESET_OK).min == 0
                ? " — which FAILED here, so these are cumulative peaks"
                : "");
    fprintf(out, "- Verdict: faster/slower (smaller/larger for sizes) only when the min–max ranges do not "
                 "overlap. Result checksums of gets and scan matched the data generator for every sample "
                 "and agree between engines.\n");

    char load[256], pressure[256];
    fmt_by_engine(load, sizeof load, samples, nsamples, M_LOAD1);
    fmt_by_engine(pressure, sizeof pressure, samples, nsamples, M_IO_PRESSURE);
    fprintf(
        out,
        "\nEnvironment: %s, %ld cores, %.1f GiB RAM; %s; file system of bench/tmp: %s. Compiler: "
        "%s; flags: `%s`; library %s. SQLite %s. Load average before/after: %s / %s; at the end of each "
        "engine process: "
        "load %s; I/O pressure (PSI some avg10, %%, includes the benchmark's own I/O) %s. Git commit %s%s. "
        "Date %s.%s%s\n",
        env->cpu, env->cores, env->mem_gib, env->kernel, env->fs, COMPILER, BENCH_CFLAGS, BENCH_LIB,
        sqlite3_libversion(), env->load_before, env->load_after, load, pressure, env->commit,
        env->git_status[0] ? " (working tree dirty: uncommitted changes were measured)" : " (clean)",
        env->date, saved_as ? " Raw samples: " : "", saved_as ? saved_as : "");
}


static void write_json(FILE *f, const options *o, const environment *env, const sample *samples,
                       int nsamples) {
    fprintf(f, "{\n  \"benchmark\": \"rowstore\",\n  \"date\": ");
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
    fprintf(f, "},\n");
    fprintf(f,
            "  \"config\": {\"rows\": %llu, \"gets\": %llu, \"commits\": %llu, \"reps\": %d, "
            "\"value_bytes\": %d, "
            "\"cache_mib\": %zu, \"sqlite_page_size\": %d, \"engines\": ",
            (unsigned long long)o->rows, (unsigned long long)o->gets, (unsigned long long)o->commits, o->reps,
            VALUE_LEN, o->cache_mib, o->sqlite_page_size);
    json_str(f, o->engines);
    fprintf(f, ", \"sqlite_settings\": \"journal_mode=WAL, synchronous=FULL, cache_size=-%zu\"},\n",
            o->cache_mib * 1024);
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
        fprintf(f, "}}%s\n", i + 1 < nsamples ? "," : "");
    }
    fprintf(f, "  ],\n  \"summary\": [\n");
    int first = 1;
    for (int m = 0; m < M_COUNT; m++) {
        for (int e = 0; e < E_COUNT; e++) {
            summary s = summarize(samples, nsamples, e, m);
            if (s.n == 0) continue;
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
    }
    fprintf(f, "\n  ]\n}\n");
}

/* Every sample of every engine must carry the same checksums (each child already compared its own
** with the data generator's). */
static void cross_check(const sample *samples, int nsamples) {
    const sample *ref = NULL;
    for (int i = 0; i < nsamples; i++) {
        if (samples[i].engine == E_FLOOR) continue;
        if (ref == NULL) {
            ref = &samples[i];
            continue;
        }
        for (size_t c = 0; c < sizeof checksum_metrics / sizeof checksum_metrics[0]; c++) {
            int m = checksum_metrics[c];
            if (samples[i].m[m] != ref->m[m]) {
                current_workload = m <= M_GET_VALUES ? "warm random point get" : "full cursor scan";
                die("engines disagree: %s = %.0f for %s rep %d, %.0f for %s rep %d", metric_defs[m].id,
                    samples[i].m[m], engine_names[samples[i].engine], samples[i].rep, ref->m[m],
                    engine_names[ref->engine], ref->rep);
            }
        }
    }
}

static void run_parent(const options *o) {
    char run_dir[256], exe[4096];
    run_setup("run", run_dir, sizeof run_dir, exe, sizeof exe);

    environment env;
    gather_environment(&env, run_dir);
    int use[2] = {strcmp(o->engines, "sqlite") != 0, strcmp(o->engines, "strata") != 0};
    sample *samples = calloc((size_t)o->reps * E_COUNT, sizeof *samples);
    if (samples == NULL) die("out of memory");
    int nsamples = 0;
    for (int rep = 1; rep <= o->reps; rep++) {
        /* floor first, then the engines, their order alternating */
        int order[E_COUNT] = {E_FLOOR, rep % 2 ? E_STRATA : E_SQLITE, rep % 2 ? E_SQLITE : E_STRATA};
        for (int i = 0, pos = 0; i < E_COUNT; i++) {
            if (order[i] != E_FLOOR && !use[order[i]]) continue;
            sample *s = &samples[nsamples++];
            s->engine = order[i];
            s->rep = rep;
            s->position = pos++;
            fprintf(stderr, "rep %d/%d: %-6s ...", rep, o->reps, engine_names[s->engine]);
            run_child(exe, o, run_dir, s);
            fprintf(stderr, " %.1f s\n", s->seconds);
        }
    }
    if (!o->keep) remove_tree(run_dir);
    load_average(env.load_after, sizeof env.load_after);
    cross_check(samples, nsamples);

    char md_path[512] = "", json_path[512] = "";
    if (o->save) result_paths("rowstore", &env, md_path, json_path, sizeof md_path);
    write_report(stdout, o, &env, samples, nsamples, o->save ? json_path : NULL);
    if (o->save) {
        FILE *f = fopen(md_path, "w");
        if (f == NULL) die("cannot write %s: %s", md_path, strerror(errno));
        write_report(f, o, &env, samples, nsamples, json_path);
        if (fclose(f) != 0) die("cannot write %s", md_path);
        f = fopen(json_path, "w");
        if (f == NULL) die("cannot write %s: %s", json_path, strerror(errno));
        write_json(f, o, &env, samples, nsamples);
        if (fclose(f) != 0) die("cannot write %s", json_path);
        printf("\nSaved %s and %s\n", md_path, json_path);
    }
    free(env.git_status);
    free(samples);
}

int main(int argc, char **argv) {
    options o;
    bench_program = "bench_rowstore";
    parse_options(argc, argv, &o);
    value_pool_init();
    if (o.child_engine) {
        if (!strcmp(o.child_engine, "floor")) {
            run_floor_child(&o);
        } else {
            const engine *e = engine_by_name(o.child_engine);
            if (e == NULL) die("unknown engine %s", o.child_engine);
            run_engine_child(e, &o);
        }
        return 0;
    }
    run_parent(&o);
    return 0;
}
