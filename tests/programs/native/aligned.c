/* aligned.c: blocks from posix_memalign, aligned_alloc, memalign and valloc are dropped
 * (4 direct leaks: 100 + 512 + 200 + 300 = 1112 bytes); one kept in a global is not. */
#include <malloc.h>
#include <stdlib.h>
#include "scrub.h"

void *kept;

__attribute__((noinline)) static void lose(void)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, 100) == 0)
        escape(p);
    escape(aligned_alloc(256, 512));
    escape(memalign(128, 200));
    escape(valloc(300));
    kept = aligned_alloc(64, 640);
}

int main(void)
{
    lose();
    scrub();
    return 0;
}
