/*
** test_csv.c -- the CSV reader and writer (planner/load/csv.c): quoting, embedded delimiters and line
** ends, escapes, CRLF / lone CR, the byte order mark, NULL versus "" versus the null string, UTF-8
** validation, fields of megabytes across block boundaries (every boundary position: the same
** input through blocks of 1 to 70 bytes and reads of 1 to 3 bytes gives the same rows, errors and
** rejects), wrong field counts, bad and out-of-range values per type with the line, column and
** name in the message, DECIMAL rounding, unterminated quotes, empty input, headers, .tbl trailing
** delimiters, custom delimiter / quote / escape, date formats, reject mode, delimiter sniffing,
** the writer's quoting and the write-then-read round trip of every type.
*/
#include <criterion/criterion.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../planner/load/csv.h"
#include "helpers/expect.h"

static strata_err err;

/* ---- types ---- */

#define BOOL sql_type_make(TYPE_BOOLEAN)
#define SMALL sql_type_make(TYPE_SMALLINT)
#define INT sql_type_make(TYPE_INTEGER)
#define BIG sql_type_make(TYPE_BIGINT)
#define DBL sql_type_make(TYPE_DOUBLE)
#define DEC(p, s) sql_type_decimal(p, s)
#define TEXT sql_type_varchar(0)
#define VARCHAR(n) sql_type_varchar(n)
#define BLOBT sql_type_make(TYPE_BLOB)
#define DATE sql_type_make(TYPE_DATE)
#define TS sql_type_make(TYPE_TIMESTAMP)
#define IVAL sql_type_make(TYPE_INTERVAL)

/* TYPES(a, b, ...) expands to the array of types and its length: two arguments. */
#define TYPES(...)                                                                                           \
    ((const sql_type[]){__VA_ARGS__}), (uint32_t)(sizeof((const sql_type[]){__VA_ARGS__}) / sizeof(sql_type))

/* ---- a growing text buffer ---- */

