/*
** test_parallel_copy.c -- COPY ... FROM parses a large plain file on the workers (planner/load/copy.c)
** and encodes several row groups at a time (op_dml.c's bulk path), with the result of one thread: a
** generated CSV of every type, NULLs, quoted delimiters and quoted line ends -- some of them across
** the cuts of the file's ranges, where a range's guess of its first record is wrong -- loads into
** the same rows in the same order (so the same rowids) at 1, 2, 4 and 7 threads; a bad record near
** the end fails with the same message and line at each and leaves the table as it was; a
** duplicate key names the same line; an interrupt and a memory_limit stop the load cleanly.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers/api_db.h"
#include "helpers/results.h"
#include "helpers/tmpdir.h"
#include "strata.h"

#define RANGE (2u << 20) /* copy.c's COPY_RANGE_BYTES: where the file is cut */

static char dir[256];
static char file[300];

static void make_dir(void) {
    snprintf(dir, sizeof dir, "/tmp/strata-pcopy-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(file, sizeof file, "%s/data.csv", dir);
}
static void remove_dir(void) { tmpdir_remove(dir); }

static const char *const thread_counts[] = {"1", "2", "4", "7"};

/* write_csv writes rows records of 8 columns (id, INTEGER, BIGINT, DECIMAL, DATE, TIMESTAMP,
** BOOLEAN, VARCHAR), every type with NULLs, quoted commas and line ends; just before each cut of
** the file a record whose quoted text spans the cut with lines that read as records. Row bad
** (0: none) gets a value that is not an integer. Returns the file's size. */
static long write_csv(long rows, long bad) {
    FILE *f = fopen(file, "w");
    cr_assert_not_null(f);
    long next_cut = RANGE;
    for (long i = 1; i <= rows; i++) {
        fprintf(f, "%ld,", i);
        if (i == bad) fputs("12x,", f);
        else if (i % 17 == 0) fputs(",", f);
        else fprintf(f, "%ld,", (i * 7919) % 100000 - 50000);
        if (i % 19 == 0) fputs(",", f);
        else fprintf(f, "%lld,", (long long)i * 1000003LL);
        if (i % 23 == 0) fputs(",", f);
        else fprintf(f, "%ld.%02ld,", i % 9999, i % 100);
        fprintf(f, "%04ld-%02ld-%02ld,", 1990 + i % 30, 1 + i % 12, 1 + i % 28);
        if (i % 29 == 0) fputs(",", f);
        else fprintf(f, "2024-%02ld-%02ld %02ld:%02ld:%02ld,", 1 + i % 12, 1 + i % 28, i % 24, i % 60, (i * 7) % 60);
        fputs(i % 31 == 0 ? "," : i % 2 ? "true," : "false,", f);
        if (ftell(f) > next_cut - 1000) { /* a quoted field across the cut, its lines like records */
            fputc('"', f);
            for (int k = 0; k < 120; k++) fprintf(f, "%d,%d,\"\"q\"\",x\n", k, k * 3);
            fputs("\"\n", f);
            next_cut += RANGE;
        } else if (i % 37 == 0) {
            fprintf(f, "\"two\nlines, %ld\"\n", i);
        } else if (i % 41 == 0) {
            fputs("\n", f); /* NULL */
        } else if (i % 43 == 0) {
            fputs("\"\"\n", f); /* the empty string */
        } else {
            fprintf(f, "\"text %ld, \"\"quoted\"\" and long enough to leave the inline strings\"\n", i);
        }
    }
    long size = ftell(f);
    fclose(f);
    return size;
}

static const char *create_sql = "CREATE TABLE t(id INTEGER, i INTEGER, b BIGINT, d DECIMAL(12,2), dt DATE, ts TIMESTAMP, "
                                "f BOOLEAN, s VARCHAR)";

/* load_at loads the file into a new table at `threads` and returns SELECT * of it as text. */
static char *load_at(const char *threads) {
    strata_db *db = open_mem();
    char sql[600];
    snprintf(sql, sizeof sql, "SET threads = %s", threads);
    EXEC_OK(db, sql);
    EXEC_OK(db, create_sql);
    snprintf(sql, sizeof sql, "COPY t FROM '%s'", file);
    EXEC_OK(db, sql);
    EXEC_OK(db, "SET threads = 1");
    char *all = result(db, "SELECT * FROM t");
    strata_close(db);
    return all;
}

Test(parallel_copy, the_same_table_at_every_thread_count, .init = make_dir, .fini = remove_dir, .timeout = 600) {
    long size = write_csv(160000, 0);
    cr_assert_gt(size, 5 * RANGE, "the file (%ld bytes) has too few ranges", size);
    char *one = load_at("1");
    cr_assert(strstr(one, "two\nlines, 37"), "a quoted line end did not survive");
    cr_assert(strstr(one, "119,357,\"q\",x\n"), "a quoted field across a cut did not survive");
    size_t lines = 0;
    for (const char *p = one; *p; p++) lines += *p == '\n';
    cr_assert_gt(lines, 160000);
    for (size_t k = 1; k < sizeof thread_counts / sizeof *thread_counts; k++) {
        char *many = load_at(thread_counts[k]);
        cr_assert(strcmp(one, many) == 0, "threads = %s loaded another table", thread_counts[k]);
        free(many);
    }
    free(one);
}

/* The rowids are the file's order: a column of the table's own numbers agrees with them. */
Test(parallel_copy, rowids_follow_the_file, .init = make_dir, .fini = remove_dir, .timeout = 600) {
    write_csv(160000, 0);
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, i INTEGER, b BIGINT, d DECIMAL(12,2), dt DATE, ts TIMESTAMP, "
                "f BOOLEAN, s VARCHAR)");
    char sql[600];
    snprintf(sql, sizeof sql, "COPY t FROM '%s'", file);
    EXEC_OK(db, "SET threads = 4");
    EXEC_OK(db, sql);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 160000);
    same_at_threads(db, "SELECT count(*), sum(id), sum(i), sum(b), sum(d), min(dt), max(ts), count(f), sum(length(s)) FROM t");
    strata_close(db);
}

