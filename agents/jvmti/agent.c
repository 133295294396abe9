/* SPDX-License-Identifier: Apache-2.0 */
/* agent.c: libleakray_agent.so, the JVMTI agent that runs LeakCanary's loop in any HotSpot JVM
 * (agents layer), prefix agent_. It fills the watcher core's callbacks (src/watch/watch.h)
 * with JNI: an object watched by a rule, or through the API with a numbered description
 * (AppWatcher's batch), or found by its stamp past the delay, is held by a JNI weak reference
 * until found retained, when its leakcanary.KeyedWeakReference is built; any other watched
 * object is the referent of a KeyedWeakReference held through a JNI global reference;
 * "alive" asks the reference; GC is JVMTI ForceGarbageCollection;
 * finalization is Runtime.runFinalization; the dump is HotSpotDiagnosticMXBean.dumpHeap to a
 * temporary name renamed when complete. Analysis never runs in the watched JVM: a separate
 * `leakray watch analyze` process writes NAME.txt / NAME.json beside the dump.
 * Objects come from leakray.AppWatcher (the jar, put on the boot class path), from watch
 * rules (a hook inserted before the returns of the named methods only, rewrite.c; in the
 * application classes loaded after start, a stamp the objects keep themselves), and from
 * ThreadEnd (a Thread object once its thread ended). Safety: no ObjectFree or GC callbacks at
 * all; one agent thread does the checks; an agent error logs one line and disables the agent,
 * it never stops the JVM (only bad options at start do). Docs: docs/agent.md. */
#define _GNU_SOURCE
#include <jni.h>
#include <jvmti.h>

#include "rewrite.h"
#include "watch/watch.h"
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

#define AGENT_JAR "leakray-watcher.jar"
#define AGENT_STATUS_FMT "/tmp/leakray-watch-%ld.status" /* `leakray watch status PID` */
#define MAX_RULE_METHODS 16 /* methods of one class given the watch hook */
#define AGENT_SEAL_MS 100   /* AppWatcher's rule-watched batch is sealed this often */

extern char **environ;

/* ---- state ---- */

static struct {
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
    /* resolved at live start (global refs) */
    jclass kwr, watcher, runtime;
    jmethodID kwr_get, kwr_refers_to, watcher_watch, watcher_seal, watcher_retained,
        runtime_get, runtime_finalize;
    jfieldID kwr_retained, kwr_dump_ms, watcher_installed;
    uint64_t status_at;      /* when the status file was last written */
    jobject diag_bean;       /* HotSpotDiagnosticMXBean, global */
    jmethodID dump_heap;
    jthread agent_thread;    /* global */
    /* the executor */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    uint64_t wake_at;        /* earliest wake() request not yet served, 0 = none */
    jobject hook_module;     /* AppWatcher's module (global): rewritten classes read it */
    jobject hook_loader;     /* attached: the loader of the application's own AppWatcher
                              * (global), NULL when the agent's copy is the boot loader's */
    unsigned n_rewritten;    /* methods given the watch hook */
    unsigned n_retransforms; /* RetransformClasses calls (VM operations) made */
    pthread_mutex_t hook_lock; /* guards hook_users */
    int hook_users;          /* threads inside RetransformClasses (ClassFileLoadHook on) */
    /* started with the JVM: the classes loaded before the agent that need the call hook,
     * retransformed by the agent's thread (class references global), off the path to main */
    struct pending **early;
    int n_early;
    int early_ready;         /* live_start has set early (under lock) */
    /* dumps and analysis */
    unsigned seq;
    char last_dump[PATH_MAX + 80];
    double last_pause_ms;
    volatile int analysing;  /* an analysis process is running */
    volatile int analysis_rc;
    uint64_t retained_5th_ms; /* clock when the threshold-th object became retained */
    unsigned n_retained_seen;
} A = {.lock = PTHREAD_MUTEX_INITIALIZER,
       .hook_lock = PTHREAD_MUTEX_INITIALIZER,
       .cond = PTHREAD_COND_INITIALIZER}; /* re-initialised on the monotonic clock at load */

static __thread int in_agent; /* re-entrancy guard: our own Java calls may close streams */

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
 * (about 1 % of the time while stamped objects are closed without a pause), or a delay
 * after it if sooner, and never sooner than AGENT_SEAL_MS. Stamps wait in their objects
 * meanwhile; a later scan watches them at their own epoch's time, so they are retained when
 * due, only found up to that much later. */
#define STAMP_SCAN_SHARE 100

typedef struct stamped {   /* a class whose instances carry stamps; its JVMTI tag indexes */
    jfieldID f[STAMP_FIELDS]; /* its own field, then its superclasses' */
    int n_f;
    int rule;
} stamped;

static struct {
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
    jint dump_epoch;         /* epoch when the last successful dump began, 0 = none new */
    uint64_t next_scan;      /* clock before which no scan starts (STAMP_SCAN_SHARE) */
    unsigned long long scans, found;
} S = {.lock = PTHREAD_MUTEX_INITIALIZER};

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

static struct {
    char *cls[CALL_SLOTS];           /* internal name of the class given each slot */
    const char *method[CALL_SLOTS];  /* the method name it hooks (a rule's, A.opts) */
    unsigned char settled[CALL_SLOTS]; /* its class was prepared and the slot decided */
    volatile int n;
    jobject called;                  /* AppWatcher.CALLED (global) */
    /* hooked class names: 0 empty, s + 1 a stamp slot, -(c + 1) a class's first call slot */
    int index[HOOKED_INDEX];
    jobject read_by[8];              /* named modules made to read the hook's (globals) */
    int n_read_by;
} C;

static uint32_t name_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* Records that class `name` was hooked at load (under S.lock): e as in C.index. */
static void hooked_add(const char *name, int e)
{
    uint32_t m = HOOKED_INDEX - 1, i = name_hash(name, strlen(name)) & m;
    for (uint32_t k = 0; k < HOOKED_INDEX; k++, i = (i + 1) & m)
        if (C.index[i] == 0) {
            C.index[i] = e;
            return;
        }
}

/* The entry of a class hooked at load named name[0..n), preferring a call entry not yet
 * settled (two loaders may define the same name), or 0. Under S.lock. */
