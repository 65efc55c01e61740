/*
** test_decode.c -- the column store's decode kernels (colstore/bitpack.c's unpacking, segment.c's
** integer decoding) on whatever instruction set the build targets: the SIMD unpacking at
** -march=native (AVX-512 here) and AVX2=1 (-march=haswell), the scalar kernels under PORTABLE=1.
** `make test-vector` runs it beside the vector kernels' tests in each of the three builds.
**
**   bitpack          every width 0..64 and counts around every 8- and 64-value boundary (0 to
**                    2048), each stream ending exactly where an unreadable page begins (a read
**                    past bitpack_bytes faults), against a bit-by-bit reference written here:
**                    bitpack_pack's bytes, bitpack_unpack (uint64, padding zero),
**                    bitpack_unpack32 (the low 32 bits), bitpack_unpack_i16/_i32/_i64 with bases
**                    at 0, 1, -1, the types' edges and at random (value + base truncated to the
**                    type, padding base), nothing written past the last group (canaries),
**                    bitpack_get and bitpack_sum.
**   segments         SMALLINT, INTEGER, BIGINT, DATE and DECIMAL columns of 77 and 4000 rows (the
**                    last vector 1952 rows, not a multiple of 64) with and without NULLs, through
**                    frame of reference, dictionary and runs forced, at every width the type
**                    holds, with frames at the type's bottom, around 0, at its top and reaching
**                    past its top (the checked path): every vector against the model, NULL rows
**                    zero, and the output vector's rows past the vector's end untouched.
**   corruption       such segments damaged byte by byte behind a valid checksum: every decode is
**                    OK or STRATA_CORRUPT, and a vector that decodes agrees row by row with the
**                    point reads (segment_get, which checks each value on its own); damage is
**                    found (codes past the dictionary, runs not covering the vector, values
**                    outside the type) in every case.
*/
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../colstore/bitpack.h"
#include "../../colstore/segment.h"
#include "../../core/crc32c.h"
#include "../../core/value.h"

static uint64_t rng_state = 1;
static void rng_seed(uint64_t s) { rng_state = s; }
static uint64_t rnd(void) { /* splitmix64 */
    uint64_t z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint64_t width_mask(unsigned w) { return w == 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1; }

/* ---- the reference: bitpack.h's layout read literally, one bit at a time ------------------ */

static uint64_t ref_get(const uint8_t *in, uint64_t i, unsigned w) {
    uint64_t v = 0;
    for (unsigned b = 0; b < w; b++) {
        uint64_t bit = i * w + b;
        v |= (uint64_t)(in[bit >> 3] >> (bit & 7) & 1) << b;
    }
    return v;
}

static void ref_pack(const uint64_t *in, uint32_t n, unsigned w, uint8_t *out) {
    memset(out, 0, bitpack_bytes(n, w));
    for (uint32_t i = 0; i < n; i++)
        for (unsigned b = 0; b < w; b++) {
            uint64_t bit = (uint64_t)i * w + b;
            if (in[i] >> b & 1) out[bit >> 3] |= (uint8_t)(1u << (bit & 7));
        }
}

/* A buffer whose last byte is followed by an unreadable page. */
typedef struct guarded {
    uint8_t *map;
    size_t len;
} guarded;

static uint8_t *guard_alloc(guarded *g, size_t bytes) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE), data = (bytes + page - 1) / page * page;
    g->len = data + page;
    g->map = mmap(NULL, g->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert(g->map != MAP_FAILED);
    cr_assert_eq(mprotect(g->map + data, page, PROT_NONE), 0);
    return g->map + data - bytes;
}

static void guard_free(guarded *g) { munmap(g->map, g->len); }

/* ---- bit-packing ---------------------------------------------------------------------------- */

#define MAXN 2048
#define CANARY 8 /* values checked past the last group */

static const uint32_t COUNTS[] = {0, 1, 7, 8, 9, 31, 63, 64, 65, 100, 127, 128, 129, 255, 1000, 2047, 2048};

