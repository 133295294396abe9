/* tiny.c: 100 blocks of 1 to 8 bytes lost, each followed by a 2,000-byte block freed again
 * (100 direct leaks, 442 bytes), and the last one lost at the top of the heap. glibc's
 * smallest chunk holds 8 bytes past the monitor's header; its arena then points at the chunk
 * right after (its top chunk, a bin's head), where such a block ended. */
#include <stdlib.h>
#include "scrub.h"

__attribute__((noinline)) static void lose(void)
{
    for (int i = 0; i < 100; i++) {
        escape(malloc((size_t)(i % 8) + 1));
        void *gap = malloc(2000);
        escape(gap);
        free(gap);
    }
}

int main(void)
{
    lose();
    scrub();
    return 0;
}
