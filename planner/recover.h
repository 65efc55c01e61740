/*
** recover.h -- copying what a damaged database file still holds into a new database
** (strata_recover, strata_recover_db in include/strata.h).
**
** recover.c reads the damaged file through a read-only pager (pager_config.read_only) and the
** salvage walks of btree.h, and writes the new database through the public API and the appender.
** api.c owns the handles; this header is what the two files share.
*/
#ifndef STRATA_RECOVER_H
#define STRATA_RECOVER_H

#include "../rowstore/pager.h"
#include "../vector/vector.h"
#include "catalog/catalog.h"
#include "strata.h"

/* recover_copy copies the database that p holds (as a new read transaction of p sees it) into a
** new database at new_path, filling r (zeroed by the caller). cat is the catalog loaded from p, or
** NULL: then it is read here, salvaged when it is damaged (segs is the segment cache its tables
** read through). Returns STRATA_OK when the new database was made; on error r->message says why. */
int recover_copy(pager *p, catalog *cat, struct segcache *segs, const char *new_path, strata_recover_report *r);

/* appender_add_rows appends rows sel[0..n) (sel NULL: 0..n-1) of ch, whose columns have the
** appender's table's column types, as ended rows (no row may be begun). In api.c. */
int appender_add_rows(strata_appender *a, const data_chunk *ch, const sel_t *sel, uint32_t n);

#endif
