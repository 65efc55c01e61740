/*
** render.c -- the shell's output modes (see render.h).
**
** NULL is written as NULL in table, line and list mode, as an empty field in CSV and as null in
** JSON, unless render_options.null_text says otherwise (for every mode but JSON). Widths in table and line
*mode count display columns: a UTF-8 sequence is one column,
** East Asian wide characters and most emoji two, combining marks none.
*/
#include "render.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct renderer {
    FILE *out;
    render_mode mode;
    bool headers;
    const char *null_text; /* NULL: the mode's own */
    int ncol;
    char **names;
    long rows; /* rows written so far */
    /* table mode: the column widths (fixed: set by the options, negative for right-aligned, 0 for
    ** sized to the values), and the rows held until they are known */
    int *width;
    int *fixed;
    bool started; /* the top and the header are written; the widths are fixed */
    char *text;   /* the held values' display text, each NUL-terminated */
    size_t text_len, text_cap;
    size_t *cell; /* per held row, ncol offsets into text */
    unsigned char *kind;
    size_t held, held_cap, kind_cap;
};

bool render_mode_parse(const char *name, render_mode *out) {
    static const struct {
        const char *name;
        render_mode mode;
    } modes[] = {{"table", MODE_TABLE}, {"box", MODE_TABLE}, {"csv", MODE_CSV},
                 {"json", MODE_JSON},   {"line", MODE_LINE}, {"list", MODE_LIST}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcmp(name, modes[i].name) == 0) {
            *out = modes[i].mode;
            return true;
        }
    return false;
}

const char *render_mode_name(render_mode mode) {
    switch (mode) {
    case MODE_TABLE: return "table";
    case MODE_CSV: return "csv";
    case MODE_JSON: return "json";
    case MODE_LINE: return "line";
    case MODE_LIST: return "list";
    }
    return "?";
}

/* ---- display width ---------------------------------------------------------------------- */

/* utf8_next decodes the sequence at s (not at the NUL) into *cp and returns its length; a
** malformed byte decodes as itself, length 1. */
static int utf8_next(const unsigned char *s, uint32_t *cp) {
    int n = s[0] < 0x80 ? 1 : (s[0] >> 5) == 6 ? 2 : (s[0] >> 4) == 14 ? 3 : (s[0] >> 3) == 30 ? 4 : 1;
    uint32_t v = n == 1 ? s[0] : n == 2 ? (s[0] & 0x1Fu) : n == 3 ? (s[0] & 0x0Fu) : (s[0] & 0x07u);
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *cp = s[0];
            return 1;
        }
        v = (v << 6) | (s[i] & 0x3Fu);
    }
    *cp = v;
    return n;
}

static int cp_width(uint32_t cp) {
    if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0xFE00 && cp <= 0xFE0F))
        return 0;
    if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) || (cp >= 0xAC00 && cp <= 0xD7A3) ||
        (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
        (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
        (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD))
        return 2;
    return 1;
}

static int display_width(const char *s) {
    int w = 0;
    uint32_t cp;
    for (const unsigned char *p = (const unsigned char *)s; *p; p += utf8_next(p, &cp))
        w += cp_width((utf8_next(p, &cp), cp));
    return w;
}

static void pad(FILE *out, int n) {
    for (int i = 0; i < n; i++)
        fputc(' ', out);
}

/* ---- table mode ------------------------------------------------------------------------- */

static bool reserve(void **p, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return true;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * size);
    if (!q) return false;
    *p = q;
    *cap = n;
    return true;
}

/* hold_text appends the display form of v (control characters as \n, \t, \r or \xHH; NULL as
** NULL) to the held text and returns its offset, or SIZE_MAX when out of memory. */
static size_t hold_text(renderer *r, const char *v) {
    if (!v) v = r->null_text ? r->null_text : "NULL";
    size_t n = strlen(v);
    if (!reserve((void **)&r->text, &r->text_cap, r->text_len + 4 * n + 1, 1)) return SIZE_MAX;
    size_t off = r->text_len;
    char *o = r->text + off;
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if (*p >= 0x20 && *p != 0x7F) {
            *o++ = (char)*p;
        } else {
            *o++ = '\\';
            if (*p == '\n')
                *o++ = 'n';
            else if (*p == '\t')
                *o++ = 't';
            else if (*p == '\r')
                *o++ = 'r';
            else
                o += sprintf(o, "x%02X", *p);
        }
    }
    *o++ = '\0';
    r->text_len = (size_t)(o - r->text);
    return off;
}

