/*
** estimate.c -- row estimates of plan operators from table statistics (see estimate.h for the
** model and its defaults).
**
** A column of an operator's output is traced down to the table column it reads (through
** filters, projections of plain columns, joins, group keys, sorts), so a predicate or a key
** anywhere in the plan finds that column's statistics. Nothing here allocates or fails.
*/
#include "optimize/estimate.h"

#include <math.h>
#include <stdlib.h>

#include "catalog/catalog.h"
#include "catalog/stats.h"

/* Where an output column comes from: column col of table td (-1: its rowid); td NULL: unknown. */
typedef struct col_origin {
    const table_def *td;
    int32_t col;
} col_origin;

static const col_origin UNKNOWN = {NULL, 0};

static const expr *strip_casts(const expr *e) {
    while (e && e->kind == EXPR_CAST) e = e->args[0];
    return e;
}

/* origin traces output column col of p to a table column. */
static col_origin origin(const plan_op *p, uint32_t col) {
    switch (p->kind) {
    case PLAN_SCAN:
        if (col < p->scan.ncols) return (col_origin){p->scan.table, (int32_t)p->scan.cols[col]};
        return p->scan.with_rowid && col == p->scan.ncols ? (col_origin){p->scan.table, -1} : UNKNOWN;
    case PLAN_INDEX_SCAN:
        if (col < p->iscan.ncols) return (col_origin){p->iscan.table, (int32_t)p->iscan.cols[col]};
        return p->iscan.with_rowid && col == p->iscan.ncols ? (col_origin){p->iscan.table, -1} : UNKNOWN;
    case PLAN_FILTER:
    case PLAN_SORT:
    case PLAN_LIMIT:
    case PLAN_DISTINCT: return origin(p->child[0], col);
    case PLAN_PROJECT: {
        const expr *e = col < p->ncols ? strip_casts(p->project.exprs[col]) : NULL;
        return e && e->kind == EXPR_COL ? origin(p->child[0], e->col) : UNKNOWN;
    }
    case PLAN_AGG: {
        const expr *e = col < p->agg.nkeys ? strip_casts(p->agg.keys[col]) : NULL;
        return e && e->kind == EXPR_COL ? origin(p->child[0], e->col) : UNKNOWN;
    }
    case PLAN_HASH_JOIN:
    case PLAN_NL_JOIN:
    case PLAN_INDEX_JOIN: /* joined columns: the left input's, then the right's */
        if (p->join.kind == JK_RSEMI || p->join.kind == JK_RANTI) return origin(p->child[1], col);
        if (col < p->child[0]->ncols) return origin(p->child[0], col);
        return origin(p->child[1], col - p->child[0]->ncols);
    default: return UNKNOWN;
    }
}

static const column_stats *origin_stats(col_origin o) {
    if (!o.td || !o.td->stats || o.col < 0 || (uint32_t)o.col >= o.td->stats->ncols) return NULL;
    return &o.td->stats->cols[o.col];
}

double estimate_table_rows(const table_def *td) {
    if (td->stats) return (double)(td->stats->rows + td->unanalyzed);
    if (td->pending >= 0 && !td->desc.col_root) return (double)(td->pending + td->inserted); /* all in the row store */
    return DEFAULT_TABLE_ROWS;
}

/* unique_column: the rowid, or the only key of a unique index: as many values as rows. */
static bool unique_column(col_origin o) {
    if (o.col < 0 || o.col == o.td->rowid_col) return true;
    for (uint32_t i = 0; i < o.td->nindexes; i++) {
        const index_def *ix = o.td->indexes[i];
        if (ix->unique && ix->nkeys == 1 && ix->key_cols[0] == o.col) return true;
    }
    return false;
}

/* origin_distinct: the distinct values of a table column in its whole table; -1 unknown. */
static double origin_distinct(col_origin o) {
    if (!o.td) return -1;
    if (unique_column(o)) return estimate_table_rows(o.td);
    const column_stats *cs = origin_stats(o);
    return cs ? cs->distinct : -1;
}

/* null_fraction: the share of NULLs of a table column (0 when unknown). */
static double null_fraction(col_origin o) {
    const column_stats *cs = origin_stats(o);
    if (!cs || o.td->stats->rows <= 0) return 0;
    return (double)cs->nulls / (double)o.td->stats->rows;
}

