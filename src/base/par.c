/* SPDX-License-Identifier: Apache-2.0 */
/* par.c: one piece of work in two halves on two cores (base layer), prefix par_. See par.h. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "base/par.h"

#include <pthread.h>
#include <sched.h>

void par_two(void *(*fn)(void *), void *a, void *b, int both)
{
    pthread_t th;
    int threaded = both && pthread_create(&th, NULL, fn, b) == 0;
    fn(a);
    if (threaded)
        pthread_join(th, NULL);
    else if (both)
        fn(b);
}

int par_two_cpus(void)
{
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set) >= 2;
#endif
    return 1;
}
