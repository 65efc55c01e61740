/*
** arena.c -- region allocation: bump allocation out of malloc'd blocks, freed all at once.
**
** Blocks form a list with the block being filled at the head. A request larger than the block
** size gets a block of its own, linked behind the head so that the head's free space is not
** abandoned. arena_reset keeps blocks of ordinary size, up to ARENA_KEEP bytes, as spares that
** later allocations take before they malloc -- as many as the arena held, up to ARENA_KEEP_MAX, so
** that a vector refilled with the same amount of strings chunk after chunk mallocs nothing -- and
** frees the others.
** An arena is not thread-safe: each thread or statement uses its own.
*/
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_ALIGN 16
#define ARENA_DEFAULT_BLOCK (64 * 1024)
#define ARENA_KEEP (64 * 1024)        /* bytes of blocks a reset keeps at least ... */
#define ARENA_KEEP_MAX (1024 * 1024)  /* ... and at most, when the arena held that much */

struct arena_block {
    arena_block *next; /* the next older block */
    size_t size;       /* usable bytes in data */
    size_t off;        /* bytes of data already handed out or skipped for alignment */
    unsigned char data[];
};

void arena_init(arena *a, size_t block_size) {
    a->head = NULL;
    a->spare = NULL;
    a->block_size = block_size ? block_size : ARENA_DEFAULT_BLOCK;
    a->used = 0;
}

/* take returns n bytes of b aligned to ARENA_ALIGN, or NULL when b lacks the room. The
** alignment is computed on the address, so it holds whatever malloc's own alignment is. */
static void *take(arena_block *b, size_t n) {
    size_t pad = (size_t)(-(uintptr_t)(b->data + b->off)) & (ARENA_ALIGN - 1);
    if (b->size - b->off < pad || b->size - b->off - pad < n) return NULL;
    void *p = b->data + b->off + pad;
    b->off += pad + n;
    return p;
}

void *arena_alloc(arena *a, size_t n) {
    void *p = a->head ? take(a->head, n) : NULL;
    while (p == NULL && a->spare != NULL) { /* a spare becomes the head; a head too small for n stays behind it */
        arena_block *b = a->spare;
        a->spare = b->next;
        b->next = a->head;
        a->head = b;
        p = take(b, n);
    }
    if (p == NULL) {
        /* Beyond PTRDIFF_MAX no object can exist; refuse before malloc sees the size. */
        if (n > PTRDIFF_MAX - sizeof(arena_block) - ARENA_ALIGN) return NULL;
        /* blocks grow geometrically from block_size up to ARENA_DEFAULT_BLOCK / 2, so that a small
        ** arena stays small and a busy one does not malloc per block size (blocks of 64 KiB and
        ** more make glibc consolidate its free lists on every free) */
        size_t want = a->block_size;
        if (a->head && a->head->size < ARENA_DEFAULT_BLOCK / 2 && a->head->size >= want) want = a->head->size * 2;
        size_t size = n + ARENA_ALIGN - 1 > want ? n + ARENA_ALIGN - 1 : want;
        arena_block *b = malloc(sizeof *b + size);
        if (b == NULL) return NULL;
        b->size = size;
        b->off = 0;
        if (a->head != NULL && size > want) {
            b->next = a->head->next; /* a dedicated block: keep filling the head */
            a->head->next = b;
        } else {
            b->next = a->head;
            a->head = b;
        }
        p = take(b, n);
    }
    a->used += n;
    return p;
}

char *arena_strdup(arena *a, const char *s) {
    size_t n = strlen(s) + 1;
    char *d = arena_alloc(a, n);
    if (d != NULL) memcpy(d, s, n);
    return d;
}

void arena_reset(arena *a) {
    a->used = 0;
    /* blocks of ordinary size (not one a large request had to itself), up to ARENA_KEEP bytes or
    ** one block of the arena's size */
    size_t ordinary = a->block_size > ARENA_DEFAULT_BLOCK / 2 ? a->block_size : ARENA_DEFAULT_BLOCK / 2;
    size_t cap = a->block_size > ARENA_KEEP ? a->block_size : ARENA_KEEP, kept = 0, held = 0;
    for (arena_block *b = a->spare; b; b = b->next) kept += b->size;
    for (arena_block *b = a->head; b; b = b->next) held += b->size <= ordinary ? b->size : 0;
    if (held > cap) cap = held < ARENA_KEEP_MAX ? held : ARENA_KEEP_MAX;
    while (a->head != NULL) {
        arena_block *b = a->head;
        a->head = b->next;
        if (b->size <= ordinary && kept + b->size <= cap) {
            b->off = 0;
            b->next = a->spare;
            a->spare = b;
            kept += b->size;
        } else {
            free(b);
        }
    }
}

void arena_adopt(arena *a, arena *from) {
    arena_block *tail = from->head;
    while (tail && tail->next) tail = tail->next;
    if (tail) { /* from's blocks go behind a's head, whose free space a goes on using */
        tail->next = a->head ? a->head->next : NULL;
        if (a->head) a->head->next = from->head;
        else a->head = from->head;
    }
    a->used += from->used;
    from->head = NULL;
    arena_free(from); /* its spares */
}

void arena_free(arena *a) {
    arena_reset(a);
    while (a->spare != NULL) {
        arena_block *next = a->spare->next;
        free(a->spare);
        a->spare = next;
    }
    a->used = 0;
}
