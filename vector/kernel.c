/*
** kernel.c -- the SIMD kernels (kernel.h).
**
** Each kernel is a loop over whole SIMD groups of rows (4 lanes of 64 bits or 8 of 32) and a
** scalar loop for the rows left at the end, which is also the reference its test compares with.
** The operation a kernel applies is chosen once per call: the loop bodies are static inline
** workers whose operation is a constant argument, so each case compiles to its own loop.
*/
#include "kernel.h"

#include "hash.h"
#include "vector_internal.h" /* vec_zero_sel: a CONSTANT vector's selection */

#include <math.h>
#include <string.h>

#include <simde/x86/avx2.h>
#if defined(SIMDE_X86_AVX512F_NATIVE)
#include <immintrin.h>
#endif

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* ---- loads of 4 or 8 rows: contiguous, or through a selection --------------------------- */

/* Through a selection the rows are loaded one by one into the lanes rather than by a gather
** instruction: AMD's cores run a gather as microcode, and Intel's since the microcode fix for
** Gather Data Sampling (2023), slower than the separate loads. */
ALWAYS_INLINE simde__m256d load4_f64(const double *d, const sel_t *sel, uint32_t r) {
    if (!sel) return simde_mm256_loadu_pd(d + r);
    return simde_mm256_setr_pd(d[sel[r]], d[sel[r + 1]], d[sel[r + 2]], d[sel[r + 3]]);
}

ALWAYS_INLINE simde__m256i load4_i64(const int64_t *d, const sel_t *sel, uint32_t r) {
    if (!sel) return simde_mm256_loadu_si256((const simde__m256i *)(const void *)(d + r));
    return simde_mm256_setr_epi64x(d[sel[r]], d[sel[r + 1]], d[sel[r + 2]], d[sel[r + 3]]);
}

ALWAYS_INLINE simde__m256i load8_i32(const int32_t *d, const sel_t *sel, uint32_t r) {
    if (!sel) return simde_mm256_loadu_si256((const simde__m256i *)(const void *)(d + r));
    return simde_mm256_setr_epi32(d[sel[r]], d[sel[r + 1]], d[sel[r + 2]], d[sel[r + 3]], d[sel[r + 4]],
                                  d[sel[r + 5]], d[sel[r + 6]], d[sel[r + 7]]);
}

/* load8_i16 widens 8 SMALLINT rows to 32-bit lanes (a gather reads them one by one). */
ALWAYS_INLINE simde__m256i load8_i16(const int16_t *d, const sel_t *sel, uint32_t r) {
    if (!sel) return simde_mm256_cvtepi16_epi32(simde_mm_loadu_si128((const simde__m128i *)(const void *)(d + r)));
    return simde_mm256_setr_epi32(d[sel[r]], d[sel[r + 1]], d[sel[r + 2]], d[sel[r + 3]], d[sel[r + 4]],
                                  d[sel[r + 5]], d[sel[r + 6]], d[sel[r + 7]]);
}

#define AT(d, sel, r) ((d)[(sel) ? (sel)[r] : (r)])

/* NULL_OR_NOT runs CALL, a call of an inlined worker that reads through pointer p (a selection,
** a validity mask), and when p is NULL runs it with p a literal NULL instead: GCC at -O2 does not
** unswitch loops, so without this a flat vector's loop tests its selection before every load.
** The inner p shadows the argument on purpose. */
#define NULL_OR_NOT(p, TYPE, CALL)                                                               \
    do {                                                                                         \
        if (p) {                                                                                 \
            CALL;                                                                                \
        } else {                                                                                 \
            TYPE const p = NULL;                                                                 \
            CALL;                                                                                \
        }                                                                                        \
    } while (0)

static inline bool row_bit(const uint64_t *m, uint32_t r) { return (m[r >> 6] >> (r & 63)) & 1; }

/* ---- comparisons with a constant ---------------------------------------------------------- */

/* The integer comparisons reduce to one of three SIMD compares, the result maybe inverted:
** EQ, NE = !EQ, GT, LE = !GT, LT, GE = !LT. */
enum { BASE_EQ, BASE_GT, BASE_LT };

static inline void cmp_base(kern_cmp op, int *base, uint64_t *invert) {
    static const int bases[] = {BASE_EQ, BASE_EQ, BASE_LT, BASE_GT, BASE_GT, BASE_LT};
    *base = bases[op];
    *invert = (op == KERN_NE || op == KERN_LE || op == KERN_GE) ? ~(uint64_t)0 : 0;
}

static inline bool int_holds(kern_cmp op, int64_t u, int64_t c) {
    switch (op) {
    case KERN_EQ: return u == c;
    case KERN_NE: return u != c;
    case KERN_LT: return u < c;
    case KERN_LE: return u <= c;
    case KERN_GT: return u > c;
    default: return u >= c;
    }
}

/* mask_tail writes the bits of rows from..n-1 (from a multiple of 64) by HOLDS(row's value). */
#define MASK_TAIL(from, HOLDS)                                                                   \
    do {                                                                                         \
        if ((from) < n) {                                                                        \
            uint64_t m = 0;                                                                      \
            for (uint32_t r = (from); r < n; r++) m |= (uint64_t)(HOLDS) << (r & 63);            \
            mask[(from) >> 6] = m;                                                               \
        }                                                                                        \
    } while (0)

/* cmp_lanes8 is the bit mask of 8 32-bit lanes x against c by base. */
ALWAYS_INLINE uint64_t cmp_lanes8(simde__m256i x, simde__m256i c, int base) {
    simde__m256i m = base == BASE_EQ ? simde_mm256_cmpeq_epi32(x, c)
                     : base == BASE_GT ? simde_mm256_cmpgt_epi32(x, c)
                                       : simde_mm256_cmpgt_epi32(c, x);
    return (uint32_t)simde_mm256_movemask_ps(simde_mm256_castsi256_ps(m));
}

ALWAYS_INLINE uint64_t cmp_lanes4_i64(simde__m256i x, simde__m256i c, int base) {
    simde__m256i m = base == BASE_EQ ? simde_mm256_cmpeq_epi64(x, c)
                     : base == BASE_GT ? simde_mm256_cmpgt_epi64(x, c)
                                       : simde_mm256_cmpgt_epi64(c, x);
    return (uint32_t)simde_mm256_movemask_pd(simde_mm256_castsi256_pd(m));
}

/* CMP_WORDS fills the mask's whole words: 64 rows each, LANES at a time (unrolled: the loop's
** own count and branch were as many instructions as the compare's). */
#define CMP_WORDS(LANES, LANEBITS)                                                               \
    do {                                                                                         \
        for (uint32_t w = 0; w < n / 64; w++) {                                                  \
            uint64_t m = 0;                                                                      \
            _Pragma("GCC unroll 16")                                                             \
            for (uint32_t j = 0; j < 64; j += (LANES)) m |= (LANEBITS) << j;                     \
            mask[w] = m ^ invert;                                                                \
        }                                                                                        \
    } while (0)

