/*
** group_merge.c -- merging the workers' group tables of a parallel sink (GROUP BY, DISTINCT, the
** set operations; operator.h): each worker's node found its rows' groups in a table of its own
** (vec_groups), and the sink's combine adds them to the run's node's groups, on the run's thread
** while they are few, or by partition on the pool when more. The sink says what a group carries
** besides its keys (aggregate states, counts per side) through groups_merge.add.
*/
#include "exec/operator.h"

#include <stdlib.h>
#include <string.h>

/* merge_rows finds or adds groups sel[0..m) of chunk `first` of worker table i (sel NULL: the
** chunk's first m groups) in the table to, and has m->add add what they carry to into's. A table
** without keys has one group. */
static int merge_rows(exec_ctx *x, const groups_merge *m, void *into, vec_groups *to, unsigned i, uint32_t first,
                      const sel_t *sel, uint32_t n, vector *tmp) {
    const vec_groups *from = m->from[i];
    uint32_t nk = from->keys.ncols, gids[VECTOR_SIZE];
    if (nk) {
        const data_chunk *ch = vec_rows_chunk(&from->keys, first);
        vector *cols[nk];
        uint64_t h[VECTOR_SIZE];
        for (uint32_t k = 0; k < nk; k++) {
            vec_slice(&tmp[k], &ch->cols[k], sel, n);
            cols[k] = &tmp[k];
        }
        int rc = vec_groups_find_or_add(to, cols, n, gids, NULL, h, x->err);
        if (rc) return rc;
    } else {
        to->ngroups = 1;
        memset(gids, 0, n * sizeof *gids);
    }
    return m->add(x, m->arg, into, i, first, sel, n, gids);
}

int exec_groups_merge(exec_ctx *x, const groups_merge *m, void *into, vec_groups *to) {
    vector tmp[to->keys.ncols + 1];
    int rc = exec_key_vectors(x, to->keys.types, to->keys.ncols, tmp);
    if (rc) return rc;
    for (unsigned i = 0; i < m->n && !rc; i++)
        for (uint32_t first = 0; first < m->from[i]->ngroups && !rc; first += VECTOR_SIZE) {
            uint32_t n = m->from[i]->ngroups - first < VECTOR_SIZE ? m->from[i]->ngroups - first : VECTOR_SIZE;
            rc = merge_rows(x, m, into, to, i, first, NULL, n, tmp);
        }
    exec_key_vectors_free(tmp, to->keys.ncols);
    return rc;
}

typedef struct merge_job {
    exec_ctx *x;
    const groups_merge *m;
    uint64_t *entries; /* partition k's groups: entries[start[k] .. start[k + 1]), each worker << 32 |
                       ** group, in order */
    uint64_t *start;
} merge_job;

/* group_parts sets part[i][g] to the partition of group g of worker i: for one integer key its
** range's share (so that a partition's keys stay dense, for the group table's direct map), else
** bits of the hash of the keys that tell groups apart (the low ones: the group tables place a
** group by the top ones, which a partition's groups would all share). */
static int group_parts(exec_ctx *x, vec_groups *const *ls, unsigned n, uint8_t **part) {
    const uint32_t nparts = GROUPS_PARTS;
    bool by_range = true;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (unsigned i = 0; i < n; i++) {
        const vec_groups *g = ls[i];
        by_range &= g->int_key;
        for (uint32_t k = 0; by_range && k < g->ngroups; k++)
            if (k != g->null_gid) lo = g->ikeys[k] < lo ? g->ikeys[k] : lo, hi = g->ikeys[k] > hi ? g->ikeys[k] : hi;
    }
    uint64_t width = lo <= hi ? ((uint64_t)hi - (uint64_t)lo) / nparts + 1 : 1;
    uint64_t h[VECTOR_SIZE];
    for (unsigned i = 0; i < n; i++) {
        const vec_groups *g = ls[i];
        if (!(part[i] = malloc(g->ngroups + 1))) return exec_nomem(x);
        for (uint32_t first = 0; first < g->ngroups; first += VECTOR_SIZE) {
            uint32_t m = g->ngroups - first < VECTOR_SIZE ? g->ngroups - first : VECTOR_SIZE;
            if (by_range) {
                for (uint32_t r = first; r < first + m; r++)
                    part[i][r] = r == g->null_gid ? 0 : (uint8_t)(((uint64_t)g->ikeys[r] - (uint64_t)lo) / width);
                continue;
            }
            const data_chunk *ch = vec_rows_chunk(&g->keys, first);
            vec_hash(&ch->cols[0], NULL, m, h);
            for (uint32_t k = 1; k < g->nhash; k++) vec_hash_combine(&ch->cols[k], NULL, m, h);
            for (uint32_t r = 0; r < m; r++) part[i][first + r] = (uint8_t)(h[r] & (nparts - 1));
        }
    }
    return STRATA_OK;
}

