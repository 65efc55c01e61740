/*
** test_model.c -- a randomized model test of the key-value store (B+tree + pager): a long run of
** mixed puts, replaces, deletes, range deletes, gets and cursor ranges, checked against an
** in-memory reference, committed in batches of random size (some rolled back, the reference with
** them), with kv_integrity_check after every batch (0 problems) and periodic reopens.
**
** The reference: a fixed universe of distinct random keys (1..200 bytes, many sharing prefixes,
** so that separators get interesting), sorted once; per key whether it is present and the
** (length, seed) of its value, whose bytes are generated from the seed. Value sizes are mostly
** small, some past the local limit (overflow pages), a few up to ~100 KiB.
**
** Scale: 1,000,000 operations by default, 200,000 under AddressSanitizer; STRATA_TEST_SCALE
** multiplies either (e.g. 0.1 for a quick run). STRATA_TEST_SEED picks another random sequence.
*/
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../rowstore/kv.h"
#include "helpers/tmpdir.h"

#if defined(__SANITIZE_ADDRESS__)
#define MODEL_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MODEL_SANITIZED 1
#endif
#endif
#ifndef MODEL_SANITIZED
#define MODEL_SANITIZED 0
#endif

/* ---- random numbers ----------------------------------------------------------------------- */

static uint64_t rng_state;
static uint64_t rnd(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static uint32_t rnd_below(uint32_t n) { return (uint32_t)(rnd() % n); }

/* fill_value writes the len bytes of the value with the given seed. */
static void fill_value(uint8_t *v, size_t len, uint32_t seed) {
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        memcpy(v + i, &x, 8);
    }
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    for (; i < len; i++) v[i] = (uint8_t)(x >> (8 * (i % 8)));
}

static uint32_t value_size(void) {
    uint32_t r = rnd_below(1000);
    if (r < 600) return rnd_below(65);
    if (r < 850) return 64 + rnd_below(936);
    if (r < 950) return 1000 + rnd_below(3000);
    if (r < 999) return 4000 + rnd_below(16001);
    return 20000 + rnd_below(82401);
}

/* ---- the reference ------------------------------------------------------------------------ */

typedef struct mkey {
    uint8_t *k;
    uint32_t len;
} mkey;

typedef struct mval {
    uint32_t len, seed;
    uint8_t present;
} mval;

typedef struct undo {
    uint32_t idx;
    mval old;
} undo;

typedef struct model {
    mkey *keys;
    mval *vals;
    uint32_t n;
    undo *journal;
    size_t njournal, capjournal;
    uint64_t present;
} model;

static int key_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
    size_t m = al < bl ? al : bl;
    int c = m ? memcmp(a, b, m) : 0;
    if (c) return c;
    return (al > bl) - (al < bl);
}

static int mkey_cmp(const void *a, const void *b) {
    const mkey *x = a, *y = b;
    return key_cmp(x->k, x->len, y->k, y->len);
}

/* model_init makes a universe of about want distinct keys. long_prefixes: every key is one of four
** 100..180-byte prefixes plus a short suffix, so separators are long and interior pages hold few. */
static void model_init(model *m, uint32_t want, int long_prefixes) {
    memset(m, 0, sizeof *m);
    uint8_t prefixes[16][200];
    uint32_t plen[16];
    for (int i = 0; i < 16; i++) {
        plen[i] = long_prefixes ? 100 + rnd_below(81) : rnd_below(21);
        for (uint32_t j = 0; j < plen[i]; j++) prefixes[i][j] = (uint8_t)rnd();
    }
    m->keys = calloc(want, sizeof *m->keys);
    for (uint32_t i = 0; i < want; i++) {
        uint32_t len = rnd_below(10) < 8 ? 1 + rnd_below(30) : 1 + rnd_below(200);
        if (long_prefixes) len = 1 + rnd_below(20);
        uint32_t p = long_prefixes ? rnd_below(4) : rnd_below(3) ? rnd_below(16) : 0;
        if (long_prefixes) len += plen[p];
        uint8_t *k = malloc(len);
        uint32_t pl = plen[p] < len ? plen[p] : len;
        memcpy(k, prefixes[p], pl);
        for (uint32_t j = pl; j < len; j++) k[j] = rnd_below(4) ? (uint8_t)rnd() : (uint8_t)(rnd_below(2) ? 0 : 0xff);
        m->keys[i].k = k;
        m->keys[i].len = len;
    }
    qsort(m->keys, want, sizeof *m->keys, mkey_cmp);
    uint32_t n = 0;
    for (uint32_t i = 0; i < want; i++) {
        if (n && mkey_cmp(&m->keys[n - 1], &m->keys[i]) == 0) {
            free(m->keys[i].k);
            continue;
        }
        m->keys[n++] = m->keys[i];
    }
    m->n = n;
    m->vals = calloc(n, sizeof *m->vals);
}

