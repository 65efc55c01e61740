/*
** test_rows.c -- row collections and the hash tables built on them (vector/rows.c): what a sink
** that keeps rows (sort, GROUP BY, DISTINCT, set operations, hash join, RETURNING) relies on.
**
**   vec_rows        every value, NULL and string (inline and long) comes back in append order
**                   across several chunks, whether the rows came plain, through a selection or
**                   through the source chunk's lazy selection, and after the source is gone;
**                   zero-column collections only count.
**   vec_rowtable    (a join's build rows, kept row by row) every value, NULL and string comes
**                   back for any rows asked, in any order and with repeats, across several blocks
**                   and after the source is gone; input through a dictionary comes back as its
**                   values; the rows of several tables move into one (vec_rowtable_take).
**   vec_groups      group numbers are dense, in order of first appearance, and agree with a
**                   linear-search reference over BIGINT keys (duplicates, one NULL group),
**                   INTEGER + VARCHAR keys (inline, long, empty, NULL; flat, dictionary and
**                   constant inputs) and DOUBLE keys (-0.0 = 0.0, NaN = NaN); is_new flags;
**                   vec_groups_key gives the first-seen key; vec_groups_find finds present keys
**                   (also from integers of another width) and misses absent ones; 50,000
**                   distinct keys grow the table several times.
**   vec_join_table  the chain vec_join_probe gives a probe row holds exactly the build rows a
**                   nested loop finds (NULL keys match nothing, on either side), for a one-column
**                   key with long duplicate chains (probed from BIGINT and from INTEGER, inside
**                   and outside the direct map's range), a two-column key, an empty build side
**                   and an all-NULL one; a table built by parts (a parallel join build: each part
**                   the keys of a partition, chaining rows numbered in the whole table) and merged
**                   probes the same, with the same keys' range.
**
** Every expectation is computed independently in the test (linear searches, nested loops) from
** reproducible pseudo-random data.
*/
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/vec_test.h"

/* ---- helpers ------------------------------------------------------------------------------- */

/* A small reproducible generator (xorshift64*). */
static uint64_t rng_state;
static void rng_seed(uint64_t s) { rng_state = s * 0x9E3779B97F4A7C15ull + 1; }
static uint32_t rnd(uint32_t below) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)(((rng_state * 0x2545F4914F6CDD1Dull) >> 32) % below);
}

/* A fixed set of key strings: the empty string (not NULL), short inline ones, ones of exactly
** SSTR_INLINE bytes, and long ones sharing their first bytes (so prefixes alone cannot tell them
** apart) and often their length. */
#define NSTR 40
static char strs[NSTR][64];
static uint32_t strl[NSTR];
static void make_strings(void) {
    for (uint32_t i = 0; i < NSTR; i++) {
        int len;
        switch (i % 4) {
        case 0: len = i ? snprintf(strs[i], sizeof strs[i], "s%u", i) : 0; break;
        case 1: len = snprintf(strs[i], sizeof strs[i], "abcdefgh%04u", i); break; /* 12 bytes */
        case 2: len = snprintf(strs[i], sizeof strs[i], "abcdefghi-%04u", i); break; /* 14 bytes */
        default: len = snprintf(strs[i], sizeof strs[i], "abcd: a long string with a tail %04u", i); break;
        }
        strl[i] = (uint32_t)len;
    }
    cr_assert_eq(strl[1], SSTR_INLINE);
}

/* Bytes of a generated string of length len, depending on seed. */
static void make_bytes(char *buf, uint32_t len, uint64_t seed) {
    for (uint32_t i = 0; i < len; i++)
        buf[i] = (char)('a' + (seed * 31 + i * 7 + (seed >> 5)) % 26);
}

/* set_int stores x as row r of an integer-typed vector of any width, or NULL. */
static void set_int(vector *v, uint32_t r, int64_t x, int is_null) {
    if (!is_null) {
        switch (v->phys) {
        case PHYS_I16: VEC_DATA(v, int16_t)[r] = (int16_t)x; break;
        case PHYS_I32: VEC_DATA(v, int32_t)[r] = (int32_t)x; break;
        default: cr_assert_eq(v->phys, PHYS_I64); VEC_DATA(v, int64_t)[r] = x; break;
        }
    }
    vec_set_null(v, r, is_null);
}

/* set_str stores string idx of the fixed set as row r, or NULL when idx < 0. */
static void set_str(vector *v, uint32_t r, int idx) {
    if (idx >= 0) cr_assert_eq(vec_set_str(v, r, strs[idx], strl[idx], NULL), STRATA_OK);
    vec_set_null(v, r, idx < 0);
}

static int64_t i64_at(const vector *v, uint32_t r) { return VEC_DATA(v, int64_t)[vec_index(v, r)]; }
static int32_t i32_at(const vector *v, uint32_t r) { return VEC_DATA(v, int32_t)[vec_index(v, r)]; }

/* assert_str_at checks row r of a string vector against len bytes at want. */
static void assert_str_at(const vector *v, uint32_t r, const char *want, uint32_t len, uint64_t what) {
    sstr s = VEC_DATA(v, sstr)[vec_index(v, r)];
    cr_assert_eq(s.len, len, "row %llu: length %u, want %u", (unsigned long long)what, s.len, len);
    cr_assert(len == 0 || memcmp(sstr_data(&s), want, len) == 0, "row %llu: wrong bytes", (unsigned long long)what);
}

/* ---- vec_rows ------------------------------------------------------------------------------ */

/* The row generated for number g: a BIGINT, a VARCHAR of 0..40 bytes and a SMALLINT, each NULL
** now and then. */
typedef struct gen_row {
    int64_t i;
    int16_t s16;
    uint32_t slen;
    uint8_t inull, snull, s16null;
    char s[48];
} gen_row;

static void gen(uint64_t g, gen_row *o) {
    o->i = (int64_t)(g * 0x9E3779B97F4A7C15ull);
    o->inull = g % 7 == 3;
    o->s16 = (int16_t)(g * 31 - 5000);
    o->s16null = g % 5 == 1;
    o->snull = g % 11 == 4;
    o->slen = o->snull ? 0 : (uint32_t)(g * 7 % 41);
    make_bytes(o->s, o->slen, g);
}

/* fill_chunk writes rows first..first+m-1 into rows 0..m-1 of src (reset first). */
static void fill_chunk(data_chunk *src, uint64_t first, uint32_t m) {
    chunk_reset(src);
    for (uint32_t j = 0; j < m; j++) {
        gen_row r;
        gen(first + j, &r);
        VEC_DATA(&src->cols[0], int64_t)[j] = r.i;
        vec_set_null(&src->cols[0], j, r.inull);
        cr_assert_eq(vec_set_str(&src->cols[1], j, r.s, r.slen, NULL), STRATA_OK);
        vec_set_null(&src->cols[1], j, r.snull);
        VEC_DATA(&src->cols[2], int16_t)[j] = r.s16;
        vec_set_null(&src->cols[2], j, r.s16null);
    }
    src->count = m;
}

static void assert_rows_layout(const vec_rows *c, uint64_t n) {
    cr_assert_eq(c->rows, n);
    cr_assert_eq(c->nchunks, (n + VECTOR_SIZE - 1) / VECTOR_SIZE);
    for (uint32_t k = 0; k < c->nchunks; k++) {
        uint64_t left = n - (uint64_t)k * VECTOR_SIZE;
        cr_assert_eq(c->chunks[k]->count, left < VECTOR_SIZE ? left : VECTOR_SIZE, "chunk %u", k);
        cr_assert_eq(c->chunks[k]->sel, NULL);
    }
}

