/* unload.c: loads the plugin unplug.c builds (its path is argv[1]), lets it lose three blocks
 * from two sites (111 bytes twice at site_a, 222 at site_b) on behalf of two callers of this
 * program, and dlclose()s it before exit: at the scan the plugin's code is mapped nowhere,
 * and each backtrace starts with two frames in it. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "scrub.h"

typedef void *(*make_fn)(int which);

__attribute__((noinline)) static void lose_a(make_fn make)
{
    escape(make(0));
    escape(make(0));
}

__attribute__((noinline)) static void lose_b(make_fn make)
{
    escape(make(1));
}

int main(int argc, char **argv)
{
    void *h = dlopen(argc > 1 ? argv[1] : "./libunplug.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    make_fn make = (make_fn)dlsym(h, "plug_make");
    if (!make)
        return 1;
    lose_a(make);
    lose_b(make);
    dlclose(h);
    scrub();
    return 0;
}
