/*
** kv.c -- the row store's key-value interface (see kv.h): one B+tree in one database file.
**
** What it is. A kv_db is a pager; meta slot KV_ROOT_SLOT of the database header holds the root
** page of the one tree, 0 until the first write transaction creates it. Every call maps onto one
** btree_* call inside the transaction's pager transaction, and errors land in that transaction's
** error slot (kv_txn_errmsg). kv_integrity_check adds the page accounting to the tree check: each
** page except the header is owned exactly once, by the tree or by the free list.
**
** What it is not: no second tree, no key encoding, no locking of its own (the pager has the file
** lock and the one-writer rule).
*/
#include "kv.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KV_ROOT_SLOT 0

struct kv_db {
    pager *p;
    pthread_mutex_t err_mu;
    strata_err err; /* the last failed kv_commit's message */
};

struct kv_txn {
    kv_db *db;
    pager_txn *pt;
    pgno_t root; /* 0: no tree yet (only in read transactions of a new database) */
};

struct kv_cursor {
    kv_txn *t;
    btree_cursor *c; /* NULL when the database has no tree yet */
};

int kv_open(const char *path, const kv_options *opt, kv_db **out, strata_err *err) {
    *out = NULL;
    pager_config zero;
    memset(&zero, 0, sizeof zero);
    vfs *v = opt && opt->vfs ? opt->vfs : vfs_posix();
    kv_db *db = calloc(1, sizeof *db);
    if (!db) return err_set(err, STRATA_NOMEM, "out of memory opening %s", path);
    int rc = pager_open(v, path, opt ? &opt->pager : &zero, &db->p, err);
    if (rc) {
        free(db);
        return rc;
    }
    pthread_mutex_init(&db->err_mu, NULL);
    *out = db;
    return STRATA_OK;
}

int kv_close(kv_db *db) {
    if (!db) return STRATA_OK;
    int rc = pager_close(db->p);
    pthread_mutex_destroy(&db->err_mu);
    free(db);
    return rc;
}

pager *kv_pager(kv_db *db) { return db->p; }

/* copy_err passes the first error of a pager transaction on to err. */
static void copy_err(strata_err *err, pager_txn *pt, int rc) {
    strata_err *te = pager_txn_err(pt);
    if (te->code != STRATA_OK)
        err_set(err, te->code, "%s", te->msg);
    else
        err_set(err, rc, "%s", strata_errstr(rc));
}

int kv_begin(kv_db *db, int write, kv_txn **out, strata_err *err) {
    *out = NULL;
    kv_txn *t = calloc(1, sizeof *t);
    if (!t) return err_set(err, STRATA_NOMEM, "out of memory (transaction)");
    int rc = pager_begin(db->p, write, &t->pt, err);
    if (rc) {
        free(t);
        return rc;
    }
    t->db = db;
    uint64_t root = pager_meta_get(t->pt, KV_ROOT_SLOT);
    if (root != 0 && root >= pager_page_count(t->pt)) {
        rc = err_set(pager_txn_err(t->pt), STRATA_CORRUPT, "page 0: tree root %llu out of range",
                     (unsigned long long)root);
        goto fail;
    }
    t->root = (pgno_t)root;
    if (write && t->root == 0) {
        pgno_t r = 0;
        if ((rc = btree_create(t->pt, &r)) || (rc = pager_meta_set(t->pt, KV_ROOT_SLOT, r))) goto fail;
        t->root = r;
    }
    *out = t;
    return STRATA_OK;
fail:
    copy_err(err, t->pt, rc);
    pager_rollback(t->pt);
    free(t);
    return rc;
}

int kv_put(kv_txn *t, const void *key, size_t klen, const void *val, size_t vlen) {
    if (!t->root) return err_set(pager_txn_err(t->pt), STRATA_READONLY, "kv_put in a read transaction");
    return btree_put(t->pt, t->root, key, klen, val, vlen);
}

int kv_get(kv_txn *t, const void *key, size_t klen, btree_buf *out) {
    if (!t->root) return STRATA_NOTFOUND;
    return btree_get(t->pt, t->root, key, klen, out);
}

int kv_delete(kv_txn *t, const void *key, size_t klen) {
    if (!t->root) return err_set(pager_txn_err(t->pt), STRATA_READONLY, "kv_delete in a read transaction");
    return btree_delete(t->pt, t->root, key, klen);
}

int kv_commit(kv_txn *t) {
    strata_err err = {0};
    int rc = pager_commit(t->pt, &err);
    if (rc) {
        pthread_mutex_lock(&t->db->err_mu);
        t->db->err = err;
        pthread_mutex_unlock(&t->db->err_mu);
    }
    free(t);
    return rc;
}

