/*
** test_fsst.c -- FSST string compression (colstore/fsst.h): every string comes back byte for byte
** (text, empty strings, all 256 byte values, strings no symbol covers, a 1 MiB string, strings
** unlike the sample), text shrinks, the same sample always learns the same table, and a damaged
** table or compressed string is refused rather than read out of bounds.
*/
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../colstore/fsst.h"

static uint64_t rng = 88172645463325252u;
static uint64_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static const char *const words[] = {"furiously", "carefully", "final", "pending", "deposits", "requests",
                                    "ironic",    "quickly",   "slyly", "packages", "accounts", "the",
                                    "blithely",  "regular",   "express", "bold",   "special",  "even"};

/* text fills buf with up to cap - 1 bytes of words and returns the length. */
static uint32_t text(char *buf, uint32_t cap) {
    uint32_t len = 0, want = (uint32_t)(rnd() % cap);
    while (len < want) {
        const char *w = words[rnd() % (sizeof words / sizeof words[0])];
        int n = snprintf(buf + len, cap - len, "%s ", w);
        if (n < 0 || (uint32_t)n >= cap - len) break;
        len += (uint32_t)n;
    }
    return len;
}

typedef struct strings {
    uint8_t **s;
    uint32_t *len;
    size_t n;
} strings;

static strings make_text(size_t n) {
    strings st = {malloc(n * sizeof(uint8_t *)), malloc(n * sizeof(uint32_t)), n};
    for (size_t i = 0; i < n; i++) {
        char buf[128];
        st.len[i] = text(buf, sizeof buf);
        st.s[i] = malloc(st.len[i] + 1);
        memcpy(st.s[i], buf, st.len[i]);
    }
    return st;
}

static void strings_free(strings *st) {
    for (size_t i = 0; i < st->n; i++) free(st->s[i]);
    free(st->s);
    free(st->len);
}

/* roundtrip compresses s with t, loads t's stored form and decodes: the same bytes. Returns the
** compressed length. */
static size_t roundtrip(const fsst_table *t, const uint8_t *s, uint32_t len) {
    uint8_t stored[1 + 9 * FSST_SYMBOLS];
    uint8_t *end = fsst_table_write(t, stored);
    cr_assert_eq((size_t)(end - stored), fsst_table_bytes(t));
    fsst_decoder d;
    cr_assert(fsst_decoder_load(&d, stored, fsst_table_bytes(t)));
    uint8_t *c = malloc(2 * (size_t)len + 1), *out = malloc(FSST_DECODED_MAX(2 * (size_t)len + 1));
    size_t m = fsst_compress(t, s, len, c);
    cr_assert_leq(m, 2 * (size_t)len);
    int64_t got = fsst_decompress(&d, c, m, out);
    cr_assert_eq(got, (int64_t)len, "decoded %lld bytes of %u", (long long)got, len);
    cr_assert(len == 0 || memcmp(out, s, len) == 0);
    free(c);
    free(out);
    return m;
}

Test(fsst, text_roundtrips_and_shrinks) {
    strings st = make_text(5000);
    fsst_table *t = fsst_build((const uint8_t *const *)st.s, st.len, 600);
    cr_assert_not_null(t);
    size_t raw = 0, packed = 0;
    for (size_t i = 0; i < st.n; i++) {
        raw += st.len[i];
        packed += roundtrip(t, st.s[i], st.len[i]);
    }
    cr_assert_lt(packed * 2, raw, "text of %zu bytes compressed to %zu", raw, packed);
    fsst_table_free(t);
    strings_free(&st);
}

Test(fsst, edge_strings) {
    strings st = make_text(500);
    fsst_table *t = fsst_build((const uint8_t *const *)st.s, st.len, st.n);
    cr_assert_not_null(t);
    roundtrip(t, (const uint8_t *)"", 0);
    roundtrip(t, (const uint8_t *)"t", 1);
    roundtrip(t, (const uint8_t *)"th", 2);
    roundtrip(t, (const uint8_t *)"the", 3);
    uint8_t all[256];
    for (int i = 0; i < 256; i++) all[i] = (uint8_t)i;
    cr_assert_eq(roundtrip(t, all, 256) > 256, 1, "bytes no symbol covers are escaped");
    uint32_t big = 1u << 20;
    uint8_t *b = malloc(big);
    for (uint32_t i = 0; i < big; i++) b[i] = i % 3 ? (uint8_t)words[i % 7][i % 5] : (uint8_t)rnd();
    roundtrip(t, b, big);
    for (uint32_t i = 0; i < big; i++) b[i] = (uint8_t)rnd();
    roundtrip(t, b, big);
    for (uint32_t len = 0; len < 40; len++) roundtrip(t, b + 7, len); /* every tail length */
    free(b);
    fsst_table_free(t);
    strings_free(&st);
}

