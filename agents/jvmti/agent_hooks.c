/* SPDX-License-Identifier: Apache-2.0 */
/* agent_hooks.c: the JVM agent's call hook (agents layer), prefix hooks_: which classes get
 * AppWatcher.returned before the returns of a rule's methods, and when. Classes loaded after
 * the agent started with the JVM that take no stamp get it as their bytes pass the class-file
 * load hook (call slots, decided at ClassPrepare); the classes loaded before the
 * application's first class (the window), and every class when attached, by
 * retransformation (hooks_rules_for_class lists the methods, hooks_retransform makes one VM
 * operation of a batch); the window's batch only once a class constructs one of its classes,
 * or late (early_*). The load hook's filter (a rule's method name among the
 * constant-pool strings) is all most classes cost. State C in agent_internal.h; the rewrite
 * is rewrite.c's, the stamps agent_stamp.c's. */
#define _GNU_SOURCE
#include "agent_internal.h"

call_state C;

static int legacy_has(const char *name, size_t n);

static uint32_t name_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* Records that class `name` was hooked at load (under S.lock): e as in C.index. */
void hooks_index_add(const char *name, int e)
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
int hooks_index_find(const char *name, size_t n)
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

/* ---- watch rules: the hook inserted before the returns of the named methods ---- */

typedef struct batch {
    pending **p;
    int n;
} batch;
static __thread batch *cur_batch;

/* "Ljava/io/Closeable;" -> "java.io.Closeable" in place. */
void hooks_sig_to_name(char *s)
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

/* Whether k or one of its supertypes has a name `is` accepts (Java form, "java.io.Closeable"),
 * each class's signature read once. Bounded walk. */
static int supertype_walk(JNIEnv *env, jclass k, int (*is)(const char *name, const void *ctx),
                          const void *ctx, int depth)
{
    if (!k || depth > 32)
        return 0;
    char *sig = NULL;
    int found = 0;
    if ((*A.ti)->GetClassSignature(A.ti, k, &sig, NULL) == JVMTI_ERROR_NONE) {
        hooks_sig_to_name(sig);
        found = is(sig, ctx);
        (*A.ti)->Deallocate(A.ti, (unsigned char *)sig);
    }
    if (found)
        return 1;
    jint ni = 0;
    jclass *ifs = NULL;
    if ((*A.ti)->GetImplementedInterfaces(A.ti, k, &ni, &ifs) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < ni; i++) {
            if (!found && supertype_walk(env, ifs[i], is, ctx, depth + 1))
                found = 1;
            (*env)->DeleteLocalRef(env, ifs[i]);
        }
        (*A.ti)->Deallocate(A.ti, (unsigned char *)ifs);
    }
    if (found)
        return 1;
    jclass sup = (*env)->GetSuperclass(env, k);
    if (sup) {
        found = supertype_walk(env, sup, is, ctx, depth + 1);
        (*env)->DeleteLocalRef(env, sup);
    }
    return found;
}

static int name_is(const char *name, const void *ctx) { return strcmp(name, ctx) == 0; }

/* Whether k, a superclass or any interface of theirs is named `name`. */
int hooks_has_supertype(JNIEnv *env, jclass k, const char *name, int depth)
{
    return supertype_walk(env, k, name_is, name, depth);
}

/* A class became usable: if it declares a method a rule names (instance, with code) and has
 * the rule's class among its supertypes, hooks_retransform it with the hook before that method's
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

/* Whether name is on an `unwatch` line: every line is asked in one walk of the supertypes (a
 * walk per line cost each hooked class 19 walks of JVMTI calls once the shipped file named
 * the servers' recycled classes). */
static int unwatch_line(const char *name, const void *ctx)
{
    (void)ctx;
    for (int u = 0; u < A.opts.n_unwatch; u++)
        if (strcmp(name, A.opts.unwatch[u]) == 0)
            return 1;
    return 0;
}

int hooks_unwatched(JNIEnv *env, jclass k)
{
    return A.opts.n_unwatch > 0 && supertype_walk(env, k, unwatch_line, NULL, 0);
}

pending *hooks_rules_for_class(JNIEnv *env, jclass k)
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
            if (!hooks_has_supertype(env, k, ru->cls, 0) || !hook_visible(env, k))
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
    /* an `unwatch` class: a library keeps its objects on purpose once closed (a keep-alive
     * stream its cache reuses, a server's recycled buffers); its methods get no hook. Asked
     * only of a class with a method to hook: each line walks the class's supertypes. */
    if (pd && hooks_unwatched(env, k)) {
        free(pd);
        pd = NULL;
    }
    if (pd)
        pd->k = k;
    return pd;
}

/* Retransforms the n classes of pds (one VM operation for all) and frees pds. */
void hooks_retransform(JNIEnv *env, pending **pds, int n)
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

/* The classes loaded before now that need the call hook, as pendings in *out (their
 * classes local references of this frame), and each rule's class among them in A.rule_cls.
 * Only subtypes of the rules' own classes (found by name among them, whatever their loader)
 * can need the hook: IsAssignableFrom rules the others out without listing their methods
 * (most of the cost when hundreds of classes are loaded). Returns how many. */
