/*
** vector.c -- vectors and selection vectors: allocation, NULLs, strings, and the zero-copy
** (reference, slice) and copying (flatten, copy) moves between vectors.
**
** What it is. Each vector allocates one 64-byte aligned block at init -- data for VECTOR_SIZE
** values, then the validity bitmap, then a selection -- and never reallocates it, so a chunk's
** memory is fixed after chunk_init and a pipeline runs without malloc. Only strings longer than
** SSTR_INLINE bytes take memory as data flows, from the vector's arena, which vec_reset empties.
** Every kind is read through v->sel (see vector.h), so the static identity and zero selections
** below stand in for FLAT and CONSTANT vectors and no kernel needs a case per kind to be correct;
** kinds only select fast paths.
**
** What it is not: no arithmetic, comparison or aggregation kernels (issue 7), no hashing
** (hash.c), no chunks (chunk.c).
*/
#include "vector_internal.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The identity selection 0..VECTOR_SIZE-1, built at compile time by doubling. */
#define SEQ1(n) (n)
#define SEQ2(n) SEQ1(n), SEQ1((n) + 1)
#define SEQ4(n) SEQ2(n), SEQ2((n) + 2)
#define SEQ8(n) SEQ4(n), SEQ4((n) + 4)
#define SEQ16(n) SEQ8(n), SEQ8((n) + 8)
#define SEQ32(n) SEQ16(n), SEQ16((n) + 16)
#define SEQ64(n) SEQ32(n), SEQ32((n) + 32)
#define SEQ128(n) SEQ64(n), SEQ64((n) + 64)
#define SEQ256(n) SEQ128(n), SEQ128((n) + 128)
#define SEQ512(n) SEQ256(n), SEQ256((n) + 256)
#define SEQ1024(n) SEQ512(n), SEQ512((n) + 512)
#define SEQ2048(n) SEQ1024(n), SEQ1024((n) + 1024)
#if VECTOR_SIZE != 2048
#error "the identity selection below is written for VECTOR_SIZE 2048"
#endif
static const sel_t identity_sel[VECTOR_SIZE] = {SEQ2048(0)};
_Static_assert(sizeof(sstr) <= VECTOR_MAX_WIDTH && sizeof(sql_interval) <= VECTOR_MAX_WIDTH,
               "VECTOR_MAX_WIDTH must hold every physical type");
const sel_t vec_zero_sel[VECTOR_SIZE] = {0};

void *vec_alloc(size_t n) {
    size_t rounded = (n + VECTOR_ALIGN - 1) & ~(size_t)(VECTOR_ALIGN - 1);
    return rounded < n ? NULL : aligned_alloc(VECTOR_ALIGN, rounded);
}

/* ---- the block cache -----------------------------------------------------------------------
** A statement opens dozens of vectors and chunks per run (every operator's), and a prepared
** statement that runs a million times would otherwise malloc and free their blocks a million
** times: large blocks, whose frees make glibc consolidate its free lists. Freed blocks of the few
** sizes vectors and chunks use wait here for the next request of the same size, up to
** CACHE_BYTES in all. */

#define CACHE_BYTES (8u << 20)
#define CACHE_CLASSES 16

typedef struct cached_block {
    struct cached_block *next;
} cached_block;

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static size_t cache_size[CACHE_CLASSES]; /* block size of each class (0: unused) */
static cached_block *cache_head[CACHE_CLASSES];
static size_t cache_bytes;

/* class_of finds (or, when add, makes) the class of blocks of n bytes; -1 when none. */
static int class_of(size_t n, int add) {
    for (int i = 0; i < CACHE_CLASSES; i++) {
        if (cache_size[i] == n) return i;
        if (cache_size[i] == 0) {
            if (!add) return -1;
            cache_size[i] = n;
            return i;
        }
    }
    return -1;
}

void *vec_scratch_alloc(size_t n) {
    n = (n + VECTOR_ALIGN - 1) & ~(size_t)(VECTOR_ALIGN - 1);
    pthread_mutex_lock(&cache_mu);
    int c = class_of(n, 0);
    cached_block *b = c >= 0 ? cache_head[c] : NULL;
    if (b) {
        cache_head[c] = b->next;
        cache_bytes -= n;
    }
    pthread_mutex_unlock(&cache_mu);
    return b ? (void *)b : vec_alloc(n);
}

void vec_scratch_free(void *p, size_t n) {
    if (!p) return;
    n = (n + VECTOR_ALIGN - 1) & ~(size_t)(VECTOR_ALIGN - 1);
    pthread_mutex_lock(&cache_mu);
    int c = class_of(n, 1);
    if (c >= 0 && cache_bytes + n <= CACHE_BYTES) {
        cached_block *b = p;
        b->next = cache_head[c];
        cache_head[c] = b;
        cache_bytes += n;
        p = NULL;
    }
    pthread_mutex_unlock(&cache_mu);
    free(p);
}

