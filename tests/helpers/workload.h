/*
** workload.h -- deterministic transaction workloads and their verifier, for the row store's crash,
** fault and concurrency tests.
**
** A workload is a list of transactions over a fixed key space ("key-000042"); each operation puts
** a value of a chosen length or deletes a key. Values are a pure function of (key, tag, length),
** so a test never stores them: it regenerates them to write and to check. The workload also keeps
** the model: the expected content of the database after each prefix of its transactions.
**
** Only the pure parts (random numbers, values, the model) live in workload.c, because the
** Makefile links every .c file of tests/helpers into every test program, also those of the
** layers below the row store. The parts that call the row store (applying a transaction,
** comparing a database with the model, copying files of the fault vfs) are static inline
** functions here, so that a test that does not include this header does not depend on them.
** They are defined only when the including file has included kv.h (or vfs.h) before it.
*/
#ifndef STRATA_TESTS_WORKLOAD_H
#define STRATA_TESTS_WORKLOAD_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Diagnostics are cut to the buffers they are written into on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

/* --- random numbers (splitmix64): the same seed gives the same sequence everywhere ----------- */

typedef struct wl_rng {
    uint64_t state;
} wl_rng;

void wl_rng_seed(wl_rng *r, uint64_t seed);
uint64_t wl_rng_next(wl_rng *r);
/* a number in [0, n); n > 0 */
uint64_t wl_rng_below(wl_rng *r, uint64_t n);
/* a number in [lo, hi] */
uint64_t wl_rng_range(wl_rng *r, uint64_t lo, uint64_t hi);

/* --- keys and values --------------------------------------------------------------------------- */

#define WL_KEY_LEN 10 /* "key-" + 6 digits */

/* wl_key writes the key of index idx ("key-000042", WL_KEY_LEN bytes, no NUL needed) into buf
** (at least WL_KEY_LEN + 1 bytes) and returns its length. */
size_t wl_key(char *buf, uint32_t idx);
/* wl_key_parse returns the index of a key written by wl_key, or -1 if key is not one. */
long wl_key_parse(const uint8_t *key, size_t klen);

/* wl_value_fill writes the value for (key, tag) of length len: a readable prefix
** "k=<key> t=<tag> n=<len>;" (as much of it as fits) followed by pseudo-random bytes. */
void wl_value_fill(uint8_t *buf, size_t len, uint32_t key, uint32_t tag);
/* wl_value_check says whether buf/len is exactly the value for (key, tag, want_len); when not, a
** description of the first difference goes to why (may be NULL). Returns 1 when equal. */
int wl_value_check(const uint8_t *buf, size_t len, uint32_t key, uint32_t tag, size_t want_len, char *why,
                   size_t whylen);

/* --- workloads and the model ------------------------------------------------------------------- */

typedef struct wl_op {
    uint32_t key;
    uint32_t len; /* value length of a put */
    uint32_t tag; /* the value's tag (unique per operation) */
    int del;      /* 1: delete key (only generated for keys present at that point) */
} wl_op;

typedef struct wl_txn {
    size_t nops;
    wl_op *ops;
    int rollback; /* the transaction is rolled back instead of committed: the model stays */
} wl_txn;

/* What a key holds in one state of the model. */
typedef struct wl_entry {
    uint32_t tag;
    uint32_t len;
    int present;
} wl_entry;

typedef struct wl_params {
    uint32_t nkeys; /* size of the key space */
    size_t ntxn;    /* transactions */
    size_t min_ops, max_ops;
    unsigned pct_delete; /* share of operations that delete a present key */
    unsigned pct_medium; /* share of puts with a medium value (300..2000 bytes) */
    unsigned pct_large;  /* share of puts with a large value (large_min..large_max bytes) */
    uint32_t large_min, large_max;
    long big_txn; /* index of one transaction with big_ops operations; -1: none */
    size_t big_ops;
    long rollback_txn; /* index of one transaction, also with big_ops operations, that is
                       ** rolled back (0: none; a rollback of transaction 0 is not offered) */
} wl_params;

typedef struct wl_workload {
    uint32_t nkeys;
    size_t ntxn;
    wl_txn *txn;
    wl_entry *states; /* (ntxn + 1) * nkeys: states[i * nkeys + k] is key k after i transactions */
    size_t max_len;   /* the largest value length of any put */
} wl_workload;

