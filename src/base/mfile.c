/* SPDX-License-Identifier: Apache-2.0 */
/* mfile.c: input files as one contiguous byte range (base layer), prefix mfile_. Plain files
 * are mapped read-only with MADV_SEQUENTIAL, so their pages count as file cache, not as our
 * memory. gzip (zlib, multi-member) and bzip2 (libbz2, multi-stream) are recognised by magic
 * and inflated into an unlinked temporary file that is mapped once complete (the same holds
 * for its pages), or, for bytes already in memory, into an anonymous mapping grown with
 * mremap. Never past the caller's cap: a compression bomb ends in LR_ERR_LIMIT after at most
 * `cap` bytes. A corrupt stream is LR_ERR_FORMAT and a stream cut short LR_ERR_TRUNCATED,
 * both carrying the offset in the compressed file where the decoder stopped. */
#define _GNU_SOURCE
#include "base/mfile.h"
#include "base/numfmt.h"
#include "base/outfile.h"
#include "base/progress.h"

#include <bzlib.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <zlib.h>

/* Where the inflated bytes go. A file-backed sink (mfile_open) stages them in a small buffer
 * and writes it to an unlinked temporary file, mapped once complete: its pages are page cache
 * that the kernel can drop and write back, not anonymous memory. An anonymous sink
 * (mfile_from_memory, whose caller holds the input in memory anyway) grows a private mapping
 * by doubling with mremap. Both stop at `limit` bytes. */
enum { CAP_OPTION, CAP_MEMORY, CAP_DISK };
typedef struct outbuf {
    uint8_t *p;         /* anonymous: all output so far; file: the staging buffer */
    uint64_t fill;      /* bytes in p */
    uint64_t cap_alloc; /* bytes mapped at p */
    uint64_t flushed;   /* bytes already written to fd (file sink) */
    uint64_t limit;     /* the caller's max_inflate, or the default cap */
    int fd;             /* the temporary file, or -1 for an anonymous sink */
    int why;            /* CAP_*: which bound `limit` is, for the message */
    int spool;          /* the bytes are a stream's, copied (spool), not inflated */
    const char *dir;    /* the temporary file's folder (messages) */
    uint64_t disk_room; /* its free space, less 1/16 (the CAP_DISK bound before the floor) */
    mfile_head_fn head; /* the first MFILE_HEAD_BYTES' check, until it is made */
} outbuf;

#define STAGE_BYTES (4u << 20)

static const char *tmpdir_opt; /* mfile_set_tmpdir */

void mfile_set_tmpdir(const char *dir) { tmpdir_opt = dir && *dir ? dir : NULL; }

static int progress_opt; /* mfile_set_progress */

void mfile_set_progress(int on) { progress_opt = on; }

