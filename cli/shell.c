/*
** shell.c -- the strata shell: options, the input loop and statements (dot commands: dot.c).
**
**     strata [OPTIONS] [FILE] [SQL]
**
** It uses the public API (include/strata.h) and nothing else of the library. Input comes from
** -c/-f/a SQL argument, from a terminal through libedit (line editing, history in
** ~/.strata_history), or from a pipe. Text is collected a line at a time until sqlscan.h says
** it ends with a complete statement, then run statement by statement with strata_prepare's
** tail. Outside a terminal the first error stops the shell with exit status 1, as the duckdb
** shell does; at a terminal an error is printed and the prompt comes back (.bail and -bail
** change either).
*/
#include "shell.h"

#include "render.h"
#include "sqlscan.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include <editline/readline.h>

#include "strata.h"

#define HISTORY_FILE ".strata_history"
#define HISTORY_LINES 1000

#define PROGRESS_DELAY 2.0 /* seconds a statement runs before its progress bar shows */
#define PROGRESS_WIDTH 30  /* characters of the bar */
#define NO_CLOCK INFINITY  /* stmt_t0 when nothing is timed: now() - NO_CLOCK is never over the delay */

static bool bar_shown; /* a progress bar is on stderr, to be erased before anything else is written */

/* Ctrl-C at the prompt wakes the line editor's loop (read_typed) through wake_pipe, which then
** discards the text being typed; during a statement it sets interrupted, which stops the rows
** between two steps, and strata_interrupt stops a long step. A window resize and Ctrl-Z wake the
** loop too. */
static volatile sig_atomic_t at_prompt;
static volatile sig_atomic_t interrupted;
static strata_db *running_db;       /* the database a statement runs on, for strata_interrupt */
static int wake_pipe[2] = {-1, -1}; /* non-blocking; the handlers write WAKE_* bytes */
#define WAKE_SIGINT 'c'
#define WAKE_RESIZE 'w'
#define WAKE_SUSPEND 'z'

/* wake writes one byte to wake_pipe from a signal handler (a full pipe already wakes the loop). */
static void wake(char why) {
    int saved = errno;
    if (wake_pipe[1] >= 0) {
        ssize_t n = write(wake_pipe[1], &why, 1);
        (void)n;
    }
    errno = saved;
}

static void on_sigint(int sig) {
    (void)sig;
    if (at_prompt) {
        wake(WAKE_SIGINT);
        return;
    }
    interrupted = 1;
    if (running_db) strata_interrupt(running_db); /* stops a long step too */
}

static void on_sigwinch(int sig) {
    (void)sig;
    wake(WAKE_RESIZE);
}

/* on_sigtstp is Ctrl-Z's handler while the prompt waits (read_typed installs it): the loop gives
** the terminal back before the shell stops. */
static void on_sigtstp(int sig) {
    (void)sig;
    wake(WAKE_SUSPEND);
}

/* bar_erase erases a progress bar that was drawn, so that the next output starts a clean line. */
static void bar_erase(void) {
    if (bar_shown) fputs("\r\033[K", stderr);
    bar_shown = false;
}

