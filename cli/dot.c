/*
** dot.c -- the shell's dot commands: a line that starts with '.' outside a statement.
**
** run_dot splits the line into words ('...' and "..." quote one) and runs the command; each
** reports its own errors (report) and returns DONE_OK, DONE_ERROR or DONE_QUIT. The commands
** reach the database through the public API only, most of them by running SQL (run_sql) on the
** strata_catalog relation.
*/
#include "shell.h"

#include "import.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char help_text[] =
    ".exit                Exit the shell (also .quit)\n"
    ".headers on|off      Show or hide column names\n"
    ".help                Show this message\n"
    ".import FILE TABLE   Load CSV FILE into TABLE (created from the header when missing)\n"
    ".mode [MODE]         Set the output mode (table, csv, json, line, list) or show it\n"
    ".quit                Exit the shell\n"
    ".read FILE           Run the SQL and dot commands of FILE\n"
    ".schema [TABLE]      Show the DDL of every object, or of one table's\n"
    ".tables              List the tables and views\n"
    ".timer on|off        Print the time each statement takes\n";

/* split_args splits line in place into at most max words, honouring '...' and "..." quotes.
** Returns the number of words. */
static int split_args(char *line, char **argv, int max) {
    int n = 0;
    char *p = line;
    while (n < max) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (!*p) break;
        char q = (*p == '\'' || *p == '"') ? *p++ : 0;
        argv[n++] = p;
        while (*p && (q ? *p != q : !(*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')))
            p++;
        if (*p) *p++ = '\0';
    }
    return n;
}

/* on_off parses on/off (also yes/no, 1/0) into *out; false for anything else. */
static bool on_off(const char *s, bool *out) {
    if (!strcmp(s, "on") || !strcmp(s, "yes") || !strcmp(s, "1")) return *out = true, true;
    if (!strcmp(s, "off") || !strcmp(s, "no") || !strcmp(s, "0")) return !(*out = false);
    return false;
}

/* print_schema prints the stored DDL of every object (or of those of one table), each ending
** with ';', as the sqlite3 shell's .schema does. */
static int print_schema(shell *sh, const char *table, const char *source, long lineno) {
    strata_stmt *st;
    const char *sql = table ? "SELECT sql FROM strata_catalog WHERE tbl_name = ? AND sql <> '' "
                              "ORDER BY type DESC, name"
                            : "SELECT sql FROM strata_catalog WHERE sql <> '' ORDER BY tbl_name, type DESC, name";
    if (strata_prepare(sh->db, sql, &st, NULL) != STRATA_OK) {
        report(source, lineno, "%s", strata_errmsg(sh->db));
        return DONE_ERROR;
    }
    if (table) strata_bind_text(st, 1, table, -1);
    int rc;
    while ((rc = strata_step(st)) == STRATA_ROW) printf("%s;\n", strata_column_text(st, 0));
    strata_finalize(st);
    if (rc != STRATA_DONE) {
        report(source, lineno, "%s", strata_errmsg(sh->db));
        return DONE_ERROR;
    }
    return DONE_OK;
}

int run_dot(shell *sh, char *line, const char *source, long lineno) {
    char *argv[8];
    int argc = split_args(line + 1, argv, 8);
    const char *cmd = argc ? argv[0] : "";
    if (!strcmp(cmd, "quit") || !strcmp(cmd, "exit")) return DONE_QUIT;
    if (!strcmp(cmd, "help")) {
        fputs(help_text, stdout);
        return DONE_OK;
    }
    if (!strcmp(cmd, "mode")) {
        if (argc == 1) {
            printf("current output mode: %s\n", render_mode_name(sh->mode));
            return DONE_OK;
        }
        if (argc == 2 && render_mode_parse(argv[1], &sh->mode)) return DONE_OK;
        report(source, lineno, "usage: .mode table|csv|json|line|list");
        return DONE_ERROR;
    }
    if (!strcmp(cmd, "headers") || !strcmp(cmd, "header")) {
        if (argc == 2 && on_off(argv[1], &sh->headers)) return DONE_OK;
        report(source, lineno, "usage: .headers on|off");
        return DONE_ERROR;
    }
    if (!strcmp(cmd, "timer")) {
        if (argc == 2 && on_off(argv[1], &sh->timer)) return DONE_OK;
        report(source, lineno, "usage: .timer on|off");
        return DONE_ERROR;
    }
    if (!strcmp(cmd, "read")) {
        if (argc != 2) {
            report(source, lineno, "usage: .read FILE");
            return DONE_ERROR;
        }
        if (sh->read_depth >= READ_DEPTH_MAX) {
            report(source, lineno, ".read nested more than %d deep", READ_DEPTH_MAX);
            return DONE_ERROR;
        }
        FILE *f = fopen(argv[1], "r");
        if (!f) {
            report(source, lineno, "cannot open \"%s\": %s", argv[1], strerror(errno));
            return DONE_ERROR;
        }
        /* the file gets its own statement buffer: save the one being collected */
        shell saved = *sh;
        sh->buf = NULL;
        sh->buf_len = sh->buf_cap = 0;
        sh->read_depth++;
        bool interactive = sh->interactive;
        sh->interactive = false; /* a script stops at its first error */
        int rc = run_stream(sh, f, argv[1]);
        fclose(f);
        free(sh->buf);
        sh->interactive = interactive;
        sh->read_depth--;
        sh->buf = saved.buf;
        sh->buf_len = saved.buf_len;
        sh->buf_cap = saved.buf_cap;
        sh->buf_line = saved.buf_line;
        sh->scan = saved.scan;
        return rc;
    }
    if (!strcmp(cmd, "import")) {
        if (argc != 3) {
            report(source, lineno, "usage: .import FILE TABLE");
            return DONE_ERROR;
        }
        char err[1024];
        if (import_csv(sh->db, argv[1], argv[2], err, sizeof err) != STRATA_OK) {
            report(source, lineno, "%s", err);
            return DONE_ERROR;
        }
        return DONE_OK;
    }
    if (!strcmp(cmd, "tables")) {
        if (argc > 1) {
            report(source, lineno, "usage: .tables");
            return DONE_ERROR;
        }
        return run_sql(sh, "SELECT name FROM strata_catalog WHERE type IN ('table', 'view') ORDER BY name", source,
                       lineno);
    }
    if (!strcmp(cmd, "schema")) {
        if (argc > 2) {
            report(source, lineno, "usage: .schema [TABLE]");
            return DONE_ERROR;
        }
        return print_schema(sh, argc == 2 ? argv[1] : NULL, source, lineno);
    }
    report(source, lineno, "unknown command \".%s\"; .help lists the commands", cmd);
    return DONE_ERROR;
}

