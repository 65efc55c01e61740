/*
** recover.c -- the shell's .recover (recover.h).
*/
#include "recover.h"

#include <inttypes.h>

/* count prints ", N what" (singular when N is 1) when N is not zero. */
static void count(FILE *out, int64_t n, const char *one, const char *many) {
    if (n) fprintf(out, ", %" PRId64 " %s", n, n == 1 ? one : many);
}

static void print_report(FILE *out, const strata_recover_report *r, const char *newfile) {
    int64_t rows = 0;
    int made = 0;
    for (int i = 0; i < r->ntables; i++) {
        const strata_recover_table *t = &r->tables[i];
        if (t->schema_failed) {
            fprintf(out, "%s: not recreated (its definition does not apply)\n", t->name);
            continue;
        }
        made++;
        rows += t->rows;
        fprintf(out, "%s: %" PRId64 " %s", t->name, t->rows, t->rows == 1 ? "row" : "rows");
        count(out, t->orphan_rows, "from orphan leaves", "from orphan leaves");
        count(out, t->pages_lost, "page lost", "pages lost");
        count(out, t->rowgroups_lost, "row group lost", "row groups lost");
        count(out, t->rows_rejected, "row rejected", "rows rejected");
        fputc('\n', out);
    }
    if (r->catalog_pages_lost || r->definitions_lost)
        fprintf(out, "catalog: %" PRId64 " %s lost, %" PRId64 " %s lost\n", r->catalog_pages_lost,
                r->catalog_pages_lost == 1 ? "page" : "pages", r->definitions_lost,
                r->definitions_lost == 1 ? "definition" : "definitions");
    if (r->wal_damaged) fputs("wal: damaged; the commits from the damage on are left out\n", out);
    fprintf(out, "recovered %" PRId64 " %s of %d %s into %s\n", rows, rows == 1 ? "row" : "rows", made,
            made == 1 ? "table" : "tables", newfile);
}

int recover_command(strata_db *db, const char *damaged, const char *newfile, FILE *out, char *err, size_t errsize) {
    strata_recover_report *r = NULL;
    int rc = damaged ? strata_recover(damaged, newfile, &r) : strata_recover_db(db, newfile, &r);
    if (r && (rc == STRATA_OK || r->ntables)) print_report(out, r, newfile);
    if (rc) snprintf(err, errsize, "%s", r && r->message[0] ? r->message : strata_errstr(rc));
    strata_recover_free(r);
    return rc;
}