/* report: see shell.h. */
void report(const char *source, long line, const char *fmt, ...) {
    bar_erase();
    fflush(NULL); /* stdout, and an .output file */
    fputs("Error: ", stderr);
    if (source) fprintf(stderr, "%s:%ld: ", source, line);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* progress_start starts the progress clock of a statement or dot command (and forgets a Ctrl-C
** that came before it). */
static void progress_start(shell *sh) {
    sh->stmt_t0 = now();
    interrupted = 0;
}

/* progress_stop erases the bar and stops the clock: the library's progress calls draw nothing
** until the next progress_start. */
static void progress_stop(shell *sh) {
    bar_erase();
    sh->stmt_t0 = NO_CLOCK;
}

/* ---- statements ------------------------------------------------------------------------- */

static value_kind kind_of(int type) {
    switch (type) {
    case STRATA_TYPE_SMALLINT:
    case STRATA_TYPE_INTEGER:
    case STRATA_TYPE_BIGINT:
    case STRATA_TYPE_DOUBLE:
    case STRATA_TYPE_DECIMAL: return KIND_NUMBER;
    case STRATA_TYPE_BOOLEAN: return KIND_BOOLEAN;
    default: return KIND_TEXT;
    }
}

/* decl_kind guesses a column's kind from its declared type, for its NULLs before a value. */
static value_kind decl_kind(const char *decl) {
    if (!decl) return KIND_TEXT;
    if (strstr(decl, "int") || strstr(decl, "numeric") || strstr(decl, "decimal") || strstr(decl, "double") ||
        strstr(decl, "real") || strstr(decl, "float"))
        return KIND_NUMBER;
    return strstr(decl, "bool") ? KIND_BOOLEAN : KIND_TEXT;
}

/* run_rows steps st to its end, writing its rows in the current mode. Returns the last step
** status: STRATA_DONE, an error, or STRATA_INTERRUPT after Ctrl-C. */
static int run_rows(shell *sh, strata_stmt *st) {
    int ncol = strata_column_count(st);
    int rc = strata_step(st);
    if (ncol <= 0 || (rc != STRATA_ROW && rc != STRATA_DONE)) {
        while (rc == STRATA_ROW) /* a result without columns: nothing to show */
            rc = strata_step(st);
        return rc;
    }
    const char **names = calloc((size_t)ncol, sizeof *names);
    const char **values = calloc((size_t)ncol, sizeof *values);
    value_kind *kinds = calloc((size_t)ncol, sizeof *kinds);
    renderer *r = NULL;
    if (!names || !values || !kinds) goto nomem;
    for (int i = 0; i < ncol; i++) {
        names[i] = strata_column_name(st, i);
        kinds[i] = decl_kind(strata_column_decltype(st, i));
    }
    render_options opt = {.mode = sh->mode,
                          .headers = sh->headers,
                          .null_text = sh->null_text,
                          .widths = sh->widths,
                          .nwidths = sh->nwidths};
    progress_stop(sh); /* the first row ends the bar: rows and a bar do not share the screen */
    if (!(r = render_begin(sh->out, &opt, ncol, names))) goto nomem;
    for (; rc == STRATA_ROW; rc = strata_step(st)) {
        if (interrupted) {
            rc = STRATA_INTERRUPT;
            break;
        }
        for (int i = 0; i < ncol; i++) {
            int type = strata_column_type(st, i); /* a NULL keeps the column's kind, for alignment */
            if (type != STRATA_TYPE_NULL) kinds[i] = kind_of(type);
            values[i] = strata_column_text(st, i);
        }
        if (!render_row(r, values, kinds)) goto nomem;
    }
    render_end(r);
    free(names);
    free(values);
    free(kinds);
    return rc;
nomem:
    render_end(r);
    free(names);
    free(values);
    free(kinds);
    return STRATA_NOMEM;
}

/* amount formats n units: bytes as "123.4 MB", anything else as "123456 rows". */
static const char *amount(char *buf, size_t size, uint64_t n, const char *unit) {
    static const char *units[] = {"B", "KB", "MB", "GB", "TB"};
    if (strcmp(unit, "bytes") != 0) {
        snprintf(buf, size, "%llu %s", (unsigned long long)n, unit);
        return buf;
    }
    double v = (double)n;
    int u = 0;
    for (; v >= 1000 && u < 4; u++) v /= 1000;
    snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", v, units[u]);
    return buf;
}

/* progress is the library's progress handler: once what progress_start timed has run
** PROGRESS_DELAY it draws a bar on the terminal when the total is known (a COPY's file), else a
** count (rows read by scans); Ctrl-C stops the statement. */
static int progress(void *arg, uint64_t done, uint64_t total, const char *unit) {
    shell *sh = arg;
    if (interrupted) return 1;
    if (!sh->progress_tty || now() - sh->stmt_t0 < PROGRESS_DELAY) return 0;
    char a[48], b[48];
    if (total && done <= total) {
        int fill = (int)((double)done / (double)total * PROGRESS_WIDTH);
        char bar[PROGRESS_WIDTH + 1];
        for (int i = 0; i < PROGRESS_WIDTH; i++) bar[i] = i < fill ? '=' : i == fill ? '>' : ' ';
        bar[PROGRESS_WIDTH] = 0;
        fprintf(stderr, "\r[%s] %3d%%  %s of %s\033[K", bar, (int)(100.0 * (double)done / (double)total),
                amount(a, sizeof a, done, unit), amount(b, sizeof b, total, unit));
    } else {
        fprintf(stderr, "\r%s read\033[K", amount(a, sizeof a, done, unit));
    }
    bar_shown = true;
    return 0;
}

/* is_change says whether the statement at sql is an INSERT, UPDATE or DELETE (its first word,
** after white space and comments), whose count .changes prints. */
static bool is_change(const char *sql) {
    for (;;) {
        while (*sql == ' ' || *sql == '\t' || *sql == '\n' || *sql == '\r' || *sql == '(')
            sql++;
        if (sql[0] == '-' && sql[1] == '-') {
            sql += strcspn(sql, "\n");
        } else if (sql[0] == '/' && sql[1] == '*') {
            const char *end = strstr(sql + 2, "*/");
            if (!end) return false;
            sql = end + 2;
        } else {
            break;
        }
    }
    static const char *words[] = {"insert", "update", "delete"};
    for (int i = 0; i < 3; i++)
        if (!strncasecmp(sql, words[i], 6) && !(isalnum((unsigned char)sql[6]) || sql[6] == '_')) return true;
    return false;
}

/* run_sql: see shell.h. */
int run_sql(shell *sh, const char *sql, const char *source, long line) {
    const char *p = sql;
    for (;;) {
        for (; *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'; p++)
            if (*p == '\n') line++;
        if (!*p) return DONE_OK;
        double t0 = now();
        strata_stmt *st = NULL;
        const char *tail = NULL;
        int rc = strata_prepare(sh->db, p, &st, &tail);
        if (rc != STRATA_OK) {
            report(source, line, "%s", strata_errmsg(sh->db));
            if (sh->once) output_reset(sh);
            return DONE_ERROR;
        }
        if (!st) return DONE_OK; /* only comments were left */
        if (sh->echo) {
            size_t n = (size_t)(tail - p);
            while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\n' || p[n - 1] == '\r'))
                n--;
            fprintf(sh->out, "%.*s\n", (int)n, p);
        }
        progress_start(sh);
        running_db = sh->db;
        rc = run_rows(sh, st);
        running_db = NULL;
        progress_stop(sh);
        strata_finalize(st);
        if (rc == STRATA_DONE && is_change(p)) {
            int64_t n = strata_changes(sh->db);
            sh->total_changes += n;
            if (sh->changes)
                fprintf(sh->out, "changes: %lld   total_changes: %lld\n", (long long)n,
                        (long long)sh->total_changes);
        }
        if (rc == STRATA_INTERRUPT) {
            report(source, line, "interrupted");
        } else if (rc != STRATA_DONE) {
            /* a NOMEM of the shell's own (rendering) has no message from strata */
            bool own = rc == STRATA_NOMEM && strata_errcode(sh->db) != STRATA_NOMEM;
            report(source, line, "%s", own ? "out of memory" : strata_errmsg(sh->db));
        } else {
            if (strata_rejects(sh->db) > 0)
                fprintf(sh->out, "%lld records rejected: they are in the REJECTS file\n",
                        (long long)strata_rejects(sh->db));
            if (sh->timer) fprintf(sh->out, "Run Time: real %.3f\n", now() - t0);
        }
        if (sh->once) output_reset(sh); /* .once: this statement's output only */
        if (rc != STRATA_DONE) return DONE_ERROR;
        for (; p < tail; p++)
            if (*p == '\n') line++;
    }
}

/* ---- input ------------------------------------------------------------------------------ */

static bool buf_append(shell *sh, const char *s, size_t n) {
    if (sh->buf_len + n + 1 > sh->buf_cap) {
        size_t cap = sh->buf_cap ? sh->buf_cap * 2 : 4096;
        while (cap < sh->buf_len + n + 1)
            cap *= 2;
        char *b = realloc(sh->buf, cap);
        if (!b) return false;
        sh->buf = b;
        sh->buf_cap = cap;
    }
    memcpy(sh->buf + sh->buf_len, s, n);
    sh->buf_len += n;
    sh->buf[sh->buf_len] = '\0';
    return true;
}

static void buf_clear(shell *sh) {
    sh->buf_len = 0;
    if (sh->buf) sh->buf[0] = '\0';
    sql_scanner_init(&sh->scan);
}

/* run_buffer runs the collected statements and empties the buffer. */
static int run_buffer(shell *sh, const char *source) {
    int rc = run_sql(sh, sh->buf ? sh->buf : "", source, sh->buf_line);
    buf_clear(sh);
    return rc;
}

/* handle_line handles one line of input (without its newline): a dot command when no statement
** is being collected, otherwise more statement text, run once it completes. */
static int handle_line(shell *sh, char *line, const char *source, long lineno) {
    const char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '.' && !sql_scanner_has_code(&sh->scan)) {
        buf_clear(sh); /* comments before a dot command are dropped */
        if (sh->echo) fprintf(sh->out, "%s\n", p);
        progress_start(sh); /* .import's COPY shows a bar as a statement does */
        int rc = run_dot(sh, (char *)p, source, lineno);
        progress_stop(sh);
        if (sh->once && --sh->once == 0) output_reset(sh); /* .once counts itself: see dot.c */
        return rc;
    }
    if (sh->buf_len == 0) sh->buf_line = lineno;
    size_t n = strlen(line);
    if (!buf_append(sh, line, n) || !buf_append(sh, "\n", 1)) {
        buf_clear(sh);
        report(source, lineno, "out of memory");
        return DONE_ERROR;
    }
    sql_scanner_feed(&sh->scan, line, n);
    sql_scanner_feed(&sh->scan, "\n", 1);
    return sql_scanner_complete(&sh->scan) ? run_buffer(sh, source) : DONE_OK;
}

/* run_line is handle_line for every input; at the prompt with bail on, an error ends the shell
** (DONE_QUIT, and the exit status 1). */
static int run_line(shell *sh, char *line, const char *source, long lineno) {
    int rc = handle_line(sh, line, source, lineno);
    if (rc == DONE_ERROR && sh->interactive && sh->bail) {
        sh->failed = true;
        return DONE_QUIT;
    }
    return rc;
}

/* run_stream: see shell.h. With bail off an error is reported and the lines after it run, and the
** result is still DONE_ERROR. At the end of the input, statement text without a final ';' is
** run too. */
int run_stream(shell *sh, FILE *in, const char *source) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long lineno = 0;
    int rc = DONE_OK;
    bool failed = false;
    buf_clear(sh);
    while ((n = getline(&line, &cap, in)) >= 0) {
        lineno++;
        if (n > 0 && line[n - 1] == '\n') line[--n] = '\0';
        rc = run_line(sh, line, source, lineno);
        if (rc == DONE_ERROR) failed = sh->failed = true;
        if (rc == DONE_QUIT || (rc == DONE_ERROR && sh->bail)) break;
    }
    if (rc != DONE_QUIT && !(failed && sh->bail) && sql_scanner_has_code(&sh->scan) &&
        run_buffer(sh, source) == DONE_ERROR)
        failed = sh->failed = true;
    buf_clear(sh);
    free(line);
    return rc == DONE_QUIT ? DONE_QUIT : failed ? DONE_ERROR : DONE_OK;
}

