/*
** test_hash.c -- vector-at-a-time hashing and row equality (vector/hash.c): equal values hash
** equal across integer widths, vector kinds, selections and string storage; NULL's fixed hash;
** multi-column combination; distribution over 100k distinct strings and integers (no 64-bit
** collision, balanced buckets in the low and high bits); the string hash reads every byte of
** every length; DOUBLE and INTERVAL equality rules; vec_match with NULLs, selections, candidate
** lists and mixed widths; full vectors of every type the hash kernels serve (flat, selected,
** dictionary, both) hash and combine as value_hash and hash_combine do, row by row.
*/
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/vec_test.h"
#include "value.h"

/* set_int stores x as row r of an integer-typed vector of any width. */
static void set_int(vector *v, uint32_t r, int64_t x) {
    switch (v->phys) {
    case PHYS_BOOL: VEC_DATA(v, uint8_t)[r] = (uint8_t)x; break;
    case PHYS_I16: VEC_DATA(v, int16_t)[r] = (int16_t)x; break;
    case PHYS_I32: VEC_DATA(v, int32_t)[r] = (int32_t)x; break;
    default: VEC_DATA(v, int64_t)[r] = x; break;
    }
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- consistency --------------------------------------------------------------------------- */

Test(hash, integers_hash_alike_across_widths) {
    static const int64_t values[] = {0, 1, -1, 2, 127, -128, 255, 32767, -32768};
    static const sql_type_id ids[] = {TYPE_SMALLINT, TYPE_INTEGER,   TYPE_BIGINT,
                                      TYPE_DATE,     TYPE_TIMESTAMP, TYPE_DECIMAL};
    enum { NV = sizeof values / sizeof values[0], NT = sizeof ids / sizeof ids[0] };
    uint64_t h[NT][NV];
    for (int t = 0; t < NT; t++) {
        vector v;
        init_vec(&v, ids[t]);
        for (uint32_t r = 0; r < NV; r++)
            set_int(&v, r, values[r]);
        vec_hash(&v, NULL, NV, h[t]);
        vec_free(&v);
    }
    for (int i = 0; i < NV; i++) {
        cr_assert_eq(h[0][i], vec_hash_i64(values[i]));
        for (int t = 1; t < NT; t++)
            cr_assert_eq(h[t][i], h[0][i], "value %lld, type %d", (long long)values[i], ids[t]);
        for (int j = 0; j < i; j++)
            cr_assert_neq(h[0][i], h[0][j]);
    }
    /* wide values: INTEGER and BIGINT agree on the int32 range's ends */
    vector a, b;
    init_vec(&a, TYPE_INTEGER);
    init_vec(&b, TYPE_BIGINT);
    set_int(&a, 0, INT32_MIN);
    set_int(&a, 1, INT32_MAX);
    set_int(&b, 0, INT32_MIN);
    set_int(&b, 1, INT32_MAX);
    uint64_t ha[2], hb[2];
    vec_hash(&a, NULL, 2, ha);
    vec_hash(&b, NULL, 2, hb);
    cr_assert(ha[0] == hb[0] && ha[1] == hb[1]);
    /* BOOLEAN hashes as 0 and 1 */
    vector bo;
    init_vec(&bo, TYPE_BOOLEAN);
    set_int(&bo, 0, 1);
    vec_hash(&bo, NULL, 1, ha);
    cr_assert_eq(ha[0], vec_hash_i64(1));
    vec_free(&a);
    vec_free(&b);
    vec_free(&bo);
}

Test(hash, null_hashes_to_a_fixed_value) {
    for (int id = TYPE_NULL; id < TYPE_COUNT; id++) {
        vector v;
        init_vec(&v, (sql_type_id)id);
        memset(v.data, 0, 4 * (size_t)v.width); /* rows 0 and 2: zeros (a fresh vector's rows are unset) */
        if (id != TYPE_NULL) {
            vec_set_null(&v, 1, 1);
            vec_set_null(&v, 3, 1);
        }
        uint64_t h[4];
        vec_hash(&v, NULL, 4, h);
        cr_assert_eq(h[1], HASH_NULL, "type %d", id);
        cr_assert_eq(h[3], HASH_NULL, "type %d", id);
        if (id == TYPE_NULL)
            cr_assert(h[0] == HASH_NULL && h[2] == HASH_NULL, "the NULL type is all NULL");
        else
            cr_assert_neq(h[0], HASH_NULL, "type %d", id);
        vec_free(&v);
    }
}

/* The same values hashed from a flat vector, a dictionary, a constant, through a selection, and
** with strings stored inline, in the vector's heap or outside, give the same hashes. */
Test(hash, independent_of_kind_selection_and_storage) {
    vector flat, dict, cst, ext;
    init_vec(&flat, TYPE_VARCHAR);
    init_vec(&dict, TYPE_VARCHAR);
    init_vec(&cst, TYPE_VARCHAR);
    init_vec(&ext, TYPE_VARCHAR);
    static char words[40][64];
    for (uint32_t r = 0; r < 40; r++) {
        int len = snprintf(words[r], sizeof words[r], r % 2 ? "w%u" : "a rather longer string number %u", r);
        cr_assert_eq(vec_set_str(&flat, r, words[r], (size_t)len, NULL), STRATA_OK);
        VEC_DATA(&ext, sstr)[r] = sstr_make(words[r], (uint32_t)len); /* points at words[r] */
    }
    vec_set_null(&flat, 5, 1);
    vec_set_null(&ext, 5, 1);
    uint64_t hf[40], he[40], hd[40], hs[40], hc[40];
    vec_hash(&flat, NULL, 40, hf);
    vec_hash(&ext, NULL, 40, he);
    for (uint32_t r = 0; r < 40; r++) {
        cr_assert_eq(hf[r], he[r], "row %u", r);
        if (r != 5) cr_assert_eq(hf[r], vec_hash_bytes(words[r], strlen(words[r]), 0), "row %u", r);
    }
    sel_t sel[40];
    for (uint32_t i = 0; i < 40; i++)
        sel[i] = (sel_t)((i * 7) % 40);
    vec_slice(&dict, &flat, sel, 40);
    vec_hash(&dict, NULL, 40, hd);
    vec_hash(&flat, sel, 40, hs);
    for (uint32_t i = 0; i < 40; i++) {
        cr_assert_eq(hd[i], hf[sel[i]], "dictionary row %u", i);
        cr_assert_eq(hs[i], hf[sel[i]], "selected row %u", i);
    }
    /* a dictionary read through a selection: both compose */
    sel_t outer[] = {3, 3, 39};
    vec_hash(&dict, outer, 3, hd);
    cr_assert(hd[0] == hf[sel[3]] && hd[1] == hf[sel[3]] && hd[2] == hf[sel[39]]);
    cr_assert_eq(vec_copy(&cst, 0, &flat, sel_identity() + 2, 1, NULL), STRATA_OK); /* a long string */
    vec_make_constant(&cst);
    vec_hash(&cst, NULL, 40, hc);
    for (uint32_t i = 0; i < 40; i++)
        cr_assert_eq(hc[i], hf[2]);
    vec_free(&flat);
    vec_free(&dict);
    vec_free(&cst);
    vec_free(&ext);
}

Test(hash, combine_for_multi_column_keys) {
    vector a, b;
    init_vec(&a, TYPE_INTEGER);
    init_vec(&b, TYPE_VARCHAR);
    /* rows: (1,"x") (2,"y") (1,"x") (2,"x") (NULL,"x") (1,NULL) */
    static const int32_t ints[] = {1, 2, 1, 2, 0, 1};
    static const char *strs[] = {"x", "y", "x", "x", "x", NULL};
    for (uint32_t r = 0; r < 6; r++) {
        VEC_DATA(&a, int32_t)[r] = ints[r];
        if (strs[r])
            cr_assert_eq(vec_set_str(&b, r, strs[r], 1, NULL), STRATA_OK);
        else
            vec_set_null(&b, r, 1);
    }
    vec_set_null(&a, 4, 1);
    uint64_t h[6], hsingle[6];
    vec_hash(&a, NULL, 6, h);
    memcpy(hsingle, h, sizeof h);
    vec_hash_combine(&b, NULL, 6, h);
    cr_assert_eq(h[0], h[2], "equal keys, equal hashes");
    cr_assert_neq(h[0], h[1]);
    cr_assert_neq(h[0], h[3], "the second column counts");
    cr_assert_neq(h[0], hsingle[0]);
    cr_assert_neq(h[4], h[0]);
    cr_assert_neq(h[5], h[0]);
    cr_assert_neq(h[4], h[5], "NULL in different columns");
    /* column order matters: (1, 2) and (2, 1) */
    vector c, d;
    init_vec(&c, TYPE_BIGINT);
    init_vec(&d, TYPE_BIGINT);
    set_int(&c, 0, 1);
    set_int(&d, 0, 2);
    uint64_t x, y;
    vec_hash(&c, NULL, 1, &x);
    vec_hash_combine(&d, NULL, 1, &x);
    vec_hash(&d, NULL, 1, &y);
    vec_hash_combine(&c, NULL, 1, &y);
    cr_assert_neq(x, y);
    /* combining from a constant and through a selection */
    VEC_DATA(&c, int64_t)[0] = 9;
    vec_make_constant(&c);
    uint64_t hc[3] = {1, 2, 3}, hr[3] = {1, 2, 3};
    sel_t pick[] = {0, 0, 0};
    vec_hash_combine(&c, NULL, 3, hc);
    vec_hash_combine(&d, pick, 3, hr);
    cr_assert_neq(hc[0], hc[1]);
    cr_assert_neq(hr[0], hr[2]);
    vec_free(&a);
    vec_free(&b);
    vec_free(&c);
    vec_free(&d);
}

/* ---- distribution -------------------------------------------------------------------------- */

/* check_distribution asserts that n hashes of distinct keys have no 64-bit collision, few
** collisions of their low 32 bits (expected n^2 / 2^33, about 1.2 for 100k) and balanced buckets
** in the low bits (slot index) and in the high bits (hash tags). */
static void check_distribution(uint64_t *h, size_t n, const char *what) {
    enum { BUCKETS = 1024 };
    static uint32_t low[BUCKETS], high[BUCKETS];
    memset(low, 0, sizeof low);
    memset(high, 0, sizeof high);
    for (size_t i = 0; i < n; i++) {
        low[h[i] % BUCKETS]++;
        high[h[i] >> 54]++;
    }
    double mean = (double)n / BUCKETS;
    for (int b = 0; b < BUCKETS; b++) {
        cr_assert(low[b] < 1.5 * mean && low[b] > 0.5 * mean, "%s: low bucket %d holds %u (mean %.0f)", what,
                  b, low[b], mean);
        cr_assert(high[b] < 1.5 * mean && high[b] > 0.5 * mean, "%s: high bucket %d holds %u", what, b,
                  high[b]);
    }
    uint64_t *lo32 = malloc(n * sizeof *lo32);
    for (size_t i = 0; i < n; i++)
        lo32[i] = (uint32_t)h[i];
    qsort(h, n, sizeof *h, cmp_u64);
    qsort(lo32, n, sizeof *lo32, cmp_u64);
    size_t coll64 = 0, coll32 = 0;
    for (size_t i = 1; i < n; i++) {
        coll64 += h[i] == h[i - 1];
        coll32 += lo32[i] == lo32[i - 1];
    }
    free(lo32);
    cr_assert_eq(coll64, 0, "%s: %zu 64-bit collisions", what, coll64);
    cr_assert_leq(coll32, 12, "%s: %zu collisions of the low 32 bits", what, coll32);
}

enum { NKEYS = 100000 };

/* hash_strings hashes NKEYS strings made by make(i, buf) through string vectors, a chunk at a time. */
static void hash_strings(uint64_t *h, int (*make)(uint32_t, char *)) {
    vector v;
    init_vec(&v, TYPE_VARCHAR);
    char buf[128];
    for (uint32_t base = 0; base < NKEYS; base += VECTOR_SIZE) {
        uint32_t n = NKEYS - base < VECTOR_SIZE ? NKEYS - base : VECTOR_SIZE;
        vec_reset(&v);
        for (uint32_t r = 0; r < n; r++) {
            int len = make(base + r, buf);
            cr_assert_eq(vec_set_str(&v, r, buf, (size_t)len, NULL), STRATA_OK);
        }
        vec_hash(&v, NULL, n, h + base);
    }
    vec_free(&v);
}

/* Random bytes of random length 0..80; made distinct by the index in the first four bytes. */
static int make_random(uint32_t i, char *buf) {
    int len = 4 + rand() % 77;
    memcpy(buf, &i, 4);
    for (int j = 4; j < len; j++)
        buf[j] = (char)rand();
    return len;
}
/* Keys as applications write them: a fixed prefix and a counter. */
static int make_sequential(uint32_t i, char *buf) { return sprintf(buf, "customer#%09u", i); }
/* Short keys: 1..3 bytes differ (all 3-byte strings over 47 letters would be 103,823). */
static int make_short(uint32_t i, char *buf) {
    buf[0] = (char)('0' + i % 47);
    buf[1] = (char)('0' + (i / 47) % 47);
    buf[2] = (char)('0' + i / (47 * 47));
    return 3;
}

Test(hash, string_distribution) {
    uint64_t *h = malloc(NKEYS * sizeof *h);
    srand(12345);
    hash_strings(h, make_random);
    check_distribution(h, NKEYS, "random strings");
    hash_strings(h, make_sequential);
    check_distribution(h, NKEYS, "sequential keys");
    hash_strings(h, make_short);
    check_distribution(h, NKEYS, "3-byte keys");
    free(h);
}

Test(hash, integer_distribution) {
    uint64_t *h = malloc(NKEYS * sizeof *h);
    vector v;
    init_vec(&v, TYPE_BIGINT);
    /* sequential integers, and multiples of 1024 (whose low bits are all equal) */
    for (int64_t step = 1; step <= 1024; step *= 1024) {
        for (uint32_t base = 0; base < NKEYS; base += VECTOR_SIZE) {
            uint32_t n = NKEYS - base < VECTOR_SIZE ? NKEYS - base : VECTOR_SIZE;
            for (uint32_t r = 0; r < n; r++)
                VEC_DATA(&v, int64_t)[r] = (int64_t)(base + r) * step;
            vec_hash(&v, NULL, n, h + base);
        }
        check_distribution(h, NKEYS, step == 1 ? "sequential integers" : "multiples of 1024");
    }
    vec_free(&v);
    free(h);
}

/* Every byte of a string of every length 0..200 reaches the hash, and the length too. */
Test(hash, string_hash_reads_every_byte) {
    unsigned char buf[200];
    for (int i = 0; i < 200; i++)
        buf[i] = (unsigned char)(i * 13);
    uint64_t seen[201];
    for (size_t len = 0; len <= 200; len++) {
        uint64_t h = vec_hash_bytes(buf, len, 0);
        for (size_t j = 0; j < len; j++) {
            buf[j] ^= 0x01;
            cr_assert_neq(vec_hash_bytes(buf, len, 0), h, "length %zu: byte %zu ignored", len, j);
            buf[j] ^= 0x01;
        }
        cr_assert_eq(vec_hash_bytes(buf, len, 0), h, "deterministic");
        cr_assert_neq(vec_hash_bytes(buf, len, 1), h, "the seed counts");
        seen[len] = h;
        for (size_t k = 0; k < len; k++)
            cr_assert_neq(seen[k], h, "prefixes of length %zu and %zu", k, len);
    }
    /* zero bytes of different lengths differ */
    unsigned char zeros[64] = {0};
    for (size_t len = 1; len < 64; len++)
        cr_assert_neq(vec_hash_bytes(zeros, len, 0), vec_hash_bytes(zeros, len - 1, 0), "length %zu", len);
}

/* ---- DOUBLE and INTERVAL ------------------------------------------------------------------- */

Test(hash, double_zero_and_nan) {
    vector v;
    init_vec(&v, TYPE_DOUBLE);
    double *d = VEC_DATA(&v, double);
    d[0] = 0.0;
    d[1] = -0.0;
    d[2] = NAN;
    d[3] = -NAN;
    uint64_t bits = 0x7ff0000000000123ull; /* a NaN with another payload */
    memcpy(&d[4], &bits, 8);
    d[5] = 1.5;
    d[6] = INFINITY;
    uint64_t h[7];
    vec_hash(&v, NULL, 7, h);
    cr_assert_eq(h[0], h[1], "-0.0 hashes as 0.0");
    cr_assert(h[2] == h[3] && h[3] == h[4], "every NaN hashes alike");
    cr_assert(h[0] != h[2] && h[5] != h[0] && h[6] != h[2]);
    sel_t as[] = {0, 2, 2, 5, 0}, bs[] = {1, 3, 4, 5, 5}, match[5];
    uint32_t m = vec_match(&v, as, &v, bs, NULL, 5, 0, match, NULL, NULL);
    cr_assert_eq(m, 4);
    cr_assert(match[0] == 0 && match[1] == 1 && match[2] == 2 && match[3] == 3);
    vec_free(&v);
}

Test(hash, interval_compares_by_length) {
    vector v;
    init_vec(&v, TYPE_INTERVAL);
    sql_interval *iv = VEC_DATA(&v, sql_interval);
    iv[0] = (sql_interval){.months = 1};
    iv[1] = (sql_interval){.days = 30};
    iv[2] = (sql_interval){.micros = 30LL * 86400000000LL};
    iv[3] = (sql_interval){.days = 29, .micros = 86400000000LL};
    iv[4] = (sql_interval){.days = 31};
    iv[5] = (sql_interval){.months = INT32_MAX, .days = INT32_MAX, .micros = INT64_MAX};
    iv[6] = (sql_interval){.months = INT32_MIN, .days = INT32_MIN, .micros = INT64_MIN};
    uint64_t h[7];
    vec_hash(&v, NULL, 7, h);
    cr_assert(h[0] == h[1] && h[1] == h[2] && h[2] == h[3], "1 month = 30 days = 720 hours");
    cr_assert(h[4] != h[0] && h[5] != h[6] && h[5] != h[0]);
    sel_t as[] = {0, 0, 0, 5}, bs[] = {3, 4, 2, 5}, match[4], nomatch[4];
    uint32_t nm;
    uint32_t m = vec_match(&v, as, &v, bs, NULL, 4, 0, match, nomatch, &nm);
    cr_assert_eq(m, 3);
    cr_assert(match[0] == 0 && match[1] == 2 && match[2] == 3);
    cr_assert(nm == 1 && nomatch[0] == 1);
    vec_free(&v);
}

/* ---- vec_match ----------------------------------------------------------------------------- */

Test(match, integers_with_nulls) {
    vector a, b;
    init_vec(&a, TYPE_BIGINT);
    init_vec(&b, TYPE_BIGINT);
    /* pairs: equal, different, NULL vs value, value vs NULL, NULL vs NULL, equal */
    static const int64_t av[] = {5, 6, 0, 7, 0, -9}, bv[] = {5, 7, 0, 7, 0, -9};
    for (uint32_t r = 0; r < 6; r++) {
        set_int(&a, r, av[r]);
        set_int(&b, r, bv[r]);
    }
    vec_set_null(&a, 2, 1);
    vec_set_null(&b, 3, 1);
    vec_set_null(&a, 4, 1);
    vec_set_null(&b, 4, 1);
    sel_t match[6], nomatch[6];
    uint32_t nm;
    uint32_t m = vec_match(&a, NULL, &b, NULL, NULL, 6, 0, match, nomatch, &nm);
    cr_assert_eq(m, 2, "join semantics: NULL never matches");
    cr_assert(match[0] == 0 && match[1] == 5);
    cr_assert(nm == 4 && nomatch[0] == 1 && nomatch[1] == 2 && nomatch[2] == 3 && nomatch[3] == 4);
    m = vec_match(&a, NULL, &b, NULL, NULL, 6, 1, match, NULL, NULL);
    cr_assert_eq(m, 3, "grouping semantics: NULL matches NULL");
    cr_assert(match[0] == 0 && match[1] == 4 && match[2] == 5);
    vec_free(&a);
    vec_free(&b);
}

Test(match, across_integer_widths) {
    vector a, b;
    init_vec(&a, TYPE_SMALLINT);
    init_vec(&b, TYPE_BIGINT);
    static const int64_t av[] = {-1, 300, 32767, 0}, bv[] = {-1, 300, 32767 + 65536, 65536};
    for (uint32_t r = 0; r < 4; r++) {
        set_int(&a, r, av[r]);
        set_int(&b, r, bv[r]);
    }
    sel_t match[4];
    uint32_t m = vec_match(&a, NULL, &b, NULL, NULL, 4, 0, match, NULL, NULL);
    cr_assert_eq(m, 2, "values, not truncated bits, are compared");
    cr_assert(match[0] == 0 && match[1] == 1);
    /* and the hashes agree where the values do */
    uint64_t ha[4], hb[4];
    vec_hash(&a, NULL, 4, ha);
    vec_hash(&b, NULL, 4, hb);
    cr_assert(ha[0] == hb[0] && ha[1] == hb[1] && ha[2] != hb[2] && ha[3] != hb[3]);
    vec_free(&a);
    vec_free(&b);
}

Test(match, strings_prefix_tail_and_storage) {
    vector a, b;
    init_vec(&a, TYPE_VARCHAR);
    init_vec(&b, TYPE_VARCHAR);
    static const char *as[] = {"",
                               "abc",
                               "abcdefghijkl",
                               "abcdefghijklm",
                               "a long string that differs at the end!",
                               "same prefix, other length",
                               "short"};
    static const char *bs[] = {"",
                               "abd",
                               "abcdefghijkl",
                               "abcdefghijklm",
                               "a long string that differs at the end?",
                               "same prefix, other length.",
                               "short"};
    for (uint32_t r = 0; r < 7; r++) {
        cr_assert_eq(vec_set_str(&a, r, as[r], strlen(as[r]), NULL), STRATA_OK);
        VEC_DATA(&b, sstr)[r] = sstr_make(bs[r], (uint32_t)strlen(bs[r])); /* outside b's heap */
    }
    sel_t match[7];
    uint32_t m = vec_match(&a, NULL, &b, NULL, NULL, 7, 0, match, NULL, NULL);
    cr_assert_eq(m, 4);
    cr_assert(match[0] == 0 && match[1] == 2 && match[2] == 3 && match[3] == 6);
    vec_free(&a);
    vec_free(&b);
}

/* A probe as a hash table does it: key columns refine a candidate list in place, through the
** probe side's selection and the table side's row indexes, over dictionary and constant vectors. */
Test(match, multi_column_probe_with_candidates) {
    vector pk1, pk2, tk1, tk2, pdict;
    init_vec(&pk1, TYPE_INTEGER);
    init_vec(&pk2, TYPE_VARCHAR);
    init_vec(&tk1, TYPE_BIGINT);
    init_vec(&tk2, TYPE_VARCHAR);
    init_vec(&pdict, TYPE_INTEGER);
    char buf[64];
    for (uint32_t r = 0; r < 100; r++) { /* table rows: (r, "key r ...") */
        set_int(&tk1, r, r);
        int len = sprintf(buf, "key %u with a long tail", r);
        cr_assert_eq(vec_set_str(&tk2, r, buf, (size_t)len, NULL), STRATA_OK);
    }
    for (uint32_t r = 0; r < 10; r++) { /* probe rows: (r * 10, "key r*10 ...") except row 4's string */
        VEC_DATA(&pk1, int32_t)[r] = (int32_t)(r * 10);
        int len = sprintf(buf, r == 4 ? "key %u with another tail" : "key %u with a long tail", r * 10);
        cr_assert_eq(vec_set_str(&pk2, r, buf, (size_t)len, NULL), STRATA_OK);
    }
    /* the probe chunk was filtered to rows 1..8; the table rows the hash led to, per probe row */
    sel_t probe_sel[8], table_row[8], cand[8], nomatch[8];
    for (uint32_t i = 0; i < 8; i++) {
        probe_sel[i] = i + 1;
        table_row[i] = (i + 1) * 10;
    }
    table_row[2] = 31; /* a hash collision: wrong table row for probe row 3 */
    for (uint32_t i = 0; i < 8; i++)
        cand[i] = i;
    uint32_t nm1, nm2;
    uint32_t n = vec_match(&pk1, probe_sel, &tk1, table_row, cand, 8, 0, cand, nomatch, &nm1);
    cr_assert_eq(n, 7);
    cr_assert(nm1 == 1 && nomatch[0] == 2);
    n = vec_match(&pk2, probe_sel, &tk2, table_row, cand, n, 0, cand, nomatch, &nm2);
    cr_assert_eq(n, 6);
    cr_assert(nm2 == 1 && nomatch[0] == 3, "probe row 4 differs in its string's tail");
    static const sel_t want[] = {0, 1, 4, 5, 6, 7};
    for (uint32_t i = 0; i < 6; i++)
        cr_assert_eq(cand[i], want[i]);

    /* a dictionary probe column against a constant */
    vec_slice(&pdict, &pk1, probe_sel, 8);
    vector cst;
    init_vec(&cst, TYPE_BIGINT);
    set_int(&cst, 0, 50);
    vec_make_constant(&cst);
    sel_t match[8];
    n = vec_match(&pdict, NULL, &cst, NULL, NULL, 8, 0, match, NULL, NULL);
    cr_assert(n == 1 && match[0] == 4);
    vec_free(&pk1);
    vec_free(&pk2);
    vec_free(&tk1);
    vec_free(&tk2);
    vec_free(&pdict);
    vec_free(&cst);
}

/* ---- vectors against value_hash ------------------------------------------------------------- */

/* Every row of a full vector of each kernel type (SMALLINT, INTEGER, BIGINT, DATE, DOUBLE,
** VARCHAR; edge values, -0.0 and NaNs, strings of 0 to 40 bytes; a NULL every 7th row) hashes
** as value_hash hashes its value -- flat, through a selection, as a dictionary, as a dictionary
** through a selection -- and vec_hash_combine folds that hash in with hash_combine. */
Test(hash, vectors_hash_as_value_hash) {
    static const sql_type_id ids[] = {TYPE_SMALLINT, TYPE_INTEGER, TYPE_BIGINT,
                                      TYPE_DATE,     TYPE_DOUBLE,  TYPE_VARCHAR};
    static const double specials[] = {0.0, -0.0, NAN, -NAN, INFINITY, -INFINITY, 1e-310, 1.5};
    static char text[VECTOR_SIZE][48];
    static uint64_t want[VECTOR_SIZE], got[VECTOR_SIZE], seeds[VECTOR_SIZE];
    static sel_t sel[VECTOR_SIZE], outer[VECTOR_SIZE];
    uint64_t rng = 0x9E3779B97F4A7C15ull;
#define NEXT() (rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17, rng)
    for (uint32_t r = 0; r < VECTOR_SIZE; r++) {
        sel[r] = (sel_t)(NEXT() % VECTOR_SIZE);
        outer[r] = (sel_t)(NEXT() % VECTOR_SIZE);
        seeds[r] = NEXT();
    }
    for (uint32_t t = 0; t < sizeof ids / sizeof ids[0]; t++) {
        vector flat, dict;
        init_vec(&flat, ids[t]);
        init_vec(&dict, ids[t]);
        static sql_value vals[VECTOR_SIZE];
        for (uint32_t r = 0; r < VECTOR_SIZE; r++) {
            uint64_t x = NEXT();
            int64_t small = (int64_t)(x % 5) - 2;
            switch (ids[t]) {
            case TYPE_SMALLINT: {
                int16_t v = r % 5 == 0 ? (int16_t)(r % 2 ? INT16_MIN : INT16_MAX)
                            : r % 3    ? (int16_t)x
                                       : (int16_t)small;
                VEC_DATA(&flat, int16_t)[r] = v, vals[r] = value_int(TYPE_SMALLINT, v);
                break;
            }
            case TYPE_INTEGER:
            case TYPE_DATE: {
                int32_t v = r % 5 == 0 ? (r % 2 ? INT32_MIN : INT32_MAX) : r % 3 ? (int32_t)x
                                                                           : (int32_t)small;
                if (ids[t] == TYPE_DATE) v = (int32_t)(x % 100000) - 50000;
                VEC_DATA(&flat, int32_t)[r] = v;
                vals[r] = ids[t] == TYPE_DATE ? value_date(v) : value_int(TYPE_INTEGER, v);
                break;
            }
            case TYPE_BIGINT: {
                int64_t v = r % 5 == 0 ? (r % 2 ? INT64_MIN : INT64_MAX) : r % 3 ? (int64_t)x : small;
                VEC_DATA(&flat, int64_t)[r] = v, vals[r] = value_int(TYPE_BIGINT, v);
                break;
            }
            case TYPE_DOUBLE: {
                double v = r % 3 ? specials[x % 8] : (double)small * 0.5;
                VEC_DATA(&flat, double)[r] = v, vals[r] = value_double(v);
                break;
            }
            default: {
                uint32_t len = (uint32_t)(x % 41);
                for (uint32_t i = 0; i < len; i++) text[r][i] = (char)('a' + (NEXT() % 3));
                cr_assert_eq(vec_set_str(&flat, r, text[r], len, NULL), STRATA_OK);
                vals[r] = value_text(text[r], len);
                break;
            }
            }
            if (r % 7 == 3) {
                vec_set_null(&flat, r, 1);
                vals[r] = value_null(T(ids[t]));
            }
        }
        for (uint32_t r = 0; r < VECTOR_SIZE; r++) want[r] = value_hash(&vals[r]);
        vec_slice(&dict, &flat, sel, VECTOR_SIZE);
        for (int way = 0; way < 4; way++) {
            const vector *v = way < 2 ? &flat : &dict;
            const sel_t *s = way % 2 ? outer : NULL;
            for (int combine = 0; combine <= 1; combine++) {
                if (combine) {
                    memcpy(got, seeds, sizeof got);
                    vec_hash_combine(v, s, VECTOR_SIZE, got);
                } else {
                    vec_hash(v, s, VECTOR_SIZE, got);
                }
                for (uint32_t r = 0; r < VECTOR_SIZE; r++) {
                    uint32_t i = s ? s[r] : r;
                    if (way >= 2) i = sel[i];
                    uint64_t w = combine ? hash_combine(seeds[r], want[i]) : want[i];
                    if (got[r] != w)
                        cr_assert_fail("type %d, %s%s, %s: row %u (value %u): 0x%016llx, want 0x%016llx", ids[t],
                                       way < 2 ? "flat" : "dictionary", way % 2 ? " through a selection" : "",
                                       combine ? "combined" : "hashed", r, i, (unsigned long long)got[r],
                                       (unsigned long long)w);
                }
            }
        }
        vec_free(&flat);
        vec_free(&dict);
    }
#undef NEXT
}
