/*
** slt_runner.c -- runs SQL logic tests (sqllogictest format, as DuckDB and SQLite use it) through
** the public C API.
**
**     slt_runner [--verbose] [--file-db DIR] [--no-fork] [--timeout SECONDS] FILE_OR_DIR...
**
** Directories are searched recursively for *.test files, which run in name order, each on a fresh
** database: a private ":memory:" one, or with --file-db a new file DIR/<path>.db (so that the
** `restart` directive, which closes and reopens the database, checks what reached the disk). Each
** file runs in a child process (unless --no-fork), so that a crash or a hang (a record that takes
** longer than --timeout, default 60 s) fails that file and the run goes on. The format, and the
** conventions this runner chose where DuckDB's and SQLite's runners differ, are described in
** tests/sql/README.md. The last line of the output is exactly "N passed, N failed" (records);
** the exit status is 1 when a record failed.
**
** This program uses only include/strata.h: it tests what a user of the library sees.
*/
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "slt_md5.h"
#include "strata.h"

#ifndef ENGINE_NAME
#define ENGINE_NAME "strata" /* the name skipif and onlyif match */
#endif
#define PRINT_ROWS_MAX 40 /* rows shown of an expected or actual result on a mismatch */

/* ---------------------------------------------------------------- small helpers ---- */

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "slt_runner: out of memory\n");
        exit(2);
    }
    return p;
}

static void *xrealloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p) {
        fprintf(stderr, "slt_runner: out of memory\n");
        exit(2);
    }
    return p;
}

static char *xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

/* A growable array of owned strings. */
typedef struct strvec {
    char **items;
    size_t count, cap;
} strvec;

static void strvec_push(strvec *v, char *s) {
    if (v->count == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 16;
        v->items = xrealloc(v->items, v->cap * sizeof *v->items);
    }
    v->items[v->count++] = s;
}

static void strvec_clear(strvec *v) {
    for (size_t i = 0; i < v->count; i++) free(v->items[i]);
    v->count = 0;
}

static void strvec_free(strvec *v) {
    strvec_clear(v);
    free(v->items);
    v->items = NULL;
    v->cap = 0;
}

/* A growable text buffer. */
typedef struct strbuf {
    char *p;
    size_t len, cap;
} strbuf;

