/*
** ast_print.c -- syntax trees as S-expressions, for tests and debugging.
**
** The form is canonical: one spelling per construct whatever the SQL looked like (<> and !=
** both print as <>, JOIN as inner, a folded -1 as (int -1)), so a test states the structure it
** expects: (select (cols (+ (col a) (int 1))) (from (table t))). Optional parts appear only
** when present. The printer is not used to build SQL and does not round-trip.
*/
#include <string.h>

#include "parser/parser.h"

static void expr(FILE *f, const sql_expr *e);
static void select_(FILE *f, const sql_select *s);
static void stmt(FILE *f, const sql_stmt *st);

/* name prints a name bare when it is a plain lower-case word, in double quotes otherwise. */
static void name(FILE *f, const char *s) {
    bool plain = *s != '\0' && !(*s >= '0' && *s <= '9');
    for (const char *c = s; *c && plain; c++)
        plain = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '$';
    if (plain) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char *c = s; *c; c++) {
        if (*c == '"') fputc('"', f);
        fputc(*c, f);
    }
    fputc('"', f);
}

static void quoted(FILE *f, const char *s, size_t len) {
    fputc('\'', f);
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\'') fputc('\'', f);
        fputc(s[i], f);
    }
    fputc('\'', f);
}

static void names(FILE *f, const sql_list *l) {
    for (int i = 0; i < l->n; i++) {
        fputc(' ', f);
        name(f, l->items[i]);
    }
}

static void exprs(FILE *f, const sql_list *l) {
    for (int i = 0; i < l->n; i++) {
        fputc(' ', f);
        expr(f, l->items[i]);
    }
}

static void type(FILE *f, const ast_type *t) {
    fputs(t->name, f);
    for (int i = 0; i < t->nmods; i++)
        fprintf(f, "%s%lld", i ? "," : "(", (long long)t->mods[i]);
    if (t->nmods) fputc(')', f);
}

static const char *op_name(sql_op op) {
    static const char *const ops[] = {"neg", "pos", "not", "+",  "-", "*",  "/",   "%", "||",
                                      "=",   "<>",  "<",   "<=", ">", ">=", "and", "or"};
    return ops[op];
}

