/*
** recover.c -- copying the readable part of a damaged database into a new one (recover.h).
**
** What it does, in order, inside one read transaction of the damaged file (which is never
** written: the pager is read-only, or the caller's handle only reads):
**   1. the catalog as it loads, or as much of it as salvages (catalog_salvage);
**   2. the schema in the new database: each table's stored DDL, retried while any succeeds (a
**      foreign key may name a table made later);
**   3. each table's rows, in the order the tables were made (parents before children): the
**      entries of every readable leaf of its row tree (btree_salvage), then the live rows of
**      every readable row group of its column tree, leaving out rowids the row tree holds (a
**      newer version of a migrated row lives there); each batch goes in through the appender,
**      and when the new database refuses a batch, row by row, counting the refused rows;
**   4. orphan leaves: pages no tree and no free list reaches that parse as leaves of rowid keys
**      are given to the one table that lost row-tree pages and whose records they all decode as
**      (of several, the one whose column count every record stores); otherwise the leaf is
**      ambiguous and is left out; rowids already copied are never copied again;
**   5. a table whose column tree lost pages has its row groups read through a rebuilt tree: every
**      readable entry of its column tree, and the entries of orphan leaves of column-tree keys
**      when it is the only such table, copied into a temporary database beside the new one
**      (NEW-recover-tmp, removed at the end), whose row groups are then copied as in 3;
**   6. the user's indexes and the views, from their stored text.
** What it is not: no repair in place, no guessing of lost catalog entries (a table whose
** definition is lost is not recovered; its leaves stay orphans), no recovery of a row group's
** entries whose leaf itself is lost.
*/
#include "recover.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../colstore/record.h"
#include "../colstore/rowgroup.h"
#include "../rowstore/btree.h"

/* ---- sets of rowids ------------------------------------------------------------------------ */

/* An open-addressing hash set of rowids (linear probing; EMPTY marks a free slot, and the rowid
** EMPTY itself is kept aside), so that membership costs the same in whatever order rows come. */
#define EMPTY INT64_MIN

typedef struct rowid_set {
    int64_t *v;
    size_t n, cap; /* cap: a power of two, or 0 */
    bool has_empty;
} rowid_set;

static size_t slot_of(int64_t id, size_t cap) {
    uint64_t h = (uint64_t)id * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 17) & (cap - 1);
}

static int set_has(const rowid_set *s, int64_t id) {
    if (id == EMPTY) return s->has_empty;
    if (!s->cap) return 0;
    for (size_t i = slot_of(id, s->cap);; i = (i + 1) & (s->cap - 1)) {
        if (s->v[i] == id) return 1;
        if (s->v[i] == EMPTY) return 0;
    }
}

static int set_add(rowid_set *s, int64_t id) {
    if (id == EMPTY) return s->has_empty = true, STRATA_OK;
    if (2 * (s->n + 1) > s->cap) { /* at most half full */
        size_t cap = s->cap ? 2 * s->cap : 1024;
        int64_t *v = malloc(cap * sizeof *v);
        if (!v) return STRATA_NOMEM;
        for (size_t i = 0; i < cap; i++) v[i] = EMPTY;
        for (size_t i = 0; i < s->cap; i++)
            if (s->v[i] != EMPTY) {
                size_t j = slot_of(s->v[i], cap);
                while (v[j] != EMPTY) j = (j + 1) & (cap - 1);
                v[j] = s->v[i];
            }
        free(s->v);
        s->v = v;
        s->cap = cap;
    }
    size_t i = slot_of(id, s->cap);
    while (s->v[i] != EMPTY && s->v[i] != id) i = (i + 1) & (s->cap - 1);
    if (s->v[i] == EMPTY) {
        s->v[i] = id;
        s->n++;
    }
    return STRATA_OK;
}

/* ---- the state of a copy ------------------------------------------------------------------- */

/* Where one table's rows go: its appender on the new database and a chunk being filled. */
typedef struct sink {
    strata_appender *app;
    data_chunk ch;
    record_plan plan;
    bool open;
} sink;