/* wl_workload_create generates a workload from params and seed; NULL on out of memory. */
wl_workload *wl_workload_create(const wl_params *params, uint64_t seed);
void wl_workload_free(wl_workload *w);
/* the expected content after the first n transactions (n in 0..ntxn) */
const wl_entry *wl_state(const wl_workload *w, size_t n);

/* --- a model built by hand (for tests that choose their own operations) ---------------------- */

/* A model is simply an array of nkeys wl_entry; these apply one operation to it. */
void wl_model_put(wl_entry *m, uint32_t key, uint32_t tag, uint32_t len);
void wl_model_del(wl_entry *m, uint32_t key);

/* printf into a bounded buffer, appending to what it holds */
void wl_appendf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* whether text contains "page <pgno>" as a whole number (not "page 12" for pgno 1) */
int wl_mentions_page(const char *text, unsigned long pgno);
/* case-insensitive substring test */
int wl_contains_ci(const char *text, const char *needle);

/* =============================================================================================
** The row-store parts. Defined only where the including file has included kv.h before this
** header (STRATA_KV_H), so the pure part can be used without the row store.
** ============================================================================================= */
#ifdef STRATA_KV_H

/* wl_txn_apply runs the operations of w->txn[i] in the open write transaction t. Returns
** STRATA_OK, or the status of the first failing call (its message is on t). A delete of a key
** that the transaction's model says is present must not give STRATA_NOTFOUND; if it does this
** returns STRATA_ERROR with a message in why. */
static inline int wl_txn_apply(kv_txn *t, const wl_workload *w, size_t i, char *why, size_t whylen) {
    const wl_txn *tx = &w->txn[i];
    uint8_t *val = malloc(w->max_len ? w->max_len : 1);
    if (val == NULL) return STRATA_NOMEM;
    int rc = STRATA_OK;
    for (size_t j = 0; j < tx->nops && rc == STRATA_OK; j++) {
        const wl_op *op = &tx->ops[j];
        char key[WL_KEY_LEN + 1];
        size_t klen = wl_key(key, op->key);
        if (op->del) {
            rc = kv_delete(t, key, klen);
            if (rc == STRATA_NOTFOUND) {
                if (why)
                    snprintf(why, whylen, "txn %zu op %zu: delete of present key %u gave NOTFOUND", i, j,
                             op->key);
                rc = STRATA_ERROR;
            }
        } else {
            wl_value_fill(val, op->len, op->key, op->tag);
            rc = kv_put(t, key, klen, val, op->len);
        }
    }
    free(val);
    return rc;
}

