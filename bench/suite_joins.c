/*
** suite_joins.c -- the join workloads of seed report 002: four tables (nations, customers,
** orders, lineitem) loaded by each engine's bulk path with two secondary indexes, then seven
** joins J1-J7, each in a fresh process: its first run (prepare included) and the median of
** repeated runs of the prepared statement.
**
** Every value comes from a generator keyed by the row's id (the *_for functions below), so the
** load needs no state and the expected result of every join is computed here from the same
** generator, then compared with what the engine returned. Customers whose id ends in 9 never
** get an order (J6 counts them); an order's ship code matches no nation one time in twenty (J7).
** Prices and totals are multiples of 0.25 below 2^40, so that every sum is exact in a double
** whatever the order of addition.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define SEGMENTS 10
#define REGIONS 5
#define RATINGS 100
#define J2_RATING 42 /* J2 keeps the customers of this rating (1 % of them); its SQL says 42 */
#define NAME_LEN 18  /* "Customer#000004242" */
#define MAX_COLS 4

static const size_def sizes[] = {
    {"join_nations", 2000, 400, 20},
    {"join_customers", 10000, 2000, 100},
    {"join_orders", 200000, 40000, 300},
    {"join_lineitems", 400000, 80000, 600},
    {"join_runs", 5, 3, 1},
};

static const workload_def workloads[] = {
    {"load_joins", "load"}, {"j1_group_by", "j1"}, {"j2_selective", "j2"},      {"j3_bad_order", "j3"},
    {"j4_three_way", "j4"}, {"j5_point", "j5"},    {"j6_left_unmatched", "j6"}, {"j7_non_indexed", "j7"},
};

/* A join's two figures: its first run and the median of its repeats. */
#define JOIN_FIRST(w, title)                                                                                 \
    { w "_first_ms", w, title ": first run", "ms", "query run", NULL, K_TIME, "join_orders" }
#define JOIN_REPEAT(w, title)                                                                                \
    { w "_repeat_ms", w, title ": repeat (median)", "ms", "query run", NULL, K_TIME, "join_orders" }
#define JOIN_METRICS(w, title) JOIN_FIRST(w, title), JOIN_REPEAT(w, title)

static const metric_def metrics[] = {
    {"load_joins_ms", "load_joins", "load join tables (4 tables, 2 indexes)", "ms", "load", NULL, K_TIME,
     NULL},
    {"load_joins_rows_ms", "load_joins", "   of which CREATE TABLE + bulk loads", "ms", "load", NULL, K_TIME,
     NULL},
    {"load_joins_index_ms", "load_joins", "   of which 2 × CREATE INDEX", "ms", "load", NULL, K_TIME, NULL},
    {"load_joins_size_bytes", "load_joins", "size of the join tables after the load (file + WAL)", "bytes",
     "database", NULL, K_SIZE, NULL},
    JOIN_METRICS("j1_group_by", "J1 join + group by (customers × %s orders)"),
    JOIN_METRICS("j2_selective", "J2 selective filter on the small side (1 %% of customers, %s orders)"),
    JOIN_METRICS("j3_bad_order", "J3 written in a bad order (%s orders first, 1 customer)"),
    JOIN_METRICS("j4_three_way", "J4 3-way join + group by (customers, %s orders, lineitem)"),
    JOIN_METRICS("j5_point", "J5 point join (one customer of %s orders)"),
    JOIN_METRICS("j6_left_unmatched", "J6 left join, unmatched (customers × %s orders)"),
    JOIN_METRICS("j7_non_indexed", "J7 join on a non-indexed column (%s orders × nations)"),
};

static const phase_def phases[] = {
    {"load", NULL, NULL},         {"j1", "load", "load_joins"}, {"j2", "load", "load_joins"},
    {"j3", "load", "load_joins"}, {"j4", "load", "load_joins"}, {"j5", "load", "load_joins"},
    {"j6", "load", "load_joins"}, {"j7", "load", "load_joins"},
};