typedef struct tstate {
    table_def *td;
    strata_recover_table *out;
    rowid_set ids;     /* rowids copied (row tree, orphan leaves) */
    bool rowtree_lost; /* its row tree lost pages: an orphan leaf may be its */
    bool coltree_lost; /* its column tree lost pages: its row groups are read through a rebuilt tree */
    bool made;         /* created in the new database */
    pgno_t last_lost;
    sink sk;
} tstate;

typedef struct rec {
    pager_txn *t;
    catalog *cat;
    strata_db *out;
    strata_recover_report *r;
    uint8_t *reached; /* pages a tree or the free list reaches, one bit each */
    pgno_t npages;
    tstate *ts;
    uint32_t nts;
    tstate *cur;       /* the table being copied */
    int fatal;         /* STRATA_NOMEM or an error of the new database that stops everything */
    const char *new_path;
    pager_txn *tmp;    /* the rebuilt column tree's write transaction */
    pgno_t tmp_root;
    uint32_t *cols;    /* 0 .. ncols-1 of the widest table */
    /* a row group's descriptors, collected from the column tree */
    int64_t *gfirst, *glast;
    uint32_t ngroups, gcap;
    /* orphan leaf probing */
    tstate *probe;
    bool probe_ok, probe_exact; /* every record decodes; ... and stores exactly the table's columns */
    uint32_t probe_cells;
} rec;

static void mark(void *arg, pgno_t pgno) {
    rec *R = arg;
    if (pgno < R->npages) R->reached[pgno >> 3] |= (uint8_t)(1u << (pgno & 7));
}

static int mark_free(void *arg, pgno_t pgno, int is_trunk) {
    (void)is_trunk;
    mark(arg, pgno);
    return STRATA_OK;
}

static int fail(rec *R, int rc, const char *fmt, const char *what) {
    if (!R->fatal) {
        R->fatal = rc;
        snprintf(R->r->message, sizeof R->r->message, fmt, what);
    }
    return rc;
}

/* exec_atomic runs sql in the new database inside a transaction of its own: all or nothing. */
static int exec_atomic(strata_db *db, const char *sql) {
    int rc = strata_exec(db, "BEGIN", NULL, NULL);
    if (rc) return rc;
    if ((rc = strata_exec(db, sql, NULL, NULL))) {
        strata_exec(db, "ROLLBACK", NULL, NULL);
        return rc;
    }
    return strata_exec(db, "COMMIT", NULL, NULL);
}

/* ---- writing rows -------------------------------------------------------------------------- */

static int sink_open(rec *R, tstate *ts) {
    sink *k = &ts->sk;
    if (k->open) return STRATA_OK;
    strata_err err;
    err_clear(&err);
    int rc = strata_appender_create(R->out, ts->td->name, &k->app);
    if (rc) return fail(R, rc, "cannot write the new database: %s", strata_errmsg(R->out));
    if ((rc = chunk_init(&k->ch, ts->td->types, ts->td->ncols, &err)) ||
        (rc = record_plan_init(&k->plan, &ts->td->desc, R->cols, ts->td->ncols, 1, &err))) {
        strata_appender_destroy(k->app);
        chunk_free(&k->ch);
        return fail(R, rc, "%s", err.msg);
    }
    k->open = true;
    return STRATA_OK;
}

/* put_rows copies rows sel[0..n) of ch into ts's table: as one batch, or, when the new database
** refuses the batch, row by row. Returns how many went in; the others count as rejected. */
static int64_t put_rows(rec *R, tstate *ts, const data_chunk *ch, const sel_t *sel, uint32_t n) {
    if (!n || R->fatal) return 0;
    strata_appender *a = ts->sk.app;
    int rc = appender_add_rows(a, ch, sel, n);
    if (rc == STRATA_OK) rc = strata_appender_flush(a);
    if (rc == STRATA_OK) {
        ts->out->rows += n;
        return n;
    }
    if (rc == STRATA_NOMEM) return fail(R, rc, "%s", "out of memory"), 0;
    int64_t in = 0;
    for (uint32_t i = 0; i < n && !R->fatal; i++) {
        sel_t one = sel ? sel[i] : i;
        rc = appender_add_rows(a, ch, &one, 1);
        if (rc == STRATA_OK) rc = strata_appender_flush(a);
        if (rc == STRATA_NOMEM) fail(R, rc, "%s", "out of memory");
        else if (rc) ts->out->rows_rejected++;
        else in++;
    }
    ts->out->rows += in;
    return in;
}

