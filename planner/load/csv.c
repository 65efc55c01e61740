/*
** csv.c -- the CSV reader and writer (csv.h).
**
** Reading is two steps per record. scan_record finds the record's fields in the block buffer
** without changing a byte: their offsets, lengths and whether they were quoted or hold escapes.
** When the record does not end inside the buffer, the caller refills (moving the record's start
** to the front, growing the buffer when the record fills more than half of it) and scans the
** record again from its start; growth by doubling keeps that rescanning linear. Then the fields of
** a complete record are parsed into the chunk's row. Because the buffer is never changed in
** place, a rejected record's raw text is still there for the callback, and the first record can be
** looked at (csv_reader_header) and then read again as data.
**
** The buffer always has one byte past its data, set to '\n', and SCAN_PAD zero bytes after it: the
** scanner finds special bytes 16 at a time with SSE2 compares (through simde, so the same code
** builds for plain x86-64, NEON or scalar C) and stops at the sentinel at the latest, so it tests
** for the end of the data only where it stops, never per byte.
*/
#include "load/csv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simde/x86/sse2.h>

#define QUOTE_MAX 100                   /* bytes of a value quoted in a message */
#define WRITE_BUF (64u << 10)           /* the writer's output buffer */
#define SNIFF_RECORDS 100               /* records csv_sniff looks at */
#define FMT_MAX 64                      /* bytes of a dateformat or timestampformat */
#define FMT_TEXT_MAX (FMT_MAX * 20 + 1) /* its output: at most 20 bytes a format byte */

enum { F_QUOTED = 1, F_ESCAPED = 2 };

typedef struct field {
    size_t off; /* offset in the buffer of the first content byte (after an opening quote) */
    size_t len; /* content bytes, escapes not yet removed */
    unsigned flags;
} field;

typedef enum scan_status { SCAN_RECORD, SCAN_MORE, SCAN_END, SCAN_BAD, SCAN_NOMEM } scan_status;
typedef enum bad_kind { BAD_UNTERMINATED, BAD_QUOTE, BAD_AFTER_QUOTE } bad_kind;

/* The splitter: options, and the result of the last scan. */
typedef struct scanner {
    unsigned char delim, quote, escape;
    field *fields;
    uint32_t nfields, cap_fields;
    size_t text_end;    /* where the record's bytes end (its line end starts) */
    size_t rec_end;     /* where the next record starts */
    uint64_t lines;     /* line ends the record spans, its own included */
    bool ascii;         /* no byte of the record has the high bit set: no UTF-8 to check */
    bad_kind bad;       /* SCAN_BAD: what */
    uint32_t bad_field; /* in which field (0-based) */
    size_t bad_off;     /* at which offset */
} scanner;

static void scanner_init(scanner *s, char delim, char quote, char escape) {
    memset(s, 0, sizeof *s);
    s->delim = (unsigned char)delim, s->quote = (unsigned char)quote, s->escape = (unsigned char)escape;
}

static void scanner_free(scanner *s) {
    free(s->fields);
    s->fields = NULL;
}

static bool grow_fields(scanner *s) {
    uint32_t cap = s->cap_fields ? s->cap_fields * 2 : 64;
    field *f = realloc(s->fields, (size_t)cap * sizeof *f);
    if (f == NULL) return false;
    s->fields = f, s->cap_fields = cap;
    return true;
}

/* The special bytes are found 16 at a time (SSE2, which every x86-64 has; simde maps it to NEON
** or plain C elsewhere): match16 gives a bit per byte of p[0..16) equal to one of four bytes.
** Loads may read up to SCAN_PAD bytes past the sentinel, which buffers allocate (and clear). */
#define SCAN_PAD 64

typedef struct match4 {
    simde__m128i a, b, c, d;
} match4;

static inline match4 match4_make(unsigned char a, unsigned char b, unsigned char c, unsigned char d) {
    match4 m = {simde_mm_set1_epi8((char)a), simde_mm_set1_epi8((char)b), simde_mm_set1_epi8((char)c),
                simde_mm_set1_epi8((char)d)};
    return m;
}

/* match16 also ORs the high bits of the 16 bytes into *high (non-ASCII seen). */
static inline uint32_t match16(const unsigned char *p, const match4 *m, uint32_t *high) {
    simde__m128i x = simde_mm_loadu_si128((const simde__m128i *)(const void *)p);
    simde__m128i e =
        simde_mm_or_si128(simde_mm_or_si128(simde_mm_cmpeq_epi8(x, m->a), simde_mm_cmpeq_epi8(x, m->b)),
                          simde_mm_or_si128(simde_mm_cmpeq_epi8(x, m->c), simde_mm_cmpeq_epi8(x, m->d)));
    *high |= (uint32_t)simde_mm_movemask_epi8(x);
    return (uint32_t)simde_mm_movemask_epi8(e);
}

static inline uint64_t match64(const unsigned char *p, const match4 *m, uint32_t *high) {
    return (uint64_t)match16(p, m, high) | (uint64_t)match16(p + 16, m, high) << 16 |
           (uint64_t)match16(p + 32, m, high) << 32 | (uint64_t)match16(p + 48, m, high) << 48;
}

/* find16 returns the first byte at or after p that m matches (the sentinel stops it). */
static inline const unsigned char *find16(const unsigned char *p, const match4 *m, uint32_t *high) {
    for (;;) {
        uint32_t bits = match16(p, m, high);
        if (bits) return p + __builtin_ctz(bits);
        p += 16;
    }
}

/* scan_record splits the record at buf[pos..end), where buf[end] is the '\n' sentinel and eof says
** whether more bytes may follow end. SCAN_RECORD: s->fields[0..nfields), text_end, rec_end and
** lines describe it. SCAN_MORE: the record (or the byte after a CR or a quote, which decides its
** meaning) goes past end. SCAN_END: no bytes are left. SCAN_BAD: a structural error (s->bad,
** bad_field, bad_off).
** Unquoted fields, nearly all of them, are found through a bit mask of the special bytes of 64
** bytes at a time, kept from one field to the next: a field costs a count of trailing zeros, with
** no loop over its bytes whose end the processor would mispredict. */
static scan_status scan_record(scanner *s, const char *buf, size_t pos, size_t end, bool eof) {
    const unsigned char *base = (const unsigned char *)buf;
    const unsigned char *p = base + pos, *e = base + end;
    const unsigned char delim = s->delim, quote = s->quote, escape = s->escape;
    const match4 plain = match4_make(delim, quote, '\n', '\r');
    const match4 quoted = match4_make(quote, escape, '\n', '\r');
    const unsigned char *blk = p; /* mask: the special bytes of blk[0..64) */
    uint32_t high = 0;            /* high bits of every byte loaded: a superset of the record's */
    uint64_t mask = match64(blk, &plain, &high);
    uint64_t lines = 0;
    uint32_t nf = 0;
    if (p == e) return eof ? SCAN_END : SCAN_MORE;
    for (;;) {
        if (nf == s->cap_fields && !grow_fields(s)) return SCAN_NOMEM;
        field *f = &s->fields[nf++];
        unsigned char c;
        if (*p != quote) { /* at e, *p is the sentinel '\n', never the quote */
            const unsigned char *start = p;
            for (;;) {
                size_t off = (size_t)(p - blk);
                if (off < 64) {
                    uint64_t m = mask >> off;
                    if (m) {
                        p += __builtin_ctzll(m);
                        break;
                    }
                    p = blk + 64;
                }
                blk = p;
                mask = match64(blk, &plain, &high);
            }
            f->off = (size_t)(start - base), f->len = (size_t)(p - start), f->flags = 0;
            if (p == e) goto at_end;
            c = *p;
            if (c == delim) {
                p++;
                continue;
            }
            if (c == quote) {
                s->bad = BAD_QUOTE, s->bad_field = nf - 1, s->bad_off = (size_t)(p - base);
                return SCAN_BAD;
            }
            goto line_end;
        }
        const unsigned char *start = ++p;
        unsigned flags = F_QUOTED;
        for (;;) {
            p = find16(p, &quoted, &high);
            if (p == e) goto unterminated;
            c = *p;
            if (c == '\n') {
                lines++, p++;
            } else if (c == '\r') {
                if (p + 1 == e) goto unterminated;
                lines += p[1] != '\n';
                p++;
            } else if (c == escape && escape != quote) {
                if (p + 1 == e) goto unterminated;
                if (p[1] == quote || p[1] == escape) {
                    flags |= F_ESCAPED;
                    p += 2;
                } else {
                    p++;
                }
            } else { /* the quote: closing, or doubled when it is also the escape */
                if (p + 1 == e && !eof) return SCAN_MORE;
                if (escape == quote && p + 1 < e && p[1] == quote) {
                    flags |= F_ESCAPED;
                    p += 2;
                    continue;
                }
                break;
            }
        }
        f->off = (size_t)(start - base), f->len = (size_t)(p - start), f->flags = flags;
        p++; /* the closing quote */
        if (p == e) goto at_end;
        c = *p;
        if (c == delim) {
            p++;
            continue;
        }
        if (c != '\n' && c != '\r') {
            s->bad = BAD_AFTER_QUOTE, s->bad_field = nf - 1, s->bad_off = (size_t)(p - base);
            return SCAN_BAD;
        }
        goto line_end;
    unterminated:
        if (!eof) return SCAN_MORE;
        s->bad = BAD_UNTERMINATED, s->bad_field = nf - 1, s->bad_off = (size_t)(start - 1 - base);
        return SCAN_BAD;
    }
at_end:
    if (!eof) return SCAN_MORE;
    s->nfields = nf, s->text_end = s->rec_end = end, s->lines = lines, s->ascii = high == 0;
    return SCAN_RECORD;
line_end: /* *p is CR or LF */
    if (*p == '\r') {
        if (p + 1 == e && !eof) return SCAN_MORE;
        s->text_end = (size_t)(p - base);
        p += 1 + (p + 1 < e && p[1] == '\n');
    } else {
        s->text_end = (size_t)(p - base);
        p++;
    }
    s->nfields = nf, s->rec_end = (size_t)(p - base), s->lines = lines + 1, s->ascii = high == 0;
    return SCAN_RECORD;
}