#define CMP_INT_KERNEL(NAME, T, LANES, LOAD, SET1, LANEFN)                                       \
    ALWAYS_INLINE void NAME##_by(int base, uint64_t invert, const T *d, const sel_t *sel, uint32_t n, T c, \
                                 uint64_t *mask) {                                                \
        simde__m256i cv = SET1(c);                                                               \
        CMP_WORDS(LANES, LANEFN(LOAD(d, sel, w * 64 + j), cv, base));                            \
    }                                                                                            \
    void NAME(kern_cmp op, const T *d, const sel_t *sel, uint32_t n, T c, uint64_t *mask) {      \
        int base;                                                                                \
        uint64_t invert;                                                                         \
        cmp_base(op, &base, &invert);                                                            \
        switch (base) {                                                                          \
        case BASE_EQ: NULL_OR_NOT(sel, const sel_t *, NAME##_by(BASE_EQ, invert, d, sel, n, c, mask)); break; \
        case BASE_GT: NULL_OR_NOT(sel, const sel_t *, NAME##_by(BASE_GT, invert, d, sel, n, c, mask)); break; \
        default: NULL_OR_NOT(sel, const sel_t *, NAME##_by(BASE_LT, invert, d, sel, n, c, mask)); break;      \
        }                                                                                        \
        MASK_TAIL(n / 64 * 64, int_holds(op, AT(d, sel, r), c));                                 \
    }

static inline simde__m256i set1_i32(int32_t c) { return simde_mm256_set1_epi32(c); }
static inline simde__m256i set1_i16(int16_t c) { return simde_mm256_set1_epi32(c); }
static inline simde__m256i set1_i64(int64_t c) { return simde_mm256_set1_epi64x(c); }

CMP_INT_KERNEL(kern_cmp_i32, int32_t, 8, load8_i32, set1_i32, cmp_lanes8)
CMP_INT_KERNEL(kern_cmp_i16, int16_t, 8, load8_i16, set1_i16, cmp_lanes8)
CMP_INT_KERNEL(kern_cmp_i64, int64_t, 4, load4_i64, set1_i64, cmp_lanes4_i64)

/* DOUBLE: one AVX compare predicate per case. With c not NaN, NaN rows are above c: GT, GE and
** NE hold for them (the unordered-true predicates), EQ, LT and LE do not (ordered). With c NaN,
** only NaN rows equal it and every other row is below it. */
static inline bool f64_holds(kern_cmp op, double u, double c) {
    int cmp = (isnan(u) || isnan(c)) ? isnan(u) - isnan(c) : (u > c) - (u < c);
    return int_holds(op, cmp, 0);
}

ALWAYS_INLINE void cmp_f64_by(int pred, const double *d, const sel_t *sel, uint32_t n, double c, uint64_t *mask) {
    simde__m256d cv = simde_mm256_set1_pd(c);
    for (uint32_t w = 0; w < n / 64; w++) {
        uint64_t m = 0;
        for (uint32_t j = 0; j < 64; j += 4) {
            simde__m256d x = load4_f64(d, sel, w * 64 + j), r;
            switch (pred) { /* a constant: one case survives */
            case SIMDE_CMP_EQ_OQ: r = simde_mm256_cmp_pd(x, cv, SIMDE_CMP_EQ_OQ); break;
            case SIMDE_CMP_NEQ_UQ: r = simde_mm256_cmp_pd(x, cv, SIMDE_CMP_NEQ_UQ); break;
            case SIMDE_CMP_LT_OQ: r = simde_mm256_cmp_pd(x, cv, SIMDE_CMP_LT_OQ); break;
            case SIMDE_CMP_LE_OQ: r = simde_mm256_cmp_pd(x, cv, SIMDE_CMP_LE_OQ); break;
            case SIMDE_CMP_NLE_UQ: r = simde_mm256_cmp_pd(x, cv, SIMDE_CMP_NLE_UQ); break;
            case SIMDE_CMP_NLT_UQ: r = simde_mm256_cmp_pd(x, cv, SIMDE_CMP_NLT_UQ); break;
            case SIMDE_CMP_UNORD_Q: r = simde_mm256_cmp_pd(x, x, SIMDE_CMP_UNORD_Q); break;
            case SIMDE_CMP_ORD_Q: r = simde_mm256_cmp_pd(x, x, SIMDE_CMP_ORD_Q); break;
            case SIMDE_CMP_TRUE_UQ: r = simde_mm256_castsi256_pd(simde_mm256_set1_epi64x(-1)); break;
            default: r = simde_mm256_setzero_pd(); break;
            }
            m |= (uint64_t)(uint32_t)simde_mm256_movemask_pd(r) << j;
        }
        mask[w] = m;
    }
}

void kern_cmp_f64(kern_cmp op, const double *d, const sel_t *sel, uint32_t n, double c, uint64_t *mask) {
    static const int ordinary[] = {SIMDE_CMP_EQ_OQ, SIMDE_CMP_NEQ_UQ, SIMDE_CMP_LT_OQ,
                                   SIMDE_CMP_LE_OQ, SIMDE_CMP_NLE_UQ, SIMDE_CMP_NLT_UQ};
    /* against NaN: EQ = is NaN, NE = LT = is not NaN, LE = every row, GT = none, GE = is NaN */
    static const int against_nan[] = {SIMDE_CMP_UNORD_Q, SIMDE_CMP_ORD_Q,    SIMDE_CMP_ORD_Q,
                                      SIMDE_CMP_TRUE_UQ, SIMDE_CMP_FALSE_OQ, SIMDE_CMP_UNORD_Q};
    int pred = isnan(c) ? against_nan[op] : ordinary[op];
    switch (pred) {
    case SIMDE_CMP_EQ_OQ: cmp_f64_by(SIMDE_CMP_EQ_OQ, d, sel, n, c, mask); break;
    case SIMDE_CMP_NEQ_UQ: cmp_f64_by(SIMDE_CMP_NEQ_UQ, d, sel, n, c, mask); break;
    case SIMDE_CMP_LT_OQ: cmp_f64_by(SIMDE_CMP_LT_OQ, d, sel, n, c, mask); break;
    case SIMDE_CMP_LE_OQ: cmp_f64_by(SIMDE_CMP_LE_OQ, d, sel, n, c, mask); break;
    case SIMDE_CMP_NLE_UQ: cmp_f64_by(SIMDE_CMP_NLE_UQ, d, sel, n, c, mask); break;
    case SIMDE_CMP_NLT_UQ: cmp_f64_by(SIMDE_CMP_NLT_UQ, d, sel, n, c, mask); break;
    case SIMDE_CMP_UNORD_Q: cmp_f64_by(SIMDE_CMP_UNORD_Q, d, sel, n, c, mask); break;
    case SIMDE_CMP_ORD_Q: cmp_f64_by(SIMDE_CMP_ORD_Q, d, sel, n, c, mask); break;
    case SIMDE_CMP_TRUE_UQ: cmp_f64_by(SIMDE_CMP_TRUE_UQ, d, sel, n, c, mask); break;
    default: cmp_f64_by(SIMDE_CMP_FALSE_OQ, d, sel, n, c, mask); break;
    }
    MASK_TAIL(n / 64 * 64, f64_holds(op, AT(d, sel, r), c));
}

/* Two columns: the same compares with the second operand loaded like the first. */
#define CMP2_INT_KERNEL(NAME, T, LANES, LOAD, LANEFN)                                            \
    ALWAYS_INLINE void NAME##_by(int base, uint64_t invert, const T *a, const sel_t *as, const T *b, \
                                 const sel_t *bs, uint32_t n, uint64_t *mask) {                  \
        CMP_WORDS(LANES, LANEFN(LOAD(a, as, w * 64 + j), LOAD(b, bs, w * 64 + j), base));        \
    }                                                                                            \
    void NAME(kern_cmp op, const T *a, const sel_t *as, const T *b, const sel_t *bs, uint32_t n, uint64_t *mask) { \
        int base;                                                                                \
        uint64_t invert;                                                                         \
        cmp_base(op, &base, &invert);                                                            \
        switch (base) {                                                                          \
        case BASE_EQ: NAME##_by(BASE_EQ, invert, a, as, b, bs, n, mask); break;                  \
        case BASE_GT: NAME##_by(BASE_GT, invert, a, as, b, bs, n, mask); break;                  \
        default: NAME##_by(BASE_LT, invert, a, as, b, bs, n, mask); break;                       \
        }                                                                                        \
        MASK_TAIL(n / 64 * 64, int_holds(op, AT(a, as, r), AT(b, bs, r)));                       \
    }

CMP2_INT_KERNEL(kern_cmp2_i32, int32_t, 8, load8_i32, cmp_lanes8)
CMP2_INT_KERNEL(kern_cmp2_i16, int16_t, 8, load8_i16, cmp_lanes8)
CMP2_INT_KERNEL(kern_cmp2_i64, int64_t, 4, load4_i64, cmp_lanes4_i64)

/* DOUBLE against DOUBLE: the ordered <, = and > of each pair, then NaN's place by the operands'
** NaN bits (NaN = NaN, NaN above every number). */
ALWAYS_INLINE uint64_t cmp2_f64_lanes(kern_cmp op, simde__m256d u, simde__m256d v) {
    uint64_t lt = (uint32_t)simde_mm256_movemask_pd(simde_mm256_cmp_pd(u, v, SIMDE_CMP_LT_OQ));
    uint64_t eq = (uint32_t)simde_mm256_movemask_pd(simde_mm256_cmp_pd(u, v, SIMDE_CMP_EQ_OQ));
    uint64_t gt = (uint32_t)simde_mm256_movemask_pd(simde_mm256_cmp_pd(u, v, SIMDE_CMP_GT_OQ));
    uint64_t nu = (uint32_t)simde_mm256_movemask_pd(simde_mm256_cmp_pd(u, u, SIMDE_CMP_UNORD_Q));
    uint64_t nv = (uint32_t)simde_mm256_movemask_pd(simde_mm256_cmp_pd(v, v, SIMDE_CMP_UNORD_Q));
    eq |= nu & nv, lt |= ~nu & nv & 0xf, gt |= nu & ~nv & 0xf;
    switch (op) {
    case KERN_EQ: return eq;
    case KERN_NE: return ~eq & 0xf;
    case KERN_LT: return lt;
    case KERN_LE: return lt | eq;
    case KERN_GT: return gt;
    default: return gt | eq;
    }
}

ALWAYS_INLINE void cmp2_f64_by(kern_cmp op, const double *a, const sel_t *as, const double *b, const sel_t *bs,
                               uint32_t n, uint64_t *mask) {
    for (uint32_t w = 0; w < n / 64; w++) {
        uint64_t m = 0;
        for (uint32_t j = 0; j < 64; j += 4)
            m |= cmp2_f64_lanes(op, load4_f64(a, as, w * 64 + j), load4_f64(b, bs, w * 64 + j)) << j;
        mask[w] = m;
    }
}

void kern_cmp2_f64(kern_cmp op, const double *a, const sel_t *as, const double *b, const sel_t *bs, uint32_t n,
                   uint64_t *mask) {
    switch (op) {
    case KERN_EQ: cmp2_f64_by(KERN_EQ, a, as, b, bs, n, mask); break;
    case KERN_NE: cmp2_f64_by(KERN_NE, a, as, b, bs, n, mask); break;
    case KERN_LT: cmp2_f64_by(KERN_LT, a, as, b, bs, n, mask); break;
    case KERN_LE: cmp2_f64_by(KERN_LE, a, as, b, bs, n, mask); break;
    case KERN_GT: cmp2_f64_by(KERN_GT, a, as, b, bs, n, mask); break;
    default: cmp2_f64_by(KERN_GE, a, as, b, bs, n, mask); break;
    }
    MASK_TAIL(n / 64 * 64, f64_holds(op, AT(a, as, r), AT(b, bs, r)));
}

/* ---- masks -------------------------------------------------------------------------------- */

void kern_mask_valid(uint64_t *mask, const uint64_t *validity, const sel_t *sel, uint32_t n) {
    if (!validity) return;
    if (!sel) {
        for (uint32_t w = 0; w < KERN_WORDS(n); w++) mask[w] &= validity[w];
        return;
    }
    for (uint32_t r = 0; r < n; r++)
        if (!row_bit(validity, sel[r])) mask[r >> 6] &= ~((uint64_t)1 << (r & 63));
}

#if !defined(SIMDE_X86_AVX512F_NATIVE)
/* sel_lut[b]: the positions of the set bits of byte b, one per byte, ascending. */
static uint64_t sel_lut[256];

__attribute__((constructor)) static void sel_lut_init(void) {
    for (uint32_t b = 0; b < 256; b++) {
        uint64_t e = 0;
        for (uint32_t i = 0, k = 0; i < 8; i++)
            if (b >> i & 1) e |= (uint64_t)i << (8 * k++);
        sel_lut[b] = e;
    }
}
#endif

uint32_t kern_mask_to_sel(const uint64_t *mask, uint32_t n, sel_t *out) {
    uint32_t k = 0, r = 0;
#if defined(SIMDE_X86_AVX512F_NATIVE)
    /* AVX-512: compress 16 row numbers at a time in a register, then store all 16 lanes (k <= r,
    ** so they stay below n); a compress straight to memory is microcoded and slow on some cores */
    const __m512i step = _mm512_set1_epi32(16);
    __m512i rows = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (; r + 16 <= n; r += 16, rows = _mm512_add_epi32(rows, step)) {
        __mmask16 m = (__mmask16)(mask[r >> 6] >> (r & 63));
        _mm512_storeu_si512((void *)(out + k), _mm512_maskz_compress_epi32(m, rows));
        k += (uint32_t)__builtin_popcount(m);
    }
#else
    /* AVX2 and below: a byte of the mask looks up its positions, widened and offset 8 at a time */
    for (; r + 8 <= n; r += 8) {
        uint32_t b = (uint32_t)(mask[r >> 6] >> (r & 63)) & 0xff;
        simde__m128i pos = simde_mm_cvtsi64_si128((int64_t)sel_lut[b]);
        simde__m256i rows = simde_mm256_add_epi32(simde_mm256_cvtepu8_epi32(pos), simde_mm256_set1_epi32((int32_t)r));
        simde_mm256_storeu_si256((simde__m256i *)(void *)(out + k), rows);
        k += (uint32_t)__builtin_popcount(b);
    }
#endif
    for (; r < n; r++) {
        out[k] = r;
        k += row_bit(mask, r);
    }
    return k;
}

/* ---- sums --------------------------------------------------------------------------------- */

/* lanes_valid4 is a 4 x 64-bit lane mask of rows r..r+3's validity (NULL: all valid); an
** all-ones lane keeps its value under AND. */
ALWAYS_INLINE simde__m256i lanes_valid4(const uint64_t *rows, uint32_t r) {
    const simde__m256i bits = simde_mm256_setr_epi64x(1, 2, 4, 8);
    simde__m256i b = simde_mm256_set1_epi64x((int64_t)((rows[r >> 6] >> (r & 63)) & 0xf));
    return simde_mm256_cmpeq_epi64(simde_mm256_and_si256(b, bits), bits);
}

/* row_valid computes the rows whose value is valid as a row mask (in rows, KERN_WORDS(n) words):
** NULL when every row is. */
static const uint64_t *row_valid(const uint64_t *validity, const sel_t *sel, uint32_t n, uint64_t *rows) {
    if (!validity) return NULL;
    if (!sel) return validity;
    memset(rows, 0xff, KERN_WORDS(n) * sizeof *rows);
    kern_mask_valid(rows, validity, sel, n);
    return rows;
}

static inline int64_t hsum_i64(simde__m256i v) {
    int64_t l[4];
    simde_mm256_storeu_si256((simde__m256i *)(void *)l, v);
    return l[0] + l[1] + l[2] + l[3];
}

static inline int64_t count_of(const uint64_t *valid, uint32_t n) {
    if (!valid) return n;
    int64_t c = 0;
    for (uint32_t w = 0; w < n / 64; w++) c += __builtin_popcountll(valid[w]);
    if (n % 64) c += __builtin_popcountll(valid[n / 64] & (((uint64_t)1 << (n % 64)) - 1));
    return c;
}

/* SUM_KERNEL defines kern_sum_T from its worker NAME##_rows(d, sel, valid, n), the sum of the
** valid rows, run with a literal NULL for a flat vector's selection and for "every row valid". */
#define SUM_KERNEL(NAME, T)                                                                      \
    __int128 NAME(const T *d, const sel_t *sel, const uint64_t *validity, uint32_t n, int64_t *count) { \
        uint64_t rows[VALIDITY_WORDS];                                                           \
        const uint64_t *valid = row_valid(validity, sel, n, rows);                               \
        __int128 s;                                                                              \
        NULL_OR_NOT(sel, const sel_t *, NULL_OR_NOT(valid, const uint64_t *, s = NAME##_rows(d, sel, valid, n))); \
        *count = count_of(valid, n);                                                             \
        return s;                                                                                \
    }

/* SUM32 sums 32-bit lanes (INTEGER, SMALLINT widened) in two 4 x int64 accumulators: at most
** VECTOR_SIZE rows of 32-bit values cannot overflow them. */
#define SUM32_KERNEL(NAME, T, LOAD8)                                                             \
    ALWAYS_INLINE __int128 NAME##_rows(const T *d, const sel_t *sel, const uint64_t *valid, uint32_t n) { \
        simde__m256i acc0 = simde_mm256_setzero_si256(), acc1 = acc0;                            \
        uint32_t r = 0;                                                                          \
        for (; r + 8 <= n; r += 8) {                                                             \
            simde__m256i x = LOAD8(d, sel, r);                                                   \
            simde__m256i lo = simde_mm256_cvtepi32_epi64(simde_mm256_castsi256_si128(x));        \
            simde__m256i hi = simde_mm256_cvtepi32_epi64(simde_mm256_extracti128_si256(x, 1));   \
            if (valid) {                                                                         \
                lo = simde_mm256_and_si256(lo, lanes_valid4(valid, r));                          \
                hi = simde_mm256_and_si256(hi, lanes_valid4(valid, r + 4));                      \
            }                                                                                    \
            acc0 = simde_mm256_add_epi64(acc0, lo);                                              \
            acc1 = simde_mm256_add_epi64(acc1, hi);                                              \
        }                                                                                        \
        int64_t s = hsum_i64(simde_mm256_add_epi64(acc0, acc1));                                 \
        for (; r < n; r++)                                                                       \
            if (!valid || row_bit(valid, r)) s += AT(d, sel, r);                                 \
        return s;                                                                                \
    }                                                                                            \
    SUM_KERNEL(NAME, T)

SUM32_KERNEL(kern_sum_i32, int32_t, load8_i32)
SUM32_KERNEL(kern_sum_i16, int16_t, load8_i16)

static inline uint64_t hsum_u64(simde__m256i v) {
    uint64_t l[4];
    simde_mm256_storeu_si256((simde__m256i *)(void *)l, v);
    return l[0] + l[1] + l[2] + l[3];
}

/* BIGINT: each value x is taken as u = x + 2^63 (its sign bit flipped), unsigned, a NULL row as
** x = 0; the lanes add u modulo 2^64 and u's top 32 bits exactly (at most VECTOR_SIZE rows: the
** tops add to less than 2^43). u's exact sum is 2^32 times the tops' plus the low halves', which
** add to less than 2^43: the one such value whose residue modulo 2^64 is the wrapped sum. Then
** 2^63 per row comes off again. Two additions, a shift and an XOR per 4 rows. */
ALWAYS_INLINE __int128 kern_sum_i64_rows(const int64_t *d, const sel_t *sel, const uint64_t *valid, uint32_t n) {
    const simde__m256i flip = simde_mm256_set1_epi64x(INT64_MIN);
    simde__m256i wrap = simde_mm256_setzero_si256(), tops = wrap;
    uint32_t r = 0;
    for (; r + 4 <= n; r += 4) {
        simde__m256i x = load4_i64(d, sel, r);
        if (valid) x = simde_mm256_and_si256(x, lanes_valid4(valid, r));
        x = simde_mm256_xor_si256(x, flip);
        wrap = simde_mm256_add_epi64(wrap, x);
        tops = simde_mm256_add_epi64(tops, simde_mm256_srli_epi64(x, 32));
    }
    unsigned __int128 a = (unsigned __int128)hsum_u64(tops) << 32;
    unsigned __int128 su = a + (uint64_t)(hsum_u64(wrap) - (uint64_t)a);
    __int128 s = (__int128)su - (__int128)r * ((__int128)1 << 63);
    for (; r < n; r++)
        if (!valid || row_bit(valid, r)) s += AT(d, sel, r);
    return s;
}

SUM_KERNEL(kern_sum_i64, int64_t)

double kern_sum_f64(const double *d, const sel_t *sel, const uint64_t *validity, uint32_t n, int64_t *count) {
    uint64_t rows[VALIDITY_WORDS];
    const uint64_t *valid = row_valid(validity, sel, n, rows);
    simde__m256d acc = simde_mm256_setzero_pd();
    uint32_t r = 0;
    for (; r + 4 <= n; r += 4) {
        simde__m256d x = load4_f64(d, sel, r);
        if (valid) x = simde_mm256_and_pd(x, simde_mm256_castsi256_pd(lanes_valid4(valid, r)));
        acc = simde_mm256_add_pd(acc, x);
    }
    double l[4];
    simde_mm256_storeu_pd(l, acc);
    double s = (l[0] + l[1]) + (l[2] + l[3]);
    for (; r < n; r++)
        if (!valid || row_bit(valid, r)) s += AT(d, sel, r);
    *count = count_of(valid, n);
    return s;
}

/* ---- minimum and maximum ------------------------------------------------------------------ */

/* The 32-bit kernels keep 8 lanes of minimum and maximum (NULL lanes replaced by the first valid
** value, which changes neither); BIGINT compares and blends 4 lanes (AVX2 has no 64-bit min). */
#define MINMAX32_KERNEL(NAME, T, LOAD8)                                                          \
    uint32_t NAME(const T *d, const sel_t *sel, const uint64_t *validity, uint32_t n, int64_t *min, int64_t *max) { \
        uint64_t rows[VALIDITY_WORDS];                                                           \
        const uint64_t *valid = row_valid(validity, sel, n, rows);                               \
        uint32_t first = 0;                                                                      \
        if (valid)                                                                               \
            while (first < n && !row_bit(valid, first)) first++;                                 \
        if (first == n) return 0;                                                                \
        T f = AT(d, sel, first);                                                                 \
        simde__m256i fill = simde_mm256_set1_epi32(f), lo = fill, hi = fill;                     \
        uint32_t r = 0;                                                                          \
        for (; r + 8 <= n; r += 8) {                                                             \
            simde__m256i x = LOAD8(d, sel, r);                                                   \
            if (valid) {                                                                         \
                const simde__m256i bits = simde_mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);   \
                simde__m256i b = simde_mm256_set1_epi32((int32_t)((valid[r >> 6] >> (r & 63)) & 0xff)); \
                simde__m256i keep = simde_mm256_cmpeq_epi32(simde_mm256_and_si256(b, bits), bits); \
                x = simde_mm256_blendv_epi8(fill, x, keep);                                      \
            }                                                                                    \
            lo = simde_mm256_min_epi32(lo, x);                                                   \
            hi = simde_mm256_max_epi32(hi, x);                                                   \
        }                                                                                        \
        int32_t l[8], h[8];                                                                      \
        simde_mm256_storeu_si256((simde__m256i *)(void *)l, lo);                                 \
        simde_mm256_storeu_si256((simde__m256i *)(void *)h, hi);                                 \
        int64_t mn = f, mx = f;                                                                  \
        for (int i = 0; i < 8; i++) mn = l[i] < mn ? l[i] : mn, mx = h[i] > mx ? h[i] : mx;      \
        for (; r < n; r++)                                                                       \
            if (!valid || row_bit(valid, r)) {                                                   \
                int64_t x = AT(d, sel, r);                                                       \
                mn = x < mn ? x : mn, mx = x > mx ? x : mx;                                      \
            }                                                                                    \
        *min = mn, *max = mx;                                                                    \
        return (uint32_t)count_of(valid, n);                                                     \
    }

MINMAX32_KERNEL(kern_minmax_i32, int32_t, load8_i32)
MINMAX32_KERNEL(kern_minmax_i16, int16_t, load8_i16)

uint32_t kern_minmax_i64(const int64_t *d, const sel_t *sel, const uint64_t *validity, uint32_t n, int64_t *min,
                         int64_t *max) {
    uint64_t rows[VALIDITY_WORDS];
    const uint64_t *valid = row_valid(validity, sel, n, rows);
    uint32_t first = 0;
    if (valid)
        while (first < n && !row_bit(valid, first)) first++;
    if (first == n) return 0;
    int64_t f = AT(d, sel, first);
    simde__m256i fill = simde_mm256_set1_epi64x(f), lo = fill, hi = fill;
    uint32_t r = 0;
    for (; r + 4 <= n; r += 4) {
        simde__m256i x = load4_i64(d, sel, r);
        if (valid) x = simde_mm256_blendv_epi8(fill, x, lanes_valid4(valid, r));
        lo = simde_mm256_blendv_epi8(lo, x, simde_mm256_cmpgt_epi64(lo, x));
        hi = simde_mm256_blendv_epi8(hi, x, simde_mm256_cmpgt_epi64(x, hi));
    }
    int64_t l[4], h[4];
    simde_mm256_storeu_si256((simde__m256i *)(void *)l, lo);
    simde_mm256_storeu_si256((simde__m256i *)(void *)h, hi);
    int64_t mn = f, mx = f;
    for (int i = 0; i < 4; i++) mn = l[i] < mn ? l[i] : mn, mx = h[i] > mx ? h[i] : mx;
    for (; r < n; r++)
        if (!valid || row_bit(valid, r)) {
            int64_t x = AT(d, sel, r);
            mn = x < mn ? x : mn, mx = x > mx ? x : mx;
        }
    *min = mn, *max = mx;
    return (uint32_t)count_of(valid, n);
}

/* ---- grouped sums ------------------------------------------------------------------------- */

/* GROUP_LOOP runs BODY(row, lane) for rows 0..n-1, lanes round-robin, unrolled by lane. */
#define GROUP_LOOP(BODY)                                                                         \
    do {                                                                                         \
        uint32_t r = 0;                                                                          \
        for (; r + KERN_GROUP_LANES <= n; r += KERN_GROUP_LANES) {                               \
            _Pragma("GCC unroll 8") for (uint32_t l = 0; l < KERN_GROUP_LANES; l++) BODY(r + l, l); \
        }                                                                                        \
        for (; r < n; r++) BODY(r, 0);                                                           \
    } while (0)

/* FOLD adds the lanes of each group into acc. */
#define FOLD(lanes)                                                                              \
    for (uint32_t g = 0; g < ngroups; g++) {                                                     \
        for (uint32_t l = 1; l < KERN_GROUP_LANES; l++) lanes[0][g] += lanes[l][g];              \
        acc[g] += lanes[0][g];                                                                   \
    }

#define ZERO(lanes)                                                                              \
    for (uint32_t l = 0; l < KERN_GROUP_LANES; l++) memset(lanes[l], 0, ngroups * sizeof lanes[l][0])

void kern_group_count(const uint32_t *gids, uint32_t n, uint32_t ngroups, int64_t *acc) {
    int64_t lanes[KERN_GROUP_LANES][KERN_GROUPS_MAX];
    ZERO(lanes);
#define COUNT_ROW(r, l) lanes[l][gids[r]]++
    GROUP_LOOP(COUNT_ROW);
    FOLD(lanes);
}

/* GROUP_SUM_KERNEL: a loop for flat data and one through the selection, each unrolled. */
#define GROUP_SUM_KERNEL(NAME, T, ACC)                                                           \
    void NAME(const T *d, const sel_t *sel, const uint32_t *gids, uint32_t n, uint32_t ngroups, ACC *acc) { \
        ACC lanes[KERN_GROUP_LANES][KERN_GROUPS_MAX];                                            \
        ZERO(lanes);                                                                             \
        if (sel) {                                                                               \
            GROUP_LOOP(SUM_SEL_ROW);                                                             \
        } else {                                                                                 \
            GROUP_LOOP(SUM_ROW);                                                                 \
        }                                                                                        \
        FOLD(lanes);                                                                             \
    }
#define SUM_ROW(r, l) lanes[l][gids[r]] += d[r]
#define SUM_SEL_ROW(r, l) lanes[l][gids[r]] += d[sel[r]]
GROUP_SUM_KERNEL(kern_group_sum_i16, int16_t, int64_t)
GROUP_SUM_KERNEL(kern_group_sum_i32, int32_t, int64_t)
GROUP_SUM_KERNEL(kern_group_sum_f64, double, double)

/* BIGINT: each value's distance from [-2^52, 2^52) is OR-ed into big as the rows go (a value in
** range adds 2^52 to a number below 2^53), and the lanes fold into acc only when there was none. */
bool kern_group_sum_i64(const int64_t *d, const sel_t *sel, const uint32_t *gids, uint32_t n, uint32_t ngroups,
                        int64_t *acc) {
    uint64_t lanes[KERN_GROUP_LANES][KERN_GROUPS_MAX]; /* unsigned: a value out of range wraps, no overflow */
    ZERO(lanes);
    uint64_t big = 0;
    const uint64_t half = UINT64_C(1) << 52;
#define SUM_CHECKED(r, l, x)                                                                     \
    do {                                                                                         \
        int64_t x_ = (x);                                                                        \
        big |= ((uint64_t)x_ + half) >> 53;                                                      \
        lanes[l][gids[r]] += (uint64_t)x_;                                                       \
    } while (0)
#define SUM_CHECKED_ROW(r, l) SUM_CHECKED(r, l, d[r])
#define SUM_CHECKED_SEL_ROW(r, l) SUM_CHECKED(r, l, d[sel[r]])
    if (sel) {
        GROUP_LOOP(SUM_CHECKED_SEL_ROW);
    } else {
        GROUP_LOOP(SUM_CHECKED_ROW);
    }
    if (big) return false;
    FOLD(lanes);
    return true;
}

/* ---- arithmetic --------------------------------------------------------------------------- */

ALWAYS_INLINE bool arith_f64_by(kern_arith op, const double *a, const sel_t *as, const double *b, const sel_t *bs,
                                uint32_t n, double *o) {
    const simde__m256d abs_mask = simde_mm256_castsi256_pd(simde_mm256_set1_epi64x(INT64_MAX));
    const simde__m256d inf = simde_mm256_set1_pd(INFINITY), zero = simde_mm256_setzero_pd();
    simde__m256d suspect = zero;
    uint32_t r = 0;
    for (; r + 4 <= n; r += 4) {
        simde__m256d u = load4_f64(a, as, r), v = load4_f64(b, bs, r), x;
        switch (op) {
        case KERN_ADD: x = simde_mm256_add_pd(u, v); break;
        case KERN_SUB: x = simde_mm256_sub_pd(u, v); break;
        case KERN_MUL: x = simde_mm256_mul_pd(u, v); break;
        default: x = simde_mm256_div_pd(u, v); break;
        }
        simde_mm256_storeu_pd(o + r, x);
        simde__m256d s = simde_mm256_cmp_pd(simde_mm256_and_pd(x, abs_mask), inf, SIMDE_CMP_EQ_OQ);
        if (op == KERN_MUL || op == KERN_DIV) s = simde_mm256_or_pd(s, simde_mm256_cmp_pd(x, zero, SIMDE_CMP_EQ_OQ));
        if (op == KERN_DIV) s = simde_mm256_or_pd(s, simde_mm256_cmp_pd(v, zero, SIMDE_CMP_EQ_OQ));
        suspect = simde_mm256_or_pd(suspect, s);
    }
    bool any = simde_mm256_movemask_pd(suspect) != 0;
    for (; r < n; r++) {
        double u = AT(a, as, r), v = AT(b, bs, r);
        double x = op == KERN_ADD ? u + v : op == KERN_SUB ? u - v : op == KERN_MUL ? u * v : u / v;
        o[r] = x;
        any |= isinf(x) || ((op == KERN_MUL || op == KERN_DIV) && x == 0) || (op == KERN_DIV && v == 0);
    }
    return any;
}

bool kern_arith_f64(kern_arith op, const double *a, const sel_t *as, const double *b, const sel_t *bs, uint32_t n,
                    double *o) {
    switch (op) {
    case KERN_ADD: return arith_f64_by(KERN_ADD, a, as, b, bs, n, o);
    case KERN_SUB: return arith_f64_by(KERN_SUB, a, as, b, bs, n, o);
    case KERN_MUL: return arith_f64_by(KERN_MUL, a, as, b, bs, n, o);
    default: return arith_f64_by(KERN_DIV, a, as, b, bs, n, o);
    }
}

/* Addition and subtraction overflow when the result's sign differs from both operands' (add) or
** from the minuend's when the operands' signs differ (sub): the sign bits are OR-ed over the
** vector and tested once. Multiplication has no 64-bit SIMD product with overflow on AVX2: it
** is a branch-free scalar loop. */
ALWAYS_INLINE bool arith_i64_by(kern_arith op, const int64_t *a, const sel_t *as, const int64_t *b,
                                const sel_t *bs, uint32_t n, int64_t lo, int64_t hi, int64_t *o) {
    bool ranged = lo != INT64_MIN || hi != INT64_MAX;
    uint32_t r = 0;
    uint64_t ovf = 0;
    if (op != KERN_MUL) {
        const simde__m256i lov = simde_mm256_set1_epi64x(lo), hiv = simde_mm256_set1_epi64x(hi);
        simde__m256i flags = simde_mm256_setzero_si256(), out_of_range = flags;
        for (; r + 4 <= n; r += 4) {
            simde__m256i u = load4_i64(a, as, r), v = load4_i64(b, bs, r), x;
            if (op == KERN_ADD) {
                x = simde_mm256_add_epi64(u, v);
                flags = simde_mm256_or_si256(
                    flags, simde_mm256_and_si256(simde_mm256_xor_si256(u, x), simde_mm256_xor_si256(v, x)));
            } else {
                x = simde_mm256_sub_epi64(u, v);
                flags = simde_mm256_or_si256(
                    flags, simde_mm256_and_si256(simde_mm256_xor_si256(u, v), simde_mm256_xor_si256(u, x)));
            }
            if (ranged)
                out_of_range = simde_mm256_or_si256(
                    out_of_range, simde_mm256_or_si256(simde_mm256_cmpgt_epi64(lov, x), simde_mm256_cmpgt_epi64(x, hiv)));
            simde_mm256_storeu_si256((simde__m256i *)(void *)(o + r), x);
        }
        ovf = (uint32_t)simde_mm256_movemask_pd(simde_mm256_castsi256_pd(flags)) |
              (uint32_t)simde_mm256_movemask_pd(simde_mm256_castsi256_pd(out_of_range));
    }
    for (; r < n; r++) {
        int64_t u = AT(a, as, r), v = AT(b, bs, r), x;
        bool f = op == KERN_ADD   ? __builtin_add_overflow(u, v, &x)
                 : op == KERN_SUB ? __builtin_sub_overflow(u, v, &x)
                                  : __builtin_mul_overflow(u, v, &x);
        o[r] = x;
        ovf |= (uint64_t)f | (uint64_t)(x < lo) | (uint64_t)(x > hi);
    }
    return ovf != 0;
}

bool kern_arith_i64(kern_arith op, const int64_t *a, const sel_t *as, const int64_t *b, const sel_t *bs, uint32_t n,
                    int64_t lo, int64_t hi, int64_t *o) {
    switch (op) {
    case KERN_ADD: return arith_i64_by(KERN_ADD, a, as, b, bs, n, lo, hi, o);
    case KERN_SUB: return arith_i64_by(KERN_SUB, a, as, b, bs, n, lo, hi, o);
    default: return arith_i64_by(KERN_MUL, a, as, b, bs, n, lo, hi, o);
    }
}

/* ---- DECIMAL arithmetic ------------------------------------------------------------------- */

/* DEC_KIND: 0 = a * b, 1 = a * fa + b * fb, 2 = a * fa - b * fb. Operands in int32's range are
** checked lane by lane (x + 2^31 has no bit above 31), products come from the signed 32 x 32-bit
** multiply of each lane's low half, and |result| < lim is checked as (result + lim - 1) unsigned
** at most 2 * lim - 2, as the executor's scalar check does. */
ALWAYS_INLINE bool dec_by(int kind, int ca, int cb, const int64_t *a, const sel_t *as, int64_t fa, const int64_t *b,
                          const sel_t *bs, int64_t fb, uint32_t n, int64_t lim, int64_t *o) {
    const simde__m256i half = simde_mm256_set1_epi64x(INT64_C(1) << 31), hi32 = simde_mm256_set1_epi64x(~INT64_C(0xffffffff));
    const simde__m256i fav = simde_mm256_set1_epi64x(fa), fbv = simde_mm256_set1_epi64x(fb);
    const simde__m256i lm1 = simde_mm256_set1_epi64x(lim - 1);
    /* unsigned x > 2 * (lim - 1) as a signed compare after flipping the sign bits */
    const simde__m256i flip = simde_mm256_set1_epi64x(INT64_MIN);
    const simde__m256i bound = simde_mm256_xor_si256(simde_mm256_set1_epi64x((int64_t)(2 * (uint64_t)(lim - 1))), flip);
    simde__m256i wide = simde_mm256_setzero_si256(), over = wide;
    /* a CONSTANT side (ca, cb) is one value, broadcast once */
    const simde__m256i ka = ca && n ? simde_mm256_set1_epi64x(a[0]) : half, kb = cb && n ? simde_mm256_set1_epi64x(b[0]) : half;
    uint32_t r = 0;
    for (; r + 4 <= n; r += 4) {
        simde__m256i u = ca ? ka : load4_i64(a, as, r), v = cb ? kb : load4_i64(b, bs, r), x;
        /* OR-ed whole, masked to the high halves once after the loop: (x | y) & m = (x & m) | (y & m) */
        wide = simde_mm256_or_si256(wide, simde_mm256_or_si256(simde_mm256_add_epi64(u, half), simde_mm256_add_epi64(v, half)));
        if (kind == 0) {
            x = simde_mm256_mul_epi32(u, v);
        } else {
            simde__m256i su = simde_mm256_mul_epi32(u, fav), sv = simde_mm256_mul_epi32(v, fbv);
            x = kind == 1 ? simde_mm256_add_epi64(su, sv) : simde_mm256_sub_epi64(su, sv);
        }
        simde__m256i t = simde_mm256_xor_si256(simde_mm256_add_epi64(x, lm1), flip);
        over = simde_mm256_or_si256(over, simde_mm256_cmpgt_epi64(t, bound));
        simde_mm256_storeu_si256((simde__m256i *)(void *)(o + r), x);
    }
    /* any lane nonzero; not simde_mm256_testz_si256, whose SSE fallback in simde 0.7.4 answers
    ** "all zero" when either 64-bit half is (simde PR #1097) */
    simde__m256i any = simde_mm256_or_si256(simde_mm256_and_si256(wide, hi32), over);
    bool bad = simde_mm256_movemask_pd(simde_mm256_castsi256_pd(simde_mm256_cmpeq_epi64(any, simde_mm256_setzero_si256()))) != 0xf;
    for (; r < n && !bad; r++) {
        int64_t u = AT(a, as, r), v = AT(b, bs, r), x;
        if (u < INT32_MIN || u > INT32_MAX || v < INT32_MIN || v > INT32_MAX) return false;
        x = kind == 0 ? u * v : kind == 1 ? u * fa + v * fb : u * fa - v * fb;
        bad = (uint64_t)x + (uint64_t)(lim - 1) > 2 * (uint64_t)(lim - 1);
        o[r] = x;
    }
    return !bad;
}

/* dec_kind runs dec_by with kind, and with a side whose selection is vec_zero_sel (a CONSTANT
** vector's: every row reads slot 0, as `1 - l_discount` has) broadcast instead of loaded row by
** row, which took four scalar loads and inserts per 4 rows (bench_kernels' DECIMAL expression row:
** bench/README.md). Any other selection, all zeros or not, is read as a selection; a flat side
** gets a loop of its own. */
ALWAYS_INLINE bool dec_kind(int kind, const int64_t *a, const sel_t *as, int64_t fa, const int64_t *b, const sel_t *bs,
                            int64_t fb, uint32_t n, int64_t lim, int64_t *o) {
    bool ok;
    if (as == vec_zero_sel) NULL_OR_NOT(bs, const sel_t *, ok = dec_by(kind, 1, 0, a, as, fa, b, bs, fb, n, lim, o));
    else if (bs == vec_zero_sel) NULL_OR_NOT(as, const sel_t *, ok = dec_by(kind, 0, 1, a, as, fa, b, bs, fb, n, lim, o));
    else NULL_OR_NOT(as, const sel_t *, NULL_OR_NOT(bs, const sel_t *, ok = dec_by(kind, 0, 0, a, as, fa, b, bs, fb, n, lim, o)));
    return ok;
}

bool kern_dec_mul(const int64_t *a, const sel_t *as, const int64_t *b, const sel_t *bs, uint32_t n, int64_t lim,
                  int64_t *o) {
    return dec_kind(0, a, as, 1, b, bs, 1, n, lim, o);
}

bool kern_dec_add(const int64_t *a, const sel_t *as, int64_t fa, const int64_t *b, const sel_t *bs, int64_t fb,
                  uint32_t n, int64_t lim, int64_t *o) {
    if (fa > INT32_MAX || fb > INT32_MAX) return false;
    return dec_kind(1, a, as, fa, b, bs, fb, n, lim, o);
}

bool kern_dec_sub(const int64_t *a, const sel_t *as, int64_t fa, const int64_t *b, const sel_t *bs, int64_t fb,
                  uint32_t n, int64_t lim, int64_t *o) {
    if (fa > INT32_MAX || fb > INT32_MAX) return false;
    return dec_kind(2, a, as, fa, b, bs, fb, n, lim, o);
}

/* ---- casts -------------------------------------------------------------------------------- */

void kern_to_f64_i32(const int32_t *d, const sel_t *sel, uint32_t n, double *o) {
    uint32_t r = 0;
    for (; r + 8 <= n; r += 8) {
        simde__m256i x = load8_i32(d, sel, r);
        simde_mm256_storeu_pd(o + r, simde_mm256_cvtepi32_pd(simde_mm256_castsi256_si128(x)));
        simde_mm256_storeu_pd(o + r + 4, simde_mm256_cvtepi32_pd(simde_mm256_extracti128_si256(x, 1)));
    }
    for (; r < n; r++) o[r] = AT(d, sel, r);
}

/* BIGINT to DOUBLE has no AVX2 instruction (AVX-512DQ has one; GCC uses it here at -march=native
** when it vectorizes the loop): a scalar loop. */
void kern_to_f64_i64(const int64_t *d, const sel_t *sel, uint32_t n, double *o) {
    for (uint32_t r = 0; r < n; r++) o[r] = (double)AT(d, sel, r);
}

/* ---- INTEGER and SMALLINT arithmetic ------------------------------------------------------ */

/* INTEGER: + and - run in 32-bit lanes, 8 rows at a time, overflow found by the sign rule of
** arith_i64_by; * multiplies the even and the odd lanes' values into exact 64-bit products
** (vpmuldq), checks them against INTEGER's range and keeps their low halves. The flags are
** OR-ed over the vector and tested once. Without SSE4.2 (make PORTABLE=1) the signed 32-bit
** multiply and the 64-bit compare are emulated lane by lane, which measured at half the speed
** of the scalar loop (bench_kernels --quick, shared Zen 4: 879 against 1,734 M rows/s), so * is
** the scalar loop there. */
#define ARITH_I32_ROWS(U, V)                                                                     \
    for (; r < n; r++) {                                                                         \
        int32_t x;                                                                               \
        ovf |= op == KERN_ADD   ? __builtin_add_overflow((U), (V), &x)                            \
               : op == KERN_SUB ? __builtin_sub_overflow((U), (V), &x)                            \
                                : __builtin_mul_overflow((U), (V), &x);                           \
        o[r] = x;                                                                                \
    }

#if defined(SIMDE_X86_SSE4_2_NATIVE)
#define ARITH_I32_SIMD_MUL 1
#else
#define ARITH_I32_SIMD_MUL 0
#endif

ALWAYS_INLINE bool arith_i32_by(kern_arith op, const int32_t *a, const sel_t *as, const int32_t *b,
                                const sel_t *bs, uint32_t n, int32_t *o) {
    const simde__m256i lo = simde_mm256_set1_epi64x(INT32_MIN), hi = simde_mm256_set1_epi64x(INT32_MAX);
    simde__m256i flags = simde_mm256_setzero_si256();
    uint32_t r = 0;
    for (; r + 8 <= n && (op != KERN_MUL || ARITH_I32_SIMD_MUL); r += 8) {
        simde__m256i u = load8_i32(a, as, r), v = load8_i32(b, bs, r), x;
        if (op == KERN_ADD) {
            x = simde_mm256_add_epi32(u, v);
            flags = simde_mm256_or_si256(
                flags, simde_mm256_and_si256(simde_mm256_xor_si256(u, x), simde_mm256_xor_si256(v, x)));
        } else if (op == KERN_SUB) {
            x = simde_mm256_sub_epi32(u, v);
            flags = simde_mm256_or_si256(
                flags, simde_mm256_and_si256(simde_mm256_xor_si256(u, v), simde_mm256_xor_si256(u, x)));
        } else {
            simde__m256i even = simde_mm256_mul_epi32(u, v);
            simde__m256i odd = simde_mm256_mul_epi32(simde_mm256_srli_epi64(u, 32), simde_mm256_srli_epi64(v, 32));
            simde__m256i out = simde_mm256_or_si256(simde_mm256_or_si256(simde_mm256_cmpgt_epi64(lo, even),
                                                                         simde_mm256_cmpgt_epi64(even, hi)),
                                                    simde_mm256_or_si256(simde_mm256_cmpgt_epi64(lo, odd),
                                                                         simde_mm256_cmpgt_epi64(odd, hi)));
            flags = simde_mm256_or_si256(flags, out); /* all-ones lanes: their sign bits are set */
            x = simde_mm256_blend_epi32(even, simde_mm256_slli_epi64(odd, 32), 0xAA);
        }
        simde_mm256_storeu_si256((simde__m256i *)(void *)(o + r), x);
    }
    bool ovf = simde_mm256_movemask_ps(simde_mm256_castsi256_ps(flags)) != 0;
    if (!as && !bs) {
        ARITH_I32_ROWS(a[r], b[r]);
    } else {
        ARITH_I32_ROWS(AT(a, as, r), AT(b, bs, r));
    }
    return ovf;
}

bool kern_arith_i32(kern_arith op, const int32_t *a, const sel_t *as, const int32_t *b, const sel_t *bs, uint32_t n,
                    int32_t *o) {
    switch (op) {
    case KERN_ADD: return arith_i32_by(KERN_ADD, a, as, b, bs, n, o);
    case KERN_SUB: return arith_i32_by(KERN_SUB, a, as, b, bs, n, o);
    default: return arith_i32_by(KERN_MUL, a, as, b, bs, n, o);
    }
}

/* SMALLINT: widened to 32-bit lanes, where the exact result is computed, checked against
** SMALLINT's range and narrowed back (a saturating pack, exact for the values in range). */
ALWAYS_INLINE bool arith_i16_by(kern_arith op, const int16_t *a, const sel_t *as, const int16_t *b,
                                const sel_t *bs, uint32_t n, int16_t *o) {
    const simde__m256i lo = simde_mm256_set1_epi32(INT16_MIN), hi = simde_mm256_set1_epi32(INT16_MAX);
    simde__m256i flags = simde_mm256_setzero_si256();
    uint32_t r = 0;
    for (; r + 8 <= n; r += 8) {
        simde__m256i u = load8_i16(a, as, r), v = load8_i16(b, bs, r);
        simde__m256i x = op == KERN_ADD   ? simde_mm256_add_epi32(u, v)
                         : op == KERN_SUB ? simde_mm256_sub_epi32(u, v)
                                          : simde_mm256_mullo_epi32(u, v);
        flags = simde_mm256_or_si256(
            flags, simde_mm256_or_si256(simde_mm256_cmpgt_epi32(lo, x), simde_mm256_cmpgt_epi32(x, hi)));
        /* packs interleaves the 128-bit halves: 64-bit lanes 0 and 2 hold rows 0..3 and 4..7 */
        simde__m256i p = simde_mm256_permute4x64_epi64(simde_mm256_packs_epi32(x, x), 0x08);
        simde_mm_storeu_si128((simde__m128i *)(void *)(o + r), simde_mm256_castsi256_si128(p));
    }
    bool ovf = simde_mm256_movemask_ps(simde_mm256_castsi256_ps(flags)) != 0;
    for (; r < n; r++) {
        int32_t u = AT(a, as, r), v = AT(b, bs, r);
        int32_t x = op == KERN_ADD ? u + v : op == KERN_SUB ? u - v : u * v;
        o[r] = (int16_t)x;
        ovf |= x < INT16_MIN || x > INT16_MAX;
    }
    return ovf;
}

bool kern_arith_i16(kern_arith op, const int16_t *a, const sel_t *as, const int16_t *b, const sel_t *bs, uint32_t n,
                    int16_t *o) {
    switch (op) {
    case KERN_ADD: return arith_i16_by(KERN_ADD, a, as, b, bs, n, o);
    case KERN_SUB: return arith_i16_by(KERN_SUB, a, as, b, bs, n, o);
    default: return arith_i16_by(KERN_MUL, a, as, b, bs, n, o);
    }
}

/* ---- hashes ------------------------------------------------------------------------------- */

/* hash_fmix64 and hash_combine on 4 lanes need 64-bit multiplies. AVX-512DQ has them (vpmullq);
** AVX2 builds them from three 32 x 32-bit multiplies (vpmuludq) of the halves, two shifts and two
** adds. KERN_HASH_SIMD enables the lanes where they measured faster than the scalar loop (one
** imul per multiply); define it to 0 or 1 to choose by hand. bench_kernels --quick on a shared
** 2-core AMD EPYC (Zen 4, load average 7-10 during the runs), M rows/s of BIGINT hashes, the
** kernel against the scalar hash_i64 loop:
**   -march=native (AVX-512DQ)  2,061 against 794 (2.6x)
**   -march=haswell (AVX2)      1,334 against 846 (1.6x)
**   -march=x86-64 (SSE2)         501 against 473 with KERN_HASH_SIMD=1 (1.06x: noise), and DOUBLE
**                              50 against 410 (simde emulates the DOUBLE compares lane by lane):
**                              the scalar loop there. */
#ifndef KERN_HASH_SIMD
#if defined(SIMDE_X86_AVX512DQ_NATIVE) && defined(SIMDE_X86_AVX512VL_NATIVE)
#define KERN_HASH_SIMD 1
#elif defined(SIMDE_X86_AVX2_NATIVE)
#define KERN_HASH_SIMD 1
#else
#define KERN_HASH_SIMD 0
#endif
#endif

#if KERN_HASH_SIMD
/* mul64_by: the low 64 bits of each lane times the constant c. */
ALWAYS_INLINE simde__m256i mul64_by(simde__m256i x, uint64_t c) {
#if defined(SIMDE_X86_AVX512DQ_NATIVE) && defined(SIMDE_X86_AVX512VL_NATIVE)
    return _mm256_mullo_epi64(x, _mm256_set1_epi64x((int64_t)c));
#else
    /* x * c = xl * cl + ((xh * cl + xl * ch) << 32), mod 2^64 */
    const simde__m256i cl = simde_mm256_set1_epi64x((int64_t)(c & 0xffffffff));
    const simde__m256i ch = simde_mm256_set1_epi64x((int64_t)(c >> 32));
    simde__m256i low = simde_mm256_mul_epu32(x, cl);
    simde__m256i cross = simde_mm256_add_epi64(simde_mm256_mul_epu32(simde_mm256_srli_epi64(x, 32), cl),
                                               simde_mm256_mul_epu32(x, ch));
    return simde_mm256_add_epi64(low, simde_mm256_slli_epi64(cross, 32));
#endif
}

ALWAYS_INLINE simde__m256i fmix4(simde__m256i k) {
    k = simde_mm256_xor_si256(k, simde_mm256_srli_epi64(k, 33));
    k = mul64_by(k, 0xff51afd7ed558ccdull);
    k = simde_mm256_xor_si256(k, simde_mm256_srli_epi64(k, 33));
    k = mul64_by(k, 0xc4ceb9fe1a85ec53ull);
    return simde_mm256_xor_si256(k, simde_mm256_srli_epi64(k, 33));
}

ALWAYS_INLINE simde__m256i combine4(simde__m256i a, simde__m256i b) {
    a = simde_mm256_xor_si256(a, simde_mm256_srli_epi64(a, 32));
    return simde_mm256_xor_si256(mul64_by(a, 0xd6e8feb86659fd93ull), b);
}

/* Loads of 4 rows as 64-bit lanes: the integers sign-extended, DOUBLE as hash_f64's bits (-0.0
** as 0.0, every NaN as the one quiet NaN). */
ALWAYS_INLINE simde__m256i hload4_i64(const int64_t *d, const sel_t *sel, uint32_t r) { return load4_i64(d, sel, r); }

ALWAYS_INLINE simde__m256i hload4_i32(const int32_t *d, const sel_t *sel, uint32_t r) {
    if (!sel) return simde_mm256_cvtepi32_epi64(simde_mm_loadu_si128((const simde__m128i *)(const void *)(d + r)));
    return simde_mm256_setr_epi64x(d[sel[r]], d[sel[r + 1]], d[sel[r + 2]], d[sel[r + 3]]);
}

ALWAYS_INLINE simde__m256i hload4_i16(const int16_t *d, const sel_t *sel, uint32_t r) {
    if (!sel) return simde_mm256_cvtepi16_epi64(simde_mm_loadl_epi64((const simde__m128i *)(const void *)(d + r)));
    return simde_mm256_setr_epi64x(d[sel[r]], d[sel[r + 1]], d[sel[r + 2]], d[sel[r + 3]]);
}

ALWAYS_INLINE simde__m256i hload4_f64(const double *d, const sel_t *sel, uint32_t r) {
    simde__m256d x = load4_f64(d, sel, r);
    simde__m256d zero = simde_mm256_cmp_pd(x, simde_mm256_setzero_pd(), SIMDE_CMP_EQ_OQ);
    simde__m256d nan = simde_mm256_cmp_pd(x, x, SIMDE_CMP_UNORD_Q);
    simde__m256i bits = simde_mm256_castpd_si256(simde_mm256_andnot_pd(simde_mm256_or_pd(zero, nan), x));
    return simde_mm256_or_si256(bits, simde_mm256_and_si256(simde_mm256_castpd_si256(nan),
                                                            simde_mm256_set1_epi64x(0x7ff8000000000000)));
}
#endif

#define hash_int(x) hash_i64((int64_t)(x))

/* HASH_KERNEL defines kern_hash_T and kern_hash_combine_T: 4 rows at a time, NULL rows blended to
** HASH_NULL by a lane mask of the rows' validity, and the scalar loop for the rest (the whole
** vector where KERN_HASH_SIMD is 0). */
#if KERN_HASH_SIMD
#define HASH_LANES(T)                                                                            \
    const simde__m256i null = simde_mm256_set1_epi64x((int64_t)HASH_NULL);                       \
    for (; r + 4 <= n; r += 4) {                                                                 \
        simde__m256i x = fmix4(hload4_##T(d, sel, r));                                           \
        if (valid) x = simde_mm256_blendv_epi8(null, x, lanes_valid4(valid, r));                 \
        if (combine) x = combine4(simde_mm256_loadu_si256((const simde__m256i *)(const void *)(h + r)), x); \
        simde_mm256_storeu_si256((simde__m256i *)(void *)(h + r), x);                             \
    }
#else
#define HASH_LANES(T)
#endif

#define HASH_KERNEL(T, CT, SCALAR)                                                               \
    ALWAYS_INLINE void hash_##T##_by(bool combine, const CT *d, const sel_t *sel, const uint64_t *validity, \
                                     uint32_t n, uint64_t *h) {                                  \
        uint64_t rows[VALIDITY_WORDS];                                                           \
        const uint64_t *valid = row_valid(validity, sel, n, rows);                               \
        uint32_t r = 0;                                                                          \
        HASH_LANES(T)                                                                            \
        for (; r < n; r++) {                                                                     \
            uint64_t x = !valid || row_bit(valid, r) ? SCALAR(AT(d, sel, r)) : HASH_NULL;         \
            h[r] = combine ? hash_combine(h[r], x) : x;                                          \
        }                                                                                        \
    }                                                                                            \
    void kern_hash_##T(const CT *d, const sel_t *sel, const uint64_t *validity, uint32_t n, uint64_t *h) { \
        hash_##T##_by(false, d, sel, validity, n, h);                                            \
    }                                                                                            \
    void kern_hash_combine_##T(const CT *d, const sel_t *sel, const uint64_t *validity, uint32_t n, uint64_t *h) { \
        hash_##T##_by(true, d, sel, validity, n, h);                                             \
    }

