/*
** hash.c -- hash_bytes, the string hash of hash.h (a compact wyhash).
*/
#include "hash.h"

static inline uint64_t rd8(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

uint64_t hash_bytes(const void *key, size_t len, uint64_t seed) {
    const uint8_t *p = key;
    uint64_t a, b;
    seed ^= hash_wymix(seed ^ HASH_WYP0, HASH_WYP1);
    if (len <= 16) {
        hash_short_words(p, len, &a, &b);
    } else {
        size_t i = len;
        if (i >= 48) { /* three independent lanes keep the multiplier busy */
            uint64_t see1 = seed, see2 = seed;
            do {
                seed = hash_wymix(rd8(p) ^ HASH_WYP1, rd8(p + 8) ^ seed);
                see1 = hash_wymix(rd8(p + 16) ^ HASH_WYP2, rd8(p + 24) ^ see1);
                see2 = hash_wymix(rd8(p + 32) ^ HASH_WYP3, rd8(p + 40) ^ see2);
                p += 48;
                i -= 48;
            } while (i >= 48);
            seed ^= see1 ^ see2;
        }
        while (i > 16) {
            seed = hash_wymix(rd8(p) ^ HASH_WYP1, rd8(p + 8) ^ seed);
            i -= 16;
            p += 16;
        }
        a = rd8(p + i - 16); /* the last 16 bytes, overlapping what came before */
        b = rd8(p + i - 8);
    }
    return hash_finish(a, b, seed, len);
}