/* run_text runs SQL given on the command line (-c or after FILE), which may also hold dot
** commands on lines of their own. */
static int run_text(shell *sh, const char *text) {
    if (!*text) return DONE_OK;
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    if (!in) {
        sh->failed = true;
        report(NULL, 0, "cannot read the command: %s", strerror(errno));
        return DONE_ERROR;
    }
    int rc = run_stream(sh, in, NULL);
    fclose(in);
    return rc;
}

static char *history_path(void) {
    const char *home = getenv("HOME");
    if (!home || !*home) return NULL;
    size_t n = strlen(home) + sizeof HISTORY_FILE + 1;
    char *path = malloc(n);
    if (path) snprintf(path, n, "%s/%s", home, HISTORY_FILE);
    return path;
}

/* ---- the terminal ---------------------------------------------------------------------- */

/* The prompt uses libedit's callback interface, so that the shell, not the line editor, waits for
** input: read_typed polls the terminal and wake_pipe and feeds libedit a character at a time; on
** Ctrl-C it removes the handler, which gives the terminal back as libedit found it (echo,
** canonical input) and forgets the line. Nothing jumps out of libedit. libedit reads its
** characters through typed_getc, which waits the same way, so that a Ctrl-C also ends a command
** that reads several keys (a Ctrl-R search, Ctrl-V): it hands libedit a Ctrl-G, which aborts it. */