const char *kv_errmsg(kv_db *db) {
    pthread_mutex_lock(&db->err_mu);
    const char *m = db->err.msg;
    pthread_mutex_unlock(&db->err_mu);
    return m;
}

void kv_rollback(kv_txn *t) {
    if (!t) return;
    pager_rollback(t->pt);
    free(t);
}

const char *kv_txn_errmsg(kv_txn *t) { return pager_txn_err(t->pt)->msg; }
pager_txn *kv_txn_pager(kv_txn *t) { return t->pt; }
pgno_t kv_root(kv_txn *t) { return t->root; }

int kv_load(kv_txn *t, int (*next)(void *arg, const void **key, size_t *klen, const void **val, size_t *vlen),
            void *arg) {
    strata_err *err = pager_txn_err(t->pt);
    if (!t->root) return err_set(err, STRATA_READONLY, "kv_load in a read transaction");
    btree_loader *l;
    int rc = btree_load_begin(t->pt, t->root, &l);
    if (rc) return rc;
    for (;;) {
        const void *k, *v;
        size_t kl, vl;
        rc = next(arg, &k, &kl, &v, &vl);
        if (rc == STRATA_DONE) break;
        if (rc == STRATA_OK) rc = btree_load_add(l, k, kl, v, vl);
        if (rc) {
            err_set(err, rc, "kv_load: the entry source failed (%s)", strata_errstr(rc));
            btree_load_abort(l);
            return rc;
        }
    }
    return btree_load_finish(l);
}

/* ---- cursors ------------------------------------------------------------------------------ */

int kv_cursor_open(kv_txn *t, kv_cursor **out) {
    *out = NULL;
    kv_cursor *c = calloc(1, sizeof *c);
    if (!c) return err_set(pager_txn_err(t->pt), STRATA_NOMEM, "out of memory (cursor)");
    c->t = t;
    if (t->root) {
        int rc = btree_cursor_open(t->pt, t->root, &c->c);
        if (rc) {
            free(c);
            return rc;
        }
    }
    *out = c;
    return STRATA_OK;
}

void kv_cursor_close(kv_cursor *c) {
    if (!c) return;
    btree_cursor_close(c->c);
    free(c);
}

int kv_cursor_first(kv_cursor *c) { return c->c ? btree_cursor_first(c->c) : STRATA_OK; }
int kv_cursor_last(kv_cursor *c) { return c->c ? btree_cursor_last(c->c) : STRATA_OK; }
int kv_cursor_seek(kv_cursor *c, const void *key, size_t klen, int *exact) {
    if (c->c) return btree_cursor_seek(c->c, key, klen, exact);
    if (exact) *exact = 0;
    return STRATA_OK;
}
int kv_cursor_next(kv_cursor *c) { return c->c ? btree_cursor_next(c->c) : STRATA_OK; }
int kv_cursor_entry(kv_cursor *c, const uint8_t **key, size_t *klen, const uint8_t **val, size_t *vlen) {
    return c->c ? btree_cursor_entry(c->c, key, klen, val, vlen) : STRATA_DONE;
}
int kv_cursor_prev(kv_cursor *c) { return c->c ? btree_cursor_prev(c->c) : STRATA_OK; }
int kv_cursor_valid(const kv_cursor *c) { return c->c ? btree_cursor_valid(c->c) : 0; }
int kv_cursor_key(kv_cursor *c, const uint8_t **key, size_t *klen) {
    if (!c->c) return err_set(pager_txn_err(c->t->pt), STRATA_MISUSE, "kv_cursor_key on an empty database");
    return btree_cursor_key(c->c, key, klen);
}
int kv_cursor_value(kv_cursor *c, const uint8_t **val, size_t *vlen) {
    if (!c->c) return err_set(pager_txn_err(c->t->pt), STRATA_MISUSE, "kv_cursor_value on an empty database");
    return btree_cursor_value(c->c, val, vlen);
}

int kv_checkpoint(kv_db *db, strata_err *err) { return pager_checkpoint(db->p, err); }

/* ---- integrity check ---------------------------------------------------------------------- */

int kv_integrity_check(kv_db *db, btree_buf *report, uint64_t *problems, strata_err *err) {
    pager_txn *pt;
    *problems = 0;
    int rc = pager_begin(db->p, 0, &pt, err);
    if (rc) return rc;
    pgno_t root = (pgno_t)pager_meta_get(pt, KV_ROOT_SLOT);
    rc = btree_check_file(pt, &root, root ? 1 : 0, report, problems, err);
    pager_rollback(pt);
    return rc;
}
