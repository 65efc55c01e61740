/*
** test_tpch_load.c -- the tpch-load and tpch-run programs (datasets/tpch/tpch_load.c, tpch_run.c)
** at SF 0.01: every row of every table loaded as the generator made it, aggregates over the loaded
** DECIMAL and DATE columns equal to the generator's exact sums, the database replaced but no
** other file, and tpch-run's table: checksums of Q1 and Q6 (Q6's computed from the generator),
** errors and timeouts that do not stop the run.
*/
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers/api_db.h"
#include "helpers/fnv.h"
#include "helpers/run_program.h"
#include "helpers/tmpdir.h"
#include "strata.h"
#include "tpch_gen.h"

#if !defined(TPCH_LOAD_BIN) || !defined(TPCH_RUN_BIN) || !defined(TPCH_SCHEMA) || !defined(TPCH_QUERIES)
#error "the Makefile passes TPCH_LOAD_BIN, TPCH_RUN_BIN, TPCH_SCHEMA and TPCH_QUERIES"
#endif

#define SF 0.01
#define SF_TEXT "0.01"

/* 1994-01-01 and 1995-01-01, Q6's dates, as days since 1970-01-01 */
#define DAY_1994 8766
#define DAY_1995 9131


static int exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* load makes a temporary folder (dir, at least 32 bytes) and loads SF 0.01 into dir/tpch.db (db,
** 600 bytes) with tpch-load, which must succeed and report every table's rows. */
static void load(char *dir, char *db) {
    strcpy(dir, "/tmp/strata-tpch-load-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(db, 600, "%s/tpch.db", dir);
    const char *argv[] = {TPCH_LOAD_BIN, "-s", SF_TEXT, "-d", db, "-S", TPCH_SCHEMA, NULL};
    run_result r = run_program(dir, argv, NULL);
    cr_assert_eq(r.status, 0, "tpch-load: %s%s", r.out, r.err);
    for (int t = 0; t < TPCH_TABLE_COUNT; t++) {
        char line[64];
        snprintf(line, sizeof line, "\n%-10s %12lld ", tpch_table_name((tpch_table)t),
                 (long long)tpch_table_rows((tpch_table)t, SF));
        cr_assert_not_null(strstr(r.out, line), "no line%s in:\n%s", line, r.out);
    }
    cr_assert_not_null(strstr(r.out, "\ntotal "), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "\ndatabase "), "%s", r.out);
    run_free(&r);
    char tmp[700];
    snprintf(tmp, sizeof tmp, "%s.tmp", db);
    cr_assert(!exists(tmp), "the temporary database is renamed");
}

/* one_row runs sql, which must return one row, and returns its values as text joined by '|'
** (NULL as "NULL"); the caller frees it. */
static char *one_row(strata_db *db, const char *sql) {
    strata_stmt *s = prepare(db, sql);
    cr_assert_eq(strata_step(s), STRATA_ROW, "%s: %s", sql, strata_errmsg(db));
    char buf[1024] = "";
    size_t n = 0;
    for (int i = 0; i < strata_column_count(s); i++) {
        const char *v = strata_column_text(s, i);
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? "|" : "", v ? v : "NULL");
        cr_assert_lt(n, sizeof buf);
    }
    cr_assert_eq(strata_step(s), STRATA_DONE, "%s returns one row", sql);
    strata_finalize(s);
    return strdup(buf);
}

static void assert_row(strata_db *db, const char *sql, const char *want) {
    char *got = one_row(db, sql);
    cr_assert_str_eq(got, want, "%s", sql);
    free(got);
}

/* cents_text formats hundredths (or any fixed-point value with `decimals` digits) as SQL prints
** a DECIMAL: "-12.34". */
static void cents_text(char *buf, size_t cap, int64_t v, int decimals) {
    int64_t unit = decimals == 2 ? 100 : 10000;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    snprintf(buf, cap, "%s%llu.%0*llu", v < 0 ? "-" : "", (unsigned long long)(u / (uint64_t)unit), decimals,
             (unsigned long long)(u % (uint64_t)unit));
}

