/*
** test_compare.c -- the benchmark regression gate bench/compare, run as CI runs it: the built
** program (COMPARE_BIN, passed by the Makefile) on two harness result files written here, its
** exit status and the lines of its output that a reader acts on.
*/
#include <criterion/criterion.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/run_program.h"
#include "helpers/tmpdir.h"

#ifndef COMPARE_BIN
#error "COMPARE_BIN must name the compare binary (the Makefile passes it)"
#endif

static char tmp[] = "/tmp/strata-compare-XXXXXX";

static void setup(void) { cr_assert_not_null(mkdtemp(tmp)); }
static void teardown(void) { tmpdir_remove(tmp); }

/* path_in returns tmp/name in a static buffer (one at a time). */
static const char *path_in(const char *name) {
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    return path;
}

/* run starts the program in tmp with up to two arguments (NULL ends them; relative paths are
** relative to tmp), waits for it and collects what it wrote. */
static run_result run(const char *arg1, const char *arg2) {
    const char *argv[] = {COMPARE_BIN, arg1, arg1 ? arg2 : NULL, NULL};
    return run_program(tmp, argv, NULL);
}

/* ---- fixtures ---- */

/* A harness result file with one strata time metric (bulk_insert_ms: ms over 1,000 rows, so
** 1 ms is 1 µs per row), a checksum and a memory metric, strata and sqlite-wal samples. */
typedef struct fixture {
    const char *cpu;
    double mem_gib;
    int quick;                 /* config.quick */
    long rows;                 /* config.sizes.rows */
    const char *peer_settings; /* sqlite-wal's settings */
    double strata[8];          /* strata's bulk_insert_ms, one sample each */
    int n_strata;
    double peer[8]; /* sqlite-wal's */
    int n_peer;
    int with_scan;            /* also declare and measure scan_ms (strata: 3 ms) */
    const char *first_value;  /* when set, the JSON text of the first strata sample's figure */
    const char *strata_error; /* when set, the first strata sample records this bulk_insert error */
    const char *extra;        /* members added to the top-level object ("" for none) */
} fixture;

static fixture base(void) {
    return (fixture){.cpu = "Test CPU @ 2.00GHz",
                     .mem_gib = 23.5,
                     .rows = 1000,
                     .peer_settings = "journal_mode=WAL, synchronous=FULL",
                     .strata = {5, 5, 5},
                     .n_strata = 3,
                     .peer = {8, 8, 8},
                     .n_peer = 3,
                     .extra = ""};
}

static void write_sample(FILE *f, const fixture *fx, const char *engine, int rep, double value) {
    int first_strata = strcmp(engine, "strata") == 0 && rep == 1;
    fprintf(f, "  {\"engine\": \"%s\", \"rep\": %d, \"position\": 0, \"child_seconds\": 0.5, \"metrics\": {",
            engine, rep);
    if (first_strata && fx->first_value)
        fprintf(f, "\"bulk_insert_ms\": %s", fx->first_value);
    else
        fprintf(f, "\"bulk_insert_ms\": %.17g", value);
    fprintf(f, ", \"bulk_insert_checksum\": \"c0ffee\", \"bulk_insert_peak_kib\": 2048");
    if (fx->with_scan) fprintf(f, ", \"scan_ms\": 3");
    fprintf(f, "}, \"errors\": {");
    if (first_strata && fx->strata_error) fprintf(f, "\"bulk_insert\": \"%s\"", fx->strata_error);
    fprintf(f, "}}");
}

