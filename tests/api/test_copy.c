/*
** test_copy.c -- COPY ... FROM and COPY ... TO (planner/load/copy.h, the CSV rules of planner/load/csv.h) as
** a program that moves data through files relies on: every column type and every awkward string
** survives a round trip, plain, gzip and zstd, with other delimiters, null strings and headers;
** column lists and queries; TPC-H .tbl lines; a bad record fails the whole COPY, names the file,
** the line and the column, and leaves the table (and an open transaction) as it was; a constraint
** violation or a parse error in a load large enough for the column store's bulk path leaves nothing
** behind, also on disk; every field reads as CAST from text reads it; prepared COPY statements run
** again; REJECTS files; a failing COPY TO leaves the target as it was and no temporary file; date
** formats; and the progress handler during a load.
**
** Only strata.h is included from the library (zlib and zstd to make and check compressed files):
** these tests see COPY exactly as a user does.
*/
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers/api_db.h"
#include "helpers/run_program.h"
#include "helpers/tmpdir.h"
#include "strata.h"

/* ---- helpers ------------------------------------------------------------------------------ */

static char dir[256];
static char dbpath[300];

/* Each test runs in its own process (Criterion forks), so each gets its own directory. */
static void make_dir(void) {
    snprintf(dir, sizeof dir, "/tmp/strata-copy-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(dbpath, sizeof dbpath, "%s/test.db", dir);
}
static void remove_dir(void) { tmpdir_remove(dir); }

/* path_of gives dir/name in one of a few rotating static buffers (so that two can be used in one
** call). */
static const char *path_of(const char *name) {
    static char bufs[4][512];
    static int next;
    char *b = bufs[next++ % 4];
    snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
    return b;
}

/* sqlf formats a statement into a static buffer; "%s" arguments are usually path_of() names. */
static const char *sqlf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *sqlf(const char *fmt, ...) {
    static char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cr_assert_lt(n, (int)sizeof buf, "statement too long");
    return buf;
}

/* EXEC_FAILS runs sql, which must fail with code and a message holding each of the fragments. */
#define EXEC_FAILS(db, sql, code, ...)                                                                       \
    do {                                                                                                     \
        const char *sql_ = (sql);                                                                            \
        int rc_ = strata_exec((db), sql_, NULL, NULL);                                                       \
        cr_assert_eq(rc_, (code), "exec \"%s\" -> %d, expected %d (%s)", sql_, rc_, (code),                  \
                     strata_errmsg(db));                                                                     \
        cr_assert_eq(strata_errcode(db), (code), "\"%s\": errcode %d", sql_, strata_errcode(db));            \
        const char *frags_[] = {__VA_ARGS__, NULL};                                                          \
        for (int f_ = 0; frags_[f_]; f_++)                                                                   \
            cr_assert(strstr(strata_errmsg(db), frags_[f_]), "\"%s\": message \"%s\" lacks \"%s\"", sql_,    \
                      strata_errmsg(db), frags_[f_]);                                                        \
    } while (0)

/* query_rows renders every row of a query as "v1,v2;v1,v2" (NULL as "NULL", strings in [brackets]
** so that the empty string, NULL and text with commas stay apart) into a malloc'd string. */
static char *query_rows(strata_db *db, const char *sql) {
    size_t cap = 1 << 16, k = 0;
    char *buf = malloc(cap);
    cr_assert_not_null(buf);
    buf[0] = 0;
    strata_stmt *s = prepare(db, sql);
    int rc, nrows = 0;
    while ((rc = strata_step(s)) == STRATA_ROW) {
        for (int i = 0; i < strata_column_count(s); i++) {
            const char *t = strata_column_text(s, i);
            size_t need = (t ? strlen(t) : 4) + 8;
            if (k + need >= cap) {
                cap = (cap + need) * 2;
                buf = realloc(buf, cap);
                cr_assert_not_null(buf);
            }
            const char *sep = i ? "," : nrows ? ";" : "";
            if (!t)
                k += (size_t)snprintf(buf + k, cap - k, "%sNULL", sep);
            else if (strata_column_type(s, i) == STRATA_TYPE_VARCHAR)
                k += (size_t)snprintf(buf + k, cap - k, "%s[%s]", sep, t);
            else
                k += (size_t)snprintf(buf + k, cap - k, "%s%s", sep, t);
        }
        nrows++;
    }
    cr_assert_eq(rc, STRATA_DONE, "\"%s\": step -> %d: %s", sql, rc, strata_errmsg(db));
    strata_finalize(s);
    return buf;
}

/* expect_rows asserts that a query renders (query_rows) as want. */
static void expect_rows(strata_db *db, const char *sql, const char *want) {
    char *got = query_rows(db, sql);
    cr_assert_str_eq(got, want, "\"%s\":\n got  %s\n want %s", sql, got, want);
    free(got);
}

static void expect_integrity_ok(strata_db *db) { expect_rows(db, "PRAGMA integrity_check", "[ok]"); }

static void write_bytes(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    cr_assert_eq(fwrite(data, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
}
static void write_text(const char *path, const char *text) { write_bytes(path, text, strlen(text)); }

static void expect_file(const char *path, const char *want) {
    char *got = read_bytes(path, NULL);
    cr_assert_str_eq(got, want, "content of %s", path);
    free(got);
}

/* dir_listing gives the names in the test's directory, sorted, joined by spaces. */
static char *dir_listing(void) {
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    cr_assert_geq(n, 0);
    char *out = calloc(1, 4096);
    for (int i = 0; i < n; i++) {
        if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, "..")) {
            if (*out) strcat(out, " ");
            strncat(out, names[i]->d_name, 4096 - strlen(out) - 2);
        }
        free(names[i]);
    }
    free(names);
    return out;
}

/* ---- 1. round trips ------------------------------------------------------------------------- */

#define RT_COLUMNS                                                                                           \
    "(id INTEGER, i INTEGER, g BIGINT, f DOUBLE, d DECIMAL(12,2), v VARCHAR, dt DATE, ts TIMESTAMP, "        \
    "b BOOLEAN)"

/* The rows to survive a round trip, as text bound to an INSERT (NULL pointer: NULL). */
typedef struct rt_row {
    const char *i, *g, *f, *d, *v, *dt, *ts, *b;
} rt_row;

/* clang-format off */
static const rt_row RT_ROWS[] = {
    {"1", "2", "1.5", "3.25", "plain", "2024-01-02", "2024-01-02 03:04:05.5", "true"},
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"-2147483648", "-9223372036854775808", "0.1", "-0.01", "", "0001-01-01", "1970-01-01 00:00:00", "false"},
    {"2147483647", "9223372036854775807", "-1e300", "9999999999.99", "a,b,c", "9999-12-31",
     "2024-02-29 23:59:59.999999", NULL},
    {"0", "0", "0.3333333333333333", "0.00", "say \"hi\" and \"\"bye\"\"", "2024-02-29", NULL, "true"},
    {"7", NULL, "1.7976931348623157e+308", "-123.45", "line one\nline two\n", NULL, "2000-01-01 00:00:00.000001", NULL},
    {"8", "8", "5e-324", NULL, "crlf\r\ninside\r\n", "1999-12-31", NULL, "false"},
    {"9", "9", "123456.789", "1.10", "  leading and trailing  ", NULL, NULL, NULL},
    {"10", "10", NULL, NULL, "h\xc3\xa9llo w\xc3\xb6rld \xe2\x9c\x93 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80", NULL,
     NULL, NULL},
    {"11", NULL, NULL, NULL, "\\N", NULL, NULL, NULL},               /* the null string of a variant, as text */
    {"12", NULL, NULL, NULL, "NULL", NULL, NULL, NULL},
    {"13", NULL, "-0", NULL, "\"", NULL, NULL, NULL},                 /* a lone quote */
    {"14", NULL, NULL, NULL, "pipe|and\\backslash\\", NULL, NULL, NULL},
    {"15", NULL, NULL, NULL, "lone\rcr", NULL, NULL, NULL},
    {"16", NULL, NULL, NULL, " ", NULL, NULL, NULL},
    {"17", NULL, NULL, NULL, "\t tab", NULL, NULL, NULL},
    {"18", NULL, NULL, NULL, "'single'", NULL, NULL, NULL},
    {"19", "-1", "-0.5", "-9999999999.99", ",", "2024-12-31", "1900-06-15 12:00:00", "true"},
};
/* clang-format on */
#define RT_NROWS ((int)(sizeof RT_ROWS / sizeof RT_ROWS[0]))

static void bind_opt(strata_stmt *s, int i, const char *v) {
    int rc = v ? strata_bind_text(s, i, v, -1) : strata_bind_null(s, i);
    cr_assert_eq(rc, STRATA_OK);
}

/* make_rt_table creates table name with the round trip's rows. */
static void make_rt_table(strata_db *db, const char *name) {
    EXEC_OK(db, sqlf("CREATE TABLE %s" RT_COLUMNS, name));
    strata_stmt *s = prepare(db, sqlf("INSERT INTO %s VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", name));
    for (int r = 0; r < RT_NROWS; r++) {
        const rt_row *x = &RT_ROWS[r];
        cr_assert_eq(strata_bind_int64(s, 1, r + 1), STRATA_OK);
        bind_opt(s, 2, x->i), bind_opt(s, 3, x->g), bind_opt(s, 4, x->f), bind_opt(s, 5, x->d);
        bind_opt(s, 6, x->v), bind_opt(s, 7, x->dt), bind_opt(s, 8, x->ts), bind_opt(s, 9, x->b);
        int rc = strata_step(s);
        cr_assert_eq(rc, STRATA_DONE, "row %d -> %d: %s", r + 1, rc, strata_errmsg(db));
        strata_reset(s);
    }
    strata_finalize(s);
}

/* expect_same_tables asserts that a and b hold the same rows: EXCEPT both ways, the same count, and
** the same rendering row by row in id order (which tells NULL from '' in text, and -0 from 0). */
static void expect_same_tables(strata_db *db, const char *a, const char *b) {
    int64_t na = query_int64(db, sqlf("SELECT count(*) FROM %s", a));
    int64_t nb = query_int64(db, sqlf("SELECT count(*) FROM %s", b));
    cr_assert_eq(na, nb, "%s has %lld rows, %s %lld", a, (long long)na, b, (long long)nb);
    cr_assert_eq(
        query_int64(db, sqlf("SELECT count(*) FROM (SELECT * FROM %s EXCEPT SELECT * FROM %s)", a, b)), 0,
        "rows of %s missing from %s", a, b);
    cr_assert_eq(
        query_int64(db, sqlf("SELECT count(*) FROM (SELECT * FROM %s EXCEPT SELECT * FROM %s)", b, a)), 0,
        "rows of %s missing from %s", b, a);
    char *ra = query_rows(db, sqlf("SELECT * FROM %s ORDER BY id", a));
    char *rb = query_rows(db, sqlf("SELECT * FROM %s ORDER BY id", b));
    cr_assert_str_eq(rb, ra, "%s and %s differ", b, a);
    free(ra), free(rb);
}

