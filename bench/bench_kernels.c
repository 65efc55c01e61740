/*
** bench_kernels.c -- the SIMD kernels of vector/kernel.h over columns far larger than the caches,
** against this machine's memory bandwidth, in one process run.
**
** First the bandwidth: a streaming sum of an int64 buffer of 1 GiB (written beforehand, so its
** pages are in memory), one thread, four 256-bit accumulators so that the additions are not the
** bottleneck; the best of --reps passes, in GB/s. The buffer is freed before the columns are made.
**
** Then a table of 64 Mi rows (every column >= 256 MiB: qty INTEGER 1..100, amount BIGINT
** 0..9,999,999, price and disc DOUBLE, multiples of 0.25 and 0.125 so that every sum is exact in
** a double, name a string of one of 100 values chosen by qty), and each kernel over its columns a vector (VECTOR_SIZE rows) at a time, as the
** executor calls them: the data of vector v is column + v * VECTOR_SIZE, flat (no selection)
** unless said otherwise, and what a kernel writes goes to one buffer of VECTOR_SIZE entries that
** stays in the L1 cache. For each kernel, the best of --reps passes over the whole table: rows/s,
** the bytes of the columns it reads per second and that figure as a fraction of the bandwidth.
** The "filter + sum" rows are `SELECT sum(price) FROM t WHERE qty > 50`: kern_cmp_i32 + kern_mask_to_sel
** + kern_sum_f64 through the selection, and the same as a plain scalar C loop, the reference.
** The predicates' rows: IN-lists of 5 and 20 qty values (the SIMD compares and the bitmap) and
** of 20 amounts spread over 0..9,999,999 (the sorted search), BETWEEN over qty, amount and price,
** LIKE 'PROMO%' over name (kern_prefix), and the same prefix decided once per entry of a
** 100-entry dictionary with qty as the codes (kern_dict_mask).
** The INTEGER product and the hashes of BIGINT and strings have their scalar loop beside them
** too (a checked product per row; hash_i64 and hash_bytes per row, as vec_hash ran before the
** hash kernels).
**
** Then the column store's decoding. bitpack_unpack at widths 3, 8, 17 and 32 reads a packed
** column of the table's rows (random values of that width) a vector at a time into a uint64
** buffer. The segment rows decode one column segment of SEGMENT_MAX_ROWS rows (built once with
** its encoding forced, no zstd) a vector at a time with segment_decode_vector, as a scan does:
** vector v of the pass is the segment's vector v mod its vector count, so the segment (at most a
** few hundred KiB) stays in the L2 cache and these rows measure the decoding's work, not the
** memory; their "reads" are the encoded bytes per row. Frame of reference into INTEGER (qty,
** 7 bits) and BIGINT (amount, 24 bits), a dictionary of INTEGER (qty, 7-bit codes) and of BIGINT
** (1000 values, 10-bit codes), runs of INTEGER (qty in runs of 1..32 rows).
**
** Then the DECIMAL paths of issue 24's queries beside the same queries on DOUBLE columns: TPC-H
** lineitem's columns as strata stores them (DECIMAL(15,2) as int64 cents, DATE as int32 days),
** and DOUBLE copies of the same numbers. `l_quantity < 24` (kern_cmp_i64 against 2400), `SELECT
** sum(l_extendedprice) ... WHERE l_quantity < 24` (compare, selection, kern_sum_i64 into an
** int128), Q6 (four compares into masks ANDed, the selection, kern_dec_mul of price and discount
** through it, the sum) and `sum(l_extendedprice * (1 - l_discount) * (1 + l_tax))` (the four
** DECIMAL kernels eval_dec_arith calls, the constant 1 through a CONSTANT vector's selection, then
** the sum); and the first query as the scan runs it on two frame-of-reference DECIMAL segments
** (segment_filter_mask, segment_decode_vector, the sum), in the L2 cache like the decoding rows.
**
** Every pass returns a checksum (a count of rows, a sum, a min and max, or for the kernels that
** write a vector, the sum of one sampled row of each output); it must equal the one computed from
** the generated data, in every repetition, or the program stops naming the kernel (exit 1). The
** hash kernels' checksum is the XOR of the sampled rows' hashes (its top 53 bits). The
** checksums also keep the compiler (which inlines the kernels across files: LTO) from dropping
** the work. The process's peak RSS (ru_maxrss) ends the report. --save writes it with the
** environment and every repetition's time to bench/results/kernels-<date>-<commit>[-N].md/.json.
*/
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <simde/x86/avx2.h>

#include "../colstore/bitpack.h"
#include "../colstore/segment.h"
#include "../vector/kernel.h"
#include "../vector/vector_internal.h"
#include "hash.h"
#include "bench_common.h"

#ifndef BENCH_CFLAGS
#define BENCH_CFLAGS "unknown (not built by `make bench-kernels`)"
#endif
#ifndef BENCH_LIB
#define BENCH_LIB "unknown"
#endif

/* The kernels' instructions in this build (kernel.c chooses by the same simde macros). */
#if defined(SIMDE_X86_AVX512F_NATIVE)
#define SIMD_PATH "AVX-512 (simde's AVX2 code, native AVX-512 where kernel.c has a path)"
#elif defined(SIMDE_X86_AVX2_NATIVE)
#define SIMD_PATH "AVX2"
#else
#define SIMD_PATH "256-bit operations emulated by simde (SSE2 pairs or scalar)"
#endif

#define DEFAULT_ROWS ((size_t)64 << 20)
#define DEFAULT_BW_BYTES ((size_t)1 << 30)
#define QUICK_DIVISOR 16
#define DEFAULT_REPS 5
#define MAX_REPS 1000
#define QTY_CUT 50         /* qty > 50: half the rows */
#define AMOUNT_CUT 4999999 /* amount > 4,999,999: half */
#define PRICE_CUT 500.0    /* price > 500: half */

/* The predicates' constants. IN-lists of qty (5 items: the SIMD compares; 20: the bitmap) and of
** amount (20 items spread wide: the sorted search); ranges that keep half the rows; names (below) that start with PROMO. */
static const int32_t IN_SHORT[] = {3, 17, 42, 64, 99};
static const int32_t IN_LONG[] = {2, 5, 7, 11, 13, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79};
static const int64_t IN_AMOUNT[] = {12,      777777,  1000000, 2500000, 5000000, 8888888, 9999999,
                                     4242424, 31,      4096,    65536,   123456,  654321,  7000001,
                                     3141592, 2718281, 1414213, 1732050, 2236067, 9876543};
#define QTY_LO 26
#define QTY_HI 75
#define AMOUNT_LO 2500000
#define AMOUNT_HI 7499999
#define PRICE_LO 250.25
#define PRICE_HI 750.0
#define NIN(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

/* The DECIMAL rows' constants, as the binder leaves them: l_quantity < 24 is < 2400 at scale 2;
** Q6 is l_shipdate >= DATE '1994-01-01' (8766 days) AND l_shipdate < DATE '1995-01-01' (9131)
** AND l_discount BETWEEN 0.05 AND 0.07 (5..7) AND l_quantity < 24. */
#define LQ_CUT 2400
#define SHIP_LO 8766
#define SHIP_HI 9131
#define DISC_LO 5
#define DISC_HI 7
/* price * (1 - discount) * (1 + tax) as eval_dec_arith runs it (planner/expr.c), with the types
** dec_result_type gives: 1 - l_discount is DECIMAL(16,2) (the INTEGER 1 at scale 0, brought to
** scale 2 by the factor 100; a CONSTANT vector, read through its all-zero selection);
** l_extendedprice * that is DECIMAL(18,4) (p1 + p2 > 18: capped, no digit dropped), and times
** 1 + l_tax DECIMAL(18,6); every bound is the result type's 10^precision. */
#define LIM16 INT64_C(10000000000000000)
#define LIM18 INT64_C(1000000000000000000)

typedef struct options {
    size_t rows, bw_bytes;
    int reps, quick, save;
} options;

/* ---------------------------------------------------------------------------------------------
** The table, its expected checksums, and the per-vector buffers the kernels write into.
*/

typedef struct result {
    double v[2]; /* what bench.check names; v[1] is 0 when it names one figure */
} result;

enum {
    K_CMP_I32,
    K_CMP_I64,
    K_CMP_F64,
    K_MASK_TO_SEL,
    K_FILTER_SUM,
    K_SCALAR,
    K_SUM_I32,
    K_SUM_I64,
    K_SUM_F64,
    K_MINMAX_I32,
    K_ARITH_F64,
    K_TO_F64_I32,
    K_ARITH_I32,
    K_ARITH_I32_SCALAR,
    K_HASH_I64,
    K_HASH_I64_SCALAR,
    K_HASH_I32,
    K_HASH_F64,
    K_HASH_STR,
    K_HASH_STR_SCALAR,
    K_HASH2,
    K_IN_I32_SHORT,
    K_IN_I32_LONG,
    K_IN_I64,
    K_BETWEEN_I32,
    K_BETWEEN_I64,
    K_BETWEEN_F64,
    K_PREFIX,
    K_DICT_MASK,
    K_UNPACK3,
    K_UNPACK8,
    K_UNPACK17,
    K_UNPACK32,
    K_FOR_I32,
    K_FOR_I64,
    K_DICT_I32,
    K_DICT_I64,
    K_RLE_I32,
    K_DEC_CMP,
    K_DBL_CMP,
    K_DEC_FILTER_SUM,
    K_DBL_FILTER_SUM,
    K_DEC_Q6,
    K_DBL_Q6,
    K_DEC_EXPR,
    K_DBL_EXPR,
    K_DEC_SEG_FILTER_FOR,
    K_DEC_SEG_FILTER_DICT,
    K_DEC_SCAN_SUM,
    K_DEC_SCAN_DICT,
    K_COUNT
};

#define UNPACK_WIDTHS 4
static const unsigned unpack_width[UNPACK_WIDTHS] = {3, 8, 17, 32};

/* One column segment of the decoding rows, opened; src holds its values (as int64). */
typedef struct seg_bench {
    btree_buf buf;
    segment_reader r;
    vector out;
    uint32_t nvectors;
} seg_bench;

enum { SEG_FOR_I32, SEG_FOR_I64, SEG_DICT_I32, SEG_DICT_I64, SEG_RLE_I32, SEG_DEC_QTY, SEG_DEC_QTY_DICT, SEG_DEC_PRICE,
       SEG_BENCHES };

