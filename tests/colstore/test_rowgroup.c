/*
** test_rowgroup.c -- the column store part of a table (colstore/rowgroup.h) behind the table
** layer: rows that migrate into row groups read back the same by scan, projection, rowid range
** and point read; deletes and updates of migrated rows; rowid uniqueness across both stores; the
** tuple mover's choice of rows; a scan that writes between chunks; a reader whose snapshot
** predates a migration; corrupt row-group entries reported with their row group and column.
*/
#include <criterion/criterion.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../colstore/rowgroup.h"
#include "../../colstore/segcache.h"
#include "../../core/vfs.h"
#include "helpers/table_rows.h"

TestSuite(rowgroup, .init = table_setup, .fini = table_teardown);

#define GROUP 5000 /* rows of a row group in these tests: three vectors, the last one partial */

/* make_table creates the row and column trees of a test table with GROUP-row groups. */
static table_desc make_table(void) {
    pager_txn *t = begin(1);
    table_desc td = desc(0);
    OK(t, btree_create(t, &td.root));
    OK(t, btree_create(t, &td.col_root));
    td.group_rows = GROUP;
    td.zstd_level = 3;
    commit(t);
    return td;
}

/* migrate runs the tuple mover for up to max groups and returns how many it wrote. */
static uint32_t migrate(const table_desc *td, uint32_t max) {
    pager_txn *t = begin(1);
    uint32_t moved = 0;
    OK(t, rowgroup_migrate(t, td, max, &moved));
    commit(t);
    return moved;
}

static int count_group(void *arg, const rowgroup_desc *d) {
    (void)d;
    (*(uint32_t *)arg)++;
    return STRATA_OK;
}

static uint32_t groups(const table_desc *td) {
    pager_txn *t = begin(0);
    uint32_t n = 0;
    OK(t, rowgroup_foreach(t, td, count_group, &n));
    pager_rollback(t);
    return n;
}

static int64_t *range_ids(int64_t first, size_t n, int64_t step) {
    int64_t *ids = malloc(n * sizeof *ids);
    for (size_t i = 0; i < n; i++) ids[i] = first + (int64_t)i * step;
    return ids;
}

static void load(const table_desc *td, const int64_t *ids, size_t n) {
    pager_txn *t = begin(1);
    insert_ids(t, td, ids, n, 0);
    commit(t);
}

/* check_all scans every column of the whole table and expects ids[0..n) with tags. */
static void check_all(const table_desc *td, const int64_t *ids, size_t n, const uint32_t *tags) {
    pager_txn *t = begin(0);
    scan_rows(t, td, ALL, NCOLS, INT64_MIN, INT64_MAX, ids, n, tags, 0);
    pager_rollback(t);
}

/* get_check reads rowid with every column and checks it is there (tag) or absent (tag < 0). */
static void get_check(pager_txn *t, const table_desc *td, int64_t rowid, int tag) {
    data_chunk c;
    cr_assert_eq(chunk_init(&c, types, NCOLS, NULL), STRATA_OK);
    c.count = 1; /* a row before: the read appends after it */
    uint8_t found = 9;
    OK(t, table_get(t, td, ALL, NCOLS, &rowid, 1, &c, &found));
    cr_assert_eq(found, tag >= 0, "rowid %lld: found %d", (long long)rowid, found);
    cr_assert_eq(c.count, tag >= 0 ? 2u : 1u);
    char *buf = malloc(LONG_STR + 64);
    for (uint32_t k = 0; tag >= 0 && k < NCOLS; k++) {
        sql_value x;
        expected(rowid, k, (uint32_t)tag, buf, &x);
        check_value(&c.cols[k], 1, &x, rowid, k);
    }
    free(buf);
    chunk_free(&c);
}

/* ---- a row filter before the other columns are decoded ------------------------------------- */

/* every_nth (table_row_filter) keeps the rows whose INTEGER is not NULL and a multiple of *arg. */
static uint32_t every_nth(void *arg, const vector *v, sel_t *keep, uint32_t n) {
    int32_t by = *(const int32_t *)arg;
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!vec_is_null(v, keep[i]) && VEC_DATA(v, int32_t)[keep[i]] % by == 0) keep[m++] = keep[i];
    return m;
}

