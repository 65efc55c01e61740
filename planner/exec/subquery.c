/*
** subquery.c -- subqueries in expressions (exec.h's exec_subquery): a nested run of the
** subquery's plan, once per statement run when uncorrelated (its result kept), once per outer row
** when correlated, with the row's outer values as parameters.
*/
#include "exec/operator.h"

#include <stdlib.h>
#include <string.h>

typedef struct sub_state {
    void *pipelines;  /* of e->sub.plan, kept between runs */
    const plan_op *plan;
    uint64_t run;     /* uncorrelated: the statement run its result belongs to */
    data_chunk out;
    bool ready;     /* out initialized */
    bool computed;  /* uncorrelated: result known */
    sql_value value;
    vec_groups set; /* IN: the distinct values */
    bool set_ready, set_has_null;
    arena mem;       /* strings of value and of vals */
    sql_value *vals; /* SUB_ANY, SUB_ALL: every value the subquery returned */
    uint32_t nvals, cap_vals;
    uint32_t gid[VECTOR_SIZE];
    uint64_t hashes[VECTOR_SIZE];
    /* a worker's state of an uncorrelated subquery whose result the run's thread computed before
    ** the workers started (exec_subqueries_share): read, never written, by every worker */
    const struct sub_state *shared;
} sub_state;

void exec_subquery_release(expr_state *es) {
    sub_state *s = es->aux;
    if (!s) return;
    exec_destroy(&s->pipelines);
    if (s->ready) chunk_free(&s->out);
    if (s->set_ready) vec_groups_free(&s->set);
    arena_free(&s->mem);
    free(s->vals);
    free(s);
    es->aux = NULL;
}

/* sub_run runs e's plan once with the given outer values: for SUB_SCALAR *value gets the single
** row's value (NULL when none; more than one is an error); for SUB_EXISTS whether any row came;
** for SUB_IN the rows go into s->set. */
static int sub_run(exec_ctx *x, const expr *e, sub_state *s, sql_value *outer, sql_value *value) {
    if (x->depth > 64) return expr_error(x, e, STRATA_ERROR, "subqueries nested too deeply");
    exec_ctx sub = *x;
    sub.pipelines = s->pipelines;
    sub.outer = outer;
    sub.nouter = e->sub.nouter;
    sub.depth = x->depth + 1;
    const plan_op *p = e->sub.plan;
    s->plan = p;
    int rc = exec_open(&sub, p);
    s->pipelines = sub.pipelines;
    uint64_t rows = 0;
    *value = value_null(e->type);
    if (e->sub.kind == SUB_IN && !s->set_ready && !rc) {
        if (!(rc = exec_groups_init(x, &s->set, p->types, 1))) s->set_ready = true;
    }
    while (!rc) {
        chunk_reset(&s->out);
        if ((rc = exec_next(&sub, p, &s->out)) || !s->out.count) break;
        if (s->out.sel) chunk_apply_sel(&s->out);
        if (e->sub.kind == SUB_EXISTS) {
            rows = 1;
            break; /* one row decides */
        }
        if (e->sub.kind == SUB_ANY || e->sub.kind == SUB_ALL) {
            for (uint32_t r = 0; r < s->out.count && !rc; r++) {
                if (s->nvals == s->cap_vals) {
                    uint32_t nc = s->cap_vals ? 2 * s->cap_vals : 64;
                    sql_value *nv = realloc(s->vals, nc * sizeof *nv);
                    if (!nv) {
                        rc = exec_nomem(x);
                        break;
                    }
                    s->vals = nv, s->cap_vals = nc;
                }
                sql_value *v = &s->vals[s->nvals++];
                vec_get_value(&s->out.cols[0], r, v);
                if (!v->is_null && (v->type.id == TYPE_VARCHAR || v->type.id == TYPE_BLOB)) {
                    sstr cp;
                    if ((rc = sstr_copy(&s->mem, sstr_data(&v->v.s), v->v.s.len, &cp, x->err))) break;
                    v->v.s = cp;
                }
            }
            continue;
        }
        if (e->sub.kind == SUB_IN) {
            vector *col = &s->out.cols[0];
            if ((rc = vec_groups_find_or_add(&s->set, &col, s->out.count, s->gid, NULL, s->hashes, x->err))) break;
            for (uint32_t r = 0; r < s->out.count; r++) s->set_has_null |= vec_is_null(col, r);
            continue;
        }
        rows += s->out.count;
        if (rows > 1) {
            rc = expr_error(x, e, STRATA_ERROR, "more than one row returned by a subquery used as an expression");
            break;
        }
        vec_get_value(&s->out.cols[0], 0, value);
        if (!value->is_null && (value->type.id == TYPE_VARCHAR || value->type.id == TYPE_BLOB)) {
            sstr cp;
            if ((rc = sstr_copy(&s->mem, sstr_data(&value->v.s), value->v.s.len, &cp, x->err))) break;
            value->v.s = cp;
        }
    }
    exec_close(&sub, p);
    if (!rc && e->sub.kind == SUB_EXISTS) *value = value_bool(rows > 0);
    return rc;
}

