/*
** test_parallel_scan.c -- a table's scan ranges (table_scan_ranges, colstore/table.h), the morsels
** of a parallel scan: they cover [lo, hi] exactly, one after the other, never cut a row group, and
** read each on a thread of its own (one read transaction shared, as a query's workers share it)
** give together exactly the rows of one whole scan, by count and checksum -- over tables whose
** rows are only in the row store, only in the column store and in both, with deletes, updates of
** migrated rows and sparse explicit rowids, as a reader's snapshot has them. Also
** btree_leaf_starts, which the ranges are cut by.
*/
#include <criterion/criterion.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../colstore/rowgroup.h"
#include "helpers/table_rows.h"

TestSuite(scan_ranges, .init = table_setup, .fini = table_teardown);

#define GROUP 5000 /* rows of a full row group here, and the ranges' target */

/* The tables here have two columns: v = value_of(rowid, tag) and the rowid's low bits. */
static sql_type two_types[2];

static table_desc make_table(bool col_tree) {
    two_types[0] = sql_type_make(TYPE_BIGINT);
    two_types[1] = sql_type_make(TYPE_INTEGER);
    pager_txn *t = begin(1);
    table_desc td = {.ncols = 2, .types = two_types, .group_rows = GROUP};
    OK(t, btree_create(t, &td.root));
    if (col_tree) OK(t, btree_create(t, &td.col_root));
    commit(t);
    return td;
}

static int64_t value_of(int64_t rowid, int tag) { return rowid * 0x9E3779B97F4A7C15ll + tag; }

/* write_rows inserts (tag 0) or updates (tag > 0) the rows of rowids first, first + step, ...
** (n of them), a chunk at a time, in a transaction of its own. */
static void write_rows(const table_desc *td, int64_t first, int64_t step, size_t n, int tag) {
    pager_txn *t = begin(1);
    data_chunk c;
    cr_assert_eq(chunk_init(&c, td->types, 2, NULL), STRATA_OK);
    int64_t ids[VECTOR_SIZE];
    for (size_t at = 0; at < n;) {
        chunk_reset(&c);
        uint32_t k = 0;
        for (; k < VECTOR_SIZE && at + k < n; k++) {
            ids[k] = first + (int64_t)(at + k) * step;
            VEC_DATA(&c.cols[0], int64_t)[k] = value_of(ids[k], tag);
            VEC_DATA(&c.cols[1], int32_t)[k] = (int32_t)(ids[k] & 0xffff);
        }
        c.count = k;
        if (tag) OK(t, table_update(t, td, &c, NULL, k, ids));
        else OK(t, table_insert(t, td, &c, NULL, k, ids));
        at += k;
    }
    chunk_free(&c);
    commit(t);
}

static void delete_rows(const table_desc *td, int64_t first, int64_t step, size_t n) {
    pager_txn *t = begin(1);
    int64_t ids[256];
    for (size_t at = 0; at < n;) {
        uint32_t k = 0;
        for (; k < 256 && at + k < n; k++) ids[k] = first + (int64_t)(at + k) * step;
        OK(t, table_delete(t, td, ids, k));
        at += k;
    }
    commit(t);
}

static uint32_t migrate(const table_desc *td) {
    pager_txn *t = begin(1);
    uint32_t moved = 0;
    OK(t, rowgroup_migrate(t, td, 100000, &moved));
    commit(t);
    return moved;
}

/* ---- one scan of a range ------------------------------------------------------------------ */

typedef struct scan_sum {
    pager_txn *t;
    const table_desc *td;
    int64_t lo, hi;
    uint64_t rows, sum;
    int rc;
    strata_err err; /* on error: the transaction's, as err_copy reads it while the others run */
    bool ordered;   /* rowids ascending and inside [lo, hi] */
} scan_sum;

