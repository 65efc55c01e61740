/*
** pager.c -- the page cache, the write-ahead log, snapshots and transactions; see pager.h and
** docs/ARCHITECTURE.md for the file formats and the commit, recovery and checkpoint protocols.
**
** Inside the library the pager is the only code that touches the database file and the WAL.
** It does not interpret page contents (the B+tree does), except page 0, the database header,
** and the free-list trunk pages.
**
** Concurrency. One mutex (mu) guards the shared state: the WAL index, the snapshot list and the
** page cache. Page I/O happens outside it, validated optimistically: a reader notes the epoch when
** it decides where a page version lives, and after the read checks that no checkpoint began
** rewriting the database file or restarted the WAL meanwhile (either bumps the epoch); if one
** did, it decides again, and finds the private copy the checkpoint preserved for its snapshot.
** The writer role is a flag under mu (not a mutex) so that a write transaction may end on
** another thread than it began on.
**
** Versions. A page version is named by a 64-bit number: 0 for the database file's copy and
** (generation << 32 | frame + 1) for a WAL frame. The WAL generation grows each time the WAL
** starts over, so a version number is never reused and cache entries never go stale silently.
*/
#include "pager.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crc32c.h"
#include "pgmap.h"

/* ---- file formats ---------------------------------------------------------------------- */

static const char DB_MAGIC[16] = "strata database";   /* 15 chars and a NUL */
#define H_VERSION 16
#define H_PAGE_SIZE 20
#define H_NPAGES 24
#define H_FREE_HEAD 28
#define H_FREE_COUNT 32
#define H_META 40 /* PAGER_META_SLOTS u64 values */

static const char WAL_MAGIC[8] = {'s', 't', 'r', 'a', 't', 'W', 'A', 'L'};
#define WAL_HDR 32 /* magic, u32 version, u32 page size, u64 salt, u32 crc; padded to a page */
/* The reserved tail of a page: its checksum, then the frame header when the page is a WAL frame,
** so that a frame is exactly one page and frames stay aligned to file-system blocks. */
#define T_CRC 0
#define T_PGNO 4
#define T_COMMIT 8   /* page count after the commit, on the last frame of a transaction; else 0 */
#define T_SALT 12
#define T_FRAME 20
#define T_SEQ 24
#define T_FCRC 28    /* crc32c of tail bytes 0..28 */

#define NO_FRAME UINT32_MAX

static inline uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline uint64_t get64(const uint8_t *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }
static inline void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }

/* ---- structures ------------------------------------------------------------------------- */

enum { ENTRY_CLEAN, ENTRY_DIRTY, ENTRY_PRESERVED };

/* A page image in memory: a cached committed version, a transaction's dirty copy, or a copy a
** snapshot preserved before a checkpoint overwrote it. pg must stay the first member. */
typedef struct pentry {
    page pg;
    uint64_t version;
    uint32_t pins;
    uint8_t kind;
    uint8_t stale;              /* clean entry dropped from the hash while pinned */
    uint8_t ref;                /* used since the clock hand last passed (CLOCK eviction) */
    struct pentry *hnext;       /* hash chain */
    struct pentry *lprev, *lnext; /* the clock ring of cached clean entries */
} pentry;

/* One committed state of the database. Transactions that begin with no commit in between share
** one snapshot. */
typedef struct snapshot {
    uint64_t gen;       /* WAL generation it was taken in */
    uint32_t mx;        /* committed frames of that generation it sees */
    uint32_t npages;    /* its page count (0 until a transaction read its header) */
    int detached;       /* the WAL started over since: read preserved copies, else the file */
    int refs;
    pgmap preserved;    /* pgno -> pentry* copied before a checkpoint overwrote it */
    struct snapshot *next;
} snapshot;

struct pager {
    vfs *vfs;
    vfs_file *db, *wal;
    char *path, *wal_path;
    uint32_t page_size;
    pager_config cfg;

    pthread_mutex_t mu;
    pthread_cond_t writer_cv;
    pthread_mutex_t sync_mu;
    pthread_mutex_t pool_mu;  /* guards pool: freed entries kept for reuse (see entry_free) */
    pentry *pool;
    uint32_t npool;
    int writer_active;
    int poisoned;             /* an fsync failed: refuse further writes until reopened */
    int locked;               /* this handle holds the file lock */
    int opened;               /* pager_open completed */
    int wal_existed;          /* the WAL file was there before this handle opened it */
    char wal_damage[STRATA_ERRMSG_MAX]; /* read-only: why part of the WAL was left out ("" if none) */
    strata_err no_wal;        /* why there is no WAL (wal == NULL after open): reads only */
    uint64_t epoch;           /* bumped when a checkpoint starts writing or restarts the WAL */

    /* WAL state, under mu */
    uint64_t gen, salt;
    uint32_t mxc;             /* committed frames in this generation (the writer sees them) */
    uint32_t mxd;             /* of those, durable ones (readers see them); mxd <= mxc */
    uint32_t published_seq;   /* transaction number of the last published commit */
    uint32_t durable_seq;     /* ... of the last durable one */
    uint32_t undone_seq;      /* commits up to this number whose fsync failed were taken back */
    uint32_t *fpgno, *fprev;  /* per committed frame: its page, the page's previous frame */
    uint32_t fcap;
    pgmap last;               /* pgno -> last committed frame */
    int wal_hdr_written;
    uint32_t next_seq;
    uint64_t wal_end;         /* bytes of the WAL in use (header + frames written) */
    uint64_t wal_alloc;       /* size of the WAL file: written ahead with zeros, see wal_extend */

    snapshot *snaps, *cur;

    pentry **htab;
    uint32_t hcap, hcount;
    pentry lru;               /* sentinel of the clock ring; new entries go in after it */
    pentry *hand;             /* the clock hand: the next entry eviction looks at */
    size_t bytes_used;
    pager_stats st;
};

struct pager_txn {
    pager *p;
    int write;
    snapshot *snap;
    strata_err err; /* shared by the threads that read through t: see pager_txn_err in pager.h */
    /* header fields as this transaction sees them */
    uint32_t npages, free_head, free_count;
    uint64_t meta[PAGER_META_SLOTS];
    uint64_t meta_begin[PAGER_META_SLOTS]; /* ... and as committed when it began */
    int hdr_dirty;
    /* write transactions */
    uint32_t base_npages;     /* the page count it began with: pages from there on are new */
    pgmap dirty;              /* pgno -> pentry* */
    pgmap spilled;            /* pgno -> its latest spilled frame */
    uint32_t *spill_pgno;     /* pgno of every spilled frame, in frame order */
    uint32_t nspill, spill_cap;
    uint32_t seq;
    uint64_t tick;            /* counts uses of dirty pages, for spilling the least recent */
    size_t dirty_bytes;
    /* the savepoint (pager_savepoint): the header fields then, and for every page changed since
    ** its image then (a malloc'd copy) or SP_CLEAN when it was not this transaction's yet */
    int sp_active, sp_broken;
    uint32_t sp_nspill, sp_npages, sp_free_head, sp_free_count;
    uint64_t sp_meta[PAGER_META_SLOTS];
    int sp_hdr_dirty;
    pgmap sp_pages;
    void *sp_pool[16];        /* page copies of an earlier savepoint, for reuse */
    int sp_npool;
};

#define SP_CLEAN 1 /* sp_pages value of a page that had no private copy at the savepoint */

/* ---- small helpers ---------------------------------------------------------------------- */

static uint64_t frame_off(const pager *p, uint32_t frame) {
    return ((uint64_t)frame + 1) * p->page_size;
}
static uint64_t wal_version(uint64_t gen, uint32_t frame) { return gen << 32 | ((uint64_t)frame + 1); }

static uint8_t *tail(const pager *p, const uint8_t *data) { return (uint8_t *)data + p->page_size - PAGER_RESERVED; }
static uint32_t page_crc(const pager *p, const uint8_t *data) {
    return crc32c(0, data, p->page_size - PAGER_RESERVED);
}
/* page_seal stores the page checksum; the frame fields of the tail are left as they are. */
static void page_seal(const pager *p, uint8_t *data) { put32(tail(p, data) + T_CRC, page_crc(p, data)); }
static int page_ok(const pager *p, const uint8_t *data) { return get32(tail(p, data) + T_CRC) == page_crc(p, data); }

static uint64_t new_salt(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 48);
    static uint64_t counter;
    x ^= __atomic_add_fetch(&counter, 0x9E3779B97F4A7C15ull, __ATOMIC_RELAXED);
    x ^= x >> 31; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 29;
    return x ? x : 1;
}

/* A write transaction takes a new entry for each page it changes and its commit frees the
** pages' old versions, so a few freed entries are kept for the next one: fresh memory from the
** allocator would cost a page fault per 4 KiB when the page is copied in. Pooled entries are
** not counted in the cache's bytes. */
#define ENTRY_POOL_MAX 16

static pentry *entry_new(pager *p, pgno_t pgno, int kind) {
    pthread_mutex_lock(&p->pool_mu);
    pentry *e = p->pool;
    if (e) {
        p->pool = e->hnext;
        p->npool--;
    }
    pthread_mutex_unlock(&p->pool_mu);
    if (!e && !(e = malloc(sizeof(pentry) + 64 + p->page_size))) return NULL;
    memset(e, 0, sizeof *e);
    e->pg.pgno = pgno;
    e->pg.data = (uint8_t *)(((uintptr_t)(e + 1) + 63) & ~(uintptr_t)63);
    e->kind = (uint8_t)kind;
    return e;
}

static void entry_free(pager *p, pentry *e) {
    if (!e) return;
    pthread_mutex_lock(&p->pool_mu);
    if (p->npool < ENTRY_POOL_MAX) {
        e->hnext = p->pool;
        p->pool = e;
        p->npool++;
        e = NULL;
    }
    pthread_mutex_unlock(&p->pool_mu);
    free(e);
}

/* ---- the page cache (callers hold mu) --------------------------------------------------- */

static uint32_t hash_of(pgno_t pgno, uint64_t version) {
    uint64_t h = ((uint64_t)pgno << 32 ^ version) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32);
}

/* The clock ring holds every cached clean entry, pinned or not. A use only sets the entry's ref
** bit -- no list is touched, so a hit writes nothing but the entry itself -- and eviction sweeps
** the hand from the oldest entries towards the newest, sparing (and clearing) referenced ones. */
static void ring_add(pager *p, pentry *e) {
    e->lnext = p->lru.lnext;
    e->lprev = &p->lru;
    p->lru.lnext->lprev = e;
    p->lru.lnext = e;
}
static void ring_remove(pager *p, pentry *e) {
    if (!e->lnext) return; /* never added */
    if (p->hand == e) p->hand = e->lprev;
    e->lprev->lnext = e->lnext;
    e->lnext->lprev = e->lprev;
    e->lprev = e->lnext = NULL;
}

static pentry *cache_find(pager *p, pgno_t pgno, uint64_t version) {
    if (!p->hcap) return NULL;
    for (pentry *e = p->htab[hash_of(pgno, version) & (p->hcap - 1)]; e; e = e->hnext)
        if (e->pg.pgno == pgno && e->version == version) return e;
    return NULL;
}

static void cache_unhash(pager *p, pentry *e) {
    pentry **pp = &p->htab[hash_of(e->pg.pgno, e->version) & (p->hcap - 1)];
    while (*pp != e) pp = &(*pp)->hnext;
    *pp = e->hnext;
    p->hcount--;
}

