/*
** tpch_gen.h -- a TPC-H data generator written from the TPC-H specification (v3.0.x, clause 4.2).
**
** It produces the eight tables of the benchmark (REGION, NATION, SUPPLIER, CUSTOMER, PART,
** PARTSUPP, ORDERS, LINEITEM) at any scale factor SF >= 0.01, with the specification's
** cardinalities, keys, value ranges, word lists and pseudo-text grammar. It is not a port of
** dbgen and its bytes differ from dbgen's (see datasets/README.md for every difference); what it
** promises is the specification's rules and determinism: for a given table and SF the rows are
** the same on every run and every machine. Every value comes from a counter-based generator
** seeded by (table, column group, row), so any table, and any range of its rows, is generated on
** its own and equals the same rows generated as part of the whole database.
**
** Two ways to use it:
**
**   - rows as structs, for a loader that appends values without going through text:
**
**         tpch_gen *g;
**         if (tpch_gen_open(&g, TPCH_LINEITEM, 1.0) != STRATA_OK) ...;
**         tpch_row row;
**         while (tpch_gen_next(g, &row) == STRATA_ROW) use(row.lineitem);
**         tpch_gen_close(g);
**
**   - dbgen's .tbl text: tpch_write_tbl(TPCH_ORDERS, 1.0, file, NULL), or tpch_format_row() on
**     a row.
**
** Values: keys and integers are int64_t; DECIMAL(15,2) columns are int64_t counts of hundredths
** (cents: 1234 is 12.34), as strata stores DECIMAL; DATE columns are int32_t days since
** 1970-01-01. Strings are tpch_str (pointer and length, not NUL-terminated) that point into the
** generator's memory and stay valid until the next tpch_gen_next() or tpch_gen_close() on it.
**
** Status codes are strata's (include/strata.h): STRATA_OK, STRATA_ROW/STRATA_DONE from
** tpch_gen_next, STRATA_MISUSE for a bad argument (unknown table, SF out of range), STRATA_NOMEM,
** STRATA_IOERR. The generator does not use the database itself: it needs libc and pthreads only.
**
** Threads: a tpch_gen is used by one thread at a time; several generators may run in parallel
** threads (the text pool they share is built once, under pthread_once, and then only read).
*/
#ifndef STRATA_TPCH_GEN_H
#define STRATA_TPCH_GEN_H

#include <stdint.h>
#include <stdio.h>

#include "strata.h"

/* The tables, in an order where every table comes after the tables its foreign keys refer to. */
typedef enum tpch_table {
    TPCH_REGION,
    TPCH_NATION,
    TPCH_SUPPLIER,
    TPCH_CUSTOMER,
    TPCH_PART,
    TPCH_PARTSUPP,
    TPCH_ORDERS,
    TPCH_LINEITEM,
    TPCH_TABLE_COUNT
} tpch_table;

/* The scale factors accepted: SF is used with 4 decimals (SF * 10,000 rounded to an integer). */
#define TPCH_SF_MIN 0.01
#define TPCH_SF_MAX 100000.0

/* The longest .tbl line tpch_format_row writes for a row made by the generator, with its '\n'. */
#define TPCH_LINE_MAX 512

/* The spec's dates (clause 4.2.2.12) as days since 1970-01-01. */
#define TPCH_STARTDATE 8035   /* 1992-01-01 */
#define TPCH_CURRENTDATE 9298 /* 1995-06-17 */
#define TPCH_ENDDATE 10591    /* 1998-12-31 */

/* A string inside a generated row: not NUL-terminated, owned by the generator. */
typedef struct tpch_str {
    const char *ptr;
    uint32_t len;
} tpch_str;

typedef struct tpch_region {
    int64_t regionkey;
    tpch_str name, comment;
} tpch_region;

typedef struct tpch_nation {
    int64_t nationkey;
    tpch_str name;
    int64_t regionkey;
    tpch_str comment;
} tpch_nation;

typedef struct tpch_supplier {
    int64_t suppkey;
    tpch_str name, address;
    int64_t nationkey;
    tpch_str phone;
    int64_t acctbal; /* cents */
    tpch_str comment;
} tpch_supplier;

typedef struct tpch_customer {
    int64_t custkey;
    tpch_str name, address;
    int64_t nationkey;
    tpch_str phone;
    int64_t acctbal; /* cents */
    tpch_str mktsegment, comment;
} tpch_customer;

typedef struct tpch_part {
    int64_t partkey;
    tpch_str name, mfgr, brand, type;
    int64_t size;
    tpch_str container;
    int64_t retailprice; /* cents */
    tpch_str comment;
} tpch_part;

typedef struct tpch_partsupp {
    int64_t partkey, suppkey, availqty;
    int64_t supplycost; /* cents */
    tpch_str comment;
} tpch_partsupp;

typedef struct tpch_orders {
    int64_t orderkey, custkey;
    char orderstatus;   /* 'F', 'O' or 'P' */
    int64_t totalprice; /* cents */
    int32_t orderdate;  /* days since 1970-01-01 */
    tpch_str orderpriority, clerk;
    int64_t shippriority;
    tpch_str comment;
} tpch_orders;

