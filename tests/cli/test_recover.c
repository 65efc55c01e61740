/*
** test_recover.c -- the shell's .recover, run as a user runs it (STRATA_BIN, passed by the
** Makefile): `.recover NEWFILE` on the open database, `.recover DAMAGED NEWFILE` on a file that
** does not open, the per-table report and the errors, checked exactly.
*/
#include <criterion/criterion.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../planner/catalog/catalog.h"
#include "../../rowstore/btree_internal.h"
#include "../../rowstore/pager.h"
#include "helpers/run_program.h"
#include "helpers/tmpdir.h"
#include "vfs.h"

#define PS 8192

static char tmp[] = "/tmp/strata-cli-recover-XXXXXX";

#include "helpers/shell_run.h"

/* setup makes db.strata: t (3000 rows over several leaves under an interior root) and u (2 rows). */
static void setup(void) {
    cr_assert_not_null(mkdtemp(tmp));
    expect_run(NULL,
               ARGS("db.strata", "CREATE TABLE t(k INTEGER PRIMARY KEY, v VARCHAR);"
                                 "INSERT INTO t SELECT i, 'v' || i FROM generate_series(1, 3000) g(i);"
                                 "CREATE TABLE u(a INTEGER); INSERT INTO u VALUES (1), (2)"),
               0, "", "");
}
static void teardown(void) { tmpdir_remove(tmp); }

TestSuite(cli_recover, .init = setup, .fini = teardown, .timeout = 60);

/* roots gives the catalog's root and t's, through the library's catalog. */
static void roots(pgno_t *catalog_root, pgno_t *t_root) {
    pager_config cfg = {.read_only = 1};
    pager *p;
    strata_err err;
    err_clear(&err);
    cr_assert_eq(pager_open(vfs_posix(), path_in("db.strata"), &cfg, &p, &err), STRATA_OK, "%s", err.msg);
    pager_txn *t;
    cr_assert_eq(pager_begin(p, 0, &t, &err), STRATA_OK);
    catalog c;
    memset(&c, 0, sizeof c);
    cr_assert_eq(catalog_load(&c, t, &err), STRATA_OK, "%s", err.msg);
    *catalog_root = (pgno_t)pager_meta_get(t, CATALOG_ROOT_SLOT);
    *t_root = catalog_table(&c, "t")->root;
    catalog_free(&c);
    pager_rollback(t);
    pager_close(p);
}

static void page_io(pgno_t pg, uint8_t *buf, int write) {
    int fd = open(path_in("db.strata"), write ? O_WRONLY : O_RDONLY);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write ? pwrite(fd, buf, PS, (off_t)pg * PS) : pread(fd, buf, PS, (off_t)pg * PS), PS);
    close(fd);
}

static void flip_page(pgno_t pg) {
    uint8_t buf[PS];
    page_io(pg, buf, 0);
    buf[100] ^= 0xff;
    page_io(pg, buf, 1);
}

Test(cli_recover, recover_newfile_copies_the_open_database) {
    expect_run(NULL, ARGS("db.strata", "-c", ".recover new.db"), 0,
               "t: 3000 rows\nu: 2 rows\nrecovered 3002 rows of 2 tables into new.db\n", "");
    expect_run(NULL, ARGS("-list", "-noheader", "new.db", "SELECT count(*), sum(k), min(v) FROM t; SELECT * FROM u"),
               0, "3000|4501500|v1\n1\n2\n", "");
    expect_run(NULL, ARGS("db.strata", "-c", ".recover new.db"), 1, "",
               "Error: new.db already exists: recovery writes a new database\n");
    expect_run(NULL, ARGS("db.strata", "-c", ".recover"), 1, "", "Error: usage: .recover [DAMAGED] NEWFILE\n");
    expect_run(NULL, ARGS("-c", ".recover a b c"), 1, "", "Error: usage: .recover [DAMAGED] NEWFILE\n");
    run_result r = run(".help\n", NULL);
    cr_expect(strstr(r.out, ".recover [DB] NEW"), "help:\n%s", r.out);
    run_free(&r);
}

Test(cli_recover, recover_damaged_newfile_reports_lost_pages_and_orphans) {
    pgno_t croot, troot;
    roots(&croot, &troot);
    uint8_t root[PS], leaf[PS];
    page_io(troot, root, 0);
    cr_assert_eq(root[BT_OFF_TYPE], BT_PAGE_INTERIOR);
    pgno_t first = (pgno_t)root[BT_HDR_SIZE] | (pgno_t)root[BT_HDR_SIZE + 1] << 8; /* cell 0's offset */
    const uint8_t *c = root + first;
    pgno_t leaf_pg = (pgno_t)c[0] | (pgno_t)c[1] << 8 | (pgno_t)c[2] << 16 | (pgno_t)c[3] << 24;
    page_io(leaf_pg, leaf, 0);
    int lost = leaf[BT_OFF_NCELLS] | leaf[BT_OFF_NCELLS + 1] << 8;

    /* a leaf: its rows are lost, the others come */
    flip_page(leaf_pg);
    char out[512];
    snprintf(out, sizeof out, "t: %d rows, 1 page lost\nu: 2 rows\nrecovered %d rows of 2 tables into n1.db\n",
             3000 - lost, 3002 - lost);
    expect_run(NULL, ARGS("-c", ".recover db.strata n1.db"), 0, out, "");
    snprintf(out, sizeof out, "%d\n", 3000 - lost);
    expect_run(NULL, ARGS("-list", "-noheader", "n1.db", "SELECT count(*) FROM t WHERE v = 'v' || k"), 0, out, "");
    page_io(leaf_pg, leaf, 1); /* undo */

    /* the interior root: every leaf is an orphan, and every row comes back */
    flip_page(troot);
    expect_run(NULL, ARGS("-c", ".recover db.strata n2.db"), 0,
               "t: 3000 rows, 3000 from orphan leaves, 1 page lost\nu: 2 rows\n"
               "recovered 3002 rows of 2 tables into n2.db\n",
               "");
    expect_run(NULL, ARGS("-list", "-noheader", "n2.db", "SELECT count(DISTINCT k), sum(k) FROM t"), 0,
               "3000|4501500\n", "");
}

Test(cli_recover, a_damaged_catalog_points_to_recover_which_fails_clearly) {
    pgno_t croot, troot;
    roots(&croot, &troot);
    flip_page(croot);
    char err[1024];
    snprintf(err, sizeof err,
             "Error: cannot open \"db.strata\": the catalog of db.strata (its table definitions) is damaged: page %u: "
             "checksum mismatch in db.strata; strata_recover() copies what is readable into a new database (in the "
             "shell: strata -c \".recover db.strata NEWFILE\")\n",
             croot);
    expect_run(NULL, ARGS("db.strata", "SELECT 1"), 1, "", err);
    snprintf(err, sizeof err,
             "Error: the catalog is unreadable (page %u: checksum mismatch in db.strata): no table definition "
             "survives, nothing can be recovered\n",
             croot);
    expect_run(NULL, ARGS("-c", ".recover db.strata n3.db"), 1, "", err);
    cr_assert_eq(access(path_in("n3.db"), F_OK), -1);
    expect_run(NULL, ARGS("-c", ".recover nosuch.db n4.db"), 1, "",
               "Error: open nosuch.db: No such file or directory\n");
}