Test(rows, values_nulls_and_strings_kept_in_order_across_chunks) {
    static const sql_type_id ids[] = {TYPE_BIGINT, TYPE_VARCHAR, TYPE_SMALLINT};
    sql_type types[3] = {T(ids[0]), T(ids[1]), T(ids[2])};
    rng_seed(5);
    strata_err err = {0};
    vec_rows c;
    cr_assert_eq(vec_rows_init(&c, types, 3, &err), STRATA_OK, "%s", err.msg);
    data_chunk src;
    cr_assert_eq(chunk_init(&src, types, 3, &err), STRATA_OK, "%s", err.msg);

    /* mode 0: rows 0..m-1; 1: a selection (any order, repeats); 2: the chunk's lazy selection;
    ** 3: a selection over a lazy selection; 4: nothing appended */
    static const struct {
        uint32_t m, mode;
    } batches[] = {{1, 0},    {7, 0},    {2047, 1}, {2048, 0}, {1500, 2}, {3, 0},    {2048, 3},
                   {999, 1},  {10, 4},   {2048, 0}, {1234, 2}, {17, 0},   {2048, 1}, {2048, 3},
                   {2040, 0}, {333, 3},  {2048, 2}, {1, 1}};
    size_t cap = 40000;
    uint64_t *ref = malloc(cap * sizeof *ref); /* appended row -> generated row number */
    cr_assert_not_null(ref);
    uint64_t n = 0, g = 0;
    uint32_t crossed[2] = {0, 0}; /* appends that continued in a new chunk, without and with a selection */
    sel_t sel[VECTOR_SIZE], lazy[VECTOR_SIZE];
    for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++) {
        uint32_t m = batches[b].m, mode = batches[b].mode;
        fill_chunk(&src, g, m);
        uint64_t view[VECTOR_SIZE]; /* the source's rows as it shows them */
        uint32_t shown = m;
        for (uint32_t j = 0; j < m; j++)
            view[j] = g + j;
        if (mode == 2 || mode == 3) { /* keep about two thirds, shuffled order */
            shown = 0;
            for (uint32_t j = 0; j < m; j++)
                if (rnd(3)) lazy[shown++] = j;
            for (uint32_t j = shown; j > 1; j--) {
                uint32_t k = rnd(j);
                sel_t t = lazy[j - 1];
                lazy[j - 1] = lazy[k];
                lazy[k] = t;
            }
            chunk_slice(&src, lazy, shown);
            for (uint32_t j = 0; j < shown; j++)
                view[j] = g + lazy[j];
        }
        const sel_t *s = NULL;
        uint32_t cnt = shown;
        if (mode == 1 || mode == 3) { /* most of the shown rows, random, repeats allowed */
            cnt = shown - rnd(shown / 4 + 1);
            for (uint32_t j = 0; j < cnt; j++)
                sel[j] = (sel_t)rnd(shown);
            s = sel;
        }
        if (mode == 4) cnt = 0;
        cr_assert_eq(vec_rows_append(&c, &src, s, cnt, &err), STRATA_OK, "%s", err.msg);
        cr_assert_leq(n + cnt, cap);
        if (cnt && n / VECTOR_SIZE != (n + cnt - 1) / VECTOR_SIZE) crossed[s != NULL]++;
        for (uint32_t j = 0; j < cnt; j++)
            ref[n++] = view[s ? s[j] : j];
        g += m;
        assert_rows_layout(&c, n);
    }
    cr_assert_gt(n, 3 * VECTOR_SIZE);
    cr_assert(crossed[0] > 0 && crossed[1] > 0, "appends across a chunk boundary: %u plain, %u selected", crossed[0],
              crossed[1]);
    chunk_free(&src); /* the collection must not depend on the source's string heap */

    for (uint64_t i = 0; i < n; i++) {
        const data_chunk *ch = vec_rows_chunk(&c, i);
        uint32_t r = (uint32_t)(i % VECTOR_SIZE);
        cr_assert_eq(ch, c.chunks[i / VECTOR_SIZE]);
        gen_row want;
        gen(ref[i], &want);
        cr_assert_eq(vec_is_null(&ch->cols[0], r), want.inull, "row %llu", (unsigned long long)i);
        if (!want.inull) cr_assert_eq(i64_at(&ch->cols[0], r), want.i, "row %llu", (unsigned long long)i);
        cr_assert_eq(vec_is_null(&ch->cols[1], r), want.snull, "row %llu", (unsigned long long)i);
        if (!want.snull) assert_str_at(&ch->cols[1], r, want.s, want.slen, i);
        cr_assert_eq(vec_is_null(&ch->cols[2], r), want.s16null, "row %llu", (unsigned long long)i);
        if (!want.s16null)
            cr_assert_eq(VEC_DATA(&ch->cols[2], int16_t)[vec_index(&ch->cols[2], r)], want.s16, "row %llu",
                         (unsigned long long)i);
    }
    free(ref);
    vec_rows_free(&c);
    vec_rows_free(&c); /* safe twice */
    cr_assert_eq(c.rows, 0);
}

Test(rows, rowtable_gives_back_any_rows) {
    sql_type types[3] = {T(TYPE_BIGINT), T(TYPE_VARCHAR), T(TYPE_SMALLINT)};
    strata_err err = {0};
    vec_rowtable t;
    cr_assert_eq(vec_rowtable_init(&t, types, 3, NULL, &err), STRATA_OK, "%s", err.msg);
    data_chunk src;
    cr_assert_eq(chunk_init(&src, types, 3, &err), STRATA_OK, "%s", err.msg);
    rng_seed(9);
    uint64_t n = 0;
    sel_t lazy[VECTOR_SIZE];
    uint64_t *ref = malloc(5 * VECTOR_SIZE * sizeof *ref);
    cr_assert_not_null(ref);
    for (int b = 0; b < 5; b++) { /* the odd batches come through a dictionary (a filter's selection) */
        uint32_t m = b == 2 ? 100 : VECTOR_SIZE - (uint32_t)b;
        fill_chunk(&src, n * 3 + 1, m);
        uint32_t shown = m;
        if (b % 2) {
            shown = 0;
            for (uint32_t j = 0; j < m; j++)
                if (rnd(2)) lazy[shown++] = j;
            chunk_slice(&src, lazy, shown);
            chunk_apply_sel(&src);
        }
        for (uint32_t j = 0; j < shown; j++)
            ref[n + j] = n * 3 + 1 + (b % 2 ? lazy[j] : j);
        cr_assert_eq(vec_rowtable_append(&t, &src, &err), STRATA_OK, "%s", err.msg);
        n += shown;
        cr_assert_eq(t.rows, n);
    }
    cr_assert_gt(n, VEC_ROWTABLE_BLOCK + 1);
    chunk_free(&src); /* the table must not depend on the source's string heap */
    vector out[3];
    for (int c = 0; c < 3; c++) cr_assert_eq(vec_init(&out[c], types[c], &err), STRATA_OK, "%s", err.msg);
    uint32_t ids[VECTOR_SIZE];
    const uint8_t *rows[VECTOR_SIZE];
    for (int round = 0; round < 8; round++) {
        uint32_t m = round ? VECTOR_SIZE - rnd(100) : 1;
        for (uint32_t k = 0; k < m; k++) ids[k] = (uint32_t)rnd((uint32_t)n);
        vec_rowtable_locate(&t, ids, m, rows);
        for (int c = 0; c < 3; c++) vec_rowtable_gather(&t, (uint32_t)c, rows, m, &out[c]);
        for (uint32_t k = 0; k < m; k++) {
            gen_row want;
            gen(ref[ids[k]], &want);
            cr_assert_eq(vec_is_null(&out[0], k), want.inull, "row %u", ids[k]);
            if (!want.inull) cr_assert_eq(i64_at(&out[0], k), want.i);
            cr_assert_eq(vec_is_null(&out[1], k), want.snull, "row %u", ids[k]);
            if (!want.snull) assert_str_at(&out[1], k, want.s, want.slen, ids[k]);
            cr_assert_eq(vec_is_null(&out[2], k), want.s16null, "row %u", ids[k]);
            if (!want.s16null) cr_assert_eq(VEC_DATA(&out[2], int16_t)[vec_index(&out[2], k)], want.s16);
        }
    }
    for (int c = 0; c < 3; c++) vec_free(&out[c]);
    free(ref);
    vec_rowtable_free(&t);
    vec_rowtable_free(&t); /* safe twice */
}

