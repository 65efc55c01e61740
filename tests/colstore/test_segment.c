/*
** test_segment.c -- column segments (colstore/segment.h) and bit-packing (colstore/bitpack.h):
** every type through every encoding that applies (and the automatic choice, with and without
** zstd) on random, sorted, reverse sorted, constant, all-NULL, alternating-NULL, extreme,
** run-heavy and low-cardinality data of 1, 2049, 5000 and 122,880 rows, compared value by value
** against a model, by vector and by single-row reads; zone maps against values computed here;
** the encoding chosen for obvious cases; zstd where it pays and never at level 0; filters on the
** encoded data; misuse; and corrupt buffers: every flipped byte and every truncation is
** STRATA_CORRUPT, and buffers damaged with a recomputed checksum decode or fail cleanly (the
** SANITIZE build checks that nothing reads out of bounds).
*/
#include <criterion/criterion.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../colstore/bitpack.h"
#include "../../colstore/segment.h"
#include "../../core/crc32c.h"
#include "../../core/value.h"

/* ---- randomness --------------------------------------------------------------------------- */

static uint64_t rng_state = 1;
static void rng_seed(uint64_t s) { rng_state = s; }
static uint64_t rnd(void) { /* splitmix64 */
    uint64_t z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* ---- the model: a column of values and NULLs ---------------------------------------------- */

typedef struct col {
    sql_type type;
    vec_phys phys;
    uint32_t rows;
    uint8_t *null;
    int64_t *i;
    double *d;
    sql_interval *iv;
    char **s;
    uint32_t *slen;
} col;

static col col_new(sql_type type, uint32_t rows) {
    col c = {.type = type, .phys = vec_phys_of((sql_type_id)type.id), .rows = rows};
    size_t n = rows ? rows : 1;
    c.null = calloc(n, 1);
    c.i = calloc(n, sizeof *c.i);
    c.d = calloc(n, sizeof *c.d);
    c.iv = calloc(n, sizeof *c.iv);
    c.s = calloc(n, sizeof *c.s);
    c.slen = calloc(n, sizeof *c.slen);
    cr_assert(c.null && c.i && c.d && c.iv && c.s && c.slen);
    return c;
}

static void col_free(col *c) {
    for (uint32_t r = 0; r < c->rows; r++) free(c->s[r]);
    free(c->null);
    free(c->i);
    free(c->d);
    free(c->iv);
    free(c->s);
    free(c->slen);
}

static void set_str(col *c, uint32_t r, const void *p, uint32_t len) {
    free(c->s[r]);
    c->s[r] = malloc(len ? len : 1);
    cr_assert_not_null(c->s[r]);
    if (len) memcpy(c->s[r], p, len);
    c->slen[r] = len;
}

static void int_range(vec_phys p, int64_t *lo, int64_t *hi) {
    switch (p) {
    case PHYS_BOOL: *lo = 0, *hi = 1; break;
    case PHYS_I16: *lo = INT16_MIN, *hi = INT16_MAX; break;
    case PHYS_I32: *lo = INT32_MIN, *hi = INT32_MAX; break;
    default: *lo = INT64_MIN, *hi = INT64_MAX; break;
    }
}

static int64_t rand_int(vec_phys p) {
    switch (p) {
    case PHYS_BOOL: return (int64_t)(rnd() & 1);
    case PHYS_I16: return (int16_t)rnd();
    case PHYS_I32: return (int32_t)rnd();
    default: return (int64_t)rnd();
    }
}

static void rand_str(col *c, uint32_t r, uint32_t maxlen) {
    char buf[256];
    uint32_t len = (uint32_t)(rnd() % (maxlen + 1));
    for (uint32_t k = 0; k < len; k++)
        buf[k] = c->type.id == TYPE_BLOB ? (char)rnd() : (char)('a' + rnd() % 26);
    set_str(c, r, buf, len);
}

typedef enum pattern {
    PAT_RANDOM,
    PAT_SORTED,
    PAT_REVERSE,
    PAT_CONSTANT,
    PAT_ALL_NULL,
    PAT_ALT_NULL,
    PAT_EXTREME,
    PAT_RUNS,
    PAT_LOWCARD,
    PAT_COUNT
} pattern;

static const char *const pattern_names[PAT_COUNT] = {"random",   "sorted",  "reverse", "constant", "all-null",
                                                     "alt-null", "extreme", "runs",    "lowcard"};

/* set_value gives row r a value for `key` (a number whose order the value follows where the type
** allows: sorted data uses increasing keys). */
static void set_value(col *c, uint32_t r, uint64_t key) {
    char buf[64];
    switch (c->phys) {
    case PHYS_F64: c->d[r] = (double)key * 0.5 - 1000.25; break;
    case PHYS_STR:
        set_str(c, r, buf, (uint32_t)snprintf(buf, sizeof buf, "key-%012llu", (unsigned long long)key));
        break;
    case PHYS_INTERVAL:
        c->iv[r].months = (int32_t)(key / 1000);
        c->iv[r].days = (int32_t)(key % 1000 / 30);
        c->iv[r].micros = (int64_t)key * 7;
        break;
    default: {
        int64_t lo, hi;
        int_range(c->phys, &lo, &hi);
        if (c->phys == PHYS_I64)
            c->i[r] = (int64_t)key - 5000000;
        else
            c->i[r] = lo + (int64_t)(key % ((uint64_t)(hi - lo) + 1));
        break;
    }
    }
}

static void set_random(col *c, uint32_t r) {
    switch (c->phys) {
    case PHYS_F64: c->d[r] = ((double)(rnd() >> 11) / 9007199254740992.0 - 0.5) * 1e9; break;
    case PHYS_STR: rand_str(c, r, 40); break;
    case PHYS_INTERVAL:
        c->iv[r].months = (int32_t)rnd();
        c->iv[r].days = (int32_t)rnd();
        c->iv[r].micros = (int64_t)rnd();
        break;
    default: c->i[r] = rand_int(c->phys); break;
    }
}

static void set_extreme(col *c, uint32_t r) {
    switch (c->phys) {
    case PHYS_F64: {
        static const double v[] = {NAN,     INFINITY, -INFINITY, -0.0,     0.0,
                                   DBL_MAX, -DBL_MAX, DBL_MIN,   4.9e-324, 1.0};
        c->d[r] = v[rnd() % 10];
        break;
    }
    case PHYS_STR: {
        static char big[300];
        if (big[0] == 0) memset(big, 0xff, sizeof big);
        static const uint32_t lens[] = {0, 1, 12, 13, 32, 33, 40, 255};
        uint32_t len = lens[rnd() % 8];
        char buf[300];
        memcpy(buf, big, len);
        if (len == 1) buf[0] = 0;
        if (len == 12 || len == 13) memset(buf, 'a' + (int)(rnd() % 3), len);
        if (len == 33 || len == 32) memset(buf, 'z', len), buf[len - 1] = (char)(rnd() % 2 ? 'y' : 'z');
        set_str(c, r, buf, len);
        break;
    }
    case PHYS_INTERVAL: {
        static const int64_t m[] = {INT64_MIN, INT64_MAX, 0, -1};
        c->iv[r].months = rnd() % 2 ? INT32_MIN : INT32_MAX;
        c->iv[r].days = rnd() % 2 ? INT32_MIN : 0;
        c->iv[r].micros = m[rnd() % 4];
        break;
    }
    default: {
        int64_t lo, hi;
        int_range(c->phys, &lo, &hi);
        int64_t v[] = {lo, hi, 0, lo + 1, hi - 1, -1 > lo ? -1 : 0, 1};
        c->i[r] = v[rnd() % 7];
        break;
    }
    }
}

static void copy_row(col *c, uint32_t dst, uint32_t src) {
    c->null[dst] = c->null[src];
    c->i[dst] = c->i[src];
    c->d[dst] = c->d[src];
    c->iv[dst] = c->iv[src];
    if (c->phys == PHYS_STR) set_str(c, dst, c->s[src], c->slen[src]);
}

static col make_col(sql_type type, pattern pat, uint32_t rows, uint64_t seed) {
    rng_seed(seed);
    col c = col_new(type, rows);
    uint64_t key = rnd() % 1000;
    uint32_t run_left = 0;
    for (uint32_t r = 0; r < rows; r++) {
        switch (pat) {
        case PAT_RANDOM: set_random(&c, r); break;
        case PAT_SORTED:
        case PAT_REVERSE:
            key += rnd() % 3;
            set_value(&c, r, key);
            break;
        case PAT_CONSTANT:
            if (r == 0)
                set_random(&c, r);
            else
                copy_row(&c, r, 0);
            break;
        case PAT_ALL_NULL: c.null[r] = 1; break;
        case PAT_ALT_NULL:
            set_random(&c, r);
            c.null[r] = r % 2;
            break;
        case PAT_EXTREME: set_extreme(&c, r); break;
        case PAT_RUNS:
            if (run_left == 0) {
                run_left = 1 + (uint32_t)(rnd() % 700);
                set_random(&c, r);
                c.null[r] = rnd() % 5 == 0;
            } else {
                copy_row(&c, r, r - 1);
            }
            run_left--;
            break;
        default: /* PAT_LOWCARD */
            if (c.phys == PHYS_F64)
                c.d[r] = (double)(rnd() % 100) * 0.25;
            else if (c.phys == PHYS_INTERVAL)
                c.iv[r].days = (int32_t)(rnd() % 100);
            else if (c.phys == PHYS_STR)
                set_value(&c, r, rnd() % 20);
            else
                c.i[r] = c.phys == PHYS_BOOL ? (int64_t)(rnd() & 1) : 1 + (int64_t)(rnd() % 100);
            break;
        }
    }
    if (pat == PAT_REVERSE) /* reverse the sorted rows */
        for (uint32_t a = 0, b = rows ? rows - 1 : 0; a < b; a++, b--) {
            int64_t ti = c.i[a];
            c.i[a] = c.i[b], c.i[b] = ti;
            double td = c.d[a];
            c.d[a] = c.d[b], c.d[b] = td;
            sql_interval tv = c.iv[a];
            c.iv[a] = c.iv[b], c.iv[b] = tv;
            char *ts = c.s[a];
            c.s[a] = c.s[b], c.s[b] = ts;
            uint32_t tl = c.slen[a];
            c.slen[a] = c.slen[b], c.slen[b] = tl;
        }
    if (c.phys == PHYS_STR) /* every row owns a string, NULL or not */
        for (uint32_t r = 0; r < rows; r++)
            if (c.s[r] == NULL) set_str(&c, r, "", 0);
    return c;
}

/* ---- the model's own answers -------------------------------------------------------------- */

static int cmp_f64(double a, double b) {
    if (isnan(a)) return isnan(b) ? 0 : 1;
    if (isnan(b)) return -1;
    return a < b ? -1 : a > b;
}

static int cmp_bytes(const void *a, uint32_t alen, const void *b, uint32_t blen) {
    uint32_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    if (c) return c < 0 ? -1 : 1;
    return alen < blen ? -1 : alen > blen;
}

static int rows_equal(const col *c, uint32_t a, uint32_t b) {
    switch (c->phys) {
    case PHYS_F64: return memcmp(&c->d[a], &c->d[b], 8) == 0;
    case PHYS_STR:
        return c->slen[a] == c->slen[b] && (c->slen[a] == 0 || memcmp(c->s[a], c->s[b], c->slen[a]) == 0);
    case PHYS_INTERVAL: return memcmp(&c->iv[a], &c->iv[b], sizeof(sql_interval)) == 0;
    default: return c->i[a] == c->i[b];
    }
}

static int model_constant(const col *c) {
    int64_t first = -1;
    for (uint32_t r = 0; r < c->rows; r++) {
        if (c->null[r]) continue;
        if (first < 0)
            first = r;
        else if (!rows_equal(c, (uint32_t)first, r))
            return 0;
    }
    return 1;
}

static const col *sort_col;
static int cmp_rows(const void *x, const void *y) {
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    const col *c = sort_col;
    switch (c->phys) {
    case PHYS_F64: {
        uint64_t p, q;
        memcpy(&p, &c->d[a], 8);
        memcpy(&q, &c->d[b], 8);
        return p < q ? -1 : p > q;
    }
    case PHYS_STR: return cmp_bytes(c->s[a], c->slen[a], c->s[b], c->slen[b]);
    case PHYS_INTERVAL: return memcmp(&c->iv[a], &c->iv[b], sizeof(sql_interval));
    default: return c->i[a] < c->i[b] ? -1 : c->i[a] > c->i[b];
    }
}

/* model_distinct counts the distinct non-NULL values (bitwise for doubles). */
static uint32_t model_distinct(const col *c) {
    uint32_t *idx = malloc((c->rows + 1) * sizeof *idx), n = 0;
    for (uint32_t r = 0; r < c->rows; r++)
        if (!c->null[r]) idx[n++] = r;
    sort_col = c;
    qsort(idx, n, sizeof *idx, cmp_rows);
    uint32_t distinct = 0;
    for (uint32_t k = 0; k < n; k++) distinct += k == 0 || !rows_equal(c, idx[k - 1], idx[k]);
    free(idx);
    return distinct;
}

static int model_applies(const col *c, int enc) {
    if (!seg_encoding_applies(enc, c->phys)) return 0;
    if (enc == SEG_CONSTANT) return model_constant(c);
    if (enc == SEG_DICTIONARY) return model_distinct(c) <= SEGMENT_DICT_MAX;
    return 1;
}

/* model_zone computes the zone map of rows [from, from + n). */
static void model_zone(const col *c, uint32_t from, uint32_t n, seg_zone *z) {
    memset(z, 0, sizeof *z);
    z->rows = n;
    int64_t lo = -1, hi = -1;
    for (uint32_t r = from; r < from + n; r++) {
        if (c->null[r]) {
            z->null_count++;
            continue;
        }
        if (lo < 0) {
            lo = hi = r;
            continue;
        }
        int clo, chi;
        switch (c->phys) {
        case PHYS_F64: clo = cmp_f64(c->d[r], c->d[lo]), chi = cmp_f64(c->d[r], c->d[hi]); break;
        case PHYS_STR:
            clo = cmp_bytes(c->s[r], c->slen[r], c->s[lo], c->slen[lo]);
            chi = cmp_bytes(c->s[r], c->slen[r], c->s[hi], c->slen[hi]);
            break;
        default: clo = c->i[r] < c->i[lo] ? -1 : 0, chi = c->i[r] > c->i[hi] ? 1 : 0; break;
        }
        if (clo < 0) lo = r;
        if (chi > 0) hi = r;
    }
    if (lo < 0 || c->phys == PHYS_INTERVAL) return;
    z->has_minmax = 1;
    if (c->phys == PHYS_F64) {
        z->min_d = c->d[lo] == 0 ? 0.0 : c->d[lo];
        z->max_d = c->d[hi] == 0 ? 0.0 : c->d[hi];
    } else if (c->phys == PHYS_STR) {
        z->min_len = c->slen[lo] < SEGMENT_ZONE_STR_MAX ? c->slen[lo] : SEGMENT_ZONE_STR_MAX;
        z->max_len = c->slen[hi] < SEGMENT_ZONE_STR_MAX ? c->slen[hi] : SEGMENT_ZONE_STR_MAX;
        z->min_truncated = c->slen[lo] > SEGMENT_ZONE_STR_MAX;
        z->max_truncated = c->slen[hi] > SEGMENT_ZONE_STR_MAX;
        if (z->min_len) memcpy(z->min_s, c->s[lo], z->min_len);
        if (z->max_len) memcpy(z->max_s, c->s[hi], z->max_len);
    } else {
        z->min_i = c->i[lo];
        z->max_i = c->i[hi];
    }
}

static void check_zone(const seg_zone *got, const seg_zone *want, const char *what) {
    cr_assert_eq(got->rows, want->rows, "%s: zone rows", what);
    cr_assert_eq(got->null_count, want->null_count, "%s: zone null_count %u, want %u", what, got->null_count,
                 want->null_count);
    cr_assert_eq(got->has_minmax, want->has_minmax, "%s: zone has_minmax", what);
    if (!want->has_minmax) return;
    cr_assert_eq(got->min_i, want->min_i, "%s: zone min %lld, want %lld", what, (long long)got->min_i,
                 (long long)want->min_i);
    cr_assert_eq(got->max_i, want->max_i, "%s: zone max %lld, want %lld", what, (long long)got->max_i,
                 (long long)want->max_i);
    cr_assert(cmp_f64(got->min_d, want->min_d) == 0 && !signbit(got->min_d) == !signbit(want->min_d),
              "%s: zone min %g, want %g", what, got->min_d, want->min_d);
    cr_assert(cmp_f64(got->max_d, want->max_d) == 0 && !signbit(got->max_d) == !signbit(want->max_d),
              "%s: zone max %g, want %g", what, got->max_d, want->max_d);
    cr_assert(got->min_len == want->min_len && memcmp(got->min_s, want->min_s, want->min_len) == 0,
              "%s: zone min string", what);
    cr_assert(got->max_len == want->max_len && memcmp(got->max_s, want->max_s, want->max_len) == 0,
              "%s: zone max string", what);
    cr_assert_eq(got->min_truncated, want->min_truncated, "%s: min_truncated", what);
    cr_assert_eq(got->max_truncated, want->max_truncated, "%s: max_truncated", what);
}

/* ---- encoding and checking ---------------------------------------------------------------- */

/* fill_vector writes rows [from, from + n) of the model into rows 0..n-1 of v. */
static void fill_vector(const col *c, uint32_t from, uint32_t n, vector *v) {
    strata_err err = {0};
    vec_reset(v);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t r = from + k;
        if (c->null[r]) {
            vec_set_null(v, k, 1);
            continue;
        }
        switch (c->phys) {
        case PHYS_BOOL: VEC_DATA(v, uint8_t)[k] = (uint8_t)c->i[r]; break;
        case PHYS_I16: VEC_DATA(v, int16_t)[k] = (int16_t)c->i[r]; break;
        case PHYS_I32: VEC_DATA(v, int32_t)[k] = (int32_t)c->i[r]; break;
        case PHYS_I64: VEC_DATA(v, int64_t)[k] = c->i[r]; break;
        case PHYS_F64: VEC_DATA(v, double)[k] = c->d[r]; break;
        case PHYS_INTERVAL: VEC_DATA(v, sql_interval)[k] = c->iv[r]; break;
        default: cr_assert_eq(vec_set_str(v, k, c->s[r], c->slen[r], &err), STRATA_OK, "%s", err.msg); break;
        }
    }
}