static void table_line(renderer *r, const char *left, const char *mid, const char *right) {
    fputs(left, r->out);
    for (int i = 0; i < r->ncol; i++) {
        for (int k = 0; k < r->width[i] + 2; k++)
            fputs("─", r->out);
        fputs(i + 1 < r->ncol ? mid : right, r->out);
    }
    fputc('\n', r->out);
}

enum { ALIGN_LEFT, ALIGN_RIGHT, ALIGN_CENTRE };

/* table_cell writes s within w columns (cut with "…" when wider), aligned as align says. */
static void table_cell(renderer *r, const char *s, int w, int align) {
    int sw = display_width(s);
    fputs("│ ", r->out);
    if (sw <= w) {
        int before = align == ALIGN_RIGHT ? w - sw : align == ALIGN_CENTRE ? (w - sw) / 2 : 0;
        pad(r->out, before);
        fputs(s, r->out);
        pad(r->out, w - sw - before);
    } else {
        int used = 0;
        uint32_t cp;
        const unsigned char *p = (const unsigned char *)s;
        while (*p) {
            int n = utf8_next(p, &cp), cw = cp_width(cp);
            if (used + cw > w - 1) break;
            fwrite(p, 1, (size_t)n, r->out);
            used += cw;
            p += n;
        }
        pad(r->out, w - 1 - used);
        fputs("…", r->out);
    }
    fputc(' ', r->out);
}

static void table_row(renderer *r, const size_t *cell, const unsigned char *kind) {
    for (int i = 0; i < r->ncol; i++)
        table_cell(r, r->text + cell[i], r->width[i],
                   kind[i] == KIND_NUMBER || r->fixed[i] < 0 ? ALIGN_RIGHT : ALIGN_LEFT);
    fputs("│\n", r->out);
}

/* table_start fixes the widths from the names and the held rows, writes the top, the header
** and the held rows, and lets the held text go. */
static void table_start(renderer *r) {
    for (int i = 0; i < r->ncol; i++) {
        if (r->fixed[i]) {
            r->width[i] = abs(r->fixed[i]);
            continue;
        }
        r->width[i] = r->headers ? display_width(r->names[i]) : 1;
        if (r->width[i] < 1) r->width[i] = 1;
        for (size_t k = 0; k < r->held; k++) {
            int w = display_width(r->text + r->cell[k * (size_t)r->ncol + (size_t)i]);
            if (w > r->width[i]) r->width[i] = w;
        }
    }
    if (r->headers || r->held) table_line(r, "┌", "┬", "┐");
    if (r->headers) {
        for (int i = 0; i < r->ncol; i++)
            table_cell(r, r->names[i], r->width[i], ALIGN_CENTRE);
        fputs("│\n", r->out);
        if (r->held) table_line(r, "├", "┼", "┤");
    }
    for (size_t k = 0; k < r->held; k++)
        table_row(r, r->cell + k * (size_t)r->ncol, r->kind + k * (size_t)r->ncol);
    r->rows += (long)r->held;
    r->held = 0;
    r->text_len = 0;
    r->started = true;
}

static bool table_add(renderer *r, const char *const *values, const value_kind *kinds) {
    size_t need = (r->held + 1) * (size_t)r->ncol;
    if (!reserve((void **)&r->cell, &r->held_cap, need, sizeof *r->cell)) return false;
    if (!reserve((void **)&r->kind, &r->kind_cap, need, 1)) return false;
    size_t mark = r->text_len, *cell = r->cell + r->held * (size_t)r->ncol;
    for (int i = 0; i < r->ncol; i++) {
        cell[i] = hold_text(r, values[i]);
        if (cell[i] == SIZE_MAX) {
            r->text_len = mark;
            return false;
        }
        r->kind[r->held * (size_t)r->ncol + (size_t)i] = (unsigned char)kinds[i];
    }
    r->held++;
    if (r->started) { /* past the buffer: one row at a time to the widths already written */
        table_row(r, cell, r->kind + (r->held - 1) * (size_t)r->ncol);
        r->rows++;
        r->held = 0;
        r->text_len = 0;
    } else if (r->held == RENDER_TABLE_BUFFER) {
        table_start(r);
    }
    return true;
}

/* ---- the streaming modes ---------------------------------------------------------------- */