/* wl_read_matches compares what the transaction t sees with the model m (nkeys entries): a full
** cursor scan (order, no extra keys, no missing keys, every value exact) and a kv_get of every
** present key and of a few absent ones. Returns STRATA_OK when equal; STRATA_ERROR when the
** content differs (why says how); or the status of a failing read (why gets the transaction's
** message). */
static inline int wl_read_matches(kv_txn *t, const wl_entry *m, uint32_t nkeys, char *why, size_t whylen) {
    kv_cursor *c = NULL;
    btree_buf buf = {0};
    char whybuf[256];
    if (why && whylen) why[0] = '\0';
    int rc = kv_cursor_open(t, &c);
    if (rc != STRATA_OK) goto read_fail;
    rc = kv_cursor_first(c);
    if (rc != STRATA_OK) goto read_fail;
    long prev = -1;
    uint32_t seen = 0;
    while (kv_cursor_valid(c)) {
        const uint8_t *k, *v;
        size_t klen, vlen;
        rc = kv_cursor_key(c, &k, &klen);
        if (rc != STRATA_OK) goto read_fail;
        rc = kv_cursor_value(c, &v, &vlen);
        if (rc != STRATA_OK) goto read_fail;
        long idx = wl_key_parse(k, klen);
        if (idx < 0 || (uint32_t)idx >= nkeys) {
            if (why)
                snprintf(why, whylen, "scan: unexpected key '%.*s' (%zu bytes)", (int)(klen > 40 ? 40 : klen),
                         (const char *)k, klen);
            rc = STRATA_ERROR;
            goto done;
        }
        if (idx <= prev) {
            if (why)
                snprintf(why, whylen, "scan: key %ld after key %ld (out of order or repeated)", idx, prev);
            rc = STRATA_ERROR;
            goto done;
        }
        for (long miss = prev + 1; miss < idx; miss++)
            if (m[miss].present) {
                if (why) snprintf(why, whylen, "scan: key %ld missing (next key seen: %ld)", miss, idx);
                rc = STRATA_ERROR;
                goto done;
            }
        if (!m[idx].present) {
            if (why) snprintf(why, whylen, "scan: key %ld present but expected absent", idx);
            rc = STRATA_ERROR;
            goto done;
        }
        if (!wl_value_check(v, vlen, (uint32_t)idx, m[idx].tag, m[idx].len, whybuf, sizeof whybuf)) {
            if (why) snprintf(why, whylen, "scan: key %ld: %s", idx, whybuf);
            rc = STRATA_ERROR;
            goto done;
        }
        prev = idx;
        seen++;
        rc = kv_cursor_next(c);
        if (rc != STRATA_OK) goto read_fail;
    }
    for (long miss = prev + 1; miss < (long)nkeys; miss++)
        if (m[miss].present) {
            if (why) snprintf(why, whylen, "scan: key %ld missing (scan ended after %ld)", miss, prev);
            rc = STRATA_ERROR;
            goto done;
        }
    kv_cursor_close(c);
    c = NULL;
    for (uint32_t k = 0; k < nkeys; k++) {
        /* every present key, and every 7th absent one */
        if (!m[k].present && k % 7 != 0) continue;
        char key[WL_KEY_LEN + 1];
        size_t klen = wl_key(key, k);
        rc = kv_get(t, key, klen, &buf);
        if (m[k].present) {
            if (rc != STRATA_OK) goto get_fail;
            if (!wl_value_check(buf.data, buf.len, k, m[k].tag, m[k].len, whybuf, sizeof whybuf)) {
                if (why) snprintf(why, whylen, "get: key %u: %s", k, whybuf);
                rc = STRATA_ERROR;
                goto done;
            }
        } else if (rc == STRATA_OK) {
            if (why) snprintf(why, whylen, "get: key %u found but expected absent", k);
            rc = STRATA_ERROR;
            goto done;
        } else if (rc != STRATA_NOTFOUND) {
            goto get_fail;
        }
    }
    rc = STRATA_OK;
    goto done;
get_fail:
    if (rc == STRATA_NOTFOUND) {
        if (why) snprintf(why, whylen, "get: present key missing (NOTFOUND)");
        rc = STRATA_ERROR;
        goto done;
    }
read_fail:
    if (why) snprintf(why, whylen, "read failed: %s: %s", strata_errstr(rc), kv_txn_errmsg(t));
done:
    if (c) kv_cursor_close(c);
    btree_buf_free(&buf);
    return rc;
}

/* wl_db_matches runs wl_read_matches in a new read transaction of db. */
static inline int wl_db_matches(kv_db *db, const wl_entry *m, uint32_t nkeys, char *why, size_t whylen) {
    kv_txn *t = NULL;
    strata_err err = {0};
    int rc = kv_begin(db, 0, &t, &err);
    if (rc != STRATA_OK) {
        if (why) snprintf(why, whylen, "kv_begin(read) failed: %s: %s", strata_errstr(rc), err.msg);
        return rc;
    }
    rc = wl_read_matches(t, m, nkeys, why, whylen);
    kv_rollback(t);
    return rc;
}

/* wl_integrity runs kv_integrity_check. Returns STRATA_OK with 0 problems; otherwise the check's
** status (STRATA_CORRUPT when it completed with problems) with the report or message in why. */
static inline int wl_integrity(kv_db *db, char *why, size_t whylen) {
    btree_buf report = {0};
    uint64_t problems = 0;
    strata_err err = {0};
    int rc = kv_integrity_check(db, &report, &problems, &err);
    if (why && whylen) why[0] = '\0';
    if (rc != STRATA_OK) {
        if (why) snprintf(why, whylen, "integrity check failed: %s: %s", strata_errstr(rc), err.msg);
    } else if (problems != 0) {
        if (why)
            snprintf(why, whylen, "integrity check: %llu problems: %.*s", (unsigned long long)problems,
                     (int)(report.len > 300 ? 300 : report.len),
                     report.data ? (const char *)report.data : "");
        rc = STRATA_CORRUPT;
    }
    btree_buf_free(&report);
    return rc;
}