/* check_unpack checks every unpacking of n values of w bits packed at p against in[], which holds
** the values of the whole last group (its padding's too). */
static void check_unpack(const uint8_t *p, const uint64_t *in, uint32_t n, unsigned w) {
    static uint64_t o64[MAXN + CANARY];
    static uint32_t o32[MAXN + CANARY];
    static int16_t o16[MAXN + CANARY];
    static int32_t oi32[MAXN + CANARY];
    static int64_t oi64[MAXN + CANARY];
    uint32_t m = (n + BITPACK_GROUP - 1) / BITPACK_GROUP * BITPACK_GROUP;
    memset(o64, 0xA5, sizeof o64);
    memset(o32, 0xA5, sizeof o32);
    bitpack_unpack(p, n, w, o64);
    bitpack_unpack32(p, n, w, o32);
    for (uint32_t i = 0; i < m + CANARY; i++) {
        uint64_t want = i < m ? in[i] : UINT64_C(0xA5A5A5A5A5A5A5A5);
        cr_assert_eq(o64[i], want, "bitpack_unpack, width %u, %u values: value %u is %llx, want %llx", w, n, i,
                     (unsigned long long)o64[i], (unsigned long long)want);
        cr_assert_eq(o32[i], (uint32_t)want, "bitpack_unpack32, width %u, %u values: value %u", w, n, i);
    }
    const uint64_t bases[] = {0, 1, ~UINT64_C(0), 0x7fff, 0xffff8000u, (uint64_t)INT32_MIN, 0x7fffffff,
                              UINT64_C(1) << 63, rnd(), rnd()};
    for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++) {
        uint64_t base = bases[b];
        memset(o16, 0xA5, sizeof o16);
        memset(oi32, 0xA5, sizeof oi32);
        memset(oi64, 0xA5, sizeof oi64);
        bitpack_unpack_i16(p, n, w, base, o16);
        bitpack_unpack_i32(p, n, w, base, oi32);
        bitpack_unpack_i64(p, n, w, base, oi64);
        for (uint32_t i = 0; i < m + CANARY; i++) {
            uint64_t x = i < m ? base + in[i] : UINT64_C(0xA5A5A5A5A5A5A5A5);
            cr_assert_eq(o16[i], (int16_t)x, "bitpack_unpack_i16, width %u, %u values, base %llx: value %u is %d, want %d",
                         w, n, (unsigned long long)base, i, o16[i], (int16_t)x);
            cr_assert_eq(oi32[i], (int32_t)x, "bitpack_unpack_i32, width %u, %u values, base %llx: value %u is %d, want %d",
                         w, n, (unsigned long long)base, i, oi32[i], (int32_t)x);
            cr_assert_eq(oi64[i], (int64_t)x, "bitpack_unpack_i64, width %u, %u values, base %llx: value %u", w, n,
                         (unsigned long long)base, i);
        }
    }
}

Test(bitpack, every_width_and_output_against_reference) {
    static uint64_t in[MAXN];
    static uint8_t ref[MAXN * 8];
    rng_seed(11);
    for (unsigned w = 0; w <= 64; w++) {
        uint64_t mask = width_mask(w);
        for (size_t t = 0; t < sizeof COUNTS / sizeof COUNTS[0]; t++) {
            uint32_t n = COUNTS[t];
            for (uint32_t i = 0; i < n; i++) {
                uint64_t r = rnd();
                in[i] = (i % 5 == 0 ? ~UINT64_C(0) : i % 7 == 0 ? 0 : r >> (r % 64) ^ r) & mask;
            }
            for (uint32_t i = n; i < (n + BITPACK_GROUP - 1) / BITPACK_GROUP * BITPACK_GROUP; i++) in[i] = 0;
            uint64_t bytes = bitpack_bytes(n, w);
            guarded g;
            uint8_t *p = guard_alloc(&g, bytes);
            bitpack_pack(in, n, w, p);
            ref_pack(in, n, w, ref);
            cr_assert(bytes == 0 || memcmp(p, ref, bytes) == 0, "bitpack_pack, width %u, %u values: bytes differ", w, n);
            for (uint32_t i = 0; i < n; i++)
                cr_assert_eq(ref_get(p, i, w), in[i], "reference, width %u: value %u", w, i);
            check_unpack(p, in, n, w);
            uint64_t sum = 0;
            for (uint32_t i = 0; i < n; i++) {
                cr_assert_eq(bitpack_get(p, i, w), in[i], "bitpack_get, width %u, %u values: value %u", w, n, i);
                sum += in[i];
            }
            cr_assert_eq(bitpack_sum(p, n, w), sum, "bitpack_sum, width %u, %u values", w, n);
            guard_free(&g);
        }
    }
}

