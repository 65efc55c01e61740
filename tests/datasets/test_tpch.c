/*
** test_tpch.c -- the TPC-H data generator (datasets/tpch/tpch_gen.h) against the rules of the
** TPC-H specification, clause 4.2: row counts, keys, foreign keys, value ranges and formulas,
** ORDERS derived from its lines, the comment grammar, the .tbl format, and determinism (pinned
** checksums, ranges, and the tpch-gen program writing one table or all of them).
*/
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/fnv.h"
#include "helpers/run_program.h"
#include "helpers/tmpdir.h"
#include "tpch_gen.h"

#ifndef TPCH_GEN_BIN
#error "TPCH_GEN_BIN must name the tpch-gen program (the Makefile passes it)"
#endif

#define SF_SMALL 0.01
#define SF_TEST 0.1

/* ---------------------------------------------------------------------------------------- */
/* Helpers                                                                                  */
/* ---------------------------------------------------------------------------------------- */


/* table_hash generates units [first, first + count) of a table as .tbl text and hashes it. */
static uint64_t table_hash(tpch_table t, double sf, int64_t first, int64_t count, int64_t *rows) {
    tpch_gen *g;
    cr_assert_eq(tpch_gen_open_range(&g, t, sf, first, count), STRATA_OK);
    uint64_t h = FNV_START;
    tpch_row row;
    char line[TPCH_LINE_MAX];
    int64_t n = 0;
    while (tpch_gen_next(g, &row) == STRATA_ROW) {
        size_t len = tpch_format_row(t, &row, line, sizeof line);
        cr_assert_gt(len, 0);
        h = fnv1a(h, line, len);
        n++;
    }
    tpch_gen_close(g);
    if (rows) *rows = n;
    return h;
}

static int64_t count_rows(tpch_table t, double sf) {
    tpch_gen *g;
    cr_assert_eq(tpch_gen_open(&g, t, sf), STRATA_OK);
    tpch_row row;
    int64_t n = 0;
    while (tpch_gen_next(g, &row) == STRATA_ROW)
        n++;
    cr_assert_eq(tpch_gen_next(g, &row), STRATA_DONE, "DONE stays DONE");
    cr_assert_eq(tpch_gen_rows_done(g), n);
    tpch_gen_close(g);
    return n;
}

static int str_eq(tpch_str s, const char *c) { return s.len == strlen(c) && memcmp(s.ptr, c, s.len) == 0; }

static int str_in(tpch_str s, const char *const *list, int n) {
    for (int i = 0; i < n; i++)
        if (str_eq(s, list[i])) return i;
    return -1;
}

static int64_t retail_cents(int64_t partkey) {
    return 90000 + (partkey / 10) % 20001 + 100 * (partkey % 1000);
}

static int64_t spec_suppkey(int64_t partkey, int64_t i, int64_t s) {
    return (partkey + i * (s / 4 + (partkey - 1) / s)) % s + 1;
}

/* "Prefix#" followed by at least 9 digits that spell key. */
static int is_name(tpch_str s, const char *prefix, int64_t key) {
    char want[64];
    snprintf(want, sizeof want, "%s%09lld", prefix, (long long)key);
    return str_eq(s, want);
}

/* A phone number "CC-DDD-DDD-DDDD" whose country code is nationkey + 10 (clause 4.2.2.9). */
static int is_phone(tpch_str s, int64_t nationkey) {
    if (s.len != 15) return 0;
    for (int i = 0; i < 15; i++) {
        int dash = i == 2 || i == 6 || i == 10;
        if (dash ? s.ptr[i] != '-' : (s.ptr[i] < '0' || s.ptr[i] > '9')) return 0;
    }
    int cc = (s.ptr[0] - '0') * 10 + (s.ptr[1] - '0');
    return cc == nationkey + 10 && s.ptr[3] != '0' && s.ptr[7] != '0' && s.ptr[11] != '0';
}

static const char *const SEGMENTS[] = {"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"};
static const char *const PRIORITIES[] = {"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"};
static const char *const INSTRUCTIONS[] = {"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"};
static const char *const MODES[] = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};
static const char *const TYPE_S1[] = {"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"};
static const char *const TYPE_S2[] = {"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"};
static const char *const TYPE_S3[] = {"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"};
static const char *const CONT_S1[] = {"SM", "LG", "MED", "JUMBO", "WRAP"};
static const char *const CONT_S2[] = {"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"};
static const char *const COLORS =
    " almond antique aquamarine azure beige bisque black blanched blue blush brown burlywood burnished"
    " chartreuse chiffon chocolate coral cornflower cornsilk cream cyan dark deep dim dodger drab"
    " firebrick floral forest frosted gainsboro ghost goldenrod green grey honeydew hot indian ivory"
    " khaki lace lavender lawn lemon light lime linen magenta maroon medium metallic midnight mint"
    " misty moccasin navajo navy olive orange orchid pale papaya peach peru pink plum powder puff"
    " purple red rose rosy royal saddle salmon sandy seashell sienna sky slate smoke snow spring"
    " steel tan thistle tomato turquoise violet wheat white yellow ";
/* Every word of the grammar's lists (clause 4.2.2.13), multi-word entries split, and "the". */
static const char *const VOCABULARY =
    " packages requests accounts deposits foxes ideas theodolites pinto beans instructions"
    " dependencies excuses platelets asymptotes courts dolphins multipliers sauternes warthogs frets"
    " dinos attainments somas Tiresias patterns forges braids hockey players frays warhorses dugouts"
    " notornis epitaphs pearls tithes waters orbits gifts sheaves depths sentiments decoys realms"
    " pains grouches escapades"
    " sleep wake are cajole haggle nag use boost affix detect integrate maintain nod was lose sublate"
    " solve thrash promise engage hinder print x-ray breach eat grow impress mold poach serve run"
    " dazzle snooze doze unwind kindle play hang believe doubt"
    " special pending unusual express furious sly careful blithe quick fluffy slow quiet ruthless"
    " thin close dogged daring brave stealthy permanent enticing idle busy regular final ironic even"
    " bold silent"
    " sometimes always never furiously slyly carefully blithely quickly fluffily slowly quietly"
    " ruthlessly thinly closely doggedly daringly bravely stealthily permanently enticingly idly"
    " busily regularly finally ironically evenly boldly silently"
    " about above according to across after against along alongside of among around at atop before"
    " behind beneath beside besides between beyond by despite during except for from in place inside"
    " instead into near on outside over past since through throughout toward under until up upon"
    " without with within"
    " do may might shall will would can could should ought must have need try the ";

