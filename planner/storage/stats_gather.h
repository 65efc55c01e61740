/*
** stats_gather.h -- gathering a table's statistics (catalog/stats.h) from both of its stores.
**
** The row groups whose stored statistics (rowgroup_stats) still describe their rows exactly are
** merged without being read; the other rows of both stores are read (table_scan) and summarized
** a column at a time through segment builders. Storing the result is the catalog's
** (catalog_set_stats); when to gather is maintain.h's (ANALYZE, the refresh after commits).
*/
#ifndef STRATA_STATS_GATHER_H
#define STRATA_STATS_GATHER_H

#include "../../rowstore/pager.h"
#include "catalog/stats.h"
#include "status.h"

/* stats_scan folds the rows of td with rowids above s->max_rowid (both stores), as transaction
** t sees them, into s, and moves the watermark to the largest rowid read. s->ncols must be
** td->ncols. On error s is partly updated: the caller drops it. */
int stats_scan(pager_txn *t, const table_def *td, table_stats *s, strata_err *err);

#endif
