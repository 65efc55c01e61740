/*
** test_recover.c -- damaged database files: what open, queries and PRAGMA integrity_check do,
** and strata_recover / strata_recover_db copying every readable row into a new database.
**
** Each test builds the same database (three tables, one of them with a row group of column
** segments, an index and a view), damages it as a disk or a copy would (a truncated file, bytes
** flipped in a leaf, an interior page, a column segment, the catalog, the statistics), then checks
** what the user sees. The damaged file's bytes and its folder's listing are compared before and
** after every recovery: recovery must change nothing beside the new database.
*/
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../planner/catalog/catalog.h"
#include "../../rowstore/btree_internal.h"
#include "../../rowstore/pager.h"
#include "../helpers/api_db.h"
#include "../helpers/fnv.h"
#include "../helpers/tmpdir.h"
#include "crc32c.h"
#include "vfs.h"

#define PS 8192
#define SMALL_ROWS 3000
#define OTHER_ROWS 500
#define BIG_ROWS 130000
#define GROUP_ROWS 122880 /* a full row group: big has one, and the rest in its row tree */

static char dir[256], db_path[300], new_path[300];

static void setup(void) {
    snprintf(dir, sizeof dir, "/tmp/strata_recover_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(db_path, sizeof db_path, "%s/d.db", dir);
    snprintf(new_path, sizeof new_path, "%s/new.db", dir);
    strata_db *db = open_file(db_path);
    EXEC_OK(db, "CREATE TABLE small(k INTEGER PRIMARY KEY, v VARCHAR NOT NULL);"
                "INSERT INTO small SELECT i, 'v' || i FROM generate_series(1, 3000) g(i);"
                "CREATE INDEX small_v ON small(v);"
                "CREATE TABLE other(a BIGINT, b DOUBLE, c VARCHAR);"
                "INSERT INTO other SELECT i, i / 4.0, 'other ' || i FROM generate_series(1, 500) g(i);"
                "CREATE TABLE big(id BIGINT, x INTEGER, s VARCHAR);"
                "INSERT INTO big SELECT i, i % 97, 'name' || i FROM generate_series(1, 130000) g(i);"
                "CREATE VIEW big_odd AS SELECT id FROM big WHERE x % 2 = 1");
    cr_assert_eq(strata_close(db), STRATA_OK);
}

static void teardown(void) { tmpdir_remove(dir); }

TestSuite(recover, .init = setup, .fini = teardown, .timeout = 120);

/* ---- the file's layout, found through the library's own catalog ---------------------------- */

typedef struct layout {
    pgno_t catalog, small_root, other_root, big_root, big_col_root, npages;
} layout;

static layout get_layout(void) {
    layout L = {0};
    pager_config cfg = {.read_only = 1};
    pager *p;
    strata_err err;
    err_clear(&err);
    cr_assert_eq(pager_open(vfs_posix(), db_path, &cfg, &p, &err), STRATA_OK, "%s", err.msg);
    pager_txn *t;
    cr_assert_eq(pager_begin(p, 0, &t, &err), STRATA_OK, "%s", err.msg);
    catalog c;
    memset(&c, 0, sizeof c);
    cr_assert_eq(catalog_load(&c, t, &err), STRATA_OK, "%s", err.msg);
    L.catalog = (pgno_t)pager_meta_get(t, CATALOG_ROOT_SLOT);
    L.small_root = catalog_table(&c, "small")->root;
    L.other_root = catalog_table(&c, "other")->root;
    L.big_root = catalog_table(&c, "big")->root;
    L.big_col_root = catalog_table(&c, "big")->desc.col_root;
    L.npages = pager_page_count(t);
    catalog_free(&c);
    pager_rollback(t);
    pager_close(p);
    cr_assert_neq(L.big_col_root, 0, "big has a row group");
    return L;
}

/* ---- raw pages ------------------------------------------------------------------------------ */

static void read_page(pgno_t pg, uint8_t *buf) {
    int fd = open(db_path, O_RDONLY);
    cr_assert_geq(fd, 0);
    cr_assert_eq(pread(fd, buf, PS, (off_t)pg * PS), PS, "page %u", pg);
    close(fd);
}

static void write_page(pgno_t pg, const uint8_t *buf) {
    int fd = open(db_path, O_WRONLY);
    cr_assert_geq(fd, 0);
    cr_assert_eq(pwrite(fd, buf, PS, (off_t)pg * PS), PS);
    close(fd);
}

static uint32_t get16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t get32(const uint8_t *p) { return get16(p) | get16(p + 2) << 16; }

/* flip_page changes four bytes of page pg, so that its checksum no longer matches. */
static void flip_page(pgno_t pg) {
    uint8_t buf[PS];
    read_page(pg, buf);
    for (int i = 0; i < 4; i++) buf[100 + i] ^= 0xff;
    write_page(pg, buf);
}

/* reseal recomputes the page checksum as the pager writes it (crc32c of the usable bytes). */
static void reseal(uint8_t *page) {
    uint32_t c = crc32c(0, page, PS - PAGER_RESERVED);
    for (int i = 0; i < 4; i++) page[PS - PAGER_RESERVED + i] = (uint8_t)(c >> (8 * i));
}

/* child0 is the first child of interior page pg (the u32 opening its first cell). */
static pgno_t child0(pgno_t pg) {
    uint8_t buf[PS];
    read_page(pg, buf);
    cr_assert_eq(buf[BT_OFF_TYPE], BT_PAGE_INTERIOR, "page %u is interior", pg);
    return get32(buf + get16(buf + BT_HDR_SIZE));
}

static uint32_t cells_of(pgno_t pg) {
    uint8_t buf[PS];
    read_page(pg, buf);
    return get16(buf + BT_OFF_NCELLS);
}

/* first_segment_page finds the first overflow page that opens a column segment ("SSEG"). */
static pgno_t first_segment_page(const layout *L) {
    uint8_t buf[PS];
    for (pgno_t pg = 1; pg < L->npages; pg++) {
        read_page(pg, buf);
        if (buf[0] == BT_PAGE_OVERFLOW && !memcmp(buf + BT_OVFL_HDR, "SSEG", 4)) return pg;
    }
    cr_assert_fail("no column segment in the file");
    return 0;
}

/* ---- the damaged file must not change ------------------------------------------------------- */

typedef struct snapshot {
    uint8_t *db, *wal;
    size_t dblen, wallen;
    char names[2048];
} snapshot;

static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        *len = 0;
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n + 1);
    cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* list_names gives the folder's file names, sorted, but for the new database's. */
