/*
** value.h -- SQL values one at a time: checked arithmetic, parsing, formatting, casts, date/time
** arithmetic, comparison, hashing and the implicit type rules.
**
** This is what the binder (type rules, constant folding), scalar expression evaluation and the C
** API call. It is not the vector layer: kernels over whole vectors live in vector/ and should
** follow the rules stated here. The physical layouts are those of types.h.
**
** Errors: every function that can fail returns a STRATA_* status (STRATA_ERROR for bad input or
** overflow, STRATA_NOMEM, STRATA_MISUSE) and records a PostgreSQL-worded message with err_set();
** out-parameters are written only on success. Nothing here aborts on input. Text inputs are
** (pointer, length) pairs because sstr bytes are not NUL-terminated; leading and trailing white
** space is accepted wherever PostgreSQL accepts it.
**
** Dialect: PostgreSQL's, as DuckDB follows. Where the two differ, or where strata's 18-digit
** DECIMAL forces a choice, the choice is stated at the declaration; in short:
**   - integer / integer truncates toward zero; % takes the sign of the dividend; overflow is
**     "smallint/integer/bigint out of range", a zero divisor "division by zero".
**   - DOUBLE -> integer rounds half to even (PostgreSQL's rint()); DECIMAL -> integer and every
**     DECIMAL rescale round half away from zero (PostgreSQL NUMERIC); DOUBLE -> DECIMAL goes
**     through 15 significant digits (PostgreSQL's float8_numeric), so 2.675::DOUBLE -> 2.68.
**   - DECIMAL result types: see dec_result_type(). Precision is capped at 18; a result that does
**     not fit is "numeric field overflow" (PostgreSQL's NUMERIC would widen instead).
**   - date + interval and date - interval give TIMESTAMP (PostgreSQL, and DuckDB too);
**     date - date gives INTEGER days; timestamp - timestamp gives an interval of days and time.
**   - EXTRACT returns BIGINT for whole-number fields and DECIMAL for second (8,6), millisecond
**     (8,3) and the epoch of a timestamp or interval (18,6), as PostgreSQL 14+ returns numeric;
**     DuckDB returns BIGINT/DOUBLE there.
**   - DOUBLE output is the shortest text that reads back to the same double, laid out as
**     PostgreSQL 12+ does (fixed notation for decimal exponents -4..14, else d.ddde+XX).
**   - BOOLEAN prints as true/false (the text cast; psql's display of t/f is a client matter).
**   - DATE and TIMESTAMP cover years 1..9999 (PostgreSQL goes further; no BC, no infinity).
*/
#ifndef STRATA_VALUE_H
#define STRATA_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "hash.h"
#include "status.h"
#include "types.h"

__extension__ typedef __int128 int128;

/* The longest text of any value other than VARCHAR and BLOB, terminating NUL included. */
#define VALUE_TEXT_MAX 96

/* Arithmetic operators shared by every type's arithmetic. */
typedef enum value_op { VALUE_ADD, VALUE_SUB, VALUE_MUL, VALUE_DIV, VALUE_MOD } value_op;

/* ---------------------------------------------------------------- types ---- */

/* sql_type_make returns the type id with no modifiers (DECIMAL gets (18,3), as DuckDB's default
** DECIMAL; PostgreSQL's unconstrained NUMERIC has no equivalent here). */
sql_type sql_type_make(uint8_t id);
/* sql_type_decimal returns DECIMAL(precision, scale); the caller ensures 1 <= precision <= 18 and
** scale <= precision (sql_type_check_decimal says so with a message). */
sql_type sql_type_decimal(uint8_t precision, uint8_t scale);
/* sql_type_varchar returns VARCHAR(max_len); 0 is unlimited. */
sql_type sql_type_varchar(uint32_t max_len);
/* sql_type_check_decimal validates DECIMAL(p,s) modifiers as written by a user. */
int sql_type_check_decimal(int64_t precision, int64_t scale, strata_err *err);
/* sql_type_equal compares ids and the modifiers that matter for the id. */
bool sql_type_equal(sql_type a, sql_type b);
/* sql_type_name returns the name PostgreSQL uses in messages ("integer", "double precision",
** "numeric", "character varying", "timestamp"; BLOB, which PostgreSQL calls bytea, is "blob"). */
const char *sql_type_name(uint8_t id);
/* sql_type_format writes the full name ("numeric(10,2)", "character varying(5)") like snprintf:
** it returns the length the name needs and writes at most cap - 1 bytes and a NUL. */
size_t sql_type_format(sql_type t, char *buf, size_t cap);
static inline bool sql_type_is_integer(uint8_t id) { return id >= TYPE_SMALLINT && id <= TYPE_BIGINT; }
/* SMALLINT, INTEGER, BIGINT, DOUBLE, DECIMAL */
static inline bool sql_type_is_numeric(uint8_t id) { return id >= TYPE_SMALLINT && id <= TYPE_DECIMAL; }

