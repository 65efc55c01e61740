/*
** test_kernel.c -- the SIMD kernels (vector/kernel.h, vector/kernel.c) against scalar references
** written here, on whatever instruction set the build targets (AVX-512 at -march=native on such a
** machine, SSE2 pairs under PORTABLE=1, AVX2 when compiled by hand with -march=haswell). Row r's
** value is d[sel[r]] (d[r] with sel NULL); a mask's row r is bit r % 64 of word r / 64.
**
**   kern_cmp_T       the six operators for SMALLINT, INTEGER, BIGINT and DOUBLE, n from 0 to
**                    VECTOR_SIZE (the listed sizes sit around every 4-, 8-, 16- and 64-row
**                    boundary), flat (aligned and one value off) and through random, repeated,
**                    descending and misaligned selections into a VECTOR_SIZE-value array; data
**                    and constants include each type's extremes, 0 and -1, and for DOUBLE quiet,
**                    negative and signalling NaNs, -0.0, infinities, DBL_MAX and denormals, in
**                    strata's order (NaN = NaN and above everything, -0.0 = 0.0); the whole mask
**                    is checked: bits at and past n are zero and no word past KERN_WORDS(n) is
**                    written.
**   kern_cmp2_T      the same four types column against column (row r of a op row r of b), the six
**                    operators, every n, over pairs of the modes above that put each mode on each
**                    side; values drawn independently, paired (about half the rows equal, for
**                    DOUBLE in strata's order: NaNs of other sign or payload, -0.0 against 0.0;
**                    others one apart, or the next DOUBLE up or down) and every edge value against
**                    every edge value (the type's extremes, 0, +-1 and the values around the
**                    boundaries of its halves, bytes for SMALLINT; for DOUBLE kern_cmp_f64's
**                    edge values on either side or both); each column against itself (EQ for
**                    every row); the whole mask checked as for kern_cmp_T, and flat operands once
**                    more in exactly sized heap buffers; the NaN pair rules also stated outright,
**                    over whole SIMD words and the scalar tail.
**   kern_mask_valid  random validity bitmaps of several densities, flat and through selections
**                    (a bit is looked up at sel[r]); a NULL bitmap changes nothing.
**   kern_mask_to_sel masks of every density and shape (empty, full, sparse, dense, alternating,
**                    runs, first or last row only), with and without stray bits past n: the result
**                    is the ascending list of set rows and nothing is written at or past out[n]
**                    (canaries, and exactly sized heap buffers for the sanitizer build).
**   kern_sum_T       with and without selection and NULLs (NULL slots hold values that would
**                    change the sum: extremes, NaN, infinities), the count; BIGINT sums of up to
**                    2048 values near INT64_MAX or INT64_MIN exact against __int128; DOUBLE sums
**                    exact for small integers and quarters, within 1e-12 of the sum of magnitudes
**                    for random doubles; infinities and NaNs among the valid rows.
**   kern_minmax_T    SMALLINT, INTEGER, BIGINT over every n and selection mode, with no bitmap,
**                    all valid, some or most NULL and all NULL (returns 0, *min and *max left as
**                    they were); NULL slots hold the type's extremes, which must not show; data of
**                    the type's MIN and MAX, and each planted at the first, middle, last row and
**                    in the tails after the 4- and 8-row groups, valid, NULL or the only valid row;
**                    the count returned is the number of valid rows.
**   kern_group_*     kern_group_count and kern_group_sum_T (SMALLINT, INTEGER, BIGINT, DOUBLE)
**                    for 1 to KERN_GROUPS_MAX groups (around KERN_GROUP_LANES), every n, flat and
**                    through selections, gids random, all in one group, in sorted runs,
**                    alternating and cycling; acc pre-filled (it is added to), groups absent
**                    from gids unchanged, nothing written past acc[ngroups - 1]; BIGINT sums of
**                    values up to +-(2^52 - 1) exact against __int128; kern_group_sum_i64 false
**                    with acc unchanged for one value of 2^52, -2^52 - 1, INT64_MIN or INT64_MAX
**                    at the first, middle or last row or in the tail after the last full group of
**                    KERN_GROUP_LANES rows, true for -2^52; DOUBLE sums of quarters exact.
**   kern_arith_f64   ADD/SUB/MUL/DIV bit for bit (or both NaN) against the scalar operator; the
**                    flag false on ordinary data and true exactly when a planted row (at the
**                    start, middle, end, in the scalar tail) overflows, underflows to zero, is
**                    zero (MUL, DIV) or divides by zero, and still false for rows giving NaN;
**                    data full of edge values against the flag's definition; selections on either
**                    operand.
**   kern_arith_i64   ADD/SUB/MUL within INT64, INT32 and small bounds: flag false and results
**                    exact on in-range data and on rows landing exactly on a bound, true with one
**                    overflowing or out-of-range row planted anywhere; random data against an
**                    __int128 reference, also for one-sided bounds.
**   kern_dec_*       kern_dec_mul, kern_dec_add and kern_dec_sub for lim 10, 10^9 and 10^18 and
**                    (add, sub) fa, fb each of 1, 10, 100 and 10^9, every n, selections on either
**                    operand: true, every result exact against __int128 and nothing written past
**                    o[n - 1], on in-range data and with a row planted (first, middle, last row of
**                    the last full 4-row group, first row of the scalar tail, last) holding
**                    INT32_MIN or INT32_MAX or giving +-(lim - 1); false with a planted operand of
**                    INT32_MIN - 1, INT32_MAX + 1, +-2^32, INT64_MIN or INT64_MAX (low halves that
**                    look in range) or a result of +-lim; false for a factor of 2^31 or more, for
**                    every n (0 too). Random data, in range or with wild rows: true exactly when
**                    the reference finds every operand within int32 and every |result| below lim.
**   kern_to_f64_T    INTEGER and BIGINT (large values rounding) to DOUBLE, flat and selected.
**   kern_arith_i32/16 ADD/SUB/MUL: flag false and results exact on in-range data, true with one
**                    row out of INTEGER's (SMALLINT's) range planted anywhere (SIMD groups and
**                    tail), false for rows landing exactly on a bound; wild data (small values,
**                    the type's edges, anything) against the exact int64 reference; every pair
**                    of edge values (extremes, +-1, 0, the square roots' neighbours) in a SIMD
**                    group and in the tail; nothing written past o[n - 1].
**   kern_hash_T      kern_hash_T and kern_hash_combine_T for SMALLINT, INTEGER, BIGINT, DOUBLE
**                    and strings against core/hash.h row by row (hash_i64, hash_f64, hash_sstr,
**                    hash_combine; HASH_NULL for NULL rows) over every validity choice, selection
**                    mode and n, nothing written past h[n - 1]; the types' extremes, DOUBLE's
**                    specials (-0.0 hashes as 0.0, every NaN alike), strings of every length 0
**                    to 63 (empty, inline, pointed to); equal values of every width alike;
**                    hash_bytes_short against hash_bytes; two columns combined in either order.
**   kern_sel         NULL for a flat vector, the vector's own selection otherwise.
**   kern_in_T        SMALLINT, INTEGER, BIGINT and DOUBLE lists of 0 to 200 items (every short
**                    width around KERN_IN_SHORT, then the bitmap or the sorted search), drawn with
**                    repeats and unsorted from the data's edges and pool values or within 300
**                    values: kern_in_prepare_T keeps them
**                    sorted, unique and complete, and every mode and n matches membership in the
**                    original list; every SMALLINT value against one list; DOUBLE lists of edge
**                    values, with -0.0 matching 0.0 and a NaN item any NaN row, also stated
**                    outright for short and long lists. Lists spanning 4095 and 4096 values (the
**                    bitmap's edge) at the bottom and top of each integer type, rows around both
**                    ends and anywhere.
**   kern_between_T   the four types with bounds from every pair of edge, pool and data values
**                    (equal and reversed bounds, the whole range; NaN bounds for DOUBLE) against
**                    lo <= x <= hi in strata's order.
**   kern_prefix      strings of 0 to 30 bytes over three letters, inline and long, with garbage in
**                    the inline bytes past their length, against prefixes of 0 to 20 bytes taken
**                    from the data or random; the empty string, 4- and SSTR_INLINE-byte prefixes
**                    against strings around those lengths, a long string differing after byte 4.
**   kern_dict_mask   dictionaries of 1 to 5000 entries (each word count of the register lookup and
**                    past it), random entry bits and codes, every n; the checked variant against
**                    one code past the dictionary at the first, last or any row, and no dictionary.
**   kern_mask_not    random masks, every n: the bits past n stay zero, nothing past the mask.
**
** The data come from a fixed-seed xorshift64* generator; a failure names the kernel, operator,
** n, selection mode and row (and for the two-column comparisons both sides' modes, the data, the
** seed and both values; for the grouped sums ngroups, how gids spread and the group; for
** the DECIMAL kernels fa, fb, lim, the seed and the planted row).
*/
#include <criterion/criterion.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../vector/kernel.h"
#include "../../vector/vector_internal.h"
#include "hash.h"

/* ---- helpers ------------------------------------------------------------------------------- */

/* A small reproducible generator (xorshift64*). */
static uint64_t rng_state;
static void rng_seed(uint64_t s) { rng_state = s * 0x9E3779B97F4A7C15ull + 1; }
static uint64_t rnd64(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}
static uint32_t rnd(uint32_t below) { return (uint32_t)((rnd64() >> 32) % below); }

/* The row counts: the ones every kernel must handle, and more around the 16-row (AVX-512) and
** 64-row boundaries. */
static const uint32_t NS[] = {0,  1,  3,  4,   7,   8,   15,  16,   17,   31,   32,   33,
                              63, 64, 65, 100, 127, 128, 129, 1000, 2040, 2046, 2047, 2048};
#define NNS (sizeof NS / sizeof NS[0])

/* How a kernel's operand is read. The "+1" modes start one element into their array (unaligned
** loads of data or selection). */
enum { M_FLAT, M_FLAT_OFF, M_RANDOM, M_REPEAT, M_DESC, M_RANDOM_OFF, NMODES };
static const char *const MODE[NMODES] = {"flat",         "flat data+1",    "random sel",
                                         "repeated sel", "descending sel", "random sel+1"};

/* make_sel fills buf (VECTOR_SIZE + 1 entries) for mode and returns the selection to pass: NULL
** for the flat modes; random indexes, runs of one repeated index, or VECTOR_SIZE-1 down to 0. */
static const sel_t *make_sel(int mode, sel_t *buf) {
    switch (mode) {
    case M_RANDOM:
    case M_RANDOM_OFF:
        for (uint32_t r = 0; r <= VECTOR_SIZE; r++)
            buf[r] = rnd(VECTOR_SIZE);
        return buf + (mode == M_RANDOM_OFF);
    case M_REPEAT:
        for (uint32_t r = 0; r <= VECTOR_SIZE;) {
            sel_t v = rnd(VECTOR_SIZE);
            for (uint32_t k = 1 + rnd(12); k > 0 && r <= VECTOR_SIZE; k--)
                buf[r++] = v;
        }
        return buf;
    case M_DESC:
        for (uint32_t r = 0; r < VECTOR_SIZE; r++)
            buf[r] = VECTOR_SIZE - 1 - r;
        buf[VECTOR_SIZE] = 0;
        return buf;
    default: return NULL;
    }
}
/* data_off is where a mode's values start in their VECTOR_SIZE + 1 element array. */
static uint32_t data_off(int mode) { return mode == M_FLAT_OFF; }

#define AT(d, sel, r) ((d)[(sel) ? (sel)[r] : (r)])
#define IDX(sel, r) ((sel) ? (sel)[r] : (r))

static bool bit_of(const uint64_t *m, uint32_t i) { return (m[i >> 6] >> (i & 63)) & 1; }
static void set_bit(uint64_t *m, uint32_t i) { m[i >> 6] |= (uint64_t)1 << (i & 63); }

static double from_bits(uint64_t b) {
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}
static uint64_t bits_of(double x) {
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}
/* same_f64: the same bits, or both NaN (whose payload a SIMD and a scalar operation may set
** differently). */
static bool same_f64(double x, double y) { return bits_of(x) == bits_of(y) || (isnan(x) && isnan(y)); }

static const char *i128_str(__int128 x, char *buf) {
    char tmp[48];
    int k = 0;
    unsigned __int128 u = x < 0 ? -(unsigned __int128)x : (unsigned __int128)x;
    do {
        tmp[k++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    int j = 0;
    if (x < 0) buf[j++] = '-';
    while (k)
        buf[j++] = tmp[--k];
    buf[j] = 0;
    return buf;
}

/* ---- masks --------------------------------------------------------------------------------- */

/* A mask buffer has GUARD words past the VALIDITY_WORDS a kernel may write, and every word past
** KERN_WORDS(n) starts as CANARY64: a kernel must not touch them. */
#define GUARD 4
#define MASKBUF (VALIDITY_WORDS + GUARD)
#define CANARY64 0xA5C3F00F5A3CC3A5ull
#define CANARY32 0xDEADBEEFu

/* load_mask puts the first KERN_WORDS(n) words of in into buf and canaries after them. */
static void load_mask(uint64_t *buf, const uint64_t *in, uint32_t n) {
    for (uint32_t w = 0; w < MASKBUF; w++)
        buf[w] = w < KERN_WORDS(n) ? in[w] : CANARY64;
}

/* mask_diff returns -1 when got's words 0..KERN_WORDS(n)-1 equal want's (whose bits past n are 0)
** and the words after them still hold CANARY64; else the first row whose bit differs (a row >= n:
** a bit that should be 0), or -2 - w for an overwritten word w past KERN_WORDS(n). */
static int64_t mask_diff(const uint64_t *got, const uint64_t *want, uint32_t n) {
    uint32_t words = KERN_WORDS(n);
    for (uint32_t w = 0; w < words; w++)
        if (got[w] != want[w]) return (int64_t)w * 64 + __builtin_ctzll(got[w] ^ want[w]);
    for (uint32_t w = words; w < MASKBUF; w++)
        if (got[w] != CANARY64) return -2 - (int64_t)w;
    return -1;
}

/* describe explains mask_diff's bad result (value: how the row's value prints, or ""). */
static const char *describe(int64_t bad, const uint64_t *got, const uint64_t *want, uint32_t n,
                            const char *value) {
    static char buf[256];
    if (bad >= (int64_t)n)
        snprintf(buf, sizeof buf, "bit %lld (at or past n = %u) is set in word %lld: 0x%016llx",
                 (long long)bad, n, (long long)(bad / 64), (unsigned long long)got[bad / 64]);
    else if (bad >= 0)
        snprintf(buf, sizeof buf, "row %lld (%s): bit %d, want %d", (long long)bad, value,
                 (int)bit_of(got, (uint32_t)bad), (int)bit_of(want, (uint32_t)bad));
    else
        snprintf(buf, sizeof buf, "word %lld past KERN_WORDS(%u) = %u was written: 0x%016llx",
                 (long long)(-2 - bad), n, KERN_WORDS(n), (unsigned long long)got[-2 - bad]);
    return buf;
}

/* ---- comparisons --------------------------------------------------------------------------- */

static const char *const OP[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};

/* holds: whether a row that compares as cmp (<0, 0, >0) with the constant passes op. */
static bool holds(kern_cmp op, int cmp) {
    switch (op) {
    case KERN_EQ: return cmp == 0;
    case KERN_NE: return cmp != 0;
    case KERN_LT: return cmp < 0;
    case KERN_LE: return cmp <= 0;
    case KERN_GT: return cmp > 0;
    default: return cmp >= 0;
    }
}

#define NPOOL 8

/* gen_any is any value of [tmin, tmax]. */
static int64_t gen_any(int64_t tmin, int64_t tmax) {
    if (tmin == INT64_MIN && tmax == INT64_MAX) return (int64_t)rnd64();
    uint64_t span = (uint64_t)(tmax - tmin) + 1;
    return tmin + (int64_t)(rnd64() % span);
}

/* gen_int draws an integer: one of the type's edges, a pool value (repeated, so EQ holds for
** many rows), a small number, or any value of the type; dups: only edges and pool values. */
static int64_t gen_int(const int64_t *edges, uint32_t nedges, const int64_t *pool, int64_t tmin, int64_t tmax,
                       bool dups) {
    switch (rnd(dups ? 2 : 4)) {
    case 0: return edges[rnd(nedges)];
    case 1: return pool[rnd(NPOOL)];
    case 2: return (int64_t)rnd(21) - 10;
    default: return gen_any(tmin, tmax);
    }
}

/* check_cmp_T runs kern_cmp_T over every mode, n, operator and constant (the type's edges,
** values from the data, a random one) and compares the mask with the scalar reference. */
#define DEFINE_CMP_INT(SUF, T, TMIN, TMAX)                                                                   \
    static void check_cmp_##SUF(uint64_t seed, bool dups) {                                                  \
        static T base[VECTOR_SIZE + 1];                                                                      \
        static sel_t selbuf[VECTOR_SIZE + 1];                                                                \
        static const int64_t edges[] = {TMIN, (int64_t)TMIN + 1, -1, 0, 1, (int64_t)TMAX - 1, TMAX};         \
        enum { NEDGE = sizeof edges / sizeof edges[0] };                                                     \
        int64_t pool[NPOOL];                                                                                 \
        rng_seed(seed);                                                                                      \
        for (int i = 0; i < NPOOL; i++)                                                                      \
            pool[i] = gen_any(TMIN, TMAX);                                                                   \
        for (uint32_t i = 0; i <= VECTOR_SIZE; i++)                                                          \
            base[i] = (T)gen_int(edges, NEDGE, pool, TMIN, TMAX, dups);                                      \
        T consts[NEDGE + 5];                                                                                 \
        int nc = 0;                                                                                          \
        for (int i = 0; i < NEDGE; i++)                                                                      \
            consts[nc++] = (T)edges[i];                                                                      \
        for (int i = 0; i < 4; i++)                                                                          \
            consts[nc++] = (T)pool[i];                                                                       \
        consts[nc++] = (T)gen_any(TMIN, TMAX);                                                               \
        uint64_t want[VALIDITY_WORDS], got[MASKBUF];                                                         \
        for (int mode = 0; mode < NMODES; mode++) {                                                          \
            const sel_t *sel = make_sel(mode, selbuf);                                                       \
            const T *d = base + data_off(mode);                                                              \
            for (uint32_t ni = 0; ni < NNS; ni++) {                                                          \
                uint32_t n = NS[ni];                                                                         \
                for (int op = KERN_EQ; op <= KERN_GE; op++)                                                  \
                    for (int ci = 0; ci < nc; ci++) {                                                        \
                        T c = consts[ci];                                                                    \
                        memset(want, 0, sizeof want);                                                        \
                        for (uint32_t r = 0; r < n; r++) {                                                   \
                            T u = AT(d, sel, r);                                                             \
                            if (holds((kern_cmp)op, (u > c) - (u < c))) set_bit(want, r);                    \
                        }                                                                                    \
                        for (uint32_t w = 0; w < MASKBUF; w++)                                               \
                            got[w] = CANARY64;                                                               \
                        kern_cmp_##SUF((kern_cmp)op, d, sel, n, c, got);                                     \
                        int64_t bad = mask_diff(got, want, n);                                               \
                        if (bad != -1) {                                                                     \
                            char value[64] = "";                                                             \
                            if (bad >= 0 && bad < (int64_t)n)                                                \
                                snprintf(value, sizeof value, "index %u, value %lld",                        \
                                         IDX(sel, (uint32_t)bad), (long long)AT(d, sel, (uint32_t)bad));     \
                            cr_assert_fail("kern_cmp_" #SUF " %s c=%lld n=%u %s (seed %llu): %s", OP[op],    \
                                           (long long)c, n, MODE[mode], (unsigned long long)seed,            \
                                           describe(bad, got, want, n, value));                              \
                        }                                                                                    \
                    }                                                                                        \
            }                                                                                                \
        }                                                                                                    \
    }

DEFINE_CMP_INT(i16, int16_t, INT16_MIN, INT16_MAX)
DEFINE_CMP_INT(i32, int32_t, INT32_MIN, INT32_MAX)
DEFINE_CMP_INT(i64, int64_t, INT64_MIN, INT64_MAX)

Test(kernel, cmp_i16) {
    check_cmp_i16(1, false);
    check_cmp_i16(2, true);
}

Test(kernel, cmp_i32) {
    check_cmp_i32(3, false);
    check_cmp_i32(4, true);
}

Test(kernel, cmp_i64) {
    check_cmp_i64(5, false);
    check_cmp_i64(6, true);
}

/* The DOUBLE edge values: NaNs (quiet, negative, signalling, with a payload), signed zeros,
** infinities, the largest and smallest normals, denormals, ones. */
#define NSPECIAL 19
static double specials[NSPECIAL];
static void init_specials(void) {
    const double s[NSPECIAL] = {NAN,
                                -NAN,
                                from_bits(0x7ff0000000000001ull), /* signalling */
                                from_bits(0xfff8000000000123ull),
                                -0.0,
                                0.0,
                                INFINITY,
                                -INFINITY,
                                DBL_MAX,
                                -DBL_MAX,
                                DBL_MIN,
                                -DBL_MIN,
                                DBL_TRUE_MIN,
                                -DBL_TRUE_MIN,
                                1e-310,
                                -1e-310,
                                1.0,
                                -1.0,
                                0.5};
    memcpy(specials, s, sizeof s);
}

/* f64_order is strata's order of DOUBLEs: NaN equals NaN and is above every other value; -0.0
** equals 0.0. */
static int f64_order(double u, double c) {
    if (isnan(u) || isnan(c)) return (isnan(u) != 0) - (isnan(c) != 0);
    return (u > c) - (u < c);
}

/* gen_f64 draws a DOUBLE: an edge value, a pool value, a small half-integer, a random bit
** pattern (any magnitude, now and then a NaN), or an ordinary number; dups: edges and pool only. */
static double gen_f64(const double *pool, bool dups) {
    switch (rnd(dups ? 2 : 5)) {
    case 0: return specials[rnd(NSPECIAL)];
    case 1: return pool[rnd(NPOOL)];
    case 2: return ((double)rnd(21) - 10) * 0.5;
    case 3: return from_bits(rnd64());
    default:
        return (rnd(2) ? -1.0 : 1.0) * (1.0 + (double)rnd(1u << 30) / (1u << 30)) *
               ldexp(1.0, (int)rnd(41) - 20);
    }
}

static void check_cmp_f64(uint64_t seed, bool dups) {
    static double base[VECTOR_SIZE + 1];
    static sel_t selbuf[VECTOR_SIZE + 1];
    double pool[NPOOL];
    init_specials();
    rng_seed(seed);
    for (int i = 0; i < NPOOL; i++)
        pool[i] = gen_f64(specials, false);
    pool[0] = 3.25; /* at least one ordinary value repeats */
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        base[i] = gen_f64(pool, dups);
    double consts[NSPECIAL + 5];
    int nc = 0;
    for (int i = 0; i < NSPECIAL; i++)
        consts[nc++] = specials[i];
    for (int i = 0; i < 3; i++)
        consts[nc++] = pool[i];
    consts[nc++] = from_bits(rnd64());
    consts[nc++] = 1.5;
    uint64_t want[VALIDITY_WORDS], got[MASKBUF];
    for (int mode = 0; mode < NMODES; mode++) {
        const sel_t *sel = make_sel(mode, selbuf);
        const double *d = base + data_off(mode);
        for (uint32_t ni = 0; ni < NNS; ni++) {
            uint32_t n = NS[ni];
            for (int op = KERN_EQ; op <= KERN_GE; op++)
                for (int ci = 0; ci < nc; ci++) {
                    double c = consts[ci];
                    memset(want, 0, sizeof want);
                    for (uint32_t r = 0; r < n; r++)
                        if (holds((kern_cmp)op, f64_order(AT(d, sel, r), c))) set_bit(want, r);
                    for (uint32_t w = 0; w < MASKBUF; w++)
                        got[w] = CANARY64;
                    kern_cmp_f64((kern_cmp)op, d, sel, n, c, got);
                    int64_t bad = mask_diff(got, want, n);
                    if (bad != -1) {
                        char value[96] = "";
                        if (bad >= 0 && bad < (int64_t)n)
                            snprintf(value, sizeof value, "index %u, value %a = 0x%016llx",
                                     IDX(sel, (uint32_t)bad), AT(d, sel, (uint32_t)bad),
                                     (unsigned long long)bits_of(AT(d, sel, (uint32_t)bad)));
                        cr_assert_fail("kern_cmp_f64 %s c=%a (0x%016llx) n=%u %s (seed %llu): %s", OP[op], c,
                                       (unsigned long long)bits_of(c), n, MODE[mode],
                                       (unsigned long long)seed, describe(bad, got, want, n, value));
                    }
                }
        }
    }
}

Test(kernel, cmp_f64) {
    check_cmp_f64(7, false);
    check_cmp_f64(8, true);
}

/* A few fixed cases of strata's DOUBLE order, stated directly rather than through f64_order. */
Test(kernel, cmp_f64_nan_and_zero_rules) {
    const double d[8] = {NAN, -0.0, 0.0, INFINITY, -INFINITY, 1.0, -NAN, DBL_TRUE_MIN};
    uint64_t m[1];
    /* rows:                           NaN  -0  +0  inf -inf  1  -NaN tiny */
    kern_cmp_f64(KERN_EQ, d, NULL, 8, NAN, m);
    cr_assert_eq(m[0], 0x41u, "NaN = NaN only: 0x%llx", (unsigned long long)m[0]);
    kern_cmp_f64(KERN_GT, d, NULL, 8, NAN, m);
    cr_assert_eq(m[0], 0u, "nothing is above NaN: 0x%llx", (unsigned long long)m[0]);
    kern_cmp_f64(KERN_LE, d, NULL, 8, NAN, m);
    cr_assert_eq(m[0], 0xffu, "everything is <= NaN: 0x%llx", (unsigned long long)m[0]);
    kern_cmp_f64(KERN_LT, d, NULL, 8, NAN, m);
    cr_assert_eq(m[0], 0xbeu, "all but NaNs are < NaN: 0x%llx", (unsigned long long)m[0]);
    kern_cmp_f64(KERN_GT, d, NULL, 8, INFINITY, m);
    cr_assert_eq(m[0], 0x41u, "NaN > inf: 0x%llx", (unsigned long long)m[0]);
    kern_cmp_f64(KERN_EQ, d, NULL, 8, 0.0, m);
    cr_assert_eq(m[0], 0x06u, "-0.0 = 0.0: 0x%llx", (unsigned long long)m[0]);
    kern_cmp_f64(KERN_EQ, d, NULL, 8, -0.0, m);
    cr_assert_eq(m[0], 0x06u, "0.0 = -0.0: 0x%llx", (unsigned long long)m[0]);
    kern_cmp_f64(KERN_NE, d, NULL, 8, 1.0, m);
    cr_assert_eq(m[0], 0xdfu, "NaN != 1: 0x%llx", (unsigned long long)m[0]);
    kern_cmp_f64(KERN_GE, d, NULL, 8, -INFINITY, m);
    cr_assert_eq(m[0], 0xffu, "everything >= -inf: 0x%llx", (unsigned long long)m[0]);
    kern_cmp_f64(KERN_LT, d, NULL, 8, 0.0, m);
    cr_assert_eq(m[0], 0x10u, "only -inf < 0: 0x%llx", (unsigned long long)m[0]);
}

/* ---- comparisons of two columns ------------------------------------------------------------ */

/* The operand modes of the two-column comparisons, (a's, b's): PAIRS (the arithmetic's, below)
** and three more, so that every mode is on each side. */
static const int CMP2_PAIRS[][2] = {{M_FLAT, M_FLAT},       {M_FLAT_OFF, M_FLAT}, {M_FLAT, M_RANDOM},
                                    {M_RANDOM, M_FLAT_OFF}, {M_RANDOM, M_DESC},   {M_REPEAT, M_RANDOM_OFF},
                                    {M_FLAT, M_FLAT_OFF},   {M_DESC, M_REPEAT},   {M_RANDOM_OFF, M_FLAT}};
#define NCMP2_PAIRS (sizeof CMP2_PAIRS / sizeof CMP2_PAIRS[0])

/* How the two sides' values are drawn, row by row where each row reads them: independently
** (gen_int's or gen_f64's whole range), paired (mostly equal, in strata's order, or one apart, so
** that EQ holds for many rows and LT and GT split on the closest values), or every edge value
** against every edge value (row r holds pair number (start + r) mod edges^2). A row whose slot on
** one side an earlier row wrote keeps that value and draws only the other side (when both were
** written it compares what is there: the reference reads the arrays). */
enum { C2_MIXED, C2_PAIRED, C2_CROSS, NC2 };
static const char *const C2DATA[NC2] = {"mixed", "paired", "edge x edge"};

/* The generation stamps of the slots written for the current data (see above). */
static uint32_t stamp_a[VECTOR_SIZE + 1], stamp_b[VECTOR_SIZE + 1], stamp_now;

/* partner_int is the other side of a row one of whose sides holds x (see C2DATA). */
static int64_t partner_int(int kind, int64_t x, const int64_t *edges, uint32_t nedges, const int64_t *pool,
                           int64_t tmin, int64_t tmax) {
    if (kind == C2_MIXED) return gen_int(edges, nedges, pool, tmin, tmax, false);
    switch (rnd(8)) {
    case 0:
    case 1:
    case 2:
    case 3: return x;
    case 4: return x == tmax ? x - 1 : x + 1;
    case 5: return x == tmin ? x + 1 : x - 1;
    default: return gen_int(edges, nedges, pool, tmin, tmax, true);
    }
}

/* partner_f64: equal to x in strata's order (another NaN for a NaN, either zero for a zero) or its
** very bits, the next DOUBLE up or down, or another draw. */
static double partner_f64(int kind, double x, const double *pool) {
    if (kind == C2_MIXED) return gen_f64(pool, false);
    switch (rnd(8)) {
    case 0:
    case 1:
    case 2:
        if (isnan(x)) return specials[rnd(4)]; /* specials[0..3] are the NaNs */
        if (x == 0) return rnd(2) ? 0.0 : -0.0;
        return x;
    case 3: return x;
    case 4: return nextafter(x, INFINITY);
    case 5: return nextafter(x, -INFINITY);
    default: return gen_f64(pool, true);
    }
}

/* The integer edges of the two-column tests: each type's extremes, 0, +-1, and (where a narrower
** compare or a 64-bit compare built of 32-bit halves would go wrong) the values around the
** boundaries of its halves and bytes. */
static const int64_t EDGES2_I16[] = {INT16_MIN, INT16_MIN + 1, -0x81, -0x80,         -1,       0, 1, 0x7f,
                                     0x80,      0xff,          0x100, INT16_MAX - 1, INT16_MAX};
static const int64_t EDGES2_I32[] = {
    INT32_MIN, INT32_MIN + 1, -0x10001, -0x10000, -0x8001, -0x8000,       -1,       0,
    1,         0x7fff,        0x8000,   0xffff,   0x10000, INT32_MAX - 1, INT32_MAX};
static const int64_t EDGES2_I64[] = {INT64_MIN,
                                     INT64_MIN + 1,
                                     -INT64_C(0x100000001),
                                     -INT64_C(0x100000000),
                                     -INT64_C(0x80000001),
                                     -INT64_C(0x80000000),
                                     -1,
                                     0,
                                     1,
                                     INT64_C(0x7fffffff),
                                     INT64_C(0x80000000),
                                     INT64_C(0xffffffff),
                                     INT64_C(0x100000000),
                                     INT64_C(0x17fffffff),
                                     INT64_C(0x180000000),
                                     INT64_C(0x7fffffff80000000),
                                     INT64_MAX - 1,
                                     INT64_MAX};

/* check_cmp2_T runs kern_cmp2_T once and compares the whole mask with the scalar reference;
** tally (or NULL) counts the rows by how a compares with b: below, equal, above. */
#define DEFINE_CMP2_INT(SUF, T, TMIN, TMAX, EDGES)                                                           \
    static void check_cmp2_##SUF(kern_cmp op, const T *a, const sel_t *as, const T *b, const sel_t *bs,      \
                                 uint32_t n, const char *ctx, uint32_t *tally) {                             \
        uint64_t want[VALIDITY_WORDS], got[MASKBUF];                                                         \
        memset(want, 0, sizeof want);                                                                        \
        for (uint32_t r = 0; r < n; r++) {                                                                   \
            T u = AT(a, as, r), v = AT(b, bs, r);                                                            \
            int cmp = (u > v) - (u < v);                                                                     \
            if (holds(op, cmp)) set_bit(want, r);                                                            \
            if (tally) tally[cmp + 1]++;                                                                     \
        }                                                                                                    \
        for (uint32_t w = 0; w < MASKBUF; w++)                                                               \
            got[w] = CANARY64;                                                                               \
        kern_cmp2_##SUF(op, a, as, b, bs, n, got);                                                           \
        int64_t bad = mask_diff(got, want, n);                                                               \
        if (bad != -1) {                                                                                     \
            char value[96] = "";                                                                             \
            if (bad >= 0 && bad < (int64_t)n)                                                                \
                snprintf(value, sizeof value, "a[%u] = %lld, b[%u] = %lld", IDX(as, (uint32_t)bad),          \
                         (long long)AT(a, as, (uint32_t)bad), IDX(bs, (uint32_t)bad),                        \
                         (long long)AT(b, bs, (uint32_t)bad));                                               \
            cr_assert_fail("kern_cmp2_" #SUF " %s n=%u %s: %s", OP[op], n, ctx,                              \
                           describe(bad, got, want, n, value));                                              \
        }                                                                                                    \
    }                                                                                                        \
                                                                                                             \
    static void fill_cmp2_##SUF(int kind, T *a, const sel_t *as, T *b, const sel_t *bs, uint32_t n,          \
                                const int64_t *pool) {                                                       \
        enum { NE = sizeof EDGES / sizeof EDGES[0] };                                                        \
        uint32_t start = rnd(NE * NE);                                                                       \
        stamp_now++;                                                                                         \
        for (uint32_t r = 0; r < n; r++) {                                                                   \
            uint32_t ia = IDX(as, r), ib = IDX(bs, r);                                                       \
            if (kind == C2_CROSS) {                                                                          \
                uint32_t k = (start + r) % (NE * NE);                                                        \
                a[ia] = (T)EDGES[k / NE], b[ib] = (T)EDGES[k % NE];                                          \
                continue;                                                                                    \
            }                                                                                                \
            bool ha = stamp_a[ia] == stamp_now, hb = stamp_b[ib] == stamp_now;                               \
            if (ha && hb) continue;                                                                          \
            if (ha)                                                                                          \
                b[ib] = (T)partner_int(kind, a[ia], EDGES, NE, pool, TMIN, TMAX);                            \
            else if (hb)                                                                                     \
                a[ia] = (T)partner_int(kind, b[ib], EDGES, NE, pool, TMIN, TMAX);                            \
            else {                                                                                           \
                a[ia] = (T)gen_int(EDGES, NE, pool, TMIN, TMAX, kind == C2_PAIRED);                          \
                b[ib] = (T)partner_int(kind, a[ia], EDGES, NE, pool, TMIN, TMAX);                            \
            }                                                                                                \
            stamp_a[ia] = stamp_b[ib] = stamp_now;                                                           \
        }                                                                                                    \
    }                                                                                                        \
                                                                                                             \
    /* Every mode pair, data kind, n and operator; each column against itself too (EQ everywhere);           \
    ** flat operands also copied into exactly sized heap buffers (for the sanitizer build). */               \
    static void cmp2_##SUF(uint64_t seed) {                                                                  \
        static T A[VECTOR_SIZE + 1], B[VECTOR_SIZE + 1];                                                     \
        static sel_t sa[VECTOR_SIZE + 1], sb[VECTOR_SIZE + 1];                                               \
        enum { NE = sizeof EDGES / sizeof EDGES[0] };                                                        \
        int64_t pool[NPOOL];                                                                                 \
        uint32_t tally[3] = {0, 0, 0};                                                                       \
        char ctx[160];                                                                                       \
        rng_seed(seed);                                                                                      \
        for (int i = 0; i < NPOOL; i++)                                                                      \
            pool[i] = gen_any(TMIN, TMAX);                                                                   \
        for (uint32_t i = 0; i <= VECTOR_SIZE; i++)                                                          \
            A[i] = (T)gen_int(EDGES, NE, pool, TMIN, TMAX, false),                                           \
            B[i] = (T)gen_int(EDGES, NE, pool, TMIN, TMAX, false);                                           \
        for (uint32_t pi = 0; pi < NCMP2_PAIRS; pi++) {                                                      \
            int ma = CMP2_PAIRS[pi][0], mb = CMP2_PAIRS[pi][1];                                              \
            const sel_t *as = make_sel(ma, sa), *bs = make_sel(mb, sb);                                      \
            T *a = A + data_off(ma), *b = B + data_off(mb);                                                  \
            for (int kind = 0; kind < NC2; kind++)                                                           \
                for (uint32_t ni = 0; ni < NNS; ni++) {                                                      \
                    uint32_t n = NS[ni];                                                                     \
                    fill_cmp2_##SUF(kind, a, as, b, bs, n, pool);                                            \
                    snprintf(ctx, sizeof ctx, "a %s, b %s, %s data (seed %llu)", MODE[ma], MODE[mb],         \
                             C2DATA[kind], (unsigned long long)seed);                                        \
                    for (int op = KERN_EQ; op <= KERN_GE; op++)                                              \
                        check_cmp2_##SUF((kern_cmp)op, a, as, b, bs, n, ctx,                                 \
                                         kind == C2_PAIRED && op == KERN_EQ ? tally : NULL);                 \
                    snprintf(ctx, sizeof ctx, "a %s against itself, %s data (seed %llu)", MODE[ma],          \
                             C2DATA[kind], (unsigned long long)seed);                                        \
                    for (int op = KERN_EQ; op <= KERN_GE; op++)                                              \
                        check_cmp2_##SUF((kern_cmp)op, a, as, a, as, n, ctx, NULL);                          \
                    if (as || bs) continue;                                                                  \
                    T *ea = malloc((n ? n : 1) * sizeof *ea), *eb = malloc((n ? n : 1) * sizeof *eb);        \
                    uint64_t *em = malloc((n ? KERN_WORDS(n) : 1) * sizeof *em), got[MASKBUF];               \
                    cr_assert(ea != NULL && eb != NULL && em != NULL);                                       \
                    memcpy(ea, a, n * sizeof *ea);                                                           \
                    memcpy(eb, b, n * sizeof *eb);                                                           \
                    for (int op = KERN_EQ; op <= KERN_GE; op++) {                                            \
                        kern_cmp2_##SUF((kern_cmp)op, ea, NULL, eb, NULL, n, em);                            \
                        kern_cmp2_##SUF((kern_cmp)op, a, NULL, b, NULL, n, got);                             \
                        cr_assert(n == 0 || memcmp(em, got, KERN_WORDS(n) * sizeof *em) == 0,                \
                                  "kern_cmp2_" #SUF " %s n=%u %s, exact buffers: another mask", OP[op], n,   \
                                  ctx);                                                                      \
                    }                                                                                        \
                    free(ea);                                                                                \
                    free(eb);                                                                                \
                    free(em);                                                                                \
                }                                                                                            \
        }                                                                                                    \
        uint32_t rows = tally[0] + tally[1] + tally[2];                                                      \
        cr_assert(tally[1] >= rows / 3 && tally[0] >= rows / 8 && tally[2] >= rows / 8,                      \
                  "test data: paired rows %u below, %u equal, %u above", tally[0], tally[1], tally[2]);      \
    }

