/*
** suite_index.c -- the index workloads of seed report 002: a table idx(a, b, c, d, e) loaded by
** each engine's bulk path, CREATE INDEX on b, on (d, c) and on the expression lower(e), warm
** equality, range, composite and expression lookups through those indexes, UPDATE of an
** indexed column and DELETE with the three indexes present (each checked through the indexes
** afterwards), and a bulk load into a table whose three indexes already exist.
**
** Phases: "build" (load, the three CREATE INDEX, then the lookups on the same connection: warm),
** "change" (a fresh load with its indexes, untimed, then the UPDATE and the DELETE) and "insert"
** (the indexed bulk load into a fresh database). Each runs in its own process on its own
** database. bench/README.md describes the workloads; describe() below writes the same for the
** report.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define B_VALUES 1000   /* distinct values of b */
#define D_VALUES 1000   /* distinct values of d */
#define C_QUARTERS 4000 /* c is a multiple of 0.25 in [0, 1000): sums of c are exact */
#define C_BOUND 500     /* the composite lookups' c > 500: about half of a d value's rows */
#define RANGE_WIDTH 10  /* b values per range lookup: 1 % of the rows */
#define GROUP_ROWS 4    /* rows sharing one value of lower(e), each with its own letter case */
#define E_MIN 10        /* e has E_MIN .. E_MIN + E_SPREAD - 1 letters */
#define E_SPREAD 15
#define E_MAX 32
#define CHECK_GROUPS 1000 /* lower(e) values looked up by a check */

static const size_def sizes[] = {
    {"idx_rows", 200000, 40000, 600}, {"idx_eq_lookups", 10000, 2000, 100},    {"idx_lookups", 1000, 200, 40},
    {"idx_changes", 10000, 2000, 50}, {"idx_insert_rows", 100000, 20000, 400},
};

static const workload_def workloads[] = {
    {"idx_load", "build"},
    {"idx_create_b", "build"},
    {"idx_create_dc", "build"},
    {"idx_create_lower", "build"},
    {"idx_eq", "build"},
    {"idx_range", "build"},
    {"idx_composite", "build"},
    {"idx_expr", "build"},
    {"idx_update", "change"},
    {"idx_delete", "change"},
    {"idx_insert_indexed", "insert"},
};

static const metric_def metrics[] = {
    {"idx_load_ms", "idx_load", "load %s rows, no index but the primary key (bulk path)", "ms", "row",
     "idx_rows", K_TIME, "idx_rows"},
    {"idx_create_b_ms", "idx_create_b", "CREATE INDEX on b (1 column, 1,000 values), %s rows", "ms", "row",
     "idx_rows", K_TIME, "idx_rows"},
    {"idx_create_dc_ms", "idx_create_dc", "CREATE INDEX on (d, c) (2 columns), %s rows", "ms", "row",
     "idx_rows", K_TIME, "idx_rows"},
    {"idx_create_lower_ms", "idx_create_lower", "CREATE INDEX on lower(e) (expression), %s rows", "ms", "row",
     "idx_rows", K_TIME, "idx_rows"},
    {"idx_eq_ms", "idx_eq", "equality lookups ×%s on b (0.1 %% of the rows each)", "ms", "lookup",
     "idx_eq_lookups", K_TIME, "idx_eq_lookups"},
    {"idx_range_ms", "idx_range", "range lookups ×%s on b (1 %% of the rows each, rows read)", "ms", "lookup",
     "idx_lookups", K_TIME, "idx_lookups"},
    {"idx_composite_ms", "idx_composite", "composite lookups ×%s (d = ? AND c > 500)", "ms", "lookup",
     "idx_lookups", K_TIME, "idx_lookups"},
    {"idx_expr_ms", "idx_expr", "expression lookups ×%s (lower(e) = ?)", "ms", "lookup", "idx_lookups",
     K_TIME, "idx_lookups"},
    {"idx_update_ms", "idx_update", "UPDATE of b (indexed) on %s rows, 1 txn", "ms", "row", "idx_changes",
     K_TIME, "idx_changes"},
    {"idx_delete_ms", "idx_delete", "DELETE of %s rows, 3 indexes, 1 txn", "ms", "row", "idx_changes", K_TIME,
     "idx_changes"},
    {"idx_insert_indexed_ms", "idx_insert_indexed", "bulk insert of %s rows, 3 indexes present", "ms", "row",
     "idx_insert_rows", K_TIME, "idx_insert_rows"},
    {"idx_size_bytes", "idx_create_lower", "size of idx with its 3 indexes (file + WAL)", "bytes", "database",
     NULL, K_SIZE, NULL},
};

