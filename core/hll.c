/*
** hll.c -- HyperLogLog registers and Ertl's improved estimator (see hll.h).
*/
#include "hll.h"

#include <math.h>
#include <string.h>

/* Bits of the hash left after the register index: a register holds 1..HLL_Q+1. */
#define HLL_Q (64 - HLL_BITS)

void hll_init(hll *h) { memset(h->reg, 0, sizeof h->reg); }

/* mix is splitmix64's finalizer: every input bit reaches every output bit. */
static uint64_t mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

void hll_add(hll *h, uint64_t hash) {
    uint64_t x = mix(hash);
    uint32_t idx = (uint32_t)(x >> HLL_Q);
    uint64_t rest = x << HLL_BITS; /* the other HLL_Q bits, at the top */
    uint8_t rank = rest ? (uint8_t)(__builtin_clzll(rest) + 1) : (uint8_t)(HLL_Q + 1);
    if (rank > HLL_Q + 1) rank = HLL_Q + 1;
    if (rank > h->reg[idx]) h->reg[idx] = rank;
}

void hll_merge(hll *dst, const hll *src) {
    for (uint32_t i = 0; i < HLL_REGISTERS; i++)
        if (src->reg[i] > dst->reg[i]) dst->reg[i] = src->reg[i];
}

/* sigma and tau are the series of Ertl's estimator (his algorithm 6), summed until they stop
** changing in double precision. */
static double sigma(double x) {
    if (x == 1.0) return INFINITY;
    double y = 1.0, z = x;
    for (;;) {
        x *= x;
        double prev = z;
        z += x * y;
        y += y;
        if (z == prev) return z;
    }
}

static double tau(double x) {
    if (x == 0.0 || x == 1.0) return 0.0;
    double y = 1.0, z = 1.0 - x;
    for (;;) {
        x = sqrt(x);
        double prev = z;
        y *= 0.5;
        z -= (1.0 - x) * (1.0 - x) * y;
        if (z == prev) return z / 3.0;
    }
}

int hll_valid(const hll *h) {
    uint8_t top = 0;
    for (uint32_t i = 0; i < HLL_REGISTERS; i++) top = h->reg[i] > top ? h->reg[i] : top;
    return top <= HLL_Q + 1;
}

double hll_estimate(const hll *h) {
    uint32_t count[HLL_Q + 2] = {0};
    for (uint32_t i = 0; i < HLL_REGISTERS; i++) count[h->reg[i]]++;
    if (count[0] == HLL_REGISTERS) return 0.0;
    double m = HLL_REGISTERS;
    double z = m * tau(1.0 - count[HLL_Q + 1] / m);
    for (int k = HLL_Q; k >= 1; k--) z = 0.5 * (z + count[k]);
    z += m * sigma(count[0] / m);
    return m * m / (2.0 * log(2.0) * z);
}
