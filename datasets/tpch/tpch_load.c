/*
** tpch_load.c -- the tpch-load program: a TPC-H database made straight from the generator.
**
**   tpch-load [-s SF] [-d DB] [-S SCHEMA]
**
** creates a fresh strata database DB (default tpch-sf<SF>.db), runs the schema script SCHEMA
** (default datasets/tpch/schema.sql, relative to the current directory), loads the eight tables
** from the rows of tpch_gen_next() through the appender, one transaction per table, runs
** CHECKPOINT, and reports rows and seconds per table, the total time, rows/s and the size of the
** file. No text file is written in between: values go from the generator's structs to the
** appender (DECIMAL and DATE values as exact text, see put_cents and put_date).
**
** The database is built under DB.tmp and renamed to DB once it is whole and closed, so a DB
** that exists is complete. An existing DB is replaced (the program says so) when it is a strata
** database; any other file is left alone and the program fails. Exit status 0 on success, 1 on
** an error (the database's message is printed), 2 on a usage error.
**
** It uses the public API (include/strata.h) and tpch_gen.h only.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "strata.h"
#include "tpch_gen.h"

#define DEFAULT_SCHEMA "datasets/tpch/schema.sql"

static void usage(FILE *f) {
    fprintf(f,
            "usage: tpch-load [-s SF] [-d DB] [-S SCHEMA]\n"
            "  -s SF      scale factor, %.2f .. %.0f (default 1)\n"
            "  -d DB      the database file to create, replaced when it exists (default tpch-sf<SF>.db)\n"
            "  -S SCHEMA  the CREATE TABLE script (default " DEFAULT_SCHEMA ")\n",
            TPCH_SF_MIN, TPCH_SF_MAX);
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* file_size returns the size of path in bytes, or -1 when it does not exist. */
static long long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* ---- one row into the appender ---------------------------------------------------------- */

/* A row writer: the put_ calls append the values of one row in column order and do nothing once
** one has failed, so that the first failure's status (and strata_errmsg) is the one reported. */
typedef struct row_writer {
    strata_appender *app;
    int rc;
} row_writer;

static void put_int(row_writer *w, int64_t v) {
    if (w->rc == STRATA_OK) w->rc = strata_append_int64(w->app, v);
}

static void put_str(row_writer *w, tpch_str s) {
    if (w->rc == STRATA_OK) w->rc = strata_append_text(w->app, s.ptr, (int)s.len);
}

static void put_char(row_writer *w, char c) {
    if (w->rc == STRATA_OK) w->rc = strata_append_text(w->app, &c, 1);
}

/* put_cents appends hundredths as the text "-123.45": the appender converts an int64 into a
** DECIMAL as INSERT does (12345 would be 12345.00), and text parses exactly. */
static void put_cents(row_writer *w, int64_t cents) {
    char buf[24], *p = buf + sizeof buf;
    uint64_t u = cents < 0 ? 0 - (uint64_t)cents : (uint64_t)cents;
    *--p = (char)('0' + u % 10);
    *--p = (char)('0' + u / 10 % 10);
    *--p = '.';
    u /= 100;
    do {
        *--p = (char)('0' + u % 10);
    } while ((u /= 10) != 0);
    if (cents < 0) *--p = '-';
    if (w->rc == STRATA_OK) w->rc = strata_append_text(w->app, p, (int)(buf + sizeof buf - p));
}

/* put_date appends days since 1970-01-01 as 'YYYY-MM-DD' (an integer does not convert to DATE). */
static void put_date(row_writer *w, int32_t day) {
    char buf[10];
    tpch_format_date(day, buf);
    if (w->rc == STRATA_OK) w->rc = strata_append_text(w->app, buf, (int)sizeof buf);
}

