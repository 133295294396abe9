/* SPDX-License-Identifier: Apache-2.0 */
/* native_heap_bench.c: a heap of MIB MiB in blocks of SIZE bytes, all reachable (a linked
 * list from a global, every block written so its pages are resident), for the pause and
 * scan-rate figures of bench/native.sh. Writes its pid to PIDFILE, then one worker thread
 * keeps allocating and freeing until STOPFILE exists (a scan stops a running thread).
 * usage: native_heap_bench MIB SIZE PIDFILE STOPFILE */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct block {
    struct block *next;
};

struct block *head;
static const char *stop;

static void *churn(void *arg)
{
    void *ring[32] = {0};
    for (unsigned long i = 0; access(stop, F_OK) != 0; i++) {
        free(ring[i % 32]);
        ring[i % 32] = malloc(64 + i % 512);
        if (i % 4096 == 0)
            usleep(100);
    }
    for (int k = 0; k < 32; k++)
        free(ring[k]);
    return arg;
}

int main(int argc, char **argv)
{
    if (argc < 5)
        return 2;
    size_t mib = strtoul(argv[1], NULL, 10), size = strtoul(argv[2], NULL, 10);
    if (size < sizeof(struct block))
        return 2;
    stop = argv[4];
    for (size_t n = mib * 1048576 / size; n; n--) {
        struct block *b = malloc(size);
        memset(b, 0x5a, size);
        b->next = head;
        head = b;
    }
    pthread_t t;
    pthread_create(&t, NULL, churn, NULL);
    FILE *f = fopen(argv[3], "w");
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    pthread_join(t, NULL);
    while (head) {
        struct block *n = head->next;
        free(head);
        head = n;
    }
    return 0;
}
