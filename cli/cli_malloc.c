/* SPDX-License-Identifier: Apache-2.0 */
/* cli_malloc.c: the program's allocator wrappers, which count every allocated byte for
 * --max-memory (base/mem). They replace malloc, calloc, realloc, free and the aligned
 * allocators by symbol interposition, for this executable only (the library and the JVM
 * agent never wrap their host's allocator), and forward to glibc's own entry points
 * (__libc_malloc, ...), so the heap itself is glibc's. Bytes are counted as
 * malloc_usable_size reports them, at allocation and at free alike, so the count returns to
 * where it was. A large block that would take the process past the limit (less an eighth kept
 * for the small allocations that follow) is a spilled block instead (base/spill: a shared
 * mapping of an unnamed file in --tmpdir), not counted: free and realloc recognise it by its
 * address. Under AddressSanitizer or ThreadSanitizer the sanitizer owns these symbols
 * (TSan tracks frees and reuse through its own allocator): nothing is wrapped and
 * --max-memory is not enforced (mem_active() stays 0). */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "base/mem.h"
#include "base/spill.h"

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && defined(__GLIBC__)

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t sz);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t n);

static __attribute__((constructor)) void cli_malloc_init(void) { mem_set_active(); }

/* glibc's malloc_usable_size: ours (below) answers for spilled blocks too, because libraries
 * ask it about blocks they got from malloc (SQLite sizes its allocations that way). Looked up
 * at the first allocation; what dlsym itself might allocate meanwhile goes uncounted. */
static size_t (*libc_usable)(void *);

static size_t usable(void *p)
{
    size_t (*f)(void *) = __atomic_load_n(&libc_usable, __ATOMIC_ACQUIRE);
    if (!f) {
        static _Thread_local int looking;
        if (looking)
            return 0;
        looking = 1;
        f = (size_t (*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
        looking = 0;
        if (!f)
            return 0;
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

static void *counted(void *p)
{
    if (p)
        mem_account((int64_t)usable(p));
    return p;
}

/* A spilled block of n bytes when n is large and would take the process past the limit
 * (drop: bytes freed at once, realloc), else NULL with *room_err telling whether the folder
 * was full (recorded only if the ordinary allocation is refused too). */
static void *spilled(size_t n, uint64_t drop, int *room_err)
{
    *room_err = 0;
    if (n < SPILL_MIN_BYTES || !spill_dir() || mem_fits(n, drop, mem_limit() / 8))
        return NULL;
    return spill_alloc(n, room_err);
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
    void *q = spilled(n, 0, &re);
    if (q)
        return q;
    if (!charge(n, 0, re))
        return NULL;
    return counted(__libc_malloc(n));
}

void *calloc(size_t n, size_t sz)
{
    size_t t;
    if (!__builtin_mul_overflow(n, sz, &t)) {
        int re;
        void *q = spilled(t, 0, &re); /* a new file reads as zeros */
        if (q)
            return q;
        if (!charge(t, 0, re))
            return NULL;
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
    mem_account(-(int64_t)usable(p));
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
        void *q = malloc(n);
        if (q) {
            memcpy(q, p, len);
            spill_free(p);
        }
        return q;
    }
    size_t old = usable(p);
    if (n == 0) {
        mem_account(-(int64_t)old);
        __libc_free(p);
        return NULL;
    }
    int re;
    void *s = spilled(n, old, &re);
    if (s) {
        memcpy(s, p, old < n ? old : n);
        free(p);
        return s;
    }
    if (!charge(n, old, re))
        return NULL;
    void *q = __libc_realloc(p, n);
    if (q)
        mem_account((int64_t)usable(q) - (int64_t)old);
    return q;
}

static void *aligned(size_t align, size_t n)
{
    int re = 0;
    void *q = align <= 4096 ? spilled(n, 0, &re) : NULL; /* spilled blocks are page-aligned */
    if (q)
        return q;
    if (!charge(n, 0, re))
        return NULL;
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

#endif
