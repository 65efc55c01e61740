/*
** render.h -- result rows to text in the shell's output modes.
**
** A renderer formats one result at a time: begin with the column names, then one call per row
** with the values as text (NULL pointer for SQL NULL) and a kind per value that says how to
** align or quote it, then end. It never sees a strata_stmt: the shell reads the values with the
** public API and hands them over, so the formats can be tested and changed on their own.
**
** Every mode except table writes each row as it arrives. Table mode needs the widths of its
** columns, so it holds up to RENDER_TABLE_BUFFER rows, prints them, and formats later rows to
** the widths it chose (a longer value is cut and ends with "…"); a column given a fixed width
** (render_options.widths) is cut to it from the first row.
*/
#ifndef STRATA_CLI_RENDER_H
#define STRATA_CLI_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#define RENDER_TABLE_BUFFER 10000

typedef enum render_mode { MODE_TABLE, MODE_CSV, MODE_JSON, MODE_LINE, MODE_LIST } render_mode;

/* How a value is written: numbers right-aligned in tables and bare in JSON; booleans bare in
** JSON; everything else is text. */
typedef enum value_kind { KIND_TEXT, KIND_NUMBER, KIND_BOOLEAN } value_kind;

typedef struct renderer renderer;

/* render_mode_parse maps "table", "box", "csv", "json", "line" or "list" to its mode; returns
** false for any other name. render_mode_name is the name of a mode. */
bool render_mode_parse(const char *name, render_mode *out);
const char *render_mode_name(render_mode mode);

/* How a result is written. null_text is what a NULL shows as in every mode but JSON (which writes
** null); NULL keeps each mode's own: "NULL" in table, line and list mode, an empty field in CSV.
** widths[i] (i < nwidths) fixes table mode's column i at that many display columns (a longer value
** or name is cut and ends with "…"), a negative width the same, right-aligned; 0 or a column past
** nwidths is sized to its values. */
typedef struct render_options {
    render_mode mode;
    bool headers;
    const char *null_text;
    const int *widths;
    int nwidths;
} render_options;

/* render_begin starts a result of ncol columns on out, written as opt says. The names are copied,
** opt's strings and widths are not (they must last until render_end). Returns NULL when out of
** memory. */
renderer *render_begin(FILE *out, const render_options *opt, int ncol, const char *const *names);
/* render_row adds a row: values[i] is the text of column i (NULL for SQL NULL), kinds[i] its
** kind. The values are copied when they must be kept. Returns false when out of memory (the row
** is lost, the renderer stays usable). */
bool render_row(renderer *r, const char *const *values, const value_kind *kinds);
/* render_end writes what is still held (and the table's bottom line or JSON's closing bracket)
** and frees the renderer. NULL is a no-op. */
void render_end(renderer *r);

#endif
