/*
** vfs_mem.c -- the in-memory vfs: files are byte buffers in a private namespace.
**
** Each vfs_mem_create() makes an independent file system. A file (node) is reference-counted by
** its namespace entry and its open handles, so a removed file stays readable and writable
** through handles that were open, as on POSIX. One mutex per file system serializes every call,
** which makes handles safe to share between threads. Locks are a per-node owner: a second handle
** on the same file gets STRATA_BUSY.
**
** The fault vfs (vfs_fault.c) is this file system with faulty set: every call passes through
** fault_begin(), and writes and truncates are also recorded as unsynced changes.
*/
#include "vfs_mem_internal.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct mem_handle {
    vfs_file base;
    mem_fs *fs;
    mem_node *node;
    int readonly;
    char path[]; /* for messages; the node loses its path when removed */
} mem_handle;

int mem_buf_reserve(mem_buf *b, uint64_t size) {
    if (size <= b->cap) return 0;
    if (size > MEM_FILE_MAX || size > SIZE_MAX / 2) return EFBIG;
    size_t cap = b->cap < 4096 ? 4096 : b->cap;
    while (cap < size) cap *= 2;
    unsigned char *data = realloc(b->data, cap);
    if (data == NULL) return ENOMEM;
    b->data = data;
    b->cap = cap;
    return 0;
}

void mem_buf_write(mem_buf *b, uint64_t off, const void *src, size_t n) {
    if (n == 0) return;
    assert(off + n <= b->cap);
    if (off > b->size) memset(b->data + b->size, 0, off - b->size);
    memcpy(b->data + off, src, n);
    if (off + n > b->size) b->size = off + n;
}

void mem_buf_truncate(mem_buf *b, uint64_t size) {
    assert(size <= b->cap);
    if (size > b->size) memset(b->data + b->size, 0, size - b->size);
    b->size = size;
}

mem_node *mem_lookup(mem_fs *fs, const char *path) {
    for (mem_node *nd = fs->nodes; nd != NULL; nd = nd->next)
        if (nd->path != NULL && strcmp(nd->path, path) == 0) return nd;
    return NULL;
}

/* node_unref drops one reference and frees the node when none is left. */
static void node_unref(mem_fs *fs, mem_node *nd) {
    if (--nd->refs > 0) return;
    mem_node **pp = &fs->nodes;
    while (*pp != nd) pp = &(*pp)->next;
    *pp = nd->next;
    fs->total -= nd->cur.size;
    fault_forget(nd);
    free(nd->cur.data);
    free(nd->durable.data);
    free(nd->path);
    free(nd);
}

/* node_write writes n bytes at off; 0, or an errno with the node unchanged: EFBIG past
** MEM_FILE_MAX, ENOSPC past the capacity, ENOMEM. */
static int node_write(mem_fs *fs, mem_node *nd, const void *buf, size_t n, uint64_t off) {
    if (n == 0) return 0;
    if (off > MEM_FILE_MAX || n > MEM_FILE_MAX - off) return EFBIG;
    uint64_t size = off + n > nd->cur.size ? off + n : nd->cur.size;
    if (fs->capacity != 0 && fs->total - nd->cur.size + size > fs->capacity) return ENOSPC;
    int e = mem_buf_reserve(&nd->cur, size);
    if (e == 0 && fs->faulty) e = fault_track(nd, 0, off, buf, n);
    if (e != 0) return e;
    fs->total += size - nd->cur.size;
    mem_buf_write(&nd->cur, off, buf, n);
    return 0;
}

/* node_truncate sets the size; 0, or an errno (EFBIG, ENOMEM) with the node unchanged. Growing
** a file is not limited by the capacity, as a sparse file on disk. */
static int node_truncate(mem_fs *fs, mem_node *nd, uint64_t size) {
    int e = mem_buf_reserve(&nd->cur, size);
    if (e == 0 && fs->faulty) e = fault_track(nd, 1, size, NULL, 0);
    if (e != 0) return e;
    fs->total = fs->total - nd->cur.size + size;
    mem_buf_truncate(&nd->cur, size);
    return 0;
}

/* The file methods implement the contracts of vfs.h; each takes the file system's mutex for
** the whole call and builds its error message after releasing it. */