/* A scan with a row filter on one column returns exactly the rows that pass (all are in row
** groups), each with every column's value: sparse (rows read one by one), about a quarter
** (strings read by row, the others decoded and compacted) and most rows (all decoded). */
Test(rowgroup, a_row_filter_keeps_exactly_its_rows_with_every_column) {
    table_desc td = make_table();
    int64_t *ids = range_ids(1, 3 * GROUP, 1);
    load(&td, ids, 3 * GROUP);
    cr_assert_eq(migrate(&td, 10), 3u);
    const int32_t bys[] = {64, 4, 1};
    char *buf = malloc(LONG_STR + 64);
    for (size_t b = 0; b < sizeof bys / sizeof bys[0]; b++) {
        size_t want = 0;
        for (size_t i = 0; i < 3 * GROUP; i++) {
            sql_value x;
            expected(ids[i], C_I32, 0, buf, &x);
            want += !x.is_null && (int32_t)x.v.i % bys[b] == 0;
        }
        pager_txn *t = begin(0);
        table_scan *s;
        OK(t, table_scan_open(t, &td, ALL, NCOLS, INT64_MIN, INT64_MAX, &s));
        table_scan_filter(s, C_I32, every_nth, (void *)&bys[b]);
        data_chunk c;
        cr_assert_eq(chunk_init(&c, types, NCOLS, NULL), STRATA_OK);
        int64_t rowids[VECTOR_SIZE], last = 0;
        size_t got = 0;
        for (;;) {
            chunk_reset(&c);
            OK(t, table_scan_next(s, &c, rowids));
            if (!c.count) break;
            for (uint32_t r = 0; r < c.count; r++, got++) {
                cr_assert_gt(rowids[r], last, "rowids in order");
                last = rowids[r];
                for (uint32_t k = 0; k < NCOLS; k++) {
                    sql_value x;
                    expected(rowids[r], k, 0, buf, &x);
                    check_value(&c.cols[k], r, &x, rowids[r], k);
                }
                cr_assert_eq(VEC_DATA(&c.cols[C_I32], int32_t)[vec_index(&c.cols[C_I32], r)] % bys[b], 0);
            }
        }
        cr_assert_eq(got, want, "every %d: %zu rows, want %zu", bys[b], got, want);
        chunk_free(&c);
        table_scan_close(s);
        pager_rollback(t);
    }
    free(buf);
    free(ids);
}

/* ---- migration keeps every value ---------------------------------------------------------- */

Test(rowgroup, migrated_rows_read_back_the_same_by_scan_range_and_get) {
    table_desc td = make_table();
    size_t n = 2 * GROUP + 1234;
    int64_t *ids = range_ids(-3000, n, 1);
    load(&td, ids, n);
    cr_assert_eq(migrate(&td, 10), 2, "two full row groups move, the rest waits");
    cr_assert_eq(groups(&td), 2);
    check_all(&td, ids, n, NULL);

    pager_txn *t = begin(0);
    uint32_t pending;
    OK(t, rowgroup_pending(t, &td, 100000, &pending));
    cr_assert_eq(pending, 1234, "the rows left in the row store: %u", pending);
    int64_t max;
    OK(t, table_max_rowid(t, &td, &max));
    cr_assert_eq(max, ids[n - 1]);
    /* projections that repeat and reorder columns */
    uint32_t proj[] = {C_STR, C_I64, C_STR, C_IV, C_BOOL};
    scan_rows(t, &td, proj, 5, INT64_MIN, INT64_MAX, ids, n, NULL, 0);
    /* rowid ranges: inside a row group, across the two groups, from a group into the row store */
    scan_rows(t, &td, ALL, NCOLS, ids[10], ids[20], ids + 10, 11, NULL, 0);
    scan_rows(t, &td, ALL, NCOLS, ids[GROUP - 7], ids[GROUP + 3000], ids + GROUP - 7, 3008, NULL, 0);
    scan_rows(t, &td, proj, 5, ids[2 * GROUP - 1], INT64_MAX, ids + 2 * GROUP - 1, n - 2 * GROUP + 1, NULL, 0);
    scan_rows(t, &td, ALL, NCOLS, ids[n - 1] + 1, INT64_MAX, NULL, 0, NULL, 0);
    /* point reads from both stores and of missing rows */
    int64_t probes[] = {ids[0], ids[1], ids[GROUP - 1], ids[GROUP], ids[2047], ids[2048], ids[2 * GROUP - 1],
                        ids[2 * GROUP], ids[n - 1]};
    for (size_t i = 0; i < sizeof probes / sizeof *probes; i++) get_check(t, &td, probes[i], 0);
    get_check(t, &td, ids[0] - 1, -1);
    get_check(t, &td, ids[n - 1] + 1, -1);
    pager_rollback(t);
    free(ids);
}