/* ---------------------------------------------------------------- strings ---- */

/* sstr_ref makes an sstr of len bytes at p: short strings are copied inline, longer ones point at
** p, which must outlive the sstr. */
sstr sstr_ref(const char *p, uint32_t len);
/* sstr_copy makes an sstr whose bytes, when not inline, are copied into a. STRATA_NOMEM when the
** arena cannot allocate. */
int sstr_copy(arena *a, const char *p, size_t len, sstr *out, strata_err *err);
/* utf8_length counts the characters of UTF-8 text (bytes that do not continue a character). */
size_t utf8_length(const char *s, size_t len);
/* varchar_check fits text to VARCHAR(max_len) (0: unlimited) as PostgreSQL does: an assignment
** of a longer value is "value too long for type character varying(n)" unless the excess is all
** spaces, which are cut; an explicit CAST truncates silently. *out_len is the kept byte length. */
int varchar_check(const char *s, size_t len, uint32_t max_len, bool explicit_cast, size_t *out_len,
                  strata_err *err);

/* bool_parse reads PostgreSQL's boolean spellings, case-insensitively: t, true, y, yes, on, 1 and
** f, false, n, no, off, 0, and any unique prefix of those words (not "o"). */
int bool_parse(const char *s, size_t len, bool *out, strata_err *err);

/* blob_parse reads PostgreSQL bytea input: "\x" followed by hex digit pairs (white space allowed
** between pairs), or the escape form where "\\" is a backslash and "\ooo" an octal byte. The bytes
** go into a (unless they fit inline). */
int blob_parse(const char *s, size_t len, arena *a, sstr *out, strata_err *err);
/* blob_format writes n bytes as "\x" and lower-case hex, NUL-terminated; buf holds 2n + 3 bytes.
** Returns the length (2n + 2). */
size_t blob_format(const void *p, size_t n, char *buf);

/* ---------------------------------------------------------------- integers ---- */

/* int_check_range checks that v fits the integer type id (SMALLINT, INTEGER or BIGINT):
** "smallint out of range", "integer out of range". */
int int_check_range(uint8_t id, int64_t v, strata_err *err);
/* int_arith computes a op b for the integer type id, whose range a and b are in. Overflow is
** "<type> out of range"; / and % by zero are "division by zero". / truncates toward zero, % has
** the sign of a; INT64_MIN / -1 overflows and INT64_MIN % -1 is 0, as in PostgreSQL. */
int int_arith(value_op op, uint8_t id, int64_t a, int64_t b, int64_t *out, strata_err *err);
/* int_neg computes -a: "<type> out of range" for the type's minimum. */
int int_neg(uint8_t id, int64_t a, int64_t *out, strata_err *err);
/* int_parse reads an optionally signed decimal integer: `invalid input syntax for type integer:
** "abc"` or `value "99999" is out of range for type smallint`. */
int int_parse(uint8_t id, const char *s, size_t len, int64_t *out, strata_err *err);
/* int_format writes v in decimal with a NUL; buf holds 21 bytes. Returns the length. */
size_t int_format(int64_t v, char *buf);

/* ---------------------------------------------------------------- doubles ---- */

