/* SPDX-License-Identifier: Apache-2.0 */
/* nm.h: internals shared by the files of libleakray_native.so (agents layer), prefix nm_.
 * The library is an LD_PRELOAD malloc monitor: nm_alloc.c interposes the malloc family and
 * keeps each live block's record (size, backtrace id) in a header in front of the block,
 * holding no pointer, so the monitor's memory never looks like a pointer into the heap;
 * nm_scan.c stops the threads with ptrace, forks, finds the blocks by their headers and
 * marks from the roots in the child;
 * nm_ctl.c reads the configuration, owns the monitor thread (signal, socket, timer), the
 * at-exit scan, fork and dlopen handling, and the thread registry. Nothing here may call the
 * application's malloc while the depot lock is held; the scanning child calls no libc function
 * that may allocate or lock. The report format written by nm_scan.c is docs/native.md. */
#ifndef LR_NM_H
#define LR_NM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define NM_API __attribute__((visibility("default")))
#define NM_TLS __attribute__((tls_model("initial-exec")))

#define NM_NOSTORE_SUFFIX ".nostore" /* beside a scan the store did not take (cmd_native.c) */
#define NM_FORKED_SUFFIX ".forked"   /* a forked child's mark: its scan 0's path + this */
#define NM_MAX_DEPTH 64     /* frames a backtrace may hold */
#define NM_MAX_THREADS 4096 /* threads the registry tracks at once */
#define NM_MAX_OWN_MAPS 1024 /* own mappings: depot, realloc flags, scan arrays */

enum nm_bt_mode { NM_BT_NONE, NM_BT_FP, NM_BT_LIBUNWIND };

/* Configuration, read once from LEAKRAY_NATIVE_* (docs/native.md) before the first scan. */
typedef struct nm_config {
    int bt_mode;              /* enum nm_bt_mode */
    int depth;                /* frames per backtrace, 1..NM_MAX_DEPTH */
    uint64_t sample_bytes;    /* backtrace one block per this many bytes (0 = every block) */
    int at_exit;              /* scan when the process exits */
    int signo;                /* scan on this signal (0 = none) */
    int interval_s;           /* scan every this many seconds (0 = never) */
    int children;             /* keep the monitor in exec'd children */
    int fork_marks;           /* a forked child leaves a mark where its reports go (run) */
    int graph;                /* also write every block and pointer (heap graph) */
    int huge_pages;           /* put glibc's heap on transparent huge pages before a scan */
    uint64_t thread_age_ms;   /* report threads running longer than this (0 = never) */
    char out[512];            /* report path template: %p pid, %n scan number */
    char socket_name[108];    /* abstract unix socket name ("" = none) */
    char store[1024];         /* leak store URL each scan goes to ("" = none; "default") */
    char leakray[1024];       /* the leakray binary that records a scan in the store */
    char app[128];            /* application name and version for the store ("" = none) */
    char version[128];
} nm_config;

extern nm_config nm_cfg;

/* Zero blocks of up to NM_ZERO_MAX bytes as they are handed out (LEAKRAY_NATIVE_ZERO, on
 * unless 0; nm_alloc.c): read by every allocation, so outside nm_cfg, set before the first
 * scan and valid from the first malloc. */
extern int nm_zero;
/* Set once the program asked madvise for MADV_DONTFORK or MADV_WIPEONFORK (nm_ctl.c): only
 * then does a scan look for such mappings. */
extern int nm_fork_advised;

/* One live block, as the scanning child collects it from the heap. */
typedef struct nm_block {
    uintptr_t addr;   /* first byte of the block */
    uint64_t size;    /* bytes requested */
    uint32_t trace;   /* stack-depot id, 0 = none recorded */
    uint32_t flags;   /* NM_B_* while marking */
} nm_block;

/* The allocator the hooks forward to, for the report's "allocator" line (docs/native.md). */
typedef struct nm_alloc_info {
    char name[64];   /* "glibc", or the file name of the library defining malloc */
    int tracked;     /* 0: another malloc is found before the monitor's, nothing is tracked */
    int glibc;       /* the blocks are glibc's chunks (their headers confirm a block) */
    uintptr_t base;  /* where another allocator's library is mapped (0: glibc or unknown) */
    char note[256];  /* what is not tracked, "" = nothing known */
} nm_alloc_info;

/* ---- nm_alloc.c ---- */
void nm_alloc_init(void);
const nm_alloc_info *nm_allocator(void);
/* Sets or clears the calling thread's guard: while set, the hooks pass straight to libc and
 * record nothing (the monitor's own allocations). Returns the previous value. */
