/*
** test_keycode.c -- the order-preserving encodings of colstore/table.h: rowids, and key_encode /
** key_encode_row for every type. For random pairs of values (special values mixed in), the
** memcmp order of the encodings must be value_compare's order with NULL last; keys of several
** values must order lexicographically; vectors and single values must encode alike.
*/
#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "../../colstore/table.h"
#include "helpers/workload.h"

static strata_err err;

static int sign(int x) { return (x > 0) - (x < 0); }

static int bytes_cmp(const btree_buf *a, const btree_buf *b) {
    size_t m = a->len < b->len ? a->len : b->len;
    int c = m ? memcmp(a->data, b->data, m) : 0;
    if (c) return sign(c);
    return (a->len > b->len) - (a->len < b->len);
}

static void encode(btree_buf *b, const sql_value *v) {
    b->len = 0;
    cr_assert_eq(key_encode(b, v, &err), STRATA_OK, "%s", err.msg);
}

/* ---- rowids ------------------------------------------------------------------------------- */

Test(keycode, rowids_round_trip_and_order) {
    int64_t special[] = {INT64_MIN, INT64_MIN + 1, -256, -255, -1, 0, 1, 255, 256, INT64_MAX - 1, INT64_MAX};
    wl_rng rng;
    wl_rng_seed(&rng, 1);
    int64_t vals[2000];
    size_t n = 0;
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) vals[n++] = special[i];
    while (n < 2000) {
        uint64_t r = wl_rng_next(&rng);
        vals[n++] = (int64_t)(r >> wl_rng_below(&rng, 64));
        if (n < 2000) vals[n++] = -(int64_t)(r >> (1 + wl_rng_below(&rng, 63)));
    }
    for (size_t i = 0; i < n; i++) {
        uint8_t k[ROWID_KEY_LEN];
        rowid_encode(vals[i], k);
        cr_assert_eq(rowid_decode(k), vals[i]);
    }
    for (int i = 0; i < 20000; i++) {
        int64_t a = vals[wl_rng_below(&rng, n)], b = vals[wl_rng_below(&rng, n)];
        uint8_t ka[ROWID_KEY_LEN], kb[ROWID_KEY_LEN];
        rowid_encode(a, ka);
        rowid_encode(b, kb);
        cr_assert_eq(sign(memcmp(ka, kb, ROWID_KEY_LEN)), (a > b) - (a < b), "%lld vs %lld", (long long)a,
                     (long long)b);
    }
}

/* ---- random values of each type --------------------------------------------------------- */

static char strpool[4096][24]; /* bytes of random strings */

/* random_value makes a value of type id (1 in 10 NULL; special values often). */
static sql_value random_value(wl_rng *r, sql_type type, int slot) {
    if (wl_rng_below(r, 10) == 0) return value_null(type);
    uint64_t x = wl_rng_next(r);
    int special = wl_rng_below(r, 4) == 0;
    switch (type.id) {
    case TYPE_BOOLEAN: return value_bool(x & 1);
    case TYPE_SMALLINT: {
        static const int16_t s[] = {INT16_MIN, -1, 0, 1, INT16_MAX};
        return value_int(TYPE_SMALLINT, special ? s[x % 5] : (int16_t)(x >> 20) % 200);
    }
    case TYPE_INTEGER: {
        static const int32_t s[] = {INT32_MIN, -1, 0, 1, INT32_MAX};
        return value_int(TYPE_INTEGER, special ? s[x % 5] : (int32_t)(x >> 32));
    }
    case TYPE_BIGINT:
    case TYPE_TIMESTAMP:
    case TYPE_DECIMAL: {
        static const int64_t s[] = {INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX, 255, 256};
        int64_t v = special ? s[x % 8] : (int64_t)x >> wl_rng_below(r, 64);
        if (type.id == TYPE_DECIMAL) return value_decimal(v, 18, 2);
        if (type.id == TYPE_TIMESTAMP) return value_timestamp(v);
        return value_int(TYPE_BIGINT, v);
    }
    case TYPE_DATE: /* the first and last days of years 1..9999, the range DATE supports */
        return value_date(special ? (x & 1 ? -719162 : 2932896) : (int32_t)(x % 20000) - 10000);
    case TYPE_DOUBLE: {
        static const double s[] = {0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, 5e-324, -5e-324, 1.7976931348623157e308};
        double d;
        if (special) {
            uint64_t k = x % 11;
            if (k < 9)
                d = s[k];
            else {
                uint64_t bits = k == 9 ? 0x7ff8000000000000ull : 0xfff8000000000001ull; /* NaN, -NaN */
                memcpy(&d, &bits, 8);
            }
        } else if (x & 1) {
            d = (double)((int64_t)(x >> 1) % 1000) / 8.0; /* small values, with ties */
        } else {
            uint64_t bits = x;
            memcpy(&d, &bits, 8);
            if (d != d) d = 1.5;
        }
        return value_double(d);
    }
    case TYPE_VARCHAR:
    case TYPE_BLOB: {
        /* short strings over a tiny alphabet with 0x00, 0x01 and 0xFF, so that prefixes, equal
        ** strings and escapes are common */
        static const char alphabet[] = {0x00, 0x01, 'a', 'b', (char)0xff};
        uint32_t len = (uint32_t)wl_rng_below(r, special ? 20 : 5);
        char *p = strpool[slot];
        for (uint32_t i = 0; i < len; i++) p[i] = alphabet[wl_rng_below(r, 5)];
        return type.id == TYPE_VARCHAR ? value_text(p, len) : value_blob(p, len);
    }
    case TYPE_INTERVAL: {
        sql_interval iv;
        if (special) {
            static const sql_interval s[] = {{1, 0, 0}, {0, 30, 0}, {0, 0, 30ll * 86400000000ll}, {0, 1, 0},
                                             {0, 0, 86400000000ll}, {-1, 0, 0}, {0, 0, 0}, {INT32_MIN, INT32_MIN, INT64_MIN},
                                             {INT32_MAX, INT32_MAX, INT64_MAX}};
            iv = s[x % 9];
        } else {
            iv.months = (int32_t)(x % 7) - 3;
            iv.days = (int32_t)((x >> 8) % 100) - 50;
            iv.micros = ((int64_t)(x >> 16) % 5 - 2) * 3600000000ll * 12;
        }
        return value_interval(iv);
    }
    }
    return value_null(type);
}