/* dbl_arith computes a op b as PostgreSQL's float8 operators: a finite result that becomes
** infinite is "value out of range: overflow", a nonzero product or quotient that becomes zero
** "value out of range: underflow", x / 0 "division by zero". % is not defined for DOUBLE in
** PostgreSQL: STRATA_ERROR "operator does not exist: double precision % double precision". */
int dbl_arith(value_op op, double a, double b, double *out, strata_err *err);
/* dbl_parse reads a number (strtod syntax), or NaN, Infinity, inf, -Infinity in any case. A value
** beyond the double range, or a nonzero value that underflows to zero, is `"1e400" is out of
** range for type double precision`. */
int dbl_parse(const char *s, size_t len, double *out, strata_err *err);
/* dbl_format writes d as PostgreSQL 12+ (extra_float_digits = 1) does: the fewest significant
** digits that strtod reads back to d, found by trying %.{1..17}e in turn; fixed notation when
** the decimal exponent is in -4..14 ("0.0001", "100", "123456789012345"), otherwise "1e+20",
** "1.5e-07"; "NaN", "Infinity", "-Infinity", "-0". buf holds 32 bytes. Returns the length.
** (Ryu, which PostgreSQL uses, may pick a different shortest digit string in rare cases at an
** exact power of two; both read back to the same double.) */
size_t dbl_format(double d, char *buf);
/* dbl_to_int converts to the integer type id as PostgreSQL does: round half to even (rint),
** then "<type> out of range" when the result does not fit or d is NaN or infinite. */
int dbl_to_int(uint8_t id, double d, int64_t *out, strata_err *err);
/* dbl_round_half_even is rint() without libm, for finite d. */
double dbl_round_half_even(double d);

/* ---------------------------------------------------------------- decimals ---- */
/*
** DECIMAL(p,s) is an int64 holding value * 10^s, with |value * 10^s| < 10^p, p <= 18. Rounding is
** half away from zero everywhere (PostgreSQL NUMERIC). A result outside its precision is
** "numeric field overflow". Negation of a DECIMAL is plain negation: it cannot overflow.
*/
#define DEC_MAX_PRECISION 18
#define DEC_TEXT_MAX 24 /* "-0.000000000000000001" and INT64_MIN fit, with the NUL */

extern const int64_t dec_pow10[19]; /* 10^0 .. 10^18 */

/* dec_check verifies |v| < 10^precision. */
int dec_check(int64_t v, uint8_t precision, strata_err *err);
/* dec_parse reads '123.456', '-0.5', '.5', '1e3', '1.5E-2' into DECIMAL(precision, scale),
** rounding extra fraction digits half away from zero. Bad syntax (NaN and Infinity included:
** DECIMAL cannot hold them) is `invalid input syntax for type numeric: "abc"`. */
int dec_parse(const char *s, size_t len, uint8_t precision, uint8_t scale, int64_t *out, strata_err *err);
/* dec_format writes v at scale with all scale digits ("1.50", "-0.05", "0"); buf holds
** DEC_TEXT_MAX bytes. Returns the length. */
size_t dec_format(int64_t v, uint8_t scale, char *buf);
/* dec_rescale converts v at from_scale to DECIMAL(to.precision, to.scale). */
int dec_rescale(int64_t v, uint8_t from_scale, sql_type to, int64_t *out, strata_err *err);
/* dec_compare orders a (scale sa) and b (scale sb) exactly: -1, 0 or 1. */
int dec_compare(int64_t a, uint8_t sa, int64_t b, uint8_t sb);

