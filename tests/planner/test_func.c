/*
** test_func.c -- the scalar functions and LIKE (planner/func/func*.c): lookup and "did you mean",
** binding (argument casts, result types, "function f(type) does not exist"), each function on
** ordinary values, NULLs, empty and multi-byte strings and its edge cases (substring before the
** start, .5 rounding, abs of the minimum, sqrt of a negative, ...), constant and dictionary
** inputs, and LIKE / ILIKE: wildcards, escapes, malformed patterns, and the constant-pattern fast
** paths checked against the general matcher on random inputs.
*/
#include <criterion/criterion.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../planner/func/func.h"
#include "helpers/expect.h"
#include "helpers/vec_test.h"

/* ---- vectors for arguments ---- */

#define POOL 32
static vector pool[POOL];
static int npool;
static strata_err err;

static void teardown(void) {
    for (int i = 0; i < npool; i++)
        vec_free(&pool[i]);
    npool = 0;
}
TestSuite(func, .fini = teardown);

static vector *new_vec(sql_type t) {
    cr_assert_lt(npool, POOL);
    vector *v = &pool[npool++];
    cr_assert_eq(vec_init(v, t, &err), STRATA_OK, "%s", err.msg);
    return v;
}

#define NUL_I (INT64_MIN + 12345) /* an integer argument that stands for NULL */
#define NUL_D (-999999.25)        /* a double argument that stands for NULL */

/* strs: a VARCHAR vector of n rows; a NULL pointer is a NULL row. */
static vector *strs(int n, ...) {
    vector *v = new_vec(sql_type_varchar(0));
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        const char *s = va_arg(ap, const char *);
        if (s == NULL)
            vec_set_null(v, (uint32_t)i, 1);
        else
            cr_assert_eq(vec_set_str(v, (uint32_t)i, s, strlen(s), &err), STRATA_OK);
    }
    va_end(ap);
    return v;
}

/* ints: a vector of an integer-stored type (SMALLINT .. BIGINT, DECIMAL, DATE, TIMESTAMP). */
static vector *ints(sql_type t, int n, ...) {
    vector *v = new_vec(t);
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        int64_t x = va_arg(ap, int64_t);
        if (x == NUL_I) {
            vec_set_null(v, (uint32_t)i, 1);
            continue;
        }
        switch (v->phys) {
        case PHYS_I16: VEC_DATA(v, int16_t)[i] = (int16_t)x; break;
        case PHYS_I32: VEC_DATA(v, int32_t)[i] = (int32_t)x; break;
        default: VEC_DATA(v, int64_t)[i] = x; break;
        }
    }
    va_end(ap);
    return v;
}
#define BIGINTS(n, ...) ints(T(TYPE_BIGINT), n, __VA_ARGS__)

static vector *dbls(int n, ...) {
    vector *v = new_vec(T(TYPE_DOUBLE));
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        double x = va_arg(ap, double);
        if (x == NUL_D)
            vec_set_null(v, (uint32_t)i, 1);
        else
            VEC_DATA(v, double)[i] = x;
    }
    va_end(ap);
    return v;
}

/* constant: v as a CONSTANT vector of its row 0. */
static vector *constant(vector *v) {
    vec_make_constant(v);
    return v;
}

/* dict: a DICTIONARY vector over src's rows sel[0..n). */
static vector *dict(vector *src, int n, const sel_t *sel) {
    vector *v = new_vec(src->type);
    vec_slice(v, src, sel, (uint32_t)n);
    return v;
}

/* ---- running a function ---- */

static char result[1 << 16];

/* row_text appends row r of v as text to result, after a '|' unless r is the first row. */
static void row_text(const vector *v, uint32_t r) {
    size_t at = strlen(result);
    if (r > 0) result[at++] = '|';
    sql_value x;
    uint32_t i = vec_index(v, r);
    if (vec_is_null(v, r)) {
        x = value_null(v->type);
    } else {
        switch (v->type.id) {
        case TYPE_BOOLEAN: x = value_bool(VEC_DATA(v, uint8_t)[i]); break;
        case TYPE_SMALLINT: x = value_int(TYPE_SMALLINT, VEC_DATA(v, int16_t)[i]); break;
        case TYPE_INTEGER: x = value_int(TYPE_INTEGER, VEC_DATA(v, int32_t)[i]); break;
        case TYPE_BIGINT: x = value_int(TYPE_BIGINT, VEC_DATA(v, int64_t)[i]); break;
        case TYPE_DOUBLE: x = value_double(VEC_DATA(v, double)[i]); break;
        case TYPE_DECIMAL:
            x = value_decimal(VEC_DATA(v, int64_t)[i], v->type.precision, v->type.scale);
            break;
        case TYPE_DATE: x = value_date(VEC_DATA(v, int32_t)[i]); break;
        case TYPE_TIMESTAMP: x = value_timestamp(VEC_DATA(v, int64_t)[i]); break;
        case TYPE_INTERVAL: x = value_interval(VEC_DATA(v, sql_interval)[i]); break;
        default: {
            const sstr *s = &VEC_DATA(v, sstr)[i];
            x = value_text(sstr_data(s), s->len);
        }
        }
    }
    value_to_text(&x, result + at, sizeof result - at);
}

static sql_type last_ret;