Test(rows, zero_columns_only_count) {
    strata_err err = {0};
    vec_rows c;
    cr_assert_eq(vec_rows_init(&c, NULL, 0, &err), STRATA_OK, "%s", err.msg);
    data_chunk src;
    cr_assert_eq(chunk_init(&src, NULL, 0, &err), STRATA_OK, "%s", err.msg);
    src.count = VECTOR_SIZE;
    cr_assert_eq(vec_rows_append(&c, &src, NULL, 0, &err), STRATA_OK);
    assert_rows_layout(&c, 0);
    static const uint32_t batches[] = {5, 2048, 1, 2043, 2048, 700, 2048, 1999};
    sel_t sel[VECTOR_SIZE] = {0};
    uint64_t n = 0;
    for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++) {
        cr_assert_eq(vec_rows_append(&c, &src, b % 2 ? sel : NULL, batches[b], &err), STRATA_OK, "%s", err.msg);
        n += batches[b];
        assert_rows_layout(&c, n);
        cr_assert_eq(vec_rows_chunk(&c, n - 1)->ncols, 0);
    }
    cr_assert_gt(n, 3 * VECTOR_SIZE);
    chunk_free(&src);
    vec_rows_free(&c);
}

/* ---- vec_groups ---------------------------------------------------------------------------- */

/* A reference key of up to two columns: an integer (or NULL) and a string index (-1 NULL). */
typedef struct ref_key {
    int64_t i;
    int inull;
    int s;
} ref_key;

static int ref_key_eq(const ref_key *a, const ref_key *b) {
    if (a->inull != b->inull || (!a->inull && a->i != b->i)) return 0;
    return a->s == b->s;
}

/* ref_group finds k among keys[0..*n) by linear search, adding it when absent; *is_new says. */
static uint32_t ref_group(ref_key *keys, uint32_t *n, const ref_key *k, int *is_new) {
    for (uint32_t g = 0; g < *n; g++)
        if (ref_key_eq(&keys[g], k)) {
            *is_new = 0;
            return g;
        }
    keys[*n] = *k;
    *is_new = 1;
    return (*n)++;
}

Test(groups, bigint_keys_with_duplicates_and_nulls) {
    rng_seed(1);
    strata_err err = {0};
    sql_type kt = T(TYPE_BIGINT);
    vec_groups g;
    cr_assert_eq(vec_groups_init(&g, &kt, 1, &err), STRATA_OK, "%s", err.msg);
    vector v;
    init_vec(&v, TYPE_BIGINT);
    vector *cols[1] = {&v};
    static uint32_t gids[VECTOR_SIZE];
    static uint8_t is_new[VECTOR_SIZE];
    static uint64_t h[VECTOR_SIZE];
    ref_key keys[400];
    uint32_t nref = 0;

    /* a fresh table finds nothing, not even NULL */
    vec_set_null(&v, 0, 1);
    vec_hash(&v, NULL, 1, h);
    cr_assert_eq(h[0], HASH_NULL);
    cr_assert_eq(vec_groups_find(&g, cols, 0, h[0]), UINT32_MAX);

    static const uint32_t batches[] = {1, 100, 2048, 777, 3, 2048, 1500, 2048, 2000, 2048, 511, 2048, 1024, 2048, 17};
    uint32_t total = 0, nulls = 0;
    for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++) {
        uint32_t m = batches[b];
        vec_reset(&v);
        ref_key rk[VECTOR_SIZE];
        for (uint32_t r = 0; r < m; r++) {
            /* 300 values spread over the whole BIGINT range, plus NULL */
            rk[r] = (ref_key){.i = ((int64_t)rnd(300) - 150) * 1000000007LL * 1000, .inull = rnd(13) == 0, .s = 0};
            if (rk[r].inull) rk[r].i = 0, nulls++;
            set_int(&v, r, rk[r].i, rk[r].inull);
        }
        if (b == 4) { /* a constant input: every row the same key */
            vec_make_constant(&v);
            for (uint32_t r = 1; r < m; r++)
                rk[r] = rk[0];
        }
        uint8_t *flags = b == 2 ? NULL : is_new; /* is_new may be NULL */
        cr_assert_eq(vec_groups_find_or_add(&g, cols, m, gids, flags, h, &err), STRATA_OK, "%s", err.msg);
        for (uint32_t r = 0; r < m; r++) {
            int fresh;
            uint32_t want = ref_group(keys, &nref, &rk[r], &fresh);
            cr_assert_eq(gids[r], want, "batch %zu row %u: group %u, want %u", b, r, gids[r], want);
            if (flags) cr_assert_eq(is_new[r], fresh, "batch %zu row %u", b, r);
        }
        cr_assert_eq(g.ngroups, nref);
        total += m;
    }
    cr_assert_gt(total, 3 * VECTOR_SIZE);
    cr_assert_gt(nulls, 0);
    cr_assert_gt(nref, 250, "most of the 300 values and NULL seen");
    vec_free(&v); /* the keys are copies */

    /* each group's key is its first-seen key, NULL included */
    uint32_t null_group = UINT32_MAX;
    for (uint32_t gid = 0; gid < nref; gid++) {
        uint32_t kr;
        const data_chunk *kc = vec_groups_key(&g, gid, &kr);
        cr_assert_eq(vec_is_null(&kc->cols[0], kr), keys[gid].inull, "group %u", gid);
        if (keys[gid].inull)
            null_group = gid;
        else
            cr_assert_eq(i64_at(&kc->cols[0], kr), keys[gid].i, "group %u", gid);
    }
    cr_assert_neq(null_group, UINT32_MAX);

    /* find: every key present (NULL too), values absent */
    vector p;
    init_vec(&p, TYPE_BIGINT);
    vector *pcols[1] = {&p};
    uint32_t np = 0;
    for (uint32_t gid = 0; gid < nref; gid++, np++)
        set_int(&p, np, keys[gid].i, keys[gid].inull);
    static const int64_t absent[] = {1, -1, 151 * 1000000007LL * 1000, INT64_MIN, INT64_MAX, 1000000007LL};
    for (size_t a = 0; a < sizeof absent / sizeof absent[0]; a++)
        set_int(&p, np + (uint32_t)a, absent[a], 0);
    vec_hash(&p, NULL, np + 6, h);
    for (uint32_t r = 0; r < np; r++)
        cr_assert_eq(vec_groups_find(&g, pcols, r, h[r]), r, "key of group %u", r);
    for (uint32_t a = 0; a < 6; a++)
        cr_assert_eq(vec_groups_find(&g, pcols, np + a, h[np + a]), UINT32_MAX, "absent key %u", a);
    cr_assert_eq(g.ngroups, nref, "find does not add");
    vec_free(&p);
    vec_groups_free(&g);
}

