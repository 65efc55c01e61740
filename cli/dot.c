/*
** dot.c -- the shell's dot commands: a line that starts with '.' outside a statement.
**
** run_dot splits the line into words ('...' and "..." quote one) and runs the command; each
** reports its own errors (report) and returns DONE_OK, DONE_ERROR or DONE_QUIT. The commands
** reach the database through the public API only, most of them by running SQL (run_sql) on the
** strata_catalog relation; .dump reads each table's stored DDL text there and its rows with
** SELECT *, and writes SQL that makes them again.
*/
#include "shell.h"

#include "import.h"
#include "recover.h"
#include "sqlscan.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define ARGS_MAX 64 /* words of a dot command line */

static const char help_text[] =
    ".bail on|off         Stop at the first error (default: on, but off at a terminal)\n"
    ".changes on|off      After each INSERT, UPDATE or DELETE, print the rows it changed\n"
    ".dump [TABLE]        SQL that makes the database (or one table) again: .read reads it\n"
    ".echo on|off         Print each statement and dot command before running it\n"
    ".exit                Exit the shell (also .quit)\n"
    ".headers on|off      Show or hide column names (table, csv and list mode)\n"
    ".help                Show this message\n"
    ".import FILE TABLE   Load CSV FILE into TABLE (created from the header when missing)\n"
    ".indexes [TABLE]     List the indexes, or one table's\n"
    ".mode [MODE]         Set the output mode (table, csv, json, line, list) or show it\n"
    ".nullvalue TEXT      Show NULL as TEXT (in every mode but json)\n"
    ".once FILE           Write the next command's output to FILE\n"
    ".open [FILE]         Close the database and open FILE (a new in-memory one without)\n"
    ".output [FILE]       Write output to FILE, or to the standard output again\n"
    ".quit                Exit the shell\n"
    ".read FILE           Run the SQL and dot commands of FILE\n"
    ".recover [DB] NEW    Copy every readable row of DB (default: this database) into NEW\n"
    ".schema [TABLE]      Show the DDL of every object, or of one table's\n"
    ".show                Show the current settings\n"
    ".tables              List the tables and views\n"
    ".timer on|off        Print the time each statement takes\n"
    ".width N1 N2 ...     Table mode's column widths (0: fit the values; negative: right-aligned)\n";

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
    const char *sql =
        table ? "SELECT sql FROM strata_catalog WHERE tbl_name = ? AND sql <> '' "
                "ORDER BY type DESC, name"
              : "SELECT sql FROM strata_catalog WHERE sql <> '' ORDER BY tbl_name, type DESC, name";
    if (strata_prepare(sh->db, sql, &st, NULL) != STRATA_OK) {
        report(source, lineno, "%s", strata_errmsg(sh->db));
        return DONE_ERROR;
    }
    if (table) strata_bind_text(st, 1, table, -1);
    int rc;
    while ((rc = strata_step(st)) == STRATA_ROW)
        fprintf(sh->out, "%s;\n", strata_column_text(st, 0));
    strata_finalize(st);
    if (rc != STRATA_DONE) {
        report(source, lineno, "%s", strata_errmsg(sh->db));
        return DONE_ERROR;
    }
    return DONE_OK;
}

/* usage reports a command's usage and returns DONE_ERROR. */
static int usage_error(const char *source, long lineno, const char *text) {
    report(source, lineno, "usage: %s", text);
    return DONE_ERROR;
}

/* on_off_command sets *flag from a command's one on|off argument. */
static int on_off_command(int argc, char **argv, bool *flag, const char *source, long lineno) {
    if (argc == 2 && on_off(argv[1], flag)) return DONE_OK;
    char text[64];
    snprintf(text, sizeof text, ".%s on|off", argv[0]);
    return usage_error(source, lineno, text);
}

/* ---- .output, .once --------------------------------------------------------------------- */

bool output_reset(shell *sh) {
    bool ok = true;
    if (sh->out && sh->out != stdout) {
        bool bad = ferror(sh->out) != 0;
        if (fclose(sh->out) != 0 || bad) {
            report(NULL, 0, "cannot write \"%s\": %s", sh->out_name, bad ? "write error" : strerror(errno));
            ok = false;
        }
    }
    free(sh->out_name);
    sh->out_name = NULL;
    sh->out = stdout;
    sh->once = 0;
    return ok;
}