/* sum_range scans s's range and sums its rows (run on a thread: no assertion here). */
static void *sum_range(void *arg) {
    scan_sum *s = arg;
    static const uint32_t cols[2] = {0, 1};
    data_chunk c;
    s->ordered = true;
    err_clear(&s->err);
    if ((s->rc = chunk_init(&c, s->td->types, 2, NULL))) return NULL;
    table_scan *sc;
    if ((s->rc = table_scan_open(s->t, s->td, cols, 2, s->lo, s->hi, &sc))) {
        chunk_free(&c);
        err_copy(&s->err, pager_txn_err(s->t));
        return NULL;
    }
    int64_t ids[VECTOR_SIZE], last = 0;
    for (;;) {
        if ((s->rc = table_scan_next(sc, &c, ids)) || c.count == 0) break;
        for (uint32_t r = 0; r < c.count; r++) {
            int64_t v = VEC_DATA(&c.cols[0], int64_t)[vec_index(&c.cols[0], r)];
            int32_t low = VEC_DATA(&c.cols[1], int32_t)[vec_index(&c.cols[1], r)];
            if (ids[r] < s->lo || ids[r] > s->hi || (s->rows && ids[r] <= last) || low != (int32_t)(ids[r] & 0xffff))
                s->ordered = false;
            last = ids[r];
            s->rows++;
            s->sum += (uint64_t)v * 0xff51afd7ed558ccdull ^ (uint64_t)ids[r];
        }
    }
    table_scan_close(sc);
    chunk_free(&c);
    if (s->rc) err_copy(&s->err, pager_txn_err(s->t));
    return NULL;
}

/* ---- the checks --------------------------------------------------------------------------- */

typedef struct group_list {
    rowgroup_desc d[1024];
    uint32_t n;
} group_list;

static int list_group(void *arg, const rowgroup_desc *d) {
    group_list *l = arg;
    cr_assert_lt(l->n, 1024u);
    l->d[l->n++] = *d;
    return STRATA_OK;
}

#define THREADS 7

/* check_ranges_in asserts what table_scan_ranges promises of [lo, hi] in t and that the ranges,
** each read on a thread (THREADS at a time), give the rows of one scan of [lo, hi]; returns the
** number of ranges and sets *rows (may be NULL) to the rows. */
static uint32_t check_ranges_in(pager_txn *t, const table_desc *td, int64_t lo, int64_t hi, uint64_t *rows_out) {
    table_range *r;
    uint32_t n;
    OK(t, table_scan_ranges(t, td, lo, hi, GROUP, &r, &n));
    cr_assert_geq(n, 1u);
    cr_assert_eq(r[0].lo, lo, "the first range begins at lo");
    cr_assert_eq(r[n - 1].hi, hi, "the last range ends at hi");
    for (uint32_t i = 0; i < n; i++) {
        cr_assert_leq(r[i].lo, r[i].hi, "range %u", i);
        if (i) cr_assert_eq(r[i].lo, r[i - 1].hi + 1, "range %u begins right after range %u", i, i - 1);
        if (i + 1 < n) cr_assert_geq(2 * r[i].rows, (uint64_t)GROUP, "range %u closed far from its target", i);
    }
    group_list *g = calloc(1, sizeof *g);
    OK(t, rowgroup_foreach(t, td, list_group, g));
    for (uint32_t k = 0; k < g->n; k++) { /* each row group's part in [lo, hi] lies in one range */
        int64_t a = g->d[k].first > lo ? g->d[k].first : lo, z = g->d[k].last < hi ? g->d[k].last : hi;
        if (a > z) continue;
        uint32_t i = 0;
        while (r[i].hi < a) i++;
        cr_assert_leq(z, r[i].hi, "row group %lld..%lld is cut at %lld", (long long)g->d[k].first,
                      (long long)g->d[k].last, (long long)r[i].hi);
    }
    free(g);

    scan_sum whole = {.t = t, .td = td, .lo = lo, .hi = hi};
    sum_range(&whole);
    OK(t, whole.rc);
    cr_assert(whole.ordered);
    scan_sum *parts = calloc(n, sizeof *parts);
    for (uint32_t i = 0; i < n; i++) parts[i] = (scan_sum){.t = t, .td = td, .lo = r[i].lo, .hi = r[i].hi};
    for (uint32_t at = 0; at < n; at += THREADS) {
        pthread_t th[THREADS];
        uint32_t m = n - at < THREADS ? n - at : THREADS;
        for (uint32_t i = 0; i < m; i++) cr_assert_eq(pthread_create(&th[i], NULL, sum_range, &parts[at + i]), 0);
        for (uint32_t i = 0; i < m; i++) pthread_join(th[i], NULL);
    }
    uint64_t rows = 0, sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        OK(t, parts[i].rc);
        cr_assert(parts[i].ordered, "range %u", i);
        rows += parts[i].rows, sum += parts[i].sum;
    }
    cr_assert_eq(rows, whole.rows, "the ranges hold %llu rows, the whole scan %llu", (unsigned long long)rows,
                 (unsigned long long)whole.rows);
    cr_assert_eq(sum, whole.sum);
    free(parts);
    table_ranges_free(r);
    if (rows_out) *rows_out = rows;
    return n;
}

