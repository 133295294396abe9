/* regs.c: a block whose only pointer lives in a register of another, still running thread
 * (not a leak). The thread spins until the process exits. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include "scrub.h"

static volatile int ready;

static void *spin(void *arg)
{
    register void *p __asm__("r12") = malloc(48);
    ready = 1;
    for (;;)
        __asm__ volatile("pause" : "+r"(p));
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, spin, NULL);
    while (!ready)
        usleep(1000);
    scrub();
    return 0;
}
