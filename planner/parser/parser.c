/*
** parser.c -- a hand-written recursive-descent SQL parser with precedence climbing.
**
** Why by hand rather than with a generator (bison, lemon): every error is reported at the
** exact token where the parse failed and names what was expected there in this grammar's words
** ("expected ON or USING after the joined table") instead of a generator's state dump, the
** nesting depth is bounded where the recursion happens, and the build needs no generator.
**
** Shape: one function per grammar rule, returning the node it built or NULL after recording an
** error (the first error wins; later ones are consequences). Expressions are parsed by
** precedence climbing over PostgreSQL's operator precedence, lowest first:
**     OR < AND < NOT < IS < comparisons < BETWEEN IN LIKE ILIKE < || < + - < * / % < unary - + < ::
** Comparisons, IS and LIKE-level operators do not chain (a = b = c is an error, as in
** PostgreSQL). The parser reads tokens on demand and looks at most one token ahead; the lexer
** stops at a ';', so lookahead never reaches into the next statement.
**
** Depth: every recursive rule and every link of an operator, join or set-operation chain adds
** a level; more than SQL_MAX_DEPTH levels is an error rather than a stack overflow, here or in
** the binder.
*/
#include "parser/parser.h"

#include <limits.h>
#include <stdarg.h>
#include <assert.h>
#include <string.h>
#include <strings.h>

#define MAX_PARAMS 65535

typedef struct parser {
    arena *arena;
    const char *sql;
    size_t len;
    sql_lexer *lx;
    sql_token tok[3]; /* tok[0] is the current token, tok[1..2] lookahead read by peek(p, 1..2) */
    int ntok;
    size_t prev_end; /* end offset of the last consumed token */
    int depth;
    int nparams;    /* highest placeholder number so far */
    strata_err err; /* the first error, copied to the caller's slot at the end */
    char found[64]; /* scratch for describe() */
} parser;

/* ---- tokens ---- */

/* peek returns the token k ahead (0: the current one). A lexer error is recorded as the parse's
** error and the token becomes the end of input, which ends the parse. */
static sql_token *peek(parser *p, int k) {
    assert(k < (int)(sizeof p->tok / sizeof p->tok[0]));
    while (p->ntok <= k) {
        sql_token *t = &p->tok[p->ntok++];
        sql_lexer_next(p->lx, t);
        if (t->kind == TK_ERROR) {
            sql_error_at(&p->err, STRATA_ERROR, p->sql, p->len, t->off, "syntax error", "%s", t->error);
            t->kind = TK_EOF;
        }
    }
    return &p->tok[k];
}

#define CUR(p) peek((p), 0)

static void advance(parser *p) {
    sql_token *t = CUR(p);
    p->prev_end = t->off + t->len;
    if (t->kind == TK_EOF) return;
    memmove(&p->tok[0], &p->tok[1], (size_t)(p->ntok - 1) * sizeof p->tok[0]);
    p->ntok--;
}

static bool is(parser *p, sql_token_kind kind) { return CUR(p)->kind == kind; }
static bool is_kw_tok(const sql_token *t, sql_keyword kw) { return t->kind == TK_IDENT && t->keyword == kw; }
static bool is_kw(parser *p, sql_keyword kw) { return is_kw_tok(CUR(p), kw); }

static bool accept(parser *p, sql_token_kind kind) {
    if (!is(p, kind)) return false;
    advance(p);
    return true;
}

static bool accept_kw(parser *p, sql_keyword kw) {
    if (!is_kw(p, kw)) return false;
    advance(p);
    return true;
}

/* is_word tells whether t is the unquoted word w (given in lower case), written in any case. */
static bool is_word(parser *p, const sql_token *t, const char *w) {
    return t->kind == TK_IDENT && t->len == strlen(w) && strncasecmp(p->sql + t->off, w, t->len) == 0;
}

/* ---- errors ---- */

/* describe returns the current token as written, quoted and shortened, for "found ..." */
static const char *describe(parser *p) {
    sql_token *t = CUR(p);
    if (t->kind == TK_EOF) return "end of input";
    size_t n = t->len, max = sizeof p->found - 6;
    bool cut = n > max;
    if (cut) {
        n = max;
        while (n > 0 && ((unsigned char)p->sql[t->off + n] & 0xC0) == 0x80)
            n--; /* whole characters */
    }
    char *o = p->found;
    *o++ = '"';
    for (size_t i = 0; i < n; i++) {
        char c = p->sql[t->off + i];
        *o++ = (unsigned char)c < 0x20 ? ' ' : c;
    }
    if (cut) o += sprintf(o, "...");
    *o++ = '"';
    *o = '\0';
    return p->found;
}