/* write_report writes the fixture as tmp/name. */
static void write_report(const char *name, const fixture *fx) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    fprintf(
        f,
        "{\n \"benchmark\": \"harness\",\n \"date\": \"2026-11-30T10:00:00Z\",\n"
        " \"git\": {\"commit\": \"abc1234\", \"dirty\": false, \"status\": \"\"},\n"
        " \"environment\": {\"cpu\": \"%s\", \"cores\": 2, \"mem_gib\": %.17g, \"kernel\": \"Linux 6.1\","
        " \"filesystem\": \"ext2/3/4\", \"compiler\": \"gcc 12.2\", \"cflags\": \"-O2\","
        " \"library\": \"build/release/libstrata.a\", \"versions\": {\"strata\": \"0.1.0\","
        " \"sqlite\": \"3.40.1\", \"duckdb\": null}, \"load_before\": \"0.1 0.2 0.3\","
        " \"load_after\": \"0.1 0.2 0.3\"},\n"
        " \"config\": {\"quick\": %s, \"reps\": %d, \"sizes\": {\"rows\": %ld, \"lookups\": 100},\n"
        "  \"engines\": [{\"name\": \"strata\", \"title\": \"strata\", \"settings\": \"page 8 KiB\","
        " \"crash_safe\": true, \"available\": true, \"version\": \"0.1.0\"},\n"
        "   {\"name\": \"sqlite-wal\", \"title\": \"SQLite WAL\", \"settings\": \"%s\", \"crash_safe\": true,"
        " \"available\": true, \"version\": \"3.40.1\"}],\n"
        "  \"workloads\": [\"bulk_insert\"%s]},\n"
        " \"metrics\": [\n"
        "  {\"id\": \"bulk_insert_ms\", \"workload\": \"bulk_insert\", \"label\": \"bulk insert, 1,000 "
        "rows\","
        " \"unit\": \"ms\", \"units\": 1000, \"per\": \"row\", \"kind\": \"time\"},\n"
        "  {\"id\": \"bulk_insert_checksum\", \"workload\": \"bulk_insert\", \"label\": \"checksum\","
        " \"unit\": \"\", \"units\": 1, \"per\": \"run\", \"kind\": \"checksum\"},\n"
        "  {\"id\": \"bulk_insert_peak_kib\", \"workload\": \"bulk_insert\", \"label\": \"bulk insert peak\","
        " \"unit\": \"KiB\", \"units\": 1, \"per\": \"run\", \"kind\": \"memory\"}",
        fx->cpu, fx->mem_gib, fx->quick ? "true" : "false", fx->n_strata, fx->rows, fx->peer_settings,
        fx->with_scan ? ", \"scan\"" : "");
    if (fx->with_scan)
        fprintf(f, ",\n  {\"id\": \"scan_ms\", \"workload\": \"scan\", \"label\": \"scan, 1,000 rows\","
                   " \"unit\": \"ms\", \"units\": 1000, \"per\": \"row\", \"kind\": \"time\"}");
    fprintf(f, "],\n \"samples\": [");
    int n = fx->n_strata > fx->n_peer ? fx->n_strata : fx->n_peer, written = 0;
    for (int i = 0; i < n; i++) {
        if (i < fx->n_strata) {
            fputs(written++ ? ",\n" : "\n", f);
            write_sample(f, fx, "strata", i + 1, fx->strata[i]);
        }
        if (i < fx->n_peer) {
            fputs(written++ ? ",\n" : "\n", f);
            write_sample(f, fx, "sqlite-wal", i + 1, fx->peer[i]);
        }
    }
    fprintf(f, "]%s\n}\n", fx->extra);
    fclose(f);
    write_file(path_in(name), text);
    free(text);
}

/* compare_fixtures writes both reports and runs the program on them. */
static run_result compare_fixtures(const fixture *old, const fixture *new) {
    write_report("old.json", old);
    write_report("new.json", new);
    return run("old.json", "new.json");
}

/* the table row of metric label in out, or "" (a static copy, one at a time) */
static const char *row_of(const char *out, const char *label) {
    static char row[512];
    char start[128];
    snprintf(start, sizeof start, "\n| %s |", label);
    const char *p = strstr(out, start);
    if (p == NULL) return "";
    p++;
    size_t n = strcspn(p, "\n");
    snprintf(row, sizeof row, "%.*s", (int)(n < sizeof row ? n : sizeof row - 1), p);
    return row;
}