/* sink_flush copies the rows of ts's chunk and empties it. */
static int64_t sink_flush(rec *R, tstate *ts) {
    sink *k = &ts->sk;
    int64_t in = put_rows(R, ts, &k->ch, NULL, k->ch.count);
    chunk_reset(&k->ch);
    record_plan_reset_regions(&k->plan);
    return in;
}

/* sink_close copies what ts's chunk holds and frees the appender (its rows were flushed). */
static void sink_close(rec *R, tstate *ts) {
    sink *k = &ts->sk;
    if (!k->open) return;
    sink_flush(R, ts);
    int rc = strata_appender_destroy(k->app);
    if (rc && !R->fatal) fail(R, rc, "cannot write the new database: %s", strata_errmsg(R->out));
    chunk_free(&k->ch);
    record_plan_free(&k->plan);
    k->open = false;
}

/* begin_copy and end_copy bracket the rows copied into the new database in one transaction. */
static int begin_copy(rec *R) {
    int rc = strata_exec(R->out, "BEGIN", NULL, NULL);
    return rc ? fail(R, rc, "cannot write the new database: %s", strata_errmsg(R->out)) : STRATA_OK;
}

static void end_copy(rec *R) {
    int rc = strata_exec(R->out, "COMMIT", NULL, NULL);
    if (rc) fail(R, rc, "cannot write the new database: %s", strata_errmsg(R->out));
}

/* ---- the row tree -------------------------------------------------------------------------- */

/* take_row decodes one row-tree entry of ts into its chunk (0 when it was taken, 1 when it is not
** a row of ts: a key that is no rowid, a record that does not decode). */
static int take_row(rec *R, tstate *ts, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen) {
    if (klen != ROWID_KEY_LEN) return 1;
    int64_t rowid = rowid_decode(key);
    if (set_has(&ts->ids, rowid)) return 0;
    sink *k = &ts->sk;
    const char *why = NULL;
    strata_err err;
    err_clear(&err);
    int rc = record_decode(&k->plan, val, vlen, &k->ch, k->ch.count, &why, &err);
    if (rc == STRATA_NOMEM) return fail(R, rc, "%s", "out of memory"), 0;
    if (rc) return 1;
    if (set_add(&ts->ids, rowid)) return fail(R, STRATA_NOMEM, "%s", "out of memory"), 0;
    if (++k->ch.count == VECTOR_SIZE) sink_flush(R, ts);
    return 0;
}

static int row_entry(void *arg, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen) {
    rec *R = arg;
    if (take_row(R, R->cur, key, klen, val, vlen) == 1) R->cur->out->rows_rejected++;
    return R->fatal;
}

static void tree_lost(void *arg, pgno_t pgno, const char *why) {
    (void)why;
    rec *R = arg;
    tstate *ts = R->cur;
    if (pgno != ts->last_lost) ts->out->pages_lost++;
    ts->last_lost = pgno;
}

static void row_lost(void *arg, pgno_t pgno, const char *why) {
    rec *R = arg;
    R->cur->rowtree_lost = true;
    tree_lost(arg, pgno, why);
}

/* ---- the column tree ----------------------------------------------------------------------- */

static void col_lost(void *arg, pgno_t pgno, const char *why) {
    rec *R = arg;
    R->cur->coltree_lost = true;
    tree_lost(arg, pgno, why);
}

static int64_t get_i64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return (int64_t)v;
}

