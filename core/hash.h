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

static inline uint64_t hash_sstr(const sstr *s) { return hash_bytes(sstr_data(s), s->len, 0); }

#endif