static const phase_def phases[] = {
    {"build", NULL, NULL},
    {"change", NULL, NULL},
    {"insert", NULL, NULL},
};

static const char *const create_table_sql =
    "CREATE TABLE idx(a INTEGER PRIMARY KEY, b INTEGER, c DOUBLE PRECISION, d INTEGER, e TEXT)";

static const char *const create_ids[3] = {"idx_create_b", "idx_create_dc", "idx_create_lower"};
static const char *const create_sql[3] = {
    "CREATE INDEX idx_b ON idx(b)",
    "CREATE INDEX idx_dc ON idx(d, c)",
    "CREATE INDEX idx_lower ON idx(lower(e))",
};

/* The four lookups; each row they return is folded into a checksum by fold_row. */
enum lookup_kind { L_EQ, L_RANGE, L_COMPOSITE, L_EXPR };
static const char *const lookup_ids[4] = {"idx_eq", "idx_range", "idx_composite", "idx_expr"};
static const char *const lookup_sql[4] = {
    "SELECT a FROM idx WHERE b = ?",
    "SELECT a, c, e FROM idx WHERE b BETWEEN ? AND ?",
    "SELECT a, c FROM idx WHERE d = ? AND c > 500",
    "SELECT a, e FROM idx WHERE lower(e) = ?",
};
static const int lookup_index[4] = {0, 0, 1, 2}; /* the CREATE INDEX each lookup needs */

static const char *const update_sql = "UPDATE idx SET b = ? WHERE a = ?";
static const char *const delete_sql = "DELETE FROM idx WHERE a = ?";

/* ---------------------------------------------------------------------------------------------
** Deterministic data. Row a (1..n) of an n-row table; b, c and d are independent of a and of
** each other, so every index is built and read in an order unrelated to the table's. The rows
** a = g + 1, g + 1 + groups, ... (at most GROUP_ROWS of them) share the lower-case letters of
** group g, each row with its own mix of upper and lower case.
*/

typedef struct row {
    int64_t a, b, d;
    double c;
    int elen;
    char e[E_MAX];
} row;

static uint64_t groups_of(uint64_t rows) {
    return rows < GROUP_ROWS ? 1 : (rows + GROUP_ROWS - 1) / GROUP_ROWS;
}

/* The lower-case letters of group g into out (not NUL-terminated); returns their count. Each
** letter comes from a byte of a random word: the generator runs inside the timed loads. */
static int group_text(uint64_t g, char *out) {
    uint64_t s = g * 0x9E3779B97F4A7C15u + 0x1DE5u, bits = 0;
    int len = E_MIN + (int)below(&s, E_SPREAD);
    for (int i = 0; i < len; i++, bits >>= 8) {
        if (i % 8 == 0) bits = splitmix64(&s);
        out[i] = (char)('a' + ((bits & 0xFF) * 26 >> 8));
    }
    return len;
}

static row row_for(int64_t a, uint64_t groups) {
    uint64_t s = (uint64_t)a * 0x100000001B3u + 0x1D5EEDu;
    row r = {.a = a};
    r.b = (int64_t)below(&s, B_VALUES);
    r.c = (double)below(&s, C_QUARTERS) * 0.25;
    r.d = (int64_t)below(&s, D_VALUES);
    r.elen = group_text((uint64_t)(a - 1) % groups, r.e);
    uint64_t caps = splitmix64(&s); /* bit i set: letter i in upper case */
    for (int i = 0; i < r.elen; i++)
        r.e[i] = (char)(r.e[i] ^ (int)((caps >> i & 1) << 5));
    return r;
}

/* The new b of row a in the UPDATE: never its old one, so every updated index key moves. */
static int64_t new_b(int64_t a, int64_t old) {
    uint64_t s = (uint64_t)a ^ 0x0B5EB5EB5EB5EB5Eu;
    return (old + 1 + (int64_t)below(&s, B_VALUES - 1)) % B_VALUES;
}

