/*
** test_sql_mutation.c -- 10,000 mutated SQL strings through strata_exec on a small database: each
** returns STRATA_OK or an error code with a message, never crashes, hangs, leaks (the sanitizer
** build checks) or leaves the handle unusable.
**
** The strings start from a corpus of valid statements over the whole grammar (queries, joins,
** aggregates, set operations, subqueries, DDL, DML, transactions) and are cut into tokens, then
** mutated from a fixed seed so that a failure reproduces: tokens deleted, duplicated, swapped or
** taken from another statement; random punctuation, keywords, huge numbers, long strings and
** deep nesting inserted; the text truncated or a byte changed. Unlike tests/planner/
** test_parser_fuzz.c, which checks the parser alone, these run through the binder, the executor
** and the transaction logic, so the statements that still parse are executed.
**
** STRATA_MUTATIONS sets the number of strings (10,000 by default), STRATA_MUTATION_SEED the seed;
** STRATA_MUTATION_VERBOSE=1 prints each string before it runs, to find the one that crashes.
*/
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "helpers/sql_guard.h"
#include "strata.h"

/* The database every batch of mutations starts from: small tables so that statements that still
** run (a join of a table with itself five times) stay cheap. */
static const char *const schema =
    "CREATE TABLE t(k INTEGER PRIMARY KEY, v VARCHAR(20), d DOUBLE, n DECIMAL(10,2), dt DATE, b BOOLEAN);"
    "CREATE TABLE u(id INTEGER NOT NULL, k INTEGER REFERENCES t(k), s TEXT DEFAULT 'x', CHECK (id >= 0),"
    " UNIQUE (id, s));"
    "CREATE INDEX u_k ON u(k);"
    "CREATE INDEX t_lv ON t(lower(v));"
    "CREATE VIEW tv AS SELECT k, v FROM t WHERE k > 1;"
    "INSERT INTO t VALUES (1, 'one', 1.5, 10.25, DATE '2024-01-01', true), (2, 'two', NULL, -3.10, NULL, false),"
    " (3, NULL, 2.5e10, NULL, DATE '1999-12-31', NULL), (4, 'Four', -0.0, 0, DATE '2000-02-29', true);"
    "INSERT INTO u VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 2, NULL), (4, NULL, 'd');"
    "CREATE TABLE e(a INTEGER, b VARCHAR, c DATE);"
    "INSERT INTO e VALUES (1, 'x', DATE '2020-01-01'), (NULL, NULL, NULL);";