/* quantified_result: x cmp ANY|ALL (the values) with SQL's NULL rules: ANY is true when some
** comparison is true, else NULL when some is NULL, else false (so false for no values); ALL is
** false when some comparison is false, else NULL when some is NULL, else true. */
static void quantified_result(const sub_state *s, const expr *e, const vector *arg, uint32_t r, vector *out) {
    sql_value a;
    vec_get_value(arg, r, &a);
    bool any_null = false, decided = false, is_all = e->sub.kind == SUB_ALL;
    for (uint32_t i = 0; i < s->nvals && !decided; i++) {
        if (a.is_null || s->vals[i].is_null) {
            any_null = true;
            continue;
        }
        int c = value_compare(&a, &s->vals[i]);
        bool holds;
        switch (e->sub.cmp) {
        case CMP_EQ: holds = c == 0; break;
        case CMP_NE: holds = c != 0; break;
        case CMP_LT: holds = c < 0; break;
        case CMP_LE: holds = c <= 0; break;
        case CMP_GT: holds = c > 0; break;
        default: holds = c >= 0; break;
        }
        if (holds != is_all) decided = true;
    }
    if (decided) ((uint8_t *)out->data)[r] = !is_all;
    else if (any_null) vec_set_null(out, r, 1);
    else ((uint8_t *)out->data)[r] = is_all;
}

/* in_result: x IN (the set) with SQL's NULL rules. */
static void in_result(const sub_state *s, const expr *e, const vector *arg, uint32_t r, vector *out) {
    if (vec_is_null(arg, r)) { /* NULL IN (nothing) is false; NULL IN (anything) is NULL */
        if (s->set.ngroups == 0) ((uint8_t *)out->data)[r] = e->negated;
        else vec_set_null(out, r, 1);
        return;
    }
    uint64_t h;
    vector one = *arg;
    sel_t idx = arg->sel[r];
    one.sel = &idx;
    one.kind = VEC_DICTIONARY; /* read through sel, not as the flat vector it may be */
    /* look the value up without adding it: a probe of one row */
    vec_hash(&one, NULL, 1, &h);
    vector *cols[1] = {&one};
    if (vec_groups_find(&s->set, cols, 0, h) != UINT32_MAX) ((uint8_t *)out->data)[r] = !e->negated;
    else if (s->set_has_null) vec_set_null(out, r, 1);
    else ((uint8_t *)out->data)[r] = e->negated;
}

/* sub_state_of is es's state, made when it has none. */
static int sub_state_of(exec_ctx *x, expr_state *es, sub_state **out) {
    sub_state *s = es->aux;
    if (!s) {
        if (!(s = calloc(1, sizeof *s))) return exec_nomem(x);
        arena_init(&s->mem, 0);
        es->aux = s;
    }
    if (!s->ready) {
        int rc = chunk_init(&s->out, es->e->sub.plan->types, es->e->sub.plan->ncols, x->err);
        if (rc) return rc;
        s->ready = true;
    }
    *out = s;
    return STRATA_OK;
}