/* eval binds name over the argument vectors' types (asserting that it asks for no cast: the tests
** build arguments of the wanted types), runs it over count rows and returns the rows as text
** joined by '|', or "error: <message>" from bind or exec. */
static const char *eval(uint32_t count, const char *name, vector **argp, int nargs) {
    const func_def *f = func_lookup(name);
    cr_assert_not_null(f, "no function %s", name);
    vector args[FUNC_MAX_ARGS];
    sql_type types[FUNC_MAX_ARGS], want[FUNC_MAX_ARGS];
    for (int i = 0; i < nargs; i++)
        args[i] = *argp[i], types[i] = argp[i]->type;
    err_clear(&err);
    result[0] = '\0';
    int rc = f->bind(types, nargs, want, &last_ret, &err);
    if (rc == STRATA_OK)
        for (int i = 0; i < nargs; i++)
            cr_assert(sql_type_equal(want[i], types[i]), "%s: argument %d wants type %s", name, i,
                      sql_type_name(want[i].id));
    if (rc == STRATA_OK) {
        vector out;
        cr_assert_eq(vec_init(&out, last_ret, &err), STRATA_OK);
        rc = f->exec(args, nargs, count, &out, &err);
        if (rc == STRATA_OK) {
            cr_assert_eq(out.kind, VEC_FLAT);
            for (uint32_t r = 0; r < count; r++)
                row_text(&out, r);
        }
        vec_free(&out);
    }
    if (rc != STRATA_OK) {
        cr_assert_eq(rc, err.code);
        snprintf(result, sizeof result, "error: %s", err.msg);
    }
    return result;
}
#define NARGS(...) ((int)(sizeof((vector *[]){__VA_ARGS__}) / sizeof(vector *)))
#define EVAL(count, name, ...) eval(count, name, (vector *[]){__VA_ARGS__}, NARGS(__VA_ARGS__))
#define CHECK(want, count, name, ...)                                                                        \
    do {                                                                                                     \
        const char *got_ = EVAL(count, name, __VA_ARGS__);                                                   \
        cr_assert_str_eq(got_, want, "%s: got \"%s\", want \"%s\"", name, got_, want);                       \
    } while (0)

/* bind_text binds name over types and returns "ret <- want, want, ..." or the error message. */
static const char *bind_text(const char *name, const sql_type *types, int nargs) {
    const func_def *f = func_lookup(name);
    cr_assert_not_null(f, "no function %s", name);
    sql_type want[FUNC_MAX_ARGS], ret;
    err_clear(&err);
    if (f->bind(types, nargs, want, &ret, &err) != STRATA_OK) return strcpy(result, err.msg);
    size_t n = sql_type_format(ret, result, sizeof result);
    n += (size_t)snprintf(result + n, sizeof result - n, " <-");
    for (int i = 0; i < nargs; i++) {
        n += (size_t)snprintf(result + n, sizeof result - n, i ? ", " : " ");
        n += sql_type_format(want[i], result + n, sizeof result - n);
    }
    return result;
}
#define BIND(want, name, ...)                                                                                \
    cr_assert_str_eq(bind_text(name, (sql_type[]){__VA_ARGS__},                                              \
                               (int)(sizeof((sql_type[]){__VA_ARGS__}) / sizeof(sql_type))),                 \
                     want)

/* ---- lookup and binding ---- */

Test(func, lookup_and_suggest) {
    const char *names[] = {"lower",        "upper",     "length",   "char_length", "character_length",
                           "octet_length", "trim",      "ltrim",    "rtrim",       "btrim",
                           "replace",      "substring", "substr",   "position",    "strpos",
                           "left",         "right",     "concat",   "repeat",      "reverse",
                           "starts_with",  "lpad",      "rpad",     "abs",         "round",
                           "floor",        "ceil",      "ceiling",  "trunc",       "sign",
                           "sqrt",         "power",     "pow",      "exp",         "ln",
                           "log",          "mod",       "greatest", "least",       "date_trunc",
                           "date_part"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const func_def *f = func_lookup(names[i]);
        cr_assert_not_null(f, "%s", names[i]);
        cr_assert_str_eq(f->name, names[i]);
    }
    cr_assert_null(func_lookup("count"));
    cr_assert_null(func_lookup("LOWER")); /* names are looked up in lower case */
    cr_assert_str_eq(func_suggest("lowr"), "lower");
    cr_assert_str_eq(func_suggest("substrin"), "substring");
    cr_assert_str_eq(func_suggest("UPPER"), "upper");
    cr_assert_str_eq(func_suggest("date_trnc"), "date_trunc");
    cr_assert_str_eq(func_suggest("sqroot"), "sqrt");
    cr_assert_null(func_suggest("frobnicate"));
    cr_assert_null(func_suggest("xy"));
}

