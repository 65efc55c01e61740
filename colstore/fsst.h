/*
** fsst.h -- FSST string compression (Boncz, Neumann, Leis: "FSST: Fast Random Access String
** Compression", VLDB 2020): a table of up to 255 symbols of 1 to 8 bytes, learnt from a sample
** of a column's strings, replaces each symbol in a string by its one-byte code; a byte no symbol
** covers is written as the escape code 255 and the byte. Each string is compressed on its own,
** so one string is decoded without its neighbours: that is what a point read of a text column
** needs, where a zstd block would have to be inflated whole.
**
** Written here: Debian has no FSST library, and the algorithm is small (the paper's greedy
** table construction over five generations, its lossy hash for symbols of three bytes and more,
** and a direct table for one and two bytes).
**
** Stored form of a table (fsst_table_bytes / fsst_table_write / fsst_decoder_load): u8 count
** (0..255), u8 len[count] (1..8 each), then count symbols of 8 bytes each, the symbol's bytes
** first and zeros after them.
**
** What it is not: the layout of compressed strings in a segment (segment.c keeps their offsets).
*/
#ifndef STRATA_FSST_H
#define STRATA_FSST_H

#include <stddef.h>
#include <stdint.h>

#define FSST_SYMBOLS 255 /* codes 0..254; 255 escapes a byte */
#define FSST_ESCAPE 255
#define FSST_SAMPLE 16384 /* bytes of sample fsst_build looks at, at most */

/* A table for compressing (big: allocate it). */
typedef struct fsst_table fsst_table;

/* fsst_build learns a table from n sample strings (the caller picks at most about FSST_SAMPLE
** bytes spread over the column). NULL on out of memory. */
fsst_table *fsst_build(const uint8_t *const *strs, const uint32_t *lens, size_t n);
void fsst_table_free(fsst_table *t);

/* fsst_compress writes in[0..len)'s compressed form to out, which has room for 2 * len bytes
** (every byte escaped, the worst case), and returns its length. */
size_t fsst_compress(const fsst_table *t, const uint8_t *in, size_t len, uint8_t *out);

/* The stored table: its size and its bytes (see above). */
size_t fsst_table_bytes(const fsst_table *t);
uint8_t *fsst_table_write(const fsst_table *t, uint8_t *out);

/* A table for decoding: small, filled by fsst_decoder_load from the stored form. */
typedef struct fsst_decoder {
    uint32_t count;
    uint8_t len[256];  /* [FSST_ESCAPE] unused */
    uint64_t sym[256]; /* little-endian: the first byte in the low bits */
} fsst_decoder;

/* fsst_decoder_load reads a stored table of exactly n bytes; 0 when it is malformed. */
int fsst_decoder_load(fsst_decoder *d, const uint8_t *p, size_t n);

/* FSST_DECODED_MAX is the most bytes n compressed bytes decode to, plus the 8 bytes of slack
** fsst_decompress writes past the end. */
#define FSST_DECODED_MAX(n) (8 * (size_t)(n) + 8)

/* fsst_decompress decodes in[0..n) into out (room for FSST_DECODED_MAX(n) bytes) and returns the
** decoded length, or -1 when the input is malformed (an unknown code, an escape at the end). */
int64_t fsst_decompress(const fsst_decoder *d, const uint8_t *in, size_t n, uint8_t *out);

#endif
