/*
** bitpack.c -- bit-packing of w-bit unsigned integers (see bitpack.h for the layout).
**
** Unpacking is the hot part: it runs under every frame-of-reference, delta and dictionary decode.
** It goes a group of 64 values at a time through one kernel per width, so that the width's
** shifts and masks are compile-time constants (no per-value branch on the width).
**
** Widths up to 32 unpack 8 values at a time into the 32-bit lanes of a 256-bit register (simde's
** AVX2 intrinsics): 8 values of w bits are exactly w bytes, so every 8 start on a byte boundary;
** values 0-3 come from the 16 bytes at the chunk's start and values 4-7 from the 16 at byte w / 2
** (one load into each 128-bit half), a byte shuffle puts the 4 bytes holding each value's low bits
** into its lane, a variable shift right by its bit offset and a mask finish it; for w > 25 a value
** can span 5 bytes, and a second shuffle and a shift left bring in its high bits. The frame of
** reference's base is added in the same lanes and the values leave narrowed or widened to the
** output's type (bitpack_unpack_i16/_i32/_i64), so a frame-of-reference vector decodes straight
** into the column vector without a uint64 array in between. Measured on this project's AMD
** EPYC (AVX-512 machine, the same 256-bit code; 2048 values from L1, a shared machine): 0.06-0.07
** ns a value into INTEGER with the base added, 0.09-0.12 into uint64, against 0.15-0.23 for the
** scalar kernels into uint64 and 0.24-0.31 for those plus the narrowing loop (widths 3, 8, 17, 32).
** Wider values, and builds without AVX2, take the scalar kernels: unpack_group() per width. In
** a PORTABLE=1 build (SSE2) simde emulates the byte shuffle and the variable shifts lane by lane:
** 21-47 ns a value measured, a hundred times the scalar kernels. BITPACK_SIMD (0 or 1) may be
** defined to choose by hand. AVX-512 VBMI's byte permutes could unpack 64 bytes at a time; not done.
** Packing runs once per segment write and stays generic.
*/
#include "bitpack.h"

#include <string.h>

#include <simde/x86/avx2.h>

#ifndef BITPACK_SIMD
#if defined(SIMDE_X86_AVX2_NATIVE)
#define BITPACK_SIMD 1
#else
#define BITPACK_SIMD 0
#endif
#endif

#define ALWAYS_INLINE static inline __attribute__((always_inline))

static inline uint64_t load_le64(const uint8_t *p) {
    uint64_t x;
    memcpy(&x, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    return x;
}

static inline void store_le64(uint8_t *p, uint64_t x) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    memcpy(p, &x, 8);
}

/* ---- packing ------------------------------------------------------------------------------ */

void bitpack_pack(const uint64_t *in, uint32_t n, unsigned w, uint8_t *out) {
    if (w == 0) return;
    const uint64_t mask = w == 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1;
    for (uint32_t g = 0; g < n; g += BITPACK_GROUP) {
        uint64_t words[64] = {0};
        uint32_t m = n - g < BITPACK_GROUP ? n - g : BITPACK_GROUP;
        for (uint32_t i = 0; i < m; i++) {
            uint64_t v = in[g + i] & mask;
            unsigned bit = i * w, word = bit >> 6, shift = bit & 63;
            words[word] |= v << shift;
            if (shift + w > 64) words[word + 1] |= v >> (64 - shift);
        }
        for (unsigned j = 0; j < w; j++) store_le64(out + 8 * j, words[j]);
        out += 8 * w;
    }
}

/* ---- unpacking ---------------------------------------------------------------------------- */

/* unpack_group unpacks one group of 64 values of w bits; always inlined into a kernel per w. */
ALWAYS_INLINE void unpack_group(const uint8_t *restrict in,
                                                               uint64_t *restrict out, const unsigned w) {
    if (w == 0) {
        memset(out, 0, BITPACK_GROUP * sizeof *out);
        return;
    }
    const uint64_t mask = w == 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1;
#pragma GCC unroll 64
    for (unsigned i = 0; i < BITPACK_GROUP; i++) {
        const unsigned bit = i * w, word = bit >> 6, shift = bit & 63;
        uint64_t v = load_le64(in + 8 * word) >> shift;
        if (shift + w > 64) v |= load_le64(in + 8 * (word + 1)) << (64 - shift);
        out[i] = v & mask;
    }
}

