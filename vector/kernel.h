/*
** kernel.h -- the SIMD kernels over vectors' data: comparisons with a constant into row masks,
** masks into selections, sums, arithmetic and casts, one small function per (operation, type).
**
** Written once with simde's 256-bit (AVX2) intrinsics, so the same code compiles to AVX2 and
** AVX-512 machines' instructions here and to SSE2 pairs (make PORTABLE=1) or NEON elsewhere;
** where AVX-512 has an instruction AVX2 lacks (compress-store of a selection) a native path is
** chosen at compile time. Every kernel is checked against a scalar reference in
** tests/vector/test_kernel.c, on each build.
**
** Rows and values. A kernel reads row r (0 <= r < n) of an operand at d[sel[r]], or at d[r] when
** sel is NULL (a flat vector: contiguous loads, no gather). A row mask holds one bit per row, bit
** r % 64 of word r / 64 (the validity bitmap's layout), 1 = the row is kept; a kernel that writes
** a mask writes KERN_WORDS(n) words and leaves the bits at and past n zero. n is at most
** VECTOR_SIZE for every kernel.
**
** What the kernels do not do: NULL handling beyond what each comment says (a validity bitmap is
** indexed by value, sel[r], like the data), error messages (a kernel that can meet an error says
** so and its caller redoes the vector row by row to find and report the row), allocation.
*/
#ifndef STRATA_KERNEL_H
#define STRATA_KERNEL_H

#include "vector.h"

#define KERN_WORDS(n) (((n) + 63) / 64)

/* kern_sel is the selection to pass a kernel for vector v: NULL for a flat one (its rows are its
** values, read contiguously), else its own. */
static inline const sel_t *kern_sel(const vector *v) { return v->kind == VEC_FLAT ? NULL : v->sel; }

/* The comparisons, in the executor's order (plan.h's cmp_op has the same values). */
typedef enum kern_cmp { KERN_EQ, KERN_NE, KERN_LT, KERN_LE, KERN_GT, KERN_GE } kern_cmp;

/* kern_cmp_T sets mask to (row r op c) for rows 0..n-1. DOUBLE compares as strata orders it
** (value_compare): NaN equals NaN and sorts above every other value; -0.0 equals 0.0. */
void kern_cmp_i16(kern_cmp op, const int16_t *d, const sel_t *sel, uint32_t n, int16_t c, uint64_t *mask);
void kern_cmp_i32(kern_cmp op, const int32_t *d, const sel_t *sel, uint32_t n, int32_t c, uint64_t *mask);
void kern_cmp_i64(kern_cmp op, const int64_t *d, const sel_t *sel, uint32_t n, int64_t c, uint64_t *mask);
void kern_cmp_f64(kern_cmp op, const double *d, const sel_t *sel, uint32_t n, double c, uint64_t *mask);

/* kern_cmp2_T sets mask to (row r of a op row r of b) for rows 0..n-1: two columns compared,
** each read through its own selection (NULL: flat); DOUBLE ordered as in kern_cmp_f64. */
void kern_cmp2_i16(kern_cmp op, const int16_t *a, const sel_t *as, const int16_t *b, const sel_t *bs, uint32_t n,
                   uint64_t *mask);
void kern_cmp2_i32(kern_cmp op, const int32_t *a, const sel_t *as, const int32_t *b, const sel_t *bs, uint32_t n,
                   uint64_t *mask);
void kern_cmp2_i64(kern_cmp op, const int64_t *a, const sel_t *as, const int64_t *b, const sel_t *bs, uint32_t n,
                   uint64_t *mask);
void kern_cmp2_f64(kern_cmp op, const double *a, const sel_t *as, const double *b, const sel_t *bs, uint32_t n,
                   uint64_t *mask);

/* kern_mask_valid clears the bits of the rows whose value is NULL: bit sel[r] (r with sel NULL)
** of validity is 0. validity NULL: no NULLs, nothing changes. */
void kern_mask_valid(uint64_t *mask, const uint64_t *validity, const sel_t *sel, uint32_t n);

/* kern_mask_to_sel writes the rows whose bit is set, ascending, to out (room for n entries) and
** returns how many. */
uint32_t kern_mask_to_sel(const uint64_t *mask, uint32_t n, sel_t *out);