enum { TYPED_LINE, TYPED_CANCEL, TYPED_EOF };

#define KEY_ABORT 0x07 /* Ctrl-G: libedit's abort of a search, a beep otherwise */

static char *typed;           /* the line libedit handed to on_typed, malloc'd; NULL at Ctrl-D */
static bool typed_done;       /* on_typed was called */
static bool cancel_pending;   /* Ctrl-C came at the prompt: the line goes */
static bool suspend_pending;  /* Ctrl-Z came at the prompt */

static void on_typed(char *line) {
    typed = line;
    typed_done = true;
}

/* drain_wake empties wake_pipe into cancel_pending and suspend_pending (a resize is applied). */
static void drain_wake(void) {
    char why[64];
    ssize_t n;
    while ((n = read(wake_pipe[0], why, sizeof why)) > 0)
        for (ssize_t i = 0; i < n; i++) {
            if (why[i] == WAKE_SIGINT) cancel_pending = true;
            if (why[i] == WAKE_RESIZE) rl_resize_terminal();
            if (why[i] == WAKE_SUSPEND) suspend_pending = true;
        }
}

/* wait_input waits until the terminal has input (1) or a signal woke wake_pipe (0, drained);
** -1 when the terminal is gone or poll fails. */
static int wait_input(void) {
    for (;;) {
        struct pollfd fds[2] = {{.fd = STDIN_FILENO, .events = POLLIN},
                                {.fd = wake_pipe[0], .events = POLLIN}};
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (fds[1].revents & POLLIN) {
            drain_wake();
            return 0;
        }
        if (fds[0].revents & POLLIN) return 1;
        if (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL)) return -1;
    }
}