/* Keys of a small range (found through the direct map once seen) mixed with far ones, zero, the
** extremes and NULL, batch after batch: every row gets its key's dense group, also in batches
** where every key was seen before. */
Test(groups, small_range_keys_with_outliers_and_nulls) {
    rng_seed(7);
    strata_err err = {0};
    sql_type kt = T(TYPE_INTEGER);
    vec_groups g;
    cr_assert_eq(vec_groups_init(&g, &kt, 1, &err), STRATA_OK, "%s", err.msg);
    vector v;
    init_vec(&v, TYPE_INTEGER);
    vector *cols[1] = {&v};
    static uint32_t gids[VECTOR_SIZE];
    static uint8_t is_new[VECTOR_SIZE];
    static uint64_t h[VECTOR_SIZE];
    static ref_key keys[VECTOR_SIZE];
    uint32_t nref = 0;
    static const int64_t far[] = {INT32_MIN, INT32_MAX, -5000, 5000, 2047, -2049};
    for (int b = 0; b < 12; b++) {
        uint32_t m = b % 3 == 2 ? 777 : VECTOR_SIZE;
        ref_key rk[VECTOR_SIZE];
        vec_reset(&v);
        for (uint32_t r = 0; r < m; r++) {
            int64_t k = (int64_t)rnd(100) - 50; /* the small range around the first key */
            if (b >= 3 && b < 6 && rnd(50) == 0) k = far[rnd(6)]; /* only some batches */
            rk[r] = (ref_key){.i = k, .inull = b >= 3 && b < 6 && rnd(40) == 0, .s = 0};
            if (rk[r].inull) rk[r].i = 0;
            set_int(&v, r, rk[r].i, rk[r].inull);
        }
        cr_assert_eq(vec_groups_find_or_add(&g, cols, m, gids, is_new, h, &err), STRATA_OK, "%s", err.msg);
        for (uint32_t r = 0; r < m; r++) {
            int fresh;
            uint32_t want = ref_group(keys, &nref, &rk[r], &fresh);
            cr_assert_eq(gids[r], want, "batch %d row %u: group %u, want %u", b, r, gids[r], want);
            cr_assert_eq(is_new[r], fresh, "batch %d row %u", b, r);
        }
        cr_assert_eq(g.ngroups, nref);
    }
    cr_assert_geq(nref, 100 + 1, "the small range, NULL and some far keys");
    vec_free(&v);
    vec_groups_free(&g);
}

/* Two columns, INTEGER and VARCHAR; the string column comes flat or as a dictionary over a pool,
** the integer one flat or constant. */
Test(groups, integer_and_varchar_keys) {
    rng_seed(2);
    make_strings();
    strata_err err = {0};
    sql_type kt[2] = {T(TYPE_INTEGER), T(TYPE_VARCHAR)};
    vec_groups g;
    cr_assert_eq(vec_groups_init(&g, kt, 2, &err), STRATA_OK, "%s", err.msg);
    vector vi, vs, pool, dict;
    init_vec(&vi, TYPE_INTEGER);
    init_vec(&vs, TYPE_VARCHAR);
    init_vec(&pool, TYPE_VARCHAR);
    init_vec(&dict, TYPE_VARCHAR);
    for (int i = 0; i <= NSTR; i++) /* pool row NSTR is NULL */
        set_str(&pool, (uint32_t)i, i < NSTR ? i : -1);
    static uint32_t gids[VECTOR_SIZE];
    static uint8_t is_new[VECTOR_SIZE];
    static uint64_t h[VECTOR_SIZE];
    static ref_key keys[1000];
    uint32_t nref = 0;
    static const uint32_t batches[] = {2048, 1, 999, 2048, 2048, 64, 2048, 1777, 2048, 2048};
    uint32_t total = 0;
    for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++) {
        uint32_t m = batches[b];
        int as_dict = b % 3 == 1, as_const = b == 5;
        vec_reset(&vi);
        vec_reset(&vs);
        ref_key rk[VECTOR_SIZE];
        sel_t sel[VECTOR_SIZE];
        for (uint32_t r = 0; r < m; r++) {
            rk[r].inull = rnd(12) == 0;
            rk[r].i = rk[r].inull ? 0 : (int64_t)rnd(21) - 10;
            rk[r].s = rnd(12) == 0 ? -1 : (int)rnd(NSTR);
            set_int(&vi, r, rk[r].i, rk[r].inull);
            if (as_dict)
                sel[r] = (sel_t)(rk[r].s < 0 ? NSTR : rk[r].s);
            else
                set_str(&vs, r, rk[r].s);
        }
        if (as_const) {
            vec_make_constant(&vi);
            for (uint32_t r = 1; r < m; r++)
                rk[r].i = rk[0].i, rk[r].inull = rk[0].inull;
        }
        if (as_dict) vec_slice(&dict, &pool, sel, m);
        vector *cols[2] = {&vi, as_dict ? &dict : &vs};
        cr_assert_eq(vec_groups_find_or_add(&g, cols, m, gids, is_new, h, &err), STRATA_OK, "%s", err.msg);
        for (uint32_t r = 0; r < m; r++) {
            int fresh;
            uint32_t want = ref_group(keys, &nref, &rk[r], &fresh);
            cr_assert_eq(gids[r], want, "batch %zu row %u: group %u, want %u", b, r, gids[r], want);
            cr_assert_eq(is_new[r], fresh, "batch %zu row %u", b, r);
        }
        cr_assert_eq(g.ngroups, nref);
        total += m;
    }
    cr_assert_gt(nref, 600, "most of the 22 * 41 combinations seen");
    cr_assert_gt(total, 3 * VECTOR_SIZE);
    vec_free(&vi);
    vec_free(&vs);
    vec_free(&dict);
    vec_free(&pool); /* the keys are copies */

    for (uint32_t gid = 0; gid < nref; gid++) {
        uint32_t kr;
        const data_chunk *kc = vec_groups_key(&g, gid, &kr);
        cr_assert_eq(vec_is_null(&kc->cols[0], kr), keys[gid].inull, "group %u", gid);
        if (!keys[gid].inull) cr_assert_eq(i32_at(&kc->cols[0], kr), keys[gid].i, "group %u", gid);
        cr_assert_eq(vec_is_null(&kc->cols[1], kr), keys[gid].s < 0, "group %u", gid);
        if (keys[gid].s >= 0) assert_str_at(&kc->cols[1], kr, strs[keys[gid].s], strl[keys[gid].s], gid);
    }

    /* find every key, hashed as vec_hash + vec_hash_combine; and absent combinations */
    vector pi, ps;
    init_vec(&pi, TYPE_INTEGER);
    init_vec(&ps, TYPE_VARCHAR);
    vector *pcols[2] = {&pi, &ps};
    for (uint32_t gid = 0; gid < nref; gid++) {
        set_int(&pi, gid, keys[gid].i, keys[gid].inull);
        set_str(&ps, gid, keys[gid].s);
    }
    set_int(&pi, nref, 11, 0); /* an integer never generated */
    set_str(&ps, nref, 3);
    static const char *other[] = {"abcd: a long string with a tail 0039!", "abcd: a long string with a tail 0040",
                                  "abcdefgh0041", "S4", "s"};
    for (uint32_t a = 0; a < 5; a++) { /* strings never generated: same prefixes, lengths */
        set_int(&pi, nref + 1 + a, 0, 0);
        cr_assert_eq(vec_set_str(&ps, nref + 1 + a, other[a], strlen(other[a]), NULL), STRATA_OK);
    }
    uint32_t np = nref + 6;
    vec_hash(&pi, NULL, np, h);
    vec_hash_combine(&ps, NULL, np, h);
    for (uint32_t r = 0; r < nref; r++)
        cr_assert_eq(vec_groups_find(&g, pcols, r, h[r]), r, "key of group %u", r);
    for (uint32_t r = nref; r < np; r++)
        cr_assert_eq(vec_groups_find(&g, pcols, r, h[r]), UINT32_MAX, "absent key %u", r - nref);
    vec_free(&pi);
    vec_free(&ps);
    vec_groups_free(&g);
}

/* The key of a BIGINT mapping of i: injective, spread over the range. */
static int64_t big_key(uint32_t i) { return (int64_t)i * 0x5851F42D4C95LL - 0x7000000000000000LL; }

