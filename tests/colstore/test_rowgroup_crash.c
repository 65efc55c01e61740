/*
** test_rowgroup_crash.c -- the column store's durability promises under power loss and a full disk.
**
** What a user relies on (DESIGN.md "Durability" and "Migration is invisible", rowgroup.h):
**   - a migration (rowgroup_migrate, then pager_commit) is one transaction: after a power cut at
**     any write, sync or truncate of a migration, of a bulk load (through the row tree, and
**     straight into a row group: rowgroup_write), of deletes and updates of
**     migrated rows, or of a checkpoint between them, every commit that returned STRATA_OK is
**     there, the one in flight wholly or not at all, nothing later; each live row is in exactly
**     one store (a row group or the row tree) with its exact values; the whole-file check passes
**     and the database takes a new commit;
**   - a migration that meets a full disk fails with STRATA_FULL saying so (STRATA_IOERR when a
**     failed fsync left the handle refusing writes, as pager.h documents), every row reads as
**     before, and once there is room again a migration succeeds and survives a power loss.
** The table has one column of every type (values from table_rows.h's expected()) and row groups
** of GROUP rows. It is loaded once, fault-free, on a fault vfs; every case starts from a copy of
** those files. Each test runs both with the pager's default direct_bytes (commits go through the
** WAL) and with a small one (commits write their new pages straight into the database file), a
** small cache (migrations spill) and a small autocheckpoint (checkpoints run between the steps).
*/
#include <criterion/criterion.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../colstore/rowgroup.h"
#include "../../core/vfs.h"
#include "helpers/table_rows.h"
#include "helpers/workload.h"

#define DB "rgcrash.db"
#define WAL "rgcrash.db-wal"
#define PAGE 4096
#define GROUP 3000              /* rows of a row group */
#define ROWS0 (2 * GROUP + 700) /* rows 1..ROWS0 are loaded by the setup */
#define BULK 2600               /* rows ROWS0+1..ROWS0+BULK come in one bulk load */
#define UPD_TAG 1               /* the version tag of updated rows */
#define BULK_TAG 2              /* the version tag of bulk-loaded rows */
#define GROUPED (GROUP - 500)   /* rows ROWS0+BULK+1.. come in one row group written straight */
#define GROUPED_TAG 3           /* ... and their version tag */
#define EXTRA_ROWID ((int64_t)1 << 40)
#define NSTEPS 5
#define MAX_REPORTED 10

/* Deleted and updated by step 1: rows of both row groups (their first and last rows, rows at a
** vector boundary) and of the row store. */
static const int64_t DELS[] = {1, 2, 2047, 2048, 2049, 3000, 3001, 4500, 5999, 6000, 6500};
static const int64_t UPDS[] = {3, 100, 2050, 2999, 3002, 5000, 6001};
#define NDELS (sizeof DELS / sizeof *DELS)
#define NUPDS (sizeof UPDS / sizeof *UPDS)

/* the size from which a commit writes its new pages into the database file (0: the default, 1 MiB,
** which no commit here reaches); each test runs in its own process */
static uint64_t direct_bytes;
static size_t cache_bytes = 128 << 10;

static pager_config config(void) {
    pager_config c = {.page_size = PAGE,
                      .cache_bytes = cache_bytes,
                      .autocheckpoint_bytes = 64 << 10,
                      .direct_bytes = direct_bytes};
    return c;
}

/* ---- the model: what the table holds after each step ---------------------------------------- */

/* The steps, each one write transaction:
**   0  bulk load: rows ROWS0+1..ROWS0+BULK (new pages at the end of the file: the direct path)
**   1  migrate (up to 2 row groups): rows 1..2*GROUP move
**   2  delete DELS, update UPDS (migrated ones move back to the row tree with a new version)
**   3  migrate (up to 2): one row group of the GROUP oldest row-tree rows above 2*GROUP
**   4  the bulk path (rowgroup_write): GROUPED new rows straight into a row group, after the rows
**      still waiting to migrate move into one of their own
** states[k] is the table after the first k steps; states[MIGRATED0] the table of the setup after
** one migration (of the disk-full tests). */
#define MIGRATED0 (NSTEPS + 1)
typedef struct state {
    const char *name;
    size_t n;       /* live rows */
    int64_t *ids;   /* in rowid order */
    uint32_t *tags; /* their version tags */
    uint32_t groups, pending, rowstore;
} state;

static state states[NSTEPS + 2];
static int64_t bulk_ids[BULK], grouped_ids[GROUPED];

static int in_list(const int64_t *list, size_t n, int64_t id) {
    for (size_t i = 0; i < n; i++)
        if (list[i] == id) return 1;
    return 0;
}

static void state_copy(state *to, const state *from, size_t extra) {
    *to = *from;
    to->ids = malloc((from->n + extra) * sizeof *to->ids);
    to->tags = malloc((from->n + extra) * sizeof *to->tags);
    cr_assert(to->ids && to->tags);
    memcpy(to->ids, from->ids, from->n * sizeof *to->ids);
    memcpy(to->tags, from->tags, from->n * sizeof *to->tags);
}

