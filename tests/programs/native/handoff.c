/* handoff.c: blocks allocated on one thread and freed on another. Two rounds of a producer
 * and a consumer thread: the producer allocates 20,000 blocks (every 7th by posix_memalign
 * with 64-byte alignment) and hands them over a bounded queue; the consumer frees them,
 * after growing every 10th with realloc. Leaks, all direct: each producer drops 5 blocks of
 * 77 bytes, each consumer 3 of the grown blocks (300 bytes): 16 blocks, 2570 bytes. main
 * keeps 4 blocks from the first producer and frees them once that thread has ended, and the
 * second round's threads take over the first round's bookkeeping. Prints a checksum of the
 * bytes the consumers saw on stderr (stdout stays the report's). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scrub.h"

#define QCAP 256
#define N 20000

static void *q[QCAP];
static unsigned q_head, q_tail;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static void *kept[4];
static uint64_t sum;

static void put(void *p)
{
    pthread_mutex_lock(&mu);
    while (q_tail - q_head == QCAP)
        pthread_cond_wait(&cv, &mu);
    q[q_tail++ % QCAP] = p;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static void *get(void)
{
    pthread_mutex_lock(&mu);
    while (q_tail == q_head)
        pthread_cond_wait(&cv, &mu);
    void *p = q[q_head % QCAP];
    q[q_head++ % QCAP] = NULL;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    return p;
}

__attribute__((noinline)) static void drop(void)
{
    for (int i = 0; i < 5; i++)
        escape(malloc(77));
}

static void *producer(void *arg)
{
    for (int i = 0; i < N; i++) {
        size_t n = 16 + (size_t)(i * 37) % 200;
        unsigned char *p;
        if (i % 7 == 0) {
            void *a;
            if (posix_memalign(&a, 64, n))
                abort();
            p = a;
        } else {
            p = malloc(n);
        }
        memset(p, i & 0xff, n);
        p[0] = (unsigned char)n;
        put(p);
    }
    if (arg)
        for (int i = 0; i < 4; i++)
            kept[i] = malloc(40);
    drop();
    put(NULL);
    scrub();
    return NULL;
}

__attribute__((noinline)) static void grow_and_lose(unsigned char *p)
{
    unsigned char *g = realloc(p, 300);
    memset(g + 16, 1, 284);
    escape(g);
}

static void *consumer(void *arg)
{
    (void)arg;
    int lost = 0;
    for (int i = 0;; i++) {
        unsigned char *p = get();
        if (!p)
            break;
        sum += p[0] * (uint64_t)(i + 1) + p[1];
        if (i % 10 == 0 && lost < 3 && i > 1000) {
            grow_and_lose(p);
            lost++;
            continue;
        }
        if (i % 10 == 0)
            p = realloc(p, 300);
        free(p);
    }
    scrub();
    return NULL;
}

int main(void)
{
    for (int round = 0; round < 2; round++) {
        pthread_t a, b;
        pthread_create(&a, NULL, producer, round == 0 ? (void *)1 : NULL);
        pthread_create(&b, NULL, consumer, NULL);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
        if (round == 0)
            for (int i = 0; i < 4; i++)
                free(kept[i]);
    }
    fprintf(stderr, "checksum %llu\n", (unsigned long long)sum);
    scrub();
    return 0;
}