/* round_trip writes table t to file with the options, reads it back into a fresh table and compares
** them; the file's first bytes are returned in magic[0..4). */
static void round_trip(strata_db *db, const char *file, const char *options, unsigned char magic[4]) {
    const char *path = path_of(file);
    EXEC_OK(db, sqlf("COPY t TO '%s' %s", path, options));
    cr_assert_eq(strata_changes(db), RT_NROWS, "%s: changes after COPY TO", file);
    char *bytes;
    size_t n;
    bytes = read_bytes(path, &n);
    cr_assert_geq(n, 4);
    memcpy(magic, bytes, 4);
    free(bytes);
    EXEC_OK(db, "DROP TABLE IF EXISTS u");
    EXEC_OK(db, "CREATE TABLE u" RT_COLUMNS);
    EXEC_OK(db, sqlf("COPY u FROM '%s' %s", path, options));
    cr_assert_eq(strata_changes(db), RT_NROWS, "%s: changes after COPY FROM", file);
    cr_assert_eq(strata_rejects(db), 0);
    expect_same_tables(db, "t", "u");
    /* NULL and '' stay apart */
    expect_rows(db, "SELECT id FROM u WHERE v IS NULL", "2");
    expect_rows(db, "SELECT id FROM u WHERE v = ''", "3");
    expect_rows(db, "SELECT id FROM u WHERE v = '\\N'", "10");
}

TestSuite(copy, .init = make_dir, .fini = remove_dir);

Test(copy, round_trip_plain_csv) {
    strata_db *db = open_mem();
    make_rt_table(db, "t");
    unsigned char magic[4];
    round_trip(db, "rt.csv", "", magic);
    /* without a header the first line is the first row */
    char *text = read_bytes(path_of("rt.csv"), NULL);
    cr_assert(!strncmp(text, "1,1,2,1.5,3.25,plain,2024-01-02,2024-01-02 03:04:05.5,true\n", 58), "%.80s",
              text);
    /* the empty string is quoted, NULL is not */
    cr_assert_not_null(strstr(text, "\n2,,,,,,,,\n"), "no record of NULLs: %s", text);
    cr_assert_not_null(strstr(text, ",-0.01,\"\",0001-01-01,"), "no quoted empty string: %s", text);
    free(text);
    strata_close(db);
}

Test(copy, round_trip_header_pipe_and_null_string) {
    strata_db *db = open_mem();
    make_rt_table(db, "t");
    unsigned char magic[4];
    round_trip(db, "rt.tbl", "(DELIMITER '|', NULL '\\N', HEADER)", magic);
    char *text = read_bytes(path_of("rt.tbl"), NULL);
    const char *head = "id|i|g|f|d|v|dt|ts|b\n1|1|2|1.5|3.25|plain|";
    cr_assert(!strncmp(text, head, strlen(head)), "%.80s", text);
    /* NULL is written as \N, the text \N quoted */
    cr_assert_not_null(strstr(text, "\n2|\\N|\\N|\\N|\\N|\\N|\\N|\\N|\\N\n"), "%s", text);
    cr_assert_not_null(strstr(text, "\n10|11|\\N|\\N|\\N|\"\\N\"|"), "%s", text);
    free(text);
    strata_close(db);
}

Test(copy, round_trip_with_header_and_options_spelled_differently) {
    strata_db *db = open_mem();
    make_rt_table(db, "t");
    unsigned char magic[4];
    round_trip(db, "rt_sep.csv", "WITH (FORMAT csv, SEP ';', HEADER on)", magic);
    round_trip(db, "rt_delim.csv", "(DELIM '\t', HEADER true, NULL 'NULL')", magic);
    round_trip(db, "rt_esc.csv", "(QUOTE '''', ESCAPE '\\')", magic);
    strata_close(db);
}

Test(copy, round_trip_gzip_and_zstd_by_extension) {
    strata_db *db = open_mem();
    make_rt_table(db, "t");
    unsigned char magic[4];
    round_trip(db, "rt.csv.gz", "", magic);
    cr_assert(magic[0] == 0x1f && magic[1] == 0x8b, "not gzip: %02x %02x", magic[0], magic[1]);
    round_trip(db, "rt.csv.zst", "", magic);
    cr_assert(magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd, "not zstd");
    round_trip(db, "rt.csv.zstd", "(HEADER, DELIMITER '|', NULL '\\N')", magic);
    cr_assert(magic[0] == 0x28 && magic[1] == 0xb5, "not zstd");
    round_trip(db, "rt_h.csv.gz", "(HEADER, DELIMITER '|', NULL '\\N')", magic);
    cr_assert(magic[0] == 0x1f && magic[1] == 0x8b, "not gzip");
    strata_close(db);
}

Test(copy, compression_option_overrides_the_name_and_reading_goes_by_magic_bytes) {
    strata_db *db = open_mem();
    make_rt_table(db, "t");
    unsigned char magic[4];
    /* a gzip file named .csv: written compressed as asked, read back by its magic bytes */
    round_trip(db, "gz_named.csv", "(COMPRESSION gzip)", magic);
    cr_assert(magic[0] == 0x1f && magic[1] == 0x8b, "not gzip");
    EXEC_OK(db, "DELETE FROM u");
    EXEC_OK(db, sqlf("COPY u FROM '%s'", path_of("gz_named.csv")));
    cr_assert_eq(strata_changes(db), RT_NROWS);
    expect_same_tables(db, "t", "u");
    /* a plain file named .zst, and COMPRESSION zstd on a .csv */
    round_trip(db, "plain.zst", "(COMPRESSION none)", magic);
    cr_assert_eq(magic[0], '1');
    round_trip(db, "zstd_named.csv", "(COMPRESSION 'zstd')", magic);
    cr_assert(magic[0] == 0x28 && magic[1] == 0xb5, "not zstd");
    strata_close(db);
}

/* Truncating a compressed file fails the COPY with an error naming the file; nothing is loaded. */
Test(copy, truncated_gzip_and_zstd_are_errors_naming_the_file) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR)");
    EXEC_OK(db, "INSERT INTO t SELECT g, 'value number ' || g FROM generate_series(1, 20000) AS g(g)");
    const char *names[] = {"big.csv.gz", "big.csv.zst"};
    for (int k = 0; k < 2; k++) {
        char whole[64], cut[64];
        snprintf(whole, sizeof whole, "%s", names[k]);
        snprintf(cut, sizeof cut, "cut_%s", names[k]);
        EXEC_OK(db, sqlf("COPY t TO '%s'", path_of(whole)));
        size_t n;
        char *bytes = read_bytes(path_of(whole), &n);
        write_bytes(path_of(cut), bytes, n / 2);
        free(bytes);
        EXEC_OK(
            db,
            "DROP TABLE IF EXISTS u; CREATE TABLE u(k INTEGER, v VARCHAR); INSERT INTO u VALUES (0, 'kept')");
        /* the whole file loads */
        EXEC_OK(db, sqlf("COPY u FROM '%s'", path_of(whole)));
        cr_assert_eq(strata_changes(db), 20000);
        EXEC_OK(db, "DELETE FROM u WHERE k > 0");
        char want[600];
        snprintf(want, sizeof want, "file '%s': ", path_of(cut));
        EXEC_FAILS(db, sqlf("COPY u FROM '%s'", path_of(cut)), STRATA_ERROR, want);
        cr_assert(strstr(strata_errmsg(db), k == 0 ? "gzip" : "zstd"), "%s", strata_errmsg(db));
        expect_rows(db, "SELECT * FROM u", "0,[kept]");
    }
    strata_close(db);
}

Test(copy, round_trip_other_types) {
    strata_db *db = open_mem();
    EXEC_OK(db,
            "CREATE TABLE t(id INTEGER, s SMALLINT, bl BLOB, iv INTERVAL, v5 VARCHAR(5), d DECIMAL(18,6), "
            "ts TIMESTAMP)");
    EXEC_OK(db,
            "INSERT INTO t VALUES (1, -32768, '\\x00ff0a2c22', '1 year 2 mons 3 days 04:05:06.5', 'ab,c\"', "
            "-123456789012.123456, '1969-12-31 23:59:59.999999'), "
            "(2, 32767, '\\x', '-1 days', '', 0.000001, '0001-01-01 00:00:00'), "
            "(3, NULL, NULL, NULL, NULL, NULL, NULL), (4, 0, 'abc', '00:00:00.000001', '     ', -0.5, NULL)");
    const char *files[] = {"o.csv", "o.csv.gz"};
    for (int k = 0; k < 2; k++) {
        EXEC_OK(db, sqlf("COPY t TO '%s' (HEADER)", path_of(files[k])));
        EXEC_OK(db, "DROP TABLE IF EXISTS u");
        EXEC_OK(
            db,
            "CREATE TABLE u(id INTEGER, s SMALLINT, bl BLOB, iv INTERVAL, v5 VARCHAR(5), d DECIMAL(18,6), "
            "ts TIMESTAMP)");
        EXEC_OK(db, sqlf("COPY u FROM '%s' (HEADER)", path_of(files[k])));
        cr_assert_eq(strata_changes(db), 4);
        expect_same_tables(db, "t", "u");
    }
    strata_close(db);
}

/* A field longer than the reader's 1 MiB block, on either side of a block boundary. */
Test(copy, round_trip_fields_longer_than_a_block) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER, v VARCHAR)");
    strata_stmt *s = prepare(db, "INSERT INTO t VALUES (?, ?)");
    size_t big = 3u << 20;
    char *text = malloc(big + 1);
    for (int r = 1; r <= 4; r++) {
        for (size_t i = 0; i < big; i++)
            text[i] = (char)('a' + (i * 7 + (size_t)r) % 26);
        text[1000 * (size_t)r] = ',', text[5000 * (size_t)r] = '"', text[70000 * (size_t)r] = '\n';
        size_t len = big - 300000 * (size_t)r;
        cr_assert_eq(strata_bind_int64(s, 1, r), STRATA_OK);
        cr_assert_eq(strata_bind_text(s, 2, text, (int)len), STRATA_OK);
        cr_assert_eq(strata_step(s), STRATA_DONE, "%s", strata_errmsg(db));
        strata_reset(s);
    }
    strata_finalize(s);
    free(text);
    EXEC_OK(db, "INSERT INTO t SELECT n + 10, 'short ' || n FROM generate_series(1, 1000) AS g(n)");
    EXEC_OK(db, sqlf("COPY t TO '%s'", path_of("big.csv.zst")));
    EXEC_OK(db, "CREATE TABLE u(id INTEGER, v VARCHAR)");
    EXEC_OK(db, sqlf("COPY u FROM '%s'", path_of("big.csv.zst")));
    cr_assert_eq(strata_changes(db), 1004);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM (SELECT * FROM t EXCEPT SELECT * FROM u)"), 0);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM (SELECT * FROM u EXCEPT SELECT * FROM t)"), 0);
    cr_assert_eq(query_int64(db, "SELECT sum(length(v)) FROM u WHERE id <= 4"),
                 (int64_t)(4 * big - 300000 * 10));
    strata_close(db);
}

/* The reading rules of csv.h that a file from elsewhere meets. */
Test(copy, reading_line_ends_bom_spaces_and_quoted_numbers) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR, d DOUBLE)");
    /* a byte order mark before the header, CRLF, a lone CR, an empty line, spaces around a number
    ** (accepted as CAST accepts them) and kept in text, a quoted number, no line end at the end */
    write_text(path_of("in.csv"),
               "\xef\xbb\xbfk,v,d\r\n1,a,1.5\r\n2,b,2\r3, c , 3 \n\n\" 4\",\"d\",\"4e0\"\n5,e,-0");
    EXEC_OK(db, sqlf("COPY t FROM '%s' (HEADER)", path_of("in.csv")));
    cr_assert_eq(strata_changes(db), 5);
    expect_rows(db, "SELECT * FROM t ORDER BY k", "1,[a],1.5;2,[b],2;3,[ c ],3;4,[d],4;5,[e],-0");
    /* line numbers count CRLF and lone CR as one line end each */
    write_text(path_of("bad.csv"), "1,a,1\r\n2,b,2\r3,c,x\r\n");
    EXEC_FAILS(db, sqlf("COPY t FROM '%s'", path_of("bad.csv")), STRATA_ERROR, "CSV line 3, column 3 (d)",
               "\"x\"");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 5);
    strata_close(db);
}

