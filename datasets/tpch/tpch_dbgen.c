/*
** tpch_dbgen.c -- the tpch-gen program: writes TPC-H .tbl files with the generator of tpch_gen.c.
**
**   tpch-gen [-s SF] [-o DIR] [-T TABLE[,TABLE...]]... [-v]
**
** writes DIR/<table>.tbl (default: every table, SF 1, the current directory) in dbgen's format.
** Each file is written under a temporary name and renamed when complete, so a file that exists
** is whole. -v reports rows, bytes and MB/s per table on standard error. Exit status 0 on
** success, 1 on a write error, 2 on a usage error.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tpch_gen.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: tpch-gen [-s SF] [-o DIR] [-T TABLE[,TABLE...]]... [-v]\n"
            "  -s SF     scale factor, %.2f .. %.0f (default 1)\n"
            "  -o DIR    output directory, created when missing (default .)\n"
            "  -T TABLE  generate only these tables (region nation supplier customer part\n"
            "            partsupp orders lineitem); repeatable, or comma-separated\n"
            "  -v        report rows, bytes and MB/s per table on stderr\n",
            TPCH_SF_MIN, TPCH_SF_MAX);
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* add_tables marks the tables of a comma-separated list; returns 0, or -1 on an unknown name. */
static int add_tables(const char *list, int selected[TPCH_TABLE_COUNT]) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        tpch_table t;
        if (tpch_table_from_name(name, &t) != STRATA_OK) {
            fprintf(stderr, "tpch-gen: unknown table '%s'\n", name);
            return -1;
        }
        selected[t] = 1;
    }
    return 0;
}

/* write_table writes dir/<table>.tbl through dir/<table>.tbl.tmp; returns 0 or 1. */
static int write_table(tpch_table t, double sf, const char *dir, int verbose) {
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%s.tbl", dir, tpch_table_name(t));
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (f == NULL) {
        fprintf(stderr, "tpch-gen: cannot create %s: %s\n", tmp, strerror(errno));
        return 1;
    }
    double start = now_seconds();
    int64_t rows = 0;
    int rc = tpch_write_tbl(t, sf, f, &rows);
    long bytes = ftell(f);
    if (fclose(f) != 0 && rc == STRATA_OK) rc = STRATA_IOERR;
    if (rc != STRATA_OK) {
        fprintf(stderr, "tpch-gen: writing %s failed: %s\n", tmp,
                rc == STRATA_IOERR   ? strerror(errno)
                : rc == STRATA_NOMEM ? "out of memory"
                                     : "bad argument");
        remove(tmp);
        return 1;
    }
    if (rename(tmp, path) != 0) {
        fprintf(stderr, "tpch-gen: cannot rename %s to %s: %s\n", tmp, path, strerror(errno));
        remove(tmp);
        return 1;
    }
    double secs = now_seconds() - start;
    if (verbose)
        fprintf(stderr, "%-9s %12lld rows %14ld bytes %8.3f s %8.1f MB/s\n", tpch_table_name(t),
                (long long)rows, bytes, secs, secs > 0 ? (double)bytes / 1e6 / secs : 0.0);
    return 0;
}

/* make_dirs creates dir and its missing parents (mkdir -p); returns 0 or -1 with errno set. */
static int make_dirs(const char *dir) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

int main(int argc, char **argv) {
    double sf = 1.0;
    const char *dir = ".";
    int selected[TPCH_TABLE_COUNT] = {0}, any = 0, verbose = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((strcmp(a, "-s") == 0 || strcmp(a, "-o") == 0 || strcmp(a, "-T") == 0) && i + 1 >= argc) {
            fprintf(stderr, "tpch-gen: %s needs a value\n", a);
            usage(stderr);
            return 2;
        }
        if (strcmp(a, "-s") == 0) {
            if (!tpch_sf_parse(argv[++i], &sf)) {
                fprintf(stderr, "tpch-gen: scale factor '%s' is not a number in %.2f .. %.0f\n", argv[i],
                        TPCH_SF_MIN, TPCH_SF_MAX);
                return 2;
            }
        } else if (strcmp(a, "-o") == 0) {
            dir = argv[++i];
        } else if (strcmp(a, "-T") == 0) {
            if (add_tables(argv[++i], selected) != 0) return 2;
            any = 1;
        } else if (strcmp(a, "-v") == 0) {
            verbose = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "tpch-gen: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (make_dirs(dir) != 0) {
        fprintf(stderr, "tpch-gen: cannot create directory %s: %s\n", dir, strerror(errno));
        return 1;
    }
    /* The spec's PS_SUPPKEY formula gives a part the same supplier twice when the supplier count
    ** is a multiple of 3 below 229 (SF 0.0102 .. 0.0228): say so rather than fail a later load. */
    int64_t suppliers = tpch_table_rows(TPCH_SUPPLIER, sf);
    if (suppliers % 3 == 0 && suppliers < 229 && (!any || selected[TPCH_PARTSUPP] || selected[TPCH_LINEITEM]))
        fprintf(stderr,
                "tpch-gen: warning: at SF %g (%lld suppliers) the spec's PS_SUPPKEY formula repeats "
                "(ps_partkey, ps_suppkey) pairs; use SF 0.01 or >= 0.023\n",
                sf, (long long)suppliers);
    double start = now_seconds();
    for (int t = 0; t < TPCH_TABLE_COUNT; t++) {
        if (any && !selected[t]) continue;
        if (write_table((tpch_table)t, sf, dir, verbose) != 0) return 1;
    }
    if (verbose) fprintf(stderr, "total %.3f s\n", now_seconds() - start);
    return 0;
}