static double clamp01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

double estimate_distinct(const expr *e, const plan_op *p) {
    e = strip_casts(e);
    double rows = p->est_rows, d = -1;
    if (e->kind == EXPR_CONST || e->kind == EXPR_PARAM) d = 1;
    else if (e->kind == EXPR_COL) d = origin_distinct(origin(p, e->col));
    if (d < 0) d = DISTINCT_DEFAULT_FRACTION * rows;
    if (d > rows) d = rows;
    return d < 1 ? 1 : d;
}

/* ---- predicates ------------------------------------------------------------------------------ */

/* A comparison of a column with a constant or parameter, the column on the left. */
typedef struct col_cmp {
    col_origin o;
    cmp_op op;
    const expr *k;  /* EXPR_CONST or EXPR_PARAM */
} col_cmp;

static cmp_op flip(cmp_op op) {
    static const cmp_op f[] = {[CMP_EQ] = CMP_EQ, [CMP_NE] = CMP_NE, [CMP_LT] = CMP_GT,
                               [CMP_LE] = CMP_GE, [CMP_GT] = CMP_LT, [CMP_GE] = CMP_LE};
    return f[op];
}

static bool is_value(const expr *e) { return e->kind == EXPR_CONST || e->kind == EXPR_PARAM; }

static bool as_col_cmp(const expr *e, const plan_op *in, col_cmp *out) {
    if (e->kind != EXPR_CMP) return false;
    const expr *a = strip_casts(e->args[0]), *b = strip_casts(e->args[1]);
    if (a->kind == EXPR_COL && is_value(b)) *out = (col_cmp){origin(in, a->col), e->cmp, b};
    else if (b->kind == EXPR_COL && is_value(a)) *out = (col_cmp){origin(in, b->col), flip(e->cmp), a};
    else return false;
    return true;
}

/* const_number reads a constant in the units of column o's statistics (a TIMESTAMP constant
** against a DATE column in days, and the reverse). */
static bool const_number(const expr *k, col_origin o, double *out) {
    if (k->kind != EXPR_CONST || !stats_number(&k->value, out)) return false;
    uint8_t col = o.td && o.col >= 0 ? o.td->types[o.col].id : TYPE_BIGINT, kt = k->value.type.id;
    if (col == TYPE_DATE && kt == TYPE_TIMESTAMP) *out /= (double)MICROS_PER_DAY;
    else if (col == TYPE_TIMESTAMP && kt == TYPE_DATE) *out *= (double)MICROS_PER_DAY;
    return true;
}

/* range_fraction: the share of a column's non-NULL values in [lo, hi], interpolated between its
** min and max; -1 when the statistics have no numeric range. With d distinct values the column is
** taken as d points a step (max - min) / (d - 1) apart, each standing for a step of the line, so
** that a range that holds k of them gets about k / d (0.05 to 0.07 of a DECIMAL(15,2) with 11
** values 0.00 .. 0.10 is 3 of 11) and a single value 1 / d. */
static double step_of(const column_stats *cs) {
    return cs->distinct > 1 ? (cs->hi - cs->lo) / (cs->distinct - 1) : 0;
}

static double range_fraction(const column_stats *cs, double lo, double hi) {
    if (!cs || !cs->numeric || !cs->has_range) return -1;
    double a = lo > cs->lo ? lo : cs->lo, b = hi < cs->hi ? hi : cs->hi;
    if (b < a) return 0;
    double width = cs->hi - cs->lo, step = step_of(cs);
    return width + step > 0 ? clamp01((b - a + step) / (width + step)) : 1;
}

/* strict_bound moves the bound of x < k or x > k one step inwards (x < 25 of integers is x <= 24),
** which matters only where the values are few. */
static double strict_bound(const column_stats *cs, cmp_op op, double x) {
    if (!cs) return x;
    return op == CMP_LT ? x - step_of(cs) : op == CMP_GT ? x + step_of(cs) : x;
}

