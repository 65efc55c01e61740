/*
** vector.h -- typed column vectors, selection vectors and data chunks: the unit of data that
** flows between the executor's operators, and the first vector-at-a-time primitives over them
** (copy, slice, flatten, hash, row equality).
**
** Vocabulary (DuckDB's). A *vector* holds up to VECTOR_SIZE values of one SQL type in the
** physical layout of core/types.h, plus a validity bitmap. A *selection vector* is a list of row
** indexes. A *data chunk* is up to VECTOR_SIZE rows: one vector per column and a row count.
**
** Every vector, whatever its kind, is read the same way: row r's value is data[sel[r]] and it is
** NULL when validity is not NULL and bit sel[r] of validity is 0. The kind only says where sel
** comes from, so that kernels can pick a fast path:
**   VEC_FLAT        sel is the identity: row r is data[r];
**   VEC_CONSTANT    sel is all zeros: every row is data[0] (a literal, a broadcast value);
**   VEC_DICTIONARY  sel is the vector's own selection into data and validity that belong to
**                   another vector (a slice, a filter result) or to itself (sliced in place).
**
** Ownership. vec_init allocates once: a 64-byte aligned data buffer of VECTOR_SIZE values (laid
** out contiguously so SIMD kernels can load it), a validity bitmap of VECTOR_SIZE bits and a
** selection of VECTOR_SIZE entries; strings longer than SSTR_INLINE bytes live in the vector's
** heap (an arena), emptied by vec_reset. A vector that references or slices another (its data
** pointer is not its own buffer) is read-only and must not outlive the other vector's next
** reset; vec_copy is the ownership boundary: it copies values *and* string bytes into the
** destination, so a sink (hash table, sort buffer, result collection) that keeps rows copies them
** with vec_copy or chunk_append.
**
** Errors: functions that can fail return a status and record it with err_set (err may be NULL);
** the others cannot fail. Breaking a stated precondition (writing a read-only vector, indexes
** beyond VECTOR_SIZE, mismatched physical types) is a programmer error, checked with assert().
** Nothing here allocates per row; nothing aborts on out of memory.
*/
#ifndef STRATA_VECTOR_H
#define STRATA_VECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"
#include "hash.h" /* HASH_NULL */
#include "status.h"
#include "types.h"

#define VECTOR_SIZE 2048
#define VECTOR_ALIGN 64                   /* data buffers: one cache line, one AVX-512 register */
#define VALIDITY_WORDS (VECTOR_SIZE / 64) /* uint64_t words of a validity bitmap */
#define VECTOR_MAX_WIDTH 24               /* the widest value: sstr (see vec_phys_width) */

/* ---- physical types ------------------------------------------------------------------------ */

/* How a value is stored; several SQL types share one (DATE and INTEGER are int32_t). */
typedef enum vec_phys {
    PHYS_BOOL,     /* uint8_t: BOOLEAN, and the NULL type (whose values are all NULL) */
    PHYS_I16,      /* int16_t: SMALLINT */
    PHYS_I32,      /* int32_t: INTEGER, DATE */
    PHYS_I64,      /* int64_t: BIGINT, DECIMAL, TIMESTAMP */
    PHYS_F64,      /* double: DOUBLE */
    PHYS_STR,      /* sstr: VARCHAR, BLOB */
    PHYS_INTERVAL, /* sql_interval: INTERVAL */
} vec_phys;

/* vec_phys_of returns the physical type of a sql_type_id (which must be < TYPE_COUNT). */
vec_phys vec_phys_of(sql_type_id id);
/* vec_phys_width returns the bytes per value of a physical type: 1, 2, 4, 8, or 16 (INTERVAL and
** sstr, whose size types.h asserts). */
unsigned vec_phys_width(vec_phys p);

/* ---- scratch blocks ------------------------------------------------------------------------ */