/* Valid statements over the schema: each must run on a fresh database (checked first).
** BUG explain-text-overflow: EXPLAIN is left out (here and from the keywords below) because
** strata_finalize frees s->text for plan->ncols columns while column_text allocated it for the one
** column EXPLAIN returns: strata_exec(db, "EXPLAIN SELECT 1, 2", cb, NULL) with a callback reads
** and frees past the array (a heap-buffer-overflow under ASan, a crash without). Put it back
** when that is fixed. */
static const char *const corpus[] = {
    "SELECT * FROM t",
    "SELECT k, v || '!' AS w, d * 2, n + 1.5 FROM t WHERE k BETWEEN 1 AND 3 ORDER BY k DESC",
    "SELECT DISTINCT b FROM t ORDER BY b NULLS FIRST",
    "SELECT count(*), sum(n), avg(d), min(v), max(dt), count(DISTINCT b) FROM t",
    "SELECT b, count(*) AS c FROM t GROUP BY b HAVING count(*) >= 1 ORDER BY 2, 1",
    "SELECT t.k, u.s FROM t JOIN u ON u.k = t.k ORDER BY t.k, u.s",
    "SELECT * FROM t LEFT JOIN u USING (k) ORDER BY 1",
    "SELECT * FROM t RIGHT JOIN u ON t.k = u.id WHERE u.s IS NOT NULL",
    "SELECT * FROM t FULL JOIN u ON t.k = u.k AND u.id > 1",
    "SELECT a.k, b.k FROM t a CROSS JOIN t b WHERE a.k < b.k",
    "SELECT t.v, u.s FROM t, u WHERE t.k = u.k AND u.id <> 2",
    "SELECT k FROM t UNION SELECT id FROM u ORDER BY 1",
    "SELECT k FROM t UNION ALL SELECT k FROM u EXCEPT SELECT 2 INTERSECT SELECT 2",
    "SELECT k, CASE WHEN k % 2 = 0 THEN 'even' WHEN k IS NULL THEN NULL ELSE 'odd' END FROM t",
    "SELECT CASE v WHEN 'one' THEN 1 ELSE 0 END, COALESCE(v, 'none'), NULLIF(k, 2) FROM t",
    "SELECT CAST(k AS VARCHAR), k::DOUBLE, '42'::INTEGER, CAST('2024-03-01' AS DATE), n::INTEGER FROM t",
    "SELECT upper(v), lower(v), length(v), trim('  x  '), replace(v, 'o', '0'), substring(v, 2, 2) FROM t",
    "SELECT abs(-k), round(d, 1), floor(n), ceil(n), -k, +k FROM t",
    "SELECT EXTRACT(year FROM dt), dt + 30, dt - INTERVAL '1 month', dt - DATE '1970-01-01' FROM t",
    "SELECT v LIKE 'o%', v ILIKE 'F%', v NOT LIKE '_w_', k IN (1, 3, 5), k NOT IN (2) FROM t",
    "SELECT * FROM t WHERE (k > 1 AND b) OR (v IS NULL AND NOT b IS NULL)",
    "SELECT k FROM t ORDER BY v DESC NULLS LAST, k LIMIT 2 OFFSET 1",
    "SELECT x FROM generate_series(1, 10, 3) AS g(x)",
    "SELECT * FROM range(1, 5)",
    "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v(a, b) WHERE a > 1",
    "SELECT s.k FROM (SELECT k FROM t WHERE k > 1) AS s ORDER BY s.k",
    "SELECT * FROM tv ORDER BY k",
    "SELECT k, (SELECT max(id) FROM u WHERE u.k = t.k) FROM t",
    "SELECT * FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k)",
    "SELECT * FROM t WHERE k IN (SELECT k FROM u WHERE s <> 'a')",
    "WITH c AS (SELECT k, v FROM t WHERE k < 3) SELECT * FROM c ORDER BY k",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT sum(n) FROM r",
    "SELECT 1 + 2 * 3 - 4 / 2 % 3, 7 / 2, 7.0 / 2, 'a' || 1, 1 = 1, 1 <> 2, 3 >= 2",
    "SELECT TIMESTAMP '2024-01-01 10:00:00' + INTERVAL '90 minutes', DATE '2024-02-28' + 1",
    "SELECT X'CAFE', E'a\\tb', 'it''s', 1.5e3, .5, 9223372036854775807",
    "INSERT INTO t VALUES (10, 'ten', 10.0, 10.10, DATE '2010-10-10', false)",
    "INSERT INTO t (k, v) VALUES (11, 'eleven'), (12, 'twelve') RETURNING k, v",
    "INSERT INTO u SELECT id + 10, k, s FROM u",
    "INSERT INTO u (id, k) VALUES (20, 3) ON CONFLICT DO NOTHING",
    "UPDATE t SET v = v || 'x', d = d + 1 WHERE k > 2",
    "UPDATE u SET s = DEFAULT WHERE id = 1 RETURNING *",
    "DELETE FROM u WHERE s IS NULL",
    "DELETE FROM t WHERE k = 4 RETURNING k",
    "CREATE TABLE w(a INTEGER PRIMARY KEY, b VARCHAR NOT NULL DEFAULT 'b', c DECIMAL(5,1) CHECK (c > 0))",
    "CREATE TABLE IF NOT EXISTS w2 (a INT, b INT, PRIMARY KEY (a, b))",
    "CREATE UNIQUE INDEX u_ids ON u(id, s)",
    "CREATE VIEW uv (i, kk) AS SELECT id, k FROM u",
    "DROP VIEW tv",
    "DROP INDEX u_k",
    "DROP TABLE IF EXISTS nosuch",
    "ALTER TABLE u ADD COLUMN extra INTEGER DEFAULT 7",
    "ALTER TABLE t RENAME COLUMN d TO dd",
    "ALTER TABLE e DROP COLUMN b",
    "BEGIN; INSERT INTO u VALUES (30, 1, 'z'); UPDATE t SET n = n * 2; COMMIT",
    "BEGIN; DELETE FROM u; ROLLBACK",
    "CHECKPOINT",
};
#define NCORPUS (sizeof corpus / sizeof corpus[0])

