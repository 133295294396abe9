/* SPDX-License-Identifier: Apache-2.0 */
/* nm_alloc.c: the malloc-family hooks and the live-block tables (agents layer), prefix nm_.
 * Every hook calls glibc's __libc_* entry points directly, so no dlsym runs on the allocation
 * path and nothing recurses through a bootstrap allocator. Each live block is one 24-byte
 * record in one of NM_N_STRIPES open-addressing tables (linear probing, backward-shift
 * delete), keyed by the bit-inverted address so that no word of the monitor's memory equals
 * a heap address; all tables and the stack depot live in mmap'd memory registered with
 * nm_map so the scan skips it. A stripe is guarded by a spinlock held only for one probe
 * sequence (no allocation inside). Backtraces: frame-pointer walk bounded by the thread's
 * stack (one frame when the bounds are unknown), or libunwind's unw_backtrace when asked,
 * interned in a lock-free-read depot (id = word offset in its pool). Costs: O(1) per call,
 * a depot lookup per traced block. glibc's rules for replacing malloc: see docs/native.md. */
#define _GNU_SOURCE
#include "nm.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);
extern void *__libc_stack_end;

nm_config nm_cfg = {
    .bt_mode = NM_BT_FP, .depth = 16, .at_exit = 1, .signo = 0, .out = "",
};

/* ---- Per-thread state (initial-exec TLS: no allocation on first touch) ---- */

static __thread int t_guard NM_TLS;         /* inside the monitor: record nothing */
static __thread int t_holding NM_TLS;       /* this thread holds every table lock */
static __thread uintptr_t t_stack_hi NM_TLS; /* stack top for FP walks; 1 = unknown */
static __thread uint64_t t_sampled NM_TLS;  /* bytes since the last traced block */

int nm_guard_set(int on)
{
    int old = t_guard;
    t_guard = on;
    return old;
}

void nm_thread_stack_set(uintptr_t hi)
{
    t_stack_hi = hi;
}

/* ---- Spinlocks: held for a probe sequence only, so spinning is brief ---- */

typedef struct { int v; } spin;

static void spin_lock(spin *s)
{
    while (__atomic_exchange_n(&s->v, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&s->v, __ATOMIC_RELAXED))
            sched_yield();
}

static void spin_unlock(spin *s)
{
    __atomic_store_n(&s->v, 0, __ATOMIC_RELEASE);
}

/* ---- The monitor's own mappings ---- */

static spin own_lock;
static uintptr_t own[NM_MAX_OWN_MAPS][2];
static int n_own;

void *nm_map(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    spin_lock(&own_lock);
    if (n_own < NM_MAX_OWN_MAPS) {
        own[n_own][0] = (uintptr_t)p;
        own[n_own][1] = (uintptr_t)p + size;
        n_own++;
    }
    spin_unlock(&own_lock);
    return p;
}

void nm_unmap(void *p, size_t size)
{
    spin_lock(&own_lock);
    for (int i = 0; i < n_own; i++)
        if (own[i][0] == (uintptr_t)p) {
            own[i][0] = own[n_own - 1][0];
            own[i][1] = own[n_own - 1][1];
            n_own--;
            break;
        }
    spin_unlock(&own_lock);
    munmap(p, size);
}

int nm_own_maps(uintptr_t (*ranges)[2], int max)
{
    int n = n_own < max ? n_own : max;
    for (int i = 0; i < n; i++) {
        ranges[i][0] = own[i][0];
        ranges[i][1] = own[i][1];
    }
    return n;
}

/* ---- Stack depot: frames interned once, read without a lock ---- */

#define DEPOT_BITS 16
#define DEPOT_RESERVE ((size_t)1 << 30) /* virtual bytes; pages are touched as used */

static uint32_t *depot_heads;  /* bucket -> first entry id (word index), 0 = none */
static uint64_t *depot_pool;   /* entries: hash, next | depth << 32, frames... */
static uint32_t depot_used = 1; /* words used; id 0 means "no trace" */
static uint32_t depot_n;       /* entries */
static spin depot_lock;

