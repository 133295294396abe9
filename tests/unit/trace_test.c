/* SPDX-License-Identifier: Apache-2.0 */
/* trace_test.c: unit tests of src/analysis/trace.c: Shark's status propagation (everything
 * above the last NO becomes NO "X↓ is not leaking", everything between the first YES and the
 * leaking object becomes YES "Y↑ is leaking", conflicts), the suspect window, and the SHA-1
 * fingerprints, including the worked example of the LeakCanary docs trace
 * (1b4eb1009ab722d19564495a9b3ed511b4969686) and a library-leak pattern fingerprint. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/trace.h"
#include "graph/classname.h"
#include "rules/rules.h"

static void set(trace_elem *e, const char *cls, int ref_type, const char *ref)
{
    memset(e, 0, sizeof *e);
    e->class_name = strdup(cls);
    e->ref_type = (uint8_t)ref_type;
    e->ref_name = ref ? strdup(ref) : NULL;
}

static void clear(trace_elem *el, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        free(el[i].class_name);
        free(el[i].ref_name);
        free(el[i].reason);
    }
}

static void test_docs_fingerprint(void **state)
{
    (void)state;
    trace_elem el[5];
    set(&el[0], "com.example.leakcanary.ExampleApplication", TRACE_REF_INSTANCE, "leakedViews");
    set(&el[1], "java.util.ArrayList", TRACE_REF_INSTANCE, "elementData");
    set(&el[2], "java.lang.Object[]", TRACE_REF_ARRAY, "0");
    set(&el[3], "android.widget.TextView", TRACE_REF_INSTANCE, "mContext");
    set(&el[4], "com.example.leakcanary.MainActivity", TRACE_REF_INSTANCE, NULL);
    char *lk[5] = {"", "", "", "View.mContext references a destroyed activity",
                   "Activity#mDestroyed is true"};
    char *nl[5] = {"Application is a singleton", "", "", "", ""};
    lr_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(trace_statuses(el, 5, lk, nl, &err), LR_OK);
    assert_int_equal(el[0].status, TRACE_NO);
    assert_string_equal(el[0].reason, "Application is a singleton");
    assert_int_equal(el[1].status, TRACE_UNKNOWN);
    assert_int_equal(el[2].status, TRACE_UNKNOWN);
    assert_int_equal(el[3].status, TRACE_YES);
    assert_int_equal(el[4].status, TRACE_YES);
    assert_string_equal(el[4].reason, "Activity#mDestroyed is true");
    int sus[4] = {1, 1, 1, 0};
    for (int i = 0; i < 4; i++)
        assert_int_equal(el[i].suspect, sus[i]);
    char fp[41];
    trace_fingerprint(el, 5, 0, NULL, fp);
    assert_string_equal(fp, "1b4eb1009ab722d19564495a9b3ed511b4969686");
    char d[64];
    trace_ref_display(&el[2], d, sizeof d);
    assert_string_equal(d, "[0]");
    trace_ref_generic(&el[2], d, sizeof d);
    assert_string_equal(d, "[x]");
    clear(el, 5);
}

static void test_library_fingerprint(void **state)
{
    (void)state;
    char fp[41];
    const char *p = "instance field android.app.Activity$1#this$0";
    trace_sha1_hex(p, strlen(p), fp);
    assert_string_equal(fp, "7573873eb76c9b7e8963efe04194842e7e15c8b9");
}

static void test_propagation(void **state)
{
    (void)state;
    /* A(?) B(NO) C(?) D(YES) E(?) F(?, leaking object) */
    trace_elem el[6];
    const char *names[6] = {"a.A", "b.B", "c.C", "d.D", "e.E", "f.F"};
    for (int i = 0; i < 6; i++)
        set(&el[i], names[i], TRACE_REF_INSTANCE, i < 5 ? "f" : NULL);
    char *lk[6] = {"", "", "", "D is done", "", ""};
    char *nl[6] = {"", "B is alive", "", "", "", ""};
    lr_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(trace_statuses(el, 6, lk, nl, &err), LR_OK);
    assert_int_equal(el[0].status, TRACE_NO);
    assert_string_equal(el[0].reason, "B\xe2\x86\x93 is not leaking");
    assert_string_equal(el[1].reason, "B is alive");
    assert_int_equal(el[2].status, TRACE_UNKNOWN);
    assert_int_equal(el[4].status, TRACE_YES);
    assert_string_equal(el[4].reason, "D\xe2\x86\x91 is leaking");
    assert_string_equal(el[5].reason, "This is the leaking object");
    /* suspects: B (NO, next not NO) and C (UNKNOWN); not A (next is NO), not D/E (YES) */
    int sus[5] = {0, 1, 1, 0, 0};
    for (int i = 0; i < 5; i++)
        assert_int_equal(el[i].suspect, sus[i]);
    clear(el, 6);
}