/* kern_sum_T adds up the valid rows (validity as in kern_mask_valid) into an exact int128 (the
** integers) or a double (added in 4 lanes, so the rounding of a long sum may differ in its last
** bits from adding in row order), and sets *count to the number of rows added. */
__int128 kern_sum_i16(const int16_t *d, const sel_t *sel, const uint64_t *validity, uint32_t n, int64_t *count);
__int128 kern_sum_i32(const int32_t *d, const sel_t *sel, const uint64_t *validity, uint32_t n, int64_t *count);
__int128 kern_sum_i64(const int64_t *d, const sel_t *sel, const uint64_t *validity, uint32_t n, int64_t *count);
double kern_sum_f64(const double *d, const sel_t *sel, const uint64_t *validity, uint32_t n, int64_t *count);

/* kern_minmax_T sets *min and *max to the least and greatest valid row (validity as in
** kern_mask_valid) and returns how many rows are valid; with none, *min and *max are left as
** they were. */
uint32_t kern_minmax_i16(const int16_t *d, const sel_t *sel, const uint64_t *validity, uint32_t n, int64_t *min,
                         int64_t *max);
uint32_t kern_minmax_i32(const int32_t *d, const sel_t *sel, const uint64_t *validity, uint32_t n, int64_t *min,
                         int64_t *max);
uint32_t kern_minmax_i64(const int64_t *d, const sel_t *sel, const uint64_t *validity, uint32_t n, int64_t *min,
                         int64_t *max);

/* Grouped sums over few groups: row r adds to acc[gids[r]] (gids[r] < ngroups <= KERN_GROUPS_MAX;
** every row valid). The rows go round-robin to KERN_GROUP_LANES private copies of the
** accumulators, so that consecutive rows of one group do not wait on each other's stores, which
** fold into acc at the end. Integer sums are exact in int64: kern_group_sum_i64 returns false, acc
** unchanged, when a value's magnitude reaches 2^52 (where 2048 of them could overflow), and the
** caller sums another way; DOUBLE adds in a different order than row order. */
#define KERN_GROUPS_MAX 256
#define KERN_GROUP_LANES 8
void kern_group_count(const uint32_t *gids, uint32_t n, uint32_t ngroups, int64_t *acc);
void kern_group_sum_i16(const int16_t *d, const sel_t *sel, const uint32_t *gids, uint32_t n, uint32_t ngroups,
                        int64_t *acc);
void kern_group_sum_i32(const int32_t *d, const sel_t *sel, const uint32_t *gids, uint32_t n, uint32_t ngroups,
                        int64_t *acc);
bool kern_group_sum_i64(const int64_t *d, const sel_t *sel, const uint32_t *gids, uint32_t n, uint32_t ngroups,
                        int64_t *acc);
void kern_group_sum_f64(const double *d, const sel_t *sel, const uint32_t *gids, uint32_t n, uint32_t ngroups,
                        double *acc);

/* Arithmetic operators, in value.h's order (VALUE_ADD ...). */
typedef enum kern_arith { KERN_ADD, KERN_SUB, KERN_MUL, KERN_DIV } kern_arith;

/* kern_arith_f64 writes o[r] = row r of a op row r of b. It returns false when no result needs a
** second look: true when some row's result is infinite or zero or its divisor zero (the rows
** where DOUBLE arithmetic may have to fail: overflow, underflow, division by zero), which the
** caller then checks one by one. NULL rows are computed from whatever their slots hold. */
bool kern_arith_f64(kern_arith op, const double *a, const sel_t *as, const double *b, const sel_t *bs, uint32_t n,
                    double *o);

/* kern_arith_i64 writes o[r] = row r of a op row r of b for KERN_ADD, KERN_SUB and KERN_MUL
** and returns true when some row's exact result lies outside [lo, hi] (o is then not usable:
** the caller finds and reports the row, or sees that only NULL rows overflowed: their slots are
** computed like any other). */
bool kern_arith_i64(kern_arith op, const int64_t *a, const sel_t *as, const int64_t *b, const sel_t *bs, uint32_t n,
                    int64_t lo, int64_t hi, int64_t *o);