Test(rowgroup, rowids_with_gaps_are_found_by_search) {
    table_desc td = make_table();
    size_t n = GROUP + 10;
    int64_t *ids = range_ids(-1000000, n, 7); /* a gap of 6 between neighbours */
    load(&td, ids, n);
    cr_assert_eq(migrate(&td, 1), 1);
    check_all(&td, ids, n, NULL);
    pager_txn *t = begin(0);
    for (size_t i = 0; i < n; i += 499) get_check(t, &td, ids[i], 0);
    get_check(t, &td, ids[2100] + 3, -1); /* inside the row group's range, in a gap */
    scan_rows(t, &td, ALL, NCOLS, ids[100] + 1, ids[4100] - 1, ids + 101, 3999, NULL, 0);
    pager_rollback(t);
    free(ids);
}

Test(rowgroup, fewer_rows_than_a_row_group_do_not_move) {
    table_desc td = make_table();
    int64_t *ids = range_ids(1, GROUP - 1, 1);
    load(&td, ids, GROUP - 1);
    cr_assert_eq(migrate(&td, 5), 0);
    cr_assert_eq(groups(&td), 0);
    check_all(&td, ids, GROUP - 1, NULL);
    free(ids);
}

/* ---- deletes and updates of migrated rows ------------------------------------------------- */

Test(rowgroup, deletes_and_updates_of_migrated_rows) {
    table_desc td = make_table();
    size_t n = GROUP + 100;
    int64_t *ids = range_ids(1, n, 1);
    load(&td, ids, n);
    cr_assert_eq(migrate(&td, 1), 1);

    pager_txn *t = begin(1);
    int64_t del[] = {1, 2, 2048, 2049, 4999, GROUP + 5};
    OK(t, table_delete(t, &td, del, 6));
    cr_assert_eq(table_delete(t, &td, del, 1), STRATA_NOTFOUND, "a deleted migrated row is gone");
    err_clear(pager_txn_err(t));
    /* an update gives a migrated row a new version, read from the row store */
    int64_t upd[] = {3, 100, 2050, GROUP};
    data_chunk c;
    cr_assert_eq(chunk_init(&c, types, NCOLS, NULL), STRATA_OK);
    char *buf = malloc(LONG_STR + 64);
    for (uint32_t r = 0; r < 4; r++)
        for (uint32_t k = 0; k < NCOLS; k++) {
            sql_value x;
            expected(upd[r], k, 1, buf, &x);
            put_value(&c.cols[k], r, &x);
        }
    c.count = 4;
    OK(t, table_update(t, &td, &c, NULL, 4, upd));
    /* rowid uniqueness covers migrated rows; a deleted rowid is free again */
    cr_assert_eq(table_insert(t, &td, &c, NULL, 1, (int64_t[]){50}), STRATA_CONSTRAINT);
    err_clear(pager_txn_err(t));
    cr_assert_eq(table_insert(t, &td, &c, NULL, 1, (int64_t[]){100}), STRATA_CONSTRAINT, "updated, so in the row store");
    err_clear(pager_txn_err(t));
    commit(t);

    size_t m = 0;
    int64_t *want = malloc(n * sizeof *want);
    uint32_t *tags = calloc(n, sizeof *tags);
    for (size_t i = 0; i < n; i++) {
        int64_t id = ids[i];
        int gone = 0;
        for (int k = 0; k < 6; k++) gone |= del[k] == id;
        if (gone) continue;
        for (int k = 0; k < 4; k++)
            if (upd[k] == id) tags[m] = 1;
        want[m++] = id;
    }
    check_all(&td, want, m, tags);
    t = begin(0);
    get_check(t, &td, 1, -1);
    get_check(t, &td, 3, 1);
    get_check(t, &td, 4, 0);
    get_check(t, &td, GROUP, 1);
    pager_rollback(t);

    /* the table's rows survive a reopen */
    pager_close(db);
    pager_config cfg = {.page_size = 8192, .no_sync = 1};
    cr_assert_eq(pager_open(fs, "t.db", &cfg, &db, &err), STRATA_OK, "%s", err.msg);
    check_all(&td, want, m, tags);

    chunk_free(&c);
    free(buf);
    free(want);
    free(tags);
    free(ids);
}

