/*
** record.c -- row records (see record.h and the format in table.h): encode a chunk row, decode a
** record's projected columns into vectors.
**
** Decoding is the hot path of every row-store scan. It walks the record once, left to right,
** skipping the columns nobody asked for and writing the others straight into the output vectors
** (no intermediate sql_value, no allocation: strings longer than SSTR_INLINE go to the vector's
** heap). Every read is bounds-checked against the record's end.
*/
#include "record.h"

#include <stdlib.h>
#include <string.h>

/* ---- varints ------------------------------------------------------------------------------ */

static inline uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t unzigzag(uint64_t u) { return (int64_t)(u >> 1) ^ -(int64_t)(u & 1); }

static inline size_t varint_put(uint8_t *p, uint64_t v) {
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_TO_LE64(x) __builtin_bswap64(x)
#else
#define HOST_TO_LE64(x) (x)
#endif

/* varint_slow is varint_get byte by byte, near the end of the record or for long varints. */
static const uint8_t *varint_slow(const uint8_t *p, const uint8_t *end, uint64_t *out) {
    uint64_t v = 0;
    for (unsigned i = 0; i < 10; i++) {
        if (p + i >= end) return NULL;
        uint8_t b = p[i];
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            if (i == 9 && b > 1) return NULL;
            *out = v;
            return p + i + 1;
        }
    }
    return NULL;
}

/* varint_get reads a varint from [p, end); returns the byte after it, NULL when it runs past end
** or is longer than ten bytes (or its tenth byte has bits beyond the 64th). Varints of up to
** eight bytes with eight bytes to read are decoded from one load, without a loop. */
static inline const uint8_t *varint_get(const uint8_t *p, const uint8_t *end, uint64_t *out) {
    if (__builtin_expect(p < end && p[0] < 0x80, 1)) {
        *out = p[0];
        return p + 1;
    }
    if (end - p >= 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        x = HOST_TO_LE64(x);
        uint64_t stops = ~x & UINT64_C(0x8080808080808080);
        if (stops != 0) {
            unsigned n = ((unsigned)__builtin_ctzll(stops) >> 3) + 1; /* bytes, 2..8 */
            if (n < 8) x &= (UINT64_C(1) << (8 * n)) - 1;
            uint64_t v = (x & 0x7f) | (x >> 1 & 0x7f << 7) | (x >> 2 & 0x7f << 14) | (x >> 3 & 0x7full << 21) |
                         (x >> 4 & 0x7full << 28) | (x >> 5 & 0x7full << 35) | (x >> 6 & 0x7full << 42) |
                         (x >> 7 & 0x7full << 49);
            *out = v;
            return p + n;
        }
    }
    return varint_slow(p, end, out);
}

/* varint_skip steps over one varint, with varint_get's checks. */
static inline const uint8_t *varint_skip(const uint8_t *p, const uint8_t *end) {
    uint64_t dummy;
    return varint_get(p, end, &dummy);
}

/* ---- plans -------------------------------------------------------------------------------- */

record_kind record_kind_of(uint8_t type_id) {
    switch (type_id) {
    case TYPE_SMALLINT: return REC_I16;
    case TYPE_INTEGER:
    case TYPE_DATE: return REC_I32;
    case TYPE_BIGINT:
    case TYPE_DECIMAL:
    case TYPE_TIMESTAMP: return REC_I64;
    case TYPE_DOUBLE: return REC_F64;
    case TYPE_VARCHAR:
    case TYPE_BLOB: return REC_STR;
    case TYPE_INTERVAL: return REC_INTERVAL;
    default: return REC_BOOL; /* BOOLEAN, and the NULL type (physically BOOLEAN) */
    }
}