Test(groups, grows_past_50000_distinct_keys) {
    enum { N = 50000 };
    strata_err err = {0};
    sql_type kt = T(TYPE_BIGINT);
    vec_groups g;
    cr_assert_eq(vec_groups_init(&g, &kt, 1, &err), STRATA_OK, "%s", err.msg);
    uint32_t mask0 = g.mask;
    vector v;
    init_vec(&v, TYPE_BIGINT);
    vector *cols[1] = {&v};
    static uint32_t gids[VECTOR_SIZE];
    static uint8_t is_new[VECTOR_SIZE];
    static uint64_t h[VECTOR_SIZE];
    /* pass 1: each batch holds its new keys twice (the second time they are found) */
    for (uint32_t i = 0; i < N;) {
        uint32_t m = N - i < 1000 ? N - i : 1000;
        vec_reset(&v);
        for (uint32_t r = 0; r < m; r++) {
            set_int(&v, r, big_key(i + r), 0);
            set_int(&v, m + r, big_key(i + m - 1 - r), 0);
        }
        cr_assert_eq(vec_groups_find_or_add(&g, cols, 2 * m, gids, is_new, h, &err), STRATA_OK, "%s", err.msg);
        for (uint32_t r = 0; r < m; r++) {
            cr_assert(gids[r] == i + r && is_new[r] == 1, "key %u: group %u new %d", i + r, gids[r], is_new[r]);
            cr_assert(gids[m + r] == i + m - 1 - r && is_new[m + r] == 0, "repeat of key %u", i + m - 1 - r);
        }
        i += m;
        cr_assert_eq(g.ngroups, i);
        cr_assert_leq(2 * (uint64_t)g.ngroups, (uint64_t)g.mask + 1, "at most half full");
    }
    cr_assert_geq(g.mask, 64 * (mask0 + 1) - 1, "the table grew several times");
    /* pass 2: all keys again, permuted (7 is prime to N): nothing new */
    for (uint32_t i = 0; i < N; i += VECTOR_SIZE) {
        uint32_t m = N - i < VECTOR_SIZE ? N - i : VECTOR_SIZE;
        vec_reset(&v);
        for (uint32_t r = 0; r < m; r++)
            set_int(&v, r, big_key((uint32_t)((uint64_t)(i + r) * 7 % N)), 0);
        cr_assert_eq(vec_groups_find_or_add(&g, cols, m, gids, is_new, h, &err), STRATA_OK, "%s", err.msg);
        for (uint32_t r = 0; r < m; r++) {
            uint32_t want = (uint32_t)((uint64_t)(i + r) * 7 % N);
            cr_assert(gids[r] == want && is_new[r] == 0, "key %u: group %u new %d", want, gids[r], is_new[r]);
        }
    }
    cr_assert_eq(g.ngroups, N);
    /* find: present keys, keys between them, keys past the end */
    for (uint32_t i = 0; i < N; i += VECTOR_SIZE / 2) {
        vec_reset(&v);
        for (uint32_t r = 0; r < VECTOR_SIZE / 2; r++) {
            set_int(&v, 2 * r, big_key(i + r), 0);
            set_int(&v, 2 * r + 1, big_key(i + r) + 1, 0);
        }
        vec_hash(&v, NULL, VECTOR_SIZE, h);
        for (uint32_t r = 0; r < VECTOR_SIZE / 2; r++) {
            uint32_t want = i + r < N ? i + r : UINT32_MAX;
            cr_assert_eq(vec_groups_find(&g, cols, 2 * r, h[2 * r]), want, "key %u", i + r);
            cr_assert_eq(vec_groups_find(&g, cols, 2 * r + 1, h[2 * r + 1]), UINT32_MAX, "key %u + 1", i + r);
        }
    }
    for (uint32_t gid = 0; gid < N; gid += 997) {
        uint32_t kr;
        const data_chunk *kc = vec_groups_key(&g, gid, &kr);
        cr_assert_eq(i64_at(&kc->cols[0], kr), big_key(gid));
    }
    vec_free(&v);
    vec_groups_free(&g);
}

/* 50,000 distinct long strings (heap-stored, equal prefixes and lengths) through growth. */
Test(groups, grows_with_long_string_keys) {
    enum { N = 50000 };
    strata_err err = {0};
    sql_type kt = T(TYPE_VARCHAR);
    vec_groups g;
    cr_assert_eq(vec_groups_init(&g, &kt, 1, &err), STRATA_OK, "%s", err.msg);
    vector v;
    init_vec(&v, TYPE_VARCHAR);
    vector *cols[1] = {&v};
    static uint32_t gids[VECTOR_SIZE];
    static uint8_t is_new[VECTOR_SIZE];
    static uint64_t h[VECTOR_SIZE];
    char buf[64];
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < N; i += VECTOR_SIZE) {
            uint32_t m = N - i < VECTOR_SIZE ? N - i : VECTOR_SIZE;
            vec_reset(&v);
            for (uint32_t r = 0; r < m; r++) {
                uint32_t k = pass ? N - 1 - (i + r) : i + r;
                int len = snprintf(buf, sizeof buf, "group key number %06u", k);
                cr_assert_eq(vec_set_str(&v, r, buf, (size_t)len, NULL), STRATA_OK);
            }
            cr_assert_eq(vec_groups_find_or_add(&g, cols, m, gids, is_new, h, &err), STRATA_OK, "%s", err.msg);
            for (uint32_t r = 0; r < m; r++) {
                uint32_t k = pass ? N - 1 - (i + r) : i + r;
                cr_assert(gids[r] == k && is_new[r] == !pass, "pass %d key %u: group %u new %d", pass, k, gids[r],
                          is_new[r]);
            }
        }
        cr_assert_eq(g.ngroups, N);
    }
    vec_free(&v);
    for (uint32_t gid = 0; gid < N; gid += 101) {
        uint32_t kr;
        const data_chunk *kc = vec_groups_key(&g, gid, &kr);
        int len = snprintf(buf, sizeof buf, "group key number %06u", gid);
        assert_str_at(&kc->cols[0], kr, buf, (uint32_t)len, gid);
    }
    vec_groups_free(&g);
}

/* vec_match compares integers of any width by value and vec_hash hashes them widened, so a group
** table of BIGINT keys is found from INTEGER and SMALLINT probes; INTEGER keys are not found
** from a BIGINT whose low 32 bits equal them. */
Test(groups, integers_of_other_widths_find_by_value) {
    strata_err err = {0};
    sql_type kt = T(TYPE_BIGINT);
    vec_groups g;
    cr_assert_eq(vec_groups_init(&g, &kt, 1, &err), STRATA_OK, "%s", err.msg);
    static const int64_t vals[] = {-70000, -1, 0, 1, 7, 32767, -32768, INT32_MAX, INT32_MIN, INT64_MAX, (1LL << 32) + 7};
    enum { NV = sizeof vals / sizeof vals[0] };
    vector v;
    init_vec(&v, TYPE_BIGINT);
    vector *cols[1] = {&v};
    uint32_t gids[NV];
    uint64_t h[NV];
    for (uint32_t r = 0; r < NV; r++)
        set_int(&v, r, vals[r], 0);
    cr_assert_eq(vec_groups_find_or_add(&g, cols, NV, gids, NULL, h, &err), STRATA_OK, "%s", err.msg);
    for (uint32_t r = 0; r < NV; r++)
        cr_assert_eq(gids[r], r);
    vec_free(&v);

    vector p32, p16;
    init_vec(&p32, TYPE_INTEGER);
    init_vec(&p16, TYPE_SMALLINT);
    vector *c32[1] = {&p32}, *c16[1] = {&p16};
    uint64_t hp;
    for (uint32_t r = 0; r < NV; r++) {
        if (vals[r] < INT32_MIN || vals[r] > INT32_MAX) continue;
        set_int(&p32, 0, vals[r], 0);
        vec_hash(&p32, NULL, 1, &hp);
        cr_assert_eq(vec_groups_find(&g, c32, 0, hp), r, "INTEGER %lld", (long long)vals[r]);
        if (vals[r] < INT16_MIN || vals[r] > INT16_MAX) continue;
        set_int(&p16, 0, vals[r], 0);
        vec_hash(&p16, NULL, 1, &hp);
        cr_assert_eq(vec_groups_find(&g, c16, 0, hp), r, "SMALLINT %lld", (long long)vals[r]);
    }
    set_int(&p32, 0, 8, 0);
    vec_hash(&p32, NULL, 1, &hp);
    cr_assert_eq(vec_groups_find(&g, c32, 0, hp), UINT32_MAX);
    set_int(&p16, 0, 2, 0);
    vec_hash(&p16, NULL, 1, &hp);
    cr_assert_eq(vec_groups_find(&g, c16, 0, hp), UINT32_MAX);
    vec_free(&p32);
    vec_free(&p16);
    vec_groups_free(&g);

    /* INTEGER keys; BIGINT probes 2^32 + k are not k */
    kt = T(TYPE_INTEGER);
    cr_assert_eq(vec_groups_init(&g, &kt, 1, &err), STRATA_OK, "%s", err.msg);
    init_vec(&v, TYPE_INTEGER);
    for (uint32_t r = 0; r < 3; r++)
        set_int(&v, r, (int64_t)r + 5, 0);
    cr_assert_eq(vec_groups_find_or_add(&g, cols, 3, gids, NULL, h, &err), STRATA_OK, "%s", err.msg);
    vec_free(&v);
    vector p64;
    init_vec(&p64, TYPE_BIGINT);
    vector *c64[1] = {&p64};
    for (uint32_t r = 0; r < 3; r++) {
        set_int(&p64, 0, (int64_t)r + 5, 0);
        vec_hash(&p64, NULL, 1, &hp);
        cr_assert_eq(vec_groups_find(&g, c64, 0, hp), r);
        set_int(&p64, 0, (1LL << 32) + r + 5, 0);
        vec_hash(&p64, NULL, 1, &hp);
        cr_assert_eq(vec_groups_find(&g, c64, 0, hp), UINT32_MAX);
    }
    vec_free(&p64);
    vec_groups_free(&g);
}

