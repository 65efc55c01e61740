/*
** test_powerloss.c -- durability under power loss at every write, sync and truncate of a workload.
**
** A workload of 30 transactions (puts and deletes, values from empty to several pages so that
** overflow chains are used, one transaction large enough to spill dirty pages out of a 64 KiB
** cache, another as large that is rolled back after spilling, a 64 KiB autocheckpoint so that
** checkpoints and WAL restarts happen inside it) runs on
** the fault vfs once without faults to count its I/O calls. Then for every call number N and both
** power-loss modes it runs again from an empty file system with a power cut at call N, simulates
** the power loss and reopens. What a user relies on:
**   - every transaction whose kv_commit returned STRATA_OK is there, with exact values;
**   - the transaction whose kv_commit was in progress is wholly there or wholly absent;
**   - nothing later is there; the database opens, passes the integrity check and takes new
**     commits.
*/
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../../rowstore/kv.h"
#include "helpers/workload.h"

#define DB "powerloss.db"
#define MAX_REPORTED 12

/* the page size of the test, and the size from which a commit writes its new pages into the
** database file directly (0: the default); each test runs in its own process */
static uint32_t page_size = 4096;
static uint64_t direct_bytes = 0;

static kv_options options(vfs *v) {
    kv_options o;
    memset(&o, 0, sizeof o);
    o.vfs = v;
    o.pager.page_size = page_size;
    o.pager.cache_bytes = 64 << 10;
    o.pager.autocheckpoint_bytes = 64 << 10;
    o.pager.direct_bytes = direct_bytes;
    return o;
}

static wl_workload *make_workload(void) {
    wl_params p = {
        .nkeys = 120,
        .ntxn = 30,
        .min_ops = 1,
        .max_ops = 6,
        .pct_delete = 20,
        .pct_medium = 25,
        .pct_large = 10,
        .large_min = 4500, /* more than a 4 KiB page: overflow chains */
        .large_max = 20000,
        .big_txn = 12, /* ~140 KiB of values: more than the 64 KiB cache, so it spills */
        .big_ops = 90,
        .rollback_txn = 20, /* as big, spills too, then is rolled back: its frames stay in the WAL */
    };
    wl_workload *w = wl_workload_create(&p, 0x9011e55ull);
    cr_assert_not_null(w);
    return w;
}

/* What one run of the workload got done before the power cut. */
typedef struct run_result {
    int opened;       /* kv_open returned OK */
    size_t committed; /* transactions whose kv_commit returned OK (a prefix) */
    int inflight;     /* kv_commit of transaction `committed` was called and did not return OK */
    int closed;       /* kv_close returned OK */
    char why[320];    /* the first failure */
} run_result;

static void run_workload(vfs *v, const wl_workload *w, run_result *r, pager_stats *stats) {
    memset(r, 0, sizeof *r);
    kv_options o = options(v);
    kv_db *db = NULL;
    strata_err err = {0};
    int rc = kv_open(DB, &o, &db, &err);
    if (rc != STRATA_OK) {
        snprintf(r->why, sizeof r->why, "kv_open: %s: %s", strata_errstr(rc), err.msg);
        cr_assert_null(db, "kv_open failed but set *out");
        return;
    }
    r->opened = 1;
    for (size_t i = 0; i < w->ntxn; i++) {
        int committing = 0;
        rc = wl_run_txn(db, w, i, &committing, r->why, sizeof r->why);
        if (rc != STRATA_OK) {
            r->inflight = committing;
            break;
        }
        r->committed++;
    }
    if (stats) pager_get_stats(kv_pager(db), stats);
    rc = kv_close(db);
    r->closed = rc == STRATA_OK;
}