HASH_KERNEL(i16, int16_t, hash_int)
HASH_KERNEL(i32, int32_t, hash_int)
HASH_KERNEL(i64, int64_t, hash_int)
HASH_KERNEL(f64, double, hash_f64)

/* Strings stay scalar: wyhash multiplies 64 x 64 into 128 bits, which no SIMD instruction set
** here has (AVX-512 multiplies 64 x 64 into the low 64 bits only; building the high half from
** 32-bit products takes four multiplies and the carries, against one mulx). The kernel inlines
** the short-key path (hash_bytes_short: a string of up to 16 bytes, inline or not, in two
** multiplies, the seed's mix folded) and calls hash_bytes for the longer ones. */
static inline uint64_t hash_str(const sstr *s) { return hash_sstr(s); }

ALWAYS_INLINE void hash_str_by(bool combine, const sstr *d, const sel_t *sel, const uint64_t *validity, uint32_t n,
                               uint64_t *h) {
    uint64_t rows[VALIDITY_WORDS];
    const uint64_t *valid = row_valid(validity, sel, n, rows);
    for (uint32_t r = 0; r < n; r++) {
        uint64_t x = !valid || row_bit(valid, r) ? hash_str(&AT(d, sel, r)) : HASH_NULL;
        h[r] = combine ? hash_combine(h[r], x) : x;
    }
}