/* DOUBLE keys group as vec_hash hashes them: -0.0 with 0.0, every NaN together; the group keeps
** the first value seen. */
Test(groups, double_keys_zero_signs_and_nans) {
    strata_err err = {0};
    sql_type kt = T(TYPE_DOUBLE);
    vec_groups g;
    cr_assert_eq(vec_groups_init(&g, &kt, 1, &err), STRATA_OK, "%s", err.msg);
    vector v;
    init_vec(&v, TYPE_DOUBLE);
    vector *cols[1] = {&v};
    double nan2 = -NAN;
    const double in[] = {-0.0, 0.0, NAN, 1.5, nan2, 0, 0.0, 0, 1.5};
    const int isnull[] = {0, 0, 0, 0, 0, 1, 0, 1, 0};
    const uint32_t want[] = {0, 0, 1, 2, 1, 3, 0, 3, 2};
    const uint8_t want_new[] = {1, 0, 1, 1, 0, 1, 0, 0, 0};
    enum { N = sizeof in / sizeof in[0] };
    for (uint32_t r = 0; r < N; r++) {
        VEC_DATA(&v, double)[r] = in[r];
        vec_set_null(&v, r, isnull[r]);
    }
    uint32_t gids[N];
    uint8_t is_new[N];
    uint64_t h[N];
    cr_assert_eq(vec_groups_find_or_add(&g, cols, N, gids, is_new, h, &err), STRATA_OK, "%s", err.msg);
    for (uint32_t r = 0; r < N; r++)
        cr_assert(gids[r] == want[r] && is_new[r] == want_new[r], "row %u: group %u new %d", r, gids[r], is_new[r]);
    cr_assert_eq(g.ngroups, 4);
    vec_free(&v);
    uint32_t kr;
    const data_chunk *kc = vec_groups_key(&g, 0, &kr);
    double k0 = VEC_DATA(&kc->cols[0], double)[vec_index(&kc->cols[0], kr)];
    cr_assert(k0 == 0.0 && signbit(k0), "group 0 keeps -0.0, the first seen");
    kc = vec_groups_key(&g, 1, &kr);
    cr_assert(isnan(VEC_DATA(&kc->cols[0], double)[vec_index(&kc->cols[0], kr)]));
    kc = vec_groups_key(&g, 3, &kr);
    cr_assert(vec_is_null(&kc->cols[0], kr));
    vec_groups_free(&g);
}

/* the rows of three tables (more than a block, exactly one, a few) moved into one: every row comes
** back where vec_rowtable_moved_row says, strings and NULLs too, after the sources are freed; the
** budget charged comes back to nothing */
Test(rows, rowtable_take_moves_the_rows_of_several) {
    sql_type types[3] = {T(TYPE_BIGINT), T(TYPE_VARCHAR), T(TYPE_SMALLINT)};
    strata_err err = {0};
    vec_budget budget = {.limit = SIZE_MAX};
    static const uint32_t sizes[3] = {9000, VEC_ROWTABLE_BLOCK, 10};
    vec_rowtable parts[3], t;
    vec_rowtable *from[3] = {&parts[0], &parts[1], &parts[2]};
    vec_rowtable_moved moved[3];
    data_chunk src;
    cr_assert_eq(chunk_init(&src, types, 3, &err), STRATA_OK, "%s", err.msg);
    uint64_t first[3], n = 0;
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(vec_rowtable_init(&parts[i], types, 3, &budget, &err), STRATA_OK, "%s", err.msg);
        first[i] = n * 3 + 1;
        for (uint32_t done = 0; done < sizes[i];) {
            uint32_t m = sizes[i] - done < VECTOR_SIZE ? sizes[i] - done : VECTOR_SIZE;
            chunk_reset(&src);
            fill_chunk(&src, first[i] + done, m);
            cr_assert_eq(vec_rowtable_append(&parts[i], &src, &err), STRATA_OK, "%s", err.msg);
            done += m;
        }
        n += sizes[i];
    }
    chunk_free(&src);
    cr_assert_eq(vec_rowtable_init(&t, types, 3, &budget, &err), STRATA_OK, "%s", err.msg);
    cr_assert_eq(vec_rowtable_take(&t, from, 3, moved, &err), STRATA_OK, "%s", err.msg);
    cr_assert_eq(t.rows, n);
    for (int i = 0; i < 3; i++) vec_rowtable_free(&parts[i]); /* t keeps its rows and strings */
    vector out[3];
    for (int c = 0; c < 3; c++) cr_assert_eq(vec_init(&out[c], types[c], &err), STRATA_OK, "%s", err.msg);
    uint8_t *seen = calloc(n, 1);
    cr_assert_not_null(seen);
    for (int i = 0; i < 3; i++)
        for (uint32_t r = 0; r < sizes[i]; r++) {
            uint32_t id = (uint32_t)vec_rowtable_moved_row(&moved[i], r);
            cr_assert_lt(id, n);
            cr_assert(!seen[id], "row %u twice", id);
            seen[id] = 1;
            const uint8_t *row;
            vec_rowtable_locate(&t, &id, 1, &row);
            for (int c = 0; c < 3; c++) vec_rowtable_gather(&t, (uint32_t)c, &row, 1, &out[c]);
            gen_row want;
            gen(first[i] + r, &want);
            cr_assert_eq(vec_is_null(&out[0], 0), want.inull, "table %d row %u", i, r);
            if (!want.inull) cr_assert_eq(i64_at(&out[0], 0), want.i);
            cr_assert_eq(vec_is_null(&out[1], 0), want.snull, "table %d row %u", i, r);
            if (!want.snull) assert_str_at(&out[1], 0, want.s, want.slen, id);
            cr_assert_eq(vec_is_null(&out[2], 0), want.s16null);
        }
    free(seen);
    for (int c = 0; c < 3; c++) vec_free(&out[c]);
    vec_rowtable_free(&t);
    cr_assert_eq(budget.used, 0, "%zu bytes still charged", budget.used);
}

/* ---- vec_join_table ------------------------------------------------------------------------ */

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* join_matches walks the chain starting at head as a join operator does and writes its build
** rows to out[], sorted; returns their number. The chain must end within the build side. */
static uint32_t join_matches(const vec_join_table *t, uint32_t head, uint32_t *out) {
    uint32_t n = 0;
    uint64_t steps = 0;
    for (uint32_t e = head; e; e = vec_join_next(t, e - 1)) {
        cr_assert_lt(e - 1, t->rows, "chain entry %u past the build side", e);
        cr_assert_leq(++steps, t->rows, "chain longer than the build side");
        out[n++] = e - 1;
    }
    qsort(out, n, sizeof *out, cmp_u32);
    return n;
}

