/*
** joinorder.c -- the order of inner joins, chosen from estimated row counts (join_order,
** join_lookups; optimize.h).
**
** The binder builds joins in the order the FROM clause names the tables, with each WHERE and ON
** conjunct placed at the lowest join that has its columns (pushdown.c). join_order takes each tree
** of inner joins of a plan (its relations: the inputs that are not inner joins themselves) and
** rebuilds it in the order that makes the smallest intermediate results by the estimates of
** estimate.h (the sum of the joins' output rows): by dynamic programming over the subsets of up
** to JOIN_ORDER_DP relations, greedily beyond. Two sets are joined only when some condition links
** them, unless no order avoids a cross product (the query itself asks for one). Each hash join
** builds on its smaller estimated input, unless the other way round its build side can be looked
** up by key (an index join, see join_lookups); LEFT joins whose left input is the smaller become
** RIGHT joins with their inputs swapped, and SEMI and ANTI joins RIGHT_SEMI and RIGHT_ANTI ones. A
** projection on top gives the columns in the original order.
**
** A tree of inner joins is taken apart into its relations and its conditions, each condition
** rewritten over the tree's output columns (the relations' columns one after the other, as the
** binder made them). An equality between expressions of two disjoint sets of relations is a join
** key; equalities between the same two sets make one edge (a key of several columns) whose
** selectivity is 1 / the larger side's distinct count, a side's count being the product of its
** columns' counts but at most its rows; the keys that equalities between columns imply are added
** first (imply_keys). Any other condition keeps the share of rows estimate.c
** gives it over the tree as the binder made it (at least OTHER_SELECTIVITY_MIN). A set of
** relations is estimated as the product of their rows and of the selectivities of the conditions
** within it, so every order of the same set gets the same estimate.
*/
#include "bind/bind_internal.h"
#include "optimize/optimize.h"

#include "optimize/estimate.h"

#include <stdlib.h>
#include <string.h>

#define MAX_RELS 64
#define OTHER_SELECTIVITY_MIN 1e-6

typedef struct jo_rel {
    plan_op *plan;
    uint32_t base; /* its first column among the tree's */
    double rows;
    plan_op *semis; /* SEMI and ANTI joins that were on top of plan (the outermost; its child[0]
                    ** chain reaches plan), taken off to go above the joins if that is smaller */
} jo_rel;

/* A condition over two or more relations: l = r between disjoint sets of relations (a join key;
** e the comparison when there is one), or any other predicate e (l, r NULL). */
typedef struct jo_cond {
    expr *e, *l, *r;
    uint64_t lset, rset, set;
    double sel; /* not a key: the share of rows it keeps */
    bool placed;
} jo_cond;

typedef struct jo_edge {
    uint64_t a, b;
    double sel;
} jo_edge;

/* A join of the chosen order: relations set, made of nodes left and right (-1: relation rel). */
typedef struct jo_node {
    uint64_t set;
    int left, right, rel;
} jo_node;

typedef struct jo_graph {
    bind_ctx *b;
    jo_rel rel[MAX_RELS];
    int n;
    jo_cond *conds;
    int ncond, capcond;
    jo_edge *edges;
    int nedges;
    jo_node *nodes;
    int nnodes;
    uint32_t ncols;
    plan_op *root; /* the tree as the binder made it, its estimates set */
} jo_graph;

static int nomem(bind_ctx *b) { return err_set(b->err, STRATA_NOMEM, "out of memory (join order)"); }

/* rows_of is the estimated rows of p (at least 1). */
static double rows_of(plan_op *p) {
    estimate_plan(p);
    return p->est_rows >= 1 ? p->est_rows : 1;
}

static bool is_inner(const plan_op *p) {
    return (p->kind == PLAN_HASH_JOIN || p->kind == PLAN_NL_JOIN) && p->join.kind == JK_INNER && !p->join.ordered;
}

static void swap_semi(plan_op *j);

/* is_semi: a SEMI or ANTI join, which passes some of its left input's rows unchanged. */
static bool is_semi(const plan_op *p) {
    return (p->kind == PLAN_HASH_JOIN || p->kind == PLAN_NL_JOIN) && (p->join.kind == JK_SEMI || p->join.kind == JK_ANTI);
}

/* ---- columns -------------------------------------------------------------------------------- */

/* each_col calls f on every column reference of e (correlated subqueries' outer columns too). */
static void each_col(expr *e, void (*f)(uint32_t *col, const void *arg), const void *arg) {
    if (e->kind == EXPR_COL) f(&e->col, arg);
    if (e->kind == EXPR_SUBQUERY && e->sub.correlated)
        for (uint32_t i = 0; i < e->sub.nouter; i++) f(&e->sub.outer[i], arg);
    for (int i = 0; i < e->nargs; i++) each_col(e->args[i], f, arg);
}

