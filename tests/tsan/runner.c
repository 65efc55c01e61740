/*
** tests/tsan/runner.c -- the test runner of the ThreadSanitizer builds (make test TSAN=1), in
** place of Criterion's, which cannot start under TSan (see criterion/criterion.h beside it).
**
** Every registered Test runs in a forked child (the runner itself starts no thread, so the fork
** is safe under TSan): the suite's .init, the test's .init, the body, the test's .fini, the
** suite's .fini. A fatal assertion prints file:line, the expression and the message, runs the
** .fini functions and exits 1; a child that exits non-zero (a TSan report exits 66), is killed
** by a signal or outlives four times its .timeout fails the test; cr_skip_test exits 77, a skip.
** `--jobs N` runs N children at once; other arguments are ignored. The exit status is 0 when
** every test passed.
*/
#include <criterion/criterion.h>

#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_TESTS 1024
#define MAX_SUITES 64
#define SKIP_STATUS 77 /* a child's exit status for cr_skip_test */

typedef struct mc_test {
    const char *suite, *name;
    void (*fn)(void);
    const struct criterion_test_extra_data *opts;
    pid_t pid;
    double started;
} mc_test;

static mc_test tests[MAX_TESTS];
static int ntests;
static struct {
    const char *name;
    const struct criterion_test_extra_data *opts;
} suites[MAX_SUITES];
static int nsuites;

/* the test running in this child, for the .fini calls of a failed assertion */
static const struct criterion_test_extra_data *cur_suite, *cur_test;
static bool cur_failed, in_fini;

void mc_register_test(const char *suite, const char *name, void (*fn)(void),
                      const struct criterion_test_extra_data *opts) {
    if (ntests == MAX_TESTS) {
        fprintf(stderr, "tsan runner: more than %d tests\n", MAX_TESTS);
        exit(2);
    }
    tests[ntests++] = (mc_test){.suite = suite, .name = name, .fn = fn, .opts = opts};
}

void mc_register_suite(const char *suite, const struct criterion_test_extra_data *opts) {
    if (nsuites == MAX_SUITES) {
        fprintf(stderr, "tsan runner: more than %d suites\n", MAX_SUITES);
        exit(2);
    }
    suites[nsuites].name = suite;
    suites[nsuites++].opts = opts;
}

static void run_finis(void) {
    if (in_fini) return;
    in_fini = true;
    if (cur_test && cur_test->fini) cur_test->fini();
    if (cur_suite && cur_suite->fini) cur_suite->fini();
}

void mc_fail(bool fatal, const char *file, int line, const char *expr, const char *fmt, ...) {
    fprintf(stderr, "%s:%d: assertion failed: %s", file, line, expr);
    if (fmt[0]) {
        va_list ap;
        va_start(ap, fmt);
        fputs(": ", stderr);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
    }
    fputc('\n', stderr);
    cur_failed = true;
    if (fatal) {
        run_finis();
        exit(1);
    }
}

void mc_skip(const char *fmt, ...) {
    if (fmt[0]) {
        va_list ap;
        va_start(ap, fmt);
        fputs("skipped: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    run_finis();
    exit(SKIP_STATUS);
}

void mc_log(const char *level, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[%s] ", level);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const struct criterion_test_extra_data *suite_opts(const char *name) {
    for (int i = 0; i < nsuites; i++)
        if (strcmp(suites[i].name, name) == 0) return suites[i].opts;
    return NULL;
}

static void run_child(const mc_test *t) {
    cur_suite = suite_opts(t->suite);
    cur_test = t->opts;
    if (cur_suite && cur_suite->init) cur_suite->init();
    if (cur_test->init) cur_test->init();
    t->fn();
    run_finis();
    exit(cur_failed ? 1 : 0);
}

static int cmp_test(const void *a, const void *b) {
    const mc_test *x = a, *y = b;
    int c = strcmp(x->suite, y->suite);
    return c ? c : strcmp(x->name, y->name);
}

static int skipped;

/* report prints the result of the child pid that ended with status; returns 1 when it failed. */
static int report(pid_t pid, int status) {
    for (int i = 0; i < ntests; i++) {
        mc_test *t = &tests[i];
        if (t->pid != pid) continue;
        t->pid = 0;
        double dt = now_s() - t->started;
        bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (WIFEXITED(status) && WEXITSTATUS(status) == SKIP_STATUS) {
            printf("[SKIP] %s::%s\n", t->suite, t->name);
            skipped++;
            return 0;
        }
        if (ok)
            printf("[PASS] %s::%s (%.2fs)\n", t->suite, t->name, dt);
        else if (WIFSIGNALED(status))
            printf("[FAIL] %s::%s: killed by signal %d%s (%.2fs)\n", t->suite, t->name, WTERMSIG(status),
                   WTERMSIG(status) == SIGKILL ? " (timeout?)" : "", dt);
        else
            printf("[FAIL] %s::%s: exit status %d%s (%.2fs)\n", t->suite, t->name, WEXITSTATUS(status),
                   WEXITSTATUS(status) == 66 ? " (ThreadSanitizer report)" : "", dt);
        fflush(stdout);
        return ok ? 0 : 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    int jobs = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc) jobs = atoi(argv[++i]);
        else if (strncmp(argv[i], "--jobs=", 7) == 0) jobs = atoi(argv[i] + 7);
        else if (strncmp(argv[i], "-j", 2) == 0 && argv[i][2]) jobs = atoi(argv[i] + 2);
    }
    if (jobs < 1) jobs = 1;
    qsort(tests, (size_t)ntests, sizeof *tests, cmp_test);
    int failed = 0, running = 0, next = 0;
    while (next < ntests || running > 0) {
        while (running < jobs && next < ntests) {
            mc_test *t = &tests[next++];
            if (t->opts->disabled) {
                skipped++;
                continue;
            }
            fflush(stdout);
            fflush(stderr);
            t->started = now_s();
            pid_t pid = fork();
            if (pid < 0) {
                perror("fork");
                return 2;
            }
            if (pid == 0) run_child(t);
            t->pid = pid;
            running++;
        }
        if (running == 0) break;
        /* poll: reap what ended, kill what outlived its timeout */
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid > 0) {
            failed += report(pid, status);
            running--;
            continue;
        }
        double now = now_s();
        for (int i = 0; i < ntests; i++) {
            const struct criterion_test_extra_data *so = suite_opts(tests[i].suite);
            double limit = tests[i].opts->timeout > 0 ? tests[i].opts->timeout : so ? so->timeout : 0;
            if (tests[i].pid > 0 && limit > 0 && now - tests[i].started > limit * 4) /* TSan is slower */
                kill(tests[i].pid, SIGKILL);
        }
        usleep(2000);
    }
    printf("[====] Synthesis: Tested: %d | Passing: %d | Failing: %d | Skipped: %d\n", ntests - skipped,
           ntests - skipped - failed, failed, skipped);
    return failed ? 1 : 0;
}
