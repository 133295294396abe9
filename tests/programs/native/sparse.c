/* SPDX-License-Identifier: Apache-2.0 */
/* sparse.c: a 16 GiB MAP_NORESERVE reservation (a database's or a garbage collector's) with
 * two pages in use: one holds the only pointer to a 5,656-byte block, 9 GiB in (not a leak);
 * a 1,212-byte block is dropped (the leak). A scan must find both answers without reading
 * the untouched 16 GiB, which took every scan about 40 s. Also dropped: 80 blocks of 1 MiB
 * from posix_memalign(64 KiB), which glibc maps one by one into adjacent mappings the kernel
 * merges (80 MiB and more, read the sparse way): each chunk's header, then an untouched gap
 * up to the aligned block. Leaks: 81 blocks, 83,887,292 bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "scrub.h"

static void **hold;

__attribute__((noinline)) static void lose(void)
{
    escape(malloc(1212));
    for (int i = 0; i < 80; i++) {
        void *b = NULL;
        if (posix_memalign(&b, 65536, 1 << 20) == 0)
            escape(b);
    }
}

int main(void)
{
    char *m = mmap(NULL, (size_t)16 << 30, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    m[0] = 1;
    hold = (void **)(m + ((size_t)9 << 30) + 4000); /* crosses no page: 8 bytes at 4000 */
    *hold = malloc(5656);
    hold = NULL;
    lose();
    scrub();
    return 0;
}