void kern_hash_str(const sstr *d, const sel_t *sel, const uint64_t *validity, uint32_t n, uint64_t *h) {
    hash_str_by(false, d, sel, validity, n, h);
}

void kern_hash_combine_str(const sstr *d, const sel_t *sel, const uint64_t *validity, uint32_t n, uint64_t *h) {
    hash_str_by(true, d, sel, validity, n, h);
}

/* ---- IN-lists ----------------------------------------------------------------------------- */

/* The orders the lists are sorted in: the integers', and strata's for DOUBLE (NaN last). */
#define ORDER_FN(SUF, T)                                                                         \
    static int order_##SUF(const void *a, const void *b) {                                       \
        T x = *(const T *)a, y = *(const T *)b;                                                  \
        return (x > y) - (x < y);                                                                \
    }
ORDER_FN(i16, int16_t)
ORDER_FN(i32, int32_t)
ORDER_FN(i64, int64_t)

static int order_f64(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (isnan(x) || isnan(y)) ? isnan(x) - isnan(y) : (x > y) - (x < y);
}

/* sort_unique sorts items by order and drops the repeats, returning how many remain. */
static uint32_t sort_unique(void *items, uint32_t n, size_t width, int (*order)(const void *, const void *)) {
    if (n == 0) return 0;
    qsort(items, n, width, order);
    char *b = items;
    uint32_t k = 1;
    for (uint32_t i = 1; i < n; i++)
        if (order(b + i * width, b + (k - 1) * width) != 0) memmove(b + k++ * width, b + i * width, width);
    return k;
}