Test(copy, one_column_table_keeps_nulls_and_empty_strings) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(v VARCHAR); INSERT INTO t VALUES (NULL), (''), ('x'), (NULL)");
    EXEC_OK(db, sqlf("COPY t TO '%s'", path_of("one.csv")));
    EXEC_OK(db, "CREATE TABLE u(v VARCHAR)");
    EXEC_OK(db, sqlf("COPY u FROM '%s'", path_of("one.csv")));
    cr_assert_eq(strata_changes(db), 4);
    expect_rows(db, "SELECT count(*), count(v), sum(length(v)) FROM u", "4,2,1");
    /* empty lines are records of one NULL field there */
    write_text(path_of("lines.csv"), "\n\n\"\"\nx\n\n");
    EXEC_OK(db, "DELETE FROM u");
    EXEC_OK(db, sqlf("COPY u FROM '%s'", path_of("lines.csv")));
    expect_rows(db, "SELECT count(*), count(v), sum(length(v)) FROM u", "5,2,1");
    strata_close(db);
}

Test(copy, escape_and_quote_options_on_reading) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR)");
    /* escape \: before the quote or itself it stands for that, before anything else it is a byte;
    ** a doubled quote then ends the field and is followed by a stray character */
    write_text(path_of("esc.csv"), "1,\"a\\\"b\"\n2,\"c\\\\d\"\n3,\"e\\xf\"\n4,\"g\"\"h\"\n");
    EXEC_FAILS(db, sqlf("COPY t FROM '%s' (ESCAPE '\\')", path_of("esc.csv")), STRATA_ERROR, "CSV line 4");
    write_text(path_of("esc.csv"), "1,\"a\\\"b\"\n2,\"c\\\\d\"\n3,\"e\\xf\"\n");
    EXEC_OK(db, sqlf("COPY t FROM '%s' (ESCAPE '\\')", path_of("esc.csv")));
    expect_rows(db, "SELECT * FROM t ORDER BY k", "1,[a\"b];2,[c\\d];3,[e\\xf]");
    /* another quote character, and NULL given as text: a quoted "NA" is text */
    write_text(path_of("q.csv"), "5,'x,y'\n6,NA\n7,'NA'\n");
    EXEC_OK(db, sqlf("COPY t FROM '%s' (QUOTE '''', NULL 'NA')", path_of("q.csv")));
    expect_rows(db, "SELECT * FROM t WHERE k >= 5 ORDER BY k", "5,[x,y];6,NULL;7,[NA]");
    strata_close(db);
}

Test(copy, header_names_are_quoted_as_values_are) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE \"a,b\"(\"x\"\"y\" INTEGER, \"p q\" INTEGER, \" s\" INTEGER); "
                "INSERT INTO \"a,b\" VALUES (1, 2, 3)");
    EXEC_OK(db, sqlf("COPY \"a,b\" TO '%s' (HEADER)", path_of("h.csv")));
    expect_file(path_of("h.csv"), "\"x\"\"y\",p q,\" s\"\n1,2,3\n");
    strata_close(db);
}

/* ---- every field as CAST reads it ---------------------------------------------------------- */

/* Texts that the fast paths of the reader and CAST might read differently; none holds a comma,
** a quote or a line end, so each is written as it is. (VARCHAR(n) is read as an assignment, not as
** an explicit CAST, which would cut: value_too_long_for_varchar_n.) */
/* clang-format off */
static const struct {
    const char *type;
    const char *values[40];
} CAST_CASES[] = {
    {"INTEGER", {"12", " 12 ", "+12", "-0", "007", "2147483647", "-2147483648", "2147483648", "-2147483649",
                 "99999999999999999999", "1.5", "1.0", "1e3", "0x1F", "1_000", "12x", "--1", "+", "-", "   ",
                 "00000000000000000000000000012", NULL}},
    {"SMALLINT", {"32767", "-32768", "32768", "-32769", " -5", "5.5", NULL}},
    {"BIGINT", {"9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
                "18446744073709551616", " 42", "42 ", "+0", "4.2", NULL}},
    {"DOUBLE", {"1.5", " 2.5 ", ".5", "5.", "-.5", "1e10", "1E-5", "1e400", "-1e400", "1e-400", "inf", "-inf",
                "Infinity", "-Infinity", "NaN", "nan", "0x10", "1e", "e1", "1.2.3", "+3", "4.9406564584124654e-324",
                "0.1000000000000000055511151231257827", "123456789012345678901234567890", NULL}},
    {"DECIMAL(12,2)", {"1.005", "1.004", "-1.005", "1.015", "1.025", "0.125", "9999999999.99", "9999999999.995",
                       "10000000000", "-9999999999.994", "1e2", "1.5e-1", " 3.1 ", ".5", "5.", "-0.00", "+7",
                       "1.2.3", "12345678901.5", "0.000000000000000000000000001", NULL}},
    {"DATE", {"2024-02-29", "2023-02-29", "2024-1-5", "20240105", " 2024-01-05 ", "2024-01-05 10:00:00",
              "0001-01-01", "0000-01-01", "9999-12-31", "10000-01-01", "2024-13-01", "2024-00-10", "2024-04-31",
              "epoch", "infinity", "2024/01/05", "05-01-2024", "2024-01-05x", NULL}},
    {"TIMESTAMP", {"2024-01-05", "2024-01-05 10:11:12", "2024-01-05T10:11:12", "2024-01-05 10:11:12.123456",
                   "2024-01-05 10:11:12.1234567", "2024-01-05 10:11:12.5", "2024-01-05 1:2:3",
                   "2024-01-05 24:00:00", "2024-01-05 23:60:00", "2024-01-05 23:59:60", "2024-01-05 10:11",
                   "2024-01-05 10:11:12+02", " 2024-01-05 10:11:12 ", "1969-12-31 23:59:59.999999", NULL}},
    {"BOOLEAN", {"true", "false", "TRUE", "False", "t", "f", "yes", "no", "y", "n", "on", "off", "1", "0",
                 " true ", "2", "tru", "yess", NULL}},
    {"INTERVAL", {"1 day", "1 year 2 mons", "-1 days", "01:02:03", "P1D", "1 fortnight", NULL}},
};
/* clang-format on */

/* cast_text gives CAST(value AS type) as text (NULL pointer when it is an error) in buf. */
static const char *cast_text(strata_db *db, const char *type, const char *value, char *buf, size_t cap) {
    strata_stmt *s = prepare(db, sqlf("SELECT CAST(CAST(? AS VARCHAR) AS %s)", type));
    cr_assert_eq(strata_bind_text(s, 1, value, -1), STRATA_OK);
    int rc = strata_step(s);
    const char *out = NULL;
    if (rc == STRATA_ROW) {
        const char *t = strata_column_text(s, 0);
        snprintf(buf, cap, "%s", t ? t : "NULL");
        out = buf;
    }
    strata_finalize(s);
    return out;
}

Test(copy, every_field_reads_as_cast_from_text_reads_it) {
    strata_db *db = open_mem();
    int mismatches = 0;
    char report[8192];
    size_t rk = 0;
    report[0] = 0;
    for (size_t c = 0; c < sizeof CAST_CASES / sizeof CAST_CASES[0]; c++) {
        const char *type = CAST_CASES[c].type;
        FILE *f = fopen(path_of("cast.csv"), "w");
        int n = 0;
        for (; CAST_CASES[c].values[n]; n++)
            fprintf(f, "%d,%s\n", n, CAST_CASES[c].values[n]);
        fclose(f);
        EXEC_OK(db, "DROP TABLE IF EXISTS t");
        EXEC_OK(db, sqlf("CREATE TABLE t(line INTEGER, x %s)", type));
        EXEC_OK(db, sqlf("COPY t FROM '%s' (REJECTS '%s')", path_of("cast.csv"), path_of("rej.csv")));
        for (int i = 0; i < n; i++) {
            const char *v = CAST_CASES[c].values[i];
            char want[256], got[256];
            const char *w = cast_text(db, type, v, want, sizeof want);
            strata_stmt *s = prepare(db, sqlf("SELECT CAST(x AS VARCHAR) FROM t WHERE line = %d", i));
            const char *g = NULL;
            if (strata_step(s) == STRATA_ROW) {
                const char *t = strata_column_text(s, 0);
                snprintf(got, sizeof got, "%s", t ? t : "NULL");
                g = got;
            }
            strata_finalize(s);
            if ((w == NULL) != (g == NULL) || (w && strcmp(w, g))) {
                mismatches++;
                rk += (size_t)snprintf(report + rk, sizeof report - rk, "\n  %s \"%s\": CAST %s, COPY %s",
                                       type, v, w ? w : "error", g ? g : "rejected");
                if (rk >= sizeof report) rk = sizeof report - 1;
            }
        }
    }
    cr_assert_eq(mismatches, 0, "COPY and CAST disagree on %d texts:%s", mismatches, report);
    strata_close(db);
}

/* ---- 2. column lists and queries ------------------------------------------------------------ */

Test(copy, column_list_on_from_gives_the_others_their_defaults) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER, a VARCHAR DEFAULT 'dflt', b INTEGER DEFAULT 42, c DATE, "
                "d DOUBLE)");
    /* the file's fields in the list's order, not the table's */
    write_text(path_of("in.csv"), "2024-01-31,1\n,2\n1999-12-31,3\n");
    EXEC_OK(db, sqlf("COPY t (c, id) FROM '%s'", path_of("in.csv")));
    cr_assert_eq(strata_changes(db), 3);
    expect_rows(db, "SELECT * FROM t ORDER BY id",
                "1,[dflt],42,2024-01-31,NULL;2,[dflt],42,NULL,NULL;3,[dflt],42,1999-12-31,NULL");
    /* a file with more fields than the list is an error */
    write_text(path_of("wide.csv"), "2024-01-31,4,x\n");
    EXEC_FAILS(db, sqlf("COPY t (c, id) FROM '%s'", path_of("wide.csv")), STRATA_ERROR, "CSV line 1",
               "too many fields: expected 2, found 3");
    /* an unknown column in the list */
    EXEC_FAILS(db, sqlf("COPY t (c, nope) FROM '%s'", path_of("in.csv")), STRATA_ERROR, "nope");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 3);
    strata_close(db);
}