/* Reopen after the power loss and check the state against the run. Returns 0 when all is well,
** else 1 with the reason in why. */
static int check_recovered(vfs *v, const wl_workload *w, const run_result *r, char *why, size_t whylen) {
    kv_options o = options(v);
    kv_db *db = NULL;
    strata_err err = {0};
    char why_lo[400] = "", why_hi[400] = "";
    int rc = kv_open(DB, &o, &db, &err);
    if (rc != STRATA_OK) {
        snprintf(why, whylen, "reopen failed: %s: %s", strata_errstr(rc), err.msg);
        return 1;
    }
    size_t lo = r->committed, hi = r->committed + (r->inflight ? 1 : 0);
    size_t matched = lo;
    rc = wl_db_matches(db, wl_state(w, lo), w->nkeys, why_lo, sizeof why_lo);
    if (rc != STRATA_OK && hi != lo) {
        matched = hi;
        rc = wl_db_matches(db, wl_state(w, hi), w->nkeys, why_hi, sizeof why_hi);
    }
    if (rc != STRATA_OK) {
        if (hi != lo)
            snprintf(why, whylen, "state is neither after %zu txns (%s) nor after %zu (%s)", lo, why_lo, hi,
                     why_hi);
        else
            snprintf(why, whylen, "state is not the one after %zu committed txns: %s", lo, why_lo);
        kv_close(db);
        return 1;
    }
    rc = wl_integrity(db, why_lo, sizeof why_lo);
    if (rc != STRATA_OK) {
        snprintf(why, whylen, "(state after %zu txns) %s", matched, why_lo);
        kv_close(db);
        return 1;
    }
    /* the recovered database takes a new commit, which survives a clean close */
    kv_txn *t = NULL;
    rc = kv_begin(db, 1, &t, &err);
    if (rc == STRATA_OK) {
        rc = kv_put(t, "after-recovery", 14, "yes", 3);
        if (rc == STRATA_OK)
            rc = kv_commit(t);
        else
            kv_rollback(t);
    }
    int crc = kv_close(db);
    if (rc != STRATA_OK || crc != STRATA_OK) {
        snprintf(why, whylen, "commit after recovery: %s, close: %s", strata_errstr(rc), strata_errstr(crc));
        return 1;
    }
    db = NULL;
    rc = kv_open(DB, &o, &db, &err);
    if (rc != STRATA_OK) {
        snprintf(why, whylen, "second reopen failed: %s: %s", strata_errstr(rc), err.msg);
        return 1;
    }
    btree_buf b = {0};
    rc = kv_begin(db, 0, &t, &err);
    if (rc == STRATA_OK) {
        rc = kv_get(t, "after-recovery", 14, &b);
        kv_rollback(t);
    }
    int bad = rc != STRATA_OK || b.len != 3 || memcmp(b.data, "yes", 3) != 0;
    btree_buf_free(&b);
    kv_close(db);
    if (bad) {
        snprintf(why, whylen, "the commit made after recovery is lost: %s", strata_errstr(rc));
        return 1;
    }
    return 0;
}

static const char *mode_name(int mode) {
    return mode == VFS_LOSE_UNSYNCED ? "LOSE_UNSYNCED" : "KEEP_UNSYNCED";
}

/* The clean run: counts the calls of op_mask and checks that the workload itself is right. */
static uint64_t count_calls(const wl_workload *w, unsigned op_mask) {
    vfs *v = vfs_fault_create();
    cr_assert_not_null(v);
    vfs_fault_plan plan = {.op_mask = op_mask};
    vfs_fault_set_plan(v, &plan);
    run_result r;
    pager_stats st;
    run_workload(v, w, &r, &st);
    uint64_t total = vfs_fault_count(v);
    cr_assert(r.opened && r.committed == w->ntxn && r.closed, "clean run failed after %zu txns: %s",
              r.committed, r.why);
    kv_options o = options(v);
    kv_db *db = NULL;
    strata_err err = {0};
    cr_assert_eq(kv_open(DB, &o, &db, &err), STRATA_OK, "reopen: %s", err.msg);
    char why[400];
    cr_assert_eq(wl_db_matches(db, wl_state(w, w->ntxn), w->nkeys, why, sizeof why), STRATA_OK,
                 "clean run: %s", why);
    cr_assert_eq(wl_integrity(db, why, sizeof why), STRATA_OK, "clean run: %s", why);
    kv_close(db);
    vfs_destroy(v);
    cr_log_info(
        "powerloss: %llu counted calls (mask 0x%x); %llu commits, %llu pages to the WAL, %llu to the file "
        "directly, %llu checkpointed, cache peak %zu",
        (unsigned long long)total, op_mask, (unsigned long long)st.commits,
        (unsigned long long)st.pages_written_wal, (unsigned long long)st.pages_written_direct,
        (unsigned long long)st.pages_checkpointed, st.cache_bytes_peak);
    if (direct_bytes)
        cr_assert_gt(st.pages_written_direct, 0, "no commit wrote its new pages to the file directly");
    /* the workload must exercise what it is meant to: checkpoints (and WAL restarts) inside it,
    ** and a transaction larger than the cache, which can only stay within the bound by spilling */
    cr_assert_gt(st.pages_checkpointed, 0, "no checkpoint ran during the workload");
    cr_expect_leq(st.cache_bytes_peak, (size_t)(64 << 10) + 8 * page_size,
                  "the cache peaked at %zu bytes with a 64 KiB bound: the big transaction did not spill",
                  st.cache_bytes_peak);
    return total;
}

static void power_cut_everywhere(unsigned op_mask) {
    wl_workload *w = make_workload();
    uint64_t total = count_calls(w, op_mask);
    cr_assert_gt(total, 50, "the workload should make many I/O calls, made %llu", (unsigned long long)total);
    unsigned failures = 0, not_crashed = 0;
    for (uint64_t n = 1; n <= total; n++) {
        for (int mode = VFS_LOSE_UNSYNCED; mode <= VFS_KEEP_UNSYNCED; mode++) {
            vfs *v = vfs_fault_create();
            cr_assert_not_null(v);
            vfs_fault_plan plan = {.op_mask = op_mask, .fail_at = n, .fail_errno = EIO, .crash = 1};
            vfs_fault_set_plan(v, &plan);
            run_result r;
            run_workload(v, w, &r, NULL);
            if (!vfs_fault_crashed(v)) not_crashed++;
            vfs_fault_power_loss(v, mode);
            char why[1024];
            if (check_recovered(v, w, &r, why, sizeof why) != 0) {
                if (failures < MAX_REPORTED)
                    cr_log_error("power cut at call %llu/%llu (%s): run committed %zu txns%s (%s) -> %s",
                                 (unsigned long long)n, (unsigned long long)total, mode_name(mode),
                                 r.committed, r.inflight ? " + one in flight" : "", r.why, why);
                failures++;
            }
            vfs_destroy(v);
        }
    }
    wl_workload_free(w);
    cr_expect_eq(not_crashed, 0,
                 "%u runs did not reach their power cut: the I/O call sequence is not deterministic",
                 not_crashed);
    cr_assert_eq(failures, 0,
                 "%u of %llu power cuts lost committed data or left a bad database (first %d logged)",
                 failures, (unsigned long long)(2 * total), MAX_REPORTED);
}