/* Streams not written by bitpack_pack: random bytes, so that padding bits are not zero either
** (the unpacking reads whatever a stream holds; the padding values must still come out as the
** stream's bits say). */
Test(bitpack, random_streams) {
    static uint64_t in[MAXN];
    rng_seed(12);
    for (unsigned w = 1; w <= 64; w++)
        for (size_t t = 0; t < sizeof COUNTS / sizeof COUNTS[0]; t++) {
            uint32_t n = COUNTS[t];
            uint64_t bytes = bitpack_bytes(n, w);
            guarded g;
            uint8_t *p = guard_alloc(&g, bytes);
            for (uint64_t i = 0; i < bytes; i++) p[i] = (uint8_t)rnd();
            uint32_t m = (n + BITPACK_GROUP - 1) / BITPACK_GROUP * BITPACK_GROUP;
            static uint64_t o64[MAXN];
            bitpack_unpack(p, n, w, o64);
            for (uint32_t i = 0; i < m; i++) {
                uint64_t want = ref_get(p, i, w);
                cr_assert_eq(o64[i], want, "width %u, %u values: value %u", w, n, i);
                in[i] = want;
            }
            check_unpack(p, in, n, w);
            guard_free(&g);
        }
}

/* ---- segments --------------------------------------------------------------------------------- */

typedef struct icol {
    sql_type type;
    vec_phys phys;
    uint32_t rows;
    int64_t v[4000];
    uint8_t null[4000];
} icol;

static void type_range(vec_phys p, int64_t *lo, int64_t *hi, unsigned *bits) {
    switch (p) {
    case PHYS_I16: *lo = INT16_MIN, *hi = INT16_MAX, *bits = 16; break;
    case PHYS_I32: *lo = INT32_MIN, *hi = INT32_MAX, *bits = 32; break;
    default: *lo = INT64_MIN, *hi = INT64_MAX, *bits = 64; break;
    }
}

static void encode(const icol *c, int force, btree_buf *out) {
    strata_err err = {0};
    segment_builder b;
    vector v;
    cr_assert_eq(segment_builder_init(&b, c->type, &err), STRATA_OK, "%s", err.msg);
    cr_assert_eq(vec_init(&v, c->type, &err), STRATA_OK, "%s", err.msg);
    for (uint32_t from = 0; from < c->rows; from += VECTOR_SIZE) {
        uint32_t n = c->rows - from < VECTOR_SIZE ? c->rows - from : VECTOR_SIZE;
        vec_reset(&v);
        for (uint32_t i = 0; i < n; i++) {
            int64_t x = c->v[from + i];
            switch (c->phys) {
            case PHYS_I16: VEC_DATA(&v, int16_t)[i] = (int16_t)x; break;
            case PHYS_I32: VEC_DATA(&v, int32_t)[i] = (int32_t)x; break;
            default: VEC_DATA(&v, int64_t)[i] = x; break;
            }
            if (c->null[from + i]) vec_set_null(&v, i, 1);
        }
        cr_assert_eq(segment_builder_append(&b, &v, NULL, n, &err), STRATA_OK, "%s", err.msg);
    }
    segment_options opt = {0, force};
    cr_assert_eq(segment_builder_finish(&b, &opt, out, &err), STRATA_OK, "finish: %s", err.msg);
    vec_free(&v);
    segment_builder_free(&b);
}

static int64_t row_value(const vector *v, uint32_t i) {
    switch (v->phys) {
    case PHYS_I16: return VEC_DATA(v, int16_t)[i];
    case PHYS_I32: return VEC_DATA(v, int32_t)[i];
    default: return VEC_DATA(v, int64_t)[i];
    }
}

/* verify decodes every vector of c's segment buf, checks it against the model and that the rows
** past the vector's end keep their canary bytes. */
static void verify(const icol *c, const btree_buf *buf, int enc, const char *what) {
    strata_err err = {0};
    segment_reader r;
    cr_assert_eq(segment_open(&r, buf->data, buf->len, c->type, &err), STRATA_OK, "%s: %s", what, err.msg);
    seg_info info;
    segment_describe(&r, &info);
    cr_assert_eq(info.encoding_id, enc, "%s: encoded as %s", what, info.encoding);
    vector v;
    cr_assert_eq(vec_init(&v, c->type, &err), STRATA_OK);
    for (uint32_t k = 0; k < segment_nvectors(&r); k++) {
        uint32_t n = segment_vector_rows(&r, k);
        vec_reset(&v);
        memset(v.data, 0x5A, (size_t)VECTOR_SIZE * v.width);
        cr_assert_eq(segment_decode_vector(&r, k, &v, &err), STRATA_OK, "%s: vector %u: %s", what, k, err.msg);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t row = k * VECTOR_SIZE + i;
            cr_assert_eq(vec_is_null(&v, i), c->null[row], "%s: row %u NULL", what, row);
            int64_t want = c->null[row] ? 0 : c->v[row];
            cr_assert_eq(row_value(&v, i), want, "%s: row %u is %lld, want %lld", what, row,
                         (long long)row_value(&v, i), (long long)want);
        }
        const uint8_t *d = v.data;
        for (size_t b = (size_t)n * v.width; b < (size_t)VECTOR_SIZE * v.width; b++)
            cr_assert_eq(d[b], 0x5A, "%s: vector %u of %u rows: byte %zu past its end written", what, k, n, b);
    }
    vec_free(&v);
    segment_reader_close(&r);
}

