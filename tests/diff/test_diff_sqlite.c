/*
** test_diff_sqlite.c -- differential tests against SQLite: the same generated tables are loaded
** into strata and into SQLite (both :memory:), the same generated queries run in both, and the
** results must agree as multisets of rows (as sequences when the query orders by every output
** column).
**
** Data: three tables t1, t2, t3 (k INTEGER, a INTEGER, b BIGINT, c VARCHAR, d DOUBLE) with
** NULLs, duplicates and small ranges so that joins and groups hit; text from a small vocabulary
** (with upper case, '%' and '_' in the data, and strings longer than the 12 bytes a 16-byte string
** keeps inline); doubles are multiples of 0.25 so that sums are exact in any order. One data set
** has a table of 2,600 rows, which crosses the 2,048-row chunk boundary. The multi-way joins also
** use t4 (up to 8 rows, k unique, the columns in the order a, k, d, c, b) and t5 (up to 60 rows,
** a sixth column e that only SELECT * shows), so that SELECT * has columns of several widths.
**
** Queries come from a typed grammar over the constructs where PostgreSQL's dialect (strata's)
** and SQLite's agree: filters (comparisons, AND/OR/NOT, IS [NOT] NULL, [NOT] BETWEEN, [NOT] IN
** lists with and without NULL, [NOT] LIKE), integer and double arithmetic, CASE, COALESCE, abs,
** length, lower, upper, substr, ||; subqueries: [NOT] EXISTS and [NOT] IN (SELECT ...), correlated
** or not, and scalar count(*)/max() subqueries; INNER/LEFT/RIGHT/FULL/CROSS joins with ON (equality
** plus an optional filter) and USING, comma joins with the equality in WHERE, three-table joins; GROUP BY
** (columns and expressions) with count(*), count, count(DISTINCT), sum, min, max, avg, HAVING;
** DISTINCT; ORDER BY every output column with explicit NULLS FIRST/LAST, LIMIT and OFFSET;
** UNION, UNION ALL, EXCEPT, INTERSECT chains.
**
** Every fourth query joins 4 to 6 aliases over t1..t5 (tables repeat under other aliases) with
** the shapes above (gen_multi_from): a tree of equalities (a chain, a star or a random tree, over
** the written order or a shuffled one, so that the written order may start with a cross product),
** sometimes a key of two columns, and up to three more conditions: an equality closing a cycle, a
** non-equality between two aliases (comparison, OR of equalities, BETWEEN), a condition over three
** aliases (x.a + y.b > z.k, COALESCE(x.a, y.a) = z.a, ...), a filter on one alias; sometimes two
** parts with no condition between them. The aliases are joined by commas (the conditions in WHERE),
** JOIN ... ON, CROSS JOIN, with a LEFT JOIN mixed in and a RIGHT JOIN last; each condition goes into
** WHERE or an ON that sees its aliases. The select list is SELECT *, alias.* lists, expressions over
** several aliases, or aggregates with GROUP BY; subqueries in these queries may join two tables.
** Results stay small: the pairs each equality matches are counted in SQLite when the data is
** loaded, and a join whose written order has an intermediate result estimated above 3,000 rows
** is made to join on k instead.
**
** The dialect differences the generator steps around:
**   - integer overflow is an error in strata and a REAL in SQLite: every integer expression
**     carries a bound on its magnitude, kept below 2^31 for INTEGER-typed expressions and 10^12
**     for BIGINT ones (so sums of up to 10^5 rows stay in range);
**   - / and % on integers: both truncate toward zero and give % the sign of the dividend, but a
**     zero divisor is an error in strata and NULL in SQLite: divisors are nonzero literals;
**   - a literal 1.25 is NUMERIC in PostgreSQL and REAL in SQLite: double literals in arithmetic
**     are written CAST(1.25 AS DOUBLE); plain literals appear only in comparisons; doubles are
**     divided only by 2 or 4 (exact);
**   - SQLite's LIKE ignores case unless PRAGMA case_sensitive_like=ON, which is set;
**   - NULL ordering differs by default: every ORDER BY term says NULLS FIRST or NULLS LAST;
**   - SQLite gives INTERSECT the same precedence as UNION and EXCEPT (left to right), PostgreSQL
**     a higher one: INTERSECT appears only where every operator before it is INTERSECT;
**   - booleans print 1/0 in SQLite and true/false in strata: no boolean is selected (a predicate
**     is selected as CASE WHEN p THEN 1 ELSE 0 END);
**   - LIMIT without a total ORDER BY is nondeterministic: LIMIT comes only with ORDER BY over all
**     output columns; OFFSET only after LIMIT (SQLite needs the LIMIT);
**   - in "x, y JOIN z ON ..." PostgreSQL's ON sees y and z only (SQLite also sees x): ON refers to
**     the aliases after the last comma;
**   - for the same reason, SQLite's "x, y RIGHT JOIN z ON ..." is (x, y) RIGHT JOIN z, PostgreSQL's
**     x, (y RIGHT JOIN z): RIGHT and FULL joins come only where no comma comes before them;
**   - a constant GROUP BY key reads as a position: every key refers to a column;
**   - SQLite may give a whole DOUBLE that went through a GROUP BY as an INTEGER (see cell_equal).
**
** Strata bugs this test found, kept out of the generator until they are fixed (the places are
** marked "bug N"):
**   1. A USING column cannot be named through the right table (the left one for RIGHT JOIN):
**      SELECT y.c FROM t1 AS x JOIN t2 AS y USING (c) -> column "c" does not exist (did you mean
**      "c"?); PostgreSQL accepts it.
**   2. In a FULL JOIN ... USING, x.col gives the merged key, not x's own column: with t1(k,a) =
**      (1,1),(2,2) and t2(k,a) = (10,2),(20,3), SELECT x.k, x.a, y.k FROM t1 AS x FULL JOIN t2 AS y
**      USING (a) gives the row (NULL, 3, 20); PostgreSQL gives (NULL, NULL, 20).
**   3. An outer join whose ON has a constant false conjunct returns no rows at all instead of the
**      preserved side with NULLs: SELECT x.k, y.k FROM t1 AS x LEFT JOIN t2 AS y ON x.a = y.a AND
**      1 = 0 (also ON 1 = 0 alone, and RIGHT and FULL joins).
**   4. NULL IN (an empty subquery) is NULL rather than false, and NULL NOT IN (an empty subquery)
**      NULL rather than true: with t(a) = (1),(NULL) and e(a) empty, SELECT count(*) FROM t WHERE
**      a NOT IN (SELECT a FROM e) gives 1; PostgreSQL and SQLite give 2.
**   5. '' || '' passes a NULL pointer to memcpy (planner/exec/expr.c eval_concat: no buffer is allocated
**      for a zero-length result), which UBSan reports and aborts on: SELECT '' || '' in a
**      SANITIZE=1 build. The generator's || has a nonempty literal on one side.
**
** Not stepped around, since it shows only as a different order of avg values that agree to 1e-9:
**   6. avg over integers is not always the nearest double to sum / count (core/decimal.c
**      avg_to_double rounds the quotient's integer part and the remainder's fraction separately):
**      with t(b BIGINT) = (10),(0),(0),(0),(0),(0), SELECT avg(b) gives 1.6666666666666665, SQLite
**      and PostgreSQL 1.6666666666666667; an ORDER BY on such values may then order near-ties
**      differently (STRATA_DIFF_SEED=90182, query 4 of the 2,600-row data set).
**
** Not a wrong answer but a stated limit, also kept out: a join above the unmatched rows of a RIGHT
** or FULL join fails with "a join above an outer join's unmatched rows is not supported yet", so
** RIGHT and FULL joins come last in a FROM clause.
**
** Scale: STRATA_DIFF_QUERIES sets the total number of queries (default 3,200; 1,000 in a sanitizer
** build), STRATA_DIFF_SEED the base seed, STRATA_DIFF_JOINS=1 makes every query a multi-way join. A mismatch
*prints the seed, the query number, the query
** and both results, and writes the data set and the query as an SQL script under /tmp that runs in
** both engines.
*/
#include <criterion/criterion.h>

#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata.h"

/* ---- deterministic random numbers (splitmix64) ------------------------------------------- */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rng_next(rng *r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* rng_int returns a value in [lo, hi]. */
static int rng_int(rng *r, int lo, int hi) { return lo + (int)(rng_next(r) % (uint64_t)(hi - lo + 1)); }

/* rng_pct is true with probability pct percent. */
static bool rng_pct(rng *r, int pct) { return (int)(rng_next(r) % 100) < pct; }

/* ---- growing text buffer ------------------------------------------------------------------ */

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
        va_end(ap);
        cr_assert(n >= 0);
        if ((size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap - b->len <= (size_t)n)
            cap *= 2;
        b->p = realloc(b->p, cap);
        cr_assert(b->p);
        b->cap = cap;
    }
}

static void sb_reset(sbuf *b) {
    b->len = 0;
    if (b->p) b->p[0] = 0;
}

/* ---- the data sets ------------------------------------------------------------------------ */

/* t1..t3 are the tables of the queries over at most three aliases; the multi-way joins also use
** t4 (a few rows, unique k, its columns in another order) and t5 (up to 60 rows and a sixth
** column e, which only SELECT * shows). */
#define NTABLES 3
#define NTABLES_ALL 5
#define BIG_ROWS 2600

static const char *const vocab[] = {"",
                                    "a",
                                    "ab",
                                    "abc",
                                    "b",
                                    "ba",
                                    "bab",
                                    "x",
                                    "xy",
                                    "A",
                                    "Ab",
                                    "B",
                                    "a_b",
                                    "a%b",
                                    "abcdefghijklmnop",
                                    "abcdefghijklmnopq",
                                    "xyzzy plugh"};
#define NVOCAB (sizeof vocab / sizeof vocab[0])

static const char *const like_patterns[] = {"a%",  "%b", "_b%", "%",         "ab", "%a%",  "a_",   "A%",
                                            "%_%", "",   "_",   "abcdefgh%", "%q", "x%y%", "%ab_", "b%a%b"};
#define NLIKE (sizeof like_patterns / sizeof like_patterns[0])

enum { T_INT, T_DBL, T_TEXT };

/* ---- join columns ---- */

typedef struct join_col {
    const char *x, *y; /* column names on either side */
    int type;
} join_col;

