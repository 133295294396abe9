/* SPDX-License-Identifier: Apache-2.0 */
/* agent_stamp.c: the JVM agent's stamps (agents layer), prefix stamp_. An application
 * class loaded after the agent started with the JVM that declares a watched method gets an
 * int field and, before each return of that method, the agent's epoch stored there (the
 * rewrite is rewrite.c's); at preparation the agent checks the rule's type is a supertype.
 * The agent's thread advances the epoch, and once an epoch with activity is delay_ms old,
 * runs a GC and a heap walk over the stamped classes' instances and watches those stamped
 * then (stamp_tick). State S in agent_internal.h; the call hook is agent_hooks.c's. */
#define _GNU_SOURCE
#include "agent_internal.h"

stamp_state S = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* ---- stamps: the agent thread's side ---- */

/* A clock value by which every object stamped e had returned: when epoch e + 1 began (the
 * epoch is read before ACTIVE is set, and AppWatcher gets e + 1 after the clock is read), or
 * the oldest start remembered, which is later still. Never early, at most AGENT_SEAL_MS
 * late (more when the thread is starved). */
static uint64_t stamp_upper(jint e)
{
    jint nx = e + 1;
    if (nx > S.cur)
        return agent_clock_ms();
    if (S.cur - nx > STAMP_RING - 2)
        nx = S.cur - (STAMP_RING - 2);
    return S.at[nx % STAMP_RING];
}

/* Starts the next epoch and hands it to AppWatcher. */
void stamp_advance(JNIEnv *env, uint64_t now)
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
void stamp_tick(JNIEnv *env)
{
    if (!S.on || A.disabled)
        return;
    uint64_t now = agent_clock_ms();
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
                S.dirty_need = S.cur;
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
    /* a scan of only the epoch before the activity's (due one tick sooner) found nothing
     * and pushed the real one back by the back-off below: 10 s on a 300 MB heap */
    if (e < S.dirty_lo || e < S.dirty_need)
        return;
    stamp_scan(env, e);
    /* a scan is a full GC and a heap walk: the next waits 100 times this one's duration
     * (capped at delay-ms, a multi-GB heap spent a third of its time in these pauses), so
     * scans cost about 1 % of the time; stamps wait in their objects, as long as the ring
     * remembers their epochs' times */
    uint64_t gap = (agent_clock_ms() - now) * STAMP_SCAN_SHARE;
    uint64_t most = (uint64_t)(STAMP_RING - 16) * AGENT_SEAL_MS;
    S.next_scan = now + (gap < AGENT_SEAL_MS ? AGENT_SEAL_MS : gap > most ? most : gap);
    S.scanned = e;
    if (S.dirty_hi > e) {
        S.dirty_lo = e + 1;
        S.dirty_need = S.dirty_hi;
    } else {
        S.dirty = 0;
    }
}

/* ---- stamps: class loading and preparation ---- */

/* A class being defined (not redefined) by a class loader other than the boot loader:
 * if it declares a method a rule names (any descriptor; whether the rule's type is among its
 * supertypes is only known once it is prepared), it gets a slot, the stamp field and the
 * stamp hook. Under S.lock: the slot is taken only if the rewrite succeeded. */
int stamp_load(jvmtiEnv *ti, const char *name, int again, const unsigned char *data,
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
        hooks_index_add(name, slot + 1);
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

/* k's own stamp field, or NULL. */
jfieldID stamp_own_field(jclass k)
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
int stamp_prepare(JNIEnv *env, jclass k, const char *sig, int named, const pending *pd)
{
    /* No class stamped yet (every class a start-up prepares, mostly): no superclass of k's
     * is one (a superclass is prepared, and tagged, before its subclasses), and k becomes
     * one only with a field of its own. Three JNI and JVMTI calls less per class. */
    if (!named && S.n_cls == 0)
        return 0;
    jlong sup_tag = 0;
    jclass sup = (*env)->GetSuperclass(env, k);
    if (sup) {
        (*A.ti)->GetTag(A.ti, sup, &sup_tag);
        (*env)->DeleteLocalRef(env, sup);
    }
    jfieldID own = named && sig ? stamp_own_field(k) : NULL;
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

/* Sets stamps and load-time call hooks up (AppWatcher's epoch and arrays, the rules' names
 * for the load hook's filter); stamp_on turns them on. Started with the JVM only: attached,
 * the application's classes are loaded already. Returns 1 when they can be turned on. */
int stamp_start(JNIEnv *env)
{
    if (!A.can_tag || A.attached || A.hook_loader)
        return 0;
    S.epoch_f = (*env)->GetStaticFieldID(env, A.watcher, "epoch", "I");
    jfieldID af = S.epoch_f ? (*env)->GetStaticFieldID(env, A.watcher, "ACTIVE", "[B") : NULL;
    jobject arr = af ? (*env)->GetStaticObjectField(env, A.watcher, af) : NULL;
    if (arr && (*env)->GetArrayLength(env, arr) == STAMP_SLOTS)
        S.active = (*env)->NewGlobalRef(env, arr);
    if (arr)
        (*env)->DeleteLocalRef(env, arr);
    jfieldID cf = S.active ? (*env)->GetStaticFieldID(env, A.watcher, "CALLED", "[B") : NULL;
    jobject ca = cf ? (*env)->GetStaticObjectField(env, A.watcher, cf) : NULL;
    if (ca && (*env)->GetArrayLength(env, ca) == CALL_SLOTS)
        C.called = (*env)->NewGlobalRef(env, ca);
    if (ca)
        (*env)->DeleteLocalRef(env, ca);
    if (!S.active || !C.called) { /* an older jar: the call hook does the job */
        (*env)->ExceptionClear(env);
        return 0;
    }
    stamp_advance(env, agent_clock_ms());
    hooks_names_init();
    return 1;
}

/* Turns stamps and load-time call hooks on for the classes loaded from now on (the load
 * hook: every class the JVM defines, CDS-archived ones included, is handed to it as bytes).
 * Any thread; once. */
void stamp_on(void)
{
    if (!S.active || !C.called) /* stamp_start found no arrays, or never ran */
        return;
    pthread_mutex_lock(&A.hook_lock);
    S.on = 1;
    if (A.hook_users == 0)
        (*A.ti)->SetEventNotificationMode(A.ti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK,
                                          NULL);
    pthread_mutex_unlock(&A.hook_lock);
}
