/*
** test_parser.c -- the SQL lexer and parser: tokens and positions, the tree of every construct
** (asserted through the S-expression printer), operator precedence, positioned error messages,
** multi-statement scripts and the nesting limit.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../planner/parser/parser.h"

/* ---- helpers ---- */

static char *printed; /* the last result of parse(), freed by the next call */

/* parse returns the printed tree of the first statement of sql, "(none)" when there is none,
** or "error <code>: <message>". */
static const char *parse(const char *sql) {
    arena a;
    arena_init(&a, 0);
    strata_err err = {0};
    sql_stmt *st = NULL;
    size_t size;
    free(printed);
    FILE *f = open_memstream(&printed, &size);
    int rc = sql_parse(&a, sql, &st, NULL, &err);
    if (rc != STRATA_OK) {
        cr_assert_null(st);
        cr_assert_eq(err.code, rc);
        fprintf(f, "error %d: %s", rc, err.msg);
    } else if (st == NULL) {
        fputs("(none)", f);
    } else {
        sql_print_stmt(f, st);
    }
    fclose(f);
    arena_free(&a);
    return printed;
}

#define CHECK(sql, want) cr_assert_str_eq(parse(sql), want, "for: %s", sql)
/* CHECK_EXPR wraps an expression in SELECT and strips the (select (cols ...)) around it. */
#define CHECK_EXPR(e, want) CHECK("SELECT " e, "(select (cols " want "))")
#define CHECK_ERR(sql, msg) cr_assert_str_eq(parse(sql), "error 1: " msg, "for: %s", sql)

/* lex_all reads sql's tokens into toks (at most max) and returns how many came before the end
** of input or an error, which is toks[n]. */
static int lex_all(const char *sql, sql_token *toks, int max) {
    sql_lexer lx;
    sql_lexer_init(&lx, sql, strlen(sql));
    int n = 0;
    do
        sql_lexer_next(&lx, &toks[n]);
    while (toks[n].kind != TK_EOF && toks[n].kind != TK_ERROR && ++n < max);
    return n;
}

/* ---- lexer ---- */

Test(lexer, keyword_table_is_sorted_and_case_insensitive) {
    for (int k = KW_NONE + 2; k < KW_COUNT_; k++)
        cr_assert_lt(strcmp(sql_keyword_text(k - 1), sql_keyword_text(k)), 0, "%s", sql_keyword_text(k));
    for (int k = KW_NONE + 1; k < KW_COUNT_; k++) {
        const char *t = sql_keyword_text(k);
        char upper[32];
        for (size_t i = 0; i <= strlen(t); i++)
            upper[i] = (char)(t[i] >= 'a' && t[i] <= 'z' ? t[i] - 32 : t[i]);
        cr_assert_eq(sql_keyword_lookup(t, strlen(t)), (sql_keyword)k);
        cr_assert_eq(sql_keyword_lookup(upper, strlen(upper)), (sql_keyword)k);
    }
    cr_assert_eq(sql_keyword_lookup("SeLeCt", 6), KW_SELECT);
    cr_assert_eq(sql_keyword_lookup("selects", 7), KW_NONE);
    cr_assert_eq(sql_keyword_lookup("sel", 3), KW_NONE);
    cr_assert(sql_keyword_reserved(KW_FROM));
    cr_assert_not(sql_keyword_reserved(KW_KEY));
    cr_assert_not(sql_keyword_reserved(KW_NONE));
}

Test(lexer, operators_and_punctuation) {
    sql_token t[64];
    int n = lex_all("+ - * / % = <> != < <= > >= || :: ( ) , . ? $12", t, 64);
    sql_token_kind want[] = {TK_PLUS,   TK_MINUS,  TK_STAR,  TK_SLASH, TK_PERCENT, TK_EQ,     TK_NE,
                             TK_NE,     TK_LT,     TK_LE,    TK_GT,    TK_GE,      TK_CONCAT, TK_CAST,
                             TK_LPAREN, TK_RPAREN, TK_COMMA, TK_DOT,   TK_PARAM,   TK_PARAM};
    cr_assert_eq(n, (int)(sizeof want / sizeof want[0]));
    for (int i = 0; i < n; i++)
        cr_assert_eq(t[i].kind, want[i], "token %d", i);
    cr_assert_eq(t[19].len, 3);
    /* no white space needed between operators */
    n = lex_all("a<=b<>c||d::e", t, 64);
    cr_assert_eq(n, 9);
    cr_assert_eq(t[1].kind, TK_LE);
    cr_assert_eq(t[3].kind, TK_NE);
    cr_assert_eq(t[5].kind, TK_CONCAT);
    cr_assert_eq(t[7].kind, TK_CAST);
}

Test(lexer, numbers) {
    sql_token t[16];
    int n = lex_all("1 1.5 .5 1. 1e10 2.5E-3 7e+2 1.e5", t, 16);
    sql_token_kind want[] = {TK_INTEGER, TK_DECIMAL, TK_DECIMAL, TK_DECIMAL,
                             TK_FLOAT,   TK_FLOAT,   TK_FLOAT,   TK_FLOAT};
    cr_assert_eq(n, 8);
    for (int i = 0; i < n; i++)
        cr_assert_eq(t[i].kind, want[i], "token %d", i);
    cr_assert_eq(t[5].len, 6);
    n = lex_all("1e", t, 16);
    cr_assert_eq(t[n].kind, TK_ERROR);
    cr_assert_str_eq(t[n].error, "trailing junk after numeric literal");
    cr_assert_eq(t[n].off, 1);
}

Test(lexer, positions_lines_and_columns) {
    const char *sql = "SELECT a,\n  \"B\" -- comment\n/* block\n comment */ 'x\ny' é, z";
    sql_token t[16];
    int n = lex_all(sql, t, 16);
    cr_assert_eq(n, 8);
    struct {
        size_t off;
        int line, col;
    } want[] = {{0, 1, 1}, {7, 1, 8}, {8, 1, 9}, {12, 2, 3}, {48, 4, 13}, {54, 5, 4}, {56, 5, 5}, {58, 5, 7}};
    for (int i = 0; i < n; i++) {
        cr_assert_eq(t[i].off, want[i].off, "token %d offset %zu", i, t[i].off);
        cr_assert_eq(t[i].line, want[i].line, "token %d line %d", i, t[i].line);
        cr_assert_eq(t[i].col, want[i].col, "token %d column %d", i, t[i].col);
    }
    cr_assert_eq(t[4].kind, TK_STRING);
    cr_assert_eq(t[5].kind, TK_IDENT); /* é is an identifier character */
    cr_assert_eq(t[7].col, 7, "columns count characters, not bytes");
}

Test(lexer, identifiers_and_keywords) {
    arena a;
    arena_init(&a, 0);
    const char *sql = "SeLeCt FooBar \"Foo\"\"Bar\" \"select\" _x$1";
    sql_token t[8];
    int n = lex_all(sql, t, 8);
    cr_assert_eq(n, 5);
    cr_assert_eq(t[0].keyword, KW_SELECT);
    cr_assert_eq(t[1].keyword, KW_NONE);
    cr_assert_str_eq(sql_token_ident(&a, sql, &t[1]), "foobar");
    cr_assert_eq(t[2].kind, TK_QIDENT);
    cr_assert_str_eq(sql_token_ident(&a, sql, &t[2]), "Foo\"Bar");
    cr_assert_eq(t[3].kind, TK_QIDENT);
    cr_assert_eq(t[3].keyword, KW_NONE, "a quoted keyword is a name");
    cr_assert_str_eq(sql_token_ident(&a, sql, &t[4]), "_x$1");
    arena_free(&a);
}