static const char *const punctuation[] = {"(", ")", ",", ";", ".", "*", "'", "\"", "::", "||", "-", "+", "/",
                                          "%", "=", "<>", "<", ">=", "?", "$1", "$0", "$99999", "[", "]",
                                          "{", "}", "--", "/*", "*/", "\\", "\n", "\xff", "\xc3", "@", "#"};
static const char *const keywords[] = {
    "SELECT", "FROM",   "WHERE",    "AND",     "OR",      "NOT",      "NULL",   "IS",      "IN",
    "BETWEEN", "LIKE",  "CASE",     "WHEN",    "THEN",    "ELSE",     "END",    "JOIN",    "LEFT",
    "ON",     "USING",  "UNION",    "ALL",     "EXCEPT",  "INTERSECT", "VALUES", "WITH",   "RECURSIVE",
    "AS",     "CAST",   "EXISTS",   "INTERVAL", "DATE",   "TIMESTAMP", "ORDER BY", "GROUP BY", "HAVING",
    "LIMIT",  "OFFSET", "DISTINCT", "DEFAULT", "PRIMARY KEY", "REFERENCES", "UNIQUE", "CHECK", "INSERT",
    "INTO",   "UPDATE", "SET",      "DELETE",  "CREATE",  "DROP",     "TABLE",  "INDEX",   "VIEW",
    "ALTER",  "ADD",    "COLUMN",   "RENAME",  "TO",      "BEGIN",    "COMMIT", "ROLLBACK",
    "RETURNING", "ON CONFLICT DO NOTHING", "count(*)", "sum(", "t", "u", "tv", "k", "v", "id", "*",
    "generate_series(", "EXTRACT(", "substring(", "true", "false"};
static const char *const numbers[] = {"0",
                                      "-1",
                                      "2147483647",
                                      "2147483648",
                                      "-2147483649",
                                      "9223372036854775807",
                                      "9223372036854775808",
                                      "-9223372036854775808",
                                      "99999999999999999999999999999999999999",
                                      "1e308",
                                      "1e309",
                                      "-1e-400",
                                      "0.000000000000000000000000000001",
                                      "123456789012345678.123456789",
                                      "1.",
                                      ".e1",
                                      "0x7fffffff",
                                      "1e",
                                      "'9999-12-31'",
                                      "'-infinity'",
                                      "'NaN'",
                                      "32767",
                                      "-32769"};

/* ---- random numbers (splitmix64): the same seed gives the same strings ------------------- */

static uint64_t rng_state;
static uint64_t rnd64(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
/* rnd returns a number in [0, n); n > 0 */
static size_t rnd(size_t n) { return (size_t)(rnd64() % n); }

/* ---- growable text ------------------------------------------------------------------------ */

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void text_add(text *t, const char *p, size_t n) {
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        cr_assert_not_null(t->s);
    }
    memcpy(t->s + t->len, p, n);
    t->len += n;
    t->s[t->len] = 0;
}
static void text_adds(text *t, const char *p) { text_add(t, p, strlen(p)); }

/* ---- tokens ------------------------------------------------------------------------------- */

/* A token is a span of the source statement or a string of its own (an inserted one). */
typedef struct token {
    char *s; /* owned */
    size_t len;
} token;

typedef struct tokens {
    token *v;
    size_t n, cap;
} tokens;

static void tok_insert(tokens *ts, size_t at, const char *s, size_t len) {
    if (ts->n == ts->cap) {
        ts->cap = ts->cap ? ts->cap * 2 : 64;
        ts->v = realloc(ts->v, ts->cap * sizeof *ts->v);
        cr_assert_not_null(ts->v);
    }
    memmove(ts->v + at + 1, ts->v + at, (ts->n - at) * sizeof *ts->v);
    ts->v[at].s = malloc(len + 1);
    cr_assert_not_null(ts->v[at].s);
    memcpy(ts->v[at].s, s, len);
    ts->v[at].s[len] = 0;
    ts->v[at].len = len;
    ts->n++;
}

static void tok_delete(tokens *ts, size_t at) {
    free(ts->v[at].s);
    memmove(ts->v + at, ts->v + at + 1, (ts->n - at - 1) * sizeof *ts->v);
    ts->n--;
}