static void expr(FILE *f, const sql_expr *e) {
    const char *neg = e->negated ? "not-" : "";
    switch (e->kind) {
    case EX_NULL: fputs("null", f); return;
    case EX_BOOL: fputs(e->boolean ? "true" : "false", f); return;
    case EX_INT: fprintf(f, "(int %lld)", (long long)e->integer); return;
    case EX_NUM: fprintf(f, "(num %s)", e->text.ptr); return;
    case EX_STR:
        fputs("(str ", f);
        quoted(f, e->text.ptr, e->text.len);
        fputc(')', f);
        return;
    case EX_BLOB:
        fputs("(blob x'", f);
        for (size_t i = 0; i < e->text.len; i++)
            fprintf(f, "%02X", (unsigned char)e->text.ptr[i]);
        fputs("')", f);
        return;
    case EX_TYPED:
        fprintf(f, "(%s ", e->typed.type);
        quoted(f, e->typed.text, strlen(e->typed.text));
        if (e->typed.unit) fprintf(f, " %s", e->typed.unit);
        fputc(')', f);
        return;
    case EX_PARAM: fprintf(f, "(param %d)", e->param); return;
    case EX_DEFAULT: fputs("default", f); return;
    case EX_COL:
    case EX_STAR:
        if (e->kind == EX_COL) fputs("(col ", f);
        if (e->col.table) {
            name(f, e->col.table);
            fputc('.', f);
        }
        if (e->kind == EX_STAR)
            fputc('*', f);
        else {
            name(f, e->col.column);
            fputc(')', f);
        }
        return;
    case EX_UNARY:
        fprintf(f, "(%s ", op_name(e->unary.op));
        expr(f, e->unary.arg);
        break;
    case EX_BINARY:
        fprintf(f, "(%s ", op_name(e->binary.op));
        expr(f, e->binary.left);
        fputc(' ', f);
        expr(f, e->binary.right);
        break;
    case EX_IS_NULL:
        fprintf(f, "(is-%snull ", neg);
        expr(f, e->unary.arg);
        break;
    case EX_IS_DISTINCT:
        fprintf(f, "(is-%sdistinct-from ", neg);
        expr(f, e->binary.left);
        fputc(' ', f);
        expr(f, e->binary.right);
        break;
    case EX_BETWEEN:
        fprintf(f, "(%sbetween ", neg);
        expr(f, e->between.arg);
        fputc(' ', f);
        expr(f, e->between.low);
        fputc(' ', f);
        expr(f, e->between.high);
        break;
    case EX_IN:
        fprintf(f, "(%sin ", neg);
        expr(f, e->in.arg);
        if (e->in.select) {
            fputc(' ', f);
            select_(f, e->in.select);
        }
        exprs(f, &e->in.list);
        break;
    case EX_LIKE:
        fprintf(f, "(%s%s ", neg, e->like.ilike ? "ilike" : "like");
        expr(f, e->like.arg);
        fputc(' ', f);
        expr(f, e->like.pattern);
        if (e->like.escape) {
            fputs(" (escape ", f);
            expr(f, e->like.escape);
            fputc(')', f);
        }
        break;
    case EX_CASE:
        fputs("(case", f);
        if (e->caseof.operand) {
            fputc(' ', f);
            expr(f, e->caseof.operand);
        }
        for (int i = 0; i < e->caseof.whens.n; i++) {
            const sql_when *w = e->caseof.whens.items[i];
            fputs(" (when ", f);
            expr(f, w->when);
            fputc(' ', f);
            expr(f, w->then);
            fputc(')', f);
        }
        if (e->caseof.otherwise) {
            fputs(" (else ", f);
            expr(f, e->caseof.otherwise);
            fputc(')', f);
        }
        break;
    case EX_CAST:
        fputs("(cast ", f);
        expr(f, e->cast.arg);
        fputc(' ', f);
        type(f, &e->cast.type);
        break;
    case EX_FUNC:
        fputs("(func ", f);
        name(f, e->func.name);
        if (e->func.star) fputs(" *", f);
        if (e->func.distinct) fputs(" distinct", f);
        exprs(f, &e->func.args);
        break;
    case EX_EXTRACT:
        fputs("(extract ", f);
        name(f, e->extract.field);
        fputc(' ', f);
        expr(f, e->extract.arg);
        break;
    case EX_EXISTS:
    case EX_SUBQUERY:
        fputs(e->kind == EX_EXISTS ? "(exists " : "(subquery ", f);
        select_(f, e->select);
        break;
    case EX_QUANTIFIED:
        fprintf(f, "(%s %s ", e->in.all ? "all" : "any", op_name(e->in.op));
        expr(f, e->in.arg);
        fputc(' ', f);
        select_(f, e->in.select);
        break;
    }
    fputc(')', f);
}

static void targets(FILE *f, const char *head, const sql_list *l) {
    fprintf(f, " (%s", head);
    for (int i = 0; i < l->n; i++) {
        const sql_target *t = l->items[i];
        fputc(' ', f);
        if (t->alias) fputs("(as ", f);
        expr(f, t->expr);
        if (t->alias) {
            fputc(' ', f);
            name(f, t->alias);
            fputc(')', f);
        }
    }
    fputc(')', f);
}

static void order_items(FILE *f, const sql_list *l) {
    static const char *const nulls[] = {"", " nulls-first", " nulls-last"};
    for (int i = 0; i < l->n; i++) {
        const sql_order *o = l->items[i];
        fprintf(f, " (%s ", o->desc ? "desc" : "asc");
        expr(f, o->expr);
        fprintf(f, "%s)", nulls[o->nulls]);
    }
}

