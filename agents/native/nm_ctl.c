/* SPDX-License-Identifier: Apache-2.0 */
/* nm_ctl.c: configuration, triggers and process events of the native monitor (agents layer),
 * prefix nm_. At load it reads LEAKRAY_NATIVE_* (docs/native.md), removes itself from
 * LD_PRELOAD unless children are to be traced, registers atfork handlers (blocks frozen
 * across fork, locks reset in the child, which never scans unless asked) and the at-exit
 * scan, and starts one monitor thread, "leakray-native", with every signal blocked but the
 * scan signal while it waits in ppoll() on the signal pipe (the handler only writes a byte),
 * the abstract unix socket "leakray-native.PID" and the timer. It also wraps dlopen
 * (RTLD_DEEPBIND dropped: a library bound to libc's malloc would hand libc pointers it did
 * not make) and the pthread lifecycle calls, keeping a registry of threads with their
 * creation backtrace and stack mapping for thread-leak reports and for the scan (stacks of
 * dead threads are no roots). */
#define _GNU_SOURCE
#include "nm.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <linux/futex.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t owner_pid;      /* process the monitor reports on */
static int main_gone;        /* main called pthread_exit (main_exiting) */
static void main_exiting(void);
static pid_t monitor_tid;    /* the monitor thread */
static int sig_pipe[2] = {-1, -1};

/* ---- The monitor's own descriptors ----
 * A daemon closes every descriptor it inherited and opens its own, which take the freed
 * numbers: the monitor would then read the program's pipe, or spin on a file that is no
 * socket. So its descriptors sit high (out of the way of the numbers a program opens next),
 * each is known by its inode, and one found closed or reused is left to the program and made
 * anew. The signal handler writes only to a pipe end it still recognises. */
typedef struct own_fd {
    dev_t dev;
    ino_t ino;
} own_fd;
static own_fd own_pipe[2], own_listen;
static int listen_fd = -1; /* the monitor thread's listening socket (for fork_child) */
/* Held while the monitor thread makes its descriptors, and across fork: a fork between the
 * socket's creation and its number's store left the child a socket fork_child did not know
 * (a worker forked at once by a pre-fork server kept one). */
static pthread_mutex_t fd_lock = PTHREAD_MUTEX_INITIALIZER;
#define FD_CHECK_MS 2000u

static int fd_is(int fd, const own_fd *o)
{
    struct stat st;
    return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == o->dev && st.st_ino == o->ino;
}

/* fd moved to a high number (below the process's limit, at most 1024 less 64), known in *o;
 * the fd itself when that fails. */
static int fd_keep(int fd, own_fd *o)
{
    struct rlimit rl;
    int floor = 960;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 1024)
        floor = rl.rlim_cur > 128 ? (int)rl.rlim_cur - 64 : 3;
    int h = fcntl(fd, F_DUPFD_CLOEXEC, floor);
    if (h >= 0) {
        close(fd);
        fd = h;
    }
    struct stat st;
    if (fstat(fd, &st) == 0) {
        o->dev = st.st_dev;
        o->ino = st.st_ino;
    }
    return fd;
}

/* The signal pipe, made anew when none or when the program took its numbers. */
static int sig_pipe_open(void)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0)
        return -1;
    own_fd r, w;
    p[0] = fd_keep(p[0], &r);
    p[1] = fd_keep(p[1], &w);
    own_pipe[0] = r;
    own_pipe[1] = w;
    __atomic_store_n(&sig_pipe[0], p[0], __ATOMIC_RELEASE);
    __atomic_store_n(&sig_pipe[1], p[1], __ATOMIC_RELEASE);
    return 0;
}

uint64_t nm_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

pid_t nm_monitor_tid(void)
{
    return monitor_tid;
}

/* ---- Thread registry ---- */

static int reg_lock;
static nm_thread_rec threads[NM_MAX_THREADS];
static uintptr_t stacks[NM_MAX_THREADS][2];
static int n_stacks;
static __thread int t_slot NM_TLS = -1;

static void reg_acquire(void)
{
    while (__atomic_exchange_n(&reg_lock, 1, __ATOMIC_ACQUIRE))
        sched_yield();
}

static void reg_release(void)
{
    __atomic_store_n(&reg_lock, 0, __ATOMIC_RELEASE);
}

const nm_thread_rec *nm_threads(int *n)
{
    *n = NM_MAX_THREADS;
    return threads;
}

int nm_thread_stacks(uintptr_t (*out)[2], int max)
{
    int n = n_stacks < max ? n_stacks : max;
    memcpy(out, stacks, (size_t)n * sizeof stacks[0]);
    return n;
}

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static void *real_sym(const char *name)
{
    int g = nm_guard_set(1);
    void *p = dlsym(RTLD_NEXT, name);
    nm_guard_set(g);
    return p;
}

typedef struct tramp {
    void *(*fn)(void *); /* the application's start routine */
    void *arg;           /* its argument */
    int slot;            /* registry slot, -1 = untracked */
} tramp;