DEFINE_CMP2_INT(i16, int16_t, INT16_MIN, INT16_MAX, EDGES2_I16)
DEFINE_CMP2_INT(i32, int32_t, INT32_MIN, INT32_MAX, EDGES2_I32)
DEFINE_CMP2_INT(i64, int64_t, INT64_MIN, INT64_MAX, EDGES2_I64)

Test(kernel, cmp2_i16) { cmp2_i16(32); }
Test(kernel, cmp2_i32) { cmp2_i32(33); }
Test(kernel, cmp2_i64) { cmp2_i64(34); }

static void check_cmp2_f64(kern_cmp op, const double *a, const sel_t *as, const double *b, const sel_t *bs,
                           uint32_t n, const char *ctx, uint32_t *tally) {
    uint64_t want[VALIDITY_WORDS], got[MASKBUF];
    memset(want, 0, sizeof want);
    for (uint32_t r = 0; r < n; r++) {
        int cmp = f64_order(AT(a, as, r), AT(b, bs, r));
        if (holds(op, cmp)) set_bit(want, r);
        if (tally) tally[cmp + 1]++;
    }
    for (uint32_t w = 0; w < MASKBUF; w++)
        got[w] = CANARY64;
    kern_cmp2_f64(op, a, as, b, bs, n, got);
    int64_t bad = mask_diff(got, want, n);
    if (bad != -1) {
        char value[160] = "";
        if (bad >= 0 && bad < (int64_t)n) {
            double u = AT(a, as, (uint32_t)bad), v = AT(b, bs, (uint32_t)bad);
            snprintf(value, sizeof value, "a[%u] = %a = 0x%016llx, b[%u] = %a = 0x%016llx",
                     IDX(as, (uint32_t)bad), u, (unsigned long long)bits_of(u), IDX(bs, (uint32_t)bad), v,
                     (unsigned long long)bits_of(v));
        }
        cr_assert_fail("kern_cmp2_f64 %s n=%u %s: %s", OP[op], n, ctx, describe(bad, got, want, n, value));
    }
}

static void fill_cmp2_f64(int kind, double *a, const sel_t *as, double *b, const sel_t *bs, uint32_t n,
                          const double *pool) {
    uint32_t start = rnd(NSPECIAL * NSPECIAL);
    stamp_now++;
    for (uint32_t r = 0; r < n; r++) {
        uint32_t ia = IDX(as, r), ib = IDX(bs, r);
        if (kind == C2_CROSS) {
            uint32_t k = (start + r) % (NSPECIAL * NSPECIAL);
            a[ia] = specials[k / NSPECIAL], b[ib] = specials[k % NSPECIAL];
            continue;
        }
        bool ha = stamp_a[ia] == stamp_now, hb = stamp_b[ib] == stamp_now;
        if (ha && hb) continue;
        if (ha)
            b[ib] = partner_f64(kind, a[ia], pool);
        else if (hb)
            a[ia] = partner_f64(kind, b[ib], pool);
        else {
            a[ia] = gen_f64(pool, kind == C2_PAIRED);
            b[ib] = partner_f64(kind, a[ia], pool);
        }
        stamp_a[ia] = stamp_b[ib] = stamp_now;
    }
}

/* As cmp2_T for the integers, with the DOUBLE edge values (specials) on either side or both. */
Test(kernel, cmp2_f64) {
    static double A[VECTOR_SIZE + 1], B[VECTOR_SIZE + 1];
    static sel_t sa[VECTOR_SIZE + 1], sb[VECTOR_SIZE + 1];
    const uint64_t seed = 35;
    double pool[NPOOL];
    uint32_t tally[3] = {0, 0, 0};
    char ctx[160];
    init_specials();
    rng_seed(seed);
    for (int i = 0; i < NPOOL; i++)
        pool[i] = gen_f64(specials, false);
    pool[0] = 3.25; /* at least one ordinary value repeats */
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        A[i] = gen_f64(pool, false), B[i] = gen_f64(pool, false);
    for (uint32_t pi = 0; pi < NCMP2_PAIRS; pi++) {
        int ma = CMP2_PAIRS[pi][0], mb = CMP2_PAIRS[pi][1];
        const sel_t *as = make_sel(ma, sa), *bs = make_sel(mb, sb);
        double *a = A + data_off(ma), *b = B + data_off(mb);
        for (int kind = 0; kind < NC2; kind++)
            for (uint32_t ni = 0; ni < NNS; ni++) {
                uint32_t n = NS[ni];
                fill_cmp2_f64(kind, a, as, b, bs, n, pool);
                snprintf(ctx, sizeof ctx, "a %s, b %s, %s data (seed %llu)", MODE[ma], MODE[mb], C2DATA[kind],
                         (unsigned long long)seed);
                for (int op = KERN_EQ; op <= KERN_GE; op++)
                    check_cmp2_f64((kern_cmp)op, a, as, b, bs, n, ctx,
                                   kind == C2_PAIRED && op == KERN_EQ ? tally : NULL);
                snprintf(ctx, sizeof ctx, "a %s against itself, %s data (seed %llu)", MODE[ma], C2DATA[kind],
                         (unsigned long long)seed);
                for (int op = KERN_EQ; op <= KERN_GE; op++)
                    check_cmp2_f64((kern_cmp)op, a, as, a, as, n, ctx, NULL);
                if (as || bs) continue;
                double *ea = malloc((n ? n : 1) * sizeof *ea), *eb = malloc((n ? n : 1) * sizeof *eb);
                uint64_t *em = malloc((n ? KERN_WORDS(n) : 1) * sizeof *em), got[MASKBUF];
                cr_assert(ea != NULL && eb != NULL && em != NULL);
                memcpy(ea, a, n * sizeof *ea);
                memcpy(eb, b, n * sizeof *eb);
                for (int op = KERN_EQ; op <= KERN_GE; op++) {
                    kern_cmp2_f64((kern_cmp)op, ea, NULL, eb, NULL, n, em);
                    kern_cmp2_f64((kern_cmp)op, a, NULL, b, NULL, n, got);
                    cr_assert(n == 0 || memcmp(em, got, KERN_WORDS(n) * sizeof *em) == 0,
                              "kern_cmp2_f64 %s n=%u %s, exact buffers: another mask", OP[op], n, ctx);
                }
                free(ea);
                free(eb);
                free(em);
            }
    }
    uint32_t rows = tally[0] + tally[1] + tally[2];
    cr_assert(tally[1] >= rows / 3 && tally[0] >= rows / 8 && tally[2] >= rows / 8,
              "test data: paired rows %u below, %u equal, %u above", tally[0], tally[1], tally[2]);
}

/* The NaN pair rules stated directly: an 8-row pattern repeated over 72 rows (whole SIMD words and
** the scalar tail), flat and with both sides through a descending selection. */
Test(kernel, cmp2_f64_nan_pairs) {
    const double sNaN = from_bits(0x7ff0000000000001ull), pNaN = from_bits(0xfff8000000000123ull);
    /* row:             0     1    2     3    4     5     6         7 */
    const double pa[8] = {NAN, NAN, -NAN, 1.0, -0.0, 0.0, INFINITY, sNaN};
    const double pb[8] = {-NAN, 1.0, INFINITY, pNaN, 0.0, -0.0, NAN, -INFINITY};
    /* a above b: rows 1 (NaN > 1), 2 (NaN > inf), 7 (NaN > -inf); below: 3 and 6; equal: 0 (NaN =
    ** NaN, whatever their sign and payload), 4 and 5 (-0.0 = 0.0) */
    static const struct {
        kern_cmp op;
        uint64_t bits;
        const char *rule;
    } want[] = {{KERN_EQ, 0x31, "NaN = NaN, -0.0 = 0.0"},  {KERN_NE, 0xce, "NaN != every number"},
                {KERN_LT, 0x48, "numbers below NaN"},      {KERN_LE, 0x79, "NaN <= NaN"},
                {KERN_GT, 0x86, "NaN above every number"}, {KERN_GE, 0xb7, "NaN >= NaN"}};
    double a[72], b[72], ra[72], rb[72];
    sel_t desc[72];
    uint64_t m[2 + GUARD];
    for (uint32_t r = 0; r < 72; r++) {
        a[r] = ra[71 - r] = pa[r % 8];
        b[r] = rb[71 - r] = pb[r % 8];
        desc[r] = 71 - r;
    }
    for (uint32_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        uint64_t w0 = want[k].bits * 0x0101010101010101ull, w1 = want[k].bits;
        for (int sel = 0; sel < 2; sel++) {
            for (int w = 0; w < 2 + GUARD; w++)
                m[w] = CANARY64;
            if (sel)
                kern_cmp2_f64(want[k].op, ra, desc, rb, desc, 72, m);
            else
                kern_cmp2_f64(want[k].op, a, NULL, b, NULL, 72, m);
            cr_assert(m[0] == w0 && m[1] == w1 && m[2] == CANARY64,
                      "kern_cmp2_f64 %s %s (%s): 0x%016llx 0x%016llx, want 0x%016llx 0x%016llx",
                      OP[want[k].op], want[k].rule, sel ? "descending sel" : "flat", (unsigned long long)m[0],
                      (unsigned long long)m[1], (unsigned long long)w0, (unsigned long long)w1);
        }
        /* the scalar tail alone: the first 8 rows */
        m[0] = m[1] = CANARY64;
        kern_cmp2_f64(want[k].op, a, NULL, b, NULL, 8, m);
        cr_assert(m[0] == w1 && m[1] == CANARY64,
                  "kern_cmp2_f64 %s %s, n=8: 0x%016llx 0x%016llx, want 0x%llx", OP[want[k].op], want[k].rule,
                  (unsigned long long)m[0], (unsigned long long)m[1], (unsigned long long)w1);
    }
}

/* ---- kern_mask_valid ----------------------------------------------------------------------- */

/* make_validity: a bitmap whose bits are 1 with probability sixteenths / 16. */
static void make_validity(uint64_t *v, uint32_t sixteenths) {
    memset(v, 0, VALIDITY_WORDS * sizeof *v);
    for (uint32_t i = 0; i < VECTOR_SIZE; i++)
        if (rnd(16) < sixteenths) set_bit(v, i);
}

Test(kernel, mask_valid) {
    static const uint32_t density[] = {0, 1, 8, 15, 16};
    static uint64_t validity[VALIDITY_WORDS];
    static sel_t selbuf[VECTOR_SIZE + 1];
    uint64_t in[VALIDITY_WORDS], want[VALIDITY_WORDS], got[MASKBUF];
    rng_seed(9);
    for (uint32_t di = 0; di < sizeof density / sizeof density[0]; di++) {
        make_validity(validity, density[di]);
        for (int mode = 0; mode < NMODES; mode++) {
            if (mode == M_FLAT_OFF) continue; /* a bitmap cannot start one bit in */
            const sel_t *sel = make_sel(mode, selbuf);
            for (uint32_t ni = 0; ni < NNS; ni++) {
                uint32_t n = NS[ni];
                for (int full = 0; full < 2; full++) {
                    memset(in, 0, sizeof in);
                    memset(want, 0, sizeof want);
                    for (uint32_t r = 0; r < n; r++)
                        if (full || rnd(2)) set_bit(in, r);
                    for (uint32_t r = 0; r < n; r++)
                        if (bit_of(in, r) && bit_of(validity, IDX(sel, r))) set_bit(want, r);
                    load_mask(got, in, n);
                    kern_mask_valid(got, validity, sel, n);
                    int64_t bad = mask_diff(got, want, n);
                    if (bad != -1) {
                        char value[64] = "";
                        if (bad >= 0 && bad < (int64_t)n)
                            snprintf(value, sizeof value, "index %u, in %d, valid %d",
                                     IDX(sel, (uint32_t)bad), (int)bit_of(in, (uint32_t)bad),
                                     (int)bit_of(validity, IDX(sel, (uint32_t)bad)));
                        cr_assert_fail("kern_mask_valid n=%u %s validity %u/16 %s: %s", n, MODE[mode],
                                       density[di], full ? "full mask" : "random mask",
                                       describe(bad, got, want, n, value));
                    }
                    /* no bitmap: no NULLs, the mask is unchanged */
                    load_mask(got, in, n);
                    kern_mask_valid(got, NULL, sel, n);
                    bad = mask_diff(got, in, n);
                    cr_assert_eq(bad, -1, "kern_mask_valid(validity NULL) n=%u %s: %s", n, MODE[mode],
                                 describe(bad, got, in, n, "no NULLs"));
                }
            }
        }
    }
}

/* ---- kern_mask_to_sel ---------------------------------------------------------------------- */

enum {
    P_EMPTY,
    P_FULL,
    P_SPARSE,
    P_EIGHTH,
    P_HALF,
    P_DENSE,
    P_ALTERNATE,
    P_FIRST,
    P_LAST,
    P_RUNS,
    P_BYTEWISE,
    NPAT
};
static const char *const PAT[NPAT] = {"empty",    "full",  "1/64",           "1/8",
                                      "1/2",      "63/64", "alternate",      "first row",
                                      "last row", "runs",  "0xff,0x00 bytes"};