int hooks_list_loaded(JNIEnv *env, pending ***out)
{
    jint nc = 0;
    jclass *cs = NULL;
    pending **pds = NULL;
    int np = 0;
    *out = NULL;
    if ((*A.ti)->GetLoadedClasses(A.ti, &nc, &cs) != JVMTI_ERROR_NONE)
        return 0;
    pds = calloc((size_t)nc + 1, sizeof *pds);
    unsigned char *ok = calloc((size_t)nc + 1, 1);
    jint *rcs = calloc((size_t)nc + 1, sizeof *rcs), nrc = 0;
    for (jint i = 0; pds && ok && rcs && i < nc; i++) {
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
            if (hooks_index_find(sig + 1, l - 2))
                ok[i] = 0; /* hooked at load, prepared on its own */
            else if (!ok[i]) {
                sig[l - 1] = 0;
                hooks_legacy_add(sig + 1); /* never seen by the load hook */
            }
            pthread_mutex_unlock(&S.lock);
        }
        if (!ok[i]) {
            (*A.ti)->Deallocate(A.ti, (unsigned char *)sig);
            continue;
        }
        hooks_sig_to_name(sig);
        int rule_cls = 0;
        for (int r = 0; r < A.opts.n_watch; r++)
            if (strcmp(sig, A.opts.watch[r].cls) == 0) {
                if (!rule_cls)
                    rcs[nrc++] = i;
                rule_cls = 1;
                pthread_mutex_lock(&A.lock);
                if (!A.rule_cls[r])
                    A.rule_cls[r] = (*env)->NewGlobalRef(env, cs[i]);
                pthread_mutex_unlock(&A.lock);
            }
        (*A.ti)->Deallocate(A.ti, (unsigned char *)sig);
    }
    for (jint i = 0; pds && ok && rcs && i < nc; i++) {
        int sub = 0;
        for (jint j = 0; ok[i] && j < nrc && !sub; j++)
            sub = (*env)->IsAssignableFrom(env, cs[i], cs[rcs[j]]);
        pending *pd = sub ? hooks_rules_for_class(env, cs[i]) : NULL;
        if (pd)
            pds[np++] = pd;
        else
            ok[i] = 0;
    }
    for (jint i = 0; i < nc; i++) /* the batch's classes are freed with the caller's frame */
        if (!pds || !ok || !ok[i])
            (*env)->DeleteLocalRef(env, cs[i]);
    free(ok);
    free(rcs);
    (*A.ti)->Deallocate(A.ti, (unsigned char *)cs);
    *out = pds;
    return pds ? np : 0;
}

/* Started with the JVM, the JDK classes loaded before the agent (its Closeables: the
 * standard streams and what opened them) and those the launcher loads before the
 * application's first class (the class path's jar and zip readers: the window) are listed
 * here, on this thread, rather than on the thread that goes on to run main, as one batch
 * for the call hook: RetransformClasses rewrites and parses each class again and its VM
 * operation visits every loaded class, most of the agent's set-up time. The batch is
 * complete once the window is closed (closed here if the application loaded no class
 * within WINDOW_MAX_MS); it is retransformed when a class needs it, or late (see the early
 * batch below); until then a close() of such a class is not watched. Returns 1 when this
 * thread retransformed. */
#define WINDOW_MAX_MS 2000

static int window_sub(JNIEnv *env, jclass k, const char *sig);
static int early_wait(JNIEnv *env, pending **pds, int n);
static void early_name(jclass k, const char *sig);
static void early_names_done(void);
/* A walk over a constant pool's entries: count as in the class file, d[0..n) the bytes. */
typedef struct cp_walk {
    const unsigned char *d;
    size_t n, at;      /* the bytes; the next entry's offset */
    unsigned i, count; /* the next entry's pool index (from 1); the pool's count */
} cp_walk;
static int cp_next(cp_walk *w, size_t *e, int *slots, const unsigned char **s, size_t *l);

int hooks_early_retransform(JNIEnv *env)
{
    uint64_t until = agent_clock_ms() + WINDOW_MAX_MS;
    pthread_mutex_lock(&A.lock);
    while (!A.early_ready && !A.dying)
        agent_wait(0);
    int list = A.list_loaded;
    pthread_mutex_unlock(&A.lock);
    pending **pds = NULL;
    int n = 0, cap = 0;
    if (list && (*env)->PushLocalFrame(env, 64) == 0) {
        n = hooks_list_loaded(env, &pds);
        for (int i = 0; i < n; i++)
            pds[i]->k = (*env)->NewGlobalRef(env, pds[i]->k);
        (*env)->PopLocalFrame(env, NULL);
        cap = n;
    }
    pthread_mutex_lock(&A.lock);
    for (int i = 0; i < n; i++)
        early_name(pds[i]->k, NULL);
    A.rules_known = 1; /* the window's classes are checked where they are prepared now */
    early_names_done();
    while (A.window && !A.dying) {
        uint64_t now = agent_clock_ms();
        pthread_mutex_unlock(&A.lock);
        uint64_t w = agent_watcher_due(); /* the watcher may be due before the window ends */
        if (now >= until || (w && now >= w)) {
            if (now >= until)
                hooks_window_close(env, NULL);
            else
                agent_start_watcher(env);
            pthread_mutex_lock(&A.lock);
            continue;
        }
        pthread_mutex_lock(&A.lock);
        agent_wait(w && w < until ? w : until);
    }
    jclass *wc = A.window_cls;
    int nw = A.n_window_cls;
    A.window_cls = NULL;
    A.n_window_cls = A.cap_window_cls = 0;
    A.early_taken = 1;
    pthread_mutex_unlock(&A.lock);
    /* the classes prepared in the window, in their order (a rule's class before its
     * subtypes), each once (one prepared before the list above is in it too) */
    for (int i = 0; i < nw; i++) {
        char *sig = NULL;
        int dup = 0;
        for (int j = 0; j < n && !dup; j++)
            dup = (*env)->IsSameObject(env, pds[j]->k, wc[i]);
        pending *pd = NULL;
        if (!dup && (*A.ti)->GetClassSignature(A.ti, wc[i], &sig, NULL) == JVMTI_ERROR_NONE &&
            window_sub(env, wc[i], sig))
            pd = hooks_rules_for_class(env, wc[i]);
        if (sig)
            (*A.ti)->Deallocate(A.ti, (unsigned char *)sig);
        if (pd && n == cap) {
            pending **p = realloc(pds, (size_t)(cap = 2 * cap + 16) * sizeof *p);
            if (!p) {
                free(pd);
                pd = NULL;
            } else {
                pds = p;
            }
        }
        if (pd) {
            pd->k = wc[i]; /* the global reference, deleted below with the others */
            pds[n++] = pd;
        } else {
            (*env)->DeleteGlobalRef(env, wc[i]);
        }
    }
    free(wc);
    return early_wait(env, pds, n);
}