static void thread_gone(int slot, void *result)
{
    if (slot < 0)
        return;
    reg_acquire();
    threads[slot].state |= NM_T_EXITED;
    threads[slot].result = (uintptr_t)result;
    if (threads[slot].state & NM_T_DETACHED)
        threads[slot].state = 0;
    reg_release();
}

static void *trampoline(void *p)
{
    tramp t = *(tramp *)p;
    extern void __libc_free(void *);
    __libc_free(p);
    t_slot = t.slot;
    pthread_attr_t a;
    int g = nm_guard_set(1);
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
        void *lo;
        size_t size;
        if (pthread_attr_getstack(&a, &lo, &size) == 0) {
            nm_thread_stack_set((uintptr_t)lo + size);
            reg_acquire();
            int k = 0;
            while (k < n_stacks && stacks[k][0] != (uintptr_t)lo)
                k++;
            if (k == n_stacks && n_stacks < NM_MAX_THREADS)
                n_stacks++;
            if (k < NM_MAX_THREADS) {
                /* The guard page sits below lo; the mapping may start there. */
                stacks[k][0] = (uintptr_t)lo;
                stacks[k][1] = (uintptr_t)lo + size;
            }
            if (t.slot >= 0) {
                threads[t.slot].tid = (pid_t)syscall(SYS_gettid);
                threads[t.slot].stack_lo = (uintptr_t)lo;
                threads[t.slot].stack_hi = (uintptr_t)lo + size;
            }
            reg_release();
        }
        pthread_attr_destroy(&a);
    }
    nm_guard_set(g);
    if (t.slot >= 0) { /* t, on this stack (registered now), holds the argument from here */
        reg_acquire();
        threads[t.slot].arg = 0;
        reg_release();
    }
    void *ret = t.fn(t.arg);
    thread_gone(t.slot, ret);
    t_slot = -1;
    nm_alloc_thread_exit();
    return ret;
}

NM_API int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
                          void *arg)
{
    static create_fn real;
    if (!real)
        real = (create_fn)real_sym("pthread_create");
    if (!real)
        return EAGAIN;
    extern void *__libc_malloc(size_t);
    tramp *t = __libc_malloc(sizeof *t);
    if (!t)
        return EAGAIN;
    t->fn = fn;
    t->arg = arg;
    t->slot = -1;
    int detached = 0;
    if (attr)
        pthread_attr_getdetachstate(attr, &detached);
    int g = nm_guard_set(1);
    uint32_t trace = nm_cfg.bt_mode != NM_BT_NONE ? nm_trace_here(1) : 0;
    nm_guard_set(g);
    reg_acquire();
    for (int i = 0; i < NM_MAX_THREADS; i++)
        if (!threads[i].state) {
            memset(&threads[i], 0, sizeof threads[i]);
            threads[i].state = NM_T_USED | (detached == PTHREAD_CREATE_DETACHED ? NM_T_DETACHED
                                                                                  : 0);
            threads[i].trace = trace;
            threads[i].start_ms = nm_now_ms();
            /* until the new thread's stack is known, the argument (often the only pointer
             * to what the thread is handed) sits in t, which no scan reads: a root here */
            threads[i].arg = (uintptr_t)arg;
            t->slot = i;
            break;
        }
    reg_release();
    /* The new thread frees t as soon as it starts: its slot is read before. (glibc leaves a
     * freed block's third word alone; tcmalloc and mimalloc reuse it at once.) */
    int slot = t->slot;
    int rc = real(th, attr, trampoline, t);
    reg_acquire();
    if (rc != 0 && slot >= 0)
        threads[slot].state = 0;
    else if (slot >= 0)
        threads[slot].handle = *th;
    reg_release();
    if (rc != 0) {
        extern void __libc_free(void *);
        __libc_free(t);
    }
    return rc;
}

static void forget(pthread_t th, int detach)
{
    reg_acquire();
    for (int i = 0; i < NM_MAX_THREADS; i++)
        if ((threads[i].state & NM_T_USED) && pthread_equal(threads[i].handle, th)) {
            if (!detach || (threads[i].state & NM_T_EXITED))
                threads[i].state = 0;
            else
                threads[i].state |= NM_T_DETACHED;
            break;
        }
    reg_release();
}

NM_API int pthread_join(pthread_t th, void **ret)
{
    static int (*real)(pthread_t, void **);
    if (!real)
        real = (int (*)(pthread_t, void **))real_sym("pthread_join");
    int rc = real(th, ret);
    if (rc == 0)
        forget(th, 0);
    return rc;
}

NM_API int pthread_tryjoin_np(pthread_t th, void **ret)
{
    static int (*real)(pthread_t, void **);
    if (!real)
        real = (int (*)(pthread_t, void **))real_sym("pthread_tryjoin_np");
    int rc = real(th, ret);
    if (rc == 0)
        forget(th, 0);
    return rc;
}

NM_API int pthread_timedjoin_np(pthread_t th, void **ret, const struct timespec *abs)
{
    static int (*real)(pthread_t, void **, const struct timespec *);
    if (!real)
        real = (int (*)(pthread_t, void **, const struct timespec *))real_sym(
            "pthread_timedjoin_np");
    int rc = real(th, ret, abs);
    if (rc == 0)
        forget(th, 0);
    return rc;
}