/* Every row of every table as the generator made it: the table's rows, each rendered as its .tbl
** line (values as text joined by '|'), hashed and summed (so that the order does not matter), equal
** the generator's .tbl lines hashed the same way. DECIMAL, DATE, CHAR(1) and strings all round
** trip through the appender. */
Test(tpch_load, every_row_of_every_table, .timeout = 60) {
    char dir[32], path[600];
    load(dir, path);
    strata_db *db = open_file(path);
    for (int t = 0; t < TPCH_TABLE_COUNT; t++) {
        const char *name = tpch_table_name((tpch_table)t);
        uint64_t want = 0, got = 0;
        int64_t want_rows = 0, got_rows = 0;
        tpch_gen *g;
        cr_assert_eq(tpch_gen_open(&g, (tpch_table)t, SF), STRATA_OK);
        tpch_row row;
        char line[TPCH_LINE_MAX];
        while (tpch_gen_next(g, &row) == STRATA_ROW) {
            size_t len = tpch_format_row((tpch_table)t, &row, line, sizeof line);
            want += fnv1a(FNV_START, line, len);
            want_rows++;
        }
        tpch_gen_close(g);
        cr_assert_eq(want_rows, tpch_table_rows((tpch_table)t, SF));

        char sql[128];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", name);
        char *count = one_row(db, sql);
        cr_assert_eq(strtoll(count, NULL, 10), want_rows, "%s: count(*) %s", name, count);
        free(count);

        snprintf(sql, sizeof sql, "SELECT * FROM %s", name);
        strata_stmt *s = prepare(db, sql);
        cr_assert_eq(strata_column_count(s), tpch_table_columns((tpch_table)t));
        int rc;
        while ((rc = strata_step(s)) == STRATA_ROW) {
            size_t n = 0;
            for (int i = 0; i < strata_column_count(s); i++) {
                const char *v = strata_column_text(s, i);
                cr_assert_not_null(v, "%s: a NULL in column %d", name, i);
                n += (size_t)snprintf(line + n, sizeof line - n, "%s|", v);
                cr_assert_lt(n, sizeof line - 1);
            }
            line[n++] = '\n';
            got += fnv1a(FNV_START, line, n);
            got_rows++;
        }
        cr_assert_eq(rc, STRATA_DONE, "%s: %s", name, strata_errmsg(db));
        strata_finalize(s);
        cr_assert_eq(got_rows, want_rows, "%s", name);
        cr_assert_eq(got, want, "%s: the loaded rows differ from the generator's", name);
    }
    strata_close(db);
    tmpdir_remove(dir);
}

/* Aggregates over the loaded DECIMAL and DATE columns equal the generator's exact sums (a DECIMAL
** appended inexactly, say through a double, would be off by a cent somewhere). */
Test(tpch_load, aggregates_equal_the_generators, .timeout = 60) {
    char dir[32], path[600];
    load(dir, path);

    int64_t qty = 0, price = 0, disc = 0, tax = 0, ship_days = 0, lines_r = 0;
    tpch_gen *g;
    tpch_row row;
    cr_assert_eq(tpch_gen_open(&g, TPCH_LINEITEM, SF), STRATA_OK);
    while (tpch_gen_next(g, &row) == STRATA_ROW) {
        const tpch_lineitem *l = &row.lineitem;
        qty += l->quantity;
        price += l->extendedprice;
        disc += l->discount;
        tax += l->tax;
        ship_days += l->shipdate;
        lines_r += l->returnflag == 'R';
    }
    tpch_gen_close(g);
    int64_t total = 0, custkeys = 0, orders_f = 0;
    int32_t first = INT32_MAX, last = INT32_MIN;
    cr_assert_eq(tpch_gen_open(&g, TPCH_ORDERS, SF), STRATA_OK);
    while (tpch_gen_next(g, &row) == STRATA_ROW) {
        const tpch_orders *o = &row.orders;
        total += o->totalprice;
        custkeys += o->custkey;
        orders_f += o->orderstatus == 'F';
        if (o->orderdate < first) first = o->orderdate;
        if (o->orderdate > last) last = o->orderdate;
    }
    tpch_gen_close(g);

    char want[512], a[32], b[32], c[32], d[32];
    strata_db *db = open_file(path);
    cents_text(a, sizeof a, qty, 2);
    cents_text(b, sizeof b, price, 2);
    cents_text(c, sizeof c, disc, 2);
    cents_text(d, sizeof d, tax, 2);
    snprintf(want, sizeof want, "%s|%s|%s|%s|%lld|%lld", a, b, c, d, (long long)ship_days,
             (long long)lines_r);
    assert_row(db,
               "SELECT sum(l_quantity), sum(l_extendedprice), sum(l_discount), sum(l_tax), "
               "sum(l_shipdate - date '1970-01-01'), sum(CASE WHEN l_returnflag = 'R' THEN 1 ELSE 0 END) "
               "FROM lineitem",
               want);
    char first_text[11] = {0}, last_text[11] = {0};
    tpch_format_date(first, first_text);
    tpch_format_date(last, last_text);
    cents_text(a, sizeof a, total, 2);
    snprintf(want, sizeof want, "%s|%lld|%s|%s", a, (long long)custkeys, first_text, last_text);
    assert_row(db, "SELECT sum(o_totalprice), sum(o_custkey), min(o_orderdate), max(o_orderdate) FROM orders",
               want);
    snprintf(want, sizeof want, "%lld", (long long)orders_f);
    assert_row(db, "SELECT count(*) FROM orders WHERE o_orderstatus = 'F'", want);
    strata_close(db);
    tmpdir_remove(dir);
}