#define expect_status(r, s)                                                                                  \
    cr_expect_eq((r).status, (s), "exit status %d, expected %d\nstdout:\n%s\nstderr:\n%s", (r).status, (s),  \
                 (r).out, (r).err)
#define expect_in(hay, needle)                                                                               \
    cr_expect(strstr((hay), (needle)) != NULL, "no \"%s\" in:\n%s", (needle), (hay))
#define expect_not_in(hay, needle)                                                                           \
    cr_expect(strstr((hay), (needle)) == NULL, "\"%s\" in:\n%s", (needle), (hay))

TestSuite(compare, .init = setup, .fini = teardown);

/* ---- the gate ---- */

Test(compare, identical_reports_pass) {
    fixture a = base();
    run_result r = compare_fixtures(&a, &a);
    expect_status(r, 0);
    expect_in(row_of(r.out, "bulk insert, 1,000 rows"), "| ms | 5 | 5 | +0.0 % | 0.00 |  |");
    expect_in(r.out, "verdict: no regression");
    cr_expect_str_eq(r.err, "");
    run_free(&r);
}

Test(compare, strata_forty_percent_and_two_us_per_row_slower_is_a_regression) {
    fixture a = base(), b = base();
    b.strata[0] = b.strata[1] = b.strata[2] = 7; /* 5 -> 7 µs per row */
    run_result r = compare_fixtures(&a, &b);
    expect_status(r, 1);
    expect_in(row_of(r.out, "bulk insert, 1,000 rows"), "| ms | 5 | 7 | +40.0 % | +2.00 | REGRESSION |");
    expect_in(r.out, "verdict: REGRESSION");
    expect_in(r.out, "bulk_insert_ms");
    run_free(&r);
}

Test(compare, forty_percent_slower_but_a_tenth_of_a_us_per_row_passes) {
    fixture a = base(), b = base();
    a.strata[0] = a.strata[1] = a.strata[2] = 0.25; /* 0.25 -> 0.35 µs per row */
    b.strata[0] = b.strata[1] = b.strata[2] = 0.35;
    run_result r = compare_fixtures(&a, &b);
    expect_status(r, 0);
    expect_in(row_of(r.out, "bulk insert, 1,000 rows"), "+40.0 % | +0.10 |  |");
    expect_not_in(r.out, "REGRESSION");
    run_free(&r);
}

Test(compare, twenty_percent_slower_passes) {
    fixture a = base(), b = base();
    b.strata[0] = b.strata[1] = b.strata[2] = 6;
    run_result r = compare_fixtures(&a, &b);
    expect_status(r, 0);
    expect_in(row_of(r.out, "bulk insert, 1,000 rows"), "+20.0 % | +1.00 |  |");
    expect_not_in(r.out, "REGRESSION");
    run_free(&r);
}

Test(compare, a_faster_run_passes_and_says_improved) {
    fixture a = base(), b = base();
    b.strata[0] = b.strata[1] = b.strata[2] = 2.5;
    run_result r = compare_fixtures(&a, &b);
    expect_status(r, 0);
    expect_in(row_of(r.out, "bulk insert, 1,000 rows"), "-50.0 % | -2.50 | improved |");
    expect_in(r.out, "verdict: no regression (1 strata metrics compared, 1 improved)");
    run_free(&r);
}

Test(compare, only_strata_gates_a_slower_peer_passes) {
    fixture a = base(), b = base();
    b.peer[0] = b.peer[1] = b.peer[2] = 80;
    run_result r = compare_fixtures(&a, &b);
    expect_status(r, 0);
    expect_not_in(r.out, "REGRESSION");
    run_free(&r);
}

