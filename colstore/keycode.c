/*
** keycode.c -- order-preserving byte encodings of rowids and of index key values (table.h).
**
** Every encoded value starts with a tag byte, KEY_TAG_VALUE or KEY_TAG_NULL (greater, so a NULL
** sorts after every value), followed for a value by:
**   BOOLEAN                      1 byte, 0 or 1
**   SMALLINT, INTEGER, BIGINT,
**   DECIMAL, DATE, TIMESTAMP     8 bytes: the int64 big-endian with its sign bit flipped
**   DOUBLE                       8 bytes: the IEEE bits big-endian, all bits flipped for a
**                                negative number, only the sign bit otherwise; -0 is written as 0
**                                and every NaN as the one positive quiet NaN, above +Infinity
**   VARCHAR, BLOB                the bytes with 0x00 written as 0x00 0xFF, then 0x00 0x00: the
**                                terminator sorts below every byte a longer string can continue
**                                with, so a prefix sorts first and the next value of a key starts
**                                at the same place in both keys being compared
**   INTERVAL                     16 bytes: interval_span() (a month as 30 days) as a big-endian
**                                int128 with its sign bit flipped, so '1 mon' and '30 days' give
**                                equal keys, as value_compare calls them equal
** Every encoding is self-delimiting, so the memcmp order of concatenated encodings is the
** lexicographic order of the value tuples.
*/
#include "table.h"

#include <stdlib.h>
#include <string.h>

#include "record.h"

#define KEY_TAG_VALUE 0x01
#define KEY_TAG_NULL 0x02

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_TO_BE64(x) (x)
#else
#define HOST_TO_BE64(x) __builtin_bswap64(x)
#endif

static inline void put_be64(uint8_t *p, uint64_t v) {
    v = HOST_TO_BE64(v);
    memcpy(p, &v, 8);
}

static inline uint64_t get_be64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return HOST_TO_BE64(v);
}

void rowid_encode(int64_t rowid, uint8_t out[ROWID_KEY_LEN]) { put_be64(out, (uint64_t)rowid ^ (UINT64_C(1) << 63)); }

int64_t rowid_decode(const uint8_t in[ROWID_KEY_LEN]) { return (int64_t)(get_be64(in) ^ (UINT64_C(1) << 63)); }

static inline uint64_t double_key(double d) {
    uint64_t bits;
    if (d != d)
        bits = UINT64_C(0x7ff8000000000000);
    else {
        if (d == 0) d = 0.0; /* -0 */
        memcpy(&bits, &d, 8);
    }
    return bits >> 63 ? ~bits : bits | (UINT64_C(1) << 63);
}

/* The longest fixed-size encoding: tag and an INTERVAL's 16 bytes. */
#define KEY_MAX_FIXED 17

static void put_int(uint8_t *p, int64_t v) {
    p[0] = KEY_TAG_VALUE;
    put_be64(p + 1, (uint64_t)v ^ (UINT64_C(1) << 63));
}

/* put_string appends a string's encoding; the caller reserved 1 + 2 * len + 2 bytes. */
static size_t put_string(uint8_t *out, const uint8_t *s, size_t len) {
    uint8_t *p = out;
    const uint8_t *end = s + len;
    *p++ = KEY_TAG_VALUE;
    while (s < end) {
        const uint8_t *z = memchr(s, 0, (size_t)(end - s));
        size_t run = z ? (size_t)(z - s) : (size_t)(end - s);
        memcpy(p, s, run);
        p += run;
        s += run;
        if (z) {
            *p++ = 0x00;
            *p++ = 0xFF;
            s++;
        }
    }
    *p++ = 0x00;
    *p++ = 0x00;
    return (size_t)(p - out);
}

static size_t put_interval(uint8_t *p, sql_interval iv) {
    int128 span = interval_span(iv);
    unsigned __int128 u = (unsigned __int128)span ^ ((unsigned __int128)1 << 127);
    p[0] = KEY_TAG_VALUE;
    put_be64(p + 1, (uint64_t)(u >> 64));
    put_be64(p + 9, (uint64_t)u);
    return 17;
}

int key_encode(btree_buf *buf, const sql_value *v, strata_err *err) {
    size_t need = KEY_MAX_FIXED;
    int is_str = v->type.id == TYPE_VARCHAR || v->type.id == TYPE_BLOB;
    if (!v->is_null && is_str) need = 3 + 2 * (size_t)v->v.s.len;
    int rc = record_buf_reserve(buf, need, err);
    if (rc) return rc;
    uint8_t *p = buf->data + buf->len;
    if (v->is_null || v->type.id == TYPE_NULL) {
        *p = KEY_TAG_NULL;
        buf->len += 1;
        return STRATA_OK;
    }
    switch (v->type.id) {
    case TYPE_BOOLEAN:
        p[0] = KEY_TAG_VALUE;
        p[1] = v->v.i != 0;
        buf->len += 2;
        break;
    case TYPE_SMALLINT:
    case TYPE_INTEGER:
    case TYPE_BIGINT:
    case TYPE_DECIMAL:
    case TYPE_DATE:
    case TYPE_TIMESTAMP:
        put_int(p, v->v.i);
        buf->len += 9;
        break;
    case TYPE_DOUBLE:
        p[0] = KEY_TAG_VALUE;
        put_be64(p + 1, double_key(v->v.d));
        buf->len += 9;
        break;
    case TYPE_VARCHAR:
    case TYPE_BLOB: buf->len += put_string(p, (const uint8_t *)sstr_data(&v->v.s), v->v.s.len); break;
    case TYPE_INTERVAL: buf->len += put_interval(p, v->v.iv); break;
    default: return err_set(err, STRATA_MISUSE, "key_encode: unknown type id %u", v->type.id);
    }
    return STRATA_OK;
}