Test(rowgroup, a_row_group_whose_rows_are_all_deleted_goes) {
    table_desc td = make_table();
    size_t n = 2 * GROUP;
    int64_t *ids = range_ids(1, n, 1);
    load(&td, ids, n);
    cr_assert_eq(migrate(&td, 2), 2);
    pager_txn *t = begin(1);
    OK(t, table_delete(t, &td, ids, GROUP));
    commit(t);
    cr_assert_eq(groups(&td), 1);
    check_all(&td, ids + GROUP, GROUP, NULL);
    free(ids);
}

Test(rowgroup, the_tuple_mover_takes_only_rows_above_the_last_migrated_one) {
    table_desc td = make_table();
    int64_t *ids = range_ids(1, GROUP, 1);
    load(&td, ids, GROUP);
    cr_assert_eq(migrate(&td, 1), 1);
    /* row 7 gets a new version in the row store; then another row group's worth of rows */
    pager_txn *t = begin(1);
    data_chunk c;
    cr_assert_eq(chunk_init(&c, types, NCOLS, NULL), STRATA_OK);
    char *buf = malloc(LONG_STR + 64);
    for (uint32_t k = 0; k < NCOLS; k++) {
        sql_value x;
        expected(7, k, 1, buf, &x);
        put_value(&c.cols[k], 0, &x);
    }
    c.count = 1;
    OK(t, table_update(t, &td, &c, NULL, 1, (int64_t[]){7}));
    commit(t);
    int64_t *more = range_ids(GROUP + 1, GROUP, 1);
    load(&td, more, GROUP);
    cr_assert_eq(migrate(&td, 5), 1, "row 7 alone does not make a second row group full");
    t = begin(0);
    uint32_t pending;
    OK(t, rowgroup_pending(t, &td, 100, &pending));
    cr_assert_eq(pending, 0, "row 7 is below the migrated rowids: it stays in the row store");
    get_check(t, &td, 7, 1);
    pager_rollback(t);
    int64_t *all = range_ids(1, 2 * GROUP, 1);
    uint32_t *tags = calloc(2 * GROUP, sizeof *tags);
    tags[6] = 1;
    check_all(&td, all, 2 * GROUP, tags);
    chunk_free(&c);
    free(buf);
    free(tags);
    free(all);
    free(more);
    free(ids);
}

/* ---- scans that write, readers that keep their snapshot ----------------------------------- */

