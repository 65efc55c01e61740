/*
** test_diskfull.c -- a full disk fails the statement, not the database.
**
** What a user relies on when the disk fills up:
**   - the commit that does not fit returns STRATA_FULL (a put that has to spill: STRATA_FULL with
**     a message saying so) and leaves no trace: the handle shows the last committed state;
**   - every earlier commit is intact, in the open handle, after a clean reopen and after a power
**     loss; the integrity check finds nothing;
**   - once space is available again, commits succeed on the same handle (or, at worst, after a
**     reopen that loses nothing);
**   - a checkpoint that runs out of space reports STRATA_FULL and loses nothing.
** Space runs out in two ways: a capacity limit on the fault vfs, and ENOSPC injected at every
** single write and sync of a stretch of commits or of a checkpoint.
*/
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../rowstore/kv.h"
#include "helpers/workload.h"

#define DB "full.db"
#define WAL "full.db-wal"
#define NK 150
#define MAX_REPORTED 12

static kv_options options(vfs *v, uint64_t autocheckpoint) {
    kv_options o;
    memset(&o, 0, sizeof o);
    o.vfs = v;
    o.pager.page_size = 4096;
    o.pager.cache_bytes = 256 << 10;
    o.pager.autocheckpoint_bytes = autocheckpoint;
    return o;
}

/* Transaction j of the test: three puts (one value of several pages) and a delete of a present
** key. Applies it to m only when kv_commit returns STRATA_OK. *stage says where it stopped: 0 begin,
** 1 put/delete, 2 commit. why gets the message (of a failed commit: kv_errmsg). attempted (may be
** NULL) gets the model as it would be had the transaction committed. */
static int run_txn_full(kv_db *db, wl_entry *m, uint32_t j, int *stage, char *why, size_t whylen,
                        wl_entry *attempted) {
    wl_entry next[NK];
    memcpy(next, m, sizeof next);
    kv_txn *t = NULL;
    strata_err err = {0};
    why[0] = '\0';
    *stage = 0;
    int rc = kv_begin(db, 1, &t, &err);
    if (rc != STRATA_OK) {
        snprintf(why, whylen, "kv_begin: %s", err.msg);
        return rc;
    }
    *stage = 1;
    uint8_t val[12000];
    for (uint32_t x = 0; x < 3 && rc == STRATA_OK; x++) {
        uint32_t k = (j * 7 + x * 53) % NK;
        uint32_t len = x == 0 ? 5000 + (j * 131) % 6000 : 100 + (j * 37 + x * 11) % 900;
        uint32_t tag = j * 4 + x + 1;
        char key[WL_KEY_LEN + 1];
        wl_value_fill(val, len, k, tag);
        rc = kv_put(t, key, wl_key(key, k), val, len);
        if (rc == STRATA_OK) wl_model_put(next, k, tag, len);
    }
    uint32_t d = (j * 11 + 5) % NK;
    if (rc == STRATA_OK && next[d].present) {
        char key[WL_KEY_LEN + 1];
        rc = kv_delete(t, key, wl_key(key, d));
        if (rc == STRATA_OK) wl_model_del(next, d);
    }
    if (rc != STRATA_OK) {
        snprintf(why, whylen, "%s", kv_txn_errmsg(t));
        kv_rollback(t);
        return rc;
    }
    *stage = 2;
    if (attempted) memcpy(attempted, next, sizeof next);
    rc = kv_commit(t);
    if (rc == STRATA_OK)
        memcpy(m, next, sizeof next);
    else
        snprintf(why, whylen, "%s", kv_errmsg(db));
    return rc;
}

static int run_txn(kv_db *db, wl_entry *m, uint32_t j, int *stage, char *why, size_t whylen) {
    return run_txn_full(db, m, j, stage, why, whylen, NULL);
}

static const char *stage_name(int stage) {
    return stage == 0 ? "kv_begin" : stage == 1 ? "kv_put/kv_delete" : "kv_commit";
}

static uint64_t used_bytes(vfs *v) {
    uint64_t a = 0, b = 0;
    vfs_fault_file_size(v, DB, &a);
    vfs_fault_file_size(v, WAL, &b);
    return a + b;
}