Test(lexer, string_literals) {
    arena a;
    arena_init(&a, 0);
    const char *sql =
        "'it''s' E'a\\nb\\t\\\\\\'\\x41\\101\\u00e9\\U0001F600z' e'x''y' X'00fF' '' x'' 'multi\nline'";
    sql_token t[8];
    int n = lex_all(sql, t, 8);
    cr_assert_eq(n, 7);
    size_t len;
    cr_assert_str_eq(sql_token_string(&a, sql, &t[0], &len), "it's");
    cr_assert_eq(t[1].kind, TK_ESTRING);
    cr_assert_str_eq(sql_token_string(&a, sql, &t[1], &len), "a\nb\t\\'AA\xc3\xa9\xf0\x9f\x98\x80z");
    cr_assert_str_eq(sql_token_string(&a, sql, &t[2], &len), "x'y");
    cr_assert_eq(t[3].kind, TK_BLOB);
    const char *blob = sql_token_string(&a, sql, &t[3], &len);
    cr_assert_eq(len, 2);
    cr_assert(blob[0] == 0 && (unsigned char)blob[1] == 0xff);
    cr_assert_str_eq(sql_token_string(&a, sql, &t[4], &len), "");
    cr_assert_eq(len, 0);
    cr_assert_eq(t[5].kind, TK_BLOB);
    cr_assert_str_eq(sql_token_string(&a, sql, &t[6], &len), "multi\nline");
    arena_free(&a);
}

