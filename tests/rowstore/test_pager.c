/*
** test_pager.c -- the pager on its own: pages survive commit and reopen, rollback discards,
** the free list reuses pages, meta slots persist, snapshots stay stable across commits and
** checkpoints, large transactions spill within the cache bound, foreign files are refused, a
** read-only open reads without writing or creating anything, and a new WAL grows by the rule of
** wal_extend (64 KiB, doubling to 1 MiB steps) through power cuts.
*/
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "../../rowstore/pager.h"

static vfs *v;
static pager_config small_cfg = {.page_size = 4096, .cache_bytes = 64 * 4096, .autocheckpoint_bytes = 32 * 4096};

static void setup(void) { v = vfs_mem_create(); }
static void teardown(void) { vfs_destroy(v); }

TestSuite(pager, .init = setup, .fini = teardown);

static pager *open_db(const pager_config *cfg) {
    pager *p;
    strata_err err = {0};
    int rc = pager_open(v, "t.db", cfg, &p, &err);
    cr_assert_eq(rc, STRATA_OK, "open: %s", err.msg);
    return p;
}

static pager_txn *begin(pager *p, int write) {
    pager_txn *t;
    strata_err err = {0};
    cr_assert_eq(pager_begin(p, write, &t, &err), STRATA_OK, "begin: %s", err.msg);
    return t;
}

/* fill writes a recognizable pattern derived from tag into a page's usable bytes. */
static void fill(pager *p, page *pg, uint32_t tag) {
    for (uint32_t i = 0; i < pager_usable_size(p); i += 4) memcpy(pg->data + i, &tag, 4);
}

static void expect(pager_txn *t, pgno_t pgno, uint32_t tag) {
    page *pg;
    cr_assert_eq(pager_get(t, pgno, &pg), STRATA_OK, "get %u: %s", pgno, pager_txn_err(t)->msg);
    uint32_t got;
    memcpy(&got, pg->data + 100, 4);
    cr_assert_eq(got, tag, "page %u holds %u, expected %u", pgno, got, tag);
    pager_release(t, pg);
}

/* write_pages allocates n pages tagged base+i and commits; returns the first page number. */
static pgno_t write_pages(pager *p, uint32_t n, uint32_t base) {
    pager_txn *t = begin(p, 1);
    pgno_t first = 0;
    for (uint32_t i = 0; i < n; i++) {
        page *pg;
        cr_assert_eq(pager_alloc(t, &pg), STRATA_OK);
        if (i == 0) first = pg->pgno;
        fill(p, pg, base + i);
        pager_release(t, pg);
    }
    cr_assert_eq(pager_commit(t, NULL), STRATA_OK);
    return first;
}

Test(pager, commit_reopen_and_rollback) {
    pager *p = open_db(&small_cfg);
    pgno_t first = write_pages(p, 10, 1000);
    cr_assert_eq(first, 1);
    pager_txn *t = begin(p, 1);
    cr_assert_eq(pager_meta_set(t, 3, 0xdeadbeefcafeull), STRATA_OK);
    page *pg;
    cr_assert_eq(pager_get_mut(t, 5, &pg), STRATA_OK);
    fill(p, pg, 77);
    pager_release(t, pg);
    pager_rollback(t); /* discarded: page 5 keeps 1004, slot 3 stays 0 */

    t = begin(p, 1);
    cr_assert_eq(pager_meta_set(t, 2, 42), STRATA_OK);
    cr_assert_eq(pager_get(t, 7, &pg), STRATA_OK);
    cr_assert_eq(pager_make_mut(t, &pg), STRATA_OK);
    fill(p, pg, 4242);
    pager_release(t, pg);
    cr_assert_eq(pager_commit(t, NULL), STRATA_OK);
    cr_assert_eq(pager_close(p), STRATA_OK);

    p = open_db(NULL);
    t = begin(p, 0);
    cr_assert_eq(pager_page_count(t), 11);
    cr_assert_eq(pager_meta_get(t, 2), 42);
    cr_assert_eq(pager_meta_get(t, 3), 0);
    for (uint32_t i = 0; i < 10; i++) expect(t, 1 + i, i == 6 ? 4242 : 1000 + i);
    cr_assert_eq(pager_get(t, 11, &pg), STRATA_CORRUPT, "a page beyond the end is an error");
    cr_assert(strstr(pager_txn_err(t)->msg, "page 11") != NULL, "%s", pager_txn_err(t)->msg);
    pager_rollback(t);
    pager_close(p);
}