static void shift_one(uint32_t *col, const void *arg) { *col += *(const uint32_t *)arg; }
static void remap_one(uint32_t *col, const void *arg) { *col = ((const uint32_t *)arg)[*col]; }

typedef struct set_arg {
    const jo_graph *g;
    uint64_t set;
} set_arg;

static void set_one(uint32_t *col, const void *arg) {
    set_arg *a = (set_arg *)arg;
    for (int i = a->g->n - 1; i >= 0; i--)
        if (*col >= a->g->rel[i].base) {
            a->set |= UINT64_C(1) << i;
            return;
        }
}

/* rels_of is the set of relations whose columns e reads. */
static uint64_t rels_of(const jo_graph *g, expr *e) {
    set_arg a = {g, 0};
    each_col(e, set_one, &a);
    return a.set;
}

/* ---- taking the tree apart ------------------------------------------------------------------ */

static expr *mk_expr(jo_graph *g, expr_kind kind, int nargs) {
    expr *e = bind_alloc0(g->b, sizeof *e);
    if (!e || !(e->args = bind_alloc0(g->b, (size_t)(nargs ? nargs : 1) * sizeof *e->args))) return NULL;
    e->kind = kind;
    e->type = sql_type_make(TYPE_BOOLEAN);
    e->nargs = nargs;
    return e;
}

/* eq_expr makes the comparison l = r of a join key. */
static expr *eq_expr(jo_graph *g, expr *l, expr *r) {
    expr *e = mk_expr(g, EXPR_CMP, 2);
    if (e) e->cmp = CMP_EQ, e->args[0] = l, e->args[1] = r, e->off = l->off;
    return e;
}

static int add_cond(jo_graph *g, expr *e, expr *l, expr *r) {
    if (e && e->kind == EXPR_AND) {
        for (int i = 0; i < e->nargs; i++) {
            int rc = add_cond(g, e->args[i], NULL, NULL);
            if (rc) return rc;
        }
        return STRATA_OK;
    }
    if (g->ncond == g->capcond) {
        int nc = g->capcond ? g->capcond * 2 : 16;
        jo_cond *n = bind_alloc0(g->b, (size_t)nc * sizeof *n);
        if (!n) return nomem(g->b);
        if (g->ncond) memcpy(n, g->conds, (size_t)g->ncond * sizeof *n);
        g->conds = n, g->capcond = nc;
    }
    if (e && e->kind == EXPR_CMP && e->cmp == CMP_EQ) l = e->args[0], r = e->args[1];
    jo_cond *c = &g->conds[g->ncond++];
    *c = (jo_cond){.e = e, .l = l, .r = r};
    if (l) {
        c->lset = rels_of(g, l), c->rset = rels_of(g, r);
        if (!c->lset || !c->rset || (c->lset & c->rset)) c->l = c->r = NULL; /* not a key */
    }
    if (!c->l && !c->e && !(c->e = eq_expr(g, l, r))) return nomem(g->b);
    c->set = c->l ? c->lset | c->rset : rels_of(g, c->e);
    if (!c->l) {
        c->sel = estimate_selectivity(c->e, g->root);
        if (!(c->sel >= OTHER_SELECTIVITY_MIN)) c->sel = OTHER_SELECTIVITY_MIN;
    }
    return STRATA_OK;
}

/* collect gathers the relations of the inner-join tree p, whose columns start at base, and
** orders the joins inside each relation. The conditions are gathered after the relations (see
** join_order), as they need every relation's base. */
static int collect(jo_graph *g, plan_op **p, uint32_t base) {
    if (is_inner(*p) && g->n < MAX_RELS - 1) {
        int rc = collect(g, &(*p)->child[0], base);
        return rc ? rc : collect(g, &(*p)->child[1], base + (*p)->child[0]->ncols);
    }
    jo_rel *r = &g->rel[g->n];
    r->semis = NULL;
    if (is_semi(*p)) { /* the semi joins' right inputs are ordered now, their left is the relation */
        r->semis = *p;
        for (; is_semi(*p); p = &(*p)->child[0]) {
            int rc = join_order(g->b, &(*p)->child[1]);
            if (rc) return rc;
        }
    }
    int rc = join_order(g->b, p);
    if (rc) return rc;
    g->n++;
    r->plan = *p;
    r->base = base;
    r->rows = rows_of(*p);
    return STRATA_OK;
}

/* semi_chain lists the semi joins taken off relation r, outermost first; their number. */
static int semi_chain(const jo_rel *r, plan_op **chain) {
    int n = 0;
    for (plan_op *s = r->semis; s && is_semi(s) && n < MAX_RELS; s = s->child[0]) chain[n++] = s;
    return n;
}