static void from(FILE *f, const sql_from *fr) {
    static const char *const joins[] = {"inner", "left", "right", "full", "cross"};
    switch (fr->kind) {
    case FROM_TABLE:
        fputs("(table ", f);
        name(f, fr->table);
        break;
    case FROM_SUBQUERY:
        fputs("(subquery ", f);
        select_(f, fr->subquery);
        break;
    case FROM_FUNC:
        fputs("(table-func ", f);
        expr(f, fr->func);
        break;
    case FROM_JOIN:
        fprintf(f, "(join %s%s ", fr->join.natural ? "natural-" : "",
                fr->join.comma ? "comma" : joins[fr->join.type]);
        from(f, fr->join.left);
        fputc(' ', f);
        from(f, fr->join.right);
        if (fr->join.on) {
            fputs(" (on ", f);
            expr(f, fr->join.on);
            fputc(')', f);
        }
        if (fr->join.using.n) {
            fputs(" (using", f);
            names(f, &fr->join.using);
            fputc(')', f);
        }
        break;
    }
    if (fr->alias) {
        fputs(" (as ", f);
        name(f, fr->alias);
        names(f, &fr->alias_columns);
        fputc(')', f);
    }
    fputc(')', f);
}

static void clause(FILE *f, const char *head, const sql_expr *e) {
    if (e == NULL) return;
    fprintf(f, " (%s ", head);
    expr(f, e);
    fputc(')', f);
}

static void select_(FILE *f, const sql_select *s) {
    static const char *const kinds[] = {"select", "values", "union", "except", "intersect"};
    fprintf(f, "(%s%s", kinds[s->kind], s->all ? "-all" : "");
    if (s->with.n) {
        fprintf(f, " (with%s", s->recursive ? " recursive" : "");
        for (int i = 0; i < s->with.n; i++) {
            const sql_cte *c = s->with.items[i];
            fputs(" (cte ", f);
            name(f, c->name);
            if (c->columns.n) {
                fputs(" (columns", f);
                names(f, &c->columns);
                fputc(')', f);
            }
            fputc(' ', f);
            select_(f, c->select);
            fputc(')', f);
        }
        fputc(')', f);
    }
    switch (s->kind) {
    case SEL_CORE:
        if (s->distinct) fputs(" distinct", f);
        targets(f, "cols", &s->targets);
        if (s->from) {
            fputs(" (from ", f);
            from(f, s->from);
            fputc(')', f);
        }
        clause(f, "where", s->where);
        if (s->group_by.n) {
            fputs(" (group-by", f);
            exprs(f, &s->group_by);
            fputc(')', f);
        }
        clause(f, "having", s->having);
        break;
    case SEL_VALUES:
        for (int i = 0; i < s->rows.n; i++) {
            fputs(" (row", f);
            exprs(f, s->rows.items[i]);
            fputc(')', f);
        }
        break;
    default:
        fputc(' ', f);
        select_(f, s->left);
        fputc(' ', f);
        select_(f, s->right);
        break;
    }
    if (s->order_by.n) {
        fputs(" (order-by", f);
        order_items(f, &s->order_by);
        fputc(')', f);
    }
    clause(f, "limit", s->limit);
    clause(f, "offset", s->offset);
    fputc(')', f);
}

/* constraint prints a column constraint (primary-key, (default e), (references t c)) or a
** table constraint ((primary-key a b), (foreign-key (a) (references t c))). */
static void constraint(FILE *f, const sql_constraint *c, bool table) {
    static const char *const kinds[] = {"primary-key", "not-null", "null", "unique", "default", "check"};
    fputc(' ', f);
    if (c->name) {
        fputs("(constraint ", f);
        name(f, c->name);
        fputc(' ', f);
    }
    switch (c->kind) {
    case CONS_PRIMARY_KEY:
    case CONS_UNIQUE:
        if (!table) {
            fputs(kinds[c->kind], f);
            break;
        }
        fprintf(f, "(%s", kinds[c->kind]);
        names(f, &c->columns);
        fputc(')', f);
        break;
    case CONS_NOT_NULL:
    case CONS_NULL: fputs(kinds[c->kind], f); break;
    case CONS_DEFAULT:
    case CONS_CHECK:
        fprintf(f, "(%s ", kinds[c->kind]);
        expr(f, c->expr);
        fputc(')', f);
        break;
    case CONS_FOREIGN_KEY:
        if (table) {
            fputs("(foreign-key (", f);
            for (int i = 0; i < c->columns.n; i++) {
                if (i) fputc(' ', f);
                name(f, c->columns.items[i]);
            }
            fputs(") ", f);
        }
        fputs("(references ", f);
        name(f, c->ref_table);
        names(f, &c->ref_columns);
        fputs(table ? "))" : ")", f);
        break;
    }
    if (c->name) fputc(')', f);
}

