/*
** bigmem.c -- large zeroed arrays on their own mappings with transparent huge pages (bigmem.h).
*/
#include "bigmem.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void *map(size_t n) {
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, n, MADV_HUGEPAGE); /* advice only: without it the pages are ordinary ones */
#endif
    return p;
}

void *bigmem_alloc(size_t n) { return n >= BIGMEM_MIN ? map(n) : calloc(1, n); }

void *bigmem_grow(void *p, size_t old, size_t n) {
    if (!p) return bigmem_alloc(n);
    if (n < BIGMEM_MIN) { /* both on the heap */
        char *q = realloc(p, n);
        if (q) memset(q + old, 0, n - old);
        return q;
    }
    if (old < BIGMEM_MIN) { /* from the heap to a mapping */
        void *q = map(n);
        if (!q) return NULL;
        memcpy(q, p, old);
        free(p);
        return q;
    }
    void *q = mremap(p, old, n, MREMAP_MAYMOVE);
    if (q == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(q, n, MADV_HUGEPAGE);
#endif
    return q;
}

void bigmem_free(void *p, size_t n) {
    if (!p) return;
    if (n >= BIGMEM_MIN) munmap(p, n);
    else free(p);
}
