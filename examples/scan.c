/* SPDX-License-Identifier: Apache-2.0 */
/* scan.c: an in-process scanner handing its object graph to libleakray with lr_builder
 * (leakray/builder.h) instead of writing a dump. The graph is an app's: a window shows one
 * live screen, a dismissed screen should be gone, but the block it registered with the
 * notification centre still captures it (a retain cycle would be held the same way). The
 * scanner knows which screen was dismissed, so it watches that object; the program prints
 * the three biggest objects by retained size and the leak trace of the dismissed screen.
 *
 *   usage: scan            (exit 0 when no leak is found, 1 when one is, 3 on an error) */
#include <leakray/analysis.h>
#include <leakray/builder.h>

#include <stdio.h>

enum { C_APP = 1, C_WINDOW, C_SCREEN, C_CENTER, C_ARRAY, C_BLOCK, C_IMAGE };
enum { APP = 0x1000, WINDOW, LIVE, DISMISSED, CENTER, OBSERVERS, BLOCK, IMG_LIVE, IMG_GONE };

static int fail(const lr_error *err)
{
    fprintf(stderr, "scan: %s\n", err->msg);
    return 3;
}

/* The scanned app: ids are the objects' addresses in a real scanner. */
static lr_status scan(lr_builder *b, lr_error *err)
{
    static const struct { uint64_t id; const char *name; } classes[] = {
        {C_APP, "App"}, {C_WINDOW, "Window"}, {C_SCREEN, "CheckoutScreen"},
        {C_CENTER, "NotificationCenter"}, {C_ARRAY, "Array"}, {C_BLOCK, "Block"},
        {C_IMAGE, "Image"}};
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
        lr_status st = lr_builder_add_class(b, classes[i].id, classes[i].name, LR_BUILDER_NONE,
                                            err);
        if (st != LR_OK)
            return st;
    }
    const struct { uint64_t id, cls; lr_kind kind; uint64_t size; const char *label; } nodes[] = {
        {APP, C_APP, LR_KIND_INSTANCE, 64, NULL},
        {WINDOW, C_WINDOW, LR_KIND_INSTANCE, 128, "main"},
        {LIVE, C_SCREEN, LR_KIND_INSTANCE, 256, "cart"},
        {DISMISSED, C_SCREEN, LR_KIND_INSTANCE, 256, "payment"},
        {CENTER, C_CENTER, LR_KIND_INSTANCE, 48, NULL},
        {OBSERVERS, C_ARRAY, LR_KIND_OBJ_ARRAY, 32, NULL},
        {BLOCK, C_BLOCK, LR_KIND_CLOSURE, 40, "onKeyboardShown"},
        {IMG_LIVE, C_IMAGE, LR_KIND_PRIM_ARRAY, 100000, "cart.png"},
        {IMG_GONE, C_IMAGE, LR_KIND_PRIM_ARRAY, 300000, "card.png"}};
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
        lr_status st = lr_builder_add_node(b, nodes[i].id, nodes[i].cls, nodes[i].kind,
                                           nodes[i].size, nodes[i].label, err);
        if (st != LR_OK)
            return st;
    }
    lr_status st = LR_OK;
    if (st == LR_OK)
        st = lr_builder_add_edge(b, APP, WINDOW, "window", LR_REF_STRONG, err);
    if (st == LR_OK)
        st = lr_builder_add_edge(b, WINDOW, LIVE, "rootScreen", LR_REF_STRONG, err);
    if (st == LR_OK)
        st = lr_builder_add_edge(b, LIVE, IMG_LIVE, "banner", LR_REF_STRONG, err);
    if (st == LR_OK) /* the dismissed screen's way back to the window is weak */
        st = lr_builder_add_edge(b, DISMISSED, WINDOW, "window", LR_REF_WEAK, err);
    if (st == LR_OK)
        st = lr_builder_add_edge(b, DISMISSED, IMG_GONE, "cardImage", LR_REF_STRONG, err);
    if (st == LR_OK)
        st = lr_builder_add_edge(b, CENTER, OBSERVERS, "observers", LR_REF_STRONG, err);
    if (st == LR_OK)
        st = lr_builder_add_element(b, OBSERVERS, BLOCK, 0, LR_REF_STRONG, err);
    if (st == LR_OK) /* the block captured `self` strongly: the leak */
        st = lr_builder_add_edge(b, BLOCK, DISMISSED, "self", LR_REF_STRONG, err);
    if (st == LR_OK)
        st = lr_builder_add_root(b, APP, LR_ROOT_GLOBAL, err);
    if (st == LR_OK)
        st = lr_builder_add_root(b, CENTER, LR_ROOT_STATIC, err);
    return st;
}

int main(void)
{
    lr_error err = {0};
    lr_builder *b;
    lr_heap *h;
    if (lr_builder_new("app-scan", &b, &err) != LR_OK)
        return fail(&err);
    if (scan(b, &err) != LR_OK) {
        lr_builder_free(b);
        return fail(&err);
    }
    if (lr_builder_finish(b, &h, &err) != LR_OK)
        return fail(&err);
    printf("%s heap, %u objects, %llu references, %u roots\n", lr_heap_format(h),
           lr_object_count(h), (unsigned long long)lr_reference_count(h), lr_root_count(h));

    lr_object top[3];
    uint32_t n = 0;
    if (lr_top_objects(h, 3, top, &n, &err) != LR_OK) {
        lr_close(h);
        return fail(&err);
    }
    for (uint32_t i = 0; i < n; i++)
        printf("top %u. 0x%llx %s %llu\n", i + 1, (unsigned long long)lr_object_id(h, top[i]),
               lr_object_class_name(h, top[i]),
               (unsigned long long)lr_object_retained(h, top[i]));

    /* The scanner knows the dismissed screen: watch it by id (decimal in expressions). */
    char cond[64];
    snprintf(cond, sizeof cond, "@id == %llu", (unsigned long long)DISMISSED);
    const char *watch[] = {"CheckoutScreen"}, *leaking_if[] = {cond};
    lr_analyze_opts ao = {0};
    ao.watch = watch;
    ao.leaking_if = leaking_if;
    ao.n_watch = 1;
    ao.no_shipped_rules = 1;
    lr_analysis *an;
    if (lr_analyze(h, &ao, &an, &err) != LR_OK) {
        lr_close(h);
        return fail(&err);
    }
    uint32_t traces = lr_analysis_trace_count(an);
    for (uint32_t t = 0; t < traces; t++) {
        lr_trace tr;
        if (lr_analysis_trace(an, t, &tr, &err) != LR_OK)
            break;
        printf("leak: %s, GC root %s\n", lr_object_class_name(h, tr.leaking), tr.gc_root);
        for (uint32_t j = 0; j < tr.n_steps; j++) {
            lr_trace_step s;
            if (lr_analysis_step(an, t, j, &s, &err) != LR_OK)
                break;
            printf("  %s 0x%llx%s%s%s\n", s.class_name,
                   (unsigned long long)lr_object_id(h, s.object),
                   s.leaking == LR_LEAKING_YES ? " (leaking)" : "",
                   *s.reference ? " -> " : "", s.reference);
        }
    }
    lr_analysis_free(an);
    lr_close(h);
    return err.code != LR_OK ? fail(&err) : traces ? 1 : 0;
}