const char *mfile_tmpdir(void)
{
    if (tmpdir_opt)
        return tmpdir_opt;
    const char *t = getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

static int is_gzip(const uint8_t *p, uint64_t n) { return n >= 2 && p[0] == 0x1f && p[1] == 0x8b; }

static int is_bzip2(const uint8_t *p, uint64_t n)
{
    return n >= 4 && p[0] == 'B' && p[1] == 'Z' && p[2] == 'h' && p[3] >= '1' && p[3] <= '9';
}

static lr_status over_limit(const outbuf *o, const char *name, lr_error *err)
{
    char lim[NUMFMT_GROUP_MAX];
    numfmt_group(lim, o->limit);
    const char *what = o->spool ? "input read from a stream" : "inflated size";
    if (o->why == CAP_DISK) {
        /* the free space itself, not the 1 MiB floor the cap never goes under */
        numfmt_group(lim, o->disk_room);
        return LR_FAIL(err, LR_ERR_LIMIT, "%s: %s exceeds the free space in %s (%s bytes; "
                       "--tmpdir chooses another folder, --max-inflate sets another cap)",
                       name, what, o->dir, lim);
    }
    if (o->why == CAP_MEMORY)
        return LR_FAIL(err, LR_ERR_LIMIT, "%s: %s exceeds the memory available (%s bytes; "
                       "--max-inflate sets another cap)", name, what, lim);
    return LR_FAIL(err, LR_ERR_LIMIT, "%s: %s exceeds --max-inflate (%s bytes)", name, what,
                   lim);
}

/* Writes the staging buffer to the temporary file. A full filesystem is a resource limit
 * (exit 5) naming the folder, like the cap it should have met first. */
static lr_status out_flush(outbuf *o, const char *name, lr_error *err)
{
    uint64_t done = 0;
    /* A file-size limit (ulimit -f) is met here, before the write the kernel would answer
     * with SIGXFSZ, a kill: a write that starts below the limit is cut short at it, and one
     * at it is not made (EFBIG). The signal's action is no library's to change: ignoring it
     * around each write was process-wide, and two threads inflating at once each restored
     * the other's "ignore", losing the program's own handler. */
    struct rlimit rl;
    uint64_t fsize = getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                         ? (uint64_t)rl.rlim_cur
                         : UINT64_MAX;
    while (done < o->fill) {
        uint64_t at = o->flushed + done, n = o->fill - done;
        if (at >= fsize) {
            errno = EFBIG;
            n = 0;
        } else if (n > fsize - at) {
            n = fsize - at;
        }
        ssize_t k = n ? write(o->fd, o->p + done, n) : -1;
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            int e = k < 0 ? errno : ENOSPC;
            unsigned long long at = (unsigned long long)(o->flushed + done);
            const char *what = o->spool ? "the input's copy" : "the inflated dump";
            if (e == ENOSPC || e == EDQUOT || e == EFBIG)
                return LR_FAIL(err, LR_ERR_LIMIT, "%s: no room in %s for %s (%llu bytes "
                               "written: %s; --tmpdir chooses another folder)",
                               name, o->dir, what, at, strerror(e));
            return LR_FAIL(err, LR_ERR_IO, "%s: cannot write %s to %s: %s", name, what,
                           o->dir, strerror(e));
        }
        done += (uint64_t)k;
    }
    o->flushed += o->fill;
    o->fill = 0;
    return LR_OK;
}

/* Makes room for the decoder: grows the anonymous buffer or flushes the staging buffer.
 * Sets *room to the bytes it may write at o->p + o->fill (never past the cap). */
static lr_status out_room(outbuf *o, uint64_t *room, const char *name, lr_error *err)
{
    /* before the buffer is flushed or grown: it still holds the head */
    if (o->head && o->flushed == 0 && o->fill >= MFILE_HEAD_BYTES) {
        if (!o->head(o->p, o->fill))
            return LR_CORRUPT(err, name, 0, "unknown heap dump format: its first %llu bytes "
                              "inflated are no heap dump (the rest was not inflated)",
                              (unsigned long long)o->fill);
        o->head = NULL;
    }
    uint64_t total = o->flushed + o->fill;
    if (total >= o->limit)
        return over_limit(o, name, err);
    if (o->fill == o->cap_alloc) {
        if (o->fd >= 0) {
            LR_TRY(out_flush(o, name, err));
        } else {
            uint64_t want = o->cap_alloc * 2;
            if (want > o->limit)
                want = o->limit;
            void *q = mremap(o->p, o->cap_alloc, want, MREMAP_MAYMOVE);
            if (q == MAP_FAILED)
                return LR_FAIL(err, LR_ERR_LIMIT, "%s: cannot grow inflate buffer to %llu "
                               "bytes: %s", name, (unsigned long long)want, strerror(errno));
            o->p = q;
            o->cap_alloc = want;
        }
    }
    uint64_t r = o->cap_alloc - o->fill;
    if (r > o->limit - total)
        r = o->limit - total;
    *room = r;
    return LR_OK;
}

static lr_status out_init(outbuf *o, uint64_t in_len, const char *name, lr_error *err)
{
    /* Anonymous: dumps compress 3-10x, so start near the likely size to avoid most remaps. */
    uint64_t first = o->fd >= 0 ? STAGE_BYTES : in_len * 4;
    if (first < (1u << 20))
        first = 1u << 20;
    if (first > o->limit && o->fd < 0)
        first = o->limit;
    if (first == 0)
        first = 1;
    o->p = mmap(NULL, first, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (o->p == MAP_FAILED) {
        o->p = NULL;
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: cannot map %llu bytes for inflating", name,
                       (unsigned long long)first);
    }
    o->fill = 0;
    o->flushed = 0;
    o->cap_alloc = first;
    return LR_OK;
}

/* zlib's counters are 32-bit: feed at most this much input per call. */
#define CHUNK_IN (1u << 30)