/* make_pattern sets mask's bits of rows 0..n-1 by pattern; stray: random bits past n too (in the
** last word and after it), which the kernel must ignore. */
static void make_pattern(uint64_t *mask, int pat, uint32_t n, bool stray) {
    memset(mask, 0, VALIDITY_WORDS * sizeof *mask);
    bool run = false;
    for (uint32_t r = 0; r < n; r++) {
        bool on;
        switch (pat) {
        case P_EMPTY: on = false; break;
        case P_FULL: on = true; break;
        case P_SPARSE: on = rnd(64) == 0; break;
        case P_EIGHTH: on = rnd(8) == 0; break;
        case P_HALF: on = rnd(2); break;
        case P_DENSE: on = rnd(64) != 0; break;
        case P_ALTERNATE: on = r % 2 == 0; break;
        case P_FIRST: on = r == 0; break;
        case P_LAST: on = r == n - 1; break;
        case P_RUNS:
            if (rnd(10) == 0) run = !run;
            on = run;
            break;
        default: on = (r / 8) % 2 == 0; break;
        }
        if (on) set_bit(mask, r);
    }
    if (stray)
        for (uint32_t r = n; r < VECTOR_SIZE; r++)
            if (rnd(2)) set_bit(mask, r);
}

Test(kernel, mask_to_sel) {
    static uint64_t mask[VALIDITY_WORDS];
    static sel_t out[VECTOR_SIZE + 64], want[VECTOR_SIZE];
    rng_seed(10);
    for (int pat = 0; pat < NPAT; pat++)
        for (uint32_t ni = 0; ni < NNS; ni++)
            for (int stray = 0; stray < 2; stray++) {
                uint32_t n = NS[ni];
                make_pattern(mask, pat, n, stray);
                uint32_t k = 0;
                for (uint32_t r = 0; r < n; r++)
                    if (bit_of(mask, r)) want[k++] = r;
                uint64_t before[VALIDITY_WORDS];
                memcpy(before, mask, sizeof before);
                for (uint32_t i = 0; i < VECTOR_SIZE + 64; i++)
                    out[i] = CANARY32;

                uint32_t got = kern_mask_to_sel(mask, n, out);
                cr_assert_eq(got, k, "kern_mask_to_sel n=%u %s%s: returned %u, want %u", n, PAT[pat],
                             stray ? " (stray bits past n)" : "", got, k);
                for (uint32_t i = 0; i < k; i++)
                    if (out[i] != want[i])
                        cr_assert_fail("kern_mask_to_sel n=%u %s%s: out[%u] = %u, want %u", n, PAT[pat],
                                       stray ? " (stray bits past n)" : "", i, out[i], want[i]);
                for (uint32_t i = n; i < VECTOR_SIZE + 64; i++)
                    if (out[i] != CANARY32)
                        cr_assert_fail("kern_mask_to_sel n=%u %s%s: wrote out[%u] = %u, past its n entries",
                                       n, PAT[pat], stray ? " (stray bits past n)" : "", i, out[i]);
                cr_assert(memcmp(before, mask, sizeof before) == 0,
                          "kern_mask_to_sel n=%u %s: changed the mask", n, PAT[pat]);

                /* exactly sized buffers: an overrun shows under the sanitizers */
                uint64_t *m2 = malloc(sizeof *m2 * (n ? KERN_WORDS(n) : 1));
                sel_t *o2 = malloc(sizeof *o2 * (n ? n : 1));
                cr_assert(m2 && o2);
                memcpy(m2, mask, sizeof *m2 * KERN_WORDS(n));
                cr_assert_eq(kern_mask_to_sel(m2, n, o2), k, "kern_mask_to_sel n=%u %s, exact buffers", n,
                             PAT[pat]);
                cr_assert(k == 0 || memcmp(o2, want, k * sizeof *o2) == 0,
                          "kern_mask_to_sel n=%u %s, exact buffers", n, PAT[pat]);
                free(m2);
                free(o2);
            }
}

/* ---- sums ---------------------------------------------------------------------------------- */

/* Validity choices for the sums: no bitmap, all valid, half, a few NULLs, all NULL. */
enum { V_NONE, V_ALL, V_HALF, V_FEW_NULLS, V_ALL_NULL, NVM };
static const char *const VM[NVM] = {"no bitmap", "all valid", "half NULL", "few NULLs", "all NULL"};
static const uint64_t *validity_for(int vm, uint64_t *buf) {
    static const uint32_t sixteenths[NVM] = {0, 16, 8, 15, 0};
    if (vm == V_NONE) return NULL;
    make_validity(buf, sixteenths[vm]);
    return buf;
}

#define DEFINE_SUM_INT(SUF, T)                                                                               \
    static void check_sum_##SUF(const T *base, const char *data) {                                           \
        static sel_t selbuf[VECTOR_SIZE + 1];                                                                \
        static uint64_t vbuf[VALIDITY_WORDS];                                                                \
        for (int vm = 0; vm < NVM; vm++) {                                                                   \
            const uint64_t *validity = validity_for(vm, vbuf);                                               \
            for (int mode = 0; mode < NMODES; mode++) {                                                      \
                const sel_t *sel = make_sel(mode, selbuf);                                                   \
                const T *d = base + data_off(mode);                                                          \
                for (uint32_t ni = 0; ni < NNS; ni++) {                                                      \
                    uint32_t n = NS[ni];                                                                     \
                    __int128 want = 0;                                                                       \
                    int64_t want_count = 0;                                                                  \
                    for (uint32_t r = 0; r < n; r++)                                                         \
                        if (!validity || bit_of(validity, IDX(sel, r))) want += AT(d, sel, r), want_count++; \
                    int64_t count = -12345;                                                                  \
                    __int128 got = kern_sum_##SUF(d, sel, validity, n, &count);                              \
                    char g[48], w[48];                                                                       \
                    cr_assert(got == want, "kern_sum_" #SUF " %s n=%u %s %s: sum %s, want %s", data, n,      \
                              MODE[mode], VM[vm], i128_str(got, g), i128_str(want, w));                      \
                    cr_assert_eq(count, want_count,                                                          \
                                 "kern_sum_" #SUF " %s n=%u %s %s: count %lld, want %lld", data, n,          \
                                 MODE[mode], VM[vm], (long long)count, (long long)want_count);               \
                }                                                                                            \
            }                                                                                                \
        }                                                                                                    \
    }

DEFINE_SUM_INT(i16, int16_t)
DEFINE_SUM_INT(i32, int32_t)
DEFINE_SUM_INT(i64, int64_t)

Test(kernel, sum_i16_i32) {
    static int16_t d16[VECTOR_SIZE + 1];
    static int32_t d32[VECTOR_SIZE + 1];
    static const int64_t e16[] = {INT16_MIN, INT16_MIN + 1, -1, 0, 1, INT16_MAX - 1, INT16_MAX};
    static const int64_t e32[] = {INT32_MIN, INT32_MIN + 1, -1, 0, 1, INT32_MAX - 1, INT32_MAX};
    int64_t pool[NPOOL];
    rng_seed(11);
    for (int i = 0; i < NPOOL; i++)
        pool[i] = gen_any(INT16_MIN, INT16_MAX);
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d16[i] = (int16_t)gen_int(e16, 7, pool, INT16_MIN, INT16_MAX, false);
    check_sum_i16(d16, "mixed");
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d16[i] = i % 2 ? INT16_MAX : INT16_MIN;
    check_sum_i16(d16, "alternating extremes");
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d16[i] = INT16_MIN;
    check_sum_i16(d16, "all INT16_MIN");

    for (int i = 0; i < NPOOL; i++)
        pool[i] = gen_any(INT32_MIN, INT32_MAX);
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d32[i] = (int32_t)gen_int(e32, 7, pool, INT32_MIN, INT32_MAX, false);
    check_sum_i32(d32, "mixed");
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d32[i] = INT32_MAX - (int32_t)rnd(3);
    check_sum_i32(d32, "near INT32_MAX");
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d32[i] = INT32_MIN + (int32_t)rnd(3);
    check_sum_i32(d32, "near INT32_MIN");
}

Test(kernel, sum_i64) {
    static int64_t d[VECTOR_SIZE + 1];
    static const int64_t edges[] = {INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX - 1, INT64_MAX};
    int64_t pool[NPOOL];
    rng_seed(12);
    for (int i = 0; i < NPOOL; i++)
        pool[i] = (int64_t)rnd64();
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d[i] = gen_int(edges, 7, pool, INT64_MIN, INT64_MAX, false);
    check_sum_i64(d, "mixed");
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d[i] = (int64_t)rnd64();
    check_sum_i64(d, "random");
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d[i] = INT64_MAX - (int64_t)rnd(1000);
    check_sum_i64(d, "near INT64_MAX");
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d[i] = INT64_MIN + (int64_t)rnd(1000);
    check_sum_i64(d, "near INT64_MIN");
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d[i] = INT64_MAX;
    check_sum_i64(d, "all INT64_MAX");
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d[i] = INT64_MIN;
    check_sum_i64(d, "all INT64_MIN");
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d[i] = rnd(2) ? INT64_MAX - (int64_t)rnd(4) : INT64_MIN + (int64_t)rnd(4);
    check_sum_i64(d, "extremes of both signs");
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d[i] = (int64_t)(((uint64_t)rnd64() & 0xffffffff00000000ull) | 0xffffffffull);
    check_sum_i64(d, "low halves all ones");

    /* the plain statement: 2048 values near INT64_MAX add up to about 2^74, exactly */
    int64_t count;
    for (uint32_t i = 0; i < VECTOR_SIZE; i++)
        d[i] = INT64_MAX - i;
    __int128 want = (__int128)VECTOR_SIZE * INT64_MAX - (__int128)VECTOR_SIZE * (VECTOR_SIZE - 1) / 2;
    char g[48], w[48];
    __int128 got = kern_sum_i64(d, NULL, NULL, VECTOR_SIZE, &count);
    cr_assert(got == want, "2048 values near INT64_MAX: %s, want %s", i128_str(got, g), i128_str(want, w));
    cr_assert_eq(count, VECTOR_SIZE);
    for (uint32_t i = 0; i < VECTOR_SIZE; i++)
        d[i] = INT64_MIN + i;
    want = (__int128)VECTOR_SIZE * INT64_MIN + (__int128)VECTOR_SIZE * (VECTOR_SIZE - 1) / 2;
    got = kern_sum_i64(d, NULL, NULL, VECTOR_SIZE, &count);
    cr_assert(got == want, "2048 values near INT64_MIN: %s, want %s", i128_str(got, g), i128_str(want, w));
}

/* check_sum_f64 runs kern_sum_f64 over base (whose NULL slots are poisoned with NaN, infinities
** and DBL_MAX first) and compares it with a long double row-order sum: exactly, or within 1e-12
** of the sum of the magnitudes. */
static void check_sum_f64(const double *base, const char *data, bool exact) {
    static double work[VECTOR_SIZE + 1];
    static sel_t selbuf[VECTOR_SIZE + 1];
    static uint64_t vbuf[VALIDITY_WORDS];
    static const double poison[] = {NAN, INFINITY, -INFINITY, DBL_MAX, -DBL_MAX, 1e300};
    for (int vm = 0; vm < NVM; vm++) {
        const uint64_t *validity = validity_for(vm, vbuf);
        for (int mode = 0; mode < NMODES; mode++) {
            const sel_t *sel = make_sel(mode, selbuf);
            uint32_t off = data_off(mode);
            memcpy(work, base, sizeof work);
            if (validity)
                for (uint32_t i = 0; i < VECTOR_SIZE; i++)
                    if (!bit_of(validity, i)) work[i + off] = poison[i % 6];
            const double *d = work + off;
            for (uint32_t ni = 0; ni < NNS; ni++) {
                uint32_t n = NS[ni];
                long double want = 0, mag = 0;
                int64_t want_count = 0;
                for (uint32_t r = 0; r < n; r++)
                    if (!validity || bit_of(validity, IDX(sel, r))) {
                        want += AT(d, sel, r);
                        mag += fabs(AT(d, sel, r));
                        want_count++;
                    }
                int64_t count = -12345;
                double got = kern_sum_f64(d, sel, validity, n, &count);
                cr_assert_eq(count, want_count, "kern_sum_f64 %s n=%u %s %s: count %lld, want %lld", data, n,
                             MODE[mode], VM[vm], (long long)count, (long long)want_count);
                if (exact)
                    cr_assert(got == (double)want, "kern_sum_f64 %s n=%u %s %s: %.17g, want exactly %.17g",
                              data, n, MODE[mode], VM[vm], got, (double)want);
                else
                    cr_assert(fabsl((long double)got - want) <= 1e-12L * mag,
                              "kern_sum_f64 %s n=%u %s %s: %.17g, want %.17Lg (within %.3Lg)", data, n,
                              MODE[mode], VM[vm], got, want, 1e-12L * mag);
            }
        }
    }
}

Test(kernel, sum_f64) {
    static double d[VECTOR_SIZE + 1];
    rng_seed(13);
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d[i] = (double)rnd(2001) - 1000;
    check_sum_f64(d, "small integers", true);
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d[i] = ((double)rnd(16385) - 8192) * 0.25;
    check_sum_f64(d, "quarters", true);
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d[i] = (double)(INT64_C(1) << 38) + (double)rnd(1000) * 0.25;
    check_sum_f64(d, "large quarters", true); /* sums below 2^50: quarters stay exact */
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d[i] = (1.0 + (double)rnd(1u << 30) / (1u << 30)) * ldexp(1.0, (int)rnd(21) - 10);
    check_sum_f64(d, "random positive", false);
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d[i] = (rnd(2) ? -1.0 : 1.0) * (1.0 + (double)rnd(1u << 30) / (1u << 30)) *
               ldexp(1.0, (int)rnd(41) - 20);
    check_sum_f64(d, "random of both signs", false);
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d[i] = rnd(2) ? DBL_TRUE_MIN * rnd(100) : -0.0;
    check_sum_f64(d, "denormals and -0.0", true);
}

/* Infinities and NaN among the valid rows, at each position: they are not NULLs and show. */
Test(kernel, sum_f64_infinities) {
    static double d[VECTOR_SIZE];
    static const uint32_t ns[] = {1, 4, 7, 64, 65, 2047, 2048};
    for (uint32_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
        uint32_t n = ns[ni];
        uint32_t pos[] = {0, n / 2, n / 4 * 4 < n ? n / 4 * 4 : n - 1, n - 1};
        for (int pi = 0; pi < 4; pi++) {
            uint32_t p = pos[pi], q = (p + n / 3) % n;
            int64_t count;
            for (uint32_t i = 0; i < n; i++)
                d[i] = 1.0;
            d[p] = INFINITY;
            double s = kern_sum_f64(d, NULL, NULL, n, &count);
            cr_assert(isinf(s) && s > 0, "+inf at row %u of %u: %g", p, n, s);
            d[p] = -INFINITY;
            s = kern_sum_f64(d, NULL, NULL, n, &count);
            cr_assert(isinf(s) && s < 0, "-inf at row %u of %u: %g", p, n, s);
            d[p] = NAN;
            s = kern_sum_f64(d, NULL, NULL, n, &count);
            cr_assert(isnan(s), "NaN at row %u of %u: %g", p, n, s);
            if (q != p) {
                d[p] = INFINITY;
                d[q] = -INFINITY;
                s = kern_sum_f64(d, NULL, NULL, n, &count);
                cr_assert(isnan(s), "+inf at row %u and -inf at %u of %u: %g", p, q, n, s);
            }
            /* the same rows NULL: ignored */
            uint64_t validity[VALIDITY_WORDS];
            memset(validity, 0xff, sizeof validity);
            validity[p / 64] &= ~((uint64_t)1 << (p % 64));
            validity[q / 64] &= ~((uint64_t)1 << (q % 64));
            d[p] = NAN;
            d[q] = INFINITY;
            s = kern_sum_f64(d, NULL, validity, n, &count);
            cr_assert_eq(s, (double)(n - 1 - (q != p)), "NaN and inf NULL at rows %u, %u of %u: %g", p, q, n,
                         s);
            cr_assert_eq(count, (int64_t)(n - 1 - (q != p)));
        }
    }
}

/* ---- kern_minmax_T ------------------------------------------------------------------------- */

/* What *min and *max hold before a call: a kernel that finds no valid row leaves them so. */
#define SENT_MIN INT64_C(0x5A5A5A5A5A5A5A5A)
#define SENT_MAX INT64_C(-0x2B2B2B2B2B2B2B2B)

/* run_minmax_T calls kern_minmax_T once and compares the count, *min and *max with a row-order
** scalar scan (ctx: the data, selection mode and validity, for the message). */
#define DEFINE_MINMAX(SUF, T, TMIN, TMAX)                                                                    \
    static void run_minmax_##SUF(const T *d, const sel_t *sel, const uint64_t *validity, uint32_t n,         \
                                 const char *ctx) {                                                          \
        int64_t wmin = 0, wmax = 0;                                                                          \
        uint32_t wcount = 0, at_min = 0, at_max = 0;                                                         \
        for (uint32_t r = 0; r < n; r++)                                                                     \
            if (!validity || bit_of(validity, IDX(sel, r))) {                                                \
                int64_t x = AT(d, sel, r);                                                                   \
                if (!wcount || x < wmin) wmin = x, at_min = r;                                               \
                if (!wcount || x > wmax) wmax = x, at_max = r;                                               \
                wcount++;                                                                                    \
            }                                                                                                \
        int64_t mn = SENT_MIN, mx = SENT_MAX;                                                                \
        uint32_t got = kern_minmax_##SUF(d, sel, validity, n, &mn, &mx);                                     \
        cr_assert_eq(got, wcount, "kern_minmax_" #SUF " n=%u %s: returned %u, want %u valid rows", n, ctx,   \
                     got, wcount);                                                                           \
        if (!wcount)                                                                                         \
            cr_assert(mn == SENT_MIN && mx == SENT_MAX,                                                      \
                      "kern_minmax_" #SUF " n=%u %s: no valid row, but *min, *max became %lld, %lld", n,     \
                      ctx, (long long)mn, (long long)mx);                                                    \
        else {                                                                                               \
            cr_assert_eq(mn, wmin, "kern_minmax_" #SUF " n=%u %s: min %lld, want %lld (row %u, index %u)",   \
                         n, ctx, (long long)mn, (long long)wmin, at_min, IDX(sel, at_min));                  \
            cr_assert_eq(mx, wmax, "kern_minmax_" #SUF " n=%u %s: max %lld, want %lld (row %u, index %u)",   \
                         n, ctx, (long long)mx, (long long)wmax, at_max, IDX(sel, at_max));                  \
        }                                                                                                    \
    }                                                                                                        \
                                                                                                             \
    /* check_minmax_T: every validity choice, mode and n over base, whose NULL slots are poisoned            \
    ** with the type's extremes first (they must not show). */                                               \
    static void check_minmax_##SUF(const T *base, const char *data, uint64_t seed) {                         \
        static T work[VECTOR_SIZE + 1];                                                                      \
        static sel_t selbuf[VECTOR_SIZE + 1];                                                                \
        static uint64_t vbuf[VALIDITY_WORDS];                                                                \
        char ctx[160];                                                                                       \
        for (int vm = 0; vm < NVM; vm++) {                                                                   \
            const uint64_t *validity = validity_for(vm, vbuf);                                               \
            for (int mode = 0; mode < NMODES; mode++) {                                                      \
                const sel_t *sel = make_sel(mode, selbuf);                                                   \
                uint32_t off = data_off(mode);                                                               \
                memcpy(work, base, sizeof work);                                                             \
                if (validity)                                                                                \
                    for (uint32_t i = 0; i < VECTOR_SIZE; i++)                                               \
                        if (!bit_of(validity, i)) work[i + off] = i % 2 ? TMAX : TMIN;                       \
                snprintf(ctx, sizeof ctx, "%s, %s, %s (seed %llu)", data, MODE[mode], VM[vm],                \
                         (unsigned long long)seed);                                                          \
                for (uint32_t ni = 0; ni < NNS; ni++)                                                        \
                    run_minmax_##SUF(work + off, sel, validity, NS[ni], ctx);                                \
            }                                                                                                \
        }                                                                                                    \
    }                                                                                                        \
                                                                                                             \
    /* plant_minmax_T: small values with the type's minimum or maximum planted at one row (first,            \
    ** second, middle, first of the tail after the 8- or 4-row groups, last, random), that row               \
    ** valid, NULL (ignored), or the only valid row. */                                                      \
    static void plant_minmax_##SUF(uint64_t seed) {                                                          \
        static T work[VECTOR_SIZE + 1];                                                                      \
        static sel_t selbuf[VECTOR_SIZE + 1];                                                                \
        static uint64_t vbuf[VALIDITY_WORDS], one[VALIDITY_WORDS];                                           \
        static const T plant[] = {TMIN, TMAX, (T)(TMIN + 1), (T)(TMAX - 1)};                                 \
        char ctx[200];                                                                                       \
        rng_seed(seed);                                                                                      \
        for (int mode = 0; mode < NMODES; mode++) {                                                          \
            const sel_t *sel = make_sel(mode, selbuf);                                                       \
            for (uint32_t i = 0; i <= VECTOR_SIZE; i++)                                                      \
                work[i] = (T)((int64_t)rnd(201) - 100);                                                      \
            T *d = work + data_off(mode);                                                                    \
            make_validity(vbuf, 15);                                                                         \
            for (uint32_t ni = 0; ni < NNS; ni++) {                                                          \
                uint32_t n = NS[ni];                                                                         \
                if (n == 0) continue;                                                                        \
                uint32_t pos[] = {0, 1, n / 2, n / 8 * 8, n / 4 * 4, n - 1, rnd(n)};                         \
                for (uint32_t k = 0; k < sizeof pos / sizeof pos[0]; k++) {                                  \
                    uint32_t p = pos[k];                                                                     \
                    if (p >= n) continue;                                                                    \
                    uint32_t i = IDX(sel, p);                                                                \
                    T keep = d[i];                                                                           \
                    bool kept_bit = bit_of(vbuf, i);                                                         \
                    for (uint32_t j = 0; j < sizeof plant / sizeof plant[0]; j++) {                          \
                        d[i] = plant[j];                                                                     \
                        snprintf(ctx, sizeof ctx,                                                            \
                                 "%s, %lld planted at row %u (index %u), no bitmap (seed %llu)", MODE[mode], \
                                 (long long)plant[j], p, i, (unsigned long long)seed);                       \
                        run_minmax_##SUF(d, sel, NULL, n, ctx);                                              \
                        set_bit(vbuf, i);                                                                    \
                        snprintf(ctx, sizeof ctx,                                                            \
                                 "%s, %lld planted at row %u (index %u), valid, few NULLs (seed %llu)",      \
                                 MODE[mode], (long long)plant[j], p, i, (unsigned long long)seed);           \
                        run_minmax_##SUF(d, sel, vbuf, n, ctx);                                              \
                        vbuf[i / 64] &= ~((uint64_t)1 << (i % 64));                                          \
                        snprintf(ctx, sizeof ctx,                                                            \
                                 "%s, %lld planted at row %u (index %u), NULL, few NULLs (seed %llu)",       \
                                 MODE[mode], (long long)plant[j], p, i, (unsigned long long)seed);           \
                        run_minmax_##SUF(d, sel, vbuf, n, ctx);                                              \
                        memset(one, 0, sizeof one);                                                          \
                        set_bit(one, i);                                                                     \
                        snprintf(ctx, sizeof ctx,                                                            \
                                 "%s, %lld planted at row %u (index %u), the only valid one (seed %llu)",    \
                                 MODE[mode], (long long)plant[j], p, i, (unsigned long long)seed);           \
                        run_minmax_##SUF(d, sel, one, n, ctx);                                               \
                    }                                                                                        \
                    d[i] = keep;                                                                             \
                    if (kept_bit) set_bit(vbuf, i);                                                          \
                }                                                                                            \
            }                                                                                                \
        }                                                                                                    \
    }                                                                                                        \
                                                                                                             \
    /* minmax_T: mixed data (edges among the valid rows), small values (poisoned NULLs stand out),           \
    ** all the minimum (NULLs hold the maximum), all the maximum, then the planted rows. */                  \
    static void minmax_##SUF(uint64_t seed) {                                                                \
        static T base[VECTOR_SIZE + 1];                                                                      \
        static const int64_t edges[] = {TMIN, (int64_t)TMIN + 1, -1, 0, 1, (int64_t)TMAX - 1, TMAX};         \
        int64_t pool[NPOOL];                                                                                 \
        rng_seed(seed);                                                                                      \
        for (int i = 0; i < NPOOL; i++)                                                                      \
            pool[i] = gen_any(TMIN, TMAX);                                                                   \
        for (uint32_t i = 0; i <= VECTOR_SIZE; i++)                                                          \
            base[i] = (T)gen_int(edges, 7, pool, TMIN, TMAX, false);                                         \
        check_minmax_##SUF(base, "mixed", seed);                                                             \
        for (uint32_t i = 0; i <= VECTOR_SIZE; i++)                                                          \
            base[i] = (T)((int64_t)rnd(2001) - 1000);                                                        \
        check_minmax_##SUF(base, "small", seed);                                                             \
        for (uint32_t i = 0; i <= VECTOR_SIZE; i++)                                                          \
            base[i] = TMIN;                                                                                  \
        check_minmax_##SUF(base, "all " #TMIN, seed);                                                        \
        for (uint32_t i = 0; i <= VECTOR_SIZE; i++)                                                          \
            base[i] = TMAX;                                                                                  \
        check_minmax_##SUF(base, "all " #TMAX, seed);                                                        \
        for (uint32_t i = 0; i <= VECTOR_SIZE; i++)                                                          \
            base[i] = (T)(i % 2 ? TMAX - (int64_t)rnd(3) : TMIN + (int64_t)rnd(3));                          \
        check_minmax_##SUF(base, "near both extremes", seed);                                                \
        plant_minmax_##SUF(seed + 100);                                                                      \
    }

DEFINE_MINMAX(i16, int16_t, INT16_MIN, INT16_MAX)
DEFINE_MINMAX(i32, int32_t, INT32_MIN, INT32_MAX)
DEFINE_MINMAX(i64, int64_t, INT64_MIN, INT64_MAX)

Test(kernel, minmax_i16) { minmax_i16(17); }
Test(kernel, minmax_i32) { minmax_i32(18); }
Test(kernel, minmax_i64) { minmax_i64(19); }

