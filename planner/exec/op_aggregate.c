/*
** op_aggregate.c -- hash aggregation (GROUP BY and ungrouped aggregates): the sink of its input
** and the source of its groups (operator.h). Groups are found through the keys' dictionaries or
** a direct array for a narrow integer key before the hash table (vec_groups); the sums, counts,
** minima and maxima are updated by the SIMD kernels where a vector allows.
*/
#include "exec/operator.h"

#include "bigmem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../vector/kernel.h"

/* One aggregate's state in one group, by the aggregate's kind: counts keep an int64_t; sums and
** averages of integers and DECIMALs an isum_slot, of DOUBLEs a dsum_slot; MIN and MAX a
** best_slot (best valid once count > 0: the values seen). Each aggregate keeps its states in an
** array by group (agg_states) of just its kind's size: a GROUP BY of millions of groups counting
** rows keeps 8 bytes a group. Every kind begins with the count. */
typedef struct isum_slot {
    int64_t count;
    int128 sum;
} isum_slot;

typedef struct dsum_slot {
    int64_t count;
    double sum;
} dsum_slot;

typedef struct best_slot {
    int64_t count;
    sql_value best;
} best_slot;

typedef struct agg_states {
    char *base;   /* cap_slots states of width bytes */
    uint32_t width;
} agg_states;

/* Group keys that are all column-segment dictionaries (vector.h's dict_id) map to groups through
** their indexes: the indexes of a row's keys combine into one number below the product of the
** dictionaries' sizes, and gid[] of that number is the group (+ 1; 0 not looked up yet). The map
** serves one set of dictionaries (a row group) and starts again when they change. */
#define DICT_KEYS_MAX 4
#define DICT_MAP_MAX 65536

typedef struct dict_map {
    uint64_t ids[DICT_KEYS_MAX]; /* the dictionaries mapped, one per key */
    uint32_t size, cap;
    uint32_t *gid;
    uint32_t *combined;      /* scratch: each row's combined index */
    vector tmp[DICT_KEYS_MAX]; /* the keys of the rows looked up (slices) */
    bool ready;              /* tmp initialized */
} dict_map;

/* A single integer key whose values span at most DICT_MAP_MAX numbers maps to groups through a
** direct array too: gid[value - base] (+ 1; 0 not looked up yet). */
typedef struct range_map {
    int64_t base;
    uint32_t size; /* values base .. base + size - 1 are mapped */
    uint32_t *gid;
    bool given_up; /* a chunk's key was not such: hashed from then on */
} range_map;

struct agg_state;

/* A partition of a parallel run's groups (agg_combine): the groups of one worker are a list of
** groups of that worker's table, entries[first .. end) of the run's node (low 32 bits); groups of
** several workers' are merged into a table of its own. */
typedef struct agg_slice {
    struct agg_state *merged; /* NULL: the groups of worker `worker` */
    uint32_t worker;
    uint64_t first, end, emitted;
} agg_slice;

typedef struct agg_state {
    vec_groups groups;
    dict_map dict;
    range_map range;
    agg_states *st; /* per aggregate */
    uint32_t cap_slots; /* groups each aggregate's states have room for */
    vec_groups *distinct; /* per aggregate with DISTINCT: (group, value) pairs seen */
    arena strings;         /* MIN/MAX strings */
    uint32_t *gids;
    uint8_t *is_new;
    uint64_t *hashes;
    uint32_t emitted;      /* source: groups output so far */
    bool done;
    /* a parallel run's groups by partition (agg_combine): the source outputs these, part by part,
    ** instead; the workers' tables the parts list groups of are kept, donors[i] worker i's */
    agg_slice *parts;
    uint32_t nparts, emit_part;
    struct agg_state **donors;
    uint32_t ndonors;
    uint64_t *entries; /* the partitions' groups, each worker << 32 | group, by partition */
    /* a worker's node outputting partition view_part of the run's node view_of (agg_open_morsel):
    ** nothing else of it is set */
    struct agg_state *view_of;
    uint32_t view_part;
} agg_state;
/* ---- aggregate ---------------------------------------------------------------------------- */

static void agg_state_free(const plan_op *p, agg_state *s);

/* agg_state_new makes an empty aggregation: its group table and each aggregate's states. */
static int agg_state_new(exec_ctx *x, const plan_op *p, agg_state **out) {
    agg_state *s = *out = calloc(1, sizeof *s);
    if (!s) return exec_nomem(x);
    arena_init(&s->strings, 0);
    s->gids = malloc(VECTOR_SIZE * sizeof *s->gids);
    s->is_new = malloc(VECTOR_SIZE);
    s->hashes = malloc(VECTOR_SIZE * sizeof *s->hashes);
    s->st = calloc(p->agg.naggs + 1, sizeof *s->st);
    if (!s->gids || !s->is_new || !s->hashes || !s->st) return exec_nomem(x);
    for (uint32_t a = 0; a < p->agg.naggs; a++) {
        const agg_expr *ag = &p->agg.aggs[a];
        agg_states *st = &s->st[a];
        if (ag->fn == AGG_COUNT_STAR || ag->fn == AGG_COUNT) st->width = sizeof(int64_t);
        else if (ag->fn == AGG_MIN || ag->fn == AGG_MAX) st->width = sizeof(best_slot);
        else if (vec_phys_of(ag->arg->type.id) == PHYS_F64) st->width = sizeof(dsum_slot);
        else st->width = sizeof(isum_slot);
    }
    sql_type kt[p->agg.nkeys + 1];
    for (uint32_t k = 0; k < p->agg.nkeys; k++) kt[k] = p->agg.keys[k]->type;
    int rc = exec_groups_init(x, &s->groups, kt, p->agg.nkeys);
    if (rc) return rc;
    if (p->agg.nhash) vec_groups_identify(&s->groups, p->agg.nhash);
    for (uint32_t a = 0; a < p->agg.naggs; a++) {
        agg_expr *ag = &p->agg.aggs[a];
        if (ag->distinct) {
            if (!s->distinct && !(s->distinct = calloc(p->agg.naggs, sizeof *s->distinct))) return exec_nomem(x);
            sql_type dt[2] = {sql_type_make(TYPE_INTEGER), ag->arg ? ag->arg->type : sql_type_make(TYPE_INTEGER)};
            if ((rc = exec_groups_init(x, &s->distinct[a], dt, 2))) return rc;
        }
    }
    return STRATA_OK;
}

static int agg_open(exec_ctx *x, op_node *nd) {
    agg_state *s = NULL;
    int rc = agg_state_new(x, nd->op, &s);
    nd->state = s;
    return rc;
}

