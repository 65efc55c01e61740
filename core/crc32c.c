/*
** crc32c.c -- CRC-32C (Castagnoli): the SSE4.2 crc32 instruction when the CPU has it, a
** slicing-by-8 table otherwise.
**
** The choice is made once, on the first call, under pthread_once, together with building the
** table; both paths compute the same standard CRC (reflected polynomial 0x82F63B78, initial
** value and final xor ~0), so a file written on one machine verifies on any other. The
** functions with the sse4.2 target attribute are only called after the CPU check, which lets a
** -march=x86-64 build use the instruction.
*/
#include "crc32c.h"

#include <pthread.h>
#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>
#define CRC32C_HAVE_X86 1
#endif

#define CRC32C_POLY 0x82F63B78u

typedef uint32_t (*crc_kernel)(uint32_t crc, const unsigned char *p, size_t n);

static uint32_t table[8][256]; /* table[k][b]: the CRC of byte b followed by k zero bytes */
static crc_kernel kernel;      /* the path crc32c() uses; set once by crc_init */
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* sw_kernel consumes 8 bytes per step with eight table lookups; byte loads keep it independent
** of alignment and byte order. crc is the running (inverted) register. */
static uint32_t sw_kernel(uint32_t crc, const unsigned char *p, size_t n) {
    for (; n >= 8; p += 8, n -= 8) {
        uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
        crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^
              table[4][lo >> 24] ^ table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
              table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
    }
    while (n--) crc = table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return crc;
}

#ifdef CRC32C_HAVE_X86
/* hw_kernel steps byte by byte to an 8-byte boundary, then 8 bytes per crc32 instruction. */
__attribute__((target("sse4.2"))) static uint32_t hw_kernel(uint32_t crc, const unsigned char *p, size_t n) {
    for (; n > 0 && ((uintptr_t)p & 7) != 0; n--) crc = _mm_crc32_u8(crc, *p++);
#ifdef __x86_64__
    uint64_t c = crc;
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        c = _mm_crc32_u64(c, w);
    }
    crc = (uint32_t)c;
#endif
    while (n--) crc = _mm_crc32_u8(crc, *p++);
    return crc;
}
#endif

static void crc_init(void) {
    for (uint32_t b = 0; b < 256; b++) {
        uint32_t c = b;
        for (int i = 0; i < 8; i++) c = (c >> 1) ^ (CRC32C_POLY & (0u - (c & 1)));
        table[0][b] = c;
    }
    for (int k = 1; k < 8; k++)
        for (int b = 0; b < 256; b++) table[k][b] = (table[k - 1][b] >> 8) ^ table[0][table[k - 1][b] & 0xff];
    kernel = sw_kernel;
#ifdef CRC32C_HAVE_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("sse4.2")) kernel = hw_kernel;
#endif
}

uint32_t crc32c(uint32_t crc, const void *buf, size_t n) {
    pthread_once(&init_once, crc_init);
    return ~kernel(~crc, buf, n);
}

uint32_t crc32c_sw(uint32_t crc, const void *buf, size_t n) {
    pthread_once(&init_once, crc_init);
    return ~sw_kernel(~crc, buf, n);
}

int crc32c_hw_available(void) {
    pthread_once(&init_once, crc_init);
    return kernel != sw_kernel;
}