uint32_t kern_in_prepare_i16(int16_t *items, uint32_t n) { return sort_unique(items, n, sizeof *items, order_i16); }
uint32_t kern_in_prepare_i32(int32_t *items, uint32_t n) { return sort_unique(items, n, sizeof *items, order_i32); }
uint32_t kern_in_prepare_i64(int64_t *items, uint32_t n) { return sort_unique(items, n, sizeof *items, order_i64); }

uint32_t kern_in_prepare_f64(double *items, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        if (isnan(items[i])) items[i] = NAN; /* one NaN, whatever its sign and payload */
        else if (items[i] == 0) items[i] = 0.0; /* -0.0 */
    }
    return sort_unique(items, n, sizeof *items, order_f64);
}

/* in_sorted says whether x is one of the sorted items[0..nitems) (nitems > 0): the search halves
** the range without a branch (the step is multiplied by the comparison, which compilers would
** otherwise turn into a jump that random data mispredicts half the time), ending at the last item
** <= x. */
#define IN_SORTED_FN(SUF, T)                                                                     \
    static inline bool in_sorted_##SUF(const T *items, uint32_t nitems, T x) {                   \
        const T *b = items;                                                                      \
        for (uint32_t len = nitems; len > 1;) {                                                  \
            uint32_t half = len / 2;                                                             \
            b += half * (uint32_t)(b[half] <= x);                                                \
            len -= half;                                                                         \
        }                                                                                        \
        return *b == x;                                                                          \
    }
