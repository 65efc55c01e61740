/*
** bitpack.h -- bit-packing of unsigned integers, the innermost layer of the column segment
** encodings (segment.c): frame-of-reference offsets, deltas, dictionary codes and run lengths
** are all stored as w-bit unsigned integers, 0 <= w <= 64.
**
** Layout (Parquet's bit order): value i occupies bits [i*w, (i+1)*w) of the stream, where bit j
** of the stream is bit j % 8 of byte j / 8 -- least significant bits first. The stream is padded
** with zero bits to a whole number of 64-value groups, so that n values of w bits take exactly
** bitpack_bytes(n, w) = ceil(n / 64) * 8 * w bytes, and a group of 64 values is w little-endian
** 64-bit words that one kernel unpacks with shifts known at compile time.
**
** What it is not: no framing (widths and counts are the caller's), no allocation, no validation
** beyond what the signatures promise: the caller checks that the stream holds bitpack_bytes(n, w)
** bytes before unpacking from it.
*/
#ifndef STRATA_BITPACK_H
#define STRATA_BITPACK_H

#include <stddef.h>
#include <stdint.h>

/* BITPACK_GROUP: values are packed and unpacked in groups of this many. */
#define BITPACK_GROUP 64

/* bitpack_bytes returns the bytes of n values packed with w bits (w <= 64). */
static inline uint64_t bitpack_bytes(uint64_t n, unsigned w) {
    return (n + BITPACK_GROUP - 1) / BITPACK_GROUP * 8u * w;
}

/* bitpack_width returns the fewest bits that hold every value in 0..max (0 for max == 0). */
static inline unsigned bitpack_width(uint64_t max) {
    return max == 0 ? 0 : 64u - (unsigned)__builtin_clzll(max);
}

/* bitpack_pack writes in[0..n) with w bits each (higher bits of a value are dropped) to out,
** which must have room for bitpack_bytes(n, w) bytes; padding bits are zero. */
void bitpack_pack(const uint64_t *in, uint32_t n, unsigned w, uint8_t *out);

/* bitpack_unpack reads n values of w bits from in (bitpack_bytes(n, w) bytes) into out, which
** must have room for n rounded up to a multiple of BITPACK_GROUP values: the last group is
** unpacked whole (its padding reads as zeros). */
void bitpack_unpack(const uint8_t *in, uint32_t n, unsigned w, uint64_t *out);

/* bitpack_unpack32 is bitpack_unpack into 32-bit lanes, each value truncated to its low 32 bits
** (exact for w <= 32): dictionary codes and run lengths. out needs the same room (n rounded up to
** a multiple of BITPACK_GROUP values). */
void bitpack_unpack32(const uint8_t *in, uint32_t n, unsigned w, uint32_t *out);

/* bitpack_unpack_T is a frame of reference decoded straight into the output's type: out[i] =
** (T)(base + value i), the sum modulo 2^64 truncated to T's bits (two's complement), for the n
** values rounded up to a multiple of BITPACK_GROUP (out needs that room; the padding's values are
** base). No range check: a caller whose values may not fit T checks them (or the frame) itself. */
void bitpack_unpack_i16(const uint8_t *in, uint32_t n, unsigned w, uint64_t base, int16_t *out);
void bitpack_unpack_i32(const uint8_t *in, uint32_t n, unsigned w, uint64_t base, int32_t *out);
void bitpack_unpack_i64(const uint8_t *in, uint32_t n, unsigned w, uint64_t base, int64_t *out);

/* bitpack_sum returns the sum, modulo 2^64, of the first n values of a stream of w-bit values
** (it must hold bitpack_bytes(n, w) bytes): what a delta decoder needs to reach row n. */
uint64_t bitpack_sum(const uint8_t *in, uint32_t n, unsigned w);

/* bitpack_get returns value i of a stream of w-bit values; the stream must hold value i (at
** least bitpack_bytes(i + 1, w) bytes). */
uint64_t bitpack_get(const uint8_t *in, uint64_t i, unsigned w);

#endif
