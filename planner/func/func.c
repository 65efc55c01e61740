/*
** func.c -- the scalar function registry (func_lookup, func_suggest), what the function files
** share (the bind error, strings built in place), and the functions that are neither text nor
** arithmetic: greatest, least, date_trunc and date_part.
**
** The text functions and LIKE are in func_string.c, the numeric ones in func_math.c. Nothing here
** allocates per row; every function reads its arguments through vec_index, so FLAT, CONSTANT and
** DICTIONARY inputs take the same path.
*/
#include <stdio.h>
#include <string.h>

#include "func/func_internal.h"

/* ---- shared helpers ---- */

int func_no_such(const char *name, const sql_type *args, int nargs, strata_err *err) {
    char list[256];
    size_t n = 0;
    list[0] = '\0';
    for (int i = 0; i < nargs && n < sizeof list; i++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", sql_type_name(args[i].id));
    return err_set(err, STRATA_ERROR, "function %s(%s) does not exist", name, list);
}

int str_begin(vector *out, size_t len, str_out *b, strata_err *err) {
    if (len > FUNC_MAX_STRING) return err_set(err, STRATA_ERROR, "requested length too large");
    b->len = len;
    if (len <= SSTR_INLINE) {
        b->p = b->small;
        return STRATA_OK;
    }
    b->p = arena_alloc(&out->heap, len);
    if (b->p == NULL) return err_set(err, STRATA_NOMEM, "out of memory storing a string of %zu bytes", len);
    return STRATA_OK;
}

size_t utf8_skip(const char *s, size_t n, uint64_t k) {
    size_t i = 0;
    for (; k > 0 && i < n; k--)
        i = utf8_next(s, n, i);
    return i;
}

/* ---- greatest, least ---- */

/* The common type of every argument (value_common_type, as PostgreSQL resolves GREATEST); all
** NULLs give VARCHAR, as PostgreSQL resolves unknown to text. */
static int bind_extreme(const char *name, const sql_type *args, int nargs, sql_type *want, sql_type *ret,
                        strata_err *err) {
    if (nargs < 1) return func_no_such(name, args, nargs, err);
    sql_type t = args[0];
    for (int i = 1; i < nargs; i++) {
        int rc = value_common_type(t, args[i], 0, &t, err);
        if (rc != STRATA_OK) return rc;
    }
    if (t.id == TYPE_NULL) t = sql_type_varchar(0);
    for (int i = 0; i < nargs; i++)
        want[i] = t;
    *ret = t;
    return STRATA_OK;
}
static int bind_greatest(const sql_type *args, int nargs, sql_type *want, sql_type *ret, strata_err *err) {
    return bind_extreme("greatest", args, nargs, want, ret, err);
}
static int bind_least(const sql_type *args, int nargs, sql_type *want, sql_type *ret, strata_err *err) {
    return bind_extreme("least", args, nargs, want, ret, err);
}

#define CMP(x, y) ((x) < (y) ? -1 : (x) > (y))

/* compare_rows orders row ra of a and row rb of b, both of one type (the binder cast them):
** strings bytewise then by length, DOUBLE with NaN above every number (PostgreSQL). */
static int compare_rows(const vector *a, uint32_t ra, const vector *b, uint32_t rb) {
    uint32_t ia = vec_index(a, ra), ib = vec_index(b, rb);
    switch (a->phys) {
    case PHYS_BOOL: return CMP(VEC_DATA(a, uint8_t)[ia], VEC_DATA(b, uint8_t)[ib]);
    case PHYS_I16: return CMP(VEC_DATA(a, int16_t)[ia], VEC_DATA(b, int16_t)[ib]);
    case PHYS_I32: return CMP(VEC_DATA(a, int32_t)[ia], VEC_DATA(b, int32_t)[ib]);
    case PHYS_I64: return CMP(VEC_DATA(a, int64_t)[ia], VEC_DATA(b, int64_t)[ib]);
    case PHYS_F64: {
        double x = VEC_DATA(a, double)[ia], y = VEC_DATA(b, double)[ib];
        if (x != x || y != y) return (x != x) - (y != y);
        return CMP(x, y);
    }
    case PHYS_STR: {
        const sstr *x = &VEC_DATA(a, sstr)[ia], *y = &VEC_DATA(b, sstr)[ib];
        uint32_t n = x->len < y->len ? x->len : y->len;
        int c = n ? memcmp(sstr_data(x), sstr_data(y), n) : 0;
        return c ? (c < 0 ? -1 : 1) : CMP(x->len, y->len);
    }
    default: return interval_compare(VEC_DATA(a, sql_interval)[ia], VEC_DATA(b, sql_interval)[ib]);
    }
}

/* exec_extreme picks, per row, the greatest (sign 1) or least (sign -1) non-NULL argument; NULL
** only when every argument is NULL. */
static int exec_extreme(int sign, const vector *args, int nargs, uint32_t count, vector *out,
                        strata_err *err) {
    for (uint32_t r = 0; r < count; r++) {
        int best = -1;
        for (int i = 0; i < nargs; i++) {
            if (vec_is_null(&args[i], r)) continue;
            if (best < 0 || compare_rows(&args[i], r, &args[best], r) * sign > 0) best = i;
        }
        if (best < 0) {
            vec_set_null(out, r, 1);
            continue;
        }
        const vector *v = &args[best];
        if (out->phys == PHYS_STR) {
            const sstr *s = arg_str(v, r);
            int rc = vec_set_str(out, r, sstr_data(s), s->len, err);
            if (rc != STRATA_OK) return rc;
        } else if (out->type.id != TYPE_NULL) {
            memcpy((char *)out->data + (size_t)r * out->width,
                   (const char *)v->data + (size_t)vec_index(v, r) * v->width, out->width);
        }
    }
    return STRATA_OK;
}
static int exec_greatest(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    return exec_extreme(1, args, nargs, count, out, err);
}
static int exec_least(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    return exec_extreme(-1, args, nargs, count, out, err);
}

/* ---- date_trunc, date_part ---- */

/* Both take (field text, source); a DATE source is cast to TIMESTAMP, as PostgreSQL does. */
static int bind_datefn(const char *name, bool intervals, const sql_type *args, int nargs, sql_type *want,
                       strata_err *err) {
    if (nargs != 2 || (args[0].id != TYPE_VARCHAR && args[0].id != TYPE_NULL))
        return func_no_such(name, args, nargs, err);
    uint8_t id = args[1].id;
    if (id != TYPE_DATE && id != TYPE_TIMESTAMP && id != TYPE_NULL && !(intervals && id == TYPE_INTERVAL))
        return func_no_such(name, args, nargs, err);
    want[0] = sql_type_varchar(0);
    want[1] = id == TYPE_INTERVAL ? args[1] : sql_type_make(TYPE_TIMESTAMP);
    return STRATA_OK;
}
static int bind_date_trunc(const sql_type *args, int nargs, sql_type *want, sql_type *ret, strata_err *err) {
    *ret = sql_type_make(TYPE_TIMESTAMP);
    return bind_datefn("date_trunc", false, args, nargs, want, err);
}
static int bind_date_part(const sql_type *args, int nargs, sql_type *want, sql_type *ret, strata_err *err) {
    *ret = sql_type_make(TYPE_DOUBLE);
    return bind_datefn("date_part", true, args, nargs, want, err);
}

/* field_at parses row r's field name, once for a constant field vector (*parsed caches it). */
static int field_at(const vector *fields, uint32_t r, uint8_t type_id, bool *parsed, dt_field *f,
                    strata_err *err) {
    if (*parsed && fields->kind == VEC_CONSTANT) return STRATA_OK;
    const sstr *s = arg_str(fields, r);
    int rc = dt_field_parse(sstr_data(s), s->len, type_id, f, err);
    *parsed = rc == STRATA_OK;
    return rc;
}

static int exec_date_trunc(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    bool parsed = false;
    dt_field f = DT_DAY;
    for (uint32_t r = 0; r < count; r++) {
        if (row_has_null(args, nargs, r)) {
            vec_set_null(out, r, 1);
            continue;
        }
        int rc = field_at(&args[0], r, TYPE_TIMESTAMP, &parsed, &f, err);
        if (rc == STRATA_OK) rc = ts_trunc(f, arg_i64(&args[1], r), &VEC_DATA(out, int64_t)[r], err);
        if (rc != STRATA_OK) return rc;
    }
    return STRATA_OK;
}

/* date_part is EXTRACT as a double (PostgreSQL's date_part returns double precision). */
static int exec_date_part(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err) {
    bool parsed = false;
    dt_field f = DT_DAY;
    uint8_t id = args[1].type.id;
    for (uint32_t r = 0; r < count; r++) {
        if (row_has_null(args, nargs, r)) {
            vec_set_null(out, r, 1);
            continue;
        }
        sql_type t;
        int64_t v;
        int rc = field_at(&args[0], r, id, &parsed, &f, err);
        if (rc == STRATA_OK) rc = dt_extract_type(f, id, &t, err);
        if (rc == STRATA_OK && id == TYPE_INTERVAL)
            rc = interval_extract(f, VEC_DATA(&args[1], sql_interval)[vec_index(&args[1], r)], &v, err);
        else if (rc == STRATA_OK)
            rc = ts_extract(f, arg_i64(&args[1], r), &v, err);
        if (rc != STRATA_OK) return rc;
        VEC_DATA(out, double)[r] = t.id == TYPE_DECIMAL ? dec_to_double(v, t.scale) : (double)v;
    }
    return STRATA_OK;
}

static const func_def misc_defs[] = {
    {"date_part", bind_date_part, exec_date_part},
    {"date_trunc", bind_date_trunc, exec_date_trunc},
    {"greatest", bind_greatest, exec_greatest},
    {"least", bind_least, exec_least},
};

/* ---- the registry ---- */

static const struct {
    const func_def *defs;
    const int *count;
} tables[] = {{misc_defs, NULL}, {func_string_defs, &func_string_count}, {func_math_defs, &func_math_count}};

#define NTABLES (sizeof tables / sizeof tables[0])

static int table_count(size_t t) {
    return tables[t].count ? *tables[t].count : (int)(sizeof misc_defs / sizeof misc_defs[0]);
}

const func_def *func_lookup(const char *name) {
    for (size_t t = 0; t < NTABLES; t++)
        for (int i = 0; i < table_count(t); i++)
            if (strcmp(tables[t].defs[i].name, name) == 0) return &tables[t].defs[i];
    return NULL;
}

/* edit_distance is the Levenshtein distance of a and b (ASCII case folded), for names of up to
** 63 bytes; longer names are cut there, which only matters for names that match nothing. */
static size_t edit_distance(const char *a, const char *b) {
    size_t na = strnlen(a, 63), nb = strnlen(b, 63), row[64];
    for (size_t j = 0; j <= nb; j++)
        row[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            char ca = a[i - 1], cb = b[j - 1];
            if (ca >= 'A' && ca <= 'Z') ca = (char)(ca + 32);
            size_t best = diag + (ca != cb);
            if (row[j] + 1 < best) best = row[j] + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            diag = row[j];
            row[j] = best;
        }
    }
    return row[nb];
}

const char *func_suggest(const char *name) {
    size_t len = strlen(name), limit = len <= 3 ? 1 : len <= 8 ? 2 : 3, best_d = limit + 1;
    const char *best = NULL;
    for (size_t t = 0; t < NTABLES; t++)
        for (int i = 0; i < table_count(t); i++) {
            size_t d = edit_distance(name, tables[t].defs[i].name);
            if (d < best_d) best_d = d, best = tables[t].defs[i].name;
        }
    return best;
}
