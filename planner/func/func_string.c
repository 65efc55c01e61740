/*
** func_string.c -- the text functions (lower, substring, trim, replace, lpad, concat, ...) and
** LIKE / ILIKE, a vector at a time.
**
** Text is UTF-8; lengths and positions count characters, found as bytes that do not continue a
** character (utf8_length's rule, so invalid bytes count one each and never crash a function).
** Results that are a piece of an argument (substring, trim, left) are copied with vec_set_str;
** results that are built (lower, replace, repeat, concat, lpad) are written straight into the
** output vector's heap with str_begin/str_end, after their exact length is known. Nothing is
** allocated per row; like_exec allocates once per call for a constant pattern's analysis.
**
** Case mapping (lower, upper, ILIKE) covers ASCII, the Latin-1 supplement, Latin Extended-A,
** basic Greek and Cyrillic: every mapping there keeps a character's byte length, so text never
** grows. Other letters are left as they are (PostgreSQL follows the locale, DuckDB full Unicode).
*/
#include <simde/x86/sse2.h>
#include <stdlib.h>
#include <string.h>

#include "func/func_internal.h"

/* ---- substring search ---- */

/* str_find is memmem for the short needles SQL searches for (LIKE's segments, strpos, replace):
** the starts whose first and last bytes are the needle's are found 16 at a time (SSE2 compares,
** which every x86-64 has; simde maps them elsewhere, as csv.c's), the bytes between compared only
** there. glibc's memmem builds a shift table on every call, which costs more than the whole
** search of a short text (TPC-H Q13's NOT LIKE spent a third of the query there). */
static const char *str_find(const char *h, size_t hn, const char *nd, size_t n) {
    if (n == 0) return h;
    if (n > hn) return NULL;
    if (n == 1) return memchr(h, (unsigned char)nd[0], hn);
    size_t last = hn - n; /* the last start */
    simde__m128i first = simde_mm_set1_epi8(nd[0]), end = simde_mm_set1_epi8(nd[n - 1]);
    /* blocks of 16 starts; the last block ends at the last start, overlapping the one before
    ** (its starts already tested masked off); a text of fewer than 16 starts is tested a byte at
    ** a time */
    for (size_t i = 0; last >= 15 && i <= last;) {
        size_t at = i + 15 <= last ? i : last - 15;
        simde__m128i a = simde_mm_loadu_si128((const void *)(h + at));
        simde__m128i b = simde_mm_loadu_si128((const void *)(h + at + n - 1));
        unsigned m = (unsigned)simde_mm_movemask_epi8(
            simde_mm_and_si128(simde_mm_cmpeq_epi8(a, first), simde_mm_cmpeq_epi8(b, end)));
        for (m &= 0xFFFFu << (i - at); m; m &= m - 1) {
            size_t k = at + (unsigned)__builtin_ctz(m);
            if (memcmp(h + k + 1, nd + 1, n - 2) == 0) return h + k;
        }
        i = at + 16;
    }
    for (size_t i = 0; last < 15 && i <= last; i++)
        if (h[i] == nd[0] && h[i + n - 1] == nd[n - 1] && memcmp(h + i + 1, nd + 1, n - 2) == 0) return h + i;
    return NULL;
}

/* ---- case mapping ---- */

static uint32_t cp_lower(uint32_t c) {
    if (c < 0x80) return c >= 'A' && c <= 'Z' ? c + 32 : c;
    if ((c >= 0xC0 && c <= 0xDE && c != 0xD7) || (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) ||
        (c >= 0x410 && c <= 0x42F))
        return c + 32;
    if (c >= 0x400 && c <= 0x40F) return c + 80;
    if (c == 0x178) return 0xFF;
    if ((c >= 0x100 && c <= 0x12F) || (c >= 0x132 && c <= 0x137) || (c >= 0x14A && c <= 0x177)) return c | 1;
    if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c & 1) ? c + 1 : c;
    return c;
}

