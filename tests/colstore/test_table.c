/*
** test_table.c -- the table access layer (colstore/table.h) over an in-memory database: every
** type round-trips through insert and scan (NULLs, empty and overflowing strings, extreme
** integers, NaN and -0.0, intervals), projections with repeated and reordered columns, rowid
** ranges, chunk boundaries, records that predate added columns, point gets, updates, deletes,
** rowid uniqueness, corrupt records, scans that write between chunks, and index entries with
** prefix lookups and range scans.
*/
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../colstore/table.h"
#include "../../core/vfs.h"
#include "helpers/table_rows.h"
#include "helpers/workload.h"

TestSuite(table, .init = table_setup, .fini = table_teardown);

static pgno_t create_tree(void) {
    pager_txn *t = begin(1);
    pgno_t root;
    OK(t, btree_create(t, &root));
    commit(t);
    return root;
}

/* ---- round trips and scans ---------------------------------------------------------------- */

Test(table, every_type_round_trips_across_chunks) {
    init_types();
    pgno_t root = create_tree();
    table_desc td = desc(root);
    enum { N = 5000 };
    pager_txn *t = begin(1);
    insert_range(t, &td, 1, N);
    commit(t);
    int64_t *ids = malloc(N * sizeof *ids);
    for (int i = 0; i < N; i++) ids[i] = i + 1;
    t = begin(0);
    cr_assert_eq(scan_check(t, &td, ALL, NCOLS, INT64_MIN, INT64_MAX, ids, N, NULL), 3); /* 2048 + 2048 + 904 */
    int64_t max = 0;
    OK(t, table_max_rowid(t, &td, &max));
    cr_assert_eq(max, N);
    pager_rollback(t);
    /* The same through a write transaction's cursor, which copies values. */
    t = begin(1);
    scan_check(t, &td, ALL, NCOLS, INT64_MIN, INT64_MAX, ids, N, NULL);
    pager_rollback(t);
    free(ids);
}

Test(table, projections_repeat_and_reorder_columns) {
    init_types();
    table_desc td = desc(create_tree());
    enum { N = 3000 };
    pager_txn *t = begin(1);
    insert_range(t, &td, 100, N);
    commit(t);
    int64_t ids[N];
    for (int i = 0; i < N; i++) ids[i] = 100 + i;
    t = begin(0);
    const uint32_t p1[] = {C_STR, C_I64, C_I64, C_BOOL, C_IV, C_STR};
    scan_check(t, &td, p1, 6, INT64_MIN, INT64_MAX, ids, N, NULL);
    const uint32_t p2[] = {C_IV};
    scan_check(t, &td, p2, 1, INT64_MIN, INT64_MAX, ids, N, NULL);
    const uint32_t p3[] = {C_BOOL};
    scan_check(t, &td, p3, 1, INT64_MIN, INT64_MAX, ids, N, NULL);
    scan_check(t, &td, NULL, 0, INT64_MIN, INT64_MAX, ids, N, NULL); /* rowids only (COUNT(*)) */
    pager_rollback(t);
}

Test(table, rowid_ranges) {
    init_types();
    table_desc td = desc(create_tree());
    int64_t ids[] = {INT64_MIN, -5000, -2, -1, 0, 1, 2, 3, 4097, 1ll << 40, INT64_MAX};
    enum { N = sizeof ids / sizeof ids[0] };
    pager_txn *t = begin(1);
    insert_ids(t, &td, ids, N, 0);
    commit(t);
    t = begin(0);
    const uint32_t p[] = {C_I64, C_STR};
    scan_check(t, &td, p, 2, INT64_MIN, INT64_MAX, ids, N, NULL);
    scan_check(t, &td, p, 2, -2, 3, ids + 2, 6, NULL);     /* inclusive at both ends */
    scan_check(t, &td, p, 2, -3, 2, ids + 2, 5, NULL);     /* bounds between rows */
    scan_check(t, &td, p, 2, 5, 4096, ids, 0, NULL);       /* nothing inside */
    scan_check(t, &td, p, 2, 3, 2, ids, 0, NULL);          /* lo > hi */
    scan_check(t, &td, p, 2, INT64_MAX, INT64_MAX, ids + N - 1, 1, NULL);
    scan_check(t, &td, p, 2, INT64_MIN, INT64_MIN, ids, 1, NULL);
    int64_t max = 0;
    OK(t, table_max_rowid(t, &td, &max));
    cr_assert_eq(max, INT64_MAX);
    pager_rollback(t);
}