/* Equalities that joins use: same-type columns, INTEGER with BIGINT, and INTEGER with DOUBLE. */
static const join_col join_cols[] = {
    {"a", "a", T_INT},  {"a", "a", T_INT}, {"a", "b", T_INT}, {"b", "b", T_INT}, {"c", "c", T_TEXT},
    {"c", "c", T_TEXT}, {"k", "k", T_INT}, {"d", "d", T_DBL}, {"a", "d", T_INT}, {"k", "a", T_INT},
};
#define NJOIN_COLS 10
_Static_assert(sizeof join_cols / sizeof join_cols[0] == NJOIN_COLS, "join_cols");

typedef struct dataset {
    uint64_t seed;
    int rows[NTABLES_ALL];
    bool big_b[NTABLES_ALL]; /* b holds values beyond the INTEGER range */
    sbuf script;             /* CREATE and INSERT statements, run in both engines */
    /* matches[p][q][j]: the pairs of rows of t(p+1) and t(q+1) that join_cols[j] joins (counted
    ** in SQLite once the tables are loaded), for the multi-way joins' estimates */
    double matches[NTABLES_ALL][NTABLES_ALL][NJOIN_COLS];
} dataset;

/* The columns of each table in their order: k INTEGER, a INTEGER, b BIGINT, c VARCHAR, d DOUBLE
** and t5's e INTEGER. */
static const char *const table_layout[NTABLES_ALL] = {"kabcd", "kabcd", "kabcd", "akdcb", "kabcde"};

static const char *column_type(char col) {
    switch (col) {
    case 'b': return "BIGINT";
    case 'c': return "VARCHAR";
    case 'd': return "DOUBLE";
    default: return "INTEGER";
    }
}

/* dataset_make writes the tables of a seed as SQL. With big set, t3 has BIG_ROWS rows. */
static void dataset_make(dataset *ds, uint64_t seed, bool big) {
    rng r = {seed};
    memset(ds, 0, sizeof *ds);
    ds->seed = seed;
    for (int t = 0; t < NTABLES_ALL; t++) {
        int n = t == 3           ? (rng_pct(&r, 5) ? 0 : rng_int(&r, 1, 8))
                : t == 4         ? (rng_pct(&r, 5) ? 0 : rng_int(&r, 1, 60))
                : rng_pct(&r, 8) ? 0
                                 : rng_int(&r, 1, 45);
        if (big && t == 2) n = BIG_ROWS;
        ds->rows[t] = n;
        ds->big_b[t] = rng_pct(&r, 40);
        int a_lo = rng_int(&r, -4, 0), a_hi = a_lo + rng_int(&r, 3, 9);
        int null_pct = rng_int(&r, 0, 25);
        const char *layout = table_layout[t];
        sb_printf(&ds->script, "CREATE TABLE t%d(", t + 1);
        for (const char *col = layout; *col; col++)
            sb_printf(&ds->script, "%s%c %s", col == layout ? "" : ", ", *col, column_type(*col));
        sb_printf(&ds->script, ");\n");
        for (int i = 0; i < n; i++) {
            char val[6][32]; /* k a b c d e, written in the table's order */
            if (t == 3)
                snprintf(val[0], sizeof val[0], "%d", i + 1);
            else if (rng_pct(&r, 3))
                snprintf(val[0], sizeof val[0], "NULL");
            else
                snprintf(val[0], sizeof val[0], "%d", rng_pct(&r, 10) ? rng_int(&r, 1, n) : i + 1);
            if (rng_pct(&r, null_pct))
                snprintf(val[1], sizeof val[1], "NULL");
            else
                snprintf(val[1], sizeof val[1], "%d", rng_int(&r, a_lo, a_hi));
            if (rng_pct(&r, null_pct))
                snprintf(val[2], sizeof val[2], "NULL");
            else if (ds->big_b[t] && rng_pct(&r, 10))
                snprintf(val[2], sizeof val[2], "%lld",
                         (rng_pct(&r, 50) ? -1LL : 1LL) * (3000000000LL + rng_int(&r, 0, 2)));
            else
                snprintf(val[2], sizeof val[2], "%d", rng_int(&r, -30, 30));
            if (rng_pct(&r, null_pct))
                snprintf(val[3], sizeof val[3], "NULL");
            else
                snprintf(val[3], sizeof val[3], "'%s'", vocab[rng_int(&r, 0, NVOCAB - 1)]);
            if (rng_pct(&r, null_pct))
                snprintf(val[4], sizeof val[4], "NULL");
            else
                snprintf(val[4], sizeof val[4], "%.2f", rng_int(&r, -20, 20) * 0.25);
            if (t == 4) {
                if (rng_pct(&r, 20))
                    snprintf(val[5], sizeof val[5], "NULL");
                else
                    snprintf(val[5], sizeof val[5], "%d", rng_int(&r, 0, 3));
            }
            if (i % 500 == 0)
                sb_printf(&ds->script, "%sINSERT INTO t%d VALUES (", i ? ";\n" : "", t + 1);
            else
                sb_printf(&ds->script, ", (");
            for (const char *col = layout; *col; col++)
                sb_printf(&ds->script, "%s%s", col == layout ? "" : ", ",
                          val[strchr("kabcde", *col) - "kabcde"]);
            sb_printf(&ds->script, ")");
        }
        if (n) sb_printf(&ds->script, ";\n");
    }
}

/* ---- results -------------------------------------------------------------------------------- */

enum { CELL_NULL, CELL_INT, CELL_DBL, CELL_TEXT };

typedef struct cell {
    int kind;
    int64_t i;
    double d;
    char *s;
} cell;

typedef struct result {
    int ncol;
    size_t nrow, cap; /* rows; cap in cells */
    cell *cells;
    char *err; /* the error message when the query failed */
} result;

static cell *result_add_row(result *res) {
    size_t need = (res->nrow + 1) * (size_t)res->ncol;
    if (need > res->cap) {
        res->cap = need * 2 + 16;
        res->cells = realloc(res->cells, res->cap * sizeof(cell));
        cr_assert(res->cells);
    }
    cell *row = res->cells + res->nrow * (size_t)res->ncol;
    memset(row, 0, sizeof(cell) * (size_t)res->ncol);
    res->nrow++;
    return row;
}

static void result_free(result *res) {
    for (size_t i = 0; i < res->nrow * (size_t)res->ncol; i++)
        free(res->cells[i].s);
    free(res->cells);
    free(res->err);
    memset(res, 0, sizeof *res);
}

static void run_strata(strata_db *db, const char *sql, result *res) {
    strata_stmt *s = NULL;
    memset(res, 0, sizeof *res);
    if (strata_prepare(db, sql, &s, NULL) != STRATA_OK) {
        res->err = strdup(strata_errmsg(db));
        return;
    }
    res->ncol = strata_column_count(s);
    int rc;
    while ((rc = strata_step(s)) == STRATA_ROW) {
        cell *row = result_add_row(res);
        for (int j = 0; j < res->ncol; j++) {
            switch (strata_column_type(s, j)) {
            case STRATA_TYPE_NULL: row[j].kind = CELL_NULL; break;
            case STRATA_TYPE_BOOLEAN:
            case STRATA_TYPE_SMALLINT:
            case STRATA_TYPE_INTEGER:
            case STRATA_TYPE_BIGINT:
                row[j].kind = CELL_INT;
                row[j].i = strata_column_int64(s, j);
                break;
            case STRATA_TYPE_DOUBLE:
                row[j].kind = CELL_DBL;
                row[j].d = strata_column_double(s, j);
                break;
            case STRATA_TYPE_DECIMAL: /* a literal's type; compared as the double SQLite has */
                row[j].kind = CELL_DBL;
                row[j].d = strtod(strata_column_text(s, j), NULL);
                break;
            default:
                row[j].kind = CELL_TEXT;
                row[j].s = strdup(strata_column_text(s, j));
                break;
            }
        }
    }
    if (rc != STRATA_DONE) res->err = strdup(strata_errmsg(db));
    strata_finalize(s);
}

static void run_sqlite(sqlite3 *db, const char *sql, result *res) {
    sqlite3_stmt *s = NULL;
    memset(res, 0, sizeof *res);
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        res->err = strdup(sqlite3_errmsg(db));
        return;
    }
    res->ncol = sqlite3_column_count(s);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        cell *row = result_add_row(res);
        for (int j = 0; j < res->ncol; j++) {
            switch (sqlite3_column_type(s, j)) {
            case SQLITE_NULL: row[j].kind = CELL_NULL; break;
            case SQLITE_INTEGER:
                row[j].kind = CELL_INT;
                row[j].i = sqlite3_column_int64(s, j);
                break;
            case SQLITE_FLOAT:
                row[j].kind = CELL_DBL;
                row[j].d = sqlite3_column_double(s, j);
                break;
            default:
                row[j].kind = CELL_TEXT;
                row[j].s = strdup((const char *)sqlite3_column_text(s, j));
                break;
            }
        }
    }
    if (rc != SQLITE_DONE) res->err = strdup(sqlite3_errmsg(db));
    sqlite3_finalize(s);
}

/* cell_order is a total order for the canonical sort: NULL, then numbers by value, then text. */
static int cell_order(const cell *x, const cell *y) {
    int rx = x->kind == CELL_NULL ? 0 : x->kind == CELL_TEXT ? 2 : 1;
    int ry = y->kind == CELL_NULL ? 0 : y->kind == CELL_TEXT ? 2 : 1;
    if (rx != ry) return rx < ry ? -1 : 1;
    if (rx == 0) return 0;
    if (rx == 2) return strcmp(x->s, y->s);
    if (x->kind == CELL_INT && y->kind == CELL_INT) return (x->i > y->i) - (x->i < y->i);
    double a = x->kind == CELL_INT ? (double)x->i : x->d, b = y->kind == CELL_INT ? (double)y->i : y->d;
    return (a > b) - (a < b);
}

static int sort_ncol; /* qsort has no context argument */
static int row_order(const void *x, const void *y) {
    const cell *a = x, *b = y;
    for (int j = 0; j < sort_ncol; j++) {
        int c = cell_order(a + j, b + j);
        if (c) return c;
    }
    return 0;
}

/* result_sort sorts the rows canonically (rows are ncol consecutive cells). */
static void result_sort(result *res) {
    if (res->ncol == 0 || res->nrow < 2) return;
    sort_ncol = res->ncol;
    qsort(res->cells, res->nrow, sizeof(cell) * (size_t)res->ncol, row_order);
}

