/* SPDX-License-Identifier: Apache-2.0 */
/* outfile.h: atomic, buffered output files (base layer), prefix outfile_. Every file leakray
 * writes (strip, convert) goes through here, so all of them behave alike:
 * - bytes go to a temporary `<dir>/.<base>.XXXXXX` (mkstemp, mode 0666 & ~umask) in the
 *   target's own folder, so the final rename is atomic and never crosses file systems;
 * - writes are collected in a 1 MiB buffer; a write at least that long goes out directly
 *   from the caller's memory (no copy), which is what keeps strip at page-cache speed;
 * - a target whose name ends in ".gz" is gzip-compressed on the fly (zlib deflate);
 * - outfile_commit flushes, finishes the gzip stream, renames the file over the target
 *   (with LEAKRAY_FSYNC=1 in the environment it first fsyncs the file and afterwards the
 *   folder, for output that must survive a power cut; off by default because it ties
 *   throughput to the disk instead of the page cache); outfile_abort closes and unlinks.
 *   Either way the target is
 *   never partial: it is the old file (or absent) until the rename, the complete new one
 *   after it.
 * - the target "-" (OUTFILE_STDOUT) is standard output, and a FIFO or character device that
 *   exists there (a shell's >(...), /dev/null) a stream: written in place, as a stream can
 *   only be, so a failure leaves what was sent (commit still reports it); any other target
 *   that exists and is not a regular file (a folder, a socket) is refused;
 * - the temporary is unlinked if SIGINT, SIGTERM, SIGHUP or SIGXFSZ ends the process first, or
 *   a SIGBUS on a mapped input (mfile_catch_sigbus).
 * Write errors are sticky (the first errno is kept, later writes are dropped) and reported
 * once, by outfile_commit, as LR_ERR_IO naming the target and the errno text; writers that
 * run long may poll outfile_failed to stop early. Not thread-safe: one writer per handle. */
#ifndef LR_BASE_OUTFILE_H
#define LR_BASE_OUTFILE_H

#include "base/err.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define OUTFILE_BUF (1u << 20) /* buffer bytes; writes this long or longer bypass it */
#define OUTFILE_STDOUT "-"     /* the target name meaning standard output */

/* Fields are public only so the byte-at-a-time helpers below can be inline; use the
 * functions. */
typedef struct outfile {
    char *buf;      /* OUTFILE_BUF bytes */
    size_t n;       /* bytes buffered */
    uint64_t total; /* uncompressed bytes accepted so far */
    int failed;     /* errno of the first failure, 0 while none */
    int fd;         /* the temporary file */
    void *z;        /* z_stream when compressing, else NULL */
    uint8_t *zbuf;  /* deflate output */
    uint64_t since_sync; /* bytes written to fd since writeback was last started */
    int durable;         /* LEAKRAY_FSYNC=1: fsync file and folder at commit */
    char *path;     /* target, for messages and the rename */
    char *tmp;      /* temporary file name; NULL for standard output */
} outfile;

/* Creates the temporary file for target `path` and returns the handle in *of. gzip level 6
 * when path ends in ".gz" (see outfile_gzip_level). Returns LR_OK, LR_ERR_IO ("PATH: cannot
 * create temporary file TMP: <errno text>") or LR_ERR_NOMEM; *of is NULL on failure. */
lr_status outfile_open(const char *path, outfile **of, lr_error *err);

/* Sets the gzip level (1 fastest .. 9 smallest) before the first write; no effect on plain
 * output or once bytes were written. */
void outfile_gzip_level(outfile *of, int level);

/* Sends the buffer (and, for len >= OUTFILE_BUF, p itself) on. Used by the inline helpers. */
void outfile_write_slow(outfile *of, const void *p, size_t len);

/* Appends len bytes. Errors are kept for outfile_commit. */
static inline void outfile_write(outfile *of, const void *p, size_t len)
{
    if (len < OUTFILE_BUF - of->n) {
        memcpy(of->buf + of->n, p, len);
        of->n += len;
        of->total += len;
        return;
    }
    outfile_write_slow(of, p, len);
}

/* Appends one byte. */
static inline void outfile_putc(outfile *of, char c)
{
    if (of->n == OUTFILE_BUF)
        outfile_write_slow(of, NULL, 0);
    of->buf[of->n++] = c;
    of->total++;
}

/* Appends len zero bytes (no source buffer needed). */
void outfile_zero(outfile *of, uint64_t len);

/* errno of the first write failure, 0 if none yet. */
static inline int outfile_failed(const outfile *of) { return of->failed; }

/* Uncompressed bytes accepted so far (the final size of plain output). */
static inline uint64_t outfile_bytes(const outfile *of) { return of->total; }

/* Finishes the file: flush, end the gzip stream, fsync, close, rename over the target, fsync
 * the folder. Frees of in every case. On failure the temporary is removed, the target is
 * untouched and LR_ERR_IO names it: "PATH: write failed: ...", "PATH: cannot rename TMP into
 * place: ...". A failing folder fsync (after the rename) is reported the same way, with the
 * complete file already in place. */
lr_status outfile_commit(outfile *of, lr_error *err);

/* Discards the file: close and unlink the temporary, free of. Accepts NULL. */
void outfile_abort(outfile *of);

/* Another file the process writes outside outfile (a child's redirected output) removed on
 * those signals like the temporaries: path must stay valid until outfile_unguard. At most
 * 16 names are guarded at once (temporaries included); past that a name is not. */
void outfile_guard(char *path);
void outfile_unguard(const char *path);

/* Unlinks every live temporary and guarded name now; async-signal-safe, for a handler that
 * ends the process another way (mfile's SIGBUS). */
void outfile_unlink_live(void);

#endif
