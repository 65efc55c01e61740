/*
** suite_concurrency.c -- seed 003's concurrent clients, as threads of one process: one writer
** committing autocommit single-row UPDATEs while 1, then 4, reader threads run point reads and
** 50-row range reads of t. Every thread has its own connection (engine.h's connect) and its
** statements prepared before a start barrier.
**
** How long: the readers read until the duration conc_ms is over, but each at least
** conc_min_reads reads (a fixed key sequence per reader, from its own seed); the writer commits
** until the last reader has stopped, so that it writes during all of the readers' time. The
** readers only read keys 0 .. rows-1, which the writer never touches (it updates the counter n of
** the keys rows .. rows+99), so every read has an answer the generator knows. Each reader folds
** what it read into a checksum; afterwards every read of every reader is checked against the
** generator (wrong_result on a difference), and the checksum of the first conc_min_reads reads of
** each reader, summed over the readers, is the one put_checksum reports: the same on every engine
** and repetition, whatever the number of reads the duration allowed. The writer's rows are then
** checked: all there, and each counter equal to the number of commits that updated it.
**
** Busy errors (the message says "locked" or "busy": SQLite's rollback-journal modes lock the
** whole file and the harness sets no busy timeout) are retried as seed 003 does: after 1 ms, for
** up to 30 s, the time included in the statement's latency; the retries are counted and
** reported. An engine that refuses the second connection (strata locks its file to one handle)
** cannot run these workloads: n/a with its message.
*/
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

#define VALUE_LEN 32
#define RANGE_ROWS 50   /* rows of a range read */
#define RANGE_EVERY 10  /* the 10th, 20th, ... read of a reader is a range read, the others point reads */
#define WRITER_ROWS 100 /* the writer updates keys rows .. rows + WRITER_ROWS - 1, in turn */
#define MAX_READERS 4
#define BUSY_SLEEP_NS UINT64_C(1000000)       /* seed 003: a busy statement is retried after 1 ms, */
#define BUSY_GIVE_UP_NS UINT64_C(30000000000) /* for up to 30 s */

static const size_def sizes[] = {
    {"conc_rows", 100000, 20000, 500},
    {"conc_ms", 3500, 700, 100},
    {"conc_min_reads", 1000, 200, 20},
};

static const workload_def workloads[] = {{"conc_r1", "conc_r1"}, {"conc_r4", "conc_r4"}};

/* clang-format off */
#define CONFIG_METRICS(w, title)                                                                             \
    {w "_writer_cps", w, title ": writer, autocommit UPDATEs", "commits/s", "commit", NULL, K_RATE, NULL},   \
    {w "_writer_p50_us", w, "   writer commit latency, p50", "µs", "commit", NULL, K_TIME, NULL},            \
    {w "_writer_p99_us", w, "   writer commit latency, p99", "µs", "commit", NULL, K_TIME, NULL},            \
    {w "_read_ops", w, "   reads/s, all readers", "ops/s", "read", NULL, K_RATE, NULL},                      \
    {w "_read_p50_us", w, "   read latency, p50", "µs", "read", NULL, K_TIME, NULL},                         \
    {w "_read_p95_us", w, "   read latency, p95", "µs", "read", NULL, K_TIME, NULL},                         \
    {w "_read_p99_us", w, "   read latency, p99", "µs", "read", NULL, K_TIME, NULL},                         \
    {w "_read_busy", w, "   busy retries, readers", "retries", "run", NULL, K_INFO, NULL},                   \
    {w "_writer_busy", w, "   busy retries, writer", "retries", "run", NULL, K_INFO, NULL},                  \
    {w "_reads", w, NULL, "reads", "run", NULL, K_INFO, NULL},                                               \
    {w "_commits", w, NULL, "commits", "run", NULL, K_INFO, NULL}
/* clang-format on */

static const metric_def metrics[] = {
    CONFIG_METRICS("conc_r1", "1 reader"),
    CONFIG_METRICS("conc_r4", "4 readers"),
};

