/*
** func.h -- the scalar SQL functions (lower, substring, round, ...) and LIKE, a vector at a time.
**
** The binder looks a function up by name, asks it to type a call (which argument types it takes,
** inserting casts to them, and what it returns), and the executor calls it on whole vectors.
** Aggregates (count, sum, ...) and the special forms (CASE, COALESCE, NULLIF, CAST, EXTRACT,
** operators) are not here: the binder and expression evaluator handle them.
**
** Semantics are PostgreSQL's, as DuckDB follows; lengths and positions count characters of
** UTF-8 text, not bytes. Strings the functions produce are copied into the output vector's heap.
*/
#ifndef STRATA_FUNC_H
#define STRATA_FUNC_H

#include <stdbool.h>

#include "../../vector/vector.h"
#include "value.h"

#define FUNC_MAX_ARGS 8

/* func_bind_fn types a call with nargs arguments of types args[]: on success it writes the type
** each argument must be cast to into want[] (the binder inserts the casts; want[i] == args[i]
** for no cast) and the result type into *ret. A wrong number of arguments or types it does not
** take give STRATA_ERROR with PostgreSQL's wording: "function lower(integer) does not exist".
** An argument of type TYPE_NULL (a bare NULL) should be accepted and given a sensible type. */
typedef int (*func_bind_fn)(const sql_type *args, int nargs, sql_type *want, sql_type *ret, strata_err *err);

/* func_exec_fn computes rows 0..count-1: args[i] holds argument i, already of type want[i], of
** any vector kind (read row r through vec_index/vec_is_null); out is a writable FLAT vector of
** the result type (reset by the caller), and stays FLAT. A NULL argument gives NULL unless the
** function says otherwise (concat, greatest, least); a row that is NULL is not evaluated, so it
** raises no error. Errors (a negative length, overflow in round) are STRATA_ERROR with a message;
** then the rows of out are unspecified. */
typedef int (*func_exec_fn)(const vector *args, int nargs, uint32_t count, vector *out, strata_err *err);

typedef struct func_def {
    const char *name; /* lower case */
    func_bind_fn bind;
    func_exec_fn exec;
} func_def;

/* func_lookup finds a scalar function by its lower-case name; NULL when there is none. Aliases
** (substr, char_length, ceiling, pow, ...) have entries of their own. POSITION(sub IN s), when
** the parser learns it, must become position(s, sub): the string first, as PostgreSQL's grammar
** does. func.c, func_string.c and func_math.c state each function's types and semantics. */
const func_def *func_lookup(const char *name);
/* func_suggest returns the known function name closest to name (for "did you mean"), or NULL when
** none is within an edit distance of 1 (names of up to 3 characters), 2 (up to 8) or 3. */
const char *func_suggest(const char *name);

/* like_match says whether text matches a LIKE pattern (% any run, _ one character, escape the
** escape character, 0 for none; '\\' is the default escape as in PostgreSQL); ilike compares
** case-insensitively (ASCII and the Latin-1 supplement's letters, also Latin Extended-A, basic
** Greek and Cyrillic: the letters lower() and upper() map). escape is a Unicode code point (the
** binder checks that ESCAPE is one character); it escapes itself and the wildcards, and before any
** other character it just stands for that character. Malformed patterns (the escape character
** last) are STRATA_ERROR: "LIKE pattern must not end with escape character", whatever the text
** (PostgreSQL only notices when matching reaches the end of the pattern). */
int like_match(const char *text, size_t tlen, const char *pat, size_t plen, int escape, bool ilike, bool *out,
               strata_err *err);

/* like_prefix says whether a case-sensitive LIKE pattern is a literal prefix followed by '%' and
** nothing else ('abc%', 'a!%b%' with escape '!', '%', 'ab%%'), writing the prefix's bytes,
** unescaped, to out (room for plen bytes) and their number to *len: the pattern then matches
** exactly the texts that start with those bytes, as like_exec finds. False for any other pattern,
** malformed ones included (like_exec reports those). */
bool like_prefix(const char *pat, size_t plen, int escape, char *out, size_t *len);

/* A like_plan is a LIKE pattern analyzed once, for matching many texts: a pattern of literal
** segments between '%'s (case-sensitive, no '_') is matched by prefix, suffix and memmem of the
** segments between; any other by like_match's general matcher on the plan's copy of it.
** like_plan_init validates the pattern (like_match's errors) and allocates; like_plan_free frees
** (and leaves an empty plan that may be freed again). */
typedef struct like_plan {
    bool segmented, ilike;
    int escape, nstars;
    size_t plen;
    char *bytes;     /* the pattern's plen bytes, then the segments' unescaped bytes one after another */
    size_t *seg_end; /* segment i ends at seg_end[i] from the segments' start (and begins at seg_end[i-1], or 0) */
} like_plan;
int like_plan_init(like_plan *plan, const char *pat, size_t plen, int escape, bool ilike, strata_err *err);
bool like_plan_match(const like_plan *plan, const char *text, size_t tlen);
void like_plan_free(like_plan *plan);

/* like_exact says whether a LIKE pattern has no wildcard ('abc', 'a!%b' with escape '!'), writing
** its bytes, unescaped, to out (room for plen bytes) and their number to *len: the pattern then
** matches exactly the texts equal to them. False for any other pattern, malformed ones included. */
bool like_exact(const char *pat, size_t plen, int escape, char *out, size_t *len);

/* like_exec computes [NOT] LIKE / ILIKE over vectors (text, pattern: VARCHAR vectors of any
** kind; escape_char as like_match) into out, a BOOLEAN vector, NULL where either input is NULL.
** A constant pattern is analyzed once (prefix, suffix, contains fast paths). */
int like_exec(const vector *text, const vector *pattern, int escape_char, bool ilike, bool negated, uint32_t count,
              vector *out, strata_err *err);

#endif