int record_plan_init(record_plan *p, const table_desc *td, const uint32_t *cols, uint32_t ncols, int regions,
                     strata_err *err) {
    memset(p, 0, offsetof(record_plan, col_inline));
    p->td = td;
    p->nout = ncols;
    uint32_t nwalk = 0;
    for (uint32_t k = 0; k < ncols; k++) {
        if (cols[k] >= td->ncols)
            return err_set(err, STRATA_MISUSE, "column %u of a table of %u columns", cols[k], td->ncols);
        if (cols[k] + 1 > nwalk) nwalk = cols[k] + 1;
    }
    p->nwalk = nwalk;
    if (nwalk <= RECORD_PLAN_INLINE && ncols <= RECORD_PLAN_INLINE) {
        p->col = p->col_inline;
        p->outs = p->outs_inline;
        p->regions = p->regions_inline;
    } else {
        p->heap = malloc((size_t)ncols * sizeof(record_region) + (size_t)nwalk * sizeof(record_col) +
                         (size_t)ncols * sizeof(uint32_t) + 1);
        if (p->heap == NULL) return err_set(err, STRATA_NOMEM, "out of memory (scan of %u columns)", ncols);
        p->regions = p->heap;
        p->col = (record_col *)(p->regions + ncols);
        p->outs = (uint32_t *)(p->col + nwalk);
    }
    if (!regions) p->regions = NULL;
    record_plan_reset_regions(p);
    for (uint32_t i = 0; i < nwalk; i++) {
        p->col[i].kind = (uint8_t)record_kind_of(td->types[i].id);
        p->col[i].nout = 0;
    }
    for (uint32_t k = 0; k < ncols; k++) p->col[cols[k]].nout++;
    uint32_t at = 0;
    for (uint32_t i = 0; i < nwalk; i++) {
        p->col[i].out0 = at;
        at += p->col[i].nout;
        p->col[i].nout = 0;
    }
    for (uint32_t k = 0; k < ncols; k++) {
        record_col *c = &p->col[cols[k]];
        p->outs[c->out0 + c->nout++] = k;
    }
    p->single = 1;
    for (uint32_t i = 0; i < nwalk; i++) p->single &= p->col[i].nout <= 1;
    return STRATA_OK;
}

void record_plan_reset_regions(record_plan *p) {
    if (p->regions != NULL) memset(p->regions, 0, (size_t)p->nout * sizeof(record_region));
}

void record_plan_free(record_plan *p) {
    free(p->heap);
    p->heap = NULL;
}

/* ---- decoding ----------------------------------------------------------------------------- */

/* The size of a string region (record_region); strings longer than a quarter of it are copied
** with vec_set_str instead, so at most a quarter is lost at a region's end. */
#define RECORD_REGION 16384

static inline void set_valid(vector *v, uint32_t r) {
    if (v->validity != NULL) v->validity[r >> 6] |= (uint64_t)1 << (r & 63);
}

/* set_null writes a zero value (so kernels that read every slot see defined bytes) and clears
** the validity bit. */
static void set_null(vector *v, uint32_t r) {
    memset((uint8_t *)v->data + (size_t)r * v->width, 0, v->width);
    vec_set_null(v, r, 1);
}

int record_set_value(vector *v, uint32_t r, const sql_value *val, strata_err *err) {
    if (val == NULL || val->is_null) {
        set_null(v, r);
        return STRATA_OK;
    }
    switch (v->phys) {
    case PHYS_BOOL: VEC_DATA(v, uint8_t)[r] = (uint8_t)(val->v.i != 0); break;
    case PHYS_I16: VEC_DATA(v, int16_t)[r] = (int16_t)val->v.i; break;
    case PHYS_I32: VEC_DATA(v, int32_t)[r] = (int32_t)val->v.i; break;
    case PHYS_I64: VEC_DATA(v, int64_t)[r] = val->v.i; break;
    case PHYS_F64: VEC_DATA(v, double)[r] = val->v.d; break;
    case PHYS_INTERVAL: VEC_DATA(v, sql_interval)[r] = val->v.iv; break;
    case PHYS_STR: {
        int rc = vec_set_str(v, r, sstr_data(&val->v.s), val->v.s.len, err);
        if (rc) return rc;
        break;
    }
    }
    set_valid(v, r);
    return STRATA_OK;
}