static void agg_close(op_node *nd, bool keep) {
    (void)keep;
    agg_state *s = nd->state;
    if (s && s->view_of) free(s);
    else agg_state_free(nd->op, s);
    nd->state = NULL;
}

static void agg_state_free(const plan_op *p, agg_state *s) {
    if (!s) return;
    for (uint32_t i = 0; i < s->nparts && s->parts; i++) agg_state_free(p, s->parts[i].merged);
    free(s->parts);
    for (uint32_t i = 0; i < s->ndonors; i++) agg_state_free(p, s->donors[i]);
    free(s->donors);
    free(s->entries);
    vec_groups_free(&s->groups);
    if (s->distinct) {
        for (uint32_t a = 0; a < p->agg.naggs; a++) vec_groups_free(&s->distinct[a]);
        free(s->distinct);
    }
    arena_free(&s->strings);
    free(s->dict.gid);
    free(s->dict.combined);
    free(s->range.gid);
    if (s->dict.ready)
        for (uint32_t k = 0; k < p->agg.nkeys; k++) vec_free(&s->dict.tmp[k]);
    if (s->st)
        for (uint32_t a = 0; a < p->agg.naggs; a++) bigmem_free(s->st[a].base, (size_t)s->cap_slots * s->st[a].width);
    free(s->st);
    free(s->gids);
    free(s->is_new);
    free(s->hashes);
    free(s);
}

static inline void *slot_at(const agg_state *s, uint32_t a, uint32_t g) {
    return s->st[a].base + (size_t)g * s->st[a].width;
}

/* count_at is the count every kind of state begins with. */
static inline int64_t *count_at(const agg_state *s, uint32_t a, uint32_t g) { return slot_at(s, a, g); }

static int agg_ensure_slots(exec_ctx *x, agg_state *s, uint32_t naggs) {
    if (s->groups.ngroups <= s->cap_slots) return STRATA_OK;
    uint32_t nc = s->cap_slots ? s->cap_slots : 256;
    while (nc < s->groups.ngroups) nc *= 2;
    for (uint32_t a = 0; a < naggs; a++) {
        agg_states *st = &s->st[a];
        int rc = vec_rows_charge(&s->groups.keys, (size_t)(nc - s->cap_slots) * st->width, x->err);
        if (rc) return rc;
        char *n = bigmem_grow(st->base, (size_t)s->cap_slots * st->width, (size_t)nc * st->width);
        if (!n) return exec_nomem(x);
        st->base = n;
    }
    s->cap_slots = nc;
    return STRATA_OK;
}

/* AGG_SUM_LOOP adds the non-NULL values of v (element type T) to their groups' states, of type S. */
#define AGG_SUM_LOOP(T, S)                                                                               \
    do {                                                                                                 \
        const T *d = v->data;                                                                            \
        S *st = (S *)(void *)s->st[a].base;                                                              \
        for (uint32_t r = 0; r < count; r++) {                                                           \
            if (v->validity && vec_is_null(v, r)) continue;                                              \
            st[gids[r]].count++;                                                                         \
            st[gids[r]].sum += d[v->sel[r]];                                                             \
        }                                                                                                \
    } while (0)

/* agg_sum_one adds the non-NULL values of v to the one group's state of an aggregate without
** GROUP BY, through the sum kernels; false for a type they do not sum. */
static bool agg_sum_one(void *state, const vector *v, uint32_t count) {
    int64_t n;
    const sel_t *sel = kern_sel(v);
    isum_slot *is = state;
    dsum_slot *ds = state;
    switch ((vec_phys)v->phys) {
    case PHYS_I16: is->sum += kern_sum_i16(v->data, sel, v->validity, count, &n); break;
    case PHYS_I32: is->sum += kern_sum_i32(v->data, sel, v->validity, count, &n); break;
    case PHYS_I64: is->sum += kern_sum_i64(v->data, sel, v->validity, count, &n); break;
    case PHYS_F64: ds->sum += kern_sum_f64(v->data, sel, v->validity, count, &n); break;
    default: return false;
    }
    *(int64_t *)state += n;
    return true;
}

/* agg_minmax_one updates MIN or MAX of integers (and DATE, TIMESTAMP, DECIMAL: one column type,
** compared by their stored values) of an aggregate without GROUP BY through the min/max kernels;
** false for other types. */
static bool agg_minmax_one(best_slot *sl, agg_fn fn, const vector *v, uint32_t count) {
    int64_t lo, hi;
    uint32_t n;
    const sel_t *sel = kern_sel(v);
    switch ((vec_phys)v->phys) {
    case PHYS_I16: n = kern_minmax_i16(v->data, sel, v->validity, count, &lo, &hi); break;
    case PHYS_I32: n = kern_minmax_i32(v->data, sel, v->validity, count, &lo, &hi); break;
    case PHYS_I64: n = kern_minmax_i64(v->data, sel, v->validity, count, &lo, &hi); break;
    default: return false;
    }
    int64_t x = fn == AGG_MIN ? lo : hi;
    if (n && (!sl->count || (fn == AGG_MIN ? x < sl->best.v.i : x > sl->best.v.i))) {
        memset(&sl->best, 0, sizeof sl->best);
        sl->best.type = v->type;
        sl->best.v.i = x;
        sl->count = 1;
    }
    return true;
}

/* agg_few_groups updates aggregate a of a GROUP BY with at most KERN_GROUPS_MAX groups through
** the grouped-sum kernels: count(*), and count, sum and avg over numbers without a NULL in this
** chunk. rows[g] is the chunk's row count of group g. false: not such an aggregate (or values
** too large for the kernel's int64 lanes); agg_update does it. */
static bool agg_few_groups(const plan_op *p, agg_state *s, uint32_t a, const vector *v, uint32_t count,
                           const int64_t *rows) {
    agg_expr *ag = &p->agg.aggs[a];
    uint32_t ng = s->groups.ngroups;
    bool counts = ag->fn == AGG_COUNT_STAR || (ag->fn == AGG_COUNT && !v->validity);
    bool sums = (ag->fn == AGG_SUM || ag->fn == AGG_AVG) && !v->validity;
    if (ag->distinct || (!counts && !sums)) return false;
    if (sums) {
        int64_t acc[KERN_GROUPS_MAX];
        double dacc[KERN_GROUPS_MAX];
        const sel_t *sel = kern_sel(v);
        memset(acc, 0, ng * sizeof *acc);
        switch ((vec_phys)v->phys) {
        case PHYS_I16: kern_group_sum_i16(v->data, sel, s->gids, count, ng, acc); break;
        case PHYS_I32: kern_group_sum_i32(v->data, sel, s->gids, count, ng, acc); break;
        case PHYS_I64:
            if (!kern_group_sum_i64(v->data, sel, s->gids, count, ng, acc)) return false;
            break;
        case PHYS_F64:
            memset(dacc, 0, ng * sizeof *dacc);
            kern_group_sum_f64(v->data, sel, s->gids, count, ng, dacc);
            for (uint32_t g = 0; g < ng; g++) ((dsum_slot *)slot_at(s, a, g))->sum += dacc[g];
            break;
        default: return false;
        }
        if (v->phys != PHYS_F64)
            for (uint32_t g = 0; g < ng; g++) ((isum_slot *)slot_at(s, a, g))->sum += acc[g];
    }
    for (uint32_t g = 0; g < ng; g++) *count_at(s, a, g) += rows[g];
    return true;
}

