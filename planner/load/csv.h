/*
** csv.h -- CSV text to typed data chunks and back: the reader under COPY ... FROM and the shell's
** .import, the writer under COPY ... TO and the shell's csv output.
**
** The reader pulls bytes through a caller's read function (a file, a pipe, a gzip or zstd
** stream: csv.c does not care), splits them into records and fields, and parses each field into
** row r of a data_chunk whose column types the caller gives. A value means what the same text
** CAST to the column's type means in SQL (core/value.h's parsers: int_parse, dec_parse,
** date_parse, ...), with VARCHAR(n) checked as an assignment ("value too long for type character
** varying(n)" unless the excess is spaces). It is strict: a record with too few or too many
** fields, a quote inside an unquoted field, a character after a closing quote, invalid UTF-8 in
** text, an unterminated quote at the end of the input are all errors, each naming the physical
** line where the record starts, the 1-based column and (when the caller named the columns) its
** name: `CSV line 7, column 2 (qty): invalid input syntax for type integer: "12x"`. In reject
** mode a bad record goes to a callback instead and the reader goes on with the next one.
**
** The format, where RFC 4180, PostgreSQL's and DuckDB's CSV leave a choice:
**   - Records end at LF, CRLF or a lone CR; the last one needs no line end. A UTF-8 byte order
**     mark at the very start is skipped.
**   - A field is quoted when its first byte is the quote character; inside, the escape
**     character (default: the quote itself, as in "a ""b"" c") before a quote or before itself
**     stands for that character, and before anything else is an ordinary byte (PostgreSQL).
**     Delimiters, CR and LF inside quotes are data. Spaces are data, never trimmed, quoted or not
**     (though the number and date parsers accept surrounding white space, as CAST does).
**   - NULL is an *unquoted* field equal to the null string (default "": an empty unquoted field);
**     a quoted field is never NULL, so "" is the empty string (PostgreSQL, DuckDB). A quoted
**     field of a non-text column is parsed like an unquoted one ("" is then an error).
**   - An empty line is skipped, except when there is exactly one column: then it is a record of
**     one empty field (NULL by default), as PostgreSQL reads it, so that a one-column table with
**     NULLs survives a round trip.
**   - trailing_delimiter (TPC-H .tbl files): a record ending with the delimiter loses that one
**     empty last field.
**
** Speed: fields are found through bit masks of the four special bytes (delimiter, quote, CR, LF)
** over 64 bytes at a time (SSE2 compares through simde: plain x86-64 has them), numbers and dates
** are parsed straight from the block buffer (plain forms by inline fast paths, the rest by
** core/'s parsers), strings are copied once, into the vector (vec_set_str). Nothing is allocated
** per row. A field or record longer than the block grows the buffer.
**
** Errors: every function returns a STRATA_* status and records its message with err_set (err may
** be NULL): STRATA_ERROR for bad input and bad options, STRATA_NOMEM, STRATA_MISUSE for calls out
** of order, and whatever the read or write function returned. Nothing here aborts on input.
*/
#ifndef STRATA_CSV_H
#define STRATA_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../vector/vector.h"
#include "value.h"

#define CSV_BLOCK_SIZE (1u << 20) /* the block buffer's size, unless a longer record grows it */

/* csv_read_fn reads up to cap bytes into buf and sets *nread; *nread == 0 means the end of the
** input. A short read is not the end: the reader calls again until its block is full. An I/O
** error is returned as a STRATA_* status with a message set on err; the reader then fails with
** that status and message. */
typedef int (*csv_read_fn)(void *arg, void *buf, size_t cap, size_t *nread, strata_err *err);

/* csv_write_fn writes all n bytes of buf, or returns a STRATA_* status with a message on err. */
typedef int (*csv_write_fn)(void *arg, const void *buf, size_t n, strata_err *err);

/* What a reject callback learns about a bad record. Every pointer is valid during the call only. */
typedef struct csv_reject {
    uint64_t line;           /* 1-based physical line where the record starts */
    uint32_t column;         /* 1-based column of the problem; 0 when it is not one column's */
    const char *column_name; /* that column's name when the caller named the columns, else NULL */
    const char *reason;      /* the problem alone: `invalid input syntax for type integer: "12x"` */
    const char *message;     /* the whole message an error would have had ("CSV line 7, ...") */
    const char *text;        /* the record's bytes as they are in the input, without its line end */
    size_t text_len;         /* (not NUL-terminated) */
} csv_reject;

/* csv_reject_fn receives each bad record in reject mode. It returns STRATA_OK to go on with the
** next record, or another status (with a message on err) to stop the reader with it: a limit on
** the number of rejects, for instance. */
typedef int (*csv_reject_fn)(void *arg, const csv_reject *rej, strata_err *err);

