/*
** bitpack.c -- bit-packing of w-bit unsigned integers (see bitpack.h for the layout).
**
** Unpacking is the hot part: it runs under every frame-of-reference, delta and dictionary decode.
** It goes a group of 64 values at a time through one kernel per width, each an instance of
** unpack_group() with w a compile-time constant, so that after unrolling every value is a
** load, a shift or two and a mask with constant operands (no per-value branch on the width).
** Packing runs once per segment write and stays generic.
*/
#include "bitpack.h"

#include <string.h>

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
static inline __attribute__((always_inline)) void unpack_group(const uint8_t *restrict in,
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

void bitpack_unpack(const uint8_t *in, uint32_t n, unsigned w, uint64_t *out) {
    unpack_kernel k = kernels[w];
    for (uint32_t g = 0; g < n; g += BITPACK_GROUP) {
        k(in, out + g);
        in += 8 * w;
    }
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