static uint32_t cp_upper(uint32_t c) {
    if (c < 0x80) return c >= 'a' && c <= 'z' ? c - 32 : c;
    if ((c >= 0xE0 && c <= 0xFE && c != 0xF7) || (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) ||
        (c >= 0x430 && c <= 0x44F))
        return c - 32;
    if (c >= 0x450 && c <= 0x45F) return c - 80;
    if (c == 0xFF) return 0x178;
    if (c == 0xB5) return 0x39C;  /* micro sign -> capital mu */
    if (c == 0x3C2) return 0x3A3; /* final sigma */
    if ((c >= 0x100 && c <= 0x12F) || (c >= 0x132 && c <= 0x137) || (c >= 0x14A && c <= 0x177))
        return c & ~1u;
    if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c & 1) ? c : c - 1;
    return c;
}

/* map_case writes n bytes of s with every character mapped, into dst (n bytes: the mappings keep
** byte lengths). Only two-byte characters (U+0080..U+07FF) have mappings beyond ASCII. */
static void map_case(const char *s, size_t n, char *dst, uint32_t (*map)(uint32_t)) {
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = u[i];
        if (c < 0x80) {
            dst[i] = (char)map(c);
        } else if (c >= 0xC2 && c <= 0xDF && i + 1 < n && (u[i + 1] & 0xC0) == 0x80) {
            uint32_t m = map(((uint32_t)(c & 0x1F) << 6) | (u[i + 1] & 0x3F));
            dst[i] = (char)(0xC0 | (m >> 6));
            dst[i + 1] = (char)(0x80 | (m & 0x3F));
            i++;
        } else {
            dst[i] = (char)c;
        }
    }
}

/* utf8_decode returns the code point of the character at *i and moves *i past it; a malformed
** sequence gives its lead byte with bit 31 set, a value no character has. */
static uint32_t utf8_decode(const char *s, size_t n, size_t *i) {
    const unsigned char *u = (const unsigned char *)s;
    size_t at = *i, end = utf8_next(s, n, at);
    unsigned c = u[at], len = end - at;
    *i = end;
    if (c < 0x80) return c;
    unsigned want = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    if (want != len) return 0x80000000u | c;
    uint32_t cp = c & (0x7F >> want);
    for (size_t k = at + 1; k < end; k++)
        cp = (cp << 6) | (u[k] & 0x3F);
    return cp;
}

/* ---- binding ---- */

/* A signature: one letter a parameter, the last repeated for the variadic tail up to max_args.
**   S  text: VARCHAR (a bare NULL becomes VARCHAR)
**   B  text or bytes: VARCHAR or BLOB, kept as they are
**   A  any type, cast to VARCHAR (concat)
**   I  an integer of any width, cast to BIGINT (PostgreSQL takes integer; BIGINT is a superset)
** The result is VARCHAR ('S'), BIGINT ('I') or BOOLEAN ('b'). */
typedef struct str_sig {
    const char *name, *params;
    int min_args, max_args;
    char ret;
} str_sig;

static int bind_sig(const str_sig *sig, const sql_type *args, int nargs, sql_type *want, sql_type *ret,
                    strata_err *err) {
    if (nargs < sig->min_args || nargs > sig->max_args) return func_no_such(sig->name, args, nargs, err);
    size_t np = strlen(sig->params);
    for (int i = 0; i < nargs; i++) {
        char p = sig->params[(size_t)i < np ? (size_t)i : np - 1];
        uint8_t id = args[i].id;
        if (p == 'S' && (id == TYPE_VARCHAR || id == TYPE_NULL))
            want[i] = id == TYPE_VARCHAR ? args[i] : sql_type_varchar(0);
        else if (p == 'B' && (id == TYPE_VARCHAR || id == TYPE_BLOB || id == TYPE_NULL))
            want[i] = id == TYPE_NULL ? sql_type_varchar(0) : args[i];
        else if (p == 'A')
            want[i] = id == TYPE_VARCHAR ? args[i] : sql_type_varchar(0);
        else if (p == 'I' && (sql_type_is_integer(id) || id == TYPE_NULL))
            want[i] = sql_type_make(TYPE_BIGINT);
        else
            return func_no_such(sig->name, args, nargs, err);
    }
    *ret =
        sig->ret == 'S' ? sql_type_varchar(0) : sql_type_make(sig->ret == 'I' ? TYPE_BIGINT : TYPE_BOOLEAN);
    return STRATA_OK;
}