/* A few results stated outright. */
Test(kernel, minmax_fixed) {
    const int64_t d[6] = {5, INT64_MIN, -3, INT64_MAX, 7, 0};
    uint64_t validity[1] = {0x3du}; /* row 1 (INT64_MIN) NULL */
    int64_t mn = 42, mx = 43;
    cr_assert_eq(kern_minmax_i64(d, NULL, NULL, 6, &mn, &mx), 6u);
    cr_assert(mn == INT64_MIN && mx == INT64_MAX, "%lld %lld", (long long)mn, (long long)mx);
    cr_assert_eq(kern_minmax_i64(d, NULL, validity, 6, &mn, &mx), 5u);
    cr_assert(mn == -3 && mx == INT64_MAX, "INT64_MIN is NULL: %lld %lld", (long long)mn, (long long)mx);
    validity[0] = 0;
    mn = 42, mx = 43;
    cr_assert_eq(kern_minmax_i64(d, NULL, validity, 6, &mn, &mx), 0u);
    cr_assert(mn == 42 && mx == 43, "all NULL: *min, *max changed to %lld %lld", (long long)mn,
              (long long)mx);
    cr_assert_eq(kern_minmax_i64(d, NULL, NULL, 0, &mn, &mx), 0u);
    cr_assert(mn == 42 && mx == 43, "n = 0: *min, *max changed to %lld %lld", (long long)mn, (long long)mx);
    const int16_t s[9] = {1, 2, 3, 4, 5, 6, 7, 8, INT16_MIN};
    const sel_t sel[3] = {8, 0, 8};
    cr_assert_eq(kern_minmax_i16(s, sel, NULL, 3, &mn, &mx), 3u);
    cr_assert(mn == INT16_MIN && mx == 1, "%lld %lld", (long long)mn, (long long)mx);
    const int32_t w[9] = {INT32_MAX, -1, -1, -1, -1, -1, -1, -1, -2};
    cr_assert_eq(kern_minmax_i32(w, NULL, NULL, 9, &mn, &mx), 9u);
    cr_assert(mn == -2 && mx == INT32_MAX, "%lld %lld", (long long)mn, (long long)mx);
}

/* ---- grouped sums -------------------------------------------------------------------------- */

/* The group counts: 1, around the KERN_GROUP_LANES lanes, many, and up to KERN_GROUPS_MAX. */
static const uint32_t NGROUPS[] = {1, 2, 3, 4, 7, 8, 9, 100, 255, KERN_GROUPS_MAX};
#define NNG (sizeof NGROUPS / sizeof NGROUPS[0])

/* How rows are spread over the groups: at random; all in the last group; sorted runs (consecutive
** rows share a group, as grouped or clustered data do; some groups skipped); alternating between
** the first and the last group; cycling 0, 1, ..., ngroups - 1 (with 8 groups each lane always
** sees the same group). */
enum { G_RANDOM, G_ONE, G_RUNS, G_ALTERNATE, G_CYCLE, NGM };
static const char *const GM[NGM] = {"random gids", "one group", "sorted runs", "alternating gids",
                                    "cycling gids"};

/* make_gids fills gids[0..VECTOR_SIZE-1] for mode gm, each < ngroups. */
static void make_gids(int gm, uint32_t ngroups, uint32_t *gids) {
    uint32_t g = 0, left = 0, mean = 2 * VECTOR_SIZE / ngroups;
    for (uint32_t r = 0; r < VECTOR_SIZE; r++) {
        switch (gm) {
        case G_RANDOM: gids[r] = rnd(ngroups); break;
        case G_ONE: gids[r] = ngroups - 1; break;
        case G_RUNS:
            if (left == 0) {
                if (r > 0) g += 1 + (rnd(4) == 0);
                if (g >= ngroups) g = ngroups - 1;
                left = 1 + rnd(mean > 1 ? mean : 1);
            }
            left--;
            gids[r] = g;
            break;
        case G_ALTERNATE: gids[r] = r % 2 ? ngroups - 1 : 0; break;
        default: gids[r] = r % ngroups; break;
        }
    }
}

/* An accumulator array has KERN_GROUPS_MAX + GUARD entries; those at and past ngroups hold
** CANARY64 and must not change. */
#define ACCBUF (KERN_GROUPS_MAX + GUARD)

/* fill_acc_i64: nonzero values of either sign (or positive: pos) in the first ngroups entries. */
static void fill_acc_i64(int64_t *acc, uint32_t ngroups, bool pos) {
    for (uint32_t g = 0; g < ACCBUF; g++)
        acc[g] = g < ngroups ? (pos || rnd(2) ? 1 : -1) * (int64_t)(1 + rnd(1000)) : (int64_t)CANARY64;
}

/* check_acc_i64 compares acc with want (ngroups entries) and the canaries after them. */
static void check_acc_i64(const int64_t *acc, const __int128 *want, uint32_t ngroups, const char *kern,
                          const char *ctx) {
    char g1[48], w1[48];
    for (uint32_t g = 0; g < ngroups; g++)
        if ((__int128)acc[g] != want[g])
            cr_assert_fail("%s %s: acc[%u] = %s, want %s", kern, ctx, g, i128_str(acc[g], g1),
                           i128_str(want[g], w1));
    for (uint32_t g = ngroups; g < ACCBUF; g++)
        if (acc[g] != (int64_t)CANARY64)
            cr_assert_fail("%s %s: wrote acc[%u] = %lld, at or past ngroups", kern, ctx, g,
                           (long long)acc[g]);
}

Test(kernel, group_count) {
    static uint32_t gids[VECTOR_SIZE];
    static int64_t acc[ACCBUF];
    static __int128 want[KERN_GROUPS_MAX];
    char ctx[160];
    rng_seed(20);
    for (uint32_t gi = 0; gi < NNG; gi++) {
        uint32_t ng = NGROUPS[gi];
        for (int gm = 0; gm < NGM; gm++) {
            make_gids(gm, ng, gids);
            for (uint32_t ni = 0; ni < NNS; ni++) {
                uint32_t n = NS[ni];
                fill_acc_i64(acc, ng, false);
                for (uint32_t g = 0; g < ng; g++)
                    want[g] = acc[g];
                for (uint32_t r = 0; r < n; r++)
                    want[gids[r]]++;
                kern_group_count(gids, n, ng, acc);
                snprintf(ctx, sizeof ctx, "n=%u ngroups=%u %s (seed 20)", n, ng, GM[gm]);
                check_acc_i64(acc, want, ng, "kern_group_count", ctx);
            }
        }
    }
}

/* kern_group_sum_i16 and _i32 return nothing: call_group_sum_T returns true for them. */
static bool call_group_sum_i16(const int16_t *d, const sel_t *sel, const uint32_t *gids, uint32_t n,
                               uint32_t ngroups, int64_t *acc) {
    kern_group_sum_i16(d, sel, gids, n, ngroups, acc);
    return true;
}
static bool call_group_sum_i32(const int32_t *d, const sel_t *sel, const uint32_t *gids, uint32_t n,
                               uint32_t ngroups, int64_t *acc) {
    kern_group_sum_i32(d, sel, gids, n, ngroups, acc);
    return true;
}
static bool call_group_sum_i64(const int64_t *d, const sel_t *sel, const uint32_t *gids, uint32_t n,
                               uint32_t ngroups, int64_t *acc) {
    return kern_group_sum_i64(d, sel, gids, n, ngroups, acc);
}

/* check_group_sum_T runs kern_group_sum_T over every ngroups, gid spread, mode and n on base, acc
** pre-filled (pos: with positive values), against an __int128 row-order reference; every value
** is in range, so kern_group_sum_i64 must return true. */
#define DEFINE_GROUP_SUM_INT(SUF, T)                                                                         \
    static void check_group_sum_##SUF(const T *base, const char *data, bool pos, uint64_t seed) {            \
        static sel_t selbuf[VECTOR_SIZE + 1];                                                                \
        static uint32_t gids[VECTOR_SIZE];                                                                   \
        static int64_t acc[ACCBUF];                                                                          \
        static __int128 want[KERN_GROUPS_MAX];                                                               \
        char ctx[200];                                                                                       \
        for (uint32_t gi = 0; gi < NNG; gi++) {                                                              \
            uint32_t ng = NGROUPS[gi];                                                                       \
            for (int gm = 0; gm < NGM; gm++) {                                                               \
                make_gids(gm, ng, gids);                                                                     \
                for (int mode = 0; mode < NMODES; mode++) {                                                  \
                    const sel_t *sel = make_sel(mode, selbuf);                                               \
                    const T *d = base + data_off(mode);                                                      \
                    for (uint32_t ni = 0; ni < NNS; ni++) {                                                  \
                        uint32_t n = NS[ni];                                                                 \
                        fill_acc_i64(acc, ng, pos);                                                          \
                        for (uint32_t g = 0; g < ng; g++)                                                    \
                            want[g] = acc[g];                                                                \
                        for (uint32_t r = 0; r < n; r++)                                                     \
                            want[gids[r]] += AT(d, sel, r);                                                  \
                        snprintf(ctx, sizeof ctx, "%s n=%u ngroups=%u %s %s (seed %llu)", data, n, ng,       \
                                 GM[gm], MODE[mode], (unsigned long long)seed);                              \
                        for (uint32_t g = 0; g < ng; g++)                                                    \
                            cr_assert(want[g] >= INT64_MIN && want[g] <= INT64_MAX,                          \
                                      "test data: group %u's sum leaves int64: %s", g, ctx);                 \
                        bool ok = call_group_sum_##SUF(d, sel, gids, n, ng, acc);                            \
                        cr_assert(ok,                                                                        \
                                  "kern_group_sum_" #SUF " %s: returned false, but every value is in "       \
                                  "[-2^52, 2^52)",                                                           \
                                  ctx);                                                                      \
                        check_acc_i64(acc, want, ng, "kern_group_sum_" #SUF, ctx);                           \
                    }                                                                                        \
                }                                                                                            \
            }                                                                                                \
        }                                                                                                    \
    }

DEFINE_GROUP_SUM_INT(i16, int16_t)
DEFINE_GROUP_SUM_INT(i32, int32_t)
DEFINE_GROUP_SUM_INT(i64, int64_t)

Test(kernel, group_sum_i16_i32) {
    static int16_t d16[VECTOR_SIZE + 1];
    static int32_t d32[VECTOR_SIZE + 1];
    rng_seed(21);
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d16[i] = (int16_t)gen_any(INT16_MIN, INT16_MAX);
    check_group_sum_i16(d16, "random", false, 21);
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d16[i] = i % 3 ? INT16_MIN : INT16_MAX;
    check_group_sum_i16(d16, "extremes", false, 21);
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d32[i] = (int32_t)gen_any(INT32_MIN, INT32_MAX);
    check_group_sum_i32(d32, "random", false, 21);
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d32[i] = i % 3 ? INT32_MIN : INT32_MAX;
    check_group_sum_i32(d32, "extremes", false, 21);
}

/* BIG: the magnitude where kern_group_sum_i64 gives up; values in [-BIG, BIG) are summed. */
#define BIG (INT64_C(1) << 52)

Test(kernel, group_sum_i64) {
    static int64_t d[VECTOR_SIZE + 1];
    rng_seed(22);
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d[i] = gen_any(-(BIG - 1), BIG - 1);
    check_group_sum_i64(d, "random in +-(2^52 - 1)", false, 22);
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d[i] = rnd(2) ? BIG - 1 - (int64_t)rnd(4) : -(BIG - 1) + (int64_t)rnd(4);
    check_group_sum_i64(d, "near +-(2^52 - 1)", false, 22);
    /* one sign throughout: 2048 of them reach about 2^63 in one group, still exact in int64 */
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d[i] = BIG - 1;
    check_group_sum_i64(d, "all 2^52 - 1", false, 22);
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d[i] = -BIG;
    check_group_sum_i64(d, "all -2^52", true, 22);
}

/* A value out of [-2^52, 2^52) anywhere (first row, second, middle, last of the 8-row groups,
** first of the tail after them, last row, random): kern_group_sum_i64 returns false and acc does
** not change; -2^52 and 2^52 - 1 in the same places are summed. */
Test(kernel, group_sum_i64_range) {
    static int64_t base[VECTOR_SIZE + 1];
    static sel_t selbuf[VECTOR_SIZE + 1];
    static uint32_t gids[VECTOR_SIZE];
    static int64_t acc[ACCBUF], before[ACCBUF];
    static __int128 want[KERN_GROUPS_MAX];
    static const int64_t out[] = {BIG, -BIG - 1, INT64_MIN, INT64_MAX};
    static const int64_t in[] = {-BIG, BIG - 1};
    static const uint32_t ngs[] = {1, 7, 9, KERN_GROUPS_MAX};
    char ctx[240];
    rng_seed(23);
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        base[i] = gen_any(-(BIG - 1), BIG - 1);
    for (uint32_t gi = 0; gi < sizeof ngs / sizeof ngs[0]; gi++) {
        uint32_t ng = ngs[gi];
        for (int gm = 0; gm < NGM; gm++) {
            make_gids(gm, ng, gids);
            for (int mode = 0; mode < NMODES; mode++) {
                const sel_t *sel = make_sel(mode, selbuf);
                int64_t *d = base + data_off(mode);
                for (uint32_t ni = 0; ni < NNS; ni++) {
                    uint32_t n = NS[ni];
                    if (n == 0) continue;
                    uint32_t tail = n / KERN_GROUP_LANES * KERN_GROUP_LANES;
                    uint32_t pos[] = {0, 1, n / 2, tail - 1, tail, n - 1, rnd(n)};
                    for (uint32_t k = 0; k < sizeof pos / sizeof pos[0]; k++) {
                        uint32_t p = pos[k];
                        if (p >= n) continue;
                        uint32_t i = IDX(sel, p);
                        int64_t keep = d[i];
                        for (uint32_t j = 0; j < sizeof out / sizeof out[0]; j++) {
                            d[i] = out[j];
                            fill_acc_i64(acc, ng, false);
                            memcpy(before, acc, sizeof acc);
                            bool ok = kern_group_sum_i64(d, sel, gids, n, ng, acc);
                            snprintf(ctx, sizeof ctx,
                                     "n=%u ngroups=%u %s %s, %lld at row %u (index %u, group %u)", n, ng,
                                     GM[gm], MODE[mode], (long long)out[j], p, i, gids[p]);
                            cr_assert(!ok, "kern_group_sum_i64 %s: returned true", ctx);
                            for (uint32_t g = 0; g < ACCBUF; g++)
                                if (acc[g] != before[g])
                                    cr_assert_fail(
                                        "kern_group_sum_i64 %s: returned false but changed acc[%u] "
                                        "from %lld to %lld",
                                        ctx, g, (long long)before[g], (long long)acc[g]);
                        }
                        for (uint32_t j = 0; j < sizeof in / sizeof in[0]; j++) {
                            d[i] = in[j];
                            fill_acc_i64(acc, ng, false);
                            for (uint32_t g = 0; g < ng; g++)
                                want[g] = acc[g];
                            for (uint32_t r = 0; r < n; r++)
                                want[gids[r]] += AT(d, sel, r);
                            bool ok = kern_group_sum_i64(d, sel, gids, n, ng, acc);
                            snprintf(ctx, sizeof ctx,
                                     "n=%u ngroups=%u %s %s, %lld at row %u (index %u, group %u)", n, ng,
                                     GM[gm], MODE[mode], (long long)in[j], p, i, gids[p]);
                            cr_assert(ok, "kern_group_sum_i64 %s: returned false, but the value is in range",
                                      ctx);
                            check_acc_i64(acc, want, ng, "kern_group_sum_i64", ctx);
                        }
                        d[i] = keep;
                    }
                }
            }
        }
    }
}

/* check_group_sum_f64: as check_group_sum_T for DOUBLE, on quarters (every partial sum exact, so
** the lanes' order of adding does not show): the sums must be exact. */
static void check_group_sum_f64(const double *base, const char *data, uint64_t seed) {
    static sel_t selbuf[VECTOR_SIZE + 1];
    static uint32_t gids[VECTOR_SIZE];
    static double acc[ACCBUF], want[KERN_GROUPS_MAX];
    char ctx[200];
    for (uint32_t gi = 0; gi < NNG; gi++) {
        uint32_t ng = NGROUPS[gi];
        for (int gm = 0; gm < NGM; gm++) {
            make_gids(gm, ng, gids);
            for (int mode = 0; mode < NMODES; mode++) {
                const sel_t *sel = make_sel(mode, selbuf);
                const double *d = base + data_off(mode);
                for (uint32_t ni = 0; ni < NNS; ni++) {
                    uint32_t n = NS[ni];
                    for (uint32_t g = 0; g < ACCBUF; g++)
                        acc[g] = g < ng ? (rnd(2) ? 0.25 : -0.25) * (1 + rnd(4000)) : from_bits(CANARY64);
                    for (uint32_t g = 0; g < ng; g++)
                        want[g] = acc[g];
                    for (uint32_t r = 0; r < n; r++)
                        want[gids[r]] += AT(d, sel, r);
                    kern_group_sum_f64(d, sel, gids, n, ng, acc);
                    snprintf(ctx, sizeof ctx, "%s n=%u ngroups=%u %s %s (seed %llu)", data, n, ng, GM[gm],
                             MODE[mode], (unsigned long long)seed);
                    for (uint32_t g = 0; g < ng; g++)
                        if (acc[g] != want[g])
                            cr_assert_fail("kern_group_sum_f64 %s: acc[%u] = %.17g, want exactly %.17g", ctx,
                                           g, acc[g], want[g]);
                    for (uint32_t g = ng; g < ACCBUF; g++)
                        if (bits_of(acc[g]) != CANARY64)
                            cr_assert_fail("kern_group_sum_f64 %s: wrote acc[%u] = %g, at or past ngroups",
                                           ctx, g, acc[g]);
                }
            }
        }
    }
}

Test(kernel, group_sum_f64) {
    static double d[VECTOR_SIZE + 1];
    rng_seed(24);
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d[i] = ((double)rnd(16385) - 8192) * 0.25;
    check_group_sum_f64(d, "quarters", 24);
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d[i] = (double)(INT64_C(1) << 38) + (double)rnd(1000) * 0.25;
    check_group_sum_f64(d, "large quarters", 24); /* sums below 2^50: quarters stay exact */
}

/* A few results stated outright. */
Test(kernel, group_fixed) {
    const uint32_t gids[10] = {0, 2, 0, 2, 2, 0, 0, 0, 0, 2}; /* group 1 absent */
    const int64_t d[10] = {1, 10, 2, 20, 30, 3, 4, 5, 6, -BIG};
    int64_t acc[4] = {100, 200, 300, 400};
    kern_group_count(gids, 10, 3, acc);
    cr_assert(acc[0] == 106 && acc[1] == 200 && acc[2] == 304 && acc[3] == 400, "count: %lld %lld %lld %lld",
              (long long)acc[0], (long long)acc[1], (long long)acc[2], (long long)acc[3]);
    cr_assert(kern_group_sum_i64(d, NULL, gids, 10, 3, acc), "-2^52 is in range");
    cr_assert(acc[0] == 127 && acc[1] == 200 && acc[2] == 364 - BIG && acc[3] == 400,
              "sum: %lld %lld %lld %lld", (long long)acc[0], (long long)acc[1], (long long)acc[2],
              (long long)acc[3]);
    const int64_t e[10] = {1, 10, 2, 20, 30, 3, 4, 5, 6, BIG};
    cr_assert(!kern_group_sum_i64(e, NULL, gids, 10, 3, acc), "2^52 is out of range (in the tail)");
    cr_assert(acc[0] == 127 && acc[1] == 200 && acc[2] == 364 - BIG && acc[3] == 400,
              "unchanged: %lld %lld %lld %lld", (long long)acc[0], (long long)acc[1], (long long)acc[2],
              (long long)acc[3]);
    const double f[10] = {0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.25, 2.5};
    const sel_t sel[10] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
    double facc[3] = {-1, 7, 1};
    kern_group_sum_f64(f, sel, gids, 10, 3, facc);
    /* row r reads f[9 - r]: group 0 gets 2.5 + 2 + 1.25 + 1 + 0.75 + 0.5, group 2 2.25 + 1.75 + 1.5 + 0.25 */
    cr_assert(facc[0] == 7 && facc[1] == 7 && facc[2] == 6.75, "f64: %g %g %g", facc[0], facc[1], facc[2]);
}

/* ---- kern_arith_f64 ------------------------------------------------------------------------ */

static const char *const AOP[] = {"ADD", "SUB", "MUL", "DIV"};

/* The operand modes for the binary kernels: (a's, b's). */
static const int PAIRS[][2] = {{M_FLAT, M_FLAT},       {M_FLAT_OFF, M_FLAT}, {M_FLAT, M_RANDOM},
                               {M_RANDOM, M_FLAT_OFF}, {M_RANDOM, M_DESC},   {M_REPEAT, M_RANDOM_OFF}};
#define NPAIRS (sizeof PAIRS / sizeof PAIRS[0])

static double ref_arith_f64(kern_arith op, double u, double v) {
    switch (op) {
    case KERN_ADD: return u + v;
    case KERN_SUB: return u - v;
    case KERN_MUL: return u * v;
    default: return u / v;
    }
}

/* suspect_f64: the rows kern_arith_f64 must flag (kernel.h): an infinite result, a zero result of
** MUL or DIV, a zero divisor. */
static bool suspect_f64(kern_arith op, double v, double x) {
    return isinf(x) || ((op == KERN_MUL || op == KERN_DIV) && x == 0) || (op == KERN_DIV && v == 0);
}

/* check_arith_f64 runs kern_arith_f64 once, compares every row and the flag with the reference
** and that nothing is written past o[n-1], and returns the reference flag. */
static bool check_arith_f64(kern_arith op, const double *a, const sel_t *as, const double *b, const sel_t *bs,
                            uint32_t n, const char *ctx) {
    static double o[VECTOR_SIZE + GUARD];
    for (uint32_t i = 0; i < VECTOR_SIZE + GUARD; i++)
        o[i] = from_bits(CANARY64);
    bool flag = kern_arith_f64(op, a, as, b, bs, n, o);
    bool want = false;
    int64_t first = -1;
    for (uint32_t r = 0; r < n; r++) {
        double u = AT(a, as, r), v = AT(b, bs, r), x = ref_arith_f64(op, u, v);
        if (suspect_f64(op, v, x) && !want) want = true, first = r;
        if (!same_f64(o[r], x))
            cr_assert_fail("kern_arith_f64 %s n=%u %s: row %u: %a %s %a = %a, kernel wrote %a", AOP[op], n,
                           ctx, r, u, AOP[op], v, x, o[r]);
    }
    for (uint32_t i = n; i < VECTOR_SIZE + GUARD; i++)
        if (bits_of(o[i]) != CANARY64)
            cr_assert_fail("kern_arith_f64 %s n=%u %s: wrote o[%u] past n", AOP[op], n, ctx, i);
    if (flag != want) {
        if (want) {
            double u = AT(a, as, (uint32_t)first), v = AT(b, bs, (uint32_t)first);
            cr_assert_fail("kern_arith_f64 %s n=%u %s: returned false, but row %lld gives %a %s %a = %a",
                           AOP[op], n, ctx, (long long)first, u, AOP[op], v, ref_arith_f64(op, u, v));
        }
        cr_assert_fail(
            "kern_arith_f64 %s n=%u %s: returned true, but no row is infinite, zero or divides by zero",
            AOP[op], n, ctx);
    }
    return want;
}

/* shared: whether a row of 0..n-1 other than r reads index i through sel (a planted value then
** meets other operands there, and a harmless plant may make some other row suspect). */
static bool shared(const sel_t *sel, uint32_t n, uint32_t r, uint32_t i) {
    for (uint32_t q = 0; q < n; q++)
        if (q != r && IDX(sel, q) == i) return true;
    return false;
}

/* ordinary: a nonzero finite number in [2^-20, 2^21) of either sign: no operation of two of them
** overflows, underflows, is zero (MUL, DIV) or divides by zero. */
static double ordinary(void) {
    return (rnd(2) ? -1.0 : 1.0) * (1.0 + (double)rnd(1u << 30) / (1u << 30)) * ldexp(1.0, (int)rnd(41) - 20);
}

/* A planted row: operands and whether the flag must be raised. */
typedef struct plant_f64 {
    double u, v;
    bool suspect;
} plant_f64;

static const plant_f64 *plants_f64(kern_arith op, int *count) {
    static plant_f64 p[4][12];
    static int np[4];
    const double tiny = 1e-300, huge = 1e300;
    int k = 0;
    /* ADD */
    p[0][k++] = (plant_f64){DBL_MAX, DBL_MAX, true};
    p[0][k++] = (plant_f64){-DBL_MAX, -DBL_MAX, true};
    p[0][k++] = (plant_f64){INFINITY, 1.0, true};
    p[0][k++] = (plant_f64){1.0, -INFINITY, true};
    p[0][k++] = (plant_f64){INFINITY, -INFINITY, false}; /* NaN */
    p[0][k++] = (plant_f64){NAN, 1.0, false};
    p[0][k++] = (plant_f64){5.0, -5.0, false}; /* zero: only MUL and DIV flag it */
    p[0][k++] = (plant_f64){DBL_TRUE_MIN, -DBL_TRUE_MIN, false};
    np[0] = k, k = 0;
    /* SUB */
    p[1][k++] = (plant_f64){DBL_MAX, -DBL_MAX, true};
    p[1][k++] = (plant_f64){-DBL_MAX, DBL_MAX, true};
    p[1][k++] = (plant_f64){-INFINITY, 1.0, true};
    p[1][k++] = (plant_f64){1.0, INFINITY, true};
    p[1][k++] = (plant_f64){INFINITY, INFINITY, false}; /* NaN */
    p[1][k++] = (plant_f64){3.0, 3.0, false};
    p[1][k++] = (plant_f64){1.0, NAN, false};
    np[1] = k, k = 0;
    /* MUL */
    p[2][k++] = (plant_f64){huge, huge, true};
    p[2][k++] = (plant_f64){-huge, huge, true};
    p[2][k++] = (plant_f64){tiny, tiny, true}; /* underflows to zero */
    p[2][k++] = (plant_f64){DBL_TRUE_MIN, 0.5, true};
    p[2][k++] = (plant_f64){0.0, 5.0, true};
    p[2][k++] = (plant_f64){3.0, -0.0, true};
    p[2][k++] = (plant_f64){INFINITY, 2.0, true};
    p[2][k++] = (plant_f64){INFINITY, 0.0, false}; /* NaN */
    p[2][k++] = (plant_f64){NAN, 0.5, false};
    p[2][k++] = (plant_f64){DBL_MIN, 0.5, false}; /* a denormal, not zero */
    np[2] = k, k = 0;
    /* DIV */
    p[3][k++] = (plant_f64){1.0, 0.0, true};
    p[3][k++] = (plant_f64){-1.0, -0.0, true};
    p[3][k++] = (plant_f64){0.0, 0.0, true}; /* NaN, but the divisor is zero */
    p[3][k++] = (plant_f64){NAN, 0.0, true};
    p[3][k++] = (plant_f64){huge, tiny, true};
    p[3][k++] = (plant_f64){tiny, huge, true};
    p[3][k++] = (plant_f64){0.0, 7.0, true};
    p[3][k++] = (plant_f64){INFINITY, 2.0, true};
    p[3][k++] = (plant_f64){INFINITY, INFINITY, false}; /* NaN */
    p[3][k++] = (plant_f64){NAN, 2.0, false};
    p[3][k++] = (plant_f64){2.0, INFINITY, true}; /* zero */
    np[3] = k;
    *count = np[op];
    return p[op];
}