/* ---- the early batch, deferred ----
 * Retransforming the JDK classes loaded before main costs a few milliseconds of CPU (HotSpot
 * rebuilds, parses and links each class again, ~0.3 ms a class) and makes the JIT compile
 * their methods again, at the application's busiest moment; most programs never close one
 * of them (the standard streams, the launcher's class path jars) or not at once. So the
 * batch waits: a class loaded later that constructs one of its classes or extends one (a
 * Methodref to its <init> in the constant pool) has it retransformed before its own code
 * runs, at its ClassPrepare, on its own thread; else the start-up thread does it
 * EARLY_DEFER_MS after main's first class, at a low priority. A program that ends before
 * that and constructs none never pays it. Until then, a close() of such an object made by
 * code loaded before main (the JDK's own) is not watched. */

static int early_has(uint32_t h)
{
    uint32_t m = EARLY_HASHES - 1, i = h & m;
    for (uint32_t k = 0; k < EARLY_HASHES && A.early_hash[i]; k++, i = (i + 1) & m)
        if (A.early_hash[i] == h)
            return 1;
    return 0;
}

static void early_add(uint32_t h)
{
    uint32_t m = EARLY_HASHES - 1, i = h & m;
    while (A.early_hash[i] && A.early_hash[i] != h)
        i = (i + 1) & m;
    A.early_hash[i] = h;
}

static uint32_t early_key(const char *s, size_t n)
{
    uint32_t h = name_hash(s, n);
    return h ? h : 1; /* 0 marks an empty slot */
}

/* The bit of early_bloom a name s[0..l) (l >= 1) sets: from its length, last and middle
 * bytes, a few loads and multiplies where early_key hashes every byte. */
static uint32_t early_bit(const unsigned char *s, size_t l)
{
    uint32_t h = (uint32_t)l * 0x9e3779b1u ^ (uint32_t)s[l - 1] * 0x85ebca6bu ^
                 (uint32_t)s[l / 2] * 0xc2b2ae35u;
    return h >> (32 - EARLY_BLOOM_BITS);
}

/* Adds class k's name (or its signature sig) to early_hash. Under lock. */
static void early_name(jclass k, const char *sig)
{
    char *own = NULL;
    if (!sig && (*A.ti)->GetClassSignature(A.ti, k, &own, NULL) == JVMTI_ERROR_NONE)
        sig = own;
    size_t l = sig ? strlen(sig) : 0;
    static int n_names;
    if (l <= 2 || sig[0] != 'L' || ++n_names > EARLY_HASHES / 2)
        A.early_trigger = 1; /* a name not kept: the first class prepared takes the batch */
    else
        early_add(early_key(sig + 1, l - 2));
    if (l > 2) {
        uint32_t b = early_bit((const unsigned char *)sig + 1, l - 2);
        A.early_bloom[b >> 6] |= (uint64_t)1 << (b & 63);
    }
    if (own)
        (*A.ti)->Deallocate(A.ti, (unsigned char *)own);
}

/* early_hash is complete once the classes loaded before the agent were listed and the
 * window closed (or never opened): the <init> owners seen before then are checked, and the
 * load hook checks its own from now on. Under lock. */
static void early_names_done(void)
{
    if (A.early_names || !A.rules_known || A.window)
        return;
    for (int i = 0; i < A.n_unsure; i++)
        if (early_has(A.unsure_h[i]))
            A.early_trigger = 1;
    __atomic_store_n(&A.early_names, 1, __ATOMIC_RELEASE);
    agent_notify();
}

/* The owner classes of the <init> Methodrefs of a constant pool: its count entries + 1
 * (count as in the class file) from d[0..n). Each owner's name hash: a batch class (the
 * names published) sets early_trigger; before they are published it is kept in unsure_h.
 * Returns -1 when the pool cannot be walked (the caller then assumes the worst). */
