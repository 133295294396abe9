/* SPDX-License-Identifier: Apache-2.0 */
/* nscan.h: native leak scan reports (format layer), prefix nscan_. A scan report is the text
 * file libleakray_native.so writes from its forked scanner (docs/native.md): header lines,
 * the process's executable mappings, the backtraces in use, leak groups (direct/indirect,
 * per backtrace), thread leaks, optionally every block with its outgoing pointers (the heap
 * graph), timings and an "end" line. nscan_parse checks every line and number (the file is
 * untrusted: a truncated or hostile report gives one error with its byte offset) and fills
 * an nscan_report whose arrays it owns; nscan_symbolize then names the frames from the
 * mapped files' DWARF (libdw), or as module+offset when there is none. */
#ifndef LR_FORMAT_NSCAN_H
#define LR_FORMAT_NSCAN_H

#include "base/err.h"
#include "base/mfile.h"

#include <stdint.h>

#define NSCAN_CONTENT_MAX 32 /* first bytes of a block a group shows */

enum nscan_kind { NSCAN_DIRECT = 1, NSCAN_INDIRECT = 2 };
enum nscan_thread_kind { NSCAN_UNJOINED = 1, NSCAN_RUNNING = 2 };
/* Block states from a root: by a root of unrecorded kind (version 1 reports), a module's
 * data or .bss, a live thread's stack, a stopped thread's registers, the TLS around a thread
 * pointer, the dynamic linker's own allocations, other anonymous memory. */
enum nscan_root {
    NSCAN_HELD_BY_ROOT = 3,
    NSCAN_ROOT_GLOBAL,
    NSCAN_ROOT_STACK,
    NSCAN_ROOT_REGISTERS,
    NSCAN_ROOT_TLS,
    NSCAN_ROOT_LDSO,
    NSCAN_ROOT_ANON
};

typedef struct nscan_map {
    uint64_t lo, hi;   /* [lo, hi) in the process */
    uint64_t off;      /* file offset of lo */
    int exec;          /* mapped executable */
    const char *path;  /* file (owned by the report) */
    const char *build; /* the file's GNU build id (hex) at the scan, or NULL */
    int stale;         /* nscan_symbolize: the file at path now has another build id */
} nscan_map;

typedef struct nscan_frame {
    uint64_t ip;        /* return address as recorded */
    const char *module; /* basename of the mapped file, or NULL (owned by the report) */
    uint64_t rel;       /* ip - load base of module (stable across runs) */
    const char *func;   /* function name, NULL when unknown */
    uint64_t func_off;  /* ip - function start */
    const char *file;   /* source file, NULL when no line info */
    int line;           /* source line, 0 when none */
    int inlined;        /* 1: a function inlined at this address, with the same ip, module
                         * and rel as the frame after it, which calls it (no func_off) */
} nscan_frame;

typedef struct nscan_trace {
    uint32_t id;          /* id in the report */
    uint32_t n_frames;    /* frames */
    nscan_frame *frames;  /* innermost first (owned by the report) */
    uint64_t signature;   /* hash of module+offset of each frame: stable across scans */
} nscan_trace;

typedef struct nscan_group {
    int kind;             /* enum nscan_kind */
    uint32_t trace;       /* trace id, 0 = no backtrace recorded */
    uint64_t count;       /* blocks */
    uint64_t bytes;       /* bytes of all its blocks */
    uint64_t addr;        /* one of its blocks */
    uint8_t content[NSCAN_CONTENT_MAX]; /* first bytes of that block */
    uint32_t n_content;   /* bytes in content */
} nscan_group;

typedef struct nscan_thread {
    int kind;             /* enum nscan_thread_kind */
    uint64_t tid;         /* kernel thread id */
    uint64_t age_ms;      /* since pthread_create */
    uint32_t trace;       /* creation backtrace id */
} nscan_thread;

typedef struct nscan_ref {
    uint64_t offset;      /* byte offset of the pointer inside its block */
    uint64_t target;      /* address of the block pointed to */
} nscan_ref;