void vec_cache_release(void) {
    pthread_mutex_lock(&cache_mu);
    for (int c = 0; c < CACHE_CLASSES; c++)
        while (cache_head[c]) {
            cached_block *b = cache_head[c];
            cache_head[c] = b->next;
            cache_bytes -= cache_size[c];
            free(b);
        }
    pthread_mutex_unlock(&cache_mu);
}

static size_t block_bytes(unsigned width) {
    return (size_t)VECTOR_SIZE * width + VALIDITY_WORDS * sizeof(uint64_t) + VECTOR_SIZE * sizeof(sel_t);
}

/* ---- selection vectors --------------------------------------------------------------------- */

int sel_init(sel_vec *s, strata_err *err) {
    s->count = 0;
    s->idx = vec_alloc(VECTOR_SIZE * sizeof(sel_t));
    if (s->idx == NULL) return err_set(err, STRATA_NOMEM, "out of memory allocating a selection vector");
    return STRATA_OK;
}

void sel_free(sel_vec *s) {
    free(s->idx);
    s->idx = NULL;
    s->count = 0;
}

void sel_set_identity(sel_vec *s, uint32_t n) {
    assert(n <= VECTOR_SIZE);
    memcpy(s->idx, identity_sel, n * sizeof(sel_t));
    s->count = n;
}

const sel_t *sel_identity(void) { return identity_sel; }

