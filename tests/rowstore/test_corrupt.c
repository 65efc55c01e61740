/*
** test_corrupt.c -- damaged and foreign files give a clear error, never a crash or a wrong value.
**
** (a) A byte flipped in any page of the main file: reading every key reports STRATA_CORRUPT with
**     a message naming that page, or (for a page on the free list) every key still reads right.
** (b) A byte flipped in a committed WAL frame: the open (or the read of the page) reports
**     STRATA_CORRUPT, or the database is whole; only the last transaction may be dropped, as a
**     torn tail.
** (c) A file that is not a strata database (random bytes, text, an SQLite file) gives
**     STRATA_NOTADB and is left untouched; a newer format version gives STRATA_FORMAT; an empty
**     file becomes a new database.
** (d) A truncated main file reports STRATA_CORRUPT when a missing page is read.
** (e) A B+tree page whose structure is damaged but whose checksum was recomputed (a bug, a bad
**     tool, a fuzzer): no crash, no hang; the reads report STRATA_CORRUPT naming a page, or the
**     integrity check finds the damage, or the data is untouched.
*/
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../rowstore/btree_internal.h"
#include "../../rowstore/kv.h"
#include "crc32c.h"
#include "helpers/workload.h"

#define DB "corrupt.db"
#define WAL "corrupt.db-wal"
#define PAGE 4096
#define NKEYS 3000
#define MAX_REPORTED 12

static kv_options options(vfs *v) {
    kv_options o;
    memset(&o, 0, sizeof o);
    o.vfs = v;
    o.pager.page_size = PAGE;
    o.pager.autocheckpoint_bytes = 64 << 20; /* checkpoints only when asked or at close */
    return o;
}

static uint32_t base_len(uint32_t k) { return k % 97 == 5 ? 5000 + (k * 13) % 4000 : 40 + (k * 31) % 90; }

/* --- building databases ---------------------------------------------------------------------- */

static void put_key(kv_txn *t, wl_entry *m, uint32_t k, uint32_t tag, uint32_t len) {
    char key[WL_KEY_LEN + 1];
    uint8_t *val = malloc(len ? len : 1);
    cr_assert_not_null(val);
    wl_value_fill(val, len, k, tag);
    int rc = kv_put(t, key, wl_key(key, k), val, len);
    free(val);
    cr_assert_eq(rc, STRATA_OK, "put %u: %s", k, kv_txn_errmsg(t));
    wl_model_put(m, k, tag, len);
}

/* The base database: NKEYS keys (every 97th value several pages long), then a range deleted so
** that the free list has pages, closed cleanly (everything checkpointed into the main file). */
static vfs *build_base(wl_entry *m) {
    vfs *v = vfs_fault_create();
    cr_assert_not_null(v);
    memset(m, 0, NKEYS * sizeof *m);
    kv_options o = options(v);
    kv_db *db = NULL;
    strata_err err = {0};
    cr_assert_eq(kv_open(DB, &o, &db, &err), STRATA_OK, "%s", err.msg);
    kv_txn *t = NULL;
    cr_assert_eq(kv_begin(db, 1, &t, &err), STRATA_OK, "%s", err.msg);
    for (uint32_t k = 0; k < NKEYS; k++)
        put_key(t, m, k, k + 1, base_len(k));
    cr_assert_eq(kv_commit(t), STRATA_OK);
    cr_assert_eq(kv_begin(db, 1, &t, &err), STRATA_OK, "%s", err.msg);
    for (uint32_t k = 1000; k < 1600; k++) {
        char key[WL_KEY_LEN + 1];
        cr_assert_eq(kv_delete(t, key, wl_key(key, k)), STRATA_OK, "delete %u: %s", k, kv_txn_errmsg(t));
        wl_model_del(m, k);
    }
    cr_assert_eq(kv_commit(t), STRATA_OK);
    cr_assert_eq(kv_close(db), STRATA_OK);
    return v;
}

/* a fresh fault vfs holding a copy of the database files of src */
static vfs *copy_db(vfs *src) {
    vfs *v = vfs_fault_create();
    cr_assert_not_null(v);
    cr_assert_eq(wl_vfs_copy_file(src, v, DB), STRATA_OK);
    cr_assert_eq(wl_vfs_copy_file(src, v, WAL), STRATA_OK);
    return v;
}

static void flip(vfs *v, const char *path, uint64_t off, size_t n) {
    uint8_t buf[16];
    size_t got = 0;
    cr_assert_leq(n, sizeof buf);
    cr_assert_eq(vfs_fault_peek(v, path, off, buf, n, &got), STRATA_OK);
    cr_assert_eq(got, n, "flip past the end of %s (offset %llu)", path, (unsigned long long)off);
    for (size_t i = 0; i < n; i++)
        buf[i] ^= 0xa5;
    cr_assert_eq(vfs_fault_poke(v, path, off, buf, n), STRATA_OK);
}

/* What opening and reading a damaged database gave. */
typedef struct outcome {
    int open_rc;
    char open_msg[STRATA_ERRMSG_MAX];
    int read_rc; /* wl_db_matches: OK, STRATA_ERROR (wrong content) or the read's error */
    char read_why[600];
    int check_rc; /* wl_integrity, when the reads were right */
    char check_why[600];
} outcome;