/* agg_update_typed is agg_update for count(*), count, sum and avg over numbers (not DISTINCT), a
** loop per type with the dispatch outside it; false for the other aggregates. */
static bool agg_update_typed(const plan_op *p, agg_state *s, uint32_t a, const vector *v, const uint32_t *gids,
                             uint32_t count) {
    agg_fn fn = p->agg.aggs[a].fn;
    if (!p->agg.nkeys && (fn == AGG_SUM || fn == AGG_AVG)) return agg_sum_one(slot_at(s, a, 0), v, count);
    if (!p->agg.nkeys && (fn == AGG_MIN || fn == AGG_MAX)) return agg_minmax_one(slot_at(s, a, 0), fn, v, count);
    if (fn == AGG_COUNT_STAR || (fn == AGG_COUNT && !v->validity)) {
        int64_t *c = (int64_t *)(void *)s->st[a].base;
        for (uint32_t r = 0; r < count; r++) c[gids[r]]++;
        return true;
    }
    if (fn != AGG_SUM && fn != AGG_AVG) return false;
    switch ((vec_phys)v->phys) {
    case PHYS_I16: AGG_SUM_LOOP(int16_t, isum_slot); return true;
    case PHYS_I32: AGG_SUM_LOOP(int32_t, isum_slot); return true;
    case PHYS_I64: AGG_SUM_LOOP(int64_t, isum_slot); return true;
    case PHYS_F64: AGG_SUM_LOOP(double, dsum_slot); return true;
    default: return false;
    }
}

/* agg_best keeps val as MIN or MAX state sl when it beats what sl holds (strings copied into the
** aggregate's arena). */
static int agg_best(exec_ctx *x, agg_state *s, agg_fn fn, best_slot *sl, sql_value val) {
    int c = sl->count ? value_compare(&val, &sl->best) : 0;
    if (sl->count && (fn == AGG_MIN ? c >= 0 : c <= 0)) return STRATA_OK;
    if (val.type.id == TYPE_VARCHAR || val.type.id == TYPE_BLOB) {
        strata_err tmp;
        err_clear(&tmp);
        sstr cp;
        if (sstr_copy(&s->strings, sstr_data(&val.v.s), val.v.s.len, &cp, &tmp)) return exec_nomem(x);
        val.v.s = cp;
    }
    sl->best = val;
    sl->count = 1;
    return STRATA_OK;
}

static int agg_update(exec_ctx *x, const plan_op *p, agg_state *s, uint32_t a, vector *v, const uint32_t *gids,
                      uint32_t count) {
    agg_expr *ag = &p->agg.aggs[a];
    uint8_t *fresh = NULL;
    if (ag->distinct && v) {
        /* only the first (group, value) pair counts */
        vector g;
        sql_type it = sql_type_make(TYPE_INTEGER);
        int rc = vec_init(&g, it, x->err);
        if (rc) return rc;
        for (uint32_t r = 0; r < count; r++) ((int32_t *)g.data)[r] = (int32_t)gids[r];
        vector *cols[2] = {&g, v};
        uint32_t *dg = malloc(count * sizeof *dg);
        fresh = malloc(count);
        uint64_t *h = malloc(count * sizeof *h);
        rc = dg && fresh && h ? vec_groups_find_or_add(&s->distinct[a], cols, count, dg, fresh, h, x->err) : exec_nomem(x);
        free(dg);
        free(h);
        vec_free(&g);
        if (rc) {
            free(fresh);
            return rc;
        }
    }
    if (!fresh && agg_update_typed(p, s, a, v, gids, count)) return STRATA_OK;
    int rc = STRATA_OK;
    for (uint32_t r = 0; r < count && !rc; r++) {
        if (fresh && !fresh[r]) continue;
        void *sl = slot_at(s, a, gids[r]);
        if (ag->fn == AGG_COUNT_STAR) {
            (*(int64_t *)sl)++;
            continue;
        }
        if (vec_is_null(v, r)) continue;
        uint32_t i = v->sel[r];
        switch (ag->fn) {
        case AGG_COUNT: (*(int64_t *)sl)++; break;
        case AGG_SUM:
        case AGG_AVG:
            (*(int64_t *)sl)++;
            switch ((vec_phys)v->phys) {
            case PHYS_I16: ((isum_slot *)sl)->sum += ((const int16_t *)v->data)[i]; break;
            case PHYS_I32: ((isum_slot *)sl)->sum += ((const int32_t *)v->data)[i]; break;
            case PHYS_I64: ((isum_slot *)sl)->sum += ((const int64_t *)v->data)[i]; break;
            case PHYS_F64: ((dsum_slot *)sl)->sum += ((const double *)v->data)[i]; break;
            default: break;
            }
            break;
        default: {
            sql_value val;
            vec_get_value(v, r, &val);
            rc = agg_best(x, s, ag->fn, sl, val);
            break;
        }
        }
    }
    free(fresh);
    return rc;
}

/* map_scratch makes the dict_map's scratch (each row's combined index, the key slices) once. */
static int map_scratch(exec_ctx *x, dict_map *m, vector **keys, uint32_t nk) {
    if (m->ready) return STRATA_OK;
    if (!m->combined && !(m->combined = malloc(VECTOR_SIZE * sizeof *m->combined))) return exec_nomem(x);
    for (uint32_t k = 0; k < nk; k++) {
        int rc = vec_init(&m->tmp[k], keys[k]->type, x->err);
        if (rc) {
            for (uint32_t j = 0; j < k; j++) vec_free(&m->tmp[j]);
            return rc;
        }
    }
    m->ready = true;
    return STRATA_OK;
}