void sel_compose(sel_t *out, const sel_t *base, const sel_t *sel, uint32_t n) {
    if (base == NULL) {
        if (out != sel) memmove(out, sel, n * sizeof(sel_t));
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        out[i] = base[sel[i]];
}

/* ---- physical types ------------------------------------------------------------------------ */

vec_phys vec_phys_of(sql_type_id id) {
    switch (id) {
    case TYPE_NULL:
    case TYPE_BOOLEAN: return PHYS_BOOL;
    case TYPE_SMALLINT: return PHYS_I16;
    case TYPE_INTEGER:
    case TYPE_DATE: return PHYS_I32;
    case TYPE_BIGINT:
    case TYPE_DECIMAL:
    case TYPE_TIMESTAMP: return PHYS_I64;
    case TYPE_DOUBLE: return PHYS_F64;
    case TYPE_VARCHAR:
    case TYPE_BLOB: return PHYS_STR;
    case TYPE_INTERVAL:
    default: return PHYS_INTERVAL;
    }
}

unsigned vec_phys_width(vec_phys p) {
    static const unsigned char width[] = {[PHYS_BOOL] = 1,
                                          [PHYS_I16] = 2,
                                          [PHYS_I32] = 4,
                                          [PHYS_I64] = 8,
                                          [PHYS_F64] = 8,
                                          [PHYS_STR] = sizeof(sstr),
                                          [PHYS_INTERVAL] = sizeof(sql_interval)};
    return width[p];
}

/* ---- vectors ------------------------------------------------------------------------------- */

static int writable(const vector *v) { return v->data == v->own_data && v->kind != VEC_DICTIONARY; }

int vec_init(vector *v, sql_type type, strata_err *err) {
    memset(v, 0, sizeof *v);
    v->sel = identity_sel;
    if (type.id >= TYPE_COUNT) return err_set(err, STRATA_MISUSE, "vector of unknown type id %u", type.id);
    v->type = type;
    v->phys = (uint8_t)vec_phys_of((sql_type_id)type.id);
    v->width = (uint8_t)vec_phys_width((vec_phys)v->phys);
    size_t data_bytes = (size_t)VECTOR_SIZE * v->width; /* a multiple of VECTOR_ALIGN */
    size_t validity_bytes = VALIDITY_WORDS * sizeof(uint64_t);
    size_t total = block_bytes(v->width);
    unsigned char *block = vec_scratch_alloc(block_bytes(v->width));
    if (block == NULL)
        return err_set(err, STRATA_NOMEM, "out of memory allocating a vector (%zu bytes)", total);
    /* Not zeroed: that cost a memset of up to 48 KiB per vector, and a statement opens dozens of
    ** vectors per run. A NULL's slot is zeroed when it is set (vec_set_null), so it reads as 0 or
    ** the empty string; rows beyond a vector's count are never read. */
    v->own_data = block;
    v->own_validity = (uint64_t *)(block + data_bytes);
    v->own_sel = (sel_t *)(block + data_bytes + validity_bytes);
    arena_init(&v->heap, 4096); /* grows as strings come (arena.c) */
    vec_reset(v);
    return STRATA_OK;
}

void vec_free(vector *v) {
    vec_scratch_free(v->own_data, block_bytes(v->width));
    arena_free(&v->heap);
    v->own_data = v->data = NULL;
    v->own_validity = v->validity = NULL;
    v->own_sel = NULL;
}

void vec_reset(vector *v) {
    v->kind = VEC_FLAT;
    v->dict_id = 0;
    v->data = v->own_data;
    v->sel = identity_sel;
    v->validity = NULL;
    if (v->type.id == TYPE_NULL && v->own_validity != NULL) {
        /* the values of the NULL type are all NULL */
        memset(v->own_validity, 0, VALIDITY_WORDS * sizeof(uint64_t));
        v->validity = v->own_validity;
    }
    arena_reset(&v->heap);
}

void vec_set_null(vector *v, uint32_t r, int is_null) {
    assert(writable(v) && r < VECTOR_SIZE && (v->kind == VEC_FLAT || r == 0));
    if (v->validity == NULL) {
        if (!is_null) return;
        v->validity = v->own_validity;
        memset(v->validity, 0xff, VALIDITY_WORDS * sizeof(uint64_t));
    }
    if (is_null) {
        bit_clear(v->validity, r);
        memset((unsigned char *)v->data + (size_t)r * v->width, 0, v->width);
    } else {
        bit_set(v->validity, r);
    }
}

int vec_set_str(vector *v, uint32_t r, const void *bytes, size_t len, strata_err *err) {
    assert(writable(v) && v->phys == PHYS_STR && r < VECTOR_SIZE);
    if (len > UINT32_MAX)
        return err_set(err, STRATA_TOOBIG, "a string of %zu bytes exceeds the 4 GiB limit", len);
    if (len > SSTR_INLINE) {
        char *copy = arena_alloc(&v->heap, len);
        if (copy == NULL)
            return err_set(err, STRATA_NOMEM, "out of memory storing a string of %zu bytes", len);
        memcpy(copy, bytes, len);
        bytes = copy;
    }
    VEC_DATA(v, sstr)[r] = sstr_make(bytes, (uint32_t)len);
    return STRATA_OK;
}

void vec_make_constant(vector *v) {
    assert(writable(v));
    v->kind = VEC_CONSTANT;
    v->sel = vec_zero_sel;
    v->dict_id = 0;
}

void vec_reference(vector *dst, const vector *src) {
    assert(dst->phys == src->phys);
    if (dst == src) return;
    dst->kind = src->kind;
    dst->data = src->data;
    dst->validity = src->validity;
    dst->sel = src->sel;
    dst->dict_id = src->dict_id;
    dst->dict_size = src->dict_size;
}

void vec_slice(vector *dst, const vector *src, const sel_t *sel, uint32_t count) {
    assert(dst->phys == src->phys && count <= VECTOR_SIZE);
    if (sel == NULL || src->kind == VEC_CONSTANT) {
        vec_reference(dst, src);
        return;
    }
    const sel_t *base = src->kind == VEC_DICTIONARY ? src->sel : NULL;
    if (base == dst->own_sel) { /* slicing a dictionary in place: compose out of place */
        sel_t tmp[VECTOR_SIZE];
        sel_compose(tmp, base, sel, count);
        memcpy(dst->own_sel, tmp, count * sizeof(sel_t));
    } else {
        sel_compose(dst->own_sel, base, sel, count);
    }
    dst->kind = VEC_DICTIONARY;
    dst->data = src->data;
    dst->validity = src->validity;
    dst->sel = dst->own_sel;
    dst->dict_id = src->dict_id; /* the same dictionary, other rows of it */
    dst->dict_size = src->dict_size;
}

/* gather copies n values of width bytes: dst[i] = src[index(i)], where index(i) is
** vsel[sel ? sel[i] : i]. One loop per width, so each compiles to plain loads and stores. */
#define GATHER_LOOP(W)                                                                                       \
    do {                                                                                                     \
        if (sel != NULL)                                                                                     \
            for (uint32_t i = 0; i < n; i++)                                                                 \
                memcpy(d + (size_t)i * W, s + (size_t)vsel[sel[i]] * W, W);                                  \
        else                                                                                                 \
            for (uint32_t i = 0; i < n; i++)                                                                 \
                memcpy(d + (size_t)i * W, s + (size_t)vsel[i] * W, W);                                       \
    } while (0)
static void gather(void *dst, const void *src, const sel_t *vsel, const sel_t *sel, uint32_t n,
                   unsigned width) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    switch (width) {
    case 1: GATHER_LOOP(1); break;
    case 2: GATHER_LOOP(2); break;
    case 4: GATHER_LOOP(4); break;
    case 8: GATHER_LOOP(8); break;
    case 16: GATHER_LOOP(16); break;
    default: GATHER_LOOP(sizeof(sstr)); break;
    }
}