/* vec_scratch_alloc returns n bytes aligned to VECTOR_ALIGN (NULL on out of memory), reusing a
** block of the same size freed by vec_scratch_free when one waits in the cache: operators use it
** for their per-run arrays of VECTOR_SIZE entries, so that a statement run many times does not
** malloc and free large blocks each time. Free with vec_scratch_free and the same n. */
void *vec_scratch_alloc(size_t n);
void vec_scratch_free(void *p, size_t n);
/* vec_cache_release frees every cached block (memory pressure; tests that inject allocation
** failures, which a cached block would otherwise hide). */
void vec_cache_release(void);

/* ---- selection vectors --------------------------------------------------------------------- */

/* Row indexes are 32-bit although 16 would hold VECTOR_SIZE: the SIMD instructions that build and
** use selections (AVX-512 vpcompressd, AVX2 vpermd, vpgatherdd/dq) work on 32-bit lanes; the
** 16-bit forms need later extensions or do not exist. */
typedef uint32_t sel_t;

/* A selection vector that owns its VECTOR_SIZE entries: idx[0..count) are row indexes. Filters
** write into one. Everywhere else a selection is passed as (const sel_t *sel, uint32_t count),
** where sel == NULL means the identity 0..count-1. */
typedef struct sel_vec {
    sel_t *idx;
    uint32_t count;
} sel_vec;

/* sel_init allocates VECTOR_SIZE entries (count 0); STRATA_NOMEM on failure (s->idx is NULL). */
int sel_init(sel_vec *s, strata_err *err);
/* sel_free releases the entries; safe on a zeroed or already freed sel_vec. */
void sel_free(sel_vec *s);
/* sel_set_identity makes s select rows 0..n-1 (n <= VECTOR_SIZE). */
void sel_set_identity(sel_vec *s, uint32_t n);
/* sel_identity returns a static read-only selection 0..VECTOR_SIZE-1; sel_identity() + k selects
** rows k, k+1, ... (how a caller continues an append that stopped at row k). */
const sel_t *sel_identity(void);
/* sel_compose writes out[i] = base[sel[i]] for i < n (base NULL: out[i] = sel[i]): the selection
** sel applied on top of base. out may be sel, not base. */
void sel_compose(sel_t *out, const sel_t *base, const sel_t *sel, uint32_t n);

/* ---- vectors ------------------------------------------------------------------------------- */

typedef enum vec_kind { VEC_FLAT, VEC_CONSTANT, VEC_DICTIONARY } vec_kind;

typedef struct vector {
    sql_type type;
    uint8_t phys;       /* vec_phys of type.id */
    uint8_t width;      /* bytes per value */
    uint8_t kind;       /* vec_kind */
    void *data;         /* values, indexed through sel; own_data unless referencing another vector */
    uint64_t *validity; /* NULL: every value is valid (the all-valid fast path); else bit i of word
                        ** i/64 is 1 when data[i] is valid */
    const sel_t *sel;   /* row -> index into data/validity (see the kinds above) */
    /* A VEC_DICTIONARY whose data is a whole dictionary of dict_size values (a column segment's)
    ** has a dict_id naming that dictionary, unique in the process: two vectors with the same
    ** dict_id have the same values at the same indexes, so an operator may work on the indexes
    ** (group by them). 0 for every other vector; slices keep it, anything else clears it. */
    uint64_t dict_id;
    uint32_t dict_size;
    /* Owned storage, allocated by vec_init, never reallocated. */
    void *own_data;
    uint64_t *own_validity;
    sel_t *own_sel;
    arena heap; /* bytes of this vector's strings longer than SSTR_INLINE */
} vector;

/* Typed access to the values: VEC_DATA(v, int64_t)[vec_index(v, row)]. */
#define VEC_DATA(v, T) ((T *)(v)->data)