Test(copy, column_list_on_to_writes_in_the_listed_order) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER, a VARCHAR, c DATE)");
    EXEC_OK(db, "INSERT INTO t VALUES (1, 'x', '2024-01-31'), (2, NULL, NULL), (3, 'y,z', '2000-02-29')");
    EXEC_OK(db, sqlf("COPY t (c, id) TO '%s' (HEADER)", path_of("out.csv")));
    cr_assert_eq(strata_changes(db), 3);
    char *text = read_bytes(path_of("out.csv"), NULL);
    /* the order of a table scan is not promised: the header, then each line somewhere, nothing else */
    cr_assert(!strncmp(text, "c,id\n", 5), "%s", text);
    cr_assert_not_null(strstr(text, "\n2024-01-31,1\n"), "%s", text);
    cr_assert_not_null(strstr(text, "\n,2\n"), "%s", text);
    cr_assert_not_null(strstr(text, "\n2000-02-29,3\n"), "%s", text);
    cr_assert_eq(strlen(text), strlen("c,id\n2024-01-31,1\n,2\n2000-02-29,3\n"), "%s", text);
    free(text);
    /* and back through a column list into a table of another column order */
    EXEC_OK(db, "CREATE TABLE u(c DATE, a VARCHAR DEFAULT 'd', id INTEGER)");
    EXEC_OK(db, sqlf("COPY u (c, id) FROM '%s' (HEADER)", path_of("out.csv")));
    expect_rows(db, "SELECT * FROM u ORDER BY id", "2024-01-31,[d],1;NULL,[d],2;2000-02-29,[d],3");
    strata_close(db);
}

Test(copy, query_to_writes_expressions_in_query_order) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER, a VARCHAR, p DECIMAL(8,2))");
    EXEC_OK(db, "INSERT INTO t VALUES (1, 'one', 1.50), (2, 'two', 2.25), (3, NULL, 10), (4, 'four', NULL)");
    EXEC_OK(db, sqlf("COPY (SELECT id * 10 AS x, upper(a) || '!' AS y, p * 2 AS p2, id %% 2 = 0 AS even "
                     "FROM t WHERE id > 1 ORDER BY id DESC) TO '%s' (HEADER)",
                     path_of("q.csv")));
    cr_assert_eq(strata_changes(db), 3);
    expect_file(path_of("q.csv"), "x,y,p2,even\n40,FOUR!,,true\n30,,20.00,false\n20,TWO!,4.50,true\n");
    /* an aggregate with a group, no header, a pipe */
    EXEC_OK(db, sqlf("COPY (SELECT id %% 2 AS k, count(*), sum(p) FROM t GROUP BY 1 ORDER BY 1) TO '%s' "
                     "(DELIMITER '|')",
                     path_of("g.csv")));
    cr_assert_eq(strata_changes(db), 2);
    expect_file(path_of("g.csv"), "0|2|2.25\n1|2|11.50\n");
    /* a query with no rows writes an empty file (or only the header) */
    EXEC_OK(db, sqlf("COPY (SELECT * FROM t WHERE id < 0) TO '%s'", path_of("none.csv")));
    cr_assert_eq(strata_changes(db), 0);
    expect_file(path_of("none.csv"), "");
    EXEC_OK(db, sqlf("COPY (SELECT id, a FROM t WHERE id < 0) TO '%s' (HEADER)", path_of("none_h.csv")));
    expect_file(path_of("none_h.csv"), "id,a\n");
    strata_close(db);
}

/* A prepared COPY runs again after a reset, reading the file anew; COPY (query) TO takes
** parameters and writes the file again with the new values. */
Test(copy, prepared_copy_runs_again_with_new_bindings) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR)");
    write_text(path_of("in.csv"), "1,a\n2,b\n");
    strata_stmt *s = prepare(db, sqlf("COPY t FROM '%s'", path_of("in.csv")));
    cr_assert_eq(strata_step(s), STRATA_DONE, "%s", strata_errmsg(db));
    cr_assert_eq(strata_changes(db), 2);
    cr_assert_eq(strata_reset(s), STRATA_OK);
    write_text(path_of("in.csv"), "3,c\n4,d\n5,e\n");
    cr_assert_eq(strata_step(s), STRATA_DONE, "%s", strata_errmsg(db));
    cr_assert_eq(strata_changes(db), 3);
    strata_finalize(s);
    expect_rows(db, "SELECT * FROM t ORDER BY k", "1,[a];2,[b];3,[c];4,[d];5,[e]");

    s = prepare(db, sqlf("COPY (SELECT k * ? AS x FROM t WHERE k > ? ORDER BY k) TO '%s' (HEADER)",
                         path_of("out.csv")));
    cr_assert_eq(strata_bind_parameter_count(s), 2);
    cr_assert_eq(strata_bind_int64(s, 1, 10), STRATA_OK);
    cr_assert_eq(strata_bind_int64(s, 2, 2), STRATA_OK);
    cr_assert_eq(strata_step(s), STRATA_DONE, "%s", strata_errmsg(db));
    cr_assert_eq(strata_changes(db), 3);
    expect_file(path_of("out.csv"), "x\n30\n40\n50\n");
    cr_assert_eq(strata_reset(s), STRATA_OK);
    cr_assert_eq(strata_bind_int64(s, 1, -1), STRATA_OK);
    cr_assert_eq(strata_bind_int64(s, 2, 4), STRATA_OK);
    cr_assert_eq(strata_step(s), STRATA_DONE, "%s", strata_errmsg(db));
    cr_assert_eq(strata_changes(db), 1);
    expect_file(path_of("out.csv"), "x\n-5\n");
    strata_finalize(s);
    strata_close(db);
}

Test(copy, a_view_cannot_be_copied_by_name_but_as_a_query) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER); INSERT INTO t VALUES (1), (2); "
                "CREATE VIEW v AS SELECT id * 2 AS d FROM t");
    EXEC_FAILS(db, sqlf("COPY v TO '%s'", path_of("v.csv")), STRATA_ERROR, "cannot copy from view \"v\"");
    cr_assert_eq(access(path_of("v.csv"), F_OK), -1, "a file was made for a failed COPY");
    EXEC_OK(db, sqlf("COPY (SELECT * FROM v ORDER BY d) TO '%s'", path_of("v.csv")));
    expect_file(path_of("v.csv"), "2\n4\n");
    strata_close(db);
}

Test(copy, option_errors) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER)");
    write_text(path_of("in.csv"), "1\n");
    EXEC_FAILS(db, sqlf("COPY t FROM '%s' (foo 1)", path_of("in.csv")), STRATA_ERROR,
               "unrecognized COPY option \"foo\"");
    EXEC_FAILS(db, sqlf("COPY t TO '%s' (REJECTS '%s')", path_of("out.csv"), path_of("bad.csv")),
               STRATA_ERROR, "rejects applies to COPY ... FROM only");
    EXEC_FAILS(db, sqlf("COPY t TO '%s' (TRAILING_DELIMITER)", path_of("out.csv")), STRATA_ERROR,
               "FROM only");
    EXEC_FAILS(db, sqlf("COPY t FROM '%s' (FORMAT parquet)", path_of("in.csv")), STRATA_ERROR, "parquet");
    EXEC_FAILS(db, sqlf("COPY t FROM '%s' (DELIMITER '||')", path_of("in.csv")), STRATA_ERROR,
               "delimiter must be a single one-byte character");
    EXEC_FAILS(db, sqlf("COPY t FROM '%s' (HEADER, HEADER)", path_of("in.csv")), STRATA_ERROR,
               "more than once");
    EXEC_FAILS(db, sqlf("COPY t FROM '%s' (COMPRESSION lz4)", path_of("in.csv")), STRATA_ERROR, "lz4");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 0);
    cr_assert_eq(access(path_of("out.csv"), F_OK), -1);
    cr_assert_eq(access(path_of("bad.csv"), F_OK), -1);
    strata_close(db);
}

/* ---- 3. TPC-H .tbl lines ------------------------------------------------------------------- */

Test(copy, tbl_trailing_delimiter_is_detected) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE region(r_regionkey INTEGER, r_name VARCHAR(25), r_comment VARCHAR(152))");
    write_text(path_of("region.tbl"), "0|AFRICA|lar deposits. blithely final|\n"
                                      "1|AMERICA|hs use ironic, even requests. s|\n"
                                      "2|ASIA||\n");
    EXEC_OK(db, sqlf("COPY region FROM '%s' (DELIMITER '|')", path_of("region.tbl")));
    cr_assert_eq(strata_changes(db), 3);
    expect_rows(db, "SELECT * FROM region ORDER BY 1",
                "0,[AFRICA],[lar deposits. blithely final];1,[AMERICA],[hs use ironic, even requests. s];"
                "2,[ASIA],NULL");
    /* said explicitly */
    EXEC_OK(db,
            sqlf("COPY region FROM '%s' (DELIMITER '|', TRAILING_DELIMITER true)", path_of("region.tbl")));
    cr_assert_eq(strata_changes(db), 3);
    /* turned off: each line has a field too many */
    EXEC_FAILS(db,
               sqlf("COPY region FROM '%s' (DELIMITER '|', TRAILING_DELIMITER false)", path_of("region.tbl")),
               STRATA_ERROR, "CSV line 1", "too many fields: expected 3, found 4");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM region"), 6);
    /* a file without the trailing delimiter is not taken for one */
    write_text(path_of("plain.tbl"), "3|EUROPE|x\n4|MIDDLE EAST|y\n");
    EXEC_OK(db, sqlf("COPY region FROM '%s' (DELIMITER '|')", path_of("plain.tbl")));
    expect_rows(db, "SELECT r_comment FROM region WHERE r_regionkey >= 3 ORDER BY 1", "[x];[y]");
    strata_close(db);
}

Test(copy, tbl_detection_uses_only_the_first_record) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR)");
    /* the rule drops one empty last field where there is one (csv.h): a later record without the
    ** trailing delimiter still has its fields */
    write_text(path_of("mixed.tbl"), "1|a|\n2|b\n3||\n");
    EXEC_OK(db, sqlf("COPY t FROM '%s' (DELIMITER '|')", path_of("mixed.tbl")));
    expect_rows(db, "SELECT * FROM t ORDER BY k", "1,[a];2,[b];3,NULL");
    /* a record with two fields too many is an error */
    write_text(path_of("two.tbl"), "4|d|\n5|e||\n");
    EXEC_FAILS(db, sqlf("COPY t FROM '%s' (DELIMITER '|')", path_of("two.tbl")), STRATA_ERROR, "CSV line 2",
               "too many fields");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 3);
    /* one more field that is not empty is no trailing delimiter */
    write_text(path_of("extra.tbl"), "1|a|zz\n");
    EXEC_FAILS(db, sqlf("COPY t FROM '%s' (DELIMITER '|')", path_of("extra.tbl")), STRATA_ERROR, "CSV line 1",
               "too many fields");
    strata_close(db);
}

/* ---- 4. strictness and atomicity ----------------------------------------------------------- */

/* write_orders writes n lines "id,qty,name" with line bad_line's qty "12x" (0: none). */
static void write_orders(const char *path, int n, int bad_line) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    for (int i = 1; i <= n; i++) {
        if (i == bad_line)
            fprintf(f, "%d,12x,item %d\n", i, i);
        else
            fprintf(f, "%d,%d,item %d\n", i, i % 97, i);
    }
    cr_assert_eq(fclose(f), 0);
}

#define ORDERS_BEFORE "-3,1,[a];-2,2,[b];-1,3,[c]"