static void build_states(void) {
    state *s = &states[0];
    s->n = ROWS0;
    s->ids = malloc(ROWS0 * sizeof *s->ids);
    s->tags = calloc(ROWS0, sizeof *s->tags);
    cr_assert(s->ids && s->tags);
    for (size_t i = 0; i < ROWS0; i++)
        s->ids[i] = (int64_t)i + 1;
    s->groups = 0;
    s->pending = s->rowstore = ROWS0;

    s = &states[1];
    state_copy(s, &states[0], BULK);
    for (size_t i = 0; i < BULK; i++) {
        bulk_ids[i] = ROWS0 + 1 + (int64_t)i;
        s->ids[s->n + i] = bulk_ids[i];
        s->tags[s->n + i] = BULK_TAG;
    }
    s->n += BULK;
    s->pending += BULK;
    s->rowstore += BULK;

    state_copy(&states[2], &states[1], 0);
    states[2].groups = 2;
    states[2].pending -= 2 * GROUP;
    states[2].rowstore -= 2 * GROUP;

    s = &states[3];
    state_copy(s, &states[2], 0);
    size_t m = 0;
    for (size_t i = 0; i < s->n; i++) {
        int64_t id = s->ids[i];
        int migrated = id <= 2 * GROUP;
        if (in_list(DELS, NDELS, id)) {
            if (!migrated) s->pending--, s->rowstore--;
            continue;
        }
        s->ids[m] = id;
        s->tags[m] = s->tags[i];
        if (in_list(UPDS, NUPDS, id)) {
            s->tags[m] = UPD_TAG;
            if (migrated) s->rowstore++; /* not pending: below the last migrated rowid */
        }
        m++;
    }
    s->n = m;

    state_copy(&states[4], &states[3], 0);
    states[4].groups = 3;
    states[4].pending -= GROUP;
    states[4].rowstore -= GROUP;
    cr_assert_lt(states[4].pending, GROUP, "the workload's last migration must take exactly one row group");

    s = &states[5];
    state_copy(s, &states[4], GROUPED);
    for (size_t i = 0; i < GROUPED; i++) {
        grouped_ids[i] = ROWS0 + BULK + 1 + (int64_t)i;
        s->ids[s->n + i] = grouped_ids[i];
        s->tags[s->n + i] = GROUPED_TAG;
    }
    s->n += GROUPED;
    cr_assert_gt(s->pending, 0, "the bulk step must first move the rows waiting to migrate");
    s->groups += 2;
    s->rowstore -= s->pending;
    s->pending = 0;

    state_copy(&states[MIGRATED0], &states[0], 0);
    states[MIGRATED0].groups = 2;
    states[MIGRATED0].pending = states[MIGRATED0].rowstore = ROWS0 - 2 * GROUP;
    static const char *names[] = {"as loaded",
                                  "after the bulk load",
                                  "after the first migration",
                                  "after the deletes and updates",
                                  "after the second migration",
                                  "after the row group written straight",
                                  "as loaded, then migrated"};
    for (int k = 0; k <= MIGRATED0; k++)
        states[k].name = names[k];
}

/* ---- the template: the loaded table on a fault vfs, copied for every case ------------------- */

static vfs *tmpl;
static table_desc td;

static void setup(void) {
    init_types();
    build_states();
    tmpl = vfs_fault_create();
    cr_assert_not_null(tmpl);
    pager_config cfg = config();
    pager *p = NULL;
    strata_err err = {0};
    cr_assert_eq(pager_open(tmpl, DB, &cfg, &p, &err), STRATA_OK, "pager_open: %s", err.msg);
    pager_txn *t = NULL;
    cr_assert_eq(pager_begin(p, 1, &t, &err), STRATA_OK, "%s", err.msg);
    td = desc(0);
    OK(t, btree_create(t, &td.root));
    OK(t, btree_create(t, &td.col_root));
    td.group_rows = GROUP;
    td.zstd_level = 1;
    insert_ids(t, &td, states[0].ids, ROWS0, 0);
    cr_assert_eq(pager_commit(t, &err), STRATA_OK, "%s", err.msg);
    cr_assert_eq(pager_close(p), STRATA_OK);
}

static void teardown(void) {
    vfs_destroy(tmpl);
    for (int k = 0; k <= MIGRATED0; k++) {
        free(states[k].ids);
        free(states[k].tags);
    }
}

TestSuite(rowgroup_crash, .init = setup, .fini = teardown);

/* fresh_copy is a new fault vfs holding the template's files (durable, no plan). */
static vfs *fresh_copy(void) {
    vfs *v = vfs_fault_create();
    cr_assert_not_null(v);
    cr_assert_eq(wl_vfs_copy_file(tmpl, v, DB), STRATA_OK);
    cr_assert_eq(wl_vfs_copy_file(tmpl, v, WAL), STRATA_OK);
    return v;
}

/* ---- writing without asserting (a fault makes any call fail) -------------------------------- */

/* write_rows inserts (update = 0) or updates the rows ids[0..n) with the values of tag. */
static int write_rows(pager_txn *t, const int64_t *ids, size_t n, uint32_t tag, int update) {
    data_chunk c;
    int rc = chunk_init(&c, td.types, td.ncols, pager_txn_err(t));
    if (rc) return rc;
    char *buf = malloc(LONG_STR + 64);
    cr_assert_not_null(buf);
    for (size_t at = 0; at < n && rc == STRATA_OK;) {
        chunk_reset(&c);
        uint32_t k = 0;
        for (; k < VECTOR_SIZE && at + k < n; k++)
            for (uint32_t col = 0; col < td.ncols; col++) {
                sql_value x;
                expected(ids[at + k], col, tag, buf, &x);
                put_value(&c.cols[col], k, &x);
            }
        c.count = k;
        rc = update ? table_update(t, &td, &c, NULL, k, ids + at)
                    : table_insert(t, &td, &c, NULL, k, ids + at);
        at += k;
    }
    chunk_free(&c);
    free(buf);
    return rc;
}

/* write_group stores the rows of step 4 through the bulk path, as INSERT's bulk path does. */
static int write_group(pager_txn *t) {
    data_chunk c[(GROUPED + VECTOR_SIZE - 1) / VECTOR_SIZE], *cp[sizeof c / sizeof *c];
    uint32_t n = 0;
    int rc = STRATA_OK;
    char *buf = malloc(LONG_STR + 64);
    cr_assert_not_null(buf);
    for (size_t at = 0; at < GROUPED && rc == STRATA_OK; at += VECTOR_SIZE, n++) {
        if ((rc = chunk_init(&c[n], td.types, td.ncols, pager_txn_err(t)))) break;
        cp[n] = &c[n];
        uint32_t k = 0;
        for (; k < VECTOR_SIZE && at + k < GROUPED; k++)
            for (uint32_t col = 0; col < td.ncols; col++) {
                sql_value x;
                expected(grouped_ids[at + k], col, GROUPED_TAG, buf, &x);
                put_value(&c[n].cols[col], k, &x);
            }
        c[n].count = k;
    }
    if (rc == STRATA_OK) rc = rowgroup_write(t, &td, cp, n, grouped_ids);
    for (uint32_t i = 0; i < n; i++) chunk_free(&c[i]);
    free(buf);
    return rc;
}

