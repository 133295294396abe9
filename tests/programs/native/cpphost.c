/* cpphost.c: a C program (no C++ runtime of its own) that loads a C++ plugin the way CPython
 * loads an extension module: dlopen without RTLD_GLOBAL, so the plugin's C++ runtime sits in
 * a local scope. The plugin loses one 72-byte object made with new and deletes another. */
#include <dlfcn.h>
#include <stdio.h>
#include "scrub.h"

int main(int argc, char **argv)
{
    void *h = dlopen(argc > 1 ? argv[1] : "./libcppplug.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    int (*run)(void) = (int (*)(void))dlsym(h, "cppplug_run");
    if (!run)
        return 3;
    fprintf(stderr, "plugin: %d\n", run());
    scrub();
    return 0;
}
