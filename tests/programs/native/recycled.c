/* recycled.c: blocks handed out in memory that held pointers before. A table of 64 pointers
 * to 48-byte blocks is freed with them; ten 48-byte blocks are then lost (they take freed
 * ones' places) and a 512-byte buffer is kept but never written (it takes the table's
 * place): its unwritten words still name the lost blocks. The same with a table of 256
 * pointers to 80-byte blocks (too big for glibc's per-thread cache, which realloc does not
 * use) and a kept block grown by realloc into the old table's place. And a block whose capacity is
 * malloc_usable_size's answer keeps the one pointer to another block in its last word
 * (reachable). And a big one: with glibc's mmap threshold up (as after a program's first
 * big temporary, which raises it), a table of 20,000 pointers (160 kB) comes from the heap;
 * its 24-byte blocks are lost with it, and a 160 kB buffer that takes its place has only its
 * first bytes written. Known: 20,020 direct leaks, 481,280 bytes;
 * nothing else. */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include "scrub.h"

void *buf, *grown, *sized, *io;

/* A table of k pointers to n-byte blocks, freed without them: they are lost. */
__attribute__((noinline)) static void forget(int k, size_t n)
{
    void **t = malloc(k * sizeof *t);
    for (int i = 0; i < k; i++) {
        t[i] = malloc(n);
        memset(t[i], 'y', n);
    }
    escape(t); /* the table's words are written: no dead stores before free */
    free(t);
}

/* A table of k pointers to n-byte blocks, freed with them: its memory keeps the addresses. */
__attribute__((noinline)) static void scratch(int k, size_t n)
{
    void **t = malloc(k * sizeof *t);
    for (int i = 0; i < k; i++)
        t[i] = malloc(n);
    for (int i = 0; i < k; i++)
        free(t[i]);
    free(t);
}

__attribute__((noinline)) static void lose(size_t n)
{
    for (int i = 0; i < 10; i++) {
        char *p = malloc(n);
        memset(p, 'x', n);
        escape(p);
    }
}

int main(void)
{
    scratch(64, 48);
    lose(48);
    buf = malloc(64 * sizeof(void *));
    grown = malloc(8);
    scratch(256, 80);
    lose(80);
    grown = realloc(grown, 256 * sizeof(void *));
    /* the last whole word the allocator says the block has */
    sized = malloc(25);
    size_t at = (malloc_usable_size(sized) - sizeof(void *)) & ~(sizeof(void *) - 1);
    void *p = malloc(64);
    memcpy((char *)sized + at, &p, sizeof p);
    p = NULL;
    mallopt(M_MMAP_THRESHOLD, 8 << 20);
    forget(20000, 24);
    io = malloc(20000 * sizeof(void *));
    memcpy(io, "HTTP/1.1 200 OK\r\n", 17);
    scrub();
    return 0;
}
