/*
** test_arena.c -- arenas: 16-byte alignment, distinct memory, large requests, reset and free.
*/
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"

Test(arena, aligned_and_disjoint) {
    arena a;
    arena_init(&a, 256); /* small blocks: many block changes */
    unsigned char *p[500];
    size_t n[500], total = 0;
    for (int i = 0; i < 500; i++) {
        n[i] = (size_t)(i * 7919) % 100; /* includes 0 and sizes larger than what is left */
        p[i] = arena_alloc(&a, n[i]);
        cr_assert_not_null(p[i]);
        cr_assert_eq((uintptr_t)p[i] % 16, 0, "allocation %d of %zu bytes is misaligned", i, n[i]);
        memset(p[i], i & 0xff, n[i]);
        total += n[i];
    }
    for (int i = 0; i < 500; i++)
        for (size_t j = 0; j < n[i]; j++) cr_assert_eq(p[i][j], i & 0xff, "allocation %d overwritten", i);
    cr_assert_eq(a.used, total);
    arena_free(&a);
}

Test(arena, large_request_gets_its_own_block) {
    arena a;
    arena_init(&a, 1024);
    char *small = arena_alloc(&a, 10);
    char *big = arena_alloc(&a, 100000);
    char *small2 = arena_alloc(&a, 10);
    cr_assert(small && big && small2);
    memset(big, 0xab, 100000);
    cr_assert_eq((uintptr_t)big % 16, 0);
    /* the head block keeps filling after the large request */
    cr_assert(small2 > small && small2 < small + 1024, "the second small allocation left the first block");
    cr_assert_eq((unsigned char)big[99999], 0xab);
    arena_free(&a);
}

Test(arena, reset_keeps_blocks_for_reuse) {
    arena a;
    arena_init(&a, 0);
    cr_assert_eq(a.block_size, 64 * 1024);
    arena_block *first_block = (arena_alloc(&a, 100), a.head);
    for (int i = 0; i < 10; i++) cr_assert_not_null(arena_alloc(&a, 50000));
    cr_assert_neq(a.head, first_block);
    arena_reset(&a);
    cr_assert_eq(a.used, 0);
    cr_assert_null(a.head);
    arena_block *kept = a.spare;
    cr_assert_not_null(kept, "reset kept no block");
    cr_assert_not_null(arena_alloc(&a, 100));
    cr_assert_eq(a.head, kept, "the allocation after a reset did not reuse the kept block");
    cr_assert_eq(a.used, 100);
    /* an arena of small blocks keeps up to 64 KiB of them, and a block a large request had to
    ** itself goes */
    arena b;
    arena_init(&b, 4096);
    for (int i = 0; i < 40; i++) cr_assert_not_null(arena_alloc(&b, 1000));
    cr_assert_not_null(arena_alloc(&b, 1 << 20));
    arena_reset(&b);
    cr_assert_not_null(b.spare);
    for (int i = 0; i < 40; i++) cr_assert_not_null(arena_alloc(&b, 1000));
    arena_free(&b);
    cr_assert_null(b.head);
    cr_assert_null(b.spare);
    arena_reset(&a);
    arena_reset(&a);
    arena_free(&a);
    cr_assert_null(a.head);
    arena_init(&a, 64);
    cr_assert_not_null(arena_alloc(&a, 1));
    arena_free(&a);
}

Test(arena, strdup_copies) {
    arena a;
    arena_init(&a, 0);
    char src[] = "hello, arena";
    char *d = arena_strdup(&a, src);
    cr_assert_str_eq(d, "hello, arena");
    src[0] = 'J';
    cr_assert_str_eq(d, "hello, arena");
    cr_assert_str_eq(arena_strdup(&a, ""), "");
    arena_free(&a);
}

Test(arena, impossible_size_returns_null_and_changes_nothing) {
    arena a;
    arena_init(&a, 0);
    char *p = arena_alloc(&a, 8);
    cr_assert_not_null(p);
    cr_assert_null(arena_alloc(&a, SIZE_MAX));
    cr_assert_null(arena_alloc(&a, SIZE_MAX / 2 + 1));
    cr_assert_eq(a.used, 8);
    char *q = arena_alloc(&a, 8);
    cr_assert_eq(q, p + 16, "the failed requests disturbed the block");
    arena_free(&a);
}
