/*
** rowgroup.h -- the column store part of a table: row groups of column segments in the table's
** column tree, their deletion bitmaps, and the tuple mover that fills them from the row store.
**
** A table whose rows have migrated has a second B+tree beside its row tree, the *column tree*
** (table_desc.col_root, 0 while nothing has migrated). Its entries, keyed so that the entries of a
** row group sort together and row groups sort by their first rowid:
**   'g' rowid_encode(first)                 the row group's descriptor (below)
**   's' rowid_encode(first) u32be(column)   the segment of a table column (colstore/segment.h);
**                                           column ROWGROUP_ROWID_COL is the rows' rowids
**   'h' rowid_encode(first)                 the columns' statistics when it was written
**                                           (rowgroup_stats); absent in a group an earlier
**                                           version wrote
**   'x' rowid_encode(first)                 the deletion bitmap: CRoaring's portable format of
**                                           the positions (0 .. rows-1) deleted; absent when none
** Descriptor (little-endian): u8 version (1), u32 rows, u32 columns stored, i64 first rowid,
** i64 last rowid, u64 id (unique in the file for ever, from meta slot ROWGROUP_ID_SLOT: a cache
** may key decoded data by it), u32 rows deleted.
** Statistics: u8 version (1), u8 HLL_BITS, u64 the row group's id (a left-over entry of another
** group does not pass for its), u32 columns, u32 raw length, then one zstd frame (with its
** content checksum) of that many bytes: each column's colstats_put form in order.
**
** Invariants the table layer keeps:
**   - row groups hold disjoint rowid ranges [first, last], and a row group's rows are in rowid
**     order; a rowid lives in at most one store: a row group (not deleted there) or the row tree;
**   - the tuple mover takes only row-store rows above the last migrated rowid, so ranges never
**     overlap (a newer version of a migrated row, written to the row tree by an UPDATE, stays
**     there until VACUUM rewrites its row group);
**   - segments are written once; a delete changes only the bitmap, and a row group whose rows
**     are all deleted is removed;
**   - a row group stores the table's columns as they were when it was written: columns added
**     later read as their added default (table_desc.defaults), like short records.
** Migration is one transaction of the caller's: the new row group and the removal of its rows
** from the row tree commit together, so after a crash each row is in exactly one store.
**
** Errors: STRATA_* statuses with messages in pager_txn_err(t); a descriptor, bitmap or segment
** that does not parse is STRATA_CORRUPT naming the row group (its first rowid) and the column.
*/
#ifndef STRATA_ROWGROUP_H
#define STRATA_ROWGROUP_H

#include "segment.h"
#include "table.h"

#define ROWGROUP_ROWS (60u * VECTOR_SIZE) /* 122,880 rows: a full row group */
#define ROWGROUP_ROWID_COL 0xFFFFFFFFu    /* the segment of the rowids */
#define ROWGROUP_ID_SLOT 2                /* pager meta slot: the next row group id */

/* A row group's descriptor. */
typedef struct rowgroup_desc {
    int64_t first, last; /* rowids of its first and last row */
    uint32_t rows;
    uint32_t ncols;   /* columns stored */
    uint32_t deleted; /* rows deleted */
    uint64_t id;
} rowgroup_desc;

/* rowgroup_rows is the number of rows of a full row group of td: ROWGROUP_ROWS unless the table
** asks for fewer (td->group_rows, for tests). */
static inline uint32_t rowgroup_rows(const table_desc *td) {
    return td->group_rows && td->group_rows < ROWGROUP_ROWS ? td->group_rows : ROWGROUP_ROWS;
}

/* rowgroup_last_rowid sets *any to whether the table has a row group and *last to the last rowid
** of its last one (0 when it has none). */
int rowgroup_last_rowid(pager_txn *t, const table_desc *td, int64_t *last, int *any);

/* rowgroup_migrate moves the oldest rowgroup_rows(td) rows of the row tree whose rowids are above the
** last migrated rowid into a new row group, for up to max_groups row groups, and sets *moved to
** how many it wrote (0 when fewer than a full row group's rows wait). Write transaction only; the
** column tree must exist (td->col_root). On error roll the transaction back. */
int rowgroup_migrate(pager_txn *t, const table_desc *td, uint32_t max_groups, uint32_t *moved);