static int mem_close(vfs_file *file) {
    mem_handle *h = (mem_handle *)file;
    mem_fs *fs = h->fs;
    pthread_mutex_lock(&fs->mu);
    if (h->node->lock_owner == h) h->node->lock_owner = NULL;
    node_unref(fs, h->node);
    pthread_mutex_unlock(&fs->mu);
    free(h);
    return STRATA_OK;
}

static int mem_read(vfs_file *file, void *buf, size_t n, uint64_t off, size_t *nread, strata_err *err) {
    mem_handle *h = (mem_handle *)file;
    mem_buf *cur = &h->node->cur;
    *nread = 0;
    pthread_mutex_lock(&h->fs->mu);
    int e = fault_begin(h->fs, VFS_OP_READ, NULL);
    if (e == 0 && off < cur->size) {
        *nread = cur->size - off < n ? (size_t)(cur->size - off) : n;
        memcpy(buf, cur->data + off, *nread);
    }
    pthread_mutex_unlock(&h->fs->mu);
    return e ? err_errno(err, e, "read %s at offset %" PRIu64, h->path, off) : STRATA_OK;
}

static int mem_write(vfs_file *file, const void *buf, size_t n, uint64_t off, strata_err *err) {
    mem_handle *h = (mem_handle *)file;
    if (h->readonly) return err_set(err, STRATA_READONLY, "write %s: file is opened read-only", h->path);
    int crash;
    pthread_mutex_lock(&h->fs->mu);
    int e = fault_begin(h->fs, VFS_OP_WRITE, &crash);
    if (crash)
        (void)node_write(h->fs, h->node, buf, fault_torn_length(n), off); /* the torn write */
    else if (e == 0)
        e = node_write(h->fs, h->node, buf, n, off);
    pthread_mutex_unlock(&h->fs->mu);
    return e ? err_errno(err, e, "write %s at offset %" PRIu64, h->path, off) : STRATA_OK;
}

static int mem_sync(vfs_file *file, strata_err *err) {
    mem_handle *h = (mem_handle *)file;
    pthread_mutex_lock(&h->fs->mu);
    int e = fault_begin(h->fs, VFS_OP_SYNC, NULL);
    if (e == 0 && h->fs->faulty) fault_settle(h->node);
    pthread_mutex_unlock(&h->fs->mu);
    return e ? err_errno(err, e, "sync %s", h->path) : STRATA_OK;
}

static int mem_truncate(vfs_file *file, uint64_t size, strata_err *err) {
    mem_handle *h = (mem_handle *)file;
    if (h->readonly) return err_set(err, STRATA_READONLY, "truncate %s: file is opened read-only", h->path);
    pthread_mutex_lock(&h->fs->mu);
    int e = fault_begin(h->fs, VFS_OP_TRUNCATE, NULL);
    if (e == 0) e = node_truncate(h->fs, h->node, size);
    pthread_mutex_unlock(&h->fs->mu);
    return e ? err_errno(err, e, "truncate %s to %" PRIu64 " bytes", h->path, size) : STRATA_OK;
}

static int mem_size(vfs_file *file, uint64_t *out, strata_err *err) {
    mem_handle *h = (mem_handle *)file;
    pthread_mutex_lock(&h->fs->mu);
    int e = fault_begin(h->fs, 0, NULL);
    if (e == 0) *out = h->node->cur.size;
    pthread_mutex_unlock(&h->fs->mu);
    return e ? err_errno(err, e, "size of %s", h->path) : STRATA_OK;
}

static int mem_lock(vfs_file *file, strata_err *err) {
    mem_handle *h = (mem_handle *)file;
    int busy = 0;
    pthread_mutex_lock(&h->fs->mu);
    int e = fault_begin(h->fs, 0, NULL);
    if (e == 0 && h->node->lock_owner != NULL && h->node->lock_owner != h)
        busy = 1;
    else if (e == 0)
        h->node->lock_owner = h;
    pthread_mutex_unlock(&h->fs->mu);
    if (busy) return err_set(err, STRATA_BUSY, "database is locked by another connection: %s", h->path);
    return e ? err_errno(err, e, "lock %s", h->path) : STRATA_OK;
}