Test(copy, bad_value_on_line_5000_fails_the_whole_copy) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE orders(id INTEGER, qty INTEGER, name VARCHAR)");
    EXEC_OK(db, "INSERT INTO orders VALUES (-3, 1, 'a'), (-2, 2, 'b'), (-1, 3, 'c')");
    const char *path = path_of("data.csv");
    write_orders(path, 10000, 5000);
    char want[700];
    snprintf(want, sizeof want,
             "file '%s': CSV line 5000, column 2 (qty): invalid input syntax for type integer: \"12x\"",
             path);
    EXEC_FAILS(db, sqlf("COPY orders FROM '%s'", path), STRATA_ERROR, want);
    expect_rows(db, "SELECT * FROM orders ORDER BY id", ORDERS_BEFORE);
    /* the same with a header: the physical line is still 5000 */
    FILE *f = fopen(path_of("hdr.csv"), "w");
    fprintf(f, "id,qty,name\n");
    for (int i = 2; i <= 10000; i++)
        fprintf(f, i == 5000 ? "%d,12x,n\n" : "%d,1,n\n", i);
    fclose(f);
    EXEC_FAILS(db, sqlf("COPY orders FROM '%s' (HEADER)", path_of("hdr.csv")), STRATA_ERROR,
               "CSV line 5000, column 2 (qty)");
    expect_rows(db, "SELECT * FROM orders ORDER BY id", ORDERS_BEFORE);
    /* and the good file loads all of its rows */
    write_orders(path, 10000, 0);
    EXEC_OK(db, sqlf("COPY orders FROM '%s'", path));
    cr_assert_eq(strata_changes(db), 10000);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM orders"), 10003);
    cr_assert_eq(query_int64(db, "SELECT sum(id) FROM orders WHERE id > 0"), 10000 * 10001 / 2);
    strata_close(db);
}

/* Inside BEGIN a failed COPY leaves no trace and the transaction goes on (statement-level
** atomicity, include/strata.h "Transactions"). */
Test(copy, bad_value_inside_a_transaction_undoes_the_copy_only) {
    strata_db *db = open_file(dbpath);
    EXEC_OK(db, "CREATE TABLE orders(id INTEGER, qty INTEGER, name VARCHAR)");
    EXEC_OK(db, "INSERT INTO orders VALUES (-3, 1, 'a'), (-2, 2, 'b'), (-1, 3, 'c')");
    write_orders(path_of("data.csv"), 10000, 5000);
    EXEC_OK(db, "BEGIN");
    EXEC_OK(db, "INSERT INTO orders VALUES (0, 0, 'in txn')");
    EXEC_FAILS(db, sqlf("COPY orders FROM '%s'", path_of("data.csv")), STRATA_ERROR,
               "CSV line 5000, column 2 (qty)");
    expect_rows(db, "SELECT * FROM orders ORDER BY id", ORDERS_BEFORE ";0,0,[in txn]");
    EXEC_OK(db, "INSERT INTO orders VALUES (1, 1, 'after')");
    EXEC_OK(db, "COMMIT");
    expect_rows(db, "SELECT * FROM orders ORDER BY id", ORDERS_BEFORE ";0,0,[in txn];1,1,[after]");
    strata_close(db);
    db = open_file(dbpath);
    expect_rows(db, "SELECT * FROM orders ORDER BY id", ORDERS_BEFORE ";0,0,[in txn];1,1,[after]");
    expect_integrity_ok(db);
    strata_close(db);
}

/* expect_bad_file writes content to name and asserts that loading it into t(k INTEGER, v <vtype>) fails
** naming the file and holding each fragment, with the table's one row untouched. */
static void expect_bad_file(const char *vtype, const char *name, const void *content, size_t len,
                            const char *frag1, const char *frag2) {
    strata_db *db = open_mem();
    EXEC_OK(db, sqlf("CREATE TABLE t(k INTEGER, v %s)", vtype));
    EXEC_OK(db, "INSERT INTO t (k) VALUES (-1)");
    write_bytes(path_of(name), content, len);
    char file[600];
    snprintf(file, sizeof file, "file '%s': ", path_of(name));
    EXEC_FAILS(db, sqlf("COPY t FROM '%s'", path_of(name)), STRATA_ERROR, file, frag1, frag2);
    expect_rows(db, "SELECT * FROM t", "-1,NULL");
    strata_close(db);
}
#define BAD_FILE(vtype, name, text, frag1, frag2)                                                            \
    expect_bad_file(vtype, name, text, sizeof(text) - 1, frag1, frag2)

Test(copy, wrong_field_counts_are_errors) {
    BAD_FILE("INTEGER", "few.csv", "1,2\n3,4\n5\n", "CSV line 3", "too few fields: expected 2, found 1");
    BAD_FILE("INTEGER", "many.csv", "1,2\n3,4,5\n", "CSV line 2", "too many fields: expected 2, found 3");
    /* a quoted newline moves the physical line on */
    BAD_FILE("VARCHAR", "lines.csv", "1,\"a\nb\nc\"\n2,x,y\n", "CSV line 4", "too many fields");
}

Test(copy, unterminated_quote_at_the_end_of_the_file) {
    BAD_FILE("VARCHAR", "uq.csv", "1,ok\n2,\"never closed\n3,more\n", "CSV line 2",
             "unterminated quoted field");
}

Test(copy, structural_quote_errors) {
    BAD_FILE("VARCHAR", "q1.csv", "1,ab\"c\n", "CSV line 1, column 2 (v)",
             "quote character '\"' inside an unquoted field");
    BAD_FILE("VARCHAR", "q2.csv", "1,\"ab\"c\n", "CSV line 1, column 2 (v)",
             "unexpected character 'c' after the closing quote");
}

Test(copy, invalid_utf8_in_varchar) {
    BAD_FILE("VARCHAR", "utf.csv", "1,ok\n2,caf\xc3\n", "CSV line 2, column 2 (v)", "invalid byte sequence");
    BAD_FILE("VARCHAR", "utf2.csv", "1,\xff\xfe\n", "CSV line 1, column 2 (v)", "0xff");
}

Test(copy, value_too_long_for_varchar_n) {
    BAD_FILE("VARCHAR(3)", "long.csv", "1,abc\n2,abcd\n", "CSV line 2, column 2 (v)",
             "value too long for type character varying(3)");
    /* excess spaces are cut, as an assignment cuts them; multibyte characters count once */
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR(3))");
    write_text(path_of("ok.csv"), "1,abc   \n2,\xc3\xa9\xc3\xa9\xc3\xa9\n");
    EXEC_OK(db, sqlf("COPY t FROM '%s'", path_of("ok.csv")));
    expect_rows(db, "SELECT k, v, length(v) FROM t ORDER BY k", "1,[abc],3;2,[\xc3\xa9\xc3\xa9\xc3\xa9],3");
    strata_close(db);
}

Test(copy, impossible_dates_and_bad_numbers) {
    BAD_FILE("DATE", "date.csv", "1,2024-02-29\n2,2024-02-30\n", "CSV line 2, column 2 (v)", "2024-02-30");
    BAD_FILE("DATE", "date2.csv", "1,2023-02-29\n", "CSV line 1, column 2 (v)", "2023-02-29");
    BAD_FILE("TIMESTAMP", "ts.csv", "1,2024-01-01 24:00:01\n", "CSV line 1, column 2 (v)",
             "2024-01-01 24:00:01");
    BAD_FILE("INTEGER", "ovf.csv", "1,2147483648\n", "CSV line 1, column 2 (v)", "2147483648");
    BAD_FILE("DECIMAL(4,2)", "dec.csv", "1,100.00\n", "CSV line 1, column 2 (v)", "numeric");
    BAD_FILE("BOOLEAN", "bool.csv", "1,maybe\n", "CSV line 1, column 2 (v)", "maybe");
    /* a quoted empty field is the empty string, which is no integer */
    BAD_FILE("INTEGER", "qe.csv", "1,\"\"\n", "CSV line 1, column 2 (v)", "integer");
}

Test(copy, empty_file_loads_nothing) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR)");
    EXEC_OK(db, "INSERT INTO t VALUES (1, 'x')");
    write_text(path_of("empty.csv"), "");
    EXEC_OK(db, sqlf("COPY t FROM '%s'", path_of("empty.csv")));
    cr_assert_eq(strata_changes(db), 0);
    EXEC_OK(db, sqlf("COPY t FROM '%s' (HEADER)", path_of("empty.csv")));
    cr_assert_eq(strata_changes(db), 0);
    /* only a header */
    write_text(path_of("header.csv"), "k,v\n");
    EXEC_OK(db, sqlf("COPY t FROM '%s' (HEADER)", path_of("header.csv")));
    cr_assert_eq(strata_changes(db), 0);
    expect_rows(db, "SELECT * FROM t", "1,[x]");
    strata_close(db);
}

Test(copy, missing_file_and_directory_are_errors) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER)");
    char want[700];
    snprintf(want, sizeof want, "file '%s': could not open for reading: No such file or directory",
             path_of("nope.csv"));
    EXEC_FAILS(db, sqlf("COPY t FROM '%s'", path_of("nope.csv")), STRATA_ERROR, want);
    cr_assert_str_eq(strata_errmsg(db), want);
    snprintf(want, sizeof want, "file '%s'", dir);
    EXEC_FAILS(db, sqlf("COPY t FROM '%s'", dir), STRATA_ERROR, want, "is a directory");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 0);
    strata_close(db);
}

/* ---- 5. a constraint violation on the bulk path -------------------------------------------- */

#define BIG_ROWS 300000

/* write_keys writes BIG_ROWS lines "k,v<k>" for k = 1.., with line dup_line's key 7 (0: none). */
static void write_keys(const char *path, int dup_line) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    for (int i = 1; i <= BIG_ROWS; i++)
        fprintf(f, "%d,v%d\n", i == dup_line ? 7 : i, i);
    cr_assert_eq(fclose(f), 0);
}

Test(copy, primary_key_violation_in_a_bulk_load_leaves_nothing) {
    strata_db *db = open_file(dbpath);
    EXEC_OK(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, v VARCHAR)");
    write_keys(path_of("dup.csv"), 200000); /* after the first full row group */
    EXEC_FAILS(db, sqlf("COPY t FROM '%s'", path_of("dup.csv")), STRATA_CONSTRAINT,
               "duplicate key value violates unique constraint \"t_pkey\"");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 0);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM pragma_storage_info('t') WHERE row_group IS NOT NULL"),
                 0);
    write_keys(path_of("good.csv"), 0);
    EXEC_OK(db, sqlf("COPY t FROM '%s'", path_of("good.csv")));
    cr_assert_eq(strata_changes(db), BIG_ROWS);
    /* the load took the bulk path: full row groups in segments */
    cr_assert_gt(query_int64(db, "SELECT count(*) FROM pragma_storage_info('t') WHERE row_group IS NOT NULL"),
                 0);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), BIG_ROWS);
    cr_assert_eq(query_int64(db, "SELECT sum(k) FROM t"), (int64_t)BIG_ROWS * (BIG_ROWS + 1) / 2);
    strata_close(db);

    db = open_file(dbpath);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), BIG_ROWS);
    cr_assert_eq(query_int64(db, "SELECT count(DISTINCT k) FROM t"), BIG_ROWS);
    cr_assert_eq(query_int64(db, "SELECT sum(k) FROM t"), (int64_t)BIG_ROWS * (BIG_ROWS + 1) / 2);
    expect_rows(db, "SELECT k, v FROM t WHERE k IN (1, 7, 122880, 122881, 200000, 300000) ORDER BY k",
                "1,[v1];7,[v7];122880,[v122880];122881,[v122881];200000,[v200000];300000,[v300000]");
    expect_integrity_ok(db);
    /* the key still holds */
    EXEC_FAILS(db, "INSERT INTO t VALUES (200000, 'again')", STRATA_CONSTRAINT, "duplicate key");
    strata_close(db);
}