typedef struct nscan_block {
    uint64_t addr;        /* first byte */
    uint64_t size;        /* bytes */
    uint32_t trace;       /* allocation backtrace id */
    uint32_t state;       /* 0 reachable, 1 direct leak, 2 indirect leak, NSCAN_HELD_BY_ROOT
                           * and above: held straight by a root (enum nscan_root) */
    uint64_t first_ref;   /* index of its first ref in refs */
    uint64_t n_refs;      /* refs it holds */
} nscan_block;

typedef struct nscan_report {
    uint64_t pid;             /* scanned process */
    char *exe;                /* its executable */
    char *reason;             /* exit, signal, socket, timer */
    uint64_t time_ms;         /* wall clock at the scan, ms since the epoch */
    int capture_ok;           /* every thread was stopped and its registers read */
    uint64_t threads;         /* threads in the scan (the scanner included) */
    uint64_t threads_failed;  /* threads that could not be stopped */
    char *capture_error;      /* why, or NULL */
    char *backtrace;          /* fp, libunwind, none */
    uint64_t depth;           /* frames per backtrace */
    uint64_t sample_bytes;    /* one traced block per this many bytes (0 = all) */
    uint64_t heap_blocks;     /* live blocks at the scan */
    uint64_t heap_bytes;      /* their bytes */
    uint64_t scan_us;         /* marking time in the child */
    uint64_t scan_cpu_us;     /* CPU time of the child (user + system) */
    uint64_t fork_us;         /* stop + fork, as the child saw it */
    uint64_t pause_us;        /* the program's pause */
    uint64_t stop_us;         /* part of the pause spent stopping the threads */
    uint64_t fork_call_us;    /* part of the pause spent in fork */
    nscan_map *maps;          /* n_maps */
    uint32_t n_maps;
    nscan_trace *traces;      /* n_traces, sorted by id */
    uint32_t n_traces;
    nscan_group *groups;      /* n_groups, sorted by bytes, descending */
    uint32_t n_groups;
    nscan_thread *threads_leaked; /* n_threads_leaked */
    uint32_t n_threads_leaked;
    nscan_block *blocks;      /* n_blocks (graph section), sorted by address */
    uint64_t n_blocks;
    nscan_ref *refs;          /* n_refs */
    uint64_t n_refs;
    struct nscan_pool *pool;  /* strings made by symbolisation */
    char *allocator;          /* the program's malloc: "glibc" or a library; NULL before v3 */
    int allocator_tracked;    /* 0: its malloc came before the monitor's, nothing tracked */
    char *allocator_note;     /* what the monitor could not track ("" = nothing known) */
    uint32_t n_stale;         /* nscan_symbolize: files rebuilt since the scan (maps[].stale):
                               * their frames keep module + offset, no function names */
} nscan_report;

/* The reader registry's entry (fmt.h): a report written with --graph loads as a heap graph,
 * one node per malloc block, one class per allocation site (src/format/nscan_graph.c). */
struct fmt_reader;
extern const struct fmt_reader fmt_nscan_reader;

/* Parses the report in m (name for messages). Returns LR_OK and fills *r (release:
 * nscan_free), or LR_ERR_FORMAT / LR_ERR_TRUNCATED (no "end" line) / LR_ERR_NOMEM with the
 * byte offset of the bad line. */
lr_status nscan_parse(const mfile *m, const char *name, nscan_report *r, lr_error *err);

/* Nonzero if p starts like a scan report. */
int nscan_sniff(const uint8_t *p, uint64_t n);

/* Names every frame of every trace (function, file:line) from the mapped files on this
 * machine, and computes the signatures. Files that are gone leave module+offset. */
void nscan_symbolize(nscan_report *r);

/* The trace with this id, or NULL. */
const nscan_trace *nscan_trace_find(const nscan_report *r, uint32_t id);

/* Totals of the groups of one kind. */
void nscan_totals(const nscan_report *r, int kind, uint64_t *blocks, uint64_t *bytes);

void nscan_free(nscan_report *r);

#endif