static void list_names(char *out, size_t cap) {
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    char *names[64];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 64)
        if (strncmp(e->d_name, "new.db", 6) && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    out[0] = 0;
    for (int i = 0; i < n; i++) {
        strncat(out, names[i], cap - strlen(out) - 2);
        strncat(out, " ", cap - strlen(out) - 1);
        free(names[i]);
    }
}

static void snap_take(snapshot *s) {
    char wal[320];
    snprintf(wal, sizeof wal, "%s-wal", db_path);
    s->db = slurp(db_path, &s->dblen);
    s->wal = slurp(wal, &s->wallen);
    list_names(s->names, sizeof s->names);
}

static void snap_check(snapshot *s) {
    snapshot now;
    snap_take(&now);
    cr_assert_str_eq(now.names, s->names, "files beside the damaged one changed");
    cr_assert_eq(now.dblen, s->dblen, "the damaged file's size changed");
    cr_assert(!memcmp(now.db, s->db, s->dblen), "the damaged file's bytes changed");
    cr_assert_eq(now.wallen, s->wallen, "its WAL's size changed");
    cr_assert(!s->wallen || !memcmp(now.wal, s->wal, s->wallen), "its WAL's bytes changed");
    free(now.db);
    free(now.wal);
    free(s->db);
    free(s->wal);
}

/* ---- reading results ------------------------------------------------------------------------ */

static const strata_recover_table *table_of(const strata_recover_report *r, const char *name) {
    for (int i = 0; i < r->ntables; i++)
        if (!strcmp(r->tables[i].name, name)) return &r->tables[i];
    cr_assert_fail("the report has no table %s", name);
    return NULL;
}

static int hash_row(void *arg, int n, char **vals, char **names) {
    (void)names;
    uint64_t *h = arg;
    for (int i = 0; i < n; i++) *h = fnv1a(*h, vals[i] ? vals[i] : "\1NULL", vals[i] ? strlen(vals[i]) + 1 : 6);
    return 0;
}

static uint64_t hash_query(strata_db *db, const char *sql) {
    uint64_t h = 14695981039346656037ull;
    int rc = strata_exec(db, sql, hash_row, &h);
    cr_assert_eq(rc, STRATA_OK, "%s: %s", sql, strata_errmsg(db));
    return h;
}

/* rows_of runs a query and joins its rows' first values with '|'. */
static int join_row(void *arg, int n, char **vals, char **names) {
    (void)names;
    char *out = arg;
    if (*out) strcat(out, "|");
    strncat(out, n && vals[0] ? vals[0] : "NULL", 8000 - strlen(out));
    return 0;
}

static char *rows_of(strata_db *db, const char *sql) {
    static char out[8192];
    out[0] = 0;
    int rc = strata_exec(db, sql, join_row, out);
    cr_assert_eq(rc, STRATA_OK, "%s: %s", sql, strata_errmsg(db));
    return out;
}

/* check_new opens the new database and checks that every row it holds is one the original held
** (the values follow from the keys) and that it is whole. */
static void check_new(int64_t small, int64_t other, int64_t big) {
    strata_db *db = open_file(new_path);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM small"), small);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM other"), other);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM big"), big);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM small WHERE v <> 'v' || k OR k < 1 OR k > 3000"), 0);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM other WHERE b <> a / 4.0 OR c <> 'other ' || a"), 0);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM big WHERE s <> 'name' || id OR x <> id % 97"), 0);
    cr_assert_eq(query_int64(db, "SELECT count(DISTINCT id) FROM big"), big, "no row is copied twice");
    cr_assert_str_eq(rows_of(db, "PRAGMA integrity_check"), "ok");
    strata_close(db);
}

