/* SPDX-License-Identifier: Apache-2.0 */
/* agent_internal.h: what the JVM agent's files share (agents layer, private header):
 * the agent's state (A: options, resolved classes and methods, the executor's lock, dumps),
 * the stamps' state (S, agent_stamp.c), the call slots' state (C, agent_hooks.c), the
 * methods a retransformation gives the hook (pending), and the functions one file calls in
 * another. agent.c loads and starts the agent; agent_thread.c is the watcher (the core's
 * callbacks, the agent's thread, the dump, the analysis process, the status file, explicit
 * watching, finished threads); agent_stamp.c the stamps; agent_hooks.c the call hook, the
 * class-file load hook and class preparation. Never included outside agents/jvmti/. */
#ifndef LEAKRAY_AGENT_INTERNAL_H
#define LEAKRAY_AGENT_INTERNAL_H

#include <jni.h>
#include <jvmti.h>

#include "rewrite.h"
#include "watch/watch.h"
#include "watch/watch_dir.h"
#include "watch/watch_opts.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

#define AGENT_JAR "leakray-watcher.jar"
#define AGENT_STATUS_FMT "/tmp/leakray-watch-%ld.status" /* `leakray watch status PID` */
#define MAX_RULE_METHODS 16 /* methods of one class given the watch hook */
#define AGENT_SEAL_MS 100   /* AppWatcher's rule-watched batch is sealed this often */
/* the start-up thread's nice value (the thread alone): about a tenth of a busy core's share */
#define AGENT_STARTUP_NICE 10
#define AGENT_STARTUP_NAME "leakray start-up"
/* the thread Runtime.runFinalization starts (java.lang.ref.Finalizer, JDK 9+) */
#define FINALIZER_THREAD "Secondary finalizer"
#define FINALIZATION_THREAD "leakray finalization" /* AppWatcher.runFinalization's */
#define FINALIZATION_WAIT_MS 500 /* a check waits this long for finalization at most */

/* The core's tag of a rule-watched object: its rule, with this bit saying the handle is a JNI
 * weak reference (GetObjectRefType would tell too, but it searches the JVM's handle blocks:
 * its cost grows with the number of handles). */
#define AGENT_TAG_WEAK 0x80000000u

/* The start-up retransformation (the JDK classes loaded before main that need the call
 * hook) waits this long after main's first class unless a class constructs one first. */
#define EARLY_DEFER_MS 1000
/* A class that may need it waits at most this long for the names or the batch to be known */
#define EARLY_WAIT_MS 200
#define EARLY_HASHES 1024 /* open addressing, power of 2; more classes: every <init> triggers */
#define EARLY_UNSURE 1024
#define EARLY_BLOOM_BITS 12 /* early_bloom: 4096 bits */
enum { EARLY_LISTING, EARLY_PUBLISHED, EARLY_RUNNING, EARLY_DONE };

/* ---- state ---- */