/* encode appends the model's segment to out, appending in pieces of `piece` rows. */
static void encode(const col *c, int force, int zstd, uint32_t piece, btree_buf *out) {
    strata_err err = {0};
    segment_builder b;
    vector v;
    cr_assert_eq(segment_builder_init(&b, c->type, &err), STRATA_OK, "%s", err.msg);
    cr_assert_eq(vec_init(&v, c->type, &err), STRATA_OK, "%s", err.msg);
    for (uint32_t from = 0; from < c->rows; from += piece) {
        uint32_t n = c->rows - from < piece ? c->rows - from : piece;
        fill_vector(c, from, n, &v);
        cr_assert_eq(segment_builder_append(&b, &v, NULL, n, &err), STRATA_OK, "%s", err.msg);
    }
    segment_options opt = {zstd, force};
    cr_assert_eq(segment_builder_finish(&b, &opt, out, &err), STRATA_OK, "finish: %s", err.msg);
    vec_free(&v);
    segment_builder_free(&b);
}

/* check_row compares row k of v with model row r. */
static void check_row(const col *c, const vector *v, uint32_t k, uint32_t r, const char *what) {
    int is_null = vec_is_null(v, k);
    cr_assert_eq(is_null, c->null[r], "%s: row %u: NULL %d, want %d", what, r, is_null, c->null[r]);
    if (is_null) return;
    switch (c->phys) {
    case PHYS_BOOL: cr_assert_eq(VEC_DATA(v, uint8_t)[k], c->i[r], "%s: row %u", what, r); break;
    case PHYS_I16: cr_assert_eq(VEC_DATA(v, int16_t)[k], c->i[r], "%s: row %u", what, r); break;
    case PHYS_I32:
        cr_assert_eq(VEC_DATA(v, int32_t)[k], c->i[r], "%s: row %u: %d, want %lld", what, r,
                     VEC_DATA(v, int32_t)[k], (long long)c->i[r]);
        break;
    case PHYS_I64:
        cr_assert_eq(VEC_DATA(v, int64_t)[k], c->i[r], "%s: row %u: %lld, want %lld", what, r,
                     (long long)VEC_DATA(v, int64_t)[k], (long long)c->i[r]);
        break;
    case PHYS_F64:
        cr_assert(memcmp(&VEC_DATA(v, double)[k], &c->d[r], 8) == 0, "%s: row %u: %g, want %g", what, r,
                  VEC_DATA(v, double)[k], c->d[r]);
        break;
    case PHYS_INTERVAL: {
        const sql_interval *g = &VEC_DATA(v, sql_interval)[k];
        cr_assert(g->months == c->iv[r].months && g->days == c->iv[r].days && g->micros == c->iv[r].micros,
                  "%s: row %u", what, r);
        break;
    }
    default: {
        const sstr *s = &VEC_DATA(v, sstr)[k];
        cr_assert(s->len == c->slen[r] && (s->len == 0 || memcmp(sstr_data(s), c->s[r], s->len) == 0),
                  "%s: row %u: string of %u bytes, want %u", what, r, s->len, c->slen[r]);
        break;
    }
    }
}