/* cache_insert adds a clean entry; on out of memory for the table it simply is not cached and
** the caller keeps it as a private, stale entry. */
static void cache_insert(pager *p, pentry *e) {
    if (p->hcount + 1 > p->hcap) {
        uint32_t ncap = p->hcap ? p->hcap * 2 : 1024;
        pentry **nt = calloc(ncap, sizeof *nt);
        if (!nt) { e->stale = 1; return; }
        for (uint32_t i = 0; i < p->hcap; i++) {
            for (pentry *x = p->htab[i], *nx; x; x = nx) {
                nx = x->hnext;
                uint32_t h = hash_of(x->pg.pgno, x->version) & (ncap - 1);
                x->hnext = nt[h];
                nt[h] = x;
            }
        }
        free(p->htab);
        p->htab = nt;
        p->hcap = ncap;
    }
    uint32_t h = hash_of(e->pg.pgno, e->version) & (p->hcap - 1);
    e->hnext = p->htab[h];
    p->htab[h] = e;
    p->hcount++;
}

/* cache_drop removes a clean entry: freed now if unpinned, at its last unpin otherwise. */
static void cache_drop(pager *p, pentry *e) {
    cache_unhash(p, e);
    if (e->pins) { e->stale = 1; return; }
    ring_remove(p, e);
    p->bytes_used -= p->page_size;
    entry_free(p, e);
}

/* cache_make_room evicts unpinned clean pages, not recently used ones first (CLOCK), until need
** more bytes fit or two sweeps found nothing to evict. */
static void cache_make_room(pager *p, size_t need) {
    for (uint64_t steps = 0, limit = 2 * (uint64_t)p->hcount + 2;
         p->bytes_used + need > p->cfg.cache_bytes && steps < limit; steps++) {
        pentry *e = p->hand;
        if (e == &p->lru) { /* wrap around to the oldest end */
            p->hand = p->lru.lprev;
            if (p->hand == &p->lru) return;
            continue;
        }
        p->hand = e->lprev;
        if (e->pins) continue;
        if (e->ref) {
            e->ref = 0;
            continue;
        }
        cache_drop(p, e);
    }
}

static void account_add(pager *p) {
    p->bytes_used += p->page_size;
    if (p->bytes_used > p->st.cache_bytes_peak) p->st.cache_bytes_peak = p->bytes_used;
}

/* ---- reading page images ---------------------------------------------------------------- */

/* read_version reads page version `version` of pgno (0: the database file, else a WAL frame)
** into buf without checking it; *got is the byte count read. */
static int read_version(pager *p, pgno_t pgno, uint64_t version, uint8_t *buf, size_t *got, strata_err *err) {
    if (version == 0) return vfs_read(p->db, buf, p->page_size, (uint64_t)pgno * p->page_size, got, err);
    uint32_t frame = (uint32_t)(version & 0xffffffffu) - 1;
    return vfs_read(p->wal, buf, p->page_size, frame_off(p, frame), got, err);
}

/* check_version reports a page image that read_version returned short or damaged. */
static int check_version(pager *p, pgno_t pgno, uint64_t version, const uint8_t *buf, size_t got, strata_err *err) {
    if (version) {
        if (got != p->page_size || !page_ok(p, buf))
            return err_set(err, STRATA_CORRUPT, "page %u: checksum mismatch in WAL frame %u of %s", pgno,
                           (uint32_t)(version & 0xffffffffu) - 1, p->wal_path);
        return STRATA_OK;
    }
    if (got != p->page_size)
        return err_set(err, STRATA_CORRUPT, "page %u: missing, %s is truncated", pgno, p->path);
    if (!page_ok(p, buf))
        return err_set(err, STRATA_CORRUPT, "page %u: checksum mismatch in %s", pgno, p->path);
    return STRATA_OK;
}

/* read_checked reads and checks a page version; for the writer's own use (no concurrent
** checkpoint can change what it reads). */
static int read_checked(pager *p, pgno_t pgno, uint64_t version, uint8_t *buf, strata_err *err) {
    size_t got;
    int rc = read_version(p, pgno, version, buf, &got, err);
    return rc ? rc : check_version(p, pgno, version, buf, got, err);
}
static int read_frame(pager *p, uint32_t frame, uint8_t *buf, pgno_t pgno, strata_err *err) {
    return read_checked(p, pgno, wal_version(0, frame), buf, err);
}

/* wal_find returns the last committed frame of pgno below mx, or NO_FRAME. Holds mu. */
static uint32_t wal_find(pager *p, pgno_t pgno, uint32_t mx) {
    uint64_t f;
    if (!pgmap_get(&p->last, pgno, &f)) return NO_FRAME;
    uint32_t fr = (uint32_t)f;
    while (fr != NO_FRAME && fr >= mx) fr = p->fprev[fr];
    return fr;
}

/* snapshot_version resolves which version of pgno snapshot s sees. Holds mu. A preserved copy
** is returned through *preserved. */
static uint64_t snapshot_version(pager *p, snapshot *s, pgno_t pgno, pentry **preserved) {
    uint64_t v;
    *preserved = NULL;
    if (s->preserved.count && pgmap_get(&s->preserved, pgno, &v)) {
        *preserved = (pentry *)(uintptr_t)v;
        return 0;
    }
    if (s->detached) return 0;
    uint32_t f = wal_find(p, pgno, s->mx);
    return f == NO_FRAME ? 0 : wal_version(s->gen, f);
}

/* get_committed pins the committed version of pgno that t's snapshot sees. */
static int get_committed(pager_txn *t, pgno_t pgno, pentry **out) {
    pager *p = t->p;
    pentry *pres, *e = NULL;
    uint64_t version;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        version = snapshot_version(p, t->snap, pgno, &pres);
        if (pres) {
            pthread_mutex_unlock(&p->mu);
            entry_free(p, e);
            *out = pres;
            return STRATA_OK;
        }
        pentry *c = cache_find(p, pgno, version);
        if (c) {
            c->pins++;
            c->ref = 1;
            p->st.cache_hits++;
            pthread_mutex_unlock(&p->mu);
            entry_free(p, e);
            *out = c;
            return STRATA_OK;
        }
        p->st.cache_misses++;
        cache_make_room(p, p->page_size);
        uint64_t epoch = p->epoch;
        pthread_mutex_unlock(&p->mu);

        if (!e && !(e = entry_new(p, pgno, ENTRY_CLEAN)))
            return err_set(&t->err, STRATA_NOMEM, "out of memory reading page %u", pgno);
        size_t got;
        strata_err why; /* the read's error, t's once it stands: other threads may share t->err */
        err_clear(&why);
        int rc = read_version(p, pgno, version, e->pg.data, &got, &why);
        pthread_mutex_lock(&p->mu);
        if (p->epoch != epoch) continue; /* a checkpoint moved things underneath: decide again */
        if (!rc) rc = check_version(p, pgno, version, e->pg.data, got, &why);
        if (rc) {
            pthread_mutex_unlock(&p->mu);
            entry_free(p, e);
            err_copy(&t->err, &why);
            return rc;
        }
        break;
    }
    e->version = version;
    pentry *other = cache_find(p, pgno, version);
    if (other) { /* another thread read it meanwhile */
        entry_free(p, e);
        e = other;
        e->pins++;
        e->ref = 1;
    } else {
        e->pins = 1;
        e->ref = 1;
        cache_insert(p, e);
        if (!e->stale) ring_add(p, e);
        account_add(p);
    }
    pthread_mutex_unlock(&p->mu);
    *out = e;
    return STRATA_OK;
}

static void unpin(pager *p, pentry *e) {
    if (e->kind == ENTRY_PRESERVED) return;
    if (e->kind == ENTRY_DIRTY) { e->pins--; return; }
    pthread_mutex_lock(&p->mu);
    if (--e->pins == 0 && e->stale) {
        ring_remove(p, e);
        p->bytes_used -= p->page_size;
        entry_free(p, e);
    }
    pthread_mutex_unlock(&p->mu);
}

/* ---- snapshots ---------------------------------------------------------------------------- */

static void snapshot_free(pager *p, snapshot *s) {
    uint32_t it = 0, pg;
    uint64_t v;
    while (pgmap_next(&s->preserved, &it, &pg, &v)) entry_free(p, (pentry *)(uintptr_t)v);
    pgmap_free(&s->preserved);
    for (snapshot **pp = &p->snaps; *pp; pp = &(*pp)->next)
        if (*pp == s) { *pp = s->next; break; }
    if (p->cur == s) p->cur = NULL;
    free(s);
}

static void snapshot_retire(pager *p);

/* snapshot_unref drops a reference; holds mu. */
static void snapshot_unref(pager *p, snapshot *s) {
    if (--s->refs == 0 && s != p->cur) snapshot_free(p, s);
}

/* snapshot_acquire returns the latest durable state for a reader, or for the writer the latest
** committed one (which includes commits still waiting for their fsync). Readers that begin with
** no commit in between share one snapshot (p->cur). Holds mu. */
static snapshot *snapshot_acquire(pager *p, int write) {
    uint32_t mx = write ? p->mxc : p->mxd;
    if (p->cur && p->cur->mx != p->mxd) snapshot_retire(p);
    if (p->cur && p->cur->mx == mx) {
        p->cur->refs++;
        return p->cur;
    }
    snapshot *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->gen = p->gen;
    s->mx = mx;
    s->refs = 1;
    s->next = p->snaps;
    p->snaps = s;
    if (mx == p->mxd) p->cur = s;
    return s;
}

/* snapshot_retire forgets the current snapshot after a commit or a WAL restart. Holds mu. */
static void snapshot_retire(pager *p) {
    snapshot *s = p->cur;
    p->cur = NULL;
    if (s && s->refs == 0) snapshot_free(p, s);
}

/* ---- the header page ---------------------------------------------------------------------- */

static void header_format(pager *p, uint8_t *d, uint32_t npages) {
    memset(d, 0, p->page_size);
    memcpy(d, DB_MAGIC, sizeof DB_MAGIC);
    put32(d + H_VERSION, PAGER_FORMAT_VERSION);
    put32(d + H_PAGE_SIZE, p->page_size);
    put32(d + H_NPAGES, npages);
}

static int header_load(pager_txn *t) {
    pentry *e;
    int rc = get_committed(t, 0, &e);
    if (rc) return rc;
    const uint8_t *d = e->pg.data;
    t->npages = get32(d + H_NPAGES);
    pthread_mutex_lock(&t->p->mu);
    t->snap->npages = t->npages;
    pthread_mutex_unlock(&t->p->mu);
    t->free_head = get32(d + H_FREE_HEAD);
    t->free_count = get32(d + H_FREE_COUNT);
    for (int i = 0; i < PAGER_META_SLOTS; i++) t->meta[i] = t->meta_begin[i] = get64(d + H_META + 8 * i);
    unpin(t->p, e);
    if (t->npages == 0 || t->free_head >= t->npages)
        return err_set(&t->err, STRATA_CORRUPT, "page 0: header fields out of range (pages %u, free list %u)",
                       t->npages, t->free_head);
    return STRATA_OK;
}

/* ---- transactions --------------------------------------------------------------------------- */

