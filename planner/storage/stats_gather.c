/*
** stats_gather.c -- a table's statistics gathered from its row groups' stored statistics and a
** scan of its other rows (stats_gather.h).
*/
#include "storage/stats_gather.h"

#include <stdlib.h>

#include "../../colstore/rowgroup.h"
#include "../../vector/vector.h"
#include "catalog/catalog.h"

/* The row groups whose stored statistics stats_scan merged instead of reading their rows. */
typedef struct merged {
    pager_txn *t;
    const table_def *td;
    table_stats *s;
    column_stats *group; /* [ncols]: one group's */
    int64_t above;       /* the watermark: groups starting above it are new */
    int64_t last;        /* the largest rowid merged */
    int64_t *firsts;     /* their first rowids, ascending */
    uint32_t n, cap;
} merged;

/* merge_group folds the stored statistics of row group d into the table's when they describe
** its rows exactly: no row deleted since, the table's columns, all above the watermark. */
static int merge_group(void *arg, const rowgroup_desc *d) {
    merged *m = arg;
    if (d->deleted || d->ncols != m->td->ncols || d->first <= m->above) return STRATA_OK;
    int found, rc = rowgroup_stats(m->t, &m->td->desc, d, m->group, &found);
    if (rc || !found) return rc;
    if (m->n == m->cap) {
        uint32_t cap = m->cap ? 2 * m->cap : 64;
        int64_t *f = realloc(m->firsts, cap * sizeof *f);
        if (!f) return err_set(pager_txn_err(m->t), STRATA_NOMEM, "out of memory");
        m->firsts = f;
        m->cap = cap;
    }
    m->firsts[m->n++] = d->first;
    for (uint32_t i = 0; i < m->td->ncols; i++) colstats_merge(&m->s->cols[i], &m->group[i]);
    m->s->rows += d->rows;
    if (d->last > m->last) m->last = d->last;
    return STRATA_OK;
}

/* summarize adds the values gathered in b (one builder per column of s) to s and empties them. */
static void summarize(segment_builder *b, table_stats *s) {
    for (uint32_t k = 0; k < s->ncols; k++) {
        segment_builder_stats(&b[k], &s->cols[k]);
        segment_builder_reset(&b[k]);
    }
}

int stats_scan(pager_txn *t, const table_def *td, table_stats *s, strata_err *err) {
    uint32_t n = td->ncols;
    uint32_t *cols = malloc((n ? n : 1) * sizeof *cols);
    int64_t *rowids = malloc(VECTOR_SIZE * sizeof *rowids);
    data_chunk ch = {0};
    table_scan *sc = NULL;
    merged m = {.t = t, .td = td, .s = s, .group = malloc((n ? n : 1) * sizeof *m.group), .above = s->max_rowid,
                .last = INT64_MIN};
    segment_builder *b = calloc(n ? n : 1, sizeof *b);
    int rc = STRATA_OK;
    if (!cols || !rowids || !m.group || !b) {
        rc = err_set(err, STRATA_NOMEM, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < n; i++) cols[i] = i;
    for (uint32_t k = 0; k < n && !rc; k++) rc = segment_builder_init(&b[k], td->types[k], err);
    if (rc) goto done;
    if ((rc = chunk_init(&ch, td->types, n, err))) goto done;
    int64_t lo = s->max_rowid == INT64_MIN ? INT64_MIN : s->max_rowid + 1;
    if (s->max_rowid == INT64_MAX) goto done; /* nothing can be above */
    /* the row groups that kept statistics count without being read; the other rows are read */
    if ((rc = rowgroup_foreach(t, &td->desc, merge_group, &m)) ||
        (rc = table_scan_open(t, &td->desc, cols, n, lo, INT64_MAX, &sc))) {
        err_set(err, rc, "%s", pager_txn_err(t)->msg);
        goto done;
    }
    table_scan_skip_groups(sc, m.firsts, m.n);
    for (;;) {
        chunk_reset(&ch);
        if ((rc = table_scan_next(sc, &ch, rowids))) {
            err_set(err, rc, "%s", pager_txn_err(t)->msg);
            break;
        }
        if (!ch.count) break;
        /* the values gather in segment builders, whose typed arrays are summarized at once */
        if (segment_builder_rows(&b[0]) + ch.count > SEGMENT_MAX_ROWS) summarize(b, s);
        for (uint32_t k = 0; k < n && !rc; k++) rc = segment_builder_append(&b[k], &ch.cols[k], ch.sel, ch.count, err);
        if (rc) break;
        s->rows += ch.count;
        for (uint32_t r = 0; r < ch.count; r++)
            if (rowids[r] > s->max_rowid) s->max_rowid = rowids[r];
    }
    if (m.last > s->max_rowid) s->max_rowid = m.last;
    if (!rc) summarize(b, s);
done:
    if (sc) table_scan_close(sc);
    free(m.firsts);
    free(m.group);
    for (uint32_t k = 0; b && k < n; k++) segment_builder_free(&b[k]);
    free(b);
    chunk_free(&ch);
    free(rowids);
    free(cols);
    if (!rc) stats_finish(s);
    return rc;
}