/* dec_result_type gives the type of DECIMAL(p1,s1) op DECIMAL(p2,s2); integers take part as
** DECIMAL(5,0), DECIMAL(10,0), DECIMAL(18,0) (see value_arith_type). With s = the result scale:
**   + -  s = max(s1,s2), p = min(18, max(p1-s1, p2-s2) + s + 1)            (DuckDB's rule)
**   *    p1+p2 <= 18: DECIMAL(p1+p2, s1+s2), exact (DuckDB's rule); otherwise p = 18 and
**        s = min(s1+s2, max(s1, s2, 12)), so at least 6 integer digits remain unless an
**        operand's own scale needs them (DuckDB keeps s1+s2 in its 38 digits)
**   /    s = max(6, s1+p2+1), integer digits i = (p1-s1) + s2; if i+s > 18 then s = max(6, 18-i);
**        p = min(18, i+s); the quotient is rounded (SQL Server's rule, cut to 18 digits;
**        PostgreSQL gives at least 16 significant digits, DuckDB a DOUBLE)
**   %    s = max(s1,s2), p = min(18, min(p1-s1, p2-s2) + s)                   (DuckDB's rule) */
sql_type dec_result_type(value_op op, sql_type a, sql_type b);
/* dec_arith computes a op b (scales sa, sb) into the result type rt (normally dec_result_type's),
** exactly in 128 bits, then rounded half away from zero to rt.scale and checked against
** rt.precision. / and % by zero are "division by zero". */
int dec_arith(value_op op, int64_t a, uint8_t sa, int64_t b, uint8_t sb, sql_type rt, int64_t *out,
              strata_err *err);
/* dec_to_int converts v at scale to the integer type id, rounding half away from zero:
** "<type> out of range". */
int dec_to_int(uint8_t id, int64_t v, uint8_t scale, int64_t *out, strata_err *err);
/* dec_from_int converts an integer to DECIMAL(to.precision, to.scale). */
int dec_from_int(int64_t v, sql_type to, int64_t *out, strata_err *err);
/* dec_to_double returns the double nearest to v / 10^scale (correctly rounded). */
double dec_to_double(int64_t v, uint8_t scale);
/* dec_from_double converts d to DECIMAL(to.precision, to.scale) through its 15-significant-digit
** text, as PostgreSQL does; NaN is "cannot convert NaN to numeric", infinities "numeric field
** overflow". */
int dec_from_double(double d, sql_type to, int64_t *out, strata_err *err);

/* Sums. SUM over integers and decimals accumulates the int64 values in an int128 (sum_add, which
** cannot overflow for fewer than 2^64 additions) and converts once at the end. */
static inline void sum_add(int128 *acc, int64_t v) { *acc += v; }
/* sum_to_bigint: the sum of integers as BIGINT, "bigint out of range" when it does not fit. */
int sum_to_bigint(int128 sum, int64_t *out, strata_err *err);
/* sum_to_dec: a sum of values at one scale as DECIMAL(precision, that scale). */
int sum_to_dec(int128 sum, uint8_t precision, int64_t *out, strata_err *err);
/* dec_avg: sum / count for a sum at in_scale, rounded half away from zero to DECIMAL(out). count
** must be positive (STRATA_MISUSE otherwise; the caller returns NULL for an empty group). */
int dec_avg(int128 sum, int64_t count, uint8_t in_scale, sql_type out, int64_t *result, strata_err *err);
/* avg_to_double: sum / count / 10^scale as a double (the AVG of integers). count > 0. */
double avg_to_double(int128 sum, int64_t count, uint8_t scale);
/* int128_format writes a sum at scale like dec_format; buf holds 44 bytes. Returns the length. */
size_t int128_format(int128 v, uint8_t scale, char *buf);

/* ---------------------------------------------------------------- dates and times ---- */
/*
** DATE is int32 days since 1970-01-01, TIMESTAMP int64 microseconds since 1970-01-01 00:00:00,
** both proleptic Gregorian, years 1..9999. INTERVAL keeps months, days and microseconds apart.
*/
#define MICROS_PER_SEC INT64_C(1000000)
#define MICROS_PER_MINUTE (60 * MICROS_PER_SEC)
#define MICROS_PER_HOUR (60 * MICROS_PER_MINUTE)
#define MICROS_PER_DAY (24 * MICROS_PER_HOUR)
#define DATE_MIN (-719162) /* 0001-01-01 */
#define DATE_MAX 2932896   /* 9999-12-31 */
#define TS_MIN ((int64_t)DATE_MIN * MICROS_PER_DAY)
#define TS_MAX (((int64_t)DATE_MAX + 1) * MICROS_PER_DAY - 1)