/* Options of the reader and the writer. A zeroed struct is the defaults: comma, double quote,
** escape = quote, no header, "" as the null string, ISO dates. */
typedef struct csv_options {
    char delimiter;              /* 0: ','; any other byte but CR, LF, the quote and the escape */
    char quote;                  /* 0: '"' */
    char escape;                 /* 0: the quote character ("" inside quotes); e.g. '\\' */
    bool header;                 /* the first record holds the column names, not data */
    bool trailing_delimiter;     /* drop one empty field at the end of a record (.tbl files) */
    const char *null_string;     /* NULL or "": an empty unquoted field is NULL; e.g. "\\N" */
    const char *dateformat;      /* NULL: ISO 'YYYY-MM-DD'; else e.g. "%d/%m/%Y" (see below) */
    const char *timestampformat; /* NULL: ISO; else e.g. "%d/%m/%Y %H:%M:%S" */
    csv_reject_fn reject;        /* NULL: the first bad record stops the reader with an error */
    void *reject_arg;
    size_t block_size; /* 0: CSV_BLOCK_SIZE; tests use small blocks to move boundaries */
} csv_options;
/*
** dateformat and timestampformat are strptime/strftime-like: %Y a year of 1 to 4 digits (written
** with 4), %y a two-digit year (69..99 are 19xx, 00..68 20xx, as POSIX strptime), %m and %d the
** month and day of 1 or 2 digits (written with 2), %b and %B an English month name, abbreviated
** or full (any case on input), %H %M %S hours, minutes, seconds of 1 or 2 digits, %f a fraction
** of a second of 1 to 6 digits (written with 6), %% a percent sign; any other character matches
** itself. A date format needs a year, a month and a day. A value that does not match is
** `invalid input syntax for type date: "31.12.2024" (format "%d/%m/%Y")`.
*/

/* ---- reading ------------------------------------------------------------------------------ */

typedef struct csv_reader csv_reader;

/* csv_reader_open prepares a reader of the bytes that read(arg, ...) supplies, into columns of
** types[0..ncols) named names[0..ncols) (names may be NULL: messages then give numbers only).
** opt may be NULL (the defaults); it, types and names are copied, so they need not outlive the
** call. ncols may be 0 to only look at the first record with csv_reader_header and give the
** columns later (csv_reader_set_columns). No byte is read yet.
** STRATA_ERROR for bad options ("CSV delimiter must differ from the quote character"),
** STRATA_MISUSE for a column type that cannot be read (the NULL type), STRATA_NOMEM; on error
** *out is NULL and nothing is allocated. */
int csv_reader_open(csv_reader **out, const csv_options *opt, csv_read_fn read, void *arg,
                    const sql_type *types, const char *const *names, uint32_t ncols, strata_err *err);

/* csv_reader_header reads the first record (when not yet read) and gives its fields: the header's
** column names when opt->header, else the first data record's fields (which csv_reader_next
** still returns as data). *count gets the number of fields (0 for an empty input; the trailing
** delimiter rule applies), *fields (may be NULL) NUL-terminated copies, owned by the reader and
** valid until csv_reader_close. This is how the shell counts the columns to create for .import.
** Errors: a structural error of that record (unterminated quote, ...), invalid UTF-8 in a header,
** a read error; these stop the reader, even in reject mode. */
int csv_reader_header(csv_reader *r, const char *const **fields, uint32_t *count, strata_err *err);

/* csv_reader_set_columns gives (or replaces) the column types and names before the first call of
** csv_reader_next (STRATA_MISUSE after it). Copied as by csv_reader_open. */
int csv_reader_set_columns(csv_reader *r, const sql_type *types, const char *const *names, uint32_t ncols,
                           strata_err *err);

/* csv_reader_set_trailing turns the trailing delimiter rule (csv_options) on or off before the
** first call of csv_reader_next (STRATA_MISUSE after it): a caller that looked at the first
** record with csv_reader_header decides from its fields. */
int csv_reader_set_trailing(csv_reader *r, bool on, strata_err *err);

/* csv_reader_set_range makes the reader read one stretch of a larger text, before the first call
** of csv_reader_next (STRATA_MISUSE after it): the input starts at a record (no byte order mark is
** skipped, no header read), its first line is numbered `line`, and the reader ends (as at the end
** of the input) before a record that starts `limit` bytes or more into the input; it reads on past
** limit to the end of the record that straddles it. This is how COPY parses ranges of one file
** on several threads (a reader each). */
int csv_reader_set_range(csv_reader *r, uint64_t line, uint64_t limit, strata_err *err);

