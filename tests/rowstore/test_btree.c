/*
** test_btree.c -- unit tests of the B+tree (rowstore/btree.c) through the key-value API and
** directly: put/get/replace/delete, cursors across many pages, overflow values up to 16 MiB,
** size limits, bulk load, append fill, merges down to an empty tree, and damaged pages that must
** give STRATA_CORRUPT naming the page instead of a crash.
*/
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../rowstore/btree_internal.h"
#include "../../rowstore/kv.h"
#include "helpers/tmpdir.h"

/* ---- fixtures ----------------------------------------------------------------------------- */

typedef struct tdb {
    char dir[64];
    char path[96];
    kv_options opt;
    kv_db *db;
} tdb;

static void tdb_open(tdb *d) {
    strata_err err = {0};
    int rc = kv_open(d->path, &d->opt, &d->db, &err);
    cr_assert_eq(rc, STRATA_OK, "kv_open: %s", err.msg);
}

static void tdb_create(tdb *d, uint32_t page_size) {
    memset(d, 0, sizeof *d);
    strcpy(d->dir, "/tmp/strata-btree-XXXXXX");
    cr_assert_not_null(mkdtemp(d->dir));
    snprintf(d->path, sizeof d->path, "%s/test.db", d->dir);
    d->opt.pager.page_size = page_size;
    d->opt.pager.no_sync = 1;
    tdb_open(d);
}

static void tdb_reopen(tdb *d) {
    cr_assert_eq(kv_close(d->db), STRATA_OK);
    tdb_open(d);
}

static void tdb_destroy(tdb *d) {
    kv_close(d->db);
    tmpdir_remove(d->dir);
}

static kv_txn *begin(tdb *d, int write) {
    strata_err err = {0};
    kv_txn *t;
    int rc = kv_begin(d->db, write, &t, &err);
    cr_assert_eq(rc, STRATA_OK, "kv_begin: %s", err.msg);
    return t;
}

static void commit(kv_txn *t) { cr_assert_eq(kv_commit(t), STRATA_OK); }

static pgno_t kv_root_of(tdb *d) {
    kv_txn *t = begin(d, 0);
    pgno_t r = kv_root(t);
    kv_rollback(t);
    return r;
}

static void assert_intact(tdb *d) {
    btree_buf report = {0};
    uint64_t problems = 99;
    strata_err err = {0};
    int rc = kv_integrity_check(d->db, &report, &problems, &err);
    cr_assert_eq(rc, STRATA_OK, "integrity check: %s", err.msg);
    cr_assert_eq(problems, 0, "integrity check found %llu problems:\n%s", (unsigned long long)problems,
                 report.data ? (char *)report.data : "");
    btree_buf_free(&report);
}

/* Keys "k" + 8 decimal digits sort like their numbers. */
static size_t make_key(uint8_t *out, uint32_t i) { return (size_t)sprintf((char *)out, "k%08u", i); }

/* A value of len bytes that depends on seed. */
static void fill_value(uint8_t *v, size_t len, uint32_t seed) {
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < len; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        v[i] = (uint8_t)x;
    }
}

static void put_ok(kv_txn *t, const void *k, size_t kl, const void *v, size_t vl) {
    int rc = kv_put(t, k, kl, v, vl);
    cr_assert_eq(rc, STRATA_OK, "kv_put: %s", kv_txn_errmsg(t));
}

static void get_expect(kv_txn *t, const void *k, size_t kl, const void *v, size_t vl) {
    btree_buf b = {0};
    int rc = kv_get(t, k, kl, &b);
    cr_assert_eq(rc, STRATA_OK, "kv_get %.*s: rc %d %s", (int)kl, (const char *)k, rc, kv_txn_errmsg(t));
    cr_assert_eq(b.len, vl, "value length %zu, expected %zu", b.len, vl);
    cr_assert(vl == 0 || memcmp(b.data, v, vl) == 0, "value differs");
    btree_buf_free(&b);
}

/* value_len(i) varies value sizes: mostly small, some up to a few KiB (overflowing 8 KiB pages). */
static size_t value_len(uint32_t i) {
    uint32_t h = i * 2246822519u;
    h ^= h >> 15;
    if (h % 50 == 0) return 2000 + h % 9000;
    return h % 300;
}

/* ---- basic operations --------------------------------------------------------------------- */

static void basic_ops(uint32_t page_size) {
    tdb d;
    tdb_create(&d, page_size);
    enum { N = 6000 };
    uint8_t k[32], *v = malloc(20000);
    kv_txn *t = begin(&d, 1);
    for (uint32_t j = 0; j < N; j++) {
        uint32_t i = (j * 7919u) % N; /* a permutation: random-ish order */
        size_t kl = make_key(k, i), vl = value_len(i);
        fill_value(v, vl, i);
        put_ok(t, k, kl, v, vl);
    }
    for (uint32_t i = 0; i < N; i++) {
        size_t kl = make_key(k, i), vl = value_len(i);
        fill_value(v, vl, i);
        get_expect(t, k, kl, v, vl);
    }
    commit(t);
    assert_intact(&d);

    /* replace every third with a new size, delete every fifth */
    t = begin(&d, 1);
    for (uint32_t i = 0; i < N; i += 3) {
        size_t kl = make_key(k, i), vl = value_len(i + 1000000);
        fill_value(v, vl, i + 1000000);
        put_ok(t, k, kl, v, vl);
    }
    for (uint32_t i = 0; i < N; i += 5) {
        size_t kl = make_key(k, i);
        cr_assert_eq(kv_delete(t, k, kl), STRATA_OK, "delete: %s", kv_txn_errmsg(t));
        cr_assert_eq(kv_delete(t, k, kl), STRATA_NOTFOUND);
    }
    cr_assert_eq(kv_txn_errmsg(t)[0], '\0', "NOTFOUND must not be recorded: %s", kv_txn_errmsg(t));
    commit(t);
    assert_intact(&d);
    tdb_reopen(&d);
    t = begin(&d, 0);
    btree_buf b = {0};
    for (uint32_t i = 0; i < N; i++) {
        size_t kl = make_key(k, i);
        if (i % 5 == 0) {
            cr_assert_eq(kv_get(t, k, kl, &b), STRATA_NOTFOUND);
            continue;
        }
        uint32_t seed = i % 3 == 0 ? i + 1000000 : i;
        size_t vl = value_len(seed);
        fill_value(v, vl, seed);
        get_expect(t, k, kl, v, vl);
    }
    cr_assert_eq(kv_txn_errmsg(t)[0], '\0');
    btree_buf_free(&b);
    kv_rollback(t);
    free(v);
    tdb_destroy(&d);
}

Test(btree, put_get_replace_delete_8k) { basic_ops(8192); }
Test(btree, put_get_replace_delete_4k) { basic_ops(4096); }
Test(btree, put_get_replace_delete_64k) { basic_ops(65536); }

Test(btree, empty_key_and_empty_value) {
    tdb d;
    tdb_create(&d, 0);
    kv_txn *t = begin(&d, 1);
    put_ok(t, "", 0, "", 0);
    put_ok(t, "a", 1, "x", 1);
    get_expect(t, "", 0, "", 0);
    get_expect(t, "a", 1, "x", 1);
    kv_cursor *c;
    cr_assert_eq(kv_cursor_open(t, &c), STRATA_OK);
    cr_assert_eq(kv_cursor_first(c), STRATA_OK);
    const uint8_t *key;
    size_t kl;
    cr_assert(kv_cursor_valid(c));
    cr_assert_eq(kv_cursor_key(c, &key, &kl), STRATA_OK);
    cr_assert_eq(kl, 0);
    kv_cursor_close(c);
    cr_assert_eq(kv_delete(t, "", 0), STRATA_OK);
    commit(t);
    assert_intact(&d);
    tdb_destroy(&d);
}