static const char *const create_sql[] = {
    "CREATE TABLE nations(n_id INTEGER PRIMARY KEY, n_code INTEGER, n_region INTEGER, n_name TEXT)",
    "CREATE TABLE customers(c_id INTEGER PRIMARY KEY, c_name TEXT, c_nation INTEGER, c_segment INTEGER, "
    "c_rating INTEGER, c_balance DOUBLE)",
    "CREATE TABLE orders(o_id INTEGER PRIMARY KEY, o_cust INTEGER, o_status INTEGER, o_day INTEGER, "
    "o_ship_code INTEGER, o_total DOUBLE)",
    "CREATE TABLE lineitem(l_id INTEGER PRIMARY KEY, l_order INTEGER, l_qty INTEGER, l_price DOUBLE)",
};
static const char *const index_sql[] = {
    "CREATE INDEX orders_cust ON orders(o_cust)",
    "CREATE INDEX lineitem_order ON lineitem(l_order)",
};

/* The joins. J3's text names a customer and J5 binds one: both depend on the sizes, so J3's
** statement is completed by join_sql(). cols gives each result column's type: i(nteger),
** d(ouble) or t(ext). */
typedef struct join_query {
    const char *id, *phase, *sql, *cols;
} join_query;

static const join_query queries[7] = {
    {"j1_group_by", "j1",
     "SELECT c.c_segment, count(*), sum(o.o_total) FROM customers c JOIN orders o ON o.o_cust = c.c_id "
     "GROUP BY c.c_segment",
     "iid"},
    {"j2_selective", "j2",
     "SELECT count(*), sum(o.o_total), sum(c.c_balance) FROM customers c JOIN orders o ON o.o_cust = c.c_id "
     "WHERE c.c_rating = 42",
     "idd"},
    {"j3_bad_order", "j3",
     "SELECT count(*), sum(o.o_total), max(o.o_day) FROM orders o JOIN customers c ON c.c_id = o.o_cust "
     "WHERE c.c_name = '%s'",
     "idi"},
    {"j4_three_way", "j4",
     "SELECT c.c_segment, count(*), sum(l.l_qty), sum(l.l_price) FROM customers c "
     "JOIN orders o ON o.o_cust = c.c_id JOIN lineitem l ON l.l_order = o.o_id GROUP BY c.c_segment",
     "iiid"},
    {"j5_point", "j5",
     "SELECT c.c_name, o.o_id, o.o_total FROM customers c JOIN orders o ON o.o_cust = c.c_id "
     "WHERE c.c_id = ?",
     "tid"},
    {"j6_left_unmatched", "j6",
     "SELECT count(*), count(o.o_id), sum(CASE WHEN o.o_id IS NULL THEN 1 ELSE 0 END) FROM customers c "
     "LEFT JOIN orders o ON o.o_cust = c.c_id",
     "iii"},
    {"j7_non_indexed", "j7",
     "SELECT count(*), sum(o.o_total), sum(n.n_region) FROM orders o "
     "JOIN nations n ON n.n_code = o.o_ship_code",
     "idi"},
};

/* ---------------------------------------------------------------------------------------------
** Deterministic data.
*/

typedef struct nation_row {
    int64_t id, code, region;
} nation_row;

typedef struct customer_row {
    int64_t id, nation, segment, rating;
    double balance;
} customer_row;

typedef struct order_row {
    int64_t id, cust, status, day, ship_code;
    double total;
} order_row;

typedef struct lineitem_row {
    int64_t id, order, qty;
    double price;
} lineitem_row;

/* A nation's code: unique, not its id, and never indexed (J7 joins on it). */
static int64_t nation_code(int64_t n) { return 1000 + 3 * n; }

static nation_row nation_for(uint64_t id) {
    uint64_t s = id * 0x9E3779B97F4A7C15u + 0x4E4154u;
    return (nation_row){(int64_t)id, nation_code((int64_t)id), (int64_t)below(&s, REGIONS)};
}

static customer_row customer_for(uint64_t id, uint64_t nations) {
    uint64_t s = id * 0x100000001B3u + 0xC057u;
    customer_row r = {.id = (int64_t)id};
    r.nation = (int64_t)below(&s, nations);
    r.segment = (int64_t)below(&s, SEGMENTS);
    r.rating = (int64_t)below(&s, RATINGS);
    r.balance = (double)below(&s, 40000) * 0.25 - 1000;
    return r;
}

/* out gets the NAME_LEN characters of customer id's name and a NUL. */
static void customer_name(char *out, size_t n, uint64_t id) {
    snprintf(out, n, "Customer#%09llu", (unsigned long long)id);
}

