/*
** test_pool.c -- the worker pool (core/pool.h): the same results for W = 1, 2, 4, 8, 16 (more
** threads than cores, on purpose), every morsel claimed once, in stretches of neighbours, the first error stopping the others
** promptly and returned, the interrupt flag, back-to-back and concurrent runs, lazy start, resize,
** destroy, and the fallback to fewer workers when pthread_create fails (pool_test_fail_create).
** Threads are counted in /proc/self/task as well as in the pool's stats.
*/
#include <criterion/criterion.h>
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pool.h"

static int task_count(void) {
    DIR *d = opendir("/proc/self/task");
    cr_assert_not_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

/* tasks_settle waits (up to 2 s) for the process to have `want` threads and returns how many it
** has: a joined thread may still be listed in /proc/self/task for a moment after pthread_join
** returns (the kernel wakes the joiner before it removes the task). */
static int tasks_settle(int want) {
    int n = task_count();
    for (int i = 0; i < 2000 && n != want; i++) {
        nanosleep(&(struct timespec){0, 1000000}, NULL);
        n = task_count();
    }
    return n;
}

/* no_op gives its thread id, whose /proc/self/task entry shows when the thread is gone. */
static void *no_op(void *arg) {
    *(pid_t *)arg = gettid();
    return NULL;
}

/* baseline_tasks counts the process's threads before a pool exists, after one thread has come and
** gone: a runtime that starts a helper thread of its own at the first pthread_create
** (ThreadSanitizer does) has it in the count by then. The count waits (up to 2 s) for that
** thread's entry to leave /proc/self/task, which can lag its pthread_join. */
static int baseline_tasks(void) {
    pthread_t th;
    pid_t tid = 0;
    cr_assert_eq(pthread_create(&th, NULL, no_op, &tid), 0);
    pthread_join(th, NULL);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d", (int)tid);
    for (int i = 0; i < 2000 && access(path, F_OK) == 0; i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    return task_count();
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- a parallel sum: per-worker partial sums, each item and morsel marked ---- */

#define MAXW 16
#define N_ITEMS 100003

typedef struct sum_job {
    const uint64_t *values;
    uint64_t morsel;
    struct { uint64_t sum; char pad[56]; } part[MAXW]; /* one cache line per worker */
    atomic_uchar *item_seen;
    atomic_uint *morsel_claims;
    atomic_uint finished[MAXW];
    atomic_uint bad_index;
    pthread_t caller;
    atomic_uint worker0_elsewhere;
} sum_job;

static int sum_morsel(void *arg, pool_worker *w, uint64_t begin, uint64_t end) {
    sum_job *s = arg;
    if (w->index >= MAXW) {
        atomic_fetch_add(&s->bad_index, 1);
        return STRATA_OK;
    }
    if (w->index == 0 && !pthread_equal(pthread_self(), s->caller)) atomic_fetch_add(&s->worker0_elsewhere, 1);
    if (begin % s->morsel != 0 || end <= begin || end - begin > s->morsel) atomic_fetch_add(&s->bad_index, 1);
    atomic_fetch_add(&s->morsel_claims[begin / s->morsel], 1);
    for (uint64_t i = begin; i < end; i++) {
        s->part[w->index].sum += s->values[i];
        atomic_fetch_add(&s->item_seen[i], 1);
    }
    return STRATA_OK;
}

static int sum_finish(void *arg, pool_worker *w) {
    sum_job *s = arg;
    if (w->index < MAXW) atomic_fetch_add(&s->finished[w->index], 1);
    return STRATA_OK;
}

static uint64_t *make_values(uint64_t n) {
    uint64_t *v = malloc(n * sizeof *v);
    cr_assert_not_null(v);
    uint64_t x = 88172645463325252ull;
    for (uint64_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        v[i] = x >> 20;
    }
    return v;
}

/* run_sum runs the sum of values[0..n) in morsels of `morsel` on W workers, checks every item and
** morsel was taken once and each worker finished once, and returns the sum. */
static uint64_t run_sum(pool *p, const uint64_t *values, uint64_t n, uint64_t morsel, unsigned w_wanted,
                        unsigned *used) {
    sum_job *s = calloc(1, sizeof *s);
    cr_assert_not_null(s);
    s->values = values;
    s->morsel = morsel ? morsel : 1; /* the pool reads 0 as 1 */
    s->caller = pthread_self();
    uint64_t nm = (n + s->morsel - 1) / s->morsel;
    s->item_seen = calloc(n ? n : 1, sizeof *s->item_seen);
    s->morsel_claims = calloc(nm ? nm : 1, sizeof *s->morsel_claims);
    cr_assert(s->item_seen && s->morsel_claims);
    pool_job job = {.total = n, .morsel = morsel, .workers = w_wanted, .run_morsel = sum_morsel,
                    .finish = sum_finish, .arg = s};
    strata_err err = {0};
    cr_assert_eq(pool_run(p, &job, used, &err), STRATA_OK, "%s", err.msg);
    cr_assert_eq(err.code, STRATA_OK);
    cr_assert_eq(atomic_load(&s->bad_index), 0, "a worker index or a morsel range was wrong");
    cr_assert_eq(atomic_load(&s->worker0_elsewhere), 0, "worker 0 is not the calling thread");
    for (uint64_t i = 0; i < n; i++) cr_assert_eq(atomic_load(&s->item_seen[i]), 1, "item %lu seen %u times", (unsigned long)i, atomic_load(&s->item_seen[i]));
    for (uint64_t m = 0; m < nm; m++) cr_assert_eq(atomic_load(&s->morsel_claims[m]), 1, "morsel %lu claimed %u times", (unsigned long)m, atomic_load(&s->morsel_claims[m]));
    uint64_t sum = 0;
    for (unsigned i = 0; i < MAXW; i++) {
        sum += s->part[i].sum;
        cr_assert_eq(atomic_load(&s->finished[i]), i < *used ? 1u : 0u, "worker %u finished %u times (%u used)", i,
                     atomic_load(&s->finished[i]), *used);
    }
    free(s->item_seen);
    free(s->morsel_claims);
    free(s);
    return sum;
}

Test(pool, sum_is_the_same_for_every_worker_count) {
    uint64_t *v = make_values(N_ITEMS);
    uint64_t serial = 0;
    for (uint64_t i = 0; i < N_ITEMS; i++) serial += v[i];
    pool *p = pool_create(MAXW);
    cr_assert_not_null(p);
    const unsigned ws[] = {1, 2, 4, 8, 16};
    const uint64_t morsels[] = {1, 7, 1000, 4096};
    for (size_t mi = 0; mi < sizeof morsels / sizeof *morsels; mi++)
        for (size_t wi = 0; wi < sizeof ws / sizeof *ws; wi++) {
            unsigned used = 0;
            uint64_t sum = run_sum(p, v, N_ITEMS, morsels[mi], ws[wi], &used);
            cr_assert_eq(sum, serial, "W=%u morsel=%lu: %lu, serial %lu", ws[wi], (unsigned long)morsels[mi],
                         (unsigned long)sum, (unsigned long)serial);
            cr_assert_eq(used, ws[wi], "W=%u morsel=%lu ran on %u workers", ws[wi], (unsigned long)morsels[mi], used);
        }
    pool_stats st;
    pool_get_stats(p, &st);
    cr_assert_eq(st.threads, 15);
    pool_destroy(p);
    free(v);
}

/* Each claim of the stretch test: which worker took which morsel, in the order of claims. */
#define STRETCH_MORSELS 1000
typedef struct claim_log {
    _Atomic unsigned n;
    unsigned worker[STRETCH_MORSELS], morsel[STRETCH_MORSELS];
    _Atomic unsigned taken[STRETCH_MORSELS];
} claim_log;

static int log_claim(void *arg, pool_worker *w, uint64_t begin, uint64_t end) {
    claim_log *l = arg;
    cr_assert_eq(end, begin + 1);
    unsigned k = atomic_fetch_add(&l->n, 1);
    l->worker[k] = w->index, l->morsel[k] = (unsigned)begin;
    atomic_fetch_add(&l->taken[begin], 1);
    if (w->index == 1) nanosleep(&(struct timespec){0, 20000}, NULL); /* a slow worker: others take its rest */
    return STRATA_OK;
}

/* The morsels go as W contiguous stretches: a worker takes its own from the front, in order, and
** others' from the back, in reverse; every morsel once. */
Test(pool, workers_take_stretches_of_neighbouring_morsels) {
    pool *p = pool_create(8);
    for (unsigned W = 2; W <= 8; W *= 2) {
        claim_log *l = calloc(1, sizeof *l);
        pool_job job = {.total = STRETCH_MORSELS, .morsel = 1, .workers = W, .run_morsel = log_claim, .arg = l};
        unsigned used;
        cr_assert_eq(pool_run(p, &job, &used, NULL), STRATA_OK);
        cr_assert_eq(used, W);
        cr_assert_eq(atomic_load(&l->n), STRETCH_MORSELS);
        for (unsigned m = 0; m < STRETCH_MORSELS; m++) cr_assert_eq(atomic_load(&l->taken[m]), 1, "morsel %u", m);
        /* per stretch: the owner took a first part of it, in order (its own claims ascend from the
        ** start); the others the rest, each of them from the end down */
        for (unsigned s = 0; s < W; s++) {
            unsigned lo = STRETCH_MORSELS * s / W, hi = STRETCH_MORSELS * (s + 1) / W, front = lo;
            unsigned last[8];
            for (unsigned w = 0; w < W; w++) last[w] = hi;
            for (unsigned k = 0; k < STRETCH_MORSELS; k++) {
                unsigned m = l->morsel[k], w = l->worker[k];
                if (m < lo || m >= hi) continue;
                if (w == s) {
                    cr_assert_eq(m, front++, "W=%u stretch %u: owner took %u", W, s, m);
                } else {
                    cr_assert_lt(m, last[w], "W=%u stretch %u: worker %u took %u after %u", W, s, w, m, last[w]);
                    last[w] = m;
                }
            }
            for (unsigned k = 0; k < STRETCH_MORSELS; k++)
                if (l->morsel[k] >= lo && l->morsel[k] < hi && l->worker[k] != s)
                    cr_assert_geq(l->morsel[k], front, "W=%u stretch %u: worker %u took %u of the owner's part", W, s,
                                  l->worker[k], l->morsel[k]);
        }
        free(l);
    }
    pool_destroy(p);
}

Test(pool, workers_are_capped_by_morsels_and_pool_size) {
    uint64_t *v = make_values(100);
    pool *p = pool_create(4);
    unsigned used = 0;
    uint64_t serial = 0;
    for (int i = 0; i < 100; i++) serial += v[i];
    cr_assert_eq(run_sum(p, v, 100, 10, 16, &used), serial); /* more than the pool's 4 */
    cr_assert_eq(used, 4);
    cr_assert_eq(run_sum(p, v, 100, 50, 4, &used), serial); /* two morsels: two workers */
    cr_assert_eq(used, 2);
    cr_assert_eq(run_sum(p, v, 0, 10, 4, &used), 0); /* nothing: one worker, finish still called */
    cr_assert_eq(used, 1);
    cr_assert_eq(run_sum(p, v, 100, 0, 0, &used), serial); /* morsel 0 means 1; workers 0 the pool's */
    cr_assert_eq(used, 4);
    pool_destroy(p);
    free(v);
}

Test(pool, one_worker_runs_inline_without_threads) {
    int before = baseline_tasks();
    pool *p = pool_create(1);
    uint64_t *v = make_values(5000);
    unsigned used = 0;
    uint64_t serial = 0;
    for (int i = 0; i < 5000; i++) serial += v[i];
    cr_assert_eq(run_sum(p, v, 5000, 64, 0, &used), serial);
    cr_assert_eq(used, 1);
    pool_stats st;
    pool_get_stats(p, &st);
    cr_assert_eq(st.threads, 0);
    cr_assert_eq(tasks_settle(before), before);
    /* W=1 asked of a bigger pool: inline too, and no thread starts */
    pool_set_workers(p, 8);
    cr_assert_eq(run_sum(p, v, 5000, 64, 1, &used), serial);
    pool_get_stats(p, &st);
    cr_assert_eq(st.threads, 0);
    cr_assert_eq(tasks_settle(before), before);
    pool_destroy(p);
    free(v);
}

Test(pool, threads_start_lazily_and_destroy_joins_them) {
    int before = baseline_tasks();
    pool *p = pool_create(4);
    pool_stats st;
    pool_get_stats(p, &st);
    cr_assert_eq(st.workers, 4);
    cr_assert_eq(st.threads, 0, "threads before the first run");
    cr_assert_eq(tasks_settle(before), before, "threads before the first run");
    uint64_t *v = make_values(1000);
    unsigned used;
    run_sum(p, v, 1000, 10, 0, &used);
    pool_get_stats(p, &st);
    cr_assert_eq(st.threads, 3);
    cr_assert_eq(tasks_settle(before + 3), before + 3);
    run_sum(p, v, 1000, 10, 0, &used); /* kept for the next run, not restarted */
    cr_assert_eq(tasks_settle(before + 3), before + 3);
    pool_destroy(p);
    cr_assert_eq(tasks_settle(before), before, "destroy left threads");
    pool_destroy(pool_create(4)); /* a pool never used */
    pool_destroy(NULL);
    cr_assert_eq(tasks_settle(before), before);
    free(v);
}

Test(pool, default_is_the_online_cores) {
    pool *p = pool_create(0);
    pool_stats st;
    pool_get_stats(p, &st);
    cr_assert_eq(st.workers, (unsigned)sysconf(_SC_NPROCESSORS_ONLN));
    pool_set_workers(p, 3);
    pool_get_stats(p, &st);
    cr_assert_eq(st.workers, 3);
    pool_set_workers(p, 0);
    pool_get_stats(p, &st);
    cr_assert_eq(st.workers, (unsigned)sysconf(_SC_NPROCESSORS_ONLN));
    pool_destroy(p);
}

Test(pool, resize_between_runs) {
    int before = baseline_tasks();
    uint64_t *v = make_values(4000);
    uint64_t serial = 0;
    for (int i = 0; i < 4000; i++) serial += v[i];
    pool *p = pool_create(8);
    unsigned used;
    cr_assert_eq(run_sum(p, v, 4000, 10, 0, &used), serial);
    cr_assert_eq(used, 8);
    cr_assert_eq(tasks_settle(before + 7), before + 7);
    pool_set_workers(p, 3); /* shrinking joins the extra threads at once */
    pool_stats st;
    pool_get_stats(p, &st);
    cr_assert_eq(st.workers, 3);
    cr_assert_eq(st.threads, 2);
    cr_assert_eq(tasks_settle(before + 2), before + 2);
    cr_assert_eq(run_sum(p, v, 4000, 10, 0, &used), serial);
    cr_assert_eq(used, 3);
    pool_set_workers(p, 6); /* growing starts threads at the next run */
    pool_get_stats(p, &st);
    cr_assert_eq(st.threads, 2);
    cr_assert_eq(run_sum(p, v, 4000, 10, 0, &used), serial);
    cr_assert_eq(used, 6);
    cr_assert_eq(tasks_settle(before + 5), before + 5);
    pool_set_workers(p, 1);
    cr_assert_eq(tasks_settle(before), before);
    cr_assert_eq(run_sum(p, v, 4000, 10, 0, &used), serial);
    cr_assert_eq(used, 1);
    pool_destroy(p);
    free(v);
}

/* ---- errors and cancellation ---- */

typedef struct fail_job {
    uint64_t fail_at;        /* the morsel that fails first */
    atomic_uint done;        /* morsels that ran */
    atomic_uint after;       /* morsels that started once the run was stopping */
    unsigned sleep_us;
    bool no_message;
    bool later_fail;         /* morsels after the failure fail too (else they succeed) */
} fail_job;

/* fail_morsel fails at fail_at. A morsel that starts once the run is stopping (pool_stopping: the
** first error is recorded by then) counts in `after`, and with later_fail fails too: that later
** error must not replace the first. */
static int fail_morsel(void *arg, pool_worker *w, uint64_t begin, uint64_t end) {
    (void)end;
    fail_job *f = arg;
    if (pool_stopping(w)) {
        atomic_fetch_add(&f->after, 1);
        atomic_fetch_add(&f->done, 1);
        if (f->later_fail) return err_set(&w->err, STRATA_IOERR, "a later error at %lu", (unsigned long)begin);
        return STRATA_OK;
    }
    if (begin == f->fail_at) {
        if (f->no_message) return STRATA_FULL;
        return err_set(&w->err, STRATA_CORRUPT, "morsel %lu: bad page", (unsigned long)begin);
    }
    if (f->sleep_us) usleep(f->sleep_us);
    atomic_fetch_add(&f->done, 1);
    return STRATA_OK;
}

Test(pool, first_error_stops_the_others_and_is_returned) {
    pool *p = pool_create(MAXW);
    const unsigned ws[] = {1, 2, 4, 8, 16};
    for (size_t wi = 0; wi < sizeof ws / sizeof *ws; wi++)
        for (int later_fail = 0; later_fail <= 1; later_fail++) {
            fail_job f = {.fail_at = 50, .sleep_us = 200, .later_fail = later_fail};
            pool_job job = {.total = 100000, .morsel = 1, .workers = ws[wi], .run_morsel = fail_morsel, .arg = &f};
            strata_err err = {0};
            unsigned used = 0;
            cr_assert_eq(pool_run(p, &job, &used, &err), STRATA_CORRUPT, "W=%u", ws[wi]);
            cr_assert_eq(used, ws[wi]);
            cr_assert_eq(err.code, STRATA_CORRUPT);
            cr_assert_str_eq(err.msg, "morsel 50: bad page");
            /* at most the morsel each other worker had claimed before it saw the stop flag */
            cr_assert_leq(atomic_load(&f.after), ws[wi] - 1, "W=%u: %u morsels started after the error", ws[wi],
                          atomic_load(&f.after));
            /* how many ran before the stop depends on the scheduler (a preempted failing worker); that
            ** the run stopped long before its end does not */
            cr_assert_lt(atomic_load(&f.done), job.total / 10, "W=%u: %u morsels ran", ws[wi], atomic_load(&f.done));
            if (ws[wi] == 1) cr_assert_eq(atomic_load(&f.done), 50, "inline: exactly the morsels before the error");
        }
    pool_destroy(p);
}

Test(pool, error_without_a_message_gets_the_codes_description) {
    pool *p = pool_create(4);
    fail_job f = {.fail_at = 3, .no_message = true};
    pool_job job = {.total = 100, .run_morsel = fail_morsel, .arg = &f};
    strata_err err = {0};
    cr_assert_eq(pool_run(p, &job, NULL, &err), STRATA_FULL);
    cr_assert_str_eq(err.msg, strata_errstr(STRATA_FULL));
    /* err may be NULL; an already recorded error in err is kept, as err_set promises */
    f = (fail_job){.fail_at = 3};
    cr_assert_eq(pool_run(p, &job, NULL, NULL), STRATA_CORRUPT);
    f = (fail_job){.fail_at = 3};
    cr_assert_eq(pool_run(p, &job, NULL, &err), STRATA_CORRUPT);
    cr_assert_eq(err.code, STRATA_FULL);
    cr_assert_str_eq(err.msg, strata_errstr(STRATA_FULL));
    pool_destroy(p);
}

/* Errors that come after the first one (from morsels already running when it came) do not
** replace it. */
typedef struct late_job {
    atomic_int failed;
    atomic_uint late_errors;
} late_job;

static int late_morsel(void *arg, pool_worker *w, uint64_t begin, uint64_t end) {
    (void)end;
    late_job *l = arg;
    if (begin == 0) {
        usleep(30000); /* the others have claimed their morsels by now */
        atomic_store(&l->failed, 1);
        return err_set(&w->err, STRATA_CORRUPT, "the first error");
    }
    for (int i = 0; i < 2000 && !atomic_load(&l->failed); i++) usleep(1000);
    usleep(10000);
    atomic_fetch_add(&l->late_errors, 1);
    return err_set(&w->err, STRATA_IOERR, "a later error at %lu", (unsigned long)begin);
}

Test(pool, a_later_error_does_not_replace_the_first) {
    pool *p = pool_create(4);
    for (int round = 0; round < 5; round++) {
        late_job l = {0};
        pool_job job = {.total = 4, .run_morsel = late_morsel, .arg = &l};
        strata_err err = {0};
        cr_assert_eq(pool_run(p, &job, NULL, &err), STRATA_CORRUPT);
        cr_assert_str_eq(err.msg, "the first error");
        cr_assert_geq(atomic_load(&l.late_errors), 1, "no later error: the test proved nothing");
    }
    pool_destroy(p);
}

/* A long morsel polls pool_stopping. */
typedef struct long_job {
    atomic_uint saw_stop;
} long_job;

static int long_morsel(void *arg, pool_worker *w, uint64_t begin, uint64_t end) {
    (void)end;
    long_job *l = arg;
    if (begin == 0) {
        usleep(20000);
        return err_set(&w->err, STRATA_NOMEM, "out of memory in morsel 0");
    }
    for (int i = 0; i < 5000; i++) { /* up to 5 s unless stopped */
        if (pool_stopping(w)) {
            atomic_fetch_add(&l->saw_stop, 1);
            return STRATA_OK;
        }
        usleep(1000);
    }
    return STRATA_OK;
}

Test(pool, a_long_morsel_polls_the_stop_flag) {
    pool *p = pool_create(4);
    long_job l = {0};
    pool_job job = {.total = 4, .run_morsel = long_morsel, .arg = &l};
    strata_err err = {0};
    double t0 = now_s();
    cr_assert_eq(pool_run(p, &job, NULL, &err), STRATA_NOMEM);
    double dt = now_s() - t0;
    cr_assert_str_eq(err.msg, "out of memory in morsel 0");
    cr_assert_eq(atomic_load(&l.saw_stop), 3, "the three long morsels saw the stop flag");
    cr_assert_lt(dt, 2.0, "took %.3f s", dt);
    pool_destroy(p);
}

/* The finish step runs once per worker; its error counts as the first error. */
static int ok_morsel(void *arg, pool_worker *w, uint64_t begin, uint64_t end) {
    (void)arg, (void)w, (void)begin, (void)end;
    return STRATA_OK;
}

static int finish_fails_on_2(void *arg, pool_worker *w) {
    atomic_fetch_add((atomic_uint *)arg, 1);
    if (w->index == 2) return err_set(&w->err, STRATA_CONSTRAINT, "worker 2 could not combine");
    return STRATA_OK;
}

Test(pool, an_error_in_finish_is_returned) {
    pool *p = pool_create(4);
    atomic_uint calls = 0;
    pool_job job = {.total = 1000, .morsel = 10, .run_morsel = ok_morsel, .finish = finish_fails_on_2, .arg = &calls};
    strata_err err = {0};
    unsigned used;
    cr_assert_eq(pool_run(p, &job, &used, &err), STRATA_CONSTRAINT);
    cr_assert_eq(used, 4);
    cr_assert_str_eq(err.msg, "worker 2 could not combine");
    cr_assert_leq(atomic_load(&calls), 4);
    cr_assert_geq(atomic_load(&calls), 1);
    pool_destroy(p);
}

/* ---- the interrupt flag ---- */

typedef struct intr_job {
    int flag;
    atomic_uint done;
} intr_job;

static int slow_morsel(void *arg, pool_worker *w, uint64_t begin, uint64_t end) {
    (void)w, (void)begin, (void)end;
    usleep(100);
    atomic_fetch_add(&((intr_job *)arg)->done, 1);
    return STRATA_OK;
}

static void *interrupt_later(void *arg) {
    usleep(30000);
    __atomic_store_n(&((intr_job *)arg)->flag, 1, __ATOMIC_RELAXED);
    return NULL;
}

Test(pool, the_interrupt_flag_stops_a_run) {
    pool *p = pool_create(8);
    const unsigned ws[] = {1, 4, 8};
    for (size_t wi = 0; wi < sizeof ws / sizeof *ws; wi++) {
        intr_job ij = {0};
        pool_job job = {.total = 1000000, .run_morsel = slow_morsel, .arg = &ij, .interrupt = &ij.flag,
                        .workers = ws[wi]};
        pthread_t th;
        cr_assert_eq(pthread_create(&th, NULL, interrupt_later, &ij), 0);
        strata_err err = {0};
        double t0 = now_s();
        cr_assert_eq(pool_run(p, &job, NULL, &err), STRATA_INTERRUPT);
        double dt = now_s() - t0;
        pthread_join(th, NULL);
        cr_assert_str_eq(err.msg, "interrupted");
        cr_assert_lt(atomic_load(&ij.done), 1000000 / 2);
        cr_assert_lt(dt, 5.0, "W=%u took %.3f s", ws[wi], dt);
    }
    /* set before the run: no morsel runs */
    intr_job ij = {.flag = 1};
    pool_job job = {.total = 100, .run_morsel = slow_morsel, .arg = &ij, .interrupt = &ij.flag};
    cr_assert_eq(pool_run(p, &job, NULL, NULL), STRATA_INTERRUPT);
    cr_assert_eq(atomic_load(&ij.done), 0);
    pool_destroy(p);
}

/* ---- the caller's poll while it waits for the others ---- */

typedef struct poll_job {
    atomic_uint polls;
    atomic_int poller_index; /* -1 until a poll saw a worker other than 0 */
    unsigned stop_at;        /* the poll that returns an error */
    atomic_int started;      /* morsel 1 runs */
} poll_job;

/* morsel 0 (the caller's stretch: W = 2, 2 morsels) ends once morsel 1 started on the other
** worker, which waits up to 10 s for the stop flag */
static int wait_morsel(void *arg, pool_worker *w, uint64_t begin, uint64_t end) {
    poll_job *pj = arg;
    (void)end;
    if (begin == 1) atomic_store(&pj->started, 1);
    for (int i = 0; begin == 0 && i < 10000 && !atomic_load(&pj->started); i++) usleep(1000);
    for (int i = 0; begin == 1 && i < 10000 && !pool_stopping(w); i++) usleep(1000);
    return STRATA_OK;
}

static int count_polls(void *arg, pool_worker *w) {
    poll_job *pj = arg;
    if (w->index != 0) atomic_store(&pj->poller_index, (int)w->index);
    if (atomic_fetch_add(&pj->polls, 1) + 1 < pj->stop_at) return STRATA_OK;
    return err_set(&w->err, STRATA_INTERRUPT, "stopped by poll %u", pj->stop_at);
}

/* the caller, out of morsels, polls every POOL_POLL_NS while a long morsel runs on another worker,
** and the poll's error stops that morsel and is the run's */
Test(pool, the_caller_polls_while_it_waits_and_its_error_stops_the_run) {
    pool *p = pool_create(2);
    poll_job pj = {.stop_at = 3};
    atomic_init(&pj.poller_index, -1);
    pool_job job = {.total = 2, .workers = 2, .run_morsel = wait_morsel, .poll = count_polls, .arg = &pj};
    strata_err err = {0};
    unsigned used = 0;
    double t0 = now_s();
    int rc = pool_run(p, &job, &used, &err);
    double dt = now_s() - t0;
    cr_assert_eq(used, 2);
    cr_assert_eq(rc, STRATA_INTERRUPT, "-> %d: %s", rc, err.msg);
    cr_assert_str_eq(err.msg, "stopped by poll 3");
    cr_assert_eq(atomic_load(&pj.polls), 3);
    cr_assert_eq(atomic_load(&pj.poller_index), -1, "polled as worker 0");
    cr_assert(dt >= 0.29 && dt < 5.0, "took %.3f s", dt);
    pj = (poll_job){.stop_at = 1};
    pool_job quick = {.total = 2, .workers = 2, .run_morsel = ok_morsel, .poll = count_polls, .arg = &pj};
    cr_assert_eq(pool_run(p, &quick, NULL, NULL), STRATA_OK, "a run shorter than a poll interval is not polled");
    cr_assert_eq(atomic_load(&pj.polls), 0);
    pool_destroy(p);
}

/* ---- many runs: back to back, from two threads at once, nested ---- */

Test(pool, many_back_to_back_runs) {
    uint64_t *v = make_values(300);
    pool *p = pool_create(8);
    uint64_t x = 12345;
    for (int round = 0; round < 2000; round++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t n = (x >> 33) % 300;
        uint64_t morsel = 1 + (x >> 45) % 16;
        unsigned w = 1 + (unsigned)((x >> 55) % 8);
        uint64_t serial = 0;
        for (uint64_t i = 0; i < n; i++) serial += v[i];
        unsigned used;
        cr_assert_eq(run_sum(p, v, n, morsel, w, &used), serial, "round %d", round);
        if (round % 500 == 499) pool_set_workers(p, 1 + (unsigned)(x >> 60) % 8); /* resizes in between */
    }
    pool_destroy(p);
    free(v);
}

typedef struct caller_arg {
    pool *p;
    const uint64_t *v;
    uint64_t serial;
    int wrong;
} caller_arg;

static void *caller_main(void *arg) {
    caller_arg *c = arg;
    for (int i = 0; i < 300; i++) {
        unsigned used;
        if (run_sum(c->p, c->v, 2000, 16, 0, &used) != c->serial) c->wrong++;
    }
    return NULL;
}

Test(pool, two_threads_share_a_pool) {
    uint64_t *v = make_values(2000);
    uint64_t serial = 0;
    for (int i = 0; i < 2000; i++) serial += v[i];
    pool *p = pool_create(4);
    caller_arg a = {p, v, serial, 0}, b = {p, v, serial, 0};
    pthread_t ta, tb;
    cr_assert_eq(pthread_create(&ta, NULL, caller_main, &a), 0);
    cr_assert_eq(pthread_create(&tb, NULL, caller_main, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    cr_assert_eq(a.wrong + b.wrong, 0);
    pool_stats st;
    pool_get_stats(p, &st);
    cr_assert_eq(st.runs + st.inline_runs, 600, "every call counted once");
    pool_destroy(p);
    free(v);
}

typedef struct nested_job {
    pool *p;
    atomic_uint inner_ok;
} nested_job;

static int nested_morsel(void *arg, pool_worker *w, uint64_t begin, uint64_t end) {
    (void)w, (void)begin, (void)end;
    nested_job *nj = arg;
    pool_job inner = {.total = 10, .run_morsel = ok_morsel};
    unsigned used = 99;
    if (pool_run(nj->p, &inner, &used, NULL) == STRATA_OK && used == 1) atomic_fetch_add(&nj->inner_ok, 1);
    return STRATA_OK;
}

Test(pool, a_nested_run_goes_inline, .timeout = 30) {
    pool *p = pool_create(4);
    nested_job nj = {.p = p};
    pool_job job = {.total = 40, .run_morsel = nested_morsel, .arg = &nj};
    cr_assert_eq(pool_run(p, &job, NULL, NULL), STRATA_OK);
    cr_assert_eq(atomic_load(&nj.inner_ok), 40);
    pool_stats st;
    pool_get_stats(p, &st);
    cr_assert_eq(st.runs, 1);
    cr_assert_eq(st.inline_runs, 40);
    pool_destroy(p);
}

/* ---- fallback when threads cannot be created ---- */

Test(pool, fewer_workers_when_pthread_create_fails) {
    int before = baseline_tasks();
    uint64_t *v = make_values(5000);
    uint64_t serial = 0;
    for (int i = 0; i < 5000; i++) serial += v[i];
    pool *p = pool_create(8);
    pool_test_fail_create(p, 0); /* no thread at all: inline */
    unsigned used;
    cr_assert_eq(run_sum(p, v, 5000, 10, 0, &used), serial);
    cr_assert_eq(used, 1);
    pool_stats st;
    pool_get_stats(p, &st);
    cr_assert_eq(st.threads, 0);
    cr_assert_eq(st.create_failed, 1);
    cr_assert_eq(tasks_settle(before), before);
    pool_test_fail_create(p, 2); /* two more, then failures */
    cr_assert_eq(run_sum(p, v, 5000, 10, 0, &used), serial);
    cr_assert_eq(used, 3);
    cr_assert_eq(tasks_settle(before + 2), before + 2);
    pool_test_fail_create(p, -1); /* the next run starts the rest */
    cr_assert_eq(run_sum(p, v, 5000, 10, 0, &used), serial);
    cr_assert_eq(used, 8);
    cr_assert_eq(tasks_settle(before + 7), before + 7);
    pool_destroy(p);
    cr_assert_eq(tasks_settle(before), before);
    free(v);
}