Test(rowgroup, a_write_scan_updates_each_migrated_row_once) {
    table_desc td = make_table();
    size_t n = GROUP + 300;
    int64_t *ids = range_ids(1, n, 1);
    load(&td, ids, n);
    cr_assert_eq(migrate(&td, 1), 1);
    /* UPDATE t SET ... : every row read is rewritten (moving it to the row store) before the next chunk */
    pager_txn *t = begin(1);
    table_scan *s;
    OK(t, table_scan_open(t, &td, ALL, NCOLS, INT64_MIN, INT64_MAX, &s));
    data_chunk c, w;
    cr_assert_eq(chunk_init(&c, types, NCOLS, NULL), STRATA_OK);
    cr_assert_eq(chunk_init(&w, types, NCOLS, NULL), STRATA_OK);
    int64_t rowids[VECTOR_SIZE];
    char *buf = malloc(LONG_STR + 64);
    size_t seen = 0;
    for (;;) {
        OK(t, table_scan_next(s, &c, rowids));
        if (c.count == 0) break;
        chunk_reset(&w);
        for (uint32_t r = 0; r < c.count; r++) {
            cr_assert_eq(rowids[r], ids[seen + r], "each row once, in rowid order");
            for (uint32_t k = 0; k < NCOLS; k++) {
                sql_value x;
                expected(rowids[r], k, 1, buf, &x);
                put_value(&w.cols[k], r, &x);
            }
        }
        w.count = c.count;
        OK(t, table_update(t, &td, &w, NULL, c.count, rowids));
        seen += c.count;
    }
    table_scan_close(s);
    commit(t);
    cr_assert_eq(seen, n);
    uint32_t *tags = malloc(n * sizeof *tags);
    for (size_t i = 0; i < n; i++) tags[i] = 1;
    check_all(&td, ids, n, tags);
    cr_assert_eq(groups(&td), 0, "every migrated row was rewritten: the row group went");
    chunk_free(&c);
    chunk_free(&w);
    free(buf);
    free(tags);
    free(ids);
}

Test(rowgroup, a_reader_keeps_its_snapshot_while_a_migration_commits) {
    table_desc td = make_table();
    size_t n = 2 * GROUP;
    int64_t *ids = range_ids(1, n, 1);
    load(&td, ids, n);
    pager_txn *r = begin(0);
    table_scan *s;
    OK(r, table_scan_open(r, &td, ALL, NCOLS, INT64_MIN, INT64_MAX, &s));
    data_chunk c;
    cr_assert_eq(chunk_init(&c, types, NCOLS, NULL), STRATA_OK);
    int64_t rowids[VECTOR_SIZE];
    OK(r, table_scan_next(s, &c, rowids));
    size_t seen = c.count;
    cr_assert_eq(migrate(&td, 2), 2); /* commits beside the reader */
    for (;;) {
        OK(r, table_scan_next(s, &c, rowids));
        if (c.count == 0) break;
        for (uint32_t k = 0; k < c.count; k++) cr_assert_eq(rowids[k], ids[seen + k]);
        seen += c.count;
    }
    cr_assert_eq(seen, n, "the reader saw its snapshot: every row once");
    table_scan_close(s);
    pager_rollback(r);
    check_all(&td, ids, n, NULL);
    chunk_free(&c);
    free(ids);
}

typedef struct reader_arg {
    const table_desc *td;
    size_t n;
    atomic_int stop; /* the main thread sets it while the reader reads it */
    int scans, bad;
} reader_arg;

/* reader scans the rowids of the whole table until told to stop, counting scans that did not
** see exactly rows 1..n. */
static void *reader(void *p) {
    reader_arg *a = p;
    data_chunk c;
    if (chunk_init(&c, types, 1, NULL)) return NULL;
    int64_t rowids[VECTOR_SIZE];
    while (!atomic_load(&a->stop) || a->scans == 0) {
        pager_txn *t;
        strata_err e = {0};
        if (pager_begin(db, 0, &t, &e)) {
            a->bad++;
            break;
        }
        table_scan *s = NULL;
        int64_t next = 1;
        int ok = table_scan_open(t, a->td, ALL, 1, INT64_MIN, INT64_MAX, &s) == STRATA_OK;
        while (ok) {
            if (table_scan_next(s, &c, rowids) != STRATA_OK) ok = 0;
            if (!ok || c.count == 0) break;
            for (uint32_t k = 0; k < c.count; k++) ok &= rowids[k] == next++;
        }
        table_scan_close(s);
        pager_rollback(t);
        if (!ok || next != (int64_t)a->n + 1) a->bad++;
        a->scans++;
    }
    chunk_free(&c);
    return NULL;
}

Test(rowgroup, reader_threads_see_every_row_once_while_row_groups_migrate) {
    table_desc td = make_table();
    size_t n = 4 * GROUP;
    int64_t *ids = range_ids(1, n, 1);
    load(&td, ids, n);
    reader_arg a = {.td = &td, .n = n};
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, reader, &a), 0);
    for (int g = 0; g < 4; g++) cr_assert_eq(migrate(&td, 1), 1);
    atomic_store(&a.stop, 1);
    pthread_join(th, NULL);
    cr_assert_gt(a.scans, 0);
    cr_assert_eq(a.bad, 0, "%d of %d scans saw a wrong set of rows", a.bad, a.scans);
    cr_assert_eq(groups(&td), 4);
    free(ids);
}