/* SIG defines bind_<id> for the function called name (aliases get their own, so that an error
** names the function as the user wrote it). */
#define SIG(id, name, params, min_args, max_args, ret)                                                       \
    static int bind_##id(const sql_type *args, int nargs, sql_type *want, sql_type *rt, strata_err *err) {   \
        static const str_sig sig = {name, params, min_args, max_args, ret};                                  \
        return bind_sig(&sig, args, nargs, want, rt, err);                                                   \
    }

SIG(lower, "lower", "S", 1, 1, 'S')
SIG(upper, "upper", "S", 1, 1, 'S')
SIG(length, "length", "B", 1, 1, 'I')
SIG(char_length, "char_length", "S", 1, 1, 'I')
SIG(character_length, "character_length", "S", 1, 1, 'I')
SIG(octet_length, "octet_length", "B", 1, 1, 'I')
SIG(trim, "trim", "SS", 1, 2, 'S')
SIG(btrim, "btrim", "SS", 1, 2, 'S')
SIG(ltrim, "ltrim", "SS", 1, 2, 'S')
SIG(rtrim, "rtrim", "SS", 1, 2, 'S')
SIG(replace, "replace", "SSS", 3, 3, 'S')
SIG(substring, "substring", "SII", 2, 3, 'S')
SIG(substr, "substr", "SII", 2, 3, 'S')
SIG(position, "position", "SS", 2, 2, 'I')
SIG(strpos, "strpos", "SS", 2, 2, 'I')
SIG(left, "left", "SI", 2, 2, 'S')
SIG(right, "right", "SI", 2, 2, 'S')
SIG(concat, "concat", "A", 1, FUNC_MAX_ARGS, 'S')
SIG(repeat, "repeat", "SI", 2, 2, 'S')
SIG(reverse, "reverse", "S", 1, 1, 'S')
SIG(starts_with, "starts_with", "SS", 2, 2, 'b')
SIG(lpad, "lpad", "SIS", 2, 3, 'S')
SIG(rpad, "rpad", "SIS", 2, 3, 'S')

/* ---- exec ---- */

/* FOR_ROWS runs body for every row r whose arguments are all non-NULL; the others become NULL.
** body may `return` an error status. */
#define FOR_ROWS(...)                                                                                        \
    for (uint32_t r = 0; r < count; r++) {                                                                   \
        if (row_has_null(args, nargs, r)) {                                                                  \
            vec_set_null(out, r, 1);                                                                         \
            continue;                                                                                        \
        }                                                                                                    \
        __VA_ARGS__                                                                                          \
    }                                                                                                        \
    (void)err;                                                                                               \
    return STRATA_OK;

/* S(i) is argument i's row r as (pointer, length). */
#define SDATA(i) sstr_data(arg_str(&args[i], r))
#define SLEN(i) ((size_t)arg_str(&args[i], r)->len)

static int exec_case(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err,
                     uint32_t (*map)(uint32_t)) {
    FOR_ROWS({
        str_out b;
        int rc = str_begin(out, SLEN(0), &b, err);
        if (rc != STRATA_OK) return rc;
        map_case(SDATA(0), SLEN(0), b.p, map);
        str_end(out, r, &b);
    })
}
static int exec_lower(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    return exec_case(args, nargs, count, out, err, cp_lower);
}
static int exec_upper(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    return exec_case(args, nargs, count, out, err, cp_upper);
}

/* length counts characters of text and bytes of a BLOB (PostgreSQL's length(bytea)). */
static int exec_length(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    bool bytes = args[0].type.id == TYPE_BLOB;
    FOR_ROWS({ VEC_DATA(out, int64_t)[r] = (int64_t)(bytes ? SLEN(0) : utf8_length(SDATA(0), SLEN(0))); })
}
static int exec_octet_length(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    FOR_ROWS({ VEC_DATA(out, int64_t)[r] = (int64_t)SLEN(0); })
}

/* in_set says whether the character s[i..end) is one of the characters of set. */
static bool in_set(const char *s, size_t i, size_t end, const char *set, size_t n) {
    for (size_t j = 0; j < n;) {
        size_t k = utf8_next(set, n, j);
        if (k - j == end - i && memcmp(set + j, s + i, end - i) == 0) return true;
        j = k;
    }
    return false;
}

