/*
** tpch_run.c -- the tpch-run program: runs the TPC-H queries against a database and times them.
**
**   tpch-run [-d DB] [-q DIR] [-r REPS] [-t SECONDS] [-T THREADS] [-c RESULTS [-P]] [QUERY...]
**
** runs DIR/q01.sql … DIR/q22.sql (default datasets/tpch/queries), or the queries named (1, 6,
** q06, q06.sql), against the database DB (default tpch-sf1.db, as tpch-load names SF 1's), which
** must exist. Every statement of a query's file is prepared and stepped to its end, REPS times
** (default 1), on THREADS workers (SET threads; default strata's, the machine's cores). It prints a line per query: the rows returned, the time of the first run, the
** median of the REPS runs when REPS > 1, and a checksum of the result (below). A query the engine
** cannot run (an error from prepare or step) prints "not supported: " and the error, one that
** runs longer than SECONDS (default 30; 0 for no limit) is stopped with strata_interrupt and
** prints "timed out"; the run goes on with the next query. At the end it prints how many queries
** ran and the total time. Exit status 0, 1 when the database cannot be opened, 2 on a usage
** error.
**
** With -c RESULTS it also compares each query's result with the expected one in RESULTS/qNN.txt
** (made by bench/'s tpch-ref from SQLite, cross-checked against DuckDB; tests/datasets/tpch-expected/
** holds SF 0.01 and 0.1) by the rule of tpch_check.h: the same rows in the same order, strings,
** dates and integers equal, numbers within 0.01 or a relative 1e-9. Each line then ends in "match"
** or "MISMATCH: row R column C (name): got X, expected Y". The queries of TPCH_PENDING_QUERIES
** (tpch_check.h) are skipped with a note unless -P is given. The exit status is then 1 when a
** compared query mismatched, failed, timed out or had no expected file.
**
** The checksum is a 64-bit FNV-1a over the result in order: each value's text (strata_column_text)
** followed by the byte 0x1F, a NULL as the byte 0xFF (never in UTF-8 text) and 0x1F, and 0x1E
** after each row. The same rows in the same order give the same checksum on any machine, so it
** tells whether two engines, builds or loads answer a query alike.
**
** It uses the public API (include/strata.h) only.
*/
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "strata.h"
#include "tpch_check.h"
#include "tpch_gen.h"

#define QUERY_COUNT 22
#define DEFAULT_DIR "datasets/tpch/queries"
#define DEFAULT_TIMEOUT 30