/* decode_value decodes one non-NULL value of kind at p into row r of v. Returns the byte after
** it, or NULL with *rc set (STRATA_CORRUPT with *why, or vec_set_str's error). */
static inline __attribute__((always_inline)) const uint8_t *decode_value(int kind, const uint8_t *p, const uint8_t *end, vector *v, uint32_t r,
                                          record_region *rg, int *rc, const char **why, strata_err *err) {
    uint64_t u;
    int64_t x;
    switch (kind) {
    case REC_I64:
        if (!(p = varint_get(p, end, &u))) goto bad_varint;
        VEC_DATA(v, int64_t)[r] = unzigzag(u);
        break;
    case REC_I32:
        if (!(p = varint_get(p, end, &u))) goto bad_varint;
        x = unzigzag(u);
        if (x < INT32_MIN || x > INT32_MAX) goto bad_range;
        VEC_DATA(v, int32_t)[r] = (int32_t)x;
        break;
    case REC_I16:
        if (!(p = varint_get(p, end, &u))) goto bad_varint;
        x = unzigzag(u);
        if (x < INT16_MIN || x > INT16_MAX) goto bad_range;
        VEC_DATA(v, int16_t)[r] = (int16_t)x;
        break;
    case REC_STR: {
        if (!(p = varint_get(p, end, &u))) goto bad_varint;
        if (u > (uint64_t)(end - p)) {
            *why = "a string runs past the end of the record";
            goto fail;
        }
        sstr *s = &VEC_DATA(v, sstr)[r];
        if (u <= SSTR_INLINE) {
            memset(s, 0, sizeof *s);
            s->len = (uint32_t)u;
            memcpy(s->u.inl, p, (size_t)u);
        } else if (rg != NULL && u <= RECORD_REGION / 4) {
            if ((size_t)(rg->end - rg->p) < u) {
                if ((rg->p = arena_alloc(&v->heap, RECORD_REGION)) == NULL) {
                    rg->end = NULL;
                    *rc = err_set(err, STRATA_NOMEM, "out of memory storing strings");
                    return NULL;
                }
                rg->end = rg->p + RECORD_REGION;
            }
            memcpy(rg->p, p, (size_t)u);
            s->len = (uint32_t)u;
            memcpy(s->u.ext.prefix, p, 4);
            s->u.ext.ptr = rg->p;
            rg->p += u;
        } else if ((*rc = vec_set_str(v, r, p, (size_t)u, err)) != STRATA_OK) {
            return NULL;
        }
        p += u;
        break;
    }
    case REC_F64:
        if (end - p < 8) {
            *why = "a DOUBLE runs past the end of the record";
            goto fail;
        }
        memcpy(&u, p, 8);
        u = HOST_TO_LE64(u);
        memcpy(&VEC_DATA(v, double)[r], &u, 8);
        p += 8;
        break;
    case REC_BOOL:
        if (p >= end) {
            *why = "a BOOLEAN runs past the end of the record";
            goto fail;
        }
        if (*p > 1) {
            *why = "a BOOLEAN is neither 0 nor 1";
            goto fail;
        }
        VEC_DATA(v, uint8_t)[r] = *p++;
        break;
    case REC_INTERVAL: {
        uint64_t m, d, us;
        if (!(p = varint_get(p, end, &m)) || !(p = varint_get(p, end, &d)) || !(p = varint_get(p, end, &us)))
            goto bad_varint;
        int64_t mi = unzigzag(m), di = unzigzag(d);
        if (mi < INT32_MIN || mi > INT32_MAX || di < INT32_MIN || di > INT32_MAX) goto bad_range;
        sql_interval *iv = &VEC_DATA(v, sql_interval)[r];
        iv->months = (int32_t)mi;
        iv->days = (int32_t)di;
        iv->micros = unzigzag(us);
        break;
    }
    }
    set_valid(v, r);
    return p;
bad_varint:
    *why = "a varint is truncated or too long";
    goto fail;
bad_range:
    *why = "a value is out of its column type's range";
fail:
    *rc = STRATA_CORRUPT;
    return NULL;
}

