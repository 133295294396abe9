/* SPDX-License-Identifier: Apache-2.0 */
/* watch.h: the run-time watcher core (watch layer), prefix watch_. It is LeakCanary's
 * ObjectWatcher plus HeapDumpTrigger as a state machine with no runtime inside: objects are
 * opaque handles, and everything that touches the runtime or the passing of time (clock,
 * executor, "is the referent still there", GC, finalization, heap dump) comes in through a
 * watch_env of callbacks. The JVMTI agent (agents/jvmti/) fills them with JNI calls; the unit
 * tests fill them with a fake clock and a fake heap, so every timing rule is tested without
 * sleeping. Depends on nothing but libc and pthreads, so the agent links it on its own.
 *
 * The schedule, exactly LeakCanary's (research: store-reports-jvmti-native.md section 2.8):
 *  - an object watched at t is checked at t + delay_ms (5 s); still there -> retained, its
 *    retainedUptimeMillis is set, and a check is scheduled now (unless one is scheduled);
 *  - a check with retained > 0 runs GC, waits WATCH_GC_WAIT_MS (100 ms), runs finalization,
 *    runs GC again, and recounts;
 *  - 0 retained: idle; below the threshold: check again in WATCH_RECHECK_MS (2 s);
 *    less than WATCH_DUMP_INTERVAL_MS (60 s) since the last dump: check again when it is up;
 *  - else dump; a failed (or 0-byte) dump is retried WATCH_DUMP_RETRY_MS (5 s) later; after a
 *    dump every object watched before it started is released.
 * Two departures, as each check costs two full GCs on a JVM: a dump that keeps failing (a
 * full disk) is retried twice as late each time, up to WATCH_DUMP_RETRY_MAX_MS, a dump that
 * succeeds bringing the 5 s back; and below the threshold, a check that finds as many
 * retained objects as the one before waits twice as long for the next, up to
 * WATCH_RECHECK_MAX_MS (one object a server keeps for good cost two full GCs every 2 s for
 * the JVM's life), while an object newly retained brings a check at once and the 2 s back.
 * At most one check is scheduled at a time; scheduling while one is pending keeps the
 * pending one (LeakCanary's scheduleRetainedObjectCheck). */
#ifndef LR_WATCH_H
#define LR_WATCH_H

#include <stddef.h>
#include <stdint.h>

#define WATCH_DELAY_MS 5000          /* AppWatcher.retainedDelayMillis */
#define WATCH_THRESHOLD 5            /* LeakCanary.Config.retainedVisibleThreshold */
#define WATCH_GC_WAIT_MS 100         /* GcTrigger: sleep between GC and runFinalization */
#define WATCH_RECHECK_MS 2000        /* WAIT_FOR_OBJECT_THRESHOLD_MILLIS */
#define WATCH_RECHECK_MAX_MS 60000   /* the same count again backs off to this */
#define WATCH_DUMP_INTERVAL_MS 60000 /* WAIT_BETWEEN_HEAP_DUMPS_MILLIS */
#define WATCH_DUMP_RETRY_MS 5000     /* WAIT_AFTER_DUMP_FAILED_MILLIS */
#define WATCH_DUMP_RETRY_MAX_MS 600000 /* failures in a row back off to this (10 min) */
#define WATCH_MAX_WATCHED 100000     /* default cap on watched objects (oldest dropped) */

/* What the trigger is doing, for status output. Append-only (shown in status files). */
typedef enum watch_state {
    WATCH_IDLE = 0,        /* nothing retained: waiting for watched objects to come due */
    WATCH_WAIT_THRESHOLD,  /* retained below the threshold: re-check every 2 s */
    WATCH_WAIT_INTERVAL,   /* threshold met, last dump under 60 s ago: check when it is up */
    WATCH_GC,              /* GC ran, waiting 100 ms before finalization + GC + recount */
    WATCH_DUMPING,         /* the dump callback is running */
    WATCH_DUMP_FAILED,     /* the last dump failed: retry 5 s later */
    WATCH_DISABLED,        /* watch_disable was called (agent error): nothing is done */
} watch_state;

/* The injected runtime. Every callback gets ctx. Which thread calls what:
 *  - now_ms and wake may be called from any thread (watch_add's and watch_run's);
 *  - alive, retained and release are called with the core's lock held, from watch_run's
 *    (and watch_sweep's) thread, and from watch_add's thread when the table is full (to
 *    drop the oldest);
 *  - gc, finalize and dump are called from watch_run's thread without the lock, so watching
 *    goes on while they run. */
typedef struct watch_env {
    void *ctx;                                  /* passed back to every callback */
    uint64_t (*now_ms)(void *ctx);              /* monotonic milliseconds (the clock) */
    void (*wake)(void *ctx, uint64_t at_ms);    /* executor: call watch_run at or after at_ms */
    /* 1 if obj's referent is still reachable; tag is the one obj was watched with (the
     * agent's handle kind: no runtime call is needed to tell kinds apart) */
    int (*alive)(void *ctx, void *obj, uint32_t tag);
    /* obj (watched at watch_ms with *tag) became retained at at_ms. Returns the handle to
     * keep from now on: obj itself, a replacement (the env released obj, and may change *tag
     * to the replacement's), or NULL when the referent turned out to be gone (the env
     * released obj; counted as collected). */
    void *(*retained)(void *ctx, void *obj, uint32_t *tag, uint64_t watch_ms, uint64_t at_ms);
    void (*release)(void *ctx, void *obj, uint32_t tag); /* the core forgets obj */
    void (*gc)(void *ctx);                      /* a full, blocking GC */
    void (*finalize)(void *ctx);                /* run pending finalizers, blocking */
    /* Writes a heap dump of the n_retained retained objects; returns the file's size in
     * bytes, 0 on failure (a 0-byte dump is a failure too). started_ms is the clock value the
     * dump's heapDumpUptimeMillis should carry. */
    uint64_t (*dump)(void *ctx, unsigned n_retained, uint64_t started_ms);
    /* Optional (NULL: objects are never matched): a hash of the identity of obj's referent,
     * the same through every handle to one object (0 when it is gone), and whether handles
     * a and b name one object. After a dump, an entry whose object the dump held as retained
     * through another entry (an object watched twice: close() called twice) goes with it. */
    uint64_t (*identity)(void *ctx, void *obj, uint32_t tag);
    int (*same)(void *ctx, void *a, uint32_t tag_a, void *b, uint32_t tag_b);
} watch_env;

