/*
** crc32c.h -- CRC-32C (Castagnoli), the checksum of every page and WAL frame.
**
** Uses the SSE4.2 crc32 instruction when the CPU has it (checked once at run time, so a
** -march=x86-64 build still gets it) and a slicing-by-8 table otherwise.
*/
#ifndef STRATA_CRC32C_H
#define STRATA_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* crc32c extends crc (0 for a fresh checksum) over n bytes of buf and returns the new value;
** crc32c(crc32c(0, a, n), b, m) equals the checksum of a followed by b. */
uint32_t crc32c(uint32_t crc, const void *buf, size_t n);

/* For tests: crc32c_sw is crc32c computed with the table, never with the crc32 instruction, and
** crc32c_hw_available says whether crc32c() uses the instruction on this CPU. */
uint32_t crc32c_sw(uint32_t crc, const void *buf, size_t n);
int crc32c_hw_available(void);

#endif