static lr_status inflate_gzip(outbuf *o, const uint8_t *in, uint64_t n, const char *name,
                              lr_error *err)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 32) != Z_OK)
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: zlib init failed", name);
    uint64_t pos = 0; /* input consumed */
    lr_status st = LR_OK;
    progress bar;
    progress_init(&bar, "inflating", n, progress_opt);
    for (;;) {
        if (z.avail_in == 0 && pos < n) {
            uint64_t take = n - pos < CHUNK_IN ? n - pos : CHUNK_IN;
            z.next_in = (Bytef *)(uintptr_t)(in + pos);
            z.avail_in = (uInt)take;
            pos += take;
        }
        uint64_t room;
        if ((st = out_room(o, &room, name, err)) != LR_OK)
            break;
        z.next_out = o->p + o->fill;
        z.avail_out = (uInt)(room < CHUNK_IN ? room : CHUNK_IN);
        uInt before = z.avail_out;
        int r = inflate(&z, Z_NO_FLUSH);
        o->fill += before - z.avail_out;
        uint64_t at = pos - z.avail_in;
        progress_update(&bar, at);
        if (r == Z_STREAM_END) {
            /* Concatenated members (gzip -c a b) form one file; trailing zeros are padding. */
            while (at < n && in[at] == 0)
                at++;
            if (at < n && is_gzip(in + at, n - at)) {
                inflateReset(&z);
                z.next_in = (Bytef *)(uintptr_t)(in + at);
                uint64_t take = n - at < CHUNK_IN ? n - at : CHUNK_IN;
                z.avail_in = (uInt)take;
                pos = at + take;
                continue;
            }
            /* Anything else after a member is not gzip: stopping there silently would drop
             * the rest of the dump. */
            if (at < n)
                st = LR_CORRUPT(err, name, at, "bytes after gzip member are not a gzip member "
                                "(%llu bytes inflated so far)",
                                (unsigned long long)(o->flushed + o->fill));
            break;
        }
        if (r == Z_BUF_ERROR && z.avail_in == 0 && pos >= n) {
            st = LR_TRUNC(err, name, at, "gzip stream ends early (%llu bytes inflated)",
                          (unsigned long long)(o->flushed + o->fill));
            break;
        }
        if (r == Z_MEM_ERROR) {
            st = LR_FAIL(err, LR_ERR_NOMEM, "%s: zlib out of memory", name);
            break;
        }
        if (r != Z_OK && r != Z_BUF_ERROR) {
            st = LR_CORRUPT(err, name, at, "corrupt gzip stream: %s", z.msg ? z.msg : "error");
            break;
        }
    }
    progress_done(&bar);
    inflateEnd(&z);
    return st;
}

static lr_status inflate_bzip2(outbuf *o, const uint8_t *in, uint64_t n, const char *name,
                               lr_error *err)
{
    bz_stream b;
    memset(&b, 0, sizeof b);
    if (BZ2_bzDecompressInit(&b, 0, 0) != BZ_OK)
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: bzip2 init failed", name);
    uint64_t pos = 0;
    lr_status st = LR_OK;
    progress bar;
    progress_init(&bar, "inflating", n, progress_opt);
    for (;;) {
        if (b.avail_in == 0 && pos < n) {
            uint64_t take = n - pos < CHUNK_IN ? n - pos : CHUNK_IN;
            b.next_in = (char *)(uintptr_t)(in + pos);
            b.avail_in = (unsigned)take;
            pos += take;
        }
        uint64_t room;
        if ((st = out_room(o, &room, name, err)) != LR_OK)
            break;
        b.next_out = (char *)(o->p + o->fill);
        b.avail_out = (unsigned)(room < CHUNK_IN ? room : CHUNK_IN);
        unsigned before = b.avail_out;
        unsigned in_before = b.avail_in;
        int r = BZ2_bzDecompress(&b);
        o->fill += before - b.avail_out;
        uint64_t at = pos - b.avail_in;
        progress_update(&bar, at);
        if (r == BZ_STREAM_END) {
            /* as after a gzip member: trailing zeros are padding, anything else is not
             * bzip2, and stopping there silently would drop the rest of the dump */
            while (at < n && in[at] == 0)
                at++;
            if (at < n && is_bzip2(in + at, n - at)) {
                BZ2_bzDecompressEnd(&b);
                memset(&b, 0, sizeof b);
                if (BZ2_bzDecompressInit(&b, 0, 0) != BZ_OK) {
                    progress_done(&bar);
                    return LR_FAIL(err, LR_ERR_NOMEM, "%s: bzip2 init failed", name);
                }
                pos = at;
                continue;
            }
            if (at < n)
                st = LR_CORRUPT(err, name, at, "bytes after bzip2 stream are not a bzip2 "
                                "stream (%llu bytes inflated so far)",
                                (unsigned long long)(o->flushed + o->fill));
            break;
        }
        if (r != BZ_OK) {
            if (r == BZ_MEM_ERROR)
                st = LR_FAIL(err, LR_ERR_NOMEM, "%s: bzip2 out of memory", name);
            else
                st = LR_CORRUPT(err, name, at, "corrupt bzip2 stream (code %d)", r);
            break;
        }
        /* BZ_OK with all input consumed and no output progress: the stream was cut. */
        if (b.avail_in == 0 && pos >= n && before == b.avail_out && in_before == 0) {
            st = LR_TRUNC(err, name, at, "bzip2 stream ends early (%llu bytes inflated)",
                          (unsigned long long)(o->flushed + o->fill));
            break;
        }
    }
    progress_done(&bar);
    BZ2_bzDecompressEnd(&b);
    return st;
}

