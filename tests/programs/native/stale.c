/* stale.c: 200 blocks of 32 bytes lost in a call that has returned, their addresses left in
 * that call's dead frame, and no scrub: the exit's own frames reuse the dead stack, where
 * words they never write still hold the lost addresses. Every block is a leak (valgrind says
 * so; LeakSanitizer reads some of those words as roots). Ends with exit(0), or, built with
 * STALE_RETURN (staleret.c), returns from main: libc then calls exit itself. */
#include <stdlib.h>
#include "scrub.h"

__attribute__((noinline)) static void lose(void)
{
    void *volatile slots[200];
    for (int i = 0; i < 200; i++)
        slots[i] = malloc(32);
    escape((void *)slots);
}

int main(void)
{
    lose();
#ifdef STALE_RETURN
    return 0;
#else
    exit(0);
#endif
}