Test(powerloss, every_write_and_sync, .timeout = 240) { power_cut_everywhere(VFS_OP_WRITE | VFS_OP_SYNC); }

Test(powerloss, every_write_sync_and_truncate, .timeout = 240) {
    power_cut_everywhere(VFS_OP_WRITE | VFS_OP_SYNC | VFS_OP_TRUNCATE);
}

/* The default page size: other overflow thresholds, fewer pages per cache. */
Test(powerloss, every_write_and_sync_8k_pages, .timeout = 240) {
    page_size = 8192;
    power_cut_everywhere(VFS_OP_WRITE | VFS_OP_SYNC | VFS_OP_TRUNCATE);
}

/* Commits with two new pages or more write them into the database file before their WAL frames
** (the path of large transactions, here at a small size so that the workload takes it often). */
Test(powerloss, every_write_and_sync_direct_pages, .timeout = 240) {
    direct_bytes = 2 * page_size;
    power_cut_everywhere(VFS_OP_WRITE | VFS_OP_SYNC | VFS_OP_TRUNCATE);
}

/* A power cut during recovery itself: the first cut leaves a WAL to replay; a second cut at every
** call of the recovery (open, replay, the checkpoint of the close) must lose nothing either. */
Test(powerloss, cut_during_recovery, .timeout = 240) {
    wl_workload *w = make_workload();
    const unsigned mask = VFS_OP_WRITE | VFS_OP_SYNC | VFS_OP_TRUNCATE;
    uint64_t total = count_calls(w, mask);
    unsigned failures = 0, cases = 0;
    /* first cuts spread over the workload */
    for (uint64_t n = 3; n <= total; n += total / 12 + 1) {
        /* count the calls of an undisturbed recovery after this first cut */
        uint64_t rec_calls;
        {
            vfs *v = vfs_fault_create();
            vfs_fault_plan plan = {.op_mask = mask, .fail_at = n, .fail_errno = EIO, .crash = 1};
            vfs_fault_set_plan(v, &plan);
            run_result r;
            run_workload(v, w, &r, NULL);
            vfs_fault_power_loss(v, VFS_KEEP_UNSYNCED);
            vfs_fault_plan count = {.op_mask = mask};
            vfs_fault_set_plan(v, &count);
            kv_options o = options(v);
            kv_db *db = NULL;
            strata_err err = {0};
            int rc = kv_open(DB, &o, &db, &err);
            cr_assert_eq(rc, STRATA_OK, "reopen after cut %llu: %s", (unsigned long long)n, err.msg);
            kv_close(db);
            rec_calls = vfs_fault_count(v);
            vfs_destroy(v);
        }
        for (uint64_t m = 1; m <= rec_calls; m++) {
            for (int mode = VFS_LOSE_UNSYNCED; mode <= VFS_KEEP_UNSYNCED; mode++) {
                vfs *v = vfs_fault_create();
                vfs_fault_plan plan = {.op_mask = mask, .fail_at = n, .fail_errno = EIO, .crash = 1};
                vfs_fault_set_plan(v, &plan);
                run_result r;
                run_workload(v, w, &r, NULL);
                vfs_fault_power_loss(v, VFS_KEEP_UNSYNCED);
                vfs_fault_plan second = {.op_mask = mask, .fail_at = m, .fail_errno = EIO, .crash = 1};
                vfs_fault_set_plan(v, &second);
                kv_options o = options(v);
                kv_db *db = NULL;
                strata_err err = {0};
                if (kv_open(DB, &o, &db, &err) == STRATA_OK) kv_close(db);
                vfs_fault_power_loss(v, mode);
                char why[1024];
                cases++;
                if (check_recovered(v, w, &r, why, sizeof why) != 0) {
                    if (failures < MAX_REPORTED)
                        cr_log_error("first cut at call %llu, second cut at recovery call %llu/%llu (%s): "
                                     "run committed %zu txns%s -> %s",
                                     (unsigned long long)n, (unsigned long long)m,
                                     (unsigned long long)rec_calls, mode_name(mode), r.committed,
                                     r.inflight ? " + one in flight" : "", why);
                    failures++;
                }
                vfs_destroy(v);
            }
        }
    }
    wl_workload_free(w);
    cr_assert_gt(cases, 0);
    cr_assert_eq(failures, 0, "%u of %u double power cuts lost data or left a bad database", failures, cases);
}