/* put_row appends the columns of one row of table t, in schema.sql's column order, and ends it.
** Returns the status of the first call that failed, or STRATA_OK. */
static int put_row(strata_appender *app, tpch_table t, const tpch_row *row) {
    row_writer w = {app, STRATA_OK};
    switch (t) {
    case TPCH_REGION:
        put_int(&w, row->region.regionkey);
        put_str(&w, row->region.name);
        put_str(&w, row->region.comment);
        break;
    case TPCH_NATION:
        put_int(&w, row->nation.nationkey);
        put_str(&w, row->nation.name);
        put_int(&w, row->nation.regionkey);
        put_str(&w, row->nation.comment);
        break;
    case TPCH_SUPPLIER:
        put_int(&w, row->supplier.suppkey);
        put_str(&w, row->supplier.name);
        put_str(&w, row->supplier.address);
        put_int(&w, row->supplier.nationkey);
        put_str(&w, row->supplier.phone);
        put_cents(&w, row->supplier.acctbal);
        put_str(&w, row->supplier.comment);
        break;
    case TPCH_CUSTOMER:
        put_int(&w, row->customer.custkey);
        put_str(&w, row->customer.name);
        put_str(&w, row->customer.address);
        put_int(&w, row->customer.nationkey);
        put_str(&w, row->customer.phone);
        put_cents(&w, row->customer.acctbal);
        put_str(&w, row->customer.mktsegment);
        put_str(&w, row->customer.comment);
        break;
    case TPCH_PART:
        put_int(&w, row->part.partkey);
        put_str(&w, row->part.name);
        put_str(&w, row->part.mfgr);
        put_str(&w, row->part.brand);
        put_str(&w, row->part.type);
        put_int(&w, row->part.size);
        put_str(&w, row->part.container);
        put_cents(&w, row->part.retailprice);
        put_str(&w, row->part.comment);
        break;
    case TPCH_PARTSUPP:
        put_int(&w, row->partsupp.partkey);
        put_int(&w, row->partsupp.suppkey);
        put_int(&w, row->partsupp.availqty);
        put_cents(&w, row->partsupp.supplycost);
        put_str(&w, row->partsupp.comment);
        break;
    case TPCH_ORDERS:
        put_int(&w, row->orders.orderkey);
        put_int(&w, row->orders.custkey);
        put_char(&w, row->orders.orderstatus);
        put_cents(&w, row->orders.totalprice);
        put_date(&w, row->orders.orderdate);
        put_str(&w, row->orders.orderpriority);
        put_str(&w, row->orders.clerk);
        put_int(&w, row->orders.shippriority);
        put_str(&w, row->orders.comment);
        break;
    case TPCH_LINEITEM:
        put_int(&w, row->lineitem.orderkey);
        put_int(&w, row->lineitem.partkey);
        put_int(&w, row->lineitem.suppkey);
        put_int(&w, row->lineitem.linenumber);
        put_cents(&w, row->lineitem.quantity);
        put_cents(&w, row->lineitem.extendedprice);
        put_cents(&w, row->lineitem.discount);
        put_cents(&w, row->lineitem.tax);
        put_char(&w, row->lineitem.returnflag);
        put_char(&w, row->lineitem.linestatus);
        put_date(&w, row->lineitem.shipdate);
        put_date(&w, row->lineitem.commitdate);
        put_date(&w, row->lineitem.receiptdate);
        put_str(&w, row->lineitem.shipinstruct);
        put_str(&w, row->lineitem.shipmode);
        put_str(&w, row->lineitem.comment);
        break;
    default: return STRATA_MISUSE;
    }
    if (w.rc == STRATA_OK) w.rc = strata_appender_end_row(app);
    return w.rc;
}

/* ---- the load --------------------------------------------------------------------------- */

/* fail_db prints what failed and the database's message; returns 1 (the exit status). */
static int fail_db(strata_db *db, int rc, const char *what) {
    fprintf(stderr, "tpch-load: %s failed (%s): %s\n", what, strata_errstr(rc), strata_errmsg(db));
    return 1;
}