static void open_and_read(vfs *v, const wl_entry *m, outcome *out) {
    memset(out, 0, sizeof *out);
    out->read_rc = out->check_rc = -1;
    kv_options o = options(v);
    kv_db *db = NULL;
    strata_err err = {0};
    out->open_rc = kv_open(DB, &o, &db, &err);
    snprintf(out->open_msg, sizeof out->open_msg, "%s", err.msg);
    if (out->open_rc != STRATA_OK) {
        cr_assert_null(db);
        return;
    }
    out->read_rc = wl_db_matches(db, m, NKEYS, out->read_why, sizeof out->read_why);
    if (out->read_rc == STRATA_OK) out->check_rc = wl_integrity(db, out->check_why, sizeof out->check_why);
    kv_close(db);
}

/* --- (a) damaged pages of the main file -------------------------------------------------------- */

typedef struct page_kinds {
    uint8_t *free_leaf; /* on the free list, content unused */
    uint8_t *trunk;     /* a free-list trunk page */
    pgno_t npages;
} page_kinds;

static int note_free(void *arg, pgno_t pgno, int is_trunk) {
    page_kinds *pk = arg;
    if (pgno >= pk->npages) return STRATA_CORRUPT;
    if (is_trunk)
        pk->trunk[pgno] = 1;
    else
        pk->free_leaf[pgno] = 1;
    return STRATA_OK;
}

static void classify_pages(vfs *v, page_kinds *pk) {
    uint64_t size = 0;
    cr_assert_eq(vfs_fault_file_size(v, DB, &size), STRATA_OK);
    cr_assert_eq(size % PAGE, 0, "main file size %llu is not a multiple of the page size",
                 (unsigned long long)size);
    pk->npages = (pgno_t)(size / PAGE);
    pk->free_leaf = calloc(pk->npages, 1);
    pk->trunk = calloc(pk->npages, 1);
    kv_options o = options(v);
    kv_db *db = NULL;
    strata_err err = {0};
    cr_assert_eq(kv_open(DB, &o, &db, &err), STRATA_OK, "%s", err.msg);
    kv_txn *t = NULL;
    cr_assert_eq(kv_begin(db, 0, &t, &err), STRATA_OK);
    cr_assert_eq(pager_page_count(kv_txn_pager(t)), pk->npages, "page count and file size disagree");
    cr_assert_eq(pager_freelist_walk(kv_txn_pager(t), note_free, pk), STRATA_OK);
    kv_rollback(t);
    kv_close(db);
}

Test(corrupt, flipped_byte_in_every_page, .timeout = 120) {
    static wl_entry m[NKEYS];
    vfs *base = build_base(m);
    page_kinds pk;
    classify_pages(base, &pk);
    cr_log_info("corrupt: %u pages", (unsigned)pk.npages);
    cr_assert_gt(pk.npages, 20);
    unsigned nfree = 0;
    for (pgno_t p = 1; p < pk.npages; p++)
        nfree += pk.free_leaf[p] || pk.trunk[p];
    cr_assert_gt(nfree, 0, "the deletes should have freed pages");

    wl_rng rng;
    wl_rng_seed(&rng, 0xc0ffeeull);
    unsigned failures = 0, cases = 0;
    for (pgno_t p = 1; p < pk.npages; p++) {
        /* one flip near the start of the page (its header), one anywhere in the checksummed
        ** bytes, one in the checksum itself (the rest of the page tail is not used in the
        ** database file) */
        uint64_t offs[3] = {3 + p % 29, wl_rng_below(&rng, PAGE - PAGER_RESERVED + 4 - 3),
                            PAGE - PAGER_RESERVED + 1};
        for (int i = 0; i < 3; i++) {
            vfs *v = copy_db(base);
            flip(v, DB, (uint64_t)p * PAGE + offs[i], 3);
            outcome o;
            open_and_read(v, m, &o);
            vfs_destroy(v);
            cases++;
            char problem[900] = "";
            int is_free = pk.free_leaf[p] || pk.trunk[p];
            if (o.open_rc != STRATA_OK) {
                if (o.open_rc != STRATA_CORRUPT || !wl_mentions_page(o.open_msg, p))
                    snprintf(problem, sizeof problem,
                             "open gave %s '%s' (want STRATA_CORRUPT naming page %u)",
                             strata_errstr(o.open_rc), o.open_msg, p);
            } else if (o.read_rc == STRATA_ERROR) {
                snprintf(problem, sizeof problem, "WRONG DATA returned without an error: %s", o.read_why);
            } else if (o.read_rc != STRATA_OK) {
                if (o.read_rc != STRATA_CORRUPT || !wl_mentions_page(o.read_why, p))
                    snprintf(problem, sizeof problem,
                             "reads gave %s (want STRATA_CORRUPT naming page %u): %s",
                             strata_errstr(o.read_rc), p, o.read_why);
            } else if (!is_free) {
                snprintf(problem, sizeof problem,
                         "the damage to page %u went unnoticed (all reads succeeded)", p);
            } else if (pk.trunk[p] && o.check_rc == STRATA_OK) {
                snprintf(problem, sizeof problem,
                         "damaged free-list trunk page %u passes the integrity check", p);
            }
            if (problem[0]) {
                if (failures < MAX_REPORTED)
                    cr_log_error("page %u (%s) flipped at offset %llu: %s", p,
                                 pk.trunk[p]       ? "free-list trunk"
                                 : pk.free_leaf[p] ? "free"
                                                   : "in use",
                                 (unsigned long long)offs[i], problem);
                failures++;
            }
        }
    }
    free(pk.free_leaf);
    free(pk.trunk);
    vfs_destroy(base);
    cr_assert_eq(failures, 0, "%u of %u damaged pages were not reported as STRATA_CORRUPT naming the page",
                 failures, cases);
}