static void test_conflicts(void **state)
{
    (void)state;
    /* X: both reasons, not last -> NO with conflict; last: both -> YES with conflict */
    trace_elem el[3];
    set(&el[0], "p.X", TRACE_REF_STATIC, "s");
    set(&el[1], "p.Y", TRACE_REF_INSTANCE, "g");
    set(&el[2], "p.Z", TRACE_REF_INSTANCE, NULL);
    char *lk[3] = {"x leaks", "", "z leaks"};
    char *nl[3] = {"x fine", "y fine", "z fine"};
    lr_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(trace_statuses(el, 3, lk, nl, &err), LR_OK);
    assert_int_equal(el[0].status, TRACE_NO);
    assert_string_equal(el[0].reason, "Y\xe2\x86\x93 is not leaking and x fine. Conflicts with "
                                      "x leaks");
    assert_int_equal(el[2].status, TRACE_YES);
    assert_string_equal(el[2].reason, "z leaks. Conflicts with z fine");
    /* a last object that only has not-leaking reasons is still the leaking object */
    char *lk2[3] = {"", "", ""};
    char *nl2[3] = {"", "", "z fine"};
    assert_int_equal(trace_statuses(el, 3, lk2, nl2, &err), LR_OK);
    assert_string_equal(el[2].reason, "This is the leaking object. Conflicts with z fine");
    assert_int_equal(el[0].suspect, 1);
    assert_int_equal(el[1].suspect, 1);
    clear(el, 3);
}

static void test_root_descriptions(void **state)
{
    (void)state;
    assert_string_equal(trace_root_description(GRAPH_ROOT_STICKY_CLASS), "System class");
    assert_string_equal(trace_root_description(GRAPH_ROOT_JNI_GLOBAL),
                        "Global variable in native code");
    assert_string_equal(trace_root_description(GRAPH_ROOT_THREAD_OBJECT), "Thread object");
}

static void stable_is(const char *in, const char *want)
{
    char out[128];
    classname_stable(in, out, sizeof out);
    assert_string_equal(out, want);
}

static void test_simple_name(void **state)
{
    (void)state;
    assert_string_equal(rules_simple_name("com.x.Foo$Bar"), "Foo$Bar");
    assert_string_equal(rules_simple_name("java.lang.Object[]"), "Object[]");
    assert_string_equal(rules_simple_name("Shapes$$Lambda$1+0x0000000800c03000"),
                        "Shapes$$Lambda$1+0x0000000800c03000");
    /* names no JVM writes stay whole (cut at the last dot, a page read "com:38411") */
    assert_string_equal(rules_simple_name("Window / http://app.example.com:38411"),
                        "Window / http://app.example.com:38411");
    assert_string_equal(rules_simple_name("{store, cache.store}"), "{store, cache.store}");
}

