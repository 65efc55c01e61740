/*
** import.h -- the shell's .import FILE TABLE: a CSV file into a table, through COPY.
*/
#ifndef STRATA_CLI_IMPORT_H
#define STRATA_CLI_IMPORT_H

#include <stddef.h>

#include "strata.h"

/* import_csv loads the CSV file path into table. It looks at the file's first 64 KiB: the
** delimiter is the one of ',', tab, '|' and ';' that splits its lines into the same number (at
** least 2) of fields, the most fields winning (',' when none does). When the table exists, the
** first line is a header if its fields are the table's column names (in any case), data
** otherwise. When it does not, the first line is the header: the table is created with those
** column names and, per column, the narrowest of BIGINT, DOUBLE, DATE and VARCHAR that holds
** every sampled value (VARCHAR for a column without values). Then `COPY table FROM path`
** loads it, strict and atomic (a table created here is dropped again when the load fails).
** Returns STRATA_OK, or an error with its message in err[0..errsize). */
int import_csv(strata_db *db, const char *path, const char *table, char *err, size_t errsize);

#endif
