/*
** test_vector.c -- vectors, selection vectors and data chunks (vector/vector.c, vector/chunk.c):
** layouts and alignment, NULLs in and out of the all-valid fast path, strings inline and in the
** heap, constant and dictionary vectors, references, slices (composed, in place), flattening,
** copies with selections, chunks with lazy selections and appends across chunk boundaries, and
** out-of-memory failures (through an aligned_alloc that can be told to fail).
*/
#include <criterion/criterion.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/vec_test.h"

/* ---- an aligned_alloc that fails on request ------------------------------------------------ */

/* The vector layer takes every buffer from aligned_alloc; this definition in the test program
** takes precedence over the C library's, and fails the n-th call from now when fail_countdown is
** n > 0 (0: never). */
static int fail_countdown;
void *aligned_alloc(size_t align, size_t n) {
    static void *(*real)(size_t, size_t);
    if (fail_countdown > 0 && --fail_countdown == 0) return NULL;
    if (real == NULL) *(void **)&real = dlsym(RTLD_NEXT, "aligned_alloc");
    return real(align, n);
}

/* ---- helpers ------------------------------------------------------------------------------- */

/* A long test string of the given length whose bytes depend on seed. */
static void make_bytes(char *buf, size_t len, unsigned seed) {
    for (size_t i = 0; i < len; i++)
        buf[i] = (char)('a' + (seed * 31 + i * 7) % 26);
}

static sstr str_at(const vector *v, uint32_t row) { return VEC_DATA(v, sstr)[vec_index(v, row)]; }
static int64_t i64_at(const vector *v, uint32_t row) { return VEC_DATA(v, int64_t)[vec_index(v, row)]; }
static int32_t i32_at(const vector *v, uint32_t row) { return VEC_DATA(v, int32_t)[vec_index(v, row)]; }

static void assert_str(const vector *v, uint32_t row, const char *want, size_t len) {
    sstr s = str_at(v, row);
    cr_assert_eq(s.len, len, "row %u: length %u, want %zu", row, s.len, len);
    cr_assert(memcmp(sstr_data(&s), want, len) == 0, "row %u: wrong bytes", row);
}

/* ---- physical types and init --------------------------------------------------------------- */

Test(vector, physical_types_and_widths) {
    static const struct {
        sql_type_id id;
        vec_phys phys;
        unsigned width;
    } want[] = {
        {TYPE_NULL, PHYS_BOOL, 1},           {TYPE_BOOLEAN, PHYS_BOOL, 1},
        {TYPE_SMALLINT, PHYS_I16, 2},        {TYPE_INTEGER, PHYS_I32, 4},
        {TYPE_BIGINT, PHYS_I64, 8},          {TYPE_DOUBLE, PHYS_F64, 8},
        {TYPE_DECIMAL, PHYS_I64, 8},         {TYPE_VARCHAR, PHYS_STR, sizeof(sstr)},
        {TYPE_BLOB, PHYS_STR, sizeof(sstr)}, {TYPE_DATE, PHYS_I32, 4},
        {TYPE_TIMESTAMP, PHYS_I64, 8},       {TYPE_INTERVAL, PHYS_INTERVAL, 16},
    };
    cr_assert_eq(sizeof want / sizeof want[0], TYPE_COUNT);
    for (size_t i = 0; i < TYPE_COUNT; i++) {
        cr_assert_eq(vec_phys_of(want[i].id), want[i].phys, "type %d", want[i].id);
        cr_assert_eq(vec_phys_width(want[i].phys), want[i].width, "type %d", want[i].id);
        vector v;
        init_vec(&v, want[i].id);
        cr_assert_eq(v.kind, VEC_FLAT);
        cr_assert_eq(v.width, want[i].width);
        cr_assert_eq((uintptr_t)v.data % VECTOR_ALIGN, 0, "type %d: data not 64-byte aligned", want[i].id);
        cr_assert_eq((uintptr_t)v.own_validity % 8, 0);
        /* the NULL type is NULL everywhere; a slot set NULL reads as zeros */
        for (uint32_t r = 0; r < VECTOR_SIZE; r += 511) {
            cr_assert_eq(vec_is_null(&v, r), want[i].id == TYPE_NULL, "type %d row %u", want[i].id, r);
            if (want[i].id == TYPE_NULL) continue;
            memset((unsigned char *)v.data + r * v.width, 0x5a, v.width);
            vec_set_null(&v, r, 1);
            unsigned char zero[VECTOR_MAX_WIDTH] = {0};
            cr_assert(memcmp((unsigned char *)v.data + r * v.width, zero, v.width) == 0);
            vec_set_null(&v, r, 0);
        }
        if (want[i].id != TYPE_NULL) {
            vec_reset(&v);
            cr_assert_null(v.validity, "a fresh vector is on the all-valid fast path");
        }
        vec_free(&v);
        vec_free(&v); /* twice is safe */
    }
}

Test(vector, init_rejects_unknown_type) {
    vector v;
    strata_err err = {0};
    sql_type bad = {.id = TYPE_COUNT};
    cr_assert_eq(vec_init(&v, bad, &err), STRATA_MISUSE);
    cr_assert_eq(err.code, STRATA_MISUSE);
    cr_assert(strstr(err.msg, "unknown type") != NULL, "%s", err.msg);
    vec_free(&v);
}

