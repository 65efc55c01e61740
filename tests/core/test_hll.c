/*
** test_hll.c -- HyperLogLog estimates against exact distinct counts: within the sketch's error
** bound (3 standard errors of 1.6 %) from one value to millions, duplicates not counted, and a
** merge equal to the sketch of both streams.
*/
#include <criterion/criterion.h>
#include <math.h>

#include "hll.h"

/* sequential integers are the worst case for a weak hash: hll_add must mix them itself */
static void add_range(hll *h, uint64_t from, uint64_t to, int repeats) {
    for (int r = 0; r < repeats; r++)
        for (uint64_t i = from; i < to; i++) hll_add(h, i);
}

Test(hll, empty_is_zero) {
    static hll h;
    hll_init(&h);
    cr_assert_eq(hll_estimate(&h), 0.0);
}

Test(hll, small_counts_near_exact) {
    static hll h;
    for (uint64_t n = 1; n <= 200; n++) {
        hll_init(&h);
        add_range(&h, 0, n, 3);
        double e = hll_estimate(&h);
        cr_assert(fabs(e - (double)n) <= 1.0 + 0.02 * (double)n, "n=%llu estimate %.2f", (unsigned long long)n, e);
    }
}

Test(hll, large_counts_within_bound) {
    static hll h;
    static const uint64_t sizes[] = {1000, 5000, 20000, 100000, 1000000, 5000000};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        hll_init(&h);
        add_range(&h, 1000000007ull * k, 1000000007ull * k + sizes[k], 1);
        double e = hll_estimate(&h), err = fabs(e - (double)sizes[k]) / (double)sizes[k];
        cr_assert(err < 3 * 1.04 / sqrt(HLL_REGISTERS), "n=%llu estimate %.0f (%.2f %%)",
                  (unsigned long long)sizes[k], e, 100 * err);
    }
}

Test(hll, merge_is_union) {
    static hll a, b, both;
    hll_init(&a);
    hll_init(&b);
    hll_init(&both);
    add_range(&a, 0, 60000, 1);
    add_range(&b, 40000, 100000, 2); /* 20,000 in common */
    add_range(&both, 0, 100000, 1);
    hll_merge(&a, &b);
    cr_assert_eq(hll_estimate(&a), hll_estimate(&both));
    cr_assert(fabs(hll_estimate(&a) - 100000) < 5000, "%.0f", hll_estimate(&a));
}