static uint64_t hash_frames(const uintptr_t *f, int n)
{
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)n;
    for (int i = 0; i < n; i++) {
        h ^= f[i];
        h *= 0x100000001b3ull;
        h ^= h >> 29;
    }
    return h;
}

static uint32_t depot_put(const uintptr_t *f, int n)
{
    if (n <= 0)
        return 0;
    if (!depot_heads) {
        spin_lock(&depot_lock);
        if (!depot_pool)
            depot_pool = nm_map(DEPOT_RESERVE);
        if (!depot_heads && depot_pool)
            __atomic_store_n(&depot_heads, nm_map(sizeof(uint32_t) << DEPOT_BITS),
                             __ATOMIC_RELEASE);
        spin_unlock(&depot_lock);
        if (!depot_heads)
            return 0;
    }
    uint64_t h = hash_frames(f, n);
    uint32_t b = (uint32_t)(h >> (64 - DEPOT_BITS));
    for (int pass = 0; pass < 2; pass++) {
        uint32_t id = __atomic_load_n(&depot_heads[b], __ATOMIC_ACQUIRE);
        while (id) {
            const uint64_t *e = depot_pool + id;
            if (e[0] == h && (int)(e[1] >> 32) == n && memcmp(e + 2, f, n * sizeof *f) == 0)
                return id;
            id = (uint32_t)e[1];
        }
        if (pass == 1)
            break;
        spin_lock(&depot_lock);
        /* Another thread may have added it between the lock-free walk and the lock. */
        id = depot_heads[b];
        int found = 0;
        while (id) {
            const uint64_t *e = depot_pool + id;
            if (e[0] == h && (int)(e[1] >> 32) == n && memcmp(e + 2, f, n * sizeof *f) == 0) {
                found = 1;
                break;
            }
            id = (uint32_t)e[1];
        }
        if (!found) {
            if (((size_t)depot_used + 2 + n) * 8 > DEPOT_RESERVE) {
                spin_unlock(&depot_lock);
                return 0;
            }
            id = depot_used;
            uint64_t *e = depot_pool + id;
            e[0] = h;
            e[1] = depot_heads[b] | ((uint64_t)n << 32);
            memcpy(e + 2, f, n * sizeof *f);
            depot_used += 2 + n;
            depot_n++;
            __atomic_store_n(&depot_heads[b], id, __ATOMIC_RELEASE);
        }
        spin_unlock(&depot_lock);
        return id;
    }
    return 0;
}

int nm_trace_get(uint32_t id, const uintptr_t **frames)
{
    if (!id || id >= depot_used)
        return 0;
    *frames = (const uintptr_t *)(depot_pool + id + 2);
    return (int)(depot_pool[id + 1] >> 32);
}

uint32_t nm_trace_count(void)
{
    return depot_n;
}

/* Next depot id after id (ids are word offsets in one pool), 0 at the end. */
uint32_t nm_trace_next(uint32_t id)
{
    id = id ? id + 2 + (uint32_t)(depot_pool[id + 1] >> 32) : 1;
    return id < depot_used ? id : 0;
}

/* ---- Backtraces ---- */

typedef int (*unw_bt_fn)(void **, int);
static unw_bt_fn unw_bt;

static void libunwind_load(void)
{
    void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    /* Per-thread caches keep unw_backtrace lock-free after the first trace of a thread. */
    void **as = dlsym(h, "_ULx86_64_local_addr_space");
    int (*policy)(void *, int) = (int (*)(void *, int))dlsym(h, "_ULx86_64_set_caching_policy");
    if (as && policy)
        policy(*as, 2 /* UNW_CACHE_PER_THREAD */);
    unw_bt = (unw_bt_fn)dlsym(h, "unw_backtrace");
}

static uintptr_t stack_hi(void)
{
    if (!t_stack_hi) {
        /* Only the main thread's top is known without asking libc (which may allocate);
         * other threads set theirs in the pthread_create wrapper. */
        if (syscall(SYS_gettid) == getpid())
            t_stack_hi = (uintptr_t)__libc_stack_end;
        else
            t_stack_hi = 1;
    }
    return t_stack_hi;
}

