/* SPDX-License-Identifier: Apache-2.0 */
/* agent_floor.c: the floor of bench/agent.sh's overhead figures, prefix floor_: a JVMTI agent
 * that asks the JVM for what libleakray_agent.so asks for when it starts with the JVM, at the
 * same moments, and does nothing with it: the capabilities can_retransform_classes,
 * can_tag_objects and can_get_constant_pool; the events VMInit, VMDeath, ThreadEnd,
 * ClassPrepare and, until the first class of a class loader other than the boot loader,
 * ClassLoad; from that class on the class-file load hook, under which the JVM reads every
 * class it takes from its class data sharing archive again to hand its bytes over. Every
 * callback returns at once. What the JVM charges for this is what any agent doing the same
 * work pays; the agent's own cost is what it adds above. Built by bench/agent.sh (cc, the
 * JDK's jvmti.h); no part of leakray. */
#include <jvmti.h>
#include <string.h>

static jvmtiEnv *floor_ti;

static void JNICALL floor_vm_init(jvmtiEnv *ti, JNIEnv *env, jthread th)
{
    (*ti)->SetEventNotificationMode(ti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_LOAD, NULL);
}

static void JNICALL floor_vm_death(jvmtiEnv *ti, JNIEnv *env) {}

static void JNICALL floor_thread_end(jvmtiEnv *ti, JNIEnv *env, jthread th) {}

static void JNICALL floor_class_prepare(jvmtiEnv *ti, JNIEnv *env, jthread th, jclass k) {}

/* The first class a class loader other than the boot loader defines turns the load hook on
 * (as the agent's window closes) and ClassLoad off. */
static void JNICALL floor_class_load(jvmtiEnv *ti, JNIEnv *env, jthread th, jclass k)
{
    jobject ld = NULL;
    if ((*ti)->GetClassLoader(ti, k, &ld) != JVMTI_ERROR_NONE || !ld)
        return;
    (*env)->DeleteLocalRef(env, ld);
    (*ti)->SetEventNotificationMode(ti, JVMTI_DISABLE, JVMTI_EVENT_CLASS_LOAD, NULL);
    (*ti)->SetEventNotificationMode(ti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, NULL);
}

static void JNICALL floor_class_file_load(jvmtiEnv *ti, JNIEnv *env, jclass redefined,
                                          jobject loader, const char *name, jobject pd,
                                          jint len, const unsigned char *data, jint *new_len,
                                          unsigned char **new_data)
{
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    if ((*vm)->GetEnv(vm, (void **)&floor_ti, JVMTI_VERSION_1_2) != JNI_OK)
        return JNI_ERR;
    jvmtiCapabilities want;
    memset(&want, 0, sizeof want);
    want.can_retransform_classes = 1;
    want.can_tag_objects = 1;
    want.can_get_constant_pool = 1;
    if ((*floor_ti)->AddCapabilities(floor_ti, &want) != JVMTI_ERROR_NONE)
        return JNI_ERR;
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.VMInit = floor_vm_init;
    cb.VMDeath = floor_vm_death;
    cb.ThreadEnd = floor_thread_end;
    cb.ClassPrepare = floor_class_prepare;
    cb.ClassLoad = floor_class_load;
    cb.ClassFileLoadHook = floor_class_file_load;
    (*floor_ti)->SetEventCallbacks(floor_ti, &cb, sizeof cb);
    static const jvmtiEvent on[] = {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH,
                                    JVMTI_EVENT_THREAD_END, JVMTI_EVENT_CLASS_PREPARE};
    for (size_t i = 0; i < sizeof on / sizeof on[0]; i++)
        (*floor_ti)->SetEventNotificationMode(floor_ti, JVMTI_ENABLE, on[i], NULL);
    return JNI_OK;
}