typedef struct table {
    size_t rows;
    int32_t *qty;
    int64_t *amount;
    double *price, *disc;
    sstr *name;         /* a string per row: names[qty] (an even qty's name is long: not inline) */
    uint64_t *qty_mask; /* bit i % 64 of word i / 64: qty[i] > QTY_CUT (kern_mask_to_sel's input) */
    uint8_t *packed[UNPACK_WIDTHS]; /* rows random values of unpack_width[j] bits, packed */
    /* TPC-H lineitem's columns as strata stores them: DECIMAL(15,2) as int64 counts of cents
    ** (l_quantity 100..5000, l_extendedprice 90,000..10,494,950, l_discount 0..10, l_tax 0..8)
    ** and DATE as int32 days (l_shipdate 1992-01-02..1998-12-01); and the same numbers as DOUBLE
    ** (still in cents, so that every sum of the DOUBLE rows is exact), for the DOUBLE rows. */
    int64_t *lq, *lp, *ld, *lt;
    int32_t *ship;
    double *fq, *fp, *fd, *ft;
    seg_bench seg[SEG_BENCHES];
    result want[K_COUNT];
} table;

static uint64_t mask_buf[KERN_WORDS(VECTOR_SIZE)] __attribute__((aligned(64)));
static sel_t sel_buf[VECTOR_SIZE] __attribute__((aligned(64)));
static double out_buf[VECTOR_SIZE] __attribute__((aligned(64)));
static int32_t i32_buf[VECTOR_SIZE] __attribute__((aligned(64)));
static uint64_t hash_buf[VECTOR_SIZE] __attribute__((aligned(64)));
static uint64_t u64_buf[VECTOR_SIZE] __attribute__((aligned(64)));
/* The segment decoding rows' bytes per row: their segments' sizes over their rows. */
static double segment_row_bytes[K_COUNT];

/* keep tells the compiler that the memory at p is read, so that a kernel's stores into it,
** of which the checksum samples one, cannot be dropped. */
static inline void keep(const void *p) { __asm__ volatile("" : : "r"(p) : "memory"); }

/* The output row that the checksums of kern_arith_f64 and kern_to_f64_i32 sample in the vector
** starting at row off: row v mod VECTOR_SIZE of vector v. */
static inline uint32_t sampled_row(size_t off) { return (uint32_t)(off / VECTOR_SIZE % VECTOR_SIZE); }

/* names[q] for q = 1..100: "PROMO BRUSHED STEEL #q" for an even q (a long string: its bytes
** past the 4-byte prefix are read through its pointer), "STD #q" for an odd one (inline). */
static char name_text[101][32];
static sstr names[101];
static uint64_t promo_bits[2]; /* the dictionary's entry bits: names[q] starts with PROMO */

static void names_make(void) {
    for (int q = 1; q <= 100; q++) {
        int len = snprintf(name_text[q], sizeof name_text[q], q % 2 ? "STD #%d" : "PROMO BRUSHED STEEL #%d", q);
        names[q] = sstr_make(name_text[q], (uint32_t)len);
        if (q % 2 == 0) promo_bits[q / 64] |= (uint64_t)1 << (q % 64);
    }
}

static bool in_list(const int32_t *items, uint32_t n, int32_t q) {
    for (uint32_t i = 0; i < n; i++)
        if (items[i] == q) return true;
    return false;
}

static void *column_alloc(size_t bytes) {
    void *p = aligned_alloc(VECTOR_ALIGN, (bytes + VECTOR_ALIGN - 1) / VECTOR_ALIGN * VECTOR_ALIGN);
    if (p == NULL) die("out of memory (%zu bytes)", bytes);
    return p;
}

/* hash_check is the checksum of the hash kernels: the sampled rows' hashes XOR-ed, its top 53
** bits (exact in a double). */
static double hash_check(uint64_t x) { return (double)(x >> 11); }
/* packed_make packs, for each width of unpack_width, rows random values of that width, and
** their checksum: the sum over vectors of value v mod VECTOR_SIZE of vector v. */
static void packed_make(table *t, uint64_t *s) {
    uint64_t *vals = column_alloc(VECTOR_SIZE * sizeof *vals);
    for (int j = 0; j < UNPACK_WIDTHS; j++) {
        unsigned w = unpack_width[j];
        uint64_t mask = (UINT64_C(1) << w) - 1, vbytes = bitpack_bytes(VECTOR_SIZE, w);
        t->packed[j] = column_alloc(t->rows / VECTOR_SIZE * vbytes);
        double sum = 0;
        for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
            for (uint32_t i = 0; i < VECTOR_SIZE; i++) vals[i] = splitmix64(s) & mask;
            bitpack_pack(vals, VECTOR_SIZE, w, t->packed[j] + off / VECTOR_SIZE * vbytes);
            sum += (double)vals[sampled_row(off)];
        }
        t->want[K_UNPACK3 + j].v[0] = sum;
    }
    free(vals);
}

/* seg_make builds one segment of SEGMENT_MAX_ROWS values vals (int64) of type id with encoding
** enc forced, opens it, and sets the checksum of its row k over the table's vectors. */
static void seg_make_typed(table *t, seg_bench *b, sql_type type, const int64_t *vals, int enc, int k) {
    strata_err err = {0};
    sql_type_id id = (sql_type_id)type.id;
    segment_builder sb;
    vector v;
    if (segment_builder_init(&sb, type, &err) || vec_init(&v, type, &err) || vec_init(&b->out, type, &err))
        die("segment builder: %s", err.msg);
    for (uint32_t off = 0; off < SEGMENT_MAX_ROWS; off += VECTOR_SIZE) {
        vec_reset(&v);
        for (uint32_t i = 0; i < VECTOR_SIZE; i++) {
            if (id == TYPE_INTEGER)
                VEC_DATA(&v, int32_t)[i] = (int32_t)vals[off + i];
            else
                VEC_DATA(&v, int64_t)[i] = vals[off + i];
        }
        if (segment_builder_append(&sb, &v, NULL, VECTOR_SIZE, &err)) die("segment append: %s", err.msg);
    }
    segment_options opt = {0, enc};
    if (segment_builder_finish(&sb, &opt, &b->buf, &err) ||
        segment_open(&b->r, b->buf.data, b->buf.len, type, &err))
        die("segment: %s", err.msg);
    seg_info info;
    segment_describe(&b->r, &info);
    if (info.encoding_id != enc) die("segment encoded as %s, not %s", info.encoding, seg_encoding_name(enc));
    b->nvectors = segment_nvectors(&b->r);
    if (k >= 0) segment_row_bytes[k] = (double)b->buf.len / SEGMENT_MAX_ROWS;
    double sum = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        uint32_t vec = (uint32_t)(off / VECTOR_SIZE % b->nvectors);
        sum += (double)vals[(size_t)vec * VECTOR_SIZE + sampled_row(off)];
    }
    if (k >= 0) t->want[k].v[0] = sum;
    vec_free(&v);
    segment_builder_free(&sb);
}

static void seg_make(table *t, seg_bench *b, sql_type_id id, const int64_t *vals, int enc, int k) {
    seg_make_typed(t, b, (sql_type){.id = (uint8_t)id}, vals, enc, k);
}

/* segs_make builds the decoding rows' segments from the first rows of qty and amount. */
static void segs_make(table *t, uint64_t *s) {
    int64_t *vals = column_alloc(SEGMENT_MAX_ROWS * sizeof *vals);
    for (uint32_t i = 0; i < SEGMENT_MAX_ROWS; i++) vals[i] = t->qty[i];
    seg_make(t, &t->seg[SEG_FOR_I32], TYPE_INTEGER, vals, SEG_FOR, K_FOR_I32);
    seg_make(t, &t->seg[SEG_DICT_I32], TYPE_INTEGER, vals, SEG_DICTIONARY, K_DICT_I32);
    for (uint32_t i = 0; i < SEGMENT_MAX_ROWS; i++) vals[i] = t->amount[i];
    seg_make(t, &t->seg[SEG_FOR_I64], TYPE_BIGINT, vals, SEG_FOR, K_FOR_I64);
    for (uint32_t i = 0; i < SEGMENT_MAX_ROWS; i++) vals[i] = t->amount[i % 1000] * 1000003;
    seg_make(t, &t->seg[SEG_DICT_I64], TYPE_BIGINT, vals, SEG_DICTIONARY, K_DICT_I64);
    for (uint32_t i = 0; i < SEGMENT_MAX_ROWS;) {
        uint32_t len = (uint32_t)(1 + below(s, 32));
        int64_t q = t->qty[i];
        for (uint32_t j = 0; j < len && i < SEGMENT_MAX_ROWS; j++) vals[i++] = q;
    }
    seg_make(t, &t->seg[SEG_RLE_I32], TYPE_INTEGER, vals, SEG_RLE, K_RLE_I32);
    /* l_quantity and l_extendedprice as DECIMAL(15,2) segments, frame of reference, and
    ** l_quantity also as a dictionary of its 50 values, as TPC-H's load stores it: the scan rows */
    sql_type dec = sql_type_decimal(15, 2);
    for (uint32_t i = 0; i < SEGMENT_MAX_ROWS; i++) vals[i] = t->lq[i];
    seg_make_typed(t, &t->seg[SEG_DEC_QTY], dec, vals, SEG_FOR, K_DEC_SEG_FILTER_FOR);
    seg_make_typed(t, &t->seg[SEG_DEC_QTY_DICT], dec, vals, SEG_DICTIONARY, K_DEC_SEG_FILTER_DICT);
    for (uint32_t i = 0; i < SEGMENT_MAX_ROWS; i++) vals[i] = t->lp[i];
    seg_make_typed(t, &t->seg[SEG_DEC_PRICE], dec, vals, SEG_FOR, -1);
    segment_row_bytes[K_DEC_SCAN_SUM] =
        (double)(t->seg[SEG_DEC_QTY].buf.len + t->seg[SEG_DEC_PRICE].buf.len) / SEGMENT_MAX_ROWS;
    segment_row_bytes[K_DEC_SCAN_DICT] =
        (double)(t->seg[SEG_DEC_QTY_DICT].buf.len + t->seg[SEG_DEC_PRICE].buf.len) / SEGMENT_MAX_ROWS;
    double sum = 0, kept = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        size_t base = off / VECTOR_SIZE % t->seg[SEG_DEC_QTY].nvectors * VECTOR_SIZE;
        for (uint32_t i = 0; i < VECTOR_SIZE; i++)
            if (t->lq[base + i] < LQ_CUT) sum += (double)t->lp[base + i], kept++;
    }
    t->want[K_DEC_SCAN_SUM] = t->want[K_DEC_SCAN_DICT] = (result){{sum, kept}};
    t->want[K_DEC_SEG_FILTER_FOR] = t->want[K_DEC_SEG_FILTER_DICT] = (result){{kept}};
    free(vals);
}

