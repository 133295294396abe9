/* SPDX-License-Identifier: Apache-2.0 */
/* path_api_test.c: lr_path_to (include/leakray/analysis.h) on an HPROF dump written here in
 * memory, the smallest case of a driver registered from its own class loader: a JNI global
 * holds a registry, the registry holds a driver instance, and only the driver's class (named
 * by id in its record, held by no field) keeps the driver's class and its loader alive. The
 * library's path must reach the class and the loader through the instance, as `leakray path`
 * does, and agree with the library's dominators, which count that hold. Public headers only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "leakray/analysis.h"
#include "leakray/leakray.h"

#include <stdlib.h>
#include <string.h>

typedef struct out {
    uint8_t *p;
    size_t n, cap;
} out;

static void put(out *b, const void *s, size_t n)
{
    if (n == 0) /* an empty record body has no bytes (and may be a NULL pointer) */
        return;
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

/* HPROF integers are big-endian; ids here are 8 bytes. */
static void be(out *b, uint64_t v, int bytes)
{
    uint8_t s[8];
    for (int i = 0; i < bytes; i++)
        s[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
    put(b, s, (size_t)bytes);
}

static void record(out *b, uint8_t tag, const out *body)
{
    be(b, tag, 1);
    be(b, 0, 4);
    be(b, body->n, 4);
    put(b, body->p, body->n);
}

static void utf8(out *b, uint64_t sid, const char *s)
{
    out r = {0};
    be(&r, sid, 8);
    put(&r, s, strlen(s));
    record(b, 0x01, &r);
    free(r.p);
}

static void load_class(out *b, uint32_t serial, uint64_t cid, uint64_t name)
{
    out r = {0};
    be(&r, serial, 4);
    be(&r, cid, 8);
    be(&r, 0, 4);
    be(&r, name, 8);
    record(b, 0x02, &r);
    free(r.p);
}

/* CLASS_DUMP: no statics; one object field named `field` when field is nonzero. */
static void class_dump(out *s, uint64_t cid, uint64_t super, uint64_t loader, uint64_t field)
{
    be(s, 0x20, 1);
    be(s, cid, 8);
    be(s, 0, 4);
    be(s, super, 8);
    be(s, loader, 8);
    for (int k = 0; k < 4; k++) /* signers, protection domain, two reserved */
        be(s, 0, 8);
    be(s, field ? 8 : 0, 4); /* instance size */
    be(s, 0, 2);             /* constant pool */
    be(s, 0, 2);             /* statics */
    be(s, field ? 1 : 0, 2);
    if (field) {
        be(s, field, 8);
        be(s, 2, 1); /* object */
    }
}

/* INSTANCE_DUMP with one object field (ref) or none (ref == UINT64_MAX). */
static void instance(out *s, uint64_t oid, uint64_t cid, uint64_t ref)
{
    be(s, 0x21, 1);
    be(s, oid, 8);
    be(s, 0, 4);
    be(s, cid, 8);
    be(s, ref == UINT64_MAX ? 0 : 8, 4);
    if (ref != UINT64_MAX)
        be(s, ref, 8);
}

enum { OBJECT = 0x100, LOADER_C = 0x200, DRIVER_C = 0x300, REGISTRY_C = 0x400 };
enum { LOADER = 0x1000, DRIVER = 0x2000, REGISTRY = 0x3000 };

static out driver_dump(void)
{
    out b = {0}, s = {0}, e = {0};
    put(&b, "JAVA PROFILE 1.0.2", 19);
    be(&b, 8, 4);
    be(&b, 1700000000000ull, 8);
    utf8(&b, 1, "java.lang.Object");
    utf8(&b, 2, "java.lang.ClassLoader");
    utf8(&b, 3, "FakeDriver");
    utf8(&b, 4, "Registry");
    utf8(&b, 5, "driver");
    load_class(&b, 1, OBJECT, 1);
    load_class(&b, 2, LOADER_C, 2);
    load_class(&b, 3, DRIVER_C, 3);
    load_class(&b, 4, REGISTRY_C, 4);
    class_dump(&s, OBJECT, 0, 0, 0);
    class_dump(&s, LOADER_C, OBJECT, 0, 0);
    class_dump(&s, DRIVER_C, OBJECT, LOADER, 0); /* defined by the loader instance */
    class_dump(&s, REGISTRY_C, OBJECT, 0, 5);
    instance(&s, LOADER, LOADER_C, UINT64_MAX);
    instance(&s, DRIVER, DRIVER_C, UINT64_MAX);
    instance(&s, REGISTRY, REGISTRY_C, DRIVER);
    /* boot classes are sticky; FakeDriver's class is not (its loader is no boot loader) */
    static const uint64_t sticky[] = {OBJECT, LOADER_C, REGISTRY_C};
    for (size_t i = 0; i < sizeof sticky / sizeof *sticky; i++) {
        be(&s, 0x05, 1);
        be(&s, sticky[i], 8);
    }
    be(&s, 0x01, 1); /* JNI global: the registry */
    be(&s, REGISTRY, 8);
    be(&s, 0x77, 8);
    record(&b, 0x0c, &s);
    record(&b, 0x2c, &e);
    free(s.p);
    return b;
}

static void class_and_loader_through_instance(void **state)
{
    (void)state;
    out d = driver_dump();
    lr_heap *h = NULL;
    lr_error err = {0};
    assert_int_equal(lr_open_memory(d.p, d.n, "driver.hprof", NULL, &h, &err), LR_OK);
    lr_object reg = lr_object_find(h, REGISTRY), drv = lr_object_find(h, DRIVER);
    lr_object loader = lr_object_find(h, LOADER);
    lr_object cls = lr_class_object(h, lr_object_class(h, drv));
    assert_true(reg != LR_NONE && drv != LR_NONE && loader != LR_NONE && cls != LR_NONE);

    /* the dominators count the JVM's hold: the driver keeps its class, the class its loader */
    lr_object top[8];
    uint32_t n = 0;
    assert_int_equal(lr_top_objects(h, 8, top, &n, &err), LR_OK);
    assert_int_equal(lr_object_dominator(h, loader), cls);
    assert_int_equal(lr_object_dominator(h, cls), drv);

    /* the path: registry -> driver -> its class -> the class's loader */
    lr_object path[8];
    uint32_t len = 0;
    assert_int_equal(lr_path_to(h, loader, path, 8, &len, &err), LR_OK);
    assert_int_equal(len, 4);
    assert_int_equal(path[0], reg);
    assert_int_equal(path[1], drv);
    assert_int_equal(path[2], cls);
    assert_int_equal(path[3], loader);
    assert_int_equal(lr_path_to(h, cls, path, 8, &len, &err), LR_OK);
    assert_int_equal(len, 3);
    assert_int_equal(path[2], cls);
    /* a field path is still preferred: the driver is reached through the registry's field */
    assert_int_equal(lr_path_to(h, drv, path, 8, &len, &err), LR_OK);
    assert_int_equal(len, 2);
    assert_int_equal(path[0], reg);
    lr_close(h);
    free(d.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(class_and_loader_through_instance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
