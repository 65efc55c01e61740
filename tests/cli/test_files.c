/*
** test_files.c -- the files a database is, as the shell leaves them, and a full disk.
**
** What a user relies on:
**   - a database closed cleanly is one file: no PATH-wal beside it, whether the session wrote or
**     only read;
**   - on a full disk, a commit that succeeded is never reported as failed: when the close cannot
**     fold the WAL into the file, the shell warns (saying that PATH-wal stays and that the next
**     open applies it) and exits 0; later sessions read the data and exit 0; once there is space,
**     the next close folds the WAL in and removes it.
** The full disk is a real 5 MiB tmpfs, mounted for the test; where it cannot be mounted (not
** root, no mount namespace) those tests say so and are skipped. The shell's own files (its
** standard input, output and error) stay on the ordinary temporary directory.
*/
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers/run_program.h"
#include "helpers/tmpdir.h"

#ifndef STRATA_BIN
#error "STRATA_BIN must name the strata binary (the Makefile passes it)"
#endif

static char tmp[] = "/tmp/strata-files-XXXXXX";
static char mnt[600];
static int mounted;

static void setup(void) {
    cr_assert_not_null(mkdtemp(tmp));
    snprintf(mnt, sizeof mnt, "%s/small", tmp);
    cr_assert_eq(mkdir(mnt, 0755), 0);
    mounted = 0;
}

static void teardown(void) {
    if (mounted) umount2(mnt, MNT_DETACH);
    tmpdir_remove(tmp);
}

TestSuite(files, .init = setup, .fini = teardown);

/* mount_small mounts a 5 MiB tmpfs on mnt with the given options, or skips the test saying why it
** cannot. */
static void mount_small(const char *options) {
    if (mount("tmpfs", mnt, "tmpfs", 0, options) != 0)
        cr_skip("cannot mount a tmpfs (%s) on %s (%s): the full-disk test needs root", options, mnt, strerror(errno));
    mounted = 1;
}

static const char *in_dir(const char *dir, const char *name) {
    static char path[2][700];
    static int which;
    which ^= 1;
    snprintf(path[which], sizeof path[which], "%s/%s", dir, name);
    return path[which];
}

static int exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

static run_result shell(const char *db, const char *sql) {
    const char *argv[] = {STRATA_BIN, "-csv", "-noheader", db, sql, NULL};
    return run_program(tmp, argv, NULL);
}

#define expect_shell(db, sql, status_, out_, err_)                                                           \
    do {                                                                                                     \
        run_result r_ = shell(db, sql);                                                                      \
        cr_expect_str_eq(r_.out, out_, "%s: stdout was:\n%s", sql, r_.out);                                  \
        cr_expect_str_eq(r_.err, err_, "%s: stderr was:\n%s", sql, r_.err);                                  \
        cr_expect_eq(r_.status, status_, "%s: exit status %d, stderr: %s", sql, r_.status, r_.err);          \
        run_free(&r_);                                                                                       \
    } while (0)

Test(files, a_closed_database_is_one_file) {
    const char *db = in_dir(tmp, "app.db"), *wal = in_dir(tmp, "app.db-wal");
    expect_shell(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'one')", 0, "", "");
    cr_expect(exists(db), "the database file is there");
    cr_expect(!exists(wal), "a clean close leaves no -wal beside the file");
    expect_shell(db, "SELECT v FROM t", 0, "one\n", "");
    cr_expect(!exists(wal), "a session that only read leaves no -wal either");
    expect_shell(db, "INSERT INTO t VALUES (2, 'two'); SELECT count(*) FROM t", 0, "2\n", "");
    cr_expect(!exists(wal));
}

/* fill writes zeros into path until the file system is full. */
static void fill(const char *path) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    static char zeros[64 << 10];
    while (fwrite(zeros, 1, sizeof zeros, f) == sizeof zeros) {
    }
    fclose(f);
}