/* DECIMAL arithmetic on scaled int64 values, for operands within int32's range (where 32 x 32-bit
** products and sums of two of them are exact in 64 bits): kern_dec_mul writes o[r] = a * b,
** kern_dec_add and kern_dec_sub o[r] = a * fa +/- b * fb (fa and fb the powers of ten that bring
** both sides to one scale, at most 2^31). Each returns false when some operand lies outside
** int32's range or some result's magnitude reaches lim (the result type's 10^precision); o is
** then not usable and the caller computes the vector row by row (NULL rows included: their slots
** are computed like any other). A side whose selection is a CONSTANT vector's (vec_zero_sel, the
** selection vec_make_constant gives: every row reads slot 0) is broadcast from its slot 0, not
** read row by row. */
bool kern_dec_mul(const int64_t *a, const sel_t *as, const int64_t *b, const sel_t *bs, uint32_t n, int64_t lim,
                  int64_t *o);
bool kern_dec_add(const int64_t *a, const sel_t *as, int64_t fa, const int64_t *b, const sel_t *bs, int64_t fb,
                  uint32_t n, int64_t lim, int64_t *o);
bool kern_dec_sub(const int64_t *a, const sel_t *as, int64_t fa, const int64_t *b, const sel_t *bs, int64_t fb,
                  uint32_t n, int64_t lim, int64_t *o);

/* kern_to_f64_T converts rows 0..n-1 of an integer vector to DOUBLE (o[r]). */
void kern_to_f64_i32(const int32_t *d, const sel_t *sel, uint32_t n, double *o);
void kern_to_f64_i64(const int64_t *d, const sel_t *sel, uint32_t n, double *o);

/* kern_arith_i32 writes o[r] = row r of a op row r of b for KERN_ADD, KERN_SUB and KERN_MUL (the
** exact result computed in 64-bit lanes) and returns true when some row's result lies outside
** INTEGER's range: o is then not usable, and the caller redoes the vector row by row to find and
** report the row (or sees that only NULL rows overflowed: their slots are computed like any
** other). kern_arith_i16 is the same for SMALLINT operands and result (computed in 32-bit
** lanes, where every sum and product of two SMALLINTs is exact). */
bool kern_arith_i32(kern_arith op, const int32_t *a, const sel_t *as, const int32_t *b, const sel_t *bs, uint32_t n,
                    int32_t *o);
bool kern_arith_i16(kern_arith op, const int16_t *a, const sel_t *as, const int16_t *b, const sel_t *bs, uint32_t n,
                    int16_t *o);

/* Hashes of whole vectors, equal value for value to core/hash.h's (value_hash): kern_hash_T writes
** h[r] = the hash of row r (integers widened to int64 through hash_i64, DOUBLE through hash_f64:
** -0.0 as 0.0, every NaN alike; strings through hash_sstr), or HASH_NULL when row r is NULL
** (validity indexed by value, sel[r], as in kern_mask_valid; NULL: no NULLs).
** kern_hash_combine_T folds the same hash into h[r] instead: h[r] = hash_combine(h[r], hash). */
void kern_hash_i16(const int16_t *d, const sel_t *sel, const uint64_t *validity, uint32_t n, uint64_t *h);
void kern_hash_i32(const int32_t *d, const sel_t *sel, const uint64_t *validity, uint32_t n, uint64_t *h);
void kern_hash_i64(const int64_t *d, const sel_t *sel, const uint64_t *validity, uint32_t n, uint64_t *h);
void kern_hash_f64(const double *d, const sel_t *sel, const uint64_t *validity, uint32_t n, uint64_t *h);
void kern_hash_str(const sstr *d, const sel_t *sel, const uint64_t *validity, uint32_t n, uint64_t *h);
void kern_hash_combine_i16(const int16_t *d, const sel_t *sel, const uint64_t *validity, uint32_t n, uint64_t *h);
void kern_hash_combine_i32(const int32_t *d, const sel_t *sel, const uint64_t *validity, uint32_t n, uint64_t *h);
void kern_hash_combine_i64(const int64_t *d, const sel_t *sel, const uint64_t *validity, uint32_t n, uint64_t *h);
void kern_hash_combine_f64(const double *d, const sel_t *sel, const uint64_t *validity, uint32_t n, uint64_t *h);
void kern_hash_combine_str(const sstr *d, const sel_t *sel, const uint64_t *validity, uint32_t n, uint64_t *h);

/* ---- predicates: IN-lists, ranges, string prefixes, dictionaries ---------------------------- */

