/*
** vfs_fault.c -- the fault-injecting vfs: the in-memory file system of vfs_mem.c with, per file,
** its durable content and the unsynced changes since, a plan that makes a chosen call fail, a
** size limit, and simulated power loss.
**
** Model. A file's current content is always its durable content with its unsynced changes
** applied in order. sync applies them to the durable content and forgets them. A power loss
** either drops them (VFS_LOSE_UNSYNCED) or keeps them all (VFS_KEEP_UNSYNCED); a write cut by
** a crash is recorded torn (only its first part), so keeping unsynced data exposes the torn
** write as a real disk could. Creating and removing a file take effect at once and durably.
** Buffers never shrink and the durable buffer is reserved as large as the current one at every
** change, so sync and power loss never allocate and cannot fail.
*/
#include "vfs_mem_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int fault_begin(mem_fs *fs, unsigned op, int *crash) {
    if (crash != NULL) *crash = 0;
    if (!fs->faulty) return 0;
    if (fs->crashed) return EIO;
    if ((fs->plan.op_mask & op) == 0) return 0;
    fs->count++;
    if (fs->plan.fail_at == 0 || fs->count < fs->plan.fail_at) return 0;
    if (fs->count > fs->plan.fail_at && !fs->plan.persistent) return 0;
    if (fs->count == fs->plan.fail_at && fs->plan.crash) {
        fs->crashed = 1;
        if (crash != NULL) *crash = 1;
    }
    return fs->plan.fail_errno ? fs->plan.fail_errno : EIO;
}

/* Half of the write survives, in whole 512-byte sectors when there is at least one. */
size_t fault_torn_length(size_t n) {
    size_t half = n / 2;
    return half >= 512 ? half & ~(size_t)511 : half;
}

int fault_track(mem_node *nd, int is_truncate, uint64_t off, const void *buf, size_t n) {
    mem_op *op = malloc(sizeof *op + n);
    if (op == NULL || mem_buf_reserve(&nd->durable, is_truncate ? off : off + n) != 0) {
        free(op);
        return ENOMEM;
    }
    op->next = NULL;
    op->is_truncate = is_truncate;
    op->off = off;
    op->n = n;
    if (n > 0) memcpy(op->data, buf, n);
    if (nd->ops_last != NULL)
        nd->ops_last->next = op;
    else
        nd->ops = op;
    nd->ops_last = op;
    return 0;
}

void fault_settle(mem_node *nd) {
    for (mem_op *op = nd->ops; op != NULL; op = op->next) {
        if (op->is_truncate)
            mem_buf_truncate(&nd->durable, op->off);
        else
            mem_buf_write(&nd->durable, op->off, op->data, op->n);
    }
    fault_forget(nd);
}

void fault_forget(mem_node *nd) {
    while (nd->ops != NULL) {
        mem_op *next = nd->ops->next;
        free(nd->ops);
        nd->ops = next;
    }
    nd->ops_last = NULL;
}

vfs *vfs_fault_create(void) {
    mem_fs *fs = mem_fs_create(1);
    return fs ? &fs->base : NULL;
}

/* The functions below accept any in-memory vfs; those about the plan and power loss do nothing
** on a plain one (vfs_mem_create), which keeps no durable content. */

void vfs_fault_set_plan(vfs *v, const vfs_fault_plan *plan) {
    mem_fs *fs = mem_fs_of(v);
    if (fs == NULL || !fs->faulty) return;
    pthread_mutex_lock(&fs->mu);
    if (plan != NULL)
        fs->plan = *plan;
    else
        memset(&fs->plan, 0, sizeof fs->plan);
    fs->count = 0;
    pthread_mutex_unlock(&fs->mu);
}

uint64_t vfs_fault_count(vfs *v) {
    mem_fs *fs = mem_fs_of(v);
    if (fs == NULL) return 0;
    pthread_mutex_lock(&fs->mu);
    uint64_t count = fs->count;
    pthread_mutex_unlock(&fs->mu);
    return count;
}

int vfs_fault_crashed(vfs *v) {
    mem_fs *fs = mem_fs_of(v);
    if (fs == NULL) return 0;
    pthread_mutex_lock(&fs->mu);
    int crashed = fs->crashed;
    pthread_mutex_unlock(&fs->mu);
    return crashed;
}