Test(lexer, malformed_tokens) {
    struct {
        const char *sql, *error;
        size_t off;
    } cases[] = {
        {"'abc", "unterminated string literal", 0},
        {"x 'it''s", "unterminated string literal", 2},
        {"E'abc\\'", "unterminated string literal", 0},
        {"\"abc", "unterminated quoted identifier", 0},
        {"\"\"", "zero-length quoted identifier", 0},
        {"a /* x /* y */", "unterminated /* comment", 2},
        {"X'ABC'", "blob literal X'...' has an odd number of hexadecimal digits", 0},
        {"X'AG'", "blob literal X'...' holds a character that is not a hexadecimal digit", 3},
        {"X'AB", "unterminated blob literal", 0},
        {"E'\\x00'", "invalid escape sequence in E'' string", 2},
        {"E'\\0'", "invalid escape sequence in E'' string", 2},
        {"E'a\\u12'", "invalid escape sequence in E'' string", 3},
        {"E'\\uD800'", "invalid escape sequence in E'' string", 2},
        {"12abc", "trailing junk after numeric literal", 2},
        {"a @ b", "unexpected character", 2},
        {"$x", "unexpected character", 0},
        {"a ! b", "unexpected character", 2},
        {"a : b", "unexpected character", 2},
        {"a | b", "unexpected character", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sql_token t[8];
        int n = lex_all(cases[i].sql, t, 8);
        cr_assert_eq(t[n].kind, TK_ERROR, "%s", cases[i].sql);
        cr_assert_str_eq(t[n].error, cases[i].error, "%s", cases[i].sql);
        cr_assert_eq(t[n].off, cases[i].off, "%s: offset %zu", cases[i].sql, t[n].off);
    }
}

Test(lexer, nested_comments_are_skipped) {
    sql_token t[8];
    int n = lex_all("a /* x /* y */ still comment */ b -- c\n-- d\nc", t, 8);
    cr_assert_eq(n, 3);
    cr_assert_eq(t[2].line, 3);
}

Test(lexer, stops_after_semicolon_until_resumed) {
    const char *sql = "a; b";
    sql_lexer lx;
    sql_token t;
    sql_lexer_init(&lx, sql, strlen(sql));
    sql_lexer_next(&lx, &t);
    cr_assert_eq(t.kind, TK_IDENT);
    sql_lexer_next(&lx, &t);
    cr_assert_eq(t.kind, TK_SEMI);
    sql_lexer_next(&lx, &t);
    cr_assert_eq(t.kind, TK_EOF);
    sql_lexer_next(&lx, &t);
    cr_assert_eq(t.kind, TK_EOF);
    cr_assert_eq(lx.pos, 2);
    sql_lexer_resume(&lx);
    sql_lexer_next(&lx, &t);
    cr_assert_eq(t.kind, TK_IDENT);
    cr_assert_eq(t.off, 3);
}

/* A text that is not NUL-terminated, in a heap block of its exact size: AddressSanitizer reports
** any read past its end. */
Test(lexer, never_reads_past_the_end) {
    const char *texts[] = {"'abc", "E'\\", "E'\\u12", "X'A",  "/* ",    "/",     "-",   "1e",
                           "1e+",  "1.",   "$",       "$1",   "\"ab",   "<",     ">",   "|",
                           "!",    ":",    "x",       "'a''", "E'\\x4", "E'\\1", "\xc3"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        size_t len = strlen(texts[i]);
        char *buf = malloc(len);
        memcpy(buf, texts[i], len);
        sql_lexer lx;
        sql_token t;
        sql_lexer_init(&lx, buf, len);
        do
            sql_lexer_next(&lx, &t);
        while (t.kind != TK_EOF && t.kind != TK_ERROR);
        free(buf);
    }
}

/* ---- expressions ---- */

Test(expr, precedence) {
    CHECK_EXPR("1+2*3", "(+ (int 1) (* (int 2) (int 3)))");
    CHECK_EXPR("(1+2)*3", "(* (+ (int 1) (int 2)) (int 3))");
    CHECK_EXPR("1-2-3", "(- (- (int 1) (int 2)) (int 3))");
    CHECK_EXPR("a % b / c * d", "(* (/ (% (col a) (col b)) (col c)) (col d))");
    CHECK_EXPR("a OR b AND c", "(or (col a) (and (col b) (col c)))");
    CHECK_EXPR("a AND b OR c", "(or (and (col a) (col b)) (col c))");
    CHECK_EXPR("NOT a = b", "(not (= (col a) (col b)))");
    CHECK_EXPR("NOT a AND b", "(and (not (col a)) (col b))");
    CHECK_EXPR("a AND NOT b OR c", "(or (and (col a) (not (col b))) (col c))");
    CHECK_EXPR("NOT NOT a", "(not (not (col a)))");
    CHECK_EXPR("-x::int", "(neg (cast (col x) int))");
    CHECK_EXPR("-2 * 3", "(* (int -2) (int 3))");
    CHECK_EXPR("-2::text", "(neg (cast (int 2) text))");
    CHECK_EXPR("+a", "(pos (col a))");
    CHECK_EXPR("a::int + 1", "(+ (cast (col a) int) (int 1))");
    CHECK_EXPR("t.a::text::varchar(3)", "(cast (cast (col t.a) text) varchar(3))");
    CHECK_EXPR("a || b + c", "(|| (col a) (+ (col b) (col c)))");
    CHECK_EXPR("a + b || c", "(|| (+ (col a) (col b)) (col c))");
    CHECK_EXPR("a || b || c", "(|| (|| (col a) (col b)) (col c))");
    CHECK_EXPR("a = b IS NULL", "(is-null (= (col a) (col b)))");
    CHECK_EXPR("a < b + 1", "(< (col a) (+ (col b) (int 1)))");
    CHECK_EXPR("a <> b AND c != d", "(and (<> (col a) (col b)) (<> (col c) (col d)))");
    CHECK_EXPR("a <= b OR a >= c", "(or (<= (col a) (col b)) (>= (col a) (col c)))");
    CHECK_EXPR("x BETWEEN 1 AND 2 AND y", "(and (between (col x) (int 1) (int 2)) (col y))");
    CHECK_EXPR("x BETWEEN 1 + 1 AND 2 * 3", "(between (col x) (+ (int 1) (int 1)) (* (int 2) (int 3)))");
    CHECK_EXPR("a < b AND c BETWEEN 1 AND 2 OR d",
               "(or (and (< (col a) (col b)) (between (col c) (int 1) (int 2))) (col d))");
    CHECK_EXPR("a IN (1, 2) = true", "(= (in (col a) (int 1) (int 2)) true)");
    CHECK_EXPR("'a' || 'b' LIKE 'ab'", "(like (|| (str 'a') (str 'b')) (str 'ab'))");
    CHECK_EXPR("NOT a LIKE b", "(not (like (col a) (col b)))");
    CHECK_EXPR("x IS NOT DISTINCT FROM y + 1", "(is-not-distinct-from (col x) (+ (col y) (int 1)))");
    CHECK_EXPR("a = 1 OR b IS NOT NULL", "(or (= (col a) (int 1)) (is-not-null (col b)))");
}

Test(expr, comparisons_do_not_chain) {
    CHECK_ERR("SELECT a = b = c",
              "syntax error at line 1, column 14: \"=\" cannot follow another comparison without "
              "parentheses\nSELECT a = b = c\n             ^");
    CHECK_ERR("SELECT a < b > c",
              "syntax error at line 1, column 14: \">\" cannot follow another comparison without "
              "parentheses\nSELECT a < b > c\n             ^");
    CHECK_ERR("SELECT a LIKE b LIKE c",
              "syntax error at line 1, column 17: \"LIKE\" cannot follow another comparison "
              "without parentheses\nSELECT a LIKE b LIKE c\n                ^");
    CHECK_ERR("SELECT a IS NULL IS NULL",
              "syntax error at line 1, column 18: \"IS\" cannot follow another comparison "
              "without parentheses\nSELECT a IS NULL IS NULL\n                 ^");
    CHECK_EXPR("(a = b) = c", "(= (= (col a) (col b)) (col c))");
}

Test(expr, literals) {
    CHECK_EXPR("1, 1.5, .5, 1e10, 2.5E-3", "(int 1) (num 1.5) (num .5) (num 1e10) (num 2.5E-3)");
    CHECK_EXPR("9223372036854775807, -9223372036854775808",
               "(int 9223372036854775807) (int -9223372036854775808)");
    CHECK_EXPR("9223372036854775808, -9223372036854775809",
               "(num 9223372036854775808) (num -9223372036854775809)");
    CHECK_EXPR("-1.5, - -3, -(5)", "(num -1.5) (int 3) (int -5)");
    CHECK_EXPR("'it''s', E'a\\tb', '', X'CAFE', x''",
               "(str 'it''s') (str 'a\tb') (str '') (blob x'CAFE') (blob x'')");
    CHECK_EXPR("TRUE, false, NULL", "true false null");
    CHECK_EXPR("DATE '1998-12-01', TIMESTAMP '2020-01-01 10:00:00'",
               "(date '1998-12-01') (timestamp '2020-01-01 10:00:00')");
    CHECK_EXPR("INTERVAL '3 days', INTERVAL '3' DAY, interval 3 months, INTERVAL 1.5 hours",
               "(interval '3 days') (interval '3' day) (interval '3' months) (interval '1.5' hours)");
    CHECK_EXPR("date '1998-12-01' - interval '90' day", "(- (date '1998-12-01') (interval '90' day))");
    CHECK_EXPR("date, interval, timestamp", "(col date) (col interval) (col timestamp)"); /* column names */
}

Test(expr, parameters) {
    CHECK_EXPR("?, ?, $5, ?, $1", "(param 1) (param 2) (param 5) (param 6) (param 1)");
    CHECK_ERR("SELECT $0",
              "syntax error at line 1, column 8: parameter \"$0\" is out of range ($1 to $65535)\n"
              "SELECT $0\n       ^");
    CHECK_ERR("SELECT $65536",
              "syntax error at line 1, column 8: parameter \"$65536\" is out of range ($1 to "
              "$65535)\nSELECT $65536\n       ^");
    sql_script s;
    arena a;
    arena_init(&a, 0);
    strata_err err = {0};
    sql_stmt *st;
    const char *sql = "SELECT ?, $3; SELECT 1";
    sql_script_init(&s, sql, strlen(sql));
    cr_assert_eq(sql_script_next(&s, &a, &st, &err), STRATA_OK);
    cr_assert_eq(s.nparams, 3);
    cr_assert_eq(sql_script_next(&s, &a, &st, &err), STRATA_OK);
    cr_assert_eq(s.nparams, 0, "parameters are numbered per statement");
    arena_free(&a);
}

Test(expr, names) {
    CHECK_EXPR("a, t.a, T.A, \"Mixed Case\", \"a\"\"b\", t.\"X\"",
               "(col a) (col t.a) (col t.a) (col \"Mixed Case\") (col \"a\"\"b\") (col t.\"X\")");
    CHECK_EXPR("t.*", "t.*");
    CHECK_EXPR(
        "key, index, view, first, last, nulls, begin, commit, \"select\"",
        "(col key) (col index) (col view) (col first) (col last) (col nulls) (col begin) (col commit) (col "
        "select)");
    CHECK_EXPR("t.from", "(col t.from)"); /* any word after a dot */
}

Test(expr, functions) {
    CHECK_EXPR(
        "count(*), count(DISTINCT x), sum(ALL x), f(), f(1, 'a'), \"MyFunc\"(x)",
        "(func count *) (func count distinct (col x)) (func sum (col x)) (func f) (func f (int 1) (str 'a')) "
        "(func \"MyFunc\" (col x))");
    CHECK_EXPR("coalesce(a, b), nullif(a, 0), lower(e), abs(-1), round(x, 2)",
               "(func coalesce (col a) (col b)) (func nullif (col a) (int 0)) (func lower (col e)) (func abs "
               "(int -1)) "
               "(func round (col x) (int 2))");
    CHECK_EXPR("left(s, 2), right(s, 3)", "(func left (col s) (int 2)) (func right (col s) (int 3))");
    CHECK_EXPR("EXTRACT(year FROM d), extract('Month' from d), EXTRACT(EPOCH FROM t)",
               "(extract year (col d)) (extract month (col d)) (extract epoch (col t))");
    CHECK_EXPR("SUBSTRING(s FROM 2 FOR 3), substring(s from 2), substring(s, 1, 2), SUBSTRING(s FOR 2)",
               "(func substring (col s) (int 2) (int 3)) (func substring (col s) (int 2)) "
               "(func substring (col s) (int 1) (int 2)) (func substring (col s) (int 1) (int 2))");
    CHECK_EXPR(
        "TRIM(s), trim(BOTH 'x' FROM s), TRIM(LEADING FROM s), trim(trailing ' ' from s), trim(s, 'ab')",
        "(func trim (col s)) (func trim (col s) (str 'x')) (func ltrim (col s)) (func rtrim (col s) (str ' "
        "')) "
        "(func trim (col s) (str 'ab'))");
    CHECK_EXPR("substring, trim", "(col substring) (col trim)"); /* names when not called */
}

Test(expr, case_and_cast) {
    CHECK_EXPR("CASE WHEN a THEN 1 WHEN b THEN 2 ELSE 3 END",
               "(case (when (col a) (int 1)) (when (col b) (int 2)) (else (int 3)))");
    CHECK_EXPR("CASE x WHEN 1 THEN 'a' END", "(case (col x) (when (int 1) (str 'a')))");
    CHECK_EXPR("CASE WHEN CASE WHEN a THEN b END THEN 1 END",
               "(case (when (case (when (col a) (col b))) (int 1)))");
    CHECK_EXPR(
        "CAST(a AS DECIMAL(10,2)), a::varchar(20), x::DOUBLE PRECISION, CAST(y AS character varying(3))",
        "(cast (col a) decimal(10,2)) (cast (col a) varchar(20)) (cast (col x) double precision) "
        "(cast (col y) character varying(3))");
    CHECK_EXPR("CAST(a AS \"MyType\")", "(cast (col a) MyType)");
}

Test(expr, predicates) {
    CHECK_EXPR("a IS NULL, a IS NOT NULL, a IS DISTINCT FROM b, a IS NOT DISTINCT FROM b",
               "(is-null (col a)) (is-not-null (col a)) (is-distinct-from (col a) (col b)) "
               "(is-not-distinct-from (col a) (col b))");
    CHECK_EXPR("a BETWEEN 1 AND 2, a NOT BETWEEN b AND c",
               "(between (col a) (int 1) (int 2)) (not-between (col a) (col b) (col c))");
    CHECK_EXPR(
        "a IN (1, 2, 3), a NOT IN ('x'), a IN (SELECT b FROM u), a NOT IN (VALUES (1))",
        "(in (col a) (int 1) (int 2) (int 3)) (not-in (col a) (str 'x')) "
        "(in (col a) (select (cols (col b)) (from (table u)))) (not-in (col a) (values (row (int 1))))");
    CHECK_EXPR("a IN ((SELECT 1), 2)", "(in (col a) (subquery (select (cols (int 1)))) (int 2))");
    CHECK_EXPR("a LIKE 'x%', a NOT LIKE 'y', a ILIKE 'z', a NOT ILIKE 'w' ESCAPE '!'",
               "(like (col a) (str 'x%')) (not-like (col a) (str 'y')) (ilike (col a) (str 'z')) "
               "(not-ilike (col a) (str 'w') (escape (str '!')))");
    CHECK_EXPR("EXISTS (SELECT 1), NOT EXISTS (SELECT * FROM t)",
               "(exists (select (cols (int 1)))) (not (exists (select (cols *) (from (table t)))))");
    CHECK_EXPR("(SELECT max(a) FROM t) + 1",
               "(+ (subquery (select (cols (func max (col a))) (from (table t)))) (int 1))");
    CHECK_EXPR("((SELECT 1))", "(subquery (select (cols (int 1))))");
}

Test(expr, offsets_point_at_the_node) {
    arena a;
    arena_init(&a, 0);
    strata_err err = {0};
    sql_stmt *st;
    const char *sql = "SELECT ab + f(x)  ,\n  -c";
    cr_assert_eq(sql_parse(&a, sql, &st, NULL, &err), STRATA_OK);
    sql_target *t0 = st->select->targets.items[0], *t1 = st->select->targets.items[1];
    cr_assert_eq(t0->expr->off, 10, "a binary node points at its operator");
    cr_assert_eq(t0->expr->binary.left->off, 7);
    cr_assert_eq(t0->expr->binary.right->off, 12);
    cr_assert_eq(((sql_expr *)t0->expr->binary.right->func.args.items[0])->off, 14);
    cr_assert_eq(t1->expr->off, 22);
    cr_assert_eq(st->off, 0);
    cr_assert_eq(st->end, strlen(sql));
    arena_free(&a);
}

/* ---- queries ---- */

Test(select, clauses) {
    CHECK("SELECT DISTINCT t.*, count(*), count(DISTINCT x) AS n, sum(a) total FROM t WHERE a IS NOT NULL "
          "GROUP BY 1, b HAVING count(*) > 1 ORDER BY 2 DESC NULLS LAST, n, x ASC NULLS FIRST LIMIT 10 "
          "OFFSET 5",
          "(select distinct (cols t.* (func count *) (as (func count distinct (col x)) n) (as (func sum (col "
          "a)) "
          "total)) (from (table t)) (where (is-not-null (col a))) (group-by (int 1) (col b)) (having (> "
          "(func count *) "
          "(int 1))) (order-by (desc (int 2) nulls-last) (asc (col n)) (asc (col x) nulls-first)) (limit "
          "(int 10)) "
          "(offset (int 5)))");
    CHECK("SELECT * FROM t", "(select (cols *) (from (table t)))");
    CHECK("select 1", "(select (cols (int 1)))");
    CHECK("SELECT ALL a FROM t OFFSET 2 ROWS LIMIT ALL",
          "(select (cols (col a)) (from (table t)) (offset (int 2)))");
    CHECK("SELECT a FROM t OFFSET 1 LIMIT 2",
          "(select (cols (col a)) (from (table t)) (limit (int 2)) (offset (int 1)))");
    CHECK("SELECT 1 AS select, 2 AS \"Two\", 3 three",
          "(select (cols (as (int 1) select) (as (int 2) \"Two\") (as (int 3) three)))");
    CHECK("SELECT a key FROM t", "(select (cols (as (col a) key)) (from (table t)))");
    CHECK("SELECT * FROM t LIMIT ?", "(select (cols *) (from (table t)) (limit (param 1)))");
}

Test(select, set_operations) {
    CHECK("SELECT 1 UNION SELECT 2", "(union (select (cols (int 1))) (select (cols (int 2))))");
    CHECK("SELECT 1 UNION ALL SELECT 2 UNION DISTINCT SELECT 3",
          "(union (union-all (select (cols (int 1))) (select (cols (int 2)))) (select (cols (int 3))))");
    CHECK("SELECT 1 UNION ALL SELECT 2 EXCEPT SELECT 3 INTERSECT SELECT 4 ORDER BY 1 LIMIT 1",
          "(except (union-all (select (cols (int 1))) (select (cols (int 2)))) (intersect (select (cols (int "
          "3))) "
          "(select (cols (int 4)))) (order-by (asc (int 1))) (limit (int 1)))");
    CHECK("SELECT 1 INTERSECT ALL SELECT 2 EXCEPT ALL SELECT 3",
          "(except-all (intersect-all (select (cols (int 1))) (select (cols (int 2)))) (select (cols (int "
          "3))))");
    CHECK("(SELECT a FROM t ORDER BY a LIMIT 1) UNION (SELECT 2) ORDER BY 1",
          "(union (select (cols (col a)) (from (table t)) (order-by (asc (col a))) (limit (int 1))) (select "
          "(cols "
          "(int 2))) (order-by (asc (int 1))))");
    CHECK("SELECT 1 UNION (SELECT 2 UNION SELECT 3)",
          "(union (select (cols (int 1))) (union (select (cols (int 2))) (select (cols (int 3)))))");
    CHECK("(SELECT 1) LIMIT 3", "(select (cols (int 1)) (limit (int 3)))");
    CHECK("VALUES (1, 'a'), (2, 'b') UNION ALL SELECT 3, 'c'",
          "(union-all (values (row (int 1) (str 'a')) (row (int 2) (str 'b'))) (select (cols (int 3) (str "
          "'c'))))");
}

Test(select, values_and_with) {
    CHECK("VALUES (1, 'a'), (2, NULL)", "(values (row (int 1) (str 'a')) (row (int 2) null))");
    CHECK("VALUES (1) ORDER BY 1", "(values (row (int 1)) (order-by (asc (int 1))))");
    CHECK("WITH x AS (SELECT 1), y (a, b) AS MATERIALIZED (SELECT 1, 2) SELECT * FROM x, y",
          "(select (with (cte x (select (cols (int 1)))) (cte y (columns a b) (select (cols (int 1) (int "
          "2))))) (cols *) "
          "(from (join comma (table x) (table y))))");
    CHECK("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT n FROM r",
          "(select (with recursive (cte r (columns n) (union-all (select (cols (int 1))) (select (cols (+ "
          "(col n) (int "
          "1))) (from (table r)) (where (< (col n) (int 10))))))) (cols (col n)) (from (table r)))");
    CHECK("WITH x AS NOT MATERIALIZED (VALUES (1)) SELECT 1 UNION SELECT 2",
          "(union (with (cte x (values (row (int 1))))) (select (cols (int 1))) (select (cols (int 2))))");
}

Test(select, from_items) {
    CHECK("SELECT * FROM t AS u(a, b), t2 v, (SELECT 1) s, (SELECT 2), generate_series(1, 10, 2) AS g(x), "
          "range(1, 5), (VALUES (1)) v2(a)",
          "(select (cols *) (from (join comma (join comma (join comma (join comma (join comma (join comma "
          "(table t (as "
          "u a b)) (table t2 (as v))) (subquery (select (cols (int 1))) (as s))) (subquery (select (cols "
          "(int 2))))) "
          "(table-func (func generate_series (int 1) (int 10) (int 2)) (as g x))) (table-func (func range "
          "(int 1) "
          "(int 5)))) (subquery (values (row (int 1))) (as v2 a)))))");
    CHECK("SELECT * FROM \"My Table\" \"T\"", "(select (cols *) (from (table \"My Table\" (as \"T\"))))");
}

Test(select, joins) {
    CHECK("SELECT * FROM a JOIN b ON a.x = b.x",
          "(select (cols *) (from (join inner (table a) (table b) (on (= (col a.x) (col b.x))))))");
    CHECK("SELECT * FROM a INNER JOIN b USING (x, y) LEFT JOIN c ON true RIGHT OUTER JOIN d USING (z) "
          "FULL JOIN e ON false CROSS JOIN f NATURAL JOIN g NATURAL LEFT OUTER JOIN h",
          "(select (cols *) (from (join natural-left (join natural-inner (join cross (join full (join right "
          "(join left "
          "(join inner (table a) (table b) (using x y)) (table c) (on true)) (table d) (using z)) (table e) "
          "(on false)) "
          "(table f)) (table g)) (table h))))");
    CHECK("SELECT * FROM a, b JOIN c ON b.x = c.x, d",
          "(select (cols *) (from (join comma (join comma (table a) (join inner (table b) (table c) (on (= "
          "(col b.x) "
          "(col c.x))))) (table d))))");
    CHECK("SELECT * FROM (a JOIN b ON true) JOIN c USING (x)",
          "(select (cols *) (from (join inner (join inner (table a) (table b) (on true)) (table c) (using "
          "x))))");
    CHECK("SELECT * FROM a LEFT JOIN (b JOIN c ON true) ON true",
          "(select (cols *) (from (join left (table a) (join inner (table b) (table c) (on true)) (on "
          "true))))");
    CHECK("SELECT * FROM t1 JOIN generate_series(1, 3) g ON true",
          "(select (cols *) (from (join inner (table t1) (table-func (func generate_series (int 1) (int 3)) "
          "(as g)) (on "
          "true))))");
}

Test(select, tpch_queries) {
    CHECK("select sum(l_extendedprice * l_discount) as revenue from lineitem where l_shipdate >= date "
          "'1994-01-01' "
          "and l_shipdate < date '1994-01-01' + interval '1' year and l_discount between .06 - 0.01 and .06 "
          "+ 0.01 "
          "and l_quantity < 24;",
          "(select (cols (as (func sum (* (col l_extendedprice) (col l_discount))) revenue)) (from (table "
          "lineitem)) "
          "(where (and (and (and (>= (col l_shipdate) (date '1994-01-01')) (< (col l_shipdate) (+ (date "
          "'1994-01-01') (interval '1' year)))) (between (col l_discount) (- (num .06) (num 0.01)) (+ (num "
          ".06) (num "
          "0.01)))) (< (col l_quantity) (int 24)))))");
    const char *queries[] = {
        /* Q1 */
        "select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty, sum(l_extendedprice * (1 - "
        "l_discount) * "
        "(1 + l_tax)) as sum_charge, avg(l_discount) as avg_disc, count(*) as count_order from lineitem "
        "where "
        "l_shipdate <= date '1998-12-01' - interval '90' day group by l_returnflag, l_linestatus order by "
        "l_returnflag, l_linestatus",
        /* Q9 */
        "select nation, o_year, sum(amount) as sum_profit from (select n_name as nation, extract(year from "
        "o_orderdate) as o_year, l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity as amount "
        "from "
        "part, supplier, lineitem, partsupp, orders, nation where s_suppkey = l_suppkey and ps_suppkey = "
        "l_suppkey "
        "and p_name like '%green%') as profit group by nation, o_year order by nation, o_year desc",
        /* Q13 */
        "select c_count, count(*) as custdist from (select c_custkey, count(o_orderkey) from customer left "
        "outer "
        "join orders on c_custkey = o_custkey and o_comment not like '%special%requests%' group by "
        "c_custkey) as "
        "c_orders (c_custkey, c_count) group by c_count order by custdist desc, c_count desc",
        /* Q15's view */
        "create view revenue0 (supplier_no, total_revenue) as select l_suppkey, sum(l_extendedprice * (1 - "
        "l_discount)) from lineitem where l_shipdate >= date '1996-01-01' and l_shipdate < date '1996-01-01' "
        "+ "
        "interval '3' month group by l_suppkey",
        /* Q21 */
        "select s_name, count(*) as numwait from supplier, lineitem l1, orders, nation where s_suppkey = "
        "l1.l_suppkey and exists (select * from lineitem l2 where l2.l_orderkey = l1.l_orderkey and "
        "l2.l_suppkey "
        "<> l1.l_suppkey) and not exists (select * from lineitem l3 where l3.l_orderkey = l1.l_orderkey and "
        "l3.l_receiptdate > l3.l_commitdate) group by s_name order by numwait desc, s_name limit 100",
        /* Q22 */
        "select cntrycode, count(*) as numcust, sum(c_acctbal) as totacctbal from (select substring(c_phone "
        "from 1 "
        "for 2) as cntrycode, c_acctbal from customer where substring(c_phone from 1 for 2) in ('13', '31', "
        "'23') "
        "and c_acctbal > (select avg(c_acctbal) from customer where c_acctbal > 0.00) and not exists (select "
        "* from "
        "orders where o_custkey = c_custkey)) as custsale group by cntrycode order by cntrycode",
    };
    for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++)
        cr_assert(strncmp(parse(queries[i]), "error", 5) != 0, "query %zu: %s", i, printed);
}