/* run_step runs step `step` of the workload in its own write transaction and commits it.
** *committing says whether pager_commit was called; *wrong is set when a step that succeeded did
** the wrong thing (a migration moving another number of row groups). */
static int run_step(pager *p, int step, int *committing, int *wrong, char *why, size_t whylen) {
    pager_txn *t = NULL;
    strata_err err = {0};
    *committing = 0;
    int rc = pager_begin(p, 1, &t, &err);
    if (rc) {
        snprintf(why, whylen, "step %d: pager_begin: %s: %s", step, strata_errstr(rc), err.msg);
        return rc;
    }
    uint32_t moved = 0, want = step == 1 ? 2 : 1;
    switch (step) {
    case 0: rc = write_rows(t, bulk_ids, BULK, BULK_TAG, 0); break;
    case 1:
    case 3:
        rc = rowgroup_migrate(t, &td, 2, &moved);
        if (rc == STRATA_OK && moved != want) {
            snprintf(why, whylen, "step %d: the migration moved %u row groups, want %u", step, moved, want);
            *wrong = 1;
            pager_rollback(t);
            return STRATA_ERROR;
        }
        break;
    case 2:
        rc = table_delete(t, &td, DELS, NDELS);
        if (rc == STRATA_OK) rc = write_rows(t, UPDS, NUPDS, UPD_TAG, 1);
        break;
    case 4: rc = write_group(t); break;
    }
    if (rc) {
        snprintf(why, whylen, "step %d: %s: %s", step, strata_errstr(rc), pager_txn_err(t)->msg);
        pager_rollback(t);
        return rc;
    }
    *committing = 1;
    rc = pager_commit(t, &err);
    if (rc) snprintf(why, whylen, "step %d: pager_commit: %s: %s", step, strata_errstr(rc), err.msg);
    return rc;
}

/* What one run got done before its power cut. */
typedef struct run_result {
    int opened;
    int committed; /* steps whose pager_commit returned OK (a prefix) */
    int inflight;  /* pager_commit of step `committed` was called and did not return OK */
    int wrong;     /* a step did the wrong thing without an error */
    int closed;    /* pager_close returned OK */
    char why[400]; /* the first failure */
} run_result;

static void run_workload(vfs *v, run_result *r, pager_stats *st) {
    memset(r, 0, sizeof *r);
    pager_config cfg = config();
    pager *p = NULL;
    strata_err err = {0};
    int rc = pager_open(v, DB, &cfg, &p, &err);
    if (rc) {
        snprintf(r->why, sizeof r->why, "pager_open: %s: %s", strata_errstr(rc), err.msg);
        return;
    }
    r->opened = 1;
    for (int s = 0; s < NSTEPS; s++) {
        int committing = 0;
        if (run_step(p, s, &committing, &r->wrong, r->why, sizeof r->why)) {
            r->inflight = committing;
            break;
        }
        r->committed++;
    }
    if (st) pager_get_stats(p, st);
    r->closed = pager_close(p) == STRATA_OK;
}

/* ---- checking without asserting -------------------------------------------------------------- */

/* value_is says whether row r of v holds x exactly (doubles bit for bit), as check_value asserts. */
static int value_is(const vector *v, uint32_t r, const sql_value *x) {
    int is_null = vec_is_null(v, r);
    if (is_null != x->is_null) return 0;
    if (is_null) return 1;
    uint32_t i = vec_index(v, r);
    switch (v->phys) {
    case PHYS_BOOL: return VEC_DATA(v, uint8_t)[i] == x->v.i;
    case PHYS_I16: return VEC_DATA(v, int16_t)[i] == x->v.i;
    case PHYS_I32: return VEC_DATA(v, int32_t)[i] == x->v.i;
    case PHYS_I64: return VEC_DATA(v, int64_t)[i] == x->v.i;
    case PHYS_F64: return memcmp(&VEC_DATA(v, double)[i], &x->v.d, 8) == 0;
    case PHYS_INTERVAL: {
        sql_interval a = VEC_DATA(v, sql_interval)[i];
        return a.months == x->v.iv.months && a.days == x->v.iv.days && a.micros == x->v.iv.micros;
    }
    case PHYS_STR: {
        const sstr *s = &VEC_DATA(v, sstr)[i];
        return s->len == x->v.s.len && memcmp(sstr_data(s), sstr_data(&x->v.s), s->len) == 0;
    }
    }
    return 0;
}

/* row_is checks every column of row r of c (projected ALL) against rowid id's values of tag;
** on a difference it names the column in why and returns 0. */
static int row_is(const data_chunk *c, uint32_t r, int64_t id, uint32_t tag, char *buf, char *why,
                  size_t whylen) {
    for (uint32_t k = 0; k < NCOLS; k++) {
        sql_value x;
        expected(id, k, tag, buf, &x);
        if (!value_is(&c->cols[k], r, &x)) {
            snprintf(why, whylen, "rowid %lld column %u differs from its value of version %u", (long long)id,
                     k, tag);
            return 0;
        }
    }
    return 1;
}