/* count_lines counts the line ends (LF, CRLF, lone CR) in p[0..n). */
static uint64_t count_lines(const char *p, size_t n) {
    uint64_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += p[i] == '\n' || (p[i] == '\r' && (i + 1 == n || p[i + 1] != '\n'));
    return k;
}

/* ---- UTF-8 ---- */

/* utf8_bad returns the offset of the first invalid sequence in s[0..n) (overlong forms,
** surrogates, code points above U+10FFFF and truncated sequences are invalid), n when all is
** valid; *badlen gets the bytes of the bad sequence to show. */
static size_t utf8_bad(const unsigned char *s, size_t n, size_t *badlen) {
    size_t i = 0;
    while (i < n) {
        if (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if ((w & UINT64_C(0x8080808080808080)) == 0) {
                i += 8;
                continue;
            }
        }
        unsigned c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t need;
        unsigned lo = 0x80, hi = 0xBF; /* the second byte's range */
        if (c >= 0xC2 && c <= 0xDF)
            need = 1;
        else if (c >= 0xE0 && c <= 0xEF)
            need = 2, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        else if (c >= 0xF0 && c <= 0xF4)
            need = 3, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        else
            need = 0;
        size_t show = c >= 0xF0 && c <= 0xF7   ? 4
                      : c >= 0xE0 && c <= 0xEF ? 3
                      : c >= 0xC0 && c <= 0xDF ? 2
                                               : 1;
        *badlen = show < n - i ? show : n - i; /* the bytes the lead byte announces */
        if (need == 0 || i + need >= n) return i;
        if (s[i + 1] < lo || s[i + 1] > hi) return i;
        for (size_t k = 2; k <= need; k++)
            if ((s[i + k] & 0xC0) != 0x80) return i;
        i += need + 1;
    }
    return n;
}

/* ---- date and timestamp formats ---- */

static const char *const month_names[12] = {"january",   "february", "march",    "april",
                                            "may",       "june",     "july",     "august",
                                            "september", "october",  "november", "december"};

/* fmt_check validates a dateformat (is_date) or timestampformat. */
static int fmt_check(const char *fmt, bool is_date, strata_err *err) {
    const char *what = is_date ? "dateformat" : "timestampformat";
    bool y = false, m = false, d = false;
    if (strlen(fmt) > FMT_MAX)
        return err_set(err, STRATA_ERROR, "CSV %s is longer than %d bytes", what, FMT_MAX);
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') continue;
        switch (*++p) {
        case 'Y':
        case 'y': y = true; break;
        case 'm':
        case 'b':
        case 'B': m = true; break;
        case 'd': d = true; break;
        case 'H':
        case 'M':
        case 'S':
        case 'f':
            if (is_date)
                return err_set(err, STRATA_ERROR, "CSV %s \"%s\": %%%c is not a date field", what, fmt, *p);
            break;
        case '%': break;
        case '\0': return err_set(err, STRATA_ERROR, "CSV %s \"%s\" ends with a lone %%", what, fmt);
        default: return err_set(err, STRATA_ERROR, "CSV %s \"%s\": unknown field %%%c", what, fmt, *p);
        }
    }
    if (!y || !m || !d)
        return err_set(err, STRATA_ERROR,
                       "CSV %s \"%s\" needs a year (%%Y or %%y), a month (%%m, %%b) and a day (%%d)", what,
                       fmt);
    return STRATA_OK;
}

/* digits_at reads 1..max digits at *p (before end). */
static bool digits_at(const char **p, const char *end, int max, int64_t *v, int *count) {
    int n = 0;
    int64_t x = 0;
    while (*p < end && n < max && **p >= '0' && **p <= '9')
        x = x * 10 + (*(*p)++ - '0'), n++;
    *v = x;
    if (count) *count = n;
    return n > 0;
}

static char lower_ascii(char c) { return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c; }

/* month_at reads an English month name, full or its first three letters, in any case. */
static bool month_at(const char **p, const char *end, int64_t *month) {
    for (int full = 1; full >= 0; full--)
        for (int i = 0; i < 12; i++) {
            size_t n = full ? strlen(month_names[i]) : 3;
            if ((size_t)(end - *p) < n) continue;
            size_t k = 0;
            while (k < n && lower_ascii((*p)[k]) == month_names[i][k])
                k++;
            if (k == n) {
                *p += n;
                *month = i + 1;
                return true;
            }
        }
    return false;
}

typedef enum fmt_status { FMT_OK, FMT_SYNTAX, FMT_FIELD } fmt_status;

/* fmt_parse reads s[0..len) by fmt into a day number and microseconds since midnight. */
static fmt_status fmt_parse(const char *fmt, const char *s, size_t len, int64_t *days, int64_t *micros) {
    const char *p = s, *end = s + len;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    int64_t y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0, frac = 0;
    int n;
    for (const char *f = fmt; *f; f++) {
        if (*f != '%' || f[1] == '%') {
            if (*f == '%') f++;
            if (p == end || *p != *f) return FMT_SYNTAX;
            p++;
            continue;
        }
        bool ok;
        switch (*++f) {
        case 'Y': ok = digits_at(&p, end, 4, &y, NULL); break;
        case 'y':
            ok = digits_at(&p, end, 2, &y, &n) && n == 2;
            y += y < 69 ? 2000 : 1900;
            break;
        case 'm': ok = digits_at(&p, end, 2, &mo, NULL); break;
        case 'b':
        case 'B': ok = month_at(&p, end, &mo); break;
        case 'd': ok = digits_at(&p, end, 2, &d, NULL); break;
        case 'H': ok = digits_at(&p, end, 2, &h, NULL); break;
        case 'M': ok = digits_at(&p, end, 2, &mi, NULL); break;
        case 'S': ok = digits_at(&p, end, 2, &sec, NULL); break;
        default: /* 'f', the only other field fmt_check lets through */
            ok = digits_at(&p, end, 6, &frac, &n);
            for (; ok && n < 6; n++)
                frac *= 10;
            break;
        }
        if (!ok) return FMT_SYNTAX;
    }
    if (p != end) return FMT_SYNTAX;
    if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > date_days_in_month(y, (int)mo)) return FMT_FIELD;
    if (h > 23 || mi > 59 || sec > 59) return FMT_FIELD;
    *days = date_from_ymd(y, (int)mo, (int)d);
    *micros = h * MICROS_PER_HOUR + mi * MICROS_PER_MINUTE + sec * MICROS_PER_SEC + frac;
    return FMT_OK;
}

