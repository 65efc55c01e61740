/*
** strata.h -- the public interface of the strata embedded SQL database.
**
** This header is the user's manual. Every entry point returns an int status code: STRATA_OK (0)
** on success, one of the codes below otherwise. The message that explains an error is kept on
** the object the call was made on and is read with the matching errmsg call.
**
** This version of the header defines the status codes shared by every layer. The SQL-level C API
** (open/prepare/step/...) is added on top of the row store by the SQL engine.
*/
#ifndef STRATA_H
#define STRATA_H

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. */
#define STRATA_OK 0         /* success */
#define STRATA_ERROR 1      /* a generic error: SQL error, missing object, bad argument value */
#define STRATA_BUSY 2       /* the database is locked by another process or writer */
#define STRATA_CORRUPT 3    /* the file is damaged: a checksum mismatch or a broken structure */
#define STRATA_IOERR 4      /* the operating system reported an I/O error */
#define STRATA_NOMEM 5      /* a memory allocation failed or a memory limit was reached */
#define STRATA_FULL 6       /* the disk is full (ENOSPC) or the file reached its size limit */
#define STRATA_CONSTRAINT 7 /* a constraint was violated (unique key, not null, ...) */
#define STRATA_MISUSE 8     /* the API was used incorrectly (finalized object, wrong index) */
#define STRATA_INTERRUPT 9  /* the operation was interrupted */
#define STRATA_NOTADB 10    /* the file is not a strata database */
#define STRATA_TOOBIG 11    /* a key or value exceeds the documented size limit */
#define STRATA_NOTFOUND 12  /* a looked-up key or object does not exist */
#define STRATA_READONLY 13  /* a write was attempted through a read-only handle or transaction */
#define STRATA_FORMAT 14    /* the file uses a format version this build cannot read */
#define STRATA_ROW 100      /* strata_step(): a row is ready */
#define STRATA_DONE 101     /* strata_step(): the statement has finished */

/* strata_errstr returns a static English description of a status code ("disk is full"). */
const char *strata_errstr(int code);

#ifdef __cplusplus
}
#endif
#endif /* STRATA_H */