/* cell_equal compares strata's cell x with SQLite's y: same kind, integers exactly, doubles to 1e-9
** relative, text exactly. A whole double that went through SQLite's GROUP BY may come back as an
** INTEGER (its aggregator's table keeps a REAL without a fraction as an integer and has no column
** affinity to turn it back), so strata's double may meet SQLite's integer of the same value. */
static bool cell_equal(const cell *x, const cell *y) {
    if (x->kind == CELL_DBL && y->kind == CELL_INT) return x->d == (double)y->i;
    if (x->kind != y->kind) return false;
    switch (x->kind) {
    case CELL_NULL: return true;
    case CELL_INT: return x->i == y->i;
    case CELL_TEXT: return strcmp(x->s, y->s) == 0;
    default: {
        double diff = fabs(x->d - y->d), mag = fmax(fabs(x->d), fabs(y->d));
        return x->d == y->d || diff <= 1e-9 * mag;
    }
    }
}

/* results_equal compares two successful results row by row; *bad_row is the first difference. */
static bool results_equal(const result *x, const result *y, size_t *bad_row) {
    *bad_row = 0;
    if (x->ncol != y->ncol) return false;
    size_t n = x->nrow < y->nrow ? x->nrow : y->nrow;
    for (size_t i = 0; i < n; i++) {
        for (int j = 0; j < x->ncol; j++) {
            if (!cell_equal(&x->cells[i * (size_t)x->ncol + j], &y->cells[i * (size_t)y->ncol + j])) {
                *bad_row = i;
                return false;
            }
        }
    }
    *bad_row = n;
    return x->nrow == y->nrow;
}

static void result_print(FILE *f, const char *who, const result *res) {
    if (res->err) {
        fprintf(f, "  %s: error: %s\n", who, res->err);
        return;
    }
    fprintf(f, "  %s: %zu rows\n", who, res->nrow);
    for (size_t i = 0; i < res->nrow && i < 40; i++) {
        fprintf(f, "    ");
        for (int j = 0; j < res->ncol; j++) {
            const cell *c = &res->cells[i * (size_t)res->ncol + j];
            if (j) fprintf(f, " | ");
            switch (c->kind) {
            case CELL_NULL: fprintf(f, "NULL"); break;
            case CELL_INT: fprintf(f, "%lld", (long long)c->i); break;
            case CELL_DBL: fprintf(f, "%.17g (double)", c->d); break;
            default: fprintf(f, "'%s'", c->s); break;
            }
        }
        fprintf(f, "\n");
    }
    if (res->nrow > 40) fprintf(f, "    ...\n");
}

/* ---- the query generator ---------------------------------------------------------------- */

/* Bounds on an integer expression's magnitude, so that no generated arithmetic overflows. */
#define INT32_BOUND 2.0e9
#define INT64_BOUND 1.0e12

typedef struct ibound {
    double max; /* |value| <= max */
    bool wide;  /* BIGINT-typed in strata (INTEGER otherwise, which overflows at 2^31) */
} ibound;

typedef struct gen {
    rng r;
    const dataset *ds;
    sbuf *q;
    int nalias;
    int table[8];       /* table index of each alias (see alias_name) */
    int alias_lo;       /* aliases alias_lo .. nalias-1 are in scope */
    bool multi;         /* the FROM clauses join 4 to 6 aliases (gen_multi_from) */
    int sub_n;          /* the aliases of the open subquery: w, or w and o */
    char using_cols[8]; /* the column letters of a USING join of x and y ("" without one) */
    int using_hidden;   /* the alias whose USING columns strata does not resolve */
    bool in_on;         /* writing the extra condition of an ON clause */
    bool sub_ok;        /* subqueries may appear here (WHERE and a plain select list) */
} gen;

/* The aliases of FROM (x, y, z in the queries over at most three; up to s in a multi-way join),
** then those of a subquery (w, and o when it joins two tables). */
#define MAX_FROM 6
#define SUB_ALIAS MAX_FROM
static const char *const alias_name[8] = {"x", "y", "z", "u", "v", "s", "w", "o"};

static void gen_int(gen *g, int depth, ibound *b);
static void gen_dbl(gen *g, int depth);
static void gen_text(gen *g, int depth);
static void gen_pred(gen *g, int depth);

static int pick_alias(gen *g) { return rng_int(&g->r, g->alias_lo, g->nalias - 1); }

/* col_ref writes a column of a random alias in scope. A USING column is written from the side
** strata accepts: it rejects the qualified name of the right side (the left side for RIGHT JOIN),
** which PostgreSQL accepts (bug 1, see the top of the file). */
static void col_ref(gen *g, const char *col) {
    int al = pick_alias(g);
    if (al == g->using_hidden && strstr(g->using_cols, col)) al = 1 - al;
    sb_printf(g->q, "%s.%s", alias_name[al], col);
}

/* gen_int_literal writes a small integer; negative ones in parentheses, so "- -3" never reads
** as a comment. */
static int gen_int_literal(gen *g, int lo, int hi) {
    int v = rng_int(&g->r, lo, hi);
    if (v < 0)
        sb_printf(g->q, "(%d)", v);
    else
        sb_printf(g->q, "%d", v);
    return v;
}

static void gen_int_column(gen *g, ibound *b) {
    switch (rng_int(&g->r, 0, 2)) {
    case 0:
        col_ref(g, "k");
        b->max = BIG_ROWS, b->wide = false;
        break;
    case 1:
        col_ref(g, "a");
        b->max = 10, b->wide = false;
        break;
    default:
        col_ref(g, "b");
        b->max = 3000000002.0, b->wide = true;
        break;
    }
}

/* gen_subquery_open starts "(SELECT ... FROM tN AS w" over a small table and puts w alone in
** scope; gen_subquery_close ends it and restores the outer scope. Subqueries do not nest. */
typedef struct sub_scope {
    int alias_lo, nalias;
} sub_scope;

static int pick_small_table(gen *g) {
    int t;
    do
        t = rng_int(&g->r, 0, (g->multi ? NTABLES_ALL : NTABLES) - 1);
    while (g->ds->rows[t] > 100);
    return t;
}

/* The equalities of a subquery's own join. */
static const char *const sub_join_cols[][2] = {{"k", "k"}, {"a", "a"}, {"k", "a"},
                                               {"c", "c"}, {"a", "b"}, {"b", "b"}};

/* In a multi-way join's query, a subquery may join two tables itself: "FROM tN AS w [LEFT] JOIN
** tM AS o ON w.col = o.col". */
static void gen_subquery_open(gen *g, const char *items, sub_scope *saved) {
    int t = pick_small_table(g);
    g->table[SUB_ALIAS] = t;
    sb_printf(g->q, "(SELECT %s FROM t%d AS w", items, t + 1);
    g->sub_n = 1;
    if (g->multi && rng_pct(&g->r, 40)) {
        int t2 = pick_small_table(g);
        const char *const *cols = sub_join_cols[rng_int(&g->r, 0, 5)];
        g->table[SUB_ALIAS + 1] = t2;
        g->sub_n = 2;
        sb_printf(g->q, " %s t%d AS o ON w.%s = o.%s", rng_pct(&g->r, 25) ? "LEFT JOIN" : "JOIN", t2 + 1,
                  cols[0], cols[1]);
    }
    saved->alias_lo = g->alias_lo, saved->nalias = g->nalias;
    g->sub_ok = false;
}

/* gen_subquery_where writes " WHERE w.col = <outer col>" (correlated) and/or a filter on w. */
static void gen_subquery_where(gen *g, const sub_scope *outer, bool correlate) {
    static const char *const cols[] = {"a", "b", "k", "c", "d"};
    bool filter = rng_pct(&g->r, 50);
    if (!correlate && !filter) return;
    sb_printf(g->q, " WHERE ");
    if (correlate) {
        int c = rng_int(&g->r, 0, 4);
        int al = rng_int(&g->r, outer->alias_lo, outer->nalias - 1);
        if (al == g->using_hidden && strstr(g->using_cols, cols[c])) al = 1 - al; /* bug 1 */
        sb_printf(g->q, "w.%s = %s.%s%s", cols[c], alias_name[al], cols[c], filter ? " AND " : "");
    }
    if (filter) {
        g->alias_lo = SUB_ALIAS, g->nalias = SUB_ALIAS + g->sub_n;
        gen_pred(g, 1);
        g->alias_lo = outer->alias_lo, g->nalias = outer->nalias;
    }
}

static void gen_subquery_close(gen *g) {
    sb_printf(g->q, ")");
    g->sub_ok = true;
}