/* ---------------------------------------------------------------------------------------------
** Checksums. A returned row adds 1 to a, its a to b and, to c, a hash of its a with the key it
** was looked up by (so a row found under a wrong key counts as wrong) plus its c in quarters and
** the bytes of its e: all sums, so the row order does not matter.
*/

static uint64_t text_sum(const char *v, int len) { return v ? sum_bytes(v, (size_t)len) + (uint64_t)len : 0; }

static void fold(checksum *ck, int kind, int64_t key, int64_t a, double c, const char *e, int elen) {
    ck->a++, ck->b += (uint64_t)a;
    uint64_t h = mix((uint64_t)key, (uint64_t)a);
    switch (kind) {
    case L_EQ: ck->c += h; break;
    case L_RANGE: ck->c += mix(0, (uint64_t)a) + (uint64_t)(c * 4) + text_sum(e, elen); break;
    case L_COMPOSITE: ck->c += h + (uint64_t)(c * 4); break;
    case L_EXPR: ck->c += h + text_sum(e, elen); break;
    }
}

/* fold_row folds the current row of a statement of lookup_sql[kind] (columns as there). */
static void fold_row(const engine *e, void *stmt, int kind, int64_t key, checksum *ck) {
    int64_t a = e->column_int64(stmt, 0);
    double c = 0;
    const char *text = NULL;
    int len = 0;
    if (kind == L_RANGE || kind == L_COMPOSITE) c = e->column_double(stmt, 1);
    if (kind == L_RANGE) text = e->column_text(stmt, 2, &len);
    if (kind == L_EXPR) text = e->column_text(stmt, 1, &len);
    fold(ck, kind, key, a, c, text, len);
}

static void fold_expected(checksum *ck, int kind, int64_t key, const row *r) {
    fold(ck, kind, key, r->a, r->c, r->e, r->elen);
}

/* ---------------------------------------------------------------------------------------------
** Loading and the checks of the change workloads.
*/

/* fail_if: wl_fail(e, db, what) when rc is not 0, else 0. */
static int fail_if(const engine *e, void *db, int rc, const char *what) {
    return rc ? wl_fail(e, db, what) : 0;
}

/* load_rows appends rows 1..n to idx by the engine's bulk path (its commit included). */
static int load_rows(const engine *e, void *db, uint64_t n) {
    void *ld = NULL;
    uint64_t groups = groups_of(n);
    if (e->load_begin(db, "idx", 5, &ld)) return wl_fail(e, db, "begin the load of idx");
    for (uint64_t a = 1; a <= n; a++) {
        row r = row_for((int64_t)a, groups);
        if (e->load_int64(ld, r.a) || e->load_int64(ld, r.b) || e->load_double(ld, r.c) ||
            e->load_int64(ld, r.d) || e->load_text(ld, r.e, r.elen) || e->load_end_row(ld)) {
            wl_fail(e, db, "load a row of idx");
            e->load_abort(ld);
            return -1;
        }
    }
    if (e->load_finish(ld)) return wl_fail(e, db, "finish the load of idx");
    return 0;
}

static int create_indexes(const engine *e, void *db) {
    for (int i = 0; i < 3; i++)
        if (e->exec(db, create_sql[i])) return wl_fail(e, db, create_sql[i]);
    return 0;
}

/* What the table holds after the changes: row a (1..rows) with b[a] unless it was deleted. */
typedef struct table_state {
    uint64_t rows, groups;
    int64_t *b;
    unsigned char *alive;
} table_state;

static void state_init(table_state *t, uint64_t rows) {
    t->rows = rows, t->groups = groups_of(rows);
    t->b = malloc((rows + 1) * sizeof *t->b);
    t->alive = malloc(rows + 1);
    if (t->b == NULL || t->alive == NULL) die("out of memory");
    for (uint64_t a = 1; a <= rows; a++)
        t->b[a] = row_for((int64_t)a, t->groups).b, t->alive[a] = 1;
}

static void state_free(table_state *t) {
    free(t->b);
    free(t->alive);
}