typedef struct watch_config {
    uint64_t delay_ms;     /* watched -> retained delay (WATCH_DELAY_MS) */
    unsigned threshold;    /* retained objects that trigger a dump (WATCH_THRESHOLD, >= 1) */
    uint32_t max_watched;  /* cap on watched objects (WATCH_MAX_WATCHED, >= 1) */
} watch_config;

/* Counters and the schedule, copied out under the lock by watch_stats. */
typedef struct watch_stats {
    watch_state state;       /* what the trigger does now */
    uint64_t watched;        /* objects held now (waiting + retained) */
    uint64_t retained;       /* of those, retained (past the delay, not yet collected) */
    uint64_t retained_after_gc; /* of those, what the last check still counted after its GCs
                              * (the figure LeakCanary shows): objects past their delay that
                              * no GC met yet are only in retained; 0 before any check and
                              * after a dump */
    uint64_t total_watched;  /* watch_add calls accepted since start */
    uint64_t collected;      /* released because their referent was collected */
    uint64_t dropped;        /* released still alive because the table was full (the oldest,
                              * or the new one when the oldest is retained) */
    uint64_t full_gcs;       /* GCs asked for because the table was full of uncollected ones */
    uint64_t dumps;          /* successful dumps */
    uint64_t failed_dumps;   /* dumps that failed or wrote 0 bytes */
    unsigned fail_streak;    /* of those, failed in a row since the last one that succeeded */
    uint64_t last_dump_ms;   /* clock when the last successful dump ended, 0 if none */
    uint64_t last_dump_bytes; /* size of the last successful dump */
    uint64_t next_check_ms;  /* clock of the next scheduled check (or GC step), 0 if none */
    uint64_t next_due_ms;    /* clock when the oldest waiting object comes due, 0 if none */
    size_t table_bytes;      /* bytes the core allocated for its table */
} watch_stats;

typedef struct watch watch;

/* How long after the dump that makes fail_streak failed dumps in a row the next try comes:
 * WATCH_DUMP_RETRY_MS, doubled for each failure before it, at most WATCH_DUMP_RETRY_MAX_MS.
 * A dump callback reads its streak from watch_stats (before it returns 0) to say when. */
uint64_t watch_retry_ms(unsigned fail_streak);

/* Fills cfg with the defaults above. */
void watch_config_default(watch_config *cfg);

/* Creates a watcher (free: watch_free). env is copied. Returns NULL when out of memory.
 * Allocates nothing per object: the table grows by doubling up to cfg->max_watched entries
 * of WATCH_ENTRY_BYTES each. */
watch *watch_new(const watch_config *cfg, const watch_env *env);

/* Releases every held object through env->release, then frees w. NULL is accepted. */
void watch_free(watch *w);

/* Watches obj (a handle the env understands), watched at clock value watch_ms; tag is the
 * caller's and comes back in env->retained (the agent's description id). Thread-safe.
 * When the table is full the oldest object is released first (counted as collected if its
 * referent is gone, else as dropped). Returns 0, or -1 when disabled (obj not taken: the
 * caller frees it). */
int watch_add(watch *w, void *obj, uint64_t watch_ms, uint32_t tag);

/* watch_add for n objects watched at the same clock value, objs[i] with tags[i], under one
 * taking of the lock (a runtime hands its watched objects over in batches). Returns how many
 * were taken, from the front: n, or fewer when disabled (the caller frees objs[ret..n)). */
size_t watch_add_n(watch *w, void *const *objs, const uint32_t *tags, size_t n,
                   uint64_t watch_ms);

/* Runs whatever is due at the current clock: objects past their delay, a scheduled check,
 * the GC step. Call it from one thread only (the executor's). Returns the clock value at
 * which it wants to run next, 0 when nothing is scheduled (watch_add will call env->wake). */
uint64_t watch_run(watch *w);

/* LeakCanary's removeWeaklyReachableObjects ahead of the delay: asks each waiting object
 * watched before clock value `before`, once, whether its referent is still there, and
 * releases those gone (counted as collected), so a runtime that keeps a handle per watched
 * object keeps few. Call it from watch_run's thread. Returns how many were released. */
size_t watch_sweep(watch *w, uint64_t before);

/* Copies the counters and schedule into *st. Thread-safe. */
void watch_stats_get(watch *w, watch_stats *st);

/* Stops everything after an agent error: no further checks or dumps, watch_add refuses.
 * Held objects stay until watch_free. Thread-safe. */
void watch_disable(watch *w);

/* Stable lowercase name of a state ("idle", "waiting-threshold", ...). */
const char *watch_state_name(watch_state s);

/* One sentence on the next action for status output, into buf (returns buf). */
const char *watch_next_action(const watch_stats *st, const watch_config *cfg, uint64_t now_ms,
                              char *buf, size_t n);

#define WATCH_ENTRY_BYTES 24 /* bytes per watched object in the core's table */

#endif
