/* SPDX-License-Identifier: Apache-2.0 */
/* agent_weak.c: the floor of holding each watched object weakly through JNI, prefix weak_: a
 * JVMTI agent for bench/agent.sh's section w, loaded with the shim leakray.AppWatcher of
 * tests/programs/bench/weak/ (same entry point as the real one, whose expectWeaklyReachable
 * makes one native call per object, hold). What hold does is the agent's option:
 *   call   nothing: the JNI transition into native code and back alone;
 *   weak   NewWeakGlobalRef, the handle stored in a plain C array, never deleted;
 *   sweep  the same, and a thread that every 100 ms deletes the handles whose referent is gone
 *          (IsSameObject(ref, NULL)), as libleakray_agent.so's tick does;
 *   tag    JVMTI SetTag instead of a weak reference, ObjectFree events on (the JVM's tag map
 *          holds the object weakly and says when it died).
 * No key, no clock, no lock on the watching thread: no design that holds each object weakly
 * through JNI or JVMTI does less per object, so each figure is what the JVM charges for it.
 * Built by bench/agent.sh (cc, the JDK's jvmti.h); no part of leakray. */
#include <jvmti.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { WEAK_CALL, WEAK_REF, WEAK_SWEEP, WEAK_TAG };

/* Past this many handles hold drops the object: far above any run of the bench (100,000
 * watches; the pages of the array are touched only as it fills). */
#define WEAK_CAP (1u << 22)

static jvmtiEnv *weak_ti;
static jrawMonitorID weak_mon;
static int weak_mode;
static jweak *weak_slots;
/* Written by the watching thread (release) after its slot; the sweep reads it (acquire) and
 * then owns every slot below it. One watching thread, as in the bench's program. */
static atomic_uint weak_count;

JNIEXPORT void JNICALL Java_leakray_AppWatcher_hold(JNIEnv *env, jclass k, jobject obj)
{
    (void)k;
    if (weak_mode == WEAK_CALL)
        return;
    if (weak_mode == WEAK_TAG) {
        (*weak_ti)->SetTag(weak_ti, obj, 1);
        return;
    }
    unsigned n = atomic_load_explicit(&weak_count, memory_order_relaxed);
    if (n >= WEAK_CAP)
        return;
    weak_slots[n] = (*env)->NewWeakGlobalRef(env, obj);
    atomic_store_explicit(&weak_count, n + 1, memory_order_release);
}

/* The sweep thread: waits on a raw monitor (the JVM counts the thread as blocked, so its exit
 * does not wait for it as it would for a thread in native code), then deletes the handles of
 * the objects gone. Slots below lo are all empty. */
static void JNICALL weak_sweep(jvmtiEnv *ti, JNIEnv *env, void *arg)
{
    (void)arg;
    unsigned lo = 0;
    for (;;) {
        (*ti)->RawMonitorEnter(ti, weak_mon);
        (*ti)->RawMonitorWait(ti, weak_mon, 100);
        (*ti)->RawMonitorExit(ti, weak_mon);
        unsigned n = atomic_load_explicit(&weak_count, memory_order_acquire);
        for (unsigned i = lo; i < n; i++) {
            if (weak_slots[i] && (*env)->IsSameObject(env, weak_slots[i], NULL)) {
                (*env)->DeleteWeakGlobalRef(env, weak_slots[i]);
                weak_slots[i] = NULL;
            }
        }
        while (lo < n && !weak_slots[lo])
            lo++;
    }
}

static void JNICALL weak_vm_init(jvmtiEnv *ti, JNIEnv *env, jthread th)
{
    (void)th;
    jclass tc = (*env)->FindClass(env, "java/lang/Thread");
    jmethodID init = tc ? (*env)->GetMethodID(env, tc, "<init>", "()V") : NULL;
    jobject t = init ? (*env)->NewObject(env, tc, init) : NULL;
    if (t)
        (*ti)->RunAgentThread(ti, t, weak_sweep, NULL, JVMTI_THREAD_NORM_PRIORITY);
}

static void JNICALL weak_object_free(jvmtiEnv *ti, jlong tag)
{
    (void)ti;
    (void)tag;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    static const char *const modes[] = {"call", "weak", "sweep", "tag"};
    weak_mode = -1;
    for (int i = 0; i < 4; i++)
        if (options && !strcmp(options, modes[i]))
            weak_mode = i;
    if (weak_mode < 0 || (*vm)->GetEnv(vm, (void **)&weak_ti, JVMTI_VERSION_1_2) != JNI_OK)
        return JNI_ERR;
    if (weak_mode == WEAK_REF || weak_mode == WEAK_SWEEP) {
        weak_slots = calloc(WEAK_CAP, sizeof *weak_slots);
        if (!weak_slots)
            return JNI_ERR;
    }
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    if (weak_mode == WEAK_TAG) {
        jvmtiCapabilities want;
        memset(&want, 0, sizeof want);
        want.can_tag_objects = 1;
        want.can_generate_object_free_events = 1;
        if ((*weak_ti)->AddCapabilities(weak_ti, &want) != JVMTI_ERROR_NONE)
            return JNI_ERR;
        cb.ObjectFree = weak_object_free;
    }
    if (weak_mode == WEAK_SWEEP) {
        if ((*weak_ti)->CreateRawMonitor(weak_ti, "weak_sweep", &weak_mon) != JVMTI_ERROR_NONE)
            return JNI_ERR;
        cb.VMInit = weak_vm_init;
    }
    (*weak_ti)->SetEventCallbacks(weak_ti, &cb, sizeof cb);
    if (weak_mode == WEAK_TAG)
        (*weak_ti)->SetEventNotificationMode(weak_ti, JVMTI_ENABLE, JVMTI_EVENT_OBJECT_FREE, NULL);
    if (weak_mode == WEAK_SWEEP)
        (*weak_ti)->SetEventNotificationMode(weak_ti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
    return JNI_OK;
}