static int count_fn(void *arg, pgno_t pg, int trunk) {
    (void)pg;
    (void)trunk;
    (*(uint32_t *)arg)++;
    return 0;
}

Test(pager, free_list_reuses_pages) {
    pager *p = open_db(&small_cfg);
    write_pages(p, 2000, 0); /* more frees than one trunk page holds */
    pager_txn *t = begin(p, 1);
    for (pgno_t i = 1; i <= 2000; i += 2) cr_assert_eq(pager_free(t, i), STRATA_OK);
    cr_assert_eq(pager_commit(t, NULL), STRATA_OK);

    t = begin(p, 0);
    uint32_t count = 0;
    cr_assert_eq(pager_freelist_walk(t, count_fn, &count), STRATA_OK);
    cr_assert_eq(count, 1000);
    pager_rollback(t);

    t = begin(p, 1);
    for (int i = 0; i < 1000; i++) {
        page *pg;
        cr_assert_eq(pager_alloc(t, &pg), STRATA_OK);
        cr_assert(pg->pgno <= 2000 && pg->pgno % 2 == 1, "page %u did not come from the free list", pg->pgno);
        pager_release(t, pg);
    }
    cr_assert_eq(pager_page_count(t), 2001, "the file did not grow");
    cr_assert_eq(pager_commit(t, NULL), STRATA_OK);
    pager_close(p);
}

Test(pager, reader_snapshot_survives_commits_and_checkpoints) {
    pager *p = open_db(&small_cfg);
    write_pages(p, 50, 0);
    pager_txn *r = begin(p, 0);
    for (int round = 1; round <= 20; round++) { /* enough WAL to force several checkpoints */
        pager_txn *t = begin(p, 1);
        for (pgno_t i = 1; i <= 50; i++) {
            page *pg;
            cr_assert_eq(pager_get_mut(t, i, &pg), STRATA_OK);
            fill(p, pg, round * 1000 + i);
            pager_release(t, pg);
        }
        cr_assert_eq(pager_commit(t, NULL), STRATA_OK);
        pager_stats st;
        pager_get_stats(p, &st);
        cr_assert_leq(st.wal_bytes, 4 * small_cfg.autocheckpoint_bytes, "WAL grows while a reader is open");
    }
    for (pgno_t i = 1; i <= 50; i++) expect(r, i, i - 1); /* still the old state */
    pager_rollback(r);
    r = begin(p, 0);
    for (pgno_t i = 1; i <= 50; i++) expect(r, i, 20000 + i);
    pager_rollback(r);
    pager_close(p);
}

/* commit_page commits one transaction that rewrites page pgno with tag. */
static void commit_page(pager *p, pgno_t pgno, uint32_t tag) {
    pager_txn *t = begin(p, 1);
    page *pg;
    cr_assert_eq(pager_get_mut(t, pgno, &pg), STRATA_OK);
    fill(p, pg, tag);
    pager_release(t, pg);
    cr_assert_eq(pager_commit(t, NULL), STRATA_OK);
}

/* Versions a commit replaced leave the cache once no reader can see them, so commits that keep
** changing the same pages do not fill it with dead versions; a reader's versions stay readable. */
Test(pager, replaced_versions_leave_the_cache) {
    pager_config cfg = small_cfg;
    cfg.cache_bytes = 1024 * 4096;
    cfg.autocheckpoint_bytes = 4096 * 4096;
    pager *p = open_db(&cfg);
    write_pages(p, 4, 0);
    for (uint32_t round = 1; round <= 300; round++) commit_page(p, 1 + round % 4, round);
    pager_stats st;
    pager_get_stats(p, &st);
    cr_assert_leq(st.cache_bytes_used, 8 * 4096, "%zu bytes cached for 5 live pages", st.cache_bytes_used);
    pager_txn *r = begin(p, 0);
    expect(r, 1, 300); /* 300 % 4 == 0 */
    for (uint32_t round = 301; round <= 400; round++) {
        commit_page(p, 1, round);
        expect(r, 1, 300);
    }
    pager_rollback(r);
    r = begin(p, 0);
    expect(r, 1, 400);
    pager_rollback(r);
    pager_close(p);
}