/* join_check probes every row of the reference probe side (pk, np) against the table built from
** (bk, nb), comparing with a nested loop; probe vectors are filled by fill(). Returns the number
** of matching pairs. */
typedef void (*fill_fn)(vector *const *cols, uint32_t r, const ref_key *k);

static uint64_t join_check(const vec_join_table *t, const ref_key *bk, uint32_t nb, const ref_key *pk, uint32_t np,
                           vector *const *probe, uint32_t nprobe_cols, fill_fn fill, uint32_t *multi) {
    uint32_t *got = malloc(((size_t)nb + 1) * sizeof *got), *want = malloc(((size_t)nb + 1) * sizeof *want);
    uint64_t *h = malloc(VECTOR_SIZE * sizeof *h);
    uint32_t *heads = malloc(VECTOR_SIZE * sizeof *heads);
    cr_assert(got && want && h && heads);
    uint64_t pairs = 0;
    *multi = 0;
    for (uint32_t base = 0; base < np; base += VECTOR_SIZE) {
        uint32_t m = np - base < VECTOR_SIZE ? np - base : VECTOR_SIZE;
        for (uint32_t k = 0; k < nprobe_cols; k++)
            vec_reset(probe[k]);
        for (uint32_t r = 0; r < m; r++)
            fill(probe, r, &pk[base + r]);
        vec_join_probe(t, probe, m, h, heads);
        for (uint32_t r = 0; r < m; r++) {
            const ref_key *p = &pk[base + r];
            uint32_t nw = 0;
            for (uint32_t b = 0; b < nb; b++) /* NULL never matches: not in a key, not in a probe */
                if (!p->inull && !bk[b].inull && p->i == bk[b].i && (nprobe_cols < 2 || (p->s >= 0 && p->s == bk[b].s)))
                    want[nw++] = b;
            uint32_t ng = join_matches(t, heads[r], got);
            cr_assert_eq(ng, nw, "probe row %u: %u matches, want %u", base + r, ng, nw);
            for (uint32_t j = 0; j < nw; j++)
                cr_assert_eq(got[j], want[j], "probe row %u match %u: build row %u, want %u", base + r, j, got[j],
                             want[j]);
            pairs += nw;
            *multi += nw > 1;
        }
    }
    free(got);
    free(want);
    free(h);
    free(heads);
    return pairs;
}

static void fill_int(vector *const *cols, uint32_t r, const ref_key *k) { set_int(cols[0], r, k->i, k->inull); }
static void fill_int_str(vector *const *cols, uint32_t r, const ref_key *k) {
    set_int(cols[0], r, k->i, k->inull);
    set_str(cols[1], r, k->s);
}

/* append_build adds the reference keys to t in uneven batches through a source chunk of the
** table's types; the source chunk is gone before the table is probed. */
static void append_build(vec_join_table *t, const sql_type *types, uint32_t ncols, const ref_key *bk, uint32_t nb,
                         fill_fn fill) {
    strata_err err = {0};
    data_chunk src;
    cr_assert_eq(chunk_init(&src, types, ncols, &err), STRATA_OK, "%s", err.msg);
    vector *cols[2] = {&src.cols[0], ncols > 1 ? &src.cols[1] : NULL};
    static const uint32_t sizes[] = {1, 2048, 700, 13, 2048, 1999};
    for (uint32_t done = 0, b = 0; done < nb; b++) {
        uint32_t m = sizes[b % 6] < nb - done ? sizes[b % 6] : nb - done;
        chunk_reset(&src);
        for (uint32_t r = 0; r < m; r++)
            fill(cols, r, &bk[done + r]);
        src.count = m;
        cr_assert_eq(vec_join_add(t, cols, m, &err), STRATA_OK, "%s", err.msg);
        done += m;
        cr_assert_eq(t->rows, done);
    }
    chunk_free(&src); /* the table keeps copies */
}

Test(join, bigint_key_with_duplicates_and_nulls) {
    rng_seed(3);
    enum { NB = 5000, NP = 3000 };
    static ref_key bk[NB], pk[NP];
    for (uint32_t b = 0; b < NB; b++) {
        bk[b].inull = rnd(9) == 0;
        /* key 7 about 500 times: a long chain */
        /* keys 1,000,003 apart: outside the direct map's range, found by hash */
        bk[b].i = bk[b].inull ? 0 : rnd(10) == 0 ? 7 : rnd(8) == 0 ? (int64_t)rnd(60) * 1000003 : (int64_t)rnd(400) - 100;
        bk[b].s = 0;
    }
    for (uint32_t r = 0; r < NP; r++) {
        pk[r].inull = rnd(10) == 0;
        pk[r].i = pk[r].inull ? 0 : rnd(8) == 0 ? (int64_t)rnd(80) * 1000003 : (int64_t)rnd(500) - 150; /* some never on the build side */
        pk[r].s = 0;
    }
    strata_err err = {0};
    sql_type kt = T(TYPE_BIGINT);
    vec_join_table t;
    cr_assert_eq(vec_join_init(&t, &kt, 1, &err), STRATA_OK, "%s", err.msg);
    append_build(&t, &kt, 1, bk, NB, fill_int);

    /* probed from BIGINT, then from INTEGER (integers compare by value) */
    static const sql_type_id pid[] = {TYPE_BIGINT, TYPE_INTEGER};
    for (int w = 0; w < 2; w++) {
        vector p;
        init_vec(&p, pid[w]);
        vector *probe[1] = {&p};
        uint32_t multi;
        uint64_t pairs = join_check(&t, bk, NB, pk, NP, probe, 1, fill_int, &multi);
        cr_assert_gt(pairs, NP, "probe type %d: the test joins something", pid[w]);
        cr_assert_gt(multi, 100, "probe rows with several matches");
        vec_free(&p);
    }

    /* keys far outside the direct map's range (probed by hash) and a NULL probe: no matches */
    vector p;
    init_vec(&p, TYPE_BIGINT);
    vector *probe[1] = {&p};
    set_int(&p, 0, 7 + (1LL << 32), 0);
    set_int(&p, 1, INT64_MIN, 0);
    set_int(&p, 2, 0, 1);
    set_int(&p, 3, 7, 0);
    uint64_t h[4];
    uint32_t heads[4], out[NB];
    vec_join_probe(&t, probe, 4, h, heads);
    cr_assert_eq(heads[0], 0);
    cr_assert_eq(heads[1], 0);
    cr_assert_eq(heads[2], 0, "a NULL probe has a chain");
    uint32_t want7 = 0;
    for (uint32_t b = 0; b < NB; b++) want7 += !bk[b].inull && bk[b].i == 7;
    cr_assert_eq(join_matches(&t, heads[3], out), want7, "key 7's chain");
    vec_free(&p);
    vec_join_free(&t);
}

Test(join, integer_and_varchar_key) {
    rng_seed(4);
    make_strings();
    enum { NB = 3000, NP = 2500 };
    static ref_key bk[NB], pk[NP];
    for (uint32_t b = 0; b < NB; b++) {
        bk[b].inull = rnd(12) == 0;
        bk[b].i = bk[b].inull ? 0 : (int64_t)rnd(15);
        bk[b].s = rnd(12) == 0 ? -1 : (int)rnd(NSTR);
    }
    for (uint32_t r = 0; r < NP; r++) {
        pk[r].inull = rnd(12) == 0;
        pk[r].i = pk[r].inull ? 0 : (int64_t)rnd(18);
        pk[r].s = rnd(12) == 0 ? -1 : (int)rnd(NSTR);
    }
    strata_err err = {0};
    sql_type kt[2] = {T(TYPE_INTEGER), T(TYPE_VARCHAR)};
    vec_join_table t;
    cr_assert_eq(vec_join_init(&t, kt, 2, &err), STRATA_OK, "%s", err.msg);
    append_build(&t, kt, 2, bk, NB, fill_int_str);
    vector pi, ps;
    init_vec(&pi, TYPE_INTEGER);
    init_vec(&ps, TYPE_VARCHAR);
    vector *probe[2] = {&pi, &ps};
    uint32_t multi;
    uint64_t pairs = join_check(&t, bk, NB, pk, NP, probe, 2, fill_int_str, &multi);
    cr_assert_gt(pairs, NP / 2, "the test joins something");
    cr_assert_gt(multi, 100);

    vec_free(&pi);
    vec_free(&ps);
    vec_join_free(&t);
}