IN_SORTED_FN(i16, int16_t)
IN_SORTED_FN(i32, int32_t)
IN_SORTED_FN(i64, int64_t)
IN_SORTED_FN(f64, double) /* ordered compares: a NaN x ends at items[0] and equals nothing */

/* A long list whose items span fewer than IN_BITMAP_BITS values is looked up in a bitmap of
** them, offset by the least (built on the stack at each call: 512 bytes): one subtraction, bound
** check and bit test per row, no chain of loads. The offset is computed in 64-bit unsigned
** arithmetic, where x - lo < span + 1 holds exactly for lo <= x <= lo + span. */
#define IN_BITMAP_BITS 4096
static inline bool in_bitmap(const uint64_t *bm, uint64_t off) {
    return (off < IN_BITMAP_BITS) & (bm[(off % IN_BITMAP_BITS) >> 6] >> (off & 63));
}

/* ROW_WORDS writes every word of the mask from FOUND (of row r), one row at a time. */
#define ROW_WORDS(FOUND)                                                                   \
    for (uint32_t w = 0; w < KERN_WORDS(n); w++) {                                               \
        uint32_t end = w * 64 + 64 < n ? w * 64 + 64 : n;                                        \
        uint64_t m = 0;                                                                          \
        for (uint32_t r = w * 64; r < end; r++) m |= (uint64_t)(FOUND) << (r & 63);             \
        mask[w] = m;                                                                             \
    }