static int early_pool(const unsigned char *d, size_t n, unsigned count)
{
    if (count < 2)
        return 0;
    uint32_t *off = malloc((size_t)count * sizeof *off);
    if (!off)
        return -1;
    int init = 0; /* the pool index of the Utf8 "<init>" */
    cp_walk w = {d, n, 0, 1, count};
    size_t e, l;
    int slots, k;
    const unsigned char *u8;
    while ((k = cp_next(&w, &e, &slots, &u8, &l)) > 0) {
        unsigned i = w.i - (unsigned)slots;
        off[i] = (uint32_t)e;
        if (u8 && l == 6 && memcmp(u8, "<init>", 6) == 0)
            init = (int)i;
        if (slots == 2 && i + 1 < count)
            off[i + 1] = off[i];
    }
    if (k < 0)
        goto bad;
    for (unsigned i = 1; init && i < count; i++) {
        const unsigned char *e = d + off[i];
        if (e[0] != 10) /* Methodref: class_index, name_and_type_index */
            continue;
        unsigned ci = (unsigned)e[1] << 8 | e[2], ni = (unsigned)e[3] << 8 | e[4];
        if (ci == 0 || ci >= count || ni == 0 || ni >= count || d[off[ni]] != 12 ||
            d[off[ci]] != 7)
            continue;
        const unsigned char *nt = d + off[ni], *c = d + off[ci];
        if (((unsigned)nt[1] << 8 | nt[2]) != (unsigned)init)
            continue;
        unsigned ui = (unsigned)c[1] << 8 | c[2];
        if (ui == 0 || ui >= count || d[off[ui]] != 1)
            continue;
        const unsigned char *u = d + off[ui];
        size_t ul = (size_t)u[1] << 8 | u[2];
        if (ul == 16 && memcmp(u + 3, "java/lang/Object", 16) == 0)
            continue; /* every constructor's super(): never one of the batch */
        uint32_t h = early_key((const char *)u + 3, ul);
        if (__atomic_load_n(&A.early_names, __ATOMIC_ACQUIRE)) {
            if (early_has(h))
                A.early_trigger = 1;
            continue;
        }
        pthread_mutex_lock(&A.lock);
        if (A.early_names) {
            if (early_has(h))
                A.early_trigger = 1;
        } else if (A.n_unsure < EARLY_UNSURE) {
            A.unsure_h[A.n_unsure++] = h;
            A.early_unsure = 1;
        } else {
            A.early_trigger = 1; /* too many to remember: assume one of them is */
        }
        pthread_mutex_unlock(&A.lock);
    }
    free(off);
    return 0;
bad:
    free(off);
    return -1;
}

static int cp_names_in(const unsigned char *u8, size_t l, uint64_t *f);

/* Whether a constant pool (as early_pool's) has a string that is the name of a class of
 * early_hash (complete): most classes name none, and cost this one walk and no allocation.
 * 1 also when it cannot be walked. The same walk answers names_in (the rules' method names
 * it defines, into *found, *named set) when the rules' names are indexed: the load hook asks
 * both of every class, and a walk over a pool is most of what either costs. */
static int early_named(const unsigned char *d, size_t n, unsigned count, uint64_t *found,
                       int *named)
{
    cp_walk w = {d, n, 0, 1, count};
    size_t e, l;
    int slots, k, hit = 0, names = cp_names_in(NULL, 0, NULL);
    uint64_t f = 0;
    const unsigned char *u8;
    while ((k = cp_next(&w, &e, &slots, &u8, &l)) > 0) {
        if (!u8)
            continue;
        uint32_t b = l ? early_bit(u8, l) : 0;
        if (!hit && l && (A.early_bloom[b >> 6] >> (b & 63) & 1) &&
            early_has(early_key((const char *)u8, l))) {
            hit = 1;
            if (!names)
                return 1;
        }
        if (names)
            cp_names_in(u8, l, &f);
    }
    if (k < 0)
        return 1;
    if (names) {
        *found = f;
        *named = 1;
    }
    return hit;
}

/* The bytes of a class being loaded, while the early batch waits. Returns 1 when *found
 * holds names_in's answer for them, from the same walk (else the caller asks names_in). */
int hooks_early_bytes(const char *name, const unsigned char *data, jint len, uint64_t *found)
{
    int named = 0;
    if (!name || strncmp(name, "leakray/", 8) == 0 || strncmp(name, "leakcanary/", 11) == 0)
        return 0;
    if (len < 10 || data[0] != 0xca || data[1] != 0xfe || data[2] != 0xba || data[3] != 0xbe) {
        A.early_trigger = 1;
        return 0;
    }
    unsigned count = (unsigned)data[8] << 8 | data[9];
    if (__atomic_load_n(&A.early_names, __ATOMIC_ACQUIRE) &&
        !early_named(data + 10, (size_t)len - 10, count, found, &named))
        return named;
    if (early_pool(data + 10, (size_t)len - 10, count) != 0)
        A.early_trigger = 1;
    return named;
}

/* Retransforms the early batch on this thread unless another thread has; returns once it
 * is done, whoever did it (a class that needs it must not run before). 1 when this call
 * retransformed. */