Test(table, max_rowid_of_empty_and_negative_tables) {
    init_types();
    table_desc td = desc(create_tree());
    pager_txn *t = begin(1);
    int64_t max = 7;
    OK(t, table_max_rowid(t, &td, &max));
    cr_assert_eq(max, 0);
    int64_t ids[] = {-10, -3};
    insert_ids(t, &td, ids, 2, 0);
    OK(t, table_max_rowid(t, &td, &max));
    cr_assert_eq(max, -3);
    commit(t);
}

Test(table, fewer_stored_columns_read_defaults) {
    init_types();
    pgno_t root = create_tree();
    /* Written when the table had 3 columns (BOOLEAN, SMALLINT, INTEGER). */
    table_desc old = {.root = root, .ncols = 3, .types = types, .defaults = NULL};
    enum { N = 2100 };
    pager_txn *t = begin(1);
    insert_range(t, &old, 1, N);
    commit(t);
    /* Now it has them all; C_I64 defaults to 42, C_STR to a long string, the rest to NULL. */
    const char *dstr = "a default longer than twelve bytes";
    sql_value defaults[NCOLS];
    for (int i = 0; i < NCOLS; i++) defaults[i] = value_null(types[i]);
    defaults[C_I64] = value_int(TYPE_BIGINT, 42);
    defaults[C_STR] = value_text(dstr, (uint32_t)strlen(dstr));
    defaults[C_IV] = value_interval((sql_interval){1, 2, 3});
    table_desc now = {.root = root, .ncols = NCOLS, .types = types, .defaults = defaults};
    /* A row written after the change stores every column. */
    t = begin(1);
    int64_t late = N + 1;
    insert_ids(t, &now, &late, 1, 0);
    commit(t);

    const uint32_t p[] = {C_I64, C_I16, C_STR, C_F64, C_IV, C_STR};
    data_chunk c;
    sql_type pt[6];
    for (int k = 0; k < 6; k++) pt[k] = types[p[k]];
    cr_assert_eq(chunk_init(&c, pt, 6, &err), STRATA_OK);
    char buf[LONG_STR + 64];
    t = begin(0);
    table_scan *s;
    OK(t, table_scan_open(t, &now, p, 6, INT64_MIN, INT64_MAX, &s));
    int64_t rowids[VECTOR_SIZE];
    int64_t seen = 0;
    for (;;) {
        OK(t, table_scan_next(s, &c, rowids));
        if (c.count == 0) break;
        for (uint32_t r = 0; r < c.count; r++) {
            int64_t id = rowids[r];
            seen++;
            sql_value x;
            expected(id, C_I16, 0, buf, &x);
            check_value(&c.cols[1], r, &x, id, C_I16);
            if (id == late) {
                expected(id, C_I64, 0, buf, &x);
                check_value(&c.cols[0], r, &x, id, C_I64);
                expected(id, C_STR, 0, buf, &x);
                check_value(&c.cols[2], r, &x, id, C_STR);
                check_value(&c.cols[5], r, &x, id, C_STR);
                continue;
            }
            check_value(&c.cols[0], r, &defaults[C_I64], id, C_I64);
            check_value(&c.cols[2], r, &defaults[C_STR], id, C_STR);
            check_value(&c.cols[3], r, &defaults[C_F64], id, C_F64);
            check_value(&c.cols[4], r, &defaults[C_IV], id, C_IV);
            check_value(&c.cols[5], r, &defaults[C_STR], id, C_STR);
        }
    }
    cr_assert_eq(seen, N + 1);
    table_scan_close(s);
    /* Without defaults the missing columns are NULL. */
    table_desc nodef = now;
    nodef.defaults = NULL;
    chunk_reset(&c);
    int64_t one = 7;
    uint8_t found = 0;
    OK(t, table_get(t, &nodef, p, 6, &one, 1, &c, &found));
    cr_assert(found);
    cr_assert_eq(c.count, 1);
    cr_assert(vec_is_null(&c.cols[0], 0) && vec_is_null(&c.cols[2], 0) && vec_is_null(&c.cols[4], 0));
    pager_rollback(t);
    chunk_free(&c);
}

/* ---- point reads and writes --------------------------------------------------------------- */

