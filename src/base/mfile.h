/* SPDX-License-Identifier: Apache-2.0 */
/* mfile.h: input files as one contiguous byte range (base layer), prefix mfile_. Plain files
 * are memory-mapped read-only (MADV_SEQUENTIAL); gzip and bzip2 files, detected by magic
 * bytes, are inflated into an unlinked temporary file (mfile_tmpdir) that is then mapped, so
 * their pages are page cache like a plain file's, not our memory; compressed bytes already in
 * memory (mfile_from_memory) are inflated into anonymous memory. Both stop at a cap, so a
 * compression bomb ends in LR_ERR_LIMIT instead of filling the disk or the memory. Readers
 * never see the difference. */
#ifndef LR_BASE_MFILE_H
#define LR_BASE_MFILE_H

#include "base/err.h"

#include <stdint.h>

enum mfile_compression { MFILE_PLAIN = 0, MFILE_GZIP = 1, MFILE_BZIP2 = 2 };

typedef struct mfile {
    const uint8_t *data;   /* the (decompressed) bytes */
    uint64_t len;          /* bytes in data */
    uint64_t file_len;     /* bytes of the file on disk */
    uint8_t compression;   /* enum mfile_compression */
    void *map;             /* mmap base to munmap, or NULL */
    uint64_t map_len;      /* bytes mapped */
    uint8_t *owned;        /* mapping holding the inflated data (temporary file or anonymous) */
    uint64_t owned_cap;    /* bytes reserved for owned */
    int fd1;               /* 1 + the descriptor of the file mapped as it is, else 0 */
} mfile;

/* Opens path (or a memory buffer, see mfile_from_memory). max_inflate caps the decompressed
 * size (0 = the default: the free space of the temporary folder, the memory available for
 * mfile_from_memory or a tmpfs folder, at most LR_DEFAULT_MAX_INFLATE). Returns LR_OK and
 * fills *m (release: mfile_close), or LR_ERR_IO / LR_ERR_FORMAT (corrupt stream) /
 * LR_ERR_LIMIT (cap reached, temporary folder full) with *err naming the file. */
lr_status mfile_open(mfile *m, const char *path, uint64_t max_inflate, lr_error *err);

/* Whether the first bytes of an inflated input may begin what the caller reads (a heap dump:
 * fmt_head_known): nonzero to go on. */
typedef int (*mfile_head_fn)(const uint8_t *p, uint64_t n);

/* mfile_open for a heap dump: compressed input whose first MFILE_HEAD_BYTES inflated fail
 * head is refused then (LR_ERR_FORMAT, offset 0), before the rest is inflated: a 785-byte
 * bzip2 file wrote 1 GiB to the temporary folder, a 40 KB one could fill it, before "unknown
 * heap dump format". head NULL: mfile_open. */
#define MFILE_HEAD_BYTES (64u << 10)
lr_status mfile_open_dump(mfile *m, const char *path, uint64_t max_inflate, mfile_head_fn head,
                          lr_error *err);

/* Wraps caller-owned bytes (decompressing them if compressed); used by fuzz targets. The
 * caller keeps data alive until mfile_close. */
lr_status mfile_from_memory(mfile *m, const uint8_t *data, uint64_t len, uint64_t max_inflate,
                            const char *name, lr_error *err);
/* The same, checking the inflated head as mfile_open_dump does. */
lr_status mfile_from_memory_dump(mfile *m, const uint8_t *data, uint64_t len,
                                 uint64_t max_inflate, mfile_head_fn head, const char *name,
                                 lr_error *err);

/* A reader's failure st on m, or a writer's reading it, as the user must hear it: when the
 * file mapped has become shorter since it was opened (another process cut or rewrote it),
 * the bytes read past its new end within the last page were zeros, not the dump's, and the
 * "malformed record" they caused is rewritten into that fact (LR_ERR_IO naming the file).
 * Otherwise st and *err are returned as they are. */
lr_status mfile_check_shrunk(const mfile *m, const char *name, lr_status st, lr_error *err);

/* Releases the mapping / buffer. Accepts a zeroed mfile. */
void mfile_close(mfile *m);

/* Makes a SIGBUS on a mapped input (the file shrank under us: rewritten in place, cut by
 * another process) end the process with exit 4 and one line naming the file, instead of a
 * silent crash. For programs (the CLI calls it once at start); a library user keeps its own
 * handlers. A SIGBUS elsewhere keeps its default action. Idempotent. */
void mfile_catch_sigbus(void);

/* Sets the folder for inflated temporary files (the CLI's --tmpdir); NULL restores the
 * default. Not thread-safe: call before opening inputs. */
void mfile_set_tmpdir(const char *dir);

/* Whether inflating compressed input draws a progress bar on stderr (base/progress.h; the
 * CLI's on a terminal): a multi-gigabyte .gz takes minutes before the load's own bar. Not
 * thread-safe, as mfile_set_tmpdir. */
void mfile_set_progress(int on);

/* The folder inflated input goes to: mfile_set_tmpdir's, else $TMPDIR, else /tmp. */
const char *mfile_tmpdir(void);

/* An unnamed read-write file in dir, gone when its last descriptor closes (inflated input,
 * spilled arrays): an fd, or -1 with errno set. stem names the fallback file while it lives. */
int mfile_open_unnamed(const char *dir, const char *stem);

/* Copies what descriptor in delivers (a pipe, standard input) into an unnamed file of
 * mfile_tmpdir(), capped as mfile_open caps it (max_inflate, else the folder's free space):
 * its descriptor (O_CLOEXEC) in *out, or LR_ERR_LIMIT / LR_ERR_IO naming name. For a caller
 * that must read such input twice, or hand it to another process by /proc/self/fd. */
lr_status mfile_spool(int in, const char *name, uint64_t max_inflate, int *out, lr_error *err);

/* Tells the kernel how [p, p + n) of a mapped input is about to be read: random (1) turns
 * readahead off, so a walk that touches one header per megabyte reads those pages only and
 * not the bodies between them (a dump larger than the page cache is otherwise read whole
 * once per such walk); 0 restores sequential readahead. Advisory: any memory is accepted,
 * errors are ignored. */
void mfile_advise(const void *p, uint64_t n, int random);

/* "plain", "gzip", "bzip2". */
const char *mfile_compression_name(unsigned c);

#endif