/* group_entry collects the rowid range of each row group descriptor ('g' entries, rowgroup.h). */
static int group_entry(void *arg, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen) {
    rec *R = arg;
    if (klen != 1 + ROWID_KEY_LEN || key[0] != 'g' || vlen < 25) return STRATA_OK;
    if (R->ngroups == R->gcap) {
        uint32_t cap = R->gcap ? 2 * R->gcap : 64;
        int64_t *f = realloc(R->gfirst, cap * sizeof *f);
        if (f) R->gfirst = f;
        int64_t *l = f ? realloc(R->glast, cap * sizeof *l) : NULL;
        if (l) R->glast = l;
        if (!l) return fail(R, STRATA_NOMEM, "%s", "out of memory");
        R->gcap = cap;
    }
    R->gfirst[R->ngroups] = get_i64(val + 9);
    R->glast[R->ngroups] = get_i64(val + 17);
    R->ngroups++;
    return STRATA_OK;
}

/* copy_group copies the live rows of the row group [first, last] that the row tree does not hold
** a newer version of. A row group that fails to read part-way keeps the rows read before. */
static void copy_group(rec *R, tstate *ts, pager_txn *t, const table_desc *td, int64_t first, int64_t last) {
    rowgroup_scan *s = NULL;
    sink *k = &ts->sk;
    int64_t ids[VECTOR_SIZE];
    sel_t sel[VECTOR_SIZE];
    int rc = rowgroup_scan_open(t, td, R->cols, td->ncols, first, last, &s);
    while (rc == STRATA_OK && !R->fatal) {
        chunk_reset(&k->ch);
        if ((rc = rowgroup_scan_next(s, &k->ch, ids, INT64_MAX)) || !k->ch.count) break;
        uint32_t n = 0;
        for (uint32_t i = 0; i < k->ch.count; i++)
            if (!set_has(&ts->ids, ids[i])) sel[n++] = i;
        put_rows(R, ts, &k->ch, sel, n);
    }
    rowgroup_scan_close(s);
    if (rc == STRATA_NOMEM) fail(R, rc, "%s", "out of memory");
    else if (rc) ts->out->rowgroups_lost++;
    chunk_reset(&k->ch);
    err_clear(pager_txn_err(t));
}

/* ---- one table ------------------------------------------------------------------------------ */

static void copy_table(rec *R, tstate *ts) {
    R->cur = ts;
    if (begin_copy(R)) return;
    if (sink_open(R, ts)) return;
    btree_salvage_fns rows = {.entry = row_entry, .lost = row_lost, .visit = mark, .arg = R};
    ts->last_lost = 0;
    if (btree_salvage(R->t, ts->td->root, &rows) && !R->fatal) fail(R, STRATA_NOMEM, "%s", "out of memory");
    sink_flush(R, ts);
    pgno_t croot = ts->td->desc.col_root;
    if (croot && !R->fatal) {
        R->ngroups = 0;
        btree_salvage_fns groups = {.entry = group_entry, .lost = col_lost, .visit = mark, .arg = R};
        if (btree_salvage(R->t, croot, &groups) && !R->fatal) fail(R, STRATA_NOMEM, "%s", "out of memory");
        if (!ts->coltree_lost) /* else later, with the orphan leaves (copy_damaged_columns) */
            for (uint32_t g = 0; g < R->ngroups && !R->fatal; g++)
                copy_group(R, ts, R->t, &ts->td->desc, R->gfirst[g], R->glast[g]);
    }
    err_clear(pager_txn_err(R->t));
    sink_close(R, ts);
    if (!R->fatal) end_copy(R);
}

/* ---- orphan leaves -------------------------------------------------------------------------- */