int pager_begin(pager *p, int write, pager_txn **out, strata_err *err) {
    *out = NULL;
    pager_txn *t = calloc(1, sizeof *t);
    if (!t) return err_set(err, STRATA_NOMEM, "out of memory beginning a transaction");
    t->p = p;
    t->write = write;
    pthread_mutex_lock(&p->mu);
    if (write) {
        if (p->cfg.read_only) {
            pthread_mutex_unlock(&p->mu);
            free(t);
            return err_set(err, STRATA_READONLY, "%s: opened read-only", p->path);
        }
        if (!p->wal) {
            pthread_mutex_unlock(&p->mu);
            free(t);
            return err_set(err, STRATA_READONLY,
                           "%s is open for reading only: its write-ahead log %s could not be created (%s)", p->path,
                           p->wal_path, p->no_wal.msg);
        }
        if (p->poisoned) {
            pthread_mutex_unlock(&p->mu);
            free(t);
            return err_set(err, STRATA_IOERR, "%s: an earlier fsync failed; close and reopen the database",
                           p->path);
        }
        if (p->writer_active) {
            pthread_mutex_unlock(&p->mu);
            free(t);
            return err_set(err, STRATA_BUSY, "%s: another write transaction is active", p->path);
        }
        p->writer_active = 1;
        t->seq = p->next_seq++;
    }
    t->snap = snapshot_acquire(p, write);
    pthread_mutex_unlock(&p->mu);
    int rc = t->snap ? header_load(t) : err_set(&t->err, STRATA_NOMEM, "out of memory taking a snapshot");
    t->base_npages = t->npages;
    if (rc) {
        err_set(err, rc, "%s", t->err.msg);
        pager_rollback(t);
        return rc;
    }
    *out = t;
    return STRATA_OK;
}

strata_err *pager_txn_err(pager_txn *t) { return &t->err; }
pager *pager_txn_pager(pager_txn *t) { return t->p; }
int pager_txn_is_write(const pager_txn *t) { return t->write; }
bool pager_txn_shareable(const pager_txn *t) { return !t->write || (!t->dirty.count && !t->spilled.count); }
/* A read snapshot's (generation, durable frames) is one state: generations only grow while the
** pager is open, and durable frames are never taken back. */
uint64_t pager_txn_version(const pager_txn *t) {
    return t->write ? 0 : (t->snap->gen << 32 | t->snap->mx) + 1;
}
pgno_t pager_page_count(pager_txn *t) { return t->npages; }
uint32_t pager_page_size(const pager *p) { return p->page_size; }
uint32_t pager_usable_size(const pager *p) { return p->page_size - PAGER_RESERVED; }

uint64_t pager_meta_get(pager_txn *t, int slot) {
    return slot >= 0 && slot < PAGER_META_SLOTS ? t->meta[slot] : 0;
}

uint64_t pager_meta_begin(const pager_txn *t, int slot) {
    return slot >= 0 && slot < PAGER_META_SLOTS ? t->meta_begin[slot] : 0;
}

int pager_meta_set(pager_txn *t, int slot, uint64_t value) {
    if (!t->write) return err_set(&t->err, STRATA_READONLY, "meta slot set in a read transaction");
    if (slot < 0 || slot >= PAGER_META_SLOTS) return err_set(&t->err, STRATA_MISUSE, "meta slot %d out of range", slot);
    t->meta[slot] = value;
    t->hdr_dirty = 1;
    return STRATA_OK;
}

/* ---- dirty pages and spilling ---------------------------------------------------------------- */

static int spill(pager_txn *t);

/* dirty_new creates t's private copy of pgno, filled from src or with zeros, pinned once. */
static int dirty_new(pager_txn *t, pgno_t pgno, const uint8_t *src, pentry **out) {
    pager *p = t->p;
    pthread_mutex_lock(&p->mu);
    cache_make_room(p, p->page_size);
    int over = p->bytes_used + p->page_size > p->cfg.cache_bytes;
    size_t bound = p->cfg.cache_bytes;
    pthread_mutex_unlock(&p->mu);
    if (over && t->dirty_bytes > bound / 4) {
        int rc = spill(t);
        if (rc) return rc;
    }
    pentry *e = entry_new(p, pgno, ENTRY_DIRTY);
    if (!e) return err_set(&t->err, STRATA_NOMEM, "out of memory for page %u", pgno);
    if (src) memcpy(e->pg.data, src, p->page_size);
    else memset(e->pg.data, 0, p->page_size);
    if (pgmap_put(&t->dirty, pgno, (uintptr_t)e)) {
        entry_free(p, e);
        return err_set(&t->err, STRATA_NOMEM, "out of memory for page %u", pgno);
    }
    e->pins = 1;
    e->version = ++t->tick;
    t->dirty_bytes += p->page_size;
    pthread_mutex_lock(&p->mu);
    account_add(p);
    pthread_mutex_unlock(&p->mu);
    *out = e;
    return STRATA_OK;
}

static void dirty_free(pager_txn *t, pentry *e) {
    pager *p = t->p;
    t->dirty_bytes -= p->page_size;
    pthread_mutex_lock(&p->mu);
    p->bytes_used -= p->page_size;
    pthread_mutex_unlock(&p->mu);
    entry_free(p, e);
}

/* load_spilled reads t's own spilled copy of pgno back as a dirty page. */
static int load_spilled(pager_txn *t, pgno_t pgno, uint32_t frame, pentry **out) {
    pentry *e;
    int rc = dirty_new(t, pgno, NULL, &e);
    if (rc) return rc;
    rc = read_frame(t->p, frame, e->pg.data, pgno, &t->err);
    if (rc) {
        pgmap_del(&t->dirty, pgno);
        dirty_free(t, e);
        return rc;
    }
    *out = e;
    return STRATA_OK;
}

/* frame_fill seals page e and fills the frame header in its tail for frame number `frame`.
** commit_npages is nonzero only for the last frame of a commit. */
static void frame_fill(pager *p, pentry *e, uint32_t frame, uint32_t seq, uint32_t commit_npages) {
    uint8_t *t = tail(p, e->pg.data);
    page_seal(p, e->pg.data);
    put32(t + T_PGNO, e->pg.pgno);
    put32(t + T_COMMIT, commit_npages);
    put64(t + T_SALT, p->salt);
    put32(t + T_FRAME, frame);
    put32(t + T_SEQ, seq);
    put32(t + T_FCRC, crc32c(0, t, T_FCRC));
}

static void wal_header_fill(pager *p, uint8_t *h) {
    memset(h, 0, p->page_size);
    memcpy(h, WAL_MAGIC, 8);
    put32(h + 8, PAGER_FORMAT_VERSION);
    put32(h + 12, p->page_size);
    put64(h + 16, p->salt);
    put32(h + 24, crc32c(0, h, 24));
}

#define WAL_FIRST_STEP (64u << 10)       /* a new WAL file's first size */
#define WAL_EXTEND_STEP (1u << 20)       /* the growth step once the file reached it */
#define WAL_KEEP_BYTES (4u << 20)        /* WAL kept allocated across a checkpoint */

/* wal_extend grows the WAL file with zeros so that it holds more than `end` bytes. Commits then
** overwrite allocated blocks instead of appending: an fdatasync after an append must also journal
** the new size and block allocation, which costs 1.3-2x as much on ext4 here as one after
** an overwrite. A commit that grows the file pays that journaling once, and the zeros' writing and
** syncing too, so the step starts small and doubles: a new WAL (each session's, since a clean
** close removes it) is first 64 KiB, then 128, 256 and 512 KiB, then 1 MiB and every further
** megabyte (wal_grow_target). The first commit after an open thus writes 64 KiB, not a megabyte
** of zeros; a session of many commits reaches the megabyte step after four more growths, and
** from there commits overwrite as before. fallocate would not serve: its unwritten extents are
** converted at the first write into them, a metadata change for fdatasync again. The zeros are
** never valid frames. Best effort: when the disk is too full for the zeros, the frame write
** itself extends the file. */
static uint64_t wal_grow_target(uint64_t end) {
    if (end >= WAL_EXTEND_STEP) return (end + WAL_EXTEND_STEP) & ~(uint64_t)(WAL_EXTEND_STEP - 1);
    uint64_t size = WAL_FIRST_STEP;
    while (size <= end) size <<= 1;
    return size;
}
static void wal_grow(pager *p, uint64_t target) {
    static const uint8_t zeros[64 << 10];
    while (p->wal_alloc < target) {
        size_t n = target - p->wal_alloc < sizeof zeros ? (size_t)(target - p->wal_alloc) : sizeof zeros;
        if (vfs_write(p->wal, zeros, n, p->wal_alloc, NULL)) return; /* full: the frames extend it */
        p->wal_alloc += n;
    }
}
static void wal_extend(pager *p, uint64_t end) { wal_grow(p, wal_grow_target(end)); }

/* wal_append writes frames for pages es[0..n) starting at frame `first` as sequential writes
** through a bounded staging buffer (one write for a small commit), with the WAL header first when
** this generation has none on disk yet. The last frame carries commit_npages (0: none). */
static int wal_append(pager_txn *t, pentry **es, uint32_t n, uint32_t first, uint32_t commit_npages) {
    pager *p = t->p;
    const size_t fsz = p->page_size;
    size_t per = (4u << 20) / fsz;
    if (per == 0) per = 1;
    if (per > n) per = n;
    int with_hdr = !p->wal_hdr_written;
    int rc = STRATA_OK;
    if (frame_off(p, first + n) > p->wal_alloc) wal_extend(p, frame_off(p, first + n));
    if (n == 1 && !with_hdr) { /* the common small commit: the frame is the page itself */
        frame_fill(p, es[0], first, t->seq, commit_npages);
        uint64_t off = frame_off(p, first);
        if ((rc = vfs_write(p->wal, es[0]->pg.data, fsz, off, &t->err)) != STRATA_OK) return rc;
        if (off + fsz > p->wal_alloc) p->wal_alloc = off + fsz;
        p->st.pages_written_wal++;
        return STRATA_OK;
    }
    uint8_t *buf = malloc((per + 1) * fsz);
    if (!buf) return err_set(&t->err, STRATA_NOMEM, "out of memory writing the WAL");
    for (uint32_t i = 0; i < n && rc == STRATA_OK;) {
        size_t len = 0;
        uint64_t off = frame_off(p, first + i);
        if (with_hdr) {
            wal_header_fill(p, buf);
            len = p->page_size;
            off = 0;
        }
        size_t k = 0;
        for (; k < per && i < n; k++, i++) {
            frame_fill(p, es[i], first + i, t->seq, i == n - 1 ? commit_npages : 0);
            memcpy(buf + len, es[i]->pg.data, p->page_size);
            len += fsz;
        }
        rc = vfs_write(p->wal, buf, len, off, &t->err);
        if (rc == STRATA_OK && off + len > p->wal_alloc) p->wal_alloc = off + len; /* wal_extend fell short */
        if (rc == STRATA_OK && with_hdr) {
            with_hdr = 0;
            pthread_mutex_lock(&p->mu);
            p->wal_hdr_written = 1;
            pthread_mutex_unlock(&p->mu);
        }
        p->st.pages_written_wal += k;
    }
    free(buf);
    return rc;
}

static int cmp_entry_pgno(const void *a, const void *b) {
    pgno_t x = (*(pentry *const *)a)->pg.pgno, y = (*(pentry *const *)b)->pg.pgno;
    return (x > y) - (x < y);
}

/* A dirty page's version field holds the transaction's tick of its last use, until commit. */
static int cmp_entry_tick(const void *a, const void *b) {
    uint64_t x = (*(pentry *const *)a)->version, y = (*(pentry *const *)b)->version;
    return (x > y) - (x < y);
}