/* verify opens the segment and checks every row (decoded by vector and, sampled, one by one),
** the zone maps and the description; returns the encoding used. */
static int verify(const col *c, const uint8_t *buf, size_t len, const char *what) {
    strata_err err = {0};
    segment_reader r;
    cr_assert_eq(segment_open(&r, buf, len, c->type, &err), STRATA_OK, "%s: open: %s", what, err.msg);
    cr_assert_eq(segment_rows(&r), c->rows, "%s", what);
    cr_assert_eq(segment_nvectors(&r), (c->rows + VECTOR_SIZE - 1) / VECTOR_SIZE, "%s", what);
    vector v, one;
    cr_assert_eq(vec_init(&v, c->type, &err), STRATA_OK);
    cr_assert_eq(vec_init(&one, c->type, &err), STRATA_OK);
    vec_reset(&one);
    seg_zone z, want;
    for (uint32_t k = 0; k < segment_nvectors(&r); k++) {
        vec_reset(&v);
        cr_assert_eq(segment_decode_vector(&r, k, &v, &err), STRATA_OK, "%s: vector %u: %s", what, k,
                     err.msg);
        uint32_t n = segment_vector_rows(&r, k);
        for (uint32_t i = 0; i < n; i++) check_row(c, &v, i, k * VECTOR_SIZE + i, what);
        cr_assert_eq(segment_zone(&r, (int)k, &z), STRATA_OK);
        model_zone(c, k * VECTOR_SIZE, n, &want);
        check_zone(&z, &want, what);
    }
    for (uint32_t row = 0; row < c->rows; row += row < 70 ? 1 : 97) {
        uint32_t at = (row * 7) % VECTOR_SIZE;
        cr_assert_eq(segment_get(&r, row, &one, at, &err), STRATA_OK, "%s: get %u: %s", what, row, err.msg);
        check_row(c, &one, at, row, what);
    }
    for (uint32_t q = 0; c->rows && q < 300; q++) { /* back and forth, within a vector and across */
        uint32_t row = (uint32_t)(((uint64_t)q * 1237 + (q % 3) * 40) % c->rows);
        cr_assert_eq(segment_get(&r, row, &one, q % VECTOR_SIZE, &err), STRATA_OK, "%s: get %u: %s", what, row,
                     err.msg);
        check_row(c, &one, q % VECTOR_SIZE, row, what);
    }
    if (c->rows) {
        cr_assert_eq(segment_get(&r, c->rows - 1, &one, 5, &err), STRATA_OK, "%s: %s", what, err.msg);
        check_row(c, &one, 5, c->rows - 1, what);
    }
    cr_assert_eq(segment_zone(&r, -1, &z), STRATA_OK);
    model_zone(c, 0, c->rows, &want);
    check_zone(&z, &want, what);
    seg_info info;
    segment_describe(&r, &info);
    cr_assert_eq(info.rows, c->rows);
    cr_assert_eq(info.null_count, want.null_count);
    cr_assert_eq(info.compressed_bytes, len);
    uint64_t raw = (uint64_t)c->rows * vec_phys_width(c->phys);
    if (c->phys == PHYS_STR)
        for (uint32_t row = 0; row < c->rows; row++) raw += c->null[row] ? 0 : c->slen[row];
    cr_assert_eq(info.uncompressed_bytes, raw, "%s", what);
    char name[32];
    snprintf(name, sizeof name, "%s%s", seg_encoding_name(info.encoding_id), info.zstd_blocks ? "+zstd" : "");
    cr_assert_str_eq(info.encoding, name, "%s", what);
    check_zone(&info.zone, &want, what);
    int enc = info.encoding_id;
    vec_free(&v);
    vec_free(&one);
    segment_reader_close(&r);
    return enc;
}

/* ---- bit-packing -------------------------------------------------------------------------- */

Test(bitpack, round_trip_every_width) {
    static const uint32_t counts[] = {1, 7, 63, 64, 65, 200, 2048};
    uint64_t in[2048], out[2048 + BITPACK_GROUP];
    uint8_t packed[2048 * 8 + 8];
    rng_seed(7);
    for (unsigned w = 0; w <= 64; w++) {
        uint64_t mask = w == 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1;
        for (size_t t = 0; t < sizeof counts / sizeof counts[0]; t++) {
            uint32_t n = counts[t];
            for (uint32_t i = 0; i < n; i++) in[i] = (i % 5 == 0 ? ~UINT64_C(0) : rnd()) & mask;
            memset(packed, 0xAA, sizeof packed);
            bitpack_pack(in, n, w, packed);
            uint64_t bytes = bitpack_bytes(n, w);
            cr_assert_eq(bytes, (n + 63) / 64 * 8 * (uint64_t)w);
            cr_assert_eq(packed[bytes], 0xAA, "width %u, %u values: wrote past bitpack_bytes", w, n);
            bitpack_unpack(packed, n, w, out);
            for (uint32_t i = 0; i < n; i++) {
                cr_assert_eq(out[i], in[i], "width %u, %u values: value %u", w, n, i);
                cr_assert_eq(bitpack_get(packed, i, w), in[i], "width %u, %u values: get %u", w, n, i);
            }
            for (uint32_t i = n; i < (n + 63) / 64 * 64; i++)
                cr_assert_eq(out[i], 0, "padding reads as zero");
        }
    }
}

Test(bitpack, width) {
    cr_assert_eq(bitpack_width(0), 0);
    cr_assert_eq(bitpack_width(1), 1);
    cr_assert_eq(bitpack_width(2), 2);
    cr_assert_eq(bitpack_width(255), 8);
    cr_assert_eq(bitpack_width(256), 9);
    cr_assert_eq(bitpack_width(UINT64_MAX), 64);
}

/* ---- round trips -------------------------------------------------------------------------- */

/* roundtrip encodes every pattern and size of a type with the automatic choice (zstd off and
** on) and with each encoding forced, and verifies each segment. */
static void roundtrip(sql_type type, uint64_t seed) {
    static const uint32_t sizes[] = {1, 2049, 5000, SEGMENT_MAX_ROWS};
    vec_phys phys = vec_phys_of((sql_type_id)type.id);
    for (int pat = 0; pat < PAT_COUNT; pat++) {
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            uint32_t rows = sizes[si];
            /* the full size only for the patterns that exercise the widest encodings */
            if (rows == SEGMENT_MAX_ROWS && pat != PAT_RANDOM && pat != PAT_SORTED && pat != PAT_RUNS)
                continue;
            if (rows == 2049 && pat != PAT_RANDOM && pat != PAT_ALT_NULL) continue;
            col c = make_col(type, (pattern)pat, rows, seed + (uint64_t)pat * 131 + si);
            for (int enc = -1; enc < SEG_ENCODING_COUNT; enc++) {
                if (enc >= 0 && !seg_encoding_applies(enc, phys)) continue;
                for (int zstd = 0; zstd <= (enc < 0 ? 1 : 0); zstd++) {
                    int level = (enc < 0 ? zstd : enc % 2) ? SEGMENT_ZSTD_DEFAULT : 0;
                    char what[160];
                    snprintf(what, sizeof what, "type %u, %s, %u rows, encoding %s, zstd %d", type.id,
                             pattern_names[pat], rows, enc < 0 ? "auto" : seg_encoding_name(enc), level);
                    btree_buf out = {0};
                    encode(&c, enc, level, pat % 2 ? 1000 : VECTOR_SIZE, &out);
                    int used = verify(&c, out.data, out.len, what);
                    if (enc >= 0) {
                        if (model_applies(&c, enc))
                            cr_assert_eq(used, enc, "%s: used %s", what, seg_encoding_name(used));
                        else
                            cr_assert_neq(used, enc, "%s: used an encoding that does not apply", what);
                    }
                    btree_buf_free(&out);
                }
            }
            col_free(&c);
        }
    }
}

