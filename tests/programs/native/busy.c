/* busy.c: a program that keeps allocating while it is scanned. main drops seven 99-byte
 * blocks (7 direct leaks, 693 bytes), writes its pid to argv[1] and starts two workers that
 * replace blocks in their own table of 512 slots; each worker prints a checksum of its first
 * 200,000 rounds (seeded, so the output never depends on timing), then keeps churning until
 * the file argv[2] exists. Each round a worker also reallocs its holder block (up to 64 KiB,
 * so libc moves it and copies often), whose contents hold the only pointer to a child block:
 * a scan that caught a holder inside realloc and lost sight of it would call the child a
 * leak. Everything the workers allocate stays reachable. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "scrub.h"

#define SLOTS 512
#define COUNTED 200000

static const char *stop_file;

static void *work(void *arg)
{
    uint64_t seed = (uint64_t)(uintptr_t)arg, sum = 0;
    char **slot = calloc(SLOTS, sizeof *slot);
    void **holder = calloc(1, 64);
    holder[0] = calloc(1, 48);
    for (uint64_t round = 0;; round++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        unsigned i = (unsigned)(seed >> 33) % SLOTS;
        size_t n = 16 + (size_t)(seed >> 40) % 2000;
        free(slot[i]);
        slot[i] = malloc(n);
        memset(slot[i], (int)(round & 0xff), n);
        holder = realloc(holder, 64 + (size_t)(seed >> 16) % 65536);
        if (round < COUNTED)
            sum += n * (i + 1);
        if (round == COUNTED)
            printf("worker %lu: %llu\n", (unsigned long)(uintptr_t)arg,
                   (unsigned long long)sum);
        if (round >= COUNTED && round % 1000 == 0 && access(stop_file, F_OK) == 0)
            break;
    }
    for (unsigned i = 0; i < SLOTS; i++)
        free(slot[i]);
    free(slot);
    free(holder[0]);
    free(holder);
    return NULL;
}

__attribute__((noinline)) static void lose(void)
{
    for (int i = 0; i < 7; i++)
        escape(malloc(99));
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    setvbuf(stdout, NULL, _IOLBF, 0);
    stop_file = argv[2];
    lose();
    scrub();
    pthread_t t[2];
    pthread_create(&t[0], NULL, work, (void *)1);
    pthread_create(&t[1], NULL, work, (void *)2);
    FILE *f = fopen(argv[1], "w");
    if (!f)
        return 2;
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    printf("done\n");
    return 0;
}