/* table_make generates the columns (deterministic, the same in every run) and, from the values,
** every kernel's expected checksum. rows is a multiple of VECTOR_SIZE: every vector is full. */
static void table_make(table *t, size_t rows) {
    if (rows % VECTOR_SIZE) die("%zu rows: not a multiple of %d", rows, VECTOR_SIZE);
    memset(t, 0, sizeof *t);
    t->rows = rows;
    t->qty = column_alloc(rows * sizeof *t->qty);
    t->amount = column_alloc(rows * sizeof *t->amount);
    t->price = column_alloc(rows * sizeof *t->price);
    t->disc = column_alloc(rows * sizeof *t->disc);
    t->name = column_alloc(rows * sizeof *t->name);
    names_make();
    t->qty_mask = column_alloc(rows / 8);
    memset(t->qty_mask, 0, rows / 8);
    t->lq = column_alloc(rows * sizeof *t->lq), t->lp = column_alloc(rows * sizeof *t->lp);
    t->ld = column_alloc(rows * sizeof *t->ld), t->lt = column_alloc(rows * sizeof *t->lt);
    t->ship = column_alloc(rows * sizeof *t->ship);
    t->fq = column_alloc(rows * sizeof *t->fq), t->fp = column_alloc(rows * sizeof *t->fp);
    t->fd = column_alloc(rows * sizeof *t->fd), t->ft = column_alloc(rows * sizeof *t->ft);
    __int128 dec_expr_sum = 0;
    uint64_t s = 0x6B65726E656C73u;
    uint64_t sampled_hash[5] = {0};
    result *w = t->want;
    w[K_MINMAX_I32].v[0] = INFINITY, w[K_MINMAX_I32].v[1] = -INFINITY;
    for (size_t i = 0; i < rows; i++) {
        int32_t q = (int32_t)(1 + below(&s, 100));
        int64_t a = (int64_t)below(&s, 10000000);
        double p = (double)(1 + below(&s, 3999)) * 0.25, d = (double)(1 + below(&s, 8)) * 0.125;
        t->qty[i] = q, t->amount[i] = a, t->price[i] = p, t->disc[i] = d, t->name[i] = names[q];
        w[K_IN_I32_SHORT].v[0] += in_list(IN_SHORT, NIN(IN_SHORT), q);
        w[K_IN_I32_LONG].v[0] += in_list(IN_LONG, NIN(IN_LONG), q);
        for (uint32_t k = 0; k < NIN(IN_AMOUNT); k++) w[K_IN_I64].v[0] += a == IN_AMOUNT[k];
        w[K_BETWEEN_I32].v[0] += q >= QTY_LO && q <= QTY_HI;
        w[K_BETWEEN_I64].v[0] += a >= AMOUNT_LO && a <= AMOUNT_HI;
        w[K_BETWEEN_F64].v[0] += p >= PRICE_LO && p <= PRICE_HI;
        w[K_PREFIX].v[0] += q % 2 == 0;
        w[K_DICT_MASK].v[0] += q % 2 == 0;
        if (q > QTY_CUT) {
            t->qty_mask[i / 64] |= (uint64_t)1 << (i % 64);
            w[K_CMP_I32].v[0]++, w[K_MASK_TO_SEL].v[0]++;
            w[K_FILTER_SUM].v[0] += p, w[K_FILTER_SUM].v[1]++;
        }
        {
            int64_t lq = 100 * (int64_t)(1 + below(&s, 50)), lp = 90000 + (int64_t)below(&s, 10404951);
            int64_t ld = (int64_t)below(&s, 11), lt = (int64_t)below(&s, 9);
            int32_t sd = 8037 + (int32_t)below(&s, 2526);
            t->lq[i] = lq, t->lp[i] = lp, t->ld[i] = ld, t->lt[i] = lt, t->ship[i] = sd;
            t->fq[i] = (double)lq, t->fp[i] = (double)lp, t->fd[i] = (double)ld, t->ft[i] = (double)lt;
            int64_t e = lp * (100 - ld) * (100 + lt);
            dec_expr_sum += e;
            if (lq < LQ_CUT) {
                w[K_DEC_CMP].v[0]++, w[K_DBL_CMP].v[0]++;
                w[K_DEC_FILTER_SUM].v[0] += (double)lp, w[K_DEC_FILTER_SUM].v[1]++; /* below 2^53: exact */
                if (sd >= SHIP_LO && sd < SHIP_HI && ld >= DISC_LO && ld <= DISC_HI)
                    w[K_DEC_Q6].v[0] += (double)(lp * ld), w[K_DEC_Q6].v[1]++;
            }
            if (i % VECTOR_SIZE == sampled_row(i / VECTOR_SIZE * VECTOR_SIZE)) w[K_DBL_EXPR].v[0] += (double)e;
        }
        w[K_CMP_I64].v[0] += a > AMOUNT_CUT;
        w[K_CMP_F64].v[0] += p > PRICE_CUT;
        w[K_SUM_I32].v[0] += q, w[K_SUM_I32].v[1]++;
        w[K_SUM_I64].v[0] += (double)a, w[K_SUM_I64].v[1]++; /* below 2^53: exact */
        w[K_SUM_F64].v[0] += p, w[K_SUM_F64].v[1]++;
        w[K_MINMAX_I32].v[0] = fmin(w[K_MINMAX_I32].v[0], q);
        w[K_MINMAX_I32].v[1] = fmax(w[K_MINMAX_I32].v[1], q);
        if (i % VECTOR_SIZE == sampled_row(i / VECTOR_SIZE * VECTOR_SIZE)) {
            w[K_ARITH_F64].v[0] += p * d;
            w[K_TO_F64_I32].v[0] += q;
            w[K_ARITH_I32].v[0] += q * q;
            sampled_hash[0] ^= hash_i64(a);
            sampled_hash[1] ^= hash_i64(q);
            sampled_hash[2] ^= hash_f64(p);
            sampled_hash[3] ^= hash_sstr(&t->name[i]);
            sampled_hash[4] ^= hash_combine(hash_i64(q), hash_i64(a));
        }
    }
    w[K_SCALAR] = w[K_FILTER_SUM];
    w[K_DBL_FILTER_SUM] = w[K_DEC_FILTER_SUM];
    w[K_DBL_Q6] = w[K_DEC_Q6];
    w[K_DEC_EXPR].v[0] = (double)dec_expr_sum, w[K_DEC_EXPR].v[1] = (double)rows;
    w[K_DBL_EXPR].v[1] = (double)rows;
    w[K_ARITH_I32_SCALAR] = w[K_ARITH_I32];
    w[K_HASH_I64].v[0] = w[K_HASH_I64_SCALAR].v[0] = hash_check(sampled_hash[0]);
    w[K_HASH_I32].v[0] = hash_check(sampled_hash[1]);
    w[K_HASH_F64].v[0] = hash_check(sampled_hash[2]);
    w[K_HASH_STR].v[0] = w[K_HASH_STR_SCALAR].v[0] = hash_check(sampled_hash[3]);
    w[K_HASH2].v[0] = hash_check(sampled_hash[4]);
    packed_make(t, &s);
    segs_make(t, &s);
}

static void table_free(table *t) {
    free(t->qty), free(t->amount), free(t->price), free(t->disc), free(t->name), free(t->qty_mask);
    free(t->lq), free(t->lp), free(t->ld), free(t->lt), free(t->ship);
    free(t->fq), free(t->fp), free(t->fd), free(t->ft);
    for (int j = 0; j < UNPACK_WIDTHS; j++) free(t->packed[j]);
    for (int j = 0; j < SEG_BENCHES; j++) {
        segment_reader_close(&t->seg[j].r);
        btree_buf_free(&t->seg[j].buf);
        vec_free(&t->seg[j].out);
    }
}

/* ---------------------------------------------------------------------------------------------
** One pass of each kernel over the table; each returns its checksum.
*/

/* The executor passes a kernel its operation and row count at run time: they are read through
** volatile here, so that the compiler, which sees the kernels' code (LTO), cannot specialize them
** for constants. */
static volatile uint32_t vector_rows = VECTOR_SIZE;
static volatile int op_gt = KERN_GT, op_mul = KERN_MUL;

static uint64_t mask_count(void) {
    uint64_t c = 0;
    for (uint32_t w = 0; w < KERN_WORDS(VECTOR_SIZE); w++)
        c += (uint64_t)__builtin_popcountll(mask_buf[w]);
    return c;
}

static result pass_cmp_i32(const table *t) {
    const uint32_t n = vector_rows;
    const kern_cmp gt = (kern_cmp)op_gt;
    uint64_t c = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        kern_cmp_i32(gt, t->qty + off, NULL, n, QTY_CUT, mask_buf);
        c += mask_count();
    }
    return (result){{(double)c, 0}};
}

static result pass_cmp_i64(const table *t) {
    const uint32_t n = vector_rows;
    const kern_cmp gt = (kern_cmp)op_gt;
    uint64_t c = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        kern_cmp_i64(gt, t->amount + off, NULL, n, AMOUNT_CUT, mask_buf);
        c += mask_count();
    }
    return (result){{(double)c, 0}};
}

static result pass_cmp_f64(const table *t) {
    const uint32_t n = vector_rows;
    const kern_cmp gt = (kern_cmp)op_gt;
    uint64_t c = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        kern_cmp_f64(gt, t->price + off, NULL, n, PRICE_CUT, mask_buf);
        c += mask_count();
    }
    return (result){{(double)c, 0}};
}

