/*
** status.c -- status code descriptions and the error slot of a context (status.h says how a slot
** shared by threads is claimed).
*/
#include "status.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

const char *strata_errstr(int code) {
    switch (code) {
    case STRATA_OK: return "not an error";
    case STRATA_ERROR: return "SQL or logic error";
    case STRATA_BUSY: return "database is locked";
    case STRATA_CORRUPT: return "database disk image is malformed";
    case STRATA_IOERR: return "disk I/O error";
    case STRATA_NOMEM: return "out of memory";
    case STRATA_FULL: return "database or disk is full";
    case STRATA_CONSTRAINT: return "constraint failed";
    case STRATA_MISUSE: return "bad parameter or API misuse";
    case STRATA_INTERRUPT: return "interrupted";
    case STRATA_NOTADB: return "file is not a database";
    case STRATA_TOOBIG: return "string or blob too big";
    case STRATA_NOTFOUND: return "not found";
    case STRATA_READONLY: return "attempt to write a readonly transaction";
    case STRATA_FORMAT: return "unsupported file format";
    case STRATA_ROW: return "another row available";
    case STRATA_DONE: return "no more rows available";
    default: return "unknown error";
    }
}

/* claim makes the calling thread the writer of err's first error (code ERR_WRITING until
** publish), or returns false when an error is recorded or being recorded. */
static bool claim(strata_err *err) {
    int none = STRATA_OK;
    return err && __atomic_compare_exchange_n(&err->code, &none, ERR_WRITING, false, __ATOMIC_ACQUIRE,
                                              __ATOMIC_RELAXED);
}

/* publish ends the claim: the message written before it is seen by whoever loads the code. */
static void publish(strata_err *err, int code) { __atomic_store_n(&err->code, code, __ATOMIC_RELEASE); }

static void err_vset(strata_err *err, int code, const char *fmt, va_list ap) {
    if (!claim(err)) return;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    publish(err, code);
}

int err_set(strata_err *err, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    err_vset(err, code, fmt, ap);
    va_end(ap);
    return code;
}

int err_errno(strata_err *err, int errnum, const char *fmt, ...) {
    int code;
    switch (errnum) {
    case ENOSPC: case EFBIG: case EDQUOT: code = STRATA_FULL; break;
    case ENOMEM: code = STRATA_NOMEM; break;
    case EWOULDBLOCK: code = STRATA_BUSY; break;
    default: code = STRATA_IOERR; break;
    }
    if (!claim(err)) return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    size_t len = strlen(err->msg);
    char why[128];
    snprintf(err->msg + len, sizeof err->msg - len, ": %s", strerror_r(errnum, why, sizeof why));
    publish(err, code);
    return code;
}

int err_copy(strata_err *dst, const strata_err *src) {
    int code;
    while ((code = __atomic_load_n(&src->code, __ATOMIC_ACQUIRE)) == ERR_WRITING) sched_yield();
    return code == STRATA_OK ? STRATA_OK : err_set(dst, code, "%s", src->msg);
}

void err_clear(strata_err *err) {
    if (err == NULL) return;
    err->code = STRATA_OK;
    err->msg[0] = '\0';
}