/* typed_getc is libedit's reader (rl_getc_function): the next character typed, decoded in the
** locale (libedit takes what it returns as one wide character), KEY_ABORT once Ctrl-C came, EOF
** at the end of input. A byte that starts no character is returned alone, and the bytes read
** after it are held for the next calls (held). */
static unsigned char held[32];
static size_t held_len;

static int typed_getc(FILE *in) {
    (void)in;
    unsigned char bytes[16];
    size_t n = 0;
    for (;;) {
        if (cancel_pending) return KEY_ABORT;
        unsigned char c;
        if (held_len) {
            c = held[0];
            memmove(held, held + 1, --held_len);
        } else {
            int ready = wait_input();
            if (ready < 0) return EOF;
            if (ready == 0) continue;
            ssize_t got = read(STDIN_FILENO, &c, 1);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) return EOF;
        }
        bytes[n++] = c;
        wchar_t wc;
        mbstate_t state;
        memset(&state, 0, sizeof state);
        size_t r = mbrtowc(&wc, (const char *)bytes, n, &state);
        if (r == (size_t)-2 && n < sizeof bytes) continue; /* more bytes of the character */
        if (r == (size_t)-1 || r == (size_t)-2) {
            memmove(held + n - 1, held, held_len); /* the bytes after the first, read again */
            memcpy(held, bytes + 1, n - 1);
            held_len += n - 1;
            return bytes[0];
        }
        return (int)wc;
    }
}