/* kern_mask_to_sel over the masks of qty > 50 (what pass_cmp_i32 computes), made in advance. */
static result pass_mask_to_sel(const table *t) {
    const uint32_t n = vector_rows;
    uint64_t c = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        c += kern_mask_to_sel(t->qty_mask + off / 64, n, sel_buf);
        keep(sel_buf);
    }
    return (result){{(double)c, 0}};
}

/* SELECT sum(price) FROM t WHERE qty > 50, as the executor runs it: compare, select, sum. */
static result pass_filter_sum(const table *t) {
    const uint32_t n = vector_rows;
    const kern_cmp gt = (kern_cmp)op_gt;
    double sum = 0;
    int64_t rows = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        kern_cmp_i32(gt, t->qty + off, NULL, n, QTY_CUT, mask_buf);
        uint32_t k = kern_mask_to_sel(mask_buf, n, sel_buf);
        int64_t count;
        sum += kern_sum_f64(t->price + off, sel_buf, NULL, k, &count);
        rows += count;
    }
    return (result){{sum, (double)rows}};
}

/* The same query as a plain C loop, one row at a time: the reference. */
static result pass_scalar(const table *t) {
    double sum = 0;
    int64_t rows = 0;
    for (size_t i = 0; i < t->rows; i++)
        if (t->qty[i] > QTY_CUT) {
            sum += t->price[i];
            rows++;
        }
    return (result){{sum, (double)rows}};
}

static result pass_sum_i32(const table *t) {
    const uint32_t n = vector_rows;
    __int128 sum = 0;
    int64_t rows = 0, count;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        sum += kern_sum_i32(t->qty + off, NULL, NULL, n, &count);
        rows += count;
    }
    return (result){{(double)sum, (double)rows}};
}

static result pass_sum_i64(const table *t) {
    const uint32_t n = vector_rows;
    __int128 sum = 0;
    int64_t rows = 0, count;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        sum += kern_sum_i64(t->amount + off, NULL, NULL, n, &count);
        rows += count;
    }
    return (result){{(double)sum, (double)rows}};
}

static result pass_sum_f64(const table *t) {
    const uint32_t n = vector_rows;
    double sum = 0;
    int64_t rows = 0, count;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        sum += kern_sum_f64(t->price + off, NULL, NULL, n, &count);
        rows += count;
    }
    return (result){{sum, (double)rows}};
}

static result pass_minmax_i32(const table *t) {
    const uint32_t n = vector_rows;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        int64_t vlo = INT64_MAX, vhi = INT64_MIN;
        kern_minmax_i32(t->qty + off, NULL, NULL, n, &vlo, &vhi);
        lo = vlo < lo ? vlo : lo;
        hi = vhi > hi ? vhi : hi;
    }
    return (result){{(double)lo, (double)hi}};
}

/* price * disc; no product is zero or infinite, so no vector may ask for a second look. */
static result pass_arith_f64(const table *t) {
    const uint32_t n = vector_rows;
    const kern_arith mul = (kern_arith)op_mul;
    double sum = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        if (kern_arith_f64(mul, t->price + off, NULL, t->disc + off, NULL, n, out_buf))
            die("kern_arith_f64 flagged the vector at row %zu, which holds no zero or infinite product", off);
        keep(out_buf);
        sum += out_buf[sampled_row(off)];
    }
    return (result){{sum, 0}};
}

static result pass_to_f64_i32(const table *t) {
    const uint32_t n = vector_rows;
    double sum = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        kern_to_f64_i32(t->qty + off, NULL, n, out_buf);
        keep(out_buf);
        sum += out_buf[sampled_row(off)];
    }
    return (result){{sum, 0}};
}

/* qty * qty through kern_arith_i32 (INTEGER *, checked once per vector); no product overflows. */
static result pass_arith_i32(const table *t) {
    const uint32_t n = vector_rows;
    const kern_arith mul = (kern_arith)op_mul;
    double sum = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        if (kern_arith_i32(mul, t->qty + off, NULL, t->qty + off, NULL, n, i32_buf))
            die("kern_arith_i32 flagged the vector at row %zu, where no product overflows", off);
        keep(i32_buf);
        sum += i32_buf[sampled_row(off)];
    }
    return (result){{sum, 0}};
}

/* The same as a scalar loop checking each product (__builtin_mul_overflow), the reference. */
static result pass_arith_i32_scalar(const table *t) {
    const uint32_t n = vector_rows;
    double sum = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        const int32_t *q = t->qty + off;
        bool ovf = false;
        for (uint32_t r = 0; r < n; r++) ovf |= __builtin_mul_overflow(q[r], q[r], &i32_buf[r]);
        if (ovf) die("a product overflowed at row %zu", off);
        keep(i32_buf);
        sum += i32_buf[sampled_row(off)];
    }
    return (result){{sum, 0}};
}

/* HASH_PASS: a pass of one hash kernel call per vector, the checksum of its sampled rows. */
#define HASH_PASS(NAME, CALL)                                                                    \
    static result NAME(const table *t) {                                                         \
        const uint32_t n = vector_rows;                                                          \
        uint64_t x = 0;                                                                          \
        for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {                                \
            CALL;                                                                                \
            keep(hash_buf);                                                                      \
            x ^= hash_buf[sampled_row(off)];                                                     \
        }                                                                                        \
        return (result){{hash_check(x), 0}};                                                     \
    }

/* The scalar loops vec_hash ran before the kernels: hash_i64 and hash_bytes (not inlined) per row. */
static void hash_i64_scalar(const int64_t *d, uint32_t n, uint64_t *h) {
    for (uint32_t r = 0; r < n; r++) h[r] = hash_i64(d[r]);
}
static void hash_str_scalar(const sstr *d, uint32_t n, uint64_t *h) {
    for (uint32_t r = 0; r < n; r++) h[r] = hash_bytes(sstr_data(&d[r]), d[r].len, 0);
}

HASH_PASS(pass_hash_i64, kern_hash_i64(t->amount + off, NULL, NULL, n, hash_buf))
HASH_PASS(pass_hash_i64_scalar, hash_i64_scalar(t->amount + off, n, hash_buf))
HASH_PASS(pass_hash_i32, kern_hash_i32(t->qty + off, NULL, NULL, n, hash_buf))
HASH_PASS(pass_hash_f64, kern_hash_f64(t->price + off, NULL, NULL, n, hash_buf))
HASH_PASS(pass_hash_str, kern_hash_str(t->name + off, NULL, NULL, n, hash_buf))
HASH_PASS(pass_hash_str_scalar, hash_str_scalar(t->name + off, n, hash_buf))
HASH_PASS(pass_hash2, (kern_hash_i32(t->qty + off, NULL, NULL, n, hash_buf),
                       kern_hash_combine_i64(t->amount + off, NULL, NULL, n, hash_buf)))
/* The IN-lists as kern_in_prepare_T leaves them (made once, as the executor does per statement). */
static int32_t in_short[NIN(IN_SHORT)], in_long[NIN(IN_LONG)];
static int64_t in_amount[NIN(IN_AMOUNT)];
static uint32_t n_short, n_long, n_amount;

static void lists_make(void) {
    memcpy(in_short, IN_SHORT, sizeof in_short);
    memcpy(in_long, IN_LONG, sizeof in_long);
    memcpy(in_amount, IN_AMOUNT, sizeof in_amount);
    n_short = kern_in_prepare_i32(in_short, NIN(IN_SHORT));
    n_long = kern_in_prepare_i32(in_long, NIN(IN_LONG));
    n_amount = kern_in_prepare_i64(in_amount, NIN(IN_AMOUNT));
}

static result pass_in_i32_short(const table *t) {
    const uint32_t n = vector_rows;
    uint64_t c = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        kern_in_i32(t->qty + off, NULL, n, in_short, n_short, mask_buf);
        c += mask_count();
    }
    return (result){{(double)c, 0}};
}

static result pass_in_i32_long(const table *t) {
    const uint32_t n = vector_rows;
    uint64_t c = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        kern_in_i32(t->qty + off, NULL, n, in_long, n_long, mask_buf);
        c += mask_count();
    }
    return (result){{(double)c, 0}};
}

static result pass_in_i64(const table *t) {
    const uint32_t n = vector_rows;
    uint64_t c = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        kern_in_i64(t->amount + off, NULL, n, in_amount, n_amount, mask_buf);
        c += mask_count();
    }
    return (result){{(double)c, 0}};
}

static volatile int32_t qty_lo = QTY_LO, qty_hi = QTY_HI;
static volatile int64_t amount_lo = AMOUNT_LO, amount_hi = AMOUNT_HI;
static volatile double price_lo = PRICE_LO, price_hi = PRICE_HI;

static result pass_between_i32(const table *t) {
    const uint32_t n = vector_rows;
    const int32_t lo = qty_lo, hi = qty_hi;
    uint64_t c = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        kern_between_i32(t->qty + off, NULL, n, lo, hi, mask_buf);
        c += mask_count();
    }
    return (result){{(double)c, 0}};
}

static result pass_between_i64(const table *t) {
    const uint32_t n = vector_rows;
    const int64_t lo = amount_lo, hi = amount_hi;
    uint64_t c = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        kern_between_i64(t->amount + off, NULL, n, lo, hi, mask_buf);
        c += mask_count();
    }
    return (result){{(double)c, 0}};
}

static result pass_between_f64(const table *t) {
    const uint32_t n = vector_rows;
    const double lo = price_lo, hi = price_hi;
    uint64_t c = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        kern_between_f64(t->price + off, NULL, n, lo, hi, mask_buf);
        c += mask_count();
    }
    return (result){{(double)c, 0}};
}

static result pass_prefix(const table *t) {
    const uint32_t n = vector_rows;
    uint64_t c = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        kern_prefix(t->name + off, NULL, n, "PROMO", 5, mask_buf);
        c += mask_count();
    }
    return (result){{(double)c, 0}};
}