static void gen_int(gen *g, int depth, ibound *b) {
    if (g->sub_ok && depth > 0 && rng_pct(&g->r, 4)) { /* a scalar subquery, maybe correlated */
        sub_scope outer;
        bool count = rng_pct(&g->r, 50);
        gen_subquery_open(g, count ? "count(*)" : "max(w.b)", &outer);
        gen_subquery_where(g, &outer, rng_pct(&g->r, 70));
        gen_subquery_close(g);
        b->max = count ? BIG_ROWS : 3000000002.0, b->wide = true;
        return;
    }
    int choice = depth <= 0 ? rng_int(&g->r, 0, 1) : rng_int(&g->r, 0, 12);
    switch (choice) {
    case 0:
    case 1:
    case 2:
        if (choice == 1 && rng_pct(&g->r, 40)) {
            b->max = abs(gen_int_literal(g, -5, 10)), b->wide = false;
            return;
        }
        gen_int_column(g, b);
        return;
    case 3:
    case 4:
    case 5: { /* + - * within the bounds */
        const char *op = choice == 3 ? "+" : choice == 4 ? "-" : "*";
        size_t mark = g->q->len;
        ibound l, r;
        sb_printf(g->q, "(");
        gen_int(g, depth - 1, &l);
        sb_printf(g->q, " %s ", op);
        gen_int(g, depth - 1, &r);
        sb_printf(g->q, ")");
        bool wide = l.wide || r.wide;
        double max = choice == 5 ? l.max * r.max : l.max + r.max;
        if (max > (wide ? INT64_BOUND : INT32_BOUND)) { /* too large: a column instead */
            g->q->len = mark;
            gen_int_column(g, b);
            return;
        }
        b->max = max, b->wide = wide;
        return;
    }
    case 6: { /* / and % by a nonzero literal */
        static const int divisors[] = {2, 3, 4, 7, -2, -3};
        int dv = divisors[rng_int(&g->r, 0, 5)];
        sb_printf(g->q, "(");
        gen_int(g, depth - 1, b);
        sb_printf(g->q, rng_pct(&g->r, 50) ? " / " : " %% ");
        sb_printf(g->q, dv < 0 ? "(%d))" : "%d)", dv);
        return;
    }
    case 7:
        sb_printf(g->q, "(-");
        gen_int(g, depth - 1, b);
        sb_printf(g->q, ")");
        return;
    case 8:
        sb_printf(g->q, "abs(");
        gen_int(g, depth - 1, b);
        sb_printf(g->q, ")");
        return;
    case 9:
    case 10: { /* CASE and COALESCE */
        ibound l, r;
        if (choice == 9) {
            sb_printf(g->q, "CASE WHEN ");
            gen_pred(g, depth - 1);
            sb_printf(g->q, " THEN ");
            gen_int(g, depth - 1, &l);
            sb_printf(g->q, " ELSE ");
            gen_int(g, depth - 1, &r);
            sb_printf(g->q, " END");
        } else {
            sb_printf(g->q, "COALESCE(");
            gen_int(g, depth - 1, &l);
            sb_printf(g->q, ", ");
            gen_int(g, depth - 1, &r);
            sb_printf(g->q, ")");
        }
        b->max = fmax(l.max, r.max), b->wide = l.wide || r.wide;
        return;
    }
    case 11: /* a predicate as 1/0, since booleans print differently */
        sb_printf(g->q, "CASE WHEN ");
        gen_pred(g, depth - 1);
        sb_printf(g->q, " THEN 1 ELSE 0 END");
        b->max = 1, b->wide = false;
        return;
    default:
        sb_printf(g->q, "length(");
        gen_text(g, depth - 1);
        sb_printf(g->q, ")");
        b->max = 64, b->wide = true;
        return;
    }
}

/* A double literal for arithmetic: CAST, since a bare 1.25 is NUMERIC in PostgreSQL. */
static void gen_dbl_literal(gen *g) {
    sb_printf(g->q, "CAST(%.2f AS DOUBLE)", rng_int(&g->r, -12, 12) * 0.25);
}

/* Doubles stay multiples of 1/256 well inside 2^53, so every sum is exact in any order. The
** magnitude is not tracked: products nest at most depth 2 deep over |d| <= 5 and |ints| <= 3e9. */
static void gen_dbl(gen *g, int depth) {
    int choice = depth <= 0 ? rng_int(&g->r, 0, 1) : rng_int(&g->r, 0, 9);
    switch (choice) {
    case 0:
    case 2: col_ref(g, "d"); return;
    case 1:
        if (rng_pct(&g->r, 30))
            gen_dbl_literal(g);
        else
            col_ref(g, "d");
        return;
    case 3:
    case 4: {
        sb_printf(g->q, "(");
        gen_dbl(g, depth - 1);
        sb_printf(g->q, choice == 3 ? " + " : " - ");
        if (rng_pct(&g->r, 50))
            gen_dbl(g, depth - 1);
        else {
            ibound b;
            gen_int(g, 0, &b);
        }
        sb_printf(g->q, ")");
        return;
    }
    case 5: { /* a product of a double and a small integer or a double column */
        sb_printf(g->q, "(");
        gen_dbl(g, 0);
        sb_printf(g->q, " * ");
        if (rng_pct(&g->r, 50))
            col_ref(g, "d");
        else
            col_ref(g, "a");
        sb_printf(g->q, ")");
        return;
    }
    case 6:
        sb_printf(g->q, "(");
        gen_dbl(g, depth - 1);
        sb_printf(g->q, rng_pct(&g->r, 50) ? " / 2" : " / 4");
        sb_printf(g->q, ")");
        return;
    case 7:
        sb_printf(g->q, rng_pct(&g->r, 50) ? "abs(" : "(-");
        gen_dbl(g, depth - 1);
        sb_printf(g->q, ")");
        return;
    case 8:
        sb_printf(g->q, "CASE WHEN ");
        gen_pred(g, depth - 1);
        sb_printf(g->q, " THEN ");
        gen_dbl(g, depth - 1);
        sb_printf(g->q, " ELSE ");
        gen_dbl(g, depth - 1);
        sb_printf(g->q, " END");
        return;
    default:
        sb_printf(g->q, "COALESCE(");
        gen_dbl(g, depth - 1);
        sb_printf(g->q, ", ");
        gen_dbl_literal(g);
        sb_printf(g->q, ")");
        return;
    }
}

static void gen_text_literal(gen *g) { sb_printf(g->q, "'%s'", vocab[rng_int(&g->r, 0, NVOCAB - 1)]); }

static void gen_text(gen *g, int depth) {
    int choice = depth <= 0 ? rng_int(&g->r, 0, 1) : rng_int(&g->r, 0, 8);
    switch (choice) {
    case 0:
    case 2: col_ref(g, "c"); return;
    case 1:
        if (rng_pct(&g->r, 30))
            gen_text_literal(g);
        else
            col_ref(g, "c");
        return;
    case 3:
    case 4:
        sb_printf(g->q, choice == 3 ? "lower(" : "upper(");
        gen_text(g, depth - 1);
        sb_printf(g->q, ")");
        return;
    case 5: /* one side is a nonempty literal: strata's '' || '' is undefined behaviour (bug 5) */
    {
        bool before = rng_pct(&g->r, 50);
        sb_printf(g->q, "(");
        if (before) sb_printf(g->q, "'%s' || ", vocab[rng_int(&g->r, 1, NVOCAB - 1)]);
        gen_text(g, depth - 1);
        if (!before) sb_printf(g->q, " || '%s'", vocab[rng_int(&g->r, 1, NVOCAB - 1)]);
        sb_printf(g->q, ")");
        return;
    }
    case 6:
        sb_printf(g->q, "COALESCE(");
        gen_text(g, depth - 1);
        sb_printf(g->q, ", ");
        gen_text_literal(g);
        sb_printf(g->q, ")");
        return;
    case 7:
        sb_printf(g->q, "substr(");
        gen_text(g, depth - 1);
        sb_printf(g->q, ", %d, %d)", rng_int(&g->r, 1, 3), rng_int(&g->r, 0, 4));
        return;
    default:
        sb_printf(g->q, "CASE WHEN ");
        gen_pred(g, depth - 1);
        sb_printf(g->q, " THEN ");
        gen_text(g, depth - 1);
        sb_printf(g->q, " ELSE ");
        gen_text(g, depth - 1);
        sb_printf(g->q, " END");
        return;
    }
}

static void gen_typed(gen *g, int type, int depth) {
    ibound b;
    if (type == T_INT)
        gen_int(g, depth, &b);
    else if (type == T_DBL)
        gen_dbl(g, depth);
    else
        gen_text(g, depth);
}

/* gen_plain_literal writes a literal of a type for comparisons (a bare 1.25 is fine there). */
static void gen_plain_literal(gen *g, int type) {
    if (type == T_INT)
        gen_int_literal(g, -6, 12);
    else if (type == T_DBL) {
        double v = rng_int(&g->r, -24, 24) * 0.25;
        sb_printf(g->q, v < 0 ? "(%.2f)" : "%.2f", v);
    } else
        gen_text_literal(g);
}

static const char *const cmp_ops[] = {"=", "<>", "<", "<=", ">", ">="};

/* gen_operand writes the left operand of a predicate. In an ON clause it is a column, so that no
** conjunct of ON is constant: strata drops every row of an outer join whose ON has a constant
** false conjunct (bug 3, see the top of the file). */
static void gen_operand(gen *g, int type, int depth) {
    if (!g->in_on) {
        gen_typed(g, type, depth);
        return;
    }
    ibound b;
    if (type == T_INT)
        gen_int_column(g, &b);
    else
        col_ref(g, type == T_DBL ? "d" : "c");
}

static void gen_pred(gen *g, int depth) {
    int choice = depth <= 0 ? rng_int(&g->r, 0, 5) : rng_int(&g->r, 0, 9);
    int type = rng_int(&g->r, 0, 2);
    if (g->sub_ok && depth > 0 && rng_pct(&g->r, 10)) {
        sub_scope outer;
        if (rng_pct(&g->r, 50)) { /* [NOT] EXISTS, correlated */
            sb_printf(g->q, rng_pct(&g->r, 30) ? "NOT EXISTS " : "EXISTS ");
            gen_subquery_open(g, "1", &outer);
            gen_subquery_where(g, &outer, rng_pct(&g->r, 85));
        } else { /* [NOT] IN (SELECT ...), NULLs in the subquery included */
            static const char *const in_cols[] = {"w.a", "w.b", "w.k", "w.c"};
            int c = rng_int(&g->r, 0, 3);
            /* The left side is never NULL: strata gives NULL [NOT] IN (an empty subquery) NULL
            ** rather than false/true (bug 4, see the top of the file). */
            sb_printf(g->q, "COALESCE(");
            gen_operand(g, c == 3 ? T_TEXT : T_INT, depth - 1);
            sb_printf(g->q, ", ");
            gen_plain_literal(g, c == 3 ? T_TEXT : T_INT);
            sb_printf(g->q, ")");
            sb_printf(g->q, rng_pct(&g->r, 30) ? " NOT IN " : " IN ");
            gen_subquery_open(g, in_cols[c], &outer);
            gen_subquery_where(g, &outer, rng_pct(&g->r, 30));
        }
        gen_subquery_close(g);
        return;
    }
    switch (choice) {
    case 0:
    case 1: /* comparison; integers and doubles may meet */
        gen_operand(g, type, depth - 1);
        sb_printf(g->q, " %s ", cmp_ops[rng_int(&g->r, 0, 5)]);
        if (type != T_TEXT && rng_pct(&g->r, 30)) type = type == T_INT ? T_DBL : T_INT;
        if (rng_pct(&g->r, 50))
            gen_plain_literal(g, type);
        else
            gen_typed(g, type, depth - 1);
        return;
    case 2:
        gen_operand(g, type, depth - 1);
        sb_printf(g->q, rng_pct(&g->r, 50) ? " IS NULL" : " IS NOT NULL");
        return;
    case 3:
        gen_operand(g, type, depth - 1);
        sb_printf(g->q, rng_pct(&g->r, 25) ? " NOT BETWEEN " : " BETWEEN ");
        gen_plain_literal(g, type);
        sb_printf(g->q, " AND ");
        gen_plain_literal(g, type);
        return;
    case 4: {
        gen_operand(g, type, depth - 1);
        sb_printf(g->q, rng_pct(&g->r, 25) ? " NOT IN (" : " IN (");
        int n = rng_int(&g->r, 1, 4);
        for (int i = 0; i < n; i++) {
            if (i) sb_printf(g->q, ", ");
            if (rng_pct(&g->r, 10))
                sb_printf(g->q, "NULL");
            else
                gen_plain_literal(g, type);
        }
        sb_printf(g->q, ")");
        return;
    }
    case 5:
        gen_operand(g, T_TEXT, depth - 1);
        sb_printf(g->q, rng_pct(&g->r, 25) ? " NOT LIKE '%s'" : " LIKE '%s'",
                  like_patterns[rng_int(&g->r, 0, NLIKE - 1)]);
        return;
    case 6:
        sb_printf(g->q, "NOT (");
        gen_pred(g, depth - 1);
        sb_printf(g->q, ")");
        return;
    default:
        sb_printf(g->q, "(");
        gen_pred(g, depth - 1);
        sb_printf(g->q, choice == 7 ? " OR " : " AND ");
        gen_pred(g, depth - 1);
        sb_printf(g->q, ")");
        return;
    }
}