static strata_recover_report *recover_ok(void) {
    strata_recover_report *r = NULL;
    snapshot s;
    snap_take(&s);
    int rc = strata_recover(db_path, new_path, &r);
    cr_assert_not_null(r);
    cr_assert_eq(rc, STRATA_OK, "recover -> %d: %s", rc, r->message);
    cr_assert_str_eq(r->message, "");
    snap_check(&s);
    return r;
}

/* ---- an undamaged file ---------------------------------------------------------------------- */

Test(recover, undamaged_file_recovers_exactly_every_row_and_the_schema) {
    char wal[320];
    snprintf(wal, sizeof wal, "%s-wal", db_path);
    unlink(wal); /* the WAL of a closed database is empty: without it, none may be made */
    strata_recover_report *r = recover_ok();
    cr_assert_eq(access(wal, F_OK), -1, "recovery made a WAL beside the damaged file");
    cr_assert_eq(r->ntables, 3);
    cr_assert_eq(table_of(r, "small")->rows, SMALL_ROWS);
    cr_assert_eq(table_of(r, "other")->rows, OTHER_ROWS);
    cr_assert_eq(table_of(r, "big")->rows, BIG_ROWS);
    for (int i = 0; i < r->ntables; i++) {
        cr_assert_eq(r->tables[i].pages_lost, 0, "%s", r->tables[i].name);
        cr_assert_eq(r->tables[i].rowgroups_lost, 0);
        cr_assert_eq(r->tables[i].rows_rejected, 0);
        cr_assert_eq(r->tables[i].orphan_rows, 0);
        cr_assert_eq(r->tables[i].schema_failed, 0);
    }
    cr_assert_eq(r->catalog_pages_lost + r->definitions_lost + r->orphan_leaves, 0);
    strata_recover_free(r);
    check_new(SMALL_ROWS, OTHER_ROWS, BIG_ROWS);
    strata_db *a = open_file(db_path), *b = open_file(new_path);
    const char *queries[] = {"SELECT * FROM small ORDER BY k", "SELECT * FROM other ORDER BY a",
                             "SELECT * FROM big ORDER BY id", "SELECT count(*), sum(id) FROM big_odd",
                             "SELECT type, name, tbl_name FROM strata_catalog ORDER BY name"};
    for (size_t i = 0; i < sizeof queries / sizeof *queries; i++)
        cr_assert_eq(hash_query(a, queries[i]), hash_query(b, queries[i]), "%s differs", queries[i]);
    cr_assert_str_eq(rows_of(b, "SELECT name FROM strata_catalog WHERE type = 'index' ORDER BY name"), "small_v");
    strata_close(a);
    strata_close(b);
}

Test(recover, refuses_an_existing_new_file_and_a_file_another_handle_has_open) {
    strata_recover_report *r = NULL;
    FILE *f = fopen(new_path, "w");
    fputs("mine", f);
    fclose(f);
    cr_assert_eq(strata_recover(db_path, new_path, &r), STRATA_ERROR);
    cr_assert(strstr(r->message, "already exists"), "%s", r->message);
    strata_recover_free(r);
    size_t len;
    uint8_t *b = slurp(new_path, &len);
    cr_assert(len == 4 && !memcmp(b, "mine", 4), "the existing file was changed");
    free(b);
    unlink(new_path);
    strata_db *db = open_file(db_path);
    cr_assert_eq(strata_recover(db_path, new_path, &r), STRATA_BUSY);
    strata_recover_free(r);
    cr_assert_eq(access(new_path, F_OK), -1);
    strata_close(db);
    cr_assert_eq(strata_recover("/nonexistent/x.db", new_path, &r), STRATA_IOERR);
    cr_assert_neq(r->message[0], 0);
    strata_recover_free(r);
}

/* ---- a leaf of the row store ------------------------------------------------------------------ */

Test(recover, flipped_bytes_in_a_leaf_lose_its_rows_only) {
    layout L = get_layout();
    pgno_t leaf = child0(L.small_root);
    uint32_t lost = cells_of(leaf);
    cr_assert(lost > 0 && lost < SMALL_ROWS);
    flip_page(leaf);

    strata_db *db = open_file(db_path);
    strata_stmt *s = prepare(db, "SELECT count(*) FROM small");
    cr_assert_eq(strata_step(s), STRATA_CORRUPT);
    char want[64];
    snprintf(want, sizeof want, "page %u: checksum mismatch", leaf);
    cr_assert(strstr(strata_errmsg(db), want), "%s", strata_errmsg(db));
    strata_finalize(s);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM other"), OTHER_ROWS);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM big"), BIG_ROWS);
    cr_assert_eq(query_int64(db, "SELECT v = 'v3000' FROM small WHERE k = 3000"), 1, "a lookup past the leaf works");
    char *lines = rows_of(db, "PRAGMA integrity_check");
    cr_assert(strstr(lines, want), "%s", lines);

    /* the open handle's own recovery */
    snapshot snap;
    snap_take(&snap);
    strata_recover_report *r = NULL;
    cr_assert_eq(strata_recover_db(db, new_path, &r), STRATA_OK, "%s", r->message);
    snap_check(&snap); /* before the close, which removes the handle's WAL */
    strata_close(db);
    cr_assert_eq(table_of(r, "small")->rows, SMALL_ROWS - lost);
    cr_assert_eq(table_of(r, "small")->pages_lost, 1);
    cr_assert_eq(table_of(r, "small")->orphan_rows, 0);
    cr_assert_eq(table_of(r, "other")->rows, OTHER_ROWS);
    cr_assert_eq(table_of(r, "big")->rows, BIG_ROWS);
    strata_recover_free(r);
    check_new(SMALL_ROWS - lost, OTHER_ROWS, BIG_ROWS);
    unlink(new_path);

    /* and the closed file's */
    r = recover_ok();
    cr_assert_eq(table_of(r, "small")->rows, SMALL_ROWS - lost);
    strata_recover_free(r);
}

