/*
** value.c -- the tagged single value (sql_value): constructors, comparison, hashing, casts, text
** output, arithmetic and EXTRACT over values (constant folding, row-at-a-time paths), and the
** implicit-cast type rules the binder asks for.
**
** The per-type work is in value_scalar.c, decimal.c and datetime.c; this file only dispatches on
** type ids and states the rules that involve two types. The rules themselves are documented in
** value.h, next to the functions.
*/
#include <math.h>
#include <string.h>

#include "hash.h"
#include "value_internal.h"

/* ---- constructors ---- */

static sql_value make(sql_type t) {
    sql_value v;
    memset(&v, 0, sizeof v);
    v.type = t;
    return v;
}

sql_value value_null(sql_type t) {
    sql_value v = make(t);
    v.is_null = 1;
    return v;
}

sql_value value_bool(bool b) {
    sql_value v = make(sql_type_make(TYPE_BOOLEAN));
    v.v.i = b;
    return v;
}

sql_value value_int(uint8_t id, int64_t x) {
    sql_value v = make(sql_type_make(id));
    v.v.i = x;
    return v;
}

sql_value value_double(double d) {
    sql_value v = make(sql_type_make(TYPE_DOUBLE));
    v.v.d = d;
    return v;
}

sql_value value_decimal(int64_t x, uint8_t precision, uint8_t scale) {
    sql_value v = make(sql_type_decimal(precision, scale));
    v.v.i = x;
    return v;
}

sql_value value_date(int32_t days) { return value_int(TYPE_DATE, days); }
sql_value value_timestamp(int64_t micros) { return value_int(TYPE_TIMESTAMP, micros); }

sql_value value_interval(sql_interval iv) {
    sql_value v = make(sql_type_make(TYPE_INTERVAL));
    v.v.iv = iv;
    return v;
}

sql_value value_text(const char *s, uint32_t len) {
    sql_value v = make(sql_type_make(TYPE_VARCHAR));
    v.v.s = sstr_ref(s, len);
    return v;
}

sql_value value_blob(const void *p, uint32_t len) {
    sql_value v = make(sql_type_make(TYPE_BLOB));
    v.v.s = sstr_ref(p, len);
    return v;
}

/* ---- comparison and hashing ---- */

static uint8_t scale_of(const sql_value *v) { return v->type.id == TYPE_DECIMAL ? v->type.scale : 0; }

/* as_double: any number as the double PostgreSQL's implicit cast to float8 gives. */
static double as_double(const sql_value *v) {
    if (v->type.id == TYPE_DOUBLE) return v->v.d;
    if (v->type.id == TYPE_DECIMAL) return dec_to_double(v->v.i, v->type.scale);
    return (double)v->v.i;
}

static int64_t as_ts(const sql_value *v) {
    return v->type.id == TYPE_DATE ? date_to_ts((int32_t)v->v.i) : v->v.i;
}

static int cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : a > b; }

static int cmp_double(double a, double b) {
    if (isnan(a)) return isnan(b) ? 0 : 1;
    if (isnan(b)) return -1;
    return a < b ? -1 : a > b;
}

static int cmp_bytes(const sstr *a, const sstr *b) {
    uint32_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(sstr_data(a), sstr_data(b), n) : 0;
    if (c != 0) return c < 0 ? -1 : 1;
    return cmp_i64(a->len, b->len);
}

int value_compare(const sql_value *a, const sql_value *b) {
    if (a->is_null || b->is_null) return (a->is_null != 0) - (b->is_null != 0);
    uint8_t x = a->type.id, y = b->type.id;
    if (sql_type_is_numeric(x) && sql_type_is_numeric(y)) {
        if (x == TYPE_DOUBLE || y == TYPE_DOUBLE) return cmp_double(as_double(a), as_double(b));
        return dec_compare(a->v.i, scale_of(a), b->v.i, scale_of(b));
    }
    if ((x == TYPE_DATE || x == TYPE_TIMESTAMP) && (y == TYPE_DATE || y == TYPE_TIMESTAMP))
        return cmp_i64(as_ts(a), as_ts(b));
    if (x != y) return x < y ? -1 : 1;
    switch (x) {
    case TYPE_BOOLEAN: return cmp_i64(a->v.i, b->v.i);
    case TYPE_VARCHAR:
    case TYPE_BLOB: return cmp_bytes(&a->v.s, &b->v.s);
    case TYPE_INTERVAL: return interval_compare(a->v.iv, b->v.iv);
    default: return 0;
    }
}