/* ---- aggregates ---- */

/* gen_agg writes an aggregate call and returns its result type. */
static int gen_agg(gen *g) {
    int choice = rng_int(&g->r, 0, 9);
    int type = rng_int(&g->r, 0, 2);
    switch (choice) {
    case 0: sb_printf(g->q, "count(*)"); return T_INT;
    case 1:
    case 2:
        sb_printf(g->q, choice == 1 ? "count(" : "count(DISTINCT ");
        gen_typed(g, type, 1);
        sb_printf(g->q, ")");
        return T_INT;
    case 3:
    case 4:
        sb_printf(g->q, "sum(");
        if (choice == 3) {
            ibound b;
            gen_int(g, 1, &b);
            type = T_INT;
        } else {
            gen_dbl(g, 1);
            type = T_DBL;
        }
        sb_printf(g->q, ")");
        return type;
    case 5:
    case 6:
    case 7:
    case 8:
        sb_printf(g->q, choice <= 6 ? "min(" : "max(");
        gen_typed(g, type, 1);
        sb_printf(g->q, ")");
        return type;
    default:
        sb_printf(g->q, "avg(");
        gen_typed(g, rng_pct(&g->r, 50) ? T_INT : T_DBL, 1);
        sb_printf(g->q, ")");
        return T_DBL;
    }
}

/* gen_having writes a predicate over aggregates and the group keys (texts keys[0..nkeys)). */
static void gen_having(gen *g, int depth, char **keys, const int *key_types, int nkeys) {
    int choice = rng_int(&g->r, 0, depth <= 0 ? 3 : 5);
    if (choice <= 2 || (choice == 3 && nkeys == 0)) {
        int type = gen_agg(g);
        sb_printf(g->q, " %s ", cmp_ops[rng_int(&g->r, 0, 5)]);
        gen_plain_literal(g, type);
    } else if (choice == 3) {
        int k = rng_int(&g->r, 0, nkeys - 1);
        sb_printf(g->q, "%s", keys[k]);
        if (rng_pct(&g->r, 30))
            sb_printf(g->q, " IS NOT NULL");
        else {
            sb_printf(g->q, " %s ", cmp_ops[rng_int(&g->r, 0, 5)]);
            gen_plain_literal(g, key_types[k]);
        }
    } else {
        sb_printf(g->q, "(");
        gen_having(g, depth - 1, keys, key_types, nkeys);
        sb_printf(g->q, choice == 4 ? " AND " : " OR ");
        gen_having(g, depth - 1, keys, key_types, nkeys);
        sb_printf(g->q, ")");
    }
}

/* ---- FROM ---- */

/* gen_join_eq writes "left.col = right.col" for one of the join columns. */
static void gen_join_eq(gen *g, int left, int right) {
    const join_col *jc = &join_cols[rng_int(&g->r, 0, NJOIN_COLS - 1)];
    if (left == g->using_hidden && strstr(g->using_cols, jc->x)) left = 1 - left; /* bug 1 */
    sb_printf(g->q, "%s.%s = %s.%s", alias_name[left], jc->x, alias_name[right], jc->y);
}

/* ---- multi-way joins ---- */

/* The most rows an intermediate result of a multi-way join may have, by estimate, in the order
** the query is written (today's plan). A join orderer should only find smaller orders. */
#define JOIN_BUDGET 3000.0
#define JOIN_COL_KK 6 /* join_cols' k = k: k is nearly unique, so this equality keeps results small */

enum { J_COMMA, J_INNER, J_LEFT, J_RIGHT, J_CROSS };

/* A multi-way join before it is written: the aliases' tables, a tree of equalities (alias i's
** edge goes to parent[i]; -1 for the root, and for a part no condition links to the rest, which
** makes a cross product), and how each alias joins the ones written before it. */
typedef struct multi_join {
    int n;
    int table[MAX_FROM];
    int parent[MAX_FROM];
    int col[MAX_FROM];   /* the edge's join_cols entry: parent.x = i.y */
    int kind[MAX_FROM];  /* J_COMMA starts a group; the others join the group before them */
    int group[MAX_FROM]; /* the first alias of i's group: an ON sees only its group's aliases */
} multi_join;

static double table_rows(const dataset *ds, int t) { return ds->rows[t] > 1 ? ds->rows[t] : 1; }

/* edge_selectivity is the share of the pairs of rows of tables p and q that join_cols[col] joins. */
static double edge_selectivity(const dataset *ds, int p, int q, int col) {
    return ds->matches[p][q][col] / (table_rows(ds, p) * table_rows(ds, q));
}

/* edges_between is the estimated selectivity of the tree's equalities between the aliases
** [lo, hi] and [other_lo, other_hi]. */
static double edges_between(const dataset *ds, const multi_join *m, int other_lo, int other_hi, int lo,
                            int hi) {
    double sel = 1;
    for (int i = 0; i < m->n; i++) {
        int p = m->parent[i];
        if (p < 0) continue;
        int in_new = (i >= lo && i <= hi) + (p >= lo && p <= hi);
        int in_other = (i >= other_lo && i <= other_hi) + (p >= other_lo && p <= other_hi);
        if (in_new == 1 && in_other == 1) sel *= edge_selectivity(ds, m->table[p], m->table[i], m->col[i]);
    }
    return sel;
}

/* written_order_rows estimates the largest intermediate result of the join as written: each
** comma-separated group joined left to right (WHERE equalities inside a group go down to the
** join that completes them), then the groups left to right. Only the tree's equalities count;
** every other condition can only make results smaller (an outer join keeps its preserved side). */
static double written_order_rows(const dataset *ds, const multi_join *m, double *final_rows) {
    double most = 0, total = 0;
    for (int lo = 0, hi; lo < m->n; lo = hi + 1) {
        for (hi = lo; hi + 1 < m->n && m->kind[hi + 1] != J_COMMA;)
            hi++;
        double rows = table_rows(ds, m->table[lo]);
        most = fmax(most, rows);
        for (int i = lo + 1; i <= hi; i++) {
            double ti = table_rows(ds, m->table[i]);
            double joined = rows * ti * edges_between(ds, m, lo, i - 1, i, i);
            if (m->kind[i] == J_LEFT) joined = fmax(joined, rows);
            if (m->kind[i] == J_RIGHT) joined += ti;
            rows = joined;
            most = fmax(most, rows);
        }
        total = lo == 0 ? rows : total * rows * edges_between(ds, m, 0, lo - 1, lo, hi);
        most = fmax(most, total);
    }
    *final_rows = total;
    return most;
}

/* choose_kinds decides how each alias is joined: commas only, JOIN ... ON wherever a tree edge to
** the alias's group allows it, or a mix; sometimes a LEFT JOIN (a RIGHT JOIN last, since nothing
** may join above a RIGHT join's unmatched rows yet); CROSS JOIN for an alias no edge links to the
** ones before it. An outer join's tree edges all go into its ON. */
static void choose_kinds(gen *g, multi_join *m) {
    int style = rng_int(&g->r, 0, 2); /* 0: commas only, 1: JOIN wherever possible, 2: a mix */
    bool outer_ok = rng_pct(&g->r, 45);
    int group = 0;
    m->kind[0] = J_COMMA, m->group[0] = 0;
    for (int i = 1; i < m->n; i++) {
        bool in_group = false, all_in_group = true, earlier = false;
        for (int j = 0; j < m->n; j++) {
            int p = m->parent[j];
            if (p < 0 || (j > p ? j : p) != i) continue;
            earlier = true;
            if ((j < p ? j : p) >= group)
                in_group = true;
            else
                all_in_group = false;
        }
        int kind = J_COMMA;
        if (style == 1 || (style == 2 && rng_pct(&g->r, 50))) {
            if (in_group) {
                kind = J_INNER;
                if (outer_ok && all_in_group && rng_pct(&g->r, 30))
                    kind = i == m->n - 1 && group == 0 && rng_pct(&g->r, 30) ? J_RIGHT : J_LEFT;
            } else if (!earlier && rng_pct(&g->r, 50)) {
                kind = J_CROSS;
            }
        }
        if (kind == J_COMMA) group = i;
        m->kind[i] = kind, m->group[i] = group;
    }
}

/* pick_join_col picks a join_cols entry for an equality between tables p and q, mostly one that
** some pairs of their rows meet, so that results are seldom empty after five joins. */
static int pick_join_col(gen *g, int p, int q) {
    int col = rng_int(&g->r, 0, NJOIN_COLS - 1);
    for (int tries = 0; tries < 4 && g->ds->matches[p][q][col] == 0; tries++)
        col = rng_int(&g->r, 0, NJOIN_COLS - 1);
    return col;
}

