/*
** pool.h -- a pool of worker threads that run one task over morsels.
**
** A pool is an object (pool_create/pool_destroy) with a configured number of workers W, the
** machine's online cores by default. Its one primitive, pool_run, runs a task on W workers: the
** calling thread is worker 0 and W-1 pool threads are workers 1..W-1. The morsels (index ranges of
** at most job->morsel items of [0, job->total)) are dealt as W contiguous stretches, one a worker:
** each worker claims the next morsel of its own stretch until it is empty, and then the last
** morsel of another's, until none is left; the call returns when every worker is done. So a
** worker's morsels are neighbours (rows of a table stored in key order give each worker a range of
** keys of its own: its GROUP BY table stays dense), and a slow worker's rest is taken over from
** the far end. W = 1 runs inline on the calling thread and starts no thread at all.
**
** Threads start lazily, at the first run that needs them, and stay for later runs. The first
** worker whose task returns an error stops the others: they check a stop flag between morsels (a
** long morsel polls pool_stopping), and pool_run returns that first error, code and message. An
** external interrupt flag (as strata_interrupt sets) stops a run the same way, with
** STRATA_INTERRUPT. When memory or pthread_create fails, a run uses the workers it has, down to
** the calling thread alone; the pool never aborts.
**
** The executor's parallel pipelines run on one such pool per process (planner/exec/pipeline.c),
** shared by every database handle and made at the first parallel run, configured for
** POOL_MAX_WORKERS: a run asks for its handle's SET threads, and threads start as runs need them.
** A pool per handle would multiply the threads (ten open handles, ten times the cores) without
** any query getting faster. A run on a busy pool does not wait: it runs inline (see pool_run), so
** two handles' queries never block each other on the pool.
**
** Locking: a pool's state is guarded by its own mutex; no global mutable state.
*/
#ifndef STRATA_POOL_H
#define STRATA_POOL_H

#include <stdbool.h>
#include <stdint.h>

#include "status.h"

typedef struct pool pool;
typedef struct pool_run_state pool_run_state;

/* What a task sees of the worker that runs it. */
typedef struct pool_worker {
    unsigned index;      /* 0 (the calling thread) .. workers-1: indexes per-worker state */
    strata_err err;      /* the task's error slot: a failing task sets it and returns its code */
    pool_run_state *run; /* the run (for pool_stopping) */
} pool_worker;

/* One call of pool_run. */
typedef struct pool_job {
    uint64_t total;   /* items [0, total) to process; 0: no morsel, only the finish calls */
    uint64_t morsel;  /* items per morsel (the last one may be shorter); 0 means 1 */
    unsigned workers; /* workers wanted: 0 means the pool's configured count; more is capped to it */
    /* run_morsel processes items [begin, end) on worker w; returns STRATA_OK, or an error code
    ** (with w->err set, or not: the code's description is the message then). */
    int (*run_morsel)(void *arg, pool_worker *w, uint64_t begin, uint64_t end);
    /* finish, when not NULL, is called once by each worker after it found no morsel left (the
    ** combine step of a thread-local sink) unless the run is stopping; an error counts as one of
    ** run_morsel's. */
    int (*finish)(void *arg, pool_worker *w);
    void *arg;
    /* interrupt, when not NULL, is read (atomically) between morsels: non-zero stops the run with
    ** STRATA_INTERRUPT "interrupted". */
    const volatile int *interrupt;
    /* poll, when not NULL, is called on the calling thread (as worker 0, w its worker) every
    ** POOL_POLL_NS or so while it waits for the other workers after its own morsels, so that what
    ** it does between morsels (a progress handler) goes on while the others finish; a non-zero
    ** return stops the run as an error of run_morsel's. */
    int (*poll)(void *arg, pool_worker *w);
} pool_job;

#define POOL_POLL_NS 100000000u /* 100 ms */

/* Counters of a pool, for tests and diagnostics. */
typedef struct pool_stats {
    unsigned workers;       /* configured workers (calling thread included) */
    unsigned threads;       /* pool threads running now (0 until the first run with W > 1) */
    uint64_t runs;          /* pool_run calls that took the pool */
    uint64_t inline_runs;   /* runs that found the pool busy and ran on the caller alone */
    uint64_t create_failed; /* pthread_create failures (a run then used fewer workers) */
} pool_stats;

/* pool_create makes a pool of `workers` workers (0: sysconf(_SC_NPROCESSORS_ONLN), at least 1;
** capped at POOL_MAX_WORKERS) and starts no thread. Returns NULL on out of memory. */
#define POOL_MAX_WORKERS 256
pool *pool_create(unsigned workers);

/* pool_destroy stops and joins every thread and frees the pool (NULL: nothing). The pool must be
** idle: no pool_run in progress. */
void pool_destroy(pool *p);

/* pool_set_workers changes the configured count (0: the cores, as pool_create). Threads beyond
** the new count are stopped and joined now; missing ones start at the next run that needs them.
** Waits for a run in progress to end, so it must not be called from inside a task. */
void pool_set_workers(pool *p, unsigned workers);

/* pool_run runs job on min(job->workers or the configured count, number of morsels, at least 1)
** workers and returns when all are done: STRATA_OK, or the first error (code returned, message
** recorded in err, which may be NULL). *used (may be NULL) receives the number of workers that
** took part: worker indexes are 0..*used-1. A pool that another run or a resize holds (another
** thread's run, or this run's own task calling pool_run again) is not waited for: the job runs
** inline on the calling thread, as W = 1, and counts in inline_runs. job->run_morsel must not be
** NULL when job->total > 0.
** Fewer threads than wanted (pthread_create or malloc failed) means fewer workers, never an
** error. The job's results depend on the task alone, not on W, when the task's are so. */
int pool_run(pool *p, const pool_job *job, unsigned *used, strata_err *err);

/* pool_stopping is true once the run of w is stopping (an error in any worker, or the interrupt
** flag): a long morsel polls it and returns early (its return code then does not matter). */
bool pool_stopping(const pool_worker *w);

/* pool_get_stats fills *st with p's counters. */
void pool_get_stats(pool *p, pool_stats *st);

/* Test hook: pool_test_fail_create makes pthread_create fail (as with EAGAIN) after `allowed`
** more successful thread creations; -1 (the default) turns it off. For tests of the fallback. */
void pool_test_fail_create(pool *p, int allowed);

#endif
