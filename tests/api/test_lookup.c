/*
** test_lookup.c -- a prepared index lookup of migrated rows, run again and again, sees every
** change made between its runs and inside a transaction around them: updates, deletes and new
** rows of the keys it reads, a migration, a rollback; so does a prepared lookup by rowid (an
** INTEGER PRIMARY KEY). (A prepared lookup keeps the row groups it read open between runs while
** the database is unchanged; this is what must not go stale.) Each answer is compared with the
** same lookup in a row-store copy of the table.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/api_db.h"
#include "helpers/tmpdir.h"
#include "strata.h"

static char dir[256];
static char dbpath[300];

static void make_dir(void) {
    snprintf(dir, sizeof dir, "/tmp/strata-lookup-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(dbpath, sizeof dbpath, "%s/test.db", dir);
}
static void remove_dir(void) { tmpdir_remove(dir); }

TestSuite(lookup, .init = make_dir, .fini = remove_dir);

#define GROUP_ROWS 2048
#define GROUPS 20 /* more row groups than a lookup keeps open */
#define KEYS (GROUPS * GROUP_ROWS / 4)

/* answer runs prepared lookup s for key k and writes its rows ("n:v;" each, in order) to buf. */
static const char *answer(strata_stmt *s, int64_t k, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = 0;
    cr_assert_eq(strata_bind_int64(s, 1, k), STRATA_OK);
    int rc;
    while ((rc = strata_step(s)) == STRATA_ROW) {
        const char *v = strata_column_text(s, 1);
        int m = snprintf(buf + len, cap - len, "%lld:%s;", (long long)strata_column_int64(s, 0), v ? v : "NULL");
        cr_assert(m > 0 && (size_t)m < cap - len, "answer for key %lld too long", (long long)k);
        len += (size_t)m;
    }
    cr_assert_eq(rc, STRATA_DONE, "lookup of key %lld -> %d", (long long)k, rc);
    cr_assert_eq(strata_reset(s), STRATA_OK);
    return buf;
}

typedef struct pair {
    strata_stmt *col, *row;       /* the lookup by k in the column-store table and in its row-store copy */
    strata_stmt *col_id, *row_id; /* ... and by id, the rowid */
} pair;

/* same checks that key k reads alike in both tables and gives how many rows it read; and that
** the row whose id is 4k + 2 does (one of k's rows while they were not deleted). */
static int same(pair *p, int64_t k) {
    char a[4096], b[4096];
    answer(p->col_id, 4 * k + 2, a, sizeof a);
    answer(p->row_id, 4 * k + 2, b, sizeof b);
    cr_assert_str_eq(a, b, "id %lld: the migrated row reads \"%s\", the row store's \"%s\"", (long long)(4 * k + 2),
                     a, b);
    answer(p->col, k, a, sizeof a);
    answer(p->row, k, b, sizeof b);
    cr_assert_str_eq(a, b, "key %lld: migrated rows read \"%s\", the row store \"%s\"", (long long)k, a, b);
    int n = 0;
    for (const char *q = a; *q; q++) n += *q == ';';
    return n;
}

/* sweep looks up every 7th key (every row group, in an order that leaves and comes back). */
static void sweep(pair *p) {
    for (int64_t k = 0; k < KEYS; k += 7) same(p, k);
}

static void both(strata_db *db, const char *fmt, int64_t k) {
    char sql[256];
    for (int t = 0; t < 2; t++) {
        snprintf(sql, sizeof sql, fmt, t ? "r" : "c", (long long)k);
        EXEC_OK(db, sql);
    }
}

Test(lookup, prepared_lookup_of_migrated_rows_sees_every_change) {
    strata_db *db = open_file(dbpath);
    char sql[512];
    snprintf(sql, sizeof sql,
             "CREATE TABLE c(id INTEGER PRIMARY KEY, k BIGINT, n INTEGER, v VARCHAR) "
             "WITH (storage = 'column', row_group_size = %d);"
             "CREATE TABLE r(id INTEGER PRIMARY KEY, k BIGINT, n INTEGER, v VARCHAR) WITH (storage = 'row');"
             "INSERT INTO r SELECT i, i / 4, i %% 4, 'value ' || i || ' of key ' || (i / 4) "
             "FROM generate_series(0, %d) AS t(i);"
             "INSERT INTO c SELECT * FROM r; CHECKPOINT c;"
             "CREATE INDEX c_k ON c(k); CREATE INDEX r_k ON r(k)",
             GROUP_ROWS, GROUPS * GROUP_ROWS - 1);
    EXEC_OK(db, sql);
    cr_assert_eq(query_int64(db, "SELECT count(DISTINCT row_group) FROM pragma_storage_info('c')"), GROUPS,
                 "every row migrated");
    pair p = {prepare(db, "SELECT n, v FROM c WHERE k = ? ORDER BY n"),
              prepare(db, "SELECT n, v FROM r WHERE k = ? ORDER BY n"), prepare(db, "SELECT n, v FROM c WHERE id = ?"),
              prepare(db, "SELECT n, v FROM r WHERE id = ?")};
    sweep(&p);
    cr_assert_eq(same(&p, 5), 4);

    /* changes between runs, each in its own commit */
    both(db, "UPDATE %s SET v = 'changed' WHERE k = %lld AND n = 2", 5);
    cr_assert_eq(same(&p, 5), 4);
    both(db, "DELETE FROM %s WHERE k = %lld", 700);
    cr_assert_eq(same(&p, 700), 0);
    both(db, "INSERT INTO %s VALUES (100000 + %lld, 700, 9, 'new')", 700);
    cr_assert_eq(same(&p, 700), 1);
    both(db, "DELETE FROM %s WHERE k = %lld AND n = 1", 4000);
    sweep(&p);

    /* inside a transaction: its own changes, then a rollback takes them back */
    EXEC_OK(db, "BEGIN");
    same(&p, 1234);
    both(db, "UPDATE %s SET v = 'in the transaction' WHERE k = %lld", 1234);
    cr_assert_eq(same(&p, 1234), 4);
    both(db, "DELETE FROM %s WHERE k = %lld", 2345);
    cr_assert_eq(same(&p, 2345), 0);
    EXEC_OK(db, "ROLLBACK");
    cr_assert_eq(same(&p, 1234), 4);
    cr_assert_eq(same(&p, 2345), 4);

    /* a read transaction around several runs, then a migration of the changed rows */
    EXEC_OK(db, "BEGIN");
    sweep(&p);
    EXEC_OK(db, "COMMIT");
    snprintf(sql, sizeof sql,
             "UPDATE c SET v = v || '+' WHERE k %% 50 = 3; UPDATE r SET v = v || '+' WHERE k %% 50 = 3; CHECKPOINT c");
    EXEC_OK(db, sql);
    sweep(&p);
    strata_finalize(p.col);
    strata_finalize(p.row);
    strata_finalize(p.col_id);
    strata_finalize(p.row_id);
    strata_close(db);
}