static kv_db *open_db(vfs *v, uint64_t autocheckpoint) {
    kv_options o = options(v, autocheckpoint);
    kv_db *db = NULL;
    strata_err err = {0};
    int rc = kv_open(DB, &o, &db, &err);
    cr_assert_eq(rc, STRATA_OK, "kv_open: %s: %s", strata_errstr(rc), err.msg);
    return db;
}

static void assert_matches(kv_db *db, const wl_entry *m, const char *when) {
    char why[700];
    cr_assert_eq(wl_db_matches(db, m, NK, why, sizeof why), STRATA_OK, "%s: %s", when, why);
    cr_assert_eq(wl_integrity(db, why, sizeof why), STRATA_OK, "%s: %s", when, why);
}

static int says_full(const char *msg) { return wl_contains_ci(msg, "space") || wl_contains_ci(msg, "full"); }

/* --- a capacity limit ------------------------------------------------------------------------- */

Test(diskfull, commit_beyond_capacity_fails_cleanly, .timeout = 60) {
    vfs *v = vfs_fault_create();
    wl_entry m[NK];
    memset(m, 0, sizeof m);
    kv_db *db = open_db(v, 256 << 10);
    int stage;
    char why[600];
    uint32_t j = 0;
    for (; j < 10; j++)
        cr_assert_eq(run_txn(db, m, j, &stage, why, sizeof why), STRATA_OK, "base txn %u: %s", j, why);
    vfs_fault_set_capacity(v, used_bytes(v) + (40 << 10));

    int rc = STRATA_OK;
    for (; j < 200 && rc == STRATA_OK; j++)
        rc = run_txn(db, m, j, &stage, why, sizeof why);
    cr_assert_neq(rc, STRATA_OK, "200 transactions fit in 40 KiB more: the capacity is not enforced");
    cr_assert_eq(rc, STRATA_FULL, "a full disk gave %s at %s ('%s'), want STRATA_FULL", strata_errstr(rc),
                 stage_name(stage), why);
    cr_expect(says_full(why), "the message of a full disk does not say so: '%s'", why);
    assert_matches(db, m, "after the failed commit (same handle)");

    /* still full: further commits fail the same way and change nothing */
    for (int i = 0; i < 3; i++, j++) {
        rc = run_txn(db, m, j, &stage, why, sizeof why);
        cr_assert(rc == STRATA_OK || rc == STRATA_FULL, "still full: %s at %s: '%s'", strata_errstr(rc),
                  stage_name(stage), why);
    }
    assert_matches(db, m, "after more failed commits");

    /* space again: the same handle commits */
    vfs_fault_set_capacity(v, 0);
    for (int i = 0; i < 5; i++, j++) {
        rc = run_txn(db, m, j, &stage, why, sizeof why);
        cr_assert_eq(rc, STRATA_OK, "with space again, txn %u: %s at %s: '%s'", j, strata_errstr(rc),
                     stage_name(stage), why);
    }
    assert_matches(db, m, "after space came back");
    cr_assert_eq(kv_close(db), STRATA_OK);
    db = open_db(v, 256 << 10);
    assert_matches(db, m, "after reopen");
    kv_close(db);
    vfs_destroy(v);
}

/* A commit that needs a few pages succeeds while a few hundred KiB are free: the space a
** commit needs is what it writes, not a fixed allotment. */
Test(diskfull, small_commits_fit_in_the_space_left, .timeout = 30) {
    vfs *v = vfs_fault_create();
    kv_db *db = open_db(v, 256 << 10);
    uint64_t limit = used_bytes(v) + (320 << 10);
    vfs_fault_set_capacity(v, limit);
    for (int i = 0; i < 10; i++) {
        kv_txn *t = NULL;
        strata_err err = {0};
        cr_assert_eq(kv_begin(db, 1, &t, &err), STRATA_OK, "%s", err.msg);
        char key[16], val[1000];
        memset(val, 'a' + i, sizeof val);
        int klen = snprintf(key, sizeof key, "small-%d", i);
        cr_assert_eq(kv_put(t, key, (size_t)klen, val, sizeof val), STRATA_OK, "%s", kv_txn_errmsg(t));
        uint64_t free_before = limit - used_bytes(v);
        int rc = kv_commit(t);
        cr_assert_eq(
            rc, STRATA_OK,
            "commit %d of one 1 KB value failed with %s while %llu bytes were free; the WAL now takes %llu "
            "bytes",
            i, strata_errstr(rc), (unsigned long long)free_before,
            (unsigned long long)wl_vfs_file_size(v, WAL));
    }
    kv_close(db);
    vfs_destroy(v);
}

