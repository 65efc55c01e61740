/*
** maintain.c -- the tuple mover and the statistics refresh after commits, ANALYZE, VACUUM,
** CHECKPOINT and the integrity check, table by table over the catalog (maintain.h).
*/
#include "storage/maintain.h"

#include <stdlib.h>
#include <string.h>

#include "../../colstore/rowgroup.h"
#include "../../rowstore/btree.h"
#include "catalog/stats.h"
#include "storage/stats_gather.h"

/* reread_catalog reads the catalog again as committed (no transaction is open) and sets *reread,
** after a transaction of the policy's own failed: the in-memory catalog may hold what it did. A
** failure to read it is dropped: the failed step's error is the one the caller hears of. */
static void reread_catalog(pager *p, catalog *c, bool *reread) {
    *reread = true;
    strata_err err;
    err_clear(&err);
    pager_txn *t;
    if (pager_begin(p, 0, &t, &err)) return;
    catalog_load(c, t, &err);
    pager_rollback(t);
}

/* ---- the tuple mover ---------------------------------------------------------------------- */

/* count_pending counts, in a read transaction of its own, the rows of td's row store beyond its
** migrated rows (rowgroup_pending) into td->pending. On error td->pending is unchanged (err is
** set only when the transaction could not begin). */
static int count_pending(pager *p, table_def *td, strata_err *err) {
    pager_txn *t;
    uint32_t pending = 0;
    int rc = pager_begin(p, 0, &t, err);
    if (rc) return rc;
    rc = rowgroup_pending(t, &td->desc, rowgroup_rows(&td->desc), &pending);
    pager_rollback(t);
    if (!rc) td->pending = pending;
    return rc;
}

/* migrate_table moves up to max_groups full row groups of td's row store into its column tree,
** in a write transaction of its own (the column tree is made the first time), and recounts the
** rows left waiting. On error the transaction rolls back and the catalog is read again. */
static int migrate_table(pager *p, catalog *c, table_def *td, uint32_t max_groups, bool *reread,
                         strata_err *err) {
    pager_txn *t;
    int rc = pager_begin(p, 1, &t, err);
    if (rc) return rc;
    uint32_t moved = 0, pending = 0;
    if (!td->desc.col_root) {
        pgno_t root;
        if ((rc = btree_create(t, &root)) || (rc = catalog_set_col_root(c, t, td, root, err))) goto fail;
    }
    if ((rc = rowgroup_migrate(t, &td->desc, max_groups, &moved)) ||
        (rc = rowgroup_pending(t, &td->desc, rowgroup_rows(&td->desc), &pending)))
        goto fail;
    if ((rc = pager_commit(t, err))) {
        t = NULL;
        goto fail;
    }
    td->pending = pending;
    return STRATA_OK;
fail:
    if (err->code == STRATA_OK && t) err_set(err, rc, "%s", pager_txn_err(t)->msg);
    if (t) pager_rollback(t);
    reread_catalog(p, c, reread);
    return rc;
}

/* ---- statistics --------------------------------------------------------------------------- */

/* A table's statistics are brought up to date automatically once this many rows were inserted
** since they last saw it, and a tenth of the rows they count: each refresh reads only the new
** rows, so the work stays proportional to the rows inserted (bulk loads, COPY and the appender
** included), while a table that grows by single rows is read again only now and then. A table
** without statistics gets them after the first commit that inserts into it, however few its rows:
** the small tables of a join (TPC-H's nation and region) need them as much as the large. */
#define STATS_REFRESH_ROWS 1000

/* analyze_rows folds td's rows above the watermark of st (fresh statistics: all of them) into
** st and stores it, in write transaction t; st is taken over. */
static int analyze_rows(catalog *c, pager_txn *t, table_def *td, table_stats *st, strata_err *err) {
    if (!st) return err_set(err, STRATA_NOMEM, "out of memory");
    int rc = stats_scan(t, td, st, err);
    if (rc) {
        stats_free(st);
        return rc;
    }
    td->unanalyzed = 0;
    return catalog_set_stats(c, t, td, st, err);
}

/* refresh_stats brings the statistics of tables with enough new rows up to date, each in a write
** transaction of its own (no transaction is open). Like the tuple mover's work it is best effort:
** on error the transaction rolls back, the catalog is read again and the refresh is tried after a
** later commit. */
static void refresh_stats(pager *p, catalog *c, bool *reread) {
    for (uint32_t i = 0; i < c->ntables; i++) {
        table_def *td = c->tables[i];
        int64_t counted = td->stats ? td->stats->rows : 0;
        if ((td->stats ? td->unanalyzed < STATS_REFRESH_ROWS : td->unanalyzed <= 0) || td->unanalyzed < counted / 10)
            continue;
        strata_err err;
        err_clear(&err);
        pager_txn *t;
        if (pager_begin(p, 1, &t, &err)) return;
        table_stats *st = td->stats ? stats_copy(td->stats) : stats_new(td->ncols);
        int rc = analyze_rows(c, t, td, st, &err);
        if (rc) pager_rollback(t);
        if (rc || pager_commit(t, &err)) { /* a failed commit has ended the transaction */
            reread_catalog(p, c, reread);
            return;
        }
    }
}