/* A second load replaces the database (and says so); a file that is not a strata database is
** left alone; a bad scale factor or a missing schema fails without leaving a database. */
Test(tpch_load, replaces_a_database_but_no_other_file, .timeout = 60) {
    char dir[32], path[600];
    load(dir, path);
    const char *again[] = {TPCH_LOAD_BIN, "-s", SF_TEXT, "-d", path, "-S", TPCH_SCHEMA, NULL};
    run_result r = run_program(dir, again, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "replacing the existing database"), "%s", r.out);
    run_free(&r);
    strata_db *db = open_file(path);
    assert_row(db, "SELECT count(*) FROM region", "5");
    strata_close(db);

    char notes[600];
    snprintf(notes, sizeof notes, "%s/notes.txt", dir);
    write_file(notes, "not a database\n");
    const char *other[] = {TPCH_LOAD_BIN, "-s", SF_TEXT, "-d", notes, "-S", TPCH_SCHEMA, NULL};
    r = run_program(dir, other, NULL);
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_assert_not_null(strstr(r.err, "cannot be replaced"), "%s", r.err);
    run_free(&r);
    char *text = read_all(notes);
    cr_assert_str_eq(text, "not a database\n");
    free(text);

    char fresh[600], bad_schema[600];
    snprintf(fresh, sizeof fresh, "%s/fresh.db", dir);
    snprintf(bad_schema, sizeof bad_schema, "%s/missing.sql", dir);
    const char *no_schema[] = {TPCH_LOAD_BIN, "-s", SF_TEXT, "-d", fresh, "-S", bad_schema, NULL};
    r = run_program(dir, no_schema, NULL);
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_assert_not_null(strstr(r.err, "missing.sql"), "%s", r.err);
    run_free(&r);
    cr_assert(!exists(fresh), "no database after a failed load");

    const char *bad_sf[] = {TPCH_LOAD_BIN, "-s", "0.001", "-d", fresh, NULL};
    r = run_program(dir, bad_sf, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert_not_null(strstr(r.err, "scale factor"), "%s", r.err);
    run_free(&r);
    cr_assert(!exists(fresh));
    tmpdir_remove(dir);
}

/* run_line finds the line of query name ("q06") in tpch-run's output; returns it (a pointer
** into out) or fails. */
static const char *run_line(const char *out, const char *name) {
    char key[16];
    snprintf(key, sizeof key, "\n%s ", name);
    const char *line = strstr(out, key);
    cr_assert_not_null(line, "no line for %s in:\n%s", name, out);
    return line + 1;
}

/* line_has reports whether text occurs in the line that starts at line. */
static int line_has(const char *line, const char *text) {
    const char *at = strstr(line, text), *end = strchr(line, '\n');
    return at != NULL && (end == NULL || at < end);
}

/* result_checksum hashes the rows of sql as tpch-run's comment defines its checksum. */
static uint64_t result_checksum(strata_db *db, const char *sql) {
    static const unsigned char value_end = 0x1F, row_end = 0x1E, null_mark = 0xFF;
    strata_stmt *s = prepare(db, sql);
    uint64_t h = FNV_START;
    int rc;
    while ((rc = strata_step(s)) == STRATA_ROW) {
        for (int i = 0; i < strata_column_count(s); i++) {
            const char *v = strata_column_text(s, i);
            h = v ? fnv1a(h, v, strlen(v)) : fnv1a(h, &null_mark, 1);
            h = fnv1a(h, &value_end, 1);
        }
        h = fnv1a(h, &row_end, 1);
    }
    cr_assert_eq(rc, STRATA_DONE, "%s", strata_errmsg(db));
    strata_finalize(s);
    return h;
}