static void column_def(FILE *f, const sql_column_def *c) {
    fputs("(column ", f);
    name(f, c->name);
    fputc(' ', f);
    type(f, &c->type);
    for (int i = 0; i < c->constraints.n; i++)
        constraint(f, c->constraints.items[i], false);
    fputc(')', f);
}

static void assigns(FILE *f, const sql_list *l) {
    fputs(" (set", f);
    for (int i = 0; i < l->n; i++) {
        const sql_assign *a = l->items[i];
        fputs(" (", f);
        name(f, a->column);
        fputc(' ', f);
        expr(f, a->value);
        fputc(')', f);
    }
    fputc(')', f);
}

/* target_table prints a DML statement's table and its alias. */
static void target_table(FILE *f, const char *table, const char *alias) {
    name(f, table);
    if (alias) {
        fputs(" (as ", f);
        name(f, alias);
        fputc(')', f);
    }
}

/* options prints " (options (name value) ...)" when there are any. */
static void options(FILE *f, const sql_list *l) {
    if (!l->n) return;
    fputs(" (options", f);
    for (int i = 0; i < l->n; i++) {
        const sql_option *o = l->items[i];
        fputs(" (", f);
        name(f, o->name);
        if (o->value) {
            fputc(' ', f);
            expr(f, o->value);
        }
        fputc(')', f);
    }
    fputc(')', f);
}