NM_API int pthread_detach(pthread_t th)
{
    static int (*real)(pthread_t);
    if (!real)
        real = (int (*)(pthread_t))real_sym("pthread_detach");
    int rc = real(th);
    if (rc == 0)
        forget(th, 1);
    return rc;
}

NM_API void pthread_exit(void *ret)
{
    static void (*real)(void *);
    if (!real)
        real = (void (*)(void *))real_sym("pthread_exit");
    if (syscall(SYS_gettid) == getpid())
        main_exiting(); /* the process may end with another thread now: watch for it */
    thread_gone(t_slot, ret);
    t_slot = -1;
    nm_alloc_thread_exit();
    real(ret);
    __builtin_unreachable();
}

/* ---- dlopen ---- */

NM_API void *dlopen(const char *file, int flags)
{
    static void *(*real)(const char *, int);
    if (!real)
        real = (void *(*)(const char *, int))real_sym("dlopen");
    return real ? real(file, flags & ~RTLD_DEEPBIND) : NULL;
}

/* ---- Configuration ---- */

/* The environment is read and edited through environ directly: a program may define its own
 * getenv/setenv (bash does, over its shell variables), and ours would bind to them. */
extern char **environ;

static char *env_get(const char *name)
{
    size_t n = strlen(name);
    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
    const char *v = env_get(name);
    if (!v || !*v)
        return dflt;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    return *end ? dflt : x;
}

/* The leakray that stores scans: $LEAKRAY_NATIVE_LEAKRAY (what `native run` sets), else
 * beside this library (a build tree), else ../../bin/leakray from it (installed under
 * lib/leakray/), else "leakray" from PATH. */
static void find_leakray(void)
{
    const char *env = env_get("LEAKRAY_NATIVE_LEAKRAY");
    if (env && *env && strlen(env) < sizeof nm_cfg.leakray) {
        strcpy(nm_cfg.leakray, env);
        return;
    }
    Dl_info di;
    if (dladdr((void *)find_leakray, &di) && di.dli_fname) {
        const char *slash = strrchr(di.dli_fname, '/');
        int dl = slash ? (int)(slash - di.dli_fname) : 1;
        const char *dir = slash ? di.dli_fname : ".";
        snprintf(nm_cfg.leakray, sizeof nm_cfg.leakray, "%.*s/leakray", dl, dir);
        if (access(nm_cfg.leakray, X_OK) == 0)
            return;
        snprintf(nm_cfg.leakray, sizeof nm_cfg.leakray, "%.*s/../../bin/leakray", dl, dir);
        if (access(nm_cfg.leakray, X_OK) == 0)
            return;
    }
    strcpy(nm_cfg.leakray, "leakray");
}

static void read_config(void)
{
    const char *bt = env_get("LEAKRAY_NATIVE_BACKTRACE");
    if (bt && !strcmp(bt, "none"))
        nm_cfg.bt_mode = NM_BT_NONE;
    else if (bt && !strcmp(bt, "libunwind"))
        nm_cfg.bt_mode = NM_BT_LIBUNWIND;
    uint64_t d = env_u64("LEAKRAY_NATIVE_DEPTH", 16);
    nm_cfg.depth = d < 1 ? 1 : d > NM_MAX_DEPTH ? NM_MAX_DEPTH : (int)d;
    nm_cfg.sample_bytes = env_u64("LEAKRAY_NATIVE_SAMPLE", 0);
    nm_cfg.at_exit = (int)env_u64("LEAKRAY_NATIVE_AT_EXIT", 1);
    nm_cfg.signo = (int)env_u64("LEAKRAY_NATIVE_SIGNAL", SIGUSR2);
    nm_cfg.interval_s = (int)env_u64("LEAKRAY_NATIVE_INTERVAL", 0);
    nm_cfg.children = (int)env_u64("LEAKRAY_NATIVE_CHILDREN", 0);
    nm_cfg.fork_marks = nm_cfg.children && env_u64("LEAKRAY_NATIVE_FORK_MARKS", 0);
    nm_cfg.graph = (int)env_u64("LEAKRAY_NATIVE_GRAPH", 0);
    nm_cfg.huge_pages = (int)env_u64("LEAKRAY_NATIVE_HUGE_PAGES", 1);
    nm_zero = env_u64("LEAKRAY_NATIVE_ZERO", 1) != 0;
    nm_cfg.thread_age_ms = env_u64("LEAKRAY_NATIVE_THREAD_AGE_MS", 0);
    const char *out = env_get("LEAKRAY_NATIVE_OUT");
    if (out && strlen(out) < sizeof nm_cfg.out)
        strcpy(nm_cfg.out, out);
    const char *rep = env_get("LEAKRAY_NATIVE_REPORT"), *store = env_get("LEAKRAY_NATIVE_STORE");
    if (store && *store && strlen(store) < sizeof nm_cfg.store)
        strcpy(nm_cfg.store, store);
    else if (rep && !strcmp(rep, "db"))
        strcpy(nm_cfg.store, "default");
    if (nm_cfg.store[0])
        find_leakray();
    const char *app = env_get("LEAKRAY_NATIVE_APP"), *ver = env_get("LEAKRAY_NATIVE_VERSION");
    if (app && strlen(app) < sizeof nm_cfg.app)
        strcpy(nm_cfg.app, app);
    if (ver && strlen(ver) < sizeof nm_cfg.version)
        strcpy(nm_cfg.version, ver);
    const char *sock = env_get("LEAKRAY_NATIVE_SOCKET");
    if (!sock || strcmp(sock, "0"))
        snprintf(nm_cfg.socket_name, sizeof nm_cfg.socket_name, "leakray-native.%d",
                 (int)getpid());
}