/* map_lookup sets s->gids from each row's combined index c[i] through gid[] (group + 1, 0 not
** looked up yet), looking up in the group table only the first row of each index not mapped. */
static int map_lookup(exec_ctx *x, agg_state *s, vector **keys, uint32_t nk, const uint32_t *c, uint32_t *gid,
                      uint32_t count) {
    sel_t miss[VECTOR_SIZE];
    uint32_t nmiss = 0;
    for (uint32_t i = 0; i < count; i++)
        if (!gid[c[i]]) {
            gid[c[i]] = UINT32_MAX; /* looked up below, once */
            miss[nmiss++] = i;
        }
    if (nmiss) {
        vector *cols[DICT_KEYS_MAX];
        for (uint32_t k = 0; k < nk; k++) {
            vec_slice(&s->dict.tmp[k], keys[k], miss, nmiss);
            cols[k] = &s->dict.tmp[k];
        }
        int rc = vec_groups_find_or_add(&s->groups, cols, nmiss, s->gids, NULL, s->hashes, x->err);
        if (rc) {
            for (uint32_t j = 0; j < nmiss; j++) gid[c[miss[j]]] = 0;
            return rc;
        }
        for (uint32_t j = 0; j < nmiss; j++) gid[c[miss[j]]] = s->gids[j] + 1;
    }
    for (uint32_t i = 0; i < count; i++) s->gids[i] = gid[c[i]] - 1;
    return STRATA_OK;
}

/* dict_groups sets s->gids of rows whose keys are all dictionaries through the dict_map. *done
** false: the keys are not such (or their combinations too many), and the caller hashes them. */
static int dict_groups(exec_ctx *x, const plan_op *p, agg_state *s, vector **keys, uint32_t count, bool *done) {
    uint32_t nk = p->agg.nkeys;
    *done = false;
    if (nk > DICT_KEYS_MAX) return STRATA_OK;
    uint64_t size = 1;
    for (uint32_t k = 0; k < nk; k++) {
        if (!keys[k]->dict_id || keys[k]->kind != VEC_DICTIONARY) return STRATA_OK;
        if ((size *= keys[k]->dict_size) > DICT_MAP_MAX) return STRATA_OK;
    }
    dict_map *m = &s->dict;
    int rc = map_scratch(x, m, keys, nk);
    if (rc) return rc;
    bool same = m->size == size;
    for (uint32_t k = 0; k < nk && same; k++) same = m->ids[k] == keys[k]->dict_id;
    if (!same) {
        if (size > m->cap) {
            uint32_t *g = realloc(m->gid, size * sizeof *g);
            if (!g) return exec_nomem(x);
            m->gid = g, m->cap = (uint32_t)size;
        }
        memset(m->gid, 0, size * sizeof *m->gid);
        for (uint32_t k = 0; k < nk; k++) m->ids[k] = keys[k]->dict_id;
        m->size = (uint32_t)size;
    }
    uint32_t *c = m->combined;
    memcpy(c, keys[0]->sel, count * sizeof *c);
    for (uint32_t k = 1; k < nk; k++) {
        const sel_t *sel = keys[k]->sel;
        uint32_t w = keys[k]->dict_size;
        for (uint32_t i = 0; i < count; i++) c[i] = c[i] * w + sel[i];
    }
    if ((rc = map_lookup(x, s, keys, nk, c, m->gid, count))) return rc;
    *done = true;
    return STRATA_OK;
}

/* key_range sets [*lo, *hi] to the range of integer key v's values; false when v is not such a
** key (another type, or a NULL among them: NULL keys are hashed). */
static bool key_range(const vector *v, uint32_t count, int64_t *lo, int64_t *hi) {
    if (v->validity || !count) return false;
    const sel_t *sel = kern_sel(v);
    switch ((vec_phys)v->phys) {
    case PHYS_I16: return kern_minmax_i16(v->data, sel, NULL, count, lo, hi) != 0;
    case PHYS_I32: return kern_minmax_i32(v->data, sel, NULL, count, lo, hi) != 0;
    case PHYS_I64: return kern_minmax_i64(v->data, sel, NULL, count, lo, hi) != 0;
    default: return false;
    }
}

/* range_groups sets s->gids of rows with one integer key through the range_map while the key's
** values seen so far span at most DICT_MAP_MAX numbers (the range grows to cover each chunk's,
** keeping the groups mapped so far). *done false: the key is not such, and the caller hashes it
** (from the first chunk that is not, for every later chunk too). */
static int range_groups(exec_ctx *x, const plan_op *p, agg_state *s, vector **keys, uint32_t count, bool *done) {
    range_map *m = &s->range;
    *done = false;
    int64_t lo, hi;
    if (p->agg.nkeys != 1 || m->given_up || !key_range(keys[0], count, &lo, &hi)) {
        m->given_up = true;
        return STRATA_OK;
    }
    int rc = map_scratch(x, &s->dict, keys, 1);
    if (rc) return rc;
    if (!m->gid || lo < m->base || hi > m->base + (int64_t)m->size - 1) { /* grow to cover [lo, hi] */
        int64_t nlo = m->gid && m->base < lo ? m->base : lo;
        int64_t nhi = m->gid && m->base + (int64_t)m->size - 1 > hi ? m->base + (int64_t)m->size - 1 : hi;
        if ((uint64_t)nhi - (uint64_t)nlo >= DICT_MAP_MAX) {
            m->given_up = true;
            return STRATA_OK;
        }
        /* at least twice the old size, in the direction the keys went, so that keys rising (or
        ** falling) chunk by chunk copy the map a logarithmic number of times, not once a chunk */
        uint64_t want = (uint64_t)nhi - (uint64_t)nlo + 1, twice = 2 * (uint64_t)m->size;
        if (m->gid && want < twice) {
            uint64_t extra = (twice > DICT_MAP_MAX ? DICT_MAP_MAX : twice) - want;
            if (hi > m->base + (int64_t)m->size - 1) {
                if (nhi <= INT64_MAX - (int64_t)extra) nhi += (int64_t)extra;
            } else if (nlo >= INT64_MIN + (int64_t)extra) {
                nlo -= (int64_t)extra;
            }
        }
        uint32_t size = (uint32_t)((uint64_t)nhi - (uint64_t)nlo + 1);
        uint32_t *g = calloc(size, sizeof *g);
        if (!g) return exec_nomem(x);
        if (m->gid) memcpy(g + (m->base - nlo), m->gid, m->size * sizeof *g);
        free(m->gid);
        m->gid = g, m->base = nlo, m->size = size;
    }
    uint32_t *c = s->dict.combined;
    const vector *v = keys[0];
    const sel_t *sel = v->sel;
    uint64_t base = (uint64_t)m->base;
    switch ((vec_phys)v->phys) {
    case PHYS_I16:
        for (uint32_t i = 0; i < count; i++) c[i] = (uint32_t)((uint64_t)VEC_DATA(v, int16_t)[sel[i]] - base);
        break;
    case PHYS_I32:
        for (uint32_t i = 0; i < count; i++) c[i] = (uint32_t)((uint64_t)VEC_DATA(v, int32_t)[sel[i]] - base);
        break;
    default:
        for (uint32_t i = 0; i < count; i++) c[i] = (uint32_t)((uint64_t)VEC_DATA(v, int64_t)[sel[i]] - base);
        break;
    }
    if ((rc = map_lookup(x, s, keys, 1, c, m->gid, count))) return rc;
    *done = true;
    return STRATA_OK;
}