/* The header page: a flipped byte anywhere in it must stop the open. */
Test(corrupt, flipped_byte_in_header_page) {
    static wl_entry m[NKEYS];
    vfs *base = build_base(m);
    uint64_t offs[] = {
        0, 5, 12, 20, 40, 64, 100, 200, 1000, PAGE / 2, PAGE - PAGER_RESERVED - 1, PAGE - PAGER_RESERVED + 2};
    unsigned failures = 0;
    for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
        vfs *v = copy_db(base);
        flip(v, DB, offs[i], 2);
        outcome o;
        open_and_read(v, m, &o);
        vfs_destroy(v);
        int ok = (o.open_rc == STRATA_CORRUPT &&
                  (wl_mentions_page(o.open_msg, 0) || wl_contains_ci(o.open_msg, "header"))) ||
                 (o.open_rc == STRATA_NOTADB && o.open_msg[0] != '\0');
        if (!ok) {
            failures++;
            cr_log_error("header flipped at offset %llu: open gave %s '%s'%s%s", (unsigned long long)offs[i],
                         strata_errstr(o.open_rc), o.open_msg, o.open_rc == STRATA_OK ? "; reads: " : "",
                         o.open_rc == STRATA_OK ? (o.read_rc == STRATA_OK ? "all correct" : o.read_why) : "");
        }
    }
    vfs_destroy(base);
    cr_assert_eq(failures, 0,
                 "%u damaged headers were opened (want STRATA_CORRUPT naming page 0 / the header)", failures);
}

/* --- (b) damaged WAL frames ------------------------------------------------------------------ */

#define WAL_TXNS 10

/* A database whose base is checkpointed and whose last WAL_TXNS transactions are only in the WAL:
** the process "dies" (power cut at its next I/O call, everything synced kept) before it can
** checkpoint. states[i] is the model after i WAL transactions. */
static vfs *build_wal_db(wl_entry states[WAL_TXNS + 1][NKEYS]) {
    vfs *v = vfs_fault_create();
    cr_assert_not_null(v);
    wl_entry *m = states[0];
    memset(m, 0, NKEYS * sizeof *m);
    kv_options o = options(v);
    kv_db *db = NULL;
    strata_err err = {0};
    cr_assert_eq(kv_open(DB, &o, &db, &err), STRATA_OK, "%s", err.msg);
    kv_txn *t = NULL;
    cr_assert_eq(kv_begin(db, 1, &t, &err), STRATA_OK);
    for (uint32_t k = 0; k < 500; k++)
        put_key(t, m, k, k + 1, base_len(k));
    cr_assert_eq(kv_commit(t), STRATA_OK);
    cr_assert_eq(kv_checkpoint(db, &err), STRATA_OK, "%s", err.msg);
    wl_rng rng;
    wl_rng_seed(&rng, 0x3a1ull);
    for (int i = 1; i <= WAL_TXNS; i++) {
        memcpy(states[i], states[i - 1], sizeof states[i]);
        cr_assert_eq(kv_begin(db, 1, &t, &err), STRATA_OK);
        for (int j = 0; j < 8; j++) {
            uint32_t k = (uint32_t)wl_rng_below(&rng, 600);
            put_key(t, states[i], k, 10000 * (uint32_t)i + (uint32_t)j,
                    i == 4 && j == 0 ? 9000 : base_len(k) + 7);
        }
        cr_assert_eq(kv_commit(t), STRATA_OK);
    }
    vfs_fault_plan cut = {.op_mask = VFS_OP_ALL, .fail_at = 1, .fail_errno = EIO, .crash = 1};
    vfs_fault_set_plan(v, &cut);
    kv_close(db);
    vfs_fault_power_loss(v, VFS_LOSE_UNSYNCED);
    uint64_t wal_size = 0;
    cr_assert_eq(vfs_fault_file_size(v, WAL, &wal_size), STRATA_OK, "the WAL should exist after a crash");
    cr_assert_gt(wal_size, (uint64_t)PAGE * WAL_TXNS, "the WAL should hold the last transactions");
    /* undamaged, it recovers all of them */
    vfs *check = copy_db(v);
    outcome out;
    open_and_read(check, states[WAL_TXNS], &out);
    vfs_destroy(check);
    cr_assert_eq(out.open_rc, STRATA_OK, "recovery of the undamaged WAL: %s", out.open_msg);
    cr_assert_eq(out.read_rc, STRATA_OK, "recovery of the undamaged WAL: %s", out.read_why);
    cr_assert_eq(out.check_rc, STRATA_OK, "recovery of the undamaged WAL: %s", out.check_why);
    return v;
}