/* eq_sel: the share of rows where column o equals one value. */
static double eq_sel(col_origin o, const plan_op *in) {
    double d = origin_distinct(o);
    if (d < 0) return SEL_EQ_DEFAULT;
    if (d > in->est_rows && in->est_rows >= 1) d = in->est_rows; /* fewer rows hold fewer values */
    return d >= 1 ? (1 - null_fraction(o)) / d : 0;
}

/* cmp_sel: a column compared with a constant or parameter. */
static double cmp_sel(const col_cmp *c, const plan_op *in) {
    double x;
    bool known = const_number(c->k, c->o, &x);
    const column_stats *cs = origin_stats(c->o);
    switch (c->op) {
    case CMP_EQ:
        if (known && range_fraction(cs, x, x) == 0) return 0; /* outside [min, max] */
        return eq_sel(c->o, in);
    case CMP_NE: return clamp01(1 - null_fraction(c->o) - eq_sel(c->o, in));
    case CMP_LT:
    case CMP_LE: {
        double f = known ? range_fraction(cs, -INFINITY, strict_bound(cs, c->op, x)) : -1;
        return f < 0 ? SEL_RANGE_DEFAULT : f * (1 - null_fraction(c->o));
    }
    case CMP_GT:
    case CMP_GE: {
        double f = known ? range_fraction(cs, strict_bound(cs, c->op, x), INFINITY) : -1;
        return f < 0 ? SEL_RANGE_DEFAULT : f * (1 - null_fraction(c->o));
    }
    }
    return SEL_DEFAULT;
}

static double pred_sel(const expr *e, const plan_op *in);

/* A numeric range gathered from the conjuncts of an AND on one column. */
typedef struct col_range {
    col_origin o;
    double lo, hi;
} col_range;

#define AND_MAX 64

/* add_range merges conjunct c into the ranges of its column; false when c is not a range of a
** column with numeric statistics and a constant. */
static bool add_range(col_range *r, int *nr, const col_cmp *c) {
    double x;
    if (c->op == CMP_EQ || c->op == CMP_NE || !origin_stats(c->o) || !origin_stats(c->o)->numeric ||
        !const_number(c->k, c->o, &x))
        return false;
    int i = 0;
    while (i < *nr && !(r[i].o.td == c->o.td && r[i].o.col == c->o.col)) i++;
    if (i == *nr) {
        if (*nr == AND_MAX) return false;
        r[(*nr)++] = (col_range){c->o, -INFINITY, INFINITY};
    }
    x = strict_bound(origin_stats(c->o), c->op, x);
    if (c->op == CMP_LT || c->op == CMP_LE) r[i].hi = x < r[i].hi ? x : r[i].hi;
    else r[i].lo = x > r[i].lo ? x : r[i].lo;
    return true;
}

/* and_sel: ranges on one column intersect (x >= a AND x < b is the share of [a, b)); the other
** conjuncts multiply, as if independent (PostgreSQL's rule: TPC-H's filters are, and a damped
** product overestimated them up to 10×). */
static double and_sel(const expr *e, const plan_op *in) {
    col_range ranges[AND_MAX];
    int nr = 0;
    double s = 1;
    for (int i = 0; i < e->nargs; i++) {
        col_cmp c;
        if (as_col_cmp(e->args[i], in, &c) && add_range(ranges, &nr, &c)) continue;
        s *= pred_sel(e->args[i], in);
    }
    for (int i = 0; i < nr; i++)
        s *= range_fraction(origin_stats(ranges[i].o), ranges[i].lo, ranges[i].hi) * (1 - null_fraction(ranges[i].o));
    return s;
}