/* A duplicate INTEGER PRIMARY KEY (the rowid) inside a batch is reported with its own key, not
** the first key of its 2048-row batch (which the failed insert had put in before it). */
Test(copy, duplicate_integer_key_detail_names_the_duplicated_key) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, v VARCHAR)");
    write_text(path_of("small.csv"), "1,a\n2,b\n3,c\n2,d\n");
    EXEC_FAILS(db, sqlf("COPY t FROM '%s'", path_of("small.csv")), STRATA_CONSTRAINT,
               "Key (k)=(2) already exists");
    /* in a load large enough for the bulk path, line 200,000 repeats key 7 */
    write_keys(path_of("dup.csv"), 200000);
    EXEC_FAILS(db, sqlf("COPY t FROM '%s'", path_of("dup.csv")), STRATA_CONSTRAINT,
               "Key (k)=(7) already exists");
    strata_close(db);
}

/* A parse error after the first row groups went to segments: nothing stays, in memory or on disk;
** the same inside a transaction, which goes on; and a bulk COPY rolled back with its transaction. */
Test(copy, parse_error_and_rollback_of_bulk_loads_leave_nothing) {
    strata_db *db = open_file(dbpath);
    EXEC_OK(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, v VARCHAR); INSERT INTO t VALUES (0, 'zero')");
    FILE *f = fopen(path_of("bad.csv"), "w");
    for (int i = 1; i <= BIG_ROWS; i++)
        fprintf(f, i == 250000 ? "x%d,v\n" : "%d,v\n", i);
    fclose(f);
    write_keys(path_of("good.csv"), 0);
    EXEC_FAILS(db, sqlf("COPY t FROM '%s'", path_of("bad.csv")), STRATA_ERROR,
               "CSV line 250000, column 1 (k): invalid input syntax for type integer: \"x250000\"");
    expect_rows(db, "SELECT * FROM t", "0,[zero]");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM pragma_storage_info('t') WHERE row_group IS NOT NULL"),
                 0);
    /* inside a transaction: the failed COPY goes, the transaction stays */
    EXEC_OK(db, "BEGIN; INSERT INTO t VALUES (-1, 'txn')");
    EXEC_FAILS(db, sqlf("COPY t FROM '%s'", path_of("bad.csv")), STRATA_ERROR, "CSV line 250000");
    expect_rows(db, "SELECT * FROM t ORDER BY k", "-1,[txn];0,[zero]");
    EXEC_OK(db, "COMMIT");
    /* a whole bulk COPY rolled back with its transaction */
    EXEC_OK(db, "BEGIN");
    EXEC_OK(db, sqlf("COPY t FROM '%s'", path_of("good.csv")));
    cr_assert_eq(strata_changes(db), BIG_ROWS);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), BIG_ROWS + 2);
    EXEC_OK(db, "ROLLBACK");
    expect_rows(db, "SELECT * FROM t ORDER BY k", "-1,[txn];0,[zero]");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM pragma_storage_info('t') WHERE row_group IS NOT NULL"),
                 0);
    expect_integrity_ok(db);
    strata_close(db);
    db = open_file(dbpath);
    expect_rows(db, "SELECT * FROM t ORDER BY k", "-1,[txn];0,[zero]");
    expect_integrity_ok(db);
    /* and the good file loads after all that, committed with its transaction */
    EXEC_OK(db, "BEGIN");
    EXEC_OK(db, sqlf("COPY t FROM '%s'", path_of("good.csv")));
    EXEC_OK(db, "COMMIT");
    strata_close(db);
    db = open_file(dbpath);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), BIG_ROWS + 2);
    cr_assert_eq(query_int64(db, "SELECT sum(k) FROM t"), (int64_t)BIG_ROWS * (BIG_ROWS + 1) / 2 - 1);
    expect_integrity_ok(db);
    strata_close(db);
}

/* COPY TO of a table whose rows are in segments and in the row store, back through zstd. */
Test(copy, bulk_loaded_table_round_trips_through_zstd) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, v VARCHAR)");
    write_keys(path_of("good.csv"), 0);
    EXEC_OK(db, sqlf("COPY t FROM '%s'", path_of("good.csv")));
    EXEC_OK(db, "UPDATE t SET v = NULL WHERE k % 1000 = 0; DELETE FROM t WHERE k % 999 = 0");
    int64_t n = query_int64(db, "SELECT count(*) FROM t");
    EXEC_OK(db, sqlf("COPY t TO '%s'", path_of("t.csv.zst")));
    cr_assert_eq(strata_changes(db), n);
    EXEC_OK(db, "CREATE TABLE u(k INTEGER PRIMARY KEY, v VARCHAR)");
    EXEC_OK(db, sqlf("COPY u FROM '%s'", path_of("t.csv.zst")));
    cr_assert_eq(strata_changes(db), n);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM (SELECT * FROM t EXCEPT SELECT * FROM u)"), 0);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM (SELECT * FROM u EXCEPT SELECT * FROM t)"), 0);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM u WHERE v IS NULL"),
                 query_int64(db, "SELECT count(*) FROM t WHERE v IS NULL"));
    strata_close(db);
}

/* Concatenated gzip members and zstd frames (what `cat a.gz b.gz` or `zstd -c a b` make) read as
** one stream. */
Test(copy, concatenated_gzip_members_and_zstd_frames) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR)");
    EXEC_OK(db, "INSERT INTO t SELECT n, 'v' || n FROM generate_series(1, 5000) AS g(n)");
    const char *ext[] = {"gz", "zst"};
    for (int e = 0; e < 2; e++) {
        char a[32], b[32], both[32];
        snprintf(a, sizeof a, "a.csv.%s", ext[e]);
        snprintf(b, sizeof b, "b.csv.%s", ext[e]);
        snprintf(both, sizeof both, "both.csv.%s", ext[e]);
        EXEC_OK(db, sqlf("COPY (SELECT * FROM t WHERE k <= 3000) TO '%s'", path_of(a)));
        EXEC_OK(db, sqlf("COPY (SELECT * FROM t WHERE k > 3000) TO '%s'", path_of(b)));
        size_t na, nb;
        char *da = read_bytes(path_of(a), &na), *db_ = read_bytes(path_of(b), &nb);
        char *cat = malloc(na + nb);
        memcpy(cat, da, na), memcpy(cat + na, db_, nb);
        write_bytes(path_of(both), cat, na + nb);
        free(da), free(db_), free(cat);
        EXEC_OK(db, "DROP TABLE IF EXISTS u; CREATE TABLE u(k INTEGER, v VARCHAR)");
        EXEC_OK(db, sqlf("COPY u FROM '%s'", path_of(both)));
        cr_assert_eq(strata_changes(db), 5000, "%s: %lld rows", both, (long long)strata_changes(db));
        cr_assert_eq(query_int64(db, "SELECT count(*) FROM (SELECT * FROM t EXCEPT SELECT * FROM u)"), 0);
    }
    strata_close(db);
}

/* Line numbers stay physical across the reader's blocks and inside a compressed stream. */
Test(copy, line_numbers_deep_in_a_compressed_file) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE s(n INTEGER, k VARCHAR, v VARCHAR)");
    EXEC_OK(db, "INSERT INTO s SELECT n, CASE WHEN n = 250000 THEN 'oops' ELSE CAST(n AS VARCHAR) END, "
                "'a fairly long text value ' || n FROM generate_series(1, 300000) AS g(n)");
    /* a header, then the record of n on line n + 1 */
    EXEC_OK(db, sqlf("COPY (SELECT k, v FROM s ORDER BY n) TO '%s' (HEADER)", path_of("s.csv.gz")));
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR)");
    EXEC_FAILS(db, sqlf("COPY t FROM '%s' (HEADER)", path_of("s.csv.gz")), STRATA_ERROR,
               "CSV line 250001, column 1 (k): invalid input syntax for type integer: \"oops\"");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 0);
    strata_close(db);
}

/* A column list on a load large enough for the bulk path: the other columns get their defaults. */
Test(copy, column_list_on_a_bulk_load) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(v VARCHAR DEFAULT 'd', k INTEGER PRIMARY KEY, w INTEGER DEFAULT 7)");
    FILE *f = fopen(path_of("k.csv"), "w");
    for (int i = 1; i <= BIG_ROWS; i++)
        fprintf(f, "%d\n", i);
    fclose(f);
    EXEC_OK(db, sqlf("COPY t (k) FROM '%s'", path_of("k.csv")));
    cr_assert_eq(strata_changes(db), BIG_ROWS);
    cr_assert_gt(query_int64(db, "SELECT count(*) FROM pragma_storage_info('t') WHERE row_group IS NOT NULL"),
                 0);
    expect_rows(db,
                "SELECT count(*), count(DISTINCT k), min(k), max(k), min(v), max(v), min(w), max(w) FROM t",
                "300000,300000,1,300000,[d],[d],7,7");
    strata_close(db);
}

/* ---- 6. REJECTS ----------------------------------------------------------------------------- */

Test(copy, rejects_file_gets_the_bad_records_and_the_rest_loads) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE r(id INTEGER, qty INTEGER, day DATE, code VARCHAR(3))");
    FILE *f = fopen(path_of("in.csv"), "w");
    for (int i = 1; i <= 100; i++) {
        if (i == 10)
            fprintf(f, "10,1O,2024-01-10,c10\n");
        else if (i == 50)
            fprintf(f, "50,50,2024-13-01,c50\n");
        else if (i == 99)
            fprintf(f, "99,99,2024-01-09,toolong\n");
        else
            fprintf(f, "%d,%d,2024-01-%02d,c%d\n", i, i, i % 28 + 1, i % 100);
    }
    fclose(f);
    EXEC_OK(db, sqlf("COPY r FROM '%s' (REJECTS '%s')", path_of("in.csv"), path_of("bad.csv")));
    cr_assert_eq(strata_changes(db), 97);
    cr_assert_eq(strata_rejects(db), 3);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM r"), 97);
    cr_assert_eq(query_int64(db, "SELECT sum(id) FROM r"), 5050 - 10 - 50 - 99);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM r WHERE id IN (10, 50, 99)"), 0);
    /* strata_rejects describes the last statement only */
    cr_assert_eq(strata_rejects(db), 0);
    char *text = read_bytes(path_of("bad.csv"), NULL);
    cr_assert_str_eq(
        text,
        "line,column,column_name,reason,record\n"
        "10,2,\"qty\",\"invalid input syntax for type integer: \"\"1O\"\"\",\"10,1O,2024-01-10,c10\"\n"
        "50,3,\"day\",\"date/time field value out of range: \"\"2024-13-01\"\"\",\"50,50,2024-13-01,c50\"\n"
        "99,4,\"code\",\"value too long for type character varying(3)\",\"99,99,2024-01-09,toolong\"\n");
    free(text);
    /* the rejects file reads back as CSV through COPY itself */
    EXEC_OK(
        db,
        "CREATE TABLE bad(line BIGINT, col INTEGER, column_name VARCHAR, reason VARCHAR, record VARCHAR)");
    EXEC_OK(db, sqlf("COPY bad FROM '%s' (HEADER)", path_of("bad.csv")));
    expect_rows(db, "SELECT line, col, column_name FROM bad ORDER BY line",
                "10,2,[qty];50,3,[day];99,4,[code]");
    cr_assert_eq(strata_rejects(db), 0);
    strata_close(db);
}