Test(vector, out_of_memory) {
    vector v;
    strata_err err = {0};
    vec_cache_release(); /* no cached block may stand in for a failing allocation */
    fail_countdown = 1;
    cr_assert_eq(vec_init(&v, T(TYPE_BIGINT), &err), STRATA_NOMEM);
    cr_assert(strstr(err.msg, "out of memory") != NULL, "%s", err.msg);
    vec_free(&v); /* safe after the failure */

    sel_vec s;
    err_clear(&err);
    fail_countdown = 1;
    cr_assert_eq(sel_init(&s, &err), STRATA_NOMEM);
    cr_assert_null(s.idx);
    sel_free(&s);

    /* a chunk failing at each of its allocations in turn: no leak (ASan), then a success */
    sql_type types[3] = {T(TYPE_INTEGER), T(TYPE_VARCHAR), T(TYPE_DOUBLE)};
    for (int n = 1; n <= 5; n++) {
        data_chunk c;
        err_clear(&err);
        vec_cache_release();
        fail_countdown = n;
        cr_assert_eq(chunk_init(&c, types, 3, &err), STRATA_NOMEM, "allocation %d", n);
        cr_assert_eq(err.code, STRATA_NOMEM);
        cr_assert_eq(c.ncols, 0);
        cr_assert_null(c.cols);
        chunk_free(&c);
    }
    fail_countdown = 0;
    data_chunk c;
    cr_assert_eq(chunk_init(&c, types, 3, NULL), STRATA_OK);
    chunk_free(&c);
}

/* ---- NULLs --------------------------------------------------------------------------------- */

Test(vector, set_null_and_is_null) {
    vector v;
    init_vec(&v, TYPE_INTEGER);
    vec_set_null(&v, 5, 0); /* marking valid stays on the fast path */
    cr_assert_null(v.validity);
    uint32_t rows[] = {0, 63, 64, 65, 127, 1000, VECTOR_SIZE - 1};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        vec_set_null(&v, rows[i], 1);
    cr_assert_eq(v.validity, v.own_validity, "the first NULL materializes the bitmap");
    for (uint32_t r = 0; r < VECTOR_SIZE; r++) {
        int want = 0;
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
            want |= rows[i] == r;
        cr_assert_eq(vec_is_null(&v, r), want, "row %u", r);
    }
    vec_set_null(&v, 64, 0);
    cr_assert_not(vec_is_null(&v, 64));
    cr_assert(vec_is_null(&v, 63) && vec_is_null(&v, 65));
    vec_reset(&v);
    cr_assert_null(v.validity);
    for (uint32_t r = 0; r < VECTOR_SIZE; r++)
        cr_assert_not(vec_is_null(&v, r));
    vec_free(&v);
}

/* ---- strings ------------------------------------------------------------------------------- */

Test(vector, strings_inline_and_in_the_heap) {
    vector v;
    init_vec(&v, TYPE_VARCHAR);
    static const size_t lens[] = {0, 1, 4, 11, 12, 13, 16, 100, 65536, 300000};
    enum { N = sizeof lens / sizeof lens[0] };
    char *src[N];
    size_t heap_bytes = 0;
    for (int i = 0; i < N; i++) {
        src[i] = malloc(lens[i] + 1);
        make_bytes(src[i], lens[i], (unsigned)i);
        cr_assert_eq(vec_set_str(&v, (uint32_t)i, src[i], lens[i], NULL), STRATA_OK);
        if (lens[i] > SSTR_INLINE) heap_bytes += lens[i];
        cr_assert_eq(v.heap.used, heap_bytes, "only strings longer than 12 bytes take heap memory");
    }
    for (int i = 0; i < N; i++) {
        sstr s = str_at(&v, (uint32_t)i);
        if (lens[i] <= SSTR_INLINE) {
            for (size_t j = lens[i]; j < SSTR_INLINE; j++)
                cr_assert_eq(s.u.inl[j], 0, "inline padding");
        } else {
            cr_assert_neq(s.u.ext.ptr, src[i], "len %zu: not copied", lens[i]);
            cr_assert(memcmp(s.u.ext.prefix, src[i], 4) == 0, "prefix");
        }
        memset(src[i], '#', lens[i]); /* the vector must not depend on the caller's bytes */
    }
    for (int i = 0; i < N; i++) {
        char *want = malloc(lens[i] + 1);
        make_bytes(want, lens[i], (unsigned)i);
        assert_str(&v, (uint32_t)i, want, lens[i]);
        free(want);
        free(src[i]);
    }
    /* overwrite a long string by a short one and back */
    cr_assert_eq(vec_set_str(&v, 7, "short", 5, NULL), STRATA_OK);
    assert_str(&v, 7, "short", 5);
    vec_reset(&v);
    cr_assert_eq(v.heap.used, 0, "reset empties the heap");
    vec_free(&v);
}

