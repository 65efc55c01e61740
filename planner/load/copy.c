/*
** copy.c -- COPY's options, its files (plain, gzip, zstd) and its two operators (copy.h).
**
** zlib reads and writes gzip and libzstd's streaming API zstd: both are Debian's libraries, so
** no codec is written here. A compressed input is recognized by its magic bytes rather than its
** name, so a misnamed file still reads; an output is compressed by its name's extension.
*/
#include "load/copy.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#define IO_CHUNK (256u << 10) /* raw bytes read or written at a time around zstd */

/* ---- options ------------------------------------------------------------------------------ */

typedef enum opt_id {
    OPT_FORMAT,
    OPT_DELIMITER,
    OPT_HEADER,
    OPT_NULL,
    OPT_QUOTE,
    OPT_ESCAPE,
    OPT_DATEFORMAT,
    OPT_TIMESTAMPFORMAT,
    OPT_COMPRESSION,
    OPT_TRAILING,
    OPT_REJECTS,
    OPT_COUNT
} opt_id;

static const struct {
    const char *name;
    opt_id id;
} option_names[] = {
    {"format", OPT_FORMAT},
    {"delimiter", OPT_DELIMITER},
    {"delim", OPT_DELIMITER},
    {"sep", OPT_DELIMITER},
    {"header", OPT_HEADER},
    {"null", OPT_NULL},
    {"quote", OPT_QUOTE},
    {"escape", OPT_ESCAPE},
    {"dateformat", OPT_DATEFORMAT},
    {"timestampformat", OPT_TIMESTAMPFORMAT},
    {"compression", OPT_COMPRESSION},
    {"trailing_delimiter", OPT_TRAILING},
    {"rejects", OPT_REJECTS},
};

/* option_text gives the text of a string or a bare word; NULL for anything else. */
static const char *option_text(const sql_expr *v) {
    if (!v) return NULL;
    if (v->kind == EX_STR) return v->text.ptr;
    if (v->kind == EX_COL && !v->col.table) return v->col.column;
    return NULL;
}

static int option_bool(const sql_option *o, bool *out, strata_err *err) {
    const sql_expr *v = o->value;
    const char *w = option_text(v);
    if (!v) *out = true;
    else if (v->kind == EX_BOOL) *out = v->boolean;
    else if (v->kind == EX_INT && (v->integer == 0 || v->integer == 1)) *out = v->integer == 1;
    else if (w && (!strcasecmp(w, "true") || !strcasecmp(w, "on"))) *out = true;
    else if (w && (!strcasecmp(w, "false") || !strcasecmp(w, "off"))) *out = false;
    else return err_set(err, STRATA_ERROR, "COPY option %s takes a boolean (true, false, on, off)", o->name);
    return STRATA_OK;
}

static int option_string(const sql_option *o, const char **out, strata_err *err) {
    if (!(*out = option_text(o->value)))
        return err_set(err, STRATA_ERROR, "COPY option %s takes a string in single quotes", o->name);
    return STRATA_OK;
}

static int option_char(const sql_option *o, char *out, strata_err *err) {
    const char *s;
    int rc = option_string(o, &s, err);
    if (rc) return rc;
    if (strlen(s) != 1)
        return err_set(err, STRATA_ERROR, "COPY %s must be a single one-byte character", o->name);
    *out = s[0];
    return STRATA_OK;
}

static int option_one(const sql_option *o, opt_id id, bool to, copy_spec *spec, strata_err *err) {
    const char *s;
    bool b;
    int rc = STRATA_OK;
    switch (id) {
    case OPT_FORMAT:
        if ((rc = option_string(o, &s, err))) return rc;
        if (strcasecmp(s, "csv") != 0)
            return err_set(err, STRATA_ERROR, "COPY format \"%s\" is not supported (csv is)", s);
        return STRATA_OK;
    case OPT_DELIMITER: return option_char(o, &spec->csv.delimiter, err);
    case OPT_QUOTE: return option_char(o, &spec->csv.quote, err);
    case OPT_ESCAPE: return option_char(o, &spec->csv.escape, err);
    case OPT_HEADER:
        rc = option_bool(o, &b, err);
        spec->csv.header = b;
        return rc;
    case OPT_NULL: return option_string(o, &spec->csv.null_string, err);
    case OPT_DATEFORMAT: return option_string(o, &spec->csv.dateformat, err);
    case OPT_TIMESTAMPFORMAT: return option_string(o, &spec->csv.timestampformat, err);
    case OPT_COMPRESSION:
        if ((rc = option_string(o, &s, err))) return rc;
        if (!strcasecmp(s, "auto")) spec->compression = COPY_AUTO;
        else if (!strcasecmp(s, "none")) spec->compression = COPY_NONE;
        else if (!strcasecmp(s, "gzip")) spec->compression = COPY_GZIP;
        else if (!strcasecmp(s, "zstd")) spec->compression = COPY_ZSTD;
        else return err_set(err, STRATA_ERROR, "COPY compression \"%s\" is not one of auto, none, gzip, zstd", s);
        return STRATA_OK;
    case OPT_TRAILING:
        if (to) break;
        rc = option_bool(o, &b, err);
        spec->trailing = b;
        return rc;
    case OPT_REJECTS:
        if (to) break;
        return option_string(o, &spec->rejects, err);
    case OPT_COUNT: break;
    }
    return err_set(err, STRATA_ERROR, "COPY option %s applies to COPY ... FROM only", o->name);
}