Test(kernel, arith_f64) {
    static double A[VECTOR_SIZE + 1], B[VECTOR_SIZE + 1];
    static sel_t sa[VECTOR_SIZE + 1], sb[VECTOR_SIZE + 1];
    char ctx[160];
    rng_seed(14);
    for (uint32_t pi = 0; pi < NPAIRS; pi++) {
        const sel_t *as = make_sel(PAIRS[pi][0], sa), *bs = make_sel(PAIRS[pi][1], sb);
        double *a = A + data_off(PAIRS[pi][0]), *b = B + data_off(PAIRS[pi][1]);
        for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
            A[i] = ordinary(), B[i] = ordinary();
        for (uint32_t ni = 0; ni < NNS; ni++) {
            uint32_t n = NS[ni];
            for (int op = KERN_ADD; op <= KERN_DIV; op++) {
                snprintf(ctx, sizeof ctx, "a %s, b %s, ordinary data", MODE[PAIRS[pi][0]],
                         MODE[PAIRS[pi][1]]);
                cr_assert(!check_arith_f64((kern_arith)op, a, as, b, bs, n, ctx), "test data: %s", ctx);
                if (n == 0) continue;
                int np;
                const plant_f64 *plants = plants_f64((kern_arith)op, &np);
                /* start, second row, middle, first row of the scalar tail (when n % 4), end */
                uint32_t pos[] = {0, 1, 3, n / 2, n / 4 * 4, n - 2, n - 1, rnd(n)};
                for (uint32_t k = 0; k < sizeof pos / sizeof pos[0]; k++) {
                    uint32_t r = pos[k];
                    if (r >= n) continue;
                    uint32_t ia = IDX(as, r), ib = IDX(bs, r);
                    double keep_a = a[ia], keep_b = b[ib];
                    for (int j = 0; j < np; j++) {
                        a[ia] = plants[j].u, b[ib] = plants[j].v;
                        snprintf(ctx, sizeof ctx, "a %s, b %s, row %u = %a %s %a planted", MODE[PAIRS[pi][0]],
                                 MODE[PAIRS[pi][1]], r, plants[j].u, AOP[op], plants[j].v);
                        bool want = check_arith_f64((kern_arith)op, a, as, b, bs, n, ctx);
                        if (plants[j].suspect || !(shared(as, n, r, ia) || shared(bs, n, r, ib)))
                            cr_assert_eq(want, plants[j].suspect, "test data: %s", ctx);
                    }
                    a[ia] = keep_a, b[ib] = keep_b;
                }
            }
        }
        /* edge values everywhere, against the flag's definition */
        init_specials();
        for (uint32_t i = 0; i <= VECTOR_SIZE; i++) {
            A[i] = rnd(4) ? ordinary() : specials[rnd(NSPECIAL)];
            B[i] = rnd(4) ? ordinary() : specials[rnd(NSPECIAL)];
        }
        for (uint32_t ni = 0; ni < NNS; ni++)
            for (int op = KERN_ADD; op <= KERN_DIV; op++) {
                snprintf(ctx, sizeof ctx, "a %s, b %s, edge values", MODE[PAIRS[pi][0]], MODE[PAIRS[pi][1]]);
                check_arith_f64((kern_arith)op, a, as, b, bs, NS[ni], ctx);
            }
    }
}

/* ---- kern_arith_i64 ------------------------------------------------------------------------ */

static bool exact_out(kern_arith op, int64_t u, int64_t v, int64_t lo, int64_t hi, int64_t *wrapped) {
    __int128 x = op == KERN_ADD ? (__int128)u + v : op == KERN_SUB ? (__int128)u - v : (__int128)u * v;
    *wrapped = (int64_t)(uint64_t)(unsigned __int128)x;
    return x < lo || x > hi;
}

/* check_arith_i64 runs kern_arith_i64 once and compares the flag with the exact reference, and
** every row when no row is out of [lo, hi]; returns the reference flag. */
static bool check_arith_i64(kern_arith op, const int64_t *a, const sel_t *as, const int64_t *b,
                            const sel_t *bs, uint32_t n, int64_t lo, int64_t hi, const char *ctx) {
    static int64_t o[VECTOR_SIZE + GUARD];
    for (uint32_t i = 0; i < VECTOR_SIZE + GUARD; i++)
        o[i] = (int64_t)CANARY64;
    bool flag = kern_arith_i64(op, a, as, b, bs, n, lo, hi, o);
    bool want = false;
    int64_t first = -1;
    for (uint32_t r = 0; r < n; r++) {
        int64_t x;
        if (exact_out(op, AT(a, as, r), AT(b, bs, r), lo, hi, &x) && !want) want = true, first = r;
    }
    if (flag != want) {
        if (want)
            cr_assert_fail(
                "kern_arith_i64 %s [%lld, %lld] n=%u %s: returned false, but row %lld: %lld %s %lld is out",
                AOP[op], (long long)lo, (long long)hi, n, ctx, (long long)first,
                (long long)AT(a, as, (uint32_t)first), AOP[op], (long long)AT(b, bs, (uint32_t)first));
        cr_assert_fail("kern_arith_i64 %s [%lld, %lld] n=%u %s: returned true, but every row is in range",
                       AOP[op], (long long)lo, (long long)hi, n, ctx);
    }
    if (!want)
        for (uint32_t r = 0; r < n; r++) {
            int64_t u = AT(a, as, r), v = AT(b, bs, r), x;
            exact_out(op, u, v, lo, hi, &x);
            if (o[r] != x)
                cr_assert_fail("kern_arith_i64 %s n=%u %s: row %u: %lld %s %lld = %lld, kernel wrote %lld",
                               AOP[op], n, ctx, r, (long long)u, AOP[op], (long long)v, (long long)x,
                               (long long)o[r]);
        }
    for (uint32_t i = n; i < VECTOR_SIZE + GUARD; i++)
        if (o[i] != (int64_t)CANARY64)
            cr_assert_fail("kern_arith_i64 %s n=%u %s: wrote o[%u] past n", AOP[op], n, ctx, i);
    return want;
}

typedef struct plant_i64 {
    int64_t u, v;
    bool out;
} plant_i64;

/* plants_i64: rows out of [lo, hi] (or overflowing int64) and rows exactly on a bound, for the
** symmetric bounds used below. */
static int plants_i64(kern_arith op, int64_t lo, int64_t hi, plant_i64 *p) {
    int k = 0;
    switch (op) {
    case KERN_ADD:
        p[k++] = (plant_i64){hi, 1, true};
        p[k++] = (plant_i64){lo, -1, true};
        p[k++] = (plant_i64){hi, hi, true};
        p[k++] = (plant_i64){lo, lo, true};
        p[k++] = (plant_i64){INT64_MAX, 1, true};
        p[k++] = (plant_i64){INT64_MIN, -1, true};
        p[k++] = (plant_i64){hi - 1, 1, false};
        p[k++] = (plant_i64){lo + 1, -1, false};
        p[k++] = (plant_i64){hi, lo, false};
        break;
    case KERN_SUB:
        p[k++] = (plant_i64){lo, 1, true};
        p[k++] = (plant_i64){hi, -1, true};
        p[k++] = (plant_i64){0, INT64_MIN, true};
        p[k++] = (plant_i64){INT64_MIN, 1, true};
        p[k++] = (plant_i64){INT64_MAX, -1, true};
        p[k++] = (plant_i64){lo, hi, true};
        p[k++] = (plant_i64){lo + 1, 1, false};
        p[k++] = (plant_i64){hi - 1, -1, false};
        p[k++] = (plant_i64){-1, lo, false};
        break;
    default:
        p[k++] = (plant_i64){hi, 2, true};
        p[k++] = (plant_i64){lo, 2, true};
        p[k++] = (plant_i64){INT64_MIN, -1, true};
        p[k++] = (plant_i64){INT64_C(1) << 32, INT64_C(1) << 32, true};
        p[k++] = (plant_i64){3037000500, 3037000500, true};
        p[k++] = (plant_i64){INT64_MAX, INT64_MAX, true};
        p[k++] = (plant_i64){lo, hi, true};
        p[k++] = (plant_i64){hi, 1, false};
        p[k++] = (plant_i64){lo, 1, false};
        p[k++] = (plant_i64){1, lo, false};
        p[k++] = (plant_i64){-1, hi, false};
        p[k++] = (plant_i64){0, INT64_MIN, false};
        break;
    }
    return k;
}

/* isqrt_floor: the largest m with m * m <= x. */
static int64_t isqrt_floor(int64_t x) {
    int64_t m = (int64_t)sqrt((double)x);
    while ((__int128)m * m > x)
        m--;
    while ((__int128)(m + 1) * (m + 1) <= x)
        m++;
    return m;
}

Test(kernel, arith_i64) {
    static int64_t A[VECTOR_SIZE + 1], B[VECTOR_SIZE + 1];
    static sel_t sa[VECTOR_SIZE + 1], sb[VECTOR_SIZE + 1];
    static const struct {
        int64_t lo, hi;
    } bounds[] = {{INT64_MIN, INT64_MAX}, {INT32_MIN, INT32_MAX}, {-1000, 1000}};
    char ctx[200];
    plant_i64 plants[16];
    rng_seed(15);
    for (uint32_t bi = 0; bi < sizeof bounds / sizeof bounds[0]; bi++) {
        int64_t lo = bounds[bi].lo, hi = bounds[bi].hi;
        for (uint32_t pi = 0; pi < NPAIRS; pi++) {
            const sel_t *as = make_sel(PAIRS[pi][0], sa), *bs = make_sel(PAIRS[pi][1], sb);
            int64_t *a = A + data_off(PAIRS[pi][0]), *b = B + data_off(PAIRS[pi][1]);
            for (int op = KERN_ADD; op <= KERN_MUL; op++) {
                /* in range: |u|, |v| <= hi / 4 (ADD, SUB), or <= sqrt(hi) / 2 (MUL) */
                int64_t m = op == KERN_MUL ? isqrt_floor(hi) / 2 : hi / 4;
                for (uint32_t i = 0; i <= VECTOR_SIZE; i++) {
                    A[i] = (int64_t)(rnd64() % (uint64_t)(2 * m + 1)) - m;
                    B[i] = (int64_t)(rnd64() % (uint64_t)(2 * m + 1)) - m;
                }
                int np = plants_i64((kern_arith)op, lo, hi, plants);
                for (uint32_t ni = 0; ni < NNS; ni++) {
                    uint32_t n = NS[ni];
                    snprintf(ctx, sizeof ctx, "a %s, b %s, in-range data", MODE[PAIRS[pi][0]],
                             MODE[PAIRS[pi][1]]);
                    cr_assert(!check_arith_i64((kern_arith)op, a, as, b, bs, n, lo, hi, ctx), "test data: %s",
                              ctx);
                    if (n == 0) continue;
                    uint32_t pos[] = {0, 1, 3, n / 2, n / 4 * 4, n - 2, n - 1, rnd(n)};
                    for (uint32_t k = 0; k < sizeof pos / sizeof pos[0]; k++) {
                        uint32_t r = pos[k];
                        if (r >= n) continue;
                        uint32_t ia = IDX(as, r), ib = IDX(bs, r);
                        int64_t keep_a = a[ia], keep_b = b[ib];
                        for (int j = 0; j < np; j++) {
                            a[ia] = plants[j].u, b[ib] = plants[j].v;
                            snprintf(ctx, sizeof ctx, "a %s, b %s, row %u = %lld %s %lld planted",
                                     MODE[PAIRS[pi][0]], MODE[PAIRS[pi][1]], r, (long long)plants[j].u,
                                     AOP[op], (long long)plants[j].v);
                            bool want = check_arith_i64((kern_arith)op, a, as, b, bs, n, lo, hi, ctx);
                            if (plants[j].out || !(shared(as, n, r, ia) || shared(bs, n, r, ib)))
                                cr_assert_eq(want, plants[j].out, "test data: %s", ctx);
                        }
                        a[ia] = keep_a, b[ib] = keep_b;
                    }
                }
            }
        }
    }

    /* wild data (mostly small, some extremes, some anything) against the reference, also with
    ** one-sided bounds */
    static const struct {
        int64_t lo, hi;
    } wild[] = {{INT64_MIN, INT64_MAX}, {INT32_MIN, INT32_MAX}, {INT64_MIN, 0}, {0, INT64_MAX}, {-5, 7}};
    static const int64_t edges[] = {INT64_MIN,
                                    INT64_MAX,
                                    INT32_MIN,
                                    INT32_MAX,
                                    -1,
                                    0,
                                    1,
                                    (int64_t)INT32_MAX + 1,
                                    (int64_t)INT32_MIN - 1,
                                    3037000499,
                                    -3037000499};
    for (uint32_t pi = 0; pi < NPAIRS; pi++) {
        const sel_t *as = make_sel(PAIRS[pi][0], sa), *bs = make_sel(PAIRS[pi][1], sb);
        int64_t *a = A + data_off(PAIRS[pi][0]), *b = B + data_off(PAIRS[pi][1]);
        for (uint32_t i = 0; i <= VECTOR_SIZE; i++) {
            uint32_t ka = rnd(100), kb = rnd(100);
            A[i] = ka < 97 ? (int64_t)rnd(7) - 3 : ka < 99 ? edges[rnd(11)] : (int64_t)rnd64();
            B[i] = kb < 97 ? (int64_t)rnd(7) - 3 : kb < 99 ? edges[rnd(11)] : (int64_t)rnd64();
        }
        for (uint32_t wi = 0; wi < sizeof wild / sizeof wild[0]; wi++)
            for (uint32_t ni = 0; ni < NNS; ni++)
                for (int op = KERN_ADD; op <= KERN_MUL; op++) {
                    snprintf(ctx, sizeof ctx, "a %s, b %s, wild data", MODE[PAIRS[pi][0]],
                             MODE[PAIRS[pi][1]]);
                    check_arith_i64((kern_arith)op, a, as, b, bs, NS[ni], wild[wi].lo, wild[wi].hi, ctx);
                }
    }
}

/* ---- kern_dec_mul, kern_dec_add, kern_dec_sub ---------------------------------------------- */

enum { DEC_MUL, DEC_ADD, DEC_SUB };
static const char *const DEC_NAME[] = {"kern_dec_mul", "kern_dec_add", "kern_dec_sub"};

#define E9 INT64_C(1000000000)
#define E18 INT64_C(1000000000000000000)
#define TWO31 (INT64_C(1) << 31)
/* The result bounds (lim, a DECIMAL's 10^precision) and the scale factors tested. */
static const int64_t DEC_LIMS[] = {10, E9, E18};
#define NDEC_LIMS (sizeof DEC_LIMS / sizeof DEC_LIMS[0])
static const int64_t DEC_FACTORS[] = {1, 10, 100, E9};
#define NDEC_FACTORS (sizeof DEC_FACTORS / sizeof DEC_FACTORS[0])

static bool in_i32(__int128 x) { return x >= INT32_MIN && x <= INT32_MAX; }

/* dec_exact: row (u, v)'s exact result, u * v or u * fa +/- v * fb. */
static __int128 dec_exact(int kind, int64_t u, int64_t fa, int64_t v, int64_t fb) {
    switch (kind) {
    case DEC_MUL: return (__int128)u * v;
    case DEC_ADD: return (__int128)u * fa + (__int128)v * fb;
    default: return (__int128)u * fa - (__int128)v * fb;
    }
}

/* dec_row_ok: kernel.h's condition for one row: both operands within int32 and |result| < lim. */
static bool dec_row_ok(int kind, int64_t u, int64_t fa, int64_t v, int64_t fb, int64_t lim) {
    __int128 x = dec_exact(kind, u, fa, v, fb);
    return in_i32(u) && in_i32(v) && x > -(__int128)lim && x < lim;
}

static bool run_dec(int kind, const int64_t *a, const sel_t *as, int64_t fa, const int64_t *b,
                    const sel_t *bs, int64_t fb, uint32_t n, int64_t lim, int64_t *o) {
    switch (kind) {
    case DEC_MUL: return kern_dec_mul(a, as, b, bs, n, lim, o);
    case DEC_ADD: return kern_dec_add(a, as, fa, b, bs, fb, n, lim, o);
    default: return kern_dec_sub(a, as, fa, b, bs, fb, n, lim, o);
    }
}

/* dec_row_str prints row (u, v)'s computation and exact result. */
static const char *dec_row_str(int kind, int64_t u, int64_t fa, int64_t v, int64_t fb, char *buf,
                               size_t size) {
    char xs[48];
    i128_str(dec_exact(kind, u, fa, v, fb), xs);
    if (kind == DEC_MUL)
        snprintf(buf, size, "%lld * %lld = %s", (long long)u, (long long)v, xs);
    else
        snprintf(buf, size, "%lld * %lld %c %lld * %lld = %s", (long long)u, (long long)fa,
                 kind == DEC_ADD ? '+' : '-', (long long)v, (long long)fb, xs);
    return buf;
}

/* check_dec runs one DECIMAL kernel once against the reference: it must return true exactly when
** the factors are at most INT32_MAX (kern_dec_add, kern_dec_sub) and every row's operands are
** within int32 and its result's magnitude below lim, and then every o[r] must be the exact result;
** nothing is written past o[n - 1] either way. Returns the reference's answer. */
static bool check_dec(int kind, const int64_t *a, const sel_t *as, int64_t fa, const int64_t *b,
                      const sel_t *bs, int64_t fb, uint32_t n, int64_t lim, const char *ctx) {
    static int64_t o[VECTOR_SIZE + GUARD];
    char what[128], row[160];
    for (uint32_t i = 0; i < n + GUARD; i++)
        o[i] = (int64_t)CANARY64;
    bool got = run_dec(kind, a, as, fa, b, bs, fb, n, lim, o);
    bool factors_ok = kind == DEC_MUL || (fa <= INT32_MAX && fb <= INT32_MAX);
    int64_t first = -1;
    for (uint32_t r = 0; r < n && first < 0; r++)
        if (!dec_row_ok(kind, AT(a, as, r), fa, AT(b, bs, r), fb, lim)) first = r;
    bool want = factors_ok && first < 0;
    if (kind == DEC_MUL)
        snprintf(what, sizeof what, "kern_dec_mul lim=%lld n=%u", (long long)lim, n);
    else
        snprintf(what, sizeof what, "%s fa=%lld fb=%lld lim=%lld n=%u", DEC_NAME[kind], (long long)fa,
                 (long long)fb, (long long)lim, n);
    if (got != want) {
        if (got && first >= 0)
            cr_assert_fail(
                "%s %s: returned true, but row %lld: %s (an operand outside int32 or |result| >= lim)", what,
                ctx, (long long)first,
                dec_row_str(kind, AT(a, as, (uint32_t)first), fa, AT(b, bs, (uint32_t)first), fb, row,
                            sizeof row));
        if (got) cr_assert_fail("%s %s: returned true with a factor above INT32_MAX", what, ctx);
        cr_assert_fail("%s %s: returned false, but every operand is within int32 and every |result| < lim",
                       what, ctx);
    }
    if (got)
        for (uint32_t r = 0; r < n; r++) {
            int64_t u = AT(a, as, r), v = AT(b, bs, r);
            if ((__int128)o[r] != dec_exact(kind, u, fa, v, fb))
                cr_assert_fail("%s %s: row %u: %s, kernel wrote %lld", what, ctx, r,
                               dec_row_str(kind, u, fa, v, fb, row, sizeof row), (long long)o[r]);
        }
    for (uint32_t i = n; i < n + GUARD; i++)
        if (o[i] != (int64_t)CANARY64)
            cr_assert_fail("%s %s: wrote o[%u] past n (returned %s)", what, ctx, i, got ? "true" : "false");
    return want;
}

static __int128 floor_div(__int128 x, __int128 y) { return x / y - (x % y != 0 && (x < 0) != (y < 0)); }
static __int128 ceil_div(__int128 x, __int128 y) { return x / y + (x % y != 0 && (x < 0) == (y < 0)); }

/* rnd_in: a uniform value of [lo, hi] (a span below 2^64). */
static int64_t rnd_in(__int128 lo, __int128 hi) {
    return (int64_t)(lo + (__int128)(rnd64() % (uint64_t)(hi - lo + 1)));
}

/* dec_solve looks for operands within int32 whose exact result is t (variant 0 or 1: two
** different pairs where it can); false when no such pair is found (t not a multiple of the
** smaller factor, or too large for int32 operands). */
static bool dec_solve(int kind, int64_t fa, int64_t fb, int64_t t, int variant, int64_t *u, int64_t *v) {
    __int128 T = t, at = T < 0 ? -T : T;
    if (kind == DEC_MUL) {
        if (t == 0) return false;
        int64_t d = isqrt_floor((int64_t)at); /* the divisor nearest the square root */
        while (at % d)
            d--;
        __int128 q = at / d;
        if (!in_i32(q)) return false;
        if (variant == 0)
            *u = t < 0 ? -d : d, *v = (int64_t)q;
        else
            *u = t < 0 ? (int64_t)q : -(int64_t)q, *v = -d;
        return true;
    }
    /* u * ca + v * cb = tt after dividing by the smaller factor: ca or |cb| is 1 */
    __int128 g = kind == DEC_ADD ? (__int128)fb : -(__int128)fb, m = fa < fb ? fa : fb;
    if (T % m) return false;
    __int128 tt = T / m, ca = fa / m, cb = g / m;
    bool free_v = ca == 1; /* v chosen, u = tt - v * cb; else u chosen, v = (tt - u * ca) / cb */
    __int128 q = tt / (free_v ? cb : ca);
    const __int128 cand[2][4] = {{q, q + 1, q - 1, q / 2}, {q / 2, q - 1, q + 1, q}};
    for (int k = 0; k < 4; k++) {
        __int128 x = cand[variant][k], y = free_v ? tt - x * cb : (tt - x * ca) / cb;
        __int128 uu = free_v ? y : x, vv = free_v ? x : y;
        if (in_i32(uu) && in_i32(vv)) {
            *u = (int64_t)uu, *v = (int64_t)vv;
            return true;
        }
    }
    return false;
}

/* dec_partner: the operand within int32 that brings the result nearest 0 when the other side is
** e (with factor fe; fo the partner's factor): 0 for kern_dec_mul. */
static int64_t dec_partner(int kind, int64_t e, int64_t fe, int64_t fo) {
    if (kind == DEC_MUL) return 0;
    __int128 p = (__int128)e * fe / fo * (kind == DEC_ADD ? -1 : 1);
    return p < INT32_MIN ? INT32_MIN : p > INT32_MAX ? INT32_MAX : (int64_t)p;
}

/* Which planted rows a lim's runs met (reached[] bits): results at lim - 1, -(lim - 1), lim,
** -lim; INT32_MIN and INT32_MAX accepted as a's operand, then as b's. */
enum { R_LIM1 = 1, R_NLIM1 = 2, R_LIM = 4, R_NLIM = 8, R_AMIN = 16, R_AMAX = 32, R_BMIN = 64, R_BMAX = 128 };

/* plants_dec: the rows planted for (kind, fa, fb, lim), .out = the row must make the kernel return
** false: results at +-(lim - 1) and +-lim (where int32 operands reach them); INT32_MIN and INT32_MAX
** on either side with a partner bringing the result in range (where there is one); INT32_MIN - 1
** and INT32_MAX + 1 (whose low halves are INT32_MAX and INT32_MIN) with the partner of that edge,
** and +-2^32, INT64_MIN, INT64_MAX (low halves 0 and -1) with 0; the four pairs of int32 edges. */
static int plants_dec(int kind, int64_t fa, int64_t fb, int64_t lim, plant_i64 *p, unsigned *reached) {
    int k = 0;
    const int64_t targets[4] = {lim - 1, -(lim - 1), lim, -lim};
    for (int ti = 0; ti < 4; ti++)
        for (int variant = 0; variant < 2; variant++) {
            int64_t u, v;
            if (!dec_solve(kind, fa, fb, targets[ti], variant, &u, &v)) continue;
            cr_assert(dec_exact(kind, u, fa, v, fb) == targets[ti], "test data: dec_solve");
            if (k > 0 && p[k - 1].u == u && p[k - 1].v == v) continue;
            p[k++] = (plant_i64){u, v, ti >= 2};
            *reached |= 1u << ti;
        }
    const int64_t edges[2] = {INT32_MIN, INT32_MAX};
    for (int ei = 0; ei < 2; ei++) {
        int64_t e = edges[ei], pb = dec_partner(kind, e, fa, fb), pa = dec_partner(kind, e, fb, fa);
        if (dec_row_ok(kind, e, fa, pb, fb, lim))
            p[k++] = (plant_i64){e, pb, false}, *reached |= R_AMIN << ei;
        if (dec_row_ok(kind, pa, fa, e, fb, lim))
            p[k++] = (plant_i64){pa, e, false}, *reached |= R_BMIN << ei;
        if (kind == DEC_MUL && dec_row_ok(kind, e, 1, -1, 1, lim)) /* -e, exact past int32 */
            p[k++] = (plant_i64){e, -1, false}, p[k++] = (plant_i64){-1, e, false};
        /* just past the edge, its low half the other edge */
        int64_t x = ei ? (int64_t)INT32_MAX + 1 : (int64_t)INT32_MIN - 1, oe = edges[1 - ei];
        p[k++] = (plant_i64){x, dec_partner(kind, oe, fa, fb), true};
        p[k++] = (plant_i64){dec_partner(kind, oe, fb, fa), x, true};
    }
    const int64_t far[4] = {INT64_C(1) << 32, -(INT64_C(1) << 32), INT64_MIN, INT64_MAX};
    for (int i = 0; i < 4; i++)
        p[k++] = (plant_i64){far[i], 0, true}, p[k++] = (plant_i64){0, far[i], true};
    for (int i = 0; i < 4; i++) {
        int64_t u = edges[i & 1], v = edges[i >> 1];
        p[k++] = (plant_i64){u, v, !dec_row_ok(kind, u, fa, v, fb, lim)};
    }
    for (int j = 0; j < k; j++)
        cr_assert_eq(dec_row_ok(kind, p[j].u, fa, p[j].v, fb, lim), !p[j].out, "test data: plant %lld, %lld",
                     (long long)p[j].u, (long long)p[j].v);
    return k;
}

