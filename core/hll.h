/*
** hll.h -- HyperLogLog: an estimate of the number of distinct values in a stream, in a fixed
** 4 KiB of registers, that merges (the sketch of two streams is the register-wise maximum).
**
** The table statistics (planner/catalog/stats.c) keep one per column: merging lets the statistics grow
** with a table (a new row group's sketch folds into the table's) without reading the old rows
** again. 2^12 registers give a relative standard error of 1.04 / sqrt(4096) = 1.6 %; the
** estimator is Ertl's ("New cardinality estimation algorithms for HyperLogLog sketches", 2017),
** which needs no bias tables and is accurate from one distinct value up (small counts come out
** near exact, as linear counting would give them).
**
** Written here rather than taken from a library: no Debian package offers a small C HyperLogLog
** (Redis's lives inside its server), and the sketch is a page of code.
**
** The registers are plain bytes so that a sketch can be stored and read back as they are; a
** stored sketch is only meaningful to a build that hashes values the same way (the caller hashes).
*/
#ifndef STRATA_HLL_H
#define STRATA_HLL_H

#include <stdint.h>

#define HLL_BITS 12
#define HLL_REGISTERS (1u << HLL_BITS)

typedef struct hll {
    uint8_t reg[HLL_REGISTERS]; /* per bucket: 1 + leading zeros of the hash's other bits, max */
} hll;

/* hll_init empties the sketch. */
void hll_init(hll *h);
/* hll_add records a value by its 64-bit hash. The hash is mixed again first, so hashes whose
** bits are not uniform (an identity-like integer hash) still spread over the registers. */
void hll_add(hll *h, uint64_t hash);
/* hll_merge makes dst the sketch of both streams. */
void hll_merge(hll *dst, const hll *src);
/* hll_valid says whether every register holds a value hll_add can write (a stored sketch read
** back must be checked before it is estimated or merged). */
int hll_valid(const hll *h);
/* hll_estimate returns the estimated number of distinct values added (0 for an empty sketch). */
double hll_estimate(const hll *h);

#endif
