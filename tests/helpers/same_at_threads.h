/*
** same_at_threads.h -- the parallel executor's tests (tests/planner/test_parallel*.c): results as
** text, compared between SET threads = 1 and more threads than the machine has cores, over a
** table whose rows are in both stores.
*/
#ifndef STRATA_TEST_SAME_AT_THREADS_H
#define STRATA_TEST_SAME_AT_THREADS_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/api_db.h"

/* A result as text: each row's values joined by '|', rows by newlines, in the query's order. */
typedef struct text_buf {
    char *p;
    size_t len, cap;
} text_buf;

static inline void text_put(text_buf *b, const char *s) {
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        cr_assert_not_null(b->p);
    }
    memcpy(b->p + b->len, s, n + 1);
    b->len += n;
}

static inline int text_collect(void *arg, int n, char **v, char **names) {
    (void)names;
    for (int i = 0; i < n; i++) {
        text_put(arg, i ? "|" : "");
        text_put(arg, v[i] ? v[i] : "NULL");
    }
    text_put(arg, "\n");
    return 0;
}

/* result runs sql, which must succeed, and gives its rows as text (the caller frees it). */
static inline char *result(strata_db *db, const char *sql) {
    text_buf b = {0};
    text_put(&b, "");
    int rc = strata_exec(db, sql, text_collect, &b);
    cr_assert_eq(rc, STRATA_OK, "%s: %s", sql, strata_errmsg(db));
    return b.p;
}

/* same_at_threads runs sql with 1 thread and then with 2, 4 and 7, and asserts the results
** byte-identical (and not empty). */
static inline void same_at_threads(strata_db *db, const char *sql) {
    EXEC_OK(db, "SET threads = 1");
    char *one = result(db, sql);
    cr_assert(strlen(one) > 0, "%s gave nothing", sql);
    static const char *others[] = {"SET threads = 2", "SET threads = 4", "SET threads = 7"};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        EXEC_OK(db, others[i]);
        char *many = result(db, sql);
        cr_assert_str_eq(many, one, "%s with %s", sql, others[i]);
        free(many);
    }
    free(one);
}

/* open_table makes t, a table of 600,000 rows: 4 full row groups in the column store, the rest
** and the changes in the row store; and d, a small table of some of t's k. */
static inline strata_db *open_table(void) {
    strata_db *db = open_mem();
    EXEC_OK(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, g INTEGER, k INTEGER, s VARCHAR, m DECIMAL(12,2), n INTEGER);"
                "INSERT INTO t SELECT i, i % 97, i % 50000, 'name' || (i % 1013), (i % 10000) / 100.0,"
                "  CASE WHEN i % 11 = 0 THEN NULL ELSE i % 1000 END FROM generate_series(1, 500000) AS x(i);"
                "CHECKPOINT;"
                "INSERT INTO t SELECT i, i % 97, i % 50000, 'late' || (i % 7), 1.5, i FROM generate_series(500001, 600000) AS x(i);"
                "DELETE FROM t WHERE id % 1000 = 7;"
                "UPDATE t SET m = m + 1000 WHERE id % 5000 = 3;"
                "CREATE TABLE d(k INTEGER PRIMARY KEY, label VARCHAR);"
                "INSERT INTO d SELECT i, 'd' || (i % 13) FROM generate_series(0, 49999, 3) AS x(i)");
    return db;
}

#endif
