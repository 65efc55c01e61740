/*
** vfs_posix.c -- the vfs on POSIX files: pread/pwrite, fdatasync, flock.
**
** One static vfs serves the whole process. Every error message names the file. Locks are
** flock() locks, which belong to an open file description, so two handles on the same file
** conflict whether they are in one process or two. Descriptors are opened O_CLOEXEC so that a
** child process does not inherit (and keep alive) a database lock. A file that open created
** gets its name made durable (an fsync of its directory) at its first sync.
*/
#include "vfs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct posix_file {
    vfs_file base;
    int fd;
    int readonly;
    int dirfd;  /* this handle created the file: its directory, to sync at the first sync; else -1 */
    char path[]; /* for messages */
} posix_file;

/* The methods follow the contracts of vfs.h. Reads and writes loop over short transfers and
** EINTR; a write or truncate through a VFS_READONLY handle gives STRATA_READONLY. */

static int posix_close(vfs_file *file) {
    posix_file *f = (posix_file *)file;
    /* close() is not retried on EINTR: on Linux the descriptor is gone either way. */
    int rc = close(f->fd) == 0 ? STRATA_OK : STRATA_IOERR;
    if (f->dirfd >= 0) close(f->dirfd); /* never synced: nothing was written that needs its name */
    free(f);
    return rc;
}

static int posix_read(vfs_file *file, void *buf, size_t n, uint64_t off, size_t *nread, strata_err *err) {
    posix_file *f = (posix_file *)file;
    size_t done = 0;
    *nread = 0;
    while (done < n) {
        ssize_t r = pread(f->fd, (char *)buf + done, n - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return err_errno(err, errno, "read %s at offset %" PRIu64, f->path, off + done);
        if (r == 0) break; /* end of file */
        done += (size_t)r;
    }
    *nread = done;
    return STRATA_OK;
}

static int posix_write(vfs_file *file, const void *buf, size_t n, uint64_t off, strata_err *err) {
    posix_file *f = (posix_file *)file;
    if (f->readonly) return err_set(err, STRATA_READONLY, "write %s: file is opened read-only", f->path);
    size_t done = 0;
    while (done < n) {
        ssize_t w = pwrite(f->fd, (const char *)buf + done, n - done, (off_t)(off + done));
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return err_errno(err, errno, "write %s at offset %" PRIu64, f->path, off + done);
        done += (size_t)w;
    }
    return STRATA_OK;
}

/* open_parent opens the directory that holds path (for sync_parent); -1 when it cannot. */
static int open_parent(const char *path) {
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash) {
        dir[0] = '.', dir[1] = '\0';
    } else {
        size_t n = slash == path ? 1 : (size_t)(slash - path);
        if (n >= sizeof dir) return -1;
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    int fd;
    do fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    return fd;
}

/* sync_parent makes the directory entry of a file this handle created durable: an fdatasync of
** the file does not, by POSIX, and a WAL whose name a power cut took would lose its commits. A
** file system that cannot sync a directory (EINVAL) is taken at its word; a directory that could
** not be opened (no permission to read it) cannot be synced by us at all. */
static int sync_parent(posix_file *f, strata_err *err) {
    if (f->dirfd < 0) return STRATA_OK;
    while (fsync(f->dirfd) != 0)
        if (errno != EINTR) {
            if (errno == EINVAL) break;
            return err_errno(err, errno, "sync the directory of %s", f->path);
        }
    close(f->dirfd);
    f->dirfd = -1;
    return STRATA_OK;
}

/* posix_sync makes the file's writes durable and, the first time after this handle created the
** file, its name too: a file that is only read never pays for a directory sync. */
static int posix_sync(vfs_file *file, strata_err *err) {
    posix_file *f = (posix_file *)file;
    while (fdatasync(f->fd) != 0)
        if (errno != EINTR) return err_errno(err, errno, "sync %s", f->path);
    return sync_parent(f, err);
}

static int posix_truncate(vfs_file *file, uint64_t size, strata_err *err) {
    posix_file *f = (posix_file *)file;
    if (f->readonly) return err_set(err, STRATA_READONLY, "truncate %s: file is opened read-only", f->path);
    while (ftruncate(f->fd, (off_t)size) != 0)
        if (errno != EINTR) return err_errno(err, errno, "truncate %s to %" PRIu64 " bytes", f->path, size);
    return STRATA_OK;
}

static int posix_size(vfs_file *file, uint64_t *out, strata_err *err) {
    posix_file *f = (posix_file *)file;
    struct stat st;
    if (fstat(f->fd, &st) != 0) return err_errno(err, errno, "size of %s", f->path);
    *out = (uint64_t)st.st_size;
    return STRATA_OK;
}

static int posix_lock(vfs_file *file, strata_err *err) {
    posix_file *f = (posix_file *)file;
    while (flock(f->fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK)
            return err_set(err, STRATA_BUSY, "database is locked by another process: %s", f->path);
        if (errno != EINTR) return err_errno(err, errno, "lock %s", f->path);
    }
    return STRATA_OK;
}

static void posix_unlock(vfs_file *file) {
    posix_file *f = (posix_file *)file;
    while (flock(f->fd, LOCK_UN) != 0 && errno == EINTR) {
    }
}

static const vfs_file_methods posix_file_methods = {
    posix_close, posix_read, posix_write, posix_sync, posix_truncate, posix_size, posix_lock, posix_unlock,
};

static int posix_open(vfs *v, const char *path, int flags, vfs_file **out, strata_err *err) {
    (void)v;
    *out = NULL;
    size_t len = strlen(path);
    int rc, oflags = O_CLOEXEC | ((flags & VFS_READONLY) ? O_RDONLY : O_RDWR);
    posix_file *f = malloc(sizeof *f + len + 1);
    if (f == NULL) return err_set(err, STRATA_NOMEM, "open %s: out of memory", path);
    int created = 0;
    for (;;) {
        /* O_EXCL first, to know whether this call created the file */
        if (flags & VFS_CREATE) {
            do f->fd = open(path, oflags | O_CREAT | O_EXCL, 0644);
            while (f->fd < 0 && errno == EINTR);
            if (f->fd >= 0) { created = 1; break; }
            if (errno != EEXIST) break;
        }
        do f->fd = open(path, oflags, 0644);
        while (f->fd < 0 && errno == EINTR);
        if (f->fd >= 0 || errno != ENOENT || !(flags & VFS_CREATE)) break; /* ENOENT: removed meanwhile */
    }
    if (f->fd < 0) {
        rc = err_errno(err, errno, "open %s", path);
        goto fail;
    }
    f->base.m = &posix_file_methods;
    f->readonly = (flags & VFS_READONLY) != 0;
    f->dirfd = created ? open_parent(path) : -1;
    memcpy(f->path, path, len + 1);
    *out = &f->base;
    return STRATA_OK;
fail:
    free(f);
    return rc;
}

static int posix_remove(vfs *v, const char *path, strata_err *err) {
    (void)v;
    if (unlink(path) != 0 && errno != ENOENT) return err_errno(err, errno, "remove %s", path);
    return STRATA_OK;
}

static int posix_exists(vfs *v, const char *path, int *out, strata_err *err) {
    (void)v;
    struct stat st;
    *out = 0;
    if (stat(path, &st) == 0) {
        *out = 1;
    } else if (errno != ENOENT && errno != ENOTDIR) {
        return err_errno(err, errno, "exists %s", path);
    }
    return STRATA_OK;
}

static const vfs_methods posix_methods = {posix_open, posix_remove, posix_exists, NULL};
static vfs posix_vfs = {&posix_methods};

vfs *vfs_posix(void) { return &posix_vfs; }