/* dec_fill puts values into a and b such that every pairing of them is in range: |x| <=
** sqrt(lim - 1) (kern_dec_mul) or |x * f| <= (lim - 1) / 2, sometimes exactly on that bound. */
static void dec_fill(int kind, int64_t fa, int64_t fb, int64_t lim, int64_t *A, int64_t *B) {
    int64_t ma = kind == DEC_MUL ? isqrt_floor(lim - 1) : (lim - 1) / 2 / fa;
    int64_t mb = kind == DEC_MUL ? ma : (lim - 1) / 2 / fb;
    if (ma > INT32_MAX) ma = INT32_MAX;
    if (mb > INT32_MAX) mb = INT32_MAX;
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++) {
        A[i] = rnd(16) ? rnd_in(-ma, ma) : rnd(2) ? ma : -ma;
        B[i] = rnd(16) ? rnd_in(-mb, mb) : rnd(2) ? mb : -mb;
    }
}

/* check_dec_planted: every factor pair and lim, every n, in-range data (true, exact) and each
** plant at the first row, the middle, the last row of the last full 4-row group, the first row of
** the scalar tail and the last row. kern_dec_mul runs every PAIRS mode pair; kern_dec_add and
** kern_dec_sub, with 48 (fa, fb, lim), flat/flat and one other pair in turn. */
static void check_dec_planted(int kind, uint64_t seed) {
    static int64_t A[VECTOR_SIZE + 1], B[VECTOR_SIZE + 1];
    static sel_t sa[VECTOR_SIZE + 1], sb[VECTOR_SIZE + 1];
    char ctx[200];
    plant_i64 plants[48];
    unsigned reached[NDEC_LIMS] = {0};
    uint32_t nf = kind == DEC_MUL ? 1 : NDEC_FACTORS, combo = 0;
    rng_seed(seed);
    for (uint32_t fi = 0; fi < nf * nf; fi++)
        for (uint32_t li = 0; li < NDEC_LIMS; li++, combo++) {
            int64_t fa = kind == DEC_MUL ? 1 : DEC_FACTORS[fi / nf],
                    fb = kind == DEC_MUL ? 1 : DEC_FACTORS[fi % nf];
            int64_t lim = DEC_LIMS[li];
            int np = plants_dec(kind, fa, fb, lim, plants, &reached[li]);
            for (uint32_t pi = 0; pi < NPAIRS; pi++) {
                if (kind != DEC_MUL && pi != 0 && pi != 1 + combo % (NPAIRS - 1)) continue;
                const sel_t *as = make_sel(PAIRS[pi][0], sa), *bs = make_sel(PAIRS[pi][1], sb);
                int64_t *a = A + data_off(PAIRS[pi][0]), *b = B + data_off(PAIRS[pi][1]);
                dec_fill(kind, fa, fb, lim, A, B);
                for (uint32_t ni = 0; ni < NNS; ni++) {
                    uint32_t n = NS[ni];
                    snprintf(ctx, sizeof ctx, "a %s, b %s, seed %llu, in-range data", MODE[PAIRS[pi][0]],
                             MODE[PAIRS[pi][1]], (unsigned long long)seed);
                    cr_assert(check_dec(kind, a, as, fa, b, bs, fb, n, lim, ctx), "test data: %s", ctx);
                    if (n == 0) continue;
                    /* first, middle, last of the last full 4-row group, first of the tail, last */
                    uint32_t pos[] = {0, n / 2, n >= 4 ? n / 4 * 4 - 1 : 0, n % 4 ? n / 4 * 4 : 0, n - 1};
                    for (uint32_t k = 0; k < sizeof pos / sizeof pos[0]; k++) {
                        uint32_t r = pos[k];
                        bool seen = false;
                        for (uint32_t j = 0; j < k; j++)
                            seen |= pos[j] == r;
                        if (seen) continue;
                        uint32_t ia = IDX(as, r), ib = IDX(bs, r);
                        int64_t keep_a = a[ia], keep_b = b[ib];
                        bool alone = !(shared(as, n, r, ia) || shared(bs, n, r, ib));
                        for (int j = 0; j < np; j++) {
                            a[ia] = plants[j].u, b[ib] = plants[j].v;
                            snprintf(ctx, sizeof ctx, "a %s, b %s, seed %llu, row %u = (%lld, %lld) planted",
                                     MODE[PAIRS[pi][0]], MODE[PAIRS[pi][1]], (unsigned long long)seed, r,
                                     (long long)plants[j].u, (long long)plants[j].v);
                            bool want = check_dec(kind, a, as, fa, b, bs, fb, n, lim, ctx);
                            if (plants[j].out || alone)
                                cr_assert_eq(want, !plants[j].out, "test data: %s", ctx);
                        }
                        a[ia] = keep_a, b[ib] = keep_b;
                    }
                }
            }
        }
    for (uint32_t li = 0; li < NDEC_LIMS; li++)
        cr_assert_eq(reached[li], 255u, "test data: %s lim=%lld planted only 0x%x", DEC_NAME[kind],
                     (long long)DEC_LIMS[li], reached[li]);
}

Test(kernel, dec_mul) { check_dec_planted(DEC_MUL, 25); }
Test(kernel, dec_add) { check_dec_planted(DEC_ADD, 26); }
Test(kernel, dec_sub) { check_dec_planted(DEC_SUB, 27); }

/* A CONSTANT side (selection vec_zero_sel, which the kernels broadcast from slot 0 rather than
** load row by row; a copy of it, all zeros too, is read as a selection): the same answers as any
** selection, on either side or both, for every n: in range (exact), the constant giving an
** out-of-range result with some row, the constant outside int32 (as a NULL constant's slot may
** hold anything), and an out-of-range row of the other side planted at the first row, the middle
** and the last. */
Test(kernel, dec_constant_side) {
    static int64_t A[VECTOR_SIZE + 1], B[VECTOR_SIZE + 1];
    static sel_t zeros[VECTOR_SIZE];
    static const int64_t konst[] = {1, -1, 0, 100, 99, INT32_MAX, INT32_MIN, (int64_t)INT32_MAX + 1,
                                    (int64_t)INT32_MIN - 1, INT64_C(1) << 32, INT64_MIN, INT64_MAX};
    static const int64_t lims[] = {10, E9, E18};
    static const int64_t facs[][2] = {{1, 1}, {100, 1}, {1, 100}, {E9, 1}};
    char ctx[200];
    rng_seed(29);
    for (int kind = DEC_MUL; kind <= DEC_SUB; kind++)
        for (uint32_t li = 0; li < 3; li++)
            for (uint32_t fi = 0; fi < (kind == DEC_MUL ? 1u : 4u); fi++)
                for (uint32_t ki = 0; ki < sizeof konst / sizeof konst[0]; ki++)
                    for (int side = 0; side < 3; side++) /* constant a, constant b, both */
                        for (int copy = 0; copy < 2; copy++) {
                            const sel_t *zs = copy ? zeros : vec_zero_sel;
                            int64_t lim = lims[li], fa = facs[fi][0], fb = facs[fi][1];
                            dec_fill(kind, fa, fb, lim, A, B);
                            const sel_t *as = side != 1 ? zs : NULL, *bs = side != 0 ? zs : NULL;
                            if (side != 1) A[0] = konst[ki];
                            if (side != 0) B[0] = side == 2 ? konst[(ki + 1) % 12] : konst[ki];
                            for (uint32_t ni = 0; ni < NNS; ni++) {
                                uint32_t n = NS[ni];
                                snprintf(ctx, sizeof ctx, "constant %s = %lld (%s), seed 29", side == 0 ? "a" : side == 1 ? "b" : "a and b",
                                         (long long)konst[ki], copy ? "a copy of the zero selection" : "vec_zero_sel");
                                check_dec(kind, A, as, fa, B, bs, fb, n, lim, ctx);
                                if (side == 2 || n == 0) continue;
                                int64_t *other = side == 0 ? B : A;
                                uint32_t pos[] = {0, n / 2, n - 1};
                                for (uint32_t k = 0; k < 3; k++) {
                                    if (side == 1 && pos[k] == 0) continue; /* A[0]: not the constant */
                                    int64_t keep = other[pos[k]];
                                    other[pos[k]] = k == 1 ? INT64_MAX : (int64_t)INT32_MIN - 1;
                                    snprintf(ctx, sizeof ctx, "constant %s = %lld, row %u outside int32, seed 29",
                                             side == 0 ? "a" : "b", (long long)konst[ki], pos[k]);
                                    cr_assert(!check_dec(kind, A, as, fa, B, bs, fb, n, lim, ctx), "test data: %s", ctx);
                                    other[pos[k]] = keep;
                                }
                            }
                        }
}

/* Factors past INT32_MAX: false for every n (0 too) and selection, though the data are in range. */
Test(kernel, dec_factor_limit) {
    static int64_t A[VECTOR_SIZE + 1], B[VECTOR_SIZE + 1];
    static sel_t sa[VECTOR_SIZE + 1], sb[VECTOR_SIZE + 1];
    static const int64_t f[][2] = {{TWO31, 1},  {1, TWO31},   {TWO31, TWO31},
                                   {E9, TWO31}, {TWO31, 100}, {10 * E9, 1}};
    char ctx[160];
    rng_seed(28);
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        A[i] = (int64_t)rnd(3) - 1, B[i] = (int64_t)rnd(3) - 1;
    for (int kind = DEC_ADD; kind <= DEC_SUB; kind++)
        for (uint32_t fi = 0; fi < sizeof f / sizeof f[0]; fi++)
            for (uint32_t pi = 0; pi < NPAIRS; pi++) {
                const sel_t *as = make_sel(PAIRS[pi][0], sa), *bs = make_sel(PAIRS[pi][1], sb);
                int64_t *a = A + data_off(PAIRS[pi][0]), *b = B + data_off(PAIRS[pi][1]);
                for (uint32_t ni = 0; ni < NNS; ni++) {
                    uint32_t n = NS[ni];
                    for (uint32_t r = 0; r < n; r++)
                        cr_assert(dec_row_ok(kind, AT(a, as, r), f[fi][0], AT(b, bs, r), f[fi][1], E18),
                                  "test data: row %u", r);
                    snprintf(ctx, sizeof ctx, "a %s, b %s, seed 28, data of -1, 0, 1", MODE[PAIRS[pi][0]],
                             MODE[PAIRS[pi][1]]);
                    check_dec(kind, a, as, f[fi][0], b, bs, f[fi][1], n, E18, ctx);
                }
            }
}

/* dec_gen_ok: a row within int32 and below lim, often on the edge of what the other side allows
** (the result at +-(lim - 1), an operand at INT32_MIN or INT32_MAX). One side is drawn first, x
** with coefficient cx, and the other, y, within what keeps |x * cx + y * cy| < lim. */
static void dec_gen_ok(int kind, int64_t fa, int64_t fb, int64_t lim, int64_t *u, int64_t *v) {
    bool a_first = rnd(2);
    __int128 cx = a_first ? fa : kind == DEC_SUB ? -fb : fb, cy = a_first ? (kind == DEC_SUB ? -fb : fb) : fa;
    __int128 l1 = lim - 1, x, xm = l1 / (cx < 0 ? -cx : cx);
    __int128 xlo = xm > TWO31 ? INT32_MIN : -xm, xhi = xm > INT32_MAX ? INT32_MAX : xm;
    if (kind == DEC_MUL) xlo = INT32_MIN, xhi = INT32_MAX;
    switch (rnd(8)) {
    case 0: x = xlo; break;
    case 1: x = xhi; break;
    case 2: x = (int64_t)rnd(7) - 3; break;
    case 3:
    case 4: x = rnd_in(xlo, xhi); break;
    default: { /* a random magnitude */
        uint32_t bits = rnd(32);
        x = bits ? (int64_t)(rnd64() >> (64 - bits)) * (rnd(2) ? 1 : -1) : 0;
    }
    }
    if (x < xlo) x = xlo;
    if (x > xhi) x = xhi;
    __int128 ylo, yhi;
    if (kind == DEC_MUL) {
        __int128 ym = x == 0 ? INT32_MAX : l1 / (x < 0 ? -x : x);
        ylo = -ym, yhi = ym;
    } else { /* y * cy within [-l1 - x * cx, l1 - x * cx] */
        __int128 lo = -l1 - x * cx, hi = l1 - x * cx;
        ylo = cy > 0 ? ceil_div(lo, cy) : ceil_div(hi, cy);
        yhi = cy > 0 ? floor_div(hi, cy) : floor_div(lo, cy);
    }
    if (ylo < INT32_MIN) ylo = INT32_MIN;
    if (yhi > INT32_MAX) yhi = INT32_MAX;
    cr_assert(ylo <= 0 && 0 <= yhi, "test data: dec_gen_ok");
    __int128 y = rnd(4) == 0 ? ylo : rnd(3) == 0 ? yhi : rnd_in(ylo, yhi);
    *u = (int64_t)(a_first ? x : y), *v = (int64_t)(a_first ? y : x);
}

/* dec_gen_wild: a row that is usually out: an operand past int32 in an otherwise good row, a
** result at +-lim, two int32 edges, or any two int32 values. */
static void dec_gen_wild(int kind, int64_t fa, int64_t fb, int64_t lim, int64_t *u, int64_t *v) {
    static const int64_t past[] = {(int64_t)INT32_MAX + 1,
                                   (int64_t)INT32_MIN - 1,
                                   INT64_C(1) << 32,
                                   -(INT64_C(1) << 32),
                                   INT64_MIN,
                                   INT64_MAX};
    switch (rnd(4)) {
    case 0:
        dec_gen_ok(kind, fa, fb, lim, u, v);
        *(rnd(2) ? u : v) = rnd(4) ? past[rnd(6)] : (int64_t)rnd64();
        return;
    case 1: /* a result at +-lim, or (out of reach) two edges */
        if (dec_solve(kind, fa, fb, rnd(2) ? lim : -lim, (int)rnd(2), u, v)) return;
        *u = rnd(2) ? INT32_MIN : INT32_MAX, *v = rnd(2) ? INT32_MIN : INT32_MAX;
        return;
    case 2: *u = rnd(2) ? INT32_MIN : INT32_MAX, *v = rnd(2) ? INT32_MIN : INT32_MAX; return;
    default: *u = rnd_in(INT32_MIN, INT32_MAX), *v = rnd_in(INT32_MIN, INT32_MAX);
    }
}

/* The property, on random data: the kernel returns true exactly when the reference finds every
** operand within int32 and every |result| below lim (check_dec), for every factor pair, lim, n
** and mode pair; the rows are drawn in range, then none, one or about n / 64 of them made wild.
** count[0] and count[1] are set to how many runs the reference answered false and true. */
static void check_dec_random(int kind, uint64_t seed, uint32_t count[2]) {
    static int64_t A[VECTOR_SIZE + 1], B[VECTOR_SIZE + 1];
    static sel_t sa[VECTOR_SIZE + 1], sb[VECTOR_SIZE + 1];
    static const char *const DATA[] = {"in-range rows", "one wild row", "wild rows"};
    char ctx[200];
    uint32_t nf = kind == DEC_MUL ? 1 : NDEC_FACTORS;
    rng_seed(seed);
    count[0] = count[1] = 0;
    for (uint32_t fi = 0; fi < nf * nf; fi++)
        for (uint32_t li = 0; li < NDEC_LIMS; li++) {
            int64_t fa = kind == DEC_MUL ? 1 : DEC_FACTORS[fi / nf];
            int64_t fb = kind == DEC_MUL ? 1 : DEC_FACTORS[fi % nf], lim = DEC_LIMS[li];
            for (uint32_t pi = 0; pi < NPAIRS; pi++) {
                const sel_t *as = make_sel(PAIRS[pi][0], sa), *bs = make_sel(PAIRS[pi][1], sb);
                int64_t *a = A + data_off(PAIRS[pi][0]), *b = B + data_off(PAIRS[pi][1]);
                for (uint32_t ni = 0; ni < NNS; ni++) {
                    uint32_t n = NS[ni];
                    for (int data = 0; data < 3; data++) {
                        /* row r's values go where it reads them (a later row sharing a slot
                        ** overwrites them: the reference decides) */
                        uint32_t wild = n ? rnd(n) : 0;
                        for (uint32_t r = 0; r < n; r++) {
                            int64_t u, v;
                            if ((data == 1 && r == wild) || (data == 2 && rnd(64) == 0))
                                dec_gen_wild(kind, fa, fb, lim, &u, &v);
                            else
                                dec_gen_ok(kind, fa, fb, lim, &u, &v);
                            a[IDX(as, r)] = u, b[IDX(bs, r)] = v;
                        }
                        snprintf(ctx, sizeof ctx, "a %s, b %s, seed %llu, %s", MODE[PAIRS[pi][0]],
                                 MODE[PAIRS[pi][1]], (unsigned long long)seed, DATA[data]);
                        count[check_dec(kind, a, as, fa, b, bs, fb, n, lim, ctx)]++;
                    }
                }
            }
        }
}

/* Both answers, many times over. */
#define DEC_RANDOM_TEST(NAME, KIND, SEED, MIN_EACH)                                                          \
    Test(kernel, NAME) {                                                                                     \
        uint32_t count[2];                                                                                   \
        check_dec_random(KIND, SEED, count);                                                                 \
        cr_assert(count[0] >= (MIN_EACH) && count[1] >= (MIN_EACH), "test data: %u false, %u true",          \
                  count[0], count[1]);                                                                       \
    }
DEC_RANDOM_TEST(dec_mul_random, DEC_MUL, 29, 400)
DEC_RANDOM_TEST(dec_add_random, DEC_ADD, 30, 6000)
DEC_RANDOM_TEST(dec_sub_random, DEC_SUB, 31, 6000)

/* A few results stated outright. */
Test(kernel, dec_fixed) {
    int64_t o[8];
    const int64_t a[5] = {INT32_MIN, INT32_MAX, -3, E9 - 1, 5}, b[5] = {-1, 1, 3, E9 + 1, 0};
    cr_assert(kern_dec_mul(a, NULL, b, NULL, 5, E18, o), "mul within int32 and 10^18");
    cr_assert(o[0] == TWO31 && o[1] == INT32_MAX && o[2] == -9 && o[3] == E18 - 1 && o[4] == 0,
              "mul: %lld %lld %lld %lld %lld", (long long)o[0], (long long)o[1], (long long)o[2],
              (long long)o[3], (long long)o[4]);
    const int64_t d[5] = {-1, 1, 3, E9, 0}; /* row 3: (10^9 - 1) * 10^9 < 10^18 */
    cr_assert(kern_dec_mul(a, NULL, d, NULL, 5, E18, o) && o[3] == E18 - E9, "mul: o[3] = %lld",
              (long long)o[3]);
    const int64_t e[5] = {INT32_MIN, INT32_MAX, -3, E9, 5}; /* row 3: 10^9 * 10^9 = lim */
    cr_assert(!kern_dec_mul(e, NULL, d, NULL, 5, E18, o), "10^9 * 10^9 reaches lim 10^18");
    const int64_t c[5] = {-1, 1, 3, E9 + 1, INT64_C(1) << 32}; /* 2^32 in the tail (low half 0) */
    cr_assert(!kern_dec_mul(a, NULL, c, NULL, 5, E18, o), "2^32 is outside int32");
    /* 12.5 (scale 1) + 0.25 (scale 2) = 12.75, 12.5 - 0.25 = 12.25, at scale 2 */
    const int64_t x[5] = {125, -125, 0, INT32_MAX, INT32_MIN}, y[5] = {25, 25, -25, INT32_MAX, INT32_MIN};
    cr_assert(kern_dec_add(x, NULL, 10, y, NULL, 1, 5, E18, o), "add");
    cr_assert(o[0] == 1275 && o[1] == -1225 && o[2] == -25 && o[3] == (int64_t)INT32_MAX * 11 &&
                  o[4] == (int64_t)INT32_MIN * 11,
              "add: %lld %lld %lld %lld %lld", (long long)o[0], (long long)o[1], (long long)o[2],
              (long long)o[3], (long long)o[4]);
    cr_assert(kern_dec_sub(x, NULL, 10, y, NULL, 1, 5, E18, o), "sub");
    cr_assert(o[0] == 1225 && o[1] == -1275 && o[2] == 25 && o[3] == (int64_t)INT32_MAX * 9 &&
                  o[4] == (int64_t)INT32_MIN * 9,
              "sub: %lld %lld %lld %lld %lld", (long long)o[0], (long long)o[1], (long long)o[2],
              (long long)o[3], (long long)o[4]);
    cr_assert(!kern_dec_add(x, NULL, 10, y, NULL, 1, 5, E9, o), "INT32_MAX * 11 reaches 10^9");
    cr_assert(!kern_dec_add(x, NULL, TWO31, y, NULL, 1, 0, E18, o), "fa = 2^31, even for n = 0");
    cr_assert(kern_dec_sub(x, NULL, INT32_MAX, y, NULL, 1, 0, E18, o), "fa = INT32_MAX, n = 0");
}

/* ---- casts --------------------------------------------------------------------------------- */

Test(kernel, to_f64) {
    static int32_t d32[VECTOR_SIZE + 1];
    static int64_t d64[VECTOR_SIZE + 1];
    static sel_t selbuf[VECTOR_SIZE + 1];
    static double o[VECTOR_SIZE + GUARD];
    static const int64_t e32[] = {INT32_MIN, INT32_MIN + 1, -1, 0, 1, INT32_MAX - 1, INT32_MAX};
    static const int64_t e64[] = {INT64_MIN,
                                  INT64_MIN + 1,
                                  -1,
                                  0,
                                  1,
                                  INT64_MAX - 1,
                                  INT64_MAX,
                                  (INT64_C(1) << 53) + 1, /* rounds to even */
                                  (INT64_C(1) << 53) + 3,
                                  -(INT64_C(1) << 53) - 1,
                                  INT64_C(0x7ffffffffffffdff)};
    int64_t pool[NPOOL];
    rng_seed(16);
    for (int i = 0; i < NPOOL; i++)
        pool[i] = gen_any(INT32_MIN, INT32_MAX);
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d32[i] = (int32_t)gen_int(e32, 7, pool, INT32_MIN, INT32_MAX, false);
    for (int i = 0; i < NPOOL; i++)
        pool[i] = (int64_t)rnd64();
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        d64[i] = rnd(3) ? gen_int(e64, 11, pool, INT64_MIN, INT64_MAX, false)
                        : (int64_t)(rnd64() >> (1 + rnd(63))) * (rnd(2) ? 1 : -1);
    for (int mode = 0; mode < NMODES; mode++) {
        const sel_t *sel = make_sel(mode, selbuf);
        const int32_t *a = d32 + data_off(mode);
        const int64_t *b = d64 + data_off(mode);
        for (uint32_t ni = 0; ni < NNS; ni++) {
            uint32_t n = NS[ni];
            for (uint32_t i = 0; i < VECTOR_SIZE + GUARD; i++)
                o[i] = from_bits(CANARY64);
            kern_to_f64_i32(a, sel, n, o);
            for (uint32_t r = 0; r < n; r++)
                if (bits_of(o[r]) != bits_of((double)AT(a, sel, r)))
                    cr_assert_fail("kern_to_f64_i32 n=%u %s: row %u: %d gave %a", n, MODE[mode], r,
                                   AT(a, sel, r), o[r]);
            for (uint32_t i = n; i < VECTOR_SIZE + GUARD; i++)
                if (bits_of(o[i]) != CANARY64)
                    cr_assert_fail("kern_to_f64_i32 n=%u %s: wrote o[%u]", n, MODE[mode], i);

            for (uint32_t i = 0; i < VECTOR_SIZE + GUARD; i++)
                o[i] = from_bits(CANARY64);
            kern_to_f64_i64(b, sel, n, o);
            for (uint32_t r = 0; r < n; r++)
                if (bits_of(o[r]) != bits_of((double)AT(b, sel, r)))
                    cr_assert_fail("kern_to_f64_i64 n=%u %s: row %u: %lld gave %a, want %a", n, MODE[mode], r,
                                   (long long)AT(b, sel, r), o[r], (double)AT(b, sel, r));
            for (uint32_t i = n; i < VECTOR_SIZE + GUARD; i++)
                if (bits_of(o[i]) != CANARY64)
                    cr_assert_fail("kern_to_f64_i64 n=%u %s: wrote o[%u]", n, MODE[mode], i);
        }
    }
    /* a few conversions stated outright */
    const int64_t x[4] = {INT64_MAX, INT64_MIN, (INT64_C(1) << 53) + 1, -3};
    kern_to_f64_i64(x, NULL, 4, o);
    cr_assert_eq(o[0], 9223372036854775808.0);
    cr_assert_eq(o[1], -9223372036854775808.0);
    cr_assert_eq(o[2], 9007199254740992.0);
    cr_assert_eq(o[3], -3.0);
}

/* ---- kern_sel ------------------------------------------------------------------------------ */

Test(kernel, kern_sel) {
    static const sel_t zeros[4] = {0, 0, 0, 0}, some[4] = {3, 1, 2, 0};
    vector v;
    memset(&v, 0, sizeof v);
    v.kind = VEC_FLAT;
    v.sel = some;
    cr_assert_null(kern_sel(&v), "a flat vector is read contiguously");
    v.kind = VEC_CONSTANT;
    v.sel = zeros;
    cr_assert_eq(kern_sel(&v), zeros);
    v.kind = VEC_DICTIONARY;
    v.sel = some;
    cr_assert_eq(kern_sel(&v), some);
}

/* ---- kern_arith_i32, kern_arith_i16 -------------------------------------------------------- */