/* sub_compute runs uncorrelated subquery e into s, unless s holds this statement run's result. */
static int sub_compute(exec_ctx *x, const expr *e, sub_state *s) {
    if (s->computed && s->run == x->run) return STRATA_OK;
    if (s->set_ready) {
        vec_groups_free(&s->set);
        s->set_ready = s->set_has_null = false;
    }
    arena_reset(&s->mem);
    s->nvals = 0;
    s->computed = false;
    int rc = sub_run(x, e, s, NULL, &s->value);
    if (rc) return rc;
    s->computed = true;
    s->run = x->run;
    return STRATA_OK;
}

void exec_subqueries_share(exec_ctx *x, expr_state *es) {
    if (!es) return;
    for (int i = 0; i < es->e->nargs; i++) exec_subqueries_share(x, es->args[i]);
    if (es->e->kind != EXPR_SUBQUERY || es->e->sub.correlated) return;
    strata_err quiet = {0}; /* a failure is the workers' to meet, if a row needs the value */
    exec_ctx sx = *x;
    sx.err = &quiet;
    sub_state *s;
    if (!sub_state_of(&sx, es, &s)) (void)sub_compute(&sx, es->e, s);
}

void exec_subqueries_link(expr_state *local, const expr_state *global) {
    if (!local || !global) return;
    for (int i = 0; i < local->e->nargs; i++) exec_subqueries_link(local->args[i], global->args[i]);
    const sub_state *g = global->aux;
    if (local->e->kind != EXPR_SUBQUERY || local->e->sub.correlated || !g || !g->computed || local->aux) return;
    sub_state *s = calloc(1, sizeof *s); /* without it the worker runs the subquery itself */
    if (!s) return;
    arena_init(&s->mem, 0);
    s->shared = g;
    local->aux = s;
}

int exec_subquery(exec_ctx *x, expr_state *es, data_chunk *in, uint32_t count) {
    const expr *e = es->e;
    sub_state *s;
    vector *out = es->result, *arg = e->nargs ? es->args[0]->result : NULL;
    int rc;
    if (!e->sub.correlated) {
        const sub_state *r = es->aux ? ((sub_state *)es->aux)->shared : NULL;
        if (!r || r->run != x->run) {
            if ((rc = sub_state_of(x, es, &s)) || (rc = sub_compute(x, e, s))) return rc;
            r = s;
        }
        if (e->sub.kind == SUB_ANY || e->sub.kind == SUB_ALL) {
            for (uint32_t i = 0; i < count; i++) quantified_result(r, e, arg, i, out);
            return STRATA_OK;
        }
        if (e->sub.kind != SUB_IN) {
            vec_reset(out);
            if ((rc = vec_set_value(out, 0, &r->value, x->err))) return rc;
            vec_make_constant(out);
            return STRATA_OK;
        }
        for (uint32_t i = 0; i < count; i++) in_result(r, e, arg, i, out);
        return STRATA_OK;
    }
    if ((rc = sub_state_of(x, es, &s))) return rc;
    sql_value outer[e->sub.nouter ? e->sub.nouter : 1];
    for (uint32_t r = 0; r < count; r++) {
        for (uint32_t k = 0; k < e->sub.nouter; k++) vec_get_value(&in->cols[e->sub.outer[k]], r, &outer[k]);
        sql_value v;
        if (e->sub.kind == SUB_IN && s->set_ready) { /* a fresh set per row */
            vec_groups_free(&s->set);
            s->set_ready = false;
            s->set_has_null = false;
        }
        arena_reset(&s->mem);
        s->nvals = 0;
        if ((rc = sub_run(x, e, s, outer, &v))) return rc;
        if (e->sub.kind == SUB_ANY || e->sub.kind == SUB_ALL) quantified_result(s, e, arg, r, out);
        else if (e->sub.kind == SUB_IN) in_result(s, e, arg, r, out);
        else if ((rc = vec_set_value(out, r, &v, x->err))) return rc;
    }
    return STRATA_OK;
}