Test(segment, roundtrip_boolean) { roundtrip(sql_type_make(TYPE_BOOLEAN), 1); }
Test(segment, roundtrip_smallint) { roundtrip(sql_type_make(TYPE_SMALLINT), 2); }
Test(segment, roundtrip_integer) { roundtrip(sql_type_make(TYPE_INTEGER), 3); }
Test(segment, roundtrip_bigint) { roundtrip(sql_type_make(TYPE_BIGINT), 4); }
Test(segment, roundtrip_date) { roundtrip(sql_type_make(TYPE_DATE), 5); }
Test(segment, roundtrip_decimal) { roundtrip(sql_type_decimal(18, 2), 6); }
Test(segment, roundtrip_timestamp) { roundtrip(sql_type_make(TYPE_TIMESTAMP), 7); }
Test(segment, roundtrip_double) { roundtrip(sql_type_make(TYPE_DOUBLE), 8); }
Test(segment, roundtrip_varchar) { roundtrip(sql_type_varchar(0), 9); }
Test(segment, roundtrip_blob) { roundtrip(sql_type_make(TYPE_BLOB), 10); }
Test(segment, roundtrip_interval) { roundtrip(sql_type_make(TYPE_INTERVAL), 11); }

Test(segment, null_type_and_empty_segment) {
    col c = make_col(sql_type_make(TYPE_NULL), PAT_ALL_NULL, 3000, 1);
    btree_buf out = {0};
    encode(&c, -1, SEGMENT_ZSTD_DEFAULT, 1000, &out);
    cr_assert_eq(verify(&c, out.data, out.len, "NULL type"), SEG_CONSTANT);
    col_free(&c);
    out.len = 0;
    col e = col_new(sql_type_make(TYPE_INTEGER), 0);
    encode(&e, -1, SEGMENT_ZSTD_DEFAULT, 1000, &out);
    verify(&e, out.data, out.len, "empty");
    col_free(&e);
    btree_buf_free(&out);
}

/* check_all_encodings round-trips the same data through every encoding that applies. */
static void check_all_encodings(const col *c, const char *what) {
    for (int enc = 0; enc < SEG_ENCODING_COUNT; enc++) {
        if (!model_applies(c, enc)) continue;
        btree_buf out = {0};
        char w[128];
        snprintf(w, sizeof w, "%s, %s", what, seg_encoding_name(enc));
        encode(c, enc, 0, VECTOR_SIZE, &out);
        cr_assert_eq(verify(c, out.data, out.len, w), enc, "%s", w);
        btree_buf_free(&out);
    }
}

Test(segment, int64_extremes_force_64_bit_widths) {
    col c = col_new(sql_type_make(TYPE_BIGINT), 5000);
    rng_seed(3);
    for (uint32_t r = 0; r < c.rows; r++) c.i[r] = r % 2 ? INT64_MAX : INT64_MIN;
    c.i[17] = 0, c.i[4000] = -1, c.null[99] = 1;
    check_all_encodings(&c, "INT64_MIN/INT64_MAX alternating");
    for (uint32_t r = 0; r < c.rows; r++)
        c.i[r] = rnd() % 3 == 0 ? INT64_MIN : rnd() % 2 ? INT64_MAX : (int64_t)rnd();
    check_all_encodings(&c, "INT64 extremes at random");
    col_free(&c);
    sql_type narrow[] = {sql_type_make(TYPE_SMALLINT), sql_type_make(TYPE_INTEGER)};
    for (int t = 0; t < 2; t++) {
        col n = col_new(narrow[t], 3000);
        int64_t lo, hi;
        int_range(n.phys, &lo, &hi);
        for (uint32_t r = 0; r < n.rows; r++) n.i[r] = r % 3 == 0 ? lo : r % 3 == 1 ? hi : lo + 1;
        check_all_encodings(&n, "narrow extremes");
        col_free(&n);
    }
}

Test(segment, doubles_special_values) {
    col c = col_new(sql_type_make(TYPE_DOUBLE), 4100);
    static const double v[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0, DBL_MAX, -DBL_MAX, DBL_MIN, 4.9e-324};
    for (uint32_t r = 0; r < c.rows; r++) c.d[r] = v[r % 9];
    c.null[5] = c.null[2048] = 1;
    check_all_encodings(&c, "special doubles");
    /* zone maps: NaN is the max, -0.0 reads as 0.0 */
    col z = col_new(sql_type_make(TYPE_DOUBLE), 3);
    z.d[0] = -0.0, z.d[1] = NAN, z.d[2] = 5;
    btree_buf out = {0};
    encode(&z, -1, 0, 3, &out);
    segment_reader r;
    strata_err err = {0};
    cr_assert_eq(segment_open(&r, out.data, out.len, z.type, &err), STRATA_OK, "%s", err.msg);
    seg_zone zone;
    segment_zone(&r, -1, &zone);
    cr_assert(zone.has_minmax && zone.min_d == 0 && !signbit(zone.min_d) && isnan(zone.max_d));
    segment_reader_close(&r);
    btree_buf_free(&out);
    col_free(&z);
    col_free(&c);
}

Test(segment, strings_empty_long_and_one_mib) {
    col c = col_new(sql_type_varchar(0), 3000);
    for (uint32_t r = 0; r < c.rows; r++) set_str(&c, r, "", 0);
    check_all_encodings(&c, "all empty strings");
    char *big = malloc(1 << 20);
    rng_seed(5);
    for (size_t k = 0; k < 1 << 20; k++) big[k] = (char)rnd();
    set_str(&c, 1500, big, 1 << 20);
    set_str(&c, 10, "x", 1);
    c.null[11] = 1;
    check_all_encodings(&c, "one 1 MiB string among empty ones");
    btree_buf out = {0};
    encode(&c, -1, SEGMENT_ZSTD_DEFAULT, 1000, &out);
    verify(&c, out.data, out.len, "1 MiB string, zstd");
    btree_buf_free(&out);
    free(big);
    col_free(&c);
}

/* ---- the encoding chosen ------------------------------------------------------------------ */

static int encoding_of(const col *c, int zstd, seg_info *info) {
    btree_buf out = {0};
    encode(c, -1, zstd, VECTOR_SIZE, &out);
    verify(c, out.data, out.len, "choice");
    segment_reader r;
    strata_err err = {0};
    cr_assert_eq(segment_open(&r, out.data, out.len, c->type, &err), STRATA_OK, "%s", err.msg);
    segment_describe(&r, info);
    segment_reader_close(&r);
    btree_buf_free(&out);
    return info->encoding_id;
}

Test(segment, choice_constant) {
    seg_info info;
    col c = make_col(sql_type_make(TYPE_INTEGER), PAT_CONSTANT, SEGMENT_MAX_ROWS, 1);
    cr_assert_eq(encoding_of(&c, 0, &info), SEG_CONSTANT);
    cr_assert_lt(info.compressed_bytes, 2000, "constant of %u rows in %llu bytes", c.rows,
                 (unsigned long long)info.compressed_bytes);
    col_free(&c);
    c = make_col(sql_type_varchar(0), PAT_CONSTANT, 5000, 2);
    cr_assert_eq(encoding_of(&c, 0, &info), SEG_CONSTANT);
    col_free(&c);
    c = make_col(sql_type_make(TYPE_DOUBLE), PAT_ALL_NULL, 5000, 2);
    cr_assert_eq(encoding_of(&c, 0, &info), SEG_CONSTANT);
    col_free(&c);
}

Test(segment, choice_for_small_ints) {
    seg_info info;
    col c = col_new(sql_type_make(TYPE_INTEGER), SEGMENT_MAX_ROWS);
    rng_seed(11);
    for (uint32_t r = 0; r < c.rows; r++) c.i[r] = 1 + (int64_t)(rnd() % 100);
    cr_assert_eq(encoding_of(&c, 0, &info), SEG_FOR, "1..100 at random: %s", info.encoding);
    cr_assert_leq(info.compressed_bytes, c.rows, "%llu bytes for %u values",
                  (unsigned long long)info.compressed_bytes, c.rows);
    col_free(&c);
}

Test(segment, choice_delta_for_sorted_ids) {
    seg_info info;
    col c = col_new(sql_type_make(TYPE_BIGINT), SEGMENT_MAX_ROWS);
    for (uint32_t r = 0; r < c.rows; r++) c.i[r] = 1000000 + r;
    cr_assert_eq(encoding_of(&c, 0, &info), SEG_DELTA, "sorted ids: %s", info.encoding);
    cr_assert_lt(info.compressed_bytes, c.rows / 20, "%llu bytes for %u ids",
                 (unsigned long long)info.compressed_bytes, c.rows);
    /* ids with small random gaps */
    rng_seed(12);
    for (uint32_t r = 1; r < c.rows; r++) c.i[r] = c.i[r - 1] + 1 + (int64_t)(rnd() % 3);
    cr_assert_eq(encoding_of(&c, 0, &info), SEG_DELTA, "ids with gaps: %s", info.encoding);
    cr_assert_lt(info.compressed_bytes, c.rows / 2);
    col_free(&c);
}

Test(segment, choice_dictionary_for_prices) {
    seg_info info;
    col c = col_new(sql_type_make(TYPE_DOUBLE), SEGMENT_MAX_ROWS);
    rng_seed(13);
    for (uint32_t r = 0; r < c.rows; r++) c.d[r] = 900.0 + (double)(rnd() % 100) * 0.25;
    cr_assert_eq(encoding_of(&c, 0, &info), SEG_DICTIONARY, "prices: %s", info.encoding);
    cr_assert_leq(info.compressed_bytes, c.rows);
    col_free(&c);
}