static const phase_def phases[] = {{"conc_r1", NULL, NULL}, {"conc_r4", NULL, NULL}};

static const char *const point_sql = "SELECT v FROM t WHERE k = ?";
static const char *const range_sql = "SELECT k, v FROM t WHERE k >= ? AND k < ? ORDER BY k";
static const char *const update_sql = "UPDATE t SET n = n + 1 WHERE k = ?";
static const char *const check_sql = "SELECT k, n FROM t WHERE k >= ? ORDER BY k";

/* ---------------------------------------------------------------------------------------------
** Deterministic data and the readers' key sequences.
*/

/* The 32 characters of t.v for key k into out (not NUL-terminated). */
static void value_for(uint64_t k, char *out) {
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    uint64_t s = k * UINT64_C(0x9E3779B97F4A7C15) ^ UINT64_C(0xC0C0003);
    for (int i = 0; i < VALUE_LEN; i += 8) {
        uint64_t r = splitmix64(&s);
        for (int j = 0; j < 8; j++, r >>= 8)
            out[i + j] = alphabet[(r & 0xFF) % (sizeof alphabet - 1)];
    }
}

static uint64_t reader_seed(int reader) {
    return UINT64_C(0x3C0C0) + (uint64_t)reader * UINT64_C(0x9E3779B97F4A7C15);
}

/* The first key of read j of a reader whose sequence state is *rng; *range says whether it is a
** range read (keys key .. key + RANGE_ROWS - 1) or a point read. */
static uint64_t next_key(uint64_t *rng, uint64_t j, uint64_t rows, int *range) {
    *range = j % RANGE_EVERY == RANGE_EVERY - 1;
    return below(rng, *range ? rows - RANGE_ROWS + 1 : rows);
}

/* The checksums of the first `prefix` and of all `n` reads of reader r, from the generator. */
static void reader_expected(int r, uint64_t n, uint64_t prefix, uint64_t rows, checksum *first,
                            checksum *all) {
    uint64_t rng = reader_seed(r);
    char v[VALUE_LEN];
    memset(first, 0, sizeof *first);
    memset(all, 0, sizeof *all);
    for (uint64_t j = 0; j < n; j++) {
        int range;
        uint64_t k = next_key(&rng, j, rows, &range);
        for (uint64_t i = 0; i < (range ? RANGE_ROWS : 1); i++) {
            value_for(k + i, v);
            checksum_add_row(all, k + i, v, VALUE_LEN);
        }
        if (j + 1 == prefix) *first = *all;
    }
}

/* ---------------------------------------------------------------------------------------------
** The threads.
*/

typedef struct shared {
    const engine *e;
    uint64_t rows, min_reads;
    pthread_barrier_t start;
    atomic_int stop;         /* the duration is over: a reader stops once it has done min_reads */
    atomic_int readers_left; /* the writer commits until no reader runs */
    atomic_int failed;       /* a thread failed: every thread stops */
} shared;

typedef struct worker {
    shared *sh;
    int reader;           /* the reader's number; -1 for the writer */
    void *conn, *s1, *s2; /* readers: the point and the range SELECT; the writer: the UPDATE */
    uint64_t *lat;        /* ns per operation, busy retries included */
    size_t nlat, cap;
    uint64_t ops, busy, elapsed_ns;
    checksum first, all; /* readers: of the first min_reads reads, of all */
    char err[600];
} worker;

static void sleep_ns(uint64_t ns) {
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    while (nanosleep(&ts, &ts) && errno == EINTR) {
    }
}

static int is_busy(const engine *e, void *conn) {
    const char *m = e->errmsg(conn);
    return m && (strstr(m, "locked") || strstr(m, "busy") || strstr(m, "BUSY"));
}