/* The commits fill the WAL; then the checkpoint cannot grow the database file. */
Test(diskfull, checkpoint_beyond_capacity_loses_nothing, .timeout = 60) {
    for (int mode = VFS_LOSE_UNSYNCED; mode <= VFS_KEEP_UNSYNCED; mode++) {
        vfs *v = vfs_fault_create();
        wl_entry m[NK];
        memset(m, 0, sizeof m);
        kv_db *db = open_db(v, 64 << 20);
        int stage;
        char why[600];
        uint32_t j = 0;
        cr_assert_eq(run_txn(db, m, j++, &stage, why, sizeof why), STRATA_OK, "%s", why);
        strata_err err = {0};
        cr_assert_eq(kv_checkpoint(db, &err), STRATA_OK, "%s", err.msg);
        for (; j < 30; j++)
            cr_assert_eq(run_txn(db, m, j, &stage, why, sizeof why), STRATA_OK, "txn %u: %s", j, why);
        vfs_fault_set_capacity(v, used_bytes(v) + 2 * 4096);
        int rc = kv_checkpoint(db, &err);
        cr_assert_eq(rc, STRATA_FULL, "checkpoint without space gave %s '%s'", strata_errstr(rc), err.msg);
        cr_expect(says_full(err.msg), "the message of a full disk does not say so: '%s'", err.msg);
        assert_matches(db, m, "after the failed checkpoint");
        /* the process dies now; whatever the checkpoint wrote, the WAL still has everything */
        wl_crash_close(v, db, mode);
        db = open_db(v, 64 << 20);
        assert_matches(db, m, "after power loss following a failed checkpoint");
        vfs_fault_set_capacity(v, 0);
        cr_assert_eq(kv_checkpoint(db, &err), STRATA_OK, "%s", err.msg);
        cr_assert_eq(run_txn(db, m, j++, &stage, why, sizeof why), STRATA_OK, "%s", why);
        cr_assert_eq(kv_close(db), STRATA_OK);
        db = open_db(v, 64 << 20);
        assert_matches(db, m, "after the checkpoint succeeded");
        kv_close(db);
        vfs_destroy(v);
    }
}

/* --- ENOSPC at every write and sync ------------------------------------------------------------ */

#define BASE_TXNS 6
#define FAULT_TXNS 8

/* What went wrong in one case. resurrected: a commit that returned an error (its fsync failed) is
** nevertheless in the database afterwards -- kv.h says "otherwise rolled back", while
** docs/ARCHITECTURE.md says the state is unknown after a failed fsync; counted apart. */
typedef struct case_result {
    char problem[1200];
    int resurrected;
    char resurrected_how[600];
} case_result;