/* collect_dirty lists t's dirty pages (pinned ones only when all is set), sorted by cmp. */
static pentry **collect_dirty(pager_txn *t, int all, int (*cmp)(const void *, const void *), uint32_t *n) {
    pentry **es = malloc((t->dirty.count + 1) * sizeof *es);
    if (!es) return NULL;
    uint32_t it = 0, pg, k = 0;
    uint64_t v;
    while (pgmap_next(&t->dirty, &it, &pg, &v)) {
        pentry *e = (pentry *)(uintptr_t)v;
        if (all || e->pins == 0) es[k++] = e;
    }
    qsort(es, k, sizeof *es, cmp);
    *n = k;
    return es;
}

static int note_spilled(pager_txn *t, pgno_t pgno, uint32_t frame) {
    if (t->nspill == t->spill_cap) {
        uint32_t ncap = t->spill_cap ? t->spill_cap * 2 : 256;
        uint32_t *np = realloc(t->spill_pgno, ncap * sizeof *np);
        if (!np) return -1;
        t->spill_pgno = np;
        t->spill_cap = ncap;
    }
    t->spill_pgno[t->nspill++] = pgno;
    return pgmap_put(&t->spilled, pgno, frame);
}

/* spill writes the least recently used half of t's unpinned dirty pages to the WAL as
** uncommitted frames and frees them, so a transaction larger than the cache keeps within its
** memory bound while the pages it keeps using (the upper levels of a tree) stay in memory. */
static int spill(pager_txn *t) {
    pager *p = t->p;
    uint32_t n;
    pentry **es = collect_dirty(t, 0, cmp_entry_tick, &n);
    if (!es) return err_set(&t->err, STRATA_NOMEM, "out of memory spilling pages");
    n = (n + 1) / 2;
    int rc = STRATA_OK;
    if (n) {
        uint32_t first = p->mxc + t->nspill; /* mxc is stable: t holds the writer role */
        rc = wal_append(t, es, n, first, 0);
        for (uint32_t i = 0; i < n && rc == STRATA_OK; i++) {
            if (note_spilled(t, es[i]->pg.pgno, first + i))
                rc = err_set(&t->err, STRATA_NOMEM, "out of memory spilling pages");
            pgmap_del(&t->dirty, es[i]->pg.pgno);
            dirty_free(t, es[i]);
        }
    }
    free(es);
    return rc;
}

/* ---- page access -------------------------------------------------------------------------- */

static int check_pgno(pager_txn *t, pgno_t pgno) {
    if (pgno == 0 || pgno >= t->npages)
        return err_set(&t->err, STRATA_CORRUPT, "page %u: reference beyond the database (%u pages) in %s",
                       pgno, t->npages, t->p->path);
    return STRATA_OK;
}

/* own_copy finds t's private version of pgno (dirty or spilled); *out NULL when it has none. */
/* sp_note records, the first time pgno changes after the savepoint, what it was then: a copy of
** its private page e, or SP_CLEAN when there was none (e NULL). */
static int sp_note(pager_txn *t, pgno_t pgno, const pentry *e) {
    uint64_t v;
    if (!t->sp_active || pgmap_get(&t->sp_pages, pgno, &v)) return STRATA_OK;
    uint64_t val = SP_CLEAN;
    if (e) {
        void *copy = t->sp_npool ? t->sp_pool[--t->sp_npool] : malloc(t->p->page_size);
        if (!copy) return err_set(&t->err, STRATA_NOMEM, "out of memory saving page %u for a statement rollback", pgno);
        memcpy(copy, e->pg.data, t->p->page_size);
        val = (uintptr_t)copy;
    }
    if (pgmap_put(&t->sp_pages, pgno, val)) {
        if (e) free((void *)(uintptr_t)val);
        return err_set(&t->err, STRATA_NOMEM, "out of memory saving page %u for a statement rollback", pgno);
    }
    return STRATA_OK;
}

/* sp_forget ends the savepoint; its page copies go to the pool (a statement per savepoint
** changes few pages, so the next one reuses them instead of calling malloc). */
static void sp_forget(pager_txn *t) {
    uint32_t it = 0, pg;
    uint64_t v;
    while (pgmap_next(&t->sp_pages, &it, &pg, &v)) {
        if (v == SP_CLEAN) continue;
        if (t->sp_npool < (int)(sizeof t->sp_pool / sizeof t->sp_pool[0])) t->sp_pool[t->sp_npool++] = (void *)(uintptr_t)v;
        else free((void *)(uintptr_t)v);
    }
    if (t->sp_pages.count) pgmap_clear(&t->sp_pages);
    t->sp_active = t->sp_broken = 0;
}

static int own_copy(pager_txn *t, pgno_t pgno, pentry **out) {
    uint64_t v;
    *out = NULL;
    if (pgmap_get(&t->dirty, pgno, &v)) {
        *out = (pentry *)(uintptr_t)v;
        (*out)->pins++;
        (*out)->version = ++t->tick;
        return STRATA_OK;
    }
    if (t->spilled.count && pgmap_get(&t->spilled, pgno, &v)) return load_spilled(t, pgno, (uint32_t)v, out);
    return STRATA_OK;
}

int pager_get(pager_txn *t, pgno_t pgno, page **out) {
    int rc = check_pgno(t, pgno);
    if (rc) return rc;
    pentry *e = NULL;
    if (t->write && (rc = own_copy(t, pgno, &e))) return rc;
    if (!e && (rc = get_committed(t, pgno, &e))) return rc;
    *out = &e->pg;
    return STRATA_OK;
}

int pager_read(pager_txn *t, pgno_t pgno, uint8_t *buf) {
    int rc = check_pgno(t, pgno);
    if (rc) return rc;
    pentry *e = NULL;
    if (t->write && (rc = own_copy(t, pgno, &e))) return rc;
    if (e) { /* the writer's own version */
        memcpy(buf, e->pg.data, t->p->page_size);
        unpin(t->p, e);
        return STRATA_OK;
    }
    pager *p = t->p;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        pentry *pres;
        uint64_t version = snapshot_version(p, t->snap, pgno, &pres);
        pentry *c = pres ? pres : cache_find(p, pgno, version);
        if (c) {
            memcpy(buf, c->pg.data, p->page_size);
            if (!pres) c->ref = 1, p->st.cache_hits++;
            pthread_mutex_unlock(&p->mu);
            return STRATA_OK;
        }
        uint64_t epoch = p->epoch;
        pthread_mutex_unlock(&p->mu);
        size_t got;
        strata_err why; /* as in get_committed */
        err_clear(&why);
        rc = read_version(p, pgno, version, buf, &got, &why);
        pthread_mutex_lock(&p->mu);
        if (p->epoch != epoch) continue; /* a checkpoint moved things underneath: decide again */
        if (!rc) rc = check_version(p, pgno, version, buf, got, &why);
        pthread_mutex_unlock(&p->mu);
        if (rc) err_copy(&t->err, &why);
        return rc;
    }
}

int pager_read_run(pager_txn *t, pgno_t first, uint32_t n, uint8_t *buf, uint32_t *got) {
    pager *p = t->p;
    size_t ps = p->page_size;
    *got = 0;
    int rc = check_pgno(t, first);
    if (rc) return rc;
    if (n > t->npages - first) n = t->npages - first;
    uint64_t epoch = 0;
    uint32_t m = t->write ? 1 : n; /* pages the database file gives as t sees them, none cached */
    if (m > 1) {
        pthread_mutex_lock(&p->mu);
        for (uint32_t i = 0; i < m; i++) {
            pentry *pres;
            if (snapshot_version(p, t->snap, first + i, &pres) != 0 || pres || cache_find(p, first + i, 0)) m = i;
        }
        epoch = p->epoch;
        pthread_mutex_unlock(&p->mu);
    }
    if (m > 1) {
        size_t bytes;
        if ((rc = vfs_read(p->db, buf, m * ps, (uint64_t)first * ps, &bytes, &t->err))) return rc;
        pthread_mutex_lock(&p->mu);
        int moved = p->epoch != epoch; /* a checkpoint moved things underneath: page by page */
        pthread_mutex_unlock(&p->mu);
        uint32_t k = 0;
        for (; !moved && k < m; k++) {
            size_t have = bytes > k * ps ? bytes - k * ps : 0;
            strata_err why; /* t's only for the first page: a later one is not asked for yet (the
                            ** caller's next run starts there), and t->err may be shared */
            err_clear(&why);
            if ((rc = check_version(p, first + k, 0, buf + k * ps, have < ps ? have : ps, &why))) {
                if (k == 0) {
                    err_copy(&t->err, &why);
                    return rc;
                }
                break;
            }
        }
        if (k > 0) {
            *got = k;
            return STRATA_OK;
        }
    }
    if ((rc = pager_read(t, first, buf))) return rc;
    *got = 1;
    return STRATA_OK;
}

int pager_get_mut(pager_txn *t, pgno_t pgno, page **out) {
    if (!t->write) return err_set(&t->err, STRATA_READONLY, "page %u changed in a read transaction", pgno);
    int rc = check_pgno(t, pgno);
    if (rc) return rc;
    pentry *e;
    if ((rc = own_copy(t, pgno, &e))) return rc;
    if (e && (rc = sp_note(t, pgno, e))) {
        e->pins--;
        return rc;
    }
    if (!e) {
        pentry *c;
        if ((rc = sp_note(t, pgno, NULL))) return rc;
        if ((rc = get_committed(t, pgno, &c))) return rc;
        rc = dirty_new(t, pgno, c->pg.data, &e);
        unpin(t->p, c);
        if (rc) return rc;
    }
    *out = &e->pg;
    return STRATA_OK;
}

int pager_make_mut(pager_txn *t, page **pg) {
    pentry *e = (pentry *)*pg;
    if (e->kind == ENTRY_DIRTY) return sp_note(t, e->pg.pgno, e); /* ours already: keep its image for a savepoint */
    page *m;
    int rc = pager_get_mut(t, e->pg.pgno, &m);
    if (rc) return rc;
    unpin(t->p, e);
    *pg = m;
    return STRATA_OK;
}

void pager_release(pager_txn *t, page *pg) {
    if (pg) unpin(t->p, (pentry *)pg);
}

/* ---- the free list ---------------------------------------------------------------------------
** A trunk page holds: u32 next trunk, u32 count, count u32 page numbers. */

static uint32_t trunk_capacity(const pager *p) { return (pager_usable_size(p) - 8) / 4; }

int pager_alloc(pager_txn *t, page **out) {
    if (!t->write) return err_set(&t->err, STRATA_READONLY, "page allocated in a read transaction");
    pager *p = t->p;
    pgno_t pgno;
    int rc;
    if (t->free_head) {
        page *tr;
        if ((rc = pager_get_mut(t, t->free_head, &tr))) return rc;
        uint32_t n = get32(tr->data + 4);
        if (n > trunk_capacity(p)) {
            pager_release(t, tr);
            return err_set(&t->err, STRATA_CORRUPT, "page %u: free-list trunk count %u out of range",
                           t->free_head, n);
        }
        if (n > 0) {
            pgno = get32(tr->data + 8 + 4 * (n - 1));
            put32(tr->data + 4, n - 1);
            pager_release(t, tr);
            if (pgno == 0 || pgno >= t->npages)
                return err_set(&t->err, STRATA_CORRUPT, "page %u: free-list entry %u out of range",
                               t->free_head, pgno);
        } else { /* the trunk itself is reused */
            pgno = t->free_head;
            t->free_head = get32(tr->data);
            pager_release(t, tr);
        }
        t->free_count--;
    } else {
        if (t->npages == UINT32_MAX) return err_set(&t->err, STRATA_FULL, "database reached its page limit");
        pgno = t->npages++;
    }
    t->hdr_dirty = 1;
    pentry *e;
    uint64_t v;
    if (pgmap_get(&t->dirty, pgno, &v)) { /* a reused trunk page is already a private copy */
        e = (pentry *)(uintptr_t)v;
        if ((rc = sp_note(t, pgno, e))) return rc;
        memset(e->pg.data, 0, p->page_size);
        e->pins++;
    } else if ((rc = sp_note(t, pgno, NULL)) || (rc = dirty_new(t, pgno, NULL, &e))) {
        return rc;
    }
    *out = &e->pg;
    return STRATA_OK;
}

