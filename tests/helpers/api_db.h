/*
** api_db.h -- opening databases and running SQL through the public API (include/strata.h) in
** Criterion tests, asserting success with the handle's message on failure.
*/
#ifndef STRATA_TEST_API_DB_H
#define STRATA_TEST_API_DB_H

#include <criterion/criterion.h>

#include "strata.h"

static inline strata_db *open_mem(void) {
    strata_db *db = NULL;
    int rc = strata_open(":memory:", &db);
    cr_assert_eq(rc, STRATA_OK, "open :memory: -> %d: %s", rc, db ? strata_errmsg(db) : "?");
    return db;
}

static inline strata_db *open_file(const char *path) {
    strata_db *db = NULL;
    int rc = strata_open(path, &db);
    cr_assert_eq(rc, STRATA_OK, "open %s -> %d: %s", path, rc, db ? strata_errmsg(db) : "?");
    return db;
}

/* EXEC_OK runs every statement of sql, which must succeed. */
#define EXEC_OK(db, sql)                                                                                     \
    do {                                                                                                     \
        int rc_ = strata_exec((db), (sql), NULL, NULL);                                                      \
        cr_assert_eq(rc_, STRATA_OK, "exec \"%s\" -> %d: %s", (sql), rc_, strata_errmsg(db));                \
    } while (0)

/* prepare compiles sql, which must be one statement. */
static inline strata_stmt *prepare(strata_db *db, const char *sql) {
    strata_stmt *s = NULL;
    int rc = strata_prepare(db, sql, &s, NULL);
    cr_assert_eq(rc, STRATA_OK, "prepare \"%s\" -> %d: %s", sql, rc, strata_errmsg(db));
    cr_assert_not_null(s, "prepare \"%s\" gave no statement", sql);
    return s;
}

/* query_int64 runs a query that returns one row of one value and gives it as int64. */
static inline int64_t query_int64(strata_db *db, const char *sql) {
    strata_stmt *s = prepare(db, sql);
    int rc = strata_step(s);
    cr_assert_eq(rc, STRATA_ROW, "\"%s\": step -> %d: %s", sql, rc, strata_errmsg(db));
    int64_t v = strata_column_int64(s, 0);
    cr_assert_eq(strata_step(s), STRATA_DONE, "\"%s\": more than one row", sql);
    strata_finalize(s);
    return v;
}

#endif