/* gather_via_copy gathers data[sel[i]] into data[i] for i < n when some sel[i] < i, so that a
** forward pass would read values it already overwrote: through a copy on the stack (at most
** VECTOR_SIZE * VECTOR_MAX_WIDTH = 48 KiB, only in this rare case, hence a function of its own). */
static __attribute__((noinline)) void gather_via_copy(void *data, const sel_t *sel, uint32_t n,
                                                      unsigned width) {
    _Alignas(VECTOR_ALIGN) unsigned char tmp[VECTOR_SIZE * VECTOR_MAX_WIDTH];
    gather(tmp, data, sel, NULL, n, width);
    memcpy(data, tmp, (size_t)n * width);
}

void vec_flatten(vector *v, uint32_t count) {
    assert(count <= VECTOR_SIZE);
    if (v->kind == VEC_FLAT) return;
    unsigned char *own = v->own_data;
    const unsigned char *src = v->data;
    unsigned w = v->width;
    uint64_t words[VALIDITY_WORDS];
    int any_null = 0;
    if (v->kind == VEC_CONSTANT) {
        any_null = v->validity != NULL && !bit_get(v->validity, 0);
        unsigned char value[VECTOR_MAX_WIDTH];
        memcpy(value, src, w);
        for (uint32_t i = 0; i < count; i++)
            memcpy(own + (size_t)i * w, value, w);
        memset(words, 0, sizeof words);
    } else {
        if (v->validity != NULL) { /* gather the bits first: they may be the ones overwritten below */
            memset(words, 0, sizeof words);
            for (uint32_t i = 0; i < count; i++) {
                if (bit_get(v->validity, v->sel[i]))
                    bit_set(words, i);
                else
                    any_null = 1;
            }
        }
        int in_place_ok = 1; /* reading index sel[i] >= i only reads values not yet overwritten */
        if (src == own)
            for (uint32_t i = 0; i < count && in_place_ok; i++)
                in_place_ok = v->sel[i] >= i;
        if (in_place_ok)
            gather(own, src, v->sel, NULL, count, w);
        else
            gather_via_copy(own, v->sel, count, w);
    }
    v->kind = VEC_FLAT;
    v->dict_id = 0;
    v->data = own;
    v->sel = identity_sel;
    v->validity = NULL;
    if (any_null) {
        memcpy(v->own_validity, words, sizeof words);
        v->validity = v->own_validity;
    }
}

int vec_copy(vector *dst, uint32_t dst_off, const vector *src, const sel_t *sel, uint32_t count,
             strata_err *err) {
    assert(dst != src && writable(dst) && dst->kind == VEC_FLAT && dst->phys == src->phys);
    assert(dst_off <= VECTOR_SIZE && count <= VECTOR_SIZE - dst_off);
    if (count == 0) return STRATA_OK;
    const sel_t *vsel = src->sel;
#define SRC_INDEX(i) vsel[sel ? sel[i] : (i)]
    if (dst->phys == PHYS_STR) {
        /* One heap allocation for all the long strings, made before anything changes. */
        const sstr *s = src->data;
        sstr *d = VEC_DATA(dst, sstr) + dst_off;
        size_t total = 0;
        for (uint32_t i = 0; i < count; i++) {
            uint32_t k = SRC_INDEX(i);
            if (s[k].len > SSTR_INLINE && valid_at(src, k)) total += s[k].len;
        }
        char *heap = NULL;
        if (total > 0 && (heap = arena_alloc(&dst->heap, total)) == NULL)
            return err_set(err, STRATA_NOMEM, "out of memory copying %zu bytes of strings", total);
        for (uint32_t i = 0; i < count; i++) {
            uint32_t k = SRC_INDEX(i);
            sstr x = s[k];
            if (!valid_at(src, k)) {
                memset(&x, 0, sizeof x);
            } else if (x.len > SSTR_INLINE) {
                memcpy(heap, x.u.ext.ptr, x.len);
                x.u.ext.ptr = heap;
                heap += x.len;
            }
            d[i] = x;
        }
    } else if (src->kind == VEC_FLAT && sel == NULL) {
        memcpy((unsigned char *)dst->data + (size_t)dst_off * dst->width, src->data,
               (size_t)count * dst->width);
    } else {
        gather((unsigned char *)dst->data + (size_t)dst_off * dst->width, src->data, vsel, sel, count,
               dst->width);
    }
    if (src->validity == NULL) {
        if (dst->validity != NULL)
            for (uint32_t i = 0; i < count; i++)
                bit_set(dst->validity, dst_off + i);
        return STRATA_OK;
    }
    for (uint32_t i = 0; i < count; i++) {
        if (bit_get(src->validity, SRC_INDEX(i))) {
            if (dst->validity != NULL) bit_set(dst->validity, dst_off + i);
        } else {
            vec_set_null(dst, dst_off + i, 1);
        }
    }
#undef SRC_INDEX
    return STRATA_OK;
}
