/*
** pager.h -- pages of the database file, their cache, the WAL and transactions.
**
** The pager turns a database file plus its write-ahead log (<path>-wal) into numbered pages
** that callers read and change inside transactions:
**   - a read transaction sees one committed state (a snapshot) for its whole life, whatever a
**     writer commits beside it; any number may be open, from any threads;
**   - one write transaction at a time; its changes stay private until pager_commit(), which
**     appends page images to the WAL in one sequential write and makes them durable with one
**     fsync (commits that queue share one fsync);
**   - committed pages are copied back into the database file by a checkpoint, automatically
**     when the WAL passes a size, on demand, and at close, which then removes the WAL: a closed
**     database is one file, unless that last checkpoint failed.
** Every page carries a CRC-32C in its last PAGER_RESERVED bytes; a mismatch is reported as
** STRATA_CORRUPT naming the page. Callers see only the first pager_usable_size() bytes.
**
** Page 0 is the database header and is not handed out; page numbers of user pages start at 1.
** The header keeps PAGER_META_SLOTS 64-bit values that upper layers use for their roots.
**
** The pager is not the B+tree: it knows nothing of page contents beyond the header page.
*/
#ifndef STRATA_PAGER_H
#define STRATA_PAGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/status.h"
#include "../core/vfs.h"

typedef uint32_t pgno_t;

#define PAGER_RESERVED 32         /* bytes at the end of a page: crc32c + WAL frame header */
#define PAGER_META_SLOTS 16       /* 64-bit slots in the header for upper layers */
#define PAGER_FORMAT_VERSION 1    /* the file format this build writes and reads */
#define PAGER_MIN_PAGE_SIZE 4096
#define PAGER_MAX_PAGE_SIZE 65536

typedef struct pager pager;
typedef struct pager_txn pager_txn;

typedef struct pager_config {
    uint32_t page_size;           /* for a new file: power of two in [4096, 65536]; 0 = 8192 */
    size_t cache_bytes;           /* memory bound of the page cache incl. dirty pages; 0 = 64 MiB */
    uint64_t autocheckpoint_bytes;/* checkpoint after a commit leaves the WAL larger; 0 = 16 MiB */
    uint64_t direct_bytes;        /* a commit whose new pages reach this writes them into the
                                  ** database file itself, not the WAL (pager.c); 0 = 1 MiB */
    int no_sync;                  /* testing only: skip fsync (not crash safe) */
    int read_only;                /* open without changing anything: the file is opened for
                                  ** reading only, an existing WAL is read but not synced,
                                  ** checkpointed or removed, none is created, a missing or empty
                                  ** file is an error, and write transactions and checkpoints
                                  ** give STRATA_READONLY (recovery of a damaged file); a
                                  ** damaged WAL does not fail the open: its committed frames
                                  ** before the damage are used (or none, for a damaged header),
                                  ** and pager_wal_damage says why */
} pager_config;

/* A page handed out by pager_get / pager_get_mut / pager_alloc. data has page_size bytes, of
** which the caller may use the first pager_usable_size(); it stays valid until pager_release.
** For a page from pager_get the data must not be written. */
typedef struct page {
    pgno_t pgno;
    uint8_t *data;
} page;

/* pager_open opens or creates the database at path (the WAL is path + "-wal") through v,
** locking it for this handle: a second open of the same file, in this process or another,
** fails with STRATA_BUSY. A file that is not a strata database gives STRATA_NOTADB; one written
** by a newer format gives STRATA_FORMAT. Recovery replays committed WAL frames and ignores a torn
** tail; a damaged committed frame is STRATA_CORRUPT. On error *out is NULL and err says why.
** When there is no WAL (a clean close removed it) and none can be created (a full disk, a
** directory without write permission), the database opens for reading only: the file holds every
** commit, reads work, and pager_begin of a write transaction gives STRATA_READONLY saying why.
** With cfg->read_only nothing is created or written (see pager_config). */
int pager_open(vfs *v, const char *path, const pager_config *cfg, pager **out, strata_err *err);

/* pager_close checkpoints, removes the WAL once the database file holds every commit, and frees
** the pager (read-only: only frees it). Every transaction must have ended. Returns STRATA_OK: a
** checkpoint that fails (a full disk) fails no commit, since the WAL keeps every one, and the WAL
** then stays beside the file for the next open to apply. A caller that wants to know calls
** pager_checkpoint first. */
int pager_close(pager *p);

/* pager_wal_damage: for a read-only pager, why part of the WAL was left out at open; "" when
** nothing was (and always for a writable one, whose open fails instead). */
const char *pager_wal_damage(const pager *p);

uint32_t pager_page_size(const pager *p);
uint32_t pager_usable_size(const pager *p); /* page_size - PAGER_RESERVED */

/* Begin a transaction. A read transaction may be begun from any thread. A write transaction
** gives STRATA_BUSY when another write transaction is open, STRATA_READONLY when the pager has no
** WAL (pager_open). Errors of calls on a transaction
** are recorded in pager_txn_err(t). */
int pager_begin(pager *p, int write, pager_txn **out, strata_err *err);
/* pager_txn_err is t's error slot. When threads share t (pager_txn_shareable) they share it too:
** the storage layers only err_set / err_errno / err_copy it (the first error is kept whole,
** status.h), a thread reads it with err_copy while the others run, and it is cleared only by
** the thread that owns t while no other thread uses t. */
strata_err *pager_txn_err(pager_txn *t);
pager *pager_txn_pager(pager_txn *t); /* the pager t belongs to */
int pager_txn_is_write(const pager_txn *t);
/* pager_txn_shareable: several threads may read through t at once (pager_get, pager_read,
** pager_read_run, pager_release) -- a read transaction, or a write one that has no page of its own
** yet. A write transaction's own pages carry use counts and may come back from its spill frames,
** state of the transaction that only its thread may touch. */
bool pager_txn_shareable(const pager_txn *t);
/* pager_txn_version names the committed state a read transaction sees: two read transactions of
** one pager with the same version see the same pages, so what was derived from the pages in one
** (a row group's descriptor, say) holds in the other. Never 0; 0 for a write transaction, whose
** pages change under it. */
uint64_t pager_txn_version(const pager_txn *t);