Test(btree, read_transaction_refuses_changes) {
    tdb d;
    tdb_create(&d, 0);
    kv_txn *t = begin(&d, 0);
    btree_buf b = {0};
    cr_assert_eq(kv_get(t, "a", 1, &b), STRATA_NOTFOUND); /* no tree yet */
    cr_assert_eq(kv_put(t, "a", 1, "b", 1), STRATA_READONLY);
    kv_rollback(t);
    t = begin(&d, 1);
    put_ok(t, "a", 1, "b", 1);
    commit(t);
    t = begin(&d, 0);
    cr_assert_eq(btree_put(kv_txn_pager(t), kv_root(t), "a", 1, "c", 1), STRATA_READONLY);
    cr_assert_eq(btree_delete(kv_txn_pager(t), kv_root(t), "a", 1), STRATA_READONLY);
    kv_rollback(t);
    tdb_destroy(&d);
}

/* ---- cursors ------------------------------------------------------------------------------ */

Test(btree, cursors_across_many_pages) {
    tdb d;
    tdb_create(&d, 4096);
    enum { N = 20000 };
    uint8_t k[32], v[64];
    kv_txn *t = begin(&d, 1);
    for (uint32_t j = 0; j < N; j++) {
        uint32_t i = (j * 104729u) % N;
        size_t kl = make_key(k, 2 * i); /* even numbers: odd ones are gaps for seeks */
        fill_value(v, i % 60, i);
        put_ok(t, k, kl, v, i % 60);
    }
    commit(t);
    for (int write = 0; write <= 1; write++) {
        t = begin(&d, write);
        btree_stats st;
        cr_assert_eq(btree_get_stats(kv_txn_pager(t), kv_root(t), &st), STRATA_OK);
        cr_assert_gt(st.leaf_pages, 50);
        cr_assert_geq(st.depth, 2);
        cr_assert_eq(st.entries, N);
        kv_cursor *c;
        cr_assert_eq(kv_cursor_open(t, &c), STRATA_OK);
        const uint8_t *key, *val;
        size_t kl, vl;
        /* forward */
        uint32_t n = 0;
        for (int rc = kv_cursor_first(c); kv_cursor_valid(c); rc = kv_cursor_next(c), n++) {
            cr_assert_eq(rc, STRATA_OK);
            cr_assert_eq(kv_cursor_key(c, &key, &kl), STRATA_OK);
            size_t el = make_key(k, 2 * n);
            cr_assert(kl == el && memcmp(key, k, kl) == 0, "forward entry %u", n);
            cr_assert_eq(kv_cursor_value(c, &val, &vl), STRATA_OK);
            fill_value(v, n % 60, n);
            cr_assert(vl == n % 60 && memcmp(val, v, vl) == 0);
        }
        cr_assert_eq(n, N);
        /* backward */
        n = N;
        for (int rc = kv_cursor_last(c); kv_cursor_valid(c); rc = kv_cursor_prev(c)) {
            cr_assert_eq(rc, STRATA_OK);
            n--;
            cr_assert_eq(kv_cursor_key(c, &key, &kl), STRATA_OK);
            size_t el = make_key(k, 2 * n);
            cr_assert(kl == el && memcmp(key, k, kl) == 0, "backward entry %u", n);
        }
        cr_assert_eq(n, 0);
        /* seeks: exact, into gaps, before the first, past the last */
        for (uint32_t x = 0; x < 2 * N; x += 37) {
            int exact = -1;
            size_t sl = make_key(k, x);
            cr_assert_eq(kv_cursor_seek(c, k, sl, &exact), STRATA_OK);
            cr_assert(kv_cursor_valid(c));
            cr_assert_eq(exact, x % 2 == 0);
            cr_assert_eq(kv_cursor_key(c, &key, &kl), STRATA_OK);
            uint32_t want = x % 2 ? x + 1 : x;
            size_t el = make_key(k, want);
            cr_assert(kl == el && memcmp(key, k, kl) == 0, "seek %u", x);
            cr_assert_eq(kv_cursor_next(c), STRATA_OK);
            if (want + 2 < 2 * N) {
                cr_assert(kv_cursor_valid(c));
                cr_assert_eq(kv_cursor_key(c, &key, &kl), STRATA_OK);
                el = make_key(k, want + 2);
                cr_assert(kl == el && memcmp(key, k, kl) == 0);
                cr_assert_eq(kv_cursor_prev(c), STRATA_OK);
                cr_assert_eq(kv_cursor_prev(c), STRATA_OK);
                if (want > 0) {
                    cr_assert_eq(kv_cursor_key(c, &key, &kl), STRATA_OK);
                    el = make_key(k, want - 2);
                    cr_assert(kl == el && memcmp(key, k, kl) == 0);
                } else {
                    cr_assert(!kv_cursor_valid(c));
                }
            }
        }
        int exact = -1;
        cr_assert_eq(kv_cursor_seek(c, "a", 1, &exact), STRATA_OK); /* before "k..." */
        cr_assert(kv_cursor_valid(c));
        cr_assert_eq(exact, 0);
        cr_assert_eq(kv_cursor_key(c, &key, &kl), STRATA_OK);
        cr_assert(kl == 9 && memcmp(key, "k00000000", 9) == 0);
        cr_assert_eq(kv_cursor_prev(c), STRATA_OK);
        cr_assert(!kv_cursor_valid(c));
        cr_assert_eq(kv_cursor_seek(c, "z", 1, &exact), STRATA_OK); /* past the last */
        cr_assert(!kv_cursor_valid(c));
        cr_assert_eq(kv_txn_errmsg(t)[0], '\0', "%s", kv_txn_errmsg(t));
        cr_assert_eq(kv_cursor_key(c, &key, &kl), STRATA_MISUSE);
        kv_cursor_close(c);
        if (write)
            kv_rollback(t);
        else
            commit(t);
    }
    tdb_destroy(&d);
}

/* Lookups and seeks are exact whatever the spread of the keys: node search interpolates on the
** keys' first 8 bytes, so keys evenly spread, skewed, sharing long prefixes, shorter than 8
** bytes, or equal in their first 8 bytes are all checked against a sorted reference. */
typedef struct tkey {
    uint8_t b[16];
    size_t n;
} tkey;

static int tkey_cmp(const void *pa, const void *pb) {
    const tkey *a = pa, *b = pb;
    size_t m = a->n < b->n ? a->n : b->n;
    int c = memcmp(a->b, b->b, m);
    return c ? c : (a->n > b->n) - (a->n < b->n);
}

static void put_be64(uint8_t *p, uint64_t x) {
    for (int i = 7; i >= 0; i--, x >>= 8) p[i] = (uint8_t)x;
}

