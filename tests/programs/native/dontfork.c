/* dontfork.c: blocks whose only pointers lie in memory the program marked MADV_DONTFORK, as a
 * JavaScript engine does with its heap pages (Node's V8): 100 blocks of 64 bytes, and a
 * 48-byte block that points to a 24-byte one, are held from such a mapping, 5,000 more from
 * 5,000 one-page do-not-fork mappings (past the 4,096 a first cut handled: V8's 1.7 GB heap
 * has 4,844), and 10 from a page both MADV_WIPEONFORK (zero in a fork) and do-not-fork: none
 * is a leak; one
 * dropped 1,212-byte block is (1 direct leak). The program writes its pid to argv[1], waits
 * for argv[2] to exist (a scan of it runs meanwhile), then checks that the mappings kept their
 * flags (exit 3 if not) and returns (the exit's scan). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "scrub.h"

#define REGION (1u << 20)
#define PAGES 5000
#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif

static void *region, *pages, *wiped;

__attribute__((noinline)) static void fill(void)
{
    void **slots = region;
    for (int i = 0; i < 100; i++)
        slots[i * 16] = malloc(64);
    void **outer = malloc(48);
    outer[0] = malloc(24);
    slots[4000] = outer;
    for (int i = 0; i < PAGES; i++) /* every other page: guards keep them apart mappings */
        *(void **)((char *)pages + (size_t)i * 8192) = malloc(32);
    for (int i = 0; i < 10; i++)
        ((void **)wiped)[i] = malloc(16);
    escape(malloc(1212));
}

/* Whether /proc/self/smaps still flags the mapping at a with flag (" dc", " wf"). */
static int still_flagged(void *a, const char *flag)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return 0;
    char line[512];
    int in = 0, on = 0;
    unsigned long lo, hi;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            in = lo <= (unsigned long)a && (unsigned long)a < hi;
        else if (in && !strncmp(line, "VmFlags:", 8))
            on = strstr(line, flag) != NULL;
    }
    fclose(f);
    return on;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    region = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    pages = mmap(NULL, (size_t)PAGES * 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                 -1, 0);
    wiped = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED || madvise(region, REGION, MADV_DONTFORK) != 0 ||
        pages == MAP_FAILED || wiped == MAP_FAILED || madvise(wiped, 4096, MADV_WIPEONFORK) != 0 ||
        madvise(wiped, 4096, MADV_DONTFORK) != 0)
        return 2;
    for (int i = 0; i < PAGES; i++) {
        char *p = (char *)pages + (size_t)i * 8192;
        if (madvise(p, 4096, MADV_DONTFORK) != 0 || mprotect(p + 4096, 4096, PROT_NONE) != 0)
            return 2;
    }
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
    if (!still_flagged(region, " dc") || !still_flagged((char *)pages + 4999 * 8192, " dc") ||
        !still_flagged(wiped, " wf") || !still_flagged(wiped, " dc")) {
        fprintf(stderr, "dontfork: a mapping lost its fork flag\n");
        return 3;
    }
    /* the globals point into them no more */
    region = (void *)((unsigned long)region ^ 1);
    pages = (void *)((unsigned long)pages ^ 1);
    wiped = (void *)((unsigned long)wiped ^ 1);
    return 0;
}
