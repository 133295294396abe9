/* SPDX-License-Identifier: Apache-2.0 */
/* cli_malloc.c: the program's allocator wrappers, which count every allocated byte for
 * --max-memory (base/mem). They replace malloc, calloc, realloc, free and the aligned
 * allocators by symbol interposition, for this executable only (the library and the JVM
 * agent never wrap their host's allocator), and forward to glibc's own entry points
 * (__libc_malloc, ...), so the heap itself is glibc's. Bytes are counted as
 * malloc_usable_size reports them, at allocation and at free alike, so the count returns to
 * where it was. A large block that would take the process past the limit (less an eighth kept
 * for the small allocations that follow) is a spilled block instead (base/spill: a shared
 * mapping of an unnamed file in --tmpdir, kept when freed for the next spill), not counted:
 * free and realloc recognise it by its address. Before a new block spills, blocks marked
 * cold (read only from now on: the loaded graph's arrays) may move to files in place to make
 * its room instead (base/spill: spill_cool). A large block glibc mapped on its own is,
 * when freed, kept (base/reuse) for the next large malloc, which gets its pages back instead
 * of faulting fresh zeroed ones in; kept bytes are not counted, and leave before any
 * allocation that takes fresh memory or that would come near the limit. Under
 * AddressSanitizer or ThreadSanitizer the sanitizer owns these symbols (TSan tracks frees and
 * reuse through its own allocator): nothing is wrapped, nothing is kept and --max-memory is
 * not enforced (mem_active() stays 0). */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "base/mem.h"
#include "base/reuse.h"
#include "base/spill.h"

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && defined(__GLIBC__)

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* The build hides symbols by default; these must reach the dynamic symbol table, or the
 * shared libraries (SQLite, zlib, libpng, libdw) would call glibc's malloc around them, their
 * bytes uncounted and a block one side allocates freed by the other's count. */
#pragma GCC visibility push(default)

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t sz);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t n);

static size_t span(void *u, void **base, size_t *len);

static __attribute__((constructor)) void cli_malloc_init(void)
{
    mem_set_active();
    spill_set_span(span);
}

/* glibc's malloc_usable_size: ours (below) answers for spilled blocks too, because libraries
 * ask it about blocks they got from malloc (SQLite sizes its allocations that way). Looked up
 * at the first allocation; what dlsym itself might allocate meanwhile goes uncounted. With
 * another allocator preloaded (LD_PRELOAD=libjemalloc.so.2 leakray native run ...), the next
 * malloc_usable_size is that allocator's, which must not be asked about glibc's blocks; and
 * tcmalloc and mimalloc define __libc_malloc themselves, so the blocks are theirs, with no
 * glibc chunk header to tell a block glibc mapped alone (then nothing is kept for reuse). */
static size_t (*libc_usable)(void *);
static int heap_is_glibc;

static size_t usable(void *p)
{
    size_t (*f)(void *) = __atomic_load_n(&libc_usable, __ATOMIC_ACQUIRE);
    if (!f) {
        static _Thread_local int looking;
        if (looking)
            return 0;
        looking = 1;
        void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
        int glibc = h && dlsym(h, "__libc_malloc") == (void *)__libc_malloc;
        f = (size_t (*)(void *))(glibc ? dlsym(h, "malloc_usable_size")
                                       : dlsym(RTLD_NEXT, "malloc_usable_size"));
        if (h)
            dlclose(h);
        looking = 0;
        if (!f)
            return 0;
        heap_is_glibc = glibc;
        __atomic_store_n(&libc_usable, f, __ATOMIC_RELEASE);
    }
    return f(p);
}

size_t malloc_usable_size(void *p)
{
    size_t len;
    if (p && spill_owns(p, &len))
        return len;
    return p ? usable(p) : 0;
}

/* ---- Reuse of large freed blocks (base/reuse) ---- */

/* Did glibc map this block on its own (IS_MMAPPED, bit 1 of the size word before the
 * block)? Only such blocks are kept: a heap block goes back to glibc's heap for the next
 * allocation anyway, and keeping it would stop the heap's top from being trimmed. */
