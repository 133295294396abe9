/* interior.c: blocks kept alive only by pointers into their middle (no leaks). */
#include <stdlib.h>
#include "scrub.h"

char *mid1, *mid2;

__attribute__((noinline)) static void keep(void)
{
    mid1 = (char *)malloc(64) + 8;
    mid2 = (char *)malloc(4096) + 2000;
}

int main(void)
{
    keep();
    scrub();
    return 0;
}