/* load_table loads every row of table t at sf in one transaction (BEGIN, the appender, COMMIT);
** sets *rows. Returns 0, or 1 after printing the error (the transaction is rolled back). */
static int load_table(strata_db *db, tpch_table t, double sf, int64_t *rows) {
    const char *name = tpch_table_name(t);
    tpch_gen *g = NULL;
    strata_appender *app = NULL;
    int rc = tpch_gen_open(&g, t, sf);
    if (rc != STRATA_OK) {
        fprintf(stderr, "tpch-load: the generator of %s failed: %s\n", name, strata_errstr(rc));
        return 1;
    }
    if ((rc = strata_exec(db, "BEGIN", NULL, NULL)) != STRATA_OK) goto fail;
    if ((rc = strata_appender_create(db, name, &app)) != STRATA_OK) goto fail;
    tpch_row row;
    int gen_rc;
    while ((gen_rc = tpch_gen_next(g, &row)) == STRATA_ROW)
        if ((rc = put_row(app, t, &row)) != STRATA_OK) goto fail;
    if (gen_rc != STRATA_DONE) {
        fprintf(stderr, "tpch-load: the generator of %s failed: %s\n", name, strata_errstr(gen_rc));
        goto rollback;
    }
    rc = strata_appender_destroy(app); /* inserts the rows still held */
    app = NULL;
    if (rc != STRATA_OK) goto fail;
    if ((rc = strata_exec(db, "COMMIT", NULL, NULL)) != STRATA_OK) goto fail;
    *rows = tpch_gen_rows_done(g);
    tpch_gen_close(g);
    return 0;
fail:
    fprintf(stderr, "tpch-load: loading %s failed (%s): %s\n", name, strata_errstr(rc), strata_errmsg(db));
rollback:
    strata_appender_destroy(app);
    strata_exec(db, "ROLLBACK", NULL, NULL);
    tpch_gen_close(g);
    return 1;
}

/* check_replaceable returns 0 when path does not exist or is a strata database that may be
** replaced (saying so), 1 after printing why it may not. */
static int check_replaceable(const char *path) {
    if (file_size(path) < 0) return 0;
    strata_db *old = NULL;
    int rc = strata_open(path, &old);
    if (rc != STRATA_OK) {
        fprintf(stderr, "tpch-load: %s exists and cannot be replaced (%s): %s\n", path, strata_errstr(rc),
                old ? strata_errmsg(old) : "out of memory");
        strata_close(old);
        return 1;
    }
    strata_close(old);
    printf("replacing the existing database %s\n", path);
    return 0;
}

