/*
** segment.h -- column segments: the values of one column for up to one row group (122,880 rows,
** 60 vectors of VECTOR_SIZE), encoded into one contiguous byte buffer that is written once and
** never modified, and read back a vector or a value at a time.
**
** A *builder* collects values a vector at a time and, at finish, measures every encoding that
** applies to the column's physical type (the exact encoded size of each), keeps the smallest (or
** one that decodes faster and is at most 1 % larger), and compresses each block with zstd on top
** where that pays (never an fsst block: its strings are read one at a time). A *reader* borrows a finished buffer, validates everything it will later
** trust, and decodes any vector without decoding the others, or a single value without decoding
** its vector (plain, frame of reference, dictionary, constant, fsst), by a binary search of its
** vector's run ends (RLE), or by summing its vector's deltas (delta). Zone maps (min, max, NULL count per segment and per vector) are stored in the
** segment for scans to skip with.
**
** What it is not: no pages, files or transactions (a later layer stores the buffer in file pages
** and hands it back contiguous), no row groups, no deletes (the row group's deletion bitmap).
**
** Encodings, by physical type (vector.h):
**   BOOL, I16, I32, I64  constant, rle, dictionary, for (frame of reference + bit-packing),
**                        delta (+ frame of reference of the deltas), plain
**   F64                  constant, rle, dictionary, plain
**   STR                  constant, rle, dictionary, fsst (fsst.h), plain
**   INTERVAL             constant, plain
** Bit-packing is bitpack.h's: Parquet's order (least significant bits first), padded to groups
** of 64 values, so n values of w bits take ceil(n/64) * 8 * w bytes ("bp(n, w)" below).
**
** Byte format, version 1. Integers little-endian; "off" are byte offsets from the buffer start.
**
**   header, 64 bytes:
**     0  u32 magic 0x47455353 ("SSEG")       4  u32 crc32c of bytes [8, length)
**     8  u32 length of the whole segment    12  u8 version (1)
**    13  u8 sql_type_id of the column       14  u8 encoding (seg_encoding)
**    15  u8 flags: bit 0 = some block (or the dictionary) is zstd-compressed
**    16  u32 rows (0..SEGMENT_MAX_ROWS)     20  u32 null_count
**    24  u32 nvectors = ceil(rows / 2048)   28  u32 nblocks (nvectors, or 0: see constant)
**    32  u64 str_bytes: bytes of the non-NULL strings (STR), else 0
**    40  u32 zone_off   44 u32 zone_len
**    48  u32 dict_off   52 u32 dict_len (stored; 0 = no dictionary)   56 u32 dict_raw_len
**    60  u32 dir_off
** The sections follow the header in this order (the reader relies only on the offsets):
**   zones (zone_off): 1 + nvectors records, the segment's then each vector's:
**     u32 null_count, u8 flags (bit 0 has min/max, bit 1 min truncated, bit 2 max truncated),
**     then when bit 0 is set: BOOL..I64 i64 min, i64 max; F64 f64 min, f64 max (NaN above every
**     number, -0.0 stored as 0.0); STR u8 len, min bytes, u8 len, max bytes (each at most
**     SEGMENT_ZONE_STR_MAX, a prefix when truncated). INTERVAL and all-NULL: no min/max. The
**     vectors' NULL counts sum to the segment's, which equals the header's, and each block's
**     validity agrees with its vector's count.
**   dictionary (dict_off, dict_len; zstd-compressed when dict_len < dict_raw_len): an FSST
**     segment's symbol table (fsst.h's stored form), or the values of
**     a DICTIONARY segment in order of first appearance, or a CONSTANT segment's one value:
**     u32 count, then BOOL..I64 count values of the type's width, F64 count x 8 bytes (IEEE
**     bits), INTERVAL count x (i32 months, i32 days, i64 micros), STR u32 offsets[count + 1]
**     (from 0, nondecreasing) then the bytes.
**   directory (dir_off): nblocks x {u32 off, u32 stored_len, u32 raw_len}; a block is
**     zstd-compressed exactly when stored_len < raw_len (stored_len > raw_len is corrupt).
**   blocks: block k holds vector k (rows k*2048 .. k*2048 + n - 1). Its raw bytes:
**     u8 validity: 0 no NULLs, 1 all NULL (nothing follows), 2 a bitmap follows: ceil(n/8) bytes,
**       bit r set when row r is valid
**     then by encoding (values of NULL rows are copies of a neighbour, so they cost nothing):
**       plain      fixed types: n values of the type's width (as in the dictionary);
**                  STR: u32 offsets[n + 1] (from 0, nondecreasing; NULL rows empty), the bytes
**       for        i64 base, u8 w, bp(n, w): value - base
**       delta      i64 first, i64 min_delta, u8 w, bp(n - 1, w): delta - min_delta, where the
**                  deltas are value[i] - value[i-1] modulo 2^64 (exact for any int64 inputs)
**       rle        u16 nruns, u8 lw, bp(nruns, lw): run length - 1; then the runs' values:
**                  integers i64 base, u8 w, bp(nruns, w); F64 nruns x 8 bytes; STR u32
**                  offsets[nruns + 1] and the bytes, as plain
**       dictionary u8 w, bp(n, w): codes into the segment's dictionary
**       fsst       u8 w, bp(n, w): each row's compressed length (NULL rows 0); u32 starts[
**                  ceil(n/64)]: where the compressed bytes of rows 64g, 64g+1, ... start; then
**                  the compressed bytes of the rows in order, to the block's end
**       constant   nothing (the value is the dictionary's). A constant segment with no NULLs or
**                  only NULLs has no blocks at all (nblocks 0).
** Blocks (but fsst's) of at least SEGMENT_ZSTD_MIN_BLOCK raw bytes are zstd frames when that saves 10 % (a
** writer that found the first two blocks tried not worth it, and none before them, leaves the
** segment's other blocks raw).
** A segment is at most 4 GiB - 1 bytes (u32 offsets): finish refuses bigger with STRATA_TOOBIG.
**
** Errors: functions return a STRATA_* status and record it with err_set (err may be NULL). Any
** buffer that does not follow the format -- a checksum or length mismatch, an unknown encoding,
** an offset, width, run length, dictionary code or string length out of bounds, a value outside
** its type -- is STRATA_CORRUPT with a message, never a crash or a read out of bounds, even for a
** crafted buffer with a valid checksum. Nothing aborts on out of memory (STRATA_NOMEM). (A zstd
** block is decompressed only after its frame header is found to declare exactly the block's raw
** length, so damage never asks for a large allocation; a buffer crafted to agree on a large length
** can make a reader allocate up to that length, 4 GiB at most.)
*/
#ifndef STRATA_SEGMENT_H
#define STRATA_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "../rowstore/btree.h"
#include "../vector/vector.h"
#include "colstats.h"

