/*
** test_sigkill.c -- a writer process killed with SIGKILL at a random moment loses no commit.
**
** A child process writes small durable transactions to a real file (POSIX vfs): transaction s puts
** "seq-<s>" (a value that names s; every tenth one several pages long, so overflow chains and
** checkpoints are under way when the kill comes) and sets "last" to s. After kv_commit returns
** STRATA_OK it reports s to the parent through a pipe. The parent kills it after a random delay,
** reopens the file and checks what a user relies on: every reported sequence is there with its
** exact value, nothing beyond the last reported + 1 is there, "last" names the highest sequence
** present (the two puts of a transaction are atomic), the integrity check finds nothing, and the
** next child continues on the recovered file. SIGKILL keeps what was written, so this checks the
** commit and recovery protocol rather than fsync.
*/
#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../rowstore/kv.h"
#include "helpers/tmpdir.h"
#include "helpers/workload.h"

#define ROUNDS 30
#define SEQ_KEY_LEN 14 /* "seq-" + 10 digits */

static size_t seq_key(char *buf, uint64_t seq) {
    snprintf(buf, SEQ_KEY_LEN + 1, "seq-%010llu", (unsigned long long)seq);
    return SEQ_KEY_LEN;
}

static size_t seq_value_len(uint64_t seq) {
    if (seq % 10 == 3) return 5000 + (seq * 7919) % 6000; /* longer than a 4 KiB page */
    return 16 + (seq * 7919) % 300;
}

static uint32_t seq_tag(uint64_t seq) { return (uint32_t)(seq * 2654435761u); }

static kv_options options(void) {
    kv_options o;
    memset(&o, 0, sizeof o);
    o.vfs = NULL; /* POSIX */
    o.pager.page_size = 4096;
    o.pager.autocheckpoint_bytes = 32 << 10; /* checkpoints happen often, so some are killed */
    return o;
}

/* The child: commit transactions start, start+1, ... and report each after it committed. Never
** returns; the exit status says why it stopped if it was not killed. */
static void child_writer(const char *path, uint64_t start, int fd) {
    kv_options o = options();
    kv_db *db = NULL;
    strata_err err = {0};
    int rc = kv_open(path, &o, &db, &err);
    if (rc != STRATA_OK) {
        fprintf(stderr, "child: kv_open: %s: %s\n", strata_errstr(rc), err.msg);
        _exit(10);
    }
    uint8_t *val = malloc(16384);
    if (val == NULL) _exit(11);
    for (uint64_t seq = start;; seq++) {
        kv_txn *t = NULL;
        rc = kv_begin(db, 1, &t, &err);
        if (rc != STRATA_OK) {
            fprintf(stderr, "child: kv_begin: %s: %s\n", strata_errstr(rc), err.msg);
            _exit(12);
        }
        char key[SEQ_KEY_LEN + 1];
        size_t klen = seq_key(key, seq), vlen = seq_value_len(seq);
        wl_value_fill(val, vlen, (uint32_t)seq, seq_tag(seq));
        rc = kv_put(t, key, klen, val, vlen);
        if (rc == STRATA_OK) rc = kv_put(t, "last", 4, &seq, sizeof seq);
        if (rc != STRATA_OK) {
            fprintf(stderr, "child: kv_put seq %llu: %s: %s\n", (unsigned long long)seq, strata_errstr(rc),
                    kv_txn_errmsg(t));
            _exit(13);
        }
        rc = kv_commit(t);
        if (rc != STRATA_OK) {
            fprintf(stderr, "child: kv_commit seq %llu: %s\n", (unsigned long long)seq, strata_errstr(rc));
            _exit(14);
        }
        if (write(fd, &seq, sizeof seq) != (ssize_t)sizeof seq) _exit(15);
    }
}

