/*
** bench_close.c -- what a session's start and end cost: the open, the first durable commit after
** it (which, since a clean close removes the WAL, creates and grows a new WAL), the second commit,
** and the close (checkpoint, WAL removal), on a small database in DIR (default bench/tmp).
**
**     make build/release/bench/bench_close && build/release/bench/bench_close [DIR] [REPS]
**
** Each repetition opens the database, runs two one-row INSERTs (each its own durable commit) and
** closes it, timing each step with CLOCK_MONOTONIC; it prints the median and min-max of each in
** microseconds and what lies beside the database file after the last close. Only the public API.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "strata.h"

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *what, double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    printf("%-28s median %9.0f us  (min %7.0f, max %7.0f)\n", what, v[n / 2], v[0], v[n - 1]);
}

static int check(strata_db *db, int rc, const char *what) {
    if (rc == STRATA_OK) return 0;
    fprintf(stderr, "bench_close: %s: %s\n", what, strata_errmsg(db));
    return 1;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "bench/tmp";
    int reps = argc > 2 ? atoi(argv[2]) : 20;
    if (reps < 1 || reps > 10000) reps = 20;
    char path[4096], wal[4200];
    snprintf(path, sizeof path, "%s/bench_close.db", dir);
    snprintf(wal, sizeof wal, "%s-wal", path);
    mkdir(dir, 0755);
    remove(path);
    remove(wal);
    strata_db *db;
    if (check(db, strata_open(path, &db), "open") ||
        check(db, strata_exec(db, "CREATE TABLE t(k BIGINT PRIMARY KEY, v VARCHAR);"
                                  "INSERT INTO t SELECT i, 'row ' || i FROM generate_series(1, 1000) g(i)",
                              NULL, NULL),
              "load"))
        return 1;
    if (strata_close(db) != STRATA_OK) return 1;
    double *open_t = malloc(sizeof(double) * (size_t)reps), *first = malloc(sizeof(double) * (size_t)reps);
    double *second = malloc(sizeof(double) * (size_t)reps), *close_t = malloc(sizeof(double) * (size_t)reps);
    if (!open_t || !first || !second || !close_t) return 1;
    long long k = 1000;
    for (int r = 0; r < reps; r++) {
        char sql[128];
        double t0 = now_us();
        if (check(db, strata_open(path, &db), "open")) return 1;
        double t1 = now_us();
        snprintf(sql, sizeof sql, "INSERT INTO t VALUES (%lld, 'new')", ++k);
        if (check(db, strata_exec(db, sql, NULL, NULL), "first insert")) return 1;
        double t2 = now_us();
        snprintf(sql, sizeof sql, "INSERT INTO t VALUES (%lld, 'new')", ++k);
        if (check(db, strata_exec(db, sql, NULL, NULL), "second insert")) return 1;
        double t3 = now_us();
        if (strata_close(db) != STRATA_OK) return 1;
        double t4 = now_us();
        open_t[r] = t1 - t0;
        first[r] = t2 - t1;
        second[r] = t3 - t2;
        close_t[r] = t4 - t3;
    }
    printf("%s, %d repetitions\n", path, reps);
    report("open", open_t, reps);
    report("first commit after open", first, reps);
    report("second commit", second, reps);
    report("close", close_t, reps);
    struct stat st;
    long long dbsize = stat(path, &st) == 0 ? (long long)st.st_size : -1;
    long long walsize = stat(wal, &st) == 0 ? (long long)st.st_size : -1;
    if (walsize < 0)
        printf("after close: %s %lld bytes; no -wal beside it\n", path, dbsize);
    else
        printf("after close: %s %lld bytes; -wal %lld bytes\n", path, dbsize, walsize);
    remove(path);
    remove(wal);
    free(open_t);
    free(first);
    free(second);
    free(close_t);
    return 0;
}
