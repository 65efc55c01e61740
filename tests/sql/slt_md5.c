/*
** slt_md5.c -- MD5 as RFC 1321 specifies it, for the sqllogictest runner (see slt_md5.h).
*/
#include "slt_md5.h"

#include <stdio.h>
#include <string.h>

/* Per-round shift amounts and the sine-derived constants of RFC 1321, section 3.4. */
static const uint8_t shift[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                  5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                                  4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                  6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};
static const uint32_t sine[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};

static void transform(uint32_t state[4], const uint8_t block[64]) {
    uint32_t w[16];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)block[4 * i] | (uint32_t)block[4 * i + 1] << 8 | (uint32_t)block[4 * i + 2] << 16 |
               (uint32_t)block[4 * i + 3] << 24;
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    for (int i = 0; i < 64; i++) {
        uint32_t f;
        int g;
        if (i < 16) {
            f = (b & c) | (~b & d);
            g = i;
        } else if (i < 32) {
            f = (d & b) | (~d & c);
            g = (5 * i + 1) % 16;
        } else if (i < 48) {
            f = b ^ c ^ d;
            g = (3 * i + 5) % 16;
        } else {
            f = c ^ (b | ~d);
            g = (7 * i) % 16;
        }
        uint32_t t = a + f + sine[i] + w[g];
        a = d;
        d = c;
        c = b;
        b = b + (t << shift[i] | t >> (32 - shift[i]));
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
}

void slt_md5_init(slt_md5 *m) {
    m->state[0] = 0x67452301;
    m->state[1] = 0xefcdab89;
    m->state[2] = 0x98badcfe;
    m->state[3] = 0x10325476;
    m->length = 0;
}

void slt_md5_update(slt_md5 *m, const void *data, size_t n) {
    const uint8_t *p = data;
    size_t used = (size_t)(m->length % 64);
    m->length += n;
    while (n > 0) {
        size_t take = 64 - used < n ? 64 - used : n;
        memcpy(m->buffer + used, p, take);
        used += take;
        p += take;
        n -= take;
        if (used == 64) {
            transform(m->state, m->buffer);
            used = 0;
        }
    }
}

void slt_md5_hex(slt_md5 *m, char hex[33]) {
    uint64_t bits = m->length * 8;
    static const uint8_t pad[64] = {0x80};
    size_t used = (size_t)(m->length % 64);
    slt_md5_update(m, pad, used < 56 ? 56 - used : 120 - used);
    uint8_t len[8];
    for (int i = 0; i < 8; i++) len[i] = (uint8_t)(bits >> (8 * i));
    slt_md5_update(m, len, 8);
    for (int i = 0; i < 16; i++) snprintf(hex + 2 * i, 3, "%02x", (unsigned)(m->state[i / 4] >> (8 * (i % 4)) & 0xff));
}
