/*
** pool.c -- the worker pool: lazily started threads that run one task over morsels.
**
** The pool's fields are guarded by p->lock. A run publishes itself as a new generation (p->gen,
** p->run, p->run_workers): each thread whose index is below run_workers and which has not yet
** seen that generation takes part, and decrements p->running when its morsels are done; the
** caller, worker 0, waits for running == 0 before the run (on its stack) goes away. Inside a run,
** the stretches (pool.h) and the stop flag are atomics; the first error is written by the one
** worker that wins a compare-and-swap and read by the caller after the join (ordered by the lock).
*/
#include "pool.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A worker's stretch of morsels [next, end), one word so that its owner (from the front) and the
** others (from the back) claim with one compare-and-swap: next in the low 32 bits, end above. */
typedef struct stretch {
    _Alignas(64) _Atomic uint64_t span;
} stretch;

struct pool_run_state {
    const pool_job *job;
    uint64_t morsel, nmorsels;
    stretch *stretches;        /* one a worker; NULL: one shared counter, next */
    unsigned nstretches;
    atomic_uint_fast64_t next; /* the next morsel to claim, without stretches */
    atomic_int stop;           /* set by the first error or the interrupt */
    atomic_int failed;         /* 0 until a worker claims the right to record the first error */
    strata_err err;            /* the first error; written by the claimant only */
    pool_worker *workers;      /* workers[0..W-1]; [0] is the calling thread's */
};

typedef struct thread_slot {
    pool *pool;
    unsigned index; /* the worker index this thread plays: 1..POOL_MAX_WORKERS-1 */
    pthread_t tid;
    uint64_t seen; /* the last generation it took part in or skipped at its start */
} thread_slot;

struct pool {
    pthread_mutex_t lock;
    pthread_cond_t wake; /* threads wait here for a generation or for their exit */
    pthread_cond_t done; /* the caller waits here for running == 0; resizers for !busy */
    unsigned size;       /* configured workers, calling thread included */
    unsigned nthreads;   /* threads started: slots 1..nthreads */
    unsigned keep;       /* threads with an index above keep exit */
    bool busy;           /* a run (or a resize) holds the pool */
    uint64_t gen;
    pool_run_state *run;
    unsigned run_workers; /* W of generation gen */
    unsigned running;     /* threads of generation gen not yet done */
    int fail_create;      /* test hook: creations left before pthread_create fails; -1 never */
    uint64_t runs, inline_runs, create_failed;
    thread_slot slots[POOL_MAX_WORKERS];
};

static unsigned resolve_workers(unsigned workers) {
    if (workers == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        workers = n > 0 ? (unsigned)n : 1;
    }
    return workers > POOL_MAX_WORKERS ? POOL_MAX_WORKERS : workers;
}

/* ---- one worker's loop ---- */

/* fail records code as the run's first error unless another worker did, and stops the run. */
static void fail(pool_run_state *r, pool_worker *w, int code) {
    int expected = 0;
    if (atomic_compare_exchange_strong(&r->failed, &expected, 1)) {
        r->err.code = code;
        snprintf(r->err.msg, sizeof r->err.msg, "%s", w->err.code != STRATA_OK ? w->err.msg : strata_errstr(code));
    }
    atomic_store_explicit(&r->stop, 1, memory_order_relaxed);
}

static bool interrupted(const pool_job *job) {
    return job->interrupt && __atomic_load_n(job->interrupt, __ATOMIC_RELAXED) != 0;
}

/* take_from claims a morsel of stretch s: its first (front) or its last; false when it is empty. */
static bool take_from(stretch *s, bool front, uint64_t *i) {
    uint64_t v = atomic_load_explicit(&s->span, memory_order_relaxed);
    for (;;) {
        uint64_t next = v & UINT32_MAX, end = v >> 32;
        if (next >= end) return false;
        uint64_t to = front ? end << 32 | (next + 1) : (end - 1) << 32 | next;
        if (atomic_compare_exchange_weak_explicit(&s->span, &v, to, memory_order_relaxed, memory_order_relaxed)) {
            *i = front ? next : end - 1;
            return true;
        }
    }
}

