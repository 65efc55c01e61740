/*
** segment.c -- column segments (the format and the interface are in segment.h).
**
** Writing: the builder keeps every value appended, widened (integers as int64, doubles as their
** IEEE bits, strings as references into one byte array). finish() first gives each NULL row a
** copy of a neighbouring value of its vector, so that NULLs cost nothing in any encoding (they
** extend runs, add a zero delta, stay inside the frame, reuse a dictionary code); then one pass
** per vector gathers the statistics every encoding's size follows from (min, max, the range of
** the deltas, runs and the longest run, string bytes) and one hash pass counts the distinct
** values, so that the exact encoded size of every candidate is known before anything is
** written; the smallest is written, block by block, each block compressed with zstd when it is
** large enough and that saves 10 %.
**
** Reading: segment_open validates the header, checksum, sections, zone maps, dictionary and
** directory once; a block is validated when it is decoded (its exact length for its widths and
** counts, every run length, dictionary code and string offset, every value against its type's
** range). An integer vector decodes straight into the output vector's type where it can
** (decode_int_vector): a frame of reference that fits the type through bitpack.c's SIMD
** unpacking with the base added and the values narrowed in the same registers, dictionary codes
** unpacked to 32 bits and gathered, runs narrowed once per run and expanded with vector stores;
** the rest (deltas, frames that may leave the type) into a staging array of uint64 (two's
** complement), then narrowed and checked by one small loop per width. Strings resolve to
** (pointer, length) pairs into the buffer before they are copied into the vector.
**
** What it is not: the choice of which rows form a segment, pages, or the SQL meaning of values
** beyond ordering for zone maps (value.c's order: NaN last, strings by memcmp).
*/
#include "segment.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <simde/x86/avx2.h>

#include "../core/crc32c.h"
#include "../vector/kernel.h"
#include "bitpack.h"
#include "fsst.h"
#include "record.h" /* record_buf_reserve */

/* ---- little-endian access ----------------------------------------------------------------- */

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define LE16(x) __builtin_bswap16(x)
#define LE32(x) __builtin_bswap32(x)
#define LE64(x) __builtin_bswap64(x)
#else
#define LE16(x) (x)
#define LE32(x) (x)
#define LE64(x) (x)
#endif

static inline uint16_t ld16(const uint8_t *p) {
    uint16_t x;
    memcpy(&x, p, 2);
    return LE16(x);
}
static inline uint32_t ld32(const uint8_t *p) {
    uint32_t x;
    memcpy(&x, p, 4);
    return LE32(x);
}
static inline uint64_t ld64(const uint8_t *p) {
    uint64_t x;
    memcpy(&x, p, 8);
    return LE64(x);
}
static inline uint8_t *st8(uint8_t *p, uint8_t x) {
    *p = x;
    return p + 1;
}
static inline uint8_t *st16(uint8_t *p, uint16_t x) {
    x = LE16(x);
    memcpy(p, &x, 2);
    return p + 2;
}
static inline uint8_t *st32(uint8_t *p, uint32_t x) {
    x = LE32(x);
    memcpy(p, &x, 4);
    return p + 4;
}
static inline uint8_t *st64(uint8_t *p, uint64_t x) {
    x = LE64(x);
    memcpy(p, &x, 8);
    return p + 8;
}
/* stbytes copies n bytes (src may be NULL when n is 0). */
static inline uint8_t *stbytes(uint8_t *p, const void *src, size_t n) {
    if (n) memcpy(p, src, n);
    return p + n;
}

/* ---- types -------------------------------------------------------------------------------- */

/* Physical types fall into four families that share their encodings and code paths. */
enum { FAM_INT, FAM_F64, FAM_STR, FAM_IV };

static int family(vec_phys p) {
    switch (p) {
    case PHYS_F64: return FAM_F64;
    case PHYS_STR: return FAM_STR;
    case PHYS_INTERVAL: return FAM_IV;
    default: return FAM_INT;
    }
}

/* int_bytes is the stored width of an integer family type. */
static unsigned int_bytes(vec_phys p) {
    return p == PHYS_BOOL ? 1 : p == PHYS_I16 ? 2 : p == PHYS_I32 ? 4 : 8;
}

/* fixed_bytes is the stored width of one value of a fixed-width type (0 for strings). */
static unsigned fixed_bytes(vec_phys p) {
    switch (family(p)) {
    case FAM_INT: return int_bytes(p);
    case FAM_F64: return 8;
    case FAM_IV: return 16;
    default: return 0;
    }
}

static void int_range(vec_phys p, int64_t *lo, int64_t *hi) {
    switch (p) {
    case PHYS_BOOL: *lo = 0, *hi = 1; break;
    case PHYS_I16: *lo = INT16_MIN, *hi = INT16_MAX; break;
    case PHYS_I32: *lo = INT32_MIN, *hi = INT32_MAX; break;
    default: *lo = INT64_MIN, *hi = INT64_MAX; break;
    }
}

/* cmp_f64 is value_compare's order of doubles: NaN after every number and equal to NaN. */
static int cmp_f64(double a, double b) {
    if (isnan(a)) return isnan(b) ? 0 : 1;
    if (isnan(b)) return -1;
    return a < b ? -1 : a > b;
}

/* cmp_bytes is memcmp order with a shorter prefix first (value.c's order of strings). */
static int cmp_bytes(const void *a, uint32_t alen, const void *b, uint32_t blen) {
    uint32_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    if (c != 0) return c < 0 ? -1 : 1;
    return alen < blen ? -1 : alen > blen;
}

static inline double bits_f64(uint64_t u) {
    double d;
    memcpy(&d, &u, 8);
    return d;
}
static inline uint64_t f64_bits(double d) {
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static const char *const enc_names[SEG_ENCODING_COUNT] = {"plain", "constant", "rle", "dictionary",
                                                          "for",   "delta",    "fsst"};
static const char *const enc_names_zstd[SEG_ENCODING_COUNT] = {
    "plain+zstd", "constant+zstd", "rle+zstd", "dictionary+zstd", "for+zstd", "delta+zstd", "fsst+zstd"};

const char *seg_encoding_name(int encoding) {
    return encoding >= 0 && encoding < SEG_ENCODING_COUNT ? enc_names[encoding] : "?";
}

int seg_encoding_applies(int encoding, vec_phys phys) {
    if (encoding < 0 || encoding >= SEG_ENCODING_COUNT || (unsigned)phys > PHYS_INTERVAL) return 0;
    switch (family(phys)) {
    case FAM_INT: return encoding != SEG_FSST;
    case FAM_IV: return encoding == SEG_PLAIN || encoding == SEG_CONSTANT;
    case FAM_F64: return encoding != SEG_FOR && encoding != SEG_DELTA && encoding != SEG_FSST;
    default: return encoding != SEG_FOR && encoding != SEG_DELTA;
    }
}

segment_options segment_options_default(void) {
    segment_options o = {SEGMENT_ZSTD_DEFAULT, -1};
    return o;
}

/* The deltas' signed order, kept in unsigned arithmetic: flipping the sign bit maps int64 order
** onto uint64 order, so no subtraction ever overflows a signed type. */
#define SIGN_BIT (UINT64_C(1) << 63)

/* fsst_groups: the starts a vector of n rows keeps for its fsst strings, one per 64 rows. */
static inline uint32_t fsst_groups(uint32_t n) { return (n + BITPACK_GROUP - 1) / BITPACK_GROUP; }

/* bp is the bytes of n values of w bits. */
static inline uint64_t bp(uint64_t n, unsigned w) { return bitpack_bytes(n, w); }

/* ---- the builder -------------------------------------------------------------------------- */

/* A string of the builder: len bytes at bytes + off. */
typedef struct strref {
    uint64_t off;
    uint32_t len;
} strref;

#define BV_INT(b) ((int64_t *)(b)->values)
#define BV_U64(b) ((uint64_t *)(b)->values)
#define BV_STR(b) ((strref *)(b)->values)
#define BV_IV(b) ((sql_interval *)(b)->values)

static size_t value_size(vec_phys p) {
    switch (family(p)) {
    case FAM_STR: return sizeof(strref);
    case FAM_IV: return sizeof(sql_interval);
    default: return 8;
    }
}

static inline int bvalid(const segment_builder *b, uint32_t row) {
    return (int)(b->validity[row >> 6] >> (row & 63) & 1);
}

static inline const uint8_t *bstr(const segment_builder *b, const strref *s) {
    return s->len ? b->bytes + s->off : (const uint8_t *)"";
}

int segment_builder_init(segment_builder *b, sql_type type, strata_err *err) {
    memset(b, 0, sizeof *b);
    if (type.id >= TYPE_COUNT) return err_set(err, STRATA_MISUSE, "segment of unknown type id %u", type.id);
    b->type = type;
    b->phys = (uint8_t)vec_phys_of((sql_type_id)type.id);
    return STRATA_OK;
}

void segment_builder_free(segment_builder *b) {
    free(b->values);
    free(b->validity);
    free(b->bytes);
    b->values = NULL;
    b->validity = NULL;
    b->bytes = NULL;
    b->rows = b->cap = b->null_count = 0;
    b->bytes_len = b->bytes_cap = 0;
}

/* The builder's values hash as colstats_hash hashes them as SQL values: integers of every width
** are held as int64 (BV_INT), DOUBLE as its bits, strings as references into b->bytes. */
void segment_builder_stats(const segment_builder *b, column_stats *c) {
    uint32_t valid = 0, lo = 0, hi = 0; /* rows of the min and the max so far */
    bool ranged = false;
    int fam = family((vec_phys)b->phys);
/* FOR_VALID runs body for each non-NULL row r (the type's switch stays outside the loop) */
#define FOR_VALID(...)                                                                                       \
    for (uint32_t r = 0; r < b->rows; r++) {                                                                 \
        if (!(b->validity[r >> 6] >> (r & 63) & 1)) continue;                                                \
        valid++;                                                                                             \
        if (!ranged) lo = hi = r;                                                                            \
        __VA_ARGS__                                                                                          \
    }
    switch (fam) {
    case FAM_STR:
        FOR_VALID({
            strref s = BV_STR(b)[r], l = BV_STR(b)[lo], h = BV_STR(b)[hi];
            const uint8_t *p = b->bytes + s.off;
            hll_add(&c->sketch, colstats_hash_text(p, s.len));
            bool first_one = !ranged;
            ranged = true;
            uint8_t first = s.len ? p[0] : 0, lf = l.len ? b->bytes[l.off] : 0, hf = h.len ? b->bytes[h.off] : 0;
            if (first_one || (first > lf && first < hf)) continue; /* most strings: inside by their first byte */
            int cl = memcmp(p, b->bytes + l.off, s.len < l.len ? s.len : l.len);
            if (cl < 0 || (cl == 0 && s.len < l.len)) lo = r;
            int ch = memcmp(p, b->bytes + h.off, s.len < h.len ? s.len : h.len);
            if (ch > 0 || (ch == 0 && s.len > h.len)) hi = r;
        })
        break;
    case FAM_IV:
        FOR_VALID(hll_add(&c->sketch, colstats_hash_text(&BV_IV(b)[r], sizeof(sql_interval)));) /* no range */
        break;
    case FAM_F64:
        FOR_VALID({
            double d, l, h;
            memcpy(&d, &BV_U64(b)[r], sizeof d);
            hll_add(&c->sketch, colstats_hash_f64(d));
            if (d != d) continue; /* NaN: no place in the range */
            ranged = true;
            memcpy(&l, &BV_U64(b)[lo], sizeof l);
            memcpy(&h, &BV_U64(b)[hi], sizeof h);
            lo = d < l ? r : lo;
            hi = d > h ? r : hi;
        })
        break;
    default:
        FOR_VALID({
            int64_t x = BV_INT(b)[r];
            hll_add(&c->sketch, (uint64_t)x);
            ranged = true;
            lo = x < BV_INT(b)[lo] ? r : lo;
            hi = x > BV_INT(b)[hi] ? r : hi;
        })
    }
#undef FOR_VALID
    c->nulls += b->rows - valid;
    if (!ranged) return;
    /* the min and the max, read back as values, widen the range as colstats_add would */
    uint32_t at[2] = {lo, hi};
    for (int k = 0; k < 2; k++) {
        sql_value x = {.type = b->type};
        if (fam == FAM_STR) {
            strref s = BV_STR(b)[at[k]];
            x.v.s = sstr_ref((const char *)b->bytes + s.off, s.len);
        } else if (fam == FAM_F64) {
            memcpy(&x.v.d, &BV_U64(b)[at[k]], sizeof x.v.d);
        } else {
            x.v.i = BV_INT(b)[at[k]];
        }
        colstats_widen(c, &x);
    }
}

size_t segment_builder_bytes(const segment_builder *b) {
    return (size_t)b->cap * (value_size((vec_phys)b->phys) + 1) + (size_t)b->bytes_cap;
}

int segment_builder_read(const segment_builder *b, uint32_t from, uint32_t n, vector *out, strata_err *err) {
    if (out->phys != b->phys || from > b->rows || n > b->rows - from || n > VECTOR_SIZE ||
        out->data != out->own_data || out->kind != VEC_FLAT)
        return err_set(err, STRATA_MISUSE, "reading rows %u..+%u of a builder of %u rows", from, n, b->rows);
    vec_phys phys = (vec_phys)b->phys;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t row = from + i;
        if (!bvalid(b, row)) {
            vec_set_null(out, i, 1);
            continue;
        }
        switch (phys) {
        case PHYS_BOOL: VEC_DATA(out, uint8_t)[i] = (uint8_t)BV_INT(b)[row]; break;
        case PHYS_I16: VEC_DATA(out, int16_t)[i] = (int16_t)BV_INT(b)[row]; break;
        case PHYS_I32: VEC_DATA(out, int32_t)[i] = (int32_t)BV_INT(b)[row]; break;
        case PHYS_I64: VEC_DATA(out, int64_t)[i] = BV_INT(b)[row]; break;
        case PHYS_F64: VEC_DATA(out, double)[i] = bits_f64(BV_U64(b)[row]); break;
        case PHYS_INTERVAL: VEC_DATA(out, sql_interval)[i] = BV_IV(b)[row]; break;
        default: {
            const strref *x = &BV_STR(b)[row];
            int rc = vec_set_str(out, i, bstr(b, x), x->len, err);
            if (rc) return rc;
        }
        }
        vec_set_null(out, i, 0);
    }
    return STRATA_OK;
}

void segment_builder_reset(segment_builder *b) {
    if (b->validity) memset(b->validity, 0, (size_t)b->cap / 64 * sizeof(uint64_t));
    b->rows = b->null_count = 0;
    b->bytes_len = 0;
}

/* grow makes room for `need` rows (need <= SEGMENT_MAX_ROWS). */
static int grow(segment_builder *b, uint32_t need, strata_err *err) {
    if (need <= b->cap) return STRATA_OK;
    uint32_t cap = b->cap ? b->cap : VECTOR_SIZE;
    while (cap < need) cap *= 2;
    if (cap > SEGMENT_MAX_ROWS) cap = SEGMENT_MAX_ROWS;
    void *values = realloc(b->values, (size_t)cap * value_size((vec_phys)b->phys));
    if (values == NULL) return err_set(err, STRATA_NOMEM, "out of memory (segment of %u rows)", cap);
    b->values = values;
    uint64_t *validity = realloc(b->validity, (size_t)cap / 64 * sizeof(uint64_t));
    if (validity == NULL) return err_set(err, STRATA_NOMEM, "out of memory (segment of %u rows)", cap);
    memset(validity + b->cap / 64, 0, (size_t)(cap - b->cap) / 64 * sizeof(uint64_t));
    b->validity = validity;
    b->cap = cap;
    return STRATA_OK;
}

/* APPEND_LOOP runs BODY for each appended row with idx (the index into v's data), valid, and
** row (the builder's row), setting validity and counting NULLs. */
#define APPEND_LOOP(BODY)                                                                                    \
    for (uint32_t i = 0; i < count; i++) {                                                                   \
        uint32_t idx = v->sel[sel ? sel[i] : i];                                                             \
        int valid = v->validity == NULL || (v->validity[idx >> 6] >> (idx & 63) & 1);                        \
        uint32_t row = b->rows + i;                                                                          \
        b->validity[row >> 6] |= (uint64_t)valid << (row & 63);                                              \
        nulls += !valid;                                                                                     \
        BODY                                                                                                 \
    }

#define APPEND_INTS(T) APPEND_LOOP(BV_INT(b)[row] = valid ? (int64_t)((const T *)v->data)[idx] : 0;)

int segment_builder_append(segment_builder *b, const vector *v, const sel_t *sel, uint32_t count,
                           strata_err *err) {
    if (v->phys != b->phys)
        return err_set(err, STRATA_MISUSE, "appending a vector of physical type %u to a segment of type %u",
                       v->phys, b->phys);
    if (count > SEGMENT_MAX_ROWS - b->rows)
        return err_set(err, STRATA_MISUSE, "a segment holds at most %u rows (%u + %u)",
                       (unsigned)SEGMENT_MAX_ROWS, b->rows, count);
    if (count == 0) return STRATA_OK;
    int rc = grow(b, b->rows + count, err);
    if (rc) return rc;
    if (b->phys == PHYS_STR) {
        uint64_t need = 0;
        for (uint32_t i = 0; i < count; i++) {
            uint32_t idx = v->sel[sel ? sel[i] : i];
            if (v->validity == NULL || (v->validity[idx >> 6] >> (idx & 63) & 1))
                need += VEC_DATA(v, sstr)[idx].len;
        }
        if (need > UINT32_MAX - b->bytes_len)
            return err_set(err, STRATA_TOOBIG, "a segment's strings exceed 4 GiB (%llu + %llu bytes)",
                           (unsigned long long)b->bytes_len, (unsigned long long)need);
        if (b->bytes_len + need > b->bytes_cap) {
            uint64_t cap = b->bytes_cap ? b->bytes_cap : 4096;
            while (cap < b->bytes_len + need) cap *= 2;
            uint8_t *bytes = realloc(b->bytes, cap);
            if (bytes == NULL)
                return err_set(err, STRATA_NOMEM, "out of memory (segment strings of %llu bytes)",
                               (unsigned long long)cap);
            b->bytes = bytes;
            b->bytes_cap = cap;
        }
    }
    uint32_t nulls = 0;
    switch ((vec_phys)b->phys) {
    case PHYS_BOOL: APPEND_INTS(uint8_t) break;
    case PHYS_I16: APPEND_INTS(int16_t) break;
    case PHYS_I32: APPEND_INTS(int32_t) break;
    case PHYS_I64: APPEND_INTS(int64_t) break;
    case PHYS_F64: APPEND_LOOP(BV_U64(b)[row] = valid ? f64_bits(VEC_DATA(v, double)[idx]) : 0;) break;
    case PHYS_INTERVAL: {
        static const sql_interval zero;
        APPEND_LOOP(BV_IV(b)[row] = valid ? VEC_DATA(v, sql_interval)[idx] : zero;)
        break;
    }
    case PHYS_STR:
        APPEND_LOOP({
            strref *s = &BV_STR(b)[row];
            s->off = b->bytes_len;
            s->len = 0;
            if (valid) {
                const sstr *x = &VEC_DATA(v, sstr)[idx];
                s->len = x->len;
                stbytes(b->bytes + b->bytes_len, sstr_data(x), x->len);
                b->bytes_len += x->len;
            }
        })
        break;
    }
    b->rows += count;
    b->null_count += nulls;
    return STRATA_OK;
}