/* pred_sel: the share of in's rows for which e is true. */
static double pred_sel(const expr *e, const plan_op *in) {
    col_cmp c;
    switch (e->kind) {
    case EXPR_CONST: return e->value.is_null || (e->value.type.id == TYPE_BOOLEAN && !e->value.v.i) ? 0 : 1;
    case EXPR_CMP:
        if (as_col_cmp(e, in, &c)) return cmp_sel(&c, in);
        if (e->cmp == CMP_EQ && strip_casts(e->args[0])->kind == EXPR_COL && strip_casts(e->args[1])->kind == EXPR_COL) {
            double a = estimate_distinct(e->args[0], in), b = estimate_distinct(e->args[1], in);
            return 1 / (a > b ? a : b);
        }
        return e->cmp == CMP_EQ ? SEL_EQ_DEFAULT : SEL_RANGE_DEFAULT;
    case EXPR_AND: return and_sel(e, in);
    case EXPR_OR: {
        double s = 0;
        for (int i = 0; i < e->nargs; i++) {
            double t = pred_sel(e->args[i], in);
            s = s + t - s * t;
        }
        return s;
    }
    case EXPR_NOT: return 1 - pred_sel(e->args[0], in);
    case EXPR_IS_NULL: {
        const expr *a = strip_casts(e->args[0]);
        double s = SEL_NULL_DEFAULT;
        if (a->kind == EXPR_COL) {
            col_origin o = origin(in, a->col);
            if (origin_stats(o)) s = null_fraction(o);
        }
        return e->negated ? 1 - s : s;
    }
    case EXPR_IN_LIST: {
        const expr *a = strip_casts(e->args[0]);
        double s = a->kind == EXPR_COL ? clamp01((e->nargs - 1) * eq_sel(origin(in, a->col), in)) : SEL_DEFAULT;
        return e->negated ? 1 - s : s;
    }
    case EXPR_LIKE: return e->negated ? 1 - SEL_LIKE_DEFAULT : SEL_LIKE_DEFAULT;
    default: return SEL_DEFAULT;
    }
}

double estimate_selectivity(const expr *pred, const plan_op *input) {
    return pred ? clamp01(pred_sel(pred, input)) : 1;
}

/* ---- operators ------------------------------------------------------------------------------- */

/* mentions says whether e reads, through in's output, column col of table td. */
static bool mentions(const expr *e, const plan_op *in, const table_def *td, int32_t col) {
    if (!e) return false;
    if (e->kind == EXPR_COL) {
        col_origin o = origin(in, e->col);
        return o.td == td && (o.col == col || (o.col < 0 && col == td->rowid_col) || (col < 0 && o.col == td->rowid_col));
    }
    if (e->kind == EXPR_SUBQUERY) return false;
    for (int i = 0; i < e->nargs; i++)
        if (mentions(e->args[i], in, td, col)) return true;
    return false;
}

/* filter_rows: a filter over a scan narrowed by a rowid range or an index may still check the
** conditions that narrowed it (all but an index's exact equalities): then its share applies to
** the whole table, else the narrowing would count twice. Otherwise it applies to its input. */
static double filter_rows(const plan_op *p) {
    const plan_op *in = p->child[0];
    double base = in->est_rows;
    if (in->kind == PLAN_SCAN && (in->scan.lo_expr || in->scan.hi_expr) &&
        mentions(p->filter.pred, in, in->scan.table, -1))
        base = estimate_table_rows(in->scan.table);
    if (in->kind == PLAN_INDEX_SCAN && in->iscan.index &&
        (in->iscan.index->key_cols[0] < 0 || mentions(p->filter.pred, in, in->iscan.table, in->iscan.index->key_cols[0])))
        base = estimate_table_rows(in->iscan.table);
    double e = base * estimate_selectivity(p->filter.pred, in);
    return e < in->est_rows ? e : in->est_rows;
}

/* scan_rows: a table scan, whole or by a rowid range (bounds interpolated on an INTEGER PRIMARY
** KEY's statistics when constant). */
static double scan_rows(const plan_op *p) {
    const table_def *td = p->scan.table;
    double rows = estimate_table_rows(td);
    if (!p->scan.lo_expr && !p->scan.hi_expr) return rows;
    if (p->scan.lo_expr == p->scan.hi_expr) return rows < 1 ? rows : 1;
    col_origin o = {td, td->rowid_col};
    double lo = -INFINITY, hi = INFINITY, f = -1;
    if (td->rowid_col >= 0 && (!p->scan.lo_expr || const_number(p->scan.lo_expr, o, &lo)) &&
        (!p->scan.hi_expr || const_number(p->scan.hi_expr, o, &hi)))
        f = range_fraction(origin_stats(o), lo, hi);
    return rows * (f < 0 ? SEL_RANGE_DEFAULT : f);
}

