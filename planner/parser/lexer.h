/*
** lexer.h -- the tokens of strata's SQL dialect (PostgreSQL's, as DuckDB follows).
**
** The lexer turns a byte range of SQL text into tokens, one at a time and on demand; it never
** allocates and never reads outside [0, len) of the text, which need not be NUL-terminated.
** Each token is a kind plus its place in the text (byte offset, length, line and column); the
** text is decoded only when the parser asks for it (sql_token_ident, sql_token_string), into
** the statement's arena.
**
** Identifiers: unquoted ones may be keywords (recognized case-insensitively, sql_token.keyword)
** and are folded to lower case when decoded; "quoted" ones keep their case and spelling, "" is
** a quote. Literals: integers, decimals (1.5, .5, 1.), floats (1e10), 'strings' with '' for a
** quote, E'strings' with backslash escapes, X'0aFF' blobs. Placeholders ? and $n. Comments
** -- to the end of the line and (nested) block comments are skipped like white space.
**
** A malformed token (an unterminated string, a stray character) is a TK_ERROR token whose
** offset points at the problem and whose `error` says what it is; the parser reports it.
** The lexer is not a parser: it does not know which keywords are allowed where.
*/
#ifndef STRATA_LEXER_H
#define STRATA_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"

// clang-format off
typedef enum sql_token_kind {
    TK_EOF,      /* end of the text, or a ';' was returned and the lexer stopped */
    TK_ERROR,    /* a malformed token; see sql_token.error */
    TK_IDENT,    /* an unquoted identifier or keyword */
    TK_QIDENT,   /* a "quoted identifier" */
    TK_INTEGER,  /* 42 */
    TK_DECIMAL,  /* 1.5, .5, 1. */
    TK_FLOAT,    /* 1e10, 2.5E-3 */
    TK_STRING,   /* 'text' */
    TK_ESTRING,  /* E'text with \n escapes' */
    TK_BLOB,     /* X'ABCD' */
    TK_PARAM,    /* ? or $n */
    TK_PLUS, TK_MINUS, TK_STAR, TK_SLASH, TK_PERCENT,
    TK_EQ, TK_NE, TK_LT, TK_LE, TK_GT, TK_GE, /* TK_NE is <> and != */
    TK_CONCAT,   /* || */
    TK_CAST,     /* :: */
    TK_LPAREN, TK_RPAREN, TK_COMMA, TK_DOT, TK_SEMI
} sql_token_kind;

/* The keywords, in alphabetical order (the lookup is a binary search). A reserved keyword can
** only be used as a name when quoted; an unreserved one is an identifier wherever the grammar
** does not expect that keyword. Words the parser recognizes only in one place (DATE, INTERVAL,
** EXTRACT, SUBSTRING, type names, interval units) are plain identifiers, not keywords. */
#define SQL_KEYWORDS(X)                                                                                 \
    X(ADD, "add", 0) X(ALL, "all", 1) X(ALTER, "alter", 0) X(ANALYZE, "analyze", 0) X(AND, "and", 1)    \
    X(AS, "as", 1) X(ASC, "asc", 1)                                                                     \
    X(BEGIN, "begin", 0) X(BETWEEN, "between", 1) X(BOTH, "both", 1) X(BY, "by", 0)                     \
    X(CASE, "case", 1) X(CAST, "cast", 1) X(CHECK, "check", 1) X(CHECKPOINT, "checkpoint", 0)           \
    X(COLUMN, "column", 1) X(COMMIT, "commit", 0) X(CONFLICT, "conflict", 0)                            \
    X(CONSTRAINT, "constraint", 1) X(COPY, "copy", 0) X(CREATE, "create", 1) X(CROSS, "cross", 1)       \
    X(DEFAULT, "default", 1) X(DELETE, "delete", 0) X(DESC, "desc", 1) X(DISTINCT, "distinct", 1)       \
    X(DO, "do", 1) X(DROP, "drop", 0)                                                                   \
    X(ELSE, "else", 1) X(END, "end", 1) X(ESCAPE, "escape", 0) X(EXCEPT, "except", 1)                   \
    X(EXISTS, "exists", 0) X(EXPLAIN, "explain", 0)                                                     \
    X(FALSE, "false", 1) X(FETCH, "fetch", 1) X(FIRST, "first", 0) X(FOR, "for", 1)                     \
    X(FOREIGN, "foreign", 1) X(FROM, "from", 1) X(FULL, "full", 1)                                      \
    X(GROUP, "group", 1)                                                                                \
    X(HAVING, "having", 1)                                                                              \
    X(IF, "if", 0) X(ILIKE, "ilike", 1) X(IN, "in", 1) X(INDEX, "index", 0) X(INNER, "inner", 1)        \
    X(INSERT, "insert", 0) X(INTERSECT, "intersect", 1) X(INTO, "into", 1) X(IS, "is", 1)               \
    X(JOIN, "join", 1)                                                                                  \
    X(KEY, "key", 0)                                                                                    \
    X(LAST, "last", 0) X(LEADING, "leading", 1) X(LEFT, "left", 1) X(LIKE, "like", 1)                   \
    X(LIMIT, "limit", 1)                                                                                \
    X(MATERIALIZED, "materialized", 0)                                                                  \
    X(NATURAL, "natural", 1) X(NOT, "not", 1) X(NOTHING, "nothing", 0) X(NULL, "null", 1)               \
    X(NULLS, "nulls", 0)                                                                                \
    X(OFFSET, "offset", 1) X(ON, "on", 1) X(OR, "or", 1) X(ORDER, "order", 1) X(OUTER, "outer", 1)      \
    X(PRAGMA, "pragma", 0) X(PRIMARY, "primary", 1)                                                     \
    X(RECURSIVE, "recursive", 0) X(REFERENCES, "references", 1) X(RENAME, "rename", 0)                  \
    X(RETURNING, "returning", 1) X(RIGHT, "right", 1) X(ROLLBACK, "rollback", 0) X(ROW, "row", 0)       \
    X(ROWS, "rows", 0)                                                                                  \
    X(SELECT, "select", 1) X(SET, "set", 1) X(START, "start", 0)                                        \
    X(TABLE, "table", 1) X(THEN, "then", 1) X(TO, "to", 1) X(TRAILING, "trailing", 1)                   \
    X(TRANSACTION, "transaction", 0) X(TRUE, "true", 1)                                                 \
    X(UNION, "union", 1) X(UNIQUE, "unique", 1) X(UPDATE, "update", 0) X(USING, "using", 1)             \
    X(VACUUM, "vacuum", 0) X(VALUES, "values", 1) X(VIEW, "view", 0)                                                           \
    X(WHEN, "when", 1) X(WHERE, "where", 1) X(WINDOW, "window", 1) X(WITH, "with", 1)                   \
    X(WORK, "work", 0)