/* failf writes a reason into why and returns 1. */
static int failf(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int failf(char *why, size_t whylen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
    return 1;
}

static int count_group(void *arg, const rowgroup_desc *d) {
    (void)d;
    (*(uint32_t *)arg)++;
    return STRATA_OK;
}

typedef struct idlist {
    int64_t *ids;
    size_t n, cap;
} idlist;

static void idlist_add(idlist *l, const int64_t *ids, uint32_t n) {
    if (l->n + n > l->cap) {
        l->cap = (l->n + n) * 2;
        l->ids = realloc(l->ids, l->cap * sizeof *l->ids);
        cr_assert_not_null(l->ids);
    }
    memcpy(l->ids + l->n, ids, n * sizeof *ids);
    l->n += n;
}

/* store_rowids lists the rowids of the row tree alone (rs) and of the row groups alone (rg). */
static int store_rowids(pager_txn *t, idlist *rs, idlist *rg) {
    static const uint32_t col0[1] = {0};
    data_chunk c;
    int64_t ids[VECTOR_SIZE];
    int rc = chunk_init(&c, td.types, 1, pager_txn_err(t));
    if (rc) return rc;
    table_scan *ts = NULL;
    rc = table_scan_open_rowstore(t, &td, col0, 1, INT64_MIN, INT64_MAX, &ts);
    while (rc == STRATA_OK) {
        if ((rc = table_scan_next(ts, &c, ids)) || c.count == 0) break;
        idlist_add(rs, ids, c.count);
    }
    table_scan_close(ts);
    rowgroup_scan *gs = NULL;
    if (rc == STRATA_OK) rc = rowgroup_scan_open(t, &td, col0, 1, INT64_MIN, INT64_MAX, &gs);
    while (rc == STRATA_OK) {
        chunk_reset(&c);
        if ((rc = rowgroup_scan_next(gs, &c, ids, INT64_MAX)) || c.count == 0) break;
        idlist_add(rg, ids, c.count);
    }
    if (gs) rowgroup_scan_close(gs);
    chunk_free(&c);
    return rc;
}

static int find_id(const state *s, int64_t id, size_t *at) {
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    *at = lo;
    return lo < s->n && s->ids[lo] == id;
}

/* check_reads compares what t sees with state s: the number of row groups and of rows waiting to
** migrate; the rowids of each store alone (in order, none in both, as many as s says); a scan of
** every column of the whole table (each row once, in order, exact values); point reads of
** sampled rowids, present and absent. Returns 0 when all match, else 1 with the reason in why. */
static int check_reads(pager_txn *t, const state *s, char *why, size_t whylen) {
    uint32_t groups = 0, pending = 0;
    int rc = rowgroup_foreach(t, &td, count_group, &groups);
    if (rc == STRATA_OK) rc = rowgroup_pending(t, &td, 1u << 30, &pending);
    if (rc) goto read_fail;
    if (groups != s->groups || pending != s->pending) {
        snprintf(why, whylen, "%u row groups and %u rows waiting to migrate, want %u and %u", groups, pending,
                 s->groups, s->pending);
        return 1;
    }

    idlist rs = {0}, rg = {0};
    rc = store_rowids(t, &rs, &rg);
    int bad = 0;
    if (rc == STRATA_OK) {
        for (size_t i = 1; i < rs.n && !bad; i++)
            if (rs.ids[i] <= rs.ids[i - 1])
                bad = failf(why, whylen, "row tree: rowid %lld after %lld", (long long)rs.ids[i],
                            (long long)rs.ids[i - 1]);
        for (size_t i = 1; i < rg.n && !bad; i++)
            if (rg.ids[i] <= rg.ids[i - 1])
                bad = failf(why, whylen, "row groups: rowid %lld after %lld", (long long)rg.ids[i],
                            (long long)rg.ids[i - 1]);
        for (size_t i = 0, j = 0; i < rs.n && j < rg.n && !bad;) {
            if (rs.ids[i] == rg.ids[j])
                bad = failf(why, whylen, "rowid %lld is in both stores", (long long)rs.ids[i]);
            else if (rs.ids[i] < rg.ids[j])
                i++;
            else
                j++;
        }
        if (!bad && (rs.n != s->rowstore || rg.n != s->n - s->rowstore))
            bad = failf(why, whylen, "%zu rows in the row tree and %zu in row groups, want %u and %zu", rs.n,
                        rg.n, s->rowstore, s->n - s->rowstore);
    }
    free(rs.ids);
    free(rg.ids);
    if (rc) goto read_fail;
    if (bad) return 1;

    char *buf = malloc(LONG_STR + 64);
    data_chunk c;
    cr_assert_not_null(buf);
    cr_assert_eq(chunk_init(&c, types, NCOLS, NULL), STRATA_OK);
    table_scan *sc = NULL;
    int64_t ids[VECTOR_SIZE];
    size_t seen = 0;
    rc = table_scan_open(t, &td, ALL, NCOLS, INT64_MIN, INT64_MAX, &sc);
    while (rc == STRATA_OK && !bad) {
        if ((rc = table_scan_next(sc, &c, ids)) || c.count == 0) break;
        for (uint32_t r = 0; r < c.count && !bad; r++, seen++) {
            if (seen >= s->n)
                bad = failf(why, whylen, "scan: rowid %lld beyond the %zu rows expected", (long long)ids[r],
                            s->n);
            else if (ids[r] != s->ids[seen])
                bad = failf(why, whylen, "scan: row %zu is rowid %lld, want %lld", seen, (long long)ids[r],
                            (long long)s->ids[seen]);
            else if (!row_is(&c, r, ids[r], s->tags[seen], buf, why, whylen))
                bad = 1;
        }
    }
    table_scan_close(sc);
    if (rc == STRATA_OK && !bad && seen != s->n)
        bad = failf(why, whylen, "scan: %zu rows, want %zu", seen, s->n);

    /* point reads: the rows deleted and updated, a stride over every rowid ever used, one never used */
    int64_t probe[NDELS + NUPDS + 50];
    uint8_t found[NDELS + NUPDS + 50];
    uint32_t np = 0;
    for (size_t i = 0; i < NDELS; i++)
        probe[np++] = DELS[i];
    for (size_t i = 0; i < NUPDS; i++)
        probe[np++] = UPDS[i];
    for (int64_t id = 7; id <= ROWS0 + BULK + GROUPED; id += 311)
        probe[np++] = id;
    probe[np++] = ROWS0 + BULK + GROUPED + 1;
    cr_assert_leq(np, sizeof probe / sizeof *probe);
    if (rc == STRATA_OK && !bad) {
        chunk_reset(&c);
        rc = table_get(t, &td, ALL, NCOLS, probe, np, &c, found);
        for (uint32_t k = 0, r = 0; rc == STRATA_OK && k < np && !bad; k++) {
            size_t at;
            int want = find_id(s, probe[k], &at);
            if (found[k] != want)
                bad = failf(why, whylen, "table_get: rowid %lld %s", (long long)probe[k],
                            want ? "missing" : "found but deleted or never written");
            else if (want && !row_is(&c, r++, probe[k], s->tags[at], buf, why, whylen))
                bad = 1;
        }
    }
    chunk_free(&c);
    free(buf);
    if (rc) goto read_fail;
    return bad ? 1 : 0;
read_fail:
    snprintf(why, whylen, "read failed: %s: %s", strata_errstr(rc), pager_txn_err(t)->msg);
    return 1;
}

static int check_state(pager *p, const state *s, char *why, size_t whylen) {
    pager_txn *t = NULL;
    strata_err err = {0};
    int rc = pager_begin(p, 0, &t, &err);
    if (rc) {
        snprintf(why, whylen, "pager_begin(read): %s: %s", strata_errstr(rc), err.msg);
        return 1;
    }
    int bad = check_reads(t, s, why, whylen);
    pager_rollback(t);
    return bad;
}

/* integrity runs the whole-file check over the row tree and the column tree (as PRAGMA
** integrity_check does for a table): every page owned once, none leaked. */
static int integrity(pager *p, char *why, size_t whylen) {
    pager_txn *t = NULL;
    strata_err err = {0};
    int rc = pager_begin(p, 0, &t, &err);
    if (rc) {
        snprintf(why, whylen, "pager_begin(read): %s: %s", strata_errstr(rc), err.msg);
        return 1;
    }
    pgno_t roots[2] = {td.root, td.col_root};
    btree_buf report = {0};
    uint64_t problems = 0;
    rc = btree_check_file(t, roots, 2, &report, &problems, &err);
    pager_rollback(t);
    int bad = rc != STRATA_OK || problems != 0;
    if (rc)
        snprintf(why, whylen, "integrity check failed: %s: %s", strata_errstr(rc), err.msg);
    else if (problems)
        snprintf(why, whylen, "integrity check: %llu problems: %.*s", (unsigned long long)problems,
                 (int)(report.len > 300 ? 300 : report.len), report.data ? (const char *)report.data : "");
    btree_buf_free(&report);
    return bad;
}

/* matches_one_of checks that p shows state lo or, failing that, state hi (hi may equal lo), and
** passes the integrity check; sets *which to the state it shows. Returns 0 when it does. */
static int matches_one_of(pager *p, int lo, int hi, int *which, char *why, size_t whylen) {
    char why_lo[400] = "", why_hi[400] = "";
    *which = lo;
    if (check_state(p, &states[lo], why_lo, sizeof why_lo)) {
        *which = hi;
        if (hi == lo || check_state(p, &states[hi], why_hi, sizeof why_hi)) {
            if (hi != lo)
                snprintf(why, whylen, "the table is neither %s (%s) nor %s (%s)", states[lo].name, why_lo,
                         states[hi].name, why_hi);
            else
                snprintf(why, whylen, "the table is not %s: %s", states[lo].name, why_lo);
            return 1;
        }
    }
    char w[400];
    if (integrity(p, w, sizeof w)) {
        snprintf(why, whylen, "(the table %s) %s", states[*which].name, w);
        return 1;
    }
    return 0;
}

/* new_commit writes the row EXTRA_ROWID in a new write transaction and commits it. */
static int new_commit(pager *p, char *why, size_t whylen) {
    pager_txn *t = NULL;
    strata_err err = {0};
    int rc = pager_begin(p, 1, &t, &err);
    if (rc) {
        snprintf(why, whylen, "pager_begin(write): %s: %s", strata_errstr(rc), err.msg);
        return 1;
    }
    int64_t id = EXTRA_ROWID;
    if ((rc = write_rows(t, &id, 1, 7, 0))) {
        snprintf(why, whylen, "insert: %s: %s", strata_errstr(rc), pager_txn_err(t)->msg);
        pager_rollback(t);
        return 1;
    }
    if ((rc = pager_commit(t, &err))) {
        snprintf(why, whylen, "pager_commit: %s: %s", strata_errstr(rc), err.msg);
        return 1;
    }
    return 0;
}

/* extra_is_there reads back the row of new_commit. */
static int extra_is_there(pager *p, char *why, size_t whylen) {
    pager_txn *t = NULL;
    strata_err err = {0};
    int rc = pager_begin(p, 0, &t, &err);
    if (rc) {
        snprintf(why, whylen, "pager_begin(read): %s: %s", strata_errstr(rc), err.msg);
        return 0;
    }
    data_chunk c;
    cr_assert_eq(chunk_init(&c, types, NCOLS, NULL), STRATA_OK);
    char *buf = malloc(LONG_STR + 64);
    int64_t id = EXTRA_ROWID;
    uint8_t found = 0;
    rc = table_get(t, &td, ALL, NCOLS, &id, 1, &c, &found);
    int ok = rc == STRATA_OK && found && row_is(&c, 0, id, 7, buf, why, whylen);
    if (!ok && rc)
        snprintf(why, whylen, "table_get: %s: %s", strata_errstr(rc), pager_txn_err(t)->msg);
    else if (!ok && !found)
        snprintf(why, whylen, "the row committed after recovery is lost");
    pager_rollback(t);
    chunk_free(&c);
    free(buf);
    return ok;
}

static int open_db(vfs *v, pager **p, char *why, size_t whylen) {
    pager_config cfg = config();
    strata_err err = {0};
    *p = NULL;
    int rc = pager_open(v, DB, &cfg, p, &err);
    if (rc) snprintf(why, whylen, "pager_open: %s: %s", strata_errstr(rc), err.msg);
    return rc != STRATA_OK;
}

/* check_recovered reopens after the power loss and checks the table against the run. *which
** gets the state found. Returns 0 when all is well. */
static int check_recovered(vfs *v, const run_result *r, int *which, char *why, size_t whylen) {
    pager *p = NULL;
    if (open_db(v, &p, why, whylen)) return 1;
    int lo = r->committed, hi = r->committed + (r->inflight ? 1 : 0);
    char w[900];
    if (matches_one_of(p, lo, hi, which, w, sizeof w)) {
        snprintf(why, whylen, "%s", w);
        pager_close(p);
        return 1;
    }
    if (new_commit(p, w, sizeof w)) {
        snprintf(why, whylen, "a commit after recovery (the table %s): %s", states[*which].name, w);
        pager_close(p);
        return 1;
    }
    int rc = pager_close(p);
    if (rc) {
        snprintf(why, whylen, "pager_close after recovery: %s", strata_errstr(rc));
        return 1;
    }
    if (open_db(v, &p, w, sizeof w)) {
        snprintf(why, whylen, "second reopen: %s", w);
        return 1;
    }
    int ok = extra_is_there(p, w, sizeof w);
    pager_close(p);
    if (!ok) {
        snprintf(why, whylen, "after the commit following recovery: %s", w);
        return 1;
    }
    return 0;
}

static const char *mode_name(int mode) {
    return mode == VFS_LOSE_UNSYNCED ? "LOSE_UNSYNCED" : "KEEP_UNSYNCED";
}

/* ---- power loss at every call ---------------------------------------------------------------- */

/* count_calls runs the workload without faults, checks its result and that it exercises what it
** is meant to, and returns the number of calls of op_mask it makes. */
static uint64_t count_calls(unsigned op_mask) {
    vfs *v = fresh_copy();
    vfs_fault_plan plan = {.op_mask = op_mask};
    vfs_fault_set_plan(v, &plan);
    run_result r;
    pager_stats st;
    run_workload(v, &r, &st);
    uint64_t total = vfs_fault_count(v);
    cr_assert(r.opened && r.committed == NSTEPS && r.closed && !r.wrong, "clean run: %d steps committed: %s",
              r.committed, r.why);
    pager *p = NULL;
    char why[900];
    cr_assert_eq(open_db(v, &p, why, sizeof why), 0, "%s", why);
    int which;
    cr_assert_eq(matches_one_of(p, NSTEPS, NSTEPS, &which, why, sizeof why), 0, "clean run: %s", why);
    /* the asserting checker of table_rows.h agrees */
    pager_txn *t = NULL;
    strata_err err = {0};
    cr_assert_eq(pager_begin(p, 0, &t, &err), STRATA_OK);
    scan_rows(t, &td, ALL, NCOLS, INT64_MIN, INT64_MAX, states[NSTEPS].ids, states[NSTEPS].n,
              states[NSTEPS].tags, 0);
    pager_rollback(t);
    /* the checker tells every other state from this one (else a lost commit could pass unseen) */
    for (int k = 0; k <= MIGRATED0; k++)
        cr_assert(k == NSTEPS || check_state(p, &states[k], why, sizeof why) != 0,
                  "the table after the workload also passes for the state %s", states[k].name);
    pager_close(p);
    vfs_destroy(v);
    cr_log_info(
        "rowgroup_crash (direct_bytes %llu): %llu counted calls (mask 0x%x); %llu commits, %llu pages to "
        "the WAL, %llu to the file directly, %llu checkpointed, cache peak %zu",
        (unsigned long long)direct_bytes, (unsigned long long)total, op_mask, (unsigned long long)st.commits,
        (unsigned long long)st.pages_written_wal, (unsigned long long)st.pages_written_direct,
        (unsigned long long)st.pages_checkpointed, st.cache_bytes_peak);
    if (direct_bytes)
        cr_assert_gt(st.pages_written_direct, 0, "no commit wrote its new pages to the file directly");
    else
        cr_assert_eq(st.pages_written_direct, 0,
                     "with the default direct_bytes every commit goes through the WAL");
    cr_assert_gt(st.pages_checkpointed, 0, "no checkpoint ran during the workload");
    return total;
}

static void power_cut_everywhere(unsigned op_mask) {
    uint64_t total = count_calls(op_mask);
    cr_assert_gt(total, 20, "the workload should make many I/O calls, made %llu", (unsigned long long)total);
    unsigned failures = 0, not_crashed = 0, cases = 0;
    unsigned seen[NSTEPS + 1] = {0}, inflight_kept = 0, inflight_lost = 0;
    for (uint64_t n = 1; n <= total; n++) {
        for (int mode = VFS_LOSE_UNSYNCED; mode <= VFS_KEEP_UNSYNCED; mode++) {
            vfs *v = fresh_copy();
            vfs_fault_plan plan = {.op_mask = op_mask, .fail_at = n, .fail_errno = EIO, .crash = 1};
            vfs_fault_set_plan(v, &plan);
            run_result r;
            run_workload(v, &r, NULL);
            if (!vfs_fault_crashed(v)) not_crashed++;
            vfs_fault_power_loss(v, mode);
            char why[1200];
            int which = -1;
            cases++;
            int bad = r.wrong;
            if (bad)
                snprintf(why, sizeof why, "before the cut: %s", r.why);
            else
                bad = check_recovered(v, &r, &which, why, sizeof why);
            if (bad) {
                if (failures < MAX_REPORTED)
                    cr_log_error("power cut at call %llu/%llu (%s): %d steps committed%s (%s) -> %s",
                                 (unsigned long long)n, (unsigned long long)total, mode_name(mode),
                                 r.committed, r.inflight ? " + one in flight" : "", r.why, why);
                failures++;
            } else {
                seen[which]++;
                if (r.inflight) *(which > r.committed ? &inflight_kept : &inflight_lost) += 1;
            }
            vfs_destroy(v);
        }
    }
    cr_log_info(
        "rowgroup_crash (direct_bytes %llu): %u cases; recovered as after 0..4 steps: %u %u %u %u %u; "
        "commit in flight at the cut kept %u, lost %u",
        (unsigned long long)direct_bytes, cases, seen[0], seen[1], seen[2], seen[3], seen[4], inflight_kept,
        inflight_lost);
    cr_expect_eq(not_crashed, 0,
                 "%u runs did not reach their power cut: the I/O call sequence is not deterministic",
                 not_crashed);
    cr_assert_eq(failures, 0, "%u of %u power cuts lost committed data or left a bad table (first %d logged)",
                 failures, cases, MAX_REPORTED);
}

Test(rowgroup_crash, power_cut_at_every_call_of_migrations_and_a_bulk_load, .timeout = 240) {
    power_cut_everywhere(VFS_OP_WRITE | VFS_OP_SYNC | VFS_OP_TRUNCATE);
}

/* Commits of four new pages or more write them into the database file before their WAL frames. */
Test(rowgroup_crash, power_cut_at_every_call_with_direct_page_writes, .timeout = 240) {
    direct_bytes = 16 << 10;
    cache_bytes = 1 << 20; /* a smaller cache would spill the new pages to the WAL first */
    power_cut_everywhere(VFS_OP_WRITE | VFS_OP_SYNC | VFS_OP_TRUNCATE);
}

/* cut_then_recover runs the workload with a power cut at call n, loses power keeping the unsynced
** writes (the most for recovery to sort out) and reopens with a second cut at call m of the
** recovery (its replay and the checkpoint of its close); m == 0 counts those calls instead and
** returns their number. */
static uint64_t cut_then_recover(vfs *v, unsigned mask, uint64_t n, uint64_t m, run_result *r) {
    vfs_fault_plan plan = {.op_mask = mask, .fail_at = n, .fail_errno = EIO, .crash = 1};
    vfs_fault_set_plan(v, &plan);
    run_workload(v, r, NULL);
    vfs_fault_power_loss(v, VFS_KEEP_UNSYNCED);
    vfs_fault_plan second = {.op_mask = mask, .fail_at = m, .fail_errno = EIO, .crash = 1};
    vfs_fault_set_plan(v, &second);
    pager *p = NULL;
    char why[900];
    if (open_db(v, &p, why, sizeof why) == 0) pager_close(p);
    return vfs_fault_count(v);
}

/* A power cut during the recovery from a cut inside the workload (a migration's direct page
** writes, its WAL frames, a checkpoint) must lose nothing either. */
Test(rowgroup_crash, power_cut_during_recovery_from_a_cut, .timeout = 240) {
    direct_bytes = 16 << 10;
    cache_bytes = 1 << 20;
    const unsigned mask = VFS_OP_WRITE | VFS_OP_SYNC | VFS_OP_TRUNCATE;
    uint64_t total = count_calls(mask);
    unsigned failures = 0, cases = 0;
    for (uint64_t n = 2; n <= total; n += 4) {
        run_result r;
        vfs *v = fresh_copy();
        uint64_t rec_calls = cut_then_recover(v, mask, n, 0, &r);
        vfs_destroy(v);
        for (uint64_t m = 1; m <= rec_calls; m++)
            for (int mode = VFS_LOSE_UNSYNCED; mode <= VFS_KEEP_UNSYNCED; mode++) {
                v = fresh_copy();
                cut_then_recover(v, mask, n, m, &r);
                vfs_fault_power_loss(v, mode);
                char why[1200];
                int which;
                cases++;
                if (r.wrong || check_recovered(v, &r, &which, why, sizeof why)) {
                    if (failures < MAX_REPORTED)
                        cr_log_error(
                            "first cut at call %llu/%llu, second at recovery call %llu/%llu (%s): %d steps "
                            "committed%s -> %s",
                            (unsigned long long)n, (unsigned long long)total, (unsigned long long)m,
                            (unsigned long long)rec_calls, mode_name(mode), r.committed,
                            r.inflight ? " + one in flight" : "", r.wrong ? r.why : why);
                    failures++;
                }
                vfs_destroy(v);
            }
    }
    cr_log_info("rowgroup_crash: %u double power cuts", cases);
    cr_assert_gt(cases, 0, "no recovery made a counted call");
    cr_assert_eq(failures, 0, "%u of %u double power cuts lost data or left a bad table (first %d logged)",
                 failures, cases, MAX_REPORTED);
}

/* ---- a full disk during a migration ---------------------------------------------------------- */

static int says_full(const char *msg) { return wl_contains_ci(msg, "space") || wl_contains_ci(msg, "full"); }

typedef struct full_result {
    char problem[1200];
    int failed;      /* the migration returned an error */
    int absorbed;    /* it returned OK: the fault hit only the checkpoint after its durable commit */
    int refused;     /* the handle refused writes afterwards (a failed fsync): reopened */
    int resurrected; /* after that reopen the failed migration was there */
} full_result;

/* migrate_commit runs one migration transaction (up to 2 row groups); *msg gets the error. */
static int migrate_commit(pager *p, uint32_t *moved, int *stage, char *msg, size_t msglen) {
    pager_txn *t = NULL;
    strata_err err = {0};
    *moved = 0;
    msg[0] = '\0';
    *stage = 0;
    int rc = pager_begin(p, 1, &t, &err);
    if (rc) {
        snprintf(msg, msglen, "%s", err.msg);
        return rc;
    }
    *stage = 1;
    rc = rowgroup_migrate(t, &td, 2, moved);
    if (rc) {
        snprintf(msg, msglen, "%s", pager_txn_err(t)->msg);
        pager_rollback(t);
        return rc;
    }
    *stage = 2;
    rc = pager_commit(t, &err);
    if (rc) snprintf(msg, msglen, "%s", err.msg);
    return rc;
}

static const char *stage_name(int stage) {
    return stage == 0 ? "pager_begin" : stage == 1 ? "rowgroup_migrate" : "pager_commit";
}

/* One case: ENOSPC at counted call n (persistent: and at every call after it) of a migration of
** two row groups. The table must read as before (or, when the commit returned OK, as after), pass
** the check; with room again a migration must succeed and survive a power loss. */
static void enospc_case(uint64_t n, int persistent, int mode, uint64_t *calls_out, full_result *res) {
    memset(res, 0, sizeof *res);
    vfs *v = fresh_copy();
    pager *p = NULL;
    char why[900], msg[600];
    cr_assert_eq(open_db(v, &p, why, sizeof why), 0, "%s", why);
    vfs_fault_plan plan = {
        .op_mask = VFS_OP_WRITE | VFS_OP_SYNC, .fail_at = n, .fail_errno = ENOSPC, .persistent = persistent};
    vfs_fault_set_plan(v, &plan);
    uint32_t moved = 0;
    int stage;
    int rc = migrate_commit(p, &moved, &stage, msg, sizeof msg);
    if (calls_out) *calls_out = vfs_fault_count(v);
    vfs_fault_plan none = {0};
    vfs_fault_set_plan(v, &none);
    int lo = 0, hi = 0; /* the states the table may be in */
    if (rc == STRATA_OK) {
        res->absorbed = n > 0;
        lo = hi = MIGRATED0;
        if (moved != 2)
            snprintf(res->problem, sizeof res->problem, "the migration moved %u row groups, want 2", moved);
    } else {
        res->failed = 1;
        if (rc == STRATA_FULL) {
            if (!says_full(msg))
                snprintf(res->problem, sizeof res->problem,
                         "%s gave STRATA_FULL with a message that does not say the disk is full: '%s'",
                         stage_name(stage), msg);
        } else if (!(rc == STRATA_IOERR && stage == 2)) {
            snprintf(res->problem, sizeof res->problem, "%s gave %s '%s' (want STRATA_FULL)",
                     stage_name(stage), strata_errstr(rc), msg);
        }
    }
    /* the same handle takes a write transaction, unless a failed fsync made it refuse writes */
    if (!res->problem[0]) {
        pager_txn *t = NULL;
        strata_err err = {0};
        int brc = pager_begin(p, 1, &t, &err);
        if (brc == STRATA_OK) {
            pager_rollback(t);
        } else if (brc == STRATA_IOERR && res->failed) {
            res->refused = 1; /* pager.h: whether the failed commit survives is unknown */
            pager_close(p);
            cr_assert_eq(open_db(v, &p, why, sizeof why), 0, "%s", why);
            hi = MIGRATED0;
        } else {
            snprintf(res->problem, sizeof res->problem, "after %s gave %s '%s': pager_begin(write): %s '%s'",
                     stage_name(stage), strata_errstr(rc), msg, strata_errstr(brc), err.msg);
        }
    }
    int which = lo;
    if (!res->problem[0] && matches_one_of(p, lo, hi, &which, why, sizeof why))
        snprintf(res->problem, sizeof res->problem, "after %s gave %s '%s'%s: %s", stage_name(stage),
                 strata_errstr(rc), msg, res->refused ? " and a reopen" : "", why);
    res->resurrected = res->refused && which == MIGRATED0;
    /* room again: a migration succeeds (nothing to do when the first one is there) */
    if (!res->problem[0]) {
        int rc2 = migrate_commit(p, &moved, &stage, msg, sizeof msg);
        if (rc2 != STRATA_OK || moved != (which == 0 ? 2u : 0u))
            snprintf(res->problem, sizeof res->problem,
                     "with room again, the migration gave %s at %s '%s' and moved %u row groups",
                     strata_errstr(rc2), stage_name(stage), msg, moved);
        else if (matches_one_of(p, MIGRATED0, MIGRATED0, &which, why, sizeof why))
            snprintf(res->problem, sizeof res->problem, "after the migration with room again: %s", why);
    }
    /* the process dies; what was committed is all there after the power loss */
    vfs_fault_plan cut = {.op_mask = VFS_OP_ALL, .fail_at = 1, .fail_errno = EIO, .crash = 1};
    vfs_fault_set_plan(v, &cut);
    pager_close(p);
    vfs_fault_power_loss(v, mode);
    if (!res->problem[0]) {
        if (open_db(v, &p, why, sizeof why))
            snprintf(res->problem, sizeof res->problem, "reopen after power loss: %s", why);
        else {
            if (matches_one_of(p, MIGRATED0, MIGRATED0, &which, why, sizeof why))
                snprintf(res->problem, sizeof res->problem, "after power loss: %s", why);
            pager_close(p);
        }
    }
    vfs_destroy(v);
}

static void enospc_everywhere(void) {
    uint64_t total = 0;
    full_result res;
    enospc_case(0, 0, VFS_LOSE_UNSYNCED, &total, &res);
    cr_assert_eq(res.problem[0], '\0', "without faults: %s", res.problem);
    cr_assert_gt(total, 3, "a migration of two row groups made only %llu writes and syncs",
                 (unsigned long long)total);
    unsigned failures = 0, cases = 0, failed = 0, absorbed = 0, refused = 0, resurrected = 0;
    for (uint64_t n = 1; n <= total; n++)
        for (int persistent = 0; persistent <= 1; persistent++) {
            int mode = (int)(n + (uint64_t)persistent) % 2 ? VFS_KEEP_UNSYNCED : VFS_LOSE_UNSYNCED;
            enospc_case(n, persistent, mode, NULL, &res);
            cases++;
            failed += res.failed;
            absorbed += res.absorbed;
            refused += res.refused;
            resurrected += res.resurrected;
            if (res.refused)
                cr_log_info(
                    "ENOSPC at call %llu/%llu%s (direct_bytes %llu): the commit failed, the handle then "
                    "refused writes, and after a reopen the migration was %s",
                    (unsigned long long)n, (unsigned long long)total, persistent ? " and after" : "",
                    (unsigned long long)direct_bytes, res.resurrected ? "there" : "not there");
            if (res.problem[0]) {
                if (failures < MAX_REPORTED)
                    cr_log_error("ENOSPC at call %llu/%llu of a migration%s (%s): %s", (unsigned long long)n,
                                 (unsigned long long)total, persistent ? " and after" : "", mode_name(mode),
                                 res.problem);
                failures++;
            }
        }
    cr_log_info(
        "rowgroup_crash ENOSPC (direct_bytes %llu): %u cases over %llu calls: the migration failed in %u "
        "(the handle then refused writes in %u, and after a reopen the migration was there in %u), "
        "returned OK in %u (the fault hit its checkpoint)",
        (unsigned long long)direct_bytes, cases, (unsigned long long)total, failed, refused, resurrected,
        absorbed);
    cr_assert_gt(failed, 0, "no ENOSPC made the migration fail");
    cr_assert_eq(failures, 0, "%u of %u ENOSPC cases went wrong (first %d logged)", failures, cases,
                 MAX_REPORTED);
}

Test(rowgroup_crash, enospc_at_every_write_and_sync_of_a_migration, .timeout = 120) { enospc_everywhere(); }

Test(rowgroup_crash, enospc_at_every_write_and_sync_of_a_migration_with_direct_page_writes, .timeout = 120) {
    direct_bytes = 16 << 10;
    cache_bytes = 1 << 20;
    enospc_everywhere();
}

/* A capacity limit: the migration does not fit in the space left, then it does. */
Test(rowgroup_crash, a_migration_beyond_capacity_fails_cleanly, .timeout = 60) {
    for (int direct = 0; direct <= 1; direct++) {
        direct_bytes = direct ? 16 << 10 : 0;
        cache_bytes = direct ? 1 << 20 : 128 << 10;
        vfs *v = fresh_copy();
        /* the database file alone: the WAL the template kept allocated would hold the migration */
        cr_assert_eq(vfs_remove(v, WAL, NULL), STRATA_OK);
        pager *p = NULL;
        char why[900], msg[600];
        cr_assert_eq(open_db(v, &p, why, sizeof why), 0, "%s", why);
        uint64_t used = 0, wal = 0;
        vfs_fault_file_size(v, DB, &used);
        vfs_fault_file_size(v, WAL, &wal);
        vfs_fault_set_capacity(v, used + wal + (24 << 10));
        uint32_t moved;
        int stage;
        int rc = migrate_commit(p, &moved, &stage, msg, sizeof msg);
        cr_assert_eq(rc, STRATA_FULL, "direct_bytes %llu: a migration without room gave %s at %s '%s'",
                     (unsigned long long)direct_bytes, strata_errstr(rc), stage_name(stage), msg);
        cr_expect(says_full(msg), "the message of a full disk does not say so: '%s'", msg);
        int which;
        cr_assert_eq(matches_one_of(p, 0, 0, &which, why, sizeof why), 0, "after the failed migration: %s",
                     why);
        /* still full: it fails again the same way */
        rc = migrate_commit(p, &moved, &stage, msg, sizeof msg);
        cr_assert_eq(rc, STRATA_FULL, "still full: %s at %s '%s'", strata_errstr(rc), stage_name(stage), msg);
        cr_assert_eq(matches_one_of(p, 0, 0, &which, why, sizeof why), 0, "after the second failure: %s",
                     why);
        vfs_fault_set_capacity(v, 0);
        rc = migrate_commit(p, &moved, &stage, msg, sizeof msg);
        cr_assert_eq(rc, STRATA_OK, "with room again: %s at %s '%s'", strata_errstr(rc), stage_name(stage),
                     msg);
        cr_assert_eq(moved, 2);
        cr_assert_eq(matches_one_of(p, MIGRATED0, MIGRATED0, &which, why, sizeof why), 0,
                     "after the migration: %s", why);
        cr_assert_eq(pager_close(p), STRATA_OK);
        cr_assert_eq(open_db(v, &p, why, sizeof why), 0, "%s", why);
        cr_assert_eq(matches_one_of(p, MIGRATED0, MIGRATED0, &which, why, sizeof why), 0, "after reopen: %s",
                     why);
        pager_close(p);
        vfs_destroy(v);
    }
}