static int early_run(JNIEnv *env)
{
    uint64_t until = agent_clock_ms() + EARLY_WAIT_MS;
    pthread_mutex_lock(&A.lock);
    /* the batch's last classes (the window's) are being listed: a moment */
    while (A.early_state == EARLY_LISTING && !A.dying && agent_clock_ms() < until)
        agent_wait(until);
    while (A.early_state == EARLY_RUNNING && !A.dying)
        agent_wait(0);
    if (A.early_state != EARLY_PUBLISHED) {
        pthread_mutex_unlock(&A.lock);
        return 0;
    }
    pending **pds = A.early_pds;
    int n = A.n_early;
    A.early_pds = NULL;
    A.n_early = 0;
    A.early_state = EARLY_RUNNING;
    pthread_mutex_unlock(&A.lock);
    jclass *ks = malloc((size_t)n * sizeof *ks);
    for (int i = 0; i < n; i++) {
        if (ks)
            ks[i] = pds[i]->k;
        else
            (*env)->DeleteGlobalRef(env, pds[i]->k);
    }
    int done = 0, was = in_agent;
    if (ks && !A.dying && !A.disabled) {
        in_agent = 1; /* classes this prepares come back here: they must not wait for it */
        hooks_retransform(env, pds, n); /* frees each pending */
        in_agent = was;
        done = 1;
    } else {
        for (int i = 0; i < n; i++)
            free(pds[i]);
    }
    for (int i = 0; ks && i < n; i++)
        (*env)->DeleteGlobalRef(env, ks[i]);
    free(ks);
    free(pds);
    pthread_mutex_lock(&A.lock);
    A.early_state = EARLY_DONE;
    agent_notify();
    pthread_mutex_unlock(&A.lock);
    return done;
}

/* The start-up thread, once the batch is complete: publishes its names, then waits until
 * EARLY_DEFER_MS have passed (or a class's thread did it) and retransforms. */
static int early_wait(JNIEnv *env, pending **pds, int n)
{
    pthread_mutex_lock(&A.lock);
    A.early_pds = pds;
    A.n_early = n;
    early_names_done(); /* in case the window never opened */
    __atomic_store_n(&A.early_state, n > 0 ? EARLY_PUBLISHED : EARLY_DONE, __ATOMIC_RELEASE);
    if (n == 0) {
        free(pds);
        A.early_pds = NULL;
    }
    agent_notify();
    pthread_mutex_unlock(&A.lock);
    if (n == 0)
        return 0;
    uint64_t until = agent_clock_ms() + EARLY_DEFER_MS;
    agent_start_watcher(env); /* at this thread's priority, which it inherits */
    if (!A.attached) /* the CPU the application leaves; the watcher keeps its priority */
        setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), AGENT_STARTUP_NICE);
    pthread_mutex_lock(&A.lock);
    while (A.early_state == EARLY_PUBLISHED && !A.dying && agent_clock_ms() < until)
        agent_wait(until);
    pthread_mutex_unlock(&A.lock);
    return early_run(env);
}

/* ClassPrepare of a class loaded after main's first class, while the batch waits: its
 * constant pool is read here when its bytes did not pass the load hook (seen 0) and a class
 * loader other than the boot loader defined it (the application's first class: main's);
 * the JDK's classes the launcher loaded before it and links only now (the method handle
 * and lambda machinery: about ten, 0.5-0.9 ms of JVMTI's pool rebuilding on the thread
 * that runs main) are JDK code loaded before main, whose objects wait for the batch's own
 * time like the others loaded then. A class seen before the names were complete waits for
 * them (EARLY_WAIT_MS at most); a class that constructs a batch class has the batch
 * retransformed before it runs. */

static void early_prepare(JNIEnv *env, jclass k, int seen)
{
    jobject ld = NULL;
    if (!seen && (*A.ti)->GetClassLoader(A.ti, k, &ld) == JVMTI_ERROR_NONE && !ld)
        seen = 1; /* the boot loader's, loaded before main */
    if (ld)
        (*env)->DeleteLocalRef(env, ld);
    if (!seen) {
        __atomic_add_fetch(&A.n_pool_reads, 1u, __ATOMIC_RELAXED);
        jint count = 0, nb = 0;
        unsigned char *cp = NULL;
        if ((*A.ti)->GetConstantPool(A.ti, k, &count, &nb, &cp) != JVMTI_ERROR_NONE ||
            early_pool(cp, (size_t)nb, (unsigned)count) != 0)
            A.early_trigger = 1;
        if (cp)
            (*A.ti)->Deallocate(A.ti, cp);
    }
    if ((A.early_unsure || A.early_trigger) && !A.early_names) {
        uint64_t until = agent_clock_ms() + EARLY_WAIT_MS;
        pthread_mutex_lock(&A.lock);
        while (!A.early_names && !A.dying && agent_clock_ms() < until)
            agent_wait(until);
        pthread_mutex_unlock(&A.lock);
    }
    if (A.early_trigger && A.early_names)
        early_run(env);
}

/* ---- the window: from VMInit to the application's first class ---- */

/* Opens the window (live_start, after listing the classes loaded before): the load hook
 * stays off, ClassLoad tells when a class loader other than the boot loader defines its
 * first class. */
void hooks_window_open(void)
{
    pthread_mutex_lock(&S.lock);
    A.window = 1;
    pthread_mutex_unlock(&S.lock);
    (*A.ti)->SetEventNotificationMode(A.ti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_LOAD, NULL);
}

/* Closes the window: the load hook goes on (stamps, call slots); then every class loaded but
 * not yet prepared whose bytes may not have passed the hook (trigger among them: ClassLoad
 * comes before its preparation) is named for the old path at its ClassPrepare (listed
 * methods, a retransformation of its own). Only then is the window marked closed, so a
 * class is either prepared in the window or found here. Any thread; the first call only. */