static uint64_t xorshift(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void make_spread_key(int spread, uint32_t i, uint64_t *rng, tkey *k) {
    memset(k, 0, sizeof *k);
    switch (spread) {
    case 0: put_be64(k->b, i), k->n = 8; break;                               /* dense */
    case 1: put_be64(k->b, (uint64_t)i * i * i), k->n = 8; break;              /* skewed */
    case 2: put_be64(k->b, (uint64_t)1 << (i % 63) | i), k->n = 8; break;      /* clustered */
    case 3: put_be64(k->b, xorshift(rng)), k->n = 8; break;                    /* random */
    case 4: /* 1..4 bytes */
        k->n = 1 + i % 4;
        for (size_t j = 0; j < k->n; j++) k->b[j] = (uint8_t)xorshift(rng);
        break;
    case 5: /* one 10-byte prefix, then 4 random bytes */
        memcpy(k->b, "prefix-key", 10);
        for (int j = 10; j < 14; j++) k->b[j] = (uint8_t)xorshift(rng);
        k->n = 14;
        break;
    default: /* 8-byte integers, some extended by a few bytes: equal prefixes, longer keys */
        put_be64(k->b, i / 3);
        k->n = 8 + i % 3 * 2;
        for (size_t j = 8; j < k->n; j++) k->b[j] = (uint8_t)xorshift(rng);
        break;
    }
}

/* skip passes whole leaves and parts of them: after each skip the cursor stands on the entry
** that many places on, and the counts add up to the number of entries. */
Test(btree, cursor_skip_counts_entries_and_lands_on_the_next) {
    tdb d;
    tdb_create(&d, 4096);
    enum { N = 20000 };
    uint8_t k[32], v[64];
    kv_txn *t = begin(&d, 1);
    for (uint32_t i = 0; i < N; i++) {
        fill_value(v, i % 60, i);
        put_ok(t, k, make_key(k, i), v, i % 60);
    }
    commit(t);
    static const uint32_t steps[] = {1, 7, 100, 2048, N - 1, N, 3 * N};
    for (int write = 0; write <= 1; write++)
        for (size_t si = 0; si < sizeof steps / sizeof steps[0]; si++) {
            t = begin(&d, write);
            btree_cursor *c;
            cr_assert_eq(btree_cursor_open(kv_txn_pager(t), kv_root(t), &c), STRATA_OK);
            cr_assert_eq(btree_cursor_first(c), STRATA_OK);
            uint32_t pos = 0, n;
            for (;;) {
                cr_assert_eq(btree_cursor_skip(c, steps[si], &n), STRATA_OK);
                pos += n;
                if (!btree_cursor_valid(c)) break;
                cr_assert_eq(n, steps[si], "a skip short of its count before the end");
                const uint8_t *key;
                size_t kl;
                cr_assert_eq(btree_cursor_key(c, &key, &kl), STRATA_OK);
                size_t el = make_key(k, pos);
                cr_assert(kl == el && memcmp(key, k, kl) == 0, "after skipping to %u (step %u, write %d)", pos,
                          steps[si], write);
            }
            cr_assert_eq(pos, N, "step %u, write %d: %u entries counted", steps[si], write, pos);
            cr_assert_eq(btree_cursor_skip(c, 5, &n), STRATA_OK);
            cr_assert_eq(n, 0);
            btree_cursor_close(c);
            kv_rollback(t);
        }
    tdb_destroy(&d);
}

Test(btree, lookups_and_seeks_with_any_key_spread) {
    enum { N = 6000, SPREADS = 7 };
    tkey *keys = malloc(N * sizeof *keys);
    cr_assert_not_null(keys);
    for (int spread = 0; spread < SPREADS; spread++) {
        tdb d;
        tdb_create(&d, 4096);
        uint64_t rng = 0x5eed + (uint64_t)spread;
        kv_txn *t = begin(&d, 1);
        for (uint32_t i = 0; i < N; i++) {
            make_spread_key(spread, i, &rng, &keys[i]);
            put_ok(t, keys[i].b, keys[i].n, &i, sizeof i);
        }
        commit(t);
        qsort(keys, N, sizeof *keys, tkey_cmp);
        uint32_t n = 0; /* distinct keys */
        for (uint32_t i = 0; i < N; i++)
            if (n == 0 || tkey_cmp(&keys[n - 1], &keys[i]) != 0) keys[n++] = keys[i];
        t = begin(&d, 0);
        kv_cursor *c;
        cr_assert_eq(kv_cursor_open(t, &c), STRATA_OK);
        btree_buf val = {0};
        for (uint32_t i = 0; i < n; i++) {
            cr_assert_eq(kv_get(t, keys[i].b, keys[i].n, &val), STRATA_OK, "spread %d: key %u not found", spread, i);
            /* probes: the key, the key one less in its last byte, the key with a byte appended */
            for (int probe = 0; probe < 3; probe++) {
                tkey q = keys[i];
                if (probe == 1) {
                    if (q.b[q.n - 1] == 0) continue;
                    q.b[q.n - 1]--;
                } else if (probe == 2) {
                    q.b[q.n++] = 0x7f;
                }
                tkey *lb = keys; /* the first key >= q */
                uint32_t lo = 0, hi = n;
                while (lo < hi) {
                    uint32_t mid = (lo + hi) / 2;
                    if (tkey_cmp(&keys[mid], &q) < 0) lo = mid + 1;
                    else hi = mid;
                }
                lb = keys + lo;
                int exact = -1;
                cr_assert_eq(kv_cursor_seek(c, q.b, q.n, &exact), STRATA_OK);
                if (lo == n) {
                    cr_assert(!kv_cursor_valid(c), "spread %d: seek past the last key", spread);
                    continue;
                }
                const uint8_t *key;
                size_t kl;
                cr_assert_eq(kv_cursor_key(c, &key, &kl), STRATA_OK);
                cr_assert(kl == lb->n && memcmp(key, lb->b, kl) == 0, "spread %d: seek %u/%d landed wrong", spread,
                          i, probe);
                cr_assert_eq(exact, tkey_cmp(lb, &q) == 0, "spread %d: seek %u/%d exact", spread, i, probe);
                int found = kv_get(t, q.b, q.n, &val);
                cr_assert_eq(found, exact ? STRATA_OK : STRATA_NOTFOUND, "spread %d: get %u/%d", spread, i, probe);
            }
        }
        btree_buf_free(&val);
        kv_cursor_close(c);
        commit(t);
        tdb_destroy(&d);
    }
    free(keys);
}

Test(btree, cursor_repositions_after_changes_in_write_txn) {
    tdb d;
    tdb_create(&d, 4096);
    uint8_t k[32], v[100];
    memset(v, 'v', sizeof v);
    kv_txn *t = begin(&d, 1);
    for (uint32_t i = 0; i < 3000; i++) put_ok(t, k, make_key(k, i), v, sizeof v);
    kv_cursor *c;
    cr_assert_eq(kv_cursor_open(t, &c), STRATA_OK);
    cr_assert_eq(kv_cursor_first(c), STRATA_OK);
    /* delete entries while walking: reposition after each change */
    uint32_t seen = 0;
    while (kv_cursor_valid(c)) {
        const uint8_t *key;
        size_t kl;
        cr_assert_eq(kv_cursor_key(c, &key, &kl), STRATA_OK);
        uint8_t cur[32];
        memcpy(cur, key, kl);
        cr_assert_eq(kv_delete(t, cur, kl), STRATA_OK, "%s", kv_txn_errmsg(t));
        cr_assert_eq(kv_cursor_seek(c, cur, kl, NULL), STRATA_OK);
        seen++;
    }
    cr_assert_eq(seen, 3000);
    kv_cursor_close(c);
    btree_stats st;
    cr_assert_eq(btree_get_stats(kv_txn_pager(t), kv_root(t), &st), STRATA_OK);
    cr_assert_eq(st.entries, 0);
    cr_assert_eq(st.leaf_pages, 1);
    commit(t);
    assert_intact(&d);
    tdb_destroy(&d);
}

/* ---- large values ------------------------------------------------------------------------- */

Test(btree, large_values_through_overflow_pages, .timeout = 120) {
    tdb d;
    tdb_create(&d, 0);
    size_t max_local = 0;
    {
        uint32_t usable = pager_usable_size(kv_pager(d.db));
        max_local = (usable - BT_HDR_SIZE) / 4 - 2 - 1 - 2 - 2; /* cell limit minus varints and "kNNNNNNNN" */
    }
    size_t sizes[] = {0, 1, 100, max_local - 9, max_local - 8, max_local - 7, 8176, 8177, 3 * 8184,
                      1u << 20, 16u << 20};
    enum { NS = sizeof sizes / sizeof sizes[0] };
    uint8_t k[32], *v = malloc(16u << 20), *w = malloc(16u << 20);
    kv_txn *t = begin(&d, 1);
    for (uint32_t i = 0; i < NS; i++) {
        fill_value(v, sizes[i], i);
        put_ok(t, k, make_key(k, i), v, sizes[i]);
    }
    commit(t);
    assert_intact(&d);
    tdb_reopen(&d);
    t = begin(&d, 0);
    for (uint32_t i = 0; i < NS; i++) {
        fill_value(v, sizes[i], i);
        get_expect(t, k, make_key(k, i), v, sizes[i]);
    }
    btree_stats st;
    cr_assert_eq(btree_get_stats(kv_txn_pager(t), kv_root(t), &st), STRATA_OK);
    cr_assert_gt(st.overflow_pages, 2050); /* 16 MiB alone needs 2053 pages of 8 KiB */
    kv_cursor *c;
    cr_assert_eq(kv_cursor_open(t, &c), STRATA_OK);
    uint32_t n = 0;
    for (kv_cursor_first(c); kv_cursor_valid(c); kv_cursor_next(c), n++) {
        const uint8_t *val;
        size_t vl;
        cr_assert_eq(kv_cursor_value(c, &val, &vl), STRATA_OK);
        cr_assert_eq(vl, sizes[n]);
        fill_value(w, vl, n);
        cr_assert(vl == 0 || memcmp(val, w, vl) == 0, "cursor value %u", n);
    }
    cr_assert_eq(n, NS);
    kv_cursor_close(c);
    kv_rollback(t);

    /* replace the large ones by small ones and back, then delete: chains are freed */
    t = begin(&d, 1);
    for (uint32_t i = 0; i < NS; i++) put_ok(t, k, make_key(k, i), "s", 1);
    commit(t);
    assert_intact(&d);
    t = begin(&d, 1);
    cr_assert_eq(btree_get_stats(kv_txn_pager(t), kv_root(t), &st), STRATA_OK);
    cr_assert_eq(st.overflow_pages, 0);
    fill_value(v, 5u << 20, 77);
    put_ok(t, k, make_key(k, 3), v, 5u << 20);
    fill_value(v, 6u << 20, 78);
    put_ok(t, k, make_key(k, 3), v, 6u << 20);
    get_expect(t, k, make_key(k, 3), v, 6u << 20);
    commit(t);
    assert_intact(&d);
    t = begin(&d, 1);
    for (uint32_t i = 0; i < NS; i++) cr_assert_eq(kv_delete(t, k, make_key(k, i)), STRATA_OK);
    commit(t);
    assert_intact(&d);
    free(v);
    free(w);
    tdb_destroy(&d);
}

Test(btree, key_and_value_limits) {
    tdb d;
    tdb_create(&d, 0);
    size_t mk = btree_max_key(kv_pager(d.db));
    cr_assert_geq(mk, 2000);
    cr_assert_leq(mk, 2048);
    uint8_t *k = malloc(mk + 1);
    memset(k, 'q', mk + 1);
    kv_txn *t = begin(&d, 1);
    put_ok(t, k, mk, "v", 1);
    uint8_t *big = malloc(5000);
    fill_value(big, 5000, 1);
    k[0] = 'p';
    put_ok(t, k, mk, big, 5000); /* longest key with an overflowed value */
    cr_assert_eq(kv_put(t, k, mk + 1, "v", 1), STRATA_TOOBIG);
    cr_assert(strstr(kv_txn_errmsg(t), "key") != NULL, "message: %s", kv_txn_errmsg(t));
    kv_rollback(t);
    t = begin(&d, 1);
    /* many maximal keys force interior pages full of long separators */
    for (uint32_t i = 0; i < 400; i++) {
        size_t kl = make_key(k + mk - 12, i);
        (void)kl;
        put_ok(t, k, mk, "v", 1);
    }
    commit(t);
    assert_intact(&d);
    t = begin(&d, 1);
    cr_assert_eq(btree_put(kv_txn_pager(t), kv_root(t), "a", 1, big, (size_t)BTREE_MAX_VALUE + 1), STRATA_TOOBIG);
    kv_rollback(t);
    free(k);
    free(big);
    tdb_destroy(&d);
}

/* ---- bulk load and fill ------------------------------------------------------------------- */

typedef struct load_src {
    uint32_t i, n;
    uint8_t k[32];
    uint8_t v[12000];
    int shuffle_at; /* emit an out-of-order key at this index (-1: never) */
} load_src;

static int load_next(void *arg, const void **key, size_t *klen, const void **val, size_t *vlen) {
    load_src *s = arg;
    if (s->i == s->n) return STRATA_DONE;
    uint32_t i = s->i++;
    uint32_t kn = (int)i == s->shuffle_at ? 0 : i;
    *klen = make_key(s->k, kn);
    *key = s->k;
    *vlen = value_len(i);
    fill_value(s->v, *vlen, i);
    *val = s->v;
    return STRATA_OK;
}

Test(btree, bulk_load_then_scan_and_change) {
    tdb d;
    tdb_create(&d, 0);
    enum { N = 100000 };
    load_src *s = calloc(1, sizeof *s);
    s->n = N;
    s->shuffle_at = -1;
    kv_txn *t = begin(&d, 1);
    cr_assert_eq(kv_load(t, load_next, s), STRATA_OK, "%s", kv_txn_errmsg(t));
    commit(t);
    assert_intact(&d);
    t = begin(&d, 0);
    btree_stats st;
    cr_assert_eq(btree_get_stats(kv_txn_pager(t), kv_root(t), &st), STRATA_OK);
    cr_assert_eq(st.entries, N);
    cr_assert_geq(st.leaf_fill, 0.95, "bulk-loaded leaves %.3f full", st.leaf_fill);
    cr_log_info("bulk load: %llu entries, %llu leaves %.3f full, %llu interior, %llu overflow, depth %llu",
                (unsigned long long)st.entries, (unsigned long long)st.leaf_pages, st.leaf_fill,
                (unsigned long long)st.interior_pages, (unsigned long long)st.overflow_pages,
                (unsigned long long)st.depth);
    kv_cursor *c;
    cr_assert_eq(kv_cursor_open(t, &c), STRATA_OK);
    uint8_t k[32];
    uint32_t n = 0;
    for (kv_cursor_first(c); kv_cursor_valid(c); kv_cursor_next(c), n++) {
        const uint8_t *key, *val;
        size_t kl, vl;
        cr_assert_eq(kv_cursor_key(c, &key, &kl), STRATA_OK);
        cr_assert(kl == make_key(k, n) && memcmp(key, k, kl) == 0);
        cr_assert_eq(kv_cursor_value(c, &val, &vl), STRATA_OK);
        cr_assert_eq(vl, value_len(n));
        fill_value(s->v, vl, n);
        cr_assert(memcmp(val, s->v, vl) == 0);
    }
    cr_assert_eq(n, N);
    kv_cursor_close(c);
    kv_rollback(t);
    /* the loaded tree takes ordinary changes */
    t = begin(&d, 1);
    for (uint32_t i = 0; i < N; i += 2) cr_assert_eq(kv_delete(t, k, make_key(k, i)), STRATA_OK);
    for (uint32_t i = 1; i < N; i += 20) put_ok(t, k, make_key(k, i), "x", 1);
    commit(t);
    assert_intact(&d);
    /* a second load into a non-empty tree is misuse */
    t = begin(&d, 1);
    s->i = 0;
    cr_assert_eq(kv_load(t, load_next, s), STRATA_MISUSE);
    kv_rollback(t);
    free(s);
    tdb_destroy(&d);
}

Test(btree, bulk_load_out_of_order_leaves_tree_empty) {
    tdb d;
    tdb_create(&d, 0);
    load_src *s = calloc(1, sizeof *s);
    s->n = 50000;
    s->shuffle_at = 30000;
    kv_txn *t = begin(&d, 1);
    cr_assert_eq(kv_load(t, load_next, s), STRATA_MISUSE);
    cr_assert(strstr(kv_txn_errmsg(t), "order") != NULL, "%s", kv_txn_errmsg(t));
    btree_stats st;
    cr_assert_eq(btree_get_stats(kv_txn_pager(t), kv_root(t), &st), STRATA_OK);
    cr_assert_eq(st.entries, 0);
    commit(t); /* the pages written before the error went back to the free list */
    assert_intact(&d);
    free(s);
    tdb_destroy(&d);
}

Test(btree, bulk_load_small_and_empty) {
    tdb d;
    tdb_create(&d, 0);
    load_src *s = calloc(1, sizeof *s);
    s->shuffle_at = -1;
    for (uint32_t n = 0; n < 3; n++) {
        kv_txn *t = begin(&d, 1);
        s->i = 0;
        s->n = n;
        btree_loader *l;
        cr_assert_eq(btree_load_begin(kv_txn_pager(t), kv_root(t), &l), STRATA_OK);
        const void *k, *v;
        size_t kl, vl;
        while (load_next(s, &k, &kl, &v, &vl) == STRATA_OK)
            cr_assert_eq(btree_load_add(l, k, kl, v, vl), STRATA_OK);
        cr_assert_eq(btree_load_finish(l), STRATA_OK);
        btree_stats st;
        cr_assert_eq(btree_get_stats(kv_txn_pager(t), kv_root(t), &st), STRATA_OK);
        cr_assert_eq(st.entries, n);
        kv_rollback(t);
    }
    assert_intact(&d);
    free(s);
    tdb_destroy(&d);
}

static void append_fill(uint32_t page_size, size_t vlen) {
    tdb d;
    tdb_create(&d, page_size);
    enum { N = 60000 };
    uint8_t k[8], v[600];
    memset(v, 'a', sizeof v);
    kv_txn *t = begin(&d, 1);
    for (uint32_t i = 0; i < N; i++) {
        k[0] = 0;
        k[1] = 0;
        k[2] = 0;
        k[3] = 0;
        k[4] = (uint8_t)(i >> 24);
        k[5] = (uint8_t)(i >> 16);
        k[6] = (uint8_t)(i >> 8);
        k[7] = (uint8_t)i;
        put_ok(t, k, 8, v, vlen);
    }
    btree_stats st;
    cr_assert_eq(btree_get_stats(kv_txn_pager(t), kv_root(t), &st), STRATA_OK);
    cr_assert_eq(st.entries, N);
    cr_assert_geq(st.leaf_fill, 0.90, "sequential inserts left leaves %.3f full (page %u, value %zu)", st.leaf_fill,
                  page_size, vlen);
    cr_log_info("append fill: page %u, value %zu bytes: %llu leaves %.3f full, %llu interior, depth %llu", page_size,
                vlen, (unsigned long long)st.leaf_pages, st.leaf_fill, (unsigned long long)st.interior_pages,
                (unsigned long long)st.depth);
    commit(t);
    assert_intact(&d);
    tdb_destroy(&d);
}

Test(btree, append_fill_at_least_90_percent) {
    append_fill(8192, 100);
    append_fill(4096, 20);
    append_fill(8192, 600);
}

Test(btree, delete_everything_merges_down_to_an_empty_root) {
    tdb d;
    tdb_create(&d, 4096);
    enum { N = 30000 };
    uint8_t k[32], v[300];
    kv_txn *t = begin(&d, 1);
    for (uint32_t i = 0; i < N; i++) {
        fill_value(v, value_len(i) % 300, i);
        put_ok(t, k, make_key(k, i), v, value_len(i) % 300);
    }
    commit(t);
    t = begin(&d, 1);
    btree_stats before;
    cr_assert_eq(btree_get_stats(kv_txn_pager(t), kv_root(t), &before), STRATA_OK);
    cr_assert_geq(before.depth, 3);
    /* delete in a scattered order, checking the tree now and then */
    for (uint32_t j = 0; j < N; j++) {
        uint32_t i = (j * 7927u) % N;
        cr_assert_eq(kv_delete(t, k, make_key(k, i)), STRATA_OK, "%s", kv_txn_errmsg(t));
        if (j % 5000 == 0) {
            uint64_t problems;
            btree_buf rep = {0};
            cr_assert_eq(btree_check(kv_txn_pager(t), kv_root(t), NULL, NULL, &rep, &problems), STRATA_OK);
            cr_assert_eq(problems, 0, "%s", rep.data);
            btree_buf_free(&rep);
        }
    }
    btree_stats st;
    cr_assert_eq(btree_get_stats(kv_txn_pager(t), kv_root(t), &st), STRATA_OK);
    cr_assert_eq(st.entries, 0);
    cr_assert_eq(st.leaf_pages, 1);
    cr_assert_eq(st.interior_pages, 0);
    cr_assert_eq(st.depth, 1);
    commit(t);
    assert_intact(&d);
    tdb_destroy(&d);
}

Test(btree, drop_frees_every_page) {
    tdb d;
    tdb_create(&d, 4096);
    uint8_t k[32], *v = malloc(30000);
    kv_txn *t = begin(&d, 1);
    pgno_t other;
    cr_assert_eq(btree_create(kv_txn_pager(t), &other), STRATA_OK);
    for (uint32_t i = 0; i < 5000; i++) {
        size_t vl = i % 97 == 0 ? 20000 : 50;
        fill_value(v, vl, i);
        cr_assert_eq(btree_put(kv_txn_pager(t), other, k, make_key(k, i), v, vl), STRATA_OK);
    }
    cr_assert_eq(btree_drop(kv_txn_pager(t), other), STRATA_OK);
    commit(t);
    assert_intact(&d); /* every page of the dropped tree is on the free list */
    free(v);
    tdb_destroy(&d);
}

/* ---- damaged pages ------------------------------------------------------------------------ */

/* find_page returns the first page of the given type other than the root (0 if none). */
static pgno_t find_page(kv_txn *t, int type, pgno_t after) {
    pager_txn *pt = kv_txn_pager(t);
    for (pgno_t p = after + 1; p < pager_page_count(pt); p++) {
        page *pg;
        if (pager_get(pt, p, &pg) != STRATA_OK) continue;
        int ty = pg->data[0];
        pager_release(pt, pg);
        if (ty == type && p != kv_root(t)) return p;
    }
    return 0;
}

typedef void (*damage_fn)(uint8_t *data, uint32_t usable, pgno_t root, uint32_t seed);

static void damage_garbage(uint8_t *d, uint32_t usable, pgno_t root, uint32_t seed) {
    (void)root;
    fill_value(d, usable, seed);
}
static void damage_garbage_keep_header(uint8_t *d, uint32_t usable, pgno_t root, uint32_t seed) {
    (void)root;
    fill_value(d + BT_HDR_SIZE, usable - BT_HDR_SIZE, seed);
}
static void damage_cell_offsets(uint8_t *d, uint32_t usable, pgno_t root, uint32_t seed) {
    (void)root;
    uint32_t n = d[2] | d[3] << 8;
    for (uint32_t i = 0; i < n; i += 3) {
        uint32_t off = (seed + i * 977) % 65536;
        d[BT_HDR_SIZE + 2 * i] = (uint8_t)off;
        d[BT_HDR_SIZE + 2 * i + 1] = (uint8_t)(off >> 8);
    }
    (void)usable;
}
static void damage_cell_count(uint8_t *d, uint32_t usable, pgno_t root, uint32_t seed) {
    (void)root;
    (void)usable;
    (void)seed;
    d[2] = 0xff;
    d[3] = 0x0f;
}
static void damage_key_lengths(uint8_t *d, uint32_t usable, pgno_t root, uint32_t seed) {
    (void)root;
    (void)seed;
    uint32_t n = d[2] | d[3] << 8;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t off = d[BT_HDR_SIZE + 2 * i] | d[BT_HDR_SIZE + 2 * i + 1] << 8;
        if (off + 2 < usable) d[off + (d[0] == BT_PAGE_INTERIOR ? 4 : 0)] = 0xfe; /* a long varint */
    }
}
static void damage_duplicate_offsets(uint8_t *d, uint32_t usable, pgno_t root, uint32_t seed) {
    (void)root;
    (void)seed;
    uint32_t n = d[2] | d[3] << 8, cstart = d[4] | d[5] << 8;
    for (uint32_t i = 1; i < n; i++) {
        d[BT_HDR_SIZE + 2 * i] = d[BT_HDR_SIZE];
        d[BT_HDR_SIZE + 2 * i + 1] = d[BT_HDR_SIZE + 1];
    }
    d[6] = (uint8_t)(usable - cstart); /* all of the content area counted free */
    d[7] = (uint8_t)((usable - cstart) >> 8);
}
static void damage_children_out_of_range(uint8_t *d, uint32_t usable, pgno_t root, uint32_t seed) {
    (void)root;
    (void)usable;
    (void)seed;
    uint32_t n = d[2] | d[3] << 8;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t off = d[BT_HDR_SIZE + 2 * i] | d[BT_HDR_SIZE + 2 * i + 1] << 8;
        d[off] = d[off + 1] = d[off + 2] = 0x7f;
    }
    d[8] = d[9] = d[10] = 0x7f;
}
static void damage_children_cycle(uint8_t *d, uint32_t usable, pgno_t root, uint32_t seed) {
    (void)usable;
    (void)seed;
    uint32_t n = d[2] | d[3] << 8;
    for (uint32_t i = 0; i <= n; i++) {
        uint32_t off = i < n ? (uint32_t)(d[BT_HDR_SIZE + 2 * i] | d[BT_HDR_SIZE + 2 * i + 1] << 8) : 8;
        d[off] = (uint8_t)root;
        d[off + 1] = (uint8_t)(root >> 8);
        d[off + 2] = (uint8_t)(root >> 16);
        d[off + 3] = (uint8_t)(root >> 24);
    }
}
static void damage_overflow_cycle(uint8_t *d, uint32_t usable, pgno_t root, uint32_t seed) {
    (void)usable;
    (void)root;
    (void)seed;
    (void)d; /* the caller points the chain's next at the page itself */
}