static int hooked_find(const char *name, size_t n)
{
    uint32_t m = HOOKED_INDEX - 1, i = name_hash(name, n) & m;
    int found = 0;
    for (uint32_t k = 0; k < HOOKED_INDEX && C.index[i]; k++, i = (i + 1) & m) {
        int e = C.index[i];
        const char *nm = e > 0 ? S.slot_name[e - 1] : C.cls[-e - 1];
        if (!nm || strlen(nm) != n || memcmp(nm, name, n) != 0)
            continue;
        if (e < 0 && !C.settled[-e - 1])
            return e;
        if (!found)
            found = e;
    }
    return found;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    if (A.opts.quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("leakray: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void complain(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void complain(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("leakray: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* Any agent failure after start: log once, stop watching, leave the JVM alone. */
static void agent_disable(JNIEnv *env, const char *what)
{
    if (env && (*env)->ExceptionCheck(env))
        (*env)->ExceptionClear(env);
    if (A.disabled)
        return;
    A.disabled = 1;
    complain("agent error: %s; watching disabled", what);
    if (A.core)
        watch_disable(A.core);
    if (env && A.watcher && A.watcher_installed)
        (*env)->SetStaticBooleanField(env, A.watcher, A.watcher_installed, JNI_FALSE);
}

static uint64_t clock_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static JNIEnv *cur_env(void)
{
    JNIEnv *env = NULL;
    if ((*A.vm)->GetEnv(A.vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK)
        return NULL;
    return env;
}

/* ---- the core's callbacks ---- */

static uint64_t h_now(void *ctx) { return clock_ms(); }

static void h_wake(void *ctx, uint64_t at)
{
    pthread_mutex_lock(&A.lock);
    if (!A.wake_at || at < A.wake_at) {
        A.wake_at = at;
        pthread_cond_signal(&A.cond);
    }
    pthread_mutex_unlock(&A.lock);
}

/* The core's tag of a rule-watched object: its rule, with this bit saying the handle is a JNI
 * weak reference (GetObjectRefType would tell too, but it searches the JVM's handle blocks:
 * its cost grows with the number of handles). */
#define AGENT_TAG_WEAK 0x80000000u
static int is_weak(uint32_t tag) { return (tag & AGENT_TAG_WEAK) != 0; }

/* Two kinds of handle: a JNI weak reference to an object watched by a rule (cheap: no Java
 * object until it is retained, and cleared by any GC that finds its referent dead), or a
 * global reference to a KeyedWeakReference made by the explicit API. For the latter,
 * refersTo(null) (JDK 16+) does not make the referent strongly reachable even briefly;
 * older JDKs fall back to get(). */
static int h_alive(void *ctx, void *obj, uint32_t tag)
{
    JNIEnv *env = cur_env();
    if (!env)
        return 1;
    if (is_weak(tag))
        return !(*env)->IsSameObject(env, (jobject)obj, NULL);
    int alive;
    if (A.kwr_refers_to) {
        alive = !(*env)->CallBooleanMethod(env, (jobject)obj, A.kwr_refers_to, NULL);
    } else {
        jobject r = (*env)->CallObjectMethod(env, (jobject)obj, A.kwr_get);
        alive = r != NULL;
        if (r)
            (*env)->DeleteLocalRef(env, r);
    }
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        return 1;
    }
    return alive;
}

/* Retained: mark the KeyedWeakReference, or build it now for a rule-watched object (with the
 * watch time and the rule it would have had), so the dump carries LeakCanary's markers. */
static void *h_retained(void *ctx, void *obj, uint32_t *tag, uint64_t watch_ms, uint64_t at)
{
    JNIEnv *env = cur_env();
    if (!env)
        return obj;
    if (!is_weak(*tag)) {
        (*env)->SetLongField(env, (jobject)obj, A.kwr_retained, (jlong)at);
        return obj;
    }
    jobject self = (*env)->NewLocalRef(env, (jobject)obj);
    (*env)->DeleteWeakGlobalRef(env, (jobject)obj);
    if (!self)
        return NULL;
    jobject ref = (*env)->CallStaticObjectMethod(env, A.watcher, A.watcher_retained, self,
                                                 (jint)(*tag & ~AGENT_TAG_WEAK),
                                                 (jlong)watch_ms, (jlong)at);
    (*env)->DeleteLocalRef(env, self);
    if ((*env)->ExceptionCheck(env) || !ref) {
        (*env)->ExceptionClear(env);
        return NULL;
    }
    jobject g = (*env)->NewGlobalRef(env, ref);
    (*env)->DeleteLocalRef(env, ref);
    if (g)
        *tag = 0; /* a global reference to a KeyedWeakReference from now on */
    return g;
}

static void h_release(void *ctx, void *obj, uint32_t tag)
{
    JNIEnv *env = cur_env();
    if (!env)
        return;
    if (is_weak(tag))
        (*env)->DeleteWeakGlobalRef(env, (jobject)obj);
    else
        (*env)->DeleteGlobalRef(env, (jobject)obj);
}

static void h_gc(void *ctx) { (*A.ti)->ForceGarbageCollection(A.ti); }

static void h_finalize(void *ctx)
{
    JNIEnv *env = cur_env();
    if (!env)
        return;
    jobject rt = (*env)->CallStaticObjectMethod(env, A.runtime, A.runtime_get);
    if (rt) {
        (*env)->CallVoidMethod(env, rt, A.runtime_finalize);
        (*env)->DeleteLocalRef(env, rt);
    }
    if ((*env)->ExceptionCheck(env))
        (*env)->ExceptionClear(env);
}

/* ---- analysis, in a separate process ---- */

static void *reap(void *arg)
{
    pid_t pid = (pid_t)(intptr_t)arg;
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    A.analysis_rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    A.analysing = 0;
    return NULL;
}

/* Starts `leakray watch analyze DUMP ...` in its own session, so it finishes (and writes the
 * report) even when the JVM exits first. posix_spawn is vfork-based in glibc: no copy of the
 * JVM's address space, no atfork handlers. */
static void spawn_analysis(const char *dump, double pause_ms, unsigned retained)
{
    char max[32], pause[32], ret[32];
    snprintf(max, sizeof max, "%u", A.opts.max_dumps);
    snprintf(pause, sizeof pause, "%.0f", pause_ms);
    snprintf(ret, sizeof ret, "%u", retained);
    char *argv[16];
    int n = 0;
    argv[n++] = A.leakray;
    argv[n++] = "watch";
    argv[n++] = "analyze";
    argv[n++] = (char *)dump;
    argv[n++] = "--max-dumps";
    argv[n++] = max;
    argv[n++] = "--pause-ms";
    argv[n++] = pause;
    argv[n++] = "--retained";
    argv[n++] = ret;
    if (A.opts.quiet)
        argv[n++] = "--quiet";
    if (A.opts.report == WATCH_REPORT_DB) {
        argv[n++] = "--store";
        argv[n++] = A.opts.store[0] ? A.opts.store : "default";
    }
    argv[n] = NULL;
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, A.leakray, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rc != 0) {
        complain("cannot start %s to analyse %s: %s", A.leakray, dump, strerror(rc));
        return;
    }
    A.analysing = 1;
    pthread_t t;
    pthread_attr_t pa;
    pthread_attr_init(&pa);
    pthread_attr_setdetachstate(&pa, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &pa, reap, (void *)(intptr_t)pid) != 0)
        A.analysing = 0; /* the child still runs; it is reaped when the JVM exits */
    pthread_attr_destroy(&pa);
}

/* HotSpotDiagnosticMXBean through ManagementFactory.getPlatformMXBean(Class), resolved at the
 * first dump: starting the management classes costs tens of milliseconds nobody should pay
 * at JVM start. Returns 0, or -1 (no dump possible on this JVM). */
static int resolve_dumper(JNIEnv *env)
{
    if (A.diag_bean)
        return 0;
    jclass mf = (*env)->FindClass(env, "java/lang/management/ManagementFactory");
    jclass bc = mf ? (*env)->FindClass(env, "com/sun/management/HotSpotDiagnosticMXBean") : NULL;
    if (!mf || !bc) {
        (*env)->ExceptionClear(env);
        return -1;
    }
    jmethodID gp = (*env)->GetStaticMethodID(env, mf, "getPlatformMXBean",
                                             "(Ljava/lang/Class;)Ljava/lang/management/"
                                             "PlatformManagedObject;");
    A.dump_heap = (*env)->GetMethodID(env, bc, "dumpHeap", "(Ljava/lang/String;Z)V");
    jobject bean = gp && A.dump_heap ? (*env)->CallStaticObjectMethod(env, mf, gp, bc) : NULL;
    if (!bean || (*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        return -1;
    }
    A.diag_bean = (*env)->NewGlobalRef(env, bean);
    (*env)->DeleteLocalRef(env, bean);
    (*env)->DeleteLocalRef(env, mf);
    (*env)->DeleteLocalRef(env, bc);
    return A.diag_bean ? 0 : -1;
}

/* ---- the dump ---- */

static uint64_t h_dump(void *ctx, unsigned n_retained, uint64_t started_ms)
{
    JNIEnv *env = cur_env();
    if (!env)
        return 0;
    if (resolve_dumper(env) != 0) {
        agent_disable(env, "HotSpotDiagnosticMXBean unavailable: this JVM cannot dump its heap");
        return 0;
    }
    (*env)->SetStaticLongField(env, A.kwr, A.kwr_dump_ms, (jlong)started_ms);
    char stamp[32], name[64], tmp[PATH_MAX + 80], fin[PATH_MAX + 80];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(name, sizeof name, "leakray-%s-%ld-%u", stamp, (long)getpid(), ++A.seq);
    snprintf(tmp, sizeof tmp, "%s/.%s.part.hprof", A.dir, name);
    snprintf(fin, sizeof fin, "%s/%s.hprof", A.dir, name);
    say("%u retained objects, dumping the heap to %s", n_retained, fin);
    jint epoch_at_start = S.cur;
    jstring jpath = (*env)->NewStringUTF(env, tmp);
    if (!jpath) {
        (*env)->ExceptionClear(env);
        return 0;
    }
    uint64_t t0 = clock_ms();
    (*env)->CallVoidMethod(env, A.diag_bean, A.dump_heap, jpath, JNI_TRUE);
    double pause = (double)(clock_ms() - t0);
    (*env)->DeleteLocalRef(env, jpath);
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        complain("heap dump to %s failed; retrying in %d s", tmp, WATCH_DUMP_RETRY_MS / 1000);
        unlink(tmp);
        return 0;
    }
    struct stat sb;
    if (stat(tmp, &sb) != 0 || sb.st_size == 0) {
        complain("heap dump %s is empty; retrying in %d s", tmp, WATCH_DUMP_RETRY_MS / 1000);
        unlink(tmp);
        return 0;
    }
    if (rename(tmp, fin) != 0) {
        complain("renaming %s: %s", tmp, strerror(errno));
        unlink(tmp);
        return 0;
    }
    snprintf(A.last_dump, sizeof A.last_dump, "%s", fin);
    A.last_pause_ms = pause;
    S.dump_epoch = epoch_at_start;
    say("heap dump %s: %.1f MB, pause %.0f ms; analysing in a separate process", fin,
        (double)sb.st_size / 1e6, pause); /* SI, as the CLI prints sizes */
    spawn_analysis(fin, pause, n_retained);
    return (uint64_t)sb.st_size;
}

/* ---- the status file (`leakray watch status PID`) ---- */

static void write_status(void)
{
    if (!A.core || !A.status[0])
        return;
    watch_stats st;
    watch_stats_get(A.core, &st);
    uint64_t now = clock_ms();
    A.status_at = now;
    /* text is this call's own (the agent thread and live_start both write); last is shared
     * and read and written under the lock only */
    char next[160], tmp[160];
    char text[2 * PATH_MAX + 1024];
    static char last[sizeof text];
    watch_next_action(&st, &A.cfg, now, next, sizeof next);
    int n = snprintf(
        text, sizeof text,
        "pid: %ld\nstate: %s\nnext: %s\nretained: %llu\nwatched: %llu\n"
        "threshold: %u\ndelay_ms: %llu\ntotal_watched: %llu\ncollected: %llu\n"
        "dropped: %llu\ndumps: %llu\nfailed_dumps: %llu\nlast_dump: %s\n"
        "last_dump_bytes: %llu\nlast_pause_ms: %.0f\nanalysis: %s\ndump_dir: %s\n"
        "rules: %d\nrewritten_methods: %u\ntable_bytes: %zu\nstamped_classes: %d\n"
        "stamp_scans: %llu\nstamp_found: %llu\ncall_slots: %d\nretransforms: %u\n",
        (long)getpid(), watch_state_name(st.state), next, (unsigned long long)st.retained,
        (unsigned long long)st.watched, A.cfg.threshold, (unsigned long long)A.cfg.delay_ms,
        (unsigned long long)st.total_watched, (unsigned long long)st.collected,
        (unsigned long long)st.dropped, (unsigned long long)st.dumps,
        (unsigned long long)st.failed_dumps, A.last_dump[0] ? A.last_dump : "-",
        (unsigned long long)st.last_dump_bytes, A.last_pause_ms,
        A.analysing ? "running"
                    : (st.dumps == 0 ? "-" : (A.analysis_rc == 0 ? "done" : "failed")),
        A.dir, A.can_rules ? A.opts.n_watch : 0, A.n_rewritten, st.table_bytes, S.n_cls,
        S.scans, S.found, C.n, A.n_retransforms);
    /* a new file per write (renamed over the old one, so readers never see half of it)
     * costs a file creation: skipped when nothing changed */
    if (n <= 0 || (size_t)n >= sizeof text)
        return;
    snprintf(tmp, sizeof tmp, "%s.tmp", A.status);
    /* under the executor's lock, so on_vm_death's unlink never races a rewrite */
    pthread_mutex_lock(&A.lock);
    FILE *f = A.dying || strcmp(text, last) == 0 ? NULL : fopen(tmp, "w");
    if (!f) {
        pthread_mutex_unlock(&A.lock);
        return;
    }
    int ok = fputs(text, f) >= 0;
    if (fclose(f) == 0 && ok && rename(tmp, A.status) == 0)
        memcpy(last, text, (size_t)n + 1);
    pthread_mutex_unlock(&A.lock);
}

/* ---- the agent thread: the core's executor ---- */

/* Has AppWatcher hand over the objects of its current batch (a full batch is
 * handed over by the thread that fills it). */
static void seal_rules(JNIEnv *env)
{
    (*env)->CallStaticVoidMethod(env, A.watcher, A.watcher_seal, (jlong)clock_ms());
    if ((*env)->ExceptionCheck(env))
        agent_disable(env, "AppWatcher.seal failed");
}

/* ---- stamps: the agent thread's side ---- */

/* A clock value by which every object stamped e had returned: when epoch e + 1 began (the
 * epoch is read before ACTIVE is set, and AppWatcher gets e + 1 after the clock is read), or
 * the oldest start remembered, which is later still. Never early, at most AGENT_SEAL_MS
 * late (more when the thread is starved). */
static uint64_t stamp_upper(jint e)
{
    jint nx = e + 1;
    if (nx > S.cur)
        return clock_ms();
    if (S.cur - nx > STAMP_RING - 2)
        nx = S.cur - (STAMP_RING - 2);
    return S.at[nx % STAMP_RING];
}

/* Starts the next epoch and hands it to AppWatcher. */
static void stamp_advance(JNIEnv *env, uint64_t now)
{
    S.cur++;
    S.at[S.cur % STAMP_RING] = now;
    (*env)->SetStaticIntField(env, A.watcher, S.epoch_f, S.cur);
}

/* The heap walk's callback (VM thread, at a safepoint: no JNI): tags each instance of a
 * stamped class with its class's tag, and notes which classes have instances. */
static jint JNICALL scan_cb(jlong class_tag, jlong size, jlong *tag_ptr, jint length, void *ud)
{
    unsigned char *seen = ud;
    if (class_tag > 0 && class_tag <= STAMP_CLASSES && S.cls[class_tag].n_f > 0 && !*tag_ptr) {
        *tag_ptr = STAMP_TAG_INSTANCE | class_tag;
        seen[class_tag] = 1;
    }
    return JVMTI_VISIT_OBJECTS;
}

/* Watches the objects whose stamp is in (S.scanned, hi]: a GC (what is garbage now never is
 * watched), one walk of the heap tagging the instances of stamped classes, then their stamps
 * read through JNI and the tags cleared. O(heap) for the walk, O(live stamped instances)
 * after it; runs only when a class reported activity, at most once per AGENT_SEAL_MS. */
static void stamp_scan(JNIEnv *env, jint hi)
{
    S.scans++;
    (*A.ti)->ForceGarbageCollection(A.ti);
    int n_cls = S.n_cls;
    unsigned char *seen = calloc((size_t)n_cls + 1, 1);
    jlong *tags = calloc((size_t)n_cls + 1, sizeof *tags);
    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.heap_iteration_callback = scan_cb;
    if (!seen || !tags ||
        (*A.ti)->IterateThroughHeap(A.ti, JVMTI_HEAP_FILTER_CLASS_UNTAGGED, NULL, &cb, seen) !=
            JVMTI_ERROR_NONE) {
        free(seen);
        free(tags);
        return;
    }
    /* only the classes with instances: GetObjectsWithTags compares every tagged object with
     * every tag asked for */
    jint n_tags = 0;
    for (int c = 1; c <= n_cls; c++)
        if (seen[c])
            tags[n_tags++] = STAMP_TAG_INSTANCE | c;
    jint n = 0;
    jobject *objs = NULL;
    jlong *ot = NULL;
    if (n_tags > 0 &&
        (*A.ti)->GetObjectsWithTags(A.ti, n_tags, tags, &n, &objs, &ot) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < n; i++) {
            const stamped *sc = &S.cls[ot[i] & 0xffffffff];
            jint st = 0;
            for (int f = 0; f < sc->n_f; f++) {
                jint v = (*env)->GetIntField(env, objs[i], sc->f[f]);
                if (v > st)
                    st = v;
            }
            (*A.ti)->SetTag(A.ti, objs[i], 0);
            if (st > S.scanned && st <= hi && !A.disabled) {
                jweak w = (*env)->NewWeakGlobalRef(env, objs[i]);
                if (w && watch_add(A.core, w, stamp_upper(st),
                                   AGENT_TAG_WEAK | (uint32_t)(sc->rule & 0x7f)) != 0)
                    (*env)->DeleteWeakGlobalRef(env, w);
                S.found++;
            }
            (*env)->DeleteLocalRef(env, objs[i]);
        }
        (*A.ti)->Deallocate(A.ti, (unsigned char *)objs);
        (*A.ti)->Deallocate(A.ti, (unsigned char *)ot);
    }
    if ((*env)->ExceptionCheck(env))
        (*env)->ExceptionClear(env);
    free(seen);
    free(tags);
}