/* keep_semis puts back the semi joins taken off a relation whose rows outnumber the joined
** tree's (estimated tree_rows) no more: they pass fewer rows where they were. True when it put
** some back (the relation's estimate is then theirs). */
static bool keep_semis(jo_graph *g, double tree_rows) {
    bool kept = false;
    for (int i = 0; i < g->n; i++) {
        jo_rel *r = &g->rel[i];
        if (!r->semis || tree_rows < r->rows) continue;
        plan_op *chain[MAX_RELS];
        int n = semi_chain(r, chain);
        while (n-- > 0) swap_semi(chain[n]); /* as join_order does to a relation's own joins */
        r->plan = r->semis; /* its chain still reaches the relation's plan */
        r->semis = NULL;
        r->rows = rows_of(r->plan);
        kept = true;
    }
    return kept;
}

/* lift_semis puts the semi joins taken off the relations above *p, the joined tree (its columns
** those of the tree as the binder made it), innermost first, their columns moved to the tree's. */
static int lift_semis(jo_graph *g, plan_op **p) {
    for (int i = 0; i < g->n; i++) {
        jo_rel *r = &g->rel[i];
        if (!r->semis) continue;
        plan_op *chain[MAX_RELS];
        int n = semi_chain(r, chain);
        uint32_t nl = r->plan->ncols; /* each semi join's left columns: the relation's */
        while (n-- > 0) {
            plan_op *s = chain[n];
            uint32_t nr = s->child[1]->ncols;
            uint32_t map[nl + nr + 1]; /* the left columns into the tree's, the right ones after them */
            for (uint32_t c = 0; c < nl + nr; c++) map[c] = c < nl ? r->base + c : g->ncols + c - nl;
            for (uint32_t k = 0; k < s->join.nkeys; k++) each_col(s->join.lkeys[k], remap_one, map);
            if (s->join.pred) each_col(s->join.pred, remap_one, map);
            s->child[0] = *p;
            s->ncols = (*p)->ncols, s->types = (*p)->types, s->names = (*p)->names;
            estimate_plan(s);
            swap_semi(s);
            *p = s;
        }
    }
    return STRATA_OK;
}

/* conditions gathers the conditions of the inner-join tree p (columns from base on), rewritten
** over the tree's columns. */
static int conditions(jo_graph *g, plan_op *p, uint32_t base) {
    if (!is_inner(p)) return STRATA_OK;
    for (int i = 0; i < g->n; i++)
        if (g->rel[i].plan == p) return STRATA_OK;
    uint32_t nl = p->child[0]->ncols, rbase = base + nl;
    int rc = conditions(g, p->child[0], base);
    if (rc || (rc = conditions(g, p->child[1], rbase))) return rc;
    for (uint32_t k = 0; k < p->join.nkeys; k++) {
        each_col(p->join.lkeys[k], shift_one, &base);
        each_col(p->join.rkeys[k], shift_one, &rbase);
        if ((rc = add_cond(g, NULL, p->join.lkeys[k], p->join.rkeys[k]))) return rc;
    }
    if (p->join.pred) {
        each_col(p->join.pred, shift_one, &base);
        rc = add_cond(g, p->join.pred, NULL, NULL);
    }
    return rc;
}

/* ---- keys implied by equalities ------------------------------------------------------------ */

/* MAX_IMPLIED caps the keys imply_keys adds to one tree. */
#define MAX_IMPLIED 64

static int class_root(int *parent, int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

/* key_between says whether a key condition equates tree columns a and b already. */
static bool key_between(const jo_graph *g, uint32_t a, uint32_t b) {
    for (int i = 0; i < g->ncond; i++) {
        const jo_cond *c = &g->conds[i];
        if (c->l && c->l->kind == EXPR_COL && c->r->kind == EXPR_COL &&
            ((c->l->col == a && c->r->col == b) || (c->l->col == b && c->r->col == a)))
            return true;
    }
    return false;
}

/* imply_keys: key equalities between columns of one type make classes of columns equal in every
** row the joins pass (a.x = b.y and b.y = c.z: a.x = c.z too); for each two columns of a class in
** different relations that no condition equates yet it adds that key, so that the order may join
** their relations directly (TPC-H Q5's customer with nation, which the query links only through
** the supplier's nation key). A row where either is NULL fails the class's equalities already,
** so the rows are the same; an edge that closes a cycle counts once in the estimates
** (join_rows), and the join where the class's relations meet last has its keys on both. */
static int imply_keys(jo_graph *g) {
    int n = 0, ncond = g->ncond;
    expr **col = bind_alloc0(g->b, (size_t)(2 * ncond + 1) * sizeof *col); /* each column once */
    int *parent = bind_alloc0(g->b, (size_t)(2 * ncond + 1) * sizeof *parent);
    if (!col || !parent) return nomem(g->b);
    for (int i = 0; i < ncond; i++) {
        const jo_cond *c = &g->conds[i];
        if (!c->l || c->l->kind != EXPR_COL || c->r->kind != EXPR_COL || !sql_type_equal(c->l->type, c->r->type))
            continue;
        int at[2];
        for (int s = 0; s < 2; s++) {
            expr *e = s ? c->r : c->l;
            for (at[s] = 0; at[s] < n && col[at[s]]->col != e->col; at[s]++) {
            }
            if (at[s] == n) col[n] = e, parent[n] = n, n++;
        }
        parent[class_root(parent, at[0])] = class_root(parent, at[1]);
    }
    int added = 0;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n && added < MAX_IMPLIED; b++) {
            if (class_root(parent, a) != class_root(parent, b) || rels_of(g, col[a]) == rels_of(g, col[b]) ||
                key_between(g, col[a]->col, col[b]->col))
                continue;
            expr *l = bind_alloc0(g->b, sizeof *l), *r = bind_alloc0(g->b, sizeof *r);
            if (!l || !r) return nomem(g->b);
            *l = *col[a], *r = *col[b];
            int rc = add_cond(g, NULL, l, r);
            if (rc) return rc;
            added++;
        }
    return STRATA_OK;
}

