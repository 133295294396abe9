/* dlopen.c: loads ./libplugin.so (with RTLD_DEEPBIND unless NO_DEEPBIND), frees one block the
 * plugin made and drops another (1 direct leak, 333 bytes). The path comes from argv[1]. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "scrub.h"

#ifdef NO_DEEPBIND
#define FLAGS (RTLD_NOW | RTLD_LOCAL)
#else
#define FLAGS (RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)
#endif

__attribute__((noinline)) static int run(const char *path)
{
    void *h = dlopen(path, FLAGS);
    if (!h) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    void *(*make)(unsigned long) = (void *(*)(unsigned long))dlsym(h, "plugin_make");
    void (*drop)(void *) = (void (*)(void *))dlsym(h, "plugin_drop");
    void *a = make(111);
    free(a);
    void *b = make(222);
    drop(b);
    escape(make(333));
    return 0;
}

int main(int argc, char **argv)
{
    int rc = run(argc > 1 ? argv[1] : "./libplugin.so");
    scrub();
    return rc;
}
