/*
** workload.c -- the pure part of the test workloads: random numbers, keys, values and the model.
** Nothing here calls the library, so every test program can link it (see workload.h).
*/
#include "workload.h"

#include <ctype.h>
#include <strings.h>

void wl_rng_seed(wl_rng *r, uint64_t seed) { r->state = seed; }

uint64_t wl_rng_next(wl_rng *r) {
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t wl_rng_below(wl_rng *r, uint64_t n) { return n ? wl_rng_next(r) % n : 0; }

uint64_t wl_rng_range(wl_rng *r, uint64_t lo, uint64_t hi) { return lo + wl_rng_below(r, hi - lo + 1); }

size_t wl_key(char *buf, uint32_t idx) {
    snprintf(buf, WL_KEY_LEN + 1, "key-%06u", idx % 1000000u);
    return WL_KEY_LEN;
}

long wl_key_parse(const uint8_t *key, size_t klen) {
    if (klen != WL_KEY_LEN || memcmp(key, "key-", 4) != 0) return -1;
    long idx = 0;
    for (size_t i = 4; i < klen; i++) {
        if (!isdigit(key[i])) return -1;
        idx = idx * 10 + (key[i] - '0');
    }
    return idx;
}

/* the byte at position i of the value of (key, tag, len), generated in 8-byte words */
static void value_gen(uint8_t *buf, size_t len, uint32_t key, uint32_t tag) {
    char prefix[64];
    int plen = snprintf(prefix, sizeof prefix, "k=%u t=%u n=%zu;", key, tag, len);
    wl_rng r;
    wl_rng_seed(&r, ((uint64_t)key << 32) ^ tag ^ ((uint64_t)len << 17) ^ 0x5eedull);
    size_t i = 0;
    while (i < len) {
        uint64_t word = wl_rng_next(&r);
        for (int b = 0; b < 8 && i < len; b++, i++)
            buf[i] = (uint8_t)(word >> (8 * b));
    }
    memcpy(buf, prefix, (size_t)plen < len ? (size_t)plen : len);
}

void wl_value_fill(uint8_t *buf, size_t len, uint32_t key, uint32_t tag) { value_gen(buf, len, key, tag); }

int wl_value_check(const uint8_t *buf, size_t len, uint32_t key, uint32_t tag, size_t want_len, char *why,
                   size_t whylen) {
    if (len != want_len) {
        if (why) {
            snprintf(why, whylen, "value length %zu, expected %zu (tag %u); starts '", len, want_len, tag);
            for (size_t i = 0; i < len && i < 24; i++) {
                char c = isprint(buf[i]) ? (char)buf[i] : '.';
                wl_appendf(why, whylen, "%c", c);
            }
            wl_appendf(why, whylen, "'");
        }
        return 0;
    }
    uint8_t *want = malloc(want_len ? want_len : 1);
    if (want == NULL) {
        if (why) snprintf(why, whylen, "out of memory");
        return 0;
    }
    value_gen(want, want_len, key, tag);
    int ok = 1;
    for (size_t i = 0; i < len; i++)
        if (buf[i] != want[i]) {
            if (why) {
                snprintf(why, whylen,
                         "value (len %zu, tag %u) differs at byte %zu: 0x%02x, expected 0x%02x; starts '",
                         len, tag, i, buf[i], want[i]);
                for (size_t j = 0; j < len && j < 24; j++)
                    wl_appendf(why, whylen, "%c", isprint(buf[j]) ? (char)buf[j] : '.');
                wl_appendf(why, whylen, "'");
            }
            ok = 0;
            break;
        }
    free(want);
    return ok;
}

void wl_model_put(wl_entry *m, uint32_t key, uint32_t tag, uint32_t len) {
    m[key].present = 1;
    m[key].tag = tag;
    m[key].len = len;
}

void wl_model_del(wl_entry *m, uint32_t key) {
    m[key].present = 0;
    m[key].tag = 0;
    m[key].len = 0;
}

static uint32_t put_len(const wl_params *p, wl_rng *r) {
    uint64_t x = wl_rng_below(r, 100);
    if (x < p->pct_large) return (uint32_t)wl_rng_range(r, p->large_min, p->large_max);
    if (x < p->pct_large + p->pct_medium) return (uint32_t)wl_rng_range(r, 300, 2000);
    if (wl_rng_below(r, 40) == 0) return 0; /* empty values are values too */
    return (uint32_t)wl_rng_range(r, 1, 200);
}

wl_workload *wl_workload_create(const wl_params *p, uint64_t seed) {
    wl_workload *w = calloc(1, sizeof *w);
    if (w == NULL) return NULL;
    w->nkeys = p->nkeys;
    w->ntxn = p->ntxn;
    w->txn = calloc(p->ntxn ? p->ntxn : 1, sizeof *w->txn);
    w->states = calloc((p->ntxn + 1) * p->nkeys, sizeof *w->states);
    if (w->txn == NULL || w->states == NULL) goto fail;
    wl_rng r;
    wl_rng_seed(&r, seed);
    uint32_t tag = 1;
    wl_entry *cur = w->states; /* state 0: empty */
    for (size_t i = 0; i < p->ntxn; i++) {
        wl_entry *next = w->states + (i + 1) * p->nkeys;
        memcpy(next, cur, p->nkeys * sizeof *next);
        int rollback = p->rollback_txn > 0 && (long)i == p->rollback_txn;
        size_t nops = ((long)i == p->big_txn || rollback) ? p->big_ops
                                                          : (size_t)wl_rng_range(&r, p->min_ops, p->max_ops);
        wl_txn *tx = &w->txn[i];
        tx->rollback = rollback;
        tx->ops = calloc(nops ? nops : 1, sizeof *tx->ops);
        if (tx->ops == NULL) goto fail;
        tx->nops = nops;
        for (size_t j = 0; j < nops; j++) {
            wl_op *op = &tx->ops[j];
            op->tag = tag++;
            if (wl_rng_below(&r, 100) < p->pct_delete) {
                /* delete a present key, if there is one */
                uint32_t start = (uint32_t)wl_rng_below(&r, p->nkeys);
                for (uint32_t d = 0; d < p->nkeys; d++) {
                    uint32_t k = (start + d) % p->nkeys;
                    if (next[k].present) {
                        op->key = k;
                        op->del = 1;
                        break;
                    }
                }
                if (op->del) {
                    wl_model_del(next, op->key);
                    continue;
                }
            }
            op->key = (uint32_t)wl_rng_below(&r, p->nkeys);
            op->len = put_len(p, &r);
            if (op->len > w->max_len) w->max_len = op->len;
            wl_model_put(next, op->key, op->tag, op->len);
        }
        if (rollback) memcpy(next, cur, p->nkeys * sizeof *next); /* its operations leave no trace */
        cur = next;
    }
    return w;
fail:
    wl_workload_free(w);
    return NULL;
}

void wl_workload_free(wl_workload *w) {
    if (w == NULL) return;
    if (w->txn)
        for (size_t i = 0; i < w->ntxn; i++)
            free(w->txn[i].ops);
    free(w->txn);
    free(w->states);
    free(w);
}

const wl_entry *wl_state(const wl_workload *w, size_t n) { return w->states + n * w->nkeys; }

void wl_appendf(char *buf, size_t size, const char *fmt, ...) {
    size_t used = strnlen(buf, size);
    if (used + 1 >= size) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}

int wl_mentions_page(const char *text, unsigned long pgno) {
    char want[32];
    int n = snprintf(want, sizeof want, "page %lu", pgno);
    for (const char *s = text; (s = strstr(s, want)) != NULL; s++)
        if (!isdigit((unsigned char)s[n])) return 1;
    return 0;
}

int wl_contains_ci(const char *text, const char *needle) {
    size_t n = strlen(needle);
    for (const char *s = text; *s; s++)
        if (strncasecmp(s, needle, n) == 0) return 1;
    return n == 0;
}