/* One case: ENOSPC at counted call n (persistent: and every call after it) during FAULT_TXNS
** commits with a 32 KiB autocheckpoint, then space again: the handle must show exactly the
** commits that returned OK, take a new commit, and keep all of it through a power loss. */
static void enospc_case(uint64_t n, int persistent, int mode, uint64_t *calls_out, case_result *res) {
    const unsigned mask = VFS_OP_WRITE | VFS_OP_SYNC;
    res->problem[0] = '\0';
    res->resurrected = 0;
    vfs *v = vfs_fault_create();
    wl_entry m[NK], ghost[NK];
    memset(m, 0, sizeof m);
    kv_db *db = open_db(v, 32 << 10);
    int stage;
    char why[600];
    uint32_t j = 0;
    for (; j < BASE_TXNS; j++)
        cr_assert_eq(run_txn(db, m, j, &stage, why, sizeof why), STRATA_OK, "%s", why);
    vfs_fault_plan plan = {.op_mask = mask, .fail_at = n, .fail_errno = ENOSPC, .persistent = persistent};
    vfs_fault_set_plan(v, &plan);
    char log[600] = "";
    int poisoned = 0, failed_commit = -1;
    for (; j < BASE_TXNS + FAULT_TXNS; j++) {
        wl_entry attempted[NK];
        int rc = run_txn_full(db, m, j, &stage, why, sizeof why, attempted);
        if (rc == STRATA_OK) continue;
        wl_appendf(log, sizeof log, " txn %u: %s at %s '%s';", j, strata_errstr(rc), stage_name(stage), why);
        if (stage == 2 && failed_commit < 0) {
            failed_commit = (int)j;
            memcpy(ghost, attempted, sizeof ghost);
        }
        if (stage == 0 && rc == STRATA_IOERR) {
            poisoned = 1; /* the handle refuses writes after a failed fsync (docs/ARCHITECTURE.md) */
        } else if (rc != STRATA_FULL) {
            snprintf(res->problem, sizeof res->problem, "ENOSPC gave %s (want STRATA_FULL):%s",
                     strata_errstr(rc), log);
        } else if (!says_full(why)) {
            snprintf(res->problem, sizeof res->problem,
                     "the message of ENOSPC does not say the disk is full:%s", log);
        }
    }
    if (calls_out) *calls_out = vfs_fault_count(v);
    vfs_fault_plan none = {0};
    vfs_fault_set_plan(v, &none);
    /* The model the database must match: the commits that returned OK. If instead it matches
    ** them plus the one failed commit, note that and go on with that model. */
    if (!res->problem[0] && wl_db_matches(db, m, NK, why, sizeof why) != STRATA_OK) {
        char why2[600];
        if (failed_commit >= 0 && wl_db_matches(db, ghost, NK, why2, sizeof why2) == STRATA_OK) {
            res->resurrected = 1;
            snprintf(res->resurrected_how, sizeof res->resurrected_how,
                     "txn %d: kv_commit returned an error, yet the same handle shows it;%s", failed_commit,
                     log);
            memcpy(m, ghost, sizeof ghost);
        } else {
            snprintf(res->problem, sizeof res->problem,
                     "the open handle does not show exactly the commits that returned OK: %s;%s", why, log);
        }
    }
    /* space again: commit on the same handle, or after a reopen if it refuses */
    if (!res->problem[0]) {
        int rc = run_txn(db, m, j, &stage, why, sizeof why);
        if (rc != STRATA_OK && stage == 0 && (poisoned || rc == STRATA_IOERR)) {
            poisoned = 1; /* the handle refuses writes: its failed commit's outcome is unknown */
            kv_close(db);
            db = open_db(v, 32 << 10);
            if (wl_db_matches(db, m, NK, why, sizeof why) != STRATA_OK) {
                char why2[600];
                if (failed_commit >= 0 && !res->resurrected &&
                    wl_db_matches(db, ghost, NK, why2, sizeof why2) == STRATA_OK) {
                    /* docs/ARCHITECTURE.md: when even the undo of a failed fsync cannot be made
                    ** durable, the handle refuses writes and the commit's outcome is unknown */
                    if (!poisoned) {
                        res->resurrected = 1;
                        snprintf(res->resurrected_how, sizeof res->resurrected_how,
                                 "txn %d: kv_commit returned an error, yet it is there after a reopen;%s",
                                 failed_commit, log);
                    }
                    memcpy(m, ghost, sizeof ghost);
                } else {
                    snprintf(res->problem, sizeof res->problem,
                             "after the handle refused writes (%s) and was reopened: %s;%s",
                             strata_errstr(rc), why, log);
                }
            }
            if (!res->problem[0]) rc = run_txn(db, m, j, &stage, why, sizeof why);
        }
        if (!res->problem[0] && rc != STRATA_OK)
            snprintf(res->problem, sizeof res->problem, "with space again, a commit gave %s at %s '%s';%s",
                     strata_errstr(rc), stage_name(stage), why, log);
    }
    j++;
    if (!res->problem[0]) {
        wl_crash_close(v, db, mode);
        kv_options o = options(v, 32 << 10);
        strata_err err = {0};
        db = NULL;
        int rc = kv_open(DB, &o, &db, &err);
        if (rc != STRATA_OK)
            snprintf(res->problem, sizeof res->problem, "reopen after power loss: %s '%s';%s",
                     strata_errstr(rc), err.msg, log);
        else if (wl_db_matches(db, m, NK, why, sizeof why) != STRATA_OK)
            snprintf(res->problem, sizeof res->problem, "after power loss: %s;%s", why, log);
        else if (wl_integrity(db, why, sizeof why) != STRATA_OK)
            snprintf(res->problem, sizeof res->problem, "after power loss: %s;%s", why, log);
    }
    if (db) kv_close(db);
    vfs_destroy(v);
}