/* rowgroup_vacuum rewrites every row group whose deleted rows are at least percent of its rows
** with its live rows only (same rowids; the new row group may be smaller than a full one), and
** sets *rewritten to how many it rewrote. Write transaction only; on error roll it back. */
int rowgroup_vacuum(pager_txn *t, const table_desc *td, uint32_t percent, uint32_t *rewritten);

/* rowgroup_write is the bulk path: it stores rows as one new row group without passing them
** through the row tree -- chunks[0..nchunks) (td's columns and types; no lazy selection) with
** rowids ids[0..rows), 1 <= rows <= ROWGROUP_ROWS, ascending and above every rowid of the table
** (the caller's guarantee: the rows are new). The row-store rows waiting to migrate (all below
** ids[0]) first move into row groups of their own, so that the tuple mover's invariant holds.
** The segments take new pages, which a large commit writes straight into the database file
** (pager.h, direct_bytes). Write transaction only; the column tree must exist. */
int rowgroup_write(pager_txn *t, const table_desc *td, data_chunk *const *chunks, uint32_t nchunks,
                   const int64_t *ids);

/* rowgroup_write in steps, for a loader that parses the next rows while a row group is encoded,
** and holds its new rows in the row group's own builders (no copy of its own):
**   rowgroup_job_open makes an empty row group of td's columns, for up to ROWGROUP_ROWS rows;
**   rowgroup_job_add copies rows sel[0..n) (sel NULL: 0..n-1) of ch (td's columns) with rowids
**     ids[0..n) into it (rowids ascending, as rowgroup_write wants them);
**   rowgroup_job_read gives rows [from, from + n) back (n <= VECTOR_SIZE) into out (empty or
**     not: it is reset; td's column types) and their rowids, for a loader that sends them to the
**     row tree after all; rowgroup_job_bytes is the memory the rows take, to charge;
**   rowgroup_job_start checks the row group as rowgroup_write does (moving waiting row-store rows
**     first) and encodes it on a thread of its own (here, when no thread can be made);
**   rowgroup_write_finish waits for it and stores the row group in t (its rowids must still be
**     above every migrated rowid: jobs started one after another, each encoding on its thread
**     meanwhile, are finished in the order they were started), and frees the job whatever it
**     returns. rowgroup_job_free drops a job unstored (waiting for its thread). The
**     thread never uses t. */
typedef struct rowgroup_job rowgroup_job;
int rowgroup_job_open(const table_desc *td, rowgroup_job **out, strata_err *err);
int rowgroup_job_add(rowgroup_job *j, const data_chunk *ch, const sel_t *sel, uint32_t n, const int64_t *ids,
                     strata_err *err);
uint32_t rowgroup_job_rows(const rowgroup_job *j);
size_t rowgroup_job_bytes(const rowgroup_job *j);
int rowgroup_job_read(const rowgroup_job *j, uint32_t from, uint32_t n, data_chunk *out, int64_t *ids,
                      strata_err *err);
int rowgroup_job_start(pager_txn *t, const table_desc *td, rowgroup_job *j);
int rowgroup_write_finish(pager_txn *t, const table_desc *td, rowgroup_job *j);
void rowgroup_job_free(rowgroup_job *j);

/* rowgroup_pending counts the row-store rows above the last migrated rowid, up to limit (a count
** of limit means "at least limit"). */
int rowgroup_pending(pager_txn *t, const table_desc *td, uint32_t limit, uint32_t *count);

/* ---- reading ------------------------------------------------------------------------------ */

/* A scan of the live rows of every row group, in rowid order, restricted to [lo, hi]. */
typedef struct rowgroup_scan rowgroup_scan;
int rowgroup_scan_open(pager_txn *t, const table_desc *td, const uint32_t *cols, uint32_t ncols, int64_t lo,
                       int64_t hi, rowgroup_scan **out);