typedef struct tpch_lineitem {
    int64_t orderkey, partkey, suppkey, linenumber;
    int64_t quantity, extendedprice, discount, tax; /* cents: quantity 17 is 1700 */
    char returnflag, linestatus;
    int32_t shipdate, commitdate, receiptdate; /* days since 1970-01-01 */
    tpch_str shipinstruct, shipmode, comment;
} tpch_lineitem;

/* One row of any table; the member named after the generator's table is the one filled. */
typedef union tpch_row {
    tpch_region region;
    tpch_nation nation;
    tpch_supplier supplier;
    tpch_customer customer;
    tpch_part part;
    tpch_partsupp partsupp;
    tpch_orders orders;
    tpch_lineitem lineitem;
} tpch_row;

typedef struct tpch_gen tpch_gen;

/* tpch_table_name returns the table's lower-case name ("lineitem"), NULL for an unknown table. */
const char *tpch_table_name(tpch_table table);

/* tpch_table_from_name finds a table by name (case-insensitive, "lineitem" or "LINEITEM");
** returns STRATA_OK and sets *table, or STRATA_NOTFOUND. */
int tpch_table_from_name(const char *name, tpch_table *table);

/* tpch_table_columns returns the number of columns of the table (0 for an unknown table). */
int tpch_table_columns(tpch_table table);

/* tpch_sf_valid returns 1 when sf is a scale factor the generator accepts (TPCH_SF_MIN ..
** TPCH_SF_MAX), 0 otherwise. */
int tpch_sf_valid(double sf);

/* tpch_sf_parse reads a scale factor written as a number into *sf: 1 when it is all a number and
** tpch_sf_valid, else 0 (the programs' -s option). */
int tpch_sf_parse(const char *text, double *sf);

/* tpch_read_file returns the whole file at path as a NUL-terminated string the caller frees, or
** NULL with errno set (the programs read schema.sql and the query files with it). */
char *tpch_read_file(const char *path);

/* tpch_table_rows returns the exact number of rows of the table at scale factor sf, or -1 when
** the table or sf is invalid. For LINEITEM (1 to 7 lines per order, drawn at random) it counts the
** lines order by order, which takes a few milliseconds per million orders. */
int64_t tpch_table_rows(tpch_table table, double sf);

/* tpch_table_units returns how many units the table is made of at sf, the unit of
** tpch_gen_open_range: one row for every table except LINEITEM, whose unit is an order (all the
** lines of one order). -1 when the table or sf is invalid. */
int64_t tpch_table_units(tpch_table table, double sf);

/* tpch_gen_open creates a generator of every row of the table at scale factor sf, in key order.
** Returns STRATA_OK and sets *out; STRATA_MISUSE (unknown table, sf out of range, NULL out) or
** STRATA_NOMEM, with *out set to NULL. The first call in a process builds the shared text pool
** (about 0.1 s of CPU). Free it with tpch_gen_close. */
int tpch_gen_open(tpch_gen **out, tpch_table table, double sf);

/* tpch_gen_open_range creates a generator of units [first, first + count) of the table (see
** tpch_table_units); count is clipped at the table's end. The rows equal the same rows of a
** whole-table generator, so ranges generated apart (in threads, in processes) and concatenated
** in order give the whole table. Returns as tpch_gen_open; first < 0 or count < 0 is
** STRATA_MISUSE. */
int tpch_gen_open_range(tpch_gen **out, tpch_table table, double sf, int64_t first, int64_t count);

/* tpch_gen_next fills *row (its member for the generator's table) with the next row and returns
** STRATA_ROW, or returns STRATA_DONE after the last row (and on every later call). The strings of
** the row stay valid until the next call on g or tpch_gen_close(g). */
int tpch_gen_next(tpch_gen *g, tpch_row *row);

/* tpch_gen_rows_done returns how many rows g has produced so far. */
int64_t tpch_gen_rows_done(const tpch_gen *g);

/* tpch_gen_close frees the generator; NULL is accepted. */
void tpch_gen_close(tpch_gen *g);

/* tpch_format_row writes one row of the table as a .tbl line in dbgen's format (each field
** followed by '|', then '\n'; DECIMAL columns with two decimals, dates YYYY-MM-DD) into buf of
** cap bytes. Returns the line's length (no NUL is written), or 0 when the table is unknown or
** the line does not fit in cap. A row made by the generator always fits in TPCH_LINE_MAX. */
size_t tpch_format_row(tpch_table table, const tpch_row *row, char *buf, size_t cap);

/* tpch_write_tbl writes the whole table at sf to out as .tbl text (buffered, one fwrite per
** megabyte). Returns STRATA_OK and sets *rows (when rows is not NULL) to the number of lines;
** STRATA_MISUSE for a bad argument, STRATA_NOMEM, or STRATA_IOERR when a write fails (what was
** written before stays written). The stream is not closed or flushed. */
int tpch_write_tbl(tpch_table table, double sf, FILE *out, int64_t *rows);

/* tpch_write_tbl_range is tpch_write_tbl for units [first, first + count) of the table (see
** tpch_gen_open_range). */
int tpch_write_tbl_range(tpch_table table, double sf, int64_t first, int64_t count, FILE *out, int64_t *rows);

/* tpch_format_date writes day (days since 1970-01-01) as YYYY-MM-DD into buf (10 bytes, no NUL)
** for any year 0000..9999. */
void tpch_format_date(int32_t day, char buf[10]);

#endif