static void model_free(model *m) {
    for (uint32_t i = 0; i < m->n; i++) free(m->keys[i].k);
    free(m->keys);
    free(m->vals);
    free(m->journal);
}

static void model_set(model *m, uint32_t idx, mval v) {
    if (m->njournal == m->capjournal) {
        m->capjournal = m->capjournal ? 2 * m->capjournal : 1024;
        m->journal = realloc(m->journal, m->capjournal * sizeof *m->journal);
    }
    m->journal[m->njournal].idx = idx;
    m->journal[m->njournal].old = m->vals[idx];
    m->njournal++;
    m->present += (uint64_t)v.present - m->vals[idx].present;
    m->vals[idx] = v;
}

static void model_commit(model *m) { m->njournal = 0; }

static void model_rollback(model *m) {
    while (m->njournal) {
        undo *u = &m->journal[--m->njournal];
        m->present += (uint64_t)u->old.present - m->vals[u->idx].present;
        m->vals[u->idx] = u->old;
    }
}

/* lower_bound: the first universe index whose key is >= k. */
static uint32_t model_lower_bound(const model *m, const uint8_t *k, size_t kl) {
    uint32_t lo = 0, hi = m->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (key_cmp(m->keys[mid].k, m->keys[mid].len, k, kl) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* next_present: the first present index >= i (m->n if none); prev_present: last <= i (-1). */
static uint32_t next_present(const model *m, uint32_t i) {
    while (i < m->n && !m->vals[i].present) i++;
    return i;
}
static int64_t prev_present(const model *m, int64_t i) {
    while (i >= 0 && !m->vals[i].present) i--;
    return i;
}

/* ---- the run ------------------------------------------------------------------------------ */

typedef struct run {
    model m;
    char dir[64], path[96];
    kv_options opt;
    kv_db *db;
    kv_txn *t;
    uint8_t *vbuf;  /* expected value */
    btree_buf got;
    uint64_t seed;
    uint64_t ops, batches, rollbacks, reopens;
    uint64_t n_put, n_del, n_get, n_cur, n_range_del;
} run;

static void run_open(run *r) {
    strata_err err = {0};
    int rc = kv_open(r->path, &r->opt, &r->db, &err);
    cr_assert_eq(rc, STRATA_OK, "kv_open: %s (seed %llu)", err.msg, (unsigned long long)r->seed);
}

static void run_begin(run *r) {
    strata_err err = {0};
    int rc = kv_begin(r->db, 1, &r->t, &err);
    cr_assert_eq(rc, STRATA_OK, "kv_begin: %s", err.msg);
}

static void expect_value(run *r, uint32_t idx, const uint8_t *v, size_t vl, const char *what) {
    mval *mv = &r->m.vals[idx];
    cr_assert_eq(vl, mv->len, "%s: value of key %u has %zu bytes, expected %u (seed %llu, op %llu)", what, idx, vl,
                 mv->len, (unsigned long long)r->seed, (unsigned long long)r->ops);
    fill_value(r->vbuf, mv->len, mv->seed);
    cr_assert(vl == 0 || memcmp(v, r->vbuf, vl) == 0, "%s: value of key %u differs (seed %llu, op %llu)", what, idx,
              (unsigned long long)r->seed, (unsigned long long)r->ops);
}

static void op_put(run *r, uint32_t idx) {
    mval v = {value_size(), (uint32_t)rnd(), 1};
    fill_value(r->vbuf, v.len, v.seed);
    mkey *k = &r->m.keys[idx];
    int rc = kv_put(r->t, k->k, k->len, r->vbuf, v.len);
    cr_assert_eq(rc, STRATA_OK, "put: %s (seed %llu, op %llu)", kv_txn_errmsg(r->t), (unsigned long long)r->seed,
                 (unsigned long long)r->ops);
    model_set(&r->m, idx, v);
    r->n_put++;
}

static void op_delete(run *r, uint32_t idx) {
    mkey *k = &r->m.keys[idx];
    int rc = kv_delete(r->t, k->k, k->len);
    if (r->m.vals[idx].present) {
        cr_assert_eq(rc, STRATA_OK, "delete: %s (seed %llu, op %llu)", kv_txn_errmsg(r->t),
                     (unsigned long long)r->seed, (unsigned long long)r->ops);
        mval none = {0, 0, 0};
        model_set(&r->m, idx, none);
    } else {
        cr_assert_eq(rc, STRATA_NOTFOUND, "delete of an absent key: rc %d (seed %llu, op %llu)", rc,
                     (unsigned long long)r->seed, (unsigned long long)r->ops);
    }
    r->n_del++;
}

static void op_get(run *r, uint32_t idx) {
    mkey *k = &r->m.keys[idx];
    int rc = kv_get(r->t, k->k, k->len, &r->got);
    if (r->m.vals[idx].present) {
        cr_assert_eq(rc, STRATA_OK, "get: rc %d %s (seed %llu, op %llu)", rc, kv_txn_errmsg(r->t),
                     (unsigned long long)r->seed, (unsigned long long)r->ops);
        expect_value(r, idx, r->got.data, r->got.len, "get");
    } else {
        cr_assert_eq(rc, STRATA_NOTFOUND, "get of an absent key: rc %d (seed %llu, op %llu)", rc,
                     (unsigned long long)r->seed, (unsigned long long)r->ops);
    }
    r->n_get++;
}

static void expect_cursor_at(run *r, kv_cursor *c, int64_t idx, int check_value) {
    if (idx < 0 || idx >= (int64_t)r->m.n) {
        cr_assert(!kv_cursor_valid(c), "cursor valid past the end (seed %llu, op %llu)", (unsigned long long)r->seed,
                  (unsigned long long)r->ops);
        return;
    }
    cr_assert(kv_cursor_valid(c), "cursor invalid, expected key %lld (seed %llu, op %llu)", (long long)idx,
              (unsigned long long)r->seed, (unsigned long long)r->ops);
    const uint8_t *k;
    size_t kl;
    cr_assert_eq(kv_cursor_key(c, &k, &kl), STRATA_OK);
    mkey *mk = &r->m.keys[idx];
    cr_assert(kl == mk->len && memcmp(k, mk->k, kl) == 0, "cursor at the wrong key, expected %lld (seed %llu, op %llu)",
              (long long)idx, (unsigned long long)r->seed, (unsigned long long)r->ops);
    if (check_value) {
        const uint8_t *v;
        size_t vl;
        cr_assert_eq(kv_cursor_value(c, &v, &vl), STRATA_OK, "%s", kv_txn_errmsg(r->t));
        expect_value(r, (uint32_t)idx, v, vl, "cursor");
    }
}

/* op_range seeks to a probe (a universe key or random bytes) and walks a few entries. */
static void op_range(run *r, kv_txn *t) {
    uint8_t probe[210];
    size_t pl;
    if (rnd_below(2)) {
        mkey *k = &r->m.keys[rnd_below(r->m.n)];
        pl = k->len;
        memcpy(probe, k->k, pl);
        if (rnd_below(4) == 0 && pl > 1) pl--; /* a prefix of a key */
    } else {
        pl = rnd_below(40);
        for (size_t i = 0; i < pl; i++) probe[i] = (uint8_t)rnd();
    }
    kv_cursor *c;
    cr_assert_eq(kv_cursor_open(t, &c), STRATA_OK);
    int exact = -1;
    cr_assert_eq(kv_cursor_seek(c, probe, pl, &exact), STRATA_OK, "seek: %s", kv_txn_errmsg(t));
    uint32_t lb = model_lower_bound(&r->m, probe, pl);
    uint32_t at = next_present(&r->m, lb);
    int want_exact = at < r->m.n && key_cmp(r->m.keys[at].k, r->m.keys[at].len, probe, pl) == 0;
    cr_assert_eq(exact, want_exact, "seek exact flag (seed %llu, op %llu)", (unsigned long long)r->seed,
                 (unsigned long long)r->ops);
    int64_t pos = at;
    expect_cursor_at(r, c, pos, 1);
    int forward = rnd_below(3) != 0;
    uint32_t steps = 1 + rnd_below(30);
    for (uint32_t s = 0; s < steps && kv_cursor_valid(c); s++) {
        if (forward) {
            cr_assert_eq(kv_cursor_next(c), STRATA_OK);
            pos = next_present(&r->m, (uint32_t)pos + 1);
        } else {
            cr_assert_eq(kv_cursor_prev(c), STRATA_OK);
            pos = prev_present(&r->m, pos - 1);
        }
        expect_cursor_at(r, c, pos, s % 4 == 0);
    }
    kv_cursor_close(c);
    r->n_cur++;
}

/* op_ends checks first/last and a few steps inward. */
static void op_ends(run *r, kv_txn *t) {
    kv_cursor *c;
    cr_assert_eq(kv_cursor_open(t, &c), STRATA_OK);
    cr_assert_eq(kv_cursor_first(c), STRATA_OK);
    int64_t pos = next_present(&r->m, 0);
    for (int s = 0; s < 5; s++) {
        expect_cursor_at(r, c, pos, 1);
        if (!kv_cursor_valid(c)) break;
        cr_assert_eq(kv_cursor_next(c), STRATA_OK);
        pos = next_present(&r->m, (uint32_t)pos + 1);
    }
    cr_assert_eq(kv_cursor_last(c), STRATA_OK);
    pos = prev_present(&r->m, (int64_t)r->m.n - 1);
    for (int s = 0; s < 5; s++) {
        expect_cursor_at(r, c, pos, 1);
        if (!kv_cursor_valid(c)) break;
        cr_assert_eq(kv_cursor_prev(c), STRATA_OK);
        pos = prev_present(&r->m, pos - 1);
    }
    kv_cursor_close(c);
    r->n_cur++;
}

/* op_range_delete deletes a run of consecutive present keys (many merges). */
static void op_range_delete(run *r) {
    uint32_t i = next_present(&r->m, rnd_below(r->m.n));
    uint32_t count = 1 + rnd_below(200);
    for (; i < r->m.n && count; i = next_present(&r->m, i + 1), count--) op_delete(r, i);
    r->n_range_del++;
}

/* full_scan compares a whole scan (in its own read transaction) with the reference. */
static void full_scan(run *r) {
    strata_err err = {0};
    kv_txn *t;
    cr_assert_eq(kv_begin(r->db, 0, &t, &err), STRATA_OK, "%s", err.msg);
    kv_cursor *c;
    cr_assert_eq(kv_cursor_open(t, &c), STRATA_OK);
    cr_assert_eq(kv_cursor_first(c), STRATA_OK);
    uint64_t n = 0;
    for (uint32_t i = next_present(&r->m, 0); i < r->m.n; i = next_present(&r->m, i + 1), n++) {
        expect_cursor_at(r, c, i, 1);
        cr_assert_eq(kv_cursor_next(c), STRATA_OK);
    }
    cr_assert(!kv_cursor_valid(c), "scan has more entries than the reference");
    cr_assert_eq(n, r->m.present);
    for (int k = 0; k < 50; k++) op_range(r, t);
    kv_cursor_close(c);
    cr_assert_eq(kv_commit(t), STRATA_OK);
}

static void check_integrity(run *r) {
    btree_buf report = {0};
    uint64_t problems = 1;
    strata_err err = {0};
    int rc = kv_integrity_check(r->db, &report, &problems, &err);
    cr_assert_eq(rc, STRATA_OK, "integrity check: %s", err.msg);
    cr_assert_eq(problems, 0, "integrity check after batch %llu (seed %llu): %llu problems\n%s",
                 (unsigned long long)r->batches, (unsigned long long)r->seed, (unsigned long long)problems,
                 report.data ? (char *)report.data : "");
    btree_buf_free(&report);
}

static double test_scale(void) {
    const char *s = getenv("STRATA_TEST_SCALE");
    double x = s ? atof(s) : 1.0;
    return x > 0 ? x : 1.0;
}

static void model_run(uint64_t base_ops, uint32_t page_size, uint32_t nkeys, int long_prefixes, uint64_t seed_salt) {
    run *r = calloc(1, sizeof *r);
    const char *s = getenv("STRATA_TEST_SEED");
    r->seed = (s ? strtoull(s, NULL, 10) : 20240601) + seed_salt;
    rng_state = r->seed;
    uint64_t total = (uint64_t)((double)base_ops * test_scale());
    if (total < 1000) total = 1000;
    model_init(&r->m, nkeys, long_prefixes);
    r->vbuf = malloc(110000);
    strcpy(r->dir, "/tmp/strata-model-XXXXXX");
    cr_assert_not_null(mkdtemp(r->dir));
    snprintf(r->path, sizeof r->path, "%s/model.db", r->dir);
    r->opt.pager.page_size = page_size;
    r->opt.pager.no_sync = 1;
    r->opt.pager.cache_bytes = page_size == 4096 ? 2u << 20 : 0; /* small pages: a cache under pressure */
    run_open(r);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);

    while (r->ops < total) {
        run_begin(r);
        uint32_t batch = rnd_below(8) == 0 ? 1 + rnd_below(20) : 1 + rnd_below(4000);
        for (uint32_t i = 0; i < batch && r->ops < total; i++, r->ops++) {
            uint32_t op = rnd_below(1000);
            uint32_t idx = rnd_below(r->m.n);
            if (op < 330)
                op_put(r, idx);
            else if (op < 400)
                op_put(r, next_present(&r->m, idx) < r->m.n ? next_present(&r->m, idx) : idx); /* replace */
            else if (op < 640)
                op_delete(r, idx);
            else if (op < 640 + (rnd_below(10) < 3))
                op_range_delete(r);
            else if (op < 880)
                op_get(r, idx);
            else if (op < 995)
                op_range(r, r->t);
            else
                op_ends(r, r->t);
        }
        r->batches++;
        if (rnd_below(10) == 0) {
            kv_rollback(r->t);
            model_rollback(&r->m);
            r->rollbacks++;
        } else {
            int rc = kv_commit(r->t);
            cr_assert_eq(rc, STRATA_OK, "commit failed (seed %llu)", (unsigned long long)r->seed);
            model_commit(&r->m);
        }
        r->t = NULL;
        check_integrity(r);
        if (r->batches % 40 == 0) {
            cr_assert_eq(kv_close(r->db), STRATA_OK);
            run_open(r);
            r->reopens++;
            full_scan(r);
        } else if (r->batches % 10 == 0) {
            full_scan(r);
        }
    }
    full_scan(r);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    btree_stats st;
    strata_err err = {0};
    kv_txn *t;
    cr_assert_eq(kv_begin(r->db, 0, &t, &err), STRATA_OK);
    cr_assert_eq(btree_get_stats(kv_txn_pager(t), kv_root(t), &st), STRATA_OK);
    kv_rollback(t);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    cr_log_info("model (page %u, seed %llu): %llu ops in %.1f s: %llu puts, %llu deletes, %llu gets, %llu cursor ranges, "
                "%llu range deletes; %llu batches, %llu rolled back, %llu reopens; %llu of %u keys present; "
                "depth %llu, %llu leaves %.2f full, %llu interior, %llu overflow pages",
                page_size, (unsigned long long)r->seed, (unsigned long long)r->ops, secs,
                (unsigned long long)r->n_put, (unsigned long long)r->n_del, (unsigned long long)r->n_get,
                (unsigned long long)r->n_cur, (unsigned long long)r->n_range_del, (unsigned long long)r->batches,
                (unsigned long long)r->rollbacks, (unsigned long long)r->reopens, (unsigned long long)r->m.present,
                r->m.n, (unsigned long long)st.depth, (unsigned long long)st.leaf_pages, st.leaf_fill,
                (unsigned long long)st.interior_pages, (unsigned long long)st.overflow_pages);
    cr_assert_eq(kv_close(r->db), STRATA_OK);
    tmpdir_remove(r->dir);
    btree_buf_free(&r->got);
    free(r->vbuf);
    model_free(&r->m);
    free(r);
}

Test(model, one_million_mixed_operations_8k, .timeout = 1200) {
    model_run(MODEL_SANITIZED ? 200000 : 1000000, 8192, 60000, 0, 0);
}

/* Small pages: deeper trees and more overflow pages for the same data. */
Test(model, mixed_operations_4k, .timeout = 1200) {
    model_run(MODEL_SANITIZED ? 80000 : 150000, 4096, 8000, 0, 1);
}

/* Long shared key prefixes: long separators, few per interior page, deep trees (interior splits,
** merges and redistributions get exercised). */
Test(model, long_separators_4k, .timeout = 1200) {
    model_run(MODEL_SANITIZED ? 80000 : 150000, 4096, 12000, 1, 2);
}