Test(segment, choice_rle_for_long_runs) {
    seg_info info;
    col c = col_new(sql_type_make(TYPE_BIGINT), SEGMENT_MAX_ROWS);
    rng_seed(14);
    int64_t v = 0;
    for (uint32_t r = 0; r < c.rows; r++) {
        if (r % 1000 == 0) v = (int64_t)rnd();
        c.i[r] = v;
    }
    cr_assert_eq(encoding_of(&c, 0, &info), SEG_RLE, "runs: %s", info.encoding);
    col_free(&c);
    c = col_new(sql_type_varchar(0), 20000);
    for (uint32_t r = 0; r < c.rows; r++) {
        char buf[64];
        set_str(&c, r, buf,
                (uint32_t)snprintf(buf, sizeof buf, "status-%u-%llu", r / 3000,
                                   (unsigned long long)rnd() % 7 + r / 3000));
        if (r % 3000) set_str(&c, r, c.s[r - 1], c.slen[r - 1]);
    }
    cr_assert_eq(encoding_of(&c, 0, &info), SEG_RLE, "string runs: %s", info.encoding);
    col_free(&c);
}

Test(segment, choice_strings_dictionary_or_plain) {
    seg_info info;
    col c = make_col(sql_type_varchar(0), PAT_LOWCARD, 50000, 15);
    cr_assert_eq(encoding_of(&c, 0, &info), SEG_DICTIONARY, "20 distinct strings: %s", info.encoding);
    col_free(&c);
    c = col_new(sql_type_varchar(0), 50000);
    rng_seed(16);
    for (uint32_t r = 0; r < c.rows; r++) { /* random bytes: nothing to gain */
        char buf[100];
        for (uint32_t k = 0; k < sizeof buf; k++) buf[k] = (char)rnd();
        set_str(&c, r, buf, sizeof buf);
    }
    cr_assert_eq(encoding_of(&c, 0, &info), SEG_PLAIN, "distinct strings: %s", info.encoding);
    /* and the dictionary, forced, is larger */
    btree_buf out = {0};
    encode(&c, SEG_DICTIONARY, 0, VECTOR_SIZE, &out);
    cr_assert_gt(out.len, info.compressed_bytes);
    cr_assert_eq(verify(&c, out.data, out.len, "forced dictionary"), SEG_DICTIONARY);
    btree_buf_free(&out);
    col_free(&c);
}

Test(segment, zstd_where_it_pays) {
    /* distinct strings made of 500 tokens of 40 random bytes: too many values for a dictionary,
    ** nothing for fsst's short symbols, long repeats for zstd */
    char tokens[500][40];
    rng_seed(19);
    for (int t = 0; t < 500; t++)
        for (int k = 0; k < 40; k++) tokens[t][k] = (char)rnd();
    col c = col_new(sql_type_varchar(0), 30000);
    for (uint32_t r = 0; r < c.rows; r++) {
        char buf[48];
        memcpy(buf, tokens[rnd() % 500], 40);
        memcpy(buf + 40, &r, 4);
        set_str(&c, r, buf, 44);
    }
    seg_info info;
    cr_assert_eq(encoding_of(&c, SEGMENT_ZSTD_DEFAULT, &info), SEG_PLAIN);
    cr_assert_str_eq(info.encoding, "plain+zstd");
    cr_assert_gt(info.zstd_blocks, 0);
    uint64_t zbytes = info.compressed_bytes;
    cr_assert_eq(encoding_of(&c, 0, &info), SEG_PLAIN);
    cr_assert_str_eq(info.encoding, "plain");
    cr_assert_eq(info.zstd_blocks, 0);
    cr_assert_lt(zbytes * 2, info.compressed_bytes, "zstd %llu bytes, plain %llu", (unsigned long long)zbytes,
                 (unsigned long long)info.compressed_bytes);
    /* incompressible blocks stay raw */
    col_free(&c);
    c = col_new(sql_type_make(TYPE_BLOB), 5000);
    rng_seed(17);
    for (uint32_t r = 0; r < c.rows; r++) rand_str(&c, r, 40);
    encoding_of(&c, SEGMENT_ZSTD_DEFAULT, &info);
    cr_assert_eq(info.zstd_blocks, 0, "random bytes were compressed: %s", info.encoding);
    col_free(&c);
}

Test(segment, fsst_for_text) {
    /* distinct text: fsst, much smaller than plain, never under zstd, every row read alone */
    col c = col_new(sql_type_varchar(0), 30000);
    for (uint32_t r = 0; r < c.rows; r++) {
        char buf[96];
        set_str(&c, r, buf,
                (uint32_t)snprintf(buf, sizeof buf, "https://example.com/customers/%08u/orders?page=%u",
                                   r * 7919 % 100003, r % 13));
    }
    c.null[5] = c.null[70] = c.null[29999] = 1;
    seg_info info;
    for (int level = 0; level <= SEGMENT_ZSTD_DEFAULT; level += SEGMENT_ZSTD_DEFAULT) {
        cr_assert_eq(encoding_of(&c, level, &info), SEG_FSST, "text at zstd %d: %s", level, info.encoding);
        cr_assert_str_eq(info.encoding, "fsst");
        cr_assert_eq(info.zstd_blocks, 0);
    }
    btree_buf plain = {0};
    encode(&c, SEG_PLAIN, 0, VECTOR_SIZE, &plain);
    cr_assert_lt(info.compressed_bytes * 2, plain.len, "fsst %llu bytes, plain %zu",
                 (unsigned long long)info.compressed_bytes, plain.len);
    btree_buf_free(&plain);
    col_free(&c);
}

Test(segment, zstd_never_at_level_zero) {
    for (int pat = 0; pat < PAT_COUNT; pat++) {
        col c = make_col(sql_type_varchar(0), (pattern)pat, 10000, 18 + (uint64_t)pat);
        for (int enc = -1; enc < SEG_ENCODING_COUNT; enc++) {
            if (enc >= 0 && !seg_encoding_applies(enc, PHYS_STR)) continue;
            btree_buf out = {0};
            encode(&c, enc, 0, VECTOR_SIZE, &out);
            segment_reader r;
            strata_err err = {0};
            cr_assert_eq(segment_open(&r, out.data, out.len, c.type, &err), STRATA_OK, "%s", err.msg);
            seg_info info;
            segment_describe(&r, &info);
            cr_assert_eq(info.zstd_blocks, 0);
            cr_assert_null(strstr(info.encoding, "zstd"));
            segment_reader_close(&r);
            btree_buf_free(&out);
        }
        col_free(&c);
    }
}

Test(segment, finish_twice_and_keep_appending) {
    col c = make_col(sql_type_make(TYPE_INTEGER), PAT_RANDOM, 3000, 19);
    strata_err err = {0};
    segment_builder b;
    vector v;
    cr_assert_eq(segment_builder_init(&b, c.type, &err), STRATA_OK);
    cr_assert_eq(vec_init(&v, c.type, &err), STRATA_OK);
    fill_vector(&c, 0, 2000, &v);
    cr_assert_eq(segment_builder_append(&b, &v, NULL, 2000, &err), STRATA_OK);
    btree_buf a = {0}, d = {0};
    segment_options o = segment_options_default();
    cr_assert_eq(segment_builder_finish(&b, &o, &a, &err), STRATA_OK);
    cr_assert_eq(segment_builder_finish(&b, NULL, &d, &err), STRATA_OK);
    cr_assert(a.len == d.len && memcmp(a.data, d.data, a.len) == 0, "finish is repeatable");
    fill_vector(&c, 2000, 1000, &v);
    cr_assert_eq(segment_builder_append(&b, &v, NULL, 1000, &err), STRATA_OK);
    /* a segment appended after another in the same buffer */
    size_t at = a.len;
    cr_assert_eq(segment_builder_finish(&b, &o, &a, &err), STRATA_OK);
    verify(&c, a.data + at, a.len - at, "after more rows");
    segment_builder_reset(&b);
    cr_assert_eq(segment_builder_rows(&b), 0);
    fill_vector(&c, 0, 3, &v);
    cr_assert_eq(segment_builder_append(&b, &v, NULL, 3, &err), STRATA_OK);
    d.len = 0;
    cr_assert_eq(segment_builder_finish(&b, &o, &d, &err), STRATA_OK);
    col three = col_new(c.type, 3);
    for (uint32_t r = 0; r < 3; r++) three.i[r] = c.i[r], three.null[r] = c.null[r];
    verify(&three, d.data, d.len, "after reset");
    col_free(&three);
    btree_buf_free(&a);
    btree_buf_free(&d);
    vec_free(&v);
    segment_builder_free(&b);
    segment_builder_free(&b);
    col_free(&c);
}

/* ---- appending through selections and vector kinds ---------------------------------------- */