static int agg_sink(exec_ctx *x, op_node *nd, data_chunk *in, int side) {
    (void)side;
    const plan_op *p = nd->op;
    agg_state *s = nd->state;
    uint32_t count = in->count;
    int rc;
    if (in->sel) chunk_apply_sel(in);
    vector *keys[p->agg.nkeys + 1];
    for (uint32_t k = 0; k < p->agg.nkeys; k++) {
        if ((rc = expr_eval(x, nd->ex[k], in, count))) return rc;
        keys[k] = nd->ex[k]->result;
    }
    bool mapped = false;
    if (p->agg.nkeys && (rc = dict_groups(x, p, s, keys, count, &mapped))) return rc;
    if (p->agg.nkeys && !mapped && (rc = range_groups(x, p, s, keys, count, &mapped))) return rc;
    if (p->agg.nkeys && !mapped) {
        if ((rc = vec_groups_find_or_add(&s->groups, keys, count, s->gids, NULL, s->hashes, x->err))) return rc;
    } else if (!p->agg.nkeys) {
        if (s->groups.ngroups == 0) {
            s->groups.ngroups = 1;
        }
        memset(s->gids, 0, count * sizeof *s->gids);
    }
    if ((rc = agg_ensure_slots(x, s, p->agg.naggs))) return rc;
    /* few groups: each group's rows counted once, then the grouped-sum kernels */
    bool few = p->agg.nkeys && s->groups.ngroups <= KERN_GROUPS_MAX;
    int64_t rows[KERN_GROUPS_MAX];
    if (few) {
        memset(rows, 0, s->groups.ngroups * sizeof *rows);
        kern_group_count(s->gids, count, s->groups.ngroups, rows);
    }
    for (uint32_t a = 0; a < p->agg.naggs; a++) {
        expr_state *arg = nd->ex[p->agg.nkeys + a]; /* NULL: count(*) */
        if (arg && (rc = expr_eval(x, arg, in, count))) return rc;
        if (few && agg_few_groups(p, s, a, arg ? arg->result : NULL, count, rows)) continue;
        if ((rc = agg_update(x, p, s, a, arg ? arg->result : NULL, s->gids, count))) return rc;
    }
    return STRATA_OK;
}

static int agg_finalize(exec_ctx *x, op_node *nd) {
    const plan_op *p = nd->op;
    agg_state *s = nd->state;
    if (p->agg.nkeys == 0 && s->groups.ngroups == 0) { /* no input: one row of empty aggregates */
        s->groups.ngroups = 1;
        return agg_ensure_slots(x, s, p->agg.naggs);
    }
    return STRATA_OK;
}

static int agg_result(exec_ctx *x, const agg_expr *ag, const void *state, sql_value *out) {
    int64_t count = *(const int64_t *)state;
    const isum_slot *is = state;
    const dsum_slot *ds = state;
    strata_err tmp;
    err_clear(&tmp);
    *out = value_null(ag->type);
    switch (ag->fn) {
    case AGG_COUNT_STAR:
    case AGG_COUNT: *out = value_int(TYPE_BIGINT, count); return STRATA_OK;
    case AGG_SUM:
        if (!count) return STRATA_OK;
        if (ag->type.id == TYPE_DOUBLE) {
            *out = value_double(ds->sum);
        } else if (ag->type.id == TYPE_DECIMAL) {
            int64_t v;
            if (sum_to_dec(is->sum, ag->type.precision, &v, &tmp)) return expr_error(x, ag->arg, STRATA_ERROR, tmp.msg);
            *out = value_decimal(v, ag->type.precision, ag->type.scale);
        } else {
            int64_t v;
            if (sum_to_bigint(is->sum, &v, &tmp)) return expr_error(x, ag->arg, STRATA_ERROR, tmp.msg);
            *out = value_int(TYPE_BIGINT, v);
        }
        return STRATA_OK;
    case AGG_AVG:
        if (!count) return STRATA_OK;
        if (ag->type.id == TYPE_DECIMAL) {
            int64_t v;
            if (dec_avg(is->sum, count, ag->arg->type.scale, ag->type, &v, &tmp))
                return expr_error(x, ag->arg, STRATA_ERROR, tmp.msg);
            *out = value_decimal(v, ag->type.precision, ag->type.scale);
        } else if (ag->arg->type.id == TYPE_DOUBLE) {
            *out = value_double(ds->sum / (double)count);
        } else {
            *out = value_double(avg_to_double(is->sum, count, 0));
        }
        return STRATA_OK;
    default:
        if (count) *out = ((const best_slot *)state)->best;
        return STRATA_OK;
    }
}

/* The groups a chunk of output shows: first .. first + n - 1 of a table (gids NULL, all in one
** chunk of its keys), or gids[0..n). */
#define GROUP_AT(first, gids, r) ((gids) ? (gids)[r] : (first) + (r))

/* agg_emit_sums writes SUM over integers or DECIMALs (states isum_slot) of the groups into o, an
** int64 vector: each sum checked against the result type's range as agg_result does, without a
** value between. */
static int agg_emit_sums(exec_ctx *x, const agg_expr *ag, const agg_state *s, uint32_t a, uint32_t first,
                         const uint32_t *gids, uint32_t n, vector *o) {
    const isum_slot *st = (const isum_slot *)(const void *)s->st[a].base;
    int64_t *d = o->data;
    bool dec = ag->type.id == TYPE_DECIMAL;
    strata_err tmp;
    err_clear(&tmp);
    vec_reset(o);
    for (uint32_t r = 0; r < n; r++) {
        const isum_slot *g = &st[GROUP_AT(first, gids, r)];
        if (!g->count) {
            vec_set_null(o, r, 1);
            continue;
        }
        if (dec ? sum_to_dec(g->sum, ag->type.precision, &d[r], &tmp) : sum_to_bigint(g->sum, &d[r], &tmp))
            return expr_error(x, ag->arg, STRATA_ERROR, tmp.msg);
    }
    return STRATA_OK;
}