/* exercise runs every read and change on the damaged database: each must succeed or report
** STRATA_CORRUPT/NOTFOUND with a message naming a page; the integrity check must find problems. */
static void exercise(tdb *d, uint32_t n, int expect_get_errors, int expect_problems, pgno_t named) {
    uint8_t k[32];
    int corrupt = 0, named_seen = 0;
    char want[32];
    snprintf(want, sizeof want, "page %u:", named);
    kv_txn *t = begin(d, 0);
    btree_buf b = {0};
    for (uint32_t i = 0; i < n; i++) {
        int rc = kv_get(t, k, make_key(k, i), &b);
        cr_assert(rc == STRATA_OK || rc == STRATA_NOTFOUND || rc == STRATA_CORRUPT, "get rc %d", rc);
        if (rc == STRATA_CORRUPT) {
            corrupt++;
            cr_assert(strstr(kv_txn_errmsg(t), "page ") != NULL, "message: %s", kv_txn_errmsg(t));
            named_seen |= strstr(kv_txn_errmsg(t), want) != NULL;
            kv_rollback(t); /* a fresh transaction: the error slot keeps only the first message */
            t = begin(d, 0);
        }
    }
    if (named) cr_assert(named_seen, "no error named the damaged page %u", named);
    kv_cursor *c;
    cr_assert_eq(kv_cursor_open(t, &c), STRATA_OK);
    int rc = kv_cursor_first(c);
    for (uint32_t steps = 0; rc == STRATA_OK && kv_cursor_valid(c) && steps < 10 * n; steps++) {
        const uint8_t *val;
        size_t vl;
        rc = kv_cursor_value(c, &val, &vl);
        if (rc == STRATA_OK) rc = kv_cursor_next(c);
    }
    cr_assert(rc == STRATA_OK || rc == STRATA_CORRUPT, "scan rc %d", rc);
    rc = kv_cursor_last(c);
    for (uint32_t steps = 0; rc == STRATA_OK && kv_cursor_valid(c) && steps < 10 * n; steps++) rc = kv_cursor_prev(c);
    cr_assert(rc == STRATA_OK || rc == STRATA_CORRUPT, "reverse scan rc %d", rc);
    for (uint32_t i = 0; i < n; i += 97) {
        rc = kv_cursor_seek(c, k, make_key(k, i), NULL);
        cr_assert(rc == STRATA_OK || rc == STRATA_CORRUPT, "seek rc %d", rc);
    }
    kv_cursor_close(c);
    btree_stats st;
    rc = btree_get_stats(kv_txn_pager(t), kv_root(t), &st);
    cr_assert(rc == STRATA_OK || rc == STRATA_CORRUPT);
    kv_rollback(t);
    btree_buf_free(&b);
    if (expect_get_errors) cr_assert_gt(corrupt, 0, "no get reported the damage");

    /* changes: each either works or reports corruption; the transaction is rolled back */
    uint8_t v[3000];
    memset(v, 'c', sizeof v);
    t = begin(d, 1);
    for (uint32_t i = 0; i < n; i += 7) {
        rc = kv_put(t, k, make_key(k, i), v, i % 2 ? sizeof v : 10);
        cr_assert(rc == STRATA_OK || rc == STRATA_CORRUPT, "put rc %d: %s", rc, kv_txn_errmsg(t));
        if (rc) break;
    }
    kv_rollback(t);
    t = begin(d, 1);
    for (uint32_t i = 0; i < n; i += 3) {
        rc = kv_delete(t, k, make_key(k, i));
        cr_assert(rc == STRATA_OK || rc == STRATA_NOTFOUND || rc == STRATA_CORRUPT, "delete rc %d: %s", rc,
                  kv_txn_errmsg(t));
        if (rc == STRATA_CORRUPT) break;
    }
    kv_rollback(t);

    btree_buf report = {0};
    uint64_t problems = 0;
    strata_err err = {0};
    rc = kv_integrity_check(d->db, &report, &problems, &err);
    cr_assert_eq(rc, STRATA_OK, "integrity check: %s", err.msg);
    if (expect_problems) {
        cr_assert_gt(problems, 0, "the integrity check missed the damage");
        cr_assert(strstr((char *)report.data, "page ") != NULL);
    }
    btree_buf_free(&report);
}

