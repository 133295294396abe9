/* ctorlib.c: a library whose constructor allocates, built as libctorlib.so for ctor.c. The
 * dynamic linker may run it before the monitor's own constructor: the monitor must then
 * recognise these blocks all the same. It keeps one block (ctor_kept, freed by ctor.c) and
 * drops one of 40 bytes (a direct leak). */
#include <stdlib.h>
#include <string.h>

char *ctor_kept;

__attribute__((noinline)) static void ctor_lose(void)
{
    void *p = malloc(40);
    __asm__ volatile("" : : "r"(p) : "memory");
}

__attribute__((constructor)) static void ctor_init(void)
{
    ctor_kept = strdup("allocated by a library constructor");
    ctor_lose();
}
