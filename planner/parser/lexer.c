/*
** lexer.c -- SQL tokens: scanning, keyword lookup, and decoding of names and literals.
**
** Scanning validates everything decoding relies on (string termination, E'' escapes, blob hex
** digits), so a token that is not TK_ERROR always decodes. Every read goes through peek(),
** which returns -1 past the end of the text: the text is a byte range, not a C string.
*/
#include "parser/lexer.h"

#include <string.h>

#define KEYWORD_MAX 16 /* longer than every keyword */

static const struct {
    const char *text;
    bool reserved;
} keywords[] = {{"", false},
#define SQL_KW_TABLE(id, text, reserved) {text, reserved},
                SQL_KEYWORDS(SQL_KW_TABLE)
#undef SQL_KW_TABLE
};

sql_keyword sql_keyword_lookup(const char *s, size_t n) {
    char buf[KEYWORD_MAX];
    if (n == 0 || n >= KEYWORD_MAX) return KW_NONE;
    for (size_t i = 0; i < n; i++)
        buf[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] + 32) : s[i];
    buf[n] = '\0';
    int lo = 1, hi = KW_COUNT_ - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2, c = strcmp(buf, keywords[mid].text);
        if (c == 0) return (sql_keyword)mid;
        if (c < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return KW_NONE;
}

const char *sql_keyword_text(sql_keyword kw) {
    return kw > KW_NONE && kw < KW_COUNT_ ? keywords[kw].text : "";
}

bool sql_keyword_reserved(sql_keyword kw) { return kw > KW_NONE && kw < KW_COUNT_ && keywords[kw].reserved; }

void sql_lexer_init(sql_lexer *lx, const char *src, size_t len) {
    memset(lx, 0, sizeof *lx);
    lx->src = src;
    lx->len = len;
    lx->line = 1;
    lx->col = 1;
}

void sql_lexer_resume(sql_lexer *lx) { lx->stopped = false; }

/* peek returns the byte k positions ahead of pos, or -1 beyond the end of the text. */
static int peek(const sql_lexer *lx, size_t k) {
    return lx->pos + k < lx->len ? (unsigned char)lx->src[lx->pos + k] : -1;
}

/* bump consumes one byte, keeping track of lines. */
static void bump(sql_lexer *lx) {
    if (lx->src[lx->pos++] == '\n') {
        lx->line++;
        lx->line_off = lx->pos;
    }
}