/* Lowering the cache bound (SET memory_limit does) evicts clean pages at once. */
Test(pager, smaller_cache_bound_evicts_at_once) {
    pager_config cfg = small_cfg;
    cfg.cache_bytes = 1024 * 4096;
    pager *p = open_db(&cfg);
    write_pages(p, 300, 0);
    pager_txn *r = begin(p, 0);
    for (pgno_t i = 1; i <= 300; i++) expect(r, i, i - 1);
    pager_rollback(r);
    pager_stats st;
    pager_get_stats(p, &st);
    cr_assert_geq(st.cache_bytes_used, 300 * 4096, "%zu bytes cached", st.cache_bytes_used);
    pager_set_cache_bytes(p, 32 * 4096);
    pager_get_stats(p, &st);
    cr_assert_leq(st.cache_bytes_used, 32 * 4096, "%zu bytes cached after lowering the bound", st.cache_bytes_used);
    r = begin(p, 0); /* and the pages read back from the files */
    for (pgno_t i = 1; i <= 300; i++) expect(r, i, i - 1);
    pager_rollback(r);
    pager_get_stats(p, &st);
    cr_assert_leq(st.cache_bytes_used, 33 * 4096, "%zu bytes cached", st.cache_bytes_used);
    pager_close(p);
}

/* A transaction that adds many pages writes them into the database file itself, not the WAL; a
** reader from before it keeps its state, and the pages are there after a reopen. */
Test(pager, large_transaction_writes_new_pages_to_the_file) {
    pager_config cfg = small_cfg;
    cfg.cache_bytes = 1024 * 4096;
    cfg.direct_bytes = 16 * 4096;
    pager *p = open_db(&cfg);
    write_pages(p, 4, 0); /* pages 1..4, small: through the WAL */
    pager_stats st;
    pager_get_stats(p, &st);
    cr_assert_eq(st.pages_written_direct, 0);
    pager_txn *r = begin(p, 0);
    pager_txn *t = begin(p, 1);
    page *pg;
    cr_assert_eq(pager_get_mut(t, 1, &pg), STRATA_OK);
    fill(p, pg, 777);
    pager_release(t, pg);
    for (uint32_t i = 0; i < 100; i++) {
        cr_assert_eq(pager_alloc(t, &pg), STRATA_OK);
        cr_assert_eq(pg->pgno, 5 + i);
        fill(p, pg, 1000 + i);
        pager_release(t, pg);
    }
    uint64_t wal_before = st.pages_written_wal;
    cr_assert_eq(pager_commit(t, NULL), STRATA_OK);
    pager_get_stats(p, &st);
    cr_assert_eq(st.pages_written_direct, 100);
    cr_assert_eq(st.pages_written_wal - wal_before, 2, "the header and page 1 go to the WAL");
    expect(r, 1, 0); /* the reader's state is unchanged */
    cr_assert_eq(pager_page_count(r), 5);
    pager_rollback(r);
    r = begin(p, 0);
    expect(r, 1, 777);
    for (pgno_t i = 5; i < 105; i++) expect(r, i, 1000 + i - 5);
    pager_rollback(r);
    pager_close(p);
    p = open_db(&cfg);
    r = begin(p, 0);
    cr_assert_eq(pager_page_count(r), 105);
    expect(r, 1, 777);
    for (pgno_t i = 5; i < 105; i++) expect(r, i, 1000 + i - 5);
    pager_rollback(r);
    pager_close(p);
}

/* wal_bytes is the size of the WAL file of t.db. */
static uint64_t wal_bytes(void) {
    vfs_file *f;
    uint64_t n = 0;
    cr_assert_eq(vfs_open(v, "t.db-wal", VFS_READONLY, &f, NULL), STRATA_OK);
    cr_assert_eq(vfs_size(f, &n, NULL), STRATA_OK);
    vfs_close(f);
    return n;
}