static void strbuf_append(strbuf *b, const char *s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void strbuf_puts(strbuf *b, const char *s) { strbuf_append(b, s, strlen(s)); }

/* ---------------------------------------------------------------- options and totals ---- */

static bool opt_verbose;
static bool opt_fork = true;
static const char *opt_file_db; /* directory for on-disk databases, or NULL for :memory: */
static unsigned opt_timeout = 60;
static unsigned opt_threads; /* SET threads on every database opened; 0: strata's default */

typedef struct totals {
    long passed, failed, skipped;
} totals;

/* Progress of a file run in a child goes to the parent through a pipe, one line per event:
** "R <line>" when a record starts, then "P", "F" or "S" (passed, failed, skipped). */
static int progress_fd = -1;

static void progress(const char *fmt, ...) {
    if (progress_fd < 0) return;
    char buf[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0 && write(progress_fd, buf, (size_t)n) != n) {
        /* The parent went away; nothing useful is left to report to. */
    }
}

/* ---------------------------------------------------------------- results ---- */

/* A query result as text values, row-major: rows * ncol values. */
typedef struct result {
    int ncol;
    size_t nrows;
    strvec values;
} result;

/* render_value is the text a value compares as: NULL, (empty) for '', otherwise the engine's
** text. R columns compare as numbers rounded to 3 decimals (see normalize_real). */
static char *normalize_real(const char *s) {
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    while (*end == ' ') end++;
    if (end == s || *end != '\0' || !isfinite(d)) return xstrdup(s);
    char buf[64];
    snprintf(buf, sizeof buf, "%.3f", d);
    if (strcmp(buf, "-0.000") == 0) strcpy(buf, "0.000");
    return xstrdup(buf);
}

static char *render_value(const char *text, char type_letter) {
    if (!text) return xstrdup("NULL");
    if (!*text) return xstrdup("(empty)");
    if (type_letter == 'R') return normalize_real(text);
    return xstrdup(text);
}

/* run_sql runs every statement of sql in turn; the rows of the last statement that has result
** columns go into res (which may be NULL). On an error it returns the status and *errmsg gets a
** copy of the message (the caller frees it); res then holds what was read. */
static int run_sql(strata_db *db, const char *sql, const char *types, result *res, char **errmsg) {
    const char *p = sql;
    *errmsg = NULL;
    while (p && *p) {
        strata_stmt *st = NULL;
        const char *tail = NULL;
        int rc = strata_prepare(db, p, &st, &tail);
        if (rc != STRATA_OK) {
            *errmsg = xstrdup(strata_errmsg(db));
            strata_finalize(st);
            return rc;
        }
        if (!st) break; /* only white space and comments were left */
        int ncol = strata_column_count(st);
        if (res && ncol > 0) {
            strvec_clear(&res->values);
            res->ncol = ncol;
            res->nrows = 0;
        }
        while ((rc = strata_step(st)) == STRATA_ROW) {
            if (!res || ncol <= 0) continue;
            for (int i = 0; i < ncol; i++) {
                char letter = types && (size_t)i < strlen(types) ? types[i] : 'T';
                strvec_push(&res->values, render_value(strata_column_text(st, i), letter));
            }
            res->nrows++;
        }
        if (rc != STRATA_DONE) {
            *errmsg = xstrdup(strata_errmsg(db));
            strata_finalize(st);
            return rc == STRATA_OK ? STRATA_ERROR : rc;
        }
        strata_finalize(st);
        if (!tail || tail <= p) break; /* no progress: the engine took everything */
        p = tail;
    }
    return STRATA_OK;
}

/* ---------------------------------------------------------------- sorting and hashing ---- */

static int sort_ncol; /* row width for compare_rows (qsort has no context argument in C11) */

static int compare_strings(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int compare_rows(const void *a, const void *b) {
    char *const *ra = *(char **const *)a, *const *rb = *(char **const *)b;
    for (int i = 0; i < sort_ncol; i++) {
        int c = strcmp(ra[i], rb[i]);
        if (c) return c;
    }
    return 0;
}

typedef enum sort_mode { SORT_NONE, SORT_ROWS, SORT_VALUES } sort_mode;

/* sort_values orders n values of width ncol (in place) as the sort mode says: rowsort sorts rows
** by their values compared as strings, column by column; valuesort sorts all values as one list. */
static void sort_values(char **values, size_t n, int ncol, sort_mode mode) {
    if (mode == SORT_VALUES) {
        qsort(values, n, sizeof *values, compare_strings);
    } else if (mode == SORT_ROWS && ncol > 0) {
        size_t nrows = n / (size_t)ncol;
        char ***rows = xmalloc(nrows * sizeof *rows);
        char **copy = xmalloc(n * sizeof *copy);
        memcpy(copy, values, n * sizeof *copy);
        for (size_t r = 0; r < nrows; r++) rows[r] = copy + r * (size_t)ncol;
        sort_ncol = ncol;
        qsort(rows, nrows, sizeof *rows, compare_rows);
        for (size_t r = 0; r < nrows; r++) memcpy(values + r * (size_t)ncol, rows[r], (size_t)ncol * sizeof *values);
        free(rows);
        free(copy);
    }
}

/* hash_values writes the sqllogictest hash of the values: MD5 over each value followed by "\n". */
static void hash_values(char **values, size_t n, char hex[33]) {
    slt_md5 m;
    slt_md5_init(&m);
    for (size_t i = 0; i < n; i++) {
        slt_md5_update(&m, values[i], strlen(values[i]));
        slt_md5_update(&m, "\n", 1);
    }
    slt_md5_hex(&m, hex);
}

/* is_hash_line recognizes "<n> values hashing to <32 hex digits>". */
static bool is_hash_line(const char *line, size_t *count, char hex[33]) {
    unsigned long long n;
    char h[40];
    int used = 0;
    if (sscanf(line, "%llu values hashing to %39s%n", &n, h, &used) != 2 || line[used] != '\0') return false;
    if (strlen(h) != 32) return false;
    for (int i = 0; i < 32; i++)
        if (!isxdigit((unsigned char)h[i])) return false;
    *count = (size_t)n;
    for (int i = 0; i < 33; i++) hex[i] = (char)tolower((unsigned char)h[i]);
    return true;
}

/* ---------------------------------------------------------------- one file ---- */

typedef struct label {
    char *name;
    char hash[33];
    size_t count;
} label;

typedef struct file_run {
    const char *path;
    char **lines;
    size_t nlines;
    strata_db *db;
    char *db_path; /* NULL for :memory: */
    long hash_threshold;
    label *labels;
    size_t nlabels;
    totals t;
} file_run;

static bool is_blank(const char *s) {
    while (*s == ' ' || *s == '\t') s++;
    return *s == '\0';
}

/* split_words splits a directive line on white space into at most max words (pointers into buf,
** a copy the caller frees). */
static int split_words(const char *line, char **buf, char **words, int max) {
    *buf = xstrdup(line);
    int n = 0;
    for (char *tok = strtok(*buf, " \t"); tok && n < max; tok = strtok(NULL, " \t")) words[n++] = tok;
    return n;
}

/* join_lines joins lines [from, to) with "\n" into a new string. */
static char *join_lines(file_run *f, size_t from, size_t to) {
    strbuf b = {0};
    strbuf_puts(&b, "");
    for (size_t i = from; i < to; i++) {
        if (i > from) strbuf_puts(&b, "\n");
        strbuf_puts(&b, f->lines[i]);
    }
    return b.p;
}

static void print_sql(const char *sql) { printf("  SQL:\n    %s\n", sql); }

static void print_rows(const char *title, char **values, size_t n, int ncol) {
    printf("  %s (%zu row%s):\n", title, ncol > 0 ? n / (size_t)ncol : n,
           ncol > 0 && n / (size_t)ncol == 1 ? "" : "s");
    size_t nrows = ncol > 0 ? n / (size_t)ncol : 0;
    for (size_t r = 0; r < nrows && r < PRINT_ROWS_MAX; r++) {
        printf("    ");
        for (int c = 0; c < ncol; c++) printf("%s%s", c ? "\t" : "", values[r * (size_t)ncol + (size_t)c]);
        printf("\n");
    }
    if (nrows > PRINT_ROWS_MAX) printf("    ... %zu more\n", nrows - PRINT_ROWS_MAX);
}

static void fail_header(file_run *f, size_t line) { printf("FAIL %s:%zu\n", f->path, line); }

/* open_db opens the file's database (fresh when reopen is false). */
static int open_db(file_run *f, bool reopen, char **errmsg) {
    const char *path = f->db_path ? f->db_path : ":memory:";
    if (f->db_path && !reopen) {
        const char *suffixes[] = {"", "-wal", "-shm", "-journal"};
        for (int i = 0; i < 4; i++) {
            char name[4096];
            snprintf(name, sizeof name, "%s%s", f->db_path, suffixes[i]);
            unlink(name);
        }
    }
    int rc = strata_open(path, &f->db);
    if (rc == STRATA_OK && opt_threads) {
        char set[48];
        snprintf(set, sizeof set, "SET threads = %u", opt_threads);
        rc = strata_exec(f->db, set, NULL, NULL);
    }
    if (rc != STRATA_OK) {
        char buf[4200];
        snprintf(buf, sizeof buf, "cannot open %s: %s (status %d: %s)", path, f->db ? strata_errmsg(f->db) : "",
                 rc, strata_errstr(rc));
        *errmsg = xstrdup(buf);
        strata_close(f->db);
        f->db = NULL;
    }
    return rc;
}

/* split_expected turns the expected lines into values of a result with ncol columns. A line with
** a tab splits on tabs; a line without one is a single value when ncol is 1, else splits on runs of
** spaces when that gives exactly ncol values. When every line is one value and their number is a
** multiple of ncol, they are taken as one value per line (SQLite's layout). Returns false, with a
** message in why, when the layout fits none of these. */
static bool split_expected(file_run *f, size_t from, size_t to, int ncol, strvec *out,
                           char *why, size_t whylen) {
    bool one_per_line = ncol > 1 && (to - from) % (size_t)ncol == 0;
    for (size_t i = from; i < to && one_per_line; i++)
        if (strchr(f->lines[i], '\t')) one_per_line = false;
    if (one_per_line) {
        /* A line that splits into ncol space-separated words is read as a row instead. */
        for (size_t i = from; i < to; i++) {
            char *buf, *words[2];
            int n = split_words(f->lines[i], &buf, words, 2);
            free(buf);
            if (n != 1) {
                one_per_line = false;
                break;
            }
        }
    }
    for (size_t i = from; i < to; i++) {
        const char *line = f->lines[i];
        if (one_per_line) {
            strvec_push(out, xstrdup(line));
            continue;
        }
        int got = 0;
        if (strchr(line, '\t') || ncol == 1) {
            const char *p = line;
            for (;;) {
                const char *tab = ncol == 1 ? NULL : strchr(p, '\t');
                size_t n = tab ? (size_t)(tab - p) : strlen(p);
                char *v = xmalloc(n + 1);
                memcpy(v, p, n);
                v[n] = '\0';
                strvec_push(out, v);
                got++;
                if (!tab) break;
                p = tab + 1;
            }
        } else {
            char *buf, *words[256];
            int n = split_words(line, &buf, words, 256);
            for (int w = 0; w < n; w++) strvec_push(out, xstrdup(words[w]));
            got = n;
            free(buf);
        }
        if (got != ncol) {
            snprintf(why, whylen, "expected row at line %zu has %d value%s, the query has %d column%s%s", i + 1, got,
                     got == 1 ? "" : "s", ncol, ncol == 1 ? "" : "s",
                     strchr(line, '\t') ? "" : " (separate values with tabs when a value holds spaces)");
            return false;
        }
    }
    return true;
}

/* run_statement runs a `statement ok|error` record whose SQL is lines [sql_from, sql_to) and whose
** expected error text (statement error only) is lines [exp_from, exp_to). */
static bool run_statement(file_run *f, size_t line, bool expect_error, size_t sql_from, size_t sql_to,
                          size_t exp_from, size_t exp_to) {
    char *sql = join_lines(f, sql_from, sql_to);
    char *err = NULL;
    bool ok = true;
    int rc = run_sql(f->db, sql, NULL, NULL, &err);
    if (!expect_error && rc != STRATA_OK) {
        fail_header(f, line);
        print_sql(sql);
        printf("  expected success, got status %d (%s):\n    %s\n", rc, strata_errstr(rc), err ? err : "");
        ok = false;
    } else if (expect_error && rc == STRATA_OK) {
        fail_header(f, line);
        print_sql(sql);
        printf("  expected an error, the statement succeeded\n");
        ok = false;
    } else if (expect_error && exp_to > exp_from) {
        char *want = join_lines(f, exp_from, exp_to);
        if (!err || !strstr(err, want)) {
            fail_header(f, line);
            print_sql(sql);
            printf("  expected an error containing:\n    %s\n  got:\n    %s\n", want, err ? err : "(no message)");
            ok = false;
        }
        free(want);
    }
    free(err);
    free(sql);
    return ok;
}

/* run_query runs a `query` record: SQL lines [sql_from, sql_to), expected lines [exp_from,
** exp_to). */
static bool run_query(file_run *f, size_t line, const char *types, sort_mode mode, const char *label_name,
                      size_t sql_from, size_t sql_to, size_t exp_from, size_t exp_to) {
    char *sql = join_lines(f, sql_from, sql_to);
    result res = {0};
    char *err = NULL;
    bool ok = true;
    strvec expected = {0};
    int ncol = (int)strlen(types);
    int rc = run_sql(f->db, sql, types, &res, &err);
    if (rc != STRATA_OK) {
        fail_header(f, line);
        print_sql(sql);
        printf("  query failed with status %d (%s):\n    %s\n", rc, strata_errstr(rc), err ? err : "");
        ok = false;
        goto done;
    }
    if (res.ncol != ncol) {
        fail_header(f, line);
        print_sql(sql);
        printf("  the record says %d column%s (\"%s\"), the query returned %d\n", ncol, ncol == 1 ? "" : "s", types,
               res.ncol);
        ok = false;
        goto done;
    }
    size_t nvalues = res.values.count;
    sort_values(res.values.items, nvalues, ncol, mode);
    char actual_hash[33];
    hash_values(res.values.items, nvalues, actual_hash);

    size_t want_count;
    char want_hash[33];
    if (exp_to == exp_from + 1 && is_hash_line(f->lines[exp_from], &want_count, want_hash)) {
        if (want_count != nvalues || strcmp(want_hash, actual_hash) != 0) {
            fail_header(f, line);
            print_sql(sql);
            printf("  expected: %s\n  actual:   %zu values hashing to %s\n", f->lines[exp_from], nvalues, actual_hash);
            print_rows("actual", res.values.items, nvalues, ncol);
            ok = false;
        }
    } else {
        char why[256];
        if (!split_expected(f, exp_from, exp_to, ncol, &expected, why, sizeof why)) {
            fail_header(f, line);
            print_sql(sql);
            printf("  %s\n", why);
            print_rows("actual", res.values.items, nvalues, ncol);
            ok = false;
            goto done;
        }
        for (size_t i = 0; i < expected.count; i++) {
            if (types[i % (size_t)ncol] == 'R') {
                char *n = normalize_real(expected.items[i]);
                free(expected.items[i]);
                expected.items[i] = n;
            }
        }
        sort_values(expected.items, expected.count, ncol, mode);
        bool same = expected.count == nvalues;
        for (size_t i = 0; same && i < nvalues; i++) same = strcmp(expected.items[i], res.values.items[i]) == 0;
        if (!same) {
            fail_header(f, line);
            print_sql(sql);
            print_rows("expected", expected.items, expected.count, ncol);
            print_rows("actual", res.values.items, nvalues, ncol);
            if (f->hash_threshold > 0 && nvalues > (size_t)f->hash_threshold)
                printf("  actual: %zu values hashing to %s\n", nvalues, actual_hash);
            ok = false;
        }
    }
    if (ok && label_name) {
        /* Records with one label must return the same values (sqllogictest). */
        for (size_t i = 0; i < f->nlabels; i++) {
            label *l = &f->labels[i];
            if (strcmp(l->name, label_name) != 0) continue;
            if (l->count != nvalues || strcmp(l->hash, actual_hash) != 0) {
                fail_header(f, line);
                print_sql(sql);
                printf("  label %s: %zu values hashing to %s here, %zu values hashing to %s before\n", label_name,
                       nvalues, actual_hash, l->count, l->hash);
                ok = false;
            }
            goto done;
        }
        f->labels = xrealloc(f->labels, (f->nlabels + 1) * sizeof *f->labels);
        label *l = &f->labels[f->nlabels++];
        l->name = xstrdup(label_name);
        memcpy(l->hash, actual_hash, 33);
        l->count = nvalues;
    }
done:
    strvec_free(&expected);
    strvec_free(&res.values);
    free(err);
    free(sql);
    return ok;
}

static void record_result(file_run *f, bool ok) {
    if (ok) f->t.passed++;
    else f->t.failed++;
    progress("%c\n", ok ? 'P' : 'F');
}

/* read_lines loads a file as an array of lines without their line ends. */
static bool read_lines(const char *path, char ***lines_out, size_t *n_out, char **text_out) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return false;
    strbuf b = {0};
    char chunk[65536];
    size_t n;
    strbuf_puts(&b, "");
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) strbuf_append(&b, chunk, n);
    fclose(fp);
    size_t count = 0, cap = 64;
    char **lines = xmalloc(cap * sizeof *lines);
    char *p = b.p;
    while (*p) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = '\0';
        size_t len = strlen(p);
        if (len > 0 && p[len - 1] == '\r') p[len - 1] = '\0';
        if (count == cap) lines = xrealloc(lines, (cap *= 2) * sizeof *lines);
        lines[count++] = p;
        if (!nl) break;
        p = nl + 1;
    }
    *lines_out = lines;
    *n_out = count;
    *text_out = b.p;
    return true;
}

