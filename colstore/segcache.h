/*
** segcache.h -- a cache of opened column segments, so that point reads and repeated scans of
** migrated rows do not copy a segment out of the column tree's pages and check it each time.
**
** An entry is a segment's bytes and its open reader, keyed by (row group id, column), held by
** one user at a time. Row group
** ids are unique in a file for ever and a segment never changes once committed, so an entry is
** valid as long as the file is open, whatever commits later; a row group that goes (a delete of
** its last row, VACUUM) is never asked for again. Only segments of row groups committed before
** the reading transaction began are inserted: a write transaction may read a row group it made
** itself and then roll back, and the id would be given to another row group later. Lookups are
** fine in any transaction.
**
** The cache keeps at most its budget of bytes (segment buffers plus their readers' scratch, as
** measured at insert, and the zstd blocks a cached reader decompressed and keeps, charged when
** its holder releases it: segment_keep_blocks); the least recently used entries that no one
** holds go first. One cache
** belongs to one open database; its calls may come from several threads (a mutex guards it).
**
** What it is not: no reading of the column tree (rowgroup.c does that and hands segments in).
*/
#ifndef STRATA_SEGCACHE_H
#define STRATA_SEGCACHE_H

#include "segment.h"

typedef struct segcache segcache;

/* A held entry: seg is the open reader; release it with segcache_release. */
typedef struct segcache_entry segcache_entry;

/* segcache_create makes a cache of budget bytes (NULL on out of memory). */
segcache *segcache_create(size_t budget);
/* segcache_destroy frees every entry; none may be held. NULL is a no-op. */
void segcache_destroy(segcache *c);
/* segcache_set_budget changes the budget, dropping unheld entries beyond it. */
void segcache_set_budget(segcache *c, size_t budget);

/* segcache_get returns the held entry of (id, col), or NULL when the cache has none or someone
** holds it: a reader keeps scratch memory (segment.h), so an entry has one user at a time, and a
** second one (another thread, or another scan of the same segment) reads its own copy. */
segcache_entry *segcache_get(segcache *c, uint64_t id, uint32_t col);
/* segcache_put moves buf (its data, which the entry now owns: *buf is emptied) and the reader
** opened over it into a new held entry of (id, col) and returns it; NULL when it would not fit
** the budget or memory runs out (buf and rd are then left to the caller). */
segcache_entry *segcache_put(segcache *c, uint64_t id, uint32_t col, btree_buf *buf, segment_reader *rd);
/* segcache_reader is the entry's open segment reader. */
segment_reader *segcache_reader(segcache_entry *e);
/* segcache_release lets go of a held entry. */
void segcache_release(segcache *c, segcache_entry *e);

/* What the cache holds, for tests and statistics. */
typedef struct segcache_stats {
    uint64_t hits, misses, inserts, evictions;
    size_t bytes, entries;
} segcache_stats;
void segcache_get_stats(segcache *c, segcache_stats *out);

#endif
