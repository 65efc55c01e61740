/*
** shell_run.h -- the shell's tests (tests/cli/) run the built binary, STRATA_BIN (passed by the
** Makefile), in the test file's temporary folder, and check what it wrote exactly.
**
** The including file defines its folder first, `static char tmp[] = "/tmp/strata-...-XXXXXX";`,
** and makes it in its setup (mkdtemp).
*/
#ifndef STRATA_TEST_SHELL_RUN_H
#define STRATA_TEST_SHELL_RUN_H

#include <criterion/criterion.h>
#include <stdio.h>

#include "helpers/run_program.h"

#ifndef STRATA_BIN
#error "STRATA_BIN must name the strata binary (the Makefile passes it)"
#endif

/* path_in returns tmp/name in a static buffer (one at a time). */
static inline const char *path_in(const char *name) {
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    return path;
}

/* run starts the shell with args (NULL-terminated, without the program name) and input on its
** standard input, in tmp, waits for it and collects what it wrote. */
static inline run_result run(const char *input, const char *const *args) {
    const char *argv[32] = {STRATA_BIN};
    int argc = 1;
    for (; args && args[argc - 1]; argc++)
        argv[argc] = args[argc - 1];
    argv[argc] = NULL;
    return run_program(tmp, argv, input);
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* expect_run runs the shell and asserts its status, standard output and standard error. */
#define expect_run(input, args, status_, out_, err_)                                                         \
    do {                                                                                                     \
        run_result r_ = run(input, args);                                                                    \
        cr_expect_str_eq(r_.out, out_, "stdout was:\n%s", r_.out);                                           \
        cr_expect_str_eq(r_.err, err_, "stderr was:\n%s", r_.err);                                           \
        cr_expect_eq(r_.status, status_, "exit status %d, stderr: %s", r_.status, r_.err);                   \
        run_free(&r_);                                                                                       \
    } while (0)

#endif