/* Flip a byte at each of the offsets; each case must report STRATA_CORRUPT or give the whole
** database, or all but the last transaction. Returns the failures. */
static unsigned damage_wal(vfs *base, wl_entry states[WAL_TXNS + 1][NKEYS], const uint64_t *offs,
                           size_t noffs, const char *(*name)(uint64_t off, char *buf, size_t len),
                           unsigned *cases) {
    unsigned failures = 0, corrupt = 0, whole = 0, dropped_last = 0;
    for (size_t c = 0; c < noffs; c++) {
        uint64_t off = offs[c];
        vfs *v = copy_db(base);
        flip(v, WAL, off, 1);
        outcome o;
        open_and_read(v, states[WAL_TXNS], &o);
        char problem[1200] = "";
        if (o.open_rc != STRATA_OK) {
            if (o.open_rc != STRATA_CORRUPT || o.open_msg[0] == '\0')
                snprintf(problem, sizeof problem,
                         "open gave %s '%s' (want STRATA_CORRUPT or a good database)",
                         strata_errstr(o.open_rc), o.open_msg);
            else
                corrupt++;
        } else if (o.read_rc == STRATA_OK) {
            whole++;
        } else if (o.read_rc == STRATA_CORRUPT && wl_contains_ci(o.read_why, "page")) {
            corrupt++;
        } else {
            /* only the last transaction may be missing */
            outcome o2;
            open_and_read(v, states[WAL_TXNS - 1], &o2);
            if (o2.open_rc == STRATA_OK && o2.read_rc == STRATA_OK) {
                dropped_last++;
            } else {
                int found = -1;
                for (int i = WAL_TXNS - 2; i >= 0 && found < 0; i--) {
                    outcome o3;
                    open_and_read(v, states[i], &o3);
                    if (o3.open_rc == STRATA_OK && o3.read_rc == STRATA_OK) found = i;
                }
                if (found >= 0)
                    snprintf(problem, sizeof problem,
                             "SILENT LOSS: the database opened with only %d of %d committed WAL transactions",
                             found, WAL_TXNS);
                else
                    snprintf(problem, sizeof problem, "reads gave %s: %s", strata_errstr(o.read_rc),
                             o.read_why);
            }
        }
        vfs_destroy(v);
        (*cases)++;
        if (problem[0]) {
            char where[80];
            if (failures < MAX_REPORTED)
                cr_log_error("WAL byte %llu (%s) flipped: %s", (unsigned long long)off,
                             name(off, where, sizeof where), problem);
            failures++;
        }
    }
    cr_log_info("WAL damage: %u cases: %u reported corrupt, %u whole, %u dropped the last transaction",
                *cases, corrupt, whole, dropped_last);
    return failures;
}

/* The WAL layout (docs/ARCHITECTURE.md): the header fills the first page-sized slot, frame i is
** slot i + 1, and a frame's header sits in its page tail (the last PAGER_RESERVED bytes): page
** checksum, page number, commit mark, salt (8), frame number, transaction number, header crc. */
#define WAL_HDR_BYTES 32 /* the header's fields; the rest of its slot is zero */
#define FRAME_BYTES PAGE
#define TAIL (PAGE - PAGER_RESERVED)

static const char *wal_place(uint64_t off, char *buf, size_t len) {
    if (off < FRAME_BYTES) {
        snprintf(buf, len, "WAL header byte %llu", (unsigned long long)off);
    } else {
        uint64_t f = off / FRAME_BYTES - 1, in = off % FRAME_BYTES;
        if (in >= TAIL)
            snprintf(buf, len, "frame %llu header (page tail) byte %llu", (unsigned long long)f,
                     (unsigned long long)(in - TAIL));
        else
            snprintf(buf, len, "frame %llu page byte %llu", (unsigned long long)f, (unsigned long long)in);
    }
    return buf;
}

/* the number of frames carrying the WAL header's salt, from the start */
static uint64_t frames_in_use(vfs *v) {
    uint8_t h[WAL_HDR_BYTES], salt[8];
    size_t got = 0;
    cr_assert_eq(vfs_fault_peek(v, WAL, 0, h, sizeof h, &got), STRATA_OK);
    uint64_t n = 0;
    for (;; n++) {
        if (vfs_fault_peek(v, WAL, (n + 1) * FRAME_BYTES + TAIL + 12, salt, sizeof salt, &got) != STRATA_OK ||
            got != sizeof salt)
            break;
        if (memcmp(salt, h + 16, 8) != 0) break;
    }
    return n;
}

Test(corrupt, flipped_byte_in_wal_frames, .timeout = 120) {
    static wl_entry states[WAL_TXNS + 1][NKEYS];
    vfs *base = build_wal_db(states);
    uint64_t nframes = frames_in_use(base);
    cr_log_info("WAL: %llu frames in use", (unsigned long long)nframes);
    cr_assert_geq(nframes, WAL_TXNS, "the WAL should hold at least one frame per transaction");
    /* every field of every frame header, a byte of every page image, and the frames after */
    static const uint32_t in_frame[] = {UINT32_MAX, 0,         1,         3,         TAIL + 0,
                                        TAIL + 2,   TAIL + 5,  TAIL + 9,  TAIL + 13, TAIL + 19,
                                        TAIL + 21,  TAIL + 25, TAIL + 28, TAIL + 31};
    size_t per = sizeof in_frame / sizeof in_frame[0];
    uint64_t *offs = calloc((nframes + 2) * per, sizeof *offs);
    size_t n = 0;
    wl_rng rng;
    wl_rng_seed(&rng, 99);
    for (uint64_t f = 0; f < nframes + 2; f++)
        for (size_t i = 0; i < per; i++) {
            uint32_t in = in_frame[i] == UINT32_MAX ? (uint32_t)wl_rng_below(&rng, TAIL) : in_frame[i];
            offs[n++] = (f + 1) * FRAME_BYTES + in;
        }
    unsigned cases = 0;
    unsigned failures = damage_wal(base, states, offs, n, wal_place, &cases);
    free(offs);
    vfs_destroy(base);
    cr_assert_eq(failures, 0, "%u of %u damaged WAL bytes lost committed transactions or gave a bad error",
                 failures, cases);
}

/* A damaged WAL header must not make the committed transactions in the WAL vanish silently. */
Test(corrupt, flipped_byte_in_wal_header) {
    static wl_entry states[WAL_TXNS + 1][NKEYS];
    vfs *base = build_wal_db(states);
    uint64_t offs[WAL_HDR_BYTES];
    for (uint64_t i = 0; i < WAL_HDR_BYTES; i++)
        offs[i] = i;
    unsigned cases = 0;
    unsigned failures = damage_wal(base, states, offs, WAL_HDR_BYTES, wal_place, &cases);
    vfs_destroy(base);
    cr_assert_eq(failures, 0,
                 "%u of %u damaged WAL header bytes lost committed transactions or gave a bad error",
                 failures, cases);
}

