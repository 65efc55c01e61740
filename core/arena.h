/*
** arena.h -- region allocation: many small allocations freed together.
**
** An arena hands out memory from blocks it obtains with malloc; arena_reset() makes all of it
** reusable at once and arena_free() returns the blocks. Used for per-statement and per-operation
** scratch memory so that hot paths do not call malloc per row.
*/
#ifndef STRATA_ARENA_H
#define STRATA_ARENA_H

#include <stddef.h>

typedef struct arena_block arena_block;

typedef struct arena {
    arena_block *head;  /* block being filled; older blocks follow */
    arena_block *spare; /* blocks a reset kept, empty, for the allocations after it */
    size_t block_size;  /* default size of a new block */
    size_t used;        /* bytes handed out since the last reset (for memory accounting) */
} arena;

/* arena_init prepares an empty arena whose blocks are at least block_size bytes (0: 64 KiB). */
void arena_init(arena *a, size_t block_size);
/* arena_alloc returns n bytes aligned to 16, or NULL when malloc fails (the arena is unchanged). */
void *arena_alloc(arena *a, size_t n);
/* arena_strdup copies a NUL-terminated string into the arena; NULL on out of memory. */
char *arena_strdup(arena *a, const char *s);
/* arena_reset forgets every allocation, keeping blocks for reuse: as many bytes of them as the
** arena held (at least 64 KiB, at most 1 MiB; arena.c), so that an arena refilled after each
** reset -- a vector's strings, chunk after chunk -- does not malloc and free the same blocks every
** time. */
void arena_reset(arena *a);
/* arena_adopt makes from's allocations a's: they stay where they are and are freed with a's
** blocks (a keeps filling its own head block); from is left empty, as after arena_init. Neither
** arena may be in use by another thread. */
void arena_adopt(arena *a, arena *from);
/* arena_free releases every block; the arena may be reused after arena_init. */
void arena_free(arena *a);

#endif