static int wal_exists(void) {
    int e = -1;
    cr_assert_eq(vfs_exists(v, "t.db-wal", &e, NULL), STRATA_OK);
    return e;
}

/* A clean close folds the WAL into the file and removes it: a closed database is one file. The
** next open creates a new WAL, and the next session reads everything and writes on. */
Test(pager, close_removes_the_wal) {
    pager_config cfg = small_cfg;
    cfg.cache_bytes = 4096 * 4096;
    cfg.autocheckpoint_bytes = 64 << 20;
    cfg.direct_bytes = 64 << 20; /* every page through the WAL */
    pager *p = open_db(&cfg);
    for (uint32_t i = 0; i < 3; i++) write_pages(p, 1000, 10000 * i); /* ~12 MiB through the WAL */
    cr_assert_gt(wal_bytes(), 4u << 20, "the WAL holds the three transactions");
    cr_assert_eq(pager_close(p), STRATA_OK);
    cr_assert_eq(wal_exists(), 0, "a clean close removes the WAL (%llu bytes left)", (unsigned long long)wal_bytes());
    p = open_db(&cfg);
    pager_txn *r = begin(p, 0);
    cr_assert_eq(pager_page_count(r), 3001);
    for (uint32_t i = 0; i < 3; i++) {
        expect(r, 1 + 1000 * i, 10000 * i);
        expect(r, 1000 * (i + 1), 10000 * i + 999);
    }
    pager_rollback(r);
    cr_assert_eq(wal_exists(), 1, "an open database has its WAL");
    write_pages(p, 10, 50000); /* the next session writes on */
    cr_assert_eq(pager_close(p), STRATA_OK);
    cr_assert_eq(wal_exists(), 0);
    p = open_db(&cfg); /* a session that only reads leaves one file too */
    r = begin(p, 0);
    cr_assert_eq(pager_page_count(r), 3011);
    expect(r, 3010, 50009);
    pager_rollback(r);
    cr_assert_eq(pager_close(p), STRATA_OK);
    cr_assert_eq(wal_exists(), 0);
}

/* pager_read_run reads ahead from the database file while it holds the pages as the reader sees
** them: it stops before a page whose newer version is in the WAL and before a damaged page (no
** error until that page is asked for first), and reads page by page for a writer. */
Test(pager, read_run_reads_ahead_only_what_the_file_holds) {
    vfs_destroy(v);
    v = vfs_fault_create();
    pager *p = open_db(&small_cfg);
    write_pages(p, 20, 500); /* pages 1..20, in the file after the close; none cached after the open */
    pager_close(p);
    p = open_db(&small_cfg);
    commit_page(p, 6, 9006); /* page 6's newer version in the WAL */
    uint32_t ps = pager_page_size(p);
    uint8_t *buf = malloc(16 * (size_t)ps), bad[16] = {0xde, 0xad};
    cr_assert_eq(vfs_fault_poke(v, "t.db", 12 * (uint64_t)ps + 200, bad, sizeof bad), STRATA_OK);
    pager_txn *r = begin(p, 0);
    uint32_t got = 0, tag;
    cr_assert_eq(pager_read_run(r, 1, 16, buf, &got), STRATA_OK);
    cr_assert_eq(got, 5, "pages 1..5 from the file, then page 6 is in the WAL");
    for (uint32_t i = 0; i < got; i++) {
        memcpy(&tag, buf + (size_t)i * ps + 100, 4);
        cr_assert_eq(tag, 500 + i, "page %u", 1 + i);
    }
    cr_assert_eq(pager_read_run(r, 6, 16, buf, &got), STRATA_OK);
    memcpy(&tag, buf + 100, 4);
    cr_assert(got == 1 && tag == 9006, "page 6 as the WAL has it (%u pages, tag %u)", got, tag);
    cr_assert_eq(pager_read_run(r, 7, 16, buf, &got), STRATA_OK, "%s", pager_txn_err(r)->msg);
    cr_assert_eq(got, 5, "pages 7..11, then the damaged page 12 ends the run without an error");
    cr_assert_eq(pager_read_run(r, 12, 16, buf, &got), STRATA_CORRUPT, "the damaged page asked for first");
    pager_rollback(r);
    pager_txn *w = begin(p, 1);
    cr_assert_eq(pager_read_run(w, 1, 16, buf, &got), STRATA_OK);
    cr_assert_eq(got, 1, "a writer reads page by page");
    pager_rollback(w);
    free(buf);
    pager_close(p);
}