/* --- (c) files that are not strata databases ---------------------------------------------------- */

static void write_file(vfs *v, const char *path, const void *data, size_t n) {
    vfs_file *f = NULL;
    strata_err err = {0};
    cr_assert_eq(vfs_open(v, path, VFS_CREATE, &f, &err), STRATA_OK, "%s", err.msg);
    if (n) cr_assert_eq(vfs_write(f, data, n, 0, &err), STRATA_OK, "%s", err.msg);
    cr_assert_eq(vfs_sync(f, &err), STRATA_OK);
    vfs_close(f);
}

/* kv_open of a foreign file gives want, with a message, and leaves the file as it was. */
static void expect_foreign(const char *what, const void *data, size_t n, int want) {
    vfs *v = vfs_fault_create();
    write_file(v, DB, data, n);
    kv_options o = options(v);
    kv_db *db = NULL;
    strata_err err = {0};
    int rc = kv_open(DB, &o, &db, &err);
    cr_expect_eq(rc, want, "%s: kv_open gave %s '%s', want %s", what, strata_errstr(rc), err.msg,
                 strata_errstr(want));
    cr_expect_null(db, "%s: *out set on error", what);
    cr_expect_eq(err.code, rc, "%s: err.code %d differs from the returned %d", what, err.code, rc);
    cr_expect_neq(err.msg[0], '\0', "%s: no message", what);
    if (db) kv_close(db);
    uint64_t size = 0;
    cr_assert_eq(vfs_fault_file_size(v, DB, &size), STRATA_OK, "%s: the file was removed", what);
    cr_expect_eq(size, n, "%s: the file's size changed from %zu to %llu", what, n, (unsigned long long)size);
    uint8_t *now = malloc(n + 1);
    size_t got = 0;
    vfs_fault_peek(v, DB, 0, now, n, &got);
    cr_expect(got == n && memcmp(now, data, n) == 0, "%s: kv_open changed the foreign file", what);
    free(now);
    uint64_t wal = 0;
    cr_expect_neq(vfs_fault_file_size(v, WAL, &wal) == STRATA_OK && wal > 0, 1,
                  "%s: a non-empty WAL was created beside a foreign file", what);
    vfs_destroy(v);
}

Test(corrupt, foreign_files_are_not_databases) {
    uint8_t buf[3 * PAGE];
    wl_rng rng;
    wl_rng_seed(&rng, 42);
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)wl_rng_next(&rng);
    expect_foreign("random bytes (3 pages)", buf, sizeof buf, STRATA_NOTADB);
    expect_foreign("random bytes (100)", buf, 100, STRATA_NOTADB);
    expect_foreign("random bytes (1)", buf, 1, STRATA_NOTADB);

    char text[5000];
    size_t tl = 0;
    while (tl + 80 < sizeof text)
        tl += (size_t)snprintf(text + tl, sizeof text - tl, "line %zu: this is a text file, not a database\n",
                               tl);
    expect_foreign("a text file", text, tl, STRATA_NOTADB);

    uint8_t sqlite[PAGE];
    memset(sqlite, 0, sizeof sqlite);
    memcpy(sqlite, "SQLite format 3", 16); /* with its NUL */
    sqlite[16] = 0x10;                     /* page size 4096, big-endian */
    sqlite[17] = 0x00;
    sqlite[18] = sqlite[19] = 1;
    sqlite[21] = 64, sqlite[22] = 32, sqlite[23] = 32;
    sqlite[31] = 1;
    expect_foreign("an SQLite file", sqlite, sizeof sqlite, STRATA_NOTADB);

    uint8_t zeros[2 * PAGE];
    memset(zeros, 0, sizeof zeros);
    expect_foreign("a file of zeros", zeros, sizeof zeros, STRATA_NOTADB);
}

Test(corrupt, empty_file_becomes_a_database) {
    vfs *v = vfs_fault_create();
    write_file(v, DB, "", 0);
    kv_options o = options(v);
    kv_db *db = NULL;
    strata_err err = {0};
    cr_assert_eq(kv_open(DB, &o, &db, &err), STRATA_OK, "empty file: %s", err.msg);
    kv_txn *t = NULL;
    cr_assert_eq(kv_begin(db, 1, &t, &err), STRATA_OK);
    cr_assert_eq(kv_put(t, "a", 1, "1", 1), STRATA_OK);
    cr_assert_eq(kv_commit(t), STRATA_OK);
    cr_assert_eq(kv_close(db), STRATA_OK);
    db = NULL;
    cr_assert_eq(kv_open(DB, &o, &db, &err), STRATA_OK, "%s", err.msg);
    cr_assert_eq(kv_begin(db, 0, &t, &err), STRATA_OK);
    btree_buf b = {0};
    cr_assert_eq(kv_get(t, "a", 1, &b), STRATA_OK);
    cr_assert(b.len == 1 && b.data[0] == '1');
    btree_buf_free(&b);
    kv_rollback(t);
    kv_close(db);
    vfs_destroy(v);
}

/* --- (d) a truncated main file ----------------------------------------------------------------- */

