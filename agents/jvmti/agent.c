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
/* This file: the agent's state, loading (options, capabilities, events) and the start of the
 * live phase (classes resolved, AppWatcher installed, the thread started, the classes loaded
 * before given the hook); its parts are listed in agent_internal.h. */
#define _GNU_SOURCE
#include "agent_internal.h"

/* cond is re-initialised on the monotonic clock at load */
agent_state A = {.lock = PTHREAD_MUTEX_INITIALIZER,
                 .hook_lock = PTHREAD_MUTEX_INITIALIZER,
                 .cond = PTHREAD_COND_INITIALIZER};

__thread int in_agent; /* re-entrancy guard: our own Java calls may close streams */

void agent_say(const char *fmt, ...)
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

void agent_complain(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("leakray: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* Any agent failure after start: log once, stop watching, leave the JVM alone. */
void agent_disable(JNIEnv *env, const char *what)
{
    if (env && (*env)->ExceptionCheck(env))
        (*env)->ExceptionClear(env);
    if (A.disabled)
        return;
    A.disabled = 1;
    agent_complain("agent error: %s; watching disabled", what);
    if (A.core)
        watch_disable(A.core);
    if (env && A.watcher && A.watcher_installed)
        (*env)->SetStaticBooleanField(env, A.watcher, A.watcher_installed, JNI_FALSE);
}

uint64_t agent_clock_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Every wait of the agent's on the executor's condition: called with A.lock held, returns
 * with it held, after a wake-up (agent_notify), at the clock value at (0: no limit) or
 * earlier: the caller checks its condition again. The thread blocks on a JVMTI raw monitor,
 * not in pthread_cond_wait: to HotSpot a thread in a raw monitor wait is blocked, one in a
 * pthread wait is running native code, and the JVM's exit (its last safepoint) waits in
 * 10 ms steps, up to 300 ms, until no thread runs native code. The agent's threads idle in
 * a wait at most of a JVM's ends: woken by VMDeath they had to be scheduled and enter the
 * JVM before its check, else the exit waited 10 ms more (on a busy machine, most ends).
 * Waits on threads the JVM does not know, or after a raw monitor error, use the condition
 * (agent_notify signals both). */
static __thread int wait_on_cond; /* a raw monitor wait failed on this thread */

void agent_wait(uint64_t at)
{
    uint64_t now = at ? agent_clock_ms() : 0;
    if (at && now >= at)
        return;
    jrawMonitorID m = wait_on_cond ? NULL : A.wait_mon;
    if (m && (*A.ti)->RawMonitorEnter(A.ti, m) == JVMTI_ERROR_NONE) {
        pthread_mutex_unlock(&A.lock); /* a notifier holds it: none is lost in between */
        jvmtiError e = (*A.ti)->RawMonitorWait(A.ti, m, at ? (jlong)(at - now) : 0);
        (*A.ti)->RawMonitorExit(A.ti, m);
        pthread_mutex_lock(&A.lock);
        if (e != JVMTI_ERROR_NONE && e != JVMTI_ERROR_INTERRUPT)
            wait_on_cond = 1; /* returned at once: this thread's next waits on the condition */
        return;
    }
    if (!at) {
        pthread_cond_wait(&A.cond, &A.lock);
        return;
    }
    struct timespec ts = {(time_t)(at / 1000), (long)(at % 1000) * 1000000L};
    pthread_cond_timedwait(&A.cond, &A.lock, &ts);
}

/* Wakes every agent_wait (A.lock held). */
void agent_notify(void)
{
    pthread_cond_broadcast(&A.cond);
    jrawMonitorID m = A.wait_mon;
    if (m && (*A.ti)->RawMonitorEnter(A.ti, m) == JVMTI_ERROR_NONE) {
        (*A.ti)->RawMonitorNotifyAll(A.ti, m);
        (*A.ti)->RawMonitorExit(A.ti, m);
    }
}

JNIEnv *agent_env(void)
{
    JNIEnv *env = NULL;
    if ((*A.vm)->GetEnv(A.vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK)
        return NULL;
    return env;
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

/* leakcanary.KeyedWeakReference and its members, resolved on first use: a reference is
 * only ever asked about, marked or stamped once one exists (AppWatcher built it, so its
 * class is loaded by then) or before a dump. Most JVMs never retain anything: loading the
 * class from the jar at start cost the watcher 0.1-0.4 ms of CPU in every one. Any thread
 * may ask (the core drops its oldest object on the watching thread when full); the first
 * resolves under kwr_lock, the answer is kept. Returns 0, -1 when it cannot be resolved. */
static pthread_mutex_t kwr_lock = PTHREAD_MUTEX_INITIALIZER;
static int kwr_state; /* 0 not yet, 1 resolved, -1 failed; read with acquire */

static int resolve_kwr(JNIEnv *env)
{
    A.kwr = global_class(env, "leakcanary/KeyedWeakReference");
    if (!A.kwr)
        return -1;
    A.kwr_get = (*env)->GetMethodID(env, A.kwr, "get", "()Ljava/lang/Object;");
    A.kwr_refers_to = (*env)->GetMethodID(env, A.kwr, "refersTo", "(Ljava/lang/Object;)Z");
    if (!A.kwr_refers_to)
        (*env)->ExceptionClear(env);
    A.kwr_retained = (*env)->GetFieldID(env, A.kwr, "retainedUptimeMillis", "J");
    A.kwr_dump_ms = (*env)->GetStaticFieldID(env, A.kwr, "heapDumpUptimeMillis", "J");
    if (!A.kwr_get || !A.kwr_retained || !A.kwr_dump_ms) {
        (*env)->ExceptionClear(env);
        return -1;
    }
    return 0;
}

int agent_resolve_kwr(JNIEnv *env)
{
    int st = __atomic_load_n(&kwr_state, __ATOMIC_ACQUIRE);
    if (st == 0) {
        pthread_mutex_lock(&kwr_lock);
        st = kwr_state;
        if (st == 0) {
            int was = in_agent;
            in_agent = 1; /* the class's load is the agent's own */
            st = resolve_kwr(env) == 0 ? 1 : -1;
            in_agent = was;
            __atomic_store_n(&kwr_state, st, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&kwr_lock);
    }
    return st > 0 ? 0 : -1;
}

static int resolve(JNIEnv *env)
{
    A.watcher = global_class(env, "leakray/AppWatcher");
    A.runtime = global_class(env, "java/lang/Runtime");
    if (!A.watcher || !A.runtime)
        return -1;
    A.watcher_watch = (*env)->GetStaticMethodID(env, A.watcher, "watchNow",
                                                "(Ljava/lang/Object;Ljava/lang/String;)V");
    /* an application's own older copy of the jar (attached) may not have it */
    A.watcher_watch_at = (*env)->GetStaticMethodID(env, A.watcher, "watchAt",
                                                   "(Ljava/lang/Object;Ljava/lang/String;J)V");
    if (!A.watcher_watch_at)
        (*env)->ExceptionClear(env);
    A.watcher_finalize = (*env)->GetStaticMethodID(env, A.watcher, "runFinalization", "(J)V");
    if (!A.watcher_finalize)
        (*env)->ExceptionClear(env);
    A.watcher_forget = (*env)->GetStaticMethodID(env, A.watcher, "forget",
                                                 "(Lleakcanary/KeyedWeakReference;)V");
    if (!A.watcher_forget)
        (*env)->ExceptionClear(env);
    A.watcher_installed = (*env)->GetStaticFieldID(env, A.watcher, "installed", "Z");
    A.watcher_seal = (*env)->GetStaticMethodID(env, A.watcher, "seal", "(J)V");
    A.watcher_retained = (*env)->GetStaticMethodID(env, A.watcher, "retainedByRule",
                                                   "(Ljava/lang/Object;IJJ)"
                                                   "Lleakcanary/KeyedWeakReference;");
    A.runtime_get = (*env)->GetStaticMethodID(env, A.runtime, "getRuntime",
                                              "()Ljava/lang/Runtime;");
    A.runtime_finalize = (*env)->GetMethodID(env, A.runtime, "runFinalization", "()V");
    if (!A.watcher_watch || !A.watcher_installed || !A.watcher_seal || !A.watcher_retained ||
        !A.runtime_get || !A.runtime_finalize)
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
        if (mod) {
            A.hook_module = (*env)->NewGlobalRef(env, mod);
            /* Module.name, read as a field (no Java runs): null for an unnamed module */
            jclass mk = (*env)->GetObjectClass(env, mod);
            A.module_name = mk ? (*env)->GetFieldID(env, mk, "name", "Ljava/lang/String;")
                               : NULL;
            if ((*env)->ExceptionCheck(env))
                (*env)->ExceptionClear(env);
        }
    }
    JNINativeMethod nm[2] = {
        {"watch0", "(Lleakcanary/KeyedWeakReference;J)V", (void *)watcher_watch0},
        {"flush0", "([Ljava/lang/Object;[IIJ)V", (void *)watcher_flush0}};
    if ((*env)->RegisterNatives(env, A.watcher, nm, 2) != 0)
        return -1;
    return 0;
}

/* Resolution (under A.lock): 0 not begun, 1 under way, 2 done, -1 failed. */
static int resolved;

/* AppWatcher and the classes and members the agent calls (resolve), AppWatcher.installed set,
 * and the stamps set up (stamp_start: their epoch and arrays are AppWatcher's). Started with
 * the JVM with rules on (the default), the start-up thread does it as it starts, beside the
 * launcher's work on the thread that goes on to run main: loading AppWatcher from the jar
 * and running its initialiser was most of the agent's VMInit (0.33 of 0.43 ms of that
 * thread's CPU). Nothing needs it before the window closes (the application's first class:
 * no application code has run, and none has called AppWatcher): whoever needs it first does
 * it, if it has not begun, or waits for it. Returns 0, or -1 when it failed (the agent is
 * then disabled). */
int agent_resolve_live(JNIEnv *env)
{
    pthread_mutex_lock(&A.lock);
    while (resolved == 1 && !A.dying)
        agent_wait(0);
    if (resolved != 0 || A.disabled || A.dying) {
        int st = resolved;
        pthread_mutex_unlock(&A.lock);
        return st == 2 ? 0 : -1;
    }
    resolved = 1;
    pthread_mutex_unlock(&A.lock);
    int was = in_agent;
    in_agent = 1; /* the classes it loads are the agent's own */
    int ok = resolve(env) == 0;
    if (ok) {
        (*env)->SetStaticBooleanField(env, A.watcher, A.watcher_installed, JNI_TRUE);
        if (A.can_rules && A.opts.n_watch > 0)
            stamp_start(env); /* else the call hook alone (an older jar) */
    }
    in_agent = was;
    pthread_mutex_lock(&A.lock);
    resolved = ok ? 2 : -1;
    if (!ok)
        A.status[0] = 0;
    agent_notify();
    pthread_mutex_unlock(&A.lock);
    if (!ok)
        agent_disable(env, "cannot set up the watcher (is " AGENT_JAR
                           " beside the agent library?)");
    return ok ? 0 : -1;
}

/* Starts an agent thread (a daemon Java thread running fn) named name; its Thread object
 * in *keep as a global reference when keep is not NULL. Returns 0, -1 on error. */
static int agent_run_thread(JNIEnv *env, const char *name, jvmtiStartFunction fn,
                            jthread *keep)
{
    jclass tc = (*env)->FindClass(env, "java/lang/Thread");
    if (!tc)
        return -1;
    jmethodID ctor = (*env)->GetMethodID(env, tc, "<init>", "(Ljava/lang/String;)V");
    jstring js = (*env)->NewStringUTF(env, name);
    if (!ctor || !js)
        return -1;
    jthread t = (*env)->NewObject(env, tc, ctor, js);
    if (!t)
        return -1;
    if (keep)
        *keep = (*env)->NewGlobalRef(env, t);
    jvmtiError e = (*A.ti)->RunAgentThread(A.ti, t, fn, NULL, JVMTI_THREAD_NORM_PRIORITY);
    (*env)->DeleteLocalRef(env, t);
    (*env)->DeleteLocalRef(env, js);
    (*env)->DeleteLocalRef(env, tc);
    return e == JVMTI_ERROR_NONE ? 0 : -1;
}

static int start_thread(JNIEnv *env)
{
    return agent_run_thread(env, "leakray watcher", watcher_main, &A.agent_thread);
}

/* Started with the JVM, the watcher is started AGENT_SEAL_MS after VMInit, by the start-up
 * thread, and ticks at once: its first tick falls when it did when the watcher was started
 * with the start-up thread (and waited a tick), and a JVM that ends sooner never pays for a
 * second thread (its Thread object built by Java code, the thread's own start: 0.2-0.4 ms of
 * CPU at the JVM's busiest moment). The start-up thread waits for it at its own priority
 * (a new thread inherits it): before it lowers it, and in its other waits until then. */
static int watcher_started; /* under A.lock */

/* When the watcher is due (a clock value), or 0 once it was started or when it is not late
 * (attached). */
uint64_t agent_watcher_due(void)
{
    pthread_mutex_lock(&A.lock);
    uint64_t at = watcher_started || A.attached ? 0 : A.live_at + AGENT_SEAL_MS;
    pthread_mutex_unlock(&A.lock);
    return at;
}

/* The start-up thread: waits until the watcher is due and starts it (once; not when the JVM
 * is dying). Returns 0, -1 when it could not be started (the agent is disabled). */
int agent_start_watcher(JNIEnv *env)
{
    uint64_t at = agent_watcher_due();
    pthread_mutex_lock(&A.lock);
    while (at && !A.dying && agent_clock_ms() < at)
        agent_wait(at);
    int go = at && !A.dying && !watcher_started;
    watcher_started = 1;
    pthread_mutex_unlock(&A.lock);
    if (!go)
        return 0;
    if (start_thread(env) != 0) {
        pthread_mutex_lock(&A.lock);
        A.status[0] = 0;
        pthread_mutex_unlock(&A.lock);
        agent_disable(env, "cannot start the watcher thread");
        return -1;
    }
    return 0;
}

/* Started with the JVM, the agent's threads are not started by the thread that is about to
 * run main: creating a Java thread there (its Thread object built by interpreted code, then
 * a wait until the new thread has started) took 0.5 to 2.6 ms of main's start. A native
 * thread does it instead: it attaches to the JVM as a daemon (the `leakray start-up`
 * thread), starts the watcher (a JVMTI agent thread, as before) and then, at a lower
 * priority, makes the start-up retransformation (watcher_startup), detaches and ends. */
static void *startup_native(void *arg)
{
    in_agent = 1; /* also keeps this thread's end out of the ThreadEnd watch */
    char comm[16] = {0}; /* Linux thread names: 15 bytes, cut as the JVM cuts its own */
    memcpy(comm, AGENT_STARTUP_NAME, sizeof comm - 1);
    pthread_setname_np(pthread_self(), comm);
    JavaVMAttachArgs aa = {JNI_VERSION_1_6, AGENT_STARTUP_NAME, NULL};
    JNIEnv *env = NULL;
    if (A.dying || (*A.vm)->AttachCurrentThreadAsDaemon(A.vm, (void **)&env, &aa) != JNI_OK)
        return NULL;
    if (agent_resolve_live(env) != 0) {
        (*A.vm)->DetachCurrentThread(A.vm);
        return NULL;
    }
    watcher_startup(env); /* starts the watcher when due, then goes to a lower priority */
    agent_start_watcher(env); /* no batch to make: it is due still */
    if ((*env)->ExceptionCheck(env))
        (*env)->ExceptionClear(env);
    (*A.vm)->DetachCurrentThread(A.vm);
    return NULL;
}

/* Started with the JVM: the native start-up thread (startup_native); attached: the watcher
 * at once, which makes the (empty) start-up work itself, so that `leakray attach` finds the
 * agent set up when it returns. Returns 0, -1 on error. */
static int start_threads(JNIEnv *env)
{
    if (A.attached)
        return start_thread(env);
    pthread_attr_t pa;
    pthread_t t;
    if (pthread_attr_init(&pa) != 0)
        return -1;
    pthread_attr_setdetachstate(&pa, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &pa, startup_native, NULL);
    pthread_attr_destroy(&pa);
    return rc == 0 ? 0 : -1;
}

static void live_start(JNIEnv *env)
{
    in_agent = 1;
    uint64_t t0 = agent_clock_ms();
    A.live_at = t0;
    watch_env we = {NULL,           watcher_now,     watcher_wake,     watcher_alive,
                    watcher_retained, watcher_release, watcher_gc,       watcher_finalize,
                    watcher_dump,   watcher_identity, watcher_same};
    A.core = watch_new(&A.cfg, &we);
    /* named before the agent thread starts, which writes it first thing */
    snprintf(A.status, sizeof A.status, AGENT_STATUS_FMT, (long)getpid());
    /* Started with the JVM with rules on and stamps possible (the default), AppWatcher is
     * resolved by the start-up thread (agent_resolve_live), and the window opens now: stamps
     * and load-time hooks are turned on when the application loads its first class
     * (hooks_window_close, which has AppWatcher resolved first). Until then a class
     * prepared is checked against the rules' classes (the window), and the classes loaded
     * before are listed (hooks_list_loaded): at once when attached, else by the start-up
     * thread (hooks_early_retransform), off the path to main. */
    int defer = !A.attached && A.can_rules && A.opts.n_watch > 0 && A.can_tag && !A.hook_loader;
    int ok = A.core && (defer || agent_resolve_live(env) == 0);
    if (ok && defer)
        hooks_window_open();
    if (!ok || start_threads(env) != 0) {
        pthread_mutex_lock(&A.lock);
        A.status[0] = 0;
        pthread_mutex_unlock(&A.lock);
        agent_disable(env, "cannot set up the watcher (is " AGENT_JAR
                           " beside the agent library?)");
        in_agent = 0;
        return;
    }
    A.live = 1;
    if (A.can_rules && A.opts.n_watch > 0) {
        if (A.attached) {
            pending **pds = NULL;
            int np = hooks_list_loaded(env, &pds);
            hooks_retransform(env, pds, np); /* frees each pending; refs die with this frame */
            free(pds);
        } else {
            A.list_loaded = 1;
        }
    }
    pthread_mutex_lock(&A.lock);
    A.early_ready = 1;
    agent_notify();
    pthread_mutex_unlock(&A.lock);
    /* loaded with the JVM, the classes are hooked as they load (or by the start-up thread,
     * later): a count now would say 0 */
    char hooked[48];
    if (A.list_loaded)
        snprintf(hooked, sizeof hooked, "methods hooked as their classes load");
    else
        snprintf(hooked, sizeof hooked, "%u methods hooked", A.n_rewritten);
    agent_say("watching (threshold %u, delay %llu ms, %d watch rules%s, %s, set up in %llu ms), "
              "reports in %s",
              A.cfg.threshold, (unsigned long long)A.cfg.delay_ms, A.can_rules ? A.opts.n_watch : 0,
              A.opts.n_watch > 0 && !A.can_rules ? " unavailable" : "", hooked,
              (unsigned long long)(agent_clock_ms() - t0), A.dir);
    /* attached, the status file exists once the agent is set up: `leakray attach` returns
     * after this, and `leakray watch status PID` right after it must find the agent. At
     * start the agent's thread writes it first thing (a file creation less on the path to
     * main) */
    if (A.attached)
        watcher_write_status();
    in_agent = 0;
}

static void JNICALL on_vm_init(jvmtiEnv *ti, JNIEnv *env, jthread th) { live_start(env); }

static void JNICALL on_vm_death(jvmtiEnv *ti, JNIEnv *env)
{
    /* the agent's threads waiting on the raw monitor are left blocked: woken, they would run
     * native code while the JVM's exit waits for none to (agent_wait); the JVM ends with
     * them. Waits on the condition (no raw monitor) still end. */
    pthread_mutex_lock(&A.lock);
    A.dying = 1;
    pthread_cond_broadcast(&A.cond);
    if (A.status[0])
        unlink(A.status);
    pthread_mutex_unlock(&A.lock);
}

/* ---- loading ---- */

/* mkdir -p: dump-dir=/var/tmp/app/leaks on a fresh machine. 0, or -1 with errno. */
int agent_make_dirs(const char *d)
{
    char p[PATH_MAX];
    if (snprintf(p, sizeof p, "%s", d) >= (int)sizeof p) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *q = p + 1;; q++) {
        if (*q != '/' && *q)
            continue;
        char c = *q;
        *q = 0;
        if (mkdir(p, 0777) != 0 && errno != EEXIST)
            return -1;
        *q = c;
        if (!c)
            break;
    }
    struct stat st;
    if (stat(d, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

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
    /* the executor waits for agent_clock_ms() deadlines: its condition must run on the same
     * (monotonic) clock, else every timed wait ends at once and the thread spins */
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) == 0) {
        if (pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0)
            pthread_cond_init(&A.cond, &ca);
        pthread_condattr_destroy(&ca);
    }
    if (watch_opts_parse(options, &A.opts, err, sizeof err) != 0) {
        agent_complain("%s", err);
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
            agent_complain("%s", err);
            return JNI_ERR;
        }
        for (int i = 0; i < rules.n_watch && A.opts.n_watch < WATCH_OPTS_MAX_RULES; i++)
            A.opts.watch[A.opts.n_watch++] = rules.watch[i];
        for (int i = 0; i < rules.n_unwatch && A.opts.n_unwatch < WATCH_OPTS_MAX_UNWATCH; i++)
            memcpy(A.opts.unwatch[A.opts.n_unwatch++], rules.unwatch[i],
                   sizeof rules.unwatch[i]);
    }
    watch_config_default(&A.cfg);
    A.cfg.delay_ms = A.opts.delay_ms;
    A.cfg.threshold = A.opts.threshold;
    A.cfg.max_watched = A.opts.max_watched;
    /* the dump directory, absolute (a relative dumpHeap path resolves against the JVM's cwd,
     * which can change meaning for the separate analysis process) */
    const char *d = A.opts.dump_dir[0] ? A.opts.dump_dir : ".";
    if (agent_make_dirs(d) != 0) {
        agent_complain("dump-dir=%s: %s", d, strerror(errno));
        return JNI_ERR;
    }
    if (access(d, W_OK | X_OK) != 0) { /* else every dump fails, 5 s apart, forever */
        agent_complain("dump-dir=%s: not writable (%s)", d, strerror(errno));
        return JNI_ERR;
    }
    if (!realpath(d, A.dir)) {
        agent_complain("dump-dir=%s: %s", d, strerror(errno));
        return JNI_ERR;
    }
    /* a leakray= that cannot run is an option error, as a bad dump-dir: else the first
     * dump says "analysing in a separate process", then "cannot start", and has no report */
    if (A.opts.leakray[0] && strchr(A.opts.leakray, '/') && access(A.opts.leakray, X_OK) != 0) {
        agent_complain("leakray=%s: %s", A.opts.leakray, strerror(errno));
        return JNI_ERR;
    }
    if (A.opts.leakray[0])
        snprintf(A.leakray, sizeof A.leakray, "%s", A.opts.leakray);
    else if (find_beside("leakray", A.leakray, sizeof A.leakray) != 0)
        snprintf(A.leakray, sizeof A.leakray, "leakray"); /* from PATH */
    char jar[PATH_MAX + 64];
    if (find_beside(AGENT_JAR, jar, sizeof jar) != 0) {
        agent_complain("%s not found beside %s/libleakray_agent.so; agent not started", AGENT_JAR,
                       A.self_dir);
        return live ? JNI_ERR : JNI_OK; /* never stop a JVM for a broken install */
    }
    if ((*vm)->GetEnv(vm, (void **)&A.ti, JVMTI_VERSION_1_2) != JNI_OK) {
        agent_complain("JVMTI 1.2 not available; agent not started");
        return live ? JNI_ERR : JNI_OK;
    }
    if ((*A.ti)->CreateRawMonitor(A.ti, "leakray wait", &A.wait_mon) != JVMTI_ERROR_NONE)
        A.wait_mon = NULL; /* the waits use the condition */
    jvmtiCapabilities want;
    memset(&want, 0, sizeof want);
    want.can_retransform_classes = 1;
    /* the constant pool of a class whose bytes the load hook did not see (hooks_early_*) */
    want.can_get_constant_pool = 1;
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
        agent_say("watch rules are off (class retransformation unavailable)");
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
        agent_complain("cannot add %s to the class path; agent not started", jar);
        return live ? JNI_ERR : JNI_OK;
    }
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.VMInit = on_vm_init;
    cb.VMDeath = on_vm_death;
    cb.ClassPrepare = hooks_class_prepare;
    cb.ClassLoad = hooks_class_load;
    cb.ClassFileLoadHook = hooks_class_file_load;
    cb.ThreadEnd = watcher_thread_end;
    (*A.ti)->SetEventCallbacks(A.ti, &cb, sizeof cb);
    (*A.ti)->SetEventNotificationMode(A.ti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
    (*A.ti)->SetEventNotificationMode(A.ti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
    (*A.ti)->SetEventNotificationMode(A.ti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_END, NULL);
    if (A.can_rules) {
        (*A.ti)->SetEventNotificationMode(A.ti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_PREPARE, NULL);
    }
    if (live) {
        JNIEnv *env = agent_env();
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
        agent_complain("agent already loaded in this JVM");
        return JNI_ERR;
    }
    return agent_init(vm, options, 1);
}

EXPORT JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm) { A.dying = 1; }