/* vec_index returns where row r's value is in v->data (and its bit in v->validity). */
static inline uint32_t vec_index(const vector *v, uint32_t r) { return v->sel[r]; }
/* vec_is_null says whether row r of v (of any kind) is NULL. */
static inline int vec_is_null(const vector *v, uint32_t r) {
    uint32_t i = v->sel[r];
    return v->validity != NULL && !((v->validity[i >> 6] >> (i & 63)) & 1);
}
/* sstr_make returns an sstr of len bytes at p: copied inline (zero padded) up to SSTR_INLINE
** bytes, otherwise the prefix and a pointer to p, which must outlive the sstr. For literals,
** probes and tests; a vector's own copy is made by vec_set_str. */
static inline sstr sstr_make(const void *p, uint32_t len) {
    sstr s;
    memset(&s, 0, sizeof s);
    s.len = len;
    if (len > SSTR_INLINE) {
        memcpy(s.u.ext.prefix, p, 4);
        s.u.ext.ptr = (const char *)p;
    } else if (len > 0) {
        memcpy(s.u.inl, p, len);
    }
    return s;
}
/* sstr_equal says whether two strings have the same bytes; a long string is compared by length
** and prefix before its bytes are touched. Does not rely on inline strings being zero padded. */
static inline int sstr_equal(const sstr *a, const sstr *b) {
    if (a->len != b->len) return 0;
    if (a->len <= 8) { /* the first 8 of the 12 inline bytes, masked to the length: no call */
        static const uint8_t ones[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
        uint64_t x, y, mask;
        memcpy(&x, a->u.inl, 8);
        memcpy(&y, b->u.inl, 8);
        memcpy(&mask, ones + 8 - a->len, 8); /* bytes 0 .. len-1 set, in memory order */
        return ((x ^ y) & mask) == 0;
    }
    if (a->len <= SSTR_INLINE) return memcmp(a->u.inl, b->u.inl, a->len) == 0;
    return memcmp(a->u.ext.prefix, b->u.ext.prefix, 4) == 0 &&
           memcmp(a->u.ext.ptr + 4, b->u.ext.ptr + 4, a->len - 4) == 0;
}

/* vec_init prepares an empty FLAT, all-valid vector of the given type, allocating its buffers
** once. STRATA_NOMEM when that fails, STRATA_MISUSE for an unknown type id; on error nothing is
** allocated and vec_free is still safe. */
int vec_init(vector *v, sql_type type, strata_err *err);
/* vec_free releases everything vec_init allocated; safe twice and after a failed vec_init. */
void vec_free(vector *v);
/* vec_reset makes v an empty FLAT, all-valid vector over its own buffers again and empties its
** string heap (strings copied into it are gone, and so are vectors that pointed at them). */
void vec_reset(vector *v);

/* A vector is *writable* when it is not a DICTIONARY and data is its own buffer: after vec_init,
** vec_reset, vec_flatten of an own vector, or vec_make_constant. The next three require it. */

/* vec_set_null marks row r NULL (is_null != 0) or valid. The first NULL materializes the
** bitmap (all valid) from the fast all-valid state. A NULL's slot is zeroed (0, the empty
** string), so that code reading it without looking at validity reads a defined value; rows a
** vector never had written hold whatever its buffer held (vec_init does not clear it). */
void vec_set_null(vector *v, uint32_t r, int is_null);
/* vec_set_str stores len bytes as row r of a VARCHAR/BLOB vector: inline (zero padded) up to
** SSTR_INLINE bytes, otherwise copied into v's heap. Validity is not changed. STRATA_TOOBIG when
** len exceeds UINT32_MAX, STRATA_NOMEM when the heap cannot grow; on error row r is unchanged. */
int vec_set_str(vector *v, uint32_t r, const void *bytes, size_t len, strata_err *err);
/* vec_make_constant turns v into a CONSTANT vector of its row 0 (value and validity). */
void vec_make_constant(vector *v);

/* vec_reference makes dst show exactly what src shows (kind, values, NULLs), without copying:
** zero-copy projection. dst becomes read-only, must have src's physical type, and must not
** outlive src's next reset. src may itself reference another vector. */
void vec_reference(vector *dst, const vector *src);
/* vec_slice makes dst show rows sel[0..count) of src (sel NULL: the same rows, as
** vec_reference), without copying values: a FLAT src becomes a DICTIONARY over src's data, a
** DICTIONARY src composes the two selections (never a dictionary of a dictionary), a CONSTANT
** stays CONSTANT. sel is copied. dst may be src (slice in place). Same lifetime rules as
** vec_reference. */
void vec_slice(vector *dst, const vector *src, const sel_t *sel, uint32_t count);
/* vec_flatten materializes rows 0..count-1 of a CONSTANT or DICTIONARY vector into v's own
** buffer, making it FLAT; a FLAT vector is left as it is (its data may still be another
** vector's after vec_reference). Values are copied, string bytes are not: long strings keep
** pointing into the heap they were in. */
void vec_flatten(vector *v, uint32_t count);
/* vec_copy appends: it copies rows sel[0..count) of src (sel NULL: 0..count-1; any kind) into
** rows dst_off..dst_off+count-1 of dst, values, NULLs and long strings' bytes (into dst's heap,
** so the copy does not depend on src). dst must be writable and FLAT, of src's physical type,
** not src, and dst_off + count <= VECTOR_SIZE. STRATA_NOMEM when dst's heap cannot grow; then
** dst's other rows are unchanged and the target rows are unspecified. */
int vec_copy(vector *dst, uint32_t dst_off, const vector *src, const sel_t *sel, uint32_t count,
             strata_err *err);

/* ---- hashing and row equality (hash.c) ----------------------------------------------------- */

/* The hash of NULL (any type): a fixed value, so NULL keys group together. */

/* vec_hash writes hashes[i] = the hash of row (sel ? sel[i] : i) of v, for i < count.
** vec_hash_combine mixes that hash into hashes[i] instead, for keys of several columns (the
** result depends on the order of the columns). Equal values hash equal whatever the vector's
** kind and, for strings, whether they are inline or in a heap. The integer types (BOOLEAN,
** SMALLINT, INTEGER, BIGINT, and DATE, TIMESTAMP, DECIMAL by their stored integer) hash their
** value widened to 64 bits, so 7 hashes the same as a SMALLINT, INTEGER or BIGINT; DOUBLE hashes
** -0.0 as 0.0 and every NaN alike; INTERVAL hashes its length (months as 30 days, days as 24
** hours) as PostgreSQL compares it. Values that compare equal only after a cast (1 and 1.0, or
** DECIMALs of different scales) do not hash equal: the planner casts keys to one type first.
** Hashes are not stable across builds and platforms: never store them. */
void vec_hash(const vector *v, const sel_t *sel, uint32_t count, uint64_t *hashes);
void vec_hash_combine(const vector *v, const sel_t *sel, uint32_t count, uint64_t *hashes);

/* vec_hash_bytes is the string hash (wyhash-style, see hash.c); vec_hash_i64 the integer one. */
uint64_t vec_hash_bytes(const void *p, size_t len, uint64_t seed);
uint64_t vec_hash_i64(int64_t x);

/* vec_match compares, for each k in cand[0..n) (cand NULL: 0..n-1), row (asel ? asel[k] : k) of
** a with row (bsel ? bsel[k] : k) of b, with the equality vec_hash promises (integers of any
** width compare by value; the same width is the fast path). Writes the k that match to match[],
** in order, and returns their number; the others go to nomatch[] with their number in
** *nomatch_count when those are not NULL. Two NULLs match when nulls_equal (GROUP BY, DISTINCT)
** and never otherwise (join keys); a NULL never matches a value. match may be cand (refining a
** candidate list column by column); nomatch must not be. a and b must have comparable physical
** types (integers with integers, else the same). */
uint32_t vec_match(const vector *a, const sel_t *asel, const vector *b, const sel_t *bsel, const sel_t *cand,
                   uint32_t n, int nulls_equal, sel_t *match, sel_t *nomatch, uint32_t *nomatch_count);

/* ---- data chunks (chunk.c) ----------------------------------------------------------------- */

/* Up to VECTOR_SIZE rows of ncols columns. count is the number of rows. When sel is not NULL the
** chunk has been filtered lazily: its row i is row sel[i] of every column (the columns were not
** touched); pass c->sel along with c->count to the vector functions, or call chunk_apply_sel. */
typedef struct data_chunk {
    uint32_t ncols;
    uint32_t count;
    vector *cols;
    const sel_t *sel;  /* NULL, or one of sel_buf */
    sel_t *sel_buf[2]; /* owned; chunk_slice composes from one into the other */
} data_chunk;

/* chunk_init makes an empty chunk with one vector per type, allocating every buffer once.
** STRATA_NOMEM / STRATA_MISUSE as vec_init; on error nothing stays allocated. */
int chunk_init(data_chunk *c, const sql_type *types, uint32_t ncols, strata_err *err);
/* chunk_free releases the chunk; safe twice and after a failed chunk_init. */
void chunk_free(data_chunk *c);
/* chunk_reset empties the chunk for the next batch: count 0, no selection, every vector reset. */
void chunk_reset(data_chunk *c);
/* chunk_slice keeps rows sel[0..n) of the chunk's current rows (indexes < c->count), in that
** order, by composing selections only: no column is touched. sel is copied. */
void chunk_slice(data_chunk *c, const sel_t *sel, uint32_t n);
/* chunk_apply_sel moves a lazy selection into the columns (each becomes a DICTIONARY, zero-copy)
** and clears c->sel. */
void chunk_apply_sel(data_chunk *c);
/* chunk_flatten applies the selection and makes every column FLAT. */
void chunk_flatten(data_chunk *c);
/* chunk_append appends rows sel[0..n) (sel NULL: 0..n-1) of src -- its rows as seen through its
** own lazy selection -- to the end of dst, as many as fit (VECTOR_SIZE - dst->count), and sets
** *appended to that number; the caller passes the full dst on, resets it and appends the rest
** (sel + *appended, or sel_identity() + *appended). Values and string bytes are copied (see
** vec_copy). dst must have no lazy selection, writable columns, and src's column types.
** STRATA_NOMEM leaves dst->count (and so dst's rows) as they were. */
int chunk_append(data_chunk *dst, const data_chunk *src, const sel_t *sel, uint32_t n, uint32_t *appended,
                 strata_err *err);

/* ---- row collections and hash tables (rows.c) ---------------------------------------------- */

/* vec_budget: the memory a statement's collections and hash tables may take together (the query
** part of SET memory_limit). Each charges what it allocates -- chunks with their string bytes,
** hash arrays -- and gives it back when freed; an allocation that would pass the limit fails
** with STRATA_NOMEM and a message naming the limit. */
/* A run's query memory: the workers of a parallel run charge one budget, so used changes only
** through vec_budget_charge / _release (atomically); limit is set before the run. */
typedef struct vec_budget {
    size_t used, limit;
} vec_budget;

/* vec_budget_charge adds n bytes to b (NULL: no limit); STRATA_NOMEM, nothing added, when they
** would pass the limit. */
int vec_budget_charge(vec_budget *b, size_t n, strata_err *err);
/* vec_budget_release gives n charged bytes back (b NULL: nothing). */
void vec_budget_release(vec_budget *b, size_t n);
/* vec_format_bytes writes a byte count as people read it: "512 bytes", "7.6 MiB". */
void vec_format_bytes(char *buf, size_t cap, size_t n);

/* vec_rows: rows of fixed column types kept in chunks of VECTOR_SIZE (the last one partly
** filled); row i is row i % VECTOR_SIZE of chunks[i / VECTOR_SIZE]. What a sink that holds rows
** (sort, hash tables, RETURNING) keeps them in. Zero columns are allowed: then only the count.
** budget (NULL: none) is charged for the chunks and the string bytes appended. */
typedef struct vec_rows {
    uint32_t ncols;
    sql_type *types;
    uint32_t nchunks, cap;
    data_chunk **chunks;
    uint64_t rows;
    vec_budget *budget;
    size_t charged; /* what this collection (and the table it belongs to) charged to budget */
} vec_rows;

/* vec_rows_init makes an empty collection; vec_rows_free releases it (safe twice, and after a
** failed init); vec_rows_append copies rows sel[0..n) (sel NULL: 0..n-1) of src to its end. */
int vec_rows_init(vec_rows *c, const sql_type *types, uint32_t ncols, strata_err *err);
void vec_rows_free(vec_rows *c);
int vec_rows_append(vec_rows *c, const data_chunk *src, const sel_t *sel, uint32_t n, strata_err *err);
/* vec_rows_charge charges n more bytes (memory its owner keeps beside the rows, as a sort order)
** to c's budget on c's account: vec_rows_free gives them back. */
int vec_rows_charge(vec_rows *c, size_t n, strata_err *err);
static inline const data_chunk *vec_rows_chunk(const vec_rows *c, uint64_t row) {
    return c->chunks[row / VECTOR_SIZE];
}

/* vec_rowtable: rows kept row by row (each row's values side by side, then its NULL bits), for
** a hash join's build side: the columns of a matched row are read from one place in memory, not
** from one array per column, which costs one cache miss a row instead of one a column. Long
** strings are copied into the table's own heap. Rows are numbered 0, 1, ... as appended. */
typedef struct vec_rowtable {
    uint32_t ncols;
    sql_type *types;
    uint32_t *off;    /* by column: its value's offset in a row */
    uint32_t width;   /* bytes of a row: the values, then one NULL bit a column */
    uint8_t **blocks; /* VEC_ROWTABLE_BLOCK rows each */
    uint32_t nblocks, cap;
    uint64_t rows;
    arena heap;
    vec_budget *budget;
    size_t charged;
} vec_rowtable;
#define VEC_ROWTABLE_BLOCK 4096

/* vec_rowtable_init makes an empty table (budget NULL: no limit); vec_rowtable_free releases it
** (safe twice, and after a failed init). */
int vec_rowtable_init(vec_rowtable *t, const sql_type *types, uint32_t ncols, vec_budget *budget, strata_err *err);
void vec_rowtable_free(vec_rowtable *t);
/* vec_rowtable_append copies the src->count rows of src (any kinds of vectors, no selection on the
** chunk) to the table's end. STRATA_NOMEM (the budget's or malloc's) leaves the rows appended
** before it. */
int vec_rowtable_append(vec_rowtable *t, const data_chunk *src, strata_err *err);
/* vec_rowtable_take moves the rows of the tables from[0..n) (of t's columns and budget) to t,
** which must be empty: the rows of one table built by several threads. Their full blocks move
** (t charges them from then on, and takes their string heaps), the rest of each is copied; row r
** of from[i] becomes row vec_rowtable_moved_row(&moved[i], r) of t. from[i] is left with the
** copied rows (freed with it, charged to it). STRATA_NOMEM leaves t with part of the rows; both
** sides are then only to be freed. */
typedef struct vec_rowtable_moved {
    uint64_t split, low, high; /* rows below split went to low + r, the others to high + r - split */
} vec_rowtable_moved;
int vec_rowtable_take(vec_rowtable *t, vec_rowtable *const *from, unsigned n, vec_rowtable_moved *moved, strata_err *err);
static inline uint64_t vec_rowtable_moved_row(const vec_rowtable_moved *m, uint64_t r) {
    return r < m->split ? m->low + r : m->high + (r - m->split);
}
/* vec_rowtable_locate sets rows[k] to where row rowids[k] is (k < n), and starts fetching it;
** vec_rowtable_gather then writes column col of those rows to out (flat, reset first, of the
** column's type) as its rows 0..n-1; strings refer to the table's heap. */
void vec_rowtable_locate(const vec_rowtable *t, const uint32_t *rowids, uint32_t n, const uint8_t **rows);
void vec_rowtable_gather(const vec_rowtable *t, uint32_t col, const uint8_t *const *rows, uint32_t n, vector *out);
/* vec_rowtable_charge charges n more bytes kept beside the table to its budget, as vec_rows_charge. */
int vec_rowtable_charge(vec_rowtable *t, size_t n, strata_err *err);

/* vec_groups: the distinct key rows seen (GROUP BY, DISTINCT, set operations, IN lists), each
** with a dense group number 0, 1, ... in order of first appearance; keys compare as vec_match
** does with NULLs equal. Open addressing over the rows' hashes (vec_hash), at most half full. */
typedef struct vec_groups {
    vec_rows keys;    /* one row per group; keys.budget is charged for the arrays too */
    uint64_t *hashes; /* by group */
    int64_t *ikeys;   /* by group, when the key is one integer column: probes compare these */
    uint64_t *slots;  /* group + 1 (0 empty) in the low 32 bits, the top 32 bits of its hash above */
    uint32_t mask, ngroups, cap_groups;
    uint32_t nhash;   /* the leading key columns that tell groups apart (vec_groups_identify; all
                      ** by default): the others are kept with each group, never hashed or compared */
    uint32_t null_gid; /* one integer key: the group of NULL, or UINT32_MAX */
    bool int_key;     /* the key is one column of an integer type (BOOLEAN .. BIGINT) */
    uint32_t *direct; /* one integer key: group + 1 of keys direct_base + i, i < direct_size
                      ** (0: not there), so that keys of a dense range skip hashing and probing */
    int64_t direct_base;
    uint32_t direct_size;
    int64_t kmin, kmax; /* one integer key: the range of the groups' non-NULL keys */
} vec_groups;
/* The direct map starts at VEC_GROUPS_DIRECT entries around the first key and grows to cover the
** keys' range while that range is no more than VEC_GROUPS_DENSE times the groups (or the first
** size), up to VEC_GROUPS_DIRECT_MAX entries. */
#define VEC_GROUPS_DIRECT 4096
#define VEC_GROUPS_DENSE 4
#define VEC_GROUPS_DIRECT_MAX (1u << 25)

int vec_groups_init(vec_groups *g, const sql_type *types, uint32_t ncols, strata_err *err);
void vec_groups_free(vec_groups *g);
/* vec_groups_identify makes g tell groups apart by their first nhash key columns only (1 ..
** ncols), before any row is looked up: the caller knows that rows equal on those are equal on the
** others (a GROUP BY key that the others determine), whose values a group keeps from its first row. */
void vec_groups_identify(vec_groups *g, uint32_t nhash);
/* vec_groups_find_or_add looks up the count rows of the key vectors cols[0..ncols) and writes
** their group numbers to gids[], adding the keys not seen before; is_new[r] (may be NULL) says
** whether row r made its group. hashes[] is scratch of count entries. */
int vec_groups_find_or_add(vec_groups *g, vector *const *cols, uint32_t count, uint32_t *gids, uint8_t *is_new,
                           uint64_t *hashes, strata_err *err);
/* vec_groups_find returns the group of row r of cols, whose hash is h, or UINT32_MAX. */
uint32_t vec_groups_find(const vec_groups *g, vector *const *cols, uint32_t r, uint64_t h);
/* vec_groups_range says whether the keys are one integer column with some non-NULL key, setting
** *min and *max to the smallest and largest. */
bool vec_groups_range(const vec_groups *g, int64_t *min, int64_t *max);
/* vec_groups_key gives group gid's keys: row *row of the chunk returned. */
static inline const data_chunk *vec_groups_key(const vec_groups *g, uint32_t gid, uint32_t *row) {
    *row = gid % VECTOR_SIZE;
    return vec_rows_chunk(&g->keys, gid);
}

/* vec_join_table: the build side of a hash join. Its keys go into a group table (vec_groups, the
** one GROUP BY uses: salted linear probing, integer keys compared flat), and each group chains
** its build rows, the latest added first. Probing looks a probe row's key up once
** (vec_join_probe: a vector of rows at a time, hashed together, their slots fetched ahead) and
** then walks the chain: every row on it has the key, none is compared again. vec_join_next(t,
** e - 1) gives the entry after entry e (they take a build row, they return a row + 1). */
typedef struct vec_join_table {
    vec_groups groups; /* the distinct build keys; groups.keys.budget is charged for the arrays too */
    uint32_t *first;   /* by group: its chain's first build row + 1 */
    uint32_t *next;    /* by build row: the next build row + 1 of its key's chain (0: the end) */
    uint32_t cap_first, cap_next, rows;
} vec_join_table;

int vec_join_init(vec_join_table *t, const sql_type *types, uint32_t nkeys, strata_err *err);
void vec_join_free(vec_join_table *t);
/* vec_join_add adds count build rows (numbered from t->rows on) with keys cols[0..nkeys). */
int vec_join_add(vec_join_table *t, vector *const *cols, uint32_t count, strata_err *err);
/* vec_join_probe sets heads[r] to the first build row + 1 of the chain of probe row r's key
** (cols[0..nkeys)), 0 when no build row has it or one of its keys is NULL (NULL never matches);
** hashes is scratch of count entries. */
void vec_join_probe(const vec_join_table *t, vector *const *cols, uint32_t count, uint64_t *hashes, uint32_t *heads);
static inline uint32_t vec_join_next(const vec_join_table *t, uint32_t brow) { return t->next[brow]; }

/* A join table built by parts, on several threads at once: the build rows are numbered first
** (vec_join_rows: t's chains by row, t->next, for `rows` rows); each part, a vec_join_table of its
** own (vec_join_init) holding the keys of one partition of their hashes, takes its rows with
** vec_join_add_rows, chaining them through t->next (the parts write other rows' entries, so
** they may add at once); then vec_join_merge_begin sizes t for the parts' keys together (on one
** thread), vec_join_merge_part enters one part's keys (the parts at once, on several threads:
** their slots are taken by compare-and-swap), and vec_join_merge_end copies the parts' key rows
** (on one thread). The result is the table vec_join_add would have made of the same rows, but for
** the order of the keys' groups and of the rows on a chain; it takes no more rows. */
int vec_join_rows(vec_join_table *t, uint64_t rows, strata_err *err);
/* vec_join_add_rows adds the count rows rows[0..count) (numbers below t->rows of the table being
** built) with keys cols[0..nkeys) to part, chaining them through next (that table's next). */
int vec_join_add_rows(vec_join_table *part, vector *const *cols, uint32_t count, const uint32_t *rows, uint32_t *next,
                      strata_err *err);
/* vec_join_merge_begin makes t's arrays for the keys of parts[0..n) and sets base[i] to part i's
** first group in t; t's groups must be empty. STRATA_NOMEM (the budget's or malloc's): t is only
** to be freed. */
int vec_join_merge_begin(vec_join_table *t, const vec_join_table *parts, unsigned n, uint32_t *base, strata_err *err);
void vec_join_merge_part(vec_join_table *t, const vec_join_table *part, uint32_t base);
int vec_join_merge_end(vec_join_table *t, const vec_join_table *parts, unsigned n, strata_err *err);

#endif
