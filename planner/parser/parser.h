/*
** parser.h -- SQL text to syntax trees (ast.h), one statement at a time, with positioned errors.
**
** The parser checks syntax only: names are not looked up and types not checked (the binder
** does both, pointing at nodes' offsets with sql_error_at). It never aborts and never reads
** outside the text; nesting (parentheses, subqueries, operator chains) deeper than
** SQL_MAX_DEPTH is an error, so that neither it nor a consumer of its trees recurses without
** bound.
**
** Error convention: functions return STRATA_OK or a status code (STRATA_ERROR for bad SQL,
** STRATA_NOMEM when the arena fails) and record the message in err, unless err already holds
** an error (status.h). A syntax error reads
**     syntax error at line 2, column 8: expected an expression, found "FROM"
**     SELECT FROM t
**            ^
*/
#ifndef STRATA_PARSER_H
#define STRATA_PARSER_H

#include <stdio.h>

#include "arena.h"
#include "parser/ast.h"
#include "parser/lexer.h"
#include "status.h"

#define SQL_MAX_DEPTH 1000

/* sql_parse parses the first statement of the NUL-terminated sql into a tree allocated in a.
** On success *out is the statement, or NULL when sql holds only white space, comments and
** semicolons, and *tail (if tail is not NULL) points just after the statement's ';' (or at the
** final NUL). Positions in messages count from sql. On error *out is NULL, *tail is unchanged,
** and whatever was allocated stays in the arena until it is reset. */
int sql_parse(arena *a, const char *sql, sql_stmt **out, const char **tail, strata_err *err);

/* A script: several statements in one text, parsed one by one, with positions counted from
** the start of the whole text (so an error in the tenth statement gives its line in the file). */
typedef struct sql_script {
    const char *sql;
    size_t len;
    sql_lexer lexer;
    int nparams; /* placeholders of the last statement parsed: the highest number used */
} sql_script;

/* sql_script_init prepares to parse sql[0, len); the text need not be NUL-terminated and is
** not copied. */
void sql_script_init(sql_script *s, const char *sql, size_t len);

/* sql_script_next parses the next statement into a, like sql_parse: *out is NULL when only
** white space, comments and semicolons are left. After an error the script cannot go on. */
int sql_script_next(sql_script *s, arena *a, sql_stmt **out, strata_err *err);

/* sql_error_at records in err, with code, the message "<what> at line L, column C: <detail>",
** or "line L, column C: <detail>" when what is NULL, followed by the line of sql[0, len) holding
** offset and a line with a caret under the offset's character (a long line is shown as a window
** around it). Returns code. The parser uses it for syntax errors (what "syntax error"); the
** binder and the executor for name, type and value errors (NULL: the message reads well on its
** own, and after the shell's "Error: "), with their node's offset. */
int sql_error_at(strata_err *err, int code, const char *sql, size_t len, size_t offset, const char *what,
                 const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* sql_print_stmt and sql_print_expr write a tree as an S-expression, e.g.
** (select (cols (+ (col a) (int 1))) (from (table t))), the form tests assert on. Names that
** are not plain lower-case words are printed in double quotes. */
void sql_print_stmt(FILE *f, const sql_stmt *stmt);
void sql_print_expr(FILE *f, const sql_expr *expr);

#endif
