/*
** table.h -- the table access layer: rows of a table in the row store, read and written a data
** chunk at a time, and the order-preserving key encoding that indexes are built on.
**
** A table is one B+tree keyed by rowid (a signed 64-bit integer, encoded so that memcmp orders
** it numerically), the *row tree*. The value of an entry is the row's *record*: its column values
** in a compact binary form (below). As a table grows, its older rows migrate into row groups of
** compressed column segments in a second tree, the *column tree* (rowgroup.h). Every call here
** covers both stores: scans return the live rows of both in rowid order, point reads, updates and
** deletes find a row in either. Rowids are stable for a row's life: indexes name rows by rowid,
** and migration keeps them.
**
** An index is a B+tree whose keys are key_encode() of the index's key values followed by the
** rowid (so equal index keys stay distinct and ordered by rowid); its values are empty. A unique
** index looks a key up by its prefix (every entry whose key starts with the encoded values).
**
** This layer knows columns only by their types: names, constraints, defaults and which indexes
** exist belong to the catalog (planner/). It does not evaluate expressions.
**
** Record format (little-endian where it matters), for a table of n columns:
**   varint n_stored            columns stored (<= n; a record written before ALTER TABLE ADD
**                              COLUMN stores fewer: the reader fills the rest from defaults)
**   ceil(n_stored / 8) bytes   NULL bitmap, bit i set when column i is NULL
**   then each non-NULL column in order:
**     BOOLEAN                  1 byte
**     SMALLINT, INTEGER, BIGINT, DECIMAL, DATE, TIMESTAMP: zigzag varint of the int64
**     DOUBLE                   8 bytes (IEEE bits)
**     VARCHAR, BLOB            varint length, bytes
**     INTERVAL                 zigzag varints of months, days, micros
** A record that does not parse (a length past its end, a varint too long) is STRATA_CORRUPT
** naming the table's root page and the rowid, never a crash.
**
** Errors: every function returns a STRATA_* status, with the message in pager_txn_err(txn) (or
** err where one is passed). Writes need a write transaction; after a failed write the
** transaction must be rolled back (as btree_put says).
*/
#ifndef STRATA_TABLE_H
#define STRATA_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "../rowstore/btree.h"
#include "../vector/vector.h"
#include "value.h"

/* What the access layer needs to know of a table. types[i] is column i's type. defaults (may be
** NULL) gives, for each column, the value that records stored before the column existed read
** as (NULL when defaults is NULL). The arrays belong to the caller and must outlive the calls. */
typedef struct table_desc {
    pgno_t root;
    pgno_t col_root; /* the column tree of migrated rows (rowgroup.h), 0 while none has migrated */
    int zstd_level;  /* zstd level for the table's segments; 0 never compresses with zstd */
    uint32_t group_rows; /* rows of a full row group; 0: ROWGROUP_ROWS (fewer: tests only) */
    struct segcache *cache; /* the database's cache of opened segments (segcache.h), or NULL */
    uint32_t ncols;
    const sql_type *types;
    const sql_value *defaults;
} table_desc;

/* ---- rowids ------------------------------------------------------------------------------- */

#define ROWID_KEY_LEN 8
/* rowid_encode writes the 8-byte key of rowid (big-endian with the sign bit flipped). */
void rowid_encode(int64_t rowid, uint8_t out[ROWID_KEY_LEN]);
int64_t rowid_decode(const uint8_t in[ROWID_KEY_LEN]);
/* table_max_rowid sets *out to the largest rowid in the table, 0 when it is empty. */
int table_max_rowid(pager_txn *t, const table_desc *td, int64_t *out);

/* ---- writing ------------------------------------------------------------------------------ */

/* table_insert stores rows sel[0..count) (sel NULL: 0..count-1) of chunk (whose columns are the
** table's columns in order, with the table's types; lazy chunk->sel is applied on top) under
** rowids[0..count), replacing nothing: a rowid already present is STRATA_CONSTRAINT. The caller
** has checked types, NOT NULL and the other constraints. */
int table_insert(pager_txn *t, const table_desc *td, const data_chunk *chunk, const sel_t *sel, uint32_t count,
                 const int64_t *rowids);
/* table_insert_counted is table_insert that sets *done to the rows stored before an error: rows
** 0..*done-1 went in and row *done is the one that failed. */
int table_insert_counted(pager_txn *t, const table_desc *td, const data_chunk *chunk, const sel_t *sel, uint32_t count,
                         const int64_t *rowids, uint32_t *done);