Test(func, bind_types_and_casts) {
    sql_type v = sql_type_varchar(0), v5 = sql_type_varchar(5), n = T(TYPE_NULL);
    BIND("character varying <- character varying", "lower", v);
    BIND("character varying <- character varying(5)", "upper", v5);
    BIND("character varying <- character varying", "lower", n);
    BIND("character varying <- character varying, bigint, bigint", "substring", v, T(TYPE_INTEGER),
         T(TYPE_SMALLINT));
    BIND("character varying <- character varying, bigint", "substr", v, n);
    BIND("bigint <- character varying", "length", v);
    BIND("bigint <- blob", "octet_length", T(TYPE_BLOB));
    BIND("boolean <- character varying, character varying", "starts_with", v, v);
    BIND("character varying <- character varying, character varying, character varying", "concat",
         T(TYPE_INTEGER), T(TYPE_DATE), v);
    BIND("integer <- integer", "abs", T(TYPE_INTEGER));
    BIND("double precision <- double precision", "abs", n);
    BIND("numeric(1,0) <- numeric(6,2)", "sign", sql_type_decimal(6, 2));
    BIND("numeric(5,0) <- numeric(6,2)", "round", sql_type_decimal(6, 2));
    BIND("numeric(7,2) <- numeric(6,2), bigint", "round", sql_type_decimal(6, 2), T(TYPE_INTEGER));
    BIND("numeric(4,0) <- numeric(6,2)", "trunc", sql_type_decimal(6, 2));
    BIND("numeric(6,2) <- numeric(6,2), bigint", "trunc", sql_type_decimal(6, 2), T(TYPE_INTEGER));
    BIND("numeric(1,0) <- numeric(3,3)", "trunc", sql_type_decimal(3, 3));
    BIND("numeric(18,0) <- numeric(18,0)", "floor", sql_type_decimal(18, 0));
    BIND("double precision <- double precision", "sqrt", T(TYPE_INTEGER));
    BIND("double precision <- double precision, double precision", "power", sql_type_decimal(6, 2),
         T(TYPE_BIGINT));
    BIND("bigint <- bigint, bigint", "mod", T(TYPE_SMALLINT), T(TYPE_BIGINT));
    BIND("integer <- integer, integer", "mod", T(TYPE_INTEGER), n);
    BIND("numeric(6,2) <- numeric(10,0), numeric(6,2)", "mod", T(TYPE_INTEGER), sql_type_decimal(6, 2));
    BIND("numeric(12,2) <- numeric(12,2), numeric(12,2), numeric(12,2)", "greatest", T(TYPE_INTEGER),
         sql_type_decimal(5, 2), n);
    BIND("character varying <- character varying", "least", n);
    BIND("timestamp <- character varying, timestamp", "date_trunc", v, T(TYPE_DATE));
    BIND("double precision <- character varying, interval", "date_part", v, T(TYPE_INTERVAL));

    BIND("function lower(integer) does not exist", "lower", T(TYPE_INTEGER));
    BIND("function lower(character varying, character varying) does not exist", "lower", v, v);
    BIND("function substring(character varying) does not exist", "substring", v);
    BIND("function substr(character varying, numeric) does not exist", "substr", v, sql_type_decimal(5, 0));
    BIND("function length(date) does not exist", "length", T(TYPE_DATE));
    BIND("function round(character varying) does not exist", "round", v);
    BIND("function round(double precision, double precision) does not exist", "round", T(TYPE_DOUBLE),
         T(TYPE_DOUBLE));
    BIND("function mod(double precision, integer) does not exist", "mod", T(TYPE_DOUBLE), T(TYPE_INTEGER));
    BIND("function sqrt(unknown, unknown) does not exist", "sqrt", n, n);
    BIND("function pow(boolean, integer) does not exist", "pow", T(TYPE_BOOLEAN), T(TYPE_INTEGER));
    BIND("function date_trunc(character varying, integer) does not exist", "date_trunc", v, T(TYPE_INTEGER));
    BIND("function date_trunc(character varying, interval) does not exist", "date_trunc", v,
         T(TYPE_INTERVAL));
    BIND("types integer and character varying cannot be matched", "greatest", T(TYPE_INTEGER), v);

    sql_type none[1];
    cr_assert_str_eq(bind_text("concat", none, 0), "function concat() does not exist");
    cr_assert_str_eq(bind_text("greatest", none, 0), "function greatest() does not exist");
}

/* ---- text functions ---- */

Test(func, lower_upper) {
    vector *s = strs(5, "Hello World", NULL, "", "ÀÉÎõü Straße ΣΑΣ Привет ĀĳŸ", "ÿµ ς 123 Ωmega");
    CHECK("hello world|NULL||àéîõü straße σασ привет āĳÿ|ÿµ ς 123 ωmega", 5, "lower", s);
    CHECK("HELLO WORLD|NULL||ÀÉÎÕÜ STRAßE ΣΑΣ ПРИВЕТ ĀĲŸ|ŸΜ Σ 123 ΩMEGA", 5, "upper", s);
}

Test(func, length_family) {
    vector *s = strs(4, "héllo", NULL, "", "日本語テキスト");
    CHECK("5|NULL|0|7", 4, "length", s);
    CHECK("5|NULL|0|7", 4, "char_length", s);
    CHECK("5|NULL|0|7", 4, "character_length", s);
    CHECK("6|NULL|0|21", 4, "octet_length", s);
    vector *b = new_vec(T(TYPE_BLOB));
    cr_assert_eq(vec_set_str(b, 0, "\xc3\xa9\x00z", 4, &err), STRATA_OK);
    CHECK("4", 1, "length", b);
}

Test(func, trims) {
    vector *s = strs(5, "  a b  ", NULL, "", "   ", "xxaxyx");
    CHECK("a b|NULL|||xxaxyx", 5, "trim", s);
    CHECK("a b  |NULL|||xxaxyx", 5, "ltrim", s);
    CHECK("  a b|NULL|||xxaxyx", 5, "rtrim", s);
    vector *c = constant(strs(1, "x "));
    CHECK("a b|NULL|||axy", 5, "trim", s, c);
    CHECK("a b|NULL|||axy", 5, "btrim", s, c);
    CHECK("a b  |NULL|||axyx", 5, "ltrim", s, c);
    CHECK("  a b|NULL|||xxaxy", 5, "rtrim", s, c);
    /* characters of several bytes; a byte of one never matches half of another */
    vector *m = strs(3, "éaéé", "ééé",
                     "\xc3\xa8"
                     "a");
    vector *set = constant(strs(1, "é"));
    CHECK("a||\xc3\xa8"
          "a",
          3, "trim", m, set);
    CHECK("aéé||\xc3\xa8"
          "a",
          3, "ltrim", m, set);
    vector *nul = constant(strs(1, NULL));
    CHECK("NULL|NULL|NULL", 3, "trim", m, nul);
    CHECK("éaéé|ééé|\xc3\xa8"
          "a",
          3, "trim", m, constant(strs(1, "")));
}