/* Every AGENT_SEAL_MS: collects the classes' activity (ACTIVE, cleared before the epoch
 * moves on), starts the next epoch, and scans the stamps that came due. */
static void stamp_tick(JNIEnv *env)
{
    if (!S.on || A.disabled)
        return;
    uint64_t now = clock_ms();
    if (now - S.at[S.cur % STAMP_RING] >= AGENT_SEAL_MS) {
        int n = S.n_slots, any = 0;
        jbyte act[STAMP_SLOTS];
        static const jbyte zero = 0;
        if (n > 0) {
            (*env)->GetByteArrayRegion(env, S.active, 0, n, act);
            for (int i = 0; i < n; i++)
                if (act[i] && S.verified[i]) {
                    any = 1;
                    (*env)->SetByteArrayRegion(env, S.active, i, 1, &zero);
                }
        }
        if (any) {
            if (!S.dirty) {
                S.dirty = 1;
                /* a return seen now read this epoch or, just before it began, the last */
                S.dirty_lo = S.cur - 1 > S.scanned ? S.cur - 1 : S.scanned + 1;
            }
            S.dirty_hi = S.cur;
        }
        stamp_advance(env, now);
    }
    if (!S.dirty || now < S.next_scan)
        return;
    jint e = S.dirty_hi;
    while (e >= S.dirty_lo && stamp_upper(e) + A.cfg.delay_ms > now)
        e--;
    if (e < S.dirty_lo)
        return;
    stamp_scan(env, e);
    uint64_t gap = (clock_ms() - now) * STAMP_SCAN_SHARE;
    S.next_scan = now + (gap < A.cfg.delay_ms ? gap : A.cfg.delay_ms);
    S.scanned = e;
    if (S.dirty_hi > e)
        S.dirty_lo = e + 1;
    else
        S.dirty = 0;
}

/* After a successful dump: stamps from before it began are cleared, as LeakCanary clears
 * the objects watched before a dump. */
static void stamp_after_dump(void)
{
    if (!S.dump_epoch)
        return;
    jint floor = S.dump_epoch - 1;
    S.dump_epoch = 0;
    if (floor > S.scanned)
        S.scanned = floor;
    if (S.dirty && S.dirty_hi <= S.scanned)
        S.dirty = 0;
    else if (S.dirty && S.dirty_lo <= S.scanned)
        S.dirty_lo = S.scanned + 1;
}

static int early_retransform(JNIEnv *env); /* below, with the call hook */

static void JNICALL agent_main(jvmtiEnv *ti, JNIEnv *env, void *arg)
{
    in_agent = 1;
    uint64_t next = 0;
    write_status();
    if (early_retransform(env))
        write_status(); /* its retransforms key, at once */
    while (!A.dying) {
        pthread_mutex_lock(&A.lock);
        uint64_t at = next;
        if (A.wake_at && (!at || A.wake_at < at))
            at = A.wake_at;
        /* wake every AGENT_SEAL_MS: the batch AppWatcher fills (rule-watched objects, and
         * explicitly watched ones) is stamped with the clock when sealed, so this bounds how
         * late such an object is checked; the stamps' epoch advances at the same pace */
        uint64_t now = clock_ms();
        uint64_t tick = AGENT_SEAL_MS;
        uint64_t until = (!at || at > now + tick) ? now + tick : at;
        if (until > now && !A.dying) {
            struct timespec ts;
            ts.tv_sec = (time_t)(until / 1000);
            ts.tv_nsec = (long)(until % 1000) * 1000000L;
            while (!A.dying && (!A.wake_at || A.wake_at > until) &&
                   pthread_cond_timedwait(&A.cond, &A.lock, &ts) == 0)
                ;
        }
        if (A.wake_at && A.wake_at <= clock_ms())
            A.wake_at = 0;
        pthread_mutex_unlock(&A.lock);
        if (A.dying || A.disabled)
            break;
        seal_rules(env);
        stamp_tick(env);
        if (A.disabled)
            break;
        next = watch_run(A.core);
        /* objects watched a tick ago and collected since are let go now, not 5 s later:
         * the GC visits every JNI weak reference on each collection */
        watch_sweep(A.core, clock_ms() - AGENT_SEAL_MS);
        stamp_after_dump();
        if ((*env)->ExceptionCheck(env)) {
            agent_disable(env, "unexpected Java exception in the watcher thread");
            break;
        }
        if (clock_ms() - A.status_at >= 900 || next == 0 || A.analysing)
            write_status();
    }
}

/* ---- explicit watching: leakray.AppWatcher.watch0 ---- */

static void JNICALL native_watch0(JNIEnv *env, jclass cls, jobject ref, jlong ms)
{
    if (A.disabled || A.dying || !ref)
        return;
    jobject g = (*env)->NewGlobalRef(env, ref);
    if (!g) {
        agent_disable(env, "out of JNI global references");
        return;
    }
    if (watch_add(A.core, g, (uint64_t)ms, 0) != 0)
        (*env)->DeleteGlobalRef(env, g);
}

/* leakray.AppWatcher.flush0: a batch of objects whose watched method returned, or watched
 * through the API with a numbered description, with their rules (descriptions: from
 * AppWatcher.API_RULE), watched at ms. Each is held by a JNI weak reference until found
 * retained, when AppWatcher builds its KeyedWeakReference. One call per batch: the
 * watching threads pay no JNI transition. */
static void JNICALL native_flush0(JNIEnv *env, jclass cls, jobjectArray objs, jintArray rules,
                                  jint n, jlong ms)
{
    if (A.disabled || A.dying || !objs || !rules || n <= 0 ||
        n > (*env)->GetArrayLength(env, objs) || n > (*env)->GetArrayLength(env, rules))
        return;
    jint *rs = (*env)->GetIntArrayElements(env, rules, NULL);
    if (!rs || (*env)->PushLocalFrame(env, n) != 0) { /* one frame, no DeleteLocalRef each */
        (*env)->ExceptionClear(env);
        if (rs)
            (*env)->ReleaseIntArrayElements(env, rules, rs, JNI_ABORT);
        return;
    }
    for (jint i = 0; i < n && !A.disabled; i++) {
        jobject o = (*env)->GetObjectArrayElement(env, objs, i);
        if (!o)
            continue;
        jweak w = (*env)->NewWeakGlobalRef(env, o);
        if (!w) {
            agent_disable(env, "out of JNI weak global references");
            break;
        }
        uint32_t tag = AGENT_TAG_WEAK | ((uint32_t)rs[i] & ~AGENT_TAG_WEAK);
        if (watch_add(A.core, w, (uint64_t)ms, tag) != 0)
            (*env)->DeleteWeakGlobalRef(env, w);
    }
    (*env)->PopLocalFrame(env, NULL);
    (*env)->ReleaseIntArrayElements(env, rules, rs, JNI_ABORT);
}