Test(table, get_reads_in_the_given_order_and_skips_missing_rows) {
    init_types();
    table_desc td = desc(create_tree());
    pager_txn *t = begin(1);
    insert_range(t, &td, 1, 3000);
    commit(t);
    const uint32_t p[] = {C_STR, C_I32, C_F64};
    sql_type pt[3] = {types[C_STR], types[C_I32], types[C_F64]};
    data_chunk c;
    cr_assert_eq(chunk_init(&c, pt, 3, &err), STRATA_OK);
    char buf[LONG_STR + 64];
    t = begin(0);
    /* Start at row 2 of a chunk that already holds two rows (one NULL). */
    OK(t, table_get(t, &td, p, 3, (int64_t[]){13, 26}, 2, &c, NULL));
    cr_assert_eq(c.count, 2);
    int64_t want[] = {2999, 5, 0, 3001, 1000, 5, -7};
    uint8_t found[7];
    OK(t, table_get(t, &td, p, 3, want, 7, &c, found));
    uint8_t found_exp[] = {1, 1, 0, 0, 1, 1, 0};
    cr_assert(memcmp(found, found_exp, 7) == 0);
    int64_t rows[] = {13, 26, 2999, 5, 1000, 5};
    cr_assert_eq(c.count, 6);
    for (uint32_t r = 0; r < 6; r++)
        for (uint32_t k = 0; k < 3; k++) {
            sql_value x;
            expected(rows[r], p[k], 0, buf, &x);
            check_value(&c.cols[k], r, &x, rows[r], p[k]);
        }
    /* Too many rows for the chunk is a misuse, not an overflow. */
    int64_t many[VECTOR_SIZE] = {0};
    cr_assert_eq(table_get(t, &td, p, 3, many, VECTOR_SIZE, &c, NULL), STRATA_MISUSE);
    pager_rollback(t);
    chunk_free(&c);
}

Test(table, update_and_delete) {
    init_types();
    table_desc td = desc(create_tree());
    enum { N = 4500 };
    pager_txn *t = begin(1);
    insert_range(t, &td, 1, N);
    commit(t);
    /* Update every third row to version 1 and delete every fifth (not the updated ones). */
    int64_t upd[N], del[N], keep[N];
    uint32_t keep_tag[N];
    size_t nupd = 0, ndel = 0, nkeep = 0;
    for (int64_t id = 1; id <= N; id++) {
        if (id % 3 == 0)
            upd[nupd++] = id;
        else if (id % 5 == 0)
            del[ndel++] = id;
        if (id % 3 == 0 || id % 5 != 0) {
            keep_tag[nkeep] = id % 3 == 0;
            keep[nkeep++] = id;
        }
    }
    t = begin(1);
    /* table_update takes chunks with a selection on top of a lazy chunk selection. */
    data_chunk c;
    char *buf = malloc(LONG_STR + 64);
    cr_assert_eq(chunk_init(&c, types, NCOLS, &err), STRATA_OK);
    for (size_t at = 0; at < nupd;) {
        chunk_reset(&c);
        uint32_t k = 0;
        for (; k < VECTOR_SIZE / 2 && at + k < nupd; k++)
            for (uint32_t col = 0; col < NCOLS; col++) {
                sql_value x;
                expected(upd[at + k], col, 1, buf, &x);
                put_value(&c.cols[col], 2 * k + 1, &x); /* odd rows: the real ones */
                expected(-1, col, 9, buf, &x);
                put_value(&c.cols[col], 2 * k, &x); /* even rows: filtered out */
            }
        c.count = 2 * k;
        sel_t odd[VECTOR_SIZE / 2], rev[VECTOR_SIZE / 2];
        int64_t rids[VECTOR_SIZE / 2];
        for (uint32_t i = 0; i < k; i++) odd[i] = 2 * i + 1;
        chunk_slice(&c, odd, k); /* the chunk's rows are now the odd ones */
        for (uint32_t i = 0; i < k; i++) {
            rev[i] = k - 1 - i; /* and the caller's selection reverses them */
            rids[i] = upd[at + k - 1 - i];
        }
        OK(t, table_update(t, &td, &c, rev, k, rids));
        at += k;
    }
    OK(t, table_delete(t, &td, del, (uint32_t)ndel));
    commit(t);

    t = begin(0);
    scan_check(t, &td, ALL, NCOLS, INT64_MIN, INT64_MAX, keep, nkeep, keep_tag);
    pager_rollback(t);
    chunk_free(&c);
    free(buf);
}