/* ---- analysis: what each encoding would take ---------------------------------------------- */

/* What the sizes of a vector's encodings follow from. Over the vector's values after NULL rows
** took their neighbour's value. */
typedef struct vstat {
    uint32_t start, n, nulls;
    int64_t min, max;    /* integers */
    uint64_t dmin, dmax; /* integers: deltas modulo 2^64 with the sign bit flipped */
    uint32_t runs, max_run;
    uint64_t str_bytes, run_bytes; /* strings: of the valid rows, of the runs' values */
    uint64_t fsst_at, fsst_bytes;  /* strings: where the vector's compressed strings start in the
                                   ** analysis's fsst_out, and their bytes */
    unsigned fsst_w;               /* ... the width of their lengths */
} vstat;

/* A zone map while building: string bounds are rows of the builder. */
typedef struct bzone {
    uint32_t rows, nulls;
    int64_t min_i, max_i;
    double min_d, max_d;
    uint32_t min_row, max_row;
} bzone;

typedef struct analysis {
    uint32_t nvec;
    vstat v[SEGMENT_VECTORS];
    bzone zone[SEGMENT_VECTORS + 1]; /* [0] the segment, [1 + k] vector k */
    int constant;                    /* every valid value is equal */
    uint32_t const_row;              /* a valid row (when there is one) */
    /* the dictionary: distinct values in order of first appearance */
    int dict_forced; /* asked for (segment_options): built whatever it costs */
    int dict_ok;
    uint32_t dict_count;
    uint32_t *rep; /* code -> the row it was first seen in */
    uint32_t rep_cap;
    uint32_t *slots, mask; /* hash table: code + 1, 0 empty */
    uint32_t *codes;       /* row -> code */
    uint64_t dict_str_bytes;
    uint64_t zone_len;
    /* fsst: the table learnt from the segment's strings, and every valid row compressed */
    int fsst_forced;
    fsst_table *fsst;
    uint8_t *fsst_out;
    uint32_t *fsst_len; /* row -> compressed bytes (0 for NULL rows) */
    uint64_t size[SEG_ENCODING_COUNT]; /* exact bytes; UINT64_MAX where the encoding does not apply */
} analysis;

static void analysis_free(analysis *a) {
    fsst_table_free(a->fsst);
    free(a->fsst_out);
    free(a->fsst_len);
    free(a->rep);
    free(a->slots);
    free(a->codes);
}

/* fill_nulls gives each NULL row of the vector at [start, start + n) the value of the row before
** it, or of the first valid row for leading NULLs. */
static void fill_nulls(segment_builder *b, uint32_t start, uint32_t n) {
    size_t vs = value_size((vec_phys)b->phys);
    uint8_t *vals = b->values;
    uint32_t first = 0;
    while (!bvalid(b, start + first)) first++;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t row = start + i;
        if (bvalid(b, row)) continue;
        uint32_t src = i < first ? start + first : row - 1;
        memcpy(vals + (size_t)row * vs, vals + (size_t)src * vs, vs);
    }
}

static inline int rows_equal(const segment_builder *b, int fam, uint32_t x, uint32_t y) {
    switch (fam) {
    case FAM_INT:
    case FAM_F64: return BV_U64(b)[x] == BV_U64(b)[y];
    case FAM_IV: {
        const sql_interval *p = &BV_IV(b)[x], *q = &BV_IV(b)[y];
        return p->months == q->months && p->days == q->days && p->micros == q->micros;
    }
    default: {
        const strref *p = &BV_STR(b)[x], *q = &BV_STR(b)[y];
        return p->len == q->len && (p->off == q->off || memcmp(bstr(b, p), bstr(b, q), p->len) == 0);
    }
    }
}

static inline uint64_t row_hash(const segment_builder *b, int fam, uint32_t row) {
    if (fam == FAM_STR) {
        const strref *s = &BV_STR(b)[row];
        return vec_hash_bytes(bstr(b, s), s->len, 0);
    }
    return vec_hash_i64((int64_t)BV_U64(b)[row]);
}

/* stats_ints: the statistics of an integer vector (with a valid row). */
static void stats_ints(const segment_builder *b, vstat *s) {
    const int64_t *v = BV_INT(b) + s->start;
    int64_t mn = v[0], mx = v[0];
    uint64_t dmn = SIGN_BIT, dmx = SIGN_BIT; /* a single value: one zero delta */
    uint32_t runs = 1, cur = 1, max_run = 1;
    if (s->n > 1) dmn = UINT64_MAX, dmx = 0;
    for (uint32_t i = 1; i < s->n; i++) {
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
        uint64_t d = ((uint64_t)v[i] - (uint64_t)v[i - 1]) ^ SIGN_BIT;
        dmn = d < dmn ? d : dmn;
        dmx = d > dmx ? d : dmx;
        if (v[i] == v[i - 1]) {
            cur++;
        } else {
            max_run = cur > max_run ? cur : max_run;
            runs++;
            cur = 1;
        }
    }
    s->min = mn, s->max = mx, s->dmin = dmn, s->dmax = dmx;
    s->runs = runs;
    s->max_run = cur > max_run ? cur : max_run;
}

/* stats_runs: the runs (and string bytes) of a vector of another type (with a valid row). */
static void stats_runs(const segment_builder *b, int fam, vstat *s) {
    uint32_t runs = 1, cur = 1, max_run = 1;
    uint64_t run_bytes = fam == FAM_STR ? BV_STR(b)[s->start].len : 0, str_bytes = 0;
    for (uint32_t i = 1; i < s->n; i++) {
        uint32_t row = s->start + i;
        if (rows_equal(b, fam, row, row - 1)) {
            cur++;
        } else {
            max_run = cur > max_run ? cur : max_run;
            runs++;
            cur = 1;
            if (fam == FAM_STR) run_bytes += BV_STR(b)[row].len;
        }
    }
    if (fam == FAM_STR)
        for (uint32_t i = 0; i < s->n; i++)
            if (bvalid(b, s->start + i)) str_bytes += BV_STR(b)[s->start + i].len;
    s->runs = runs;
    s->max_run = cur > max_run ? cur : max_run;
    s->str_bytes = str_bytes;
    s->run_bytes = run_bytes;
}

/* dict_add returns the code of row's value, adding it; UINT32_MAX when the dictionary would pass
** SEGMENT_DICT_MAX entries or memory runs out (then there is no dictionary). */
static uint32_t dict_add(analysis *a, const segment_builder *b, int fam, uint32_t row) {
    uint64_t h = row_hash(b, fam, row);
    for (uint32_t i = (uint32_t)h & a->mask;; i = (i + 1) & a->mask) {
        uint32_t s = a->slots[i];
        if (s == 0) break;
        if (rows_equal(b, fam, a->rep[s - 1], row)) return s - 1;
    }
    if (a->dict_count == SEGMENT_DICT_MAX) return UINT32_MAX;
    if (a->dict_count == a->rep_cap) {
        uint32_t cap = a->rep_cap * 2;
        uint32_t *rep = realloc(a->rep, (size_t)cap * sizeof *rep);
        if (rep == NULL) return UINT32_MAX;
        a->rep = rep;
        a->rep_cap = cap;
    }
    if ((a->dict_count + 1) * 2 > a->mask + 1) { /* keep the table at most half full */
        uint32_t size = (a->mask + 1) * 2;
        uint32_t *slots = calloc(size, sizeof *slots);
        if (slots == NULL) return UINT32_MAX;
        for (uint32_t c = 0; c < a->dict_count; c++) {
            uint32_t i = (uint32_t)row_hash(b, fam, a->rep[c]) & (size - 1);
            while (slots[i]) i = (i + 1) & (size - 1);
            slots[i] = c + 1;
        }
        free(a->slots);
        a->slots = slots;
        a->mask = size - 1;
    }
    uint32_t i = (uint32_t)h & a->mask;
    while (a->slots[i]) i = (i + 1) & a->mask;
    uint32_t code = a->dict_count++;
    a->slots[i] = code + 1;
    a->rep[code] = row;
    if (fam == FAM_STR) a->dict_str_bytes += BV_STR(b)[row].len;
    return code;
}

/* DICT_GIVE_UP: once this many rows went in, a dictionary holding more than half as many entries
** as rows is given up: values that rarely repeat make a dictionary no smaller than the other
** encodings, and hashing every row of a segment of distinct values (keys, comments) to find that
** out at SEGMENT_DICT_MAX was most of the cost of encoding it. */
#define DICT_GIVE_UP (2 * VECTOR_SIZE)

/* build_dict assigns every row of the vectors that have a valid row its code. */
static void build_dict(analysis *a, const segment_builder *b, int fam) {
    a->dict_ok = 0;
    a->rep_cap = 1024;
    a->rep = malloc(a->rep_cap * sizeof *a->rep);
    a->slots = calloc(2048, sizeof *a->slots);
    a->mask = 2047;
    a->codes = malloc((size_t)(b->rows ? b->rows : 1) * sizeof *a->codes);
    if (a->rep == NULL || a->slots == NULL || a->codes == NULL) return;
    for (uint32_t k = 0; k < a->nvec; k++) {
        const vstat *s = &a->v[k];
        if (s->nulls == s->n) continue;
        for (uint32_t i = 0; i < s->n; i++) {
            uint32_t c = dict_add(a, b, fam, s->start + i);
            if (c == UINT32_MAX) return;
            a->codes[s->start + i] = c;
        }
        uint32_t seen = s->start + s->n;
        if (!a->dict_forced && seen >= DICT_GIVE_UP && a->dict_count > seen / 2) return;
    }
    a->dict_ok = 1;
}

/* zone_of_vector computes the zone map of one vector from its valid rows. */
static void zone_of_vector(const segment_builder *b, const vstat *s, bzone *z) {
    z->rows = s->n;
    z->nulls = s->nulls;
    if (s->nulls == s->n) return;
    switch (family((vec_phys)b->phys)) {
    case FAM_INT:
        z->min_i = s->min;
        z->max_i = s->max;
        break;
    case FAM_F64: {
        int have = 0;
        for (uint32_t i = 0; i < s->n; i++) {
            if (!bvalid(b, s->start + i)) continue;
            double d = bits_f64(BV_U64(b)[s->start + i]);
            if (d == 0) d = 0.0; /* -0.0 is 0.0 */
            if (!have || cmp_f64(d, z->min_d) < 0) z->min_d = d;
            if (!have || cmp_f64(d, z->max_d) > 0) z->max_d = d;
            have = 1;
        }
        break;
    }
    case FAM_STR: {
        int have = 0;
        for (uint32_t i = 0; i < s->n; i++) {
            uint32_t row = s->start + i;
            if (!bvalid(b, row)) continue;
            const strref *x = &BV_STR(b)[row], *lo = &BV_STR(b)[z->min_row], *hi = &BV_STR(b)[z->max_row];
            if (!have || cmp_bytes(bstr(b, x), x->len, bstr(b, lo), lo->len) < 0) z->min_row = row;
            if (!have || cmp_bytes(bstr(b, x), x->len, bstr(b, hi), hi->len) > 0) z->max_row = row;
            have = 1;
        }
        break;
    }
    default: break;
    }
}

/* zone_merge folds vector zone z into the segment's zone seg. */
static void zone_merge(const segment_builder *b, bzone *seg, const bzone *z) {
    int seg_has = seg->nulls < seg->rows, z_has = z->nulls < z->rows;
    seg->rows += z->rows;
    seg->nulls += z->nulls;
    if (!z_has) return;
    if (!seg_has) {
        uint32_t rows = seg->rows, nulls = seg->nulls;
        *seg = *z;
        seg->rows = rows, seg->nulls = nulls;
        return;
    }
    switch (family((vec_phys)b->phys)) {
    case FAM_INT:
        if (z->min_i < seg->min_i) seg->min_i = z->min_i;
        if (z->max_i > seg->max_i) seg->max_i = z->max_i;
        break;
    case FAM_F64:
        if (cmp_f64(z->min_d, seg->min_d) < 0) seg->min_d = z->min_d;
        if (cmp_f64(z->max_d, seg->max_d) > 0) seg->max_d = z->max_d;
        break;
    case FAM_STR: {
        const strref *zl = &BV_STR(b)[z->min_row], *zh = &BV_STR(b)[z->max_row];
        const strref *sl = &BV_STR(b)[seg->min_row], *sh = &BV_STR(b)[seg->max_row];
        if (cmp_bytes(bstr(b, zl), zl->len, bstr(b, sl), sl->len) < 0) seg->min_row = z->min_row;
        if (cmp_bytes(bstr(b, zh), zh->len, bstr(b, sh), sh->len) > 0) seg->max_row = z->max_row;
        break;
    }
    default: break;
    }
}

static uint32_t zone_str_len(uint32_t len) { return len < SEGMENT_ZONE_STR_MAX ? len : SEGMENT_ZONE_STR_MAX; }

/* zone_record_len is the bytes of a zone record (see the format). */
static uint64_t zone_record_len(const segment_builder *b, const bzone *z) {
    if (z->nulls == z->rows || b->phys == PHYS_INTERVAL) return 5;
    if (b->phys != PHYS_STR) return 5 + 16;
    return 5 + 2 + zone_str_len(BV_STR(b)[z->min_row].len) + zone_str_len(BV_STR(b)[z->max_row].len);
}

static uint64_t validity_bytes(const vstat *s) {
    return 1 + (s->nulls > 0 && s->nulls < s->n ? (s->n + 7) / 8 : 0);
}

/* payload_bytes is the bytes after the validity of vector s's block in encoding enc. */
static uint64_t payload_bytes(const analysis *a, int enc, vec_phys phys, const vstat *s) {
    if (s->nulls == s->n) return 0;
    int fam = family(phys);
    uint64_t n = s->n;
    unsigned lw = bitpack_width(s->max_run - 1);
    unsigned vw = bitpack_width((uint64_t)s->max - (uint64_t)s->min);
    switch (enc) {
    case SEG_CONSTANT: return 0;
    case SEG_PLAIN: return fam == FAM_STR ? 4 * (n + 1) + s->str_bytes : n * fixed_bytes(phys);
    case SEG_FOR: return 9 + bp(n, vw);
    case SEG_DELTA: return 17 + bp(n - 1, bitpack_width(s->dmax - s->dmin));
    case SEG_DICTIONARY: return 1 + bp(n, bitpack_width(a->dict_count - 1));
    case SEG_FSST: return 1 + bp(n, s->fsst_w) + 4 * fsst_groups(s->n) + s->fsst_bytes;
    case SEG_RLE:
        switch (fam) {
        case FAM_INT: return 3 + bp(s->runs, lw) + 9 + bp(s->runs, vw);
        case FAM_F64: return 3 + bp(s->runs, lw) + 8 * (uint64_t)s->runs;
        default: return 3 + bp(s->runs, lw) + 4 * ((uint64_t)s->runs + 1) + s->run_bytes;
        }
    default: return 0;
    }
}

/* dict_bytes is the raw bytes of the dictionary section of encoding enc (0: none). */
static uint64_t dict_bytes(const analysis *a, const segment_builder *b, int enc) {
    if (enc == SEG_FSST) return fsst_table_bytes(a->fsst);
    uint64_t count;
    if (enc == SEG_CONSTANT)
        count = b->null_count < b->rows ? 1 : 0;
    else if (enc == SEG_DICTIONARY)
        count = a->dict_count;
    else
        return 0;
    if (b->phys != PHYS_STR) return 4 + count * fixed_bytes((vec_phys)b->phys);
    uint64_t bytes = enc == SEG_CONSTANT ? (count ? BV_STR(b)[a->const_row].len : 0) : a->dict_str_bytes;
    return 4 + 4 * (count + 1) + bytes;
}

static uint32_t nblocks_of(const analysis *a, const segment_builder *b, int enc) {
    if (enc == SEG_CONSTANT && (b->null_count == 0 || b->null_count == b->rows)) return 0;
    return a->nvec;
}

static uint64_t block_bytes(const analysis *a, vec_phys phys, int enc, const vstat *s) {
    return validity_bytes(s) + payload_bytes(a, enc, phys, s);
}

static uint64_t encoding_size(const analysis *a, const segment_builder *b, int enc);

