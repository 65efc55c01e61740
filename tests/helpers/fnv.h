/*
** fnv.h -- FNV-1a over bytes, the checksum the TPC-H tests compute (as tpch-run does).
*/
#ifndef STRATA_TEST_FNV_H
#define STRATA_TEST_FNV_H

#include <stddef.h>
#include <stdint.h>

#define FNV_START 0xCBF29CE484222325ull

static inline uint64_t fnv1a(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001B3ull;
    return h;
}

#endif
