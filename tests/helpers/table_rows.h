/*
** table_rows.h -- a test table with one column of every type, whose values are a pure function of
** (rowid, column, version tag), for the tests of the table access layer and the column store:
** they insert rows without storing them and check what a scan or a read returns against the
** same function; and the fixture of those tests: one pager over an in-memory file system.
** Header-only (static inline): only the tests that include it use the table layer.
*/
#ifndef STRATA_TESTS_TABLE_ROWS_H
#define STRATA_TESTS_TABLE_ROWS_H

#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../colstore/table.h"
#include "../../core/vfs.h"

#define OK(t, expr)                                                                                          \
    do {                                                                                                     \
        int rc_ = (expr);                                                                                    \
        cr_assert_eq(rc_, STRATA_OK, "%s: %s: %s", #expr, strata_errstr(rc_), pager_txn_err(t)->msg);       \
    } while (0)


enum { C_BOOL, C_I16, C_I32, C_I64, C_F64, C_DEC, C_STR, C_BLOB, C_DATE, C_TS, C_IV, NCOLS };
static sql_type types[NCOLS];

static inline void init_types(void) {
    types[C_BOOL] = sql_type_make(TYPE_BOOLEAN);
    types[C_I16] = sql_type_make(TYPE_SMALLINT);
    types[C_I32] = sql_type_make(TYPE_INTEGER);
    types[C_I64] = sql_type_make(TYPE_BIGINT);
    types[C_F64] = sql_type_make(TYPE_DOUBLE);
    types[C_DEC] = sql_type_decimal(18, 2);
    types[C_STR] = sql_type_varchar(0);
    types[C_BLOB] = sql_type_make(TYPE_BLOB);
    types[C_DATE] = sql_type_make(TYPE_DATE);
    types[C_TS] = sql_type_make(TYPE_TIMESTAMP);
    types[C_IV] = sql_type_make(TYPE_INTERVAL);
}

#define LONG_STR 10000 /* longer than a page: the record overflows */

/* expected writes the value of column col in the row with rowid id (version tag: updates use
** another tag) into *out; strings are built in buf (LONG_STR + 64 bytes). */
static inline void expected(int64_t id, uint32_t col, uint32_t tag, char *buf, sql_value *out) {
    uint64_t h = (uint64_t)id * 0x9E3779B97F4A7C15ull + tag * 0x632BE59BD9B4E5ull;
    uint64_t m = (id < 0 ? 0 - (uint64_t)id : (uint64_t)id) + tag;
    if ((m * 7 + col) % 13 == 0) {
        *out = value_null(types[col]);
        return;
    }
    switch (col) {
    case C_BOOL: *out = value_bool(m & 1); break;
    case C_I16: *out = value_int(TYPE_SMALLINT, m % 5 == 1 ? INT16_MIN : m % 5 == 2 ? INT16_MAX : (int16_t)h); break;
    case C_I32: *out = value_int(TYPE_INTEGER, m % 5 == 1 ? INT32_MIN : m % 5 == 2 ? INT32_MAX : (int32_t)h); break;
    case C_I64: *out = value_int(TYPE_BIGINT, m % 5 == 1 ? INT64_MIN : m % 5 == 2 ? INT64_MAX : (int64_t)h); break;
    case C_F64: {
        double d = m % 6 == 0 ? NAN : m % 6 == 1 ? -0.0 : m % 6 == 2 ? -INFINITY : m % 6 == 3 ? 1e300 : (double)id * 1.5 - 77.25;
        *out = value_double(d);
        break;
    }
    case C_DEC: *out = value_decimal((int64_t)(m * 12345) - 999999, 18, 2); break;
    case C_STR: {
        size_t len = m % 97 == 5 ? LONG_STR : m % 97 == 6 ? 0 : m % 40;
        for (size_t i = 0; i < len; i++) buf[i] = (char)('a' + (h >> (i % 50)) % 26);
        *out = value_text(buf, (uint32_t)len);
        break;
    }
    case C_BLOB: {
        size_t len = m % 20;
        for (size_t i = 0; i < len; i++) buf[i] = (char)(i % 3 == 0 ? 0 : (h >> i) & 0xff);
        *out = value_blob(buf, (uint32_t)len);
        break;
    }
    case C_DATE: *out = value_date((int32_t)(m % 50000) - 20000); break;
    case C_TS: *out = value_timestamp((int64_t)(h >> 2) * (m & 1 ? -1 : 1)); break;
    case C_IV: {
        sql_interval iv = {(int32_t)(m % 25) - 12, -(int32_t)(m % 40), (int64_t)(h >> 8) * (m & 1 ? -1 : 1)};
        *out = value_interval(iv);
        break;
    }
    }
}

/* put_value stores x as row r of the writable vector v. */
static inline void put_value(vector *v, uint32_t r, const sql_value *x) {
    if (x->is_null) {
        vec_set_null(v, r, 1);
        return;
    }
    vec_set_null(v, r, 0);
    switch (v->phys) {
    case PHYS_BOOL: VEC_DATA(v, uint8_t)[r] = (uint8_t)x->v.i; break;
    case PHYS_I16: VEC_DATA(v, int16_t)[r] = (int16_t)x->v.i; break;
    case PHYS_I32: VEC_DATA(v, int32_t)[r] = (int32_t)x->v.i; break;
    case PHYS_I64: VEC_DATA(v, int64_t)[r] = x->v.i; break;
    case PHYS_F64: VEC_DATA(v, double)[r] = x->v.d; break;
    case PHYS_INTERVAL: VEC_DATA(v, sql_interval)[r] = x->v.iv; break;
    case PHYS_STR: cr_assert_eq(vec_set_str(v, r, sstr_data(&x->v.s), x->v.s.len, NULL), STRATA_OK); break;
    }
}

/* check_value asserts that row r of v holds x exactly (doubles bit for bit). */
static inline void check_value(const vector *v, uint32_t r, const sql_value *x, int64_t id, uint32_t col) {
    int is_null = vec_is_null(v, r);
    cr_assert_eq(is_null, x->is_null, "rowid %lld column %u: NULL %d, expected %d", (long long)id, col, is_null,
                 x->is_null);
    if (is_null) return;
    uint32_t i = vec_index(v, r);
    switch (v->phys) {
    case PHYS_BOOL: cr_assert_eq(VEC_DATA(v, uint8_t)[i], x->v.i, "rowid %lld col %u", (long long)id, col); break;
    case PHYS_I16: cr_assert_eq(VEC_DATA(v, int16_t)[i], x->v.i, "rowid %lld col %u", (long long)id, col); break;
    case PHYS_I32: cr_assert_eq(VEC_DATA(v, int32_t)[i], x->v.i, "rowid %lld col %u", (long long)id, col); break;
    case PHYS_I64: cr_assert_eq(VEC_DATA(v, int64_t)[i], x->v.i, "rowid %lld col %u", (long long)id, col); break;
    case PHYS_F64:
        cr_assert(memcmp(&VEC_DATA(v, double)[i], &x->v.d, 8) == 0, "rowid %lld col %u: %g vs %g", (long long)id,
                  col, VEC_DATA(v, double)[i], x->v.d);
        break;
    case PHYS_INTERVAL: {
        sql_interval a = VEC_DATA(v, sql_interval)[i];
        cr_assert(a.months == x->v.iv.months && a.days == x->v.iv.days && a.micros == x->v.iv.micros,
                  "rowid %lld interval differs", (long long)id);
        break;
    }
    case PHYS_STR: {
        const sstr *s = &VEC_DATA(v, sstr)[i];
        cr_assert_eq(s->len, x->v.s.len, "rowid %lld col %u: length %u, expected %u", (long long)id, col, s->len,
                     x->v.s.len);
        cr_assert(memcmp(sstr_data(s), sstr_data(&x->v.s), s->len) == 0, "rowid %lld col %u: bytes differ",
                  (long long)id, col);
        break;
    }
    }
}

static inline table_desc desc(pgno_t root) {
    table_desc td = {.root = root, .ncols = NCOLS, .types = types, .defaults = NULL};
    return td;
}

/* insert_ids inserts the rows with the given rowids (values from expected(), tag) in chunks. */
static inline void insert_ids(pager_txn *t, const table_desc *td, const int64_t *ids, size_t n, uint32_t tag) {
    data_chunk c;
    char *buf = malloc(LONG_STR + 64);
    cr_assert_eq(chunk_init(&c, td->types, td->ncols, NULL), STRATA_OK);
    for (size_t at = 0; at < n;) {
        chunk_reset(&c);
        uint32_t k = 0;
        for (; k < VECTOR_SIZE && at + k < n; k++)
            for (uint32_t col = 0; col < td->ncols; col++) {
                sql_value x;
                expected(ids[at + k], col, tag, buf, &x);
                put_value(&c.cols[col], k, &x);
            }
        c.count = k;
        OK(t, table_insert(t, td, &c, NULL, k, ids + at));
        at += k;
    }
    chunk_free(&c);
    free(buf);
}

static inline void insert_range(pager_txn *t, const table_desc *td, int64_t first, size_t n) {
    int64_t *ids = malloc(n * sizeof *ids);
    for (size_t i = 0; i < n; i++) ids[i] = first + (int64_t)i;
    insert_ids(t, td, ids, n, 0);
    free(ids);
}

/* scan_rows scans columns cols[0..ncols) over [lo, hi] and checks that it returns exactly the
** rowids ids[0..n) in order with their values of version tags[i] (tags NULL: all 0), in full
** chunks but for the last when full_chunks; returns the number of chunks. */
static inline int scan_rows(pager_txn *t, const table_desc *td, const uint32_t *cols, uint32_t ncols, int64_t lo,
                            int64_t hi, const int64_t *ids, size_t n, const uint32_t *tags, int full_chunks) {
    sql_type ptypes[32];
    for (uint32_t k = 0; k < ncols; k++) ptypes[k] = td->types[cols[k]];
    data_chunk c;
    cr_assert_eq(chunk_init(&c, ptypes, ncols, NULL), STRATA_OK);
    table_scan *s;
    OK(t, table_scan_open(t, td, cols, ncols, lo, hi, &s));
    int64_t rowids[VECTOR_SIZE];
    char *buf = malloc(LONG_STR + 64);
    size_t seen = 0;
    int chunks = 0;
    for (;;) {
        OK(t, table_scan_next(s, &c, rowids));
        if (c.count == 0) break;
        chunks++;
        cr_assert(!full_chunks || c.count == VECTOR_SIZE || seen + c.count == n, "short chunk of %u rows before the end",
                  c.count);
        for (uint32_t r = 0; r < c.count; r++, seen++) {
            cr_assert_lt(seen, n, "scan returned more than %zu rows", n);
            cr_assert_eq(rowids[r], ids[seen], "row %zu: rowid %lld, expected %lld", seen, (long long)rowids[r],
                         (long long)ids[seen]);
            for (uint32_t k = 0; k < ncols; k++) {
                sql_value x;
                expected(ids[seen], cols[k], tags ? tags[seen] : 0, buf, &x);
                check_value(&c.cols[k], r, &x, ids[seen], cols[k]);
            }
        }
    }
    cr_assert_eq(seen, n, "scan returned %zu rows, expected %zu", seen, n);
    OK(t, table_scan_next(s, &c, rowids)); /* stays at the end */
    cr_assert_eq(c.count, 0);
    table_scan_close(s);
    chunk_free(&c);
    free(buf);
    return chunks;
}

static inline int scan_check(pager_txn *t, const table_desc *td, const uint32_t *cols, uint32_t ncols, int64_t lo,
                             int64_t hi, const int64_t *ids, size_t n, const uint32_t *tags) {
    return scan_rows(t, td, cols, ncols, lo, hi, ids, n, tags, 1);
}

/* ---- fixture: one pager over a private in-memory file system ------------------------------ */

static vfs *fs;
static pager *db;
static strata_err err;

/* table_setup opens the pager (a Criterion .init); table_teardown closes it (.fini). */
static inline void table_setup(void) {
    fs = vfs_mem_create();
    cr_assert_not_null(fs);
    pager_config cfg = {.page_size = 8192, .no_sync = 1};
    memset(&err, 0, sizeof err);
    cr_assert_eq(pager_open(fs, "t.db", &cfg, &db, &err), STRATA_OK, "pager_open: %s", err.msg);
    init_types();
}

static inline void table_teardown(void) {
    pager_close(db);
    vfs_destroy(fs);
}

static inline pager_txn *begin(int write) {
    pager_txn *t;
    cr_assert_eq(pager_begin(db, write, &t, &err), STRATA_OK, "pager_begin: %s", err.msg);
    return t;
}

static inline void commit(pager_txn *t) { cr_assert_eq(pager_commit(t, &err), STRATA_OK, "commit: %s", err.msg); }

static const uint32_t ALL[NCOLS] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

#endif
