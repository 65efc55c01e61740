/*
** fsst.c -- FSST string compression (the interface and the stored form are in fsst.h).
**
** Compressing: at each position the longest symbol that starts there is taken greedily. Symbols
** of three bytes and more sit in a hash table keyed by their first three bytes, one per slot (a
** symbol whose slot is taken is left out of the table when it is made: the "lossy perfect hash"
** of the paper); one- and two-byte symbols are looked up directly by the next two bytes. So a
** step is one hash probe and one table read, whatever the table holds.
**
** Learning a table: five generations over a growing share of the sample. Each compresses the
** sample with the current table, counting how often each symbol (or escaped byte) occurs and how
** often each pair follows each other; the candidates are those symbols and the concatenations of
** the pairs (up to 8 bytes), each with its gain (occurrences x length, single bytes x 8 so that
** common bytes keep a code and escapes stay rare), and the 255 of most gain make the next table.
*/
#include "fsst.h"

#include <stdlib.h>
#include <string.h>

#define HASH_BITS 10
#define HASH_SLOTS (1u << HASH_BITS)
#define CODES 512 /* while learning: 0..254 symbols, 256 + b the escaped byte b */
#define GENERATIONS 5

struct fsst_table {
    uint32_t count;
    uint8_t len[256];
    uint64_t sym[256];
    /* one or two bytes -> (length << 8) | code of the longest symbol of at most two bytes they
    ** start with; (1 << 8) | FSST_ESCAPE when none */
    uint16_t short_codes[1u << 16];
    uint16_t byte_codes[256];
    /* symbols of 3..8 bytes by the hash of their first three bytes; hlen 0: an empty slot */
    uint64_t hsym[HASH_SLOTS];
    uint8_t hlen[HASH_SLOTS], hcode[HASH_SLOTS];
};

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define LE64(x) __builtin_bswap64(x)
#else
#define LE64(x) (x)
#endif

/* load_word reads up to 8 bytes at p (rem of them exist), zeros after them. */
static inline uint64_t load_word(const uint8_t *p, size_t rem) {
    uint64_t w = 0;
    if (rem >= 8)
        memcpy(&w, p, 8);
    else
        for (size_t i = 0; i < rem; i++) w |= (uint64_t)p[i] << (8 * i);
    return rem >= 8 ? LE64(w) : w;
}

static inline uint64_t len_mask(unsigned len) { return len >= 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * len)) - 1; }

static inline unsigned hash3(uint64_t w) { return (uint32_t)((w & 0xFFFFFF) * 0x9E3779B1u) >> (32 - HASH_BITS); }

/* find returns the length of the longest symbol at p (rem bytes left, at least 1) and sets *code
** (FSST_ESCAPE with length 1 when no symbol starts there). */
static inline unsigned find(const fsst_table *t, const uint8_t *p, size_t rem, unsigned *code) {
    uint64_t w = load_word(p, rem);
    if (rem >= 3) {
        unsigned h = hash3(w), l = t->hlen[h];
        if (l && l <= rem && ((w ^ t->hsym[h]) & len_mask(l)) == 0) {
            *code = t->hcode[h];
            return l;
        }
    }
    uint16_t sc = rem >= 2 ? t->short_codes[w & 0xFFFF] : t->byte_codes[w & 0xFF];
    *code = sc & 0xFF;
    return sc >> 8;
}

/* table_make fills t with the symbols sym[0..n) (in order of preference), leaving out those whose
** hash slot an earlier one took. */
static void table_make(fsst_table *t, const uint64_t *sym, const uint8_t *len, uint32_t n) {
    t->count = 0;
    memset(t->hlen, 0, sizeof t->hlen);
    for (unsigned b = 0; b < 256; b++) t->byte_codes[b] = (1u << 8) | FSST_ESCAPE;
    for (uint32_t i = 0; i < n && t->count < FSST_SYMBOLS; i++) {
        unsigned code = t->count;
        if (len[i] >= 3) {
            unsigned h = hash3(sym[i]);
            if (t->hlen[h]) continue;
            t->hlen[h] = len[i], t->hsym[h] = sym[i], t->hcode[h] = (uint8_t)code;
        } else if (len[i] == 1) {
            t->byte_codes[sym[i] & 0xFF] = (uint16_t)((1u << 8) | code);
        }
        t->sym[code] = sym[i];
        t->len[code] = len[i];
        t->count++;
    }
    for (unsigned x = 0; x < (1u << 16); x++) t->short_codes[x] = t->byte_codes[x & 0xFF];
    for (uint32_t c = 0; c < t->count; c++)
        if (t->len[c] == 2) t->short_codes[t->sym[c] & 0xFFFF] = (uint16_t)((2u << 8) | c);
}

