/*
** run_program.h -- running a built program from a test: files in and out, its exit status and
** what it wrote (the shell's tests and the benchmark gate's tests).
*/
#ifndef STRATA_TEST_RUN_PROGRAM_H
#define STRATA_TEST_RUN_PROGRAM_H

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct run_result {
    int status; /* the exit status, or 128 + signal */
    char *out;
    char *err;
} run_result;

static inline void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* read_bytes gives a file's bytes, NUL-terminated, malloc'd; *n (may be NULL) their number.
** read_all is the same for a text file. */
static inline char *read_bytes(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot read %s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)len + 1);
    cr_assert_not_null(s);
    cr_assert_eq(fread(s, 1, (size_t)len, f), (size_t)len);
    s[len] = '\0';
    fclose(f);
    if (n) *n = (size_t)len;
    return s;
}

static inline char *read_all(const char *path) { return read_bytes(path, NULL); }

/* run_program starts argv[0] with argv (NULL-terminated) in the directory dir, input on its
** standard input (NULL: empty; never a terminal), waits for it and collects its standard output
** and error (through files in dir). */
static inline run_result run_program(const char *dir, const char *const *argv, const char *input) {
    char in_path[600], out_path[600], err_path[600];
    snprintf(in_path, sizeof in_path, "%s/stdin", dir);
    snprintf(out_path, sizeof out_path, "%s/stdout", dir);
    snprintf(err_path, sizeof err_path, "%s/stderr", dir);
    write_file(in_path, input ? input : "");
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        int in = open(in_path, O_RDONLY), out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600),
            err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (in < 0 || out < 0 || err < 0 || chdir(dir) != 0) _exit(127);
        dup2(in, 0);
        dup2(out, 1);
        dup2(err, 2);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    run_result r = {.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st)};
    r.out = read_all(out_path);
    r.err = read_all(err_path);
    return r;
}

static inline void run_free(run_result *r) {
    free(r->out);
    free(r->err);
}

#endif