/* DEFINE_ARITH_SMALL: check_arith_SUF runs the kernel once, compares its flag with the exact
** reference (a row outside [TMIN, TMAX]) and, when no row is out, every result, and that nothing
** is written past o[n-1]; returns the reference flag. */
#define DEFINE_ARITH_SMALL(SUF, T, TMIN, TMAX, CANARY)                                                       \
    static bool check_arith_##SUF(kern_arith op, const T *a, const sel_t *as, const T *b, const sel_t *bs,  \
                                  uint32_t n, const char *ctx) {                                             \
        static T o[VECTOR_SIZE + GUARD];                                                                     \
        for (uint32_t i = 0; i < VECTOR_SIZE + GUARD; i++)                                                   \
            o[i] = (T)(CANARY);                                                                              \
        bool flag = kern_arith_##SUF(op, a, as, b, bs, n, o);                                                \
        bool want = false;                                                                                   \
        int64_t first = -1;                                                                                  \
        for (uint32_t r = 0; r < n; r++) {                                                                   \
            int64_t u = AT(a, as, r), v = AT(b, bs, r);                                                      \
            int64_t x = op == KERN_ADD ? u + v : op == KERN_SUB ? u - v : u * v;                             \
            if ((x < (TMIN) || x > (TMAX)) && !want) want = true, first = r;                                 \
        }                                                                                                    \
        if (flag != want) {                                                                                  \
            if (want)                                                                                        \
                cr_assert_fail("kern_arith_" #SUF " %s n=%u %s: returned false, but row %lld: %lld %s %lld " \
                               "is out of range",                                                            \
                               AOP[op], n, ctx, (long long)first, (long long)AT(a, as, (uint32_t)first),     \
                               AOP[op], (long long)AT(b, bs, (uint32_t)first));                              \
            cr_assert_fail("kern_arith_" #SUF " %s n=%u %s: returned true, but every row is in range",      \
                           AOP[op], n, ctx);                                                                 \
        }                                                                                                    \
        if (!want)                                                                                           \
            for (uint32_t r = 0; r < n; r++) {                                                               \
                int64_t u = AT(a, as, r), v = AT(b, bs, r);                                                  \
                int64_t x = op == KERN_ADD ? u + v : op == KERN_SUB ? u - v : u * v;                         \
                if (o[r] != x)                                                                               \
                    cr_assert_fail("kern_arith_" #SUF " %s n=%u %s: row %u: %lld %s %lld = %lld, kernel "   \
                                   "wrote %lld",                                                             \
                                   AOP[op], n, ctx, r, (long long)u, AOP[op], (long long)v, (long long)x,    \
                                   (long long)o[r]);                                                         \
            }                                                                                                \
        for (uint32_t i = n; i < VECTOR_SIZE + GUARD; i++)                                                   \
            if (o[i] != (T)(CANARY))                                                                         \
                cr_assert_fail("kern_arith_" #SUF " %s n=%u %s: wrote o[%u] past n", AOP[op], n, ctx, i);    \
        return want;                                                                                         \
    }                                                                                                        \
                                                                                                             \
    /* plants_SUF: rows just out of the type's range (and its extremes' products), and rows exactly   \
    ** on a bound. */                                                                                   \
    static int plants_##SUF(kern_arith op, plant_i64 *p) {                                                   \
        int k = 0;                                                                                           \
        const int64_t lo = (TMIN), hi = (TMAX);                                                              \
        switch (op) {                                                                                        \
        case KERN_ADD:                                                                                       \
            p[k++] = (plant_i64){hi, 1, true};                                                               \
            p[k++] = (plant_i64){lo, -1, true};                                                              \
            p[k++] = (plant_i64){hi, hi, true};                                                              \
            p[k++] = (plant_i64){lo, lo, true};                                                              \
            p[k++] = (plant_i64){hi - 1, 1, false};                                                          \
            p[k++] = (plant_i64){lo + 1, -1, false};                                                         \
            p[k++] = (plant_i64){hi, lo, false};                                                             \
            break;                                                                                           \
        case KERN_SUB:                                                                                       \
            p[k++] = (plant_i64){lo, 1, true};                                                               \
            p[k++] = (plant_i64){hi, -1, true};                                                              \
            p[k++] = (plant_i64){0, lo, true};                                                               \
            p[k++] = (plant_i64){lo, hi, true};                                                              \
            p[k++] = (plant_i64){-1, lo, false};                                                             \
            p[k++] = (plant_i64){lo + 1, 1, false};                                                          \
            p[k++] = (plant_i64){hi - 1, -1, false};                                                         \
            break;                                                                                           \
        default:                                                                                             \
            p[k++] = (plant_i64){hi, 2, true};                                                               \
            p[k++] = (plant_i64){lo, 2, true};                                                               \
            p[k++] = (plant_i64){lo, -1, true};                                                              \
            p[k++] = (plant_i64){lo, lo, true};                                                              \
            p[k++] = (plant_i64){hi, hi, true};                                                              \
            p[k++] = (plant_i64){lo, hi, true};                                                              \
            p[k++] = (plant_i64){hi, 1, false};                                                              \
            p[k++] = (plant_i64){lo, 1, false};                                                              \
            p[k++] = (plant_i64){-1, hi, false};                                                             \
            p[k++] = (plant_i64){0, lo, false};                                                              \
            break;                                                                                           \
        }                                                                                                    \
        return k;                                                                                            \
    }                                                                                                        \
                                                                                                             \
    static void arith_small_##SUF(uint64_t seed) {                                                           \
        static T A[VECTOR_SIZE + 1], B[VECTOR_SIZE + 1];                                                     \
        static sel_t sa[VECTOR_SIZE + 1], sb[VECTOR_SIZE + 1];                                               \
        char ctx[200];                                                                                       \
        plant_i64 plants[16];                                                                                \
        rng_seed(seed);                                                                                      \
        for (uint32_t pi = 0; pi < NPAIRS; pi++) {                                                           \
            const sel_t *as = make_sel(PAIRS[pi][0], sa), *bs = make_sel(PAIRS[pi][1], sb);                  \
            T *a = A + data_off(PAIRS[pi][0]), *b = B + data_off(PAIRS[pi][1]);                              \
            for (int op = KERN_ADD; op <= KERN_MUL; op++) {                                                  \
                /* in range: |u|, |v| <= max / 4 (ADD, SUB), or <= sqrt(max) / 2 (MUL) */                    \
                int64_t m = op == KERN_MUL ? isqrt_floor(TMAX) / 2 : (TMAX) / 4;                             \
                for (uint32_t i = 0; i <= VECTOR_SIZE; i++) {                                                \
                    A[i] = (T)((int64_t)(rnd64() % (uint64_t)(2 * m + 1)) - m);                              \
                    B[i] = (T)((int64_t)(rnd64() % (uint64_t)(2 * m + 1)) - m);                              \
                }                                                                                            \
                int np = plants_##SUF((kern_arith)op, plants);                                               \
                for (uint32_t ni = 0; ni < NNS; ni++) {                                                      \
                    uint32_t n = NS[ni];                                                                     \
                    snprintf(ctx, sizeof ctx, "a %s, b %s, in-range data", MODE[PAIRS[pi][0]],               \
                             MODE[PAIRS[pi][1]]);                                                            \
                    cr_assert(!check_arith_##SUF((kern_arith)op, a, as, b, bs, n, ctx), "test data: %s", ctx); \
                    if (n == 0) continue;                                                                    \
                    uint32_t pos[] = {0, 1, 7, 8, n / 2, n / 8 * 8, n - 2, n - 1, rnd(n)};                   \
                    for (uint32_t k = 0; k < sizeof pos / sizeof pos[0]; k++) {                              \
                        uint32_t r = pos[k];                                                                 \
                        if (r >= n) continue;                                                                \
                        uint32_t ia = IDX(as, r), ib = IDX(bs, r);                                           \
                        T keep_a = a[ia], keep_b = b[ib];                                                    \
                        for (int j = 0; j < np; j++) {                                                       \
                            a[ia] = (T)plants[j].u, b[ib] = (T)plants[j].v;                                  \
                            snprintf(ctx, sizeof ctx, "a %s, b %s, row %u = %lld %s %lld planted",           \
                                     MODE[PAIRS[pi][0]], MODE[PAIRS[pi][1]], r, (long long)plants[j].u,      \
                                     AOP[op], (long long)plants[j].v);                                       \
                            bool want = check_arith_##SUF((kern_arith)op, a, as, b, bs, n, ctx);             \
                            if (plants[j].out || !(shared(as, n, r, ia) || shared(bs, n, r, ib)))            \
                                cr_assert_eq(want, plants[j].out, "test data: %s", ctx);                     \
                        }                                                                                    \
                        a[ia] = keep_a, b[ib] = keep_b;                                                      \
                    }                                                                                        \
                }                                                                                            \
            }                                                                                                \
            /* wild data: mostly small, some extremes, some anything */                                      \
            for (uint32_t i = 0; i <= VECTOR_SIZE; i++) {                                                    \
                uint32_t ka = rnd(100), kb = rnd(100);                                                       \
                static const int64_t edges[] = {(TMIN), (TMAX), (TMIN) + 1, (TMAX) - 1, -1, 0, 1, 2, -2};  \
                A[i] = (T)(ka < 97 ? (int64_t)rnd(7) - 3 : ka < 99 ? edges[rnd(9)] : (int64_t)rnd64());      \
                B[i] = (T)(kb < 97 ? (int64_t)rnd(7) - 3 : kb < 99 ? edges[rnd(9)] : (int64_t)rnd64());      \
            }                                                                                                \
            for (uint32_t ni = 0; ni < NNS; ni++)                                                            \
                for (int op = KERN_ADD; op <= KERN_MUL; op++) {                                              \
                    snprintf(ctx, sizeof ctx, "a %s, b %s, wild data", MODE[PAIRS[pi][0]],                   \
                             MODE[PAIRS[pi][1]]);                                                            \
                    check_arith_##SUF((kern_arith)op, a, as, b, bs, NS[ni], ctx);                            \
                }                                                                                            \
        }                                                                                                    \
    }

DEFINE_ARITH_SMALL(i32, int32_t, INT32_MIN, INT32_MAX, CANARY32)
DEFINE_ARITH_SMALL(i16, int16_t, INT16_MIN, INT16_MAX, 0x5A5A)

Test(kernel, arith_i32) { arith_small_i32(41); }
Test(kernel, arith_i16) { arith_small_i16(42); }

/* Every pair of INTEGER (SMALLINT) edge values, through the SIMD groups and the tail. */
Test(kernel, arith_small_edges) {
    static const int64_t e32[] = {INT32_MIN, INT32_MIN + 1, -46341, -46340, -65536, -1, 0,
                                  1,         2,             46340,  46341,  65536,  INT32_MAX - 1, INT32_MAX};
    static const int64_t e16[] = {INT16_MIN, INT16_MIN + 1, -182, -181, -256, -1, 0,
                                  1,         2,             181,  182,  256,  INT16_MAX - 1, INT16_MAX};
    enum { NE = sizeof e32 / sizeof e32[0] };
    static int32_t a32[NE * NE], b32[NE * NE], o32[NE * NE];
    static int16_t a16[NE * NE], b16[NE * NE], o16[NE * NE];
    for (int op = KERN_ADD; op <= KERN_MUL; op++)
        for (uint32_t i = 0; i < NE; i++)
            for (uint32_t j = 0; j < NE; j++) {
                /* the pair at row 8 (a SIMD group) and at row 9 of 10 (the tail), ordinary rows around */
                for (uint32_t r = 0; r < 10; r++) a32[r] = b32[r] = 3, a16[r] = b16[r] = 3;
                for (uint32_t at = 8; at <= 9; at++) {
                    a32[at] = (int32_t)e32[i], b32[at] = (int32_t)e32[j];
                    a16[at] = (int16_t)e16[i], b16[at] = (int16_t)e16[j];
                    int64_t x32 = op == KERN_ADD   ? e32[i] + e32[j]
                                  : op == KERN_SUB ? e32[i] - e32[j]
                                                   : e32[i] * e32[j];
                    int64_t x16 = op == KERN_ADD   ? e16[i] + e16[j]
                                  : op == KERN_SUB ? e16[i] - e16[j]
                                                   : e16[i] * e16[j];
                    bool out32 = x32 < INT32_MIN || x32 > INT32_MAX, out16 = x16 < INT16_MIN || x16 > INT16_MAX;
                    /* n = 16 puts row 8 in the second SIMD group, n = 10 row 9 in the tail */
                    uint32_t n = at == 8 ? 16 : 10;
                    for (uint32_t r = 10; r < 16; r++) a32[r] = b32[r] = 1, a16[r] = b16[r] = 1;
                    bool f32 = kern_arith_i32((kern_arith)op, a32, NULL, b32, NULL, n, o32);
                    bool f16 = kern_arith_i16((kern_arith)op, a16, NULL, b16, NULL, n, o16);
                    cr_assert_eq(f32, out32, "kern_arith_i32 %lld %s %lld at row %u", (long long)e32[i], AOP[op],
                                 (long long)e32[j], at);
                    cr_assert_eq(f16, out16, "kern_arith_i16 %lld %s %lld at row %u", (long long)e16[i], AOP[op],
                                 (long long)e16[j], at);
                    if (!out32)
                        cr_assert_eq(o32[at], x32, "kern_arith_i32 %lld %s %lld", (long long)e32[i], AOP[op],
                                     (long long)e32[j]);
                    if (!out16)
                        cr_assert_eq(o16[at], x16, "kern_arith_i16 %lld %s %lld", (long long)e16[i], AOP[op],
                                     (long long)e16[j]);
                    a32[at] = b32[at] = 3, a16[at] = b16[at] = 3;
                }
            }
}

/* ---- kern_hash_T, kern_hash_combine_T ------------------------------------------------------ */

/* The reference: core/hash.h's functions row by row, as vec_hash computed every hash before the
** kernels (and as value_hash computes a single value's). */
#define HREF_INT(d, r) hash_i64((int64_t)(d)[r])
#define HREF_F64(d, r) hash_f64((d)[r])
#define HREF_STR(d, r) hash_sstr(&(d)[r])

/* DEFINE_CHECK_HASH: check_hash_SUF runs kern_hash_SUF and kern_hash_combine_SUF over every
** validity choice, selection mode and n on the VECTOR_SIZE + 1 values at base, against the
** reference, and checks that nothing is written past h[n - 1]. */
#define DEFINE_CHECK_HASH(SUF, T, HREF)                                                                      \
    static void check_hash_##SUF(const T *base, const char *data) {                                          \
        static sel_t selbuf[VECTOR_SIZE + 1];                                                                \
        static uint64_t vbuf[VALIDITY_WORDS], h[VECTOR_SIZE + GUARD], seeds[VECTOR_SIZE];                     \
        for (uint32_t i = 0; i < VECTOR_SIZE; i++) seeds[i] = rnd64();                                       \
        for (int vm = 0; vm < NVM; vm++) {                                                                   \
            const uint64_t *validity = validity_for(vm, vbuf);                                               \
            for (int mode = 0; mode < NMODES; mode++) {                                                      \
                const sel_t *sel = make_sel(mode, selbuf);                                                   \
                const T *d = base + data_off(mode);                                                          \
                for (uint32_t ni = 0; ni < NNS; ni++) {                                                      \
                    uint32_t n = NS[ni];                                                                     \
                    for (int combine = 0; combine <= 1; combine++) {                                         \
                        for (uint32_t i = 0; i < VECTOR_SIZE + GUARD; i++)                                   \
                            h[i] = combine && i < VECTOR_SIZE ? seeds[i] : CANARY64;                         \
                        if (combine)                                                                         \
                            kern_hash_combine_##SUF(d, sel, validity, n, h);                                 \
                        else                                                                                 \
                            kern_hash_##SUF(d, sel, validity, n, h);                                         \
                        for (uint32_t r = 0; r < n; r++) {                                                   \
                            uint32_t i = IDX(sel, r);                                                        \
                            uint64_t x = !validity || bit_of(validity, i) ? HREF(d, i) : HASH_NULL;          \
                            uint64_t want = combine ? hash_combine(seeds[r], x) : x;                         \
                            if (h[r] != want)                                                                \
                                cr_assert_fail("kern_hash%s_" #SUF " %s n=%u %s %s: row %u (index %u, %s): " \
                                               "0x%016llx, want 0x%016llx",                                  \
                                               combine ? "_combine" : "", data, n, MODE[mode], VM[vm], r, i, \
                                               validity && !bit_of(validity, i) ? "NULL" : "valid",          \
                                               (unsigned long long)h[r], (unsigned long long)want);          \
                        }                                                                                    \
                        for (uint32_t i = n; i < VECTOR_SIZE + GUARD; i++)                                   \
                            if (h[i] != (combine && i < VECTOR_SIZE ? seeds[i] : CANARY64))                  \
                                cr_assert_fail("kern_hash%s_" #SUF " %s n=%u %s %s: wrote h[%u] past n",    \
                                               combine ? "_combine" : "", data, n, MODE[mode], VM[vm], i);   \
                    }                                                                                        \
                }                                                                                            \
            }                                                                                                \
        }                                                                                                    \
    }

DEFINE_CHECK_HASH(i16, int16_t, HREF_INT)
DEFINE_CHECK_HASH(i32, int32_t, HREF_INT)
DEFINE_CHECK_HASH(i64, int64_t, HREF_INT)
DEFINE_CHECK_HASH(f64, double, HREF_F64)
DEFINE_CHECK_HASH(str, sstr, HREF_STR)

/* hash_int_data fills VECTOR_SIZE + 1 values: random over the type, with its edges planted. */
#define HASH_INT_DATA(T, TMIN, TMAX)                                                                         \
    do {                                                                                                     \
        static const int64_t edges[] = {(TMIN), (TMAX), (TMIN) + 1, (TMAX) - 1, -1, 0, 1, 0x7f, -0x80};    \
        for (uint32_t i = 0; i <= VECTOR_SIZE; i++)                                                          \
            d[i] = (T)(rnd(4) == 0 ? edges[rnd(sizeof edges / sizeof edges[0])] : (int64_t)rnd64());         \
    } while (0)

Test(kernel, hash_i16) {
    static int16_t d[VECTOR_SIZE + 1];
    rng_seed(51);
    HASH_INT_DATA(int16_t, INT16_MIN, INT16_MAX);
    check_hash_i16(d, "random + edges");
}

Test(kernel, hash_i32) {
    static int32_t d[VECTOR_SIZE + 1];
    rng_seed(52);
    HASH_INT_DATA(int32_t, INT32_MIN, INT32_MAX);
    check_hash_i32(d, "random + edges");
}

Test(kernel, hash_i64) {
    static int64_t d[VECTOR_SIZE + 1];
    rng_seed(53);
    HASH_INT_DATA(int64_t, INT64_MIN, INT64_MAX);
    check_hash_i64(d, "random + edges");
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++) d[i] = (int64_t)rnd(5) - 2; /* many equal values */
    check_hash_i64(d, "small");
}

/* Equal values of every width hash alike (value_hash's rule), through the SIMD groups too. */
Test(kernel, hash_widths_agree) {
    static const int64_t v[] = {INT16_MIN, -1, 0, 1, INT16_MAX, 12345, -7, 100};
    int16_t d16[8];
    int32_t d32[8];
    int64_t d64[8];
    uint64_t h16[8], h32[8], h64[8];
    for (int i = 0; i < 8; i++) d16[i] = (int16_t)v[i], d32[i] = (int32_t)v[i], d64[i] = v[i];
    kern_hash_i16(d16, NULL, NULL, 8, h16);
    kern_hash_i32(d32, NULL, NULL, 8, h32);
    kern_hash_i64(d64, NULL, NULL, 8, h64);
    for (int i = 0; i < 8; i++) {
        cr_assert_eq(h16[i], hash_i64(v[i]), "%lld", (long long)v[i]);
        cr_assert_eq(h32[i], h16[i], "%lld", (long long)v[i]);
        cr_assert_eq(h64[i], h16[i], "%lld", (long long)v[i]);
    }
}

Test(kernel, hash_f64) {
    static double d[VECTOR_SIZE + 1];
    static const double pool[NPOOL] = {1.5, -2.25, 1e300, -1e-300, 3.0, 0.1, 7.0, -0.5};
    init_specials();
    rng_seed(54);
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++) d[i] = gen_f64(pool, false);
    check_hash_f64(d, "mixed + specials");
}

/* hash_f64's equalities hold lane by lane: -0.0 hashes as 0.0, every NaN (sign, payload,
** signalling) as every other, in the SIMD groups and in the tail. */
Test(kernel, hash_f64_zero_and_nan) {
    const double v[10] = {0.0, -0.0, NAN, -NAN, from_bits(0x7ff0000000000001ull), from_bits(0xfff8000000000123ull),
                          -0.0, NAN, from_bits(0x7fffffffffffffffull), -0.0};
    uint64_t h[10];
    kern_hash_f64(v, NULL, NULL, 10, h);
    for (int i = 0; i < 10; i++) {
        cr_assert_eq(h[i], isnan(v[i]) ? h[2] : h[0], "row %d (%a)", i, v[i]);
        cr_assert_eq(h[i], hash_f64(v[i]), "row %d (%a)", i, v[i]);
    }
    cr_assert_neq(h[0], h[2]);
    cr_assert_neq(h[0], hash_f64(DBL_TRUE_MIN));
}

/* make_str sets s to bytes p[0..len): inline up to SSTR_INLINE, else a prefix and a pointer. */
static void make_str(sstr *s, const char *p, uint32_t len) {
    memset(s, 0, sizeof *s);
    s->len = len;
    if (len <= SSTR_INLINE) {
        memcpy(s->u.inl, p, len);
    } else {
        memcpy(s->u.ext.prefix, p, 4);
        s->u.ext.ptr = p;
    }
}

Test(kernel, hash_str) {
    static sstr d[VECTOR_SIZE + 1];
    static char bytes[(VECTOR_SIZE + 1) * 64];
    rng_seed(55);
    for (uint32_t i = 0; i < sizeof bytes; i++) bytes[i] = (char)(rnd(4) ? 'a' + rnd(26) : rnd(256));
    /* every length from 0 (the empty string) to 63, the short path's 16 and SSTR_INLINE's 12
    ** among them; a few equal strings of other storage */
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++) make_str(&d[i], bytes + i * 64, rnd(8) ? rnd(20) : rnd(64));
    check_hash_str(d, "lengths 0..63");
    uint64_t h[3];
    sstr e[3];
    make_str(&e[0], "", 0);
    make_str(&e[1], "abcdefghijklmnop", 16);
    make_str(&e[2], "abcdefghijkl", 12);
    kern_hash_str(e, NULL, NULL, 3, h);
    cr_assert_eq(h[0], hash_bytes("", 0, 0));
    cr_assert_eq(h[1], hash_bytes("abcdefghijklmnop", 16, 0));
    cr_assert_eq(h[2], hash_bytes("abcdefghijkl", 12, 0));
    cr_assert_neq(h[0], HASH_NULL, "the empty string is not NULL");
}

/* hash_bytes_short, the string kernels' inline path, equals hash_bytes for every length to 16. */
Test(kernel, hash_bytes_short) {
    char buf[17];
    rng_seed(56);
    for (int k = 0; k < 2000; k++)
        for (uint32_t len = 0; len <= 16; len++) {
            for (uint32_t i = 0; i < len; i++) buf[i] = (char)rnd(256);
            cr_assert_eq(hash_bytes_short(buf, len), hash_bytes(buf, len, 0), "len %u", len);
        }
}

/* Two columns combined as vec_hash_combine does: kern_hash_T then kern_hash_combine_U, against
** hash_combine of the scalar hashes, in either order (which must differ). */
Test(kernel, hash_two_columns) {
    static int64_t a[VECTOR_SIZE];
    static double b[VECTOR_SIZE];
    static uint64_t ab[VECTOR_SIZE], ba[VECTOR_SIZE], va[VALIDITY_WORDS];
    rng_seed(57);
    for (uint32_t i = 0; i < VECTOR_SIZE; i++) a[i] = (int64_t)rnd(1000), b[i] = (double)rnd(1000);
    make_validity(va, 12);
    kern_hash_i64(a, NULL, va, VECTOR_SIZE, ab);
    kern_hash_combine_f64(b, NULL, NULL, VECTOR_SIZE, ab);
    kern_hash_f64(b, NULL, NULL, VECTOR_SIZE, ba);
    kern_hash_combine_i64(a, NULL, va, VECTOR_SIZE, ba);
    uint32_t differ = 0;
    for (uint32_t r = 0; r < VECTOR_SIZE; r++) {
        uint64_t ha = bit_of(va, r) ? hash_i64(a[r]) : HASH_NULL, hb = hash_f64(b[r]);
        cr_assert_eq(ab[r], hash_combine(ha, hb), "row %u", r);
        cr_assert_eq(ba[r], hash_combine(hb, ha), "row %u", r);
        differ += ab[r] != ba[r];
    }
    cr_assert_gt(differ, VECTOR_SIZE - 8, "the order of the columns matters");
}

/* ---- predicates: IN-lists, ranges, prefixes, dictionaries ----------------------------------- */

/* The list lengths: empty, every short width (1, 2, 4 and 8 with the ones between, padded), just
** past KERN_IN_SHORT (the sorted search) and long. */
static const uint32_t NITEMS[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 33, 200};
#define NNITEMS (sizeof NITEMS / sizeof NITEMS[0])

/* fail_mask reports a mask that differs from the reference (bad as mask_diff returns it). */
#define FAIL_MASK(bad, got, want, n, value, ...)                                                              \
    do {                                                                                                     \
        char msg_[256];                                                                                      \
        snprintf(msg_, sizeof msg_, __VA_ARGS__);                                                            \
        cr_assert_fail("%s: %s", msg_, describe(bad, got, want, n, value));                                  \
    } while (0)

/* CHECK_MASK_INT fails, naming the row's integer value, when mask got differs from want over rows
** 0..n-1 of integer data d read through sel; the rest is FAIL_MASK's message. */
#define CHECK_MASK_INT(got, want, n, d, sel, ...)                                                             \
    do {                                                                                                     \
        int64_t bad_ = mask_diff(got, want, n);                                                              \
        if (bad_ != -1) {                                                                                    \
            char value_[64] = "";                                                                            \
            if (bad_ >= 0 && bad_ < (int64_t)(n))                                                            \
                snprintf(value_, sizeof value_, "value %lld", (long long)AT(d, sel, (uint32_t)bad_));        \
            FAIL_MASK(bad_, got, want, n, value_, __VA_ARGS__);                                              \
        }                                                                                                    \
    } while (0)

