/*
** segcache.c -- the cache of opened segments (segcache.h): a hash table of entries chained per
** bucket, and a least-recently-used list of the entries nobody holds, from which eviction takes.
*/
#include "segcache.h"

#include <pthread.h>
#include <stdlib.h>

#define BUCKETS 4096 /* a power of two */

struct segcache_entry {
    uint64_t id;
    uint32_t col;
    uint32_t holds;
    size_t bytes;      /* charged to the budget: base and the reader's kept blocks */
    size_t base;       /* the buffer, the entry and the reader's scratch, as measured at insert */
    btree_buf buf;
    segment_reader rd;
    segcache_entry *next_in_bucket;
    segcache_entry *lru_prev, *lru_next; /* in the LRU list while holds == 0 */
};

struct segcache {
    pthread_mutex_t mu;
    size_t budget, bytes, entries;
    uint64_t hits, misses, inserts, evictions;
    segcache_entry *lru_head, *lru_tail; /* head: least recently used */
    segcache_entry *buckets[BUCKETS];
};

static size_t bucket_of(uint64_t id, uint32_t col) {
    uint64_t h = (id * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)col * 0xC2B2AE3D27D4EB4Full);
    return (size_t)(h >> 32) & (BUCKETS - 1);
}

static void lru_unlink(segcache *c, segcache_entry *e) {
    if (e->lru_prev) e->lru_prev->lru_next = e->lru_next;
    else c->lru_head = e->lru_next;
    if (e->lru_next) e->lru_next->lru_prev = e->lru_prev;
    else c->lru_tail = e->lru_prev;
    e->lru_prev = e->lru_next = NULL;
}

static void lru_append(segcache *c, segcache_entry *e) {
    e->lru_prev = c->lru_tail;
    e->lru_next = NULL;
    if (c->lru_tail) c->lru_tail->lru_next = e;
    else c->lru_head = e;
    c->lru_tail = e;
}

static void entry_free(segcache_entry *e) {
    segment_reader_close(&e->rd);
    btree_buf_free(&e->buf);
    free(e);
}

/* evict drops least recently used unheld entries until need more bytes fit the budget. */
static void evict(segcache *c, size_t need) {
    while (c->lru_head && c->bytes + need > c->budget) {
        segcache_entry *e = c->lru_head;
        lru_unlink(c, e);
        segcache_entry **p = &c->buckets[bucket_of(e->id, e->col)];
        while (*p != e) p = &(*p)->next_in_bucket;
        *p = e->next_in_bucket;
        c->bytes -= e->bytes;
        c->entries--;
        c->evictions++;
        entry_free(e);
    }
}

segcache *segcache_create(size_t budget) {
    segcache *c = calloc(1, sizeof *c);
    if (c == NULL) return NULL;
    pthread_mutex_init(&c->mu, NULL);
    c->budget = budget;
    return c;
}

void segcache_destroy(segcache *c) {
    if (c == NULL) return;
    for (size_t b = 0; b < BUCKETS; b++)
        for (segcache_entry *e = c->buckets[b], *next; e; e = next) {
            next = e->next_in_bucket;
            entry_free(e);
        }
    pthread_mutex_destroy(&c->mu);
    free(c);
}

void segcache_set_budget(segcache *c, size_t budget) {
    pthread_mutex_lock(&c->mu);
    c->budget = budget;
    evict(c, 0);
    pthread_mutex_unlock(&c->mu);
}

segcache_entry *segcache_get(segcache *c, uint64_t id, uint32_t col) {
    pthread_mutex_lock(&c->mu);
    segcache_entry *e = c->buckets[bucket_of(id, col)];
    while (e && (e->id != id || e->col != col)) e = e->next_in_bucket;
    if (e && e->holds) e = NULL; /* in use: its reader's scratch is its holder's */
    if (e) {
        e->holds = 1;
        lru_unlink(c, e);
        c->hits++;
    } else {
        c->misses++;
    }
    pthread_mutex_unlock(&c->mu);
    return e;
}

segcache_entry *segcache_put(segcache *c, uint64_t id, uint32_t col, btree_buf *buf, segment_reader *rd) {
    size_t bytes = buf->cap + sizeof(segcache_entry) + (size_t)rd->nvectors * 16;
    pthread_mutex_lock(&c->mu);
    segcache_entry *e = NULL;
    if (bytes > c->budget) goto done;
    segcache_entry **p = &c->buckets[bucket_of(id, col)];
    for (segcache_entry *o = *p; o; o = o->next_in_bucket)
        if (o->id == id && o->col == col) goto done; /* another reader put it first: keep the caller's */
    evict(c, bytes);
    if (c->bytes + bytes > c->budget || (e = calloc(1, sizeof *e)) == NULL) goto done;
    e->id = id;
    e->col = col;
    e->holds = 1;
    e->bytes = e->base = bytes;
    e->buf = *buf;
    e->rd = *rd;
    segment_keep_blocks(&e->rd); /* a point read of a compressed block then decompresses it once */
    *buf = (btree_buf){0};
    e->next_in_bucket = *p;
    *p = e;
    c->bytes += bytes;
    c->entries++;
    c->inserts++;
done:
    pthread_mutex_unlock(&c->mu);
    return e;
}

segment_reader *segcache_reader(segcache_entry *e) { return &e->rd; }

void segcache_release(segcache *c, segcache_entry *e) {
    if (e == NULL) return;
    pthread_mutex_lock(&c->mu);
    size_t now = e->base + segment_kept_bytes(&e->rd); /* blocks kept while it was held */
    c->bytes += now - e->bytes;
    e->bytes = now;
    if (--e->holds == 0) {
        lru_append(c, e);
        evict(c, 0);
    }
    pthread_mutex_unlock(&c->mu);
}

void segcache_get_stats(segcache *c, segcache_stats *out) {
    pthread_mutex_lock(&c->mu);
    *out = (segcache_stats){c->hits, c->misses, c->inserts, c->evictions, c->bytes, c->entries};
    pthread_mutex_unlock(&c->mu);
}