/* wl_run_txn runs transaction i of w in its own write transaction and commits it (or rolls it
** back, for a transaction marked so). Returns the status of the first failing step. *committing is set to 1
*when kv_commit was
** called (so that a failure was the commit's), else 0. */
static inline int wl_run_txn(kv_db *db, const wl_workload *w, size_t i, int *committing, char *why,
                             size_t whylen) {
    kv_txn *t = NULL;
    strata_err err = {0};
    *committing = 0;
    int rc = kv_begin(db, 1, &t, &err);
    if (rc != STRATA_OK) {
        if (why) snprintf(why, whylen, "kv_begin(write): %s: %s", strata_errstr(rc), err.msg);
        return rc;
    }
    rc = wl_txn_apply(t, w, i, why, whylen);
    if (rc != STRATA_OK) {
        if (why && why[0] == '\0')
            snprintf(why, whylen, "txn %zu: %s: %s", i, strata_errstr(rc), kv_txn_errmsg(t));
        kv_rollback(t);
        return rc;
    }
    if (w->txn[i].rollback) {
        kv_rollback(t);
        return STRATA_OK;
    }
    *committing = 1;
    rc = kv_commit(t);
    if (rc != STRATA_OK && why)
        snprintf(why, whylen, "txn %zu: kv_commit: %s: %s", i, strata_errstr(rc), kv_errmsg(db));
    return rc;
}

/* wl_crash_close simulates the death of the process and a power loss on the fault vfs v: every
** I/O call from now on fails (so kv_close cannot checkpoint or clean up, it only frees), then
** the power goes with mode VFS_LOSE_UNSYNCED or VFS_KEEP_UNSYNCED. */
static inline void wl_crash_close(vfs *v, kv_db *db, int mode) {
    vfs_fault_plan cut = {.op_mask = VFS_OP_ALL, .fail_at = 1, .fail_errno = EIO, .crash = 1};
    vfs_fault_set_plan(v, &cut);
    kv_close(db);
    vfs_fault_power_loss(v, mode);
}

#endif /* STRATA_KV_H */

#ifdef STRATA_VFS_H
/* wl_vfs_copy_file copies path from one vfs to another (creating or replacing it) and syncs it;
** a missing source gives a missing destination. Returns a STRATA_* status. */
static inline int wl_vfs_copy_file(vfs *from, vfs *to, const char *path) {
    strata_err err = {0};
    int exists = 0;
    int rc = vfs_exists(from, path, &exists, &err);
    if (rc != STRATA_OK) return rc;
    if (!exists) return vfs_remove(to, path, &err);
    vfs_file *src = NULL, *dst = NULL;
    uint8_t *buf = NULL;
    rc = vfs_open(from, path, VFS_READONLY, &src, &err);
    if (rc != STRATA_OK) goto done;
    rc = vfs_open(to, path, VFS_CREATE, &dst, &err);
    if (rc != STRATA_OK) goto done;
    uint64_t size = 0;
    rc = vfs_size(src, &size, &err);
    if (rc != STRATA_OK) goto done;
    rc = vfs_truncate(dst, 0, &err);
    if (rc != STRATA_OK) goto done;
    buf = malloc(size ? size : 1);
    if (buf == NULL) {
        rc = STRATA_NOMEM;
        goto done;
    }
    size_t got = 0;
    rc = vfs_read(src, buf, size, 0, &got, &err);
    if (rc != STRATA_OK) goto done;
    if (got != size) {
        rc = STRATA_IOERR;
        goto done;
    }
    if (size) rc = vfs_write(dst, buf, size, 0, &err);
    if (rc != STRATA_OK) goto done;
    rc = vfs_sync(dst, &err);
done:
    free(buf);
    vfs_close(src);
    vfs_close(dst);
    return rc;
}

/* wl_vfs_file_size is the size of path in v, 0 when it does not exist. */
static inline uint64_t wl_vfs_file_size(vfs *v, const char *path) {
    strata_err err = {0};
    int exists = 0;
    if (vfs_exists(v, path, &exists, &err) != STRATA_OK || !exists) return 0;
    vfs_file *f = NULL;
    uint64_t size = 0;
    if (vfs_open(v, path, VFS_READONLY, &f, &err) != STRATA_OK) return 0;
    if (vfs_size(f, &size, &err) != STRATA_OK) size = 0;
    vfs_close(f);
    return size;
}
#endif /* STRATA_VFS_H */

#endif