/* Exec'd children start without the monitor unless asked (they would write reports too).
 * The LD_PRELOAD string is rewritten in place (the new value is never longer), or its entry
 * removed from environ when nothing else was preloaded. */
static void drop_from_preload(void)
{
    char *pre = env_get("LD_PRELOAD");
    if (!pre)
        return;
    char buf[4096];
    size_t k = 0;
    const char *p = pre;
    while (*p) {
        size_t len = strcspn(p, ": ");
        int ours = len >= 20 && !memcmp(p + len - 20, "libleakray_native.so", 20);
        if (len && !ours && k + len + 2 < sizeof buf) {
            if (k)
                buf[k++] = ':';
            memcpy(buf + k, p, len);
            k += len;
        }
        p += len;
        while (*p == ':' || *p == ' ')
            p++;
    }
    buf[k] = 0;
    if (k) {
        memcpy(pre, buf, k + 1);
        return;
    }
    char **e = environ;
    while (*e && *e + 11 != pre)
        e++;
    for (; *e; e++)
        e[0] = e[1];
}

/* ---- Recording scans in the leak store ---- */

typedef struct ingest_job {
    char *argv[16];
    char **envp;
    char db_env[sizeof nm_cfg.store + 16]; /* LEAKRAY_DB=URL: not on the command line */
} ingest_job;

/* The vfork-like child: own signal dispositions (no CLONE_SIGHAND), reset before exec so no
 * handler of the program runs here; stdout (the rendering) goes to /dev/null. */
static int ingest_child(void *arg)
{
    ingest_job *j = arg;
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, &dfl, NULL);
    int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (fd >= 0)
        dup2(fd, 1);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (strchr(j->argv[0], '/'))
        execve(j->argv[0], j->argv, j->envp);
    else
        execvpe(j->argv[0], j->argv, j->envp);
    _exit(127);
}

/* Records the scan at path in the configured store with `leakray native report --store`,
 * and waits for it (a `native check` answer then means "stored" too). The child is a
 * clone(CLONE_VM | CLONE_VFORK) with exit signal 0 (the program never sees a SIGCHLD for
 * it, nor reaps it) and an environment without LD_PRELOAD (leakray is not monitored). */
static void ingest(const char *path)
{
    if (!nm_cfg.store[0])
        return;
    int e = errno, g = nm_guard_set(1);
    enum { STACK = 64 * 1024 };
    size_t n_env = 0;
    for (char **v = environ; v && *v; v++)
        n_env++;
    size_t env_bytes = (n_env + 2) * sizeof(char *);
    char *stack = nm_map(STACK);
    char **envp = nm_map(env_bytes);
    ingest_job *j = nm_map(sizeof *j);
    if (stack && envp && j) {
        /* the store goes in the environment, as LEAKRAY_DB: a URL may carry a password,
         * which a command line shows every local user (ps, /proc/PID/cmdline) */
        int own_db = strcmp(nm_cfg.store, "default") != 0;
        size_t k = 0;
        for (size_t i = 0; i < n_env; i++)
            if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0 &&
                !(own_db && strncmp(environ[i], "LEAKRAY_DB=", 11) == 0))
                envp[k++] = environ[i];
        if (own_db) {
            snprintf(j->db_env, sizeof j->db_env, "LEAKRAY_DB=%s", nm_cfg.store);
            envp[k++] = j->db_env;
        }
        envp[k] = NULL;
        int n = 0;
        j->argv[n++] = nm_cfg.leakray;
        j->argv[n++] = "native";
        j->argv[n++] = "report";
        j->argv[n++] = (char *)path;
        j->argv[n++] = "--quiet";
        j->argv[n++] = "--store";
        j->argv[n++] = "default";
        if (nm_cfg.app[0]) {
            j->argv[n++] = "--app";
            j->argv[n++] = nm_cfg.app;
        }
        if (nm_cfg.version[0]) {
            j->argv[n++] = "--version";
            j->argv[n++] = nm_cfg.version;
        }
        j->argv[n] = NULL;
        j->envp = envp;
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        pid_t kid = clone(ingest_child, stack + STACK, CLONE_VM | CLONE_VFORK, j);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        int st = 0;
        if (kid > 0)
            while (waitpid(kid, &st, __WALL) < 0 && errno == EINTR)
                ;
        if (kid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            char line[2800];
            snprintf(line, sizeof line, "leakray-native: %s was not recorded in the leak store "
                     "(%s failed)\n", path, nm_cfg.leakray);
            if (write(2, line, strlen(line)) < 0) {
                /* nothing left to tell */
            }
            /* beside the scan: `native run --store` exits 4 as `native report --store` does */
            snprintf(line, sizeof line, "%s" NM_NOSTORE_SUFFIX, path);
            int fd = open(line, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
            if (fd >= 0)
                close(fd);
        }
    }
    if (stack)
        nm_unmap(stack, STACK);
    if (envp)
        nm_unmap(envp, env_bytes);
    if (j)
        nm_unmap(j, sizeof *j);
    nm_guard_set(g);
    errno = e;
}