Test(segment, append_reads_through_selections) {
    strata_err err = {0};
    sql_type t = sql_type_varchar(0);
    vector v, d, k;
    cr_assert_eq(vec_init(&v, t, &err), STRATA_OK);
    cr_assert_eq(vec_init(&d, t, &err), STRATA_OK);
    cr_assert_eq(vec_init(&k, t, &err), STRATA_OK);
    col c = col_new(t, 0);
    col want = col_new(t, 300);
    for (uint32_t r = 0; r < 100; r++) {
        char buf[32];
        cr_assert_eq(vec_set_str(&v, r, buf, (size_t)snprintf(buf, sizeof buf, "value number %u", r), &err),
                     STRATA_OK);
    }
    vec_set_null(&v, 7, 1);
    segment_builder b;
    cr_assert_eq(segment_builder_init(&b, t, &err), STRATA_OK);
    /* an explicit selection over a flat vector: rows 99, 97, ... */
    sel_t sel[100];
    for (uint32_t i = 0; i < 50; i++) sel[i] = 99 - 2 * i;
    cr_assert_eq(segment_builder_append(&b, &v, sel, 50, &err), STRATA_OK);
    /* a dictionary vector (a slice) with the explicit selection on top */
    sel_t slice[100];
    for (uint32_t i = 0; i < 100; i++) slice[i] = (i * 3) % 100;
    vec_slice(&d, &v, slice, 100);
    cr_assert_eq(segment_builder_append(&b, &d, sel, 50, &err), STRATA_OK);
    /* a constant vector */
    cr_assert_eq(vec_set_str(&k, 0, "the same long string", 20, &err), STRATA_OK);
    vec_make_constant(&k);
    cr_assert_eq(segment_builder_append(&b, &k, NULL, 200, &err), STRATA_OK);
    for (uint32_t i = 0; i < 50; i++) {
        uint32_t r1 = 99 - 2 * i, r2 = slice[99 - 2 * i];
        char buf[32];
        set_str(&want, i, buf, (uint32_t)snprintf(buf, sizeof buf, "value number %u", r1));
        set_str(&want, 50 + i, buf, (uint32_t)snprintf(buf, sizeof buf, "value number %u", r2));
        want.null[i] = r1 == 7;
        want.null[50 + i] = r2 == 7;
    }
    for (uint32_t i = 100; i < 300; i++) set_str(&want, i, "the same long string", 20);
    cr_assert_eq(segment_builder_rows(&b), 300);
    btree_buf out = {0};
    cr_assert_eq(segment_builder_finish(&b, NULL, &out, &err), STRATA_OK);
    verify(&want, out.data, out.len, "appended through selections");
    btree_buf_free(&out);
    segment_builder_free(&b);
    vec_free(&v);
    vec_free(&d);
    vec_free(&k);
    col_free(&c);
    col_free(&want);
}

Test(segment, misuse) {
    strata_err err = {0};
    segment_builder b;
    vector v, s;
    cr_assert_eq(segment_builder_init(&b, sql_type_make(TYPE_INTEGER), &err), STRATA_OK);
    cr_assert_eq(vec_init(&v, sql_type_make(TYPE_INTEGER), &err), STRATA_OK);
    cr_assert_eq(vec_init(&s, sql_type_varchar(0), &err), STRATA_OK);
    for (uint32_t r = 0; r < VECTOR_SIZE; r++) VEC_DATA(&v, int32_t)[r] = (int32_t)r;
    for (int k = 0; k < SEGMENT_VECTORS; k++)
        cr_assert_eq(segment_builder_append(&b, &v, NULL, VECTOR_SIZE, &err), STRATA_OK, "%s", err.msg);
    memset(&err, 0, sizeof err);
    cr_assert_eq(segment_builder_append(&b, &v, NULL, 1, &err), STRATA_MISUSE);
    cr_assert_neq(err.msg[0], 0);
    cr_assert_eq(segment_builder_rows(&b), SEGMENT_MAX_ROWS);
    cr_assert_eq(segment_builder_append(&b, &s, NULL, 0, &err), STRATA_MISUSE, "wrong physical type");
    btree_buf out = {0};
    segment_options bad = {1000, -1};
    cr_assert_eq(segment_builder_finish(&b, &bad, &out, &err), STRATA_MISUSE);
    cr_assert_eq(out.len, 0);
    cr_assert_eq(segment_builder_finish(&b, NULL, &out, &err), STRATA_OK);
    segment_reader r;
    cr_assert_eq(segment_open(&r, out.data, out.len, sql_type_make(TYPE_DATE), &err), STRATA_CORRUPT,
                 "a segment of another type");
    cr_assert_eq(segment_open(&r, out.data, out.len, sql_type_make(TYPE_INTEGER), &err), STRATA_OK);
    cr_assert_eq(segment_decode_vector(&r, SEGMENT_VECTORS, &v, &err), STRATA_MISUSE);
    cr_assert_eq(segment_decode_vector(&r, 0, &s, &err), STRATA_MISUSE);
    cr_assert_eq(segment_get(&r, SEGMENT_MAX_ROWS, &v, 0, &err), STRATA_MISUSE);
    seg_zone z;
    cr_assert_eq(segment_zone(&r, SEGMENT_VECTORS, &z), STRATA_MISUSE);
    cr_assert_eq(segment_zone(&r, -2, &z), STRATA_MISUSE);
    sel_t sel[VECTOR_SIZE];
    uint32_t n;
    seg_const c = {.i = 1};
    cr_assert_eq(segment_filter(&r, 60, SEG_EQ, &c, sel, &n, &err), STRATA_MISUSE);
    segment_reader_close(&r);
    segment_reader_close(&r);
    btree_buf_free(&out);
    vec_free(&v);
    vec_free(&s);
    segment_builder_free(&b);
}

/* ---- filters on the encoded data ---------------------------------------------------------- */

static int model_passes(const col *c, uint32_t r, seg_cmp op, const seg_const *k) {
    if (c->null[r]) return 0;
    int cmp;
    switch (c->phys) {
    case PHYS_F64: cmp = cmp_f64(c->d[r], k->d); break;
    case PHYS_STR: cmp = cmp_bytes(c->s[r], c->slen[r], k->s, k->len); break;
    default: cmp = c->i[r] < k->i ? -1 : c->i[r] > k->i; break;
    }
    switch (op) {
    case SEG_EQ: return cmp == 0;
    case SEG_NE: return cmp != 0;
    case SEG_LT: return cmp < 0;
    case SEG_LE: return cmp <= 0;
    case SEG_GT: return cmp > 0;
    default: return cmp >= 0;
    }
}

/* check_filters evaluates every operator with constants taken from the data (and outside it)
** on every vector of the segment and compares with the model. */
static void check_filters(const col *c, const uint8_t *buf, size_t len, const char *what) {
    strata_err err = {0};
    segment_reader r;
    cr_assert_eq(segment_open(&r, buf, len, c->type, &err), STRATA_OK, "%s", err.msg);
    sel_t sel[VECTOR_SIZE];
    for (int probe = 0; probe < 6; probe++) {
        seg_const k = {0};
        uint32_t from = (uint32_t)(rnd() % (c->rows ? c->rows : 1));
        if (c->phys == PHYS_STR) {
            k.s = c->rows ? c->s[from] : "";
            k.len = c->rows ? c->slen[from] : 0;
            if (probe == 5) k.s = "", k.len = 0;
        } else {
            k.i = c->rows ? c->i[from] : 0;
            k.d = c->rows ? c->d[from] : 0;
            if (probe == 4) k.i = INT64_MIN, k.d = -INFINITY;
            if (probe == 5) k.i = INT64_MAX, k.d = NAN;
        }
        for (int op = SEG_EQ; op <= SEG_GE; op++) {
            for (uint32_t v = 0; v < segment_nvectors(&r); v++) {
                uint32_t n = 12345;
                cr_assert_eq(segment_filter(&r, v, (seg_cmp)op, &k, sel, &n, &err), STRATA_OK, "%s: %s", what,
                             err.msg);
                uint32_t m = 0, rows = segment_vector_rows(&r, v);
                for (uint32_t i = 0; i < rows; i++) {
                    if (!model_passes(c, v * VECTOR_SIZE + i, (seg_cmp)op, &k)) continue;
                    cr_assert(m < n && sel[m] == i, "%s: op %d, vector %u: row %u should pass", what, op, v,
                              i);
                    m++;
                }
                cr_assert_eq(m, n, "%s: op %d, vector %u: %u rows pass, want %u", what, op, v, n, m);
            }
        }
        /* two conditions on the column at once (a range: the vector decoded once), against the
        ** model of both: this probe's constant with every operator, and a second constant from
        ** another row */
        seg_const k2 = k;
        uint32_t from2 = (uint32_t)(rnd() % (c->rows ? c->rows : 1));
        if (c->rows && c->phys == PHYS_STR) k2.s = c->s[from2], k2.len = c->slen[from2];
        else if (c->rows) k2.i = c->i[from2], k2.d = c->d[from2];
        for (int op = SEG_EQ; op <= SEG_GE; op++) {
            seg_cond conds[2] = {{(seg_cmp)op, k}, {(seg_cmp)(SEG_GE - op), k2}};
            for (uint32_t v = 0; v < segment_nvectors(&r); v++) {
                uint64_t mask[VALIDITY_WORDS];
                cr_assert_eq(segment_filter_mask(&r, v, conds, 2, mask, &err), STRATA_OK, "%s: %s", what, err.msg);
                uint32_t rows = segment_vector_rows(&r, v);
                for (uint32_t i = 0; i < VALIDITY_WORDS * 64; i++) {
                    bool want = i < rows && model_passes(c, v * VECTOR_SIZE + i, conds[0].op, &k) &&
                                model_passes(c, v * VECTOR_SIZE + i, conds[1].op, &k2);
                    bool got = i < (rows + 63) / 64 * 64 && (mask[i >> 6] >> (i & 63) & 1);
                    cr_assert_eq(got, want, "%s: ops %d and %d, vector %u, row %u: %d, want %d", what, conds[0].op,
                                 conds[1].op, v, i, got, want);
                }
            }
        }
    }
    segment_reader_close(&r);
}

/* each_encoding checks columns of every type in types and every pattern, 4500 rows from seed on,
** in every encoding that applies to them, with check. */
typedef void (*segment_check)(const col *c, const uint8_t *buf, size_t len, const char *what);