#define SEGMENT_VECTORS 60                               /* vectors of a full segment (a row group) */
#define SEGMENT_MAX_ROWS (SEGMENT_VECTORS * VECTOR_SIZE) /* 122,880 */
#define SEGMENT_HEADER_SIZE 64
#define SEGMENT_MAGIC 0x47455353u
#define SEGMENT_VERSION 1
#define SEGMENT_CRC_OFFSET 4        /* the crc32c field; it covers bytes [8, length) */
#define SEGMENT_ZSTD_DEFAULT 3      /* zstd level of segment_options_default */
#define SEGMENT_ZSTD_MIN_BLOCK 4096 /* smaller blocks are never compressed */
#define SEGMENT_DICT_MAX 65536      /* more distinct values than this: no dictionary */
#define SEGMENT_ZONE_STR_MAX 32     /* string min/max are kept to this many bytes */

/* Encoding ids, as stored in the header (stable). */
typedef enum seg_encoding {
    SEG_PLAIN = 0,
    SEG_CONSTANT = 1,
    SEG_RLE = 2,
    SEG_DICTIONARY = 3,
    SEG_FOR = 4,
    SEG_DELTA = 5,
    SEG_FSST = 6,
    SEG_ENCODING_COUNT
} seg_encoding;

/* seg_encoding_name returns "plain", "constant", "rle", "dictionary", "for", "delta" or "fsst" (static),
** "?" for an unknown id. */
const char *seg_encoding_name(int encoding);
/* seg_encoding_applies says whether an encoding can hold values of a physical type. */
int seg_encoding_applies(int encoding, vec_phys phys);