/* emit_keys copies the keys of groups gids[0..n) of s to out's first columns, a run of groups of
** one chunk of keys at a time. */
static int emit_keys(exec_ctx *x, uint32_t nk, const agg_state *s, const uint32_t *gids, uint32_t n, data_chunk *out) {
    sel_t sel[VECTOR_SIZE];
    for (uint32_t r = 0, run; r < n; r += run) {
        uint32_t chunk = gids[r] / VECTOR_SIZE, kr;
        for (run = 0; r + run < n && gids[r + run] / VECTOR_SIZE == chunk; run++) sel[run] = (sel_t)(gids[r + run] % VECTOR_SIZE);
        const data_chunk *kc = vec_groups_key(&s->groups, gids[r], &kr);
        for (uint32_t k = 0; k < nk; k++) {
            int rc = vec_copy(&out->cols[k], r, &kc->cols[k], sel, run, x->err);
            if (rc) return rc;
        }
    }
    return STRATA_OK;
}

/* emit_groups outputs groups of s (GROUP_AT) as out's rows 0..n-1. */
static int emit_groups(exec_ctx *x, const plan_op *p, const agg_state *s, uint32_t first, const uint32_t *gids,
                       uint32_t n, data_chunk *out) {
    uint32_t nk = p->agg.nkeys;
    int rc;
    if (nk && gids && (rc = emit_keys(x, nk, s, gids, n, out))) return rc;
    if (nk && !gids) {
        uint32_t kr;
        const data_chunk *kc = vec_groups_key(&s->groups, first, &kr);
        for (uint32_t k = 0; k < nk; k++)
            if ((rc = vec_copy(&out->cols[k], 0, &kc->cols[k], sel_identity() + kr, n, x->err))) return rc;
    }
    for (uint32_t a = 0; a < p->agg.naggs; a++) {
        const agg_expr *ag = &p->agg.aggs[a];
        if ((ag->fn == AGG_COUNT_STAR || ag->fn == AGG_COUNT) && out->cols[nk + a].phys == PHYS_I64) {
            int64_t *o = out->cols[nk + a].data; /* counts: no value to convert */
            if (!gids) memcpy(o, s->st[a].base + (size_t)first * sizeof *o, n * sizeof *o);
            for (uint32_t r = 0; gids && r < n; r++) o[r] = *count_at(s, a, gids[r]);
            continue;
        }
        if (ag->fn == AGG_SUM && s->st[a].width == sizeof(isum_slot) && out->cols[nk + a].phys == PHYS_I64) {
            if ((rc = agg_emit_sums(x, ag, s, a, first, gids, n, &out->cols[nk + a]))) return rc;
            continue;
        }
        for (uint32_t r = 0; r < n; r++) {
            sql_value v;
            if ((rc = agg_result(x, ag, slot_at(s, a, GROUP_AT(first, gids, r)), &v)) ||
                (rc = vec_set_value(&out->cols[nk + a], r, &v, x->err)))
                return rc;
        }
    }
    out->count = n;
    return STRATA_OK;
}

/* agg_emit outputs the next groups of s. */
static int agg_emit(exec_ctx *x, const plan_op *p, agg_state *s, data_chunk *out) {
    out->count = 0;
    if (s->emitted >= s->groups.ngroups) return STRATA_OK;
    uint32_t first = s->emitted, n = s->groups.ngroups - first;
    if (n > VECTOR_SIZE - first % VECTOR_SIZE) n = VECTOR_SIZE - first % VECTOR_SIZE;
    s->emitted += n;
    return emit_groups(x, p, s, first, NULL, n, out);
}

/* part_emit outputs the next groups of partition t of s. */
static int part_emit(exec_ctx *x, const plan_op *p, agg_state *s, agg_slice *t, data_chunk *out) {
    if (t->merged) return agg_emit(x, p, t->merged, out);
    uint32_t gids[VECTOR_SIZE], n = 0;
    for (; n < VECTOR_SIZE && t->emitted < t->end - t->first; n++) gids[n] = (uint32_t)s->entries[t->first + t->emitted++];
    out->count = 0;
    return n ? emit_groups(x, p, s->donors[t->worker], 0, gids, n, out) : STRATA_OK;
}

static int agg_next(exec_ctx *x, op_node *nd, data_chunk *out) {
    agg_state *s = nd->state;
    if (s->view_of) return part_emit(x, nd->op, s->view_of, &s->view_of->parts[s->view_part], out);
    if (!s->nparts) return agg_emit(x, nd->op, s, out);
    for (; s->emit_part < s->nparts; s->emit_part++) {
        int rc = part_emit(x, nd->op, s, &s->parts[s->emit_part], out);
        if (rc || out->count) return rc;
    }
    return STRATA_OK;
}

/* agg_morsels: a run whose groups agg_combine left by partition outputs them on the workers, a
** morsel a partition (in the serial run's order), when the pipeline above can run there. */
static int agg_morsels(exec_ctx *x, op_node *nd, uint64_t *count) {
    (void)x;
    const agg_state *s = nd->state;
    *count = s && s->nparts && !s->emit_part ? s->nparts : 0;
    return STRATA_OK;
}

/* agg_open_morsel opens worker node local on partition m of the run's node: a view that outputs
** that partition's groups. A partition is one morsel, so its counters (part_emit) are written by
** the one worker that took it; the tables its groups are in are only read. */
static int agg_open_morsel(exec_ctx *x, op_node *local, op_node *global, uint64_t m) {
    agg_state *v = calloc(1, sizeof *v);
    if (!v) return exec_nomem(x);
    v->view_of = global->state, v->view_part = (uint32_t)m;
    local->state = v;
    return STRATA_OK;
}

/* the keys, then each aggregate's argument (NULL for count(*)) */
static uint32_t agg_exprs(const plan_op *p, const expr **list) {
    exec_list_exprs(p->agg.keys, p->agg.nkeys, list);
    for (uint32_t a = 0; list && a < p->agg.naggs; a++) list[p->agg.nkeys + a] = p->agg.aggs[a].arg;
    return p->agg.nkeys + p->agg.naggs;
}

/* An aggregation runs on several workers: each worker's node aggregates its rows in tables of
** its own, which agg_combine adds to the run's node group by group; an aggregate with DISTINCT
** takes the (group, value) pairs each worker found instead of its states (a value two workers saw
** counts once), with their groups: into the run's table, or into each group's partition. */
static bool has_distinct(const plan_op *p) {
    for (uint32_t a = 0; a < p->agg.naggs; a++)
        if (p->agg.aggs[a].distinct) return true;
    return false;
}

