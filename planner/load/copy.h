/*
** copy.h -- COPY ... FROM and COPY ... TO: files in, files out, CSV in between (csv.h).
**
** COPY t [(cols)] FROM 'file' binds as an INSERT whose input is a PLAN_FILE_SCAN: the reader
** parses each field straight into its table column's type, chunks of up to VECTOR_SIZE rows go
** to the INSERT, so a large load takes the column store's bulk path, and a bad record -- one that
** does not parse, or breaks a constraint (the error names its CSV line) -- fails the statement
** (nothing of it is committed) unless REJECTS names a file for bad records: then those go there,
** constraint breakers included (NOT NULL, CHECK, primary key, unique; not foreign keys), and the
** rest loads. COPY t|
** (query) TO 'file' binds as the query under a PLAN_COPY_TO sink, which writes a temporary file
** beside the target and renames it over the target once whole.
**
** A large plain file at SET threads above 1 is parsed on the worker pool, in ranges (copy.c), its
** rows handed to the INSERT in the file's order and the one reader's chunks; compressed files,
** pipes, small files and REJECTS are parsed on the statement's thread.
**
** Files are read and written with plain POSIX calls (a user's file is not the database's VFS).
** Compression: gzip (zlib) and zstd; on reading it is recognized by the file's first bytes, on
** writing by the name's extension (.gz, .zst, .zstd), unless COMPRESSION says otherwise.
*/
#ifndef STRATA_COPY_H
#define STRATA_COPY_H

#include "load/csv.h"
#include "exec/operator.h"

typedef enum copy_compression { COPY_AUTO, COPY_NONE, COPY_GZIP, COPY_ZSTD } copy_compression;

/* What a COPY statement asked for, made by copy_spec_make from its options (the binder keeps it in
** the plan's arena; its strings are the statement's). */
typedef struct copy_spec {
    const char *path;
    bool to;
    csv_options csv;      /* delimiter, quote, escape, header, null string, date formats */
    int trailing;         /* FROM: -1 decide from the first record, 0 no, 1 yes */
    copy_compression compression;
    const char *rejects;  /* FROM: bad records go to this file (NULL: the first one fails the COPY) */
} copy_spec;

/* copy_spec_make reads the options of COPY (sql_option list) into *spec:
**   FORMAT csv; DELIMITER|DELIM|SEP 'c'; HEADER [bool]; NULL 'text'; QUOTE 'c'; ESCAPE 'c';
**   DATEFORMAT 'fmt'; TIMESTAMPFORMAT 'fmt'; COMPRESSION auto|none|gzip|zstd;
**   TRAILING_DELIMITER [bool] (FROM); REJECTS 'file' (FROM).
** A bool is TRUE/FALSE, ON/OFF, 1/0 or absent (true). STRATA_ERROR names an unknown option, a
** repeated one, a value of the wrong kind, or an option of the other direction. */
int copy_spec_make(const char *path, bool to, const sql_list *options, copy_spec *spec, strata_err *err);

/* PLAN_FILE_SCAN (op_file_scan, operator.h): the rows of spec->path (p->copy.spec), in p's column
** types and names. For the INSERT over such a scan (its op_node `scan`), about row `row` of the
** chunk the scan returned last (the INSERT gets it as it is: nothing between them drops or
** reorders rows): copy_scan_rejects says whether REJECTS names a file; copy_scan_row_line gives
** the CSV line where the row starts; copy_scan_reject_row sends the row to the REJECTS file as a
** bad record (the same format: line, column (1-based, 0: none), column name, reason, the record's
** text) and counts it in x->rejects; copy_scan_row_error puts "file 'path': CSV line N: " before
** the message on x->err and returns rc. */
bool copy_scan_rejects(const op_node *scan);
uint64_t copy_scan_row_line(const op_node *scan, uint32_t row);
int copy_scan_reject_row(exec_ctx *x, const op_node *scan, uint32_t row, uint32_t column, const char *reason);
int copy_scan_row_error(exec_ctx *x, const op_node *scan, uint32_t row, int rc);

/* PLAN_COPY_TO (op_copy_to): writes the rows of its child to spec->path (a temporary name until
** the sink is finalized, which renames it); x->changes counts the rows. Closed without that (an
** error), the temporary file is removed: the target is as it was. */

#endif
