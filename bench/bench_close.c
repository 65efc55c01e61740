/*
** bench_close.c -- what a session's start and end cost, strata against SQLite in WAL mode: the
** open, the first durable commit after it (since a clean close removes the WAL, this commit
** creates a new WAL), a second commit, and the close (checkpoint, WAL removal), on a small
** database (a 1,000-row table).
**
**     make build/release/bench/bench_close && build/release/bench/bench_close [--reps N] [--no-save] [--keep]
**
** Run from the repository root. Engines: strata (defaults of strata_open), SQLite with
** journal_mode=WAL and synchronous=FULL (crash-safe: every commit is durable), and SQLite with
** journal_mode=WAL and synchronous=NORMAL (SQLite's recommendation with WAL: safe against
** corruption, but a commit is made durable only by a later checkpoint, so a power loss can take
** back the last commits). Method as bench/README.md: each (engine, repetition) is a fresh process
** (the program re-executes itself with --child) on a database the parent made fresh for it
** (untimed, closed and synced), so that no engine finds its library state, its file handles or
** its page cache warm; the engine order rotates per repetition. Timed with CLOCK_MONOTONIC; the
** report gives median (min-max) per step in µs, the child's peak RSS (getrusage ru_maxrss), the
** WAL's size after the first commit, and what lies beside the file after the close. Results go to
** stdout and to bench/results/close-<date>-<commit>[-N].md and .json. Only the public API.
*/
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_common.h"
#include "strata.h"

#ifndef BENCH_CFLAGS
#define BENCH_CFLAGS "unknown (not built by the Makefile rule)"
#endif

enum { E_STRATA, E_SQLITE_FULL, E_SQLITE_NORMAL, E_COUNT };
static const char *const engine_names[E_COUNT] = {"strata", "sqlite-full", "sqlite-normal"};
static const char *const engine_titles[E_COUNT] = {
    "strata (defaults)",
    "SQLite WAL, synchronous=FULL",
    "SQLite WAL, synchronous=NORMAL",
};

enum { M_OPEN, M_FIRST, M_OPEN_FIRST, M_SECOND, M_CLOSE, M_SESSION, M_WAL_FIRST, M_WAL_AFTER, M_MAXRSS, M_COUNT };
static const struct {
    const char *id, *title, *unit;
} metric_defs[M_COUNT] = {
    [M_OPEN] = {"open_us", "open", "µs"},
    [M_FIRST] = {"first_commit_us", "first commit after open", "µs"},
    [M_OPEN_FIRST] = {"open_first_us", "open + first commit", "µs"},
    [M_SECOND] = {"second_commit_us", "second commit", "µs"},
    [M_CLOSE] = {"close_us", "close", "µs"},
    [M_SESSION] = {"session_us", "whole session (open to closed)", "µs"},
    [M_WAL_FIRST] = {"wal_bytes_first", "WAL file after the first commit", "bytes"},
    [M_WAL_AFTER] = {"wal_bytes_after_close", "WAL file after the close (0: none)", "bytes"},
    [M_MAXRSS] = {"maxrss_kib", "process peak RSS (ru_maxrss)", "KiB"},
};

#define ROWS 1000

typedef struct sample {
    int engine, rep;
    double m[M_COUNT];
} sample;

/* --- the engines ---------------------------------------------------------------------------- */

static void strata_ok(strata_db *db, int rc, const char *what) {
    if (rc != STRATA_OK) die("%s: %s", what, db ? strata_errmsg(db) : strata_errstr(rc));
}

static void sqlite_ok(sqlite3 *db, int rc, const char *what) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) die("%s: %s", what, sqlite3_errmsg(db));
}

static void sqlite_exec(sqlite3 *db, const char *sql) {
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) die("%s: %s", sql, msg ? msg : "?");
}

static const char *sync_pragma(int engine) {
    return engine == E_SQLITE_FULL ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL";
}

/* make_db creates the 1,000-row table at path, untimed, and closes it (a clean close: the WAL
** is folded in and removed by both engines), leaving one synced file. */
static void make_db(int engine, const char *path) {
    current_workload = "setup";
    current_engine = engine_names[engine];
    if (engine == E_STRATA) {
        strata_db *db = NULL;
        strata_ok(db, strata_open(path, &db), "open");
        strata_ok(db,
                  strata_exec(db,
                              "CREATE TABLE t(k BIGINT PRIMARY KEY, v VARCHAR);"
                              "INSERT INTO t SELECT i, 'row ' || i FROM generate_series(1, 1000) g(i)",
                              NULL, NULL),
                  "load");
        strata_ok(NULL, strata_close(db), "close");
    } else {
        sqlite3 *db;
        sqlite_ok(NULL, sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL), "open");
        sqlite_exec(db, "PRAGMA journal_mode=WAL"); /* persistent: stored in the file */
        sqlite_exec(db, sync_pragma(engine));
        sqlite_exec(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT);"
                        "WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 1000) "
                        "INSERT INTO t SELECT i, 'row ' || i FROM g");
        if (sqlite3_close(db) != SQLITE_OK) die("close: %s", sqlite3_errmsg(db));
    }
    sync();
}

