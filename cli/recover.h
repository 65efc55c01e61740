/*
** recover.h -- the shell's .recover: copying what a damaged database still holds into a new one,
** through strata_recover / strata_recover_db, and printing the per-table report.
*/
#ifndef STRATA_CLI_RECOVER_H
#define STRATA_CLI_RECOVER_H

#include <stddef.h>
#include <stdio.h>

#include "strata.h"

/* recover_command carries out `.recover NEWFILE` (damaged NULL: the database db has open) and
** `.recover DAMAGED NEWFILE` (a file that may not even open; db is not used). It writes to out
** one line per table and a summary:
**     orders: 1612 rows, 2 pages lost
**     items: 250000 rows
**     recovered 251612 rows of 2 tables into new.db
** with, when they are not zero, ", N from orphan leaves", ", N pages lost", ", N row groups
** lost", ", N rows rejected" after a table's rows, "T: not recreated (its definition does not
** apply)" for a table that could not be made, and "catalog: N pages lost, M definitions lost"
** and "wal: damaged; the commits from the damage on are left out" before the summary. Returns STRATA_OK, or the error with its message in err[0..errsize) (the
** report of what was copied before is still printed). */
int recover_command(strata_db *db, const char *damaged, const char *newfile, FILE *out, char *err, size_t errsize);

#endif
