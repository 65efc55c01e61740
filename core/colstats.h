/*
** colstats.h -- what the statistics know of one column's values: their NULL count, their range
** (min and max) and a HyperLogLog sketch of the distinct ones (hll.h).
**
** The same summary is kept for a whole table (planner/catalog/stats.c) and for each row group, written
** with it at migration (colstore/rowgroup.h): summaries of disjoint rows merge (colstats_merge)
** into the summary of their union, so ANALYZE adds up a row group's without reading its rows.
** Values are hashed for the sketch by colstats_hash and its typed forms (colstats_hash_text,
** colstats_hash_f64), not by core/hash.h's hash, which may change between versions: a stored
** sketch must keep meaning the same values (change the hash and the stored forms' versions go up).
**
** Stored form of one column (colstats_put; little-endian): i64 NULLs, u8 flags (1 has_range,
** 2 numeric), f64 lo, f64 hi, u8 length + min text, u8 length + max text, the sketch's
** HLL_REGISTERS bytes.
*/
#ifndef STRATA_COLSTATS_H
#define STRATA_COLSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hll.h"
#include "value.h"

/* Text of a string min/max kept (cut at a UTF-8 character boundary). */
#define STATS_TEXT_MAX 64
/* The most bytes colstats_put writes. */
#define COLSTATS_MAX_BYTES (8 + 1 + 8 + 8 + 2 * (1 + STATS_TEXT_MAX) + HLL_REGISTERS)

typedef struct column_stats {
    int64_t nulls;
    bool has_range;      /* some non-NULL value was seen: min, max, lo, hi are set */
    bool numeric;        /* lo and hi hold min and max as numbers (stats_number) */
    double lo, hi;
    char min[STATS_TEXT_MAX + 1], max[STATS_TEXT_MAX + 1]; /* as value_to_text writes them */
    double distinct;     /* the sketch's estimate, at most the non-NULL rows (set by its owner) */
    hll sketch;          /* of the non-NULL values, hashed by colstats_hash */
} column_stats;

/* colstats_init empties c. */
void colstats_init(column_stats *c);
/* colstats_add counts one value (NULL or not) of the column. Min and max are kept for numbers
** and VARCHAR. */
void colstats_add(column_stats *c, const sql_value *v);
/* colstats_widen widens c's range to the non-NULL value v, counting nothing (for a caller that
** fills the sketch and the NULL count itself and knows its values' min and max). */
void colstats_widen(column_stats *c, const sql_value *v);
/* colstats_merge makes dst the summary of its values and src's. */
void colstats_merge(column_stats *dst, const column_stats *src);

/* colstats_hash hashes a non-NULL value for the sketch so that equal values of a column hash
** alike: integers of every width, DECIMAL, DATE, TIMESTAMP and BOOLEAN by their int64 (as they
** are), DOUBLE by colstats_hash_f64, strings, BLOBs and INTERVALs by colstats_hash_text of their
** bytes. */
uint64_t colstats_hash(const sql_value *v);
uint64_t colstats_hash_text(const void *p, size_t n);
uint64_t colstats_hash_f64(double d);

/* colstats_put writes the stored form of c to out (NULL: only counts) and returns its length. */
size_t colstats_put(const column_stats *c, uint8_t *out);
/* colstats_get reads a stored form at p (not past end) into c and returns the byte after it, or
** NULL when the bytes are not one. c->distinct is not set. */
const uint8_t *colstats_get(column_stats *c, const uint8_t *p, const uint8_t *end);

/* stats_number reads a value of a type that orders as numbers (integers, DECIMAL, DOUBLE, DATE
** as days, TIMESTAMP as microseconds, BOOLEAN) as a double; false for other types and NULL. */
bool stats_number(const sql_value *v, double *out);

#endif
