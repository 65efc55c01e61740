/*
** test_parser_fuzz.c -- 10,000 mutated SQL strings through the parser: each parses or fails with
** a positioned message; none crashes, hangs, leaks or reads outside the text (the texts sit in
** heap blocks of their exact size, without a NUL, so AddressSanitizer sees any overread).
**
** Mutations of a corpus of valid statements, from a fixed seed so that a failure reproduces:
** byte flips, deletions, insertions of bytes or SQL tokens, truncation, and duplication of a
** span (once or many times, which builds deep nesting and long operator chains).
*/
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../planner/parser/parser.h"

static const char *const corpus[] = {
    "SELECT a + 1 FROM t",
    "SELECT DISTINCT t.*, count(*), count(DISTINCT x) AS n FROM t AS u(a, b) WHERE a IS NOT NULL GROUP BY 1 "
    "HAVING count(*) > 1 ORDER BY 2 DESC NULLS LAST LIMIT 10 OFFSET 5",
    "SELECT 1 UNION ALL SELECT 2 EXCEPT SELECT 3 INTERSECT SELECT 4 ORDER BY 1",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT * FROM r",
    "VALUES (1, 'a'), (2, NULL)",
    "SELECT * FROM a JOIN b USING (x) LEFT JOIN c ON c.x = a.x CROSS JOIN d, e NATURAL JOIN f",
    "SELECT * FROM (SELECT 1) s, generate_series(1, 10, 2) g(x), range(1, 5), (VALUES (1)) v(a)",
    "SELECT CASE WHEN a THEN 1 ELSE 2 END, CASE x WHEN 1 THEN 'a' END, CAST(a AS DECIMAL(10,2)), -x::int",
    "SELECT EXTRACT(year FROM d), SUBSTRING(s FROM 2 FOR 3), TRIM(BOTH 'x' FROM s), left(s, 2)",
    "SELECT a IN (SELECT b FROM u), EXISTS (SELECT 1), a NOT BETWEEN 1 AND 2, a NOT ILIKE 'x' ESCAPE '!'",
    "SELECT DATE '1998-12-01' - INTERVAL '90' DAY, TIMESTAMP '2020-01-01', INTERVAL 3 days",
    "SELECT 'it''s', E'a\\n\\x41\\u00e9', X'CAFE', 1.5e3, .5, 9223372036854775808, $1, ?",
    "SELECT a IS DISTINCT FROM b, a || b || 'c', NOT a = b AND c OR d, (SELECT max(x) FROM t)",
    "INSERT INTO t (a, b) VALUES (1, 'x'), (2, DEFAULT) ON CONFLICT (a) DO UPDATE SET b = excluded.b WHERE "
    "t.a > 0 "
    "RETURNING *",
    "INSERT INTO t SELECT * FROM u ON CONFLICT DO NOTHING",
    "INSERT INTO t DEFAULT VALUES",
    "UPDATE t AS x SET a = a + 1, b = DEFAULT FROM u WHERE x.id = u.id RETURNING a",
    "DELETE FROM t WHERE a > 1 RETURNING *",
    "CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL UNIQUE, p DECIMAL(10,2) "
    "DEFAULT "
    "0 CHECK (p >= 0), c INT REFERENCES u(id), PRIMARY KEY (id, name), CONSTRAINT f FOREIGN KEY (c) "
    "REFERENCES u (x))",
    "CREATE TABLE t2 AS SELECT * FROM t",
    "CREATE UNIQUE INDEX IF NOT EXISTS i ON t (lower(e), b DESC)",
    "CREATE VIEW v (x, y) AS SELECT a, b FROM t",
    "DROP TABLE IF EXISTS a, b",
    "DROP INDEX i",
    "ALTER TABLE t ADD COLUMN c INT NOT NULL DEFAULT 0",
    "ALTER TABLE t RENAME COLUMN a TO b",
    "ALTER TABLE t DROP COLUMN c",
    "BEGIN TRANSACTION; COMMIT; ROLLBACK; END; CHECKPOINT",
    "EXPLAIN ANALYZE SELECT * FROM t WHERE a = 1",
    "SET threads = 4; SET search_path TO main; PRAGMA integrity_check; PRAGMA table_info('t')",
    "COPY t (a, b) FROM 'x.csv' (FORMAT csv, HEADER, DELIMITER '|')",
    "COPY (SELECT 1) TO 'out.csv' WITH (HEADER true)",
    "SELECT \"Mixed\"\"Case\", t.\"X\" FROM \"My Table\" /* comment /* nested */ */ -- tail\n WHERE a = 1",
};