/* run_check runs the prepared lookup stmt of kind for each of n keys (keys[i], with text
** texts[i] for L_EXPR) and folds every row into *got. */
static int run_check(const engine *e, void *db, int kind, const int64_t *keys, char (*texts)[E_MAX],
                     const int *tlen, uint64_t n, checksum *got) {
    void *stmt = NULL;
    int rc = 0;
    if (e->prepare(db, lookup_sql[kind], &stmt)) return wl_fail(e, db, lookup_sql[kind]);
    for (uint64_t i = 0; i < n && rc >= 0; i++) {
        if (e->reset(stmt) ||
            (kind == L_EXPR ? e->bind_text(stmt, 1, texts[i], tlen[i]) : e->bind_int64(stmt, 1, keys[i]))) {
            rc = -1;
            break;
        }
        while ((rc = e->step(stmt)) == 1)
            fold_row(e, stmt, kind, keys[i], got);
    }
    if (rc < 0) wl_fail(e, db, lookup_sql[kind]);
    e->finalize(stmt);
    return rc < 0 ? -1 : 0;
}

/* check_indexes reads the table through each index and compares with t: every value of b
** (idx_b), every d with c > 500 (idx_dc), the lower(e) values of up to CHECK_GROUPS rows of
** probe[0..nprobe) (idx_lower), and count(*). The checksum of all of it is w's. */
static int check_indexes(const engine *e, void *db, const table_state *t, const int64_t *probe,
                         uint64_t nprobe, const char *w) {
    checksum want = {0}, got = {0};
    int64_t b_keys[B_VALUES], d_keys[D_VALUES];
    uint64_t alive = 0, step = nprobe > CHECK_GROUPS ? nprobe / CHECK_GROUPS : 1, ng = 0;
    int64_t *g_keys = malloc(CHECK_GROUPS * sizeof *g_keys);
    char(*texts)[E_MAX] = malloc(CHECK_GROUPS * sizeof *texts);
    int *tlen = malloc(CHECK_GROUPS * sizeof *tlen), rc = -1;
    if (g_keys == NULL || texts == NULL || tlen == NULL) die("out of memory");
    for (int i = 0; i < B_VALUES; i++)
        b_keys[i] = i;
    for (int i = 0; i < D_VALUES; i++)
        d_keys[i] = i;
    for (uint64_t a = 1; a <= t->rows; a++) {
        if (!t->alive[a]) continue;
        row r = row_for((int64_t)a, t->groups);
        alive++;
        fold_expected(&want, L_EQ, t->b[a], &r);
        if (r.c > C_BOUND) fold_expected(&want, L_COMPOSITE, r.d, &r);
    }
    for (uint64_t i = 0; i < nprobe && ng < CHECK_GROUPS; i += step) {
        uint64_t g = (uint64_t)(probe[i] - 1) % t->groups;
        g_keys[ng] = (int64_t)g, tlen[ng] = group_text(g, texts[ng]);
        for (uint64_t a = g + 1; a <= t->rows; a += t->groups)
            if (t->alive[a]) {
                row r = row_for((int64_t)a, t->groups);
                fold_expected(&want, L_EXPR, (int64_t)g, &r);
            }
        ng++;
    }
    want.a++, want.b += alive;

    void *count = NULL;
    if (run_check(e, db, L_EQ, b_keys, NULL, NULL, B_VALUES, &got) ||
        run_check(e, db, L_COMPOSITE, d_keys, NULL, NULL, D_VALUES, &got) ||
        run_check(e, db, L_EXPR, g_keys, texts, tlen, ng, &got))
        goto out;
    if (e->prepare(db, "SELECT count(*) FROM idx", &count) || e->step(count) != 1) {
        wl_fail(e, db, "SELECT count(*) FROM idx");
        goto out;
    }
    got.a++, got.b += (uint64_t)e->column_int64(count, 0);
    if (!checksum_equal(&got, &want)) {
        wrong_result("the check through the indexes", &got, &want);
        goto out;
    }
    put_checksum(w, &got);
    rc = 0;
out:
    if (count) e->finalize(count);
    free(g_keys);
    free(texts);
    free(tlen);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
** Phase "build": load, CREATE INDEX ×3, lookups.
*/

static int wl_load(const engine *e, void *db, uint64_t rows) {
    if (e->exec(db, create_table_sql)) return wl_fail(e, db, "CREATE TABLE idx");
    peak_reset();
    uint64_t t0 = now_ns();
    if (load_rows(e, db, rows)) return -1;
    double ms = ms_since(t0);
    put_metric("idx_load_ms", ms);
    put_peak("idx_load");
    /* the load is checked: every engine must hold the same rows */
    checksum want = {0}, got = {0};
    void *s = NULL;
    for (uint64_t a = 1; a <= rows; a++)
        want.a++, want.b += a, want.c += (uint64_t)row_for((int64_t)a, 1).b;
    if (e->prepare(db, "SELECT count(*), sum(a), sum(b) FROM idx", &s) || e->step(s) != 1) {
        wl_fail(e, db, "SELECT count(*), sum(a), sum(b) FROM idx");
        e->finalize(s);
        return -1;
    }
    got.a = (uint64_t)e->column_int64(s, 0), got.b = (uint64_t)e->column_int64(s, 1);
    got.c = (uint64_t)e->column_int64(s, 2);
    e->finalize(s);
    if (!checksum_equal(&got, &want))
        return wrong_result("count(*), sum(a), sum(b) after the load", &got, &want);
    put_checksum("idx_load", &got);
    return 0;
}

static int wl_create(const engine *e, void *db, int i) {
    char id[64];
    peak_reset();
    uint64_t t0 = now_ns();
    if (e->exec(db, create_sql[i])) return wl_fail(e, db, create_sql[i]);
    double ms = ms_since(t0);
    snprintf(id, sizeof id, "%s_ms", create_ids[i]);
    put_metric(id, ms);
    put_peak(create_ids[i]);
    return 0;
}

/* The lookups' parameters and expected results, drawn before the timing. */
typedef struct lookups {
    uint64_t n;
    int64_t *keys; /* the bound key (L_RANGE: the low end; the high end is keys + RANGE_WIDTH - 1) */
    char (*texts)[E_MAX];
    int *tlen;
    checksum want;
} lookups;

/* Expected checksum of each key: per b for L_EQ and L_RANGE, per d (rows with c > 500) for
** L_COMPOSITE, from one pass over the generator. */
typedef struct per_key {
    checksum eq[B_VALUES], range[B_VALUES], composite[D_VALUES];
} per_key;

static void per_key_init(per_key *p, uint64_t rows) {
    uint64_t groups = groups_of(rows);
    memset(p, 0, sizeof *p);
    for (uint64_t a = 1; a <= rows; a++) {
        row r = row_for((int64_t)a, groups);
        fold_expected(&p->eq[r.b], L_EQ, r.b, &r);
        fold_expected(&p->range[r.b], L_RANGE, 0, &r);
        if (r.c > C_BOUND) fold_expected(&p->composite[r.d], L_COMPOSITE, r.d, &r);
    }
}

static void lookups_init(lookups *l, int kind, uint64_t n, uint64_t rows, const per_key *p) {
    uint64_t rng = 0x1D70C0DEu + (uint64_t)kind, groups = groups_of(rows);
    memset(l, 0, sizeof *l);
    l->n = n;
    l->keys = malloc(n * sizeof *l->keys);
    l->texts = malloc(n * sizeof *l->texts);
    l->tlen = malloc(n * sizeof *l->tlen);
    if (l->keys == NULL || l->texts == NULL || l->tlen == NULL) die("out of memory");
    for (uint64_t i = 0; i < n; i++) {
        int64_t k;
        switch (kind) {
        case L_EQ:
            l->keys[i] = k = (int64_t)below(&rng, B_VALUES);
            checksum_add(&l->want, &p->eq[k]);
            break;
        case L_RANGE:
            l->keys[i] = k = (int64_t)below(&rng, B_VALUES - RANGE_WIDTH + 1);
            for (int j = 0; j < RANGE_WIDTH; j++)
                checksum_add(&l->want, &p->range[k + j]);
            break;
        case L_COMPOSITE:
            l->keys[i] = k = (int64_t)below(&rng, D_VALUES);
            checksum_add(&l->want, &p->composite[k]);
            break;
        default: {
            uint64_t g = below(&rng, groups);
            l->keys[i] = (int64_t)g, l->tlen[i] = group_text(g, l->texts[i]);
            for (uint64_t a = g + 1; a <= rows; a += groups) {
                row r = row_for((int64_t)a, groups);
                fold_expected(&l->want, L_EXPR, (int64_t)g, &r);
            }
        }
        }
    }
}

static void lookups_free(lookups *l) {
    free(l->keys);
    free(l->texts);
    free(l->tlen);
}

/* n lookups of lookup_sql[kind], each its own autocommit read, every row read; prepare
** included in the time. */
static int wl_lookups(const engine *e, void *db, int kind, const lookups *l) {
    checksum got = {0};
    void *stmt = NULL;
    int rc = 0;
    peak_reset();
    uint64_t t0 = now_ns();
    if (e->prepare(db, lookup_sql[kind], &stmt)) return wl_fail(e, db, lookup_sql[kind]);
    for (uint64_t i = 0; i < l->n; i++) {
        int64_t k = l->keys[i];
        if (e->reset(stmt)) goto fail;
        if (kind == L_EXPR ? e->bind_text(stmt, 1, l->texts[i], l->tlen[i]) : e->bind_int64(stmt, 1, k))
            goto fail;
        if (kind == L_RANGE && e->bind_int64(stmt, 2, k + RANGE_WIDTH - 1)) goto fail;
        while ((rc = e->step(stmt)) == 1)
            fold_row(e, stmt, kind, kind == L_RANGE ? 0 : k, &got);
        if (rc < 0) goto fail;
    }
    e->reset(stmt); /* ends the last read */
    double ms = ms_since(t0);
    e->finalize(stmt);
    if (!checksum_equal(&got, &l->want)) return wrong_result(lookup_sql[kind], &got, &l->want);
    char id[64];
    snprintf(id, sizeof id, "%s_ms", lookup_ids[kind]);
    put_metric(id, ms);
    put_peak(lookup_ids[kind]);
    put_checksum(lookup_ids[kind], &got);
    return 0;
fail:
    wl_fail(e, db, lookup_sql[kind]);
    e->finalize(stmt);
    return -1;
}

static void phase_build(const engine *e, const options *o, const char *dir) {
    static const char *const later[] = {"idx_create_b", "idx_create_dc", "idx_create_lower", "idx_eq",
                                        "idx_range",    "idx_composite", "idx_expr"};
    uint64_t rows = size_of(o, "idx_rows");
    char path[4200];
    db_path(path, sizeof path, dir, "idx");
    remove_db(path);
    void *db = open_db(e, path, (const char *const[]){"idx_load"}, 1);
    if (db == NULL) return skip_workloads(later, 7, "the database did not open");
    /* everything after the load reads its rows, and the lookups their indexes: they always run */
    if (RUN_ALWAYS("idx_load", wl_load(e, db, rows))) {
        e->close(db);
        return skip_workloads(later, 7, "idx_load failed");
    }
    int created[3];
    for (int i = 0; i < 3; i++)
        created[i] = RUN_ALWAYS(create_ids[i], wl_create(e, db, i)) == 0;
    per_key *p = NULL;
    for (int kind = L_EQ; kind <= L_EXPR; kind++) {
        const char *w = lookup_ids[kind];
        if (!selected(w)) continue;
        if (!created[lookup_index[kind]]) {
            char why[96];
            snprintf(why, sizeof why, "%s failed", create_ids[lookup_index[kind]]);
            skip_workloads(&w, 1, why);
            continue;
        }
        if (p == NULL) {
            if ((p = malloc(sizeof *p)) == NULL) die("out of memory");
            per_key_init(p, rows);
        }
        lookups l;
        lookups_init(&l, kind, size_of(o, kind == L_EQ ? "idx_eq_lookups" : "idx_lookups"), rows, p);
        RUN(w, wl_lookups(e, db, kind, &l));
        lookups_free(&l);
    }
    free(p);
    e->close(db);
    put_metric("idx_size_bytes", db_size(path));
}

/* ---------------------------------------------------------------------------------------------
** Phase "change": UPDATE and DELETE of idx_changes rows each, prepared single-row statements in
** one transaction, on distinct random rows (the UPDATE's and the DELETE's are disjoint).
*/

/* change_rows runs sql once per row of as[0..n) in one transaction: the UPDATE binds the row's
** new b and its a, the DELETE its a. On failure the transaction is rolled back. */
static int change_rows(const engine *e, void *db, const char *sql, const int64_t *as, const int64_t *bs,
                       uint64_t n) {
    void *stmt = NULL;
    if (e->exec(db, "BEGIN")) return wl_fail(e, db, "BEGIN");
    if (e->prepare(db, sql, &stmt)) goto fail;
    for (uint64_t i = 0; i < n; i++) {
        if (e->reset(stmt)) goto fail;
        if (bs ? e->bind_int64(stmt, 1, bs[i]) || e->bind_int64(stmt, 2, as[i])
               : e->bind_int64(stmt, 1, as[i]))
            goto fail;
        if (e->step(stmt) != 0) goto fail;
    }
    e->finalize(stmt);
    stmt = NULL;
    if (e->exec(db, "COMMIT")) {
        wl_fail(e, db, "COMMIT");
        e->exec(db, "ROLLBACK");
        return -1;
    }
    return 0;
fail:
    wl_fail(e, db, sql);
    if (stmt) e->finalize(stmt);
    e->exec(db, "ROLLBACK");
    return -1;
}

static int wl_update(const engine *e, void *db, table_state *t, const int64_t *as, uint64_t n) {
    int64_t *bs = calloc(n + 1, sizeof *bs);
    if (bs == NULL) die("out of memory");
    for (uint64_t i = 0; i < n; i++)
        bs[i] = new_b(as[i], t->b[as[i]]);
    peak_reset();
    uint64_t t0 = now_ns();
    int rc = change_rows(e, db, update_sql, as, bs, n);
    double ms = ms_since(t0);
    if (rc == 0) {
        put_metric("idx_update_ms", ms);
        put_peak("idx_update");
        for (uint64_t i = 0; i < n; i++)
            t->b[as[i]] = bs[i];
    }
    free(bs);
    return rc ? rc : check_indexes(e, db, t, as, n, "idx_update");
}

static int wl_delete(const engine *e, void *db, table_state *t, const int64_t *as, uint64_t n) {
    peak_reset();
    uint64_t t0 = now_ns();
    if (change_rows(e, db, delete_sql, as, NULL, n)) return -1;
    put_metric("idx_delete_ms", ms_since(t0));
    put_peak("idx_delete");
    for (uint64_t i = 0; i < n; i++)
        t->alive[as[i]] = 0;
    return check_indexes(e, db, t, as, n, "idx_delete");
}

static void phase_change(const engine *e, const options *o, const char *dir) {
    static const char *const ws[] = {"idx_update", "idx_delete"};
    uint64_t rows = size_of(o, "idx_rows"), n = size_of(o, "idx_changes");
    if (2 * n > rows) n = rows / 2;
    char path[4200];
    db_path(path, sizeof path, dir, "idx_change");
    remove_db(path);
    void *db = open_db(e, path, ws, 2);
    if (db == NULL) return;
    /* the table the changes start from: loaded and indexed as in "build", untimed */
    if (fail_if(e, db, e->exec(db, create_table_sql), create_table_sql) || load_rows(e, db, rows) ||
        create_indexes(e, db)) {
        e->close(db);
        return skip_workloads(ws, 2, wl_message());
    }
    /* distinct random rows: the first n of a shuffle of 1..rows are updated, the next n deleted */
    int64_t *perm = malloc((rows + 1) * sizeof *perm);
    if (perm == NULL) die("out of memory");
    uint64_t rng = 0xC4A46E5u;
    for (uint64_t i = 0; i < rows; i++)
        perm[i] = (int64_t)i + 1;
    for (uint64_t i = 0; i < 2 * n; i++) {
        uint64_t j = i + below(&rng, rows - i);
        int64_t x = perm[i];
        perm[i] = perm[j], perm[j] = x;
    }
    table_state t;
    state_init(&t, rows);
    int update_failed = selected("idx_update") && RUN("idx_update", wl_update(e, db, &t, perm, n)) != 0;
    if (update_failed)
        skip_workloads(ws + 1, 1, "idx_update failed before it");
    else
        RUN("idx_delete", wl_delete(e, db, &t, perm + n, n));
    state_free(&t);
    free(perm);
    e->close(db);
}

/* ---------------------------------------------------------------------------------------------
** Phase "insert": the bulk path into a fresh table whose three indexes exist.
*/

static int wl_insert_indexed(const engine *e, void *db, uint64_t n) {
    if (e->exec(db, create_table_sql)) return wl_fail(e, db, "CREATE TABLE idx");
    if (create_indexes(e, db)) return -1;
    peak_reset();
    uint64_t t0 = now_ns();
    if (load_rows(e, db, n)) return -1;
    put_metric("idx_insert_indexed_ms", ms_since(t0));
    put_peak("idx_insert_indexed");
    table_state t;
    state_init(&t, n);
    int64_t *probe = malloc(n * sizeof *probe);
    if (probe == NULL) die("out of memory");
    for (uint64_t a = 1; a <= n; a++)
        probe[a - 1] = (int64_t)a;
    int rc = check_indexes(e, db, &t, probe, n, "idx_insert_indexed");
    free(probe);
    state_free(&t);
    return rc;
}

static void phase_insert(const engine *e, const options *o, const char *dir) {
    static const char *const ws[] = {"idx_insert_indexed"};
    char path[4200];
    db_path(path, sizeof path, dir, "idx_insert");
    remove_db(path);
    void *db = open_db(e, path, ws, 1);
    if (db == NULL) return;
    RUN("idx_insert_indexed", wl_insert_indexed(e, db, size_of(o, "idx_insert_rows")));
    e->close(db);
}

static void run_phase(const engine *e, const options *o, const char *dir, const char *phase) {
    if (!strcmp(phase, "build"))
        phase_build(e, o, dir);
    else if (!strcmp(phase, "change"))
        phase_change(e, o, dir);
    else
        phase_insert(e, o, dir);
}

static void describe(FILE *out, const options *o) {
    unsigned long long rows = size_of(o, "idx_rows"), lookups = size_of(o, "idx_lookups");
    fprintf(
        out,
        "- `%s`, %llu rows a = 1..n: b uniform over %d values, c a multiple of 0.25 in [0, 1000), d uniform "
        "over %d values, e %d–%d letters in mixed case, each lower-case value shared by %d rows with "
        "different "
        "cases. Loaded by each engine's bulk path with only the primary key (commit included), then timed "
        "one "
        "by one: `%s`; `%s`; `%s`.\n",
        create_table_sql, rows, B_VALUES, D_VALUES, E_MIN, E_MIN + E_SPREAD - 1, GROUP_ROWS, create_sql[0],
        create_sql[1], create_sql[2]);
    fprintf(
        out,
        "- Warm lookups on the same connection right after the CREATE INDEXes, each a prepared statement "
        "(prepare timed) run as its own autocommit read, every returned row read: %llu × `%s` (about %llu "
        "rows "
        "each); %llu × `%s` over %d consecutive b values (1 %% of the rows, about %llu each); %llu × `%s` "
        "(about %llu rows each); %llu × `%s` with a lower-case string (%d rows each). DuckDB decides at run "
        "time whether to use its ART indexes: EXPLAIN ANALYZE shows an index scan for b = ? and lower(e) = "
        "?, "
        "a sequential scan for the range and the composite lookups.\n",
        (unsigned long long)size_of(o, "idx_eq_lookups"), lookup_sql[0], rows / B_VALUES, lookups,
        lookup_sql[1], RANGE_WIDTH, rows * RANGE_WIDTH / B_VALUES, lookups, lookup_sql[2],
        rows / D_VALUES / 2, lookups, lookup_sql[3], GROUP_ROWS);
    fprintf(
        out,
        "- Changes, in another process on a fresh load with the three indexes (untimed): `%s` on %llu "
        "distinct "
        "random rows (each to another b), prepared and run once per row in one transaction (commit timed), "
        "then `%s` on %llu other random rows the same way. After each, a check reads through every index — "
        "every b value, every d with c > 500, the lower(e) values of the changed rows, count(*) — and must "
        "match the generator.\n",
        update_sql, (unsigned long long)size_of(o, "idx_changes"), delete_sql,
        (unsigned long long)size_of(o, "idx_changes"));
    fprintf(out,
            "- Indexed insert, in another process: a fresh idx with the three indexes created first, then "
            "%llu rows "
            "by the bulk path (commit timed), checked through the indexes as above.\n",
            (unsigned long long)size_of(o, "idx_insert_rows"));
}

const suite suite_index = {
    .id = "index",
    .title = "Indexes (seed 002)",
    SUITE_TABLES,
    .run_phase = run_phase,
    .describe = describe,
};
