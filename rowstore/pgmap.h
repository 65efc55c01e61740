/*
** pgmap.h -- a hash map from page numbers to 64-bit values (open addressing, linear probing,
** backward-shift deletion). The pager uses it for its WAL index, a transaction's dirty and
** spilled pages, and a snapshot's preserved pages. Not thread-safe; callers lock.
*/
#ifndef STRATA_PGMAP_H
#define STRATA_PGMAP_H

#include <stdint.h>

typedef struct pgmap {
    uint32_t *keys;  /* pgno + 1; 0 marks an empty slot */
    uint64_t *vals;
    uint32_t cap;    /* power of two, or 0 before the first insert */
    uint32_t count;
} pgmap;

/* pgmap_get stores the value of pgno in *val and returns 1, or returns 0 when absent. */
int pgmap_get(const pgmap *m, uint32_t pgno, uint64_t *val);
/* pgmap_put inserts or replaces; returns 0, or -1 when memory runs out (the map is unchanged). */
int pgmap_put(pgmap *m, uint32_t pgno, uint64_t val);
/* pgmap_reserve makes room for n more entries, so that the next n puts of new keys cannot
** fail; returns 0, or -1 when memory runs out. */
int pgmap_reserve(pgmap *m, uint32_t n);
/* pgmap_del removes pgno; returns 1 when it was present. */
int pgmap_del(pgmap *m, uint32_t pgno);
/* pgmap_clear forgets every entry but keeps the memory; pgmap_free releases it. */
void pgmap_clear(pgmap *m);
void pgmap_free(pgmap *m);
/* Iteration: for (uint32_t i = 0; pgmap_next(m, &i, &pgno, &val); ) ... ; no changes meanwhile. */
int pgmap_next(const pgmap *m, uint32_t *iter, uint32_t *pgno, uint64_t *val);

#endif