/* Orders go to customers whose id does not end in 9; their ship code matches no nation one time
** in twenty (nation codes are 1000 + 3n, these are 1 more). */
static order_row order_for(uint64_t id, uint64_t customers, uint64_t nations) {
    uint64_t s = id * 0xD6E8FEB86659FD93u + 0x0D0Du;
    order_row r = {.id = (int64_t)id};
    uint64_t c = below(&s, customers);
    r.cust = (int64_t)(c % 10 == 9 ? c - 9 : c);
    r.status = (int64_t)below(&s, 3);
    r.day = 19000 + (int64_t)below(&s, 2000);
    r.ship_code = nation_code((int64_t)below(&s, nations));
    if (below(&s, 20) == 0) r.ship_code++;
    r.total = (double)(1 + below(&s, 40000)) * 0.25;
    return r;
}

static lineitem_row lineitem_for(uint64_t id, uint64_t orders) {
    uint64_t s = id * 0xA0761D6478BD642Fu + 0x11EEu;
    lineitem_row r = {.id = (int64_t)id};
    r.order = (int64_t)below(&s, orders);
    r.qty = 1 + (int64_t)below(&s, 50);
    r.price = (double)(1 + below(&s, 8000)) * 0.25;
    return r;
}

typedef struct join_sizes {
    uint64_t nations, customers, orders, lineitems;
} join_sizes;

static join_sizes sizes_of(const options *o) {
    return (join_sizes){size_of(o, "join_nations"), size_of(o, "join_customers"), size_of(o, "join_orders"),
                        size_of(o, "join_lineitems")};
}

/* The customer J3 names and J5 binds: one that has orders. */
static uint64_t j3_customer(const join_sizes *z) {
    uint64_t c = z->customers * 3 / 7;
    return c % 10 == 9 ? c - 1 : c;
}
static uint64_t j5_customer(const join_sizes *z) {
    uint64_t c = z->customers / 5 + 1;
    return c % 10 == 9 ? c - 1 : c;
}

/* ---------------------------------------------------------------------------------------------
** Result checksums: a row hashes its values in column order; the checksum is the count of rows,
** the sum and the xor of the row hashes, so that it does not depend on the row order.
*/

typedef struct value {
    int is_null;
    int64_t i;
    double d;
    const char *t;
    int len;
} value;

static value vi(int64_t i) { return (value){.i = i}; }
static value vd(double d) { return (value){.d = d}; }

static void fold_row(checksum *c, const char *cols, const value *v) {
    uint64_t h = 0x6A09E667F3BCC908u;
    for (int i = 0; cols[i]; i++) {
        if (v[i].is_null)
            h = mix(h, 0x4E554C4Cu);
        else if (cols[i] == 'i')
            h = mix(h, (uint64_t)v[i].i);
        else if (cols[i] == 'd')
            h = mix(h, double_bits(v[i].d));
        else
            h = mix(mix(h, sum_bytes(v[i].t, (size_t)v[i].len)), (uint64_t)v[i].len);
    }
    c->a++;
    c->b = (c->b + h) & MASK52;
    c->c ^= h >> 12;
}

/* An aggregate other than count() over no rows is NULL: folded as NULL when count is 0. */
static value nullable_i(int64_t count, int64_t v) { return count ? vi(v) : (value){.is_null = 1}; }
static value nullable_d(int64_t count, double v) { return count ? vd(v) : (value){.is_null = 1}; }

