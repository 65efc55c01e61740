/*
** types.h -- the SQL types and how their values are laid out in memory.
**
** Shared by every layer above core/: the vector layer stores columns of these physical types,
** the planner binds expressions to them, the row store encodes them into keys and records.
** This header only declares; value.h holds the arithmetic, parsing and formatting.
*/
#ifndef STRATA_TYPES_H
#define STRATA_TYPES_H

#include <stdint.h>

/* Logical SQL types. The order is stable (stored in the catalog). */
typedef enum sql_type_id {
    TYPE_NULL = 0,   /* the type of a bare NULL literal before binding */
    TYPE_BOOLEAN,    /* physical: uint8_t, 0 or 1 */
    TYPE_SMALLINT,   /* int16_t */
    TYPE_INTEGER,    /* int32_t */
    TYPE_BIGINT,     /* int64_t */
    TYPE_DOUBLE,     /* double (REAL and FLOAT are DOUBLE) */
    TYPE_DECIMAL,    /* int64_t scaled by 10^scale; precision <= 18 */
    TYPE_VARCHAR,    /* sstr, UTF-8 */
    TYPE_BLOB,       /* sstr, bytes */
    TYPE_DATE,       /* int32_t days since 1970-01-01 (proleptic Gregorian) */
    TYPE_TIMESTAMP,  /* int64_t microseconds since 1970-01-01 00:00:00 (no time zone) */
    TYPE_INTERVAL,   /* sql_interval */
    TYPE_COUNT
} sql_type_id;

/* A full type: the id plus DECIMAL's precision and scale, VARCHAR's length limit. */
typedef struct sql_type {
    uint8_t id;        /* sql_type_id */
    uint8_t precision; /* DECIMAL: 1..18 */
    uint8_t scale;     /* DECIMAL: 0..precision */
    uint32_t max_len;  /* VARCHAR(n): n characters; 0 = unlimited */
} sql_type;

/* INTERVAL as PostgreSQL keeps it: months, days and microseconds are separate, because a month
** and a day have no fixed length. */
typedef struct sql_interval {
    int32_t months;
    int32_t days;
    int64_t micros;
} sql_interval;

/* A string or blob in 16 bytes, as DuckDB's string_t: up to 12 bytes inline, otherwise a 4-byte
** prefix (for fast comparisons) and a pointer to the bytes, which live in a heap owned by the
** vector or arena that holds the value. Not NUL-terminated. */
#define SSTR_INLINE 12
typedef struct sstr {
    _Alignas(8) uint32_t len;
    union {
        char inl[SSTR_INLINE];
        struct __attribute__((packed)) { /* packed: the pointer sits at offset 8, not 16 */
            char prefix[4];
            const char *ptr;
        } ext;
    } u;
} sstr;
_Static_assert(sizeof(sstr) == 16, "sstr must take 16 bytes");

static inline const char *sstr_data(const sstr *s) { return s->len <= SSTR_INLINE ? s->u.inl : s->u.ext.ptr; }

#endif
