/*
** bench_common.h -- helpers shared by the benchmark programs (bench_rowstore, bench_close, bench_kernels, harness, compare).
**
** Failure, time and deterministic random numbers; per-workload peak memory; the floor of a
** durable commit on this disk; the environment a run records; summaries (median, min-max) and
** the min-max verdict; table-cell and JSON formatting; result file names; running a child.
** Not library code: nothing under the library folders includes this header.
*/
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __clang__
#define COMPILER "clang " __clang_version__
#else
#define COMPILER "gcc " __VERSION__
#endif

#define FLOOR_WRITES 200 /* the most writes floor_median_us() times */

/* die() prints "<bench_program>: <current_engine>, workload '<current_workload>': <message>" and
** exits with status 1. The program sets bench_program once; workloads set the other two. */
extern const char *bench_program;
extern const char *current_workload;
extern const char *current_engine;
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

uint64_t now_ns(void);                       /* CLOCK_MONOTONIC in ns */
uint64_t splitmix64(uint64_t *state);        /* the next of a deterministic 64-bit sequence */
uint64_t below(uint64_t *state, uint64_t n); /* uniform in [0, n) */
/* sum_bytes adds up p as little-endian 64-bit words (wrapping) and then its last n % 8 bytes:
** every byte counts, and the checksum every read workload computes costs each engine as little
** as possible, so that it narrows no engine's lead. */
uint64_t sum_bytes(const void *p, size_t n);
int cmp_u64(const void *a, const void *b);   /* qsort comparators */
int cmp_double(const void *a, const void *b);
/* date_text writes "YYYY-MM-DD" (10 characters and a NUL) for days since 1970-01-01. */
void date_text(char *out, int32_t days);
double file_size(const char *path); /* bytes, 0 when the file does not exist */
void remove_tree(const char *dir);  /* rm -r, errors ignored */
/* run_setup checks that the program runs from the repository root, makes bench/results and a
** fresh bench/tmp/<prefix>-<pid> directory (its path into run_dir) for the run's databases, and
** gives the program's own path (exe) for its child processes. Dies on failure. */
void run_setup(const char *prefix, char *run_dir, size_t run_cap, char *exe, size_t exe_cap);

/* peak_reset starts a timed workload: sync(), then it resets the RSS high-water mark (Linux
** /proc/self/clear_refs); peak_kib() read after the workload is then its peak RSS in KiB. When
** the reset fails, peak_reset_works becomes 0 and peaks are cumulative. */
extern int peak_reset_works;
void peak_reset(void);
double peak_kib(void);

/* The floor of a durable commit. floor_open creates path with `blocks` synced 4 KiB blocks;
** floor_write_ns times one 4 KiB pwrite of block i + fdatasync (an overwrite below `blocks`, an
** append past them); floor_close removes the file. floor_median_us: `writes` such writes
** (1..FLOOR_WRITES) over a synced file when preallocate is set, appending to a new one
** otherwise; the median in µs. All die on an I/O error. */
typedef struct floor_file {
    int fd;
    uint8_t page[4096];
    char path[4200];
} floor_file;
void floor_open(floor_file *f, const char *path, int blocks);
uint64_t floor_write_ns(floor_file *f, int block);
void floor_close(floor_file *f);
double floor_median_us(const char *path, int preallocate, int writes);
/* io_pressure: Linux PSI "some avg10" for I/O in percent, NAN where unavailable. */
double io_pressure(void);

/* The environment a run records. gather_environment fills it (git commit and status of the
** working directory, CPU, memory, kernel, the file system of tmp_dir, load average);
** git_status is malloc'ed. */
typedef struct environment {
    char date[32], stamp[16], cpu[256], kernel[512], fs[64], commit[64];
    char *git_status; /* porcelain output, "" when clean */
    long cores;
    double mem_gib;
    char load_before[64], load_after[64];
} environment;
void gather_environment(environment *env, const char *tmp_dir);
void load_average(char *out, size_t n); /* the three load averages of /proc/loadavg */

/* Median and range of a figure over repetitions (n == 0: no figure; the rest NAN). */
typedef struct summary {
    int n;
    double median, min, max;
} summary;
/* summary_of sorts v[0..n-1] in place and summarizes it. */
summary summary_of(double *v, int n);
/* verdict: lower is better; "faster"/"slower" ("smaller"/"larger" for sizes) only when the
** min-max ranges do not overlap, "overlap" otherwise, "n/a" when a side has no figure. */
const char *verdict(summary a, summary b, int is_size);

/* Table cells: fmt_num groups thousands and keeps 3 significant digits below 1000 ("n/a" for
** NAN); fmt_summary writes "median (min–max)" of s scaled; fmt_mib the median of a KiB figure
** in MiB ("–" when none). */
void fmt_num(char *out, size_t n, double v);
void fmt_summary(char *out, size_t n, summary s, double scale);
void fmt_mib(char *out, size_t n, summary s);

void json_str(FILE *f, const char *s); /* a JSON string literal */
void json_num(FILE *f, double v);      /* a number, null for NAN */

/* result_paths: bench/results/<name>-<date>-<commit>[-N].md and .json, with the first N (2, 3,
** ...) for which neither file exists yet. */
void result_paths(const char *name, const environment *env, char *md, char *json, size_t n);

/* run_process runs argv (argv[0] an executable path) as a child process and waits for it; it
** returns the wait status and sets *seconds to its wall time. Dies when it cannot start. */
int run_process(const char *const argv[], double *seconds);

#endif /* BENCH_COMMON_H */