typedef struct agent_state {
    JavaVM *vm;
    jvmtiEnv *ti;
    watch_opts opts;
    watch_config cfg;
    watch *core;
    char dir[PATH_MAX];       /* absolute dump directory */
    char self_dir[PATH_MAX];  /* folder of this .so */
    char leakray[PATH_MAX];   /* the CLI that analyses dumps */
    char status[128];         /* status file path */
    int can_rules;            /* watch rules on: retransformation capability obtained */
    int can_tag;              /* object tags and heap iteration obtained (stamps) */
    int attached;             /* loaded into a running JVM (leakray attach) */
    volatile int live;        /* live phase reached, classes and ids resolved */
    volatile int dying;       /* VMDeath seen */
    volatile int disabled;    /* an agent error happened */
    volatile int finalizing;  /* the agent's thread is in Runtime.runFinalization */
    uint64_t live_at;         /* clock at VMInit (or attach) */
    /* resolved at live start (global refs); kwr and its ids on first use (agent_resolve_kwr) */
    jclass kwr, watcher, runtime;
    jmethodID kwr_get, kwr_refers_to, watcher_watch, watcher_seal, watcher_retained,
        runtime_get, runtime_finalize;
    jmethodID watcher_watch_at; /* AppWatcher.watchAt, NULL in an older jar (watchNow) */
    jmethodID watcher_finalize; /* AppWatcher.runFinalization(J), NULL in an older jar */
    jmethodID watcher_forget;   /* AppWatcher.forget(KeyedWeakReference), NULL in an older jar */
    jfieldID kwr_retained, kwr_dump_ms, watcher_installed;
    uint64_t status_at;      /* when the status file was last written */
    uint64_t dropped_said;   /* dropped objects the last warning counted */
    uint64_t dropped_said_at; /* when it was given */
    jobject diag_bean;       /* HotSpotDiagnosticMXBean, global */
    jmethodID dump_heap;
    jthread agent_thread;    /* global */
    /* the executor; its waits go through agent_wait, its wake-ups through agent_notify */
    pthread_mutex_t lock;
    pthread_cond_t cond;     /* the waits when wait_mon is unavailable */
    jrawMonitorID wait_mon;  /* JVMTI raw monitor the waits block on (see agent_wait) */
    uint64_t wake_at;        /* earliest wake() request not yet served, 0 = none */
    jobject hook_module;     /* AppWatcher's module (global): rewritten classes read it */
    jfieldID module_name;    /* java.lang.Module.name, NULL if the JDK has none */
    jobject hook_loader;     /* attached: the loader of the application's own AppWatcher
                              * (global), NULL when the agent's copy is the boot loader's */
    unsigned n_rewritten;    /* methods given the watch hook */
    unsigned n_retransforms; /* RetransformClasses calls (VM operations) made */
    unsigned n_pool_reads;   /* constant pools read through JVMTI GetConstantPool */
    pthread_mutex_t hook_lock; /* guards hook_users */
    int hook_users;          /* threads inside RetransformClasses (ClassFileLoadHook on) */
    /* started with the JVM: the classes loaded before the agent that need the call hook
     * are listed and retransformed by the agent's thread, off the path to main */
    int early_ready;         /* live_start is done (under lock) */
    /* Started with the JVM, from VMInit until the first class of a class loader other than
     * the boot loader is loaded (the application's main class, mostly), the load hook stays
     * off: the JDK classes the launcher loads keep their class data sharing (with the hook
     * on, the JVM reads each archived class's bytes again to hand them over, and a class
     * hooked at load is parsed and linked from bytes), and those that need the call hook
     * join the early batch instead (window_cls, global class references, checked by the
     * agent's thread). window is guarded by S.lock; the rest by lock. */
    volatile int window;
    int list_loaded;         /* the agent's thread lists the classes loaded before VMInit */
    int rules_known;         /* it did: rule_cls has the rules' classes loaded then */
    jclass rule_cls[WATCH_OPTS_MAX_RULES]; /* each rule's class once loaded (globals) */
    jclass *window_cls;
    int n_window_cls, cap_window_cls;
    int early_taken;         /* the agent's thread took the early batch */
    /* The early batch is not retransformed at once (hooks_early_*): it waits, its classes'
     * names published as hashes, until a class loaded later constructs one of them or
     * extends one (an <init> of theirs in its constant pool), or EARLY_DEFER_MS have passed.
     * early_hash holds the names of the classes listed before main and of those prepared in
     * the window (all of the batch's, and more); once early_names is set it is complete and
     * read by the load hook without the lock. The rest under lock. */
    volatile int early_state; /* EARLY_LISTING, EARLY_PUBLISHED, EARLY_RUNNING, EARLY_DONE */
    volatile int early_names; /* early_hash is complete */
    volatile int early_trigger; /* a class needs the batch before its code runs */
    volatile int early_unsure;  /* a class was loaded before the names were published */
    struct pending **early_pds; /* the batch (global class references) */
    int n_early;
    uint32_t early_hash[EARLY_HASHES]; /* class names' hashes (early_key), 0 = empty */
    /* a bit per name (early_bit: its length, last and middle bytes), so that most strings of
     * a constant pool are ruled out without hashing them (a bit per length let most of them
     * through: about a quarter of the load hook's time went to hashing them) */
    uint64_t early_bloom[(1u << EARLY_BLOOM_BITS) / 64];
    uint32_t unsure_h[EARLY_UNSURE];   /* <init> owners seen before the names were known */
    int n_unsure;
    /* dumps and analysis */
    unsigned seq;
    char last_dump[PATH_MAX + 80];
    double last_pause_ms;
    char dump_why[160]; /* why the last dump was not written ("" after one that was) */
    volatile int analysing;  /* an analysis process is running */
    volatile int analysis_rc;
    uint64_t retained_5th_ms; /* clock when the threshold-th object became retained */
    unsigned n_retained_seen;
} agent_state;
extern agent_state A;

extern __thread int in_agent; /* re-entrancy guard: our own Java calls may close streams */

