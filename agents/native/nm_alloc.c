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

/* Each frame is multiplied on its own (the products pipeline; a chained hash waits for each
 * step) and rotated by its position, so order counts; one final mix. Entries are compared
 * frame by frame anyway: the hash only picks buckets. */
static uint64_t hash_frames(const uintptr_t *f, int n)
{
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)n;
    for (int i = 0; i < n; i++) {
        uint64_t x = (f[i] ^ 0x9E3779B97F4A7C15ull) * 0xff51afd7ed558ccdull;
        h += x << (i & 31) | x >> (64 - (i & 31)) % 64;
    }
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 29;
    return h;
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
    /* The thread's recent traces first: a hit reads one entry this thread touched lately
     * instead of the shared bucket array. */
    uint32_t *slot = &t_trace_cache[h & (NM_TRACE_CACHE - 1)];
    if (*slot) {
        const uint64_t *e = depot_pool + *slot;
        if (e[0] == h && (int)(e[1] >> 32) == n && frames_equal(e + 2, f, n))
            return *slot;
    }
    uint32_t id = depot_find_or_add(f, n, h);
    *slot = id;
    return id;
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

/* ---- Live blocks: a list per thread, written by that thread alone ---- */

/* Every block the hooks return has a 32-byte header in front of it holding its record (size,
 * backtrace id, flags) and its links in the list of the thread that allocated it. A thread
 * links and unlinks its own blocks with plain loads and stores: no lock, no atomic
 * read-modify-write and no hash table on the allocation path. A free on another thread
 * cannot touch the owner's list: it queues the block there (under that list's queue lock,
 * the only locked path) and the owner unlinks and frees it at its next call, so an address
 * is never reused while a list still holds it. Lists of threads that ended become "locked":
 * everyone changes them under the lock, and a new thread may adopt one. Whoever needs every
 * list consistent (a scan, the program's fork) freezes them: it raises g_freeze, makes every
 * running thread see it (membarrier: an owner's store to its busy flag and its load of
 * g_freeze then need no fence of their own), waits until no owner is inside an update, and
 * takes every queue lock. Links are stored bit-inverted, so no header word is ever a pointer
 * into the heap for the scan. */

/* The header. meta: size (44 bits) | owner (13) | NM_E_LDSO (1) | log2 of the offset from
 * what libc returned to the block (6). check: derived from the block's address and a
 * per-process secret, top bit set; it sits where libc keeps a chunk's size for a pointer
 * that did not come from these hooks (high half zero), which is then passed to libc as is. */
typedef struct hdr {
    uint64_t next;  /* ~(next header in the list); ~0 = none */
    uint64_t prev;  /* ~(previous header); ~0 = none (the list head) */
    uint64_t meta;
    uint32_t trace; /* depot id, 0 = not traced */
    uint32_t check;
} hdr;
#define NM_HDR ((size_t)sizeof(hdr))
#define NM_SIZE_BITS 44
#define NM_SIZE_MASK ((1ull << NM_SIZE_BITS) - 1)
#define NM_OWNER_SHIFT NM_SIZE_BITS
#define NM_MAX_TABLES 4096u
#define NM_NO_OWNER 8191u /* 13 bits: a block the monitor does not record */
#define NM_LDSO_BIT (1ull << 57)
#define NM_OFF_SHIFT 58

static inline uint32_t meta_owner(uint64_t m)
{
    return (uint32_t)(m >> NM_OWNER_SHIFT) & 8191u;
}

static inline size_t meta_offset(uint64_t m)
{
    return (size_t)1 << (m >> NM_OFF_SHIFT);
}

enum { TAB_OWNED, TAB_LOCKED };

typedef struct table {
    /* The owner's cache line. */
    volatile int busy; /* the owner is inside an update (written by the owner only) */
    int mode;          /* TAB_OWNED or TAB_LOCKED (changed under qlock) */
    uint32_t idx;      /* index in tabs[] (what block headers hold) */
    pid_t tid;         /* owner thread (0: none, the list is adoptable when locked) */
    uint64_t n;        /* blocks in the list */
    hdr *head;
    char pad1[64 - 4 * sizeof(int) - sizeof(uint64_t) - sizeof(hdr *)];
    /* Other threads' cache line: their frees of the owner's blocks wait here. */
    spin qlock;        /* guards the queue, and the list when TAB_LOCKED */
    uint32_t q_n;      /* queued blocks (read by the owner without the lock) */
    uint32_t q_cap;
    uintptr_t *q;      /* nm_map'd, bit-inverted block addresses */
    char pad2[64 - sizeof(spin) - 2 * sizeof(uint32_t) - sizeof(uintptr_t *)];
} table;