bool value_equal(const sql_value *a, const sql_value *b) { return value_compare(a, b) == 0; }

uint64_t value_hash(const sql_value *v) {
    if (v->is_null) return VALUE_HASH_NULL;
    switch (v->type.id) {
    case TYPE_DOUBLE: return hash_f64(v->v.d);
    case TYPE_INTERVAL: return hash_interval(v->v.iv);
    case TYPE_VARCHAR:
    case TYPE_BLOB: return hash_sstr(&v->v.s);
    default: return hash_i64(v->v.i); /* the integers, BOOLEAN, DECIMAL, DATE, TIMESTAMP */
    }
}

/* ---- text ---- */

size_t value_to_text(const sql_value *v, char *buf, size_t cap) {
    char tmp[VALUE_TEXT_MAX];
    const char *src = tmp;
    size_t n = 0;
    uint8_t id = v->is_null ? TYPE_NULL : v->type.id;
    switch (id) {
    case TYPE_NULL: src = "NULL", n = 4; break;
    case TYPE_BOOLEAN: src = v->v.i ? "true" : "false", n = v->v.i ? 4 : 5; break;
    case TYPE_SMALLINT:
    case TYPE_INTEGER:
    case TYPE_BIGINT: n = int_format(v->v.i, tmp); break;
    case TYPE_DOUBLE: n = dbl_format(v->v.d, tmp); break;
    case TYPE_DECIMAL: n = dec_format(v->v.i, v->type.scale, tmp); break;
    case TYPE_VARCHAR: src = sstr_data(&v->v.s), n = v->v.s.len; break;
    case TYPE_DATE: n = date_format((int32_t)v->v.i, tmp); break;
    case TYPE_TIMESTAMP: n = ts_format(v->v.i, tmp); break;
    case TYPE_INTERVAL: n = interval_format(v->v.iv, tmp); break;
    case TYPE_BLOB: { /* "\x" and two hex digits a byte, written as far as cap allows */
        static const char hex[] = "0123456789abcdef";
        const unsigned char *b = (const unsigned char *)sstr_data(&v->v.s);
        n = 2 + 2 * (size_t)v->v.s.len;
        for (size_t i = 0; i + 1 < cap && i < n; i++)
            buf[i] = i == 0 ? '\\' : i == 1 ? 'x' : hex[(i & 1) ? b[(i - 2) / 2] & 15 : b[(i - 2) / 2] >> 4];
        if (cap) buf[n < cap ? n : cap - 1] = '\0';
        return n;
    }
    default: src = "", n = 0; break;
    }
    if (cap) {
        size_t k = n < cap ? n : cap - 1;
        if (k) memcpy(buf, src, k);
        buf[k] = '\0';
    }
    return n;
}

int value_to_text_arena(const sql_value *v, arena *a, const char **out, size_t *len, strata_err *err) {
    size_t n = value_to_text(v, NULL, 0);
    if (a == NULL) return err_set(err, STRATA_MISUSE, "value_to_text_arena needs an arena");
    char *buf = arena_alloc(a, n + 1);
    if (buf == NULL) return err_set(err, STRATA_NOMEM, "out of memory formatting a value of %zu bytes", n);
    value_to_text(v, buf, n + 1);
    *out = buf;
    if (len) *len = n;
    return STRATA_OK;
}

/* ---- casts ---- */