/* agg_merge adds aggregate a's state from (a worker's) into to, both of group's kind of state. */
static int agg_merge(exec_ctx *x, const agg_expr *ag, agg_state *to, void *dst, const void *from) {
    switch (ag->fn) {
    case AGG_COUNT_STAR:
    case AGG_COUNT: *(int64_t *)dst += *(const int64_t *)from; return STRATA_OK;
    case AGG_MIN:
    case AGG_MAX: {
        const best_slot *b = from;
        return b->count ? agg_best(x, to, ag->fn, dst, b->best) : STRATA_OK;
    }
    default:
        if (vec_phys_of(ag->arg->type.id) == PHYS_F64) {
            ((dsum_slot *)dst)->count += ((const dsum_slot *)from)->count;
            ((dsum_slot *)dst)->sum += ((const dsum_slot *)from)->sum;
        } else {
            ((isum_slot *)dst)->count += ((const isum_slot *)from)->count;
            ((isum_slot *)dst)->sum += ((const isum_slot *)from)->sum;
        }
        return STRATA_OK;
    }
}

/* The pairs of one worker's DISTINCT aggregate by partition of their group (distinct_prepare):
** idx[start[k] .. start[k + 1]) are partition k's, in order. */
typedef struct pair_parts {
    uint32_t *idx;
    uint32_t start[GROUPS_PARTS + 1];
} pair_parts;

typedef struct agg_merge_ctx {
    const plan_op *p;
    agg_state **locals;
    unsigned n;
    agg_state *g;   /* the run's node's state */
    uint32_t **gmap; /* with DISTINCT aggregates, by worker: the run's group of each of its groups */
    pair_parts *pairs; /* merged by partition with DISTINCT aggregates: [a * n + i], aggregate a of
                       ** worker i */
} agg_merge_ctx;

/* agg_add (groups_merge.add) adds the states of groups sel[0..m) of chunk `first` of worker i's
** state to those of groups gids[] of state into. */
static int agg_add(exec_ctx *x, void *arg, void *into, unsigned i, uint32_t first, const sel_t *sel, uint32_t m,
                   const uint32_t *gids) {
    agg_merge_ctx *c = arg;
    const plan_op *p = c->p;
    agg_state *g = into, *l = c->locals[i];
    int rc = agg_ensure_slots(x, g, p->agg.naggs);
    for (uint32_t r = 0; c->gmap && r < m; r++) c->gmap[i][first + (sel ? sel[r] : r)] = gids[r];
    for (uint32_t a = 0; a < p->agg.naggs && !rc; a++)
        for (uint32_t r = 0; r < m && !rc && !p->agg.aggs[a].distinct; r++) {
            uint32_t lg = first + (sel ? sel[r] : r);
            rc = agg_merge(x, &p->agg.aggs[a], g, slot_at(g, a, gids[r]), slot_at(l, a, lg));
        }
    return rc;
}

/* pairs_add adds pairs sel[0..m) of chunk `first` of worker i's pairs of DISTINCT aggregate a
** to state into, their groups mapped through c->gmap: a pair new to into counts. */
static int pairs_add(exec_ctx *x, const agg_merge_ctx *c, agg_state *into, uint32_t a, unsigned i, uint32_t first,
                     const sel_t *sel, uint32_t m, vector *tmp) {
    const data_chunk *ch = vec_rows_chunk(&c->locals[i]->distinct[a].keys, first);
    const vector *lg = &ch->cols[0];
    uint32_t gids[VECTOR_SIZE];
    for (uint32_t r = 0; r < m; r++) gids[r] = c->gmap[i][VEC_DATA(lg, int32_t)[lg->sel[sel ? sel[r] : r]]];
    vec_slice(tmp, &ch->cols[1], sel, m);
    return agg_update(x, c->p, into, a, tmp, gids, m);
}

static bool has_pairs(const agg_expr *ag) {
    return ag->distinct && ag->arg;
}

/* distinct_prepare (groups_merge.prepare) sorts each worker's pairs by the partition of their
** group, which distinct_done then finds them by. */
static int distinct_prepare(exec_ctx *x, void *arg, uint8_t *const *part_of) {
    agg_merge_ctx *c = arg;
    for (uint32_t a = 0; a < c->p->agg.naggs; a++) {
        if (!has_pairs(&c->p->agg.aggs[a])) continue;
        for (unsigned i = 0; i < c->n; i++) {
            const vec_groups *pairs = &c->locals[i]->distinct[a];
            pair_parts *q = &c->pairs[a * c->n + i];
            uint32_t fill[GROUPS_PARTS];
            if (!(q->idx = malloc(((size_t)pairs->ngroups + 1) * sizeof *q->idx))) return exec_nomem(x);
            for (int pass = 0; pass < 2; pass++) {
                for (uint32_t first = 0; first < pairs->ngroups; first += VECTOR_SIZE) {
                    const vector *lg = &vec_rows_chunk(&pairs->keys, first)->cols[0];
                    uint32_t m = pairs->ngroups - first < VECTOR_SIZE ? pairs->ngroups - first : VECTOR_SIZE;
                    for (uint32_t r = 0; r < m; r++) {
                        uint8_t k = part_of[i][VEC_DATA(lg, int32_t)[lg->sel[r]]];
                        if (pass) q->idx[fill[k]++] = first + r;
                        else q->start[k + 1]++;
                    }
                }
                for (uint32_t k = 0; !pass && k < GROUPS_PARTS; k++) q->start[k + 1] += q->start[k], fill[k] = q->start[k];
            }
        }
    }
    return STRATA_OK;
}

/* worker_pairs adds worker i's pairs of DISTINCT aggregate a to into: those of partition part's
** groups (distinct_prepare sorted them so), or all of them for part < 0; tmp: the value's type. */
static int worker_pairs(exec_ctx *x, const agg_merge_ctx *c, agg_state *into, uint32_t a, unsigned i, int64_t part,
                        vector *tmp) {
    int rc = STRATA_OK;
    if (part < 0) {
        uint64_t np = c->locals[i]->distinct[a].ngroups;
        for (uint64_t first = 0; first < np && !rc; first += VECTOR_SIZE)
            rc = pairs_add(x, c, into, a, i, (uint32_t)first, NULL,
                           np - first < VECTOR_SIZE ? (uint32_t)(np - first) : VECTOR_SIZE, tmp);
        return rc;
    }
    const pair_parts *q = &c->pairs[a * c->n + i];
    for (uint32_t e = q->start[part], hi = q->start[part + 1]; e < hi && !rc;) {
        uint32_t first = q->idx[e] / VECTOR_SIZE * VECTOR_SIZE, m = 0;
        sel_t sel[VECTOR_SIZE];
        for (; e < hi && q->idx[e] - first < VECTOR_SIZE; e++) sel[m++] = (sel_t)(q->idx[e] - first);
        rc = pairs_add(x, c, into, a, i, first, sel, m, tmp);
    }
    return rc;
}