/* ---- an interior page: the leaves below it are found as orphans --------------------------- */

Test(recover, a_lost_interior_page_leaves_orphan_leaves_that_are_recovered) {
    layout L = get_layout();
    uint8_t root[PS];
    read_page(L.small_root, root);
    cr_assert_eq(root[BT_OFF_TYPE], BT_PAGE_INTERIOR, "small's root is an interior page");
    flip_page(L.small_root);
    strata_db *db = open_file(db_path);
    strata_stmt *s = prepare(db, "SELECT count(*) FROM small");
    cr_assert_eq(strata_step(s), STRATA_CORRUPT);
    strata_finalize(s);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM other"), OTHER_ROWS);
    strata_close(db);

    strata_recover_report *r = recover_ok();
    cr_assert_eq(table_of(r, "small")->rows, SMALL_ROWS);
    cr_assert_eq(table_of(r, "small")->orphan_rows, SMALL_ROWS);
    cr_assert_eq(table_of(r, "small")->pages_lost, 1);
    cr_assert_eq(r->orphan_leaves, get16(root + BT_OFF_NCELLS) + 1, "every leaf below the root");
    cr_assert_eq(table_of(r, "other")->orphan_rows, 0);
    strata_recover_free(r);
    check_new(SMALL_ROWS, OTHER_ROWS, BIG_ROWS);
}

/* ---- column segments ---------------------------------------------------------------------------- */

Test(recover, a_damaged_column_segment_loses_its_row_group_only) {
    layout L = get_layout();
    pgno_t pg = first_segment_page(&L);
    uint8_t buf[PS];
    read_page(pg, buf);
    buf[BT_OVFL_HDR + 200] ^= 0x5a; /* inside the segment, which its checksum covers */
    reseal(buf);                    /* the page reads: only the segment's own checksum sees it */
    write_page(pg, buf);

    strata_db *db = open_file(db_path);
    char *lines = rows_of(db, "PRAGMA integrity_check");
    cr_assert(strstr(lines, "row group at rowid 1, column") && strstr(lines, "checksum"), "%s", lines);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM small"), SMALL_ROWS);
    strata_close(db);

    strata_recover_report *r = recover_ok();
    cr_assert_eq(table_of(r, "big")->rows, BIG_ROWS - GROUP_ROWS);
    cr_assert_eq(table_of(r, "big")->rowgroups_lost, 1);
    cr_assert_eq(table_of(r, "small")->rows, SMALL_ROWS);
    strata_recover_free(r);
    check_new(SMALL_ROWS, OTHER_ROWS, BIG_ROWS - GROUP_ROWS);
}

/* ---- the catalog ------------------------------------------------------------------------------- */

Test(recover, a_damaged_catalog_fails_open_and_recovery_clearly) {
    layout L = get_layout();
    flip_page(L.catalog);
    strata_db *db = NULL;
    cr_assert_eq(strata_open(db_path, &db), STRATA_CORRUPT);
    cr_assert(strstr(strata_errmsg(db), "catalog") && strstr(strata_errmsg(db), "strata_recover"), "%s",
              strata_errmsg(db));
    strata_close(db);
    snapshot s;
    snap_take(&s);
    strata_recover_report *r = NULL;
    cr_assert_eq(strata_recover(db_path, new_path, &r), STRATA_CORRUPT);
    cr_assert(strstr(r->message, "catalog is unreadable"), "%s", r->message);
    cr_assert_eq(r->catalog_pages_lost, 1);
    strata_recover_free(r);
    cr_assert_eq(access(new_path, F_OK), -1, "no new database is made from nothing");
    snap_check(&s);
}

/* stats_overflow finds the first page of an overflowed statistics value ("s:" entry) in the
** catalog's leaf. */
static pgno_t stats_overflow(pgno_t leaf) {
    uint8_t buf[PS];
    read_page(leaf, buf);
    cr_assert_eq(buf[BT_OFF_TYPE], BT_PAGE_LEAF, "the catalog is one leaf");
    for (uint32_t i = 0; i < get16(buf + BT_OFF_NCELLS); i++) {
        const uint8_t *c = buf + get16(buf + BT_HDR_SIZE + 2 * i);
        uint64_t kl = 0, v2 = 0;
        int sh = 0;
        do kl |= (uint64_t)(*c & 0x7f) << sh, sh += 7; while (*c++ & 0x80);
        sh = 0;
        do v2 |= (uint64_t)(*c & 0x7f) << sh, sh += 7; while (*c++ & 0x80);
        if (kl > 2 && c[0] == 's' && c[1] == ':' && (v2 & 1)) return get32(c + kl);
    }
    cr_assert_fail("no overflowed statistics entry");
    return 0;
}