int pager_free(pager_txn *t, pgno_t pgno) {
    if (!t->write) return err_set(&t->err, STRATA_READONLY, "page freed in a read transaction");
    int rc = check_pgno(t, pgno);
    if (rc) return rc;
    uint64_t v;
    if (pgmap_get(&t->dirty, pgno, &v)) {
        pentry *e = (pentry *)(uintptr_t)v;
        if (e->pins) return err_set(&t->err, STRATA_MISUSE, "page %u freed while in use", pgno);
        if ((rc = sp_note(t, pgno, e))) return rc;
        pgmap_del(&t->dirty, pgno);
        dirty_free(t, e);
    } else if ((rc = sp_note(t, pgno, NULL))) {
        return rc;
    }
    if (pgmap_del(&t->spilled, pgno) && t->sp_active) t->sp_broken = 1; /* its spilled image is lost */
    if (t->free_head) {
        page *tr;
        if ((rc = pager_get_mut(t, t->free_head, &tr))) return rc;
        uint32_t n = get32(tr->data + 4);
        if (n < trunk_capacity(t->p)) {
            put32(tr->data + 8 + 4 * n, pgno);
            put32(tr->data + 4, n + 1);
            pager_release(t, tr);
            t->free_count++;
            t->hdr_dirty = 1;
            return STRATA_OK;
        }
        pager_release(t, tr);
    }
    /* pgno becomes the new head trunk */
    pentry *e;
    if ((rc = dirty_new(t, pgno, NULL, &e))) return rc;
    put32(e->pg.data, t->free_head);
    e->pins--;
    t->free_head = pgno;
    t->free_count++;
    t->hdr_dirty = 1;
    return STRATA_OK;
}

int pager_freelist_walk(pager_txn *t, int (*fn)(void *arg, pgno_t pgno, int is_trunk), void *arg) {
    pgno_t tr = t->free_head;
    uint32_t seen = 0, cap = trunk_capacity(t->p);
    while (tr) {
        if (++seen > t->npages)
            return err_set(&t->err, STRATA_CORRUPT, "page %u: free list has a cycle", tr);
        page *pg;
        int rc = pager_get(t, tr, &pg);
        if (rc) return rc;
        rc = fn(arg, tr, 1);
        uint32_t n = get32(pg->data + 4);
        if (rc == STRATA_OK && n > cap)
            rc = err_set(&t->err, STRATA_CORRUPT, "page %u: free-list trunk count %u out of range", tr, n);
        for (uint32_t i = 0; i < n && rc == STRATA_OK; i++) {
            pgno_t x = get32(pg->data + 8 + 4 * i);
            if (x == 0 || x >= t->npages)
                rc = err_set(&t->err, STRATA_CORRUPT, "page %u: free-list entry %u out of range", tr, x);
            else
                rc = fn(arg, x, 0);
        }
        pgno_t next = get32(pg->data);
        pager_release(t, pg);
        if (rc) return rc;
        if (next >= t->npages)
            return err_set(&t->err, STRATA_CORRUPT, "page %u: free-list next trunk %u out of range", tr, next);
        tr = next;
    }
    return STRATA_OK;
}

/* ---- commit, rollback, checkpoint ------------------------------------------------------------ */

static int checkpoint_locked(pager *p, strata_err *err);

/* txn_end releases t's snapshot and, for a writer, its private pages and the writer role. */
static void txn_end(pager_txn *t) {
    pager *p = t->p;
    if (t->write) {
        uint32_t it = 0, pg;
        uint64_t v;
        while (pgmap_next(&t->dirty, &it, &pg, &v)) dirty_free(t, (pentry *)(uintptr_t)v);
        pgmap_free(&t->dirty);
        sp_forget(t);
        pgmap_free(&t->sp_pages);
        while (t->sp_npool) free(t->sp_pool[--t->sp_npool]);
        pgmap_free(&t->spilled);
        free(t->spill_pgno);
    }
    pthread_mutex_lock(&p->mu);
    if (t->snap) snapshot_unref(p, t->snap);
    if (t->write) {
        p->writer_active = 0;
        pthread_cond_broadcast(&p->writer_cv);
    }
    pthread_mutex_unlock(&p->mu);
    free(t);
}

void pager_rollback(pager_txn *t) {
    if (t) txn_end(t);
}

int pager_savepoint(pager_txn *t) {
    if (!t->write) return err_set(&t->err, STRATA_READONLY, "savepoint in a read transaction");
    sp_forget(t);
    t->sp_active = 1;
    t->sp_nspill = t->nspill;
    t->sp_npages = t->npages;
    t->sp_free_head = t->free_head;
    t->sp_free_count = t->free_count;
    memcpy(t->sp_meta, t->meta, sizeof t->meta);
    t->sp_hdr_dirty = t->hdr_dirty;
    return STRATA_OK;
}

void pager_savepoint_release(pager_txn *t) {
    if (t) sp_forget(t);
}

int pager_savepoint_rollback(pager_txn *t) {
    pager *p = t->p;
    if (!t->sp_active) return err_set(&t->err, STRATA_MISUSE, "no savepoint to roll back to");
    /* possible only when nothing changed since the savepoint went to the WAL, and no page is in use */
    int ok = !t->sp_broken && t->nspill == t->sp_nspill;
    uint32_t it = 0, pg;
    uint64_t v, d;
    while (ok && pgmap_next(&t->sp_pages, &it, &pg, &v))
        if (pgmap_get(&t->dirty, pg, &d) && ((pentry *)(uintptr_t)d)->pins) ok = 0;
    if (ok && pgmap_reserve(&t->dirty, t->sp_pages.count)) ok = 0;
    if (!ok) {
        sp_forget(t);
        return STRATA_BUSY;
    }
    for (it = 0; pgmap_next(&t->sp_pages, &it, &pg, &v);) {
        pentry *e = pgmap_get(&t->dirty, pg, &d) ? (pentry *)(uintptr_t)d : NULL;
        if (v == SP_CLEAN) { /* not ours at the savepoint: drop what we made of it */
            if (e) {
                pgmap_del(&t->dirty, pg);
                dirty_free(t, e);
            }
            continue;
        }
        if (!e) { /* freed since: make the private copy again (room reserved above) */
            e = entry_new(p, pg, ENTRY_DIRTY);
            if (!e) {
                sp_forget(t);
                return STRATA_BUSY;
            }
            pgmap_put(&t->dirty, pg, (uintptr_t)e);
            e->pins = 0;
            e->version = ++t->tick;
            t->dirty_bytes += p->page_size;
            pthread_mutex_lock(&p->mu);
            account_add(p);
            pthread_mutex_unlock(&p->mu);
        }
        memcpy(e->pg.data, (void *)(uintptr_t)v, p->page_size);
    }
    t->npages = t->sp_npages;
    t->free_head = t->sp_free_head;
    t->free_count = t->sp_free_count;
    memcpy(t->meta, t->sp_meta, sizeof t->meta);
    t->hdr_dirty = t->sp_hdr_dirty;
    sp_forget(t);
    return STRATA_OK;
}

static int index_reserve(pager *p, uint32_t n) {
    if (n <= p->fcap) return 0;
    uint32_t ncap = p->fcap ? p->fcap : 1024;
    while (ncap < n) ncap *= 2;
    uint32_t *a = realloc(p->fpgno, ncap * sizeof *a);
    if (!a) return -1;
    p->fpgno = a;
    uint32_t *b = realloc(p->fprev, ncap * sizeof *b);
    if (!b) return -1;
    p->fprev = b;
    p->fcap = ncap;
    return 0;
}

/* index_add records committed frame f of pgno in the WAL index. Holds mu; room reserved. */
static void index_add(pager *p, uint32_t f, pgno_t pgno) {
    uint64_t prev;
    p->fpgno[f] = pgno;
    p->fprev[f] = pgmap_get(&p->last, pgno, &prev) ? (uint32_t)prev : NO_FRAME;
    pgmap_put(&p->last, pgno, f); /* cannot fail: ensured by reserving map room below */
}

/* unpublish takes committed frames [mxd, mxc) back out of the WAL index after their fsync
** failed: no reader has seen them, and a writer that began on top of them fails its commit
** (its base no longer matches). Holds mu. */
static void unpublish(pager *p) {
    for (uint32_t f = p->mxc; f-- > p->mxd;) {
        pgno_t pg = p->fpgno[f];
        if (p->fprev[f] == NO_FRAME) pgmap_del(&p->last, pg);
        else pgmap_put(&p->last, pg, p->fprev[f]);
        pentry *e = cache_find(p, pg, wal_version(p->gen, f));
        if (e) cache_drop(p, e);
    }
    p->mxc = p->mxd;
    p->wal_end = frame_off(p, p->mxd);
    p->st.wal_bytes = p->wal_end;
}

/* wal_sync_upto makes the WAL durable at least up to the commit of transaction number seq (0:
** every published commit) and lets readers see what it made durable. Commits that queue behind
** one fsync are covered by it (group commit). If the fsync fails, every commit it should have
** covered is taken back and its frames overwritten with zeros, so that no trace of it survives;
** if even that cannot be made durable, the handle refuses further writes. */
/* drop_superseded runs once frames [from, to) are durable: the versions of their pages that
** they replaced are dead when every snapshot sees past them, and are dropped from the cache at
** once. Otherwise an update-heavy workload fills the cache with dead versions until eviction
** reaches them, pushing out live pages, and every commit takes fresh memory for its pages.
** Dropping a version is always safe (a later miss reads it again); the snapshot test only
** spares versions a reader may still want. Holds mu. */
static void drop_superseded(pager *p, uint32_t from, uint32_t to) {
    uint32_t oldest = UINT32_MAX;
    for (snapshot *s = p->snaps; s; s = s->next) {
        if (s->gen != p->gen) return; /* a reader from before a WAL restart: leave it all */
        if (s->mx < oldest) oldest = s->mx;
    }
    for (uint32_t f = from; f < to && f < oldest; f++) {
        uint32_t prev = p->fprev[f];
        pentry *e = cache_find(p, p->fpgno[f], prev == NO_FRAME ? 0 : wal_version(p->gen, prev));
        if (e) cache_drop(p, e);
    }
}

