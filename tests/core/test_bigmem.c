/*
** test_bigmem.c -- large zeroed arrays: zero when made, contents kept and new bytes zero as a
** block grows on the heap, from the heap to its own mapping, and from mapping to mapping.
*/
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "bigmem.h"

/* all_zero says whether p[from..to) are all zero bytes. */
static bool all_zero(const unsigned char *p, size_t from, size_t to) {
    for (size_t i = from; i < to; i++)
        if (p[i]) return false;
    return true;
}

static void fill(unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(i * 31 + 7);
}

static bool filled(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(i * 31 + 7)) return false;
    return true;
}

Test(bigmem, made_zero) {
    size_t sizes[] = {1, 4096, BIGMEM_MIN - 1, BIGMEM_MIN, 3 * BIGMEM_MIN + 5};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        unsigned char *p = bigmem_alloc(sizes[i]);
        cr_assert_not_null(p);
        cr_assert(all_zero(p, 0, sizes[i]), "block of %zu bytes not zero", sizes[i]);
        bigmem_free(p, sizes[i]);
    }
}

Test(bigmem, grows_keeping_contents) {
    /* heap -> heap -> mapping -> larger mapping, each step filled before it grows */
    size_t steps[] = {1000, 100000, BIGMEM_MIN + 4096, 8 * BIGMEM_MIN};
    unsigned char *p = NULL;
    size_t old = 0;
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
        p = bigmem_grow(p, old, steps[i]);
        cr_assert_not_null(p);
        cr_assert(filled(p, old), "step %zu lost the first %zu bytes", i, old);
        cr_assert(all_zero(p, old, steps[i]), "step %zu: the new bytes are not zero", i);
        fill(p, steps[i]);
        old = steps[i];
    }
    bigmem_free(p, old);
    bigmem_free(NULL, 0);
}