typedef struct sbuf {
    char *p;
    size_t n, cap;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        cr_assert_not_null(b->p);
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void sb_str(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

static int sb_write(void *arg, const void *buf, size_t n, strata_err *e) {
    (void)e;
    sb_put(arg, buf, n);
    return STRATA_OK;
}

/* ---- reading into text ---- */

/* render appends the chunk's rows as "v1|v2|...\n": NULL as NULL, text as 'text', the rest as
** value_to_text writes it. */
static void render(sbuf *b, const data_chunk *c) {
    for (uint32_t r = 0; r < c->count; r++) {
        for (uint32_t k = 0; k < c->ncols; k++) {
            const vector *v = &c->cols[k];
            if (k) sb_str(b, "|");
            if (vec_is_null(v, r)) {
                sb_str(b, "NULL");
                continue;
            }
            uint32_t i = vec_index(v, r);
            if (v->type.id == TYPE_VARCHAR) {
                const sstr *s = &VEC_DATA(v, sstr)[i];
                sb_str(b, "'");
                sb_put(b, sstr_data(s), s->len);
                sb_str(b, "'");
                continue;
            }
            sql_value val = {.type = v->type};
            switch (v->phys) {
            case PHYS_BOOL: val.v.i = VEC_DATA(v, uint8_t)[i]; break;
            case PHYS_I16: val.v.i = VEC_DATA(v, int16_t)[i]; break;
            case PHYS_I32: val.v.i = VEC_DATA(v, int32_t)[i]; break;
            case PHYS_I64: val.v.i = VEC_DATA(v, int64_t)[i]; break;
            case PHYS_F64: val.v.d = VEC_DATA(v, double)[i]; break;
            case PHYS_STR: val.v.s = VEC_DATA(v, sstr)[i]; break;
            default: val.v.iv = VEC_DATA(v, sql_interval)[i]; break;
            }
            char tmp[256];
            size_t n = value_to_text(&val, tmp, sizeof tmp);
            cr_assert_lt(n, sizeof tmp);
            sb_put(b, tmp, n);
        }
        sb_str(b, "\n");
    }
}

/* What a reject callback saw. */
#define MAX_REJECTS 16
typedef struct rejects {
    int n;
    int stop_at; /* > 0: return an error from the stop_at-th call */
    uint64_t line[MAX_REJECTS];
    uint32_t column[MAX_REJECTS];
    char name[MAX_REJECTS][32];
    char reason[MAX_REJECTS][256];
    char message[MAX_REJECTS][512];
    char text[MAX_REJECTS][256];
} rejects;

static int on_reject(void *arg, const csv_reject *rej, strata_err *e) {
    rejects *rs = arg;
    if (rs->n < MAX_REJECTS) {
        int i = rs->n;
        rs->line[i] = rej->line;
        rs->column[i] = rej->column;
        snprintf(rs->name[i], sizeof rs->name[i], "%s", rej->column_name ? rej->column_name : "-");
        snprintf(rs->reason[i], sizeof rs->reason[i], "%s", rej->reason);
        snprintf(rs->message[i], sizeof rs->message[i], "%s", rej->message);
        snprintf(rs->text[i], sizeof rs->text[i], "%.*s", (int)rej->text_len, rej->text);
    }
    rs->n++;
    if (rs->stop_at && rs->n == rs->stop_at) return err_set(e, STRATA_ERROR, "too many bad lines");
    return STRATA_OK;
}

typedef struct result {
    int rc;
    char msg[STRATA_ERRMSG_MAX];
    sbuf rows;
    uint64_t nrows, chunks, last_line, nrejects;
} result;

static void res_free(result *r) { free(r->rows.p); }

/* read_csv reads data[0..len) to the end or the first error, with o (NULL: defaults) and reads
** of at most max_read bytes (0: any). */
static result read_csv(const char *data, size_t len, const csv_options *o, const char *const *names,
                       const sql_type *types, uint32_t ncols, size_t max_read) {
    result res;
    memset(&res, 0, sizeof res);
    sb_str(&res.rows, "");
    csv_mem_source src = {.data = data, .len = len, .max_read = max_read};
    csv_reader *r;
    strata_err e = {0};
    cr_assert_eq(csv_reader_open(&r, o, csv_mem_read, &src, types, names, ncols, &e), STRATA_OK, "%s", e.msg);
    data_chunk c;
    cr_assert_eq(chunk_init(&c, types, ncols, &e), STRATA_OK, "%s", e.msg);
    int rc;
    for (;;) {
        rc = csv_reader_next(r, &c, &e);
        if (rc != STRATA_OK || c.count == 0) break;
        res.nrows += c.count, res.chunks++;
        render(&res.rows, &c);
    }
    res.rc = rc;
    snprintf(res.msg, sizeof res.msg, "%s", e.msg);
    res.last_line = csv_reader_line(r);
    res.nrejects = csv_reader_rejects(r);
    cr_assert_eq(csv_reader_rows(r), res.nrows);
    if (rc != STRATA_OK) { /* the error sticks */
        strata_err again = {0};
        cr_assert_eq(csv_reader_next(r, &c, &again), rc);
        cr_assert_str_eq(again.msg, e.msg);
    }
    csv_reader_close(r);
    chunk_free(&c);
    return res;
}

/* expect_rows: data reads without error into exactly want. */
static void expect_rows(const char *data, const csv_options *o, const sql_type *types, uint32_t ncols,
                        const char *want) {
    result res = read_csv(data, strlen(data), o, NULL, types, ncols, 0);
    cr_assert_eq(res.rc, STRATA_OK, "reading \"%s\": %s", data, res.msg);
    cr_assert_str_eq(res.rows.p, want, "reading \"%s\"", data);
    res_free(&res);
}

/* expect_error: data fails with exactly msg (after the rows in want, when want is not NULL). */
static void expect_error(const char *data, const csv_options *o, const char *const *names,
                         const sql_type *types, uint32_t ncols, const char *msg) {
    result res = read_csv(data, strlen(data), o, names, types, ncols, 0);
    cr_assert_eq(res.rc, STRATA_ERROR, "reading \"%s\": expected an error, got %d", data, res.rc);
    cr_assert_str_eq(res.msg, msg, "reading \"%s\"", data);
    res_free(&res);
}

/* ---- quoting and line ends ---- */

Test(csv, plain_values) {
    expect_rows("1,abc,2.50\n2,def,3.75\n", NULL, TYPES(INT, TEXT, DEC(5, 2)),
                "1|'abc'|2.50\n2|'def'|3.75\n");
    expect_rows("7\n", NULL, TYPES(INT), "7\n");
}

Test(csv, quoted_fields_hold_delimiters_newlines_and_quotes) {
    expect_rows("1,\"a,b\",\"say \"\"hi\"\"\"\n2,\"line1\nline2\",\"\"\"\"\n", NULL, TYPES(INT, TEXT, TEXT),
                "1|'a,b'|'say \"hi\"'\n2|'line1\nline2'|'\"'\n");
    /* a CRLF inside quotes is data, kept as it is */
    expect_rows("\"a\r\nb\",1\r\n", NULL, TYPES(TEXT, INT), "'a\r\nb'|1\n");
    /* a quoted number is a number */
    expect_rows("\"42\",\"2024-01-31\"\n", NULL, TYPES(INT, DATE), "42|2024-01-31\n");
}

Test(csv, spaces_are_kept) {
    expect_rows(" a ,\" b \"\n", NULL, TYPES(TEXT, TEXT), "' a '|' b '\n");
    /* numbers and dates accept surrounding spaces, as CAST does */
    expect_rows(" 12 , 2024-01-31 ,  1.5 \n", NULL, TYPES(INT, DATE, DEC(4, 2)), "12|2024-01-31|1.50\n");
}

Test(csv, line_ends) {
    const char *want = "1|'a'\n2|'b'\n3|'c'\n";
    expect_rows("1,a\n2,b\n3,c\n", NULL, TYPES(INT, TEXT), want);
    expect_rows("1,a\r\n2,b\r\n3,c\r\n", NULL, TYPES(INT, TEXT), want);
    expect_rows("1,a\r2,b\r3,c\r", NULL, TYPES(INT, TEXT), want);
    expect_rows("1,a\n2,b\r\n3,c", NULL, TYPES(INT, TEXT), want);         /* mixed, no final line end */
    expect_rows("1,a\n2,b\n3,\"c\"", NULL, TYPES(INT, TEXT), want);       /* ends after a closing quote */
    expect_rows("1,a\n2,b\n3,c\n\n\n\r\n", NULL, TYPES(INT, TEXT), want); /* empty lines at the end */
    expect_rows("1,a\n\n2,b\n\r\n3,c\n", NULL, TYPES(INT, TEXT), want);   /* and between */
}

Test(csv, byte_order_mark_is_skipped) {
    expect_rows("\xEF\xBB\xBF"
                "1,a\n",
                NULL, TYPES(INT, TEXT), "1|'a'\n");
    expect_rows("\xEF\xBB\xBF", NULL, TYPES(INT, TEXT), "");
    /* only at the start: elsewhere it is text */
    expect_rows("a\n\xEF\xBB\xBF"
                "b\n",
                NULL, TYPES(TEXT),
                "'a'\n'\xEF\xBB\xBF"
                "b'\n");
    csv_options h = {.header = true};
    expect_rows("\xEF\xBB\xBF"
                "id\n5\n",
                &h, TYPES(INT), "5\n");
}

Test(csv, empty_field_quoted_empty_and_null_string) {
    /* default: an empty unquoted field is NULL, "" is the empty string */
    expect_rows("1,,\"\"\n,x,\n", NULL, TYPES(INT, TEXT, TEXT), "1|NULL|''\nNULL|'x'|NULL\n");
    /* with a null string, the empty field is an empty string and only the unquoted null string is NULL */
    csv_options o = {.null_string = "\\N"};
    expect_rows("1,,\\N,\"\\N\"\n\\N,x,,\n", &o, TYPES(INT, TEXT, TEXT, TEXT),
                "1|''|NULL|'\\N'\nNULL|'x'|''|''\n");
    /* an empty field of a number column without the null string is not a number */
    expect_error("1,\n", &o, NULL, TYPES(INT, INT),
                 "CSV line 1, column 2: invalid input syntax for type integer: \"\"");
    /* a quoted empty field of a number column is not NULL either */
    expect_error("1,\"\"\n", NULL, NULL, TYPES(INT, INT),
                 "CSV line 1, column 2: invalid input syntax for type integer: \"\"");
}

Test(csv, one_column_empty_lines_are_nulls) {
    expect_rows("a\n\nb\n", NULL, TYPES(TEXT), "'a'\nNULL\n'b'\n");
    expect_rows("\n", NULL, TYPES(INT), "NULL\n");
    expect_rows("1\n2", NULL, TYPES(INT), "1\n2\n");
}

Test(csv, empty_input) {
    expect_rows("", NULL, TYPES(INT, TEXT), "");
    expect_rows("\n\n", NULL, TYPES(INT, TEXT), "");
    csv_options h = {.header = true};
    expect_rows("", &h, TYPES(INT, TEXT), "");
    expect_rows("a,b\n", &h, TYPES(INT, TEXT), "");
}

/* ---- UTF-8 ---- */

Test(csv, utf8_text) {
    expect_rows("\"Zürich, Genève\",日本語,😀\n", NULL, TYPES(TEXT, TEXT, TEXT),
                "'Zürich, Genève'|'日本語'|'😀'\n");
    /* VARCHAR(n) counts characters, not bytes */
    expect_rows("ééé\n", NULL, TYPES(VARCHAR(3)), "'ééé'\n");
}

Test(csv, invalid_utf8_is_an_error) {
    const char *names[] = {"id", "city"};
    expect_error("1,ok\n2,Z\xFCrich\n", NULL, names, TYPES(INT, TEXT),
                 "CSV line 2, column 2 (city): invalid byte sequence for encoding \"UTF8\": 0xfc");
    /* overlong '/', a surrogate, beyond U+10FFFF, a truncated sequence at the field's end */
    expect_error("\xC0\xAF\n", NULL, NULL, TYPES(TEXT),
                 "CSV line 1, column 1: invalid byte sequence for encoding \"UTF8\": 0xc0 0xaf");
    expect_error("\xED\xA0\x80\n", NULL, NULL, TYPES(TEXT),
                 "CSV line 1, column 1: invalid byte sequence for encoding \"UTF8\": 0xed 0xa0 0x80");
    expect_error("\xF4\x90\x80\x80\n", NULL, NULL, TYPES(TEXT),
                 "CSV line 1, column 1: invalid byte sequence for encoding \"UTF8\": 0xf4 0x90 0x80 0x80");
    expect_error("a\xE6\x97,b\n", NULL, NULL, TYPES(TEXT, TEXT),
                 "CSV line 1, column 1: invalid byte sequence for encoding \"UTF8\": 0xe6 0x97");
    /* a BLOB column takes any bytes (its escape form) */
    expect_rows("\xFC\xFF\n", NULL, TYPES(BLOBT), "\\xfcff\n");
}

/* ---- long fields and block boundaries ---- */

Test(csv, megabyte_fields_across_blocks) {
    size_t big = (3u << 20) / 2; /* 1.5 MiB */
    sbuf in = {0};
    sb_str(&in, "1,\"");
    for (size_t i = 0; i < big; i++) {
        char c = (char)('a' + i % 26);
        if (i % 1000 == 999) c = '\n';
        if (i % 7777 == 0) {
            sb_str(&in, "\"\"");
            continue;
        }
        sb_put(&in, &c, 1);
    }
    sb_str(&in, "\",2\n2,short,3\n3,");
    for (size_t i = 0; i < big; i++)
        sb_put(&in, "xyz" + i % 3, 1);
    sb_str(&in, ",x\n");
    /* the expected values, built the same way */
    sbuf want1 = {0}, want3 = {0};
    for (size_t i = 0; i < big; i++) {
        char c = (char)('a' + i % 26);
        if (i % 1000 == 999) c = '\n';
        if (i % 7777 == 0) c = '"';
        sb_put(&want1, &c, 1);
        sb_put(&want3, "xyz" + i % 3, 1);
    }
    const size_t blocks[] = {0, 4096, 100000};
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) {
        csv_options o = {.block_size = blocks[k]};
        result res =
            read_csv(in.p, in.n, &o, NULL, TYPES(INT, TEXT, INT), k == 1 ? 1 : 0); /* a 1-byte feed */
        /* the third record fails on its last field; the line count went through the newlines */
        cr_assert_eq(res.rc, STRATA_ERROR);
        uint64_t line3 = 3 + big / 1000; /* record 1's newlines, its line end, record 2 */
        char msg[200];
        snprintf(msg, sizeof msg, "CSV line %llu, column 3: invalid input syntax for type integer: \"x\"",
                 (unsigned long long)line3);
        cr_assert_str_eq(res.msg, msg);
        res_free(&res);
        /* reading the first two records only */
        size_t two = (size_t)(strstr(in.p + 3, "\n3,") - in.p) + 1;
        res = read_csv(in.p, two, &o, NULL, TYPES(INT, TEXT, INT), 0);
        cr_assert_eq(res.rc, STRATA_OK, "%s", res.msg);
        cr_assert_eq(res.nrows, 2);
        cr_assert_eq(res.rows.n, strlen("1|'") + want1.n + strlen("'|2\n2|'short'|3\n"));
        cr_assert(memcmp(res.rows.p, "1|'", 3) == 0);
        cr_assert(memcmp(res.rows.p + 3, want1.p, want1.n) == 0);
        cr_assert_str_eq(res.rows.p + 3 + want1.n, "'|2\n2|'short'|3\n");
        res_free(&res);
    }
    /* the long unquoted field of record 3 as a value */
    csv_options o = {.block_size = 1000};
    size_t at = (size_t)(strstr(in.p + 3, "\n3,") - in.p) + 1;
    const char *third = in.p + at;
    result res = read_csv(third, in.n - at, &o, NULL, TYPES(INT, TEXT, TEXT), 0);
    cr_assert_eq(res.rc, STRATA_OK, "%s", res.msg);
    cr_assert_eq(res.rows.n, strlen("3|''|'x'\n") + want3.n);
    cr_assert(memcmp(res.rows.p + 3, want3.p, want3.n) == 0);
    res_free(&res);
    free(in.p);
    free(want1.p);
    free(want3.p);
}

/* A text with every feature at many offsets. */
static const char tricky[] = "\xEF\xBB\xBF"
                             "1,plain,\"quoted, with comma\",2024-01-31\r\n"
                             "2,\"multi\nline\r\nfield\",\"\"\"quoted\"\" quotes\",1999-12-31\n"
                             "3,,\"\",2000-02-29\r"
                             "4,ünïcödé 日本,\"😀,😀\",0001-01-01\n"
                             "\n"
                             "5,\"a\"\"\",\"\",9999-12-31\r\n"
                             "6,last,\"no newline\",2020-06-15";

static const char tricky_rows[] = "1|'plain'|'quoted, with comma'|2024-01-31\n"
                                  "2|'multi\nline\r\nfield'|'\"quoted\" quotes'|1999-12-31\n"
                                  "3|NULL|''|2000-02-29\n"
                                  "4|'ünïcödé 日本'|'😀,😀'|0001-01-01\n"
                                  "5|'a\"'|''|9999-12-31\n"
                                  "6|'last'|'no newline'|2020-06-15\n";

Test(csv, every_block_boundary_gives_the_same_rows) {
    for (size_t block = 1; block <= 70; block++)
        for (size_t max_read = 0; max_read <= 3; max_read++) {
            csv_options o = {.block_size = block};
            result res =
                read_csv(tricky, sizeof tricky - 1, &o, NULL, TYPES(INT, TEXT, TEXT, DATE), max_read);
            cr_assert_eq(res.rc, STRATA_OK, "block %zu read %zu: %s", block, max_read, res.msg);
            cr_assert_str_eq(res.rows.p, tricky_rows, "block %zu read %zu", block, max_read);
            cr_assert_eq(res.last_line, 9, "block %zu: line %llu", block, (unsigned long long)res.last_line);
            res_free(&res);
        }
}

Test(csv, every_block_boundary_gives_the_same_errors_and_rejects) {
    const char *in = "1,a,\"x\ny\"\n"               /* lines 1-2 */
                     "2,\"unclosed\"x,3\r\n"        /* line 3: character after the quote */
                     "3,b\"c,4\n"                   /* line 4: quote in an unquoted field */
                     "four,d,5\n"                   /* line 5: bad integer */
                     "5,e\n"                        /* line 6: too few */
                     "6,\"f\nf\",7,8\n"             /* lines 7-8: too many */
                     "7,\xC3\x28,9\n"               /* line 9: invalid UTF-8 */
                     "8,ok,\"10\"\n"                /* line 10: good */
                     "9,\"never closed,11\nmore\n"; /* line 11: unterminated */
    const char *want_rows = "1|'a'|'x\ny'\n8|'ok'|'10'\n";
    const uint64_t want_lines[] = {3, 4, 5, 6, 7, 9, 11};
    const uint32_t want_cols[] = {2, 2, 1, 3, 4, 2, 2};
    for (size_t block = 1; block <= 70; block++) {
        rejects rs = {0};
        csv_options o = {.block_size = block, .reject = on_reject, .reject_arg = &rs};
        result res = read_csv(in, strlen(in), &o, NULL, TYPES(INT, TEXT, TEXT), block % 3);
        cr_assert_eq(res.rc, STRATA_OK, "block %zu: %s", block, res.msg);
        cr_assert_str_eq(res.rows.p, want_rows, "block %zu", block);
        cr_assert_eq(rs.n, 7, "block %zu: %d rejects", block, rs.n);
        cr_assert_eq(res.nrejects, 7);
        for (int i = 0; i < 7; i++) {
            cr_assert_eq(rs.line[i], want_lines[i], "block %zu, reject %d: line %llu", block, i,
                         (unsigned long long)rs.line[i]);
            cr_assert_eq(rs.column[i], want_cols[i], "block %zu, reject %d: column %u", block, i,
                         rs.column[i]);
        }
        cr_assert_str_eq(rs.text[0], "2,\"unclosed\"x,3");
        cr_assert_str_eq(rs.text[4], "6,\"f\nf\",7,8");
        cr_assert_str_eq(rs.text[6], "9,\"never closed,11\nmore\n");
        res_free(&res);
        /* without reject mode, the first of them stops the reader */
        o.reject = NULL;
        res = read_csv(in, strlen(in), &o, NULL, TYPES(INT, TEXT, TEXT), block % 3);
        cr_assert_eq(res.rc, STRATA_ERROR);
        cr_assert_str_eq(res.msg, "CSV line 3, column 2: unexpected character 'x' after the closing quote");
        cr_assert_eq(res.last_line, 3);
        res_free(&res);
    }
}

/* ---- field counts and structure ---- */

Test(csv, wrong_field_counts) {
    const char *names[] = {"id", "name", "qty"};
    expect_error("1,a,2\n2,b\n", NULL, names, TYPES(INT, TEXT, INT),
                 "CSV line 2, column 3 (qty): too few fields: expected 3, found 2");
    expect_error("1,a,2\n2,b,3,4\n", NULL, names, TYPES(INT, TEXT, INT),
                 "CSV line 2, column 4: too many fields: expected 3, found 4");
    expect_error("1,a,2,\n", NULL, names, TYPES(INT, TEXT, INT),
                 "CSV line 1, column 4: too many fields: expected 3, found 4");
    /* the line is where the record starts */
    expect_error("1,\"a\nb\nc\",2\n2,\"x\ny\"\n", NULL, names, TYPES(INT, TEXT, INT),
                 "CSV line 4, column 3 (qty): too few fields: expected 3, found 2");
}

Test(csv, structural_errors) {
    expect_error("1,ab\"c\n", NULL, NULL, TYPES(INT, TEXT),
                 "CSV line 1, column 2: quote character '\"' inside an unquoted field");
    expect_error("1,\"ab\"c\n", NULL, NULL, TYPES(INT, TEXT),
                 "CSV line 1, column 2: unexpected character 'c' after the closing quote");
    expect_error("1,\"ab\" \n", NULL, NULL, TYPES(INT, TEXT),
                 "CSV line 1, column 2: unexpected character ' ' after the closing quote");
}

Test(csv, input_ending_inside_quotes_or_mid_line) {
    const char *names[] = {"id", "note"};
    expect_error("1,ok\n2,\"open\nstill open", NULL, names, TYPES(INT, TEXT),
                 "CSV line 2, column 2 (note): unterminated quoted field at the end of the input");
    expect_error("1,\"", NULL, names, TYPES(INT, TEXT),
                 "CSV line 1, column 2 (note): unterminated quoted field at the end of the input");
    expect_error("1,\"ab\"\"", NULL, names, TYPES(INT, TEXT),
                 "CSV line 1, column 2 (note): unterminated quoted field at the end of the input");
    /* a last line without its line end is complete when its fields are */
    expect_rows("1,ok\n2,end", NULL, TYPES(INT, TEXT), "1|'ok'\n2|'end'\n");
    expect_error("1,ok\n2", NULL, names, TYPES(INT, TEXT),
                 "CSV line 2, column 2 (note): too few fields: expected 2, found 1");
}

/* ---- typed values ---- */

Test(csv, bad_numbers_and_dates_name_line_and_column) {
    const char *names[] = {"id", "qty", "price", "shipped"};
    expect_error("1,5,1.50,2024-01-01\n2,12x,1.50,2024-01-01\n", NULL, names,
                 TYPES(INT, INT, DEC(10, 2), DATE),
                 "CSV line 2, column 2 (qty): invalid input syntax for type integer: \"12x\"");
    expect_error("1,5,1.5.0,2024-01-01\n", NULL, names, TYPES(INT, INT, DEC(10, 2), DATE),
                 "CSV line 1, column 3 (price): invalid input syntax for type numeric: \"1.5.0\"");
    expect_error("1,5,1.50,2024-02-30\n", NULL, names, TYPES(INT, INT, DEC(10, 2), DATE),
                 "CSV line 1, column 4 (shipped): date/time field value out of range: \"2024-02-30\"");
    expect_error("1,5,1.50,20240101\n", NULL, names, TYPES(INT, INT, DEC(10, 2), DATE),
                 "CSV line 1, column 4 (shipped): invalid input syntax for type date: \"20240101\"");
    expect_error("1,5,1.50,2023-02-29\n", NULL, names, TYPES(INT, INT, DEC(10, 2), DATE),
                 "CSV line 1, column 4 (shipped): date/time field value out of range: \"2023-02-29\"");
    expect_error("x\n", NULL, NULL, TYPES(DBL),
                 "CSV line 1, column 1: invalid input syntax for type double precision: \"x\"");
    expect_error("maybe\n", NULL, NULL, TYPES(BOOL),
                 "CSV line 1, column 1: invalid input syntax for type boolean: \"maybe\"");
    expect_error("2024-01-01 25:00:00\n", NULL, NULL, TYPES(TS),
                 "CSV line 1, column 1: date/time field value out of range: \"2024-01-01 25:00:00\"");
    expect_error("1 fortnight\n", NULL, NULL, TYPES(IVAL),
                 "CSV line 1, column 1: invalid input syntax for type interval: \"1 fortnight\"");
    expect_error("\\xabc\n", NULL, NULL, TYPES(BLOBT),
                 "CSV line 1, column 1: invalid hexadecimal data: odd number of digits");
}

Test(csv, integer_ranges_per_type) {
    expect_rows("-32768,-2147483648,-9223372036854775808\n32767,2147483647,9223372036854775807\n", NULL,
                TYPES(SMALL, INT, BIG),
                "-32768|-2147483648|-9223372036854775808\n32767|2147483647|9223372036854775807\n");
    expect_rows("+5,  -7 ,0007\n", NULL, TYPES(SMALL, INT, BIG), "5|-7|7\n");
    expect_error("32768\n", NULL, NULL, TYPES(SMALL),
                 "CSV line 1, column 1: value \"32768\" is out of range for type smallint");
    expect_error("-32769\n", NULL, NULL, TYPES(SMALL),
                 "CSV line 1, column 1: value \"-32769\" is out of range for type smallint");
    expect_error("2147483648\n", NULL, NULL, TYPES(INT),
                 "CSV line 1, column 1: value \"2147483648\" is out of range for type integer");
    expect_error("9223372036854775808\n", NULL, NULL, TYPES(BIG),
                 "CSV line 1, column 1: value \"9223372036854775808\" is out of range for type bigint");
    expect_error("-99999999999999999999\n", NULL, NULL, TYPES(BIG),
                 "CSV line 1, column 1: value \"-99999999999999999999\" is out of range for type bigint");
    expect_error("1.0\n", NULL, NULL, TYPES(INT),
                 "CSV line 1, column 1: invalid input syntax for type integer: \"1.0\"");
    expect_error("-\n", NULL, NULL, TYPES(INT),
                 "CSV line 1, column 1: invalid input syntax for type integer: \"-\"");
}

Test(csv, decimal_rounding_and_overflow) {
    expect_rows("1.005,-1.005,0.004,-0.005\n", NULL, TYPES(DEC(5, 2), DEC(5, 2), DEC(5, 2), DEC(5, 2)),
                "1.01|-1.01|0.00|-0.01\n");
    expect_rows("999.99,-999.99,.5,1.5e2,7\n", NULL,
                TYPES(DEC(5, 2), DEC(5, 2), DEC(5, 2), DEC(5, 2), DEC(5, 2)),
                "999.99|-999.99|0.50|150.00|7.00\n");
    expect_rows("123456789012345678,0.000000000000000001\n", NULL, TYPES(DEC(18, 0), DEC(18, 18)),
                "123456789012345678|0.000000000000000001\n");
    expect_error("1000.00\n", NULL, NULL, TYPES(DEC(5, 2)), "CSV line 1, column 1: numeric field overflow");
    expect_error("999.995\n", NULL, NULL, TYPES(DEC(5, 2)), "CSV line 1, column 1: numeric field overflow");
    expect_error("1234567890123456789\n", NULL, NULL, TYPES(DEC(18, 0)),
                 "CSV line 1, column 1: numeric field overflow");
    expect_error("NaN\n", NULL, NULL, TYPES(DEC(5, 2)),
                 "CSV line 1, column 1: invalid input syntax for type numeric: \"NaN\"");
}

Test(csv, other_types) {
    expect_rows("t,yes,0,FALSE\n", NULL, TYPES(BOOL, BOOL, BOOL, BOOL), "true|true|false|false\n");
    expect_rows("1.5,-0,1e300,NaN,-Infinity\n", NULL, TYPES(DBL, DBL, DBL, DBL, DBL),
                "1.5|-0|1e+300|NaN|-Infinity\n");
    expect_rows("2024-01-31 10:20:30.5,2024-01-31T01:02:03,2024-01-31\n", NULL, TYPES(TS, TS, TS),
                "2024-01-31 10:20:30.5|2024-01-31 01:02:03|2024-01-31 00:00:00\n");
    expect_rows("1 year 2 months 3 days 04:05:06,-1 week\n", NULL, TYPES(IVAL, IVAL),
                "1 year 2 mons 3 days 04:05:06|-7 days\n");
    expect_rows("\\x0aff,abc\n", NULL, TYPES(BLOBT, BLOBT), "\\x0aff|\\x616263\n");
}

Test(csv, varchar_length) {
    const char *names[] = {"code"};
    expect_rows("abc\nab\n\"abc   \"\n", NULL, TYPES(VARCHAR(3)),
                "'abc'\n'ab'\n'abc'\n"); /* excess spaces cut */
    expect_error("abc\nabcd\n", NULL, names, TYPES(VARCHAR(3)),
                 "CSV line 2, column 1 (code): value too long for type character varying(3)");
}

/* ---- headers ---- */

Test(csv, header_is_skipped_and_returned) {
    const char *data = "id,\"full name\",\"caf\xC3\xA9\"\n1,a,x\n2,b,y\n";
    csv_options o = {.header = true};
    csv_mem_source src = {.data = data, .len = strlen(data)};
    csv_reader *r;
    sql_type types[] = {INT, TEXT, TEXT};
    EXPECT_OK(csv_reader_open(&r, &o, csv_mem_read, &src, types, NULL, 3, &err));
    const char *const *fields;
    uint32_t n;
    EXPECT_OK(csv_reader_header(r, &fields, &n, &err));
    cr_assert_eq(n, 3);
    cr_assert_str_eq(fields[0], "id");
    cr_assert_str_eq(fields[1], "full name");
    cr_assert_str_eq(fields[2], "café");
    cr_assert_eq(csv_reader_line(r), 1);
    data_chunk c;
    EXPECT_OK(chunk_init(&c, types, 3, &err));
    EXPECT_OK(csv_reader_next(r, &c, &err));
    sbuf b = {0};
    render(&b, &c);
    cr_assert_str_eq(b.p, "1|'a'|'x'\n2|'b'|'y'\n");
    cr_assert_eq(csv_reader_line(r), 3);
    EXPECT_OK(csv_reader_next(r, &c, &err));
    cr_assert_eq(c.count, 0);
    /* the header stays readable, and cannot be asked for a second first record */
    EXPECT_OK(csv_reader_header(r, &fields, &n, &err));
    cr_assert_str_eq(fields[1], "full name");
    free(b.p);
    chunk_free(&c);
    csv_reader_close(r);
    /* without csv_reader_header, csv_reader_next skips it, and data line numbers count it */
    const char *names[] = {"id", "name", "x"};
    expect_error("id,name,x\n1,a,x\nz,b,y\n", &o, names, TYPES(INT, TEXT, TEXT),
                 "CSV line 3, column 1 (id): invalid input syntax for type integer: \"z\"");
    /* the trailing delimiter rule applies to the header too; empty lines before it are skipped */
    csv_options t = {.header = true, .delimiter = '|', .trailing_delimiter = true};
    expect_rows("\n\na|b|\n1|2|\n", &t, TYPES(INT, INT), "1|2\n");
}

Test(csv, first_record_without_header_is_data) {
    /* the shell's .import: count the fields of the first line, then give the columns */
    const char *data = "\n1,\"x,y\",3\n4,z,6\n";
    csv_mem_source src = {.data = data, .len = strlen(data)};
    csv_reader *r;
    EXPECT_OK(csv_reader_open(&r, NULL, csv_mem_read, &src, NULL, NULL, 0, &err));
    const char *const *fields;
    uint32_t n;
    EXPECT_OK(csv_reader_header(r, &fields, &n, &err));
    cr_assert_eq(n, 3);
    cr_assert_str_eq(fields[1], "x,y");
    data_chunk c;
    sql_type types[] = {INT, TEXT, INT};
    EXPECT_OK(chunk_init(&c, types, 3, &err));
    err_clear(&err);
    cr_assert_eq(csv_reader_next(r, &c, &err), STRATA_MISUSE); /* no columns yet */
    EXPECT_OK(csv_reader_set_columns(r, types, NULL, 3, &err));
    EXPECT_OK(csv_reader_next(r, &c, &err));
    sbuf b = {0};
    render(&b, &c);
    cr_assert_str_eq(b.p, "1|'x,y'|3\n4|'z'|6\n");
    err_clear(&err);
    cr_assert_eq(csv_reader_set_columns(r, types, NULL, 3, &err), STRATA_MISUSE);
    chunk_free(&c);
    csv_reader_close(r);
    /* a first data record is not checked as names: a BLOB column's bytes may be anything */
    src = (csv_mem_source){.data = "\xFF,1\n", .len = 4};
    sql_type blob_int[] = {BLOBT, INT};
    EXPECT_OK(csv_reader_open(&r, NULL, csv_mem_read, &src, blob_int, NULL, 2, &err));
    EXPECT_OK(csv_reader_header(r, &fields, &n, &err));
    cr_assert_eq(n, 2);
    cr_assert_str_eq(fields[0], "\xFF");
    data_chunk c2;
    EXPECT_OK(chunk_init(&c2, blob_int, 2, &err));
    EXPECT_OK(csv_reader_next(r, &c2, &err));
    b.n = 0;
    render(&b, &c2);
    cr_assert_str_eq(b.p, "\\xff|1\n");
    free(b.p);
    chunk_free(&c2);
    csv_reader_close(r);
    /* an empty input has no fields */
    src = (csv_mem_source){.data = "", .len = 0};
    EXPECT_OK(csv_reader_open(&r, NULL, csv_mem_read, &src, NULL, NULL, 0, &err));
    EXPECT_OK(csv_reader_header(r, &fields, &n, &err));
    cr_assert_eq(n, 0);
    csv_reader_close(r);
}

/* Each row of a chunk knows its line, and in reject mode a row the caller refuses later (a
** constraint) goes to the callback with its record's bytes as they were, at every block size. */
Test(csv, rows_know_their_lines_and_a_returned_row_can_be_rejected) {
    const char *in = "1,a\n"
                     "2,\"b\nb\"\n"  /* lines 2-3 */
                     "x,bad\n"        /* line 4: rejected by the reader */
                     "\n"             /* line 5: blank */
                     "3,\"c,c\"\n";   /* line 6 */
    const sql_type two[] = {INT, TEXT};
    for (size_t block = 1; block <= 40; block++) {
        rejects rs = {0};
        csv_options o = {.block_size = block, .reject = on_reject, .reject_arg = &rs};
        csv_mem_source src = {.data = in, .len = strlen(in), .max_read = block % 3};
        csv_reader *r;
        strata_err e = {0};
        cr_assert_eq(csv_reader_open(&r, &o, csv_mem_read, &src, two, NULL, 2, &e), STRATA_OK);
        data_chunk c;
        cr_assert_eq(chunk_init(&c, two, 2, &e), STRATA_OK);
        cr_assert_eq(csv_reader_next(r, &c, &e), STRATA_OK, "%s", e.msg);
        cr_assert_eq(c.count, 3);
        cr_assert_eq(csv_reader_row_line(r, 0), 1);
        cr_assert_eq(csv_reader_row_line(r, 1), 2);
        cr_assert_eq(csv_reader_row_line(r, 2), 6, "block %zu", block);
        cr_assert_eq(csv_reader_reject_row(r, 1, 0, "duplicate key", &e), STRATA_OK, "%s", e.msg);
        cr_assert_eq(rs.n, 2);
        cr_assert_eq(rs.line[1], 2);
        cr_assert_eq(rs.column[1], 0);
        cr_assert_str_eq(rs.reason[1], "duplicate key");
        cr_assert_str_eq(rs.message[1], "CSV line 2: duplicate key");
        cr_assert_str_eq(rs.text[1], "2,\"b\nb\"", "block %zu: %s", block, rs.text[1]);
        cr_assert_eq(csv_reader_rejects(r), 2);
        cr_assert_eq(csv_reader_rows(r), 2, "a rejected row is not counted as a row");
        chunk_free(&c);
        csv_reader_close(r);
    }
    /* outside reject mode there is nowhere to send it */
    csv_mem_source src = {.data = in, .len = 4};
    csv_reader *r;
    strata_err e = {0};
    cr_assert_eq(csv_reader_open(&r, NULL, csv_mem_read, &src, two, NULL, 2, &e), STRATA_OK);
    data_chunk c;
    cr_assert_eq(chunk_init(&c, two, 2, &e), STRATA_OK);
    cr_assert_eq(csv_reader_next(r, &c, &e), STRATA_OK, "%s", e.msg);
    cr_assert_eq(csv_reader_reject_row(r, 0, 0, "x", &e), STRATA_MISUSE);
    chunk_free(&c);
    csv_reader_close(r);
}

Test(csv, broken_header_is_an_error_even_in_reject_mode) {
    rejects rs = {0};
    csv_options o = {.header = true, .reject = on_reject, .reject_arg = &rs};
    expect_error("a,\"b\n", &o, NULL, TYPES(INT, INT),
                 "CSV line 1, column 2: unterminated quoted field at the end of the input");
    cr_assert_eq(rs.n, 0);
    expect_error("a,\xFF\n1,2\n", &o, NULL, TYPES(INT, INT),
                 "CSV line 1, column 2: invalid byte sequence for encoding \"UTF8\"");
}

/* ---- options ---- */

Test(csv, tbl_trailing_delimiter) {
    csv_options o = {.delimiter = '|', .trailing_delimiter = true};
    expect_rows(
        "1|155190|17|21168.23|0.04|N|1996-03-13|DELIVER IN PERSON|egular courts above the|\n"
        "1|67310|36|45983.16|0.09|N|1996-04-12|TAKE BACK RETURN|ly final dependencies: slyly bold |\n",
        &o, TYPES(BIG, INT, DEC(15, 2), DEC(15, 2), DEC(15, 2), VARCHAR(1), DATE, VARCHAR(25), VARCHAR(44)),
        "1|155190|17.00|21168.23|0.04|'N'|1996-03-13|'DELIVER IN PERSON'|'egular courts above the'\n"
        "1|67310|36.00|45983.16|0.09|'N'|1996-04-12|'TAKE BACK RETURN'|'ly final dependencies: slyly bold "
        "'\n");
    /* one empty field is dropped, not two; a line without the trailing delimiter is still fine */
    expect_rows("1||\n2|x\n", &o, TYPES(INT, TEXT), "1|NULL\n2|'x'\n");
    /* without the option the trailing delimiter is one field too many */
    csv_options plain = {.delimiter = '|'};
    expect_error("1|2|\n", &plain, NULL, TYPES(INT, INT),
                 "CSV line 1, column 3: too many fields: expected 2, found 3");
}

Test(csv, custom_delimiter_quote_and_escape) {
    csv_options tab = {.delimiter = '\t'};
    expect_rows("1\ta,b\t\"c\td\"\n", &tab, TYPES(INT, TEXT, TEXT), "1|'a,b'|'c\td'\n");
    csv_options semi = {.delimiter = ';', .quote = '\''};
    expect_rows("1;'it''s; here';\"x\"\n", &semi, TYPES(INT, TEXT, TEXT), "1|'it's; here'|'\"x\"'\n");
    csv_options bs = {.escape = '\\'};
    expect_rows("\"a\\\"b\",\"c\\\\d\",\"e\\nf\",x\\y\n", &bs, TYPES(TEXT, TEXT, TEXT, TEXT),
                "'a\"b'|'c\\d'|'e\\nf'|'x\\y'\n");
    /* with a backslash escape, a doubled quote ends the field and starts junk */
    expect_error("\"a\"\"b\"\n", &bs, NULL, TYPES(TEXT),
                 "CSV line 1, column 1: unexpected character '\"' after the closing quote");
    expect_error("\"a\\\"", &bs, NULL, TYPES(TEXT),
                 "CSV line 1, column 1: unterminated quoted field at the end of the input");
}

Test(csv, bad_options) {
    csv_reader *r;
    csv_mem_source src = {.data = "", .len = 0};
    sql_type types[] = {INT};
    csv_options o = {.delimiter = '"'};
    EXPECT_ERR(csv_reader_open(&r, &o, csv_mem_read, &src, types, NULL, 1, &err),
               "CSV delimiter and quote must differ (both '\"')");
    cr_assert_null(r);
    o = (csv_options){.delimiter = '\n'};
    EXPECT_ERR(csv_reader_open(&r, &o, csv_mem_read, &src, types, NULL, 1, &err),
               "CSV delimiter, quote and escape cannot be CR or LF");
    o = (csv_options){.delimiter = '\\', .escape = '\\'};
    EXPECT_ERR(csv_reader_open(&r, &o, csv_mem_read, &src, types, NULL, 1, &err),
               "CSV delimiter and escape must differ (both '\\')");
    o = (csv_options){.null_string = "a,b"};
    EXPECT_ERR(csv_reader_open(&r, &o, csv_mem_read, &src, types, NULL, 1, &err),
               "CSV null string \"a,b\" must not contain the delimiter");
    o = (csv_options){.dateformat = "%d/%m"};
    EXPECT_ERR(csv_reader_open(&r, &o, csv_mem_read, &src, types, NULL, 1, &err),
               "CSV dateformat \"%d/%m\" needs a year (%Y or %y), a month (%m, %b) and a day (%d)");
    o = (csv_options){.dateformat = "%d/%m/%Y %H"};
    EXPECT_ERR(csv_reader_open(&r, &o, csv_mem_read, &src, types, NULL, 1, &err),
               "CSV dateformat \"%d/%m/%Y %H\": %H is not a date field");
    o = (csv_options){.timestampformat = "%Y-%m-%d %Q"};
    EXPECT_ERR(csv_reader_open(&r, &o, csv_mem_read, &src, types, NULL, 1, &err),
               "CSV timestampformat \"%Y-%m-%d %Q\": unknown field %Q");
    sql_type null_type[] = {sql_type_make(TYPE_NULL)};
    err_clear(&err);
    cr_assert_eq(csv_reader_open(&r, NULL, csv_mem_read, &src, null_type, NULL, 1, &err), STRATA_MISUSE);
}

Test(csv, dateformat_and_timestampformat) {
    csv_options o = {.dateformat = "%d/%m/%Y", .timestampformat = "%d.%m.%y %H:%M:%S.%f"};
    expect_rows("31/12/2024,1/2/0099,01.02.03 04:05:06.5,31.12.99 23:59:59.000001\n", &o,
                TYPES(DATE, DATE, TS, TS),
                "2024-12-31|0099-02-01|2003-02-01 04:05:06.5|1999-12-31 23:59:59.000001\n");
    const char *names[] = {"d"};
    expect_error(
        "2024-12-31\n", &o, names, TYPES(DATE),
        "CSV line 1, column 1 (d): invalid input syntax for type date: \"2024-12-31\" (format \"%d/%m/%Y\")");
    expect_error("31/02/2024\n", &o, names, TYPES(DATE),
                 "CSV line 1, column 1 (d): date/time field value out of range: \"31/02/2024\"");
    csv_options names_fmt = {.dateformat = "%b %d, %Y"};
    expect_rows("\"Jan 5, 2024\",\"DECEMBER 25, 1999\"\n", &names_fmt, TYPES(DATE, DATE),
                "2024-01-05|1999-12-25\n");
    /* without a format, ISO dates (and what CAST accepts) */
    expect_rows("2024-1-5,2024-01-05 00:00:00\n", NULL, TYPES(DATE, DATE), "2024-01-05|2024-01-05\n");
}

/* ---- reject mode ---- */

Test(csv, reject_mode_skips_bad_lines) {
    const char *names[] = {"id", "qty", "day"};
    const char *in = "1,10,2024-01-01\n"
                     "2,ten,2024-01-02\n"
                     "3,30\n"
                     "4,40,2024-13-01\n"
                     "5,50,2024-01-05\n";
    rejects rs = {0};
    csv_options o = {.reject = on_reject, .reject_arg = &rs};
    result res = read_csv(in, strlen(in), &o, names, TYPES(INT, INT, DATE), 0);
    cr_assert_eq(res.rc, STRATA_OK, "%s", res.msg);
    cr_assert_str_eq(res.rows.p, "1|10|2024-01-01\n5|50|2024-01-05\n");
    cr_assert_eq(res.nrejects, 3);
    cr_assert_eq(rs.n, 3);
    cr_assert_eq(rs.line[0], 2);
    cr_assert_eq(rs.column[0], 2);
    cr_assert_str_eq(rs.name[0], "qty");
    cr_assert_str_eq(rs.reason[0], "invalid input syntax for type integer: \"ten\"");
    cr_assert_str_eq(rs.message[0],
                     "CSV line 2, column 2 (qty): invalid input syntax for type integer: \"ten\"");
    cr_assert_str_eq(rs.text[0], "2,ten,2024-01-02");
    cr_assert_eq(rs.line[1], 3);
    cr_assert_eq(rs.column[1], 3);
    cr_assert_str_eq(rs.reason[1], "too few fields: expected 3, found 2");
    cr_assert_str_eq(rs.text[1], "3,30");
    cr_assert_eq(rs.line[2], 4);
    cr_assert_str_eq(rs.name[2], "day");
    cr_assert_str_eq(rs.reason[2], "date/time field value out of range: \"2024-13-01\"");
    res_free(&res);
}

Test(csv, reject_callback_can_stop) {
    rejects rs = {.stop_at = 2};
    csv_options o = {.reject = on_reject, .reject_arg = &rs};
    result res = read_csv("x\n1\ny\n2\nz\n", 10, &o, NULL, TYPES(INT), 0);
    cr_assert_eq(res.rc, STRATA_ERROR);
    cr_assert_str_eq(res.msg, "too many bad lines");
    cr_assert_eq(rs.n, 2);
    cr_assert_eq(res.last_line, 3);
    res_free(&res);
}

Test(csv, rejected_rows_leave_no_trace_in_the_chunk) {
    /* a bad record whose first fields were stored (a string, a NULL) before its error */
    rejects rs = {0};
    csv_options o = {.reject = on_reject, .reject_arg = &rs};
    expect_rows("a long string value,,bad\nb,1,2\n", &o, TYPES(TEXT, INT, INT), "'b'|1|2\n");
    cr_assert_eq(rs.n, 1);
}

/* ---- many rows, chunks, read errors ---- */

Test(csv, many_rows_fill_several_chunks) {
    sbuf in = {0};
    for (int i = 0; i < 5000; i++) {
        char line[64];
        snprintf(line, sizeof line, "%d,\"v%d\"\n", i, i % 7);
        sb_str(&in, line);
    }
    sb_str(&in, "5000,x\n5001,\"oops\n");
    result res = read_csv(in.p, in.n, NULL, NULL, TYPES(INT, TEXT), 0);
    cr_assert_eq(res.rc, STRATA_ERROR);
    cr_assert_str_eq(res.msg, "CSV line 5002, column 2: unterminated quoted field at the end of the input");
    cr_assert_eq(res.nrows, 2 * VECTOR_SIZE); /* the third chunk failed */
    cr_assert(strncmp(res.rows.p, "0|'v0'\n1|'v1'\n", 14) == 0);
    res_free(&res);
    in.n -= strlen("5001,\"oops\n");
    res = read_csv(in.p, in.n, NULL, NULL, TYPES(INT, TEXT), 0);
    cr_assert_eq(res.rc, STRATA_OK);
    cr_assert_eq(res.nrows, 5001);
    cr_assert_eq(res.chunks, 3);
    cr_assert_eq(res.last_line, 5001);
    res_free(&res);
    free(in.p);
}

static int failing_read(void *arg, void *buf, size_t cap, size_t *nread, strata_err *e) {
    int *calls = arg;
    if (++*calls > 2) return err_set(e, STRATA_IOERR, "disk on fire");
    size_t n = cap < 6 ? cap : 6;
    memcpy(buf, "1,2\n3,", n);
    *nread = n;
    return STRATA_OK;
}

Test(csv, read_errors_stop_the_reader) {
    int calls = 0;
    csv_options o = {.block_size = 4};
    csv_reader *r;
    sql_type types[] = {INT, INT};
    EXPECT_OK(csv_reader_open(&r, &o, failing_read, &calls, types, NULL, 2, &err));
    data_chunk c;
    EXPECT_OK(chunk_init(&c, types, 2, &err));
    err_clear(&err);
    cr_assert_eq(csv_reader_next(r, &c, &err), STRATA_IOERR);
    cr_assert_str_eq(err.msg, "disk on fire");
    err_clear(&err);
    cr_assert_eq(csv_reader_next(r, &c, &err), STRATA_IOERR);
    cr_assert_str_eq(err.msg, "disk on fire");
    chunk_free(&c);
    csv_reader_close(r);
}

Test(csv, chunk_must_match_the_columns) {
    csv_mem_source src = {.data = "1\n", .len = 2};
    csv_reader *r;
    sql_type types[] = {INT}, other[] = {TEXT};
    EXPECT_OK(csv_reader_open(&r, NULL, csv_mem_read, &src, types, NULL, 1, &err));
    data_chunk c;
    EXPECT_OK(chunk_init(&c, other, 1, &err));
    err_clear(&err);
    cr_assert_eq(csv_reader_next(r, &c, &err), STRATA_MISUSE);
    chunk_free(&c);
    csv_reader_close(r);
}

/* ---- sniffing ---- */

static char sniff(const char *text, uint32_t *nfields) {
    char d = 0;
    EXPECT_OK(csv_sniff(text, strlen(text), NULL, &d, nfields, &err));
    return d;
}

Test(csv, sniff_delimiter) {
    uint32_t n;
    cr_assert_eq(sniff("a,b,c\n1,2,3\n4,5,6\n", &n), ',');
    cr_assert_eq(n, 3);
    cr_assert_eq(sniff("a\tb\n1\t2\n", &n), '\t');
    cr_assert_eq(n, 2);
    cr_assert_eq(sniff("1|2|x|\n3|4|y|\n", &n), '|');
    cr_assert_eq(n, 4);
    cr_assert_eq(sniff("name;price\nfoo;1,5\nbar;2,25\n", &n), ';');
    cr_assert_eq(n, 2);
    /* commas inside quotes do not count */
    cr_assert_eq(sniff("\"a,b\";c\n\"d,e,f\";g\n", &n), ';');
    /* one column, or nothing consistent: ',' */
    cr_assert_eq(sniff("hello\nworld\n", &n), ',');
    cr_assert_eq(n, 1);
    cr_assert_eq(sniff("", &n), ',');
    cr_assert_eq(n, 0);
    /* the last line may be cut short, even inside quotes */
    cr_assert_eq(sniff("a|b|c\n1|2|3\n4|5", &n), '|');
    cr_assert_eq(sniff("a|b\n1|\"x,y\n", &n), '|');
    /* more fields wins over the order of preference */
    cr_assert_eq(sniff("a,b;c;d\n1,2;3;4\n", &n), ';');
    cr_assert_eq(n, 3);
    /* CRLF, a BOM, empty lines */
    cr_assert_eq(sniff("\xEF\xBB\xBF"
                       "a\tb\r\n\r\n1\t2\r\n",
                       &n),
                 '\t');
}

/* ---- writing ---- */

Test(csv, writer_quotes_what_needs_it) {
    sql_type types[] = {INT, TEXT, DEC(6, 2), DATE};
    data_chunk c;
    EXPECT_OK(chunk_init(&c, types, 4, &err));
    const char *texts[] = {"plain", "a,b",     "say \"hi\"", "two\nlines", "cr\rhere",
                           " lead", "trail\t", "",           NULL,         "\\N"};
    uint32_t n = sizeof texts / sizeof texts[0];
    for (uint32_t i = 0; i < n; i++) {
        VEC_DATA(&c.cols[0], int32_t)[i] = (int32_t)i;
        if (texts[i])
            EXPECT_OK(vec_set_str(&c.cols[1], i, texts[i], strlen(texts[i]), &err));
        else
            vec_set_null(&c.cols[1], i, 1);
        VEC_DATA(&c.cols[2], int64_t)[i] = -150 + (int64_t)i;
        VEC_DATA(&c.cols[3], int32_t)[i] = 19753 + (int32_t)i;
    }
    vec_set_null(&c.cols[2], 2, 1);
    c.count = n;
    sbuf out = {0};
    const char *names[] = {"id", "the text", "amount", "day,of"};
    EXPECT_OK(csv_write_header(NULL, names, 4, sb_write, &out, &err));
    EXPECT_OK(csv_write_chunk(NULL, &c, sb_write, &out, &err));
    cr_assert_str_eq(out.p, "id,the text,amount,\"day,of\"\n"
                            "0,plain,-1.50,2024-01-31\n"
                            "1,\"a,b\",-1.49,2024-02-01\n"
                            "2,\"say \"\"hi\"\"\",,2024-02-02\n"
                            "3,\"two\nlines\",-1.47,2024-02-03\n"
                            "4,\"cr\rhere\",-1.46,2024-02-04\n"
                            "5,\" lead\",-1.45,2024-02-05\n"
                            "6,\"trail\t\",-1.44,2024-02-06\n"
                            "7,\"\",-1.43,2024-02-07\n"
                            "8,,-1.42,2024-02-08\n"
                            "9,\\N,-1.41,2024-02-09\n");
    /* other options: '|', a null string, a backslash escape, a date format, a lazy selection */
    csv_options o = {.delimiter = '|', .null_string = "\\N", .escape = '\\', .dateformat = "%d/%m/%Y"};
    static const sel_t rows[] = {9, 8, 7, 2, 1};
    chunk_slice(&c, rows, 5);
    out.n = 0;
    EXPECT_OK(csv_write_chunk(&o, &c, sb_write, &out, &err));
    cr_assert_str_eq(out.p, "9|\"\\\\N\"|-1.41|09/02/2024\n"
                            "8|\\N|-1.42|08/02/2024\n"
                            "7|\"\"|-1.43|07/02/2024\n"
                            "2|\"say \\\"hi\\\"\"|\\N|02/02/2024\n"
                            "1|a,b|-1.49|01/02/2024\n");
    /* which reads back */
    result res = read_csv(out.p, out.n, &o, NULL, types, 4, 0);
    cr_assert_eq(res.rc, STRATA_OK, "%s", res.msg);
    cr_assert_str_eq(res.rows.p, "9|'\\N'|-1.41|2024-02-09\n8|NULL|-1.42|2024-02-08\n7|''|-1.43|2024-02-07\n"
                                 "2|'say \"hi\"'|NULL|2024-02-02\n1|'a,b'|-1.49|2024-02-01\n");
    res_free(&res);
    free(out.p);
    chunk_free(&c);
}

static int failing_write(void *arg, const void *buf, size_t n, strata_err *e) {
    (void)arg, (void)buf, (void)n;
    return err_set(e, STRATA_FULL, "disk full");
}

Test(csv, writer_passes_write_errors_on) {
    sql_type types[] = {INT};
    data_chunk c;
    EXPECT_OK(chunk_init(&c, types, 1, &err));
    VEC_DATA(&c.cols[0], int32_t)[0] = 1;
    c.count = 1;
    err_clear(&err);
    cr_assert_eq(csv_write_chunk(NULL, &c, failing_write, NULL, &err), STRATA_FULL);
    cr_assert_str_eq(err.msg, "disk full");
    chunk_free(&c);
}

/* ---- round trip ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* value_at reads row r of v as an sql_value. */
static sql_value value_at(const vector *v, uint32_t r) {
    sql_value x = {.type = v->type, .is_null = (uint8_t)vec_is_null(v, r)};
    uint32_t i = vec_index(v, r);
    switch (v->phys) {
    case PHYS_BOOL: x.v.i = VEC_DATA(v, uint8_t)[i]; break;
    case PHYS_I16: x.v.i = VEC_DATA(v, int16_t)[i]; break;
    case PHYS_I32: x.v.i = VEC_DATA(v, int32_t)[i]; break;
    case PHYS_I64: x.v.i = VEC_DATA(v, int64_t)[i]; break;
    case PHYS_F64: x.v.d = VEC_DATA(v, double)[i]; break;
    case PHYS_STR: x.v.s = VEC_DATA(v, sstr)[i]; break;
    default: x.v.iv = VEC_DATA(v, sql_interval)[i]; break;
    }
    return x;
}

/* fill_random writes n random rows of every type into c, NULLs among them; strings draw from
** bytes that need quoting and escaping, multi-byte characters, and the null string's text. */
static void fill_random(data_chunk *c, uint32_t n) {
    static const char *pieces[] = {"a",  "Z",  " ",  ",", "|",    ";", "\"",  "'",  "\\",
                                   "\n", "\r", "\t", "é", "日本", "😀", "\\N", "x y"};
    static const int64_t edge[] = {0, 1, -1, INT64_MAX, INT64_MIN, 32767, -32768, 2147483647, -2147483648LL};
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t k = 0; k < c->ncols; k++) {
            vector *v = &c->cols[k];
            if (rnd() % 11 == 0) {
                vec_set_null(v, r, 1);
                continue;
            }
            int64_t x = rnd() % 4 == 0 ? edge[rnd() % 9] : (int64_t)(rnd() >> (rnd() % 64));
            if (rnd() & 1) x = (int64_t)(0 - (uint64_t)x); /* INT64_MIN stays */
            switch (v->type.id) {
            case TYPE_BOOLEAN: VEC_DATA(v, uint8_t)[r] = x & 1; break;
            case TYPE_SMALLINT: VEC_DATA(v, int16_t)[r] = (int16_t)x; break;
            case TYPE_INTEGER: VEC_DATA(v, int32_t)[r] = (int32_t)x; break;
            case TYPE_BIGINT: VEC_DATA(v, int64_t)[r] = x; break;
            case TYPE_DOUBLE: {
                double d;
                uint64_t bits = rnd();
                memcpy(&d, &bits, 8);
                if (rnd() % 3 == 0) d = (double)x / 1000.0;
                VEC_DATA(v, double)[r] = d;
                break;
            }
            case TYPE_DECIMAL: VEC_DATA(v, int64_t)[r] = x % dec_pow10[v->type.precision]; break;
            case TYPE_DATE:
                VEC_DATA(v, int32_t)[r] = (int32_t)(DATE_MIN + (int64_t)(rnd() % (DATE_MAX - DATE_MIN + 1)));
                break;
            case TYPE_TIMESTAMP:
                VEC_DATA(v, int64_t)[r] = TS_MIN + (int64_t)(rnd() % (uint64_t)(TS_MAX - TS_MIN));
                break;
            case TYPE_INTERVAL: {
                sql_interval iv = {(int32_t)(rnd() % 2000) - 1000, (int32_t)(rnd() % 2000) - 1000,
                                   (int64_t)(rnd() % (1000 * MICROS_PER_DAY)) - 500 * MICROS_PER_DAY};
                VEC_DATA(v, sql_interval)[r] = iv;
                break;
            }
            case TYPE_BLOB: {
                unsigned char b[40];
                size_t len = rnd() % sizeof b;
                for (size_t i = 0; i < len; i++)
                    b[i] = (unsigned char)rnd();
                EXPECT_OK(vec_set_str(v, r, b, len, &err));
                break;
            }
            default: {
                char s[200];
                size_t len = 0, parts = rnd() % 8;
                for (size_t i = 0; i < parts; i++) {
                    const char *p = pieces[rnd() % (sizeof pieces / sizeof pieces[0])];
                    memcpy(s + len, p, strlen(p));
                    len += strlen(p);
                }
                EXPECT_OK(vec_set_str(v, r, s, len, &err));
                break;
            }
            }
        }
    c->count = n;
}

