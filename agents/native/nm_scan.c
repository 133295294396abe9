/* SPDX-License-Identifier: Apache-2.0 */
/* nm_scan.c: one leak scan of the running process (agents layer), prefix nm_scan_. The
 * scanning thread freezes the blocks (no thread inside realloc's window), starts a
 * tracer task (clone(CLONE_VM), no libc: raw system calls only) that PTRACE_SEIZEs and
 * PTRACE_INTERRUPTs every other thread and copies its registers, then forks the process with
 * a raw clone (no atfork handlers, no malloc locks taken), lets the tracer detach and
 * thaws the blocks: the pause is that window. The child collects the blocks by searching
 * the anonymous mappings for their headers (nm_blocks_in), then marks conservatively (aligned
 * words, interior pointers accepted) from the roots: writable mappings that hold no block
 * (module data and bss, anonymous memory), live thread stacks from their SP, registers, and
 * the TLS around each thread pointer; stacks of threads that are gone are not roots. It then
 * splits the unreachable blocks as LeakSanitizer does (indirect: pointed to by another
 * unreachable block; direct: the rest), groups them by (kind, backtrace) and writes the
 * report (docs/native.md) with write(2) only; the parent appends the pause and renames the
 * file into place. The child never calls the application's malloc nor takes a libc lock
 * that a stopped thread might hold. Cost: O(B) for B blocks plus the words searched and
 * scanned. */
#define _GNU_SOURCE
#include "nm.h"

#include <link.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CAPTURE NM_MAX_THREADS  /* threads a scan can stop (about 1 MiB of registers) */
#define TRACER_STACK (256u << 10)   /* the tracer's own stack */
#define STOP_ROUNDS 30              /* re-list /proc/PID/task until stable (LSan: 30) */
#define STOP_TIMEOUT_MS 5000        /* give up waiting for the tracer after this */
#define TLS_BELOW 65536             /* bytes of static TLS scanned below a thread pointer */
#define TLS_ABOVE 4096              /* bytes of the TCB scanned above it */
#define CONTENT_BYTES 32            /* first bytes of one block shown per group */
#define MAX_MAPS 65536              /* mappings of /proc/self/maps handled */

#define NM_B_REACHABLE 1u
#define NM_B_INDIRECT 2u
#define NM_B_LDSO 4u /* the dynamic linker's: a root */
/* Bits 8..15: the kind of root that marked the block straight (the heap graph's GC roots),
 * 0 = none; the values are the report's block STATEs (docs/native.md). */
#define NM_B_ROOT_SHIFT 8
#define NM_B_ROOT_MASK (0xffu << NM_B_ROOT_SHIFT)
enum { NM_ROOT_GLOBAL = 4, NM_ROOT_STACK, NM_ROOT_REGISTERS, NM_ROOT_TLS, NM_ROOT_LDSO,
       NM_ROOT_ANON };

/* ---- Raw system calls: usable from the tracer task, which has no TLS of its own ---- */

static long sys6(long n, long a, long b, long c, long d, long e, long f)
{
    long ret;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}
#define SYS(n, a, b, c, d) sys6((n), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

typedef struct captured {
    pid_t tid;                  /* kernel thread id */
    int sig;                    /* signal to re-deliver at detach (signal-delivery stop) */
    int ok;                     /* registers valid */
    struct user_regs_struct regs; /* NT_PRSTATUS of the stopped thread */
    /* its SSE registers (NT_PRFPREG's xmm0-15): compilers move pointers, and {ptr, len}
     * pairs, through them, as memcpy does mid-copy; LeakSanitizer reads them too */
    uint64_t xmm[32];
    int xmm_ok;
} captured;

/* Waits for the tracer to end (it detaches the threads it stopped first), then puts back
 * what the scan changed for it. */
static void tracer_join(pid_t tracer, int ptracer_set, int dumpable)
{
    if (tracer > 0) {
        int status;
        while (waitpid(tracer, &status, __WALL) < 0 && errno == EINTR)
            ;
    }
    if (ptracer_set) /* that tracer has ended */
        prctl(PR_SET_PTRACER, 0, 0, 0, 0);
    if (dumpable == 0 || dumpable == 2)
        prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0);
}

/* The program's side of a scan's times, handed to the child, a fork: in a page both share
 * (the scan state is private memory, which the fork copies). */
typedef struct scan_times {
    int timed;                  /* scanner -> child: the three times below are set */
    uint64_t stop_us, fork_call_us, pause_us;
} scan_times;
static scan_times *times;

/* State shared by the scanning thread, the tracer and the child (all in one nm_map). */
typedef struct scan_state {
    pid_t pid;                  /* the process */
    pid_t self;                 /* the scanning thread, never stopped */
    int go;                     /* scanner -> tracer: ptrace permission is set */
    int phase;                  /* tracer -> scanner: 1 stopped, 2 failed */
    int release;                /* scanner -> tracer: detach now */
    int n;                      /* captured threads */
    int n_failed;               /* threads that could not be stopped */
    int overflow;               /* threads past MAX_CAPTURE (the most any round saw) */
    char err[128];              /* why the capture failed */
    int n_refused;              /* threads that refused ptrace, listed once */
    pid_t refused[64];          /* their ids, so later rounds skip them */
    captured th[MAX_CAPTURE];   /* stopped threads */
} scan_state;

/* The scanning process's exit status when it could not create its report file. */
#define SCAN_NO_FILE 6

static void str_copy(char *dst, size_t n, const char *src)
{
    size_t i = 0;
    for (; src[i] && i + 1 < n; i++)
        dst[i] = src[i];
    dst[i] = 0;
}

static char *fmt_u64(char *p, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10));
    while (n)
        *p++ = tmp[--n];
    return p;
}