/* ---- statistics --------------------------------------------------------------------------- */

static int first_group(void *arg, const rowgroup_desc *d) {
    rowgroup_desc *first = arg;
    if (first->rows == 0) *first = *d;
    return STRATA_OK;
}

Test(rowgroup, a_row_group_keeps_the_statistics_of_its_columns) {
    table_desc td = make_table();
    int64_t *ids = range_ids(1, GROUP, 1);
    load(&td, ids, GROUP);
    cr_assert_eq(migrate(&td, 1), 1);
    /* the reference: every value added one at a time, as ANALYZE over the rows adds them */
    column_stats *want = calloc(NCOLS, sizeof *want), *got = calloc(NCOLS, sizeof *got);
    char *buf = malloc(LONG_STR + 64);
    for (int64_t id = 1; id <= GROUP; id++)
        for (uint32_t k = 0; k < NCOLS; k++) {
            sql_value x;
            expected(id, k, 0, buf, &x);
            colstats_add(&want[k], &x);
        }
    free(buf);
    pager_txn *t = begin(1);
    rowgroup_desc d = {0};
    OK(t, rowgroup_foreach(t, &td, first_group, &d));
    int found = 0;
    OK(t, rowgroup_stats(t, &td, &d, got, &found));
    cr_assert(found, "the row group was written with its statistics");
    for (uint32_t k = 0; k < NCOLS; k++) {
        cr_assert_eq(got[k].nulls, want[k].nulls, "column %u: %lld NULLs", k, (long long)got[k].nulls);
        cr_assert_eq(got[k].has_range, want[k].has_range, "column %u", k);
        cr_assert_eq(got[k].numeric, want[k].numeric, "column %u", k);
        cr_assert_str_eq(got[k].min, want[k].min, "column %u", k);
        cr_assert_str_eq(got[k].max, want[k].max, "column %u", k);
        cr_assert(!memcmp(&got[k].sketch, &want[k].sketch, sizeof got[k].sketch), "column %u: the sketches differ", k);
        double nonnull = (double)(GROUP - want[k].nulls), est = hll_estimate(&want[k].sketch);
        cr_assert_eq(got[k].distinct, est < nonnull ? est : nonnull, "column %u", k);
    }
    /* a damaged entry reads as none (the rows can always be read instead), never as an error */
    uint8_t key[1 + ROWID_KEY_LEN] = {'h'};
    rowid_encode(d.first, key + 1);
    btree_buf e = {0};
    OK(t, btree_get(t, td.col_root, key, sizeof key, &e));
    for (size_t at = 0; at < e.len; at += 7) {
        uint8_t keep = e.data[at];
        e.data[at] ^= 0xa5;
        OK(t, btree_put(t, td.col_root, key, sizeof key, e.data, e.len));
        OK(t, rowgroup_stats(t, &td, &d, got, &found));
        cr_assert(!found, "an entry damaged at byte %zu is not read", at);
        e.data[at] = keep;
    }
    OK(t, btree_put(t, td.col_root, key, sizeof key, e.data, e.len - 1));
    OK(t, rowgroup_stats(t, &td, &d, got, &found));
    cr_assert(!found, "a cut entry is not read");
    pager_rollback(t);
    btree_buf_free(&e);
    free(want);
    free(got);
    free(ids);
}

/* ---- corruption --------------------------------------------------------------------------- */