int copy_spec_make(const char *path, bool to, const sql_list *options, copy_spec *spec, strata_err *err) {
    memset(spec, 0, sizeof *spec);
    spec->path = path;
    spec->to = to;
    spec->trailing = -1;
    bool seen[OPT_COUNT] = {false};
    for (int i = 0; i < options->n; i++) {
        const sql_option *o = options->items[i];
        int id = -1;
        for (size_t k = 0; k < sizeof option_names / sizeof option_names[0]; k++)
            if (!strcasecmp(o->name, option_names[k].name)) id = (int)option_names[k].id;
        if (id < 0) return err_set(err, STRATA_ERROR, "unrecognized COPY option \"%s\"", o->name);
        if (seen[id]) return err_set(err, STRATA_ERROR, "COPY option %s given more than once", o->name);
        seen[id] = true;
        int rc = option_one(o, (opt_id)id, to, spec, err);
        if (rc) return rc;
    }
    if (spec->rejects && !strcmp(spec->rejects, path))
        return err_set(err, STRATA_ERROR, "COPY REJECTS file must differ from the file read");
    return STRATA_OK;
}

/* copy_error records a file's error: "file 'path': " before the message of the failed call. */
static int copy_error(strata_err *err, int rc, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int copy_error(strata_err *err, int rc, const char *path, const char *fmt, ...) {
    char msg[STRATA_ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    err_clear(err);
    return err_set(err, rc, "file '%s': %s", path, msg);
}

/* passed_on puts the path before a message the CSV layer recorded on err (unless the message came
** from the file functions here, which name it already). */
static int passed_on(strata_err *err, int rc, const char *path) {
    if (!strncmp(err->msg, "file '", 6)) return rc;
    char msg[STRATA_ERRMSG_MAX];
    snprintf(msg, sizeof msg, "%s", err->msg);
    return copy_error(err, rc, path, "%s", msg);
}

static int io_status(int e) { return e == ENOSPC || e == EDQUOT ? STRATA_FULL : STRATA_IOERR; }

/* gz_attach opens a gzip stream over a duplicate of fd (gzclose closes that one; the caller keeps
** fd), with IO_CHUNK buffers; NULL when it cannot. */
static gzFile gz_attach(int fd, const char *mode) {
    int dfd = dup(fd);
    gzFile gz = dfd < 0 ? NULL : gzdopen(dfd, mode);
    if (!gz) {
        if (dfd >= 0) close(dfd);
        return NULL;
    }
    gzbuffer(gz, IO_CHUNK);
    return gz;
}

/* ---- the input file ------------------------------------------------------------------------ */

typedef struct infile {
    const char *path;
    int fd;
    gzFile gz;
    ZSTD_DCtx *zd;
    unsigned char *zin; /* raw bytes waiting for the zstd decoder: [zpos, zlen) */
    size_t zlen, zpos;
    bool raw_eof, zpending; /* zpending: the decoder is inside a frame */
    uint64_t raw_read, size;
    bool regular;       /* a regular file: size is what it holds */
    uint64_t delivered; /* bytes handed to the CSV reader (decompressed) */
} infile;

static int infile_open(infile *f, const char *path, copy_compression comp, strata_err *err) {
    memset(f, 0, sizeof *f);
    f->path = path;
    f->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (f->fd < 0) return copy_error(err, STRATA_ERROR, path, "could not open for reading: %s", strerror(errno));
    struct stat st;
    if (fstat(f->fd, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return copy_error(err, STRATA_ERROR, path, "is a directory");
        f->size = (uint64_t)st.st_size;
        f->regular = S_ISREG(st.st_mode);
    }
    if (comp == COPY_AUTO) {
        unsigned char magic[4] = {0};
        ssize_t n = pread(f->fd, magic, sizeof magic, 0);
        comp = COPY_NONE;
        if (n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) comp = COPY_GZIP;
        if (n == 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd) comp = COPY_ZSTD;
    }
    if (comp == COPY_GZIP) {
        if (!(f->gz = gz_attach(f->fd, "rb")))
            return copy_error(err, STRATA_NOMEM, path, "could not start gzip decompression");
    } else if (comp == COPY_ZSTD) {
        if (!(f->zd = ZSTD_createDCtx()) || !(f->zin = malloc(IO_CHUNK)))
            return copy_error(err, STRATA_NOMEM, path, "could not start zstd decompression");
    }
    return STRATA_OK;
}

static void infile_close(infile *f) {
    if (f->gz) gzclose(f->gz);
    ZSTD_freeDCtx(f->zd);
    free(f->zin);
    if (f->fd >= 0) close(f->fd);
    f->gz = NULL, f->zd = NULL, f->zin = NULL, f->fd = -1;
}

static int read_raw(infile *f, void *buf, size_t cap, size_t *n, strata_err *err) {
    ssize_t got;
    do got = read(f->fd, buf, cap);
    while (got < 0 && errno == EINTR);
    if (got < 0) return copy_error(err, io_status(errno), f->path, "read failed: %s", strerror(errno));
    *n = (size_t)got;
    f->raw_read += (uint64_t)got;
    return STRATA_OK;
}

static int read_zstd(infile *f, void *buf, size_t cap, size_t *nread, strata_err *err) {
    ZSTD_outBuffer out = {buf, cap, 0};
    for (;;) {
        if (f->zpos == f->zlen && !f->raw_eof) {
            int rc = read_raw(f, f->zin, IO_CHUNK, &f->zlen, err);
            if (rc) return rc;
            f->zpos = 0;
            f->raw_eof = f->zlen == 0;
        }
        ZSTD_inBuffer in = {f->zin, f->zlen, f->zpos};
        size_t r = ZSTD_decompressStream(f->zd, &out, &in);
        if (ZSTD_isError(r)) return copy_error(err, STRATA_ERROR, f->path, "zstd: %s", ZSTD_getErrorName(r));
        if (in.pos > f->zpos || out.pos > 0) f->zpending = r != 0; /* a call without progress says nothing */
        f->zpos = in.pos;
        if (out.pos > 0) break;
        if (f->raw_eof && f->zpos == f->zlen) {
            if (f->zpending) return copy_error(err, STRATA_ERROR, f->path, "zstd: the file ends inside a frame");
            break;
        }
    }
    *nread = out.pos;
    return STRATA_OK;
}

/* gz_message is zlib's message for f without the "<fd:N>: " it puts before it. */
static const char *gz_message(gzFile gz, int *errnum) {
    const char *msg = gzerror(gz, errnum);
    const char *colon = strncmp(msg, "<fd:", 4) ? NULL : strstr(msg, ": ");
    return colon ? colon + 2 : msg;
}

/* infile_read_any reads the next decompressed bytes of f. */
static int infile_read_any(infile *f, void *buf, size_t cap, size_t *nread, strata_err *err) {
    if (f->zd) return read_zstd(f, buf, cap, nread, err);
    if (!f->gz) return read_raw(f, buf, cap, nread, err);
    int n = gzread(f->gz, buf, cap > INT_MAX ? INT_MAX : (unsigned)cap);
    int errnum = Z_OK;
    const char *msg = gz_message(f->gz, &errnum);
    if (n < 0 || (errnum != Z_OK && errnum != Z_STREAM_END))
        return copy_error(err, errnum == Z_ERRNO ? io_status(errno) : STRATA_ERROR, f->path, "gzip: %s",
                          errnum == Z_ERRNO ? strerror(errno) : msg);
    *nread = (size_t)n;
    f->raw_read = (uint64_t)gzoffset(f->gz);
    return STRATA_OK;
}

/* infile_read is the CSV reader's read function. */
static int infile_read(void *arg, void *buf, size_t cap, size_t *nread, strata_err *err) {
    infile *f = arg;
    int rc = infile_read_any(f, buf, cap, nread, err);
    if (rc == STRATA_OK) f->delivered += *nread;
    return rc;
}

/* ---- PLAN_FILE_SCAN ------------------------------------------------------------------------ */

/* ---- parsing ranges of the file on the pool -------------------------------------------------
** A large plain file (not compressed, not a pipe, no REJECTS) at SET threads above 1 is parsed by
** the process's workers: the file is cut into ranges of COPY_RANGE_BYTES, a run on the pool
** parses up to COPY_BATCH_RANGES ranges a worker, each range by a reader of its own (csv.h,
** csv_reader_set_range) into chunks, and the scan hands their rows on in the file's order, in
** chunks of VECTOR_SIZE rows as the one reader would have cut them (so the INSERT checks and
** numbers the same rows in the same chunks). A range other than a run's first does not know
** where its first record starts: its worker takes the first line end at or after its cut, which
** a quoted field with a line end in it makes wrong. So a range's rows are taken only when it
** began exactly where the range before it ended; else (and when its parse failed, whose message
** needs its true line) it is parsed again on the statement's thread from that true boundary: the
** first bad record in the file's order fails the COPY with the one reader's message and line.
** A range's lines are counted from 1 and made the file's lines when the range is taken.
** Ownership: a run's worker writes only its ranges' range_parse; the statement's thread reads
** them after pool_run returned (its join orders the writes before). */
#define COPY_RANGE_BYTES (2u << 20)
#define COPY_BATCH_RANGES 3
#define COPY_PARALLEL_MIN (8u << 20)          /* a smaller file is parsed on the statement's thread */
#define COPY_RANGE_BLOCK (256u << 10)         /* a range reader's block: what it reads past its range */

/* A read function over the file from an offset: pread, so that the workers share the descriptor. */
typedef struct pread_source {
    int fd;
    uint64_t off;
    const char *path;
} pread_source;

typedef struct parsed_chunk {
    data_chunk ch;
    uint64_t end;               /* where in the file the record after its rows starts */
    uint32_t line[VECTOR_SIZE]; /* each row's line, from the range's first line */
} parsed_chunk;

typedef struct range_parse {
    uint64_t cut, cut_end; /* the records starting in [cut, cut_end) are the range's */
    uint64_t start, end;   /* where its reader began and where its next record starts */
    uint64_t line0, lines; /* the line its reader numbered its first record, line ends it read */
    parsed_chunk **chunks;
    uint32_t nchunks, cap;
    size_t charged;        /* to the statement's memory */
    int rc;                /* its parse failed (err) */
    strata_err err;
    csv_reader *reader;    /* while it parses */
    pread_source src;
    bool taken;            /* its rows are being handed on */
} range_parse;

typedef struct file_scan file_scan;

/* A run's ranges: parsed on the pool by the helper thread while the statement's thread hands
** on the rows of the run before. */
typedef struct range_batch {
    file_scan *s;
    range_parse *ranges;
    uint32_t n;
    exec_ctx x; /* the statement's, with the helper's error slot */
    strata_err err;
    int rc;
} range_batch;

struct file_scan {
    infile in;
    csv_reader *r;
    FILE *rejects;
    const char *rejects_path;
    bool rejects_failed;
    uint64_t reported; /* consumed() as added to the statement's progress */
    /* the parallel parse (parallel true): the ranges of the last run, the one being handed on
    ** (at: its chunk and row), where the next range must begin and its line */
    bool parallel;
    csv_options ropts; /* the ranges' readers' options */
    const plan_op *op;
    vec_budget *budget;
    range_batch cur, ahead; /* the run whose rows are handed on; the next, parsed meanwhile */
    pthread_t helper;       /* the thread that runs ahead's parse on the pool: ahead is its and its
                            ** workers' until batch_wait joined it */
    bool helper_running;
    uint32_t next, chunk_at, row_at;
    uint64_t data_start, next_cut; /* where the first record starts; where the next batch is cut */
    uint64_t next_start, next_line; /* the true boundary the next range must begin at, its line */
    uint64_t handed;                /* where the rows handed on end in the file (the progress) */
    uint64_t row_line[VECTOR_SIZE]; /* the lines of the rows of the chunk handed on last */
};

/* put_quoted writes n bytes of s as one quoted CSV field. */
static void put_quoted(FILE *f, const char *s, size_t n) {
    putc('"', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') putc('"', f);
        putc(s[i], f);
    }
    putc('"', f);
}

/* reject writes one bad record to the REJECTS file: its line, column, column name, reason and
** text, as a CSV record under the header "line,column,column_name,reason,record". */
static int reject(void *arg, const csv_reject *rej, strata_err *err) {
    file_scan *s = arg;
    FILE *f = s->rejects;
    fprintf(f, "%llu,", (unsigned long long)rej->line);
    if (rej->column) fprintf(f, "%u", rej->column);
    putc(',', f);
    if (rej->column_name) put_quoted(f, rej->column_name, strlen(rej->column_name));
    putc(',', f);
    put_quoted(f, rej->reason, strlen(rej->reason));
    putc(',', f);
    put_quoted(f, rej->text, rej->text_len);
    if (putc('\n', f) == EOF || ferror(f))
        return copy_error(err, io_status(errno), s->rejects_path, "could not write a rejected record: %s", strerror(errno));
    return STRATA_OK;
}

/* detect_trailing says whether the first record has one field more than the columns, an empty
** one at the end: a file whose lines end with the delimiter (TPC-H's .tbl). */
static int detect_trailing(file_scan *s, uint32_t ncols, bool *out, strata_err *err) {
    const char *const *fields;
    uint32_t n;
    int rc = csv_reader_header(s->r, &fields, &n, err);
    if (rc) return rc;
    *out = n == ncols + 1 && n > 1 && fields[n - 1][0] == 0;
    return STRATA_OK;
}

static int pread_read(void *arg, void *buf, size_t cap, size_t *nread, strata_err *err) {
    pread_source *p = arg;
    ssize_t got;
    do got = pread(p->fd, buf, cap, (off_t)p->off);
    while (got < 0 && errno == EINTR);
    if (got < 0) return copy_error(err, io_status(errno), p->path, "read failed: %s", strerror(errno));
    p->off += (uint64_t)got;
    *nread = (size_t)got;
    return STRATA_OK;
}

/* first_record sets *at to where a range cut at cut (> 0) guesses its first record starts: after
** the first LF at or after cut - 1, or the end of the file. */
static int first_record(const file_scan *s, uint64_t cut, uint64_t *at, strata_err *err) {
    char buf[4096];
    pread_source src = {s->in.fd, cut - 1, s->in.path};
    for (;;) {
        uint64_t off = src.off;
        size_t got;
        int rc = pread_read(&src, buf, sizeof buf, &got, err);
        if (rc) return rc;
        const char *lf = got ? memchr(buf, '\n', got) : NULL;
        if (lf || got == 0) {
            *at = lf ? off + (uint64_t)(lf - buf) + 1 : off;
            return STRATA_OK;
        }
    }
}

/* range_open starts r's reader at from, a record whose line is numbered line. */
static int range_open(const file_scan *s, range_parse *r, uint64_t from, uint64_t line) {
    const plan_op *p = s->op;
    r->start = r->end = from, r->line0 = line;
    r->src = (pread_source){s->in.fd, from, s->in.path};
    uint64_t limit = r->cut_end >= s->in.size ? UINT64_MAX : r->cut_end > from ? r->cut_end - from : 0;
    int rc = csv_reader_open(&r->reader, &s->ropts, pread_read, &r->src, p->types, p->names, p->ncols, &r->err);
    if (rc == STRATA_OK) rc = csv_reader_set_range(r->reader, line, limit, &r->err);
    return r->rc = rc;
}

/* parsed_bytes is what a parsed chunk takes, charged to the statement's memory. */
static size_t parsed_bytes(const parsed_chunk *pc) {
    size_t n = sizeof *pc;
    for (uint32_t c = 0; c < pc->ch.ncols; c++)
        n += (size_t)VECTOR_SIZE * vec_phys_width(pc->ch.cols[c].phys) + VECTOR_SIZE / 8 + pc->ch.cols[c].heap.used;
    return n;
}

/* range_more parses r's next chunk into r->chunks (charged to budget when not NULL); at the end of
** its records it closes the reader (r->end and r->lines say where it stopped). On error r->rc
** and r->err hold it. */
static int range_more(const file_scan *s, range_parse *r, vec_budget *budget) {
    const plan_op *p = s->op;
    int rc = STRATA_OK;
    if (r->nchunks == r->cap) {
        uint32_t cap = r->cap ? 2 * r->cap : 8;
        parsed_chunk **c = realloc(r->chunks, cap * sizeof *c);
        if (!c) return r->rc = err_set(&r->err, STRATA_NOMEM, "out of memory (COPY)");
        r->chunks = c, r->cap = cap;
    }
    parsed_chunk *pc = malloc(sizeof *pc);
    if (!pc) return r->rc = err_set(&r->err, STRATA_NOMEM, "out of memory (COPY)");
    if ((rc = chunk_init(&pc->ch, p->types, p->ncols, &r->err))) {
        free(pc);
        return r->rc = rc;
    }
    r->chunks[r->nchunks++] = pc;
    if ((rc = csv_reader_next(r->reader, &pc->ch, &r->err))) return r->rc = rc;
    if (pc->ch.count == 0) {
        chunk_free(&pc->ch);
        free(pc);
        r->nchunks--;
        r->end = r->start + csv_reader_offset(r->reader);
        r->lines = csv_reader_next_line(r->reader) - r->line0;
        csv_reader_close(r->reader);
        r->reader = NULL;
        return STRATA_OK;
    }
    for (uint32_t i = 0; i < pc->ch.count; i++) pc->line[i] = (uint32_t)(csv_reader_row_line(r->reader, i) - r->line0);
    pc->end = r->start + csv_reader_offset(r->reader);
    if (!budget) return STRATA_OK;
    size_t bytes = parsed_bytes(pc);
    if ((rc = vec_budget_charge(budget, bytes, &r->err))) return r->rc = rc;
    r->charged += bytes;
    return STRATA_OK;
}

/* range_clear frees what r holds (its chunks, its reader, their charge) and keeps its cut. */
static void range_clear(const file_scan *s, range_parse *r) {
    for (uint32_t i = 0; i < r->nchunks; i++) {
        chunk_free(&r->chunks[i]->ch);
        free(r->chunks[i]);
    }
    free(r->chunks);
    csv_reader_close(r->reader);
    vec_budget_release(s->budget, r->charged);
    *r = (range_parse){.cut = r->cut, .cut_end = r->cut_end};
}

static void batch_free(file_scan *s, range_batch *b) {
    for (uint32_t i = 0; i < b->n; i++) range_clear(s, &b->ranges[i]);
    free(b->ranges);
    b->ranges = NULL;
    b->n = 0;
}

/* parse_ranges is a run's task: it parses ranges [begin, end) whole; its failures stay in the
** ranges (the range is parsed again on the statement's thread when its turn comes). */
static int parse_ranges(void *arg, pool_worker *w, uint64_t begin, uint64_t end) {
    range_batch *b = arg;
    const file_scan *s = b->s;
    for (uint64_t m = begin; m < end && !pool_stopping(w); m++) {
        range_parse *r = &b->ranges[m];
        uint64_t from = r->cut;
        if (r->cut != s->data_start && (r->rc = first_record(s, r->cut, &from, &r->err))) continue;
        if (range_open(s, r, from, 1)) continue;
        while (r->reader && !range_more(s, r, s->budget)) {}
    }
    return STRATA_OK;
}

/* batch_run is the helper thread: one run of the pool over the batch's ranges. */
static void *batch_run(void *arg) {
    range_batch *b = arg;
    pool_job job = {.total = b->n, .morsel = 1, .run_morsel = parse_ranges, .arg = b, .interrupt = b->x.interrupt};
    b->rc = exec_pool_run(&b->x, &job);
    return NULL;
}

/* batch_start cuts the next ranges (s->next_cut on) into s->ahead and starts parsing them on the
** helper thread (here, when no thread can be had); nothing when the file has no more. */
static int batch_start(exec_ctx *x, file_scan *s) {
    range_batch *b = &s->ahead;
    if (s->next_cut >= s->in.size) return STRATA_OK;
    uint64_t left = s->in.size - s->next_cut, want = (left + COPY_RANGE_BYTES - 1) / COPY_RANGE_BYTES;
    uint64_t most = (uint64_t)COPY_BATCH_RANGES * x->threads;
    uint32_t n = (uint32_t)(want < most ? want : most);
    if (!(b->ranges = calloc(n, sizeof *b->ranges))) return exec_nomem(x);
    b->n = n, b->s = s, b->x = *x, b->rc = STRATA_OK;
    err_clear(&b->err);
    b->x.err = &b->err;
    for (uint32_t k = 0; k < n; k++) {
        b->ranges[k].cut = s->next_cut;
        s->next_cut = k + 1 == n && n == want ? s->in.size : s->next_cut + COPY_RANGE_BYTES;
        b->ranges[k].cut_end = s->next_cut;
    }
    s->helper_running = pthread_create(&s->helper, NULL, batch_run, b) == 0;
    if (!s->helper_running) batch_run(b);
    return STRATA_OK;
}

/* batch_wait waits for the helper thread. */
static void batch_wait(file_scan *s) {
    if (s->helper_running) pthread_join(s->helper, NULL);
    s->helper_running = false;
}

static void ranges_free(file_scan *s) {
    batch_wait(s);
    batch_free(s, &s->cur);
    batch_free(s, &s->ahead);
}

/* current_range gives the range whose rows come next (NULL at the end of the file): a range that
** did not begin where the one before it ended, or failed, is parsed again from there, chunk by
** chunk on this thread, with the file's line numbers, and its failure is the COPY's. */
static int current_range(exec_ctx *x, file_scan *s, range_parse **out) {
    *out = NULL;
    int rc;
    if (s->next == s->cur.n) {
        batch_free(s, &s->cur);
        batch_wait(s);
        s->cur = s->ahead, s->next = 0;
        s->ahead = (range_batch){0};
        if (s->cur.rc) return err_copy(x->err, &s->cur.err);
        if (s->cur.n == 0) return STRATA_OK;
        if ((rc = batch_start(x, s))) return rc;
    }
    range_parse *r = &s->cur.ranges[s->next];
    if (!r->taken) {
        if (r->start != s->next_start || r->rc) {
            range_clear(s, r);
            range_open(s, r, s->next_start, s->next_line);
        }
    }
    r->taken = true;
    *out = r;
    return STRATA_OK;
}

/* scan_parallel hands on the ranges' rows in the file's order, VECTOR_SIZE a chunk. */
static int scan_parallel(exec_ctx *x, file_scan *s, data_chunk *out) {
    chunk_reset(out);
    int rc;
    while (out->count < VECTOR_SIZE) {
        range_parse *r;
        if ((rc = current_range(x, s, &r))) return rc;
        if (!r) break;
        if (s->chunk_at == r->nchunks && r->reader && !r->rc) range_more(s, r, NULL);
        if (s->chunk_at < r->nchunks) {
            parsed_chunk *pc = r->chunks[s->chunk_at];
            uint32_t first = out->count, got;
            if ((rc = chunk_append(out, &pc->ch, s->row_at ? sel_identity() + s->row_at : NULL, pc->ch.count - s->row_at,
                                   &got, x->err)))
                return rc;
            for (uint32_t i = 0; i < got; i++) s->row_line[first + i] = s->next_line + pc->line[s->row_at + i];
            if ((s->row_at += got) == pc->ch.count) s->chunk_at++, s->row_at = 0, s->handed = pc->end;
            continue;
        }
        if (r->rc) {
            err_copy(x->err, &r->err);
            return passed_on(x->err, r->rc, s->in.path);
        }
        s->next_start = s->handed = r->end, s->next_line += r->lines;
        range_clear(s, r);
        s->next++, s->chunk_at = 0;
    }
    return STRATA_OK;
}

/* parallel_start makes s parse on the pool when it is worth it: from the first data record on
** (after the header and a byte order mark, which the statement's reader read). */
static int parallel_start(exec_ctx *x, file_scan *s, const csv_options *o) {
    if (x->threads <= 1 || !s->in.regular || s->in.gz || s->in.zd || s->rejects || s->in.size < COPY_PARALLEL_MIN)
        return STRATA_OK;
    int rc = csv_reader_header(s->r, NULL, &(uint32_t){0}, x->err);
    if (rc) return rc;
    s->parallel = true;
    s->ropts = *o;
    s->ropts.header = false;
    s->ropts.reject = NULL;
    s->ropts.block_size = COPY_RANGE_BLOCK;
    s->budget = x->budget;
    s->next_start = s->next_cut = s->data_start = s->handed = csv_reader_offset(s->r);
    s->next_line = csv_reader_next_line(s->r);
    return batch_start(x, s);
}

static int copy_scan_open(exec_ctx *x, op_node *n) {
    const plan_op *p = n->op;
    const copy_spec *spec = p->copy.spec;
    file_scan *s = calloc(1, sizeof *s);
    if (!s) return err_set(x->err, STRATA_NOMEM, "out of memory opening '%s'", spec->path);
    s->in.fd = -1;
    n->state = s;
    int rc = infile_open(&s->in, spec->path, spec->compression, x->err);
    if (rc) return rc;
    csv_options o = spec->csv;
    o.trailing_delimiter = spec->trailing == 1;
    if (spec->rejects) {
        s->rejects_path = spec->rejects;
        if (!(s->rejects = fopen(spec->rejects, "w")))
            return copy_error(x->err, STRATA_ERROR, spec->rejects, "could not open for writing: %s", strerror(errno));
        fputs("line,column,column_name,reason,record\n", s->rejects);
        o.reject = reject;
        o.reject_arg = s;
    }
    if ((rc = csv_reader_open(&s->r, &o, infile_read, &s->in, p->types, p->names, p->ncols, x->err)))
        return passed_on(x->err, rc, spec->path);
    bool trailing = false;
    if (spec->trailing < 0 && (rc = detect_trailing(s, p->ncols, &trailing, x->err)))
        return passed_on(x->err, rc, spec->path);
    if (trailing && (rc = csv_reader_set_trailing(s->r, true, x->err))) return rc;
    o.trailing_delimiter = trailing || spec->trailing == 1;
    s->op = p;
    if ((rc = parallel_start(x, s, &o))) return passed_on(x->err, rc, spec->path);
    x->progress_unit = "bytes";
    x->progress_total += s->in.size;
    return STRATA_OK;
}

/* consumed is how far the COPY has come in the file's bytes: those the reader has parsed, or for a
** compressed file the same share of the compressed bytes read. Chunk by chunk, not a block of
** the reader's buffer at a time. */
static uint64_t consumed(const file_scan *s) {
    uint64_t delivered = s->in.delivered, pending = csv_reader_pending(s->r);
    if (delivered == 0 || pending > delivered) return 0;
    return (uint64_t)((double)s->in.raw_read * (double)(delivered - pending) / (double)delivered);
}

static int copy_scan_next(exec_ctx *x, op_node *n, data_chunk *out) {
    file_scan *s = n->state;
    if (s->parallel) {
        int rc = scan_parallel(x, s, out);
        if (s->handed > s->reported) x->progress_done += s->handed - s->reported, s->reported = s->handed;
        return rc;
    }
    int rc = csv_reader_next(s->r, out, x->err);
    uint64_t now = consumed(s);
    if (now > s->reported) x->progress_done += now - s->reported, s->reported = now;
    x->rejects = (int64_t)csv_reader_rejects(s->r);
    if (rc) return passed_on(x->err, rc, n->op->copy.spec->path);
    if (s->rejects && out->count == 0 && fflush(s->rejects) != 0)
        return copy_error(x->err, io_status(errno), s->rejects_path, "could not write: %s", strerror(errno));
    return STRATA_OK;
}

bool copy_scan_rejects(const op_node *scan) { return scan->op->copy.spec->rejects != NULL; }

uint64_t copy_scan_row_line(const op_node *scan, uint32_t row) {
    const file_scan *s = scan->state;
    if (s && s->parallel) return row < VECTOR_SIZE ? s->row_line[row] : 0;
    return s && s->r ? csv_reader_row_line(s->r, row) : 0;
}

int copy_scan_reject_row(exec_ctx *x, const op_node *scan, uint32_t row, uint32_t column, const char *reason) {
    file_scan *s = scan->state;
    int rc = csv_reader_reject_row(s->r, row, column, reason, x->err);
    x->rejects = (int64_t)csv_reader_rejects(s->r);
    return rc ? passed_on(x->err, rc, scan->op->copy.spec->path) : STRATA_OK;
}

int copy_scan_row_error(exec_ctx *x, const op_node *scan, uint32_t row, int rc) {
    char msg[STRATA_ERRMSG_MAX];
    snprintf(msg, sizeof msg, "%s", x->err->msg);
    return copy_error(x->err, rc, scan->op->copy.spec->path, "CSV line %llu: %s", (unsigned long long)copy_scan_row_line(scan, row),
                      msg);
}

static void copy_scan_close(op_node *n, bool keep) {
    (void)keep;
    file_scan *s = n->state;
    if (!s) return;
    ranges_free(s);
    csv_reader_close(s->r);
    infile_close(&s->in);
    if (s->rejects) fclose(s->rejects);
    free(s);
    n->state = NULL;
}

const op_vtable op_file_scan = {
    .name = "READ_CSV",
    .open = copy_scan_open,
    .close = copy_scan_close,
    .source = copy_scan_next,
};

/* ---- the output file ----------------------------------------------------------------------- */

typedef struct outfile {
    const char *path;
    char *tmp; /* written here, renamed to path when whole */
    int fd;
    gzFile gz;
    ZSTD_CCtx *zc;
    unsigned char *zout;
    bool finished;
} outfile;

static copy_compression by_extension(const char *path) {
    size_t n = strlen(path);
    if (n > 3 && !strcasecmp(path + n - 3, ".gz")) return COPY_GZIP;
    if (n > 4 && !strcasecmp(path + n - 4, ".zst")) return COPY_ZSTD;
    if (n > 5 && !strcasecmp(path + n - 5, ".zstd")) return COPY_ZSTD;
    return COPY_NONE;
}

static int write_raw(outfile *f, const void *buf, size_t n, strata_err *err) {
    const char *p = buf;
    while (n) {
        ssize_t w = write(f->fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w == 0) errno = ENOSPC; /* nothing written, no error reported: the device is full */
        if (w <= 0) return copy_error(err, io_status(errno), f->path, "write failed: %s", strerror(errno));
        p += w, n -= (size_t)w;
    }
    return STRATA_OK;
}

/* zstd_pump feeds in (may be empty) to the encoder with mode and writes what comes out. */
static int zstd_pump(outfile *f, const void *buf, size_t n, ZSTD_EndDirective mode, strata_err *err) {
    ZSTD_inBuffer in = {buf, n, 0};
    for (;;) {
        ZSTD_outBuffer out = {f->zout, IO_CHUNK, 0};
        size_t left = ZSTD_compressStream2(f->zc, &out, &in, mode);
        if (ZSTD_isError(left)) return copy_error(err, STRATA_ERROR, f->path, "zstd: %s", ZSTD_getErrorName(left));
        int rc = write_raw(f, f->zout, out.pos, err);
        if (rc) return rc;
        if (mode == ZSTD_e_continue ? in.pos == in.size : left == 0) return STRATA_OK;
    }
}

/* outfile_write is the CSV writer's write function. */
static int outfile_write(void *arg, const void *buf, size_t n, strata_err *err) {
    outfile *f = arg;
    if (f->zc) return zstd_pump(f, buf, n, ZSTD_e_continue, err);
    if (!f->gz) return write_raw(f, buf, n, err);
    if (n && gzwrite(f->gz, buf, (unsigned)n) == 0) {
        int errnum;
        const char *msg = gz_message(f->gz, &errnum);
        return copy_error(err, errnum == Z_ERRNO ? io_status(errno) : STRATA_ERROR, f->path, "gzip: %s",
                          errnum == Z_ERRNO ? strerror(errno) : msg);
    }
    return STRATA_OK;
}

static int outfile_open(outfile *f, const char *path, copy_compression comp, strata_err *err) {
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->path = path;
    size_t n = strlen(path) + 32;
    if (!(f->tmp = malloc(n))) return err_set(err, STRATA_NOMEM, "out of memory");
    snprintf(f->tmp, n, "%s.tmp-%ld", path, (long)getpid());
    f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (f->fd < 0) {
        free(f->tmp);
        f->tmp = NULL;
        return copy_error(err, STRATA_ERROR, path, "could not open for writing: %s", strerror(errno));
    }
    if (comp == COPY_AUTO) comp = by_extension(path);
    if (comp == COPY_GZIP) {
        if (!(f->gz = gz_attach(f->fd, "wb6")))
            return copy_error(err, STRATA_NOMEM, path, "could not start gzip compression");
    } else if (comp == COPY_ZSTD) {
        if (!(f->zc = ZSTD_createCCtx()) || !(f->zout = malloc(IO_CHUNK)))
            return copy_error(err, STRATA_NOMEM, path, "could not start zstd compression");
    }
    return STRATA_OK;
}

/* outfile_finish ends the compressed stream, closes the file and renames it into place. */
static int outfile_finish(outfile *f, strata_err *err) {
    int rc = STRATA_OK;
    if (f->zc) rc = zstd_pump(f, NULL, 0, ZSTD_e_end, err);
    if (!rc && f->gz) {
        int zr = gzclose(f->gz);
        f->gz = NULL;
        if (zr != Z_OK) rc = copy_error(err, io_status(errno), f->path, "gzip: could not finish the file");
    }
    if (!rc && close(f->fd) != 0) rc = copy_error(err, io_status(errno), f->path, "close failed: %s", strerror(errno));
    f->fd = -1;
    if (!rc && rename(f->tmp, f->path) != 0)
        rc = copy_error(err, STRATA_IOERR, f->path, "could not rename the written file into place: %s", strerror(errno));
    f->finished = rc == STRATA_OK;
    return rc;
}

/* outfile_close frees f; a file not finished is removed. */
static void outfile_close(outfile *f) {
    if (f->gz) gzclose(f->gz);
    if (f->fd >= 0) close(f->fd);
    if (f->tmp && !f->finished) unlink(f->tmp);
    ZSTD_freeCCtx(f->zc);
    free(f->zout);
    free(f->tmp);
    memset(f, 0, sizeof *f);
    f->fd = -1;
}

/* ---- PLAN_COPY_TO -------------------------------------------------------------------------- */

static int copy_to_open(exec_ctx *x, op_node *n) {
    const plan_op *p = n->op;
    const copy_spec *spec = p->copy.spec;
    outfile *f = calloc(1, sizeof *f);
    if (!f) return err_set(x->err, STRATA_NOMEM, "out of memory opening '%s'", spec->path);
    f->fd = -1;
    n->state = f;
    int rc = outfile_open(f, spec->path, spec->compression, x->err);
    if (rc) return rc;
    const plan_op *in = p->child[0];
    if (spec->csv.header && (rc = csv_write_header(&spec->csv, in->names, in->ncols, outfile_write, f, x->err)))
        return rc;
    return STRATA_OK;
}

static int copy_to_sink(exec_ctx *x, op_node *n, data_chunk *in, int side) {
    (void)side;
    int rc = csv_write_chunk(&n->op->copy.spec->csv, in, outfile_write, n->state, x->err);
    if (rc) return rc;
    x->changes += in->count;
    return STRATA_OK;
}

static int copy_to_finish(exec_ctx *x, op_node *n) { return outfile_finish(n->state, x->err); }

static void copy_to_close(op_node *n, bool keep) {
    (void)keep;
    if (!n->state) return;
    outfile_close(n->state);
    free(n->state);
    n->state = NULL;
}

/* the root of its plan: it returns no rows (x->changes counts those written) */
static int copy_to_next(exec_ctx *x, op_node *n, data_chunk *out) {
    (void)x, (void)n;
    out->count = 0;
    return STRATA_OK;
}

const op_vtable op_copy_to = {
    .name = "COPY_TO",
    .child = {CHILD_SINK},
    .open = copy_to_open,
    .close = copy_to_close,
    .sink = copy_to_sink,
    .finalize = copy_to_finish,
    .source = copy_to_next,
};