/* A short list compares each row with K items (1, 2, 4 or 8; the list padded with its last item,
** which changes nothing): K compares OR-ed per SIMD group, one loop per K. */
ALWAYS_INLINE uint64_t in_lanes8(simde__m256i x, const simde__m256i *iv, int K) {
    simde__m256i eq = simde_mm256_cmpeq_epi32(x, iv[0]);
    for (int k = 1; k < K; k++) eq = simde_mm256_or_si256(eq, simde_mm256_cmpeq_epi32(x, iv[k]));
    return (uint32_t)simde_mm256_movemask_ps(simde_mm256_castsi256_ps(eq));
}

ALWAYS_INLINE uint64_t in_lanes4_i64(simde__m256i x, const simde__m256i *iv, int K) {
    simde__m256i eq = simde_mm256_cmpeq_epi64(x, iv[0]);
    for (int k = 1; k < K; k++) eq = simde_mm256_or_si256(eq, simde_mm256_cmpeq_epi64(x, iv[k]));
    return (uint32_t)simde_mm256_movemask_pd(simde_mm256_castsi256_pd(eq));
}

static inline int in_width(uint32_t nitems) { return nitems == 1 ? 1 : nitems == 2 ? 2 : nitems <= 4 ? 4 : 8; }

#define IN_INT_KERNEL(SUF, T, LANES, LOAD, SET1, LANEFN)                                         \
    ALWAYS_INLINE void in_short_##SUF(int K, const T *d, const sel_t *sel, uint32_t n, const T *items, \
                                      uint32_t nitems, uint64_t *mask) {                        \
        simde__m256i iv[KERN_IN_SHORT];                                                          \
        for (int k = 0; k < K; k++) iv[k] = SET1(items[(uint32_t)k < nitems ? (uint32_t)k : nitems - 1]); \
        const uint64_t invert = 0;                                                               \
        CMP_WORDS(LANES, LANEFN(LOAD(d, sel, w * 64 + j), iv, K));                               \
    }                                                                                            \
    void kern_in_##SUF(const T *d, const sel_t *sel, uint32_t n, const T *items, uint32_t nitems, uint64_t *mask) { \
        if (nitems == 0) {                                                                       \
            memset(mask, 0, KERN_WORDS(n) * sizeof *mask);                                       \
            return;                                                                              \
        }                                                                                        \
        if (nitems > KERN_IN_SHORT) {                                                            \
            const uint64_t lo = (uint64_t)(int64_t)items[0];                                      \
            if ((uint64_t)(int64_t)items[nitems - 1] - lo < IN_BITMAP_BITS) {                     \
                uint64_t bm[IN_BITMAP_BITS / 64] = {0};                                          \
                for (uint32_t k = 0; k < nitems; k++) {                                          \
                    uint64_t off = (uint64_t)(int64_t)items[k] - lo;                             \
                    bm[off >> 6] |= (uint64_t)1 << (off & 63);                                   \
                }                                                                                \
                ROW_WORDS(in_bitmap(bm, (uint64_t)(int64_t)AT(d, sel, r) - lo));                 \
            } else {                                                                             \
                ROW_WORDS(in_sorted_##SUF(items, nitems, AT(d, sel, r)));                        \
            }                                                                                    \
            return;                                                                              \
        }                                                                                        \
        switch (in_width(nitems)) {                                                              \
        case 1: in_short_##SUF(1, d, sel, n, items, nitems, mask); break;                        \
        case 2: in_short_##SUF(2, d, sel, n, items, nitems, mask); break;                        \
        case 4: in_short_##SUF(4, d, sel, n, items, nitems, mask); break;                        \
        default: in_short_##SUF(8, d, sel, n, items, nitems, mask); break;                       \
        }                                                                                        \
        MASK_TAIL(n / 64 * 64, in_sorted_##SUF(items, nitems, AT(d, sel, r)));                   \
    }

IN_INT_KERNEL(i16, int16_t, 8, load8_i16, set1_i16, in_lanes8)
IN_INT_KERNEL(i32, int32_t, 8, load8_i32, set1_i32, in_lanes8)
IN_INT_KERNEL(i64, int64_t, 4, load4_i64, set1_i64, in_lanes4_i64)

/* DOUBLE: ordered equality (-0.0 = 0.0; a NaN item equals nothing that way), and NaN rows match
** when the list holds the NaN (last, after kern_in_prepare_f64). */
ALWAYS_INLINE void in_short_f64(int K, const double *d, const sel_t *sel, uint32_t n, const double *items,
                                uint32_t nitems, uint64_t *mask) {
    simde__m256d iv[KERN_IN_SHORT];
    for (int k = 0; k < K; k++) iv[k] = simde_mm256_set1_pd(items[(uint32_t)k < nitems ? (uint32_t)k : nitems - 1]);
    const simde__m256d nan_item = simde_mm256_castsi256_pd(simde_mm256_set1_epi64x(isnan(items[nitems - 1]) ? -1 : 0));
    for (uint32_t w = 0; w < n / 64; w++) {
        uint64_t m = 0;
        for (uint32_t j = 0; j < 64; j += 4) {
            simde__m256d x = load4_f64(d, sel, w * 64 + j);
            simde__m256d eq = simde_mm256_and_pd(simde_mm256_cmp_pd(x, x, SIMDE_CMP_UNORD_Q), nan_item);
            for (int k = 0; k < K; k++) eq = simde_mm256_or_pd(eq, simde_mm256_cmp_pd(x, iv[k], SIMDE_CMP_EQ_OQ));
            m |= (uint64_t)(uint32_t)simde_mm256_movemask_pd(eq) << j;
        }
        mask[w] = m;
    }
}

void kern_in_f64(const double *d, const sel_t *sel, uint32_t n, const double *items, uint32_t nitems, uint64_t *mask) {
    if (nitems == 0) {
        memset(mask, 0, KERN_WORDS(n) * sizeof *mask);
        return;
    }
    bool nan = isnan(items[nitems - 1]);
    uint32_t numbers = nitems - nan;
#define IN_F64(x) ((numbers && in_sorted_f64(items, numbers, (x))) || (nan && isnan(x)))
    if (nitems > KERN_IN_SHORT) {
        ROW_WORDS(IN_F64(AT(d, sel, r)));
        return;
    }
    switch (in_width(nitems)) {
    case 1: in_short_f64(1, d, sel, n, items, nitems, mask); break;
    case 2: in_short_f64(2, d, sel, n, items, nitems, mask); break;
    case 4: in_short_f64(4, d, sel, n, items, nitems, mask); break;
    default: in_short_f64(8, d, sel, n, items, nitems, mask); break;
    }
    MASK_TAIL(n / 64 * 64, IN_F64(AT(d, sel, r)));
#undef IN_F64
}

/* ---- ranges (BETWEEN) --------------------------------------------------------------------- */

/* The integers: a row is outside when lo > x or x > hi, two compares OR-ed; the word inverted. */
ALWAYS_INLINE uint64_t outside_lanes8(simde__m256i x, simde__m256i lo, simde__m256i hi) {
    simde__m256i m = simde_mm256_or_si256(simde_mm256_cmpgt_epi32(lo, x), simde_mm256_cmpgt_epi32(x, hi));
    return (uint32_t)simde_mm256_movemask_ps(simde_mm256_castsi256_ps(m));
}

ALWAYS_INLINE uint64_t outside_lanes4_i64(simde__m256i x, simde__m256i lo, simde__m256i hi) {
    simde__m256i m = simde_mm256_or_si256(simde_mm256_cmpgt_epi64(lo, x), simde_mm256_cmpgt_epi64(x, hi));
    return (uint32_t)simde_mm256_movemask_pd(simde_mm256_castsi256_pd(m));
}

#define BETWEEN_INT_KERNEL(SUF, T, LANES, LOAD, SET1, LANEFN)                                    \
    void kern_between_##SUF(const T *d, const sel_t *sel, uint32_t n, T lo, T hi, uint64_t *mask) { \
        simde__m256i lv = SET1(lo), hv = SET1(hi);                                               \
        const uint64_t invert = ~(uint64_t)0;                                                    \
        CMP_WORDS(LANES, LANEFN(LOAD(d, sel, w * 64 + j), lv, hv));                              \
        MASK_TAIL(n / 64 * 64, lo <= AT(d, sel, r) && AT(d, sel, r) <= hi);                      \
    }