/* run_file runs every record of one file and returns its totals. */
static totals run_file(const char *path) {
    file_run f = {.path = path};
    char *text = NULL;
    if (!read_lines(path, &f.lines, &f.nlines, &text)) {
        printf("FAIL %s: cannot read: %s\n", path, strerror(errno));
        f.t.failed++;
        return f.t;
    }
    if (opt_file_db) {
        char name[4096];
        size_t n = (size_t)snprintf(name, sizeof name, "%s/", opt_file_db);
        for (const char *p = path; *p && n + 4 < sizeof name; p++) name[n++] = *p == '/' ? '_' : *p;
        snprintf(name + n, sizeof name - n, ".db");
        f.db_path = xstrdup(name);
    }
    char *err = NULL;
    if (open_db(&f, false, &err) != STRATA_OK) {
        printf("FAIL %s: %s\n", path, err);
        free(err);
        f.t.failed++;
        goto done;
    }

    bool skip_next = false;
    size_t i = 0;
    while (i < f.nlines) {
        const char *line = f.lines[i];
        if (is_blank(line) || line[0] == '#') {
            i++;
            continue;
        }
        size_t start = i;
        char *wbuf, *w[8];
        int nw = split_words(line, &wbuf, w, 8);
        const char *cmd = w[0];
        i++;
        if (strcmp(cmd, "skipif") == 0 || strcmp(cmd, "onlyif") == 0) {
            bool is_us = nw > 1 && strcmp(w[1], ENGINE_NAME) == 0;
            if ((cmd[0] == 's') == is_us) skip_next = true;
            free(wbuf);
            continue;
        }
        if (strcmp(cmd, "hash-threshold") == 0) {
            f.hash_threshold = nw > 1 ? atol(w[1]) : 0;
            free(wbuf);
            continue;
        }
        if (strcmp(cmd, "halt") == 0) {
            free(wbuf);
            if (skip_next) {
                skip_next = false;
                continue;
            }
            break;
        }
        if (strcmp(cmd, "restart") == 0) {
            free(wbuf);
            if (skip_next) {
                skip_next = false;
                continue;
            }
            if (f.db_path) {
                progress("R %zu\n", start + 1);
                int rc = strata_close(f.db);
                f.db = NULL;
                bool ok = rc == STRATA_OK && open_db(&f, true, &err) == STRATA_OK;
                if (!ok) {
                    printf("FAIL %s:%zu: restart: %s\n", path, start + 1, err ? err : strata_errstr(rc));
                    free(err);
                    err = NULL;
                    record_result(&f, false);
                    if (!f.db) break;
                }
            }
            continue;
        }
        /* A record: statement or query, up to the next blank line. */
        size_t end = i;
        while (end < f.nlines && !is_blank(f.lines[end])) end++;
        size_t sep = i;
        while (sep < end && strcmp(f.lines[sep], "----") != 0) sep++;
        if (skip_next) {
            skip_next = false;
            f.t.skipped++;
            progress("S\n");
            free(wbuf);
            i = end;
            continue;
        }
        progress("R %zu\n", start + 1);
        alarm(opt_timeout);
        if (opt_verbose) printf("%s:%zu: %s\n", path, start + 1, i < end ? f.lines[i] : "");
        bool ok;
        if (strcmp(cmd, "statement") == 0 && nw >= 2 && (strcmp(w[1], "ok") == 0 || strcmp(w[1], "error") == 0)) {
            bool expect_error = strcmp(w[1], "error") == 0;
            if (!expect_error && sep < end) {
                fail_header(&f, start + 1);
                printf("  statement ok takes no ---- section\n");
                ok = false;
            } else {
                ok = run_statement(&f, start + 1, expect_error, i, sep, sep < end ? sep + 1 : end, end);
            }
        } else if (strcmp(cmd, "query") == 0 && nw >= 2) {
            sort_mode mode = SORT_NONE;
            const char *label_name = NULL;
            bool valid = true;
            for (const char *t = w[1]; *t; t++)
                if (!strchr("ITR", *t)) valid = false;
            if (nw >= 3) {
                if (strcmp(w[2], "nosort") == 0) mode = SORT_NONE;
                else if (strcmp(w[2], "rowsort") == 0) mode = SORT_ROWS;
                else if (strcmp(w[2], "valuesort") == 0) mode = SORT_VALUES;
                else valid = false;
            }
            if (nw >= 4) label_name = w[3];
            if (!valid) {
                fail_header(&f, start + 1);
                printf("  malformed query line (types are I, T, R; sort nosort, rowsort or valuesort): %s\n", line);
                ok = false;
            } else {
                ok = run_query(&f, start + 1, w[1], mode, label_name, i, sep, sep < end ? sep + 1 : end, end);
            }
        } else {
            fail_header(&f, start + 1);
            printf("  unknown record: %s\n", line);
            ok = false;
        }
        alarm(0);
        record_result(&f, ok);
        free(wbuf);
        i = end;
    }
done:
    if (f.db) strata_close(f.db);
    for (size_t l = 0; l < f.nlabels; l++) free(f.labels[l].name);
    free(f.labels);
    free(f.db_path);
    free(f.lines);
    free(text);
    if (opt_verbose || f.t.failed)
        printf("%s: %ld passed, %ld failed, %ld skipped\n", path, f.t.passed, f.t.failed, f.t.skipped);
    fflush(stdout);
    return f.t;
}