/* try_fsst learns an fsst table from a sample of the segment's strings and compresses every valid
** row with it, for the size of SEG_FSST. Tried only when no other encoding is smaller than a third
** of plain (fsst rarely does better than that, and a dictionary or runs that do are cheaper to
** read), or when forced; kept only when it saves a tenth of plain, or when forced; out of memory
** simply leaves fsst out. */
static void try_fsst(const segment_builder *b, analysis *a) {
    uint64_t best = UINT64_MAX;
    for (int e = 0; e < SEG_ENCODING_COUNT; e++) best = a->size[e] < best ? a->size[e] : best;
    if (!a->fsst_forced && best < a->size[SEG_PLAIN] / 3) return;
    /* the sample: rows spread evenly, each at most 256 bytes of it */
    enum { SAMPLE_ROWS = 2048, SAMPLE_PREFIX = 256 };
    const uint8_t *strs[SAMPLE_ROWS];
    uint32_t lens[SAMPLE_ROWS], n = 0;
    uint64_t step = b->bytes_len / FSST_SAMPLE + 1, bytes = 0;
    if (step > b->rows / SAMPLE_ROWS + 1) step = b->rows / SAMPLE_ROWS + 1;
    for (uint64_t row = 0; row < b->rows && n < SAMPLE_ROWS && bytes < FSST_SAMPLE; row += step) {
        if (!bvalid(b, (uint32_t)row)) continue;
        const strref *x = &BV_STR(b)[row];
        strs[n] = bstr(b, x);
        lens[n] = x->len < SAMPLE_PREFIX ? x->len : SAMPLE_PREFIX;
        bytes += lens[n++];
    }
    a->fsst = fsst_build(strs, lens, n);
    a->fsst_out = malloc(2 * b->bytes_len + 1);
    a->fsst_len = malloc((size_t)b->rows * sizeof *a->fsst_len);
    if (a->fsst == NULL || a->fsst_out == NULL || a->fsst_len == NULL) {
        fsst_table_free(a->fsst), free(a->fsst_out), free(a->fsst_len);
        a->fsst = NULL, a->fsst_out = NULL, a->fsst_len = NULL;
        return;
    }
    uint64_t at = 0;
    for (uint32_t k = 0; k < a->nvec; k++) {
        vstat *s = &a->v[k];
        uint32_t max = 0;
        s->fsst_at = at;
        for (uint32_t row = s->start; row < s->start + s->n; row++) {
            uint32_t m = 0;
            if (bvalid(b, row)) {
                const strref *x = &BV_STR(b)[row];
                m = (uint32_t)fsst_compress(a->fsst, bstr(b, x), x->len, a->fsst_out + at);
            }
            a->fsst_len[row] = m;
            at += m;
            max = m > max ? m : max;
        }
        s->fsst_bytes = at - s->fsst_at;
        s->fsst_w = bitpack_width(max);
    }
    uint64_t size = encoding_size(a, b, SEG_FSST);
    /* saving less than a tenth of plain is not worth decoding every string */
    if (a->fsst_forced || size * 10 <= a->size[SEG_PLAIN] * 9) a->size[SEG_FSST] = size;
}

/* encoding_size is the exact bytes of the segment in encoding enc. */
static uint64_t encoding_size(const analysis *a, const segment_builder *b, int enc) {
    uint32_t nblocks = nblocks_of(a, b, enc);
    uint64_t size = SEGMENT_HEADER_SIZE + a->zone_len + dict_bytes(a, b, enc) + 12 * (uint64_t)nblocks;
    if (nblocks)
        for (uint32_t k = 0; k < a->nvec; k++) size += block_bytes(a, (vec_phys)b->phys, enc, &a->v[k]);
    return size;
}

/* analyze fills NULL rows, computes the statistics, zone maps and the exact size of every
** encoding that applies. It cannot fail: without memory for the dictionary's hash table there is
** simply no dictionary candidate. */
static void analyze(segment_builder *b, analysis *a) {
    vec_phys phys = (vec_phys)b->phys;
    int fam = family(phys);
    a->nvec = (b->rows + VECTOR_SIZE - 1) / VECTOR_SIZE;
    a->constant = 1;
    a->const_row = 0;
    int have_const = 0;
    a->zone[0].rows = a->zone[0].nulls = 0;
    for (uint32_t k = 0; k < a->nvec; k++) {
        vstat *s = &a->v[k];
        memset(s, 0, sizeof *s);
        s->start = k * VECTOR_SIZE;
        s->n = b->rows - s->start < VECTOR_SIZE ? b->rows - s->start : VECTOR_SIZE;
        uint32_t valid = 0;
        for (uint32_t w = 0; w < (s->n + 63) / 64; w++)
            valid += (uint32_t)__builtin_popcountll(b->validity[s->start / 64 + w]);
        s->nulls = s->n - valid;
        if (s->nulls > 0 && s->nulls < s->n) fill_nulls(b, s->start, s->n);
        if (s->nulls < s->n) {
            if (fam == FAM_INT)
                stats_ints(b, s);
            else
                stats_runs(b, fam, s);
            if (s->runs != 1) a->constant = 0;
            if (!have_const) {
                a->const_row = s->start;
                have_const = 1;
            } else if (!rows_equal(b, fam, a->const_row, s->start)) {
                a->constant = 0;
            }
        }
        memset(&a->zone[1 + k], 0, sizeof(bzone));
        zone_of_vector(b, s, &a->zone[1 + k]);
        zone_merge(b, &a->zone[0], &a->zone[1 + k]);
    }
    a->zone_len = 0;
    for (uint32_t k = 0; k <= a->nvec; k++) a->zone_len += zone_record_len(b, &a->zone[k]);
    if (seg_encoding_applies(SEG_DICTIONARY, phys)) build_dict(a, b, fam);
    for (int enc = 0; enc < SEG_ENCODING_COUNT; enc++) {
        a->size[enc] = UINT64_MAX;
        if (!seg_encoding_applies(enc, phys)) continue;
        if (enc == SEG_CONSTANT && !a->constant) continue;
        if (enc == SEG_DICTIONARY && !a->dict_ok) continue;
        if (enc == SEG_FSST) continue; /* measured last, when it may pay */
        a->size[enc] = encoding_size(a, b, enc);
    }
    if (phys == PHYS_STR && (b->null_count < b->rows || a->fsst_forced)) try_fsst(b, a);
}

/* PREFER_PERCENT: an encoding that decodes faster is kept when it is at most this much larger
** than the smallest (a dictionary that saves 76 bytes of 108 KB over frame of reference is not
** worth a gather per value). */
#define PREFER_PERCENT 1

/* choose returns the encoding to write: the forced one when it applies, else the first of
** constant, plain, for, delta, dictionary, rle, fsst (fastest to decode first) whose size is within
** PREFER_PERCENT of the smallest. */
static int choose(const analysis *a, int force) {
    if (force >= 0 && force < SEG_ENCODING_COUNT && a->size[force] != UINT64_MAX) return force;
    static const int order[] = {SEG_CONSTANT, SEG_PLAIN, SEG_FOR, SEG_DELTA, SEG_DICTIONARY, SEG_RLE, SEG_FSST};
    uint64_t best = UINT64_MAX;
    for (int e = 0; e < SEG_ENCODING_COUNT; e++) best = a->size[e] < best ? a->size[e] : best;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (a->size[order[i]] <= best + best / 100 * PREFER_PERCENT) return order[i];
    return SEG_PLAIN;
}

/* ---- writing ------------------------------------------------------------------------------ */

typedef struct writer {
    segment_builder *b;
    analysis *a;
    int enc, fam, level;
    btree_buf *out;
    size_t start;  /* the segment's first byte in out */
    uint64_t *tmp; /* 2 x VECTOR_SIZE values to pack */
    ZSTD_CCtx *cctx;
    btree_buf zbuf; /* compressed output */
    int compressed; /* some block or the dictionary is compressed */
    int misses;     /* blocks zstd did not shrink enough, before any it did */
} writer;

/* pack_field writes u8 w and the packed values. */
static uint8_t *pack_field(uint8_t *p, const uint64_t *vals, uint32_t n, unsigned w) {
    p = st8(p, (uint8_t)w);
    bitpack_pack(vals, n, w, p);
    return p + bp(n, w);
}

/* write_runs writes the run lengths of the vector and leaves each run's first row in rows. */
static uint8_t *write_runs(writer *w, const vstat *s, uint8_t *p, uint32_t *rows) {
    uint64_t *lens = w->tmp;
    uint32_t nruns = 0, runstart = 0;
    for (uint32_t i = 1; i <= s->n; i++) {
        if (i < s->n && rows_equal(w->b, w->fam, s->start + i, s->start + i - 1)) continue;
        rows[nruns] = s->start + runstart;
        lens[nruns++] = i - runstart - 1;
        runstart = i;
    }
    p = st16(p, (uint16_t)nruns);
    return pack_field(p, lens, nruns, bitpack_width(s->max_run - 1));
}

/* write_strings writes u32 offsets[m + 1] and the bytes of rows[0..m) (row UINT32_MAX: empty). */
static uint8_t *write_strings(const segment_builder *b, uint8_t *p, const uint32_t *rows, uint32_t m) {
    uint32_t off = 0;
    p = st32(p, 0);
    for (uint32_t i = 0; i < m; i++) {
        off += rows[i] == UINT32_MAX ? 0 : BV_STR(b)[rows[i]].len;
        p = st32(p, off);
    }
    for (uint32_t i = 0; i < m; i++) {
        if (rows[i] == UINT32_MAX) continue;
        const strref *x = &BV_STR(b)[rows[i]];
        p = stbytes(p, bstr(b, x), x->len);
    }
    return p;
}

/* write_fixed writes the values of rows[0..m) at their stored width. */
static uint8_t *write_fixed(const segment_builder *b, uint8_t *p, const uint32_t *rows, uint32_t m) {
    switch ((vec_phys)b->phys) {
    case PHYS_BOOL:
        for (uint32_t i = 0; i < m; i++) p = st8(p, (uint8_t)BV_INT(b)[rows[i]]);
        break;
    case PHYS_I16:
        for (uint32_t i = 0; i < m; i++) p = st16(p, (uint16_t)BV_INT(b)[rows[i]]);
        break;
    case PHYS_I32:
        for (uint32_t i = 0; i < m; i++) p = st32(p, (uint32_t)BV_INT(b)[rows[i]]);
        break;
    case PHYS_I64:
    case PHYS_F64:
        for (uint32_t i = 0; i < m; i++) p = st64(p, BV_U64(b)[rows[i]]);
        break;
    case PHYS_INTERVAL:
        for (uint32_t i = 0; i < m; i++) {
            const sql_interval *iv = &BV_IV(b)[rows[i]];
            p = st32(p, (uint32_t)iv->months);
            p = st32(p, (uint32_t)iv->days);
            p = st64(p, (uint64_t)iv->micros);
        }
        break;
    default: break;
    }
    return p;
}

/* write_payload writes vector s's values in the chosen encoding (see the format). */
static uint8_t *write_payload(writer *w, const vstat *s, uint8_t *p) {
    const segment_builder *b = w->b;
    const int64_t *v = BV_INT(b) + s->start;
    uint64_t *tmp = w->tmp;
    uint32_t *rows = (uint32_t *)(w->tmp + VECTOR_SIZE);
    uint32_t n = s->n;
    switch (w->enc) {
    case SEG_CONSTANT: return p;
    case SEG_PLAIN:
        for (uint32_t i = 0; i < n; i++)
            rows[i] = w->fam == FAM_STR && !bvalid(b, s->start + i) ? UINT32_MAX : s->start + i;
        return w->fam == FAM_STR ? write_strings(b, p, rows, n) : write_fixed(b, p, rows, n);
    case SEG_FOR:
        for (uint32_t i = 0; i < n; i++) tmp[i] = (uint64_t)v[i] - (uint64_t)s->min;
        p = st64(p, (uint64_t)s->min);
        return pack_field(p, tmp, n, bitpack_width((uint64_t)s->max - (uint64_t)s->min));
    case SEG_DELTA: {
        uint64_t min_delta = s->dmin ^ SIGN_BIT;
        for (uint32_t i = 1; i < n; i++) tmp[i - 1] = (uint64_t)v[i] - (uint64_t)v[i - 1] - min_delta;
        p = st64(p, (uint64_t)v[0]);
        p = st64(p, min_delta);
        return pack_field(p, tmp, n - 1, bitpack_width(s->dmax - s->dmin));
    }
    case SEG_DICTIONARY:
        for (uint32_t i = 0; i < n; i++) tmp[i] = w->a->codes[s->start + i];
        return pack_field(p, tmp, n, bitpack_width(w->a->dict_count - 1));
    case SEG_FSST: {
        const uint32_t *len = w->a->fsst_len + s->start;
        for (uint32_t i = 0; i < n; i++) tmp[i] = len[i];
        p = pack_field(p, tmp, n, s->fsst_w);
        uint32_t at = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (i % BITPACK_GROUP == 0) p = st32(p, at);
            at += len[i];
        }
        return stbytes(p, w->a->fsst_out + s->fsst_at, s->fsst_bytes);
    }
    case SEG_RLE: {
        p = write_runs(w, s, p, rows);
        uint32_t nruns = s->runs;
        if (w->fam == FAM_INT) {
            for (uint32_t j = 0; j < nruns; j++) tmp[j] = (uint64_t)BV_INT(b)[rows[j]] - (uint64_t)s->min;
            p = st64(p, (uint64_t)s->min);
            return pack_field(p, tmp, nruns, bitpack_width((uint64_t)s->max - (uint64_t)s->min));
        }
        return w->fam == FAM_STR ? write_strings(b, p, rows, nruns) : write_fixed(b, p, rows, nruns);
    }
    default: return p;
    }
}

/* write_validity writes the validity byte and, when the vector has some NULLs, its bitmap. */
static uint8_t *write_validity(const segment_builder *b, const vstat *s, uint8_t *p) {
    if (s->nulls == 0) return st8(p, 0);
    if (s->nulls == s->n) return st8(p, 1);
    p = st8(p, 2);
    for (uint32_t j = 0; j < (s->n + 7) / 8; j++)
        p = st8(p, (uint8_t)(b->validity[s->start / 64 + j / 8] >> (8 * (j % 8))));
    return p;
}

/* reserve makes room for n more bytes of the segment, refusing a segment past 4 GiB - 1. */
static int reserve(writer *w, uint64_t n, strata_err *err) {
    if (n > UINT32_MAX || w->out->len - w->start + n > UINT32_MAX)
        return err_set(err, STRATA_TOOBIG, "a segment exceeds 4 GiB (%llu bytes and more)",
                       (unsigned long long)(w->out->len - w->start + n));
    return record_buf_reserve(w->out, (size_t)n, err);
}

#define ZSTD_GIVE_UP 2

/* maybe_compress replaces the raw bytes [at, out->len) with a zstd frame when they are at least
** SEGMENT_ZSTD_MIN_BLOCK and the frame saves 10 %; *stored receives the stored length. */
static int maybe_compress(writer *w, size_t at, uint32_t *stored, strata_err *err) {
    size_t raw = w->out->len - at;
    *stored = (uint32_t)raw;
    /* fsst strings stay readable one at a time: never under zstd */
    if (w->level == 0 || raw < SEGMENT_ZSTD_MIN_BLOCK || w->enc == SEG_FSST) return STRATA_OK;
    /* blocks of one segment are alike: after ZSTD_GIVE_UP in a row that did not pay, and none that
    ** did, the rest are not tried (bit-packed integers rarely pay; trying them was a tenth of a
    ** bulk load's time) */
    if (!w->compressed && w->misses >= ZSTD_GIVE_UP) return STRATA_OK;
    if (w->cctx == NULL && (w->cctx = ZSTD_createCCtx()) == NULL)
        return err_set(err, STRATA_NOMEM, "out of memory (zstd context)");
    size_t bound = ZSTD_compressBound(raw);
    w->zbuf.len = 0;
    int rc = record_buf_reserve(&w->zbuf, bound, err);
    if (rc) return rc;
    size_t n = ZSTD_compressCCtx(w->cctx, w->zbuf.data, bound, w->out->data + at, raw, w->level);
    if (ZSTD_isError(n)) {
        if (ZSTD_getErrorCode(n) == ZSTD_error_memory_allocation)
            return err_set(err, STRATA_NOMEM, "out of memory (zstd)");
        return err_set(err, STRATA_MISUSE, "zstd level %d: %s", w->level, ZSTD_getErrorName(n));
    }
    if (n * 10 > raw * 9) {
        w->misses++;
        return STRATA_OK;
    }
    memcpy(w->out->data + at, w->zbuf.data, n);
    w->out->len = at + n;
    *stored = (uint32_t)n;
    w->compressed = 1;
    return STRATA_OK;
}

static uint8_t *write_zone(const segment_builder *b, const bzone *z, uint8_t *p) {
    int has = z->nulls < z->rows && b->phys != PHYS_INTERVAL;
    p = st32(p, z->nulls);
    if (!has) return st8(p, 0);
    if (b->phys == PHYS_F64) {
        p = st8(p, 1);
        p = st64(p, f64_bits(z->min_d));
        return st64(p, f64_bits(z->max_d));
    }
    if (b->phys != PHYS_STR) {
        p = st8(p, 1);
        p = st64(p, (uint64_t)z->min_i);
        return st64(p, (uint64_t)z->max_i);
    }
    const strref *lo = &BV_STR(b)[z->min_row], *hi = &BV_STR(b)[z->max_row];
    uint32_t lo_len = zone_str_len(lo->len), hi_len = zone_str_len(hi->len);
    p = st8(p, (uint8_t)(1 | (lo_len < lo->len) << 1 | (hi_len < hi->len) << 2));
    p = st8(p, (uint8_t)lo_len);
    p = stbytes(p, bstr(b, lo), lo_len);
    p = st8(p, (uint8_t)hi_len);
    return stbytes(p, bstr(b, hi), hi_len);
}

/* write_dict writes the raw dictionary section: the dictionary's values, or the constant. */
static uint8_t *write_dict(writer *w, uint8_t *p) {
    const segment_builder *b = w->b;
    if (w->enc == SEG_FSST) return fsst_table_write(w->a->fsst, p);
    const uint32_t *rows = w->a->rep;
    uint32_t count = w->a->dict_count;
    if (w->enc == SEG_CONSTANT) {
        rows = &w->a->const_row;
        count = b->null_count < b->rows ? 1 : 0;
    }
    p = st32(p, count);
    return b->phys == PHYS_STR ? write_strings(b, p, rows, count) : write_fixed(b, p, rows, count);
}