/* plan_multi_join picks 4 to 6 aliases over the five tables (at most one large, mostly tables
** with rows), a tree of equalities over them (a chain, a star or a random tree, over the written
** order or a shuffled one), sometimes two parts with no condition between them, and the join
** kinds; then keeps the estimate within JOIN_BUDGET: equalities on k first, then a chain on k. */
static void plan_multi_join(gen *g, multi_join *m) {
    static const int small_tables[] = {0, 1, 3, 4};
    const dataset *ds = g->ds;
    double final_rows;
    for (int tries = 0; tries < 4; tries++) { /* mostly joins whose estimate has rows */
        m->n = rng_int(&g->r, 4, MAX_FROM);
        bool big_used = false;
        for (int i = 0; i < m->n; i++) {
            int t = rng_int(&g->r, 0, NTABLES_ALL - 1);
            for (int again = 0; ds->rows[t] == 0 && again < 3; again++) /* mostly tables with rows */
                t = rng_int(&g->r, 0, NTABLES_ALL - 1);
            if (ds->rows[t] > 100 && (big_used || rng_pct(&g->r, 50))) t = small_tables[rng_int(&g->r, 0, 3)];
            big_used |= ds->rows[t] > 100;
            m->table[i] = t;
        }
        int order[MAX_FROM];
        for (int i = 0; i < m->n; i++)
            order[i] = i;
        if (rng_pct(&g->r, 35)) {
            for (int i = m->n - 1; i > 0; i--) {
                int j = rng_int(&g->r, 0, i), t = order[i];
                order[i] = order[j], order[j] = t;
            }
        }
        int shape = rng_int(&g->r, 0, 2); /* 0: a chain, 1: a star, 2: a random tree */
        m->parent[order[0]] = -1;
        for (int j = 1; j < m->n; j++) {
            m->parent[order[j]] = shape == 0   ? order[j - 1]
                                  : shape == 1 ? order[0]
                                               : order[rng_int(&g->r, 0, j - 1)];
            m->col[order[j]] = pick_join_col(g, m->table[m->parent[order[j]]], m->table[order[j]]);
        }
        if (rng_pct(&g->r, 10)) m->parent[order[rng_int(&g->r, 1, m->n - 1)]] = -1; /* a cross product */
        choose_kinds(g, m);
        if (written_order_rows(ds, m, &final_rows) <= JOIN_BUDGET && final_rows >= 2) return;
    }
    for (int i = 0; i < m->n && written_order_rows(ds, m, &final_rows) > JOIN_BUDGET; i++)
        if (m->parent[i] >= 0) m->col[i] = JOIN_COL_KK;
    if (written_order_rows(ds, m, &final_rows) > JOIN_BUDGET) {
        for (int i = 0; i < m->n; i++)
            m->parent[i] = i - 1, m->col[i] = JOIN_COL_KK;
        choose_kinds(g, m);
    }
}

/* gen_two_alias_cond writes a condition between aliases a1 and a2 other than a plain equality:
** a comparison, an OR of equalities, a BETWEEN. */
static void gen_two_alias_cond(gen *g, int a1, int a2) {
    const char *n1 = alias_name[a1], *n2 = alias_name[a2];
    const join_col *jc = &join_cols[rng_int(&g->r, 0, NJOIN_COLS - 1)];
    switch (rng_int(&g->r, 0, 3)) {
    case 0:
    case 1: sb_printf(g->q, "%s.%s %s %s.%s", n1, jc->x, cmp_ops[rng_int(&g->r, 1, 5)], n2, jc->y); return;
    case 2: {
        const join_col *jc2 = &join_cols[rng_int(&g->r, 0, NJOIN_COLS - 1)];
        sb_printf(g->q, "(%s.%s = %s.%s OR %s.%s = %s.%s)", n1, jc->x, n2, jc->y, n1, jc2->x, n2, jc2->y);
        return;
    }
    default:
        sb_printf(g->q, "%s.%s %sBETWEEN %s.a AND %s.k", n1, rng_pct(&g->r, 50) ? "a" : "k",
                  rng_pct(&g->r, 25) ? "NOT " : "", n2, n2);
        return;
    }
}

/* gen_three_alias_cond writes a condition over three aliases, e.g. x.a + y.b > z.k or an equality
** between an expression of two aliases and a column of a third. */
static void gen_three_alias_cond(gen *g, int a1, int a2, int a3) {
    static const char *const int_cols[] = {"k", "a", "b"};
    const char *n1 = alias_name[a1], *n2 = alias_name[a2], *n3 = alias_name[a3];
    const char *op = rng_pct(&g->r, 35) ? "=" : cmp_ops[rng_int(&g->r, 1, 5)];
    switch (rng_int(&g->r, 0, 3)) {
    case 0: /* |k|, |a| <= 2,600 and |b| <= 3e9: sums stay within BIGINT */
        sb_printf(g->q, "%s.%s %s %s.%s %s %s.%s", n1, int_cols[rng_int(&g->r, 0, 2)],
                  rng_pct(&g->r, 50) ? "+" : "-", n2, int_cols[rng_int(&g->r, 0, 2)], op, n3,
                  int_cols[rng_int(&g->r, 0, 2)]);
        return;
    case 1:
        sb_printf(g->q, "%s.d %s %s.%s %s %s.d", n1, rng_pct(&g->r, 50) ? "+" : "*", n2,
                  rng_pct(&g->r, 50) ? "d" : "a", op, n3);
        return;
    case 2: {
        const char *col = rng_pct(&g->r, 30) ? "c" : int_cols[rng_int(&g->r, 0, 1)];
        sb_printf(g->q, "COALESCE(%s.%s, %s.%s) = %s.%s", n1, col, n2, col, n3, col);
        return;
    }
    default:
        if (rng_pct(&g->r, 50))
            sb_printf(g->q, "(%s.c = %s.c OR %s.a = %s.a)", n1, n2, n2, n3);
        else
            sb_printf(g->q, "CASE WHEN %s.a > %s.a THEN %s.k ELSE %s.k END %s %s.k", n1, n2, n1, n2, op, n3);
        return;
    }
}

/* add_cond starts one more conjunct in b and makes it g's output. */
static void add_cond(gen *g, sbuf *b) {
    if (b->len) sb_printf(b, " AND ");
    g->q = b;
}

/* gen_multi_from writes the FROM clause of a multi-way join (plan_multi_join) and puts its WHERE
** conditions into where_eq. The tree's equalities (sometimes a key of two columns) go into the ON
** of the join that completes them or into WHERE; then up to three other conditions: an equality
** closing a cycle, a non-equality between two aliases, a condition over three aliases, a filter
** on one alias, each in WHERE or in an ON that sees its aliases (for an outer join's ON, this
** changes what matches, not which rows are kept). */
static void gen_multi_from(gen *g, sbuf *where_eq) {
    multi_join m;
    plan_multi_join(g, &m);
    int n = m.n;
    sbuf *out = g->q, on[MAX_FROM] = {{0}};
    for (int i = 0; i < n; i++)
        g->table[i] = m.table[i];
    g->nalias = n, g->alias_lo = 0, g->using_cols[0] = 0;

    for (int i = 0; i < n; i++) { /* the tree's equalities */
        int p = m.parent[i];
        if (p < 0) continue;
        int hi = i > p ? i : p, lo = i < p ? i : p;
        bool in_on = m.kind[hi] != J_COMMA && m.kind[hi] != J_CROSS && lo >= m.group[hi] &&
                     (m.kind[hi] != J_INNER || !on[hi].len || rng_pct(&g->r, 70));
        add_cond(g, in_on ? &on[hi] : where_eq);
        const join_col *jc = &join_cols[m.col[i]];
        if (rng_pct(&g->r, 25))
            sb_printf(g->q, "%s.%s = %s.%s", alias_name[i], jc->y, alias_name[p], jc->x);
        else
            sb_printf(g->q, "%s.%s = %s.%s", alias_name[p], jc->x, alias_name[i], jc->y);
        if (rng_pct(&g->r, 15)) { /* a key of two columns */
            jc = &join_cols[pick_join_col(g, m.table[p], m.table[i])];
            sb_printf(g->q, " AND %s.%s = %s.%s", alias_name[p], jc->x, alias_name[i], jc->y);
        }
    }
    int extra = rng_int(&g->r, 0, 3);
    for (int e = 0; e < extra; e++) {
        int what = rng_int(&g->r, 0, 3); /* a cycle, two aliases, three aliases, a filter */
        int al[3];
        for (int k = 0; k < 3; k++) { /* three distinct aliases */
            do
                al[k] = rng_int(&g->r, 0, n - 1);
            while ((k > 0 && al[k] == al[0]) || (k > 1 && al[k] == al[1]));
        }
        int used = what == 2 ? 3 : what <= 1 ? 2 : 1, lo = al[0], hi = al[0];
        for (int k = 1; k < used; k++)
            lo = al[k] < lo ? al[k] : lo, hi = al[k] > hi ? al[k] : hi;
        int cand[MAX_FROM], ncand = 0; /* the ONs that see every alias of the condition */
        for (int j = hi; j < n; j++)
            if (m.kind[j] != J_COMMA && m.kind[j] != J_CROSS && m.group[j] <= lo) cand[ncand++] = j;
        int dest = ncand && rng_pct(&g->r, 55) ? cand[rng_int(&g->r, 0, ncand - 1)] : -1;
        add_cond(g, dest >= 0 ? &on[dest] : where_eq);
        switch (what) {
        case 0: {
            const join_col *jc = &join_cols[pick_join_col(g, m.table[al[0]], m.table[al[1]])];
            sb_printf(g->q, "%s.%s = %s.%s", alias_name[al[0]], jc->x, alias_name[al[1]], jc->y);
            break;
        }
        case 1: gen_two_alias_cond(g, al[0], al[1]); break;
        case 2: gen_three_alias_cond(g, al[0], al[1], al[2]); break;
        default:
            g->alias_lo = al[0], g->nalias = al[0] + 1;
            g->in_on = dest >= 0;
            sb_printf(g->q, "(");
            gen_pred(g, 1);
            sb_printf(g->q, ")");
            g->in_on = false;
            g->alias_lo = 0, g->nalias = n;
            break;
        }
    }

    g->q = out;
    sb_printf(g->q, " FROM t%d AS %s", m.table[0] + 1, alias_name[0]);
    for (int i = 1; i < n; i++) {
        static const char *const inner[] = {" JOIN ", " INNER JOIN "}, *const left[] = {" LEFT JOIN ",
                                                                                        " LEFT OUTER JOIN "};
        switch (m.kind[i]) {
        case J_COMMA: sb_printf(g->q, ", "); break;
        case J_INNER: sb_printf(g->q, "%s", inner[rng_int(&g->r, 0, 1)]); break;
        case J_LEFT: sb_printf(g->q, "%s", left[rng_int(&g->r, 0, 1)]); break;
        case J_RIGHT: sb_printf(g->q, " RIGHT JOIN "); break;
        default: sb_printf(g->q, " CROSS JOIN "); break;
        }
        sb_printf(g->q, "t%d AS %s", m.table[i] + 1, alias_name[i]);
        if (m.kind[i] != J_COMMA && m.kind[i] != J_CROSS) sb_printf(g->q, " ON %s", on[i].p);
    }
    for (int i = 0; i < n; i++)
        free(on[i].p);
}

