/* dontfork.c: blocks whose only pointers lie in memory the program marked MADV_DONTFORK, as a
 * JavaScript engine does with its heap pages (Node's V8): 100 blocks of 64 bytes, and a
 * 48-byte block that points to a 24-byte one, are held from such a mapping and are no leak;
 * one dropped 1,212-byte block is (1 direct leak). The program writes its pid to argv[1],
 * waits for argv[2] to exist (a scan of it runs meanwhile), then checks that the mapping is
 * still do-not-fork (exit 3 if not) and returns (the exit's scan). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "scrub.h"

#define REGION (1u << 20)

static void *region;

__attribute__((noinline)) static void fill(void)
{
    void **slots = region;
    for (int i = 0; i < 100; i++)
        slots[i * 16] = malloc(64);
    void **outer = malloc(48);
    outer[0] = malloc(24);
    slots[4000] = outer;
    escape(malloc(1212));
}

/* Whether /proc/self/smaps still flags the region "dc". */
static int still_dontfork(void)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return 0;
    char line[512];
    int in = 0, dc = 0;
    unsigned long lo, hi;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            in = lo <= (unsigned long)region && (unsigned long)region < hi;
        else if (in && !strncmp(line, "VmFlags:", 8))
            dc = strstr(line, " dc") != NULL;
    }
    fclose(f);
    return dc;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    region = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED || madvise(region, REGION, MADV_DONTFORK) != 0)
        return 2;
    fill();
    scrub();
    FILE *f = fopen(argv[1], "w");
    if (!f)
        return 2;
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    for (int i = 0; i < 1200 && access(argv[2], F_OK) != 0; i++) {
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (!still_dontfork()) {
        fprintf(stderr, "dontfork: the region lost MADV_DONTFORK\n");
        return 3;
    }
    region = (void *)((unsigned long)region ^ 1); /* the global points into it no more */
    return 0;
}