Test(compare, a_strata_workload_failing_only_in_new_fails_the_gate) {
    fixture a = base(), b = base();
    b.strata_error = "disk full";
    run_result r = compare_fixtures(&a, &b);
    expect_status(r, 1);
    expect_in(r.out,
              "FAILED: strata workload bulk_insert failed in NEW (1 of 3 samples), not in OLD: disk full");
    expect_in(r.out, "verdict: REGRESSION");
    run_free(&r);
    a.strata_error = "disk full"; /* failing in both: a note only */
    r = compare_fixtures(&a, &b);
    expect_status(r, 0);
    expect_in(r.out, "failed in OLD and in NEW");
    run_free(&r);
}

/* ---- medians come from the samples ---- */

Test(compare, medians_are_recomputed_from_the_samples_and_summaries_ignored) {
    fixture a = base(), b = base();
    a.strata[0] = a.strata[1] = a.strata[2] = 2;
    b.strata[0] = 1, b.strata[1] = 100, b.strata[2] = 2; /* median 2, mean 34 */
    b.extra =
        ",\n \"summary\": {\"strata\": {\"bulk_insert_ms\": {\"median\": 100, \"min\": 100, \"max\": 100}}}";
    run_result r = compare_fixtures(&a, &b);
    expect_status(r, 0);
    expect_in(row_of(r.out, "bulk insert, 1,000 rows"), "| ms | 2 | 2 (1–100) | +0.0 % |");
    run_free(&r);
}

Test(compare, an_even_count_takes_the_mean_of_the_middle_two) {
    fixture a = base(), b = base();
    a.strata[0] = a.strata[1] = a.strata[2] = 2;
    b.n_strata = 4; /* sorted 2 2 3 100: median 2.5 (+25 %), where 3 would be +50 % */
    b.strata[0] = 100, b.strata[1] = 2, b.strata[2] = 3, b.strata[3] = 2;
    run_result r = compare_fixtures(&a, &b);
    expect_status(r, 0);
    expect_in(row_of(r.out, "bulk insert, 1,000 rows"), "| ms | 2 | 2.50 (2–100) | +25.0 % | +0.50 |  |");
    run_free(&r);
}

Test(compare, repetitions_may_differ) {
    fixture a = base(), b = base();
    b.n_strata = b.n_peer = 5;
    b.strata[3] = b.strata[4] = 5;
    b.peer[3] = b.peer[4] = 8;
    run_result r = compare_fixtures(&a, &b);
    expect_status(r, 0);
    run_free(&r);
}

Test(compare, a_metric_only_in_new_is_listed) {
    fixture a = base(), b = base();
    b.with_scan = 1;
    run_result r = compare_fixtures(&a, &b);
    expect_status(r, 0);
    expect_in(r.out, "only in NEW: scan_ms (scan, 1,000 rows)");
    run_free(&r);
    r = compare_fixtures(&b, &a);
    expect_status(r, 0);
    expect_in(r.out, "only in OLD: scan_ms");
    run_free(&r);
}

/* ---- reports that are not comparable ---- */

Test(compare, different_sizes_are_not_comparable_and_name_the_key) {
    fixture a = base(), b = base();
    b.rows = 2000;
    run_result r = compare_fixtures(&a, &b);
    expect_status(r, 2);
    expect_in(r.err, "bench/compare: not comparable: config.sizes.rows: 1000 in OLD, 2000 in NEW");
    cr_expect_str_eq(r.out, "");
    run_free(&r);
}

Test(compare, a_different_cpu_is_not_comparable) {
    fixture a = base(), b = base();
    b.cpu = "Other CPU @ 3.00GHz";
    run_result r = compare_fixtures(&a, &b);
    expect_status(r, 2);
    expect_in(r.err, "bench/compare: not comparable: environment.cpu");
    run_free(&r);
}

Test(compare, a_quick_run_is_not_comparable_with_a_full_one) {
    fixture a = base(), b = base();
    b.quick = 1;
    run_result r = compare_fixtures(&a, &b);
    expect_status(r, 2);
    expect_in(r.err, "bench/compare: not comparable: config.quick: false in OLD, true in NEW");
    run_free(&r);
}