static void round_trip(const csv_options *o, uint32_t ncols_written, bool one_column) {
    sql_type all[] = {BOOL, SMALL, INT,  BIG, DBL,  DEC(18, 4),  DEC(5, 5),
                      TEXT, BLOBT, DATE, TS,  IVAL, VARCHAR(200)};
    sql_type *types = all;
    uint32_t ncols = ncols_written;
    sql_type single[1];
    if (one_column) { /* a single text column: empty lines are NULLs */
        single[0] = TEXT;
        types = single, ncols = 1;
    }
    data_chunk src;
    EXPECT_OK(chunk_init(&src, types, ncols, &err));
    sbuf out = {0};
    uint32_t total = 0;
    sbuf want = {0};
    for (int round = 0; round < 3; round++) {
        chunk_reset(&src);
        fill_random(&src, round == 1 ? VECTOR_SIZE : 700);
        total += src.count;
        render(&want, &src);
        EXPECT_OK(csv_write_chunk(o, &src, sb_write, &out, &err));
    }
    for (size_t block = 0; block < 3; block++) {
        csv_options ro = *o;
        ro.block_size = block == 0 ? 0 : block == 1 ? 1 : 777;
        result res = read_csv(out.p, out.n, &ro, NULL, types, ncols, 0);
        cr_assert_eq(res.rc, STRATA_OK, "%s", res.msg);
        cr_assert_eq(res.nrows, total);
        cr_assert_eq(res.rows.n, want.n);
        cr_assert(memcmp(res.rows.p, want.p, want.n) == 0, "round trip differs");
        res_free(&res);
    }
    free(want.p);
    free(out.p);
    chunk_free(&src);
}