/* set_output sends the output to the file path (truncated), for good or (once) for the next
** command. When the file cannot be opened the output stays where it was. */
static int set_output(shell *sh, const char *path, bool once, const char *source, long lineno) {
    FILE *f = fopen(path, "w");
    if (!f) {
        report(source, lineno, "cannot write \"%s\": %s", path, strerror(errno));
        return DONE_ERROR;
    }
    char *name = strdup(path);
    if (!name) {
        fclose(f);
        report(source, lineno, "out of memory");
        return DONE_ERROR;
    }
    bool ok = output_reset(sh);
    sh->out = f;
    sh->out_name = name;
    sh->once = once ? 2 : 0; /* this command and the next (see run_line in shell.c) */
    return ok ? DONE_OK : DONE_ERROR;
}

/* ---- .open ------------------------------------------------------------------------------ */

/* same_file says whether paths a and b name one existing file. */
static bool same_file(const char *a, const char *b) {
    struct stat sa, sb;
    if (!strcmp(a, ":memory:") || !strcmp(b, ":memory:")) return false;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* open_database makes path the shell's database. The new one is opened before the old one is
** closed, so that a failure leaves the old one open; only reopening the same file closes it first
** (one handle owns a file), and if that fails a new in-memory database takes its place. */
static int open_database(shell *sh, const char *path, const char *source, long lineno) {
    char err[1200];
    char *name = strdup(path);
    if (!name) {
        report(source, lineno, "out of memory");
        return DONE_ERROR;
    }
    strata_db *db = NULL;
    if (same_file(path, sh->db_name)) {
        strata_close(sh->db);
        sh->db = NULL;
        if (!shell_open(sh, path, &db, err, sizeof err)) {
            free(name);
            if (!(name = strdup(":memory:")) || !shell_open(sh, ":memory:", &db, err + strlen(err), 0)) {
                report(source, lineno, "%s; no database is open", err);
                free(name);
                sh->failed = true;
                return DONE_QUIT;
            }
            report(source, lineno, "%s; a new in-memory database is open instead", err);
            free(sh->db_name);
            sh->db = db;
            sh->db_name = name;
            sh->total_changes = 0;
            return DONE_ERROR;
        }
    } else if (!shell_open(sh, path, &db, err, sizeof err)) {
        report(source, lineno, "%s; \"%s\" is still open", err, sh->db_name);
        free(name);
        return DONE_ERROR;
    }
    int rc = strata_close(sh->db);
    if (rc != STRATA_OK) report(source, lineno, "closing \"%s\": %s", sh->db_name, strata_errstr(rc));
    free(sh->db_name);
    sh->db = db;
    sh->db_name = name;
    sh->total_changes = 0;
    return rc == STRATA_OK ? DONE_OK : DONE_ERROR;
}

/* ---- catalog look-ups ------------------------------------------------------------------- */

/* table_exists says whether name is a table: 1, 0, or -1 on an error (reported). */
static int table_exists(shell *sh, const char *name, const char *source, long lineno) {
    strata_stmt *st;
    if (strata_prepare(sh->db, "SELECT count(*) FROM strata_catalog WHERE type = 'table' AND name = ?", &st,
                       NULL) != STRATA_OK) {
        report(source, lineno, "%s", strata_errmsg(sh->db));
        return -1;
    }
    strata_bind_text(st, 1, name, -1);
    int rc = strata_step(st), found = rc == STRATA_ROW ? strata_column_int64(st, 0) > 0 : -1;
    if (found < 0) report(source, lineno, "%s", strata_errmsg(sh->db));
    strata_finalize(st);
    return found;
}

/* sql_literal returns s as an SQL string literal ('...' with ' doubled), malloc'd; NULL when out of
** memory. */
static char *sql_literal(const char *s) {
    char *text = NULL;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    sql_quote(f, s, '\'');
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* list_indexes runs .indexes: the names of every index, or of those on table. */
static int list_indexes(shell *sh, const char *table, const char *source, long lineno) {
    if (!table)
        return run_sql(sh, "SELECT name FROM strata_catalog WHERE type = 'index' ORDER BY name", source,
                       lineno);
    int found = table_exists(sh, table, source, lineno);
    if (found <= 0) {
        if (found == 0) report(source, lineno, "no such table: %s", table);
        return DONE_ERROR;
    }
    char *lit = sql_literal(table), *sql = NULL;
    if (lit &&
        asprintf(&sql, "SELECT name FROM strata_catalog WHERE type = 'index' AND tbl_name = %s ORDER BY name",
                 lit) < 0)
        sql = NULL;
    free(lit);
    if (!sql) {
        report(source, lineno, "out of memory");
        return DONE_ERROR;
    }
    int rc = run_sql(sh, sql, source, lineno);
    free(sql);
    return rc;
}

/* ---- .show ------------------------------------------------------------------------------ */

/* write_c_string writes s in double quotes with C escapes, as the sqlite3 shell shows strings. */
static void write_c_string(FILE *out, const char *s) {
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (*p == '\t')
            fputs("\\t", out);
        else if (*p < 0x20 || *p == 0x7F)
            fprintf(out, "\\%03o", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void show_settings(shell *sh) {
    FILE *o = sh->out;
    fprintf(o, "%12s: %s\n", "bail", sh->bail ? "on" : "off");
    fprintf(o, "%12s: %s\n", "changes", sh->changes ? "on" : "off");
    fprintf(o, "%12s: %s\n", "echo", sh->echo ? "on" : "off");
    fprintf(o, "%12s: %s\n", "headers", sh->headers ? "on" : "off");
    fprintf(o, "%12s: %s\n", "mode", render_mode_name(sh->mode));
    fprintf(o, "%12s: ", "nullvalue");
    if (sh->null_text)
        write_c_string(o, sh->null_text);
    else
        fputs("\"NULL\" (\"\" in csv, null in json)", o);
    fputc('\n', o);
    fprintf(o, "%12s: %s%s\n", "output", sh->out_name ? sh->out_name : "stdout",
            sh->once ? " (for the next command)" : "");
    fprintf(o, "%12s: %s\n", "timer", sh->timer ? "on" : "off");
    fprintf(o, "%12s:", "width");
    for (int i = 0; i < sh->nwidths; i++)
        fprintf(o, " %d", sh->widths[i]);
    fputs(sh->nwidths ? "\n" : " fit to the values\n", o);
    fprintf(o, "%12s: %s\n", "filename", sh->db_name);
}

/* set_widths runs .width: each argument an integer, 0 for a width fitted to the values. */
static int set_widths(shell *sh, int argc, char **argv, const char *source, long lineno) {
    int *w = argc > 1 ? malloc((size_t)(argc - 1) * sizeof *w) : NULL;
    if (argc > 1 && !w) {
        report(source, lineno, "out of memory");
        return DONE_ERROR;
    }
    for (int i = 1; i < argc; i++) {
        char *end;
        errno = 0;
        long v = strtol(argv[i], &end, 10);
        if (end == argv[i] || *end || errno || v < -10000 || v > 10000) {
            free(w);
            return usage_error(source, lineno,
                               ".width N1 N2 ... (integers from -10000 to 10000; 0: fit the values)");
        }
        w[i - 1] = (int)v;
    }
    free(sh->widths);
    sh->widths = w;
    sh->nwidths = argc - 1;
    return DONE_OK;
}

/* ---- .dump ------------------------------------------------------------------------------ */

/* One row of strata_catalog. */
typedef struct object {
    char *type, *name, *table, *sql;
    bool done; /* a table: written; an index: its CREATE INDEX written */
} object;

typedef struct objects {
    object *items;
    int n;
} objects;

static void objects_free(objects *o) {
    for (int i = 0; i < o->n; i++) {
        free(o->items[i].type);
        free(o->items[i].name);
        free(o->items[i].table);
        free(o->items[i].sql);
    }
    free(o->items);
}

/* objects_load reads strata_catalog, in its order, without the rows of an empty sql. */
static int objects_load(shell *sh, objects *o) {
    strata_stmt *st;
    memset(o, 0, sizeof *o);
    if (strata_prepare(sh->db, "SELECT type, name, tbl_name, sql FROM strata_catalog WHERE sql <> ''", &st,
                       NULL) != STRATA_OK)
        return STRATA_ERROR;
    int rc, cap = 0;
    while ((rc = strata_step(st)) == STRATA_ROW) {
        if (o->n == cap) {
            cap = cap ? cap * 2 : 16;
            object *items = realloc(o->items, (size_t)cap * sizeof *items);
            if (!items) break;
            o->items = items;
        }
        object *ob = &o->items[o->n++];
        memset(ob, 0, sizeof *ob);
        ob->type = strdup(strata_column_text(st, 0));
        ob->name = strdup(strata_column_text(st, 1));
        ob->table = strdup(strata_column_text(st, 2));
        ob->sql = strdup(strata_column_text(st, 3));
        if (!ob->type || !ob->name || !ob->table || !ob->sql) break;
    }
    strata_finalize(st);
    if (rc == STRATA_ROW) return STRATA_NOMEM; /* the loop's break */
    return rc == STRATA_DONE ? STRATA_OK : rc;
}

/* next_statement finds the statement at *p of a stored DDL text, whose statements are ';'-separated
** (a table's CREATE TABLE and its ALTERs; an index's CREATE INDEX and its table's renames since):
** *start and *len say where it is (without the ';' and white space around it), *p moves past it.
** Returns false when only white space is left. */
static bool next_statement(const char **p, const char **start, size_t *len) {
    const char *s = *p;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    if (!*s) return false;
    sql_scanner sc;
    sql_scanner_init(&sc);
    const char *e = s;
    for (; *e; e++) {
        sql_scanner_feed(&sc, e, 1);
        if (*e == ';' && sql_scanner_complete(&sc)) break;
    }
    *p = *e ? e + 1 : e;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
        e--;
    *start = s;
    *len = (size_t)(e - s);
    return true;
}

/* write_statement writes the statement text[0, len) and the ';' that ends it (on a line of its own
** when the text ends in a -- comment). */
static void write_statement(FILE *out, const char *text, size_t len) {
    sql_scanner sc;
    sql_scanner_init(&sc);
    sql_scanner_feed(&sc, text, len);
    sql_scanner_feed(&sc, ";", 1);
    fprintf(out, "%.*s%s\n", (int)len, text, sql_scanner_complete(&sc) ? ";" : "\n;");
}

/* same_statement says whether the statements a[0, alen) and b[0, blen) are the same text. */
static bool same_statement(const char *a, size_t alen, const char *b, size_t blen) {
    return alen == blen && memcmp(a, b, alen) == 0;
}

/* write_value writes column i of st's row as an SQL literal that reads back as the same value of
** the same type: DOUBLE with 17 significant digits (its special values as text), DECIMAL and the
** integers as their exact text, DATE, TIMESTAMP and INTERVAL as typed literals, BLOB as X'..'. */
static void write_value(FILE *out, strata_stmt *st, int i) {
    int type = strata_column_type(st, i);
    const char *text = strata_column_text(st, i);
    switch (type) {
    case STRATA_TYPE_NULL: fputs("NULL", out); return;
    case STRATA_TYPE_BOOLEAN:
    case STRATA_TYPE_SMALLINT:
    case STRATA_TYPE_INTEGER:
    case STRATA_TYPE_BIGINT:
    case STRATA_TYPE_DECIMAL: fputs(text, out); return;
    case STRATA_TYPE_DOUBLE: {
        double d = strata_column_double(st, i);
        if (isnan(d))
            fputs("'NaN'", out);
        else if (isinf(d))
            fputs(d > 0 ? "'Infinity'" : "'-Infinity'", out);
        else if (d == 0 && signbit(d))
            fputs("'-0'", out);
        else
            fprintf(out, "%.17g", d);
        return;
    }
    case STRATA_TYPE_BLOB: {
        const unsigned char *b = strata_column_blob(st, i);
        int n = strata_column_bytes(st, i);
        fputs("X'", out);
        for (int k = 0; k < n; k++)
            fprintf(out, "%02X", b[k]);
        fputc('\'', out);
        return;
    }
    case STRATA_TYPE_DATE: fputs("DATE ", out); break;
    case STRATA_TYPE_TIMESTAMP: fputs("TIMESTAMP ", out); break;
    case STRATA_TYPE_INTERVAL: fputs("INTERVAL ", out); break;
    default: break;
    }
    sql_quote(out, text, '\'');
}

/* dump_rows writes an INSERT for each row of table. */
static int dump_rows(shell *sh, const char *table) {
    char *sql;
    size_t n = 2 * strlen(table) + 32;
    if (!(sql = malloc(n))) return STRATA_NOMEM;
    char *o = sql + sprintf(sql, "SELECT * FROM \"");
    for (const char *p = table; *p; p++) {
        if (*p == '"') *o++ = '"';
        *o++ = *p;
    }
    strcpy(o, "\"");
    strata_stmt *st;
    int rc = strata_prepare(sh->db, sql, &st, NULL);
    free(sql);
    if (rc != STRATA_OK) return rc;
    int ncol = strata_column_count(st);
    while ((rc = strata_step(st)) == STRATA_ROW) {
        fputs("INSERT INTO ", sh->out);
        sql_quote(sh->out, table, '"');
        fputs(" VALUES(", sh->out);
        for (int i = 0; i < ncol; i++) {
            if (i) fputc(',', sh->out);
            write_value(sh->out, st, i);
        }
        fputs(");\n", sh->out);
    }
    strata_finalize(st);
    return rc == STRATA_DONE ? STRATA_OK : rc;
}

/* references says whether table t's DDL names table u after REFERENCES (a foreign key), so that
** t must be made after u. It reads the words of the text; a false match only changes the order. */
static bool references(const object *t, const object *u) {
    size_t un = strlen(u->name);
    for (const char *p = t->sql; (p = strcasestr(p, "references")) != NULL;) {
        p += 10;
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (*p == '"') {
            if (!strncmp(p + 1, u->name, un) && p[1 + un] == '"') return true;
        } else if (!strncasecmp(p, u->name, un) && !(isalnum((unsigned char)p[un]) || p[un] == '_')) {
            return true;
        }
    }
    return false;
}

/* dump_table writes table t: its DDL text statement by statement, with the CREATE INDEX of each of
** its indexes whose text records renames since (a rename of the table or of a column) just before
** the first of those renames, so that the index is made on the names it was made on; then its rows
** (after its last ALTER, so in the columns it has now), then its other indexes. */
static int dump_table(shell *sh, objects *o, object *t) {
    const char *p = t->sql, *s;
    size_t n;
    bool first = true;
    while (next_statement(&p, &s, &n)) {
        for (int i = 0; !first && i < o->n; i++) {
            object *ix = &o->items[i];
            const char *q = ix->sql, *c, *r;
            size_t cn, rn;
            if (ix->done || strcmp(ix->type, "index") || strcmp(ix->table, t->name)) continue;
            if (next_statement(&q, &c, &cn) && next_statement(&q, &r, &rn) && same_statement(r, rn, s, n)) {
                write_statement(sh->out, c, cn);
                ix->done = true;
            }
        }
        write_statement(sh->out, s, n);
        first = false;
    }
    int rc = dump_rows(sh, t->name);
    if (rc != STRATA_OK) return rc;
    for (int i = 0; i < o->n; i++) {
        object *ix = &o->items[i];
        const char *q = ix->sql, *c;
        size_t cn;
        if (ix->done || strcmp(ix->type, "index") || strcmp(ix->table, t->name)) continue;
        if (next_statement(&q, &c, &cn)) write_statement(sh->out, c, cn);
        ix->done = true;
    }
    t->done = true;
    return STRATA_OK;
}

/* dump writes the SQL that makes the database (or the table named table) again, in one
** transaction: the tables in an order that makes a table after those its foreign keys reference,
** each with its rows and indexes, then the views. */
static int dump(shell *sh, const char *table, const char *source, long lineno) {
    if (table) {
        int found = table_exists(sh, table, source, lineno);
        if (found <= 0) {
            if (found == 0) report(source, lineno, "no such table: %s", table);
            return DONE_ERROR;
        }
    }
    objects o;
    int rc = objects_load(sh, &o);
    if (rc == STRATA_OK) fputs("BEGIN;\n", sh->out);
    for (bool progress = true; rc == STRATA_OK && progress;) {
        progress = false;
        object *waiting = NULL; /* the first table not written, for a cycle */
        for (int i = 0; i < o.n && rc == STRATA_OK; i++) {
            object *t = &o.items[i];
            if (t->done || strcmp(t->type, "table") || (table && strcmp(t->name, table))) continue;
            bool ready = true;
            for (int k = 0; k < o.n && ready; k++) {
                object *u = &o.items[k];
                if (k != i && !u->done && !strcmp(u->type, "table") && !table && references(t, u))
                    ready = false;
            }
            if (!waiting) waiting = t;
            if (!ready) continue;
            rc = dump_table(sh, &o, t);
            progress = true;
        }
        if (!progress && waiting && rc == STRATA_OK) { /* references that cannot be met: as they come */
            rc = dump_table(sh, &o, waiting);
            progress = true;
        }
    }
    for (int i = 0; !table && rc == STRATA_OK && i < o.n; i++)
        if (!strcmp(o.items[i].type, "view")) fprintf(sh->out, "%s;\n", o.items[i].sql);
    if (rc == STRATA_OK) fputs("COMMIT;\n", sh->out);
    objects_free(&o);
    if (rc != STRATA_OK) {
        report(source, lineno, "%s", rc == STRATA_NOMEM ? "out of memory" : strata_errmsg(sh->db));
        return DONE_ERROR;
    }
    return DONE_OK;
}

int run_dot(shell *sh, char *line, const char *source, long lineno) {
    char *argv[ARGS_MAX];
    int argc = split_args(line + 1, argv, ARGS_MAX);
    const char *cmd = argc ? argv[0] : "";
    if (argc == ARGS_MAX) {
        report(source, lineno, ".%s: too many arguments (at most %d)", cmd, ARGS_MAX - 2);
        return DONE_ERROR;
    }
    if (!strcmp(cmd, "quit") || !strcmp(cmd, "exit")) return DONE_QUIT;
    if (!strcmp(cmd, "help")) {
        fputs(help_text, sh->out);
        return DONE_OK;
    }
    if (!strcmp(cmd, "mode")) {
        if (argc == 1) {
            fprintf(sh->out, "current output mode: %s\n", render_mode_name(sh->mode));
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
        sh->interactive = false; /* the file's errors stop it when bail is on, not the shell */
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
    if (!strcmp(cmd, "recover")) {
        if (argc != 2 && argc != 3) return usage_error(source, lineno, ".recover [DAMAGED] NEWFILE");
        char err[1024];
        if (recover_command(sh->db, argc == 3 ? argv[1] : NULL, argv[argc - 1], sh->out, err, sizeof err)) {
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
        return run_sql(sh, "SELECT name FROM strata_catalog WHERE type IN ('table', 'view') ORDER BY name",
                       source, lineno);
    }
    if (!strcmp(cmd, "schema")) {
        if (argc > 2) {
            report(source, lineno, "usage: .schema [TABLE]");
            return DONE_ERROR;
        }
        return print_schema(sh, argc == 2 ? argv[1] : NULL, source, lineno);
    }
    if (!strcmp(cmd, "open")) {
        if (argc > 2) return usage_error(source, lineno, ".open [FILE]");
        return open_database(sh, argc == 2 ? argv[1] : ":memory:", source, lineno);
    }
    if (!strcmp(cmd, "dump")) {
        if (argc > 2) return usage_error(source, lineno, ".dump [TABLE]");
        return dump(sh, argc == 2 ? argv[1] : NULL, source, lineno);
    }
    if (!strcmp(cmd, "output")) {
        if (argc > 2) return usage_error(source, lineno, ".output [FILE]");
        if (argc == 1 || !strcmp(argv[1], "stdout")) return output_reset(sh) ? DONE_OK : DONE_ERROR;
        return set_output(sh, argv[1], false, source, lineno);
    }
    if (!strcmp(cmd, "once")) {
        if (argc != 2) return usage_error(source, lineno, ".once FILE");
        return set_output(sh, argv[1], true, source, lineno);
    }
    if (!strcmp(cmd, "indexes") || !strcmp(cmd, "indices")) {
        if (argc > 2) return usage_error(source, lineno, ".indexes [TABLE]");
        return list_indexes(sh, argc == 2 ? argv[1] : NULL, source, lineno);
    }
    if (!strcmp(cmd, "nullvalue")) {
        if (argc != 2) return usage_error(source, lineno, ".nullvalue TEXT");
        char *text = strdup(argv[1]);
        if (!text) {
            report(source, lineno, "out of memory");
            return DONE_ERROR;
        }
        free(sh->null_text);
        sh->null_text = text;
        return DONE_OK;
    }
    if (!strcmp(cmd, "bail")) return on_off_command(argc, argv, &sh->bail, source, lineno);
    if (!strcmp(cmd, "changes")) return on_off_command(argc, argv, &sh->changes, source, lineno);
    if (!strcmp(cmd, "echo")) return on_off_command(argc, argv, &sh->echo, source, lineno);
    if (!strcmp(cmd, "width")) return set_widths(sh, argc, argv, source, lineno);
    if (!strcmp(cmd, "show")) {
        if (argc > 1) return usage_error(source, lineno, ".show");
        show_settings(sh);
        return DONE_OK;
    }
    report(source, lineno, "unknown command \".%s\"; .help lists the commands", cmd);
    return DONE_ERROR;
}