/* Watches obj through AppWatcher, so the reference is built by JIT-compiled Java code. */
static void watch_object(JNIEnv *env, jobject obj, jstring desc)
{
    in_agent = 1;
    (*env)->CallStaticVoidMethod(env, A.watcher, A.watcher_watch, obj, desc);
    if ((*env)->ExceptionCheck(env))
        (*env)->ExceptionClear(env);
    in_agent = 0;
}

/* ---- watch rules: the hook inserted before the returns of the named methods ---- */

/* The methods of the class being retransformed on this thread, for on_class_file_load. */
typedef struct pending {
    jclass k;   /* the class (a local reference of the retransforming thread) */
    rw_target t[MAX_RULE_METHODS];
    char names[MAX_RULE_METHODS][128];
    char descs[MAX_RULE_METHODS][256];
    int n;
} pending;
typedef struct batch {
    pending **p;
    int n;
} batch;
static __thread batch *cur_batch;

/* "Ljava/io/Closeable;" -> "java.io.Closeable" in place. */
static void sig_to_name(char *s)
{
    size_t n = strlen(s);
    if (n >= 2 && s[0] == 'L' && s[n - 1] == ';') {
        memmove(s, s + 1, n - 2);
        s[n - 2] = 0;
    }
    for (char *p = s; *p; p++)
        if (*p == '/')
            *p = '.';
}

static int class_is(jclass k, const char *name)
{
    char *sig = NULL;
    if ((*A.ti)->GetClassSignature(A.ti, k, &sig, NULL) != JVMTI_ERROR_NONE)
        return 0;
    sig_to_name(sig);
    int eq = strcmp(sig, name) == 0;
    (*A.ti)->Deallocate(A.ti, (unsigned char *)sig);
    return eq;
}

/* Whether k, a superclass or any interface of theirs is named `name`. Bounded walk. */
static int has_supertype(JNIEnv *env, jclass k, const char *name, int depth)
{
    if (!k || depth > 32)
        return 0;
    if (class_is(k, name))
        return 1;
    jint ni = 0;
    jclass *ifs = NULL;
    int found = 0;
    if ((*A.ti)->GetImplementedInterfaces(A.ti, k, &ni, &ifs) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < ni; i++) {
            if (!found && has_supertype(env, ifs[i], name, depth + 1))
                found = 1;
            (*env)->DeleteLocalRef(env, ifs[i]);
        }
        (*A.ti)->Deallocate(A.ti, (unsigned char *)ifs);
    }
    if (found)
        return 1;
    jclass sup = (*env)->GetSuperclass(env, k);
    if (sup) {
        found = has_supertype(env, sup, name, depth + 1);
        (*env)->DeleteLocalRef(env, sup);
    }
    return found;
}

/* A class became usable: if it declares a method a rule names (instance, with code) and has
 * the rule's class among its supertypes, retransform it with the hook before that method's
 * returns. Classes without a method of a watched name cost one GetClassMethods and a few
 * name compares; nothing is done to any other method. */
/* Whether the rewritten k can link to the hook: always when the hook class is the boot
 * loader's; when attached to a JVM whose application loaded its own AppWatcher, only if k's
 * loader resolves leakray.AppWatcher to that same class (the JDK's classes cannot). */
static int hook_visible(JNIEnv *env, jclass k)
{
    if (!A.hook_loader)
        return 1;
    jobject ld = NULL;
    if ((*A.ti)->GetClassLoader(A.ti, k, &ld) != JVMTI_ERROR_NONE || !ld)
        return 0;
    int same = (*env)->IsSameObject(env, ld, A.hook_loader);
    if (!same) {
        jclass cc = (*env)->FindClass(env, "java/lang/Class");
        jmethodID fn = cc ? (*env)->GetStaticMethodID(env, cc, "forName",
                                                      "(Ljava/lang/String;ZLjava/lang/"
                                                      "ClassLoader;)Ljava/lang/Class;")
                          : NULL;
        jstring js = fn ? (*env)->NewStringUTF(env, "leakray.AppWatcher") : NULL;
        jobject c = js ? (*env)->CallStaticObjectMethod(env, cc, fn, js, JNI_FALSE, ld) : NULL;
        if ((*env)->ExceptionCheck(env))
            (*env)->ExceptionClear(env);
        same = c && (*env)->IsSameObject(env, c, A.watcher);
        if (c)
            (*env)->DeleteLocalRef(env, c);
        if (js)
            (*env)->DeleteLocalRef(env, js);
        if (cc)
            (*env)->DeleteLocalRef(env, cc);
    }
    (*env)->DeleteLocalRef(env, ld);
    return same;
}

static pending *rules_for_class(JNIEnv *env, jclass k)
{
    jint nm = 0;
    jmethodID *ms = NULL;
    if ((*A.ti)->GetClassMethods(A.ti, k, &nm, &ms) != JVMTI_ERROR_NONE)
        return NULL;
    pending *pd = NULL;
    for (jint i = 0; i < nm; i++) {
        char *mn = NULL, *msig = NULL;
        if ((*A.ti)->GetMethodName(A.ti, ms[i], &mn, &msig, NULL) != JVMTI_ERROR_NONE)
            continue;
        for (int r = 0; r < A.opts.n_watch; r++) {
            const watch_rule *ru = &A.opts.watch[r];
            if (strcmp(mn, ru->method) != 0)
                continue;
            jint mod = 0;
            (*A.ti)->GetMethodModifiers(A.ti, ms[i], &mod);
            if (mod & (0x0008 | 0x0100 | 0x0400)) /* static, native, abstract */
                continue;
            if (!has_supertype(env, k, ru->cls, 0) || !hook_visible(env, k))
                continue;
            if (!pd && !(pd = calloc(1, sizeof *pd)))
                break;
            if (pd->n < MAX_RULE_METHODS && strlen(mn) < 128 && strlen(msig) < 256) {
                snprintf(pd->names[pd->n], 128, "%s", mn);
                snprintf(pd->descs[pd->n], 256, "%s", msig);
                pd->t[pd->n].name = pd->names[pd->n];
                pd->t[pd->n].desc = pd->descs[pd->n];
                pd->t[pd->n].rule = r;
                pd->n++;
            }
            break;
        }
        (*A.ti)->Deallocate(A.ti, (unsigned char *)mn);
        (*A.ti)->Deallocate(A.ti, (unsigned char *)msig);
    }
    (*A.ti)->Deallocate(A.ti, (unsigned char *)ms);
    if ((*env)->ExceptionCheck(env))
        (*env)->ExceptionClear(env);
    if (pd)
        pd->k = k;
    return pd;
}

/* Retransforms the n classes of pds (one VM operation for all) and frees pds. */
static void retransform(JNIEnv *env, pending **pds, int n)
{
    if (n == 0)
        return;
    jclass *ks = calloc((size_t)n, sizeof *ks);
    if (ks) {
        for (int i = 0; i < n; i++) {
            ks[i] = pds[i]->k;
            /* the rewritten code calls leakray.AppWatcher, in the boot loader's unnamed
             * module, which a named module (java.base's streams) must be allowed to read */
            jobject mod = A.hook_module ? (*env)->GetModule(env, ks[i]) : NULL;
            if (mod) {
                (*A.ti)->AddModuleReads(A.ti, mod, A.hook_module);
                (*env)->DeleteLocalRef(env, mod);
            }
        }
        batch b = {pds, n};
        cur_batch = &b;
        /* the hook is enabled for this thread and this call only: enabled for good, every
         * class the JVM loads (CDS-archived ones included) would be handed to it as bytes */
        /* the hook is enabled only while some thread retransforms (JVMTI does not filter
         * it by thread): enabled for good, every class the JVM loads, CDS-archived ones
         * included, would be handed to it as bytes */
        pthread_mutex_lock(&A.hook_lock);
        if (A.hook_users++ == 0)
            (*A.ti)->SetEventNotificationMode(A.ti, JVMTI_ENABLE,
                                              JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, NULL);
        pthread_mutex_unlock(&A.hook_lock);
        jvmtiError e = (*A.ti)->RetransformClasses(A.ti, n, ks);
        __atomic_add_fetch(&A.n_retransforms, 1u, __ATOMIC_RELAXED);
        pthread_mutex_lock(&A.hook_lock);
        if (--A.hook_users == 0 && !S.on)
            (*A.ti)->SetEventNotificationMode(A.ti, JVMTI_DISABLE,
                                              JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, NULL);
        pthread_mutex_unlock(&A.hook_lock);
        cur_batch = NULL;
        if (e == JVMTI_ERROR_NONE)
            for (int i = 0; i < n; i++)
                __atomic_add_fetch(&A.n_rewritten, (unsigned)pds[i]->n, __ATOMIC_RELAXED);
        free(ks);
    }
    for (int i = 0; i < n; i++)
        free(pds[i]);
    if ((*env)->ExceptionCheck(env))
        (*env)->ExceptionClear(env);
}

/* Started with the JVM, the JDK classes loaded before the agent (its Closeables: the
 * standard streams and what opened them) get the call hook here, in one retransformation on
 * this thread once live_start has listed them, rather than on the thread that goes on to run
 * main: RetransformClasses rewrites and parses each class again and its VM operation visits
 * every loaded class, most of the agent's set-up time. Until it is done (a few milliseconds
 * after main starts) a close() of such a class is not watched. Returns 1 when it
 * retransformed. */
static int early_retransform(JNIEnv *env)
{
    pthread_mutex_lock(&A.lock);
    while (!A.early_ready && !A.dying)
        pthread_cond_wait(&A.cond, &A.lock);
    pending **pds = A.early;
    int n = A.n_early;
    A.early = NULL;
    A.n_early = 0;
    pthread_mutex_unlock(&A.lock);
    if (!pds)
        return 0;
    jclass *ks = malloc((size_t)n * sizeof *ks + 1);
    for (int i = 0; ks && i < n; i++)
        ks[i] = pds[i]->k;
    if (!A.dying && !A.disabled)
        retransform(env, pds, n); /* frees each pending */
    else
        for (int i = 0; i < n; i++)
            free(pds[i]);
    for (int i = 0; ks && i < n; i++)
        (*env)->DeleteGlobalRef(env, ks[i]);
    free(ks);
    free(pds);
    return n > 0;
}

/* ---- the load hook's filter ---- */

