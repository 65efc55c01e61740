/*
** maintain.h -- what the engine does to its tables' storage on its own or when a statement asks:
** the tuple mover after commits, the statistics refresh after commits, ANALYZE, VACUUM,
** CHECKPOINT and PRAGMA integrity_check.
**
** These are the per-table loops over the catalog; the work on one table is colstore/'s
** (rowgroup_migrate, rowgroup_vacuum, rowgroup_check_segments) and rowstore/'s
** (btree_check_file, pager_checkpoint), the statistics' gathering stats_gather.h's and their
** storing catalog/stats.h's. The policy sits in planner/ because it enumerates the catalog's
** tables; colstore/ does not know the catalog. What it is not: statements. The C API (api.c)
** decides when each runs (after which commit, in which transaction, with which error for the
** user) and calls these.
**
** Some of these work in write transactions of their own (the tuple mover, the refresh, VACUUM,
** CHECKPOINT): they run when no transaction of the caller is open. When a transaction of the
** tuple mover or of the refresh fails, the in-memory catalog may hold what it did: the catalog is
** read again as committed and *reread is set to true, so the caller's table_def pointers are gone
** and its prepared statements must bind again.
*/
#ifndef STRATA_MAINTAIN_H
#define STRATA_MAINTAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "../../rowstore/pager.h"
#include "catalog/catalog.h"
#include "status.h"

/* storage_after_commit is the automatic work after a transaction committed (no transaction is
** open). The tuple mover first: a table whose row store holds a full row group beyond its
** migrated rows moves one row group (storage 'auto': the work per commit stays bounded) or all of
** them (storage 'column'), each table in a write transaction of its own. Then the statistics of
** tables with enough new rows (STATS_REFRESH_ROWS in maintain.c) are brought up to date, each in a
** write transaction of its own, from the rows above their watermark. It folds the tables' counts
** of inserted rows (table_def.inserted, .bulk_inserted) into .pending and .unanalyzed. Best
** effort: the commit has succeeded whatever happens here; a failed step is rolled back, leaves
** the rows and statistics as they were, and is tried again after a later commit (*reread tells
** whether the catalog was read again). */
void storage_after_commit(pager *p, catalog *c, bool *reread);

/* storage_analyze computes the statistics of table `name` (NULL: of every table) again from all
** its rows and stores them, inside write transaction t (so a ROLLBACK takes them back). The
** caller has checked that the table exists. On error the statistics stored so far stay in t:
** the caller undoes the statement. */
int storage_analyze(catalog *c, pager_txn *t, const char *name, strata_err *err);

/* storage_vacuum rewrites, in a write transaction per table, the row groups of table `name`
** (NULL: of every table) whose deleted rows reach VACUUM_PERCENT (maintain.c) of their rows.
** "relation does not exist" when name names no table. On error the table being vacuumed is
** rolled back; tables done before it stay done. */
int storage_vacuum(pager *p, catalog *c, const char *name, strata_err *err);

/* storage_checkpoint carries out CHECKPOINT [name]: every full row group of table `name` (NULL:
** of every table whose storage is not 'row') migrates, then the WAL is checkpointed into the
** database file (pager_checkpoint). "relation does not exist" when name names no table. On error
** what migrated before stays migrated (*reread tells whether the catalog was read again). */
int storage_checkpoint(pager *p, catalog *c, const char *name, bool *reread, strata_err *err);

/* storage_check is PRAGMA integrity_check: the whole-file check over every tree the catalog
** names as transaction t sees it (the B+tree structure and the page accounting, btree_check_file)
** and every column segment opened (rowgroup_check_segments). It calls add(arg, line) for each of
** the first max problems (one line each) and add(arg, "ok") when there is none. Returns STRATA_OK
** when the check ran, whatever it found; an error (err set) when it could not run. */
int storage_check(pager_txn *t, catalog *c, uint64_t max, void (*add)(void *arg, const char *line), void *arg,
                  strata_err *err);

#endif