typedef void (*unpack_kernel)(const uint8_t *in, uint64_t *out);

#define KERNEL(W)                                                                                            \
    static void unpack_##W(const uint8_t *restrict in, uint64_t *restrict out) { unpack_group(in, out, W); }
#define KERNELS8(A, B, C, D, E, F, G, H)                                                                     \
    KERNEL(A) KERNEL(B) KERNEL(C) KERNEL(D) KERNEL(E) KERNEL(F) KERNEL(G) KERNEL(H)
KERNELS8(0, 1, 2, 3, 4, 5, 6, 7)
KERNELS8(8, 9, 10, 11, 12, 13, 14, 15)
KERNELS8(16, 17, 18, 19, 20, 21, 22, 23)
KERNELS8(24, 25, 26, 27, 28, 29, 30, 31)
KERNELS8(32, 33, 34, 35, 36, 37, 38, 39)
KERNELS8(40, 41, 42, 43, 44, 45, 46, 47)
KERNELS8(48, 49, 50, 51, 52, 53, 54, 55)
KERNELS8(56, 57, 58, 59, 60, 61, 62, 63)
KERNEL(64)

#define K8(A, B, C, D, E, F, G, H)                                                                           \
    unpack_##A, unpack_##B, unpack_##C, unpack_##D, unpack_##E, unpack_##F, unpack_##G, unpack_##H
static const unpack_kernel kernels[65] = {
    K8(0, 1, 2, 3, 4, 5, 6, 7),
    K8(8, 9, 10, 11, 12, 13, 14, 15),
    K8(16, 17, 18, 19, 20, 21, 22, 23),
    K8(24, 25, 26, 27, 28, 29, 30, 31),
    K8(32, 33, 34, 35, 36, 37, 38, 39),
    K8(40, 41, 42, 43, 44, 45, 46, 47),
    K8(48, 49, 50, 51, 52, 53, 54, 55),
    K8(56, 57, 58, 59, 60, 61, 62, 63),
    unpack_64,
};

/* ---- unpacking into the output's type -------------------------------------------------- */

/* What a stream kernel writes: 32-bit, 64-bit or 16-bit lanes, value + base (modulo 2^64)
** truncated to the lane. */
enum { OUT_32, OUT_64, OUT_16 };

/* put_scalar writes value i of a kind's output. */
ALWAYS_INLINE void put_scalar(void *out, size_t i, uint64_t v, const int kind) {
    if (kind == OUT_32) ((uint32_t *)out)[i] = (uint32_t)v;
    else if (kind == OUT_64) ((uint64_t *)out)[i] = v;
    else ((uint16_t *)out)[i] = (uint16_t)v;
}

/* scalar_stream unpacks the groups holding n values through the scalar kernel of w, adding base
** and converting to kind as it copies each group out of a uint64 buffer in the L1 cache (a loop
** of known trip count over restrict pointers, which -O2 vectorizes). */
ALWAYS_INLINE void scalar_stream(const uint8_t *in, uint32_t n, unsigned w, uint64_t base, void *out,
                                 const int kind) {
    uint64_t group[BITPACK_GROUP];
    unpack_kernel k = kernels[w];
    for (size_t g = 0; g < n; g += BITPACK_GROUP, in += 8 * w) {
        k(in, group);
        const uint64_t *restrict s = group;
        if (kind == OUT_32) {
            uint32_t *restrict o = (uint32_t *)out + g;
            for (size_t i = 0; i < BITPACK_GROUP; i++) o[i] = (uint32_t)(base + s[i]);
        } else if (kind == OUT_64) {
            uint64_t *restrict o = (uint64_t *)out + g;
            for (size_t i = 0; i < BITPACK_GROUP; i++) o[i] = base + s[i];
        } else {
            uint16_t *restrict o = (uint16_t *)out + g;
            for (size_t i = 0; i < BITPACK_GROUP; i++) o[i] = (uint16_t)(base + s[i]);
        }
    }
}

