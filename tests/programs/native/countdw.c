/* countdw.c: a library preloaded into the CLI by native_many_stacks.sh that counts its
 * calls of libdw's dwfl_module_getsrc (one per address the symboliser looks up) and adds a
 * line with the count to the file $LR_COUNT_FILE at exit (each process it is preloaded
 * into, timeout(1) too, adds its own). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef void *(*getsrc_fn)(void *mod, unsigned long addr);
static unsigned long calls;

void *dwfl_module_getsrc(void *mod, unsigned long addr)
{
    static getsrc_fn next;
    if (!next)
        next = (getsrc_fn)dlsym(RTLD_NEXT, "dwfl_module_getsrc");
    calls++;
    return next ? next(mod, addr) : NULL;
}

__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("LR_COUNT_FILE");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (f) {
        fprintf(f, "%lu\n", calls);
        fclose(f);
    }
}