/* to_varchar formats in as text and fits it to `to`'s length. */
static int to_varchar(const sql_value *in, sql_type to, bool explicit_cast, arena *a, sql_value *r,
                      strata_err *err) {
    char tmp[VALUE_TEXT_MAX];
    const char *p;
    size_t n, keep;
    bool copy = true;
    if (in->type.id == TYPE_VARCHAR) {
        p = sstr_data(&in->v.s), n = in->v.s.len, copy = false;
    } else {
        n = value_to_text(in, NULL, 0);
        char *buf = tmp;
        if (n >= sizeof tmp) {
            if (a == NULL) return err_set(err, STRATA_MISUSE, "a text of %zu bytes needs an arena", n);
            if ((buf = arena_alloc(a, n + 1)) == NULL)
                return err_set(err, STRATA_NOMEM, "out of memory formatting a value of %zu bytes", n);
            copy = false;
        }
        value_to_text(in, buf, n + 1);
        p = buf;
    }
    int rc = varchar_check(p, n, to.max_len, explicit_cast, &keep, err);
    if (rc != STRATA_OK) return rc;
    if (copy) return sstr_copy(a, p, keep, &r->v.s, err);
    r->v.s = sstr_ref(p, (uint32_t)keep);
    return STRATA_OK;
}

int value_cast(const sql_value *in, sql_type to, bool explicit_cast, arena *a, sql_value *out,
               strata_err *err) {
    if (in->is_null) {
        *out = value_null(to);
        return STRATA_OK;
    }
    sql_value r = make(to);
    uint8_t from = in->type.id;
    const char *text = from == TYPE_VARCHAR ? sstr_data(&in->v.s) : NULL;
    size_t len = from == TYPE_VARCHAR ? in->v.s.len : 0;
    bool ints = sql_type_is_integer(from) || from == TYPE_BOOLEAN;
    int rc = STRATA_OK;
    switch (to.id) {
    case TYPE_VARCHAR: rc = to_varchar(in, to, explicit_cast, a, &r, err); break;
    case TYPE_BOOLEAN:
        if (text) {
            bool b;
            if ((rc = bool_parse(text, len, &b, err)) == STRATA_OK) r.v.i = b;
        } else if (ints) {
            r.v.i = in->v.i != 0;
        } else {
            goto cannot;
        }
        break;
    case TYPE_SMALLINT:
    case TYPE_INTEGER:
    case TYPE_BIGINT:
        if (text)
            rc = int_parse(to.id, text, len, &r.v.i, err);
        else if (ints)
            rc = fits_int(to.id, in->v.i, &r.v.i, err);
        else if (from == TYPE_DOUBLE)
            rc = dbl_to_int(to.id, in->v.d, &r.v.i, err);
        else if (from == TYPE_DECIMAL)
            rc = dec_to_int(to.id, in->v.i, in->type.scale, &r.v.i, err);
        else
            goto cannot;
        break;
    case TYPE_DOUBLE:
        if (text)
            rc = dbl_parse(text, len, &r.v.d, err);
        else if (sql_type_is_numeric(from))
            r.v.d = as_double(in);
        else
            goto cannot;
        break;
    case TYPE_DECIMAL:
        if (text)
            rc = dec_parse(text, len, to.precision, to.scale, &r.v.i, err);
        else if (sql_type_is_integer(from))
            rc = dec_from_int(in->v.i, to, &r.v.i, err);
        else if (from == TYPE_DECIMAL)
            rc = dec_rescale(in->v.i, in->type.scale, to, &r.v.i, err);
        else if (from == TYPE_DOUBLE)
            rc = dec_from_double(in->v.d, to, &r.v.i, err);
        else
            goto cannot;
        break;
    case TYPE_DATE: {
        int32_t d;
        if (text)
            rc = date_parse(text, len, &d, err);
        else if (from == TYPE_TIMESTAMP)
            d = ts_to_date(in->v.i);
        else if (from == TYPE_DATE)
            d = (int32_t)in->v.i;
        else
            goto cannot;
        if (rc == STRATA_OK) r.v.i = d;
        break;
    }
    case TYPE_TIMESTAMP:
        if (text)
            rc = ts_parse(text, len, &r.v.i, err);
        else if (from == TYPE_DATE || from == TYPE_TIMESTAMP)
            r.v.i = as_ts(in);
        else
            goto cannot;
        break;
    case TYPE_INTERVAL:
        if (text)
            rc = interval_parse(text, len, NULL, &r.v.iv, err);
        else if (from == TYPE_INTERVAL)
            r.v.iv = in->v.iv;
        else
            goto cannot;
        break;
    case TYPE_BLOB:
        if (text)
            rc = blob_parse(text, len, a, &r.v.s, err);
        else if (from == TYPE_BLOB)
            r.v.s = in->v.s;
        else
            goto cannot;
        break;
    default: goto cannot;
    }
    if (rc == STRATA_OK) *out = r;
    return rc;
cannot:
    return err_set(err, STRATA_ERROR, "cannot cast type %s to %s", sql_type_name(from), sql_type_name(to.id));
}