/* fails_at loads the file at threads into a table holding one row and returns the error message
** (the COPY must fail with code; the table keeps its one row). */
static char *fails_at(const char *threads, const char *create, const char *limit, int code) {
    strata_db *db = open_mem();
    char sql[600];
    snprintf(sql, sizeof sql, "SET threads = %s", threads);
    EXEC_OK(db, sql);
    EXEC_OK(db, create);
    EXEC_OK(db, "INSERT INTO t(id, s) VALUES (-1, 'before')");
    if (limit) EXEC_OK(db, limit);
    snprintf(sql, sizeof sql, "COPY t FROM '%s'", file);
    int rc = strata_exec(db, sql, NULL, NULL);
    cr_assert_eq(rc, code, "threads = %s: %d %s", threads, rc, strata_errmsg(db));
    char *msg = strdup(strata_errmsg(db));
    EXEC_OK(db, "SET memory_limit = '4GB'");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 1, "threads = %s left rows behind", threads);
    strata_close(db);
    return msg;
}

static void same_failure(const char *create, const char *limit, int code, const char *fragment) {
    char *one = fails_at("1", create, limit, code);
    cr_assert(strstr(one, fragment), "%s", one);
    for (size_t k = 1; k < sizeof thread_counts / sizeof *thread_counts; k++) {
        char *many = fails_at(thread_counts[k], create, limit, code);
        cr_assert_str_eq(many, one, "threads = %s", thread_counts[k]);
        free(many);
    }
    free(one);
}

Test(parallel_copy, a_late_bad_record_fails_alike, .init = make_dir, .fini = remove_dir, .timeout = 600) {
    write_csv(160000, 151234);
    same_failure(create_sql, NULL, STRATA_ERROR, "invalid input syntax for type integer: \"12x\"");
    char *one = fails_at("2", create_sql, NULL, STRATA_ERROR);
    cr_assert(strstr(one, "column 2 (i)"), "%s", one);
    free(one);
}

/* A second bad record after the first: the first in the file's order is the one named. */
Test(parallel_copy, the_first_of_two_bad_records_is_named, .init = make_dir, .fini = remove_dir, .timeout = 600) {
    write_csv(160000, 90001);
    FILE *f = fopen(file, "a");
    fputs("oops\n", f);
    fclose(f);
    same_failure(create_sql, NULL, STRATA_ERROR, "column 2 (i)");
}

Test(parallel_copy, a_duplicate_key_names_the_same_line, .init = make_dir, .fini = remove_dir, .timeout = 600) {
    write_csv(160000, 0);
    FILE *f = fopen(file, "a");
    fputs("77777,1,1,1.00,2000-01-01,,true,dup\n", f);
    fclose(f);
    same_failure("CREATE TABLE t(id INTEGER, i INTEGER, b BIGINT, d DECIMAL(12,2), dt DATE, ts TIMESTAMP, f BOOLEAN, "
                 "s VARCHAR, UNIQUE (id))",
                 NULL, STRATA_CONSTRAINT, "duplicate key");
}

Test(parallel_copy, a_memory_limit_stops_the_load_alike, .init = make_dir, .fini = remove_dir, .timeout = 600) {
    write_csv(160000, 0);
    same_failure(create_sql, "SET memory_limit = '12MB'", STRATA_NOMEM, "memory_limit");
}

/* stop_soon stops the statement at the handler's second call. A load on the workers can end
** within the 100 ms between calls: the first call sleeps that long, so that the second is due at
** the next chunk. */
static int stop_soon(void *arg, uint64_t done, uint64_t total, const char *unit) {
    (void)done, (void)total, (void)unit;
    if (*(int *)arg == 0) usleep(120000);
    return ++*(int *)arg >= 2;
}

Test(parallel_copy, an_interrupt_stops_the_load, .init = make_dir, .fini = remove_dir, .timeout = 600) {
    write_csv(160000, 0);
    for (size_t k = 0; k < sizeof thread_counts / sizeof *thread_counts; k++) {
        strata_db *db = open_mem();
        char sql[600];
        snprintf(sql, sizeof sql, "SET threads = %s", thread_counts[k]);
        EXEC_OK(db, sql);
        EXEC_OK(db, create_sql);
        int calls = 0;
        strata_progress_handler(db, stop_soon, &calls);
        snprintf(sql, sizeof sql, "COPY t FROM '%s'", file);
        cr_assert_eq(strata_exec(db, sql, NULL, NULL), STRATA_INTERRUPT, "threads = %s: %s", thread_counts[k],
                     strata_errmsg(db));
        strata_progress_handler(db, NULL, NULL);
        cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 0);
        EXEC_OK(db, sql); /* the handle goes on */
        cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 160000);
        strata_close(db);
    }
}
