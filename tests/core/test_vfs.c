/*
** test_vfs.c -- the file layer: the same behaviour checks on the POSIX, in-memory and fault
** vfs, then the fault vfs's plans, crashes, power loss, capacity and direct access.
*/
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vfs.h"

/* ---- helpers ---- */

static char tmpdir[64];

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
    (void)st, (void)type, (void)ftw;
    return remove(path);
}

static void make_tmpdir(void) {
    strcpy(tmpdir, "/tmp/strata_test_vfs_XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

static void remove_tmpdir(void) { nftw(tmpdir, remove_entry, 8, FTW_DEPTH | FTW_PHYS); }

/* The path of name: inside tmpdir for the POSIX vfs (dir non-empty), the bare name otherwise. */
static const char *at(const char *dir, const char *name) {
    static char buf[4][256];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s%s%s", dir, *dir ? "/" : "", name);
    return p;
}

static vfs_file *open_ok(vfs *v, const char *path, int flags) {
    strata_err err = {0};
    vfs_file *f = NULL;
    int rc = vfs_open(v, path, flags, &f, &err);
    cr_assert_eq(rc, STRATA_OK, "open %s: %d %s", path, rc, err.msg);
    cr_assert_not_null(f);
    return f;
}

static void write_ok(vfs_file *f, const void *buf, size_t n, uint64_t off) {
    strata_err err = {0};
    cr_assert_eq(vfs_write(f, buf, n, off, &err), STRATA_OK, "write: %s", err.msg);
}

static void write_fill(vfs_file *f, int byte, size_t n, uint64_t off) {
    char *buf = malloc(n);
    memset(buf, byte, n);
    write_ok(f, buf, n, off);
    free(buf);
}

static uint64_t size_ok(vfs_file *f) {
    strata_err err = {0};
    uint64_t size = 0;
    cr_assert_eq(vfs_size(f, &size, &err), STRATA_OK, "size: %s", err.msg);
    return size;
}

static void sync_ok(vfs_file *f) {
    strata_err err = {0};
    cr_assert_eq(vfs_sync(f, &err), STRATA_OK, "sync: %s", err.msg);
}

static void truncate_ok(vfs_file *f, uint64_t size) {
    strata_err err = {0};
    cr_assert_eq(vfs_truncate(f, size, &err), STRATA_OK, "truncate: %s", err.msg);
}

/* read_all returns the whole file (malloc'd; *n gets its size), read in odd-sized pieces. */
static unsigned char *read_all(vfs_file *f, size_t *n) {
    size_t size = (size_t)size_ok(f), got = 0, nread;
    unsigned char *buf = malloc(size + 1);
    strata_err err = {0};
    while (got < size) {
        size_t want = size - got < 777 ? size - got : 777;
        cr_assert_eq(vfs_read(f, buf + got, want, got, &nread, &err), STRATA_OK, "read: %s", err.msg);
        cr_assert_eq(nread, want);
        got += nread;
    }
    *n = size;
    return buf;
}

static int file_exists(vfs *v, const char *path) {
    strata_err err = {0};
    int out = -1;
    cr_assert_eq(vfs_exists(v, path, &out, &err), STRATA_OK, "exists: %s", err.msg);
    return out;
}

/* ---- behaviour common to every vfs ---- */

static void check_read_write(vfs *v, const char *dir) {
    strata_err err = {0};
    vfs_file *f = NULL;
    const char *path = at(dir, "rw.db");
    unsigned char buf[64];
    size_t nread;

    cr_assert_eq(file_exists(v, path), 0);
    cr_assert_eq(vfs_open(v, path, 0, &f, &err), STRATA_IOERR, "opening a missing file without VFS_CREATE");
    cr_assert_null(f);
    cr_assert(strstr(err.msg, path) && strstr(err.msg, "No such file"), "message: %s", err.msg);

    f = open_ok(v, path, VFS_CREATE);
    cr_assert_eq(file_exists(v, path), 1);
    cr_assert_eq(size_ok(f), 0);
    write_ok(f, "hello", 5, 0);
    write_ok(f, "world", 5, 10);
    cr_assert_eq(size_ok(f), 15);
    cr_assert_eq(vfs_read(f, buf, sizeof buf, 0, &nread, &err), STRATA_OK);
    cr_assert_eq(nread, 15, "a read past the end returns what exists");
    cr_assert_arr_eq(buf, "hello\0\0\0\0\0world", 15, "the gap reads as zeros");
    cr_assert_eq(vfs_read(f, buf, 10, 12, &nread, &err), STRATA_OK);
    cr_assert_eq(nread, 3);
    cr_assert_arr_eq(buf, "rld", 3);
    nread = 99;
    cr_assert_eq(vfs_read(f, buf, 10, 1000, &nread, &err), STRATA_OK);
    cr_assert_eq(nread, 0);
    write_ok(f, "J", 1, 0);
    write_ok(f, "", 0, 100); /* an empty write does not extend the file */
    cr_assert_eq(size_ok(f), 15);

    truncate_ok(f, 7);
    cr_assert_eq(size_ok(f), 7);
    truncate_ok(f, 9);
    cr_assert_eq(vfs_read(f, buf, sizeof buf, 0, &nread, &err), STRATA_OK);
    cr_assert_eq(nread, 9);
    cr_assert_arr_eq(buf, "Jello\0\0\0\0", 9, "truncated bytes do not come back when the file grows");
    sync_ok(f);
    cr_assert_eq(vfs_close(f), STRATA_OK);

    f = open_ok(v, path, VFS_READONLY);
    cr_assert_eq(size_ok(f), 9);
    cr_assert_eq(vfs_read(f, buf, 5, 0, &nread, &err), STRATA_OK);
    cr_assert_arr_eq(buf, "Jello", 5);
    cr_assert_eq(vfs_write(f, "x", 1, 0, &err), STRATA_READONLY);
    cr_assert(strstr(err.msg, path), "message: %s", err.msg);
    err_clear(&err);
    cr_assert_eq(vfs_truncate(f, 0, &err), STRATA_READONLY);
    cr_assert_eq(size_ok(f), 9);
    cr_assert_eq(vfs_close(f), STRATA_OK);

    err_clear(&err);
    cr_assert_eq(vfs_remove(v, path, &err), STRATA_OK);
    cr_assert_eq(file_exists(v, path), 0);
    cr_assert_eq(vfs_remove(v, path, &err), STRATA_OK, "removing a missing file is not an error");
}

static void check_remove_while_open(vfs *v, const char *dir) {
    strata_err err = {0};
    const char *path = at(dir, "gone.db");
    unsigned char buf[8];
    size_t nread;
    vfs_file *f = open_ok(v, path, VFS_CREATE);
    write_ok(f, "abc", 3, 0);
    cr_assert_eq(vfs_remove(v, path, &err), STRATA_OK);
    cr_assert_eq(file_exists(v, path), 0);
    write_ok(f, "def", 3, 3);
    cr_assert_eq(vfs_read(f, buf, sizeof buf, 0, &nread, &err), STRATA_OK);
    cr_assert_eq(nread, 6);
    cr_assert_arr_eq(buf, "abcdef", 6, "a removed file stays usable through an open handle");
    vfs_file *g = open_ok(v, path, VFS_CREATE);
    cr_assert_eq(size_ok(g), 0, "a file created under the same name is a new file");
    cr_assert_eq(size_ok(f), 6);
    cr_assert_eq(vfs_close(f), STRATA_OK);
    cr_assert_eq(vfs_close(g), STRATA_OK);
    cr_assert_eq(vfs_remove(v, path, &err), STRATA_OK);
}

static void check_lock(vfs *v, const char *dir) {
    strata_err err = {0};
    const char *path = at(dir, "lock.db");
    vfs_file *a = open_ok(v, path, VFS_CREATE);
    vfs_file *b = open_ok(v, path, 0);
    cr_assert_eq(vfs_lock(a, &err), STRATA_OK, "%s", err.msg);
    cr_assert_eq(vfs_lock(a, &err), STRATA_OK, "locking again through the holder succeeds");
    cr_assert_eq(vfs_lock(b, &err), STRATA_BUSY);
    cr_assert(strstr(err.msg, "locked by another") && strstr(err.msg, path), "message: %s", err.msg);
    err_clear(&err);
    vfs_unlock(b); /* not the holder: changes nothing */
    cr_assert_eq(vfs_lock(b, &err), STRATA_BUSY);
    err_clear(&err);
    vfs_unlock(a);
    cr_assert_eq(vfs_lock(b, &err), STRATA_OK, "%s", err.msg);
    cr_assert_eq(vfs_lock(a, &err), STRATA_BUSY);
    err_clear(&err);
    cr_assert_eq(vfs_close(b), STRATA_OK);
    cr_assert_eq(vfs_lock(a, &err), STRATA_OK, "closing the holder releases the lock: %s", err.msg);
    cr_assert_eq(vfs_close(a), STRATA_OK);
    cr_assert_eq(vfs_remove(v, path, &err), STRATA_OK);
}

/* Four threads write interleaved 1 KiB blocks through two handles on one file and read back
** their own and the others' blocks; the final content must hold every block intact. */
enum { THREADS = 4, BLOCKS = 64, BLOCK = 1024 };
typedef struct worker {
    vfs_file *f;
    int id;
    int failures;
} worker;

static void *worker_run(void *arg) {
    worker *w = arg;
    unsigned char buf[BLOCK], got[BLOCK];
    size_t nread;
    for (int i = 0; i < BLOCKS; i++) {
        uint64_t off = ((uint64_t)i * THREADS + (uint64_t)w->id) * BLOCK;
        memset(buf, w->id * 16 + i % 16, BLOCK);
        if (vfs_write(w->f, buf, BLOCK, off, NULL) != STRATA_OK) w->failures++;
        if (vfs_read(w->f, got, BLOCK, off, &nread, NULL) != STRATA_OK || nread != BLOCK ||
            memcmp(buf, got, BLOCK) != 0)
            w->failures++;
        if (vfs_read(w->f, got, BLOCK, (uint64_t)i * BLOCK, &nread, NULL) != STRATA_OK) w->failures++;
    }
    return NULL;
}

static void check_threads(vfs *v, const char *dir) {
    const char *path = at(dir, "threads.db");
    vfs_file *f[2] = {open_ok(v, path, VFS_CREATE), open_ok(v, path, 0)};
    pthread_t tid[THREADS];
    worker w[THREADS];
    for (int t = 0; t < THREADS; t++) {
        w[t] = (worker){f[t % 2], t, 0};
        cr_assert_eq(pthread_create(&tid[t], NULL, worker_run, &w[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(tid[t], NULL);
        cr_assert_eq(w[t].failures, 0, "thread %d saw %d failures", t, w[t].failures);
    }
    size_t n;
    unsigned char *all = read_all(f[0], &n);
    cr_assert_eq(n, (size_t)THREADS * BLOCKS * BLOCK);
    for (size_t i = 0; i < n; i++) {
        size_t blk = i / BLOCK;
        cr_assert_eq(all[i], (blk % THREADS) * 16 + (blk / THREADS) % 16, "byte %zu", i);
    }
    free(all);
    vfs_close(f[0]);
    vfs_close(f[1]);
    cr_assert_eq(vfs_remove(v, path, NULL), STRATA_OK);
}

static void check_all(vfs *v, const char *dir) {
    check_read_write(v, dir);
    check_remove_while_open(v, dir);
    check_lock(v, dir);
    check_threads(v, dir);
}

Test(vfs_posix, common_behaviour, .init = make_tmpdir, .fini = remove_tmpdir) { check_all(vfs_posix(), tmpdir); }

Test(vfs_posix, error_names_the_path, .init = make_tmpdir, .fini = remove_tmpdir) {
    strata_err err = {0};
    vfs_file *f = NULL;
    const char *path = at(tmpdir, "no/such/dir/x.db");
    cr_assert_eq(vfs_open(vfs_posix(), path, VFS_CREATE, &f, &err), STRATA_IOERR);
    cr_assert(strstr(err.msg, path), "message: %s", err.msg);
    int out = -1;
    cr_assert_eq(vfs_exists(vfs_posix(), path, &out, &err), STRATA_OK);
    cr_assert_eq(out, 0);
}

Test(vfs_mem, common_behaviour) {
    vfs *v = vfs_mem_create();
    cr_assert_not_null(v);
    check_all(v, "");
    vfs_destroy(v);
}

Test(vfs_mem, namespaces_are_private) {
    vfs *a = vfs_mem_create(), *b = vfs_mem_create();
    vfs_file *f = open_ok(a, "x", VFS_CREATE);
    cr_assert_eq(file_exists(a, "x"), 1);
    cr_assert_eq(file_exists(b, "x"), 0);
    vfs_close(f);
    vfs_destroy(a);
    vfs_destroy(b);
}

Test(vfs_mem, huge_offset_is_full_not_a_crash) {
    vfs *vs[2] = {vfs_mem_create(), vfs_fault_create()};
    for (int i = 0; i < 2; i++) {
        strata_err err = {0};
        vfs_file *f = open_ok(vs[i], "big", VFS_CREATE);
        cr_assert_eq(vfs_write(f, "x", 1, (uint64_t)1 << 50, &err), STRATA_FULL);
        cr_assert(strstr(err.msg, "big"), "message: %s", err.msg);
        err_clear(&err);
        cr_assert_eq(vfs_write(f, "x", 1, UINT64_MAX, &err), STRATA_FULL);
        err_clear(&err);
        cr_assert_eq(vfs_truncate(f, (uint64_t)1 << 50, &err), STRATA_FULL);
        cr_assert_eq(size_ok(f), 0);
        vfs_close(f);
        vfs_destroy(vs[i]);
    }
}

Test(vfs_fault, common_behaviour) {
    vfs *v = vfs_fault_create();
    cr_assert_not_null(v);
    check_all(v, "");
    vfs_destroy(v);
}

/* ---- the fault vfs ---- */

/* do_op issues one call of the given kind on f (or, for VFS_OP_OPEN, opens path); round makes
** every write and truncate distinct. */
static int do_op(vfs *v, vfs_file *f, unsigned op, int round, strata_err *err) {
    unsigned char buf[16];
    size_t nread;
    vfs_file *g = NULL;
    char name[32];
    switch (op) {
    case VFS_OP_READ: return vfs_read(f, buf, sizeof buf, 0, &nread, err);
    case VFS_OP_WRITE: buf[0] = (unsigned char)('0' + round); return vfs_write(f, buf, 1, (uint64_t)round, err);
    case VFS_OP_SYNC: return vfs_sync(f, err);
    case VFS_OP_TRUNCATE: return vfs_truncate(f, 10 - (uint64_t)round, err);
    default: {
        snprintf(name, sizeof name, "opened%d", round);
        int rc = vfs_open(v, name, VFS_CREATE, &g, err);
        vfs_close(g);
        return rc;
    }
    }
}

static int file_content_equals(vfs *v, const char *path, const void *want, size_t n) {
    unsigned char buf[256];
    size_t nread;
    uint64_t size;
    if (vfs_fault_file_size(v, path, &size) != STRATA_OK || size != n) return 0;
    return vfs_fault_peek(v, path, 0, buf, sizeof buf, &nread) == STRATA_OK && nread == n && memcmp(buf, want, n) == 0;
}

Test(vfs_fault, fail_at_each_op_kind) {
    static const unsigned ops[] = {VFS_OP_READ, VFS_OP_WRITE, VFS_OP_SYNC, VFS_OP_TRUNCATE, VFS_OP_OPEN};
    static const int errnos[] = {EIO, ENOSPC};
    static const int codes[] = {STRATA_IOERR, STRATA_FULL};
    for (size_t o = 0; o < 5; o++) {
        for (size_t e = 0; e < 2; e++) {
            vfs *v = vfs_fault_create();
            vfs_file *f = open_ok(v, "f", VFS_CREATE);
            write_ok(f, "abcdefghij", 10, 0);
            vfs_fault_plan plan = {.op_mask = ops[o], .fail_at = 2, .fail_errno = errnos[e]};
            vfs_fault_set_plan(v, &plan);
            strata_err err = {0};
            cr_assert_eq(do_op(v, f, ops[o], 1, &err), STRATA_OK, "op %#x call 1: %s", ops[o], err.msg);
            cr_assert_eq(vfs_fault_count(v), 1);
            /* a call of another kind is not counted and does not fail */
            unsigned other = ops[(o + 1) % 5];
            cr_assert_eq(do_op(v, f, other, 7, &err), STRATA_OK, "op %#x: %s", other, err.msg);
            cr_assert_eq(vfs_fault_count(v), 1);

            unsigned char before[32], after[32];
            size_t nbefore, nafter;
            vfs_fault_peek(v, "f", 0, before, sizeof before, &nbefore);
            cr_assert_eq(do_op(v, f, ops[o], 2, &err), codes[e], "op %#x errno %d", ops[o], errnos[e]);
            cr_assert_neq(err.msg[0], '\0');
            cr_assert(strstr(err.msg, ops[o] == VFS_OP_OPEN ? "opened2" : "f"), "message: %s", err.msg);
            vfs_fault_peek(v, "f", 0, after, sizeof after, &nafter);
            cr_assert(nbefore == nafter && memcmp(before, after, nafter) == 0, "the failed call changed the file");
            if (ops[o] == VFS_OP_OPEN) cr_assert_eq(file_exists(v, "opened2"), 0, "the failed open created the file");
            cr_assert_eq(vfs_fault_crashed(v), 0);

            err_clear(&err);
            cr_assert_eq(do_op(v, f, ops[o], 3, &err), STRATA_OK, "only call 2 fails: %s", err.msg);
            cr_assert_eq(vfs_fault_count(v), 3);
            vfs_close(f);
            vfs_destroy(v);
        }
    }
}

Test(vfs_fault, counts_only_selected_calls) {
    vfs *v = vfs_fault_create();
    vfs_fault_plan plan = {.op_mask = VFS_OP_ALL};
    vfs_fault_set_plan(v, &plan);
    vfs_file *f = open_ok(v, "f", VFS_CREATE);  /* 1 */
    write_ok(f, "abc", 3, 0);                    /* 2 */
    sync_ok(f);                                  /* 3 */
    truncate_ok(f, 2);                           /* 4 */
    size_t n;
    free(read_all(f, &n));                       /* 5: one read; size is not counted */
    file_exists(v, "f");
    cr_assert_eq(vfs_lock(f, NULL), STRATA_OK);
    vfs_unlock(f);
    cr_assert_eq(vfs_fault_count(v), 5);
    vfs_fault_set_plan(v, &plan);
    cr_assert_eq(vfs_fault_count(v), 0, "setting a plan resets the counter");
    vfs_close(f);
    vfs_destroy(v);
}

Test(vfs_fault, persistent_failure) {
    vfs *v = vfs_fault_create();
    vfs_file *f = open_ok(v, "f", VFS_CREATE);
    vfs_fault_plan plan = {.op_mask = VFS_OP_WRITE, .fail_at = 2, .fail_errno = EIO, .persistent = 1};
    vfs_fault_set_plan(v, &plan);
    write_ok(f, "a", 1, 0);
    for (int i = 0; i < 5; i++) cr_assert_eq(vfs_write(f, "b", 1, 1, NULL), STRATA_IOERR);
    unsigned char c;
    size_t nread;
    cr_assert_eq(vfs_read(f, &c, 1, 0, &nread, NULL), STRATA_OK, "calls outside the mask still work");
    cr_assert_eq(c, 'a');
    sync_ok(f);
    cr_assert_eq(vfs_fault_count(v), 6);
    cr_assert_eq(size_ok(f), 1);
    vfs_close(f);
    vfs_destroy(v);
}

/* crash_scenario: 4096 synced 'A's, 100 unsynced 'B's at 4096, then a write of 2000 'C's at
** 1000 that is the power cut. Returns the vfs with the (open) file in *fp. */
static vfs *crash_scenario(vfs_file **fp) {
    vfs *v = vfs_fault_create();
    vfs_file *f = open_ok(v, "db", VFS_CREATE);
    write_fill(f, 'A', 4096, 0);
    sync_ok(f);
    write_fill(f, 'B', 100, 4096);
    vfs_fault_plan plan = {.op_mask = VFS_OP_WRITE, .fail_at = 1, .fail_errno = EIO, .crash = 1};
    vfs_fault_set_plan(v, &plan);
    char c[2000];
    memset(c, 'C', sizeof c);
    strata_err err = {0};
    cr_assert_eq(vfs_write(f, c, sizeof c, 1000, &err), STRATA_IOERR);
    cr_assert(strstr(err.msg, "db"), "message: %s", err.msg);
    cr_assert_eq(vfs_fault_crashed(v), 1);
    *fp = f;
    return v;
}

Test(vfs_fault, everything_fails_after_crash) {
    vfs_file *f, *g = NULL;
    vfs *v = crash_scenario(&f);
    unsigned char buf[8];
    size_t nread;
    uint64_t size;
    int out;
    cr_assert_eq(vfs_read(f, buf, 8, 0, &nread, NULL), STRATA_IOERR);
    cr_assert_eq(vfs_write(f, "x", 1, 0, NULL), STRATA_IOERR);
    cr_assert_eq(vfs_sync(f, NULL), STRATA_IOERR);
    cr_assert_eq(vfs_truncate(f, 0, NULL), STRATA_IOERR);
    cr_assert_eq(vfs_size(f, &size, NULL), STRATA_IOERR);
    cr_assert_eq(vfs_lock(f, NULL), STRATA_IOERR);
    cr_assert_eq(vfs_open(v, "db", 0, &g, NULL), STRATA_IOERR);
    cr_assert_eq(vfs_open(v, "other", VFS_CREATE, &g, NULL), STRATA_IOERR);
    cr_assert_eq(vfs_exists(v, "db", &out, NULL), STRATA_IOERR);
    cr_assert_eq(vfs_remove(v, "db", NULL), STRATA_IOERR);
    cr_assert_eq(vfs_fault_crashed(v), 1);
    cr_assert_eq(vfs_close(f), STRATA_OK, "close works after a crash");
    vfs_fault_power_loss(v, VFS_LOSE_UNSYNCED);
    cr_assert_eq(vfs_fault_crashed(v), 0);
    cr_assert_eq(file_exists(v, "db"), 1);
    cr_assert_eq(file_exists(v, "other"), 0);
    vfs_destroy(v);
}

Test(vfs_fault, power_loss_keeps_unsynced_with_torn_write) {
    vfs_file *f;
    vfs *v = crash_scenario(&f);
    vfs_fault_power_loss(v, VFS_KEEP_UNSYNCED);
    vfs_close(f);
    cr_assert_eq(vfs_fault_crashed(v), 0);
    f = open_ok(v, "db", 0);
    size_t n;
    unsigned char *got = read_all(f, &n);
    cr_assert_eq(n, 4196);
    /* the 2000-byte write was torn to its first 1000 bytes rounded down to 512 */
    for (size_t i = 0; i < n; i++) {
        int want = i >= 4096 ? 'B' : (i >= 1000 && i < 1512) ? 'C' : 'A';
        cr_assert_eq(got[i], want, "byte %zu is %c", i, got[i]);
    }
    free(got);
    /* the vfs works normally again: the plan is gone */
    write_fill(f, 'D', 3000, 0);
    sync_ok(f);
    cr_assert_eq(vfs_fault_count(v), 0);
    vfs_close(f);
    vfs_destroy(v);
}

Test(vfs_fault, power_loss_loses_unsynced) {
    vfs_file *f;
    vfs *v = crash_scenario(&f);
    vfs_fault_power_loss(v, VFS_LOSE_UNSYNCED);
    cr_assert_eq(vfs_close(f), STRATA_OK);
    f = open_ok(v, "db", 0);
    size_t n;
    unsigned char *got = read_all(f, &n);
    cr_assert_eq(n, 4096);
    for (size_t i = 0; i < n; i++) cr_assert_eq(got[i], 'A', "byte %zu", i);
    free(got);
    vfs_close(f);
    vfs_destroy(v);
}

Test(vfs_fault, torn_write_lengths) {
    static const size_t lens[][2] = {{8192, 4096}, {1500, 512}, {1024, 512}, {1022, 511}, {100, 50}, {1, 0}};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        vfs *v = vfs_fault_create();
        vfs_file *f = open_ok(v, "t", VFS_CREATE);
        vfs_fault_plan plan = {.op_mask = VFS_OP_WRITE, .fail_at = 1, .fail_errno = EIO, .crash = 1};
        vfs_fault_set_plan(v, &plan);
        char *buf = malloc(lens[i][0]);
        memset(buf, 'x', lens[i][0]);
        cr_assert_eq(vfs_write(f, buf, lens[i][0], 0, NULL), STRATA_IOERR);
        free(buf);
        vfs_fault_power_loss(v, VFS_KEEP_UNSYNCED);
        uint64_t size;
        cr_assert_eq(vfs_fault_file_size(v, "t", &size), STRATA_OK);
        cr_assert_eq(size, lens[i][1], "a torn write of %zu bytes kept %llu", lens[i][0], (unsigned long long)size);
        vfs_close(f);
        vfs_destroy(v);
    }
}

Test(vfs_fault, crash_on_sync_does_not_sync) {
    vfs *v = vfs_fault_create();
    vfs_file *f = open_ok(v, "f", VFS_CREATE);
    write_ok(f, "old", 3, 0);
    sync_ok(f);
    write_ok(f, "new", 3, 0);
    vfs_fault_plan plan = {.op_mask = VFS_OP_SYNC, .fail_at = 1, .fail_errno = EIO, .crash = 1};
    vfs_fault_set_plan(v, &plan);
    cr_assert_eq(vfs_sync(f, NULL), STRATA_IOERR);
    cr_assert_eq(vfs_fault_crashed(v), 1);
    vfs_fault_power_loss(v, VFS_LOSE_UNSYNCED);
    cr_assert(file_content_equals(v, "f", "old", 3));
    vfs_close(f);
    vfs_destroy(v);
}

Test(vfs_fault, sync_makes_writes_survive) {
    vfs *v = vfs_fault_create();
    vfs_file *f = open_ok(v, "f", VFS_CREATE);
    write_ok(f, "one", 3, 0);
    sync_ok(f);
    write_ok(f, "two", 3, 3);
    vfs_fault_power_loss(v, VFS_LOSE_UNSYNCED);
    cr_assert(file_content_equals(v, "f", "one", 3));
    vfs_close(f);
    vfs_destroy(v);
}

Test(vfs_fault, truncate_is_undone_by_losing_unsynced) {
    vfs *v = vfs_fault_create();
    vfs_file *f = open_ok(v, "f", VFS_CREATE);
    write_ok(f, "0123456789", 10, 0);
    sync_ok(f);
    truncate_ok(f, 4);
    write_ok(f, "xy", 2, 6);
    cr_assert(file_content_equals(v, "f", "0123\0\0xy", 8));
    vfs_fault_power_loss(v, VFS_LOSE_UNSYNCED);
    cr_assert(file_content_equals(v, "f", "0123456789", 10), "the truncate survived a power loss without sync");

    truncate_ok(f, 4);
    write_ok(f, "xy", 2, 6);
    vfs_fault_power_loss(v, VFS_KEEP_UNSYNCED);
    cr_assert(file_content_equals(v, "f", "0123\0\0xy", 8), "keeping unsynced changes re-applies them in order");
    vfs_fault_power_loss(v, VFS_LOSE_UNSYNCED);
    cr_assert(file_content_equals(v, "f", "0123\0\0xy", 8), "after a power loss the content is durable");
    vfs_close(f);
    vfs_destroy(v);
}

Test(vfs_fault, created_file_is_durable) {
    vfs *v = vfs_fault_create();
    vfs_file *f = open_ok(v, "new", VFS_CREATE);
    write_ok(f, "data", 4, 0);
    vfs_fault_power_loss(v, VFS_LOSE_UNSYNCED);
    cr_assert_eq(file_exists(v, "new"), 1);
    cr_assert(file_content_equals(v, "new", "", 0));
    vfs_close(f);
    vfs_destroy(v);
}

Test(vfs_fault, power_loss_releases_locks) {
    vfs *v = vfs_fault_create();
    vfs_file *a = open_ok(v, "db", VFS_CREATE);
    cr_assert_eq(vfs_lock(a, NULL), STRATA_OK);
    vfs_fault_power_loss(v, VFS_LOSE_UNSYNCED);
    vfs_file *b = open_ok(v, "db", 0);
    vfs_file *c = open_ok(v, "db", 0);
    cr_assert_eq(vfs_lock(b, NULL), STRATA_OK, "the lock of the handle from before the power loss is gone");
    vfs_unlock(a);
    cr_assert_eq(vfs_lock(c, NULL), STRATA_BUSY, "an old handle's unlock must not release a new lock");
    vfs_close(a);
    vfs_close(b);
    vfs_close(c);
    vfs_destroy(v);
}

Test(vfs_fault, capacity_limits_writes) {
    vfs *v = vfs_fault_create();
    vfs_fault_set_capacity(v, 10000);
    vfs_file *a = open_ok(v, "a", VFS_CREATE);
    vfs_file *b = open_ok(v, "b", VFS_CREATE);
    write_fill(a, 'a', 6000, 0);
    strata_err err = {0};
    char buf[5000];
    memset(buf, 'b', sizeof buf);
    cr_assert_eq(vfs_write(b, buf, 5000, 0, &err), STRATA_FULL);
    cr_assert(strstr(err.msg, "b") && strstr(err.msg, "No space left on device"), "message: %s", err.msg);
    cr_assert_eq(size_ok(b), 0, "a write past the capacity changes nothing");
    write_fill(a, 'A', 6000, 0); /* overwriting does not grow */
    write_ok(b, buf, 4000, 0);   /* exactly at the capacity */
    cr_assert_eq(vfs_write(b, "x", 1, 4000, NULL), STRATA_FULL);
    cr_assert_eq(vfs_write(a, "x", 1, 6000, NULL), STRATA_FULL);
    truncate_ok(a, 1000);
    write_ok(b, buf, 5000, 4000);
    vfs_close(a);
    vfs_close(b);
    cr_assert_eq(vfs_remove(v, "b", NULL), STRATA_OK);
    a = open_ok(v, "a", 0);
    write_fill(a, 'z', 9000, 1000); /* removing b freed its space */
    cr_assert_eq(size_ok(a), 10000);
    vfs_close(a);
    vfs_destroy(v);
}

Test(vfs_fault, peek_and_poke) {
    vfs *v = vfs_fault_create();
    vfs_file *f = open_ok(v, "f", VFS_CREATE);
    write_ok(f, "hello world", 11, 0);
    sync_ok(f);
    cr_assert_eq(vfs_fault_poke(v, "f", 0, "J", 1), STRATA_OK);
    unsigned char buf[32];
    size_t nread;
    cr_assert_eq(vfs_read(f, buf, sizeof buf, 0, &nread, NULL), STRATA_OK);
    cr_assert_eq(nread, 11);
    cr_assert_arr_eq(buf, "Jello world", 11, "poke changes what reads see");
    vfs_fault_power_loss(v, VFS_LOSE_UNSYNCED);
    cr_assert(file_content_equals(v, "f", "Jello world", 11), "poke changes the durable content");

    cr_assert_eq(vfs_fault_poke(v, "f", 13, "!", 1), STRATA_OK);
    cr_assert(file_content_equals(v, "f", "Jello world\0\0!", 14), "poke past the end extends with zeros");
    cr_assert_eq(vfs_fault_peek(v, "f", 6, buf, 100, &nread), STRATA_OK);
    cr_assert_eq(nread, 8);
    cr_assert_arr_eq(buf, "world\0\0!", 8);
    cr_assert_eq(vfs_fault_peek(v, "f", 100, buf, 10, &nread), STRATA_OK);
    cr_assert_eq(nread, 0);
    uint64_t size;
    cr_assert_eq(vfs_fault_file_size(v, "f", &size), STRATA_OK);
    cr_assert_eq(size, 14);
    cr_assert_eq(vfs_fault_peek(v, "missing", 0, buf, 1, &nread), STRATA_NOTFOUND);
    cr_assert_eq(vfs_fault_poke(v, "missing", 0, "x", 1), STRATA_NOTFOUND);
    cr_assert_eq(vfs_fault_file_size(v, "missing", &size), STRATA_NOTFOUND);

    /* peek works after a crash, for corruption checks on the state the crash left */
    vfs_fault_plan plan = {.op_mask = VFS_OP_WRITE, .fail_at = 1, .fail_errno = EIO, .crash = 1};
    vfs_fault_set_plan(v, &plan);
    cr_assert_eq(vfs_write(f, "XY", 2, 0, NULL), STRATA_IOERR);
    cr_assert_eq(vfs_fault_peek(v, "f", 0, buf, 2, &nread), STRATA_OK);
    cr_assert_arr_eq(buf, "Xe", 2, "peek shows the torn write");
    vfs_close(f);
    cr_assert_eq(vfs_fault_peek(v, "f", 0, buf, 2, &nread), STRATA_OK, "peek works on a closed file");
    vfs_destroy(v);
}