Test(pager, large_transaction_spills_within_cache_bound) {
    pager *p = open_db(&small_cfg);
    pager_txn *t = begin(p, 1);
    for (uint32_t i = 0; i < 5000; i++) { /* 20 MB of pages through a 256 KB cache */
        page *pg;
        cr_assert_eq(pager_alloc(t, &pg), STRATA_OK);
        fill(p, pg, i);
        pager_release(t, pg);
    }
    for (pgno_t i = 1; i <= 5000; i += 97) expect(t, i, i - 1); /* spilled pages read back */
    pager_stats st;
    pager_get_stats(p, &st);
    cr_assert_leq(st.cache_bytes_peak, small_cfg.cache_bytes + 4 * 4096, "peak %zu", st.cache_bytes_peak);
    cr_assert_eq(pager_commit(t, NULL), STRATA_OK);
    pager_close(p);
    p = open_db(&small_cfg);
    t = begin(p, 0);
    for (pgno_t i = 1; i <= 5000; i++) expect(t, i, i - 1);
    pager_rollback(t);
    pager_close(p);
}

Test(pager, spilled_then_rolled_back_leaves_nothing) {
    pager *p = open_db(&small_cfg);
    write_pages(p, 3, 7);
    pager_txn *t = begin(p, 1);
    for (uint32_t i = 0; i < 1000; i++) {
        page *pg;
        cr_assert_eq(pager_alloc(t, &pg), STRATA_OK);
        fill(p, pg, 99);
        pager_release(t, pg);
    }
    pager_rollback(t);
    write_pages(p, 1, 500);
    pager_close(p);
    p = open_db(&small_cfg);
    t = begin(p, 0);
    cr_assert_eq(pager_page_count(t), 5);
    expect(t, 4, 500);
    pager_rollback(t);
    pager_close(p);
}

Test(pager, one_writer_and_one_handle) {
    pager *p = open_db(&small_cfg);
    pager_txn *w = begin(p, 1), *w2;
    strata_err err = {0};
    cr_assert_eq(pager_begin(p, 1, &w2, &err), STRATA_BUSY);
    cr_assert(strstr(err.msg, "another write transaction") != NULL, "%s", err.msg);
    pager_rollback(w);
    pager *p2;
    err_clear(&err);
    cr_assert_eq(pager_open(v, "t.db", NULL, &p2, &err), STRATA_BUSY, "a second handle must be refused");
    cr_assert(strlen(err.msg) > 0);
    pager_close(p);
}

Test(pager, refuses_foreign_and_newer_files) {
    vfs_file *f;
    strata_err err = {0};
    cr_assert_eq(vfs_open(v, "x.db", VFS_CREATE, &f, &err), STRATA_OK);
    char sqlite_hdr[4096] = "SQLite format 3";
    cr_assert_eq(vfs_write(f, sqlite_hdr, sizeof sqlite_hdr, 0, &err), STRATA_OK);
    vfs_close(f);
    pager *p;
    cr_assert_eq(pager_open(v, "x.db", NULL, &p, &err), STRATA_NOTADB);
    cr_assert(strstr(err.msg, "not a strata database") != NULL, "%s", err.msg);

    pager *q = open_db(NULL);
    pager_close(q);
    cr_assert_eq(vfs_open(v, "t.db", 0, &f, &err), STRATA_OK);
    uint8_t ver[4] = {9, 0, 0, 0};
    cr_assert_eq(vfs_write(f, ver, 4, 16, &err), STRATA_OK);
    vfs_close(f);
    err_clear(&err);
    cr_assert_eq(pager_open(v, "t.db", NULL, &p, &err), STRATA_FORMAT);
    cr_assert(strstr(err.msg, "newer") != NULL, "%s", err.msg);
}

