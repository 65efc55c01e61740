/*
** stats.h -- table statistics: row count and, per column, NULL count, min, max and a distinct
** count (a HyperLogLog sketch), for the cardinality estimates of estimate.c.
**
** A table's statistics cover its rows with rowids up to a watermark (max_rowid). ANALYZE counts
** every row of both stores; after a commit that inserted enough rows (and so after every bulk
** load and migration of a row group) the rows above the watermark are read and folded in
** (stats_scan, storage/stats_gather.h: the sketches merge, min and max widen), which costs a read
** of the new rows only. Deleted rows are not taken out until the next ANALYZE (a sketch cannot
** forget a value), so between ANALYZEs the statistics describe a superset of the rows, as
** DuckDB's do. Rows inserted below the watermark (an INTEGER PRIMARY KEY chosen smaller than the
** largest) are likewise seen by ANALYZE only.
**
** The statistics are stored in the catalog (catalog_set_stats), in a binary form of their own
** (stats_encode); a stored form this build does not read is ignored, as if never analyzed.
*/
#ifndef STRATA_STATS_H
#define STRATA_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "colstats.h"
#include "status.h"
#include "value.h"

typedef struct table_def table_def;

typedef struct table_stats {
    int64_t rows;
    int64_t max_rowid;   /* rows with rowids up to here are counted; INT64_MIN: none yet */
    uint32_t ncols;
    column_stats cols[]; /* the table's columns in order */
} table_stats;

/* stats_new returns empty statistics for ncols columns (malloc'd; NULL when out of memory). */
table_stats *stats_new(uint32_t ncols);
void stats_free(table_stats *s);
/* stats_copy returns a copy of s (malloc'd; NULL when out of memory). */
table_stats *stats_copy(const table_stats *s);

/* stats_finish computes each column's distinct estimate from its sketch, at most its non-NULL
** rows (the sketches alone do not bound it), once s's counts are complete. */
void stats_finish(table_stats *s);

/* stats_encode returns the stored form of s (malloc'd, *len bytes; NULL when out of memory);
** stats_decode reads one back for a table of ncols columns, or returns NULL when the bytes are
** not a form this build reads, or are for another number of columns, or memory ran out. */
uint8_t *stats_encode(const table_stats *s, size_t *len);
table_stats *stats_decode(const uint8_t *p, size_t n, uint32_t ncols);

/* The relation strata_stats lists the statistics a row per table column (as DuckDB's
** duckdb_columns() and SQLite's sqlite_stat1 show theirs): table_name, column_name, rows,
** null_count, distinct_count, min, max; the last five NULL for a table never analyzed. */
#define STATS_RELATION_COLS 7
extern const char *const STATS_RELATION_NAMES[STATS_RELATION_COLS];
extern const uint8_t STATS_RELATION_TYPES[STATS_RELATION_COLS];
/* stats_relation_row fills out with the row of column col of td (strings point into td). */
void stats_relation_row(const table_def *td, uint32_t col, sql_value out[STATS_RELATION_COLS]);

#endif
