/*
** bigmem.h -- large zeroed arrays that grow: hash tables' slots, per-group aggregate states.
**
** A block of at least BIGMEM_MIN bytes is mapped on its own (mmap) and the kernel is asked to back
** it with transparent huge pages (madvise MADV_HUGEPAGE, where the system allows it): a table of
** tens of megabytes probed at random then takes one page fault and one TLB entry per 2 MiB
** instead of per 4 KiB. Smaller blocks come from calloc. Mapped memory is zero already, so no
** block is cleared twice, and growing a mapped block (mremap) copies no bytes.
**
** The caller keeps each block's size: bigmem_grow and bigmem_free take it, since the size says
** where the block came from. Without huge pages (the system's setting "never", or another
** platform) everything works the same, with ordinary pages.
*/
#ifndef STRATA_BIGMEM_H
#define STRATA_BIGMEM_H

#include <stddef.h>

#define BIGMEM_MIN ((size_t)2 << 20)

/* bigmem_alloc returns n zeroed bytes (n > 0), or NULL when out of memory. */
void *bigmem_alloc(size_t n);
/* bigmem_grow resizes block p of old bytes to n >= old bytes, the new ones zero, and returns it
** (maybe moved), or NULL when out of memory, p then unchanged. p NULL (old 0): bigmem_alloc. */
void *bigmem_grow(void *p, size_t old, size_t n);
/* bigmem_free returns block p of n bytes (p NULL: nothing). */
void bigmem_free(void *p, size_t n);

#endif