static void corrupt_case(int type, damage_fn fn, uint32_t seed, int name_victim) {
    /* duplicated cell offsets keep every cell readable: lookups may miss keys (only a full check
    ** can see that), but nothing may crash and the integrity check must report it */
    int gets_notice = fn != damage_duplicate_offsets;
    tdb d;
    tdb_create(&d, 4096);
    enum { N = 4000 };
    uint8_t k[32], v[6000];
    kv_txn *t = begin(&d, 1);
    for (uint32_t i = 0; i < N; i++) {
        size_t vl = i % 50 == 0 ? 5000 : 40;
        fill_value(v, vl, i);
        put_ok(t, k, make_key(k, i), v, vl);
    }
    commit(t);
    t = begin(&d, 1);
    pgno_t victim = type == BT_PAGE_INTERIOR && seed % 2 ? kv_root(t) : find_page(t, type, seed % 7);
    if (!victim) victim = find_page(t, type, 0);
    if (!victim && type == BT_PAGE_INTERIOR) victim = kv_root(t);
    cr_assert_neq(victim, 0);
    page *pg;
    pager_txn *pt = kv_txn_pager(t);
    cr_assert_eq(pager_get_mut(pt, victim, &pg), STRATA_OK);
    uint32_t usable = pager_usable_size(kv_pager(d.db));
    if (fn == damage_overflow_cycle) {
        pg->data[4] = (uint8_t)victim;
        pg->data[5] = (uint8_t)(victim >> 8);
        pg->data[6] = (uint8_t)(victim >> 16);
        pg->data[7] = (uint8_t)(victim >> 24);
    } else {
        fn(pg->data, usable, kv_root(t), seed);
    }
    pager_release(pt, pg);
    commit(t);
    exercise(&d, N, gets_notice, 1, name_victim ? victim : 0);
    tdb_destroy(&d);
}

