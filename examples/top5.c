/* SPDX-License-Identifier: Apache-2.0 */
/* top5.c: the five objects that retain the most memory in a heap dump, with their class,
 * id, shallow and retained bytes, and the shortest path that keeps the biggest alive.
 * usage: top5 DUMP   (HPROF or V8 .heapsnapshot; exit 3 when the dump is unreadable) */
#include <leakray/analysis.h>

#include <inttypes.h>
#include <stdio.h>

/* "class Foo" for a class object (its statics are what it retains), else the object's class. */
static const char *label(const lr_heap *h, lr_object o, char *buf, size_t cap)
{
    lr_class c = lr_object_describes(h, o);
    if (c == LR_NONE)
        return lr_object_class_name(h, o);
    snprintf(buf, cap, "class %s", lr_class_name(h, c));
    return buf;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DUMP\n", argv[0]);
        return 2;
    }
    lr_error err = {0};
    lr_heap *h;
    if (lr_open(argv[1], NULL, &h, &err) != LR_OK) {
        fprintf(stderr, "top5: %s\n", err.msg);
        return lr_exit_code(err.code);
    }
    lr_object top[5];
    uint32_t n = 0;
    if (lr_top_objects(h, 5, top, &n, &err) != LR_OK) {
        fprintf(stderr, "top5: %s\n", err.msg);
        lr_close(h);
        return lr_exit_code(err.code);
    }
    printf("%s heap, %u objects, %" PRIu64 " bytes reachable (leakray %s)\n", lr_heap_format(h),
           lr_object_count(h), lr_reachable_bytes(h), lr_version());
    char buf[512];
    for (uint32_t i = 0; i < n; i++)
        printf("%u. 0x%" PRIx64 " %s shallow %" PRIu64 " retained %" PRIu64 "\n", i + 1,
               lr_object_id(h, top[i]), label(h, top[i], buf, sizeof buf),
               lr_object_shallow(h, top[i]), lr_object_retained(h, top[i]));
    if (n > 0) {
        lr_object path[64];
        uint32_t len = 0;
        if (lr_path_to(h, top[0], path, 64, &len, &err) == LR_OK) {
            printf("path to #1:");
            for (uint32_t i = 0; i < len && i < 64; i++)
                printf(" %s%s", i ? "-> " : "", label(h, path[i], buf, sizeof buf));
            printf("\n");
        }
    }
    lr_close(h);
    return 0;
}