Test(table, missing_rows_are_notfound_for_update_and_delete) {
    init_types();
    table_desc td = desc(create_tree());
    pager_txn *t = begin(1);
    insert_range(t, &td, 1, 10);
    commit(t);
    t = begin(1);
    int64_t gone = 11;
    cr_assert_eq(table_delete(t, &td, &gone, 1), STRATA_NOTFOUND);
    cr_assert(strstr(pager_txn_err(t)->msg, "rowid 11") != NULL, "%s", pager_txn_err(t)->msg);
    pager_rollback(t);
    t = begin(1);
    data_chunk c;
    cr_assert_eq(chunk_init(&c, types, NCOLS, &err), STRATA_OK);
    char buf[LONG_STR + 64];
    for (uint32_t col = 0; col < NCOLS; col++) {
        sql_value x;
        expected(0, col, 0, buf, &x);
        put_value(&c.cols[col], 0, &x);
    }
    c.count = 1;
    cr_assert_eq(table_update(t, &td, &c, NULL, 1, &gone), STRATA_NOTFOUND);
    pager_rollback(t);
    chunk_free(&c);
}

Test(table, duplicate_rowids_violate_the_constraint) {
    init_types();
    table_desc td = desc(create_tree());
    pager_txn *t = begin(1);
    insert_range(t, &td, 1, 100);
    commit(t);
    data_chunk c;
    cr_assert_eq(chunk_init(&c, types, NCOLS, &err), STRATA_OK);
    char buf[LONG_STR + 64];
    for (uint32_t r = 0; r < 3; r++)
        for (uint32_t col = 0; col < NCOLS; col++) {
            sql_value x;
            expected(r, col, 0, buf, &x);
            put_value(&c.cols[col], r, &x);
        }
    c.count = 3;
    /* A rowid already stored, below the largest. */
    t = begin(1);
    int64_t old[] = {500, 50, 501};
    cr_assert_eq(table_insert(t, &td, &c, NULL, 3, old), STRATA_CONSTRAINT);
    cr_assert(strstr(pager_txn_err(t)->msg, "rowid 50 ") != NULL, "%s", pager_txn_err(t)->msg);
    pager_rollback(t);
    /* A rowid repeated within one call, beyond the largest (the append path). */
    t = begin(1);
    int64_t twice[] = {200, 300, 200};
    cr_assert_eq(table_insert(t, &td, &c, NULL, 3, twice), STRATA_CONSTRAINT);
    pager_rollback(t);
    t = begin(1);
    int64_t again[] = {300, 300, 400};
    cr_assert_eq(table_insert(t, &td, &c, NULL, 3, again), STRATA_CONSTRAINT);
    pager_rollback(t);
    /* Into an empty table. */
    table_desc empty = desc(create_tree());
    t = begin(1);
    int64_t dup[] = {7, 7, 8};
    cr_assert_eq(table_insert(t, &empty, &c, NULL, 3, dup), STRATA_CONSTRAINT);
    pager_rollback(t);
    /* Nothing of the failed statements is visible; the table is as it was. */
    t = begin(0);
    int64_t ids[100];
    for (int i = 0; i < 100; i++) ids[i] = i + 1;
    scan_check(t, &td, ALL, NCOLS, INT64_MIN, INT64_MAX, ids, 100, NULL);
    pager_rollback(t);
    chunk_free(&c);
}

Test(table, writes_need_a_write_transaction_and_matching_chunks) {
    init_types();
    table_desc td = desc(create_tree());
    data_chunk c;
    cr_assert_eq(chunk_init(&c, types, NCOLS - 1, &err), STRATA_OK);
    c.count = 0;
    int64_t id = 1;
    pager_txn *t = begin(0);
    cr_assert_eq(table_insert(t, &td, &c, NULL, 1, &id), STRATA_READONLY);
    pager_rollback(t);
    t = begin(1);
    cr_assert_eq(table_insert(t, &td, &c, NULL, 1, &id), STRATA_MISUSE);
    pager_rollback(t);
    chunk_free(&c);
}

/* ---- corrupt records ---------------------------------------------------------------------- */

