/* SPDX-License-Identifier: Apache-2.0 */
/* outfile.c: atomic, buffered output files (base layer), prefix outfile_. Implements
 * outfile.h. The byte path is buffer -> sink, where sink is write(2) on the temporary file
 * or deflate into zbuf followed by write(2). Every OUTFILE_WRITEBACK bytes written, Linux is
 * asked to start writing the pages back (sync_file_range, asynchronous), so the fsync in
 * outfile_commit waits for the tail of the file only instead of the whole of it. Both happen
 * only when LEAKRAY_FSYNC=1 asks for durable output (outfile.h). Temporaries still open are
 * unlinked when SIGINT, SIGTERM, SIGHUP or SIGXFSZ (ulimit -f) ends the process (the handler
 * is installed with the first outfile, and re-raises the signal). */
#define _GNU_SOURCE
#include "base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define OUTFILE_ZBUF (256u << 10)       /* deflate output chunk */
#define OUTFILE_WRITEBACK (32ull << 20) /* start writeback after this many bytes */
#define OUTFILE_GZIP_LEVEL 6            /* zlib's default trade-off */

static void fail(outfile *of, int e)
{
    if (!of->failed)
        of->failed = e ? e : EIO;
}

/* write(2) of all len bytes, retrying short writes and EINTR. */
static void raw_write(outfile *of, const uint8_t *p, size_t len)
{
    while (len > 0 && !of->failed) {
        ssize_t k = write(of->fd, p, len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            fail(of, k < 0 ? errno : EIO);
            return;
        }
        p += k;
        len -= (size_t)k;
        of->since_sync += (uint64_t)k;
    }
#ifdef SYNC_FILE_RANGE_WRITE
    if (of->durable && of->since_sync >= OUTFILE_WRITEBACK) {
        /* A hint: unsupported file systems just return an error, and fsync still decides. */
        (void)sync_file_range(of->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
        of->since_sync = 0;
    }
#endif
}

/* Runs deflate over avail_in with `flush` until it needs more input (or, for Z_FINISH, until
 * the stream ended), writing every full output chunk. */
static void deflate_out(outfile *of, int flush)
{
    z_stream *z = of->z;
    for (;;) {
        z->next_out = of->zbuf;
        z->avail_out = OUTFILE_ZBUF;
        int r = deflate(z, flush);
        if (r == Z_STREAM_ERROR) {
            fail(of, EIO);
            return;
        }
        raw_write(of, of->zbuf, OUTFILE_ZBUF - z->avail_out);
        if (of->failed || r == Z_STREAM_END)
            return;
        if (z->avail_out != 0 && (flush != Z_FINISH || r == Z_BUF_ERROR))
            return; /* all input taken (a Z_BUF_ERROR here means nothing was left to do) */
    }
}

/* Sends bytes on, compressing when asked. */
static void sink(outfile *of, const uint8_t *p, size_t len)
{
    if (of->failed || len == 0)
        return;
    if (!of->z) {
        raw_write(of, p, len);
        return;
    }
    z_stream *z = of->z;
    while (len > 0 && !of->failed) {
        uInt c = len > UINT_MAX ? UINT_MAX : (uInt)len;
        z->next_in = (Bytef *)(uintptr_t)p;
        z->avail_in = c;
        deflate_out(of, Z_NO_FLUSH);
        p += c - z->avail_in;
        len -= c - z->avail_in;
        if (z->avail_in != 0)
            fail(of, EIO); /* deflate stopped without taking its input */
    }
}

static void flush_buf(outfile *of)
{
    sink(of, (const uint8_t *)of->buf, of->n);
    of->n = 0;
}

void outfile_write_slow(outfile *of, const void *p, size_t len)
{
    const uint8_t *s = p;
    of->total += len;
    if (len >= OUTFILE_BUF) {
        flush_buf(of);
        sink(of, s, len);
        return;
    }
    /* Top the buffer up first so the file is written in whole buffer-sized chunks. */
    size_t k = OUTFILE_BUF - of->n < len ? OUTFILE_BUF - of->n : len;
    if (k)
        memcpy(of->buf + of->n, s, k);
    of->n += k;
    if (of->n == OUTFILE_BUF)
        flush_buf(of);
    if (len > k)
        memcpy(of->buf + of->n, s + k, len - k);
    of->n += len - k;
}

void outfile_zero(outfile *of, uint64_t len)
{
    of->total += len;
    while (len > 0) {
        if (of->n == OUTFILE_BUF)
            flush_buf(of);
        size_t c = OUTFILE_BUF - of->n;
        if (c > len)
            c = (size_t)len;
        memset(of->buf + of->n, 0, c);
        of->n += c;
        len -= c;
    }
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* ---- temporaries removed on SIGINT, SIGTERM and SIGHUP ---- */

/* Live temporary names in fixed slots the handler reads without locks or allocation (a slot
 * is published by setting its pointer last and withdrawn by clearing it first). */
#define OUTFILE_LIVE 16
static char *volatile live[OUTFILE_LIVE];
static const int caught[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ};

void outfile_unlink_live(void)
{
    for (int i = 0; i < OUTFILE_LIVE; i++) {
        char *t = live[i];
        if (t)
            unlink(t);
    }
}

static void on_signal(int sig)
{
    outfile_unlink_live();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void live_add(char *tmp)
{
    static int installed;
    if (!installed) {
        installed = 1;
        for (size_t k = 0; k < sizeof caught / sizeof *caught; k++) {
            struct sigaction sa, old;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_signal;
            sigemptyset(&sa.sa_mask);
            /* a signal the caller ignores (nohup) stays ignored */
            if (sigaction(caught[k], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
                continue;
            sigaction(caught[k], &sa, NULL);
        }
    }
    for (int i = 0; i < OUTFILE_LIVE; i++)
        if (!live[i]) {
            __atomic_store_n(&live[i], tmp, __ATOMIC_RELEASE);
            return;
        }
}

static void live_remove(const char *tmp)
{
    for (int i = 0; i < OUTFILE_LIVE; i++)
        if (live[i] == tmp)
            __atomic_store_n(&live[i], NULL, __ATOMIC_RELEASE);
}

void outfile_guard(char *path)
{
    live_add(path);
}

void outfile_unguard(const char *path)
{
    live_remove(path);
}

static void release(outfile *of)
{
    if (of->tmp)
        live_remove(of->tmp);
    if (of->z) {
        deflateEnd(of->z);
        free(of->z);
    }
    if (of->fd >= 0)
        close(of->fd);
    free(of->zbuf);
    free(of->buf);
    free(of->path);
    free(of->tmp);
    free(of);
}

/* "-": a stream, so there is no temporary and no rename; a copy of fd 1 keeps close() at
 * commit from closing stdout itself. Bytes stdio still buffers go out first. */
/* A stream written in place: standard output (dev NULL), or a FIFO or character device that
 * already exists at dev (a pipe of the shell's >(...), /dev/null, /dev/stdout). */
static lr_status open_stream(const char *dev, int fdn, outfile **out, lr_error *err)
{
    const char *name = dev ? dev : fdn == STDOUT_FILENO ? "(stdout)" : "(descriptor)";
    outfile *of = err_calloc(1, sizeof *of);
    if (!of)
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", name);
    of->fd = -1;
    of->buf = err_malloc(OUTFILE_BUF);
    of->path = err_malloc(strlen(name) + 1);
    if (!of->buf || !of->path) {
        release(of);
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", name);
    }
    memcpy(of->path, name, strlen(name) + 1);
    fflush(stdout);
    /* non-blocking open: a FIFO no process reads fails at once (ENXIO) instead of waiting */
    of->fd = dev ? open(dev, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                 : fcntl(fdn, F_DUPFD_CLOEXEC, 3);
    if (dev && of->fd < 0 && errno == ENXIO) {
        lr_status s = LR_FAIL(err, LR_ERR_IO, "%s: a FIFO that no process reads", name);
        release(of);
        return s;
    }
    if (dev && of->fd >= 0) /* then blocking writes, as to any stream */
        (void)fcntl(of->fd, F_SETFL, fcntl(of->fd, F_GETFL) & ~O_NONBLOCK);
    if (of->fd < 0) {
        lr_status s = LR_FAIL(err, LR_ERR_IO, "%s: %s", name, strerror(errno));
        release(of);
        return s;
    }
    *out = of;
    return LR_OK;
}

/* The descriptor a path names by number (/dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N), or -1: such a path is the process's own open file, which a rename over
 * it would not reach (`-o /dev/stdout > f` replaced the /dev/stdout link itself, for every
 * process of the machine, and f stayed empty). */
static int fd_named(const char *path)
{
    if (!strcmp(path, "/dev/stdout"))
        return STDOUT_FILENO;
    if (!strcmp(path, "/dev/stderr"))
        return STDERR_FILENO;
    const char *d = !strncmp(path, "/dev/fd/", 8)         ? path + 8
                    : !strncmp(path, "/proc/self/fd/", 14) ? path + 14
                                                            : NULL;
    if (!d || !*d || strlen(d) > 6)
        return -1;
    int n = 0;
    for (; *d; d++) {
        if (*d < '0' || *d > '9')
            return -1;
        n = n * 10 + (*d - '0');
    }
    return n;
}

lr_status outfile_open(const char *path, outfile **out, lr_error *err)
{
    *out = NULL;
    if (!path[0])
        return LR_FAIL(err, LR_ERR_USAGE, "an empty output file name");
    /* The target is replaced by a rename, never truncated in place; a FIFO or a character
     * device there is a stream, written in place as standard output is; a folder or any
     * other kind of file is not a file to replace. */
    struct stat tsb;
    if (strcmp(path, OUTFILE_STDOUT) == 0)
        return open_stream(NULL, STDOUT_FILENO, out, err);
    int fdn = fd_named(path);
    if (fdn >= 0) { /* written where the descriptor is, as a shell's `>&N` */
        if (fcntl(fdn, F_GETFD) < 0)
            return LR_FAIL(err, LR_ERR_IO, "%s: %s", path, strerror(errno));
        return open_stream(NULL, fdn, out, err);
    }
    /* A symbolic link: its target is the file to replace (a rename onto the link would
     * replace the link, and the file it names would keep its old contents). */
    struct stat lsb;
    if (lstat(path, &lsb) == 0 && S_ISLNK(lsb.st_mode)) {
        char *real = realpath(path, NULL);
        if (!real)
            return LR_FAIL(err, LR_ERR_IO, "%s: a symbolic link to %s; not replaced", path,
                           errno == ENOENT ? "nothing" : strerror(errno));
        lr_status s = fd_named(real) >= 0 || !strcmp(real, path)
                          ? LR_FAIL(err, LR_ERR_IO, "%s: not a file to replace", path)
                          : outfile_open(real, out, err);
        free(real);
        return s;
    }
    int exists = stat(path, &tsb) == 0;
    if (exists && (S_ISFIFO(tsb.st_mode) || S_ISCHR(tsb.st_mode)))
        return open_stream(path, -1, out, err);
    if (exists && !S_ISREG(tsb.st_mode))
        return LR_FAIL(err, LR_ERR_IO, "%s: exists and is not a regular file; not replaced",
                       path);
    size_t pl = strlen(path);
    outfile *of = err_calloc(1, sizeof *of);
    if (!of)
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", path);
    of->fd = -1;
    of->buf = err_malloc(OUTFILE_BUF);
    of->path = err_malloc(pl + 1);
    of->tmp = err_malloc(pl + 16);
    int gz = ends_with(path, ".gz");
    if (gz) {
        of->z = err_calloc(1, sizeof(z_stream));
        of->zbuf = err_malloc(OUTFILE_ZBUF);
    }
    if (!of->buf || !of->path || !of->tmp || (gz && (!of->z || !of->zbuf))) {
        release(of);
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", path);
    }
    memcpy(of->path, path, pl + 1);
    const char *fs = getenv("LEAKRAY_FSYNC");
    of->durable = fs && fs[0] == '1';
    if (gz && deflateInit2(of->z, OUTFILE_GZIP_LEVEL, Z_DEFLATED, 15 + 16, 8,
                           Z_DEFAULT_STRATEGY) != Z_OK) {
        free(of->z);
        of->z = NULL;
        release(of);
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: cannot start gzip stream", path);
    }
    /* "<dir>/.<base>.XXXXXX": same folder, so rename is atomic and never crosses devices. */
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
    memcpy(of->tmp, path, dl);
    snprintf(of->tmp + dl, pl - dl + 16, ".%s.XXXXXX", path + dl);
    /* signals are held while the name becomes known to the handler */
    sigset_t all, prev;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &prev);
    of->fd = mkstemp(of->tmp);
    if (of->fd >= 0)
        live_add(of->tmp);
    sigprocmask(SIG_SETMASK, &prev, NULL);
    if (of->fd < 0) {
        lr_status s = LR_FAIL(err, LR_ERR_IO, "%s: cannot create temporary file %s: %s", path,
                              of->tmp, strerror(errno));
        release(of);
        return s;
    }
    /* mkstemp makes the file 0600; give it the mode a plain create would have, or the
     * mode (and owner, where allowed) of the file it replaces, as `>` keeps them: a report
     * locked down to 0600 stays so. */
    if (exists) {
        if (fchown(of->fd, tsb.st_uid, tsb.st_gid) != 0) {
            /* not ours to give away: the mode below still holds */
        }
        (void)fchmod(of->fd, tsb.st_mode & 0777); /* never a set-id bit */
    } else {
        mode_t um = umask(0);
        umask(um);
        (void)fchmod(of->fd, 0666 & ~um);
    }
    *out = of;
    return LR_OK;
}

void outfile_gzip_level(outfile *of, int level)
{
    if (of->z && of->total == 0 && level >= 1 && level <= 9)
        (void)deflateParams(of->z, level, Z_DEFAULT_STRATEGY);
}

/* fsync of the folder holding path, so the rename itself survives a crash. */
static int sync_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = NULL;
    if (slash) {
        size_t dl = slash == path ? 1 : (size_t)(slash - path);
        dir = err_malloc(dl + 1);
        if (!dir)
            return ENOMEM;
        memcpy(dir, path, dl);
        dir[dl] = 0;
    }
    int fd = open(dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    if (fd < 0)
        return errno;
    int e = 0;
    /* Some file systems cannot sync a folder (EINVAL): nothing more can be done there. */
    if (fsync(fd) != 0 && errno != EINVAL)
        e = errno;
    close(fd);
    return e;
}

lr_status outfile_commit(outfile *of, lr_error *err)
{
    flush_buf(of);
    if (of->z && !of->failed) {
        z_stream *z = of->z;
        z->next_in = NULL;
        z->avail_in = 0;
        deflate_out(of, Z_FINISH);
    }
    if (of->durable && !of->failed && fsync(of->fd) != 0 && errno != EINVAL)
        fail(of, errno);
    if (close(of->fd) != 0)
        fail(of, errno);
    of->fd = -1;
    lr_status rc = LR_OK;
    if (of->failed)
        rc = LR_FAIL(err, LR_ERR_IO, "%s: write failed: %s", of->path, strerror(of->failed));
    else if (!of->tmp)
        ; /* a stream: nothing to rename */
    else if (rename(of->tmp, of->path) != 0)
        rc = LR_FAIL(err, LR_ERR_IO, "%s: cannot rename %s into place: %s", of->path, of->tmp,
                     strerror(errno));
    if (rc != LR_OK) {
        if (of->tmp)
            unlink(of->tmp);
    } else if (of->durable && of->tmp) {
        int e = sync_dir(of->path);
        if (e)
            rc = LR_FAIL(err, LR_ERR_IO, "%s: written, but its folder cannot be synced: %s",
                         of->path, strerror(e));
    }
    release(of);
    return rc;
}

void outfile_abort(outfile *of)
{
    if (!of)
        return;
    if (of->fd >= 0) {
        close(of->fd);
        of->fd = -1;
    }
    if (of->tmp)
        unlink(of->tmp);
    release(of);
}
