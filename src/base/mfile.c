/* SPDX-License-Identifier: Apache-2.0 */
/* mfile.c: input files as one contiguous byte range (base layer), prefix mfile_. Plain files
 * are mapped read-only with MADV_SEQUENTIAL, so their pages count as file cache, not as our
 * memory. gzip (zlib, multi-member) and bzip2 (libbz2, multi-stream) are recognised by magic
 * and inflated into an anonymous mapping that grows geometrically with mremap and never past
 * the caller's cap: a compression bomb ends in LR_ERR_LIMIT after at most `cap` bytes. A
 * corrupt stream is LR_ERR_FORMAT and a stream cut short LR_ERR_TRUNCATED, both carrying the
 * offset in the compressed file where the decoder stopped. */
#define _GNU_SOURCE
#include "base/mfile.h"

#include <bzlib.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* Inflated output buffer: an anonymous mapping grown by doubling, capped at `cap`. */
typedef struct outbuf {
    uint8_t *p;
    uint64_t len;
    uint64_t cap_alloc; /* bytes currently mapped */
    uint64_t limit;     /* the caller's max_inflate */
    int by_default;     /* limit is default_cap(): the memory available */
} outbuf;

static int is_gzip(const uint8_t *p, uint64_t n) { return n >= 2 && p[0] == 0x1f && p[1] == 0x8b; }

static int is_bzip2(const uint8_t *p, uint64_t n)
{
    return n >= 4 && p[0] == 'B' && p[1] == 'Z' && p[2] == 'h' && p[3] >= '1' && p[3] <= '9';
}

static lr_status out_grow(outbuf *o, const char *name, lr_error *err)
{
    if (o->cap_alloc >= o->limit && o->by_default)
        return LR_FAIL(err, LR_ERR_LIMIT, "%s: inflated size exceeds the memory available "
                       "(%llu bytes; --max-inflate sets another cap)", name,
                       (unsigned long long)o->limit);
    if (o->cap_alloc >= o->limit)
        return LR_FAIL(err, LR_ERR_LIMIT, "%s: inflated size exceeds --max-inflate %llu", name,
                       (unsigned long long)o->limit);
    uint64_t want = o->cap_alloc * 2;
    if (want > o->limit)
        want = o->limit;
    void *q = mremap(o->p, o->cap_alloc, want, MREMAP_MAYMOVE);
    if (q == MAP_FAILED)
        return LR_FAIL(err, LR_ERR_LIMIT, "%s: cannot grow inflate buffer to %llu bytes: %s",
                       name, (unsigned long long)want, strerror(errno));
    o->p = q;
    o->cap_alloc = want;
    return LR_OK;
}

static lr_status out_init(outbuf *o, uint64_t in_len, uint64_t limit, const char *name,
                          lr_error *err)
{
    /* Dumps compress 3-10x; start near the likely size to avoid most remaps. */
    uint64_t first = in_len * 4;
    if (first < (1u << 20))
        first = 1u << 20;
    if (first > limit)
        first = limit;
    if (first == 0)
        first = 1;
    o->p = mmap(NULL, first, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (o->p == MAP_FAILED) {
        o->p = NULL;
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: cannot map %llu bytes for inflating", name,
                       (unsigned long long)first);
    }
    o->len = 0;
    o->cap_alloc = first;
    o->limit = limit;
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
    for (;;) {
        if (z.avail_in == 0 && pos < n) {
            uint64_t take = n - pos < CHUNK_IN ? n - pos : CHUNK_IN;
            z.next_in = (Bytef *)(uintptr_t)(in + pos);
            z.avail_in = (uInt)take;
            pos += take;
        }
        if (o->len == o->cap_alloc && (st = out_grow(o, name, err)) != LR_OK)
            break;
        uint64_t room = o->cap_alloc - o->len;
        z.next_out = o->p + o->len;
        z.avail_out = (uInt)(room < CHUNK_IN ? room : CHUNK_IN);
        uInt before = z.avail_out;
        int r = inflate(&z, Z_NO_FLUSH);
        o->len += before - z.avail_out;
        uint64_t at = pos - z.avail_in;
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
                                "(%llu bytes inflated so far)", (unsigned long long)o->len);
            break;
        }
        if (r == Z_BUF_ERROR && z.avail_in == 0 && pos >= n) {
            st = LR_TRUNC(err, name, at, "gzip stream ends early (%llu bytes inflated)",
                          (unsigned long long)o->len);
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
    for (;;) {
        if (b.avail_in == 0 && pos < n) {
            uint64_t take = n - pos < CHUNK_IN ? n - pos : CHUNK_IN;
            b.next_in = (char *)(uintptr_t)(in + pos);
            b.avail_in = (unsigned)take;
            pos += take;
        }
        if (o->len == o->cap_alloc && (st = out_grow(o, name, err)) != LR_OK)
            break;
        uint64_t room = o->cap_alloc - o->len;
        b.next_out = (char *)(o->p + o->len);
        b.avail_out = (unsigned)(room < CHUNK_IN ? room : CHUNK_IN);
        unsigned before = b.avail_out;
        unsigned in_before = b.avail_in;
        int r = BZ2_bzDecompress(&b);
        o->len += before - b.avail_out;
        uint64_t at = pos - b.avail_in;
        if (r == BZ_STREAM_END) {
            if (at < n && is_bzip2(in + at, n - at)) {
                BZ2_bzDecompressEnd(&b);
                memset(&b, 0, sizeof b);
                if (BZ2_bzDecompressInit(&b, 0, 0) != BZ_OK) {
                    return LR_FAIL(err, LR_ERR_NOMEM, "%s: bzip2 init failed", name);
                }
                pos = at;
                continue;
            }
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
                          (unsigned long long)o->len);
            break;
        }
    }
    BZ2_bzDecompressEnd(&b);
    return st;
}

