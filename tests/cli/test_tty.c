/*
** test_tty.c -- the strata shell at a real terminal: the built binary (STRATA_BIN) run inside tmux,
** which gives it a pseudo-terminal; keys are sent with send-keys and the screen is read with
** capture-pane. Each test has its own tmux server (a private socket, -L) and temporary directory,
** so tests can run in parallel; the server is killed at teardown.
**
** In the pane a script (sh, which a Ctrl-C does not end) records the terminal's settings
** (stty -g) before and after the shell, and its exit status, into files the test reads. Waits
** poll the screen with a timeout. The Ctrl-Z test types into an interactive bash instead, for
** its job control.
*/
#include <criterion/criterion.h>

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers/run_program.h"
#include "helpers/tmpdir.h"

#ifndef STRATA_BIN
#error "STRATA_BIN must name the strata binary (the Makefile passes it)"
#endif

#define WAIT_SECONDS 20.0 /* the longest any wait polls before the test fails */

static char tmp[] = "/tmp/strata-tty-XXXXXX";
static char sock[64]; /* the tmux server's socket name: strata-test-<pid> */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void pause_ms(int ms) {
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* path_in returns tmp/name in a static buffer (one at a time). */
static const char *path_in(const char *name) {
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    return path;
}

/* tmux runs tmux on this test's server with args (NULL-terminated) and returns what it wrote on
** standard output (malloc'd) when out is true, else NULL; it asserts that tmux succeeded. */
static char *tmux(bool out, const char *const *args) {
    const char *argv[64] = {"tmux", "-L", sock, "-f", "/dev/null"};
    int argc = 5;
    for (; args[argc - 5]; argc++) {
        cr_assert_lt(argc, 63);
        argv[argc] = args[argc - 5];
    }
    argv[argc] = NULL;
    int fd[2];
    cr_assert_eq(pipe(fd), 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(out ? fd[1] : null, 1);
        close(fd[0]);
        execvp("tmux", (char *const *)argv);
        _exit(127);
    }
    close(fd[1]);
    char *text = NULL;
    size_t len = 0;
    FILE *f = fdopen(fd[0], "r");
    cr_assert_not_null(f);
    if (out) {
        text = calloc(1, 1);
        char chunk[4096];
        size_t n;
        while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
            text = realloc(text, len + n + 1);
            cr_assert_not_null(text);
            memcpy(text + len, chunk, n);
            len += n;
            text[len] = '\0';
        }
    }
    fclose(f);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "tmux %s failed (status %d); is tmux installed?",
              args[0], WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return text;
}

#define TMUX(...) tmux(false, (const char *const[]){__VA_ARGS__, NULL})

static void setup(void) {
    cr_assert_not_null(mkdtemp(tmp));
    snprintf(sock, sizeof sock, "strata-test-%d", (int)getpid());
}

static void teardown(void) {
    /* the server may already be gone; this must not fail */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "tmux -L %s kill-server >/dev/null 2>&1", sock);
    int ignored = system(cmd); /* no server left is fine too */
    (void)ignored;
    const char *dir = getenv("TMUX_TMPDIR"); /* tmux leaves its socket file behind */
    snprintf(cmd, sizeof cmd, "%s/tmux-%d/%s", dir && *dir ? dir : "/tmp", (int)getuid(), sock);
    unlink(cmd);
    struct stat st;
    for (int i = 0; i < 40 && stat(tmp, &st) == 0; i++) { /* a dying process may still write a file there */
        tmpdir_remove(tmp);
        if (stat(tmp, &st) == 0) pause_ms(25);
    }
}

/* sanitizer_env returns the sanitizers' option variables of the test's environment as
** "NAME='value' ..." (static), so that a sanitizer build's shell gets them through env -i. */
static const char *sanitizer_env(void) {
    static char vars[2048];
    const char *names[] = {"ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS"};
    size_t n = 0;
    vars[0] = '\0';
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(names[i]);
        if (v && !strchr(v, '\'') && n < sizeof vars)
            n += (size_t)snprintf(vars + n, sizeof vars - n, "%s='%s' ", names[i], v);
    }
    return vars;
}

