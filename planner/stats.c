/*
** stats.c -- gathering, merging and storing table statistics (see stats.h).
**
** Values are hashed for the sketches by a hash of this file (stats_hash), not core/hash.h's,
** which may change between versions: a stored sketch must keep meaning the same values.
*/
#include "stats.h"

#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "exec.h"

/* The stored form's version: bump it when the layout or stats_hash changes. */
#define STATS_FORMAT 1

static size_t stats_size(uint32_t ncols);

table_stats *stats_new(uint32_t ncols) {
    table_stats *s = calloc(1, stats_size(ncols));
    if (!s) return NULL;
    s->ncols = ncols;
    s->max_rowid = INT64_MIN;
    return s;
}

void stats_free(table_stats *s) { free(s); }

static size_t stats_size(uint32_t ncols) { return sizeof(table_stats) + (size_t)ncols * sizeof(column_stats); }

table_stats *stats_copy(const table_stats *s) {
    table_stats *c = malloc(stats_size(s->ncols));
    if (c) memcpy(c, s, stats_size(s->ncols));
    return c;
}

bool stats_number(const sql_value *v, double *out) {
    if (v->is_null) return false;
    switch (v->type.id) {
    case TYPE_BOOLEAN:
    case TYPE_SMALLINT:
    case TYPE_INTEGER:
    case TYPE_BIGINT:
    case TYPE_DATE:
    case TYPE_TIMESTAMP: *out = (double)v->v.i; return true;
    case TYPE_DECIMAL: *out = dec_to_double(v->v.i, v->type.scale); return true;
    case TYPE_DOUBLE: *out = v->v.d; return v->v.d == v->v.d; /* NaN has no place on the line */
    default: return false;
    }
}