/* remove_db removes a database file and its WAL; returns 0, or 1 after printing the error. */
static int remove_db(const char *path) {
    char wal[4200];
    snprintf(wal, sizeof wal, "%s-wal", path);
    if (remove(wal) != 0 && errno != ENOENT) {
        fprintf(stderr, "tpch-load: cannot remove %s: %s\n", wal, strerror(errno));
        return 1;
    }
    if (remove(path) != 0 && errno != ENOENT) {
        fprintf(stderr, "tpch-load: cannot remove %s: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}

/* build builds the whole database at path (which must not exist) and closes it. Returns 0, or 1
** after printing the error. */
static int build(const char *path, const char *schema_path, double sf) {
    char *schema = tpch_read_file(schema_path);
    if (!schema) {
        fprintf(stderr, "tpch-load: cannot read the schema %s: %s (see -S)\n", schema_path, strerror(errno));
        return 1;
    }
    strata_db *db = NULL;
    int status = 1;
    int rc = strata_open(path, &db);
    if (rc != STRATA_OK) {
        if (db)
            fail_db(db, rc, "opening the database");
        else
            fprintf(stderr, "tpch-load: opening %s failed: %s\n", path, strata_errstr(rc));
        goto done;
    }
    if ((rc = strata_exec(db, schema, NULL, NULL)) != STRATA_OK) {
        fail_db(db, rc, "the schema");
        goto done;
    }
    printf("%-10s %12s %10s %12s\n", "table", "rows", "seconds", "rows/s");
    double start = now_seconds();
    int64_t total_rows = 0;
    for (int t = 0; t < TPCH_TABLE_COUNT; t++) {
        double t0 = now_seconds();
        int64_t rows = 0;
        if (load_table(db, (tpch_table)t, sf, &rows) != 0) goto done;
        double secs = now_seconds() - t0;
        total_rows += rows;
        printf("%-10s %12lld %10.3f %12.0f\n", tpch_table_name((tpch_table)t), (long long)rows, secs,
               secs > 0 ? (double)rows / secs : 0.0);
        fflush(stdout);
    }
    double t0 = now_seconds();
    if ((rc = strata_exec(db, "CHECKPOINT", NULL, NULL)) != STRATA_OK) {
        fail_db(db, rc, "CHECKPOINT");
        goto done;
    }
    printf("%-10s %12s %10.3f\n", "checkpoint", "", now_seconds() - t0);
    t0 = now_seconds();
    rc = strata_close(db);
    db = NULL;
    if (rc != STRATA_OK) {
        fprintf(stderr, "tpch-load: closing %s failed: %s\n", path, strata_errstr(rc));
        goto done;
    }
    printf("%-10s %12s %10.3f\n", "close", "", now_seconds() - t0);
    double secs = now_seconds() - start;
    printf("%-10s %12lld %10.3f %12.0f\n", "total", (long long)total_rows, secs,
           secs > 0 ? (double)total_rows / secs : 0.0);
    status = 0;
done:
    strata_close(db);
    free(schema);
    return status;
}

int main(int argc, char **argv) {
    double sf = 1.0;
    const char *db_path = NULL, *schema_path = DEFAULT_SCHEMA;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((strcmp(a, "-s") == 0 || strcmp(a, "-d") == 0 || strcmp(a, "-S") == 0) && i + 1 >= argc) {
            fprintf(stderr, "tpch-load: %s needs a value\n", a);
            usage(stderr);
            return 2;
        }
        if (strcmp(a, "-s") == 0) {
            if (!tpch_sf_parse(argv[++i], &sf)) {
                fprintf(stderr, "tpch-load: scale factor '%s' is not a number in %.2f .. %.0f\n", argv[i],
                        TPCH_SF_MIN, TPCH_SF_MAX);
                return 2;
            }
        } else if (strcmp(a, "-d") == 0) {
            db_path = argv[++i];
        } else if (strcmp(a, "-S") == 0) {
            schema_path = argv[++i];
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "tpch-load: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    char default_path[64], tmp_path[4200];
    if (!db_path) {
        snprintf(default_path, sizeof default_path, "tpch-sf%g.db", sf);
        db_path = default_path;
    }
    if (snprintf(tmp_path, sizeof tmp_path, "%s.tmp", db_path) >= (int)sizeof tmp_path - 4) {
        fprintf(stderr, "tpch-load: the path %s is too long\n", db_path);
        return 2;
    }
    int64_t suppliers = tpch_table_rows(TPCH_SUPPLIER, sf);
    if (suppliers % 3 == 0 && suppliers < 229) {
        fprintf(
            stderr,
            "tpch-load: at SF %g (%lld suppliers) the spec's PS_SUPPKEY formula repeats "
            "(ps_partkey, ps_suppkey) pairs, which partsupp's primary key refuses; use SF 0.01 or >= 0.023\n",
            sf, (long long)suppliers);
        return 2;
    }
    if (check_replaceable(db_path) != 0) return 1;
    printf("loading TPC-H SF %g into %s (one transaction per table)\n", sf, db_path);
    fflush(stdout);
    if (remove_db(tmp_path) != 0) return 1;
    if (build(tmp_path, schema_path, sf) != 0) {
        remove_db(tmp_path);
        return 1;
    }
    /* The closed database file holds every commit: its WAL is empty. The old database's WAL goes
    ** first, so that it is never read against the new file. */
    if (remove_db(db_path) != 0) return 1;
    if (rename(tmp_path, db_path) != 0) {
        fprintf(stderr, "tpch-load: cannot rename %s to %s: %s\n", tmp_path, db_path, strerror(errno));
        return 1;
    }
    if (remove_db(tmp_path) != 0) return 1; /* the WAL left behind */
    printf("database %s: %.1f MB\n", db_path, (double)file_size(db_path) / 1e6);
    return 0;
}