static void tok_free(tokens *ts) {
    for (size_t i = 0; i < ts->n; i++) free(ts->v[i].s);
    free(ts->v);
    ts->v = NULL;
    ts->n = ts->cap = 0;
}

/* tokenize cuts SQL into words, numbers, quoted strings and single punctuation characters;
** white space is dropped (the tokens are joined with spaces again). */
static void tokenize(const char *sql, tokens *ts) {
    const char *p = sql;
    while (*p) {
        if (*p == ' ' || *p == '\n' || *p == '\t') {
            p++;
            continue;
        }
        const char *start = p;
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' || (*p >= '0' && *p <= '9') ||
            *p == '.') {
            while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' || (*p >= '0' && *p <= '9') ||
                   *p == '.')
                p++;
        } else if (*p == '\'') {
            p++;
            while (*p && !(*p == '\'' && p[1] != '\'')) p += *p == '\'' ? 2 : 1;
            if (*p) p++;
        } else if ((p[0] == ':' && p[1] == ':') || (p[0] == '|' && p[1] == '|') || (p[0] == '<' && p[1] == '>') ||
                   (p[0] == '>' && p[1] == '=') || (p[0] == '<' && p[1] == '=')) {
            p += 2;
        } else {
            p++;
        }
        tok_insert(ts, ts->n, start, (size_t)(p - start));
    }
}

static const char *pick(const char *const *list, size_t n) { return list[rnd(n)]; }
#define PICK(list) pick(list, sizeof list / sizeof list[0])

/* mutate_tokens applies one token-level mutation. */
static void mutate_tokens(tokens *ts) {
    size_t at = rnd(ts->n + 1);
    switch (rnd(14)) {
    case 0: /* delete a token */
        if (ts->n) tok_delete(ts, rnd(ts->n));
        break;
    case 1: /* duplicate a token */
        if (ts->n) {
            size_t i = rnd(ts->n);
            tok_insert(ts, i, ts->v[i].s, ts->v[i].len);
        }
        break;
    case 2: /* swap two tokens */
        if (ts->n >= 2) {
            size_t i = rnd(ts->n), j = rnd(ts->n);
            token tmp = ts->v[i];
            ts->v[i] = ts->v[j];
            ts->v[j] = tmp;
        }
        break;
    case 3: { /* a token from another statement */
        tokens other = {0};
        tokenize(corpus[rnd(NCORPUS)], &other);
        if (other.n) {
            token *o = &other.v[rnd(other.n)];
            if (ts->n && rnd(2)) {
                size_t i = rnd(ts->n);
                tok_delete(ts, i);
                at = i;
            }
            tok_insert(ts, at, o->s, o->len);
        }
        tok_free(&other);
        break;
    }
    case 4: {
        const char *p = PICK(punctuation);
        tok_insert(ts, at, p, strlen(p));
        break;
    }
    case 5: {
        const char *k = PICK(keywords);
        tok_insert(ts, at, k, strlen(k));
        break;
    }
    case 6: { /* a huge or odd number, in place of a token or inserted */
        const char *num = PICK(numbers);
        if (ts->n && rnd(2)) {
            size_t i = rnd(ts->n);
            tok_delete(ts, i);
            at = i;
        }
        tok_insert(ts, at, num, strlen(num));
        break;
    }
    case 7: { /* a long string literal or identifier */
        size_t n = 100 + rnd(20000);
        char *s = malloc(n + 3);
        cr_assert_not_null(s);
        int quoted = (int)rnd(3);
        char q = quoted == 0 ? '\'' : quoted == 1 ? '"' : 0;
        size_t o = 0;
        if (q) s[o++] = q;
        for (size_t i = 0; i < n; i++) s[o++] = (char)('a' + rnd(26));
        if (q && rnd(8)) s[o++] = q; /* sometimes left open */
        tok_insert(ts, at, s, o);
        free(s);
        break;
    }
    case 8: { /* deep nesting: parentheses, unary operators or NOT around a token */
        size_t depth = rnd(4) ? 1 + rnd(64) : 1 + rnd(5000);
        static const char *const open[] = {"(", "-", "NOT", "+", "((SELECT", "abs("};
        static const char *const close[] = {")", "", "", "", "))", ")"};
        size_t kind = rnd(sizeof open / sizeof open[0]);
        size_t i = ts->n ? rnd(ts->n) : 0;
        text pre = {0}, post = {0};
        for (size_t d = 0; d < depth; d++) {
            text_adds(&pre, open[kind]);
            text_adds(&pre, " ");
            text_adds(&post, close[kind]);
        }
        int balanced = rnd(4) != 0;
        if (pre.len) tok_insert(ts, i, pre.s, pre.len);
        if (post.len && balanced) tok_insert(ts, i + 2 <= ts->n ? i + 2 : ts->n, post.s, post.len);
        free(pre.s);
        free(post.s);
        break;
    }
    case 9: /* truncate */
        while (ts->n > at) tok_delete(ts, ts->n - 1);
        break;
    case 11: /* a name in place of another: unknown, ambiguous or mistyped columns and tables */
    case 12: {
        static const char *const names[] = {"k", "v", "d", "n", "dt", "b", "id", "s", "x", "t", "u", "tv", "e",
                                            "nosuch", "t.k", "u.k", "*", "t.*", "excluded.v", "r"};
        if (ts->n) {
            size_t i = rnd(ts->n);
            char c = ts->v[i].s[0];
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '*') {
                const char *nm = PICK(names);
                tok_delete(ts, i);
                tok_insert(ts, i, nm, strlen(nm));
            }
        }
        break;
    }
    case 13: { /* a literal in place of another: overflow, type mismatch, NULL */
        static const char *const literals[] = {"NULL", "'text'", "''", "true", "DATE '2024-02-30'", "DATE '2024-02-29'",
                                               "TIMESTAMP '2024-01-01 25:00:00'", "INTERVAL '1 day'", "X'00'",
                                               "1.5", "-0.0", "'1e5'", "'2024-01-01'", "E'\\x00'"};
        for (size_t tries = 0; tries < 8 && ts->n; tries++) {
            size_t i = rnd(ts->n);
            char c = ts->v[i].s[0];
            if ((c >= '0' && c <= '9') || c == '\'') {
                const char *lit = rnd(2) ? PICK(literals) : PICK(numbers);
                tok_delete(ts, i);
                tok_insert(ts, i, lit, strlen(lit));
                break;
            }
        }
        break;
    }
    case 10: /* duplicate a run of tokens */
        if (ts->n) {
            size_t i = rnd(ts->n), n = 1 + rnd(ts->n - i < 6 ? ts->n - i : 6);
            size_t times = 1 + rnd(rnd(8) == 0 ? 50 : 3);
            for (size_t r = 0; r < times; r++)
                for (size_t j = 0; j < n; j++) tok_insert(ts, i + n + r * n + j, ts->v[i + j].s, ts->v[i + j].len);
        }
        break;
    }
}