/* hash_text hashes bytes a word at a time (FNV-1a's step over 8-byte words, with a fold so
** that high bits reach the low ones): stable across builds (see the file comment); hll_add mixes
** the result further. */
static uint64_t hash_text(const void *p, size_t n) {
    const uint8_t *b = p;
    uint64_t h = 0xcbf29ce484222325ull ^ n;
    for (; n >= 8; b += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, b, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    uint64_t w = 0;
    memcpy(&w, b, n); /* the last 0..7 bytes (little-endian order) */
    h = (h ^ w) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

/* stats_hash hashes a non-NULL value so that equal values of one column hash alike. */
static uint64_t stats_hash(const sql_value *v) {
    switch (v->type.id) {
    case TYPE_VARCHAR:
    case TYPE_BLOB: return hash_text(sstr_data(&v->v.s), v->v.s.len);
    case TYPE_DOUBLE: {
        double d = v->v.d == 0 ? 0.0 : v->v.d; /* -0 = 0 */
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        return bits;
    }
    case TYPE_INTERVAL: return hash_text(&v->v.iv, sizeof v->v.iv);
    default: return (uint64_t)v->v.i;
    }
}

/* set_text stores text cut to STATS_TEXT_MAX bytes, not inside a UTF-8 character. */
static void set_text(char *dst, const char *src, size_t n) {
    if (n > STATS_TEXT_MAX) {
        n = STATS_TEXT_MAX;
        while (n && ((uint8_t)src[n] & 0xC0) == 0x80) n--;
    }
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* text_cmp orders string bytes against a stored (possibly cut) text as VARCHAR orders. */
static int text_cmp(const char *p, size_t n, const char *stored) {
    size_t m = strlen(stored);
    int c = memcmp(p, stored, n < m ? n : m);
    return c ? c : (n > m) - (n < m);
}

/* widen_number widens c's range to x (the value v). */
static void widen_number(column_stats *c, const sql_value *v, double x) {
    char buf[VALUE_TEXT_MAX];
    if (!c->has_range || x < c->lo) {
        c->lo = x;
        set_text(c->min, buf, value_to_text(v, buf, sizeof buf));
    }
    if (!c->has_range || x > c->hi) {
        c->hi = x;
        set_text(c->max, buf, value_to_text(v, buf, sizeof buf));
    }
    c->numeric = c->has_range = true;
}

/* add_value counts one value of a column. Min and max are kept for numbers and VARCHAR. */
static void add_value(column_stats *c, const sql_value *v) {
    if (v->is_null) {
        c->nulls++;
        return;
    }
    hll_add(&c->sketch, stats_hash(v));
    double x;
    if (stats_number(v, &x)) {
        widen_number(c, v, x);
    } else if (v->type.id == TYPE_VARCHAR) {
        const char *p = sstr_data(&v->v.s);
        uint8_t first = v->v.s.len ? (uint8_t)p[0] : 0;
        if (c->has_range && first > (uint8_t)c->min[0] && first < (uint8_t)c->max[0]) return; /* most strings */
        if (!c->has_range || text_cmp(p, v->v.s.len, c->min) < 0) set_text(c->min, p, v->v.s.len);
        if (!c->has_range || text_cmp(p, v->v.s.len, c->max) > 0) set_text(c->max, p, v->v.s.len);
        c->has_range = true;
    }
}

/* finish computes the distinct estimates, which the sketches alone do not bound. */
static void finish(table_stats *s) {
    for (uint32_t i = 0; i < s->ncols; i++) {
        column_stats *c = &s->cols[i];
        double nonnull = (double)(s->rows - c->nulls);
        c->distinct = hll_estimate(&c->sketch);
        if (c->distinct > nonnull) c->distinct = nonnull > 0 ? nonnull : 0;
    }
}

int stats_scan(pager_txn *t, const table_def *td, table_stats *s, strata_err *err) {
    uint32_t n = td->ncols;
    uint32_t *cols = malloc((n ? n : 1) * sizeof *cols);
    int64_t *rowids = malloc(VECTOR_SIZE * sizeof *rowids);
    data_chunk ch = {0};
    table_scan *sc = NULL;
    int rc = STRATA_OK;
    if (!cols || !rowids) {
        rc = err_set(err, STRATA_NOMEM, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < n; i++) cols[i] = i;
    if ((rc = chunk_init(&ch, td->types, n, err))) goto done;
    int64_t lo = s->max_rowid == INT64_MIN ? INT64_MIN : s->max_rowid + 1;
    if (s->max_rowid == INT64_MAX) goto done; /* nothing can be above */
    if ((rc = table_scan_open(t, &td->desc, cols, n, lo, INT64_MAX, &sc))) {
        err_set(err, rc, "%s", pager_txn_err(t)->msg);
        goto done;
    }
    for (;;) {
        chunk_reset(&ch);
        if ((rc = table_scan_next(sc, &ch, rowids))) {
            err_set(err, rc, "%s", pager_txn_err(t)->msg);
            break;
        }
        if (!ch.count) break;
        for (uint32_t k = 0; k < n; k++)
            for (uint32_t r = 0; r < ch.count; r++) {
                sql_value v;
                vec_get_value(&ch.cols[k], ch.sel ? ch.sel[r] : r, &v);
                add_value(&s->cols[k], &v);
            }
        s->rows += ch.count;
        for (uint32_t r = 0; r < ch.count; r++)
            if (rowids[r] > s->max_rowid) s->max_rowid = rowids[r];
    }
done:
    if (sc) table_scan_close(sc);
    chunk_free(&ch);
    free(rowids);
    free(cols);
    if (!rc) finish(s);
    return rc;
}

/* ---- the strata_stats relation ----------------------------------------------------------------- */

const char *const STATS_RELATION_NAMES[STATS_RELATION_COLS] = {"table_name", "column_name",    "rows", "null_count",
                                                               "distinct_count", "min", "max"};
const uint8_t STATS_RELATION_TYPES[STATS_RELATION_COLS] = {TYPE_VARCHAR, TYPE_VARCHAR, TYPE_BIGINT, TYPE_BIGINT,
                                                           TYPE_BIGINT,  TYPE_VARCHAR, TYPE_VARCHAR};

void stats_relation_row(const table_def *td, uint32_t col, sql_value out[STATS_RELATION_COLS]) {
    for (int i = 0; i < STATS_RELATION_COLS; i++) out[i] = value_null(sql_type_make(STATS_RELATION_TYPES[i]));
    out[0] = value_text(td->name, (uint32_t)strlen(td->name));
    out[1] = value_text(td->cols[col].name, (uint32_t)strlen(td->cols[col].name));
    const table_stats *s = td->stats;
    if (!s) return;
    const column_stats *c = &s->cols[col];
    out[2] = value_int(TYPE_BIGINT, s->rows);
    out[3] = value_int(TYPE_BIGINT, c->nulls);
    out[4] = value_int(TYPE_BIGINT, (int64_t)(c->distinct + 0.5));
    if (c->has_range) {
        out[5] = value_text(c->min, (uint32_t)strlen(c->min));
        out[6] = value_text(c->max, (uint32_t)strlen(c->max));
    }
}

/* ---- stored form ----------------------------------------------------------------------------
** u8 STATS_FORMAT, u8 HLL_BITS, u32 columns, i64 rows, i64 max_rowid; per column: i64 NULLs,
** u8 flags (1 has_range, 2 numeric), f64 lo, f64 hi, u8 length + min text, u8 length + max text,
** the sketch's HLL_REGISTERS bytes. Little-endian. */

typedef struct wbuf {
    uint8_t *p;
    size_t n;
} wbuf;

static void put(wbuf *w, const void *src, size_t n) {
    if (w->p) memcpy(w->p + w->n, src, n);
    w->n += n;
}

static void put_u64(wbuf *w, uint64_t x) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(x >> (8 * i));
    put(w, b, 8);
}

static void put_f64(wbuf *w, double d) {
    uint64_t x;
    memcpy(&x, &d, sizeof x);
    put_u64(w, x);
}

static void put_text(wbuf *w, const char *s) {
    uint8_t l = (uint8_t)strlen(s);
    put(w, &l, 1);
    put(w, s, l);
}

/* write_all lays s out into w (w->p NULL: only counts the bytes). */
static void write_all(wbuf *w, const table_stats *s) {
    uint8_t hdr[2] = {STATS_FORMAT, HLL_BITS};
    put(w, hdr, 2);
    uint8_t nc[4];
    for (int i = 0; i < 4; i++) nc[i] = (uint8_t)(s->ncols >> (8 * i));
    put(w, nc, 4);
    put_u64(w, (uint64_t)s->rows);
    put_u64(w, (uint64_t)s->max_rowid);
    for (uint32_t i = 0; i < s->ncols; i++) {
        const column_stats *c = &s->cols[i];
        uint8_t flags = (uint8_t)(c->has_range | c->numeric << 1);
        put_u64(w, (uint64_t)c->nulls);
        put(w, &flags, 1);
        put_f64(w, c->lo);
        put_f64(w, c->hi);
        put_text(w, c->min);
        put_text(w, c->max);
        put(w, c->sketch.reg, HLL_REGISTERS);
    }
}

uint8_t *stats_encode(const table_stats *s, size_t *len) {
    wbuf w = {0};
    write_all(&w, s);
    if (!(w.p = malloc(w.n))) return NULL;
    *len = w.n;
    w.n = 0;
    write_all(&w, s);
    return w.p;
}

typedef struct rbuf {
    const uint8_t *p;
    size_t n, at;
    bool bad;
} rbuf;

static const uint8_t *take(rbuf *r, size_t n) {
    if (r->bad || r->n - r->at < n) {
        r->bad = true;
        return NULL;
    }
    r->at += n;
    return r->p + r->at - n;
}

static uint64_t get_u64(rbuf *r) {
    const uint8_t *b = take(r, 8);
    uint64_t x = 0;
    for (int i = 0; b && i < 8; i++) x |= (uint64_t)b[i] << (8 * i);
    return x;
}

static double get_f64(rbuf *r) {
    uint64_t x = get_u64(r);
    double d;
    memcpy(&d, &x, sizeof d);
    return d;
}

static void get_text(rbuf *r, char *dst) {
    const uint8_t *l = take(r, 1);
    const uint8_t *s = l && *l <= STATS_TEXT_MAX ? take(r, *l) : NULL;
    if (!s) {
        r->bad = true;
        return;
    }
    memcpy(dst, s, *l);
    dst[*l] = 0;
}

table_stats *stats_decode(const uint8_t *p, size_t n, uint32_t ncols) {
    rbuf r = {.p = p, .n = n};
    const uint8_t *hdr = take(&r, 6);
    if (!hdr || hdr[0] != STATS_FORMAT || hdr[1] != HLL_BITS) return NULL;
    uint32_t nc = (uint32_t)hdr[2] | (uint32_t)hdr[3] << 8 | (uint32_t)hdr[4] << 16 | (uint32_t)hdr[5] << 24;
    if (nc != ncols) return NULL;
    table_stats *s = stats_new(ncols);
    if (!s) return NULL;
    s->rows = (int64_t)get_u64(&r);
    s->max_rowid = (int64_t)get_u64(&r);
    for (uint32_t i = 0; i < ncols && !r.bad; i++) {
        column_stats *c = &s->cols[i];
        c->nulls = (int64_t)get_u64(&r);
        const uint8_t *flags = take(&r, 1);
        c->has_range = flags && (*flags & 1);
        c->numeric = flags && (*flags & 2);
        c->lo = get_f64(&r);
        c->hi = get_f64(&r);
        get_text(&r, c->min);
        get_text(&r, c->max);
        const uint8_t *reg = take(&r, HLL_REGISTERS);
        if (reg) memcpy(c->sketch.reg, reg, HLL_REGISTERS);
    }
    if (r.bad || r.at != n || s->rows < 0) {
        stats_free(s);
        return NULL;
    }
    finish(s);
    return s;
}