static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_hex(int c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
static bool is_ident_start(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
static bool is_ident_char(int c) { return is_ident_start(c) || is_digit(c) || c == '$'; }
static int hex_value(int c) { return is_digit(c) ? c - '0' : (c | 32) - 'a' + 10; }

/* column returns the 1-based column of offset off on the current line, counting UTF-8 lead
** bytes from the last position asked about, so a whole scan stays linear. */
static int column(sql_lexer *lx, size_t off) {
    if (lx->col_off < lx->line_off || lx->col_off > off) {
        lx->col_off = lx->line_off;
        lx->col = 1;
    }
    for (; lx->col_off < off; lx->col_off++)
        if (((unsigned char)lx->src[lx->col_off] & 0xC0) != 0x80) lx->col++;
    return lx->col;
}

/* skip_space skips white space and comments. An unterminated block comment is reported as a
** TK_ERROR in *tok (returns false). */
static bool skip_space(sql_lexer *lx, sql_token *tok) {
    for (;;) {
        int c = peek(lx, 0);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            bump(lx);
        } else if (c == '-' && peek(lx, 1) == '-') {
            while (peek(lx, 0) != -1 && peek(lx, 0) != '\n')
                bump(lx);
        } else if (c == '/' && peek(lx, 1) == '*') {
            size_t start = lx->pos;
            size_t depth = 0; /* PostgreSQL nests block comments */
            do {
                if (peek(lx, 0) == -1) {
                    tok->off = start;
                    tok->error = "unterminated /* comment";
                    return false;
                }
                if (peek(lx, 0) == '/' && peek(lx, 1) == '*') {
                    depth++;
                    lx->pos += 2;
                } else if (peek(lx, 0) == '*' && peek(lx, 1) == '/') {
                    depth--;
                    lx->pos += 2;
                } else {
                    bump(lx);
                }
            } while (depth > 0);
        } else {
            return true;
        }
    }
}

/* scan_quoted consumes a literal enclosed in quote characters q, where a doubled q stands for
** one (and, when backslashes is set, a backslash escapes the next character). pos is at the
** opening quote. Returns false at the end of the text. */
static bool scan_quoted(sql_lexer *lx, int q, bool backslashes) {
    bump(lx);
    for (;;) {
        int c = peek(lx, 0);
        if (c == -1) return false;
        if (c == q) {
            bump(lx);
            if (peek(lx, 0) != q) return true;
        } else if (c == '\\' && backslashes && peek(lx, 1) != -1) {
            bump(lx);
        }
        bump(lx);
    }
}

/* check_escapes validates the backslash escapes of an E'' literal src[from, to) (quotes
** excluded); returns the offset of the first bad escape or (size_t)-1. */
static size_t check_escapes(const char *src, size_t from, size_t to) {
    for (size_t i = from; i < to; i++) {
        if (src[i] != '\\') continue;
        size_t esc = i++;
        char c = src[i];
        if (c == 'u' || c == 'U') {
            size_t n = c == 'u' ? 4 : 8;
            uint32_t cp = 0;
            for (size_t k = 1; k <= n; k++) {
                if (i + k >= to || !is_hex((unsigned char)src[i + k])) return esc;
                cp = cp * 16 + (uint32_t)hex_value((unsigned char)src[i + k]);
            }
            if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return esc;
            i += n;
        } else if (c == 'x') {
            if (i + 1 >= to || !is_hex((unsigned char)src[i + 1])) return esc;
            if (src[i + 1] == '0' && (i + 2 >= to || !is_hex((unsigned char)src[i + 2]))) return esc;
            if (src[i + 1] == '0' && src[i + 2] == '0') return esc; /* \x00 */
            i += (i + 2 < to && is_hex((unsigned char)src[i + 2])) ? 2 : 1;
        } else if (c >= '0' && c <= '7') {
            int v = 0, k = 0;
            while (k < 3 && i + k < to && src[i + k] >= '0' && src[i + k] <= '7')
                v = v * 8 + src[i + k++] - '0';
            if ((v & 0xFF) == 0) return esc; /* a NUL byte cannot be part of a string */
            i += (size_t)k - 1;
        }
    }
    return (size_t)-1;
}

/* scan_number consumes 12, 1.5, .5, 1., 1e10, 2.5E-3; a letter right after it is an error. */
static sql_token_kind scan_number(sql_lexer *lx, sql_token *tok) {
    sql_token_kind kind = TK_INTEGER;
    while (is_digit(peek(lx, 0)))
        lx->pos++;
    if (peek(lx, 0) == '.') {
        kind = TK_DECIMAL;
        lx->pos++;
        while (is_digit(peek(lx, 0)))
            lx->pos++;
    }
    int c = peek(lx, 0);
    if (c == 'e' || c == 'E') {
        size_t k = (peek(lx, 1) == '+' || peek(lx, 1) == '-') ? 2 : 1;
        if (is_digit(peek(lx, k))) {
            kind = TK_FLOAT;
            lx->pos += k;
            while (is_digit(peek(lx, 0)))
                lx->pos++;
        }
    }
    if (is_ident_char(peek(lx, 0))) {
        tok->off = lx->pos;
        tok->error = "trailing junk after numeric literal";
        return TK_ERROR;
    }
    return kind;
}

/* scan returns the kind of the token starting at pos (not white space) and consumes it. */
static sql_token_kind scan(sql_lexer *lx, sql_token *tok) {
    int c = peek(lx, 0), c1 = peek(lx, 1);
    size_t start = lx->pos;
    if ((c == 'e' || c == 'E') && c1 == '\'') {
        lx->pos++;
        if (!scan_quoted(lx, '\'', true)) {
            tok->error = "unterminated string literal";
            return TK_ERROR;
        }
        size_t bad = check_escapes(lx->src, start + 2, lx->pos - 1);
        if (bad != (size_t)-1) {
            tok->off = bad;
            tok->error = "invalid escape sequence in E'' string";
            return TK_ERROR;
        }
        return TK_ESTRING;
    }
    if ((c == 'x' || c == 'X') && c1 == '\'') {
        lx->pos++;
        if (!scan_quoted(lx, '\'', false)) {
            tok->error = "unterminated blob literal";
            return TK_ERROR;
        }
        size_t ndigits = 0;
        for (size_t i = start + 2; i < lx->pos - 1; i++, ndigits++) {
            if (!is_hex((unsigned char)lx->src[i])) {
                tok->off = i;
                tok->error = "blob literal X'...' holds a character that is not a hexadecimal digit";
                return TK_ERROR;
            }
        }
        if (ndigits % 2 != 0) {
            tok->error = "blob literal X'...' has an odd number of hexadecimal digits";
            return TK_ERROR;
        }
        return TK_BLOB;
    }
    if (is_ident_start(c)) {
        while (is_ident_char(peek(lx, 0)))
            lx->pos++;
        tok->keyword = sql_keyword_lookup(lx->src + start, lx->pos - start);
        return TK_IDENT;
    }
    if (is_digit(c) || (c == '.' && is_digit(c1))) return scan_number(lx, tok);
    switch (c) {
    case '\'':
        if (!scan_quoted(lx, '\'', false)) {
            tok->error = "unterminated string literal";
            return TK_ERROR;
        }
        return TK_STRING;
    case '"':
        if (!scan_quoted(lx, '"', false)) {
            tok->error = "unterminated quoted identifier";
            return TK_ERROR;
        }
        if (lx->pos - start == 2) {
            tok->error = "zero-length quoted identifier";
            return TK_ERROR;
        }
        return TK_QIDENT;
    case '$':
        if (!is_digit(c1)) break;
        lx->pos++;
        while (is_digit(peek(lx, 0)))
            lx->pos++;
        return TK_PARAM;
    }
    lx->pos++;
    switch (c) {
    case '?': return TK_PARAM;
    case '+': return TK_PLUS;
    case '-': return TK_MINUS;
    case '*': return TK_STAR;
    case '/': return TK_SLASH;
    case '%': return TK_PERCENT;
    case '=': return TK_EQ;
    case '(': return TK_LPAREN;
    case ')': return TK_RPAREN;
    case ',': return TK_COMMA;
    case '.': return TK_DOT;
    case ';': return TK_SEMI;
    case '<':
        if (c1 == '=' || c1 == '>') lx->pos++;
        return c1 == '=' ? TK_LE : c1 == '>' ? TK_NE : TK_LT;
    case '>':
        if (c1 == '=') lx->pos++;
        return c1 == '=' ? TK_GE : TK_GT;
    case '!':
        if (c1 == '=') {
            lx->pos++;
            return TK_NE;
        }
        break;
    case '|':
        if (c1 == '|') {
            lx->pos++;
            return TK_CONCAT;
        }
        break;
    case ':':
        if (c1 == ':') {
            lx->pos++;
            return TK_CAST;
        }
        break;
    }
    lx->pos = start; /* the character is reported, not consumed */
    tok->error = "unexpected character";
    return TK_ERROR;
}

/* locate computes the line and column of offset off from the start of the text (used for
** errors only: it is linear in the text). */
static void locate(const sql_lexer *lx, size_t off, int *line, int *col) {
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off && i < lx->len; i++) {
        if (lx->src[i] == '\n') {
            ++*line;
            *col = 1;
        } else if (((unsigned char)lx->src[i] & 0xC0) != 0x80) {
            ++*col;
        }
    }
}