Test(vector, string_too_big) {
    vector v;
    init_vec(&v, TYPE_BLOB);
    cr_assert_eq(vec_set_str(&v, 3, "abc", 3, NULL), STRATA_OK);
    strata_err err = {0};
    /* the length is refused before the bytes are read */
    cr_assert_eq(vec_set_str(&v, 3, "x", (size_t)UINT32_MAX + 1, &err), STRATA_TOOBIG);
    cr_assert(strstr(err.msg, "4 GiB") != NULL, "%s", err.msg);
    assert_str(&v, 3, "abc", 3);
    vec_free(&v);
}

Test(vector, sstr_helpers) {
    char long1[40], long2[40];
    make_bytes(long1, 40, 1);
    memcpy(long2, long1, 40);
    sstr a = sstr_make(long1, 40), b = sstr_make(long2, 40);
    cr_assert_eq(a.u.ext.ptr, long1, "sstr_make points at long bytes");
    cr_assert(sstr_equal(&a, &b));
    long2[39] ^= 1; /* same length and prefix, different tail */
    cr_assert_not(sstr_equal(&a, &b));
    long2[39] ^= 1;
    long2[1] ^= 1; /* different prefix (sstr_make copies the prefix: make b again) */
    b = sstr_make(long2, 40);
    cr_assert_not(sstr_equal(&a, &b));
    sstr s1 = sstr_make("hello", 5), s2 = sstr_make("hello", 5), s3 = sstr_make("hell", 4);
    cr_assert(sstr_equal(&s1, &s2));
    cr_assert_not(sstr_equal(&s1, &s3));
    s2.u.inl[9] = 'z'; /* garbage after the bytes of a short string does not matter */
    cr_assert(sstr_equal(&s1, &s2));
    sstr e1 = sstr_make(NULL, 0), e2 = sstr_make("", 0);
    cr_assert(sstr_equal(&e1, &e2));
}

/* ---- constant vectors ---------------------------------------------------------------------- */

Test(vector, constant_reads_and_flattens) {
    vector v;
    init_vec(&v, TYPE_BIGINT);
    VEC_DATA(&v, int64_t)[0] = -42;
    vec_make_constant(&v);
    cr_assert_eq(v.kind, VEC_CONSTANT);
    for (uint32_t r = 0; r < VECTOR_SIZE; r++) {
        cr_assert_eq(i64_at(&v, r), -42);
        cr_assert_not(vec_is_null(&v, r));
    }
    vec_flatten(&v, 1000);
    cr_assert_eq(v.kind, VEC_FLAT);
    cr_assert_null(v.validity);
    for (uint32_t r = 0; r < 1000; r++)
        cr_assert_eq(VEC_DATA(&v, int64_t)[r], -42, "row %u", r);

    /* a NULL constant */
    vec_reset(&v);
    vec_set_null(&v, 0, 1);
    vec_make_constant(&v);
    for (uint32_t r = 0; r < VECTOR_SIZE; r += 100)
        cr_assert(vec_is_null(&v, r));
    vec_flatten(&v, 300);
    cr_assert_eq(v.kind, VEC_FLAT);
    for (uint32_t r = 0; r < 300; r++)
        cr_assert(vec_is_null(&v, r), "row %u", r);
    vec_free(&v);

    /* a long string constant */
    init_vec(&v, TYPE_VARCHAR);
    char s[50];
    make_bytes(s, 50, 9);
    cr_assert_eq(vec_set_str(&v, 0, s, 50, NULL), STRATA_OK);
    vec_make_constant(&v);
    assert_str(&v, 2047, s, 50);
    vec_flatten(&v, VECTOR_SIZE);
    for (uint32_t r = 0; r < VECTOR_SIZE; r++)
        assert_str(&v, r, s, 50);
    vec_free(&v);
}

/* ---- references, slices, flatten ----------------------------------------------------------- */

/* fill makes v a FLAT INTEGER vector of rows value 10*r, NULL where r % 7 == 3. */
static void fill_ints(vector *v, uint32_t n) {
    vec_reset(v);
    for (uint32_t r = 0; r < n; r++) {
        VEC_DATA(v, int32_t)[r] = (int32_t)(10 * r);
        if (r % 7 == 3) vec_set_null(v, r, 1);
    }
}

Test(vector, reference_is_zero_copy) {
    vector a, b;
    init_vec(&a, TYPE_INTEGER);
    init_vec(&b, TYPE_DATE); /* same physical type */
    fill_ints(&a, 100);
    vec_reference(&b, &a);
    cr_assert_eq(b.data, a.data, "no copy");
    cr_assert_eq(b.kind, VEC_FLAT);
    for (uint32_t r = 0; r < 100; r++) {
        cr_assert_eq(vec_is_null(&b, r), r % 7 == 3);
        if (r % 7 != 3) cr_assert_eq(i32_at(&b, r), (int32_t)(10 * r));
    }
    /* referencing a constant or a dictionary keeps its kind */
    vector c;
    init_vec(&c, TYPE_INTEGER);
    VEC_DATA(&c, int32_t)[0] = 5;
    vec_make_constant(&c);
    vec_reference(&b, &c);
    cr_assert_eq(b.kind, VEC_CONSTANT);
    cr_assert_eq(i32_at(&b, 1999), 5);
    sel_t sel[] = {9, 2, 2};
    vec_slice(&c, &a, sel, 3);
    vec_reference(&b, &c);
    cr_assert_eq(b.kind, VEC_DICTIONARY);
    cr_assert_eq(i32_at(&b, 0), 90);
    cr_assert_eq(i32_at(&b, 2), 20);
    /* a referencing vector becomes its own again after reset */
    vec_reset(&b);
    cr_assert_eq(b.data, b.own_data);
    vec_free(&a);
    vec_free(&b);
    vec_free(&c);
}