Test(recover, damaged_statistics_do_not_stop_open) {
    layout L = get_layout();
    pgno_t pg = stats_overflow(L.catalog);
    flip_page(pg);
    strata_db *db = open_file(db_path);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM small"), SMALL_ROWS);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM big WHERE x = 5"), 1341);
    char want[64];
    snprintf(want, sizeof want, "page %u: checksum mismatch", pg);
    char *lines = rows_of(db, "PRAGMA integrity_check");
    cr_assert(strstr(lines, want), "%s", lines);
    strata_close(db);
    strata_recover_report *r = recover_ok();
    cr_assert_eq(table_of(r, "big")->rows, BIG_ROWS);
    strata_recover_free(r);
    check_new(SMALL_ROWS, OTHER_ROWS, BIG_ROWS);
}

/* ---- a truncated file --------------------------------------------------------------------------- */

Test(recover, a_truncated_file_recovers_what_is_left) {
    layout L = get_layout();
    struct stat st;
    cr_assert_eq(stat(db_path, &st), 0);
    cr_assert_eq(truncate(db_path, st.st_size / 2), 0);
    strata_db *db = NULL;
    int rc = strata_open(db_path, &db);
    if (rc == STRATA_OK) {
        cr_assert_eq(query_int64(db, "SELECT count(*) FROM other"), OTHER_ROWS);
        strata_stmt *s = prepare(db, "SELECT count(*) FROM big");
        cr_assert_eq(strata_step(s), STRATA_CORRUPT, "big's pages lie past the end");
        cr_assert(strstr(strata_errmsg(db), "truncated"), "%s", strata_errmsg(db));
        strata_finalize(s);
        char *lines = rows_of(db, "PRAGMA integrity_check");
        cr_assert(strstr(lines, "truncated"), "%s", lines);
    } else {
        cr_assert_eq(rc, STRATA_CORRUPT);
        cr_assert(strstr(strata_errmsg(db), "strata_recover"), "%s", strata_errmsg(db));
    }
    strata_close(db);
    strata_recover_report *r = recover_ok();
    const strata_recover_table *big = table_of(r, "big");
    cr_assert(big->pages_lost + big->rowgroups_lost > 0, "big lost pages");
    cr_assert_lt(big->rows, BIG_ROWS);
    int64_t small = table_of(r, "small")->rows, other = table_of(r, "other")->rows, bigrows = big->rows;
    cr_assert_eq(small, SMALL_ROWS, "small lies in the first half");
    cr_assert_eq(other, OTHER_ROWS, "other lies in the first half");
    (void)L;
    strata_recover_free(r);
    check_new(small, other, bigrows);
}

/* ---- PRAGMA integrity_check's list ------------------------------------------------------------- */

Test(recover, integrity_check_lists_every_problem_up_to_its_cap) {
    strata_db *db = open_file(db_path);
    cr_assert_str_eq(rows_of(db, "PRAGMA integrity_check"), "ok");
    strata_close(db);
    layout L = get_layout();
    /* every page but the catalog's and small's root: many problems */
    pgno_t leaf = child0(L.small_root);
    uint32_t flipped = 0;
    for (pgno_t pg = 1; pg < L.npages; pg++)
        if (pg != L.catalog && pg != L.small_root) {
            flip_page(pg);
            flipped++;
        }
    cr_assert_gt(flipped, 100, "more damaged pages than the cap");
    db = open_file(db_path);
    strata_stmt *s = prepare(db, "PRAGMA integrity_check");
    int rows = 0, rc;
    while ((rc = strata_step(s)) == STRATA_ROW) {
        cr_assert_str_neq(strata_column_text(s, 0), "ok");
        rows++;
    }
    cr_assert_eq(rc, STRATA_DONE);
    cr_assert_eq(rows, 100, "sqlite3's cap of 100 rows");
    strata_finalize(s);
    char want[64];
    snprintf(want, sizeof want, "page %u: checksum mismatch", leaf);
    s = prepare(db, "PRAGMA integrity_check(100000)");
    int n = 0, seen = 0;
    while (strata_step(s) == STRATA_ROW) {
        n++;
        seen |= strstr(strata_column_text(s, 0), want) != NULL;
    }
    strata_finalize(s);
    cr_assert(seen, "the list names the damaged leaf");
    cr_assert_geq(n, (int)flipped, "one row per damaged page at least");
    cr_assert_str_eq(rows_of(db, "SELECT count(*) FROM (SELECT 1) t"), "1");
    s = prepare(db, "PRAGMA integrity_check(3)");
    rows = 0;
    while (strata_step(s) == STRATA_ROW) rows++;
    cr_assert_eq(rows, 3);
    strata_finalize(s);
    cr_assert_eq(strata_exec(db, "PRAGMA integrity_check('x')", NULL, NULL), STRATA_ERROR);
    strata_close(db);
}