static char *fmt_hex(char *p, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do
        tmp[n++] = "0123456789abcdef"[v & 15];
    while ((v >>= 4));
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* The numeric names in folder path (/proc/PID/task, /proc/self/fd), with getdents64
 * (opendir would allocate): fn(v, arg) for each (but the listing's own descriptor when
 * not_own); returns how many there are, or -1 when the folder cannot be read. */
static int each_number(const char *path, int not_own, void (*fn)(long v, void *arg),
                       void *arg)
{
    long fd = SYS(SYS_open, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
    if (fd < 0)
        return -1;
    char buf[4096];
    int n = 0;
    for (;;) {
        long got = SYS(SYS_getdents64, fd, buf, sizeof buf, 0);
        if (got <= 0)
            break;
        for (long off = 0; off < got;) {
            struct {
                uint64_t ino;
                int64_t off;
                unsigned short reclen;
                unsigned char type;
                char name[];
            } *d = (void *)(buf + off);
            off += d->reclen;
            if (d->name[0] < '0' || d->name[0] > '9')
                continue;
            long v = 0;
            for (const char *c = d->name; *c >= '0' && *c <= '9'; c++)
                v = v * 10 + (*c - '0');
            if (not_own && v == fd)
                continue;
            fn(v, arg);
            n++;
        }
    }
    SYS(SYS_close, fd, 0, 0, 0);
    return n;
}

typedef struct tid_list {
    pid_t *out;
    int max, n;
} tid_list;

static void add_tid(long v, void *arg)
{
    tid_list *l = arg;
    if (l->n < l->max)
        l->out[l->n] = (pid_t)v;
    l->n++;
}

/* Thread ids of pid: the first max into out; returns how many there are, past max too. */
static int list_tids(pid_t pid, pid_t *out, int max)
{
    char path[64] = "/proc/", *p = fmt_u64(path + 6, (uint64_t)pid);
    memcpy(p, "/task", 6);
    tid_list l = {out, max, 0};
    return each_number(path, 0, add_tid, &l) < 0 ? -1 : l.n;
}

/* Whether thread tid of pid has ended and is only waited for (a zombie: main after
 * pthread_exit, its last thread the monitor's). Raw system calls, as list_tids. */
static int task_zombie(pid_t pid, pid_t tid)
{
    char path[96] = "/proc/", *p = fmt_u64(path + 6, (uint64_t)pid);
    memcpy(p, "/task/", 6);
    p = fmt_u64(p + 6, (uint64_t)tid);
    memcpy(p, "/stat", 6);
    long fd = SYS(SYS_open, path, O_RDONLY | O_CLOEXEC, 0, 0);
    if (fd < 0)
        return 0;
    char buf[512];
    long k = SYS(SYS_read, fd, buf, sizeof buf - 1, 0);
    SYS(SYS_close, fd, 0, 0, 0);
    if (k <= 0)
        return 0;
    const char *rp = NULL; /* the last ')': the name may hold anything */
    for (long i = 0; i < k; i++)
        if (buf[i] == ')')
            rp = buf + i;
    return rp && rp + 2 < buf + k && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

/* ---- The tracer task ---- */

/* Hand-offs between the scanning thread and the tracer go through futexes, not yield
 * loops: on a busy machine a yield gives the CPU away for a whole time slice, a wake-up
 * hands it over at once. */
static void fx_wait(int *addr, long timeout_ns)
{
    struct timespec ts = {timeout_ns / 1000000000, timeout_ns % 1000000000};
    if (!__atomic_load_n(addr, __ATOMIC_ACQUIRE))
        SYS(SYS_futex, addr, FUTEX_WAIT, 0, timeout_ns ? &ts : NULL);
}

static void fx_set(int *addr)
{
    __atomic_store_n(addr, 1, __ATOMIC_RELEASE);
    SYS(SYS_futex, addr, FUTEX_WAKE, 1 << 30, 0);
}

/* Waits for *addr to be set by the program's scanning thread. The tracer is a process of
 * its own (CLONE_VM, no CLONE_THREAD): when the program dies in between, it is handed to
 * another parent and would wait for ever, holding the dead program's memory and its
 * output (`native run ... | sort` hung). Returns 0 when set, -1 when the program is gone. */
static int tracer_wait(const scan_state *st, int *addr)
{
    while (!__atomic_load_n(addr, __ATOMIC_ACQUIRE)) {
        fx_wait(addr, 200000000L);
        if (SYS(SYS_getppid, 0, 0, 0, 0) != st->pid)
            return -1;
    }
    return 0;
}

static int tracer_main(void *arg)
{
    scan_state *st = arg;
    if (tracer_wait(st, &st->go) != 0)
        SYS(SYS_exit, 0, 0, 0, 0);
    pid_t tids[MAX_CAPTURE];
    for (int round = 0; round < STOP_ROUNDS; round++) {
        int n = list_tids(st->pid, tids, MAX_CAPTURE), added = 0, first = st->n;
        if (n < 0) {
            str_copy(st->err, sizeof st->err, "cannot list /proc/PID/task");
            break;
        }
        if (n > MAX_CAPTURE) { /* those past the list would run on, their stacks unread */
            if (n - MAX_CAPTURE > st->overflow)
                st->overflow = n - MAX_CAPTURE;
            n = MAX_CAPTURE;
        }
        for (int i = 0; i < n; i++) {
            pid_t t = tids[i];
            int known = t == st->self;
            for (int k = 0; k < st->n && !known; k++)
                known = st->th[k].tid == t;
            for (int k = 0; k < st->n_refused && !known; k++)
                known = st->refused[k] == t;
            if (known)
                continue;
            if (st->n == MAX_CAPTURE) {
                if (!st->overflow)
                    st->overflow = 1;
                continue;
            }
            added++;
            long r = SYS(SYS_ptrace, PTRACE_SEIZE, t, 0, 0);
            if (r < 0) {
                if (r != -ESRCH && !task_zombie(st->pid, t)) {
                    st->n_failed++;
                    if (st->n_refused < 64)
                        st->refused[st->n_refused++] = t;
                    str_copy(st->err, sizeof st->err, r == -EPERM ? "ptrace: permission denied"
                                                                  : "ptrace: seize failed");
                }
                continue;
            }
            if (SYS(SYS_ptrace, PTRACE_INTERRUPT, t, 0, 0) < 0) {
                SYS(SYS_ptrace, PTRACE_DETACH, t, 0, 0);
                continue;
            }
            captured *c = &st->th[st->n++];
            c->tid = t;
            c->sig = 0;
            c->ok = 0;
            c->xmm_ok = 0;
        }
        /* Every thread of the round is asked to stop before any is waited for: each stops
         * when the kernel next schedules it, so the round costs one scheduling delay, not
         * one per thread (a pool of busy threads on two cores took seconds, one by one). */
        for (int k = first; k < st->n; k++) {
            captured *c = &st->th[k];
            pid_t t = c->tid;
            int status = 0;
            long w = SYS(SYS_wait4, t, &status, __WALL, 0);
            if (w < 0 || WIFEXITED(status) || WIFSIGNALED(status))
                continue; /* gone meanwhile: nothing to read, nothing it holds */
            /* A stop that is not our interrupt nor a group stop is a signal-delivery stop:
             * the signal goes back to the thread when it is detached. */
            int sig = WSTOPSIG(status);
            if ((status >> 16) != PTRACE_EVENT_STOP && sig != SIGTRAP)
                c->sig = sig;
            struct iovec iov = {&c->regs, sizeof c->regs};
            if (SYS(SYS_ptrace, PTRACE_GETREGSET, t, NT_PRSTATUS, &iov) == 0)
                c->ok = 1;
            else
                st->n_failed++;
            struct user_fpregs_struct fp;
            struct iovec fiov = {&fp, sizeof fp};
            c->xmm_ok = c->ok && SYS(SYS_ptrace, PTRACE_GETREGSET, t, NT_PRFPREG, &fiov) == 0 &&
                        fiov.iov_len >= sizeof fp;
            if (c->xmm_ok)
                memcpy(c->xmm, fp.xmm_space, sizeof c->xmm);
        }
        if (!added)
            break;
    }
    fx_set(&st->phase);
    (void)tracer_wait(st, &st->release); /* gone: the threads it stopped are gone too */
    for (int i = 0; i < st->n; i++)
        SYS(SYS_ptrace, PTRACE_DETACH, st->th[i].tid, 0, st->th[i].sig);
    SYS(SYS_exit, 0, 0, 0, 0);
    return 0;
}

/* ---- Report writer (write(2) through a buffer) ---- */

typedef struct wbuf {
    int fd;          /* destination */
    int failed;      /* a write failed */
    size_t n;        /* bytes buffered */
    char b[1 << 16]; /* buffer */
} wbuf;

static void w_flush(wbuf *w)
{
    size_t off = 0;
    while (off < w->n) {
        ssize_t r = write(w->fd, w->b + off, w->n - off);
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            w->failed = 1;
            break;
        }
        off += (size_t)r;
    }
    w->n = 0;
}

static void w_room(wbuf *w, size_t need)
{
    if (w->n + need > sizeof w->b)
        w_flush(w);
}

static void w_str(wbuf *w, const char *s)
{
    size_t len = strlen(s);
    if (len > 4096)
        len = 4096;
    w_room(w, len);
    memcpy(w->b + w->n, s, len);
    w->n += len;
}

static void w_u64(wbuf *w, uint64_t v)
{
    w_room(w, 24);
    w->n = (size_t)(fmt_u64(w->b + w->n, v) - w->b);
}

static void w_hex(wbuf *w, uint64_t v)
{
    w_room(w, 24);
    w->n = (size_t)(fmt_hex(w->b + w->n, v) - w->b);
}

static void w_ch(wbuf *w, char c)
{
    w_room(w, 1);
    w->b[w->n++] = c;
}

/* ---- The child: blocks, roots, marking ---- */

typedef struct mapping {
    uintptr_t lo, hi;   /* [lo, hi) */
    uint64_t off;       /* file offset */
    char perms[5];      /* "rwxp" */
    int name_off;       /* offset of its name in the names buffer, -1 = anonymous */
} mapping;

typedef struct child {
    scan_state *st;     /* captured threads */
    nm_block *b;        /* blocks sorted by address */
    uint64_t n;         /* blocks */
    uint64_t cap;       /* capacity of b */
    uintptr_t lo, hi;   /* [first block, end of last block) */
    uint32_t *stack;    /* mark stack (block indexes), capacity n */
    uint64_t sp;        /* mark stack depth */
    uint32_t rooting;   /* NM_ROOT_* while the roots are scanned, 0 during the flood */
    struct region *regions; /* 64 KiB region -> blocks overlapping it (NULL: bisect all) */
    uint64_t region_mask;   /* capacity - 1 of regions */
    mapping *maps;      /* /proc/self/maps */
    int n_maps;         /* mappings */
    char *names;        /* mapping names, NUL-separated */
    size_t names_len;   /* bytes used in names */
} child;

static sigjmp_buf fault_jmp;

static void on_fault(int sig)
{
    siglongjmp(fault_jmp, 1);
}

/* The report the scanning copy writes, named once the program has added its timings: a
 * program that ends while its copy scans (killed, or past the exit scan's wait) never does,
 * and `NAME.lrn.tmp` stayed in the report folder. The copy learns of that end from the
 * kernel (PR_SET_PDEATHSIG, on a signal no one sends by default) and removes it. */
static const char *orphan_tmp;

static void on_parent_gone(int sig)
{
    (void)sig;
    unlink(orphan_tmp);
    _exit(6);
}

static void collect(uintptr_t addr, uint64_t size, uint32_t trace, uint32_t flags, void *arg)
{
    child *c = arg;
    if (c->n == c->cap) {
        /* Doubled into a fresh own mapping (registered, so never taken for a root). */
        uint64_t cap = c->cap * 2;
        nm_block *b = nm_map(cap * sizeof *b);
        if (!b)
            _exit(5);
        memcpy(b, c->b, c->n * sizeof *b);
        nm_unmap(c->b, c->cap * sizeof *b);
        c->b = b;
        c->cap = cap;
    }
    nm_block *b = &c->b[c->n++];
    b->addr = addr;
    b->size = size;
    b->trace = trace;
    b->flags = flags & NM_E_LDSO ? NM_B_LDSO : 0;
}

/* LSD radix sort of blocks by address, 16 bits a pass over the 64-bit key. */
static void sort_blocks(nm_block *b, nm_block *tmp, uint64_t n, uint32_t *count)
{
    for (int shift = 0; shift < 64; shift += 16) {
        memset(count, 0, sizeof(uint32_t) << 16);
        for (uint64_t i = 0; i < n; i++)
            count[(b[i].addr >> shift) & 0xffff]++;
        if (count[(b[0].addr >> shift) & 0xffff] == n)
            continue;
        uint32_t sum = 0;
        for (int k = 0; k < 65536; k++) {
            uint32_t v = count[k];
            count[k] = sum;
            sum += v;
        }
        for (uint64_t i = 0; i < n; i++)
            tmp[count[(b[i].addr >> shift) & 0xffff]++] = b[i];
        memcpy(b, tmp, n * sizeof *b);
    }
}

/* Index of the block holding address v, or -1. Interior pointers count. */
/* ---- Address -> block lookup: a hash of 64 KiB regions, then a short binary search ----
 * Each region touched by a block gets [lo, hi]: the first and last block overlapping it, so a
 * candidate word costs one hash probe and a search among the few blocks of one region
 * (a binary search over all blocks missed the cache at every step). */

#define REGION_SHIFT 16

typedef struct region {
    uint64_t key;  /* region number + 1; 0 = empty */
    uint32_t lo;   /* first block overlapping the region */
    uint32_t hi;   /* last block overlapping it */
} region;

static inline uint64_t region_slot(uint64_t key, uint64_t mask)
{
    return (key * 0x9E3779B97F4A7C15ull >> 20) & mask;
}

static const region *region_get(const region *t, uint64_t mask, uint64_t key)
{
    for (uint64_t i = region_slot(key, mask);; i = (i + 1) & mask) {
        if (t[i].key == key)
            return &t[i];
        if (!t[i].key)
            return NULL;
    }
}

static region *region_add(region *t, uint64_t mask, uint64_t key, int *fresh)
{
    for (uint64_t i = region_slot(key, mask);; i = (i + 1) & mask) {
        *fresh = !t[i].key;
        if (t[i].key == key || !t[i].key) {
            t[i].key = key;
            return &t[i];
        }
    }
}

/* Builds c->regions over the sorted blocks; on failure lookups fall back to bisection. */
static void regions_build(child *c)
{
    uint64_t need = 0;
    for (uint64_t i = 0; i < c->n; i++) {
        uint64_t size = c->b[i].size ? c->b[i].size : 1;
        need += ((c->b[i].addr + size - 1) >> REGION_SHIFT) - (c->b[i].addr >> REGION_SHIFT) + 1;
    }
    uint64_t cap = 16;
    while (cap < need * 2)
        cap *= 2;
    c->regions = nm_map(cap * sizeof(region));
    if (!c->regions)
        return;
    c->region_mask = cap - 1;
    for (uint64_t i = 0; i < c->n; i++) {
        uint64_t size = c->b[i].size ? c->b[i].size : 1;
        uint64_t r0 = c->b[i].addr >> REGION_SHIFT, r1 = (c->b[i].addr + size - 1) >> REGION_SHIFT;
        for (uint64_t r = r0; r <= r1; r++) {
            int fresh;
            region *e = region_add(c->regions, c->region_mask, r + 1, &fresh);
            if (fresh)
                e->lo = (uint32_t)i; /* blocks come in address order: the first is lowest */
            e->hi = (uint32_t)i;
        }
    }
}

/* Index of the block holding address v, or -1. Interior pointers count. */
static int64_t find_block(const child *c, uintptr_t v)
{
    if (v < c->lo || v >= c->hi)
        return -1;
    uint64_t lo = 0, hi = c->n;
    if (c->regions) {
        const region *e = region_get(c->regions, c->region_mask, (v >> REGION_SHIFT) + 1);
        if (!e)
            return -1;
        lo = e->lo;
        hi = (uint64_t)e->hi + 1;
    }
    uint64_t first = lo;
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        if (c->b[mid].addr <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == first)
        return -1;
    const nm_block *b = &c->b[lo - 1];
    uint64_t size = b->size ? b->size : 1;
    return v - b->addr < size ? (int64_t)(lo - 1) : -1;
}

static void mark_word(child *c, uintptr_t v)
{
    int64_t i = find_block(c, v);
    if (i >= 0 && c->rooting && !(c->b[i].flags & NM_B_ROOT_MASK))
        c->b[i].flags |= c->rooting << NM_B_ROOT_SHIFT;
    if (i >= 0 && !(c->b[i].flags & NM_B_REACHABLE)) {
        c->b[i].flags |= NM_B_REACHABLE;
        c->stack[c->sp++] = (uint32_t)i;
    }
}

/* Scans [lo, hi) as a root, one aligned word at a time; a fault skips the rest. exact:
 * only pointers to a block's first byte count. glibc's own state (main_arena's top chunk,
 * bins) points at chunk headers, and the header after a block lies inside the block's last
 * 8 bytes: libc's data is therefore scanned with exact matches only. */
static void scan_root(child *c, uintptr_t lo, uintptr_t hi, int exact)
{
    lo = (lo + 7) & ~(uintptr_t)7;
    if (sigsetjmp(fault_jmp, 1))
        return;
    for (uintptr_t p = lo; p + 8 <= hi; p += 8) {
        uintptr_t v = *(const uintptr_t *)p;
        if (exact) {
            int64_t i = find_block(c, v);
            if (i < 0 || c->b[i].addr != v)
                continue;
        }
        mark_word(c, v);
    }
}

/* fn(c, run_lo, run_hi, lo, hi, arg) over the parts of private anonymous range [lo, hi) the
 * process has touched: a page neither present nor swapped out in /proc/self/pagemap was
 * never written, reads as zeros, and holds no pointer nor block header. A 32 GB
 * MAP_NORESERVE reservation with a few pages in use was read whole by every scan (80 s).
 * Only private anonymous memory is asked: its page tables are copied by fork, while a shared
 * mapping's are filled in lazily in the child, whose pagemap would call its pages absent.
 * Small ranges, or no pagemap, are one run. */
#define SPARSE_MIN ((uintptr_t)64 << 20)
#define SPARSE_PAGES 512u
typedef void (*run_fn)(child *c, uintptr_t lo, uintptr_t hi, uintptr_t base, uintptr_t end,
                       int arg);
static void each_used(child *c, uintptr_t lo, uintptr_t hi, int arg, run_fn fn,
                      uintptr_t min)
{
    static int pm = -2;
    if (hi - lo < min || pm == -1 ||
        (pm == -2 && (pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)) < 0)) {
        fn(c, lo, hi, lo, hi, arg);
        return;
    }
    uint64_t e[SPARSE_PAGES];
    uintptr_t at = lo & ~(uintptr_t)4095, run = 0; /* run: start of the used pages, or 0 */
    while (at < hi) {
        size_t n = (hi - at + 4095) / 4096;
        if (n > SPARSE_PAGES)
            n = SPARSE_PAGES;
        ssize_t got = pread(pm, e, n * 8, (off_t)(at / 4096 * 8));
        if (got != (ssize_t)(n * 8)) { /* unreadable: the rest is one run */
            fn(c, run ? run : at > lo ? at : lo, hi, lo, hi, arg);
            return;
        }
        for (size_t k = 0; k < n; k++, at += 4096) {
            int used = (e[k] >> 62) != 0; /* present (bit 63) or swapped (bit 62) */
            if (used && !run) {
                run = at > lo ? at : lo;
            } else if (!used && run) {
                fn(c, run, at, lo, hi, arg);
                run = 0;
            }
        }
    }
    if (run)
        fn(c, run, hi, lo, hi, arg);
}

/* The same for a large shared mapping [lo, hi) of m: fork copies no page table of it, so
 * pagemap cannot tell, but its file can. A hole in it (a sparse database file, an untouched
 * memfd or shared-memory segment) reads as zeros: only the file's data ranges are runs
 * (SEEK_DATA, SEEK_HOLE on /proc/self/map_files, which names the file even when deleted).
 * An LMDB-style 8 GB sparse map took 48 s a scan. A file that cannot be asked, or a file
 * system that cannot say, is one run. */
static void each_data(child *c, const mapping *m, uintptr_t lo, uintptr_t hi, int arg,
                      run_fn fn)
{
    char p[64] = "/proc/self/map_files/";
    int fd = -1;
    if (hi - lo >= SPARSE_MIN) {
        char *q = fmt_hex(p + 21, m->lo);
        *q++ = '-';
        *fmt_hex(q, m->hi) = 0;
        fd = open(p, O_RDONLY | O_CLOEXEC);
    }
    off_t at = (off_t)(m->off + (lo - m->lo)), end = (off_t)(m->off + (hi - m->lo));
    if (fd < 0 || (lseek(fd, at, SEEK_DATA) < 0 && errno != ENXIO)) {
        if (fd >= 0)
            close(fd);
        fn(c, lo, hi, lo, hi, arg);
        return;
    }
    while (at < end) {
        off_t d = lseek(fd, at, SEEK_DATA);
        if (d < 0 || d >= end) /* ENXIO: no data past at */
            break;
        off_t h = lseek(fd, d, SEEK_HOLE);
        if (h < 0 || h > end)
            h = end;
        fn(c, m->lo + (uintptr_t)(d - (off_t)m->off), m->lo + (uintptr_t)(h - (off_t)m->off), lo,
           hi, arg);
        at = h;
    }
    close(fd);
}

static void root_run(child *c, uintptr_t lo, uintptr_t hi, uintptr_t base, uintptr_t end,
                     int exact)
{
    (void)base;
    (void)end;
    scan_root(c, lo, hi, exact);
}

static void flood(child *c)
{
    while (c->sp) {
        const nm_block *b = &c->b[c->stack[--c->sp]];
        const uintptr_t *w = (const uintptr_t *)b->addr;
        for (uint64_t k = 0; k < b->size / 8; k++)
            mark_word(c, w[k]);
    }
}

static int read_maps(child *c)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    static char line[8192];
    size_t len = 0;
    char buf[1 << 14];
    for (;;) {
        ssize_t got = read(fd, buf, sizeof buf);
        if (got <= 0)
            break;
        for (ssize_t i = 0; i < got; i++) {
            if (buf[i] != '\n') {
                if (len + 1 < sizeof line)
                    line[len++] = buf[i];
                continue;
            }
            line[len] = 0;
            len = 0;
            if (c->n_maps == MAX_MAPS)
                continue;
            mapping *m = &c->maps[c->n_maps];
            const char *p = line;
            uintptr_t v[3] = {0, 0, 0};
            for (int k = 0; k < 3; k++) {
                for (; *p && *p != '-' && *p != ' '; p++)
                    v[k] = v[k] * 16 + (uintptr_t)(*p <= '9' ? *p - '0' : (*p | 32) - 'a' + 10);
                if (*p)
                    p++;
                if (k == 1) {
                    memcpy(m->perms, p, 4);
                    m->perms[4] = 0;
                    p += 5;
                }
            }
            m->lo = v[0];
            m->hi = v[1];
            m->off = v[2];
            for (int f = 0; f < 2; f++) { /* dev, inode */
                while (*p && *p != ' ')
                    p++;
                while (*p == ' ')
                    p++;
            }
            m->name_off = -1;
            if (*p) {
                size_t nl = strlen(p);
                if (c->names_len + nl + 1 <= (size_t)MAX_MAPS * 64) {
                    memcpy(c->names + c->names_len, p, nl + 1);
                    m->name_off = (int)c->names_len;
                    c->names_len += nl + 1;
                }
            }
            c->n_maps++;
        }
    }
    close(fd);
    return 0;
}