#if BITPACK_SIMD

/* A width's shuffle controls and shifts (see the file's comment): lo[] picks the 4 bytes from the
** one holding a value's first bit, hi[] the 4 after them (0x80, a zero byte, past the 16 bytes of
** its half), shift[] is the value's first bit within its first byte. */
typedef struct unpack_ctrl {
    uint8_t lo[32], hi[32];
    uint32_t shift[8];
} __attribute__((aligned(32))) unpack_ctrl;

/* BIT is value K's (0..3) first bit within half H of a chunk of 8 values of W bits: half 1 starts
** at byte W / 2, bit 4 of it when W is odd. */
#define BIT(W, H, K) (((H) ? ((W)&1) * 4 : 0) + (K) * (W))
#define LO_BYTE(W, H, K, J) ((BIT(W, H, K) >> 3) + (J))
#define HI_BYTE(W, H, K, J) ((BIT(W, H, K) >> 3) + 4 + (J) > 15 ? 0x80 : (BIT(W, H, K) >> 3) + 4 + (J))
#define LANE(F, W, H, K) F(W, H, K, 0), F(W, H, K, 1), F(W, H, K, 2), F(W, H, K, 3)
#define HALF(F, W, H) LANE(F, W, H, 0), LANE(F, W, H, 1), LANE(F, W, H, 2), LANE(F, W, H, 3)
#define SHIFTS(W, H) BIT(W, H, 0) & 7, BIT(W, H, 1) & 7, BIT(W, H, 2) & 7, BIT(W, H, 3) & 7
#define CTRL(W) {{HALF(LO_BYTE, W, 0), HALF(LO_BYTE, W, 1)}, {HALF(HI_BYTE, W, 0), HALF(HI_BYTE, W, 1)}, {SHIFTS(W, 0), SHIFTS(W, 1)}}
#define CTRL8(A, B, C, D, E, F, G, H) CTRL(A), CTRL(B), CTRL(C), CTRL(D), CTRL(E), CTRL(F), CTRL(G), CTRL(H)
static const unpack_ctrl ctrls[33] = {
    {{0}, {0}, {0}},
    CTRL8(1, 2, 3, 4, 5, 6, 7, 8),
    CTRL8(9, 10, 11, 12, 13, 14, 15, 16),
    CTRL8(17, 18, 19, 20, 21, 22, 23, 24),
    CTRL8(25, 26, 27, 28, 29, 30, 31, 32),
};

#define VLOAD(p) simde_mm256_load_si256((const simde__m256i *)(const void *)(p))
#define VSTORE(p, x) simde_mm256_storeu_si256((simde__m256i *)(void *)(p), (x))

/* unpack8 returns the 8 values of w bits (1 <= w <= 32) that start at p, one per 32-bit lane;
** it reads the 16 bytes at p and at p + w / 2. */
ALWAYS_INLINE simde__m256i unpack8(const uint8_t *p, const unsigned w, simde__m256i lo, simde__m256i hi,
                                   simde__m256i shr, simde__m256i shl, simde__m256i mask) {
    simde__m256i x = simde_mm256_loadu2_m128i((const simde__m128i *)(const void *)(p + w / 2),
                                              (const simde__m128i *)(const void *)p);
    simde__m256i v = simde_mm256_srlv_epi32(simde_mm256_shuffle_epi8(x, lo), shr);
    if (w > 25) v = simde_mm256_or_si256(v, simde_mm256_sllv_epi32(simde_mm256_shuffle_epi8(x, hi), shl));
    if (w < 32) v = simde_mm256_and_si256(v, mask);
    return v;
}