static void each_encoding(const sql_type *types, size_t ntypes, uint64_t seed, segment_check check) {
    pattern pats[] = {PAT_RANDOM, PAT_LOWCARD,  PAT_ALT_NULL, PAT_RUNS,
                      PAT_SORTED, PAT_CONSTANT, PAT_EXTREME,  PAT_ALL_NULL};
    for (size_t t = 0; t < ntypes; t++)
        for (size_t p = 0; p < sizeof pats / sizeof pats[0]; p++) {
            col c = make_col(types[t], pats[p], 4500, seed + t * 10 + p);
            for (int enc = 0; enc < SEG_ENCODING_COUNT; enc++) {
                if (!model_applies(&c, enc)) continue;
                btree_buf out = {0};
                encode(&c, enc, 0, VECTOR_SIZE, &out);
                char what[96];
                snprintf(what, sizeof what, "type %u, %s, %s", types[t].id, pattern_names[pats[p]],
                         seg_encoding_name(enc));
                check(&c, out.data, out.len, what);
                btree_buf_free(&out);
            }
            col_free(&c);
        }
}

Test(segment, filter_every_encoding) {
    sql_type types[] = {sql_type_make(TYPE_SMALLINT), sql_type_make(TYPE_BIGINT), sql_type_make(TYPE_DOUBLE),
                        sql_type_varchar(0), sql_type_make(TYPE_BOOLEAN)};
    each_encoding(types, sizeof types / sizeof types[0], 40, check_filters);
}

/* Frames of reference of 30, 31 and 32 bits (31 the widest compared in 32-bit lanes), the
** constants at and around the frame's edges, above every offset by one and by 2^31 (where a
** 32-bit compare would wrap), below the base, and far out, with every operator against the model. */
Test(segment, filter_frame_edges) {
    const unsigned widths[] = {30, 31, 32};
    const int64_t bases[] = {-5000000000, 0, 7};
    for (size_t wi = 0; wi < 3; wi++)
        for (size_t bi = 0; bi < 3; bi++) {
            int64_t top = ((int64_t)1 << widths[wi]) - 1, base = bases[bi];
            col c = col_new(sql_type_make(TYPE_BIGINT), VECTOR_SIZE + 77);
            rng_seed(300 + wi * 3 + bi);
            for (uint32_t r = 0; r < c.rows; r++) {
                uint64_t pick = rnd() % 4;
                c.i[r] = base + (pick == 0 ? 0 : pick == 1 ? top : (int64_t)(rnd() % (uint64_t)(top + 1)));
            }
            c.i[0] = base, c.i[1] = base + top; /* the frame spans exactly the width */
            btree_buf out = {0};
            encode(&c, SEG_FOR, 0, VECTOR_SIZE, &out);
            char what[64];
            snprintf(what, sizeof what, "frame of %u bits from %lld", widths[wi], (long long)base);
            cr_assert_eq(verify(&c, out.data, out.len, what), SEG_FOR);
            strata_err err = {0};
            segment_reader r;
            cr_assert_eq(segment_open(&r, out.data, out.len, c.type, &err), STRATA_OK, "%s", err.msg);
            const int64_t ks[] = {INT64_MIN, base - 1, base, base + 1, base + top / 2, base + top - 1, base + top,
                                  base + top + 1, base + ((int64_t)1 << 31), base + ((int64_t)1 << 31) + 5,
                                  base + ((int64_t)1 << 32), INT64_MAX};
            for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
                for (int op = SEG_EQ; op <= SEG_GE; op++) {
                    seg_cond cond = {(seg_cmp)op, {.i = ks[ki]}};
                    for (uint32_t v = 0; v < segment_nvectors(&r); v++) {
                        uint64_t mask[VALIDITY_WORDS];
                        cr_assert_eq(segment_filter_mask(&r, v, &cond, 1, mask, &err), STRATA_OK, "%s", err.msg);
                        uint32_t rows = segment_vector_rows(&r, v);
                        for (uint32_t i = 0; i < rows; i++) {
                            bool want = model_passes(&c, v * VECTOR_SIZE + i, (seg_cmp)op, &cond.c);
                            bool got = mask[i >> 6] >> (i & 63) & 1;
                            cr_assert_eq(got, want, "%s: op %d against %lld, vector %u, row %u (%lld): %d, want %d",
                                         what, op, (long long)ks[ki], v, i, (long long)c.i[v * VECTOR_SIZE + i], got,
                                         want);
                        }
                    }
                }
            segment_reader_close(&r);
            btree_buf_free(&out);
            col_free(&c);
        }
}

/* check_get_rows reads random subsets of each vector's rows (ascending, as scans pass them, and
** of every size up to a whole vector) with segment_get_rows and compares every value and NULL
** with segment_get of the same row. */
static void check_get_rows(const col *c, const uint8_t *buf, size_t len, const char *what) {
    strata_err err = {0};
    segment_reader r;
    cr_assert_eq(segment_open(&r, buf, len, c->type, &err), STRATA_OK, "%s", err.msg);
    vector got, want;
    cr_assert_eq(vec_init(&got, c->type, &err), STRATA_OK);
    cr_assert_eq(vec_init(&want, c->type, &err), STRATA_OK);
    static const uint32_t sizes[] = {1, 2, 7, 64, 128, 1000};
    for (uint32_t v = 0; v < segment_nvectors(&r); v++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            uint32_t rows = segment_vector_rows(&r, v), n = 0;
            sel_t sel[VECTOR_SIZE];
            for (uint32_t i = 0; i < rows && n < sizes[z]; i++)
                if (rnd() % rows < sizes[z] * 2) sel[n++] = i;
            vec_reset(&got);
            vec_reset(&want);
            cr_assert_eq(segment_get_rows(&r, v, sel, n, &got, &err), STRATA_OK, "%s: %s", what, err.msg);
            for (uint32_t i = 0; i < n; i++) {
                cr_assert_eq(segment_get(&r, (uint64_t)v * VECTOR_SIZE + sel[i], &want, i, &err), STRATA_OK, "%s",
                             err.msg);
                bool an = vec_is_null(&got, i), bn = vec_is_null(&want, i);
                cr_assert_eq(an, bn, "%s: vector %u, row %u: NULL %d, want %d", what, v, sel[i], an, bn);
                if (an) continue;
                if (got.phys == PHYS_STR) {
                    const sstr *x = &VEC_DATA(&got, sstr)[i], *y = &VEC_DATA(&want, sstr)[i];
                    cr_assert(x->len == y->len && !memcmp(sstr_data(x), sstr_data(y), x->len),
                              "%s: vector %u, row %u: strings differ", what, v, sel[i]);
                } else {
                    cr_assert(!memcmp((const uint8_t *)got.data + (size_t)i * got.width,
                                      (const uint8_t *)want.data + (size_t)i * want.width, got.width),
                              "%s: vector %u, row %u differs", what, v, sel[i]);
                }
            }
        }
    vec_free(&got);
    vec_free(&want);
    segment_reader_close(&r);
}

Test(segment, get_rows_every_encoding) {
    sql_type types[] = {sql_type_make(TYPE_SMALLINT), sql_type_make(TYPE_INTEGER), sql_type_make(TYPE_BIGINT),
                        sql_type_make(TYPE_DOUBLE),   sql_type_varchar(0),         sql_type_make(TYPE_BOOLEAN)};
    each_encoding(types, sizeof types / sizeof types[0], 90, check_get_rows);
}

/* ---- zone maps ---------------------------------------------------------------------------- */

Test(segment, zone_maps_strings_truncated) {
    col c = col_new(sql_type_varchar(0), 5000);
    char buf[100];
    for (uint32_t r = 0; r < c.rows; r++) {
        memset(buf, 'm', sizeof buf);
        set_str(&c, r, buf, 10 + r % 50);
    }
    memset(buf, 'z', sizeof buf);
    set_str(&c, 4500, buf, 40); /* max, longer than 32 bytes */
    set_str(&c, 100, "a", 1);   /* min */
    for (uint32_t r = 2048; r < 4096; r++) c.null[r] = 1;
    btree_buf out = {0};
    encode(&c, -1, 0, VECTOR_SIZE, &out);
    verify(&c, out.data, out.len, "string zones");
    strata_err err = {0};
    segment_reader r;
    cr_assert_eq(segment_open(&r, out.data, out.len, c.type, &err), STRATA_OK);
    seg_zone z;
    segment_zone(&r, -1, &z);
    cr_assert(z.has_minmax && z.min_len == 1 && z.min_s[0] == 'a' && !z.min_truncated);
    cr_assert(z.max_len == 32 && z.max_truncated && z.max_s[31] == 'z');
    segment_zone(&r, 1, &z);
    cr_assert(!z.has_minmax && z.null_count == 2048);
    segment_reader_close(&r);
    btree_buf_free(&out);
    col_free(&c);
}

/* ---- corruption --------------------------------------------------------------------------- */

static void fix_crc(uint8_t *buf, size_t len) {
    uint32_t crc = crc32c(0, buf + 8, len - 8);
    memcpy(buf + SEGMENT_CRC_OFFSET, &crc, 4);
}

/* How often damaged buffers behind a valid checksum opened, and how often decoding then found
** the damage: both must happen, or the test would not reach the decoders' checks. */
static unsigned opened_damaged, decode_caught;