/* trim_span narrows [*lo, *hi) of s by the characters of set (spaces when set is NULL). */
static void trim_span(const char *s, size_t *lo, size_t *hi, const char *set, size_t n, bool left,
                      bool right) {
    size_t a = *lo, b = *hi;
    if (set == NULL) {
        while (left && a < b && s[a] == ' ')
            a++;
        while (right && b > a && s[b - 1] == ' ')
            b--;
    } else {
        while (left && a < b) {
            size_t e = utf8_next(s, b, a);
            if (!in_set(s, a, e, set, n)) break;
            a = e;
        }
        while (right && b > a) {
            size_t st = b - 1;
            while (st > a && ((unsigned char)s[st] & 0xC0) == 0x80)
                st--;
            if (!in_set(s, st, b, set, n)) break;
            b = st;
        }
    }
    *lo = a, *hi = b;
}

static int exec_trim_sides(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err,
                           bool left, bool right) {
    FOR_ROWS({
        const char *s = SDATA(0);
        size_t lo = 0, hi = SLEN(0);
        trim_span(s, &lo, &hi, nargs > 1 ? SDATA(1) : NULL, nargs > 1 ? SLEN(1) : 0, left, right);
        int rc = vec_set_str(out, r, s + lo, hi - lo, err);
        if (rc != STRATA_OK) return rc;
    })
}
static int exec_trim(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    return exec_trim_sides(args, nargs, count, out, err, true, true);
}
static int exec_ltrim(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    return exec_trim_sides(args, nargs, count, out, err, true, false);
}
static int exec_rtrim(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    return exec_trim_sides(args, nargs, count, out, err, false, true);
}

/* replace(s, from, to): every non-overlapping occurrence, left to right; an empty from changes
** nothing (PostgreSQL). */
static int exec_replace(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    FOR_ROWS({
        const char *s = SDATA(0), *from = SDATA(1), *to = SDATA(2);
        size_t n = SLEN(0), nf = SLEN(1), nt = SLEN(2), hits = 0;
        if (nf == 0 || nf > n) {
            int rc = vec_set_str(out, r, s, n, err);
            if (rc != STRATA_OK) return rc;
            continue;
        }
        for (const char *p = s; (p = str_find(p, n - (size_t)(p - s), from, nf)) != NULL; p += nf)
            hits++;
        /* n - hits*nf + hits*nt, checked: hits*nt can exceed the limit before str_begin sees it */
        if (nt > nf && hits > (FUNC_MAX_STRING - n) / (nt - nf))
            return err_set(err, STRATA_ERROR, "requested length too large");
        str_out b;
        int rc = str_begin(out, n - hits * nf + hits * nt, &b, err);
        if (rc != STRATA_OK) return rc;
        char *d = b.p;
        const char *p = s, *q;
        while ((q = str_find(p, n - (size_t)(p - s), from, nf)) != NULL) {
            memcpy(d, p, (size_t)(q - p)), d += q - p;
            if (nt) memcpy(d, to, nt), d += nt;
            p = q + nf;
        }
        memcpy(d, p, n - (size_t)(p - s));
        str_end(out, r, &b);
    })
}

/* substring(s, start[, len]) as PostgreSQL: characters start .. start+len-1 (1-based) clipped to
** the string, so a start below 1 eats into the length; a negative len is an error. (DuckDB
** counts a negative start from the end instead.) */
static int exec_substring(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    FOR_ROWS({
        const char *s = SDATA(0);
        size_t n = SLEN(0);
        int64_t start = arg_i64(&args[1], r), end = INT64_MAX; /* end: first character not taken */
        if (nargs == 3) {
            int64_t len = arg_i64(&args[2], r);
            if (len < 0) return err_set(err, STRATA_ERROR, "negative substring length not allowed");
            if (__builtin_add_overflow(start, len, &end)) end = INT64_MAX;
        }
        if (start < 1) start = 1;
        size_t lo = 0, hi = 0;
        if (end > start) {
            lo = utf8_skip(s, n, (uint64_t)(start - 1));
            hi = end == INT64_MAX ? n : lo + utf8_skip(s + lo, n - lo, (uint64_t)(end - start));
        }
        int rc = vec_set_str(out, r, s + lo, hi - lo, err);
        if (rc != STRATA_OK) return rc;
    })
}