static int write_segment(writer *w, strata_err *err) {
    segment_builder *b = w->b;
    analysis *a = w->a;
    vec_phys phys = (vec_phys)b->phys;
    int rc;
    /* header (filled in last) and zones */
    if ((rc = reserve(w, SEGMENT_HEADER_SIZE + a->zone_len, err))) return rc;
    uint8_t *p = w->out->data + w->out->len + SEGMENT_HEADER_SIZE;
    for (uint32_t k = 0; k <= a->nvec; k++) p = write_zone(b, &a->zone[k], p);
    w->out->len += SEGMENT_HEADER_SIZE + a->zone_len;
    /* dictionary */
    uint64_t dict_raw = dict_bytes(a, b, w->enc);
    uint32_t dict_off = 0, dict_len = 0;
    if (dict_raw) {
        if ((rc = reserve(w, dict_raw, err))) return rc;
        dict_off = (uint32_t)(w->out->len - w->start);
        p = write_dict(w, w->out->data + w->out->len);
        assert((uint64_t)(p - (w->out->data + w->out->len)) == dict_raw);
        w->out->len += dict_raw;
        if ((rc = maybe_compress(w, w->start + dict_off, &dict_len, err))) return rc;
    }
    /* directory, then the blocks */
    uint32_t nblocks = nblocks_of(a, b, w->enc);
    if ((rc = reserve(w, 12 * (uint64_t)nblocks, err))) return rc;
    uint32_t dir_off = (uint32_t)(w->out->len - w->start);
    w->out->len += 12 * (size_t)nblocks;
    for (uint32_t k = 0; k < nblocks; k++) {
        const vstat *s = &a->v[k];
        uint64_t raw = block_bytes(a, phys, w->enc, s);
        if ((rc = reserve(w, raw, err))) return rc;
        size_t at = w->out->len;
        p = write_validity(b, s, w->out->data + at);
        if (s->nulls < s->n) p = write_payload(w, s, p);
        assert((uint64_t)(p - (w->out->data + at)) == raw);
        w->out->len += raw;
        uint32_t stored;
        if ((rc = maybe_compress(w, at, &stored, err))) return rc;
        uint8_t *e = w->out->data + w->start + dir_off + 12 * (size_t)k;
        e = st32(e, (uint32_t)(at - w->start));
        e = st32(e, stored);
        st32(e, (uint32_t)raw);
    }
    /* the header */
    uint8_t *h = w->out->data + w->start;
    uint32_t length = (uint32_t)(w->out->len - w->start);
    st32(h + 0, SEGMENT_MAGIC);
    st32(h + 8, length);
    st8(h + 12, SEGMENT_VERSION);
    st8(h + 13, b->type.id);
    st8(h + 14, (uint8_t)w->enc);
    st8(h + 15, (uint8_t)(w->compressed ? 1 : 0));
    st32(h + 16, b->rows);
    st32(h + 20, b->null_count);
    st32(h + 24, a->nvec);
    st32(h + 28, nblocks);
    st64(h + 32, phys == PHYS_STR ? b->bytes_len : 0);
    st32(h + 40, SEGMENT_HEADER_SIZE);
    st32(h + 44, (uint32_t)a->zone_len);
    st32(h + 48, dict_off);
    st32(h + 52, dict_len);
    st32(h + 56, (uint32_t)dict_raw);
    st32(h + 60, dir_off);
    st32(h + SEGMENT_CRC_OFFSET, crc32c(0, h + 8, length - 8));
    return STRATA_OK;
}

int segment_builder_finish(segment_builder *b, const segment_options *opt, btree_buf *out, strata_err *err) {
    segment_options o = opt ? *opt : segment_options_default();
    if (o.zstd_level != 0 && (o.zstd_level < ZSTD_minCLevel() || o.zstd_level > ZSTD_maxCLevel()))
        return err_set(err, STRATA_MISUSE, "zstd level %d is outside %d..%d", o.zstd_level, ZSTD_minCLevel(),
                       ZSTD_maxCLevel());
    analysis *a = calloc(1, sizeof *a);
    uint64_t *tmp = malloc(2 * (VECTOR_SIZE + BITPACK_GROUP) * sizeof *tmp);
    if (a == NULL || tmp == NULL) {
        free(a);
        free(tmp);
        return err_set(err, STRATA_NOMEM, "out of memory (segment analysis)");
    }
    a->dict_forced = o.force_encoding == SEG_DICTIONARY;
    a->fsst_forced = o.force_encoding == SEG_FSST;
    analyze(b, a);
    writer w = {.b = b,
                .a = a,
                .enc = choose(a, o.force_encoding),
                .fam = family((vec_phys)b->phys),
                .level = o.zstd_level,
                .out = out,
                .start = out->len,
                .tmp = tmp};
    int rc = write_segment(&w, err);
    if (rc) out->len = w.start;
    ZSTD_freeCCtx(w.cctx);
    btree_buf_free(&w.zbuf);
    analysis_free(a);
    free(a);
    free(tmp);
    return rc;
}

/* ---- reading: open and validate ----------------------------------------------------------- */

/* A bounds-checked cursor: reading past end sets bad and yields zeros. */
typedef struct cursor {
    const uint8_t *p, *end;
    int bad;
} cursor;

static const uint8_t *take(cursor *c, uint64_t n) {
    if (c->bad || n > (uint64_t)(c->end - c->p)) {
        c->bad = 1;
        return NULL;
    }
    const uint8_t *q = c->p;
    c->p += n;
    return q;
}
static uint8_t get8(cursor *c) {
    const uint8_t *q = take(c, 1);
    return q ? q[0] : 0;
}
static uint16_t get16(cursor *c) {
    const uint8_t *q = take(c, 2);
    return q ? ld16(q) : 0;
}
static uint32_t get32(cursor *c) {
    const uint8_t *q = take(c, 4);
    return q ? ld32(q) : 0;
}
static uint64_t get64(cursor *c) {
    const uint8_t *q = take(c, 8);
    return q ? ld64(q) : 0;
}

#define CORRUPT(...) err_set(err, STRATA_CORRUPT, "segment: " __VA_ARGS__)

static uint32_t rows_of(const segment_reader *r, int k) {
    return k < 0 ? r->rows : segment_vector_rows(r, (uint32_t)k);
}

/* check_zone validates the zone record of vector k (-1: the segment) at c. */
static int check_zone(segment_reader *r, int k, cursor *c, strata_err *err) {
    uint32_t rows = rows_of(r, k);
    uint32_t nulls = get32(c);
    uint8_t flags = get8(c);
    int has = nulls < rows && r->phys != PHYS_INTERVAL;
    if (c->bad) return CORRUPT("zone map %d runs past its section", k);
    if (nulls > rows || (flags & 1) != has || flags > 7 || (r->phys != PHYS_STR && (flags & 6)))
        return CORRUPT("zone map %d: %u NULLs of %u rows, flags %#x", k, nulls, rows, flags);
    if (k >= 0)
        r->vec_nulls[k] = nulls;
    else if (nulls != r->null_count)
        return CORRUPT("zone map NULL count %u, header %u", nulls, r->null_count);
    if (!has) return STRATA_OK;
    if (r->phys == PHYS_STR) {
        uint32_t lo_len = get8(c);
        const uint8_t *lo = take(c, lo_len);
        uint32_t hi_len = get8(c);
        const uint8_t *hi = take(c, hi_len);
        if (c->bad || lo_len > SEGMENT_ZONE_STR_MAX || hi_len > SEGMENT_ZONE_STR_MAX ||
            ((flags & 2) && lo_len != SEGMENT_ZONE_STR_MAX) ||
            ((flags & 4) && hi_len != SEGMENT_ZONE_STR_MAX) || cmp_bytes(lo, lo_len, hi, hi_len) > 0)
            return CORRUPT("zone map %d: bad string bounds", k);
        return STRATA_OK;
    }
    uint64_t lo = get64(c), hi = get64(c);
    if (c->bad) return CORRUPT("zone map %d runs past its section", k);
    if (r->phys == PHYS_F64) {
        if (cmp_f64(bits_f64(lo), bits_f64(hi)) > 0) return CORRUPT("zone map %d: min above max", k);
        return STRATA_OK;
    }
    int64_t tlo, thi;
    int_range((vec_phys)r->phys, &tlo, &thi);
    if ((int64_t)lo > (int64_t)hi || (int64_t)lo < tlo || (int64_t)hi > thi)
        return CORRUPT("zone map %d: bounds %lld..%lld", k, (long long)(int64_t)lo, (long long)(int64_t)hi);
    return STRATA_OK;
}

/* check_frame says whether src holds a zstd frame that declares exactly raw bytes of content:
** checked before anything is allocated for it, so that a damaged length cannot ask for gigabytes. */
static int check_frame(const uint8_t *src, size_t n, size_t raw, const char *what, uint32_t k,
                       strata_err *err) {
    unsigned long long size = ZSTD_getFrameContentSize(src, n);
    if (size != raw) return CORRUPT("%s %u: zstd frame of %llu bytes, expected %zu", what, k, size, raw);
    return STRATA_OK;
}