Test(corrupt, truncated_main_file, .timeout = 60) {
    static wl_entry m[NKEYS];
    vfs *base = build_base(m);
    page_kinds pk;
    classify_pages(base, &pk);
    uint64_t size = (uint64_t)pk.npages * PAGE;
    uint64_t cuts[] = {PAGE, PAGE + 100, 2 * PAGE, size / 2, size / 2 + 1234, size - PAGE, size - 1};
    unsigned failures = 0;
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        vfs *v = copy_db(base);
        vfs_file *f = NULL;
        strata_err err = {0};
        cr_assert_eq(vfs_open(v, DB, 0, &f, &err), STRATA_OK);
        cr_assert_eq(vfs_truncate(f, cuts[i], &err), STRATA_OK);
        cr_assert_eq(vfs_sync(f, &err), STRATA_OK);
        vfs_close(f);
        /* is a page the tree uses gone (wholly or partly)? */
        int tree_page_lost = 0;
        for (pgno_t p = (pgno_t)(cuts[i] / PAGE); p < pk.npages; p++)
            if (!pk.free_leaf[p] && !pk.trunk[p]) tree_page_lost = 1;
        outcome o;
        open_and_read(v, m, &o);
        vfs_destroy(v);
        char problem[900] = "";
        if (o.open_rc != STRATA_OK) {
            if (o.open_rc != STRATA_CORRUPT || o.open_msg[0] == '\0')
                snprintf(problem, sizeof problem, "open gave %s '%s' (want STRATA_CORRUPT)",
                         strata_errstr(o.open_rc), o.open_msg);
        } else if (o.read_rc == STRATA_ERROR) {
            snprintf(problem, sizeof problem, "WRONG DATA returned without an error: %s", o.read_why);
        } else if (o.read_rc != STRATA_OK) {
            if (o.read_rc != STRATA_CORRUPT || !wl_contains_ci(o.read_why, "page"))
                snprintf(problem, sizeof problem, "reads gave %s (want STRATA_CORRUPT naming a page): %s",
                         strata_errstr(o.read_rc), o.read_why);
        } else if (tree_page_lost) {
            snprintf(problem, sizeof problem, "pages of the tree are gone, yet every read succeeded");
        }
        if (problem[0]) {
            failures++;
            cr_log_error("main file cut to %llu of %llu bytes: %s", (unsigned long long)cuts[i],
                         (unsigned long long)size, problem);
        }
    }
    free(pk.free_leaf);
    free(pk.trunk);
    vfs_destroy(base);
    cr_assert_eq(failures, 0, "%u truncations were not reported as STRATA_CORRUPT", failures);
}

/* --- (c) a newer format ----------------------------------------------------------------------- */

static void le32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

/* reseal recomputes the page checksum as the pager writes it (crc32c of the usable bytes). */
static void reseal(uint8_t *page) {
    uint32_t usable = PAGE - PAGER_RESERVED;
    le32(page + usable, crc32c(0, page, usable));
    memset(page + usable + 4, 0, PAGER_RESERVED - 4);
}

static void read_page(vfs *v, pgno_t p, uint8_t *buf) {
    size_t got = 0;
    cr_assert_eq(vfs_fault_peek(v, DB, (uint64_t)p * PAGE, buf, PAGE, &got), STRATA_OK);
    cr_assert_eq(got, PAGE);
}

static void write_page(vfs *v, pgno_t p, const uint8_t *buf) {
    cr_assert_eq(vfs_fault_poke(v, DB, (uint64_t)p * PAGE, buf, PAGE), STRATA_OK);
}

/* The version field's place is part of the file format: "strata database\0", then u32 version. */
#define HEADER_VERSION_OFFSET 16

Test(corrupt, newer_format_version_is_refused_untouched) {
    static wl_entry m[NKEYS];
    vfs *base = build_base(m);
    vfs *v = copy_db(base);
    uint8_t page[PAGE];
    read_page(v, 0, page);
    cr_assert_eq(memcmp(page, "strata database", 16), 0, "the header does not start with the magic");
    le32(page + HEADER_VERSION_OFFSET, PAGER_FORMAT_VERSION + 1);
    reseal(page);
    write_page(v, 0, page);
    uint64_t size_before = 0;
    vfs_fault_file_size(v, DB, &size_before);
    kv_options o = options(v);
    kv_db *db = NULL;
    strata_err err = {0};
    int rc = kv_open(DB, &o, &db, &err);
    cr_assert_eq(rc, STRATA_FORMAT, "a newer format gave %s '%s'", strata_errstr(rc), err.msg);
    cr_assert_null(db);
    cr_assert(wl_contains_ci(err.msg, "version") || wl_contains_ci(err.msg, "format"),
              "unclear message: '%s'", err.msg);
    uint8_t after[PAGE];
    read_page(v, 0, after);
    uint64_t size_after = 0;
    vfs_fault_file_size(v, DB, &size_after);
    cr_assert(memcmp(page, after, PAGE) == 0 && size_after == size_before, "the refused file was changed");
    vfs_destroy(v);
    vfs_destroy(base);
}

/* The WAL header: magic (8), u32 version, u32 page size, u64 salt, u32 crc32c of the 24 bytes
** before it. A WAL written by a newer format must not be replayed, nor thrown away. */
Test(corrupt, newer_wal_format_is_refused) {
    static wl_entry states[WAL_TXNS + 1][NKEYS];
    vfs *base = build_wal_db(states);
    uint8_t h[32];
    size_t got = 0;
    cr_assert_eq(vfs_fault_peek(base, WAL, 0, h, sizeof h, &got), STRATA_OK);
    le32(h + 8, PAGER_FORMAT_VERSION + 1);
    le32(h + 24, crc32c(0, h, 24));
    cr_assert_eq(vfs_fault_poke(base, WAL, 0, h, sizeof h), STRATA_OK);
    uint64_t wal_before = 0, wal_after = 0;
    vfs_fault_file_size(base, WAL, &wal_before);
    kv_options o = options(base);
    kv_db *db = NULL;
    strata_err err = {0};
    int rc = kv_open(DB, &o, &db, &err);
    cr_assert_eq(rc, STRATA_FORMAT, "a newer WAL format gave %s '%s'", strata_errstr(rc), err.msg);
    cr_assert_eq(vfs_fault_file_size(base, WAL, &wal_after), STRATA_OK, "the WAL was removed");
    cr_assert_eq(wal_after, wal_before, "the WAL was changed");
    vfs_destroy(base);
}