/* gen_from writes the FROM clause and sets the aliases in scope; comma joins put their equality
** into where_eq, for WHERE. At most one alias is the large table, and only in a two-way join. */
static void gen_from(gen *g, sbuf *where_eq) {
    if (g->multi) {
        gen_multi_from(g, where_eq);
        return;
    }
    int n = rng_pct(&g->r, 40) ? 1 : rng_pct(&g->r, 75) ? 2 : 3;
    long est = 1;
    bool big_used = false;
    for (int i = 0; i < n; i++) {
        int t = rng_int(&g->r, 0, NTABLES - 1);
        if (g->ds->rows[t] > 100 && (big_used || i > 0 || n == 3)) t = rng_int(&g->r, 0, 1);
        if (g->ds->rows[t] > 100) big_used = true;
        g->table[i] = t;
        est *= g->ds->rows[t] > 0 ? g->ds->rows[t] : 1;
    }
    g->nalias = n;
    g->alias_lo = 0;
    g->using_cols[0] = 0;
    /* A comma binds looser than JOIN: in "x, y JOIN z ON ...", ON sees y and z only. */
    int scope_lo = 0;
    sb_printf(g->q, " FROM t%d AS x", g->table[0] + 1);
    for (int i = 1; i < n; i++) {
        int kind = rng_int(&g->r, 0, 9);
        if (kind == 9 && est > 5000) kind = 0; /* no large cross products */
        /* strata cannot yet run a join above the unmatched rows of a RIGHT or FULL join ("a join
        ** above an outer join's unmatched rows is not supported yet"): those come last. */
        if (kind >= 4 && kind <= 6 && i < n - 1) kind = 2;
        /* SQLite's RIGHT or FULL JOIN after a comma has every alias before it on its left side */
        if (kind >= 4 && kind <= 6 && scope_lo > 0) kind = 2;
        if (kind <= 6) {
            static const char *const kinds[] = {
                " JOIN ",       " INNER JOIN ", " LEFT JOIN ",      " LEFT OUTER JOIN ",
                " RIGHT JOIN ", " FULL JOIN ",  " FULL OUTER JOIN "};
            sb_printf(g->q, "%st%d AS %s", kinds[kind], g->table[i] + 1, alias_name[i]);
            /* No FULL JOIN USING: strata gives x.col the merged key (bug 2, see the top). */
            if (i == 1 && kind <= 4 && rng_pct(&g->r, 15)) {
                static const char *const using_lists[] = {"a", "c", "k", "a, c", "b", "c, d"};
                const char *u = using_lists[rng_int(&g->r, 0, 5)];
                sb_printf(g->q, " USING (%s)", u);
                g->using_hidden = kind == 4 ? 0 : 1;
                int m = 0;
                for (const char *p = u; *p; p++)
                    if (*p >= 'a' && *p <= 'z') g->using_cols[m++] = *p;
                g->using_cols[m] = 0;
                continue;
            }
            sb_printf(g->q, " ON ");
            gen_join_eq(g, rng_int(&g->r, scope_lo, i - 1), i);
            if (rng_pct(&g->r, 25)) {
                g->alias_lo = scope_lo;
                g->nalias = i + 1;
                g->in_on = true;
                sb_printf(g->q, " AND ");
                gen_pred(g, 1);
                g->in_on = false;
                g->alias_lo = 0;
                g->nalias = n;
            }
        } else if (kind <= 8) { /* comma join, equality in WHERE */
            sb_printf(g->q, ", t%d AS %s", g->table[i] + 1, alias_name[i]);
            scope_lo = i;
            sbuf *saved = g->q;
            g->q = where_eq;
            if (where_eq->len) sb_printf(g->q, " AND ");
            gen_join_eq(g, rng_int(&g->r, 0, i - 1), i);
            g->q = saved;
        } else {
            sb_printf(g->q, " CROSS JOIN t%d AS %s", g->table[i] + 1, alias_name[i]);
        }
    }
}

/* gen_where writes WHERE with the comma joins' equalities and maybe a random filter. */
static void gen_where(gen *g, const sbuf *where_eq) {
    bool filter = rng_pct(&g->r, g->multi ? 30 : 65); /* a multi-way join has filters of its own */
    if (!where_eq->len && !filter) return;
    sb_printf(g->q, " WHERE ");
    if (where_eq->len) sb_printf(g->q, "%s%s", where_eq->p, filter ? " AND " : "");
    if (filter) {
        sb_printf(g->q, "(");
        g->sub_ok = true;
        gen_pred(g, rng_int(&g->r, 1, 3));
        g->sub_ok = false;
        sb_printf(g->q, ")");
    }
}

/* gen_order_by orders by every one of ncol output columns, in a random order and direction, with
** the NULLs placed explicitly; maybe LIMIT and OFFSET. */
static void gen_order_by(gen *g, int ncol) {
    int perm[64];
    for (int i = 0; i < ncol; i++)
        perm[i] = i;
    for (int i = ncol - 1; i > 0; i--) {
        int j = rng_int(&g->r, 0, i), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    sb_printf(g->q, " ORDER BY ");
    for (int i = 0; i < ncol; i++)
        sb_printf(g->q, "%s%d%s NULLS %s", i ? ", " : "", perm[i] + 1,
                  rng_pct(&g->r, 40)   ? " DESC"
                  : rng_pct(&g->r, 50) ? " ASC"
                                       : "",
                  rng_pct(&g->r, 50) ? "FIRST" : "LAST");
    if (rng_pct(&g->r, 60)) {
        sb_printf(g->q, " LIMIT %d", rng_int(&g->r, 0, 12));
        if (rng_pct(&g->r, 40)) sb_printf(g->q, " OFFSET %d", rng_int(&g->r, 0, 6));
    }
}

/* gen_simple writes SELECT [DISTINCT] items FROM ... [WHERE ...] with the given column types. */
static void gen_simple(gen *g, const int *types, int ncol) {
    sbuf from = {0}, where_eq = {0};
    sbuf *q = g->q;
    g->q = &from;
    gen_from(g, &where_eq);
    g->q = q;
    sb_printf(g->q, rng_pct(&g->r, 20) ? "SELECT DISTINCT " : "SELECT ");
    for (int i = 0; i < ncol; i++) {
        if (i) sb_printf(g->q, ", ");
        g->sub_ok = true;
        gen_typed(g, types[i], rng_int(&g->r, 0, 2));
        g->sub_ok = false;
    }
    sb_printf(g->q, "%s", from.p);
    gen_where(g, &where_eq);
    free(from.p);
    free(where_eq.p);
}

/* gen_grouped writes an aggregate query: group keys, aggregates, maybe HAVING. */
static int gen_grouped(gen *g) {
    sbuf from = {0}, where_eq = {0};
    sbuf *q = g->q;
    g->q = &from;
    gen_from(g, &where_eq);
    g->q = q;

    int nkeys = rng_pct(&g->r, 20) ? 0 : rng_int(&g->r, 1, 2);
    char *keys[2];
    int key_types[2];
    for (int i = 0; i < nkeys; i++) {
        sbuf k = {0};
        g->q = &k;
        key_types[i] = rng_int(&g->r, 0, 2);
        do { /* a key without a column is a constant, which GROUP BY would read as a position */
            sb_reset(&k);
            gen_typed(g, key_types[i], rng_pct(&g->r, 70) ? 0 : 1);
        } while (!strchr(k.p, '.'));
        keys[i] = k.p;
    }
    g->q = q;
    int ncol = 0;
    sb_printf(g->q, rng_pct(&g->r, 10) ? "SELECT DISTINCT " : "SELECT ");
    for (int i = 0; i < nkeys; i++) {
        if (i && rng_pct(&g->r, 15)) continue; /* a key that is grouped by but not selected */
        sb_printf(g->q, "%s%s", ncol ? ", " : "", keys[i]);
        ncol++;
    }
    int naggs = rng_int(&g->r, nkeys ? 0 : 1, 3);
    if (ncol == 0 && naggs == 0) naggs = 1;
    for (int i = 0; i < naggs; i++) {
        sb_printf(g->q, "%s", ncol ? ", " : "");
        int type = gen_agg(g);
        if (type != T_TEXT && rng_pct(&g->r, 10)) sb_printf(g->q, " + count(*)");
        ncol++;
    }
    sb_printf(g->q, "%s", from.p);
    gen_where(g, &where_eq);
    if (nkeys) {
        sb_printf(g->q, " GROUP BY ");
        for (int i = 0; i < nkeys; i++)
            sb_printf(g->q, "%s%s", i ? ", " : "", keys[i]);
    }
    if (rng_pct(&g->r, 35)) {
        sb_printf(g->q, " HAVING ");
        gen_having(g, 1, keys, key_types, nkeys);
    }
    for (int i = 0; i < nkeys; i++)
        free(keys[i]);
    free(from.p);
    free(where_eq.p);
    return ncol;
}

/* gen_star_select writes a multi-way join's SELECT [DISTINCT] * or a list of alias.* and
** expressions (the columns in the order of the query as written, whatever order the joins run
** in); returns the number of output columns. */
static int gen_star_select(gen *g) {
    sbuf from = {0}, where_eq = {0};
    sbuf *q = g->q;
    g->q = &from;
    gen_from(g, &where_eq);
    g->q = q;
    sb_printf(g->q, rng_pct(&g->r, 15) ? "SELECT DISTINCT " : "SELECT ");
    int ncol = 0;
    if (rng_pct(&g->r, 50)) {
        sb_printf(g->q, "*");
        for (int i = 0; i < g->nalias; i++)
            ncol += (int)strlen(table_layout[g->table[i]]);
    } else {
        int items = rng_int(&g->r, 1, 3);
        for (int i = 0; i < items; i++) {
            if (i) sb_printf(g->q, ", ");
            if (rng_pct(&g->r, 60)) {
                int al = pick_alias(g);
                sb_printf(g->q, "%s.*", alias_name[al]);
                ncol += (int)strlen(table_layout[g->table[al]]);
            } else {
                g->sub_ok = true;
                gen_typed(g, rng_int(&g->r, 0, 2), 1);
                g->sub_ok = false;
                ncol++;
            }
        }
    }
    sb_printf(g->q, "%s", from.p);
    gen_where(g, &where_eq);
    free(from.p);
    free(where_eq.p);
    return ncol;
}

/* gen_compound writes two or three simple selects of one column signature joined by set
** operators; INTERSECT only where every operator before it is INTERSECT (see the top). */
static int gen_compound(gen *g) {
    int ncol = rng_int(&g->r, 1, 3), types[3];
    for (int i = 0; i < ncol; i++)
        types[i] = rng_int(&g->r, 0, 2);
    int parts = rng_pct(&g->r, 70) ? 2 : 3;
    bool all_intersect = true;
    for (int p = 0; p < parts; p++) {
        if (p) {
            int op = rng_int(&g->r, all_intersect ? 0 : 1, 4);
            static const char *const ops[] = {" INTERSECT ", " UNION ", " UNION ALL ", " EXCEPT ",
                                              " UNION ALL "};
            sb_printf(g->q, "%s", ops[op]);
            if (op) all_intersect = false;
        }
        gen_simple(g, types, ncol);
    }
    return ncol;
}

/* gen_query writes one query into q; *ordered says whether it orders by every output column. */
static void gen_query(gen *g, bool *ordered) {
    int shape = rng_int(&g->r, 0, 99), ncol;
    if (shape < 40 && g->multi && rng_pct(&g->r, 35)) {
        ncol = gen_star_select(g);
    } else if (shape < 40) {
        int types[4];
        ncol = rng_int(&g->r, 1, 4);
        for (int i = 0; i < ncol; i++)
            types[i] = rng_int(&g->r, 0, 2);
        gen_simple(g, types, ncol);
    } else if (shape < 75) {
        ncol = gen_grouped(g);
    } else {
        ncol = gen_compound(g);
    }
    *ordered = rng_pct(&g->r, 40);
    if (*ordered) gen_order_by(g, ncol);
}

/* ---- the driver ------------------------------------------------------------------------- */

/* total_queries is the number of queries of a whole run: STRATA_DIFF_QUERIES, or the default. */
static int total_queries(void) {
    const char *env = getenv("STRATA_DIFF_QUERIES");
    if (env && atoi(env) > 0) return atoi(env);
#if defined(__SANITIZE_ADDRESS__)
    return 1000;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return 1000;
#endif
#endif
    return 3200;
}

static uint64_t base_seed(void) {
    const char *env = getenv("STRATA_DIFF_SEED");
    return env ? strtoull(env, NULL, 0) : 20240601;
}

/* write_repro writes the data set and the query as one script that both engines can run. */
static void write_repro(const dataset *ds, int qi, const char *sql, char *path, size_t cap) {
    snprintf(path, cap, "/tmp/strata_diff_%llu_%d.sql", (unsigned long long)ds->seed, qi);
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(path, cap, "(could not write a script)");
        return;
    }
    fprintf(f, "-- sqlite3: PRAGMA case_sensitive_like=ON first\n%s%s;\n", ds->script.p, sql);
    fclose(f);
}