static const char *map_name(const child *c, const mapping *m)
{
    return m->name_off < 0 ? "" : c->names + m->name_off;
}

static int overlaps(uintptr_t a, uintptr_t b, uintptr_t lo, uintptr_t hi)
{
    return a < hi && lo < b;
}

/* The next part of [*at, hi) outside every range of cut[0..n_cut) and cut2[0..n_cut2):
 * [*lo, *hi_out), and *at moves past it; 0 when none is left. The kernel merges adjacent
 * anonymous mappings with the same flags, so one line of /proc/PID/maps can hold the
 * monitor's own memory (or a thread's stack) and another allocator's heap (jemalloc maps
 * with MAP_NORESERVE, as the monitor does): only the monitor's part is left out. */
static int next_piece(uintptr_t *at, uintptr_t hi, const uintptr_t (*cut)[2], int n_cut,
                      const uintptr_t (*cut2)[2], int n_cut2, uintptr_t *lo, uintptr_t *hi_out)
{
    while (*at < hi) {
        uintptr_t start = hi, end = *at;
        for (int pass = 0; pass < 2; pass++) {
            const uintptr_t (*r)[2] = pass ? cut2 : cut;
            int n = pass ? n_cut2 : n_cut;
            for (int k = 0; k < n; k++)
                if (r[k][0] < hi && r[k][1] > *at && r[k][0] < start) {
                    start = r[k][0];
                    end = r[k][1];
                }
        }
        if (start <= *at) { /* a cut covers *at: skip past it */
            *at = end;
            continue;
        }
        *lo = *at;
        *hi_out = start;
        *at = start;
        return 1;
    }
    return 0;
}