Test(func, replace) {
    vector *s = strs(5, "abcabc", NULL, "", "aaa", "short");
    vector *from = strs(5, "bc", "x", "a", "aa", "o");
    vector *to = strs(5, "X", "y", "b", "", "ooooooooooooooooo");
    CHECK("aXaX|NULL||a|shooooooooooooooooort", 5, "replace", s, from, to);
    CHECK("abcabc|NULL||aaa|short", 5, "replace", s, constant(strs(1, "")), to);
    CHECK("é-é-|-", 2, "replace", strs(2, "éaéa", "a"), constant(strs(1, "a")), constant(strs(1, "-")));
}

Test(func, substring) {
    vector *s = constant(strs(1, "hello"));
    vector *start = BIGINTS(10, 2LL, 0LL, -1LL, -5LL, 1LL, 10LL, 3LL, 1LL, NUL_I, 6LL);
    vector *len = BIGINTS(10, 3LL, 3LL, 4LL, 3LL, INT64_MAX, 2LL, 0LL, 5LL, 1LL, 1LL);
    CHECK("ell|he|he||hello|||hello|NULL|", 10, "substring", s, start, len);
    CHECK("ello|hello|hello|hello|hello||llo|hello|NULL|", 10, "substr", s, start);
    vector *m = strs(3, "héllo wörld", "", NULL);
    CHECK("éll||NULL", 3, "substring", m, constant(BIGINTS(1, 2LL)), constant(BIGINTS(1, 3LL)));
    CHECK("wörld||NULL", 3, "substring", m, constant(BIGINTS(1, 7LL)));
    CHECK("error: negative substring length not allowed", 1, "substring", s, constant(BIGINTS(1, 1LL)),
          constant(BIGINTS(1, -1LL)));
    CHECK("bc|abc|", 3, "substring", constant(strs(1, "abc")), BIGINTS(3, 2LL, -2LL, INT64_MIN),
          BIGINTS(3, INT64_MAX, INT64_MAX, INT64_MAX)); /* start + length overflows, or is -1 */
    /* a NULL row does not raise the error of a negative length */
    CHECK("NULL", 1, "substring", strs(1, NULL), BIGINTS(1, 1LL), BIGINTS(1, -1LL));
}

Test(func, position_left_right) {
    vector *s = strs(4, "héllo", "abc", NULL, "");
    vector *sub = strs(4, "l", "", "a", "x");
    CHECK("3|1|NULL|0", 4, "position", s, sub);
    CHECK("3|1|NULL|0", 4, "strpos", s, sub);
    CHECK("0|3|NULL|0", 4, "strpos", s, constant(strs(1, "c")));
    vector *k = BIGINTS(6, 2LL, -2LL, 0LL, 9LL, -9LL, INT64_MIN);
    vector *h = constant(strs(1, "héllo"));
    CHECK("hé|hél||héllo||", 6, "left", h, k);
    CHECK("lo|llo||héllo||", 6, "right", h, k);
    CHECK("NULL", 1, "left", strs(1, "x"), BIGINTS(1, NUL_I));
}

Test(func, concat_repeat_reverse_starts_with) {
    vector *a = strs(4, "a", NULL, NULL, "long string number ");
    vector *b = strs(4, NULL, "b", NULL, "two, and more");
    CHECK("a!|b!|!|long string number two, and more!", 4, "concat", a, b, constant(strs(1, "!")));
    CHECK("a|||long string number ", 4, "concat", a);
    CHECK("ababab||||NULL", 5, "repeat", constant(strs(1, "ab")),
          BIGINTS(5, 3LL, 0LL, -4LL, INT64_MIN, NUL_I));
    CHECK("ééé|", 2, "repeat", strs(2, "é", ""), BIGINTS(2, 3LL, INT64_MAX));
    CHECK("error: requested length too large", 1, "repeat", strs(1, "ab"), BIGINTS(1, INT64_MAX));
    CHECK("olléh||NULL|ba", 4, "reverse", strs(4, "héllo", "", NULL, "ab"));
    CHECK("true|false|true|NULL|false", 5, "starts_with", strs(5, "héllo", "he", "x", NULL, ""),
          strs(5, "hé", "hello", "", "a", "a"));
}

Test(func, pads) {
    vector *s = strs(6, "hi", "hello", "hi", "hi", NULL, "hé");
    vector *n = BIGINTS(6, 5LL, 2LL, 5LL, -1LL, 3LL, 4LL);
    CHECK("   hi|he|   hi||NULL|  hé", 6, "lpad", s, n);
    CHECK("hi   |he|hi   ||NULL|hé  ", 6, "rpad", s, n);
    vector *fill = strs(6, "xy", "xy", "", "ab", "ab", "éü");
    CHECK("xyxhi|he|hi||NULL|éühé", 6, "lpad", s, n, fill);
    CHECK("hixyx|he|hi||NULL|hééü", 6, "rpad", s, n, fill);
    CHECK("error: requested length too large", 1, "lpad", strs(1, "a"), BIGINTS(1, INT64_MAX));
    CHECK("ééééééééééééééééééééa", 1, "lpad", strs(1, "a"), BIGINTS(1, 21LL), strs(1, "é"));
}