/* A condition `projected column i op c` that the scan may use to skip row groups and vectors whose
** zone maps (segment.h) show that no row meets it, and to drop rows by comparing a dictionary or
** frame-of-reference column's codes (segment_filter) before decoding the others. c is in the
** column's physical representation (seg_const; DECIMAL scaled as the column), and must be exactly
** the condition's constant. It is a hint: rows that fail it may still come (from the row store,
** or columns of other encodings), so the caller filters them as before. */
typedef struct rowgroup_pred {
    uint32_t i;
    seg_cmp op;
    seg_const c;
} rowgroup_pred;
#define ROWGROUP_MAX_PREDS 8
/* rowgroup_scan_prune gives the scan up to ROWGROUP_MAX_PREDS such conditions (ANDed; more are
** ignored); call it before the first read. */
void rowgroup_scan_prune(rowgroup_scan *s, const rowgroup_pred *preds, uint32_t n);
/* A condition on a projected column's decoded values that no zone map knows (a join filter):
** keep[0..n) are rows of v (positions, ascending); it moves those that may meet it to the front,
** in order, and returns how many. It is a hint as a rowgroup_pred is. */
typedef uint32_t (*rowgroup_row_filter)(void *arg, const vector *v, sel_t *keep, uint32_t n);
/* rowgroup_scan_filter gives the scan one such condition on projected column i, which it tests on
** that column's vector before it decodes the others (only the rows that pass are); call it before
** the first read. Up to ROWGROUP_MAX_FILTERS of them are tested in the order given, each on the
** rows the ones before passed (more are ignored). */
#define ROWGROUP_MAX_FILTERS 4
void rowgroup_scan_filter(rowgroup_scan *s, uint32_t i, rowgroup_row_filter fn, void *arg);
/* rowgroup_scan_skip makes the scan pass over the row groups whose first rowids are
** firsts[0..n) (ascending; the caller's array must outlive the scan) without reading them; call
** it before the first read. */
void rowgroup_scan_skip(rowgroup_scan *s, const int64_t *firsts, uint32_t n);
/* rowgroup_scan_skipped is how many vectors the conditions let the scan skip so far. */
uint64_t rowgroup_scan_skipped(const rowgroup_scan *s);

/* rowgroup_scan_peek sets *rowid to the rowid of the next live row, or *more = 0 at the end. */
int rowgroup_scan_peek(rowgroup_scan *s, int *more, int64_t *rowid);
/* rowgroup_scan_next fills out (empty, its columns FLAT and writable, of the projected columns'
** types) with the next live rows with rowids up to max, from one vector of one row group (so
** fewer than VECTOR_SIZE rows may come while more follow), and their rowids (rowids may be NULL).
** out->count == 0 when no row up to max is left -- or, with rowgroup_scan_prune's conditions,
** when no row of the vector read met them: peek again. */
int rowgroup_scan_next(rowgroup_scan *s, data_chunk *out, int64_t *rowids, int64_t max);
void rowgroup_scan_close(rowgroup_scan *s);

/* rowgroup_get reads the projected columns of the live migrated row rowid into row out->count of
** out (and increments out->count), or sets *found = 0 and leaves out as it was. */
int rowgroup_get(pager_txn *t, const table_desc *td, const uint32_t *cols, uint32_t ncols, int64_t rowid,
                 data_chunk *out, int *found);

/* A point reader for many rowids: rowgroup_reader_get is rowgroup_get, keeping the row groups it
** read last open between calls (up to 16; rowids near each other read theirs once). td and cols
** must outlive the reader; write transactions must not change the table between calls.
** rowgroup_reader_rebind moves the reader to transaction t (the next calls read in t): the open
** row groups stay open when t is a read transaction of the same pager_txn_version as the one they
** were read in and the segment cache holds all their segments (so their memory counts in its
** budget), and are closed otherwise -- so a prepared lookup that runs again and again on an
** unchanged database finds its row groups open. rowgroup_reader_holds says whether rowid lies in
** an open row group's rowid range (whether the group holds it live, rowgroup_reader_get says). */
typedef struct rowgroup_reader rowgroup_reader;
int rowgroup_reader_open(pager_txn *t, const table_desc *td, const uint32_t *cols, uint32_t ncols,
                         rowgroup_reader **out);
