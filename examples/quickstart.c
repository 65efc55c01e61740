/*
** quickstart.c -- a first strata program: the public API from open to close.
**
**     quickstart [DATABASE]        (default quickstart.db)
**
** It creates a table (if the file does not have it yet), inserts rows with one prepared
** statement and bound parameters inside BEGIN ... COMMIT, loads more with the appender, runs an
** aggregate query row by row,
** reads a result a chunk at a time, and shows what an error looks like. Every call's status is
** checked: a strata call returns STRATA_OK (0) or a code, and strata_errmsg says why.
*/
#include <stdio.h>

#include "strata.h"

/* check prints the database's message when rc is not the status expected; returns whether it was. */
static int check(strata_db *db, int rc, int expected, const char *what) {
    if (rc == expected) return 1;
    fprintf(stderr, "%s failed (%s): %s\n", what, strata_errstr(rc), strata_errmsg(db));
    return 0;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "quickstart.db";
    strata_db *db = NULL;
    strata_stmt *st = NULL;
    int ok = 0;

    /* strata_open sets db also on failure, so that the message can be read; close it always. */
    if (!check(db, strata_open(path, &db), STRATA_OK, "open")) goto done;

    if (!check(db,
               strata_exec(db,
                           "CREATE TABLE IF NOT EXISTS sales(id INTEGER PRIMARY KEY, region TEXT NOT NULL, "
                           "amount DECIMAL(10,2));"
                           "DELETE FROM sales",
                           NULL, NULL),
               STRATA_OK, "create table"))
        goto done;

    /* Many inserts, one transaction: one durable commit at the end instead of one per row. */
    static const char *regions[] = {"north", "south", "east", "west"};
    if (!check(db, strata_exec(db, "BEGIN", NULL, NULL), STRATA_OK, "begin")) goto done;
    if (!check(db, strata_prepare(db, "INSERT INTO sales VALUES (?, ?, ?)", &st, NULL), STRATA_OK, "prepare"))
        goto done;
    for (int i = 1; i <= 1000; i++) {
        strata_bind_int64(st, 1, i);
        strata_bind_text(st, 2, regions[i % 4], -1);
        strata_bind_double(st, 3, (i % 97) * 1.25);
        if (!check(db, strata_step(st), STRATA_DONE, "insert")) goto done;
        strata_reset(st); /* run it again with new bindings */
    }
    strata_finalize(st);
    st = NULL;
    if (!check(db, strata_exec(db, "COMMIT", NULL, NULL), STRATA_OK, "commit")) goto done;

    /* Loading many rows without SQL: the appender, a value at a time in column order, then the
    ** end of the row. Its rows go in by the row group (straight into compressed column segments)
    ** and when it is destroyed. */
    strata_appender *app = NULL;
    if (!check(db, strata_appender_create(db, "sales", &app), STRATA_OK, "appender")) goto done;
    for (int i = 1001; i <= 50000; i++) {
        strata_append_int64(app, i);
        strata_append_text(app, regions[i % 4], -1);
        strata_append_double(app, (i % 97) * 1.25);
        if (!check(db, strata_appender_end_row(app), STRATA_OK, "append")) {
            strata_appender_destroy(app);
            goto done;
        }
    }
    if (!check(db, strata_appender_destroy(app), STRATA_OK, "appender")) goto done;

    /* An aggregate, row by row: column values are read as text, integers or doubles. */
    if (!check(db,
               strata_prepare(db,
                              "SELECT region, count(*) AS n, sum(amount) AS total FROM sales "
                              "GROUP BY region ORDER BY total DESC",
                              &st, NULL),
               STRATA_OK, "prepare"))
        goto done;
    printf("%-8s %6s %12s\n", strata_column_name(st, 0), strata_column_name(st, 1),
           strata_column_name(st, 2));
    int rc;
    while ((rc = strata_step(st)) == STRATA_ROW)
        printf("%-8s %6lld %12s\n", strata_column_text(st, 0), (long long)strata_column_int64(st, 1),
               strata_column_text(st, 2));
    if (!check(db, rc, STRATA_DONE, "query")) goto done;
    strata_finalize(st);
    st = NULL;

    /* The same data a chunk at a time: typed column arrays of up to 2048 rows. */
    if (!check(db, strata_prepare(db, "SELECT id, amount FROM sales WHERE id <= 5 ORDER BY id", &st, NULL),
               STRATA_OK, "prepare"))
        goto done;
    strata_chunk *chunk;
    if (!check(db, strata_fetch_chunk(st, &chunk), STRATA_ROW, "fetch chunk")) goto done;
    if (strata_chunk_column_type(chunk, 0) != STRATA_TYPE_INTEGER ||
        strata_chunk_column_type(chunk, 1) != STRATA_TYPE_DECIMAL) {
        fprintf(stderr, "unexpected column types in the chunk\n");
        goto done;
    }
    const int32_t *ids = strata_chunk_data(chunk, 0);   /* INTEGER column: int32_t */
    const int64_t *cents = strata_chunk_data(chunk, 1); /* DECIMAL: int64_t scaled by 10^scale */
    int scale = strata_chunk_scale(chunk, 1);
    int64_t unit = 1;
    for (int i = 0; i < scale; i++)
        unit *= 10;
    printf("first rows as a chunk (%d rows):", strata_chunk_count(chunk));
    for (int r = 0; r < strata_chunk_count(chunk); r++)
        printf(" %d:%lld.%0*lld", ids[r], (long long)(cents[r] / unit), scale, (long long)(cents[r] % unit));
    printf("\n");
    strata_finalize(st);
    st = NULL;

    /* Errors: the status says what kind, the message where and why, with a caret under the SQL. */
    rc = strata_exec(db, "SELECT regoin FROM sales", NULL, NULL);
    printf("a misspelt column gives %s:\n%s\n", strata_errstr(rc), strata_errmsg(db));
    rc = strata_exec(db, "INSERT INTO sales VALUES (1, 'north', 0)", NULL, NULL);
    printf("a duplicate key gives %s: %s\n", strata_errstr(rc), strata_errmsg(db));
    ok = 1;

done:
    strata_finalize(st);
    strata_close(db);
    return ok ? 0 : 1;
}
