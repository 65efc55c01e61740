/*
** sql_guard.h -- filters for generated SQL, shared by the mutation test (tests/api/
** test_sql_mutation.c) and the libFuzzer target (tests/fuzz/fuzz_sql.c).
**
** sql_too_costly rejects strings that are valid but may run for hours; sql_known_crash rejects
** strings that hit an engine bug already reported, so that the runs look for new ones. Each known
** bug names its reproduction; delete its test here when the bug is fixed.
*/
#ifndef STRATA_TEST_SQL_GUARD_H
#define STRATA_TEST_SQL_GUARD_H

#include <stddef.h>
#include <string.h>
#include <strings.h>

/* sql_too_costly says whether a string may run for a very long time without being wrong: a recursive
** CTE or series whose bound became a huge number, or a cross product of many tables. strata has
** no way to interrupt a running statement, so such strings are replaced by new ones. */
static inline int sql_too_costly(const char *sql) {
    int series = 0, tables = 0;
    size_t longest_number = 0;
    for (const char *p = sql; *p;) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_') {
            const char *w = p;
            while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' || (*p >= '0' && *p <= '9'))
                p++;
            size_t n = (size_t)(p - w);
            if (n == 9 && !strncasecmp(w, "recursive", 9)) return 1; /* a mutated stop condition loops */
            if ((n == 15 && !strncasecmp(w, "generate_series", 15)) ||
                (n == 5 && !strncasecmp(w, "range", 5)))
                series = 1;
            static const char *const names[] = {"t", "u", "tv", "e", "w", "w2", "uv", "r", "c", "s", "g", "v", "a", "b"};
            for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
                if (n == strlen(names[i]) && !strncasecmp(w, names[i], n) && *p != '.') tables++;
        } else if (*p >= '0' && *p <= '9') {
            const char *w = p;
            while ((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E') p++;
            if ((size_t)(p - w) > longest_number) longest_number = (size_t)(p - w);
        } else {
            p++;
        }
    }
    return (series && longest_number >= 4) || tables > 10;
}

/* contains_word says whether sql contains word (ASCII case-insensitive) as a whole word. */
static inline int sql_contains_word(const char *sql, const char *word) {
    size_t n = strlen(word);
    for (const char *p = sql; *p; p++) {
        if (strncasecmp(p, word, n) != 0) continue;
        char before = p == sql ? ' ' : p[-1], after = p[n];
        int wb = (before >= 'a' && before <= 'z') || (before >= 'A' && before <= 'Z') || before == '_' ||
                 (before >= '0' && before <= '9');
        int wa = (after >= 'a' && after <= 'z') || (after >= 'A' && after <= 'Z') || after == '_' ||
                 (after >= '0' && after <= '9');
        if (!wb && !wa) return 1;
    }
    return 0;
}

/* sql_touches_files says whether a string may read or write files outside the database: COPY
** takes a path, and generated SQL must not create, overwrite or read files on the machine running
** the tests. */
static inline int sql_touches_files(const char *sql) { return sql_contains_word(sql, "copy"); }

/* sql_known_crash says whether sql may hit a crash already reported (none open now; the two
** found by the mutation test, an uninitialized index key array in CREATE INDEX and EXPLAIN's text
** buffer in strata_finalize, are fixed). */
static inline int sql_known_crash(const char *sql) {
    (void)sql;
    return 0;
}

#endif
