/*
** btree.c -- B+trees of variable-length keys and values over pager pages (see btree.h).
**
** What it is. Every entry lives in a leaf; interior pages hold separators and child page numbers.
** Pages use the format of btree_internal.h: a 12-byte header, a u16 cell-offset array growing up
** from the header and cells packed down from the end of the usable area. With C = usable - 12 the
** room for cells and their offsets, a cell is at most max_cell = C/4 - 2 bytes, so at least four
** cells fit on every page. A leaf cell keeps its value in the page when the whole cell fits in
** max_cell; otherwise the cell holds the key and the first page of an overflow chain carrying the
** entire value. Keys are at most max_cell - 12 bytes, so that even an overflowed cell fits and
** interior pages always take four separators (btree_max_key: 2023 bytes with 8 KiB pages).
**
** Separators: child i of an interior page holds the keys k with sep[i-1] <= k < sep[i]; the
** rightmost child those >= the last separator. A leaf split promotes the shortest prefix of the
** right page's first key that is still greater than the left page's last key. Every page records
** its level (leaves 0), and a child must be exactly one level below its parent, so no walk can
** cycle and all leaves have the same depth.
**
** Changes. An insert that does not fit splits the page: at the end of the rightmost leaf (or of a
** rightmost interior page) append-style, the old page staying full and the new right page taking
** only the new cell; elsewhere by bytes near the middle. A split root moves its content into two
** new children, so the root page number never changes. After a delete (or a replace by a smaller
** value) a non-root page using less than C/3 bytes is merged into its sibling under the same
** parent when both fit in one page (the left page of the pair is freed), else the two share their
** cells evenly by bytes and the parent's separator is replaced (which may split the parent). A
** root interior page left without separators takes over its only child's content. A replace of
** a local value by one of the same length overwrites it in place; otherwise the old cell (and its
** overflow chain) goes and the new one is inserted.
**
** Bulk load fills leaves left to right to the last cell that fits; each finished page hands its
** separator to the level above, whose pages fill the same way (a full interior page keeps all but
** its last cell, whose child becomes its rightmost and whose key moves up, so no interior page is
** left without separators). The top level's single page finally replaces the root's content.
**
** Checks. Lookups validate what they touch (header, cell bounds, child ranges and levels,
** overflow types and lengths); btree_check validates everything: key order within pages and
** against the separators above, levels, cell bounds and overlaps, free-space accounting, the
** local/overflow rule, overflow chain lengths, empty pages. Damage that keeps every cell readable
** (say two offsets swapped) can make a lookup miss; only btree_check sees it.
**
** Pins. Descents pin one page at a time; a change pins at most the page being changed, its parent
** and a sibling; the integrity check pins the path from the root. A cursor in a read transaction
** keeps its leaf pinned between calls (fast next/prev, pointers into the page); in a write
** transaction it keeps no pin between calls and copies keys and values into its own buffers, so
** that a put/delete beside it never meets a pinned page.
**
** Failure. Everything read from a page is bounds-checked: a malformed page gives STRATA_CORRUPT
** naming the page, never a crash. After an error other than NOTFOUND/TOOBIG/MISUSE/READONLY from
** a call that changes the tree, the tree may be half-changed inside the transaction: roll it back.
**
** What it is not: no locking (the pager's transactions isolate), no knowledge of typed keys, no
** cursor stability across changes (a change invalidates open cursors).
*/
#include "btree.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btree_internal.h"

#define BT_CELL_BUF 16448 /* > the largest cell of a 64 KiB page (16377 bytes) */
#define BT_REPORT_MAX_LINES 1000

/* ---- bytes -------------------------------------------------------------------------------- */

static inline uint32_t get16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static inline void put16(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static inline uint32_t varint_len(uint64_t v) {
    uint32_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}
static inline uint32_t varint_put(uint8_t *p, uint64_t v) {
    uint32_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}
/* varint_get reads a varint from [p, end) into *out; returns its length, 0 when malformed. */
static inline uint32_t varint_get(const uint8_t *p, const uint8_t *end, uint64_t *out) {
    if (p < end && p[0] < 0x80) {
        *out = p[0];
        return 1;
    }
    uint64_t v = 0;
    for (uint32_t i = 0; i < 10; i++) {
        if (p + i >= end) return 0;
        v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            *out = v;
            return i + 1;
        }
    }
    return 0;
}

/* key_prefix: the first 8 bytes of a key as a big-endian number (zero-padded): keys compare as
** their prefixes do whenever those differ. */
static inline uint64_t key_prefix(const uint8_t *k, size_t kl) {
    uint8_t p[8] = {0};
    memcpy(p, k, kl < 8 ? kl : 8);
    return (uint64_t)p[0] << 56 | (uint64_t)p[1] << 48 | (uint64_t)p[2] << 40 | (uint64_t)p[3] << 32 |
           (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16 | (uint64_t)p[6] << 8 | p[7];
}

static inline int key_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
    if (al >= 8 && bl >= 8) { /* most keys differ in their first 8 bytes: one integer comparison */
        uint64_t x = key_prefix(a, 8), y = key_prefix(b, 8);
        if (x != y) return x < y ? -1 : 1;
    }
    size_t m = al < bl ? al : bl;
    int c = m ? memcmp(a, b, m) : 0;
    if (c) return c;
    return (al > bl) - (al < bl);
}

/* ---- buffers and page lists ---------------------------------------------------------------- */