/* probe_entry checks that an orphan leaf's entry is a row of the table being probed. */
static int probe_entry(void *arg, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen) {
    (void)key;
    rec *R = arg;
    tstate *ts = R->probe;
    R->probe_cells++;
    if (!R->probe_ok) return STRATA_OK;
    if (klen != ROWID_KEY_LEN) {
        R->probe_ok = false;
        return STRATA_OK;
    }
    sink *k = &ts->sk;
    const char *why;
    strata_err err;
    err_clear(&err);
    chunk_reset(&k->ch);
    record_plan_reset_regions(&k->plan);
    if (record_decode(&k->plan, val, vlen, &k->ch, 0, &why, &err)) R->probe_ok = false;
    uint64_t stored = 0; /* the record's first varint: the columns it stores */
    for (size_t i = 0; i < vlen && i < 10; i++) {
        stored |= (uint64_t)(val[i] & 0x7f) << (7 * i);
        if (!(val[i] & 0x80)) break;
    }
    if (stored != ts->td->ncols) R->probe_exact = false;
    chunk_reset(&k->ch);
    record_plan_reset_regions(&k->plan);
    return STRATA_OK;
}

static void probe_lost(void *arg, pgno_t pgno, const char *why) {
    (void)pgno;
    (void)why;
    ((rec *)arg)->probe_ok = false; /* a leaf with a broken cell is not taken */
}

static int orphan_entry(void *arg, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen) {
    rec *R = arg;
    take_row(R, R->cur, key, klen, val, vlen);
    return R->fatal;
}

static void copy_orphans(rec *R) {
    uint32_t ncand = 0;
    for (uint32_t i = 0; i < R->nts; i++) {
        ncand += R->ts[i].rowtree_lost && R->ts[i].made;
        R->ts[i].out->orphan_rows = R->ts[i].out->rows; /* rows before; the difference after */
    }
    if (ncand && begin_copy(R)) return;
    for (pgno_t pg = 1; pg < R->npages && !R->fatal; pg++) {
        if (R->reached[pg >> 3] & (1u << (pg & 7))) continue;
        tstate *owner = NULL, *exact_owner = NULL;
        int is_leaf = 0, matches = 0, exact = 0;
        for (uint32_t i = 0; i < R->nts && !R->fatal; i++) {
            tstate *ts = &R->ts[i];
            if (!ts->rowtree_lost || !ts->made || sink_open(R, ts)) continue;
            R->probe = ts;
            R->probe_ok = R->probe_exact = true;
            R->probe_cells = 0;
            btree_salvage_fns fns = {.entry = probe_entry, .lost = probe_lost, .arg = R};
            if (btree_salvage_leaf(R->t, pg, &fns, &is_leaf)) fail(R, STRATA_NOMEM, "%s", "out of memory");
            if (!is_leaf) break;
            if (R->probe_ok && R->probe_cells) {
                matches++;
                owner = ts;
                if (R->probe_exact) {
                    exact++;
                    exact_owner = ts;
                }
            }
        }
        if (!is_leaf && ncand) continue;
        if (!ncand) { /* nothing to give it to; still count it */
            btree_salvage_fns none = {.arg = R};
            if (btree_salvage_leaf(R->t, pg, &none, &is_leaf) == STRATA_OK && is_leaf) R->r->orphan_leaves++;
            err_clear(pager_txn_err(R->t));
            continue;
        }
        R->r->orphan_leaves++;
        if (matches > 1 && exact == 1) owner = exact_owner, matches = 1; /* the one whose column count it is */
        if (matches == 1) {
            R->cur = owner;
            btree_salvage_fns take = {.entry = orphan_entry, .arg = R};
            btree_salvage_leaf(R->t, pg, &take, &is_leaf);
            sink_flush(R, owner);
        }
        err_clear(pager_txn_err(R->t));
    }
    for (uint32_t i = 0; i < R->nts; i++) {
        sink_close(R, &R->ts[i]);
        R->ts[i].out->orphan_rows = R->ts[i].out->rows - R->ts[i].out->orphan_rows;
    }
    if (ncand && !R->fatal) end_copy(R);
}

/* ---- damaged column trees ------------------------------------------------------------------- */

/* col_key says whether a key has the shape of a column tree's (rowgroup.h): 'g', 'h' or 'x' and a
** rowid, or 's', a rowid and a column. */
static bool col_key(const uint8_t *key, size_t klen) {
    return (klen == 1 + ROWID_KEY_LEN && (key[0] == 'g' || key[0] == 'h' || key[0] == 'x')) ||
           (klen == 1 + ROWID_KEY_LEN + 4 && key[0] == 's');
}