/* ---- estimates ------------------------------------------------------------------------------ */

static double set_rows(const jo_graph *g, uint64_t set) {
    double rows = 1;
    for (int i = 0; i < g->n; i++)
        if (set >> i & 1) rows *= g->rel[i].rows;
    return rows;
}

/* side_distinct is the distinct count of key expression e (over the relations set). */
static double side_distinct(const jo_graph *g, const expr *e, uint64_t set) {
    if (e->kind != EXPR_COL || (set & (set - 1))) return set_rows(g, set);
    int i = __builtin_ctzll(set);
    const plan_op *p = g->rel[i].plan;
    expr col = {.kind = EXPR_COL, .type = p->types[e->col - g->rel[i].base], .col = e->col - g->rel[i].base};
    double d = estimate_distinct(&col, p);
    return d >= 1 && d <= g->rel[i].rows ? d : g->rel[i].rows;
}

static int by_selectivity(const void *x, const void *y) {
    double a = ((const jo_edge *)x)->sel, b = ((const jo_edge *)y)->sel;
    return a < b ? -1 : a > b;
}

/* make_edges groups the key conditions by the two sets they link into edges with selectivities. */
static int make_edges(jo_graph *g) {
    if (!(g->edges = bind_alloc0(g->b, (size_t)(g->ncond + 1) * sizeof *g->edges))) return nomem(g->b);
    for (int i = 0; i < g->ncond; i++) {
        const jo_cond *c = &g->conds[i];
        if (!c->l) continue;
        bool seen = false;
        for (int j = 0; j < i && !seen; j++) {
            const jo_cond *d = &g->conds[j];
            seen = d->l && ((d->lset == c->lset && d->rset == c->rset) || (d->lset == c->rset && d->rset == c->lset));
        }
        if (seen) continue;
        double dl = 1, dr = 1; /* the edge's sides: the product of their columns' counts */
        for (int j = i; j < g->ncond; j++) {
            const jo_cond *d = &g->conds[j];
            if (!d->l) continue;
            if (d->lset == c->lset && d->rset == c->rset) {
                dl *= side_distinct(g, d->l, d->lset), dr *= side_distinct(g, d->r, d->rset);
            } else if (d->lset == c->rset && d->rset == c->lset) {
                dl *= side_distinct(g, d->r, d->rset), dr *= side_distinct(g, d->l, d->lset);
            }
        }
        double rl = set_rows(g, c->lset), rr = set_rows(g, c->rset);
        if (dl > rl) dl = rl;
        if (dr > rr) dr = rr;
        g->edges[g->nedges++] = (jo_edge){c->lset, c->rset, 1 / (dl > dr ? dl : dr)};
    }
    qsort(g->edges, (size_t)g->nedges, sizeof *g->edges, by_selectivity);
    return STRATA_OK;
}

/* join_rows estimates the rows of joining the relations of set. Of edges that close a cycle
** (a.x = b.x, b.x = c.x, a.x = c.x) only those of a spanning tree count, the most selective first:
** the others mostly say again what the tree says. */
static double join_rows(const jo_graph *g, uint64_t set) {
    double rows = set_rows(g, set);
    uint64_t joined[MAX_RELS]; /* each relation's component so far */
    for (int i = 0; i < g->n; i++) joined[i] = UINT64_C(1) << i;
    for (int i = 0; i < g->nedges; i++) { /* edges sorted by selectivity */
        uint64_t both = g->edges[i].a | g->edges[i].b;
        int ra = __builtin_ctzll(g->edges[i].a), rb = __builtin_ctzll(g->edges[i].b);
        if ((both & ~set) || joined[ra] == joined[rb]) continue;
        uint64_t merged = joined[ra] | joined[rb] | both;
        for (int r = 0; r < g->n; r++)
            if (merged >> r & 1) joined[r] = merged;
        rows *= g->edges[i].sel;
    }
    for (int i = 0; i < g->ncond; i++)
        if (!g->conds[i].l && (g->conds[i].set & set) == g->conds[i].set) rows *= g->conds[i].sel;
    return rows < 1 ? 1 : rows;
}

