/* SPDX-License-Identifier: Apache-2.0 */
/* agent_thread.c: the JVM agent's watcher (agents layer), prefix watcher_: the callbacks
 * that fill the watcher core's environment (src/watch/watch.h) with JNI (alive, retained,
 * release, GC, finalization, the dump), the dump itself (HotSpotDiagnosticMXBean.dumpHeap to
 * a temporary name) and the separate `leakray watch analyze` process, the status file, the
 * agent's own thread (the core's executor, a tick every AGENT_SEAL_MS) and the start-up
 * work (made by the short-lived start-up thread agent.c starts), AppWatcher's native methods
 * (explicit watching) and finished threads (ThreadEnd). JNI runs only on the agent's
 * threads, in ThreadEnd and in AppWatcher's native calls. State in agent_internal.h. */
#define _GNU_SOURCE
#include "agent_internal.h"

#include <dirent.h>

extern char **environ;

/* ---- the core's callbacks ---- */

uint64_t watcher_now(void *ctx) { return agent_clock_ms(); }

void watcher_wake(void *ctx, uint64_t at)
{
    pthread_mutex_lock(&A.lock);
    if (!A.wake_at || at < A.wake_at) {
        A.wake_at = at;
        agent_notify();
    }
    pthread_mutex_unlock(&A.lock);
}

static int is_weak(uint32_t tag) { return (tag & AGENT_TAG_WEAK) != 0; }

/* Two kinds of handle: a JNI weak reference to an object watched by a rule (cheap: no Java
 * object until it is retained, and cleared by any GC that finds its referent dead), or a
 * global reference to a KeyedWeakReference made by the explicit API. For the latter,
 * refersTo(null) (JDK 16+) does not make the referent strongly reachable even briefly;
 * older JDKs fall back to get(). */