/* --- (e) structural damage behind a valid checksum ------------------------------------------------ */

/* Outcomes of one damaged database, as the exit status of the child process that tried it. */
enum {
    E_UNTOUCHED = 0,    /* everything reads right and the integrity check is clean */
    E_READ_CORRUPT = 1, /* reads gave STRATA_CORRUPT naming a page */
    E_CHECK_FOUND = 2,  /* reads were wrong or fine, the integrity check found the damage */
    E_OPEN_CORRUPT = 3, /* open gave STRATA_CORRUPT */
    E_BAD_STATUS = 10,  /* a read or the check gave a status other than STRATA_CORRUPT */
    E_SILENT = 11,      /* wrong data and a clean integrity check */
    E_BAD_OPEN = 12,    /* open gave something else than OK / CORRUPT */
    E_SETUP = 13,
};

typedef struct damage {
    const char *what;
    uint32_t off; /* byte offset in the page */
    uint8_t bytes[8];
    uint32_t n;
} damage;

static int run_damaged(vfs *base, const wl_entry *m, pgno_t p, const damage *d) {
    vfs *v = copy_db(base);
    uint8_t page[PAGE];
    size_t got = 0;
    if (vfs_fault_peek(v, DB, (uint64_t)p * PAGE, page, PAGE, &got) != STRATA_OK || got != PAGE)
        return E_SETUP;
    memcpy(page + d->off, d->bytes, d->n);
    reseal(page);
    if (vfs_fault_poke(v, DB, (uint64_t)p * PAGE, page, PAGE) != STRATA_OK) return E_SETUP;
    outcome o;
    kv_options opt = options(v);
    kv_db *db = NULL;
    strata_err err = {0};
    o.open_rc = kv_open(DB, &opt, &db, &err);
    if (o.open_rc == STRATA_CORRUPT) return E_OPEN_CORRUPT;
    if (o.open_rc != STRATA_OK) {
        fprintf(stderr, "open: %s: %s\n", strata_errstr(o.open_rc), err.msg);
        return E_BAD_OPEN;
    }
    int rc = wl_db_matches(db, m, NKEYS, o.read_why, sizeof o.read_why);
    int check = wl_integrity(db, o.check_why, sizeof o.check_why);
    int result;
    if (rc == STRATA_CORRUPT && wl_contains_ci(o.read_why, "page "))
        result = E_READ_CORRUPT;
    else if (rc != STRATA_OK && rc != STRATA_ERROR && rc != STRATA_CORRUPT)
        result = E_BAD_STATUS;
    else if (check == STRATA_CORRUPT)
        result = E_CHECK_FOUND;
    else if (check != STRATA_OK)
        result = E_BAD_STATUS;
    else if (rc != STRATA_OK)
        result = E_SILENT;
    else
        result = E_UNTOUCHED;
    if (result >= E_BAD_STATUS) fprintf(stderr, "reads: %s | check: %s\n", o.read_why, o.check_why);
    kv_close(db);
    vfs_destroy(v);
    return result;
}

/* run one case in a child process, so that a crash or a hang is a finding and not the end */
static int run_damaged_isolated(vfs *base, const wl_entry *m, pgno_t p, const damage *d, char *why,
                                size_t whylen) {
    fflush(NULL);
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2); /* the child's complaints go to the parent */
        alarm(20);
        _exit(run_damaged(base, m, p, d));
    }
    close(fds[1]);
    char out[400] = "";
    size_t len = 0;
    ssize_t r;
    char sink[256];
    while ((r = read(fds[0], len < sizeof out - 1 ? out + len : sink,
                     len < sizeof out - 1 ? sizeof out - 1 - len : sizeof sink)) > 0)
        if (len < sizeof out - 1) len += (size_t)r;
    out[len < sizeof out ? len : sizeof out - 1] = '\0';
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) {
        snprintf(why, whylen, "%s (signal %d%s) %s", WTERMSIG(status) == SIGALRM ? "HANG" : "CRASH",
                 WTERMSIG(status), WTERMSIG(status) == SIGALRM ? ", no answer in 20 s" : "", out);
        return -1;
    }
    int code = WEXITSTATUS(status);
    if (code >= E_BAD_STATUS) {
        const char *names[] = {"a status other than STRATA_CORRUPT",
                               "SILENT WRONG DATA (integrity check clean)",
                               "open gave a status other than OK/CORRUPT", "test setup failed"};
        snprintf(why, whylen, "%s%s %s", code - E_BAD_STATUS < 4 ? names[code - E_BAD_STATUS] : "exit ",
                 code - E_BAD_STATUS < 4 ? "" : "?", out);
        return -1;
    }
    return code;
}