/* position(s, sub) / strpos(s, sub): the 1-based character position of sub's first occurrence
** in s, 0 when there is none, 1 for an empty sub. (SQL's POSITION(sub IN s) is position(s, sub),
** as PostgreSQL's grammar turns it.) */
static int exec_strpos(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    FOR_ROWS({
        const char *s = SDATA(0), *hit = str_find(s, SLEN(0), SDATA(1), SLEN(1));
        VEC_DATA(out, int64_t)[r] = hit ? (int64_t)utf8_length(s, (size_t)(hit - s)) + 1 : 0;
    })
}

/* left(s, n): the first n characters; n < 0: all but the last -n. right(s, n): the last n; n < 0:
** all but the first -n. */
static int exec_left_right(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err,
                           bool left) {
    FOR_ROWS({
        const char *s = SDATA(0);
        size_t n = SLEN(0), lo = 0, hi = n;
        int64_t k = arg_i64(&args[1], r);
        /* keep: how many characters from the side asked for; for a negative k, all but -k */
        uint64_t keep;
        if (k >= 0) {
            keep = (uint64_t)k;
        } else {
            uint64_t chars = utf8_length(s, n), drop = (uint64_t)0 - (uint64_t)k;
            keep = drop >= chars ? 0 : chars - drop;
        }
        if (left) {
            hi = utf8_skip(s, n, keep);
        } else {
            uint64_t chars = utf8_length(s, n);
            lo = keep >= chars ? 0 : utf8_skip(s, n, chars - keep);
        }
        int rc = vec_set_str(out, r, s + lo, hi - lo, err);
        if (rc != STRATA_OK) return rc;
    })
}
static int exec_left(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    return exec_left_right(args, nargs, count, out, err, true);
}
static int exec_right(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    return exec_left_right(args, nargs, count, out, err, false);
}

/* concat joins its non-NULL arguments; the result is never NULL (all NULL: ''). */
static int exec_concat(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    for (uint32_t r = 0; r < count; r++) {
        size_t total = 0;
        for (int i = 0; i < nargs; i++)
            if (!vec_is_null(&args[i], r)) total += SLEN(i);
        str_out b;
        int rc = str_begin(out, total, &b, err);
        if (rc != STRATA_OK) return rc;
        char *d = b.p;
        for (int i = 0; i < nargs; i++)
            if (!vec_is_null(&args[i], r) && SLEN(i)) memcpy(d, SDATA(i), SLEN(i)), d += SLEN(i);
        str_end(out, r, &b);
    }
    return STRATA_OK;
}

/* repeat(s, n): s n times; n <= 0 gives ''. */
static int exec_repeat(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    FOR_ROWS({
        size_t n = SLEN(0);
        int64_t times = arg_i64(&args[1], r);
        if (times < 0 || n == 0) times = 0;
        if (n && (uint64_t)times > FUNC_MAX_STRING / n)
            return err_set(err, STRATA_ERROR, "requested length too large");
        str_out b;
        int rc = str_begin(out, n * (size_t)times, &b, err);
        if (rc != STRATA_OK) return rc;
        for (int64_t t = 0; t < times; t++)
            memcpy(b.p + (size_t)t * n, SDATA(0), n);
        str_end(out, r, &b);
    })
}

/* reverse keeps each character's bytes in order and reverses the characters. */
static int exec_reverse(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    FOR_ROWS({
        const char *s = SDATA(0);
        size_t n = SLEN(0);
        str_out b;
        int rc = str_begin(out, n, &b, err);
        if (rc != STRATA_OK) return rc;
        for (size_t i = 0; i < n;) {
            size_t e = utf8_next(s, n, i);
            memcpy(b.p + (n - e), s + i, e - i);
            i = e;
        }
        str_end(out, r, &b);
    })
}

static int exec_starts_with(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    FOR_ROWS({ VEC_DATA(out, uint8_t)[r] = SLEN(1) <= SLEN(0) && memcmp(SDATA(0), SDATA(1), SLEN(1)) == 0; })
}