/* ---- Ended by a signal ----
 * Ctrl-C or a service manager's SIGTERM ends a program without exit(): no at-exit scan ran,
 * and every leak of a run went unreported (valgrind reports then). SIGINT, SIGTERM and SIGHUP,
 * where the program left them to their default action, end it after a last scan: the thread
 * that takes the signal hands the scan to the monitor's thread (a scan from a handler could
 * wait on a lock the interrupted code holds) and waits for it, at most TERM_WAIT_MS; then the
 * signal's default action ends the process as it would have. A handler the program installs
 * later replaces this one: the program then decides, and exit() scans as usual. */
#define TERM_WAIT_MS 60000
static int term_sig, term_done;
static int monitor_started; /* the monitor thread was made (in this process) */
static int term_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void on_terminate(int sig)
{
    int e = errno;
    /* a forked child has no monitor thread of its own (and shares the parent's pipe); the
     * parent's may not have run yet (a signal right after start): the pipe keeps the byte */
    int mine = getpid() == owner_pid && __atomic_load_n(&monitor_started, __ATOMIC_ACQUIRE);
    int first = mine && !__atomic_exchange_n(&term_sig, sig, __ATOMIC_ACQ_REL);
    int fd = __atomic_load_n(&sig_pipe[1], __ATOMIC_ACQUIRE);
    char c = 't';
    if (first && fd_is(fd, &own_pipe[1]) && write(fd, &c, 1) == 1) {
        struct timespec ts = {TERM_WAIT_MS / 1000, 0};
        while (!__atomic_load_n(&term_done, __ATOMIC_ACQUIRE))
            if (syscall(SYS_futex, &term_done, FUTEX_WAIT, 0, &ts) != 0 && errno == ETIMEDOUT)
                break;
    } else if (mine && !first) { /* a second signal (Ctrl-C twice): wait for the first's */
        struct timespec ts = {TERM_WAIT_MS / 1000, 0};
        while (!__atomic_load_n(&term_done, __ATOMIC_ACQUIRE))
            if (syscall(SYS_futex, &term_done, FUTEX_WAIT, 0, &ts) != 0 && errno == ETIMEDOUT)
                break;
    }
    signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    raise(sig);
    errno = e;
}

/* The last scan, on the monitor's thread, for the thread on_terminate holds. */
static void terminate_scan(void)
{
    char path[600];
    if (nm_scan_run(NM_REASON_EXIT, path, sizeof path) == 0)
        ingest(path);
    __atomic_store_n(&term_done, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &term_done, FUTEX_WAKE, 1 << 30, 0);
}

/* Installs on_terminate for each termination signal still at its default action. */
static void catch_termination(void)
{
    for (size_t i = 0; i < sizeof term_signals / sizeof *term_signals; i++) {
        struct sigaction cur, sa;
        if (term_signals[i] == nm_cfg.signo || sigaction(term_signals[i], NULL, &cur) != 0 ||
            cur.sa_handler != SIG_DFL || (cur.sa_flags & SA_SIGINFO))
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_terminate;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(term_signals[i], &sa, NULL);
    }
}

/* ---- Monitor thread ---- */

static void on_signal(int sig)
{
    int e = errno;
    char c = 's';
    int fd = __atomic_load_n(&sig_pipe[1], __ATOMIC_ACQUIRE);
    if (fd_is(fd, &own_pipe[1]) && write(fd, &c, 1) < 0) {
        /* pipe full: a scan is already pending */
    }
    errno = e;
}

/* Main called pthread_exit: the process ends with its last thread, which the monitor's
 * thread sees only between waits (only_monitor_left). Its waits are short from now on
 * (MAIN_GONE_MS, not FD_CHECK_MS), and the 'w' byte cuts the current one: a program that ends
 * so was held up to FD_CHECK_MS at its end. */
#define MAIN_GONE_MS 50u

static void main_exiting(void)
{
    __atomic_store_n(&main_gone, 1, __ATOMIC_RELEASE);
    char c = 'w';
    int fd = __atomic_load_n(&sig_pipe[1], __ATOMIC_ACQUIRE);
    if (getpid() == owner_pid && fd_is(fd, &own_pipe[1]) && write(fd, &c, 1) < 0) {
        /* pipe full: the monitor wakes for the bytes already there */
    }
}