/* skip: frames of the monitor between the caller's call site and here. */
__attribute__((noinline)) uint32_t nm_trace_here(int skip)
{
    uintptr_t f[NM_MAX_DEPTH + 4];
    int depth = nm_cfg.depth, n = 0;
    if (nm_cfg.bt_mode == NM_BT_LIBUNWIND && unw_bt) {
        void *buf[NM_MAX_DEPTH + 4];
        int got = unw_bt(buf, depth + skip + 1);
        for (int i = skip + 1; i < got && n < depth; i++)
            f[n++] = (uintptr_t)buf[i];
        return depot_put(f, n);
    }
    uintptr_t hi = stack_hi();
    uintptr_t *fp = __builtin_frame_address(0);
    if (hi <= 1) {
        /* Unknown stack bounds: only the immediate frames, whose links are ours. */
        for (int i = 0; i <= skip && fp; i++) {
            if (i == skip)
                f[n++] = fp[1];
            fp = (uintptr_t *)fp[0];
        }
        return depot_put(f, n);
    }
    for (int i = 0; n < depth; i++) {
        if ((uintptr_t)fp & 7 || (uintptr_t)fp + 16 > hi)
            break;
        uintptr_t ret = fp[1];
        if (ret < 4096)
            break;
        if (i >= skip)
            f[n++] = ret;
        uintptr_t *next = (uintptr_t *)fp[0];
        if (next <= fp)
            break;
        fp = next;
    }
    return depot_put(f, n);
}

/* ---- Block tables ---- */

typedef struct entry {
    uint64_t key;   /* ~address; 0 = empty slot */
    uint64_t size;  /* bytes requested */
    uint32_t trace; /* depot id, 0 = not traced */
    uint32_t flags; /* NM_E_* */
} entry;

typedef struct stripe {
    spin lock;       /* guards everything below */
    uint32_t n;      /* used slots */
    uint32_t mask;   /* capacity - 1 (power of two), 0 before the first insert */
    entry *slots;    /* nm_map'd; never the application's heap */
    char pad[64 - sizeof(spin) - 8 - sizeof(entry *)]; /* one cache line per stripe */
} stripe;

#define STRIPE_INIT_CAP 1024u

static stripe stripes[NM_N_STRIPES];

/* Home slot of address a: Fibonacci hashing, taking the well-mixed middle bits of the
 * product (the low bits of a multiple depend only on the low bits of the address). */