static char *put_digits(char *o, int64_t v, int width) {
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0);
    for (; n < width; width--)
        *o++ = '0';
    while (n > 0)
        *o++ = tmp[--n];
    return o;
}

/* fmt_write writes a day and microseconds since midnight by fmt (at most FMT_MAX bytes) into buf
** of FMT_TEXT_MAX bytes. Returns the length. */
static size_t fmt_write(const char *fmt, int64_t days, int64_t micros, char *buf) {
    int64_t y;
    int m, d;
    date_to_ymd(days, &y, &m, &d);
    char *o = buf;
    for (const char *f = fmt; *f; f++) {
        if (*f != '%') {
            *o++ = *f;
            continue;
        }
        switch (*++f) {
        case 'Y': o = put_digits(o, y, 4); break;
        case 'y': o = put_digits(o, y % 100, 2); break;
        case 'm': o = put_digits(o, m, 2); break;
        case 'd': o = put_digits(o, d, 2); break;
        case 'b':
        case 'B': {
            size_t n = *f == 'b' ? 3 : strlen(month_names[m - 1]);
            memcpy(o, month_names[m - 1], n);
            o[0] = (char)(o[0] - 32);
            o += n;
            break;
        }
        case 'H': o = put_digits(o, micros / MICROS_PER_HOUR, 2); break;
        case 'M': o = put_digits(o, micros / MICROS_PER_MINUTE % 60, 2); break;
        case 'S': o = put_digits(o, micros / MICROS_PER_SEC % 60, 2); break;
        case 'f': o = put_digits(o, micros % MICROS_PER_SEC, 6); break;
        default: *o++ = *f; break; /* %% */
        }
    }
    *o = '\0';
    return (size_t)(o - buf);
}

/* ---- options ---- */

typedef struct opts {
    char delim, quote, escape;
    bool header, trailing;
    char *null_str; /* owned copies */
    size_t null_len;
    char *datefmt, *tsfmt;
    csv_reject_fn reject;
    void *reject_arg;
    size_t block;
} opts;

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c) memcpy(c, s, n);
    return c;
}

static void opts_free(opts *o) {
    free(o->null_str);
    free(o->datefmt);
    free(o->tsfmt);
    o->null_str = o->datefmt = o->tsfmt = NULL;
}

static const char *byte_name(char c, char *buf) {
    if (c == '\t') return "tab";
    if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
        snprintf(buf, 8, "0x%02x", (unsigned char)c);
    else
        snprintf(buf, 8, "'%c'", c);
    return buf;
}

/* opts_make checks the caller's options and fills in the defaults; with copy, the strings are
** copied (the reader keeps them), else they point at the caller's (the writer, during a call). */
static int opts_make(opts *o, const csv_options *in, bool copy, strata_err *err) {
    static const csv_options defaults;
    if (in == NULL) in = &defaults;
    memset(o, 0, sizeof *o);
    o->delim = in->delimiter ? in->delimiter : ',';
    o->quote = in->quote ? in->quote : '"';
    o->escape = in->escape ? in->escape : o->quote;
    o->header = in->header, o->trailing = in->trailing_delimiter;
    o->reject = in->reject, o->reject_arg = in->reject_arg;
    o->block = in->block_size ? in->block_size : CSV_BLOCK_SIZE;
    const char *ns = in->null_string ? in->null_string : "";
    o->null_len = strlen(ns);
    char b1[8];
    if (o->delim == '\n' || o->delim == '\r' || o->quote == '\n' || o->quote == '\r' || o->escape == '\n' ||
        o->escape == '\r')
        return err_set(err, STRATA_ERROR, "CSV delimiter, quote and escape cannot be CR or LF");
    if (o->delim == o->quote)
        return err_set(err, STRATA_ERROR, "CSV delimiter and quote must differ (both %s)",
                       byte_name(o->delim, b1));
    if (o->delim == o->escape)
        return err_set(err, STRATA_ERROR, "CSV delimiter and escape must differ (both %s)",
                       byte_name(o->delim, b1));
    for (size_t i = 0; i < o->null_len; i++)
        if (ns[i] == o->delim || ns[i] == o->quote || ns[i] == '\r' || ns[i] == '\n')
            return err_set(err, STRATA_ERROR, "CSV null string \"%s\" must not contain %s", ns,
                           ns[i] == o->delim   ? "the delimiter"
                           : ns[i] == o->quote ? "the quote"
                                               : "a line end");
    int rc;
    if (in->dateformat && (rc = fmt_check(in->dateformat, true, err)) != STRATA_OK) return rc;
    if (in->timestampformat && (rc = fmt_check(in->timestampformat, false, err)) != STRATA_OK) return rc;
    if (!copy) {
        o->null_str = (char *)ns;
        o->datefmt = (char *)in->dateformat, o->tsfmt = (char *)in->timestampformat;
        return STRATA_OK;
    }
    o->null_str = dup_str(ns);
    o->datefmt = in->dateformat ? dup_str(in->dateformat) : NULL;
    o->tsfmt = in->timestampformat ? dup_str(in->timestampformat) : NULL;
    if (o->null_str == NULL || (in->dateformat && !o->datefmt) || (in->timestampformat && !o->tsfmt)) {
        opts_free(o);
        return err_set(err, STRATA_NOMEM, "out of memory opening a CSV reader");
    }
    return STRATA_OK;
}

/* ---- the reader ---- */

struct csv_reader {
    opts o;
    csv_read_fn read;
    void *arg;
    sql_type *types;
    char **names; /* NULL, or ncols names in one allocation with the array */
    uint32_t ncols;
    scanner sc;
    char *buf; /* cap + 1 + SCAN_PAD bytes: data at [pos, end), the sentinel at end, zeros after */
    size_t cap, pos, end;
    bool eof, started, next_called;
    bool header_read;   /* the first record was looked at (hdr) */
    bool no_bom;        /* csv_reader_set_range: the input starts at a record, not a file's start */
    uint64_t delivered; /* bytes the read function gave */
    uint64_t limit;     /* csv_reader_set_range: no record starting this far into the input is read */
    bool in_header;     /* reading it: its errors are never rejects */
    uint64_t line;      /* the line where buf[pos] is */
    uint64_t last_line; /* where the last record read starts */
    uint64_t rows, rejects;
    char **hdr; /* the first record's fields, in one allocation */
    uint32_t nhdr;
    char *scratch; /* an escaped field without its escapes */
    size_t scratch_cap;
    arena blobs;     /* BLOB values decoded before vec_set_str copies them; reset per chunk */
    uint64_t row_line[VECTOR_SIZE]; /* where each row of the last chunk starts */
    const char *row_text[VECTOR_SIZE]; /* reject mode: each row's record bytes, copied into texts */
    size_t row_text_len[VECTOR_SIZE];
    arena texts;     /* reject mode: the last chunk's record bytes; reset per chunk */
    strata_err perr; /* a value parser's message */
    strata_err err;  /* the reader's own error, kept once it failed */
    int failed;
};

/* seal puts the sentinel after the data and clears the padding the vector loads may read. */
static void seal(csv_reader *r) {
    r->buf[r->end] = '\n';
    memset(r->buf + r->end + 1, 0, SCAN_PAD);
}