/* mutant builds a mutated statement (or script) into out. */
static void mutant(text *out) {
    tokens ts = {0};
    tokenize(corpus[rnd(NCORPUS)], &ts);
    if (rnd(6) == 0) { /* two statements in one text */
        tok_insert(&ts, ts.n, ";", 1);
        tokenize(corpus[rnd(NCORPUS)], &ts);
    }
    size_t nmut = rnd(10) < 6 ? 1 : rnd(10) < 6 ? 2 : 3;
    for (size_t m = 0; m < nmut; m++) mutate_tokens(&ts);
    out->len = 0;
    text_add(out, "", 0);
    for (size_t i = 0; i < ts.n; i++) {
        if (i) text_add(out, " ", 1);
        text_add(out, ts.v[i].s, ts.v[i].len);
    }
    tok_free(&ts);
    /* sometimes cut the text at a byte (inside a token) or change a byte */
    if (out->len && rnd(12) == 0) {
        out->len = rnd(out->len);
        out->s[out->len] = 0;
    } else if (out->len && rnd(12) == 0) {
        char c = (char)(1 + rnd(255));
        out->s[rnd(out->len)] = c;
    }
}

/* ---- running ------------------------------------------------------------------------------ */

/* rows_cb reads every value and stops a statement after 1000 rows (STRATA_INTERRUPT), so that a
** mutation into an unbounded query ends. */
static int rows_cb(void *arg, int ncol, char **values, char **names) {
    long *n = arg;
    size_t total = 0;
    for (int i = 0; i < ncol; i++) {
        if (values[i]) total += strlen(values[i]);
        cr_assert_not_null(names[i]);
    }
    (void)total;
    return ++*n > 1000;
}