/* run_file_forked runs one file in a child process and collects its totals from the progress
** pipe, so that a crash or a hang fails the file instead of ending the run. */
static totals run_file_forked(const char *path) {
    totals t = {0};
    int fds[2];
    fflush(stdout);
    if (pipe(fds) != 0) return run_file(path);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return run_file(path);
    }
    if (pid == 0) {
        close(fds[0]);
        progress_fd = fds[1];
        setvbuf(stdout, NULL, _IOLBF, 0); /* what was printed survives a crash or a timeout */
        signal(SIGALRM, SIG_DFL);
        run_file(path);
        fflush(stdout);
        _exit(0);
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    char buf[64];
    long last_line = 0;
    bool in_record = false;
    while (in && fgets(buf, sizeof buf, in)) {
        if (buf[0] == 'R') {
            last_line = atol(buf + 2);
            in_record = true;
        } else {
            in_record = false;
            if (buf[0] == 'P') t.passed++;
            else if (buf[0] == 'F') t.failed++;
            else if (buf[0] == 'S') t.skipped++;
        }
    }
    if (in) fclose(in);
    else close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0)) {
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
            printf("FAIL %s:%ld: timed out after %u s; the rest of the file did not run\n", path, last_line,
                   opt_timeout);
        else if (WIFSIGNALED(status))
            printf("FAIL %s:%ld: crashed (signal %d: %s)%s; the rest of the file did not run\n", path, last_line,
                   WTERMSIG(status), strsignal(WTERMSIG(status)), in_record ? " in this record" : " after this record");
        else
            printf("FAIL %s:%ld: the runner exited with status %d; the rest of the file did not run\n", path,
                   last_line, WEXITSTATUS(status));
        t.failed++;
    }
    return t;
}