/* ---- data changes ---- */

Test(dml, insert) {
    CHECK("INSERT INTO t VALUES (1, 'a'), (2, DEFAULT)",
          "(insert t (values (row (int 1) (str 'a')) (row (int 2) default)))");
    CHECK("INSERT INTO t (a, \"B\") SELECT * FROM u",
          "(insert t (columns a \"B\") (select (cols *) (from (table u))))");
    CHECK("INSERT INTO t DEFAULT VALUES", "(insert t default-values)");
    CHECK("INSERT INTO t AS x (SELECT 1)", "(insert t (as x) (select (cols (int 1))))");
    CHECK("INSERT INTO t WITH w AS (SELECT 1) SELECT * FROM w",
          "(insert t (select (with (cte w (select (cols (int 1))))) (cols *) (from (table w))))");
    CHECK("INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING",
          "(insert t (values (row (int 1))) (on-conflict do-nothing))");
    CHECK("INSERT INTO t (a, b) VALUES (?, ?) ON CONFLICT (a) DO UPDATE SET b = excluded.b + 1, c = DEFAULT "
          "WHERE t.b < 5 RETURNING *, a AS x",
          "(insert t (columns a b) (values (row (param 1) (param 2))) (on-conflict (columns a) (do-update "
          "(set (b (+ "
          "(col excluded.b) (int 1))) (c default)) (where (< (col t.b) (int 5))))) (returning * (as (col a) "
          "x)))");
    CHECK("INSERT INTO t SELECT 1 ON CONFLICT (a, b) DO NOTHING RETURNING a",
          "(insert t (select (cols (int 1))) (on-conflict (columns a b) do-nothing) (returning (col a)))");
}