Test(fsst, empty_and_binary_samples) {
    fsst_table *t = fsst_build(NULL, NULL, 0);
    cr_assert_not_null(t);
    cr_assert_eq(fsst_table_bytes(t), 1, "no sample: no symbols");
    roundtrip(t, (const uint8_t *)"anything at all", 15);
    fsst_table_free(t);
    uint8_t *bin[300];
    uint32_t len[300];
    for (int i = 0; i < 300; i++) {
        len[i] = (uint32_t)(rnd() % 60);
        bin[i] = malloc(len[i] + 1);
        for (uint32_t k = 0; k < len[i]; k++) bin[i][k] = (uint8_t)rnd();
    }
    t = fsst_build((const uint8_t *const *)bin, len, 300);
    cr_assert_not_null(t);
    for (int i = 0; i < 300; i++) roundtrip(t, bin[i], len[i]);
    for (int i = 0; i < 300; i++) free(bin[i]);
    fsst_table_free(t);
}

Test(fsst, deterministic) {
    strings st = make_text(1000);
    fsst_table *a = fsst_build((const uint8_t *const *)st.s, st.len, st.n);
    fsst_table *b = fsst_build((const uint8_t *const *)st.s, st.len, st.n);
    uint8_t sa[1 + 9 * FSST_SYMBOLS], sb[1 + 9 * FSST_SYMBOLS];
    cr_assert_eq(fsst_table_bytes(a), fsst_table_bytes(b));
    fsst_table_write(a, sa);
    fsst_table_write(b, sb);
    cr_assert_eq(memcmp(sa, sb, fsst_table_bytes(a)), 0);
    fsst_table_free(a);
    fsst_table_free(b);
    strings_free(&st);
}

Test(fsst, damage_is_refused) {
    strings st = make_text(1000);
    fsst_table *t = fsst_build((const uint8_t *const *)st.s, st.len, st.n);
    size_t n = fsst_table_bytes(t);
    cr_assert_gt(n, 1 + 9 * 10, "text learns symbols");
    uint8_t stored[1 + 9 * FSST_SYMBOLS], bad[1 + 9 * FSST_SYMBOLS];
    fsst_table_write(t, stored);
    fsst_decoder d;
    cr_assert_not(fsst_decoder_load(&d, stored, n - 1), "short table");
    cr_assert_not(fsst_decoder_load(&d, stored, 0), "empty table");
    memcpy(bad, stored, n);
    bad[1] = 0; /* a symbol of length 0 */
    cr_assert_not(fsst_decoder_load(&d, bad, n));
    memcpy(bad, stored, n);
    bad[1] = 9; /* longer than 8 */
    cr_assert_not(fsst_decoder_load(&d, bad, n));
    uint32_t count = stored[0];
    memcpy(bad, stored, n);
    for (uint32_t c = 0; c < count; c++)
        if (bad[1 + c] < 8) { /* a byte past a symbol's length */
            bad[1 + count + 8 * c + 7] = 'x';
            break;
        }
    cr_assert_not(fsst_decoder_load(&d, bad, n));
    cr_assert(fsst_decoder_load(&d, stored, n));
    uint8_t out[FSST_DECODED_MAX(4)];
    uint8_t esc_end[] = {0, FSST_ESCAPE};
    cr_assert_eq(fsst_decompress(&d, esc_end, 2, out), -1, "an escape with no byte after it");
    if (count < FSST_SYMBOLS) {
        uint8_t unknown[] = {(uint8_t)count};
        cr_assert_eq(fsst_decompress(&d, unknown, 1, out), -1, "a code past the table");
    }
    fsst_table_free(t);
    strings_free(&st);
}
