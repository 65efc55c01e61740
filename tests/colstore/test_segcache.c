/*
** test_segcache.c -- the cache of opened segments (colstore/segcache.h): an entry put is found
** by its key with the same values, the budget bounds the bytes kept, the least recently used
** entry nobody holds goes first, a held entry is never evicted, and a smaller budget drops
** entries at once; a cached reader keeps the blocks it decompressed, charged to the budget.
*/
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "../../colstore/segcache.h"
#include "value.h"

/* make_segment encodes n BIGINT values base, base + 1, ... into buf and opens rd over it. */
static void make_segment(btree_buf *buf, segment_reader *rd, int64_t base, uint32_t n) {
    sql_type t = sql_type_make(TYPE_BIGINT);
    segment_builder b;
    cr_assert_eq(segment_builder_init(&b, t, NULL), STRATA_OK);
    vector v;
    cr_assert_eq(vec_init(&v, t, NULL), STRATA_OK);
    for (uint32_t at = 0; at < n; at += VECTOR_SIZE) {
        uint32_t k = n - at < VECTOR_SIZE ? n - at : VECTOR_SIZE;
        vec_reset(&v);
        for (uint32_t i = 0; i < k; i++) VEC_DATA(&v, int64_t)[i] = base + at + i * 7919 % 1000; /* not constant */
        cr_assert_eq(segment_builder_append(&b, &v, NULL, k, NULL), STRATA_OK);
    }
    segment_options opt = {.zstd_level = 0, .force_encoding = SEG_PLAIN};
    cr_assert_eq(segment_builder_finish(&b, &opt, buf, NULL), STRATA_OK);
    segment_builder_free(&b);
    vec_free(&v);
    cr_assert_eq(segment_open(rd, buf->data, buf->len, t, NULL), STRATA_OK);
}

static segcache_entry *put(segcache *c, uint64_t id, uint32_t col, int64_t base) {
    btree_buf buf = {0};
    segment_reader rd;
    make_segment(&buf, &rd, base, 5000);
    segcache_entry *e = segcache_put(c, id, col, &buf, &rd);
    if (e == NULL) {
        segment_reader_close(&rd);
        btree_buf_free(&buf);
    } else {
        cr_assert_null(buf.data, "the entry took the bytes");
    }
    return e;
}

static int64_t first_value(segcache_entry *e) {
    vector v;
    cr_assert_eq(vec_init(&v, sql_type_make(TYPE_BIGINT), NULL), STRATA_OK);
    cr_assert_eq(segment_get(segcache_reader(e), 0, &v, 0, NULL), STRATA_OK);
    int64_t x = VEC_DATA(&v, int64_t)[0];
    vec_free(&v);
    return x;
}

Test(segcache, an_entry_is_found_by_its_key_with_its_values) {
    segcache *c = segcache_create(1 << 20);
    segcache_entry *e = put(c, 7, 3, 1000);
    cr_assert_not_null(e);
    segcache_release(c, e);
    cr_assert_null(segcache_get(c, 7, 4), "another column");
    cr_assert_null(segcache_get(c, 8, 3), "another row group");
    e = segcache_get(c, 7, 3);
    cr_assert_not_null(e);
    cr_assert_eq(first_value(e), 1000);
    segcache_release(c, e);
    segcache_stats st;
    segcache_get_stats(c, &st);
    cr_assert_eq(st.hits, 1);
    cr_assert_eq(st.misses, 2);
    cr_assert_eq(st.entries, 1);
    segcache_destroy(c);
}

Test(segcache, the_budget_evicts_the_least_recently_used_unheld_entry) {
    segcache *c = segcache_create(1 << 20);
    segcache_entry *a = put(c, 1, 0, 100);
    size_t one;
    segcache_stats st;
    segcache_get_stats(c, &st);
    one = st.bytes;
    segcache_release(c, a);
    segcache_set_budget(c, 2 * one + one / 2); /* room for two entries */
    segcache_release(c, put(c, 2, 0, 200));
    segcache_entry *e = segcache_get(c, 1, 0); /* 1 is now more recent than 2 */
    segcache_release(c, e);
    segcache_release(c, put(c, 3, 0, 300));
    cr_assert_null(segcache_get(c, 2, 0), "the least recently used entry went");
    cr_assert_not_null(e = segcache_get(c, 1, 0));
    segcache_release(c, e);
    cr_assert_not_null(e = segcache_get(c, 3, 0));
    segcache_release(c, e);
    segcache_get_stats(c, &st);
    cr_assert_leq(st.bytes, 2 * one + one / 2);
    cr_assert_eq(st.evictions, 1);
    segcache_destroy(c);
}