static int holds_block(const child *c, uintptr_t lo, uintptr_t hi)
{
    if (hi <= c->lo || lo >= c->hi)
        return 0;
    uint64_t a = 0, z = c->n;
    while (a < z) {
        uint64_t mid = (a + z) / 2;
        if (c->b[mid].addr < lo)
            a = mid + 1;
        else
            z = mid;
    }
    /* A block that starts below lo may run into [lo, hi): one heap can span several
     * mappings (brk growth after madvise, an arena's heap split by its flags). */
    if (a > 0 && c->b[a - 1].addr + c->b[a - 1].size > lo)
        return 1;
    return a < c->n && c->b[a].addr < hi;
}

/* Bytes of the modules' static TLS blocks below a thread pointer, measured at load on the
 * loading thread (the layout is the same in every thread); 0 = none known. */
static size_t tls_static;

static int tls_extent(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    uintptr_t tp = *(uintptr_t *)arg, data = (uintptr_t)info->dlpi_tls_data;
    if (!info->dlpi_tls_modid || !data || data >= tp || tp - data > TLS_BELOW)
        return 0;
    if (tp - data > tls_static)
        tls_static = tp - data;
    return 0;
}

void nm_scan_init(void)
{
    uintptr_t tp = (uintptr_t)__builtin_thread_pointer();
    dl_iterate_phdr(tls_extent, &tp);
}

/* Where a stopped thread's live stack starts: NM_RED_ZONE bytes below its stack pointer, not
 * below lo. The x86-64 ABI lets a leaf function keep data there without moving the stack
 * pointer (compilers spill to it at -O2), and the signal that stopped the thread was
 * delivered below it: a block whose only pointer sits there is live. */
#define NM_RED_ZONE 128u
static uintptr_t red_zone(uintptr_t sp, uintptr_t lo)
{
    return sp - lo > NM_RED_ZONE ? sp - NM_RED_ZONE : lo;
}

/* Registers (first pass) and the TLS around each thread pointer. The first pass scans
 * only ld.so's static TLS below it, before the mappings, so that a block held there gets
 * its kind although the thread's stack mapping covers the same words; the second pass
 * scans the whole TLS_BELOW window (the main thread's TLS may share a mapping with heap
 * blocks, which the mapping loop skips). */
static void scan_thread_roots(child *c, uintptr_t self_tp, uintptr_t self_sp, int first)
{
    const scan_state *st = c->st;
    size_t below = first ? tls_static : TLS_BELOW;
    for (int k = 0; k <= st->n; k++) {
        uintptr_t tp = self_tp, sp = self_sp;
        if (k < st->n) {
            if (!st->th[k].ok)
                continue;
            tp = st->th[k].regs.fs_base;
            sp = st->th[k].regs.rsp;
            if (first) {
                const uintptr_t *r = (const uintptr_t *)&st->th[k].regs;
                c->rooting = NM_ROOT_REGISTERS;
                for (size_t j = 0; j < sizeof st->th[k].regs / 8; j++)
                    mark_word(c, r[j]);
                for (size_t j = 0; st->th[k].xmm_ok && j < 32; j++)
                    mark_word(c, (uintptr_t)st->th[k].xmm[j]);
            }
        }
        for (int i = 0; i < c->n_maps; i++) {
            const mapping *m = &c->maps[i];
            if (tp < m->lo || tp >= m->hi || m->perms[1] != 'w')
                continue;
            uintptr_t lo = tp - m->lo > below ? tp - below : m->lo;
            uintptr_t hi = m->hi - tp > TLS_ABOVE ? tp + TLS_ABOVE : m->hi;
            /* A thread's TLS sits right above its stack: the window stops at the stack
             * pointer, below which the stack is dead (an allocator's stale words there,
             * such as jemalloc's neighbouring regions of a slab, would hold a leak). */
            if (sp >= lo && sp < tp)
                lo = k < st->n ? red_zone(sp, lo) : sp;
            c->rooting = NM_ROOT_TLS;
            scan_root(c, lo, hi, 0);
        }
    }
}

/* At the program's exit() call: the callee-saved registers it left (nm_exit_frame), else
 * NULL. Set before the fork, read by the child. */
static const uintptr_t *exit_regs_seen;

/* Whether the main thread is alive (the scanning thread itself, or one stopped for the
 * scan); then its stack is live, wherever its stack pointer stands. */
static int main_elsewhere(const scan_state *st)
{
    if (st->self == st->pid)
        return 1;
    for (int k = 0; k < st->n; k++)
        if (st->th[k].tid == st->pid && st->th[k].ok)
            return 1;
    return 0;
}

static void scan_roots(child *c, uintptr_t self_sp, uintptr_t self_tp)
{
    uintptr_t own[NM_MAX_OWN_MAPS][2], stacks[NM_MAX_THREADS][2];
    int n_own = nm_own_maps(own, NM_MAX_OWN_MAPS);
    int n_stacks = nm_thread_stacks(stacks, NM_MAX_THREADS);
    const scan_state *st = c->st;
    for (uint64_t i = 0; i < c->n; i++)
        if ((c->b[i].flags & NM_B_LDSO) && !(c->b[i].flags & NM_B_REACHABLE)) {
            c->b[i].flags |= NM_B_REACHABLE | (uint32_t)NM_ROOT_LDSO << NM_B_ROOT_SHIFT;
            c->stack[c->sp++] = (uint32_t)i;
        }
    /* Registers and the TLS around each thread pointer first, so that a block held there
     * is rooted by its kind even when the mappings below cover the same words (a thread's
     * TLS sits at the top of its stack mapping; the main thread's TLS may share a mapping
     * with heap blocks, which the loop below skips). */
    scan_thread_roots(c, self_tp, self_sp, 1);
    if (exit_regs_seen) {
        c->rooting = NM_ROOT_REGISTERS;
        for (int j = 0; j < NM_EXIT_REGS; j++)
            mark_word(c, exit_regs_seen[j]);
    }
    /* An ended thread's result waits in its descriptor for pthread_join, inside a stack
     * mapping the loop below skips (a gone thread's stack holds stale words): the result a
     * worker returned read as a leak until the join that hands it over. */
    int n_thr;
    const nm_thread_rec *thr = nm_threads(&n_thr);
    c->rooting = NM_ROOT_TLS;
    for (int j = 0; j < n_thr; j++) {
        if ((thr[j].state & (NM_T_USED | NM_T_EXITED | NM_T_DETACHED)) ==
                (NM_T_USED | NM_T_EXITED) && thr[j].result)
            mark_word(c, thr[j].result);
        /* a thread being started: its argument is in no memory a scan reads yet */
        if ((thr[j].state & (NM_T_USED | NM_T_EXITED)) == NM_T_USED && thr[j].arg)
            mark_word(c, thr[j].arg);
    }
    int in_libc = 0, in_self = 0, in_module = 0, in_alloc = 0;
    const char *alloc_name = NULL;
    for (int i = 0; i < c->n_maps; i++) {
        const mapping *m = &c->maps[i];
        const char *name = map_name(c, m);
        /* Another allocator's own data (its free lists and caches keep stale pointers to
         * memory that may be a live block again, of another size) is no root, as the
         * monitor's is not: the program's blocks are never held only there. */
        if (nm_allocator()->base && m->lo == nm_allocator()->base) {
            in_alloc = 1;
            alloc_name = name;
        } else if (in_alloc && (name[0] ? strcmp(name, alloc_name) != 0
                                        : i && c->maps[i - 1].hi != m->lo)) {
            in_alloc = 0;
        }
        if (in_alloc)
            continue;
        /* A module's .bss is the anonymous mapping right after its file mappings. The
         * monitor's own data (this scan's state among it) is never a root. */
        size_t nl = strlen(name);
        /* each sets the other's flag back: libc mapped right after the monitor (as the
         * loader places them now and then) was skipped as the monitor's own .bss, and
         * stdout's buffer read leaked */
        if (nl >= 10 && !strcmp(name + nl - 10, "/libc.so.6")) {
            in_libc = 1;
            in_self = 0;
        } else if (nl >= 21 && !strcmp(name + nl - 21, "/libleakray_native.so")) {
            in_self = 1;
            in_libc = 0;
        } else if (name[0] || (i && c->maps[i - 1].hi != m->lo)) {
            in_libc = 0;
            in_self = 0;
        }
        /* A module's data: its file's mappings and the anonymous .bss right after them. */
        if (name[0] == '/')
            in_module = 1;
        else if (name[0] || (i && c->maps[i - 1].hi != m->lo))
            in_module = 0;
        if (in_self)
            continue;
        if (m->perms[0] != 'r' || m->perms[1] != 'w')
            continue;
        if (!strncmp(name, "/dev/", 5) && strncmp(name, "/dev/zero", 9) &&
            strncmp(name, "/dev/shm/", 9))
            continue;
        if (name[0] == '[' && strcmp(name, "[stack]") && strcmp(name, "[heap]"))
            continue; /* [vvar], [vsyscall] */
        uintptr_t at = m->lo, lo, hi;
        while (next_piece(&at, m->hi, (const uintptr_t (*)[2])own, n_own, NULL, 0, &lo, &hi)) {
            if (holds_block(c, lo, hi))
                continue;
            /* A live thread's stack: from its stack pointer up (words below are dead). */
            uintptr_t from = lo;
            int live = 0, whole = 0;
            if (self_sp >= lo && self_sp < hi) {
                from = self_sp;
                live = 1;
            }
            for (int k = 0; k < st->n; k++) {
                uintptr_t sp = st->th[k].ok ? st->th[k].regs.rsp : 0;
                if (sp >= lo && sp < hi) {
                    sp = red_zone(sp, lo);
                    from = live && from < sp ? from : sp;
                    live = 1;
                }
            }
            if (!live && !strcmp(name, "[stack]") && main_elsewhere(st)) {
                /* The main thread lives, on another stack (a signal handler's alternate
                 * stack, a coroutine of makecontext): where its own stack pointer stands
                 * is not known, so all of its stack is read, as LeakSanitizer does. */
                live = 1;
            } else if (!live) {
                int dead = !strcmp(name, "[stack]");
                for (int k = 0; k < n_stacks && !dead; k++)
                    dead = overlaps(lo, hi, stacks[k][0], stacks[k][1]);
                /* Threads that could not be stopped (too slow to stop, ptrace refused,
                 * too many) run on, where their stacks are: a thread stack no stopped
                 * thread stands on may be one of theirs, so it is read whole. A block
                 * only their locals held is no leak then; one only a dead word of an
                 * ended thread's stack still names is missed. */
                if (dead && (st->n_failed || st->overflow))
                    live = whole = 1;
                else if (dead)
                    continue;
            }
            c->rooting = live ? NM_ROOT_STACK : in_module ? NM_ROOT_GLOBAL : NM_ROOT_ANON;
            if (!name[0] && m->perms[3] == 'p')
                /* a stack read whole: its touched pages only (900 threads' 8 MB stacks
                 * were 7 GB of page faults on untouched memory) */
                each_used(c, from, hi, in_libc, root_run, whole ? 0 : SPARSE_MIN);
            else if (m->perms[3] == 's' && name[0] == '/')
                each_data(c, m, from, hi, in_libc, root_run);
            else
                scan_root(c, from, hi, in_libc);
        }
    }
    scan_thread_roots(c, self_tp, self_sp, 0);
    c->rooting = 0;
    flood(c);
}