/* lpad(s, n[, fill]) / rpad: s fitted to n characters, cut (keeping its first n characters) or
** filled on the left / right with fill (default ' ') repeated; an empty fill only cuts; n < 0
** counts as 0 (PostgreSQL). */
static int exec_pad(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err, bool left) {
    FOR_ROWS({
        const char *s = SDATA(0), *fill = nargs > 2 ? SDATA(2) : " ";
        size_t n = SLEN(0), nfill = nargs > 2 ? SLEN(2) : 1;
        int64_t want = arg_i64(&args[1], r);
        uint64_t target = want < 0 ? 0 : (uint64_t)want, chars = utf8_length(s, n);
        if (chars >= target || nfill == 0) {
            int rc = vec_set_str(out, r, s, utf8_skip(s, n, target), err);
            if (rc != STRATA_OK) return rc;
            continue;
        }
        uint64_t pad = target - chars; /* characters of fill to add */
        if (pad > FUNC_MAX_STRING) return err_set(err, STRATA_ERROR, "requested length too large");
        uint64_t fill_chars = utf8_length(fill, nfill);
        size_t pad_bytes = (size_t)(pad / fill_chars) * nfill + utf8_skip(fill, nfill, pad % fill_chars);
        if (pad_bytes > FUNC_MAX_STRING - n) return err_set(err, STRATA_ERROR, "requested length too large");
        str_out b;
        int rc = str_begin(out, n + pad_bytes, &b, err);
        if (rc != STRATA_OK) return rc;
        char *d = b.p + (left ? 0 : n);
        for (size_t done = 0; done < pad_bytes; done += nfill)
            memcpy(d + done, fill, pad_bytes - done < nfill ? pad_bytes - done : nfill);
        memcpy(b.p + (left ? pad_bytes : 0), s, n);
        str_end(out, r, &b);
    })
}
static int exec_lpad(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    return exec_pad(args, nargs, count, out, err, true);
}
static int exec_rpad(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    return exec_pad(args, nargs, count, out, err, false);
}

const func_def func_string_defs[] = {
    {"btrim", bind_btrim, exec_trim},
    {"char_length", bind_char_length, exec_length},
    {"character_length", bind_character_length, exec_length},
    {"concat", bind_concat, exec_concat},
    {"left", bind_left, exec_left},
    {"length", bind_length, exec_length},
    {"lower", bind_lower, exec_lower},
    {"lpad", bind_lpad, exec_lpad},
    {"ltrim", bind_ltrim, exec_ltrim},
    {"octet_length", bind_octet_length, exec_octet_length},
    {"position", bind_position, exec_strpos},
    {"repeat", bind_repeat, exec_repeat},
    {"replace", bind_replace, exec_replace},
    {"reverse", bind_reverse, exec_reverse},
    {"right", bind_right, exec_right},
    {"rpad", bind_rpad, exec_rpad},
    {"rtrim", bind_rtrim, exec_rtrim},
    {"starts_with", bind_starts_with, exec_starts_with},
    {"strpos", bind_strpos, exec_strpos},
    {"substr", bind_substr, exec_substring},
    {"substring", bind_substring, exec_substring},
    {"trim", bind_trim, exec_trim},
    {"upper", bind_upper, exec_upper},
};
const int func_string_count = (int)(sizeof func_string_defs / sizeof func_string_defs[0]);

/* ---- LIKE ---- */

/* A pattern token: '%', '_' or one literal character (escaped or not) at [lit, lit + len). */
enum { TOK_ANY_RUN, TOK_ONE, TOK_LIT };

/* next_token reads the token at *i of pat, moving *i past it. The caller validated the pattern,
** so an escape character is never last. */
static int next_token(const char *pat, size_t plen, size_t *i, int escape, size_t *lit, size_t *len) {
    size_t at = *i;
    uint32_t c = utf8_decode(pat, plen, i);
    if (escape != 0 && c == (uint32_t)escape) {
        at = *i;
        *i = utf8_next(pat, plen, at);
    } else if (c == '%') {
        return TOK_ANY_RUN;
    } else if (c == '_') {
        return TOK_ONE;
    }
    *lit = at, *len = *i - at;
    return TOK_LIT;
}

