/*
** import.c -- the shell's .import (import.h).
**
** The shell sees the public API only, so the sampling here has its own small CSV splitter (quotes
** as RFC 4180: "" inside quotes is a quote); the load itself is the library's COPY, whose reader
** is the strict one.
*/
#include "import.h"
#include "sqlscan.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SAMPLE_BYTES (64u << 10) /* bytes of the file looked at */
#define SNIFF_RECORDS 100        /* records the delimiter must split alike */

typedef struct fields {
    char **v;
    int n, cap;
} fields;

static void fields_clear(fields *f) {
    for (int i = 0; i < f->n; i++) free(f->v[i]);
    f->n = 0;
}

static bool fields_push(fields *f, const char *s, size_t n) {
    if (f->n == f->cap) {
        int cap = f->cap ? f->cap * 2 : 16;
        char **v = realloc(f->v, (size_t)cap * sizeof *v);
        if (!v) return false;
        f->v = v, f->cap = cap;
    }
    char *c = malloc(n + 1);
    if (!c) return false;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) { /* the content of a quoted field: "" is one quote */
        c[k++] = s[i];
        if (s[i] == '"' && i + 1 < n && s[i + 1] == '"') i++;
    }
    c[k] = 0;
    f->v[f->n++] = c;
    return true;
}

/* split_record splits the record at *p (before end) into out; *p moves past its line end.
** false when the record does not end before end (the sample cut it) or out of memory. */
static bool split_record(const char **p, const char *end, char delim, fields *out) {
    fields_clear(out);
    const char *s = *p;
    for (;;) {
        const char *start = s;
        bool quoted = s < end && *s == '"';
        if (quoted) {
            for (start = ++s; s < end && !(*s == '"' && (s + 1 >= end || s[1] != '"')); s += *s == '"' ? 2 : 1) {}
            if (s >= end) return false;
            if (!fields_push(out, start, (size_t)(s - start))) return false;
            s++;
            while (s < end && *s != delim && *s != '\n' && *s != '\r') s++;
        } else {
            while (s < end && *s != delim && *s != '\n' && *s != '\r') s++;
            if (!fields_push(out, start, (size_t)(s - start))) return false;
        }
        if (s >= end) return false;
        if (*s == delim) {
            s++;
            continue;
        }
        s += s[0] == '\r' && s + 1 < end && s[1] == '\n' ? 2 : 1;
        *p = s;
        return true;
    }
}

/* sniff picks the delimiter that splits the first records alike into the most fields. */
static char sniff(const char *text, const char *end, fields *tmp) {
    static const char candidates[] = {',', '\t', '|', ';'};
    char best = ',';
    int best_n = 1;
    for (size_t c = 0; c < sizeof candidates; c++) {
        const char *p = text;
        int n = -1, records = 0;
        bool alike = true;
        while (records < SNIFF_RECORDS && p < end && split_record(&p, end, candidates[c], tmp)) {
            if (tmp->n == 1 && !tmp->v[0][0]) continue; /* an empty line */
            if (n >= 0 && tmp->n != n) {
                alike = false;
                break;
            }
            n = tmp->n, records++;
        }
        if (alike && records > 0 && n > best_n) best = candidates[c], best_n = n;
    }
    return best;
}

static bool is_integer(const char *s) {
    s += *s == '-' || *s == '+';
    size_t n = strspn(s, "0123456789");
    return n > 0 && n <= 18 && !s[n];
}

static bool is_number(const char *s) {
    char *e;
    if (!*s || isspace((unsigned char)*s)) return false;
    strtod(s, &e);
    return !*e && strspn(s, "+-0123456789.eE") == strlen(s);
}

static bool is_date(const char *s) {
    return strlen(s) == 10 && strspn(s, "0123456789") == 4 && s[4] == '-' && isdigit((unsigned char)s[5]) &&
           isdigit((unsigned char)s[6]) && s[7] == '-' && isdigit((unsigned char)s[8]) && isdigit((unsigned char)s[9]);
}

static int fail(char *err, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
    return STRATA_ERROR;
}

/* table_columns reads the column names of table into cols; false when it does not exist. */
static bool table_columns(strata_db *db, const char *table, fields *cols) {
    char *sql = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&sql, &len);
    if (!f) return false;
    fputs("SELECT * FROM ", f);
    sql_quote(f, table, '"');
    fputs(" LIMIT 0", f);
    fclose(f);
    strata_stmt *st = NULL;
    bool ok = strata_prepare(db, sql, &st, NULL) == STRATA_OK && st;
    free(sql);
    fields_clear(cols);
    for (int i = 0; ok && i < strata_column_count(st); i++) {
        const char *name = strata_column_name(st, i);
        ok = fields_push(cols, name, strlen(name));
    }
    strata_finalize(st);
    return ok;
}