Test(copy, rejects_counts_structural_errors_and_resets_after_the_next_statement) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR)");
    write_text(path_of("in.csv"), "1,a\n2\n3,c,extra\n4,d\n");
    EXEC_OK(db, sqlf("COPY t FROM '%s' (REJECTS '%s')", path_of("in.csv"), path_of("bad.csv")));
    cr_assert_eq(strata_changes(db), 2);
    cr_assert_eq(strata_rejects(db), 2);
    expect_rows(db, "SELECT * FROM t ORDER BY k", "1,[a];4,[d]");
    char *text = read_bytes(path_of("bad.csv"), NULL);
    cr_assert(!strncmp(text, "line,column,column_name,reason,record\n2,", 40), "%s", text);
    cr_assert_not_null(strstr(text, "\n3,"), "%s", text);
    cr_assert_not_null(strstr(text, "too few fields"), "%s", text);
    cr_assert_not_null(strstr(text, "too many fields"), "%s", text);
    cr_assert_not_null(strstr(text, ",\"3,c,extra\"\n"), "%s", text);
    free(text);
    /* the next statement, whatever it is, resets the count */
    EXEC_OK(db, "INSERT INTO t VALUES (5, 'e')");
    cr_assert_eq(strata_rejects(db), 0);
    /* a COPY with REJECTS and no bad record: an empty rejects file (the header) */
    write_text(path_of("good.csv"), "6,f\n");
    EXEC_OK(db, sqlf("COPY t FROM '%s' (REJECTS '%s')", path_of("good.csv"), path_of("bad.csv")));
    cr_assert_eq(strata_rejects(db), 0);
    expect_file(path_of("bad.csv"), "line,column,column_name,reason,record\n");
    /* the rejects file cannot be the file read */
    EXEC_FAILS(db, sqlf("COPY t FROM '%s' (REJECTS '%s')", path_of("good.csv"), path_of("good.csv")),
               STRATA_ERROR, "REJECTS");
    expect_file(path_of("good.csv"), "6,f\n");
    strata_close(db);
}

/* Rejected records on both sides of the reader's chunk boundary (2048 rows), deep in a large file,
** and as the last line without a line end: the rest loads, each line is reported once. */
Test(copy, rejects_at_chunk_boundaries_and_the_last_line) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR)");
    const int bad[] = {2048, 2049, 4096, 250000, BIG_ROWS};
    FILE *f = fopen(path_of("in.csv"), "w");
    int64_t sum = 0;
    for (int i = 1; i <= BIG_ROWS; i++) {
        int is_bad = 0;
        for (int b = 0; b < 5; b++)
            is_bad |= i == bad[b];
        if (is_bad)
            fprintf(f, "%d?,v%d", i, i);
        else
            fprintf(f, "%d,v%d", i, i), sum += i;
        if (i < BIG_ROWS) fputc('\n', f);
    }
    fclose(f);
    EXEC_OK(db, sqlf("COPY t FROM '%s' (REJECTS '%s')", path_of("in.csv"), path_of("bad.csv")));
    cr_assert_eq(strata_changes(db), BIG_ROWS - 5);
    cr_assert_eq(strata_rejects(db), 5);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), BIG_ROWS - 5);
    cr_assert_eq(query_int64(db, "SELECT count(DISTINCT k) FROM t"), BIG_ROWS - 5);
    cr_assert_eq(query_int64(db, "SELECT sum(k) FROM t"), sum);
    char *text = read_bytes(path_of("bad.csv"), NULL);
    char want[2048];
    size_t k = (size_t)snprintf(want, sizeof want, "line,column,column_name,reason,record\n");
    for (int b = 0; b < 5; b++)
        k += (size_t)snprintf(
            want + k, sizeof want - k,
            "%d,1,\"k\",\"invalid input syntax for type integer: \"\"%d?\"\"\",\"%d?,v%d\"\n", bad[b], bad[b],
            bad[b], bad[b]);
    cr_assert_str_eq(text, want);
    free(text);
    strata_close(db);
}

/* A record that breaks a constraint -- NOT NULL, CHECK, the primary key or a unique index, a
** duplicate of an existing row or of an earlier line of the same file -- goes to the REJECTS file
** as a record that does not parse does (its line, the reason, the record's text), and every
** other record is loaded. */
Test(copy, constraint_violations_go_to_the_rejects_file) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE c(k INTEGER PRIMARY KEY CHECK (k > 0), v VARCHAR NOT NULL, u INTEGER UNIQUE);"
                "INSERT INTO c VALUES (100, 'x', 1000)");
    write_text(path_of("in.csv"), "k,v,u\n"
                                  "1,a,1\n"
                                  "-2,b,2\n"      /* line 3: CHECK */
                                  "3,,3\n"        /* line 4: NOT NULL */
                                  "1,dup,4\n"     /* line 5: the key of line 2 */
                                  "100,old,5\n"   /* line 6: the key of the existing row */
                                  "6,f,1000\n"    /* line 7: the unique u of the existing row */
                                  "7,g,1\n"       /* line 8: the unique u of line 2 */
                                  "8,h,\n"        /* NULLs never collide */
                                  "9,i,\n"
                                  "x,bad,10\n");  /* line 11: does not parse */
    EXEC_OK(db, sqlf("COPY c FROM '%s' (HEADER, REJECTS '%s')", path_of("in.csv"), path_of("bad.csv")));
    cr_assert_eq(strata_changes(db), 3);
    cr_assert_eq(strata_rejects(db), 7);
    expect_file(path_of("bad.csv"),
                "line,column,column_name,reason,record\n"
                "11,1,\"k\",\"invalid input syntax for type integer: \"\"x\"\"\",\"x,bad,10\"\n"
                "3,,,\"new row for relation \"\"c\"\" violates check constraint \"\"c_check\"\"\",\"-2,b,2\"\n"
                "4,,,\"null value in column \"\"v\"\" of relation \"\"c\"\" violates not-null constraint\",\"3,,3\"\n"
                "5,,,\"duplicate key value violates unique constraint \"\"c_pkey\"\": Key (k)=(1) already exists (an "
                "earlier line of this COPY)\",\"1,dup,4\"\n"
                "6,,,\"duplicate key value violates unique constraint \"\"c_pkey\"\": Key (k)=(100) already exists\","
                "\"100,old,5\"\n"
                "7,,,\"duplicate key value violates unique constraint \"\"c_u_key\"\": Key (u)=(1000) already "
                "exists\",\"6,f,1000\"\n"
                "8,,,\"duplicate key value violates unique constraint \"\"c_u_key\"\": Key (u)=(1) already exists (an "
                "earlier line of this COPY)\",\"7,g,1\"\n");
    expect_rows(db, "SELECT * FROM c ORDER BY k", "1,[a],1;8,[h],NULL;9,[i],NULL;100,[x],1000");
    expect_integrity_ok(db);
    strata_close(db);
}

/* Without REJECTS a constraint violation fails the whole COPY -- nothing of it is loaded -- with an
** error that names the file, the CSV line and the constraint. */
Test(copy, a_constraint_violation_without_rejects_names_the_line_and_loads_nothing) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE c(k INTEGER PRIMARY KEY CHECK (k > 0), v VARCHAR NOT NULL, u INTEGER UNIQUE);"
                "INSERT INTO c VALUES (100, 'x', 1000)");
    const struct {
        const char *csv, *line, *what;
    } cases[] = {
        {"1,a,1\n2,b,2\n1,c,3\n", "CSV line 3: ", "duplicate key value violates unique constraint \"c_pkey\""},
        {"1,a,1\n100,b,2\n", "CSV line 2: ", "Key (k)=(100) already exists"},
        {"1,a,1\n2,b,1000\n", "CSV line 2: ", "unique constraint \"c_u_key\""},
        {"1,a,1\n2,b,2\n3,c,2\n", "CSV line 3: ", "Key (u)=(2) already exists"},
        {"1,a,1\n2,,2\n", "CSV line 2: ", "null value in column \"v\""},
        {"1,a,1\n-2,b,2\n", "CSV line 2: ", "violates check constraint"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_text(path_of("in.csv"), cases[i].csv);
        char file[600];
        snprintf(file, sizeof file, "file '%s': ", path_of("in.csv"));
        EXEC_FAILS(db, sqlf("COPY c FROM '%s'", path_of("in.csv")), STRATA_CONSTRAINT, file, cases[i].line,
                   cases[i].what);
        expect_rows(db, "SELECT count(*) FROM c", "1");
    }
    /* inside a transaction the COPY leaves no trace and the transaction goes on */
    EXEC_OK(db, "BEGIN; INSERT INTO c VALUES (50, 'y', 50)");
    write_text(path_of("in.csv"), "1,a,1\n50,b,2\n");
    EXEC_FAILS(db, sqlf("COPY c FROM '%s'", path_of("in.csv")), STRATA_CONSTRAINT, "CSV line 2: ", "Key (k)=(50)");
    EXEC_OK(db, "COMMIT");
    expect_rows(db, "SELECT k FROM c ORDER BY k", "50;100");
    strata_close(db);
}

/* Across chunks (2048 rows) and through the bulk path of a large sorted load: a duplicate of a row
** loaded from an earlier chunk, or held for a row group, is found and goes to REJECTS, or without
** REJECTS names its line. */
Test(copy, duplicates_across_chunks_and_row_groups) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE big(k BIGINT PRIMARY KEY, v BIGINT)");
    const int n = 130000;
    FILE *f = fopen(path_of("big.csv"), "w");
    cr_assert_not_null(f);
    for (int i = 1; i <= n; i++) {
        fprintf(f, "%d,%d\n", i, i);
        if (i == 5000) fprintf(f, "10,-1\n");    /* line 5001: the key of line 10, two chunks back */
        if (i == 129000) fprintf(f, "123000,-1\n"); /* line 129002: a key of the row group being built */
    }
    fclose(f);
    EXEC_FAILS(db, sqlf("COPY big FROM '%s'", path_of("big.csv")), STRATA_CONSTRAINT, "CSV line 5001: ",
               "Key (k)=(10) already exists");
    expect_rows(db, "SELECT count(*) FROM big", "0");
    EXEC_OK(db, sqlf("COPY big FROM '%s' (REJECTS '%s')", path_of("big.csv"), path_of("bad.csv")));
    cr_assert_eq(strata_rejects(db), 2);
    expect_file(path_of("bad.csv"),
                "line,column,column_name,reason,record\n"
                "5001,,,\"duplicate key value violates unique constraint \"\"big_pkey\"\": Key (k)=(10) already "
                "exists\",\"10,-1\"\n"
                "129002,,,\"duplicate key value violates unique constraint \"\"big_pkey\"\": Key (k)=(123000) already "
                "exists\",\"123000,-1\"\n");
    expect_rows(db, "SELECT count(*), sum(v), min(v) FROM big", "130000,8450065000,1");
    expect_integrity_ok(db);
    strata_close(db);
}

/* ---- 7. COPY TO that fails ----------------------------------------------------------------- */

Test(copy, copy_to_a_missing_directory_is_an_error) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER); INSERT INTO t VALUES (1)");
    char want[700];
    snprintf(want, sizeof want,
             "file '%s/nodir/out.csv': could not open for writing: No such file or directory", dir);
    EXEC_FAILS(db, sqlf("COPY t TO '%s/nodir/out.csv'", dir), STRATA_ERROR, want);
    char *ls = dir_listing();
    cr_assert_str_eq(ls, "");
    free(ls);
    /* a directory as the target: an error naming it (STRATA_IOERR from the rename, where COPY FROM a
    ** directory says STRATA_ERROR), and no temporary file beside it */
    cr_assert_eq(mkdir(path_of("sub"), 0700), 0);
    int rc = strata_exec(db, sqlf("COPY t TO '%s'", path_of("sub")), NULL, NULL);
    ls = dir_listing();
    rmdir(path_of("sub")); /* before any assertion: tmpdir_remove removes files only */
    cr_assert_eq(rc, STRATA_IOERR, "-> %d: %s", rc, strata_errmsg(db));
    snprintf(want, sizeof want, "file '%s': could not rename the written file into place: Is a directory",
             path_of("sub"));
    cr_assert_str_eq(strata_errmsg(db), want);
    cr_assert_str_eq(ls, "sub", "left in the directory: %s", ls);
    free(ls);
    strata_close(db);
}