Test(dml, update_and_delete) {
    CHECK("UPDATE t SET a = a + 1", "(update t (set (a (+ (col a) (int 1)))))");
    CHECK("UPDATE t AS x SET a = 1, b = DEFAULT FROM u, v WHERE x.id = u.id RETURNING a, b * 2",
          "(update t (as x) (set (a (int 1)) (b default)) (from (join comma (table u) (table v))) (where (= "
          "(col x.id) "
          "(col u.id))) (returning (col a) (* (col b) (int 2))))");
    CHECK("UPDATE t x SET a = 1", "(update t (as x) (set (a (int 1))))");
    CHECK("DELETE FROM t", "(delete t)");
    CHECK("DELETE FROM t AS u WHERE u.a > 1 RETURNING *",
          "(delete t (as u) (where (> (col u.a) (int 1))) (returning *))");
}

/* ---- definitions ---- */

Test(ddl, create_table) {
    CHECK("CREATE TABLE t (a INTEGER)", "(create-table t (column a integer))");
    CHECK("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL UNIQUE, "
          "price DECIMAL(10,2) DEFAULT 0.0 CHECK (price >= 0), c INT CONSTRAINT fk REFERENCES u(id), d TEXT "
          "NULL, "
          "e BIGINT REFERENCES v, f DOUBLE PRECISION DEFAULT -1 NOT NULL, "
          "PRIMARY KEY (id, name), CONSTRAINT uq UNIQUE (name), CHECK (id > 0), "
          "FOREIGN KEY (c, d) REFERENCES u (x, y), CONSTRAINT f2 FOREIGN KEY (e) REFERENCES v)",
          "(create-table if-not-exists t (column id integer primary-key) (column name varchar(20) not-null "
          "unique) "
          "(column price decimal(10,2) (default (num 0.0)) (check (>= (col price) (int 0)))) (column c int "
          "(constraint fk (references u id))) (column d text null) (column e bigint (references v)) (column "
          "f double "
          "precision (default (int -1)) not-null) (primary-key id name) (constraint uq (unique name)) (check "
          "(> (col "
          "id) (int 0))) (foreign-key (c d) (references u x y)) (constraint f2 (foreign-key (e) (references "
          "v))))");
    CHECK("CREATE TABLE t (d DATE DEFAULT DATE '2000-01-01', s TEXT DEFAULT 'x' || 'y', b BOOLEAN DEFAULT "
          "true)",
          "(create-table t (column d date (default (date '2000-01-01'))) (column s text (default (|| (str "
          "'x') (str "
          "'y')))) (column b boolean (default true)))");
    CHECK("CREATE TABLE t2 AS SELECT * FROM t", "(create-table t2 (as (select (cols *) (from (table t)))))");
    CHECK("CREATE TABLE \"Key\" (key INT, \"Select\" INT)",
          "(create-table \"Key\" (column key int) (column \"Select\" int))");
}

