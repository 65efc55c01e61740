/*
** hash.c -- hash_bytes, the string hash of hash.h (a compact wyhash).
*/
#include "hash.h"

/* wyhash's default secret and its two primitives: the 128-bit product folded to 64 bits (mix),
** and kept as two halves (mum). */
static const uint64_t WYP0 = 0xa0761d6478bd642full, WYP1 = 0xe7037ed1a0b428dbull,
                      WYP2 = 0x8ebc6af09c88c6e3ull, WYP3 = 0x589965cc75374cc3ull;
static inline uint64_t wymix(uint64_t a, uint64_t b) {
    unsigned __int128 r = (unsigned __int128)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}
static inline void wymum(uint64_t *a, uint64_t *b) {
    unsigned __int128 r = (unsigned __int128)*a * *b;
    *a = (uint64_t)r;
    *b = (uint64_t)(r >> 64);
}
static inline uint64_t rd8(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
static inline uint64_t rd4(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

uint64_t hash_bytes(const void *key, size_t len, uint64_t seed) {
    const uint8_t *p = key;
    uint64_t a, b;
    seed ^= wymix(seed ^ WYP0, WYP1);
    if (len <= 16) {
        if (len >= 4) { /* two overlapping pairs of 4-byte reads cover 4..16 bytes */
            a = (rd4(p) << 32) | rd4(p + ((len >> 3) << 2));
            b = (rd4(p + len - 4) << 32) | rd4(p + len - 4 - ((len >> 3) << 2));
        } else if (len > 0) {
            a = ((uint64_t)p[0] << 16) | ((uint64_t)p[len >> 1] << 8) | p[len - 1];
            b = 0;
        } else {
            a = b = 0;
        }
    } else {
        size_t i = len;
        if (i >= 48) { /* three independent lanes keep the multiplier busy */
            uint64_t see1 = seed, see2 = seed;
            do {
                seed = wymix(rd8(p) ^ WYP1, rd8(p + 8) ^ seed);
                see1 = wymix(rd8(p + 16) ^ WYP2, rd8(p + 24) ^ see1);
                see2 = wymix(rd8(p + 32) ^ WYP3, rd8(p + 40) ^ see2);
                p += 48;
                i -= 48;
            } while (i >= 48);
            seed ^= see1 ^ see2;
        }
        while (i > 16) {
            seed = wymix(rd8(p) ^ WYP1, rd8(p + 8) ^ seed);
            i -= 16;
            p += 16;
        }
        a = rd8(p + i - 16); /* the last 16 bytes, overlapping what came before */
        b = rd8(p + i - 8);
    }
    a ^= WYP1;
    b ^= seed;
    wymum(&a, &b);
    return wymix(a ^ WYP0 ^ len, b ^ WYP1);
}