/* A failed statement: when busy and not yet retried for BUSY_GIVE_UP_NS since t0, it is reset,
** 1 ms passes and 1 is returned (run it again); otherwise the message goes to w->err and -1 is
** returned. */
static int busy_retry(worker *w, void *stmt, const char *sql, uint64_t t0) {
    const engine *e = w->sh->e;
    int busy = is_busy(e, w->conn);
    if (busy && now_ns() - t0 < BUSY_GIVE_UP_NS) {
        e->reset(stmt); /* its status repeats the failure */
        w->busy++;
        sleep_ns(BUSY_SLEEP_NS);
        return 1;
    }
    snprintf(w->err, sizeof w->err, "%s%s: %s", sql, busy ? " (still busy after 30 s of retries)" : "",
             e->errmsg(w->conn));
    e->reset(stmt);
    return -1;
}

static int record_latency(worker *w, uint64_t ns) {
    if (w->nlat == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 65536;
        uint64_t *lat = realloc(w->lat, cap * sizeof *lat);
        if (lat == NULL) {
            snprintf(w->err, sizeof w->err, "out of memory for the latencies");
            return -1;
        }
        w->lat = lat, w->cap = cap;
    }
    w->lat[w->nlat++] = ns;
    return 0;
}

/* One read, point or range, folded into w->all when it succeeds. Returns 0, or -1 with w->err
** set (an error, or a range read whose rows are not the keys key, key + 1, ... in order). */
static int read_once(worker *w, int range, uint64_t key, uint64_t t0) {
    const engine *e = w->sh->e;
    void *s = range ? w->s2 : w->s1;
    const char *sql = range ? range_sql : point_sql;
    int rc;
    if (e->bind_int64(s, 1, (int64_t)key) || (range && e->bind_int64(s, 2, (int64_t)(key + RANGE_ROWS)))) {
        snprintf(w->err, sizeof w->err, "bind %s: %s", sql, e->errmsg(w->conn));
        return -1;
    }
    for (;;) {
        checksum got = {0};
        uint64_t i = 0;
        while ((rc = e->step(s)) == 1) {
            int len;
            uint64_t k = range ? (uint64_t)e->column_int64(s, 0) : key;
            const char *v = e->column_text(s, range ? 1 : 0, &len);
            if (v == NULL) {
                snprintf(w->err, sizeof w->err, "%s: no text for k = %llu", sql, (unsigned long long)k);
                e->reset(s);
                return -1;
            }
            if (k != key + i) {
                snprintf(w->err, sizeof w->err, "wrong result of %s with %llu: row %llu has k = %llu", sql,
                         (unsigned long long)key, (unsigned long long)i, (unsigned long long)k);
                e->reset(s);
                return -1;
            }
            checksum_add_row(&got, k, v, (size_t)len);
            i++;
            if (!range) break; /* one row: the reset below ends the read */
        }
        if (rc >= 0) {
            if (e->reset(s)) { /* ends the read transaction and its locks */
                snprintf(w->err, sizeof w->err, "reset %s: %s", sql, e->errmsg(w->conn));
                return -1;
            }
            checksum_add(&w->all, &got);
            return 0;
        }
        if (busy_retry(w, s, sql, t0) < 0) return -1;
    }
}

static void *reader_main(void *arg) {
    worker *w = arg;
    shared *sh = w->sh;
    uint64_t rng = reader_seed(w->reader);
    pthread_barrier_wait(&sh->start);
    uint64_t start = now_ns();
    for (uint64_t j = 0; !atomic_load_explicit(&sh->failed, memory_order_relaxed) &&
                         (j < sh->min_reads || !atomic_load_explicit(&sh->stop, memory_order_relaxed));
         j++) {
        int range;
        uint64_t key = next_key(&rng, j, sh->rows, &range), t0 = now_ns();
        if (read_once(w, range, key, t0) || record_latency(w, now_ns() - t0)) {
            atomic_store(&sh->failed, 1);
            break;
        }
        if (++w->ops == sh->min_reads) w->first = w->all;
    }
    w->elapsed_ns = now_ns() - start;
    atomic_fetch_sub(&sh->readers_left, 1);
    return NULL;
}

