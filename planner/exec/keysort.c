/*
** keysort.c -- sorting entries by encoded keys (keysort.h).
*/
#include "exec/keysort.h"

/* prefix_word is bytes [from, from + 8) of a key of len bytes as a big-endian number, zeros past
** its end. */
static uint64_t prefix_word(const uint8_t *d, uint32_t len, uint32_t from) {
    uint64_t v = 0;
    if (len >= from + 8) {
        memcpy(&v, d + from, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        v = __builtin_bswap64(v);
#endif
        return v;
    }
    for (uint32_t i = from; i < from + 8; i++) v = v << 8 | (i < len ? d[i] : 0);
    return v;
}

key_entry key_entry_make(const uint8_t *data, uint64_t off, uint32_t len) {
    const uint8_t *d = data + off;
    return (key_entry){.prefix = {prefix_word(d, len, 0), prefix_word(d, len, 8)}, .off = off, .len = len};
}

void key_entries_sort(key_entry *e, uint64_t n, const uint8_t *data, key_entry *tmp) {
    for (uint64_t lo = 0; lo < n; lo += KEYSORT_RUN) {
        uint64_t hi = lo + KEYSORT_RUN < n ? lo + KEYSORT_RUN : n;
        for (uint64_t i = lo + 1; i < hi; i++) {
            key_entry t = e[i];
            uint64_t j = i;
            for (; j > lo && key_entry_compare(data, &t, data, &e[j - 1]) < 0; j--) e[j] = e[j - 1];
            e[j] = t;
        }
    }
    if (n <= KEYSORT_RUN) return;
    key_entry *from = e, *to = tmp;
    for (uint64_t w = KEYSORT_RUN; w < n; w *= 2) {
        for (uint64_t lo = 0; lo < n; lo += 2 * w) {
            uint64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo, j = mid, k = lo;
            while (i < mid && j < hi) to[k++] = key_entry_compare(data, &from[j], data, &from[i]) < 0 ? from[j++] : from[i++];
            while (i < mid) to[k++] = from[i++];
            while (j < hi) to[k++] = from[j++];
        }
        key_entry *t = from;
        from = to, to = t;
    }
    if (from != e) memcpy(e, from, n * sizeof *e);
}