/* start_in runs `strata ARGS` in a new 100x30 tmux session, in tmp, with TERM=screen, HOME=tmp (the
** history file goes there) and the locale variables of locale (e.g. "LANG=C.UTF-8"; "" for none),
** nothing else of the test's environment. The pane's script writes tmp/before and tmp/after
** (stty -g around the shell) and tmp/status (its exit status). */
static void start_in(const char *locale, const char *args) {
    char script[2048];
    snprintf(script, sizeof script,
             "cd %s || exit 1\n"
             "trap : INT\n" /* Ctrl-C is for the shell under test; sh waits on */
             "stty -g > before\n"
             "%s %s\n"
             "echo $? > status.tmp\n"
             "stty -g > after\n"
             "mv status.tmp status\n"
             "exec sleep 600\n",
             tmp, STRATA_BIN, args);
    write_file(path_in("run.sh"), script);
    char cmd[3000];
    snprintf(cmd, sizeof cmd, "exec env -i PATH=/usr/bin:/bin HOME=%s TERM=screen %s %s sh %s/run.sh", tmp,
             sanitizer_env(), locale, tmp);
    TMUX("new-session", "-d", "-s", "t", "-x", "100", "-y", "30", cmd);
}

/* start runs `strata ARGS` as start_in does, in the C.UTF-8 locale. */
static void start(const char *args) { start_in("LANG=C.UTF-8", args); }

/* screen returns the pane's text now, a line per row (trailing blanks dropped), malloc'd. */
static char *screen(void) { return tmux(true, (const char *const[]){"capture-pane", "-p", "-t", "t", NULL}); }

/* wait_for polls the screen until it holds text and returns it (malloc'd); fails the test with
** the last screen after WAIT_SECONDS. */
static char *wait_for(const char *text) {
    double t0 = now();
    for (;;) {
        char *s = screen();
        if (strstr(s, text)) return s;
        if (now() - t0 > WAIT_SECONDS) cr_assert_fail("the screen never showed \"%s\"; it was:\n%s", text, s);
        free(s);
        pause_ms(50);
    }
}

/* expect_screen waits for text and frees the screen. */
static void expect_screen(const char *text) { free(wait_for(text)); }

/* type sends the bytes of text as typed keys (hex, so no byte is taken for a tmux key name or a
** command separator). */
static void type(const char *text) {
    const char *args[64] = {"send-keys", "-t", "t", "-H"};
    int n = 4;
    char hex[50][3];
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        snprintf(hex[n - 4], sizeof hex[0], "%02x", *p);
        args[n] = hex[n - 4];
        if (++n == 54 || !p[1]) {
            args[n] = NULL;
            tmux(false, args);
            n = 4;
        }
    }
}

/* key sends one key by its tmux name (C-c, C-d, C-l, Enter). */
static void key(const char *name) { TMUX("send-keys", "-t", "t", name); }

/* type_seen types text and waits until it is on the screen: a key like Ctrl-C, which the
** terminal acts on at once, would otherwise overtake text the shell has not read yet. */
static void type_seen(const char *text) {
    type(text);
    expect_screen(text);
}

/* wait_cursor_x waits until the cursor is in column x (0 is the first). */
static void wait_cursor_x(int x) {
    double t0 = now();
    for (;;) {
        char *s = tmux(true, (const char *const[]){"display-message", "-p", "-t", "t", "#{cursor_x}", NULL});
        int at = atoi(s);
        free(s);
        if (at == x) return;
        cr_assert(now() - t0 < WAIT_SECONDS, "the cursor stayed in column %d, not %d", at, x);
        pause_ms(50);
    }
}

