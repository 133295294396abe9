/* tls.c: blocks whose only pointers are thread-local variables, of the main thread and of a
 * thread that is still alive (not leaks). */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include "scrub.h"

static __thread void *mine;
static volatile int ready;

static void *hold(void *arg)
{
    mine = malloc(24);
    ready = 1;
    for (;;)
        pause();
    return NULL;
}

__attribute__((noinline)) static void keep(void)
{
    mine = malloc(56);
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, hold, NULL);
    keep();
    while (!ready)
        usleep(1000);
    scrub();
    return 0;
}