Test(compare, memory_differs_by_half_a_gib_or_more_for_another_machine) {
    fixture a = base(), b = base();
    b.mem_gib = 23.2;
    run_result r = compare_fixtures(&a, &b);
    expect_status(r, 0);
    run_free(&r);
    b.mem_gib = 24.0;
    r = compare_fixtures(&a, &b);
    expect_status(r, 2);
    expect_in(r.err, "environment.mem_gib");
    run_free(&r);
}

Test(compare, different_settings_of_an_engine_in_both_are_not_comparable) {
    fixture a = base(), b = base();
    b.peer_settings = "journal_mode=WAL, synchronous=NORMAL";
    run_result r = compare_fixtures(&a, &b);
    expect_status(r, 2);
    expect_in(r.err, "engine sqlite-wal: settings");
    run_free(&r);
}

/* ---- bad input ---- */

Test(compare, malformed_json_is_an_error_naming_the_file) {
    fixture a = base();
    write_report("old.json", &a);
    write_file(path_in("new.json"), "{\"benchmark\": \"harness\", \"samples\": [1, 2,\n");
    run_result r = run("old.json", "new.json");
    expect_status(r, 2);
    expect_in(r.err, "bench/compare: new.json (NEW): not JSON: syntax error at line 2");
    cr_expect_str_eq(r.out, "");
    run_free(&r);
}

Test(compare, a_missing_file_is_an_error) {
    fixture a = base();
    write_report("old.json", &a);
    run_result r = run("old.json", "missing.json");
    expect_status(r, 2);
    expect_in(r.err, "bench/compare: missing.json (NEW): cannot open: No such file or directory");
    run_free(&r);
}

Test(compare, another_benchmark_is_not_comparable) {
    fixture a = base();
    write_report("new.json", &a);
    write_file(path_in("old.json"), "{\"benchmark\": \"rowstore\"}");
    run_result r = run("old.json", "new.json");
    expect_status(r, 2);
    expect_in(r.err, "old.json (OLD): not a harness result: \"benchmark\" is \"rowstore\"");
    run_free(&r);
}

Test(compare, null_and_wrongly_typed_figures_are_errors) {
    fixture a = base(), b = base();
    b.first_value = "null";
    run_result r = compare_fixtures(&a, &b);
    expect_status(r, 2);
    expect_in(r.err, "new.json (NEW): samples[0].metrics.bulk_insert_ms is null, expected a number");
    run_free(&r);
    b.first_value = "\"fast\"";
    r = compare_fixtures(&a, &b);
    expect_status(r, 2);
    expect_in(r.err, "samples[0].metrics.bulk_insert_ms is a string, expected a number");
    run_free(&r);
    b.first_value = "1e999"; /* parses as infinity */
    r = compare_fixtures(&a, &b);
    expect_status(r, 2);
    expect_in(r.err, "samples[0].metrics.bulk_insert_ms is not a finite number");
    run_free(&r);
}

Test(compare, empty_samples_and_missing_fields_are_errors) {
    fixture a = base(), b = base();
    b.n_strata = b.n_peer = 0;
    run_result r = compare_fixtures(&a, &b);
    expect_status(r, 2);
    expect_in(r.err, "new.json (NEW): samples is empty");
    run_free(&r);
    b.n_peer = 3; /* only the peer measured */
    r = compare_fixtures(&a, &b);
    expect_status(r, 2);
    expect_in(r.err, "new.json (NEW): no strata samples");
    run_free(&r);
    write_file(path_in("new.json"),
               "{\"benchmark\": \"harness\", \"environment\": {\"cpu\": \"x\", \"cores\": 2}}");
    r = run("old.json", "new.json");
    expect_status(r, 2);
    expect_in(r.err, "new.json (NEW): environment.mem_gib is missing");
    run_free(&r);
}

Test(compare, wrong_argument_count_prints_usage) {
    run_result r = run("old.json", NULL);
    expect_status(r, 2);
    expect_in(r.err, "usage: bench/compare OLD.json NEW.json");
    run_free(&r);
}