/* claim gives worker self its next morsel: of its own stretch, else the last of another's. */
static bool claim(pool_run_state *r, unsigned self, uint64_t *i) {
    if (!r->stretches) {
        *i = atomic_fetch_add_explicit(&r->next, 1, memory_order_relaxed);
        return *i < r->nmorsels;
    }
    for (unsigned k = 0; k < r->nstretches; k++)
        if (take_from(&r->stretches[(self + k) % r->nstretches], k == 0, i)) return true;
    return false;
}

static void work(pool_run_state *r, pool_worker *w) {
    const pool_job *job = r->job;
    for (;;) {
        if (atomic_load_explicit(&r->stop, memory_order_relaxed)) return;
        if (interrupted(job)) {
            fail(r, w, STRATA_INTERRUPT);
            return;
        }
        uint64_t i;
        if (!claim(r, w->index, &i)) break;
        uint64_t begin = i * r->morsel;
        uint64_t end = job->total - begin < r->morsel ? job->total : begin + r->morsel;
        int rc = job->run_morsel(job->arg, w, begin, end);
        if (rc != STRATA_OK) {
            fail(r, w, rc);
            return;
        }
    }
    if (job->finish && !atomic_load_explicit(&r->stop, memory_order_relaxed)) {
        int rc = job->finish(job->arg, w);
        if (rc != STRATA_OK) fail(r, w, rc);
    }
}

/* ---- pool threads ---- */