Test(segcache, held_entries_stay_and_a_full_cache_refuses_new_ones) {
    segcache *c = segcache_create(1 << 20);
    segcache_entry *a = put(c, 1, 0, 100);
    segcache_stats st;
    segcache_get_stats(c, &st);
    segcache_set_budget(c, st.bytes + st.bytes / 2); /* one entry fits */
    cr_assert_null(put(c, 2, 0, 200), "no room while the first is held");
    cr_assert_eq(first_value(a), 100, "the held entry is intact");
    segcache_release(c, a);
    segcache_entry *b = put(c, 2, 0, 200);
    cr_assert_not_null(b, "the released entry made room");
    cr_assert_null(segcache_get(c, 1, 0));
    segcache_set_budget(c, 0);
    cr_assert_eq(first_value(b), 200, "a held entry survives a budget of zero");
    segcache_release(c, b);
    segcache_get_stats(c, &st);
    cr_assert_eq(st.entries, 0, "released beyond the budget: dropped");
    segcache_destroy(c);
}

Test(segcache, an_entry_has_one_holder_at_a_time) {
    /* a reader's scratch (a decompressed block, unpacking space) belongs to its user: a second
    ** user, such as another thread scanning the same row group, must get its own reader */
    segcache *c = segcache_create(1 << 20);
    segcache_entry *a = put(c, 5, 1, 500);
    cr_assert_not_null(a);
    cr_assert_null(segcache_get(c, 5, 1), "held by the one who put it");
    cr_assert_null(put(c, 5, 1, 500), "a second copy is not cached: its maker keeps it");
    segcache_release(c, a);
    segcache_entry *b = segcache_get(c, 5, 1);
    cr_assert_not_null(b, "free again once released");
    cr_assert_null(segcache_get(c, 5, 1));
    cr_assert_eq(first_value(b), 500);
    segcache_release(c, b);
    segcache_destroy(c);
}

/* make_text_segment encodes n strings "row <i> of a compressible text" into a zstd-compressed
** plain segment. */
static void make_text_segment(btree_buf *buf, segment_reader *rd, uint32_t n) {
    sql_type t = sql_type_varchar(0);
    segment_builder b;
    cr_assert_eq(segment_builder_init(&b, t, NULL), STRATA_OK);
    vector v;
    cr_assert_eq(vec_init(&v, t, NULL), STRATA_OK);
    char s[64];
    for (uint32_t at = 0; at < n; at += VECTOR_SIZE) {
        uint32_t k = n - at < VECTOR_SIZE ? n - at : VECTOR_SIZE;
        vec_reset(&v);
        for (uint32_t i = 0; i < k; i++) {
            int len = snprintf(s, sizeof s, "row %u of a compressible text", at + i);
            cr_assert_eq(vec_set_str(&v, i, s, (uint32_t)len, NULL), STRATA_OK);
        }
        cr_assert_eq(segment_builder_append(&b, &v, NULL, k, NULL), STRATA_OK);
    }
    segment_options opt = {.zstd_level = 3, .force_encoding = SEG_PLAIN};
    cr_assert_eq(segment_builder_finish(&b, &opt, buf, NULL), STRATA_OK);
    segment_builder_free(&b);
    vec_free(&v);
    cr_assert_eq(segment_open(rd, buf->data, buf->len, t, NULL), STRATA_OK);
    seg_info info;
    segment_describe(rd, &info);
    cr_assert_gt(info.zstd_blocks, 0, "the blocks are compressed");
}

static void expect_row(segcache_entry *e, uint32_t row) {
    vector v;
    cr_assert_eq(vec_init(&v, sql_type_varchar(0), NULL), STRATA_OK);
    cr_assert_eq(segment_get(segcache_reader(e), row, &v, 0, NULL), STRATA_OK);
    char want[64];
    int len = snprintf(want, sizeof want, "row %u of a compressible text", row);
    const sstr *got = &VEC_DATA(&v, sstr)[0];
    cr_assert_eq(got->len, (uint32_t)len);
    cr_assert_eq(memcmp(sstr_data(got), want, (size_t)len), 0, "row %u", row);
    vec_free(&v);
}

Test(segcache, decompressed_blocks_are_kept_and_charged_to_the_budget) {
    segcache *c = segcache_create(16 << 20);
    btree_buf buf = {0};
    segment_reader rd;
    make_text_segment(&buf, &rd, 3 * VECTOR_SIZE);
    segcache_entry *e = segcache_put(c, 9, 0, &buf, &rd);
    cr_assert_not_null(e);
    segcache_stats before, after;
    segcache_get_stats(c, &before);
    expect_row(e, 5);
    expect_row(e, 2 * VECTOR_SIZE + 7); /* another block: both stay decompressed */
    expect_row(e, 6);
    size_t kept = segment_kept_bytes(segcache_reader(e));
    cr_assert_gt(kept, 2 * VECTOR_SIZE * 20, "two blocks kept: %zu bytes", kept);
    segcache_release(c, e);
    segcache_get_stats(c, &after);
    cr_assert_eq(after.bytes, before.bytes + kept, "the kept blocks are charged on release");
    /* a budget below what the entry grew to drops it once no one holds it */
    segcache_set_budget(c, before.bytes + kept / 2);
    segcache_get_stats(c, &after);
    cr_assert_eq(after.entries, 0);
    cr_assert_null(segcache_get(c, 9, 0));
    segcache_destroy(c);
}