static void stmt(FILE *f, const sql_stmt *st) {
    static const char *const objects[] = {"table", "index", "view"};
    switch (st->kind) {
    case ST_SELECT: select_(f, st->select); return;
    case ST_INSERT:
        fputs("(insert ", f);
        target_table(f, st->insert.table, st->insert.alias);
        if (st->insert.columns.n) {
            fputs(" (columns", f);
            names(f, &st->insert.columns);
            fputc(')', f);
        }
        fputc(' ', f);
        if (st->insert.source)
            select_(f, st->insert.source);
        else
            fputs("default-values", f);
        if (st->insert.on_conflict) {
            const sql_on_conflict *oc = st->insert.on_conflict;
            fputs(" (on-conflict", f);
            if (oc->columns.n) {
                fputs(" (columns", f);
                names(f, &oc->columns);
                fputc(')', f);
            }
            if (oc->do_update) {
                fputs(" (do-update", f);
                assigns(f, &oc->set);
                clause(f, "where", oc->where);
                fputc(')', f);
            } else {
                fputs(" do-nothing", f);
            }
            fputc(')', f);
        }
        if (st->insert.returning.n) targets(f, "returning", &st->insert.returning);
        break;
    case ST_UPDATE:
        fputs("(update ", f);
        target_table(f, st->update.table, st->update.alias);
        assigns(f, &st->update.set);
        if (st->update.from) {
            fputs(" (from ", f);
            from(f, st->update.from);
            fputc(')', f);
        }
        clause(f, "where", st->update.where);
        if (st->update.returning.n) targets(f, "returning", &st->update.returning);
        break;
    case ST_DELETE:
        fputs("(delete ", f);
        target_table(f, st->delete_.table, st->delete_.alias);
        clause(f, "where", st->delete_.where);
        if (st->delete_.returning.n) targets(f, "returning", &st->delete_.returning);
        break;
    case ST_CREATE_TABLE:
        fprintf(f, "(create-table%s ", st->create_table.if_not_exists ? " if-not-exists" : "");
        name(f, st->create_table.name);
        for (int i = 0; i < st->create_table.columns.n; i++) {
            fputc(' ', f);
            column_def(f, st->create_table.columns.items[i]);
        }
        for (int i = 0; i < st->create_table.constraints.n; i++)
            constraint(f, st->create_table.constraints.items[i], true);
        options(f, &st->create_table.options);
        if (st->create_table.as_select) {
            fputs(" (as ", f);
            select_(f, st->create_table.as_select);
            fputc(')', f);
        }
        break;
    case ST_CREATE_INDEX:
        fprintf(f, "(create-index%s%s ", st->create_index.unique ? " unique" : "",
                st->create_index.if_not_exists ? " if-not-exists" : "");
        name(f, st->create_index.name);
        fputc(' ', f);
        name(f, st->create_index.table);
        order_items(f, &st->create_index.keys);
        break;
    case ST_CREATE_VIEW:
        fprintf(f, "(create-view%s ", st->create_view.if_not_exists ? " if-not-exists" : "");
        name(f, st->create_view.name);
        if (st->create_view.columns.n) {
            fputs(" (columns", f);
            names(f, &st->create_view.columns);
            fputc(')', f);
        }
        fputc(' ', f);
        select_(f, st->create_view.select);
        break;
    case ST_DROP:
        fprintf(f, "(drop-%s%s", objects[st->drop.object], st->drop.if_exists ? " if-exists" : "");
        names(f, &st->drop.names);
        break;
    case ST_ALTER_TABLE:
        fputs("(alter-table ", f);
        name(f, st->alter.table);
        switch (st->alter.action) {
        case ALTER_ADD_COLUMN:
            fprintf(f, " (add-column%s ", st->alter.if_exists ? " if-not-exists" : "");
            column_def(f, st->alter.column);
            break;
        case ALTER_DROP_COLUMN:
            fprintf(f, " (drop-column%s ", st->alter.if_exists ? " if-exists" : "");
            name(f, st->alter.name);
            break;
        case ALTER_RENAME_COLUMN:
            fputs(" (rename-column ", f);
            name(f, st->alter.name);
            fputc(' ', f);
            name(f, st->alter.new_name);
            break;
        case ALTER_RENAME_TABLE:
            fputs(" (rename-to ", f);
            name(f, st->alter.new_name);
            break;
        }
        fputc(')', f);
        break;
    case ST_BEGIN: fputs("(begin", f); break;
    case ST_COMMIT: fputs("(commit", f); break;
    case ST_ROLLBACK: fputs("(rollback", f); break;
    case ST_CHECKPOINT:
    case ST_VACUUM:
    case ST_ANALYZE:
        fputs(st->kind == ST_CHECKPOINT ? "(checkpoint" : st->kind == ST_VACUUM ? "(vacuum" : "(analyze", f);
        if (st->maint.table) {
            fputc(' ', f);
            name(f, st->maint.table);
        }
        break;
    case ST_EXPLAIN:
        fprintf(f, "(explain%s ", st->explain.analyze ? " analyze" : "");
        stmt(f, st->explain.stmt);
        break;
    case ST_SET:
    case ST_PRAGMA:
        fprintf(f, "(%s ", st->kind == ST_SET ? "set" : "pragma");
        name(f, st->set.name);
        if (st->set.value) {
            fputc(' ', f);
            expr(f, st->set.value);
        }
        break;
    case ST_COPY:
        fputs("(copy ", f);
        if (st->copy.query)
            select_(f, st->copy.query);
        else
            name(f, st->copy.table);
        if (st->copy.columns.n) {
            fputs(" (columns", f);
            names(f, &st->copy.columns);
            fputc(')', f);
        }
        fputs(st->copy.to ? " to " : " from ", f);
        quoted(f, st->copy.file, strlen(st->copy.file));
        options(f, &st->copy.options);
        break;
    }
    fputc(')', f);
}

void sql_print_stmt(FILE *f, const sql_stmt *st) { stmt(f, st); }
void sql_print_expr(FILE *f, const sql_expr *e) { expr(f, e); }