/* ---- stamps: state ----
 * Application classes loaded while the agent runs (started with the JVM) get their watched
 * methods' hook at load time, where a field can still be added: each class that declares a
 * watched method gets an int field STAMP_FIELD, and each return stores AppWatcher's epoch
 * there (AppWatcher.stamp). The object itself is the record: no handle, no table entry, no
 * native call per return. The agent's thread advances the epoch every AGENT_SEAL_MS; when a
 * class reported activity, once its epoch is delay_ms old it runs a GC, tags the instances
 * of stamped classes through a JVMTI heap walk, reads their stamps, and watches only those
 * stamped in the window that is now due, through the core as any rule-watched object (a
 * JNI weak reference, a KeyedWeakReference once retained). Classes loaded before that, the
 * boot loader's (layouts the VM may know), interfaces, and all classes when attached keep
 * the call hook (AppWatcher.returned), as no field can be added to them. */

#define STAMP_FIELD "leakray$stamp"
#define STAMP_SLOTS 4096   /* = AppWatcher.STAMP_SLOTS: classes given a stamp field */
#define STAMP_CLASSES 8192 /* classes whose instances carry stamps (subclasses included) */
#define STAMP_FIELDS 4     /* stamp fields one object reads (overrides calling super) */
#define STAMP_RING 1024    /* epochs whose start is remembered: 102 s at AGENT_SEAL_MS */
#define STAMP_TAG_INSTANCE ((jlong)1 << 40) /* an instance's tag: this | its class's tag */
/* A scan (a full GC and a heap walk) starts this many times its own last duration after it
 * (about 1 % of the time while stamped objects are closed without a pause), never sooner
 * than AGENT_SEAL_MS nor later than the ring remembers epochs. Stamps wait in their objects
 * meanwhile; a later scan watches them at their own epoch's time, so they are retained when
 * due, only found up to that much later. */
#define STAMP_SCAN_SHARE 100

typedef struct stamped {   /* a class whose instances carry stamps; its JVMTI tag indexes */
    jfieldID f[STAMP_FIELDS]; /* its own field, then its superclasses' */
    int n_f;
    int rule;
} stamped;

typedef struct stamp_state {
    volatile int on;         /* classes loaded from now on are stamped */
    pthread_mutex_t lock;    /* slots and classes (class-loading and preparing threads) */
    volatile int n_slots;
    char *slot_name[STAMP_SLOTS];        /* internal name of the class given each slot */
    unsigned char verified[STAMP_SLOTS]; /* its class has a rule's type among its supertypes */
    stamped cls[STAMP_CLASSES + 1];      /* by class tag, 1.. */
    volatile int n_cls;
    jfieldID epoch_f;
    jobject active;          /* AppWatcher.ACTIVE (global) */
    /* the agent thread's own: */
    jint cur;                /* the epoch AppWatcher hands out */
    uint64_t at[STAMP_RING]; /* clock when epoch e began, at [e % STAMP_RING] */
    jint scanned;            /* stamps <= scanned are dealt with (watched, or cleared) */
    int dirty;               /* stamps in [dirty_lo, dirty_hi] may wait for a scan */
    jint dirty_lo, dirty_hi;
    jint dirty_need;         /* the next scan waits until this epoch is due: the one whose
                              * activity made the stamps dirty (dirty_lo is one earlier,
                              * in case a return read it, and would be scanned alone) */
    uint64_t next_scan;      /* clock before which no scan starts (STAMP_SCAN_SHARE) */
    unsigned long long scans, found;
} stamp_state;
extern stamp_state S;

/* ---- call slots: state ----
 * A class loaded while stamps are on that cannot take a stamp field (the boot loader's, an
 * interface, a class past the stamp slots) gets the call hook as its bytes pass by at load,
 * rather than a retransformation once prepared: RetransformClasses is a VM operation that
 * visits every loaded class (a few milliseconds each time, once per JDK Closeable the
 * program loads). Its supertypes are not known yet, so each hooked method name gets a call
 * slot, passed to AppWatcher.returned as CALL_RULE + slot; at ClassPrepare the agent picks
 * the rule (the first of that name whose type is a supertype) and writes it to
 * AppWatcher.CALLED[slot]; until then, or if none, the hook returns at once. Guarded by
 * S.lock, like the stamp slots. */

#define CALL_SLOTS 8192 /* = AppWatcher.CALL_SLOTS */
#define CALL_RULE 128   /* = AppWatcher.CALL_RULE: hook arguments from here are call slots */
#define HOOKED_INDEX 16384 /* open-addressing index of hooked class names (power of 2) */

