/*
** func_internal.h -- what the scalar function files (func.c, func_string.c, func_math.c) share:
** each file's table of functions, the "does not exist" bind error, typed reads of argument rows,
** and strings built in place in an output vector's heap.
**
** Not for use outside planner/func/func*.c: the binder and executor see func.h only.
*/
#ifndef STRATA_FUNC_INTERNAL_H
#define STRATA_FUNC_INTERNAL_H

#include "func/func.h"

/* Each file's functions, looked up by func_lookup / func_suggest in func.c. */
extern const func_def func_string_defs[];
extern const int func_string_count;
extern const func_def func_math_defs[];
extern const int func_math_count;

/* func_no_such records PostgreSQL's "function name(type, ...) does not exist" for a call whose
** arity or argument types no variant of the function takes, and returns STRATA_ERROR. */
int func_no_such(const char *name, const sql_type *args, int nargs, strata_err *err);

/* The longest string a function builds (repeat, lpad, concat, replace): 1 GiB, PostgreSQL's
** limit; longer is "requested length too large". */
#define FUNC_MAX_STRING ((size_t)1 << 30)

/* ---- reading argument rows (any vector kind) ---- */

static inline const sstr *arg_str(const vector *v, uint32_t r) { return &VEC_DATA(v, sstr)[vec_index(v, r)]; }
static inline int64_t arg_i64(const vector *v, uint32_t r) { return VEC_DATA(v, int64_t)[vec_index(v, r)]; }
static inline double arg_f64(const vector *v, uint32_t r) { return VEC_DATA(v, double)[vec_index(v, r)]; }

/* arg_int reads an integer of any width (SMALLINT, INTEGER, BIGINT and the types stored alike). */
static inline int64_t arg_int(const vector *v, uint32_t r) {
    switch (v->phys) {
    case PHYS_BOOL: return VEC_DATA(v, uint8_t)[vec_index(v, r)];
    case PHYS_I16: return VEC_DATA(v, int16_t)[vec_index(v, r)];
    case PHYS_I32: return VEC_DATA(v, int32_t)[vec_index(v, r)];
    default: return VEC_DATA(v, int64_t)[vec_index(v, r)];
    }
}

/* out_int stores an integer into row r of a SMALLINT, INTEGER or BIGINT vector (the value is in
** range: the caller checked). */
static inline void out_int(vector *out, uint32_t r, int64_t v) {
    switch (out->phys) {
    case PHYS_I16: VEC_DATA(out, int16_t)[r] = (int16_t)v; break;
    case PHYS_I32: VEC_DATA(out, int32_t)[r] = (int32_t)v; break;
    default: VEC_DATA(out, int64_t)[r] = v; break;
    }
}

/* row_has_null says whether any of the nargs arguments is NULL at row r. */
static inline bool row_has_null(const vector *args, int nargs, uint32_t r) {
    for (int i = 0; i < nargs; i++)
        if (vec_is_null(&args[i], r)) return true;
    return false;
}

/* ---- strings built in place ---- */

/* A string of a known length written straight into the output vector: str_begin gives len
** writable bytes at b->p (inline space, or the output vector's heap when longer than
** SSTR_INLINE), the caller fills them, str_end stores the string as row r. No copy, no per-row
** malloc: the heap is an arena emptied by vec_reset. */
typedef struct str_out {
    char small[SSTR_INLINE];
    char *p;
    size_t len;
} str_out;

/* str_begin fails with "requested length too large" beyond FUNC_MAX_STRING and STRATA_NOMEM
** when the heap cannot grow; nothing is stored then. */
int str_begin(vector *out, size_t len, str_out *b, strata_err *err);
static inline void str_end(vector *out, uint32_t r, const str_out *b) {
    VEC_DATA(out, sstr)[r] = sstr_make(b->p, (uint32_t)b->len);
}

/* ---- UTF-8 ---- */

/* utf8_next returns the byte offset after the character starting at i (i < n): the lead byte
** and the continuation bytes after it, so that invalid bytes count as one character each, as
** utf8_length counts them. */
static inline size_t utf8_next(const char *s, size_t n, size_t i) {
    i++;
    while (i < n && ((unsigned char)s[i] & 0xC0) == 0x80)
        i++;
    return i;
}

/* utf8_skip returns the byte offset of character k (0-based) of s, or n when s has at most k
** characters. */
size_t utf8_skip(const char *s, size_t n, uint64_t k);

#endif