static table *tabs[NM_MAX_TABLES]; /* tabs[0]: shared, TAB_LOCKED, for when tabs[] is full */
static table shared_tab = {.mode = TAB_LOCKED};
static table *tab_pool; /* NM_MAX_TABLES tables, one mapping, pages touched as used */
static uint32_t n_tabs = 1;
static spin tabs_lock;
static volatile int g_freeze;
static int membarrier_ok;
static uint32_t hdr_secret;
static __thread table *t_tab NM_TLS;

static inline uint32_t hdr_check(const void *p)
{
    uint64_t x = ((uint64_t)(uintptr_t)p ^ hdr_secret) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(x >> 32) | 0x80000000u;
}

static inline hdr *hdr_of(void *p)
{
    return (hdr *)((char *)p - NM_HDR);
}

#define LINK(h) (~(uint64_t)(uintptr_t)(h))
#define UNLINK(w) ((hdr *)(uintptr_t)~(w))

static inline void list_add(table *t, hdr *h)
{
    h->next = LINK(t->head);
    h->prev = LINK(NULL);
    if (t->head)
        t->head->prev = LINK(h);
    t->head = h;
    t->n++;
}

static inline void list_del(table *t, hdr *h)
{
    hdr *n = UNLINK(h->next), *p = UNLINK(h->prev);
    if (n)
        n->prev = h->prev;
    if (p)
        p->next = h->next;
    else
        t->head = n;
    t->n--;
}

/* Unlinks the queued blocks and, unless in the scanning child (where a stopped thread's
 * libc lock may be held forever), gives them back to libc. qlock held or frozen. */
static void queue_apply(table *t, int give_back)
{
    uint32_t n = t->q_n;
    for (uint32_t i = 0; i < n; i++) {
        void *p = (void *)~t->q[i];
        hdr *h = hdr_of(p);
        list_del(t, h);
        if (give_back) {
            size_t off = meta_offset(h->meta);
            h->check = 0;
            __libc_free((char *)p - off);
        }
    }
    __atomic_store_n(&t->q_n, 0, __ATOMIC_RELAXED);
}

/* 0 when the queue cannot grow (no memory): the caller then frees the block itself and the
 * list keeps a dangling entry, a lesser evil than failing the program's free. */
static int queue_push(table *t, void *p)
{
    if (t->q_n == t->q_cap) {
        uint32_t cap = t->q_cap ? t->q_cap * 2 : 512;
        uintptr_t *q = nm_map((size_t)cap * sizeof *q);
        if (!q)
            return 0;
        if (t->q_cap) {
            memcpy(q, t->q, (size_t)t->q_n * sizeof *q);
            nm_unmap(t->q, (size_t)t->q_cap * sizeof *q);
        }
        t->q = q;
        t->q_cap = cap;
    }
    t->q[t->q_n] = ~(uintptr_t)p;
    __atomic_store_n(&t->q_n, t->q_n + 1, __ATOMIC_RELEASE);
    return 1;
}

/* The calling thread's list: its own, an adopted one whose thread ended, or the shared one
 * when NM_MAX_TABLES are in use. */
static __attribute__((noinline)) table *tab_attach(void)
{
    spin_lock(&tabs_lock);
    table *t = NULL;
    for (uint32_t i = 1; i < n_tabs && !t; i++)
        if (tabs[i]->mode == TAB_LOCKED && !tabs[i]->tid)
            t = tabs[i];
    if (t) {
        spin_lock(&t->qlock);
        t->mode = TAB_OWNED;
        t->tid = (pid_t)syscall(SYS_gettid);
        spin_unlock(&t->qlock);
    } else if (n_tabs < NM_MAX_TABLES &&
               (tab_pool || (tab_pool = nm_map(sizeof(table) * NM_MAX_TABLES)))) {
        t = &tab_pool[n_tabs];
        t->idx = n_tabs;
        t->mode = TAB_OWNED;
        t->tid = (pid_t)syscall(SYS_gettid);
        __atomic_store_n(&tabs[n_tabs], t, __ATOMIC_RELEASE);
        __atomic_store_n(&n_tabs, n_tabs + 1, __ATOMIC_RELEASE);
    } else {
        t = &shared_tab;
    }
    spin_unlock(&tabs_lock);
    t_tab = t;
    return t;
}