/* ---------------------------------------------------------------- files ---- */

static bool has_suffix(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* collect adds path, or the *.test files under it, to files. */
static bool collect(const char *path, strvec *files) {
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "slt_runner: %s: %s\n", path, strerror(errno));
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        strvec_push(files, xstrdup(path));
        return true;
    }
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "slt_runner: %s: %s\n", path, strerror(errno));
        return false;
    }
    bool ok = true;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        size_t n = strlen(path) + strlen(e->d_name) + 2;
        char *child = xmalloc(n);
        snprintf(child, n, "%s%s%s", path, has_suffix(path, "/") ? "" : "/", e->d_name);
        struct stat cs;
        if (stat(child, &cs) == 0 && S_ISDIR(cs.st_mode)) ok = collect(child, files) && ok;
        else if (has_suffix(e->d_name, ".test")) strvec_push(files, xstrdup(child));
        free(child);
    }
    closedir(d);
    return ok;
}

static void usage(void) {
    fprintf(stderr, "usage: slt_runner [--verbose] [--file-db DIR] [--no-fork] [--timeout SECONDS] [--threads N] FILE_OR_DIR...\n");
    exit(2);
}

int main(int argc, char **argv) {
    strvec files = {0};
    int nargs = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--verbose") == 0 || strcmp(argv[i], "-v") == 0) opt_verbose = true;
        else if (strcmp(argv[i], "--no-fork") == 0) opt_fork = false;
        else if (strcmp(argv[i], "--file-db") == 0 && i + 1 < argc) opt_file_db = argv[++i];
        else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) opt_timeout = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) opt_threads = (unsigned)atoi(argv[++i]);
        else if (argv[i][0] == '-' && argv[i][1] != '\0') usage();
        else {
            nargs++;
            size_t before = files.count;
            if (!collect(argv[i], &files)) {
                strvec_free(&files);
                return 2;
            }
            /* A directory's files run in name order. */
            qsort(files.items + before, files.count - before, sizeof *files.items, compare_strings);
        }
    }
    if (nargs == 0) usage();
    if (opt_file_db) {
        struct stat st;
        if (stat(opt_file_db, &st) != 0 && mkdir(opt_file_db, 0777) != 0) {
            fprintf(stderr, "slt_runner: cannot create %s: %s\n", opt_file_db, strerror(errno));
            return 2;
        }
    }
    totals all = {0};
    for (size_t i = 0; i < files.count; i++) {
        totals t = opt_fork ? run_file_forked(files.items[i]) : run_file(files.items[i]);
        all.passed += t.passed;
        all.failed += t.failed;
        all.skipped += t.skipped;
    }
    if (all.skipped) printf("%ld skipped\n", all.skipped);
    printf("%ld passed, %ld failed\n", all.passed, all.failed);
    strvec_free(&files);
    return all.failed ? 1 : 0;
}