/* Memory available now: MemAvailable + SwapFree (/proc/meminfo), UINT64_MAX if unknown. */
static uint64_t mem_available(void)
{
    uint64_t avail = 0;
    int seen = 0;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[128];
        unsigned long long kb;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1 ||
                sscanf(line, "SwapFree: %llu kB", &kb) == 1) {
                avail += (uint64_t)kb << 10;
                seen++;
            }
        }
        fclose(f);
    }
    return seen ? avail : UINT64_MAX;
}

static void cap_to(outbuf *o, uint64_t v, int why)
{
    if (v < o->limit) {
        o->limit = v;
        o->why = why;
    }
}

/* The default cap on inflated bytes, so a bomb stops with LR_ERR_LIMIT instead of filling
 * the disk or meeting the OOM killer. Never more than LR_DEFAULT_MAX_INFLATE. A file sink is
 * bounded by the free space of its folder (less 1/16 of it, so the rest of the system keeps
 * some room), and by the memory available when that folder is a tmpfs (its pages are
 * memory). An anonymous sink is bounded by the memory available. Both by half of an
 * address-space limit (ulimit -v) when one is set: the graph must fit beside the bytes. */
static void default_cap(outbuf *o)
{
    o->limit = LR_DEFAULT_MAX_INFLATE;
    o->why = CAP_OPTION;
    int in_memory = o->fd < 0;
    if (o->fd >= 0) {
        struct statfs fs;
        if (fstatfs(o->fd, &fs) == 0) {
            uint64_t free_b = (uint64_t)fs.f_bavail * (uint64_t)fs.f_bsize;
            o->disk_room = free_b - free_b / 16;
            cap_to(o, o->disk_room, CAP_DISK);
            in_memory = fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC;
        }
    }
    if (in_memory)
        cap_to(o, mem_available(), CAP_MEMORY);
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        cap_to(o, rl.rlim_cur / 2, CAP_MEMORY);
    if (o->limit < (1u << 20)) /* a small dump still inflates; the write then says no room */
        o->limit = 1u << 20;
}

/* An unnamed temporary file in dir: O_TMPFILE where the filesystem has it, else a named one
 * (dir/leakray-STEM-XXXXXX) unlinked at once. Either way nothing is left behind by a crash
 * or a signal. */
int mfile_open_unnamed(const char *dir, const char *stem)
{
    int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
        return fd;
    char path[4096];
    if (snprintf(path, sizeof path, "%s/leakray-%s-XXXXXX", dir, stem) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0)
        unlink(path);
    return fd;
}

/* The sink's cap: the caller's, else the default (default_cap). */
static void sink_limit(outbuf *o, uint64_t limit)
{
    if (limit) {
        o->limit = limit;
        o->why = CAP_OPTION;
    } else {
        default_cap(o);
    }
}

/* Inflates in[0..n) into m if compressed; otherwise leaves m untouched and returns LR_OK.
 * to_file: inflate into a temporary file in mfile_tmpdir() and map it. */
