/*
** sqlscan.c -- the statement-end scanner of the shell (see sqlscan.h).
*/
#include "sqlscan.h"

enum {
    CODE,          /* outside literals and comments */
    STRING,        /* inside '...' */
    ESTRING,       /* inside E'...' */
    ESTRING_ESC,   /* after a backslash inside E'...' */
    IDENT,         /* inside "..." */
    STRING_END,    /* after the ' that ends '...' unless the next byte is another ' */
    ESTRING_END,   /* the same for E'...' */
    IDENT_END,     /* after the " that ends "..." unless the next byte is another " */
    LINE_COMMENT,  /* after -- up to the end of the line */
    BLOCK_COMMENT, /* inside a (nested) block comment */
};

void sql_scanner_init(sql_scanner *sc) {
    sc->state = CODE;
    sc->comment_depth = 0;
    sc->prev = 0;
    sc->word = 0;
    sc->pending_saved = false;
    sc->pending = false;
    sc->ended = false;
}

static bool is_ident_char(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$' || c >= 0x80;
}

static bool is_space(int c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* code scans byte c in code. A '-' or '/' counts as code at once; when the next byte makes it
** the start of a comment, pending goes back to what it was before it. */
static void code(sql_scanner *sc, int c) {
    int prev = sc->prev, word = sc->word;
    sc->prev = c;
    sc->word = is_ident_char(c) ? word + 1 : 0;
    if ((c == '-' && prev == '-') || (c == '*' && prev == '/')) {
        sc->pending = sc->pending_saved;
        sc->state = c == '-' ? LINE_COMMENT : BLOCK_COMMENT;
        sc->comment_depth = 1;
        sc->prev = 0;
        return;
    }
    if (is_space(c)) return;
    if (c == '-' || c == '/') sc->pending_saved = sc->pending;
    sc->pending = true;
    if (c == ';') {
        sc->pending = false;
        sc->ended = true;
    } else if (c == '\'') {
        sc->state = (word == 1 && (prev == 'e' || prev == 'E')) ? ESTRING : STRING;
    } else if (c == '"') {
        sc->state = IDENT;
    }
}

void sql_scanner_feed(sql_scanner *sc, const char *text, size_t n) {
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)text[i];
        switch (sc->state) {
        case CODE: code(sc, c); break;
        case STRING:
            if (c == '\'') sc->state = STRING_END;
            break;
        case ESTRING:
            if (c == '\'') sc->state = ESTRING_END;
            if (c == '\\') sc->state = ESTRING_ESC;
            break;
        case ESTRING_ESC: sc->state = ESTRING; break;
        case IDENT:
            if (c == '"') sc->state = IDENT_END;
            break;
        case STRING_END:
        case ESTRING_END:
        case IDENT_END:
            if (c == (sc->state == IDENT_END ? '"' : '\'')) {
                sc->state = sc->state == STRING_END ? STRING : sc->state == ESTRING_END ? ESTRING : IDENT;
                break;
            }
            sc->state = CODE;
            sc->prev = 0;
            sc->word = 0;
            code(sc, c);
            break;
        case LINE_COMMENT:
            if (c == '\n') {
                sc->state = CODE;
                sc->prev = c;
                sc->word = 0;
            }
            break;
        case BLOCK_COMMENT:
            if (c == '*' && sc->prev == '/') {
                sc->comment_depth++;
                c = 0; /* a '/' right after this '*' does not close anything */
            } else if (c == '/' && sc->prev == '*') {
                if (--sc->comment_depth == 0) {
                    sc->state = CODE;
                    sc->word = 0;
                    c = ' '; /* a comment separates tokens */
                } else {
                    c = 0;
                }
            }
            sc->prev = c;
            break;
        }
    }
}

bool sql_scanner_complete(const sql_scanner *sc) {
    bool in_code = sc->state == CODE || sc->state == STRING_END || sc->state == ESTRING_END ||
                   sc->state == IDENT_END || sc->state == LINE_COMMENT;
    return in_code && sc->ended && !sc->pending;
}

bool sql_scanner_has_code(const sql_scanner *sc) {
    return sc->pending || sc->ended ||
           (sc->state != CODE && sc->state != LINE_COMMENT && sc->state != BLOCK_COMMENT);
}

void sql_quote(FILE *out, const char *s, char q) {
    putc(q, out);
    for (; *s; s++) {
        if (*s == q) putc(q, out);
        putc(*s, out);
    }
    putc(q, out);
}
