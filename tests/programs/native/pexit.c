/* pexit.c: main loses a 64-byte block, starts a detached worker that loses 32 bytes and
 * returns, and ends with pthread_exit: the process ends with its last thread, as if by
 * exit(0). Known: 2 direct leaks, 96 bytes; exit status 0. */
#include <pthread.h>
#include <stdlib.h>
#include "scrub.h"

__attribute__((noinline)) static void lose(size_t n)
{
    escape(malloc(n));
}

static void *worker(void *arg)
{
    (void)arg;
    lose(32);
    scrub();
    return NULL;
}

int main(void)
{
    lose(64);
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &a, worker, NULL))
        return 2;
    scrub();
    pthread_exit(NULL);
}