/* How segment_builder_finish encodes. zstd_level: 0 never compresses, otherwise the zstd level
** (1..19 as usual; negative levels are zstd's fast ones). force_encoding: -1 chooses the smallest
** encoding, otherwise that seg_encoding is used when it applies to the type and the data (a
** constant encoding needs equal values, a dictionary at most SEGMENT_DICT_MAX distinct values),
** and the choice is made as for -1 when it does not. */
typedef struct segment_options {
    int zstd_level;
    int force_encoding;
} segment_options;

/* segment_options_default returns {SEGMENT_ZSTD_DEFAULT, -1}. */
segment_options segment_options_default(void);

/* ---- building ----------------------------------------------------------------------------- */

/* The builder's growable copy of the values appended so far. The fields are private. */
typedef struct segment_builder {
    sql_type type;
    uint8_t phys;  /* vec_phys of type.id */
    uint32_t rows; /* appended so far */
    uint32_t null_count;
    uint32_t cap;       /* rows the arrays hold */
    void *values;       /* int64_t (BOOL..I64), uint64_t IEEE bits (F64), sql_interval, or string
                        ** references into bytes (STR) */
    uint64_t *validity; /* bit i set when row i is valid */
    uint8_t *bytes;     /* string bytes */
    uint64_t bytes_len, bytes_cap;
} segment_builder;

/* segment_builder_init prepares an empty builder for a column of the given type (allocating
** nothing yet). STRATA_MISUSE for an unknown type id. */
int segment_builder_init(segment_builder *b, sql_type type, strata_err *err);

/* segment_builder_append appends rows sel[0..count) of v (sel NULL: 0..count-1), read through
** v's own selection and validity (any kind), to the builder: values, NULLs and string bytes are
** copied, so v may be reset afterwards. v must have the builder's physical type (else
** STRATA_MISUSE). STRATA_MISUSE when the builder would pass SEGMENT_MAX_ROWS rows, STRATA_TOOBIG
** when string bytes would pass 4 GiB - 1, STRATA_NOMEM when memory runs out; on any error
** nothing is appended. */
int segment_builder_append(segment_builder *b, const vector *v, const sel_t *sel, uint32_t count,
                           strata_err *err);

/* segment_builder_rows returns the rows appended so far. */
static inline uint32_t segment_builder_rows(const segment_builder *b) { return b->rows; }

/* segment_builder_finish encodes the rows appended (0 rows make a valid empty segment) with opt
** (NULL: segment_options_default()) and appends the segment to out (growing it). The builder
** keeps its rows: finish may be called again, with other options, and more rows appended after.
** STRATA_NOMEM or STRATA_TOOBIG (a segment over 4 GiB - 1 bytes) leave out's length as it was;
** STRATA_MISUSE for a zstd level zstd rejects. */
int segment_builder_finish(segment_builder *b, const segment_options *opt, btree_buf *out, strata_err *err);

/* segment_builder_stats adds the rows appended to c as colstats_add would add each of them (the
** builder's column type): NULLs counted, the others into the sketch and the range. */
void segment_builder_stats(const segment_builder *b, column_stats *c);

/* segment_builder_bytes is the memory the builder holds (its arrays, as allocated). */
size_t segment_builder_bytes(const segment_builder *b);

