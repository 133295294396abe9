/* unplug.c: the library unload.c loads and unloads. Its two allocation sites are reached
 * through its own plug_make, so two frames of each backtrace are in the library. */
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static void *site_a(void)
{
    void *p = malloc(111);
    if (p)
        memset(p, 'a', 111);
    return p;
}

__attribute__((noinline)) static void *site_b(void)
{
    void *p = malloc(222);
    if (p)
        memset(p, 'b', 222);
    return p;
}

__attribute__((noinline)) void *plug_make(int which)
{
    void *p = which ? site_b() : site_a();
    __asm__ volatile("" ::: "memory"); /* no tail call: plug_make's frame stays */
    return p;
}
