/*
** stats.c -- table statistics in memory and in their stored form (see stats.h); gathering them
** from the stores is storage/stats_gather.c's.
**
** A column's summary (NULLs, range, sketch) is core/colstats.h's.
*/
#include "catalog/stats.h"

#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"

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

void stats_finish(table_stats *s) {
    for (uint32_t i = 0; i < s->ncols; i++) {
        column_stats *c = &s->cols[i];
        double nonnull = (double)(s->rows - c->nulls);
        c->distinct = hll_estimate(&c->sketch);
        if (c->distinct > nonnull) c->distinct = nonnull > 0 ? nonnull : 0;
    }
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
    stats_finish(s);
    return s;
}