/* table_update replaces the whole record of each rowid (which must exist: STRATA_NOTFOUND
** otherwise, recorded with a message naming the rowid) with row sel[k] of chunk. */
int table_update(pager_txn *t, const table_desc *td, const data_chunk *chunk, const sel_t *sel, uint32_t count,
                 const int64_t *rowids);
/* table_delete removes rows by rowid; STRATA_NOTFOUND (recorded, naming the rowid) when one is
** absent, after the rows before it were removed. */
int table_delete(pager_txn *t, const table_desc *td, const int64_t *rowids, uint32_t count);

/* ---- reading ------------------------------------------------------------------------------ */

/* A scan reads the table in rowid order into chunks of the projected columns. */
typedef struct table_scan table_scan;
/* table_scan_open prepares a scan of columns cols[0..ncols) (table column indexes, any order,
** repeats allowed; the caller's array must outlive the scan) over rowids in [lo, hi] (use
** INT64_MIN / INT64_MAX for the whole table). */
int table_scan_open(pager_txn *t, const table_desc *td, const uint32_t *cols, uint32_t ncols, int64_t lo,
                    int64_t hi, table_scan **out);
/* table_scan_next fills out (chunk_reset first; its column k has the type of table column
** cols[k]) with up to VECTOR_SIZE next rows, and rowids[0..out->count) (rowids may be NULL) with
** their rowids. out->count == 0 means the scan is over. Strings are copied into out's vectors.
** In a write transaction the caller may change the table between calls (an UPDATE rewriting the
** rows just read): each call goes on after the last rowid returned. After an error the scan is
** over. */
int table_scan_next(table_scan *s, data_chunk *out, int64_t *rowids);
void table_scan_close(table_scan *s);
/* table_scan_prune hands conditions on projected columns to the migrated part of the scan, which
** may skip row groups and vectors whose zone maps rule them out (rowgroup.h, rowgroup_pred: a
** hint; rows that fail them may still come). Before the first table_scan_next. */
struct rowgroup_pred;
void table_scan_prune(table_scan *s, const struct rowgroup_pred *preds, uint32_t n);

/* table_scan_filter hands a condition on projected column i's values to the migrated part of the
** scan (rowgroup_scan_filter: a hint; several are tested in the order given). Before the first
** table_scan_next. */
typedef uint32_t (*table_row_filter)(void *arg, const vector *v, sel_t *keep, uint32_t n);
void table_scan_filter(table_scan *s, uint32_t i, table_row_filter fn, void *arg);

/* table_scan_skip_groups makes the scan pass over the row groups whose first rowids are
** firsts[0..n) (ascending; the array must outlive the scan): their rows are not read, the row
** store's are (rowgroup_scan_skip). Before the first table_scan_next. */
void table_scan_skip_groups(table_scan *s, const int64_t *firsts, uint32_t n);
/* A part of a table's rowids for a scan of its own (a parallel scan's morsel): rowids [lo, hi],
** about rows live rows (the row groups' counts; a row-store leaf's entries estimated alike for
** every leaf, from one). */
typedef struct table_range {
    int64_t lo, hi;
    uint64_t rows;
} table_range;
/* table_scan_ranges cuts [lo, hi] into *n contiguous ranges (*out, ascending; free it with
** table_ranges_free): the first begins at lo, the last ends at hi, each begins right after the one
** before. Each holds about target_rows rows (a range closes where its rows come nearest it; so
** with pieces of at most target_rows, every range but the last holds half of it or more), cut at
** a boundary of both stores: never inside a row group (one lies in one range), and in the row
** store between two of its leaves (where a row group's rowids do not forbid it). Only descriptors and the row tree's
** interior pages (and one leaf) are read, as the transaction sees them. lo > hi gives none. */
int table_scan_ranges(pager_txn *t, const table_desc *td, int64_t lo, int64_t hi, uint64_t target_rows,
                      table_range **out, uint32_t *n);
void table_ranges_free(table_range *r);

/* table_get reads the rows with the given rowids (projected as for a scan) into out, in the
** order given, starting at row out->count: found[k] (may be NULL) says whether rowids[k] exists;
** a missing row is skipped (not appended). count + out->count must be <= VECTOR_SIZE. */
int table_get(pager_txn *t, const table_desc *td, const uint32_t *cols, uint32_t ncols, const int64_t *rowids,
              uint32_t count, data_chunk *out, uint8_t *found);

