/*
** test_status.c -- error slots (core/status.h): the first error kept, err_errno's message, err_copy,
** and a slot shared by threads that all fail at once keeping exactly one whole message, read whole
** by err_copy while the others are still writing.
*/
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "status.h"

Test(status, first_error_kept) {
    strata_err e;
    err_clear(&e);
    cr_assert_eq(err_set(&e, STRATA_CORRUPT, "page %u: bad", 7u), STRATA_CORRUPT);
    cr_assert_eq(err_set(&e, STRATA_IOERR, "later"), STRATA_IOERR);
    cr_assert_eq(e.code, STRATA_CORRUPT);
    cr_assert_str_eq(e.msg, "page 7: bad");
    cr_assert_eq(err_set(NULL, STRATA_NOMEM, "nowhere"), STRATA_NOMEM);
    err_clear(&e);
    cr_assert_eq(e.code, STRATA_OK);
    cr_assert_str_eq(e.msg, "");
}

Test(status, errno_message) {
    strata_err e;
    err_clear(&e);
    cr_assert_eq(err_errno(&e, ENOSPC, "writing %s", "f"), STRATA_FULL);
    char want[STRATA_ERRMSG_MAX];
    snprintf(want, sizeof want, "writing f: %s", strerror(ENOSPC));
    cr_assert_str_eq(e.msg, want);
    cr_assert_eq(err_errno(&e, ENOMEM, "again"), STRATA_NOMEM); /* code mapped, message kept */
    cr_assert_str_eq(e.msg, want);
}

Test(status, copy) {
    strata_err a, b;
    err_clear(&a);
    err_clear(&b);
    cr_assert_eq(err_copy(&b, &a), STRATA_OK);
    cr_assert_eq(b.code, STRATA_OK);
    err_set(&a, STRATA_CONSTRAINT, "dup");
    cr_assert_eq(err_copy(&b, &a), STRATA_CONSTRAINT);
    cr_assert_eq(b.code, STRATA_CONSTRAINT);
    cr_assert_str_eq(b.msg, "dup");
    err_set(&a, STRATA_IOERR, "x");
    err_clear(&a);
    err_set(&a, STRATA_IOERR, "other");
    cr_assert_eq(err_copy(&b, &a), STRATA_IOERR); /* b keeps its first error */
    cr_assert_str_eq(b.msg, "dup");
}

#define THREADS 8
#define ROUNDS 300

typedef struct racer {
    strata_err *shared;
    pthread_barrier_t *go;
    int id;
    strata_err seen; /* what err_copy read of the shared slot after this thread's err_set */
} racer;

/* msg_of is thread id's message: long, so that a torn write would show. */
static void msg_of(int id, char *buf, size_t cap) {
    int n = snprintf(buf, cap, "thread %d:", id);
    while ((size_t)n + 3 < cap && n < 400) n += snprintf(buf + n, cap - (size_t)n, " %d", id);
}

static void *race(void *arg) {
    racer *r = arg;
    char msg[STRATA_ERRMSG_MAX];
    msg_of(r->id, msg, sizeof msg);
    pthread_barrier_wait(r->go);
    if (r->id & 1) err_errno(r->shared, EIO, "%s", msg);
    else err_set(r->shared, STRATA_CORRUPT, "%s", msg);
    err_clear(&r->seen);
    err_copy(&r->seen, r->shared);
    return NULL;
}

/* whole_message says which thread's message m is exactly (-1: none, torn or mixed). */
static int whole_message(const strata_err *m) {
    for (int id = 0; id < THREADS; id++) {
        char want[STRATA_ERRMSG_MAX];
        msg_of(id, want, sizeof want);
        if (id & 1) {
            size_t len = strlen(want);
            snprintf(want + len, sizeof want - len, ": %s", strerror(EIO));
        }
        if (strcmp(m->msg, want) == 0 && m->code == (id & 1 ? STRATA_IOERR : STRATA_CORRUPT)) return id;
    }
    return -1;
}

Test(status, shared_slot_keeps_one_whole_message) {
    int winners[THREADS] = {0};
    for (int round = 0; round < ROUNDS; round++) {
        strata_err shared;
        err_clear(&shared);
        pthread_barrier_t go;
        pthread_barrier_init(&go, NULL, THREADS);
        racer r[THREADS];
        pthread_t th[THREADS];
        for (int i = 0; i < THREADS; i++) {
            r[i] = (racer){.shared = &shared, .go = &go, .id = i};
            cr_assert_eq(pthread_create(&th[i], NULL, race, &r[i]), 0);
        }
        for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
        pthread_barrier_destroy(&go);
        int w = whole_message(&shared);
        cr_assert_geq(w, 0, "round %d: the shared slot holds no thread's whole message: \"%s\"", round, shared.msg);
        winners[w]++;
        for (int i = 0; i < THREADS; i++) { /* every thread read the one kept message, whole */
            cr_assert_eq(r[i].seen.code, shared.code, "round %d, thread %d", round, i);
            cr_assert_str_eq(r[i].seen.msg, shared.msg, "round %d, thread %d", round, i);
        }
    }
    int total = 0;
    for (int i = 0; i < THREADS; i++) total += winners[i];
    cr_assert_eq(total, ROUNDS);
}