/* ---- numeric functions ---- */

Test(func, abs_and_sign) {
    CHECK("5|5|0|NULL|2147483647", 5, "abs", ints(T(TYPE_INTEGER), 5, -5LL, 5LL, 0LL, NUL_I, -2147483647LL));
    CHECK("error: integer out of range", 1, "abs", ints(T(TYPE_INTEGER), 1, (int64_t)INT32_MIN));
    CHECK("error: bigint out of range", 2, "abs", BIGINTS(2, 1LL, INT64_MIN));
    CHECK("error: smallint out of range", 1, "abs", ints(T(TYPE_SMALLINT), 1, -32768LL));
    CHECK("1.5|0|Infinity|NULL", 4, "abs", dbls(4, -1.5, -0.0, -INFINITY, NUL_D));
    CHECK("12.34|0.00", 2, "abs", ints(sql_type_decimal(6, 2), 2, -1234LL, 0LL));
    CHECK("-1|0|1|NULL", 4, "sign", BIGINTS(4, -7LL, 0LL, INT64_MAX, NUL_I));
    CHECK("-1|0|1|0", 4, "sign", dbls(4, -0.5, 0.0, INFINITY, NAN));
    CHECK("-1|0|1", 3, "sign", ints(sql_type_decimal(6, 2), 3, -1LL, 0LL, 99999LL));
}

Test(func, round_double_half_even) {
    /* round(double precision) is PostgreSQL's rint: halves go to the even neighbour */
    CHECK("2|4|-2|0|-0|3|NaN|Infinity|NULL", 9, "round",
          dbls(9, 2.5, 3.5, -2.5, 0.5, -0.5, 2.5000001, NAN, INFINITY, NUL_D));
    CHECK("2|-3|2|-2", 4, "floor", dbls(4, 2.5, -2.5, 2.0, -2.0));
    CHECK("3|-2", 2, "ceil", dbls(2, 2.5, -2.5));
    CHECK("3|-2", 2, "ceiling", dbls(2, 2.5, -2.5));
    CHECK("2|-2", 2, "trunc", dbls(2, 2.9, -2.9));
    /* with a number of places, DuckDB's rule: half away from zero of x * 10^n */
    vector *x = constant(dbls(1, 1234.5678));
    CHECK("1234.57|1234.6|1235|1200|0|1234.5678", 6, "round", x,
          BIGINTS(6, 2LL, 1LL, 0LL, -2LL, -5LL, 400LL));
    CHECK("1234.56|1234.5|1234|1200|0|1234.5678", 6, "trunc", x,
          BIGINTS(6, 2LL, 1LL, 0LL, -2LL, -5LL, 400LL));
    CHECK("1.3|-1.3|NULL", 3, "round", dbls(3, 1.25, -1.25, 2.0), BIGINTS(3, 1LL, 1LL, NUL_I));
    CHECK("1e+300|0", 2, "round", dbls(2, 1e300, 1e300), BIGINTS(2, 100LL, INT64_MIN));
}

Test(func, round_decimal_half_away) {
    vector *d = ints(sql_type_decimal(5, 1), 6, 25LL, -25LL, 24LL, 35LL, 9999LL, NUL_I);
    CHECK("3|-3|2|4|1000|NULL", 6, "round", d);
    cr_assert_eq(last_ret.precision, 5);
    cr_assert_eq(last_ret.scale, 0);
    CHECK("2|-3|2|3|999|NULL", 6, "floor", d);
    CHECK("3|-2|3|4|1000|NULL", 6, "ceil", d);
    CHECK("2|-2|2|3|999|NULL", 6, "trunc", d);
    vector *e = ints(sql_type_decimal(6, 3), 4, 1245LL, -1245LL, 99999LL, 1LL);
    CHECK("1.250|-1.250|100.000|0.000", 4, "round", e, constant(BIGINTS(1, 2LL)));
    CHECK("1.240|-1.240|99.990|0.000", 4, "trunc", e, constant(BIGINTS(1, 2LL)));
    CHECK("1.245|0.000|100.000|0.000", 4, "round", e, BIGINTS(4, 5LL, -1LL, -2LL, INT64_MIN));
    CHECK("error: numeric field overflow", 1, "round", ints(sql_type_decimal(18, 1), 1, 999999999999999999LL),
          BIGINTS(1, 0LL));
}

Test(func, round_integers) {
    vector *v = ints(T(TYPE_INTEGER), 5, 1250LL, -1250LL, 1249LL, 7LL, NUL_I);
    CHECK("1250|-1250|1249|7|NULL", 5, "round", v);
    CHECK("1300|-1300|1200|0|NULL", 5, "round", v, constant(BIGINTS(1, -2LL)));
    CHECK("1200|-1200|1200|0|NULL", 5, "trunc", v, constant(BIGINTS(1, -2LL)));
    CHECK("0|0|0|0|NULL", 5, "round", v, constant(BIGINTS(1, -30LL)));
    CHECK("error: integer out of range", 1, "round", ints(T(TYPE_INTEGER), 1, 2147483500LL),
          BIGINTS(1, -3LL));
    CHECK("error: bigint out of range", 1, "round", BIGINTS(1, INT64_MAX), BIGINTS(1, -1LL));
    CHECK("error: bigint out of range", 1, "round", BIGINTS(1, INT64_MIN), BIGINTS(1, -1LL));
    CHECK("9000000000000000000", 1, "round", BIGINTS(1, INT64_MAX), BIGINTS(1, -18LL));
    CHECK("-5|5", 2, "floor", ints(T(TYPE_SMALLINT), 2, -5LL, 5LL));
}