static int check_pattern(const char *pat, size_t plen, int escape, strata_err *err) {
    if (escape == 0) return STRATA_OK;
    for (size_t i = 0; i < plen;) {
        if (utf8_decode(pat, plen, &i) == (uint32_t)escape) {
            if (i >= plen)
                return err_set(err, STRATA_ERROR, "LIKE pattern must not end with escape character");
            i = utf8_next(pat, plen, i);
        }
    }
    return STRATA_OK;
}

/* same_char compares the text character [t, t + tn) with the pattern's literal [p, p + pn). */
static bool same_char(const char *t, size_t tn, const char *p, size_t pn, bool ilike) {
    if (tn == pn && memcmp(t, p, tn) == 0) return true;
    if (!ilike) return false;
    size_t i = 0, j = 0;
    return cp_lower(utf8_decode(t, tn, &i)) == cp_lower(utf8_decode(p, pn, &j));
}

/* match is the general matcher: left to right, and on a mismatch it backtracks to the last '%',
** which then takes one more character (enough, because '%' is the only token of variable
** length). O(text * pattern) at worst, linear for most patterns. */
static bool match(const char *t, size_t tn, const char *p, size_t pn, int escape, bool ilike) {
    size_t ti = 0, pi = 0, star_p = SIZE_MAX, star_t = 0;
    while (ti < tn) {
        if (pi < pn) {
            size_t next = pi, lit = 0, len = 0;
            int tok = next_token(p, pn, &next, escape, &lit, &len);
            if (tok == TOK_ANY_RUN) {
                star_p = pi = next, star_t = ti;
                continue;
            }
            size_t te = utf8_next(t, tn, ti);
            if (tok == TOK_ONE || same_char(t + ti, te - ti, p + lit, len, ilike)) {
                ti = te, pi = next;
                continue;
            }
        }
        if (star_p == SIZE_MAX) return false;
        star_t = utf8_next(t, tn, star_t);
        ti = star_t, pi = star_p;
    }
    while (pi < pn) {
        size_t lit, len;
        if (next_token(p, pn, &pi, escape, &lit, &len) != TOK_ANY_RUN) return false;
    }
    return true;
}

int like_match(const char *text, size_t tlen, const char *pat, size_t plen, int escape, bool ilike, bool *out,
               strata_err *err) {
    int rc = check_pattern(pat, plen, escape, err);
    if (rc == STRATA_OK) *out = match(text, tlen, pat, plen, escape, ilike);
    return rc;
}

/* literal_head writes the unescaped literal characters a valid pattern starts with to out (their
** number to *len) and says what follows them: LITERAL_ALL (nothing), LITERAL_STARS (only '%'s), or
** LITERAL_OTHER (a '_', a literal after a '%', or a malformed pattern). */
enum { LITERAL_ALL, LITERAL_STARS, LITERAL_OTHER };
static int literal_head(const char *pat, size_t plen, int escape, char *out, size_t *len) {
    strata_err tmp;
    err_clear(&tmp);
    if (check_pattern(pat, plen, escape, &tmp) != STRATA_OK) return LITERAL_OTHER;
    size_t n = 0;
    bool star = false;
    for (size_t i = 0; i < plen;) {
        size_t lit = 0, l = 0;
        int tok = next_token(pat, plen, &i, escape, &lit, &l);
        if (tok == TOK_ANY_RUN) {
            star = true;
        } else if (tok == TOK_ONE || star) {
            return LITERAL_OTHER;
        } else {
            memcpy(out + n, pat + lit, l);
            n += l;
        }
    }
    *len = n;
    return star ? LITERAL_STARS : LITERAL_ALL;
}

bool like_prefix(const char *pat, size_t plen, int escape, char *out, size_t *len) {
    return literal_head(pat, plen, escape, out, len) == LITERAL_STARS;
}

bool like_exact(const char *pat, size_t plen, int escape, char *out, size_t *len) {
    return literal_head(pat, plen, escape, out, len) == LITERAL_ALL;
}