/* Which rules' method names class-file bytes define as constant-pool strings (Utf8 entries
 * are tag 1, a big-endian length and the bytes: the exact entry, so "closed" or "isClosed"
 * do not match), as a bit per rule; one search per distinct name. Most classes name no
 * watched method: this is all they cost at load. */
static uint64_t names_in(const unsigned char *data, jint len)
{
    uint64_t found = 0;
    for (int r = 0; r < A.opts.n_watch && r < 64; r++) {
        int f = r;
        for (int q = 0; q < r && f == r; q++)
            if (strcmp(A.opts.watch[q].method, A.opts.watch[r].method) == 0)
                f = q;
        if (f < r) {
            found |= (found >> f & 1) << r;
            continue;
        }
        char pat[3 + sizeof A.opts.watch[r].method];
        size_t n = strlen(A.opts.watch[r].method);
        pat[0] = 1;
        pat[1] = (char)(n >> 8);
        pat[2] = (char)(n & 0xff);
        memcpy(pat + 3, A.opts.watch[r].method, n);
        if (memmem(data, (size_t)len, pat, n + 3))
            found |= (uint64_t)1 << r;
    }
    return found;
}

/* ---- stamps: class loading and preparation ---- */

/* A class being defined (not redefined) by a class loader other than the boot loader:
 * if it declares a method a rule names (any descriptor; whether the rule's type is among its
 * supertypes is only known once it is prepared), it gets a slot, the stamp field and the
 * stamp hook. Under S.lock: the slot is taken only if the rewrite succeeded. */
static int stamp_load(jvmtiEnv *ti, const char *name, int again, const unsigned char *data,
                      jint len, uint64_t found, jint *new_len, unsigned char **new_data)
{
    if (!name || strncmp(name, "leakray/", 8) == 0 || strncmp(name, "leakcanary/", 11) == 0)
        return 0;
    rw_target t[WATCH_OPTS_MAX_RULES];
    int nt = 0;
    for (int r = 0; r < A.opts.n_watch && r < 64; r++) {
        const char *m = A.opts.watch[r].method;
        if (!(found >> r & 1))
            continue;
        t[nt].name = m;
        t[nt].desc = NULL;
        t[nt].rule = r;
        nt++;
    }
    if (nt == 0 || (S.n_slots >= STAMP_SLOTS && again < 0))
        return 0;
    unsigned char *out = NULL;
    size_t out_len = 0;
    pthread_mutex_lock(&S.lock);
    int slot = again >= 0 ? again : S.n_slots;
    rw_stamp st = {STAMP_FIELD, slot};
    int rc = slot < STAMP_SLOTS
                 ? rw_rewrite_stamp(data, (size_t)len, t, nt, "leakray/AppWatcher", "stamp", &st,
                                    &out, &out_len)
                 : 0;
    unsigned char *jd = NULL;
    int done = 0;
    if (again >= 0) { /* the same bytes as at load, or the redefinition fails */
        if (rc > 0 && out_len <= 0x7fffffff &&
            (*ti)->Allocate(ti, (jlong)out_len, &jd) == JVMTI_ERROR_NONE) {
            memcpy(jd, out, out_len);
            *new_data = jd;
            *new_len = (jint)out_len;
            done = 1;
        }
    } else if (rc > 0 && out_len <= 0x7fffffff && (S.slot_name[slot] = strdup(name)) &&
               (*ti)->Allocate(ti, (jlong)out_len, &jd) == JVMTI_ERROR_NONE) {
        memcpy(jd, out, out_len);
        *new_data = jd;
        *new_len = (jint)out_len;
        S.n_slots = slot + 1;
        hooked_add(name, slot + 1);
        __atomic_add_fetch(&A.n_rewritten, (unsigned)rc, __ATOMIC_RELAXED);
        done = 1;
    } else if (rc > 0) {
        free(S.slot_name[slot]);
        S.slot_name[slot] = NULL;
    }
    pthread_mutex_unlock(&S.lock);
    free(out);
    return done;
}

/* ---- call slots: class loading and preparation ---- */

/* Classes loaded before stamps were on but not yet prepared then (their bytes never passed
 * the load hook), and classes whose watched methods found no slot left: at their
 * ClassPrepare they take the old path (methods listed, call hook by retransformation). Any
 * other class has been seen at load, so one that got no hook then declares no watched
 * method. A full table (LEGACY_NAMES) sends every class the old way. Under S.lock. */
#define LEGACY_NAMES 2048 /* open-addressing table, power of 2 */
static struct {
    char *name[LEGACY_NAMES]; /* internal names, owned */
    int n;
    int overflow;
} L;

static void legacy_add(const char *name)
{
    if (L.n >= LEGACY_NAMES / 2) {
        L.overflow = 1;
        return;
    }
    uint32_t m = LEGACY_NAMES - 1, i = name_hash(name, strlen(name)) & m;
    while (L.name[i])
        i = (i + 1) & m;
    if ((L.name[i] = strdup(name)))
        L.n++;
    else
        L.overflow = 1;
}

static int legacy_has(const char *name, size_t n)
{
    if (L.overflow)
        return 1;
    uint32_t m = LEGACY_NAMES - 1, i = name_hash(name, n) & m;
    for (; L.name[i]; i = (i + 1) & m)
        if (strlen(L.name[i]) == n && memcmp(L.name[i], name, n) == 0)
            return 1;
    return 0;
}


/* A class being defined that no stamp was given (see C): each method name of a rule that
 * its bytes contain gets a call slot and the call hook. again >= 0: another agent
 * retransforms a class hooked at load from slot `again` on; its original bytes get the same
 * hooks, so its methods stay as they were. Returns 1 when *new_data was set. */
static int call_load(jvmtiEnv *ti, const char *name, int again, const unsigned char *data,
                     jint len, uint64_t found, jint *new_len, unsigned char **new_data)
{
    if (!name || strncmp(name, "leakray/", 8) == 0 || strncmp(name, "leakcanary/", 11) == 0)
        return 0;
    const char *ms[WATCH_OPTS_MAX_RULES];
    int nm = 0;
    for (int r = 0; r < A.opts.n_watch && r < 64; r++) {
        const char *m = A.opts.watch[r].method;
        int dup = 0;
        for (int i = 0; i < nm && !dup; i++)
            dup = strcmp(ms[i], m) == 0;
        if (!dup && (found >> r & 1))
            ms[nm++] = m;
    }
    if (nm == 0 && again < 0)
        return 0;
    pthread_mutex_lock(&S.lock);
    int first = again >= 0 ? again : C.n;
    if (again >= 0) { /* the slots given at load, in the same order */
        nm = 0;
        for (int i = again; i < C.n && C.cls[i] && strcmp(C.cls[i], name) == 0 &&
                            nm < WATCH_OPTS_MAX_RULES;
             i++)
            ms[nm++] = C.method[i];
    }
    rw_target t[WATCH_OPTS_MAX_RULES];
    for (int i = 0; i < nm; i++) {
        t[i].name = ms[i];
        t[i].desc = NULL;
        t[i].rule = CALL_RULE + first + i;
    }
    unsigned char *out = NULL, *jd = NULL;
    size_t out_len = 0;
    int rc = nm > 0 && first + nm <= CALL_SLOTS
                 ? rw_rewrite(data, (size_t)len, t, nm, "leakray/AppWatcher", "returned", &out,
                              &out_len)
                 : 0;
    if (again < 0 && first + nm > CALL_SLOTS)
        legacy_add(name); /* no slot left: retransformed once prepared, as before */
    int done = 0;
    if (rc > 0 && out_len <= 0x7fffffff &&
        (*ti)->Allocate(ti, (jlong)out_len, &jd) == JVMTI_ERROR_NONE) {
        int ok = 1;
        for (int i = 0; again < 0 && i < nm && ok; i++)
            ok = (C.cls[first + i] = strdup(name)) != NULL;
        if (ok) {
            memcpy(jd, out, out_len);
            *new_data = jd;
            *new_len = (jint)out_len;
            done = 1;
            if (again < 0) {
                for (int i = 0; i < nm; i++)
                    C.method[first + i] = ms[i];
                C.n = first + nm;
                hooked_add(name, -(first + 1));
                __atomic_add_fetch(&A.n_rewritten, (unsigned)rc, __ATOMIC_RELAXED);
            }
        } else {
            for (int i = 0; i < nm; i++) {
                free(C.cls[first + i]);
                C.cls[first + i] = NULL;
            }
            (*ti)->Deallocate(ti, jd);
        }
    }
    pthread_mutex_unlock(&S.lock);
    free(out);
    return done;
}

/* k's module is made to read the hook's (AppWatcher's, the boot loader's unnamed module):
 * a named module (java.base) must, or its rewritten code fails to link. Each named module
 * once (the first few remembered); an unnamed module reads every module already. */
static void module_reads(JNIEnv *env, jclass k)
{
    if (!A.hook_module)
        return;
    jobject mod = (*env)->GetModule(env, k);
    if (!mod)
        return;
    int seen = 0;
    pthread_mutex_lock(&S.lock); /* classes are prepared on many threads */
    for (int i = 0; i < C.n_read_by && !seen; i++)
        seen = (*env)->IsSameObject(env, mod, C.read_by[i]);
    pthread_mutex_unlock(&S.lock);
    if (!seen) {
        /* Java code runs in there (Module.addReads): not under the lock. Recorded only once
         * done, so no thread skips it for a module that does not read the hook's yet (two
         * threads may both add it: harmless) */
        (*A.ti)->AddModuleReads(A.ti, mod, A.hook_module);
        pthread_mutex_lock(&S.lock);
        if (C.n_read_by < (int)(sizeof C.read_by / sizeof C.read_by[0]) &&
            (C.read_by[C.n_read_by] = (*env)->NewGlobalRef(env, mod)))
            C.n_read_by++;
        pthread_mutex_unlock(&S.lock);
    }
    (*env)->DeleteLocalRef(env, mod);
    if ((*env)->ExceptionCheck(env))
        (*env)->ExceptionClear(env);
}

/* A class hooked at load from call slot `first` on was prepared: each slot gets its rule,
 * the first rule naming its method whose class or interface is among k's supertypes, or
 * none (the hook stays inert). JVMTI and JNI only, no Java: safe on any thread, the agent's
 * own included. */