Test(vector, slice_flat_dictionary_constant) {
    vector a, d, e;
    init_vec(&a, TYPE_INTEGER);
    init_vec(&d, TYPE_INTEGER);
    init_vec(&e, TYPE_INTEGER);
    fill_ints(&a, 200);
    sel_t sel[] = {3, 0, 199, 11, 12, 18};
    vec_slice(&d, &a, sel, 6);
    sel[0] = 1; /* the selection was copied */
    cr_assert_eq(d.kind, VEC_DICTIONARY);
    cr_assert_eq(d.data, a.data, "a slice does not copy values");
    static const sel_t want[] = {3, 0, 199, 11, 12, 18};
    for (uint32_t i = 0; i < 6; i++) {
        cr_assert_eq(vec_is_null(&d, i), want[i] % 7 == 3, "row %u", i);
        if (want[i] % 7 != 3) cr_assert_eq(i32_at(&d, i), (int32_t)(10 * want[i]));
    }
    /* a slice of a dictionary composes: one level, over a's data */
    sel_t sel2[] = {5, 3, 3, 0}; /* rows 18, 11, 11 and 3 (NULL) of a */
    vec_slice(&e, &d, sel2, 4);
    cr_assert_eq(e.kind, VEC_DICTIONARY);
    cr_assert_eq(e.data, a.data);
    cr_assert_eq(i32_at(&e, 0), 180);
    cr_assert_eq(i32_at(&e, 1), 110);
    cr_assert_eq(i32_at(&e, 2), 110);
    cr_assert(!vec_is_null(&e, 0) && !vec_is_null(&e, 1));
    cr_assert(vec_is_null(&e, 3));
    /* a NULL selection is a reference; a slice of a constant stays constant */
    vec_slice(&e, &a, NULL, 200);
    cr_assert_eq(e.kind, VEC_FLAT);
    cr_assert_eq(e.data, a.data);
    vec_reset(&d);
    VEC_DATA(&d, int32_t)[0] = 77;
    vec_make_constant(&d);
    vec_slice(&e, &d, sel2, 4);
    cr_assert_eq(e.kind, VEC_CONSTANT);
    cr_assert_eq(i32_at(&e, 3), 77);
    vec_free(&a);
    vec_free(&d);
    vec_free(&e);
}

Test(vector, slice_and_flatten_in_place) {
    vector v;
    init_vec(&v, TYPE_INTEGER);
    fill_ints(&v, 1000);
    /* a filter-like selection (increasing), in place twice, then flatten in place */
    sel_t keep[500];
    uint32_t n = 0;
    for (uint32_t r = 0; r < 1000; r += 2)
        keep[n++] = r;
    vec_slice(&v, &v, keep, n);
    cr_assert_eq(v.kind, VEC_DICTIONARY);
    cr_assert_eq(v.data, v.own_data, "a flat vector sliced in place is a dictionary over itself");
    sel_t every3[200];
    uint32_t m = 0;
    for (uint32_t i = 0; i < n && m < 200; i += 3)
        every3[m++] = i; /* rows 0, 6, 12, ... */
    vec_slice(&v, &v, every3, m);
    cr_assert_eq(v.sel, v.own_sel);
    for (uint32_t i = 0; i < m; i++) {
        uint32_t r = 6 * i;
        cr_assert_eq(vec_is_null(&v, i), r % 7 == 3, "row %u", i);
        if (r % 7 != 3) cr_assert_eq(i32_at(&v, i), (int32_t)(10 * r));
    }
    vec_flatten(&v, m);
    cr_assert_eq(v.kind, VEC_FLAT);
    for (uint32_t i = 0; i < m; i++) {
        uint32_t r = 6 * i;
        cr_assert_eq(vec_is_null(&v, i), r % 7 == 3, "row %u", i);
        if (r % 7 != 3) cr_assert_eq(VEC_DATA(&v, int32_t)[i], (int32_t)(10 * r));
    }

    /* a reversing selection cannot be gathered forward in place */
    fill_ints(&v, 1000);
    sel_t rev[1000];
    for (uint32_t i = 0; i < 1000; i++)
        rev[i] = 999 - i;
    vec_slice(&v, &v, rev, 1000);
    vec_flatten(&v, 1000);
    for (uint32_t i = 0; i < 1000; i++) {
        uint32_t r = 999 - i;
        cr_assert_eq(vec_is_null(&v, i), r % 7 == 3, "row %u", i);
        if (r % 7 != 3) cr_assert_eq(VEC_DATA(&v, int32_t)[i], (int32_t)(10 * r), "row %u", i);
    }

    /* a dictionary whose selected rows hold no NULL flattens onto the all-valid path */
    fill_ints(&v, 100);
    sel_t valid_rows[] = {0, 1, 2, 4};
    vec_slice(&v, &v, valid_rows, 4);
    vec_flatten(&v, 4);
    cr_assert_null(v.validity);
    cr_assert_eq(VEC_DATA(&v, int32_t)[3], 40);
    vec_free(&v);
}