enum { FRAME_BOTTOM, FRAME_ZERO, FRAME_TOP, FRAME_PAST_TOP, FRAMES };
static const char *const FRAME[FRAMES] = {"bottom", "around 0", "top", "reaching past the top"};

/* make fills c with values of width w (the frame's: its max - min needs w bits) placed as frame
** says; runs > 1 puts them in runs of 1..runs rows; NULLs at every 9th row when nulls. */
static void make(icol *c, sql_type type, uint32_t rows, unsigned w, int frame, uint32_t runs, int nulls) {
    c->type = type;
    c->phys = vec_phys_of((sql_type_id)type.id);
    c->rows = rows;
    int64_t lo, hi;
    unsigned bits;
    type_range(c->phys, &lo, &hi, &bits);
    uint64_t span = width_mask(w) >> (frame == FRAME_PAST_TOP ? 1 : 0); /* max - min */
    if (frame == FRAME_PAST_TOP && w > 0) span += 1;                      /* still w bits */
    uint64_t min;
    switch (frame) {
    case FRAME_BOTTOM: min = (uint64_t)lo; break;
    case FRAME_ZERO: min = (uint64_t)0 - span / 2 - (span & 1); break; /* -2^(w-1) .. 2^(w-1) - 1 */
    default: min = (uint64_t)hi - span; break;
    }
    for (uint32_t i = 0, run = 0; i < rows; run++) {
        uint32_t len = runs > 1 ? 1 + (uint32_t)(rnd() % runs) : 1;
        uint64_t off = run == 0 ? 0 : run == 1 ? span : span == ~UINT64_C(0) ? rnd() : rnd() % (span + 1);
        if (w > 12 && runs <= 1 && i > 1 && i % 3 == 0) off = span - (off & 0xff); /* near the top */
        for (uint32_t j = 0; j < len && i < rows; j++, i++) {
            c->v[i] = (int64_t)(min + off);
            c->null[i] = nulls && i % 9 == 4;
        }
    }
    for (uint32_t i = 0; i < rows; i++)
        if (c->v[i] == (int64_t)(min + span)) c->null[i] = 0; /* the frame's top is a value */
}

static void segments_of(sql_type type) {
    static icol c;
    static const uint32_t sizes[] = {77, 4000};
    static const int encs[] = {SEG_FOR, SEG_DICTIONARY, SEG_RLE};
    int64_t lo, hi;
    unsigned bits;
    type_range(vec_phys_of((sql_type_id)type.id), &lo, &hi, &bits);
    rng_seed(type.id * 1000u + type.precision);
    unsigned made = 0;
    for (unsigned w = 0; w <= bits; w++)
        for (int frame = 0; frame < FRAMES; frame++) {
            if (frame == FRAME_PAST_TOP && (w < 2 || w == bits)) continue;
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
                for (size_t e = 0; e < sizeof encs / sizeof encs[0]; e++) {
                    int enc = encs[e];
                    make(&c, type, sizes[s], w, frame, enc == SEG_RLE ? 40 : 1, (w + s) % 2);
                    char what[128];
                    snprintf(what, sizeof what, "type %u, %s, width %u, frame at the %s, %u rows", type.id,
                             seg_encoding_name(enc), w, FRAME[frame], sizes[s]);
                    btree_buf out = {0};
                    encode(&c, enc, &out);
                    verify(&c, &out, enc, what);
                    btree_buf_free(&out);
                    made++;
                }
        }
    cr_assert_eq(made, 2 * 3 * ((bits + 1) * FRAMES - 3), "segments verified: %u", made);
}

Test(segment_decode, smallint) { segments_of(sql_type_make(TYPE_SMALLINT)); }
Test(segment_decode, integer) { segments_of(sql_type_make(TYPE_INTEGER)); }
Test(segment_decode, bigint) { segments_of(sql_type_make(TYPE_BIGINT)); }
Test(segment_decode, date) { segments_of(sql_type_make(TYPE_DATE)); }
Test(segment_decode, decimal) { segments_of(sql_type_decimal(18, 2)); }

/* ---- corruption ------------------------------------------------------------------------------- */

static void fix_crc(uint8_t *buf, size_t len) {
    uint32_t crc = crc32c(0, buf + 8, len - 8);
    memcpy(buf + SEGMENT_CRC_OFFSET, &crc, 4);
}

