/* staleret.c: stale.c's 200 lost blocks, their addresses left in a dead frame, and main
 * returning instead of calling exit(): libc calls exit itself. Every block is a leak. */
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
    return 0;
}
