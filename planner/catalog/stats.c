/*
** stats.c -- gathering, merging and storing table statistics (see stats.h).
**
** A column's summary (NULLs, range, sketch) is core/colstats.h's.
*/
#include "catalog/stats.h"

#include <stdlib.h>
#include <string.h>

#include "../../colstore/rowgroup.h"
#include "catalog/catalog.h"
#include "exec/exec.h"

/* The stored form's version: bump it when the layout or colstats_hash changes. */
#define STATS_FORMAT 1

static size_t stats_size(uint32_t ncols);

table_stats *stats_new(uint32_t ncols) {
    table_stats *s = calloc(1, stats_size(ncols));
    if (!s) return NULL;
    s->ncols = ncols;
    s->max_rowid = INT64_MIN;
    return s;
}

void stats_free(table_stats *s) { free(s); }

static size_t stats_size(uint32_t ncols) { return sizeof(table_stats) + (size_t)ncols * sizeof(column_stats); }

table_stats *stats_copy(const table_stats *s) {
    table_stats *c = malloc(stats_size(s->ncols));
    if (c) memcpy(c, s, stats_size(s->ncols));
    return c;
}

/* finish computes the distinct estimates, which the sketches alone do not bound. */
static void finish(table_stats *s) {
    for (uint32_t i = 0; i < s->ncols; i++) {
        column_stats *c = &s->cols[i];
        double nonnull = (double)(s->rows - c->nulls);
        c->distinct = hll_estimate(&c->sketch);
        if (c->distinct > nonnull) c->distinct = nonnull > 0 ? nonnull : 0;
    }
}

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
    if (!rc) finish(s);
    return rc;
}

/* ---- the strata_stats relation ----------------------------------------------------------------- */

const char *const STATS_RELATION_NAMES[STATS_RELATION_COLS] = {"table_name", "column_name",    "rows", "null_count",
                                                               "distinct_count", "min", "max"};
const uint8_t STATS_RELATION_TYPES[STATS_RELATION_COLS] = {TYPE_VARCHAR, TYPE_VARCHAR, TYPE_BIGINT, TYPE_BIGINT,
                                                           TYPE_BIGINT,  TYPE_VARCHAR, TYPE_VARCHAR};

void stats_relation_row(const table_def *td, uint32_t col, sql_value out[STATS_RELATION_COLS]) {
    for (int i = 0; i < STATS_RELATION_COLS; i++) out[i] = value_null(sql_type_make(STATS_RELATION_TYPES[i]));
    out[0] = value_text(td->name, (uint32_t)strlen(td->name));
    out[1] = value_text(td->cols[col].name, (uint32_t)strlen(td->cols[col].name));
    const table_stats *s = td->stats;
    if (!s) return;
    const column_stats *c = &s->cols[col];
    out[2] = value_int(TYPE_BIGINT, s->rows);
    out[3] = value_int(TYPE_BIGINT, c->nulls);
    out[4] = value_int(TYPE_BIGINT, (int64_t)(c->distinct + 0.5));
    if (c->has_range) {
        out[5] = value_text(c->min, (uint32_t)strlen(c->min));
        out[6] = value_text(c->max, (uint32_t)strlen(c->max));
    }
}

/* ---- stored form ----------------------------------------------------------------------------
** u8 STATS_FORMAT, u8 HLL_BITS, u32 columns, i64 rows, i64 max_rowid, then each column's stored
** form (colstats_put). Little-endian. */

static void put_u64(uint8_t *p, uint64_t x) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(x >> (8 * i));
}

static uint64_t get_u64(const uint8_t *p) {
    uint64_t x = 0;
    for (int i = 0; i < 8; i++) x |= (uint64_t)p[i] << (8 * i);
    return x;
}

#define STATS_HEADER 22

uint8_t *stats_encode(const table_stats *s, size_t *len) {
    size_t n = STATS_HEADER;
    for (uint32_t i = 0; i < s->ncols; i++) n += colstats_put(&s->cols[i], NULL);
    uint8_t *p = malloc(n);
    if (!p) return NULL;
    p[0] = STATS_FORMAT;
    p[1] = HLL_BITS;
    for (int i = 0; i < 4; i++) p[2 + i] = (uint8_t)(s->ncols >> (8 * i));
    put_u64(p + 6, (uint64_t)s->rows);
    put_u64(p + 14, (uint64_t)s->max_rowid);
    size_t at = STATS_HEADER;
    for (uint32_t i = 0; i < s->ncols; i++) at += colstats_put(&s->cols[i], p + at);
    *len = n;
    return p;
}

table_stats *stats_decode(const uint8_t *p, size_t n, uint32_t ncols) {
    if (n < STATS_HEADER || p[0] != STATS_FORMAT || p[1] != HLL_BITS) return NULL;
    uint32_t nc = (uint32_t)p[2] | (uint32_t)p[3] << 8 | (uint32_t)p[4] << 16 | (uint32_t)p[5] << 24;
    if (nc != ncols) return NULL;
    table_stats *s = stats_new(ncols);
    if (!s) return NULL;
    s->rows = (int64_t)get_u64(p + 6);
    s->max_rowid = (int64_t)get_u64(p + 14);
    const uint8_t *at = p + STATS_HEADER, *end = p + n;
    for (uint32_t i = 0; i < ncols && at; i++) at = colstats_get(&s->cols[i], at, end);
    if (!at || at != end || s->rows < 0) {
        stats_free(s);
        return NULL;
    }
    finish(s);
    return s;
}