Test(btree_corrupt, leaf_garbage) { corrupt_case(BT_PAGE_LEAF, damage_garbage, 1, 1); }
Test(btree_corrupt, leaf_garbage_behind_header) { corrupt_case(BT_PAGE_LEAF, damage_garbage_keep_header, 2, 1); }
Test(btree_corrupt, leaf_cell_offsets) { corrupt_case(BT_PAGE_LEAF, damage_cell_offsets, 3, 1); }
Test(btree_corrupt, leaf_cell_count) { corrupt_case(BT_PAGE_LEAF, damage_cell_count, 4, 1); }
Test(btree_corrupt, leaf_key_lengths) { corrupt_case(BT_PAGE_LEAF, damage_key_lengths, 5, 1); }
Test(btree_corrupt, leaf_duplicate_cell_offsets) { corrupt_case(BT_PAGE_LEAF, damage_duplicate_offsets, 11, 0); }
Test(btree_corrupt, interior_duplicate_cell_offsets) {
    corrupt_case(BT_PAGE_INTERIOR, damage_duplicate_offsets, 12, 0);
}
Test(btree_corrupt, interior_garbage) { corrupt_case(BT_PAGE_INTERIOR, damage_garbage_keep_header, 6, 1); }
Test(btree_corrupt, interior_children_out_of_range) {
    corrupt_case(BT_PAGE_INTERIOR, damage_children_out_of_range, 7, 1);
}
Test(btree_corrupt, interior_children_cycle) { corrupt_case(BT_PAGE_INTERIOR, damage_children_cycle, 8, 0); }
Test(btree_corrupt, root_children_cycle) { corrupt_case(BT_PAGE_INTERIOR, damage_children_cycle, 9, 1); }
Test(btree_corrupt, overflow_chain_cycle) { corrupt_case(BT_PAGE_OVERFLOW, damage_overflow_cycle, 10, 1); }

