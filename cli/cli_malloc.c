/* SPDX-License-Identifier: Apache-2.0 */
/* cli_malloc.c: the program's allocator wrappers, which count every allocated byte for
 * --max-memory (base/mem). They replace malloc, calloc, realloc, free and the aligned
 * allocators by symbol interposition, for this executable only (the library and the JVM
 * agent never wrap their host's allocator), and forward to glibc's own entry points
 * (__libc_malloc, ...), so the heap itself is glibc's. Bytes are counted as
 * malloc_usable_size reports them, at allocation and at free alike, so the count returns to
 * where it was. Under AddressSanitizer or ThreadSanitizer the sanitizer owns these symbols
 * (TSan tracks frees and reuse through its own allocator): nothing is wrapped and
 * --max-memory is not enforced (mem_active() stays 0). */
#include "base/mem.h"

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && defined(__GLIBC__)

#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t sz);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t n);

static __attribute__((constructor)) void cli_malloc_init(void) { mem_set_active(); }

static void *counted(void *p)
{
    if (p)
        mem_account((int64_t)malloc_usable_size(p));
    return p;
}

void *malloc(size_t n)
{
    if (!mem_charge(n, 0)) {
        errno = ENOMEM;
        return NULL;
    }
    return counted(__libc_malloc(n));
}

void *calloc(size_t n, size_t sz)
{
    size_t t;
    if (!__builtin_mul_overflow(n, sz, &t) && !mem_charge(t, 0)) {
        errno = ENOMEM;
        return NULL;
    }
    return counted(__libc_calloc(n, sz));
}

void *realloc(void *p, size_t n)
{
    if (!p)
        return malloc(n);
    size_t old = malloc_usable_size(p);
    if (n == 0) {
        mem_account(-(int64_t)old);
        __libc_free(p);
        return NULL;
    }
    if (!mem_charge(n, old)) {
        errno = ENOMEM;
        return NULL;
    }
    void *q = __libc_realloc(p, n);
    if (q)
        mem_account((int64_t)malloc_usable_size(q) - (int64_t)old);
    return q;
}

void free(void *p)
{
    if (!p)
        return;
    mem_account(-(int64_t)malloc_usable_size(p));
    __libc_free(p);
}

static void *aligned(size_t align, size_t n)
{
    if (!mem_charge(n, 0)) {
        errno = ENOMEM;
        return NULL;
    }
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
