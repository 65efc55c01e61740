/*
** colstats.c -- one column's summary for the statistics: NULLs, range, distinct sketch (see
** colstats.h).
*/
#include "colstats.h"

#include <string.h>

void colstats_init(column_stats *c) { memset(c, 0, sizeof *c); }

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

/* colstats_hash_text hashes bytes a word at a time (FNV-1a's step over 8-byte words, with a fold
** so that high bits reach the low ones); hll_add mixes the result further. */
uint64_t colstats_hash_text(const void *p, size_t n) {
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

uint64_t colstats_hash_f64(double d) {
    if (d == 0) d = 0.0; /* -0 = 0 */
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return bits;
}

uint64_t colstats_hash(const sql_value *v) {
    switch (v->type.id) {
    case TYPE_VARCHAR:
    case TYPE_BLOB: return colstats_hash_text(sstr_data(&v->v.s), v->v.s.len);
    case TYPE_DOUBLE: return colstats_hash_f64(v->v.d);
    case TYPE_INTERVAL: return colstats_hash_text(&v->v.iv, sizeof v->v.iv);
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

void colstats_widen(column_stats *c, const sql_value *v) {
    double x;
    if (stats_number(v, &x)) {
        widen_number(c, v, x);
    } else if (!v->is_null && v->type.id == TYPE_VARCHAR) {
        const char *p = sstr_data(&v->v.s);
        uint8_t first = v->v.s.len ? (uint8_t)p[0] : 0;
        if (c->has_range && first > (uint8_t)c->min[0] && first < (uint8_t)c->max[0]) return; /* most strings */
        if (!c->has_range || text_cmp(p, v->v.s.len, c->min) < 0) set_text(c->min, p, v->v.s.len);
        if (!c->has_range || text_cmp(p, v->v.s.len, c->max) > 0) set_text(c->max, p, v->v.s.len);
        c->has_range = true;
    }
}

void colstats_add(column_stats *c, const sql_value *v) {
    if (v->is_null) {
        c->nulls++;
        return;
    }
    hll_add(&c->sketch, colstats_hash(v));
    colstats_widen(c, v);
}

void colstats_merge(column_stats *dst, const column_stats *src) {
    dst->nulls += src->nulls;
    hll_merge(&dst->sketch, &src->sketch);
    if (!src->has_range) return;
    if (!dst->has_range) {
        dst->has_range = true;
        dst->numeric = src->numeric;
        dst->lo = src->lo;
        dst->hi = src->hi;
        memcpy(dst->min, src->min, sizeof dst->min);
        memcpy(dst->max, src->max, sizeof dst->max);
        return;
    }
    bool lower = dst->numeric ? src->lo < dst->lo : text_cmp(src->min, strlen(src->min), dst->min) < 0;
    bool higher = dst->numeric ? src->hi > dst->hi : text_cmp(src->max, strlen(src->max), dst->max) > 0;
    if (lower) {
        dst->lo = src->lo;
        memcpy(dst->min, src->min, sizeof dst->min);
    }
    if (higher) {
        dst->hi = src->hi;
        memcpy(dst->max, src->max, sizeof dst->max);
    }
}

/* ---- stored form ------------------------------------------------------------------------- */

static uint8_t *put(uint8_t *out, size_t *n, const void *src, size_t len) {
    if (out) memcpy(out + *n, src, len);
    *n += len;
    return out;
}

static void put_u64(uint8_t *out, size_t *n, uint64_t x) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(x >> (8 * i));
    put(out, n, b, 8);
}

static void put_f64(uint8_t *out, size_t *n, double d) {
    uint64_t x;
    memcpy(&x, &d, sizeof x);
    put_u64(out, n, x);
}

static void put_text(uint8_t *out, size_t *n, const char *s) {
    uint8_t l = (uint8_t)strlen(s);
    put(out, n, &l, 1);
    put(out, n, s, l);
}

size_t colstats_put(const column_stats *c, uint8_t *out) {
    size_t n = 0;
    uint8_t flags = (uint8_t)(c->has_range | c->numeric << 1);
    put_u64(out, &n, (uint64_t)c->nulls);
    put(out, &n, &flags, 1);
    put_f64(out, &n, c->lo);
    put_f64(out, &n, c->hi);
    put_text(out, &n, c->min);
    put_text(out, &n, c->max);
    put(out, &n, c->sketch.reg, HLL_REGISTERS);
    return n;
}

/* A bounds-checked reader: taking past end sets p NULL, and every later take yields NULL. */
typedef struct rd {
    const uint8_t *p, *end;
} rd;

static const uint8_t *take(rd *r, size_t n) {
    if (!r->p || (size_t)(r->end - r->p) < n) {
        r->p = NULL;
        return NULL;
    }
    r->p += n;
    return r->p - n;
}

static uint64_t get_u64(rd *r) {
    const uint8_t *b = take(r, 8);
    uint64_t x = 0;
    for (int i = 0; b && i < 8; i++) x |= (uint64_t)b[i] << (8 * i);
    return x;
}

static double get_f64(rd *r) {
    uint64_t x = get_u64(r);
    double d;
    memcpy(&d, &x, sizeof d);
    return d;
}

static void get_text(rd *r, char *dst) {
    const uint8_t *l = take(r, 1);
    const uint8_t *s = l && *l <= STATS_TEXT_MAX ? take(r, *l) : NULL;
    if (!s) {
        r->p = NULL;
        return;
    }
    memcpy(dst, s, *l);
    dst[*l] = 0;
}

const uint8_t *colstats_get(column_stats *c, const uint8_t *p, const uint8_t *end) {
    rd r = {p, end};
    colstats_init(c);
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
    if (!r.p || c->nulls < 0 || *flags > 3 || !hll_valid(&c->sketch)) return NULL;
    return r.p;
}
