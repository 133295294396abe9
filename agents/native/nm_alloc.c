/* SPDX-License-Identifier: Apache-2.0 */
/* nm_alloc.c: the malloc-family hooks and the block headers (agents layer), prefix nm_.
 * Every hook forwards to the allocator the program uses, found once before the first block
 * (glibc's __libc_* entry points, or jemalloc's, tcmalloc's, mimalloc's own functions), so
 * no dlsym runs on the allocation path; operator new/delete and those allocators' own calls
 * that take a block are defined here too (end of file). Each live block carries its
 * record in a 16-byte header in front of it (size, backtrace id, flags, a check word); the
 * scanning child finds the blocks by their headers (nm_blocks_in), so malloc and free touch
 * no shared state: no lock, no atomic, no table. The stack depot and the realloc flags live
 * in mmap'd memory registered with nm_map so the scan skips it. Backtraces: frame-pointer
 * walk bounded by the thread's stack (one frame when the bounds are unknown), or libunwind's
 * unw_backtrace when asked, interned in a lock-free-read depot (id = word offset in its
 * pool). Costs: O(1) per call, a depot lookup per traced block; without backtraces the
 * hooks are a dozen instructions around libc's call (this file is built without frame
 * pointers: the functions a backtrace starts from ask for a frame with
 * __builtin_frame_address). glibc's rules for replacing malloc: see docs/native.md. */
#define _GNU_SOURCE
#include "nm.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void abort(void) __attribute__((noreturn));
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
static __thread int t_holding NM_TLS;       /* this thread froze the blocks */
static __thread uintptr_t t_stack_hi NM_TLS; /* stack top for FP walks; 1 = unknown */
static __thread uint64_t t_sampled NM_TLS;  /* bytes since the last traced block */
/* The hooks' one test for "not the plain record": a call whose return address lies in
 * [lo, lo + span) takes the slow path. span is UINTPTR_MAX (every call) while the guard is
 * set, while backtraces are on and until the slow path first runs on this thread; after that
 * the range is ld.so's text (its blocks are marked). The slow path refreshes it from
 * slow_lo/slow_span whenever the guard is off. */
typedef struct slow_range {
    uintptr_t lo, span;
} slow_range;
static __thread slow_range t_slow NM_TLS = {0, UINTPTR_MAX};