static int merge_parts(void *arg, pool_worker *w, uint64_t begin, uint64_t end) {
    merge_job *j = arg;
    const groups_merge *m = j->m;
    exec_ctx x = *j->x;
    x.err = &w->err;
    vector tmp[m->from[0]->keys.ncols + 1];
    int rc = exec_key_vectors(&x, m->from[0]->keys.types, m->from[0]->keys.ncols, tmp);
    if (rc) return rc;
    for (uint64_t part = begin; part < end && !rc; part++) {
        uint64_t lo = j->start[part], hi = j->start[part + 1];
        unsigned w0 = lo < hi ? (unsigned)(j->entries[lo] >> 32) : 0;
        if (m->one && (lo == hi || j->entries[hi - 1] >> 32 == w0)) { /* one worker's (by worker, in order) */
            rc = m->one(&x, m->arg, (uint32_t)part, w0, lo, hi - lo);
            continue;
        }
        void *into;
        vec_groups *to;
        if ((rc = m->part(&x, m->arg, (uint32_t)part, &into, &to))) break;
        for (uint64_t e = lo; e < hi && !rc;) {
            uint32_t i = (uint32_t)(j->entries[e] >> 32), first = (uint32_t)j->entries[e] / VECTOR_SIZE * VECTOR_SIZE, n = 0;
            sel_t sel[VECTOR_SIZE];
            for (; e < hi && j->entries[e] >> 32 == i && (uint32_t)j->entries[e] - first < VECTOR_SIZE; e++)
                sel[n++] = (sel_t)((uint32_t)j->entries[e] - first);
            rc = merge_rows(&x, m, into, to, i, first, sel, n, tmp);
        }
        if (!rc && m->done) rc = m->done(&x, m->arg, (uint32_t)part, into);
    }
    exec_key_vectors_free(tmp, m->from[0]->keys.ncols);
    return rc;
}

int exec_groups_merge_parts(exec_ctx *x, const groups_merge *m) {
    const uint32_t nparts = GROUPS_PARTS;
    unsigned n = m->n;
    uint64_t groups = 0;
    for (unsigned i = 0; i < n; i++) groups += m->from[i]->ngroups;
    uint8_t *part[n + 1];
    memset(part, 0, sizeof part);
    uint64_t start[nparts + 1], fill[nparts];
    merge_job j = {.x = x, .m = m, .start = start, .entries = malloc((groups + 1) * sizeof(uint64_t))};
    int rc = j.entries ? group_parts(x, m->from, n, part) : exec_nomem(x);
    if (!rc && m->prepare) rc = m->prepare(x, m->arg, part);
    if (!rc) {
        memset(start, 0, sizeof start);
        for (unsigned i = 0; i < n; i++)
            for (uint32_t k = 0; k < m->from[i]->ngroups; k++) start[part[i][k] + 1]++;
        for (uint32_t k = 0; k < nparts; k++) start[k + 1] += start[k], fill[k] = start[k];
        for (unsigned i = 0; i < n; i++)
            for (uint32_t k = 0; k < m->from[i]->ngroups; k++) j.entries[fill[part[i][k]]++] = (uint64_t)i << 32 | k;
        pool_job job = {.total = nparts, .morsel = 1, .run_morsel = merge_parts, .arg = &j, .interrupt = x->interrupt};
        rc = exec_pool_run(x, &job);
    }
    for (unsigned i = 0; i < n; i++) free(part[i]);
    if (m->entries) *m->entries = j.entries; /* the one partitions' groups are there */
    else free(j.entries);
    return rc;
}