/* The 16- and 24-byte layouts (INTERVAL, sstr) through an in-place slice that reverses the rows. */
Test(vector, flatten_in_place_wide_types) {
    vector s, iv;
    init_vec(&s, TYPE_VARCHAR);
    init_vec(&iv, TYPE_INTERVAL);
    char buf[128];
    for (uint32_t r = 0; r < VECTOR_SIZE; r++) {
        make_bytes(buf, r % 50, r);
        cr_assert_eq(vec_set_str(&s, r, buf, r % 50, NULL), STRATA_OK);
        VEC_DATA(&iv, sql_interval)
        [r] = (sql_interval){.months = (int32_t)r, .days = -(int32_t)r, .micros = r * 3};
    }
    vec_set_null(&s, 100, 1);
    sel_t rev[VECTOR_SIZE];
    for (uint32_t i = 0; i < VECTOR_SIZE; i++)
        rev[i] = VECTOR_SIZE - 1 - i;
    vec_slice(&s, &s, rev, VECTOR_SIZE);
    vec_slice(&iv, &iv, rev, VECTOR_SIZE);
    vec_flatten(&s, VECTOR_SIZE);
    vec_flatten(&iv, VECTOR_SIZE);
    for (uint32_t i = 0; i < VECTOR_SIZE; i++) {
        uint32_t r = VECTOR_SIZE - 1 - i;
        cr_assert_eq(vec_is_null(&s, i), r == 100, "row %u", i);
        if (r != 100) {
            make_bytes(buf, r % 50, r);
            assert_str(&s, i, buf, r % 50);
        }
        sql_interval x = VEC_DATA(&iv, sql_interval)[i];
        cr_assert(x.months == (int32_t)r && x.days == -(int32_t)r && x.micros == r * 3, "row %u", i);
    }
    vec_free(&s);
    vec_free(&iv);
}

Test(vector, flatten_dictionary_of_strings_over_another_vector) {
    vector a, d;
    init_vec(&a, TYPE_VARCHAR);
    init_vec(&d, TYPE_VARCHAR);
    char buf[128];
    for (uint32_t r = 0; r < 50; r++) {
        size_t len = r % 2 ? 30 + r : r % 12; /* odd rows long, even rows inline */
        make_bytes(buf, len, r);
        cr_assert_eq(vec_set_str(&a, r, buf, len, NULL), STRATA_OK);
    }
    vec_set_null(&a, 11, 1);
    sel_t sel[] = {49, 11, 0, 13, 13, 2};
    vec_slice(&d, &a, sel, 6);
    vec_flatten(&d, 6);
    cr_assert_eq(d.kind, VEC_FLAT);
    cr_assert_eq(d.data, d.own_data);
    for (uint32_t i = 0; i < 6; i++) {
        cr_assert_eq(vec_is_null(&d, i), sel[i] == 11);
        if (sel[i] == 11) continue;
        size_t len = sel[i] % 2 ? 30 + sel[i] : sel[i] % 12;
        make_bytes(buf, len, sel[i]);
        assert_str(&d, i, buf, len);
    }
    vec_free(&d);
    vec_free(&a);
}

/* ---- copy ---------------------------------------------------------------------------------- */

Test(vector, copy_strings_with_selection_and_nulls) {
    vector src, dst;
    init_vec(&src, TYPE_VARCHAR);
    init_vec(&dst, TYPE_VARCHAR);
    char buf[100];
    for (uint32_t r = 0; r < 100; r++) {
        size_t len = r % 3 == 0 ? 50 + r % 40 : r % 13;
        make_bytes(buf, len, r);
        cr_assert_eq(vec_set_str(&src, r, buf, len, NULL), STRATA_OK);
        if (r % 10 == 9) vec_set_null(&src, r, 1);
    }
    /* dst has a NULL where a valid row will land: the copy makes it valid */
    vec_set_null(&dst, 12, 1);
    sel_t sel[] = {0, 9, 3, 99, 98, 97, 1, 1};
    cr_assert_eq(vec_copy(&dst, 10, &src, sel, 8, NULL), STRATA_OK);
    /* the copy owns its bytes: wipe the source and its heap */
    vec_reset(&src);
    memset(buf, 'X', sizeof buf);
    for (uint32_t r = 0; r < 100; r++)
        cr_assert_eq(vec_set_str(&src, r, buf, sizeof buf, NULL), STRATA_OK);
    for (uint32_t i = 0; i < 8; i++) {
        uint32_t r = sel[i];
        cr_assert_eq(vec_is_null(&dst, 10 + i), r % 10 == 9, "row %u", 10 + i);
        if (r % 10 == 9) {
            cr_assert_eq(str_at(&dst, 10 + i).len, 0, "a NULL string slot is empty");
            continue;
        }
        size_t len = r % 3 == 0 ? 50 + r % 40 : r % 13;
        make_bytes(buf, len, r);
        assert_str(&dst, 10 + i, buf, len);
    }
    cr_assert_not(vec_is_null(&dst, 9));
    cr_assert_not(vec_is_null(&dst, 18));
    vec_free(&src);
    vec_free(&dst);
}