/* inflate decompresses a zstd frame (check_frame'd) of exactly raw bytes into dst. */
static int inflate(segment_reader *r, const uint8_t *src, size_t n, uint8_t *dst, size_t raw,
                   const char *what, uint32_t k, strata_err *err) {
    if (r->dctx == NULL && (r->dctx = ZSTD_createDCtx()) == NULL)
        return err_set(err, STRATA_NOMEM, "out of memory (zstd context)");
    size_t got = ZSTD_decompressDCtx(r->dctx, dst, raw, src, n);
    if (ZSTD_isError(got) || got != raw)
        return CORRUPT("%s %u: zstd: %s", what, k,
                       ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short frame");
    return STRATA_OK;
}

/* check_dict validates the dictionary (or the constant) and sets r->dict and dict_count. */
static int check_dict(segment_reader *r, const uint8_t *raw, size_t len, strata_err *err) {
    if (r->encoding == SEG_FSST) {
        if ((r->fsst = malloc(sizeof *r->fsst)) == NULL)
            return err_set(err, STRATA_NOMEM, "out of memory (fsst symbol table)");
        if (!fsst_decoder_load(r->fsst, raw, len)) return CORRUPT("fsst symbol table of %zu bytes", len);
        return STRATA_OK;
    }
    cursor c = {raw, raw + len, 0};
    uint32_t count = get32(&c);
    if (c.bad) return CORRUPT("dictionary of %zu bytes", len);
    if (r->encoding == SEG_CONSTANT) {
        if (count != (r->null_count < r->rows ? 1u : 0u))
            return CORRUPT("constant with %u values (%u NULLs of %u rows)", count, r->null_count, r->rows);
    } else if (count > SEGMENT_DICT_MAX || (count == 0 && r->null_count < r->rows)) {
        return CORRUPT("dictionary of %u entries", count);
    }
    if (r->phys == PHYS_STR) {
        const uint8_t *offs = take(&c, 4 * ((uint64_t)count + 1));
        if (c.bad) return CORRUPT("dictionary of %u strings runs past its section", count);
        uint32_t prev = 0;
        for (uint32_t i = 0; i <= count; i++) {
            uint32_t o = ld32(offs + 4 * (size_t)i);
            if (o < prev || (i == 0 && o != 0)) return CORRUPT("dictionary string %u: bad offset %u", i, o);
            prev = o;
        }
        take(&c, prev);
    } else {
        const uint8_t *vals = take(&c, (uint64_t)count * fixed_bytes((vec_phys)r->phys));
        if (r->phys == PHYS_BOOL && vals)
            for (uint32_t i = 0; i < count; i++)
                if (vals[i] > 1) return CORRUPT("dictionary boolean %u is %u", i, vals[i]);
    }
    if (c.bad || c.p != c.end) return CORRUPT("dictionary of %u entries in %zu bytes", count, len);
    r->dict = raw + 4;
    r->dict_len = len - 4;
    r->dict_count = count;
    return STRATA_OK;
}

int segment_open(segment_reader *r, const uint8_t *buf, size_t len, sql_type type, strata_err *err) {
    memset(r, 0, sizeof *r);
    r->scratch_block = -1;
    if (type.id >= TYPE_COUNT) return err_set(err, STRATA_MISUSE, "segment of unknown type id %u", type.id);
    if (buf == NULL || len < SEGMENT_HEADER_SIZE)
        return CORRUPT("%zu bytes are shorter than the %d-byte header", len, SEGMENT_HEADER_SIZE);
    if (ld32(buf) != SEGMENT_MAGIC) return CORRUPT("bad magic %08x", ld32(buf));
    if (ld32(buf + 8) != len) return CORRUPT("length %u in the header, %zu bytes given", ld32(buf + 8), len);
    uint32_t crc = crc32c(0, buf + 8, len - 8);
    if (crc != ld32(buf + SEGMENT_CRC_OFFSET))
        return CORRUPT("checksum mismatch (stored %08x, computed %08x)", ld32(buf + SEGMENT_CRC_OFFSET), crc);
    if (buf[12] != SEGMENT_VERSION)
        return err_set(err, STRATA_CORRUPT, "segment: format version %u, this build reads %d", buf[12],
                       SEGMENT_VERSION);
    r->buf = buf;
    r->len = len;
    r->type = type;
    r->phys = (uint8_t)vec_phys_of((sql_type_id)type.id);
    if (buf[13] != type.id) return CORRUPT("holds type %u, the column has type %u", buf[13], type.id);
    r->encoding = buf[14];
    r->flags = buf[15];
    if (!seg_encoding_applies(r->encoding, (vec_phys)r->phys) || r->flags > 1)
        return CORRUPT("encoding %u (flags %#x) for physical type %u", r->encoding, r->flags, r->phys);
    r->rows = ld32(buf + 16);
    r->null_count = ld32(buf + 20);
    r->nvectors = ld32(buf + 24);
    r->nblocks = ld32(buf + 28);
    r->str_bytes = ld64(buf + 32);
    if (r->rows > SEGMENT_MAX_ROWS || r->null_count > r->rows ||
        r->nvectors != (r->rows + VECTOR_SIZE - 1) / VECTOR_SIZE)
        return CORRUPT("%u rows, %u NULLs, %u vectors", r->rows, r->null_count, r->nvectors);
    int blockless = r->encoding == SEG_CONSTANT && (r->null_count == 0 || r->null_count == r->rows);
    if (r->nblocks != (blockless ? 0 : r->nvectors))
        return CORRUPT("%u blocks for %u vectors (encoding %s)", r->nblocks, r->nvectors,
                       enc_names[r->encoding]);
    if (r->phys != PHYS_STR && r->str_bytes != 0)
        return CORRUPT("%llu string bytes", (unsigned long long)r->str_bytes);

    /* zone maps */
    uint32_t zone_off = ld32(buf + 40), zone_len = ld32(buf + 44);
    if (zone_off < SEGMENT_HEADER_SIZE || zone_off > len || zone_len > len - zone_off)
        return CORRUPT("zone maps at %u (%u bytes) outside %zu bytes", zone_off, zone_len, len);
    cursor c = {buf + zone_off, buf + zone_off + zone_len, 0};
    uint32_t vec_null_sum = 0;
    for (int k = -1; k < (int)r->nvectors; k++) {
        r->zone_off[k + 1] = (uint32_t)(c.p - buf);
        int rc = check_zone(r, k, &c, err);
        if (rc) return rc;
        if (k >= 0) vec_null_sum += r->vec_nulls[k];
    }
    if (c.p != c.end) return CORRUPT("zone maps end %td bytes before their section", c.end - c.p);
    if (vec_null_sum != r->null_count)
        return CORRUPT("vector NULL counts sum to %u, header %u", vec_null_sum, r->null_count);

    /* dictionary */
    uint32_t dict_off = ld32(buf + 48), dict_len = ld32(buf + 52), dict_raw = ld32(buf + 56);
    int compressed = 0;
    int needs_dict = r->encoding == SEG_CONSTANT || r->encoding == SEG_DICTIONARY || r->encoding == SEG_FSST;
    if (!needs_dict) {
        if (dict_off || dict_len || dict_raw)
            return CORRUPT("a dictionary for encoding %s", enc_names[r->encoding]);
    } else {
        if (dict_len == 0 || dict_off < SEGMENT_HEADER_SIZE || dict_off > len || dict_len > len - dict_off ||
            dict_len > dict_raw)
            return CORRUPT("dictionary at %u (%u of %u bytes) outside %zu bytes", dict_off, dict_len,
                           dict_raw, len);
        const uint8_t *raw = buf + dict_off;
        if (dict_len < dict_raw) {
            compressed = 1;
            int rc = check_frame(raw, dict_len, dict_raw, "dictionary", 0, err);
            if (rc) return rc;
            if ((r->dict_copy = malloc(dict_raw)) == NULL)
                return err_set(err, STRATA_NOMEM, "out of memory (segment dictionary of %u bytes)", dict_raw);
            rc = inflate(r, raw, dict_len, r->dict_copy, dict_raw, "dictionary", 0, err);
            if (rc) {
                segment_reader_close(r);
                return rc;
            }
            raw = r->dict_copy;
        }
        int rc = check_dict(r, raw, dict_raw, err);
        if (rc) {
            segment_reader_close(r);
            return rc;
        }
    }

    /* directory */
    uint32_t dir_off = ld32(buf + 60);
    if (dir_off < SEGMENT_HEADER_SIZE || dir_off > len || 12 * (uint64_t)r->nblocks > len - dir_off) {
        segment_reader_close(r);
        return CORRUPT("directory at %u (%u blocks) outside %zu bytes", dir_off, r->nblocks, len);
    }
    r->dir = buf + dir_off;
    for (uint32_t k = 0; k < r->nblocks; k++) {
        const uint8_t *e = r->dir + 12 * (size_t)k;
        uint32_t off = ld32(e), stored = ld32(e + 4), raw = ld32(e + 8);
        if (off < SEGMENT_HEADER_SIZE || off > len || stored > len - off || stored == 0 || stored > raw) {
            segment_reader_close(r);
            return CORRUPT("block %u at %u (%u of %u bytes) outside %zu bytes", k, off, stored, raw, len);
        }
        compressed |= stored < raw;
    }
    if (compressed != (r->flags & 1)) {
        segment_reader_close(r);
        return CORRUPT("compression flag %u but %s compressed block", r->flags & 1, compressed ? "a" : "no");
    }
    return STRATA_OK;
}

void segment_keep_blocks(segment_reader *r) { r->keep = 1; }

void segment_reader_close(segment_reader *r) {
    for (uint32_t k = 0; r->kept && k < r->nvectors; k++) free(r->kept[k]);
    free(r->kept);
    r->kept = NULL;
    for (uint32_t k = 0; r->run_ends && k < r->nvectors; k++) free(r->run_ends[k]);
    free(r->run_ends);
    r->run_ends = NULL;
    r->kept_bytes = 0;
    free(r->dict_copy);
    free(r->point);
    r->point = NULL;
    free(r->fsst);
    free(r->fbuf);
    r->fsst = NULL, r->fbuf = NULL, r->fbuf_cap = 0;
    free(r->dvals);
    free(r->dvalid);
    r->dvals = NULL, r->dvalid = NULL;
    free(r->scratch);
    free(r->tmp);
    free(r->sptr);
    free(r->slen);
    ZSTD_freeDCtx(r->dctx);
    r->dict_copy = r->scratch = NULL;
    r->tmp = NULL;
    r->sptr = NULL;
    r->slen = NULL;
    r->dctx = NULL;
    r->scratch_cap = 0;
    r->scratch_block = -1;
}

/* ---- reading: blocks ---------------------------------------------------------------------- */

/* A vector's block, opened: its validity and its payload. */
typedef struct vblock {
    uint32_t k, n;
    uint8_t mode;          /* 0 no NULLs, 1 all NULL, 2 bitmap */
    const uint8_t *bitmap; /* mode 2: ceil(n/8) bytes */
    const uint8_t *p;      /* payload */
    size_t m;              /* its bytes */
} vblock;

/* The decoded form of a payload's header fields (which of them apply depends on the encoding). */
typedef struct payload {
    uint64_t base, first, min_delta;
    unsigned w, lw;
    uint32_t nruns;
    const uint8_t *packed; /* values, codes or deltas */
    const uint8_t *lens;   /* rle: run lengths - 1 */
    const uint8_t *fixed;  /* plain / rle: values at their stored width */
    const uint8_t *offs;   /* plain / rle strings: u32 offsets; fsst: u32 group starts */
    const uint8_t *bytes;  /* and their bytes */
    uint32_t nstr, bytes_len;
} payload;

/* The block of the last point read: the next one is often in the same vector. */
struct segment_point {
    int ok;
    vblock b;
    payload pl;
    uint32_t fsst_g;                          /* fsst: the group of 64 strings fsst_start is of */
    uint64_t fsst_start[BITPACK_GROUP + 1];   /* ... their starts in pl.bytes, and the end */
};

#define TMP_N (VECTOR_SIZE + BITPACK_GROUP) /* room for a whole vector unpacked, plus one */

static int ensure_tmp(segment_reader *r, strata_err *err) {
    if (r->tmp) return STRATA_OK;
    r->tmp = malloc(3 * TMP_N * sizeof *r->tmp);
    r->sptr = malloc(VECTOR_SIZE * sizeof *r->sptr);
    r->slen = malloc(VECTOR_SIZE * sizeof *r->slen);
    if (r->tmp == NULL || r->sptr == NULL || r->slen == NULL) {
        free(r->tmp);
        free(r->sptr);
        free(r->slen);
        r->tmp = NULL, r->sptr = NULL, r->slen = NULL;
        return err_set(err, STRATA_NOMEM, "out of memory (segment decoding)");
    }
    return STRATA_OK;
}

/* block_raw sets *p, *m to block k's raw bytes, decompressing it into scratch when needed. */
static int block_raw(segment_reader *r, uint32_t k, const uint8_t **p, size_t *m, strata_err *err) {
    const uint8_t *e = r->dir + 12 * (size_t)k;
    uint32_t off = ld32(e), stored = ld32(e + 4), raw = ld32(e + 8);
    *m = raw;
    if (stored == raw) {
        *p = r->buf + off;
        return STRATA_OK;
    }
    if (r->keep && r->kept == NULL) r->kept = calloc(r->nvectors, sizeof *r->kept); /* NULL: scratch */
    if (r->kept && r->kept[k]) {
        *p = r->kept[k];
        return STRATA_OK;
    }
    if (r->scratch_block == (int64_t)k) {
        *p = r->scratch;
        return STRATA_OK;
    }
    int rc = check_frame(r->buf + off, stored, raw, "block", k, err);
    if (rc) return rc;
    /* kept until close when keeping (out of memory for it: the scratch block, as without) */
    uint8_t *dst = r->kept ? malloc(raw ? raw : 1) : NULL;
    if (dst == NULL) {
        r->scratch_block = -1;
        if (r->point) r->point->ok = 0; /* its block may be the scratch's */
        if (r->scratch_cap < raw) {
            uint8_t *s = realloc(r->scratch, raw);
            if (s == NULL)
                return err_set(err, STRATA_NOMEM, "out of memory (segment block of %u bytes)", raw);
            r->scratch = s;
            r->scratch_cap = raw;
        }
    }
    if ((rc = inflate(r, r->buf + off, stored, dst ? dst : r->scratch, raw, "block", k, err))) {
        free(dst);
        return rc;
    }
    if (dst) {
        r->kept[k] = dst;
        r->kept_bytes += raw;
        *p = dst;
        return STRATA_OK;
    }
    r->scratch_block = k;
    *p = r->scratch;
    return STRATA_OK;
}

/* open_block opens vector k's block and checks its validity against the zone map's NULL count. */
static int open_block(segment_reader *r, uint32_t k, vblock *b, strata_err *err) {
    memset(b, 0, sizeof *b);
    b->k = k;
    b->n = segment_vector_rows(r, k);
    if (r->nblocks == 0) { /* a constant without NULLs, or all NULL */
        b->mode = r->null_count ? 1 : 0;
        return STRATA_OK;
    }
    const uint8_t *raw = NULL;
    size_t len = 0;
    int rc = block_raw(r, k, &raw, &len, err);
    if (rc) return rc;
    cursor c = {raw, raw + len, 0};
    b->mode = get8(&c);
    uint32_t nulls = 0;
    if (b->mode == 2) {
        b->bitmap = take(&c, (b->n + 7) / 8);
        if (b->bitmap) {
            for (uint32_t j = 0; j < b->n / 8; j++) nulls += 8 - (uint32_t)__builtin_popcount(b->bitmap[j]);
            if (b->n % 8)
                nulls +=
                    b->n % 8 - (uint32_t)__builtin_popcount(b->bitmap[b->n / 8] & ((1u << (b->n % 8)) - 1));
        }
    } else if (b->mode == 1) {
        nulls = b->n;
    }
    if (c.bad || b->mode > 2 || nulls != r->vec_nulls[k] || (b->mode == 2 && (nulls == 0 || nulls == b->n)))
        return CORRUPT("vector %u: validity %u with %u NULLs, zone map says %u", k, b->mode, nulls,
                       r->vec_nulls[k]);
    b->p = c.p;
    b->m = (size_t)(c.end - c.p);
    if (b->mode == 1 && b->m != 0) return CORRUPT("vector %u: all NULL with %zu bytes of values", k, b->m);
    return STRATA_OK;
}

static inline int row_valid(const vblock *b, uint32_t i) {
    return b->mode == 0 || (b->mode == 2 && (b->bitmap[i >> 3] >> (i & 7) & 1));
}

/* take_packed reads u8 w (at most 64) and bp(n, w) bytes. */
static const uint8_t *take_packed(cursor *c, uint64_t n, unsigned *w) {
    *w = get8(c);
    if (*w > 64) {
        c->bad = 1;
        return NULL;
    }
    return take(c, bp(n, *w));
}

/* take_strings reads u32 offsets[m + 1] and the bytes they cover; the offsets are checked as
** they are used, except the first and the last here. */
static void take_strings(cursor *c, uint32_t m, payload *pl) {
    pl->nstr = m;
    pl->offs = take(c, 4 * ((uint64_t)m + 1));
    if (pl->offs == NULL) return;
    if (ld32(pl->offs) != 0) c->bad = 1;
    pl->bytes_len = ld32(pl->offs + 4 * (size_t)m);
    pl->bytes = take(c, pl->bytes_len);
}

/* parse_payload reads the header fields of b's payload and checks its exact length. */
static int parse_payload(const segment_reader *r, const vblock *b, payload *pl, strata_err *err) {
    memset(pl, 0, sizeof *pl);
    if (b->mode == 1 || r->encoding == SEG_CONSTANT) {
        if (b->m != 0) return CORRUPT("vector %u: %zu bytes of values for a constant", b->k, b->m);
        return STRATA_OK;
    }
    cursor c = {b->p, b->p + b->m, 0};
    int fam = family((vec_phys)r->phys);
    switch (r->encoding) {
    case SEG_PLAIN:
        if (fam == FAM_STR)
            take_strings(&c, b->n, pl);
        else
            pl->fixed = take(&c, (uint64_t)b->n * fixed_bytes((vec_phys)r->phys));
        break;
    case SEG_FOR:
        pl->base = get64(&c);
        pl->packed = take_packed(&c, b->n, &pl->w);
        break;
    case SEG_DELTA:
        pl->first = get64(&c);
        pl->min_delta = get64(&c);
        pl->packed = take_packed(&c, b->n - 1, &pl->w);
        break;
    case SEG_DICTIONARY: pl->packed = take_packed(&c, b->n, &pl->w); break;
    case SEG_FSST:
        pl->packed = take_packed(&c, b->n, &pl->w);
        pl->offs = take(&c, 4 * (uint64_t)fsst_groups(b->n));
        pl->bytes_len = (uint32_t)(c.end - c.p);
        pl->bytes = take(&c, pl->bytes_len);
        break;
    case SEG_RLE:
        pl->nruns = get16(&c);
        if (pl->nruns == 0 || pl->nruns > b->n) c.bad = 1;
        pl->lens = take_packed(&c, pl->nruns, &pl->lw);
        if (fam == FAM_INT) {
            pl->base = get64(&c);
            pl->packed = take_packed(&c, pl->nruns, &pl->w);
        } else if (fam == FAM_STR) {
            take_strings(&c, pl->nruns, pl);
        } else {
            pl->fixed = take(&c, 8 * (uint64_t)pl->nruns);
        }
        break;
    default: c.bad = 1;
    }
    if (c.bad || c.p != c.end)
        return CORRUPT("vector %u: %s payload of %zu bytes does not parse", b->k, enc_names[r->encoding],
                       b->m);
    return STRATA_OK;
}

/* ---- reading: integers -------------------------------------------------------------------- */

/* Narrowing kernels: out[i] = base + src[i] (modulo 2^64) as T. With check they also return 0
** when a value does not fit T (a corrupt block), found without a branch per value: a value fits
** when T's sign extension gives it back (BOOL: when it is 0 or 1). Encodings whose values cannot
** leave T's range skip the check (see decode_ints). Loops run in blocks of BLOCK values, a trip
** count that -O2 (which vectorizes only loops with a known trip count) vectorizes for T; restrict
** tells it that src (uint64_t) does not overlap an int64_t out. */
#define STORE_KERNEL(NAME, T, BAD, BLOCK)                                                                    \
    static int NAME(const uint64_t *restrict src, uint64_t base, uint32_t n, void *restrict dst,             \
                    int check) {                                                                             \
        T *restrict out = dst;                                                                               \
        uint64_t bad = 0;                                                                                    \
        size_t i = 0;                                                                                        \
        if (check) {                                                                                         \
            for (; i + BLOCK <= n; i += BLOCK) {                                                             \
                const uint64_t *restrict s = src + i;                                                        \
                T *restrict o = out + i;                                                                     \
                for (size_t j = 0; j < BLOCK; j++) {                                                         \
                    uint64_t x = base + s[j];                                                                \
                    bad |= BAD(x);                                                                           \
                    o[j] = (T)x;                                                                             \
                }                                                                                            \
            }                                                                                                \
            for (; i < n; i++) {                                                                             \
                uint64_t x = base + src[i];                                                                  \
                bad |= BAD(x);                                                                               \
                out[i] = (T)x;                                                                               \
            }                                                                                                \
        } else {                                                                                             \
            for (; i + BLOCK <= n; i += BLOCK) {                                                             \
                const uint64_t *restrict s = src + i;                                                        \
                T *restrict o = out + i;                                                                     \
                for (size_t j = 0; j < BLOCK; j++) o[j] = (T)(base + s[j]);                                  \
            }                                                                                                \
            for (; i < n; i++) out[i] = (T)(base + src[i]);                                                  \
        }                                                                                                    \
        return bad == 0;                                                                                     \
    }
#define BAD_BOOL(x) ((x) & ~UINT64_C(1))
#define BAD_I16(x) ((x) ^ (uint64_t)(int64_t)(int16_t)(x))
#define BAD_I32(x) ((x) ^ (uint64_t)(int64_t)(int32_t)(x))
#define BAD_I64(x) 0
STORE_KERNEL(store_bool, uint8_t, BAD_BOOL, 64)
STORE_KERNEL(store_i16, int16_t, BAD_I16, 32)
STORE_KERNEL(store_i32, int32_t, BAD_I32, 32)
STORE_KERNEL(store_i64, int64_t, BAD_I64, 64)

typedef int (*store_fn)(const uint64_t *src, uint64_t base, uint32_t n, void *dst, int check);

static store_fn store_of(vec_phys p) {
    return p == PHYS_BOOL ? store_bool : p == PHYS_I16 ? store_i16 : p == PHYS_I32 ? store_i32 : store_i64;
}

/* frame_fits says whether every value base + (0 .. 2^w - 1) lies in phys's range, so that a
** frame-of-reference block needs no check per value. */
static int frame_fits(vec_phys phys, uint64_t base, unsigned w) {
    if (phys == PHYS_I64) return 1;
    int64_t lo, hi;
    int_range(phys, &lo, &hi);
    int64_t b = (int64_t)base;
    return w <= 32 && b >= lo && b <= hi && (uint64_t)(hi - b) >= (UINT64_C(1) << w) - 1;
}

/* Loading kernels: vals[i] = the sign-extended integer at src + i * width (plain values, run
** values, or dictionary entries by code when idx is given). */
#define LOAD_KERNEL(NAME, T, LD)                                                                             \
    static void NAME(const uint8_t *src, const uint64_t *idx, uint32_t n, uint64_t *vals) {                  \
        if (idx)                                                                                             \
            for (uint32_t i = 0; i < n; i++) vals[i] = (uint64_t)(int64_t)(T)LD(src + sizeof(T) * idx[i]);   \
        else                                                                                                 \
            for (uint32_t i = 0; i < n; i++) vals[i] = (uint64_t)(int64_t)(T)LD(src + sizeof(T) * i);        \
    }
static inline uint8_t ld8(const uint8_t *p) { return *p; }
LOAD_KERNEL(load_u8, uint8_t, ld8)
LOAD_KERNEL(load_i16, int16_t, ld16)
LOAD_KERNEL(load_i32, int32_t, ld32)
LOAD_KERNEL(load_i64, int64_t, ld64)

typedef void (*load_fn)(const uint8_t *src, const uint64_t *idx, uint32_t n, uint64_t *vals);

static load_fn load_of(vec_phys p) {
    return p == PHYS_BOOL ? load_u8 : p == PHYS_I16 ? load_i16 : p == PHYS_I32 ? load_i32 : load_i64;
}

/* Gathering kernels: out[i] = the dictionary entry of code codes[i] (codes checked), straight
** into the output vector's type, from 32-bit codes (a dictionary holds at most SEGMENT_DICT_MAX
** entries). A plain loop, one load of a code, one of its entry and a store per row, which -O2
** leaves scalar (its trip count is not known). Measured with bench_kernels --quick (AMD EPYC,
** AVX-512, shared machine; a whole dictionary decode of 7-bit INTEGER codes / 10-bit BIGINT codes,
** G rows/s): this loop 2.25 / 2.05; the same loop in blocks of 64, which GCC vectorizes by
** inserting the loaded entries into vector lanes one by one, 2.33 / 1.76; AVX2's gather
** instruction (vpgatherdd, vpgatherdq) 1.90 / 1.79. So no SIMD gather. */
#define GATHER_KERNEL(NAME, T, LD)                                                                           \
    static void NAME(const uint8_t *restrict dict, const uint32_t *restrict codes, uint32_t n,               \
                     void *restrict dst) {                                                                   \
        T *out = dst;                                                                                        \
        for (size_t i = 0; i < n; i++) out[i] = (T)LD(dict + sizeof(T) * codes[i]);                          \
    }
GATHER_KERNEL(gather_u8, uint8_t, ld8)
GATHER_KERNEL(gather_i16, int16_t, ld16)
GATHER_KERNEL(gather_i32, int32_t, ld32)
GATHER_KERNEL(gather_i64, int64_t, ld64)

typedef void (*gather_fn)(const uint8_t *dict, const uint32_t *codes, uint32_t n, void *dst);

static gather_fn gather_of(vec_phys p) {
    return p == PHYS_BOOL ? gather_u8 : p == PHYS_I16 ? gather_i16 : p == PHYS_I32 ? gather_i32 : gather_i64;
}

/* copy_plain copies n plain integers of phys into dst; returns 0 for a BOOL that is not 0 or 1. */
static int copy_plain(vec_phys phys, const uint8_t *src, uint32_t n, void *dst) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    uint64_t one;
    for (uint32_t i = 0; i < n; i++) {
        load_of(phys)(src + (size_t)i * int_bytes(phys), NULL, 1, &one);
        store_of(phys)(&one, 0, 1, (uint8_t *)dst + (size_t)i * int_bytes(phys), 0);
    }
#else
    memcpy(dst, src, (size_t)n * int_bytes(phys));
#endif
    if (phys != PHYS_BOOL) return 1;
    uint8_t bad = 0;
    for (uint32_t i = 0; i < n; i++) bad |= src[i] & 0xfe;
    return bad == 0;
}

/* load_one is one value of load_of(p). */
static uint64_t load_one(vec_phys p, const uint8_t *src) {
    uint64_t v;
    load_of(p)(src, NULL, 1, &v);
    return v;
}

/* check_codes says whether every code is below the dictionary's size (an OR of comparisons in
** blocks, which vectorizes; a running maximum would be a serial chain). */
static int check_codes(const uint64_t *codes, uint32_t n, uint32_t count) {
    uint64_t bad = 0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const uint64_t *c = codes + i;
        for (size_t j = 0; j < 64; j++) bad |= c[j] >= count;
    }
    for (; i < n; i++) bad |= codes[i] >= count;
    return bad == 0;
}

/* check_codes32 is check_codes over 32-bit codes. */
static int check_codes32(const uint32_t *codes, uint32_t n, uint32_t count) {
    uint32_t bad = 0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const uint32_t *c = codes + i;
        for (size_t j = 0; j < 64; j++) bad |= c[j] >= count;
    }
    for (; i < n; i++) bad |= codes[i] >= count;
    return bad == 0;
}

/* expand_runs writes run j's value vals[j] lens[j] + 1 times into out (n rows); returns 0 when
** the runs do not cover exactly n rows. */
static int expand_runs(const uint64_t *lens, const uint64_t *vals, uint32_t nruns, uint32_t n,
                       uint64_t *out) {
    uint32_t pos = 0;
    for (uint32_t j = 0; j < nruns; j++) {
        if (lens[j] >= n - pos) return 0;
        uint32_t len = (uint32_t)lens[j] + 1;
        for (uint32_t i = 0; i < len; i++) out[pos + i] = vals[j];
        pos += len;
    }
    return pos == n;
}

