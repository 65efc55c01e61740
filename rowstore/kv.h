/*
** kv.h -- the row store's key-value interface: one B+tree in one database file, with
** transactions. Tests and the row-store benchmark use it; the SQL layer sits on the same calls
** of pager.h and btree.h.
**
** Keys and values are byte strings (keys ordered by memcmp). A database has one writer at a time
** and any number of reader threads, each seeing a consistent snapshot. kv_commit returns
** STRATA_OK only when the transaction is durable.
*/
#ifndef STRATA_KV_H
#define STRATA_KV_H

#include <stddef.h>
#include <stdint.h>

#include "btree.h"
#include "pager.h"

typedef struct kv_db kv_db;
typedef struct kv_txn kv_txn;
typedef struct kv_cursor kv_cursor;

typedef struct kv_options {
    vfs *vfs;            /* NULL: the POSIX file system */
    pager_config pager;  /* zero: defaults */
} kv_options;

/* kv_open opens or creates a database. opt may be NULL. On error *out is NULL, err says why. */
int kv_open(const char *path, const kv_options *opt, kv_db **out, strata_err *err);
/* kv_close checkpoints and closes (pager_close: STRATA_OK, the WAL kept when the checkpoint
** failed); every transaction must have ended. */
int kv_close(kv_db *db);
pager *kv_pager(kv_db *db);

/* Transactions. A second concurrent write transaction gives STRATA_BUSY. */
int kv_begin(kv_db *db, int write, kv_txn **out, strata_err *err);
int kv_put(kv_txn *t, const void *key, size_t klen, const void *val, size_t vlen);
int kv_get(kv_txn *t, const void *key, size_t klen, btree_buf *out); /* STRATA_NOTFOUND */
int kv_delete(kv_txn *t, const void *key, size_t klen);              /* STRATA_NOTFOUND */
/* kv_commit: STRATA_OK means durable; otherwise rolled back, with the one exception that
** pager_commit (pager.h) documents. Frees t in every case; the message goes to kv_errmsg. */
int kv_commit(kv_txn *t);
void kv_rollback(kv_txn *t);
/* The message of the last failed kv_commit on this handle ("" if none). The text may change when
** another thread's commit fails; copy it before committing again. */
const char *kv_errmsg(kv_db *db);
/* The message of the last error on the transaction ("" if none). */
const char *kv_txn_errmsg(kv_txn *t);
pager_txn *kv_txn_pager(kv_txn *t);
pgno_t kv_root(kv_txn *t);

/* Sorted bulk load into an empty database inside write transaction t: calls next until it
** returns STRATA_DONE; next fills key/val pointers valid until its next call. */
int kv_load(kv_txn *t,
            int (*next)(void *arg, const void **key, size_t *klen, const void **val, size_t *vlen),
            void *arg);

/* Cursors over the database, inside a transaction. */
int kv_cursor_open(kv_txn *t, kv_cursor **out);
void kv_cursor_close(kv_cursor *c);
int kv_cursor_first(kv_cursor *c);
int kv_cursor_last(kv_cursor *c);
int kv_cursor_seek(kv_cursor *c, const void *key, size_t klen, int *exact);
int kv_cursor_next(kv_cursor *c);
int kv_cursor_prev(kv_cursor *c);
int kv_cursor_valid(const kv_cursor *c);
int kv_cursor_key(kv_cursor *c, const uint8_t **key, size_t *klen);
int kv_cursor_value(kv_cursor *c, const uint8_t **val, size_t *vlen);
/* kv_cursor_entry: key and value of the current entry in one call; STRATA_DONE when the cursor
** has no entry (past the end). */
int kv_cursor_entry(kv_cursor *c, const uint8_t **key, size_t *klen, const uint8_t **val, size_t *vlen);

int kv_checkpoint(kv_db *db, strata_err *err);

/* kv_integrity_check runs the B+tree check and the page accounting (every page owned by the tree
** or the free list exactly once). *problems gets the count; report (may be NULL) the lines. */
int kv_integrity_check(kv_db *db, btree_buf *report, uint64_t *problems, strata_err *err);

#endif