/* index_scan_rows: each key column bounded by the scan is an equality (the same value below and
** above) or a range; their shares multiply. */
static double index_scan_rows(const plan_op *p) {
    const table_def *td = p->iscan.table;
    double rows = estimate_table_rows(td), sel = 1;
    int n = p->iscan.nlo > p->iscan.nhi ? p->iscan.nlo : p->iscan.nhi;
    for (int k = 0; k < n; k++) {
        int32_t col = p->iscan.index ? p->iscan.index->key_cols[k] : -1;
        col_origin o = {col >= 0 || !p->iscan.index ? td : NULL, col};
        const expr *lo = k < p->iscan.nlo ? p->iscan.lo[k] : NULL, *hi = k < p->iscan.nhi ? p->iscan.hi[k] : NULL;
        bool eq = lo && hi && (lo == hi || (lo->kind == EXPR_CONST && hi->kind == EXPR_CONST &&
                                            value_compare(&lo->value, &hi->value) == 0));
        if (eq) {
            double d = o.td ? origin_distinct(o) : -1;
            sel *= d >= 1 ? 1 / d : SEL_EQ_DEFAULT;
            continue;
        }
        double a = -INFINITY, b = INFINITY, f = -1;
        if (o.td && (!lo || const_number(lo, o, &a)) && (!hi || const_number(hi, o, &b)))
            f = range_fraction(origin_stats(o), a, b);
        sel *= f < 0 ? SEL_RANGE_DEFAULT : f;
    }
    return rows * sel;
}

/* keys_distinct: the distinct combinations of keys over p's rows: the product of each key's
** count, at most the rows. */
static double keys_distinct(expr *const *keys, uint32_t n, const plan_op *p) {
    double d = 1;
    for (uint32_t i = 0; i < n; i++) d *= estimate_distinct(keys[i], p);
    return d < p->est_rows ? d : p->est_rows;
}

/* all_columns_distinct: DISTINCT's rows, as a GROUP BY on every column. */
static double all_columns_distinct(const plan_op *p) {
    const plan_op *in = p->child[0];
    double d = 1;
    for (uint32_t c = 0; c < in->ncols && d < in->est_rows; c++) {
        double k = origin_distinct(origin(in, c));
        d *= k >= 1 ? k : DISTINCT_DEFAULT_FRACTION * in->est_rows;
    }
    return d < in->est_rows ? d : in->est_rows;
}

/* join_rows: an equi-join's inner rows, |L| * |R| / max(distinct(l), distinct(r)), where a side's
** distinct count over several keys is the product of its keys' counts but at most its rows: the
** keys of a join are seldom independent (partsupp's (ps_partkey, ps_suppkey) is its key, with
** fewer combinations than the product of the two counts). joinorder.c counts its edges alike. */
static double join_rows(const plan_op *p) {
    const plan_op *l = p->child[0], *r = p->child[1];
    double a = 1, b = 1;
    for (uint32_t k = 0; k < p->join.nkeys; k++) {
        a *= estimate_distinct(p->join.lkeys[k], l);
        b *= estimate_distinct(p->join.rkeys[k], r);
    }
    if (a > l->est_rows) a = l->est_rows;
    if (b > r->est_rows) b = r->est_rows;
    double d = a > b ? a : b;
    return l->est_rows * r->est_rows / (d >= 1 ? d : 1);
}

/* semi_share: the share of the passed side's rows that find a partner (each of its key values
** present on the other side while that side has as many distinct values). */
static double semi_share(const plan_op *p, bool right) {
    if (!p->join.nkeys) return SEL_DEFAULT;
    double dl = estimate_distinct(p->join.lkeys[0], p->child[0]), dr = estimate_distinct(p->join.rkeys[0], p->child[1]);
    return clamp01(right ? dl / dr : dr / dl);
}