static void call_prepare(JNIEnv *env, jclass k, int first)
{
    jint rules[WATCH_OPTS_MAX_RULES];
    int n = 0;
    pthread_mutex_lock(&S.lock);
    const char *cls = C.cls[first];
    while (first + n < C.n && n < WATCH_OPTS_MAX_RULES && C.cls[first + n] &&
           strcmp(C.cls[first + n], cls) == 0 && !C.settled[first + n]) {
        C.settled[first + n] = 1;
        n++;
    }
    pthread_mutex_unlock(&S.lock);
    for (int i = 0; i < n; i++) {
        rules[i] = 0;
        for (int r = 0; r < A.opts.n_watch && !rules[i]; r++)
            if (strcmp(A.opts.watch[r].method, C.method[first + i]) == 0 &&
                has_supertype(env, k, A.opts.watch[r].cls, 0))
                rules[i] = r + 1;
    }
    if (n > 0 && C.called)
        (*env)->SetIntArrayRegion(env, C.called, first, n, rules);
    if ((*env)->ExceptionCheck(env))
        (*env)->ExceptionClear(env);
}

/* k's own stamp field, or NULL. */
static jfieldID own_stamp_field(jclass k)
{
    jint nf = 0;
    jfieldID *fs = NULL, found = NULL;
    if ((*A.ti)->GetClassFields(A.ti, k, &nf, &fs) != JVMTI_ERROR_NONE)
        return NULL;
    for (jint i = 0; i < nf && !found; i++) {
        char *fname = NULL;
        if ((*A.ti)->GetFieldName(A.ti, k, fs[i], &fname, NULL, NULL) == JVMTI_ERROR_NONE &&
            strcmp(fname, STAMP_FIELD) == 0)
            found = fs[i];
        if (fname)
            (*A.ti)->Deallocate(A.ti, (unsigned char *)fname);
    }
    (*A.ti)->Deallocate(A.ti, (unsigned char *)fs);
    return found;
}

/* A class was prepared (before any of its code runs; its module reads the hook's). If it
 * was given a stamp field at load (named: its signature sig is a stamp slot's) and pd says
 * a rule's type is among its supertypes, it becomes a stamped class; a subclass of a
 * stamped class is one too, with its parent's fields. Returns 1 when the class must not be
 * retransformed (it has a field: rewriting it again without would be a schema change),
 * else 0. */
static int stamp_prepare(JNIEnv *env, jclass k, const char *sig, int named, const pending *pd)
{
    jlong sup_tag = 0;
    jclass sup = (*env)->GetSuperclass(env, k);
    if (sup) {
        (*A.ti)->GetTag(A.ti, sup, &sup_tag);
        (*env)->DeleteLocalRef(env, sup);
    }
    jfieldID own = named && sig ? own_stamp_field(k) : NULL;
    int verified = own && pd;
    if (sup_tag <= 0 || sup_tag > STAMP_CLASSES)
        sup_tag = 0;
    if (verified || sup_tag) {
        pthread_mutex_lock(&S.lock);
        if (S.n_cls < STAMP_CLASSES) {
            stamped *c = &S.cls[S.n_cls + 1];
            memset(c, 0, sizeof *c);
            if (verified) {
                c->f[c->n_f++] = own;
                c->rule = pd->t[0].rule;
            }
            const stamped *p = sup_tag ? &S.cls[sup_tag] : NULL;
            for (int i = 0; p && i < p->n_f && c->n_f < STAMP_FIELDS; i++)
                c->f[c->n_f++] = p->f[i];
            if (!verified && p)
                c->rule = p->rule;
            if ((*A.ti)->SetTag(A.ti, k, S.n_cls + 1) == JVMTI_ERROR_NONE) {
                S.n_cls++;
                for (int i = 0; verified && i < S.n_slots; i++)
                    if (S.slot_name[i] && strlen(S.slot_name[i]) == strlen(sig) - 2 &&
                        memcmp(S.slot_name[i], sig + 1, strlen(sig) - 2) == 0)
                        S.verified[i] = 1;
            }
        }
        pthread_mutex_unlock(&S.lock);
    }
    return own != NULL;
}

/* The retransformation asked for by rules_for_class, on the same thread; or, while stamps
 * are on, a class being loaded. */
static void JNICALL on_class_file_load(jvmtiEnv *ti, JNIEnv *env, jclass being_redefined,
                                       jobject loader, const char *name, jobject pd,
                                       jint len, const unsigned char *data, jint *new_len,
                                       unsigned char **new_data)
{
    if (!being_redefined) {
        uint64_t found = S.on && len > 0 && !A.disabled && !A.dying ? names_in(data, len) : 0;
        if (found && !(loader && stamp_load(ti, name, -1, data, len, found, new_len, new_data)))
            call_load(ti, name, -1, data, len, found, new_len, new_data);
        return;
    }
    batch *b = cur_batch;
    if (!b && S.on && name && len > 0) {
        /* another agent retransforms a class: one with a stamp field must get it again (the
         * bytes given here are the class's original ones), or its redefinition would fail;
         * one hooked at load keeps its hooks */
        int slot = -1;
        for (int i = 0; i < S.n_slots && slot < 0; i++)
            if (S.slot_name[i] && strcmp(S.slot_name[i], name) == 0)
                slot = i;
        jint st = 0;
        (*ti)->GetClassStatus(ti, being_redefined, &st);
        /* a class loaded but not yet prepared cannot list its fields: its name's slot says */
        if (slot >= 0 &&
            (!(st & JVMTI_CLASS_STATUS_PREPARED) || own_stamp_field(being_redefined))) {
            stamp_load(ti, name, slot, data, len, names_in(data, len), new_len, new_data);
            return;
        }
        pthread_mutex_lock(&S.lock);
        int e = hooked_find(name, strlen(name));
        pthread_mutex_unlock(&S.lock);
        if (e < 0) /* the slots given at load say which names */
            call_load(ti, name, -e - 1, data, len, 0, new_len, new_data);
        return;
    }
    if (!b || len <= 0)
        return;
    pending *p = NULL;
    for (int i = 0; i < b->n && !p; i++)
        if ((*env)->IsSameObject(env, being_redefined, b->p[i]->k))
            p = b->p[i];
    if (!p)
        return;
    unsigned char *out = NULL;
    size_t out_len = 0;
    if (rw_rewrite(data, (size_t)len, p->t, p->n, "leakray/AppWatcher", "returned", &out,
                   &out_len) <= 0)
        return;
    unsigned char *jd = NULL;
    if (out_len <= 0x7fffffff &&
        (*ti)->Allocate(ti, (jlong)out_len, &jd) == JVMTI_ERROR_NONE) {
        memcpy(jd, out, out_len);
        *new_data = jd;
        *new_len = (jint)out_len;
    }
    free(out);
}

/* ---- class preparation: which hook a class gets ---- */

/* A class became usable. While stamps are on, a class hooked at load first gets its module
 * made to read the hook's and its call slots decided, on any thread (the agent's own too:
 * its code may run on the next call, whoever prepared it); JVMTI and JNI only. Then, not on
 * the agent's own calls: a stamped class's supertypes are checked, and a class never seen at
 * load (or every class, when stamps are off) is listed for methods a rule names, which get
 * the call hook by retransformation. */
static void JNICALL on_class_prepare(jvmtiEnv *ti, JNIEnv *env, jthread th, jclass k)
{
    if (!A.live || A.disabled || A.dying || !A.can_rules || A.opts.n_watch == 0)
        return;
    char *sig = NULL;
    int e = 0, legacy = 1;
    if (S.on && (*A.ti)->GetClassSignature(A.ti, k, &sig, NULL) == JVMTI_ERROR_NONE) {
        size_t l = strlen(sig);
        if (l > 2 && sig[0] == 'L') {
            pthread_mutex_lock(&S.lock);
            e = hooked_find(sig + 1, l - 2);
            legacy = !e && legacy_has(sig + 1, l - 2);
            pthread_mutex_unlock(&S.lock);
        }
        if (e)
            module_reads(env, k);
        if (e < 0)
            call_prepare(env, k, -e - 1);
    }
    if (e >= 0 && !in_agent) {
        in_agent = 1;
        pending *pd = legacy || e > 0 ? rules_for_class(env, k) : NULL;
        if (S.on && stamp_prepare(env, k, sig, e > 0, pd)) {
            free(pd);
            pd = NULL;
        }
        if (pd)
            retransform(env, &pd, 1);
        in_agent = 0;
    }
    if (sig)
        (*A.ti)->Deallocate(A.ti, (unsigned char *)sig);
}

/* ---- built in: a Thread object once its thread ended ---- */

static void JNICALL on_thread_end(jvmtiEnv *ti, JNIEnv *env, jthread th)
{
    if (in_agent || !A.live || A.disabled || A.dying || !th)
        return;
    if (A.agent_thread && (*env)->IsSameObject(env, th, A.agent_thread))
        return;
    jvmtiThreadInfo info;
    memset(&info, 0, sizeof info);
    char d[300];
    if ((*ti)->GetThreadInfo(ti, th, &info) == JVMTI_ERROR_NONE && info.name) {
        snprintf(d, sizeof d, "java.lang.Thread \"%s\" ended", info.name);
        (*ti)->Deallocate(ti, (unsigned char *)info.name);
    } else {
        snprintf(d, sizeof d, "java.lang.Thread ended");
    }
    if (info.thread_group)
        (*env)->DeleteLocalRef(env, info.thread_group);
    if (info.context_class_loader)
        (*env)->DeleteLocalRef(env, info.context_class_loader);
    jstring js = (*env)->NewStringUTF(env, d);
    if (!js) {
        (*env)->ExceptionClear(env);
        return;
    }
    watch_object(env, th, js);
    (*env)->DeleteLocalRef(env, js);
}

/* ---- live start: resolve classes, install AppWatcher, start the thread ---- */

/* name ("a/b/C") through FindClass, or, when attached to a JVM whose application already
 * loaded its own copy of the jar, through that copy's loader (Class.forName). */
static jclass global_class(JNIEnv *env, const char *name)
{
    jclass l = NULL;
    if (A.hook_loader && strncmp(name, "java/", 5) != 0) {
        char dotted[128];
        snprintf(dotted, sizeof dotted, "%s", name);
        for (char *p = dotted; *p; p++)
            if (*p == '/')
                *p = '.';
        jclass cc = (*env)->FindClass(env, "java/lang/Class");
        jmethodID fn = cc ? (*env)->GetStaticMethodID(env, cc, "forName",
                                                      "(Ljava/lang/String;ZLjava/lang/"
                                                      "ClassLoader;)Ljava/lang/Class;")
                          : NULL;
        jstring js = fn ? (*env)->NewStringUTF(env, dotted) : NULL;
        if (js)
            l = (*env)->CallStaticObjectMethod(env, cc, fn, js, JNI_TRUE, A.hook_loader);
        if ((*env)->ExceptionCheck(env)) {
            (*env)->ExceptionClear(env);
            l = NULL;
        }
    } else {
        l = (*env)->FindClass(env, name);
    }
    if (!l) {
        (*env)->ExceptionClear(env);
        return NULL;
    }
    jclass g = (*env)->NewGlobalRef(env, l);
    (*env)->DeleteLocalRef(env, l);
    return g;
}

