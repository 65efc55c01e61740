/*
** status.h -- error reporting inside the library.
**
** A strata_err is the error slot of a context (a database handle, a transaction, a file). A
** failing function sets it with err_set() and returns the same status code, so the caller can
** write `return err_set(err, STRATA_CORRUPT, "page %u: checksum mismatch", pgno);`.
** The slot keeps the first error's message until err_clear(): a later, derived failure does not
** overwrite the message that explains the root cause.
**
** Threads. A slot may be shared by threads that fail at once (the workers of one query share
** their transaction's, pager_txn_err): err_set and err_errno claim it with a compare-and-swap on
** code (ERR_WRITING while the message is written, the error's code once it is whole), so exactly
** one error's message is kept, whole. Another thread reads a shared slot's message only through
** err_copy (which waits out a message being written) or after the writers were joined. err_clear
** and plain writes of code are for a slot no other thread can reach at the time: code that may
** run on a worker builds a message it would rewrite in a strata_err of its own and err_sets (or
** err_copies) that, never clearing a shared slot.
*/
#ifndef STRATA_STATUS_H
#define STRATA_STATUS_H

#include "strata.h"

#define STRATA_ERRMSG_MAX 512

/* The code of a slot whose first error's message is being written (never returned). */
#define ERR_WRITING (-1)

typedef struct strata_err {
    int code;                     /* STRATA_OK when no error is recorded; atomic where shared */
    char msg[STRATA_ERRMSG_MAX];  /* NUL-terminated message, "" when code is STRATA_OK */
} strata_err;

/* err_set records code and a printf-style message in err (which may be NULL) unless an error is
** already recorded, and returns code. */
int err_set(strata_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* err_from_errno maps an errno value from a failed system call to a status code (ENOSPC and
** EFBIG to STRATA_FULL, ENOMEM to STRATA_NOMEM, EWOULDBLOCK/EAGAIN to STRATA_BUSY, everything
** else to STRATA_IOERR) and records "<what>: <strerror>" like err_set. */
int err_errno(strata_err *err, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* err_copy records src's error, code and message, in dst as err_set does and returns its code;
** STRATA_OK (dst unchanged) when src holds none. src may be a slot other threads are setting:
** a message being written is waited for, so the copy is always one whole message. */
int err_copy(strata_err *dst, const strata_err *src);

/* err_clear forgets a recorded error (not for a slot other threads may be setting). */
void err_clear(strata_err *err);

#endif