Test(ddl, indexes_views_drop_alter) {
    CHECK("CREATE INDEX i ON t (a)", "(create-index i t (asc (col a)))");
    CHECK("CREATE UNIQUE INDEX IF NOT EXISTS i ON t (lower(e), b DESC, (a + b))",
          "(create-index unique if-not-exists i t (asc (func lower (col e))) (desc (col b)) (asc (+ (col a) "
          "(col b))))");
    CHECK("CREATE VIEW v AS SELECT a FROM t", "(create-view v (select (cols (col a)) (from (table t))))");
    CHECK("CREATE VIEW IF NOT EXISTS v (x, y) AS SELECT 1, 2 UNION SELECT 3, 4",
          "(create-view if-not-exists v (columns x y) (union (select (cols (int 1) (int 2))) (select (cols "
          "(int 3) (int "
          "4)))))");
    CHECK("DROP TABLE t", "(drop-table t)");
    CHECK("DROP TABLE IF EXISTS a, b", "(drop-table if-exists a b)");
    CHECK("DROP INDEX i", "(drop-index i)");
    CHECK("DROP VIEW IF EXISTS v", "(drop-view if-exists v)");
    CHECK("ALTER TABLE t ADD COLUMN c INT NOT NULL DEFAULT 0",
          "(alter-table t (add-column (column c int not-null (default (int 0)))))");
    CHECK("ALTER TABLE t ADD d TEXT", "(alter-table t (add-column (column d text)))");
    CHECK("ALTER TABLE t ADD COLUMN IF NOT EXISTS d TEXT",
          "(alter-table t (add-column if-not-exists (column d text)))");
    CHECK("ALTER TABLE t DROP COLUMN c", "(alter-table t (drop-column c))");
    CHECK("ALTER TABLE t DROP IF EXISTS c", "(alter-table t (drop-column if-exists c))");
    CHECK("ALTER TABLE t RENAME COLUMN a TO b", "(alter-table t (rename-column a b))");
    CHECK("ALTER TABLE t RENAME a TO b", "(alter-table t (rename-column a b))");
    CHECK("ALTER TABLE t RENAME TO t2", "(alter-table t (rename-to t2))");
}

Test(ddl, view_keeps_its_query_text) {
    arena a;
    arena_init(&a, 0);
    strata_err err = {0};
    sql_stmt *st;
    const char *sql = "CREATE VIEW v AS SELECT a  FROM t -- x\n;";
    cr_assert_eq(sql_parse(&a, sql, &st, NULL, &err), STRATA_OK);
    cr_assert_eq(st->end - st->off, strlen("CREATE VIEW v AS SELECT a  FROM t"));
    size_t n = st->create_view.query_end - st->create_view.query_off;
    cr_assert_eq(n, strlen("SELECT a  FROM t"));
    cr_assert_eq(strncmp(sql + st->create_view.query_off, "SELECT a  FROM t", n), 0);
    arena_free(&a);
}

/* ---- other statements ---- */

Test(misc, transactions_and_utilities) {
    const char *begins[] = {"BEGIN", "BEGIN TRANSACTION", "begin work", "START TRANSACTION"};
    for (int i = 0; i < 4; i++)
        CHECK(begins[i], "(begin)");
    const char *commits[] = {"COMMIT", "COMMIT TRANSACTION", "END", "END TRANSACTION", "commit work"};
    for (int i = 0; i < 5; i++)
        CHECK(commits[i], "(commit)");
    CHECK("ROLLBACK", "(rollback)");
    CHECK("ROLLBACK TRANSACTION", "(rollback)");
    CHECK("CHECKPOINT", "(checkpoint)");
    CHECK("ANALYZE", "(analyze)");
    CHECK("ANALYZE orders", "(analyze orders)");
    CHECK("EXPLAIN SELECT 1", "(explain (select (cols (int 1))))");
    CHECK("EXPLAIN ANALYZE SELECT * FROM t", "(explain analyze (select (cols *) (from (table t))))");
    CHECK("EXPLAIN DELETE FROM t", "(explain (delete t))");
    CHECK("SET threads = 4", "(set threads (int 4))");
    CHECK("SET search_path TO main", "(set search_path (col main))");
    CHECK("SET enable_x = on", "(set enable_x (col on))");
    CHECK("SET memory_limit = '1GB'", "(set memory_limit (str '1GB'))");
    CHECK("PRAGMA integrity_check", "(pragma integrity_check)");
    CHECK("PRAGMA threads = 4", "(pragma threads (int 4))");
    CHECK("PRAGMA table_info('t')", "(pragma table_info (str 't'))");
}