Test(vector, copy_from_every_kind) {
    vector flat, cst, dict, dst;
    init_vec(&flat, TYPE_BIGINT);
    init_vec(&cst, TYPE_BIGINT);
    init_vec(&dict, TYPE_BIGINT);
    init_vec(&dst, TYPE_BIGINT);
    for (uint32_t r = 0; r < 64; r++)
        VEC_DATA(&flat, int64_t)[r] = (int64_t)r * 1000 - 5;
    vec_set_null(&flat, 7, 1);
    VEC_DATA(&cst, int64_t)[0] = INT64_MIN;
    vec_make_constant(&cst);
    sel_t dsel[] = {7, 8, 63};
    vec_slice(&dict, &flat, dsel, 3);

    cr_assert_eq(vec_copy(&dst, 0, &flat, NULL, 64, NULL), STRATA_OK); /* contiguous fast path */
    cr_assert_eq(vec_copy(&dst, 64, &cst, NULL, 10, NULL), STRATA_OK);
    sel_t pick[] = {2, 1, 0};
    cr_assert_eq(vec_copy(&dst, 74, &dict, pick, 3, NULL), STRATA_OK);
    cr_assert_eq(vec_copy(&dst, 77, &flat, NULL, 0, NULL), STRATA_OK); /* nothing */
    for (uint32_t r = 0; r < 64; r++) {
        cr_assert_eq(vec_is_null(&dst, r), r == 7);
        if (r != 7) cr_assert_eq(VEC_DATA(&dst, int64_t)[r], (int64_t)r * 1000 - 5);
    }
    for (uint32_t r = 64; r < 74; r++)
        cr_assert_eq(VEC_DATA(&dst, int64_t)[r], INT64_MIN);
    cr_assert_eq(VEC_DATA(&dst, int64_t)[74], 62995);
    cr_assert_eq(VEC_DATA(&dst, int64_t)[75], 7995);
    cr_assert(vec_is_null(&dst, 76));
    cr_assert_not(vec_is_null(&dst, 75));
    vec_free(&flat);
    vec_free(&cst);
    vec_free(&dict);
    vec_free(&dst);
}

/* Every physical type through slice, copy and flatten against a model, with random NULLs. */
Test(vector, copy_every_type_against_a_model) {
    srand(7);
    for (int id = TYPE_BOOLEAN; id < TYPE_COUNT; id++) {
        vector src, mid, dst;
        init_vec(&src, (sql_type_id)id);
        init_vec(&mid, (sql_type_id)id);
        init_vec(&dst, (sql_type_id)id);
        unsigned w = src.width;
        static unsigned char model[VECTOR_SIZE][VECTOR_MAX_WIDTH];
        static int model_null[VECTOR_SIZE];
        static char text[VECTOR_SIZE][40];
        static size_t text_len[VECTOR_SIZE];
        for (uint32_t r = 0; r < VECTOR_SIZE; r++) {
            model_null[r] = rand() % 5 == 0;
            if (src.phys == PHYS_STR) {
                size_t len = text_len[r] = (size_t)(rand() % 40);
                make_bytes(text[r], len, (unsigned)rand());
                cr_assert_eq(vec_set_str(&src, r, text[r], len, NULL), STRATA_OK);
            } else {
                for (unsigned b = 0; b < w; b++)
                    model[r][b] = (unsigned char)rand();
                if (src.phys == PHYS_BOOL) model[r][0] &= 1;
                if (src.phys == PHYS_F64) {
                    double x = (double)rand() / 3;
                    memcpy(model[r], &x, 8);
                }
                memcpy((unsigned char *)src.data + r * w, model[r], w);
            }
            vec_set_null(&src, r, model_null[r]);
        }
        sel_t sel[VECTOR_SIZE];
        for (uint32_t i = 0; i < VECTOR_SIZE; i++)
            sel[i] = (sel_t)(rand() % VECTOR_SIZE);
        vec_slice(&mid, &src, sel, VECTOR_SIZE);
        uint32_t half = VECTOR_SIZE / 2;
        cr_assert_eq(vec_copy(&dst, 0, &mid, NULL, half, NULL), STRATA_OK);
        cr_assert_eq(vec_copy(&dst, half, &mid, sel_identity() + half, half, NULL), STRATA_OK);
        vec_flatten(&mid, VECTOR_SIZE);
        for (uint32_t i = 0; i < VECTOR_SIZE; i++) {
            uint32_t r = sel[i];
            for (int k = 0; k < 2; k++) {
                const vector *v = k ? &mid : &dst;
                cr_assert_eq(vec_is_null(v, i), model_null[r], "type %d row %u", id, i);
                if (model_null[r]) continue;
                if (v->phys == PHYS_STR) {
                    assert_str(v, i, text[r], text_len[r]);
                } else {
                    cr_assert(memcmp((unsigned char *)v->data + i * w, model[r], w) == 0, "type %d row %u",
                              id, i);
                }
            }
        }
        vec_free(&src);
        vec_free(&mid);
        vec_free(&dst);
    }
}

/* ---- selection vectors --------------------------------------------------------------------- */