void hooks_window_close(JNIEnv *env, jclass trigger)
{
    static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
    if (!A.window)
        return;
    /* the classes loaded from now on call AppWatcher, and their preparation writes to its
     * arrays: resolved first (by the start-up thread, mostly done by now) */
    agent_resolve_live(env);
    pthread_mutex_lock(&once);
    if (!A.window) {
        pthread_mutex_unlock(&once);
        return;
    }
    (*A.ti)->SetEventNotificationMode(A.ti, JVMTI_DISABLE, JVMTI_EVENT_CLASS_LOAD, NULL);
    stamp_on();
    jint nc = 0;
    jclass *cs = NULL;
    if ((*A.ti)->GetLoadedClasses(A.ti, &nc, &cs) != JVMTI_ERROR_NONE)
        nc = 0;
    for (jint i = 0; i <= nc; i++) {
        jclass k = i < nc ? cs[i] : trigger;
        jint st = 0;
        char *sig = NULL;
        if (k && (*A.ti)->GetClassStatus(A.ti, k, &st) == JVMTI_ERROR_NONE &&
            !(st & (JVMTI_CLASS_STATUS_PREPARED | JVMTI_CLASS_STATUS_ARRAY |
                    JVMTI_CLASS_STATUS_PRIMITIVE)) &&
            (*A.ti)->GetClassSignature(A.ti, k, &sig, NULL) == JVMTI_ERROR_NONE) {
            size_t l = strlen(sig);
            if (l > 2 && sig[0] == 'L') {
                pthread_mutex_lock(&S.lock);
                if (!hooks_index_find(sig + 1, l - 2) && !legacy_has(sig + 1, l - 2)) {
                    sig[l - 1] = 0;
                    hooks_legacy_add(sig + 1);
                }
                pthread_mutex_unlock(&S.lock);
            }
        }
        if (sig)
            (*A.ti)->Deallocate(A.ti, (unsigned char *)sig);
        if (i < nc)
            (*env)->DeleteLocalRef(env, cs[i]);
    }
    if (cs)
        (*A.ti)->Deallocate(A.ti, (unsigned char *)cs);
    pthread_mutex_lock(&S.lock);
    A.window = 0;
    pthread_mutex_unlock(&S.lock);
    pthread_mutex_unlock(&once);
    pthread_mutex_lock(&A.lock); /* the agent's thread waits for it (hooks_early_retransform) */
    early_names_done();
    agent_notify();
    pthread_mutex_unlock(&A.lock);
}

/* ClassLoad, during the window only: a class defined by a class loader other than the boot
 * loader closes it. */
void JNICALL hooks_class_load(jvmtiEnv *ti, JNIEnv *env, jthread th, jclass k)
{
    if (!A.window)
        return;
    jobject ld = NULL;
    if ((*ti)->GetClassLoader(ti, k, &ld) != JVMTI_ERROR_NONE || !ld)
        return;
    (*env)->DeleteLocalRef(env, ld);
    hooks_window_close(env, k);
}

/* Whether k (signature sig), prepared during the window, is a subtype of a rule's class; a
 * rule's class itself is remembered for the classes after it (a class is prepared after its
 * supertypes). */
static int window_sub(JNIEnv *env, jclass k, const char *sig)
{
    char name[256];
    snprintf(name, sizeof name, "%s", sig);
    hooks_sig_to_name(name);
    int sub = 0;
    for (int r = 0; r < A.opts.n_watch; r++) {
        if (!A.rule_cls[r] && strcmp(name, A.opts.watch[r].cls) == 0) {
            pthread_mutex_lock(&A.lock);
            if (!A.rule_cls[r])
                A.rule_cls[r] = (*env)->NewGlobalRef(env, k);
            pthread_mutex_unlock(&A.lock);
        }
        if (!sub && A.rule_cls[r])
            sub = (*env)->IsAssignableFrom(env, k, A.rule_cls[r]);
    }
    return sub;
}

/* A class prepared during the window (a JDK class, its bytes never passed the load hook):
 * a subtype of a rule's class, or any class while the agent's thread has not yet listed the
 * classes loaded before (the rules' classes are not all known), is handed to that thread,
 * which lists its methods and adds it to the start-up retransformation. Once the thread took
 * that batch, the class is retransformed here. */
static void window_prepare(JNIEnv *env, jclass k, const char *sig)
{
    pthread_mutex_lock(&A.lock);
    int known = A.rules_known;
    pthread_mutex_unlock(&A.lock);
    if (known && !window_sub(env, k, sig))
        return;
    pthread_mutex_lock(&A.lock);
    if (!A.early_taken && A.n_window_cls == A.cap_window_cls) {
        int cap = A.cap_window_cls ? 2 * A.cap_window_cls : 64;
        jclass *p = realloc(A.window_cls, (size_t)cap * sizeof *p);
        if (p) {
            A.window_cls = p;
            A.cap_window_cls = cap;
        }
    }
    jclass g = !A.early_taken && A.n_window_cls < A.cap_window_cls
                   ? (*env)->NewGlobalRef(env, k)
                   : NULL;
    if (g) {
        A.window_cls[A.n_window_cls++] = g;
        early_name(k, sig); /* it may join the batch */
    }
    pthread_mutex_unlock(&A.lock);
    if (g)
        return;
    pending *pd = window_sub(env, k, sig) ? hooks_rules_for_class(env, k) : NULL;
    if (pd)
        hooks_retransform(env, &pd, 1); /* frees pd */
}

