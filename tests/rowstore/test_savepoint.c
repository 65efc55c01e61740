/*
** test_savepoint.c -- pager savepoints (rowstore/pager.h): rolling back to a savepoint returns a
** write transaction to its state then (pages, splits and merges, the free list, the page count),
** the transaction goes on and commits what came before; a statement that spilled pages to the
** WAL cannot be undone this way and says so (STRATA_BUSY) without changing anything.
*/
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../rowstore/kv.h"
#include "helpers/tmpdir.h"

static char dir[64], path[96];

static kv_db *open_db(size_t cache_bytes) {
    kv_options opt;
    memset(&opt, 0, sizeof opt);
    opt.pager.no_sync = 1;
    opt.pager.cache_bytes = cache_bytes;
    strata_err err;
    err_clear(&err);
    kv_db *db;
    cr_assert_eq(kv_open(path, &opt, &db, &err), STRATA_OK, "%s", err.msg);
    return db;
}

static void setup(void) {
    strcpy(dir, "/tmp/strata-sp-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/test.db", dir);
}

static void teardown(void) { tmpdir_remove(dir); }

static void key_of(uint32_t i, uint8_t k[4]) {
    k[0] = (uint8_t)(i >> 24), k[1] = (uint8_t)(i >> 16), k[2] = (uint8_t)(i >> 8), k[3] = (uint8_t)i;
}

static void put_range(kv_txn *t, uint32_t from, uint32_t to, int vlen) {
    uint8_t v[400];
    memset(v, 'v', sizeof v);
    for (uint32_t i = from; i < to; i++) {
        uint8_t k[4];
        key_of(i, k);
        v[0] = (uint8_t)i;
        cr_assert_eq(kv_put(t, k, 4, v, (size_t)vlen), STRATA_OK, "put %u", i);
    }
}

/* count_and_sum reads every entry: their number and the sum of their keys' first value byte. */
static void count_keys(kv_txn *t, uint64_t *n, uint64_t *sum) {
    kv_cursor *c;
    cr_assert_eq(kv_cursor_open(t, &c), STRATA_OK);
    *n = *sum = 0;
    for (int rc = kv_cursor_first(c); rc == STRATA_OK && kv_cursor_valid(c); rc = kv_cursor_next(c)) {
        const uint8_t *k, *v;
        size_t kl, vl;
        cr_assert_eq(kv_cursor_entry(c, &k, &kl, &v, &vl), STRATA_OK);
        (*n)++;
        *sum += (uint64_t)k[0] << 24 | (uint64_t)k[1] << 16 | (uint64_t)k[2] << 8 | k[3];
    }
    kv_cursor_close(c);
}

static void check_integrity(kv_db *db) {
    btree_buf report = {0};
    uint64_t problems = 0;
    strata_err err;
    err_clear(&err);
    cr_assert_eq(kv_integrity_check(db, &report, &problems, &err), STRATA_OK, "%s", err.msg);
    cr_assert_eq(problems, 0, "%s", report.data ? (char *)report.data : "");
    btree_buf_free(&report);
}

TestSuite(savepoint, .init = setup, .fini = teardown);

Test(savepoint, rollback_undoes_splits_merges_and_page_allocation) {
    kv_db *db = open_db(0);
    strata_err err;
    err_clear(&err);
    kv_txn *t;
    cr_assert_eq(kv_begin(db, 1, &t, &err), STRATA_OK);
    put_range(t, 0, 2000, 100); /* before the savepoint: kept */
    pager_txn *pt = kv_txn_pager(t);
    pgno_t pages = pager_page_count(pt);
    cr_assert_eq(pager_savepoint(pt), STRATA_OK);
    put_range(t, 2000, 6000, 300); /* many splits, new pages */
    for (uint32_t i = 0; i < 1500; i++) { /* and merges */
        uint8_t k[4];
        key_of(i, k);
        cr_assert_eq(kv_delete(t, k, 4), STRATA_OK);
    }
    cr_assert_eq(pager_savepoint_rollback(pt), STRATA_OK);
    cr_assert_eq(pager_page_count(pt), pages);
    uint64_t n, sum;
    count_keys(t, &n, &sum);
    cr_assert_eq(n, 2000);
    cr_assert_eq(sum, (uint64_t)1999 * 2000 / 2);
    put_range(t, 7000, 7100, 50); /* the transaction goes on */
    cr_assert_eq(kv_commit(t), STRATA_OK, "%s", kv_errmsg(db));
    check_integrity(db);
    cr_assert_eq(kv_close(db), STRATA_OK);
    db = open_db(0);
    cr_assert_eq(kv_begin(db, 0, &t, &err), STRATA_OK);
    count_keys(t, &n, &sum);
    cr_assert_eq(n, 2100);
    kv_rollback(t);
    check_integrity(db);
    kv_close(db);
}

Test(savepoint, release_keeps_the_changes) {
    kv_db *db = open_db(0);
    strata_err err;
    err_clear(&err);
    kv_txn *t;
    cr_assert_eq(kv_begin(db, 1, &t, &err), STRATA_OK);
    cr_assert_eq(pager_savepoint(kv_txn_pager(t)), STRATA_OK);
    put_range(t, 0, 500, 100);
    pager_savepoint_release(kv_txn_pager(t));
    cr_assert_eq(pager_savepoint_rollback(kv_txn_pager(t)), STRATA_MISUSE); /* none left */
    cr_assert_eq(kv_commit(t), STRATA_OK);
    cr_assert_eq(kv_begin(db, 0, &t, &err), STRATA_OK);
    uint64_t n, sum;
    count_keys(t, &n, &sum);
    cr_assert_eq(n, 500);
    kv_rollback(t);
    kv_close(db);
}

Test(savepoint, a_statement_that_spilled_cannot_be_undone) {
    kv_db *db = open_db(256 * 1024); /* 32 pages of cache: the puts below spill */
    strata_err err;
    err_clear(&err);
    kv_txn *t;
    cr_assert_eq(kv_begin(db, 1, &t, &err), STRATA_OK);
    put_range(t, 0, 100, 100);
    pager_txn *pt = kv_txn_pager(t);
    cr_assert_eq(pager_savepoint(pt), STRATA_OK);
    put_range(t, 100, 20000, 300);
    cr_assert_eq(pager_savepoint_rollback(pt), STRATA_BUSY);
    /* nothing was changed by the refusal: the whole transaction is still there to roll back */
    uint64_t n, sum;
    count_keys(t, &n, &sum);
    cr_assert_eq(n, 20000);
    kv_rollback(t);
    cr_assert_eq(kv_begin(db, 0, &t, &err), STRATA_OK);
    count_keys(t, &n, &sum);
    cr_assert_eq(n, 0);
    kv_rollback(t);
    check_integrity(db);
    kv_close(db);
}