/* suspend stops the shell at Ctrl-Z with the terminal as it was before the prompt, and takes it
** back, showing the prompt and the line again, when the shell is continued (fg). */
static void suspend(void) {
    struct sigaction dfl, ours;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    rl_deprep_terminal();
    fputc('\n', stdout);
    fflush(stdout);
    sigaction(SIGTSTP, &dfl, &ours);
    raise(SIGTSTP); /* returns once continued */
    sigaction(SIGTSTP, &ours, NULL);
    rl_prep_terminal(1);
    rl_forced_update_display();
}

/* read_typed shows prompt and lets the user edit a line. Returns TYPED_LINE with *line set (malloc'd,
** without its newline), TYPED_CANCEL after Ctrl-C (the line is shown with "^C" and dropped), or
** TYPED_EOF at Ctrl-D on an empty line or when the terminal goes away. */
static int read_typed(const char *prompt, char **line) {
    int status = TYPED_EOF;
    drain_wake(); /* a Ctrl-C that came while a statement ran was the statement's */
    cancel_pending = suspend_pending = false;
    typed = NULL;
    typed_done = false;
    struct sigaction sa, outside; /* Ctrl-Z: see suspend; while a statement runs, as it was */
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sa.sa_handler = on_sigtstp;
    sigaction(SIGTSTP, NULL, &outside);
    if (outside.sa_handler != SIG_IGN) sigaction(SIGTSTP, &sa, NULL);
    at_prompt = 1;
    rl_callback_handler_install(prompt, on_typed);
    while (!typed_done) {
        int ready = held_len ? 1 : wait_input(); /* held: bytes typed_getc has read already */
        if (ready < 0) break; /* the terminal is gone: the end of input */
        if (!cancel_pending && suspend_pending) {
            suspend_pending = false;
            suspend();
        }
        if (!cancel_pending && ready) rl_callback_read_char();
        if (cancel_pending && !typed_done) {
            status = TYPED_CANCEL;
            break;
        }
    }
    at_prompt = 0;
    sigaction(SIGTSTP, &outside, NULL);
    if (status == TYPED_CANCEL) {
        /* the cursor may be inside the line: write the rest of it again, so ^C lands at its end */
        if (rl_line_buffer && rl_point >= 0 && rl_point < rl_end) fputs(rl_line_buffer + rl_point, stdout);
        fflush(stdout);
    }
    rl_callback_handler_remove(); /* the terminal as it was before the prompt */
    if (status == TYPED_CANCEL) {
        held_len = 0; /* what was typed ahead goes with the line, as the terminal drops its own */
        fputs("^C\n", stdout);
        fflush(stdout);
        return TYPED_CANCEL;
    }
    if (!typed_done || !typed) {
        if (typed_done) printf("\r%s\033[K", prompt); /* libedit showed the Ctrl-D as ^D: the prompt alone */
        return TYPED_EOF;
    }
    *line = typed;
    return TYPED_LINE;
}

/* prompt_loop reads lines at the prompt until .quit or end of input. An error is printed and
** the prompt comes back; Ctrl-C discards the line and the statement being typed. */
static void prompt_loop(shell *sh) {
    long lineno = 0;
    buf_clear(sh);
    for (;;) {
        char *line = NULL;
        int got = read_typed(sh->buf_len ? "   ...> " : "strata> ", &line);
        if (got == TYPED_CANCEL) {
            buf_clear(sh);
            continue;
        }
        if (got == TYPED_EOF) {
            fputc('\n', stdout);
            return;
        }
        lineno++;
        if (line[strspn(line, " \t")]) add_history(line);
        int rc = run_line(sh, line, NULL, lineno);
        free(line);
        fflush(stdout);
        if (rc == DONE_QUIT) return;
    }
}