static __attribute__((noinline)) void freeze_wait(void)
{
    while (__atomic_load_n(&g_freeze, __ATOMIC_ACQUIRE))
        sched_yield();
}

static __attribute__((noinline)) void tab_drain(table *t)
{
    if (!t_holding)
        spin_lock(&t->qlock);
    queue_apply(t, 1);
    if (!t_holding)
        spin_unlock(&t->qlock);
}

/* Starts an update of the calling thread's list. Owned: the busy flag, then a look at
 * g_freeze (a freezer that raised it waits for busy to drop), then the queue. Locked: its
 * queue lock. */
static inline table *tab_enter(void)
{
    table *t = t_tab;
    if (__builtin_expect(!t, 0))
        t = tab_attach();
    if (__builtin_expect(t->mode == TAB_LOCKED, 0)) {
        if (!t_holding)
            spin_lock(&t->qlock);
        return t;
    }
    for (;;) {
        t->busy = 1;
        __asm__ __volatile__("" ::: "memory");
        if (__builtin_expect(!g_freeze, 1) || t_holding)
            break;
        t->busy = 0;
        freeze_wait();
    }
    if (__builtin_expect(__atomic_load_n(&t->q_n, __ATOMIC_ACQUIRE) != 0, 0))
        tab_drain(t);
    return t;
}

static inline void tab_leave(table *t)
{
    if (__builtin_expect(t->mode == TAB_LOCKED, 0)) {
        if (!t_holding)
            spin_unlock(&t->qlock);
        return;
    }
    __asm__ __volatile__("" ::: "memory");
    t->busy = 0;
}

static inline table *tab_at(uint32_t idx)
{
    if (idx == 0)
        return &shared_tab;
    if (idx >= __atomic_load_n(&n_tabs, __ATOMIC_ACQUIRE))
        return NULL;
    return __atomic_load_n(&tabs[idx], __ATOMIC_ACQUIRE);
}

/* Unlinks block p (header h, owner in its meta) and gives it back to libc: at once when
 * the calling thread owns its list or the list is locked, else through the owner's queue. */
static void release(void *p, hdr *h)
{
    uint64_t meta = h->meta;
    uint32_t owner = meta_owner(meta);
    size_t off = meta_offset(meta);
    if (owner != NM_NO_OWNER) {
        table *me = tab_enter();
        if (owner == me->idx) {
            list_del(me, h);
        } else {
            table *o = tab_at(owner);
            int queued = 0;
            if (o) {
                if (!t_holding)
                    spin_lock(&o->qlock);
                if (o->mode == TAB_LOCKED)
                    list_del(o, h);
                else
                    queued = queue_push(o, p);
                if (!t_holding)
                    spin_unlock(&o->qlock);
            }
            if (queued) {
                tab_leave(me);
                return;
            }
        }
        tab_leave(me);
    }
    h->check = 0; /* a second free of p is libc's to catch, on its own pointer */
    __libc_free((char *)p - off);
}

/* The calling thread ends: its list stays (its blocks live on) for others to change under
 * the lock and for a new thread to adopt. */
void nm_alloc_thread_exit(void)
{
    table *t = t_tab;
    if (!t || t == &shared_tab)
        return;
    spin_lock(&tabs_lock);
    spin_lock(&t->qlock);
    queue_apply(t, 1);
    t->mode = TAB_LOCKED;
    t->tid = 0;
    spin_unlock(&t->qlock);
    spin_unlock(&tabs_lock);
    /* What this thread frees from now on (TLS destructors) is another thread's free. */
    t_tab = &shared_tab;
}