/* csv_reader_next fills out with the next records, up to VECTOR_SIZE rows: out must have been
** made with chunk_init over the reader's column types; it is reset first. out->count == 0 means
** the end of the input. The header record, when opt->header, is skipped (read first if
** csv_reader_header was not called).
** A bad record is an error (STRATA_ERROR with the positioned message) unless reject mode is on:
** then the callback gets it, the record is skipped and reading goes on. After an error out's
** rows are unspecified and the reader is done: every later call returns the same status and
** message. STRATA_MISUSE when no columns were given or out does not match them. */
int csv_reader_next(csv_reader *r, data_chunk *out, strata_err *err);

/* csv_reader_line returns the line where the last record read (returned, rejected, or the one that
** failed) starts; 0 before the first record. */
uint64_t csv_reader_line(const csv_reader *r);
/* csv_reader_row_line returns the line where row `row` of the last chunk csv_reader_next filled
** starts (0 for a row it did not fill): for messages about a row that a later check refused. */
uint64_t csv_reader_row_line(const csv_reader *r, uint32_t row);
/* csv_reader_reject_row sends row `row` of the last chunk, which the reader returned as good but a
** later check refused (a constraint), to the reject callback as a bad record: its line, column
** (1-based; 0 when not one column's), reason, and the record's bytes as they are in the input
** (the reader keeps each chunk's records in reject mode). It then counts as a reject, not a row.
** STRATA_MISUSE outside reject mode; else what the callback returned. */
int csv_reader_reject_row(csv_reader *r, uint32_t row, uint32_t column, const char *reason, strata_err *err);
/* csv_reader_rows returns the number of data rows returned so far; csv_reader_rejects the number
** of records given to the reject callback. */
uint64_t csv_reader_rows(const csv_reader *r);
uint64_t csv_reader_rejects(const csv_reader *r);
/* csv_reader_pending returns the bytes the reader has read and not yet parsed. */
uint64_t csv_reader_pending(const csv_reader *r);
/* csv_reader_offset returns how many bytes of the input the records read (and the header, the
** byte order mark, the empty lines skipped) took: where the next record starts.
** csv_reader_next_line returns the line where it starts. */
uint64_t csv_reader_offset(const csv_reader *r);
uint64_t csv_reader_next_line(const csv_reader *r);

/* csv_reader_close frees the reader and everything it returned (header fields); NULL is a no-op.
** The read function's source is the caller's to close. */
void csv_reader_close(csv_reader *r);

/* csv_mem_source and csv_mem_read: a read function over bytes in memory (tests, a string given
** to COPY, sniffing). max_read > 0 caps the bytes handed out per call, to exercise short reads. */
typedef struct csv_mem_source {
    const char *data;
    size_t len, pos;
    size_t max_read;
} csv_mem_source;
int csv_mem_read(void *arg, void *buf, size_t cap, size_t *nread, strata_err *err);

/* csv_sniff guesses the delimiter of a CSV text from its first bytes data[0..len) (64 KiB is
** plenty; a last line cut short is ignored): the one among ',', '\t', '|' and ';' that splits
** the first 100 records (empty lines skipped) into the same number of fields, at least 2,
** respecting quotes (opt->quote, opt may be NULL). When several do, the most fields wins, and
** then the earlier in that list; when none does, ',' (a one-column file). *nfields (may be NULL)
** gets the field count of the first record with the chosen delimiter (0 for an empty text).
** Only STRATA_NOMEM can fail. */
int csv_sniff(const void *data, size_t len, const csv_options *opt, char *delimiter, uint32_t *nfields,
              strata_err *err);

/* ---- writing ------------------------------------------------------------------------------ */

/* csv_write_header writes names[0..ncols) as one record (quoted where needed, as values are). */
int csv_write_header(const csv_options *opt, const char *const *names, uint32_t ncols, csv_write_fn write,
                     void *arg, strata_err *err);

/* csv_write_chunk writes the chunk's rows (through its lazy selection, vectors of any kind) as
** records ending in LF. Values are written as the SQL text of core/value.c (value_to_text: true,
** 1.50, 2024-01-31, \x0aff for a BLOB), DATE and TIMESTAMP in dateformat / timestampformat when
** set. A NULL is the null string, unquoted. A field is quoted when it contains the delimiter,
** the quote, the escape, CR or LF, begins or ends with a space or tab, is empty or equals the null
** string (so that it reads back as a value, not NULL); inside quotes the quote and the escape are
** preceded by the escape. So csv_reader with the same options reads back the same values. Bytes go
** out through write in pieces of up to 64 KiB; a failed write stops with its status. */
int csv_write_chunk(const csv_options *opt, const data_chunk *chunk, csv_write_fn write, void *arg,
                    strata_err *err);

#endif