void rowgroup_reader_rebind(rowgroup_reader *r, pager_txn *t);
int rowgroup_reader_holds(const rowgroup_reader *r, int64_t rowid);
int rowgroup_reader_get(rowgroup_reader *r, int64_t rowid, data_chunk *out, int *found);
void rowgroup_reader_close(rowgroup_reader *r);

/* ---- deleting ----------------------------------------------------------------------------- */

/* A deleter marks migrated rows deleted: add marks the live row rowid deleted (sets *found), or
** sets *found = 0 and changes nothing when no row group holds it live. It writes a row group's
** bitmap once for the rows of it deleted one after another (rowids in order touch each row group once):
** what it marked is stored when it moves on to another row group and at its end. end(dl, rc)
** stores the rest when rc is STRATA_OK (not after an error: the statement is rolled back), frees
** dl (NULL: nothing) and returns rc or the store's error. */
typedef struct rowgroup_deleter rowgroup_deleter;
int rowgroup_deleter_open(pager_txn *t, const table_desc *td, rowgroup_deleter **out);
int rowgroup_deleter_add(rowgroup_deleter *dl, int64_t rowid, int *found);
int rowgroup_deleter_end(rowgroup_deleter *dl, int rc);

/* rowgroup_has sets *found to whether a row group holds rowid live. */
int rowgroup_has(pager_txn *t, const table_desc *td, int64_t rowid, int *found);

/* ---- inside this folder: the row tree alone (table.c), for the tuple mover ---------------- */

/* table_scan_open_rowstore is table_scan_open over the row tree only. */
int table_scan_open_rowstore(pager_txn *t, const table_desc *td, const uint32_t *cols, uint32_t ncols, int64_t lo,
                             int64_t hi, table_scan **out);
/* table_delete_rowstore removes rows of the row tree by rowid (each must be there). */
int table_delete_rowstore(pager_txn *t, const table_desc *td, const int64_t *rowids, uint32_t count);

/* ---- checking ------------------------------------------------------------------------------ */

/* rowgroup_check_segments opens (segment_open: magic, checksum, lengths, sections, zone maps,
** dictionary) every readable segment of td's column tree and calls problem with a line for each
** that fails, naming the row group (its first rowid) and the column; *found counts them. Pages
** that do not read are passed over (the B+tree check reports them). Returns STRATA_OK, or
** STRATA_NOMEM. */
int rowgroup_check_segments(pager_txn *t, const table_desc *td, void (*problem)(void *arg, const char *line),
                            void *arg, uint64_t *found);

/* ---- describing --------------------------------------------------------------------------- */

/* rowgroup_foreach calls fn for each row group of the table in rowid order, with its descriptor;
** a non-OK return of fn stops the walk and is returned. rowgroup_foreach_in does it for the row
** groups whose rowid ranges meet [lo, hi], reading their descriptors only. */
int rowgroup_foreach(pager_txn *t, const table_desc *td, int (*fn)(void *arg, const rowgroup_desc *d), void *arg);
int rowgroup_foreach_in(pager_txn *t, const table_desc *td, int64_t lo, int64_t hi,
                        int (*fn)(void *arg, const rowgroup_desc *d), void *arg);

/* rowgroup_stats reads the statistics written with row group d (colstats.h: each column's NULL
** count, range and distinct sketch, over the d->rows rows it was written with, deleted ones
** included; distinct set to the sketch's estimate) into cols[0..d->ncols), and sets *found; 0
** when it has none (an earlier version wrote it) or they do not read back: statistics can always
** be gathered again from the rows, so damage to them is not an error. */
int rowgroup_stats(pager_txn *t, const table_desc *td, const rowgroup_desc *d, column_stats *cols, int *found);

/* rowgroup_describe calls fn for every segment of every row group in rowid order: the row group's
** descriptor, the table column (ROWGROUP_ROWID_COL for the rowids, after the columns), what
** segment_describe says of it and the column's statistics (rowgroup_stats; NULL when the group
** has none, and for the rowids). A non-OK return of fn stops the walk and is returned. */
int rowgroup_describe(pager_txn *t, const table_desc *td,
                      int (*fn)(void *arg, const rowgroup_desc *d, uint32_t col, const seg_info *info,
                                const column_stats *stats),
                      void *arg);

#endif