static sql_type all_types[] = {
    {.id = TYPE_BOOLEAN}, {.id = TYPE_SMALLINT}, {.id = TYPE_INTEGER}, {.id = TYPE_BIGINT},
    {.id = TYPE_DOUBLE},  {.id = TYPE_DECIMAL, .precision = 18, .scale = 2},  {.id = TYPE_VARCHAR},
    {.id = TYPE_BLOB},    {.id = TYPE_DATE},    {.id = TYPE_TIMESTAMP}, {.id = TYPE_INTERVAL},
};

Test(keycode, memcmp_order_is_value_order_for_every_type) {
    wl_rng rng;
    wl_rng_seed(&rng, 7);
    btree_buf ka = {0}, kb = {0};
    for (size_t ti = 0; ti < sizeof all_types / sizeof all_types[0]; ti++) {
        sql_type ty = all_types[ti];
        for (int i = 0; i < 20000; i++) {
            sql_value a = random_value(&rng, ty, 0), b = random_value(&rng, ty, 1);
            encode(&ka, &a);
            encode(&kb, &b);
            int want = sign(value_compare(&a, &b));
            char ta[VALUE_TEXT_MAX], tb[VALUE_TEXT_MAX];
            cr_assert_eq(bytes_cmp(&ka, &kb), want, "%s: %s vs %s: keys compare %d, values %d",
                         sql_type_name(ty.id), (value_to_text(&a, ta, sizeof ta), ta),
                         (value_to_text(&b, tb, sizeof tb), tb), bytes_cmp(&ka, &kb), want);
        }
    }
    btree_buf_free(&ka);
    btree_buf_free(&kb);
}

Test(keycode, keys_of_several_values_order_lexicographically) {
    wl_rng rng;
    wl_rng_seed(&rng, 11);
    btree_buf ka = {0}, kb = {0};
    /* (VARCHAR, BIGINT, DOUBLE, BLOB) tuples: strings first so that a prefix string followed by
    ** a value must still compare as the shorter string. */
    sql_type ty[4] = {{.id = TYPE_VARCHAR}, {.id = TYPE_BIGINT}, {.id = TYPE_DOUBLE}, {.id = TYPE_BLOB}};
    for (int i = 0; i < 50000; i++) {
        sql_value a[4], b[4];
        ka.len = kb.len = 0;
        int want = 0;
        for (int c = 0; c < 4; c++) {
            a[c] = random_value(&rng, ty[c], 2 * c);
            /* often equal in the leading columns, to reach the later ones */
            b[c] = wl_rng_below(&rng, 2) ? a[c] : random_value(&rng, ty[c], 2 * c + 1);
            cr_assert_eq(key_encode(&ka, &a[c], &err), STRATA_OK);
            cr_assert_eq(key_encode(&kb, &b[c], &err), STRATA_OK);
            if (want == 0) want = sign(value_compare(&a[c], &b[c]));
        }
        cr_assert_eq(bytes_cmp(&ka, &kb), want, "tuple %d", i);
    }
    btree_buf_free(&ka);
    btree_buf_free(&kb);
}