/* Blocks pointed to by another unreachable block are indirect (LeakSanitizer's split:
 * a leaked cycle with no outside pointer is all indirect). */
static void mark_indirect(child *c)
{
    for (uint64_t i = 0; i < c->n; i++) {
        const nm_block *b = &c->b[i];
        if (b->flags & NM_B_REACHABLE)
            continue;
        const uintptr_t *w = (const uintptr_t *)b->addr;
        for (uint64_t k = 0; k < b->size / 8; k++) {
            int64_t t = find_block(c, w[k]);
            if (t >= 0 && (uint64_t)t != i && !(c->b[t].flags & NM_B_REACHABLE))
                c->b[t].flags |= NM_B_INDIRECT;
        }
    }
}

/* ---- Child: grouping and writing ---- */

typedef struct group {
    uint64_t key;      /* kind << 32 | trace */
    uint64_t count;    /* blocks */
    uint64_t bytes;    /* bytes */
    uint64_t sample;   /* index of the first block */
} group;

/* Where addr lies: in an executable mapping (1), in a mapping that is no code (0: a heap,
 * stack or data word), or in no mapping at all (-1). c->maps is sorted, as the kernel lists
 * it. */
static int code_kind(const child *c, uintptr_t addr)
{
    int lo = 0, hi = c->n_maps;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (c->maps[mid].hi <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == c->n_maps || c->maps[lo].lo > addr)
        return -1;
    return c->maps[lo].perms[2] == 'x';
}

/* Writes trace id once (seen: one bit per id). */
static void write_trace(wbuf *w, const child *c, uint32_t id, uint8_t *seen)
{
    const uintptr_t *f;
    int depth = nm_trace_get(id, &f);
    if (!depth || (seen[id >> 3] & (1u << (id & 7))))
        return;
    seen[id >> 3] |= (uint8_t)(1u << (id & 7));
    /* A frame-pointer walk through code built without frame pointers can take a stale
     * word (a heap or stack address) for a return address; nothing after it is a frame
     * either. A return address in no mapping at all is code of a library dlclose()d since:
     * it stays, and so do the program's callers after it, unless no code follows it. */
    int maps_whole = c->n_maps > 0 && c->n_maps < MAX_MAPS;
    int last_code = 0;
    for (int k = 1; k < depth && maps_whole; k++) {
        int kind = code_kind(c, f[k]);
        if (kind == 0) {
            depth = k;
            break;
        }
        if (kind == 1)
            last_code = k;
    }
    if (maps_whole)
        depth = last_code + 1;
    w_str(w, "trace ");
    w_u64(w, id);
    for (int k = 0; k < depth; k++) {
        w_str(w, " 0x");
        w_hex(w, f[k]);
    }
    w_ch(w, '\n');
}

static void write_traces_used(wbuf *w, const child *c, const group *g, uint64_t n_groups,
                              uint8_t *seen)
{
    const nm_thread_rec *threads;
    int n_threads;
    threads = nm_threads(&n_threads);
    for (uint64_t i = 0; i < n_groups + (uint64_t)n_threads; i++) {
        uint32_t id = i < n_groups ? (uint32_t)g[i].key : threads[i - n_groups].trace;
        if (i >= n_groups && !(threads[i - n_groups].state & NM_T_USED))
            continue;
        write_trace(w, c, id, seen);
    }
}

static void write_threads(wbuf *w, pid_t monitor)
{
    int n;
    const nm_thread_rec *t = nm_threads(&n);
    uint64_t now = nm_now_ms();
    for (int i = 0; i < n; i++) {
        if (!(t[i].state & NM_T_USED) || (t[i].state & NM_T_DETACHED) || t[i].tid == monitor)
            continue;
        uint64_t age = now - t[i].start_ms;
        if (t[i].state & NM_T_EXITED)
            w_str(w, "thread unjoined ");
        else if (nm_cfg.thread_age_ms && age >= nm_cfg.thread_age_ms)
            w_str(w, "thread running ");
        else
            continue;
        w_u64(w, (uint64_t)t[i].tid);
        w_ch(w, ' ');
        w_u64(w, age);
        w_ch(w, ' ');
        w_u64(w, t[i].trace);
        w_ch(w, '\n');
    }
}

static void write_graph(wbuf *w, child *c)
{
    for (uint64_t i = 0; i < c->n; i++) {
        const nm_block *b = &c->b[i];
        w_str(w, "block 0x");
        w_hex(w, b->addr);
        w_ch(w, ' ');
        w_u64(w, b->size);
        w_ch(w, ' ');
        w_u64(w, b->trace);
        w_ch(w, ' ');
        w_u64(w, b->flags & NM_B_ROOT_MASK ? b->flags >> NM_B_ROOT_SHIFT & 0xff
                 : b->flags & NM_B_REACHABLE ? 0
                 : b->flags & NM_B_INDIRECT  ? 2
                                             : 1);
        const uintptr_t *word = (const uintptr_t *)b->addr;
        for (uint64_t k = 0; k < b->size / 8; k++) {
            int64_t t = find_block(c, word[k]);
            if (t < 0)
                continue;
            w_str(w, " ");
            w_u64(w, k * 8);
            w_str(w, ":0x");
            w_hex(w, c->b[t].addr);
        }
        w_ch(w, '\n');
    }
}

static void block_run(child *c, uintptr_t lo, uintptr_t hi, uintptr_t base, uintptr_t end,
                      int arg)
{
    (void)arg;
    if (sigsetjmp(fault_jmp, 1))
        return; /* unreadable after all: the rest of its blocks are not there to find */
    nm_blocks_in(base, lo, hi, end, collect, c);
}

static void search_range(child *c, uintptr_t lo, uintptr_t hi)
{
    each_used(c, lo, hi, 0, block_run, SPARSE_MIN);
}

/* The blocks: every private anonymous writable mapping (the brk heap, arenas, mmapped
 * chunks) is searched for block headers, except the monitor's own mappings and thread
 * stacks. Adjacent mappings are searched as one range: one heap can span several (brk
 * growth after madvise, a heap split by its flags), and a block may cross the line.
 * Mappings come in address order, and so do the blocks of each. */
static void collect_blocks(child *c)
{
    static uintptr_t own[NM_MAX_OWN_MAPS][2], stacks[NM_MAX_THREADS][2];
    int n_own = nm_own_maps(own, NM_MAX_OWN_MAPS);
    int n_stacks = nm_thread_stacks(stacks, NM_MAX_THREADS);
    uintptr_t run_lo = 0, run_hi = 0;
    for (int i = 0; i < c->n_maps; i++) {
        const mapping *m = &c->maps[i];
        const char *name = map_name(c, m);
        if (m->perms[0] != 'r' || m->perms[1] != 'w' || m->perms[3] != 'p' ||
            (name[0] && strcmp(name, "[heap]")))
            continue;
        uintptr_t at = m->lo, lo, hi;
        while (next_piece(&at, m->hi, (const uintptr_t (*)[2])own, n_own,
                          (const uintptr_t (*)[2])stacks, n_stacks, &lo, &hi)) {
            if (run_hi && run_hi == lo) {
                run_hi = hi;
                continue;
            }
            if (run_hi)
                search_range(c, run_lo, run_hi);
            run_lo = lo;
            run_hi = hi;
        }
    }
    if (run_hi)
        search_range(c, run_lo, run_hi);
}

/* Reads n bytes at `at` of this process (the scan's copy), 0 on success: the kernel copies
 * them, so an address no mapping backs is a failed read, never a fault. */