/* A candidate symbol while learning. */
typedef struct cand {
    uint64_t sym, gain;
    uint8_t len;
} cand;

typedef struct cands {
    cand *slot; /* open addressing by symbol; len 0: empty */
    uint32_t mask, used;
} cands;

static int cands_add(cands *c, uint64_t sym, unsigned len, uint64_t gain) {
    if (c->used * 2 >= c->mask) { /* grow */
        cands bigger = {calloc((size_t)(c->mask + 1) * 2, sizeof(cand)), c->mask * 2 + 1, 0};
        if (bigger.slot == NULL) return -1;
        for (uint32_t i = 0; i <= c->mask; i++)
            if (c->slot[i].len) cands_add(&bigger, c->slot[i].sym, c->slot[i].len, c->slot[i].gain);
        free(c->slot);
        *c = bigger;
    }
    uint64_t h = (sym * 0x9E3779B97F4A7C15u) ^ len;
    for (uint32_t i = (uint32_t)(h >> 40) & c->mask;; i = (i + 1) & c->mask) {
        cand *s = &c->slot[i];
        if (s->len == 0) {
            s->sym = sym, s->len = (uint8_t)len, s->gain = gain;
            c->used++;
            return 0;
        }
        if (s->sym == sym && s->len == len) {
            s->gain += gain;
            return 0;
        }
    }
}

/* more gain first; then longer; then by bytes (so that the order is the same on every run) */
static int cand_cmp(const void *pa, const void *pb) {
    const cand *a = pa, *b = pb;
    if (a->gain != b->gain) return a->gain > b->gain ? -1 : 1;
    if (a->len != b->len) return a->len > b->len ? -1 : 1;
    return a->sym < b->sym ? -1 : a->sym > b->sym;
}

/* sym_of: the bytes and length of learning code c. */
static inline uint64_t sym_of(const fsst_table *t, unsigned c, unsigned *len) {
    if (c >= 256) {
        *len = 1;
        return c - 256;
    }
    *len = t->len[c];
    return t->sym[c];
}

/* count compresses the strings of the sample in this generation's share, counting symbols and
** pairs (codes as CODES). */
static void count(const fsst_table *t, const uint8_t *const *strs, const uint32_t *lens, size_t n, unsigned frac,
                  uint32_t *c1, uint32_t *c2) {
    for (size_t i = 0; i < n; i++) {
        if (((uint32_t)(i * 2654435761u) >> 25) >= frac) continue; /* a share of frac / 128 */
        const uint8_t *p = strs[i], *end = p + lens[i];
        int prev = -1;
        while (p < end) {
            unsigned code, l = find(t, p, (size_t)(end - p), &code);
            unsigned c = code == FSST_ESCAPE ? 256u + *p : code;
            c1[c]++;
            if (l > 1) c1[256u + *p]++; /* the first byte alone is an option too */
            if (prev >= 0) {
                c2[(unsigned)prev * CODES + c]++;
                if (l > 1) c2[(unsigned)prev * CODES + 256u + *p]++; /* or extending by one byte */
            }
            prev = (int)c;
            p += l;
        }
    }
}