Test(sel, identity_and_compose) {
    sel_vec s;
    cr_assert_eq(sel_init(&s, NULL), STRATA_OK);
    cr_assert_eq((uintptr_t)s.idx % VECTOR_ALIGN, 0);
    cr_assert_eq(s.count, 0);
    sel_set_identity(&s, VECTOR_SIZE);
    cr_assert_eq(s.count, VECTOR_SIZE);
    const sel_t *id = sel_identity();
    for (uint32_t i = 0; i < VECTOR_SIZE; i++) {
        cr_assert_eq(s.idx[i], i);
        cr_assert_eq(id[i], i);
    }
    sel_set_identity(&s, 3);
    cr_assert_eq(s.count, 3);
    sel_t base[] = {10, 20, 30, 40}, sel[] = {3, 0, 0, 2}, out[4];
    sel_compose(out, base, sel, 4);
    cr_assert(out[0] == 40 && out[1] == 10 && out[2] == 10 && out[3] == 30);
    sel_compose(sel, base, sel, 4); /* out may be sel */
    cr_assert(sel[0] == 40 && sel[1] == 10 && sel[2] == 10 && sel[3] == 30);
    sel_compose(out, NULL, base, 4);
    cr_assert(memcmp(out, base, sizeof base) == 0);
    sel_free(&s);
    sel_free(&s);
    cr_assert_null(s.idx);
}

/* ---- data chunks --------------------------------------------------------------------------- */

static const sql_type_id chunk_types[] = {TYPE_BIGINT, TYPE_VARCHAR, TYPE_DOUBLE};

/* fill_chunk puts n rows starting at key `first` into c: k, a string of k (long when k % 4 == 0),
** k / 2.0, with the string NULL when k % 9 == 0. */
static void fill_chunk(data_chunk *c, int64_t first, uint32_t n) {
    chunk_reset(c);
    char buf[64];
    for (uint32_t r = 0; r < n; r++) {
        int64_t k = first + r;
        VEC_DATA(&c->cols[0], int64_t)[r] = k;
        int len =
            snprintf(buf, sizeof buf, k % 4 == 0 ? "a long string for key %lld!" : "k%lld", (long long)k);
        cr_assert_eq(vec_set_str(&c->cols[1], r, buf, (size_t)len, NULL), STRATA_OK);
        if (k % 9 == 0) vec_set_null(&c->cols[1], r, 1);
        VEC_DATA(&c->cols[2], double)[r] = (double)k / 2;
    }
    c->count = n;
}

/* check_row asserts that row r of c (through its lazy selection, if any) holds key k. */
static void check_row(const data_chunk *c, uint32_t r, int64_t k) {
    uint32_t p = c->sel ? c->sel[r] : r;
    cr_assert_eq(i64_at(&c->cols[0], p), k, "row %u", r);
    cr_assert_eq(vec_is_null(&c->cols[1], p), k % 9 == 0, "row %u", r);
    if (k % 9 != 0) {
        char buf[64];
        int len =
            snprintf(buf, sizeof buf, k % 4 == 0 ? "a long string for key %lld!" : "k%lld", (long long)k);
        assert_str(&c->cols[1], p, buf, (size_t)len);
    }
    cr_assert_eq(VEC_DATA(&c->cols[2], double)[vec_index(&c->cols[2], p)], (double)k / 2, "row %u", r);
}

static void init_chunk(data_chunk *c) {
    sql_type types[3];
    for (int i = 0; i < 3; i++)
        types[i] = T(chunk_types[i]);
    strata_err err = {0};
    cr_assert_eq(chunk_init(c, types, 3, &err), STRATA_OK, "%s", err.msg);
}

Test(chunk, init_reset_free) {
    data_chunk c;
    init_chunk(&c);
    cr_assert_eq(c.ncols, 3);
    cr_assert_eq(c.count, 0);
    cr_assert_null(c.sel);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(c.cols[i].type.id, chunk_types[i]);
    fill_chunk(&c, 0, 100);
    sel_t s[] = {1, 2};
    chunk_slice(&c, s, 2);
    chunk_reset(&c);
    cr_assert_eq(c.count, 0);
    cr_assert_null(c.sel);
    cr_assert_null(c.cols[1].validity);
    cr_assert_eq(c.cols[1].heap.used, 0);
    chunk_free(&c);
    chunk_free(&c);

    data_chunk none; /* a chunk without columns still counts rows */
    cr_assert_eq(chunk_init(&none, NULL, 0, NULL), STRATA_OK);
    cr_assert_null(none.cols);
    chunk_free(&none);
}