Test(join, empty_and_all_null_build_sides) {
    strata_err err = {0};
    sql_type kt = T(TYPE_BIGINT);
    vector v;
    init_vec(&v, TYPE_BIGINT);
    vector *probe[1] = {&v};
    for (uint32_t r = 0; r < 4; r++)
        set_int(&v, r, (int64_t)r - 1, r == 3);
    uint64_t h[4];
    uint32_t heads[4];

    vec_join_table t;
    cr_assert_eq(vec_join_init(&t, &kt, 1, &err), STRATA_OK, "%s", err.msg);
    vec_join_probe(&t, probe, 4, h, heads);
    for (uint32_t r = 0; r < 4; r++)
        cr_assert_eq(heads[r], 0, "empty build side, probe row %u", r);
    vec_join_free(&t);

    /* 3000 NULL keys: a NULL probe finds none of them, nor does any other key */
    static ref_key nulls[3000];
    for (uint32_t b = 0; b < 3000; b++)
        nulls[b] = (ref_key){.i = 0, .inull = 1, .s = 0};
    cr_assert_eq(vec_join_init(&t, &kt, 1, &err), STRATA_OK, "%s", err.msg);
    append_build(&t, &kt, 1, nulls, 3000, fill_int);
    cr_assert_eq(t.rows, 3000);
    vec_join_probe(&t, probe, 4, h, heads);
    for (uint32_t r = 0; r < 4; r++)
        cr_assert_eq(heads[r], 0, "all-NULL build side, probe row %u", r);
    vec_free(&v);
    vec_join_free(&t);
    vec_join_free(&t);
}

/* build_by_parts builds t as the workers' rows of a parallel join are built: the build rows
** (bk, nb) by nparts partitions of their integer key (NULL keys in partition 0), each part a table
** of its own chaining through t's rows, in uneven batches; then the parts merged into t. */
static void build_by_parts(vec_join_table *t, const sql_type *types, uint32_t ncols, const ref_key *bk, uint32_t nb,
                           fill_fn fill, uint32_t nparts) {
    strata_err err = {0};
    vec_join_table parts[8];
    uint32_t base[8], at[VECTOR_SIZE];
    cr_assert_leq(nparts, 8);
    cr_assert_eq(vec_join_rows(t, nb, &err), STRATA_OK, "%s", err.msg);
    data_chunk src;
    cr_assert_eq(chunk_init(&src, types, ncols, &err), STRATA_OK, "%s", err.msg);
    vector *cols[2] = {&src.cols[0], ncols > 1 ? &src.cols[1] : NULL};
    for (uint32_t k = 0; k < nparts; k++) {
        cr_assert_eq(vec_join_init(&parts[k], types, ncols, &err), STRATA_OK, "%s", err.msg);
        uint32_t m = 0;
        for (uint32_t b = 0; b <= nb; b++) { /* a batch ends at 1,500 rows of the part, or the end */
            if (b < nb && (bk[b].inull ? 0 : (uint64_t)bk[b].i % nparts) == k) {
                fill(cols, m, &bk[b]);
                at[m++] = b;
            }
            if (m && (m == 1500 || b == nb)) {
                src.count = m;
                cr_assert_eq(vec_join_add_rows(&parts[k], cols, m, at, t->next, &err), STRATA_OK, "%s", err.msg);
                chunk_reset(&src);
                m = 0;
            }
        }
    }
    chunk_free(&src);
    cr_assert_eq(vec_join_merge_begin(t, parts, nparts, base, &err), STRATA_OK, "%s", err.msg);
    for (uint32_t k = nparts; k-- > 0;) vec_join_merge_part(t, &parts[k], base[k]); /* in any order */
    cr_assert_eq(vec_join_merge_end(t, parts, nparts, &err), STRATA_OK, "%s", err.msg);
    for (uint32_t k = 0; k < nparts; k++) vec_join_free(&parts[k]);
}

/* a table built by parts and merged probes as the one vec_join_add builds of the same rows, with
** the same keys' range (a join filter's) */
Test(join, built_by_parts_probes_as_one_table) {
    rng_seed(5);
    make_strings();
    enum { NB = 20000, NP = 4000 };
    static ref_key bk[NB], pk[NP];
    for (uint32_t b = 0; b < NB; b++) {
        bk[b].inull = rnd(9) == 0;
        /* dense keys with duplicates, and some far apart: the direct map covers them or not */
        bk[b].i = bk[b].inull ? 0 : rnd(6) == 0 ? (int64_t)rnd(60) * 1000003 : (int64_t)rnd(9000) - 100;
        bk[b].s = rnd(12) == 0 ? -1 : (int)rnd(NSTR);
    }
    for (uint32_t r = 0; r < NP; r++) {
        pk[r].inull = rnd(10) == 0;
        pk[r].i = pk[r].inull ? 0 : rnd(6) == 0 ? (int64_t)rnd(80) * 1000003 : (int64_t)rnd(9500) - 150;
        pk[r].s = rnd(12) == 0 ? -1 : (int)rnd(NSTR);
    }
    strata_err err = {0};
    for (int dense = 0; dense < 2; dense++) { /* keys within a few times their number, or not */
        for (uint32_t b = 0; dense && b < NB; b++) bk[b].i %= 9000;
        sql_type kt = T(TYPE_BIGINT);
        vec_join_table one, merged;
        cr_assert_eq(vec_join_init(&one, &kt, 1, &err), STRATA_OK, "%s", err.msg);
        cr_assert_eq(vec_join_init(&merged, &kt, 1, &err), STRATA_OK, "%s", err.msg);
        append_build(&one, &kt, 1, bk, NB, fill_int);
        build_by_parts(&merged, &kt, 1, bk, NB, fill_int, 7);
        cr_assert_eq(merged.groups.ngroups, one.groups.ngroups);
        int64_t lo1, hi1, lo2, hi2;
        cr_assert(vec_groups_range(&one.groups, &lo1, &hi1) && vec_groups_range(&merged.groups, &lo2, &hi2));
        cr_assert(lo1 == lo2 && hi1 == hi2, "range %lld..%lld, want %lld..%lld", (long long)lo2, (long long)hi2,
                  (long long)lo1, (long long)hi1);
        vector p;
        init_vec(&p, TYPE_BIGINT);
        vector *probe[1] = {&p};
        uint32_t multi;
        cr_assert_gt(join_check(&merged, bk, NB, pk, NP, probe, 1, fill_int, &multi), NP);
        cr_assert_gt(multi, 100);
        vec_free(&p);
        vec_join_free(&one);
        vec_join_free(&merged);
    }
    sql_type kt[2] = {T(TYPE_INTEGER), T(TYPE_VARCHAR)};
    vec_join_table t;
    cr_assert_eq(vec_join_init(&t, kt, 2, &err), STRATA_OK, "%s", err.msg);
    build_by_parts(&t, kt, 2, bk, NB, fill_int_str, 3);
    vector pi, ps;
    init_vec(&pi, TYPE_INTEGER);
    init_vec(&ps, TYPE_VARCHAR);
    vector *probe[2] = {&pi, &ps};
    uint32_t multi;
    cr_assert_gt(join_check(&t, bk, NB, pk, NP, probe, 2, fill_int_str, &multi), 50, "the test joins something");
    vec_free(&pi);
    vec_free(&ps);
    vec_join_free(&t);
}