static int peek_bytes(uintptr_t at, void *buf, size_t n)
{
    struct iovec local = {buf, n}, remote = {(void *)at, n};
    return syscall(SYS_process_vm_readv, getpid(), &local, 1UL, &remote, 1UL, 0UL) == (long)n
               ? 0
               : -1;
}

/* The GNU build id of the ELF file mapped from offset 0 at lo, as hex into out (at least 81
 * bytes), or 0 when there is none: `native report` compares it with the file at the path
 * then (a rebuild between the scan and the report named other functions). */
static int elf_build_id(uintptr_t lo, char *out)
{
    Elf64_Ehdr eh;
    if (peek_bytes(lo, &eh, sizeof eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
        eh.e_phnum == 0 || eh.e_phnum > 256)
        return 0;
    Elf64_Phdr ph[256];
    if (peek_bytes(lo + eh.e_phoff, ph, eh.e_phnum * sizeof ph[0]))
        return 0;
    uintptr_t base = 0;
    int have_base = 0;
    for (unsigned i = 0; i < eh.e_phnum && !have_base; i++)
        if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0) {
            base = lo - (uintptr_t)ph[i].p_vaddr;
            have_base = 1;
        }
    for (unsigned i = 0; i < eh.e_phnum && have_base; i++) {
        if (ph[i].p_type != PT_NOTE || ph[i].p_filesz > 4096)
            continue;
        unsigned char note[4096];
        size_t sz = (size_t)ph[i].p_filesz;
        if (peek_bytes(base + (uintptr_t)ph[i].p_vaddr, note, sz))
            continue;
        for (size_t p = 0; p + 12 <= sz;) {
            uint32_t nsz, dsz, type;
            memcpy(&nsz, note + p, 4);
            memcpy(&dsz, note + p + 4, 4);
            memcpy(&type, note + p + 8, 4);
            size_t name_at = p + 12, desc_at = name_at + ((nsz + 3u) & ~3u);
            if (desc_at > sz || dsz > sz - desc_at)
                break;
            if (type == NT_GNU_BUILD_ID && nsz == 4 && !memcmp(note + name_at, "GNU", 4) &&
                dsz > 0 && dsz <= 40) {
                static const char hx[] = "0123456789abcdef";
                for (uint32_t k = 0; k < dsz; k++) {
                    out[2 * k] = hx[note[desc_at + k] >> 4];
                    out[2 * k + 1] = hx[note[desc_at + k] & 15];
                }
                out[2 * dsz] = 0;
                return 1;
            }
            p = desc_at + ((dsz + 3u) & ~3u);
        }
    }
    return 0;
}

/* The copy holds a duplicate of every descriptor of the program: a socket or pipe the
 * program closes meanwhile got no EOF, a lock held through flock stayed held, until the
 * scan ended (seconds on a big heap); and a program out of descriptors left it none for its
 * report. It needs none of them: all but the standard three are closed first. */
static void close_above_2(long v, void *arg)
{
    (void)arg;
    if (v > 2)
        SYS(SYS_close, v, 0, 0, 0);
}

static void close_inherited(void)
{
    if (SYS(SYS_close_range, 3, ~0u, 0, 0) != 0) /* before Linux 5.9: one by one */
        (void)each_number("/proc/self/fd", 1, close_above_2, NULL);
}