/* A record for a table of (BIGINT, VARCHAR, DOUBLE, BOOLEAN, INTERVAL). */
static const sql_type_id CORRUPT_TYPES[] = {TYPE_BIGINT, TYPE_VARCHAR, TYPE_DOUBLE, TYPE_BOOLEAN, TYPE_INTERVAL};

typedef struct bad_record {
    const char *what;
    uint8_t bytes[32];
    size_t len;
} bad_record;

static const bad_record BAD[] = {
    {"empty record", {0}, 0},
    {"column count varint runs off the end", {0x85}, 1},
    {"column count varint of eleven bytes", {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 11},
    {"more columns than the table", {6, 0}, 2},
    {"NULL bitmap missing", {5}, 1},
    {"BIGINT varint truncated", {5, 0x00, 0x80, 0x80}, 4},
    {"BIGINT varint too long", {5, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, 12},
    {"string length past the end", {5, 0x00, 0x02, 0x10, 'a', 'b'}, 6},
    {"string length huge", {5, 0x00, 0x02, 0xff, 0xff, 0xff, 0xff, 0x0f, 'a'}, 8},
    {"DOUBLE truncated", {5, 0x00, 0x02, 0x01, 'a', 1, 2, 3}, 8},
    {"BOOLEAN of 7", {5, 0x00, 0x02, 0x01, 'a', 0, 0, 0, 0, 0, 0, 0, 0, 7}, 14},
    {"INTERVAL truncated", {5, 0x00, 0x02, 0x01, 'a', 0, 0, 0, 0, 0, 0, 0, 0, 1, 2}, 15},
    {"INTERVAL months out of range", {5, 0x00, 0x02, 0x01, 'a', 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0}, 21},
};

static void expect_corrupt(pager_txn *t, int rc, pgno_t root, int64_t rowid, const char *what) {
    cr_assert_eq(rc, STRATA_CORRUPT, "%s: %s (%s)", what, strata_errstr(rc), pager_txn_err(t)->msg);
    const char *msg = pager_txn_err(t)->msg;
    char want[64];
    cr_assert(wl_mentions_page(msg, root), "%s: message does not name root page %u: %s", what, (unsigned)root, msg);
    snprintf(want, sizeof want, "rowid %lld", (long long)rowid);
    cr_assert(strstr(msg, want) != NULL, "%s: message does not name %s: %s", what, want, msg);
    err_clear(pager_txn_err(t));
}

Test(table, corrupt_records_are_reported_not_crashed_on) {
    sql_type ct[5];
    for (int i = 0; i < 5; i++) ct[i] = sql_type_make(CORRUPT_TYPES[i]);
    pgno_t root = create_tree();
    table_desc td = {.root = root, .ncols = 5, .types = ct, .defaults = NULL};
    const size_t nbad = sizeof BAD / sizeof BAD[0];
    /* Good rows around each bad one: rowid 10*i is bad, 10*i+1 is good. */
    pager_txn *t = begin(1);
    for (size_t i = 0; i < nbad; i++) {
        uint8_t key[ROWID_KEY_LEN];
        rowid_encode((int64_t)(10 * i + 10), key);
        OK(t, btree_put(t, root, key, sizeof key, BAD[i].bytes, BAD[i].len));
        static const uint8_t good[] = {5, 0x00, 0x00, 0x01, 'a', 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 1, 2, 4, 6};
        rowid_encode((int64_t)(10 * i + 11), key);
        OK(t, btree_put(t, root, key, sizeof key, good, sizeof good));
    }
    commit(t);
    data_chunk c;
    cr_assert_eq(chunk_init(&c, ct, 5, &err), STRATA_OK);
    const uint32_t all[] = {0, 1, 2, 3, 4};
    t = begin(0);
    for (size_t i = 0; i < nbad; i++) {
        int64_t bad = (int64_t)(10 * i + 10), good = bad + 1;
        /* A scan of the bad row alone, of all columns. */
        table_scan *s;
        OK(t, table_scan_open(t, &td, all, 5, bad, good, &s));
        expect_corrupt(t, table_scan_next(s, &c, NULL), root, bad, BAD[i].what);
        table_scan_close(s);
        chunk_reset(&c);
        expect_corrupt(t, table_get(t, &td, all, 5, &bad, 1, &c, NULL), root, bad, BAD[i].what);
        /* The good row next to it reads. */
        chunk_reset(&c);
        OK(t, table_get(t, &td, all, 5, &good, 1, &c, NULL));
        cr_assert_eq(c.count, 1);
        cr_assert_eq(VEC_DATA(&c.cols[0], int64_t)[0], 0);
        cr_assert_eq(VEC_DATA(&c.cols[2], double)[0], 1.0);
        cr_assert_eq(VEC_DATA(&c.cols[4], sql_interval)[0].micros, 3);
    }
    pager_rollback(t);
    chunk_free(&c);
}

Test(table, a_key_that_is_not_a_rowid_is_corrupt) {
    init_types();
    pgno_t root = create_tree();
    table_desc td = desc(root);
    pager_txn *t = begin(1);
    OK(t, btree_put(t, root, "abc", 3, "", 0));
    commit(t);
    t = begin(0);
    table_scan *s;
    data_chunk c;
    cr_assert_eq(chunk_init(&c, types, NCOLS, &err), STRATA_OK);
    OK(t, table_scan_open(t, &td, ALL, NCOLS, INT64_MIN, INT64_MAX, &s));
    cr_assert_eq(table_scan_next(s, &c, NULL), STRATA_CORRUPT);
    cr_assert(wl_mentions_page(pager_txn_err(t)->msg, root), "%s", pager_txn_err(t)->msg);
    table_scan_close(s);
    pager_rollback(t);
    chunk_free(&c);
}

/* ---- scans in write transactions ---------------------------------------------------------- */

/* An UPDATE reads a chunk, then rewrites those rows (here with much longer strings, which splits
** leaves) before it reads the next chunk: every row must still be seen exactly once. */
Test(table, a_write_scan_survives_writes_between_chunks) {
    init_types();
    table_desc td = desc(create_tree());
    enum { N = 6000 };
    pager_txn *t = begin(1);
    insert_range(t, &td, 1, N);
    commit(t);
    t = begin(1);
    data_chunk c, w;
    cr_assert_eq(chunk_init(&c, types, NCOLS, &err), STRATA_OK);
    cr_assert_eq(chunk_init(&w, types, NCOLS, &err), STRATA_OK);
    char *buf = malloc(LONG_STR + 64);
    table_scan *s;
    OK(t, table_scan_open(t, &td, ALL, NCOLS, INT64_MIN, INT64_MAX, &s));
    int64_t rowids[VECTOR_SIZE];
    int64_t next = 1, deleted = 0, seen = 0;
    for (;;) {
        OK(t, table_scan_next(s, &c, rowids));
        if (c.count == 0) break;
        chunk_reset(&w);
        for (uint32_t r = 0; r < c.count; r++, seen++) {
            if (next == deleted) next++;
            cr_assert_eq(rowids[r], next, "rowid %lld, expected %lld", (long long)rowids[r], (long long)next);
            next++;
            for (uint32_t col = 0; col < NCOLS; col++) {
                sql_value x;
                expected(rowids[r], col, 0, buf, &x);
                check_value(&c.cols[col], r, &x, rowids[r], col);
                expected(rowids[r], col, 2, buf, &x);
                put_value(&w.cols[col], r, &x);
            }
        }
        w.count = c.count;
        OK(t, table_update(t, &td, &w, NULL, c.count, rowids));
        /* and delete a row ahead of the scan */
        int64_t ahead = rowids[c.count - 1] + 2;
        if (ahead <= N) {
            OK(t, table_delete(t, &td, &ahead, 1));
            deleted = ahead;
        }
    }
    table_scan_close(s);
    commit(t);
    chunk_free(&c);
    chunk_free(&w);
    free(buf);
    cr_assert_eq(next, N + 1, "the scan ended at %lld", (long long)next);
    cr_assert_eq(seen, N - 2); /* two rows were deleted ahead of it */
}

/* ---- indexes ------------------------------------------------------------------------------ */

/* key_of appends the key of (name, n) for the index tests. */
static void key_of(btree_buf *b, const char *name, int64_t n) {
    b->len = 0;
    sql_value v = value_text(name, (uint32_t)strlen(name));
    cr_assert_eq(key_encode(b, &v, &err), STRATA_OK);
    v = value_int(TYPE_INTEGER, n);
    cr_assert_eq(key_encode(b, &v, &err), STRATA_OK);
}

Test(table, index_entries_and_prefix_lookups) {
    pgno_t root = create_tree();
    btree_buf k = {0}, prefix = {0};
    pager_txn *t = begin(1);
    /* ("ab", 1) under rowids 30, 10, 20; ("ab", 2) under 5; ("abc", 1) under 1; ("a", 1) under 2. */
    key_of(&k, "ab", 1);
    OK(t, index_insert(t, root, k.data, k.len, 30));
    OK(t, index_insert(t, root, k.data, k.len, 10));
    OK(t, index_insert(t, root, k.data, k.len, 20));
    key_of(&k, "ab", 2);
    OK(t, index_insert(t, root, k.data, k.len, 5));
    key_of(&k, "abc", 1);
    OK(t, index_insert(t, root, k.data, k.len, 1));
    key_of(&k, "a", 1);
    OK(t, index_insert(t, root, k.data, k.len, 2));
    commit(t);

    t = begin(0);
    int64_t rowid = 0;
    key_of(&k, "ab", 1);
    OK(t, index_find_first(t, root, k.data, k.len, &rowid));
    cr_assert_eq(rowid, 10);
    /* A prefix of whole values: the first column alone finds ("ab", 1) before ("ab", 2), and does
    ** not take "abc" or "a" for "ab". */
    sql_value v = value_text("ab", 2);
    prefix.len = 0;
    cr_assert_eq(key_encode(&prefix, &v, &err), STRATA_OK);
    OK(t, index_find_first(t, root, prefix.data, prefix.len, &rowid));
    cr_assert_eq(rowid, 10);
    key_of(&k, "ab", 3);
    cr_assert_eq(index_find_first(t, root, k.data, k.len, &rowid), STRATA_NOTFOUND);
    v = value_text("b", 1);
    prefix.len = 0;
    cr_assert_eq(key_encode(&prefix, &v, &err), STRATA_OK);
    cr_assert_eq(index_find_first(t, root, prefix.data, prefix.len, &rowid), STRATA_NOTFOUND);
    pager_rollback(t);

    t = begin(1);
    key_of(&k, "ab", 1);
    OK(t, index_delete(t, root, k.data, k.len, 10));
    OK(t, index_find_first(t, root, k.data, k.len, &rowid));
    cr_assert_eq(rowid, 20);
    cr_assert_eq(index_delete(t, root, k.data, k.len, 10), STRATA_NOTFOUND);
    pager_rollback(t);
    btree_buf_free(&k);
    btree_buf_free(&prefix);
}

/* The range test index: key (INTEGER i) for i in 0..NKEYS-1 with REPS rowids each (rowid
** i * REPS + j), and NULL keys under rowids beyond. */
enum { NKEYS = 1500, REPS = 3, NNULL = 4 };

static size_t int_key(uint8_t *out, int64_t i) {
    btree_buf b = {0};
    sql_value v = value_int(TYPE_INTEGER, i);
    cr_assert_eq(key_encode(&b, &v, &err), STRATA_OK);
    memcpy(out, b.data, b.len);
    size_t n = b.len;
    btree_buf_free(&b);
    return n;
}

static void range_expect(pager_txn *t, pgno_t root, int64_t lo, int lo_inc, int64_t hi, int hi_inc) {
    uint8_t lk[16], hk[16];
    size_t ll = lo >= 0 ? int_key(lk, lo) : 0, hl = hi >= 0 ? int_key(hk, hi) : 0;
    index_scan *s;
    OK(t, index_scan_open(t, root, lo >= 0 ? lk : NULL, ll, lo_inc, hi >= 0 ? hk : NULL, hl, hi_inc, &s));
    /* the expected rowids, in key order then rowid order */
    int64_t first_key = lo < 0 ? 0 : lo_inc ? lo : lo + 1;
    int64_t last_key = hi < 0 ? NKEYS - 1 : hi_inc ? hi : hi - 1;
    int64_t want = first_key * REPS;
    int64_t want_end = (last_key + 1) * REPS; /* exclusive */
    if (want_end < want) want_end = want;
    int with_nulls = hi < 0;
    int64_t got[37];
    uint32_t n;
    for (;;) {
        OK(t, index_scan_next(s, got, 37, &n));
        if (n == 0) break;
        for (uint32_t i = 0; i < n; i++) {
            if (want == want_end && with_nulls) want = NKEYS * REPS; /* then the NULL keys */
            cr_assert_eq(got[i], want, "range [%lld%s, %lld%s]: rowid %lld, expected %lld", (long long)lo,
                         lo_inc ? "" : ")", (long long)hi, hi_inc ? "" : ")", (long long)got[i], (long long)want);
            want++;
        }
    }
    if (with_nulls) {
        if (want == want_end) want = NKEYS * REPS;
        cr_assert_eq(want, NKEYS * REPS + NNULL, "range ended early at %lld", (long long)want);
    } else {
        cr_assert_eq(want, want_end, "range [%lld, %lld] ended at %lld, expected %lld", (long long)lo,
                     (long long)hi, (long long)want, (long long)want_end);
    }
    index_scan_close(s);
}

Test(table, index_range_scans) {
    pgno_t root = create_tree();
    pager_txn *t = begin(1);
    uint8_t k[16];
    /* inserted out of order */
    for (int64_t j = REPS - 1; j >= 0; j--)
        for (int64_t i = 0; i < NKEYS; i++) {
            int64_t key = (i * 7919) % NKEYS;
            size_t kl = int_key(k, key);
            OK(t, index_insert(t, root, k, kl, key * REPS + j));
        }
    btree_buf nb = {0};
    sql_value null = value_null(sql_type_make(TYPE_INTEGER));
    cr_assert_eq(key_encode(&nb, &null, &err), STRATA_OK);
    for (int64_t j = 0; j < NNULL; j++) OK(t, index_insert(t, root, nb.data, nb.len, NKEYS * REPS + j));
    commit(t);

    t = begin(0);
    range_expect(t, root, -1, 1, -1, 1);                 /* everything, NULLs last */
    range_expect(t, root, 10, 1, 20, 1);                 /* BETWEEN 10 AND 20 */
    range_expect(t, root, 10, 0, 20, 0);                 /* > 10 AND < 20 */
    range_expect(t, root, 10, 1, 20, 0);
    range_expect(t, root, 10, 0, 20, 1);
    range_expect(t, root, 10, 1, 10, 1);                 /* = 10 */
    range_expect(t, root, 10, 0, 10, 1);                 /* empty */
    range_expect(t, root, 0, 1, -1, 1);                  /* >= 0: every value and the NULLs */
    range_expect(t, root, NKEYS - 1, 0, -1, 1);          /* only the NULLs */
    range_expect(t, root, -1, 1, 0, 0);                  /* < 0: nothing */
    range_expect(t, root, -1, 1, NKEYS - 1, 1);          /* <= max: no NULLs */
    wl_rng rng;
    wl_rng_seed(&rng, 42);
    for (int i = 0; i < 200; i++) {
        int64_t lo = (int64_t)wl_rng_below(&rng, NKEYS + 1) - 1, hi = (int64_t)wl_rng_below(&rng, NKEYS + 1) - 1;
        if (hi >= 0 && lo > hi) continue;
        range_expect(t, root, lo, (int)wl_rng_below(&rng, 2), hi, (int)wl_rng_below(&rng, 2));
    }
    pager_rollback(t);
    /* The same in a write transaction, with entries deleted and added between batches. */
    t = begin(1);
    index_scan *s;
    OK(t, index_scan_open(t, root, NULL, 0, 1, NULL, 0, 1, &s));
    int64_t got[100];
    uint32_t n;
    int64_t want = 0, total = 0, ndeleted = 0;
    static uint8_t deleted[NKEYS];
    memset(deleted, 0, sizeof deleted);
    for (;;) {
        OK(t, index_scan_next(s, got, 100, &n));
        if (n == 0) break;
        for (uint32_t i = 0; i < n; i++, total++) {
            while (want < NKEYS * REPS && deleted[want / REPS]) want++;
            cr_assert_eq(got[i], want, "write scan: rowid %lld, expected %lld", (long long)got[i], (long long)want);
            want++;
        }
        int64_t key = got[n - 1] / REPS + 5;
        if (key < NKEYS) { /* delete the entries of a key ahead of the scan */
            size_t kl = int_key(k, key);
            for (int64_t j = 0; j < REPS; j++) OK(t, index_delete(t, root, k, kl, key * REPS + j));
            deleted[key] = 1;
            ndeleted++;
        }
        /* and add one behind it, which it must not see */
        size_t kl = int_key(k, 0);
        OK(t, index_insert(t, root, k, kl, 1000000 + total));
    }
    cr_assert_eq(total, NKEYS * REPS + NNULL - ndeleted * REPS);
    index_scan_close(s);
    pager_rollback(t);
    btree_buf_free(&nb);
}