void sql_lexer_next(sql_lexer *lx, sql_token *tok) {
    memset(tok, 0, sizeof *tok);
    tok->kind = TK_EOF;
    if (!lx->stopped && !skip_space(lx, tok)) {
        tok->kind = TK_ERROR;
    } else {
        tok->off = lx->pos;
        tok->line = lx->line;
        tok->col = column(lx, lx->pos);
        if (lx->stopped || lx->pos >= lx->len) return;
        tok->kind = scan(lx, tok);
        tok->len = lx->pos - tok->off;
        if (tok->kind == TK_SEMI) lx->stopped = true;
    }
    if (tok->kind == TK_ERROR) {
        /* the error may point inside the token; nothing after a malformed token is scanned */
        locate(lx, tok->off, &tok->line, &tok->col);
        tok->len = 0;
        lx->stopped = true;
        lx->pos = lx->len;
    }
}

char *sql_token_ident(arena *a, const char *src, const sql_token *tok) {
    char *out = arena_alloc(a, tok->len + 1);
    if (out == NULL) return NULL;
    size_t n = 0;
    if (tok->kind == TK_QIDENT) {
        for (size_t i = tok->off + 1; i + 1 < tok->off + tok->len; i++) {
            out[n++] = src[i];
            if (src[i] == '"') i++; /* "" */
        }
    } else {
        for (size_t i = 0; i < tok->len; i++) {
            char c = src[tok->off + i];
            out[n++] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
        }
    }
    out[n] = '\0';
    return out;
}