Test(rowgroup, a_corrupt_segment_names_its_row_group_and_column) {
    table_desc td = make_table();
    int64_t *ids = range_ids(1, GROUP, 1);
    load(&td, ids, GROUP);
    cr_assert_eq(migrate(&td, 1), 1);
    /* overwrite the segment of column C_STR with bytes that are not a segment */
    pager_txn *t = begin(1);
    uint8_t key[1 + ROWID_KEY_LEN + 4] = {'s'};
    rowid_encode(1, key + 1);
    key[1 + ROWID_KEY_LEN + 3] = C_STR;
    btree_buf seg = {0};
    OK(t, btree_get(t, td.col_root, key, sizeof key, &seg));
    seg.data[seg.len / 2] ^= 0x5a;
    OK(t, btree_put(t, td.col_root, key, sizeof key, seg.data, seg.len));
    commit(t);
    btree_buf_free(&seg);

    t = begin(0);
    data_chunk c;
    cr_assert_eq(chunk_init(&c, types, NCOLS, NULL), STRATA_OK);
    table_scan *s;
    OK(t, table_scan_open(t, &td, ALL, NCOLS, INT64_MIN, INT64_MAX, &s));
    int rc = table_scan_next(s, &c, NULL);
    cr_assert_eq(rc, STRATA_CORRUPT, "got %s", strata_errstr(rc));
    const char *msg = pager_txn_err(t)->msg;
    cr_assert(strstr(msg, "row group at rowid 1") && strstr(msg, "column 6"), "message: %s", msg);
    table_scan_close(s);
    /* a column not projected is not read: the others still scan */
    err_clear(pager_txn_err(t));
    uint32_t other[] = {C_I64, C_DATE};
    scan_rows(t, &td, other, 2, INT64_MIN, INT64_MAX, ids, GROUP, NULL, 0);
    pager_rollback(t);
    chunk_free(&c);
    free(ids);
}

/* ---- the segment cache -------------------------------------------------------------------- */

Test(rowgroup, reads_through_the_segment_cache_stay_right_as_row_groups_change) {
    table_desc td = make_table();
    td.cache = segcache_create(64 << 20);
    size_t n = 2 * GROUP;
    int64_t *ids = range_ids(1, n, 1);
    load(&td, ids, GROUP);
    cr_assert_eq(migrate(&td, 1), 1);
    check_all(&td, ids, GROUP, NULL); /* a read transaction: the segments go into the cache */
    segcache_stats st;
    segcache_get_stats(td.cache, &st);
    cr_assert_eq(st.inserts, NCOLS + 1, "every column and the rowids: %llu", (unsigned long long)st.inserts);
    check_all(&td, ids, GROUP, NULL);
    segcache_get_stats(td.cache, &st);
    cr_assert_geq(st.hits, NCOLS + 1, "the second scan is served by the cache");

    /* a write transaction fills it with the segments of row groups committed before it began,
    ** not with those of a row group it made itself (rolled back, its id is given again) */
    pager_txn *t = begin(1);
    OK(t, table_delete(t, &td, (int64_t[]){5}, 1));
    pager_rollback(t);
    load(&td, ids + GROUP, GROUP);
    t = begin(1);
    uint32_t moved = 0;
    OK(t, rowgroup_migrate(t, &td, 1, &moved));
    cr_assert_eq(moved, 1);
    get_check(t, &td, GROUP + 17, 0);
    segcache_get_stats(td.cache, &st);
    cr_assert_eq(st.inserts, NCOLS + 1, "a row group made in the transaction is not cached");
    pager_rollback(t);
    cr_assert_eq(migrate(&td, 1), 1);
    t = begin(1);
    get_check(t, &td, GROUP + 17, 0);
    pager_rollback(t);
    segcache_get_stats(td.cache, &st);
    cr_assert_eq(st.inserts, 2 * (NCOLS + 1), "a committed row group read in a write transaction is cached");

    /* deletes after caching: the bitmap is read each time, the cached segments stay right */
    t = begin(1);
    OK(t, table_delete(t, &td, (int64_t[]){1, GROUP + 1}, 2));
    commit(t);
    int64_t *live = malloc(n * sizeof *live);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (ids[i] != 1 && ids[i] != GROUP + 1) live[m++] = ids[i];
    check_all(&td, live, m, NULL);
    t = begin(0);
    get_check(t, &td, 1, -1);
    get_check(t, &td, 2, 0);
    get_check(t, &td, GROUP + 2, 0);
    pager_rollback(t);

    /* a budget too small for anything: reads still work, nothing is kept */
    segcache_set_budget(td.cache, 0);
    check_all(&td, live, m, NULL);
    segcache_get_stats(td.cache, &st);
    cr_assert_eq(st.entries, 0);
    segcache_destroy(td.cache);
    free(live);
    free(ids);
}

