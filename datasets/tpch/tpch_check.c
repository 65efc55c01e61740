/*
** tpch_check.c -- TPC-H results as text, their files and the comparison rule (tpch_check.h).
*/
#include "tpch_check.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NULL_TEXT "\\N"

int tpch_query_pending(int q) {
    static const int pending[] = TPCH_PENDING_QUERIES;
    for (size_t i = 0; i < sizeof pending / sizeof pending[0]; i++)
        if (pending[i] == q) return 1;
    return 0;
}

static char *copy_text(const char *s, size_t n) {
    char *c = malloc(n + 1);
    if (c) {
        memcpy(c, s, n);
        c[n] = '\0';
    }
    return c;
}

int tpch_result_init(tpch_result *r, int ncols, const char *const *names) {
    memset(r, 0, sizeof *r);
    if ((r->names = calloc((size_t)(ncols > 0 ? ncols : 1), sizeof *r->names)) == NULL) return -1;
    r->ncols = ncols;
    for (int i = 0; i < ncols; i++)
        if ((r->names[i] = copy_text(names[i], strlen(names[i]))) == NULL) return -1;
    return 0;
}

int tpch_result_add(tpch_result *r, const char *const *values, const int *lens) {
    if (r->nrows == r->cap) {
        int64_t cap = r->cap ? 2 * r->cap : 64;
        char **v = realloc(r->values, (size_t)(cap * r->ncols) * sizeof *v);
        if (v == NULL) return -1;
        r->values = v, r->cap = cap;
    }
    char **row = r->values + r->nrows * r->ncols;
    for (int i = 0; i < r->ncols; i++) {
        row[i] = NULL;
        if (values[i] == NULL) continue;
        size_t n = lens ? (size_t)lens[i] : strlen(values[i]);
        if ((row[i] = copy_text(values[i], n)) == NULL) {
            while (i-- > 0)
                free(row[i]);
            return -1;
        }
    }
    r->nrows++;
    return 0;
}

void tpch_result_free(tpch_result *r) {
    for (int64_t i = 0; i < r->nrows * r->ncols; i++)
        free(r->values[i]);
    for (int i = 0; r->names && i < r->ncols; i++)
        free(r->names[i]);
    free(r->values);
    free(r->names);
    memset(r, 0, sizeof *r);
}

void tpch_result_path(char *out, size_t n, const char *dir, int q) {
    snprintf(out, n, "%s/q%02d.txt", dir, q);
}

int tpch_result_write(const tpch_result *r, const char *path) {
    char tmp[4400];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL) return -1;
    for (int i = 0; i < r->ncols; i++)
        fprintf(f, "%s%s", i ? "|" : "", r->names[i]);
    fputc('\n', f);
    for (int64_t row = 0; row < r->nrows; row++) {
        for (int i = 0; i < r->ncols; i++) {
            const char *v = r->values[row * r->ncols + i];
            fprintf(f, "%s%s", i ? "|" : "", v ? v : NULL_TEXT);
        }
        fputc('\n', f);
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) return -1;
    return 0;
}

/* split cuts line at every '|' into at most max fields (in place). Returns the field count, or
** max + 1 when there are more. */
static int split(char *line, char **fields, int max) {
    int n = 0;
    for (char *p = line;; p++) {
        if (n == max) return max + 1;
        fields[n++] = p;
        p = strchr(p, '|');
        if (p == NULL) return n;
        *p = '\0';
    }
}

int tpch_result_read(const char *path, tpch_result *r) {
    FILE *f = fopen(path, "r");
    memset(r, 0, sizeof *r);
    if (f == NULL) return -1;
    char line[8192], *fields[64];
    int rc = -2;
    if (fgets(line, sizeof line, f) == NULL) goto out;
    line[strcspn(line, "\n")] = '\0';
    int ncols = split(line, fields, 64);
    if (ncols > 64 || tpch_result_init(r, ncols, (const char *const *)fields)) goto out;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (split(line, fields, 64) != ncols) goto out;
        for (int i = 0; i < ncols; i++)
            if (strcmp(fields[i], NULL_TEXT) == 0) fields[i] = NULL;
        if (tpch_result_add(r, (const char *const *)fields, NULL)) {
            rc = -1;
            goto out;
        }
    }
    rc = 0;
out:
    fclose(f);
    return rc;
}

/* number parses the whole of s as a finite number into *v; *fraction says whether it has a
** decimal point or an exponent. Returns 1, or 0 when s is not a number. */
static int number(const char *s, double *v, int *fraction) {
    char *end;
    if (*s == '\0' || strchr(" \t\n", *s)) return 0;
    errno = 0;
    *v = strtod(s, &end);
    if (*end != '\0' || errno || !isfinite(*v)) return 0;
    *fraction = strpbrk(s, ".eE") != NULL;
    return 1;
}

int tpch_values_match(const char *want, const char *got) {
    if (want == NULL || got == NULL) return want == got;
    if (strcmp(want, got) == 0) return 1;
    double a, b;
    int fa, fb;
    if (!number(want, &a, &fa) || !number(got, &b, &fb) || !(fa || fb)) return 0;
    double diff = fabs(a - b), larger = fmax(fabs(a), fabs(b));
    return diff <= TPCH_ABS_TOLERANCE || diff <= TPCH_REL_TOLERANCE * larger;
}

int tpch_result_compare(const tpch_result *want, const tpch_result *got, char *msg, size_t n) {
    if (want->ncols != got->ncols) {
        snprintf(msg, n, "%d columns, expected %d", got->ncols, want->ncols);
        return 1;
    }
    int64_t rows = want->nrows < got->nrows ? want->nrows : got->nrows;
    for (int64_t row = 0; row < rows; row++)
        for (int i = 0; i < want->ncols; i++) {
            const char *w = want->values[row * want->ncols + i], *g = got->values[row * got->ncols + i];
            if (tpch_values_match(w, g)) continue;
            snprintf(msg, n, "row %lld column %d (%s): got %s, expected %s", (long long)row + 1, i + 1,
                     want->names[i], g ? g : "NULL", w ? w : "NULL");
            return 1;
        }
    if (want->nrows != got->nrows) {
        snprintf(msg, n, "%lld rows, expected %lld (the first %lld match)", (long long)got->nrows,
                 (long long)want->nrows, (long long)rows);
        return 1;
    }
    return 0;
}

const char *tpch_normalize_value(const char *v, char *out, size_t n) {
    double d;
    int fraction;
    if (v != NULL && number(v, &d, &fraction)) {
        snprintf(out, n, "%.2f", d);
        if (strcmp(out, "-0.00") == 0) snprintf(out, n, "0.00");
        return out;
    }
    snprintf(out, n, "%s", v ? v : NULL_TEXT);
    return out;
}