Test(misc, copy) {
    CHECK("COPY t FROM 'x.csv'", "(copy t from 'x.csv')");
    CHECK("COPY t FROM 'x.csv' (FORMAT csv, HEADER, DELIMITER '|', NULL 'NA', QUOTE '\"')",
          "(copy t from 'x.csv' (options (format (col csv)) (header) (delimiter (str '|')) (null (str 'NA')) "
          "(quote "
          "(str '\"'))))");
    CHECK("COPY t (a, b) TO 'out.csv' WITH (HEADER true, FORMAT 'csv')",
          "(copy t (columns a b) to 'out.csv' (options (header true) (format (str 'csv'))))");
    CHECK("COPY (SELECT * FROM t) TO 'o.csv'", "(copy (select (cols *) (from (table t))) to 'o.csv')");
}

/* ---- scripts and tails ---- */

Test(script, tail_points_after_the_statement) {
    arena a;
    arena_init(&a, 0);
    strata_err err = {0};
    sql_stmt *st;
    const char *sql = "SELECT 1; SELECT 2 ;\n", *tail;
    cr_assert_eq(sql_parse(&a, sql, &st, &tail, &err), STRATA_OK);
    cr_assert_not_null(st);
    cr_assert_eq(tail, sql + 9);
    cr_assert_eq(sql_parse(&a, tail, &st, &tail, &err), STRATA_OK);
    cr_assert_eq(st->select->targets.n, 1);
    cr_assert_eq(tail, sql + 20);
    cr_assert_eq(sql_parse(&a, tail, &st, &tail, &err), STRATA_OK);
    cr_assert_null(st, "only white space is left");
    cr_assert_eq(tail, sql + strlen(sql));
    CHECK("", "(none)");
    CHECK(" ;; -- nothing\n /* here */ ;", "(none)");
    CHECK(";;SELECT 1", "(select (cols (int 1)))");
    arena_free(&a);
}

Test(script, positions_count_from_the_start_of_the_script) {
    arena a;
    arena_init(&a, 0);
    strata_err err = {0};
    sql_stmt *st;
    const char *sql = "SELECT 1;\nSELECT 2;;\n\nSELECT * FORM t;";
    sql_script s;
    sql_script_init(&s, sql, strlen(sql));
    cr_assert_eq(sql_script_next(&s, &a, &st, &err), STRATA_OK);
    cr_assert_eq(sql_script_next(&s, &a, &st, &err), STRATA_OK);
    cr_assert_eq(st->off, 10);
    cr_assert_eq(sql_script_next(&s, &a, &st, &err), STRATA_ERROR);
    cr_assert_str_eq(err.msg, "syntax error at line 4, column 10: expected end of statement, found \"FORM\"\n"
                              "SELECT * FORM t;\n         ^");
    cr_assert_null(st);
    arena_free(&a);
}

Test(script, text_need_not_be_nul_terminated) {
    arena a;
    arena_init(&a, 0);
    strata_err err = {0};
    sql_stmt *st;
    const char *full = "SELECT 12345";
    char *buf = malloc(9); /* "SELECT 12" without a NUL */
    memcpy(buf, full, 9);
    sql_script s;
    sql_script_init(&s, buf, 9);
    cr_assert_eq(sql_script_next(&s, &a, &st, &err), STRATA_OK);
    cr_assert_eq(((sql_target *)st->select->targets.items[0])->expr->integer, 12);
    cr_assert_eq(sql_script_next(&s, &a, &st, &err), STRATA_OK);
    cr_assert_null(st);
    free(buf);
    arena_free(&a);
}

/* ---- errors ---- */

Test(errors, positioned_messages) {
    CHECK_ERR("SELECT\n  a,\nFROM t",
              "syntax error at line 3, column 1: expected an expression, found \"FROM\"\n"
              "FROM t\n^");
    CHECK_ERR("SELECT a\n  FROM t\n WHERE FROM",
              "syntax error at line 3, column 8: expected an expression, found "
              "\"FROM\"\n WHERE FROM\n       ^");
    CHECK_ERR("SELECT FROM t", "syntax error at line 1, column 8: expected an expression, found \"FROM\"\n"
                               "SELECT FROM t\n       ^");
    CHECK_ERR("SELECT * FROM",
              "syntax error at line 1, column 14: expected a table name, found end of input\n"
              "SELECT * FROM\n             ^");
    CHECK_ERR("SELECT (1",
              "syntax error at line 1, column 10: expected \")\", found end of input\nSELECT (1\n         ^");
    CHECK_ERR("SELECT (1;",
              "syntax error at line 1, column 10: expected \")\", found \";\"\nSELECT (1;\n         ^");
    CHECK_ERR("SELECT 1 2", "syntax error at line 1, column 10: expected end of statement, found \"2\"\n"
                            "SELECT 1 2\n         ^");
    CHECK_ERR("INSERT INTO t VALUES (1,)",
              "syntax error at line 1, column 25: expected an expression, found \")\"\n"
              "INSERT INTO t VALUES (1,)\n                        ^");
    CHECK_ERR("CREATE TABLE t (a)", "syntax error at line 1, column 18: expected a type name, found \")\"\n"
                                    "CREATE TABLE t (a)\n                 ^");
    CHECK_ERR("SELECT * FROM a JOIN b",
              "syntax error at line 1, column 23: expected ON or USING after the joined "
              "table, found end of input\nSELECT * FROM a JOIN b\n                      ^");
    CHECK_ERR("SELECT a FROM t GROUP a", "syntax error at line 1, column 23: expected BY, found \"a\"\n"
                                         "SELECT a FROM t GROUP a\n                      ^");
    CHECK_ERR("foo bar",
              "syntax error at line 1, column 1: expected a statement such as SELECT, INSERT or CREATE, "
              "found \"foo\"\nfoo bar\n^");
    CHECK_ERR("SELECT * FROM t AS from",
              "syntax error at line 1, column 20: expected an alias, found \"from\"\n"
              "SELECT * FROM t AS from\n                   ^");
    CHECK_ERR("SELECT CASE END", "syntax error at line 1, column 13: expected WHEN, found \"END\"\n"
                                 "SELECT CASE END\n            ^");
    CHECK_ERR("SELECT CAST(a AS)", "syntax error at line 1, column 17: expected a type name, found \")\"\n"
                                   "SELECT CAST(a AS)\n                ^");
    CHECK_ERR("UPDATE t SET WHERE",
              "syntax error at line 1, column 14: expected a column name, found \"WHERE\"\n"
              "UPDATE t SET WHERE\n             ^");
    CHECK_ERR("CREATE UNIQUE TABLE t", "syntax error at line 1, column 15: expected INDEX, found \"TABLE\"\n"
                                       "CREATE UNIQUE TABLE t\n              ^");
    CHECK_ERR("SELECT INTERVAL 3",
              "syntax error at line 1, column 18: expected an interval unit such as DAY, found "
              "end of input\nSELECT INTERVAL 3\n                 ^");
    CHECK_ERR("SELECT DISTINCT ON (a) a", "syntax error at line 1, column 17: DISTINCT ON is not supported\n"
                                          "SELECT DISTINCT ON (a) a\n                ^");
    CHECK_ERR("SELECT 1 LIMIT 1 LIMIT 2",
              "syntax error at line 1, column 18: a query cannot have two LIMIT clauses\n"
              "SELECT 1 LIMIT 1 LIMIT 2\n                 ^");
    CHECK_ERR("(SELECT 1 ORDER BY 1) ORDER BY 1",
              "syntax error at line 1, column 23: a query cannot have two ORDER "
              "BY clauses\n(SELECT 1 ORDER BY 1) ORDER BY 1\n                      ^");
    CHECK_ERR("COPY (SELECT 1) FROM 'x'",
              "syntax error at line 1, column 17: expected TO (a query can only be copied "
              "to a file), found \"FROM\"\nCOPY (SELECT 1) FROM 'x'\n                ^");
    CHECK_ERR("CREATE TABLE t (a INT CONSTRAINT c)",
              "syntax error at line 1, column 35: expected a constraint after "
              "CONSTRAINT name, found \")\"\nCREATE TABLE t (a INT CONSTRAINT "
              "c)\n                                  ^");
    CHECK_ERR("SELECT * FROM a NATURAL CROSS JOIN b",
              "syntax error at line 1, column 25: expected JOIN, found "
              "\"CROSS\"\nSELECT * FROM a NATURAL CROSS JOIN b\n"
              "                        ^");
}