static double wal_size(const char *path) {
    char wal[4400];
    snprintf(wal, sizeof wal, "%s-wal", path);
    struct stat st;
    return stat(wal, &st) == 0 ? (double)st.st_size : 0;
}

/* child_run times one session on the database at path: open, two one-row INSERTs (each its own
** autocommit transaction), close. The SQL text is the same for every engine. */
static void child_run(int engine, const char *path, double *m) {
    current_workload = "session";
    current_engine = engine_names[engine];
    char sql1[64], sql2[64];
    snprintf(sql1, sizeof sql1, "INSERT INTO t VALUES (%d, 'new')", ROWS + 1);
    snprintf(sql2, sizeof sql2, "INSERT INTO t VALUES (%d, 'new')", ROWS + 2);
    uint64_t t0, t1, t2, t2b, t3, t4;
    double wal_first;
    if (engine == E_STRATA) {
        strata_db *db = NULL;
        t0 = now_ns();
        strata_ok(db, strata_open(path, &db), "open");
        t1 = now_ns();
        strata_ok(db, strata_exec(db, sql1, NULL, NULL), "first insert");
        t2 = now_ns();
        wal_first = wal_size(path);
        t2b = now_ns(); /* the stat is no step's */
        strata_ok(db, strata_exec(db, sql2, NULL, NULL), "second insert");
        t3 = now_ns();
        strata_ok(NULL, strata_close(db), "close");
        t4 = now_ns();
    } else {
        sqlite3 *db;
        /* The open: the handle plus the connection's sync setting, which every session must give
        ** (journal_mode=WAL is stored in the file). SQLite reads the schema at the first statement,
        ** so compare "open + first commit" as well. */
        t0 = now_ns();
        sqlite_ok(NULL, sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), "open");
        sqlite_exec(db, sync_pragma(engine));
        t1 = now_ns();
        sqlite_exec(db, sql1);
        t2 = now_ns();
        wal_first = wal_size(path);
        t2b = now_ns();
        sqlite_exec(db, sql2);
        t3 = now_ns();
        if (sqlite3_close(db) != SQLITE_OK) die("close: %s", sqlite3_errmsg(db));
        t4 = now_ns();
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    m[M_OPEN] = (double)(t1 - t0) / 1e3;
    m[M_FIRST] = (double)(t2 - t1) / 1e3;
    m[M_OPEN_FIRST] = (double)(t2 - t0) / 1e3;
    m[M_SECOND] = (double)(t3 - t2b) / 1e3;
    m[M_CLOSE] = (double)(t4 - t3) / 1e3;
    m[M_SESSION] = (double)(t4 - t0 - (t2b - t2)) / 1e3;
    m[M_WAL_FIRST] = wal_first;
    m[M_WAL_AFTER] = wal_size(path);
    m[M_MAXRSS] = (double)ru.ru_maxrss;
}

/* check_rows reopens the database after the child and checks that both commits are there. */
static void check_rows(int engine, const char *path) {
    current_workload = "check";
    current_engine = engine_names[engine];
    long long count = -1;
    if (engine == E_STRATA) {
        strata_db *db = NULL;
        strata_stmt *st = NULL;
        strata_ok(db, strata_open(path, &db), "reopen");
        strata_ok(db, strata_prepare(db, "SELECT count(*) FROM t", &st, NULL), "prepare");
        if (strata_step(st) == STRATA_ROW) count = strata_column_int64(st, 0);
        strata_finalize(st);
        strata_close(db);
    } else {
        sqlite3 *db;
        sqlite3_stmt *st;
        sqlite_ok(NULL, sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), "reopen");
        sqlite_ok(db, sqlite3_prepare_v2(db, "SELECT count(*) FROM t", -1, &st, NULL), "prepare");
        if (sqlite3_step(st) == SQLITE_ROW) count = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        sqlite3_close(db);
    }
    if (count != ROWS + 2) die("after the session the table has %lld rows, expected %d", count, ROWS + 2);
}

/* --- the parent ------------------------------------------------------------------------------ */

static int engine_of(const char *name) {
    for (int e = 0; e < E_COUNT; e++)
        if (!strcmp(name, engine_names[e])) return e;
    die("unknown engine %s", name);
}