Test(func, sqrt_exp_ln_log_power) {
    CHECK("2|0|1.4142135623730951|NULL|NaN", 5, "sqrt", dbls(5, 4.0, 0.0, 2.0, NUL_D, NAN));
    CHECK("error: cannot take square root of a negative number", 1, "sqrt", dbls(1, -1.0));
    CHECK("1|2.718281828459045|0|Infinity", 4, "exp", dbls(4, 0.0, 1.0, -INFINITY, INFINITY));
    CHECK("error: value out of range: overflow", 1, "exp", dbls(1, 1000.0));
    CHECK("error: value out of range: underflow", 1, "exp", dbls(1, -1000.0));
    CHECK("0|1", 2, "ln", dbls(2, 1.0, M_E));
    CHECK("error: cannot take logarithm of zero", 1, "ln", dbls(1, 0.0));
    CHECK("error: cannot take logarithm of a negative number", 1, "ln", dbls(1, -1.0));
    CHECK("2|-3", 2, "log", dbls(2, 100.0, 0.001));
    CHECK("error: cannot take logarithm of zero", 1, "log", dbls(1, 0.0));
    CHECK("3|NULL", 2, "log", dbls(2, 2.0, 2.0), dbls(2, 8.0, NUL_D));
    CHECK("error: division by zero", 1, "log", dbls(1, 1.0), dbls(1, 8.0));
    CHECK("error: cannot take logarithm of a negative number", 1, "log", dbls(1, -2.0), dbls(1, 8.0));
    CHECK("1024|0.5|1|-8|1|NaN", 6, "power", dbls(6, 2.0, 2.0, 0.0, -2.0, NAN, NAN),
          dbls(6, 10.0, -1.0, 0.0, 3.0, 0.0, 1.0));
    CHECK("1024", 1, "pow", dbls(1, 2.0), dbls(1, 10.0));
    CHECK("error: zero raised to a negative power is undefined", 1, "power", dbls(1, 0.0), dbls(1, -1.0));
    CHECK("error: a negative number raised to a non-integer power yields a complex result", 1, "power",
          dbls(1, -8.0), dbls(1, 1.0 / 3));
    CHECK("error: value out of range: overflow", 1, "power", dbls(1, 10.0), dbls(1, 400.0));
    CHECK("error: value out of range: underflow", 1, "power", dbls(1, 10.0), dbls(1, -400.0));
}

Test(func, mod) {
    vector *a = BIGINTS(5, 7LL, -7LL, 7LL, NUL_I, INT64_MIN);
    vector *b = BIGINTS(5, 3LL, 3LL, -3LL, 1LL, -1LL);
    CHECK("1|-1|1|NULL|0", 5, "mod", a, b);
    CHECK("error: division by zero", 1, "mod", BIGINTS(1, 1LL), BIGINTS(1, 0LL));
    vector *d = ints(sql_type_decimal(5, 2), 2, 750LL, -750LL);
    vector *e = ints(sql_type_decimal(5, 2), 2, 200LL, 200LL);
    CHECK("1.50|-1.50", 2, "mod", d, e);
    CHECK("error: division by zero", 1, "mod", d, ints(sql_type_decimal(5, 2), 1, 0LL));
}

/* ---- greatest, least, dates ---- */

Test(func, greatest_least) {
    vector *a = BIGINTS(4, 1LL, NUL_I, NUL_I, -5LL);
    vector *b = BIGINTS(4, 3LL, 2LL, NUL_I, -6LL);
    vector *c = BIGINTS(4, 2LL, NUL_I, NUL_I, -7LL);
    CHECK("3|2|NULL|-5", 4, "greatest", a, b, c);
    CHECK("1|2|NULL|-7", 4, "least", a, b, c);
    vector *s = strs(3, "apple", "a long string past twelve", NULL);
    vector *t = strs(3, "banana", "a long", "x");
    CHECK("banana|a long string past twelve|x", 3, "greatest", s, t);
    CHECK("apple|a long|x", 3, "least", s, t);
    CHECK("NaN|2", 2, "greatest", dbls(2, NAN, 1.0), dbls(2, INFINITY, 2.0));
    CHECK("Infinity|1", 2, "least", dbls(2, NAN, 1.0), dbls(2, INFINITY, 2.0));
    CHECK("7", 1, "greatest", BIGINTS(1, 7LL));
}

