/*
** btree.h -- B+trees of variable-length keys and values over pager pages.
**
** Keys are byte strings ordered by memcmp (a shorter key that is a prefix of a longer one sorts
** first); upper layers encode typed keys into that order. Keys are at most btree_max_key()
** bytes; values of any size up to BTREE_MAX_VALUE, stored in overflow page chains when they do
** not fit in the leaf. Interior pages hold separators only; all entries live in the leaves.
**
** A tree is named by its root page number, which never changes for the life of the tree (a
** root split moves the root's content to a new child). Every call works inside one pager
** transaction; calls that change the tree need a write transaction. Errors are recorded in
** pager_txn_err(t).
**
** Sequential inserts at the end of a tree split append-style, leaving full pages behind; deletes
** merge or rebalance underfull pages with a sibling.
*/
#ifndef STRATA_BTREE_H
#define STRATA_BTREE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "pager.h"

#define BTREE_MAX_VALUE (1u << 30) /* 1 GiB */

/* A growable byte buffer that receives copied values. Zero-initialize; free with btree_buf_free. */
typedef struct btree_buf {
    uint8_t *data;
    size_t len, cap;
} btree_buf;
void btree_buf_free(btree_buf *b);
/* btree_buf_append_linev appends a printf-style line, a newline and a NUL terminator (not counted
** in len) to b; when memory runs out the line is dropped. */
void btree_buf_append_linev(btree_buf *b, const char *fmt, va_list ap);

/* btree_max_key is the largest key length the tree accepts for this page size. */
size_t btree_max_key(const pager *p);

/* btree_create makes a new empty tree and returns its root page. */
int btree_create(pager_txn *t, pgno_t *root);
/* btree_drop frees every page of the tree, its root and overflow pages included. */
int btree_drop(pager_txn *t, pgno_t root);

/* btree_get copies the value of key into out. STRATA_NOTFOUND when the key is absent (not
** recorded as an error in the transaction). */
int btree_get(pager_txn *t, pgno_t root, const void *key, size_t klen, btree_buf *out);
/* btree_put inserts key or replaces its value. STRATA_TOOBIG for an oversized key or value.
** After any error of btree_put/btree_delete other than STRATA_NOTFOUND, STRATA_TOOBIG or
** STRATA_READONLY (for example STRATA_CORRUPT or STRATA_FULL met halfway through a split), the tree
** may be half-changed inside the transaction: roll the transaction back. */
int btree_put(pager_txn *t, pgno_t root, const void *key, size_t klen, const void *val, size_t vlen);
/* btree_put_mode is btree_put that, in one descent, refuses to replace (BTREE_PUT_INSERT: an
** existing key gives STRATA_CONSTRAINT) or to insert (BTREE_PUT_REPLACE: an absent key gives
** STRATA_NOTFOUND); neither refusal is recorded as an error or changes the tree.
** BTREE_PUT_ANY is btree_put. */
/* btree_insert_unique inserts key (klen bytes, an empty value) unless a key that starts with its
** first plen bytes exists: then STRATA_CONSTRAINT and nothing changes. One descent in most cases
** (the keys with the prefix are the new key's neighbours): a unique index's check and insert. */
int btree_insert_unique(pager_txn *t, pgno_t root, const void *key, size_t klen, size_t plen);
#define BTREE_PUT_ANY 0
#define BTREE_PUT_INSERT 1
#define BTREE_PUT_REPLACE 2
int btree_put_mode(pager_txn *t, pgno_t root, const void *key, size_t klen, const void *val, size_t vlen, int mode);
/* btree_delete removes key; STRATA_NOTFOUND (not recorded as an error) when absent. */
int btree_delete(pager_txn *t, pgno_t root, const void *key, size_t klen);

/* Bulk load: builds a tree bottom-up from entries given in strictly increasing key order,
** filling pages completely. The finished tree replaces the content of an *empty* tree root.
** Out-of-order input gives STRATA_MISUSE. */
typedef struct btree_loader btree_loader;
int btree_load_begin(pager_txn *t, pgno_t root, btree_loader **out);
int btree_load_add(btree_loader *l, const void *key, size_t klen, const void *val, size_t vlen);
int btree_load_finish(btree_loader *l); /* also frees l; on error the tree stays empty */
void btree_load_abort(btree_loader *l);