/* decode_ints decodes vector b into vals[0..n) as uint64 offsets from *base (0 but for frame of
** reference and rle), and sets *check when the values may lie outside the type's range (the
** store kernels then check them): never for values stored at the type's own width (plain but
** BOOL, dictionary, constant -- whose BOOL entries open checked), for a frame only when it
** reaches past the range, always for deltas. vals has TMP_N room; r->tmp's second and third
** thirds are scratch. */
static int decode_ints(segment_reader *r, const vblock *b, const payload *pl, uint64_t *vals, uint64_t *base,
                       int *check, strata_err *err) {
    uint32_t n = b->n;
    vec_phys phys = (vec_phys)r->phys;
    *base = 0;
    *check = 0;
    switch (r->encoding) {
    case SEG_CONSTANT:
        for (uint32_t i = 0; i < n; i++) vals[i] = 0;
        *base = load_one(phys, r->dict);
        return STRATA_OK;
    case SEG_PLAIN:
        load_of(phys)(pl->fixed, NULL, n, vals);
        *check = phys == PHYS_BOOL;
        return STRATA_OK;
    case SEG_FOR:
        bitpack_unpack(pl->packed, n, pl->w, vals);
        *base = pl->base;
        *check = !frame_fits(phys, pl->base, pl->w);
        return STRATA_OK;
    case SEG_DELTA: {
        bitpack_unpack(pl->packed, n - 1, pl->w, vals + 1);
        uint64_t acc = pl->first, step = pl->min_delta;
        vals[0] = acc;
        for (uint32_t i = 1; i < n; i++) vals[i] = acc += step + vals[i];
        *check = phys != PHYS_I64;
        return STRATA_OK;
    }
    case SEG_DICTIONARY:
        bitpack_unpack(pl->packed, n, pl->w, vals);
        if (!check_codes(vals, n, r->dict_count))
            return CORRUPT("vector %u: dictionary code out of range", b->k);
        load_of(phys)(r->dict, vals, n, vals);
        return STRATA_OK;
    case SEG_RLE: {
        uint64_t *lens = r->tmp + TMP_N, *runs = r->tmp + 2 * TMP_N;
        bitpack_unpack(pl->lens, pl->nruns, pl->lw, lens);
        bitpack_unpack(pl->packed, pl->nruns, pl->w, runs);
        if (!expand_runs(lens, runs, pl->nruns, n, vals))
            return CORRUPT("vector %u: runs do not cover %u rows", b->k, n);
        *base = pl->base;
        *check = !frame_fits(phys, pl->base, pl->w);
        return STRATA_OK;
    }
    default: return CORRUPT("vector %u: encoding %u", b->k, r->encoding);
    }
}

/* unpack_frame writes a frame of reference's n values (base + each w-bit offset) into dst as
** phys's type (I16, I32, I64; the caller knows they fit: frame_fits) straight from the bits
** (bitpack_unpack_T); the last group's values past n go through a buffer, so that dst's rows
** from n on are left alone. */
static void unpack_frame(vec_phys phys, const uint8_t *packed, unsigned w, uint64_t base, uint32_t n, void *dst) {
    uint32_t full = n / BITPACK_GROUP * BITPACK_GROUP;
    uint64_t tail[BITPACK_GROUP];
    for (int last = 0; last <= 1; last++) {
        uint32_t m = last ? n - full : full;
        if (m == 0) continue;
        const uint8_t *in = last ? packed + (size_t)full / BITPACK_GROUP * 8u * w : packed;
        void *o = last ? (void *)tail : dst;
        if (phys == PHYS_I16) bitpack_unpack_i16(in, m, w, base, o);
        else if (phys == PHYS_I32) bitpack_unpack_i32(in, m, w, base, o);
        else bitpack_unpack_i64(in, m, w, base, o);
    }
    if (full < n) memcpy((uint8_t *)dst + (size_t)full * int_bytes(phys), tail, (size_t)(n - full) * int_bytes(phys));
}

/* Expanding kernels: run j's value vals[j] written lens[j] + 1 times into out, rows 0..n-1 in
** turn, in the output vector's type; 0 when the runs do not cover exactly n rows (nothing is
** written at or past row n). A run is written a 256-bit store of its value at a time while the
** stores stay below row n (the last may spill into the next runs' rows, which they overwrite),
** else one row at a time. Measured with bench_kernels --quick (AMD EPYC, shared machine; runs of
** 1..32 INTEGER rows, the whole decode): 7.0 G rows/s, against 2.65 with a scalar store per row
** and 1.36 before (expansion into uint64, then narrowing). */
#define EXPAND_KERNEL(NAME, T, SET1)                                                                         \
    static int NAME(const uint32_t *restrict lens, const T *restrict vals, uint32_t nruns, uint32_t n,       \
                    void *restrict dst) {                                                                    \
        enum { L = 32 / sizeof(T) };                                                                         \
        T *out = dst;                                                                                        \
        uint32_t pos = 0;                                                                                    \
        for (uint32_t j = 0; j < nruns; j++) {                                                               \
            if (lens[j] >= n - pos) return 0;                                                                \
            uint32_t len = lens[j] + 1;                                                                      \
            if (pos + (len + L - 1) / L * L <= n) {                                                          \
                simde__m256i v = SET1(vals[j]);                                                              \
                for (uint32_t i = 0; i < len; i += L)                                                        \
                    simde_mm256_storeu_si256((simde__m256i *)(void *)(out + pos + i), v);                    \
            } else {                                                                                         \
                for (uint32_t i = 0; i < len; i++) out[pos + i] = vals[j];                                   \
            }                                                                                                \
            pos += len;                                                                                      \
        }                                                                                                    \
        return pos == n;                                                                                     \
    }
EXPAND_KERNEL(expand_u8, uint8_t, simde_mm256_set1_epi8)
EXPAND_KERNEL(expand_i16, int16_t, simde_mm256_set1_epi16)
EXPAND_KERNEL(expand_i32, int32_t, simde_mm256_set1_epi32)
EXPAND_KERNEL(expand_i64, int64_t, simde_mm256_set1_epi64x)

static int expand_of(vec_phys p, const uint32_t *lens, const void *vals, uint32_t nruns, uint32_t n, void *dst) {
    switch (p) {
    case PHYS_BOOL: return expand_u8(lens, vals, nruns, n, dst);
    case PHYS_I16: return expand_i16(lens, vals, nruns, n, dst);
    case PHYS_I32: return expand_i32(lens, vals, nruns, n, dst);
    default: return expand_i64(lens, vals, nruns, n, dst);
    }
}

/* decode_int_vector decodes integer vector b into dst (the output vector's data, rows 0..n-1)
** without the uint64 staging array where it can: a frame of reference that fits the type
** unpacked straight into it, dictionary codes unpacked to 32 bits and gathered, runs narrowed
** (and checked) once per run and expanded in the type; the rest through decode_ints and a store
** kernel. The checks are decode_ints' and the store kernels': a value outside the type's range,
** a code past the dictionary, runs that do not cover the vector are STRATA_CORRUPT. */
static int decode_int_vector(segment_reader *r, const vblock *b, const payload *pl, void *dst, strata_err *err) {
    vec_phys phys = (vec_phys)r->phys;
    uint32_t n = b->n;
    int ok = 1;
    switch (r->encoding) {
    case SEG_PLAIN: /* the stored values are the vector's */
        ok = copy_plain(phys, pl->fixed, n, dst);
        break;
    case SEG_FOR:
        if (phys != PHYS_BOOL && frame_fits(phys, pl->base, pl->w)) {
            unpack_frame(phys, pl->packed, pl->w, pl->base, n, dst);
            return STRATA_OK;
        }
        goto staged;
    case SEG_DICTIONARY:
        if (pl->w <= 32) { /* wider codes (never written: SEGMENT_DICT_MAX) are checked at 64 bits */
            uint32_t *codes = (uint32_t *)r->tmp;
            bitpack_unpack32(pl->packed, n, pl->w, codes);
            if (!check_codes32(codes, n, r->dict_count))
                return CORRUPT("vector %u: dictionary code out of range", b->k);
            gather_of(phys)(r->dict, codes, n, dst);
            return STRATA_OK;
        }
        goto staged;
    case SEG_RLE:
        if (pl->lw <= 32) { /* wider lengths (never written) are checked at 64 bits */
            uint32_t *lens = (uint32_t *)(r->tmp + TMP_N);
            uint64_t *runs = r->tmp + 2 * TMP_N;
            void *vals = r->tmp; /* the runs' values in the type */
            bitpack_unpack32(pl->lens, pl->nruns, pl->lw, lens);
            bitpack_unpack(pl->packed, pl->nruns, pl->w, runs);
            int fits = store_of(phys)(runs, pl->base, pl->nruns, vals, !frame_fits(phys, pl->base, pl->w));
            if (!expand_of(phys, lens, vals, pl->nruns, n, dst))
                return CORRUPT("vector %u: runs do not cover %u rows", b->k, n);
            ok = fits;
            break;
        }
        goto staged;
    default:
    staged: {
        uint64_t *vals = r->tmp, base;
        int check, rc = decode_ints(r, b, pl, vals, &base, &check, err);
        if (rc) return rc;
        ok = store_of(phys)(vals, base, n, dst, check);
        break;
    }
    }
    if (!ok) return CORRUPT("vector %u: a value outside type %u's range", b->k, r->type.id);
    return STRATA_OK;
}

/* run_ends_of returns vector b's run ends (exclusive: run j covers rows [ends[j-1], ends[j]))
** as the runs lengths say, a length past the vector's end cut to it; made on first use and kept
** until close, so that point reads search them instead of walking the runs. *nends: how many
** runs start inside the vector. NULL on out of memory. */
static const uint16_t *run_ends_of(segment_reader *r, const vblock *b, const payload *pl, uint32_t *nends) {
    if (r->run_ends == NULL && (r->run_ends = calloc(r->nvectors, sizeof *r->run_ends)) == NULL) return NULL;
    uint16_t *ends = r->run_ends[b->k];
    if (ends == NULL) {
        if ((ends = malloc((pl->nruns + 1) * sizeof *ends)) == NULL) return NULL;
        uint64_t lens[BITPACK_GROUP];
        uint32_t pos = 0, m = 0;
        for (uint32_t g = 0; g < pl->nruns && pos < b->n; g += BITPACK_GROUP) { /* a group of lengths at a time */
            bitpack_unpack(pl->lens + (size_t)g / BITPACK_GROUP * 8u * pl->lw, BITPACK_GROUP, pl->lw, lens);
            for (uint32_t j = 0; j < BITPACK_GROUP && g + j < pl->nruns && pos < b->n; j++) {
                uint64_t len = lens[j] >= b->n - pos ? b->n - pos - 1 : lens[j];
                pos += (uint32_t)len + 1;
                ends[m++] = (uint16_t)pos;
            }
        }
        ends[pl->nruns] = (uint16_t)m; /* the count, after the ends */
        r->run_ends[b->k] = ends;
        r->kept_bytes += (pl->nruns + 1) * sizeof *ends;
    }
    *nends = ends[pl->nruns];
    return ends;
}

/* run_of sets *j to the run holding row i (rle); CORRUPT when the runs end before it. */
static int run_of(segment_reader *r, const vblock *b, const payload *pl, uint32_t i, uint32_t *j,
                  strata_err *err) {
    uint32_t n;
    const uint16_t *ends = run_ends_of(r, b, pl, &n);
    if (ends == NULL) return err_set(err, STRATA_NOMEM, "out of memory (run ends of a segment vector)");
    uint32_t lo = 0, hi = n; /* the first run whose end is past i */
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (ends[mid] > i) hi = mid;
        else lo = mid + 1;
    }
    if (lo == n) return CORRUPT("vector %u: runs do not cover row %u", b->k, i);
    *j = lo;
    return STRATA_OK;
}

/* int_at returns row i's value (as uint64) of an integer vector, reading only what it needs. */
static int int_at(segment_reader *r, const vblock *b, const payload *pl, uint32_t i, uint64_t *out,
                  strata_err *err) {
    vec_phys phys = (vec_phys)r->phys;
    switch (r->encoding) {
    case SEG_CONSTANT: *out = load_one(phys, r->dict); return STRATA_OK;
    case SEG_PLAIN: *out = load_one(phys, pl->fixed + (size_t)i * int_bytes(phys)); return STRATA_OK;
    case SEG_FOR: *out = pl->base + bitpack_get(pl->packed, i, pl->w); return STRATA_OK;
    case SEG_DELTA:
        *out = pl->first + i * pl->min_delta + bitpack_sum(pl->packed, i, pl->w);
        return STRATA_OK;
    case SEG_DICTIONARY: {
        uint64_t code = bitpack_get(pl->packed, i, pl->w);
        if (code >= r->dict_count)
            return CORRUPT("vector %u: dictionary code %llu of %u", b->k, (unsigned long long)code,
                           r->dict_count);
        *out = load_one(phys, r->dict + code * int_bytes(phys));
        return STRATA_OK;
    }
    default: break;
    }
    uint32_t j; /* rle */
    int rc = run_of(r, b, pl, i, &j, err);
    if (rc) return rc;
    *out = pl->base + bitpack_get(pl->packed, j, pl->w);
    return STRATA_OK;
}

/* ---- reading: doubles and intervals ------------------------------------------------------- */

/* decode_f64 decodes vector b's IEEE bits into vals[0..n). */
static int decode_f64(segment_reader *r, const vblock *b, const payload *pl, uint64_t *vals,
                      strata_err *err) {
    uint32_t n = b->n;
    switch (r->encoding) {
    case SEG_CONSTANT: {
        uint64_t x = ld64(r->dict);
        for (uint32_t i = 0; i < n; i++) vals[i] = x;
        return STRATA_OK;
    }
    case SEG_PLAIN: load_i64(pl->fixed, NULL, n, vals); return STRATA_OK;
    case SEG_DICTIONARY:
        bitpack_unpack(pl->packed, n, pl->w, vals);
        if (!check_codes(vals, n, r->dict_count))
            return CORRUPT("vector %u: dictionary code out of range", b->k);
        load_i64(r->dict, vals, n, vals);
        return STRATA_OK;
    case SEG_RLE: {
        uint64_t *lens = r->tmp + TMP_N, *runs = r->tmp + 2 * TMP_N;
        bitpack_unpack(pl->lens, pl->nruns, pl->lw, lens);
        load_i64(pl->fixed, NULL, pl->nruns, runs);
        if (!expand_runs(lens, runs, pl->nruns, n, vals))
            return CORRUPT("vector %u: runs do not cover %u rows", b->k, n);
        return STRATA_OK;
    }
    default: return CORRUPT("vector %u: encoding %u", b->k, r->encoding);
    }
}

/* decode_f64_vector decodes DOUBLE vector b into dst (rows 0..n-1) as decode_int_vector does
** integers: dictionary codes unpacked to 32 bits and gathered, runs expanded with vector stores,
** straight into the vector; plain and constant through decode_f64. */
static int decode_f64_vector(segment_reader *r, const vblock *b, const payload *pl, void *dst, strata_err *err) {
    uint32_t n = b->n;
    if (r->encoding == SEG_DICTIONARY && pl->w <= 32) {
        uint32_t *codes = (uint32_t *)r->tmp;
        bitpack_unpack32(pl->packed, n, pl->w, codes);
        if (!check_codes32(codes, n, r->dict_count)) return CORRUPT("vector %u: dictionary code out of range", b->k);
        gather_i64(r->dict, codes, n, dst);
        return STRATA_OK;
    }
    if (r->encoding == SEG_RLE && pl->lw <= 32) {
        uint32_t *lens = (uint32_t *)(r->tmp + TMP_N);
        uint64_t *runs = r->tmp + 2 * TMP_N;
        bitpack_unpack32(pl->lens, pl->nruns, pl->lw, lens);
        load_i64(pl->fixed, NULL, pl->nruns, runs);
        if (!expand_i64(lens, (const int64_t *)runs, pl->nruns, n, dst))
            return CORRUPT("vector %u: runs do not cover %u rows", b->k, n);
        return STRATA_OK;
    }
    int rc = decode_f64(r, b, pl, r->tmp, err);
    if (rc == STRATA_OK) memcpy(dst, r->tmp, (size_t)n * 8);
    return rc;
}

static int f64_at(segment_reader *r, const vblock *b, const payload *pl, uint32_t i, uint64_t *out,
                  strata_err *err) {
    switch (r->encoding) {
    case SEG_CONSTANT: *out = ld64(r->dict); return STRATA_OK;
    case SEG_PLAIN: *out = ld64(pl->fixed + 8 * (size_t)i); return STRATA_OK;
    case SEG_DICTIONARY: {
        uint64_t code = bitpack_get(pl->packed, i, pl->w);
        if (code >= r->dict_count)
            return CORRUPT("vector %u: dictionary code %llu of %u", b->k, (unsigned long long)code,
                           r->dict_count);
        *out = ld64(r->dict + 8 * code);
        return STRATA_OK;
    }
    default: {
        uint32_t j;
        int rc = run_of(r, b, pl, i, &j, err);
        if (rc) return rc;
        *out = ld64(pl->fixed + 8 * (size_t)j);
        return STRATA_OK;
    }
    }
}

static sql_interval load_iv(const uint8_t *p) {
    sql_interval iv;
    iv.months = (int32_t)ld32(p);
    iv.days = (int32_t)ld32(p + 4);
    iv.micros = (int64_t)ld64(p + 8);
    return iv;
}

/* ---- reading: strings --------------------------------------------------------------------- */

/* string_in returns string j of an offsets + bytes list, checking its offsets. */
static int string_in(const uint8_t *offs, const uint8_t *bytes, uint32_t bytes_len, uint32_t j,
                     const uint8_t **p, uint32_t *len) {
    uint32_t lo = ld32(offs + 4 * (size_t)j), hi = ld32(offs + 4 * (size_t)j + 4);
    if (lo > hi || hi > bytes_len) return 0;
    *p = bytes ? bytes + lo : (const uint8_t *)"";
    *len = hi - lo;
    return 1;
}