/* date_is_leap: Gregorian leap year. date_days_in_month: 28..31 for month 1..12. */
bool date_is_leap(int64_t year);
int date_days_in_month(int64_t year, int month);
/* date_from_ymd returns the day number of a valid y-m-d (any year; no range check). */
int64_t date_from_ymd(int64_t year, int month, int day);
/* date_to_ymd splits a day number into year, month (1..12) and day (1..31). */
void date_to_ymd(int64_t days, int64_t *year, int *month, int *day);

/* date_parse reads 'YYYY-MM-DD' (year of 4 or more digits, month and day of 1 or 2), optionally
** followed by a time of day that is checked and ignored, as PostgreSQL's date input does.
** `invalid input syntax for type date: "x"`, `date/time field value out of range: "2023-02-29"`,
** `date out of range: "10000-01-01"`. */
int date_parse(const char *s, size_t len, int32_t *out, strata_err *err);
/* date_format writes 'YYYY-MM-DD'; buf holds 11 bytes. Returns 10. */
size_t date_format(int32_t days, char *buf);
/* ts_parse reads 'YYYY-MM-DD', 'YYYY-MM-DD HH:MM[:SS[.ffffff]]' and the same with 'T' between
** date and time; more than 6 fraction digits are rounded; 24:00:00 is the next midnight; a
** trailing time zone ('Z', '+02', '-05:30') is ignored, as PostgreSQL does for a timestamp
** without time zone. Errors as date_parse, with "timestamp" and `timestamp out of range: "x"`. */
int ts_parse(const char *s, size_t len, int64_t *out, strata_err *err);
/* ts_format writes 'YYYY-MM-DD HH:MM:SS' and, when nonzero, '.' and the fraction without
** trailing zeros; buf holds 27 bytes. Returns the length. */
size_t ts_format(int64_t ts, char *buf);

/* interval_parse reads PostgreSQL interval input: a sequence of "<number> <unit>" ('1 year 2
** months', '-1 week', '1.5 days'), with units microsecond(s)/us, millisecond(s)/ms, second(s)/s/
** sec(s), minute(s)/m/min(s), hour(s)/h/hr(s), day(s)/d, week(s)/w, month(s)/mon(s),
** year(s)/y/yr(s), decade(s), century/centuries, millennium/millennia; a time '[-]HH:MM[:SS[.f]]'
** ('1 day 02:03:04'); an optional leading '@' and trailing 'ago' (negates everything). A number
** without a unit is seconds. Fractions spill down as PostgreSQL does (0.5 month = 15 days, 1.5
** days = 1 day 12:00:00; a fraction of a year becomes whole months).
** unit, when not NULL, is the SQL form INTERVAL '3' DAY: a bare number is a count of that unit,
** and other text is parsed as above with fields below unit dropped (PostgreSQL). unit may be
** NUL-terminated in any case. `invalid input syntax for type interval: "x"`,
** `interval field value out of range: "x"`. ISO 8601 forms (P1D) are not read. */
int interval_parse(const char *s, size_t len, const char *unit, sql_interval *out, strata_err *err);
/* interval_format writes PostgreSQL's output style: "1 year 2 mons 3 days 04:05:06", "-1 days
** +02:00:00", "00:00:00", "1 day 00:00:00.5" (hours may exceed 24; no justification).
** buf holds VALUE_TEXT_MAX bytes. Returns the length. */
size_t interval_format(sql_interval iv, char *buf);