Test(diskfull, enospc_at_every_write_and_sync_of_commits, .timeout = 180) {
    uint64_t total = 0;
    case_result res;
    enospc_case(0, 0, VFS_LOSE_UNSYNCED, &total, &res);
    cr_assert_eq(res.problem[0], '\0', "without faults: %s", res.problem);
    cr_assert_gt(total, FAULT_TXNS, "only %llu calls counted", (unsigned long long)total);
    unsigned failures = 0, resurrected = 0, cases = 0;
    for (uint64_t n = 1; n <= total; n++) {
        for (int persistent = 0; persistent <= 1; persistent++) {
            enospc_case(n, persistent, (int)(n % 2) ? VFS_KEEP_UNSYNCED : VFS_LOSE_UNSYNCED, NULL, &res);
            cases++;
            if (res.resurrected) {
                if (resurrected < 3)
                    cr_log_error("ENOSPC at call %llu/%llu%s: FAILED COMMIT VISIBLE: %s",
                                 (unsigned long long)n, (unsigned long long)total,
                                 persistent ? " and after" : "", res.resurrected_how);
                resurrected++;
            }
            if (res.problem[0]) {
                if (failures < MAX_REPORTED)
                    cr_log_error("ENOSPC at call %llu/%llu%s: %s", (unsigned long long)n,
                                 (unsigned long long)total, persistent ? " and after" : "", res.problem);
                failures++;
            }
        }
    }
    cr_expect_eq(resurrected, 0,
                 "%u of %u cases: a kv_commit that returned STRATA_FULL (its fsync failed) was nevertheless "
                 "committed; kv.h promises \"otherwise rolled back\"",
                 resurrected, cases);
    cr_assert_eq(failures, 0, "%u of %u ENOSPC cases went wrong (first %d logged)", failures, cases,
                 MAX_REPORTED);
}

/* --- ENOSPC inside a checkpoint ---------------------------------------------------------------- */

