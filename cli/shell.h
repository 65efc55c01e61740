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
#include <stdint.h>
#include <stdio.h>

#include "render.h"
#include "sqlscan.h"
#include "strata.h"

#define READ_DEPTH_MAX 16 /* .read inside .read, at most this deep */

/* What a command did: went well, failed, or asked the shell to end. */
enum { DONE_OK, DONE_ERROR, DONE_QUIT };

typedef struct shell {
    strata_db *db;
    char *db_name; /* the open database's path as given (":memory:" for none), malloc'd */
    /* the settings of the dot commands (.show lists them) */
    render_mode mode;
    bool headers;
    bool timer;
    bool bail;       /* the first error stops the input (and, at a terminal, the shell) */
    bool echo;       /* each statement and dot command is printed before it runs */
    bool changes;    /* after each INSERT, UPDATE or DELETE: "changes: N   total_changes: M" */
    char *null_text; /* how NULL shows (.nullvalue), malloc'd; NULL: each mode's own */
    int *widths;     /* table mode's column widths (.width), malloc'd; 0 or past nwidths: sized */
    int nwidths;
    /* where results go: stdout, or the file of .output / .once (out_name, malloc'd) */
    FILE *out;
    char *out_name;
    int once;              /* .once: the commands left before the output goes back to stdout */
    int64_t total_changes; /* rows changed by INSERT, UPDATE and DELETE since the database opened */
    bool interactive;
    bool failed; /* an error was reported since the shell started */
    int read_depth;
    /* the statement text being collected, and the scanner that says when it is complete */
    char *buf;
    size_t buf_len, buf_cap;
    long buf_line; /* the input line the collected text starts on */
    sql_scanner scan;
    /* the progress bar: drawn on a terminal (stderr) for a statement or dot command running over
    ** PROGRESS_DELAY; stmt_t0 is when it started (progress_start), NO_CLOCK when none is timed */
    bool progress_tty;
    double stmt_t0;
} shell;

/* report writes an error to stderr, after what is already written to the output. source and line
** name the script position (source NULL: none, for -c and the terminal). */
void report(const char *source, long line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* run_sql runs every statement of sql in turn and stops at the first error, which it reports.
** line is the input line sql starts on (for source's error messages). Returns DONE_OK or
** DONE_ERROR. */
int run_sql(shell *sh, const char *sql, const char *source, long line);

/* run_stream runs the lines of in (statements and dot commands); source names it in error
** messages. Outside interactive use it stops at the first error. Returns DONE_OK, DONE_ERROR
** or DONE_QUIT. */
int run_stream(shell *sh, FILE *in, const char *source);

/* output_reset ends an .output or .once file (closing it; an error closing it is reported) and
** sends results to stdout again. Returns false when closing the file failed. */
bool output_reset(shell *sh);

/* shell_open opens path as the shell's database (strata_open, the progress handler installed)
** into *db. On error it returns false with *db NULL and err holding the message ("cannot open
** "x": why"). */
bool shell_open(shell *sh, const char *path, strata_db **db, char *err, size_t err_size);

/* run_dot runs the dot command line (it starts with '.'; the line is split in place). lineno is
** its line in source. Returns DONE_OK, DONE_ERROR (reported) or DONE_QUIT. */
int run_dot(shell *sh, char *line, const char *source, long lineno);

#endif