/* fill moves the unread bytes to the front and reads until the buffer is full or the input ends;
** when the unread bytes (a record longer than the rest of the block) fill more than half the
** buffer, it grows first, so every refill reads at least half a buffer. */
static int fill(csv_reader *r) {
    size_t keep = r->end - r->pos;
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, keep);
        r->pos = 0, r->end = keep;
    }
    if (r->eof) {
        seal(r);
        return STRATA_OK;
    }
    if (keep * 2 > r->cap || r->buf == NULL) {
        size_t cap = r->buf == NULL ? r->o.block : r->cap * 2;
        if (cap < keep + r->o.block && r->buf != NULL) cap = keep + r->o.block;
        char *b = realloc(r->buf, cap + 1 + SCAN_PAD);
        if (b == NULL)
            return err_set(&r->err, STRATA_NOMEM, "out of memory: a CSV record of more than %zu bytes", keep);
        r->buf = b, r->cap = cap;
    }
    while (r->end < r->cap) {
        size_t got = 0;
        int rc = r->read(r->arg, r->buf + r->end, r->cap - r->end, &got, &r->err);
        if (rc != STRATA_OK) {
            seal(r);
            return err_set(&r->err, rc, "CSV read failed");
        }
        if (got == 0) {
            r->eof = true;
            break;
        }
        if (got > r->cap - r->end) {
            seal(r);
            return err_set(&r->err, STRATA_MISUSE, "CSV read function returned %zu bytes for %zu", got,
                           r->cap - r->end);
        }
        r->end += got;
        r->delivered += got;
    }
    seal(r);
    return STRATA_OK;
}

/* start reads the first block and skips a byte order mark. */
static int start(csv_reader *r) {
    int rc = fill(r);
    while (rc == STRATA_OK && r->end < 3 && !r->eof)
        rc = fill(r); /* tiny blocks: a BOM needs three bytes */
    if (rc != STRATA_OK) return rc;
    if (!r->no_bom && r->end - r->pos >= 3 && memcmp(r->buf + r->pos, "\xEF\xBB\xBF", 3) == 0) r->pos += 3;
    r->started = true;
    return STRATA_OK;
}

/* scan scans the record that starts rel bytes after pos, refilling as needed (which keeps the
** bytes from pos on); never returns SCAN_MORE. */
static int scan(csv_reader *r, size_t rel, scan_status *st) {
    int rc;
    if (!r->started && (rc = start(r)) != STRATA_OK) return rc;
    for (;;) {
        *st = scan_record(&r->sc, r->buf, r->pos + rel, r->end, r->eof);
        if (*st == SCAN_NOMEM)
            return err_set(&r->err, STRATA_NOMEM, "out of memory: a CSV record of too many fields");
        if (*st != SCAN_MORE) return STRATA_OK;
        if ((rc = fill(r)) != STRATA_OK) return rc;
    }
}

/* unescape copies an escaped field to the scratch buffer without its escapes. NULL on out of
** memory. */
static const char *unescape(csv_reader *r, const field *f, size_t *len) {
    const char *s = r->buf + f->off;
    if (f->len > r->scratch_cap) {
        size_t cap = f->len > 2 * r->scratch_cap ? f->len : 2 * r->scratch_cap;
        char *b = realloc(r->scratch, cap);
        if (b == NULL) return NULL;
        r->scratch = b, r->scratch_cap = cap;
    }
    const char q = r->o.quote, e = r->o.escape;
    size_t o = 0;
    for (size_t i = 0; i < f->len; i++) {
        char c = s[i];
        if (c == e && i + 1 < f->len && (s[i + 1] == q || s[i + 1] == e)) c = s[++i];
        r->scratch[o++] = c;
    }
    *len = o;
    return r->scratch;
}

/* field_text gives a field's bytes without its escapes. NULL on out of memory. */
static inline const char *field_text(csv_reader *r, const field *f, size_t *len) {
    if (__builtin_expect(f->flags & F_ESCAPED, 0)) return unescape(r, f, len);
    *len = f->len;
    return r->buf + f->off;
}

/* blank_record: the record just scanned, which starts at offset from, is an empty line. */
static bool blank_record(const csv_reader *r, size_t from) {
    const scanner *s = &r->sc;
    return s->nfields == 1 && s->text_end == from && !(s->fields[0].flags & F_QUOTED);
}

static void drop_trailing(csv_reader *r) {
    scanner *s = &r->sc;
    if (r->o.trailing && s->nfields > 1 && s->fields[s->nfields - 1].len == 0 &&
        !(s->fields[s->nfields - 1].flags & F_QUOTED))
        s->nfields--;
}

