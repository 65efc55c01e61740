/*
** hash.h -- the hash functions of strata: one scheme for single values (core/value.c) and for
** vectors of them (vector/hash.c), so that the two can meet in one hash table.
**
** Fixed-width values go through murmur3's 64-bit finalizer (fmix64): two multiplies and three
** xor-shifts, a bijection with full avalanche, made only of operations that exist on SIMD lanes.
** Integers are widened to int64 first, which makes equal values of different widths hash alike;
** DATE, TIMESTAMP and DECIMAL hash their stored integer. Strings use a compact wyhash (Wang Yi's
** public-domain design): one 64x64->128-bit multiply per 16 bytes plus two to finish, fast on the
** short keys that dominate GROUP BY and join columns. Nothing here is persisted: the hashes may
** change between versions.
*/
#ifndef STRATA_HASH_H
#define STRATA_HASH_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "types.h"

/* The hash of a NULL, for values and vectors alike. */
#define HASH_NULL UINT64_C(0x8f8b4a5d3c2e1b07)

/* hash_bytes hashes len bytes of key with a seed (0 for SQL strings and blobs). */
uint64_t hash_bytes(const void *key, size_t len, uint64_t seed);

/* wyhash's secret and its 128-bit product folded to 64 bits, shared by hash_bytes (hash.c) and
** its inline short-key path below. */
#define HASH_WYP0 UINT64_C(0xa0761d6478bd642f)
#define HASH_WYP1 UINT64_C(0xe7037ed1a0b428db)
#define HASH_WYP2 UINT64_C(0x8ebc6af09c88c6e3)
#define HASH_WYP3 UINT64_C(0x589965cc75374cc3)
static inline uint64_t hash_wymix(uint64_t a, uint64_t b) {
    unsigned __int128 r = (unsigned __int128)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

/* hash_short_words reads the two words hash_bytes mixes for a key of at most 16 bytes. */
static inline void hash_short_words(const uint8_t *p, size_t len, uint64_t *a, uint64_t *b) {
    uint32_t w[4];
    if (len >= 4) { /* two overlapping pairs of 4-byte reads cover 4..16 bytes */
        size_t step = (len >> 3) << 2;
        memcpy(&w[0], p, 4);
        memcpy(&w[1], p + step, 4);
        memcpy(&w[2], p + len - 4, 4);
        memcpy(&w[3], p + len - 4 - step, 4);
        *a = ((uint64_t)w[0] << 32) | w[1];
        *b = ((uint64_t)w[2] << 32) | w[3];
    } else if (len > 0) {
        *a = ((uint64_t)p[0] << 16) | ((uint64_t)p[len >> 1] << 8) | p[len - 1];
        *b = 0;
    } else {
        *a = *b = 0;
    }
}

/* hash_finish is hash_bytes's last step: a and b the key's last two words, seed the mixed seed. */
static inline uint64_t hash_finish(uint64_t a, uint64_t b, uint64_t seed, size_t len) {
    unsigned __int128 r = (unsigned __int128)(a ^ HASH_WYP1) * (b ^ seed);
    return hash_wymix((uint64_t)r ^ HASH_WYP0 ^ len, (uint64_t)(r >> 64) ^ HASH_WYP1);
}

/* hash_bytes_short equals hash_bytes(key, len, 0) for len <= 16: inline, with the seed's mix a
** constant, for the short strings of GROUP BY and join keys. */
static inline uint64_t hash_bytes_short(const void *key, size_t len) {
    uint64_t a, b;
    hash_short_words(key, len, &a, &b);
    return hash_finish(a, b, hash_wymix(HASH_WYP0, HASH_WYP1), len);
}

static inline uint64_t hash_fmix64(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

/* hash_i64 hashes any integer-stored value (all integer widths, DATE, TIMESTAMP, DECIMAL). */
static inline uint64_t hash_i64(int64_t x) { return hash_fmix64((uint64_t)x); }

/* hash_combine folds the hash of the next key column (b, already well mixed) into a. The multiply
** makes the result depend on the order of the columns: (x, y) and (y, x) hash differently. */
static inline uint64_t hash_combine(uint64_t a, uint64_t b) {
    a ^= a >> 32;
    a *= 0xd6e8feb86659fd93ull;
    return a ^ b;
}

/* hash_f64: -0.0 equals 0.0 and every NaN equals every NaN, as in PostgreSQL. */
static inline uint64_t hash_f64(double x) {
    uint64_t bits;
    if (x == 0) x = 0;
    if (isnan(x))
        bits = 0x7ff8000000000000ull;
    else
        memcpy(&bits, &x, sizeof bits);
    return hash_fmix64(bits);
}

/* An interval's length in microseconds, a month counting 30 days and a day 24 hours: the value
** PostgreSQL compares and hashes intervals by ('1 month' = '30 days'). */
static inline __int128 interval_length(sql_interval iv) {
    return ((__int128)iv.months * 30 + iv.days) * (__int128)86400000000 + iv.micros;
}
static inline uint64_t hash_interval(sql_interval iv) {
    __int128 span = interval_length(iv);
    return hash_combine(hash_fmix64((uint64_t)((unsigned __int128)span >> 64)), hash_fmix64((uint64_t)span));
}

static inline uint64_t hash_sstr(const sstr *s) {
    return s->len <= 16 ? hash_bytes_short(sstr_data(s), s->len) : hash_bytes(sstr_data(s), s->len, 0);
}

#endif