Test(keycode, strings_escape_zero_bytes_and_prefixes_sort_first) {
    btree_buf a = {0}, b = {0};
    sql_value x = value_text("", 0), y = value_text("\0", 1);
    encode(&a, &x);
    encode(&b, &y);
    cr_assert_lt(bytes_cmp(&a, &b), 0);
    /* "ab" then 1 sorts before "ab\0" then 0, and before "abc" */
    sql_value one = value_int(TYPE_INTEGER, 1), zero = value_int(TYPE_INTEGER, 0);
    x = value_text("ab", 2);
    a.len = b.len = 0;
    key_encode(&a, &x, &err);
    key_encode(&a, &one, &err);
    y = value_text("ab\0", 3);
    key_encode(&b, &y, &err);
    key_encode(&b, &zero, &err);
    cr_assert_lt(bytes_cmp(&a, &b), 0);
    /* NULL after every string, even one of 0xFF bytes */
    sql_value n = value_null(sql_type_make(TYPE_VARCHAR)), ff = value_text("\xff\xff\xff", 3);
    encode(&a, &ff);
    encode(&b, &n);
    cr_assert_lt(bytes_cmp(&a, &b), 0);
    /* a long string with zeros survives the escape: its key is unique to it */
    char big[5000];
    for (int i = 0; i < 5000; i++) big[i] = (char)(i % 7 == 0 ? 0 : 'a' + i % 26);
    sql_value l1 = value_blob(big, 5000), l2 = value_blob(big, 4999);
    encode(&a, &l1);
    encode(&b, &l2);
    cr_assert_gt(bytes_cmp(&a, &b), 0);
    cr_assert_eq(a.len, 1 + 5000 + (5000 + 6) / 7 + 2);
    btree_buf_free(&a);
    btree_buf_free(&b);
}

Test(keycode, doubles_zero_and_nan) {
    btree_buf a = {0}, b = {0};
    sql_value pz = value_double(0.0), nz = value_double(-0.0), inf = value_double(INFINITY);
    double nan1, nan2;
    uint64_t b1 = 0x7ff8000000000000ull, b2 = 0xfff0000000000123ull;
    memcpy(&nan1, &b1, 8);
    memcpy(&nan2, &b2, 8);
    sql_value n1 = value_double(nan1), n2 = value_double(nan2);
    encode(&a, &pz);
    encode(&b, &nz);
    cr_assert_eq(bytes_cmp(&a, &b), 0, "-0 and 0 encode alike");
    encode(&a, &n1);
    encode(&b, &n2);
    cr_assert_eq(bytes_cmp(&a, &b), 0, "every NaN encodes alike");
    encode(&b, &inf);
    cr_assert_gt(bytes_cmp(&a, &b), 0, "NaN after +Infinity");
    sql_value null = value_null(sql_type_make(TYPE_DOUBLE));
    encode(&b, &null);
    cr_assert_lt(bytes_cmp(&a, &b), 0, "NULL after NaN");
    btree_buf_free(&a);
    btree_buf_free(&b);
}

Test(keycode, integer_widths_and_vectors_encode_alike) {
    btree_buf a = {0}, b = {0};
    sql_value s = value_int(TYPE_SMALLINT, -5), l = value_int(TYPE_BIGINT, -5), d = value_date(-5);
    encode(&a, &s);
    encode(&b, &l);
    cr_assert_eq(bytes_cmp(&a, &b), 0);
    encode(&b, &d);
    cr_assert_eq(bytes_cmp(&a, &b), 0);
    /* key_encode_row gives the bytes key_encode gives, for rows of every type, NULLs included */
    wl_rng rng;
    wl_rng_seed(&rng, 3);
    enum { NT = sizeof all_types / sizeof all_types[0], ROWS = 300 };
    vector cols[NT];
    static sql_value vals[ROWS][NT];
    for (int c = 0; c < NT; c++) cr_assert_eq(vec_init(&cols[c], all_types[c], &err), STRATA_OK);
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < NT; c++) {
            sql_value v = random_value(&rng, all_types[c], (r * NT + c) % 4096);
            vals[r][c] = v;
            vector *vec = &cols[c];
            if (v.is_null) {
                vec_set_null(vec, (uint32_t)r, 1);
                continue;
            }
            switch (vec->phys) {
            case PHYS_BOOL: VEC_DATA(vec, uint8_t)[r] = (uint8_t)v.v.i; break;
            case PHYS_I16: VEC_DATA(vec, int16_t)[r] = (int16_t)v.v.i; break;
            case PHYS_I32: VEC_DATA(vec, int32_t)[r] = (int32_t)v.v.i; break;
            case PHYS_I64: VEC_DATA(vec, int64_t)[r] = v.v.i; break;
            case PHYS_F64: VEC_DATA(vec, double)[r] = v.v.d; break;
            case PHYS_INTERVAL: VEC_DATA(vec, sql_interval)[r] = v.v.iv; break;
            case PHYS_STR: vec_set_str(vec, (uint32_t)r, sstr_data(&v.v.s), v.v.s.len, NULL); break;
            }
        }
    for (int r = 0; r < ROWS; r++) {
        a.len = b.len = 0;
        cr_assert_eq(key_encode_row(&a, cols, NT, (uint32_t)r, &err), STRATA_OK);
        for (int c = 0; c < NT; c++) cr_assert_eq(key_encode(&b, &vals[r][c], &err), STRATA_OK);
        cr_assert_eq(a.len, b.len, "row %d", r);
        cr_assert(memcmp(a.data, b.data, a.len) == 0, "row %d", r);
    }
    for (int c = 0; c < NT; c++) vec_free(&cols[c]);
    btree_buf_free(&a);
    btree_buf_free(&b);
}