/* ---- a catalog of several leaves, one of them lost ------------------------------------------- */

Test(recover, a_partly_damaged_catalog_recovers_the_tables_it_still_defines) {
    unlink(db_path);
    char wal[320];
    snprintf(wal, sizeof wal, "%s-wal", db_path);
    unlink(wal);
    strata_db *db = open_file(db_path);
    char sql[4096];
    for (int i = 0; i < 40; i++) { /* long definitions: the catalog needs several leaves */
        int n = snprintf(sql, sizeof sql, "CREATE TABLE t%02d(k INTEGER PRIMARY KEY", i);
        for (int c = 0; c < 12; c++) n += snprintf(sql + n, sizeof sql - (size_t)n, ", column_with_a_long_name_%d VARCHAR", c);
        snprintf(sql + n, sizeof sql - (size_t)n, "); INSERT INTO t%02d(k) SELECT i FROM generate_series(1, %d) g(i)", i,
                 100 + i);
        EXEC_OK(db, sql);
    }
    strata_close(db);
    pager_config cfg = {.read_only = 1};
    pager *p;
    strata_err err;
    err_clear(&err);
    cr_assert_eq(pager_open(vfs_posix(), db_path, &cfg, &p, &err), STRATA_OK);
    pager_txn *t;
    cr_assert_eq(pager_begin(p, 0, &t, &err), STRATA_OK);
    pgno_t croot = (pgno_t)pager_meta_get(t, CATALOG_ROOT_SLOT);
    pager_rollback(t);
    pager_close(p);
    uint8_t root[PS];
    read_page(croot, root);
    cr_assert_eq(root[BT_OFF_TYPE], BT_PAGE_INTERIOR, "the catalog has several leaves");
    pgno_t leaf = get32(root + BT_OFF_RIGHT); /* the last entries in key order: "t:" definitions */
    uint32_t lost_entries = cells_of(leaf);
    cr_assert(lost_entries > 0 && lost_entries < 40);
    flip_page(leaf);

    db = NULL;
    cr_assert_eq(strata_open(db_path, &db), STRATA_CORRUPT);
    strata_close(db);
    strata_recover_report *r = recover_ok();
    cr_assert_eq(r->catalog_pages_lost, 1);
    cr_assert_eq(r->ntables, 40 - (int)lost_entries, "the tables the lost leaf defined are missing");
    cr_assert_geq(r->orphan_leaves, lost_entries, "their rows' leaves are orphans no table claims");
    db = open_file(new_path);
    for (int i = 0; i < r->ntables; i++) {
        const strata_recover_table *tt = &r->tables[i];
        int k = atoi(tt->name + 1);
        cr_assert_eq(tt->rows, 100 + k, "%s", tt->name);
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", tt->name);
        cr_assert_eq(query_int64(db, sql), 100 + k);
    }
    cr_assert_str_eq(rows_of(db, "PRAGMA integrity_check"), "ok");
    strata_close(db);
    strata_recover_free(r);
}

/* ---- a WAL with commits the database file does not hold yet ----------------------------------- */

static void copy_file(const char *from, const char *to) {
    size_t len;
    uint8_t *b = slurp(from, &len);
    cr_assert_not_null(b, "%s", from);
    FILE *f = fopen(to, "wb");
    cr_assert_eq(fwrite(b, 1, len, f), len);
    fclose(f);
    free(b);
}

Test(recover, the_wal_is_read_and_a_damaged_frame_keeps_the_commits_before_it) {
    char live[320], live_wal[330], wal[320];
    snprintf(live, sizeof live, "%s/live.db", dir);
    snprintf(live_wal, sizeof live_wal, "%s-wal", live);
    snprintf(wal, sizeof wal, "%s-wal", db_path);
    strata_db *db = open_file(live);
    EXEC_OK(db, "CREATE TABLE w(k INTEGER PRIMARY KEY, v VARCHAR)");
    for (int i = 0; i < 10; i++) {
        char sql[200];
        snprintf(sql, sizeof sql, "INSERT INTO w SELECT i, 'w' || i FROM generate_series(%d, %d) g(i)", 100 * i + 1,
                 100 * i + 100);
        EXEC_OK(db, sql);
    }
    /* the files as a crash would leave them: every commit in the WAL, none checkpointed */
    copy_file(live, db_path);
    copy_file(live_wal, wal);
    strata_close(db);

    strata_recover_report *r = recover_ok();
    cr_assert_eq(r->wal_damaged, 0);
    cr_assert_eq(table_of(r, "w")->rows, 1000, "the commits in the WAL are read");
    strata_recover_free(r);
    unlink(new_path);

    size_t len;
    uint8_t *w = slurp(wal, &len);
    static const uint8_t zero[PS];
    uint32_t frames = 0; /* the WAL grows ahead of its frames with zeros */
    while ((size_t)(frames + 2) * PS <= len && memcmp(w + (size_t)(frames + 1) * PS, zero, PS)) frames++;
    cr_assert_gt(frames, 4);
    w[(size_t)(frames / 2 + 1) * PS + 100] ^= 0xff; /* a frame in the middle */
    FILE *f = fopen(wal, "wb");
    fwrite(w, 1, len, f);
    fclose(f);
    free(w);
    db = NULL;
    cr_assert_eq(strata_open(db_path, &db), STRATA_CORRUPT, "damaged committed data fails the open");
    strata_close(db);
    r = recover_ok();
    cr_assert_eq(r->wal_damaged, 1);
    int64_t rows = table_of(r, "w")->rows;
    cr_assert(rows > 0 && rows < 1000 && rows % 100 == 0, "whole commits before the damage: %lld", (long long)rows);
    strata_recover_free(r);
    db = open_file(new_path);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM w WHERE v = 'w' || k"), rows);
    if (rows) cr_assert_eq(query_int64(db, "SELECT max(k) FROM w"), rows);
    strata_close(db);
}