/* pager_get pins page pgno as this transaction sees it. STRATA_CORRUPT when pgno is beyond the
** end of the database or its checksum does not match. */
int pager_get(pager_txn *t, pgno_t pgno, page **out);
/* pager_read copies page pgno as this transaction sees it into buf (page_size bytes): from the
** cache when the cache holds it, else read and checked without entering the cache. For pages read
** once in a long run (overflow chains of large values), which would only push others out. */
int pager_read(pager_txn *t, pgno_t pgno, uint8_t *buf);
/* pager_read_run is pager_read of page first and, when one read of the database file gives them
** as t sees them (none cached, none in the WAL, t not a writer), of the pages after it, up to n in
** all, into buf (room for n pages): *got is how many came, 1 or more. A page after the first that
** lies past the end or fails its check ends the run there without an error (the caller reads on
** from it, and gets the error if it needs that page): for reading ahead. */
int pager_read_run(pager_txn *t, pgno_t first, uint32_t n, uint8_t *buf, uint32_t *got);
/* pager_get_mut is pager_get for writing (write transactions only): data may be changed until
** release and the change is part of the transaction. */
int pager_get_mut(pager_txn *t, pgno_t pgno, page **out);
/* pager_make_mut turns a page from pager_get into a writable one: *pg is released and replaced
** by the writable page (a different handle and data pointer). On error *pg is unchanged. */
int pager_make_mut(pager_txn *t, page **pg);
/* pager_alloc returns a new writable page filled with zeros, from the free list when it has one. */
int pager_alloc(pager_txn *t, page **out);
/* pager_free puts pgno on the free list; the caller must not hold it pinned. */
int pager_free(pager_txn *t, pgno_t pgno);
/* pager_release unpins a page; pg must not be used afterwards. NULL is ignored. */
void pager_release(pager_txn *t, page *pg);

/* The header's meta slots as this transaction sees them; set only in a write transaction. */
uint64_t pager_meta_get(pager_txn *t, int slot);
/* pager_meta_begin is the slot as committed when t began (what a write transaction set since
** not included). */
uint64_t pager_meta_begin(const pager_txn *t, int slot);
int pager_meta_set(pager_txn *t, int slot, uint64_t value);

/* pager_page_count is the number of pages in the database, header included, for this txn. */
pgno_t pager_page_count(pager_txn *t);

/* pager_commit makes a write transaction durable and ends it (also ends a read transaction).
** When it returns STRATA_OK the changes survive power loss. Otherwise err (may be NULL) says why
** and the transaction is rolled back: nothing of it is visible, and nothing survives, with one
** exception: when its fsync failed and even taking its frames back could not be made durable,
** the handle refuses further writes and whether the commit survives is unknown (as in SQLite
** and PostgreSQL after a failed fsync; see docs/ARCHITECTURE.md). The transaction object is
** freed in every case. */
int pager_commit(pager_txn *t, strata_err *err);
/* pager_rollback ends a transaction, discarding its changes. Every page must be released. */
void pager_rollback(pager_txn *t);

/* Savepoints, for statements that must leave no trace when they fail inside a transaction.
** pager_savepoint marks the state of write transaction t (one savepoint at a time: a new one
** replaces the old); pager_savepoint_rollback returns t to it -- pages, page count, free list and
** meta slots -- and ends it; pager_savepoint_release ends it keeping the changes. Changing a page
** after the savepoint keeps a copy of what it was, so the cost is one page copy per page a
** statement changes. Rollback returns STRATA_BUSY, changing nothing, when it cannot undo: the
** transaction spilled pages to the WAL since the savepoint (a statement larger than the cache),
** or a page is still pinned; the caller must then roll back the whole transaction. */
int pager_savepoint(pager_txn *t);
int pager_savepoint_rollback(pager_txn *t);
void pager_savepoint_release(pager_txn *t);

/* pager_checkpoint copies committed WAL frames into the database file and, when no reader needs
** the old frames any more (readers keep their snapshot from private copies, see ARCHITECTURE),
** starts the WAL over. Must not be called while the calling thread has a write transaction.
** STRATA_READONLY for a read-only pager (pager_config.read_only). */
int pager_checkpoint(pager *p, strata_err *err);

/* Free-list walk for the integrity check: calls fn for every page on the free list (trunk
** pages included). Returns the first non-OK value of fn or a read error. */
int pager_freelist_walk(pager_txn *t, int (*fn)(void *arg, pgno_t pgno, int is_trunk), void *arg);

typedef struct pager_stats {
    uint64_t cache_hits, cache_misses, pages_written_wal, pages_checkpointed, commits, syncs;
    uint64_t pages_written_direct; /* new pages of large transactions written to the file itself */
    uint64_t wal_bytes;        /* current WAL size in bytes */
    size_t cache_bytes_used;   /* memory held by cached and dirty pages */
    size_t cache_bytes_peak;
} pager_stats;
void pager_get_stats(pager *p, pager_stats *out);
/* pager_set_cache_bytes changes the page cache's memory bound (at least 16 pages), evicting
** clean pages at once when the cache holds more. */
void pager_set_cache_bytes(pager *p, size_t bytes);

#endif
