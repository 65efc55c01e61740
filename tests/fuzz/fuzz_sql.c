/*
** fuzz_sql.c -- a libFuzzer target: the input bytes are SQL text run by strata_exec on a fresh
** :memory: database holding a small table, through the parser, the binder, the executor and the
** transaction logic. Any crash, sanitizer report, leak or hang is a bug; an error status is not.
**
** Built by `make fuzz` (clang, -fsanitize=fuzzer,address,undefined); `make fuzz-run
** FUZZ_SECONDS=60` runs it with a seed corpus made of the statements of tests/sql/ (see
** tests/fuzz/README.md). Inputs that are valid but may run for hours (an unbounded recursive CTE)
** and inputs that hit a bug already reported are skipped: tests/helpers/sql_guard.h.
*/
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "helpers/sql_guard.h"
#include "strata.h"

static const char *const setup =
    "CREATE TABLE t(k INTEGER PRIMARY KEY, v VARCHAR(20), d DOUBLE, n DECIMAL(10,2), dt DATE, b BOOLEAN);"
    "INSERT INTO t VALUES (1, 'one', 1.5, 10.25, DATE '2024-01-01', true), (2, 'two', NULL, -3.10, NULL, false),"
    " (3, NULL, 2.5e10, NULL, DATE '1999-12-31', NULL);";

/* read_rows reads every value as text and stops a statement after 1000 rows. */
static int read_rows(void *arg, int ncol, char **values, char **names) {
    long *n = arg;
    volatile size_t total = 0;
    for (int i = 0; i < ncol; i++) {
        if (values[i]) total += strlen(values[i]);
        if (names[i]) total += strlen(names[i]);
    }
    (void)total;
    return ++*n > 1000;
}

/* The watchdog: a statement still running after WATCHDOG_MS is stopped with strata_interrupt,
** so that an input that is merely slow (a large cross join the guard did not foresee) ends as an
** error rather than as a libFuzzer timeout. */
#define WATCHDOG_MS 2000
static pthread_mutex_t wd_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wd_cv = PTHREAD_COND_INITIALIZER;
static strata_db *wd_db;       /* the database being watched, NULL when idle */
static unsigned long wd_round; /* which input is being watched */

static void *watchdog(void *arg) {
    (void)arg;
    pthread_mutex_lock(&wd_mu);
    for (;;) {
        while (!wd_db) pthread_cond_wait(&wd_cv, &wd_mu);
        unsigned long round = wd_round;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += WATCHDOG_MS / 1000;
        until.tv_nsec += (long)(WATCHDOG_MS % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        int rc = 0;
        while (wd_db && wd_round == round && rc == 0) rc = pthread_cond_timedwait(&wd_cv, &wd_mu, &until);
        if (wd_db && wd_round == round) strata_interrupt(wd_db);
        while (wd_db && wd_round == round) pthread_cond_wait(&wd_cv, &wd_mu);
    }
    return NULL;
}

/* watch(db) starts watching a statement on db; watch(NULL) stops. */
static void watch(strata_db *db) {
    static int started;
    if (!started) {
        pthread_t th;
        started = 1;
        pthread_create(&th, NULL, watchdog, NULL);
        pthread_detach(th);
    }
    pthread_mutex_lock(&wd_mu);
    if (db) wd_round++;
    wd_db = db;
    pthread_cond_broadcast(&wd_cv);
    pthread_mutex_unlock(&wd_mu);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 65536) return 0;
    char *sql = malloc(size + 1); /* strata_exec takes NUL-terminated text */
    if (!sql) return 0;
    memcpy(sql, data, size);
    sql[size] = 0;
    if (sql_too_costly(sql) || sql_touches_files(sql) || sql_known_crash(sql)) {
        free(sql);
        return 0;
    }
    strata_db *db = NULL;
    if (strata_open(":memory:", &db) != STRATA_OK || strata_exec(db, setup, NULL, NULL) != STRATA_OK) abort();
    long rows = 0;
    watch(db);
    int rc = strata_exec(db, sql, read_rows, &rows);
    watch(NULL);
    if (rc != STRATA_OK) {
        const char *m = strata_errmsg(db);
        if (rc == STRATA_ROW || rc == STRATA_DONE || strata_errcode(db) != rc || !m || !*m) abort();
    }
    /* the handle stays usable */
    strata_exec(db, "ROLLBACK", NULL, NULL);
    if (strata_exec(db, "SELECT count(*) FROM t", NULL, NULL) != STRATA_OK &&
        strata_exec(db, "SELECT 1", NULL, NULL) != STRATA_OK)
        abort();
    strata_close(db);
    free(sql);
    return 0;
}