static void *thread_main(void *arg) {
    thread_slot *t = arg;
    pool *p = t->pool;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (t->index <= p->keep && (p->gen == t->seen || t->index >= p->run_workers))
            pthread_cond_wait(&p->wake, &p->lock);
        if (t->index > p->keep) break;
        t->seen = p->gen;
        pool_run_state *r = p->run;
        pthread_mutex_unlock(&p->lock);
        work(r, &r->workers[t->index]);
        pthread_mutex_lock(&p->lock);
        if (--p->running == 0) pthread_cond_broadcast(&p->done); /* the caller, and resizers waiting */
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* start_threads starts threads until `want` run (called with p->lock held, p->busy set). A failure
** leaves fewer; the run uses those. Signals are blocked in the new threads, so that a program's
** handlers (the shell's Ctrl-C) run on its own threads. */
static void start_threads(pool *p, unsigned want) {
    if (p->nthreads >= want) return;
    sigset_t all, old;
    sigfillset(&all);
    bool masked = pthread_sigmask(SIG_SETMASK, &all, &old) == 0;
    while (p->nthreads < want) {
        thread_slot *t = &p->slots[p->nthreads + 1];
        t->pool = p;
        t->index = p->nthreads + 1;
        t->seen = p->gen;
        int rc;
        if (p->fail_create == 0) {
            rc = EAGAIN;
        } else {
            if (p->fail_create > 0) p->fail_create--;
            rc = pthread_create(&t->tid, NULL, thread_main, t);
        }
        if (rc != 0) {
            p->create_failed++;
            break;
        }
        p->nthreads++;
    }
    if (masked) pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* stop_threads joins the threads with an index above keep (called with p->lock held and p->busy
** set; the lock is released while joining). */
static void stop_threads(pool *p, unsigned keep) {
    p->keep = keep;
    if (p->nthreads <= keep) return;
    unsigned from = keep + 1, to = p->nthreads;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = from; i <= to; i++) pthread_join(p->slots[i].tid, NULL);
    pthread_mutex_lock(&p->lock);
    p->nthreads = keep;
}

/* ---- the pool ---- */

pool *pool_create(unsigned workers) {
    pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    if (pthread_mutex_init(&p->lock, NULL) != 0) goto fail_lock;
    if (pthread_cond_init(&p->wake, NULL) != 0) goto fail_wake;
    if (pthread_cond_init(&p->done, NULL) != 0) goto fail_done;
    p->size = resolve_workers(workers);
    p->keep = p->size - 1;
    p->fail_create = -1;
    return p;
fail_done:
    pthread_cond_destroy(&p->wake);
fail_wake:
    pthread_mutex_destroy(&p->lock);
fail_lock:
    free(p);
    return NULL;
}

void pool_destroy(pool *p) {
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    while (p->busy) pthread_cond_wait(&p->done, &p->lock);
    p->busy = true;
    stop_threads(p, 0);
    pthread_mutex_unlock(&p->lock);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

void pool_set_workers(pool *p, unsigned workers) {
    pthread_mutex_lock(&p->lock);
    while (p->busy) pthread_cond_wait(&p->done, &p->lock);
    p->busy = true;
    p->size = resolve_workers(workers);
    stop_threads(p, p->size - 1);
    p->busy = false;
    pthread_cond_broadcast(&p->done);
    pthread_mutex_unlock(&p->lock);
}

int pool_run(pool *p, const pool_job *job, unsigned *used, strata_err *err) {
    pool_run_state r = {.job = job, .morsel = job->morsel ? job->morsel : 1};
    r.nmorsels = job->total / r.morsel + (job->total % r.morsel != 0);
    atomic_init(&r.next, 0);
    atomic_init(&r.stop, 0);
    atomic_init(&r.failed, 0);

    unsigned w = 1;
    bool took = false;
    pthread_mutex_lock(&p->lock);
    if (p->busy) {
        p->inline_runs++;
    } else {
        took = true;
        p->busy = true;
        p->runs++;
        unsigned want = job->workers && job->workers < p->size ? job->workers : p->size;
        if (want > r.nmorsels) want = r.nmorsels > 0 ? (unsigned)r.nmorsels : 1;
        start_threads(p, want - 1);
        w = 1 + (want - 1 < p->nthreads ? want - 1 : p->nthreads);
    }
    pthread_mutex_unlock(&p->lock);

    pool_worker alone;
    r.workers = w > 1 ? calloc(w, sizeof *r.workers) : NULL;
    /* stretches while the morsels' numbers fit their 32 bits (else the shared counter) */
    if (r.workers && r.nmorsels <= UINT32_MAX && (r.stretches = aligned_alloc(64, w * sizeof *r.stretches))) {
        r.nstretches = w;
        for (unsigned i = 0; i < w; i++)
            atomic_init(&r.stretches[i].span, (r.nmorsels * (i + 1) / w) << 32 | r.nmorsels * i / w);
    }
    if (!r.workers) {
        w = 1;
        memset(&alone, 0, sizeof alone);
        r.workers = &alone;
    }
    for (unsigned i = 0; i < w; i++) {
        r.workers[i].index = i;
        r.workers[i].run = &r;
    }

    if (w > 1) {
        pthread_mutex_lock(&p->lock);
        p->run = &r;
        p->run_workers = w;
        p->running = w - 1;
        p->gen++;
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->lock);
    }
    work(&r, &r.workers[0]);
    if (took) {
        pthread_mutex_lock(&p->lock);
        while (p->running > 0) {
            if (!job->poll || atomic_load_explicit(&r.stop, memory_order_relaxed)) {
                pthread_cond_wait(&p->done, &p->lock);
                continue;
            }
            struct timespec due;
            clock_gettime(CLOCK_REALTIME, &due);
            due.tv_nsec += POOL_POLL_NS;
            due.tv_sec += due.tv_nsec / 1000000000;
            due.tv_nsec %= 1000000000;
            if (pthread_cond_timedwait(&p->done, &p->lock, &due) != ETIMEDOUT) continue;
            pthread_mutex_unlock(&p->lock);
            int rc = job->poll(job->arg, &r.workers[0]);
            if (rc != STRATA_OK) fail(&r, &r.workers[0], rc);
            pthread_mutex_lock(&p->lock);
        }
        p->run = NULL;
        p->busy = false;
        pthread_cond_broadcast(&p->done);
        pthread_mutex_unlock(&p->lock);
    }
    if (r.workers != &alone) free(r.workers);
    free(r.stretches);

    if (used) *used = w;
    if (r.err.code != STRATA_OK) return err_set(err, r.err.code, "%s", r.err.msg);
    return STRATA_OK;
}

bool pool_stopping(const pool_worker *w) {
    return atomic_load_explicit(&w->run->stop, memory_order_relaxed) || interrupted(w->run->job);
}

void pool_get_stats(pool *p, pool_stats *st) {
    pthread_mutex_lock(&p->lock);
    *st = (pool_stats){.workers = p->size, .threads = p->nthreads, .runs = p->runs,
                       .inline_runs = p->inline_runs, .create_failed = p->create_failed};
    pthread_mutex_unlock(&p->lock);
}

void pool_test_fail_create(pool *p, int allowed) {
    pthread_mutex_lock(&p->lock);
    p->fail_create = allowed;
    pthread_mutex_unlock(&p->lock);
}