static lr_status maybe_inflate(mfile *m, const uint8_t *in, uint64_t n, uint64_t limit,
                               int to_file, mfile_head_fn head, const char *name, lr_error *err)
{
    int gz = is_gzip(in, n), bz = !gz && is_bzip2(in, n);
    if (!gz && !bz)
        return LR_OK;
    outbuf o;
    memset(&o, 0, sizeof o);
    o.fd = -1;
    o.head = head;
    o.dir = mfile_tmpdir();
    if (to_file && (o.fd = mfile_open_unnamed(o.dir, "inflate")) < 0)
        return LR_FAIL(err, LR_ERR_IO, "%s: cannot create a temporary file in %s for the "
                       "inflated dump: %s (--tmpdir chooses another folder)", name, o.dir,
                       strerror(errno));
    sink_limit(&o, limit);
    lr_status st = out_init(&o, n, name, err);
    if (st == LR_OK)
        st = gz ? inflate_gzip(&o, in, n, name, err) : inflate_bzip2(&o, in, n, name, err);
    if (st == LR_OK && o.fd >= 0)
        st = out_flush(&o, name, err);
    uint64_t total = o.flushed + o.fill;
    if (st == LR_OK && o.fd >= 0) {
        munmap(o.p, o.cap_alloc);
        o.p = NULL;
        if (total) {
            void *q = mmap(NULL, total, PROT_READ, MAP_SHARED, o.fd, 0);
            if (q == MAP_FAILED)
                st = LR_FAIL(err, errno == ENOMEM ? LR_ERR_LIMIT : LR_ERR_IO, "%s: cannot map "
                             "the inflated dump (%llu bytes): %s", name,
                             (unsigned long long)total, strerror(errno));
            else {
                madvise(q, total, MADV_SEQUENTIAL);
                o.p = q;
                o.cap_alloc = total;
            }
        } else {
            o.p = mmap(NULL, 1, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            o.cap_alloc = 1;
            if (o.p == MAP_FAILED) {
                o.p = NULL;
                st = LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", name);
            }
        }
    }
    if (o.fd >= 0)
        close(o.fd);
    if (st != LR_OK) {
        if (o.p)
            munmap(o.p, o.cap_alloc);
        return st;
    }
    /* Anonymous: give back the unused tail; keep at least one byte so munmap has a page. */
    uint64_t keep = total ? total : 1;
    if (keep < o.cap_alloc) {
        void *q = mremap(o.p, o.cap_alloc, keep, 0);
        if (q != MAP_FAILED) {
            o.p = q;
            o.cap_alloc = keep;
        }
    }
    m->owned = o.p;
    m->owned_cap = o.cap_alloc;
    m->data = o.p;
    m->len = total;
    m->compression = gz ? MFILE_GZIP : MFILE_BZIP2;
    return LR_OK;
}

/* ---- SIGBUS on a mapping ---- */

/* Mappings a SIGBUS handler may meet: base, length and file name, in fixed slots so the
 * handler reads them without locks or allocation (a slot is published by setting its base
 * last and withdrawn by clearing it first). */
#define MFILE_GUARDS 8
#define MFILE_GUARD_NAME 256
static struct {
    void *volatile base;
    volatile size_t len;
    char name[MFILE_GUARD_NAME];
} guards[MFILE_GUARDS];

/* Threads opening inputs at once take slots one at a time; the handler takes no lock. */
static pthread_mutex_t guards_lock = PTHREAD_MUTEX_INITIALIZER;

static void guard_add(void *base, size_t len, const char *path)
{
    pthread_mutex_lock(&guards_lock);
    for (int i = 0; i < MFILE_GUARDS; i++)
        if (!guards[i].base) {
            snprintf(guards[i].name, sizeof guards[i].name, "%s", path);
            guards[i].len = len;
            __atomic_store_n(&guards[i].base, base, __ATOMIC_RELEASE);
            break;
        }
    pthread_mutex_unlock(&guards_lock);
}

static void guard_remove(void *base)
{
    pthread_mutex_lock(&guards_lock);
    for (int i = 0; i < MFILE_GUARDS; i++)
        if (guards[i].base == base)
            __atomic_store_n(&guards[i].base, NULL, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&guards_lock);
}

static void put_err(const char *s)
{
    ssize_t k = write(STDERR_FILENO, s, strlen(s));
    (void)k;
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    const char *a = si ? (const char *)si->si_addr : NULL;
    for (int i = 0; a && i < MFILE_GUARDS; i++) {
        const char *b = guards[i].base;
        if (b && a >= b && a < b + guards[i].len) {
            put_err("leakray: ");
            put_err(guards[i].name);
            put_err(": the file became shorter while being read (rewritten or cut by another "
                    "process); analyse a copy that nothing writes to\n");
            outfile_unlink_live(); /* as SIGTERM would: no output's temporary is left */
            _exit(4);              /* LR_ERR_IO's exit code */
        }
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void mfile_catch_sigbus(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

/* A pipe (standard input, a shell's <(...)) cannot be mapped, and dumps are read by mapping:
 * its bytes are copied into an unnamed temporary file in mfile_tmpdir(), bounded like
 * inflated bytes (limit: --max-inflate, else the folder's free space), and that file is read
 * as the plain file it now is. Returns its descriptor in *out. */
static lr_status spool(int in, const char *name, uint64_t limit, int *out, lr_error *err)
{
    outbuf o;
    memset(&o, 0, sizeof o);
    o.spool = 1;
    o.dir = mfile_tmpdir();
    if ((o.fd = mfile_open_unnamed(o.dir, "input")) < 0)
        return LR_FAIL(err, LR_ERR_IO, "%s: cannot create a temporary file in %s for the "
                       "input: %s (--tmpdir chooses another folder)", name, o.dir,
                       strerror(errno));
    sink_limit(&o, limit);
    /* opened with O_NONBLOCK (a FIFO without a writer must not block the open); the copy
     * waits for the writer like any reader of a pipe */
    int fl = fcntl(in, F_GETFL);
    if (fl >= 0 && (fl & O_NONBLOCK))
        (void)fcntl(in, F_SETFL, fl & ~O_NONBLOCK);
    lr_status st = out_init(&o, 0, name, err);
    while (st == LR_OK) {
        uint64_t room;
        if ((st = out_room(&o, &room, name, err)) != LR_OK)
            break;
        ssize_t k = read(in, o.p + o.fill, room);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            st = LR_FAIL(err, LR_ERR_IO, "%s: read error after %llu bytes: %s", name,
                         (unsigned long long)(o.flushed + o.fill), strerror(errno));
            break;
        }
        if (k == 0)
            break;
        o.fill += (uint64_t)k;
    }
    if (st == LR_OK)
        st = out_flush(&o, name, err);
    if (o.p)
        munmap(o.p, o.cap_alloc);
    if (st != LR_OK) {
        close(o.fd);
        return st;
    }
    *out = o.fd;
    return LR_OK;
}

lr_status mfile_spool(int in, const char *name, uint64_t max_inflate, int *out, lr_error *err)
{
    return spool(in, name, max_inflate, out, err);
}

#define MFILE_FIFO_WAIT_MS 30000 /* a named FIFO's writer comes within this, or never */

lr_status mfile_open(mfile *m, const char *path, uint64_t max_inflate, lr_error *err)
{
    return mfile_open_dump(m, path, max_inflate, NULL, err);
}

lr_status mfile_open_dump(mfile *m, const char *path, uint64_t max_inflate, mfile_head_fn head,
                          lr_error *err)
{
    memset(m, 0, sizeof *m);
    /* "-" is standard input: a file redirected there is mapped like any file, a pipe copied */
    int is_stdin = strcmp(path, "-") == 0;
    /* O_NONBLOCK: opening a FIFO with no writer would wait forever */
    int fd = is_stdin ? fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0)
                      : open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return LR_FAIL(err, LR_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return LR_FAIL(err, LR_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (S_ISFIFO(sb.st_mode) && !is_stdin) {
        /* a named FIFO opened before its writer (`leakray top p & ssh host cat x > p`) reads
         * as empty until one comes: wait for it a while, not for ever */
        struct pollfd pf = {fd, POLLIN, 0};
        int r;
        while ((r = poll(&pf, 1, MFILE_FIFO_WAIT_MS)) < 0 && errno == EINTR)
            ;
        if (r == 0) {
            close(fd);
            return LR_FAIL(err, LR_ERR_IO, "%s: no writer opened the FIFO in %d s", path,
                           MFILE_FIFO_WAIT_MS / 1000);
        }
    }
    if (S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode)) {
        int copy = -1;
        lr_status st = spool(fd, path, max_inflate, &copy, err);
        close(fd);
        if (st != LR_OK)
            return st;
        fd = copy;
        if (fstat(fd, &sb) != 0) {
            int e = errno;
            close(fd);
            return LR_FAIL(err, LR_ERR_IO, "%s: cannot stat its copy: %s", path, strerror(e));
        }
    }
    if (!S_ISREG(sb.st_mode)) {
        const char *kind = S_ISDIR(sb.st_mode) ? "a directory" : isatty(fd) ? "a terminal"
                                                                             : "a device";
        close(fd);
        return LR_FAIL(err, LR_ERR_IO, "%s: %s is not a regular file nor a pipe (%s)", path,
                       is_stdin ? "standard input" : "the input", kind);
    }
    m->file_len = (uint64_t)sb.st_size;
    if (m->file_len == 0) {
        close(fd);
        static const uint8_t empty[1];
        m->data = empty;
        return LR_OK;
    }
    void *p = mmap(NULL, m->file_len, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    if (p == MAP_FAILED)
        close(fd);
    else
        m->fd1 = fd + 1; /* kept: mfile_check_shrunk asks it for the file's size now */
    if (p == MAP_FAILED && e == ENOMEM)
        return LR_FAIL(err, LR_ERR_LIMIT, "%s: cannot map %llu bytes: %s (address-space limit, "
                       "see ulimit -v)", path, (unsigned long long)m->file_len, strerror(e));
    if (p == MAP_FAILED)
        return LR_FAIL(err, LR_ERR_IO, "%s: cannot map: %s", path, strerror(e));
    madvise(p, m->file_len, MADV_SEQUENTIAL);
    guard_add(p, m->file_len, path);
    m->map = p;
    m->map_len = m->file_len;
    m->data = p;
    m->len = m->file_len;
    lr_status st = maybe_inflate(m, p, m->file_len, max_inflate, 1, head, path, err);
    if (st != LR_OK) {
        st = mfile_check_shrunk(m, path, st, err);
        mfile_close(m);
        return st;
    }
    if (m->owned) {
        /* The compressed bytes are no longer needed once inflated. */
        guard_remove(m->map);
        munmap(m->map, m->map_len);
        m->map = NULL;
        m->map_len = 0;
    }
    return LR_OK;
}

lr_status mfile_from_memory(mfile *m, const uint8_t *data, uint64_t len, uint64_t max_inflate,
                            const char *name, lr_error *err)
{
    return mfile_from_memory_dump(m, data, len, max_inflate, NULL, name, err);
}

lr_status mfile_from_memory_dump(mfile *m, const uint8_t *data, uint64_t len,
                                 uint64_t max_inflate, mfile_head_fn head, const char *name,
                                 lr_error *err)
{
    memset(m, 0, sizeof *m);
    m->data = data;
    m->len = len;
    m->file_len = len;
    return maybe_inflate(m, data, len, max_inflate, 0, head, name ? name : "<memory>", err);
}

lr_status mfile_check_shrunk(const mfile *m, const char *name, lr_status st, lr_error *err)
{
    struct stat sb;
    if (st == LR_OK || st == LR_ERR_NOMEM || st == LR_ERR_LIMIT || !m || !m->fd1 ||
        fstat(m->fd1 - 1, &sb) != 0 || (uint64_t)sb.st_size >= m->file_len)
        return st;
    if (err)
        err->code = LR_OK; /* the reader's message is replaced, not kept as the first */
    char now[32], was[32];
    numfmt_group(now, (uint64_t)sb.st_size);
    numfmt_group(was, m->file_len);
    return LR_FAIL(err, LR_ERR_IO, "%s: the file became shorter while being read (%s of %s "
                   "bytes left: rewritten or cut by another process); analyse a copy that "
                   "nothing writes to", name, now, was);
}

void mfile_close(mfile *m)
{
    if (!m)
        return;
    if (m->fd1)
        close(m->fd1 - 1);
    if (m->owned)
        munmap(m->owned, m->owned_cap);
    if (m->map) {
        guard_remove(m->map);
        munmap(m->map, m->map_len);
    }
    memset(m, 0, sizeof *m);
}

void mfile_advise(const void *p, uint64_t n, int random)
{
    long page = sysconf(_SC_PAGESIZE);
    if (!p || !n || page <= 0)
        return;
    uintptr_t a = (uintptr_t)p & ~((uintptr_t)page - 1);
    uintptr_t b = (uintptr_t)p + n;
    (void)madvise((void *)a, b - a, random ? MADV_RANDOM : MADV_SEQUENTIAL);
}

const char *mfile_compression_name(unsigned c)
{
    switch (c) {
    case MFILE_PLAIN: return "plain";
    case MFILE_GZIP: return "gzip";
    case MFILE_BZIP2: return "bzip2";
    }
    return "unknown";
}
