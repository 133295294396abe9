/* SPDX-License-Identifier: Apache-2.0 */
/* sparse.c: a 16 GiB MAP_NORESERVE reservation (a database's or a garbage collector's) with
 * two pages in use: one holds the only pointer to a 5,656-byte block, 9 GiB in (not a leak);
 * a 1,212-byte block is dropped (the leak). A scan must find both answers without reading
 * the untouched 16 GiB, which took every scan about 40 s. Also dropped: 80 blocks of 1 MiB
 * from posix_memalign(64 KiB), which glibc maps one by one into adjacent mappings the kernel
 * merges (80 MiB and more, read the sparse way): each chunk's header, then an untouched gap
 * up to the aligned block. Leaks: 81 blocks, 83,887,292 bytes.
 * With a file name as argv[1], the same over shared mappings (an LMDB-style database file,
 * a memfd): a 16 GiB sparse file mapped MAP_SHARED holds the 5,656-byte block's only
 * pointer 9 GiB in, and a 16 GiB memfd another (3,030 bytes) 5 GiB in; the leaks are the
 * same. Fork copies no page table of a shared mapping: the file's holes tell what to skip. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "scrub.h"

static void **shared_hold;

static char *map_shared(int fd, const char *what)
{
    if (fd < 0 || ftruncate(fd, (off_t)16 << 30) != 0) {
        perror(what);
        exit(2);
    }
    char *m = mmap(NULL, (size_t)16 << 30, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    close(fd);
    return m;
}

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

int main(int argc, char **argv)
{
    if (argc > 1) {
        char *f = map_shared(open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600), argv[1]);
        shared_hold = (void **)(f + ((size_t)9 << 30) + 4000);
        *shared_hold = malloc(5656);
        char *d = map_shared(memfd_create("sparse", 0), "memfd_create");
        shared_hold = (void **)(d + ((size_t)5 << 30) + 800);
        *shared_hold = malloc(3030);
        shared_hold = NULL;
        lose();
        scrub();
        return 0;
    }
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