/* The result of join q computed from the data generator. */
static checksum join_expected(int q, const options *o) {
    join_sizes z = sizes_of(o);
    const char *cols = queries[q].cols;
    checksum c = {0};
    switch (q) {
    case 0: { /* J1: per segment, count and sum of o_total */
        int64_t count[SEGMENTS] = {0};
        double sum[SEGMENTS] = {0};
        for (uint64_t i = 0; i < z.orders; i++) {
            order_row r = order_for(i, z.customers, z.nations);
            int64_t seg = customer_for((uint64_t)r.cust, z.nations).segment;
            count[seg]++, sum[seg] += r.total;
        }
        for (int s = 0; s < SEGMENTS; s++)
            if (count[s]) fold_row(&c, cols, (value[]){vi(s), vi(count[s]), vd(sum[s])});
        break;
    }
    case 1: { /* J2: orders of the customers of rating J2_RATING */
        int64_t count = 0;
        double total = 0, balance = 0;
        for (uint64_t i = 0; i < z.orders; i++) {
            order_row r = order_for(i, z.customers, z.nations);
            customer_row cr = customer_for((uint64_t)r.cust, z.nations);
            if (cr.rating == J2_RATING) count++, total += r.total, balance += cr.balance;
        }
        fold_row(&c, cols, (value[]){vi(count), nullable_d(count, total), nullable_d(count, balance)});
        break;
    }
    case 2: { /* J3: one customer's orders */
        int64_t count = 0, day = 0, target = (int64_t)j3_customer(&z);
        double total = 0;
        for (uint64_t i = 0; i < z.orders; i++) {
            order_row r = order_for(i, z.customers, z.nations);
            if (r.cust != target) continue;
            count++, total += r.total;
            if (r.day > day) day = r.day;
        }
        fold_row(&c, cols, (value[]){vi(count), nullable_d(count, total), nullable_i(count, day)});
        break;
    }
    case 3: { /* J4: per segment over lineitem, orders, customers */
        int64_t count[SEGMENTS] = {0}, qty[SEGMENTS] = {0};
        double price[SEGMENTS] = {0};
        int64_t *order_seg = malloc(z.orders * sizeof *order_seg);
        if (order_seg == NULL) die("out of memory");
        for (uint64_t i = 0; i < z.orders; i++)
            order_seg[i] =
                customer_for((uint64_t)order_for(i, z.customers, z.nations).cust, z.nations).segment;
        for (uint64_t i = 0; i < z.lineitems; i++) {
            lineitem_row l = lineitem_for(i, z.orders);
            int64_t s = order_seg[l.order];
            count[s]++, qty[s] += l.qty, price[s] += l.price;
        }
        free(order_seg);
        for (int s = 0; s < SEGMENTS; s++)
            if (count[s]) fold_row(&c, cols, (value[]){vi(s), vi(count[s]), vi(qty[s]), vd(price[s])});
        break;
    }
    case 4: { /* J5: one customer's orders, with its name */
        uint64_t target = j5_customer(&z);
        char name[32];
        customer_name(name, sizeof name, target);
        for (uint64_t i = 0; i < z.orders; i++) {
            order_row r = order_for(i, z.customers, z.nations);
            if ((uint64_t)r.cust == target)
                fold_row(&c, cols, (value[]){{.t = name, .len = NAME_LEN}, vi(r.id), vd(r.total)});
        }
        break;
    }
    case 5: { /* J6: every order once, plus a NULL-extended row per customer without orders */
        int64_t unmatched = 0, *orders_of = calloc(z.customers, sizeof *orders_of);
        if (orders_of == NULL) die("out of memory");
        for (uint64_t i = 0; i < z.orders; i++)
            orders_of[order_for(i, z.customers, z.nations).cust]++;
        for (uint64_t i = 0; i < z.customers; i++)
            unmatched += orders_of[i] == 0;
        free(orders_of);
        fold_row(&c, cols,
                 (value[]){vi((int64_t)z.orders + unmatched), vi((int64_t)z.orders), vi(unmatched)});
        break;
    }
    default: { /* J7: orders whose ship code is a nation's */
        int64_t count = 0, region = 0;
        double total = 0;
        for (uint64_t i = 0; i < z.orders; i++) {
            order_row r = order_for(i, z.customers, z.nations);
            if ((r.ship_code - 1000) % 3) continue;
            count++, total += r.total, region += nation_for((uint64_t)(r.ship_code - 1000) / 3).region;
        }
        fold_row(&c, cols, (value[]){vi(count), nullable_d(count, total), nullable_i(count, region)});
        break;
    }
    }
    return c;
}

/* join_sql writes query q's statement for the sizes of o into out. */
static void join_sql(char *out, size_t n, int q, const options *o) {
    if (q != 2) {
        snprintf(out, n, "%s", queries[q].sql);
        return;
    }
    join_sizes z = sizes_of(o);
    char name[32];
    customer_name(name, sizeof name, j3_customer(&z));
    snprintf(out, n, queries[q].sql, name);
}