static uint32_t check_ranges(const table_desc *td, int64_t lo, int64_t hi) {
    pager_txn *t = begin(0);
    uint32_t n = check_ranges_in(t, td, lo, hi, NULL);
    pager_rollback(t);
    return n;
}

/* check_table checks the whole table's ranges and those of sub-ranges that begin and end inside
** row groups (and beyond the table), and returns the whole table's number of ranges. */
static uint32_t check_table(const table_desc *td, int64_t max) {
    uint32_t n = check_ranges(td, INT64_MIN, INT64_MAX);
    check_ranges(td, 1, max);
    check_ranges(td, max / 3 + 17, max - max / 5);
    check_ranges(td, 2 * GROUP + 123, 9 * GROUP - 77);
    check_ranges(td, 7, 7);
    check_ranges(td, max + 1, INT64_MAX); /* no row */
    return n;
}

Test(scan_ranges, rows_only_in_the_row_store) {
    table_desc td = make_table(false);
    write_rows(&td, 1, 1, 60000, 0);
    delete_rows(&td, 5, 9, 3000);
    uint32_t n = check_table(&td, 60000);
    cr_assert_geq(n, 6u, "57,000 rows in ranges of about 5,000: %u ranges", n);
    cr_assert_leq(n, 14u, "%u ranges", n);
}

Test(scan_ranges, rows_only_in_the_column_store) {
    table_desc td = make_table(true);
    write_rows(&td, 1, 1, 12 * GROUP, 0);
    cr_assert_eq(migrate(&td), 12u);
    delete_rows(&td, 3, 11, 2000); /* deleted in the row groups' bitmaps */
    uint32_t n = check_table(&td, 12 * GROUP);
    cr_assert_eq(n, 12u, "one range per row group: %u", n);
}

Test(scan_ranges, rows_in_both_stores) {
    table_desc td = make_table(true);
    write_rows(&td, 1, 1, 10 * GROUP + 2345, 0);
    cr_assert_eq(migrate(&td), 10u);
    write_rows(&td, 10 * GROUP + 2346, 1, 4 * GROUP, 0);   /* waiting in the row store */
    write_rows(&td, 3 * GROUP + 5, 17, 900, 1);            /* migrated rows updated: new versions in the row tree */
    delete_rows(&td, 2 * GROUP + 1, 13, 1500);             /* from both stores */
    uint32_t n = check_table(&td, 14 * GROUP + 2345);
    cr_assert_geq(n, 12u, "%u ranges", n);
}

Test(scan_ranges, sparse_explicit_rowids) {
    table_desc td = make_table(true);
    const int64_t far = 1000000000;
    write_rows(&td, 1, 1, 1000, 0);
    write_rows(&td, far, 1, 200001, 0);
    uint32_t moved = migrate(&td); /* the first row group spans the gap */
    cr_assert_eq(moved, 40u);
    write_rows(&td, 4 * far, 1000, 20000, 0); /* and far beyond, in the row store */
    uint32_t n = check_ranges(&td, INT64_MIN, INT64_MAX);
    /* not one range per span of 5,000 rowids (800,000 of them), nor a single one */
    cr_assert_geq(n, 40u, "%u ranges", n);
    cr_assert_leq(n, 50u, "%u ranges", n);
    check_ranges(&td, 500, far + 7777);
    check_ranges(&td, far + 100000, 4 * far + 5000000);
    check_ranges(&td, 1001, far - 1); /* the gap: no row */
}

/* a reader's ranges are those of its snapshot, whatever commits after it began */
Test(scan_ranges, ranges_follow_the_snapshot) {
    table_desc td = make_table(true);
    write_rows(&td, 1, 1, 6 * GROUP + 100, 0);
    cr_assert_eq(migrate(&td), 6u);
    pager_txn *t = begin(0);
    write_rows(&td, 6 * GROUP + 101, 1, 5 * GROUP, 0);
    cr_assert_eq(migrate(&td), 5u);
    delete_rows(&td, 1, 2, GROUP);
    uint64_t rows;
    uint32_t n = check_ranges_in(t, &td, INT64_MIN, INT64_MAX, &rows);
    cr_assert_eq(rows, 6 * GROUP + 100u, "the reader's rows: %llu", (unsigned long long)rows);
    cr_assert_eq(n, 6u, "six row groups then: %u ranges", n);
    pager_rollback(t);
    n = check_ranges(&td, INT64_MIN, INT64_MAX);
    cr_assert_eq(n, 10u, "eleven row groups now, the first two half deleted and in one range: %u ranges", n);
}

