/* SPDX-License-Identifier: Apache-2.0 */
/* par.c: one piece of work in two halves on two cores (base layer), prefix par_. See par.h. */
#include "base/par.h"

#include <pthread.h>

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