/* ---------------------------------------------------------------------------------------------
** The load.
*/

static int load_tables(const engine *e, void *db, const options *o) {
    join_sizes z = sizes_of(o);
    void *ld = NULL;
    char name[32];
    int ok = 1;

    if (e->load_begin(db, "nations", 4, &ld)) return wl_fail(e, db, "begin the load of nations");
    for (uint64_t i = 0; i < z.nations && ok; i++) {
        nation_row r = nation_for(i);
        int len = snprintf(name, sizeof name, "nation %05llu", (unsigned long long)i);
        ok = !(e->load_int64(ld, r.id) || e->load_int64(ld, r.code) || e->load_int64(ld, r.region) ||
               e->load_text(ld, name, len) || e->load_end_row(ld));
    }
    if (!ok) goto fail;
    if (e->load_finish(ld)) return wl_fail(e, db, "finish the load of nations");

    if (e->load_begin(db, "customers", 6, &ld)) return wl_fail(e, db, "begin the load of customers");
    for (uint64_t i = 0; i < z.customers && ok; i++) {
        customer_row r = customer_for(i, z.nations);
        customer_name(name, sizeof name, i);
        ok = !(e->load_int64(ld, r.id) || e->load_text(ld, name, NAME_LEN) || e->load_int64(ld, r.nation) ||
               e->load_int64(ld, r.segment) || e->load_int64(ld, r.rating) || e->load_double(ld, r.balance) ||
               e->load_end_row(ld));
    }
    if (!ok) goto fail;
    if (e->load_finish(ld)) return wl_fail(e, db, "finish the load of customers");

    if (e->load_begin(db, "orders", 6, &ld)) return wl_fail(e, db, "begin the load of orders");
    for (uint64_t i = 0; i < z.orders && ok; i++) {
        order_row r = order_for(i, z.customers, z.nations);
        ok = !(e->load_int64(ld, r.id) || e->load_int64(ld, r.cust) || e->load_int64(ld, r.status) ||
               e->load_int64(ld, r.day) || e->load_int64(ld, r.ship_code) || e->load_double(ld, r.total) ||
               e->load_end_row(ld));
    }
    if (!ok) goto fail;
    if (e->load_finish(ld)) return wl_fail(e, db, "finish the load of orders");

    if (e->load_begin(db, "lineitem", 4, &ld)) return wl_fail(e, db, "begin the load of lineitem");
    for (uint64_t i = 0; i < z.lineitems && ok; i++) {
        lineitem_row r = lineitem_for(i, z.orders);
        ok = !(e->load_int64(ld, r.id) || e->load_int64(ld, r.order) || e->load_int64(ld, r.qty) ||
               e->load_double(ld, r.price) || e->load_end_row(ld));
    }
    if (!ok) goto fail;
    if (e->load_finish(ld)) return wl_fail(e, db, "finish the load of lineitem");
    return 0;
fail:
    wl_fail(e, db, "load a row");
    e->load_abort(ld);
    return -1;
}

/* The tables, their rows and their indexes, commits included. */
static int wl_load(const engine *e, void *db, const options *o) {
    peak_reset();
    uint64_t t0 = now_ns();
    for (size_t i = 0; i < sizeof create_sql / sizeof create_sql[0]; i++)
        if (e->exec(db, create_sql[i])) return wl_fail(e, db, create_sql[i]);
    if (load_tables(e, db, o)) return -1;
    uint64_t t1 = now_ns();
    for (size_t i = 0; i < sizeof index_sql / sizeof index_sql[0]; i++)
        if (e->exec(db, index_sql[i])) return wl_fail(e, db, index_sql[i]);
    put_metric("load_joins_ms", ms_since(t0));
    put_metric("load_joins_rows_ms", (double)(t1 - t0) / 1e6);
    put_metric("load_joins_index_ms", ms_since(t1));
    put_peak("load_joins");
    return 0;
}

/* ---------------------------------------------------------------------------------------------
** The joins.
*/

/* What a run of join q binds: J5's customer. */
typedef struct join_run {
    int q;
    int64_t param;
} join_run;