static void usage(FILE *f) {
    fprintf(f,
            "usage: tpch-run [-d DB] [-q DIR] [-r REPS] [-t SECONDS] [-T THREADS] [-c RESULTS [-P]] [QUERY...]\n"
            "  -d DB       the database (default tpch-sf1.db); it must exist (see tpch-load)\n"
            "  -q DIR      the folder of q01.sql .. q22.sql (default " DEFAULT_DIR ")\n"
            "  -r REPS     runs of each query: the first run's time and the median of all (default 1)\n"
            "  -t SECONDS  stop a run that takes longer (default %d, 0: no limit)\n"
            "  -T THREADS  SET threads = THREADS before the queries (default: strata's, the cores)\n"
            "  -c RESULTS  compare each result with RESULTS/qNN.txt (tpch-ref's); exit 1 on a difference\n"
            "  -P          with -c, run the pending queries too (tpch_check.h: TPCH_PENDING_QUERIES)\n"
            "  QUERY       the queries to run, by number (1 .. 22, q6, q06, q06.sql); default all\n",
            DEFAULT_TIMEOUT);
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* query_number parses a query's name (6, 06, q6, Q06, q06.sql); returns 1 .. 22, or 0. */
static int query_number(const char *name) {
    const char *p = name;
    if (*p == 'q' || *p == 'Q') p++;
    if (*p < '0' || *p > '9') return 0;
    char *end;
    long n = strtol(p, &end, 10);
    if (*end != '\0' && strcmp(end, ".sql") != 0) return 0;
    return n >= 1 && n <= QUERY_COUNT ? (int)n : 0;
}

/* ---- the timeout ------------------------------------------------------------------------ */

/* SIGALRM stops the running statement: strata_interrupt may be called from a signal handler. A
** late alarm, after the statement finished, is harmless: the next statement clears the flag. */
static strata_db *volatile alarm_db;
static volatile sig_atomic_t timed_out;

static void on_alarm(int sig) {
    (void)sig;
    timed_out = 1;
    strata_interrupt(alarm_db);
}

/* ---- one run of a query ----------------------------------------------------------------- */

#define FNV_START 0xCBF29CE484222325ull

static uint64_t fnv1a(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001B3ull;
    return h;
}

typedef struct run_result {
    int rc;            /* STRATA_OK, or the error of prepare or step */
    int64_t rows;      /* result rows of every statement of the file */
    uint64_t checksum; /* see the file's comment */
    double ms;
    char error[512]; /* the first line of the error message */
    int timed_out;   /* set by timed_run: the run was stopped at its time limit */
    tpch_result *collect; /* when not NULL: the last statement's rows go here (the caller frees) */
} run_result;

/* collect_names makes r an empty result of st's columns. Returns 0, or -1. */
static int collect_names(strata_stmt *st, int ncol, tpch_result *r) {
    const char *names[64];
    if (ncol > 64) return -1;
    for (int i = 0; i < ncol; i++)
        names[i] = strata_column_name(st, i);
    return tpch_result_init(r, ncol, names);
}

/* collect_row appends the current row of st to r (made with st's column names at its first row). */
static int collect_row(strata_stmt *st, int ncol, tpch_result *r) {
    const char *values[64];
    if (r->names == NULL && collect_names(st, ncol, r)) return -1;
    for (int i = 0; i < ncol; i++)
        values[i] = strata_column_text(st, i);
    return tpch_result_add(r, values, NULL);
}

/* run_query prepares and steps every statement of sql to its end, hashing the rows; fills *r. */
static void run_query(strata_db *db, const char *sql, run_result *r) {
    static const unsigned char value_end = 0x1F, row_end = 0x1E, null_mark = 0xFF;
    r->rc = STRATA_OK;
    r->rows = 0;
    r->checksum = FNV_START;
    r->error[0] = '\0';
    double start = now_seconds();
    strata_stmt *st = NULL;
    while (*sql) {
        int rc = strata_prepare(db, sql, &st, &sql);
        if (rc != STRATA_OK) {
            r->rc = rc;
            break;
        }
        if (!st) break; /* only white space and comments were left */
        int ncol = strata_column_count(st);
        if (r->collect) tpch_result_free(r->collect);
        while ((rc = strata_step(st)) == STRATA_ROW) {
            if (r->collect && collect_row(st, ncol, r->collect)) {
                rc = STRATA_NOMEM;
                break;
            }
            for (int i = 0; i < ncol; i++) {
                const char *text = strata_column_text(st, i);
                if (text)
                    r->checksum = fnv1a(r->checksum, text, strlen(text));
                else
                    r->checksum = fnv1a(r->checksum, &null_mark, 1);
                r->checksum = fnv1a(r->checksum, &value_end, 1);
            }
            r->checksum = fnv1a(r->checksum, &row_end, 1);
            r->rows++;
        }
        if (r->collect && rc == STRATA_DONE && r->collect->names == NULL && collect_names(st, ncol, r->collect))
            rc = STRATA_NOMEM;
        strata_finalize(st);
        st = NULL;
        if (rc != STRATA_DONE) {
            r->rc = rc;
            break;
        }
    }
    r->ms = (now_seconds() - start) * 1e3;
    if (r->rc != STRATA_OK) {
        const char *msg = strata_errmsg(db);
        size_t n = strcspn(msg, "\n");
        if (n >= sizeof r->error) n = sizeof r->error - 1;
        memcpy(r->error, msg, n);
        r->error[n] = '\0';
    }
}

/* timed_run is run_query stopped after timeout seconds (0: never); r->timed_out says whether it
** was. */
static void timed_run(strata_db *db, const char *sql, long timeout, run_result *r) {
    timed_out = 0;
    if (timeout > 0) alarm((unsigned)timeout);
    run_query(db, sql, r);
    alarm(0);
    r->timed_out = r->rc == STRATA_INTERRUPT && timed_out;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* compare_expected compares got, query q's result, with <dir>/qNN.txt and prints " match" or
** " MISMATCH: ..." naming the row and column. Returns 0 when they match, 1 otherwise. */
static int compare_expected(const char *dir, int q, const tpch_result *got) {
    char path[4200], msg[1024];
    tpch_result want;
    tpch_result_path(path, sizeof path, dir, q);
    int rc = tpch_result_read(path, &want);
    if (rc != 0) {
        printf("  MISMATCH: cannot read %s: %s", path, rc == -1 ? strerror(errno) : "not a result file");
        tpch_result_free(&want);
        return 1;
    }
    int differs = tpch_result_compare(&want, got, msg, sizeof msg);
    if (differs)
        printf("  MISMATCH: q%02d %s", q, msg);
    else
        printf("  match");
    tpch_result_free(&want);
    return differs;
}

/* ---- the program ------------------------------------------------------------------------ */

int main(int argc, char **argv) {
    const char *db_path = "tpch-sf1.db", *dir = DEFAULT_DIR;
    long reps = 1, timeout = DEFAULT_TIMEOUT, threads = 0;
    const char *expected_dir = NULL;
    int selected[QUERY_COUNT + 1] = {0}, any = 0, run_pending = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int takes_value = strcmp(a, "-d") == 0 || strcmp(a, "-q") == 0 || strcmp(a, "-r") == 0 ||
                          strcmp(a, "-t") == 0 || strcmp(a, "-T") == 0 || strcmp(a, "-c") == 0;
        if (takes_value && i + 1 >= argc) {
            fprintf(stderr, "tpch-run: %s needs a value\n", a);
            usage(stderr);
            return 2;
        }
        if (strcmp(a, "-d") == 0) {
            db_path = argv[++i];
        } else if (strcmp(a, "-q") == 0) {
            dir = argv[++i];
        } else if (strcmp(a, "-c") == 0) {
            expected_dir = argv[++i];
        } else if (strcmp(a, "-P") == 0) {
            run_pending = 1;
        } else if (strcmp(a, "-r") == 0 || strcmp(a, "-t") == 0 || strcmp(a, "-T") == 0) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            long min = a[1] == 't' ? 0 : 1;
            if (*end != '\0' || end == argv[i] || v < min || v > 1000000) {
                fprintf(stderr, "tpch-run: %s '%s' is not a number >= %ld\n", a, argv[i], min);
                return 2;
            }
            if (a[1] == 'r') reps = v;
            else if (a[1] == 'T') threads = v;
            else timeout = v;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (query_number(a) != 0) {
            selected[query_number(a)] = 1;
            any = 1;
        } else {
            fprintf(stderr, "tpch-run: '%s' is neither an option nor a query (1 .. %d)\n", a, QUERY_COUNT);
            usage(stderr);
            return 2;
        }
    }

    /* strata_open would create a missing file: an empty database is not what was meant. */
    struct stat sb;
    if (stat(db_path, &sb) != 0) {
        fprintf(stderr, "tpch-run: cannot open %s: %s (make one with tpch-load)\n", db_path, strerror(errno));
        return 1;
    }
    strata_db *db = NULL;
    int rc = strata_open(db_path, &db);
    if (rc != STRATA_OK) {
        fprintf(stderr, "tpch-run: cannot open %s (%s): %s\n", db_path, strata_errstr(rc),
                db ? strata_errmsg(db) : "out of memory");
        strata_close(db);
        return 1;
    }
    if (threads) {
        char set[64];
        snprintf(set, sizeof set, "SET threads = %ld", threads);
        if ((rc = strata_exec(db, set, NULL, NULL)) != STRATA_OK) {
            fprintf(stderr, "tpch-run: %s: %s\n", set, strata_errmsg(db));
            strata_close(db);
            return 2;
        }
    }
    alarm_db = db;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);

    double *times = malloc((size_t)reps * sizeof *times);
    if (!times) {
        fprintf(stderr, "tpch-run: out of memory\n");
        strata_close(db);
        return 1;
    }
    printf("%s, %ld run%s per query\n", db_path, reps, reps > 1 ? "s" : "");
    printf("%-5s %8s %11s", "query", "rows", "first ms");
    if (reps > 1) printf(" %11s", "median ms");
    printf("  checksum\n");
    fflush(stdout);
    int ran = 0, failed = 0, stopped = 0, unreadable = 0, matched = 0, mismatched = 0, pending = 0;
    double total_ms = 0;
    for (int q = 1; q <= QUERY_COUNT; q++) {
        if (any && !selected[q]) continue;
        char path[4200], name[16];
        snprintf(path, sizeof path, "%s/q%02d.sql", dir, q);
        snprintf(name, sizeof name, "q%02d", q);
        if (expected_dir && !run_pending && tpch_query_pending(q)) {
            printf("%-5s skipped: %s (tpch_check.h; -P runs it)\n", name, TPCH_PENDING_REASON);
            pending++;
            continue;
        }
        char *sql = tpch_read_file(path);
        if (!sql) {
            printf("%-5s cannot read %s: %s\n", name, path, strerror(errno));
            unreadable++;
            continue;
        }
        /* r is the last run: the first, or the first that failed, or the last of REPS */
        run_result first, r;
        tpch_result got = {0};
        first.collect = expected_dir ? &got : NULL;
        timed_run(db, sql, timeout, &first);
        total_ms += first.ms;
        r = first;
        r.collect = NULL;
        long done = 0;
        if (first.rc == STRATA_OK) times[done++] = first.ms;
        while (r.rc == STRATA_OK && done < reps) {
            timed_run(db, sql, timeout, &r);
            total_ms += r.ms;
            if (r.rc != STRATA_OK) break;
            if (r.checksum != first.checksum || r.rows != first.rows)
                fprintf(stderr, "tpch-run: %s: run %ld returned another result than the first\n", name,
                        done + 1);
            times[done++] = r.ms;
        }
        free(sql);
        if (r.timed_out) {
            printf("%-5s %8s %11.1f  timed out: stopped after %ld s (-t)\n", name, "-", r.ms, timeout);
            stopped++;
        } else if (r.rc != STRATA_OK) {
            printf("%-5s %8s %11s  not supported: %s\n", name, "-", "-", r.error);
            failed++;
        } else {
            printf("%-5s %8lld %11.1f", name, (long long)first.rows, first.ms);
            if (reps > 1) {
                qsort(times, (size_t)done, sizeof *times, compare_doubles);
                double median = done % 2 ? times[done / 2] : (times[done / 2 - 1] + times[done / 2]) / 2;
                printf(" %11.1f", median);
            }
            printf("  %016llx", (unsigned long long)first.checksum);
            if (expected_dir) {
                int differs = compare_expected(expected_dir, q, &got);
                matched += differs == 0, mismatched += differs != 0;
            }
            printf("\n");
            ran++;
        }
        tpch_result_free(&got);
        fflush(stdout);
    }
    printf("%d quer%s ran", ran, ran == 1 ? "y" : "ies");
    if (failed) printf(", %d not supported", failed);
    if (stopped) printf(", %d timed out", stopped);
    if (unreadable) printf(", %d not found", unreadable);
    printf("; total time %.3f s\n", total_ms / 1e3);
    if (expected_dir) {
        printf("compared with %s: %d match, %d mismatch", expected_dir, matched, mismatched);
        if (pending) printf(", %d pending skipped", pending);
        printf("\n");
    }
    free(times);
    strata_close(db);
    /* with -c every compared query must have run and matched */
    return expected_dir && (mismatched || failed || stopped || unreadable) ? 1 : 0;
}