BETWEEN_INT_KERNEL(i16, int16_t, 8, load8_i16, set1_i16, outside_lanes8)
BETWEEN_INT_KERNEL(i32, int32_t, 8, load8_i32, set1_i32, outside_lanes8)
BETWEEN_INT_KERNEL(i64, int64_t, 4, load4_i64, set1_i64, outside_lanes4_i64)

/* DOUBLE: x >= lo holds for NaN rows (unordered-true) and x <= hi does not (ordered), as in
** kern_cmp_f64; a NaN bound leaves one comparison: x >= lo with hi NaN, x is NaN with both NaN,
** and nothing with lo alone NaN (lo above hi). */
void kern_between_f64(const double *d, const sel_t *sel, uint32_t n, double lo, double hi, uint64_t *mask) {
    if (isnan(lo) || isnan(hi)) {
        if (!isnan(lo)) kern_cmp_f64(KERN_GE, d, sel, n, lo, mask);
        else if (isnan(hi)) kern_cmp_f64(KERN_EQ, d, sel, n, lo, mask);
        else memset(mask, 0, KERN_WORDS(n) * sizeof *mask);
        return;
    }
    simde__m256d lv = simde_mm256_set1_pd(lo), hv = simde_mm256_set1_pd(hi);
    for (uint32_t w = 0; w < n / 64; w++) {
        uint64_t m = 0;
        for (uint32_t j = 0; j < 64; j += 4) {
            simde__m256d x = load4_f64(d, sel, w * 64 + j);
            simde__m256d in = simde_mm256_and_pd(simde_mm256_cmp_pd(x, lv, SIMDE_CMP_NLT_UQ),
                                                 simde_mm256_cmp_pd(x, hv, SIMDE_CMP_LE_OQ));
            m |= (uint64_t)(uint32_t)simde_mm256_movemask_pd(in) << j;
        }
        mask[w] = m;
    }
    MASK_TAIL(n / 64 * 64, f64_holds(KERN_GE, AT(d, sel, r), lo) && f64_holds(KERN_LE, AT(d, sel, r), hi));
}

/* ---- string prefixes ---------------------------------------------------------------------- */

/* An sstr's first 4 bytes sit at one place whether it is inline or not (inl[0..4) or the long
** string's prefix): a prefix of up to 4 bytes is a masked 32-bit compare and a length check. Up to
** SSTR_INLINE bytes, the next 8 are an inline string's other inline bytes or a long string's bytes
** 4..11 (it has more than SSTR_INLINE): one masked 64-bit compare more, read through the pointer
** only for a long string whose first 4 bytes matched. No branch in either case; a longer prefix
** compares the rest with memcmp for the rows that pass the first 4 bytes. */
static inline uint32_t head4(const sstr *s) {
    uint32_t h;
    memcpy(&h, s->u.inl, 4);
    return h;
}

static inline uint64_t next8(const char *p) {
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

void kern_prefix(const sstr *d, const sel_t *sel, uint32_t n, const char *p, uint32_t plen, uint64_t *mask) {
    static const uint8_t ones[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    uint32_t head = plen < 4 ? plen : 4, rest = plen < 4 ? 0 : plen - 4 < 8 ? plen - 4 : 8, want = 0, keep;
    uint64_t want8 = 0, keep8;
    memcpy(&want, p, head);
    memcpy(&keep, ones + 8 - head, 4); /* bytes 0 .. head-1 set, in memory order */
    memcpy(&want8, p + head, rest);
    memcpy(&keep8, ones + 8 - rest, 8);
#define HEAD_MATCHES(s) (((s)->len >= plen) & (((head4(s) ^ want) & keep) == 0)) /* &, not &&: no jump */
    if (plen <= 4) {
        ROW_WORDS(HEAD_MATCHES(&AT(d, sel, r)));
        return;
    }
    if (plen <= SSTR_INLINE) {
        for (uint32_t w = 0; w < KERN_WORDS(n); w++) {
            uint32_t end = w * 64 + 64 < n ? w * 64 + 64 : n;
            uint64_t m = 0;
            for (uint32_t r = w * 64; r < end; r++) {
                const sstr *s = &AT(d, sel, r);
                bool ok = HEAD_MATCHES(s);
                /* the address chosen by a mask, not a jump that the strings' mix would mispredict */
                uintptr_t far = -(uintptr_t)((s->len > SSTR_INLINE) & ok);
                uintptr_t next = ((uintptr_t)(s->u.ext.ptr + 4) & far) | ((uintptr_t)(s->u.inl + 4) & ~far);
                m |= (uint64_t)(ok & (((next8((const char *)next) ^ want8) & keep8) == 0)) << (r & 63);
            }
            mask[w] = m;
        }
        return;
    }
    for (uint32_t w = 0; w < KERN_WORDS(n); w++) {
        uint32_t end = w * 64 + 64 < n ? w * 64 + 64 : n;
        uint64_t m = 0;
        for (uint32_t r = w * 64; r < end; r++) {
            const sstr *s = &AT(d, sel, r);
            if (HEAD_MATCHES(s) && memcmp(sstr_data(s) + 4, p + 4, plen - 4) == 0) m |= (uint64_t)1 << (r & 63);
        }
        mask[w] = m;
    }
#undef HEAD_MATCHES
}

/* ---- dictionaries and masks --------------------------------------------------------------- */

#if defined(SIMDE_X86_AVX2_NATIVE)
/* dict_lanes8 is the bit mask of 8 codes' entries, the entries' 32-bit words broadcast in
** ev[0..K): word k shifted left by 32 k + 31 - code has entry code's bit in its sign bit when
** 32 k <= code < 32 k + 32, and is 0 otherwise (a shift count of 32 or more, a negative one read
** unsigned, shifts every bit out), so the words OR together. */
ALWAYS_INLINE uint64_t dict_lanes8(simde__m256i c, const simde__m256i *ev, const simde__m256i *top, int K) {
    simde__m256i acc = simde_mm256_sllv_epi32(ev[0], simde_mm256_sub_epi32(top[0], c));
    for (int k = 1; k < K; k++)
        acc = simde_mm256_or_si256(acc, simde_mm256_sllv_epi32(ev[k], simde_mm256_sub_epi32(top[k], c)));
    return (uint32_t)simde_mm256_movemask_ps(simde_mm256_castsi256_ps(acc));
}

/* dict_words_by fills the mask's whole words from K (1, 2, 4 or 8: one loop each) 32-bit words of
** entries, the words past the dictionary's zero; with check it returns the greatest code, else 0. */
ALWAYS_INLINE uint32_t dict_words_by(int K, bool check, const uint64_t *entries, uint32_t nwords,
                                     const uint32_t *codes, uint32_t n, uint64_t *mask) {
    simde__m256i ev[8], top[8];
    for (int k = 0; k < K; k++) {
        uint32_t e = (uint32_t)k < nwords ? (uint32_t)(entries[k >> 1] >> (32 * (k & 1))) : 0;
        ev[k] = simde_mm256_set1_epi32((int32_t)e);
        top[k] = simde_mm256_set1_epi32(32 * k + 31);
    }
    simde__m256i hi = simde_mm256_setzero_si256();
    for (uint32_t w = 0; w < n / 64; w++) {
        uint64_t m = 0;
        for (uint32_t j = 0; j < 64; j += 8) {
            simde__m256i c = simde_mm256_loadu_si256((const simde__m256i *)(const void *)(codes + w * 64 + j));
            if (check) hi = simde_mm256_max_epu32(hi, c);
            m |= dict_lanes8(c, ev, top, K) << j;
        }
        mask[w] = m;
    }
    uint32_t l[8], top_code = 0;
    simde_mm256_storeu_si256((simde__m256i *)(void *)l, hi);
    for (int k = 0; k < 8; k++) top_code = l[k] > top_code ? l[k] : top_code;
    return top_code;
}
#endif

/* dict_mask is kern_dict_mask, and with check kern_dict_mask_checked: a code past the dictionary
** reads no entry (the scalar loop looks up entry 0 in its place) and makes it return false. */
ALWAYS_INLINE bool dict_mask(bool check, const uint64_t *entries, uint32_t nentries, const uint32_t *codes, uint32_t n,
                             uint64_t *mask) {
    if (check && nentries == 0) return n == 0; /* every code is past it, and there is no entry to read */
    uint32_t from = 0, top_code = 0;
#if defined(SIMDE_X86_AVX2_NATIVE)
    if (nentries > 0 && nentries <= KERN_DICT_LANES) {
        uint32_t nwords = (nentries + 31) / 32;
        if (nwords == 1) top_code = dict_words_by(1, check, entries, nwords, codes, n, mask);
        else if (nwords == 2) top_code = dict_words_by(2, check, entries, nwords, codes, n, mask);
        else if (nwords <= 4) top_code = dict_words_by(4, check, entries, nwords, codes, n, mask);
        else top_code = dict_words_by(8, check, entries, nwords, codes, n, mask);
        from = n / 64 * 64;
    }
#endif
    uint32_t bad = check && from > 0 && top_code >= nentries;
    for (uint32_t w = from / 64; w < KERN_WORDS(n); w++) {
        uint32_t end = w * 64 + 64 < n ? w * 64 + 64 : n;
        uint64_t m = 0;
        for (uint32_t r = w * 64; r < end; r++) {
            uint32_t c = codes[r];
            if (check) {
                bad |= c >= nentries;
                c = c < nentries ? c : 0;
            }
            m |= (uint64_t)row_bit(entries, c) << (r & 63);
        }
        mask[w] = m;
    }
    return !bad;
}

void kern_dict_mask(const uint64_t *entries, uint32_t nentries, const sel_t *codes, uint32_t n, uint64_t *mask) {
    dict_mask(false, entries, nentries, codes, n, mask);
}

bool kern_dict_mask_checked(const uint64_t *entries, uint32_t nentries, const uint32_t *codes, uint32_t n,
                            uint64_t *mask) {
    return dict_mask(true, entries, nentries, codes, n, mask);
}

void kern_mask_not(uint64_t *mask, uint32_t n) {
    for (uint32_t w = 0; w < n / 64; w++) mask[w] = ~mask[w];
    if (n % 64) mask[n / 64] = ~mask[n / 64] & (((uint64_t)1 << (n % 64)) - 1);
}