/* exercise reads everything a damaged segment offers; any status but OK or CORRUPT fails. */
static void exercise(const col *c, const uint8_t *buf, size_t len, vector *v) {
    strata_err err = {0};
    segment_reader r;
    int rc = segment_open(&r, buf, len, c->type, &err);
    cr_assert(rc == STRATA_OK || rc == STRATA_CORRUPT, "open: %d %s", rc, err.msg);
    if (rc) {
        cr_assert_neq(err.msg[0], 0, "a corrupt segment says why");
        return;
    }
    opened_damaged++;
    seg_info info;
    segment_describe(&r, &info);
    for (uint32_t k = 0; k < segment_nvectors(&r); k++) {
        vec_reset(v);
        memset(&err, 0, sizeof err);
        rc = segment_decode_vector(&r, k, v, &err);
        cr_assert(rc == STRATA_OK || rc == STRATA_CORRUPT, "decode: %d %s", rc, err.msg);
        decode_caught += rc == STRATA_CORRUPT;
        seg_zone z;
        segment_zone(&r, (int)k, &z);
        sel_t sel[VECTOR_SIZE];
        uint32_t n;
        seg_const k0 = {.i = 3, .d = 1.5, .s = "key", .len = 3};
        if (c->phys != PHYS_INTERVAL) {
            rc = segment_filter(&r, k, SEG_LE, &k0, sel, &n, &err);
            cr_assert(rc == STRATA_OK || rc == STRATA_CORRUPT, "filter: %d %s", rc, err.msg);
        }
    }
    vec_reset(v);
    for (uint32_t row = 0; row < segment_rows(&r); row += 37) {
        rc = segment_get(&r, row, v, row % VECTOR_SIZE, &err);
        cr_assert(rc == STRATA_OK || rc == STRATA_CORRUPT, "get: %d %s", rc, err.msg);
    }
    segment_reader_close(&r);
}

static void corrupt_all(const col *c, int enc, int zstd) {
    btree_buf out = {0};
    encode(c, enc, zstd, VECTOR_SIZE, &out);
    strata_err err = {0};
    vector v;
    cr_assert_eq(vec_init(&v, c->type, &err), STRATA_OK);
    uint8_t *copy = malloc(out.len);
    /* every truncation, every flipped byte: the checksum (or the header) catches it */
    for (size_t len = 0; len < out.len; len++) {
        segment_reader r;
        cr_assert_eq(segment_open(&r, out.data, len, c->type, &err), STRATA_CORRUPT, "truncated to %zu", len);
    }
    for (size_t at = 0; at < out.len; at++) {
        memcpy(copy, out.data, out.len);
        copy[at] ^= (uint8_t)(1u << (at % 8));
        segment_reader r;
        memset(&err, 0, sizeof err);
        cr_assert_eq(segment_open(&r, copy, out.len, c->type, &err), STRATA_CORRUPT, "byte %zu flipped", at);
        /* the same damage behind a valid checksum: decode or fail cleanly */
        if (at >= 8) {
            fix_crc(copy, out.len);
            exercise(c, copy, out.len, &v);
            copy[at] = (uint8_t)(at % 3 == 0 ? 0 : at % 3 == 1 ? 0xff : copy[at] + 1);
            fix_crc(copy, out.len);
            exercise(c, copy, out.len, &v);
        }
    }
    /* random multi-byte damage behind a valid checksum */
    rng_seed(99);
    for (int t = 0; t < 300; t++) {
        memcpy(copy, out.data, out.len);
        for (int f = 0; f < 4; f++) copy[8 + rnd() % (out.len - 8)] = (uint8_t)rnd();
        fix_crc(copy, out.len);
        exercise(c, copy, out.len, &v);
    }
    free(copy);
    vec_free(&v);
    btree_buf_free(&out);
}

Test(segment, corruption_every_byte) {
    sql_type types[] = {sql_type_make(TYPE_INTEGER),  sql_type_make(TYPE_BIGINT),
                        sql_type_make(TYPE_DOUBLE),   sql_type_varchar(0),
                        sql_type_make(TYPE_INTERVAL), sql_type_make(TYPE_BOOLEAN)};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        col c = make_col(types[t], PAT_RUNS, 300, 60 + t);
        for (uint32_t r = 0; r < c.rows; r += 5) c.null[r] = 1;
        for (int enc = 0; enc < SEG_ENCODING_COUNT; enc++)
            if (model_applies(&c, enc)) corrupt_all(&c, enc, 0);
        col_free(&c);
        c = make_col(types[t], PAT_CONSTANT, 300, 70 + t);
        corrupt_all(&c, SEG_CONSTANT, 0);
        c.null[3] = 1;
        corrupt_all(&c, SEG_CONSTANT, 0);
        col_free(&c);
    }
    cr_assert_gt(opened_damaged, 1000, "damaged segments that opened: %u", opened_damaged);
    cr_assert_gt(decode_caught, 1000, "damage found by decoding: %u", decode_caught);
}

/* A dictionary code past the dictionary (the codes behind a valid checksum set to all ones, a byte
** at a time) is STRATA_CORRUPT "dictionary code out of range" for the filter exactly when it is for
** the decoding: l_quantity's shape (50 DECIMAL(15,2) values, 6-bit codes, the filter's register
** lookup), a whole vector and a partial one whose last rows go through the scalar loop. */
Test(segment, corruption_dictionary_codes) {
    col c = col_new(sql_type_decimal(15, 2), VECTOR_SIZE + 100);
    rng_seed(81);
    for (uint32_t r = 0; r < c.rows; r++) c.i[r] = 100 * (1 + (int64_t)(rnd() % 50));
    btree_buf out = {0};
    encode(&c, SEG_DICTIONARY, 0, VECTOR_SIZE, &out);
    cr_assert_eq(verify(&c, out.data, out.len, "l_quantity's dictionary"), SEG_DICTIONARY);
    strata_err err = {0};
    vector v;
    cr_assert_eq(vec_init(&v, c.type, &err), STRATA_OK);
    uint8_t *copy = malloc(out.len);
    unsigned caught[2] = {0, 0}; /* per vector */
    seg_cond conds[2] = {{SEG_LT, {.i = 2400}}, {SEG_GE, {.i = 500}}};
    for (size_t at = SEGMENT_HEADER_SIZE; at < out.len; at++) {
        memcpy(copy, out.data, out.len);
        copy[at] = 0xff;
        fix_crc(copy, out.len);
        segment_reader r;
        if (segment_open(&r, copy, out.len, c.type, &err) != STRATA_OK) continue;
        for (uint32_t k = 0; k < segment_nvectors(&r); k++) {
            uint64_t mask[VALIDITY_WORDS];
            strata_err ferr = {0}, derr = {0};
            int frc = segment_filter_mask(&r, k, conds, 1 + at % 2, mask, &ferr);
            vec_reset(&v);
            int drc = segment_decode_vector(&r, k, &v, &derr);
            bool fcode = frc == STRATA_CORRUPT && strstr(ferr.msg, "dictionary code out of range");
            bool dcode = drc == STRATA_CORRUPT && strstr(derr.msg, "dictionary code out of range");
            cr_assert(frc == STRATA_OK || frc == STRATA_CORRUPT, "byte %zu: filter %d %s", at, frc, ferr.msg);
            cr_assert_eq(fcode, dcode, "byte %zu, vector %u: filter says \"%s\", decoding \"%s\"", at, k, ferr.msg,
                         derr.msg);
            caught[k] += fcode;
        }
        segment_reader_close(&r);
    }
    cr_assert(caught[0] > 0 && caught[1] > 0, "codes out of range found: %u in the whole vector, %u in the partial one",
              caught[0], caught[1]);
    free(copy);
    vec_free(&v);
    btree_buf_free(&out);
    col_free(&c);
}

Test(segment, corruption_two_vectors) {
    /* a directory of two blocks, the second one partial */
    col c = make_col(sql_type_make(TYPE_SMALLINT), PAT_LOWCARD, 2100, 80);
    for (uint32_t r = 0; r < c.rows; r += 7) c.null[r] = 1;
    for (uint32_t r = 0; r < c.rows; r++) c.i[r] = c.i[r] % 4 + (r > 1000 ? 50 : 0);
    for (int enc = 0; enc < SEG_ENCODING_COUNT; enc++)
        if (model_applies(&c, enc) && enc != SEG_PLAIN) corrupt_all(&c, enc, 0);
    col_free(&c);
}

Test(segment, corruption_zstd_blocks) {
    /* one block just past SEGMENT_ZSTD_MIN_BLOCK */
    col c = col_new(sql_type_varchar(0), 300);
    for (uint32_t r = 0; r < c.rows; r++) {
        char buf[64];
        set_str(&c, r, buf, (uint32_t)snprintf(buf, sizeof buf, "text, row %u", r % 10));
    }
    seg_info info;
    cr_assert_eq(encoding_of(&c, SEGMENT_ZSTD_DEFAULT, &info), SEG_DICTIONARY);
    btree_buf out = {0};
    encode(&c, SEG_PLAIN, SEGMENT_ZSTD_DEFAULT, VECTOR_SIZE, &out);
    segment_reader r;
    strata_err err = {0};
    cr_assert_eq(segment_open(&r, out.data, out.len, c.type, &err), STRATA_OK);
    segment_describe(&r, &info);
    cr_assert_str_eq(info.encoding, "plain+zstd");
    segment_reader_close(&r);
    btree_buf_free(&out);
    corrupt_all(&c, SEG_PLAIN, SEGMENT_ZSTD_DEFAULT);
    col_free(&c);
    /* a dictionary large enough to be compressed */
    c = col_new(sql_type_varchar(0), 400);
    for (uint32_t r = 0; r < c.rows; r++) {
        char buf[64];
        set_str(&c, r, buf, (uint32_t)snprintf(buf, sizeof buf, "dictionary entry number %u", r % 200));
    }
    out.len = 0;
    encode(&c, SEG_DICTIONARY, SEGMENT_ZSTD_DEFAULT, VECTOR_SIZE, &out);
    cr_assert_eq(verify(&c, out.data, out.len, "compressed dictionary"), SEG_DICTIONARY);
    cr_assert_eq(segment_open(&r, out.data, out.len, c.type, &err), STRATA_OK);
    segment_describe(&r, &info);
    cr_assert_str_eq(info.encoding, "dictionary+zstd");
    segment_reader_close(&r);
    btree_buf_free(&out);
    corrupt_all(&c, SEG_DICTIONARY, SEGMENT_ZSTD_DEFAULT);
    col_free(&c);
}
