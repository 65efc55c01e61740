/*
** memory.h -- the memory limit (SET memory_limit): how it is shared between the page cache, the
** cache of opened column segments and the memory of running statements, its default, and its
** written form.
**
** The limit bounds the page cache and the memory of running statements (their hash tables,
** sorts and collections) together, as DuckDB's setting of that name does. The page cache takes
** at most PAGE_CACHE_MAX (memory.c) of it and at most half, the cache of opened column segments
** at most SEGMENT_CACHE_MAX and an eighth; a statement's run may take the rest (its vec_budget).
** The default is 80 % of the machine's memory, DuckDB's default too. The C API (api.c) keeps the
** limit and the statements' share on its handle and carries out SET and PRAGMA memory_limit.
*/
#ifndef STRATA_MEMORY_H
#define STRATA_MEMORY_H

#include <stddef.h>

#include "../../colstore/segcache.h"
#include "../../rowstore/pager.h"
#include "status.h"

/* The segment cache's budget before a limit is applied, and its most under any limit. */
#define SEGMENT_CACHE_MAX ((size_t)64 << 20)

/* memory_limit_default returns 80 % of the machine's memory (1 GiB when it cannot be known). */
size_t memory_limit_default(void);

/* memory_limit_parse reads a limit as written, such as '512MB', '1.5 GiB', '2000000' or '4 kb':
** a number, then an optional unit B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB
** (powers of 1024), in any case, of at least 1 MiB. On success *limit is set; otherwise (text
** NULL or not such a size, or too small) STRATA_ERROR with the message SET shows, and *limit is
** unchanged. */
int memory_limit_parse(const char *text, size_t *limit, strata_err *err);

/* memory_limit_apply gives the page cache of p and the segment cache segs their shares of limit
** (pager_set_cache_bytes and segcache_set_budget evict at once when lowered) and returns the
** rest, what a statement's run may take. */
size_t memory_limit_apply(pager *p, segcache *segs, size_t limit);

#endif