static int resolve(JNIEnv *env)
{
    A.kwr = global_class(env, "leakcanary/KeyedWeakReference");
    A.watcher = global_class(env, "leakray/AppWatcher");
    A.runtime = global_class(env, "java/lang/Runtime");
    if (!A.kwr || !A.watcher || !A.runtime)
        return -1;
    A.kwr_get = (*env)->GetMethodID(env, A.kwr, "get", "()Ljava/lang/Object;");
    A.kwr_refers_to = (*env)->GetMethodID(env, A.kwr, "refersTo", "(Ljava/lang/Object;)Z");
    if (!A.kwr_refers_to)
        (*env)->ExceptionClear(env);
    A.kwr_retained = (*env)->GetFieldID(env, A.kwr, "retainedUptimeMillis", "J");
    A.kwr_dump_ms = (*env)->GetStaticFieldID(env, A.kwr, "heapDumpUptimeMillis", "J");
    A.watcher_watch = (*env)->GetStaticMethodID(env, A.watcher, "watchNow",
                                                "(Ljava/lang/Object;Ljava/lang/String;)V");
    A.watcher_installed = (*env)->GetStaticFieldID(env, A.watcher, "installed", "Z");
    A.watcher_seal = (*env)->GetStaticMethodID(env, A.watcher, "seal", "(J)V");
    A.watcher_retained = (*env)->GetStaticMethodID(env, A.watcher, "retainedByRule",
                                                   "(Ljava/lang/Object;IJJ)"
                                                   "Lleakcanary/KeyedWeakReference;");
    A.runtime_get = (*env)->GetStaticMethodID(env, A.runtime, "getRuntime",
                                              "()Ljava/lang/Runtime;");
    A.runtime_finalize = (*env)->GetMethodID(env, A.runtime, "runFinalization", "()V");
    if (!A.kwr_get || !A.kwr_retained || !A.kwr_dump_ms || !A.watcher_watch ||
        !A.watcher_installed || !A.watcher_seal || !A.watcher_retained || !A.runtime_get ||
        !A.runtime_finalize)
        return -1;
    /* the rules' names for AppWatcher.returned's descriptions, and its module */
    jclass sc = (*env)->FindClass(env, "java/lang/String");
    jobjectArray arr = sc ? (*env)->NewObjectArray(env, A.opts.n_watch, sc, NULL) : NULL;
    jfieldID rf = (*env)->GetStaticFieldID(env, A.watcher, "rules", "[Ljava/lang/String;");
    if (!arr || !rf)
        return -1;
    for (int i = 0; i < A.opts.n_watch; i++) {
        char d[400];
        snprintf(d, sizeof d, "%s#%s()", A.opts.watch[i].cls, A.opts.watch[i].method);
        jstring js = (*env)->NewStringUTF(env, d);
        if (!js)
            return -1;
        (*env)->SetObjectArrayElement(env, arr, i, js);
        (*env)->DeleteLocalRef(env, js);
    }
    (*env)->SetStaticObjectField(env, A.watcher, rf, arr);
    if ((*env)->GetVersion(env) >= 0x00090000) {
        jobject mod = (*env)->GetModule(env, A.watcher);
        if (mod)
            A.hook_module = (*env)->NewGlobalRef(env, mod);
    }
    JNINativeMethod nm[2] = {
        {"watch0", "(Lleakcanary/KeyedWeakReference;J)V", (void *)native_watch0},
        {"flush0", "([Ljava/lang/Object;[IIJ)V", (void *)native_flush0}};
    if ((*env)->RegisterNatives(env, A.watcher, nm, 2) != 0)
        return -1;
    return 0;
}

static int start_thread(JNIEnv *env)
{
    jclass tc = (*env)->FindClass(env, "java/lang/Thread");
    if (!tc)
        return -1;
    jmethodID ctor = (*env)->GetMethodID(env, tc, "<init>", "(Ljava/lang/String;)V");
    jstring name = (*env)->NewStringUTF(env, "leakray watcher");
    if (!ctor || !name)
        return -1;
    jthread t = (*env)->NewObject(env, tc, ctor, name);
    if (!t)
        return -1;
    A.agent_thread = (*env)->NewGlobalRef(env, t);
    if ((*A.ti)->RunAgentThread(A.ti, t, agent_main, NULL, JVMTI_THREAD_NORM_PRIORITY) !=
        JVMTI_ERROR_NONE)
        return -1;
    return 0;
}

/* Turns stamps and load-time call hooks on for the classes loaded from now on (before the
 * batch of classes loaded earlier, which leaves out any class hooked at load: a class with a
 * field must never be in a retransformation batch). Started with the JVM only: attached,
 * the application's classes are loaded already. */
static void stamp_start(JNIEnv *env)
{
    if (!A.can_tag || A.attached || A.hook_loader)
        return;
    S.epoch_f = (*env)->GetStaticFieldID(env, A.watcher, "epoch", "I");
    jfieldID af = S.epoch_f ? (*env)->GetStaticFieldID(env, A.watcher, "ACTIVE", "[B") : NULL;
    jobject arr = af ? (*env)->GetStaticObjectField(env, A.watcher, af) : NULL;
    if (arr && (*env)->GetArrayLength(env, arr) == STAMP_SLOTS)
        S.active = (*env)->NewGlobalRef(env, arr);
    if (arr)
        (*env)->DeleteLocalRef(env, arr);
    jfieldID cf = S.active ? (*env)->GetStaticFieldID(env, A.watcher, "CALLED", "[I") : NULL;
    jobject ca = cf ? (*env)->GetStaticObjectField(env, A.watcher, cf) : NULL;
    if (ca && (*env)->GetArrayLength(env, ca) == CALL_SLOTS)
        C.called = (*env)->NewGlobalRef(env, ca);
    if (ca)
        (*env)->DeleteLocalRef(env, ca);
    if (!S.active || !C.called) { /* an older jar: the call hook does the job */
        (*env)->ExceptionClear(env);
        return;
    }
    stamp_advance(env, clock_ms());
    pthread_mutex_lock(&A.hook_lock);
    S.on = 1;
    if (A.hook_users == 0)
        (*A.ti)->SetEventNotificationMode(A.ti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK,
                                          NULL);
    pthread_mutex_unlock(&A.hook_lock);
}

static void live_start(JNIEnv *env)
{
    in_agent = 1;
    uint64_t t0 = clock_ms();
    watch_env we = {NULL, h_now, h_wake, h_alive, h_retained, h_release, h_gc, h_finalize,
                    h_dump};
    A.core = watch_new(&A.cfg, &we);
    /* named before the agent thread starts, which writes it first thing */
    snprintf(A.status, sizeof A.status, AGENT_STATUS_FMT, (long)getpid());
    if (!A.core || resolve(env) != 0 || start_thread(env) != 0) {
        A.status[0] = 0;
        agent_disable(env, "cannot set up the watcher (is " AGENT_JAR
                           " beside the agent library?)");
        in_agent = 0;
        return;
    }
    A.live = 1;
    (*env)->SetStaticBooleanField(env, A.watcher, A.watcher_installed, JNI_TRUE);
    if (A.can_rules && A.opts.n_watch > 0) {
        jint nc = 0;
        jclass *cs = NULL;
        pending **pds = NULL;
        int np = 0;
        /* stamps and load-time hooks first: every class loaded from now on passes the load
         * hook, and every class loaded before is in the list below (a class hooked at load
         * must stay out of the batch: its own ClassPrepare deals with it) */
        stamp_start(env);
        if ((*A.ti)->GetLoadedClasses(A.ti, &nc, &cs) == JVMTI_ERROR_NONE &&
            (pds = calloc((size_t)nc + 1, sizeof *pds))) {
            /* the classes loaded before now, retransformed in one batch. Only subtypes of
             * the rules' own classes (found by name among them, whatever their loader) can
             * need the hook: IsAssignableFrom rules the others out without listing their
             * methods (most of the start-up cost when hundreds of classes are loaded) */
            unsigned char *ok = calloc((size_t)nc + 1, 1);
            jint *rcs = calloc((size_t)nc + 1, sizeof *rcs), nrc = 0;
            for (jint i = 0; ok && rcs && i < nc; i++) {
                jint st = 0;
                char *sig = NULL;
                (*A.ti)->GetClassStatus(A.ti, cs[i], &st);
                ok[i] = (st & JVMTI_CLASS_STATUS_PREPARED) && !(st & JVMTI_CLASS_STATUS_ARRAY) &&
                        !(st & JVMTI_CLASS_STATUS_PRIMITIVE);
                if ((st & (JVMTI_CLASS_STATUS_ARRAY | JVMTI_CLASS_STATUS_PRIMITIVE)) ||
                    (*A.ti)->GetClassSignature(A.ti, cs[i], &sig, NULL) != JVMTI_ERROR_NONE)
                    continue;
                size_t l = strlen(sig);
                if (S.on && l > 2 && sig[0] == 'L') {
                    pthread_mutex_lock(&S.lock);
                    if (hooked_find(sig + 1, l - 2))
                        ok[i] = 0; /* hooked at load, prepared on its own */
                    else if (!ok[i]) {
                        sig[l - 1] = 0;
                        legacy_add(sig + 1); /* never seen by the load hook */
                    }
                    pthread_mutex_unlock(&S.lock);
                }
                if (!ok[i]) {
                    (*A.ti)->Deallocate(A.ti, (unsigned char *)sig);
                    continue;
                }
                sig_to_name(sig);
                for (int r = 0; r < A.opts.n_watch; r++)
                    if (strcmp(sig, A.opts.watch[r].cls) == 0) {
                        rcs[nrc++] = i;
                        break;
                    }
                (*A.ti)->Deallocate(A.ti, (unsigned char *)sig);
            }
            for (jint i = 0; ok && rcs && i < nc; i++) {
                int sub = 0;
                for (jint j = 0; ok[i] && j < nrc && !sub; j++)
                    sub = (*env)->IsAssignableFrom(env, cs[i], cs[rcs[j]]);
                pending *pd = sub ? rules_for_class(env, cs[i]) : NULL;
                if (pd)
                    pds[np++] = pd;
                else
                    ok[i] = 0;
            }
            for (jint i = 0; i < nc; i++) /* the batch's classes are freed with this frame */
                if (!ok || !ok[i])
                    (*env)->DeleteLocalRef(env, cs[i]);
            free(ok);
            free(rcs);
            if (A.attached) {
                retransform(env, pds, np); /* frees each pending; refs die with this frame */
                free(pds);
            } else { /* the agent's thread does it (early_retransform), main goes on */
                for (int i = 0; i < np; i++)
                    pds[i]->k = (*env)->NewGlobalRef(env, pds[i]->k);
                pthread_mutex_lock(&A.lock);
                A.early = pds;
                A.n_early = np;
                pthread_mutex_unlock(&A.lock);
            }
        }
        if (cs)
            (*A.ti)->Deallocate(A.ti, (unsigned char *)cs);
    }
    pthread_mutex_lock(&A.lock);
    A.early_ready = 1;
    pthread_cond_broadcast(&A.cond);
    pthread_mutex_unlock(&A.lock);
    say("watching (threshold %u, delay %llu ms, %d watch rules%s, %u methods hooked, set up "
        "in %llu ms), reports in %s",
        A.cfg.threshold, (unsigned long long)A.cfg.delay_ms, A.can_rules ? A.opts.n_watch : 0,
        A.opts.n_watch > 0 && !A.can_rules ? " unavailable" : "", A.n_rewritten,
        (unsigned long long)(clock_ms() - t0), A.dir);
    /* attached, the status file exists once the agent is set up: `leakray attach` returns
     * after this, and `leakray watch status PID` right after it must find the agent. At
     * start the agent's thread writes it first thing (a file creation less on the path to
     * main) */
    if (A.attached)
        write_status();
    in_agent = 0;
}