/* run_dataset loads the data set of seed into both engines and compares nq generated queries;
** query i uses its own generator seed, so one query can be rerun alone. Stops at the fifth
** mismatch (STRATA_DIFF_MAX_MISMATCHES) and fails the test if there was any. */
/* The migrated variant: strata's tables get 2,048-row row groups, so that most of the big table
** moves into column segments; then the same deletes and updates run in both engines (some of
** them on migrated rows) and strata checkpoints. */
static const char MIGRATED_CHANGES[] = "DELETE FROM t3 WHERE k % 7 = 3;\n"
                                       "UPDATE t3 SET a = a + 1, c = 'upd' WHERE k % 5 = 0;\n";

static void run_dataset_as(uint64_t seed, bool big, int nq, bool migrated) {
    dataset ds;
    dataset_make(&ds, seed, big);

    strata_db *sdb = NULL;
    sqlite3 *qdb = NULL;
    cr_assert_eq(strata_open(":memory:", &sdb), STRATA_OK);
    cr_assert_eq(sqlite3_open(":memory:", &qdb), SQLITE_OK);
    sbuf sscript = {0};
    for (const char *p = ds.script.p; *p; p++) {
        if (migrated && !strncmp(p, "d DOUBLE);", 10)) {
            sb_printf(&sscript, "d DOUBLE) WITH (row_group_size = 2048);");
            p += 9;
        } else {
            sb_printf(&sscript, "%c", *p);
        }
    }
    if (migrated) sb_printf(&sscript, "%sCHECKPOINT;\n", MIGRATED_CHANGES);
    /* statistics for every other data set: joins are then ordered by the tables' real sizes,
    ** otherwise by the defaults of tables never analyzed (these are too small to be analyzed on
    ** their own) */
    if (seed % 2) sb_printf(&sscript, "ANALYZE;\n");
    cr_assert_eq(strata_exec(sdb, sscript.p, NULL, NULL), STRATA_OK, "loading: %s", strata_errmsg(sdb));
    free(sscript.p);
    char *msg = NULL;
    cr_assert_eq(sqlite3_exec(qdb, "PRAGMA case_sensitive_like=ON", NULL, NULL, &msg), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(qdb, ds.script.p, NULL, NULL, &msg), SQLITE_OK, "loading: %s", msg);
    if (migrated) {
        cr_assert_eq(sqlite3_exec(qdb, MIGRATED_CHANGES, NULL, NULL, &msg), SQLITE_OK, "changing: %s", msg);
        result info;
        run_strata(sdb, "SELECT count(*) FROM pragma_storage_info('t3') WHERE row_group IS NOT NULL", &info);
        cr_assert(!info.err && info.nrow == 1 && info.cells[0].i > 0, "t3 has row groups");
        result_free(&info);
    }

    for (int p = 0; p < NTABLES_ALL; p++) {
        for (int q = 0; q < NTABLES_ALL; q++) {
            for (int j = 0; j < (int)NJOIN_COLS; j++) {
                char sql[128];
                snprintf(sql, sizeof sql, "SELECT count(*) FROM t%d AS p, t%d AS q WHERE p.%s = q.%s", p + 1,
                         q + 1, join_cols[j].x, join_cols[j].y);
                result count;
                run_sqlite(qdb, sql, &count);
                cr_assert(!count.err && count.nrow == 1, "%s", sql);
                ds.matches[p][q][j] = (double)count.cells[0].i;
                result_free(&count);
            }
        }
    }

    const char *only = getenv("STRATA_DIFF_QUERY"); /* rerun one query of the data set */
    bool joins_only = getenv("STRATA_DIFF_JOINS") && atoi(getenv("STRATA_DIFF_JOINS"));
    const char *max_env = getenv("STRATA_DIFF_MAX_MISMATCHES");
    int mismatches = 0, max_mismatches = max_env ? atoi(max_env) : 5;
    int nonempty = 0;
    size_t rows = 0;
    sbuf q = {0};
    for (int qi = 0; qi < nq && mismatches < max_mismatches; qi++) {
        if (only && atoi(only) != qi) continue;
        gen g = {
            .r = {seed * 1000003ULL + (uint64_t)qi}, .ds = &ds, .q = &q, .multi = joins_only || qi % 4 == 3};
        bool ordered;
        sb_reset(&q);
        gen_query(&g, &ordered);

        result rs, rq;
        run_strata(sdb, q.p, &rs);
        run_sqlite(qdb, q.p, &rq);
        bool same;
        size_t bad = 0;
        if (rs.err || rq.err)
            same = false;
        else {
            if (!ordered) {
                result_sort(&rs);
                result_sort(&rq);
            }
            same = results_equal(&rs, &rq, &bad);
        }
        if (!same || (only && getenv("STRATA_DIFF_VERBOSE"))) {
            char path[256];
            write_repro(&ds, qi, q.p, path, sizeof path);
            fprintf(stderr,
                    "\n%s: seed %llu%s, query %d (rerun: STRATA_DIFF_SEED=%llu STRATA_DIFF_QUERY=%d; script "
                    "%s)\n  %s\n",
                    same ? "result" : "MISMATCH", (unsigned long long)seed, big ? " (big)" : "", qi,
                    (unsigned long long)base_seed(), qi, path, q.p);
            if (!rs.err && !rq.err)
                fprintf(stderr, "  first differing row: %zu (%s)\n", bad, ordered ? "ordered" : "sorted");
            result_print(stderr, "strata", &rs);
            result_print(stderr, "sqlite", &rq);
            if (!same) mismatches++;
        }
        nonempty += rq.nrow > 0;
        rows += rq.nrow;
        result_free(&rs);
        result_free(&rq);
    }
    cr_log_info("seed %llu: %d queries, %d with rows, %zu rows compared", (unsigned long long)seed, nq,
                nonempty, rows);
    free(q.p);
    strata_close(sdb);
    sqlite3_close(qdb);
    free(ds.script.p);
    cr_assert_eq(mismatches, 0, "seed %llu: %d queries differ between strata and SQLite (see stderr)",
                 (unsigned long long)seed, mismatches);
}

static void run_dataset(uint64_t seed, bool big, int nq) { run_dataset_as(seed, big, nq, false); }

/* Five data sets: four small (each table 0..45 rows) and one with a 2,600-row table, and that
** one again with its rows migrated. The queries are shared out so that the whole run has
** total_queries(). */
#define DIFF_TEST(name, idx, big, share)                                                                     \
    Test(diff_sqlite, name) {                                                                                \
        int nq = total_queries() * (share) / 100;                                                            \
        run_dataset(base_seed() + (idx), big, nq > 0 ? nq : 1);                                              \
    }
DIFF_TEST(small_tables_1, 1, false, 22)
DIFF_TEST(small_tables_2, 2, false, 22)
DIFF_TEST(small_tables_3, 3, false, 22)
DIFF_TEST(small_tables_4, 4, false, 22)
DIFF_TEST(chunk_boundary_table, 5, true, 12)

Test(diff_sqlite, migrated_rows) {
    int nq = total_queries() * 12 / 100;
    run_dataset_as(base_seed() + 6, true, nq > 0 ? nq : 1, true);
}