static void checkpoint_case(uint64_t n, int persistent, int crash_now, uint64_t *calls_out,
                            case_result *res) {
    const unsigned mask = VFS_OP_WRITE | VFS_OP_SYNC | VFS_OP_TRUNCATE;
    res->problem[0] = '\0';
    vfs *v = vfs_fault_create();
    wl_entry m[NK];
    memset(m, 0, sizeof m);
    kv_db *db = open_db(v, 64 << 20);
    int stage;
    char why[600];
    uint32_t j = 0;
    for (; j < 12; j++)
        cr_assert_eq(run_txn(db, m, j, &stage, why, sizeof why), STRATA_OK, "%s", why);
    vfs_fault_plan plan = {.op_mask = mask, .fail_at = n, .fail_errno = ENOSPC, .persistent = persistent};
    vfs_fault_set_plan(v, &plan);
    strata_err err = {0};
    int rc = kv_checkpoint(db, &err);
    if (calls_out) *calls_out = vfs_fault_count(v);
    vfs_fault_plan none = {0};
    vfs_fault_set_plan(v, &none);
    if (n == 0 && rc != STRATA_OK)
        snprintf(res->problem, sizeof res->problem, "checkpoint without faults: %s '%s'", strata_errstr(rc),
                 err.msg);
    else if (n > 0 && rc != STRATA_FULL)
        snprintf(res->problem, sizeof res->problem, "checkpoint with ENOSPC gave %s '%s' (want STRATA_FULL)",
                 strata_errstr(rc), err.msg);
    else if (n > 0 && !says_full(err.msg))
        snprintf(res->problem, sizeof res->problem,
                 "the checkpoint's message does not say the disk is full: '%s'", err.msg);
    else if (wl_db_matches(db, m, NK, why, sizeof why) != STRATA_OK)
        snprintf(res->problem, sizeof res->problem, "after the failed checkpoint: %s", why);
    if (!res->problem[0] && !crash_now) {
        for (int i = 0; i < 2 && !res->problem[0]; i++, j++) {
            rc = run_txn(db, m, j, &stage, why, sizeof why);
            if (rc != STRATA_OK)
                snprintf(res->problem, sizeof res->problem,
                         "commit after the failed checkpoint: %s at %s '%s'", strata_errstr(rc),
                         stage_name(stage), why);
        }
        if (!res->problem[0] && (rc = kv_checkpoint(db, &err)) != STRATA_OK)
            snprintf(res->problem, sizeof res->problem, "checkpoint with space again: %s '%s'",
                     strata_errstr(rc), err.msg);
        if (!res->problem[0] && wl_db_matches(db, m, NK, why, sizeof why) != STRATA_OK)
            snprintf(res->problem, sizeof res->problem, "after the second checkpoint: %s", why);
    }
    if (!res->problem[0]) {
        wl_crash_close(v, db, crash_now ? VFS_KEEP_UNSYNCED : VFS_LOSE_UNSYNCED);
        kv_options o = options(v, 64 << 20);
        db = NULL;
        err_clear(&err);
        rc = kv_open(DB, &o, &db, &err);
        if (rc != STRATA_OK)
            snprintf(res->problem, sizeof res->problem, "reopen after power loss: %s '%s'", strata_errstr(rc),
                     err.msg);
        else if (wl_db_matches(db, m, NK, why, sizeof why) != STRATA_OK)
            snprintf(res->problem, sizeof res->problem, "after power loss: %s", why);
        else if (wl_integrity(db, why, sizeof why) != STRATA_OK)
            snprintf(res->problem, sizeof res->problem, "after power loss: %s", why);
    }
    if (db) kv_close(db);
    vfs_destroy(v);
}

Test(diskfull, enospc_at_every_call_of_a_checkpoint, .timeout = 120) {
    uint64_t total = 0;
    case_result res;
    checkpoint_case(0, 0, 0, &total, &res);
    cr_assert_eq(res.problem[0], '\0', "%s", res.problem);
    /* at least one write of the pages (runs of consecutive pages go out in one write) and the sync */
    cr_assert_geq(total, 2, "a checkpoint of 12 transactions made only %llu calls", (unsigned long long)total);
    unsigned failures = 0, cases = 0;
    for (uint64_t n = 1; n <= total; n++)
        for (int persistent = 0; persistent <= 1; persistent++)
            for (int crash_now = 0; crash_now <= 1; crash_now++) {
                checkpoint_case(n, persistent, crash_now, NULL, &res);
                cases++;
                if (res.problem[0]) {
                    if (failures < MAX_REPORTED)
                        cr_log_error("ENOSPC at checkpoint call %llu/%llu%s, %s: %s", (unsigned long long)n,
                                     (unsigned long long)total, persistent ? " and after" : "",
                                     crash_now ? "then power loss" : "then more commits", res.problem);
                    failures++;
                }
            }
    cr_assert_eq(failures, 0, "%u of %u checkpoint ENOSPC cases went wrong", failures, cases);
}

/* --- a full disk, an I/O error or a power cut inside a close ----------------------------------- */

static int wal_exists(vfs *v) {
    int e = -1;
    cr_assert_eq(vfs_exists(v, WAL, &e, NULL), STRATA_OK);
    return e;
}

