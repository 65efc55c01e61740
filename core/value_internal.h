/*
** value_internal.h -- helpers shared by value.c, decimal.c and datetime.c; not an interface.
*/
#ifndef STRATA_VALUE_INTERNAL_H
#define STRATA_VALUE_INTERNAL_H

#include "value.h"

__extension__ typedef unsigned __int128 uint128;

/* Messages quote at most this many bytes of a bad input, so the message stays readable. */
#define QUOTE_MAX 100
#define QUOTE_LEN(len) ((int)((len) > QUOTE_MAX ? QUOTE_MAX : (len)))

static inline bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
static inline char to_lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c; }

/* word_eq_ci: the n bytes at w equal the NUL-terminated lower-case name, ignoring case. */
static inline bool word_eq_ci(const char *w, size_t n, const char *name) {
    size_t i = 0;
    for (; i < n && name[i]; i++)
        if (to_lower(w[i]) != name[i]) return false;
    return i == n && name[i] == '\0';
}

/* trim_spaces moves *s and *end inward past white space. */
static inline void trim_spaces(const char **s, const char **end) {
    while (*s < *end && is_space(**s))
        (*s)++;
    while (*end > *s && is_space((*end)[-1]))
        (*end)--;
}

/* pow10_u128 returns 10^n for n <= 38. */
static inline uint128 pow10_u128(int n) {
    uint128 r = 1;
    while (n-- > 0)
        r *= 10;
    return r;
}

/* div_round divides with the quotient rounded half away from zero; d != 0, and n / d must not
** be the one overflowing quotient (INT128_MIN / -1). */
static inline int128 div_round(int128 n, int128 d) {
    int128 q = n / d, r = n % d;
    uint128 ar = r < 0 ? -(uint128)r : (uint128)r, ad = d < 0 ? -(uint128)d : (uint128)d;
    if (ar >= ad - ar) q += ((n < 0) == (d < 0)) ? 1 : -1;
    return q;
}

/* uint128_digits writes v in decimal at scale (all scale digits, a leading "0." when needed),
** after a '-' when neg; buf holds 44 bytes. Returns the length. */
size_t uint128_digits(uint128 v, bool neg, int scale, char *buf);

/* dec_as_decimal gives an integer type's DECIMAL equivalent (5, 10 or 18 digits, scale 0);
** other types pass through. */
sql_type dec_as_decimal(sql_type t);

/* fits_int checks v against the range of an integer type id: "<type> out of range". */
int fits_int(uint8_t id, int128 v, int64_t *out, strata_err *err);

#endif