/* date_add_days: d + n days, "date out of range" outside years 1..9999. */
int date_add_days(int32_t d, int64_t n, int32_t *out, strata_err *err);
/* date_diff: a - b in days (always fits an INTEGER). */
static inline int64_t date_diff(int32_t a, int32_t b) { return (int64_t)a - b; }
/* date_to_ts: midnight of d. ts_to_date: the day of ts (the time is dropped). */
static inline int64_t date_to_ts(int32_t d) { return (int64_t)d * MICROS_PER_DAY; }
int32_t ts_to_date(int64_t ts);
/* ts_add_interval: ts + iv as PostgreSQL: months first, clamping the day to the new month's
** length (Jan 31 + 1 month = Feb 28 or 29), then days, then microseconds; "timestamp out of
** range". ts_sub_interval: ts - iv, the same with iv negated. */
int ts_add_interval(int64_t ts, sql_interval iv, int64_t *out, strata_err *err);
int ts_sub_interval(int64_t ts, sql_interval iv, int64_t *out, strata_err *err);
/* ts_diff: a - b as days and microseconds, the days split off as PostgreSQL's justify_hours does
** (49 hours -> "2 days 01:00:00"); no months. Cannot fail for timestamps in range. */
sql_interval ts_diff(int64_t a, int64_t b);
/* interval_add, interval_sub: component-wise, "interval out of range" on overflow.
** interval_neg: -iv, the same error for a component's minimum. */
int interval_add(sql_interval a, sql_interval b, sql_interval *out, strata_err *err);
int interval_sub(sql_interval a, sql_interval b, sql_interval *out, strata_err *err);
int interval_neg(sql_interval a, sql_interval *out, strata_err *err);
/* interval_span: the interval as microseconds counting a month as 30 days, which is how
** PostgreSQL compares intervals ('1 mon' = '30 days'). interval_compare orders by it. */
int128 interval_span(sql_interval iv);
int interval_compare(sql_interval a, sql_interval b);

/* Fields of EXTRACT and date_trunc. */
typedef enum dt_field {
    DT_MILLENNIUM,
    DT_CENTURY,
    DT_DECADE,
    DT_YEAR,
    DT_ISOYEAR,
    DT_QUARTER,
    DT_MONTH,
    DT_WEEK, /* ISO 8601 week: weeks start on Monday, week 1 holds the year's first Thursday */
    DT_DAY,
    DT_DOW,    /* 0 = Sunday .. 6 */
    DT_ISODOW, /* 1 = Monday .. 7 */
    DT_DOY,
    DT_HOUR,
    DT_MINUTE,
    DT_SECOND,      /* with the fraction: DECIMAL(8,6) */
    DT_MILLISECOND, /* seconds * 1000 with the fraction: DECIMAL(8,3) */
    DT_MICROSECOND, /* seconds * 1000000: BIGINT */
    DT_EPOCH        /* seconds since 1970-01-01: BIGINT for DATE, DECIMAL(18,6) otherwise */
} dt_field;

/* dt_field_parse reads a field name in any case, singular or plural, and the abbreviations
** PostgreSQL knows (y, yr, mon, d, h, min, s, sec, ms, us, dow, doy, ...). Unknown names are
** `unit "x" not recognized for type <type id's name>`. */
int dt_field_parse(const char *name, size_t len, uint8_t type_id, dt_field *out, strata_err *err);
/* dt_extract_type gives EXTRACT's result type for a field and a DATE, TIMESTAMP or INTERVAL
** source; a field the source lacks (hour of a DATE, dow of an INTERVAL) is `unit "hour" not
** supported for type date`. */
int dt_extract_type(dt_field f, uint8_t type_id, sql_type *out, strata_err *err);
/* date_extract, ts_extract, interval_extract: the field's value as dt_extract_type's type says
** (a BIGINT, or a DECIMAL's scaled int64). Interval fields follow PostgreSQL: year = months / 12,
** month = months % 12, day = days, hour = micros / 1 hour, and so on, each with the sign of its
** part; the epoch counts a year as 365.25 days and a month as 30. */
int date_extract(dt_field f, int32_t d, int64_t *out, strata_err *err);
int ts_extract(dt_field f, int64_t ts, int64_t *out, strata_err *err);
int interval_extract(dt_field f, sql_interval iv, int64_t *out, strata_err *err);
/* ts_trunc: date_trunc(field, ts), the start of ts's millennium (years 1, 1001, 2001), century
** (1, 101, ...), decade, year, quarter, month, ISO week (Monday), day, hour, minute, second,
** millisecond or microsecond. Other fields are `unit "dow" not supported for type timestamp`. */
int ts_trunc(dt_field f, int64_t ts, int64_t *out, strata_err *err);

/* ---------------------------------------------------------------- single values ---- */