static int wal_sync_upto(pager *p, uint32_t seq, strata_err *err) {
    int rc = STRATA_OK;
    pthread_mutex_lock(&p->sync_mu);
    pthread_mutex_lock(&p->mu);
    uint64_t gen = p->gen;
    uint32_t target = p->mxc, target_seq = p->published_seq;
    if (seq == 0) seq = p->published_seq;
    int needed = 0;
    if (p->poisoned)
        rc = err_set(err, STRATA_IOERR, "%s: an earlier fsync failed; reopen the database", p->path);
    else if (seq > p->durable_seq && seq <= p->undone_seq)
        rc = err_set(err, STRATA_IOERR, "%s: rolled back because the fsync of an earlier commit failed", p->path);
    else
        needed = seq > p->durable_seq;
    pthread_mutex_unlock(&p->mu);
    if (needed) {
        rc = p->cfg.no_sync ? STRATA_OK : vfs_sync(p->wal, err);
        pthread_mutex_lock(&p->mu);
        p->st.syncs++;
        if (rc == STRATA_OK) {
            if (target_seq > p->durable_seq) p->durable_seq = target_seq;
            if (p->gen == gen && target > p->mxd) {
                uint32_t from = p->mxd;
                p->mxd = target;
                snapshot_retire(p);
                drop_superseded(p, from, target);
            }
            pthread_mutex_unlock(&p->mu);
        } else {
            p->undone_seq = p->published_seq;
            uint64_t from = frame_off(p, p->mxd), to = frame_off(p, p->mxc);
            unpublish(p);
            pthread_mutex_unlock(&p->mu);
            static const uint8_t zeros[64 << 10];
            int zrc = STRATA_OK;
            for (uint64_t off = from; off < to && zrc == STRATA_OK; off += sizeof zeros)
                zrc = vfs_write(p->wal, zeros, to - off < sizeof zeros ? to - off : sizeof zeros, off, NULL);
            if (zrc == STRATA_OK && !p->cfg.no_sync) zrc = vfs_sync(p->wal, NULL);
            if (zrc != STRATA_OK) {
                pthread_mutex_lock(&p->mu);
                p->poisoned = 1;
                pthread_mutex_unlock(&p->mu);
            }
        }
    }
    pthread_mutex_unlock(&p->sync_mu);
    return rc;
}

/* A large transaction writes the pages it added to the file (page numbers from its base_npages
** on, not spilled to the WAL) straight into the database file, synced before its WAL frames:
** no snapshot can see those page numbers, so nothing they overwrite is needed, and a crash
** before the commit frame is durable leaves them beyond the page count, unused. The pages are
** written once instead of twice (WAL, then checkpoint). Smaller transactions keep to the WAL:
** the second fsync would cost them more than the copy saves. */
/* split_direct moves the pages to write directly to the end of es (sorted by page number, and
** kept so) and counts them in *nd; none unless they reach cfg.direct_bytes and a WAL page (the
** header) remains for the commit frame. Returns -1 when out of memory. */
static int split_direct(pager_txn *t, pentry **es, uint32_t n, uint32_t *nd) {
    uint32_t k = 0;
    uint64_t v;
    *nd = 0;
    for (uint32_t i = 0; i < n; i++)
        k += es[i]->pg.pgno >= t->base_npages && !pgmap_get(&t->spilled, es[i]->pg.pgno, &v);
    if (k == n || (uint64_t)k * t->p->page_size < t->p->cfg.direct_bytes) return 0;
    pentry **tmp = malloc((size_t)k * sizeof *tmp);
    if (!tmp) return -1;
    uint32_t w = 0, d = 0;
    for (uint32_t i = 0; i < n; i++) {
        int direct = es[i]->pg.pgno >= t->base_npages && !pgmap_get(&t->spilled, es[i]->pg.pgno, &v);
        if (direct) tmp[d++] = es[i];
        else es[w++] = es[i];
    }
    memcpy(es + w, tmp, (size_t)k * sizeof *tmp);
    free(tmp);
    *nd = k;
    return 0;
}

/* direct_write seals pages es[0..n) (ascending page numbers) and writes them into the database
** file, consecutive pages in one write of up to 1 MiB, then syncs the file. */
static int direct_write(pager_txn *t, pentry **es, uint32_t n) {
    pager *p = t->p;
    const uint32_t run_max = (1u << 20) / p->page_size;
    uint8_t *buf = malloc((size_t)run_max * p->page_size);
    if (!buf) return err_set(&t->err, STRATA_NOMEM, "out of memory committing");
    int rc = STRATA_OK;
    for (uint32_t i = 0, run = 0; i < n && !rc; i++) {
        page_seal(p, es[i]->pg.data);
        memcpy(buf + (size_t)run++ * p->page_size, es[i]->pg.data, p->page_size);
        if (i + 1 == n || es[i + 1]->pg.pgno != es[i]->pg.pgno + 1 || run == run_max) {
            rc = vfs_write(p->db, buf, (size_t)run * p->page_size,
                           (uint64_t)(es[i]->pg.pgno + 1 - run) * p->page_size, &t->err);
            run = 0;
        }
    }
    free(buf);
    if (!rc && !p->cfg.no_sync) rc = vfs_sync(p->db, &t->err);
    pthread_mutex_lock(&p->mu);
    p->st.syncs++;
    if (!rc) p->st.pages_written_direct += n;
    pthread_mutex_unlock(&p->mu);
    return rc;
}

int pager_commit(pager_txn *t, strata_err *err) {
    pager *p = t->p;
    int rc = STRATA_OK;
    if (!t->write) { txn_end(t); return STRATA_OK; }
    if (t->hdr_dirty || (t->dirty.count == 0 && t->nspill > 0)) {
        pentry *h;
        if ((rc = own_copy(t, 0, &h))) goto fail;
        if (!h) {
            pentry *c;
            if ((rc = get_committed(t, 0, &c))) goto fail;
            rc = dirty_new(t, 0, c->pg.data, &h);
            unpin(p, c);
            if (rc) goto fail;
        }
        uint8_t *d = h->pg.data;
        put32(d + H_NPAGES, t->npages);
        put32(d + H_FREE_HEAD, t->free_head);
        put32(d + H_FREE_COUNT, t->free_count);
        for (int i = 0; i < PAGER_META_SLOTS; i++) put64(d + H_META + 8 * i, t->meta[i]);
        h->pins--;
    }
    if (t->dirty.count == 0) { txn_end(t); return STRATA_OK; } /* nothing changed */

    uint32_t n, nd;
    pentry **es = collect_dirty(t, 1, cmp_entry_pgno, &n);
    if (!es || split_direct(t, es, n, &nd)) {
        free(es);
        rc = err_set(&t->err, STRATA_NOMEM, "out of memory committing");
        goto fail;
    }
    n -= nd; /* es[0..n) go to the WAL, es[n..n+nd) straight to the database file */
    uint32_t first = p->mxc + t->nspill, end = first + n;
    pthread_mutex_lock(&p->mu);
    int base_ok = t->snap->gen == p->gen && t->snap->mx == p->mxc;
    int room = index_reserve(p, end) == 0 && pgmap_reserve(&p->last, t->nspill + n) == 0;
    pthread_mutex_unlock(&p->mu);
    if (!base_ok) {
        free(es);
        rc = err_set(&t->err, STRATA_IOERR, "%s: the commit this transaction built on failed", p->path);
        goto fail;
    }
    if (!room) { free(es); rc = err_set(&t->err, STRATA_NOMEM, "out of memory committing"); goto fail; }
    /* A WAL still young grows here, by up to what went to the file directly, towards the size it
    ** keeps: its growth is paid in this large commit rather than in the small ones to come. */
    if (nd) wal_grow(p, p->wal_alloc + (uint64_t)nd * p->page_size < WAL_KEEP_BYTES
                            ? p->wal_alloc + (uint64_t)nd * p->page_size : WAL_KEEP_BYTES);
    if ((nd && (rc = direct_write(t, es + n, nd))) || (rc = wal_append(t, es, n, first, t->npages))) {
        free(es);
        goto fail;
    }

    /* Publish to the next writer; readers see the transaction once it is durable. */
    pthread_mutex_lock(&p->mu);
    for (uint32_t i = 0; i < t->nspill; i++) index_add(p, p->mxc + i, t->spill_pgno[i]);
    for (uint32_t i = 0; i < n + nd; i++) {
        pentry *e = es[i];
        if (i < n) {
            index_add(p, first + i, e->pg.pgno);
            e->version = wal_version(p->gen, first + i);
        } else { /* in the file; a copy left by a commit whose fsync failed is out of date */
            pentry *old = cache_find(p, e->pg.pgno, 0);
            if (old) cache_drop(p, old);
            e->version = 0;
        }
        pgmap_del(&t->dirty, e->pg.pgno);
        t->dirty_bytes -= p->page_size;
        /* the committed image stays cached as a clean entry */
        e->kind = ENTRY_CLEAN;
        e->pins = 0;
        e->ref = 1;
        cache_insert(p, e);
        if (e->stale) { p->bytes_used -= p->page_size; entry_free(p, e); }
        else ring_add(p, e);
    }
    p->mxc = end;
    p->wal_end = frame_off(p, end);
    p->st.commits++;
    p->st.wal_bytes = p->wal_end;
    p->published_seq = t->seq;
    uint32_t mine = t->seq;
    pthread_mutex_unlock(&p->mu);
    free(es);
    txn_end(t); /* the next writer may start while this commit waits for its fsync */

    if ((rc = wal_sync_upto(p, mine, err))) return rc;
    pthread_mutex_lock(&p->mu);
    int ckpt = p->wal_end > p->cfg.autocheckpoint_bytes && !p->writer_active;
    if (ckpt) p->writer_active = 1; /* the checkpoint takes the writer role if it is free */
    pthread_mutex_unlock(&p->mu);
    if (ckpt) {
        strata_err cerr = {0};
        checkpoint_locked(p, &cerr); /* the commit is durable; a failed checkpoint is retried later */
        pthread_mutex_lock(&p->mu);
        p->writer_active = 0;
        pthread_cond_broadcast(&p->writer_cv);
        pthread_mutex_unlock(&p->mu);
    }
    return STRATA_OK;

fail:
    err_set(err, rc, "%s", t->err.msg);
    txn_end(t);
    return rc;
}

/* Before the checkpoint overwrites the database file, every snapshot that sees a version of a
** page other than the one being written gets a private copy of its version. */
typedef struct preserve_job {
    snapshot *s;
    pgno_t pgno;
    uint32_t frame; /* NO_FRAME: the database file's copy */
} preserve_job;