static void child_main(scan_state *st, int reason, const char *tmp, uintptr_t self_sp,
                       uintptr_t self_tp, uint64_t t0_us)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fault;
    sa.sa_flags = SA_NODEFER;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigset_t faults;
    sigemptyset(&faults);
    sigaddset(&faults, SIGSEGV);
    sigaddset(&faults, SIGBUS);
    sigprocmask(SIG_UNBLOCK, &faults, NULL);

    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t start_us = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;

    static child c;
    c.st = st;
    c.cap = 1u << 16;
    c.b = nm_map(c.cap * sizeof(nm_block));
    c.maps = nm_map(MAX_MAPS * sizeof(mapping));
    c.names = nm_map((size_t)MAX_MAPS * 64);
    /* The report quotes leaked blocks' first bytes: the program's user alone reads it. Its
     * name is known in advance, in a folder others may write (the working directory, /tmp):
     * what lies there (a stale report, a link planted to make this process write through it)
     * is removed, never followed, and a file made meanwhile fails the scan. */
    unlink(tmp);
    close_inherited();
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    static wbuf w;
    w.fd = fd;
    if (fd < 0)
        _exit(SCAN_NO_FILE);
    orphan_tmp = tmp;
    sa.sa_handler = on_parent_gone;
    sa.sa_flags = 0;
    sigaction(SIGRTMAX, &sa, NULL);
    sigset_t gone;
    sigemptyset(&gone);
    sigaddset(&gone, SIGRTMAX);
    sigprocmask(SIG_UNBLOCK, &gone, NULL);
    prctl(PR_SET_PDEATHSIG, SIGRTMAX, 0, 0, 0);
    if (getppid() != st->pid) /* it ended before the request */
        on_parent_gone(0);
    if (!c.b || !c.maps || !c.names || read_maps(&c) < 0)
        _exit(3);
    collect_blocks(&c);
    uint64_t cap = c.n + 1;
    nm_block *tmpb = nm_map(cap * sizeof(nm_block));
    uint32_t *count = nm_map(sizeof(uint32_t) << 16);
    c.stack = nm_map(cap * sizeof(uint32_t));
    if (!tmpb || !count || !c.stack)
        _exit(3);
    if (c.n) {
        int sorted = 1;
        for (uint64_t i = 1; i < c.n && sorted; i++)
            sorted = c.b[i - 1].addr < c.b[i].addr;
        if (!sorted)
            sort_blocks(c.b, tmpb, c.n, count);
        c.lo = c.b[0].addr;
        c.hi = c.b[c.n - 1].addr + c.b[c.n - 1].size + 1;
        regions_build(&c);
    }
    scan_roots(&c, self_sp, self_tp);
    mark_indirect(&c);

    /* Group unreachable blocks by (kind, trace): sort their keys with the same radix sort,
     * reusing tmpb as (key, index) pairs. */
    uint64_t n_leak = 0, heap_bytes = 0;
    for (uint64_t i = 0; i < c.n; i++) {
        heap_bytes += c.b[i].size;
        if (c.b[i].flags & NM_B_REACHABLE)
            continue;
        uint64_t kind = c.b[i].flags & NM_B_INDIRECT ? 2 : 1;
        tmpb[n_leak].addr = (uintptr_t)(kind << 32 | c.b[i].trace);
        tmpb[n_leak].size = i;
        n_leak++;
    }
    nm_block *keys = tmpb, *keys_tmp = tmpb + n_leak;
    if (n_leak && 2 * n_leak <= cap)
        sort_blocks(keys, keys_tmp, n_leak, count);
    else if (n_leak) {
        nm_block *t2 = nm_map(n_leak * sizeof(nm_block));
        if (t2)
            sort_blocks(keys, t2, n_leak, count);
    }
    group *g = nm_map((n_leak + 1) * sizeof(group));
    uint64_t n_groups = 0;
    for (uint64_t i = 0; i < n_leak; i++) {
        const nm_block *b = &c.b[keys[i].size];
        if (!n_groups || g[n_groups - 1].key != keys[i].addr) {
            g[n_groups].key = keys[i].addr;
            g[n_groups].count = 0;
            g[n_groups].bytes = 0;
            g[n_groups].sample = keys[i].size;
            n_groups++;
        }
        g[n_groups - 1].count++;
        g[n_groups - 1].bytes += b->size;
    }

    w_str(&w, "leakray-native 3\npid ");
    w_u64(&w, (uint64_t)st->pid);
    char exe[4096];
    ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[el > 0 ? el : 0] = 0;
    w_str(&w, "\nexe ");
    w_str(&w, exe);
    static const char *const reasons[] = {"exit", "signal", "socket", "timer"};
    w_str(&w, "\nreason ");
    w_str(&w, reasons[reason]);
    clock_gettime(CLOCK_REALTIME, &ts);
    w_str(&w, "\ntime_ms ");
    w_u64(&w, (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
    w_str(&w, "\ncapture ");
    w_str(&w, st->n_failed || st->overflow ? "failed " : "ok ");
    w_u64(&w, (uint64_t)st->n + 1);
    w_ch(&w, ' ');
    w_u64(&w, (uint64_t)st->n_failed + (uint64_t)st->overflow);
    if (st->n_failed || st->overflow) {
        w_ch(&w, ' ');
        w_str(&w, st->overflow ? "too many threads" : st->err);
    }
    w_str(&w, "\nbacktrace ");
    w_str(&w, nm_cfg.bt_mode == NM_BT_NONE ? "none" : nm_cfg.bt_mode == NM_BT_FP ? "fp"
                                                                                 : "libunwind");
    w_ch(&w, ' ');
    w_u64(&w, (uint64_t)nm_cfg.depth);
    w_ch(&w, ' ');
    w_u64(&w, nm_cfg.sample_bytes);
    const nm_alloc_info *ai = nm_allocator();
    w_str(&w, "\nallocator ");
    w_str(&w, ai->name);
    w_str(&w, ai->tracked ? " tracked" : " bypassed");
    if (ai->note[0]) {
        w_ch(&w, ' ');
        w_str(&w, ai->note);
    }
    w_str(&w, "\nheap ");
    w_u64(&w, c.n);
    w_ch(&w, ' ');
    w_u64(&w, heap_bytes);
    w_ch(&w, '\n');
    for (int i = 0; i < c.n_maps; i++) {
        const mapping *m = &c.maps[i];
        const char *name = map_name(&c, m);
        if (name[0] != '/' || (m->perms[2] != 'x' && m->off != 0))
            continue;
        w_str(&w, "map 0x");
        w_hex(&w, m->lo);
        w_str(&w, " 0x");
        w_hex(&w, m->hi);
        w_ch(&w, ' ');
        w_str(&w, m->perms);
        w_str(&w, " 0x");
        w_hex(&w, m->off);
        w_ch(&w, ' ');
        w_str(&w, name);
        w_ch(&w, '\n');
        char bid[96];
        if (m->off == 0 && elf_build_id(m->lo, bid)) {
            w_str(&w, "build ");
            w_str(&w, bid);
            w_ch(&w, ' ');
            w_str(&w, name);
            w_ch(&w, '\n');
        }
    }
    uint8_t *seen = nm_map(((size_t)(nm_trace_count() + 1) * (2 + NM_MAX_DEPTH) + 8) / 8 + 1);
    if (seen)
        write_traces_used(&w, &c, g, n_groups, seen);
    /* The heap graph names every block's allocation site: every trace goes out. */
    for (uint32_t id = nm_cfg.graph && seen ? nm_trace_next(0) : 0; id; id = nm_trace_next(id))
        write_trace(&w, &c, id, seen);
    for (uint64_t i = 0; i < n_groups; i++) {
        const nm_block *b = &c.b[g[i].sample];
        w_str(&w, g[i].key >> 32 == 2 ? "leak indirect " : "leak direct ");
        w_u64(&w, (uint32_t)g[i].key);
        w_ch(&w, ' ');
        w_u64(&w, g[i].count);
        w_ch(&w, ' ');
        w_u64(&w, g[i].bytes);
        w_str(&w, " 0x");
        w_hex(&w, b->addr);
        w_ch(&w, ' ');
        uint64_t nb = b->size < CONTENT_BYTES ? b->size : CONTENT_BYTES;
        if (!nb)
            w_ch(&w, '-');
        for (uint64_t k = 0; k < nb; k++) {
            uint8_t v = ((const uint8_t *)b->addr)[k];
            w_ch(&w, "0123456789abcdef"[v >> 4]);
            w_ch(&w, "0123456789abcdef"[v & 15]);
        }
        w_ch(&w, '\n');
    }
    write_threads(&w, nm_monitor_tid());
    if (nm_cfg.graph)
        write_graph(&w, &c);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t end_us = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
    w_str(&w, "scan_us ");
    w_u64(&w, end_us - start_us);
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        w_str(&w, "\nscan_cpu_us ");
        w_u64(&w, (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000u +
                      (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec));
    }
    w_str(&w, "\nfork_us ");
    w_u64(&w, start_us - t0_us);
    /* The program's times, which it knows once its threads run again (long before this):
     * written here, as a program without a free descriptor could not open the report */
    if (tracer_wait(st, &times->timed) != 0)
        on_parent_gone(0);
    w_str(&w, "\nstop_us ");
    w_u64(&w, times->stop_us);
    w_str(&w, "\nfork_call_us ");
    w_u64(&w, times->fork_call_us);
    w_str(&w, "\npause_us ");
    w_u64(&w, times->pause_us);
    w_str(&w, "\nend\n");
    w_flush(&w);
    _exit(w.failed ? 4 : 0);
}

/* ---- The scanning thread ---- */

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int scan_busy;
#define EXIT_WAIT_MS 60000 /* how long the exit's scan waits for a running one */
static unsigned scan_seq;

static void out_path(char *dst, size_t n, pid_t pid, unsigned seq)
{
    const char *t = nm_cfg.out[0] ? nm_cfg.out : "leakray-native.%p.%n.lrn";
    size_t k = 0;
    for (; *t && k + 24 < n; t++) {
        if (t[0] == '%' && (t[1] == 'p' || t[1] == 'n')) {
            k = (size_t)(fmt_u64(dst + k, t[1] == 'p' ? (uint64_t)pid : seq) - dst);
            t++;
        } else {
            dst[k++] = *t;
        }
    }
    dst[k] = 0;
}

/* Forks with a raw clone: no atfork handlers, no malloc locks (a stopped thread may hold
 * one); exit signal 0 so the application's SIGCHLD handling never sees the child. */
__attribute__((noinline)) static pid_t raw_fork(uintptr_t *sp)
{
    __builtin_unwind_init(); /* callee-saved registers spilled into this frame: scanned */
    *sp = (uintptr_t)__builtin_frame_address(0);
    return (pid_t)syscall(SYS_clone, 0, 0, 0, 0, 0);
}

/* ---- Huge pages for the heap, before the threads stop ----
 * The pause is mostly fork copying the page tables: one entry and one page reference per
 * 4 KiB page of heap, one per 2 MiB on a transparent huge page. So before each scan, while
 * the threads still run, glibc's heap (the brk heap, its arenas and its mmapped chunks,
 * recognised by their headers; never the program's own mappings) is marked MADV_HUGEPAGE,
 * so its new pages come huge, and every 2 MiB range at least half resident is collapsed
 * into a huge page (MADV_COLLAPSE, Linux 6.1; a no-op for ranges already huge). Ranges
 * mostly absent are left alone: collapsing them would fill them in. Errors (an older kernel,
 * THP off) leave the heap as it was. What the program writes while a child exists splits
 * huge pages again (copy-on-write), so later scans collapse what was written since.
 * Collapsing copies memory, so it has a budget of HUGE_BUDGET_MS a scan (the advice itself
 * costs nothing): on a 1-2 GB heap still growing it took 3 to 25 s, while the threads ran on
 * and grew the heap, to save 20-80 ms of pause; the exit's scan collapses nothing (the
 * process ends: its pause stops no one). Later scans go on where the budget ended. */
#define HUGE_BUDGET_MS 100

#define HUGE_BYTES ((uintptr_t)2 << 20)
#define ARENA_HEAP ((uintptr_t)64 << 20) /* glibc's HEAP_MAX_SIZE on 64-bit */
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

/* The program's threads still run here: one may unmap a mapping between the maps read and
 * this look at its first words (a pool, a thread's stack, glibc freeing a chunk). The kernel
 * copies them, so a mapping gone is a failed read, never a fault in the program. */
static int peek_words(uintptr_t at, uint64_t *w, size_t n)
{
    struct iovec local = {w, n * sizeof *w}, remote = {(void *)at, n * sizeof *w};
    return syscall(SYS_process_vm_readv, getpid(), &local, 1UL, &remote, 1UL, 0UL) ==
                   (long)(n * sizeof *w)
               ? 0
               : -1;
}

static int glibc_heap(const mapping *m, const char *name)
{
    if (!strcmp(name, "[heap]"))
        return 1;
    if (name[0] || m->hi - m->lo < HUGE_BYTES)
        return 0;
    uint64_t w[3];
    if (peek_words(m->lo, w, 3) != 0)
        return 0;
    if (m->lo % ARENA_HEAP == 0) /* an arena's heap: heap_info {arena, prev, size, ...} */
        return w[0] && w[2] && w[2] <= ARENA_HEAP;
    /* An mmapped chunk: its size, flagged IS_MMAPPED, spans the mapping's start. */
    return (w[1] & 2) && (w[1] & ~(uint64_t)7) >= HUGE_BYTES &&
           (w[1] & ~(uint64_t)7) <= m->hi - m->lo;
}

static void heap_huge(int collapse)
{
    static child m;
    static uintptr_t resume; /* where the last scan's collapsing stopped (the budget) */
    uint64_t until = nm_now_ms() + HUGE_BUDGET_MS;
    m.n_maps = 0;
    m.names_len = 0;
    m.maps = nm_map(MAX_MAPS * sizeof(mapping));
    m.names = nm_map((size_t)MAX_MAPS * 64);
    if (m.maps && m.names && read_maps(&m) == 0) {
        unsigned char vec[HUGE_BYTES / 4096];
        for (int i = 0; i < m.n_maps; i++) {
            const mapping *mp = &m.maps[i];
            if (strcmp(mp->perms, "rw-p") || !glibc_heap(mp, map_name(&m, mp)))
                continue;
            /* An arena's heap is advised whole, its reserved (PROT_NONE) part included, so
             * that what glibc opens later comes huge and stays one mapping. */
            const char *name = map_name(&m, mp);
            size_t span = !name[0] && mp->lo % ARENA_HEAP == 0 ? ARENA_HEAP : mp->hi - mp->lo;
            if (madvise((void *)mp->lo, span, MADV_HUGEPAGE) != 0 && errno != ENOMEM)
                continue;
            uintptr_t lo = (mp->lo + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1);
            if (resume > lo && resume < mp->hi)
                lo = resume;
            for (uintptr_t a = lo; collapse && a + HUGE_BYTES <= mp->hi; a += HUGE_BYTES) {
                if (nm_now_ms() >= until) {
                    resume = a;
                    collapse = 0;
                    break;
                }
                if (mincore((void *)a, HUGE_BYTES, vec) != 0)
                    break;
                size_t in = 0;
                for (size_t k = 0; k < sizeof vec; k++)
                    in += vec[k] & 1;
                if (in >= sizeof vec / 2 && madvise((void *)a, HUGE_BYTES, MADV_COLLAPSE) &&
                    errno == EINVAL)
                    break; /* no MADV_COLLAPSE in this kernel */
            }
        }
        if (collapse)
            resume = 0; /* every range was seen: the next scan starts over */
    }
    if (m.maps)
        nm_unmap(m.maps, MAX_MAPS * sizeof(mapping));
    if (m.names)
        nm_unmap(m.names, (size_t)MAX_MAPS * 64);
}

void nm_scan_mark_forked(void)
{
    char p[600 + sizeof NM_FORKED_SUFFIX];
    out_path(p, 600, (pid_t)syscall(SYS_getpid), 0);
    size_t k = strlen(p);
    memcpy(p + k, NM_FORKED_SUFFIX, sizeof NM_FORKED_SUFFIX);
    int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
}

/* Mappings the program marked do-not-fork (MADV_DONTFORK, smaps' "dc": V8's heap pages, RDMA
 * buffers) are not in the fork a scan searches, and those marked wipe-on-fork
 * (MADV_WIPEONFORK, "wf": a random generator's state) are zero there: every block only they
 * point to read as leaked (a clean `node` showed 441). Such a mapping is made an ordinary one
 * for the fork alone: listed once before the pause, only in a program that asked madvise for
 * either (nm_fork_advised; most never do, and a scan of theirs reads nothing more), listed
 * again while the other threads are stopped so that no mapping changed between the two,
 * MADV_DOFORK (MADV_KEEPONFORK) for the fork, its flag put back before they run. As many as
 * /proc/self/maps can list (MAX_MAPS): a 1.7 GB V8 heap has 4,844. */
typedef struct forkflag {
    uintptr_t lo, hi;
    uint8_t dc, wf; /* do-not-fork, wipe-on-fork: either or both */
} forkflag;
static forkflag forkflags[MAX_MAPS];
static int n_forkflags;

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif
#ifndef MADV_KEEPONFORK
#define MADV_KEEPONFORK 19
#endif

/* Whether a VmFlags line (after "VmFlags:") holds the two-letter flag f. */
static int vm_flag(const char *p, const char *f)
{
    for (; *p; p++)
        if (p[0] == f[0] && p[1] == f[1] && p[-1] == ' ' && (!p[2] || p[2] == ' '))
            return 1;
    return 0;
}

/* Fills forkflags[] from /proc/self/smaps; returns how many, or 0 on any failure. */
static int list_forkflags(void)
{
    n_forkflags = 0;
    int fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    static char buf[1 << 15], line[512];
    size_t len = 0;
    uintptr_t lo = 0, hi = 0;
    ssize_t got;
    while ((got = read(fd, buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < got; i++) {
            if (buf[i] != '\n') {
                if (len + 1 < sizeof line)
                    line[len++] = buf[i];
                continue;
            }
            line[len] = 0;
            len = 0;
            const char *p = line;
            if ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')) { /* lo-hi perms ... */
                uintptr_t v[2] = {0, 0};
                for (int k = 0; k < 2; k++, p++)
                    for (; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'); p++)
                        v[k] = v[k] * 16 + (uintptr_t)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
                lo = v[0];
                hi = v[1];
            } else if (!strncmp(p, "VmFlags:", 8) && hi > lo && n_forkflags < MAX_MAPS) {
                int dc = vm_flag(p + 8, "dc"), wf = vm_flag(p + 8, "wf");
                if (dc || wf)
                    forkflags[n_forkflags++] = (forkflag){lo, hi, (uint8_t)dc, (uint8_t)wf};
                hi = lo = 0;
            }
        }
    }
    close(fd);
    return got < 0 ? (n_forkflags = 0) : n_forkflags;
}

/* Makes the listed mappings ordinary for the fork (on = 1) or puts their flags back (0). Only
 * flags whose madvise took are put back: a device's mapping refuses MADV_DOFORK, and stays
 * as it was. */
static void forkflags_open(int on)
{
    for (int i = 0; i < n_forkflags; i++) {
        forkflag *f = &forkflags[i];
        void *a = (void *)f->lo;
        size_t len = f->hi - f->lo;
        if (on) {
            if (f->dc && madvise(a, len, MADV_DOFORK) != 0)
                f->dc = 0; /* nothing to put back */
            if (f->wf && madvise(a, len, MADV_KEEPONFORK) != 0)
                f->wf = 0;
        } else {
            if (f->dc)
                madvise(a, len, MADV_DONTFORK);
            if (f->wf)
                madvise(a, len, MADV_WIPEONFORK);
        }
    }
}

/* Set once the exit's scan waits: no other scan starts after it. */
static int exit_waits;

int nm_scan_run(int reason, char *path, size_t n)
{
    /* The exit's scan waits for a running one (signal, timer, socket) to end: it is the
     * program's last word, and giving up left that one's report unfinished. Scans asked for
     * meanwhile are refused, or `check` requests back to back took the lock each time it
     * came free and the exit's scan was dropped. */
    if (reason == NM_REASON_EXIT) {
        __atomic_store_n(&exit_waits, 1, __ATOMIC_RELEASE);
    } else if (__atomic_load_n(&exit_waits, __ATOMIC_ACQUIRE)) {
        str_copy(path, n, "the program is exiting: its exit's scan comes next");
        return -1;
    }
    for (int waited = 0; __atomic_exchange_n(&scan_busy, 1, __ATOMIC_ACQUIRE); waited++) {
        if (reason != NM_REASON_EXIT || waited >= EXIT_WAIT_MS / 10) {
            str_copy(path, n, "a scan is already running");
            return -1;
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    int g = nm_guard_set(1);
    unsigned seq = ++scan_seq;
    pid_t pid = getpid();
    char final[600], tmp[620];
    out_path(final, sizeof final, pid, seq);
    size_t fl = strlen(final);
    memcpy(tmp, final, fl);
    memcpy(tmp + fl, ".tmp", 5);

    scan_state *st = nm_map(sizeof *st);
    char *tstack = nm_map(TRACER_STACK);
    times = mmap(NULL, sizeof *times, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (times == MAP_FAILED)
        times = NULL;
    int rc = -1;
    if (!st || !tstack || !times) {
        str_copy(path, n, "out of memory");
        goto out;
    }
    st->pid = pid;
    st->self = (pid_t)syscall(SYS_gettid);
    /* Another allocator's memory is left as it manages it. */
    if (nm_cfg.huge_pages && nm_allocator()->glibc)
        heap_huge(reason != NM_REASON_EXIT);
    /* The tracer may attach only to a dumpable process; the program's own choice (a secret
     * keeper's 0, or the kernel's after a change of user) is put back once it detached. */
    int dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
    if (dumpable != 1)
        prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);

    /* Every signal stays blocked until the tracer and the child exist: both inherit the
     * application's handlers, and a handler run there (a shell's SIGCHLD handler reaping
     * our ptrace stops, say) would work on the application's memory from the wrong task. */
    int any_forkflags = __atomic_load_n(&nm_fork_advised, __ATOMIC_RELAXED) &&
                        list_forkflags() > 0;
    sigset_t all, old_mask;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old_mask);
    uint64_t t0 = now_us();
    nm_tables_lock();
    pid_t tids[2];
    pid_t tracer = -1;
    int ptracer_set = 0, alone = list_tids(pid, tids, 2) <= 1;
    if (!alone) {
        tracer = clone(tracer_main, tstack + TRACER_STACK, CLONE_VM | CLONE_FS | CLONE_FILES |
                       CLONE_UNTRACED, st);
        if (tracer < 0) {
            str_copy(st->err, sizeof st->err, "cannot start the tracer");
            st->n_failed = 1;
        } else {
            ptracer_set = prctl(PR_SET_PTRACER, tracer, 0, 0, 0) == 0;
            fx_set(&st->go);
            while (!__atomic_load_n(&st->phase, __ATOMIC_ACQUIRE)) {
                if (now_us() - t0 > STOP_TIMEOUT_MS * 1000ull) {
                    /* A tracer stuck in a wait never detaches: killing it lets the kernel
                     * resume every thread it holds; the scan then says it is unreliable. */
                    kill(tracer, SIGKILL);
                    int ks;
                    while (waitpid(tracer, &ks, __WALL) < 0 && errno == EINTR)
                        ;
                    tracer = -1;
                    str_copy(st->err, sizeof st->err, "timed out stopping threads");
                    /* the threads it held run again: none of them counts as stopped */
                    pid_t some[2];
                    int all = list_tids(pid, some, 2);
                    st->n_failed = all > 1 ? all - 1 : 1;
                    st->n = 0;
                    break;
                }
                fx_wait(&st->phase, 10000000);
            }
        }
    }
    uint64_t t_stopped = now_us();
    /* only while nothing else runs: a mapping changed meanwhile would be flagged wrongly */
    int reopen = any_forkflags && (alone || tracer > 0) && list_forkflags() > 0;
    if (reopen)
        forkflags_open(1);
    /* before the fork: it asks which thread this is */
    uintptr_t sp, ef = reason == NM_REASON_EXIT ? nm_exit_frame(&exit_regs_seen) : 0;
    if (!ef)
        exit_regs_seen = NULL;
    pid_t kid = raw_fork(&sp);
    if (kid == 0)
        child_main(st, reason, tmp, ef > sp ? ef : sp, (uintptr_t)__builtin_thread_pointer(),
                   t0);
    uint64_t t_forked = now_us();
    if (reopen)
        forkflags_open(0);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    /* The threads run again once the tracer detaches them; realloc opens right away. But
     * at exit they stay stopped until the copy is done: the process ends with them anyway,
     * and a busy pool running on beside the copy left it a 900th of the CPU (900 threads:
     * no report after 180 s). */
    int hold = reason == NM_REASON_EXIT && kid > 0;
    if (!hold)
        fx_set(&st->release);
    nm_tables_unlock();
    uint64_t pause = now_us() - t0;
    times->stop_us = t_stopped - t0;
    times->fork_call_us = t_forked - t_stopped;
    times->pause_us = pause;
    fx_set(&times->timed);
    if (!hold)
        tracer_join(tracer, ptracer_set, dumpable);
    if (kid < 0) {
        str_copy(path, n, "fork failed");
        goto out;
    }
    int status = 0;
    while (waitpid(kid, &status, __WALL) < 0 && errno == EINTR)
        ;
    if (hold) {
        fx_set(&st->release);
        tracer_join(tracer, ptracer_set, dumpable);
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == SCAN_NO_FILE) {
        /* The same call here gives the reason the scanning process could not tell. */
        int e = 0, t = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (t < 0)
            e = errno;
        else
            close(t);
        char *p = path;
        size_t left = n;
        const char *parts[] = {"cannot create ", tmp, ": ", e ? strerror(e) : "unknown error"};
        for (int i = 0; i < 4 && left > 1; i++) {
            str_copy(p, left, parts[i]);
            size_t k = strlen(p);
            p += k;
            left -= k;
        }
        unlink(tmp);
        goto out;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        str_copy(path, n, "the scanning process failed");
        unlink(tmp);
        goto out;
    }
    if (rename(tmp, final) == 0) {
        str_copy(path, n, final);
        rc = 0;
    } else {
        str_copy(path, n, "cannot write the report");
    }
out:
    if (times)
        munmap(times, sizeof *times);
    times = NULL;
    if (st)
        nm_unmap(st, sizeof *st);
    if (tstack)
        nm_unmap(tstack, TRACER_STACK);
    nm_guard_set(g);
    __atomic_store_n(&scan_busy, 0, __ATOMIC_RELEASE);
    return rc;
}