/* ---- arithmetic and EXTRACT ---- */

int value_arith(value_op op, const sql_value *a, const sql_value *b, sql_value *out, strata_err *err) {
    sql_type rt;
    int rc = value_arith_type(op, a->type, b->type, 0, &rt, err);
    if (rc != STRATA_OK) return rc;
    if (a->is_null || b->is_null) {
        *out = value_null(rt);
        return STRATA_OK;
    }
    uint8_t x = a->type.id;
    sql_value r = make(rt);
    switch (rt.id) {
    case TYPE_SMALLINT:
    case TYPE_INTEGER:
    case TYPE_BIGINT:
        if (x == TYPE_DATE)
            r.v.i = date_diff((int32_t)a->v.i, (int32_t)b->v.i);
        else
            rc = int_arith(op, rt.id, a->v.i, b->v.i, &r.v.i, err);
        break;
    case TYPE_DOUBLE: rc = dbl_arith(op, as_double(a), as_double(b), &r.v.d, err); break;
    case TYPE_DECIMAL: rc = dec_arith(op, a->v.i, scale_of(a), b->v.i, scale_of(b), rt, &r.v.i, err); break;
    case TYPE_DATE: { /* date + n, n + date, date - n */
        const sql_value *d = x == TYPE_DATE ? a : b, *n = x == TYPE_DATE ? b : a;
        int32_t day;
        if (n->v.i == INT64_MIN) return err_set(err, STRATA_ERROR, "date out of range");
        rc = date_add_days((int32_t)d->v.i, op == VALUE_SUB ? -n->v.i : n->v.i, &day, err);
        r.v.i = day;
        break;
    }
    case TYPE_TIMESTAMP: { /* date or timestamp +/- interval, interval + date or timestamp */
        const sql_value *t = x == TYPE_INTERVAL ? b : a, *iv = x == TYPE_INTERVAL ? a : b;
        rc = (op == VALUE_SUB ? ts_sub_interval : ts_add_interval)(as_ts(t), iv->v.iv, &r.v.i, err);
        break;
    }
    default: /* TYPE_INTERVAL */
        if (x == TYPE_INTERVAL)
            rc = (op == VALUE_SUB ? interval_sub : interval_add)(a->v.iv, b->v.iv, &r.v.iv, err);
        else
            r.v.iv = ts_diff(as_ts(a), as_ts(b));
        break;
    }
    if (rc == STRATA_OK) *out = r;
    return rc;
}

int value_negate(const sql_value *a, sql_value *out, strata_err *err) {
    sql_value r = *a;
    int rc = STRATA_OK;
    if (a->is_null &&
        (sql_type_is_numeric(a->type.id) || a->type.id == TYPE_INTERVAL || a->type.id == TYPE_NULL)) {
        *out = r;
        return STRATA_OK;
    }
    switch (a->type.id) {
    case TYPE_SMALLINT:
    case TYPE_INTEGER:
    case TYPE_BIGINT: rc = int_neg(a->type.id, a->v.i, &r.v.i, err); break;
    case TYPE_DOUBLE: r.v.d = -a->v.d; break;
    case TYPE_DECIMAL: r.v.i = -a->v.i; break;
    case TYPE_INTERVAL: rc = interval_neg(a->v.iv, &r.v.iv, err); break;
    default: return err_set(err, STRATA_ERROR, "operator does not exist: - %s", sql_type_name(a->type.id));
    }
    if (rc == STRATA_OK) *out = r;
    return rc;
}