/* ---- random damage: nothing crashes, recovery copies only whole rows -------------------------- */

/* A deterministic generator, so that a failing round can be run again. */
static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int ignore_rows(void *arg, int n, char **vals, char **names) {
    (void)arg, (void)n, (void)vals, (void)names;
    return 0;
}

Test(recover, random_damage_with_valid_checksums_never_crashes_and_recovers_whole_rows, .timeout = 300) {
    size_t len;
    uint8_t *pristine = slurp(db_path, &len);
    uint32_t npages = (uint32_t)(len / PS);
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    const char *env = getenv("STRATA_RECOVER_ROUNDS"); /* more rounds, to search further */
    int rounds = env && atoi(env) > 0 ? atoi(env) : 40;
    if ((env = getenv("STRATA_RECOVER_SEED")) && strtoull(env, NULL, 0)) seed = strtoull(env, NULL, 0);
    for (int round = 0; round < rounds; round++) {
        FILE *f = fopen(db_path, "wb");
        fwrite(pristine, 1, len, f);
        fclose(f);
        /* bytes changed inside pages (page 0, the header, is left alone); with the checksums made
        ** right again the damage reaches the parsers of pages, cells, records and segments */
        uint8_t buf[PS];
        /* odd rounds make the checksums right again: then a changed value may read as valid */
        bool resealed = round % 2;
        for (int k = 0; k < 6; k++) {
            pgno_t pg = 1 + (pgno_t)(rng_next(&seed) % (npages - 1));
            read_page(pg, buf);
            int n = 1 + (int)(rng_next(&seed) % 16);
            for (int j = 0; j < n; j++) buf[rng_next(&seed) % (PS - PAGER_RESERVED)] ^= (uint8_t)(1 + rng_next(&seed) % 255);
            if (resealed) reseal(buf);
            write_page(pg, buf);
        }
        strata_db *db = NULL;
        if (strata_open(db_path, &db) == STRATA_OK) {
            const char *qs[] = {"SELECT count(*), sum(k) FROM small", "SELECT * FROM other", "SELECT sum(id), max(s) FROM big",
                                "SELECT count(*) FROM small WHERE v = 'v77'", "PRAGMA integrity_check"};
            for (size_t i = 0; i < sizeof qs / sizeof *qs; i++) {
                int rc = strata_exec(db, qs[i], ignore_rows, NULL);
                cr_assert(rc == STRATA_OK || rc == STRATA_CORRUPT, "round %d: %s -> %d: %s", round, qs[i], rc,
                          strata_errmsg(db));
            }
        }
        strata_close(db);
        unlink(new_path);
        char nwal[320];
        snprintf(nwal, sizeof nwal, "%s-wal", new_path);
        unlink(nwal);
        snapshot s;
        snap_take(&s);
        strata_recover_report *r = NULL;
        int rc = strata_recover(db_path, new_path, &r);
        snap_check(&s);
        cr_assert(rc == STRATA_OK || rc == STRATA_CORRUPT, "round %d: recover -> %d: %s", round, rc, r->message);
        strata_recover_free(r);
        if (rc) continue;
        /* every row copied is one the original held (values follow from keys) when every damaged
        ** page fails its checksum */
        db = open_file(new_path);
        const char *checks[] = {"SELECT count(*) FROM small WHERE v <> 'v' || k",
                                "SELECT count(*) FROM other WHERE b <> a / 4.0 OR c <> 'other ' || a",
                                "SELECT count(*) FROM big WHERE s <> 'name' || id OR x <> id % 97"};
        for (size_t i = 0; i < sizeof checks / sizeof *checks && !resealed; i++) {
            strata_stmt *st;
            if (strata_prepare(db, checks[i], &st, NULL) != STRATA_OK) continue; /* its table was not recovered */
            cr_assert_eq(strata_step(st), STRATA_ROW, "round %d: %s: %s", round, checks[i], strata_errmsg(db));
            cr_assert_eq(strata_column_int64(st, 0), 0, "round %d: %s", round, checks[i]);
            strata_finalize(st);
        }
        cr_assert_str_eq(rows_of(db, "PRAGMA integrity_check"), "ok", "round %d", round);
        strata_close(db);
    }
    free(pristine);
}