/* put_utf8 encodes code point cp (validated by the lexer) at out and returns its length. */
static size_t put_utf8(char *out, uint32_t cp) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* decode_escape decodes the backslash escape at s[i] (s[i] == '\\'), validated by the lexer,
** appending to out at *n; returns the index of the escape's last character. */
static size_t decode_escape(const char *s, size_t i, char *out, size_t *n) {
    char c = s[++i];
    switch (c) {
    case 'b': out[(*n)++] = '\b'; return i;
    case 'f': out[(*n)++] = '\f'; return i;
    case 'n': out[(*n)++] = '\n'; return i;
    case 'r': out[(*n)++] = '\r'; return i;
    case 't': out[(*n)++] = '\t'; return i;
    case 'u':
    case 'U': {
        size_t k = c == 'u' ? 4 : 8;
        uint32_t cp = 0;
        for (size_t j = 1; j <= k; j++)
            cp = cp * 16 + (uint32_t)hex_value((unsigned char)s[i + j]);
        *n += put_utf8(out + *n, cp);
        return i + k;
    }
    case 'x': {
        int v = hex_value((unsigned char)s[i + 1]);
        if (is_hex((unsigned char)s[i + 2])) v = v * 16 + hex_value((unsigned char)s[++i + 1]);
        out[(*n)++] = (char)v;
        return i + 1;
    }
    }
    if (c >= '0' && c <= '7') {
        int v = 0, k = 0;
        while (k < 3 && s[i + k] >= '0' && s[i + k] <= '7')
            v = v * 8 + s[i + k++] - '0';
        out[(*n)++] = (char)v;
        return i + (size_t)k - 1;
    }
    out[(*n)++] = c; /* \\, \', and any other character stands for itself */
    return i;
}

char *sql_token_string(arena *a, const char *src, const sql_token *tok, size_t *len) {
    /* the decoded value is never longer than the token */
    char *out = arena_alloc(a, tok->len + 1);
    if (out == NULL) return NULL;
    size_t n = 0, first = tok->off + (tok->kind == TK_STRING ? 1 : 2), end = tok->off + tok->len - 1;
    for (size_t i = first; i < end; i++) {
        if (tok->kind == TK_BLOB) {
            out[n++] = (char)(hex_value((unsigned char)src[i]) * 16 + hex_value((unsigned char)src[i + 1]));
            i++;
        } else if (src[i] == '\'') {
            out[n++] = '\'';
            i++; /* '' */
        } else if (src[i] == '\\' && tok->kind == TK_ESTRING) {
            i = decode_escape(src, i, out, &n);
        } else {
            out[n++] = src[i];
        }
    }
    out[n] = '\0';
    *len = n;
    return out;
}