/* check_in_T: lists of every length drawn like the data (edges, pool values, small and any values,
** repeated and unsorted), prepared, then every mode and n against membership in the original
** list; the prepared list is sorted, without repeats and holds exactly the original's values. */
#define DEFINE_IN_INT(SUF, T, TMIN, TMAX)                                                                    \
    static void check_in_##SUF(uint64_t seed) {                                                              \
        static T base[VECTOR_SIZE + 1];                                                                      \
        static sel_t selbuf[VECTOR_SIZE + 1];                                                                \
        static const int64_t edges[] = {TMIN, (int64_t)TMIN + 1, -1, 0, 1, (int64_t)TMAX - 1, TMAX};         \
        enum { NEDGE = sizeof edges / sizeof edges[0] };                                                     \
        int64_t pool[NPOOL];                                                                                 \
        rng_seed(seed);                                                                                      \
        for (int i = 0; i < NPOOL; i++)                                                                      \
            pool[i] = gen_any(TMIN, TMAX);                                                                   \
        for (uint32_t i = 0; i <= VECTOR_SIZE; i++)                                                          \
            base[i] = (T)gen_int(edges, NEDGE, pool, TMIN, TMAX, false);                                     \
        uint64_t want[VALIDITY_WORDS], got[MASKBUF];                                                         \
        for (uint32_t li = 0; li < NNITEMS; li++)                                                            \
            for (int rep = 0; rep < 3; rep++) {                                                              \
                T list[256], items[256];                                                                     \
                uint32_t nlist = NITEMS[li];                                                                 \
                for (uint32_t k = 0; k < nlist; k++) /* rep 2: within 300 values (the bitmap) */            \
                    list[k] = rep == 2 ? (T)((int64_t)rnd(300) - 150)                                        \
                                       : (T)gen_int(edges, NEDGE, pool, TMIN, TMAX, rep == 0);               \
                memcpy(items, list, nlist * sizeof *list);                                                   \
                uint32_t nitems = kern_in_prepare_##SUF(items, nlist);                                       \
                cr_assert(nitems <= nlist && (nlist == 0) == (nitems == 0), "kern_in_prepare_" #SUF          \
                          " kept %u of %u", nitems, nlist);                                                  \
                for (uint32_t k = 1; k < nitems; k++)                                                        \
                    cr_assert(items[k - 1] < items[k], "kern_in_prepare_" #SUF ": items %u, %u not ascending", \
                              k - 1, k);                                                                     \
                for (uint32_t k = 0; k < nlist; k++) {                                                       \
                    bool in = false;                                                                         \
                    for (uint32_t j = 0; j < nitems; j++)                                                    \
                        in |= items[j] == list[k];                                                           \
                    cr_assert(in, "kern_in_prepare_" #SUF " lost %lld", (long long)list[k]);                 \
                }                                                                                            \
                for (int mode = 0; mode < NMODES; mode++) {                                                  \
                    const sel_t *sel = make_sel(mode, selbuf);                                               \
                    const T *d = base + data_off(mode);                                                      \
                    for (uint32_t ni = 0; ni < NNS; ni++) {                                                  \
                        uint32_t n = NS[ni];                                                                 \
                        memset(want, 0, sizeof want);                                                        \
                        for (uint32_t r = 0; r < n; r++)                                                     \
                            for (uint32_t k = 0; k < nlist; k++)                                             \
                                if (AT(d, sel, r) == list[k]) set_bit(want, r);                              \
                        for (uint32_t w = 0; w < MASKBUF; w++)                                               \
                            got[w] = CANARY64;                                                               \
                        kern_in_##SUF(d, sel, n, items, nitems, got);                                        \
                        CHECK_MASK_INT(got, want, n, d, sel, "kern_in_" #SUF " %u items n=%u %s (seed %llu)",   \
                                       nitems, n, MODE[mode], (unsigned long long)seed);                     \
                    }                                                                                        \
                }                                                                                            \
            }                                                                                                \
    }

DEFINE_IN_INT(i16, int16_t, INT16_MIN, INT16_MAX)
DEFINE_IN_INT(i32, int32_t, INT32_MIN, INT32_MAX)
DEFINE_IN_INT(i64, int64_t, INT64_MIN, INT64_MAX)

Test(kernel, in_i16) { check_in_i16(41); }
Test(kernel, in_i32) { check_in_i32(42); }
Test(kernel, in_i64) { check_in_i64(43); }

/* Every SMALLINT against a list: no value is missed or invented at any distance from the items. */
Test(kernel, in_i16_every_value) {
    static int16_t d[VECTOR_SIZE];
    int16_t items[] = {INT16_MAX, -5, INT16_MIN, 0, 7, 1000, -1, 7, 300, -300, 12};
    uint32_t nitems = kern_in_prepare_i16(items, sizeof items / sizeof items[0]);
    cr_assert_eq(nitems, 10);
    for (int32_t from = INT16_MIN; from <= INT16_MAX; from += VECTOR_SIZE) {
        for (uint32_t r = 0; r < VECTOR_SIZE; r++)
            d[r] = (int16_t)(from + (int32_t)r);
        uint64_t got[VALIDITY_WORDS];
        kern_in_i16(d, NULL, VECTOR_SIZE, items, nitems, got);
        for (uint32_t r = 0; r < VECTOR_SIZE; r++) {
            bool want = d[r] == INT16_MAX || d[r] == -5 || d[r] == INT16_MIN || d[r] == 0 || d[r] == 7 ||
                        d[r] == 1000 || d[r] == -1 || d[r] == 300 || d[r] == -300 || d[r] == 12;
            cr_assert_eq(bit_of(got, r), want, "kern_in_i16: %d", d[r]);
        }
    }
}

/* The bitmap of a long list that spans fewer than 4096 values: spans of 4095 (the bitmap's last
** bit) and 4096 (the sorted search), at the bottom and top of each type's range (where x - lo
** wraps for the rows far away), against rows all around the items. */
#define DEFINE_IN_SPAN(SUF, T, TMIN, TMAX)                                                                   \
    static void check_in_span_##SUF(void) {                                                                  \
        static T d[VECTOR_SIZE];                                                                             \
        const int64_t los[] = {TMIN, (int64_t)TMAX - 4096, -2000, 0};                                        \
        for (int li = 0; li < 4; li++)                                                                       \
            for (int64_t span = 4095; span <= 4096; span++) {                                                \
                int64_t lo = los[li];                                                                        \
                if (lo + span > TMAX) continue;                                                              \
                T items[12];                                                                                 \
                uint32_t ni = 0;                                                                             \
                for (int k = 0; k < 10; k++)                                                                 \
                    items[ni++] = (T)(lo + span * k / 9);                                                    \
                items[ni++] = (T)(lo + 1), items[ni++] = (T)(lo + span - 1);                                 \
                ni = kern_in_prepare_##SUF(items, ni);                                                       \
                for (uint32_t r = 0; r < VECTOR_SIZE; r++) { /* around lo, around lo + span, and anywhere */ \
                    __int128 x = r % 3 == 0   ? (__int128)lo + rnd(64) - 32                                 \
                                 : r % 3 == 1 ? (__int128)lo + span + rnd(64) - 32                          \
                                             : gen_any(TMIN, TMAX);                                          \
                    if (r % 17 == 0) x = items[rnd(ni)];                                                     \
                    d[r] = (T)(x < TMIN ? TMIN : x > TMAX ? TMAX : x);                                       \
                }                                                                                            \
                uint64_t got[VALIDITY_WORDS];                                                                \
                kern_in_##SUF(d, NULL, VECTOR_SIZE, items, ni, got);                                         \
                for (uint32_t r = 0; r < VECTOR_SIZE; r++) {                                                 \
                    bool want = false;                                                                       \
                    for (uint32_t k = 0; k < ni; k++)                                                        \
                        want |= d[r] == items[k];                                                            \
                    cr_assert_eq(bit_of(got, r), want, "kern_in_" #SUF " lo %lld span %lld: row %u = %lld",  \
                                 (long long)lo, (long long)span, r, (long long)d[r]);                        \
                }                                                                                            \
            }                                                                                                \
    }

DEFINE_IN_SPAN(i16, int16_t, INT16_MIN, INT16_MAX)
DEFINE_IN_SPAN(i32, int32_t, INT32_MIN, INT32_MAX)
DEFINE_IN_SPAN(i64, int64_t, INT64_MIN, INT64_MAX)

Test(kernel, in_bitmap_spans) {
    rng_seed(52);
    check_in_span_i16();
    check_in_span_i32();
    check_in_span_i64();
}

/* DOUBLE: lists of edge values (NaNs of every kind, -0.0 and 0.0, infinities, denormals) and
** ordinary ones; a row matches an item equal in strata's order (NaN = NaN, -0.0 = 0.0). */
static void check_in_f64(uint64_t seed) {
    static double base[VECTOR_SIZE + 1];
    static sel_t selbuf[VECTOR_SIZE + 1];
    double pool[NPOOL];
    init_specials();
    rng_seed(seed);
    for (int i = 0; i < NPOOL; i++)
        pool[i] = gen_f64(specials, false);
    pool[0] = 3.25;
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        base[i] = gen_f64(pool, false);
    uint64_t want[VALIDITY_WORDS], got[MASKBUF];
    for (uint32_t li = 0; li < NNITEMS; li++)
        for (int rep = 0; rep < 4; rep++) {
            double list[256], items[256];
            uint32_t nlist = NITEMS[li];
            for (uint32_t k = 0; k < nlist; k++)
                list[k] = rep == 3 ? specials[(k + li) % NSPECIAL] : gen_f64(pool, rep == 0);
            if (rep == 2 && nlist) list[nlist - 1] = -0.0; /* only the negative zero: 0.0 rows match */
            memcpy(items, list, nlist * sizeof *list);
            uint32_t nitems = kern_in_prepare_f64(items, nlist);
            for (uint32_t k = 1; k < nitems; k++)
                cr_assert(f64_order(items[k - 1], items[k]) < 0, "kern_in_prepare_f64: items %u, %u not ascending",
                          k - 1, k);
            for (uint32_t k = 0; k < nlist; k++) {
                bool in = false;
                for (uint32_t j = 0; j < nitems; j++)
                    in |= f64_order(items[j], list[k]) == 0;
                cr_assert(in, "kern_in_prepare_f64 lost %a", list[k]);
            }
            for (int mode = 0; mode < NMODES; mode++) {
                const sel_t *sel = make_sel(mode, selbuf);
                const double *d = base + data_off(mode);
                for (uint32_t ni = 0; ni < NNS; ni++) {
                    uint32_t n = NS[ni];
                    memset(want, 0, sizeof want);
                    for (uint32_t r = 0; r < n; r++)
                        for (uint32_t k = 0; k < nlist; k++)
                            if (f64_order(AT(d, sel, r), list[k]) == 0) set_bit(want, r);
                    for (uint32_t w = 0; w < MASKBUF; w++)
                        got[w] = CANARY64;
                    kern_in_f64(d, sel, n, items, nitems, got);
                    int64_t bad = mask_diff(got, want, n);
                    if (bad != -1) {
                        char value[64] = "";
                        if (bad >= 0 && bad < (int64_t)n)
                            snprintf(value, sizeof value, "value %a", AT(d, sel, (uint32_t)bad));
                        FAIL_MASK(bad, got, want, n, value, "kern_in_f64 %u items (rep %d) n=%u %s (seed %llu)", nitems,
                                  rep, n, MODE[mode], (unsigned long long)seed);
                    }
                }
            }
        }
}

Test(kernel, in_f64) { check_in_f64(44); }

/* The DOUBLE rules stated outright: -0.0 in the list matches 0.0 and -0.0 rows, a NaN item any
** NaN row, and nothing else matches them; short and long lists. */
Test(kernel, in_f64_nan_and_zero_rules) {
    double d[70];
    for (int r = 0; r < 70; r++)
        d[r] = r % 5 == 0 ? -0.0 : r % 5 == 1 ? 0.0 : r % 5 == 2 ? NAN : r % 5 == 3 ? -NAN : (double)r;
    for (uint32_t extra = 0; extra <= 20; extra += 20) {
        double items[32] = {-0.0};
        uint32_t n = 1 + extra;
        for (uint32_t k = 1; k < n; k++)
            items[k] = 1000.0 + k;
        uint64_t got[2];
        uint32_t ni = kern_in_prepare_f64(items, n);
        kern_in_f64(d, NULL, 70, items, ni, got);
        for (int r = 0; r < 70; r++)
            cr_assert_eq(bit_of(got, r), r % 5 < 2, "-0.0 in a list of %u: row %d", n, r);
        items[n] = from_bits(0xfff8000000000123ull); /* a negative NaN with a payload */
        ni = kern_in_prepare_f64(items, n + 1);
        cr_assert(isnan(items[ni - 1]), "the NaN goes last");
        kern_in_f64(d, NULL, 70, items, ni, got);
        for (int r = 0; r < 70; r++)
            cr_assert_eq(bit_of(got, r), r % 5 < 4, "-0.0 and NaN in a list of %u: row %d", n + 1, r);
    }
}

/* check_between_T: bounds from the edges, the pool and the data (equal bounds, reversed bounds,
** the type's whole range) over every mode and n. */
#define DEFINE_BETWEEN_INT(SUF, T, TMIN, TMAX)                                                               \
    static void check_between_##SUF(uint64_t seed) {                                                         \
        static T base[VECTOR_SIZE + 1];                                                                      \
        static sel_t selbuf[VECTOR_SIZE + 1];                                                                \
        static const int64_t edges[] = {TMIN, (int64_t)TMIN + 1, -1, 0, 1, (int64_t)TMAX - 1, TMAX};         \
        enum { NEDGE = sizeof edges / sizeof edges[0] };                                                     \
        int64_t pool[NPOOL];                                                                                 \
        rng_seed(seed);                                                                                      \
        for (int i = 0; i < NPOOL; i++)                                                                      \
            pool[i] = gen_any(TMIN, TMAX);                                                                   \
        for (uint32_t i = 0; i <= VECTOR_SIZE; i++)                                                          \
            base[i] = (T)gen_int(edges, NEDGE, pool, TMIN, TMAX, false);                                     \
        T bounds[NEDGE + NPOOL + 3];                                                                         \
        int nb = 0;                                                                                          \
        for (int i = 0; i < NEDGE; i++)                                                                      \
            bounds[nb++] = (T)edges[i];                                                                      \
        for (int i = 0; i < NPOOL; i++)                                                                      \
            bounds[nb++] = (T)pool[i];                                                                       \
        bounds[nb++] = base[5];                                                                              \
        bounds[nb++] = (T)gen_any(TMIN, TMAX);                                                               \
        bounds[nb++] = (T)gen_any(TMIN, TMAX);                                                               \
        uint64_t want[VALIDITY_WORDS], got[MASKBUF];                                                         \
        for (int mode = 0; mode < NMODES; mode++) {                                                          \
            const sel_t *sel = make_sel(mode, selbuf);                                                       \
            const T *d = base + data_off(mode);                                                              \
            for (uint32_t ni = 0; ni < NNS; ni += (mode == M_FLAT ? 1 : 3))                                  \
                for (int a = 0; a < nb; a++)                                                                 \
                    for (int b = 0; b < nb; b++) {                                                           \
                        uint32_t n = NS[ni];                                                                 \
                        T lo = bounds[a], hi = bounds[b];                                                    \
                        memset(want, 0, sizeof want);                                                        \
                        for (uint32_t r = 0; r < n; r++)                                                     \
                            if (lo <= AT(d, sel, r) && AT(d, sel, r) <= hi) set_bit(want, r);                \
                        for (uint32_t w = 0; w < MASKBUF; w++)                                               \
                            got[w] = CANARY64;                                                               \
                        kern_between_##SUF(d, sel, n, lo, hi, got);                                          \
                        CHECK_MASK_INT(got, want, n, d, sel, "kern_between_" #SUF " [%lld, %lld] n=%u %s (seed %llu)", \
                                       (long long)lo, (long long)hi, n, MODE[mode], (unsigned long long)seed); \
                    }                                                                                        \
        }                                                                                                    \
    }

DEFINE_BETWEEN_INT(i16, int16_t, INT16_MIN, INT16_MAX)
DEFINE_BETWEEN_INT(i32, int32_t, INT32_MIN, INT32_MAX)
DEFINE_BETWEEN_INT(i64, int64_t, INT64_MIN, INT64_MAX)

Test(kernel, between_i16) { check_between_i16(45); }
Test(kernel, between_i32) { check_between_i32(46); }
Test(kernel, between_i64) { check_between_i64(47); }

/* DOUBLE: every pair of edge values as bounds (NaN bounds included) and a few ordinary ones;
** between in strata's order. */
Test(kernel, between_f64) {
    static double base[VECTOR_SIZE + 1];
    static sel_t selbuf[VECTOR_SIZE + 1];
    double pool[NPOOL];
    init_specials();
    rng_seed(48);
    for (int i = 0; i < NPOOL; i++)
        pool[i] = gen_f64(specials, false);
    pool[0] = 3.25;
    for (uint32_t i = 0; i <= VECTOR_SIZE; i++)
        base[i] = gen_f64(pool, false);
    double bounds[NSPECIAL + 4];
    int nb = 0;
    for (int i = 0; i < NSPECIAL; i++)
        bounds[nb++] = specials[i];
    bounds[nb++] = pool[0];
    bounds[nb++] = pool[1];
    bounds[nb++] = -2.5;
    bounds[nb++] = 4.0;
    uint64_t want[VALIDITY_WORDS], got[MASKBUF];
    for (int mode = 0; mode < NMODES; mode++) {
        const sel_t *sel = make_sel(mode, selbuf);
        const double *d = base + data_off(mode);
        for (uint32_t ni = 0; ni < NNS; ni += (mode == M_FLAT ? 1 : 3))
            for (int a = 0; a < nb; a++)
                for (int b = 0; b < nb; b++) {
                    uint32_t n = NS[ni];
                    double lo = bounds[a], hi = bounds[b];
                    memset(want, 0, sizeof want);
                    for (uint32_t r = 0; r < n; r++)
                        if (f64_order(AT(d, sel, r), lo) >= 0 && f64_order(AT(d, sel, r), hi) <= 0) set_bit(want, r);
                    for (uint32_t w = 0; w < MASKBUF; w++)
                        got[w] = CANARY64;
                    kern_between_f64(d, sel, n, lo, hi, got);
                    int64_t bad = mask_diff(got, want, n);
                    if (bad != -1) {
                        char value[64] = "";
                        if (bad >= 0 && bad < (int64_t)n) snprintf(value, sizeof value, "value %a", AT(d, sel, (uint32_t)bad));
                        FAIL_MASK(bad, got, want, n, value, "kern_between_f64 [%a, %a] n=%u %s", lo, hi, n, MODE[mode]);
                    }
                }
    }
}

/* Strings for kern_prefix: lengths 0 to 30 over a 3-letter alphabet (so prefixes often match,
** and fail at every position), inline (up to SSTR_INLINE bytes) or pointing into text; the inline
** bytes past a short string's length are garbage, which must not matter. */
static char prefix_text[VECTOR_SIZE + 1][32];

static void make_strings(sstr *base, uint32_t count) {
    for (uint32_t i = 0; i < count; i++) {
        uint32_t len = rnd(4) == 0 ? rnd(31) : rnd(8);
        for (uint32_t k = 0; k < len; k++)
            prefix_text[i][k] = "abc"[rnd(3)];
        base[i] = sstr_make(prefix_text[i], len);
        if (len < SSTR_INLINE)
            for (uint32_t k = len; k < SSTR_INLINE; k++)
                base[i].u.inl[k] = (char)("abc\xff"[rnd(4)]);
    }
}

Test(kernel, prefix) {
    static sstr base[VECTOR_SIZE + 1];
    static sel_t selbuf[VECTOR_SIZE + 1];
    rng_seed(49);
    make_strings(base, VECTOR_SIZE + 1);
    uint64_t want[VALIDITY_WORDS], got[MASKBUF];
    for (uint32_t plen = 0; plen <= 20; plen++)
        for (int rep = 0; rep < 3; rep++) {
            char p[32];
            /* a prefix of a data string when it is long enough, otherwise random letters */
            const char *from = rep < 2 ? prefix_text[rnd(VECTOR_SIZE)] : NULL;
            for (uint32_t k = 0; k < plen; k++)
                p[k] = from && rep == 0 ? from[k] : "abc"[rnd(3)];
            for (int mode = 0; mode < NMODES; mode++) {
                const sel_t *sel = make_sel(mode, selbuf);
                const sstr *d = base + data_off(mode);
                for (uint32_t ni = 0; ni < NNS; ni++) {
                    uint32_t n = NS[ni];
                    memset(want, 0, sizeof want);
                    for (uint32_t r = 0; r < n; r++) {
                        const sstr *s = &AT(d, sel, r);
                        if (s->len >= plen && memcmp(sstr_data(s), p, plen) == 0) set_bit(want, r);
                    }
                    for (uint32_t w = 0; w < MASKBUF; w++)
                        got[w] = CANARY64;
                    kern_prefix(d, sel, n, p, plen, got);
                    int64_t bad = mask_diff(got, want, n);
                    if (bad != -1) {
                        char value[64] = "";
                        if (bad >= 0 && bad < (int64_t)n) {
                            const sstr *s = &AT(d, sel, (uint32_t)bad);
                            snprintf(value, sizeof value, "'%.*s'", (int)s->len, sstr_data(s));
                        }
                        FAIL_MASK(bad, got, want, n, value, "kern_prefix '%.*s' n=%u %s", (int)plen, p, n, MODE[mode]);
                    }
                }
            }
        }
}

/* The empty string and the empty prefix; prefixes of exactly 4 and SSTR_INLINE bytes against
** strings one byte shorter, as long and longer; a long string whose first 4 bytes match and
** whose later ones do not. */
Test(kernel, prefix_edges) {
    const char *text = "abcdefghijklmnopqrstuvwxyz";
    sstr d[8] = {sstr_make("", 0), sstr_make(text, 3), sstr_make(text, 4), sstr_make(text, 11),
                 sstr_make(text, 12), sstr_make(text, 13), sstr_make("abcdXfghijklmn", 14), sstr_make(text, 26)};
    uint64_t got[1];
    kern_prefix(d, NULL, 8, "", 0, got);
    cr_assert_eq(got[0], 0xff, "the empty prefix matches every string, the empty one too");
    kern_prefix(d, NULL, 8, "abcd", 4, got);
    cr_assert_eq(got[0], 0xfc, "'abcd%%': 0x%llx", (unsigned long long)got[0]);
    kern_prefix(d, NULL, 8, text, 12, got);
    cr_assert_eq(got[0], 0xb0, "12 bytes: 0x%llx", (unsigned long long)got[0]);
    kern_prefix(d, NULL, 8, text, 13, got);
    cr_assert_eq(got[0], 0xa0, "13 bytes: 0x%llx", (unsigned long long)got[0]);
    kern_prefix(d, NULL, 8, "abcde", 5, got);
    cr_assert_eq(got[0], 0xb8, "'abcde%%' (row 6 differs at byte 5): 0x%llx", (unsigned long long)got[0]);
}

/* kern_dict_mask and kern_dict_mask_checked: dictionaries of 1 to 5000 entries (each edge of the
** register lookup's 1, 2, 4 and 8 words of 32 entries, and past KERN_DICT_LANES), random entry bits
** and codes, every n; the checked kernel also with one code past the dictionary, in a whole word
** or in the tail, which it must report, and with an empty dictionary. */
Test(kernel, dict_mask) {
    static uint64_t entries[5000 / 64 + 1];
    static sel_t codes[VECTOR_SIZE];
    rng_seed(50);
    const uint32_t sizes[] = {1, 2, 31, 32, 33, 63, 64, 65, 100, 128, 129, 200, 255, 256, 257, 300, 5000};
    for (uint32_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        uint32_t size = sizes[si];
        for (uint32_t w = 0; w < KERN_WORDS(size); w++)
            entries[w] = rnd64() & rnd64();
        if (size % 64) entries[size / 64] &= ((uint64_t)1 << (size % 64)) - 1; /* the bits past size are zero */
        for (uint32_t r = 0; r < VECTOR_SIZE; r++)
            codes[r] = rnd(size);
        if (si % 3 == 0) /* runs of one code, as sorted data gives */
            for (uint32_t r = 0; r < VECTOR_SIZE; r++) codes[r] = codes[r / 100 * 100];
        for (uint32_t ni = 0; ni < NNS; ni++) {
            uint32_t n = NS[ni];
            uint64_t want[VALIDITY_WORDS] = {0}, got[MASKBUF];
            for (uint32_t r = 0; r < n; r++)
                if (bit_of(entries, codes[r])) set_bit(want, r);
            for (uint32_t w = 0; w < MASKBUF; w++)
                got[w] = CANARY64;
            kern_dict_mask(entries, size, codes, n, got);
            int64_t bad = mask_diff(got, want, n);
            if (bad != -1) FAIL_MASK(bad, got, want, n, "", "kern_dict_mask %u entries n=%u", size, n);
            for (uint32_t w = 0; w < MASKBUF; w++)
                got[w] = CANARY64;
            cr_assert(kern_dict_mask_checked(entries, size, codes, n, got),
                      "kern_dict_mask_checked %u entries n=%u: every code is in range", size, n);
            bad = mask_diff(got, want, n);
            if (bad != -1) FAIL_MASK(bad, got, want, n, "", "kern_dict_mask_checked %u entries n=%u", size, n);
            if (n == 0) continue;
            /* one code past the dictionary: size itself, a code in the padding of the last 32-bit
            ** word, or far past, at the first row, the last, or anywhere */
            const uint32_t pasts[] = {size, size + 31 - size % 32, size + 1000, UINT32_MAX};
            const uint32_t at[] = {0, n - 1, rnd(n)};
            for (uint32_t pi = 0; pi < 4; pi++)
                for (uint32_t ai = 0; ai < 3; ai++) {
                    sel_t keep = codes[at[ai]];
                    codes[at[ai]] = pasts[pi];
                    cr_assert(!kern_dict_mask_checked(entries, size, codes, n, got),
                              "kern_dict_mask_checked %u entries n=%u: code %u at row %u is past the dictionary",
                              size, n, pasts[pi], at[ai]);
                    codes[at[ai]] = keep;
                }
        }
    }
    uint64_t got[MASKBUF];
    cr_assert(kern_dict_mask_checked(entries, 0, codes, 0, got), "no rows, no dictionary: nothing is out of range");
    cr_assert(!kern_dict_mask_checked(entries, 0, codes, 100, got), "an empty dictionary: every code is out of range");
}

/* kern_mask_not: masks of every pattern, the bits past n staying zero, nothing past the mask. */
Test(kernel, mask_not) {
    rng_seed(51);
    for (uint32_t ni = 0; ni < NNS; ni++) {
        uint32_t n = NS[ni];
        uint64_t in[VALIDITY_WORDS] = {0}, want[VALIDITY_WORDS] = {0}, got[MASKBUF];
        for (uint32_t r = 0; r < n; r++)
            if (rnd(3) == 0) set_bit(in, r);
            else set_bit(want, r);
        load_mask(got, in, n);
        kern_mask_not(got, n);
        int64_t bad = mask_diff(got, want, n);
        if (bad != -1) FAIL_MASK(bad, got, want, n, "", "kern_mask_not n=%u", n);
    }
}