/* The default cap on inflated bytes: what memory can hold now, so a bomb stops with
 * LR_ERR_LIMIT instead of meeting the OOM killer. Inflated bytes live in anonymous memory, so
 * the bound is MemAvailable + SwapFree (/proc/meminfo), and half of an address-space limit
 * (ulimit -v) when one is set: the graph still has to fit beside the bytes. Never more than
 * LR_DEFAULT_MAX_INFLATE; that alone when neither is known. */
static uint64_t default_cap(void)
{
    uint64_t cap = LR_DEFAULT_MAX_INFLATE, avail = 0;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[128];
        unsigned long long kb;
        int seen = 0;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1 ||
                sscanf(line, "SwapFree: %llu kB", &kb) == 1) {
                avail += (uint64_t)kb << 10;
                seen++;
            }
        }
        fclose(f);
        if (seen && avail < cap)
            cap = avail;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 2 < cap)
        cap = rl.rlim_cur / 2;
    return cap < (1u << 20) ? (1u << 20) : cap;
}

/* Inflates in[0..n) into m if compressed; otherwise leaves m untouched and returns LR_OK. */
static lr_status maybe_inflate(mfile *m, const uint8_t *in, uint64_t n, uint64_t limit,
                               const char *name, lr_error *err)
{
    int gz = is_gzip(in, n), bz = !gz && is_bzip2(in, n);
    if (!gz && !bz)
        return LR_OK;
    int by_default = limit == 0;
    if (by_default)
        limit = default_cap();
    outbuf o;
    LR_TRY(out_init(&o, n, limit, name, err));
    o.by_default = by_default;
    lr_status st = gz ? inflate_gzip(&o, in, n, name, err) : inflate_bzip2(&o, in, n, name, err);
    if (st != LR_OK) {
        munmap(o.p, o.cap_alloc);
        return st;
    }
    /* Give back the unused tail; keep at least one page so munmap has something to unmap. */
    uint64_t keep = o.len ? o.len : 1;
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
    m->len = o.len;
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

static void guard_add(void *base, size_t len, const char *path)
{
    for (int i = 0; i < MFILE_GUARDS; i++)
        if (!guards[i].base) {
            snprintf(guards[i].name, sizeof guards[i].name, "%s", path);
            guards[i].len = len;
            __atomic_store_n(&guards[i].base, base, __ATOMIC_RELEASE);
            return;
        }
}

static void guard_remove(void *base)
{
    for (int i = 0; i < MFILE_GUARDS; i++)
        if (guards[i].base == base)
            __atomic_store_n(&guards[i].base, NULL, __ATOMIC_RELEASE);
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
            _exit(4); /* LR_ERR_IO's exit code */
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

lr_status mfile_open(mfile *m, const char *path, uint64_t max_inflate, lr_error *err)
{
    memset(m, 0, sizeof *m);
    /* O_NONBLOCK: opening a FIFO with no writer would wait forever; it is refused below */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return LR_FAIL(err, LR_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return LR_FAIL(err, LR_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return LR_FAIL(err, LR_ERR_IO, "%s: not a regular file (dumps are mapped, not streamed: "
                                       "save a pipe's output to a file first)", path);
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
    close(fd);
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
    lr_status st = maybe_inflate(m, p, m->file_len, max_inflate, path, err);
    if (st != LR_OK) {
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
    memset(m, 0, sizeof *m);
    m->data = data;
    m->len = len;
    m->file_len = len;
    return maybe_inflate(m, data, len, max_inflate, name ? name : "<memory>", err);
}

void mfile_close(mfile *m)
{
    if (!m)
        return;
    if (m->owned)
        munmap(m->owned, m->owned_cap);
    if (m->map) {
        guard_remove(m->map);
        munmap(m->map, m->map_len);
    }
    memset(m, 0, sizeof *m);
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
