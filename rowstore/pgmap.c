/*
** pgmap.c -- page-number hash map; see pgmap.h.
*/
#include "pgmap.h"

#include <stdlib.h>
#include <string.h>

static uint32_t slot_of(uint32_t key, uint32_t cap) { return (key * 0x9E3779B1u) & (cap - 1); }

int pgmap_get(const pgmap *m, uint32_t pgno, uint64_t *val) {
    if (m->count == 0) return 0;
    uint32_t key = pgno + 1, mask = m->cap - 1;
    for (uint32_t i = slot_of(key, m->cap);; i = (i + 1) & mask) {
        if (m->keys[i] == key) { *val = m->vals[i]; return 1; }
        if (m->keys[i] == 0) return 0;
    }
}

static int grow_to(pgmap *m, uint32_t ncap) {
    uint32_t *keys = calloc(ncap, sizeof *keys);
    uint64_t *vals = malloc((size_t)ncap * sizeof *vals);
    if (!keys || !vals) { free(keys); free(vals); return -1; }
    for (uint32_t i = 0; i < m->cap; i++) {
        if (m->keys[i] == 0) continue;
        uint32_t j = slot_of(m->keys[i], ncap);
        while (keys[j]) j = (j + 1) & (ncap - 1);
        keys[j] = m->keys[i];
        vals[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = ncap;
    return 0;
}

/* the table stays at most 3/4 full */
static int fits(uint32_t count, uint32_t cap) { return (uint64_t)count * 4 <= (uint64_t)cap * 3; }

int pgmap_reserve(pgmap *m, uint32_t n) {
    uint32_t ncap = m->cap ? m->cap : 16;
    while (!fits(m->count + n, ncap)) {
        if (ncap >= (1u << 31)) return -1;
        ncap *= 2;
    }
    return ncap == m->cap ? 0 : grow_to(m, ncap);
}

int pgmap_put(pgmap *m, uint32_t pgno, uint64_t val) {
    if (!fits(m->count + 1, m->cap) && pgmap_reserve(m, 1) != 0) return -1;
    uint32_t key = pgno + 1, mask = m->cap - 1;
    uint32_t i = slot_of(key, m->cap);
    while (m->keys[i] && m->keys[i] != key) i = (i + 1) & mask;
    if (m->keys[i] == 0) { m->keys[i] = key; m->count++; }
    m->vals[i] = val;
    return 0;
}

int pgmap_del(pgmap *m, uint32_t pgno) {
    if (m->count == 0) return 0;
    uint32_t key = pgno + 1, mask = m->cap - 1;
    uint32_t i = slot_of(key, m->cap);
    while (m->keys[i] != key) {
        if (m->keys[i] == 0) return 0;
        i = (i + 1) & mask;
    }
    /* Backward-shift: move later members of the probe run into the hole. */
    for (uint32_t j = (i + 1) & mask; m->keys[j]; j = (j + 1) & mask) {
        uint32_t home = slot_of(m->keys[j], m->cap);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            m->keys[i] = m->keys[j];
            m->vals[i] = m->vals[j];
            i = j;
        }
    }
    m->keys[i] = 0;
    m->count--;
    return 1;
}

void pgmap_clear(pgmap *m) {
    if (m->cap) memset(m->keys, 0, (size_t)m->cap * sizeof *m->keys);
    m->count = 0;
}

void pgmap_free(pgmap *m) {
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

int pgmap_next(const pgmap *m, uint32_t *iter, uint32_t *pgno, uint64_t *val) {
    for (uint32_t i = *iter; i < m->cap; i++) {
        if (m->keys[i]) {
            *pgno = m->keys[i] - 1;
            *val = m->vals[i];
            *iter = i + 1;
            return 1;
        }
    }
    *iter = m->cap;
    return 0;
}