/* segment_builder_read writes rows [from, from + n) of the builder (n <= VECTOR_SIZE) into rows
** 0..n-1 of out, a writable flat vector of the builder's physical type (as segment_get does):
** the rows back as appended, for a caller that takes them elsewhere after all. */
int segment_builder_read(const segment_builder *b, uint32_t from, uint32_t n, vector *out, strata_err *err);

/* segment_builder_reset empties the builder for the next segment, keeping its memory. */
void segment_builder_reset(segment_builder *b);

/* segment_builder_free releases the builder's memory; safe twice and on a zeroed builder. */
void segment_builder_free(segment_builder *b);

/* ---- zone maps and description ------------------------------------------------------------ */

/* A zone map: what a scan may skip a segment or a vector by. min/max exist (has_minmax) when a
** row is not NULL and the type is not INTERVAL; they use the field of the column's physical
** type: min_i/max_i (BOOL..I64), min_d/max_d (F64: NaN sorts after every number, as
** value_compare; -0.0 is reported as 0.0), min_s/max_s with their lengths (STR, memcmp order,
** a shorter prefix first). A string longer than SEGMENT_ZONE_STR_MAX is kept as its prefix and
** flagged: a truncated min is still a lower bound, a truncated max is only a prefix bound (every
** value is <= some string that starts with max_s). */
typedef struct seg_zone {
    uint32_t rows, null_count;
    uint8_t has_minmax, min_truncated, max_truncated;
    int64_t min_i, max_i;
    double min_d, max_d;
    uint32_t min_len, max_len;
    uint8_t min_s[SEGMENT_ZONE_STR_MAX], max_s[SEGMENT_ZONE_STR_MAX];
} seg_zone;

/* What segment_describe reports (for PRAGMA storage_info). */
typedef struct seg_info {
    const char *encoding; /* "for", "plain+zstd", ... (static): "+zstd" when a block or the
                          ** dictionary is zstd-compressed */
    int encoding_id;      /* seg_encoding */
    uint32_t rows, nvectors, null_count;
    uint32_t zstd_blocks;        /* blocks (the dictionary counts as one) stored compressed */
    uint64_t compressed_bytes;   /* the buffer's length */
    uint64_t uncompressed_bytes; /* rows x vec_phys_width, plus the string bytes (STR) */
    seg_zone zone;               /* the segment's zone map */
} seg_info;

/* ---- reading ------------------------------------------------------------------------------ */

/* A reader over one segment buffer. The fields are private; the buffer is borrowed. A reader keeps
** scratch memory (a decompressed block, unpacking space), so one thread uses it at a time; several
** readers may share one buffer. */
typedef struct segment_reader {
    const uint8_t *buf;
    size_t len;
    sql_type type;
    uint8_t phys, encoding, flags;
    uint32_t rows, null_count, nvectors, nblocks;
    uint64_t str_bytes;
    const uint8_t *dir;  /* the directory, nblocks x 12 bytes */
    const uint8_t *dict; /* the raw dictionary (in buf or dict_copy) */
    size_t dict_len;
    uint32_t dict_count;
    uint8_t *dict_copy;                     /* owned: a decompressed dictionary */
    uint32_t zone_off[SEGMENT_VECTORS + 1]; /* zone records: [0] the segment's, [1 + k] vector k's */
    uint32_t vec_nulls[SEGMENT_VECTORS];
    uint8_t *scratch; /* owned: the last decompressed block */
    size_t scratch_cap;
    int64_t scratch_block; /* which block scratch holds, -1 none */
    uint64_t *tmp;         /* owned: unpacking space, on first decode */
    const uint8_t **sptr;  /* owned: strings of a vector, on first decode */
    uint32_t *slen;
    void *dctx; /* owned: zstd decompression context */
    sstr *dvals;       /* owned: a string dictionary as values, and NULL after them (segment_decode_dict) */
    uint64_t *dvalid;  /* owned: their validity (all valid but that NULL) */
    uint64_t dict_id;  /* the dict_id of the vectors made from dvals */
    uint8_t **kept;    /* owned, [nvectors]: decompressed blocks kept (segment_keep_blocks) */
    struct segment_point *point; /* owned: the block segment_get read last, opened and parsed */
    struct fsst_decoder *fsst; /* owned: an fsst segment's symbol table */
    uint8_t *fbuf;             /* owned: fsst strings decoded */
    size_t fbuf_cap;
    uint16_t **run_ends; /* owned, [nvectors]: an rle vector's run ends, made by its first point read */
    size_t kept_bytes; /* ... the kept blocks' raw bytes and the run ends' */
    int keep;
} segment_reader;