static uint32_t u16at(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

Test(corrupt, damaged_structure_with_valid_checksum, .timeout = 300) {
    static wl_entry m[NKEYS];
    vfs *base = build_base(m);
    page_kinds pk;
    classify_pages(base, &pk);
    const uint32_t usable = PAGE - PAGER_RESERVED;
    unsigned failures = 0, cases = 0, counts[4] = {0};
    unsigned leaves = 0;
    for (pgno_t p = 1; p < pk.npages; p++) {
        if (pk.free_leaf[p] || pk.trunk[p]) continue;
        uint8_t page[PAGE];
        read_page(base, p, page);
        damage ds[24];
        int nd = 0;
#define D(w, o, ...)                                                                                         \
    do {                                                                                                     \
        uint8_t b_[] = {__VA_ARGS__};                                                                        \
        ds[nd].what = (w);                                                                                   \
        ds[nd].off = (o);                                                                                    \
        memcpy(ds[nd].bytes, b_, sizeof b_);                                                                 \
        ds[nd].n = sizeof b_;                                                                                \
        nd++;                                                                                                \
    } while (0)
        uint8_t type = page[BT_OFF_TYPE];
        if (type == BT_PAGE_LEAF || type == BT_PAGE_INTERIOR) {
            if (type == BT_PAGE_LEAF && leaves++ % 3 != 0) continue; /* a sample of the many leaves */
            uint32_t ncells = u16at(page + BT_OFF_NCELLS);
            uint32_t c0 = ncells ? u16at(page + BT_HDR_SIZE) : usable - 8;
            D("cell count 0xffff", BT_OFF_NCELLS, 0xff, 0xff);
            D("cell count + 1", BT_OFF_NCELLS, (uint8_t)(ncells + 1), (uint8_t)((ncells + 1) >> 8));
            D("cell count 0", BT_OFF_NCELLS, 0, 0);
            D("content start 1", BT_OFF_CSTART, 1, 0);
            D("content start 0xffff", BT_OFF_CSTART, 0xff, 0xff);
            D("first cell offset at the page end", BT_HDR_SIZE, (uint8_t)(usable - 1),
              (uint8_t)((usable - 1) >> 8));
            D("first cell offset inside the header", BT_HDR_SIZE, 3, 0);
            D("first cell offset 0xffff", BT_HDR_SIZE, 0xff, 0xff);
            if (ncells >= 2) {
                ds[nd] = (damage){"first two cells swapped", BT_HDR_SIZE, {0}, 4};
                memcpy(ds[nd].bytes, page + BT_HDR_SIZE + 2, 2);
                memcpy(ds[nd].bytes + 2, page + BT_HDR_SIZE, 2);
                nd++;
            }
            D("level + 1", BT_OFF_LEVEL, (uint8_t)(page[BT_OFF_LEVEL] + 1));
            D("level 31", BT_OFF_LEVEL, 31);
            D("type overflow", BT_OFF_TYPE, BT_PAGE_OVERFLOW);
            D("type 0", BT_OFF_TYPE, 0);
            D("type swapped", BT_OFF_TYPE, type == BT_PAGE_LEAF ? BT_PAGE_INTERIOR : BT_PAGE_LEAF);
            if (type == BT_PAGE_INTERIOR) {
                D("right child = itself", BT_OFF_RIGHT, (uint8_t)p, (uint8_t)(p >> 8), 0, 0);
                D("right child = 0", BT_OFF_RIGHT, 0, 0, 0, 0);
                D("right child = page 1", BT_OFF_RIGHT, 1, 0, 0, 0);
                D("right child beyond the file", BT_OFF_RIGHT, 0x10, 0x27, 0, 0);
                if (ncells && c0 + 4 <= usable) {
                    D("first child = itself", c0, (uint8_t)p, (uint8_t)(p >> 8), 0, 0);
                    D("first child = header page", c0, 0, 0, 0, 0);
                    D("first separator length huge", c0 + 4, 0xff, 0xff, 0xff, 0xff, 0x0f);
                }
            } else if (ncells && c0 + 8 <= usable) {
                D("first key length huge", c0, 0xff, 0xff, 0xff, 0xff, 0x0f);
                D("first key length 127", c0, 0x7f);
                D("first value length huge, overflowed", c0 + 1, 0xff, 0xff, 0xff, 0xff, 0x0f);
                D("first value length 2^30+2, overflowed", c0 + 1, 0x83, 0x80, 0x80, 0x80, 0x04);
                D("first value flagged overflowed", c0 + 1, (uint8_t)(page[c0 + 1] | 1));
            }
        } else if (type == BT_PAGE_OVERFLOW) {
            D("overflow next = itself", BT_OVFL_OFF_NEXT, (uint8_t)p, (uint8_t)(p >> 8), 0, 0);
            D("overflow next = 0 (chain too short)", BT_OVFL_OFF_NEXT, 0, 0, 0, 0);
            D("overflow next = page 1", BT_OVFL_OFF_NEXT, 1, 0, 0, 0);
            D("overflow next beyond the file", BT_OVFL_OFF_NEXT, 0x10, 0x27, 0, 0);
            D("overflow type = leaf", BT_OFF_TYPE, BT_PAGE_LEAF);
        } else {
            cr_log_error("page %u has an unknown type 0x%02x and is not free", p, type);
            failures++;
            continue;
        }
#undef D
        for (int i = 0; i < nd; i++) {
            char why[700];
            int r = run_damaged_isolated(base, m, p, &ds[i], why, sizeof why);
            cases++;
            if (r < 0) {
                if (failures < MAX_REPORTED)
                    cr_log_error("page %u (type 0x%02x), %s: %s", p, type, ds[i].what, why);
                failures++;
            } else {
                counts[r]++;
            }
        }
    }
    cr_log_info(
        "structural damage: %u cases: %u untouched, %u read CORRUPT, %u found by the check, %u open CORRUPT",
        cases, counts[0], counts[1], counts[2], counts[3]);
    free(pk.free_leaf);
    free(pk.trunk);
    vfs_destroy(base);
    cr_assert_gt(cases, 50);
    cr_assert_eq(failures, 0, "%u of %u structural damages crashed, hung, or went unnoticed", failures,
                 cases);
}