void btree_buf_free(btree_buf *b) {
    if (!b) return;
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

/* buf_reserve makes room for n bytes in b (contents kept). STRATA_NOMEM recorded in err. */
static int buf_reserve(btree_buf *b, size_t n, strata_err *err) {
    if (n <= b->cap && b->data) return STRATA_OK;
    size_t c = b->cap ? b->cap : 64;
    while (c < n) c = c > SIZE_MAX / 2 ? n : c * 2;
    uint8_t *d = realloc(b->data, c ? c : 1);
    if (!d) return err_set(err, STRATA_NOMEM, "out of memory (buffer of %zu bytes)", n);
    b->data = d;
    b->cap = c;
    return STRATA_OK;
}

typedef struct pglist {
    pgno_t *v;
    size_t n, cap;
} pglist;

static int pglist_add(pglist *l, pgno_t pgno, strata_err *err) {
    if (l->n == l->cap) {
        size_t c = l->cap ? l->cap * 2 : 64;
        pgno_t *v = realloc(l->v, c * sizeof *v);
        if (!v) return err_set(err, STRATA_NOMEM, "out of memory (page list)");
        l->v = v;
        l->cap = c;
    }
    l->v[l->n++] = pgno;
    return STRATA_OK;
}

/* ---- tree context and page views ----------------------------------------------------------- */

typedef struct bt_level {
    pgno_t pgno;
    uint32_t idx; /* interior: child taken (n = rightmost); leaf: cell position */
    uint32_t n;   /* cell count when the path was taken */
} bt_level;

typedef struct bt {
    pager_txn *t;
    strata_err *err;
    pgno_t root;
    uint32_t usable;   /* bytes of a page we may use */
    uint32_t cap;      /* usable - header: room for cell offsets and cells */
    uint32_t max_cell; /* largest cell */
    pgno_t npages;     /* page count as last seen (refreshed when a larger page is met) */
    int depth;         /* levels on path: path[0] the root, path[depth-1] the leaf */
    bt_level path[BT_MAX_DEPTH];
} bt;

/* A pinned tree page with its header decoded. */
typedef struct node {
    page *pg;
    uint8_t *d;
    pgno_t pgno;
    int type, level;
    uint32_t n, cstart, frag;
} node;

/* A cell decoded in place. */
typedef struct cellv {
    const uint8_t *key;
    uint32_t klen;
    uint32_t size;      /* bytes of the whole cell */
    int ovfl;           /* leaf: value in an overflow chain */
    uint64_t vlen;      /* leaf: value length */
    const uint8_t *val; /* leaf, local value */
    pgno_t ovpg;        /* leaf, overflowed: first page of the chain */
    pgno_t child;       /* interior */
} cellv;

/* A cell's bytes somewhere in memory, for rebuilding pages. */
typedef struct cref {
    const uint8_t *p;
    uint32_t len;
} cref;

static uint32_t max_cell_of(uint32_t usable) { return (usable - BT_HDR_SIZE) / 4 - 2; }

size_t btree_max_key(const pager *p) { return max_cell_of(pager_usable_size(p)) - 12; }

static void bt_init(bt *b, pager_txn *t, pgno_t root) {
    b->t = t;
    b->err = pager_txn_err(t);
    b->root = root;
    b->usable = pager_usable_size(pager_txn_pager(t));
    b->cap = b->usable - BT_HDR_SIZE;
    b->max_cell = max_cell_of(b->usable);
    b->npages = pager_page_count(t);
    b->depth = 0;
}

static int corruptf(strata_err *err, pgno_t pgno, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int corruptf(strata_err *err, pgno_t pgno, const char *fmt, ...) {
    char what[STRATA_ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return err_set(err, STRATA_CORRUPT, "page %u: %s", pgno, what);
}

/* pgno_ok says whether pgno may name a page of this database (refreshing the page count, which
** grows inside a write transaction). */
static int pgno_ok(bt *b, pgno_t pgno) {
    if (pgno == 0) return 0;
    if (pgno >= b->npages) b->npages = pager_page_count(b->t);
    return pgno < b->npages;
}

/* node_parse decodes and validates the header of a pinned page. */
static int node_parse(bt *b, page *pg, node *nd) {
    const uint8_t *d = pg->data;
    nd->pg = pg;
    nd->d = pg->data;
    nd->pgno = pg->pgno;
    nd->type = d[BT_OFF_TYPE];
    nd->level = d[BT_OFF_LEVEL];
    nd->n = get16(d + BT_OFF_NCELLS);
    nd->cstart = get16(d + BT_OFF_CSTART);
    nd->frag = get16(d + BT_OFF_FRAG);
    if (nd->type != BT_PAGE_LEAF && nd->type != BT_PAGE_INTERIOR)
        return corruptf(b->err, nd->pgno, "not a B+tree page (type 0x%02x)", (unsigned)nd->type);
    if ((nd->type == BT_PAGE_LEAF) != (nd->level == 0) || nd->level >= BT_MAX_DEPTH)
        return corruptf(b->err, nd->pgno, "bad level %d for a %s page", nd->level,
                        nd->type == BT_PAGE_LEAF ? "leaf" : "interior");
    if (nd->cstart > b->usable || BT_HDR_SIZE + 2 * nd->n > nd->cstart)
        return corruptf(b->err, nd->pgno, "cell count %u or content start %u out of range", nd->n, nd->cstart);
    if (nd->frag > b->usable - nd->cstart)
        return corruptf(b->err, nd->pgno, "fragmented byte count %u out of range", nd->frag);
    return STRATA_OK;
}

/* node_get pins page pgno (writable when mut) and decodes it; level >= 0 demands that level.
** On error nothing stays pinned. */
static int node_get(bt *b, pgno_t pgno, int mut, int level, node *nd) {
    page *pg;
    int rc = mut ? pager_get_mut(b->t, pgno, &pg) : pager_get(b->t, pgno, &pg);
    if (rc) return rc;
    rc = node_parse(b, pg, nd);
    if (rc == STRATA_OK && level >= 0 && nd->level != level)
        rc = corruptf(b->err, pgno, "level %d where level %d was expected", nd->level, level);
    if (rc) {
        pager_release(b->t, pg);
        nd->pg = NULL;
    }
    return rc;
}

static void node_release(bt *b, node *nd) {
    if (nd->pg) pager_release(b->t, nd->pg);
    nd->pg = NULL;
}

static int node_make_mut(bt *b, node *nd) {
    int rc = pager_make_mut(b->t, &nd->pg);
    if (rc) return rc;
    nd->d = nd->pg->data;
    return STRATA_OK;
}

static void node_write_header(node *nd) {
    put16(nd->d + BT_OFF_NCELLS, nd->n);
    put16(nd->d + BT_OFF_CSTART, nd->cstart);
    put16(nd->d + BT_OFF_FRAG, nd->frag);
}

static inline uint32_t node_free_space(const node *nd) {
    return nd->cstart - (BT_HDR_SIZE + 2 * nd->n) + nd->frag;
}

/* parse_cell decodes the cell at p of a page of the given type, not reading past end. */
static inline int parse_cell(int type, const uint8_t *p, const uint8_t *end, cellv *c) {
    uint64_t kl, v2;
    uint32_t a;
    const uint8_t *q = p;
    if (type == BT_PAGE_LEAF) {
        if (!(a = varint_get(q, end, &kl))) return -1;
        q += a;
        if (!(a = varint_get(q, end, &v2))) return -1;
        q += a;
        if (kl > (uint64_t)(end - q)) return -1;
        c->key = q;
        c->klen = (uint32_t)kl;
        q += kl;
        c->vlen = v2 >> 1;
        c->ovfl = (int)(v2 & 1);
        if (c->vlen > BTREE_MAX_VALUE) return -1;
        if (c->ovfl) {
            if (end - q < 4) return -1;
            c->ovpg = get32(q);
            c->val = NULL;
            q += 4;
        } else {
            if (c->vlen > (uint64_t)(end - q)) return -1;
            c->val = q;
            q += c->vlen;
        }
    } else {
        if (end - q < 5) return -1;
        c->child = get32(q);
        q += 4;
        if (!(a = varint_get(q, end, &kl))) return -1;
        q += a;
        if (kl > (uint64_t)(end - q)) return -1;
        c->key = q;
        c->klen = (uint32_t)kl;
        q += kl;
    }
    c->size = (uint32_t)(q - p);
    return 0;
}

/* node_cell decodes cell i of nd (i < n), checking that it lies inside the content area. */
static inline int node_cell(bt *b, const node *nd, uint32_t i, cellv *c) {
    uint32_t off = get16(nd->d + BT_HDR_SIZE + 2 * i);
    if (off < nd->cstart || off >= b->usable || parse_cell(nd->type, nd->d + off, nd->d + b->usable, c))
        return corruptf(b->err, nd->pgno, "cell %u (offset %u) is malformed", i, off);
    return STRATA_OK;
}

/* node_child gives child i (i == n: the rightmost) of interior page nd, checked to be in range. */
static int node_child(bt *b, const node *nd, uint32_t i, pgno_t *out) {
    pgno_t c;
    if (i < nd->n) {
        cellv cv;
        int rc = node_cell(b, nd, i, &cv);
        if (rc) return rc;
        c = cv.child;
    } else {
        c = get32(nd->d + BT_OFF_RIGHT);
    }
    if (!pgno_ok(b, c) || c == nd->pgno)
        return corruptf(b->err, nd->pgno, "child %u is page %u, out of range", i, c);
    *out = c;
    return STRATA_OK;
}

/* node_set_child points child i (i == n: the rightmost) of interior page nd at c. */
static int node_set_child(bt *b, node *nd, uint32_t i, pgno_t c) {
    if (i < nd->n) {
        uint32_t off = get16(nd->d + BT_HDR_SIZE + 2 * i);
        if (off < nd->cstart || off + 4 > b->usable)
            return corruptf(b->err, nd->pgno, "cell %u (offset %u) is malformed", i, off);
        put32(nd->d + off, c);
    } else {
        put32(nd->d + BT_OFF_RIGHT, c);
    }
    return STRATA_OK;
}

/* node_key is node_cell reduced to the key, for the binary searches. */
static inline int node_key(bt *b, const node *nd, uint32_t i, const uint8_t **key, uint32_t *klen) {
    uint32_t off = get16(nd->d + BT_HDR_SIZE + 2 * i);
    const uint8_t *p = nd->d + off, *end = nd->d + b->usable;
    uint64_t kl, v2;
    uint32_t a;
    if (off < nd->cstart || off >= b->usable) goto bad;
    if (nd->type == BT_PAGE_INTERIOR) {
        if (end - p < 5) goto bad;
        p += 4;
    }
    if (!(a = varint_get(p, end, &kl))) goto bad;
    p += a;
    if (nd->type == BT_PAGE_LEAF) {
        if (!(a = varint_get(p, end, &v2))) goto bad;
        p += a;
    }
    if (kl > (uint64_t)(end - p)) goto bad;
    *key = p;
    *klen = (uint32_t)kl;
    return STRATA_OK;
bad:
    return corruptf(b->err, nd->pgno, "cell %u (offset %u) is malformed", i, off);
}

/* node_prefetch starts loading cell i of nd (i < n) into the CPU cache. */
static inline void node_prefetch(const bt *b, const node *nd, uint32_t i) {
    uint32_t off = get16(nd->d + BT_HDR_SIZE + 2 * i);
    if (off < b->usable) __builtin_prefetch(nd->d + off);
}

/* node_probe compares key i of nd with k for node_search: 1 when the search goes right of i
** (key < k, or key == k in an interior page), 0 when not, 2 when a leaf key equals k. */
static inline __attribute__((always_inline)) int node_probe(bt *b, const node *nd, uint32_t i, const uint8_t *k,
                                                            size_t kl, const int *eq, int *rc) {
    const uint8_t *ck = NULL;
    uint32_t ckl = 0;
    if ((*rc = node_key(b, nd, i, &ck, &ckl))) return 0;
    int c = key_cmp(ck, ckl, k, kl);
    return c < 0 || (c == 0 && !eq) ? 1 : c == 0 ? 2 : 0;
}

/* node_search finds k among the keys of nd. In a leaf it finds the first cell with key >= k and
** sets *eq when that key equals k; in an interior page (eq NULL) it finds the child for k: the
** first separator > k, n when none is. Keys before lo go right, keys from hi on do not.
** Two shortcuts before the binary search: appends (rising keys) land past the last key, one
** comparison; and in a larger node whose keys' 8-byte prefixes spread (integer keys, rowids) the
** first probe is interpolated from the first and last prefix, and its neighbour probed next:
** evenly spread keys are found in two or three probes instead of log2(n), others cost two more.
** Inlined at both call sites, so each is compiled for its own eq (the hot path of every lookup). */
static inline __attribute__((always_inline)) int node_search(bt *b, const node *nd, const uint8_t *k, size_t kl,
                                                             uint32_t *idx, int *eq) {
    uint32_t lo = 0, hi = nd->n;
    int rc = STRATA_OK, r;
    if (eq) *eq = 0;
    if (hi == 0) {
        *idx = 0;
        return STRATA_OK;
    }
    const uint8_t *lk = NULL;
    uint32_t lkl = 0;
    if (hi >= 16) node_prefetch(b, nd, 0); /* its load overlaps the last key's */
    if ((rc = node_key(b, nd, hi - 1, &lk, &lkl))) return rc;
    if (key_cmp(lk, lkl, k, kl) < 0) {
        *idx = hi;
        return STRATA_OK;
    }
    if (hi >= 16) {
        const uint8_t *fk = NULL;
        uint32_t fkl = 0;
        if ((rc = node_key(b, nd, 0, &fk, &fkl))) return rc;
        uint64_t f = key_prefix(fk, fkl), l = key_prefix(lk, lkl), x = key_prefix(k, kl);
        if (f < l && f <= x && x <= l) {
            uint32_t g = (uint32_t)((double)(x - f) / (double)(l - f) * (double)(hi - 1));
            if (g > hi - 1) g = hi - 1;
            if (g > 0) node_prefetch(b, nd, g - 1); /* the neighbours probed next */
            if (g + 1 < hi) node_prefetch(b, nd, g + 1);
            r = node_probe(b, nd, g, k, kl, eq, &rc);
            if (rc) return rc;
            if (r == 2) goto found_at_g;
            if (r) {
                lo = g + 1;
                if (lo < hi) {
                    g = lo;
                    r = node_probe(b, nd, g, k, kl, eq, &rc);
                    if (rc) return rc;
                    if (r == 2) goto found_at_g;
                    if (r) lo = g + 1;
                    else hi = g;
                }
            } else {
                hi = g;
                if (hi > lo) {
                    g = hi - 1;
                    r = node_probe(b, nd, g, k, kl, eq, &rc);
                    if (rc) return rc;
                    if (r == 2) goto found_at_g;
                    if (r) lo = g + 1;
                    else hi = g;
                }
            }
            goto search;
        found_at_g:
            if (eq) *eq = 1;
            *idx = g;
            return STRATA_OK;
        }
    }
search:
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        r = node_probe(b, nd, mid, k, kl, eq, &rc);
        if (rc) return rc;
        if (r == 1) {
            lo = mid + 1;
        } else if (r == 2) {
            *eq = 1;
            *idx = mid;
            return STRATA_OK;
        } else {
            hi = mid;
        }
    }
    *idx = lo;
    return STRATA_OK;
}

/* descend walks from the root to the leaf that holds (or would hold) k, recording the path in
** b->path. The leaf stays pinned (read-only) in *leaf; *idx and *eq as node_search. */
static int descend(bt *b, const uint8_t *k, size_t kl, node *leaf, uint32_t *idx, int *eq) {
    pgno_t pg = b->root;
    int level = -1;
    for (int d = 0;; d++) {
        node nd;
        int rc = node_get(b, pg, 0, level, &nd);
        if (rc) return rc;
        b->path[d].pgno = pg;
        b->path[d].n = nd.n;
        if (nd.type == BT_PAGE_LEAF) {
            rc = node_search(b, &nd, k, kl, idx, eq);
            if (rc) {
                node_release(b, &nd);
                return rc;
            }
            b->path[d].idx = *idx;
            b->depth = d + 1;
            *leaf = nd;
            return STRATA_OK;
        }
        uint32_t i = 0;
        rc = node_search(b, &nd, k, kl, &i, NULL);
        if (rc == STRATA_OK) rc = node_child(b, &nd, i, &pg);
        level = nd.level - 1;
        node_release(b, &nd);
        if (rc) return rc;
        b->path[d].idx = i;
    }
}

/* ---- page building and editing ------------------------------------------------------------ */

/* page_build writes a whole tree page: header and cells (which must not point into d). */
static void page_build(uint8_t *d, uint32_t usable, int type, int level, const cref *cells, uint32_t n,
                       pgno_t rightmost) {
    uint32_t pos = usable;
    for (uint32_t i = 0; i < n; i++) {
        pos -= cells[i].len;
        memcpy(d + pos, cells[i].p, cells[i].len);
        put16(d + BT_HDR_SIZE + 2 * i, pos);
    }
    memset(d + BT_HDR_SIZE + 2 * n, 0, pos - (BT_HDR_SIZE + 2 * n));
    d[BT_OFF_TYPE] = (uint8_t)type;
    d[BT_OFF_LEVEL] = (uint8_t)level;
    put16(d + BT_OFF_NCELLS, n);
    put16(d + BT_OFF_CSTART, pos);
    put16(d + BT_OFF_FRAG, 0);
    put32(d + BT_OFF_RIGHT, rightmost);
}

/* gather fills cells[0..n) with the cells of nd as found in copy (a copy of nd's page). */
static int gather(bt *b, const node *nd, const uint8_t *copy, cref *cells) {
    for (uint32_t i = 0; i < nd->n; i++) {
        uint32_t off = get16(copy + BT_HDR_SIZE + 2 * i);
        cellv cv;
        if (off < nd->cstart || off >= b->usable || parse_cell(nd->type, copy + off, copy + b->usable, &cv))
            return corruptf(b->err, nd->pgno, "cell %u (offset %u) is malformed", i, off);
        cells[i].p = copy + off;
        cells[i].len = cv.size;
    }
    return STRATA_OK;
}

static void cref_decode(int type, cref c, cellv *cv) { (void)parse_cell(type, c.p, c.p + c.len, cv); }

/* node_defrag packs the cells of nd against the end of the page. */
static int node_defrag(bt *b, node *nd) {
    uint8_t *copy = malloc(b->usable);
    cref *cells = malloc((nd->n + 1) * sizeof *cells);
    int rc = STRATA_OK;
    if (!copy || !cells) {
        rc = err_set(b->err, STRATA_NOMEM, "out of memory (page defragmentation)");
        goto fail;
    }
    memcpy(copy, nd->d, b->usable);
    if ((rc = gather(b, nd, copy, cells))) goto fail;
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < nd->n; i++) bytes += cells[i].len + 2;
    if (bytes > b->cap) { /* overlapping cells */
        rc = corruptf(b->err, nd->pgno, "cells take %llu bytes, more than the page holds", (unsigned long long)bytes);
        goto fail;
    }
    page_build(nd->d, b->usable, nd->type, nd->level, cells, nd->n, get32(copy + BT_OFF_RIGHT));
    nd->cstart = get16(nd->d + BT_OFF_CSTART);
    nd->frag = 0;
fail:
    free(copy);
    free(cells);
    return rc;
}

/* node_insert puts cell (len bytes) at position idx; the caller checked node_free_space. */
static int node_insert(bt *b, node *nd, uint32_t idx, const uint8_t *cell, uint32_t len) {
    if (nd->cstart < BT_HDR_SIZE + 2 * (nd->n + 1) + len) {
        int rc = node_defrag(b, nd);
        if (rc) return rc;
        if (nd->cstart < BT_HDR_SIZE + 2 * (nd->n + 1) + len) /* its free-space count was wrong */
            return corruptf(b->err, nd->pgno, "fragmented byte count does not match the cells");
    }
    nd->cstart -= len;
    memcpy(nd->d + nd->cstart, cell, len);
    uint8_t *ptrs = nd->d + BT_HDR_SIZE;
    memmove(ptrs + 2 * (idx + 1), ptrs + 2 * idx, 2 * (nd->n - idx));
    put16(ptrs + 2 * idx, nd->cstart);
    nd->n++;
    node_write_header(nd);
    return STRATA_OK;
}

/* node_remove deletes cell idx (< n) of nd. */
static int node_remove(bt *b, node *nd, uint32_t idx) {
    cellv cv;
    int rc = node_cell(b, nd, idx, &cv);
    if (rc) return rc;
    uint32_t off = get16(nd->d + BT_HDR_SIZE + 2 * idx);
    if (off == nd->cstart)
        nd->cstart += cv.size;
    else
        nd->frag += cv.size;
    uint8_t *ptrs = nd->d + BT_HDR_SIZE;
    memmove(ptrs + 2 * idx, ptrs + 2 * (idx + 1), 2 * (nd->n - idx - 1));
    nd->n--;
    if (nd->n == 0) {
        nd->cstart = b->usable;
        nd->frag = 0;
    }
    node_write_header(nd);
    return STRATA_OK;
}

/* The cell formats. */
static uint32_t leaf_cell_size(size_t klen, size_t vlen, int ovfl) {
    return varint_len(klen) + varint_len((uint64_t)vlen << 1 | (uint64_t)ovfl) + (uint32_t)klen +
           (ovfl ? 4 : (uint32_t)(vlen > UINT32_MAX / 2 ? UINT32_MAX / 2 : vlen));
}
static int leaf_value_overflows(const bt *b, size_t klen, size_t vlen) {
    return vlen > b->max_cell || leaf_cell_size(klen, vlen, 0) > b->max_cell;
}
static uint32_t leaf_cell_build(uint8_t *out, const void *key, size_t klen, const void *val, size_t vlen,
                                int ovfl, pgno_t first) {
    uint32_t n = varint_put(out, klen);
    n += varint_put(out + n, (uint64_t)vlen << 1 | (uint64_t)ovfl);
    if (klen) memcpy(out + n, key, klen);
    n += (uint32_t)klen;
    if (ovfl) {
        put32(out + n, first);
        n += 4;
    } else {
        if (vlen) memcpy(out + n, val, vlen);
        n += (uint32_t)vlen;
    }
    return n;
}
static uint32_t interior_cell_build(uint8_t *out, pgno_t child, const uint8_t *key, uint32_t klen) {
    put32(out, child);
    uint32_t n = 4 + varint_put(out + 4, klen);
    memcpy(out + n, key, klen);
    return n + klen;
}

/* sep_len is the length of the shortest prefix s of r with l < s <= r (l < r). */
static uint32_t sep_len(const uint8_t *l, uint32_t ll, const uint8_t *r, uint32_t rl) {
    uint32_t i = 0, m = ll < rl ? ll : rl;
    while (i < m && l[i] == r[i]) i++;
    return i + 1 <= rl ? i + 1 : rl;
}

/* choose_split picks m for distributing cells[0..total) over two pages as evenly (by bytes) as
** possible: a leaf keeps [0, m) left and [m, total) right; an interior page [0, m) left, cell m
** moving up and [m + 1, total) right. Returns 0 when no split fits. */
static uint32_t choose_split(const bt *b, int leaf, const cref *cells, uint32_t total) {
    uint64_t sum = 0, acc = 0, bestdiff = UINT64_MAX;
    uint32_t best = 0;
    for (uint32_t i = 0; i < total; i++) sum += cells[i].len + 2;
    uint32_t last = leaf ? total - 1 : total - 2;
    for (uint32_t m = 1; m <= last && total >= 2; m++) {
        acc += cells[m - 1].len + 2;
        uint64_t l = acc, r = sum - acc - (leaf ? 0 : cells[m].len + 2);
        if (l > b->cap) break;
        if (r > b->cap) continue;
        uint64_t diff = l > r ? l - r : r - l;
        if (diff < bestdiff) {
            bestdiff = diff;
            best = m;
        }
    }
    return best;
}

/* ---- overflow chains ---------------------------------------------------------------------- */

static inline uint32_t ovfl_cap(const bt *b) { return b->usable - BT_OVFL_HDR; }

/* write_chain stores val in a new overflow chain, *first its first page. The pages are also
** appended to rec when rec is not NULL. On error the pages written are freed again. */
static int write_chain(bt *b, const uint8_t *val, size_t vlen, pgno_t *first, pglist *rec) {
    pglist own = {0};
    page *prev = NULL;
    int rc = STRATA_OK;
    uint32_t cap = ovfl_cap(b);
    size_t rec_n0 = rec ? rec->n : 0;
    for (size_t off = 0; off < vlen; off += cap) {
        page *pg;
        if ((rc = pager_alloc(b->t, &pg))) goto fail;
        if ((rc = pglist_add(&own, pg->pgno, b->err))) {
            pager_release(b->t, pg);
            goto fail;
        }
        size_t n = vlen - off < cap ? vlen - off : cap;
        pg->data[0] = BT_PAGE_OVERFLOW;
        put32(pg->data + BT_OVFL_OFF_NEXT, 0);
        memcpy(pg->data + BT_OVFL_HDR, val + off, n);
        if (prev) {
            put32(prev->data + BT_OVFL_OFF_NEXT, pg->pgno);
            pager_release(b->t, prev);
        } else {
            *first = pg->pgno;
        }
        prev = pg;
    }
    pager_release(b->t, prev);
    prev = NULL;
    for (size_t i = 0; rec && i < own.n; i++)
        if ((rc = pglist_add(rec, own.v[i], b->err))) goto fail;
    free(own.v);
    return STRATA_OK;
fail:
    pager_release(b->t, prev);
    for (size_t i = 0; i < own.n; i++) (void)pager_free(b->t, own.v[i]);
    if (rec) rec->n = rec_n0;
    free(own.v);
    return rc;
}

/* read_chain copies the overflowed value of a cell of page owner into dst (vlen bytes). The
** pages are copied past the page cache (pager_read): a long value is read whole and once, and
** would only push out the pages around it. Chains are mostly runs of consecutive pages (written
** so by one commit), so it reads ahead up to RUN_BYTES at a time (pager_read_run): one system
** call instead of one per page. */
#define RUN_BYTES (120u << 10) /* below malloc's usual mmap threshold: reused, not faulted in */
static int read_chain(bt *b, pgno_t owner, pgno_t first, uint64_t vlen, uint8_t *dst) {
    uint32_t cap = ovfl_cap(b), ps = pager_page_size(pager_txn_pager(b->t));
    uint32_t run = RUN_BYTES / ps ? RUN_BYTES / ps : 1;
    uint8_t *buf = malloc((size_t)run * ps);
    if (buf == NULL) return err_set(b->err, STRATA_NOMEM, "out of memory reading a value of %llu bytes",
                                    (unsigned long long)vlen);
    pgno_t pg = first;
    uint64_t done = 0;
    pgno_t prev = owner;
    uint32_t have = 0, at = 0; /* buf holds pages pg - at .. pg - at + have - 1 */
    int rc = STRATA_OK;
    while (done < vlen) {
        if (!pgno_ok(b, pg)) {
            rc = corruptf(b->err, prev, "overflow chain of page %u reaches page %u, out of range", owner, pg);
            break;
        }
        if (at >= have) { /* pg is not in buf: read it and what follows, as far as the value goes */
            uint64_t left = (vlen - done + cap - 1) / cap;
            if ((rc = pager_read_run(b->t, pg, left < run ? (uint32_t)left : run, buf, &have))) break;
            at = 0;
        }
        const uint8_t *page = buf + (size_t)at * ps;
        if (page[0] != BT_PAGE_OVERFLOW) {
            rc = corruptf(b->err, pg, "overflow page of page %u has type 0x%02x", owner, page[0]);
            break;
        }
        uint64_t n = vlen - done < cap ? vlen - done : cap;
        memcpy(dst + done, page + BT_OVFL_HDR, n);
        done += n;
        pgno_t next = get32(page + BT_OVFL_OFF_NEXT);
        if (done < vlen ? next == 0 : next != 0) {
            rc = corruptf(b->err, pg, "overflow chain of page %u does not match its value length %llu", owner,
                          (unsigned long long)vlen);
            break;
        }
        at = next == pg + 1 ? at + 1 : have; /* the chain goes on in buf, or elsewhere */
        prev = pg;
        pg = next;
    }
    free(buf);
    return rc;
}

static int cmp_pgno(const void *a, const void *b) {
    pgno_t x = *(const pgno_t *)a, y = *(const pgno_t *)b;
    return (x > y) - (x < y);
}

/* free_chain frees the overflow chain of a value of vlen bytes of a cell of page owner. The
** whole chain is read and checked first (types, length, no page twice), so that a damaged chain
** frees nothing rather than pages in use. */
static int free_chain(bt *b, pgno_t owner, pgno_t first, uint64_t vlen) {
    uint64_t npg = (vlen + ovfl_cap(b) - 1) / ovfl_cap(b);
    pgno_t *pages = malloc((size_t)(npg ? npg : 1) * 2 * sizeof *pages);
    if (!pages) return err_set(b->err, STRATA_NOMEM, "out of memory (freeing an overflow chain)");
    int rc = STRATA_OK;
    pgno_t pg = first;
    for (uint64_t i = 0; i < npg; i++) {
        if (!pgno_ok(b, pg)) {
            rc = corruptf(b->err, i ? pages[i - 1] : owner, "overflow chain of page %u reaches page %u, out of range",
                          owner, pg);
            goto done;
        }
        page *p;
        if ((rc = pager_get(b->t, pg, &p))) goto done;
        int type = p->data[0];
        pgno_t next = get32(p->data + BT_OVFL_OFF_NEXT);
        pager_release(b->t, p);
        if (type != BT_PAGE_OVERFLOW) {
            rc = corruptf(b->err, pg, "overflow page of page %u has type 0x%02x", owner, (unsigned)type);
            goto done;
        }
        pages[i] = pages[npg + i] = pg;
        pg = next;
    }
    qsort(pages + npg, (size_t)npg, sizeof *pages, cmp_pgno);
    for (uint64_t i = 1; i < npg; i++)
        if (pages[npg + i] == pages[npg + i - 1]) {
            rc = corruptf(b->err, owner, "overflow chain passes page %u twice", pages[npg + i]);
            goto done;
        }
    for (uint64_t i = 0; i < npg && rc == STRATA_OK; i++) rc = pager_free(b->t, pages[i]);
done:
    free(pages);
    return rc;
}

/* ---- splits, merges, root changes --------------------------------------------------------- */

/* rightmost_path says whether every ancestor of path level lv took its rightmost child. */
static int rightmost_path(const bt *b, int lv) {
    for (int j = 0; j < lv; j++)
        if (b->path[j].idx != b->path[j].n) return 0;
    return 1;
}

/* split distributes the cells of nd (pinned writable, path level lv) plus the cell in buf
** (*len bytes, going to position idx) over nd and a new right page. For the root, both halves
** move to new pages and the root becomes their parent: *right is 0. Otherwise nd keeps the left
** half, *right is the new page, and buf receives the cell (nd, separator) for the parent. */
static int split(bt *b, int lv, node *nd, uint32_t idx, uint8_t *buf, uint32_t *len, int append, pgno_t *right) {
    uint32_t total = nd->n + 1;
    int leaf = nd->type == BT_PAGE_LEAF;
    uint8_t *copy = malloc(b->usable + b->max_cell);
    cref *cells = malloc(total * sizeof *cells);
    page *lpg = NULL, *rpg = NULL;
    int rc = STRATA_OK;
    if (!copy || !cells) {
        rc = err_set(b->err, STRATA_NOMEM, "out of memory (page split)");
        goto fail;
    }
    uint8_t *sepkey = copy + b->usable;
    memcpy(copy, nd->d, b->usable);
    if ((rc = gather(b, nd, copy, cells))) goto fail;
    memmove(cells + idx + 1, cells + idx, (nd->n - idx) * sizeof *cells);
    cells[idx].p = buf;
    cells[idx].len = *len;

    uint32_t m = append ? (leaf ? total - 1 : total - 2) : 0;
    if (m > 0) { /* a damaged page's cells may overlap: the sides must really fit */
        uint64_t l = 0, r = 0;
        for (uint32_t i = 0; i < total; i++) {
            if (i < m)
                l += cells[i].len + 2;
            else if (leaf || i > m)
                r += cells[i].len + 2;
        }
        if (l > b->cap || r > b->cap) m = 0;
    }
    if (m == 0) m = choose_split(b, leaf, cells, total);
    if (m == 0 || total < (leaf ? 2u : 3u)) {
        rc = corruptf(b->err, nd->pgno, "cannot split page of %u cells", nd->n);
        goto fail;
    }
    cellv lk, rk;
    uint32_t seplen;
    pgno_t left_right = 0, right_right = get32(copy + BT_OFF_RIGHT);
    uint32_t rfrom;
    if (leaf) {
        cref_decode(nd->type, cells[m - 1], &lk);
        cref_decode(nd->type, cells[m], &rk);
        seplen = sep_len(lk.key, lk.klen, rk.key, rk.klen);
        memcpy(sepkey, rk.key, seplen);
        right_right = 0;
        rfrom = m;
    } else {
        cref_decode(nd->type, cells[m], &rk);
        seplen = rk.klen;
        memcpy(sepkey, rk.key, seplen);
        left_right = rk.child;
        rfrom = m + 1;
    }
    if (lv == 0 && nd->level + 1 >= BT_MAX_DEPTH) {
        rc = err_set(b->err, STRATA_FULL, "page %u: tree reached its maximum depth", nd->pgno);
        goto fail;
    }
    if ((rc = pager_alloc(b->t, &rpg))) goto fail;
    page_build(rpg->data, b->usable, nd->type, nd->level, cells + rfrom, total - rfrom, right_right);
    if (lv == 0) {
        if ((rc = pager_alloc(b->t, &lpg))) goto fail;
        page_build(lpg->data, b->usable, nd->type, nd->level, cells, m, left_right);
        cref rootcell = {buf, interior_cell_build(buf, lpg->pgno, sepkey, seplen)};
        page_build(nd->d, b->usable, BT_PAGE_INTERIOR, nd->level + 1, &rootcell, 1, rpg->pgno);
        *right = 0;
    } else {
        page_build(nd->d, b->usable, nd->type, nd->level, cells, m, left_right);
        *right = rpg->pgno;
        *len = interior_cell_build(buf, nd->pgno, sepkey, seplen);
    }
fail:
    if (rc && rpg) {
        pgno_t r = rpg->pgno;
        pager_release(b->t, rpg);
        rpg = NULL;
        (void)pager_free(b->t, r);
    }
    pager_release(b->t, rpg);
    pager_release(b->t, lpg);
    free(copy);
    free(cells);
    return rc;
}

/* insert_up inserts the cell in buf (len bytes) at position idx of the page at path level lv,
** splitting pages up to the root as needed. buf (BT_CELL_BUF bytes) is reused for the separators
** that move up. append_ok allows append-style splits on the rightmost path. */
static int insert_up(bt *b, int lv, uint32_t idx, uint8_t *buf, uint32_t len, int append_ok) {
    pgno_t redirect = 0;
    for (;;) {
        node nd;
        int rc = node_get(b, b->path[lv].pgno, 1, b->depth - 1 - lv, &nd);
        if (rc) return rc;
        if (idx > nd.n) {
            node_release(b, &nd);
            return corruptf(b->err, b->path[lv].pgno, "cell count changed under a change");
        }
        if (redirect && (rc = node_set_child(b, &nd, idx, redirect))) {
            node_release(b, &nd);
            return rc;
        }
        if (node_free_space(&nd) >= len + 2) {
            rc = node_insert(b, &nd, idx, buf, len);
            node_release(b, &nd);
            return rc;
        }
        int append = append_ok && idx == nd.n && rightmost_path(b, lv);
        pgno_t right = 0;
        rc = split(b, lv, &nd, idx, buf, &len, append, &right);
        node_release(b, &nd);
        if (rc || lv == 0) return rc;
        redirect = right;
        lv--;
        idx = b->path[lv].idx;
    }
}

/* collapse_root gives a root interior page without separators the content of its only child. */
static int collapse_root(bt *b) {
    for (int guard = 0; guard < BT_MAX_DEPTH; guard++) {
        node r, ch;
        int rc = node_get(b, b->root, 1, -1, &r);
        if (rc) return rc;
        if (r.type != BT_PAGE_INTERIOR || r.n > 0) {
            node_release(b, &r);
            return STRATA_OK;
        }
        pgno_t c;
        if ((rc = node_child(b, &r, 0, &c)) || (rc = node_get(b, c, 0, r.level - 1, &ch))) {
            node_release(b, &r);
            return rc;
        }
        memcpy(r.d, ch.d, b->usable);
        node_release(b, &ch);
        node_release(b, &r);
        if ((rc = pager_free(b->t, c))) return rc;
    }
    return STRATA_OK;
}

/* rebalance restores the fill rule after cells left the page at path level lv: an underfull
** non-root page is merged with or shares cells with a sibling, possibly cascading upward, and a
** root without separators collapses. buf is a BT_CELL_BUF scratch cell buffer. */
static int rebalance(bt *b, int lv, uint8_t *buf) {
    int rc = STRATA_OK;
    uint8_t *scratch = NULL;
    cref *cells = NULL;
    while (lv > 0) {
        int level = b->depth - 1 - lv;
        node nd, par, L, R;
        L.pg = R.pg = par.pg = NULL;
        if ((rc = node_get(b, b->path[lv].pgno, 0, level, &nd))) return rc;
        uint32_t used = b->cap - node_free_space(&nd), n = nd.n;
        node_release(b, &nd);
        if (n > 0 && used >= b->cap / 3) break;
        if ((rc = node_get(b, b->path[lv - 1].pgno, 1, level + 1, &par))) return rc;
        uint32_t pn = par.n, pidx = b->path[lv - 1].idx;
        if (pidx > pn) {
            node_release(b, &par);
            return corruptf(b->err, par.pgno, "cell count changed under a change");
        }
        if (pn == 0) { /* only child: its parent is underfull too, handled one level up */
            node_release(b, &par);
            lv--;
            continue;
        }
        uint32_t s = pidx < pn ? pidx : pn - 1;
        pgno_t lp, rp;
        cellv sep;
        if ((rc = node_child(b, &par, s, &lp)) || (rc = node_child(b, &par, s + 1, &rp)) ||
            (rc = node_cell(b, &par, s, &sep)))
            goto fail_pinned;
        if (lp == rp || lp == b->root || rp == b->root) {
            rc = corruptf(b->err, par.pgno, "children %u and %u are the same page", s, s + 1);
            goto fail_pinned;
        }
        if ((rc = node_get(b, lp, 1, level, &L)) || (rc = node_get(b, rp, 1, level, &R))) goto fail_pinned;
        uint32_t total = L.n + R.n + (level > 0 ? 1 : 0);
        scratch = malloc(2 * (size_t)b->usable + b->max_cell + 16);
        cells = malloc((total + 1) * sizeof *cells);
        if (!scratch || !cells) {
            rc = err_set(b->err, STRATA_NOMEM, "out of memory (page merge)");
            goto fail_pinned;
        }
        uint8_t *lcopy = scratch, *rcopy = scratch + b->usable, *sepcell = scratch + 2 * (size_t)b->usable;
        memcpy(lcopy, L.d, b->usable);
        memcpy(rcopy, R.d, b->usable);
        if ((rc = gather(b, &L, lcopy, cells))) goto fail_pinned;
        uint32_t k = L.n;
        if (level > 0) {
            cells[k].p = sepcell;
            cells[k].len = interior_cell_build(sepcell, get32(lcopy + BT_OFF_RIGHT), sep.key, sep.klen);
            k++;
        }
        if ((rc = gather(b, &R, rcopy, cells + k))) goto fail_pinned;
        pgno_t right_right = level > 0 ? get32(rcopy + BT_OFF_RIGHT) : 0;
        uint64_t bytes = 0;
        for (uint32_t i = 0; i < total; i++) bytes += cells[i].len + 2;
        if (bytes <= b->cap) { /* merge into the right page; the left one goes */
            page_build(R.d, b->usable, R.type, level, cells, total, right_right);
            node_release(b, &L);
            node_release(b, &R);
            rc = node_remove(b, &par, s);
            node_release(b, &par);
            if (rc || (rc = pager_free(b->t, lp))) goto fail;
            b->path[lv - 1].n = pn - 1;
            free(scratch);
            free(cells);
            scratch = NULL;
            cells = NULL;
            lv--;
            continue;
        }
        /* share the cells evenly; the parent's separator changes */
        int leaf = level == 0;
        uint32_t m = choose_split(b, leaf, cells, total);
        if (m == 0) {
            rc = corruptf(b->err, par.pgno, "cannot rebalance children %u and %u", s, s + 1);
            goto fail_pinned;
        }
        cellv lk, rk;
        const uint8_t *nsep;
        uint32_t nseplen;
        pgno_t left_right = 0;
        if (leaf) {
            cref_decode(L.type, cells[m - 1], &lk);
            cref_decode(L.type, cells[m], &rk);
            nsep = rk.key;
            nseplen = sep_len(lk.key, lk.klen, rk.key, rk.klen);
            page_build(L.d, b->usable, L.type, level, cells, m, 0);
            page_build(R.d, b->usable, R.type, level, cells + m, total - m, 0);
        } else {
            cref_decode(L.type, cells[m], &rk);
            nsep = rk.key;
            nseplen = rk.klen;
            left_right = rk.child;
            page_build(L.d, b->usable, L.type, level, cells, m, left_right);
            page_build(R.d, b->usable, R.type, level, cells + m + 1, total - m - 1, right_right);
        }
        uint32_t len = interior_cell_build(buf, lp, nsep, nseplen);
        node_release(b, &L);
        node_release(b, &R);
        rc = node_remove(b, &par, s);
        node_release(b, &par);
        if (rc == STRATA_OK) rc = insert_up(b, lv - 1, s, buf, len, 0);
        goto fail;
    fail_pinned:
        node_release(b, &L);
        node_release(b, &R);
        node_release(b, &par);
        goto fail;
    }
    if (lv == 0) rc = collapse_root(b);
fail:
    free(scratch);
    free(cells);
    return rc;
}

/* ---- public: create, drop, get, put, delete ------------------------------------------------ */

int btree_create(pager_txn *t, pgno_t *root) {
    if (!pager_txn_is_write(t))
        return err_set(pager_txn_err(t), STRATA_READONLY, "btree_create in a read transaction");
    page *pg;
    int rc = pager_alloc(t, &pg);
    if (rc) return rc;
    page_build(pg->data, pager_usable_size(pager_txn_pager(t)), BT_PAGE_LEAF, 0, NULL, 0, 0);
    *root = pg->pgno;
    pager_release(t, pg);
    return STRATA_OK;
}

/* drop_page frees the subtree at pgno (of the given level, -1: any). seen guards against pages
** reached twice. */
static int drop_page(bt *b, pgno_t pgno, int level, uint8_t *seen) {
    if (seen[pgno >> 3] & (1u << (pgno & 7))) return corruptf(b->err, pgno, "page reached twice in the tree");
    seen[pgno >> 3] |= (uint8_t)(1u << (pgno & 7));
    node nd;
    int rc = node_get(b, pgno, 0, level, &nd);
    if (rc) return rc;
    for (uint32_t i = 0; i < nd.n + (nd.type == BT_PAGE_INTERIOR) && rc == STRATA_OK; i++) {
        if (nd.type == BT_PAGE_LEAF) {
            cellv cv;
            if ((rc = node_cell(b, &nd, i, &cv)) == STRATA_OK && cv.ovfl)
                rc = free_chain(b, pgno, cv.ovpg, cv.vlen);
        } else {
            pgno_t c;
            if ((rc = node_child(b, &nd, i, &c)) == STRATA_OK) rc = drop_page(b, c, nd.level - 1, seen);
        }
    }
    node_release(b, &nd);
    if (rc == STRATA_OK) rc = pager_free(b->t, pgno);
    return rc;
}

int btree_drop(pager_txn *t, pgno_t root) {
    bt b;
    bt_init(&b, t, root);
    if (!pager_txn_is_write(t)) return err_set(b.err, STRATA_READONLY, "btree_drop in a read transaction");
    if (!pgno_ok(&b, root)) return corruptf(b.err, root, "tree root out of range");
    uint8_t *seen = calloc(b.npages / 8 + 1, 1);
    if (!seen) return err_set(b.err, STRATA_NOMEM, "out of memory (btree_drop)");
    int rc = drop_page(&b, root, -1, seen);
    free(seen);
    return rc;
}

/* value_copy copies the value of leaf cell cv (on the pinned page nd) into out and unpins nd. */
static int value_copy(bt *b, node *nd, const cellv *cv, btree_buf *out) {
    int rc = buf_reserve(out, cv->vlen ? cv->vlen : 1, b->err);
    if (rc == STRATA_OK && !cv->ovfl) {
        if (cv->vlen) memcpy(out->data, cv->val, cv->vlen);
        node_release(b, nd);
    } else {
        pgno_t owner = nd->pgno;
        node_release(b, nd);
        if (rc == STRATA_OK) rc = read_chain(b, owner, cv->ovpg, cv->vlen, out->data);
    }
    out->len = rc == STRATA_OK ? cv->vlen : 0;
    return rc;
}

/* seek_exact descends to key and decodes its cell, leaving the leaf pinned in *leaf. On
** STRATA_NOTFOUND (key absent) or an error nothing stays pinned. */
static int seek_exact(bt *b, const void *key, size_t klen, node *leaf, uint32_t *idx, cellv *cv) {
    int eq;
    int rc = descend(b, key, klen, leaf, idx, &eq);
    if (rc) return rc;
    rc = eq ? node_cell(b, leaf, *idx, cv) : STRATA_NOTFOUND;
    if (rc) node_release(b, leaf);
    return rc;
}

int btree_get(pager_txn *t, pgno_t root, const void *key, size_t klen, btree_buf *out) {
    bt b;
    bt_init(&b, t, root);
    node leaf;
    uint32_t idx;
    cellv cv;
    int rc = seek_exact(&b, key, klen, &leaf, &idx, &cv);
    return rc ? rc : value_copy(&b, &leaf, &cv, out);
}

int btree_put(pager_txn *t, pgno_t root, const void *key, size_t klen, const void *val, size_t vlen) {
    return btree_put_mode(t, root, key, klen, val, vlen, BTREE_PUT_ANY);
}

/* put_checks refuses a put that cannot be done: a read transaction, a key or value too long. */
static int put_checks(bt *b, size_t klen, size_t vlen) {
    if (!pager_txn_is_write(b->t)) return err_set(b->err, STRATA_READONLY, "btree_put in a read transaction");
    if (klen > b->max_cell - 12)
        return err_set(b->err, STRATA_TOOBIG, "key of %zu bytes exceeds the limit of %u bytes", klen, b->max_cell - 12);
    if (vlen > BTREE_MAX_VALUE)
        return err_set(b->err, STRATA_TOOBIG, "value of %zu bytes exceeds the limit of %u bytes", vlen,
                       (unsigned)BTREE_MAX_VALUE);
    return STRATA_OK;
}

/* leaf_put stores key -> val at idx of the pinned leaf that descend found (eq: replacing the
** cell there), and releases the leaf. */
static int leaf_put(bt *b, node *leaf, uint32_t idx, int eq, const void *key, size_t klen, const void *val,
                    size_t vlen) {
    uint8_t buf[BT_CELL_BUF];
    cellv old = {0};
    int rc;
    if (eq && (rc = node_cell(b, leaf, idx, &old))) goto fail;
    int ovfl = leaf_value_overflows(b, klen, vlen);
    if (eq && !old.ovfl && !ovfl && old.vlen == vlen) { /* same size: overwrite in place */
        if ((rc = node_make_mut(b, leaf))) goto fail;
        if ((rc = node_cell(b, leaf, idx, &old))) goto fail;
        if (vlen) memcpy((uint8_t *)old.val, val, vlen);
        node_release(b, leaf);
        return STRATA_OK;
    }
    pgno_t first = 0;
    if (ovfl && (rc = write_chain(b, val, vlen, &first, NULL))) goto fail;
    uint32_t len = leaf_cell_build(buf, key, klen, val, vlen, ovfl, first);
    if ((rc = node_make_mut(b, leaf))) goto fail;
    if (eq && (rc = node_remove(b, leaf, idx))) goto fail;
    if (node_free_space(leaf) >= len + 2) {
        rc = node_insert(b, leaf, idx, buf, len);
        node_release(b, leaf);
        if (rc) return rc;
        if (eq && old.size > len) rc = rebalance(b, b->depth - 1, buf);
    } else {
        node_release(b, leaf);
        b->path[b->depth - 1].n = b->path[b->depth - 1].n - (eq ? 1 : 0);
        rc = insert_up(b, b->depth - 1, idx, buf, len, !eq);
    }
    if (rc == STRATA_OK && eq && old.ovfl) rc = free_chain(b, b->path[b->depth - 1].pgno, old.ovpg, old.vlen);
    return rc;
fail:
    node_release(b, leaf);
    return rc;
}

int btree_put_mode(pager_txn *t, pgno_t root, const void *key, size_t klen, const void *val, size_t vlen, int mode) {
    bt b;
    bt_init(&b, t, root);
    int rc = put_checks(&b, klen, vlen);
    if (rc) return rc;
    node leaf;
    uint32_t idx;
    int eq;
    if ((rc = descend(&b, key, klen, &leaf, &idx, &eq))) return rc;
    if ((mode == BTREE_PUT_INSERT && eq) || (mode == BTREE_PUT_REPLACE && !eq)) {
        node_release(&b, &leaf);
        return eq ? STRATA_CONSTRAINT : STRATA_NOTFOUND;
    }
    return leaf_put(&b, &leaf, idx, eq, key, klen, val, vlen);
}

/* at_edge says whether the leaf descend reached is the tree's last (right) or first (!right):
** every interior page on the path was left through its last (first) child. */
static int at_edge(const bt *b, int right) {
    for (int d = 0; d < b->depth - 1; d++)
        if (b->path[d].idx != (right ? b->path[d].n : 0)) return 0;
    return 1;
}

/* has_prefix says whether key i of nd starts with p[0..plen); *rc on a malformed cell. */
static int has_prefix(bt *b, const node *nd, uint32_t i, const uint8_t *p, size_t plen, int *rc) {
    const uint8_t *k;
    uint32_t kl;
    if ((*rc = node_key(b, nd, i, &k, &kl))) return 0;
    return kl >= plen && (plen == 0 || memcmp(k, p, plen) == 0);
}

int btree_insert_unique(pager_txn *t, pgno_t root, const void *key, size_t klen, size_t plen) {
    bt b;
    bt_init(&b, t, root);
    int rc = put_checks(&b, klen, 0);
    if (rc) return rc;
    node leaf;
    uint32_t idx;
    int eq;
    if ((rc = descend(&b, key, klen, &leaf, &idx, &eq))) return rc;
    /* keys with the prefix sort together, so one is a neighbour of key's place if any exists: in
    ** this leaf, or past its edge when key lands there (then the tree is asked again) */
    int dup = eq, unsure = 0;
    if (!dup && idx < leaf.n) dup = has_prefix(&b, &leaf, idx, key, plen, &rc);
    else if (!dup) unsure |= !at_edge(&b, 1);
    if (!dup && !rc && idx > 0) dup = has_prefix(&b, &leaf, idx - 1, key, plen, &rc);
    else if (!dup && !rc) unsure |= !at_edge(&b, 0);
    if (rc || dup || unsure) {
        node_release(&b, &leaf);
        if (rc) return rc;
        if (dup) return STRATA_CONSTRAINT;
        btree_cursor *c = NULL; /* the slow way: the first key at or after the prefix */
        if ((rc = btree_cursor_open(t, root, &c)) == STRATA_OK && (rc = btree_cursor_seek(c, key, plen, NULL)) == STRATA_OK) {
            const uint8_t *k;
            size_t kl;
            if (btree_cursor_valid(c) && (rc = btree_cursor_key(c, &k, &kl)) == STRATA_OK && kl >= plen &&
                (plen == 0 || memcmp(k, key, plen) == 0))
                rc = STRATA_CONSTRAINT;
        }
        btree_cursor_close(c);
        return rc ? rc : btree_put_mode(t, root, key, klen, NULL, 0, BTREE_PUT_INSERT);
    }
    return leaf_put(&b, &leaf, idx, 0, key, klen, NULL, 0);
}

int btree_delete(pager_txn *t, pgno_t root, const void *key, size_t klen) {
    bt b;
    bt_init(&b, t, root);
    if (!pager_txn_is_write(t)) return err_set(b.err, STRATA_READONLY, "btree_delete in a read transaction");
    uint8_t buf[BT_CELL_BUF];
    node leaf;
    uint32_t idx;
    cellv old;
    int rc = seek_exact(&b, key, klen, &leaf, &idx, &old);
    if (rc) return rc;
    if ((rc = node_make_mut(&b, &leaf)) || (rc = node_remove(&b, &leaf, idx))) {
        node_release(&b, &leaf);
        return rc;
    }
    int ovfl = old.ovfl;
    pgno_t ovpg = old.ovpg;
    uint64_t vlen = old.vlen;
    node_release(&b, &leaf);
    if (ovfl && (rc = free_chain(&b, b.path[b.depth - 1].pgno, ovpg, vlen))) return rc;
    return rebalance(&b, b.depth - 1, buf);
}

/* ---- cursors ------------------------------------------------------------------------------ */

struct btree_cursor {
    bt b;          /* b.path / b.depth: the position */
    int write;     /* write transaction: no pin is kept between calls */
    int valid;
    node leaf;     /* the pinned leaf (leaf.pg NULL when none) */
    const uint8_t *key;
    size_t klen;
    cellv cell;    /* the current cell, decoded in the pinned leaf (read transactions only) */
    btree_buf kbuf, vbuf;
};

int btree_cursor_open(pager_txn *t, pgno_t root, btree_cursor **out) {
    btree_cursor *c = calloc(1, sizeof *c);
    if (!c) return err_set(pager_txn_err(t), STRATA_NOMEM, "out of memory (cursor)");
    bt_init(&c->b, t, root);
    c->write = pager_txn_is_write(t);
    *out = c;
    return STRATA_OK;
}

static void cur_unpin(btree_cursor *c) { node_release(&c->b, &c->leaf); }

void btree_cursor_close(btree_cursor *c) {
    if (!c) return;
    cur_unpin(c);
    btree_buf_free(&c->kbuf);
    btree_buf_free(&c->vbuf);
    free(c);
}

/* cur_pin pins the current leaf again (write transactions unpin between calls). */
static int cur_pin(btree_cursor *c) {
    if (c->leaf.pg) return STRATA_OK;
    bt_level *lv = &c->b.path[c->b.depth - 1];
    int rc = node_get(&c->b, lv->pgno, 0, 0, &c->leaf);
    if (rc) return rc;
    if (lv->idx >= c->leaf.n) { /* the tree changed under the cursor */
        cur_unpin(c);
        c->valid = 0;
        return err_set(c->b.err, STRATA_MISUSE, "cursor used after its tree changed; reposition it");
    }
    return STRATA_OK;
}

/* cur_settle publishes the entry at the leaf position (leaf pinned, idx < n). */
static int cur_settle(btree_cursor *c) {
    cellv *cv = &c->cell;
    int rc = node_cell(&c->b, &c->leaf, c->b.path[c->b.depth - 1].idx, cv);
    if (rc) goto fail;
    c->key = cv->key;
    c->klen = cv->klen;
    if (c->write) { /* copy the key: the leaf is not kept pinned */
        if ((rc = buf_reserve(&c->kbuf, cv->klen + 1, c->b.err))) goto fail;
        if (cv->klen) memcpy(c->kbuf.data, cv->key, cv->klen);
        c->kbuf.len = cv->klen;
        c->key = c->kbuf.data;
        cur_unpin(c);
    }
    c->valid = 1;
    return STRATA_OK;
fail:
    cur_unpin(c);
    c->valid = 0;
    return rc;
}

/* cur_edge goes down from path level lv (pgno set; level -1: any) to a leaf along the first
** (dir > 0) or last (dir < 0) children, pinning the leaf at its first or last cell. */
static int cur_edge(btree_cursor *c, int lv, int level, int dir) {
    bt *b = &c->b;
    pgno_t pg = b->path[lv].pgno;
    for (;; lv++) {
        node nd;
        int rc = node_get(b, pg, 0, level, &nd);
        if (rc) return rc;
        b->path[lv].pgno = pg;
        b->path[lv].n = nd.n;
        if (nd.type == BT_PAGE_LEAF) {
            b->depth = lv + 1;
            b->path[lv].idx = dir > 0 || nd.n == 0 ? 0 : nd.n - 1;
            if (nd.n == 0 && lv > 0) {
                node_release(b, &nd);
                return corruptf(b->err, pg, "empty leaf below the root");
            }
            c->leaf = nd;
            return STRATA_OK;
        }
        uint32_t i = dir > 0 ? 0 : nd.n;
        b->path[lv].idx = i;
        rc = node_child(b, &nd, i, &pg);
        level = nd.level - 1;
        node_release(b, &nd);
        if (rc) return rc;
    }
}

/* Cursor prefetch: a scan otherwise waits on a cache miss for nearly every cell of a page that is
** not in the CPU cache. cur_prefetch_cell asks for the first 128 bytes of cell i (a typical row);
** stepping asks for the cell PREFETCH_AHEAD places on, and entering a leaf for the cells up to
** there. */
enum { PREFETCH_AHEAD = 16 };

static inline void cur_prefetch_cell(const btree_cursor *c, uint32_t i) {
    uint32_t off = get16(c->leaf.d + BT_HDR_SIZE + 2 * i);
    if (off + 128 > c->b.usable) return;
    __builtin_prefetch(c->leaf.d + off);
    __builtin_prefetch(c->leaf.d + off + 64);
    __builtin_prefetch(c->leaf.d + off + 127);
}

static inline void cur_prefetch_step(const btree_cursor *c, int dir) {
    uint32_t i = c->b.path[c->b.depth - 1].idx;
    if (dir > 0 ? i + PREFETCH_AHEAD < c->leaf.n : i >= PREFETCH_AHEAD)
        cur_prefetch_cell(c, dir > 0 ? i + PREFETCH_AHEAD : i - PREFETCH_AHEAD);
}

static void cur_prefetch_leaf(const btree_cursor *c, int dir) {
    uint32_t i = c->b.path[c->b.depth - 1].idx;
    for (uint32_t k = 1; k < PREFETCH_AHEAD; k++) {
        if (dir > 0 ? i + k >= c->leaf.n : i < k) break;
        cur_prefetch_cell(c, dir > 0 ? i + k : i - k);
    }
}

/* cur_step moves a positioned cursor one entry forward (dir > 0) or back. */
static int cur_step(btree_cursor *c, int dir) {
    bt *b = &c->b;
    int rc = cur_pin(c);
    if (rc) return rc;
    bt_level *lf = &b->path[b->depth - 1];
    if (dir > 0 ? lf->idx + 1 < c->leaf.n : lf->idx > 0) {
        lf->idx = dir > 0 ? lf->idx + 1 : lf->idx - 1;
        cur_prefetch_step(c, dir);
        return cur_settle(c);
    }
    cur_unpin(c);
    for (int lv = b->depth - 2; lv >= 0; lv--) {
        node nd;
        if ((rc = node_get(b, b->path[lv].pgno, 0, b->depth - 1 - lv, &nd))) goto fail;
        uint32_t i = b->path[lv].idx;
        if (dir > 0 ? i < nd.n : i > 0 && i <= nd.n) {
            i = dir > 0 ? i + 1 : i - 1;
            b->path[lv].idx = i;
            b->path[lv].n = nd.n;
            pgno_t pg;
            rc = node_child(b, &nd, i, &pg);
            node_release(b, &nd);
            if (rc) goto fail;
            b->path[lv + 1].pgno = pg;
            if ((rc = cur_edge(c, lv + 1, b->depth - 2 - lv, dir))) goto fail;
            cur_prefetch_leaf(c, dir);
            return cur_settle(c);
        }
        node_release(b, &nd);
    }
    c->valid = 0;
    return STRATA_OK;
fail:
    cur_unpin(c);
    c->valid = 0;
    return rc;
}

static int cur_end(btree_cursor *c, int dir) {
    cur_unpin(c);
    c->valid = 0;
    c->b.path[0].pgno = c->b.root;
    int rc = cur_edge(c, 0, -1, dir);
    if (rc) return rc;
    if (c->leaf.n == 0) { /* empty tree */
        cur_unpin(c);
        return STRATA_OK;
    }
    return cur_settle(c);
}

int btree_cursor_first(btree_cursor *c) { return cur_end(c, 1); }
int btree_cursor_last(btree_cursor *c) { return cur_end(c, -1); }

int btree_cursor_seek(btree_cursor *c, const void *key, size_t klen, int *exact) {
    cur_unpin(c);
    c->valid = 0;
    if (exact) *exact = 0;
    uint32_t idx;
    int eq;
    int rc = descend(&c->b, key, klen, &c->leaf, &idx, &eq);
    if (rc) {
        c->leaf.pg = NULL;
        return rc;
    }
    if (idx < c->leaf.n) {
        if (exact) *exact = eq;
        return cur_settle(c);
    }
    if (c->leaf.n == 0) {
        cur_unpin(c);
        if (c->b.depth > 1) return corruptf(c->b.err, c->b.path[c->b.depth - 1].pgno, "empty leaf below the root");
        return STRATA_OK;
    }
    c->b.path[c->b.depth - 1].idx = c->leaf.n - 1; /* every key here is smaller: the next leaf */
    return cur_step(c, 1);
}

int btree_cursor_next(btree_cursor *c) { return c->valid ? cur_step(c, 1) : STRATA_OK; }

int btree_cursor_skip(btree_cursor *c, uint32_t max, uint32_t *n) {
    *n = 0;
    while (c->valid && *n < max) {
        int rc = cur_pin(c);
        if (rc) return rc;
        bt_level *lf = &c->b.path[c->b.depth - 1];
        uint32_t left = c->leaf.n - lf->idx; /* the current entry and those after it in this leaf */
        if (left > max - *n) {               /* stop inside the leaf */
            lf->idx += max - *n;
            *n = max;
            return cur_settle(c);
        }
        *n += left;
        lf->idx = c->leaf.n - 1;
        if ((rc = cur_step(c, 1))) return rc; /* into the next leaf, or past the end */
    }
    return STRATA_OK;
}

int btree_cursor_entry(btree_cursor *c, const uint8_t **key, size_t *klen, const uint8_t **val, size_t *vlen) {
    if (!c->valid) return STRATA_DONE;
    if (!c->write && !c->cell.ovfl) { /* the common case: everything is in the pinned leaf */
        *key = c->key;
        *klen = c->klen;
        *val = c->cell.val;
        *vlen = c->cell.vlen;
        return STRATA_OK;
    }
    *key = c->key;
    *klen = c->klen;
    return btree_cursor_value(c, val, vlen);
}
int btree_cursor_prev(btree_cursor *c) { return c->valid ? cur_step(c, -1) : STRATA_OK; }
int btree_cursor_valid(const btree_cursor *c) { return c->valid; }

int btree_cursor_key(btree_cursor *c, const uint8_t **key, size_t *klen) {
    if (!c->valid) return err_set(c->b.err, STRATA_MISUSE, "btree_cursor_key on a cursor without an entry");
    *key = c->key;
    *klen = c->klen;
    return STRATA_OK;
}

int btree_cursor_value(btree_cursor *c, const uint8_t **val, size_t *vlen) {
    if (!c->valid) return err_set(c->b.err, STRATA_MISUSE, "btree_cursor_value on a cursor without an entry");
    int rc = cur_pin(c);
    if (rc) return rc;
    cellv cv = c->cell;
    if (c->write && (rc = node_cell(&c->b, &c->leaf, c->b.path[c->b.depth - 1].idx, &cv))) goto fail;
    if (!cv.ovfl && !c->write) {
        *val = cv.val;
        *vlen = cv.vlen;
        return STRATA_OK;
    }
    if ((rc = buf_reserve(&c->vbuf, cv.vlen ? cv.vlen : 1, c->b.err))) goto fail;
    if (cv.ovfl)
        rc = read_chain(&c->b, c->leaf.pgno, cv.ovpg, cv.vlen, c->vbuf.data);
    else if (cv.vlen)
        memcpy(c->vbuf.data, cv.val, cv.vlen);
    if (rc) goto fail;
    c->vbuf.len = cv.vlen;
    if (c->write) cur_unpin(c);
    *val = c->vbuf.data;
    *vlen = cv.vlen;
    return STRATA_OK;
fail:
    if (c->write) cur_unpin(c);
    return rc;
}

/* ---- bulk load ---------------------------------------------------------------------------- */

typedef struct load_level {
    uint8_t *buf;    /* the page being filled (usable bytes), then two cell buffers */
    node nd;         /* its header view (nd.pg unused) */
    uint64_t pages;  /* pages of this level already written */
} load_level;

struct btree_loader {
    bt b;
    int rc;                 /* first error; the loader refuses further entries */
    int nlevels;
    load_level lv[BT_MAX_DEPTH];
    btree_buf last;         /* the last key added */
    uint64_t count;
    pglist owned;           /* every page written, to free on abort */
    uint8_t cell[BT_CELL_BUF];
    uint8_t sep[BT_CELL_BUF];
};

static int load_level_open(btree_loader *l, int level) {
    load_level *x = &l->lv[level];
    x->buf = malloc(l->b.usable + 2 * (size_t)BT_CELL_BUF);
    if (!x->buf) return err_set(l->b.err, STRATA_NOMEM, "out of memory (bulk load)");
    page_build(x->buf, l->b.usable, level ? BT_PAGE_INTERIOR : BT_PAGE_LEAF, level, NULL, 0, 0);
    x->nd.pg = NULL;
    x->nd.d = x->buf;
    x->nd.pgno = 0;
    x->nd.type = level ? BT_PAGE_INTERIOR : BT_PAGE_LEAF;
    x->nd.level = level;
    x->nd.n = 0;
    x->nd.cstart = l->b.usable;
    x->nd.frag = 0;
    x->pages = 0;
    l->nlevels = level + 1;
    return STRATA_OK;
}

/* load_flush writes the page being built at level to a new pager page and starts it over. */
static int load_flush(btree_loader *l, int level, pgno_t *out) {
    load_level *x = &l->lv[level];
    page *pg;
    int rc = pager_alloc(l->b.t, &pg);
    if (rc) return rc;
    if ((rc = pglist_add(&l->owned, pg->pgno, l->b.err))) {
        pgno_t p = pg->pgno;
        pager_release(l->b.t, pg);
        (void)pager_free(l->b.t, p);
        return rc;
    }
    memcpy(pg->data, x->buf, l->b.usable);
    *out = pg->pgno;
    pager_release(l->b.t, pg);
    page_build(x->buf, l->b.usable, x->nd.type, level, NULL, 0, 0);
    x->nd.n = 0;
    x->nd.cstart = l->b.usable;
    x->nd.frag = 0;
    x->pages++;
    return STRATA_OK;
}

/* load_push hands level (>= 1) a finished child and the separator above all its keys. */
static int load_push(btree_loader *l, int level, pgno_t child, const uint8_t *sep, uint32_t seplen) {
    int rc;
    if (level >= BT_MAX_DEPTH) return err_set(l->b.err, STRATA_FULL, "bulk load: tree too deep");
    if (level >= l->nlevels && (rc = load_level_open(l, level))) return rc;
    load_level *x = &l->lv[level];
    uint8_t *cell = x->buf + l->b.usable, *up = cell + BT_CELL_BUF;
    uint32_t len = interior_cell_build(cell, child, sep, seplen);
    if (node_free_space(&x->nd) < len + 2) {
        /* the last cell's child becomes the rightmost; its separator moves up; the new page
        ** starts with the new cell, so no interior page is ever left without separators */
        cellv lastc;
        if ((rc = node_cell(&l->b, &x->nd, x->nd.n - 1, &lastc))) return rc;
        memcpy(up, lastc.key, lastc.klen);
        uint32_t uplen = lastc.klen;
        put32(x->buf + BT_OFF_RIGHT, lastc.child);
        if ((rc = node_remove(&l->b, &x->nd, x->nd.n - 1))) return rc;
        pgno_t done;
        if ((rc = load_flush(l, level, &done))) return rc;
        if ((rc = load_push(l, level + 1, done, up, uplen))) return rc;
    }
    return node_insert(&l->b, &x->nd, x->nd.n, cell, len);
}

int btree_load_begin(pager_txn *t, pgno_t root, btree_loader **out) {
    *out = NULL;
    strata_err *err = pager_txn_err(t);
    if (!pager_txn_is_write(t)) return err_set(err, STRATA_READONLY, "btree_load_begin in a read transaction");
    btree_loader *l = calloc(1, sizeof *l);
    if (!l) return err_set(err, STRATA_NOMEM, "out of memory (bulk load)");
    bt_init(&l->b, t, root);
    node r;
    int rc = node_get(&l->b, root, 0, -1, &r);
    if (rc) goto fail;
    int empty = r.type == BT_PAGE_LEAF && r.n == 0;
    node_release(&l->b, &r);
    if (!empty) {
        rc = err_set(err, STRATA_MISUSE, "btree_load_begin: tree %u is not empty", root);
        goto fail;
    }
    if ((rc = load_level_open(l, 0))) goto fail;
    *out = l;
    return STRATA_OK;
fail:
    free(l->lv[0].buf);
    free(l);
    return rc;
}

int btree_load_add(btree_loader *l, const void *key, size_t klen, const void *val, size_t vlen) {
    if (l->rc) return l->rc;
    bt *b = &l->b;
    int rc;
    if (klen > b->max_cell - 12) {
        rc = err_set(b->err, STRATA_TOOBIG, "key of %zu bytes exceeds the limit of %u bytes", klen, b->max_cell - 12);
        goto fail;
    }
    if (vlen > BTREE_MAX_VALUE) {
        rc = err_set(b->err, STRATA_TOOBIG, "value of %zu bytes exceeds the limit of %u bytes", vlen,
                     (unsigned)BTREE_MAX_VALUE);
        goto fail;
    }
    if (l->count && key_cmp(l->last.data, l->last.len, key, klen) >= 0) {
        rc = err_set(b->err, STRATA_MISUSE, "bulk load: keys not in strictly increasing order (entry %llu)",
                     (unsigned long long)l->count);
        goto fail;
    }
    int ovfl = leaf_value_overflows(b, klen, vlen);
    pgno_t first = 0;
    if (ovfl && (rc = write_chain(b, val, vlen, &first, &l->owned))) goto fail;
    uint32_t len = leaf_cell_build(l->cell, key, klen, val, vlen, ovfl, first);
    load_level *x = &l->lv[0];
    if (node_free_space(&x->nd) < len + 2) {
        uint32_t seplen = sep_len(l->last.data, (uint32_t)l->last.len, key, (uint32_t)klen);
        memcpy(l->sep, key, seplen);
        pgno_t done;
        if ((rc = load_flush(l, 0, &done)) || (rc = load_push(l, 1, done, l->sep, seplen))) goto fail;
    }
    if ((rc = node_insert(b, &x->nd, x->nd.n, l->cell, len))) goto fail;
    if ((rc = buf_reserve(&l->last, klen + 1, b->err))) goto fail;
    if (klen) memcpy(l->last.data, key, klen);
    l->last.len = klen;
    l->count++;
    return STRATA_OK;
fail:
    l->rc = rc;
    return rc;
}

void btree_load_abort(btree_loader *l) {
    if (!l) return;
    for (size_t i = 0; i < l->owned.n; i++) (void)pager_free(l->b.t, l->owned.v[i]);
    for (int i = 0; i < l->nlevels; i++) free(l->lv[i].buf);
    free(l->owned.v);
    btree_buf_free(&l->last);
    free(l);
}

int btree_load_finish(btree_loader *l) {
    int rc = l->rc;
    if (rc) goto fail;
    /* each level's last page goes up as the final child of the level above; the first level that
    ** wrote no page before holds the only page of its level: the root's new content */
    pgno_t last = 0;
    int top = -1;
    for (int lv = 0; lv < l->nlevels && top < 0; lv++) {
        load_level *x = &l->lv[lv];
        if (lv > 0) put32(x->buf + BT_OFF_RIGHT, last);
        if (x->pages == 0)
            top = lv;
        else if ((rc = load_flush(l, lv, &last)))
            goto fail;
    }
    if (top < 0) {
        rc = err_set(l->b.err, STRATA_MISUSE, "bulk load: no top level (internal error)");
        goto fail;
    }
    if (l->count > 0) {
        node r;
        if ((rc = node_get(&l->b, l->b.root, 1, -1, &r))) goto fail;
        memcpy(r.d, l->lv[top].buf, l->b.usable);
        node_release(&l->b, &r);
    }
    for (int i = 0; i < l->nlevels; i++) free(l->lv[i].buf);
    free(l->owned.v);
    btree_buf_free(&l->last);
    free(l);
    return STRATA_OK;
fail:
    btree_load_abort(l);
    return rc;
}

/* ---- integrity check and statistics ------------------------------------------------------- */

typedef struct checker {
    bt b;
    int (*mark)(void *arg, pgno_t pgno);
    void *arg;
    btree_buf *report;
    uint64_t *problems;
    uint8_t *seen;
    int had_err;       /* the transaction had an error before the check */
    uint32_t *spans;   /* offset/size pairs of one page's cells */
} checker;

static void problem(checker *ck, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void btree_buf_append_linev(btree_buf *b, const char *fmt, va_list ap) {
    char line[STRATA_ERRMSG_MAX + 64];
    int n = vsnprintf(line, sizeof line, fmt, ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof line) n = sizeof line - 1;
    if (buf_reserve(b, b->len + (size_t)n + 2, NULL)) return;
    memcpy(b->data + b->len, line, (size_t)n);
    b->len += (size_t)n;
    b->data[b->len++] = '\n';
    b->data[b->len] = '\0';
}

static void problem(checker *ck, const char *fmt, ...) {
    (*ck->problems)++;
    if (!ck->report || *ck->problems > BT_REPORT_MAX_LINES) return;
    va_list ap;
    va_start(ap, fmt);
    btree_buf_append_linev(ck->report, fmt, ap);
    va_end(ap);
}

/* take_corrupt turns a CORRUPT error just recorded on the transaction into a problem line. */
static int take_corrupt(checker *ck, int rc, pgno_t pgno) {
    if (rc != STRATA_CORRUPT) return rc;
    if (!ck->had_err) {
        problem(ck, "%s", ck->b.err->msg);
        err_clear(ck->b.err);
    } else {
        problem(ck, "page %u: unreadable or malformed", pgno);
    }
    return STRATA_OK;
}

/* ck_visit marks pgno for the caller and returns 1 when the walk should enter it (first visit). */
static int ck_visit(checker *ck, pgno_t pgno, int *rc) {
    *rc = ck->mark ? ck->mark(ck->arg, pgno) : STRATA_OK;
    if (*rc) return 0;
    if (ck->seen[pgno >> 3] & (1u << (pgno & 7))) {
        if (!ck->mark) problem(ck, "page %u: reached twice in the tree", pgno);
        return 0;
    }
    ck->seen[pgno >> 3] |= (uint8_t)(1u << (pgno & 7));
    return 1;
}

static int check_chain(checker *ck, pgno_t owner, uint32_t cell, pgno_t first, uint64_t vlen) {
    bt *b = &ck->b;
    uint64_t want = (vlen + ovfl_cap(b) - 1) / ovfl_cap(b), got = 0;
    pgno_t pg = first, prev = owner;
    int rc = STRATA_OK;
    while (pg) {
        if (got == want) {
            problem(ck, "page %u: overflow chain of cell %u is longer than its %llu-byte value", owner, cell,
                    (unsigned long long)vlen);
            return STRATA_OK;
        }
        if (!pgno_ok(b, pg)) {
            problem(ck, "page %u: overflow chain of page %u cell %u reaches page %u, out of range", prev, owner, cell,
                    pg);
            return STRATA_OK;
        }
        if (!ck_visit(ck, pg, &rc)) return rc;
        page *p;
        if ((rc = pager_get(b->t, pg, &p))) return take_corrupt(ck, rc, pg);
        int type = p->data[0];
        pgno_t next = get32(p->data + BT_OVFL_OFF_NEXT);
        pager_release(b->t, p);
        if (type != BT_PAGE_OVERFLOW) {
            problem(ck, "page %u: overflow page of page %u cell %u has type 0x%02x", pg, owner, cell, (unsigned)type);
            return STRATA_OK;
        }
        got++;
        prev = pg;
        pg = next;
    }
    if (got < want)
        problem(ck, "page %u: overflow chain of cell %u has %llu pages, its %llu-byte value needs %llu", owner,
                cell, (unsigned long long)got, (unsigned long long)vlen, (unsigned long long)want);
    return STRATA_OK;
}

static int cmp_span(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* check_page checks the subtree at pgno: every key k must satisfy lo <= k < hi (NULL: no bound). */
static int check_page(checker *ck, pgno_t pgno, int level, const uint8_t *lo, uint32_t lol, const uint8_t *hi,
                      uint32_t hil) {
    bt *b = &ck->b;
    int rc;
    if (!ck_visit(ck, pgno, &rc)) return rc;
    page *pg;
    if ((rc = pager_get(b->t, pgno, &pg))) return take_corrupt(ck, rc, pgno);
    node nd;
    if ((rc = node_parse(b, pg, &nd))) {
        pager_release(b->t, pg);
        return take_corrupt(ck, rc, pgno);
    }
    if (level >= 0 && nd.level != level) {
        problem(ck, "page %u: level %d where level %d was expected (leaves at unequal depths)", pgno, nd.level,
                level);
        goto done;
    }
    int is_root = pgno == b->root;
    if (nd.n == 0 && (!is_root || nd.type == BT_PAGE_INTERIOR)) problem(ck, "page %u: empty page", pgno);
    uint64_t bytes = 0;
    const uint8_t *pk = NULL;
    uint32_t pkl = 0;
    for (uint32_t i = 0; i < nd.n; i++) {
        uint32_t off = get16(nd.d + BT_HDR_SIZE + 2 * i);
        cellv cv;
        if (off < nd.cstart || off >= b->usable || parse_cell(nd.type, nd.d + off, nd.d + b->usable, &cv)) {
            problem(ck, "page %u: cell %u (offset %u) out of bounds or malformed", pgno, i, off);
            goto done;
        }
        ck->spans[2 * i] = off;
        ck->spans[2 * i + 1] = cv.size;
        bytes += cv.size;
        if (pk && key_cmp(pk, pkl, cv.key, cv.klen) >= 0) problem(ck, "page %u: keys out of order at cell %u", pgno, i);
        if (lo && key_cmp(cv.key, cv.klen, lo, lol) < 0)
            problem(ck, "page %u: key of cell %u below its parent's separator", pgno, i);
        if (hi && key_cmp(cv.key, cv.klen, hi, hil) >= 0)
            problem(ck, "page %u: key of cell %u not below its parent's separator", pgno, i);
        pk = cv.key;
        pkl = cv.klen;
        if (nd.type == BT_PAGE_LEAF) {
            if (cv.klen > b->max_cell - 12) problem(ck, "page %u: key of cell %u too long", pgno, i);
            if (cv.ovfl != leaf_value_overflows(b, cv.klen, cv.vlen))
                problem(ck, "page %u: cell %u stores its %llu-byte value %s", pgno, i, (unsigned long long)cv.vlen,
                        cv.ovfl ? "in overflow pages though it fits" : "locally though it is too large");
        } else if (cv.size > b->max_cell) {
            problem(ck, "page %u: separator of cell %u too long", pgno, i);
        }
    }
    qsort(ck->spans, nd.n, 2 * sizeof *ck->spans, cmp_span);
    for (uint32_t i = 0; i + 1 < nd.n; i++)
        if (ck->spans[2 * i] + ck->spans[2 * i + 1] > ck->spans[2 * i + 2]) {
            problem(ck, "page %u: cells overlap at offset %u", pgno, ck->spans[2 * i + 2]);
            break;
        }
    if (bytes + nd.frag != b->usable - nd.cstart)
        problem(ck, "page %u: free space accounting is off (%llu cell bytes, %u fragmented, content from %u)",
                pgno, (unsigned long long)bytes, nd.frag, nd.cstart);
    for (uint32_t i = 0; i < nd.n + (nd.type == BT_PAGE_INTERIOR) && rc == STRATA_OK; i++) {
        cellv cv;
        if (i < nd.n && node_cell(b, &nd, i, &cv)) break; /* cannot happen: checked above */
        if (nd.type == BT_PAGE_LEAF) {
            if (cv.ovfl) rc = check_chain(ck, pgno, i, cv.ovpg, cv.vlen);
            continue;
        }
        pgno_t c = i < nd.n ? cv.child : get32(nd.d + BT_OFF_RIGHT);
        if (!pgno_ok(b, c)) {
            problem(ck, "page %u: child %u is page %u, out of range", pgno, i, c);
            continue;
        }
        const uint8_t *clo = lo, *chi = hi;
        uint32_t clol = lol, chil = hil;
        if (i > 0) {
            cellv pv;
            (void)node_cell(b, &nd, i - 1, &pv);
            clo = pv.key;
            clol = pv.klen;
        }
        if (i < nd.n) {
            chi = cv.key;
            chil = cv.klen;
        }
        rc = check_page(ck, c, nd.level - 1, clo, clol, chi, chil);
    }
done:
    pager_release(b->t, pg);
    return rc;
}

int btree_check(pager_txn *t, pgno_t root, int (*mark)(void *arg, pgno_t pgno), void *arg, btree_buf *report,
                uint64_t *problems) {
    checker ck;
    uint64_t count = 0;
    memset(&ck, 0, sizeof ck);
    bt_init(&ck.b, t, root);
    ck.mark = mark;
    ck.arg = arg;
    ck.report = report;
    ck.problems = problems ? problems : &count;
    *ck.problems = 0;
    ck.had_err = ck.b.err->code != STRATA_OK;
    if (report && buf_reserve(report, report->len + 1, ck.b.err) == STRATA_OK) report->data[report->len] = '\0';
    if (!pgno_ok(&ck.b, root)) {
        problem(&ck, "page %u: tree root out of range", root);
        return STRATA_OK;
    }
    ck.seen = calloc(ck.b.npages / 8 + 1, 1);
    ck.spans = malloc((ck.b.usable / 2 + 1) * 2 * sizeof *ck.spans);
    int rc = STRATA_OK;
    if (!ck.seen || !ck.spans)
        rc = err_set(ck.b.err, STRATA_NOMEM, "out of memory (integrity check)");
    else
        rc = check_page(&ck, root, -1, NULL, 0, NULL, 0);
    free(ck.seen);
    free(ck.spans);
    return rc;
}

/* stats_page adds the subtree at pgno to st; seen guards against pages reached twice. */
static int stats_page(bt *b, pgno_t pgno, int level, uint8_t *seen, btree_stats *st, double *fill) {
    if (seen[pgno >> 3] & (1u << (pgno & 7))) return corruptf(b->err, pgno, "page reached twice in the tree");
    seen[pgno >> 3] |= (uint8_t)(1u << (pgno & 7));
    node nd;
    int rc = node_get(b, pgno, 0, level, &nd);
    if (rc) return rc;
    if ((uint64_t)nd.level + 1 > st->depth) st->depth = (uint64_t)nd.level + 1;
    if (nd.type == BT_PAGE_LEAF) {
        st->leaf_pages++;
        st->entries += nd.n;
        *fill += (double)(b->cap - node_free_space(&nd)) / b->cap;
        for (uint32_t i = 0; i < nd.n && rc == STRATA_OK; i++) {
            cellv cv;
            if ((rc = node_cell(b, &nd, i, &cv)) == STRATA_OK && cv.ovfl)
                st->overflow_pages += (cv.vlen + ovfl_cap(b) - 1) / ovfl_cap(b);
        }
    } else {
        st->interior_pages++;
        for (uint32_t i = 0; i <= nd.n && rc == STRATA_OK; i++) {
            pgno_t c;
            if ((rc = node_child(b, &nd, i, &c)) == STRATA_OK) rc = stats_page(b, c, nd.level - 1, seen, st, fill);
        }
    }
    node_release(b, &nd);
    return rc;
}

int btree_get_stats(pager_txn *t, pgno_t root, btree_stats *out) {
    bt b;
    bt_init(&b, t, root);
    memset(out, 0, sizeof *out);
    if (!pgno_ok(&b, root)) return corruptf(b.err, root, "tree root out of range");
    uint8_t *seen = calloc(b.npages / 8 + 1, 1);
    if (!seen) return err_set(b.err, STRATA_NOMEM, "out of memory (btree_get_stats)");
    double fill = 0;
    int rc = stats_page(&b, root, -1, seen, out, &fill);
    free(seen);
    out->leaf_fill = out->leaf_pages ? fill / (double)out->leaf_pages : 0;
    return rc;
}

/* ---- where the leaves begin ------------------------------------------------------------- */

typedef struct leaf_walk {
    bt b;
    const uint8_t *lo, *hi; /* the key range, NULL: open */
    size_t lol, hil;
    int (*fn)(void *arg, const uint8_t *key, size_t klen);
    void *arg;
    uint64_t per_leaf;
    bool sampled; /* the first leaf was read (per_leaf set) */
} leaf_walk;

/* walk_leaf_starts hands w->fn the separators between the leaves under page pgno (at level, -1:
** any) that may hold keys in w's range: child i of an interior page holds the keys from sep[i-1]
** up to (not including) sep[i]. Pages of level 1 are read, their leaves not (but the first). */
static int walk_leaf_starts(leaf_walk *w, pgno_t pgno, int level) {
    node nd;
    int rc = node_get(&w->b, pgno, 0, level, &nd);
    if (rc) return rc;
    if (nd.type == BT_PAGE_LEAF) {
        w->per_leaf = nd.n;
        w->sampled = true;
    }
    for (uint32_t i = 0; nd.type == BT_PAGE_INTERIOR && i <= nd.n; i++) {
        const uint8_t *k = NULL;
        uint32_t kl = 0;
        if (i < nd.n && (rc = node_key(&w->b, &nd, i, &k, &kl))) break;
        if (i < nd.n && w->lo && key_cmp(k, kl, w->lo, w->lol) <= 0) continue; /* child i: keys below lo */
        pgno_t child;
        if ((nd.level > 1 || !w->sampled) &&
            ((rc = node_child(&w->b, &nd, i, &child)) || (rc = walk_leaf_starts(w, child, nd.level - 1))))
            break;
        if (i == nd.n || (w->hi && key_cmp(k, kl, w->hi, w->hil) > 0)) break; /* child i + 1: keys above hi */
        if ((rc = w->fn(w->arg, k, kl))) break;
    }
    node_release(&w->b, &nd);
    return rc;
}

int btree_leaf_starts(pager_txn *t, pgno_t root, const void *lo, size_t lol, const void *hi, size_t hil,
                      int (*fn)(void *arg, const uint8_t *key, size_t klen), void *arg, uint64_t *per_leaf) {
    leaf_walk w = {.lo = lo, .hi = hi, .lol = lol, .hil = hil, .fn = fn, .arg = arg};
    bt_init(&w.b, t, root);
    *per_leaf = 0;
    if (!pgno_ok(&w.b, root)) return corruptf(w.b.err, root, "tree root out of range");
    int rc = walk_leaf_starts(&w, root, -1);
    *per_leaf = w.per_leaf;
    return rc;
}

/* ---- whole-file check --------------------------------------------------------------------- */

#define BTREE_REPORT_MAX_LINES 1000

typedef struct accounting {
    uint8_t *owned;  /* bitmap over the pages */
    pgno_t npages;
    btree_buf *report;
    uint64_t problems;
} accounting;

static void acc_problem(accounting *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void acc_problem(accounting *a, const char *fmt, ...) {
    a->problems++;
    if (!a->report || a->problems > BTREE_REPORT_MAX_LINES) return;
    va_list ap;
    va_start(ap, fmt);
    btree_buf_append_linev(a->report, fmt, ap);
    va_end(ap);
}

static int acc_mark(void *arg, pgno_t pgno) {
    accounting *a = arg;
    if (pgno == 0 || pgno >= a->npages) {
        acc_problem(a, "page %u: referenced but out of range (%u pages)", pgno, a->npages);
        return STRATA_OK;
    }
    if (a->owned[pgno >> 3] & (1u << (pgno & 7)))
        acc_problem(a, "page %u: owned twice (by the tree and the free list, or twice by one of them)", pgno);
    a->owned[pgno >> 3] |= (uint8_t)(1u << (pgno & 7));
    return STRATA_OK;
}

static int acc_mark_free(void *arg, pgno_t pgno, int is_trunk) {
    (void)is_trunk;
    return acc_mark(arg, pgno);
}

int btree_check_file(pager_txn *pt, const pgno_t *roots, uint32_t nroots, btree_buf *report, uint64_t *problems,
                     strata_err *err) {
    strata_err *te = pager_txn_err(pt);
    accounting a;
    memset(&a, 0, sizeof a);
    a.report = report;
    a.npages = pager_page_count(pt);
    a.owned = calloc(a.npages / 8 + 1, 1);
    int rc = STRATA_OK;
    *problems = 0;
    if (!a.owned) return err_set(err, STRATA_NOMEM, "out of memory (integrity check)");
    for (uint32_t r = 0; r < nroots; r++) {
        if (roots[r] >= a.npages) {
            acc_problem(&a, "tree root %u out of range", roots[r]);
            continue;
        }
        uint64_t tree_problems = 0;
        rc = btree_check(pt, roots[r], acc_mark, &a, report, &tree_problems);
        a.problems += tree_problems;
        if (rc) {
            err_set(err, te->code ? te->code : rc, "%s", te->code ? te->msg : strata_errstr(rc));
            goto done;
        }
    }
    rc = pager_freelist_walk(pt, acc_mark_free, &a);
    if (rc == STRATA_CORRUPT) { /* a damaged free list is a finding, not a reason to stop */
        acc_problem(&a, "%s", te->msg);
        err_clear(te);
        rc = STRATA_OK;
    } else if (rc) {
        err_set(err, te->code ? te->code : rc, "%s", te->code ? te->msg : strata_errstr(rc));
        goto done;
    }
    for (pgno_t pg = 1; pg < a.npages; pg++)
        if (!(a.owned[pg >> 3] & (1u << (pg & 7))))
            acc_problem(&a, "page %u: leaked (neither in a tree nor on the free list)", pg);
done:
    free(a.owned);
    *problems = a.problems;
    return rc;
}

/* ---- salvage: reading what is readable of a damaged tree ------------------------------------ */

typedef struct salvager {
    bt b;
    const btree_salvage_fns *fn;
    uint8_t *seen; /* pages entered, one bit each (none is entered twice: no cycles) */
    btree_buf val; /* an overflowed value, assembled */
} salvager;

/* salvage_lost reports page pgno lost with the message the transaction recorded, and clears it. */
static void salvage_lost(salvager *s, pgno_t pgno) {
    if (s->fn->lost) s->fn->lost(s->fn->arg, pgno, s->b.err->code ? s->b.err->msg : "unreadable");
    err_clear(s->b.err);
}

/* salvage_leaf hands every readable entry of leaf nd to the entry callback. A cell that does not
** parse, or whose overflow chain does not read, is reported lost (naming the page) and skipped. */
static int salvage_leaf(salvager *s, node *nd) {
    int rc = STRATA_OK;
    for (uint32_t i = 0; i < nd->n && rc == STRATA_OK; i++) {
        cellv cv;
        if (node_cell(&s->b, nd, i, &cv)) {
            salvage_lost(s, nd->pgno);
            continue;
        }
        const uint8_t *val = cv.val;
        if (cv.ovfl) {
            if ((rc = buf_reserve(&s->val, cv.vlen ? cv.vlen : 1, s->b.err))) break;
            if (read_chain(&s->b, nd->pgno, cv.ovpg, cv.vlen, s->val.data)) {
                if (s->b.err->code == STRATA_NOMEM) return STRATA_NOMEM;
                salvage_lost(s, nd->pgno);
                continue;
            }
            val = s->val.data;
        }
        if (s->fn->entry) rc = s->fn->entry(s->fn->arg, cv.key, cv.klen, val, (size_t)cv.vlen);
    }
    return rc;
}

static int salvage_page(salvager *s, pgno_t pgno, int level) {
    if (!pgno_ok(&s->b, pgno)) {
        corruptf(s->b.err, pgno, "child page number out of range");
        salvage_lost(s, pgno);
        return STRATA_OK;
    }
    if (s->seen[pgno >> 3] & (1u << (pgno & 7))) {
        corruptf(s->b.err, pgno, "page reached twice in the tree");
        salvage_lost(s, pgno);
        return STRATA_OK;
    }
    s->seen[pgno >> 3] |= (uint8_t)(1u << (pgno & 7));
    if (s->fn->visit) s->fn->visit(s->fn->arg, pgno);
    node nd;
    int rc = node_get(&s->b, pgno, 0, level, &nd);
    if (rc) {
        if (rc == STRATA_NOMEM) return rc;
        salvage_lost(s, pgno);
        return STRATA_OK;
    }
    if (nd.type == BT_PAGE_LEAF) {
        rc = salvage_leaf(s, &nd);
    } else {
        for (uint32_t i = 0; i <= nd.n && rc == STRATA_OK; i++) {
            pgno_t c;
            if (node_child(&s->b, &nd, i, &c)) {
                salvage_lost(s, pgno);
                continue;
            }
            rc = salvage_page(s, c, nd.level - 1);
        }
    }
    node_release(&s->b, &nd);
    return rc;
}

int btree_salvage(pager_txn *t, pgno_t root, const btree_salvage_fns *fn) {
    salvager s = {.fn = fn};
    bt_init(&s.b, t, root);
    if (!(s.seen = calloc(s.b.npages / 8 + 1, 1))) return err_set(s.b.err, STRATA_NOMEM, "out of memory (btree_salvage)");
    int rc = salvage_page(&s, root, -1);
    free(s.seen);
    btree_buf_free(&s.val);
    return rc;
}

int btree_salvage_leaf(pager_txn *t, pgno_t pgno, const btree_salvage_fns *fn, int *is_leaf) {
    salvager s = {.fn = fn};
    bt_init(&s.b, t, pgno);
    *is_leaf = 0;
    node nd;
    if (!pgno_ok(&s.b, pgno)) return STRATA_OK;
    int rc = node_get(&s.b, pgno, 0, 0, &nd);
    if (rc) {
        err_clear(s.b.err);
        return rc == STRATA_NOMEM ? rc : STRATA_OK;
    }
    *is_leaf = 1;
    rc = salvage_leaf(&s, &nd);
    node_release(&s.b, &nd);
    btree_buf_free(&s.val);
    return rc;
}