/* linked says whether a condition joins the sets a and b. */
static bool linked(const jo_graph *g, uint64_t a, uint64_t b) {
    for (int i = 0; i < g->ncond; i++) {
        uint64_t s = g->conds[i].set;
        if ((s & a) && (s & b) && (s & ~(a | b)) == 0) return true;
    }
    return false;
}

/* ---- choosing the order --------------------------------------------------------------------- */

static int new_node(jo_graph *g, uint64_t set, int left, int right, int rel) {
    g->nodes[g->nnodes] = (jo_node){set, left, right, rel};
    return g->nnodes++;
}

typedef struct jo_dp {
    double *cost, *rows;
    uint64_t *split; /* the left part of each set's best join (0: none found) */
} jo_dp;

static int dp_node(jo_graph *g, const jo_dp *d, uint64_t set) {
    if (!(set & (set - 1))) return new_node(g, set, -1, -1, __builtin_ctzll(set));
    int l = dp_node(g, d, d->split[set]);
    int r = dp_node(g, d, set & ~d->split[set]);
    return new_node(g, set, l, r, -1);
}

/* order_dp finds the order of least cost (the sum of the joins' estimated rows) over every
** split of every set of relations, splits without a condition between their parts only where a
** set has no other. */
static int order_dp(jo_graph *g, int *root) {
    size_t nsets = (size_t)1 << g->n;
    jo_dp d = {bind_alloc0(g->b, nsets * sizeof *d.cost), bind_alloc0(g->b, nsets * sizeof *d.rows),
               bind_alloc0(g->b, nsets * sizeof *d.split)};
    if (!d.cost || !d.rows || !d.split) return nomem(g->b);
    for (uint64_t s = 1; s < nsets; s++) {
        d.rows[s] = join_rows(g, s);
        if (!(s & (s - 1))) continue;
        for (int pass = 0; pass < 2 && !d.split[s]; pass++) /* pass 1: cross products allowed */
            for (uint64_t l = (s - 1) & s; l; l = (l - 1) & s) {
                uint64_t r = s & ~l;
                if (l < r || (!pass && !linked(g, l, r))) continue; /* each split once */
                double c = d.cost[l] + d.cost[r] + d.rows[s];
                if (!d.split[s] || c < d.cost[s]) d.cost[s] = c, d.split[s] = l;
            }
    }
    *root = dp_node(g, &d, nsets - 1);
    return STRATA_OK;
}

/* order_greedy joins, again and again, the two linked sets with the smallest estimated result
** (any two when none is linked), until one is left. */
static int order_greedy(jo_graph *g, int *root) {
    int part[MAX_RELS], np = g->n;
    for (int i = 0; i < g->n; i++) part[i] = new_node(g, UINT64_C(1) << i, -1, -1, i);
    while (np > 1) {
        int bi = -1, bj = -1;
        double best = 0;
        for (int pass = 0; pass < 2 && bi < 0; pass++)
            for (int i = 0; i < np; i++)
                for (int j = i + 1; j < np; j++) {
                    uint64_t a = g->nodes[part[i]].set, b = g->nodes[part[j]].set;
                    if (!pass && !linked(g, a, b)) continue;
                    double rows = join_rows(g, a | b);
                    if (bi < 0 || rows < best) best = rows, bi = i, bj = j;
                }
        part[bi] = new_node(g, g->nodes[part[bi]].set | g->nodes[part[bj]].set, part[bi], part[bj], -1);
        part[bj] = part[--np];
    }
    *root = part[0];
    return STRATA_OK;
}

/* ---- index joins --------------------------------------------------------------------------- */

/* selective says whether a plan reads its table through a key (a rowid lookup or range, an index
** scan): a small input, for which looking up the other side of a join beats hashing it all. */
static bool selective(const plan_op *p) {
    if (!p) return false;
    if (p->kind == PLAN_INDEX_SCAN || (p->kind == PLAN_SCAN && (p->scan.lo_expr || p->scan.hi_expr))) return true;
    if (p->kind == PLAN_AGG || p->kind == PLAN_SETOP || p->kind == PLAN_NL_JOIN) return false;
    if (p->kind == PLAN_VALUES) return p->values.nrows <= 64;
    if (p->kind == PLAN_HASH_JOIN || p->kind == PLAN_INDEX_JOIN) return selective(p->child[0]);
    return selective(p->child[0]);
}