fsst_table *fsst_build(const uint8_t *const *strs, const uint32_t *lens, size_t n) {
    fsst_table *t = malloc(sizeof *t);
    uint32_t *c1 = malloc(CODES * sizeof *c1), *c2 = malloc((size_t)CODES * CODES * sizeof *c2);
    cands cs = {calloc(4096, sizeof(cand)), 4095, 0};
    cand *top = malloc(4096 * sizeof *top);
    if (t == NULL || c1 == NULL || c2 == NULL || cs.slot == NULL || top == NULL) goto oom;
    table_make(t, NULL, NULL, 0);
    for (unsigned g = 0; g < GENERATIONS; g++) {
        unsigned frac = 8 + 30 * g, last = g == GENERATIONS - 1;
        memset(c1, 0, CODES * sizeof *c1);
        memset(c2, 0, (size_t)CODES * CODES * sizeof *c2);
        count(t, strs, lens, n, frac, c1, c2);
        memset(cs.slot, 0, (size_t)(cs.mask + 1) * sizeof(cand));
        cs.used = 0;
        uint64_t min_count = 5 * frac / 128; /* rarer than this: noise, not a symbol */
        for (unsigned a = 0; a < CODES; a++) {
            if (c1[a] == 0 || c1[a] < min_count) continue;
            unsigned la;
            uint64_t sa = sym_of(t, a, &la);
            if (cands_add(&cs, sa, la, (uint64_t)c1[a] * la * (la == 1 ? 8 : 1))) goto oom;
            if (last || la == 8) continue; /* the last generation only chooses among what it has */
            for (unsigned b = 0; b < CODES; b++) {
                uint32_t k = c2[a * CODES + b];
                if (k == 0 || k < min_count) continue;
                unsigned lb;
                uint64_t sb = sym_of(t, b, &lb);
                unsigned l = la + lb > 8 ? 8 : la + lb;
                uint64_t s = (sa | sb << (8 * la)) & len_mask(l);
                if (cands_add(&cs, s, l, (uint64_t)k * l)) goto oom;
            }
        }
        uint32_t m = 0;
        if (cs.used > 4096) {
            cand *bigger = realloc(top, cs.used * sizeof *top);
            if (bigger == NULL) goto oom;
            top = bigger;
        }
        for (uint32_t i = 0; i <= cs.mask; i++)
            if (cs.slot[i].len) top[m++] = cs.slot[i];
        qsort(top, m, sizeof *top, cand_cmp);
        uint64_t sym[FSST_SYMBOLS];
        uint8_t len[FSST_SYMBOLS];
        uint32_t k = m < FSST_SYMBOLS ? m : FSST_SYMBOLS;
        for (uint32_t i = 0; i < k; i++) sym[i] = top[i].sym, len[i] = top[i].len;
        table_make(t, sym, len, k);
    }
    free(c1), free(c2), free(cs.slot), free(top);
    return t;
oom:
    free(t), free(c1), free(c2), free(cs.slot), free(top);
    return NULL;
}

void fsst_table_free(fsst_table *t) { free(t); }

size_t fsst_compress(const fsst_table *t, const uint8_t *in, size_t len, uint8_t *out) {
    uint8_t *o = out;
    const uint8_t *p = in, *end = in + len;
    while (p < end) {
        unsigned code, l = find(t, p, (size_t)(end - p), &code);
        *o++ = (uint8_t)code;
        if (code == FSST_ESCAPE) *o++ = *p;
        p += l;
    }
    return (size_t)(o - out);
}

size_t fsst_table_bytes(const fsst_table *t) { return 1 + 9 * (size_t)t->count; }

uint8_t *fsst_table_write(const fsst_table *t, uint8_t *out) {
    *out++ = (uint8_t)t->count;
    memcpy(out, t->len, t->count);
    out += t->count;
    for (uint32_t c = 0; c < t->count; c++, out += 8) {
        uint64_t x = LE64(t->sym[c]);
        memcpy(out, &x, 8);
    }
    return out;
}

int fsst_decoder_load(fsst_decoder *d, const uint8_t *p, size_t n) {
    memset(d, 0, sizeof *d);
    if (n < 1 || n != 1 + 9 * (size_t)p[0]) return 0; /* p[0] <= 255 = FSST_SYMBOLS */
    d->count = p[0];
    for (uint32_t c = 0; c < d->count; c++) {
        uint8_t l = p[1 + c];
        uint64_t x;
        memcpy(&x, p + 1 + d->count + 8 * (size_t)c, 8);
        x = LE64(x);
        if (l < 1 || l > 8 || (x & ~len_mask(l)) != 0) return 0;
        d->len[c] = l;
        d->sym[c] = x;
    }
    return 1;
}

int64_t fsst_decompress(const fsst_decoder *d, const uint8_t *in, size_t n, uint8_t *out) {
    uint8_t *o = out;
    const uint8_t *p = in, *end = in + n;
    while (p < end) {
        unsigned c = *p++;
        if (c < d->count) {
            uint64_t x = LE64(d->sym[c]);
            memcpy(o, &x, 8);
            o += d->len[c];
        } else if (c == FSST_ESCAPE && p < end) {
            *o++ = *p++;
        } else {
            return -1;
        }
    }
    return o - out;
}