int nm_guard_set(int on);
/* The calling thread ends (its realloc flag goes back to the pool). */
void nm_alloc_thread_exit(void);
/* Freezes the blocks (no thread inside realloc's window, where a block has no valid header;
 * the depot lock held) / thaws them. Used around fork and scans. */
void nm_tables_lock(void);
void nm_tables_unlock(void);
/* After fork in the child: locks reinitialised (held ones belong to threads now gone). */
void nm_tables_reinit_child(void);
/* In the scanning child: calls fn(addr, size, trace, flags, arg) for every live block whose
 * header lies in [lo, hi), in address order, within the readable range [base, end) (base <=
 * lo, hi <= end: the range whose part in use [lo, hi) is; a block's chunk may start before
 * lo, past an over-aligned block's untouched gap, and run past hi). flags: NM_E_*. */
void nm_blocks_in(uintptr_t base, uintptr_t lo, uintptr_t hi, uintptr_t end,
                  void (*fn)(uintptr_t, uint64_t, uint32_t, uint32_t, void *), void *arg);
#define NM_E_LDSO 1u /* allocated by the dynamic linker: reachable by definition */
/* Records the calling thread's backtrace in the depot and returns its id (0 if none). */
uint32_t nm_trace_here(int skip);
/* Frames of depot entry id: returns depth and points *frames at them (read-only). */
int nm_trace_get(uint32_t id, const uintptr_t **frames);
uint32_t nm_trace_count(void);
/* Next depot id after id (0 starts), 0 after the last: walks every trace. */
uint32_t nm_trace_next(uint32_t id);
/* Stack bounds of the calling thread for frame-pointer walks (set by the thread wrapper). */
void nm_thread_stack_set(uintptr_t hi);
/* mmap that registers the range as the monitor's own (skipped as a root by the scan). */
void *nm_map(size_t size);
void nm_unmap(void *p, size_t size);
int nm_own_maps(uintptr_t (*ranges)[2], int max);

/* ---- nm_scan.c ---- */
/* Reads what the scan needs from ld.so while locks may still be taken (at load). */
void nm_scan_init(void);
enum nm_reason { NM_REASON_EXIT, NM_REASON_SIGNAL, NM_REASON_SOCKET, NM_REASON_TIMER };
/* Runs one scan: stops the other threads, forks, marks in the child, writes the report.
 * Returns 0 and the report path in path (size n), or -1 with a reason in path. Serialised. */
int nm_scan_run(int reason, char *path, size_t n);
/* Leaves the empty file NM_FORKED_SUFFIX names beside where this process's reports go, so
 * that `native run` can say which forked children wrote none. System calls only: it runs in
 * a child right after fork. */
void nm_scan_mark_forked(void);

/* ---- nm_ctl.c ---- */
/* The stack pointer at the program's own exit() call when the calling thread is the one
 * that made it, else 0: where the at-exit scan starts reading that thread's stack; *regs
 * then points at the NM_EXIT_REGS callee-saved registers the call left (roots too). */
#define NM_EXIT_REGS 6
uintptr_t nm_exit_frame(const uintptr_t **regs);
/* Thread registry snapshot for the report (called in the scanning child). */
typedef struct nm_thread_rec {
    pthread_t handle;    /* pthread_t of the thread */
    pid_t tid;           /* kernel thread id (0 until it started) */
    uint32_t trace;      /* depot id of the pthread_create call */
    uint32_t state;      /* NM_T_* bits */
    uint64_t start_ms;   /* CLOCK_MONOTONIC at creation, ms */
    uintptr_t stack_lo;  /* stack mapping of the thread (set when it starts) */
    uintptr_t stack_hi;  /* end of the stack mapping (includes its TCB and static TLS) */
    uintptr_t result;    /* what the thread returned or gave pthread_exit (NM_T_EXITED) */
    uintptr_t arg;       /* its start routine's argument, until the thread's stack holds it */
} nm_thread_rec;
#define NM_T_USED 1u     /* slot in use */
#define NM_T_EXITED 2u   /* start routine returned or pthread_exit called */
#define NM_T_DETACHED 4u /* detached (attribute or pthread_detach) */
const nm_thread_rec *nm_threads(int *n);
/* Stack mappings of every thread the wrapper started, live or not: [lo, hi) pairs. Stacks of
 * threads that are not live at a scan hold stale words and are skipped as roots. */
int nm_thread_stacks(uintptr_t (*ranges)[2], int max);
pid_t nm_monitor_tid(void);
uint64_t nm_now_ms(void);

#endif