static double join_estimate(plan_op *p) {
    double l = p->child[0]->est_rows, r = p->child[1]->est_rows;
    join_kind k = p->join.kind;
    if (k == JK_SEMI || k == JK_ANTI || k == JK_RSEMI || k == JK_RANTI) {
        bool right = k == JK_RSEMI || k == JK_RANTI;
        plan_op joined = *p; /* the residual is over both inputs' columns, as an inner join's */
        joined.join.kind = JK_INNER;
        double share = semi_share(p, right) * estimate_selectivity(p->join.pred, &joined); /* rows with a partner */
        return (right ? r : l) * (k == JK_SEMI || k == JK_RSEMI ? share : 1 - share);
    }
    p->est_rows = p->join.nkeys ? join_rows(p) : l * r; /* the residual condition is over the joined rows */
    double inner = p->est_rows * estimate_selectivity(p->join.pred, p);
    switch (p->join.kind) {
    case JK_LEFT: return inner > l ? inner : l;
    case JK_RIGHT: return inner > r ? inner : r;
    case JK_FULL: return inner > l + r ? inner : (l > r ? l : r) > inner ? (l > r ? l : r) : inner;
    default: return inner;
    }
}

/* const_count reads a LIMIT or OFFSET expression that is a constant; -1 otherwise. */
static double const_count(const expr *e) {
    double x;
    return e && e->kind == EXPR_CONST && stats_number(&e->value, &x) && x >= 0 ? x : -1;
}

/* series_rows: generate_series / range with constant bounds; DEFAULT_TABLE_ROWS otherwise. */
static double series_rows(const plan_op *p) {
    double a, b, step;
    const expr *e[3] = {p->series.start, p->series.stop, p->series.step};
    double *out[3] = {&a, &b, &step};
    for (int i = 0; i < 3; i++)
        if (!e[i] || e[i]->kind != EXPR_CONST || !stats_number(&e[i]->value, out[i])) return DEFAULT_TABLE_ROWS;
    if (step == 0) return DEFAULT_TABLE_ROWS;
    double n = floor((b - a) / step) + (p->series.inclusive ? 1 : 0);
    return n > 0 ? n : 0;
}

static double op_estimate(plan_op *p) {
    const plan_op *in = p->child[0];
    switch (p->kind) {
    case PLAN_SCAN: return scan_rows(p);
    case PLAN_INDEX_SCAN: return index_scan_rows(p);
    case PLAN_VALUES: return p->values.nrows;
    case PLAN_SERIES: return series_rows(p);
    case PLAN_FILTER: return filter_rows(p);
    case PLAN_AGG: return p->agg.nkeys ? keys_distinct(p->agg.keys, p->agg.nhash ? p->agg.nhash : p->agg.nkeys, in) : 1;
    case PLAN_HASH_JOIN:
    case PLAN_NL_JOIN:
    case PLAN_INDEX_JOIN: return join_estimate(p);
    case PLAN_SORT: return p->sort.limit >= 0 && p->sort.limit < in->est_rows ? (double)p->sort.limit : in->est_rows;
    case PLAN_LIMIT: {
        double off = const_count(p->limit.offset), lim = const_count(p->limit.limit);
        double e = in->est_rows - (off > 0 ? off : 0);
        if (lim >= 0 && lim < e) e = lim;
        return e > 0 ? e : 0;
    }
    case PLAN_DISTINCT: return all_columns_distinct(p);
    case PLAN_SETOP: {
        double l = in->est_rows, r = p->child[1]->est_rows;
        if (p->setop.kind == SETOP_UNION) return l + r;
        if (p->setop.kind == SETOP_INTERSECT) return l < r ? l : r;
        return l;
    }
    case PLAN_RECURSIVE: return in->est_rows + p->child[1]->est_rows;
    case PLAN_EMPTY: return p->empty.one_row ? 1 : 0;
    case PLAN_PROJECT:
    case PLAN_INSERT:
    case PLAN_UPDATE:
    case PLAN_DELETE:
    case PLAN_COPY_TO:
    case PLAN_INDEX_BUILD: return in ? in->est_rows : 1;
    default: return DEFAULT_TABLE_ROWS; /* CTE scans, CSV files, storage_info: not known ahead */
    }
}

void estimate_plan(plan_op *p) {
    if (!p) return;
    estimate_plan(p->child[0]);
    estimate_plan(p->child[1]);
    double e = op_estimate(p);
    /* an input that may hold rows gives at least one, as PostgreSQL rounds its estimates */
    bool may_have_rows = p->child[0] ? p->child[0]->est_rows >= 1 : e > 0;
    p->est_rows = e < 1 && may_have_rows && p->kind != PLAN_EMPTY ? 1 : e;
}