void vfs_fault_set_capacity(vfs *v, uint64_t bytes) {
    mem_fs *fs = mem_fs_of(v);
    if (fs == NULL) return;
    pthread_mutex_lock(&fs->mu);
    fs->capacity = bytes;
    pthread_mutex_unlock(&fs->mu);
}

/* vfs_fault_power_loss also releases every lock, as the restart of the process would, and
** clears the plan, the call counter and the crashed state. */
void vfs_fault_power_loss(vfs *v, int mode) {
    mem_fs *fs = mem_fs_of(v);
    if (fs == NULL || !fs->faulty) return;
    pthread_mutex_lock(&fs->mu);
    fs->total = 0;
    for (mem_node *nd = fs->nodes; nd != NULL; nd = nd->next) {
        if (mode == VFS_KEEP_UNSYNCED)
            fault_settle(nd);
        else
            fault_forget(nd);
        /* cur's capacity holds every size the file ever had, so this does not allocate */
        mem_buf_truncate(&nd->cur, 0);
        mem_buf_write(&nd->cur, 0, nd->durable.data, nd->durable.size);
        nd->lock_owner = NULL;
        fs->total += nd->cur.size;
    }
    memset(&fs->plan, 0, sizeof fs->plan);
    fs->count = 0;
    fs->crashed = 0;
    pthread_mutex_unlock(&fs->mu);
}

/* poke writes into the current and the durable content (extending both as needed); unsynced
** changes stay as they were, so VFS_KEEP_UNSYNCED re-applies those that overlap. STRATA_NOTFOUND
** for a missing file, STRATA_FULL past MEM_FILE_MAX, STRATA_NOMEM; nothing changes on error.
** The capacity does not apply. */
int vfs_fault_poke(vfs *v, const char *path, uint64_t off, const void *buf, size_t n) {
    mem_fs *fs = mem_fs_of(v);
    if (fs == NULL) return STRATA_MISUSE;
    int rc = STRATA_OK, e = 0;
    pthread_mutex_lock(&fs->mu);
    mem_node *nd = mem_lookup(fs, path);
    if (nd == NULL) {
        rc = STRATA_NOTFOUND;
    } else if (n > 0) {
        if (off > MEM_FILE_MAX || n > MEM_FILE_MAX - off) e = EFBIG;
        if (e == 0) e = mem_buf_reserve(&nd->cur, off + n);
        if (e == 0 && fs->faulty) e = mem_buf_reserve(&nd->durable, off + n);
        if (e == 0) {
            fs->total -= nd->cur.size;
            mem_buf_write(&nd->cur, off, buf, n);
            fs->total += nd->cur.size;
            if (fs->faulty) mem_buf_write(&nd->durable, off, buf, n);
        }
        rc = e == 0 ? STRATA_OK : e == EFBIG ? STRATA_FULL : STRATA_NOMEM;
    }
    pthread_mutex_unlock(&fs->mu);
    return rc;
}

/* peek reads the current content, as vfs_read would but uncounted and even after a crash;
** *nread is less than n only at the end of the file. STRATA_NOTFOUND for a missing file. */
int vfs_fault_peek(vfs *v, const char *path, uint64_t off, void *buf, size_t n, size_t *nread) {
    mem_fs *fs = mem_fs_of(v);
    *nread = 0;
    if (fs == NULL) return STRATA_MISUSE;
    pthread_mutex_lock(&fs->mu);
    mem_node *nd = mem_lookup(fs, path);
    if (nd != NULL && off < nd->cur.size) {
        *nread = nd->cur.size - off < n ? (size_t)(nd->cur.size - off) : n;
        memcpy(buf, nd->cur.data + off, *nread);
    }
    pthread_mutex_unlock(&fs->mu);
    return nd != NULL ? STRATA_OK : STRATA_NOTFOUND;
}

/* file_size gives the current size; STRATA_NOTFOUND for a missing file. */
int vfs_fault_file_size(vfs *v, const char *path, uint64_t *out) {
    mem_fs *fs = mem_fs_of(v);
    if (fs == NULL) return STRATA_MISUSE;
    pthread_mutex_lock(&fs->mu);
    mem_node *nd = mem_lookup(fs, path);
    if (nd != NULL) *out = nd->cur.size;
    pthread_mutex_unlock(&fs->mu);
    return nd != NULL ? STRATA_OK : STRATA_NOTFOUND;
}