int key_encode_row(btree_buf *buf, const vector *cols, uint32_t ncols, uint32_t r, strata_err *err) {
    for (uint32_t c = 0; c < ncols; c++) {
        const vector *v = &cols[c];
        uint32_t idx = v->sel[r];
        int is_null = v->validity != NULL && !((v->validity[idx >> 6] >> (idx & 63)) & 1);
        size_t need = KEY_MAX_FIXED;
        if (!is_null && v->phys == PHYS_STR) need = 3 + 2 * (size_t)VEC_DATA(v, sstr)[idx].len;
        int rc = record_buf_reserve(buf, need, err);
        if (rc) return rc;
        uint8_t *p = buf->data + buf->len;
        if (is_null || v->type.id == TYPE_NULL) {
            *p = KEY_TAG_NULL;
            buf->len += 1;
            continue;
        }
        switch (v->phys) {
        case PHYS_BOOL:
            p[0] = KEY_TAG_VALUE;
            p[1] = VEC_DATA(v, uint8_t)[idx] != 0;
            buf->len += 2;
            break;
        case PHYS_I16:
            put_int(p, VEC_DATA(v, int16_t)[idx]);
            buf->len += 9;
            break;
        case PHYS_I32:
            put_int(p, VEC_DATA(v, int32_t)[idx]);
            buf->len += 9;
            break;
        case PHYS_I64:
            put_int(p, VEC_DATA(v, int64_t)[idx]);
            buf->len += 9;
            break;
        case PHYS_F64:
            p[0] = KEY_TAG_VALUE;
            put_be64(p + 1, double_key(VEC_DATA(v, double)[idx]));
            buf->len += 9;
            break;
        case PHYS_STR: {
            const sstr *s = &VEC_DATA(v, sstr)[idx];
            buf->len += put_string(p, (const uint8_t *)sstr_data(s), s->len);
            break;
        }
        case PHYS_INTERVAL: buf->len += put_interval(p, VEC_DATA(v, sql_interval)[idx]); break;
        default: return err_set(err, STRATA_MISUSE, "key_encode_row: unknown physical type %u", v->phys);
        }
    }
    return STRATA_OK;
}

/* ---- decoding ----------------------------------------------------------------------------- */

int key_decode(const uint8_t *p, const uint8_t *end, vector *v, uint32_t r, const uint8_t **next, strata_err *err) {
    if (p >= end) goto bad;
    if (*p == KEY_TAG_NULL) {
        vec_set_null(v, r, 1);
        *next = p + 1;
        return STRATA_OK;
    }
    if (*p++ != KEY_TAG_VALUE) goto bad;
    switch ((vec_phys)v->phys) {
    case PHYS_BOOL:
        if (end - p < 1) goto bad;
        VEC_DATA(v, uint8_t)[r] = *p != 0;
        *next = p + 1;
        return STRATA_OK;
    case PHYS_I16:
    case PHYS_I32:
    case PHYS_I64: {
        if (end - p < 8) goto bad;
        int64_t x = (int64_t)(get_be64(p) ^ (UINT64_C(1) << 63));
        if (v->phys == PHYS_I16) VEC_DATA(v, int16_t)[r] = (int16_t)x;
        else if (v->phys == PHYS_I32) VEC_DATA(v, int32_t)[r] = (int32_t)x;
        else VEC_DATA(v, int64_t)[r] = x;
        *next = p + 8;
        return STRATA_OK;
    }
    case PHYS_F64: {
        if (end - p < 8) goto bad;
        uint64_t bits = get_be64(p);
        bits = bits >> 63 ? bits & ~(UINT64_C(1) << 63) : ~bits; /* double_key undone */
        memcpy(&VEC_DATA(v, double)[r], &bits, 8);
        *next = p + 8;
        return STRATA_OK;
    }
    case PHYS_STR: { /* 0x00 0xFF is a 0x00 byte, 0x00 0x00 the end */
        size_t n = 0;
        const uint8_t *q = p;
        for (;; q++) {
            if (q + 1 >= end) goto bad;
            if (q[0] == 0x00) {
                if (q[1] == 0x00) break;
                if (q[1] != 0xFF) goto bad;
                q++;
            }
            n++;
        }
        uint8_t small[64], *buf = n <= sizeof small ? small : malloc(n ? n : 1);
        if (!buf) return err_set(err, STRATA_NOMEM, "out of memory decoding an index key");
        size_t k = 0;
        for (q = p; !(q[0] == 0x00 && q[1] == 0x00); q++) {
            buf[k++] = q[0];
            if (q[0] == 0x00) q++;
        }
        int rc = vec_set_str(v, r, buf, n, err);
        if (buf != small) free(buf);
        *next = q + 2;
        return rc;
    }
    case PHYS_INTERVAL: break; /* keyed by its length only: not decodable */
    }
bad:
    return err_set(err, STRATA_CORRUPT, "an index key does not decode as type %s", sql_type_name(v->type.id));
}