/* A dictionary of the 100 names, its entries decided once (promo_bits); qty serves as the codes. */
static result pass_dict_mask(const table *t) {
    const uint32_t n = vector_rows;
    uint64_t c = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        kern_dict_mask(promo_bits, 101, (const sel_t *)(const void *)(t->qty + off), n, mask_buf);
        c += mask_count();
    }
    return (result){{(double)c, 0}};
}
/* bitpack_unpack of a packed column, a vector at a time, into one uint64 buffer. */
static result pass_unpack(const table *t, int j) {
    const uint32_t n = vector_rows;
    unsigned w = unpack_width[j];
    uint64_t vbytes = bitpack_bytes(VECTOR_SIZE, w);
    double sum = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        bitpack_unpack(t->packed[j] + off / VECTOR_SIZE * vbytes, n, w, u64_buf);
        keep(u64_buf);
        sum += (double)u64_buf[sampled_row(off)];
    }
    return (result){{sum, 0}};
}
static result pass_unpack3(const table *t) { return pass_unpack(t, 0); }
static result pass_unpack8(const table *t) { return pass_unpack(t, 1); }
static result pass_unpack17(const table *t) { return pass_unpack(t, 2); }
static result pass_unpack32(const table *t) { return pass_unpack(t, 3); }

/* segment_decode_vector over a segment's vectors in turn, one vector per table vector. */
static result pass_segment(const table *t, int j) {
    seg_bench *b = (seg_bench *)&t->seg[j];
    strata_err err = {0};
    double sum = 0;
    int wide = b->out.phys == PHYS_I64;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        uint32_t vec = (uint32_t)(off / VECTOR_SIZE % b->nvectors);
        if (segment_decode_vector(&b->r, vec, &b->out, &err)) die("decode: %s", err.msg);
        keep(b->out.data);
        uint32_t i = sampled_row(off);
        sum += wide ? (double)VEC_DATA(&b->out, int64_t)[i] : (double)VEC_DATA(&b->out, int32_t)[i];
    }
    return (result){{sum, 0}};
}
static result pass_for_i32(const table *t) { return pass_segment(t, SEG_FOR_I32); }
static result pass_for_i64(const table *t) { return pass_segment(t, SEG_FOR_I64); }
static result pass_dict_i32(const table *t) { return pass_segment(t, SEG_DICT_I32); }
static result pass_dict_i64(const table *t) { return pass_segment(t, SEG_DICT_I64); }
static result pass_rle_i32(const table *t) { return pass_segment(t, SEG_RLE_I32); }

/* ---- the DECIMAL paths of issue 24's queries, and the same queries on DOUBLE columns ---------- */

static volatile int op_lt = KERN_LT, op_ge = KERN_GE;
static int64_t i64_a[VECTOR_SIZE] __attribute__((aligned(64))), i64_b[VECTOR_SIZE] __attribute__((aligned(64)));
static int64_t i64_c[VECTOR_SIZE] __attribute__((aligned(64)));
static double f64_a[VECTOR_SIZE] __attribute__((aligned(64))), f64_b[VECTOR_SIZE] __attribute__((aligned(64)));
static double f64_c[VECTOR_SIZE] __attribute__((aligned(64)));
/* a CONSTANT vector's selection, every row slot 0: the one vec_make_constant gives, which the
** executor passes for the 1 of 1 - l_discount */
#define zero_sel vec_zero_sel
static volatile double sink;

/* l_quantity < 24 on DECIMAL(15,2): kern_cmp_i64 against 2400. */
static result pass_dec_cmp(const table *t) {
    const uint32_t n = vector_rows;
    const kern_cmp lt = (kern_cmp)op_lt;
    uint64_t c = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        kern_cmp_i64(lt, t->lq + off, NULL, n, LQ_CUT, mask_buf);
        c += mask_count();
    }
    return (result){{(double)c, 0}};
}

static result pass_dbl_cmp(const table *t) {
    const uint32_t n = vector_rows;
    const kern_cmp lt = (kern_cmp)op_lt;
    uint64_t c = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        kern_cmp_f64(lt, t->fq + off, NULL, n, LQ_CUT, mask_buf);
        c += mask_count();
    }
    return (result){{(double)c, 0}};
}

/* SELECT sum(l_extendedprice) FROM lineitem WHERE l_quantity < 24: compare, select, and the
** int128 sum of the selected rows (agg_sum_one's kern_sum_i64 through the selection). */
static result pass_dec_filter_sum(const table *t) {
    const uint32_t n = vector_rows;
    const kern_cmp lt = (kern_cmp)op_lt;
    __int128 sum = 0;
    int64_t rows = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        kern_cmp_i64(lt, t->lq + off, NULL, n, LQ_CUT, mask_buf);
        uint32_t k = kern_mask_to_sel(mask_buf, n, sel_buf);
        int64_t count;
        sum += kern_sum_i64(t->lp + off, sel_buf, NULL, k, &count);
        rows += count;
    }
    return (result){{(double)sum, (double)rows}};
}

static result pass_dbl_filter_sum(const table *t) {
    const uint32_t n = vector_rows;
    const kern_cmp lt = (kern_cmp)op_lt;
    double sum = 0;
    int64_t rows = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        kern_cmp_f64(lt, t->fq + off, NULL, n, LQ_CUT, mask_buf);
        uint32_t k = kern_mask_to_sel(mask_buf, n, sel_buf);
        int64_t count;
        sum += kern_sum_f64(t->fp + off, sel_buf, NULL, k, &count);
        rows += count;
    }
    return (result){{sum, (double)rows}};
}

static void mask_and(uint64_t *m, const uint64_t *b, uint32_t n) {
    for (uint32_t w = 0; w < KERN_WORDS(n); w++) m[w] &= b[w];
}

/* Q6: each conjunct over the vector into a mask (leaf_rows), the masks ANDed, the selection,
** then l_extendedprice * l_discount through it (kern_dec_mul: DECIMAL(15,2) x DECIMAL(15,2) is
** DECIMAL(18,4), capped, bound 10^18) and the int128 sum of the flat product. */
static result pass_dec_q6(const table *t) {
    const uint32_t n = vector_rows;
    const kern_cmp lt = (kern_cmp)op_lt, ge = (kern_cmp)op_ge;
    __int128 sum = 0;
    int64_t rows = 0;
    uint64_t m2[KERN_WORDS(VECTOR_SIZE)];
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        kern_cmp_i32(ge, t->ship + off, NULL, n, SHIP_LO, mask_buf);
        kern_cmp_i32(lt, t->ship + off, NULL, n, SHIP_HI, m2), mask_and(mask_buf, m2, n);
        kern_between_i64(t->ld + off, NULL, n, DISC_LO, DISC_HI, m2), mask_and(mask_buf, m2, n);
        kern_cmp_i64(lt, t->lq + off, NULL, n, LQ_CUT, m2), mask_and(mask_buf, m2, n);
        uint32_t k = kern_mask_to_sel(mask_buf, n, sel_buf);
        if (!kern_dec_mul(t->lp + off, sel_buf, t->ld + off, sel_buf, k, LIM18, i64_a))
            die("kern_dec_mul gave up on the vector at row %zu, where every operand fits", off);
        int64_t count;
        sum += kern_sum_i64(i64_a, NULL, NULL, k, &count);
        rows += count;
    }
    return (result){{(double)sum, (double)rows}};
}

static result pass_dbl_q6(const table *t) {
    const uint32_t n = vector_rows;
    const kern_cmp lt = (kern_cmp)op_lt, ge = (kern_cmp)op_ge;
    const kern_arith mul = (kern_arith)op_mul;
    double sum = 0;
    int64_t rows = 0;
    uint64_t m2[KERN_WORDS(VECTOR_SIZE)];
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        kern_cmp_i32(ge, t->ship + off, NULL, n, SHIP_LO, mask_buf);
        kern_cmp_i32(lt, t->ship + off, NULL, n, SHIP_HI, m2), mask_and(mask_buf, m2, n);
        kern_between_f64(t->fd + off, NULL, n, DISC_LO, DISC_HI, m2), mask_and(mask_buf, m2, n);
        kern_cmp_f64(lt, t->fq + off, NULL, n, LQ_CUT, m2), mask_and(mask_buf, m2, n);
        uint32_t k = kern_mask_to_sel(mask_buf, n, sel_buf);
        if (kern_arith_f64(mul, t->fp + off, sel_buf, t->fd + off, sel_buf, k, f64_a)) {
            /* a zero discount's product is zero: the executor looks at those rows again, and so
            ** here, but every one of them is exact */
        }
        int64_t count;
        sum += kern_sum_f64(f64_a, NULL, NULL, k, &count);
        rows += count;
    }
    return (result){{sum, (double)rows}};
}

/* sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as eval_dec_arith computes it: kern_dec_sub
** (the constant 1 through its zero selection, factor 100), kern_dec_mul, kern_dec_add, kern_dec_mul,
** then kern_sum_i64 of the flat result. */
static result pass_dec_expr(const table *t) {
    const uint32_t n = vector_rows;
    static const int64_t one = 1;
    __int128 sum = 0;
    int64_t rows = 0, count;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        bool ok = kern_dec_sub(&one, zero_sel, 100, t->ld + off, NULL, 1, n, LIM16, i64_a);
        ok = ok && kern_dec_mul(t->lp + off, NULL, i64_a, NULL, n, LIM18, i64_b);
        ok = ok && kern_dec_add(&one, zero_sel, 100, t->lt + off, NULL, 1, n, LIM16, i64_a);
        ok = ok && kern_dec_mul(i64_b, NULL, i64_a, NULL, n, LIM18, i64_c);
        if (!ok) die("a DECIMAL kernel gave up on the vector at row %zu, where every operand fits", off);
        sum += kern_sum_i64(i64_c, NULL, NULL, n, &count);
        rows += count;
    }
    return (result){{(double)sum, (double)rows}};
}

/* The same on DOUBLE columns (in cents: price * (100 - disc) * (100 + tax), the same operations;
** eval_dbl_arith's kern_arith_f64 with the constant through its zero selection). The sum of 64 Mi
** products is not exact in a double: the checksum is the sampled sum of the products, and rows. */
static result pass_dbl_expr(const table *t) {
    const uint32_t n = vector_rows;
    const kern_arith mul = (kern_arith)op_mul;
    static const double hundred = 100;
    double sum = 0, sampled = 0;
    int64_t rows = 0, count;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        kern_arith_f64(KERN_SUB, &hundred, zero_sel, t->fd + off, NULL, n, f64_a);
        kern_arith_f64(mul, t->fp + off, NULL, f64_a, NULL, n, f64_b);
        kern_arith_f64(KERN_ADD, &hundred, zero_sel, t->ft + off, NULL, n, f64_a);
        kern_arith_f64(mul, f64_b, NULL, f64_a, NULL, n, f64_c);
        sum += kern_sum_f64(f64_c, NULL, NULL, n, &count);
        sampled += f64_c[sampled_row(off)];
        rows += count;
    }
    sink = sum;
    return (result){{sampled, (double)rows}};
}

