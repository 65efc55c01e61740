/*
** sqlscan.h -- where a statement ends, for a shell that reads SQL a line at a time.
**
** The shell needs to know, before it parses anything, whether the text it has collected ends
** with a complete statement: a ';' outside string literals, quoted identifiers and comments,
** followed by nothing but white space and comments. The scanner keeps its state between lines,
** so a long statement is scanned once, not once per line. It knows the lexical forms of
** strata's SQL (planner/parser/lexer.c): 'strings' with '' doubled, E'strings' with backslash
** escapes, "identifiers" with "" doubled, -- line comments and nested block comments. It does
** not parse: whether the statement is valid is strata_prepare's business.
**
** sql_quote writes text in those lexical forms: a quoted identifier or a string literal.
*/
#ifndef STRATA_CLI_SQLSCAN_H
#define STRATA_CLI_SQLSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct sql_scanner {
    int state;          /* where the last byte left us: code, a literal, a comment */
    int comment_depth;  /* nesting of block comments */
    int prev;           /* the previous byte, for two-byte tokens (--, block comment marks, '') */
    int word;           /* length of the name or number that ends at prev, to tell E'..' */
    bool pending_saved; /* pending before a '-' or '/' that may start a comment */
    bool pending;       /* code other than white space and comments since the last ';' */
    bool ended;         /* at least one ';' seen in code */
} sql_scanner;

/* sql_scanner_init starts a scanner on empty text. */
void sql_scanner_init(sql_scanner *sc);
/* sql_scanner_feed scans the next n bytes of the text. */
void sql_scanner_feed(sql_scanner *sc, const char *text, size_t n);
/* sql_scanner_complete says whether the text fed so far ends with a complete statement: at
** least one ';' in code, and after the last one only white space and finished comments. */
bool sql_scanner_complete(const sql_scanner *sc);
/* sql_scanner_has_code says whether the text fed so far holds anything but white space and
** comments (at the end of the input, such a text is run as a last statement without ';'). */
bool sql_scanner_has_code(const sql_scanner *sc);

/* sql_quote writes s between two q's, each q inside it doubled: q '"' makes an identifier, '\''
** a string literal. */
void sql_quote(FILE *out, const char *s, char q);

#endif