static int col_probe(void *arg, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen) {
    (void)val, (void)vlen;
    rec *R = arg;
    R->probe_cells++;
    if (!col_key(key, klen)) R->probe_ok = false;
    return STRATA_OK;
}

/* tmp_put copies an entry into the rebuilt column tree. */
static int tmp_put(void *arg, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen) {
    rec *R = arg;
    if (!col_key(key, klen)) return STRATA_OK;
    int rc = btree_put(R->tmp, R->tmp_root, key, klen, val, vlen);
    if (rc == STRATA_NOMEM) return fail(R, rc, "%s", "out of memory");
    err_clear(pager_txn_err(R->tmp));
    return STRATA_OK;
}

/* rebuild_columns copies every readable entry of ts's column tree, and those of the orphan leaves
** of column-tree keys (when ts is the only table whose column tree lost pages), into a new tree
** of a temporary database beside the new one, and copies the rows of its row groups from there:
** the row groups whose path in the damaged tree was lost come back with their leaves. */
static void rebuild_columns(rec *R, tstate *ts, bool take_orphans) {
    char tmp_path[1100];
    snprintf(tmp_path, sizeof tmp_path, "%s-recover-tmp", R->new_path);
    char tmp_wal[1110];
    snprintf(tmp_wal, sizeof tmp_wal, "%s-wal", tmp_path);
    vfs *v = vfs_posix();
    vfs_remove(v, tmp_path, NULL);
    vfs_remove(v, tmp_wal, NULL);
    pager_config cfg = {.no_sync = 1}; /* thrown away at the end */
    strata_err err;
    err_clear(&err);
    pager *p = NULL;
    pager_txn *rt = NULL;
    int rc = pager_open(v, tmp_path, &cfg, &p, &err);
    if (!rc) rc = pager_begin(p, 1, &R->tmp, &err);
    if (!rc && (rc = btree_create(R->tmp, &R->tmp_root))) err = *pager_txn_err(R->tmp);
    if (rc) {
        if (R->tmp) pager_rollback(R->tmp);
        R->tmp = NULL;
        fail(R, rc, "cannot make a temporary database beside the new one: %.400s", err.msg);
        goto done;
    }
    btree_salvage_fns copy = {.entry = tmp_put, .arg = R};
    btree_salvage(R->t, ts->td->desc.col_root, &copy);
    for (pgno_t pg = 1; take_orphans && pg < R->npages && !R->fatal; pg++) {
        if (R->reached[pg >> 3] & (1u << (pg & 7))) continue;
        int is_leaf = 0;
        R->probe_ok = true;
        R->probe_cells = 0;
        btree_salvage_fns probe = {.entry = col_probe, .lost = probe_lost, .arg = R};
        if (btree_salvage_leaf(R->t, pg, &probe, &is_leaf) || !is_leaf || !R->probe_ok || !R->probe_cells) continue;
        btree_salvage_leaf(R->t, pg, &copy, &is_leaf);
        mark(R, pg);
    }
    err_clear(pager_txn_err(R->t));
    rc = pager_commit(R->tmp, &err);
    R->tmp = NULL;
    if (rc) {
        fail(R, rc, "cannot write a temporary database beside the new one: %.400s", err.msg);
        goto done;
    }
    if ((rc = pager_begin(p, 0, &rt, &err))) {
        fail(R, rc, "%s", err.msg);
        goto done;
    }
    table_desc td = ts->td->desc;
    td.col_root = R->tmp_root;
    td.cache = NULL; /* its row group ids are the damaged file's: keep them out of the cache */
    R->ngroups = 0;
    btree_salvage_fns groups = {.entry = group_entry, .arg = R};
    btree_salvage(rt, td.col_root, &groups);
    R->cur = ts;
    if (!begin_copy(R) && !sink_open(R, ts)) {
        for (uint32_t g = 0; g < R->ngroups && !R->fatal; g++) copy_group(R, ts, rt, &td, R->gfirst[g], R->glast[g]);
        sink_close(R, ts);
        if (!R->fatal) end_copy(R);
    }
    pager_rollback(rt);
done:
    pager_close(p);
    vfs_remove(v, tmp_path, NULL);
    vfs_remove(v, tmp_wal, NULL);
}