/* ---- the bulk path -------------------------------------------------------------------------- */

/* rowgroup_write refuses what would break the column tree's invariants, and changes nothing. */
Test(rowgroup, the_bulk_path_refuses_rowids_below_a_row_group_and_oversized_groups) {
    table_desc td = make_table();
    int64_t *ids = range_ids(1, GROUP, 1);
    load(&td, ids, GROUP);
    cr_assert_eq(migrate(&td, 1), 1);
    data_chunk c;
    cr_assert_eq(chunk_init(&c, types, NCOLS, NULL), STRATA_OK);
    char *buf = malloc(LONG_STR + 64);
    for (uint32_t k = 0; k < 10; k++)
        for (uint32_t col = 0; col < NCOLS; col++) {
            sql_value x;
            expected(100 + k, col, 0, buf, &x);
            put_value(&c.cols[col], k, &x);
        }
    c.count = 10;
    data_chunk *cp = &c;
    int64_t low[10];
    for (int k = 0; k < 10; k++) low[k] = 100 + k; /* inside the row group */
    pager_txn *t = begin(1);
    cr_assert_eq(rowgroup_write(t, &td, &cp, 1, low), STRATA_MISUSE);
    cr_assert(strstr(pager_txn_err(t)->msg, "not above the last migrated rowid"), "%s", pager_txn_err(t)->msg);
    /* more rows than a row group holds */
    data_chunk *many[ROWGROUP_ROWS / VECTOR_SIZE + 1];
    c.count = VECTOR_SIZE;
    for (size_t i = 0; i < sizeof many / sizeof *many; i++) many[i] = &c;
    int64_t *big = range_ids(GROUP + 1, ROWGROUP_ROWS + VECTOR_SIZE, 1);
    cr_assert_eq(rowgroup_write(t, &td, many, sizeof many / sizeof *many, big), STRATA_MISUSE);
    pager_rollback(t);
    cr_assert_eq(groups(&td), 1);
    check_all(&td, ids, GROUP, NULL);
    free(big);
    free(buf);
    chunk_free(&c);
    free(ids);
}

/* Rows written straight into a row group read back exactly, after the rows waiting in the row
** store moved into a row group of their own ahead of them. */
Test(rowgroup, the_bulk_path_moves_waiting_rows_first_and_keeps_every_value) {
    table_desc td = make_table();
    int64_t *ids = range_ids(1, GROUP + 300, 1);
    load(&td, ids, 300); /* 300 rows wait in the row store */
    data_chunk c[3], *cp[3];
    char *buf = malloc(LONG_STR + 64);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(chunk_init(&c[i], types, NCOLS, NULL), STRATA_OK);
        cp[i] = &c[i];
        uint32_t n = i < 2 ? VECTOR_SIZE : GROUP - 2 * VECTOR_SIZE;
        for (uint32_t k = 0; k < n; k++)
            for (uint32_t col = 0; col < NCOLS; col++) {
                sql_value x;
                expected(ids[300 + i * VECTOR_SIZE + k], col, 0, buf, &x);
                put_value(&c[i].cols[col], k, &x);
            }
        c[i].count = n;
    }
    pager_txn *t = begin(1);
    OK(t, rowgroup_write(t, &td, cp, 3, ids + 300));
    uint32_t pending = 9;
    OK(t, rowgroup_pending(t, &td, 1000, &pending));
    cr_assert_eq(pending, 0);
    commit(t);
    cr_assert_eq(groups(&td), 2);
    check_all(&td, ids, GROUP + 300, NULL);
    t = begin(0);
    get_check(t, &td, 1, 0);
    get_check(t, &td, 300, 0);
    get_check(t, &td, 301, 0);
    get_check(t, &td, GROUP + 300, 0);
    get_check(t, &td, GROUP + 301, -1);
    pager_rollback(t);
    for (int i = 0; i < 3; i++) chunk_free(&c[i]);
    free(buf);
    free(ids);
}