Test(errors, lexical_errors_are_positioned) {
    CHECK_ERR("SELECT 'abc",
              "syntax error at line 1, column 8: unterminated string literal\nSELECT 'abc\n       ^");
    CHECK_ERR("SELECT 1 /* x\n y",
              "syntax error at line 1, column 10: unterminated /* comment\nSELECT 1 /* x\n"
              "         ^");
    CHECK_ERR("SELECT 1abc",
              "syntax error at line 1, column 9: trailing junk after numeric literal\nSELECT 1abc\n"
              "        ^");
    CHECK_ERR("SELECT\n\tE'x\\uZZZZ'",
              "syntax error at line 2, column 5: invalid escape sequence in E'' string\n"
              "\tE'x\\uZZZZ'\n\t   ^");
    CHECK_ERR("SELECT é @",
              "syntax error at line 1, column 10: unexpected character\nSELECT é @\n         ^");
    CHECK_ERR("SELECT 1 'unterminated", "syntax error at line 1, column 10: unterminated string literal\n"
                                        "SELECT 1 'unterminated\n         ^");
}

Test(errors, control_characters_and_long_tokens) {
    /* a NUL or other control byte in the text shows as a space; a long token is shortened */
    char sql[] = "SELECT 1 +\x01";
    CHECK_ERR(sql, "syntax error at line 1, column 11: unexpected character\nSELECT 1 + \n          ^");
    char sql2[128] = "SELECT 1 '", want[128] = "found \"'";
    for (int i = 0; i < 70; i++)
        strcat(sql2, "a");
    strcat(sql2, "'");
    for (int i = 0; i < 57; i++)
        strcat(want, "a");
    strcat(want, "...\"\n");
    const char *got = parse(sql2);
    cr_assert(strstr(got, "syntax error at line 1, column 10: expected end of statement, ") != NULL, "%s",
              got);
    cr_assert(strstr(got, want) != NULL, "%s", got);
}

Test(errors, long_lines_show_a_window) {
    char sql[512] = "SELECT ";
    for (int i = 0; i < 30; i++)
        strcat(sql, "aaaa + ");
    strcat(sql, "FROM");
    for (int i = 0; i < 30; i++)
        strcat(sql, " bbbb");
    const char *got = parse(sql), *head =
                                      "error 1: syntax error at line 1, column 218: expected an expression, "
                                      "found \"FROM\"\n...";
    cr_assert(strncmp(got, head, strlen(head)) == 0, "%s", got);
    const char *line = strchr(got, '\n') + 1, *caret = strchr(line, '\n') + 1;
    size_t line_len = (size_t)(caret - 1 - line);
    const char *from = strstr(line, "FROM");
    cr_assert_eq(caret[from - line], '^', "the caret is under FROM:\n%s", got);
    cr_assert_eq(strlen(caret), (size_t)(from - line) + 1);
    cr_assert(line_len < 140 && strncmp(line + line_len - 3, "...", 3) == 0,
              "the line is cut around the error");
}

Test(errors, first_error_is_kept) {
    arena a;
    arena_init(&a, 0);
    strata_err err = {0};
    sql_stmt *st;
    err_set(&err, STRATA_IOERR, "earlier failure");
    cr_assert_eq(sql_parse(&a, "SELECT (", &st, NULL, &err), STRATA_ERROR);
    cr_assert_eq(err.code, STRATA_IOERR);
    cr_assert_str_eq(err.msg, "earlier failure");
    cr_assert_eq(sql_parse(&a, "SELECT (", &st, NULL, NULL), STRATA_ERROR, "err may be NULL");
    arena_free(&a);
}

Test(errors, sql_error_at_for_the_binder) {
    strata_err err = {0};
    const char *sql = "SELECT nme\n  FROM t";
    cr_assert_eq(sql_error_at(&err, STRATA_ERROR, sql, strlen(sql), 7, "binder error",
                              "column \"%s\" does not exist; did you mean \"%s\"?", "nme", "name"),
                 STRATA_ERROR);
    cr_assert_str_eq(err.msg, "binder error at line 1, column 8: column \"nme\" does not exist; did you mean "
                              "\"name\"?\nSELECT nme\n       ^");
    err_clear(&err);
    sql_error_at(&err, STRATA_ERROR, sql, strlen(sql), 1000, NULL, "past the end");
    cr_assert_str_eq(err.msg, "line 2, column 9: past the end\n  FROM t\n        ^");
}

/* ---- nesting ---- */

/* repeat returns head, n times unit, mid, n times tail_unit (malloc'd). */
static char *repeat(const char *head, const char *unit, int n, const char *mid, const char *tail_unit) {
    size_t lu = strlen(unit), lt = strlen(tail_unit);
    char *s = malloc(strlen(head) + (lu + lt) * (size_t)n + strlen(mid) + 1), *o = s;
    o = stpcpy(o, head);
    for (int i = 0; i < n; i++)
        o = memcpy(o, unit, lu), o += lu;
    o = stpcpy(o, mid);
    for (int i = 0; i < n; i++)
        o = memcpy(o, tail_unit, lt), o += lt;
    *o = '\0';
    return s;
}

Test(nesting, depth_is_limited_without_crashing) {
    struct {
        const char *head, *unit, *mid, *tail;
        int ok, bad;
    } cases[] = {
        {"SELECT ", "(", "1", ")", 900, 1000},
        {"SELECT ", "NOT ", "x", "", 900, 1000},
        {"SELECT ", "- ", "x", "", 900, 1000},
        {"SELECT 1", " + 1", "", "", 900, 1000},
        {"SELECT x", "::int", "", "", 900, 1000},
        {"SELECT ", "(SELECT ", "1", ")", 300, 1000},
        {"SELECT ", "CASE WHEN ", "1", " THEN 1 END", 450, 1000},
        {"SELECT ", "f(", "1", ")", 450, 1000},
        {"SELECT 1", " UNION SELECT 1", "", "", 900, 1000},
        {"SELECT * FROM t", " JOIN t ON true", "", "", 900, 1000},
        {"SELECT * FROM t", ", t", "", "", 900, 1000},
        {"SELECT * FROM ", "(", "t", ")", 900, 1000},
        {"", "EXPLAIN ", "SELECT 1", "", 900, 1000},
        {"SELECT ", "(", "1", ")", 0, 200000}, /* far beyond: still an error, not a stack overflow */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].ok > 0) {
            char *sql = repeat(cases[i].head, cases[i].unit, cases[i].ok, cases[i].mid, cases[i].tail);
            cr_assert(strncmp(parse(sql), "error", 5) != 0, "%s%s... x %d failed: %.300s", cases[i].head,
                      cases[i].unit, cases[i].ok, printed);
            free(sql);
        }
        char *sql = repeat(cases[i].head, cases[i].unit, cases[i].bad, cases[i].mid, cases[i].tail);
        const char *got = parse(sql);
        cr_assert(strstr(got, "the statement is nested too deeply (more than 1000 levels)") != NULL,
                  "%s%s... x %d: %.200s", cases[i].head, cases[i].unit, cases[i].bad, got);
        free(sql);
    }
}