/* close_case: twelve commits, then the close meets a fault at its counted call n (0: none) --
** ENOSPC (once or from then on) or a power cut (then power loss in `mode`). The close returns
** STRATA_OK in every case (no commit is lost, so none may be reported as failed); the WAL is
** gone exactly when the close got through; the next open finds every commit, the integrity
** check finds nothing, and that session's close removes the WAL. */
static void close_case(uint64_t n, int persistent, int crash, int mode, uint64_t *calls_out, case_result *res) {
    res->problem[0] = '\0';
    vfs *v = vfs_fault_create();
    wl_entry m[NK];
    memset(m, 0, sizeof m);
    kv_db *db = open_db(v, 64 << 20);
    int stage;
    char why[600];
    for (uint32_t j = 0; j < 12; j++)
        cr_assert_eq(run_txn(db, m, j, &stage, why, sizeof why), STRATA_OK, "%s", why);
    vfs_fault_plan plan = {.op_mask = VFS_OP_WRITE | VFS_OP_SYNC | VFS_OP_TRUNCATE, .fail_at = n,
                           .fail_errno = crash ? EIO : ENOSPC, .persistent = persistent, .crash = crash};
    vfs_fault_set_plan(v, &plan);
    int rc = kv_close(db);
    db = NULL;
    if (calls_out) *calls_out = vfs_fault_count(v);
    int failed = n > 0 && vfs_fault_count(v) >= n;
    if (crash) vfs_fault_power_loss(v, mode);
    vfs_fault_plan none = {0};
    vfs_fault_set_plan(v, &none);
    if (rc != STRATA_OK)
        snprintf(res->problem, sizeof res->problem, "kv_close gave %s", strata_errstr(rc));
    else if (!failed && wal_exists(v))
        snprintf(res->problem, sizeof res->problem, "a close that got through left the WAL");
    else if (failed && !crash && !wal_exists(v))
        snprintf(res->problem, sizeof res->problem, "a close whose checkpoint failed removed the WAL");
    if (!res->problem[0]) {
        kv_options o = options(v, 64 << 20);
        strata_err err = {0};
        rc = kv_open(DB, &o, &db, &err);
        if (rc != STRATA_OK)
            snprintf(res->problem, sizeof res->problem, "reopen: %s '%s'", strata_errstr(rc), err.msg);
        else if (wl_db_matches(db, m, NK, why, sizeof why) != STRATA_OK)
            snprintf(res->problem, sizeof res->problem, "after reopen: %s", why);
        else if (wl_integrity(db, why, sizeof why) != STRATA_OK)
            snprintf(res->problem, sizeof res->problem, "after reopen: %s", why);
        else if ((rc = kv_close(db)) != STRATA_OK || (db = NULL, wal_exists(v)))
            snprintf(res->problem, sizeof res->problem, "the next clean close: %s, WAL %s", strata_errstr(rc),
                     wal_exists(v) ? "left" : "removed");
        db = NULL;
    }
    if (db) kv_close(db);
    vfs_destroy(v);
}

Test(diskfull, a_fault_at_every_call_of_a_close_loses_nothing, .timeout = 180) {
    uint64_t total = 0;
    case_result res;
    close_case(0, 0, 0, 0, &total, &res);
    cr_assert_eq(res.problem[0], '\0', "without faults: %s", res.problem);
    cr_assert_geq(total, 2, "a close after 12 transactions made only %llu calls", (unsigned long long)total);
    unsigned failures = 0, cases = 0;
    for (uint64_t n = 1; n <= total; n++)
        for (int kind = 0; kind < 4; kind++) { /* ENOSPC once, ENOSPC on, power cut (two modes) */
            close_case(n, kind == 1, kind >= 2, kind == 3 ? VFS_KEEP_UNSYNCED : VFS_LOSE_UNSYNCED, NULL, &res);
            cases++;
            if (res.problem[0]) {
                if (failures < MAX_REPORTED)
                    cr_log_error("fault kind %d at close call %llu/%llu: %s", kind, (unsigned long long)n,
                                 (unsigned long long)total, res.problem);
                failures++;
            }
        }
    cr_assert_eq(failures, 0, "%u of %u close fault cases went wrong", failures, cases);
}