static void *fail_at(parser *p, size_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void *fail_at(parser *p, size_t off, const char *fmt, ...) {
    char detail[STRATA_ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    sql_error_at(&p->err, STRATA_ERROR, p->sql, p->len, off, "syntax error", "%s", detail);
    return NULL;
}

/* expected reports "expected <what>, found <current token>" at the current token. */
static void *expected(parser *p, const char *what) {
    /* at the end of the input, point just after the last token rather than at trailing space */
    size_t off = is(p, TK_EOF) && p->prev_end > 0 ? p->prev_end : CUR(p)->off;
    return fail_at(p, off, "expected %s, found %s", what, describe(p));
}

static bool expect(parser *p, sql_token_kind kind, const char *what) {
    return accept(p, kind) || expected(p, what);
}

static bool expect_kw(parser *p, sql_keyword kw) {
    char what[32];
    snprintf(what, sizeof what, "%s", sql_keyword_text(kw)); /* messages spell keywords in upper case */
    for (char *c = what; *c; c++)
        *c = (char)(*c - 32);
    return accept_kw(p, kw) || expected(p, what);
}

static void *nomem(parser *p) {
    err_set(&p->err, STRATA_NOMEM, "out of memory while parsing");
    return NULL;
}

/* enter adds a nesting level; false (with the error recorded) beyond SQL_MAX_DEPTH. */
static bool enter(parser *p) {
    if (++p->depth <= SQL_MAX_DEPTH) return true;
    fail_at(p, CUR(p)->off, "the statement is nested too deeply (more than %d levels)", SQL_MAX_DEPTH);
    return false;
}

/* ---- allocation ---- */

static void *alloc(parser *p, size_t n) {
    void *x = arena_alloc(p->arena, n);
    if (x == NULL) return nomem(p);
    memset(x, 0, n);
    return x;
}

static sql_expr *new_expr(parser *p, sql_expr_kind kind, size_t off) {
    sql_expr *e = alloc(p, sizeof *e);
    if (e != NULL) {
        e->kind = kind;
        e->off = off;
    }
    return e;
}

/* push appends item to l; false when item is NULL (a failed parse, already reported) or the
** arena is out of memory. */
static bool push(parser *p, sql_list *l, const void *item) {
    if (item == NULL) return false;
    if (l->n == l->cap) {
        if (l->cap > INT_MAX / 4) return fail_at(p, CUR(p)->off, "list too long");
        int cap = l->cap ? l->cap * 2 : 4;
        void **items = arena_alloc(p->arena, (size_t)cap * sizeof *items);
        if (items == NULL) return nomem(p);
        if (l->n > 0) memcpy(items, l->items, (size_t)l->n * sizeof *items);
        l->items = items;
        l->cap = cap;
    }
    l->items[l->n++] = (void *)item;
    return true;
}

/* ---- names ---- */

/* is_name: an identifier usable as a name without quotes (not a reserved keyword), or quoted. */
static bool is_name(const sql_token *t) {
    return t->kind == TK_QIDENT || (t->kind == TK_IDENT && !sql_keyword_reserved(t->keyword));
}

static const char *take_ident(parser *p) {
    char *s = sql_token_ident(p->arena, p->sql, CUR(p));
    if (s == NULL) return nomem(p);
    advance(p);
    return s;
}

/* name parses a table, column, index, ... name; what describes it for the error message. */
static const char *name(parser *p, const char *what) {
    return is_name(CUR(p)) ? take_ident(p) : expected(p, what);
}

/* label parses a name where any keyword is allowed (after AS, after a '.'). */
static const char *label(parser *p, const char *what) {
    return is(p, TK_IDENT) || is(p, TK_QIDENT) ? take_ident(p) : expected(p, what);
}

/* name_list parses ( name, ... ) into l. */
static bool name_list(parser *p, sql_list *l, const char *what) {
    if (!expect(p, TK_LPAREN, "\"(\"")) return false;
    do {
        if (!push(p, l, name(p, what))) return false;
    } while (accept(p, TK_COMMA));
    return expect(p, TK_RPAREN, "\",\" or \")\"");
}

/* ---- literals ---- */

/* parse_int reads an optionally negative decimal integer s[0, n); false on overflow. */
static bool parse_int(const char *s, size_t n, int64_t *out) {
    bool neg = n > 0 && s[0] == '-';
    size_t i = neg ? 1 : 0;
    if (i == n) return false;
    uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (limit - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = !neg ? (int64_t)v : v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    return true;
}

/* number makes an EX_INT of a token that fits in int64, an EX_NUM of its text otherwise. */
static sql_expr *number(parser *p) {
    sql_token *t = CUR(p);
    sql_expr *e = new_expr(p, EX_INT, t->off);
    if (e == NULL) return NULL;
    if (t->kind != TK_INTEGER || !parse_int(p->sql + t->off, t->len, &e->integer)) {
        char *s = alloc(p, t->len + 1);
        if (s == NULL) return NULL;
        memcpy(s, p->sql + t->off, t->len);
        e->kind = EX_NUM;
        e->text.ptr = s;
        e->text.len = t->len;
    }
    advance(p);
    return e;
}

/* negate folds unary minus into a numeric literal (so that -9223372036854775808 is a BIGINT);
** returns false when e is not a literal it can fold. */
static bool negate(parser *p, sql_expr *e, size_t off) {
    if (e->kind == EX_INT && e->integer != INT64_MIN) {
        e->integer = -e->integer;
    } else if (e->kind == EX_NUM) {
        bool neg = e->text.ptr[0] == '-';
        char *s = alloc(p, e->text.len + 2);
        if (s == NULL) return false;
        if (neg)
            memcpy(s, e->text.ptr + 1, e->text.len);
        else {
            s[0] = '-';
            memcpy(s + 1, e->text.ptr, e->text.len + 1);
        }
        e->text.ptr = s;
        e->text.len = strlen(s);
        if (parse_int(s, e->text.len, &e->integer)) e->kind = EX_INT;
    } else {
        return false;
    }
    e->off = off;
    return true;
}

static sql_expr *string(parser *p, sql_expr_kind kind) {
    sql_expr *e = new_expr(p, kind, CUR(p)->off);
    if (e == NULL) return NULL;
    e->text.ptr = sql_token_string(p->arena, p->sql, CUR(p), &e->text.len);
    if (e->text.ptr == NULL) return nomem(p);
    advance(p);
    return e;
}

static sql_expr *param(parser *p) {
    sql_token *t = CUR(p);
    sql_expr *e = new_expr(p, EX_PARAM, t->off);
    if (e == NULL) return NULL;
    int64_t n = p->nparams + 1;
    if (t->len > 1 && (!parse_int(p->sql + t->off + 1, t->len - 1, &n) || n < 1 || n > MAX_PARAMS))
        return fail_at(p, t->off, "parameter %s is out of range ($1 to $%d)", describe(p), MAX_PARAMS);
    if (n > MAX_PARAMS) return fail_at(p, t->off, "too many parameters (at most %d)", MAX_PARAMS);
    e->param = (int)n;
    if (e->param > p->nparams) p->nparams = e->param;
    advance(p);
    return e;
}

/* ---- types ---- */

static bool type_name(parser *p, ast_type *ty) {
    ty->off = CUR(p)->off;
    if (!is_name(CUR(p))) return expected(p, "a type name");
    const char *second = is_word(p, CUR(p), "double")      ? "precision"
                         : is_word(p, CUR(p), "character") ? "varying"
                                                           : NULL;
    if ((ty->name = take_ident(p)) == NULL) return false;
    if (second != NULL && is_word(p, CUR(p), second)) {
        ty->name = second[0] == 'p' ? "double precision" : "character varying";
        advance(p);
    }
    if (accept(p, TK_LPAREN)) {
        do {
            if (ty->nmods == 2) return expected(p, "\")\" (a type has at most two modifiers)");
            if (!is(p, TK_INTEGER) || !parse_int(p->sql + CUR(p)->off, CUR(p)->len, &ty->mods[ty->nmods]))
                return expected(p, "an integer type modifier");
            ty->nmods++;
            advance(p);
        } while (accept(p, TK_COMMA));
        if (!expect(p, TK_RPAREN, "\",\" or \")\"")) return false;
    }
    return true;
}

/* ---- expressions ---- */

enum { P_OR = 1, P_AND, P_NOT, P_IS, P_CMP, P_LIKE, P_OP, P_ADD, P_MUL, P_UNARY, P_CAST };

static sql_expr *expr_prec(parser *p, int min);
static sql_expr *expr(parser *p) { return expr_prec(p, 0); }
static sql_select *query(parser *p);

static bool starts_query(const sql_token *t) {
    return is_kw_tok(t, KW_SELECT) || is_kw_tok(t, KW_WITH) || is_kw_tok(t, KW_VALUES);
}

/* subquery parses ( query ) */
static sql_select *subquery(parser *p) {
    if (!expect(p, TK_LPAREN, "\"(\"")) return NULL;
    if (!starts_query(CUR(p))) return expected(p, "SELECT, VALUES or WITH");
    sql_select *s = query(p);
    return s && expect(p, TK_RPAREN, "\")\"") ? s : NULL;
}

/* call parses the ( ... ) of a function named name, whose call starts at off. */
static sql_expr *call(parser *p, const char *name, size_t off) {
    sql_expr *e = new_expr(p, EX_FUNC, off);
    if (e == NULL || !expect(p, TK_LPAREN, "\"(\"")) return NULL;
    e->func.name = name;
    if (accept(p, TK_STAR)) {
        e->func.star = true;
    } else if (!is(p, TK_RPAREN)) {
        if (accept_kw(p, KW_DISTINCT))
            e->func.distinct = true;
        else
            accept_kw(p, KW_ALL);
        do {
            if (!push(p, &e->func.args, expr(p))) return NULL;
        } while (accept(p, TK_COMMA));
    }
    return expect(p, TK_RPAREN, "\",\" or \")\"") ? e : NULL;
}

/* extract parses EXTRACT(field FROM x); the field is a word (YEAR) or a string ('year'). */
static sql_expr *extract(parser *p, size_t off) {
    sql_expr *e = new_expr(p, EX_EXTRACT, off);
    if (e == NULL || !expect(p, TK_LPAREN, "\"(\"")) return NULL;
    if (is(p, TK_IDENT)) {
        e->extract.field = take_ident(p);
    } else if (is(p, TK_STRING)) {
        sql_expr *s = string(p, EX_STR);
        if (s == NULL) return NULL;
        for (char *c = (char *)s->text.ptr; *c; c++)
            if (*c >= 'A' && *c <= 'Z') *c = (char)(*c + 32);
        e->extract.field = s->text.ptr;
    } else {
        return expected(p, "a date part such as YEAR");
    }
    if (e->extract.field == NULL || !expect_kw(p, KW_FROM) || !(e->extract.arg = expr(p))) return NULL;
    return expect(p, TK_RPAREN, "\")\"") ? e : NULL;
}

/* substring parses SUBSTRING(x FROM a [FOR b]), SUBSTRING(x FOR b) and substring(x, a[, b])
** into a call of substring(x, a[, b]). */
static sql_expr *substring(parser *p, size_t off) {
    sql_expr *e = new_expr(p, EX_FUNC, off);
    if (e == NULL || !expect(p, TK_LPAREN, "\"(\"")) return NULL;
    e->func.name = "substring";
    if (!push(p, &e->func.args, expr(p))) return NULL;
    if (accept_kw(p, KW_FROM)) {
        if (!push(p, &e->func.args, expr(p))) return NULL;
        if (accept_kw(p, KW_FOR) && !push(p, &e->func.args, expr(p))) return NULL;
    } else if (is_kw(p, KW_FOR)) {
        sql_expr *one = new_expr(p, EX_INT, CUR(p)->off);
        if (one == NULL) return NULL;
        one->integer = 1;
        advance(p);
        if (!push(p, &e->func.args, one) || !push(p, &e->func.args, expr(p))) return NULL;
    } else {
        while (accept(p, TK_COMMA))
            if (!push(p, &e->func.args, expr(p))) return NULL;
    }
    return expect(p, TK_RPAREN, "FROM, FOR, \",\" or \")\"") ? e : NULL;
}

/* trim parses TRIM([LEADING|TRAILING|BOTH] [chars] FROM x) and trim(x[, chars]) into a call of
** trim, ltrim or rtrim (x[, chars]). */
static sql_expr *trim(parser *p, size_t off) {
    sql_expr *e = new_expr(p, EX_FUNC, off);
    if (e == NULL || !expect(p, TK_LPAREN, "\"(\"")) return NULL;
    e->func.name = accept_kw(p, KW_LEADING) ? "ltrim" : accept_kw(p, KW_TRAILING) ? "rtrim" : "trim";
    if (e->func.name[0] == 't') accept_kw(p, KW_BOTH);
    if (accept_kw(p, KW_FROM)) {
        if (!push(p, &e->func.args, expr(p))) return NULL;
    } else {
        sql_expr *first = expr(p);
        if (first == NULL) return NULL;
        if (accept_kw(p, KW_FROM)) {
            if (!push(p, &e->func.args, expr(p))) return NULL; /* the string, then the characters */
        }
        if (!push(p, &e->func.args, first)) return NULL;
        while (accept(p, TK_COMMA))
            if (!push(p, &e->func.args, expr(p))) return NULL;
    }
    return expect(p, TK_RPAREN, "FROM, \",\" or \")\"") ? e : NULL;
}

static sql_expr *exists(parser *p, size_t off) {
    sql_expr *e = new_expr(p, EX_EXISTS, off);
    return e && (e->select = subquery(p)) ? e : NULL;
}

static bool is_interval_unit(parser *p, const sql_token *t) {
    static const char *const units[] = {"year", "years", "month", "months", "week",    "weeks",  "day",
                                        "days", "hour",  "hours", "minute", "minutes", "second", "seconds"};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (is_word(p, t, units[i])) return true;
    return false;
}

/* typed_literal parses DATE '...', TIMESTAMP '...', INTERVAL '...' [unit], INTERVAL 3 unit. */
static sql_expr *typed_literal(parser *p) {
    sql_expr *e = new_expr(p, EX_TYPED, CUR(p)->off);
    if (e == NULL || (e->typed.type = take_ident(p)) == NULL) return NULL;
    sql_token *t = CUR(p);
    bool quoted = t->kind == TK_STRING || t->kind == TK_ESTRING;
    if (quoted) {
        size_t len;
        e->typed.text = sql_token_string(p->arena, p->sql, t, &len);
    } else {
        e->typed.text = alloc(p, t->len + 1);
        if (e->typed.text != NULL) memcpy((char *)e->typed.text, p->sql + t->off, t->len);
    }
    if (e->typed.text == NULL) return nomem(p);
    advance(p);
    if (strcmp(e->typed.type, "interval") == 0 && is_interval_unit(p, CUR(p))) {
        if ((e->typed.unit = take_ident(p)) == NULL) return NULL;
    } else if (!quoted) {
        return expected(p, "an interval unit such as DAY");
    }
    return e;
}

/* column_ref parses a, t.a, t.* and function calls starting with a name. */
static sql_expr *column_ref(parser *p) {
    sql_token *t = CUR(p), *next = peek(p, 1);
    size_t off = t->off;
    if (next->kind == TK_LPAREN && t->kind == TK_IDENT) {
        sql_expr *(*special)(parser *, size_t) = is_word(p, t, "extract")     ? extract
                                                 : is_word(p, t, "substring") ? substring
                                                 : is_word(p, t, "trim")      ? trim
                                                 : is_kw_tok(t, KW_EXISTS)    ? exists
                                                                              : NULL;
        if (special != NULL) {
            advance(p);
            return special(p, off);
        }
    }
    const char *first = take_ident(p);
    if (first == NULL) return NULL;
    if (is(p, TK_LPAREN)) return call(p, first, off);
    sql_expr *e = new_expr(p, EX_COL, off);
    if (e == NULL) return NULL;
    e->col.column = first;
    if (accept(p, TK_DOT)) {
        e->col.table = first;
        if (accept(p, TK_STAR))
            e->kind = EX_STAR;
        else if ((e->col.column = label(p, "a column name or \"*\" after \".\"")) == NULL)
            return NULL;
    }
    return e;
}

static sql_expr *case_expr(parser *p) {
    sql_expr *e = new_expr(p, EX_CASE, CUR(p)->off);
    if (e == NULL) return NULL;
    advance(p);
    if (!is_kw(p, KW_WHEN) && !is_kw(p, KW_END) && (e->caseof.operand = expr(p)) == NULL) return NULL;
    if (!is_kw(p, KW_WHEN)) return expected(p, "WHEN");
    while (accept_kw(p, KW_WHEN)) {
        sql_when *w = alloc(p, sizeof *w);
        if (w == NULL || !(w->when = expr(p)) || !expect_kw(p, KW_THEN) || !(w->then = expr(p)) ||
            !push(p, &e->caseof.whens, w))
            return NULL;
    }
    if (accept_kw(p, KW_ELSE) && (e->caseof.otherwise = expr(p)) == NULL) return NULL;
    return expect_kw(p, KW_END) ? e : NULL;
}

static sql_expr *primary(parser *p) {
    sql_token *t = CUR(p);
    size_t off = t->off;
    sql_expr *e;
    switch (t->kind) {
    case TK_INTEGER:
    case TK_DECIMAL:
    case TK_FLOAT: return number(p);
    case TK_STRING:
    case TK_ESTRING: return string(p, EX_STR);
    case TK_BLOB: return string(p, EX_BLOB);
    case TK_PARAM: return param(p);
    case TK_QIDENT: return column_ref(p);
    case TK_LPAREN:
        if (starts_query(peek(p, 1))) {
            e = new_expr(p, EX_SUBQUERY, off);
            return e && (e->select = subquery(p)) ? e : NULL;
        }
        advance(p);
        e = expr(p);
        return e && expect(p, TK_RPAREN, "\")\"") ? e : NULL;
    case TK_IDENT: break;
    default: return expected(p, "an expression");
    }
    sql_token *next = peek(p, 1);
    switch (t->keyword) {
    case KW_NULL:
    case KW_DEFAULT:
        e = new_expr(p, t->keyword == KW_NULL ? EX_NULL : EX_DEFAULT, off);
        if (e) advance(p);
        return e;
    case KW_TRUE:
    case KW_FALSE:
        e = new_expr(p, EX_BOOL, off);
        if (e == NULL) return NULL;
        e->boolean = t->keyword == KW_TRUE;
        advance(p);
        return e;
    case KW_CASE: return case_expr(p);
    case KW_CAST:
        advance(p);
        e = new_expr(p, EX_CAST, off);
        if (e == NULL || !expect(p, TK_LPAREN, "\"(\"") || !(e->cast.arg = expr(p)) || !expect_kw(p, KW_AS) ||
            !type_name(p, &e->cast.type))
            return NULL;
        return expect(p, TK_RPAREN, "\")\"") ? e : NULL;
    case KW_LEFT:
    case KW_RIGHT: { /* left(s, n) and right(s, n) are functions despite the reserved words */
        if (next->kind != TK_LPAREN) break;
        const char *fname = t->keyword == KW_LEFT ? "left" : "right";
        advance(p);
        return call(p, fname, off);
    }
    default:
        if (sql_keyword_reserved(t->keyword)) break;
        if ((is_word(p, t, "date") || is_word(p, t, "timestamp") || is_word(p, t, "interval")) &&
            (next->kind == TK_STRING || next->kind == TK_ESTRING))
            return typed_literal(p);
        if (is_word(p, t, "interval") && (next->kind == TK_INTEGER || next->kind == TK_DECIMAL))
            return typed_literal(p);
        return column_ref(p);
    }
    return expected(p, "an expression");
}

/* prefix parses NOT x, -x, +x or a primary expression. */
static sql_expr *prefix(parser *p) {
    size_t off = CUR(p)->off;
    bool negation = is_kw(p, KW_NOT);
    if (!negation && !is(p, TK_MINUS) && !is(p, TK_PLUS)) return primary(p);
    sql_op op = negation ? OP_NOT : is(p, TK_MINUS) ? OP_NEG : OP_PLUS;
    advance(p);
    /* NOT binds looser than comparisons (NOT a = b is NOT (a = b)), - and + tighter than * */
    sql_expr *arg = expr_prec(p, negation ? P_NOT : P_UNARY);
    if (arg == NULL) return NULL;
    if (op == OP_NEG && negate(p, arg, off)) return arg;
    sql_expr *e = new_expr(p, EX_UNARY, off);
    if (e == NULL) return NULL;
    e->unary.op = op;
    e->unary.arg = arg;
    return e;
}

/* The binary operators spelled with punctuation. */
static const struct {
    sql_token_kind token;
    sql_op op;
    int prec;
} symbol_ops[] = {
    {TK_PLUS, OP_ADD, P_ADD},  {TK_MINUS, OP_SUB, P_ADD},   {TK_STAR, OP_MUL, P_MUL},
    {TK_SLASH, OP_DIV, P_MUL}, {TK_PERCENT, OP_MOD, P_MUL}, {TK_CONCAT, OP_CONCAT, P_OP},
    {TK_EQ, OP_EQ, P_CMP},     {TK_NE, OP_NE, P_CMP},       {TK_LT, OP_LT, P_CMP},
    {TK_LE, OP_LE, P_CMP},     {TK_GT, OP_GT, P_CMP},       {TK_GE, OP_GE, P_CMP},
};

/* infix_prec returns the precedence of the operator at the current token (setting *op for
** EX_BINARY operators), or -1 when the token does not continue an expression. */
static int infix_prec(parser *p, sql_op *op) {
    sql_token *t = CUR(p);
    for (size_t i = 0; i < sizeof symbol_ops / sizeof symbol_ops[0]; i++) {
        if (t->kind == symbol_ops[i].token) {
            *op = symbol_ops[i].op;
            return symbol_ops[i].prec;
        }
    }
    if (t->kind == TK_CAST) return P_CAST;
    if (t->kind != TK_IDENT) return -1;
    switch (t->keyword) {
    case KW_OR: *op = OP_OR; return P_OR;
    case KW_AND: *op = OP_AND; return P_AND;
    case KW_IS: return P_IS;
    case KW_BETWEEN:
    case KW_IN:
    case KW_LIKE:
    case KW_ILIKE: return P_LIKE;
    case KW_NOT: { /* NOT BETWEEN, NOT IN, NOT LIKE, NOT ILIKE */
        sql_token *n = peek(p, 1);
        bool like_level = is_kw_tok(n, KW_BETWEEN) || is_kw_tok(n, KW_IN) || is_kw_tok(n, KW_LIKE) ||
                          is_kw_tok(n, KW_ILIKE);
        return like_level ? P_LIKE : -1;
    }
    default: return -1;
    }
}

/* infix parses the operator at the current token (of precedence prec) and its right side. */
static sql_expr *infix(parser *p, sql_expr *left, int prec, sql_op op) {
    sql_expr *e = new_expr(p, EX_BINARY, CUR(p)->off);
    if (e == NULL) return NULL;
    if (prec == P_CAST) {
        advance(p);
        e->kind = EX_CAST;
        e->cast.arg = left;
        return type_name(p, &e->cast.type) ? e : NULL;
    }
    if (prec != P_IS && prec != P_LIKE) {
        advance(p);
        e->binary.op = op;
        e->binary.left = left;
        /* x op ANY|SOME|ALL (subquery) */
        if (prec == P_CMP && is(p, TK_IDENT) && (is_word(p, CUR(p), "any") || is_word(p, CUR(p), "some") || is_kw(p, KW_ALL)) &&
            peek(p, 1)->kind == TK_LPAREN && starts_query(peek(p, 2))) {
            e->kind = EX_QUANTIFIED;
            e->in.all = is_kw(p, KW_ALL);
            e->in.op = op;
            e->in.arg = left;
            advance(p);
            return (e->in.select = subquery(p)) ? e : NULL;
        }
        return (e->binary.right = expr_prec(p, prec + 1)) ? e : NULL;
    }
    if (accept_kw(p, KW_IS)) {
        e->negated = accept_kw(p, KW_NOT);
        if (accept_kw(p, KW_NULL)) {
            e->kind = EX_IS_NULL;
            e->unary.arg = left;
            return e;
        }
        if (!accept_kw(p, KW_DISTINCT))
            return expected(p, e->negated ? "NULL or DISTINCT FROM" : "NOT, NULL or DISTINCT FROM");
        e->kind = EX_IS_DISTINCT;
        e->binary.left = left;
        return expect_kw(p, KW_FROM) && (e->binary.right = expr_prec(p, P_IS + 1)) ? e : NULL;
    }
    e->negated = accept_kw(p, KW_NOT);
    if (accept_kw(p, KW_BETWEEN)) {
        /* the bounds bind tighter than BETWEEN, so the AND between them is not a conjunction */
        e->kind = EX_BETWEEN;
        e->between.arg = left;
        if ((e->between.low = expr_prec(p, P_LIKE + 1)) == NULL || !expect_kw(p, KW_AND)) return NULL;
        return (e->between.high = expr_prec(p, P_LIKE + 1)) ? e : NULL;
    }
    if (accept_kw(p, KW_IN)) {
        e->kind = EX_IN;
        e->in.arg = left;
        if (is(p, TK_LPAREN) && starts_query(peek(p, 1))) return (e->in.select = subquery(p)) ? e : NULL;
        if (!expect(p, TK_LPAREN, "\"(\" after IN")) return NULL;
        do {
            if (!push(p, &e->in.list, expr(p))) return NULL;
        } while (accept(p, TK_COMMA));
        return expect(p, TK_RPAREN, "\",\" or \")\"") ? e : NULL;
    }
    e->kind = EX_LIKE;
    e->like.ilike = is_kw(p, KW_ILIKE);
    e->like.arg = left;
    advance(p); /* LIKE or ILIKE */
    if ((e->like.pattern = expr_prec(p, P_LIKE + 1)) == NULL) return NULL;
    if (accept_kw(p, KW_ESCAPE) && (e->like.escape = expr_prec(p, P_LIKE + 1)) == NULL) return NULL;
    return e;
}

/* expr_prec parses an expression whose operators all bind at least as tightly as min. */
static sql_expr *expr_prec(parser *p, int min) {
    int depth = p->depth;
    if (!enter(p)) return NULL;
    sql_expr *left = prefix(p);
    int last = -1;
    sql_op op = OP_ADD;
    for (int prec; left != NULL && (prec = infix_prec(p, &op)) >= min && prec > 0; last = prec) {
        if (prec == last && (prec == P_CMP || prec == P_IS || prec == P_LIKE))
            return fail_at(p, CUR(p)->off, "%s cannot follow another comparison without parentheses",
                           describe(p));
        /* each operator of a chain nests the tree one level deeper */
        if (!enter(p)) return NULL;
        left = infix(p, left, prec, op);
    }
    p->depth = depth;
    return left;
}

/* ---- queries ---- */

static sql_from *from_list(parser *p);

static sql_select *new_select(parser *p, sql_select_kind kind, size_t off) {
    sql_select *s = alloc(p, sizeof *s);
    if (s != NULL) {
        s->kind = kind;
        s->off = off;
    }
    return s;
}

/* target parses a select-list or RETURNING item: *, t.*, or expr [[AS] alias]. */
static sql_target *target(parser *p) {
    sql_target *t = alloc(p, sizeof *t);
    if (t == NULL) return NULL;
    if (is(p, TK_STAR)) {
        if ((t->expr = new_expr(p, EX_STAR, CUR(p)->off)) == NULL) return NULL;
        advance(p);
        return t;
    }
    if ((t->expr = expr(p)) == NULL) return NULL;
    if (accept_kw(p, KW_AS))
        t->alias = label(p, "a column alias");
    else if (is_name(CUR(p)))
        t->alias = take_ident(p);
    else
        return t;
    return t->alias ? t : NULL;
}

static bool target_list(parser *p, sql_list *l) {
    do {
        if (!push(p, l, target(p))) return false;
    } while (accept(p, TK_COMMA));
    return true;
}

static bool expr_list(parser *p, sql_list *l) {
    do {
        if (!push(p, l, expr(p))) return false;
    } while (accept(p, TK_COMMA));
    return true;
}

/* order_item parses expr [ASC|DESC] [NULLS FIRST|LAST]. */
static sql_order *order_item(parser *p) {
    sql_order *o = alloc(p, sizeof *o);
    if (o == NULL || (o->expr = expr(p)) == NULL) return NULL;
    if (accept_kw(p, KW_DESC))
        o->desc = true;
    else
        accept_kw(p, KW_ASC);
    if (accept_kw(p, KW_NULLS)) {
        if (accept_kw(p, KW_FIRST))
            o->nulls = NULLS_FIRST;
        else if (accept_kw(p, KW_LAST))
            o->nulls = NULLS_LAST;
        else
            return expected(p, "FIRST or LAST");
    }
    return o;
}

/* alias parses [AS] alias [(columns)] after a FROM item. */
static bool alias(parser *p, sql_from *f) {
    if (accept_kw(p, KW_AS))
        f->alias = name(p, "an alias");
    else if (is_name(CUR(p)))
        f->alias = take_ident(p);
    else
        return true;
    if (f->alias == NULL) return false;
    return !is(p, TK_LPAREN) || name_list(p, &f->alias_columns, "a column alias");
}

/* table_ref parses a table, a table function, a (subquery) or a (join) with their aliases. */
static sql_from *table_ref(parser *p) {
    sql_from *f = alloc(p, sizeof *f);
    if (f == NULL) return NULL;
    f->off = CUR(p)->off;
    if (is(p, TK_LPAREN) && starts_query(peek(p, 1))) {
        f->kind = FROM_SUBQUERY;
        if ((f->subquery = subquery(p)) == NULL) return NULL;
    } else if (accept(p, TK_LPAREN)) {
        int depth = p->depth;
        if (!enter(p) || (f = from_list(p)) == NULL || !expect(p, TK_RPAREN, "\")\"")) return NULL;
        p->depth = depth;
        return f;
    } else if (is_name(CUR(p)) && peek(p, 1)->kind == TK_LPAREN) {
        f->kind = FROM_FUNC;
        const char *fname = take_ident(p);
        if (fname == NULL || (f->func = call(p, fname, f->off)) == NULL) return NULL;
    } else {
        f->kind = FROM_TABLE;
        if ((f->table = name(p, "a table name")) == NULL) return NULL;
    }
    return alias(p, f) ? f : NULL;
}

/* join_type consumes [NATURAL] {[INNER] | LEFT|RIGHT|FULL [OUTER] | CROSS} JOIN; false (and
** nothing consumed) when no join follows. */
static bool join_type(parser *p, sql_from *j) {
    j->join.natural = accept_kw(p, KW_NATURAL);
    if (accept_kw(p, KW_LEFT))
        j->join.type = JOIN_LEFT;
    else if (accept_kw(p, KW_RIGHT))
        j->join.type = JOIN_RIGHT;
    else if (accept_kw(p, KW_FULL))
        j->join.type = JOIN_FULL;
    else if (!j->join.natural && accept_kw(p, KW_CROSS))
        j->join.type = JOIN_CROSS;
    else if (accept_kw(p, KW_INNER) || is_kw(p, KW_JOIN) || j->join.natural)
        j->join.type = JOIN_INNER;
    else
        return false;
    if (j->join.type == JOIN_LEFT || j->join.type == JOIN_RIGHT || j->join.type == JOIN_FULL)
        accept_kw(p, KW_OUTER);
    return true;
}

/* join_tree parses a FROM item followed by any number of JOINs, left to right. */
static sql_from *join_tree(parser *p) {
    int depth = p->depth;
    sql_from *left = table_ref(p);
    while (left != NULL) {
        sql_from probe = {.kind = FROM_JOIN, .off = CUR(p)->off}, *j;
        if (!join_type(p, &probe)) break;
        if ((j = alloc(p, sizeof *j)) == NULL) return NULL;
        *j = probe;
        if (!expect_kw(p, KW_JOIN) || !enter(p) || (j->join.right = table_ref(p)) == NULL) return NULL;
        j->join.left = left;
        if (j->join.type != JOIN_CROSS && !j->join.natural) {
            if (accept_kw(p, KW_ON)) {
                if ((j->join.on = expr(p)) == NULL) return NULL;
            } else if (accept_kw(p, KW_USING)) {
                if (!name_list(p, &j->join.using, "a column name")) return NULL;
            } else {
                return expected(p, "ON or USING after the joined table");
            }
        }
        left = j;
    }
    p->depth = depth;
    return left;
}

/* from_list parses items separated by commas: a left-deep tree of comma joins. */
static sql_from *from_list(parser *p) {
    int depth = p->depth;
    sql_from *left = join_tree(p);
    while (left != NULL && is(p, TK_COMMA)) {
        sql_from *j = alloc(p, sizeof *j);
        if (j == NULL) return NULL;
        j->kind = FROM_JOIN;
        j->off = CUR(p)->off;
        j->join.type = JOIN_CROSS;
        j->join.comma = true;
        j->join.left = left;
        advance(p);
        if (!enter(p) || (j->join.right = join_tree(p)) == NULL) return NULL;
        left = j;
    }
    p->depth = depth;
    return left;
}

static sql_select *select_core(parser *p) {
    sql_select *s = new_select(p, SEL_CORE, CUR(p)->off);
    if (s == NULL) return NULL;
    advance(p); /* SELECT */
    if (accept_kw(p, KW_DISTINCT)) {
        if (is_kw(p, KW_ON)) return fail_at(p, CUR(p)->off, "DISTINCT ON is not supported");
        s->distinct = true;
    } else {
        accept_kw(p, KW_ALL);
    }
    if (!target_list(p, &s->targets)) return NULL;
    if (accept_kw(p, KW_FROM) && (s->from = from_list(p)) == NULL) return NULL;
    if (accept_kw(p, KW_WHERE) && (s->where = expr(p)) == NULL) return NULL;
    if (accept_kw(p, KW_GROUP) && (!expect_kw(p, KW_BY) || !expr_list(p, &s->group_by))) return NULL;
    if (accept_kw(p, KW_HAVING) && (s->having = expr(p)) == NULL) return NULL;
    return s;
}

static sql_select *values(parser *p) {
    sql_select *s = new_select(p, SEL_VALUES, CUR(p)->off);
    if (s == NULL) return NULL;
    advance(p); /* VALUES */
    do {
        sql_list *row = alloc(p, sizeof *row);
        if (row == NULL || !expect(p, TK_LPAREN, "\"(\" to start a VALUES row") || !expr_list(p, row) ||
            !expect(p, TK_RPAREN, "\",\" or \")\"") || !push(p, &s->rows, row))
            return NULL;
    } while (accept(p, TK_COMMA));
    return s;
}

/* set_operand parses SELECT ..., VALUES ... or ( query ). */
static sql_select *set_operand(parser *p) {
    if (is_kw(p, KW_SELECT)) return select_core(p);
    if (is_kw(p, KW_VALUES)) return values(p);
    if (!accept(p, TK_LPAREN)) return expected(p, "SELECT, VALUES or a query in parentheses");
    sql_select *s = query(p);
    return s && expect(p, TK_RPAREN, "\")\"") ? s : NULL;
}

/* set_chain parses operands joined by set operations of one precedence level, left to right:
** INTERSECT (level 1) binds tighter than UNION and EXCEPT (level 0). */
static sql_select *set_chain(parser *p, int level) {
    int depth = p->depth;
    sql_select *left = level ? set_operand(p) : set_chain(p, 1);
    while (left != NULL) {
        sql_select_kind kind;
        if (level == 1 && is_kw(p, KW_INTERSECT))
            kind = SEL_INTERSECT;
        else if (level == 0 && is_kw(p, KW_UNION))
            kind = SEL_UNION;
        else if (level == 0 && is_kw(p, KW_EXCEPT))
            kind = SEL_EXCEPT;
        else
            break;
        sql_select *s = new_select(p, kind, CUR(p)->off);
        if (s == NULL) return NULL;
        advance(p);
        s->all = accept_kw(p, KW_ALL);
        if (!s->all) accept_kw(p, KW_DISTINCT);
        s->left = left;
        if (!enter(p) || (s->right = level ? set_operand(p) : set_chain(p, 1)) == NULL) return NULL;
        left = s;
    }
    p->depth = depth;
    return left;
}

static sql_cte *cte(parser *p) {
    sql_cte *c = alloc(p, sizeof *c);
    if (c == NULL) return NULL;
    c->off = CUR(p)->off;
    if ((c->name = name(p, "a name for the WITH query")) == NULL) return NULL;
    if (is(p, TK_LPAREN) && !name_list(p, &c->columns, "a column name")) return NULL;
    if (!expect_kw(p, KW_AS)) return NULL;
    /* [NOT] MATERIALIZED is a hint the planner is free to ignore */
    if (is_kw(p, KW_NOT) && is_kw_tok(peek(p, 1), KW_MATERIALIZED)) advance(p);
    accept_kw(p, KW_MATERIALIZED);
    return (c->select = subquery(p)) ? c : NULL;
}

/* query parses [WITH ...] set-operation chain [ORDER BY ...] [LIMIT ...] [OFFSET ...]. */
static sql_select *query(parser *p) {
    int depth = p->depth;
    size_t off = CUR(p)->off;
    if (!enter(p)) return NULL;
    sql_list with = {0};
    bool recursive = false;
    if (accept_kw(p, KW_WITH)) {
        recursive = accept_kw(p, KW_RECURSIVE);
        do {
            if (!push(p, &with, cte(p))) return NULL;
        } while (accept(p, TK_COMMA));
    }
    sql_select *s = set_chain(p, 0);
    if (s == NULL) return NULL;
    if (with.n > 0) {
        if (s->with.n > 0) return fail_at(p, off, "a query cannot have two WITH clauses");
        s->with = with;
        s->recursive = recursive;
        s->off = off;
    }
    size_t clause = CUR(p)->off;
    if (accept_kw(p, KW_ORDER)) {
        if (s->order_by.n > 0) return fail_at(p, clause, "a query cannot have two ORDER BY clauses");
        if (!expect_kw(p, KW_BY)) return NULL;
        do {
            if (!push(p, &s->order_by, order_item(p))) return NULL;
        } while (accept(p, TK_COMMA));
    }
    for (;;) { /* LIMIT and OFFSET, in either order */
        clause = CUR(p)->off;
        if (accept_kw(p, KW_LIMIT)) {
            if (s->limit != NULL) return fail_at(p, clause, "a query cannot have two LIMIT clauses");
            if (!accept_kw(p, KW_ALL) && (s->limit = expr(p)) == NULL) return NULL;
        } else if (accept_kw(p, KW_OFFSET)) {
            if (s->offset != NULL) return fail_at(p, clause, "a query cannot have two OFFSET clauses");
            if ((s->offset = expr(p)) == NULL) return NULL;
            if (!accept_kw(p, KW_ROWS)) accept_kw(p, KW_ROW);
        } else {
            break;
        }
    }
    p->depth = depth;
    return s;
}

/* ---- statements ---- */

static sql_stmt *statement(parser *p);

static bool if_not_exists(parser *p, bool *flag) {
    if (!accept_kw(p, KW_IF)) return true;
    *flag = true;
    return expect_kw(p, KW_NOT) && expect_kw(p, KW_EXISTS);
}

static bool if_exists(parser *p, bool *flag) {
    if (!accept_kw(p, KW_IF)) return true;
    *flag = true;
    return expect_kw(p, KW_EXISTS);
}

/* assignments parses column = value, ... of UPDATE and DO UPDATE SET. */
static bool assignments(parser *p, sql_list *l) {
    do {
        sql_assign *a = alloc(p, sizeof *a);
        if (a == NULL) return false;
        a->off = CUR(p)->off;
        if (!(a->column = name(p, "a column name")) || !expect(p, TK_EQ, "\"=\"") || !(a->value = expr(p)) ||
            !push(p, l, a))
            return false;
    } while (accept(p, TK_COMMA));
    return true;
}

static bool returning(parser *p, sql_list *l) { return !accept_kw(p, KW_RETURNING) || target_list(p, l); }

/* table_alias parses the [AS] alias of UPDATE's and DELETE's table. */
static bool table_alias(parser *p, const char **alias) {
    if (accept_kw(p, KW_AS)) return (*alias = name(p, "an alias")) != NULL;
    if (is_name(CUR(p))) return (*alias = take_ident(p)) != NULL;
    return true;
}

static bool insert(parser *p, sql_stmt *st) {
    st->kind = ST_INSERT;
    advance(p);
    if (!expect_kw(p, KW_INTO) || !(st->insert.table = name(p, "a table name"))) return false;
    if (accept_kw(p, KW_AS) && !(st->insert.alias = name(p, "an alias"))) return false;
    if (is(p, TK_LPAREN) && !starts_query(peek(p, 1)) && !name_list(p, &st->insert.columns, "a column name"))
        return false;
    if (accept_kw(p, KW_DEFAULT)) {
        if (!expect_kw(p, KW_VALUES)) return false;
    } else if (!starts_query(CUR(p)) && !is(p, TK_LPAREN)) {
        return expected(p, "VALUES, SELECT or DEFAULT VALUES");
    } else if ((st->insert.source = query(p)) == NULL) {
        return false;
    }
    if (accept_kw(p, KW_ON)) {
        sql_on_conflict *oc = alloc(p, sizeof *oc);
        if (oc == NULL) return false;
        oc->off = CUR(p)->off;
        st->insert.on_conflict = oc;
        if (!expect_kw(p, KW_CONFLICT)) return false;
        if (is(p, TK_LPAREN) && !name_list(p, &oc->columns, "a column name")) return false;
        if (!expect_kw(p, KW_DO)) return false;
        if (accept_kw(p, KW_UPDATE)) {
            oc->do_update = true;
            if (!expect_kw(p, KW_SET) || !assignments(p, &oc->set)) return false;
            if (accept_kw(p, KW_WHERE) && (oc->where = expr(p)) == NULL) return false;
        } else if (!accept_kw(p, KW_NOTHING)) {
            return expected(p, "NOTHING or UPDATE");
        }
    }
    return returning(p, &st->insert.returning);
}

static bool update(parser *p, sql_stmt *st) {
    st->kind = ST_UPDATE;
    advance(p);
    if (!(st->update.table = name(p, "a table name")) || !table_alias(p, &st->update.alias)) return false;
    if (!expect_kw(p, KW_SET) || !assignments(p, &st->update.set)) return false;
    if (accept_kw(p, KW_FROM) && (st->update.from = from_list(p)) == NULL) return false;
    if (accept_kw(p, KW_WHERE) && (st->update.where = expr(p)) == NULL) return false;
    return returning(p, &st->update.returning);
}

static bool delete_from(parser *p, sql_stmt *st) {
    st->kind = ST_DELETE;
    advance(p);
    if (!expect_kw(p, KW_FROM) || !(st->delete_.table = name(p, "a table name")) ||
        !table_alias(p, &st->delete_.alias))
        return false;
    if (accept_kw(p, KW_WHERE) && (st->delete_.where = expr(p)) == NULL) return false;
    return returning(p, &st->delete_.returning);
}

/* constraint_body parses what follows [CONSTRAINT name] in a column (table == false) or table
** constraint. For a column, false with nothing consumed and no error means no constraint
** starts here. */
static bool constraint_body(parser *p, sql_constraint *c, bool table) {
    c->off = CUR(p)->off;
    if (accept_kw(p, KW_PRIMARY)) {
        c->kind = CONS_PRIMARY_KEY;
        return expect_kw(p, KW_KEY) && (!table || name_list(p, &c->columns, "a column name"));
    }
    if (accept_kw(p, KW_UNIQUE)) {
        c->kind = CONS_UNIQUE;
        return !table || name_list(p, &c->columns, "a column name");
    }
    if (accept_kw(p, KW_CHECK)) {
        c->kind = CONS_CHECK;
        return expect(p, TK_LPAREN, "\"(\"") && (c->expr = expr(p)) && expect(p, TK_RPAREN, "\")\"");
    }
    if (table ? accept_kw(p, KW_FOREIGN) : accept_kw(p, KW_REFERENCES)) {
        c->kind = CONS_FOREIGN_KEY;
        if (table && (!expect_kw(p, KW_KEY) || !name_list(p, &c->columns, "a column name") ||
                      !expect_kw(p, KW_REFERENCES)))
            return false;
        if ((c->ref_table = name(p, "a table name")) == NULL) return false;
        return !is(p, TK_LPAREN) || name_list(p, &c->ref_columns, "a column name");
    }
    if (table) return expected(p, "PRIMARY KEY, UNIQUE, CHECK or FOREIGN KEY");
    if (accept_kw(p, KW_NOT)) {
        c->kind = CONS_NOT_NULL;
        return expect_kw(p, KW_NULL);
    }
    if (accept_kw(p, KW_NULL)) {
        c->kind = CONS_NULL;
        return true;
    }
    if (accept_kw(p, KW_DEFAULT)) {
        c->kind = CONS_DEFAULT;
        return (c->expr = expr(p)) != NULL;
    }
    return false;
}

static sql_column_def *column_def(parser *p) {
    sql_column_def *col = alloc(p, sizeof *col);
    if (col == NULL) return NULL;
    col->off = CUR(p)->off;
    if (!(col->name = name(p, "a column name")) || !type_name(p, &col->type)) return NULL;
    for (;;) {
        sql_constraint *c = alloc(p, sizeof *c);
        if (c == NULL) return NULL;
        size_t off = CUR(p)->off;
        if (accept_kw(p, KW_CONSTRAINT) && (c->name = name(p, "a constraint name")) == NULL) return NULL;
        if (!constraint_body(p, c, false)) {
            if (p->err.code != STRATA_OK) return NULL;
            if (c->name != NULL) return expected(p, "a constraint after CONSTRAINT name");
            return col;
        }
        c->off = off;
        if (!push(p, &col->constraints, c)) return NULL;
    }
}

/* setting_value parses the value of SET, PRAGMA and COPY options: an expression, where a bare
** word is a column reference naming it (ON, a reserved word, too). */
static sql_expr *setting_value(parser *p) {
    if (!is_kw(p, KW_ON)) return expr(p);
    sql_expr *e = new_expr(p, EX_COL, CUR(p)->off);
    if (e == NULL) return NULL;
    e->col.column = "on";
    advance(p);
    return e;
}

/* options parses name [[=] value], ... ) after the "(" of a COPY or CREATE TABLE ... WITH. */
static bool options(parser *p, sql_list *out) {
    do {
        sql_option *o = alloc(p, sizeof *o);
        if (o == NULL) return false;
        o->off = CUR(p)->off;
        if (!(o->name = label(p, "an option name"))) return false;
        accept(p, TK_EQ);
        if (!is(p, TK_COMMA) && !is(p, TK_RPAREN) && !(o->value = setting_value(p))) return false;
        if (!push(p, out, o)) return false;
    } while (accept(p, TK_COMMA));
    return expect(p, TK_RPAREN, "\",\" or \")\"");
}

static bool create_table(parser *p, sql_stmt *st) {
    st->kind = ST_CREATE_TABLE;
    if (!if_not_exists(p, &st->create_table.if_not_exists) ||
        !(st->create_table.name = name(p, "a table name")))
        return false;
    if (accept_kw(p, KW_WITH)) {
        if (!expect(p, TK_LPAREN, "\"(\"") || !options(p, &st->create_table.options)) return false;
        if (!expect_kw(p, KW_AS)) return false;
        return (st->create_table.as_select = query(p)) != NULL;
    }
    if (accept_kw(p, KW_AS)) return (st->create_table.as_select = query(p)) != NULL;
    if (!expect(p, TK_LPAREN, "\"(\", WITH or AS")) return false;
    do {
        size_t off = CUR(p)->off;
        if (is_kw(p, KW_CONSTRAINT) || is_kw(p, KW_PRIMARY) || is_kw(p, KW_UNIQUE) || is_kw(p, KW_CHECK) ||
            is_kw(p, KW_FOREIGN)) {
            sql_constraint *c = alloc(p, sizeof *c);
            if (c == NULL) return false;
            if (accept_kw(p, KW_CONSTRAINT) && (c->name = name(p, "a constraint name")) == NULL) return false;
            if (!constraint_body(p, c, true) || !push(p, &st->create_table.constraints, c)) return false;
            c->off = off;
        } else if (!push(p, &st->create_table.columns, column_def(p))) {
            return false;
        }
    } while (accept(p, TK_COMMA));
    if (!expect(p, TK_RPAREN, "\",\" or \")\"")) return false;
    if (accept_kw(p, KW_WITH)) return expect(p, TK_LPAREN, "\"(\"") && options(p, &st->create_table.options);
    return true;
}

static bool create_index(parser *p, sql_stmt *st, bool unique) {
    st->kind = ST_CREATE_INDEX;
    st->create_index.unique = unique;
    if (!if_not_exists(p, &st->create_index.if_not_exists) ||
        !(st->create_index.name = name(p, "an index name")) || !expect_kw(p, KW_ON) ||
        !(st->create_index.table = name(p, "a table name")) || !expect(p, TK_LPAREN, "\"(\""))
        return false;
    do {
        if (!push(p, &st->create_index.keys, order_item(p))) return false;
    } while (accept(p, TK_COMMA));
    return expect(p, TK_RPAREN, "\",\" or \")\"");
}

static bool create_view(parser *p, sql_stmt *st) {
    st->kind = ST_CREATE_VIEW;
    if (!if_not_exists(p, &st->create_view.if_not_exists) || !(st->create_view.name = name(p, "a view name")))
        return false;
    if (is(p, TK_LPAREN) && !name_list(p, &st->create_view.columns, "a column name")) return false;
    if (!expect_kw(p, KW_AS)) return false;
    st->create_view.query_off = CUR(p)->off;
    if ((st->create_view.select = query(p)) == NULL) return false;
    st->create_view.query_end = p->prev_end;
    return true;
}

static bool create(parser *p, sql_stmt *st) {
    advance(p);
    bool unique = accept_kw(p, KW_UNIQUE);
    if (accept_kw(p, KW_INDEX)) return create_index(p, st, unique);
    if (unique) return expected(p, "INDEX");
    if (accept_kw(p, KW_TABLE)) return create_table(p, st);
    if (accept_kw(p, KW_VIEW)) return create_view(p, st);
    return expected(p, "TABLE, INDEX, UNIQUE INDEX or VIEW");
}

static bool drop(parser *p, sql_stmt *st) {
    st->kind = ST_DROP;
    advance(p);
    if (accept_kw(p, KW_TABLE))
        st->drop.object = OBJ_TABLE;
    else if (accept_kw(p, KW_INDEX))
        st->drop.object = OBJ_INDEX;
    else if (accept_kw(p, KW_VIEW))
        st->drop.object = OBJ_VIEW;
    else
        return expected(p, "TABLE, INDEX or VIEW");
    if (!if_exists(p, &st->drop.if_exists)) return false;
    do {
        if (!push(p, &st->drop.names, name(p, "a name"))) return false;
    } while (accept(p, TK_COMMA));
    return true;
}

static bool alter(parser *p, sql_stmt *st) {
    st->kind = ST_ALTER_TABLE;
    advance(p);
    if (!expect_kw(p, KW_TABLE) || !(st->alter.table = name(p, "a table name"))) return false;
    if (accept_kw(p, KW_ADD)) {
        st->alter.action = ALTER_ADD_COLUMN;
        accept_kw(p, KW_COLUMN);
        return if_not_exists(p, &st->alter.if_exists) && (st->alter.column = column_def(p)) != NULL;
    }
    if (accept_kw(p, KW_DROP)) {
        st->alter.action = ALTER_DROP_COLUMN;
        accept_kw(p, KW_COLUMN);
        return if_exists(p, &st->alter.if_exists) && (st->alter.name = name(p, "a column name")) != NULL;
    }
    if (!accept_kw(p, KW_RENAME)) return expected(p, "ADD, DROP or RENAME");
    if (accept_kw(p, KW_TO)) {
        st->alter.action = ALTER_RENAME_TABLE;
        return (st->alter.new_name = name(p, "a table name")) != NULL;
    }
    st->alter.action = ALTER_RENAME_COLUMN;
    accept_kw(p, KW_COLUMN);
    return (st->alter.name = name(p, "a column name")) && expect_kw(p, KW_TO) &&
           (st->alter.new_name = name(p, "a column name"));
}


static bool set(parser *p, sql_stmt *st) {
    st->kind = ST_SET;
    advance(p);
    if (!(st->set.name = label(p, "a setting name"))) return false;
    if (!accept(p, TK_EQ) && !accept_kw(p, KW_TO)) return expected(p, "\"=\" or TO");
    return (st->set.value = setting_value(p)) != NULL;
}

/* pragma parses PRAGMA name [= value | (value)]. A pragma that returns rows of several columns
** is a table function: PRAGMA storage_info('t') is SELECT * FROM pragma_storage_info('t'). */
static bool pragma(parser *p, sql_stmt *st) {
    st->kind = ST_PRAGMA;
    advance(p);
    size_t off = CUR(p)->off;
    if (!(st->set.name = label(p, "a pragma name"))) return false;
    if (!strcmp(st->set.name, "storage_info")) {
        sql_select *s = new_select(p, SEL_CORE, off);
        sql_target *t = alloc(p, sizeof *t);
        sql_from *f = alloc(p, sizeof *f);
        if (!s || !t || !f || !(t->expr = new_expr(p, EX_STAR, off)) || !push(p, &s->targets, t)) return false;
        f->kind = FROM_FUNC;
        f->off = off;
        if (!(f->func = call(p, "pragma_storage_info", off))) return false;
        s->from = f;
        st->kind = ST_SELECT;
        st->select = s;
        return true;
    }
    if (accept(p, TK_EQ)) return (st->set.value = setting_value(p)) != NULL;
    if (accept(p, TK_LPAREN)) return (st->set.value = setting_value(p)) && expect(p, TK_RPAREN, "\")\"");
    return true;
}

static bool copy(parser *p, sql_stmt *st) {
    st->kind = ST_COPY;
    advance(p);
    if (is(p, TK_LPAREN)) {
        if ((st->copy.query = subquery(p)) == NULL) return false;
    } else {
        if (!(st->copy.table = name(p, "a table name or a query in parentheses"))) return false;
        if (is(p, TK_LPAREN) && !name_list(p, &st->copy.columns, "a column name")) return false;
    }
    if (accept_kw(p, KW_TO))
        st->copy.to = true;
    else if (st->copy.query != NULL)
        return expected(p, "TO (a query can only be copied to a file)");
    else if (!accept_kw(p, KW_FROM))
        return expected(p, "FROM or TO");
    if (!is(p, TK_STRING) && !is(p, TK_ESTRING)) return expected(p, "a file name in single quotes");
    size_t len;
    if ((st->copy.file = sql_token_string(p->arena, p->sql, CUR(p), &len)) == NULL) return nomem(p);
    advance(p);
    accept_kw(p, KW_WITH);
    if (!accept(p, TK_LPAREN)) return true;
    return options(p, &st->copy.options);
}

/* transaction parses BEGIN [TRANSACTION|WORK], START TRANSACTION, COMMIT, END, ROLLBACK. */
static bool transaction(parser *p, sql_stmt *st) {
    sql_keyword kw = CUR(p)->keyword;
    st->kind = kw == KW_BEGIN || kw == KW_START ? ST_BEGIN : kw == KW_ROLLBACK ? ST_ROLLBACK : ST_COMMIT;
    advance(p);
    if (kw == KW_START) return expect_kw(p, KW_TRANSACTION);
    if (!accept_kw(p, KW_TRANSACTION)) accept_kw(p, KW_WORK);
    return true;
}

static bool explain(parser *p, sql_stmt *st) {
    st->kind = ST_EXPLAIN;
    advance(p);
    st->explain.analyze = accept_kw(p, KW_ANALYZE);
    int depth = p->depth;
    if (!enter(p) || (st->explain.stmt = statement(p)) == NULL) return false;
    p->depth = depth;
    return true;
}

static sql_stmt *statement(parser *p) {
    sql_stmt *st = alloc(p, sizeof *st);
    if (st == NULL) return NULL;
    st->off = CUR(p)->off;
    bool ok;
    if (starts_query(CUR(p)) || is(p, TK_LPAREN)) {
        st->kind = ST_SELECT;
        ok = (st->select = query(p)) != NULL;
    } else {
        switch (is(p, TK_IDENT) ? CUR(p)->keyword : KW_NONE) {
        case KW_INSERT: ok = insert(p, st); break;
        case KW_UPDATE: ok = update(p, st); break;
        case KW_DELETE: ok = delete_from(p, st); break;
        case KW_CREATE: ok = create(p, st); break;
        case KW_DROP: ok = drop(p, st); break;
        case KW_ALTER: ok = alter(p, st); break;
        case KW_BEGIN:
        case KW_START:
        case KW_COMMIT:
        case KW_END:
        case KW_ROLLBACK: ok = transaction(p, st); break;
        case KW_CHECKPOINT:
        case KW_VACUUM:
        case KW_ANALYZE:
            st->kind = is_kw(p, KW_CHECKPOINT) ? ST_CHECKPOINT : is_kw(p, KW_VACUUM) ? ST_VACUUM : ST_ANALYZE;
            advance(p);
            ok = !is_name(CUR(p)) || (st->maint.table = name(p, "a table name")) != NULL;
            break;
        case KW_EXPLAIN: ok = explain(p, st); break;
        case KW_SET: ok = set(p, st); break;
        case KW_PRAGMA: ok = pragma(p, st); break;
        case KW_COPY: ok = copy(p, st); break;
        default: return expected(p, "a statement such as SELECT, INSERT or CREATE");
        }
    }
    st->end = p->prev_end;
    return ok ? st : NULL;
}

/* ---- entry points ---- */

void sql_script_init(sql_script *s, const char *sql, size_t len) {
    s->sql = sql;
    s->len = len;
    s->nparams = 0;
    sql_lexer_init(&s->lexer, sql, len);
}

int sql_script_next(sql_script *s, arena *a, sql_stmt **out, strata_err *err) {
    parser p = {.arena = a, .sql = s->sql, .len = s->len, .lx = &s->lexer};
    *out = NULL;
    s->nparams = 0;
    sql_lexer_resume(&s->lexer);
    while (is(&p, TK_SEMI)) { /* empty statements; after the ';' only end-of-input was read */
        p.ntok = 0;
        sql_lexer_resume(&s->lexer);
    }
    sql_stmt *st = NULL;
    if (!is(&p, TK_EOF)) {
        st = statement(&p);
        if (st != NULL && !is(&p, TK_SEMI) && !is(&p, TK_EOF)) expected(&p, "end of statement");
        if (st == NULL && p.err.code == STRATA_OK) /* a defect: every failure records why */
            fail_at(&p, CUR(&p)->off, "internal error: the parser stopped without a reason");
    }
    if (p.err.code != STRATA_OK) {
        s->lexer.stopped = true;
        s->lexer.pos = s->len;
        return err_set(err, p.err.code, "%s", p.err.msg);
    }
    s->nparams = p.nparams;
    *out = st;
    return STRATA_OK;
}

int sql_parse(arena *a, const char *sql, sql_stmt **out, const char **tail, strata_err *err) {
    sql_script s;
    sql_script_init(&s, sql, strlen(sql));
    int rc = sql_script_next(&s, a, out, err);
    if (rc == STRATA_OK && tail != NULL) *tail = sql + s.lexer.pos;
    return rc;
}

int sql_error_at(strata_err *err, int code, const char *sql, size_t len, size_t offset, const char *what,
                 const char *fmt, ...) {
    enum { WINDOW = 60 }; /* bytes of a long line shown on either side of the caret */
    if (err == NULL || err->code != STRATA_OK) return code;
    if (offset > len) offset = len;
    int line = 1;
    size_t line_off = 0, line_end = offset;
    for (size_t i = 0; i < offset; i++)
        if (sql[i] == '\n') {
            line++;
            line_off = i + 1;
        }
    while (line_end < len && sql[line_end] != '\n')
        line_end++;
    int col = 1;
    for (size_t i = line_off; i < offset; i++)
        if (((unsigned char)sql[i] & 0xC0) != 0x80) col++;

    /* show whole characters of a window around the offset */
    size_t from = line_off, to = line_end;
    if (offset - from > WINDOW) {
        from = offset - WINDOW;
        while (from < offset && ((unsigned char)sql[from] & 0xC0) == 0x80)
            from++;
    }
    if (to - offset > WINDOW) {
        to = offset + WINDOW;
        while (to > offset && ((unsigned char)sql[to] & 0xC0) == 0x80)
            to--;
    }
    char detail[STRATA_ERRMSG_MAX], text[2 * WINDOW + 8], caret[2 * WINDOW + 8];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    size_t t = 0, c = 0;
    if (from > line_off) {
        memcpy(text, "...", 3);
        memcpy(caret, "   ", 3);
        t = c = 3;
    }
    for (size_t i = from; i < to; i++) {
        unsigned char ch = (unsigned char)sql[i];
        text[t++] = ch == '\t' || ch >= 0x20 ? (char)ch : ' '; /* no control characters in messages */
        if (i < offset && (ch & 0xC0) != 0x80) caret[c++] = ch == '\t' ? '\t' : ' ';
    }
    if (to < line_end) {
        memcpy(text + t, "...", 3);
        t += 3;
    }
    text[t] = '\0';
    caret[c++] = '^';
    caret[c] = '\0';
    if (!what) return err_set(err, code, "line %d, column %d: %s\n%s\n%s", line, col, detail, text, caret);
    return err_set(err, code, "%s at line %d, column %d: %s\n%s\n%s", what, line, col, detail, text, caret);
}