Test(pager, read_only_open_changes_nothing) {
    pager *p = open_db(&small_cfg);
    write_pages(p, 3, 500);
    cr_assert_eq(pager_close(p), STRATA_OK);
    vfs_remove(v, "t.db-wal", NULL); /* a clean close removes it; without it, none may be made */
    pager_config ro = small_cfg;
    ro.read_only = 1;
    p = open_db(&ro);
    pager_txn *t = begin(p, 0);
    expect(t, 2, 501);
    pager_rollback(t);
    strata_err err = {0};
    cr_assert_eq(pager_begin(p, 1, &t, &err), STRATA_READONLY, "a write transaction is refused");
    cr_assert_eq(pager_checkpoint(p, &err), STRATA_READONLY);
    cr_assert_eq(pager_close(p), STRATA_OK);
    int exists = 1;
    cr_assert_eq(vfs_exists(v, "t.db-wal", &exists, NULL), STRATA_OK);
    cr_assert_eq(exists, 0, "no WAL was made");
    cr_assert_neq(pager_open(v, "missing.db", &ro, &p, &err), STRATA_OK, "a missing file is not created");
    cr_assert_eq(vfs_exists(v, "missing.db", &exists, NULL), STRATA_OK);
    cr_assert_eq(exists, 0);
    vfs_file *f;
    cr_assert_eq(vfs_open(v, "empty.db", VFS_CREATE, &f, NULL), STRATA_OK);
    vfs_close(f);
    cr_assert_eq(pager_open(v, "empty.db", &ro, &p, &err), STRATA_NOTADB, "%s", err.msg);
}

/* --- the WAL's growth ----------------------------------------------------------------------- */

/* commit_new_page allocates one page tagged tag and commits it (two frames: the page and the
** header page, whose page count changed); the commit's status. */
static int commit_new_page(pager *p, uint32_t tag) {
    pager_txn *t;
    page *pg;
    if (pager_begin(p, 1, &t, NULL) != STRATA_OK) return STRATA_IOERR;
    if (pager_alloc(t, &pg) != STRATA_OK) {
        pager_rollback(t);
        return STRATA_IOERR;
    }
    fill(p, pg, tag);
    pager_release(t, pg);
    return pager_commit(t, NULL);
}

static uint64_t fault_wal_size(void) {
    uint64_t n = 0;
    cr_assert_eq(vfs_fault_file_size(v, "t.db-wal", &n), STRATA_OK);
    return n;
}

static const pager_config growth_cfg = {
    .page_size = 4096,
    .cache_bytes = 4096 * 4096,
    .autocheckpoint_bytes = 64 << 20, /* no checkpoint: the WAL only grows */
    .direct_bytes = 64 << 20,         /* every page through the WAL */
};

/* A new WAL grows in steps that start at 64 KiB and double up to 1 MiB, then by 1 MiB: the first
** commit after an open writes 64 KiB of zeros, not a megabyte, and a long session still reaches
** the megabyte step. The file always holds more than the WAL in use (commits overwrite zeros). */
Test(pager, new_wal_grows_from_64k_doubling_to_1m_steps) {
    vfs_destroy(v);
    v = vfs_fault_create(); /* its file sizes are the bytes written, zeros included */
    pager *p = open_db(&growth_cfg);
    cr_assert_eq(fault_wal_size(), 0, "an open without a commit writes nothing to the new WAL");
    static const uint64_t want[] = {64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20, 2 << 20, 3 << 20};
    const size_t nwant = sizeof want / sizeof want[0];
    uint64_t seen[16];
    size_t nseen = 0;
    for (uint32_t i = 0; fault_wal_size() < (3u << 20); i++) {
        cr_assert_lt(i, 1000, "the WAL stopped growing at %llu bytes", (unsigned long long)fault_wal_size());
        cr_assert_eq(commit_new_page(p, 5000 + i), STRATA_OK);
        uint64_t size = fault_wal_size();
        pager_stats st;
        pager_get_stats(p, &st);
        cr_assert_gt(size, st.wal_bytes, "commit %u: the file (%llu bytes) does not hold more than the WAL in use (%llu)",
                     i, (unsigned long long)size, (unsigned long long)st.wal_bytes);
        if (nseen == 0 || seen[nseen - 1] != size) {
            cr_assert_lt(nseen, nwant, "the WAL grew to an unexpected size %llu", (unsigned long long)size);
            cr_assert_eq(size, want[nseen], "growth %zu: the WAL file is %llu bytes, expected %llu", nseen,
                         (unsigned long long)size, (unsigned long long)want[nseen]);
            seen[nseen++] = size;
        }
        if (i == 0) cr_assert_eq(size, 64 << 10, "the first commit grows a new WAL to 64 KiB");
    }
    cr_assert_eq(nseen, nwant);
    pager_close(p);
}

