/*
** vector_internal.h -- what vector.c, chunk.c and hash.c share and the rest of the library does
** not see: the aligned allocator of the layer, the static all-zero selection, validity bit access.
*/
#ifndef STRATA_VECTOR_INTERNAL_H
#define STRATA_VECTOR_INTERNAL_H

#include "vector.h"

/* The selection of a CONSTANT vector: every row reads index 0. */
extern const sel_t vec_zero_sel[VECTOR_SIZE];

/* vec_alloc returns n bytes (rounded up to VECTOR_ALIGN) aligned to VECTOR_ALIGN, or NULL. Every
** buffer of the layer comes from here and is released with free(). */
void *vec_alloc(size_t n);

static inline int bit_get(const uint64_t *w, uint32_t i) { return (int)((w[i >> 6] >> (i & 63)) & 1); }
static inline void bit_set(uint64_t *w, uint32_t i) { w[i >> 6] |= (uint64_t)1 << (i & 63); }
static inline void bit_clear(uint64_t *w, uint32_t i) { w[i >> 6] &= ~((uint64_t)1 << (i & 63)); }

/* valid_at says whether value index i (not row) of v is valid. */
static inline int valid_at(const vector *v, uint32_t i) {
    return v->validity == NULL || bit_get(v->validity, i);
}

#endif