/* segment_open checks buf[0..len) -- magic, version, checksum, length, type, encoding, counts,
** every section's offset and length, the zone maps and the dictionary -- and prepares r to read
** it. The buffer is borrowed, not copied: it must stay unchanged until segment_reader_close.
** type is the column's type: a segment of another type id is STRATA_CORRUPT (DECIMAL's precision
** and scale and VARCHAR's length are the catalog's, not stored), as is any mismatch (the message
** says what). STRATA_NOMEM when a compressed dictionary cannot be decompressed for
** lack of memory. After an error r needs no close (closing is still safe). */
int segment_open(segment_reader *r, const uint8_t *buf, size_t len, sql_type type, strata_err *err);

/* segment_reader_close frees what the reader allocated (never the buffer); safe twice and on a
** reader whose open failed. */
void segment_reader_close(segment_reader *r);

/* segment_keep_blocks makes r keep every zstd block it decompresses until it is closed, instead
** of only the last one: for a reader that serves many reads (the segment cache's), so that a point
** read of a compressed block decompresses it once. Memory grows by the kept blocks' raw bytes,
** which segment_kept_bytes reports (the cache charges them to its budget). */
void segment_keep_blocks(segment_reader *r);
static inline size_t segment_kept_bytes(const segment_reader *r) { return r->kept_bytes; }

static inline uint32_t segment_rows(const segment_reader *r) { return r->rows; }
static inline uint32_t segment_nvectors(const segment_reader *r) { return r->nvectors; }
/* segment_vector_rows returns the rows of vector k (VECTOR_SIZE but for the last one). */
static inline uint32_t segment_vector_rows(const segment_reader *r, uint32_t k) {
    uint32_t rest = r->rows - k * VECTOR_SIZE;
    return rest < VECTOR_SIZE ? rest : VECTOR_SIZE;
}

/* segment_decode_vector fills rows 0..segment_vector_rows(r, k)-1 of out with vector k's values
** and NULLs (a NULL's slot reads 0 or the empty string); strings are copied into out's heap.
** out must be a writable FLAT vector of the segment's physical type, reset by the caller
** (vec_reset); its other rows are left alone. A zstd-compressed block is decompressed into the
** reader's scratch memory. STRATA_MISUSE for k >= segment_nvectors(r) or an unsuitable out;
** STRATA_CORRUPT for a block that does not decode (out's rows are then unspecified);
** STRATA_NOMEM. */
int segment_decode_vector(segment_reader *r, uint32_t k, vector *out, strata_err *err);

/* segment_decode_dict is segment_decode_vector for a string column's dictionary segment
** (segment_is_string_dict), without copying a string: out becomes a read-only VEC_DICTIONARY
** over the segment's dictionary (valid until the reader closes), with rows keep[0..n) of vector k
** (keep NULL: all its rows, n ignored) as rows 0.., and a dict_id (vector.h) by which operators may
** group on the dictionary's indexes. out must be a reset vector of the column's type. */
int segment_decode_dict(segment_reader *r, uint32_t k, const sel_t *keep, uint32_t n, vector *out, strata_err *err);
static inline int segment_is_string_dict(const segment_reader *r) {
    return r->phys == PHYS_STR && r->encoding == SEG_DICTIONARY;
}