Test(recover, orphan_leaves_of_two_damaged_tables_go_to_the_table_whose_columns_they_store) {
    unlink(db_path);
    char wal[320];
    snprintf(wal, sizeof wal, "%s-wal", db_path);
    unlink(wal);
    strata_db *db = open_file(db_path);
    /* two's records (2 columns) also decode as three's (3 columns, the third NULL) */
    EXEC_OK(db, "CREATE TABLE two(k INTEGER PRIMARY KEY, v VARCHAR);"
                "INSERT INTO two SELECT i, 'v' || i FROM generate_series(1, 3000) g(i);"
                "CREATE TABLE three(k INTEGER PRIMARY KEY, v VARCHAR, w VARCHAR);"
                "INSERT INTO three SELECT i, 'v' || i, 'w' || i FROM generate_series(1, 2000) g(i)");
    strata_close(db);
    pager_config cfg = {.read_only = 1};
    pager *p;
    strata_err err;
    err_clear(&err);
    cr_assert_eq(pager_open(vfs_posix(), db_path, &cfg, &p, &err), STRATA_OK);
    pager_txn *t;
    cr_assert_eq(pager_begin(p, 0, &t, &err), STRATA_OK);
    catalog c;
    memset(&c, 0, sizeof c);
    cr_assert_eq(catalog_load(&c, t, &err), STRATA_OK, "%s", err.msg);
    pgno_t two = catalog_table(&c, "two")->root, three = catalog_table(&c, "three")->root;
    catalog_free(&c);
    pager_rollback(t);
    pager_close(p);
    child0(two); /* both roots are interior pages */
    child0(three);
    flip_page(two);
    flip_page(three);
    strata_recover_report *r = recover_ok();
    cr_assert_eq(table_of(r, "two")->rows, 3000);
    cr_assert_eq(table_of(r, "two")->orphan_rows, 3000);
    cr_assert_eq(table_of(r, "three")->rows, 2000);
    cr_assert_eq(table_of(r, "three")->orphan_rows, 2000);
    strata_recover_free(r);
    db = open_file(new_path);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM two WHERE v = 'v' || k"), 3000);
    cr_assert_eq(query_int64(db, "SELECT count(*) FROM three WHERE v = 'v' || k AND w = 'w' || k"), 2000);
    strata_close(db);
}

/* ---- a column tree whose interior page is lost ------------------------------------------------- */

Test(recover, row_groups_under_a_lost_interior_page_of_the_column_tree_come_back) {
    unlink(db_path);
    char wal[320];
    snprintf(wal, sizeof wal, "%s-wal", db_path);
    unlink(wal);
    strata_db *db = open_file(db_path);
    /* small row groups, so that the column tree has an interior page over many leaves */
    EXEC_OK(db, "CREATE TABLE col(id BIGINT, s VARCHAR) WITH (storage = 'column', row_group_size = 2048);"
                "INSERT INTO col SELECT i, 'text ' || i FROM generate_series(1, 300000) g(i)");
    strata_close(db);
    pager_config cfg = {.read_only = 1};
    pager *p;
    strata_err err;
    err_clear(&err);
    cr_assert_eq(pager_open(vfs_posix(), db_path, &cfg, &p, &err), STRATA_OK);
    pager_txn *t;
    cr_assert_eq(pager_begin(p, 0, &t, &err), STRATA_OK);
    catalog c;
    memset(&c, 0, sizeof c);
    cr_assert_eq(catalog_load(&c, t, &err), STRATA_OK, "%s", err.msg);
    pgno_t croot = catalog_table(&c, "col")->desc.col_root;
    catalog_free(&c);
    pager_rollback(t);
    pager_close(p);
    cr_assert_neq(croot, 0);
    child0(croot); /* an interior page */
    flip_page(croot);

    db = open_file(db_path);
    strata_stmt *s = prepare(db, "SELECT sum(id) FROM col");
    cr_assert_eq(strata_step(s), STRATA_CORRUPT);
    strata_finalize(s);
    strata_close(db);
    strata_recover_report *r = recover_ok();
    cr_assert_eq(table_of(r, "col")->pages_lost, 1);
    cr_assert_eq(table_of(r, "col")->rows, 300000, "every row group comes back from its orphan leaves");
    cr_assert_eq(table_of(r, "col")->rowgroups_lost, 0);
    strata_recover_free(r);
    char tmp[400];
    snprintf(tmp, sizeof tmp, "%s-recover-tmp", new_path);
    cr_assert_eq(access(tmp, F_OK), -1, "the temporary database is removed");
    strncat(tmp, "-wal", sizeof tmp - strlen(tmp) - 1);
    cr_assert_eq(access(tmp, F_OK), -1, "and its WAL");
    db = open_file(new_path);
    cr_assert_eq(query_int64(db, "SELECT count(DISTINCT id) FROM col WHERE s = 'text ' || id"), 300000);
    cr_assert_eq(query_int64(db, "SELECT sum(id) FROM col"), 300000ll * 300001 / 2);
    cr_assert_str_eq(rows_of(db, "PRAGMA integrity_check"), "ok");
    strata_close(db);
}