/* create_sql writes CREATE TABLE for the header's columns, typed from the sampled records. */
static bool create_sql(FILE *f, const char *table, const fields *header, int ncols, const char *from,
                       const char *end, char delim, fields *tmp) {
    enum { CAN_INT = 1, CAN_NUM = 2, CAN_DATE = 4, SEEN = 8 };
    unsigned *kind = calloc((size_t)ncols, sizeof *kind);
    if (!kind) return false;
    for (int c = 0; c < ncols; c++) kind[c] = CAN_INT | CAN_NUM | CAN_DATE;
    for (const char *p = from; p < end && split_record(&p, end, delim, tmp);)
        for (int c = 0; c < ncols && c < tmp->n; c++) {
            const char *v = tmp->v[c];
            if (!*v) continue; /* empty: NULL */
            kind[c] |= SEEN;
            if (!is_integer(v)) kind[c] &= ~(unsigned)CAN_INT;
            if (!is_number(v)) kind[c] &= ~(unsigned)CAN_NUM;
            if (!is_date(v)) kind[c] &= ~(unsigned)CAN_DATE;
        }
    fputs("CREATE TABLE ", f);
    sql_quote(f, table, '"');
    putc('(', f);
    for (int c = 0; c < ncols; c++) {
        char name[32];
        snprintf(name, sizeof name, "column%d", c + 1);
        if (c) fputs(", ", f);
        sql_quote(f, header->v[c][0] ? header->v[c] : name, '"');
        unsigned k = kind[c];
        fputs(!(k & SEEN)     ? " VARCHAR"
              : k & CAN_INT  ? " BIGINT"
              : k & CAN_NUM  ? " DOUBLE"
              : k & CAN_DATE ? " DATE"
                             : " VARCHAR",
              f);
    }
    fputs(")", f);
    free(kind);
    return true;
}

static int run(strata_db *db, const char *sql, char *err, size_t size) {
    if (strata_exec(db, sql, NULL, NULL) == STRATA_OK) return STRATA_OK;
    return fail(err, size, "%s", strata_errmsg(db));
}

int import_csv(strata_db *db, const char *path, const char *table, char *err, size_t size) {
    FILE *in = fopen(path, "rb");
    if (!in) return fail(err, size, "cannot open \"%s\"", path);
    char *text = malloc(SAMPLE_BYTES + 1);
    size_t n = text ? fread(text, 1, SAMPLE_BYTES, in) : 0;
    fclose(in);
    if (!text) return fail(err, size, "out of memory");
    text[n] = '\n'; /* a last line without its line end still ends */
    const char *end = text + n + (n < SAMPLE_BYTES);
    if ((n >= 2 && !memcmp(text, "\x1f\x8b", 2)) || (n >= 4 && !memcmp(text, "\x28\xb5\x2f\xfd", 4))) {
        free(text);
        return fail(err, size, ".import reads plain CSV; load a compressed file with COPY ... FROM");
    }
    const char *p = text + (n >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0);
    fields first = {0}, tmp = {0}, cols = {0};
    char delim = sniff(p, end, &tmp);
    bool have_first = split_record(&p, end, delim, &first) || first.n > 0;
    bool exists = table_columns(db, table, &cols);
    bool header = !exists;
    if (exists && have_first && first.n >= cols.n) {
        header = true;
        for (int i = 0; i < cols.n && header; i++) header = !strcasecmp(first.v[i], cols.v[i]);
    }
    char *sql = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&sql, &len);
    int rc = STRATA_OK;
    if (!f) rc = fail(err, size, "out of memory");
    else if (!exists && !have_first) rc = fail(err, size, "\"%s\" is empty: no header to create table \"%s\" from", path, table);
    if (rc == STRATA_OK) {
        bool own = !exists && strata_exec(db, "BEGIN", NULL, NULL) == STRATA_OK; /* the CREATE goes if the load fails */
        if (!exists) {
            int ncols = first.n - (first.n > 1 && !first.v[first.n - 1][0]); /* a trailing delimiter */
            if (!create_sql(f, table, &first, ncols, p, end, delim, &tmp)) rc = fail(err, size, "out of memory");
            fputs(";\n", f);
        }
        fputs("COPY ", f);
        sql_quote(f, table, '"');
        fputs(" FROM ", f);
        sql_quote(f, path, '\'');
        fprintf(f, " (DELIMITER %s, HEADER %s)", delim == '\t' ? "E'\\t'" : delim == ',' ? "','" : delim == '|' ? "'|'" : "';'",
                header ? "true" : "false");
        if (fclose(f) != 0 && rc == STRATA_OK) rc = fail(err, size, "out of memory");
        f = NULL;
        if (rc == STRATA_OK) rc = run(db, sql, err, size);
        if (own) strata_exec(db, rc == STRATA_OK ? "COMMIT" : "ROLLBACK", NULL, NULL);
    }
    if (f) fclose(f);
    free(sql);
    fields_clear(&first), fields_clear(&tmp), fields_clear(&cols);
    free(first.v), free(tmp.v), free(cols.v);
    free(text);
    return rc;
}