/* exercise decodes every vector of a damaged segment; returns how many vectors were found
** corrupt. A vector that decodes must agree with the point reads. */
static unsigned exercise(const icol *c, const uint8_t *buf, size_t len, vector *v, vector *one) {
    strata_err err = {0};
    segment_reader r;
    int rc = segment_open(&r, buf, len, c->type, &err);
    cr_assert(rc == STRATA_OK || rc == STRATA_CORRUPT, "open: %d %s", rc, err.msg);
    if (rc) return 0;
    unsigned caught = 0;
    for (uint32_t k = 0; k < segment_nvectors(&r); k++) {
        vec_reset(v);
        rc = segment_decode_vector(&r, k, v, &err);
        cr_assert(rc == STRATA_OK || rc == STRATA_CORRUPT, "decode: %d %s", rc, err.msg);
        if (rc) {
            cr_assert_neq(err.msg[0], 0, "a corrupt vector says why");
            caught++;
            continue;
        }
        for (uint32_t i = 0; i < segment_vector_rows(&r, k); i++) {
            vec_reset(one);
            rc = segment_get(&r, (uint64_t)k * VECTOR_SIZE + i, one, 0, &err);
            cr_assert_eq(rc, STRATA_OK, "vector %u decoded, its row %u does not: %s", k, i, err.msg);
            cr_assert_eq(vec_is_null(one, 0), vec_is_null(v, i), "vector %u row %u: NULL differs", k, i);
            if (!vec_is_null(v, i))
                cr_assert_eq(row_value(one, 0), row_value(v, i), "vector %u row %u: %lld decoded, %lld read", k, i,
                             (long long)row_value(v, i), (long long)row_value(one, 0));
        }
    }
    segment_reader_close(&r);
    return caught;
}

static void corrupt_all(const icol *c, int enc, const char *what) {
    btree_buf out = {0};
    encode(c, enc, &out);
    verify(c, &out, enc, what);
    strata_err err = {0};
    vector v, one;
    cr_assert_eq(vec_init(&v, c->type, &err), STRATA_OK);
    cr_assert_eq(vec_init(&one, c->type, &err), STRATA_OK);
    uint8_t *copy = malloc(out.len);
    unsigned caught = 0;
    for (size_t at = 8; at < out.len; at++)
        for (int how = 0; how < 3; how++) {
            memcpy(copy, out.data, out.len);
            copy[at] = how == 0 ? (uint8_t)(copy[at] ^ (1u << (at % 8))) : how == 1 ? 0xff : (uint8_t)(copy[at] + 1);
            fix_crc(copy, out.len);
            caught += exercise(c, copy, out.len, &v, &one);
        }
    cr_assert_gt(caught, 0, "%s: no damage found by decoding", what);
    free(copy);
    vec_free(&v);
    vec_free(&one);
    btree_buf_free(&out);
}

Test(segment_decode, corruption) {
    static icol c;
    struct {
        sql_type_id id;
        int enc;
        unsigned w;
        int frame;
    } cases[] = {
        {TYPE_INTEGER, SEG_FOR, 7, FRAME_ZERO},        {TYPE_INTEGER, SEG_FOR, 20, FRAME_PAST_TOP},
        {TYPE_SMALLINT, SEG_FOR, 9, FRAME_PAST_TOP},   {TYPE_SMALLINT, SEG_FOR, 16, FRAME_BOTTOM},
        {TYPE_BIGINT, SEG_FOR, 40, FRAME_ZERO},        {TYPE_DATE, SEG_FOR, 13, FRAME_TOP},
        {TYPE_SMALLINT, SEG_DICTIONARY, 6, FRAME_ZERO}, {TYPE_INTEGER, SEG_DICTIONARY, 8, FRAME_PAST_TOP},
        {TYPE_BIGINT, SEG_DICTIONARY, 5, FRAME_TOP},   {TYPE_INTEGER, SEG_RLE, 12, FRAME_PAST_TOP},
        {TYPE_BIGINT, SEG_RLE, 33, FRAME_ZERO},        {TYPE_SMALLINT, SEG_RLE, 4, FRAME_BOTTOM},
    };
    rng_seed(5);
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        make(&c, sql_type_make(cases[t].id), 150, cases[t].w, cases[t].frame, cases[t].enc == SEG_RLE ? 12 : 1, 1);
        char what[128];
        snprintf(what, sizeof what, "type %u, %s, width %u, frame at the %s", cases[t].id,
                 seg_encoding_name(cases[t].enc), cases[t].w, FRAME[cases[t].frame]);
        corrupt_all(&c, cases[t].enc, what);
    }
}