/* skip_value steps over one non-NULL value of kind. NULL when it does not parse. */
static inline __attribute__((always_inline)) const uint8_t *skip_value(int kind, const uint8_t *p, const uint8_t *end) {
    uint64_t u;
    switch (kind) {
    case REC_I16:
    case REC_I32:
    case REC_I64: return varint_skip(p, end);
    case REC_STR:
        if (!(p = varint_get(p, end, &u)) || u > (uint64_t)(end - p)) return NULL;
        return p + u;
    case REC_F64: return end - p < 8 ? NULL : p + 8;
    case REC_BOOL: return p < end ? p + 1 : NULL;
    case REC_INTERVAL:
        if (!(p = varint_skip(p, end)) || !(p = varint_skip(p, end))) return NULL;
        return varint_skip(p, end);
    }
    return NULL;
}

/* no_nulls says whether the first n bits of a NULL bitmap are all clear. */
static inline int no_nulls(const uint8_t *nulls, uint32_t n) {
    for (; n >= 8; n -= 8)
        if (*nulls++) return 0;
    return n == 0 || (*nulls & ((1u << n) - 1)) == 0;
}

int record_decode(record_plan *p, const uint8_t *rec, size_t len, data_chunk *out, uint32_t r,
                  const char **why, strata_err *err) {
    const uint8_t *q = rec, *end = rec + len;
    uint64_t nstored;
    int rc = STRATA_CORRUPT;
    if (!(q = varint_get(q, end, &nstored))) {
        *why = "the column count is truncated or too long";
        return STRATA_CORRUPT;
    }
    if (nstored > p->td->ncols) {
        *why = "it stores more columns than the table has";
        return STRATA_CORRUPT;
    }
    const uint8_t *nulls = q;
    size_t nbytes = (size_t)(nstored + 7) / 8;
    if ((size_t)(end - q) < nbytes) {
        *why = "the NULL bitmap is truncated";
        return STRATA_CORRUPT;
    }
    q += nbytes;
    uint32_t walk = nstored < p->nwalk ? (uint32_t)nstored : p->nwalk;
    /* The common record: no NULL among the columns walked, each read into at most one output. */
    if (walk == p->nwalk && p->single && no_nulls(nulls, walk)) {
        for (uint32_t i = 0; i < walk; i++) {
            const record_col *c = &p->col[i];
            if (c->nout == 0) {
                if (!(q = skip_value(c->kind, q, end))) {
                    *why = "a value is truncated or malformed";
                    return STRATA_CORRUPT;
                }
                continue;
            }
            uint32_t o = p->outs[c->out0];
            if (!(q = decode_value(c->kind, q, end, &out->cols[o], r, p->regions ? &p->regions[o] : NULL, &rc, why,
                                   err)))
                return rc;
        }
        return STRATA_OK;
    }
    for (uint32_t i = 0; i < walk; i++) {
        const record_col *c = &p->col[i];
        int is_null = (nulls[i >> 3] >> (i & 7)) & 1;
        if (c->nout == 0) {
            if (!is_null && !(q = skip_value(c->kind, q, end))) {
                *why = "a value is truncated or malformed";
                return STRATA_CORRUPT;
            }
            continue;
        }
        const uint32_t *o = p->outs + c->out0;
        if (is_null) {
            for (uint32_t j = 0; j < c->nout; j++) set_null(&out->cols[o[j]], r);
            continue;
        }
        const uint8_t *next = NULL;
        for (uint32_t j = 0; j < c->nout; j++)
            if (!(next = decode_value(c->kind, q, end, &out->cols[o[j]], r, p->regions ? &p->regions[o[j]] : NULL,
                                      &rc, why, err)))
                return rc;
        q = next;
    }
    /* Columns added after this record was written read as their defaults. */
    for (uint32_t i = walk; i < p->nwalk; i++) {
        const record_col *c = &p->col[i];
        const sql_value *dflt = p->td->defaults ? &p->td->defaults[i] : NULL;
        for (uint32_t j = 0; j < c->nout; j++)
            if ((rc = record_set_value(&out->cols[p->outs[c->out0 + j]], r, dflt, err)) != STRATA_OK) return rc;
    }
    return STRATA_OK;
}