/* bad_record reports a bad record starting at line, over text[0..len): to the reject callback, or
** as the reader's error. reason is printf-style. Returns STRATA_OK when reading goes on. */
static int bad_record(csv_reader *r, uint64_t line, uint32_t column, const char *text, size_t len,
                      const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int bad_record(csv_reader *r, uint64_t line, uint32_t column, const char *text, size_t len,
                      const char *fmt, ...) {
    char reason[STRATA_ERRMSG_MAX], msg[STRATA_ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    const char *name = r->names && column >= 1 && column <= r->ncols ? r->names[column - 1] : NULL;
    if (column == 0)
        snprintf(msg, sizeof msg, "CSV line %llu: %.440s", (unsigned long long)line, reason);
    else if (name)
        snprintf(msg, sizeof msg, "CSV line %llu, column %u (%.64s): %.380s", (unsigned long long)line,
                 column, name, reason);
    else
        snprintf(msg, sizeof msg, "CSV line %llu, column %u: %.440s", (unsigned long long)line, column,
                 reason);
    r->last_line = line;
    if (r->o.reject == NULL || r->in_header) return err_set(&r->err, STRATA_ERROR, "%s", msg);
    csv_reject rej = {.line = line,
                      .column = column,
                      .column_name = name,
                      .reason = reason,
                      .message = msg,
                      .text = text,
                      .text_len = len};
    r->rejects++;
    int rc = r->o.reject(r->o.reject_arg, &rej, &r->err);
    if (rc != STRATA_OK)
        return err_set(&r->err, rc, "CSV reading stopped at line %llu", (unsigned long long)line);
    return STRATA_OK;
}

/* structural handles SCAN_BAD: the record is taken to end at the end of its physical line (at
** the end of the input for an unterminated quote), reported, and skipped. */
static int structural(csv_reader *r) {
    scanner *s = &r->sc;
    size_t stop, next;
    if (s->bad == BAD_UNTERMINATED) {
        stop = next = r->end;
    } else {
        for (;;) { /* the next line end at or after the error */
            size_t i = s->bad_off;
            while (i < r->end && r->buf[i] != '\n' && r->buf[i] != '\r')
                i++;
            if ((i == r->end || (r->buf[i] == '\r' && i + 1 == r->end)) && !r->eof) {
                size_t rel = s->bad_off - r->pos;
                int rc = fill(r);
                if (rc != STRATA_OK) return rc;
                s->bad_off = r->pos + rel;
                continue;
            }
            stop = i;
            next = i == r->end ? i : i + 1 + (r->buf[i] == '\r' && i + 1 < r->end && r->buf[i + 1] == '\n');
            break;
        }
    }
    const char *text = r->buf + r->pos;
    size_t len = stop - r->pos;
    uint64_t line = r->line;
    uint32_t col = s->bad_field + 1;
    char badc = r->buf[s->bad_off], b[8];
    r->line += count_lines(text, next - r->pos);
    r->pos = next;
    switch (s->bad) {
    case BAD_UNTERMINATED:
        return bad_record(r, line, col, text, len, "unterminated quoted field at the end of the input");
    case BAD_QUOTE:
        return bad_record(r, line, col, text, len, "quote character %s inside an unquoted field",
                          byte_name(badc, b));
    default:
        return bad_record(r, line, col, text, len, "unexpected character %s after the closing quote",
                          byte_name(badc, b));
    }
}

/* copy_fields stores the fields of the record just scanned, which starts at line, as
** NUL-terminated strings in r->hdr; a header's must be UTF-8, a first data record's are whatever
** bytes they are (a BLOB column's may be anything). */
static int copy_fields(csv_reader *r, uint64_t line) {
    scanner *s = &r->sc;
    size_t total = 0;
    for (uint32_t i = 0; i < s->nfields; i++)
        total += s->fields[i].len + 1;
    free(r->hdr);
    r->hdr = malloc((size_t)s->nfields * sizeof(char *) + total);
    if (r->hdr == NULL) return err_set(&r->err, STRATA_NOMEM, "out of memory reading a CSV header");
    char *o = (char *)(r->hdr + s->nfields);
    for (uint32_t i = 0; i < s->nfields; i++) {
        size_t n, badlen;
        const char *t = field_text(r, &s->fields[i], &n);
        if (t == NULL) return err_set(&r->err, STRATA_NOMEM, "out of memory reading a CSV header");
        if (r->o.header && utf8_bad((const unsigned char *)t, n, &badlen) < n) /* names are text */
            return err_set(&r->err, STRATA_ERROR,
                           "CSV line %llu, column %u: invalid byte sequence for encoding \"UTF8\"",
                           (unsigned long long)line, i + 1);
        r->hdr[i] = o;
        memcpy(o, t, n);
        o[n] = '\0';
        o += n + 1;
    }
    r->nhdr = s->nfields;
    return STRATA_OK;
}

/* read_first does read_header's work. */
static int read_first(csv_reader *r) {
    scan_status st;
    size_t rel = 0;       /* where the record starts, from pos */
    uint64_t skipped = 0; /* lines of the empty lines before it */
    int rc;
    for (;;) {
        if ((rc = scan(r, rel, &st)) != STRATA_OK) return rc;
        if (st == SCAN_END) return STRATA_OK;
        if (st == SCAN_BAD) {
            r->pos += rel, r->line += skipped; /* the reader fails: nothing is read again */
            return structural(r);
        }
        if (!blank_record(r, r->pos + rel)) break;
        if (r->o.header) {
            r->line += r->sc.lines, r->pos = r->sc.rec_end;
        } else {
            skipped += r->sc.lines, rel = r->sc.rec_end - r->pos;
        }
    }
    drop_trailing(r);
    if ((rc = copy_fields(r, r->line + skipped)) != STRATA_OK) return rc;
    if (r->o.header) {
        r->last_line = r->line;
        r->line += r->sc.lines, r->pos = r->sc.rec_end;
    }
    return STRATA_OK;
}

/* read_header reads the first record that is not an empty line into r->hdr and consumes it when
** it is the header. Without a header nothing is consumed: the empty lines before it may be data
** (one column) and the record itself is. Errors here are never rejects. */
static int read_header(csv_reader *r) {
    r->header_read = r->in_header = true;
    int rc = read_first(r);
    r->in_header = false;
    return rc;
}

static int set_columns(csv_reader *r, const sql_type *types, const char *const *names, uint32_t ncols,
                       strata_err *err) {
    for (uint32_t i = 0; i < ncols; i++)
        if (types[i].id == TYPE_NULL || types[i].id >= TYPE_COUNT)
            return err_set(err, STRATA_MISUSE, "CSV column %u: type %u cannot be read", i + 1, types[i].id);
    sql_type *t = ncols ? malloc((size_t)ncols * sizeof *t) : NULL;
    char **nm = NULL;
    if (ncols && names) {
        size_t total = 0;
        for (uint32_t i = 0; i < ncols; i++)
            total += strlen(names[i] ? names[i] : "") + 1;
        nm = malloc((size_t)ncols * sizeof(char *) + total);
        if (nm) {
            char *o = (char *)(nm + ncols);
            for (uint32_t i = 0; i < ncols; i++) {
                size_t n = strlen(names[i] ? names[i] : "") + 1;
                memcpy(o, names[i] ? names[i] : "", n);
                nm[i] = o, o += n;
            }
        }
    }
    if ((ncols && t == NULL) || (ncols && names && nm == NULL)) {
        free(t);
        free(nm);
        return err_set(err, STRATA_NOMEM, "out of memory opening a CSV reader");
    }
    for (uint32_t i = 0; i < ncols; i++) {
        t[i] = types[i];
        if (t[i].id == TYPE_DECIMAL && t[i].precision == 0) t[i].precision = DEC_MAX_PRECISION;
    }
    free(r->types);
    free(r->names);
    r->types = t, r->names = nm, r->ncols = ncols;
    return STRATA_OK;
}

int csv_reader_open(csv_reader **out, const csv_options *opt, csv_read_fn read, void *arg,
                    const sql_type *types, const char *const *names, uint32_t ncols, strata_err *err) {
    *out = NULL;
    if (read == NULL || (ncols && types == NULL))
        return err_set(err, STRATA_MISUSE, "csv_reader_open needs a read function and the column types");
    csv_reader *r = calloc(1, sizeof *r);
    if (r == NULL) return err_set(err, STRATA_NOMEM, "out of memory opening a CSV reader");
    int rc = opts_make(&r->o, opt, true, err);
    if (rc != STRATA_OK) {
        free(r);
        return rc;
    }
    if ((rc = set_columns(r, types, names, ncols, err)) != STRATA_OK) {
        opts_free(&r->o);
        free(r);
        return rc;
    }
    scanner_init(&r->sc, r->o.delim, r->o.quote, r->o.escape);
    arena_init(&r->blobs, 0);
    arena_init(&r->texts, 0);
    r->read = read, r->arg = arg, r->line = 1, r->limit = UINT64_MAX;
    *out = r;
    return STRATA_OK;
}

/* failed records the reader's error as final and passes it on. */
static int failed(csv_reader *r, int rc, strata_err *err) {
    if (r->err.code == STRATA_OK) err_set(&r->err, rc, "CSV reading failed");
    r->failed = rc;
    return err_set(err, rc, "%s", r->err.msg);
}

int csv_reader_header(csv_reader *r, const char *const **fields, uint32_t *count, strata_err *err) {
    if (r->failed) return err_set(err, r->failed, "%s", r->err.msg);
    if (!r->header_read) {
        if (r->next_called) return err_set(err, STRATA_MISUSE, "csv_reader_header after csv_reader_next");
        int rc = read_header(r);
        if (rc != STRATA_OK) return failed(r, rc, err);
    }
    *count = r->nhdr;
    if (fields) *fields = (const char *const *)r->hdr;
    return STRATA_OK;
}

int csv_reader_set_columns(csv_reader *r, const sql_type *types, const char *const *names, uint32_t ncols,
                           strata_err *err) {
    if (r->next_called) return err_set(err, STRATA_MISUSE, "csv_reader_set_columns after csv_reader_next");
    if (ncols && types == NULL) return err_set(err, STRATA_MISUSE, "csv_reader_set_columns needs the types");
    return set_columns(r, types, names, ncols, err);
}

int csv_reader_set_range(csv_reader *r, uint64_t line, uint64_t limit, strata_err *err) {
    if (r->next_called || r->started)
        return err_set(err, STRATA_MISUSE, "csv_reader_set_range after the reader started");
    r->line = line, r->limit = limit;
    r->no_bom = r->header_read = true;
    return STRATA_OK;
}

int csv_reader_set_trailing(csv_reader *r, bool on, strata_err *err) {
    if (r->next_called) return err_set(err, STRATA_MISUSE, "csv_reader_set_trailing after csv_reader_next");
    r->o.trailing = on;
    return STRATA_OK;
}

/* ---- fields to values ---- */

static inline void set_valid(vector *v, uint32_t row) {
    if (v->validity) v->validity[row >> 6] |= (uint64_t)1 << (row & 63);
}

/* fast_int reads a plain optionally negative decimal of up to 18 digits; anything else (spaces,
** '+', overflow candidates) is left to int_parse, which also words the errors. */
static inline bool fast_int(const char *s, size_t n, int64_t *out) {
    size_t i = n > 0 && s[0] == '-';
    if (n == i || n > 18) return false;
    uint64_t v = 0;
    for (; i < n; i++) {
        unsigned d = (unsigned)(unsigned char)s[i] - '0';
        if (d > 9) return false;
        v = v * 10 + d;
    }
    *out = s[0] == '-' ? -(int64_t)v : (int64_t)v;
    return true;
}

/* fast_dec reads [-]digits[.digits] with at most `scale` fraction digits and at most 18 digits
** in all into a value at `scale`; the rest (rounding, exponents, spaces) is dec_parse's. */
static inline bool fast_dec(const char *s, size_t n, uint8_t scale, int64_t *out) {
    size_t i = n > 0 && s[0] == '-';
    if (n == i || n > 21) return false;
    uint64_t v = 0;
    int frac = -1, nd = 0;
    for (; i < n; i++) {
        unsigned d = (unsigned)(unsigned char)s[i] - '0';
        if (d <= 9) {
            v = v * 10 + d, nd++;
            if (frac >= 0) frac++;
        } else if (s[i] == '.' && frac < 0) {
            frac = 0;
        } else {
            return false;
        }
    }
    if (frac < 0) frac = 0;
    if (nd == 0 || frac > scale || nd + scale - frac > 18) return false;
    v *= (uint64_t)dec_pow10[scale - frac];
    *out = s[0] == '-' ? -(int64_t)v : (int64_t)v;
    return true;
}

/* fast_date reads exactly 'YYYY-MM-DD' of a valid date; the rest is date_parse's. */
static inline bool fast_date(const char *s, size_t n, int32_t *out) {
    if (n != 10 || s[4] != '-' || s[7] != '-') return false;
    int dg[8];
    static const int at[8] = {0, 1, 2, 3, 5, 6, 8, 9};
    for (int k = 0; k < 8; k++) {
        dg[k] = s[at[k]] - '0';
        if (dg[k] < 0 || dg[k] > 9) return false;
    }
    static const uint8_t dim[13] = {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    unsigned y = (unsigned)(dg[0] * 1000 + dg[1] * 100 + dg[2] * 10 + dg[3]);
    unsigned m = (unsigned)(dg[4] * 10 + dg[5]), d = (unsigned)(dg[6] * 10 + dg[7]);
    if (y == 0 || m < 1 || m > 12 || d < 1 || d > dim[m] || (m == 2 && d == 29 && !date_is_leap(y)))
        return false;
    /* date_from_ymd's days-from-civil, for years 1..9999 in unsigned arithmetic, inline */
    unsigned yy = y - (m <= 2), era = yy / 400, yoe = yy - era * 400;
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    *out = (int32_t)((int64_t)era * 146097 + doe - 719468);
    return true;
}

static int format_error(csv_reader *r, fmt_status st, const char *type, const char *fmt, const char *s,
                        size_t n) {
    int q = (int)(n > QUOTE_MAX ? QUOTE_MAX : n);
    if (st == FMT_SYNTAX)
        return err_set(&r->perr, STRATA_ERROR, "invalid input syntax for type %s: \"%.*s\" (format \"%s\")",
                       type, q, s, fmt);
    return err_set(&r->perr, STRATA_ERROR, "date/time field value out of range: \"%.*s\"", q, s);
}

/* parse_value stores the text s[0..n) as row `row` of v (valid), a column of type t. STRATA_ERROR:
** the value is bad, the reason is in r->perr; other codes are the reader's own failures (r->err). */
static int parse_value(csv_reader *r, sql_type t, vector *v, uint32_t row, const char *s, size_t n) {
    int64_t i64;
    int rc = STRATA_OK;
    switch (t.id) {
    case TYPE_BOOLEAN: {
        bool b;
        if ((rc = bool_parse(s, n, &b, &r->perr)) == STRATA_OK) VEC_DATA(v, uint8_t)[row] = b;
        break;
    }
    case TYPE_SMALLINT:
    case TYPE_INTEGER:
    case TYPE_BIGINT:
        if (!fast_int(s, n, &i64) || (t.id == TYPE_SMALLINT && (i64 < INT16_MIN || i64 > INT16_MAX)) ||
            (t.id == TYPE_INTEGER && (i64 < INT32_MIN || i64 > INT32_MAX)))
            rc = int_parse(t.id, s, n, &i64, &r->perr);
        if (rc == STRATA_OK) {
            if (t.id == TYPE_SMALLINT)
                VEC_DATA(v, int16_t)[row] = (int16_t)i64;
            else if (t.id == TYPE_INTEGER)
                VEC_DATA(v, int32_t)[row] = (int32_t)i64;
            else
                VEC_DATA(v, int64_t)[row] = i64;
        }
        break;
    case TYPE_DOUBLE: rc = dbl_parse(s, n, &VEC_DATA(v, double)[row], &r->perr); break;
    case TYPE_DECIMAL:
        if (!fast_dec(s, n, t.scale, &i64) || i64 >= dec_pow10[t.precision] || i64 <= -dec_pow10[t.precision])
            rc = dec_parse(s, n, t.precision, t.scale, &i64, &r->perr);
        if (rc == STRATA_OK) VEC_DATA(v, int64_t)[row] = i64;
        break;
    case TYPE_VARCHAR: {
        size_t bad, badlen = 0;
        if (!r->sc.ascii && (bad = utf8_bad((const unsigned char *)s, n, &badlen)) < n) {
            char hex[32] = "";
            for (size_t k = 0; k < badlen; k++)
                snprintf(hex + strlen(hex), sizeof hex - strlen(hex), "%s0x%02x", k ? " " : "",
                         (unsigned char)s[bad + k]);
            return err_set(&r->perr, STRATA_ERROR, "invalid byte sequence for encoding \"UTF8\": %s", hex);
        }
        if (t.max_len && n > t.max_len &&
            (rc = varchar_check(s, n, t.max_len, false, &n, &r->perr)) != STRATA_OK)
            return rc;
        rc = vec_set_str(v, row, s, n, &r->err);
        if (rc == STRATA_TOOBIG) {
            err_clear(&r->err);
            return err_set(&r->perr, STRATA_ERROR, "a value of %zu bytes exceeds the 4 GiB limit", n);
        }
        break;
    }
    case TYPE_BLOB: {
        sstr b;
        rc = blob_parse(s, n, &r->blobs, &b, &r->perr);
        if (rc == STRATA_NOMEM) return err_set(&r->err, rc, "%s", r->perr.msg);
        if (rc == STRATA_OK) rc = vec_set_str(v, row, sstr_data(&b), b.len, &r->err);
        break;
    }
    case TYPE_DATE:
        if (r->o.datefmt) {
            int64_t days, micros;
            fmt_status st = fmt_parse(r->o.datefmt, s, n, &days, &micros);
            if (st != FMT_OK) return format_error(r, st, "date", r->o.datefmt, s, n);
            VEC_DATA(v, int32_t)[row] = (int32_t)days;
        } else if (!fast_date(s, n, &VEC_DATA(v, int32_t)[row])) {
            rc = date_parse(s, n, &VEC_DATA(v, int32_t)[row], &r->perr);
        }
        break;
    case TYPE_TIMESTAMP:
        if (r->o.tsfmt) {
            int64_t days, micros;
            fmt_status st = fmt_parse(r->o.tsfmt, s, n, &days, &micros);
            if (st != FMT_OK) return format_error(r, st, "timestamp", r->o.tsfmt, s, n);
            VEC_DATA(v, int64_t)[row] = days * MICROS_PER_DAY + micros;
        } else {
            rc = ts_parse(s, n, &VEC_DATA(v, int64_t)[row], &r->perr);
        }
        break;
    default: /* TYPE_INTERVAL */
        rc = interval_parse(s, n, NULL, &VEC_DATA(v, sql_interval)[row], &r->perr);
        break;
    }
    if (rc == STRATA_OK) set_valid(v, row);
    return rc;
}

/* fill_row parses the current record's fields into row `row` of out. STRATA_ERROR: field
** *bad_col (0-based) is bad, reason in r->perr. */
static int fill_row(csv_reader *r, data_chunk *out, uint32_t row, uint32_t *bad_col) {
    const field *f = r->sc.fields;
    const char *ns = r->o.null_str;
    const size_t nl = r->o.null_len;
    for (uint32_t c = 0; c < r->ncols; c++) {
        vector *v = &out->cols[c];
        if (f[c].len == nl && !(f[c].flags & F_QUOTED) &&
            (nl == 0 || memcmp(r->buf + f[c].off, ns, nl) == 0)) {
            vec_set_null(v, row, 1);
            continue;
        }
        size_t n;
        const char *s = field_text(r, &f[c], &n);
        if (s == NULL)
            return err_set(&r->err, STRATA_NOMEM, "out of memory reading a CSV field of %zu bytes", f[c].len);
        int rc = parse_value(r, r->types[c], v, row, s, n);
        if (rc != STRATA_OK) {
            *bad_col = c;
            return rc;
        }
    }
    return STRATA_OK;
}

int csv_reader_next(csv_reader *r, data_chunk *out, strata_err *err) {
    if (r->failed) return err_set(err, r->failed, "%s", r->err.msg);
    if (r->ncols == 0) return err_set(err, STRATA_MISUSE, "csv_reader_next: the reader has no columns");
    if (out->ncols != r->ncols)
        return err_set(err, STRATA_MISUSE, "csv_reader_next: the chunk has %u columns, not %u", out->ncols,
                       r->ncols);
    for (uint32_t c = 0; c < r->ncols; c++) {
        sql_type t = out->cols[c].type;
        if (t.id != r->types[c].id || (t.id == TYPE_DECIMAL && t.scale != r->types[c].scale))
            return err_set(err, STRATA_MISUSE, "csv_reader_next: column %u of the chunk has another type",
                           c + 1);
    }
    r->next_called = true;
    int rc;
    if (r->o.header && !r->header_read && (rc = read_header(r)) != STRATA_OK) return failed(r, rc, err);
    chunk_reset(out);
    arena_reset(&r->blobs);
    arena_reset(&r->texts);
    uint32_t row = 0;
    while (row < VECTOR_SIZE && csv_reader_offset(r) < r->limit) {
        scan_status st;
        if ((rc = scan(r, 0, &st)) != STRATA_OK) return failed(r, rc, err);
        if (st == SCAN_END) break;
        if (st == SCAN_BAD) {
            if ((rc = structural(r)) != STRATA_OK) return failed(r, rc, err);
            continue;
        }
        const scanner *s = &r->sc;
        uint64_t line = r->line;
        const char *text = r->buf + r->pos;
        size_t text_len = s->text_end - r->pos;
        if (blank_record(r, r->pos) && r->ncols != 1) {
            r->line += s->lines, r->pos = s->rec_end;
            continue;
        }
        r->last_line = line;
        drop_trailing(r);
        uint32_t nf = s->nfields, bad_col = 0;
        if (nf < r->ncols) {
            rc = bad_record(r, line, nf + 1, text, text_len, "too few fields: expected %u, found %u",
                            r->ncols, nf);
        } else if (nf > r->ncols) {
            rc = bad_record(r, line, r->ncols + 1, text, text_len, "too many fields: expected %u, found %u",
                            r->ncols, nf);
        } else if ((rc = fill_row(r, out, row, &bad_col)) == STRATA_OK) {
            r->row_line[row] = line;
            if (r->o.reject) { /* a later check (a constraint) may reject the row: keep its bytes */
                char *t = arena_alloc(&r->texts, text_len + 1);
                if (!t) return failed(r, err_set(&r->err, STRATA_NOMEM, "out of memory reading CSV"), err);
                memcpy(t, text, text_len);
                r->row_text[row] = t, r->row_text_len[row] = text_len;
            }
            row++;
        } else if (rc == STRATA_ERROR) {
            rc = bad_record(r, line, bad_col + 1, text, text_len, "%s", r->perr.msg);
            err_clear(&r->perr);
        }
        r->line += s->lines, r->pos = s->rec_end;
        if (rc != STRATA_OK) return failed(r, rc, err);
    }
    out->count = row;
    r->rows += row;
    return STRATA_OK;
}

uint64_t csv_reader_line(const csv_reader *r) { return r->last_line; }

uint64_t csv_reader_row_line(const csv_reader *r, uint32_t row) { return row < VECTOR_SIZE ? r->row_line[row] : 0; }

int csv_reader_reject_row(csv_reader *r, uint32_t row, uint32_t column, const char *reason, strata_err *err) {
    if (!r->o.reject || row >= VECTOR_SIZE || !r->row_text[row])
        return err_set(err, STRATA_MISUSE, "csv_reader_reject_row: not in reject mode, or no such row");
    char msg[STRATA_ERRMSG_MAX];
    snprintf(msg, sizeof msg, "CSV line %llu: %.440s", (unsigned long long)r->row_line[row], reason);
    csv_reject rej = {.line = r->row_line[row],
                      .column = column,
                      .column_name = column && column <= r->ncols && r->names ? r->names[column - 1] : NULL,
                      .reason = reason,
                      .message = msg,
                      .text = r->row_text[row],
                      .text_len = r->row_text_len[row]};
    int rc = r->o.reject(r->o.reject_arg, &rej, err);
    if (rc == STRATA_OK) r->rejects++, r->rows--;
    return rc;
}
uint64_t csv_reader_rows(const csv_reader *r) { return r->rows; }
uint64_t csv_reader_rejects(const csv_reader *r) { return r->rejects; }
uint64_t csv_reader_pending(const csv_reader *r) { return r->end - r->pos; }
uint64_t csv_reader_offset(const csv_reader *r) { return r->delivered - (r->end - r->pos); }
uint64_t csv_reader_next_line(const csv_reader *r) { return r->line; }

void csv_reader_close(csv_reader *r) {
    if (r == NULL) return;
    opts_free(&r->o);
    scanner_free(&r->sc);
    arena_free(&r->blobs);
    arena_free(&r->texts);
    free(r->types);
    free(r->names);
    free(r->buf);
    free(r->hdr);
    free(r->scratch);
    free(r);
}

int csv_mem_read(void *arg, void *buf, size_t cap, size_t *nread, strata_err *err) {
    (void)err;
    csv_mem_source *m = arg;
    size_t n = m->len - m->pos;
    if (n > cap) n = cap;
    if (m->max_read && n > m->max_read) n = m->max_read;
    if (n) memcpy(buf, m->data + m->pos, n);
    m->pos += n;
    *nread = n;
    return STRATA_OK;
}

/* ---- sniffing ---- */

int csv_sniff(const void *data, size_t len, const csv_options *opt, char *delimiter, uint32_t *nfields,
              strata_err *err) {
    static const char candidates[] = {',', '\t', '|', ';'};
    char quote = opt && opt->quote ? opt->quote : '"';
    char escape = opt && opt->escape ? opt->escape : quote;
    char *buf = malloc(len + 1 + SCAN_PAD);
    if (buf == NULL) return err_set(err, STRATA_NOMEM, "out of memory sniffing %zu bytes of CSV", len);
    memcpy(buf, data, len);
    buf[len] = '\n';
    memset(buf + len + 1, 0, SCAN_PAD);
    size_t begin = len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    char best = ',';
    uint32_t best_fields = 0, first_fields = 0;
    int rc = STRATA_OK;
    for (size_t k = 0; k < sizeof candidates; k++) {
        if (candidates[k] == quote || candidates[k] == escape) continue;
        scanner s;
        scanner_init(&s, candidates[k], quote, escape);
        uint32_t count = 0, first = 0, records = 0;
        bool consistent = true;
        size_t pos = begin;
        while (records < SNIFF_RECORDS) {
            scan_status st = scan_record(&s, buf, pos, len, true);
            if (st == SCAN_NOMEM) {
                rc = err_set(err, STRATA_NOMEM, "out of memory sniffing CSV");
                break;
            }
            if (st == SCAN_END) break;
            if (st == SCAN_BAD) {
                if (s.bad != BAD_UNTERMINATED) consistent = false; /* else a record cut short */
                break;
            }
            bool blank = s.nfields == 1 && s.text_end == pos && !(s.fields[0].flags & F_QUOTED);
            bool cut =
                s.rec_end == len && s.text_end == len && records > 0; /* the last line, maybe partial */
            pos = s.rec_end;
            if (blank || cut) continue;
            if (records++ == 0)
                first = count = s.nfields;
            else if (s.nfields != count)
                consistent = false;
        }
        scanner_free(&s);
        if (rc != STRATA_OK) break;
        if (k == 0) first_fields = first;
        if (consistent && count >= 2 && count > best_fields) {
            best = candidates[k], best_fields = count;
            first_fields = first;
        }
    }
    free(buf);
    if (rc != STRATA_OK) return rc;
    *delimiter = best;
    if (nfields) *nfields = first_fields;
    return STRATA_OK;
}

/* ---- writing ---- */

typedef struct writer {
    const opts *o;
    uint8_t special[256]; /* bytes that force quotes */
    char *buf;
    size_t n;
    char *big; /* a BLOB's text */
    size_t big_cap;
    csv_write_fn write;
    void *arg;
    strata_err *err;
} writer;

static int flush(writer *w) {
    if (w->n == 0) return STRATA_OK;
    int rc = w->write(w->arg, w->buf, w->n, w->err);
    w->n = 0;
    if (rc != STRATA_OK) return err_set(w->err, rc, "CSV write failed");
    return STRATA_OK;
}

static int put(writer *w, const char *p, size_t n) {
    if (n > WRITE_BUF - w->n) {
        int rc = flush(w);
        if (rc != STRATA_OK) return rc;
        if (n >= WRITE_BUF) {
            rc = w->write(w->arg, p, n, w->err);
            return rc == STRATA_OK ? rc : err_set(w->err, rc, "CSV write failed");
        }
    }
    memcpy(w->buf + w->n, p, n);
    w->n += n;
    return STRATA_OK;
}

static inline int put_char(writer *w, char c) {
    if (w->n == WRITE_BUF) {
        int rc = flush(w);
        if (rc != STRATA_OK) return rc;
    }
    w->buf[w->n++] = c;
    return STRATA_OK;
}

static bool is_blank(char c) { return c == ' ' || c == '\t'; }

/* put_field writes one value's text, quoted when reading it back unquoted would change it. */
static int put_field(writer *w, const char *s, size_t n) {
    const opts *o = w->o;
    bool quote = n == 0 || (n == o->null_len && memcmp(s, o->null_str, n) == 0) || is_blank(s[0]) ||
                 is_blank(s[n - 1]);
    for (size_t i = 0; i < n && !quote; i++)
        quote = w->special[(unsigned char)s[i]];
    if (!quote) return put(w, s, n);
    int rc = put_char(w, o->quote);
    size_t from = 0;
    for (size_t i = 0; i < n && rc == STRATA_OK; i++)
        if (s[i] == o->quote || s[i] == o->escape) {
            if ((rc = put(w, s + from, i - from)) == STRATA_OK) rc = put_char(w, o->escape);
            from = i;
        }
    if (rc == STRATA_OK) rc = put(w, s + from, n - from);
    if (rc == STRATA_OK) rc = put_char(w, o->quote);
    return rc;
}

static int writer_init(writer *w, opts *o, const csv_options *opt, csv_write_fn write, void *arg,
                       strata_err *err) {
    memset(w, 0, sizeof *w);
    int rc = opts_make(o, opt, false, err);
    if (rc != STRATA_OK) return rc;
    w->o = o, w->write = write, w->arg = arg, w->err = err;
    w->special[(unsigned char)o->delim] = w->special[(unsigned char)o->quote] = 1;
    w->special[(unsigned char)o->escape] = w->special['\r'] = w->special['\n'] = 1;
    if ((w->buf = malloc(WRITE_BUF)) == NULL) return err_set(err, STRATA_NOMEM, "out of memory writing CSV");
    return STRATA_OK;
}

static int writer_end(writer *w, int rc) {
    if (rc == STRATA_OK) rc = flush(w);
    free(w->buf);
    free(w->big);
    return rc;
}

int csv_write_header(const csv_options *opt, const char *const *names, uint32_t ncols, csv_write_fn write,
                     void *arg, strata_err *err) {
    opts o;
    writer w;
    int rc = writer_init(&w, &o, opt, write, arg, err);
    for (uint32_t c = 0; c < ncols && rc == STRATA_OK; c++) {
        if (c > 0) rc = put_char(&w, o.delim);
        if (rc == STRATA_OK) rc = put_field(&w, names[c], strlen(names[c]));
    }
    if (rc == STRATA_OK) rc = put_char(&w, '\n');
    return writer_end(&w, rc);
}

/* put_value writes row index i (already through the vector's selection) of v. */
static int put_value(writer *w, const vector *v, uint32_t i) {
    char tmp[FMT_TEXT_MAX > VALUE_TEXT_MAX ? FMT_TEXT_MAX : VALUE_TEXT_MAX];
    const sql_type t = v->type;
    switch (t.id) {
    case TYPE_VARCHAR: {
        const sstr *s = &VEC_DATA(v, sstr)[i];
        return put_field(w, sstr_data(s), s->len);
    }
    case TYPE_BLOB: {
        const sstr *s = &VEC_DATA(v, sstr)[i];
        size_t need = 2 * (size_t)s->len + 3;
        if (need > w->big_cap) {
            char *b = realloc(w->big, need);
            if (b == NULL)
                return err_set(w->err, STRATA_NOMEM, "out of memory writing a BLOB of %u bytes", s->len);
            w->big = b, w->big_cap = need;
        }
        return put_field(w, w->big, blob_format(sstr_data(s), s->len, w->big));
    }
    case TYPE_DATE:
        if (w->o->datefmt)
            return put_field(w, tmp, fmt_write(w->o->datefmt, VEC_DATA(v, int32_t)[i], 0, tmp));
        break;
    case TYPE_TIMESTAMP:
        if (w->o->tsfmt) {
            int64_t ts = VEC_DATA(v, int64_t)[i];
            int32_t d = ts_to_date(ts);
            return put_field(w, tmp, fmt_write(w->o->tsfmt, d, ts - date_to_ts(d), tmp));
        }
        break;
    default: break;
    }
    sql_value val = {.type = t};
    switch (v->phys) {
    case PHYS_BOOL: val.v.i = VEC_DATA(v, uint8_t)[i]; break;
    case PHYS_I16: val.v.i = VEC_DATA(v, int16_t)[i]; break;
    case PHYS_I32: val.v.i = VEC_DATA(v, int32_t)[i]; break;
    case PHYS_I64: val.v.i = VEC_DATA(v, int64_t)[i]; break;
    case PHYS_F64: val.v.d = VEC_DATA(v, double)[i]; break;
    default: val.v.iv = VEC_DATA(v, sql_interval)[i]; break;
    }
    size_t n = value_to_text(&val, tmp, sizeof tmp);
    return put_field(w, tmp, n);
}

int csv_write_chunk(const csv_options *opt, const data_chunk *chunk, csv_write_fn write, void *arg,
                    strata_err *err) {
    opts o;
    writer w;
    int rc = writer_init(&w, &o, opt, write, arg, err);
    for (uint32_t row = 0; row < chunk->count && rc == STRATA_OK; row++) {
        uint32_t r = chunk->sel ? chunk->sel[row] : row;
        for (uint32_t c = 0; c < chunk->ncols && rc == STRATA_OK; c++) {
            const vector *v = &chunk->cols[c];
            if (c > 0 && (rc = put_char(&w, o.delim)) != STRATA_OK) break;
            if (vec_is_null(v, r))
                rc = put(&w, o.null_str, o.null_len);
            else
                rc = put_value(&w, v, vec_index(v, r));
        }
        if (rc == STRATA_OK) rc = put_char(&w, '\n');
    }
    return writer_end(&w, rc);
}