static int listen_socket(void)
{
    if (!nm_cfg.socket_name[0])
        return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    size_t len = strlen(nm_cfg.socket_name);
    memcpy(a.sun_path + 1, nm_cfg.socket_name, len); /* abstract: no file to clean up */
    if (bind(fd, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
                                                      1 + len)) != 0 ||
        listen(fd, 4) != 0) {
        close(fd);
        return -1;
    }
    return fd_keep(fd, &own_listen);
}

/* Whether the peer may ask for a scan: the program's own user, or root. The socket is
 * abstract, with no file permission to keep others out, and a scan's report quotes the
 * program's leaked memory. */
static int peer_allowed(int cfd)
{
    struct ucred cr;
    socklen_t len = sizeof cr;
    if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0)
        return 0;
    return cr.uid == 0 || cr.uid == geteuid() || cr.uid == getuid();
}

static void answer(int cfd, int reason)
{
    /* One client that connects and says nothing must not hold the monitor: its request has
     * a second to come, and the answer a second to leave. */
    struct timeval tv = {1, 0};
    setsockopt(cfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(cfd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    char req[64], path[600], line[1200];
    if (!peer_allowed(cfd)) { /* told at once: another user's silent clients wait for no one */
        snprintf(line, sizeof line, "error permission denied: the process runs as user %u\n",
                 (unsigned)geteuid());
        if (write(cfd, line, strlen(line)) < 0) {
            /* the client went away */
        }
        return;
    }
    ssize_t n = read(cfd, req, sizeof req - 1);
    if (n <= 0)
        return;
    req[n] = 0;
    struct sigaction cur;
    if (strncmp(req, "signal", 6) == 0) {
        /* which signal asks for a scan, and whether the program has since put its own
         * handler there (`check --signal` would then run that handler, and no scan) */
        int own = nm_cfg.signo > 0 && nm_cfg.signo < NSIG &&
                  sigaction(nm_cfg.signo, NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO) &&
                  cur.sa_handler == on_signal;
        snprintf(line, sizeof line, "ok signal %d %s\n", nm_cfg.signo > 0 ? nm_cfg.signo : 0,
                 nm_cfg.signo <= 0 ? "none" : own ? "own" : "replaced");
    } else if (strncmp(req, "scan", 4) != 0) {
        snprintf(line, sizeof line, "error unknown request\n");
    } else if (nm_scan_run(reason, path, sizeof path) == 0) {
        ingest(path);
        char cwd[512];
        if (path[0] != '/' && getcwd(cwd, sizeof cwd))
            snprintf(line, sizeof line, "ok %s/%s\n", cwd, path);
        else
            snprintf(line, sizeof line, "ok %s\n", path);
    } else {
        snprintf(line, sizeof line, "error %s\n", path);
    }
    if (write(cfd, line, strlen(line)) < 0) {
        /* the client went away */
    }
}

/* Whether every thread of the process but the monitor's has ended (main's may stay a zombie:
 * it called pthread_exit). The process would end with its last thread, as if by exit(0),
 * but the monitor's own thread kept it alive for ever, the exit scan never ran, and
 * SIGTERM, blocked in that thread, did nothing. */
/* State letter of thread tid ('R', 'S', 'Z', ...), or 0 when it is gone. */
static char task_state(long tid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/self/task/%ld/stat", tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t k = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (k <= 0)
        return 0;
    buf[k] = 0;
    const char *rp = strrchr(buf, ')'); /* the name may hold anything */
    return rp && rp[1] == ' ' ? rp[2] : '?';
}

static int only_monitor_left(void)
{
    char m = task_state((long)getpid()); /* main alive, the common case: one read */
    if (m && m != 'Z' && m != 'X')
        return 0;
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return 0;
    int others = 0;
    struct dirent *e;
    while (!others && (e = readdir(d))) {
        long tid = strtol(e->d_name, NULL, 10);
        if (tid <= 0 || tid == monitor_tid)
            continue;
        char st = task_state(tid); /* 0: gone while listed */
        others = st && st != 'Z' && st != 'X';
    }
    closedir(d);
    return !others;
}

/* The monitor thread is named so that `native check --signal` can send the scan signal to
 * it alone (tgkill): a signal sent to the process goes to a thread the kernel picks, usually
 * main, whose sleep() or poll() it cuts short. The thread takes that signal only inside
 * ppoll(): a scan runs with every signal blocked (its futex hand-offs would end early), and
 * a signal sent meanwhile stays pending until the next wait. */
static void *monitor_main(void *arg)
{
    nm_guard_set(1);
    monitor_tid = (pid_t)syscall(SYS_gettid);
    prctl(PR_SET_NAME, "leakray-native", 0, 0, 0);
    sigset_t waiting;
    pthread_sigmask(SIG_SETMASK, NULL, &waiting);
    if (nm_cfg.signo > 0 && nm_cfg.signo < NSIG)
        sigdelset(&waiting, nm_cfg.signo);
    pthread_mutex_lock(&fd_lock);
    int lfd = listen_socket();
    __atomic_store_n(&listen_fd, lfd, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&fd_lock);
    uint64_t next = nm_cfg.interval_s ? nm_now_ms() + (uint64_t)nm_cfg.interval_s * 1000u : 0;
    for (;;) {
        /* The program may have closed what is ours (and reused the numbers): what is gone is
         * made anew, what it holds now is its own. Looked at every FD_CHECK_MS at least. */
        pthread_mutex_lock(&fd_lock);
        int rd = sig_pipe[0], wr = sig_pipe[1];
        int rd_ok = fd_is(rd, &own_pipe[0]), wr_ok = fd_is(wr, &own_pipe[1]);
        if (!rd_ok || !wr_ok) {
            if (rd_ok)
                close(rd);
            if (wr_ok)
                close(wr);
            __atomic_store_n(&sig_pipe[1], -1, __ATOMIC_RELEASE);
            if (sig_pipe_open() != 0)
                sig_pipe[0] = -1;
        }
        if (nm_cfg.socket_name[0] && !fd_is(lfd, &own_listen)) {
            lfd = listen_socket();
            __atomic_store_n(&listen_fd, lfd, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&fd_lock);
        struct pollfd p[2] = {{sig_pipe[0], POLLIN, 0}, {lfd, POLLIN, 0}};
        uint64_t left = __atomic_load_n(&main_gone, __ATOMIC_ACQUIRE) ? MAIN_GONE_MS
                                                                       : FD_CHECK_MS;
        if (next) {
            uint64_t now = nm_now_ms();
            if (next - now < left || next <= now)
                left = next > now ? next - now : 0;
        }
        struct timespec ts = {(time_t)(left / 1000u), (long)(left % 1000u) * 1000000L};
        int r = ppoll(p, 2, &ts, &waiting);
        if (r < 0 && errno != EINTR)
            break;
        char path[600];
        if (r > 0 && (p[0].revents & POLLIN) && fd_is(p[0].fd, &own_pipe[0])) {
            char buf[64];
            ssize_t k = read(p[0].fd, buf, sizeof buf);
            if (k > 0 && memchr(buf, 't', (size_t)k)) {
                terminate_scan(); /* the program ends next: no other scan matters */
                continue;
            }
            int asked = 0; /* a scan signal's 's' (a 'w' only wakes the wait) */
            for (ssize_t i = 0; i < k; i++)
                asked |= buf[i] != 'w';
            if (asked && nm_scan_run(NM_REASON_SIGNAL, path, sizeof path) == 0)
                ingest(path);
        }
        if (r > 0 && lfd >= 0 && (p[1].revents & POLLIN) && fd_is(lfd, &own_listen)) {
            int cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
            if (cfd >= 0) {
                answer(cfd, NM_REASON_SOCKET);
                close(cfd);
            }
        }
        if (next && nm_now_ms() >= next) {
            if (nm_scan_run(NM_REASON_TIMER, path, sizeof path) == 0)
                ingest(path);
            next = nm_now_ms() + (uint64_t)nm_cfg.interval_s * 1000u;
        }
        if ((r == 0 || __atomic_load_n(&main_gone, __ATOMIC_ACQUIRE)) &&
            getpid() == owner_pid && only_monitor_left())
            exit(0); /* the at-exit scan runs here, as at the last thread's end */
    }
    return NULL;
}

static void start_monitor(void)
{
    if (sig_pipe_open() != 0)
        return;
    static create_fn real;
    real = (create_fn)real_sym("pthread_create");
    if (!real)
        return;
    /* The handler first: the thread may be sent the signal as soon as it has its name. */
    int handle = nm_cfg.signo > 0 && nm_cfg.signo < NSIG;
    struct sigaction sa, prev;
    if (handle) {
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sa.sa_flags = SA_RESTART;
        handle = sigaction(nm_cfg.signo, &sa, &prev) == 0;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    int g = nm_guard_set(1);
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int rc = real(&t, &a, monitor_main, NULL);
    pthread_attr_destroy(&a);
    nm_guard_set(g);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0 && handle)
        sigaction(nm_cfg.signo, &prev, NULL);
    if (rc == 0)
        __atomic_store_n(&monitor_started, 1, __ATOMIC_RELEASE);
    if (rc == 0 && nm_cfg.at_exit) /* a monitor thread to hand the last scan to */
        catch_termination();
}

/* ---- fork and exit ---- */

static int forked;

static void fork_prepare(void)
{
    reg_acquire();
    nm_tables_lock();
    pthread_mutex_lock(&fd_lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&fd_lock);
    nm_tables_unlock();
    reg_release();
}

static void fork_child(void)
{
    monitor_started = 0; /* threads do not cross a fork */
    /* Nor does the monitor thread that serves these: the child's copies of the listening
     * socket and of the scan pipe would take a `check` meant for the parent and never answer
     * it (one waited 600 s while such a child lived), and a scan signal sent to the child
     * would have the parent scanned. */
    int lf = listen_fd, wr = sig_pipe[1], rd = sig_pipe[0];
    if (fd_is(lf, &own_listen))
        close(lf);
    if (fd_is(wr, &own_pipe[1]))
        close(wr);
    if (fd_is(rd, &own_pipe[0]))
        close(rd);
    listen_fd = sig_pipe[0] = sig_pipe[1] = -1;
    pthread_mutex_unlock(&fd_lock);
    nm_tables_reinit_child();
    reg_lock = 0;
    forked = !nm_cfg.children;
    if (!forked) {
        owner_pid = getpid();
        monitor_tid = 0;
        /* A child ending with _exit() or by a signal writes no report: the mark says it ran */
        if (nm_cfg.fork_marks)
            nm_scan_mark_forked();
    }
}

/* Where the program called exit(), for the at-exit scan: its thread, its stack pointer at
 * the call and its callee-saved registers. The scan reads that thread's stack from there up:
 * below lie exit's own frames, the atexit handlers' and the monitor's, whose unwritten slots
 * still hold words of the program's returned calls, which kept blocks the program had lost
 * (LeakSanitizer and valgrind report them). The registers the program held values in are
 * roots of their own: exit's frames save them below that point. */
/* Not static: the assembly below writes them, so no compiler may take them for constants
 * it can fold away (clang does with static ones); the library hides its symbols anyway. */
uintptr_t nm_exit_sp, nm_exit_regs[NM_EXIT_REGS];
static pid_t exit_tid;

NM_API _Noreturn void exit(int status);
__attribute__((used, noreturn)) static void exit_after(int status)
{
    static void (*real_exit)(int);
    exit_tid = (pid_t)syscall(SYS_gettid);
    if (!real_exit)
        real_exit = (void (*)(int))real_sym("exit");
    if (real_exit)
        real_exit(status);
    _exit(status);
}

#if defined(__x86_64__)
/* exit: the caller's stack pointer (its return address on top) and rbx, rbp, r12-r15 as the
 * call left them, stored before any compiled prologue can move them; then the C part. */
__asm__(".text\n"
        ".globl exit\n"
        ".type exit, @function\n"
        "exit:\n"
        "    movq %rsp, nm_exit_sp(%rip)\n"
        "    movq %rbx, nm_exit_regs(%rip)\n"
        "    movq %rbp, nm_exit_regs+8(%rip)\n"
        "    movq %r12, nm_exit_regs+16(%rip)\n"
        "    movq %r13, nm_exit_regs+24(%rip)\n"
        "    movq %r14, nm_exit_regs+32(%rip)\n"
        "    movq %r15, nm_exit_regs+40(%rip)\n"
        "    jmp exit_after\n"
        ".size exit, .-exit\n");
#else
void exit(int status)
{
    nm_exit_sp = (uintptr_t)__builtin_frame_address(0);
    exit_after(status);
}
#endif

/* madvise, interposed: memory made do-not-fork or wipe-on-fork is missing or zero in the
 * fork a scan searches (nm_scan.c makes it ordinary for that fork). Only a program that asked
 * for either pays a scan's two reads of /proc/self/smaps; the call itself goes straight to
 * the kernel. */
int nm_fork_advised;

NM_API int madvise(void *addr, size_t len, int advice)
{
    if (advice == MADV_DONTFORK || advice == 18 /* MADV_WIPEONFORK */)
        __atomic_store_n(&nm_fork_advised, 1, __ATOMIC_RELAXED);
    return (int)syscall(SYS_madvise, addr, len, advice);
}

/* A program that returns from main reaches exit inside libc, where no call of ours sees
 * it: main runs under a wrapper that hands its value to exit() itself, as libc does, so that
 * its frames lie below the recorded call like those of any other exit. */
typedef int (*main_fn)(int, char **, char **);
static main_fn program_main;

static int main_then_exit(int argc, char **argv, char **envp)
{
    exit(program_main(argc, argv, envp));
}

NM_API int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
                             void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
    int (*real)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void),
                void *) =
        (int (*)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void),
                 void *))real_sym("__libc_start_main");
    if (!real)
        _exit(127);
    program_main = main;
    return real(nm_cfg.at_exit ? main_then_exit : main, argc, argv, init, fini, rtld_fini,
                stack_end);
}

uintptr_t nm_exit_frame(const uintptr_t **regs)
{
    uintptr_t f = __atomic_load_n(&nm_exit_sp, __ATOMIC_ACQUIRE);
    if (!f || exit_tid != (pid_t)syscall(SYS_gettid))
        return 0;
    *regs = nm_exit_regs;
    return f;
}

static void at_exit_scan(void)
{
    if (forked || getpid() != owner_pid)
        return;
    char path[600];
    if (nm_scan_run(NM_REASON_EXIT, path, sizeof path) != 0) {
        char line[700];
        snprintf(line, sizeof line, "leakray-native: at-exit scan failed: %s\n", path);
        if (write(2, line, strlen(line)) < 0) {
            /* nothing left to tell */
        }
        return;
    }
    ingest(path);
}

__attribute__((constructor)) static void nm_init(void)
{
    int g = nm_guard_set(1);
    owner_pid = getpid();
    read_config();
    nm_alloc_init();
    nm_scan_init();
    if (!nm_cfg.children)
        drop_from_preload();
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    if (nm_cfg.at_exit)
        atexit(at_exit_scan);
    if (nm_cfg.signo || nm_cfg.interval_s || nm_cfg.socket_name[0])
        start_monitor();
    nm_guard_set(g);
}