/* ---- the load hook's filter ---- */

/* Which rules' method names class-file bytes define as constant-pool strings (Utf8 entries
 * are tag 1, a big-endian length and the bytes: the exact entry, so "closed" or "isClosed"
 * do not match), as a bit per rule; one search per distinct name. The slow path: bytes that
 * are no class file cp_names understands. */
static uint64_t names_in_bytes(const unsigned char *data, jint len)
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

/* The rules' method names by length, for cp_names: set once by hooks_names_init before
 * stamp_start turns the load hook on, then only read (by any class-loading thread). */
static struct {
    size_t len[64];        /* strlen of rule r's method name */
    uint64_t by_len[64];   /* rules whose name is that long (lengths 1..63) */
    int ready;
} N;

void hooks_names_init(void)
{
    int ok = 1;
    for (int r = 0; r < A.opts.n_watch && r < 64; r++) {
        N.len[r] = strlen(A.opts.watch[r].method);
        if (N.len[r] > 0 && N.len[r] < 64)
            N.by_len[N.len[r]] |= (uint64_t)1 << r;
        else
            ok = 0; /* a name cp_names cannot index: every class takes the slow path */
    }
    N.ready = ok;
}

/* Bytes a constant-pool entry of tag t takes after its tag (Utf8 aside), 0 if unknown
 * (JVMS 4.4); *slots: the pool indexes it fills (Long and Double take two). */
static unsigned cp_size(unsigned t, int *slots)
{
    *slots = t == 5 || t == 6 ? 2 : 1;
    switch (t) {
    case 7: case 8: case 16: case 19: case 20: /* Class String MethodType Module Package */
        return 2;
    case 15: /* MethodHandle */
        return 3;
    case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18:
        return 4;
    case 5: case 6: /* Long Double */
        return 8;
    default:
        return 0;
    }
}

/* One Utf8 entry (u8, l bytes) of a walk that answers names_in: adds to *f the rules whose
 * method name it is. Asked with u8 NULL: 1 when the rules' names are indexed (N.ready), so
 * that a walk can answer, else 0 (names_in_bytes must). */
static int cp_names_in(const unsigned char *u8, size_t l, uint64_t *f)
{
    if (!u8)
        return N.ready;
    uint64_t c = l < 64 ? N.by_len[l] : 0;
    for (int r = 0; c; r++, c >>= 1)
        if ((c & 1) && memcmp(u8, A.opts.watch[r].method, l) == 0)
            *f |= (uint64_t)1 << r;
    return 1;
}

/* names_in_bytes's answer from one walk over the constant pool, comparing only the Utf8
 * entries as long as a rule's method name: what most classes cost at load (the JVM hands
 * every class defined while the hook is on to it, CDS-archived ones included). -1 when the
 * bytes are not a constant pool it can walk to its end. */
static int cp_names(const unsigned char *d, size_t n, uint64_t *found)
{
    if (!N.ready || n < 10 || d[0] != 0xca || d[1] != 0xfe || d[2] != 0xba || d[3] != 0xbe)
        return -1;
    cp_walk w = {d, n, 10, 1, (unsigned)d[8] << 8 | d[9]};
    uint64_t f = 0;
    size_t e, l;
    int slots, k;
    const unsigned char *u8;
    while ((k = cp_next(&w, &e, &slots, &u8, &l)) > 0)
        if (u8)
            cp_names_in(u8, l, &f);
    if (k < 0)
        return -1;
    *found = f;
    return 0;
}

/* Steps over the walk's next entry: its offset *e (its tag is d[*e]) and slots (2 for a Long
 * or a Double); a Utf8's bytes in *s and *l, else *s NULL. 1 for an entry, 0 past the last,
 * -1 when the bytes are not a constant pool. The one place that knows the pool's layout, so
 * the load hook's walks cannot disagree on where an entry starts. */
static int cp_next(cp_walk *w, size_t *e, int *slots, const unsigned char **s, size_t *l)
{
    if (w->i >= w->count)
        return 0;
    if (w->at >= w->n)
        return -1;
    *e = w->at;
    *s = NULL;
    unsigned t = w->d[w->at++];
    if (t == 1) {
        if (w->n - w->at < 2)
            return -1;
        size_t len = (size_t)w->d[w->at] << 8 | w->d[w->at + 1];
        w->at += 2;
        if (len > w->n - w->at)
            return -1;
        *s = w->d + w->at;
        *l = len;
        w->at += len;
        *slots = 1;
        w->i++;
        return 1;
    }
    unsigned sz = cp_size(t, slots);
    if (sz == 0 || sz > w->n - w->at)
        return -1;
    w->at += sz;
    w->i += (unsigned)*slots;
    return 1;
}

/* Which rules' method names class-file bytes define as constant-pool strings, as a bit per
 * rule. Most classes name no watched method: this is all they cost at load. */
