/*
** rows.c -- row collections and the hash tables built on them: the group table (distinct keys
** with dense numbers) and the build side of a hash join.
**
** Keys are hashed a vector at a time (vec_hash, vec_hash_combine) and compared with vec_match,
** the equality that hashing promises; both tables probe by hash first, so keys are compared
** only for equal 64-bit hashes.
*/
#include "vector.h"
#include "vector_internal.h"

#include "bigmem.h"
#include "hash.h"
#include "value.h"

#include <assert.h>

#include <stdio.h>
#include <stdlib.h>

/* ---- the budget ------------------------------------------------------------------------- */

void vec_format_bytes(char *buf, size_t cap, size_t n) {
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)n;
    int u = 0;
    while (v >= 1024 && u < 4) v /= 1024, u++;
    if (u == 0) snprintf(buf, cap, "%zu bytes", n);
    else snprintf(buf, cap, "%.1f %s", v, units[u]);
}

int vec_budget_charge(vec_budget *b, size_t n, strata_err *err) {
    if (b == NULL) return STRATA_OK;
    size_t used = __atomic_load_n(&b->used, __ATOMIC_RELAXED);
    do {
        if (n > b->limit || used > b->limit - n) {
            char lim[32];
            vec_format_bytes(lim, sizeof lim, b->limit);
            return err_set(err, STRATA_NOMEM,
                           "out of memory: the query needs more than the %s that memory_limit leaves for queries", lim);
        }
    } while (!__atomic_compare_exchange_n(&b->used, &used, used + n, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return STRATA_OK;
}

void vec_budget_release(vec_budget *b, size_t n) {
    if (!b) return;
    size_t used = __atomic_load_n(&b->used, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&b->used, &used, n < used ? used - n : 0, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

int vec_rows_charge(vec_rows *c, size_t n, strata_err *err) {
    int rc = vec_budget_charge(c->budget, n, err);
    if (rc == STRATA_OK && c->budget) c->charged += n;
    return rc;
}

/* chunk_bytes is what a chunk of c's columns takes besides its strings. */
static size_t chunk_bytes(const vec_rows *c) {
    size_t n = sizeof(data_chunk);
    for (uint32_t k = 0; k < c->ncols; k++)
        n += (size_t)VECTOR_SIZE * vec_phys_width(vec_phys_of(c->types[k].id)) + VECTOR_SIZE / 8 + sizeof(vector);
    return n;
}

/* heap_bytes is what the string heaps of chunk ch hold. */
static size_t heap_bytes(const data_chunk *ch) {
    size_t n = 0;
    for (uint32_t k = 0; k < ch->ncols; k++) n += ch->cols[k].heap.used;
    return n;
}

/* ---- collections ------------------------------------------------------------------------ */

int vec_rows_init(vec_rows *c, const sql_type *types, uint32_t ncols, strata_err *err) {
    memset(c, 0, sizeof *c);
    c->ncols = ncols;
    c->types = malloc((ncols + 1) * sizeof *c->types);
    if (!c->types) return err_set(err, STRATA_NOMEM, "out of memory (rows)");
    if (ncols) memcpy(c->types, types, ncols * sizeof *types);
    return STRATA_OK;
}

void vec_rows_free(vec_rows *c) {
    vec_budget_release(c->budget, c->charged);
    for (uint32_t i = 0; i < c->nchunks; i++) {
        chunk_free(c->chunks[i]);
        free(c->chunks[i]);
    }
    free(c->chunks);
    free(c->types);
    memset(c, 0, sizeof *c);
}

static int rows_new_chunk(vec_rows *c, strata_err *err) {
    int rc = vec_rows_charge(c, chunk_bytes(c), err);
    if (rc) return rc;
    if (c->nchunks == c->cap) {
        uint32_t nc = c->cap ? c->cap * 2 : 8;
        data_chunk **n = realloc(c->chunks, nc * sizeof *n);
        if (!n) return err_set(err, STRATA_NOMEM, "out of memory (rows)");
        c->chunks = n;
        c->cap = nc;
    }
    data_chunk *ch = malloc(sizeof *ch);
    if (!ch) return err_set(err, STRATA_NOMEM, "out of memory (rows)");
    rc = chunk_init(ch, c->types, c->ncols, err);
    if (rc) {
        free(ch);
        return rc;
    }
    c->chunks[c->nchunks++] = ch;
    return STRATA_OK;
}

int vec_rows_append(vec_rows *c, const data_chunk *src, const sel_t *sel, uint32_t n, strata_err *err) {
    uint32_t done = 0;
    while (done < n) {
        if ((!c->nchunks || c->chunks[c->nchunks - 1]->count == VECTOR_SIZE) && rows_new_chunk(c, err))
            return STRATA_NOMEM;
        data_chunk *dst = c->chunks[c->nchunks - 1];
        uint32_t got;
        if (c->ncols == 0) {
            got = VECTOR_SIZE - dst->count < n - done ? VECTOR_SIZE - dst->count : n - done;
            dst->count += got;
        } else {
            size_t before = c->budget ? heap_bytes(dst) : 0;
            int rc = chunk_append(dst, src, sel ? sel + done : sel_identity() + done, n - done, &got, err);
            if (rc) return rc;
            if (c->budget && (rc = vec_rows_charge(c, heap_bytes(dst) - before, err))) return rc;
        }
        done += got;
        c->rows += got;
    }
    return STRATA_OK;
}

/* key_equal compares row r of a with row kr of b, both of one physical type among the integers
** and strings, as vec_match does; inline, for the common GROUP BY keys. */
static bool key_equal(const vector *a, uint32_t r, const vector *b, uint32_t kr, int nulls_equal) {
    bool an = vec_is_null(a, r), bn = vec_is_null(b, kr);
    if (an || bn) return an && bn && nulls_equal;
    uint32_t ia = a->sel[r], ib = b->sel[kr];
    switch ((vec_phys)a->phys) {
    case PHYS_BOOL: return VEC_DATA(a, uint8_t)[ia] == VEC_DATA(b, uint8_t)[ib];
    case PHYS_I16: return VEC_DATA(a, int16_t)[ia] == VEC_DATA(b, int16_t)[ib];
    case PHYS_I32: return VEC_DATA(a, int32_t)[ia] == VEC_DATA(b, int32_t)[ib];
    case PHYS_I64: return VEC_DATA(a, int64_t)[ia] == VEC_DATA(b, int64_t)[ib];
    default: return sstr_equal(&VEC_DATA(a, sstr)[ia], &VEC_DATA(b, sstr)[ib]);
    }
}

/* keys_equal compares row r of cols[0..n) with row kr of the key chunk kc, column by column. */
static bool keys_equal(vector *const *cols, uint32_t n, uint32_t r, const data_chunk *kc, uint32_t kr,
                       int nulls_equal) {
    for (uint32_t k = 0; k < n; k++) {
        const vector *a = cols[k], *b = &kc->cols[k];
        if (a->phys == b->phys && (a->phys <= PHYS_I64 || a->phys == PHYS_STR)) {
            if (!key_equal(a, r, b, kr, nulls_equal)) return false;
            continue;
        }
        sel_t sa = (sel_t)r, sb = (sel_t)kr, m;
        if (vec_match(a, &sa, b, &sb, NULL, 1, nulls_equal, &m, NULL, NULL) != 1) return false;
    }
    return true;
}

static void hash_rows(vector *const *cols, uint32_t n, uint32_t count, uint64_t *hashes) {
    if (n == 0) {
        memset(hashes, 0, count * sizeof *hashes);
        return;
    }
    vec_hash(cols[0], NULL, count, hashes);
    for (uint32_t k = 1; k < n; k++) vec_hash_combine(cols[k], NULL, count, hashes);
}

/* ---- row tables ------------------------------------------------------------------------- */

int vec_rowtable_init(vec_rowtable *t, const sql_type *types, uint32_t ncols, vec_budget *budget, strata_err *err) {
    memset(t, 0, sizeof *t);
    arena_init(&t->heap, 0);
    t->ncols = ncols, t->budget = budget;
    t->types = malloc((ncols + 1) * sizeof *t->types);
    t->off = malloc((ncols + 1) * sizeof *t->off);
    if (!t->types || !t->off) return err_set(err, STRATA_NOMEM, "out of memory (join rows)");
    uint32_t w = 0;
    for (uint32_t c = 0; c < ncols; c++) {
        t->types[c] = types[c];
        uint32_t size = (uint32_t)vec_phys_width(vec_phys_of(types[c].id));
        w = (w + (size >= 8 ? 7 : size - 1)) & ~(size >= 8 ? 7u : size - 1); /* aligned to its size, 8 at most */
        t->off[c] = w;
        w += size;
    }
    t->off[ncols] = w; /* the NULL bits */
    t->width = (w + (ncols + 7) / 8 + 7) & ~7u;
    return STRATA_OK;
}

void vec_rowtable_free(vec_rowtable *t) {
    vec_budget_release(t->budget, t->charged);
    for (uint32_t i = 0; i < t->nblocks; i++) free(t->blocks[i]);
    free(t->blocks);
    free(t->types);
    free(t->off);
    arena_free(&t->heap);
    memset(t, 0, sizeof *t);
}

int vec_rowtable_charge(vec_rowtable *t, size_t n, strata_err *err) {
    int rc = vec_budget_charge(t->budget, n, err);
    if (rc == STRATA_OK && t->budget) t->charged += n;
    return rc;
}

static inline uint8_t *rowtable_row(const vec_rowtable *t, uint64_t row) {
    return t->blocks[row / VEC_ROWTABLE_BLOCK] + (size_t)(row % VEC_ROWTABLE_BLOCK) * t->width;
}

/* rowtable_block makes room for the rows from t->rows on up to the end of their block. */
static int rowtable_block(vec_rowtable *t, strata_err *err) {
    if (t->rows < (uint64_t)t->nblocks * VEC_ROWTABLE_BLOCK) return STRATA_OK;
    size_t bytes = (size_t)VEC_ROWTABLE_BLOCK * t->width;
    int rc = vec_rowtable_charge(t, bytes, err);
    if (rc) return rc;
    if (t->nblocks == t->cap) {
        uint32_t nc = t->cap ? t->cap * 2 : 16;
        uint8_t **n = realloc(t->blocks, nc * sizeof *n);
        if (!n) return err_set(err, STRATA_NOMEM, "out of memory (join rows)");
        t->blocks = n, t->cap = nc;
    }
    if (!(t->blocks[t->nblocks] = malloc(bytes ? bytes : 1))) return err_set(err, STRATA_NOMEM, "out of memory (join rows)");
    t->nblocks++;
    return STRATA_OK;
}

/* ROWTABLE_PUT stores rows [from, from + n) of v (type T) as column c of the rows at rows[]. */
#define ROWTABLE_PUT(T)                                                                                      \
    do {                                                                                                     \
        const T *d = (const T *)v->data;                                                                     \
        for (uint32_t i = 0; i < n; i++) memcpy(rows[i] + off, &d[v->sel[from + i]], sizeof(T));            \
    } while (0)

int vec_rowtable_append(vec_rowtable *t, const data_chunk *src, strata_err *err) {
    assert(src->sel == NULL);
    uint32_t from = 0;
    while (from < src->count) {
        int rc = rowtable_block(t, err);
        if (rc) return rc;
        uint64_t base = t->rows;
        uint32_t room = VEC_ROWTABLE_BLOCK - (uint32_t)(base % VEC_ROWTABLE_BLOCK);
        uint32_t n = src->count - from < room ? src->count - from : room;
        uint8_t *rows[VECTOR_SIZE];
        for (uint32_t i = 0; i < n; i++) {
            rows[i] = rowtable_row(t, base + i);
            memset(rows[i] + t->off[t->ncols], 0, (t->ncols + 7) / 8);
        }
        for (uint32_t c = 0; c < t->ncols; c++) {
            const vector *v = &src->cols[c];
            uint32_t off = t->off[c];
            switch ((vec_phys)vec_phys_of(t->types[c].id)) {
            case PHYS_BOOL: ROWTABLE_PUT(uint8_t); break;
            case PHYS_I16: ROWTABLE_PUT(int16_t); break;
            case PHYS_I32: ROWTABLE_PUT(int32_t); break;
            case PHYS_I64: ROWTABLE_PUT(int64_t); break;
            case PHYS_F64: ROWTABLE_PUT(double); break;
            case PHYS_INTERVAL: ROWTABLE_PUT(sql_interval); break;
            case PHYS_STR: {
                size_t used = 0;
                for (uint32_t i = 0; i < n; i++) {
                    const sstr *sv = &((const sstr *)v->data)[v->sel[from + i]];
                    sstr copy = *sv;
                    if (sv->len > SSTR_INLINE && valid_at(v, v->sel[from + i])) {
                        if ((rc = sstr_copy(&t->heap, sstr_data(sv), sv->len, &copy, err))) return rc;
                        used += sv->len;
                    }
                    memcpy(rows[i] + off, &copy, sizeof copy);
                }
                if (used && (rc = vec_rowtable_charge(t, used, err))) return rc;
                break;
            }
            }
            if (!v->validity) continue;
            for (uint32_t i = 0; i < n; i++)
                if (!valid_at(v, v->sel[from + i])) rows[i][t->off[t->ncols] + c / 8] |= (uint8_t)(1u << (c % 8));
        }
        t->rows += n;
        from += n;
    }
    return STRATA_OK;
}

int vec_rowtable_take(vec_rowtable *t, vec_rowtable *const *from, unsigned n, vec_rowtable_moved *moved, strata_err *err) {
    assert(t->rows == 0 && t->nblocks == 0);
    uint32_t full = 0;
    for (unsigned i = 0; i < n; i++) full += (uint32_t)(from[i]->rows / VEC_ROWTABLE_BLOCK);
    if (full > t->cap) { /* room for every full block first: moving them cannot fail then */
        uint8_t **b = realloc(t->blocks, (full + 1) * sizeof *b);
        if (!b) return err_set(err, STRATA_NOMEM, "out of memory (join rows)");
        t->blocks = b, t->cap = full + 1;
    }
    size_t block = (size_t)VEC_ROWTABLE_BLOCK * t->width;
    for (unsigned i = 0; i < n; i++) { /* the full blocks, with what they and the strings charged */
        vec_rowtable *f = from[i];
        uint32_t nf = (uint32_t)(f->rows / VEC_ROWTABLE_BLOCK);
        bool tail = nf < f->nblocks;
        if (nf) memcpy(t->blocks + t->nblocks, f->blocks, nf * sizeof *f->blocks);
        if (tail) f->blocks[0] = f->blocks[nf]; /* the partly filled block stays, alone */
        f->nblocks = tail;
        moved[i].split = (uint64_t)nf * VEC_ROWTABLE_BLOCK, moved[i].low = t->rows;
        t->nblocks += nf, t->rows += moved[i].split;
        f->rows -= moved[i].split;
        size_t charge = f->budget ? f->charged - (tail ? block : 0) : 0;
        t->charged += charge, f->charged -= charge;
        arena_adopt(&t->heap, &f->heap);
    }
    for (unsigned i = 0; i < n; i++) { /* then the rest of each, copied */
        vec_rowtable *f = from[i];
        moved[i].high = t->rows;
        for (uint64_t r = 0; r < f->rows; r++) {
            int rc = rowtable_block(t, err);
            if (rc) return rc;
            memcpy(rowtable_row(t, t->rows), rowtable_row(f, r), t->width);
            t->rows++;
        }
    }
    return STRATA_OK;
}

void vec_rowtable_locate(const vec_rowtable *t, const uint32_t *rowids, uint32_t n, const uint8_t **rows) {
    for (uint32_t k = 0; k < n; k++) {
        rows[k] = rowtable_row(t, rowids[k]);
        __builtin_prefetch(rows[k]);
    }
}

/* ROWTABLE_GET copies the values of T at offset off of rows[] into out's data. */
#define ROWTABLE_GET(T)                                                                                      \
    do {                                                                                                     \
        T *o = out->data;                                                                                    \
        for (uint32_t k = 0; k < n; k++) memcpy(&o[k], rows[k] + off, sizeof(T));                            \
    } while (0)

void vec_rowtable_gather(const vec_rowtable *t, uint32_t col, const uint8_t *const *rows, uint32_t n, vector *out) {
    vec_reset(out);
    uint32_t off = t->off[col];
    switch ((vec_phys)out->phys) {
    case PHYS_BOOL: ROWTABLE_GET(uint8_t); break;
    case PHYS_I16: ROWTABLE_GET(int16_t); break;
    case PHYS_I32: ROWTABLE_GET(int32_t); break;
    case PHYS_I64: ROWTABLE_GET(int64_t); break;
    case PHYS_F64: ROWTABLE_GET(double); break;
    case PHYS_STR: ROWTABLE_GET(sstr); break;
    case PHYS_INTERVAL: ROWTABLE_GET(sql_interval); break;
    }
    uint32_t nb = t->off[t->ncols] + col / 8;
    uint8_t bit = (uint8_t)(1u << (col % 8));
    for (uint32_t k = 0; k < n; k++) { /* NULLs: cleared bits and zeroed slots, as vec_set_null */
        if (!(rows[k][nb] & bit)) continue;
        if (!out->validity) {
            out->validity = out->own_validity;
            memset(out->validity, 0xff, VALIDITY_WORDS * sizeof *out->validity);
        }
        bit_clear(out->validity, k);
        memset((unsigned char *)out->data + (size_t)k * out->width, 0, out->width);
    }
}

/* ---- the group table -------------------------------------------------------------------- */

int vec_groups_init(vec_groups *g, const sql_type *types, uint32_t ncols, strata_err *err) {
    memset(g, 0, sizeof *g);
    int rc = vec_rows_init(&g->keys, types, ncols, err);
    if (rc) return rc;
    g->mask = 1023;
    g->null_gid = UINT32_MAX;
    g->nhash = ncols;
    g->int_key = ncols == 1 && vec_phys_of(types[0].id) <= PHYS_I64;
    g->slots = bigmem_alloc((g->mask + 1) * sizeof *g->slots);
    if (!g->slots) return err_set(err, STRATA_NOMEM, "out of memory (hash table)");
    return STRATA_OK;
}

void vec_groups_identify(vec_groups *g, uint32_t nhash) {
    if (g->ngroups || nhash == 0 || nhash > g->keys.ncols) return;
    g->nhash = nhash;
    g->int_key = nhash == 1 && vec_phys_of(g->keys.types[0].id) <= PHYS_I64;
}

void vec_groups_free(vec_groups *g) {
    vec_rows_free(&g->keys);
    bigmem_free(g->hashes, g->hashes ? g->cap_groups * sizeof *g->hashes : 0);
    bigmem_free(g->ikeys, g->ikeys ? g->cap_groups * sizeof *g->ikeys : 0);
    free(g->direct);
    if (g->slots) bigmem_free(g->slots, ((size_t)g->mask + 1) * sizeof *g->slots);
    memset(g, 0, sizeof *g);
}

/* A slot holds group + 1 in its low 32 bits (0: empty) and the top 32 bits of the group's hash
** (the salt) in its high ones, so that a probe passes over other groups' slots without reading
** their hashes or keys. */
static inline uint64_t slot_of(uint64_t h, uint32_t gid) { return (h & ~(uint64_t)UINT32_MAX) | (gid + 1u); }
static inline bool slot_salted(uint64_t slot, uint64_t h) { return ((slot ^ h) >> 32) == 0; }

/* A row's probe starts at the top bits of its hash (as many as the table's size has), which its
** slot's salt holds too: growing reads the salts, not the groups' hashes, and as it walks the old
** slots in order it fills the new ones nearly in order. */
static inline uint32_t slot_start(uint32_t mask, uint64_t h) {
    return (uint32_t)((h >> 32) >> (32 - __builtin_popcount(mask)));
}

static int groups_grow(vec_groups *g, strata_err *err) {
    uint32_t nmask = g->mask * 2 + 1;
    int rc = vec_rows_charge(&g->keys, ((size_t)nmask + 1) * sizeof *g->slots, err);
    if (rc) return rc;
    uint64_t *ns = bigmem_alloc(((size_t)nmask + 1) * sizeof *ns);
    if (!ns) return err_set(err, STRATA_NOMEM, "out of memory (hash table)");
    for (uint64_t i = 0; i <= g->mask; i++) { /* the salts place them: no key is hashed again */
        if (!g->slots[i]) continue;
        uint32_t s = slot_start(nmask, g->slots[i]);
        while (ns[s]) s = (s + 1) & nmask;
        ns[s] = g->slots[i];
    }
    bigmem_free(g->slots, ((size_t)g->mask + 1) * sizeof *g->slots);
    g->slots = ns;
    g->mask = nmask;
    return STRATA_OK;
}

/* int_at reads row r of an integer vector (not NULL) as int64. */
static inline int64_t int_at(const vector *v, uint32_t r) {
    uint32_t i = v->sel[r];
    switch ((vec_phys)v->phys) {
    case PHYS_BOOL: return VEC_DATA(v, uint8_t)[i];
    case PHYS_I16: return VEC_DATA(v, int16_t)[i];
    case PHYS_I32: return VEC_DATA(v, int32_t)[i];
    default: return VEC_DATA(v, int64_t)[i];
    }
}

/* groups_probe returns the slot where row r of cols (hash h) is, or the empty slot it would go to,
** and sets *gid to its group or UINT32_MAX. The groups from g->keys.rows on were added by the
** chunk being looked up and their keys are still its rows pending[gid - g->keys.rows] (NULL: no
** such groups). */
static uint32_t groups_probe(const vec_groups *g, vector *const *cols, uint32_t r, uint64_t h, const data_chunk *in,
                             const sel_t *pending, uint32_t *gid) {
    uint32_t s = slot_start(g->mask, h);
    if (g->int_key && cols[0]->phys <= PHYS_I64) {
        /* one integer key: compare the groups' keys kept flat, not their key rows */
        bool null = vec_is_null(cols[0], r);
        int64_t key = null ? 0 : int_at(cols[0], r);
        for (; g->slots[s]; s = (s + 1) & g->mask) {
            uint32_t cand = (uint32_t)g->slots[s] - 1;
            if (slot_salted(g->slots[s], h) && (null ? cand == g->null_gid : g->ikeys[cand] == key && cand != g->null_gid)) {
                *gid = cand;
                return s;
            }
        }
        *gid = UINT32_MAX;
        return s;
    }
    for (; g->slots[s]; s = (s + 1) & g->mask) {
        uint32_t cand = (uint32_t)g->slots[s] - 1, kr;
        if (!slot_salted(g->slots[s], h) || g->hashes[cand] != h) continue;
        const data_chunk *kc = cand < g->keys.rows ? vec_groups_key(g, cand, &kr) : in;
        if (kc == in) kr = pending[cand - g->keys.rows];
        if (keys_equal(cols, g->nhash, r, kc, kr, 1)) {
            *gid = cand;
            return s;
        }
    }
    *gid = UINT32_MAX;
    return s;
}

uint32_t vec_groups_find(const vec_groups *g, vector *const *cols, uint32_t r, uint64_t h) {
    uint32_t gid;
    groups_probe(g, cols, r, h, NULL, NULL, &gid);
    return gid;
}

/* direct_slot is the slot of key in g's direct map, or UINT64_MAX when outside its range. */
static inline uint64_t direct_slot(const vec_groups *g, int64_t key) {
    uint64_t off = (uint64_t)key - (uint64_t)g->direct_base; /* a key below the base wraps: outside */
    return off < g->direct_size ? off : UINT64_MAX;
}

/* direct_covers says whether g's direct map holds every integer key of g: a key outside it is no
** group's. */
static inline bool direct_covers(const vec_groups *g) {
    return g->int_key && g->direct && direct_slot(g, g->kmin) != UINT64_MAX && direct_slot(g, g->kmax) != UINT64_MAX;
}

/* direct_find fills gids[] from the direct map when every row's key is there; false otherwise. */
static bool direct_find(const vec_groups *g, const vector *c, uint32_t count, uint32_t *gids, uint8_t *is_new) {
    for (uint32_t r = 0; r < count; r++) {
        uint64_t off;
        if (vec_is_null(c, r) || (off = direct_slot(g, int_at(c, r))) == UINT64_MAX || !g->direct[off]) return false;
        gids[r] = g->direct[off] - 1;
    }
    if (is_new) memset(is_new, 0, count);
    return true;
}

/* direct_fit remakes the direct map to cover kmin..kmax with room to spare on both sides, when
** that range is dense enough (VEC_GROUPS_DENSE); the first map is VEC_GROUPS_DIRECT entries
** centred on the first key. Called when a key falls outside the map and when the table grows;
** with fill, the groups' keys are entered (the merge of a join table's parts enters them itself). */
static int direct_fit(vec_groups *g, bool fill, strata_err *err) {
    uint64_t span = (uint64_t)g->kmax - (uint64_t)g->kmin + 1, size = VEC_GROUPS_DIRECT;
    if (g->direct && span <= g->direct_size && direct_slot(g, g->kmin) != UINT64_MAX &&
        direct_slot(g, g->kmax) != UINT64_MAX)
        return STRATA_OK;
    if (g->direct || span > VEC_GROUPS_DIRECT / 2) {
        if (span == 0 || span > VEC_GROUPS_DIRECT_MAX / 2 || span > (uint64_t)g->ngroups * VEC_GROUPS_DENSE)
            return STRATA_OK;
        while (size < 2 * span) size *= 2;
    }
    int rc = vec_rows_charge(&g->keys, size * sizeof *g->direct, err);
    if (rc) return rc;
    uint32_t *d = calloc(size, sizeof *d);
    if (!d) return err_set(err, STRATA_NOMEM, "out of memory (hash table)");
    if (g->direct && g->keys.budget) { /* the old map's bytes, charged when it was made, go back */
        size_t old = (size_t)g->direct_size * sizeof *g->direct;
        vec_budget_release(g->keys.budget, old);
        g->keys.charged -= old;
    }
    free(g->direct);
    g->direct = d, g->direct_size = (uint32_t)size;
    g->direct_base = (int64_t)((uint64_t)g->kmin - (size - span) / 2);
    for (uint32_t i = 0; fill && i < g->ngroups; i++)
        if (i != g->null_gid) g->direct[direct_slot(g, g->ikeys[i])] = i + 1;
    return STRATA_OK;
}

/* direct_note records a new group of one integer key: in the key range, and in the direct map
** (remade to fit when the key falls outside it). */
static int direct_note(vec_groups *g, int64_t key, uint32_t gid, strata_err *err) {
    if (!g->direct || g->kmin > key) g->kmin = key; /* no map yet: the first key */
    if (!g->direct || g->kmax < key) g->kmax = key;
    uint64_t off = g->direct ? direct_slot(g, key) : UINT64_MAX;
    if (off != UINT64_MAX) {
        g->direct[off] = gid + 1;
        return STRATA_OK;
    }
    return direct_fit(g, true, err);
}

/* groups_room makes room for one more group in the array by group that probes compare: the
** integer keys (one integer key column) or the hashes. */
static int groups_room(vec_groups *g, strata_err *err) {
    if (g->ngroups < g->cap_groups) return STRATA_OK;
    uint32_t nc = g->cap_groups ? g->cap_groups * 2 : 1024;
    int rc = vec_rows_charge(&g->keys, (size_t)(nc - g->cap_groups) * sizeof(uint64_t), err);
    if (rc) return rc;
    void **arr = g->int_key ? (void **)&g->ikeys : (void **)&g->hashes;
    void *n = bigmem_grow(*arr, (size_t)g->cap_groups * sizeof(uint64_t), (size_t)nc * sizeof(uint64_t));
    if (!n) return err_set(err, STRATA_NOMEM, "out of memory (hash table)");
    *arr = n;
    g->cap_groups = nc;
    return STRATA_OK;
}

/* groups_by_rows stops comparing one integer key through ikeys (a vector of another physical
** type came): the groups' hashes, which the probes by rows compare, are made from their keys. */
static int groups_by_rows(vec_groups *g, strata_err *err) {
    g->hashes = bigmem_alloc((size_t)(g->cap_groups ? g->cap_groups : 1) * sizeof *g->hashes);
    if (!g->hashes) return err_set(err, STRATA_NOMEM, "out of memory (hash table)");
    for (uint32_t i = 0; i < g->ngroups; i++) g->hashes[i] = i == g->null_gid ? HASH_NULL : hash_i64(g->ikeys[i]);
    bigmem_free(g->ikeys, (size_t)g->cap_groups * sizeof *g->ikeys);
    g->ikeys = NULL;
    if (!g->cap_groups) g->cap_groups = 1;
    g->int_key = false;
    return STRATA_OK;
}

int vec_groups_find_or_add(vec_groups *g, vector *const *cols, uint32_t count, uint32_t *gids, uint8_t *is_new,
                           uint64_t *hashes, strata_err *err) {
    uint32_t n = g->keys.ncols;
    bool covers = direct_covers(g) && cols[0]->phys <= PHYS_I64; /* the map holds every group */
    /* a map that does not hold every group may still hold every key of the chunk (one that does is
    ** read below, once, row by row) */
    if (!covers && g->int_key && g->direct && cols[0]->phys <= PHYS_I64 && direct_find(g, cols[0], count, gids, is_new))
        return STRATA_OK; /* every key seen before, in a small range: no hashing, no probing */
    int rc;
    if (g->int_key && cols[0]->phys > PHYS_I64 && (rc = groups_by_rows(g, err))) return rc;
    /* the rows to probe: all of them, hashed together; or, when the direct map holds every key,
    ** the rows whose key it does not have (new groups, NULL), hashed one by one */
    sel_t todo[VECTOR_SIZE];
    uint32_t ntodo = 0;
    if (covers) {
        for (uint32_t r = 0; r < count; r++) {
            bool valid = !vec_is_null(cols[0], r);
            int64_t key = valid ? int_at(cols[0], r) : 0;
            uint64_t off = valid ? direct_slot(g, key) : UINT64_MAX;
            if (off != UINT64_MAX && g->direct[off]) {
                gids[r] = g->direct[off] - 1;
                if (is_new) is_new[r] = 0;
                continue;
            }
            hashes[r] = valid ? hash_i64(key) : HASH_NULL;
            todo[ntodo++] = (sel_t)r;
        }
    } else {
        hash_rows(cols, g->nhash, count, hashes);
        for (uint32_t r = 0; r < count; r++) todo[ntodo++] = (sel_t)r;
    }
    vector view[n ? n : 1];
    data_chunk in = {.ncols = n, .count = count, .cols = view};
    for (uint32_t k = 0; k < n; k++) view[k] = *cols[k];
    /* the rows that make new groups: their keys are appended to g->keys together at the end */
    sel_t pending[VECTOR_SIZE];
    uint32_t npending = 0;
    /* one integer key: a row whose key is the previous row's has its group (clustered keys
    ** probe once a run) */
    bool runs = g->int_key;
    int64_t prev_key = 0;
    bool prev_valid = false;
    uint32_t prev = 0;
    enum { AHEAD = 16 }; /* slots fetched ahead of the probes: the table is larger than the caches */
    for (uint32_t i = 0; i < ntodo && i < AHEAD; i++) __builtin_prefetch(&g->slots[slot_start(g->mask, hashes[todo[i]])]);
    rc = STRATA_OK;
    for (uint32_t i = 0; i < ntodo; i++) {
        uint32_t r = todo[i];
        if (i + AHEAD < ntodo) __builtin_prefetch(&g->slots[slot_start(g->mask, hashes[todo[i + AHEAD]])]);
        if (runs) {
            bool valid = !vec_is_null(cols[0], r);
            int64_t key = valid ? int_at(cols[0], r) : 0;
            uint64_t off;
            if (i && valid && prev_valid && key == prev_key) {
                gids[r] = gids[prev];
                if (is_new) is_new[r] = 0;
                prev = r;
                continue;
            }
            prev_key = key, prev_valid = valid, prev = r;
            if (valid && g->direct && (off = direct_slot(g, key)) != UINT64_MAX && g->direct[off]) {
                gids[r] = g->direct[off] - 1;
                if (is_new) is_new[r] = 0;
                continue;
            }
        }
        uint32_t gid, s = groups_probe(g, cols, r, hashes[r], &in, pending, &gid);
        if (is_new) is_new[r] = gid == UINT32_MAX;
        if (gid == UINT32_MAX) {
            if ((rc = groups_room(g, err))) break;
            gid = g->ngroups++;
            pending[npending++] = (sel_t)r;
            if (g->int_key) {
                bool null = vec_is_null(cols[0], r);
                g->ikeys[gid] = null ? 0 : int_at(cols[0], r);
                if (null) g->null_gid = gid;
                else if ((rc = direct_note(g, g->ikeys[gid], gid, err))) break;
            } else {
                g->hashes[gid] = hashes[r];
            }
            g->slots[s] = slot_of(hashes[r], gid);
            if (g->ngroups * 2 > g->mask &&
                ((rc = groups_grow(g, err)) || (g->int_key && g->direct && (rc = direct_fit(g, true, err)))))
                break;
        }
        gids[r] = gid;
    }
    /* the new groups' keys, also after an error: every group counted has its row */
    int arc = vec_rows_append(&g->keys, &in, pending, npending, err);
    return rc ? rc : arc;
}

bool vec_groups_range(const vec_groups *g, int64_t *min, int64_t *max) {
    if (!g->int_key || g->ngroups == (g->null_gid != UINT32_MAX)) return false; /* no non-NULL key */
    *min = g->kmin, *max = g->kmax;
    return true;
}

/* ---- the join table --------------------------------------------------------------------- */

/* groups_lookup returns the group of row r of cols (hash h) or UINT32_MAX, through the direct map
** when the key is one integer in its range (where every group's key is noted). */
static inline uint32_t groups_lookup(const vec_groups *g, vector *const *cols, uint32_t r, uint64_t h) {
    if (g->int_key && g->direct && cols[0]->phys <= PHYS_I64 && !vec_is_null(cols[0], r)) {
        uint64_t off = direct_slot(g, int_at(cols[0], r));
        if (off != UINT64_MAX) return g->direct[off] - 1; /* 0 - 1: not there */
    }
    uint32_t gid;
    groups_probe(g, cols, r, h, NULL, NULL, &gid);
    return gid;
}

int vec_join_init(vec_join_table *t, const sql_type *types, uint32_t nkeys, strata_err *err) {
    memset(t, 0, sizeof *t);
    return vec_groups_init(&t->groups, types, nkeys, err);
}

void vec_join_free(vec_join_table *t) {
    vec_groups_free(&t->groups);
    bigmem_free(t->first, (size_t)t->cap_first * sizeof *t->first);
    bigmem_free(t->next, (size_t)t->cap_next * sizeof *t->next);
    memset(t, 0, sizeof *t);
}

/* join_room grows *arr (by group or by build row, *cap entries) to hold need entries. */
static int join_room(vec_join_table *t, uint32_t **arr, uint32_t *cap, uint64_t need, strata_err *err) {
    if (need <= *cap) return STRATA_OK;
    uint64_t nc = *cap ? *cap : 1024;
    while (nc < need) nc *= 2;
    if (nc > UINT32_MAX) nc = UINT32_MAX;
    int rc = vec_rows_charge(&t->groups.keys, (size_t)(nc - *cap) * sizeof **arr, err);
    if (rc) return rc;
    uint32_t *n = bigmem_grow(*arr, (size_t)*cap * sizeof **arr, (size_t)nc * sizeof **arr);
    if (!n) return err_set(err, STRATA_NOMEM, "out of memory (hash join)");
    *arr = n, *cap = (uint32_t)nc;
    return STRATA_OK;
}

/* join_groups sets gids[r] to the group of row r of cols (r < count), adding the new keys and
** their chains' heads. */
static int join_groups(vec_join_table *t, vector *const *cols, uint32_t count, uint32_t *gids, strata_err *err) {
    uint64_t hashes[VECTOR_SIZE];
    int rc = vec_groups_find_or_add(&t->groups, cols, count, gids, NULL, hashes, err);
    return rc ? rc : join_room(t, &t->first, &t->cap_first, t->groups.ngroups, err);
}

int vec_join_add(vec_join_table *t, vector *const *cols, uint32_t count, strata_err *err) {
    if ((uint64_t)t->rows + count > UINT32_MAX - 1) return err_set(err, STRATA_TOOBIG, "join build side too large");
    uint32_t gids[VECTOR_SIZE];
    int rc = join_groups(t, cols, count, gids, err);
    if (rc || (rc = join_room(t, &t->next, &t->cap_next, (uint64_t)t->rows + count, err))) return rc;
    for (uint32_t r = 0; r < count; r++) { /* each row goes to the head of its key's chain */
        uint32_t b = t->rows + r;
        t->next[b] = t->first[gids[r]];
        t->first[gids[r]] = b + 1;
    }
    t->rows += count;
    return STRATA_OK;
}

void vec_join_probe(const vec_join_table *t, vector *const *cols, uint32_t count, uint64_t *hashes, uint32_t *heads) {
    const vec_groups *g = &t->groups;
    uint32_t n = g->keys.ncols;
    if (n == 1 && cols[0]->phys <= PHYS_I64 && direct_covers(g)) { /* no hashing, no probing */
        for (uint32_t r = 0; r < count; r++) {
            uint64_t off = vec_is_null(cols[0], r) ? UINT64_MAX : direct_slot(g, int_at(cols[0], r));
            uint32_t gid = off == UINT64_MAX ? 0 : g->direct[off];
            heads[r] = gid ? t->first[gid - 1] : 0;
        }
        return;
    }
    hash_rows(cols, n, count, hashes);
    enum { AHEAD = 16 };
    for (uint32_t r = 0; r < count && r < AHEAD; r++) __builtin_prefetch(&g->slots[slot_start(g->mask, hashes[r])]);
    for (uint32_t r = 0; r < count; r++) {
        if (r + AHEAD < count) __builtin_prefetch(&g->slots[slot_start(g->mask, hashes[r + AHEAD])]);
        bool has_null = false;
        for (uint32_t k = 0; k < n; k++) has_null |= vec_is_null(cols[k], r);
        uint32_t gid = has_null ? UINT32_MAX : groups_lookup(g, cols, r, hashes[r]);
        heads[r] = gid == UINT32_MAX ? 0 : t->first[gid];
    }
}

/* ---- a join table built by parts ---------------------------------------------------------- */

int vec_join_rows(vec_join_table *t, uint64_t rows, strata_err *err) {
    if (rows > UINT32_MAX - 1) return err_set(err, STRATA_TOOBIG, "join build side too large");
    int rc = join_room(t, &t->next, &t->cap_next, rows, err);
    if (rc == STRATA_OK) t->rows = (uint32_t)rows;
    return rc;
}

int vec_join_add_rows(vec_join_table *t, vector *const *cols, uint32_t count, const uint32_t *rows, uint32_t *next,
                      strata_err *err) {
    uint32_t gids[VECTOR_SIZE];
    int rc = join_groups(t, cols, count, gids, err);
    if (rc) return rc;
    for (uint32_t r = 0; r < count; r++) {
        next[rows[r]] = t->first[gids[r]];
        t->first[gids[r]] = rows[r] + 1;
    }
    return STRATA_OK;
}

int vec_join_merge_begin(vec_join_table *t, const vec_join_table *parts, unsigned n, uint32_t *base, strata_err *err) {
    vec_groups *g = &t->groups;
    assert(g->ngroups == 0);
    uint64_t groups = 0;
    bool ranged = false;
    for (unsigned i = 0; i < n; i++) {
        const vec_groups *pg = &parts[i].groups;
        base[i] = (uint32_t)groups;
        groups += pg->ngroups;
        if (pg->null_gid != UINT32_MAX) g->null_gid = base[i] + pg->null_gid;
        if (!g->int_key || pg->ngroups == (pg->null_gid != UINT32_MAX)) continue; /* no non-NULL key */
        g->kmin = ranged && g->kmin < pg->kmin ? g->kmin : pg->kmin;
        g->kmax = ranged && g->kmax > pg->kmax ? g->kmax : pg->kmax;
        ranged = true;
    }
    assert(groups <= t->rows);
    uint32_t mask = g->mask;
    while (groups * 2 > mask) mask = mask * 2 + 1; /* as full as the groups' table gets when grown */
    int rc;
    if (mask != g->mask) {
        if ((rc = vec_rows_charge(&g->keys, ((size_t)mask + 1) * sizeof *g->slots, err))) return rc;
        uint64_t *slots = bigmem_alloc(((size_t)mask + 1) * sizeof *slots);
        if (!slots) return err_set(err, STRATA_NOMEM, "out of memory (hash table)");
        bigmem_free(g->slots, ((size_t)g->mask + 1) * sizeof *g->slots);
        g->slots = slots, g->mask = mask;
    }
    uint32_t cap = groups ? (uint32_t)groups : 1;
    if ((rc = vec_rows_charge(&g->keys, (size_t)cap * sizeof(uint64_t), err))) return rc;
    void **arr = g->int_key ? (void **)&g->ikeys : (void **)&g->hashes;
    if (!(*arr = bigmem_alloc((size_t)cap * sizeof(uint64_t)))) return err_set(err, STRATA_NOMEM, "out of memory (hash table)");
    g->cap_groups = cap;
    g->ngroups = (uint32_t)groups;
    if ((rc = join_room(t, &t->first, &t->cap_first, groups, err))) return rc;
    return ranged ? direct_fit(g, false, err) : STRATA_OK;
}

void vec_join_merge_part(vec_join_table *t, const vec_join_table *part, uint32_t base) {
    vec_groups *g = &t->groups;
    const vec_groups *pg = &part->groups;
    /* the part's slots, each with its salt and its group in t: no other part has its keys, so none
    ** is compared; a slot is taken by compare-and-swap, as other parts' groups go in beside */
    for (uint64_t i = 0; i <= pg->mask; i++) {
        uint64_t slot = pg->slots[i];
        if (!slot) continue;
        uint64_t placed = (slot & ~(uint64_t)UINT32_MAX) | (base + (uint32_t)slot);
        for (uint32_t s = slot_start(g->mask, slot);; s = (s + 1) & g->mask) {
            uint64_t empty = 0;
            if (__atomic_load_n(&g->slots[s], __ATOMIC_RELAXED) == 0 &&
                __atomic_compare_exchange_n(&g->slots[s], &empty, placed, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                break;
        }
    }
    if (!pg->ngroups) return;
    if (g->int_key) memcpy(g->ikeys + base, pg->ikeys, (size_t)pg->ngroups * sizeof *g->ikeys);
    else memcpy(g->hashes + base, pg->hashes, (size_t)pg->ngroups * sizeof *g->hashes);
    memcpy(t->first + base, part->first, (size_t)pg->ngroups * sizeof *t->first);
    for (uint32_t i = 0; g->direct && i < pg->ngroups; i++) {
        uint64_t off = i == pg->null_gid ? UINT64_MAX : direct_slot(g, pg->ikeys[i]);
        if (off != UINT64_MAX) g->direct[off] = base + i + 1;
    }
}

int vec_join_merge_end(vec_join_table *t, const vec_join_table *parts, unsigned n, strata_err *err) {
    for (unsigned i = 0; i < n; i++) {
        const vec_rows *k = &parts[i].groups.keys;
        for (uint32_t c = 0; c < k->nchunks; c++) {
            int rc = vec_rows_append(&t->groups.keys, k->chunks[c], NULL, k->chunks[c]->count, err);
            if (rc) return rc;
        }
    }
    return STRATA_OK;
}