/* A constant LIKE pattern without '_' (case-sensitive) is literal segments between '%'s: the
** first must be a prefix, the last a suffix, the ones between are found left to right with
** str_find (leftmost is always best). No '%' at all is plain equality. Other patterns keep a copy
** of their text for the general matcher. */
int like_plan_init(like_plan *plan, const char *pat, size_t plen, int escape, bool ilike, strata_err *err) {
    memset(plan, 0, sizeof *plan);
    int rc = check_pattern(pat, plen, escape, err);
    if (rc) return rc;
    plan->bytes = malloc(2 * plen + 1);
    plan->seg_end = malloc((plen + 1) * sizeof *plan->seg_end);
    if (plan->bytes == NULL || plan->seg_end == NULL) {
        like_plan_free(plan);
        return err_set(err, STRATA_NOMEM, "out of memory analyzing a LIKE pattern");
    }
    memcpy(plan->bytes, pat, plen);
    plan->plen = plen, plan->escape = escape, plan->ilike = ilike;
    if (ilike) return STRATA_OK;
    for (size_t i = 0; i < plen;) {
        size_t lit, len;
        if (next_token(pat, plen, &i, escape, &lit, &len) == TOK_ONE) return STRATA_OK;
    }
    char *seg = plan->bytes + plen;
    size_t n = 0;
    for (size_t i = 0; i < plen;) {
        size_t lit = 0, len = 0;
        if (next_token(pat, plen, &i, escape, &lit, &len) == TOK_ANY_RUN) {
            plan->seg_end[plan->nstars++] = n;
        } else {
            memcpy(seg + n, pat + lit, len);
            n += len;
        }
    }
    plan->seg_end[plan->nstars] = n;
    plan->segmented = true;
    return STRATA_OK;
}

void like_plan_free(like_plan *plan) {
    free(plan->bytes);
    free(plan->seg_end);
    memset(plan, 0, sizeof *plan);
}

bool like_plan_match(const like_plan *pl, const char *t, size_t n) {
    if (!pl->segmented) return match(t, n, pl->bytes, pl->plen, pl->escape, pl->ilike);
    const char *b = pl->bytes + pl->plen;
    size_t pre = pl->seg_end[0];
    if (pl->nstars == 0) return n == pre && memcmp(t, b, n) == 0;
    size_t suf_start = pl->seg_end[pl->nstars - 1], suf = pl->seg_end[pl->nstars] - suf_start;
    if (n < pre + suf || (pre && memcmp(t, b, pre) != 0) || (suf && memcmp(t + n - suf, b + suf_start, suf) != 0))
        return false;
    size_t lo = pre, hi = n - suf;
    for (int k = 1; k < pl->nstars; k++) {
        size_t s0 = pl->seg_end[k - 1], len = pl->seg_end[k] - s0;
        if (len == 0) continue;
        const char *hit = str_find(t + lo, hi - lo, b + s0, len);
        if (hit == NULL) return false;
        lo = (size_t)(hit - t) + len;
    }
    return true;
}

int like_exec(const vector *text, const vector *pattern, int escape_char, bool ilike, bool negated,
              uint32_t count, vector *out, strata_err *err) {
    bool constant = pattern->kind == VEC_CONSTANT, planned = false;
    like_plan plan = {0};
    int rc = STRATA_OK;
    for (uint32_t r = 0; r < count; r++) {
        if (vec_is_null(text, r) || vec_is_null(pattern, r)) {
            vec_set_null(out, r, 1);
            continue;
        }
        const sstr *t = arg_str(text, r), *p = arg_str(pattern, r);
        bool m;
        if (constant) {
            if (!planned) { /* analyzed at the first row that needs it, as NULLs never do */
                if ((rc = like_plan_init(&plan, sstr_data(p), p->len, escape_char, ilike, err))) break;
                planned = true;
            }
            m = like_plan_match(&plan, sstr_data(t), t->len);
        } else {
            rc = like_match(sstr_data(t), t->len, sstr_data(p), p->len, escape_char, ilike, &m, err);
            if (rc != STRATA_OK) break;
        }
        VEC_DATA(out, uint8_t)[r] = m != negated;
    }
    like_plan_free(&plan);
    return rc;
}