/* A value of any type with its full type. The payload by type id:
**   i: BOOLEAN (0/1), SMALLINT, INTEGER, BIGINT, DECIMAL (scaled), DATE (days), TIMESTAMP
**   d: DOUBLE;  iv: INTERVAL;  s: VARCHAR and BLOB (the bytes belong to whoever made the value)
** A NULL has is_null set and the type it was given (TYPE_NULL for an untyped NULL). */
typedef struct sql_value {
    sql_type type;
    uint8_t is_null;
    union {
        int64_t i;
        double d;
        sql_interval iv;
        sstr s;
    } v;
} sql_value;

sql_value value_null(sql_type t);
sql_value value_bool(bool b);
sql_value value_int(uint8_t id, int64_t v); /* SMALLINT, INTEGER, BIGINT; v in range */
sql_value value_double(double d);
sql_value value_decimal(int64_t v, uint8_t precision, uint8_t scale);
sql_value value_date(int32_t days);
sql_value value_timestamp(int64_t micros);
sql_value value_interval(sql_interval iv);
sql_value value_text(const char *s, uint32_t len); /* bytes referenced, not copied (sstr_ref) */
sql_value value_blob(const void *p, uint32_t len); /* likewise */

/* value_compare orders two values: -1, 0 or 1. Values of the same type compare as that
** type (VARCHAR and BLOB bytewise, then by length, as the C collation; DOUBLE with NaN above
** every number and equal to itself, -0 = 0; INTERVAL by interval_span). Across types: integers
** and DECIMALs exactly; either side DOUBLE as doubles (PostgreSQL's implicit cast to float8);
** DATE with TIMESTAMP as timestamps. Other mixtures order by type id (the caller casts first).
** A NULL sorts after everything and equal to NULL (PostgreSQL's default NULLS LAST). */
int value_compare(const sql_value *a, const sql_value *b);
/* value_equal is value_compare == 0. */
bool value_equal(const sql_value *a, const sql_value *b);
/* value_hash hashes v exactly as vector/ hashes a vector of v's type (core/hash.h), so that
** single values and vectors can meet in one hash table: integers of every width, BOOLEAN, DECIMAL,
** DATE and TIMESTAMP hash their stored int64 (so INTEGER 5 and BIGINT 5 hash alike, and DECIMALs
** at the same scale), DOUBLE with -0 = 0 and one NaN, INTERVAL by interval_span, VARCHAR and BLOB
** by their bytes; a NULL hashes to VALUE_HASH_NULL. Values of different types that value_compare
** calls equal (INTEGER 5 and DOUBLE 5.0, DECIMALs at different scales, a DATE and a TIMESTAMP) are
** cast to their common type first, as the binder does for joins, GROUP BY and IN lists. */
uint64_t value_hash(const sql_value *v);
/* The hash of NULL: vector/'s HASH_NULL, which core cannot include. */
#define VALUE_HASH_NULL HASH_NULL

/* value_cast converts in to type `to` as PostgreSQL's CAST does (explicit_cast) or as an
** assignment does (explicit_cast false: VARCHAR(n) overflow is an error instead of truncation).
** Text -> any type parses (the *_parse functions); any type -> VARCHAR formats (value_to_text);
** integers, DOUBLE and DECIMAL convert among themselves with the rounding stated above; integers
** <-> BOOLEAN (nonzero is true); DATE <-> TIMESTAMP; VARCHAR <-> BLOB (bytea text form). Other
** pairs are "cannot cast type date to integer". A NULL stays NULL of type `to`.
** Memory: text or bytes the result needs beyond the 12 inline bytes come from a (STRATA_MISUSE
** when a is NULL); a VARCHAR result may point at in's bytes. */
int value_cast(const sql_value *in, sql_type to, bool explicit_cast, arena *a, sql_value *out,
               strata_err *err);
/* value_to_text writes v's text like snprintf: it returns the full length and writes at most
** cap - 1 bytes and a NUL (cap 0: nothing). NULL writes "NULL"; BLOB the "\x..." form. */
size_t value_to_text(const sql_value *v, char *buf, size_t cap);
/* value_to_text_arena: v's text, NUL-terminated, in a (STRATA_MISUSE when NULL); *len (may be
** NULL) gets its length. */
int value_to_text_arena(const sql_value *v, arena *a, const char **out, size_t *len, strata_err *err);