/* Check the file after a kill. Every sequence 1..reported must be present, reported + 1 may be,
** nothing else. Returns the highest sequence present. */
static uint64_t verify(const char *path, uint64_t reported, int round) {
    kv_options o = options();
    kv_db *db = NULL;
    strata_err err = {0};
    int rc = kv_open(path, &o, &db, &err);
    cr_assert_eq(rc, STRATA_OK, "round %d: reopen after SIGKILL: %s: %s", round, strata_errstr(rc), err.msg);
    kv_txn *t = NULL;
    cr_assert_eq(kv_begin(db, 0, &t, &err), STRATA_OK, "%s", err.msg);
    kv_cursor *c = NULL;
    cr_assert_eq(kv_cursor_open(t, &c), STRATA_OK, "%s", kv_txn_errmsg(t));
    /* "last" sorts before "seq-..." */
    rc = kv_cursor_first(c);
    cr_assert_eq(rc, STRATA_OK, "round %d: cursor first: %s", round, kv_txn_errmsg(t));
    uint64_t last = 0;
    int have_last = 0;
    uint64_t expect = 1;
    while (kv_cursor_valid(c)) {
        const uint8_t *k, *v;
        size_t klen, vlen;
        cr_assert_eq(kv_cursor_key(c, &k, &klen), STRATA_OK, "%s", kv_txn_errmsg(t));
        cr_assert_eq(kv_cursor_value(c, &v, &vlen), STRATA_OK, "round %d: value: %s", round,
                     kv_txn_errmsg(t));
        if (klen == 4 && memcmp(k, "last", 4) == 0) {
            cr_assert_eq(vlen, sizeof last, "round %d: 'last' has %zu bytes", round, vlen);
            memcpy(&last, v, sizeof last);
            have_last = 1;
        } else {
            char want[SEQ_KEY_LEN + 1];
            seq_key(want, expect);
            cr_assert(
                klen == SEQ_KEY_LEN && memcmp(k, want, klen) == 0,
                "round %d: expected key %s, found '%.*s' (reported up to %llu): a committed transaction is "
                "missing or a foreign key appeared",
                round, want, (int)klen, (const char *)k, (unsigned long long)reported);
            char why[256];
            cr_assert(wl_value_check(v, vlen, (uint32_t)expect, seq_tag(expect), seq_value_len(expect), why,
                                     sizeof why),
                      "round %d: seq %llu: %s", round, (unsigned long long)expect, why);
            expect++;
        }
        cr_assert_eq(kv_cursor_next(c), STRATA_OK, "round %d: next: %s", round, kv_txn_errmsg(t));
    }
    kv_cursor_close(c);
    uint64_t present = expect - 1;
    cr_assert_geq(present, reported, "round %d: commits up to %llu were reported, only up to %llu survived",
                  round, (unsigned long long)reported, (unsigned long long)present);
    cr_assert_leq(present, reported + 1,
                  "round %d: up to %llu present but only %llu reported: more than the one in-flight commit",
                  round, (unsigned long long)present, (unsigned long long)reported);
    if (present > 0) {
        cr_assert(have_last, "round %d: 'last' missing with %llu sequences present", round,
                  (unsigned long long)present);
        cr_assert_eq(last, present,
                     "round %d: 'last' is %llu but sequences up to %llu are present (not atomic)", round,
                     (unsigned long long)last, (unsigned long long)present);
    } else {
        cr_assert(!have_last, "round %d: 'last' present without any sequence", round);
    }
    kv_rollback(t);
    char why[512];
    cr_assert_eq(wl_integrity(db, why, sizeof why), STRATA_OK, "round %d: %s", round, why);
    cr_assert_eq(kv_close(db), STRATA_OK, "round %d: close", round);
    return present;
}

Test(sigkill, killed_writer_loses_no_commit, .timeout = 120) {
    const char *tmp = getenv("TMPDIR");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/strata-sigkill-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    char path[600];
    snprintf(path, sizeof path, "%s/kill.db", dir);

    wl_rng rng;
    wl_rng_seed(&rng, 0x5161c111ull);
    uint64_t present = 0, total_reported = 0;
    int rounds_with_commits = 0;
    for (int round = 1; round <= ROUNDS; round++) {
        int fds[2];
        cr_assert_eq(pipe(fds), 0);
        fflush(NULL);
        pid_t pid = fork();
        cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
        if (pid == 0) {
            close(fds[0]);
            child_writer(path, present + 1, fds[1]);
            _exit(1);
        }
        close(fds[1]);
        uint64_t reported = present, seq;
        ssize_t n;
        if (round % 2 == 0) {
            /* even rounds: the delay starts at the child's first commit, so that the kill lands in
            ** the stream of commits however slow the disk; odd rounds: it starts at the fork, so
            ** the kill may also land in the open and the recovery */
            struct pollfd pfd = {.fd = fds[0], .events = POLLIN};
            if (poll(&pfd, 1, 10000) == 1 && read(fds[0], &seq, sizeof seq) == (ssize_t)sizeof seq) {
                cr_assert_eq(seq, reported + 1, "round %d: child reported %llu after %llu", round,
                             (unsigned long long)seq, (unsigned long long)reported);
                reported = seq;
            }
        }
        long delay_us = (long)wl_rng_range(&rng, 2000, 50000);
        struct timespec ts = {.tv_sec = 0, .tv_nsec = delay_us * 1000};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        int status = 0;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        /* reports written before the kill are still in the pipe */
        while ((n = read(fds[0], &seq, sizeof seq)) == (ssize_t)sizeof seq) {
            cr_assert_eq(seq, reported + 1, "round %d: child reported %llu after %llu", round,
                         (unsigned long long)seq, (unsigned long long)reported);
            reported = seq;
        }
        close(fds[0]);
        cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
                  "round %d: the child stopped by itself (exit status %d) before the kill; see its stderr",
                  round, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        if (reported > present) rounds_with_commits++;
        total_reported += reported - present;
        present = verify(path, reported, round);
    }
    cr_log_info("sigkill: %d rounds, %llu commits reported, %llu sequences in the file", ROUNDS,
                (unsigned long long)total_reported, (unsigned long long)present);
    /* the test means something only if the kills came while commits were being made */
    cr_assert_geq(rounds_with_commits, ROUNDS / 2, "only %d of %d rounds committed anything",
                  rounds_with_commits, ROUNDS);
    tmpdir_remove(dir);
}
