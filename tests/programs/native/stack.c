/* stack.c: a block whose only pointer is a local of another thread that is still blocked
 * (not a leak). */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include "scrub.h"

static volatile int ready;

static void *hold(void *arg)
{
    void *volatile p = malloc(72);
    ready = 1;
    for (;;)
        pause();
    escape(p);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, hold, NULL);
    while (!ready)
        usleep(1000);
    scrub();
    return 0;
}