/* use_terminal_locale takes the character set from the environment (LC_ALL, LC_CTYPE, LANG), so
** that libedit reads and shows UTF-8; a plain C or POSIX environment (or one naming a locale that
** is not installed) gets C.UTF-8 where it exists.
** Numbers keep the C locale's decimal point. */
static void use_terminal_locale(void) {
    setlocale(LC_ALL, ""); /* fails, leaving C, when the environment names a locale not installed */
    const char *ctype = setlocale(LC_CTYPE, NULL);
    if (!ctype || !strcmp(ctype, "C") || !strcmp(ctype, "POSIX")) setlocale(LC_CTYPE, "C.UTF-8");
    setlocale(LC_NUMERIC, "C");
}

/* run_interactive sets up the locale, libedit, history and the signals, and runs the prompt.
** Returns 1 when the terminal cannot be set up, else 0. */
static int run_interactive(shell *sh, const char *dbname) {
    if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        report(NULL, 0, "cannot set up the terminal: %s", strerror(errno));
        return 1;
    }
    use_terminal_locale();
    char *hist = history_path();
    rl_readline_name = "strata";
    rl_getc_function = typed_getc; /* before anything starts libedit */
    rl_catch_signals = 0;          /* Ctrl-C is ours: see on_sigint */
    rl_catch_sigwinch = 0;
    using_history();
    stifle_history(HISTORY_LINES);
    if (hist) read_history(hist);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART; /* output interrupted by Ctrl-C goes on; poll still wakes */
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = on_sigwinch;
    sigaction(SIGWINCH, &sa, NULL);
    printf("strata shell on %s. Enter \".help\" for usage hints.\n", dbname);
    prompt_loop(sh);
    if (hist) write_history(hist);
    free(hist);
    return 0;
}

/* ---- options ---------------------------------------------------------------------------- */

static void usage(FILE *out) {
    fputs("usage: strata [OPTIONS] [FILE] [SQL]\n"
          "FILE is a database file (default :memory:); SQL, if given, is run and the shell exits.\n"
          "Without SQL, -c or -f the shell reads statements from a terminal or from standard input.\n"
          "OPTIONS:\n"
          "  -c SQL       run SQL (statements and dot commands) and exit\n"
          "  -f FILE      run the script FILE and exit\n"
          "  -table       boxed table output (the default)\n"
          "  -csv         comma-separated values (RFC 4180 quoting)\n"
          "  -json        a JSON array of objects\n"
          "  -line        one \"column = value\" line per value\n"
          "  -list        values separated by |\n"
          "  -header      show column names (the default)\n"
          "  -noheader    hide column names\n"
          "  -bail        stop at the first error, at a terminal too\n"
          "  -echo        print each statement and dot command before running it\n"
          "  -help        show this message\n"
          "Outside a terminal the first error stops the shell with exit status 1 (.bail off keeps\n"
          "going; the exit status is still 1).\n",
          out);
}

typedef struct action {
    bool is_file; /* -f FILE, otherwise SQL text */
    const char *arg;
} action;

/* shell_open: see shell.h. */
bool shell_open(shell *sh, const char *path, strata_db **db, char *err, size_t err_size) {
    int rc = strata_open(path, db);
    if (rc != STRATA_OK) {
        snprintf(err, err_size, "cannot open \"%s\": %s", path, *db ? strata_errmsg(*db) : strata_errstr(rc));
        strata_close(*db);
        *db = NULL;
        return false;
    }
    strata_progress_handler(*db, progress, sh);
    return true;
}