/* The scan's pushed-down l_quantity < 24 alone: segment_filter_mask on each vector of segment
** which (SEG_DEC_QTY: the compare on the packed offsets; SEG_DEC_QTY_DICT: the entries once, then
** the codes through kern_dict_mask_checked), the rows kept counted. */
static result seg_filter_rows(const table *t, int which) {
    seg_bench *q = (seg_bench *)&t->seg[which];
    const uint32_t n = vector_rows;
    strata_err err = {0};
    seg_cond cond = {SEG_LT, {.i = LQ_CUT}};
    int64_t rows = 0;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        uint32_t vec = (uint32_t)(off / VECTOR_SIZE % q->nvectors);
        if (segment_filter_mask(&q->r, vec, &cond, 1, mask_buf, &err)) die("filter: %s", err.msg);
        for (uint32_t w = 0; w < KERN_WORDS(n); w++) rows += __builtin_popcountll(mask_buf[w]);
    }
    return (result){{(double)rows}};
}

static result pass_dec_seg_filter_for(const table *t) { return seg_filter_rows(t, SEG_DEC_QTY); }
static result pass_dec_seg_filter_dict(const table *t) { return seg_filter_rows(t, SEG_DEC_QTY_DICT); }

/* The first query as the scan runs it on DECIMAL(15,2) segments (in the L2 cache like the
** decoding rows): segment_filter_mask on l_quantity's vector of segment which (frame of
** reference or dictionary), the selection, segment_decode_vector of l_extendedprice's vector
** (frame of reference), kern_sum_i64 through the selection. */
static result scan_sum(const table *t, int which) {
    seg_bench *q = (seg_bench *)&t->seg[which], *p = (seg_bench *)&t->seg[SEG_DEC_PRICE];
    const uint32_t n = vector_rows;
    strata_err err = {0};
    seg_cond cond = {SEG_LT, {.i = LQ_CUT}};
    __int128 sum = 0;
    int64_t rows = 0, count;
    for (size_t off = 0; off < t->rows; off += VECTOR_SIZE) {
        uint32_t vec = (uint32_t)(off / VECTOR_SIZE % q->nvectors);
        if (segment_filter_mask(&q->r, vec, &cond, 1, mask_buf, &err)) die("filter: %s", err.msg);
        uint32_t k = kern_mask_to_sel(mask_buf, n, sel_buf);
        vec_reset(&p->out);
        if (segment_decode_vector(&p->r, vec, &p->out, &err)) die("decode: %s", err.msg);
        sum += kern_sum_i64(p->out.data, sel_buf, p->out.validity, k, &count);
        rows += count;
    }
    return (result){{(double)sum, (double)rows}};
}

static result pass_dec_scan_sum(const table *t) { return scan_sum(t, SEG_DEC_QTY); }
static result pass_dec_scan_dict(const table *t) { return scan_sum(t, SEG_DEC_QTY_DICT); }

typedef struct bench {
    const char *name;     /* the table's first column */
    const char *reads;    /* the columns read */
    double bytes_per_row; /* of those columns */
    const char *check;    /* what the checksum's figures are */
    result (*pass)(const table *t);
} bench;

/* In the order of the K_ constants. */
static const bench benches[K_COUNT] = {
    {"kern_cmp_i32 qty > 50 → mask", "qty (int32)", 4, "rows kept", pass_cmp_i32},
    {"kern_cmp_i64 amount > 4999999 → mask", "amount (int64)", 8, "rows kept", pass_cmp_i64},
    {"kern_cmp_f64 price > 500 → mask", "price (double)", 8, "rows kept", pass_cmp_f64},
    {"kern_mask_to_sel (masks of qty > 50)", "mask (1 bit/row)", 0.125, "rows selected", pass_mask_to_sel},
    {"filter + sum: cmp_i32 + mask_to_sel + sum_f64 (sel)", "qty, price", 12, "sum; rows", pass_filter_sum},
    {"filter + sum: scalar C loop (reference)", "qty, price", 12, "sum; rows", pass_scalar},
    {"kern_sum_i32", "qty (int32)", 4, "sum; rows", pass_sum_i32},
    {"kern_sum_i64", "amount (int64)", 8, "sum; rows", pass_sum_i64},
    {"kern_sum_f64", "price (double)", 8, "sum; rows", pass_sum_f64},
    {"kern_minmax_i32", "qty (int32)", 4, "min; max", pass_minmax_i32},
    {"kern_arith_f64 price * disc", "price, disc", 16, "sampled sum", pass_arith_f64},
    {"kern_to_f64_i32 qty", "qty (int32)", 4, "sampled sum", pass_to_f64_i32},
    {"kern_arith_i32 qty * qty (checked)", "qty (int32)", 4, "sampled sum", pass_arith_i32},
    {"qty * qty: scalar checked loop (reference)", "qty (int32)", 4, "sampled sum", pass_arith_i32_scalar},
    {"kern_hash_i64 amount", "amount (int64)", 8, "sampled hashes", pass_hash_i64},
    {"hash amount: scalar hash_i64 loop (reference)", "amount (int64)", 8, "sampled hashes", pass_hash_i64_scalar},
    {"kern_hash_i32 qty", "qty (int32)", 4, "sampled hashes", pass_hash_i32},
    {"kern_hash_f64 price", "price (double)", 8, "sampled hashes", pass_hash_f64},
    {"kern_hash_str name", "name (sstr)", 16, "sampled hashes", pass_hash_str},
    {"hash name: scalar hash_bytes loop (reference)", "name (sstr)", 16, "sampled hashes", pass_hash_str_scalar},
    {"kern_hash_i32 qty + kern_hash_combine_i64 amount", "qty, amount", 12, "sampled hashes", pass_hash2},
    {"kern_in_i32 qty IN (5 items) → mask", "qty (int32)", 4, "rows kept", pass_in_i32_short},
    {"kern_in_i32 qty IN (20 items within 100 values: bitmap) → mask", "qty (int32)", 4, "rows kept", pass_in_i32_long},
    {"kern_in_i64 amount IN (20 items: sorted search) → mask", "amount (int64)", 8, "rows kept", pass_in_i64},
    {"kern_between_i32 qty BETWEEN 26 AND 75 → mask", "qty (int32)", 4, "rows kept", pass_between_i32},
    {"kern_between_i64 amount BETWEEN 2500000 AND 7499999 → mask", "amount (int64)", 8, "rows kept",
     pass_between_i64},
    {"kern_between_f64 price BETWEEN 250.25 AND 750 → mask", "price (double)", 8, "rows kept", pass_between_f64},
    {"kern_prefix name LIKE 'PROMO%' → mask", "name (sstr, 16 bytes)", 16, "rows kept", pass_prefix},
    {"kern_dict_mask (100-entry dictionary, qty as codes)", "codes (uint32)", 4, "rows kept", pass_dict_mask},
    {"bitpack_unpack w=3 → uint64", "packed (3 bits)", 3 / 8.0, "sampled sum", pass_unpack3},
    {"bitpack_unpack w=8 → uint64", "packed (8 bits)", 8 / 8.0, "sampled sum", pass_unpack8},
    {"bitpack_unpack w=17 → uint64", "packed (17 bits)", 17 / 8.0, "sampled sum", pass_unpack17},
    {"bitpack_unpack w=32 → uint64", "packed (32 bits)", 32 / 8.0, "sampled sum", pass_unpack32},
    {"segment decode: frame of reference → INTEGER (qty)", "segment (L2)", 0, "sampled sum", pass_for_i32},
    {"segment decode: frame of reference → BIGINT (amount)", "segment (L2)", 0, "sampled sum", pass_for_i64},
    {"segment decode: dictionary gather → INTEGER (qty)", "segment (L2)", 0, "sampled sum", pass_dict_i32},
    {"segment decode: dictionary gather → BIGINT (1000 values)", "segment (L2)", 0, "sampled sum", pass_dict_i64},
    {"segment decode: runs expanded → INTEGER (runs of 1..32)", "segment (L2)", 0, "sampled sum", pass_rle_i32},
    {"DECIMAL: kern_cmp_i64 l_quantity < 24 (2400) → mask", "l_quantity (int64)", 8, "rows kept", pass_dec_cmp},
    {"DOUBLE: kern_cmp_f64 quantity < 24 → mask", "quantity (double)", 8, "rows kept", pass_dbl_cmp},
    {"DECIMAL: sum(l_extendedprice) WHERE l_quantity < 24: cmp_i64 + mask_to_sel + sum_i64 (sel, int128)",
     "l_quantity, l_extendedprice", 16, "sum; rows", pass_dec_filter_sum},
    {"DOUBLE: the same: cmp_f64 + mask_to_sel + sum_f64 (sel)", "quantity, price (double)", 16, "sum; rows",
     pass_dbl_filter_sum},
    {"DECIMAL: Q6: 4 compares → masks ANDed, sel, dec_mul price * discount (sel), sum_i64",
     "l_shipdate, l_discount, l_quantity, l_extendedprice", 28, "sum; rows", pass_dec_q6},
    {"DOUBLE: Q6 the same: cmp_i32 ×2, between_f64, cmp_f64, arith_f64 (sel), sum_f64",
     "shipdate (int32), 3 doubles", 28, "sum; rows", pass_dbl_q6},
    {"DECIMAL: sum(price * (1 - discount) * (1 + tax)): dec_sub, dec_mul, dec_add, dec_mul, sum_i64",
     "l_extendedprice, l_discount, l_tax", 24, "sum; rows", pass_dec_expr},
    {"DOUBLE: the same: arith_f64 ×4, sum_f64", "price, disc, tax (double)", 24, "sampled sum; rows",
     pass_dbl_expr},
    {"DECIMAL scan: segment_filter_mask l_quantity < 24 (FOR) → mask", "segment (L2)", 0, "rows kept",
     pass_dec_seg_filter_for},
    {"DECIMAL scan: segment_filter_mask l_quantity < 24 (dictionary of 50, as TPC-H's load stores it) → mask",
     "segment (L2)", 0, "rows kept", pass_dec_seg_filter_dict},
    {"DECIMAL scan: segment_filter_mask l_quantity < 24 (FOR) + decode l_extendedprice (FOR) + sum_i64 (sel)",
     "2 segments (L2)", 0, "sum; rows", pass_dec_scan_sum},
    {"DECIMAL scan: the same with l_quantity a dictionary (TPC-H's load)", "2 segments (L2)", 0, "sum; rows",
     pass_dec_scan_dict},
};