static int mapped_alone(void *p) { return (((const size_t *)p)[-1] & 2) != 0; }

/* Gives every kept block back to glibc. */
static void drain(void)
{
    void *out[REUSE_SLOTS];
    size_t n = reuse_drain(out);
    for (size_t i = 0; i < n; i++)
        __libc_free(out[i]);
}

/* Gives every kept block back to glibc when an allocation of add bytes (drop freed) would
 * come near the limit with the kept bytes counted: kept blocks are not counted as allocated,
 * so --max-memory and the choice to spill see the same bytes as before, and the kept ones
 * leave before either refuses or spills. */
static void room(uint64_t add, uint64_t drop)
{
    size_t kept = reuse_bytes();
    if (kept && !mem_fits(add + kept, drop, mem_limit() / 8))
        drain();
}

/* An allocation is about to take n fresh bytes from the system (grow: by growing a block):
 * the kept blocks, none of which served it, go first, so that the process never holds them
 * and new pages at once; blocks are kept only from one free to the next allocation. */
static void fresh(size_t n)
{
    if (n >= REUSE_MIN_BYTES && reuse_bytes())
        drain();
}

/* Keeps a block being freed (len: its usable size, already uncounted) for reuse: 1 when
 * kept. The blocks that leave to make room go back to glibc. */
static int keep(void *p, size_t len)
{
    if (len < REUSE_MIN_BYTES || !heap_is_glibc || !mapped_alone(p))
        return 0;
    void *gone[REUSE_SLOTS];
    size_t n_gone;
    int kept = reuse_put(p, len, gone, &n_gone);
    for (size_t i = 0; i < n_gone; i++)
        __libc_free(gone[i]);
    return kept;
}

/* The kept block resized to n bytes and counted, for a malloc, or NULL (none, no room under
 * the limit: the caller goes the ordinary way). Resizing a block glibc mapped alone is an
 * mremap: its pages move with it, none is copied, and only growth faults new ones in. A
 * calloc never takes one: its block may stay sparse (pages never written are never
 * allocated), where a kept block is resident end to end and would have to be zeroed
 * whole (measured: V8 histo --retained's own memory 191.6 -> 208.8 MB with it). */
static void *reused(size_t n)
{
    if (n < REUSE_MIN_BYTES || !reuse_bytes())
        return NULL;
    size_t len;
    void *p = reuse_take(n, 1, &len);
    if (!p)
        return NULL;
    if (!mem_fits(n, 0, mem_limit() / 8) || !mem_charge(n, 0)) {
        __libc_free(p);
        return NULL;
    }
    void *q = len == n ? p : __libc_realloc(p, n);
    if (!q) {
        __libc_free(p);
        return NULL;
    }
    mem_account((int64_t)usable(q));
    return q;
}

static void *counted(void *p)
{
    if (p)
        mem_account((int64_t)usable(p));
    return p;
}

/* base/spill's view of a block: one glibc mapped alone (a plain malloc's, its chunk
 * starting the mapping at the page before the pointer) can move; its usable bytes. */
static size_t span(void *u, void **base, size_t *len)
{
    const size_t *h = u;
    /* the offset first: a spilled block's page-aligned pointer has no header before it */
    if (((uintptr_t)u & 4095) != 2 * sizeof(size_t) || !heap_is_glibc || !mapped_alone(u) ||
        h[-2] != 0)
        return 0;
    *base = (char *)u - 2 * sizeof(size_t);
    *len = h[-1] & ~(size_t)7;
    return usable(u);
}

/* A spilled block of n bytes (zeroed: calloc) when n is large and would take the process
 * past the limit (drop: bytes freed at once, realloc), else NULL with *room_err telling
 * whether the folder was full (recorded only if the ordinary allocation is refused too).
 * For a new block (not a realloc), blocks marked cold go to files first when that makes
 * room: then NULL, and the block is ordinary memory. */
