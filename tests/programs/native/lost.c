/* lost.c: four blocks whose only pointers are dropped (4 direct leaks, 220 bytes) next to
 * one block a global keeps (not a leak). */
#include <stdlib.h>
#include "scrub.h"

void *kept;

__attribute__((noinline)) static void lose(void)
{
    for (int i = 0; i < 3; i++)
        escape(malloc(40));
    escape(calloc(10, 10));
}

int main(void)
{
    kept = malloc(1000);
    lose();
    scrub();
    return 0;
}