static const char *const tokens[] = {
    "(",
    ")",
    "((",
    "))",
    ",",
    ";",
    ".",
    "*",
    "'",
    "\"",
    "E'",
    "X'",
    "$",
    "$1",
    "?",
    "::",
    "||",
    "--",
    "/*",
    "*/",
    "-",
    "+",
    "=",
    "<>",
    "<=",
    "\\",
    "\n",
    "\t",
    "é",
    "\xff",
    "\0",
    " SELECT ",
    " FROM ",
    " WHERE ",
    " AND ",
    " OR ",
    " NOT ",
    " NULL ",
    " IS ",
    " IN ",
    " BETWEEN ",
    " LIKE ",
    " CASE ",
    " WHEN ",
    " THEN ",
    " END ",
    " JOIN ",
    " ON ",
    " USING ",
    " UNION ",
    " ALL ",
    " VALUES ",
    " WITH ",
    " AS ",
    " CAST ",
    " EXISTS ",
    " INTERVAL ",
    " DATE ",
    " ORDER BY ",
    " GROUP BY ",
    " LIMIT ",
    " DEFAULT ",
    " PRIMARY KEY ",
    " REFERENCES ",
    " CONSTRAINT ",
    " 1e ",
    " 1.5 ",
    " 99999999999999999999 ",
    " EXPLAIN ",
    " count(*) ",
    " extract(",
    " substring(",
    " trim(",
};

static uint64_t rng_state = 0x5eed5eed12345678ULL;

/* rnd returns a pseudo-random number below n (splitmix64). */
static size_t rnd(size_t n) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return n ? (size_t)(z % n) : 0;
}

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void splice(text *t, size_t at, size_t del, const char *ins, size_t n) {
    if (t->len - del + n > t->cap) {
        t->cap = (t->len - del + n) * 2;
        t->s = realloc(t->s, t->cap);
        cr_assert_not_null(t->s);
    }
    memmove(t->s + at + n, t->s + at + del, t->len - at - del);
    memcpy(t->s + at, ins, n);
    t->len = t->len - del + n;
}

static void mutate(text *t) {
    size_t at = rnd(t->len + 1);
    switch (rnd(7)) {
    case 0: /* flip a byte */
        if (t->len) t->s[rnd(t->len)] ^= (char)(1u << rnd(8));
        break;
    case 1: /* delete a span */
        if (at < t->len) splice(t, at, 1 + rnd(t->len - at < 8 ? t->len - at : 8), "", 0);
        break;
    case 2: { /* insert random bytes */
        char b[4];
        size_t n = 1 + rnd(4);
        for (size_t i = 0; i < n; i++)
            b[i] = (char)rnd(256);
        splice(t, at, 0, b, n);
        break;
    }
    case 3: { /* insert a token */
        size_t k = rnd(sizeof tokens / sizeof tokens[0]);
        splice(t, at, 0, tokens[k], tokens[k][0] ? strlen(tokens[k]) : 1);
        break;
    }
    case 4: /* truncate */ t->len = at; break;
    case 5:   /* duplicate a span once */
    case 6: { /* or many times: deep nesting, long chains */
        if (t->len == 0) break;
        size_t from = rnd(t->len), n = 1 + rnd(t->len - from < 12 ? t->len - from : 12);
        size_t times = rnd(7) == 6 ? 1 + rnd(1500) : 1;
        char *span = malloc(n);
        memcpy(span, t->s + from, n);
        for (size_t i = 0; i < times; i++)
            splice(t, at, 0, span, n);
        free(span);
        break;
    }
    }
}