/* IN-lists of constants. kern_in_prepare_T puts items[0..n) in the form kern_in_T reads, in
** place, and returns how many remain: sorted ascending in strata's order, duplicates dropped;
** for DOUBLE -0.0 becomes 0.0 and every NaN one NaN, last. kern_in_T sets mask to (row r equals
** one of items[0..nitems)) for rows 0..n-1, items prepared; DOUBLE equal as in kern_cmp_f64 (NaN
** matches a NaN item). Lists of up to KERN_IN_SHORT items compare each row with every item, SIMD
** lanes at a time; longer integer lists whose items lie within 4096 consecutive values test a bit
** per row in a bitmap of them; the others search the sorted items, branch-free. An empty list
** matches no row. NULL rows and NULL items are the caller's (SQL's IN is NULL when nothing matches and the
** list holds a NULL). */
#define KERN_IN_SHORT 8
uint32_t kern_in_prepare_i16(int16_t *items, uint32_t n);
uint32_t kern_in_prepare_i32(int32_t *items, uint32_t n);
uint32_t kern_in_prepare_i64(int64_t *items, uint32_t n);
uint32_t kern_in_prepare_f64(double *items, uint32_t n);
void kern_in_i16(const int16_t *d, const sel_t *sel, uint32_t n, const int16_t *items, uint32_t nitems,
                 uint64_t *mask);
void kern_in_i32(const int32_t *d, const sel_t *sel, uint32_t n, const int32_t *items, uint32_t nitems,
                 uint64_t *mask);
void kern_in_i64(const int64_t *d, const sel_t *sel, uint32_t n, const int64_t *items, uint32_t nitems,
                 uint64_t *mask);
void kern_in_f64(const double *d, const sel_t *sel, uint32_t n, const double *items, uint32_t nitems,
                 uint64_t *mask);

/* kern_between_T sets mask to (lo <= row r <= hi) for rows 0..n-1 in one pass: BETWEEN, in
** strata's order for DOUBLE (as kern_cmp_f64: NaN equals NaN and is above every number, so a NaN
** row is between lo and NaN). lo > hi matches no row. */
void kern_between_i16(const int16_t *d, const sel_t *sel, uint32_t n, int16_t lo, int16_t hi, uint64_t *mask);
void kern_between_i32(const int32_t *d, const sel_t *sel, uint32_t n, int32_t lo, int32_t hi, uint64_t *mask);
void kern_between_i64(const int64_t *d, const sel_t *sel, uint32_t n, int64_t lo, int64_t hi, uint64_t *mask);
void kern_between_f64(const double *d, const sel_t *sel, uint32_t n, double lo, double hi, uint64_t *mask);

/* kern_prefix sets mask to (row r's string starts with the bytes p[0..plen)) for rows 0..n-1: the
** LIKE 'abc%' test. A short prefix is compared in the sstr's inline bytes (a long string's 4-byte
** prefix) without following its pointer; only rows that pass that and are long enough read their
** other bytes. plen 0: every row. */
void kern_prefix(const sstr *d, const sel_t *sel, uint32_t n, const char *p, uint32_t plen, uint64_t *mask);

/* kern_dict_mask sets mask to bit codes[r] of entries for rows 0..n-1: a predicate evaluated once
** per dictionary entry (entries: one bit per entry, as a row mask, nentries bits in
** KERN_WORDS(nentries) words, the bits past nentries zero) mapped to a dictionary vector's rows
** through their codes (its selection, or a segment's unpacked codes); every code is below
** nentries. Dictionaries of up to KERN_DICT_LANES entries are looked up 8 codes at a time in
** registers (a variable shift of each 32-bit word of entries per code); larger ones, and every
** dictionary without AVX2, a row at a time. kern_dict_mask_checked is the same for codes read
** from storage: it returns false, mask not usable, when some code is nentries or more. */
#define KERN_DICT_LANES 256
void kern_dict_mask(const uint64_t *entries, uint32_t nentries, const sel_t *codes, uint32_t n, uint64_t *mask);
bool kern_dict_mask_checked(const uint64_t *entries, uint32_t nentries, const uint32_t *codes, uint32_t n,
                            uint64_t *mask);

/* kern_mask_not inverts the bits of rows 0..n-1 of mask (KERN_WORDS(n) words); the bits past n
** stay zero. */
void kern_mask_not(uint64_t *mask, uint32_t n);

#endif