/* lookup_index says whether hash join p can be an index join (join_lookups), setting *ix to the
** index its build side is looked up through (NULL: the rowid). */
static bool lookup_index(const plan_op *p, index_def **ix) {
    if (p->kind != PLAN_HASH_JOIN || p->join.nkeys != 1 || (p->join.kind != JK_INNER && p->join.kind != JK_LEFT))
        return false;
    const plan_op *r = p->child[1];
    if (r->kind != PLAN_SCAN || r->scan.lo_expr || r->scan.hi_expr || r->scan.with_rowid) return false;
    const expr *k = p->join.rkeys[0];
    if (k->kind != EXPR_COL || k->col >= r->scan.ncols || !selective(p->child[0])) return false;
    table_def *td = r->scan.table;
    int32_t col = (int32_t)r->scan.cols[k->col];
    if (!sql_type_equal(p->join.lkeys[0]->type, td->cols[col].type)) return false;
    *ix = NULL;
    if (col == td->rowid_col) return true;
    for (uint32_t i = 0; i < td->nindexes; i++)
        if (td->indexes[i]->key_cols[0] == col && (!*ix || (td->indexes[i]->unique && !(*ix)->unique)))
            *ix = td->indexes[i];
    return *ix != NULL;
}

void join_lookups(plan_op *p) {
    if (!p) return;
    join_lookups(p->child[0]);
    join_lookups(p->child[1]);
    index_def *ix;
    if (!lookup_index(p, &ix)) return;
    p->kind = PLAN_INDEX_JOIN;
    p->join.lookup = ix;
}

/* swap_inputs exchanges the inputs of join j, with its keys, columns (in new arrays) and residual
** predicate, and LEFT for RIGHT; map[i] (j's columns) is where column i went. */
static int swap_inputs(bind_ctx *b, plan_op *j, uint32_t *map) {
    uint32_t nl = j->child[0]->ncols, nr = j->child[1]->ncols, n = nl + nr;
    sql_type *types = bind_alloc0(b, (n + 1) * sizeof *types);
    const char **names = bind_alloc0(b, (n + 1) * sizeof *names);
    if (!types || !names) return nomem(b);
    for (uint32_t i = 0; i < n; i++) {
        map[i] = i < nl ? nr + i : i - nl;
        types[map[i]] = j->types[i];
        names[map[i]] = j->names ? j->names[i] : NULL;
    }
    j->types = types, j->names = names;
    plan_op *c = j->child[0];
    j->child[0] = j->child[1], j->child[1] = c;
    expr **k = j->join.lkeys;
    j->join.lkeys = j->join.rkeys, j->join.rkeys = k;
    if (j->join.pred) each_col(j->join.pred, remap_one, map);
    if (j->join.kind == JK_LEFT || j->join.kind == JK_RIGHT) j->join.kind = j->join.kind == JK_LEFT ? JK_RIGHT : JK_LEFT;
    return STRATA_OK;
}

/* ---- building the plan ---------------------------------------------------------------------- */

/* A built subtree: its plan and, for each of its output columns, the tree column it is. */
typedef struct jo_built {
    plan_op *plan;
    uint32_t *cols;
} jo_built;

/* positions maps every tree column of built t to its position in t's output (others: never
** read). */
static uint32_t *positions(jo_graph *g, const jo_built *t) {
    uint32_t *pos = bind_alloc0(g->b, g->ncols * sizeof *pos);
    if (pos)
        for (uint32_t i = 0; i < t->plan->ncols; i++) pos[t->cols[i]] = i;
    return pos;
}

/* join_conditions places the conditions that the join of probe and build completes: keys that
** split between the two sides, the rest as the residual predicate over the joined columns. */
static int join_conditions(jo_graph *g, plan_op *j, uint64_t pset, uint64_t bset, const jo_built *probe,
                           const jo_built *build, const jo_built *joined) {
    uint32_t *pp = positions(g, probe), *bp = positions(g, build), *jp = positions(g, joined);
    expr **lk = bind_alloc0(g->b, (size_t)g->ncond * sizeof *lk), **rk = bind_alloc0(g->b, (size_t)g->ncond * sizeof *rk);
    expr **rest = bind_alloc0(g->b, (size_t)g->ncond * sizeof *rest);
    if (!pp || !bp || !jp || !lk || !rk || !rest) return nomem(g->b);
    uint32_t nkeys = 0;
    int nrest = 0;
    for (int i = 0; i < g->ncond; i++) {
        jo_cond *c = &g->conds[i];
        if (c->placed || (c->set & ~(pset | bset))) continue;
        c->placed = true;
        expr *l = c->l, *r = c->r;
        uint64_t ls = c->lset, rs = c->rset;
        if (l && (ls & ~pset)) l = c->r, r = c->l, ls = c->rset, rs = c->lset; /* the probe side's first */
        if (l && !(ls & ~pset) && !(rs & ~bset)) {
            each_col(l, remap_one, pp);
            each_col(r, remap_one, bp);
            lk[nkeys] = l, rk[nkeys++] = r;
            continue;
        }
        expr *e = c->e ? c->e : eq_expr(g, c->l, c->r); /* a key that does not split between the sides */
        if (!e) return nomem(g->b);
        each_col(e, remap_one, jp);
        rest[nrest++] = e;
    }
    j->kind = nkeys ? PLAN_HASH_JOIN : PLAN_NL_JOIN;
    j->join.nkeys = nkeys, j->join.lkeys = lk, j->join.rkeys = rk;
    if (nrest == 1) {
        j->join.pred = rest[0];
    } else if (nrest > 1) {
        if (!(j->join.pred = mk_expr(g, EXPR_AND, nrest))) return nomem(g->b);
        memcpy(j->join.pred->args, rest, (size_t)nrest * sizeof *rest);
        j->join.pred->off = rest[0]->off;
    }
    return STRATA_OK;
}