Test(chunk, lazy_slice_apply_and_flatten) {
    data_chunk c;
    init_chunk(&c);
    fill_chunk(&c, 0, 1000);
    void *data0 = c.cols[0].data;
    sel_t odd[500];
    for (uint32_t i = 0; i < 500; i++)
        odd[i] = 2 * i + 1;
    chunk_slice(&c, odd, 500);
    cr_assert_eq(c.count, 500);
    cr_assert_eq(c.cols[0].kind, VEC_FLAT, "a lazy slice does not touch the columns");
    cr_assert_eq(c.cols[0].data, data0);
    sel_t pick[] = {0, 499, 100, 100, 9};
    chunk_slice(&c, pick, 5); /* composes: rows 1, 999, 201, 201, 19 */
    static const int64_t want[] = {1, 999, 201, 201, 19};
    for (uint32_t r = 0; r < 5; r++)
        check_row(&c, r, want[r]);
    chunk_apply_sel(&c);
    cr_assert_null(c.sel);
    cr_assert_eq(c.cols[1].kind, VEC_DICTIONARY);
    for (uint32_t r = 0; r < 5; r++)
        check_row(&c, r, want[r]);
    sel_t last[] = {4, 1};
    chunk_slice(&c, last, 2);
    chunk_flatten(&c);
    cr_assert_null(c.sel);
    cr_assert_eq(c.count, 2);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(c.cols[i].kind, VEC_FLAT);
    check_row(&c, 0, 19);
    check_row(&c, 1, 999);
    chunk_free(&c);
}

/* Rows flow from small source chunks, filtered lazily, into a collection of full chunks: every
** selected row must arrive once, in order, with its values, across chunk boundaries. */
Test(chunk, append_across_chunk_boundaries) {
    data_chunk src, dst;
    init_chunk(&src);
    init_chunk(&dst);
    int64_t expect = 0; /* next key the collection must hold: multiples of 3 are filtered out */
    uint32_t full_chunks = 0;
    int64_t key = 0;
    for (int batch = 0; batch < 12; batch++) {
        uint32_t n = 700 + (uint32_t)batch * 37;
        fill_chunk(&src, key, n);
        key += n;
        sel_t keep[VECTOR_SIZE];
        uint32_t m = 0;
        for (uint32_t r = 0; r < n; r++)
            if (VEC_DATA(&src.cols[0], int64_t)[r] % 3 != 0) keep[m++] = r;
        chunk_slice(&src, keep, m);
        uint32_t done = 0;
        while (done < m) {
            uint32_t appended;
            /* batches alternate between the implicit and an explicit identity selection */
            const sel_t *rows = batch % 2 ? sel_identity() + done : (done ? sel_identity() + done : NULL);
            cr_assert_eq(chunk_append(&dst, &src, rows, m - done, &appended, NULL), STRATA_OK);
            done += appended;
            if (dst.count == VECTOR_SIZE) {
                for (uint32_t r = 0; r < dst.count; r++) {
                    while (expect % 3 == 0)
                        expect++;
                    check_row(&dst, r, expect++);
                }
                full_chunks++;
                chunk_reset(&dst);
            }
        }
    }
    for (uint32_t r = 0; r < dst.count; r++) {
        while (expect % 3 == 0)
            expect++;
        check_row(&dst, r, expect++);
    }
    while (expect % 3 == 0)
        expect++;
    cr_assert_eq(expect, key + (key % 3 == 0), "rows lost or duplicated");
    cr_assert_geq(full_chunks, 3);

    /* a full chunk takes nothing */
    fill_chunk(&src, 0, 10);
    chunk_reset(&dst);
    dst.count = VECTOR_SIZE;
    uint32_t appended = 99;
    cr_assert_eq(chunk_append(&dst, &src, NULL, 10, &appended, NULL), STRATA_OK);
    cr_assert_eq(appended, 0);
    chunk_free(&src);
    chunk_free(&dst);
}

Test(chunk, append_with_explicit_selection_over_dictionary_columns) {
    data_chunk src, dst;
    init_chunk(&src);
    init_chunk(&dst);
    fill_chunk(&src, 100, 50);
    sel_t first[] = {49, 0, 8, 9, 36, 20};
    chunk_slice(&src, first, 6);
    chunk_apply_sel(&src); /* columns are dictionaries now */
    sel_t take[] = {5, 3, 3, 0};
    uint32_t appended;
    cr_assert_eq(chunk_append(&dst, &src, take, 4, &appended, NULL), STRATA_OK);
    cr_assert_eq(appended, 4);
    cr_assert_eq(dst.count, 4);
    chunk_free(&src); /* the collection does not depend on the source */
    check_row(&dst, 0, 120);
    check_row(&dst, 1, 109);
    check_row(&dst, 2, 109);
    check_row(&dst, 3, 149);
    chunk_free(&dst);
}

/* sstr_equal compares the bytes within the length only: inline strings may carry anything after
** their length (a reused slot), and every length up to 12 compares right. */
Test(vector, sstr_equal_ignores_bytes_past_the_length) {
    for (uint32_t len = 0; len <= SSTR_INLINE; len++) {
        sstr a, b;
        memset(&a, 0x00, sizeof a);
        memset(&b, 0xEE, sizeof b);
        a.len = b.len = len;
        for (uint32_t i = 0; i < len; i++) a.u.inl[i] = b.u.inl[i] = (char)('a' + i);
        cr_assert(sstr_equal(&a, &b), "length %u with other bytes past it", len);
        for (uint32_t i = 0; i < len; i++) {
            b.u.inl[i] = 'Z';
            cr_assert(!sstr_equal(&a, &b), "length %u differing at %u", len, i);
            b.u.inl[i] = (char)('a' + i);
        }
        b.len = len + 1;
        cr_assert(!sstr_equal(&a, &b), "lengths %u and %u", len, len + 1);
    }
}