static void mem_unlock(vfs_file *file) {
    mem_handle *h = (mem_handle *)file;
    pthread_mutex_lock(&h->fs->mu);
    if (h->node->lock_owner == h) h->node->lock_owner = NULL;
    pthread_mutex_unlock(&h->fs->mu);
}

static const vfs_file_methods mem_file_methods = {
    mem_close, mem_read, mem_write, mem_sync, mem_truncate, mem_size, mem_lock, mem_unlock,
};

/* mem_open finds or creates the node. A new file is empty and, in the fault vfs, immediately
** durable: namespace changes (create, remove) are not subject to power loss. */
static int mem_open(vfs *v, const char *path, int flags, vfs_file **out, strata_err *err) {
    mem_fs *fs = (mem_fs *)v;
    size_t len = strlen(path);
    mem_node *nd = NULL;
    int e;
    *out = NULL;
    mem_handle *h = malloc(sizeof *h + len + 1);
    if (h == NULL) return err_set(err, STRATA_NOMEM, "open %s: out of memory", path);
    pthread_mutex_lock(&fs->mu);
    if ((e = fault_begin(fs, VFS_OP_OPEN, NULL)) != 0) goto fail;
    nd = mem_lookup(fs, path);
    if (nd == NULL) {
        e = ENOENT;
        if (!(flags & VFS_CREATE)) goto fail;
        e = ENOMEM;
        if ((nd = calloc(1, sizeof *nd)) == NULL || (nd->path = strdup(path)) == NULL) goto fail;
        nd->refs = 1;
        nd->next = fs->nodes;
        fs->nodes = nd;
    }
    nd->refs++;
    pthread_mutex_unlock(&fs->mu);
    h->base.m = &mem_file_methods;
    h->fs = fs;
    h->node = nd;
    h->readonly = (flags & VFS_READONLY) != 0;
    memcpy(h->path, path, len + 1);
    *out = &h->base;
    return STRATA_OK;
fail:
    pthread_mutex_unlock(&fs->mu);
    if (nd != NULL && nd->refs == 0) free(nd); /* a node whose path could not be copied */
    free(h);
    return err_errno(err, e, "open %s", path);
}

static int mem_remove(vfs *v, const char *path, strata_err *err) {
    mem_fs *fs = (mem_fs *)v;
    pthread_mutex_lock(&fs->mu);
    int e = fault_begin(fs, 0, NULL);
    mem_node *nd = e == 0 ? mem_lookup(fs, path) : NULL;
    if (nd != NULL) {
        free(nd->path);
        nd->path = NULL;
        node_unref(fs, nd);
    }
    pthread_mutex_unlock(&fs->mu);
    return e ? err_errno(err, e, "remove %s", path) : STRATA_OK;
}

static int mem_exists(vfs *v, const char *path, int *out, strata_err *err) {
    mem_fs *fs = (mem_fs *)v;
    pthread_mutex_lock(&fs->mu);
    int e = fault_begin(fs, 0, NULL);
    *out = e == 0 && mem_lookup(fs, path) != NULL;
    pthread_mutex_unlock(&fs->mu);
    return e ? err_errno(err, e, "exists %s", path) : STRATA_OK;
}

/* mem_destroy frees the file system and every file in it; no handle may be open. */
static void mem_destroy(vfs *v) {
    mem_fs *fs = (mem_fs *)v;
    while (fs->nodes != NULL) {
        fs->nodes->refs = 1;
        node_unref(fs, fs->nodes);
    }
    pthread_mutex_destroy(&fs->mu);
    free(fs);
}

static const vfs_methods mem_methods = {mem_open, mem_remove, mem_exists, mem_destroy};

mem_fs *mem_fs_create(int faulty) {
    mem_fs *fs = calloc(1, sizeof *fs);
    if (fs == NULL) return NULL;
    if (pthread_mutex_init(&fs->mu, NULL) != 0) {
        free(fs);
        return NULL;
    }
    fs->base.m = &mem_methods;
    fs->faulty = faulty;
    return fs;
}

mem_fs *mem_fs_of(vfs *v) { return v != NULL && v->m == &mem_methods ? (mem_fs *)v : NULL; }

vfs *vfs_mem_create(void) {
    mem_fs *fs = mem_fs_create(0);
    return fs ? &fs->base : NULL;
}