static void copy_damaged_columns(rec *R) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < R->nts; i++) n += R->ts[i].coltree_lost && R->ts[i].made;
    for (uint32_t i = 0; i < R->nts && !R->fatal; i++)
        if (R->ts[i].coltree_lost && R->ts[i].made) rebuild_columns(R, &R->ts[i], n == 1);
}

/* ---- the whole copy ------------------------------------------------------------------------- */

static void catalog_lost(void *arg, pgno_t pgno, const char *why) {
    (void)pgno;
    strata_recover_report *r = arg;
    if (!r->catalog_pages_lost++) snprintf(r->message, sizeof r->message, "%s", why); /* the first reason */
}

static void catalog_skipped(void *arg, const char *entry, const char *why) {
    (void)entry;
    (void)why;
    ((strata_recover_report *)arg)->definitions_lost++;
}

/* make_tables creates the tables in the new database, retrying those that fail while any
** succeeds; order[] gets the tables in the order they were made. */
static void make_tables(rec *R, uint32_t *order, uint32_t *nmade) {
    *nmade = 0;
    for (bool progress = true; progress;) {
        progress = false;
        for (uint32_t i = 0; i < R->nts; i++) {
            tstate *ts = &R->ts[i];
            if (ts->made || !ts->td->sql) continue;
            if (exec_atomic(R->out, ts->td->sql) == STRATA_OK) {
                ts->made = progress = true;
                order[(*nmade)++] = i;
            }
        }
    }
    for (uint32_t i = 0; i < R->nts; i++) R->ts[i].out->schema_failed = !R->ts[i].made;
}

/* make_views creates the views, retrying those that fail while any succeeds (a view on a view
** made later); the ones left count as lost definitions. */
static void make_views(rec *R) {
    catalog *c = R->cat;
    bool *made = calloc(c->nviews + 1, 1);
    if (!made) return (void)fail(R, STRATA_NOMEM, "%s", "out of memory");
    for (bool progress = true; progress;) {
        progress = false;
        for (uint32_t i = 0; i < c->nviews; i++)
            if (!made[i] && c->views[i]->sql && exec_atomic(R->out, c->views[i]->sql) == STRATA_OK)
                made[i] = progress = true;
    }
    for (uint32_t i = 0; i < c->nviews; i++) R->r->definitions_lost += !made[i];
    free(made);
}

