/* rebuilt.c: one lost block from lose(). Built twice by native_rebuilt.sh: as is, then with
 * -DMORE, which adds two functions before lose(), so the same addresses name other functions
 * in the second build (a saved scan read after the next build). */
#include <stdlib.h>
#include <string.h>
#include "scrub.h"

#ifdef MORE
__attribute__((noinline)) int padding_one(int x)
{
    return x * 3 + 1;
}

__attribute__((noinline)) int padding_two(int x)
{
    return padding_one(x) * 7 - 2;
}
#endif

__attribute__((noinline)) static void lose(void)
{
    char *p = malloc(48);
    memset(p, 'r', 48);
    escape(p);
}

int main(void)
{
    lose();
    scrub();
    return 0;
}