static inline uint32_t home_of(uintptr_t a, uint32_t mask)
{
    return (uint32_t)(((uint64_t)(a >> 4) * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

/* The stripe follows the 64 MiB region of the address (glibc gives each thread's arena its
 * own 64 MiB heaps), spread over 8 stripes by 4 KiB page: a thread's blocks share few lock
 * cache lines with other threads', which would otherwise bounce between cores on every call. */
static inline stripe *stripe_of(uintptr_t a)
{
    uint64_t region = (uint64_t)(a >> 26) * 0x9E3779B97F4A7C15ull;
    return &stripes[((region >> 56) + ((a >> 12) & 7)) & (NM_N_STRIPES - 1)];
}

static int stripe_grow(stripe *s)
{
    uint32_t cap = s->mask ? (s->mask + 1) * 2 : STRIPE_INIT_CAP;
    entry *t = nm_map((size_t)cap * sizeof(entry));
    if (!t)
        return -1;
    for (uint32_t i = 0; s->mask && i <= s->mask; i++) {
        entry *e = &s->slots[i];
        if (!e->key)
            continue;
        uint32_t j = home_of((uintptr_t)~e->key, cap - 1);
        while (t[j].key)
            j = (j + 1) & (cap - 1);
        t[j] = *e;
    }
    if (s->mask)
        nm_unmap(s->slots, (size_t)(s->mask + 1) * sizeof(entry));
    s->slots = t;
    s->mask = cap - 1;
    return 0;
}

static void table_put(void *p, uint64_t size, uint32_t trace, uint32_t flags)
{
    stripe *s = stripe_of((uintptr_t)p);
    int holding = t_holding;
    if (!holding)
        spin_lock(&s->lock);
    if ((s->n + 1) * 2 > s->mask + 1 && stripe_grow(s) != 0)
        goto out;
    uint64_t key = ~(uint64_t)(uintptr_t)p;
    uint32_t i = home_of((uintptr_t)p, s->mask);
    while (s->slots[i].key && s->slots[i].key != key)
        i = (i + 1) & s->mask;
    if (!s->slots[i].key)
        s->n++;
    s->slots[i].key = key;
    s->slots[i].size = size;
    s->slots[i].trace = trace;
    s->slots[i].flags = flags;
out:
    if (!holding)
        spin_unlock(&s->lock);
}

/* Removes p's record; returns 1 and the old record in *old when it was there. */
static int table_del(void *p, entry *old)
{
    stripe *s = stripe_of((uintptr_t)p);
    int holding = t_holding, found = 0;
    if (!holding)
        spin_lock(&s->lock);
    if (!s->mask)
        goto out;
    uint64_t key = ~(uint64_t)(uintptr_t)p;
    uint32_t i = home_of((uintptr_t)p, s->mask);
    while (s->slots[i].key && s->slots[i].key != key)
        i = (i + 1) & s->mask;
    if (!s->slots[i].key)
        goto out;
    found = 1;
    if (old)
        *old = s->slots[i];
    /* Backward-shift delete: move later members of the probe run into the hole. */
    uint32_t hole = i, j = i;
    for (;;) {
        j = (j + 1) & s->mask;
        if (!s->slots[j].key)
            break;
        uint32_t home = home_of((uintptr_t)~s->slots[j].key, s->mask);
        if (((j - home) & s->mask) >= ((j - hole) & s->mask)) {
            s->slots[hole] = s->slots[j];
            hole = j;
        }
    }
    s->slots[hole].key = 0;
    s->n--;
out:
    if (!holding)
        spin_unlock(&s->lock);
    return found;
}

void nm_tables_lock(void)
{
    spin_lock(&depot_lock);
    for (int i = 0; i < NM_N_STRIPES; i++)
        spin_lock(&stripes[i].lock);
    t_holding = 1;
}

void nm_tables_unlock(void)
{
    t_holding = 0;
    for (int i = 0; i < NM_N_STRIPES; i++)
        spin_unlock(&stripes[i].lock);
    spin_unlock(&depot_lock);
}

void nm_tables_reinit_child(void)
{
    t_holding = 0;
    for (int i = 0; i < NM_N_STRIPES; i++)
        stripes[i].lock.v = 0;
    depot_lock.v = 0;
    own_lock.v = 0;
}

void nm_tables_each(void (*fn)(uintptr_t, uint64_t, uint32_t, uint32_t, void *), void *arg)
{
    for (int k = 0; k < NM_N_STRIPES; k++) {
        stripe *s = &stripes[k];
        for (uint32_t i = 0; s->mask && i <= s->mask; i++)
            if (s->slots[i].key)
                fn((uintptr_t)~s->slots[i].key, s->slots[i].size, s->slots[i].trace,
                   s->slots[i].flags, arg);
    }
}

uint64_t nm_tables_count(void)
{
    uint64_t n = 0;
    for (int k = 0; k < NM_N_STRIPES; k++)
        n += stripes[k].n;
    return n;
}

/* ---- Recording ---- */

/* Text of the dynamic linker, from its program headers at AT_BASE (no allocation). Blocks
 * it allocates (DTVs, dlopen bookkeeping) hang off its private state, which is no root the
 * scan can see: like LeakSanitizer's use_ld_allocations they count as reachable. */
static uintptr_t ld_lo, ld_hi;
static int ld_known;

static void ld_range(void)
{
    uintptr_t base = (uintptr_t)getauxval(AT_BASE);
    ld_known = 1;
    if (!base)
        return;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
            ld_lo = base + ph[i].p_vaddr;
            ld_hi = ld_lo + ph[i].p_memsz;
        }
}

static inline uint32_t caller_flags(uintptr_t ret)
{
    if (!ld_known)
        ld_range();
    return ret >= ld_lo && ret < ld_hi ? NM_E_LDSO : 0;
}

__attribute__((noinline)) static void record(void *p, uint64_t size, uintptr_t ret)
{
    uint32_t flags = caller_flags(ret);
    t_guard = 1;
    uint32_t trace = 0;
    if (nm_cfg.bt_mode != NM_BT_NONE) {
        uint64_t every = nm_cfg.sample_bytes;
        if (!every || size >= every) {
            trace = nm_trace_here(2);
        } else {
            t_sampled += size;
            if (t_sampled >= every) {
                t_sampled -= every;
                trace = nm_trace_here(2);
            }
        }
    }
    table_put(p, size, trace, flags);
    t_guard = 0;
}

void nm_alloc_init(void)
{
    if (nm_cfg.bt_mode == NM_BT_LIBUNWIND) {
        int g = nm_guard_set(1);
        libunwind_load();
        nm_guard_set(g);
        if (!unw_bt)
            nm_cfg.bt_mode = NM_BT_FP;
    }
}

/* ---- The hooks ---- */

NM_API void *malloc(size_t n)
{
    void *p = __libc_malloc(n);
    if (p && !t_guard)
        record(p, n, (uintptr_t)__builtin_return_address(0));
    return p;
}

NM_API void *calloc(size_t n, size_t size)
{
    void *p = __libc_calloc(n, size);
    if (p && !t_guard)
        record(p, (uint64_t)n * size, (uintptr_t)__builtin_return_address(0));
    return p;
}

NM_API void free(void *p)
{
    if (!p)
        return;
    int e = errno;
    if (!(t_guard && t_holding))
        table_del(p, NULL);
    __libc_free(p);
    errno = e;
}

NM_API void cfree(void *p)
{
    free(p);
}

NM_API void *realloc(void *p, size_t n)
{
    if (!p)
        return malloc(n);
    if (n == 0) {
        free(p);
        return NULL;
    }
    entry old;
    int had = t_guard && t_holding ? 0 : table_del(p, &old);
    void *q = __libc_realloc(p, n);
    if (!q) {
        if (had)
            table_put(p, old.size, old.trace, old.flags);
        return NULL;
    }
    if (!t_guard)
        record(q, n, (uintptr_t)__builtin_return_address(0));
    return q;
}

NM_API void *reallocarray(void *p, size_t n, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(n, size, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(p, total);
}

static void *aligned(size_t align, size_t n)
{
    void *p = __libc_memalign(align, n);
    if (p && !t_guard)
        record(p, n, (uintptr_t)__builtin_return_address(0));
    return p;
}

NM_API void *memalign(size_t align, size_t n)
{
    return aligned(align, n);
}

NM_API void *aligned_alloc(size_t align, size_t n)
{
    return aligned(align, n);
}

NM_API int posix_memalign(void **out, size_t align, size_t n)
{
    if (align < sizeof(void *) || (align & (align - 1)))
        return EINVAL;
    int e = errno;
    void *p = aligned(align, n);
    if (!p) {
        errno = e;
        return ENOMEM;
    }
    *out = p;
    return 0;
}

NM_API void *valloc(size_t n)
{
    void *p = __libc_valloc(n);
    if (p && !t_guard)
        record(p, n, (uintptr_t)__builtin_return_address(0));
    return p;
}

NM_API void *pvalloc(size_t n)
{
    void *p = __libc_pvalloc(n);
    if (p && !t_guard)
        record(p, n, (uintptr_t)__builtin_return_address(0));
    return p;
}

/* glibc exports no __libc_ alias for it; dlsym may allocate, which the hooks above serve
 * through __libc_* without coming back here. */
NM_API size_t malloc_usable_size(void *p)
{
    static size_t (*real)(void *);
    if (!real) {
        int g = nm_guard_set(1);
        real = (size_t (*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
        nm_guard_set(g);
        if (!real)
            return 0;
    }
    return real(p);
}