/* simd_stream unpacks the groups holding n values of w bits (1 <= w <= 32) into kind's lanes,
** adding base. A group whose loads would reach past the stream's end (its last 16 bytes'
** neighbourhood) is copied into a padded buffer first. */
ALWAYS_INLINE void simd_stream(const uint8_t *in, uint32_t n, const unsigned w, uint64_t base, void *out,
                               const int kind) {
    const unpack_ctrl *c = &ctrls[w];
    const simde__m256i lo = VLOAD(c->lo), hi = VLOAD(c->hi), shr = VLOAD(c->shift);
    const simde__m256i shl = simde_mm256_sub_epi32(simde_mm256_set1_epi32(32), shr);
    const simde__m256i mask = simde_mm256_set1_epi32((int32_t)(uint32_t)((UINT64_C(1) << w) - 1));
    const simde__m256i b32 = simde_mm256_set1_epi32((int32_t)(uint32_t)base);
    const simde__m256i b64 = simde_mm256_set1_epi64x((int64_t)base);
    const simde__m256i m16 = simde_mm256_set1_epi32(0xffff);
    const size_t gbytes = 8 * (size_t)w, groups = ((size_t)n + BITPACK_GROUP - 1) / BITPACK_GROUP;
    const size_t bytes = groups * gbytes;
    size_t safe = bytes >= 16 ? (bytes - 16) / gbytes : 0; /* groups whose reads stay inside */
    if (safe > groups) safe = groups;
    uint8_t pad[8 * 32 + 16];
    for (size_t g = 0; g < groups; g++) {
        const uint8_t *p = in + g * gbytes;
        if (g >= safe) {
            memcpy(pad, p, gbytes);
            memset(pad + gbytes, 0, sizeof pad - gbytes);
            p = pad;
        }
        for (unsigned k = 0; k < 8; k++) {
            simde__m256i v = unpack8(p + k * w, w, lo, hi, shr, shl, mask);
            size_t at = g * BITPACK_GROUP + 8 * k;
            if (kind == OUT_32) {
                VSTORE((uint32_t *)out + at, simde_mm256_add_epi32(v, b32));
            } else if (kind == OUT_64) {
                simde__m256i v0 = simde_mm256_cvtepu32_epi64(simde_mm256_castsi256_si128(v));
                simde__m256i v1 = simde_mm256_cvtepu32_epi64(simde_mm256_extracti128_si256(v, 1));
                VSTORE((uint64_t *)out + at, simde_mm256_add_epi64(v0, b64));
                VSTORE((uint64_t *)out + at + 4, simde_mm256_add_epi64(v1, b64));
            } else {
                v = simde_mm256_and_si256(simde_mm256_add_epi32(v, b32), m16);
                simde__m128i h = simde_mm_packus_epi32(simde_mm256_castsi256_si128(v),
                                                       simde_mm256_extracti128_si256(v, 1));
                simde_mm_storeu_si128((simde__m128i *)(void *)((uint16_t *)out + at), h);
            }
        }
    }
}

typedef void (*stream_kernel)(const uint8_t *in, uint32_t n, uint64_t base, void *out);

#define STREAMS(W)                                                                                           \
    static void s32_##W(const uint8_t *in, uint32_t n, uint64_t base, void *out) {                          \
        simd_stream(in, n, W, base, out, OUT_32);                                                            \
    }                                                                                                        \
    static void s64_##W(const uint8_t *in, uint32_t n, uint64_t base, void *out) {                          \
        simd_stream(in, n, W, base, out, OUT_64);                                                            \
    }                                                                                                        \
    static void s16_##W(const uint8_t *in, uint32_t n, uint64_t base, void *out) {                          \
        simd_stream(in, n, W, base, out, OUT_16);                                                            \
    }
#define STREAMS8(A, B, C, D, E, F, G, H)                                                                     \
    STREAMS(A) STREAMS(B) STREAMS(C) STREAMS(D) STREAMS(E) STREAMS(F) STREAMS(G) STREAMS(H)
STREAMS8(1, 2, 3, 4, 5, 6, 7, 8)
STREAMS8(9, 10, 11, 12, 13, 14, 15, 16)
STREAMS8(17, 18, 19, 20, 21, 22, 23, 24)
STREAMS8(25, 26, 27, 28, 29, 30, 31, 32)

