/*
** vfs_mem_internal.h -- structures shared by the in-memory vfs (vfs_mem.c) and the fault-
** injecting vfs (vfs_fault.c), which is the same file system with durability tracking and a
** fault plan switched on. Nothing outside those two files includes this header.
**
** Locking: one mutex per file system guards the namespace, every node and the fault state; all
** functions declared here expect it held, except mem_fs_create and mem_fs_of.
*/
#ifndef STRATA_VFS_MEM_INTERNAL_H
#define STRATA_VFS_MEM_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "vfs.h"

/* The largest in-memory file; a write or truncate beyond it fails with EFBIG (STRATA_FULL). */
#define MEM_FILE_MAX ((uint64_t)1 << 36)

/* A growable byte buffer. Its capacity never shrinks, which the fault vfs relies on: content
** that was once current fits without allocating when a power loss restores it. */
typedef struct mem_buf {
    unsigned char *data;
    size_t size; /* bytes of content */
    size_t cap;  /* bytes allocated */
} mem_buf;

/* An unsynced change of a file in the fault vfs, kept to be re-applied at a power loss. */
typedef struct mem_op {
    struct mem_op *next; /* the next younger change */
    int is_truncate;
    uint64_t off; /* a write's offset, a truncate's new size */
    size_t n;     /* a write's byte count, 0 for a truncate */
    unsigned char data[];
} mem_op;

/* A file. It lives while it is in the namespace or open: refs counts both. */
typedef struct mem_node {
    struct mem_node *next; /* every live node of the file system, in the namespace or not */
    char *path;            /* NULL once removed from the namespace */
    int refs;              /* open handles, plus one while in the namespace */
    const void *lock_owner;/* the handle holding the lock, NULL when unlocked */
    mem_buf cur;           /* the content reads see */
    mem_buf durable;       /* fault vfs: the content as of the last sync */
    mem_op *ops, *ops_last;/* fault vfs: the unsynced changes, oldest first */
} mem_node;

typedef struct mem_fs {
    vfs base;
    pthread_mutex_t mu;
    mem_node *nodes;
    uint64_t total;      /* sum of the current sizes of all nodes */
    uint64_t capacity;   /* limit of total for writes; 0 = none */
    int faulty;          /* the fault vfs: track durability and apply the plan */
    vfs_fault_plan plan;
    uint64_t count;      /* calls counted under the plan */
    int crashed;         /* the crash call has happened; everything fails until power loss */
} mem_fs;

/* vfs_mem.c */
mem_fs *mem_fs_create(int faulty);   /* NULL on out of memory */
mem_fs *mem_fs_of(vfs *v);           /* v as an in-memory file system, NULL if it is not one */
mem_node *mem_lookup(mem_fs *fs, const char *path); /* the node in the namespace, or NULL */
/* mem_buf_reserve makes room for size bytes; 0, or EFBIG / ENOMEM with b unchanged. */
int mem_buf_reserve(mem_buf *b, uint64_t size);
/* mem_buf_write and mem_buf_truncate change content within the reserved capacity (never
** allocate); bytes between the old end and a new one read as zeros. */
void mem_buf_write(mem_buf *b, uint64_t off, const void *src, size_t n);
void mem_buf_truncate(mem_buf *b, uint64_t size);

/* vfs_fault.c */
/* fault_begin is called at the start of every file system call except close, with the call's
** VFS_OP_* kind (0 for kinds a plan cannot select). It counts the call under the plan and
** returns 0 to let it proceed, or the errno it must fail with; *crash (may be NULL) is set
** when this call is the power cut. Always 0 on a plain in-memory file system. */
int fault_begin(mem_fs *fs, unsigned op, int *crash);
/* fault_torn_length is how many bytes of an n-byte write a power cut lets reach the disk. */
size_t fault_torn_length(size_t n);
/* fault_track records a write (buf, n at off) or a truncate (to off) as unsynced, after the
** caller reserved the current content; 0 or ENOMEM with nothing recorded. */
int fault_track(mem_node *nd, int is_truncate, uint64_t off, const void *buf, size_t n);
/* fault_settle makes the node's unsynced changes durable (a sync); it cannot fail. */
void fault_settle(mem_node *nd);
/* fault_forget frees the node's unsynced changes without applying them. */
void fault_forget(mem_node *nd);

#endif