/* dict_string returns dictionary entry code (checked at open). */
static void dict_string(const segment_reader *r, uint32_t code, const uint8_t **p, uint32_t *len) {
    const uint8_t *offs = r->dict;
    uint32_t lo = ld32(offs + 4 * (size_t)code), hi = ld32(offs + 4 * (size_t)code + 4);
    *p = r->dict + 4 * ((size_t)r->dict_count + 1) + lo;
    *len = hi - lo;
}

/* fsst_room makes r->fbuf hold at least n bytes. */
static int fsst_room(segment_reader *r, size_t n, strata_err *err) {
    if (n <= r->fbuf_cap) return STRATA_OK;
    uint8_t *p = realloc(r->fbuf, n);
    if (p == NULL) return err_set(err, STRATA_NOMEM, "out of memory (fsst strings of %zu bytes)", n);
    r->fbuf = p;
    r->fbuf_cap = n;
    return STRATA_OK;
}

/* fsst_decode decodes the m compressed bytes at offset off of b's strings to r->fbuf + at (room
** for FSST_DECODED_MAX(m) there) and sets *len to their length; off and m are checked against the
** block's bytes first (without overflowing: a crafted length may be anything up to 2^64 - 1). */
static int fsst_decode(segment_reader *r, const vblock *b, const payload *pl, uint64_t off, uint64_t m,
                       size_t at, uint32_t i, uint32_t *len, strata_err *err) {
    if (m > pl->bytes_len || off > pl->bytes_len - m)
        return CORRUPT("vector %u: fsst string %u runs past its bytes", b->k, i);
    int64_t n = fsst_decompress(r->fsst, pl->bytes + off, (size_t)m, r->fbuf + at);
    if (n < 0) return CORRUPT("vector %u: fsst string %u does not decode", b->k, i);
    *len = (uint32_t)n;
    return STRATA_OK;
}

/* fsst_resolve decodes every string of vector b into r->fbuf and points sptr/slen at them. */
static int fsst_resolve(segment_reader *r, const vblock *b, const payload *pl, strata_err *err) {
    uint32_t n = b->n;
    uint64_t *lens = r->tmp;
    int rc = fsst_room(r, FSST_DECODED_MAX(pl->bytes_len), err);
    if (rc) return rc;
    bitpack_unpack(pl->packed, n, pl->w, lens);
    uint64_t off = 0;
    size_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i % BITPACK_GROUP == 0 && ld32(pl->offs + 4 * (i / BITPACK_GROUP)) != off)
            return CORRUPT("vector %u: fsst group %u starts at %u, not %llu", b->k, i / BITPACK_GROUP,
                           ld32(pl->offs + 4 * (i / BITPACK_GROUP)), (unsigned long long)off);
        if ((rc = fsst_decode(r, b, pl, off, lens[i], at, i, &r->slen[i], err))) return rc;
        r->sptr[i] = r->fbuf + at;
        off += lens[i];
        at += r->slen[i];
    }
    if (off != pl->bytes_len) return CORRUPT("vector %u: fsst strings end before their bytes", b->k);
    return STRATA_OK;
}

/* fsst_at decodes row i of a point read's block (r->point) alone: its group's start plus the
** lengths before it. The starts of the group's 64 strings are kept, so the next rows of the group
** (an index's matches, one after another) skip unpacking and summing them. */
static int fsst_at(segment_reader *r, const vblock *b, const payload *pl, uint32_t i, const uint8_t **p,
                   uint32_t *len, strata_err *err) {
    struct segment_point *pt = r->point;
    uint32_t g = i / BITPACK_GROUP, j = i % BITPACK_GROUP;
    if (pt->fsst_g != g) {
        uint64_t lens[BITPACK_GROUP];
        uint32_t m = b->n - g * BITPACK_GROUP < BITPACK_GROUP ? b->n - g * BITPACK_GROUP : BITPACK_GROUP;
        bitpack_unpack(pl->packed + (size_t)g * 8u * pl->w, BITPACK_GROUP, pl->w, lens);
        pt->fsst_g = UINT32_MAX; /* until filled */
        pt->fsst_start[0] = ld32(pl->offs + 4 * (size_t)g);
        for (uint32_t q = 0; q < m; q++) { /* each within the bytes: no overflow */
            if (lens[q] > pl->bytes_len)
                return CORRUPT("vector %u: fsst string %u is too long", b->k, g * BITPACK_GROUP + q);
            pt->fsst_start[q + 1] = pt->fsst_start[q] + lens[q];
        }
        pt->fsst_g = g;
    }
    uint64_t off = pt->fsst_start[j], m = pt->fsst_start[j + 1] - off;
    int rc = fsst_room(r, FSST_DECODED_MAX(m), err);
    if (rc == STRATA_OK) rc = fsst_decode(r, b, pl, off, m, 0, i, len, err);
    *p = r->fbuf;
    return rc;
}

/* resolve_strings sets sptr[i], slen[i] to row i's bytes (valid rows; NULL rows may hold
** anything) without copying. */
static int resolve_strings(segment_reader *r, const vblock *b, const payload *pl, strata_err *err) {
    uint32_t n = b->n;
    const uint8_t **sptr = r->sptr;
    uint32_t *slen = r->slen;
    switch (r->encoding) {
    case SEG_CONSTANT: {
        const uint8_t *p = NULL;
        uint32_t len = 0;
        if (r->dict_count) dict_string(r, 0, &p, &len);
        for (uint32_t i = 0; i < n; i++) sptr[i] = p, slen[i] = len;
        return STRATA_OK;
    }
    case SEG_PLAIN:
        for (uint32_t i = 0; i < n; i++)
            if (!string_in(pl->offs, pl->bytes, pl->bytes_len, i, &sptr[i], &slen[i]))
                return CORRUPT("vector %u: string %u has bad offsets", b->k, i);
        return STRATA_OK;
    case SEG_DICTIONARY: {
        uint64_t *codes = r->tmp;
        bitpack_unpack(pl->packed, n, pl->w, codes);
        if (!check_codes(codes, n, r->dict_count))
            return CORRUPT("vector %u: dictionary code out of range", b->k);
        for (uint32_t i = 0; i < n; i++) dict_string(r, (uint32_t)codes[i], &sptr[i], &slen[i]);
        return STRATA_OK;
    }
    case SEG_RLE: {
        uint64_t *lens = r->tmp;
        bitpack_unpack(pl->lens, pl->nruns, pl->lw, lens);
        uint32_t pos = 0;
        for (uint32_t j = 0; j < pl->nruns; j++) {
            const uint8_t *p;
            uint32_t len;
            if (!string_in(pl->offs, pl->bytes, pl->bytes_len, j, &p, &len) || lens[j] >= n - pos)
                return CORRUPT("vector %u: run %u is bad", b->k, j);
            for (uint32_t i = 0; i <= lens[j]; i++) sptr[pos + i] = p, slen[pos + i] = len;
            pos += (uint32_t)lens[j] + 1;
        }
        if (pos != n) return CORRUPT("vector %u: runs do not cover %u rows", b->k, n);
        return STRATA_OK;
    }
    case SEG_FSST: return fsst_resolve(r, b, pl, err);
    default: return CORRUPT("vector %u: encoding %u", b->k, r->encoding);
    }
}

static int string_at(segment_reader *r, const vblock *b, const payload *pl, uint32_t i,
                     const uint8_t **p, uint32_t *len, strata_err *err) {
    switch (r->encoding) {
    case SEG_CONSTANT: dict_string(r, 0, p, len); return STRATA_OK;
    case SEG_PLAIN:
        if (!string_in(pl->offs, pl->bytes, pl->bytes_len, i, p, len))
            return CORRUPT("vector %u: string %u has bad offsets", b->k, i);
        return STRATA_OK;
    case SEG_DICTIONARY: {
        uint64_t code = bitpack_get(pl->packed, i, pl->w);
        if (code >= r->dict_count)
            return CORRUPT("vector %u: dictionary code %llu of %u", b->k, (unsigned long long)code,
                           r->dict_count);
        dict_string(r, (uint32_t)code, p, len);
        return STRATA_OK;
    }
    case SEG_FSST: return fsst_at(r, b, pl, i, p, len, err);
    default: {
        uint32_t j;
        int rc = run_of(r, b, pl, i, &j, err);
        if (rc) return rc;
        if (!string_in(pl->offs, pl->bytes, pl->bytes_len, j, p, len))
            return CORRUPT("vector %u: run of row %u is bad", b->k, i);
        return STRATA_OK;
    }
    }
}

/* ---- reading: into vectors ---------------------------------------------------------------- */

static int check_out(const segment_reader *r, const vector *out, strata_err *err) {
    if (out->phys != r->phys || out->data != out->own_data || out->kind != VEC_FLAT)
        return err_set(err, STRATA_MISUSE,
                       "segment output must be a writable flat vector of physical type %u", r->phys);
    return STRATA_OK;
}

/* set_validity writes rows 0..n-1's validity into out (other rows unchanged) and zeroes the
** values of NULL rows. */
static void set_validity(vector *out, const vblock *b) {
    uint32_t n = b->n;
    if (b->mode == 0) {
        if (out->validity)
            for (uint32_t i = 0; i < n; i++) out->validity[i >> 6] |= UINT64_C(1) << (i & 63);
        return;
    }
    if (out->validity == NULL) {
        out->validity = out->own_validity;
        memset(out->validity, 0xff, VALIDITY_WORDS * sizeof(uint64_t));
    }
    for (uint32_t w = 0; w < (n + 63) / 64; w++) {
        uint64_t bits = 0;
        if (b->mode == 2)
            for (uint32_t j = 0; j < 8 && 8 * (w * 8 + j) < n; j++)
                bits |= (uint64_t)b->bitmap[w * 8 + j] << (8 * j);
        uint32_t in_word = n - 64 * w < 64 ? n - 64 * w : 64;
        uint64_t mask = in_word == 64 ? ~UINT64_C(0) : (UINT64_C(1) << in_word) - 1;
        out->validity[w] = (out->validity[w] & ~mask) | (bits & mask);
    }
    uint8_t *data = out->data;
    for (uint32_t i = 0; i < n; i++)
        if (!(out->validity[i >> 6] >> (i & 63) & 1)) memset(data + (size_t)i * out->width, 0, out->width);
}

int segment_decode_vector(segment_reader *r, uint32_t k, vector *out, strata_err *err) {
    if (k >= r->nvectors)
        return err_set(err, STRATA_MISUSE, "vector %u of a segment of %u vectors", k, r->nvectors);
    int rc = check_out(r, out, err);
    if (rc) return rc;
    if ((rc = ensure_tmp(r, err))) return rc;
    vblock b;
    payload pl;
    if ((rc = open_block(r, k, &b, err)) || (rc = parse_payload(r, &b, &pl, err))) return rc;
    if (b.mode != 1) {
        switch (family((vec_phys)r->phys)) {
        case FAM_INT:
            if ((rc = decode_int_vector(r, &b, &pl, out->data, err))) return rc;
            break;
        case FAM_F64:
            if ((rc = decode_f64_vector(r, &b, &pl, out->data, err))) return rc;
            break;
        case FAM_IV: {
            sql_interval *o = out->data;
            if (r->encoding == SEG_CONSTANT) {
                sql_interval iv = load_iv(r->dict);
                for (uint32_t i = 0; i < b.n; i++) o[i] = iv;
            } else {
                for (uint32_t i = 0; i < b.n; i++) o[i] = load_iv(pl.fixed + 16 * (size_t)i);
            }
            break;
        }
        default: {
            if ((rc = resolve_strings(r, &b, &pl, err))) return rc;
            sstr *o = out->data;
            for (uint32_t i = 0; i < b.n; i++) {
                if (!row_valid(&b, i)) {
                    memset(&o[i], 0, sizeof o[i]);
                } else if (i > 0 && r->sptr[i] == r->sptr[i - 1] && r->slen[i] == r->slen[i - 1] &&
                           row_valid(&b, i - 1)) {
                    o[i] = o[i - 1]; /* a run or a repeated code: share the copy */
                } else if ((rc = vec_set_str(out, i, r->sptr[i], r->slen[i], err))) {
                    return rc;
                }
            }
            break;
        }
        }
    }
    set_validity(out, &b);
    return STRATA_OK;
}

/* dict_values makes r->dvals, the dictionary as sstr values (strings longer than SSTR_INLINE point
** into the dictionary's bytes) with a NULL after them, and its dict_id. */
static int dict_values(segment_reader *r, strata_err *err) {
    static _Atomic uint64_t next_dict_id = 1;
    uint32_t n = r->dict_count + 1, words = (n + 63) / 64;
    r->dvals = malloc((size_t)n * sizeof *r->dvals);
    r->dvalid = malloc((size_t)words * sizeof *r->dvalid);
    if (!r->dvals || !r->dvalid) {
        free(r->dvals), free(r->dvalid);
        r->dvals = NULL, r->dvalid = NULL;
        return err_set(err, STRATA_NOMEM, "out of memory (segment dictionary)");
    }
    for (uint32_t c = 0; c < r->dict_count; c++) {
        const uint8_t *p;
        uint32_t len;
        dict_string(r, c, &p, &len);
        r->dvals[c] = sstr_make(p, len);
    }
    memset(&r->dvals[r->dict_count], 0, sizeof *r->dvals);
    memset(r->dvalid, 0xff, (size_t)words * sizeof *r->dvalid);
    r->dvalid[r->dict_count >> 6] &= ~(UINT64_C(1) << (r->dict_count & 63));
    r->dict_id = next_dict_id++;
    return STRATA_OK;
}

int segment_decode_dict(segment_reader *r, uint32_t k, const sel_t *keep, uint32_t n, vector *out, strata_err *err) {
    if (k >= r->nvectors || !segment_is_string_dict(r) || out->phys != PHYS_STR || out->kind != VEC_FLAT)
        return err_set(err, STRATA_MISUSE, "segment_decode_dict: vector %u of a segment of %u vectors, encoding %u", k,
                       r->nvectors, r->encoding);
    int rc;
    if ((rc = ensure_tmp(r, err)) || (!r->dvals && (rc = dict_values(r, err)))) return rc;
    vblock b;
    payload pl;
    if ((rc = open_block(r, k, &b, err)) || (rc = parse_payload(r, &b, &pl, err))) return rc;
    if (!keep) n = b.n;
    uint64_t *codes = r->tmp;
    sel_t *sel = out->own_sel;
    if (b.mode == 1) { /* every row NULL */
        for (uint32_t i = 0; i < n; i++) sel[i] = r->dict_count;
    } else {
        bitpack_unpack(pl.packed, b.n, pl.w, codes);
        if (!check_codes(codes, b.n, r->dict_count)) return CORRUPT("vector %u: dictionary code out of range", k);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t row = keep ? keep[i] : i;
            sel[i] = row_valid(&b, row) ? (sel_t)codes[row] : r->dict_count;
        }
    }
    out->kind = VEC_DICTIONARY;
    out->data = r->dvals;
    out->sel = sel;
    out->validity = b.mode == 0 ? NULL : r->dvalid;
    out->dict_id = r->dict_id;
    out->dict_size = r->dict_count + 1;
    return STRATA_OK;
}

/* point_block makes r->point hold vector k's block, parsed. */
static int point_block(segment_reader *r, uint32_t k, strata_err *err) {
    if (r->point == NULL && (r->point = calloc(1, sizeof *r->point)) == NULL)
        return err_set(err, STRATA_NOMEM, "out of memory (segment point read)");
    struct segment_point *pt = r->point;
    if (pt->ok && pt->b.k == k) return STRATA_OK;
    pt->ok = 0;
    pt->fsst_g = UINT32_MAX;
    int rc = open_block(r, k, &pt->b, err);
    if (rc == STRATA_OK && (rc = parse_payload(r, &pt->b, &pt->pl, err)) == STRATA_OK) pt->ok = 1;
    return rc;
}

int segment_prepare(segment_reader *r, uint64_t row, strata_err *err) {
    if (row >= r->rows) return STRATA_OK; /* segment_get says so */
    uint32_t k = (uint32_t)(row / VECTOR_SIZE), i = (uint32_t)(row % VECTOR_SIZE), g = i / BITPACK_GROUP;
    int rc = point_block(r, k, err);
    if (rc) return rc;
    const vblock *b = &r->point->b;
    const payload *pl = &r->point->pl;
    if (b->mode == 2) __builtin_prefetch(b->bitmap + i / 8);
    switch (r->encoding) {
    case SEG_FOR:
    case SEG_DICTIONARY:
        if (pl->packed) __builtin_prefetch(pl->packed + (size_t)i * pl->w / 8);
        break;
    case SEG_PLAIN:
        if (pl->fixed) __builtin_prefetch(pl->fixed + (size_t)i * fixed_bytes((vec_phys)r->phys));
        else if (pl->offs) __builtin_prefetch(pl->offs + 4 * (size_t)i);
        break;
    case SEG_FSST:
        if (pl->packed) __builtin_prefetch(pl->packed + (size_t)g * 8u * pl->w);
        if (pl->offs) __builtin_prefetch(pl->offs + 4 * (size_t)g);
        break;
    default: break;
    }
    return STRATA_OK;
}

int segment_get(segment_reader *r, uint64_t row, vector *out, uint32_t out_row, strata_err *err) {
    if (row >= r->rows || out_row >= VECTOR_SIZE)
        return err_set(err, STRATA_MISUSE, "row %llu of a segment of %u rows, into row %u",
                       (unsigned long long)row, r->rows, out_row);
    int rc = check_out(r, out, err);
    if (rc) return rc;
    uint32_t k = (uint32_t)(row / VECTOR_SIZE), i = (uint32_t)(row % VECTOR_SIZE);
    if ((rc = point_block(r, k, err))) return rc;
    struct segment_point *pt = r->point;
    const vblock b = pt->b;
    const payload pl = pt->pl;
    if (!row_valid(&b, i)) {
        vec_set_null(out, out_row, 1);
        return STRATA_OK;
    }
    vec_phys phys = (vec_phys)r->phys;
    switch (family(phys)) {
    case FAM_INT: {
        uint64_t v = 0;
        if ((rc = int_at(r, &b, &pl, i, &v, err))) return rc;
        uint8_t tmp[8];
        if (!store_of(phys)(&v, 0, 1, tmp, 1))
            return CORRUPT("vector %u: a value outside type %u's range", k, r->type.id);
        memcpy((uint8_t *)out->data + (size_t)out_row * out->width, tmp, out->width);
        break;
    }
    case FAM_F64: {
        uint64_t v = 0;
        if ((rc = f64_at(r, &b, &pl, i, &v, err))) return rc;
        VEC_DATA(out, double)[out_row] = bits_f64(v);
        break;
    }
    case FAM_IV:
        VEC_DATA(out, sql_interval)
        [out_row] = load_iv(r->encoding == SEG_CONSTANT ? r->dict : pl.fixed + 16 * (size_t)i);
        break;
    default: {
        const uint8_t *p = NULL;
        uint32_t len = 0;
        if ((rc = string_at(r, &b, &pl, i, &p, &len, err))) return rc;
        if ((rc = vec_set_str(out, out_row, p, len, err))) return rc;
        break;
    }
    }
    vec_set_null(out, out_row, 0);
    return STRATA_OK;
}