/* word_in reports whether the n bytes at w are one of the space-separated words of list. */
static int word_in(const char *list, const char *w, size_t n) {
    char key[40];
    if (n == 0 || n > sizeof key - 3) return 0;
    key[0] = ' ';
    memcpy(key + 1, w, n);
    key[n + 1] = ' ';
    key[n + 2] = '\0';
    return strstr(list, key) != NULL;
}

/* check_text asserts that s is a piece of the grammar's text: its length in [min, max], only the
** grammar's characters, and every whole word (not the first or last, which may be cut) a word of
** the lists, followed by nothing, ',' or a terminator. */
static void check_text(tpch_str s, int min, int max, const char *what) {
    cr_assert(s.len >= (uint32_t)min && s.len <= (uint32_t)max, "%s: length %u not in [%d, %d]", what, s.len,
              min, max);
    for (uint32_t i = 0; i < s.len; i++) {
        char c = s.ptr[i];
        cr_assert((c >= 'a' && c <= 'z') || c == ' ' || c == 'T' || strchr(".,;:?!-", c),
                  "%s: unexpected character '%c' in \"%.*s\"", what, c, (int)s.len, s.ptr);
    }
    uint32_t i = 0;
    while (i < s.len && s.ptr[i] != ' ')
        i++; /* the first word may be cut */
    while (i < s.len) {
        while (i < s.len && s.ptr[i] == ' ')
            i++;
        uint32_t start = i;
        while (i < s.len && s.ptr[i] != ' ')
            i++;
        if (i >= s.len) break; /* the last word may be cut */
        uint32_t end = i;
        while (end > start && strchr(".,;:?!-", s.ptr[end - 1]))
            end--; /* "," and terminators */
        cr_assert(word_in(VOCABULARY, s.ptr + start, end - start),
                  "%s: \"%.*s\" is not a grammar word in \"%.*s\"", what, (int)(end - start), s.ptr + start,
                  (int)s.len, s.ptr);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Row counts                                                                               */
/* ---------------------------------------------------------------------------------------- */

static void check_counts(double sf) {
    int64_t u = llround(sf * 10000);
    const int64_t want[] = {5, 25, u, 15 * u, 20 * u, 80 * u, 150 * u};
    for (int t = 0; t < TPCH_LINEITEM; t++) {
        cr_assert_eq(tpch_table_rows((tpch_table)t, sf), want[t], "%s rows at SF %g", tpch_table_name(t), sf);
        cr_assert_eq(count_rows((tpch_table)t, sf), want[t], "%s rows at SF %g", tpch_table_name(t), sf);
    }
    /* LINEITEM: 1 to 7 lines per order, uniform: 4 on average, a standard deviation of 2 per order. */
    int64_t orders = 150 * u;
    int64_t reported = tpch_table_rows(TPCH_LINEITEM, sf);
    cr_assert_eq(count_rows(TPCH_LINEITEM, sf), reported,
                 "lineitem: the rows generated are the rows reported");
    double band = 8 * 2 * sqrt((double)orders);
    cr_assert(fabs((double)reported - 4.0 * (double)orders) < band, "lineitem: %lld rows for %lld orders",
              (long long)reported, (long long)orders);
    cr_log_info("SF %g: lineitem %lld rows", sf, (long long)reported);
}

Test(tpch, row_counts_sf_0_01) { check_counts(SF_SMALL); }
Test(tpch, row_counts_sf_0_1) { check_counts(SF_TEST); }

/* SF is used with 4 decimals: SF 0.0125 has 125 suppliers; SF 1's lineitem is about 6 million. */
Test(tpch, scale_factor_arithmetic) {
    cr_assert_eq(tpch_table_rows(TPCH_SUPPLIER, 0.0125), 125);
    cr_assert_eq(tpch_table_rows(TPCH_ORDERS, 0.0125), 18750);
    cr_assert_eq(tpch_table_rows(TPCH_PARTSUPP, 2.5), 2000000);
    cr_assert_eq(tpch_table_rows(TPCH_CUSTOMER, 1000), 150000000);
    int64_t sf1 = tpch_table_rows(TPCH_LINEITEM, 1.0);
    cr_assert(sf1 > 5990000 && sf1 < 6010000, "SF 1 lineitem %lld", (long long)sf1);
    cr_assert_eq(tpch_table_units(TPCH_LINEITEM, 1.0), 1500000);
    cr_assert_eq(tpch_table_units(TPCH_PARTSUPP, 1.0), 800000);
}

Test(tpch, bad_arguments) {
    tpch_gen *g = (tpch_gen *)1;
    cr_assert_eq(tpch_gen_open(&g, TPCH_ORDERS, 0.001), STRATA_MISUSE);
    cr_assert_null(g);
    cr_assert_eq(tpch_gen_open(&g, TPCH_ORDERS, -1), STRATA_MISUSE);
    cr_assert_eq(tpch_gen_open(&g, TPCH_ORDERS, NAN), STRATA_MISUSE);
    cr_assert_eq(tpch_gen_open(&g, TPCH_ORDERS, 1e9), STRATA_MISUSE);
    cr_assert_eq(tpch_gen_open(&g, TPCH_TABLE_COUNT, 1), STRATA_MISUSE);
    cr_assert_eq(tpch_gen_open(NULL, TPCH_ORDERS, 1), STRATA_MISUSE);
    cr_assert_eq(tpch_gen_open_range(&g, TPCH_ORDERS, 1, -1, 5), STRATA_MISUSE);
    cr_assert_eq(tpch_table_rows(TPCH_TABLE_COUNT, 1), -1);
    cr_assert_eq(tpch_table_rows(TPCH_ORDERS, 0), -1);
    cr_assert_null(tpch_table_name(TPCH_TABLE_COUNT));
    tpch_table t;
    cr_assert_eq(tpch_table_from_name("LineItem", &t), STRATA_OK);
    cr_assert_eq(t, TPCH_LINEITEM);
    cr_assert_eq(tpch_table_from_name("lineitems", &t), STRATA_NOTFOUND);
    cr_assert_eq(tpch_write_tbl(TPCH_ORDERS, 0.001, stdout, NULL), STRATA_MISUSE);
    /* A range past the end is empty; a range is clipped at the end. */
    cr_assert_eq(tpch_gen_open_range(&g, TPCH_REGION, 1, 7, 3), STRATA_OK);
    tpch_row row;
    cr_assert_eq(tpch_gen_next(g, &row), STRATA_DONE);
    tpch_gen_close(g);
    cr_assert_eq(tpch_gen_open_range(&g, TPCH_REGION, 1, 3, 100), STRATA_OK);
    cr_assert_eq(tpch_gen_next(g, &row), STRATA_ROW);
    cr_assert_eq(row.region.regionkey, 3);
    cr_assert_eq(tpch_gen_next(g, &row), STRATA_ROW);
    cr_assert_eq(tpch_gen_next(g, &row), STRATA_DONE);
    /* A line that does not fit is not written. */
    char small[16];
    cr_assert_eq(tpch_format_row(TPCH_REGION, &row, small, sizeof small), 0);
    tpch_gen_close(g);
    tpch_gen_close(NULL);
}

/* ---------------------------------------------------------------------------------------- */
/* Keys and references                                                                      */
/* ---------------------------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Every primary key is unique and every foreign key refers to an existing row (clause 1.4.2),
** at SF 0.1; one third of the customers (the keys that are multiples of 3) have no order. */
Test(tpch, keys_unique_and_references_exist, .timeout = 60) {
    const double sf = SF_TEST;
    const int64_t S = tpch_table_rows(TPCH_SUPPLIER, sf), C = tpch_table_rows(TPCH_CUSTOMER, sf),
                  P = tpch_table_rows(TPCH_PART, sf), O = tpch_table_rows(TPCH_ORDERS, sf);
    tpch_gen *g;
    tpch_row row;

    /* REGION, NATION: keys 0..4 and 0..24; every nation in an existing region. */
    int region_seen[5] = {0}, nation_seen[25] = {0};
    cr_assert_eq(tpch_gen_open(&g, TPCH_REGION, sf), STRATA_OK);
    while (tpch_gen_next(g, &row) == STRATA_ROW) {
        cr_assert(row.region.regionkey >= 0 && row.region.regionkey < 5);
        cr_assert_eq(region_seen[row.region.regionkey]++, 0, "region key unique");
    }
    tpch_gen_close(g);
    cr_assert_eq(tpch_gen_open(&g, TPCH_NATION, sf), STRATA_OK);
    while (tpch_gen_next(g, &row) == STRATA_ROW) {
        cr_assert(row.nation.nationkey >= 0 && row.nation.nationkey < 25);
        cr_assert_eq(nation_seen[row.nation.nationkey]++, 0, "nation key unique");
        cr_assert(row.nation.regionkey >= 0 && row.nation.regionkey < 5 && region_seen[row.nation.regionkey]);
    }
    tpch_gen_close(g);

    /* SUPPLIER, CUSTOMER, PART: keys unique within 1..count; nations exist. */
    const tpch_table dense[] = {TPCH_SUPPLIER, TPCH_CUSTOMER, TPCH_PART};
    const int64_t dense_n[] = {S, C, P};
    for (int k = 0; k < 3; k++) {
        char *seen = calloc((size_t)dense_n[k] + 1, 1);
        cr_assert_eq(tpch_gen_open(&g, dense[k], sf), STRATA_OK);
        while (tpch_gen_next(g, &row) == STRATA_ROW) {
            int64_t key = dense[k] == TPCH_SUPPLIER   ? row.supplier.suppkey
                          : dense[k] == TPCH_CUSTOMER ? row.customer.custkey
                                                      : row.part.partkey;
            cr_assert(key >= 1 && key <= dense_n[k], "%s key %lld", tpch_table_name(dense[k]),
                      (long long)key);
            cr_assert_eq(seen[key]++, 0, "%s key %lld unique", tpch_table_name(dense[k]), (long long)key);
            if (dense[k] == TPCH_SUPPLIER) cr_assert(nation_seen[row.supplier.nationkey]);
            if (dense[k] == TPCH_CUSTOMER) cr_assert(nation_seen[row.customer.nationkey]);
        }
        tpch_gen_close(g);
        free(seen);
    }

    /* PARTSUPP: (ps_partkey, ps_suppkey) unique, each part with 4 suppliers, both exist. */
    int64_t ps_n = 0;
    uint64_t *ps = malloc(sizeof *ps * (size_t)(4 * P));
    cr_assert_eq(tpch_gen_open(&g, TPCH_PARTSUPP, sf), STRATA_OK);
    while (tpch_gen_next(g, &row) == STRATA_ROW) {
        cr_assert(row.partsupp.partkey >= 1 && row.partsupp.partkey <= P);
        cr_assert(row.partsupp.suppkey >= 1 && row.partsupp.suppkey <= S);
        cr_assert_lt(ps_n, 4 * P);
        ps[ps_n++] = (uint64_t)row.partsupp.partkey * (uint64_t)(S + 1) + (uint64_t)row.partsupp.suppkey;
    }
    tpch_gen_close(g);
    cr_assert_eq(ps_n, 4 * P);
    qsort(ps, (size_t)ps_n, sizeof *ps, cmp_u64);
    for (int64_t i = 1; i < ps_n; i++)
        cr_assert_neq(ps[i], ps[i - 1], "(ps_partkey, ps_suppkey) unique");

    /* ORDERS: keys unique and sparse, customers exist and are never a multiple of 3. */
    int64_t max_key = (O / 8 + 1) * 32;
    char *order_seen = calloc((size_t)max_key + 1, 1);
    int32_t *orders_of = calloc((size_t)C + 1, sizeof *orders_of);
    cr_assert_eq(tpch_gen_open(&g, TPCH_ORDERS, sf), STRATA_OK);
    while (tpch_gen_next(g, &row) == STRATA_ROW) {
        int64_t k = row.orders.orderkey;
        cr_assert(k >= 1 && k <= max_key);
        cr_assert_lt((k - 1) % 32, 8, "only the first 8 keys of every 32 are used (key %lld)", (long long)k);
        cr_assert_eq(order_seen[k]++, 0, "order key unique");
        cr_assert(row.orders.custkey >= 1 && row.orders.custkey <= C);
        cr_assert_neq(row.orders.custkey % 3, 0, "o_custkey %lld", (long long)row.orders.custkey);
        orders_of[row.orders.custkey]++;
    }
    tpch_gen_close(g);
    int64_t without = 0;
    for (int64_t c = 1; c <= C; c++)
        without += orders_of[c] == 0;
    cr_assert_eq(without, C / 3, "a third of the customers have no orders (%lld of %lld)", (long long)without,
                 (long long)C);

    /* LINEITEM: (l_orderkey, l_linenumber) unique (lines 1..n of one order together), orders,
    ** parts, suppliers and (part, supplier) pairs exist. */
    char *lines_done = calloc((size_t)max_key + 1, 1);
    int64_t prev_order = -1, prev_line = 0;
    cr_assert_eq(tpch_gen_open(&g, TPCH_LINEITEM, sf), STRATA_OK);
    while (tpch_gen_next(g, &row) == STRATA_ROW) {
        const tpch_lineitem *l = &row.lineitem;
        cr_assert(l->orderkey >= 1 && l->orderkey <= max_key && order_seen[l->orderkey], "l_orderkey exists");
        if (l->orderkey != prev_order) {
            cr_assert_eq(lines_done[l->orderkey]++, 0, "an order's lines come together");
            cr_assert_eq(l->linenumber, 1);
        } else {
            cr_assert_eq(l->linenumber, prev_line + 1);
        }
        cr_assert_leq(l->linenumber, 7);
        prev_order = l->orderkey;
        prev_line = l->linenumber;
        cr_assert(l->partkey >= 1 && l->partkey <= P);
        cr_assert(l->suppkey >= 1 && l->suppkey <= S);
        uint64_t pair = (uint64_t)l->partkey * (uint64_t)(S + 1) + (uint64_t)l->suppkey;
        cr_assert_not_null(bsearch(&pair, ps, (size_t)ps_n, sizeof *ps, cmp_u64),
                           "(l_partkey, l_suppkey) = (%lld, %lld) is in partsupp", (long long)l->partkey,
                           (long long)l->suppkey);
    }
    tpch_gen_close(g);
    for (int64_t k = 1; k <= max_key; k++)
        cr_assert_eq(order_seen[k], lines_done[k], "every order has lines (key %lld)", (long long)k);
    free(lines_done);
    free(order_seen);
    free(orders_of);
    free(ps);
}

/* ---------------------------------------------------------------------------------------- */
/* Value ranges and formulas                                                                */
/* ---------------------------------------------------------------------------------------- */

Test(tpch, region_and_nation_are_the_specs) {
    static const char *const regions[] = {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"};
    static const struct {
        const char *name;
        int region;
    } nations[] = {
        {"ALGERIA", 0},      {"ARGENTINA", 1},  {"BRAZIL", 1},  {"CANADA", 1},         {"EGYPT", 4},
        {"ETHIOPIA", 0},     {"FRANCE", 3},     {"GERMANY", 3}, {"INDIA", 2},          {"INDONESIA", 2},
        {"IRAN", 4},         {"IRAQ", 4},       {"JAPAN", 2},   {"JORDAN", 4},         {"KENYA", 0},
        {"MOROCCO", 0},      {"MOZAMBIQUE", 0}, {"PERU", 1},    {"CHINA", 2},          {"ROMANIA", 3},
        {"SAUDI ARABIA", 4}, {"VIETNAM", 2},    {"RUSSIA", 3},  {"UNITED KINGDOM", 3}, {"UNITED STATES", 1},
    };
    tpch_gen *g;
    tpch_row row;
    int n = 0;
    cr_assert_eq(tpch_gen_open(&g, TPCH_REGION, 5), STRATA_OK);
    while (tpch_gen_next(g, &row) == STRATA_ROW) {
        cr_assert_eq(row.region.regionkey, n);
        cr_assert(str_eq(row.region.name, regions[n]));
        check_text(row.region.comment, 31, 115, "r_comment");
        n++;
    }
    tpch_gen_close(g);
    cr_assert_eq(n, 5);
    n = 0;
    cr_assert_eq(tpch_gen_open(&g, TPCH_NATION, 0.01), STRATA_OK);
    while (tpch_gen_next(g, &row) == STRATA_ROW) {
        cr_assert_eq(row.nation.nationkey, n);
        cr_assert(str_eq(row.nation.name, nations[n].name), "nation %d", n);
        cr_assert_eq(row.nation.regionkey, nations[n].region);
        check_text(row.nation.comment, 31, 114, "n_comment");
        n++;
    }
    tpch_gen_close(g);
    cr_assert_eq(n, 25);
}

Test(tpch, supplier_and_customer_values, .timeout = 60) {
    const double sf = SF_TEST;
    tpch_gen *g;
    tpch_row row;
    int complaints = 0, recommends = 0, nations[25] = {0}, segments[5] = {0};
    int64_t min_bal = INT64_MAX, max_bal = INT64_MIN;
    cr_assert_eq(tpch_gen_open(&g, TPCH_SUPPLIER, sf), STRATA_OK);
    while (tpch_gen_next(g, &row) == STRATA_ROW) {
        const tpch_supplier *s = &row.supplier;
        cr_assert(is_name(s->name, "Supplier#", s->suppkey));
        cr_assert(s->address.len >= 10 && s->address.len <= 40);
        cr_assert(s->nationkey >= 0 && s->nationkey <= 24);
        nations[s->nationkey]++;
        cr_assert(is_phone(s->phone, s->nationkey), "s_phone %.*s", (int)s->phone.len, s->phone.ptr);
        cr_assert(s->acctbal >= -99999 && s->acctbal <= 999999);
        if (s->acctbal < min_bal) min_bal = s->acctbal;
        if (s->acctbal > max_bal) max_bal = s->acctbal;
        char text[128];
        snprintf(text, sizeof text, "%.*s", (int)s->comment.len, s->comment.ptr);
        char *c = strstr(text, "Customer");
        if (c != NULL) {
            cr_assert(strstr(c, "Complaints") || strstr(c, "Recommends"), "%s", text);
            complaints += strstr(c, "Complaints") != NULL;
            recommends += strstr(c, "Recommends") != NULL;
            cr_assert(s->comment.len >= 25 && s->comment.len <= 100);
        } else {
            check_text(s->comment, 25, 100, "s_comment");
        }
    }
    tpch_gen_close(g);
    /* SF * 5 of each, at least one of each below SF 0.2. */
    cr_assert_eq(complaints, 1);
    cr_assert_eq(recommends, 1);
    for (int i = 0; i < 25; i++)
        cr_assert_gt(nations[i], 0);
    cr_assert(min_bal < -90000 && max_bal > 990000, "s_acctbal spans its range");

    /* At SF 1, five of each. */
    complaints = recommends = 0;
    cr_assert_eq(tpch_gen_open(&g, TPCH_SUPPLIER, 1.0), STRATA_OK);
    while (tpch_gen_next(g, &row) == STRATA_ROW) {
        char text[128];
        snprintf(text, sizeof text, "%.*s", (int)row.supplier.comment.len, row.supplier.comment.ptr);
        char *c = strstr(text, "Customer");
        complaints += c != NULL && strstr(c, "Complaints") != NULL;
        recommends += c != NULL && strstr(c, "Recommends") != NULL;
    }
    tpch_gen_close(g);
    cr_assert_eq(complaints, 5);
    cr_assert_eq(recommends, 5);

    cr_assert_eq(tpch_gen_open(&g, TPCH_CUSTOMER, sf), STRATA_OK);
    while (tpch_gen_next(g, &row) == STRATA_ROW) {
        const tpch_customer *c = &row.customer;
        cr_assert(is_name(c->name, "Customer#", c->custkey));
        cr_assert(c->address.len >= 10 && c->address.len <= 40);
        cr_assert(c->nationkey >= 0 && c->nationkey <= 24);
        cr_assert(is_phone(c->phone, c->nationkey));
        cr_assert(c->acctbal >= -99999 && c->acctbal <= 999999);
        int seg = str_in(c->mktsegment, SEGMENTS, 5);
        cr_assert_geq(seg, 0);
        segments[seg]++;
        check_text(c->comment, 29, 116, "c_comment");
    }
    tpch_gen_close(g);
    for (int i = 0; i < 5; i++)
        cr_assert_gt(segments[i], 2500, "segment %s is uniform", SEGMENTS[i]);
}

Test(tpch, part_and_partsupp_values, .timeout = 60) {
    const double sf = SF_TEST;
    const int64_t S = tpch_table_rows(TPCH_SUPPLIER, sf);
    tpch_gen *g;
    tpch_row row;
    int sizes[51] = {0}, types = 0, containers = 0;
    static int type_seen[6][5][5], cont_seen[5][8];
    cr_assert_eq(tpch_gen_open(&g, TPCH_PART, sf), STRATA_OK);
    while (tpch_gen_next(g, &row) == STRATA_ROW) {
        const tpch_part *p = &row.part;
        /* p_name: five distinct words of the list, single spaces. */
        char name[80], *words[6];
        snprintf(name, sizeof name, "%.*s", (int)p->name.len, p->name.ptr);
        int nw = 0;
        for (char *save = NULL, *w = strtok_r(name, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
            cr_assert_lt(nw, 5, "p_name %.*s", (int)p->name.len, p->name.ptr);
            cr_assert(word_in(COLORS, w, strlen(w)), "p_name word %s", w);
            for (int k = 0; k < nw; k++)
                cr_assert_str_neq(words[k], w, "p_name words are distinct");
            words[nw++] = w;
        }
        cr_assert_eq(nw, 5);
        cr_assert_lt(p->name.len, 56);
        /* p_mfgr Manufacturer#M, p_brand Brand#MN with the same M. */
        cr_assert_eq(p->mfgr.len, 14);
        cr_assert(memcmp(p->mfgr.ptr, "Manufacturer#", 13) == 0 && p->mfgr.ptr[13] >= '1' &&
                  p->mfgr.ptr[13] <= '5');
        cr_assert_eq(p->brand.len, 8);
        cr_assert(memcmp(p->brand.ptr, "Brand#", 6) == 0 && p->brand.ptr[6] == p->mfgr.ptr[13]);
        cr_assert(p->brand.ptr[7] >= '1' && p->brand.ptr[7] <= '5');
        /* p_type: one syllable of each list; p_container likewise. */
        char type[32], s1[16], s2[16], s3[16];
        snprintf(type, sizeof type, "%.*s", (int)p->type.len, p->type.ptr);
        cr_assert_eq(sscanf(type, "%15s %15s %15s", s1, s2, s3), 3, "p_type %s", type);
        int a = -1, b = -1, c = -1;
        for (int i = 0; i < 6; i++)
            if (strcmp(s1, TYPE_S1[i]) == 0) a = i;
        for (int i = 0; i < 5; i++)
            if (strcmp(s2, TYPE_S2[i]) == 0) b = i;
        for (int i = 0; i < 5; i++)
            if (strcmp(s3, TYPE_S3[i]) == 0) c = i;
        cr_assert(a >= 0 && b >= 0 && c >= 0, "p_type %s", type);
        types += type_seen[a][b][c]++ == 0;
        char cont[16], c1[8], c2[8];
        snprintf(cont, sizeof cont, "%.*s", (int)p->container.len, p->container.ptr);
        cr_assert_eq(sscanf(cont, "%7s %7s", c1, c2), 2);
        int x = -1, y = -1;
        for (int i = 0; i < 5; i++)
            if (strcmp(c1, CONT_S1[i]) == 0) x = i;
        for (int i = 0; i < 8; i++)
            if (strcmp(c2, CONT_S2[i]) == 0) y = i;
        cr_assert(x >= 0 && y >= 0, "p_container %s", cont);
        containers += cont_seen[x][y]++ == 0;
        cr_assert(p->size >= 1 && p->size <= 50);
        sizes[p->size]++;
        cr_assert_eq(p->retailprice, retail_cents(p->partkey));
        check_text(p->comment, 5, 22, "p_comment");
    }
    tpch_gen_close(g);
    cr_assert_eq(types, 150, "every p_type occurs");
    cr_assert_eq(containers, 40, "every p_container occurs");
    for (int i = 1; i <= 50; i++)
        cr_assert_gt(sizes[i], 0);

    int64_t n = 0;
    cr_assert_eq(tpch_gen_open(&g, TPCH_PARTSUPP, sf), STRATA_OK);
    while (tpch_gen_next(g, &row) == STRATA_ROW) {
        const tpch_partsupp *ps = &row.partsupp;
        cr_assert_eq(ps->partkey, n / 4 + 1);
        cr_assert_eq(ps->suppkey, spec_suppkey(ps->partkey, n % 4, S));
        cr_assert(ps->availqty >= 1 && ps->availqty <= 9999);
        cr_assert(ps->supplycost >= 100 && ps->supplycost <= 100000);
        check_text(ps->comment, 49, 198, "ps_comment");
        n++;
    }
    tpch_gen_close(g);
}

/* ORDERS and LINEITEM side by side: every line follows clause 4.2.3's rules, and each order's
** status, total price and date follow from its lines. */
Test(tpch, orders_follow_from_lines, .timeout = 60) {
    const double sf = SF_TEST;
    const int64_t S = tpch_table_rows(TPCH_SUPPLIER, sf), P = tpch_table_rows(TPCH_PART, sf);
    const int64_t clerks = (int64_t)llround(sf * 1000);
    tpch_gen *go, *gl;
    tpch_row o, l;
    cr_assert_eq(tpch_gen_open(&go, TPCH_ORDERS, sf), STRATA_OK);
    cr_assert_eq(tpch_gen_open(&gl, TPCH_LINEITEM, sf), STRATA_OK);
    int have_line = tpch_gen_next(gl, &l) == STRATA_ROW;
    int64_t status[3] = {0}, flags[3] = {0}, special_requests = 0, priorities[5] = {0}, discounts[11] = {0};
    while (tpch_gen_next(go, &o) == STRATA_ROW) {
        const tpch_orders *od = &o.orders;
        cr_assert(od->orderdate >= TPCH_STARTDATE && od->orderdate <= TPCH_ENDDATE - 151);
        int pr = str_in(od->orderpriority, PRIORITIES, 5);
        cr_assert_geq(pr, 0);
        priorities[pr]++;
        cr_assert_eq(od->clerk.len, 15);
        char clerk_text[16];
        snprintf(clerk_text, sizeof clerk_text, "%.*s", (int)od->clerk.len, od->clerk.ptr);
        int64_t clerk = atoll(clerk_text + 6);
        cr_assert(memcmp(clerk_text, "Clerk#", 6) == 0 && clerk >= 1 && clerk <= clerks, "%s", clerk_text);
        cr_assert(is_name(od->clerk, "Clerk#", clerk));
        cr_assert_eq(od->shippriority, 0);
        check_text(od->comment, 19, 78, "o_comment");
        char text[96];
        snprintf(text, sizeof text, "%.*s", (int)od->comment.len, od->comment.ptr);
        char *sp = strstr(text, "special");
        special_requests += sp != NULL && strstr(sp, "requests") != NULL;

        int64_t exact = 0, lines = 0, open = 0;
        while (have_line && l.lineitem.orderkey == od->orderkey) {
            const tpch_lineitem *li = &l.lineitem;
            lines++;
            cr_assert(li->quantity % 100 == 0 && li->quantity >= 100 && li->quantity <= 5000);
            cr_assert_eq(li->extendedprice, li->quantity / 100 * retail_cents(li->partkey));
            cr_assert(li->discount >= 0 && li->discount <= 10);
            cr_assert(li->tax >= 0 && li->tax <= 8);
            discounts[li->discount]++;
            cr_assert(li->partkey >= 1 && li->partkey <= P);
            int supplier_of_part = 0;
            for (int i = 0; i < 4; i++)
                supplier_of_part |= li->suppkey == spec_suppkey(li->partkey, i, S);
            cr_assert(supplier_of_part, "l_suppkey is one of the part's 4 suppliers");
            cr_assert(li->shipdate >= od->orderdate + 1 && li->shipdate <= od->orderdate + 121);
            cr_assert(li->commitdate >= od->orderdate + 30 && li->commitdate <= od->orderdate + 90);
            cr_assert(li->receiptdate >= li->shipdate + 1 && li->receiptdate <= li->shipdate + 30);
            cr_assert(li->receiptdate <= TPCH_ENDDATE);
            if (li->receiptdate <= TPCH_CURRENTDATE)
                cr_assert(li->returnflag == 'R' || li->returnflag == 'A');
            else
                cr_assert_eq(li->returnflag, 'N');
            flags[li->returnflag == 'R' ? 0 : li->returnflag == 'A' ? 1 : 2]++;
            cr_assert_eq(li->linestatus, li->shipdate > TPCH_CURRENTDATE ? 'O' : 'F');
            open += li->linestatus == 'O';
            cr_assert_geq(str_in(li->shipinstruct, INSTRUCTIONS, 4), 0);
            cr_assert_geq(str_in(li->shipmode, MODES, 7), 0);
            check_text(li->comment, 10, 43, "l_comment");
            exact += li->extendedprice * (100 + li->tax) * (100 - li->discount);
            have_line = tpch_gen_next(gl, &l) == STRATA_ROW;
        }
        cr_assert(lines >= 1 && lines <= 7, "order %lld has %lld lines", (long long)od->orderkey,
                  (long long)lines);
        /* sum(l_extendedprice * (1 + l_tax) * (1 - l_discount)), rounded to the cent. */
        cr_assert_eq(od->totalprice, (exact + 5000) / 10000, "o_totalprice of order %lld",
                     (long long)od->orderkey);
        char want = open == 0 ? 'F' : open == lines ? 'O' : 'P';
        cr_assert_eq(od->orderstatus, want, "o_orderstatus of order %lld", (long long)od->orderkey);
        status[want == 'F' ? 0 : want == 'O' ? 1 : 2]++;
    }
    cr_assert_not(have_line, "no line without an order");
    tpch_gen_close(go);
    tpch_gen_close(gl);
    /* The shapes the queries rely on: about half the orders finished, a few percent partial; R and A
    ** alike; special requests in some comments (Q13); every priority and discount. */
    cr_assert(status[0] > 60000 && status[1] > 60000 && status[2] > 2000 && status[2] < 6000,
              "F %lld O %lld P %lld", (long long)status[0], (long long)status[1], (long long)status[2]);
    cr_assert(llabs(flags[0] - flags[1]) < flags[0] / 20, "R %lld A %lld", (long long)flags[0],
              (long long)flags[1]);
    cr_assert(special_requests > 100 && special_requests < 30000, "%lld", (long long)special_requests);
    for (int i = 0; i < 5; i++)
        cr_assert_gt(priorities[i], 0);
    for (int i = 0; i <= 10; i++)
        cr_assert_gt(discounts[i], 0);
}

/* ---------------------------------------------------------------------------------------- */
/* .tbl text                                                                                */
/* ---------------------------------------------------------------------------------------- */

/* The columns' kinds: I integer, D decimal (2 decimals), T date, C one character, S string. */
static const char *const KINDS[TPCH_TABLE_COUNT] = {
    "ISS", "ISIS", "ISSISDS", "ISSISDSS", "ISSSSISDS", "IIIDS", "IICDTSSIS", "IIIIDDDDCCTTTSSS",
};

static void check_field(char kind, const char *f, size_t n, const char *table, long line) {
    switch (kind) {
    case 'I':
        cr_assert(n > 0, "%s line %ld: empty integer", table, line);
        for (size_t i = 0; i < n; i++)
            cr_assert((f[i] >= '0' && f[i] <= '9') || (i == 0 && f[i] == '-'), "%s line %ld", table, line);
        break;
    case 'D':
        cr_assert(n >= 4 && f[n - 3] == '.', "%s line %ld: decimal %.*s", table, line, (int)n, f);
        for (size_t i = 0; i < n; i++)
            cr_assert((f[i] >= '0' && f[i] <= '9') || i == n - 3 || (i == 0 && f[i] == '-'), "%s line %ld",
                      table, line);
        break;
    case 'T':
        cr_assert(n == 10 && f[4] == '-' && f[7] == '-', "%s line %ld: date %.*s", table, line, (int)n, f);
        break;
    case 'C': cr_assert(n == 1, "%s line %ld", table, line); break;
    default: cr_assert(n > 0, "%s line %ld: empty string", table, line); break;
    }
}

Test(tpch, tbl_format, .timeout = 60) {
    for (int t = 0; t < TPCH_TABLE_COUNT; t++) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        int64_t rows = -1;
        cr_assert_eq(tpch_write_tbl((tpch_table)t, SF_SMALL, f, &rows), STRATA_OK);
        fclose(f);
        cr_assert_eq(rows, tpch_table_rows((tpch_table)t, SF_SMALL));
        cr_assert_eq((int)strlen(KINDS[t]), tpch_table_columns((tpch_table)t));
        long lines = 0;
        for (const char *p = text, *end = text + size; p < end; lines++) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            cr_assert_not_null(nl, "%s: the last line ends with a newline", tpch_table_name(t));
            cr_assert(nl > p && nl[-1] == '|', "%s line %ld ends with '|'", tpch_table_name(t), lines + 1);
            cr_assert_lt(nl - p + 1, TPCH_LINE_MAX);
            const char *field = p;
            for (const char *k = KINDS[t]; *k; k++) {
                const char *bar = memchr(field, '|', (size_t)(nl - field));
                cr_assert_not_null(bar, "%s line %ld has %zu fields", tpch_table_name(t), lines + 1,
                                   (size_t)(k - KINDS[t]));
                check_field(*k, field, (size_t)(bar - field), tpch_table_name(t), lines + 1);
                field = bar + 1;
            }
            cr_assert_eq(field, nl + 0, "%s line %ld has extra fields", tpch_table_name(t), lines + 1);
            p = nl + 1;
        }
        cr_assert_eq(lines, rows);
        free(text);
    }
    /* A few known values. */
    char d[11] = {0};
    tpch_format_date(TPCH_STARTDATE, d);
    cr_assert_str_eq(d, "1992-01-01");
    tpch_format_date(TPCH_CURRENTDATE, d);
    cr_assert_str_eq(d, "1995-06-17");
    tpch_format_date(TPCH_ENDDATE, d);
    cr_assert_str_eq(d, "1998-12-31");
    tpch_format_date(TPCH_ENDDATE - 151, d);
    cr_assert_str_eq(d, "1998-08-02");
    tpch_format_date(0, d);
    cr_assert_str_eq(d, "1970-01-01");
    tpch_format_date(11016, d);
    cr_assert_str_eq(d, "2000-02-29");
    tpch_row row = {
        .partsupp = {.partkey = 7, .suppkey = 9, .availqty = 0, .supplycost = -5, .comment = {"x", 1}}};
    char line[TPCH_LINE_MAX];
    size_t n = tpch_format_row(TPCH_PARTSUPP, &row, line, sizeof line);
    cr_assert_eq(n, strlen("7|9|0|-0.05|x|\n"));
    cr_assert(memcmp(line, "7|9|0|-0.05|x|\n", n) == 0);
}

/* ---------------------------------------------------------------------------------------- */
/* Determinism                                                                              */
/* ---------------------------------------------------------------------------------------- */

/* The FNV-1a hash of each table's .tbl text at SF 0.01: the same bytes on every run and machine.
** A deliberate change of the generator changes these (and datasets/README.md says so). */
static const uint64_t GOLDEN_SF_0_01[TPCH_TABLE_COUNT] = {
    0xc39eb5f466825980ull, /* region */
    0xa38bd6916b6ba4d1ull, /* nation */
    0x676dcc3528741a2cull, /* supplier */
    0xfdfbbcd2b549e18aull, /* customer */
    0x0ba44b831549f035ull, /* part */
    0xc0bdac1607e1336dull, /* partsupp */
    0xcf8069e34e8a7e82ull, /* orders */
    0x45892afdd8cf7760ull, /* lineitem */
};

Test(tpch, same_bytes_every_run) {
    for (int t = 0; t < TPCH_TABLE_COUNT; t++) {
        uint64_t a = table_hash((tpch_table)t, SF_SMALL, 0, INT64_MAX, NULL);
        uint64_t b = table_hash((tpch_table)t, SF_SMALL, 0, INT64_MAX, NULL);
        cr_assert_eq(a, b, "%s", tpch_table_name(t));
        cr_assert_eq(a, GOLDEN_SF_0_01[t], "%s: hash 0x%016llx, pinned 0x%016llx", tpch_table_name(t),
                     (unsigned long long)a, (unsigned long long)GOLDEN_SF_0_01[t]);
    }
}

/* Ranges generated apart and concatenated equal the whole table. */
Test(tpch, ranges_concatenate_to_the_table, .timeout = 60) {
    for (int t = 0; t < TPCH_TABLE_COUNT; t++) {
        int64_t units = tpch_table_units((tpch_table)t, SF_SMALL), rows = 0, total = 0;
        uint64_t whole = table_hash((tpch_table)t, SF_SMALL, 0, INT64_MAX, &total);
        /* Three uneven pieces; the hash chains across them. */
        int64_t cuts[4] = {0, units / 3, units / 3 + units / 5 + 1, units};
        if (cuts[2] > units) cuts[2] = units;
        uint64_t h = FNV_START;
        for (int k = 0; k < 3; k++) {
            tpch_gen *g;
            cr_assert_eq(tpch_gen_open_range(&g, (tpch_table)t, SF_SMALL, cuts[k], cuts[k + 1] - cuts[k]),
                         STRATA_OK);
            tpch_row row;
            char line[TPCH_LINE_MAX];
            while (tpch_gen_next(g, &row) == STRATA_ROW) {
                h = fnv1a(h, line, tpch_format_row((tpch_table)t, &row, line, sizeof line));
                rows++;
            }
            tpch_gen_close(g);
        }
        cr_assert_eq(rows, total, "%s", tpch_table_name(t));
        cr_assert_eq(h, whole, "%s", tpch_table_name(t));
    }
}

static uint64_t file_hash(const char *path, long *size) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    uint64_t h = FNV_START;
    char buf[65536];
    size_t n;
    *size = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        h = fnv1a(h, buf, n);
        *size += (long)n;
    }
    fclose(f);
    return h;
}