Test(func, date_trunc_and_date_part) {
    int64_t ts;
    EXPECT_OK(ts_parse("2024-05-17 13:45:30.25", 22, &ts, &err));
    vector *t = ints(T(TYPE_TIMESTAMP), 2, ts, NUL_I);
    CHECK("2024-05-01 00:00:00|NULL", 2, "date_trunc", constant(strs(1, "month")), t);
    CHECK("2024-05-13 00:00:00|NULL", 2, "date_trunc", constant(strs(1, "WEEK")), t);
    CHECK("2024-05-17 13:45:30|2024-01-01 00:00:00", 2, "date_trunc", strs(2, "second", "year"),
          ints(T(TYPE_TIMESTAMP), 2, ts, ts));
    CHECK("error: unit \"fortnight\" not recognized for type timestamp", 1, "date_trunc",
          constant(strs(1, "fortnight")), t);
    CHECK("error: unit \"dow\" not supported for type timestamp", 1, "date_trunc", constant(strs(1, "dow")),
          t);
    /* a NULL source never looks at the unit */
    CHECK("NULL", 1, "date_trunc", strs(1, "nonsense"), ints(T(TYPE_TIMESTAMP), 1, NUL_I));
    CHECK("2024|30.25|13|5|1715953530.25|NULL", 6, "date_part",
          strs(6, "year", "second", "hour", "dow", "epoch", "month"),
          ints(T(TYPE_TIMESTAMP), 6, ts, ts, ts, ts, ts, NUL_I));
    sql_interval iv = {.months = 14, .days = 3, .micros = 5 * MICROS_PER_HOUR};
    vector *i = new_vec(T(TYPE_INTERVAL));
    VEC_DATA(i, sql_interval)[0] = iv;
    CHECK("5", 1, "date_part", strs(1, "hour"), i);
    CHECK("1", 1, "date_part", strs(1, "year"), i);
    CHECK("error: unit \"dow\" not supported for type interval", 1, "date_part", strs(1, "dow"), i);
}

/* ---- constant and dictionary inputs ---- */

Test(func, constant_and_dictionary_inputs) {
    vector *base = strs(4, "Alpha", NULL, "a much longer string value", "Ω");
    static const sel_t sel[6] = {3, 2, 2, 1, 0, 3};
    vector *d = dict(base, 6, sel);
    CHECK("ω|a much longer string value|a much longer string value|NULL|alpha|ω", 6, "lower", d);
    CHECK("Ω|a much|a much|NULL|Alpha|Ω", 6, "left", d, constant(BIGINTS(1, 6LL)));
    vector *nums = BIGINTS(3, 1LL, 2LL, 3LL);
    static const sel_t sel2[4] = {2, 2, 0, 1};
    CHECK("|much longer string value|a much longer string value|NULL", 4, "substring", dict(base, 4, sel),
          dict(nums, 4, sel2));
    /* a constant NULL argument makes every row NULL */
    CHECK("NULL|NULL|NULL", 3, "substring", strs(3, "a", "b", "c"), constant(BIGINTS(1, NUL_I)));
    CHECK("xx|xx|xx", 3, "repeat", constant(strs(1, "x")), constant(BIGINTS(1, 2LL)));
    vector *big = new_vec(sql_type_varchar(0));
    for (uint32_t r = 0; r < VECTOR_SIZE; r++) {
        char buf[32];
        int n = snprintf(buf, sizeof buf, "Row Number %u Here", r);
        cr_assert_eq(vec_set_str(big, r, buf, (size_t)n, &err), STRATA_OK);
    }
    EVAL(VECTOR_SIZE, "upper", big);
    cr_assert(strncmp(result, "ROW NUMBER 0 HERE|ROW NUMBER 1 HERE|", 36) == 0);
    cr_assert(strstr(result, "|ROW NUMBER 2047 HERE") != NULL);
}

/* ---- LIKE ---- */

static bool like(const char *text, const char *pat, int escape, bool ilike) {
    bool out = false;
    EXPECT_OK(like_match(text, strlen(text), pat, strlen(pat), escape, ilike, &out, &err));
    return out;
}