/* A checkpoint that cannot run (a full disk) says what did not happen and that nothing is lost, so
** that a caller can warn before the close, which then returns STRATA_OK and keeps the WAL. */
Test(diskfull, a_failed_checkpoint_says_the_wal_stays) {
    vfs *v = vfs_fault_create();
    wl_entry m[NK];
    memset(m, 0, sizeof m);
    kv_db *db = open_db(v, 64 << 20);
    int stage;
    char why[600];
    for (uint32_t j = 0; j < 12; j++)
        cr_assert_eq(run_txn(db, m, j, &stage, why, sizeof why), STRATA_OK, "%s", why);
    vfs_fault_set_capacity(v, used_bytes(v));
    strata_err err = {0};
    cr_assert_eq(kv_checkpoint(db, &err), STRATA_FULL, "%s", err.msg);
    cr_assert(strstr(err.msg, WAL) && strstr(err.msg, "could not be folded into " DB) && says_full(err.msg) &&
                  strstr(err.msg, "next open"),
              "the message should name the WAL, the file, the full disk and what happens next: '%s'", err.msg);
    cr_assert_eq(kv_close(db), STRATA_OK, "the close of a full disk fails no commit");
    cr_assert_eq(wal_exists(v), 1, "the WAL that holds the commits stays");
    db = open_db(v, 64 << 20); /* still full: reading works */
    assert_matches(db, m, "reopened on a full disk");
    cr_assert_eq(kv_close(db), STRATA_OK);
    vfs_fault_set_capacity(v, 0);
    db = open_db(v, 64 << 20);
    assert_matches(db, m, "reopened with space");
    cr_assert_eq(kv_close(db), STRATA_OK);
    cr_assert_eq(wal_exists(v), 0, "with space the close folds the WAL in and removes it");
    vfs_destroy(v);
}

/* No WAL (a clean close removed it) and none can be created: the database opens for reading, with
** every commit there; a write transaction says why it cannot be, and nothing is left behind. */
Test(diskfull, without_room_for_a_wal_the_database_opens_for_reading) {
    vfs *v = vfs_fault_create();
    wl_entry m[NK];
    memset(m, 0, sizeof m);
    kv_db *db = open_db(v, 64 << 20);
    int stage;
    char why[600];
    for (uint32_t j = 0; j < 5; j++)
        cr_assert_eq(run_txn(db, m, j, &stage, why, sizeof why), STRATA_OK, "%s", why);
    cr_assert_eq(kv_close(db), STRATA_OK);
    cr_assert_eq(wal_exists(v), 0);
    /* the open of the database file is call 1, the creation of its WAL call 2 */
    vfs_fault_plan plan = {.op_mask = VFS_OP_OPEN, .fail_at = 2, .fail_errno = ENOSPC, .persistent = 1};
    vfs_fault_set_plan(v, &plan);
    db = open_db(v, 64 << 20);
    vfs_fault_plan none = {0};
    vfs_fault_set_plan(v, &none);
    assert_matches(db, m, "opened without a WAL");
    kv_txn *t = NULL;
    strata_err err = {0};
    int rc = kv_begin(db, 1, &t, &err);
    cr_assert_eq(rc, STRATA_READONLY, "a write without a WAL gave %s '%s'", strata_errstr(rc), err.msg);
    cr_assert(strstr(err.msg, "reading only") && strstr(err.msg, WAL) && says_full(err.msg), "message: '%s'", err.msg);
    cr_assert_eq(kv_checkpoint(db, &err), STRATA_OK, "nothing to fold in: %s", err.msg);
    cr_assert_eq(kv_close(db), STRATA_OK);
    cr_assert_eq(wal_exists(v), 0);
    db = open_db(v, 64 << 20); /* room again: writes work */
    cr_assert_eq(run_txn(db, m, 5, &stage, why, sizeof why), STRATA_OK, "%s", why);
    assert_matches(db, m, "after a write");
    cr_assert_eq(kv_close(db), STRATA_OK);
    vfs_destroy(v);
}