/* Random byte damage in random pages: nothing may crash (ASan watches), errors are CORRUPT. */
Test(btree_corrupt, random_damage_never_crashes, .timeout = 300) {
    tdb d;
    tdb_create(&d, 4096);
    enum { N = 3000 };
    uint8_t k[32], v[6000];
    kv_txn *t = begin(&d, 1);
    for (uint32_t i = 0; i < N; i++) {
        size_t vl = i % 40 == 0 ? 5000 : i % 90;
        fill_value(v, vl, i);
        put_ok(t, k, make_key(k, i), v, vl);
    }
    commit(t);
    uint32_t usable = pager_usable_size(kv_pager(d.db));
    uint32_t x = 12345;
    for (int round = 0; round < 60; round++) {
        t = begin(&d, 1);
        pager_txn *pt = kv_txn_pager(t);
        pgno_t np = pager_page_count(pt);
        for (int hits = 0; hits < 1 + round % 4; hits++) {
            x = x * 1103515245u + 12345u;
            pgno_t victim = 1 + (x >> 8) % (np - 1);
            page *pg;
            cr_assert_eq(pager_get_mut(pt, victim, &pg), STRATA_OK);
            for (int b = 0; b < 1 + round % 8; b++) {
                x = x * 1103515245u + 12345u;
                uint32_t off = (x >> 4) % (round % 3 == 0 ? 64 : usable);
                pg->data[off] ^= (uint8_t)(1u << (x % 8));
            }
            pager_release(pt, pg);
        }
        commit(t);
        exercise(&d, N, 0, 0, 0);
    }
    tdb_destroy(&d);
}

/* The integrity check names what is wrong and where. */
static void expect_report(tdb *d, const char *what, pgno_t pg) {
    btree_buf report = {0};
    uint64_t problems = 0;
    strata_err err = {0};
    cr_assert_eq(kv_integrity_check(d->db, &report, &problems, &err), STRATA_OK, "%s", err.msg);
    cr_assert_gt(problems, 0);
    char want[160];
    snprintf(want, sizeof want, "page %u: %s", pg, what);
    cr_assert(strstr((char *)report.data, want) != NULL, "expected \"%s\" in:\n%s", want, (char *)report.data);
    btree_buf_free(&report);
}

Test(btree_corrupt, integrity_check_names_the_problem) {
    tdb d;
    tdb_create(&d, 4096);
    uint8_t k[32], v[6000];
    kv_txn *t = begin(&d, 1);
    for (uint32_t i = 0; i < 2000; i++) {
        size_t vl = i == 500 ? 5000 : 30;
        fill_value(v, vl, i);
        put_ok(t, k, make_key(k, i), v, vl);
    }
    commit(t);
    assert_intact(&d);

    /* two cell offsets swapped: keys out of order */
    t = begin(&d, 1);
    pgno_t leaf = find_page(t, BT_PAGE_LEAF, 0);
    page *pg;
    cr_assert_eq(pager_get_mut(kv_txn_pager(t), leaf, &pg), STRATA_OK);
    uint8_t tmp[2];
    memcpy(tmp, pg->data + BT_HDR_SIZE, 2);
    memcpy(pg->data + BT_HDR_SIZE, pg->data + BT_HDR_SIZE + 2, 2);
    memcpy(pg->data + BT_HDR_SIZE + 2, tmp, 2);
    pager_release(kv_txn_pager(t), pg);
    commit(t);
    expect_report(&d, "keys out of order", leaf);
    t = begin(&d, 1); /* undo */
    cr_assert_eq(pager_get_mut(kv_txn_pager(t), leaf, &pg), STRATA_OK);
    memcpy(tmp, pg->data + BT_HDR_SIZE, 2);
    memcpy(pg->data + BT_HDR_SIZE, pg->data + BT_HDR_SIZE + 2, 2);
    memcpy(pg->data + BT_HDR_SIZE + 2, tmp, 2);
    pager_release(kv_txn_pager(t), pg);
    commit(t);
    assert_intact(&d);

    /* two cells made to overlap */
    t = begin(&d, 1);
    cr_assert_eq(pager_get_mut(kv_txn_pager(t), leaf, &pg), STRATA_OK);
    uint32_t off = pg->data[BT_HDR_SIZE + 2] | pg->data[BT_HDR_SIZE + 3] << 8;
    off += 1;
    pg->data[BT_HDR_SIZE + 2] = (uint8_t)off;
    pg->data[BT_HDR_SIZE + 3] = (uint8_t)(off >> 8);
    pager_release(kv_txn_pager(t), pg);
    commit(t);
    btree_buf report = {0};
    uint64_t problems = 0;
    strata_err err = {0};
    cr_assert_eq(kv_integrity_check(d.db, &report, &problems, &err), STRATA_OK);
    cr_assert_gt(problems, 0);
    btree_buf_free(&report);
    tdb_destroy(&d);

    /* a leaked page and an overflow chain cut short */
    tdb_create(&d, 4096);
    t = begin(&d, 1);
    fill_value(v, 5000, 1);
    put_ok(t, "big", 3, v, 5000);
    commit(t);
    t = begin(&d, 1);
    pgno_t ov = find_page(t, BT_PAGE_OVERFLOW, 0);
    cr_assert_eq(pager_get_mut(kv_txn_pager(t), ov, &pg), STRATA_OK);
    memset(pg->data + BT_OVFL_OFF_NEXT, 0, 4);
    pager_release(kv_txn_pager(t), pg);
    cr_assert_eq(pager_alloc(kv_txn_pager(t), &pg), STRATA_OK);
    pgno_t leaked = pg->pgno;
    pager_release(kv_txn_pager(t), pg);
    commit(t);
    expect_report(&d, "leaked", leaked);
    expect_report(&d, "overflow chain of cell 0 has 1 pages", kv_root_of(&d));
    tdb_destroy(&d);
}