/* Cursors. A cursor pins at most one path of pages. Changing the tree (put/delete) while a
** cursor is open on it invalidates the cursor: reposition it with seek/first/last afterwards.
** In a read transaction a cursor keeps its current leaf pinned between calls (key and local
** values point into the page); in a write transaction it keeps no page pinned between calls
** (keys and values are copied into the cursor), so changes beside it never meet a pinned page. */
typedef struct btree_cursor btree_cursor;
int btree_cursor_open(pager_txn *t, pgno_t root, btree_cursor **out);
void btree_cursor_close(btree_cursor *c);
int btree_cursor_first(btree_cursor *c);
int btree_cursor_last(btree_cursor *c);
/* seek positions on the first entry with key >= the given one; *exact (may be NULL) says
** whether it is equal. The cursor may end up invalid (past the end). */
int btree_cursor_seek(btree_cursor *c, const void *key, size_t klen, int *exact);
/* next/prev move one entry; past the last (before the first) entry the cursor becomes invalid.
** On an invalid cursor they do nothing and return STRATA_OK. */
int btree_cursor_next(btree_cursor *c);
/* btree_cursor_skip moves forward over up to max entries without reading them, a leaf at a time:
** *n gets how many it passed (fewer than max only at the end of the tree), and the cursor stands
** on the entry after them. */
int btree_cursor_skip(btree_cursor *c, uint32_t max, uint32_t *n);
int btree_cursor_prev(btree_cursor *c);
int btree_cursor_valid(const btree_cursor *c);
/* key and value of the current entry; the pointers stay valid until the cursor moves or closes.
** An overflowed value is assembled into a buffer owned by the cursor. STRATA_MISUSE on an invalid
** cursor. */
int btree_cursor_key(btree_cursor *c, const uint8_t **key, size_t *klen);
int btree_cursor_value(btree_cursor *c, const uint8_t **val, size_t *vlen);

/* btree_cursor_entry gives the current entry's key and value in one call (as btree_cursor_key
** and btree_cursor_value, same lifetimes), or STRATA_DONE on an invalid cursor: what a scan
** loop calls after each step. */
int btree_cursor_entry(btree_cursor *c, const uint8_t **key, size_t *klen, const uint8_t **val, size_t *vlen);

/* btree_leaf_starts tells where the leaves that may hold keys in [lo, hi] (lo NULL: from the
** first key; hi NULL: to the last) begin, for cutting a scan between leaves, from the interior
** pages alone: fn gets, in key order, each separator between two such leaves -- a key k with
** every key of the leaf before it < k <= every key of the leaf after (often a prefix of the
** latter's first key; the pointer is valid during the call). *per_leaf gets the entry count of
** the first such leaf, the only leaf read, as an estimate of a leaf's entries (0: the tree is
** empty). A non-OK return of fn stops the walk and is returned. */
int btree_leaf_starts(pager_txn *t, pgno_t root, const void *lo, size_t lol, const void *hi, size_t hil,
                      int (*fn)(void *arg, const uint8_t *key, size_t klen), void *arg, uint64_t *per_leaf);

/* Integrity check of one tree: key order inside pages and against parent separators, equal leaf
** depth, cell bounds, fill (no empty non-root page; page use as documented), overflow chains.
** mark is called once for every page the tree owns (the caller detects pages owned twice).
** Problems are appended as lines to report (may be NULL) and counted in *problems. Returns
** STRATA_OK when the walk completed (problems or not), or the error that stopped it. */
int btree_check(pager_txn *t, pgno_t root, int (*mark)(void *arg, pgno_t pgno), void *arg,
                btree_buf *report, uint64_t *problems);

/* btree_check_file checks every tree of roots[0..nroots) with btree_check and then the page
** accounting of the whole file: every page owned by exactly one tree or the free list, none
** leaked. Problems go to report (may be NULL; at most 1000 lines) and *problems counts them.
** Returns STRATA_OK when the check completed, whatever it found. */
int btree_check_file(pager_txn *pt, const pgno_t *roots, uint32_t nroots, btree_buf *report, uint64_t *problems,
                     strata_err *err);

/* Salvage, for recovering what a damaged file still holds (strata_recover). btree_salvage walks
** the tree at root as far as its pages read and parse: entry gets every readable entry (key and
** value valid only during the call; an overflowed value is assembled), lost every page (and the
** subtree under it) that cannot be read or parsed, with the reason, and every entry whose cell or
** overflow chain is broken (naming its leaf), visit (may be NULL) every page entered. It never
** fails on damage: it returns STRATA_OK when the walk ended, STRATA_NOMEM, or the first non-OK
** value of entry. A read transaction sees the pages; nothing is changed. Entries come in key order
** within a leaf and in tree order across leaves, with the lost ones left out. */
typedef struct btree_salvage_fns {
    int (*entry)(void *arg, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen);
    void (*lost)(void *arg, pgno_t pgno, const char *why);
    void (*visit)(void *arg, pgno_t pgno);
    void *arg;
} btree_salvage_fns;
int btree_salvage(pager_txn *t, pgno_t root, const btree_salvage_fns *fn);
/* btree_salvage_leaf hands the entries of page pgno to fn as btree_salvage does, when the page
** reads and is a leaf (*is_leaf = 1); any other page is passed over (*is_leaf = 0, STRATA_OK).
** For leaves that no tree reaches any more (their interior page was lost). */
int btree_salvage_leaf(pager_txn *t, pgno_t pgno, const btree_salvage_fns *fn, int *is_leaf);

/* Statistics for tests and the benchmark: pages by kind and average leaf fill (0..1): the bytes
** of cells and cell offsets over the bytes a leaf has for them (page minus header), averaged over
** the leaves. depth counts levels, leaves included (1 for a tree that is a single leaf). */
typedef struct btree_stats {
    uint64_t leaf_pages, interior_pages, overflow_pages, entries, depth;
    double leaf_fill;
} btree_stats;
int btree_get_stats(pager_txn *t, pgno_t root, btree_stats *out);

#endif