/* A table reader is table_get with state kept between calls: the row groups it read stay open
** (rowgroup_reader), so that a prepared lookup that runs again on an unchanged database reads its
** migrated rows without finding and opening their row groups again. td and cols must outlive the
** reader; the transaction may differ from call to call. table_reader_open fails only for lack of
** memory (STRATA_NOMEM, nothing recorded). */
typedef struct table_reader table_reader;
int table_reader_open(const table_desc *td, const uint32_t *cols, uint32_t ncols, table_reader **out);
int table_reader_get(table_reader *r, pager_txn *t, const int64_t *rowids, uint32_t count, data_chunk *out,
                     uint8_t *found);
void table_reader_close(table_reader *r);

/* ---- the key encoding --------------------------------------------------------------------- */

/* key_encode appends the order-preserving encoding of v to buf (growing it; STRATA_NOMEM when it
** cannot): memcmp order of encodings is value_compare order for values of one type, with NULL
** sorting after every value (PostgreSQL's default). Integers of every width and DATE, TIMESTAMP
** and DECIMAL encode their int64 alike (so SMALLINT 5 and BIGINT 5 give equal keys; DECIMALs
** must share a scale, which the catalog guarantees by casting to the column type). DOUBLE -0 and
** 0 encode alike, NaN after every number. Strings are escaped so that a key of several values
** still orders value by value (a prefix sorts first). */
int key_encode(btree_buf *buf, const sql_value *v, strata_err *err);
/* key_decode reads one encoded value at p (not past end) into row r of v, a writable FLAT vector
** of the value's type, and sets *next past it. INTERVAL keys hold only the interval's length and
** do not decode (STRATA_CORRUPT, as for a malformed key). */
int key_decode(const uint8_t *p, const uint8_t *end, vector *v, uint32_t r, const uint8_t **next, strata_err *err);
/* key_encode_row appends the encodings of row r of each vector in cols[0..ncols). */
int key_encode_row(btree_buf *buf, const vector *cols, uint32_t ncols, uint32_t r, strata_err *err);

/* ---- indexes ------------------------------------------------------------------------------ */

/* An index entry is key || rowid_encode(rowid). These put/delete one entry; index_delete of an
** absent entry is STRATA_NOTFOUND (recorded). */
int index_insert(pager_txn *t, pgno_t root, const uint8_t *key, size_t klen, int64_t rowid);
int index_delete(pager_txn *t, pgno_t root, const uint8_t *key, size_t klen, int64_t rowid);
/* index_insert_unique is index_insert for a unique index: STRATA_CONSTRAINT (nothing recorded,
** nothing changed) when an entry with the same key exists, found in the same descent. */
int index_insert_unique(pager_txn *t, pgno_t root, const uint8_t *key, size_t klen, int64_t rowid);
/* index_find_first sets *rowid to the smallest rowid whose entry starts with key (a prefix of
** whole encoded values) and returns STRATA_OK, or STRATA_NOTFOUND. For unique checks. */
int index_find_first(pager_txn *t, pgno_t root, const uint8_t *key, size_t klen, int64_t *rowid);

/* A range scan of an index: the rowids of entries whose key is in [lo, hi] as byte strings,
** where lo/hi are encoded value prefixes; lo NULL starts at the beginning, hi NULL runs to the end;
** hi_inclusive says whether entries that start with hi are included (they are for <=, not for <);
** lo_inclusive likewise for entries that start with lo. */
typedef struct index_scan index_scan;
int index_scan_open(pager_txn *t, pgno_t root, const uint8_t *lo, size_t lo_len, int lo_inclusive,
                    const uint8_t *hi, size_t hi_len, int hi_inclusive, index_scan **out);
/* index_scan_next writes up to max rowids, in key order; *n == 0 at the end. hi is copied at open.
** In a write transaction the index may change between calls: each call goes on after the last
** entry returned. index_scan_next_keys also copies the entries' keys (without the rowid) into
** keys (emptied first), one after another, entry k's from key_off[k] to key_off[k + 1] (key_off
** has max + 1 slots). */
int index_scan_next(index_scan *s, int64_t *rowids, uint32_t max, uint32_t *n);
int index_scan_next_keys(index_scan *s, int64_t *rowids, uint32_t max, uint32_t *n, btree_buf *keys,
                         uint32_t *key_off);
void index_scan_close(index_scan *s);

#endif