int recover_copy(pager *p, catalog *cat, struct segcache *segs, const char *new_path, strata_recover_report *r) {
    rec R = {.r = r, .new_path = new_path};
    strata_err err;
    err_clear(&err);
    catalog own = {0};
    bool own_used = false;
    if (access(new_path, F_OK) == 0) {
        snprintf(r->message, sizeof r->message, "%s already exists: recovery writes a new database", new_path);
        return STRATA_ERROR;
    }
    int rc = pager_begin(p, 0, &R.t, &err);
    if (rc) {
        snprintf(r->message, sizeof r->message, "%s", err.msg);
        return rc;
    }
    if (!cat) {
        own_used = true;
        own.segs = segs;
        if ((rc = catalog_load(&own, R.t, &err))) {
            if (rc == STRATA_NOMEM) goto done;
            err_clear(&err);
            err_clear(pager_txn_err(R.t));
            own.segs = segs;
            if ((rc = catalog_salvage(&own, R.t, catalog_lost, catalog_skipped, r, &err))) goto done;
            if (!own.ntables) {
                char why[sizeof r->message];
                snprintf(why, sizeof why, "%s", r->message[0] ? r->message : "no definition loads");
                snprintf(r->message, sizeof r->message,
                         "the catalog is unreadable (%.400s): no table definition survives, nothing can be recovered",
                         why);
                rc = STRATA_CORRUPT;
                goto done;
            }
            r->message[0] = 0;
        }
        cat = &own;
    }
    R.cat = cat;
    R.npages = pager_page_count(R.t);
    R.nts = cat->ntables;
    R.reached = calloc(R.npages / 8 + 1, 1);
    R.ts = calloc(R.nts + 1, sizeof *R.ts);
    r->tables = calloc(R.nts + 1, sizeof *r->tables);
    uint32_t *order = calloc(R.nts + 1, sizeof *order), widest = 1;
    for (uint32_t i = 0; i < R.nts; i++) widest = cat->tables[i]->ncols > widest ? cat->tables[i]->ncols : widest;
    R.cols = malloc(widest * sizeof *R.cols);
    if (!R.reached || !R.ts || !r->tables || !order || !R.cols) {
        free(order);
        rc = err_set(&err, STRATA_NOMEM, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < widest; i++) R.cols[i] = i;
    r->ntables = (int)R.nts;
    for (uint32_t i = 0; i < R.nts; i++) {
        R.ts[i].td = cat->tables[i];
        R.ts[i].out = &r->tables[i];
        if (!(r->tables[i].name = strdup(cat->tables[i]->name))) {
            free(order);
            rc = err_set(&err, STRATA_NOMEM, "out of memory");
            goto done;
        }
    }
    /* what the catalog, the indexes and the free list reach is not an orphan */
    btree_salvage_fns only_mark = {.visit = mark, .arg = &R};
    pgno_t croot = (pgno_t)pager_meta_get(R.t, CATALOG_ROOT_SLOT);
    if (croot) btree_salvage(R.t, croot, &only_mark);
    for (uint32_t i = 0; i < cat->nindexes; i++) btree_salvage(R.t, cat->indexes[i]->root, &only_mark);
    pager_freelist_walk(R.t, mark_free, &R);
    err_clear(pager_txn_err(R.t));

    if ((rc = strata_open(new_path, &R.out))) {
        snprintf(r->message, sizeof r->message, "cannot create %s: %s", new_path, strata_errmsg(R.out));
        free(order);
        goto done;
    }
    uint32_t nmade;
    make_tables(&R, order, &nmade);
    for (uint32_t k = 0; k < nmade && !R.fatal; k++) copy_table(&R, &R.ts[order[k]]);
    for (uint32_t i = 0; i < R.nts; i++) /* the trees of tables not made hold no orphans either */
        if (!R.ts[i].made) {
            btree_salvage(R.t, R.ts[i].td->root, &only_mark);
            if (R.ts[i].td->desc.col_root) btree_salvage(R.t, R.ts[i].td->desc.col_root, &only_mark);
        }
    err_clear(pager_txn_err(R.t));
    if (!R.fatal) copy_orphans(&R);
    if (!R.fatal) copy_damaged_columns(&R);
    free(order);
    for (uint32_t i = 0; i < cat->nindexes && !R.fatal; i++) {
        index_def *ix = cat->indexes[i];
        if (ix->constraint) continue; /* made with its table */
        if (!ix->sql || exec_atomic(R.out, ix->sql)) r->definitions_lost++;
    }
    if (!R.fatal) make_views(&R);
    rc = R.fatal;
done:
    if (rc && !r->message[0]) snprintf(r->message, sizeof r->message, "%s", err.code ? err.msg : strata_errstr(rc));
    if (R.out && strata_close(R.out) && !rc) {
        rc = STRATA_IOERR;
        snprintf(r->message, sizeof r->message, "closing %s failed", new_path);
    }
    for (uint32_t i = 0; R.ts && i < R.nts; i++) {
        if (R.ts[i].sk.open) { /* only after a fatal error */
            chunk_free(&R.ts[i].sk.ch);
            record_plan_free(&R.ts[i].sk.plan);
        }
        free(R.ts[i].ids.v);
    }
    free(R.ts);
    free(R.reached);
    free(R.cols);
    free(R.gfirst);
    free(R.glast);
    pager_rollback(R.t);
    if (own_used) catalog_free(&own);
    return rc;
}