static void test_stable_class(void **state)
{
    (void)state;
    /* lambdas as JDK 8, 17 (HPROF writes the hidden class's "/" as "+") and 21 name them */
    stable_is("com.x.Foo$$Lambda$3/1831932724", "com.x.Foo$$Lambda");
    stable_is("probe.Shapes$$Lambda$1+0x00007f0c8c000400", "probe.Shapes$$Lambda");
    stable_is("Foo$$Lambda/0x000001000108a000", "Foo$$Lambda");
    stable_is("Foo$$Lambda$14+0x0000000800c03000[]", "Foo$$Lambda[]");
    stable_is("Foo$$Lambda", "Foo$$Lambda");
    stable_is("Foo$$Lambda$3.1831932724", "Foo$$Lambda");
    /* Android's desugared lambdas are named by a hash or an index: stable already */
    stable_is("com.x.-$$Lambda$MainActivity$x8KfA2", "com.x.-$$Lambda$MainActivity$x8KfA2");
    stable_is("com.x.Main$$ExternalSyntheticLambda0", "com.x.Main$$ExternalSyntheticLambda0");
    stable_is("Foo$$Lambda$12", "Foo$$Lambda$12");
    /* other hidden classes lose the address only; proxies their numbers */
    stable_is("java.lang.invoke.LambdaForm$MH+0x0000000800c0c400",
              "java.lang.invoke.LambdaForm$MH");
    stable_is("Hid/0xABCdef01$Inner", "Hid$Inner");
    stable_is("jdk.proxy2.$Proxy12", "jdk.proxy.$Proxy");
    stable_is("com.sun.proxy.$Proxy7[][]", "com.sun.proxy.$Proxy[][]");
    /* code generators' names drawn anew in each run: the marker stays */
    stable_is("com.x.Order$HibernateProxy$a5oviGjW", "com.x.Order$HibernateProxy$");
    stable_is("com.x.Svc$ByteBuddy$Xy12ab34[]", "com.x.Svc$ByteBuddy$[]");
    stable_is("com.x.Repo$MockitoMock$1234567890", "com.x.Repo$MockitoMock$");
    stable_is("com.x.Svc$$EnhancerBySpringCGLIB$$1a2b3c4d", "com.x.Svc$$EnhancerBySpringCGLIB$$");
    stable_is("com.x.Svc$$SpringCGLIB$$0", "com.x.Svc$$SpringCGLIB$$");
    stable_is("com.x.Svc$$FastClassBySpringCGLIB$$9f8e$Inner",
              "com.x.Svc$$FastClassBySpringCGLIB$$$Inner");
    stable_is("com.x.Dao_$$_jvst1a2_0", "com.x.Dao_$$_jvst");
    stable_is("com.x.Dao$ByteBuddy$", "com.x.Dao$ByteBuddy$");
    /* a page's global object without the page's address */
    stable_is("Window / http://app.example.com:38411", "Window / ");
    stable_is("Window [JSGlobalObject] / https://h:1/p.html[]", "Window [JSGlobalObject] / []");
    stable_is("Object / ", "Object / ");
    stable_is("system / Context", "system / Context");
    /* a closure scope's number, which Chromium draws per run, at the end of a name */
    stable_is("system / Context / scope @96363", "system / Context / scope");
    stable_is("system / Context / scope @7[]", "system / Context / scope[]");
    stable_is("a @12 b", "a @12 b");
    stable_is("a @", "a @");
    stable_is("a @x1", "a @x1");
    /* everything else as it is, hostile or not */
    stable_is("java.util.HashMap$Node[]", "java.util.HashMap$Node[]");
    stable_is("a+0x", "a+0x");
    stable_is("a+0xg", "a+0xg");
    stable_is("$Proxy", "$Proxy");
    stable_is("my.jdk.proxy3.X", "my.jdk.proxy3.X");
    stable_is("", "");
    char tiny[4];
    classname_stable("abcdef", tiny, sizeof tiny);
    assert_string_equal(tiny, "abc");
    classname_stable(NULL, tiny, sizeof tiny);
    assert_string_equal(tiny, "");
}

/* What --watch, --class and `instances` match a stable name against: every spelling of a
 * lambda class (JDK 8's has no "0x"), a proxy of any module, the name itself; never
 * another class or a prefix. */
static void test_stable_is(void **state)
{
    (void)state;
    assert_true(classname_stable_is("com.x.Foo$$Lambda$3/1831932724", "com.x.Foo$$Lambda"));
    assert_true(classname_stable_is("Foo$$Lambda$14+0x0000000800c03000", "Foo$$Lambda"));
    assert_true(classname_stable_is("Foo$$Lambda/0x000001000108a000", "Foo$$Lambda"));
    assert_true(classname_stable_is("jdk.proxy2.$Proxy12", "jdk.proxy.$Proxy"));
    assert_true(classname_stable_is("Foo$$Lambda", "Foo$$Lambda"));
    assert_true(classname_stable_is("java.util.HashMap", "java.util.HashMap"));
    assert_false(classname_stable_is("Bar$$Lambda$3/1831932724", "Foo$$Lambda"));
    assert_false(classname_stable_is("Foo$$Lambda$3/1831932724[]", "Foo$$Lambda"));
    assert_false(classname_stable_is("java.util.HashMap", "java.util.Hash"));
    assert_false(classname_stable_is(NULL, "Foo"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_docs_fingerprint),
        cmocka_unit_test(test_library_fingerprint),
        cmocka_unit_test(test_propagation),
        cmocka_unit_test(test_conflicts),
        cmocka_unit_test(test_root_descriptions),
        cmocka_unit_test(test_stable_class),
        cmocka_unit_test(test_stable_is),
        cmocka_unit_test(test_simple_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