static uint64_t names_in(const unsigned char *data, jint len)
{
    uint64_t found = 0;
    if (cp_names(data, (size_t)len, &found) == 0)
        return found;
    return names_in_bytes(data, len);
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

void hooks_legacy_add(const char *name)
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
        hooks_legacy_add(name); /* no slot left: retransformed once prepared, as before */
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
                hooks_index_add(name, -(first + 1));
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
 * once (the first few remembered, weakly); an unnamed module reads every module already and
 * is left alone: remembered, it held its loader, and a web application's classes and
 * statics, for the JVM's life (a closed loader read as a leak through the agent's own
 * reference). */
static void module_reads(JNIEnv *env, jclass k)
{
    if (!A.hook_module)
        return;
    jobject mod = (*env)->GetModule(env, k);
    if (!mod)
        return;
    if (A.module_name) {
        jobject name = (*env)->GetObjectField(env, mod, A.module_name);
        if ((*env)->ExceptionCheck(env))
            (*env)->ExceptionClear(env);
        if (!name) {
            (*env)->DeleteLocalRef(env, mod);
            return;
        }
        (*env)->DeleteLocalRef(env, name);
    }
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
            (C.read_by[C.n_read_by] = (*env)->NewWeakGlobalRef(env, mod)))
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
    jbyte rules[WATCH_OPTS_MAX_RULES]; /* rule + 1: 1..WATCH_OPTS_MAX_RULES */
    int n = 0;
    pthread_mutex_lock(&S.lock);
    const char *cls = C.cls[first];
    while (first + n < C.n && n < WATCH_OPTS_MAX_RULES && C.cls[first + n] &&
           strcmp(C.cls[first + n], cls) == 0 && !C.settled[first + n]) {
        C.settled[first + n] = 1;
        n++;
    }
    pthread_mutex_unlock(&S.lock);
    int unwatched = hooks_unwatched(env, k); /* its hooks stay inert */
    for (int i = 0; i < n; i++) {
        rules[i] = 0;
        for (int r = 0; r < A.opts.n_watch && !rules[i] && !unwatched; r++)
            if (strcmp(A.opts.watch[r].method, C.method[first + i]) == 0 &&
                hooks_has_supertype(env, k, A.opts.watch[r].cls, 0))
                rules[i] = (jbyte)(r + 1);
    }
    if (n > 0 && C.called)
        (*env)->SetByteArrayRegion(env, C.called, first, n, rules);
    if ((*env)->ExceptionCheck(env))
        (*env)->ExceptionClear(env);
}

/* The retransformation asked for by hooks_rules_for_class, on the same thread; or, while stamps
 * are on, a class being loaded. */
void JNICALL hooks_class_file_load(jvmtiEnv *ti, JNIEnv *env, jclass being_redefined,
                                   jobject loader, const char *name, jobject pd,
                                   jint len, const unsigned char *data, jint *new_len,
                                   unsigned char **new_data)
{
    if (!being_redefined) {
        uint64_t found = 0;
        int named = 0; /* found answered by the early batch's walk */
        if (S.on && len > 0 && A.early_state != EARLY_DONE && !A.dying)
            named = hooks_early_bytes(name, data, len, &found);
        if (!named)
            found = S.on && len > 0 && !A.disabled && !A.dying ? names_in(data, len) : 0;
        else if (A.disabled || A.dying)
            found = 0;
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
            (!(st & JVMTI_CLASS_STATUS_PREPARED) || stamp_own_field(being_redefined))) {
            stamp_load(ti, name, slot, data, len, names_in(data, len), new_len, new_data);
            return;
        }
        pthread_mutex_lock(&S.lock);
        int e = hooks_index_find(name, strlen(name));
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
void JNICALL hooks_class_prepare(jvmtiEnv *ti, JNIEnv *env, jthread th, jclass k)
{
    if (!A.live || A.disabled || A.dying || !A.can_rules || A.opts.n_watch == 0)
        return;
    char *sig = NULL;
    int e = 0, legacy = 1, window = 0;
    if ((S.on || A.window) &&
        (*A.ti)->GetClassSignature(A.ti, k, &sig, NULL) == JVMTI_ERROR_NONE) {
        size_t l = strlen(sig);
        if (l > 2 && sig[0] == 'L') {
            pthread_mutex_lock(&S.lock);
            e = hooks_index_find(sig + 1, l - 2);
            window = !e && A.window;
            legacy = !e && legacy_has(sig + 1, l - 2);
            pthread_mutex_unlock(&S.lock);
        }
        if (window) {
            if (!in_agent) /* not AppWatcher's own classes, loaded by its resolution */
                window_prepare(env, k, sig);
            (*A.ti)->Deallocate(A.ti, (unsigned char *)sig);
            return;
        }
        if (e)
            module_reads(env, k);
        if (e < 0)
            call_prepare(env, k, -e - 1);
    }
    /* the call slots above first: the early batch's classes may call this one's code */
    if (A.early_state != EARLY_DONE && !in_agent && !A.window && !A.attached)
        early_prepare(env, k, S.on && sig && (e != 0 || !legacy));
    if (e >= 0 && !in_agent) {
        in_agent = 1;
        pending *pd = legacy || e > 0 ? hooks_rules_for_class(env, k) : NULL;
        if (S.on && stamp_prepare(env, k, sig, e > 0, pd)) {
            free(pd);
            pd = NULL;
        }
        if (pd)
            hooks_retransform(env, &pd, 1);
        in_agent = 0;
    }
    if (sig)
        (*A.ti)->Deallocate(A.ti, (unsigned char *)sig);
}