/* ---- encoding ----------------------------------------------------------------------------- */

int record_buf_reserve(btree_buf *buf, size_t n, strata_err *err) {
    if (buf->cap - buf->len >= n) return STRATA_OK;
    size_t want = buf->len + n;
    if (want < buf->len) return err_set(err, STRATA_NOMEM, "out of memory (record of %zu bytes)", n);
    size_t cap = buf->cap ? buf->cap : 256;
    while (cap < want) cap = cap * 2 > cap ? cap * 2 : want;
    uint8_t *d = realloc(buf->data, cap);
    if (d == NULL) return err_set(err, STRATA_NOMEM, "out of memory (record of %zu bytes)", want);
    buf->data = d;
    buf->cap = cap;
    return STRATA_OK;
}

/* The most bytes a non-string value takes: an INTERVAL's three varints. */
#define RECORD_MAX_FIXED 30

size_t record_max_size(const table_desc *td, const vector *cols, uint32_t row) {
    size_t need = 10 + (td->ncols + 7) / 8;
    for (uint32_t i = 0; i < td->ncols; i++) {
        const vector *v = &cols[i];
        need += RECORD_MAX_FIXED;
        if (v->phys == PHYS_STR) need += VEC_DATA(v, sstr)[v->sel[row]].len;
    }
    return need;
}

size_t record_encode_into(uint8_t *dst, const table_desc *td, const vector *cols, uint32_t row) {
    uint32_t n = td->ncols;
    size_t nbytes = (n + 7) / 8;
    uint8_t *p = dst + varint_put(dst, n), *nulls = p;
    memset(nulls, 0, nbytes);
    p += nbytes;
    for (uint32_t i = 0; i < n; i++) {
        const vector *v = &cols[i];
        uint32_t idx = v->sel[row];
        if (v->validity != NULL && !((v->validity[idx >> 6] >> (idx & 63)) & 1)) {
            nulls[i >> 3] |= (uint8_t)(1u << (i & 7));
            continue;
        }
        switch (v->phys) {
        case PHYS_BOOL: *p++ = VEC_DATA(v, uint8_t)[idx] != 0; break;
        case PHYS_I16: p += varint_put(p, zigzag(VEC_DATA(v, int16_t)[idx])); break;
        case PHYS_I32: p += varint_put(p, zigzag(VEC_DATA(v, int32_t)[idx])); break;
        case PHYS_I64: p += varint_put(p, zigzag(VEC_DATA(v, int64_t)[idx])); break;
        case PHYS_F64: {
            uint64_t bits;
            memcpy(&bits, &VEC_DATA(v, double)[idx], 8);
            bits = HOST_TO_LE64(bits);
            memcpy(p, &bits, 8);
            p += 8;
            break;
        }
        case PHYS_STR: {
            const sstr *s = &VEC_DATA(v, sstr)[idx];
            p += varint_put(p, s->len);
            if (s->len) memcpy(p, sstr_data(s), s->len);
            p += s->len;
            break;
        }
        case PHYS_INTERVAL: {
            const sql_interval *iv = &VEC_DATA(v, sql_interval)[idx];
            p += varint_put(p, zigzag(iv->months));
            p += varint_put(p, zigzag(iv->days));
            p += varint_put(p, zigzag(iv->micros));
            break;
        }
        }
    }
    return (size_t)(p - dst);
}