static void run_rep(const char *exe, const char *run_dir, int keep, sample *s) {
    char dir[4200], path[4300], out[4400];
    snprintf(dir, sizeof dir, "%s/%s-%d", run_dir, engine_names[s->engine], s->rep);
    if (mkdir(dir, 0755) != 0) die("mkdir %s: %s", dir, strerror(errno));
    snprintf(path, sizeof path, "%s/close.db", dir);
    make_db(s->engine, path);
    const char *argv[] = {exe, "--child", engine_names[s->engine], path, NULL};
    double seconds;
    int status = run_process(argv, &seconds);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        die("the %s child of repetition %d failed; database kept in %s", engine_names[s->engine], s->rep, dir);
    snprintf(out, sizeof out, "%s.result", path);
    FILE *f = fopen(out, "r");
    if (!f) die("no result file %s", out);
    char id[64];
    double v;
    for (int i = 0; i < M_COUNT; i++) s->m[i] = NAN;
    while (fscanf(f, "%63s %lf", id, &v) == 2)
        for (int i = 0; i < M_COUNT; i++)
            if (!strcmp(id, metric_defs[i].id)) s->m[i] = v;
    fclose(f);
    check_rows(s->engine, path);
    if (!keep) remove_tree(dir);
}

static summary summarize(const sample *ss, int n, int engine, int metric) {
    double *v = malloc(sizeof(double) * (size_t)n);
    if (!v) die("out of memory");
    int k = 0;
    for (int i = 0; i < n; i++)
        if (ss[i].engine == engine && !isnan(ss[i].m[metric])) v[k++] = ss[i].m[metric];
    summary s = summary_of(v, k);
    free(v);
    return s;
}

static void write_report(FILE *f, const environment *env, int reps, const sample *ss, int n) {
    fprintf(f, "# bench_close — a session's open, first commit, second commit and close\n\n");
    fprintf(f,
            "Database: table `t(k BIGINT PRIMARY KEY, v VARCHAR)` (SQLite `t(k INTEGER PRIMARY KEY, v TEXT)`) "
            "with %d rows, made fresh and closed (untimed) before each session. A session, in a fresh "
            "process: open; `INSERT INTO t VALUES (%d, 'new')` (autocommit: the first commit after open); "
            "`INSERT INTO t VALUES (%d, 'new')` (the second commit); close. %d repetitions per engine, the "
            "engine order rotating. Figures: median (min–max) over the repetitions.\n\n",
            ROWS, ROWS + 1, ROWS + 2, reps);
    fprintf(f, "Engines:\n\n");
    fprintf(f, "- **strata**: `strata_open` defaults; every commit durable (fdatasync of the WAL); a clean "
               "close checkpoints and removes the WAL.\n");
    fprintf(f, "- **SQLite FULL**: %s, `journal_mode=WAL` (stored in the file by the setup), "
               "`PRAGMA synchronous=FULL` after each open (in the open's time): every commit durable. "
               "The last connection's close checkpoints and removes the WAL.\n",
            sqlite3_libversion());
    fprintf(f, "- **SQLite NORMAL**: the same with `PRAGMA synchronous=NORMAL`, SQLite's recommended "
               "setting with WAL: a commit does not sync, so it is not durable until the next "
               "checkpoint (a power loss can take back the last commits; the database stays "
               "consistent). Not crash-safe in the sense of the other two; shown for reference.\n\n");
    fprintf(f, "SQLite reads the schema at the first statement, not at `sqlite3_open_v2`, so its open is "
               "cheap and its first commit includes that read: compare **open + first commit**.\n\n");
    fprintf(f, "| step |");
    for (int e = 0; e < E_COUNT; e++) fprintf(f, " %s |", engine_titles[e]);
    fprintf(f, " strata vs SQLite FULL | strata vs SQLite NORMAL |\n|---|");
    for (int e = 0; e < E_COUNT + 2; e++) fprintf(f, "---|");
    fprintf(f, "\n");
    for (int m = 0; m < M_COUNT; m++) {
        double scale = m == M_MAXRSS ? 1.0 / 1024 : 1;
        const char *unit = m == M_MAXRSS ? "MiB" : metric_defs[m].unit;
        int is_size = m >= M_WAL_FIRST;
        fprintf(f, "| %s (%s) |", metric_defs[m].title, unit);
        summary s[E_COUNT];
        for (int e = 0; e < E_COUNT; e++) {
            char cell[128];
            s[e] = summarize(ss, n, e, m);
            fmt_summary(cell, sizeof cell, s[e], scale);
            fprintf(f, " %s |", cell);
        }
        for (int e = E_SQLITE_FULL; e <= E_SQLITE_NORMAL; e++) {
            if (s[0].n && s[e].n && s[e].median > 0)
                fprintf(f, " %.2f× (%s) |", s[0].median / s[e].median, verdict(s[0], s[e], is_size));
            else
                fprintf(f, " %s |", verdict(s[0], s[e], is_size));
        }
        fprintf(f, "\n");
    }
    fprintf(f, "\nRatio: strata's median ÷ SQLite's; \"faster\"/\"slower\" (\"smaller\"/\"larger\") only when "
               "the min–max ranges do not overlap.\n\n");
    fprintf(f, "## Environment\n\n");
    fprintf(f,
            "- date %s; git commit %s%s\n- CPU %s, %ld cores, %.1f GiB; kernel %s; file system of bench/tmp: %s\n"
            "- compiler %s; flags `%s`\n- SQLite %s (system libsqlite3)\n- load average before %s, after %s\n",
            env->date, env->commit,
            env->git_status[0] ? " (working tree dirty: uncommitted changes were measured)" : " (clean)", env->cpu,
            env->cores, env->mem_gib, env->kernel, env->fs, COMPILER, BENCH_CFLAGS, sqlite3_libversion(),
            env->load_before, env->load_after);
    if (env->git_status[0]) fprintf(f, "\n```\n%s```\n", env->git_status);
}