int value_extract(dt_field f, const sql_value *in, sql_value *out, strata_err *err) {
    sql_type t;
    int rc = dt_extract_type(f, in->type.id, &t, err);
    if (rc != STRATA_OK) return rc;
    if (in->is_null) {
        *out = value_null(t);
        return STRATA_OK;
    }
    sql_value r = make(t);
    if (in->type.id == TYPE_DATE)
        rc = date_extract(f, (int32_t)in->v.i, &r.v.i, err);
    else if (in->type.id == TYPE_TIMESTAMP)
        rc = ts_extract(f, in->v.i, &r.v.i, err);
    else
        rc = interval_extract(f, in->v.iv, &r.v.i, err);
    if (rc == STRATA_OK) *out = r;
    return rc;
}

/* ---- type rules ---- */

static int no_match(sql_type a, sql_type b, strata_err *err) {
    return err_set(err, STRATA_ERROR, "types %s and %s cannot be matched", sql_type_name(a.id),
                   sql_type_name(b.id));
}

int value_common_type(sql_type a, sql_type b, int flags, sql_type *out, strata_err *err) {
    bool la = (flags & VALUE_LITERAL_A) && a.id == TYPE_VARCHAR,
         lb = (flags & VALUE_LITERAL_B) && b.id == TYPE_VARCHAR;
    if (la || lb) {
        sql_type other = la ? b : a;
        *out = (la && lb) || other.id == TYPE_NULL ? sql_type_varchar(0) : other;
        return STRATA_OK;
    }
    if (a.id == TYPE_NULL || b.id == TYPE_NULL) {
        *out = a.id == TYPE_NULL ? b : a;
        return STRATA_OK;
    }
    if (sql_type_is_numeric(a.id) && sql_type_is_numeric(b.id)) {
        if (a.id == TYPE_DOUBLE || b.id == TYPE_DOUBLE) {
            *out = sql_type_make(TYPE_DOUBLE);
        } else if (a.id == TYPE_DECIMAL || b.id == TYPE_DECIMAL) {
            sql_type x = dec_as_decimal(a), y = dec_as_decimal(b);
            int s = x.scale > y.scale ? x.scale : y.scale;
            int i =
                x.precision - x.scale > y.precision - y.scale ? x.precision - x.scale : y.precision - y.scale;
            *out = sql_type_decimal((uint8_t)(i + s > 18 ? 18 : i + s), (uint8_t)s);
        } else {
            *out = a.id > b.id ? a : b;
        }
        return STRATA_OK;
    }
    if (a.id == b.id) {
        *out = a;
        if (a.id == TYPE_VARCHAR)
            out->max_len = a.max_len == 0 || b.max_len == 0 ? 0
                           : a.max_len > b.max_len          ? a.max_len
                                                            : b.max_len;
        return STRATA_OK;
    }
    if ((a.id == TYPE_DATE || a.id == TYPE_TIMESTAMP) && (b.id == TYPE_DATE || b.id == TYPE_TIMESTAMP)) {
        *out = sql_type_make(TYPE_TIMESTAMP);
        return STRATA_OK;
    }
    return no_match(a, b, err);
}

/* null_partner: the type an untyped NULL operand takes beside t in arithmetic. */
static sql_type null_partner(sql_type t) {
    if (t.id == TYPE_DATE) return sql_type_make(TYPE_INTEGER);
    if (t.id == TYPE_TIMESTAMP) return sql_type_make(TYPE_INTERVAL);
    return t;
}