/* parse_all parses every statement of text[0, len), which is not NUL-terminated; counts the
** statements that parsed and the scripts that failed. */
static void parse_all(arena *a, FILE *sink, const char *sql, size_t len, int *parsed, int *failed) {
    sql_script s;
    sql_script_init(&s, sql, len);
    for (int guard = 0;; guard++) {
        cr_assert_lt(guard, 100000, "the script does not advance");
        strata_err err = {0};
        sql_stmt *st = (sql_stmt *)1;
        int rc = sql_script_next(&s, a, &st, &err);
        if (rc != STRATA_OK) {
            cr_assert(rc == STRATA_ERROR || rc == STRATA_NOMEM, "status %d", rc);
            cr_assert_eq(err.code, rc);
            cr_assert_gt(strlen(err.msg), 0, "an error without a message");
            cr_assert(strstr(err.msg, " at line ") != NULL, "an error without a position: %s", err.msg);
            cr_assert_null(st);
            ++*failed;
            return;
        }
        if (st == NULL) return;
        cr_assert(st->off <= st->end && st->end <= len);
        sql_print_stmt(sink, st);
        ++*parsed;
    }
}

Test(parser_fuzz, corpus_parses) {
    arena a;
    arena_init(&a, 0);
    FILE *sink = fopen("/dev/null", "w");
    for (size_t i = 0; i < sizeof corpus / sizeof corpus[0]; i++) {
        int parsed = 0, failed = 0;
        parse_all(&a, sink, corpus[i], strlen(corpus[i]), &parsed, &failed);
        cr_assert_eq(failed, 0, "corpus entry %zu does not parse: %s", i, corpus[i]);
        cr_assert_gt(parsed, 0);
    }
    fclose(sink);
    arena_free(&a);
}

Test(parser_fuzz, ten_thousand_mutations, .timeout = 300) {
    arena a;
    arena_init(&a, 0);
    FILE *sink = fopen("/dev/null", "w");
    text t = {0};
    int parsed = 0, failed = 0;
    for (int iter = 0; iter < 10000; iter++) {
        const char *base = corpus[rnd(sizeof corpus / sizeof corpus[0])];
        t.len = 0;
        splice(&t, 0, 0, base, strlen(base));
        if (rnd(4) == 0) { /* two statements in one text */
            const char *more = corpus[rnd(sizeof corpus / sizeof corpus[0])];
            splice(&t, t.len, 0, "; ", 2);
            splice(&t, t.len, 0, more, strlen(more));
        }
        for (size_t m = 1 + rnd(4); m > 0; m--)
            mutate(&t);

        /* the text alone in a block of its exact size */
        char *exact = malloc(t.len ? t.len : 1);
        memcpy(exact, t.s, t.len);
        parse_all(&a, sink, exact, t.len, &parsed, &failed);
        free(exact);

        /* and as a C string through sql_parse (it stops at an embedded NUL) */
        char *cstr = malloc(t.len + 1);
        memcpy(cstr, t.s, t.len);
        cstr[t.len] = '\0';
        strata_err err = {0};
        sql_stmt *st;
        const char *tail = NULL;
        int rc = sql_parse(&a, cstr, &st, &tail, &err);
        if (rc == STRATA_OK)
            cr_assert(tail >= cstr && tail <= cstr + strlen(cstr));
        else
            cr_assert_gt(strlen(err.msg), 0);
        free(cstr);
        arena_reset(&a);
    }
    /* the mutations exercise both outcomes */
    cr_assert_gt(parsed, 1000, "only %d statements parsed", parsed);
    cr_assert_gt(failed, 1000, "only %d texts failed", failed);
    free(t.s);
    fclose(sink);
    arena_free(&a);
}
