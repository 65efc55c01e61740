/*
** slt_md5.h -- MD5 (RFC 1321) for the sqllogictest runner's "N values hashing to H" results.
**
** Only the runner uses it: sqllogictest compares large results by the MD5 of their values, and
** the project does not depend on a crypto library. Not for anything that needs security.
*/
#ifndef SLT_MD5_H
#define SLT_MD5_H

#include <stddef.h>
#include <stdint.h>

typedef struct slt_md5 {
    uint32_t state[4];
    uint64_t length;    /* bytes hashed so far */
    uint8_t buffer[64]; /* a partial block */
} slt_md5;

/* slt_md5_init starts a digest; slt_md5_update adds n bytes; slt_md5_hex finishes it and writes
** the 32 lower-case hex digits and a NUL into hex (33 bytes). The context is spent afterwards. */
void slt_md5_init(slt_md5 *m);
void slt_md5_update(slt_md5 *m, const void *data, size_t n);
void slt_md5_hex(slt_md5 *m, char hex[33]);

#endif
