/* SPDX-License-Identifier: Apache-2.0 */
/* native_malloc_bench.c: malloc/free pairs on several threads, for bench/native.sh. Each
 * thread keeps a small ring of live blocks (so frees are not all of the last block) and
 * does PAIRS/THREADS malloc+free pairs of 16..271 bytes. Prints the wall time. usage:
 * native_malloc_bench [PAIRS [THREADS]] (default 10,000,000 on 2 threads). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define RING 64

static unsigned long per_thread;

static void *work(void *arg)
{
    void *ring[RING] = {0};
    unsigned long seed = (unsigned long)(size_t)arg * 2654435761u + 1;
    for (unsigned long i = 0; i < per_thread; i++) {
        seed = seed * 6364136223846793005ul + 1442695040888963407ul;
        unsigned k = (unsigned)(seed >> 58);
        free(ring[k]);
        ring[k] = malloc(16 + (seed >> 40) % 256);
    }
    for (unsigned k = 0; k < RING; k++)
        free(ring[k]);
    return NULL;
}

int main(int argc, char **argv)
{
    unsigned long pairs = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000000ul;
    int threads = argc > 2 ? atoi(argv[2]) : 2;
    if (threads < 1 || threads > 64)
        return 2;
    per_thread = pairs / (unsigned long)threads;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pthread_t t[64];
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, work, (void *)(size_t)(i + 1));
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.3f\n", (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
    return 0;
}
