/* bigheap.c: a 48 MiB heap in 1 KiB blocks, all reachable from one table, plus 3 blocks of
 * 200 bytes dropped (3 direct leaks, 600 bytes). Writes its pid to argv[1] once the heap is
 * built and written, then waits until the file argv[2] exists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "scrub.h"

#define BLOCKS (48 * 1024)

__attribute__((noinline)) static void lose(void)
{
    for (int i = 0; i < 3; i++)
        escape(malloc(200));
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    char **table = calloc(BLOCKS, sizeof *table);
    for (int i = 0; i < BLOCKS; i++)
        table[i] = memset(malloc(1024), i & 0x7f, 1024);
    lose();
    scrub();
    FILE *f = fopen(argv[1], "w");
    if (!f)
        return 2;
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    while (access(argv[2], F_OK) != 0)
        usleep(20000);
    unsigned long sum = 0;
    for (int i = 0; i < BLOCKS; i++)
        sum += (unsigned char)table[i][i % 1024];
    printf("%lu\n", sum);
    return 0;
}