int nm_guard_set(int on)
{
    int old = t_guard;
    t_guard = on;
    if (on)
        t_slow.span = UINTPTR_MAX;
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

/* The hash of a backtrace, frame by frame: one multiply per frame, so the frame-pointer walk
 * can compute it as it goes (the multiply overlaps the load of the next frame); order counts.
 * Entries are compared frame by frame anyway: the hash only picks buckets and cache slots. */
static inline uint64_t hash_step(uint64_t h, uintptr_t f)
{
    return (h ^ f) * 0xff51afd7ed558ccdull;
}

static inline uint64_t hash_end(uint64_t h, int n)
{
    h ^= (uint64_t)n;
    return h ^ h >> 29;
}

#define HASH_SEED 0xcbf29ce484222325ull

static uint64_t hash_frames(const uintptr_t *f, int n)
{
    uint64_t h = HASH_SEED;
    for (int i = 0; i < n; i++)
        h = hash_step(h, f[i]);
    return hash_end(h, n);
}

static inline int frames_equal(const uint64_t *a, const uintptr_t *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

#define NM_TRACE_CACHE 16
static __thread uint32_t t_trace_cache[NM_TRACE_CACHE] NM_TLS; /* depot ids by hash */

static uint32_t depot_find_or_add(const uintptr_t *f, int n, uint64_t h);

static __attribute__((noinline)) int depot_init(void)
{
    spin_lock(&depot_lock);
    if (!depot_pool)
        depot_pool = nm_map(DEPOT_RESERVE);
    if (!depot_heads && depot_pool)
        __atomic_store_n(&depot_heads, nm_map(sizeof(uint32_t) << DEPOT_BITS),
                         __ATOMIC_RELEASE);
    spin_unlock(&depot_lock);
    return depot_heads != NULL;
}

/* The id of frames f[0..n) whose hash is h. */
static inline uint32_t depot_put_hashed(const uintptr_t *f, int n, uint64_t h)
{
    if (n <= 0 || (__builtin_expect(!depot_heads, 0) && !depot_init()))
        return 0;
    /* The thread's recent traces first: a hit reads one entry this thread touched lately
     * instead of the shared bucket array. */
    uint32_t *slot = &t_trace_cache[h & (NM_TRACE_CACHE - 1)];
    uint32_t id = *slot;
    if (id) {
        const uint64_t *e = depot_pool + id;
        if (e[0] == h && (int)(e[1] >> 32) == n && frames_equal(e + 2, f, n))
            return id;
    }
    id = depot_find_or_add(f, n, h);
    *slot = id;
    return id;
}

static uint32_t depot_put(const uintptr_t *f, int n)
{
    return depot_put_hashed(f, n, hash_frames(f, n));
}

static uint32_t depot_find_or_add(const uintptr_t *f, int n, uint64_t h)
{
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

/* The monitor's own text: its frames (main's wrapper, a thread's trampoline) stand between
 * the program's, and are left out of backtraces, so that a leak's frames and signature are
 * the program's alone. Set at init (0 until then: nothing left out). */
static uintptr_t self_text_lo, self_text_span;

/* skip: frames of the monitor between the caller's call site and here; the monitor's own
 * frames further out (main's wrapper under a pthread_create made from main) are left out
 * too, as trace_fp leaves them. */
__attribute__((noinline)) uint32_t nm_trace_here(int skip)
{
    uintptr_t f[NM_MAX_DEPTH + 4];
    int depth = nm_cfg.depth, n = 0;
    if (nm_cfg.bt_mode == NM_BT_LIBUNWIND && unw_bt) {
        void *buf[NM_MAX_DEPTH + 4];
        int got = unw_bt(buf, depth + skip + 1);
        for (int i = skip + 1; i < got && n < depth; i++)
            if ((uintptr_t)buf[i] - self_text_lo >= self_text_span)
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
        /* no sum that can wrap: code built without frame pointers leaves any value in the
         * link (0xfffffffffffffff0, an `& -16` mask: fp + 16 wrapped to 0 and passed) */
        if ((uintptr_t)fp & 7 || (uintptr_t)fp >= hi || hi - (uintptr_t)fp < 16)
            break;
        uintptr_t ret = fp[1];
        if (ret < 4096)
            break;
        if (i >= skip && ret - self_text_lo >= self_text_span)
            f[n++] = ret;
        uintptr_t *next = (uintptr_t *)fp[0];
        if (next <= fp)
            break;
        fp = next;
    }
    return depot_put(f, n);
}
/* The frame-pointer backtrace from frame fp (a hook's own frame: its return address is the
 * program's call site), hashed during the walk. Same bounds as nm_trace_here. */
static inline __attribute__((always_inline)) uint32_t trace_fp(const uintptr_t *fp)
{
    uintptr_t f[NM_MAX_DEPTH];
    uintptr_t hi = t_stack_hi;
    if (__builtin_expect(hi <= 1, 0)) {
        hi = stack_hi();
        if (hi <= 1) {
            f[0] = fp[1];
            return depot_put(f, 1);
        }
    }
    int depth = nm_cfg.depth, n = 0;
    uint64_t h = HASH_SEED;
    while (n < depth) {
        /* no sum that can wrap: code built without frame pointers leaves any value in the
         * link (0xfffffffffffffff0, an `& -16` mask: fp + 16 wrapped to 0 and passed) */
        if ((uintptr_t)fp & 7 || (uintptr_t)fp >= hi || hi - (uintptr_t)fp < 16)
            break;
        uintptr_t ret = fp[1];
        const uintptr_t *next = (const uintptr_t *)fp[0];
        if (ret < 4096)
            break;
        if (ret - self_text_lo >= self_text_span) {
            f[n++] = ret;
            h = hash_step(h, ret);
        }
        if (next <= fp)
            break;
        fp = next;
    }
    return depot_put_hashed(f, n, hash_end(h, n));
}

/* ---- Live blocks: a header in front of each, found by the scan in the heap itself ----
 *
 * Every block the hooks return has a 16-byte header in front of it holding its record (size,
 * backtrace id, flags) and a check word. Nothing else records a live block: no list, no
 * table, no lock and no atomic on the malloc and free paths, and a free from any thread is
 * the same compare and store. The scanning child finds the blocks by searching the process's
 * anonymous memory (nm_blocks_in) for headers whose check word matches their address, then
 * confirms each against the size libc keeps in its chunk; a free clears the check word
 * before libc gets the block back, so freed memory holds no valid header. The check word
 * comes from the address and a per-process secret with its top bit set: it sits where libc
 * keeps the high half of a chunk's size, so a pointer the hooks did not make (never with
 * that bit) goes to libc untouched, and libc's chunk headers never pass for one of ours.
 * The only window where a live block has no valid header is realloc handing it to libc,
 * which may move it: a scan or fork waits for it (the gate below), so a block is never
 * missing while its contents hold the only pointers to others. */

/* The header. meta: size (44 bits) | NM_QUIET_BIT | NM_LDSO_BIT | log2 of the offset from
 * what libc returned to the block (6). check: see above. trace and check share one word
 * (tail), written and cleared with one 8-byte store: glibc's free reads that word whole (its
 * tcache double-free key), and a load that spans a narrower store still in flight waits for
 * that store to reach the cache (a store-forwarding stall, ~15 cycles per free). */
typedef struct hdr {
    uint64_t meta;
    union {
        struct {
            uint32_t trace; /* depot id, 0 = not traced */
            uint32_t check;
        };
        uint64_t tail;
    };
} hdr;
#define NM_HDR ((size_t)sizeof(hdr))
#define NM_HDR_LOG 4 /* log2(NM_HDR) */
_Static_assert(sizeof(hdr) == 1u << NM_HDR_LOG, "header size");

/* What to ask libc for a block of n bytes placed off bytes into its allocation: never less
 * than 16 bytes past off. A block of 8 bytes or less filled glibc's smallest chunk to its
 * end, so the program's pointer was the next chunk's address, which glibc's arena keeps (its
 * top chunk, a bin's head) in libc's data: the scan took that for a root holding the block,
 * and a lost 8-byte block was never reported. */
static inline size_t nm_ask(size_t n, size_t off) { return off + (n < 16 ? 16 : n); }
#define NM_SIZE_BITS 44
#define NM_SIZE_MASK ((1ull << NM_SIZE_BITS) - 1)
#define NM_QUIET_BIT (1ull << 56) /* allocated by the monitor itself: not a program block */
#define NM_LDSO_BIT (1ull << 57)
#define NM_OFF_SHIFT 58

static inline size_t meta_offset(uint64_t m)
{
    return (size_t)1 << (m >> NM_OFF_SHIFT);
}

static uint32_t hdr_secret;
static uint64_t hdr_secret_hi; /* hdr_secret << 32 */

/* Bits 4..30 of the block's address (blocks are 16-aligned) under the secret: an xor and an
 * or, cheap enough for every free. A copy of a header elsewhere (up to 2 GiB away) does not
 * match its new address; the top bit keeps libc's own size words from ever matching. */
static inline uint32_t hdr_check(uintptr_t p)
{
    return ((uint32_t)p ^ hdr_secret) | 0x80000000u;
}

/* Flipped in the check word of a block placed further than NM_HDR into libc's allocation
 * (over-aligned): free recognises the usual block by its check word alone and hands libc
 * p - NM_HDR without reading meta. */
#define NM_CHECK_ALIGNED 0x40000000u

/* The tail word holding trace and check (little-endian: check in the high half). */
static inline uint64_t hdr_tail(uint32_t trace, uint32_t check)
{
    return (uint64_t)trace | (uint64_t)check << 32;
}

/* hdr_tail(0, hdr_check(p)) in three operations. */
static inline uint64_t hdr_tail_untraced(uintptr_t p)
{
    return ((uint64_t)p << 32 ^ hdr_secret_hi) | 1ull << 63;
}

static inline hdr *hdr_of(void *p)
{
    return (hdr *)((char *)p - NM_HDR);
}

static int foreign; /* the hooks forward to another allocator: blocks are no glibc chunks */

/* glibc's chunk layout, used by the scan to confirm a header: the word before what libc
 * returns holds the chunk size, its low bits flags (IS_MMAPPED = 2); a chunk in an arena has
 * 8 bytes of overhead and at most MINSIZE + 15 spare bytes, an mmapped one 16 and whole
 * pages. */
#define CHUNK_MMAPPED 2u
#define CHUNK_SLACK 64u

/* Calls fn for every program block whose header lies in [lo, hi), in address order: each
 * 16-byte slot whose check word matches is confirmed against libc's chunk size, and the
 * search resumes after the chunk. Runs in the scanning child; lo and hi are 16-aligned. */
void nm_blocks_in(uintptr_t base, uintptr_t lo, uintptr_t hi, uintptr_t end,
                  void (*fn)(uintptr_t, uint64_t, uint32_t, uint32_t, void *), void *arg)
{
    uintptr_t q = (lo + 15) & ~(uintptr_t)15;
    while (q + NM_HDR <= hi) {
        const hdr *h = (const hdr *)q;
        uint32_t ck = h->check, diff;
        if (__builtin_expect(!(ck & 0x80000000u), 1) ||
            ((diff = ck ^ hdr_check(q + NM_HDR)) & ~NM_CHECK_ALIGNED)) {
            q += 16;
            continue;
        }
        uint64_t meta = h->meta, size = meta & NM_SIZE_MASK;
        unsigned lg = (unsigned)(meta >> NM_OFF_SHIFT);
        if ((lg != NM_HDR_LOG) != (diff != 0)) { /* the flip must match the offset */
            q += 16;
            continue;
        }
        uintptr_t p = q + NM_HDR, off = lg < 40 ? (uintptr_t)1 << lg : 0;
        if (lg < NM_HDR_LOG || !off || p - base < off + (foreign ? 0 : 8) || size > end - p) {
            q += 16;
            continue;
        }
        uintptr_t b = p - off;
        if (foreign) {
            /* Another allocator's block: no chunk header to confirm it by. The check word
             * binds the header to its address; the search resumes after the block. */
            if (!(meta & NM_QUIET_BIT))
                fn(p, size, h->trace, meta & NM_LDSO_BIT ? NM_E_LDSO : 0, arg);
            q = (p + size + 15) & ~(uintptr_t)15;
            continue;
        }
        uint64_t cs = *(const uint64_t *)(b - 8), csize = cs & ~(uint64_t)7;
        uint64_t over = cs & CHUNK_MMAPPED ? 16 : 8, need = size + off;
        uintptr_t chunk = b - 16;
        if (csize < 32 || csize - over < need || csize > end - chunk ||
            (!(cs & CHUNK_MMAPPED) && csize - over - need >= CHUNK_SLACK)) {
            q += 16;
            continue;
        }
        if (!(meta & NM_QUIET_BIT))
            fn(p, size, h->trace, meta & NM_LDSO_BIT ? NM_E_LDSO : 0, arg);
        q = chunk + csize;
    }
}

/* ---- The realloc gate ----
 * A thread raises its own busy flag around realloc's window (plain stores); whoever needs
 * every block visible (a scan, the program's fork) raises g_freeze, makes every running
 * thread see it (membarrier: the owner's store to busy and its load of g_freeze then need no
 * fence of their own), and waits until no flag is up. Flags are per thread, padded to a
 * cache line, reused after a thread ends; past NM_MAX_THREADS threads share one counter
 * changed with atomics. */

typedef struct gate {
    volatile int busy; /* inside realloc's window (a counter for shared_gate) */
    int used;          /* a live thread owns it */
    char pad[64 - 2 * sizeof(int)];
} gate;

static gate *gates; /* NM_MAX_THREADS, one mapping, pages touched as used */
static uint32_t n_gates;
static gate shared_gate;
static spin gates_lock;
static volatile int g_freeze;
static int membarrier_ok;
static __thread gate *t_gate NM_TLS;

static __attribute__((noinline)) gate *gate_attach(void)
{
    spin_lock(&gates_lock);
    gate *g = NULL;
    if (!gates)
        gates = nm_map(sizeof(gate) * NM_MAX_THREADS);
    for (uint32_t i = 0; gates && i < n_gates && !g; i++)
        if (!gates[i].used)
            g = &gates[i];
    if (!g && gates && n_gates < NM_MAX_THREADS) {
        g = &gates[n_gates];
        __atomic_store_n(&n_gates, n_gates + 1, __ATOMIC_RELEASE);
    }
    if (g)
        g->used = 1;
    else
        g = &shared_gate;
    spin_unlock(&gates_lock);
    t_gate = g;
    return g;
}

static __attribute__((noinline)) void freeze_wait(void)
{
    while (__atomic_load_n(&g_freeze, __ATOMIC_ACQUIRE))
        sched_yield();
}

static inline void gate_leave(gate *g)
{
    if (t_holding)
        return;
    if (__builtin_expect(g == &shared_gate, 0)) {
        __atomic_sub_fetch(&g->busy, 1, __ATOMIC_RELEASE);
        return;
    }
    __asm__ __volatile__("" ::: "memory");
    g->busy = 0;
}

static inline gate *gate_enter(void)
{
    gate *g = t_gate;
    if (__builtin_expect(!g, 0))
        g = gate_attach();
    if (t_holding)
        return g;
    for (;;) {
        if (__builtin_expect(g == &shared_gate, 0))
            __atomic_add_fetch(&g->busy, 1, __ATOMIC_SEQ_CST);
        else
            g->busy = 1;
        __asm__ __volatile__("" ::: "memory");
        if (__builtin_expect(!g_freeze, 1))
            return g;
        gate_leave(g);
        freeze_wait();
    }
}

/* The calling thread ends: its flag is free for a new thread. */
void nm_alloc_thread_exit(void)
{
    gate *g = t_gate;
    if (g && g != &shared_gate) {
        spin_lock(&gates_lock);
        g->used = 0;
        spin_unlock(&gates_lock);
    }
    /* TLS destructors that realloc after this use the shared counter. */
    t_gate = &shared_gate;
}

static void wait_flag(volatile int *f)
{
    /* A thread stopped inside realloc (a debugger's stop) is waited for 2 s at most. */
    for (int k = 0; *f && k < 20000; k++)
        if (k > 100) {
            struct timespec ts = {0, 100000};
            nanosleep(&ts, NULL);
        } else {
            sched_yield();
        }
}

void nm_tables_lock(void)
{
    spin_lock(&gates_lock);
    spin_lock(&depot_lock);
    __atomic_store_n(&g_freeze, 1, __ATOMIC_SEQ_CST);
    if (!membarrier_ok || syscall(SYS_membarrier, 1 << 3 /* PRIVATE_EXPEDITED */, 0, 0) != 0) {
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    for (uint32_t i = 0; i < n_gates; i++)
        if (&gates[i] != t_gate)
            wait_flag(&gates[i].busy);
    wait_flag(&shared_gate.busy);
    t_holding = 1;
}

void nm_tables_unlock(void)
{
    t_holding = 0;
    __atomic_store_n(&g_freeze, 0, __ATOMIC_RELEASE);
    spin_unlock(&depot_lock);
    spin_unlock(&gates_lock);
}

void nm_tables_reinit_child(void)
{
    t_holding = 0;
    g_freeze = 0;
    gates_lock.v = 0;
    depot_lock.v = 0;
    own_lock.v = 0;
    shared_gate.busy = 0;
    /* The other threads do not exist here: their flags are free. */
    for (uint32_t i = 0; i < n_gates; i++)
        if (&gates[i] != t_gate) {
            gates[i].busy = 0;
            gates[i].used = 0;
        }
}

/* ---- The allocator the program really uses ----
 * The hooks shadow whichever malloc comes next in the lookup order: glibc's, or an allocator
 * linked into the program or preloaded after the monitor (jemalloc, tcmalloc, mimalloc). It
 * is found at the first call of any hook, before that call makes its block: each pointer
 * below starts at a boot_* function that resolves them all and then calls through. When the
 * next malloc is glibc's the hooks call its __libc_* entry points, as they always did (an
 * indirect call either way: -fno-plt made those go through the GOT); else they call that
 * allocator's own functions, so the program keeps its allocator and its blocks stay its
 * blocks. tcmalloc and mimalloc also define __libc_malloc & co., so those names cannot tell
 * glibc from them: dladdr on dlsym(RTLD_NEXT, "malloc") does. Whatever dlsym allocates while
 * it runs comes from __libc_malloc and is marked NM_LIBC_BIT, so free returns it there. */

static void *boot_malloc(size_t n);
static void *boot_calloc(size_t n, size_t size);
static void *boot_realloc(void *p, size_t n);
static void boot_free(void *p);
static void *boot_memalign(size_t align, size_t n);

static void *(*real_malloc)(size_t) = boot_malloc;
static void *(*real_calloc)(size_t, size_t) = boot_calloc;
static void *(*real_realloc)(void *, size_t) = boot_realloc;
static void (*real_free)(void *) = boot_free;
static void *(*real_memalign)(size_t, size_t) = boot_memalign;
static size_t (*real_usable)(void *);          /* NULL: the recorded size is all we know */
static int (*real_posix_memalign)(void **, size_t, size_t);

/* Blocks are handed out zeroed. Every allocator recycles the memory
 * of freed blocks: glibc gives a new 512-byte block the chunk of a freed table of pointers,
 * tcmalloc the C++ runtime's 72 kB emergency pool or a span that held freed 48-byte blocks.
 * The scan reads the words the program never wrote as pointers, and a stale address that a
 * leaked block reuses later keeps that leak reachable: a whole leak missed, every run, as
 * long as the recycled block lives. Valgrind's leak check reads only initialised words for
 * the same reason. Under another allocator its calloc lets it skip pages it knows are fresh;
 * glibc's calloc bypasses its per-thread cache and locks the arena (5x the cost), so there
 * malloc and memset. Big blocks too: a freed table of 40,000 pointers comes back as a 320 kB
 * I/O buffer the program writes 16 bytes of, and its stale words hid 39,998 lost blocks;
 * glibc's chunks of mmap are left alone (fresh pages, zero already, never recycled: glibc
 * unmaps them when freed), so only memory that held something pays. LEAKRAY_NATIVE_ZERO=0
 * turns it off (about 8 ns less per small malloc/free pair; docs/native.md). */
int nm_zero = 1;
static void *(*alloc_malloc)(size_t);
static void *zeroed_malloc(size_t n)
{
    if (__atomic_load_n(&nm_zero, __ATOMIC_RELAXED))
        return real_calloc(1, n);
    return alloc_malloc(n);
}

/* Whether glibc chunk b came from its own mmap: IS_MMAPPED, bit 1 of the size word before it. */
static int glibc_mmapped(const void *b)
{
    return (((const size_t *)b)[-1] & 2) != 0;
}

static void *glibc_zeroed_malloc(size_t n)
{
    void *b = __libc_malloc(n);
    if (b && __atomic_load_n(&nm_zero, __ATOMIC_RELAXED) && !glibc_mmapped(b))
        memset(b, 0, n);
    return b;
}

/* Zeroes bytes [from, to) of block p, whose allocator's block starts at base: what realloc
 * grew a block by and what an aligned allocation gives. */
static void zero_span(const char *base, char *p, size_t from, size_t to)
{
    if (from < to && __atomic_load_n(&nm_zero, __ATOMIC_RELAXED) &&
        (foreign || !glibc_mmapped(base)))
        memset(p + from, 0, to - from);
}

static int resolved;
static spin resolve_lock;
static __thread int t_resolving NM_TLS;

/* Blocks made while dlsym ran (from __libc_malloc): free gives them back there. */
#define NM_LIBC_BIT (1ull << 55)

static nm_alloc_info alloc_info = {.name = "glibc", .tracked = 1, .glibc = 1};

const nm_alloc_info *nm_allocator(void)
{
    return &alloc_info;
}

/* The file name of the object holding address a, or "the executable". */
static void object_name(const void *a, char *out, size_t n)
{
    Dl_info di;
    const char *s = dladdr(a, &di) && di.dli_fname && di.dli_fname[0] ? di.dli_fname : "";
    const char *slash = strrchr(s, '/');
    s = slash ? slash + 1 : s;
    if (!s[0])
        s = "the executable";
    size_t k = strlen(s) < n - 1 ? strlen(s) : n - 1;
    memcpy(out, s, k);
    out[k] = 0;
}

static const void *object_base(const void *a)
{
    Dl_info di;
    return a && dladdr(a, &di) ? di.dli_fbase : NULL;
}

/* Whether a, what dlsym(RTLD_DEFAULT) gave for a function, is a non-PIE executable's
 * canonical PLT entry (the executable takes the function's address, so its .dynsym lists
 * the symbol undefined with that entry as value): calls through it reach the first
 * definition, which is the monitor's. Debian's python3.11 and node are built so, and read
 * "NOT TRACKED" while every block was tracked. */
static int plt_entry(const void *a)
{
    Dl_info di;
    const ElfW(Sym) *sym = NULL;
    return a && dladdr1(a, &di, (void **)&sym, RTLD_DL_SYMENT) && sym &&
           sym->st_shndx == SHN_UNDEF;
}

/* dlsym(RTLD_NEXT, name) when it lies in the object at base, else NULL. */
static void *next_in(const char *name, const void *base)
{
    void *f = dlsym(RTLD_NEXT, name);
    return f && object_base(f) == base ? f : NULL;
}

static void *memalign_by_posix(size_t align, size_t n)
{
    void *p = NULL;
    int e = real_posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, n);
    if (e) {
        errno = e;
        return NULL;
    }
    return p;
}

static void note_add(const char *s)
{
    size_t k = strlen(alloc_info.note);
    if (k && k + 2 < sizeof alloc_info.note) {
        memcpy(alloc_info.note + k, "; ", 2);
        k += 2;
    }
    size_t m = strlen(s);
    if (k + m >= sizeof alloc_info.note)
        m = sizeof alloc_info.note - 1 - k;
    memcpy(alloc_info.note + k, s, m);
    alloc_info.note[k + m] = 0;
}

/* note_add of a + b + c (no stdio while the allocator is being found). */
static void note_add3(const char *a, const char *b, const char *c)
{
    char s[sizeof alloc_info.note];
    size_t k = 0;
    for (const char *const *part = (const char *const[]){a, b, c, NULL}; *part; part++)
        for (const char *q = *part; *q && k + 1 < sizeof s; q++)
            s[k++] = *q;
    s[k] = 0;
    note_add(s);
}

static void new_resolve(const void *alloc_base); /* operator new and the allocators' APIs */
static void text_of(const void *base, uintptr_t *lo, uintptr_t *span);

/* Finds the allocator; the pointers change only at the end, so that whatever dlsym
 * allocates meanwhile comes from __libc_malloc (boot_*) and is marked NM_LIBC_BIT. */
static void resolve_locked(void)
{
    const void *libc = object_base((const void *)gnu_get_libc_version);
    void *m = dlsym(RTLD_NEXT, "malloc");
    const void *base = object_base(m);
    void *c = next_in("calloc", base), *r = next_in("realloc", base), *f = next_in("free", base);
    int other = m && base && base != libc && c && r && f;
    void *ma = NULL;
    if (other) {
        object_name(m, alloc_info.name, sizeof alloc_info.name);
        alloc_info.glibc = 0;
        alloc_info.base = (uintptr_t)base;
        real_usable = (size_t (*)(void *))next_in("malloc_usable_size", base);
        real_posix_memalign = (int (*)(void **, size_t, size_t))next_in("posix_memalign", base);
        ma = next_in("memalign", base);
        if (!ma)
            ma = next_in("aligned_alloc", base);
        if (!ma && real_posix_memalign)
            ma = (void *)memalign_by_posix;
        if (!ma)
            note_add("no aligned allocation in the allocator: memalign & co. fail");
    } else {
        if (m && base && base != libc) {
            object_name(m, alloc_info.name, sizeof alloc_info.name);
            note_add("its calloc, realloc or free is not its own: glibc's malloc is used");
        }
        real_usable = (size_t (*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
    }
    /* A malloc found before the monitor's (an allocator earlier in LD_PRELOAD, or exported
     * by the executable) takes every call: the hooks see nothing. */
    void *first = dlsym(RTLD_DEFAULT, "malloc");
    if (first && object_base(first) != object_base((const void *)nm_allocator) &&
        !plt_entry(first)) {
        object_name(first, alloc_info.name, sizeof alloc_info.name);
        alloc_info.tracked = 0;
        alloc_info.note[0] = 0;
        note_add("its malloc is found before the monitor's: no block is tracked; put "
                 "libleakray_native.so first in LD_PRELOAD");
    }
    new_resolve(other ? base : NULL);
    if (other) {
        foreign = 1;
        __atomic_store_n(&real_memalign, (void *(*)(size_t, size_t))ma, __ATOMIC_RELAXED);
        __atomic_store_n(&real_free, (void (*)(void *))f, __ATOMIC_RELAXED);
        __atomic_store_n(&real_realloc, (void *(*)(void *, size_t))r, __ATOMIC_RELAXED);
        __atomic_store_n(&real_calloc, (void *(*)(size_t, size_t))c, __ATOMIC_RELAXED);
        __atomic_store_n(&alloc_malloc, (void *(*)(size_t))m, __ATOMIC_RELAXED);
        __atomic_store_n(&real_malloc, zeroed_malloc, __ATOMIC_RELAXED);
    } else {
        __atomic_store_n(&real_memalign, __libc_memalign, __ATOMIC_RELAXED);
        __atomic_store_n(&real_free, __libc_free, __ATOMIC_RELAXED);
        __atomic_store_n(&real_realloc, __libc_realloc, __ATOMIC_RELAXED);
        __atomic_store_n(&real_calloc, __libc_calloc, __ATOMIC_RELAXED);
        __atomic_store_n(&real_malloc, glibc_zeroed_malloc, __ATOMIC_RELAXED);
    }
}

/* Runs once, on the first hook call of the process (or of a thread racing it). */
static __attribute__((noinline, cold)) void resolve(void)
{
    spin_lock(&resolve_lock);
    if (!__atomic_load_n(&resolved, __ATOMIC_ACQUIRE)) {
        t_resolving = 1;
        int g = nm_guard_set(1);
        resolve_locked();
        nm_guard_set(g);
        t_resolving = 0;
        __atomic_store_n(&resolved, 1, __ATOMIC_RELEASE);
    }
    spin_unlock(&resolve_lock);
}

static void *boot_malloc(size_t n)
{
    if (t_resolving)
        return __libc_malloc(n);
    resolve();
    return real_malloc(n);
}

static void *boot_calloc(size_t n, size_t size)
{
    if (t_resolving)
        return __libc_calloc(n, size);
    resolve();
    return real_calloc(n, size);
}

static void *boot_realloc(void *p, size_t n)
{
    if (t_resolving)
        return __libc_realloc(p, n);
    resolve();
    return real_realloc(p, n);
}

static void boot_free(void *p)
{
    if (t_resolving) {
        __libc_free(p);
        return;
    }
    resolve();
    real_free(p);
}

static void *boot_memalign(size_t align, size_t n)
{
    if (t_resolving)
        return __libc_memalign(align, n);
    resolve();
    if (!real_memalign) {
        errno = ENOMEM;
        return NULL;
    }
    return real_memalign(align, n);
}

/* ---- Recording ---- */

/* Text of the dynamic linker, from its program headers at AT_BASE (no allocation). Blocks
 * it allocates (DTVs, dlopen bookkeeping) hang off its private state, which is no root the
 * scan can see: like LeakSanitizer's use_ld_allocations they count as reachable. */
/* Until first_use has run, [ld_lo, ld_lo + ld_span) is the whole address space, so that
 * every call takes the slow path, which runs it. */
static uintptr_t ld_lo, ld_span = UINTPTR_MAX;
static int ld_known;
/* What t_slow becomes on a thread whose guard is off: ld.so's text, or everything until
 * first_use has run or while backtraces are on. */
static uintptr_t slow_lo, slow_span = UINTPTR_MAX;

static void slow_range_set(void)
{
    slow_lo = ld_lo;
    slow_span = nm_cfg.bt_mode != NM_BT_NONE ? UINTPTR_MAX : ld_span;
}

/* At the first block the hooks make, which may come before this library's constructor (a
 * constructor of another library that ran first): the header secret, fixed for the life of
 * the process (a block made with one secret must be recognised by free ever after), and the
 * dynamic linker's text, from its program headers at AT_BASE (no allocation). */
static __attribute__((noinline)) void first_use(void)
{
    /* AT_RANDOM: 16 random bytes the kernel gives every process. */
    const uint64_t *rnd = (const uint64_t *)getauxval(AT_RANDOM);
    hdr_secret = (uint32_t)((rnd ? rnd[0] ^ rnd[1] : 0x6a09e667f3bcc908ull) ^ (uint64_t)getpid());
    hdr_secret_hi = (uint64_t)hdr_secret << 32;
    uintptr_t base = (uintptr_t)getauxval(AT_BASE);
    ld_span = 0;
    if (base) {
        const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
        const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
        for (int i = 0; i < eh->e_phnum; i++)
            if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
                ld_lo = base + ph[i].p_vaddr;
                ld_span = ph[i].p_memsz;
            }
    }
    ld_known = 1;
    slow_range_set();
}

/* libunwind's backtrace from the program's call site: the frames above the first whose
 * address is ra, the hook's return address (whether or not the hook's own frame is still on
 * the stack). */
static __attribute__((noinline)) uint32_t trace_unwind(uintptr_t ra)
{
    void *buf[NM_MAX_DEPTH + 8];
    uintptr_t f[NM_MAX_DEPTH];
    int got = unw_bt(buf, nm_cfg.depth + 8), k = 0, n = 0;
    while (k < got && k < 8 && (uintptr_t)buf[k] != ra)
        k++;
    if (k == got || k == 8)
        return 0;
    for (; k < got && n < nm_cfg.depth; k++)
        if ((uintptr_t)buf[k] - self_text_lo >= self_text_span)
            f[n++] = (uintptr_t)buf[k];
    return depot_put(f, n);
}

/* The backtrace of a block of size bytes, when this one is to be traced; fp: the hook's
 * frame, ra: its return address. */
static inline __attribute__((always_inline)) uint32_t trace_block(uint64_t size,
                                                                  const uintptr_t *fp,
                                                                  uintptr_t ra)
{
    uint64_t every = nm_cfg.sample_bytes;
    if (every && size < every) {
        t_sampled += size;
        if (t_sampled < every)
            return 0;
        t_sampled -= every;
    }
    if (__builtin_expect(nm_cfg.bt_mode == NM_BT_FP || !unw_bt, 1))
        return trace_fp(fp);
    /* libunwind may allocate: those blocks are the monitor's own. */
    nm_guard_set(1);
    uint32_t trace = trace_unwind(ra);
    nm_guard_set(0);
    return trace;
}

void nm_alloc_init(void)
{
    membarrier_ok = syscall(SYS_membarrier, 1 << 4 /* REGISTER_PRIVATE_EXPEDITED */, 0, 0) == 0;
    if (!ld_known)
        first_use();
    /* With another malloc before the monitor's no hook ever runs: the report still names it. */
    if (!__atomic_load_n(&resolved, __ATOMIC_ACQUIRE))
        resolve();
    if (nm_cfg.bt_mode == NM_BT_LIBUNWIND) {
        int g = nm_guard_set(1);
        libunwind_load();
        nm_guard_set(g);
        if (!unw_bt)
            nm_cfg.bt_mode = NM_BT_FP;
    }
    slow_range_set();
    text_of(object_base((const void *)nm_alloc_init), &self_text_lo, &self_text_span);
}

/* ---- The hooks ---- */

/* The header of block p once its record is known: the record first, the check word last,
 * so that a thread stopped in between leaves a block the scan skips (it holds nothing yet)
 * rather than a half-written one. */
static inline void hdr_write(void *p, uint64_t meta, uint32_t trace, int aligned)
{
    hdr *h = hdr_of(p);
    h->meta = meta;
    __asm__ __volatile__("" ::: "memory");
    h->tail = (hdr_tail_untraced((uintptr_t)p) | trace) ^
              (aligned ? (uint64_t)NM_CHECK_ALIGNED << 32 : 0);
}

/* Everything but the plain record: the monitor's own blocks (guard set: quiet), blocks the
 * dynamic linker allocates, and backtraces. ra: the hook's return address; fp: its frame. */
static inline __attribute__((always_inline)) void *track_rec(void *p, uint64_t meta,
                                                             uintptr_t ra, const uintptr_t *fp)
{
    uint32_t trace = 0;
    if (!ld_known)
        first_use();
    if (t_guard) {
        meta |= NM_QUIET_BIT;
        if (t_resolving)
            meta |= NM_LIBC_BIT;
    } else {
        t_slow.lo = slow_lo;
        t_slow.span = slow_span;
        if (ra - ld_lo < ld_span)
            meta |= NM_LDSO_BIT;
        if (nm_cfg.bt_mode != NM_BT_NONE)
            trace = trace_block(meta & NM_SIZE_MASK, fp, ra);
    }
    /* A block from __libc_malloc fails free's fast test: free_other gives it back there. */
    hdr_write(p, meta, trace, meta >> NM_OFF_SHIFT != NM_HDR_LOG || (meta & NM_LIBC_BIT));
    return p;
}

/* The slow path of a hook with a frame (the aligned ones): ra is its return address, up the
 * saved frame pointer in its frame. Both come by value, because the hook's frame is gone
 * when this is reached by a tail call; the walk starts from a copy of them. */
static __attribute__((noinline)) void *track_slow(void *p, uint64_t meta, uintptr_t ra,
                                                 uintptr_t up)
{
    const uintptr_t frame[2] = {up, ra};
    return track_rec(p, meta, ra, frame);
}

/* The slow path of a hook that returns the block at once: reached by a tail call from a hook
 * without a frame of its own (nm_alloc.c is built with -fomit-frame-pointer), so this
 * function's frame stands where the hook's would: its return address is the program's call
 * site and its saved frame pointer the program's frame. e2e/native_live checks that the
 * innermost frame of a traced block is the program's function. */
static __attribute__((noinline)) void *track_tail(void *p, uint64_t meta)
{
    return track_rec(p, meta, (uintptr_t)__builtin_return_address(0),
                     __builtin_frame_address(0));
}

/* Writes the header of block p (offset 1 << offlog from libc's pointer, size at most
 * NM_SIZE_MASK) and evaluates to p; slow: the call that records it otherwise. The common
 * case without backtraces is one test of the return address and two stores. */
#define TRACK_WITH(p, offlog, size, slow)                                                   \
    ({                                                                                      \
        uint64_t m_ = (uint64_t)(size) | ((uint64_t)(offlog) << NM_OFF_SHIFT);              \
        uintptr_t ra_ = (uintptr_t)__builtin_return_address(0);                             \
        void *r_ = (p);                                                                     \
        if (__builtin_expect(ra_ - t_slow.lo < t_slow.span, 0))                             \
            r_ = slow;                                                                      \
        else                                                                                \
            hdr_write(r_, m_, 0, (offlog) != NM_HDR_LOG);                                   \
        r_;                                                                                 \
    })
/* In `return TRACK_TAIL(...)` only: the slow path must be a tail call. */
#define TRACK_TAIL(p, offlog, size) TRACK_WITH(p, offlog, size, track_tail(r_, m_))
#define TRACK(p, offlog, size)                                                              \
    TRACK_WITH(p, offlog, size,                                                             \
               track_slow(r_, m_, ra_, *(const uintptr_t *)__builtin_frame_address(0)))

/* The allocator's usable size of what it returned (b), at least `have` (the bytes asked
 * for) when it has no such function. */
static size_t libc_usable(void *b, size_t have)
{
    if (!resolved)
        resolve();
    return real_usable ? real_usable(b) : have;
}

/* Whether the 16 bytes before page-aligned p can be read. Another allocator's block may
 * start a mapping, with nothing mapped before it; glibc's blocks always follow their chunk
 * header. One system call, for page-aligned pointers from another allocator only. */
static __attribute__((noinline, cold)) int hdr_readable(void *p)
{
    if (!foreign)
        return 1;
    char buf[NM_HDR];
    struct iovec local = {buf, sizeof buf}, remote = {(char *)p - NM_HDR, NM_HDR};
    long r = syscall(SYS_process_vm_readv, getpid(), &local, 1UL, &remote, 1UL, 0UL);
    if (r == (long)NM_HDR)
        return 1;
    if (r < 0 && (errno == ENOSYS || errno == EPERM)) /* filtered: ask whether it is mapped */
        return msync((void *)(((uintptr_t)p - NM_HDR) & ~(uintptr_t)4095), 4096,
                     MS_ASYNC) == 0;
    return 0;
}

/* The header of p when the hooks made p, else NULL (a pointer from elsewhere). */
static inline hdr *ours(void *p)
{
    if (__builtin_expect(!((uintptr_t)p & 4095), 0)) {
        int e = errno;
        int ok = hdr_readable(p);
        errno = e;
        if (!ok)
            return NULL;
    }
    hdr *h = hdr_of(p);
    return (h->check | NM_CHECK_ALIGNED) == (hdr_check((uintptr_t)p) | NM_CHECK_ALIGNED) ? h
                                                                                        : NULL;
}

/* free of anything but the usual block: an over-aligned one, or a pointer from elsewhere. */
static __attribute__((noinline, cold)) void free_other(void *p)
{
    hdr *h = ours(p);
    if (!h) {
        if (!resolved)
            resolve();
        real_free(p);
        return;
    }
    uint64_t meta = h->meta;
    size_t off = meta_offset(meta);
    h->tail = 0;
    if (meta & NM_LIBC_BIT)
        __libc_free((char *)p - off);
    else
        real_free((char *)p - off);
}

/* malloc and calloc of more than NM_SIZE_MASK bytes (16 TiB), out of the hooks' way: the
 * size is recorded as NM_SIZE_MASK, and past SIZE_MAX / 2 the call fails. Reached by a tail
 * call, so its return address is still the program's. */
static __attribute__((noinline, cold)) void *huge_block(size_t n, int zero)
{
    if (n > SIZE_MAX / 2) {
        errno = ENOMEM;
        return NULL;
    }
    char *b = zero ? real_calloc(1, n + NM_HDR) : real_malloc(n + NM_HDR); /* n is huge */
    if (!b)
        return NULL;
    return TRACK_TAIL(b + NM_HDR, NM_HDR_LOG, NM_SIZE_MASK);
}

NM_API void *malloc(size_t n)
{
    if (__builtin_expect(n > NM_SIZE_MASK, 0))
        return huge_block(n, 0);
    char *b = real_malloc(nm_ask(n, NM_HDR));
    if (__builtin_expect(!b, 0))
        return NULL;
    return TRACK_TAIL(b + NM_HDR, NM_HDR_LOG, n);
}

NM_API void *calloc(size_t n, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(n, size, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    if (__builtin_expect(total > NM_SIZE_MASK, 0))
        return huge_block(total, 1);
    char *b = real_calloc(1, nm_ask(total, NM_HDR));
    if (!b)
        return NULL;
    return TRACK_TAIL(b + NM_HDR, NM_HDR_LOG, total);
}

/* errno: glibc's free keeps it (since 2.33), and nothing here sets it. */
NM_API void free(void *p)
{
    if (__builtin_expect(!p, 0))
        return;
    hdr *h = hdr_of(p);
    /* A page-aligned pointer may have nothing mapped before it: free_other checks first. */
    if (__builtin_expect(((uintptr_t)p & 4095) && h->check == hdr_check((uintptr_t)p), 1)) {
        /* A second free of p is libc's to catch, on its own pointer. The check word alone
         * says the offset is NM_HDR: libc's work on the chunk waits for no load of ours. */
        h->tail = 0;
        real_free((char *)p - NM_HDR);
        return;
    }
    free_other(p);
}

NM_API void cfree(void *p)
{
    free(p);
}

/* Whether a block of header meta was smaller than the sample size (never traced for its
 * size alone). */
static inline int had_small(uint64_t meta)
{
    return (meta & NM_SIZE_MASK) < nm_cfg.sample_bytes;
}

NM_API void *realloc(void *p, size_t n)
{
    if (!p)
        return malloc(n);
    if (n == 0) {
        free(p);
        return NULL;
    }
    hdr *h = ours(p);
    if (!h)
        return real_realloc(p, n);
    if (n > SIZE_MAX / 2) {
        errno = ENOMEM;
        return NULL;
    }
    uint64_t meta = h->meta;
    if (meta_offset(meta) != NM_HDR || (meta & NM_LIBC_BIT)) {
        /* Over-aligned (libc would not keep the alignment), or made while the allocator was
         * being found (another allocator's block): a new block and a copy. */
        size_t have = meta & NM_LIBC_BIT ? (size_t)(meta & NM_SIZE_MASK)
                                         : libc_usable((char *)p - meta_offset(meta),
                                                       (meta & NM_SIZE_MASK) +
                                                           meta_offset(meta)) -
                                               meta_offset(meta);
        void *q = malloc(n);
        if (!q)
            return NULL;
        memcpy(q, p, have < n ? have : n);
        free(p);
        return q;
    }
    /* Sampled (--sample): a block whose first size was not traced and that grows to the
     * sample size takes this realloc's backtrace, as a block made that large at once does.
     * A buffer grown from 64 bytes to 1 MiB was a leak with no backtrace. */
    uint32_t grown = 0;
    if (nm_cfg.sample_bytes && n >= nm_cfg.sample_bytes && had_small(meta) && !h->trace &&
        !t_guard && nm_cfg.bt_mode != NM_BT_NONE)
        grown = trace_block(n, (const uintptr_t *)__builtin_frame_address(0),
                            (uintptr_t)__builtin_return_address(0));
    /* libc may move the block and free the old chunk: the check word is cleared first (no
     * valid header may stay in freed memory) and set again at the new place; the gate keeps
     * a scan from seeing the block in between. */
    gate *g = gate_enter();
    uint32_t trace = h->trace ? h->trace : grown;
    size_t had = (size_t)(meta & NM_SIZE_MASK);
    h->tail = 0;
    char *b = real_realloc((char *)p - NM_HDR, nm_ask(n, NM_HDR));
    hdr *nh = b ? (hdr *)b : h;
    if (b) {
        uint64_t sz = n > NM_SIZE_MASK ? NM_SIZE_MASK : n;
        nh->meta = (nh->meta & ~NM_SIZE_MASK) | sz;
        zero_span(b, b + NM_HDR, had, n); /* grown into recycled memory, in place or moved */
    }
    __asm__ __volatile__("" ::: "memory");
    nh->tail = hdr_tail(trace, hdr_check((uintptr_t)nh + NM_HDR));
    gate_leave(g);
    return b ? b + NM_HDR : NULL;
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

/* Alignments up to 16 come from malloc (its blocks are 16-aligned, the header 16 bytes);
 * larger ones put the block `align` bytes into an aligned allocation, the header just
 * below it. */
__attribute__((always_inline)) static inline void *aligned_block(size_t align, size_t n)
{
    /* An alignment that is no power of two is rounded up, as glibc's memalign does. */
    if (n > SIZE_MAX / 4 || align > SIZE_MAX / 4) {
        errno = ENOMEM;
        return NULL;
    }
    int lg = NM_HDR_LOG;
    while (((size_t)1 << lg) < align)
        lg++;
    size_t off = (size_t)1 << lg;
    if (__builtin_expect(lg != NM_HDR_LOG && !real_memalign, 0)) {
        errno = ENOMEM; /* an allocator with no aligned allocation of its own */
        return NULL;
    }
    size_t ask = nm_ask(n, off);
    char *b = lg == NM_HDR_LOG ? real_malloc(ask) : real_memalign(off, ask);
    if (!b)
        return NULL;
    if (lg != NM_HDR_LOG)
        zero_span(b, b + off, 0, n);
    return TRACK(b + off, lg, n > NM_SIZE_MASK ? NM_SIZE_MASK : n);
}

NM_API void *memalign(size_t align, size_t n)
{
    return aligned_block(align, n);
}

NM_API void *aligned_alloc(size_t align, size_t n)
{
    return aligned_block(align, n);
}

NM_API int posix_memalign(void **out, size_t align, size_t n)
{
    if (align < sizeof(void *) || (align & (align - 1)))
        return EINVAL;
    int e = errno;
    void *p = aligned_block(align, n);
    if (!p) {
        errno = e;
        return ENOMEM;
    }
    *out = p;
    return 0;
}

NM_API void *valloc(size_t n)
{
    return aligned_block((size_t)sysconf(_SC_PAGESIZE), n);
}

NM_API void *pvalloc(size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (n > SIZE_MAX / 4) {
        errno = ENOMEM;
        return NULL;
    }
    return aligned_block(page, n ? (n + page - 1) & ~(page - 1) : page);
}

NM_API size_t malloc_usable_size(void *p)
{
    if (!p)
        return 0;
    hdr *h = ours(p);
    if (!h)
        return libc_usable(p, 0);
    /* The recorded size, as LeakSanitizer and valgrind answer: the scan reads that many
     * bytes, and a pointer kept past them (a buffer that sizes its capacity by this call)
     * would go unseen and its target read as leaked. */
    uint64_t meta = h->meta;
    size_t off = meta_offset(meta);
    if ((meta & NM_SIZE_MASK) != NM_SIZE_MASK || (meta & NM_LIBC_BIT))
        return (size_t)(meta & NM_SIZE_MASK);
    return libc_usable((char *)p - off, (meta & NM_SIZE_MASK) + off) - off; /* huge */
}

/* ---- operator new/delete and the allocators' own calls ----
 * jemalloc, tcmalloc and mimalloc define operator new and delete themselves, without going
 * through malloc, and have calls of their own that take a pointer (sdallocx, tc_free,
 * mi_free, malloc_size...). The monitor defines them all: while the hooks forward to such an
 * allocator, new makes a tracked block like malloc and every call given a block the hooks
 * made treats it as theirs (a block is 16 bytes into what the allocator returned: its own
 * free would get a pointer it never made). Any other pointer, and every call while the
 * program's allocator is glibc (libstdc++'s new calls malloc), goes to the next definition
 * unchanged, by a tail call, so backtraces and costs stay those of malloc. The variants are
 * declared with the most arguments any of them takes: on x86-64 the extra registers are
 * passed on untouched and ignored by the callee. */

enum {
    NX_NW, NX_NA, NX_NW_NT, NX_NA_NT, NX_NW_AL, NX_NA_AL, NX_NW_AL_NT, NX_NA_AL_NT,
    NX_DL, NX_DA, NX_DL_S, NX_DA_S, NX_DL_NT, NX_DA_NT, NX_DL_AL, NX_DA_AL, NX_DL_S_AL,
    NX_DA_S_AL, NX_DL_AL_NT, NX_DA_AL_NT,
    NX_MALLOCX, NX_RALLOCX, NX_XALLOCX, NX_SALLOCX, NX_DALLOCX, NX_SDALLOCX,
    NX_MALLOC_SIZE, NX_REALLOCF, NX_TC_FREE, NX_TC_FREE_SIZED, NX_TC_CFREE, NX_TC_REALLOC,
    NX_TC_MALLOC_SIZE, NX_TC_DELETE, NX_TC_DELETE_SIZED, NX_TC_DELETE_NT, NX_TC_DELETEARRAY,
    NX_TC_DELETEARRAY_SIZED, NX_TC_DELETEARRAY_NT, NX_MI_FREE, NX_MI_FREE_SIZE,
    NX_MI_FREE_ALIGNED, NX_MI_FREE_SIZE_ALIGNED, NX_MI_REALLOC, NX_MI_REALLOCF,
    NX_MI_USABLE_SIZE, NX_MI_EXPAND,
    NX_N
};

static const char *const nx_names[NX_N] = {
    "_Znwm", "_Znam", "_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t", "_ZnwmSt11align_val_t",
    "_ZnamSt11align_val_t", "_ZnwmSt11align_val_tRKSt9nothrow_t",
    "_ZnamSt11align_val_tRKSt9nothrow_t",
    "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm", "_ZdlPvRKSt9nothrow_t", "_ZdaPvRKSt9nothrow_t",
    "_ZdlPvSt11align_val_t", "_ZdaPvSt11align_val_t", "_ZdlPvmSt11align_val_t",
    "_ZdaPvmSt11align_val_t", "_ZdlPvSt11align_val_tRKSt9nothrow_t",
    "_ZdaPvSt11align_val_tRKSt9nothrow_t",
    "mallocx", "rallocx", "xallocx", "sallocx", "dallocx", "sdallocx",
    "malloc_size", "reallocf", "tc_free", "tc_free_sized", "tc_cfree", "tc_realloc",
    "tc_malloc_size", "tc_delete", "tc_delete_sized", "tc_delete_nothrow", "tc_deletearray",
    "tc_deletearray_sized", "tc_deletearray_nothrow", "mi_free", "mi_free_size",
    "mi_free_aligned", "mi_free_size_aligned", "mi_realloc", "mi_reallocf",
    "mi_usable_size", "mi_expand",
};

static void *nx[NX_N];
/* The allocator's text: its own objects (tcmalloc's MallocExtension, made once and dropped by
 * design) come from its own new and are its state, not the program's blocks. */
static uintptr_t alloc_text_lo, alloc_text_span;

static void text_of(const void *base, uintptr_t *lo, uintptr_t *span)
{
    Dl_info di;
    const ElfW(Ehdr) *eh = base;
    if (!base || memcmp(eh->e_ident, ELFMAG, SELFMAG) || !dladdr(base, &di))
        return;
    /* dladdr's base is where the first segment is mapped; segments are relative to the
     * load bias, which is that base for libraries linked at 0. */
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((uintptr_t)base + eh->e_phoff);
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
            *lo = (uintptr_t)base + ph[i].p_vaddr;
            *span = ph[i].p_memsz;
        }
}
/* 0 until resolved; NEW_PASS: new goes to the next definition (libstdc++'s calls malloc);
 * NEW_TRACK: the allocator's own new is bypassed, new makes a block like malloc. */
enum { NEW_PASS = 1, NEW_TRACK = 2 };
static int new_mode;

/* A definition of a symbol in an object loaded without RTLD_GLOBAL, which RTLD_NEXT does not
 * see: a C program (CPython, a plugin host) that dlopens a C++ library brings libstdc++ in a
 * local scope, and the library's operator new binds to the monitor's, the first global one. */
struct local_find {
    const char *sym;
    const void *self; /* the monitor's base: its own definitions are not the next ones */
    void *found;
};

static int local_find_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct local_find *lf = arg;
    if (!info->dlpi_name || !info->dlpi_name[0])
        return 0;
    void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return 0;
    void *f = dlsym(h, lf->sym); /* the object's own scope: it and what it depends on */
    dlclose(h);
    if (f && object_base(f) != lf->self) {
        lf->found = f;
        return 1;
    }
    return 0;
}

/* What a hook calls when no object defines its next one, not even in a local scope: the
 * C++ runtime's behaviour on malloc's blocks (no new_handler; out of memory ends the
 * program, where bad_alloc cannot be thrown from C). */
static void *fb_new(size_t n, size_t nt)
{
    (void)nt;
    void *p = malloc(n ? n : 1);
    if (!p) {
        static const char m[] = "leakray native: operator new: out of memory\n";
        ssize_t w = write(2, m, sizeof m - 1);
        (void)w;
        abort();
    }
    return p;
}
static void *fb_new_nothrow(size_t n, size_t nt)
{
    (void)nt;
    return malloc(n ? n : 1);
}
static void *fb_new_aligned(size_t n, size_t align, size_t nt)
{
    (void)nt;
    return aligned_block(align, n ? n : 1);
}
static void fb_delete(void *p, size_t a, size_t b)
{
    (void)a;
    (void)b;
    free(p);
}

static __attribute__((noinline, cold)) void *next_lookup(int i)
{
    int g = nm_guard_set(1);
    void *f = dlsym(RTLD_NEXT, nx_names[i]);
    if (!f) {
        struct local_find lf = {nx_names[i], object_base((const void *)next_lookup), NULL};
        dl_iterate_phdr(local_find_cb, &lf);
        f = lf.found;
    }
    nm_guard_set(g);
    if (f) {
        /* the C++ runtime over glibc's heap, loaded since new_resolve found none: the hooks
         * make new's blocks from now on, as new_resolve would have had it (its own new
         * loses the frame of new's caller from the stack) */
        char rt[64];
        if (i <= NX_NA_AL_NT && !foreign &&
            __atomic_load_n(&new_mode, __ATOMIC_ACQUIRE) == NEW_PASS) {
            object_name(f, rt, sizeof rt);
            if (!strncmp(rt, "libstdc++", 9) || !strncmp(rt, "libc++", 6))
                __atomic_store_n(&new_mode, NEW_TRACK, __ATOMIC_RELEASE);
        }
        __atomic_store_n(&nx[i], f, __ATOMIC_RELAXED);
        return f;
    }
    /* not kept: the runtime may be loaded later, and then its own is the one to call */
    if (i == NX_NW || i == NX_NA)
        return (void *)fb_new;
    if (i == NX_NW_NT || i == NX_NA_NT)
        return (void *)fb_new_nothrow;
    if (i >= NX_NW_AL && i <= NX_NA_AL_NT)
        return (void *)fb_new_aligned;
    if (i >= NX_DL && i <= NX_DA_AL_NT)
        return (void *)fb_delete;
    return NULL;
}

/* The next definition of nx_names[i]; looked up again while missing (libstdc++ may be
 * dlopen'ed after the first call). */
static inline void *next_fn(int i)
{
    void *f = __atomic_load_n(&nx[i], __ATOMIC_RELAXED);
    return __builtin_expect(f != NULL, 1) ? f : next_lookup(i);
}

static void new_resolve(const void *alloc_base)
{
    for (int i = 0; i < NX_N; i++)
        nx[i] = dlsym(RTLD_NEXT, nx_names[i]);
    int track = alloc_base && nx[NX_NW] && object_base(nx[NX_NW]) == alloc_base;
    if (track)
        text_of(alloc_base, &alloc_text_lo, &alloc_text_span);
    /* glibc's heap: the C++ runtime's operator new calls malloc from a frame it never sets
     * up, so a walk of frame pointers from malloc skipped the function that called new. The
     * hooks make its block themselves (glibc's malloc and a header, as malloc's hook does;
     * the runtime's delete hands it to free) and record the new's own call site; a failed
     * malloc still goes to the runtime's new (its new_handler loop, bad_alloc). */
    if (!alloc_base && nx[NX_NW]) {
        char rt[64];
        object_name(nx[NX_NW], rt, sizeof rt);
        track = !strncmp(rt, "libstdc++", 9) || !strncmp(rt, "libc++", 6);
    }
    if (!track && nx[NX_NW]) {
        char who[64];
        object_name(nx[NX_NW], who, sizeof who);
        if (strncmp(who, "libstdc++", 9) && strncmp(who, "libc++", 6) &&
            strcmp(who, alloc_info.name)) {
            note_add3("operator new comes from ", who,
                      ": its blocks are tracked only if it calls malloc");
        }
    }
    void *first_new = dlsym(RTLD_DEFAULT, "_Znwm");
    if (alloc_info.tracked && first_new &&
        object_base(first_new) != object_base((const void *)nm_allocator) &&
        !plt_entry(first_new)) {
        char who[64];
        object_name(first_new, who, sizeof who);
        note_add3("operator new of ", who, " is found before the monitor's: its blocks are "
                  "tracked only if it calls malloc");
    }
    if (alloc_base && dlsym(RTLD_NEXT, "tc_malloc"))
        note_add("tc_malloc, tc_new and tcmalloc's other allocation calls are not tracked");
    if (alloc_base && dlsym(RTLD_NEXT, "mi_malloc"))
        note_add("mi_malloc and mimalloc's other allocation calls are not tracked");
    __atomic_store_n(&new_mode, track ? NEW_TRACK : NEW_PASS, __ATOMIC_RELEASE);
}

static inline int new_tracked(void)
{
    int m = __atomic_load_n(&new_mode, __ATOMIC_ACQUIRE);
    if (__builtin_expect(!m, 0)) {
        resolve();
        m = new_mode;
    }
    return m == NEW_TRACK;
}

typedef void *(*new_fn)(size_t, size_t);
typedef void (*del_fn)(void *, size_t, size_t);

/* operator new(size[, nothrow]): malloc's block; when the allocator has none, its own new
 * (the new_handler loop, bad_alloc or NULL), whose block delete passes on untouched. */
#define NM_NEW(sym, id)                                                                     \
    NM_API void *sym(size_t n, size_t nt)                                                   \
    {                                                                                       \
        if (!new_tracked() || __builtin_expect(n > NM_SIZE_MASK, 0) ||                      \
            (uintptr_t)__builtin_return_address(0) - alloc_text_lo < alloc_text_span)       \
            return ((new_fn)next_fn(id))(n, nt);                                            \
        char *b = real_malloc(nm_ask(n, NM_HDR));                                           \
        if (__builtin_expect(!b, 0))                                                        \
            return ((new_fn)next_fn(id))(n, nt);                                            \
        return TRACK_TAIL(b + NM_HDR, NM_HDR_LOG, n);                                       \
    }
NM_NEW(_Znwm, NX_NW)
NM_NEW(_Znam, NX_NA)
NM_NEW(_ZnwmRKSt9nothrow_t, NX_NW_NT)
NM_NEW(_ZnamRKSt9nothrow_t, NX_NA_NT)

/* operator new(size, align_val_t[, nothrow]). */
#define NM_NEW_ALIGNED(sym, id)                                                             \
    NM_API void *sym(size_t n, size_t align, size_t nt)                                     \
    {                                                                                       \
        if (!new_tracked() ||                                                               \
            (uintptr_t)__builtin_return_address(0) - alloc_text_lo < alloc_text_span)       \
            return ((void *(*)(size_t, size_t, size_t))next_fn(id))(n, align, nt);          \
        int e = errno;                                                                      \
        void *p = aligned_block(align, n);                                                  \
        if (__builtin_expect(!p, 0)) {                                                      \
            errno = e;                                                                      \
            return ((void *(*)(size_t, size_t, size_t))next_fn(id))(n, align, nt);          \
        }                                                                                   \
        return p;                                                                           \
    }
NM_NEW_ALIGNED(_ZnwmSt11align_val_t, NX_NW_AL)
NM_NEW_ALIGNED(_ZnamSt11align_val_t, NX_NA_AL)
NM_NEW_ALIGNED(_ZnwmSt11align_val_tRKSt9nothrow_t, NX_NW_AL_NT)
NM_NEW_ALIGNED(_ZnamSt11align_val_tRKSt9nothrow_t, NX_NA_AL_NT)

/* Every delete, and the allocators' own frees: the hooks' block goes to free, anything else
 * to the next definition with its arguments. In glibc mode no block the hooks made reaches
 * here but through libstdc++'s delete, which calls free. */
#define NM_FREE_LIKE(sym, id)                                                               \
    NM_API void sym(void *p, size_t a, size_t b)                                            \
    {                                                                                       \
        if (p && foreign && ours(p)) {                                                      \
            free(p);                                                                        \
            return;                                                                         \
        }                                                                                   \
        ((del_fn)next_fn(id))(p, a, b);                                                     \
    }
NM_FREE_LIKE(_ZdlPv, NX_DL)
NM_FREE_LIKE(_ZdaPv, NX_DA)
NM_FREE_LIKE(_ZdlPvm, NX_DL_S)
NM_FREE_LIKE(_ZdaPvm, NX_DA_S)
NM_FREE_LIKE(_ZdlPvRKSt9nothrow_t, NX_DL_NT)
NM_FREE_LIKE(_ZdaPvRKSt9nothrow_t, NX_DA_NT)
NM_FREE_LIKE(_ZdlPvSt11align_val_t, NX_DL_AL)
NM_FREE_LIKE(_ZdaPvSt11align_val_t, NX_DA_AL)
NM_FREE_LIKE(_ZdlPvmSt11align_val_t, NX_DL_S_AL)
NM_FREE_LIKE(_ZdaPvmSt11align_val_t, NX_DA_S_AL)
NM_FREE_LIKE(_ZdlPvSt11align_val_tRKSt9nothrow_t, NX_DL_AL_NT)
NM_FREE_LIKE(_ZdaPvSt11align_val_tRKSt9nothrow_t, NX_DA_AL_NT)
NM_FREE_LIKE(dallocx, NX_DALLOCX)
NM_FREE_LIKE(sdallocx, NX_SDALLOCX)
NM_FREE_LIKE(tc_free, NX_TC_FREE)
NM_FREE_LIKE(tc_free_sized, NX_TC_FREE_SIZED)
NM_FREE_LIKE(tc_cfree, NX_TC_CFREE)
NM_FREE_LIKE(tc_delete, NX_TC_DELETE)
NM_FREE_LIKE(tc_delete_sized, NX_TC_DELETE_SIZED)
NM_FREE_LIKE(tc_delete_nothrow, NX_TC_DELETE_NT)
NM_FREE_LIKE(tc_deletearray, NX_TC_DELETEARRAY)
NM_FREE_LIKE(tc_deletearray_sized, NX_TC_DELETEARRAY_SIZED)
NM_FREE_LIKE(tc_deletearray_nothrow, NX_TC_DELETEARRAY_NT)
NM_FREE_LIKE(mi_free, NX_MI_FREE)
NM_FREE_LIKE(mi_free_size, NX_MI_FREE_SIZE)
NM_FREE_LIKE(mi_free_aligned, NX_MI_FREE_ALIGNED)
NM_FREE_LIKE(mi_free_size_aligned, NX_MI_FREE_SIZE_ALIGNED)

/* The usable size of a block: malloc_usable_size's answer for the hooks' blocks. */
#define NM_SIZE_LIKE(sym, id)                                                               \
    NM_API size_t sym(void *p, size_t a)                                                    \
    {                                                                                       \
        if (p && foreign && ours(p))                                                        \
            return malloc_usable_size(p);                                                   \
        return ((size_t (*)(void *, size_t))next_fn(id))(p, a);                             \
    }
NM_SIZE_LIKE(sallocx, NX_SALLOCX)
NM_SIZE_LIKE(malloc_size, NX_MALLOC_SIZE)
NM_SIZE_LIKE(tc_malloc_size, NX_TC_MALLOC_SIZE)
NM_SIZE_LIKE(mi_usable_size, NX_MI_USABLE_SIZE)

/* realloc under another name: the hooks' realloc for their blocks (the allocator's own
 * realloc underneath). reallocf frees the block when it fails. */
#define NM_REALLOC_LIKE(sym, id, frees)                                                     \
    NM_API void *sym(void *p, size_t n)                                                     \
    {                                                                                       \
        if (!(p && foreign && ours(p)))                                                     \
            return ((void *(*)(void *, size_t))next_fn(id))(p, n);                         \
        void *q = realloc(p, n);                                                            \
        if (!q && n && (frees))                                                             \
            free(p);                                                                        \
        return q;                                                                           \
    }
NM_REALLOC_LIKE(tc_realloc, NX_TC_REALLOC, 0)
NM_REALLOC_LIKE(mi_realloc, NX_MI_REALLOC, 0)
NM_REALLOC_LIKE(reallocf, NX_REALLOCF, 1)
NM_REALLOC_LIKE(mi_reallocf, NX_MI_REALLOCF, 1)

/* mi_expand: grows in place or fails; the hooks' block grows within its usable size. */
NM_API void *mi_expand(void *p, size_t n)
{
    if (!(p && foreign && ours(p)))
        return ((void *(*)(void *, size_t))next_fn(NX_MI_EXPAND))(p, n);
    return n <= malloc_usable_size(p) ? p : NULL;
}

/* jemalloc's mallocx: the block is tracked like malloc's, the flags (alignment, zeroing,
 * tcache, arena) kept; the alignment rises to the header's 16 bytes at least. */
#define NM_MALLOCX_LG_ALIGN_MASK 0x3f
#define NM_MALLOCX_ZERO 0x40
NM_API void *mallocx(size_t n, int flags)
{
    void *(*next)(size_t, int) = (void *(*)(size_t, int))next_fn(NX_MALLOCX);
    if (!foreign || !next || n > NM_SIZE_MASK)
        return next ? next(n, flags) : NULL;
    int lg = flags & NM_MALLOCX_LG_ALIGN_MASK;
    if (lg < NM_HDR_LOG)
        lg = NM_HDR_LOG;
    size_t off = (size_t)1 << lg;
    if (n > SIZE_MAX / 4 || lg > 40)
        return NULL;
    int fl = (flags & ~NM_MALLOCX_LG_ALIGN_MASK) | (lg > NM_HDR_LOG ? lg : 0);
    char *b = next(n + off, fl);
    if (!b)
        return NULL;
    if (!(flags & NM_MALLOCX_ZERO))
        zero_span(b, b + off, 0, n);
    return TRACK(b + off, lg, n);
}

/* rallocx: a new block with the same flags and a copy (jemalloc may move a block anyway). */
NM_API void *rallocx(void *p, size_t n, int flags)
{
    if (!(p && foreign && ours(p)))
        return ((void *(*)(void *, size_t, int))next_fn(NX_RALLOCX))(p, n, flags);
    void *q = mallocx(n, flags);
    if (!q)
        return NULL;
    size_t have = malloc_usable_size(p);
    memcpy(q, p, have < n ? have : n);
    free(p);
    return q;
}

/* xallocx: resizes in place or not at all; the hooks' block stays as it is. */
NM_API size_t xallocx(void *p, size_t n, size_t extra, int flags)
{
    if (!(p && foreign && ours(p)))
        return ((size_t (*)(void *, size_t, size_t, int))next_fn(NX_XALLOCX))(p, n, extra,
                                                                             flags);
    return malloc_usable_size(p);
}