/* The program: every table written with the others equals the table written alone (-T) and the
** library's bytes; bad arguments exit with status 2 and a message. */
Test(tpch, program_writes_the_same_tables, .timeout = 60) {
    char dir[] = "/tmp/strata-tpch-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char all[600], some[600];
    snprintf(all, sizeof all, "%s/all", dir);
    snprintf(some, sizeof some, "%s/some", dir);
    const char *argv_all[] = {TPCH_GEN_BIN, "-s", "0.01", "-o", all, NULL};
    run_result r = run_program(dir, argv_all, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    const char *argv_some[] = {TPCH_GEN_BIN,      "-s", "0.01", "-T", "lineitem", "-T",
                               "supplier,Orders", "-o", some,   NULL};
    r = run_program(dir, argv_some, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    for (int t = 0; t < TPCH_TABLE_COUNT; t++) {
        char path[700];
        long size;
        snprintf(path, sizeof path, "%s/%s.tbl", all, tpch_table_name(t));
        uint64_t h = file_hash(path, &size);
        cr_assert_eq(h, table_hash((tpch_table)t, SF_SMALL, 0, INT64_MAX, NULL), "%s", tpch_table_name(t));
        int alone = t == TPCH_LINEITEM || t == TPCH_SUPPLIER || t == TPCH_ORDERS;
        snprintf(path, sizeof path, "%s/%s.tbl", some, tpch_table_name(t));
        FILE *f = fopen(path, "rb");
        cr_assert_eq(f != NULL, alone, "%s.tbl written only when asked for", tpch_table_name(t));
        if (f == NULL) continue;
        fclose(f);
        long size_alone;
        cr_assert_eq(file_hash(path, &size_alone), h, "%s alone equals %s with the others",
                     tpch_table_name(t), tpch_table_name(t));
        cr_assert_eq(size_alone, size);
        unlink(path);
    }
    rmdir(some);
    tmpdir_remove(all);

    const char *bad_sf[] = {TPCH_GEN_BIN, "-s", "0.001", "-o", all, NULL};
    r = run_program(dir, bad_sf, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert_not_null(strstr(r.err, "scale factor"), "%s", r.err);
    run_free(&r);
    const char *bad_table[] = {TPCH_GEN_BIN, "-T", "lineitems", "-o", all, NULL};
    r = run_program(dir, bad_table, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert_not_null(strstr(r.err, "unknown table 'lineitems'"), "%s", r.err);
    run_free(&r);
    tmpdir_remove(dir);
}