static int preserve_for_snapshots(pager *p, const uint32_t *pages, uint32_t npages, strata_err *err) {
    preserve_job *jobs = NULL;
    size_t njobs = 0, cap = 0;
    int rc = STRATA_OK;
    pthread_mutex_lock(&p->mu);
    for (snapshot *s = p->snaps; s; s = s->next) {
        if (s->refs == 0) continue;
        for (uint32_t i = 0; i < npages; i++) {
            uint64_t v, last = NO_FRAME; /* every page listed is in the index */
            if (s->npages && pages[i] >= s->npages) continue; /* beyond what it sees */
            if (s->preserved.count && pgmap_get(&s->preserved, pages[i], &v)) continue;
            pgmap_get(&p->last, pages[i], &last);
            uint32_t f = s->detached ? NO_FRAME : wal_find(p, pages[i], s->mx);
            if (f == (uint32_t)last) continue;
            if (njobs == cap) {
                cap = cap ? cap * 2 : 64;
                preserve_job *nj = realloc(jobs, cap * sizeof *nj);
                if (!nj) { rc = err_set(err, STRATA_NOMEM, "out of memory in checkpoint"); goto unlock; }
                jobs = nj;
            }
            jobs[njobs++] = (preserve_job){s, pages[i], f};
            s->refs++;
        }
    }
unlock:
    pthread_mutex_unlock(&p->mu);
    for (size_t j = 0; j < njobs; j++) {
        if (rc) break;
        pentry *e = entry_new(p, jobs[j].pgno, ENTRY_PRESERVED);
        if (!e) { rc = err_set(err, STRATA_NOMEM, "out of memory preserving page %u", jobs[j].pgno); break; }
        uint64_t version = jobs[j].frame == NO_FRAME ? 0 : wal_version(0, jobs[j].frame);
        size_t got;
        rc = read_version(p, jobs[j].pgno, version, e->pg.data, &got, err);
        if (!rc && version == 0 && got == 0) { /* not in the file: the page did not exist for s */
            entry_free(p, e);
            continue;
        }
        if (!rc) rc = check_version(p, jobs[j].pgno, version, e->pg.data, got, err);
        pthread_mutex_lock(&p->mu);
        if (rc || pgmap_put(&jobs[j].s->preserved, jobs[j].pgno, (uintptr_t)e)) {
            entry_free(p, e);
            if (!rc) rc = err_set(err, STRATA_NOMEM, "out of memory preserving page %u", jobs[j].pgno);
        }
        pthread_mutex_unlock(&p->mu);
    }
    pthread_mutex_lock(&p->mu);
    for (size_t j = 0; j < njobs; j++) snapshot_unref(p, jobs[j].s);
    pthread_mutex_unlock(&p->mu);
    free(jobs);
    return rc;
}