/* pairs_merge adds the workers' pairs of each DISTINCT aggregate to into: those of partition
** part's groups, or all of them for part < 0. */
static int pairs_merge(exec_ctx *x, const agg_merge_ctx *c, agg_state *into, int64_t part) {
    int rc = STRATA_OK;
    for (uint32_t a = 0; a < c->p->agg.naggs && !rc; a++) {
        if (!has_pairs(&c->p->agg.aggs[a])) continue;
        vector tmp;
        if ((rc = exec_key_vectors(x, &c->p->agg.aggs[a].arg->type, 1, &tmp))) break;
        for (unsigned i = 0; i < c->n && !rc; i++) rc = worker_pairs(x, c, into, a, i, part, &tmp);
        exec_key_vectors_free(&tmp, 1);
    }
    return rc;
}

/* distinct_done (groups_merge.done) adds the pairs of partition part's groups to its state. */
static int distinct_done(exec_ctx *x, void *arg, uint32_t part, void *into) {
    return pairs_merge(x, arg, into, part);
}

/* agg_part (groups_merge.part) makes partition part's aggregation. */
static int agg_part(exec_ctx *x, void *arg, uint32_t part, void **into, vec_groups **to) {
    agg_merge_ctx *c = arg;
    agg_slice *t = &c->g->parts[part];
    int rc = agg_state_new(x, c->p, &t->merged);
    *into = t->merged;
    *to = t->merged ? &t->merged->groups : NULL;
    return rc;
}

/* agg_one (groups_merge.one) keeps partition part, all of whose groups are worker i's, as those
** groups of its table: entries[first .. first + n) of the merge (g->entries). */
static int agg_one(exec_ctx *x, void *arg, uint32_t part, unsigned i, uint64_t first, uint64_t n) {
    (void)x;
    agg_merge_ctx *c = arg;
    c->g->parts[part] = (agg_slice){.worker = i, .first = first, .end = first + n};
    return STRATA_OK;
}

/* agg_combine merges the workers' groups: more than GROUPS_MERGE_SERIAL (with DISTINCT pairs) by partition, which the
** source then outputs in turn; a partition of one worker's groups stays in that worker's table
** (the morsels a worker takes are neighbours, core/pool.h, so on a key the rows are stored in
** order of, each worker has most of its groups to itself). The workers' tables are the run's
** node's then (donors), their nodes' states taken. */
static int agg_combine(exec_ctx *x, op_node *gn, op_node *const *locals, unsigned n) {
    const plan_op *p = gn->op;
    agg_state *g = gn->state, *ls[n + 1];
    vec_groups *tables[n + 1];
    uint64_t groups = 0, pairs = 0;
    for (unsigned i = 0; i < n; i++) ls[i] = locals[i]->state, tables[i] = &ls[i]->groups, groups += tables[i]->ngroups;
    for (uint32_t a = 0; a < p->agg.naggs; a++)
        for (unsigned i = 0; i < n && has_pairs(&p->agg.aggs[a]); i++) pairs += ls[i]->distinct[a].ngroups;
    agg_merge_ctx c = {p, ls, n, g, NULL, NULL};
    groups_merge m = {.from = tables, .n = n, .arg = &c, .add = agg_add, .part = agg_part, .one = agg_one,
                      .entries = &g->entries};
    bool serial = !p->agg.nkeys || groups + pairs <= GROUPS_MERGE_SERIAL;
    if (serial && !has_distinct(p)) return exec_groups_merge(x, &m, g, &g->groups);
    /* the pairs of a DISTINCT aggregate follow their groups: each worker's group's place in the
    ** run's table (or in its partition's) is kept for them */
    uint32_t *gmap[n + 1];
    memset(gmap, 0, sizeof gmap);
    c.gmap = has_distinct(p) ? gmap : NULL;
    int rc = STRATA_OK;
    for (unsigned i = 0; c.gmap && i < n && !rc; i++)
        if (!(gmap[i] = malloc(((size_t)tables[i]->ngroups + 1) * sizeof **gmap))) rc = exec_nomem(x);
    if (!rc && serial) {
        rc = exec_groups_merge(x, &m, g, &g->groups);
        if (!rc) rc = pairs_merge(x, &c, g, -1);
    } else if (!rc) {
        if (c.gmap) {
            m.prepare = distinct_prepare, m.done = distinct_done;
            if (!(c.pairs = calloc((size_t)p->agg.naggs * n, sizeof *c.pairs))) rc = exec_nomem(x);
        }
        g->parts = calloc(GROUPS_PARTS, sizeof *g->parts);
        g->donors = calloc(n, sizeof *g->donors);
        if (!rc && (!g->parts || !g->donors)) rc = exec_nomem(x);
        if (!rc) {
            g->nparts = GROUPS_PARTS;
            for (unsigned i = 0; i < n; i++) g->donors[g->ndonors++] = ls[i], locals[i]->state = NULL;
            rc = exec_groups_merge_parts(x, &m);
        }
    }
    for (unsigned i = 0; i < n; i++) free(gmap[i]);
    for (size_t k = 0; c.pairs && k < (size_t)p->agg.naggs * n; k++) free(c.pairs[k].idx);
    free(c.pairs);
    return rc;
}

static void agg_explain(const plan_op *p, char *buf, size_t cap) {
    char det[48] = "";
    if (p->agg.nhash && p->agg.nhash < p->agg.nkeys) snprintf(det, sizeof det, ", grouped by the first %u", p->agg.nhash);
    snprintf(buf, cap, " (%u key%s%s, %u aggregate%s)", p->agg.nkeys, p->agg.nkeys == 1 ? "" : "s", det, p->agg.naggs,
             p->agg.naggs == 1 ? "" : "s");
}

const op_vtable op_agg = {
    .name = "HASH_GROUP_BY",
    .child = {CHILD_SINK},
    .open = agg_open,
    .close = agg_close,
    .exprs = agg_exprs,
    .sink = agg_sink,
    .finalize = agg_finalize,
    .source = agg_next,
    .explain = agg_explain,
    .morsels = agg_morsels,
    .open_morsel = agg_open_morsel,
    .parallel = exec_parallel_always,
    .combine = agg_combine,
};