/* csv_field writes v quoted as RFC 4180 asks: when it holds a comma, a quote, CR or LF (and,
** so that it reads back as text, when it is empty or has space at either end). */
static void csv_field(FILE *out, const char *v, const char *null_text) {
    if (!v) v = null_text;
    if (!v) return;
    size_t n = strlen(v);
    bool quote = strpbrk(v, ",\"\r\n") != NULL || n == 0 || v[0] == ' ' || v[n - 1] == ' ';
    if (!quote) {
        fputs(v, out);
        return;
    }
    fputc('"', out);
    for (const char *p = v; *p; p++) {
        if (*p == '"') fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

static void csv_line(renderer *r, const char *const *values) {
    for (int i = 0; i < r->ncol; i++) {
        if (i) fputc(',', r->out);
        csv_field(r->out, values[i], r->null_text);
    }
    fputc('\n', r->out);
}

static void json_string(FILE *out, const char *v) {
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        case '\b': fputs("\\b", out); break;
        case '\f': fputs("\\f", out); break;
        default:
            if (*p < 0x20 || *p == 0x7F)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

/* json_bare says whether a number's text is a JSON number (not NaN or Infinity). */
static bool json_bare(const char *v) {
    const char *p = v + (*v == '-');
    return *p >= '0' && *p <= '9';
}

static void json_row(renderer *r, const char *const *values, const value_kind *kinds) {
    fputs(r->rows == 0 ? "[{" : ",\n{", r->out);
    for (int i = 0; i < r->ncol; i++) {
        if (i) fputc(',', r->out);
        json_string(r->out, r->names[i]);
        fputc(':', r->out);
        if (!values[i])
            fputs("null", r->out);
        else if ((kinds[i] == KIND_NUMBER && json_bare(values[i])) || kinds[i] == KIND_BOOLEAN)
            fputs(values[i], r->out);
        else
            json_string(r->out, values[i]);
    }
    fputc('}', r->out);
}

static void line_row(renderer *r, const char *const *values) {
    int w = 0;
    for (int i = 0; i < r->ncol; i++) {
        int nw = display_width(r->names[i]);
        if (nw > w) w = nw;
    }
    if (r->rows > 0) fputc('\n', r->out);
    for (int i = 0; i < r->ncol; i++) {
        pad(r->out, w - display_width(r->names[i]));
        fprintf(r->out, "%s = %s\n", r->names[i],
                values[i]      ? values[i]
                : r->null_text ? r->null_text
                               : "NULL");
    }
}

static void list_line(renderer *r, const char *const *values) {
    for (int i = 0; i < r->ncol; i++) {
        if (i) fputc('|', r->out);
        fputs(values[i] ? values[i] : r->null_text ? r->null_text : "NULL", r->out);
    }
    fputc('\n', r->out);
}

/* ---- entry points ----------------------------------------------------------------------- */

renderer *render_begin(FILE *out, const render_options *opt, int ncol, const char *const *names) {
    renderer *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->out = out;
    r->mode = opt->mode;
    r->headers = opt->headers;
    r->null_text = opt->null_text;
    r->ncol = ncol;
    r->names = calloc((size_t)ncol + 1, sizeof *r->names);
    r->width = calloc((size_t)ncol + 1, sizeof *r->width);
    r->fixed = calloc((size_t)ncol + 1, sizeof *r->fixed);
    if (!r->names || !r->width || !r->fixed) goto fail;
    for (int i = 0; i < ncol; i++) {
        if (!(r->names[i] = strdup(names[i] ? names[i] : ""))) goto fail;
        if (i < opt->nwidths) r->fixed[i] = opt->widths[i];
    }
    if (r->headers && ncol > 0) {
        if (r->mode == MODE_CSV) csv_line(r, (const char *const *)r->names);
        if (r->mode == MODE_LIST) list_line(r, (const char *const *)r->names);
    }
    return r;
fail:
    if (r->names)
        for (int i = 0; i < ncol; i++)
            free(r->names[i]);
    free(r->names);
    free(r->width);
    free(r->fixed);
    free(r);
    return NULL;
}

bool render_row(renderer *r, const char *const *values, const value_kind *kinds) {
    switch (r->mode) {
    case MODE_TABLE: return table_add(r, values, kinds);
    case MODE_CSV: csv_line(r, values); break;
    case MODE_JSON: json_row(r, values, kinds); break;
    case MODE_LINE: line_row(r, values); break;
    case MODE_LIST: list_line(r, values); break;
    }
    r->rows++;
    return true;
}

void render_end(renderer *r) {
    if (!r) return;
    if (r->mode == MODE_TABLE && r->ncol > 0) {
        if (!r->started) table_start(r);
        if (r->headers || r->rows > 0) table_line(r, "└", "┴", "┘");
    }
    if (r->mode == MODE_JSON && r->ncol > 0) fputs(r->rows ? "]\n" : "[]\n", r->out);
    if (r->names)
        for (int i = 0; i < r->ncol; i++)
            free(r->names[i]);
    free(r->names);
    free(r->width);
    free(r->fixed);
    free(r->text);
    free(r->cell);
    free(r->kind);
    free(r);
}