/* A power cut at every write and sync of a session that takes a new WAL through every growth
** step (64 KiB to 2 MiB) loses no commit that returned, and keeps the one in flight whole or not
** at all. */
Test(pager, wal_growth_survives_a_power_cut_anywhere, .timeout = 120) {
    const uint32_t commits = 140; /* 2 frames each: ~1.1 MiB of WAL, growths to 2 MiB */
    const unsigned mask = VFS_OP_WRITE | VFS_OP_SYNC | VFS_OP_TRUNCATE;
    vfs_destroy(v);
    v = vfs_fault_create();
    vfs_fault_plan count = {.op_mask = mask};
    vfs_fault_set_plan(v, &count);
    pager *p = open_db(&growth_cfg);
    for (uint32_t i = 0; i < commits; i++) cr_assert_eq(commit_new_page(p, 7000 + i), STRATA_OK);
    uint64_t total = vfs_fault_count(v);
    cr_assert_gt(total, 2 * commits, "a commit writes and syncs: %llu calls", (unsigned long long)total);
    cr_assert_geq(fault_wal_size(), 2u << 20, "the session should reach the 2 MiB size");
    pager_close(p);
    vfs_destroy(v);
    v = NULL;
    unsigned failures = 0;
    for (uint64_t n = 1; n <= total; n++) {
        for (int mode = VFS_LOSE_UNSYNCED; mode <= VFS_KEEP_UNSYNCED; mode++) {
            v = vfs_fault_create();
            vfs_fault_plan plan = {.op_mask = mask, .fail_at = n, .fail_errno = EIO, .crash = 1};
            vfs_fault_set_plan(v, &plan);
            pager *q;
            uint32_t done = 0;
            if (pager_open(v, "t.db", &growth_cfg, &q, NULL) == STRATA_OK) {
                while (done < commits && commit_new_page(q, 7000 + done) == STRATA_OK) done++;
                pager_close(q);
            }
            vfs_fault_power_loss(v, mode);
            q = open_db(&growth_cfg);
            pager_txn *r = begin(q, 0);
            uint32_t have = pager_page_count(r) - 1;
            int bad = have < done || have > done + 1;
            for (uint32_t i = 0; i < have && !bad; i++) {
                page *pg;
                uint32_t got = 0;
                bad = pager_get(r, 1 + i, &pg) != STRATA_OK;
                if (!bad) {
                    memcpy(&got, pg->data + 100, 4);
                    pager_release(r, pg);
                    bad = got != 7000 + i;
                }
            }
            pager_rollback(r);
            pager_close(q);
            if (bad && failures++ < 8)
                cr_log_error("power cut at call %llu/%llu (%s): %u commits returned, %u pages after recovery",
                             (unsigned long long)n, (unsigned long long)total,
                             mode == VFS_LOSE_UNSYNCED ? "LOSE_UNSYNCED" : "KEEP_UNSYNCED", done, have);
            vfs_destroy(v);
            v = NULL;
        }
    }
    v = vfs_mem_create(); /* for the teardown */
    cr_assert_eq(failures, 0, "%u of %llu power cuts lost a commit or kept half of one", failures,
                 (unsigned long long)(2 * total));
}
