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
/* The crc32 instruction has a latency of three cycles and a throughput of one, so one chain of
** them runs at a third of its speed. hw_kernel therefore runs three chains side by side over
** three consecutive lanes of LANE bytes (the second and third from a zero register), then joins
** them: the register after lanes A and B is R_B(0) xor R_A advanced over |B| zero bytes, and the
** advance over LANE zero bytes is linear in the register, so four table lookups do it. */
#ifdef __x86_64__
#define LANE 512

static uint32_t shift_lane[4][256]; /* shift_lane[k][b]: the register b << 8k after LANE zero bytes */

static uint32_t advance_lane(uint32_t c) {
    return shift_lane[0][c & 0xff] ^ shift_lane[1][(c >> 8) & 0xff] ^ shift_lane[2][(c >> 16) & 0xff] ^
           shift_lane[3][c >> 24];
}

static void shift_init(void) {
    uint32_t basis[32]; /* register 1 << i after LANE zero bytes, one bit step at a time */
    for (int i = 0; i < 32; i++) {
        uint32_t c = 1u << i;
        for (int s = 0; s < LANE * 8; s++) c = (c >> 1) ^ (CRC32C_POLY & (0u - (c & 1)));
        basis[i] = c;
    }
    for (int k = 0; k < 4; k++)
        for (int b = 0; b < 256; b++) {
            uint32_t c = 0;
            for (int i = 0; i < 8; i++)
                if (b >> i & 1) c ^= basis[8 * k + i];
            shift_lane[k][b] = c;
        }
}
#endif

/* hw_kernel steps byte by byte to an 8-byte boundary, then three lanes at a time while three
** fit, then 8 bytes per crc32 instruction. */
__attribute__((target("sse4.2"))) static uint32_t hw_kernel(uint32_t crc, const unsigned char *p, size_t n) {
    for (; n > 0 && ((uintptr_t)p & 7) != 0; n--) crc = _mm_crc32_u8(crc, *p++);
#ifdef __x86_64__
    uint64_t c = crc;
    for (; n >= 3 * LANE; p += 3 * LANE, n -= 3 * LANE) {
        uint64_t c1 = 0, c2 = 0;
        for (size_t i = 0; i < LANE; i += 8) {
            uint64_t w0, w1, w2;
            memcpy(&w0, p + i, 8);
            memcpy(&w1, p + LANE + i, 8);
            memcpy(&w2, p + 2 * LANE + i, 8);
            c = _mm_crc32_u64(c, w0);
            c1 = _mm_crc32_u64(c1, w1);
            c2 = _mm_crc32_u64(c2, w2);
        }
        c = advance_lane(advance_lane((uint32_t)c) ^ (uint32_t)c1) ^ (uint32_t)c2;
    }
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
    if (__builtin_cpu_supports("sse4.2")) {
#ifdef __x86_64__
        shift_init();
#endif
        kernel = hw_kernel;
    }
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