int value_arith_type(value_op op, sql_type a, sql_type b, int flags, sql_type *out, strata_err *err) {
    static const char op_char[] = "+-*/%";
    bool la = (flags & VALUE_LITERAL_A) && a.id == TYPE_VARCHAR,
         lb = (flags & VALUE_LITERAL_B) && b.id == TYPE_VARCHAR;
    if (la && !lb && (sql_type_is_numeric(b.id) || b.id == TYPE_INTERVAL)) a = b;
    if (lb && !la && (sql_type_is_numeric(a.id) || a.id == TYPE_INTERVAL)) b = a;
    if (a.id == TYPE_NULL && b.id == TYPE_NULL)
        a = b = sql_type_make(TYPE_INTEGER);
    else if (a.id == TYPE_NULL)
        a = null_partner(b);
    else if (b.id == TYPE_NULL)
        b = null_partner(a);
    uint8_t x = a.id, y = b.id;
    bool xt = x == TYPE_DATE || x == TYPE_TIMESTAMP, yt = y == TYPE_DATE || y == TYPE_TIMESTAMP;
    bool additive = op == VALUE_ADD || op == VALUE_SUB;
    if (sql_type_is_numeric(x) && sql_type_is_numeric(y)) {
        if (x == TYPE_DOUBLE || y == TYPE_DOUBLE) {
            if (op == VALUE_MOD) goto none;
            *out = sql_type_make(TYPE_DOUBLE);
        } else if (x == TYPE_DECIMAL || y == TYPE_DECIMAL) {
            *out = dec_result_type(op, a, b);
        } else {
            *out = x > y ? a : b;
        }
    } else if ((op == VALUE_ADD &&
                ((x == TYPE_DATE && sql_type_is_integer(y)) || (sql_type_is_integer(x) && y == TYPE_DATE))) ||
               (op == VALUE_SUB && x == TYPE_DATE && sql_type_is_integer(y))) {
        *out = sql_type_make(TYPE_DATE);
    } else if (op == VALUE_SUB && x == TYPE_DATE && y == TYPE_DATE) {
        *out = sql_type_make(TYPE_INTEGER);
    } else if ((additive && xt && y == TYPE_INTERVAL) || (op == VALUE_ADD && x == TYPE_INTERVAL && yt)) {
        *out = sql_type_make(TYPE_TIMESTAMP);
    } else if ((op == VALUE_SUB && xt && yt) || (additive && x == TYPE_INTERVAL && y == TYPE_INTERVAL)) {
        *out = sql_type_make(TYPE_INTERVAL);
    } else {
        goto none;
    }
    return STRATA_OK;
none:
    return err_set(err, STRATA_ERROR, "operator does not exist: %s %c %s", sql_type_name(x), op_char[op],
                   sql_type_name(y));
}

int value_sum_type(sql_type in, sql_type *out, strata_err *err) {
    if (sql_type_is_integer(in.id))
        *out = sql_type_make(TYPE_BIGINT);
    else if (in.id == TYPE_DECIMAL)
        *out = sql_type_decimal(DEC_MAX_PRECISION, in.scale);
    else if (in.id == TYPE_DOUBLE)
        *out = in;
    else
        return err_set(err, STRATA_ERROR, "function sum(%s) does not exist", sql_type_name(in.id));
    return STRATA_OK;
}

int value_avg_type(sql_type in, sql_type *out, strata_err *err) {
    if (sql_type_is_integer(in.id) || in.id == TYPE_DOUBLE) {
        *out = sql_type_make(TYPE_DOUBLE);
    } else if (in.id == TYPE_DECIMAL) {
        int s = in.scale > 6 ? in.scale : 6, room = DEC_MAX_PRECISION - in.precision + in.scale;
        *out = sql_type_decimal(DEC_MAX_PRECISION, (uint8_t)(s < room ? s : room));
    } else {
        return err_set(err, STRATA_ERROR, "function avg(%s) does not exist", sql_type_name(in.id));
    }
    return STRATA_OK;
}
