/*
** vfs.h -- the file layer. Every byte strata reads or writes goes through a vfs, so that the
** same engine runs on POSIX files, entirely in memory, or on a fault-injecting file system that
** tests use to simulate I/O errors, a full disk and power loss.
**
** All calls return a STRATA_* status and record a message in err (which may be NULL). File
** handles may be used from several threads at once: read and write are positional (pread and
** pwrite semantics) and do not share a file offset.
*/
#ifndef STRATA_VFS_H
#define STRATA_VFS_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct vfs vfs;
typedef struct vfs_file vfs_file;

/* Flags of vfs_open. */
#define VFS_CREATE 0x1   /* create the file when it does not exist */
#define VFS_READONLY 0x2 /* open for reading only */

typedef struct vfs_file_methods {
    int (*close)(vfs_file *f);
    /* read n bytes at off into buf; *nread (never NULL) gets the count, less than n only at EOF */
    int (*read)(vfs_file *f, void *buf, size_t n, uint64_t off, size_t *nread, strata_err *err);
    /* write n bytes at off, extending the file as needed; all or nothing from the caller's view */
    int (*write)(vfs_file *f, const void *buf, size_t n, uint64_t off, strata_err *err);
    /* make every completed write durable (fdatasync), and the file's name when this handle created
    ** the file (POSIX: an fsync of its directory at the first sync) */
    int (*sync)(vfs_file *f, strata_err *err);
    int (*truncate)(vfs_file *f, uint64_t size, strata_err *err);
    int (*size)(vfs_file *f, uint64_t *out, strata_err *err);
    /* take an exclusive, non-blocking lock on the whole file; STRATA_BUSY if another open file
    ** handle (in this or another process) holds it */
    int (*lock)(vfs_file *f, strata_err *err);
    void (*unlock)(vfs_file *f);
} vfs_file_methods;

struct vfs_file {
    const vfs_file_methods *m;
};

typedef struct vfs_methods {
    /* open a file; a missing file without VFS_CREATE is STRATA_IOERR ("No such file ...").
    ** write and truncate through a VFS_READONLY handle give STRATA_READONLY */
    int (*open)(vfs *v, const char *path, int flags, vfs_file **out, strata_err *err);
    /* remove a file; a missing file is not an error */
    int (*remove)(vfs *v, const char *path, strata_err *err);
    int (*exists)(vfs *v, const char *path, int *out, strata_err *err);
    void (*destroy)(vfs *v); /* free the vfs itself (NULL for the static POSIX vfs) */
} vfs_methods;

struct vfs {
    const vfs_methods *m;
};

/* Convenience wrappers, one per method. */
static inline int vfs_open(vfs *v, const char *path, int flags, vfs_file **out, strata_err *err) {
    return v->m->open(v, path, flags, out, err);
}
static inline int vfs_remove(vfs *v, const char *path, strata_err *err) { return v->m->remove(v, path, err); }
static inline int vfs_exists(vfs *v, const char *path, int *out, strata_err *err) {
    return v->m->exists(v, path, out, err);
}
static inline void vfs_destroy(vfs *v) { if (v && v->m->destroy) v->m->destroy(v); }
static inline int vfs_close(vfs_file *f) { return f ? f->m->close(f) : STRATA_OK; }
static inline int vfs_read(vfs_file *f, void *buf, size_t n, uint64_t off, size_t *nread, strata_err *err) {
    return f->m->read(f, buf, n, off, nread, err);
}
static inline int vfs_write(vfs_file *f, const void *buf, size_t n, uint64_t off, strata_err *err) {
    return f->m->write(f, buf, n, off, err);
}
static inline int vfs_sync(vfs_file *f, strata_err *err) { return f->m->sync(f, err); }
static inline int vfs_truncate(vfs_file *f, uint64_t size, strata_err *err) { return f->m->truncate(f, size, err); }
static inline int vfs_size(vfs_file *f, uint64_t *out, strata_err *err) { return f->m->size(f, out, err); }
static inline int vfs_lock(vfs_file *f, strata_err *err) { return f->m->lock(f, err); }
static inline void vfs_unlock(vfs_file *f) { f->m->unlock(f); }

/* The POSIX file system (static; never destroyed). Locks are flock() locks, so a second open of
** the same file, in this process or another, cannot take the lock. */
vfs *vfs_posix(void);

/* A private in-memory file system; each call creates a new, empty one. NULL on out of memory.
** Free it with vfs_destroy() after every file is closed. */
vfs *vfs_mem_create(void);

/*
** The fault-injecting file system: an in-memory file system that remembers, for every file, its
** durable content (as of its last sync) and the writes and truncations issued since. It counts
** the calls selected by a plan's op mask and can make one of them fail, and it simulates power
** loss: every file reverts to its durable content, optionally with a prefix of the unsynced
** writes applied and the last of them torn.
** Creating a file (vfs_open with VFS_CREATE) and removing one take effect at once and are
** durable: only content changes (write, truncate) wait for a sync. The calls a plan cannot
** select (size, lock, exists, remove) are never counted, but fail with EIO after a crash.
*/
#define VFS_OP_READ 0x1
#define VFS_OP_WRITE 0x2
#define VFS_OP_SYNC 0x4
#define VFS_OP_TRUNCATE 0x8
#define VFS_OP_OPEN 0x10
#define VFS_OP_ALL 0x1f

typedef struct vfs_fault_plan {
    unsigned op_mask;   /* which calls are counted (VFS_OP_*) */
    uint64_t fail_at;   /* the 1-based number of the counted call that fails; 0 = none */
    int fail_errno;     /* errno of the failure: EIO, ENOSPC, ... */
    int crash;          /* nonzero: the failing call is a power cut. A write is torn (its first
                        ** half is kept as an unsynced write), a sync does not happen, and every
                        ** later call fails with EIO until vfs_fault_power_loss() */
    int persistent;     /* nonzero: every counted call after fail_at fails too (a dead disk) */
} vfs_fault_plan;

/* What survives a simulated power loss. */
#define VFS_LOSE_UNSYNCED 0   /* only what was synced */
#define VFS_KEEP_UNSYNCED 1   /* every unsynced write, in order, the crash write torn (if any) */

vfs *vfs_fault_create(void);
void vfs_fault_set_plan(vfs *v, const vfs_fault_plan *plan); /* also resets the call counter */
uint64_t vfs_fault_count(vfs *v);                            /* counted calls so far */
int vfs_fault_crashed(vfs *v);                               /* has the crash call happened */
/* Limit the total bytes of all files' current content; a write that would pass it fails with
** ENOSPC (STRATA_FULL) and changes nothing. Truncate, which makes sparse space, is not limited.
** 0 = none. */
void vfs_fault_set_capacity(vfs *v, uint64_t bytes);
/* Simulate a power loss with one of VFS_LOSE_UNSYNCED / VFS_KEEP_UNSYNCED. Open handles stay
** valid but must only be closed; afterwards the plan is cleared and the vfs works normally. */
void vfs_fault_power_loss(vfs *v, int mode);
/* Direct access to file content for corruption tests: read/overwrite bytes of a closed or open
** file as if on disk (durable content and current content both change). peek reads the current
** content and works even after a crash. These return STRATA_NOTFOUND for a missing file. */
int vfs_fault_poke(vfs *v, const char *path, uint64_t off, const void *buf, size_t n);
int vfs_fault_peek(vfs *v, const char *path, uint64_t off, void *buf, size_t n, size_t *nread);
int vfs_fault_file_size(vfs *v, const char *path, uint64_t *out);

#endif