void nm_tables_lock(void)
{
    spin_lock(&tabs_lock);
    spin_lock(&depot_lock);
    __atomic_store_n(&g_freeze, 1, __ATOMIC_SEQ_CST);
    /* Every thread running now executes a full barrier: an owner that read g_freeze as 0
     * has its busy flag visible here, and every later look sees the freeze. */
    if (!membarrier_ok || syscall(SYS_membarrier, 1 << 3 /* PRIVATE_EXPEDITED */, 0, 0) != 0) {
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    uint32_t n = n_tabs;
    table *mine = t_tab;
    for (uint32_t i = 1; i < n; i++) {
        /* An owner stopped inside an update (a debugger's stop) is waited for 2 s at most. */
        for (int k = 0; tabs[i] != mine && tabs[i]->busy && k < 20000; k++)
            if (k > 100) {
                struct timespec ts = {0, 100000};
                nanosleep(&ts, NULL);
            } else {
                sched_yield();
            }
    }
    spin_lock(&shared_tab.qlock);
    for (uint32_t i = 1; i < n; i++)
        spin_lock(&tabs[i]->qlock);
    t_holding = 1;
}

void nm_tables_unlock(void)
{
    t_holding = 0;
    uint32_t n = n_tabs;
    for (uint32_t i = 1; i < n; i++)
        spin_unlock(&tabs[i]->qlock);
    spin_unlock(&shared_tab.qlock);
    __atomic_store_n(&g_freeze, 0, __ATOMIC_RELEASE);
    spin_unlock(&depot_lock);
    spin_unlock(&tabs_lock);
}

void nm_tables_reinit_child(void)
{
    pid_t self = (pid_t)syscall(SYS_gettid);
    t_holding = 0;
    g_freeze = 0;
    tabs_lock.v = 0;
    depot_lock.v = 0;
    own_lock.v = 0;
    shared_tab.qlock.v = 0;
    for (uint32_t i = 1; i < n_tabs; i++) {
        table *t = tabs[i];
        t->qlock.v = 0;
        t->busy = 0;
        queue_apply(t, 1); /* glibc's fork left its malloc usable in the child */
        /* The other threads do not exist here: their lists become adoptable. */
        if (t != t_tab) {
            t->mode = TAB_LOCKED;
            t->tid = 0;
        } else {
            t->tid = self;
        }
    }
}

static void each_table(table *t, void (*fn)(uintptr_t, uint64_t, uint32_t, uint32_t, void *),
                       void *arg)
{
    queue_apply(t, 0);
    for (hdr *h = t->head; h; h = UNLINK(h->next))
        fn((uintptr_t)h + NM_HDR, h->meta & NM_SIZE_MASK, h->trace,
           h->meta & NM_LDSO_BIT ? NM_E_LDSO : 0, arg);
}

/* In the scanning child only: queued frees are unlinked first (and not given back). */
void nm_tables_each(void (*fn)(uintptr_t, uint64_t, uint32_t, uint32_t, void *), void *arg)
{
    each_table(&shared_tab, fn, arg);
    for (uint32_t i = 1; i < n_tabs; i++)
        each_table(tabs[i], fn, arg);
}

uint64_t nm_tables_count(void)
{
    uint64_t n = shared_tab.n;
    for (uint32_t i = 1; i < n_tabs; i++)
        n += tabs[i]->n;
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

/* Records block p (header already written by the hook, owner none) in the calling thread's
 * list. */
__attribute__((noinline)) static void record(void *p, uintptr_t ret)
{
    hdr *h = hdr_of(p);
    uint64_t flags = caller_flags(ret) ? NM_LDSO_BIT : 0;
    t_guard = 1;
    uint32_t trace = 0;
    if (nm_cfg.bt_mode != NM_BT_NONE) {
        uint64_t every = nm_cfg.sample_bytes, size = h->meta & NM_SIZE_MASK;
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
    table *t = tab_enter();
    h->trace = trace;
    h->meta = (h->meta & ~((uint64_t)8191u << NM_OWNER_SHIFT)) |
              ((uint64_t)t->idx << NM_OWNER_SHIFT) | flags;
    list_add(t, h);
    tab_leave(t);
    t_guard = 0;
}

void nm_alloc_init(void)
{
    /* AT_RANDOM: 16 random bytes the kernel gives every process. */
    const uint64_t *rnd = (const uint64_t *)getauxval(AT_RANDOM);
    hdr_secret = (uint32_t)((rnd ? rnd[0] ^ rnd[1] : 0x6a09e667f3bcc908ull) ^ (uint64_t)getpid());
    membarrier_ok = syscall(SYS_membarrier, 1 << 4 /* REGISTER_PRIVATE_EXPEDITED */, 0, 0) == 0;
    if (nm_cfg.bt_mode == NM_BT_LIBUNWIND) {
        int g = nm_guard_set(1);
        libunwind_load();
        nm_guard_set(g);
        if (!unw_bt)
            nm_cfg.bt_mode = NM_BT_FP;
    }
}

/* ---- The hooks ---- */

/* Writes the header of block p (offset 1 << offlog from libc's pointer) and records it
 * unless the thread is inside the monitor. */
#define TRACK(p, offlog, size)                                                              \
    do {                                                                                    \
        hdr *h_ = hdr_of(p);                                                                \
        uint64_t sz_ = (uint64_t)(size);                                                    \
        h_->meta = (sz_ > NM_SIZE_MASK ? NM_SIZE_MASK : sz_) |                              \
                   ((uint64_t)NM_NO_OWNER << NM_OWNER_SHIFT) |                              \
                   ((uint64_t)(offlog) << NM_OFF_SHIFT);                                    \
        h_->trace = 0;                                                                      \
        h_->check = hdr_check(p);                                                           \
        if (!t_guard)                                                                       \
            record((p), (uintptr_t)__builtin_return_address(0));                            \
    } while (0)
#define NM_HDR_LOG 5 /* log2(NM_HDR) */
_Static_assert(sizeof(hdr) == 1u << NM_HDR_LOG, "header size");

/* glibc exports no __libc_ alias of malloc_usable_size; dlsym may allocate, which the hooks
 * serve through __libc_* without coming back here. */
static size_t libc_usable(void *b)
{
    static size_t (*real)(void *);
    if (!real) {
        int g = nm_guard_set(1);
        real = (size_t (*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
        nm_guard_set(g);
        if (!real)
            return 0;
    }
    return real(b);
}

/* The header of p when the hooks made p, else NULL (a pointer from elsewhere). */
static inline hdr *ours(void *p)
{
    hdr *h = hdr_of(p);
    return h->check == hdr_check(p) ? h : NULL;
}

NM_API void *malloc(size_t n)
{
    if (n > SIZE_MAX / 2) {
        errno = ENOMEM;
        return NULL;
    }
    char *b = __libc_malloc(n + NM_HDR);
    if (!b)
        return NULL;
    void *p = b + NM_HDR;
    TRACK(p, NM_HDR_LOG, n);
    return p;
}

NM_API void *calloc(size_t n, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(n, size, &total) || total > SIZE_MAX / 2) {
        errno = ENOMEM;
        return NULL;
    }
    char *b = __libc_calloc(1, total + NM_HDR);
    if (!b)
        return NULL;
    void *p = b + NM_HDR;
    TRACK(p, NM_HDR_LOG, total);
    return p;
}

NM_API void free(void *p)
{
    if (!p)
        return;
    int e = errno;
    hdr *h = ours(p);
    if (h)
        release(p, h);
    else
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
    hdr *h = ours(p);
    if (!h)
        return __libc_realloc(p, n);
    if (n > SIZE_MAX / 2) {
        errno = ENOMEM;
        return NULL;
    }
    uint64_t meta = h->meta;
    uint32_t owner = meta_owner(meta);
    table *me = owner == NM_NO_OWNER || t_guard ? NULL : t_tab;
    if (meta_offset(meta) != NM_HDR || owner == NM_NO_OWNER || !me || owner != me->idx) {
        /* Over-aligned (libc would not keep the alignment), untracked, or another thread's
         * (only the owner may unlink it): a new block and a copy. */
        size_t have = libc_usable((char *)p - meta_offset(meta)) - meta_offset(meta);
        void *q = malloc(n);
        if (!q)
            return NULL;
        memcpy(q, p, have < n ? have : n);
        free(p);
        return q;
    }
    /* This thread's block: out of its list while libc moves it, back in at its new place. */
    table *t = tab_enter();
    list_del(t, h);
    h->check = 0;
    char *b = __libc_realloc((char *)p - NM_HDR, n + NM_HDR);
    hdr *nh = b ? (hdr *)b : h;
    if (b) {
        uint64_t sz = n > NM_SIZE_MASK ? NM_SIZE_MASK : n;
        nh->meta = (nh->meta & ~NM_SIZE_MASK) | sz;
    }
    nh->check = hdr_check((char *)nh + NM_HDR);
    list_add(t, nh);
    tab_leave(t);
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

/* Alignments up to 32 come from malloc (its blocks are 16-aligned, the header 32 bytes);
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
    char *b = lg == NM_HDR_LOG && align <= 16 ? __libc_malloc(n + off)
                                              : __libc_memalign(off, n + off);
    if (!b)
        return NULL;
    void *p = b + off;
    TRACK(p, lg, n);
    return p;
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
        return libc_usable(p);
    size_t off = meta_offset(h->meta);
    return libc_usable((char *)p - off) - off;
}