/* ---------------------------------------------------------------------------------------------
** Timing.
*/

typedef struct timing {
    double secs[MAX_REPS]; /* every repetition, in order */
    double best;           /* the least */
    result got;
} timing;

static void time_kernel(const table *t, int k, int reps, timing *out) {
    const bench *b = &benches[k];
    current_workload = b->name;
    out->best = INFINITY;
    for (int rep = 0; rep < reps; rep++) {
        uint64_t t0 = now_ns();
        result r = b->pass(t);
        out->secs[rep] = (double)(now_ns() - t0) / 1e9;
        out->best = fmin(out->best, out->secs[rep]);
        if (r.v[0] != t->want[k].v[0] || r.v[1] != t->want[k].v[1])
            die("checksum mismatch in repetition %d: got %.17g; %.17g, expected %.17g; %.17g (%s)", rep + 1,
                r.v[0], r.v[1], t->want[k].v[0], t->want[k].v[1], b->check);
        out->got = r;
    }
}

/* stream_sum adds up n int64 (n a multiple of 16, d 32-byte aligned) in four 256-bit lanes of
** accumulators, 16 values per iteration: the loads, not the additions, set its pace. */
static uint64_t stream_sum(const int64_t *d, size_t n) {
#define LOAD(p) simde_mm256_load_si256((const simde__m256i *)(const void *)(p))
    simde__m256i a0 = simde_mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    for (size_t i = 0; i < n; i += 16) {
        a0 = simde_mm256_add_epi64(a0, LOAD(d + i));
        a1 = simde_mm256_add_epi64(a1, LOAD(d + i + 4));
        a2 = simde_mm256_add_epi64(a2, LOAD(d + i + 8));
        a3 = simde_mm256_add_epi64(a3, LOAD(d + i + 12));
    }
#undef LOAD
    a0 = simde_mm256_add_epi64(simde_mm256_add_epi64(a0, a1), simde_mm256_add_epi64(a2, a3));
    int64_t lanes[4];
    simde_mm256_storeu_si256((simde__m256i *)(void *)lanes, a0);
    return (uint64_t)lanes[0] + (uint64_t)lanes[1] + (uint64_t)lanes[2] + (uint64_t)lanes[3];
}

/* time_bandwidth times reps passes of stream_sum over a buffer of `bytes` (its values i, so the
** sum is known) and returns the best in bytes/s; the buffer is freed before it returns. */
static double time_bandwidth(size_t bytes, int reps, timing *out) {
    current_workload = "memory bandwidth";
    size_t n = bytes / sizeof(int64_t); /* a multiple of 16 */
    int64_t *d = column_alloc(n * sizeof *d);
    for (size_t i = 0; i < n; i++)
        d[i] = (int64_t)i;
    uint64_t want = (uint64_t)n / 2 * (uint64_t)(n - 1); /* n even */
    out->best = INFINITY;
    for (int rep = 0; rep < reps; rep++) {
        uint64_t t0 = now_ns();
        uint64_t got = stream_sum(d, n);
        out->secs[rep] = (double)(now_ns() - t0) / 1e9;
        out->best = fmin(out->best, out->secs[rep]);
        if (got != want) die("sum %llu, expected %llu", (unsigned long long)got, (unsigned long long)want);
        out->got = (result){{(double)got, 0}};
    }
    free(d);
    return (double)(n * sizeof *d) / out->best;
}

/* ---------------------------------------------------------------------------------------------
** Report.
*/

typedef struct run {
    const options *o;
    environment env;
    double bw, bw_bytes; /* bytes/s; bytes of the buffer */
    timing bw_timing, t[K_COUNT];
    double maxrss_kib;
} run;

static double rows_per_s(const run *r, int k) { return (double)r->o->rows / r->t[k].best; }
/* row_bytes is what kernel k reads per row: its columns', or its segment's encoded bytes. */
static double row_bytes(int k) { return benches[k].bytes_per_row ? benches[k].bytes_per_row : segment_row_bytes[k]; }
static double bytes_per_s(const run *r, int k) { return rows_per_s(r, k) * row_bytes(k); }

/* secs_spread sets the median, least and greatest of t's repetitions. */
static void secs_spread(const timing *t, int reps, double *med, double *lo, double *hi) {
    double s[MAX_REPS];
    memcpy(s, t->secs, (size_t)reps * sizeof *s);
    qsort(s, (size_t)reps, sizeof *s, cmp_double);
    *med = reps % 2 ? s[reps / 2] : (s[reps / 2 - 1] + s[reps / 2]) / 2;
    *lo = s[0], *hi = s[reps - 1];
}

static void write_report(FILE *out, const run *r, const char *saved_as) {
    const options *o = r->o;
    char cell[4][64];
    fmt_num(cell[0], sizeof cell[0], (double)o->rows);
    fprintf(out, "# strata vector kernels — micro-benchmark\n\n");
    fprintf(out,
            "**Memory bandwidth: %.1f GB/s** — one thread reading: a streaming sum of %.0f MiB of int64 "
            "(pages touched first) in four 256-bit accumulators, best of %d passes.\n\n",
            r->bw / 1e9, r->bw_bytes / 1048576, o->reps);
    fprintf(out,
            "Kernels, built for %s: a table of %s rows, a vector of %d rows at a time, flat vectors, "
            "outputs into one vector-sized buffer; best of %d passes over the whole table (M rows/s, ns/row, "
            "GB/s and the fraction are the best pass's; the median and range of the passes beside them). GB/s "
            "counts the bytes of the columns read (1 GB = 10^9 bytes); \"of bandwidth\" is that over the figure "
            "above.%s\n\n",
            SIMD_PATH, cell[0], VECTOR_SIZE, o->reps,
            o->quick ? " **--quick**: columns 1/16 of the full size, partly in the L3 cache." : "");
    fprintf(out, "| kernel | reads | M rows/s | ns/row | GB/s | of bandwidth | pass ms: median (min–max) | checksum |\n");
    fprintf(out, "|---|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < K_COUNT; k++) {
        const bench *b = &benches[k];
        char ns[32], spread[64];
        double med, lo, hi;
        secs_spread(&r->t[k], o->reps, &med, &lo, &hi);
        snprintf(ns, sizeof ns, "%.3g", 1e9 / rows_per_s(r, k));
        snprintf(spread, sizeof spread, "%.1f (%.1f–%.1f)", med * 1e3, lo * 1e3, hi * 1e3);
        fmt_num(cell[0], sizeof cell[0], rows_per_s(r, k) / 1e6);
        fmt_num(cell[1], sizeof cell[1], bytes_per_s(r, k) / 1e9);
        snprintf(cell[2], sizeof cell[2], "%.0f %%", 100 * bytes_per_s(r, k) / r->bw);
        const result *g = &r->t[k].got;
        if (strchr(b->check, ';'))
            snprintf(cell[3], sizeof cell[3], "%.17g; %.17g", g->v[0], g->v[1]);
        else
            snprintf(cell[3], sizeof cell[3], "%.17g", g->v[0]);
        fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s: %s |\n", b->name, b->reads, cell[0], ns, cell[1],
                cell[2], spread, b->check, cell[3]);
    }
    fprintf(out,
            "\nFilter + sum with the kernels: **%.2f×** the scalar loop. Every checksum equals the one "
            "computed from the generated data, in every repetition; the two filter + sum rows agree.\n",
            r->t[K_SCALAR].best / r->t[K_FILTER_SUM].best);
    fprintf(out,
            "\nAgainst their scalar loops: kern_arith_i32 **%.2f×**, kern_hash_i64 **%.2f×**, kern_hash_str "
            "**%.2f×**.\n",
            r->t[K_ARITH_I32_SCALAR].best / r->t[K_ARITH_I32].best, r->t[K_HASH_I64_SCALAR].best / r->t[K_HASH_I64].best,
            r->t[K_HASH_STR_SCALAR].best / r->t[K_HASH_STR].best);
    fprintf(out,
            "\nColumns: qty int32 uniform 1..100, amount int64 uniform 0..9,999,999, price double "
            "0.25..999.75 in steps of 0.25, disc double 0.125..1 in steps of 0.125; each compare keeps "
            "about half the rows, at random; name a 16-byte sstr per row, one of 100 strings by qty (for "
            "an even qty \"PROMO BRUSHED STEEL #qty\", long: its bytes past the first 4 behind a pointer; "
            "for an odd one \"STD #qty\", inline), so LIKE 'PROMO%%' keeps half. The IN rows keep the "
            "rows of 5 and 20 qty values and of 20 amounts (a few), the BETWEEN rows half. \"sampled "
            "sum\": the sum over vectors of output row v mod n "
            "of vector v (the whole output is written); \"sampled hashes\": the XOR of those rows' hashes, "
            "its top 53 bits. kern_mask_to_sel reads masks made beforehand "
            "(%.1f MiB: they may stay in the caches, so its fraction of the bandwidth means little). The "
            "library and this program are built with the same "
            "flags and linked with LTO, so the kernels may be inlined into the loops here, as they may "
            "be into the executor.\n",
            (double)o->rows / 8 / 1048576);
    fprintf(out,
            "\nDECIMAL against DOUBLE (the same query on DOUBLE columns holding the same numbers; time "
            "DECIMAL ÷ DOUBLE of the best passes): l_quantity < 24 **%.2f×**, its filtered sum **%.2f×**, Q6 "
            "**%.2f×**, sum(price * (1 - discount) * (1 + tax)) **%.2f×**. The DECIMAL rows are TPC-H lineitem's "
            "columns as strata stores DECIMAL(15,2) (int64 cents: l_quantity 1..50, l_extendedprice "
            "900.00..104,949.50, l_discount 0.00..0.10, l_tax 0.00..0.08, uniform) and DATE (int32 days, "
            "l_shipdate 1992-01-02..1998-12-01); the DOUBLE rows hold the same numbers in doubles (in cents, "
            "so that their sums are exact). Each query runs the kernels the executor calls for it "
            "(planner/exec/expr.c, planner/exec/op_aggregate.c): l_quantity < 24 as kern_cmp_i64 against 2400; the sums as "
            "agg_sum_one's kern_sum_i64 into an int128; Q6's four conjuncts into masks ANDed, then the "
            "product through the selection; the expression as eval_dec_arith's kern_dec_sub, kern_dec_mul, "
            "kern_dec_add, kern_dec_mul, the constant 1 a CONSTANT vector (selection vec_zero_sel) at scale 0 "
            "with factor 100. The scan rows run the first query on DECIMAL(15,2) segments, in the L2 cache "
            "like the decoding rows (their GB/s counts the segments' encoded bytes): l_quantity's pushed-down "
            "filter alone, in frame-of-reference encoding (the compare on the packed offsets) and as a "
            "dictionary of its 50 values, as TPC-H's load stores it (the entries compared once, the codes "
            "looked up through kern_dict_mask_checked): dictionary ÷ frame of reference **%.2f×**; then the "
            "whole query, the decoded frame-of-reference price vector summed through the selection, with "
            "either l_quantity: **%.2f×**.\n",
            r->t[K_DEC_CMP].best / r->t[K_DBL_CMP].best, r->t[K_DEC_FILTER_SUM].best / r->t[K_DBL_FILTER_SUM].best,
            r->t[K_DEC_Q6].best / r->t[K_DBL_Q6].best, r->t[K_DEC_EXPR].best / r->t[K_DBL_EXPR].best,
            r->t[K_DEC_SEG_FILTER_DICT].best / r->t[K_DEC_SEG_FILTER_FOR].best,
            r->t[K_DEC_SCAN_DICT].best / r->t[K_DEC_SCAN_SUM].best);
    fprintf(out, "\nPeak RSS (ru_maxrss): %.0f MiB.\n", r->maxrss_kib / 1024);
    fprintf(out,
            "\nEnvironment: %s, %ld cores, %.1f GiB RAM; %s. Compiler: %s; flags: `%s`; library %s. "
            "Load average before/after: %s / %s. Git commit %s%s. Date %s.%s%s\n",
            r->env.cpu, r->env.cores, r->env.mem_gib, r->env.kernel, COMPILER, BENCH_CFLAGS, BENCH_LIB,
            r->env.load_before, r->env.load_after, r->env.commit,
            r->env.git_status[0] ? " (working tree dirty: uncommitted changes were measured)" : " (clean)",
            r->env.date, saved_as ? " Raw figures: " : "", saved_as ? saved_as : "");
}