/* has_line says whether s has a line that is exactly line. */
static bool has_line(const char *s, const char *line) {
    size_t n = strlen(line);
    for (const char *p = s; (p = strstr(p, line)); p++)
        if ((p == s || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0')) return true;
    return false;
}

/* count_lines returns how many lines of s are exactly line. */
static int count_lines(const char *s, const char *line) {
    int n = 0;
    size_t len = strlen(line);
    for (const char *p = s; (p = strstr(p, line)); p++)
        if ((p == s || p[-1] == '\n') && (p[len] == '\n' || p[len] == '\0')) n++;
    return n;
}

/* last_line copies the last line of s that is not empty into out. */
static void last_line(const char *s, char *out, size_t size) {
    const char *end = s + strlen(s);
    while (end > s && end[-1] == '\n')
        end--;
    const char *start = end;
    while (start > s && start[-1] != '\n')
        start--;
    snprintf(out, size, "%.*s", (int)(end - start), start);
}

/* wait_prompt waits until the last line of the screen is prompt alone (the shell waits for input)
** and returns the screen. */
static char *wait_prompt(const char *prompt) {
    double t0 = now();
    for (;;) {
        char *s = screen(), last[256];
        last_line(s, last, sizeof last);
        if (!strcmp(last, prompt)) return s;
        if (now() - t0 > WAIT_SECONDS)
            cr_assert_fail("the screen never ended with \"%s\"; it was:\n%s", prompt, s);
        free(s);
        pause_ms(50);
    }
}

/* wait_output waits until the screen has line as a line of its own and ends with the prompt
** "strata>" (the statement that writes it is done), and returns the screen. */
static char *wait_output(const char *line) {
    double t0 = now();
    for (;;) {
        char *s = screen(), last[256];
        last_line(s, last, sizeof last);
        if (has_line(s, line) && !strcmp(last, "strata>")) return s;
        if (now() - t0 > WAIT_SECONDS)
            cr_assert_fail("the screen never showed \"%s\" and a prompt; it was:\n%s", line, s);
        free(s);
        pause_ms(50);
    }
}

/* wait_exit waits for the pane's script to record the shell's exit and returns the status. */
static int wait_exit(void) {
    double t0 = now();
    struct stat st;
    while (stat(path_in("status"), &st) != 0) {
        if (now() - t0 > WAIT_SECONDS) {
            char *s = screen();
            cr_assert_fail("the shell did not exit; the screen:\n%s", s);
        }
        pause_ms(50);
    }
    char *status = read_all(path_in("status"));
    int rc = atoi(status);
    free(status);
    return rc;
}

/* expect_tty_restored asserts that the terminal's settings after the shell are those before it. */
static void expect_tty_restored(void) {
    char *before = read_all(path_in("before")), *after = read_all(path_in("after"));
    cr_expect_str_eq(after, before, "stty -g before the shell: %s, after: %s", before, after);
    free(before);
    free(after);
}

TestSuite(tty, .init = setup, .fini = teardown, .timeout = 60);

/* ---- Ctrl-C at the prompt ---------------------------------------------------------------- */

Test(tty, ctrl_c_at_an_empty_prompt_gives_a_new_prompt) {
    start("-list -noheader");
    free(wait_prompt("strata>"));
    key("C-c");
    expect_screen("strata> ^C\nstrata>");
    type("select 40 + 2;\r");
    char *s = wait_output("42");
    cr_expect(has_line(s, "42"), "screen:\n%s", s);
    cr_expect(!strstr(s, "Error"), "screen:\n%s", s);
    free(s);
}

Test(tty, ctrl_c_drops_a_half_typed_line) {
    start("-list -noheader");
    free(wait_prompt("strata>"));
    type_seen("select 'dropped'");
    key("C-c");
    expect_screen("strata> select 'dropped'^C\nstrata>");
    type("select 'kept';\r");
    char *s = wait_output("kept");
    cr_expect(has_line(s, "kept"), "screen:\n%s", s);
    cr_expect(!has_line(s, "dropped") && !strstr(s, "Error"), "the dropped line ran; screen:\n%s", s);
    free(s);
}

Test(tty, ctrl_c_with_the_cursor_inside_the_line_shows_it_whole) {
    start("-list -noheader");
    free(wait_prompt("strata>"));
    type_seen("select 'middle'");
    key("C-a"); /* the cursor to the start, then three to the right */
    key("Right");
    key("Right");
    key("Right");
    wait_cursor_x(11); /* after "strata> sel" */
    key("C-c");
    char *s = wait_prompt("strata>");
    cr_expect(strstr(s, "strata> select 'middle'^C\n"), "screen:\n%s", s);
    free(s);
}

Test(tty, ctrl_c_drops_a_half_typed_multi_line_statement) {
    start("-list -noheader");
    free(wait_prompt("strata>"));
    type("select 'one',\r");
    free(wait_prompt("   ...>"));
    type_seen("'two'");
    key("C-c");
    expect_screen("   ...> 'two'^C\nstrata>"); /* the new prompt starts a statement */
    type("select 'three';\r");
    char *s = wait_output("three");
    cr_expect(has_line(s, "three"), "screen:\n%s", s);
    cr_expect(!strstr(s, "one|") && !strstr(s, "Error"), "the dropped statement ran; screen:\n%s", s);
    free(s);
}

Test(tty, ctrl_c_ends_a_history_search_and_drops_its_line) {
    start("-list -noheader");
    free(wait_prompt("strata>"));
    type("select 'old';\r");
    free(wait_output("old"));
    key("C-r"); /* libedit's incremental search: it reads keys until the search ends */
    type_seen("ol");
    expect_screen("bck"); /* libedit's search prompt */
    key("C-c");
    free(wait_prompt("strata>"));
    type("select 'new';\r");
    char *s = wait_output("new");
    cr_expect_eq(count_lines(s, "old"), 1, "the line found by the search ran; screen:\n%s", s);
    cr_expect(!strstr(s, "Error"), "screen:\n%s", s);
    free(s);
}

Test(tty, ctrl_c_then_quit_leaves_the_terminal_as_it_was) {
    start("-list -noheader");
    free(wait_prompt("strata>"));
    type_seen("select 'never'");
    key("C-c");
    free(wait_prompt("strata>"));
    key("C-c");
    expect_screen("strata> ^C\nstrata>");
    type(".quit\r");
    cr_expect_eq(wait_exit(), 0);
    expect_tty_restored();
}

Test(tty, ctrl_c_then_ctrl_d_leaves_the_terminal_as_it_was) {
    start("-list -noheader");
    free(wait_prompt("strata>"));
    type("select 'one',\r");
    free(wait_prompt("   ...>"));
    key("C-c");
    free(wait_prompt("strata>"));
    key("C-d");
    cr_expect_eq(wait_exit(), 0);
    expect_tty_restored();
    char *s = screen();
    cr_expect(!strstr(s, "^D"), "Ctrl-D shows as ^D; screen:\n%s", s);
    free(s);
}

Test(tty, ctrl_d_on_a_half_typed_line_does_not_end_the_shell) {
    start("-list -noheader");
    free(wait_prompt("strata>"));
    type_seen("select 7");
    key("C-d"); /* at the end of a line it deletes nothing */
    type(";\r");
    char *s = wait_output("7");
    cr_expect(has_line(s, "7"), "screen:\n%s", s);
    free(s);
    struct stat st;
    cr_expect_neq(stat(path_in("status"), &st), 0, "the shell ended");
}

Test(tty, ctrl_z_and_fg_give_the_terminal_back_and_take_it_again) {
    /* Ctrl-Z needs a shell with job control: an interactive bash, which the test types into */
    char cmd[3000];
    snprintf(
        cmd, sizeof cmd,
        "exec env -i PATH=/usr/bin:/bin HOME=%s TERM=screen LANG=C.UTF-8 %s PS1='$ ' HISTFILE= bash --norc "
        "--noprofile -i",
        tmp, sanitizer_env());
    TMUX("new-session", "-d", "-s", "t", "-x", "100", "-y", "30", cmd);
    free(wait_prompt("$"));
    char line[700];
    snprintf(line, sizeof line,
             "cd %s && stty -g > before && %s -list -noheader; stty -g > after; touch status\r", tmp,
             STRATA_BIN);
    type(line);
    free(wait_prompt("strata>"));
    type_seen("select 'sus");
    key("C-z");
    expect_screen("Stopped");
    free(wait_prompt("$"));
    type("fg\r");
    expect_screen("strata> select 'sus\n"); /* the prompt and the line again, below "fg" */
    type("pended';\r");
    char *s = wait_output("suspended");
    cr_expect(strstr(s, "strata> select 'suspended';\n"), "the line was not edited whole; screen:\n%s", s);
    free(s);
    type(".quit\r");
    wait_exit();
    expect_tty_restored();
}

/* ---- characters, the screen -------------------------------------------------------------- */

Test(tty, utf8_typed_at_the_terminal_reaches_the_statement) {
    start("-list -noheader");
    free(wait_prompt("strata>"));
    type("select 'é', length('é'), 'naïve 日本';\r");
    char *s = wait_output("é|1|naïve 日本");
    cr_expect(has_line(s, "é|1|naïve 日本"), "screen:\n%s", s);
    free(s);
}

Test(tty, utf8_is_read_in_a_plain_c_environment_too) {
    start_in("", "-list -noheader"); /* no LANG, LC_ALL or LC_CTYPE: the C locale */
    free(wait_prompt("strata>"));
    type("select 'é', length('é'), 1.5 * 2;\r");
    char *s = wait_output("é|1|3.0");
    cr_expect(has_line(s, "é|1|3.0"), "screen:\n%s", s);
    free(s);
}

Test(tty, ctrl_l_clears_the_screen_and_keeps_the_line) {
    start("-list -noheader");
    free(wait_prompt("strata>"));
    type("select 'before clear';\r");
    free(wait_output("before clear"));
    type_seen("select 'typed'");
    key("C-l");
    double t0 = now();
    char *s;
    for (;;) { /* the screen holds only the prompt and the line */
        s = screen();
        if (!strstr(s, "before clear")) break;
        cr_assert(now() - t0 < WAIT_SECONDS, "Ctrl-L did not clear; screen:\n%s", s);
        free(s);
        pause_ms(50);
    }
    cr_expect(!strncmp(s, "strata> select 'typed'\n", 23), "screen:\n%s", s);
    free(s);
    type(";\r");
    s = wait_output("typed");
    cr_expect(has_line(s, "typed"), "the kept line did not run; screen:\n%s", s);
    free(s);
}

/* ---- the progress bar -------------------------------------------------------------------- */

/* The long statements are a cross join of generate_series(1, 20000) with generate_series(1, rows),
** summing a % 7 + b. long_rows times a join of LONG_PROBE rows first (outside a terminal) and
** scales it to run about LONG_SECONDS, over the bar's 2 s, on this machine and build (a sanitizer
** build is several times slower). */
#define LONG_SECONDS 4.0
#define LONG_PROBE 1500

static void long_query(char *sql, size_t size, int rows, const char *after) {
    snprintf(sql, size,
             "select sum(a.generate_series %% 7 + b.generate_series)%s from generate_series(1, 20000) a, "
             "generate_series(1, %d) b;",
             after, rows);
}

static int long_rows(void) {
    char sql[512];
    long_query(sql, sizeof sql, LONG_PROBE, "");
    double t0 = now();
    run_result r =
        run_program(tmp, (const char *const[]){STRATA_BIN, "-list", "-noheader", "-c", sql, NULL}, NULL);
    double took = now() - t0;
    cr_assert_eq(r.status, 0, "the probe failed: %s", r.err);
    run_free(&r);
    double rows = LONG_PROBE * LONG_SECONDS / (took > 0.001 ? took : 0.001);
    return rows < LONG_PROBE ? LONG_PROBE : rows > 1000000 ? 1000000 : (int)rows;
}

/* long_sum is the long statement's result for rows. */
static long long long_sum(int rows) {
    long long mod = 0;
    for (int a = 1; a <= 20000; a++)
        mod += a % 7;
    return mod * rows + 20000LL * rows * (rows + 1) / 2;
}

/* type_long types the long statement (its select list ending with after) and returns rows. */
static int type_long(const char *after) {
    char sql[512];
    int rows = long_rows();
    long_query(sql, sizeof sql, rows, after);
    type(sql);
    type("\r");
    return rows;
}

Test(tty, the_progress_bar_is_gone_before_a_long_querys_result) {
    start("");
    free(wait_prompt("strata>"));
    long long sum = long_sum(type_long(""));
    expect_screen("rows read"); /* the bar showed */
    char *s = wait_prompt("strata>");
    char value[64], top[256], bottom[256];
    snprintf(value, sizeof value, "│ %lld │", sum);
    int width = snprintf(NULL, 0, "%lld", sum) + 2;
    strcpy(top, "┌");
    strcpy(bottom, "└");
    for (int i = 0; i < width; i++) {
        strcat(top, "─");
        strcat(bottom, "─");
    }
    strcat(top, "┐");
    strcat(bottom, "┘\nstrata>");
    cr_expect(!strstr(s, "rows read"), "the bar stayed; screen:\n%s", s);
    cr_expect(has_line(s, top), "the result does not start a line; screen:\n%s", s);
    cr_expect(has_line(s, value), "no %s; screen:\n%s", value, s);
    cr_expect(strstr(s, bottom), "screen:\n%s", s);
    free(s);
}

Test(tty, the_progress_bar_is_gone_before_an_error) {
    start("");
    free(wait_prompt("strata>"));
    type_long(" / 0"); /* the long join, then a division by zero once it is done */
    expect_screen("rows read");
    char *s = wait_prompt("strata>");
    cr_expect(!strstr(s, "rows read"), "the bar stayed; screen:\n%s", s);
    cr_expect(strstr(s, "\nError: "), "no error on a line of its own; screen:\n%s", s);
    free(s);
}

Test(tty, ctrl_c_stops_a_running_statement_and_the_prompt_comes_back) {
    start("");
    free(wait_prompt("strata>"));
    type_long("");
    expect_screen("rows read"); /* it runs: the bar shows */
    key("C-c");
    char *s = wait_prompt("strata>");
    cr_expect(strstr(s, "\nError: interrupted\nstrata>"), "screen:\n%s", s);
    cr_expect(!strstr(s, "rows read") && !strstr(s, "┌"), "screen:\n%s", s);
    free(s);
    type("select 'next' as word;\r"); /* the Ctrl-C was the statement's, not the next prompt's */
    s = wait_output("│ next │");
    cr_expect(has_line(s, "│ next │"), "screen:\n%s", s);
    free(s);
}

Test(tty, import_after_an_idle_prompt_shows_no_bar) {
    write_file(path_in("small.csv"), "id,name\n1,one\n2,two\n3,three\n4,four\n5,five\n");
    start("-list -noheader");
    free(wait_prompt("strata>"));
    pause_ms(2500); /* idle at the prompt for longer than the bar's delay */
    type(".import small.csv t\r");
    expect_screen("strata> .import small.csv t\nstrata>");
    type("select count(*), max(name) from t;\r");
    char *s = wait_output("5|two");
    cr_expect(has_line(s, "5|two"), "screen:\n%s", s);
    cr_expect(!strstr(s, "%") && !strstr(s, " B of "), "a bar was drawn; screen:\n%s", s);
    cr_expect(strstr(s, "strata> .import small.csv t\nstrata> select count(*)"), "screen:\n%s", s);
    free(s);
}