typedef struct call_state {
    char *cls[CALL_SLOTS];           /* internal name of the class given each slot */
    const char *method[CALL_SLOTS];  /* the method name it hooks (a rule's, A.opts) */
    unsigned char settled[CALL_SLOTS]; /* its class was prepared and the slot decided */
    volatile int n;
    jobject called;                  /* AppWatcher.CALLED (global) */
    /* hooked class names: 0 empty, s + 1 a stamp slot, -(c + 1) a class's first call slot */
    int index[HOOKED_INDEX];
    jobject read_by[8];              /* named modules made to read the hook's (weak
                                      * globals: a module of a layer that goes keeps no
                                      * loader alive) */
    int n_read_by;
} call_state;
extern call_state C;

/* The methods of the class being retransformed on this thread, for hooks_class_file_load. */
typedef struct pending {
    jclass k;   /* the class (a local reference of the retransforming thread) */
    rw_target t[MAX_RULE_METHODS];
    char names[MAX_RULE_METHODS][128];
    char descs[MAX_RULE_METHODS][256];
    int n;
} pending;

/* ---- agent.c ---- */

void agent_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void agent_complain(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void agent_disable(JNIEnv *env, const char *what);
int agent_resolve_kwr(JNIEnv *env);
int agent_resolve_live(JNIEnv *env);
uint64_t agent_watcher_due(void);
int agent_start_watcher(JNIEnv *env);
uint64_t agent_clock_ms(void);
/* mkdir -p d (agent.c); 0, or -1 with errno. */
int agent_make_dirs(const char *d);
void agent_wait(uint64_t at);
void agent_notify(void);
JNIEnv *agent_env(void);

/* ---- agent_thread.c ---- */

uint64_t watcher_now(void *ctx);
void watcher_wake(void *ctx, uint64_t at);
int watcher_alive(void *ctx, void *obj, uint32_t tag);
void *watcher_retained(void *ctx, void *obj, uint32_t *tag, uint64_t watch_ms, uint64_t at);
void watcher_release(void *ctx, void *obj, uint32_t tag);
uint64_t watcher_identity(void *ctx, void *obj, uint32_t tag);
int watcher_same(void *ctx, void *a, uint32_t ta, void *b, uint32_t tb);
void watcher_gc(void *ctx);
void watcher_finalize(void *ctx);
uint64_t watcher_dump(void *ctx, unsigned n_retained, uint64_t started_ms);
void watcher_write_status(void);
void JNICALL watcher_main(jvmtiEnv *ti, JNIEnv *env, void *arg);
void watcher_startup(JNIEnv *env);
void JNICALL watcher_watch0(JNIEnv *env, jclass cls, jobject ref, jlong ms);
void JNICALL watcher_flush0(JNIEnv *env, jclass cls, jobjectArray objs, jintArray rules,
                            jint n, jlong ms);
void JNICALL watcher_thread_end(jvmtiEnv *ti, JNIEnv *env, jthread th);
void watcher_watch_ended(JNIEnv *env);

/* ---- agent_stamp.c ---- */

void stamp_advance(JNIEnv *env, uint64_t now);
void stamp_tick(JNIEnv *env);
int stamp_load(jvmtiEnv *ti, const char *name, int again, const unsigned char *data, jint len,
               uint64_t found, jint *new_len, unsigned char **new_data);
jfieldID stamp_own_field(jclass k);
int stamp_prepare(JNIEnv *env, jclass k, const char *sig, int named, const pending *pd);
int stamp_start(JNIEnv *env);
void stamp_on(void);

/* ---- agent_hooks.c ---- */

void hooks_names_init(void);
void hooks_index_add(const char *name, int e);
int hooks_index_find(const char *name, size_t n);
void hooks_legacy_add(const char *name);
void hooks_sig_to_name(char *s);
int hooks_has_supertype(JNIEnv *env, jclass k, const char *name, int depth);
/* Whether class k is, or extends or implements, an `unwatch` rule's class. */
int hooks_unwatched(JNIEnv *env, jclass k);
pending *hooks_rules_for_class(JNIEnv *env, jclass k);
void hooks_retransform(JNIEnv *env, pending **pds, int n);
int hooks_list_loaded(JNIEnv *env, pending ***out);
int hooks_early_retransform(JNIEnv *env);
int hooks_early_bytes(const char *name, const unsigned char *data, jint len, uint64_t *found);
void hooks_window_open(void);
void hooks_window_close(JNIEnv *env, jclass trigger);
void JNICALL hooks_class_load(jvmtiEnv *ti, JNIEnv *env, jthread th, jclass k);
void JNICALL hooks_class_file_load(jvmtiEnv *ti, JNIEnv *env, jclass being_redefined,
                                   jobject loader, const char *name, jobject pd, jint len,
                                   const unsigned char *data, jint *new_len,
                                   unsigned char **new_data);
void JNICALL hooks_class_prepare(jvmtiEnv *ti, JNIEnv *env, jthread th, jclass k);

#endif