/* The writer: UPDATE t SET n = n + 1 WHERE k = rows + i % WRITER_ROWS, one autocommit (durable)
** transaction each, at least once and then until the last reader has stopped. */
static void *writer_main(void *arg) {
    worker *w = arg;
    shared *sh = w->sh;
    const engine *e = sh->e;
    pthread_barrier_wait(&sh->start);
    uint64_t start = now_ns();
    do {
        uint64_t t0 = now_ns();
        if (e->bind_int64(w->s1, 1, (int64_t)(sh->rows + w->ops % WRITER_ROWS))) {
            snprintf(w->err, sizeof w->err, "bind %s: %s", update_sql, e->errmsg(w->conn));
            goto fail;
        }
        int rc;
        while ((rc = e->step(w->s1)) != 0) {
            if (rc == 1) {
                snprintf(w->err, sizeof w->err, "%s returned a row", update_sql);
                goto fail;
            }
            if (busy_retry(w, w->s1, update_sql, t0) < 0) goto fail;
        }
        if (e->reset(w->s1)) {
            snprintf(w->err, sizeof w->err, "reset %s: %s", update_sql, e->errmsg(w->conn));
            goto fail;
        }
        w->ops++;
        if (record_latency(w, now_ns() - t0)) goto fail;
    } while (!atomic_load_explicit(&sh->failed, memory_order_relaxed) && atomic_load(&sh->readers_left) > 0);
    w->elapsed_ns = now_ns() - start;
    return NULL;
fail:
    atomic_store(&sh->failed, 1);
    w->elapsed_ns = now_ns() - start;
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
** A configuration: load, connect, run, check, report.
*/

/* The q-quantile (0 < q <= 1) of the sorted v[0..n-1] in µs (nearest rank). */
static double quantile_us(const uint64_t *v, size_t n, double q) {
    size_t i = (size_t)ceil(q * (double)n);
    return (double)v[i ? i - 1 : 0] / 1e3;
}

static int load_t(const engine *e, void *db, uint64_t rows) {
    void *ld = NULL;
    char v[VALUE_LEN];
    if (e->exec(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT, n INTEGER)"))
        return wl_fail(e, db, "CREATE TABLE t");
    if (e->load_begin(db, "t", 3, &ld)) return wl_fail(e, db, "begin the load of t");
    for (uint64_t k = 0; k < rows + WRITER_ROWS; k++) {
        value_for(k, v);
        if (e->load_int64(ld, (int64_t)k) || e->load_text(ld, v, VALUE_LEN) || e->load_int64(ld, 0) ||
            e->load_end_row(ld)) {
            wl_fail(e, db, "load a row of t");
            e->load_abort(ld);
            return -1;
        }
    }
    if (e->load_finish(ld)) return wl_fail(e, db, "finish the load of t");
    return 0;
}

/* After the run: the writer's WRITER_ROWS rows are all there and row rows + j was updated by
** commits j, j + WRITER_ROWS, ...: its n is their number. */
static int check_writer_rows(const engine *e, void *db, uint64_t rows, uint64_t commits) {
    void *s = NULL;
    int rc;
    uint64_t j = 0;
    if (e->prepare(db, check_sql, &s) || e->bind_int64(s, 1, (int64_t)rows)) {
        wl_fail(e, db, check_sql);
        e->finalize(s);
        return -1;
    }
    while ((rc = e->step(s)) == 1) {
        uint64_t k = (uint64_t)e->column_int64(s, 0), n = (uint64_t)e->column_int64(s, 1);
        uint64_t want = commits / WRITER_ROWS + (j < commits % WRITER_ROWS);
        if (k != rows + j || n != want) {
            e->finalize(s);
            return wl_failf(
                "after %llu commits, row %llu of the writer has k = %llu, n = %llu; expected k = %llu, "
                "n = %llu",
                (unsigned long long)commits, (unsigned long long)j, (unsigned long long)k,
                (unsigned long long)n, (unsigned long long)(rows + j), (unsigned long long)want);
        }
        j++;
    }
    if (rc < 0) {
        wl_fail(e, db, check_sql);
        e->finalize(s);
        return -1;
    }
    e->finalize(s);
    if (j != WRITER_ROWS)
        return wl_failf("after the run the writer's rows number %llu, expected %d", (unsigned long long)j,
                        WRITER_ROWS);
    return 0;
}

static void put_metric_of(const char *w, const char *name, double v) {
    char id[96];
    snprintf(id, sizeof id, "%s_%s", w, name);
    put_metric(id, v);
}

/* Finalizes the statements of workers ws[0..n) and closes their connections. */
static void disconnect_workers(const engine *e, worker *ws, int n) {
    for (int i = 0; i < n; i++) {
        if (ws[i].s1) e->finalize(ws[i].s1);
        if (ws[i].s2) e->finalize(ws[i].s2);
        if (ws[i].conn) e->disconnect(ws[i].conn);
        ws[i].s1 = ws[i].s2 = ws[i].conn = NULL;
    }
}

/* Connects and prepares worker w (the writer when w->reader < 0). Returns 0; 1 when the engine
** refuses the connection as busy (n/a recorded); -1 on an error (recorded). */
static int open_worker(const engine *e, void *db, const char *path, const char *wl, worker *w) {
    if (e->connect(db, path, &w->conn)) {
        if (is_busy(e, w->conn)) {
            /* the engine's message, with the run's directory cut from the path it may name */
            char why[700];
            const char *m = e->errmsg(w->conn), *at = strstr(m, path), *base = strrchr(path, '/');
            base = base ? base + 1 : path;
            if (at)
                snprintf(why, sizeof why, "a second connection is refused: %.*s%.255s%s", (int)(at - m), m,
                         base, at + strlen(path));
            else
                snprintf(why, sizeof why, "a second connection is refused: %s", m);
            not_applicable(wl, why);
            return 1;
        }
        return wl_fail(e, w->conn, "connect");
    }
    if (w->reader < 0) {
        if (e->prepare(w->conn, update_sql, &w->s1)) return wl_fail(e, w->conn, update_sql);
    } else if (e->prepare(w->conn, point_sql, &w->s1)) {
        return wl_fail(e, w->conn, point_sql);
    } else if (e->prepare(w->conn, range_sql, &w->s2)) {
        return wl_fail(e, w->conn, range_sql);
    }
    return 0;
}

/* Runs the writer and the readers for the duration (and the readers' minimum reads) and records
** the peak memory. Returns 0, or -1 with the first failing thread's message recorded. */
static int run_threads(const options *o, const char *wl, worker *ws, int nreaders) {
    shared *sh = ws[0].sh;
    pthread_t th[MAX_READERS + 1];
    uint64_t duration_ns = size_of(o, "conc_ms") * UINT64_C(1000000);
    if (pthread_barrier_init(&sh->start, NULL, (unsigned)nreaders + 2)) die("pthread_barrier_init failed");
    peak_reset();
    for (int i = 0; i <= nreaders; i++)
        if (pthread_create(&th[i], NULL, i ? reader_main : writer_main, &ws[i])) die("pthread_create failed");
    pthread_barrier_wait(&sh->start);
    uint64_t t0 = now_ns();
    while (!atomic_load(&sh->failed) && now_ns() - t0 < duration_ns) {
        uint64_t left = duration_ns - (now_ns() - t0);
        sleep_ns(left < 5000000 ? left : 5000000); /* wake up now and then to notice a failure */
    }
    atomic_store(&sh->stop, 1);
    for (int i = 0; i <= nreaders; i++)
        pthread_join(th[i], NULL);
    put_peak(wl);
    pthread_barrier_destroy(&sh->start);
    for (int i = 0; i <= nreaders; i++)
        if (ws[i].err[0]) return wl_failf("%s %d: %s", i ? "reader" : "writer", i ? i - 1 : 0, ws[i].err);
    return 0;
}

/* Checks every read of every reader against the generator and reports the checksum of the
** first min_reads reads of all readers. */
static int check_reads(const char *wl, const worker *ws, int nreaders, uint64_t rows, uint64_t min_reads) {
    checksum reported = {0}, first, all;
    for (int r = 0; r < nreaders; r++) {
        const worker *w = &ws[1 + r];
        reader_expected(r, w->ops, min_reads, rows, &first, &all);
        char what[96];
        snprintf(what, sizeof what, "the %llu reads of reader %d", (unsigned long long)w->ops, r);
        if (!checksum_equal(&w->all, &all)) return wrong_result(what, &w->all, &all);
        if (w->ops < min_reads)
            return wl_failf("reader %d did %llu reads, fewer than %llu", r, (unsigned long long)w->ops,
                            (unsigned long long)min_reads);
        if (!checksum_equal(&w->first, &first)) return wrong_result(what, &w->first, &first);
        checksum_add(&reported, &w->first);
    }
    put_checksum(wl, &reported);
    return 0;
}

/* The figures of a run: the writer's commits/s and latencies, the readers' reads/s (all
** readers' reads over the longest reader's time) and latencies (all readers' reads together). */
static void put_figures(const char *wl, worker *ws, int nreaders) {
    worker *wr = &ws[0];
    uint64_t reads = 0, busy = 0, longest = 1;
    size_t n = 0;
    for (int r = 1; r <= nreaders; r++) {
        reads += ws[r].ops, busy += ws[r].busy, n += ws[r].nlat;
        if (ws[r].elapsed_ns > longest) longest = ws[r].elapsed_ns;
    }
    uint64_t *lat = malloc((n ? n : 1) * sizeof *lat);
    if (lat == NULL) die("out of memory");
    for (size_t r = 1, at = 0; r <= (size_t)nreaders; at += ws[r].nlat, r++)
        memcpy(lat + at, ws[r].lat, ws[r].nlat * sizeof *lat);
    qsort(lat, n, sizeof *lat, cmp_u64);
    qsort(wr->lat, wr->nlat, sizeof *wr->lat, cmp_u64);
    put_metric_of(wl, "writer_cps", (double)wr->ops / ((double)(wr->elapsed_ns ? wr->elapsed_ns : 1) / 1e9));
    put_metric_of(wl, "writer_p50_us", quantile_us(wr->lat, wr->nlat, 0.50));
    put_metric_of(wl, "writer_p99_us", quantile_us(wr->lat, wr->nlat, 0.99));
    put_metric_of(wl, "read_ops", (double)reads / ((double)longest / 1e9));
    if (n) {
        put_metric_of(wl, "read_p50_us", quantile_us(lat, n, 0.50));
        put_metric_of(wl, "read_p95_us", quantile_us(lat, n, 0.95));
        put_metric_of(wl, "read_p99_us", quantile_us(lat, n, 0.99));
    }
    put_metric_of(wl, "read_busy", (double)busy);
    put_metric_of(wl, "writer_busy", (double)wr->busy);
    put_metric_of(wl, "reads", (double)reads);
    put_metric_of(wl, "commits", (double)wr->ops);
    free(lat);
}

static int wl_concurrency(const engine *e, const options *o, const char *dir, const char *wl, int nreaders) {
    char path[4200];
    shared sh = {.e = e, .rows = size_of(o, "conc_rows"), .min_reads = size_of(o, "conc_min_reads")};
    worker ws[MAX_READERS + 1];
    void *db = NULL;
    int rc = -1;
    if (sh.rows < RANGE_ROWS) return wl_failf("conc_rows must be at least %d", RANGE_ROWS);
    atomic_init(&sh.stop, 0);
    atomic_init(&sh.readers_left, nreaders);
    atomic_init(&sh.failed, 0);
    memset(ws, 0, sizeof ws);
    for (int i = 0; i <= nreaders; i++)
        ws[i].sh = &sh, ws[i].reader = i - 1;

    db_path(path, sizeof path, dir, wl);
    remove_db(path);
    if (e->open(path, &db)) {
        wl_fail(e, db, "open");
        goto out;
    }
    if (load_t(e, db, sh.rows)) goto out;
    for (int i = 0; i <= nreaders; i++) {
        int r = open_worker(e, db, path, wl, &ws[i]);
        if (r) {
            rc = r > 0 ? 0 : -1;
            goto out;
        }
    }
    if (run_threads(o, wl, ws, nreaders)) goto out;
    disconnect_workers(e, ws, nreaders + 1);
    if (check_reads(wl, ws, nreaders, sh.rows, sh.min_reads) || check_writer_rows(e, db, sh.rows, ws[0].ops))
        goto out;
    put_figures(wl, ws, nreaders);
    rc = 0;
out:
    disconnect_workers(e, ws, nreaders + 1);
    for (int i = 0; i <= nreaders; i++)
        free(ws[i].lat);
    if (db) e->close(db);
    return rc;
}

/* --- phases ------------------------------------------------------------------------------ */

static void run_phase(const engine *e, const options *o, const char *dir, const char *phase) {
    if (!strcmp(phase, "conc_r1"))
        RUN("conc_r1", wl_concurrency(e, o, dir, "conc_r1", 1));
    else if (!strcmp(phase, "conc_r4"))
        RUN("conc_r4", wl_concurrency(e, o, dir, "conc_r4", MAX_READERS));
}

static void describe(FILE *out, const options *o) {
    unsigned long long rows = size_of(o, "conc_rows"), min_reads = size_of(o, "conc_min_reads");
    fprintf(out,
            "- Seed 003's concurrent clients as threads of one process, each on its own connection "
            "(`connect`: strata and SQLite open the file again, DuckDB connects to the same instance), "
            "statements prepared before a start barrier. Each configuration (1 reader, 4 readers) runs in "
            "its own process on a fresh t(k INTEGER PRIMARY KEY, v TEXT, n INTEGER) of %llu + %d rows "
            "(32-character v, n = 0), bulk-loaded untimed.\n",
            rows, WRITER_ROWS);
    fprintf(out,
            "- The writer runs `%s` on the keys %llu..%llu in turn, each an autocommit (durable) "
            "transaction, until the last reader stops. Each reader runs for %llu ms but at least %llu "
            "reads; every %dth read is a range read `%s` (%d rows), the others point reads `%s`, keys "
            "uniform over 0..%llu (never written), each read its own read transaction, ended by a reset.\n",
            update_sql, rows, rows + WRITER_ROWS - 1, (unsigned long long)size_of(o, "conc_ms"), min_reads,
            RANGE_EVERY, range_sql, RANGE_ROWS, point_sql, rows - 1);
    fprintf(out,
            "- Busy errors (SQLite's rollback-journal modes lock the whole file, and no busy timeout is "
            "set) are retried after 1 ms for up to 30 s, as in seed 003: counted, their time included. "
            "Reads/s = all readers' reads ÷ the longest reader's time; commits/s = commits ÷ the writer's "
            "time; latency per statement (reads: point and range together, so p95 and p99 are mostly "
            "range reads). Every read is checked against the generator; the checksum compared between "
            "engines is that of each reader's first %llu reads; after the run the writer's %d rows must "
            "all be there, each n equal to the number of commits that updated it.\n",
            min_reads, WRITER_ROWS);
}

const suite suite_concurrency = {
    .id = "concurrency",
    .title = "Concurrency: one writer, 1 and 4 readers (seed 003)",
    SUITE_TABLES,
    .run_phase = run_phase,
    .describe = describe,
    .warmup = 1, /* 003 discards one warm-up sample per engine */
};