typedef enum sql_keyword {
    KW_NONE,
#define SQL_KW_ENUM(id, text, reserved) KW_##id,
    SQL_KEYWORDS(SQL_KW_ENUM)
#undef SQL_KW_ENUM
    KW_COUNT_
} sql_keyword;
// clang-format on

typedef struct sql_token {
    sql_token_kind kind;
    sql_keyword keyword; /* TK_IDENT: the keyword it spells, or KW_NONE */
    size_t off, len;     /* the token's bytes in the text (for TK_ERROR: where the problem is) */
    int line, col;       /* 1-based; col counts characters (UTF-8 code points), not bytes */
    const char *error;   /* TK_ERROR: a static description ("unterminated string literal") */
} sql_token;

typedef struct sql_lexer {
    const char *src;
    size_t len;
    size_t pos;      /* the next byte to examine */
    int line;        /* line of pos */
    size_t line_off; /* offset of the first byte of that line */
    size_t col_off;  /* a position on that line whose column is col (columns counted lazily) */
    int col;
    bool stopped; /* a ';' was returned: TK_EOF until sql_lexer_resume */
} sql_lexer;

/* sql_lexer_init prepares to read src[0, len) from the start. The text is not copied: it must
** outlive the lexer and the tokens. */
void sql_lexer_init(sql_lexer *lx, const char *src, size_t len);

/* sql_lexer_next stores the next token in *tok. After a TK_SEMI it returns TK_EOF (at the
** position after the ';') until sql_lexer_resume, so that a statement's lookahead never reaches
** into the next statement. At the end of the text it keeps returning TK_EOF. */
void sql_lexer_next(sql_lexer *lx, sql_token *tok);

/* sql_lexer_resume lets the lexer continue past the ';' it stopped at. */
void sql_lexer_resume(sql_lexer *lx);

/* sql_keyword_lookup returns the keyword spelled by s[0, n) in any case, or KW_NONE. */
sql_keyword sql_keyword_lookup(const char *s, size_t n);
/* sql_keyword_text returns a keyword's lower-case spelling ("" for KW_NONE). */
const char *sql_keyword_text(sql_keyword kw);
/* sql_keyword_reserved tells whether a keyword can only be a name when quoted. */
bool sql_keyword_reserved(sql_keyword kw);

/* sql_token_ident returns the name a TK_IDENT (folded to lower case) or TK_QIDENT (unquoted,
** "" turned into ") spells, NUL-terminated in the arena; NULL when the arena is out of memory. */
char *sql_token_ident(arena *a, const char *src, const sql_token *tok);

/* sql_token_string returns the value of a TK_STRING, TK_ESTRING (escapes decoded) or TK_BLOB
** (the bytes) in the arena, NUL-terminated, with its length in *len; NULL when the arena is out
** of memory. The lexer has validated the token, so decoding cannot otherwise fail. */
char *sql_token_string(arena *a, const char *src, const sql_token *tok, size_t *len);

#endif