Test(copy, failing_copy_to_leaves_the_existing_file_and_no_temporary) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(x INTEGER)");
    /* the failing row comes after many good ones, so that some output was written before it */
    EXEC_OK(db, "INSERT INTO t SELECT g FROM generate_series(6, 60000) AS s(g); INSERT INTO t VALUES (5)");
    const char *precious = "precious,content\n1,2\n";
    const char *names[] = {"out.csv", "out.csv.gz", "out.csv.zst"};
    for (int k = 0; k < 3; k++) {
        write_text(path_of(names[k]), precious);
        EXEC_FAILS(db, sqlf("COPY (SELECT 1/(x-5) FROM t) TO '%s'", path_of(names[k])), STRATA_ERROR,
                   "division by zero");
        expect_file(path_of(names[k]), precious);
    }
    char *ls = dir_listing();
    cr_assert_str_eq(ls, "out.csv out.csv.gz out.csv.zst", "left in the directory: %s", ls);
    free(ls);
    /* a COPY TO that works replaces the file */
    EXEC_OK(db, sqlf("COPY (SELECT x FROM t WHERE x < 8 ORDER BY x) TO '%s'", path_of("out.csv")));
    expect_file(path_of("out.csv"), "5\n6\n7\n");
    ls = dir_listing();
    cr_assert_str_eq(ls, "out.csv out.csv.gz out.csv.zst", "left in the directory: %s", ls);
    free(ls);
    strata_close(db);
}

/* ---- 8. date formats ----------------------------------------------------------------------- */

Test(copy, dateformat_and_timestampformat_on_from) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER, d DATE, ts TIMESTAMP)");
    write_text(path_of("in.csv"), "1,31/12/2024,31/12/2024 23:59:58\n"
                                  "2,1/2/2023,01/02/2023 1:02:03\n"
                                  "3,,\n");
    EXEC_OK(db, sqlf("COPY t FROM '%s' (DATEFORMAT '%%d/%%m/%%Y', TIMESTAMPFORMAT '%%d/%%m/%%Y %%H:%%M:%%S')",
                     path_of("in.csv")));
    cr_assert_eq(strata_changes(db), 3);
    expect_rows(db, "SELECT * FROM t ORDER BY id",
                "1,2024-12-31,2024-12-31 23:59:58;2,2023-02-01,2023-02-01 01:02:03;3,NULL,NULL");
    /* an ISO date does not match the format */
    write_text(path_of("iso.csv"), "4,2024-12-31,31/12/2024 00:00:00\n");
    EXEC_FAILS(db,
               sqlf("COPY t FROM '%s' (DATEFORMAT '%%d/%%m/%%Y', TIMESTAMPFORMAT '%%d/%%m/%%Y %%H:%%M:%%S')",
                    path_of("iso.csv")),
               STRATA_ERROR, "CSV line 1, column 2 (d)", "\"2024-12-31\"", "%d/%m/%Y");
    /* month names and two-digit years */
    write_text(path_of("names.csv"), "5,03 Mar 99,\n6,15 december 05,\n");
    EXEC_OK(db, sqlf("COPY t FROM '%s' (DATEFORMAT '%%d %%b %%y')", path_of("names.csv")));
    expect_rows(db, "SELECT id, d FROM t WHERE id >= 5 ORDER BY id", "5,1999-03-03;6,2005-12-15");
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 5);
    strata_close(db);
}

Test(copy, dateformat_and_timestampformat_on_to) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER, d DATE, ts TIMESTAMP)");
    EXEC_OK(db, "INSERT INTO t VALUES (1, '2024-12-31', '2024-12-31 23:59:58.25'), (2, '0099-01-05', "
                "'2023-02-01 01:02:03'), (3, NULL, NULL)");
    EXEC_OK(db, sqlf("COPY (SELECT * FROM t ORDER BY id) TO '%s' (DATEFORMAT '%%d.%%m.%%Y', "
                     "TIMESTAMPFORMAT '%%Y%%m%%d %%H%%M%%S.%%f')",
                     path_of("out.csv")));
    expect_file(path_of("out.csv"), "1,31.12.2024,20241231 235958.250000\n"
                                    "2,05.01.0099,20230201 010203.000000\n"
                                    "3,,\n");
    /* and back with the same formats */
    EXEC_OK(db, "CREATE TABLE u(id INTEGER, d DATE, ts TIMESTAMP)");
    EXEC_OK(db, sqlf("COPY u FROM '%s' (DATEFORMAT '%%d.%%m.%%Y', TIMESTAMPFORMAT '%%Y%%m%%d %%H%%M%%S.%%f')",
                     path_of("out.csv")));
    expect_same_tables(db, "t", "u");
    strata_close(db);
}

/* ---- 9. the progress handler --------------------------------------------------------------- */

typedef struct progress_log {
    int calls;
    int bad_unit; /* calls with a unit other than "bytes" */
    uint64_t first_done, last_done, total;
    int decreasing, over_total, total_changed;
    int stop_after; /* return non-zero at this call once done > 0 (0: never) */
} progress_log;

/* A load of 20 MB can take less than the 100 ms between calls: the first call sleeps that long, so
** that the next one is due at the next chunk, after the reader has read its first block. */
#define FIRST_CALL_SLEEP_US 120000

static int on_progress(void *arg, uint64_t done, uint64_t total, const char *unit) {
    progress_log *p = arg;
    if (!unit || strcmp(unit, "bytes")) p->bad_unit++;
    if (p->calls == 0) {
        p->first_done = done, p->total = total;
        usleep(FIRST_CALL_SLEEP_US);
    } else {
        if (done < p->last_done) p->decreasing++;
        if (total != p->total) p->total_changed++;
    }
    if (done > total) p->over_total++;
    p->last_done = done;
    p->calls++;
    return p->stop_after && p->calls >= p->stop_after && done > 0;
}

/* write_big writes about 20 MB of "k,text" lines and returns the file's size. */
static uint64_t write_big(const char *path) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    for (int i = 0; i < 400000; i++)
        fprintf(f, "%d,some text to make the line about fifty bytes %07d\n", i, i);
    cr_assert_eq(fclose(f), 0);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    return (uint64_t)st.st_size;
}

Test(copy, progress_handler_sees_the_bytes_of_the_file) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR)");
    uint64_t size = write_big(path_of("big.csv"));
    cr_assert_gt(size, 19u << 20);
    progress_log log = {0};
    strata_progress_handler(db, on_progress, &log);
    EXEC_OK(db, sqlf("COPY t FROM '%s'", path_of("big.csv")));
    strata_progress_handler(db, NULL, NULL);
    cr_assert_eq(strata_changes(db), 400000);
    cr_assert_geq(log.calls, 2, "the handler was called %d times during a 20 MB load", log.calls);
    cr_assert_eq(log.bad_unit, 0);
    cr_assert_eq(log.total, size, "total %llu, file size %llu", (unsigned long long)log.total,
                 (unsigned long long)size);
    cr_assert_eq(log.total_changed, 0);
    cr_assert_eq(log.decreasing, 0);
    cr_assert_eq(log.over_total, 0);
    cr_assert_gt(log.last_done, log.first_done, "done did not increase: %llu .. %llu",
                 (unsigned long long)log.first_done, (unsigned long long)log.last_done);
    strata_close(db);
}

Test(copy, progress_handler_stops_the_copy_and_nothing_is_loaded) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR)");
    EXEC_OK(db, "INSERT INTO t VALUES (-1, 'before')");
    write_big(path_of("big.csv"));
    progress_log log = {.stop_after = 2};
    strata_progress_handler(db, on_progress, &log);
    EXEC_FAILS(db, sqlf("COPY t FROM '%s'", path_of("big.csv")), STRATA_INTERRUPT, "interrupted");
    strata_progress_handler(db, NULL, NULL);
    cr_assert_geq(log.calls, 2);
    cr_assert_gt(log.last_done, 0);
    cr_assert_lt(log.last_done, log.total, "the COPY had read the whole file before it was stopped");
    expect_rows(db, "SELECT * FROM t", "-1,[before]");
    /* the handle goes on working */
    EXEC_OK(db, sqlf("COPY t FROM '%s'", path_of("big.csv")));
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM t"), 400001);
    strata_close(db);
}

/* For a compressed file the bytes are those of the file as it is on disk. */
Test(copy, progress_handler_counts_compressed_bytes) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR)");
    write_big(path_of("big.csv"));
    EXEC_OK(db, sqlf("COPY t FROM '%s'", path_of("big.csv")));
    const char *names[] = {"big.csv.zst", "big.csv.gz"};
    for (int k = 0; k < 2; k++) {
        EXEC_OK(db, sqlf("COPY t TO '%s'", path_of(names[k])));
        struct stat st;
        cr_assert_eq(stat(path_of(names[k]), &st), 0);
        EXEC_OK(db, "DROP TABLE t; CREATE TABLE t(k INTEGER, v VARCHAR)");
        progress_log log = {0};
        strata_progress_handler(db, on_progress, &log);
        EXEC_OK(db, sqlf("COPY t FROM '%s'", path_of(names[k])));
        strata_progress_handler(db, NULL, NULL);
        cr_assert_eq(strata_changes(db), 400000);
        cr_assert_geq(log.calls, 2, "%s", names[k]);
        cr_assert_gt(log.last_done, log.first_done, "%s", names[k]);
        cr_assert_eq(log.bad_unit, 0, "%s", names[k]);
        cr_assert_eq(log.total, (uint64_t)st.st_size, "%s: total %llu, size %llu", names[k],
                     (unsigned long long)log.total, (unsigned long long)st.st_size);
        cr_assert_eq(log.decreasing, 0, "%s", names[k]);
        cr_assert_eq(log.over_total, 0, "%s: done went past the compressed size %llu: %llu", names[k],
                     (unsigned long long)log.total, (unsigned long long)log.last_done);
    }
    strata_close(db);
}

Test(copy, progress_bar_off_stops_the_calls) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(k INTEGER, v VARCHAR)");
    write_big(path_of("big.csv"));
    progress_log log = {0};
    strata_progress_handler(db, on_progress, &log);
    EXEC_OK(db, "PRAGMA progress_bar = off");
    log = (progress_log){0};
    EXEC_OK(db, sqlf("COPY t FROM '%s'", path_of("big.csv")));
    cr_assert_eq(log.calls, 0, "called %d times with progress_bar off", log.calls);
    cr_assert_eq(strata_changes(db), 400000);
    /* and on again */
    EXEC_OK(db, "PRAGMA progress_bar = on");
    EXEC_OK(db, "DROP TABLE t; CREATE TABLE t(k INTEGER, v VARCHAR)");
    log = (progress_log){0};
    EXEC_OK(db, sqlf("COPY t FROM '%s'", path_of("big.csv")));
    cr_assert_gt(log.calls, 0);
    cr_assert_eq(log.bad_unit, 0);
    strata_progress_handler(db, NULL, NULL);
    strata_close(db);
}