int segment_get_rows(segment_reader *r, uint32_t k, const sel_t *rows, uint32_t n, vector *out, strata_err *err) {
    if (k >= r->nvectors || n > VECTOR_SIZE)
        return err_set(err, STRATA_MISUSE, "rows of vector %u of a segment of %u vectors", k, r->nvectors);
    int rc = check_out(r, out, err);
    if (rc || (rc = point_block(r, k, err))) return rc;
    const vblock *b = &r->point->b;
    const payload *pl = &r->point->pl;
    vec_phys phys = (vec_phys)r->phys;
    bool ints = phys == PHYS_I16 || phys == PHYS_I32 || phys == PHYS_I64;
    bool dict = r->encoding == SEG_DICTIONARY;
    /* no NULL, and bit-packed values or codes: each row's bits straight into its slot */
    if (b->mode == 0 && ((ints && (dict || (r->encoding == SEG_FOR && frame_fits(phys, pl->base, pl->w)))) ||
                         (phys == PHYS_F64 && dict))) {
        unsigned bytes = phys == PHYS_F64 ? 8 : int_bytes(phys);
        for (uint32_t i = 0; i < n; i++) {
            if (rows[i] >= b->n) return err_set(err, STRATA_MISUSE, "row %u of a vector of %u", rows[i], b->n);
            uint64_t v = bitpack_get(pl->packed, rows[i], pl->w);
            if (dict) {
                if (v >= r->dict_count)
                    return CORRUPT("vector %u: dictionary code %llu of %u", k, (unsigned long long)v, r->dict_count);
                v = phys == PHYS_F64 ? ld64(r->dict + 8 * v) : (uint64_t)load_one(phys, r->dict + v * bytes);
            } else {
                v += pl->base;
            }
            switch (phys) {
            case PHYS_I16: VEC_DATA(out, int16_t)[i] = (int16_t)v; break;
            case PHYS_I32: VEC_DATA(out, int32_t)[i] = (int32_t)v; break;
            default: VEC_DATA(out, uint64_t)[i] = v; break; /* BIGINT, DOUBLE's bits */
            }
        }
        return STRATA_OK;
    }
    /* no NULL, deltas: a row's value sums the deltas before it, so for more than a few rows the
    ** vector is decoded once (a running sum) and the rows picked from it */
    if (b->mode == 0 && ints && r->encoding == SEG_DELTA && n >= 4) {
        int64_t all[VECTOR_SIZE];
        if ((rc = ensure_tmp(r, err)) || (rc = decode_int_vector(r, b, pl, all, err))) return rc;
        unsigned bytes = int_bytes(phys);
        for (uint32_t i = 0; i < n; i++) {
            if (rows[i] >= b->n) return err_set(err, STRATA_MISUSE, "row %u of a vector of %u", rows[i], b->n);
            memcpy((uint8_t *)out->data + (size_t)i * bytes, (const uint8_t *)all + (size_t)rows[i] * bytes, bytes);
        }
        return STRATA_OK;
    }
    for (uint32_t i = 0; i < n && rc == STRATA_OK; i++) rc = segment_get(r, (uint64_t)k * VECTOR_SIZE + rows[i], out, i, err);
    return rc;
}

void segment_prefetch(const segment_reader *r, uint64_t row, int step) {
    if (row >= r->rows || r->nblocks == 0) return;
    uint32_t k = (uint32_t)(row / VECTOR_SIZE);
    if (k >= r->nblocks || (r->point && r->point->ok && r->point->b.k == k)) return;
    const uint8_t *e = r->dir + 12 * (size_t)k;
    if (step == 0) {
        __builtin_prefetch(e);
        return;
    }
    uint32_t off = ld32(e), stored = ld32(e + 4), raw = ld32(e + 8);
    if (stored != raw) { /* zstd: its inflated copy, when kept */
        if (r->kept && r->kept[k]) __builtin_prefetch(r->kept[k]);
    } else if (off < r->len) {
        __builtin_prefetch(r->buf + off);
    }
}

/* ---- zone maps and description ------------------------------------------------------------ */

int segment_zone(const segment_reader *r, int k, seg_zone *z) {
    if (k < -1 || k >= (int)r->nvectors) return STRATA_MISUSE;
    memset(z, 0, sizeof *z);
    /* validated at open */
    cursor c = {r->buf + r->zone_off[k + 1], r->buf + r->len, 0};
    z->rows = rows_of(r, k);
    z->null_count = get32(&c);
    uint8_t flags = get8(&c);
    z->has_minmax = flags & 1;
    z->min_truncated = (flags >> 1) & 1;
    z->max_truncated = (flags >> 2) & 1;
    if (!z->has_minmax) return STRATA_OK;
    if (r->phys == PHYS_STR) {
        z->min_len = get8(&c);
        memcpy(z->min_s, take(&c, z->min_len), z->min_len);
        z->max_len = get8(&c);
        memcpy(z->max_s, take(&c, z->max_len), z->max_len);
    } else if (r->phys == PHYS_F64) {
        z->min_d = bits_f64(get64(&c));
        z->max_d = bits_f64(get64(&c));
    } else {
        z->min_i = (int64_t)get64(&c);
        z->max_i = (int64_t)get64(&c);
    }
    return STRATA_OK;
}

void segment_describe(const segment_reader *r, seg_info *info) {
    memset(info, 0, sizeof *info);
    info->encoding_id = r->encoding;
    info->rows = r->rows;
    info->nvectors = r->nvectors;
    info->null_count = r->null_count;
    info->compressed_bytes = r->len;
    info->uncompressed_bytes = (uint64_t)r->rows * vec_phys_width((vec_phys)r->phys) + r->str_bytes;
    for (uint32_t k = 0; k < r->nblocks; k++) {
        const uint8_t *e = r->dir + 12 * (size_t)k;
        info->zstd_blocks += ld32(e + 4) < ld32(e + 8);
    }
    if (r->dict_copy) info->zstd_blocks++;
    info->encoding = (r->flags & 1 ? enc_names_zstd : enc_names)[r->encoding];
    segment_zone(r, -1, &info->zone);
}

/* ---- filtering on the encoded data -------------------------------------------------------- */

/* cmp_result maps a three-way comparison to the outcome of op. */
static inline int cmp_result(seg_cmp op, int c) {
    switch (op) {
    case SEG_EQ: return c == 0;
    case SEG_NE: return c != 0;
    case SEG_LT: return c < 0;
    case SEG_LE: return c <= 0;
    case SEG_GT: return c > 0;
    default: return c >= 0;
    }
}

/* kern_ops maps a condition's operator to vector/kernel.h's. */
static const kern_cmp kern_ops[] = {[SEG_EQ] = KERN_EQ, [SEG_NE] = KERN_NE, [SEG_LT] = KERN_LT,
                                    [SEG_LE] = KERN_LE, [SEG_GT] = KERN_GT, [SEG_GE] = KERN_GE};

/* mask_cmp sets bit i of mask (rows 0..n-1, bits past n zero) when staged value vals[i], read as
** int64, compares with c by op: vector/kernel.h's comparison. */
static void mask_cmp(const uint64_t *vals, uint32_t n, seg_cmp op, int64_t c, uint64_t *mask) {
    kern_cmp_i64(kern_ops[op], (const int64_t *)vals, NULL, n, c, mask);
}

/* MASK_ROWS sets mask (rows 0..n-1) to BIT, an expression of row i that is 0 or 1, a word at a
** time in a register (an OR into memory per row would wait on the previous row's store). */
#define MASK_ROWS(mask, n, BIT)                                                                    \
    for (uint32_t w_ = 0; w_ < KERN_WORDS(n); w_++) {                                              \
        uint64_t m_ = 0;                                                                           \
        uint32_t end_ = (w_ + 1) * 64 < (n) ? (w_ + 1) * 64 : (n);                                 \
        for (uint32_t i = w_ * 64; i < end_; i++) m_ |= (uint64_t)(BIT) << (i & 63);               \
        (mask)[w_] = m_;                                                                           \
    }

/* mask_all sets the bits of rows 0..n-1 (and clears the rest of the last word). */
static void mask_all(uint64_t *mask, uint32_t n) {
    memset(mask, 0xff, n / 64 * sizeof *mask);
    if (n % 64) mask[n / 64] = ((uint64_t)1 << (n % 64)) - 1;
}

/* FOR_NARROW: offsets of a frame of at most this many bits are unpacked into 32-bit lanes and
** compared 8 at a time as int32 (half the unpacking's stores and twice the compare's lanes of
** 64-bit offsets). */
#define FOR_NARROW 31

/* mask_for sets mask to the rows of a frame of reference (offsets unpacked: vals, or as 32-bit
** lanes when w <= FOR_NARROW) that meet op c: compared as offsets from the base, where a constant
** below the base or above every offset decides every row alike. */
static void mask_for(const payload *pl, const uint64_t *vals, uint32_t n, seg_cmp op, int64_t c, uint64_t *mask) {
    memset(mask, 0, KERN_WORDS(n) * sizeof *mask);
    uint64_t cu = (uint64_t)c - pl->base;
    if (c < (int64_t)pl->base) { /* every offset is above c - base */
        if (op == SEG_NE || op == SEG_GT || op == SEG_GE) mask_all(mask, n);
    } else if (pl->w <= FOR_NARROW && cu > INT32_MAX) { /* every offset is below it */
        if (op == SEG_NE || op == SEG_LT || op == SEG_LE) mask_all(mask, n);
    } else if (pl->w <= FOR_NARROW) {
        kern_cmp_i32(kern_ops[op], (const int32_t *)(const void *)vals, NULL, n, (int32_t)cu, mask);
    } else if (pl->w < 64 && cu <= INT64_MAX) {
        mask_cmp(vals, n, op, (int64_t)cu, mask);
    } else {
        MASK_ROWS(mask, n, cmp_result(op, (vals[i] > cu) - (vals[i] < cu)));
    }
}

/* compare_entry compares dictionary entry (or constant) j with c: -1, 0, 1. */
static int compare_entry(const segment_reader *r, uint32_t j, const seg_const *c) {
    switch (family((vec_phys)r->phys)) {
    case FAM_INT: {
        int64_t v = (int64_t)load_one((vec_phys)r->phys, r->dict + (size_t)j * int_bytes((vec_phys)r->phys));
        return v < c->i ? -1 : v > c->i;
    }
    case FAM_F64: return cmp_f64(bits_f64(ld64(r->dict + 8 * (size_t)j)), c->d);
    default: {
        const uint8_t *p;
        uint32_t len;
        dict_string(r, j, &p, &len);
        return cmp_bytes(p, len, c->s ? c->s : "", c->len);
    }
    }
}

/* mask_nulls clears the bits of vector b's NULL rows in mask: NULLs never pass. */
static void mask_nulls(const vblock *b, uint64_t *mask) {
    if (b->mode == 0) return;
    uint64_t valid[VALIDITY_WORDS];
    MASK_ROWS(valid, b->n, row_valid(b, i));
    for (uint32_t w = 0; w < KERN_WORDS(b->n); w++) mask[w] &= valid[w];
}

/* dict_filter_mask sets mask to the rows of dictionary vector b whose entry meets every condition:
** the conditions are evaluated once per entry into a bitmap of the entries that pass them all,
** which the codes then look up (kern_dict_mask_checked, 8 codes at a time for a dictionary of up to
** KERN_DICT_LANES entries, which also finds a code past the dictionary: STRATA_CORRUPT). */
static int dict_filter_mask(segment_reader *r, const vblock *b, const payload *pl, const seg_cond *conds,
                            uint32_t nconds, uint64_t *mask, strata_err *err) {
    uint32_t n = b->n, count = r->dict_count;
    uint32_t *codes = (uint32_t *)r->tmp;
    uint64_t *pass = r->tmp + TMP_N; /* SEGMENT_DICT_MAX bits fit in TMP_N words */
    if (pl->w <= 32) {
        bitpack_unpack32(pl->packed, n, pl->w, codes);
    } else { /* wider codes (never written) are checked at 64 bits before they are narrowed */
        uint64_t *wide = r->tmp + 2 * TMP_N;
        bitpack_unpack(pl->packed, n, pl->w, wide);
        if (!check_codes(wide, n, count)) return CORRUPT("vector %u: dictionary code out of range", b->k);
        for (uint32_t i = 0; i < n; i++) codes[i] = (uint32_t)wide[i];
    }
    memset(pass, 0, ((size_t)count + 63) / 64 * sizeof *pass);
    for (uint32_t j = 0; j < count; j++) {
        uint64_t ok = 1;
        for (uint32_t q = 0; q < nconds; q++) ok &= (uint64_t)cmp_result(conds[q].op, compare_entry(r, j, &conds[q].c));
        pass[j >> 6] |= ok << (j & 63);
    }
    if (!kern_dict_mask_checked(pass, count, codes, n, mask))
        return CORRUPT("vector %u: dictionary code out of range", b->k);
    return STRATA_OK;
}

/* cond_mask sets m to the rows of the decoded vector (vals, its FOR base, or the resolved
** strings) that meet one condition; scratch holds a vector of three-way results. */
static void cond_mask(segment_reader *r, const payload *pl, const uint64_t *vals, uint32_t n, const seg_cond *cd,
                      uint64_t *scratch, uint64_t *m) {
    seg_cmp op = cd->op;
    const seg_const *c = &cd->c;
    int fam = family((vec_phys)r->phys);
    if (r->encoding == SEG_CONSTANT) {
        memset(m, 0, KERN_WORDS(n) * sizeof *m);
        if (cmp_result(op, compare_entry(r, 0, c))) mask_all(m, n);
    } else if (r->encoding == SEG_FOR) {
        mask_for(pl, vals, n, op, c->i, m);
    } else if (fam == FAM_INT) {
        mask_cmp(vals, n, op, c->i, m);
    } else if (fam == FAM_F64) { /* three-way comparisons + 1, then the kernel against 1 */
        for (uint32_t i = 0; i < n; i++) scratch[i] = (uint64_t)(cmp_f64(bits_f64(vals[i]), c->d) + 1);
        mask_cmp(scratch, n, op, 1, m);
    } else {
        const void *cs = c->s ? c->s : "";
        for (uint32_t i = 0; i < n; i++) scratch[i] = (uint64_t)(cmp_bytes(r->sptr[i], r->slen[i], cs, c->len) + 1);
        mask_cmp(scratch, n, op, 1, m);
    }
}

int segment_filter_mask(segment_reader *r, uint32_t k, const seg_cond *conds, uint32_t nconds, uint64_t *mask,
                        strata_err *err) {
    if (k >= r->nvectors || r->phys == PHYS_INTERVAL)
        return err_set(err, STRATA_MISUSE, "segment_filter: vector %u of %u, physical type %u", k, r->nvectors,
                       r->phys);
    for (uint32_t j = 0; j < nconds; j++)
        if ((unsigned)conds[j].op > SEG_GE || (conds[j].c.s == NULL && conds[j].c.len > 0))
            return err_set(err, STRATA_MISUSE, "segment_filter: op %d", (int)conds[j].op);
    int rc = ensure_tmp(r, err);
    if (rc) return rc;
    vblock b;
    payload pl;
    if ((rc = open_block(r, k, &b, err)) || (rc = parse_payload(r, &b, &pl, err))) return rc;
    uint32_t n = b.n;
    if (b.mode == 1 || nconds == 0) { /* every row NULL (or nothing to check: every row passes) */
        memset(mask, 0, KERN_WORDS(n) * sizeof *mask);
        if (b.mode != 1) mask_all(mask, n);
        return STRATA_OK;
    }
    /* the vector's values once, then each condition; a dictionary's entries once, then its codes */
    int fam = family((vec_phys)r->phys);
    uint64_t *vals = r->tmp, *scratch = r->tmp + TMP_N;
    if (r->encoding == SEG_DICTIONARY) {
        if ((rc = dict_filter_mask(r, &b, &pl, conds, nconds, mask, err)) == STRATA_OK) mask_nulls(&b, mask);
        return rc;
    }
    if (r->encoding == SEG_CONSTANT) {
        /* compare_entry reads the constant */
    } else if (r->encoding == SEG_FOR && pl.w <= FOR_NARROW) {
        bitpack_unpack32(pl.packed, n, pl.w, (uint32_t *)vals);
    } else if (r->encoding == SEG_FOR) {
        bitpack_unpack(pl.packed, n, pl.w, vals);
    } else if (fam == FAM_INT) {
        uint64_t base;
        int check;
        if ((rc = decode_ints(r, &b, &pl, vals, &base, &check, err))) return rc;
        for (uint32_t i = 0; i < n; i++) vals[i] += base;
    } else if (fam == FAM_F64) {
        if ((rc = decode_f64(r, &b, &pl, vals, err))) return rc;
    } else if ((rc = resolve_strings(r, &b, &pl, err))) {
        return rc;
    }
    cond_mask(r, &pl, vals, n, &conds[0], scratch, mask);
    for (uint32_t j = 1; j < nconds; j++) {
        uint64_t m[VALIDITY_WORDS];
        cond_mask(r, &pl, vals, n, &conds[j], scratch, m);
        for (uint32_t w = 0; w < KERN_WORDS(n); w++) mask[w] &= m[w];
    }
    mask_nulls(&b, mask);
    return STRATA_OK;
}

int segment_filter(segment_reader *r, uint32_t k, seg_cmp op, const seg_const *c, sel_t *sel, uint32_t *count,
                   strata_err *err) {
    uint64_t mask[VALIDITY_WORDS];
    *count = 0;
    seg_cond cond = {op, *c};
    int rc = segment_filter_mask(r, k, &cond, 1, mask, err);
    if (rc == STRATA_OK) *count = kern_mask_to_sel(mask, segment_vector_rows(r, k), sel);
    return rc;
}