Test(files, a_full_disk_fails_no_commit_and_the_shell_warns) {
    mount_small("size=5m");
    const char *db = in_dir(mnt, "full.db");
    char wal[700], filler[700], warning[2000];
    snprintf(wal, sizeof wal, "%s-wal", db);
    snprintf(filler, sizeof filler, "%s/filler", mnt);
    /* The rows stay in the row store: the sizes below are its pages' (a bulk INSERT of 17,000
    ** rows would otherwise become a column row group a few KB long, which fits in the WAL). */
    expect_shell(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT) WITH (storage = 'row')", 0, "", "");
    cr_assert(!exists(wal));
    /* Leave room for the WAL (the commit's ~410 KB of frames grow a new WAL to 512 KiB: 64 KiB
    ** doubling, rowstore/pager.c wal_extend) but not for the file to grow by the rows' pages
    ** (~380 KB): the commit succeeds, the checkpoint at the close cannot. */
    fill(filler);
    struct stat st;
    cr_assert_eq(stat(filler, &st), 0);
    cr_assert_eq(truncate(filler, st.st_size - (512 << 10) - (32 << 10)), 0);
    snprintf(warning, sizeof warning,
             "Warning: the write-ahead log %s could not be folded into %s (write %s at offset", wal, db, db);
    run_result r = shell(db, "INSERT INTO t SELECT i, repeat('x', 100) FROM generate_series(1, 3000) g(i)");
    cr_expect_str_eq(r.out, "", "stdout: %s", r.out);
    cr_expect_eq(r.status, 0, "a commit that succeeded must not fail the shell: status %d, stderr: %s", r.status,
                 r.err);
    cr_expect(strncmp(r.err, warning, strlen(warning)) == 0 && strstr(r.err, "No space left on device") &&
                  strstr(r.err, "it stays beside it and keeps every commit: the next open applies them\n"),
              "the warning should say what did not happen and that nothing is lost; stderr was:\n%s", r.err);
    cr_expect(!strstr(r.err, "Error"), "no error: %s", r.err);
    run_free(&r);
    cr_expect(exists(wal), "the WAL that holds the commit stays");

    /* Still full: reading works and exits 0 (with the warning again). */
    r = shell(db, "SELECT count(*), sum(length(v)) FROM t");
    cr_expect_str_eq(r.out, "3000,300000\n");
    cr_expect_eq(r.status, 0, "a read on a full disk: status %d, stderr: %s", r.status, r.err);
    cr_expect(strncmp(r.err, warning, strlen(warning)) == 0, "stderr was:\n%s", r.err);
    run_free(&r);

    /* A commit that does not fit fails, and loses nothing of the earlier ones. */
    cr_assert_eq(remove(filler), 0);
    fill(filler);
    r = shell(db, "INSERT INTO t SELECT i, repeat('y', 100) FROM generate_series(3001, 20000) g(i)");
    cr_expect_eq(r.status, 1, "a commit without space fails: status %d, stderr: %s", r.status, r.err);
    cr_expect(strstr(r.err, "full") || strstr(r.err, "space"), "the error says the disk is full: %s", r.err);
    run_free(&r);

    /* Space again: the next close folds the WAL in and removes it. */
    cr_assert_eq(remove(filler), 0);
    expect_shell(db, "SELECT count(*) FROM t", 0, "3000\n", "");
    cr_expect(!exists(wal), "with space, the close removes the WAL");
    expect_shell(db, "SELECT count(*), min(k), max(k) FROM t", 0, "3000,1,3000\n", "");

    /* Full again, the database closed cleanly (one file): a session reads and exits 0; a write
    ** fails saying the disk is full, loses nothing, and leaves no -wal behind. */
    fill(filler);
    expect_shell(db, "SELECT count(*) FROM t", 0, "3000\n", "");
    cr_expect(!exists(wal));
    r = shell(db, "INSERT INTO t VALUES (5000, 'z')");
    cr_expect_eq(r.status, 1, "status %d, stderr: %s", r.status, r.err);
    cr_expect(strstr(r.err, "No space left on device"), "stderr: %s", r.err);
    run_free(&r);
    cr_expect(!exists(wal), "a session whose only commit failed leaves no -wal");
    expect_shell(db, "SELECT count(*), max(k) FROM t", 0, "3000,3000\n", "");
}

/* A file system with no inode left for the WAL (which a clean close removed): the database opens
** for reading, a read exits 0, and a write fails saying the database is open for reading only and
** why; once a WAL can be created again, writes work. */
Test(files, no_room_for_a_wal_means_reads_only) {
    mount_small("size=5m,nr_inodes=3"); /* the root directory, the database, one more */
    const char *db = in_dir(mnt, "app.db");
    char wal[700], other[700];
    snprintf(wal, sizeof wal, "%s-wal", db);
    snprintf(other, sizeof other, "%s/other", mnt);
    expect_shell(db, "CREATE TABLE t(k INTEGER PRIMARY KEY); INSERT INTO t VALUES (1), (2)", 0, "", "");
    cr_assert(!exists(wal));
    FILE *f = fopen(other, "w"); /* takes the last inode */
    cr_assert_not_null(f, "%s", strerror(errno));
    fclose(f);
    expect_shell(db, "SELECT sum(k) FROM t", 0, "3\n", "");
    run_result r = shell(db, "INSERT INTO t VALUES (3)");
    cr_expect_eq(r.status, 1, "status %d, stderr: %s", r.status, r.err);
    char want[2000];
    snprintf(want, sizeof want,
             "%s is open for reading only: its write-ahead log %s could not be created (open %s: No space left on "
             "device)",
             db, wal, wal);
    cr_expect(strstr(r.err, want), "stderr was:\n%s\nwanted:\n%s", r.err, want);
    run_free(&r);
    cr_assert_eq(remove(other), 0);
    expect_shell(db, "INSERT INTO t VALUES (3); SELECT sum(k) FROM t", 0, "6\n", "");
    cr_expect(!exists(wal));
}