static strata_db *fresh_db(void) {
    strata_db *db = NULL;
    int rc = strata_open(":memory:", &db);
    cr_assert_eq(rc, STRATA_OK, "open: %d", rc);
    rc = strata_exec(db, schema, NULL, NULL);
    cr_assert_eq(rc, STRATA_OK, "schema: %s", strata_errmsg(db));
    return db;
}

static long env_long(const char *name, long dflt) {
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 0) : dflt;
}

Test(sql_mutation, corpus_is_valid) {
    for (size_t i = 0; i < NCORPUS; i++) {
        strata_db *db = fresh_db();
        long n = 0;
        int rc = strata_exec(db, corpus[i], rows_cb, &n);
        cr_expect_eq(rc, STRATA_OK, "corpus[%zu] \"%s\": %d %s", i, corpus[i], rc, strata_errmsg(db));
        strata_close(db);
    }
}

Test(sql_mutation, mutated_statements_fail_cleanly, .timeout = 600) {
    long count = env_long("STRATA_MUTATIONS", 10000);
    rng_state = (uint64_t)env_long("STRATA_MUTATION_SEED", 20240611);
    int verbose = env_long("STRATA_MUTATION_VERBOSE", 0) != 0;
    long nok = 0, nerr = 0, nskipped = 0, counts[16] = {0};
    text sql = {0};
    strata_db *db = NULL;
    for (long i = 0; i < count; i++) {
        /* a new database every 100 strings: DROP and ALTER mutations wear the schema down */
        if (i % 100 == 0) {
            strata_close(db);
            db = fresh_db();
        }
        do mutant(&sql);
        while (sql_too_costly(sql.s) || sql_touches_files(sql.s));
        if (sql_known_crash(sql.s)) {
            nskipped++;
            continue;
        }
        if (verbose) fprintf(stderr, "[%ld] %s\n", i, sql.s);
        long rows = 0;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int rc = strata_exec(db, sql.s, rows_cb, &rows);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (verbose)
            fprintf(stderr, "  -> %d in %.1f ms\n", rc, (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
        if (rc == STRATA_OK) {
            nok++;
        } else {
            nerr++;
            cr_assert(rc > 0 && rc < 16, "[%ld] unexpected status %d for: %.300s", i, rc, sql.s);
            counts[rc]++;
            cr_assert_eq(strata_errcode(db), rc, "[%ld] errcode %d differs from the status %d for: %.300s", i,
                         strata_errcode(db), rc, sql.s);
            const char *m = strata_errmsg(db);
            cr_assert(m && *m && strcmp(m, "not an error") != 0, "[%ld] status %d without a message for: %.300s", i,
                      rc, sql.s);
        }
        /* the handle stays usable: end a transaction the string may have left open, then query */
        strata_exec(db, "ROLLBACK", NULL, NULL);
        rc = strata_exec(db, "SELECT 1", NULL, NULL);
        cr_assert_eq(rc, STRATA_OK, "[%ld] handle unusable after: %.300s\n%s", i, sql.s, strata_errmsg(db));
    }
    strata_close(db);
    free(sql.s);
    cr_log_info("%ld strings: %ld skipped for known bugs, %ld OK, %ld errors (ERROR %ld, CONSTRAINT %ld, MISUSE %ld, INTERRUPT %ld, other %ld)",
                count, nskipped, nok, nerr, counts[STRATA_ERROR], counts[STRATA_CONSTRAINT], counts[STRATA_MISUSE],
                counts[STRATA_INTERRUPT],
                nerr - counts[STRATA_ERROR] - counts[STRATA_CONSTRAINT] - counts[STRATA_MISUSE] -
                    counts[STRATA_INTERRUPT]);
    /* a mutator that only makes syntax errors, or never does, tests little */
    if (count >= 1000) {
        cr_expect_gt(nok, count / 20, "too few mutated strings still run: %ld of %ld", nok, count);
        cr_expect_gt(nerr, count / 4, "too few mutated strings fail: %ld of %ld", nerr, count);
    }
    cr_expect_eq(counts[STRATA_MISUSE], 0, "strata_exec reported MISUSE for SQL text %ld times", counts[STRATA_MISUSE]);
}