/* rekey_after_checkpoint: once the database file holds the newest frame of every page, the
** cached copy of that frame is the file's copy, so it stays cached as version 0; cached older
** frames of the finished generation can never be asked for again and are dropped. Holds mu,
** before the WAL index is cleared. */
static void rekey_after_checkpoint(pager *p, uint64_t old_gen) {
    pentry *moved = NULL;
    for (uint32_t i = 0; i < p->hcap; i++) {
        for (pentry **pp = &p->htab[i]; *pp;) {
            pentry *e = *pp;
            if (e->version == 0 || e->version >> 32 != old_gen) {
                pp = &e->hnext;
                continue;
            }
            *pp = e->hnext;
            p->hcount--;
            uint64_t last;
            if (pgmap_get(&p->last, e->pg.pgno, &last) && wal_version(old_gen, (uint32_t)last) == e->version) {
                e->hnext = moved;
                moved = e;
            } else if (e->pins) {
                e->stale = 1;
            } else {
                ring_remove(p, e);
                p->bytes_used -= p->page_size;
                entry_free(p, e);
            }
        }
    }
    while (moved) { /* the table cannot need to grow: it held these entries a moment ago */
        pentry *e = moved;
        moved = e->hnext;
        e->version = 0;
        cache_insert(p, e);
    }
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* checkpoint_locked copies every committed frame into the database file, syncs it and starts
** the WAL over. The caller holds the writer role. On error the WAL is left as it was, so no
** committed data is lost. */
static int checkpoint_locked(pager *p, strata_err *err) {
    /* Only durable frames are copied: first wait for (or do) the fsync of commits in flight. */
    int rc = wal_sync_upto(p, 0, err);
    if (rc) return rc;
    pthread_mutex_lock(&p->mu);
    uint32_t n = p->last.count, k = 0, it = 0, pg;
    uint64_t v;
    uint32_t *pages = malloc((n + 1) * sizeof *pages);
    if (pages)
        while (pgmap_next(&p->last, &it, &pg, &v)) pages[k++] = pg;
    pthread_mutex_unlock(&p->mu);
    if (!pages) return err_set(err, STRATA_NOMEM, "out of memory in checkpoint");
    qsort(pages, n, sizeof *pages, cmp_u32);

    rc = preserve_for_snapshots(p, pages, n, err);
    const uint32_t run_max = (1u << 20) / p->page_size; /* pages per write */
    uint8_t *buf = malloc((size_t)run_max * p->page_size);
    if (!rc && !buf) rc = err_set(err, STRATA_NOMEM, "out of memory in checkpoint");
    if (!rc && n) {
        pthread_mutex_lock(&p->mu);
        p->epoch++;
        pthread_mutex_unlock(&p->mu);
        /* Runs of consecutive pages go out in one write; each page comes from the cache when it
        ** holds that frame, else from the WAL. */
        uint32_t run = 0;
        for (uint32_t i = 0; i < n && !rc; i++) {
            uint8_t *dst = buf + (size_t)run * p->page_size;
            pthread_mutex_lock(&p->mu);
            pgmap_get(&p->last, pages[i], &v);
            pentry *e = cache_find(p, pages[i], wal_version(p->gen, (uint32_t)v));
            if (e) memcpy(dst, e->pg.data, p->page_size);
            pthread_mutex_unlock(&p->mu);
            if (!e) rc = read_frame(p, (uint32_t)v, dst, pages[i], err);
            run++;
            int last_of_run = i + 1 == n || pages[i + 1] != pages[i] + 1 || run == run_max;
            if (!rc && last_of_run) {
                rc = vfs_write(p->db, buf, (size_t)run * p->page_size,
                               (uint64_t)(pages[i] + 1 - run) * p->page_size, err);
                run = 0;
            }
        }
        pthread_mutex_lock(&p->mu);
        for (uint32_t i = 0; i < n; i++) { /* the file's old copies are gone */
            pentry *e = cache_find(p, pages[i], 0);
            if (e) cache_drop(p, e);
        }
        pthread_mutex_unlock(&p->mu);
        if (!rc && !p->cfg.no_sync) rc = vfs_sync(p->db, err);
    }
    free(buf);
    free(pages);
    if (rc) return rc;

    pthread_mutex_lock(&p->mu);
    p->st.pages_checkpointed += n;
    uint64_t old_gen = p->gen;
    for (snapshot *s = p->snaps; s; s = s->next) s->detached = 1;
    snapshot_retire(p);
    p->gen++;
    p->epoch++;
    p->salt = new_salt();
    p->mxc = p->mxd = 0;
    rekey_after_checkpoint(p, old_gen);
    pgmap_clear(&p->last);
    p->wal_hdr_written = 0;
    uint64_t old_end = p->wal_end;
    p->wal_end = 0;
    p->st.wal_bytes = 0;
    pthread_mutex_unlock(&p->mu);
    /* A WAL that grew past a few checkpoint sizes (one big transaction) is cut back, keeping
    ** some allocated blocks for the commits to come (see wal_extend). */
    if (old_end > 4 * p->cfg.autocheckpoint_bytes && p->wal_alloc > WAL_KEEP_BYTES &&
        vfs_truncate(p->wal, WAL_KEEP_BYTES, NULL) == STRATA_OK)
        p->wal_alloc = WAL_KEEP_BYTES;
    return STRATA_OK;
}

int pager_checkpoint(pager *p, strata_err *err) {
    if (p->cfg.read_only) return err_set(err, STRATA_READONLY, "%s: opened read-only", p->path);
    if (!p->wal) return STRATA_OK; /* open for reading only: the file holds every commit */
    pthread_mutex_lock(&p->mu);
    while (p->writer_active) pthread_cond_wait(&p->writer_cv, &p->mu);
    p->writer_active = 1;
    pthread_mutex_unlock(&p->mu);
    strata_err e = {0};
    int rc = checkpoint_locked(p, &e);
    pthread_mutex_lock(&p->mu);
    p->writer_active = 0;
    pthread_cond_broadcast(&p->writer_cv);
    pthread_mutex_unlock(&p->mu);
    if (rc)
        err_set(err, rc,
                "the write-ahead log %s could not be folded into %s (%s); it stays beside it and keeps every "
                "commit: the next open applies them",
                p->wal_path, p->path, e.code ? e.msg : strata_errstr(rc));
    return rc;
}

/* ---- open, recovery, close -------------------------------------------------------------------- */

typedef struct frame_info {
    uint32_t pgno, commit, idx, seq;
    int ok; /* header and page checksums match this WAL's salt */
} frame_info;

static int frame_read_check(pager *p, uint32_t i, uint8_t *buf, frame_info *fi, strata_err *err) {
    size_t got;
    int rc = vfs_read(p->wal, buf, p->page_size, frame_off(p, i), &got, err);
    if (rc) return rc;
    fi->ok = 0;
    if (got != p->page_size) return STRATA_OK;
    const uint8_t *t = tail(p, buf);
    fi->pgno = get32(t + T_PGNO);
    fi->commit = get32(t + T_COMMIT);
    fi->idx = get32(t + T_FRAME);
    fi->seq = get32(t + T_SEQ);
    fi->ok = get64(t + T_SALT) == p->salt && fi->idx == i && get32(t + T_FCRC) == crc32c(0, t, T_FCRC) &&
             page_ok(p, buf);
    return STRATA_OK;
}

/* wal_recover rebuilds the WAL index from the committed frames of the WAL file. A frame that
** fails its checks ends the log (a torn tail) unless a later, valid commit frame of the same or a
** later transaction follows it: then committed data is damaged and recovery reports CORRUPT. */
static int wal_recover(pager *p, strata_err *err) {
    p->gen = 1;
    p->salt = new_salt();
    p->next_seq = 1;
    if (!p->wal) return STRATA_OK; /* no WAL: read-only without one, or none could be made */
    uint64_t size;
    int rc = vfs_size(p->wal, &size, err);
    if (rc) return rc;
    p->wal_alloc = size;
    if (size < WAL_HDR) return STRATA_OK;
    uint8_t h[WAL_HDR];
    size_t got;
    if ((rc = vfs_read(p->wal, h, WAL_HDR, 0, &got, err))) return rc;
    static const uint8_t zero[WAL_HDR];
    if (memcmp(h, zero, WAL_HDR) == 0) return STRATA_OK;
    if (memcmp(h, WAL_MAGIC, 8) != 0 || get32(h + 24) != crc32c(0, h, 24)) {
        if (p->cfg.read_only) { /* salvage: the database file alone */
            snprintf(p->wal_damage, sizeof p->wal_damage, "%s: WAL header is damaged: the WAL is left out", p->wal_path);
            return STRATA_OK;
        }
        return err_set(err, STRATA_CORRUPT, "%s: WAL header is damaged or not a strata WAL", p->wal_path);
    }
    if (get32(h + 8) > PAGER_FORMAT_VERSION)
        return err_set(err, STRATA_FORMAT, "%s: WAL format version %u is newer than this build supports (%u)",
                       p->wal_path, get32(h + 8), PAGER_FORMAT_VERSION);
    if (get32(h + 12) != p->page_size) {
        if (p->cfg.read_only) {
            snprintf(p->wal_damage, sizeof p->wal_damage, "%s: WAL page size %u is not the database's: the WAL is left out",
                     p->wal_path, get32(h + 12));
            return STRATA_OK;
        }
        return err_set(err, STRATA_CORRUPT, "%s: WAL page size %u does not match the database's %u",
                       p->wal_path, get32(h + 12), p->page_size);
    }
    p->salt = get64(h + 16);

    uint64_t nframes = size / p->page_size;
    nframes = nframes ? nframes - 1 : 0; /* the first page-sized slot is the header's */
    if (nframes > UINT32_MAX - 1) nframes = UINT32_MAX - 1;
    uint8_t *buf = malloc(p->page_size);
    if (!buf) return err_set(err, STRATA_NOMEM, "out of memory in recovery");
    uint32_t i = 0, committed = 0, last_seq = 0, max_seq = 0;
    frame_info fi = {0};
    for (; i < nframes; i++) {
        if ((rc = frame_read_check(p, i, buf, &fi, err))) goto done;
        if (!fi.ok || fi.seq < last_seq) break;
        if (index_reserve(p, i + 1)) { rc = err_set(err, STRATA_NOMEM, "out of memory in recovery"); goto done; }
        p->fpgno[i] = fi.pgno;
        last_seq = fi.seq;
        if (fi.seq > max_seq) max_seq = fi.seq;
        if (fi.commit) committed = i + 1;
    }
    if (i < nframes) { /* is it a torn tail, or damage inside committed frames? */
        uint32_t bad = i, bad_pgno = get32(tail(p, buf) + T_PGNO);
        for (uint32_t j = bad + 1; j < nframes; j++) {
            if ((rc = frame_read_check(p, j, buf, &fi, err))) goto done;
            if (fi.ok && fi.commit && fi.seq >= last_seq) {
                if (p->cfg.read_only) { /* salvage: the state of the last commit before the damage */
                    snprintf(p->wal_damage, sizeof p->wal_damage,
                             "page %u: checksum mismatch in WAL frame %u of %s: the commits from there on are left out",
                             bad_pgno, bad, p->wal_path);
                    break;
                }
                rc = err_set(err, STRATA_CORRUPT, "page %u: checksum mismatch in WAL frame %u of %s (committed data)",
                             bad_pgno, bad, p->wal_path);
                goto done;
            }
        }
    }
    for (uint32_t f = 0; f < committed; f++) {
        uint64_t prev;
        p->fprev[f] = pgmap_get(&p->last, p->fpgno[f], &prev) ? (uint32_t)prev : NO_FRAME;
        if (pgmap_put(&p->last, p->fpgno[f], f)) { rc = err_set(err, STRATA_NOMEM, "out of memory in recovery"); goto done; }
    }
    p->mxc = p->mxd = committed;
    p->next_seq = max_seq + 1;
    p->published_seq = p->durable_seq = max_seq;
    p->wal_hdr_written = 1;
    p->wal_end = frame_off(p, committed);
    p->st.wal_bytes = p->wal_end;
    /* What recovery found may sit only in the OS cache (the writer was killed before its
    ** fsync); make it durable before building on it. */
    if (committed && !p->cfg.no_sync && !p->cfg.read_only) rc = vfs_sync(p->wal, err);
done:
    free(buf);
    return rc;
}

/* db_init writes the header of a new database and syncs it. */
static int db_init(pager *p, strata_err *err) {
    uint8_t *d = calloc(1, p->page_size);
    if (!d) return err_set(err, STRATA_NOMEM, "out of memory creating %s", p->path);
    header_format(p, d, 1);
    page_seal(p, d);
    int rc = vfs_truncate(p->db, 0, err);
    if (!rc) rc = vfs_write(p->db, d, p->page_size, 0, err);
    if (!rc) rc = vfs_sync(p->db, err);
    free(d);
    return rc;
}

/* db_check_header validates the database header; *fresh is set when the file holds no complete
** database yet (empty, or a header write that a crash cut short before anything was committed). */
static int db_check_header(pager *p, uint32_t want_page_size, int *fresh, strata_err *err) {
    uint64_t size;
    int rc = vfs_size(p->db, &size, err);
    if (rc) return rc;
    *fresh = 0;
    if (size == 0) { *fresh = 1; p->page_size = want_page_size; return STRATA_OK; }
    uint8_t h[64] = {0};
    size_t got;
    if ((rc = vfs_read(p->db, h, sizeof h, 0, &got, err))) return rc;
    if (got < sizeof h || memcmp(h, DB_MAGIC, sizeof DB_MAGIC) != 0)
        return err_set(err, STRATA_NOTADB, "%s: file is not a strata database", p->path);
    uint32_t version = get32(h + H_VERSION), ps = get32(h + H_PAGE_SIZE);
    if (version > PAGER_FORMAT_VERSION)
        return err_set(err, STRATA_FORMAT, "%s: format version %u is newer than this build supports (%u)",
                       p->path, version, PAGER_FORMAT_VERSION);
    if (version == 0 || ps < PAGER_MIN_PAGE_SIZE || ps > PAGER_MAX_PAGE_SIZE || (ps & (ps - 1)))
        return err_set(err, STRATA_CORRUPT, "page 0: header of %s has a bad version %u or page size %u",
                       p->path, version, ps);
    p->page_size = ps;
    if (size < ps) {
        uint64_t wsize = 0;
        int exists = 0;
        vfs_exists(p->vfs, p->wal_path, &exists, NULL);
        if (exists && p->wal) vfs_size(p->wal, &wsize, NULL);
        if (wsize == 0) { *fresh = 1; return STRATA_OK; }
        return err_set(err, STRATA_CORRUPT, "page 0: header of %s is truncated", p->path);
    }
    /* The header's checksum is checked when page 0 is first read, after recovery: a checkpoint
    ** cut short by a crash may have torn it, and then the WAL holds its committed image. */
    return STRATA_OK;
}

int pager_open(vfs *v, const char *path, const pager_config *cfg, pager **out, strata_err *err) {
    *out = NULL;
    pager *p = calloc(1, sizeof *p);
    if (!p) return err_set(err, STRATA_NOMEM, "out of memory opening %s", path);
    int rc;
    if (cfg) p->cfg = *cfg;
    uint32_t want = p->cfg.page_size ? p->cfg.page_size : 8192;
    if (want < PAGER_MIN_PAGE_SIZE || want > PAGER_MAX_PAGE_SIZE || (want & (want - 1))) {
        free(p);
        return err_set(err, STRATA_MISUSE, "page size %u is not a power of two in [4096, 65536]", want);
    }
    if (!p->cfg.cache_bytes) p->cfg.cache_bytes = 64u << 20;
    if (!p->cfg.autocheckpoint_bytes) p->cfg.autocheckpoint_bytes = 16u << 20;
    if (!p->cfg.direct_bytes) p->cfg.direct_bytes = 1u << 20;
    p->vfs = v;
    size_t len = strlen(path);
    p->path = malloc(len + 1);
    p->wal_path = malloc(len + 5);
    if (!p->path || !p->wal_path) { free(p->path); free(p->wal_path); free(p); return err_set(err, STRATA_NOMEM, "out of memory"); }
    memcpy(p->path, path, len + 1);
    memcpy(p->wal_path, path, len);
    memcpy(p->wal_path + len, "-wal", 5);
    pthread_mutex_init(&p->mu, NULL);
    pthread_mutex_init(&p->sync_mu, NULL);
    pthread_mutex_init(&p->pool_mu, NULL);
    pthread_cond_init(&p->writer_cv, NULL);
    p->lru.lnext = p->lru.lprev = &p->lru;
    p->hand = &p->lru;

    int ro = p->cfg.read_only;
    if ((rc = vfs_open(v, path, ro ? VFS_READONLY : VFS_CREATE, &p->db, err))) goto fail;
    if ((rc = vfs_lock(p->db, err))) goto fail;
    p->locked = 1;
    if ((rc = vfs_exists(v, p->wal_path, &p->wal_existed, err))) goto fail;
    if (ro) { /* read-only: a WAL that is there is read, none is made */
        if (p->wal_existed && (rc = vfs_open(v, p->wal_path, VFS_READONLY, &p->wal, err))) goto fail;
    } else if ((rc = vfs_open(v, p->wal_path, VFS_CREATE, &p->wal, &p->no_wal)) && p->wal_existed) {
        /* No WAL, and none can be made (a full disk, a directory we may not write): the file holds
        ** every commit, so the database opens for reading only and a write transaction says why. */
        err_set(err, rc, "%s", p->no_wal.msg);
        goto fail;
    }
    int fresh;
    if ((rc = db_check_header(p, want, &fresh, err))) goto fail;
    if (fresh && ro) {
        rc = err_set(err, STRATA_NOTADB, "%s: file holds no database (empty or without a complete header)", path);
        goto fail;
    }
    if (fresh && !p->wal) {
        rc = err_set(err, p->no_wal.code, "%s", p->no_wal.msg);
        goto fail;
    }
    if (fresh) {
        if ((rc = vfs_truncate(p->wal, 0, err))) goto fail;
        if ((rc = db_init(p, err))) goto fail;
    }
    if ((rc = wal_recover(p, err))) goto fail;
    /* Read the header once through the WAL to check it. */
    pager_txn *t;
    if ((rc = pager_begin(p, 0, &t, err))) goto fail;
    pager_rollback(t);
    p->opened = 1;
    *out = p;
    return STRATA_OK;
fail:
    pager_close(p);
    return rc;
}

/* pager_close removes the WAL only when the database file holds every commit: after a checkpoint
** that completed (every committed page written and the file synced), or when the WAL holds no
** commit. Removing it then cannot lose a commit whenever a crash comes: before the unlink the WAL's
** frames are copies of what the synced file holds, and the next open applies them again, which
** changes nothing; after it the file alone is complete. A crash during the checkpoint leaves the
** WAL as it was (the checkpoint never changes it), and the next open applies it. In every other
** case the WAL stays as it is: a checkpoint that failed (a full disk, an I/O error), a handle
** whose fsync failed, or a WAL that a failed open found; it holds every commit it held. */
int pager_close(pager *p) {
    if (!p) return STRATA_OK;
    int drop_wal = p->wal && !p->cfg.read_only && (p->opened ? !p->poisoned : !p->wal_existed);
    if (p->opened && drop_wal && p->mxc > 0) {
        strata_err e = {0};
        drop_wal = pager_checkpoint(p, &e) == STRATA_OK;
    }
    if (drop_wal) {
        vfs_close(p->wal);
        p->wal = NULL;
        vfs_remove(p->vfs, p->wal_path, NULL); /* a WAL that stays anyway is applied again, harmlessly */
    }
    while (p->snaps) snapshot_free(p, p->snaps);
    for (uint32_t i = 0; i < p->hcap; i++)
        for (pentry *e = p->htab[i], *nx; e; e = nx) { nx = e->hnext; free(e); }
    free(p->htab);
    pgmap_free(&p->last);
    free(p->fpgno);
    free(p->fprev);
    vfs_close(p->wal);
    if (p->locked) vfs_unlock(p->db);
    vfs_close(p->db);
    pthread_mutex_destroy(&p->mu);
    pthread_mutex_destroy(&p->sync_mu);
    while (p->pool) {
        pentry *e = p->pool;
        p->pool = e->hnext;
        free(e);
    }
    pthread_mutex_destroy(&p->pool_mu);
    pthread_cond_destroy(&p->writer_cv);
    free(p->path);
    free(p->wal_path);
    free(p);
    return STRATA_OK;
}

void pager_set_cache_bytes(pager *p, size_t bytes) {
    pthread_mutex_lock(&p->mu);
    p->cfg.cache_bytes = bytes < 16 * (size_t)p->page_size ? 16 * (size_t)p->page_size : bytes;
    cache_make_room(p, 0);
    pthread_mutex_unlock(&p->mu);
}

void pager_get_stats(pager *p, pager_stats *out) {
    pthread_mutex_lock(&p->mu);
    *out = p->st;
    out->cache_bytes_used = p->bytes_used;
    pthread_mutex_unlock(&p->mu);
}

const char *pager_wal_damage(const pager *p) { return p->wal_damage; }