static void JNICALL on_vm_init(jvmtiEnv *ti, JNIEnv *env, jthread th) { live_start(env); }

static void JNICALL on_vm_death(jvmtiEnv *ti, JNIEnv *env)
{
    pthread_mutex_lock(&A.lock);
    A.dying = 1;
    pthread_cond_broadcast(&A.cond);
    if (A.status[0])
        unlink(A.status);
    pthread_mutex_unlock(&A.lock);
}

/* ---- loading ---- */

/* Finds `rel` beside this library (build tree), in share/leakray of the install prefix (lib/
 * or a multiarch lib/<triplet>/ below it), or the CLI in the prefix's bin/. Returns 0 with the
 * path in out. */
static int find_beside(const char *rel, char *out, size_t n)
{
    static const char *const cands[] = {"%s/%s", "%s/../share/leakray/%s",
                                        "%s/../../share/leakray/%s", "%s/../bin/%s",
                                        "%s/../../bin/%s"};
    for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++) {
        snprintf(out, n, cands[i], A.self_dir, rel);
        /* Files only: <prefix>/lib/leakray is the native monitor's folder, not the CLI. */
        struct stat sb;
        if (access(out, R_OK) == 0 && stat(out, &sb) == 0 && S_ISREG(sb.st_mode))
            return 0;
    }
    return -1;
}

/* Attached: if a class loader already defined leakray.AppWatcher (an application calling
 * the API without the agent), keeps that loader in A.hook_loader. Returns 0, -1 on error. */
static int find_app_watcher(JavaVM *vm)
{
    JNIEnv *env = NULL;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK)
        return -1;
    jint nc = 0;
    jclass *cs = NULL;
    if ((*A.ti)->GetLoadedClasses(A.ti, &nc, &cs) != JVMTI_ERROR_NONE)
        return -1;
    for (jint i = 0; i < nc; i++) {
        char *sig = NULL;
        if (!A.hook_loader &&
            (*A.ti)->GetClassSignature(A.ti, cs[i], &sig, NULL) == JVMTI_ERROR_NONE &&
            strcmp(sig, "Lleakray/AppWatcher;") == 0) {
            jobject ld = NULL;
            if ((*A.ti)->GetClassLoader(A.ti, cs[i], &ld) == JVMTI_ERROR_NONE && ld) {
                A.hook_loader = (*env)->NewGlobalRef(env, ld);
                (*env)->DeleteLocalRef(env, ld);
            }
        }
        if (sig)
            (*A.ti)->Deallocate(A.ti, (unsigned char *)sig);
        (*env)->DeleteLocalRef(env, cs[i]);
    }
    (*A.ti)->Deallocate(A.ti, (unsigned char *)cs);
    return 0;
}

static jint agent_init(JavaVM *vm, char *options, int live)
{
    char err[300];
    A.vm = vm;
    /* the executor waits for clock_ms() deadlines: its condition must run on the same
     * (monotonic) clock, else every timed wait ends at once and the thread spins */
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) == 0) {
        if (pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0)
            pthread_cond_init(&A.cond, &ca);
        pthread_condattr_destroy(&ca);
    }
    if (watch_opts_parse(options, &A.opts, err, sizeof err) != 0) {
        complain("%s", err);
        return JNI_ERR;
    }
    Dl_info di;
    if (dladdr((void *)agent_init, &di) && di.dli_fname) {
        char *rp = realpath(di.dli_fname, NULL);
        if (rp) {
            snprintf(A.self_dir, sizeof A.self_dir, "%s", rp);
            free(rp);
            char *slash = strrchr(A.self_dir, '/');
            if (slash)
                *slash = 0;
        }
    }
    /* rules: the shipped jvm.rules unless rules= names another file or none */
    if (strcmp(A.opts.rules, "none") != 0) {
        char path[PATH_MAX + 64];
        if (A.opts.rules[0])
            snprintf(path, sizeof path, "%s", A.opts.rules);
        else if (find_beside("rules/jvm.rules", path, sizeof path) != 0)
            snprintf(path, sizeof path, "%s", LEAKRAY_SOURCE_RULES_DIR "/jvm.rules");
        watch_opts rules;
        watch_opts_default(&rules);
        if (watch_rules_load(path, &rules, err, sizeof err) != 0) {
            complain("%s", err);
            return JNI_ERR;
        }
        for (int i = 0; i < rules.n_watch && A.opts.n_watch < WATCH_OPTS_MAX_RULES; i++)
            A.opts.watch[A.opts.n_watch++] = rules.watch[i];
    }
    watch_config_default(&A.cfg);
    A.cfg.delay_ms = A.opts.delay_ms;
    A.cfg.threshold = A.opts.threshold;
    A.cfg.max_watched = A.opts.max_watched;
    /* the dump directory, absolute (a relative dumpHeap path resolves against the JVM's cwd,
     * which can change meaning for the separate analysis process) */
    const char *d = A.opts.dump_dir[0] ? A.opts.dump_dir : ".";
    if (mkdir(d, 0777) != 0 && errno != EEXIST) {
        complain("dump-dir=%s: %s", d, strerror(errno));
        return JNI_ERR;
    }
    if (!realpath(d, A.dir)) {
        complain("dump-dir=%s: %s", d, strerror(errno));
        return JNI_ERR;
    }
    if (A.opts.leakray[0])
        snprintf(A.leakray, sizeof A.leakray, "%s", A.opts.leakray);
    else if (find_beside("leakray", A.leakray, sizeof A.leakray) != 0)
        snprintf(A.leakray, sizeof A.leakray, "leakray"); /* from PATH */
    char jar[PATH_MAX + 64];
    if (find_beside(AGENT_JAR, jar, sizeof jar) != 0) {
        complain("%s not found beside %s/libleakray_agent.so; agent not started", AGENT_JAR,
                 A.self_dir);
        return live ? JNI_ERR : JNI_OK; /* never stop a JVM for a broken install */
    }
    if ((*vm)->GetEnv(vm, (void **)&A.ti, JVMTI_VERSION_1_2) != JNI_OK) {
        complain("JVMTI 1.2 not available; agent not started");
        return live ? JNI_ERR : JNI_OK;
    }
    jvmtiCapabilities want;
    memset(&want, 0, sizeof want);
    want.can_retransform_classes = 1;
    /* stamps (started with the JVM only) find their objects with tags and a heap walk */
    want.can_tag_objects = !live;
    A.attached = live;
    /* rules rewrite classes already loaded too (attached, or the JDK's own at start) */
    A.can_rules = A.opts.n_watch > 0 &&
                  (*A.ti)->AddCapabilities(A.ti, &want) == JVMTI_ERROR_NONE;
    A.can_tag = A.can_rules && !live;
    if (A.opts.n_watch > 0 && !A.can_rules && !live) {
        want.can_tag_objects = 0;
        A.can_rules = (*A.ti)->AddCapabilities(A.ti, &want) == JVMTI_ERROR_NONE;
    }
    if (A.opts.n_watch > 0 && !A.can_rules)
        say("watch rules are off (class retransformation unavailable)");
    /* The jar goes on the boot class path, so every loader, the JDK's included, sees one
     * copy of the hook. Attached to a JVM whose application already loaded its own copy
     * (it calls the API), that copy is the one installed, and rules apply to the classes
     * that can see it. */
    jvmtiError je = JVMTI_ERROR_NONE;
    if (live && find_app_watcher(vm) != 0)
        return JNI_ERR;
    if (!A.hook_loader)
        je = (*A.ti)->AddToBootstrapClassLoaderSearch(A.ti, jar);
    if (je != JVMTI_ERROR_NONE) {
        complain("cannot add %s to the class path; agent not started", jar);
        return live ? JNI_ERR : JNI_OK;
    }
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.VMInit = on_vm_init;
    cb.VMDeath = on_vm_death;
    cb.ClassPrepare = on_class_prepare;
    cb.ClassFileLoadHook = on_class_file_load;
    cb.ThreadEnd = on_thread_end;
    (*A.ti)->SetEventCallbacks(A.ti, &cb, sizeof cb);
    (*A.ti)->SetEventNotificationMode(A.ti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
    (*A.ti)->SetEventNotificationMode(A.ti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
    (*A.ti)->SetEventNotificationMode(A.ti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_END, NULL);
    if (A.can_rules) {
        (*A.ti)->SetEventNotificationMode(A.ti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_PREPARE, NULL);
    }
    if (live) {
        JNIEnv *env = cur_env();
        if (!env)
            return JNI_ERR;
        live_start(env);
        if (A.disabled)
            return JNI_ERR;
    }
    return JNI_OK;
}

EXPORT JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    return agent_init(vm, options, 0);
}

EXPORT JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
    if (A.vm) {
        complain("agent already loaded in this JVM");
        return JNI_ERR;
    }
    return agent_init(vm, options, 1);
}

EXPORT JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm) { A.dying = 1; }