int storage_analyze(catalog *c, pager_txn *t, const char *name, strata_err *err) {
    int rc = STRATA_OK;
    for (uint32_t i = 0; i < c->ntables && !rc; i++) {
        table_def *td = c->tables[i];
        if (!name || !strcmp(td->name, name)) rc = analyze_rows(c, t, td, stats_new(td->ncols), err);
    }
    return rc;
}

/* ---- after a commit ----------------------------------------------------------------------- */

void storage_after_commit(pager *p, catalog *c, bool *reread) {
    for (uint32_t i = 0; i < c->ntables; i++) {
        table_def *td = c->tables[i];
        if (td->inserted == 0 && td->bulk_inserted == 0) continue;
        td->unanalyzed += td->inserted + td->bulk_inserted;
        td->bulk_inserted = 0;
        if (td->storage == TABLE_STORAGE_ROW) {
            td->inserted = 0;
            continue;
        }
        strata_err err;
        err_clear(&err);
        if (td->pending < 0) { /* not counted since the catalog was read */
            if (count_pending(p, td, &err)) continue;
        } else {
            td->pending += td->inserted;
        }
        td->inserted = 0;
        if (td->pending >= rowgroup_rows(&td->desc) &&
            migrate_table(p, c, td, td->storage == TABLE_STORAGE_COLUMN ? UINT32_MAX : 1, reread, &err) != STRATA_OK)
            return; /* the catalog was read again: c->tables changed */
    }
    refresh_stats(p, c, reread);
}

/* ---- VACUUM and CHECKPOINT ---------------------------------------------------------------- */

#define VACUUM_PERCENT 10

int storage_vacuum(pager *p, catalog *c, const char *name, strata_err *err) {
    if (name && !catalog_table(c, name)) return err_set(err, STRATA_ERROR, "relation \"%s\" does not exist", name);
    for (uint32_t i = 0; i < c->ntables; i++) {
        table_def *td = c->tables[i];
        if ((name && strcmp(td->name, name)) || !td->desc.col_root) continue;
        pager_txn *t;
        uint32_t n;
        int rc = pager_begin(p, 1, &t, err);
        if (rc) return rc;
        if ((rc = rowgroup_vacuum(t, &td->desc, VACUUM_PERCENT, &n))) {
            err_set(err, rc, "%s", pager_txn_err(t)->msg);
            pager_rollback(t);
            return rc;
        }
        if ((rc = pager_commit(t, err))) return rc;
    }
    return STRATA_OK;
}

int storage_checkpoint(pager *p, catalog *c, const char *name, bool *reread, strata_err *err) {
    if (name && !catalog_table(c, name)) return err_set(err, STRATA_ERROR, "relation \"%s\" does not exist", name);
    for (uint32_t i = 0; i < c->ntables; i++) {
        table_def *td = c->tables[i];
        if ((name && strcmp(td->name, name)) || td->storage == TABLE_STORAGE_ROW) continue;
        td->inserted = 0;
        int rc = count_pending(p, td, err);
        if (rc) return rc;
        if (td->pending >= rowgroup_rows(&td->desc) && (rc = migrate_table(p, c, td, UINT32_MAX, reread, err))) return rc;
    }
    return pager_checkpoint(p, err);
}

/* ---- the integrity check ------------------------------------------------------------------ */

/* The caller's add, called for the first max problems only. */
typedef struct integrity_sink {
    void (*add)(void *arg, const char *line);
    void *arg;
    uint64_t shown, max;
} integrity_sink;

static void integrity_add(void *arg, const char *line) {
    integrity_sink *k = arg;
    if (k->shown < k->max) k->add(k->arg, line);
    k->shown++;
}

int storage_check(pager_txn *t, catalog *c, uint64_t max, void (*add)(void *arg, const char *line), void *arg,
                  strata_err *err) {
    integrity_sink sink = {.add = add, .arg = arg, .max = max};
    int rc = STRATA_OK;
    pgno_t *roots = malloc((2 * c->ntables + c->nindexes + 1) * sizeof *roots);
    uint32_t n = 0;
    if (!roots) rc = err_set(err, STRATA_NOMEM, "out of memory");
    uint64_t problems = 0;
    if (!rc) {
        pgno_t croot = (pgno_t)pager_meta_get(t, CATALOG_ROOT_SLOT);
        if (croot) roots[n++] = croot;
        for (uint32_t i = 0; i < c->ntables; i++) {
            roots[n++] = c->tables[i]->root;
            if (c->tables[i]->desc.col_root) roots[n++] = c->tables[i]->desc.col_root;
        }
        for (uint32_t i = 0; i < c->nindexes; i++) roots[n++] = c->indexes[i]->root;
        btree_buf report = {0};
        rc = btree_check_file(t, roots, n, &report, &problems, err);
        for (char *line = (char *)report.data; !rc && line && *line;) {
            char *nl = strchr(line, '\n');
            if (nl) *nl = 0;
            integrity_add(&sink, line);
            line = nl ? nl + 1 : NULL;
        }
        btree_buf_free(&report);
    }
    for (uint32_t i = 0; !rc && i < c->ntables; i++) {
        uint64_t found = 0;
        if ((rc = rowgroup_check_segments(t, &c->tables[i]->desc, integrity_add, &sink, &found)))
            err_set(err, rc, "out of memory");
        problems += found;
    }
    if (!rc && !problems) add(arg, "ok");
    free(roots);
    return rc;
}
