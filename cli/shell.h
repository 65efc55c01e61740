/*
** shell.h -- what the shell's two halves share: the shell's state, and the calls between the
** input loop (shell.c) and the dot commands (dot.c).
**
** shell.c reads input, collects statements and runs them; a line that starts with '.' goes to
** run_dot (dot.c), which may run SQL (run_sql) or a whole file (run_stream) in turn.
*/
#ifndef STRATA_CLI_SHELL_H
#define STRATA_CLI_SHELL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "render.h"
#include "sqlscan.h"
#include "strata.h"

#define READ_DEPTH_MAX 16 /* .read inside .read, at most this deep */

/* What a command did: went well, failed, or asked the shell to end. */
enum { DONE_OK, DONE_ERROR, DONE_QUIT };

typedef struct shell {
    strata_db *db;
    render_mode mode;
    bool headers;
    bool timer;
    bool interactive;
    int read_depth;
    /* the statement text being collected, and the scanner that says when it is complete */
    char *buf;
    size_t buf_len, buf_cap;
    long buf_line; /* the input line the collected text starts on */
    sql_scanner scan;
    /* the progress bar: drawn on a terminal (stderr) for a statement running over PROGRESS_DELAY */
    bool progress_tty;
    bool bar_shown;
    double stmt_t0;
} shell;

/* report writes an error to stderr, after what is already on stdout. source and line name the
** script position (source NULL: none, for -c and the terminal). */
void report(const char *source, long line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* run_sql runs every statement of sql in turn and stops at the first error, which it reports.
** line is the input line sql starts on (for source's error messages). Returns DONE_OK or
** DONE_ERROR. */
int run_sql(shell *sh, const char *sql, const char *source, long line);

/* run_stream runs the lines of in (statements and dot commands); source names it in error
** messages. Outside interactive use it stops at the first error. Returns DONE_OK, DONE_ERROR
** or DONE_QUIT. */
int run_stream(shell *sh, FILE *in, const char *source);

/* run_dot runs the dot command line (it starts with '.'; the line is split in place). lineno is
** its line in source. Returns DONE_OK, DONE_ERROR (reported) or DONE_QUIT. */
int run_dot(shell *sh, char *line, const char *source, long lineno);

#endif