/* A read transaction's cursor (which keeps its leaf pinned) sees its snapshot while a writer
** changes and commits beside it, checkpoints included. */
Test(btree, reader_cursor_keeps_its_snapshot_across_commits) {
    tdb d;
    tdb_create(&d, 4096);
    enum { N = 5000 };
    uint8_t k[32], v[200];
    kv_txn *t = begin(&d, 1);
    for (uint32_t i = 0; i < N; i++) {
        fill_value(v, i % 200, i);
        put_ok(t, k, make_key(k, i), v, i % 200);
    }
    commit(t);
    kv_txn *r = begin(&d, 0);
    kv_cursor *c;
    cr_assert_eq(kv_cursor_open(r, &c), STRATA_OK);
    cr_assert_eq(kv_cursor_first(c), STRATA_OK);
    uint32_t n = 0;
    for (int round = 0; kv_cursor_valid(c); round++) {
        const uint8_t *key, *val;
        size_t kl, vl;
        cr_assert_eq(kv_cursor_key(c, &key, &kl), STRATA_OK);
        cr_assert(kl == make_key(k, n) && memcmp(key, k, kl) == 0, "entry %u", n);
        cr_assert_eq(kv_cursor_value(c, &val, &vl), STRATA_OK);
        fill_value(v, n % 200, n);
        cr_assert(vl == n % 200 && memcmp(val, v, vl) == 0, "value %u", n);
        if (round % 500 == 0) { /* the writer deletes, replaces and inserts around the reader */
            kv_txn *w = begin(&d, 1);
            for (uint32_t i = 0; i < N; i += 3) {
                int rc = kv_delete(w, k, make_key(k, i));
                cr_assert(rc == STRATA_OK || rc == STRATA_NOTFOUND);
            }
            for (uint32_t i = 1; i < N; i += 3) put_ok(w, k, make_key(k, i), "new", 3);
            commit(w);
            strata_err err = {0};
            cr_assert_eq(kv_checkpoint(d.db, &err), STRATA_OK, "%s", err.msg);
        }
        cr_assert_eq(kv_cursor_next(c), STRATA_OK);
        n++;
    }
    cr_assert_eq(n, N);
    kv_cursor_close(c);
    kv_rollback(r);
    assert_intact(&d);
    tdb_destroy(&d);
}

/* btree_insert_unique against a model: keys are a 4-byte prefix and a 4-byte suffix; an insert
** succeeds exactly when no key with its prefix is there, including when the keys with that
** prefix fill pages of their own, so that the new key lands at a leaf's edge. */
Test(btree, insert_unique_finds_the_prefix_wherever_it_is) {
    enum { PREFIXES = 3000 };
    tdb d;
    tdb_create(&d, 4096);
    kv_txn *t = begin(&d, 1);
    pager_txn *pt = kv_txn_pager(t);
    pgno_t root = kv_root(t);
    uint8_t *have = calloc(2 * PREFIXES, 1);
    uint64_t rng = 0x1f2e3d;
    /* the even prefixes hold one key each, put directly: a key with a smaller suffix sorts just
    ** before it, which for the first key of every leaf is past the end of the leaf before */
    for (uint32_t p = 0; p < PREFIXES; p += 2) {
        uint8_t k[8] = {(uint8_t)(p >> 24), (uint8_t)(p >> 16), (uint8_t)(p >> 8), (uint8_t)p, 1, 1, 1, 1};
        cr_assert_eq(btree_put(pt, root, k, sizeof k, NULL, 0), STRATA_OK);
        have[p] = 1;
    }
    for (uint32_t p = 0; p < PREFIXES; p++) {
        uint8_t k[8] = {(uint8_t)(p >> 24), (uint8_t)(p >> 16), (uint8_t)(p >> 8), (uint8_t)p, 0, 0, 0, 0};
        int rc = btree_insert_unique(pt, root, k, sizeof k, 4);
        cr_assert_eq(rc, have[p] ? STRATA_CONSTRAINT : STRATA_OK, "prefix %u before its key: %d", p, rc);
        have[p] = 1;
    }
    /* a few prefixes hold hundreds of keys each (several leaves) */
    for (uint32_t p = PREFIXES; p < 2 * PREFIXES; p += 700) {
        for (uint32_t s = 0; s < 600; s++) {
            uint8_t k[8] = {(uint8_t)(p >> 24), (uint8_t)(p >> 16), (uint8_t)(p >> 8), (uint8_t)p,
                            (uint8_t)(s >> 8), (uint8_t)s, 0x55, 0x55};
            cr_assert_eq(btree_put(pt, root, k, sizeof k, NULL, 0), STRATA_OK);
        }
        have[p] = 1;
    }
    for (int round = 0; round < 4 * PREFIXES; round++) {
        rng = rng * 6364136223846793005u + 1442695040888963407u;
        uint32_t p = (uint32_t)(rng >> 33) % (2 * PREFIXES), s = (uint32_t)(rng >> 13);
        uint8_t k[8] = {(uint8_t)(p >> 24), (uint8_t)(p >> 16), (uint8_t)(p >> 8), (uint8_t)p,
                        (uint8_t)(s >> 24), (uint8_t)(s >> 16), (uint8_t)(s >> 8), (uint8_t)s};
        int rc = btree_insert_unique(pt, root, k, sizeof k, 4);
        cr_assert_eq(rc, have[p] ? STRATA_CONSTRAINT : STRATA_OK, "prefix %u (round %d): %d", p, round, rc);
        have[p] = 1;
    }
    /* every prefix the model has is in the tree, and nothing else */
    kv_cursor *c;
    cr_assert_eq(kv_cursor_open(t, &c), STRATA_OK);
    cr_assert_eq(kv_cursor_first(c), STRATA_OK);
    uint32_t seen = 0, last = UINT32_MAX;
    while (kv_cursor_valid(c)) {
        const uint8_t *k;
        size_t kl;
        cr_assert_eq(kv_cursor_key(c, &k, &kl), STRATA_OK);
        uint32_t p = (uint32_t)k[0] << 24 | (uint32_t)k[1] << 16 | (uint32_t)k[2] << 8 | k[3];
        cr_assert(p < 2 * PREFIXES && have[p]);
        if (p != last) seen++, last = p;
        cr_assert_eq(kv_cursor_next(c), STRATA_OK);
    }
    kv_cursor_close(c);
    uint32_t want = 0;
    for (uint32_t p = 0; p < 2 * PREFIXES; p++) want += have[p];
    cr_assert_eq(seen, want);
    commit(t);
    assert_intact(&d);
    free(have);
    tdb_destroy(&d);
}
