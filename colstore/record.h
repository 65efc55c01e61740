/*
** record.h -- the row record of table.h, inside this folder: encoding a row of a data chunk into
** a record, and decoding the projected columns of a record straight into the vectors of a chunk.
**
** The format is the one table.h documents (varint column count, NULL bitmap, then each non-NULL
** value: BOOLEAN one byte, integer-like types a zigzag varint, DOUBLE eight bytes little-endian,
** strings a varint length and the bytes, INTERVAL three zigzag varints). Varints are LEB128:
** seven bits a byte, least significant group first, at most ten bytes.
**
** A decode plan is made once per scan (or get) from the projection, so that the per-row work is
** one walk over the record's columns up to the last projected one. Decoding never reads outside
** [rec, rec + len): a record that does not parse gives STRATA_CORRUPT and a static reason, which
** the caller words with the table's root page and the rowid.
**
** What it is not: no B+tree access, no keys (table.c, keycode.c).
*/
#ifndef STRATA_RECORD_H
#define STRATA_RECORD_H

#include "table.h"

/* How a column's values are decoded, by its physical type. */
typedef enum record_kind { REC_BOOL, REC_I16, REC_I32, REC_I64, REC_F64, REC_STR, REC_INTERVAL } record_kind;

typedef struct record_col {
    uint8_t kind;  /* record_kind */
    uint32_t nout; /* output columns filled from this table column (0: skipped) */
    uint32_t out0; /* they are outs[out0 .. out0 + nout) */
} record_col;

#define RECORD_PLAN_INLINE 16 /* plans of up to this many columns need no allocation */

/* A region of an output vector's string heap that long strings are copied into one after the
** other, so that a scan does not call the heap's allocator per string. */
typedef struct record_region {
    char *p, *end;
} record_region;

/* A decode plan: which table columns fill which output columns. */
typedef struct record_plan {
    const table_desc *td;
    uint32_t nwalk;          /* table columns walked: 1 + the largest projected column, 0 for none */
    uint32_t nout;           /* output columns */
    int single;              /* no table column fills more than one output column */
    record_col *col;         /* [nwalk] */
    uint32_t *outs;          /* output column indexes grouped by table column */
    record_region *regions;  /* [nout], or NULL: every long string goes through vec_set_str */
    void *heap;              /* the arrays when they did not fit inline (freed by record_plan_free) */
    record_col col_inline[RECORD_PLAN_INLINE];
    uint32_t outs_inline[RECORD_PLAN_INLINE];
    record_region regions_inline[RECORD_PLAN_INLINE];
} record_plan;

/* record_plan_init prepares the plan for output columns cols[0..ncols) of table td (each
** < td->ncols: STRATA_MISUSE otherwise). STRATA_NOMEM when a large plan cannot be allocated.
** regions != 0 makes decoding take long strings' room from the output vectors' heaps a region
** at a time (for scans, which fill whole chunks; a region's unused tail is lost until the
** vector's next reset, so point reads pass 0). */
int record_plan_init(record_plan *p, const table_desc *td, const uint32_t *cols, uint32_t ncols, int regions,
                     strata_err *err);
/* record_plan_reset_regions forgets the regions; call it whenever the output chunk is reset. */
void record_plan_reset_regions(record_plan *p);
void record_plan_free(record_plan *p);

/* record_decode decodes the record rec[0..len) into row r of out's columns as the plan says:
** values into VEC_DATA, strings copied with vec_set_str, NULLs with vec_set_null; columns the
** record does not store take td->defaults (or NULL). out's columns must be writable and FLAT,
** of the projected columns' physical types. Returns STRATA_OK; STRATA_CORRUPT with *why set to a
** static reason (nothing recorded in err); STRATA_NOMEM from vec_set_str (recorded in err). On an
** error row r is left partly written. */
int record_decode(record_plan *p, const uint8_t *rec, size_t len, data_chunk *out, uint32_t r,
                  const char **why, strata_err *err);

/* Encoding the record of row `row` of vectors cols[0..td->ncols) (a row of the vectors, read
** through their selections; every column is stored) in two steps, so that the caller provides
** the room: record_max_size bounds the record's length, record_encode_into writes it to dst
** (which has that room) and returns its length. */
size_t record_max_size(const table_desc *td, const vector *cols, uint32_t row);
size_t record_encode_into(uint8_t *dst, const table_desc *td, const vector *cols, uint32_t row);

/* record_set_value stores val (of v's type; NULL or a NULL value: SQL NULL) as row r of v, a
** writable FLAT vector (strings copied into its heap): how added defaults are read. */
int record_set_value(vector *v, uint32_t r, const sql_value *val, strata_err *err);

/* record_kind_of gives the decode kind of a SQL type id. */
record_kind record_kind_of(uint8_t type_id);

/* record_buf_reserve makes room for n more bytes after buf->len. STRATA_NOMEM when it cannot. */
int record_buf_reserve(btree_buf *buf, size_t n, strata_err *err);

#endif