Test(csv, round_trip_every_type) {
    csv_options o = {0};
    round_trip(&o, 13, false);
}

Test(csv, round_trip_with_options) {
    csv_options a = {.delimiter = '|', .null_string = "\\N", .escape = '\\'};
    round_trip(&a, 13, false);
    csv_options b = {
        .delimiter = '\t', .quote = '\'', .dateformat = "%d/%m/%Y", .timestampformat = "%Y%m%d %H:%M:%S.%f"};
    round_trip(&b, 13, false);
    csv_options c = {.delimiter = ';', .null_string = "NULL"};
    round_trip(&c, 13, false);
}

Test(csv, round_trip_one_column) {
    csv_options o = {0};
    round_trip(&o, 1, true);
    csv_options n = {.null_string = "\\N"};
    round_trip(&n, 1, true);
}

/* The reader's values, not only their text, equal the written ones. */
Test(csv, round_trip_values_compare_equal) {
    sql_type types[] = {DBL, DEC(18, 4), IVAL, TS};
    data_chunk src, back;
    EXPECT_OK(chunk_init(&src, types, 4, &err));
    EXPECT_OK(chunk_init(&back, types, 4, &err));
    fill_random(&src, 1000);
    sbuf out = {0};
    EXPECT_OK(csv_write_chunk(NULL, &src, sb_write, &out, &err));
    csv_mem_source m = {.data = out.p, .len = out.n};
    csv_reader *r;
    EXPECT_OK(csv_reader_open(&r, NULL, csv_mem_read, &m, types, NULL, 4, &err));
    EXPECT_OK(csv_reader_next(r, &back, &err));
    cr_assert_eq(back.count, 1000);
    for (uint32_t i = 0; i < 1000; i++)
        for (uint32_t k = 0; k < 4; k++) {
            sql_value a = value_at(&src.cols[k], i), b = value_at(&back.cols[k], i);
            cr_assert_eq(a.is_null, b.is_null);
            if (a.is_null) continue;
            if (k == 0) {
                cr_assert(memcmp(&a.v.d, &b.v.d, 8) == 0 || (a.v.d != a.v.d && b.v.d != b.v.d),
                          "row %u: %.17g vs %.17g", i, a.v.d, b.v.d);
            } else if (k == 2) {
                cr_assert(a.v.iv.months == b.v.iv.months && a.v.iv.days == b.v.iv.days &&
                              a.v.iv.micros == b.v.iv.micros,
                          "row %u: interval differs", i);
            } else {
                cr_assert_eq(a.v.i, b.v.i, "row %u col %u", i, k);
            }
        }
    csv_reader_close(r);
    chunk_free(&src);
    chunk_free(&back);
    free(out.p);
}