static void *spilled(size_t n, uint64_t drop, int zero, int *room_err)
{
    *room_err = 0;
    if (n < SPILL_MIN_BYTES || !spill_dir() || mem_fits(n, drop, mem_limit() / 8))
        return NULL;
    /* a block grown by realloc is most often a buffer appended to, written in order: it
     * spills itself rather than moving blocks out for its room */
    if (!drop && spill_cool(n, 0, mem_limit() / 8))
        return NULL;
    return spill_alloc(n, zero, room_err);
}

/* mem_charge, recording a spill that found no room when the charge is refused too. */
static int charge(size_t n, uint64_t drop, int room_err)
{
    if (mem_charge(n, drop))
        return 1;
    if (room_err)
        spill_note_failure(n, room_err);
    errno = ENOMEM;
    return 0;
}

void *malloc(size_t n)
{
    int re;
    room(n, 0);
    void *q = reused(n);
    if (q)
        return q;
    q = spilled(n, 0, 0, &re);
    if (q)
        return q;
    if (!charge(n, 0, re))
        return NULL;
    fresh(n);
    return counted(__libc_malloc(n));
}

void *calloc(size_t n, size_t sz)
{
    size_t t;
    if (!__builtin_mul_overflow(n, sz, &t)) {
        int re;
        room(t, 0);
        void *q = spilled(t, 0, 1, &re);
        if (q)
            return q;
        if (!charge(t, 0, re))
            return NULL;
        fresh(t);
    }
    return counted(__libc_calloc(n, sz));
}

void free(void *p)
{
    if (!p)
        return;
    if (spill_owns(p, NULL)) {
        spill_free(p);
        return;
    }
    if (heap_is_glibc && mapped_alone(p)) {
        spill_uncold(p); /* waits for a move of p under way, which lists it as spilled */
        if (spill_owns(p, NULL)) {
            spill_free(p);
            return;
        }
    }
    size_t len = usable(p);
    mem_account(-(int64_t)len);
    if (!keep(p, len))
        __libc_free(p);
}

void *realloc(void *p, size_t n)
{
    if (!p)
        return malloc(n);
    size_t len;
    if (spill_owns(p, &len)) {
        if (n == 0) {
            spill_free(p);
            return NULL;
        }
        if (n <= len) {
            spill_shrink(p, n);
            return p;
        }
        void *q = spill_grow(p, n);
        if (q)
            return q;
        q = malloc(n);
        if (q) {
            memcpy(q, p, len);
            spill_free(p);
        }
        return q;
    }
    if (heap_is_glibc && mapped_alone(p)) {
        spill_uncold(p); /* it may move now; a move under way ends first */
        if (spill_owns(p, NULL))
            return realloc(p, n);
    }
    size_t old = usable(p);
    room(n, old);
    if (n == 0) {
        mem_account(-(int64_t)old);
        __libc_free(p);
        return NULL;
    }
    int re;
    void *s = spilled(n, old, 0, &re);
    if (s) {
        memcpy(s, p, old < n ? old : n);
        free(p);
        return s;
    }
    if (!charge(n, old, re))
        return NULL;
    if (n > old)
        fresh(n - old);
    void *q = __libc_realloc(p, n);
    if (q)
        mem_account((int64_t)usable(q) - (int64_t)old);
    return q;
}

static void *aligned(size_t align, size_t n)
{
    int re = 0;
    room(n, 0);
    void *q = align <= 4096 ? spilled(n, 0, 0, &re) : NULL; /* spilled blocks are page-aligned */
    if (q)
        return q;
    if (!charge(n, 0, re))
        return NULL;
    fresh(n);
    return counted(__libc_memalign(align, n));
}

int posix_memalign(void **out, size_t align, size_t n)
{
    if (align < sizeof(void *) || (align & (align - 1)))
        return EINVAL;
    void *p = aligned(align, n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

void *aligned_alloc(size_t align, size_t n) { return aligned(align, n); }
void *memalign(size_t align, size_t n) { return aligned(align, n); }
void *valloc(size_t n) { return aligned((size_t)sysconf(_SC_PAGESIZE), n); }

void *pvalloc(size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return aligned(pg, (n + pg - 1) & ~(pg - 1));
}

#pragma GCC visibility pop

#endif
