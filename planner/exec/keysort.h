/*
** keysort.h -- sorting entries by encoded keys: each entry names a byte string (its key, in one
** buffer of its sort's) whose memcmp order is the order wanted, its first 16 bytes kept in the
** entry as two big-endian words, which order most pairs without reading the buffer (a sort would
** wait on a cache miss for nearly every comparison otherwise). CREATE INDEX sorts its index
** entries so (op_index.c), ORDER BY its rows' normalized sort keys (op_sort.c).
*/
#ifndef STRATA_EXEC_KEYSORT_H
#define STRATA_EXEC_KEYSORT_H

#include <stdint.h>
#include <string.h>

#define KEYSORT_PREFIX_BYTES 16

typedef struct key_entry {
    uint64_t prefix[2];
    uint64_t off;  /* the key: bytes [off, off + len) of the sort's buffer */
    uint32_t len;
    uint32_t aux;  /* the sorter's own (CREATE INDEX: a key value is NULL) */
    uint64_t item; /* the sorter's own (ORDER BY: the row) */
} key_entry;

/* key_entry_make is the entry of the len-byte key at data + off. */
key_entry key_entry_make(const uint8_t *data, uint64_t off, uint32_t len);

/* key_entry_compare orders entries a (key in da) and b (key in db) by their keys' bytes, a prefix
** first. */
static inline int key_entry_compare(const uint8_t *da, const key_entry *a, const uint8_t *db, const key_entry *b) {
    for (int w = 0; w < 2; w++)
        if (a->prefix[w] != b->prefix[w]) return a->prefix[w] < b->prefix[w] ? -1 : 1;
    /* the rest 8 bytes at a time as big-endian words (memcmp's call costs more on the short keys
    ** most ties leave), the last few bytes by memcmp */
    uint32_t n = a->len < b->len ? a->len : b->len, i = KEYSORT_PREFIX_BYTES;
    const uint8_t *pa = da + a->off, *pb = db + b->off;
    for (; i + 8 <= n; i += 8) {
        uint64_t u, v;
        memcpy(&u, pa + i, 8), memcpy(&v, pb + i, 8);
        if (u != v) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            u = __builtin_bswap64(u), v = __builtin_bswap64(v);
#endif
            return u < v ? -1 : 1;
        }
    }
    int c = i < n ? memcmp(pa + i, pb + i, n - i) : 0;
    if (c) return c;
    return (a->len > b->len) - (a->len < b->len);
}

/* key_entries_sort sorts e[0..n) (keys in data), with tmp room for n more entries (unused when n
** is at most KEYSORT_RUN): runs of KEYSORT_RUN by insertion, then merge passes between e and tmp
** (a merge sort with the comparison inlined; qsort's calls through a pointer and its byte-wise
** moves took twice as long). Entries of equal keys keep no particular order. */
#define KEYSORT_RUN 16
void key_entries_sort(key_entry *e, uint64_t n, const uint8_t *data, key_entry *tmp);

#endif