int main(int argc, char **argv) {
    shell sh = {.mode = MODE_TABLE, .headers = true, .stmt_t0 = NO_CLOCK};
    sh.out = stdout;
    const char *dbname = NULL, *positional_sql = NULL;
    action *actions = calloc((size_t)argc + 1, sizeof *actions);
    int nactions = 0, status = 0, bail = -1; /* -1: stop at the first error outside a terminal */
    bool options_done = false;
    if (!actions) {
        fputs("Error: out of memory\n", stderr);
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!options_done && a[0] == '-' && a[1]) {
            const char *opt = a + 1 + (a[1] == '-'); /* -csv and --csv alike */
            render_mode m;
            if (!strcmp(a, "--")) {
                options_done = true;
            } else if (!strcmp(opt, "c") || !strcmp(opt, "f")) {
                if (i + 1 >= argc) {
                    fprintf(stderr, "Error: %s needs an argument\n", a);
                    free(actions);
                    return 1;
                }
                actions[nactions++] = (action){.is_file = opt[0] == 'f', .arg = argv[++i]};
            } else if (render_mode_parse(opt, &m)) {
                sh.mode = m;
            } else if (!strcmp(opt, "header") || !strcmp(opt, "headers")) {
                sh.headers = true;
            } else if (!strcmp(opt, "noheader") || !strcmp(opt, "noheaders")) {
                sh.headers = false;
            } else if (!strcmp(opt, "bail")) {
                bail = 1;
            } else if (!strcmp(opt, "echo")) {
                sh.echo = true;
            } else if (!strcmp(opt, "help") || !strcmp(opt, "h")) {
                usage(stdout);
                free(actions);
                return 0;
            } else {
                fprintf(stderr, "Error: unknown option %s\n", a);
                usage(stderr);
                free(actions);
                return 1;
            }
        } else if (!dbname) {
            dbname = a;
        } else if (!positional_sql) {
            positional_sql = a;
        } else {
            fprintf(stderr, "Error: too many arguments (%s); quote the SQL as one argument\n", a);
            free(actions);
            return 1;
        }
    }
    if (positional_sql) actions[nactions++] = (action){.arg = positional_sql};
    if (!dbname) dbname = ":memory:";

    sh.progress_tty = isatty(STDERR_FILENO);
    char err[1200] = "out of memory";
    if (!(sh.db_name = strdup(dbname)) || !shell_open(&sh, dbname, &sh.db, err, sizeof err)) {
        fprintf(stderr, "Error: %s\n", err);
        free(sh.db_name);
        free(actions);
        return 1;
    }
    sh.bail = bail == 1 || (bail == -1 && !(nactions == 0 && isatty(STDIN_FILENO)));
    if (nactions > 0) {
        for (int i = 0; i < nactions; i++) {
            int r;
            if (actions[i].is_file) {
                FILE *f = fopen(actions[i].arg, "r");
                if (!f) {
                    report(NULL, 0, "cannot open \"%s\": %s", actions[i].arg, strerror(errno));
                    r = DONE_ERROR;
                    sh.failed = true;
                } else {
                    r = run_stream(&sh, f, actions[i].arg);
                    fclose(f);
                }
            } else {
                r = run_text(&sh, actions[i].arg);
            }
            if (r == DONE_QUIT || (r == DONE_ERROR && sh.bail)) break;
        }
    } else if (isatty(STDIN_FILENO)) {
        sh.interactive = true;
        status = run_interactive(&sh, dbname);
    } else {
        run_stream(&sh, stdin, "stdin");
    }
    if (sh.failed || !output_reset(&sh)) status = 1;
    fflush(stdout);
    /* A checkpoint that fails (a full disk) loses nothing and fails no commit: a warning, and the
    ** exit status stays what the statements made it. */
    if (strata_checkpoint(sh.db) != STRATA_OK) fprintf(stderr, "Warning: %s\n", strata_errmsg(sh.db));
    int rc = strata_close(sh.db);
    if (rc != STRATA_OK && status == 0) {
        fprintf(stderr, "Error: closing \"%s\": %s\n", sh.db_name, strata_errstr(rc));
        status = 1;
    }
    free(sh.buf);
    free(sh.db_name);
    free(sh.null_text);
    free(sh.widths);
    free(actions);
    if (ferror(stdout)) status = 1;
    return status;
}