static void json_secs(FILE *f, const timing *t, int reps) {
    fprintf(f, "\"best_seconds\": ");
    json_num(f, t->best);
    fprintf(f, ", \"seconds\": [");
    for (int i = 0; i < reps; i++) {
        fprintf(f, "%s", i ? ", " : "");
        json_num(f, t->secs[i]);
    }
    fprintf(f, "]");
}

static void write_json(FILE *f, const run *r) {
    const options *o = r->o;
    fprintf(f, "{\n  \"benchmark\": \"kernels\",\n  \"date\": ");
    json_str(f, r->env.date);
    fprintf(f, ",\n  \"git\": {\"commit\": ");
    json_str(f, r->env.commit);
    fprintf(f, ", \"dirty\": %s, \"status\": ", r->env.git_status[0] ? "true" : "false");
    json_str(f, r->env.git_status);
    fprintf(f, "},\n  \"environment\": {\"cpu\": ");
    json_str(f, r->env.cpu);
    fprintf(f, ", \"cores\": %ld, \"mem_gib\": %.2f, \"kernel\": ", r->env.cores, r->env.mem_gib);
    json_str(f, r->env.kernel);
    fprintf(f, ", \"compiler\": ");
    json_str(f, COMPILER);
    fprintf(f, ", \"cflags\": ");
    json_str(f, BENCH_CFLAGS);
    fprintf(f, ", \"library\": ");
    json_str(f, BENCH_LIB);
    fprintf(f, ", \"simd\": ");
    json_str(f, SIMD_PATH);
    fprintf(f, ", \"load_before\": ");
    json_str(f, r->env.load_before);
    fprintf(f, ", \"load_after\": ");
    json_str(f, r->env.load_after);
    fprintf(f,
            "},\n  \"config\": {\"rows\": %zu, \"vector_size\": %d, \"reps\": %d, \"quick\": %s, "
            "\"bandwidth_buffer_bytes\": %.0f},\n",
            o->rows, VECTOR_SIZE, o->reps, o->quick ? "true" : "false", r->bw_bytes);
    fprintf(f, "  \"bandwidth\": {\"bytes_per_s\": ");
    json_num(f, r->bw);
    fprintf(f, ", ");
    json_secs(f, &r->bw_timing, o->reps);
    fprintf(f, "},\n  \"kernels\": [\n");
    for (int k = 0; k < K_COUNT; k++) {
        const bench *b = &benches[k];
        fprintf(f, "    {\"name\": ");
        json_str(f, b->name);
        fprintf(f, ", \"reads\": ");
        json_str(f, b->reads);
        fprintf(f, ", \"bytes_per_row\": ");
        json_num(f, row_bytes(k));
        fprintf(f, ", \"rows_per_s\": ");
        json_num(f, rows_per_s(r, k));
        fprintf(f, ", \"bytes_per_s\": ");
        json_num(f, bytes_per_s(r, k));
        fprintf(f, ", \"bandwidth_fraction\": ");
        json_num(f, bytes_per_s(r, k) / r->bw);
        fprintf(f, ", ");
        json_secs(f, &r->t[k], o->reps);
        fprintf(f, ", \"checksum\": {\"what\": ");
        json_str(f, b->check);
        fprintf(f, ", \"value\": [%.17g, %.17g]}}%s\n", r->t[k].got.v[0], r->t[k].got.v[1],
                k + 1 < K_COUNT ? "," : "");
    }
    fprintf(f, "  ],\n  \"filter_sum_speedup_vs_scalar\": ");
    json_num(f, r->t[K_SCALAR].best / r->t[K_FILTER_SUM].best);
    fprintf(f, ",\n  \"maxrss_kib\": ");
    json_num(f, r->maxrss_kib);
    fprintf(f, "\n}\n");
}

/* save writes the report and the JSON under bench/results/ (the program runs from the
** repository root) and returns through md and json the paths it wrote. */
static void save(const run *r, char *md, char *json, size_t n) {
    struct stat st;
    if (stat("bench", &st) != 0 || !S_ISDIR(st.st_mode))
        die("--save: run from the repository root (no bench/ here)");
    mkdir("bench/results", 0755);
    result_paths("kernels", &r->env, md, json, n);
    FILE *f = fopen(md, "w");
    if (f == NULL) die("cannot write %s: %s", md, strerror(errno));
    write_report(f, r, json);
    if (fclose(f) != 0) die("cannot write %s", md);
    f = fopen(json, "w");
    if (f == NULL) die("cannot write %s: %s", json, strerror(errno));
    write_json(f, r);
    if (fclose(f) != 0) die("cannot write %s", json);
}

/* ---------------------------------------------------------------------------------------------
** Options and main.
*/

static void usage(void) {
    fprintf(stderr,
            "usage: bench_kernels [--reps N] [--quick] [--save]\n"
            "  --reps N   passes per kernel and over the bandwidth buffer, the best reported (default %d)\n"
            "  --quick    columns and bandwidth buffer 1/%d of the full size (%zu Mi rows, %zu MiB)\n"
            "  --save     also write bench/results/kernels-<date>-<commit>[-N].md and .json\n"
            "Full size: %zu Mi rows (about %zu MiB of columns), a bandwidth buffer of %zu MiB.\n",
            DEFAULT_REPS, QUICK_DIVISOR, (DEFAULT_ROWS >> 20) / QUICK_DIVISOR,
            (DEFAULT_BW_BYTES >> 20) / QUICK_DIVISOR, DEFAULT_ROWS >> 20, (DEFAULT_ROWS * (44 + 4 * 8 + 4 + 4 * 8) + DEFAULT_ROWS * 60 / 8) >> 20,
            DEFAULT_BW_BYTES >> 20);
    exit(2);
}

static void parse_options(int argc, char **argv, options *o) {
    *o = (options){.rows = DEFAULT_ROWS, .bw_bytes = DEFAULT_BW_BYTES, .reps = DEFAULT_REPS};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end != '\0' || v < 1 || v > MAX_REPS) {
                fprintf(stderr, "bench_kernels: --reps needs an integer in 1..%d\n", MAX_REPS);
                usage();
            }
            o->reps = (int)v;
        } else if (!strcmp(argv[i], "--quick"))
            o->quick = 1;
        else if (!strcmp(argv[i], "--save"))
            o->save = 1;
        else
            usage();
    }
    if (o->quick) o->rows /= QUICK_DIVISOR, o->bw_bytes /= QUICK_DIVISOR;
}

int main(int argc, char **argv) {
    options o;
    bench_program = "bench_kernels";
    current_engine = "kernels";
    parse_options(argc, argv, &o);
    static run r; /* large: the repetitions' times */
    r.o = &o;
    gather_environment(&r.env, ".");

    fprintf(stderr, "memory bandwidth over %zu MiB ...\n", o.bw_bytes >> 20);
    r.bw = time_bandwidth(o.bw_bytes, o.reps, &r.bw_timing);
    r.bw_bytes = (double)o.bw_bytes;

    current_workload = "generating the table";
    fprintf(stderr, "generating %zu rows ...\n", o.rows);
    table t;
    table_make(&t, o.rows);
    lists_make();
    for (int k = 0; k < K_COUNT; k++) {
        fprintf(stderr, "%s ...\n", benches[k].name);
        time_kernel(&t, k, o.reps, &r.t[k]);
    }
    table_free(&t);

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    r.maxrss_kib = (double)ru.ru_maxrss;
    load_average(r.env.load_after, sizeof r.env.load_after);

    char md[512], json[512];
    if (o.save) save(&r, md, json, sizeof md);
    write_report(stdout, &r, o.save ? json : NULL);
    if (o.save) printf("\nSaved %s and %s\n", md, json);
    free(r.env.git_status);
    return 0;
}