static void write_json(FILE *f, const environment *env, int reps, const sample *ss, int n) {
    fprintf(f, "{\"bench\": \"close\", \"date\": ");
    json_str(f, env->date);
    fprintf(f, ", \"commit\": ");
    json_str(f, env->commit);
    fprintf(f, ", \"dirty\": %s, \"reps\": %d, \"rows\": %d, \"cflags\": ", env->git_status[0] ? "true" : "false",
            reps, ROWS);
    json_str(f, BENCH_CFLAGS);
    fprintf(f, ", \"compiler\": ");
    json_str(f, COMPILER);
    fprintf(f, ", \"sqlite\": ");
    json_str(f, sqlite3_libversion());
    fprintf(f, ", \"cpu\": ");
    json_str(f, env->cpu);
    fprintf(f, ", \"kernel\": ");
    json_str(f, env->kernel);
    fprintf(f, ", \"fs\": ");
    json_str(f, env->fs);
    fprintf(f, ", \"samples\": [");
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s\n  {\"engine\": \"%s\", \"rep\": %d", i ? "," : "", engine_names[ss[i].engine], ss[i].rep);
        for (int m = 0; m < M_COUNT; m++) {
            fprintf(f, ", \"%s\": ", metric_defs[m].id);
            json_num(f, ss[i].m[m]);
        }
        fprintf(f, "}");
    }
    fprintf(f, "\n]}\n");
}

int main(int argc, char **argv) {
    bench_program = "bench_close";
    if (argc == 4 && !strcmp(argv[1], "--child")) {
        double m[M_COUNT];
        int engine = engine_of(argv[2]);
        child_run(engine, argv[3], m);
        char out[4200];
        snprintf(out, sizeof out, "%s.result", argv[3]);
        FILE *f = fopen(out, "w");
        if (!f) die("create %s: %s", out, strerror(errno));
        for (int i = 0; i < M_COUNT; i++) fprintf(f, "%s %.3f\n", metric_defs[i].id, m[i]);
        if (fclose(f) != 0) die("write %s", out);
        return 0;
    }
    int reps = 30, save = 1, keep = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-save")) save = 0;
        else if (!strcmp(argv[i], "--keep")) keep = 1;
        else die("usage: bench_close [--reps N] [--no-save] [--keep] (from the repository root)");
    }
    if (reps < 1 || reps > 10000) die("--reps takes 1..10000");
    char run_dir[4096], exe[4096];
    run_setup("close", run_dir, sizeof run_dir, exe, sizeof exe);
    environment env;
    gather_environment(&env, run_dir);
    int n = reps * E_COUNT;
    sample *ss = calloc((size_t)n, sizeof *ss);
    if (!ss) die("out of memory");
    for (int r = 0, k = 0; r < reps; r++)
        for (int j = 0; j < E_COUNT; j++, k++) {
            ss[k].engine = (r + j) % E_COUNT;
            ss[k].rep = r;
            run_rep(exe, run_dir, keep, &ss[k]);
        }
    if (!keep) remove_tree(run_dir);
    load_average(env.load_after, sizeof env.load_after);
    write_report(stdout, &env, reps, ss, n);
    if (save) {
        char md[4200], js[4200];
        result_paths("close", &env, md, js, sizeof md);
        FILE *f = fopen(md, "w");
        if (!f) die("create %s", md);
        write_report(f, &env, reps, ss, n);
        fprintf(f, "\nRaw figures: `%s`.\n", js);
        fclose(f);
        f = fopen(js, "w");
        if (!f) die("create %s", js);
        write_json(f, &env, reps, ss, n);
        fclose(f);
        printf("\nsaved %s and %s\n", md, js);
    }
    free(env.git_status);
    free(ss);
    return 0;
}