/* value_arith computes a op b for any operand types value_arith_type accepts (untyped string
** literals excepted: cast them first), casting integers to DECIMAL or DOUBLE as it says. A NULL
** operand gives NULL of the result type. Used for constant folding and row-at-a-time paths. */
int value_arith(value_op op, const sql_value *a, const sql_value *b, sql_value *out, strata_err *err);
/* value_negate computes -a for numbers and intervals. */
int value_negate(const sql_value *a, sql_value *out, strata_err *err);
/* value_extract: EXTRACT(f FROM in) for DATE, TIMESTAMP and INTERVAL values. */
int value_extract(dt_field f, const sql_value *in, sql_value *out, strata_err *err);

/* ---------------------------------------------------------------- type rules ---- */

/* An operand that is an untyped string literal ('2024-01-02' before it has a type) is passed as
** VARCHAR with its flag: like PostgreSQL's "unknown", it takes the other side's type. */
#define VALUE_LITERAL_A 1
#define VALUE_LITERAL_B 2

/* value_common_type gives the type both operands of a comparison, CASE, UNION, IN list or
** COALESCE are cast to (PostgreSQL's and DuckDB's implicit casts):
**   - NULL with T: T. Equal ids: the same id; DECIMALs DECIMAL(min(18, max(p1-s1, p2-s2) +
**     max(s1,s2)), max(s1,s2)); VARCHAR(n) with VARCHAR(m) the longer (unlimited wins).
**   - integers: the wider. An integer with DECIMAL(p,s): the integer counts as DECIMAL(5,0),
**     DECIMAL(10,0) or DECIMAL(18,0) (BIGINT, capped; DuckDB uses 19 digits in 128 bits); so
**     INTEGER with DECIMAL(5,2) is DECIMAL(12,2). For comparisons prefer dec_compare, which is
**     exact for any BIGINT without a cast that could overflow.
**   - any number with DOUBLE: DOUBLE.  DATE with TIMESTAMP: TIMESTAMP.
**   - an untyped string literal with T: T; two literals: VARCHAR.
**   - anything else (a VARCHAR column with INTEGER or BLOB, BOOLEAN with INTEGER, DATE with
**     INTERVAL): "types character varying and integer cannot be matched", as PostgreSQL refuses. */
int value_common_type(sql_type a, sql_type b, int flags, sql_type *out, strata_err *err);
/* value_arith_type gives the result type of a op b:
**   - numbers: both operands go to value_common_type, the result has that type, except that
**     DECIMAL results follow dec_result_type (integers taking part as DECIMAL(w,0)) and DOUBLE
**     has no % (PostgreSQL);
**   - DATE + INTEGER-like, INTEGER + DATE, DATE - INTEGER: DATE; DATE - DATE: INTEGER;
**   - DATE or TIMESTAMP +/- INTERVAL, INTERVAL + DATE or TIMESTAMP: TIMESTAMP;
**   - TIMESTAMP - TIMESTAMP (or with a DATE): INTERVAL; INTERVAL +/- INTERVAL: INTERVAL;
**   - an untyped literal takes the other side's type when that is a number or an INTERVAL;
**   - anything else is "operator does not exist: date + date". */
int value_arith_type(value_op op, sql_type a, sql_type b, int flags, sql_type *out, strata_err *err);
/* value_sum_type: SUM over SMALLINT, INTEGER, BIGINT is BIGINT (accumulated in int128; a total
** beyond BIGINT is "bigint out of range"; PostgreSQL widens to numeric, DuckDB to HUGEINT);
** DECIMAL(p,s) gives DECIMAL(18,s); DOUBLE gives DOUBLE. Others: "function sum(date) does not
** exist". */
int value_sum_type(sql_type in, sql_type *out, strata_err *err);
/* value_avg_type: AVG over integers and DOUBLE is DOUBLE (DuckDB; PostgreSQL gives numeric for
** integers); over DECIMAL(p,s) it is DECIMAL(18, min(18-p+s, max(s, 6))): exact, rounded, and
** never overflowing, where DuckDB gives DOUBLE and PostgreSQL at least 16 significant digits. */
int value_avg_type(sql_type in, sql_type *out, strata_err *err);

#endif