#define S8(P, A, B, C, D, E, F, G, H) P##A, P##B, P##C, P##D, P##E, P##F, P##G, P##H
#define SROW(P)                                                                                              \
    {NULL, S8(P, 1, 2, 3, 4, 5, 6, 7, 8), S8(P, 9, 10, 11, 12, 13, 14, 15, 16),                              \
     S8(P, 17, 18, 19, 20, 21, 22, 23, 24), S8(P, 25, 26, 27, 28, 29, 30, 31, 32)}
/* By kind (OUT_32, OUT_64, OUT_16) and width 1..32. */
static const stream_kernel streams[3][33] = {SROW(s32_), SROW(s64_), SROW(s16_)};

#endif /* BITPACK_SIMD */

/* unpack_to writes n values (rounded up to a group) of w bits plus base, as kind, to out. */
static void unpack_to(const uint8_t *in, uint32_t n, unsigned w, uint64_t base, void *out, const int kind) {
    if (w == 0) { /* every value is base */
        size_t m = ((size_t)n + BITPACK_GROUP - 1) / BITPACK_GROUP * BITPACK_GROUP;
        for (size_t i = 0; i < m; i++) put_scalar(out, i, base, kind);
        return;
    }
#if BITPACK_SIMD
    if (w <= 32) {
        streams[kind][w](in, n, base, out);
        return;
    }
#endif
    if (kind == OUT_64 && base == 0) { /* the scalar kernels write uint64 themselves */
        for (uint32_t g = 0; g < n; g += BITPACK_GROUP, in += 8 * w) kernels[w](in, (uint64_t *)out + g);
        return;
    }
    if (kind == OUT_32) scalar_stream(in, n, w, base, out, OUT_32);
    else if (kind == OUT_64) scalar_stream(in, n, w, base, out, OUT_64);
    else scalar_stream(in, n, w, base, out, OUT_16);
}

void bitpack_unpack(const uint8_t *in, uint32_t n, unsigned w, uint64_t *out) { unpack_to(in, n, w, 0, out, OUT_64); }

void bitpack_unpack32(const uint8_t *in, uint32_t n, unsigned w, uint32_t *out) {
    unpack_to(in, n, w, 0, out, OUT_32);
}

void bitpack_unpack_i16(const uint8_t *in, uint32_t n, unsigned w, uint64_t base, int16_t *out) {
    unpack_to(in, n, w, base, out, OUT_16);
}

void bitpack_unpack_i32(const uint8_t *in, uint32_t n, unsigned w, uint64_t base, int32_t *out) {
    unpack_to(in, n, w, base, out, OUT_32);
}

void bitpack_unpack_i64(const uint8_t *in, uint32_t n, unsigned w, uint64_t base, int64_t *out) {
    unpack_to(in, n, w, base, out, OUT_64);
}

uint64_t bitpack_sum(const uint8_t *in, uint32_t n, unsigned w) {
    if (w == 0) return 0; /* a delta segment of constant steps: nothing to add */
    uint64_t group[BITPACK_GROUP], sum = 0;
    unpack_kernel k = kernels[w];
    for (uint32_t g = 0; g < n; g += BITPACK_GROUP) {
        k(in, group);
        in += 8 * w;
        uint32_t m = n - g < BITPACK_GROUP ? n - g : BITPACK_GROUP;
        for (uint32_t i = 0; i < m; i++) sum += group[i];
    }
    return sum;
}

uint64_t bitpack_get(const uint8_t *in, uint64_t i, unsigned w) {
    if (w == 0) return 0;
    uint64_t bit = i * w;
    uint64_t word = bit >> 6;
    unsigned shift = (unsigned)(bit & 63);
    uint64_t v = load_le64(in + 8 * word) >> shift;
    if (shift + w > 64) v |= load_le64(in + 8 * (word + 1)) << (64 - shift);
    return w == 64 ? v : v & ((UINT64_C(1) << w) - 1);
}