/* every range's scan fails at once on a damaged segment of the transaction they share: each
** reads back the one error the transaction kept, whole */
Test(scan_ranges, scans_failing_at_once_read_one_whole_error) {
    table_desc td = make_table(true);
    write_rows(&td, 1, 1, 8 * GROUP, 0);
    cr_assert_eq(migrate(&td), 8u);
    pager_txn *w = begin(1);
    for (int64_t first = 1; first <= 8 * GROUP; first += GROUP) { /* column 0's segments */
        uint8_t key[1 + ROWID_KEY_LEN + 4] = {'s'};
        rowid_encode(first, key + 1);
        OK(w, btree_put(w, td.col_root, key, sizeof key, "not a segment", 13));
    }
    commit(w);
    pager_txn *t = begin(0);
    table_range *r;
    uint32_t n;
    OK(t, table_scan_ranges(t, &td, INT64_MIN, INT64_MAX, GROUP, &r, &n));
    cr_assert_eq(n, 8u);
    scan_sum parts[8];
    pthread_t th[8];
    for (uint32_t i = 0; i < n; i++) parts[i] = (scan_sum){.t = t, .td = &td, .lo = r[i].lo, .hi = r[i].hi};
    for (uint32_t i = 0; i < n; i++) cr_assert_eq(pthread_create(&th[i], NULL, sum_range, &parts[i]), 0);
    for (uint32_t i = 0; i < n; i++) pthread_join(th[i], NULL);
    const strata_err *kept = pager_txn_err(t);
    cr_assert_eq(kept->code, STRATA_CORRUPT);
    cr_assert(strstr(kept->msg, ": row group at rowid ") && strstr(kept->msg, ", column 0: "), "%s", kept->msg);
    for (uint32_t i = 0; i < n; i++) {
        cr_assert_eq(parts[i].rc, STRATA_CORRUPT, "range %u", i);
        cr_assert_eq(parts[i].err.code, STRATA_CORRUPT, "range %u", i);
        cr_assert_str_eq(parts[i].err.msg, kept->msg, "range %u", i);
    }
    table_ranges_free(r);
    pager_rollback(t);
}

/* ---- the row tree's leaves ---------------------------------------------------------------- */

typedef struct seps {
    int64_t at[4096];
    uint32_t n;
} seps;

static int add_sep(void *arg, const uint8_t *key, size_t klen) {
    seps *s = arg;
    cr_assert_leq(klen, 8u);
    uint8_t k[8] = {0};
    memcpy(k, key, klen);
    cr_assert_lt(s->n, 4096u);
    s->at[s->n++] = rowid_decode(k);
    return STRATA_OK;
}

Test(scan_ranges, leaf_starts_name_every_leaf_once) {
    table_desc td = make_table(false);
    write_rows(&td, 1, 3, 200000, 0);
    pager_txn *t = begin(0);
    btree_stats st;
    OK(t, btree_get_stats(t, td.root, &st));
    cr_assert_geq(st.depth, 3u, "a tree of three levels at least");
    seps *s = calloc(1, sizeof *s);
    uint64_t per_leaf;
    OK(t, btree_leaf_starts(t, td.root, NULL, 0, NULL, 0, add_sep, s, &per_leaf));
    cr_assert_eq(s->n + 1, st.leaf_pages, "%u separators for %llu leaves", s->n, (unsigned long long)st.leaf_pages);
    cr_assert_gt(per_leaf, 0u);
    cr_assert_leq(per_leaf, st.entries);
    for (uint32_t i = 1; i < s->n; i++) cr_assert_lt(s->at[i - 1], s->at[i]);
    /* a key range: the separators between its leaves only */
    uint8_t lo[8], hi[8];
    rowid_encode(100000, lo);
    rowid_encode(300000, hi);
    seps *part = calloc(1, sizeof *part);
    OK(t, btree_leaf_starts(t, td.root, lo, 8, hi, 8, add_sep, part, &per_leaf));
    uint32_t want = 0;
    for (uint32_t i = 0; i < s->n; i++) want += s->at[i] > 100000 && s->at[i] <= 300000;
    cr_assert_eq(part->n, want);
    cr_assert_gt(want, 10u);
    free(s);
    free(part);
    pager_rollback(t);
}
