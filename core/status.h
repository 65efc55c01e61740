/*
** status.h -- error reporting inside the library.
**
** A strata_err is the error slot of a context (a database handle, a transaction, a file). A
** failing function sets it with err_set() and returns the same status code, so the caller can
** write `return err_set(err, STRATA_CORRUPT, "page %u: checksum mismatch", pgno);`.
** The slot keeps the first error's message until err_clear(): a later, derived failure does not
** overwrite the message that explains the root cause.
*/
#ifndef STRATA_STATUS_H
#define STRATA_STATUS_H

#include "strata.h"

#define STRATA_ERRMSG_MAX 512

typedef struct strata_err {
    int code;                     /* STRATA_OK when no error is recorded */
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

/* err_clear forgets a recorded error. */
void err_clear(strata_err *err);

#endif