/* segment_get writes the value (or NULL) of segment row `row` to row out_row of out (a writable
** FLAT vector of the segment's physical type; the validity of out_row is set either way, the
** other rows are untouched). Reads only what the value needs (see the file comment).
** STRATA_MISUSE for row >= segment_rows(r) or out_row >= VECTOR_SIZE; STRATA_CORRUPT,
** STRATA_NOMEM as for decoding. */
int segment_get(segment_reader *r, uint64_t row, vector *out, uint32_t out_row, strata_err *err);

/* segment_get_rows writes rows rows[0..n) of vector k (positions in the vector) to rows 0..n-1
** of out, as segment_get would one by one, opening the vector once: bit-packed values and
** dictionary codes without NULLs are read straight from their bits, so that a few rows of a
** vector cost a few reads, not a decode of the vector. */
int segment_get_rows(segment_reader *r, uint32_t k, const sel_t *rows, uint32_t n, vector *out, strata_err *err);

/* segment_prefetch and segment_prepare start the CPU loading what segment_get(r, row) reads, so
** that a point read of several columns has their cache misses overlap instead of following one
** another: it calls segment_prefetch step 0 (the block directory's entry) for every column, then
** step 1 (the block's start; reads the entry), then segment_prepare (parses the block, as
** segment_get would, and starts loading the row's bytes), then segment_get. segment_prefetch
** does nothing when the block is the one the reader holds parsed, and never fails;
** segment_prepare fails as segment_get does (STRATA_CORRUPT, STRATA_NOMEM), except that a row
** past the end is left to segment_get. */
void segment_prefetch(const segment_reader *r, uint64_t row, int step);
int segment_prepare(segment_reader *r, uint64_t row, strata_err *err);

/* segment_zone copies the zone map of vector k (k = -1: of the whole segment) into *z.
** STRATA_MISUSE when k is out of range. */
int segment_zone(const segment_reader *r, int k, seg_zone *z);

/* segment_describe fills *info (see seg_info). Cannot fail. */
void segment_describe(const segment_reader *r, seg_info *info);

/* ---- filtering on the encoded data -------------------------------------------------------- */

typedef enum seg_cmp { SEG_EQ, SEG_NE, SEG_LT, SEG_LE, SEG_GT, SEG_GE } seg_cmp;

/* A constant to compare a column with: i for BOOL..I64 columns, d for F64 (NaN compares above
** every number and equal to NaN, as value_compare), s/len for STR (memcmp order). */
typedef struct seg_const {
    int64_t i;
    double d;
    const void *s;
    uint32_t len;
} seg_const;

/* segment_filter evaluates `value op c` on the rows of vector k and writes the rows that pass
** (indexes 0..n_k-1, ascending) to sel (room for VECTOR_SIZE) and their number to *count. NULLs
** never pass. A DICTIONARY vector compares each dictionary entry once and then only the codes; a
** FOR vector compares the packed offsets with c minus the vector's base; a CONSTANT segment
** compares once; other encodings compare the decoded values (into the reader's scratch, not a
** vector). STRATA_MISUSE for an INTERVAL column, an unknown op, k out of range or a NULL s with a
** nonzero len;
** STRATA_CORRUPT, STRATA_NOMEM as for decoding. */
int segment_filter(segment_reader *r, uint32_t k, seg_cmp op, const seg_const *c, sel_t *sel, uint32_t *count,
                   strata_err *err);
/* One condition `value op c`. */
typedef struct seg_cond {
    seg_cmp op;
    seg_const c;
} seg_cond;
/* segment_filter_mask is segment_filter for conds[0..nconds) together (ANDed: a range such as
** `x >= a AND x < b` decodes the vector once; on a DICTIONARY vector the conditions AND over the
** entries, and the codes are looked up once), writing a row mask (vector/kernel.h's: bit i % 64
** of word i / 64 set for row i that passes, KERN_WORDS(n_k) words, the bits past n_k zero). */
int segment_filter_mask(segment_reader *r, uint32_t k, const seg_cond *conds, uint32_t nconds, uint64_t *mask,
                        strata_err *err);

#endif