/* One run of the prepared join to its end (J5 binds its customer first), folded into *c. */
static int run_join(const engine *e, void *stmt, void *arg, checksum *c) {
    const join_run *jr = arg;
    const char *cols = queries[jr->q].cols;
    value v[MAX_COLS];
    int rc;
    memset(c, 0, sizeof *c);
    if (jr->q == 4 && e->bind_int64(stmt, 1, jr->param)) return -1;
    while ((rc = e->step(stmt)) == 1) {
        for (int i = 0; cols[i]; i++) {
            v[i] = (value){.is_null = e->column_is_null(stmt, i)};
            if (v[i].is_null) continue;
            if (cols[i] == 'i')
                v[i].i = e->column_int64(stmt, i);
            else if (cols[i] == 'd')
                v[i].d = e->column_double(stmt, i);
            else if ((v[i].t = e->column_text(stmt, i, &v[i].len)) == NULL)
                return -1;
        }
        fold_row(c, cols, v);
    }
    return rc;
}

/* Join q on the loaded tables in a fresh process (time_query). */
static int wl_join(const engine *e, void *db, const options *o, int q) {
    checksum want = join_expected(q, o);
    join_sizes z = sizes_of(o);
    join_run jr = {q, (int64_t)j5_customer(&z)};
    char sql[1024];
    join_sql(sql, sizeof sql, q, o);
    return time_query(e, db, queries[q].id, sql, (int)size_of(o, "join_runs"), run_join, &jr, &want);
}

/* ---------------------------------------------------------------------------------------------
** Phases.
*/

static void phase_load(const engine *e, const options *o, const char *dir) {
    char path[4200];
    db_path(path, sizeof path, dir, "joins");
    remove_db(path);
    void *db = open_db(e, path, (const char *const[]){"load_joins"}, 1);
    if (db == NULL) return;
    /* the joins read these tables: they are loaded whether or not the load's time is asked for */
    int rc = RUN_ALWAYS("load_joins", wl_load(e, db, o));
    e->close(db);
    if (rc == 0) put_metric("load_joins_size_bytes", db_size(path));
}

static void phase_join(const engine *e, const options *o, const char *dir, int q) {
    char path[4200];
    db_path(path, sizeof path, dir, "joins");
    void *db = open_db(e, path, &queries[q].id, 1);
    if (db == NULL) return;
    RUN(queries[q].id, wl_join(e, db, o, q));
    e->close(db);
}

static void run_phase(const engine *e, const options *o, const char *dir, const char *phase) {
    if (!strcmp(phase, "load")) return phase_load(e, o, dir);
    for (int q = 0; q < 7; q++)
        if (!strcmp(phase, queries[q].phase)) return phase_join(e, o, dir, q);
}

static void describe(FILE *out, const options *o) {
    join_sizes z = sizes_of(o);
    char j3[1024];
    join_sql(j3, sizeof j3, 2, o);
    fprintf(out,
            "- Tables, loaded in one process by each engine's bulk path (one transaction per table), then "
            "`%s` and `%s`, all of it timed, commits included: `%s` (%llu rows); `%s` (%llu rows, "
            "customers whose id ends in 9 have no orders); `%s` (%llu rows, 1 in 20 ship codes matches no "
            "nation); `%s` (%llu rows). Keys and codes are uniformly random; prices are multiples of 0.25.\n",
            index_sql[0], index_sql[1], create_sql[0] + 13, (unsigned long long)z.nations, create_sql[1] + 13,
            (unsigned long long)z.customers, create_sql[2] + 13, (unsigned long long)z.orders,
            create_sql[3] + 13, (unsigned long long)z.lineitems);
    fprintf(out,
            "- Each join in a fresh process: open, `SELECT 1`, the first run timed (prepare + every row), "
            "then %llu runs of the prepared statement, median. J1 `%s`; J2 `%s`; J3 `%s`; J4 `%s`; "
            "J5 `%s` (customer %llu bound); J6 `%s`; J7 `%s` (no index on n_code).\n",
            (unsigned long long)size_of(o, "join_runs"), queries[0].sql, queries[1].sql, j3, queries[3].sql,
            queries[4].sql, (unsigned long long)j5_customer(&z), queries[5].sql, queries[6].sql);
}

const suite suite_joins = {
    .id = "joins",
    .title = "Joins (seed 002)",
    SUITE_TABLES,
    .run_phase = run_phase,
    .describe = describe,
};