int watcher_alive(void *ctx, void *obj, uint32_t tag)
{
    JNIEnv *env = agent_env();
    if (!env)
        return 1;
    if (is_weak(tag))
        return !(*env)->IsSameObject(env, (jobject)obj, NULL);
    if (agent_resolve_kwr(env) != 0)
        return 1;
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
void *watcher_retained(void *ctx, void *obj, uint32_t *tag, uint64_t watch_ms, uint64_t at)
{
    JNIEnv *env = agent_env();
    if (!env)
        return obj;
    if (!is_weak(*tag)) {
        if (agent_resolve_kwr(env) == 0)
            (*env)->SetLongField(env, (jobject)obj, A.kwr_retained, (jlong)at);
        return obj;
    }
    jobject self = (*env)->NewLocalRef(env, (jobject)obj);
    (*env)->DeleteWeakGlobalRef(env, (jobject)obj);
    if (!self)
        return NULL;
    /* an `unwatch` class that inherits its watched method from a class the agent hooked
     * (Jetty's HttpOutput closed through OutputStream.close): its own class has no hook to
     * leave inert, so it is let go here, once retained, not on the closing thread's way */
    jclass k = A.opts.n_unwatch ? (*env)->GetObjectClass(env, self) : NULL;
    int unwatched = k && hooks_unwatched(env, k);
    if (k)
        (*env)->DeleteLocalRef(env, k);
    if (unwatched) {
        (*env)->DeleteLocalRef(env, self);
        return NULL;
    }
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

void watcher_release(void *ctx, void *obj, uint32_t tag)
{
    JNIEnv *env = agent_env();
    if (!env)
        return;
    if (is_weak(tag)) {
        (*env)->DeleteWeakGlobalRef(env, (jobject)obj);
        return;
    }
    /* a KeyedWeakReference: AppWatcher counts its referent retained until now */
    if (A.watcher_forget) {
        (*env)->CallStaticVoidMethod(env, A.watcher, A.watcher_forget, (jobject)obj);
        if ((*env)->ExceptionCheck(env))
            (*env)->ExceptionClear(env);
    }
    (*env)->DeleteGlobalRef(env, (jobject)obj);
}

/* The referent of a watch handle as a local reference (NULL when gone): a weak handle's
 * object, or a KeyedWeakReference's referent. */
static jobject referent(JNIEnv *env, void *obj, uint32_t tag)
{
    if (is_weak(tag))
        return (*env)->NewLocalRef(env, (jobject)obj);
    if (agent_resolve_kwr(env) != 0)
        return NULL;
    jobject r = (*env)->CallObjectMethod(env, (jobject)obj, A.kwr_get);
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        return NULL;
    }
    return r;
}

/* The JVM's identity hash of the referent (JVMTI's, the same as System.identityHashCode),
 * offset so that a gone referent reads 0. */
uint64_t watcher_identity(void *ctx, void *obj, uint32_t tag)
{
    JNIEnv *env = agent_env();
    jobject r = env ? referent(env, obj, tag) : NULL;
    jint h = 0;
    if (!r)
        return 0;
    jvmtiError e = (*A.ti)->GetObjectHashCode(A.ti, r, &h);
    (*env)->DeleteLocalRef(env, r);
    return e == JVMTI_ERROR_NONE ? (uint64_t)(uint32_t)h + 1 : 0;
}

int watcher_same(void *ctx, void *a, uint32_t ta, void *b, uint32_t tb)
{
    JNIEnv *env = agent_env();
    if (!env)
        return 0;
    jobject x = referent(env, a, ta), y = x ? referent(env, b, tb) : NULL;
    int same = x && y && (*env)->IsSameObject(env, x, y);
    if (x)
        (*env)->DeleteLocalRef(env, x);
    if (y)
        (*env)->DeleteLocalRef(env, y);
    return same;
}

void watcher_gc(void *ctx) { (*A.ti)->ForceGarbageCollection(A.ti); }

void watcher_finalize(void *ctx)
{
    JNIEnv *env = agent_env();
    if (!env)
        return;
    if (A.watcher_finalize) {
        /* bounded: a finalizer queue that never empties kept the check (and every dump)
         * waiting for good */
        (*env)->CallStaticVoidMethod(env, A.watcher, A.watcher_finalize,
                                     (jlong)FINALIZATION_WAIT_MS);
    } else {
        jobject rt = (*env)->CallStaticObjectMethod(env, A.runtime, A.runtime_get);
        if (rt) {
            A.finalizing = 1; /* the thread it starts is not the application's */
            (*env)->CallVoidMethod(env, rt, A.runtime_finalize);
            A.finalizing = 0;
            (*env)->DeleteLocalRef(env, rt);
        }
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
/* Clears the pending exception and writes what it says (its toString: "java.io.IOException:
 * No space left on device") into buf. */
static void exception_text(JNIEnv *env, char *buf, size_t n)
{
    snprintf(buf, n, "an exception");
    jthrowable t = (*env)->ExceptionOccurred(env);
    (*env)->ExceptionClear(env);
    if (!t)
        return;
    jclass tc = (*env)->FindClass(env, "java/lang/Throwable");
    jmethodID ts = tc ? (*env)->GetMethodID(env, tc, "toString", "()Ljava/lang/String;") : NULL;
    jstring s = ts ? (jstring)(*env)->CallObjectMethod(env, t, ts) : NULL;
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        s = NULL;
    }
    const char *c = s ? (*env)->GetStringUTFChars(env, s, NULL) : NULL;
    if (c) {
        snprintf(buf, n, "%s", c);
        (*env)->ReleaseStringUTFChars(env, s, c);
    } else {
        (*env)->ExceptionClear(env);
    }
    if (s)
        (*env)->DeleteLocalRef(env, s);
    if (tc)
        (*env)->DeleteLocalRef(env, tc);
    (*env)->DeleteLocalRef(env, t);
}

/* The analysis must inherit none of the JVM's files but its standard ones: a service's
 * listening socket, held open by an analysis that outlived its JVM, made the restarted
 * service fail with "Address already in use" (and clients hang) for as long as it ran.
 * glibc 2.34 and later close them in the child (posix_spawn_file_actions_addclosefrom_np,
 * looked up so that the agent still loads on an older glibc); before it, every descriptor
 * from 3 up is marked close-on-exec in the JVM (those the JVM passes to its own children it
 * gives them by dup2, which clears the mark). */
static void spawn_close_files(posix_spawn_file_actions_t *fa)
{
    typedef int (*closefrom_fn)(posix_spawn_file_actions_t *, int);
    closefrom_fn closefrom =
        (closefrom_fn)dlsym(RTLD_DEFAULT, "posix_spawn_file_actions_addclosefrom_np");
    if (closefrom && closefrom(fa, 3) == 0)
        return;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return;
    int self = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long fd = strtol(e->d_name, &end, 10);
        if (*end || end == e->d_name || fd < 3 || fd == self || fd > INT_MAX)
            continue;
        int fl = fcntl((int)fd, F_GETFD);
        if (fl >= 0 && !(fl & FD_CLOEXEC))
            fcntl((int)fd, F_SETFD, fl | FD_CLOEXEC);
    }
    closedir(d);
}

static void spawn_analysis(const char *dump, double pause_ms, unsigned retained)
{
    char max[32], pause[32], ret[32];
    snprintf(max, sizeof max, "%u", A.opts.max_dumps);
    snprintf(pause, sizeof pause, "%.0f", pause_ms);
    snprintf(ret, sizeof ret, "%u", retained);
    char *argv[24];
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
        const char *meta[3][2] = {{"--app", A.opts.app},
                                  {"--version", A.opts.version},
                                  {"--device", A.opts.device}};
        for (int k = 0; k < 3; k++)
            if (meta[k][1][0]) {
                argv[n++] = (char *)meta[k][0];
                argv[n++] = (char *)meta[k][1];
            }
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
    spawn_close_files(&fa);
    pid_t pid;
    int rc = posix_spawnp(&pid, A.leakray, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rc != 0) {
        agent_complain("cannot start %s to analyse %s: %s", A.leakray, dump, strerror(rc));
        A.analysis_rc = 127; /* as a shell says it: the status reads "failed", not "done" */
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

#define AGENT_DUMPER_ROOM (8u << 20) /* bytes of free heap the management classes need */

/* Bytes the Java heap can still give: free now, plus what it may grow by (Runtime's view);
 * UINT64_MAX when it cannot be asked. */
static uint64_t heap_room(JNIEnv *env)
{
    jclass rt = (*env)->FindClass(env, "java/lang/Runtime");
    jmethodID get = rt ? (*env)->GetStaticMethodID(env, rt, "getRuntime", "()Ljava/lang/Runtime;")
                       : NULL;
    jmethodID fr = rt ? (*env)->GetMethodID(env, rt, "freeMemory", "()J") : NULL;
    jmethodID to = rt ? (*env)->GetMethodID(env, rt, "totalMemory", "()J") : NULL;
    jmethodID mx = rt ? (*env)->GetMethodID(env, rt, "maxMemory", "()J") : NULL;
    jobject r = get && fr && to && mx ? (*env)->CallStaticObjectMethod(env, rt, get) : NULL;
    uint64_t room = UINT64_MAX;
    if (r && !(*env)->ExceptionCheck(env)) {
        jlong f = (*env)->CallLongMethod(env, r, fr), t = (*env)->CallLongMethod(env, r, to),
              m = (*env)->CallLongMethod(env, r, mx);
        if (!(*env)->ExceptionCheck(env) && f >= 0 && t >= 0 && m >= t)
            room = (uint64_t)f + (uint64_t)(m - t);
    }
    (*env)->ExceptionClear(env);
    if (r)
        (*env)->DeleteLocalRef(env, r);
    if (rt)
        (*env)->DeleteLocalRef(env, rt);
    return room;
}

/* Whether the pending exception (cleared here) is an OutOfMemoryError: the heap was full
 * for a moment, which says nothing of what this JVM can do once it has room again. */
static int pending_oom(JNIEnv *env)
{
    jthrowable t = (*env)->ExceptionOccurred(env);
    (*env)->ExceptionClear(env);
    if (!t)
        return 0;
    jclass oome = (*env)->FindClass(env, "java/lang/OutOfMemoryError");
    int oom = !oome || (*env)->IsInstanceOf(env, t, oome); /* preloaded: none means no room */
    (*env)->ExceptionClear(env);
    if (oome)
        (*env)->DeleteLocalRef(env, oome);
    (*env)->DeleteLocalRef(env, t);
    return oom;
}

/* HotSpotDiagnosticMXBean through ManagementFactory.getPlatformMXBean(Class), resolved at the
 * first dump: starting the management classes costs tens of milliseconds nobody should pay
 * at JVM start. Returns 0, -1 (no dump possible on this JVM) or -2 (the heap was full: the
 * dump fails now and is tried again). */
static int resolve_dumper(JNIEnv *env)
{
    if (A.diag_bean)
        return 0;
    /* A class whose initialiser fails (out of memory) stays failed for the JVM's life: the
     * management classes are not started on a heap with less than this free */
    if (heap_room(env) < AGENT_DUMPER_ROOM)
        return -2;
    jclass mf = (*env)->FindClass(env, "java/lang/management/ManagementFactory");
    jclass bc = mf ? (*env)->FindClass(env, "com/sun/management/HotSpotDiagnosticMXBean") : NULL;
    if (!mf || !bc)
        return pending_oom(env) ? -2 : -1;
    jmethodID gp = (*env)->GetStaticMethodID(env, mf, "getPlatformMXBean",
                                             "(Ljava/lang/Class;)Ljava/lang/management/"
                                             "PlatformManagedObject;");
    A.dump_heap = (*env)->GetMethodID(env, bc, "dumpHeap", "(Ljava/lang/String;Z)V");
    jobject bean = gp && A.dump_heap ? (*env)->CallStaticObjectMethod(env, mf, gp, bc) : NULL;
    if (!bean || (*env)->ExceptionCheck(env))
        return pending_oom(env) ? -2 : -1;
    A.diag_bean = (*env)->NewGlobalRef(env, bean);
    (*env)->DeleteLocalRef(env, bean);
    (*env)->DeleteLocalRef(env, mf);
    (*env)->DeleteLocalRef(env, bc);
    return A.diag_bean ? 0 : -1;
}

/* ---- the dump ---- */

/* When the core tries again after the dump failing now: its back-off, read before the
 * failure is counted (only the watcher thread dumps, so the buffer is its own). */
static const char *retry_text(void)
{
    static char buf[32];
    watch_stats st;
    watch_stats_get(A.core, &st);
    uint64_t s = watch_retry_ms(st.fail_streak) / 1000;
    if (s < 60)
        snprintf(buf, sizeof buf, "%u s", (unsigned)s);
    else if (s % 60)
        snprintf(buf, sizeof buf, "%u min %u s", (unsigned)(s / 60), (unsigned)(s % 60));
    else
        snprintf(buf, sizeof buf, "%u min", (unsigned)(s / 60));
    return buf;
}

uint64_t watcher_dump(void *ctx, unsigned n_retained, uint64_t started_ms)
{
    JNIEnv *env = agent_env();
    if (!env)
        return 0;
    int rd = resolve_dumper(env);
    if (rd == -2) {
        agent_complain("the heap is full: no heap dump now; retrying in %s", retry_text());
        snprintf(A.dump_why, sizeof A.dump_why, "put off: the heap is full");
        return 0;
    }
    if (rd != 0) {
        agent_disable(env, "HotSpotDiagnosticMXBean unavailable: this JVM cannot dump its heap");
        return 0;
    }
    if (agent_resolve_kwr(env) != 0) {
        agent_disable(env, "cannot resolve leakcanary.KeyedWeakReference (is " AGENT_JAR
                           " beside the agent library?)");
        return 0;
    }
    (*env)->SetStaticLongField(env, A.kwr, A.kwr_dump_ms, (jlong)started_ms);
    char stamp[32], name[64], tmp[PATH_MAX + 80], fin[PATH_MAX + 80];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(name, sizeof name, WATCH_DUMP_PREFIX "%s-%ld-%u", stamp, (long)getpid(), ++A.seq);
    snprintf(tmp, sizeof tmp, "%s/.%s.part.hprof", A.dir, name);
    snprintf(fin, sizeof fin, "%s/%s.hprof", A.dir, name);
    /* made at start; a cleaner of /tmp or a redeploy script may have removed it since (a
     * failure here shows as the dump's own error) */
    agent_make_dirs(A.dir);
    agent_say("%u retained objects, dumping the heap to %s", n_retained, fin);
    jstring jpath = (*env)->NewStringUTF(env, tmp);
    if (!jpath) {
        (*env)->ExceptionClear(env);
        return 0;
    }
    uint64_t t0 = agent_clock_ms();
    (*env)->CallVoidMethod(env, A.diag_bean, A.dump_heap, jpath, JNI_TRUE);
    double pause = (double)(agent_clock_ms() - t0);
    (*env)->DeleteLocalRef(env, jpath);
    if ((*env)->ExceptionCheck(env)) {
        char why[300];
        exception_text(env, why, sizeof why);
        agent_complain("heap dump to %s failed (%s); retrying in %s", tmp, why, retry_text());
        snprintf(A.dump_why, sizeof A.dump_why, "failed: %.140s", why);
        unlink(tmp);
        return 0;
    }
    struct stat sb;
    if (stat(tmp, &sb) != 0 || sb.st_size == 0) {
        agent_complain("heap dump %s is empty; retrying in %s", tmp, retry_text());
        snprintf(A.dump_why, sizeof A.dump_why, "failed: the dump was empty");
        unlink(tmp);
        return 0;
    }
    if (rename(tmp, fin) != 0) {
        int e = errno;
        agent_complain("renaming %s: %s; retrying in %s", tmp, strerror(e), retry_text());
        snprintf(A.dump_why, sizeof A.dump_why, "failed: renaming it: %s", strerror(e));
        unlink(tmp);
        return 0;
    }
    A.dump_why[0] = 0;
    snprintf(A.last_dump, sizeof A.last_dump, "%s", fin);
    /* the analysis prunes the folder too, but one that fails (killed, crashed, not there)
     * would leave every dump behind it */
    watch_prune_dumps(A.dir, A.opts.max_dumps, fin);
    A.last_pause_ms = pause;
    agent_say("heap dump %s: %.1f MB, pause %.0f ms; analysing in a separate process", fin,
              (double)sb.st_size / 1e6, pause); /* SI, as the CLI prints sizes */
    spawn_analysis(fin, pause, n_retained);
    return (uint64_t)sb.st_size;
}

/* Watched objects released unchecked while alive (max-watched reached: a program watching
 * faster than the cap over the delay, objects the GC has not met) may be leaks no report
 * will show: said on stderr, whatever `quiet` says, at most once a minute. */
static void warn_dropped(void)
{
    watch_stats st;
    watch_stats_get(A.core, &st);
    uint64_t now = agent_clock_ms();
    if (st.dropped <= A.dropped_said || (A.dropped_said_at && now - A.dropped_said_at < 60000))
        return;
    agent_complain("max-watched=%u reached: %llu watched objects still alive were let go "
                   "before their check, and a leak among them goes unreported (raise "
                   "max-watched)", A.cfg.max_watched, (unsigned long long)st.dropped);
    A.dropped_said = st.dropped;
    A.dropped_said_at = now ? now : 1;
}

/* ---- the status file (`leakray watch status PID`) ---- */

void watcher_write_status(void)
{
    if (!A.core || !A.status[0])
        return;
    watch_stats st;
    watch_stats_get(A.core, &st);
    uint64_t now = agent_clock_ms();
    A.status_at = now;
    /* text is this call's own (the agent thread and live_start both write); last is shared
     * and read and written under the lock only */
    char next[160], tmp[160];
    char text[2 * PATH_MAX + 1024];
    static char last[sizeof text];
    watch_next_action(&st, &A.cfg, now, next, sizeof next);
    /* objects stamped by a watch rule wait for the next scan of stamps, throttled to a share
     * of the time (a large heap's scan puts the next tens of seconds away): said, or the
     * status read "nothing watched" while hundreds of closed objects waited */
    if (st.state == WATCH_IDLE && S.dirty && S.next_scan > now)
        snprintf(next, sizeof next, "objects a watch rule marked wait for the next scan of "
                 "the heap, in %llu ms", (unsigned long long)(S.next_scan - now));
    else if (st.state == WATCH_IDLE && S.dirty)
        snprintf(next, sizeof next, "objects a watch rule marked wait for the scan of the "
                 "heap that follows their delay (%llu ms)", (unsigned long long)A.cfg.delay_ms);
    /* a failed dump says why: a full heap read as a full disk */
    if (st.state == WATCH_DUMP_FAILED && A.dump_why[0])
        snprintf(next, sizeof next, "heap dump %.100s: retry in %llu ms", A.dump_why,
                 st.next_check_ms > now ? (unsigned long long)(st.next_check_ms - now) : 0ULL);
    int n = snprintf(
        text, sizeof text,
        "pid: %ld\nstate: %s\nnext: %s\nretained: %llu\nretained_after_gc: %llu\n"
        "watched: %llu\n"
        "threshold: %u\ndelay_ms: %llu\ntotal_watched: %llu\ncollected: %llu\n"
        "dropped: %llu\nfull_gcs: %llu\ndumps: %llu\nfailed_dumps: %llu\nlast_dump: %s\n"
        "last_dump_bytes: %llu\nlast_pause_ms: %.0f\nanalysis: %s\ndump_dir: %s\n"
        "rules: %d\nrewritten_methods: %u\ntable_bytes: %zu\nstamped_classes: %d\n"
        "stamp_scans: %llu\nstamp_found: %llu\ncall_slots: %d\nretransforms: %u\n"
        "pool_reads: %u\n",
        (long)getpid(), watch_state_name(st.state), next, (unsigned long long)st.retained,
        (unsigned long long)st.retained_after_gc, (unsigned long long)st.watched,
        A.cfg.threshold, (unsigned long long)A.cfg.delay_ms,
        (unsigned long long)st.total_watched, (unsigned long long)st.collected,
        (unsigned long long)st.dropped, (unsigned long long)st.full_gcs,
        (unsigned long long)st.dumps,
        (unsigned long long)st.failed_dumps, A.last_dump[0] ? A.last_dump : "-",
        (unsigned long long)st.last_dump_bytes, A.last_pause_ms,
        A.analysing ? "running"
                    : (st.dumps == 0 ? "-" : (A.analysis_rc == 0 ? "done" : "failed")),
        A.dir, A.can_rules ? A.opts.n_watch : 0, A.n_rewritten, st.table_bytes, S.n_cls,
        S.scans, S.found, C.n, A.n_retransforms,
        __atomic_load_n(&A.n_pool_reads, __ATOMIC_RELAXED));
    /* a new file per write (renamed over the old one, so readers never see half of it)
     * costs a file creation: skipped when nothing changed */
    if (n <= 0 || (size_t)n >= sizeof text)
        return;
    snprintf(tmp, sizeof tmp, "%s.tmp", A.status);
    /* under the executor's lock, so on_vm_death's unlink never races a rewrite */
    pthread_mutex_lock(&A.lock);
    /* /tmp is everyone's: the name is known, so a file or link someone planted there is
     * taken out of the way and the file is made anew, never followed (a link would have
     * had this JVM write over what it points to) */
    FILE *f = NULL;
    if (!A.dying && strcmp(text, last) != 0) {
        unlink(tmp);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0 && !(f = fdopen(fd, "w")))
            close(fd);
    }
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
    (*env)->CallStaticVoidMethod(env, A.watcher, A.watcher_seal, (jlong)agent_clock_ms());
    if ((*env)->ExceptionCheck(env))
        agent_disable(env, "AppWatcher.seal failed");
}

/* The start-up work: the listing of the classes loaded before the agent and the one
 * start-up retransformation (hooks_early_retransform), and the status it changes. Started
 * with the JVM it runs on the start-up thread (agent.c), off the thread that runs main; the
 * retransformation, a few milliseconds of CPU, waits until a class needs it or EARLY_DEFER_MS
 * have passed, then runs at a lower scheduling priority (Linux nice AGENT_STARTUP_NICE, that
 * thread only): it takes the CPU the application leaves, while the watcher keeps its own
 * priority for LeakCanary's timings. The retransformation's VM operation still stops the
 * application once. Attached, on the watcher (nothing to do). */
void watcher_startup(JNIEnv *env)
{
    if (hooks_early_retransform(env))
        watcher_write_status(); /* its retransforms key, at once */
}

void JNICALL watcher_main(jvmtiEnv *ti, JNIEnv *env, void *arg)
{
    in_agent = 1;
    uint64_t next = 0;
    /* no status file yet: the first tick writes it (status_at is 0), AGENT_SEAL_MS from
     * now. A JVM that ends sooner never creates one: its creation and rename cost this
     * thread 0.07-0.3 ms of CPU, and there is nothing to show but "idle". Attached,
     * live_start wrote it already. */
    if (A.attached)
        watcher_startup(env);
    int first = !A.attached; /* started a tick late (agent_start_watcher): ticks at once */
    while (!A.dying) {
        pthread_mutex_lock(&A.lock);
        uint64_t at = next;
        if (A.wake_at && (!at || A.wake_at < at))
            at = A.wake_at;
        /* wake every AGENT_SEAL_MS: the batch AppWatcher fills (rule-watched objects, and
         * explicitly watched ones) is stamped with the clock when sealed, so this bounds how
         * late such an object is checked; the stamps' epoch advances at the same pace */
        uint64_t now = agent_clock_ms();
        uint64_t tick = AGENT_SEAL_MS;
        uint64_t until = (!at || at > now + tick) ? now + tick : at;
        if (first)
            until = now;
        first = 0;
        while (!A.dying && (!A.wake_at || A.wake_at > until) && agent_clock_ms() < until)
            agent_wait(until);
        if (A.wake_at && A.wake_at <= agent_clock_ms())
            A.wake_at = 0;
        pthread_mutex_unlock(&A.lock);
        if (A.dying || A.disabled)
            break;
        seal_rules(env);
        watcher_watch_ended(env);
        stamp_tick(env);
        if (A.disabled)
            break;
        next = watch_run(A.core);
        /* objects watched a tick ago and collected since are let go now, not 5 s later:
         * the GC visits every JNI weak reference on each collection */
        watch_sweep(A.core, agent_clock_ms() - AGENT_SEAL_MS);
        warn_dropped();
        if ((*env)->ExceptionCheck(env)) {
            agent_disable(env, "unexpected Java exception in the watcher thread");
            break;
        }
        if (agent_clock_ms() - A.status_at >= 900 || next == 0 || A.analysing)
            watcher_write_status();
    }
}

/* ---- explicit watching: leakray.AppWatcher.watch0 ---- */

void JNICALL watcher_watch0(JNIEnv *env, jclass cls, jobject ref, jlong ms)
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
 * watching threads pay no JNI transition, and the core's lock is taken once per
 * FLUSH_CHUNK objects. Empty slots (AppWatcher.add's duplicates) are skipped. */
#define FLUSH_CHUNK 256

void JNICALL watcher_flush0(JNIEnv *env, jclass cls, jobjectArray objs, jintArray rules,
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
    void *ws[FLUSH_CHUNK];
    uint32_t tags[FLUSH_CHUNK];
    size_t m = 0;
    for (jint i = 0; i <= n && !A.disabled; i++) {
        if (i == n || m == FLUSH_CHUNK) { /* hand the chunk to the core */
            size_t took = watch_add_n(A.core, ws, tags, m, (uint64_t)ms);
            for (size_t j = took; j < m; j++)
                (*env)->DeleteWeakGlobalRef(env, (jweak)ws[j]);
            m = 0;
            if (i == n)
                break;
        }
        jobject o = (*env)->GetObjectArrayElement(env, objs, i);
        if (!o)
            continue;
        jweak w = (*env)->NewWeakGlobalRef(env, o);
        if (!w) {
            agent_disable(env, "out of JNI weak global references");
            break;
        }
        ws[m] = w;
        tags[m++] = AGENT_TAG_WEAK | ((uint32_t)rs[i] & ~AGENT_TAG_WEAK);
    }
    for (size_t j = 0; j < m; j++) /* disabled midway: the rest is not watched */
        (*env)->DeleteWeakGlobalRef(env, (jweak)ws[j]);
    (*env)->PopLocalFrame(env, NULL);
    (*env)->ReleaseIntArrayElements(env, rules, rs, JNI_ABORT);
}

/* Watches obj through AppWatcher, watched at ms, so the reference is built by JIT-compiled
 * Java code. */
static void watch_object(JNIEnv *env, jobject obj, jstring desc, uint64_t ms)
{
    int was = in_agent;
    in_agent = 1;
    if (A.watcher_watch_at)
        (*env)->CallStaticVoidMethod(env, A.watcher, A.watcher_watch_at, obj, desc, (jlong)ms);
    else
        (*env)->CallStaticVoidMethod(env, A.watcher, A.watcher_watch, obj, desc);
    if ((*env)->ExceptionCheck(env))
        (*env)->ExceptionClear(env);
    in_agent = was;
}

/* ---- built in: a Thread object once its thread ended ---- */

/* A thread that ended waits here, its Thread object held by a global reference, until a tick
 * of the agent's at least AGENT_SEAL_MS later watches it, at the time it ended
 * (watcher_watch_ended): the thread that ends the JVM (System.exit's caller, or DestroyJavaVM
 * once main returned) gets its ThreadEnd just before VMDeath, and watching it there built a
 * KeyedWeakReference (its class loaded from the jar: 0.15 ms of that thread's CPU on the way
 * out of every JVM) for an object no check could ever look at; the wait keeps a tick that
 * falls between the two from doing it. The thread that ends pays a global reference and a
 * lock; with the list full it is watched at once, on its own thread, as before. */
#define ENDED_MAX 64
typedef struct ended_thread {
    jobject t;       /* the Thread (global) */
    uint64_t ms;     /* when it ended */
    char d[300];     /* its description */
} ended_thread;
static ended_thread ended[ENDED_MAX], ended_taken[ENDED_MAX];
static int n_ended;
static pthread_mutex_t ended_lock = PTHREAD_MUTEX_INITIALIZER;

/* The agent's thread, each tick: watches the threads that ended AGENT_SEAL_MS ago or more. */
void watcher_watch_ended(JNIEnv *env)
{
    uint64_t now = agent_clock_ms();
    int n = 0, kept = 0;
    pthread_mutex_lock(&ended_lock);
    for (int i = 0; i < n_ended; i++) {
        if (ended[i].ms + AGENT_SEAL_MS <= now)
            ended_taken[n++] = ended[i];
        else
            ended[kept++] = ended[i];
    }
    n_ended = kept;
    pthread_mutex_unlock(&ended_lock);
    for (int i = 0; i < n; i++) {
        jstring js = A.disabled || A.dying ? NULL : (*env)->NewStringUTF(env, ended_taken[i].d);
        if (js) {
            watch_object(env, ended_taken[i].t, js, ended_taken[i].ms);
            (*env)->DeleteLocalRef(env, js);
        }
        (*env)->ExceptionClear(env);
        (*env)->DeleteGlobalRef(env, ended_taken[i].t);
    }
}


void JNICALL watcher_thread_end(jvmtiEnv *ti, JNIEnv *env, jthread th)
{
    if (in_agent || !A.live || A.disabled || A.dying || !th)
        return;
    if (A.agent_thread && (*env)->IsSameObject(env, th, A.agent_thread))
        return;
    jvmtiThreadInfo info;
    memset(&info, 0, sizeof info);
    char d[300];
    int skip = 0;
    if ((*ti)->GetThreadInfo(ti, th, &info) == JVMTI_ERROR_NONE && info.name &&
        ((A.finalizing && strcmp(info.name, FINALIZER_THREAD) == 0) ||
         (A.watcher_finalize && (strcmp(info.name, FINALIZATION_THREAD) == 0 ||
                                 strcmp(info.name, FINALIZER_THREAD) == 0))))
        /* started by the check's finalization (JDK 17's runFinalization forks a thread and
         * waits for it; the bounded one runs it on a thread of its own, which may end
         * after the check): the agent's own, never the application's */
        skip = 1;
    else if (A.opts.n_unwatch) {
        /* the JDK's own threads (an `unwatch` class: InnocuousThread's Keep-Alive-Timer,
         * which its cache keeps once ended) */
        jclass tk = (*env)->GetObjectClass(env, th);
        skip = tk && hooks_unwatched(env, tk);
        if (tk)
            (*env)->DeleteLocalRef(env, tk);
    }
    if (info.name && !skip)
        snprintf(d, sizeof d, "java.lang.Thread \"%s\" ended", info.name);
    else
        snprintf(d, sizeof d, "java.lang.Thread ended");
    if (info.name)
        (*ti)->Deallocate(ti, (unsigned char *)info.name);
    if (info.thread_group)
        (*env)->DeleteLocalRef(env, info.thread_group);
    if (info.context_class_loader)
        (*env)->DeleteLocalRef(env, info.context_class_loader);
    if (skip)
        return;
    uint64_t now = agent_clock_ms();
    jobject g = NULL;
    pthread_mutex_lock(&ended_lock);
    if (n_ended < ENDED_MAX && (g = (*env)->NewGlobalRef(env, th))) {
        ended[n_ended].t = g;
        ended[n_ended].ms = now;
        memcpy(ended[n_ended].d, d, sizeof d);
        n_ended++;
    }
    pthread_mutex_unlock(&ended_lock);
    if (g || agent_resolve_live(env) != 0)
        return;
    jstring js = (*env)->NewStringUTF(env, d);
    if (!js) {
        (*env)->ExceptionClear(env);
        return;
    }
    watch_object(env, th, js, now);
    (*env)->DeleteLocalRef(env, js);
}