Test(func, like_basics) {
    static const struct {
        const char *text, *pat;
        bool want;
    } cases[] = {
        {"abc", "abc", true},
        {"abc", "ab", false},
        {"abc", "a%", true},
        {"abc", "%c", true},
        {"abc", "%b%", true},
        {"abc", "%", true},
        {"", "%", true},
        {"", "", true},
        {"", "_", false},
        {"abc", "___", true},
        {"abc", "__", false},
        {"abc", "a_c", true},
        {"héllo", "h_llo", true},
        {"héllo", "h__llo", false},
        {"héllo", "%é%", true},
        {"aaab", "%ab", true},
        {"abab", "%ab%ab", true},
        {"abab", "%ab%ab%ab", false},
        {"mississippi", "%iss%ipp%", true},
        {"mississippi", "m%s_s%i", true},
        {"100%", "100\\%", true},
        {"1000", "100\\%", false},
        {"a_b", "a\\_b", true},
        {"axb", "a\\_b", false},
        {"a\\b", "a\\\\b", true},
        {"ab", "a\\b", true},
        {"ABC", "abc", false},
        {"abc", "%%%", true},
        {"x%", "%\\%", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_assert_eq(like(cases[i].text, cases[i].pat, '\\', false), cases[i].want, "%s LIKE %s",
                     cases[i].text, cases[i].pat);
    /* ILIKE folds ASCII and the Latin-1 supplement (and more) */
    cr_assert(like("ÀBÇ", "àb%", '\\', true));
    cr_assert(like("Straße", "STRASSE", '\\', true) == false);
    cr_assert(like("ΣΑΣ", "σ_σ", '\\', true));
    cr_assert(like("Hello", "h%O", '\\', true));
    cr_assert(!like("Hello", "h%O", '\\', false));
    /* other escape characters, none at all, a multi-byte one */
    cr_assert(like("50%", "50#%", '#', false));
    cr_assert(!like("50x", "50#%", '#', false));
    cr_assert(like("a\\b", "a\\b", 0, false));
    cr_assert(like("a%", "a§%", 0xA7, false));
    cr_assert(!like("ab", "a§%", 0xA7, false));
    /* the escape character escapes itself, even when it is a wildcard */
    cr_assert(like("a%b", "a%%b", '%', false));
    cr_assert(!like("axb", "a%%b", '%', false));
    bool out;
    EXPECT_ERR(like_match("abc", 3, "ab\\", 3, '\\', false, &out, &err),
               "LIKE pattern must not end with escape character");
    EXPECT_ERR(like_match("zzz", 3, "a#", 2, '#', true, &out, &err),
               "LIKE pattern must not end with escape character");
    EXPECT_OK(like_match("ab\\", 3, "ab\\\\", 4, '\\', false, &out, &err));
    cr_assert(out);
}

Test(func, like_exec_vectors) {
    vector *text = strs(5, "apple", "banana", NULL, "grape", "");
    vector *out = new_vec(T(TYPE_BOOLEAN));
    EXPECT_OK(like_exec(text, constant(strs(1, "%an%")), '\\', false, false, 5, out, &err));
    result[0] = '\0';
    for (uint32_t r = 0; r < 5; r++)
        row_text(out, r);
    cr_assert_str_eq(result, "false|true|NULL|false|false");
    vec_reset(out);
    EXPECT_OK(like_exec(text, constant(strs(1, "%an%")), '\\', false, true, 5, out, &err));
    result[0] = '\0';
    for (uint32_t r = 0; r < 5; r++)
        row_text(out, r);
    cr_assert_str_eq(result, "true|false|NULL|true|true");
    vec_reset(out);
    vector *pats = strs(5, "A%", "b_n%", "%", NULL, "");
    EXPECT_OK(like_exec(text, pats, '\\', true, false, 5, out, &err));
    result[0] = '\0';
    for (uint32_t r = 0; r < 5; r++)
        row_text(out, r);
    cr_assert_str_eq(result, "true|true|NULL|NULL|true");
    vec_reset(out);
    EXPECT_ERR(like_exec(text, constant(strs(1, "x\\")), '\\', false, false, 5, out, &err),
               "LIKE pattern must not end with escape character");
    vec_reset(out);
    /* no row needs a NULL-text pattern analyzed */
    EXPECT_OK(like_exec(constant(strs(1, NULL)), constant(strs(1, "x\\")), '\\', false, false, 5, out, &err));
}

/* random_string writes up to max characters drawn from alphabet (a list of UTF-8 characters). */
static size_t random_string(char *buf, int max, const char *const *alphabet, int n, unsigned *seed) {
    size_t len = 0;
    int chars = (int)(rand_r(seed) % (unsigned)(max + 1));
    for (int i = 0; i < chars; i++) {
        const char *c = alphabet[rand_r(seed) % (unsigned)n];
        memcpy(buf + len, c, strlen(c));
        len += strlen(c);
    }
    return len;
}

/* Constant patterns take the prefix / suffix / contains / segment fast paths; every answer must
** be the general matcher's (like_match), for random texts and patterns with escapes. */
Test(func, like_fast_paths_match_general_matcher) {
    static const char *const text_chars[] = {"a", "b", "é", "%", "_", "\\"};
    static const char *const pat_chars[] = {"a", "b", "é", "%", "%", "_", "\\%", "\\_", "\\\\", "\\a"};
    unsigned seed = 12345;
    vector *text = new_vec(sql_type_varchar(0));
    vector *pat = new_vec(sql_type_varchar(0));
    vector *out = new_vec(T(TYPE_BOOLEAN));
    char buf[256];
    for (int round = 0; round < 400; round++) {
        size_t plen = random_string(buf, 6, pat_chars, 10, &seed);
        vec_reset(pat);
        cr_assert_eq(vec_set_str(pat, 0, buf, plen, &err), STRATA_OK);
        vec_make_constant(pat);
        vec_reset(text);
        for (uint32_t r = 0; r < 64; r++) {
            size_t tlen = random_string(buf, 10, text_chars, 6, &seed);
            cr_assert_eq(vec_set_str(text, r, buf, tlen, &err), STRATA_OK);
        }
        for (int ilike = 0; ilike < 2; ilike++) {
            vec_reset(out);
            EXPECT_OK(like_exec(text, pat, '\\', ilike, false, 64, out, &err));
            const sstr *p = &VEC_DATA(pat, sstr)[0];
            for (uint32_t r = 0; r < 64; r++) {
                const sstr *t = &VEC_DATA(text, sstr)[r];
                bool want;
                EXPECT_OK(like_match(sstr_data(t), t->len, sstr_data(p), p->len, '\\', ilike, &want, &err));
                cr_assert_eq(VEC_DATA(out, uint8_t)[r], want, "'%.*s' LIKE '%.*s'", (int)t->len, sstr_data(t),
                             (int)p->len, sstr_data(p));
            }
        }
    }
}

/* The general matcher against a slow recursive reference on random inputs. */
static bool ref_like(const char *t, const char *p) {
    if (*p == '\0') return *t == '\0';
    if (*p == '%') return ref_like(t, p + 1) || (*t && ref_like(t + 1, p));
    if (*t == '\0') return false;
    if (*p == '_' || *p == *t) return ref_like(t + 1, p + 1);
    return false;
}

Test(func, like_matches_reference) {
    static const char *const chars[] = {"a", "b", "c"};
    static const char *const pchars[] = {"a", "b", "%", "_"};
    unsigned seed = 7;
    char t[64], p[64];
    for (int i = 0; i < 20000; i++) {
        size_t tl = random_string(t, 8, chars, 3, &seed), pl = random_string(p, 6, pchars, 4, &seed);
        t[tl] = p[pl] = '\0';
        cr_assert_eq(like(t, p, '\\', false), ref_like(t, p), "'%s' LIKE '%s'", t, p);
    }
}