static int build(jo_graph *g, int node, jo_built *out) {
    const jo_node *nd = &g->nodes[node];
    if (nd->rel >= 0) {
        const jo_rel *r = &g->rel[nd->rel];
        out->plan = r->plan;
        if (!(out->cols = bind_alloc0(g->b, (r->plan->ncols + 1) * sizeof *out->cols))) return nomem(g->b);
        for (uint32_t i = 0; i < r->plan->ncols; i++) out->cols[i] = r->base + i;
        return STRATA_OK;
    }
    jo_built a, c;
    int rc = build(g, nd->left, &a);
    if (rc || (rc = build(g, nd->right, &c))) return rc;
    uint64_t aset = g->nodes[nd->left].set, cset = g->nodes[nd->right].set;
    if (join_rows(g, aset) < join_rows(g, cset)) { /* the hash table on the smaller side */
        jo_built t = a;
        a = c, c = t;
        uint64_t s = aset;
        aset = cset, cset = s;
    }
    uint32_t na = a.plan->ncols, nc = c.plan->ncols;
    plan_op *j = bind_alloc0(g->b, sizeof *j);
    if (!j || !(j->types = bind_alloc0(g->b, (na + nc + 1) * sizeof *j->types)) ||
        !(j->names = bind_alloc0(g->b, (na + nc + 1) * sizeof *j->names)) ||
        !(out->cols = bind_alloc0(g->b, (na + nc + 1) * sizeof *out->cols)))
        return nomem(g->b);
    j->ncols = na + nc;
    j->child[0] = a.plan, j->child[1] = c.plan;
    j->join.kind = JK_INNER;
    j->join.ordered = true;
    for (uint32_t i = 0; i < na + nc; i++) {
        const plan_op *from = i < na ? a.plan : c.plan;
        uint32_t k = i < na ? i : i - na;
        j->types[i] = from->types[k];
        j->names[i] = from->names ? from->names[k] : NULL;
        out->cols[i] = i < na ? a.cols[k] : c.cols[k];
    }
    out->plan = j;
    if ((rc = join_conditions(g, j, aset, cset, &a, &c, out))) return rc;
    index_def *ix;
    if (lookup_index(j, &ix) || !lookup_index(&(plan_op){.kind = j->kind, .child = {c.plan, a.plan},
                                                          .join = {.kind = JK_INNER, .nkeys = j->join.nkeys,
                                                                   .lkeys = j->join.rkeys, .rkeys = j->join.lkeys}},
                                              &ix))
        return STRATA_OK;
    uint32_t map[j->ncols + 1]; /* the larger side is looked up by key: it goes to the build side */
    if ((rc = swap_inputs(g->b, j, map))) return rc;
    uint32_t *cols = bind_alloc0(g->b, (j->ncols + 1) * sizeof *cols);
    if (!cols) return nomem(g->b);
    for (uint32_t i = 0; i < j->ncols; i++) cols[map[i]] = out->cols[i];
    out->cols = cols;
    return STRATA_OK;
}

/* pick_columns makes *out a projection over child whose column i (of n, with types and names)
** is child's column pos[i]. */
static int pick_columns(bind_ctx *b, plan_op *child, uint32_t n, sql_type *types, const char **names,
                        const uint32_t *pos, plan_op **out) {
    plan_op *p = bind_alloc0(b, sizeof *p);
    if (!p || !(p->project.exprs = bind_alloc0(b, n * sizeof *p->project.exprs))) return nomem(b);
    p->kind = PLAN_PROJECT;
    p->ncols = n, p->types = types, p->names = names;
    p->child[0] = child;
    for (uint32_t i = 0; i < n; i++) {
        expr *e = bind_alloc0(b, sizeof *e);
        if (!e) return nomem(b);
        e->kind = EXPR_COL, e->type = types[i], e->col = pos[i];
        p->project.exprs[i] = e;
    }
    *out = p;
    return STRATA_OK;
}

/* restore puts the tree's columns back in their order over the new tree t, which replaces old. */
static int restore(jo_graph *g, const plan_op *old, const jo_built *t, plan_op **out) {
    bool same = true;
    for (uint32_t i = 0; i < g->ncols && same; i++) same = t->cols[i] == i;
    if (same) {
        *out = t->plan;
        if (old->names) t->plan->names = old->names;
        return STRATA_OK;
    }
    uint32_t *pos = positions(g, t);
    if (!pos) return nomem(g->b);
    return pick_columns(g->b, t->plan, old->ncols, old->types, old->names, pos, out);
}