/* tpch-run runs Q1 and Q6 and prints their rows, times and checksums: Q6's checksum is that of
** the revenue computed from the generator's rows, Q1's that of the rows the API returns. */
Test(tpch_run, prints_checksums_of_q01_and_q06, .timeout = 60) {
    char dir[32], path[600];
    load(dir, path);
    const char *argv[] = {TPCH_RUN_BIN, "-d", path, "-q", TPCH_QUERIES, "-r", "3", "q01", "6", NULL};
    run_result r = run_program(dir, argv, NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_assert_str_eq(r.err, "", "runs agree: %s", r.err);

    /* Q6: sum(l_extendedprice * l_discount) over the lines it selects, scale 4 */
    int64_t revenue = 0;
    tpch_gen *g;
    tpch_row row;
    cr_assert_eq(tpch_gen_open(&g, TPCH_LINEITEM, SF), STRATA_OK);
    while (tpch_gen_next(g, &row) == STRATA_ROW) {
        const tpch_lineitem *l = &row.lineitem;
        if (l->shipdate >= DAY_1994 && l->shipdate < DAY_1995 && l->discount >= 5 && l->discount <= 7 &&
            l->quantity < 2400)
            revenue += l->extendedprice * l->discount;
    }
    tpch_gen_close(g);
    char day[10];
    tpch_format_date(DAY_1994, day);
    cr_assert_eq(memcmp(day, "1994-01-01", 10), 0);
    tpch_format_date(DAY_1995, day);
    cr_assert_eq(memcmp(day, "1995-01-01", 10), 0);
    char text[32];
    cents_text(text, sizeof text, revenue, 4);
    uint64_t want6 = fnv1a(fnv1a(fnv1a(FNV_START, text, strlen(text)), "\x1F", 1), "\x1E", 1);

    char q01_path[600];
    snprintf(q01_path, sizeof q01_path, "%s/q01.sql", TPCH_QUERIES);
    char *q01 = read_all(q01_path);
    strata_db *db = open_file(path);
    uint64_t want1 = result_checksum(db, q01);
    strata_close(db);
    free(q01);

    struct {
        const char *name;
        long long rows;
        uint64_t checksum;
    } want[] = {{"q01", 4, want1}, {"q06", 1, want6}};
    for (int i = 0; i < 2; i++) {
        char name[8], sum[17];
        long long rows;
        double first, median;
        const char *line = run_line(r.out, want[i].name);
        cr_assert_eq(sscanf(line, "%7s %lld %lf %lf %16s", name, &rows, &first, &median, sum), 5, "%s", line);
        cr_assert_eq(rows, want[i].rows, "%s", line);
        cr_assert(first > 0 && median > 0, "%s", line);
        char hex[17];
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)want[i].checksum);
        cr_assert_str_eq(sum, hex, "%s", line);
    }
    cr_assert_null(strstr(r.out, "\nq02 "), "only the queries named run:\n%s", r.out);
    cr_assert_not_null(strstr(r.out, "\n2 queries ran; total time "), "%s", r.out);
    run_free(&r);
    tmpdir_remove(dir);
}

/* A query the engine refuses prints "not supported" and its error, one over the time limit is
** stopped; the run goes on and exits 0. A missing database is an error (and is not created). */
Test(tpch_run, goes_on_after_errors_and_timeouts, .timeout = 60) {
    char dir[32], path[600], queries[700], file[800];
    load(dir, path);
    snprintf(queries, sizeof queries, "%s/queries", dir);
    cr_assert_eq(mkdir(queries, 0777), 0);
    snprintf(file, sizeof file, "%s/q01.sql", queries);
    write_file(file, "select nope from lineitem;\n");
    snprintf(file, sizeof file, "%s/q02.sql", queries);
    write_file(file, "select count(*) from lineitem a, lineitem b, lineitem c;\n");
    snprintf(file, sizeof file, "%s/q03.sql", queries);
    write_file(file,
               "-- two statements\nselect count(*) from region;\nselect r_name from region order by 1;\n");
    const char *argv[] = {TPCH_RUN_BIN, "-d", path, "-q", queries, "-t", "1", "1", "2", "3", NULL};
    run_result r = run_program(dir, argv, NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    const char *line = run_line(r.out, "q01");
    cr_assert(line_has(line, "not supported: ") && line_has(line, "nope"), "%s", r.out);
    cr_assert(line_has(run_line(r.out, "q02"), "timed out"), "%s", r.out);
    long long rows;
    cr_assert_eq(sscanf(run_line(r.out, "q03"), "q03 %lld", &rows), 1, "%s", r.out);
    cr_assert_eq(rows, 6, "the rows of both statements");
    cr_assert_not_null(strstr(r.out, "\n1 query ran, 1 not supported, 1 timed out; total time "), "%s",
                       r.out);
    run_free(&r);
    for (int i = 1; i <= 3; i++) {
        snprintf(file, sizeof file, "%s/q%02d.sql", queries, i);
        unlink(file);
    }
    rmdir(queries);

    char missing[600];
    snprintf(missing, sizeof missing, "%s/missing.db", dir);
    const char *no_db[] = {TPCH_RUN_BIN, "-d", missing, NULL};
    r = run_program(dir, no_db, NULL);
    cr_assert_eq(r.status, 1);
    cr_assert_not_null(strstr(r.err, "missing.db"), "%s", r.err);
    run_free(&r);
    cr_assert(!exists(missing));
    const char *bad_query[] = {TPCH_RUN_BIN, "-d", path, "23", NULL};
    r = run_program(dir, bad_query, NULL);
    cr_assert_eq(r.status, 2);
    run_free(&r);
    tmpdir_remove(dir);
}