/* swap_outer turns the LEFT hash join *p into a RIGHT one with its inputs swapped when its left
** input is estimated smaller than its right (that the hash table is on the smaller) and its right
** cannot be looked up by key instead, with a projection above that gives the columns in their
** order. */
static int swap_outer(bind_ctx *b, plan_op **p) {
    plan_op *j = *p;
    index_def *ix;
    if (j->kind != PLAN_HASH_JOIN || j->join.kind != JK_LEFT || lookup_index(j, &ix) ||
        rows_of(j->child[0]) >= rows_of(j->child[1]))
        return STRATA_OK;
    uint32_t *map = bind_alloc0(b, (j->ncols + 1) * sizeof *map);
    sql_type *types = j->types; /* the LEFT join's columns, which the projection gives */
    const char **names = j->names;
    if (!map) return nomem(b);
    int rc = swap_inputs(b, j, map);
    return rc ? rc : pick_columns(b, j, j->ncols, types, names, map, p);
}

/* swap_semi turns the SEMI or ANTI hash join j into a RIGHT_SEMI or RIGHT_ANTI one with its
** inputs swapped when its left input (the rows it passes) is estimated smaller than its right:
** the hash table is then on the rows it outputs, and the other input only marks them. Its output
** columns stay the same. Not the null-aware ANTI join of NOT IN, whose probe side's NULLs count. */
static void swap_semi(plan_op *j) {
    if (j->kind != PLAN_HASH_JOIN || (j->join.kind != JK_SEMI && j->join.kind != JK_ANTI) || j->join.null_aware ||
        rows_of(j->child[0]) >= rows_of(j->child[1]))
        return;
    uint32_t nl = j->child[0]->ncols, nr = j->child[1]->ncols;
    uint32_t map[nl + nr + 1];
    for (uint32_t i = 0; i < nl + nr; i++) map[i] = i < nl ? nr + i : i - nl;
    if (j->join.pred) each_col(j->join.pred, remap_one, map);
    plan_op *c = j->child[0];
    j->child[0] = j->child[1], j->child[1] = c;
    expr **k = j->join.lkeys;
    j->join.lkeys = j->join.rkeys, j->join.rkeys = k;
    j->join.kind = j->join.kind == JK_SEMI ? JK_RSEMI : JK_RANTI;
    estimate_plan(j);
}

/* fold_projection merges into projection p a projection below it that only picks columns (as
** restore and swap_outer make). */
static void fold_projection(plan_op *p) {
    if (p->kind != PLAN_PROJECT || p->child[0]->kind != PLAN_PROJECT) return;
    plan_op *c = p->child[0];
    uint32_t map[c->ncols + 1];
    for (uint32_t k = 0; k < c->ncols; k++) {
        if (c->project.exprs[k]->kind != EXPR_COL) return;
        map[k] = c->project.exprs[k]->col;
    }
    for (uint32_t i = 0; i < p->ncols; i++) each_col(p->project.exprs[i], remap_one, map);
    p->child[0] = c->child[0];
}

/* order chooses the order of g's relations: *root is the node of the whole tree. */
static int order(jo_graph *g, int *root) {
    g->nnodes = 0, g->nedges = 0;
    int rc = make_edges(g);
    return rc ? rc : g->n <= JOIN_ORDER_DP ? order_dp(g, root) : order_greedy(g, root);
}

int join_order(bind_ctx *b, plan_op **p) {
    if (!*p) return STRATA_OK;
    if (!is_inner(*p)) {
        for (int i = 0; i < 2; i++) {
            int rc = (*p)->child[i] ? join_order(b, &(*p)->child[i]) : STRATA_OK;
            if (rc) return rc;
        }
        fold_projection(*p);
        swap_semi(*p);
        return swap_outer(b, p);
    }
    jo_graph *g = bind_alloc0(b, sizeof *g);
    if (!g) return nomem(b);
    g->b = b, g->ncols = (*p)->ncols;
    int rc = collect(g, p, 0);
    g->root = *p;
    estimate_plan(*p); /* before its conditions are rewritten over the tree's columns */
    if (rc || (rc = conditions(g, *p, 0)) || (rc = imply_keys(g))) return rc;
    if (!(g->nodes = bind_alloc0(b, (size_t)(2 * g->n) * sizeof *g->nodes))) return nomem(b);
    int root;
    if ((rc = order(g, &root))) return rc;
    if (keep_semis(g, join_rows(g, g->nodes[root].set)) && (rc = order(g, &root))) return rc; /* by their estimates */
    jo_built t;
    if ((rc = build(g, root, &t)) || (rc = restore(g, *p, &t, p))) return rc;
    return lift_semis(g, p);
}
