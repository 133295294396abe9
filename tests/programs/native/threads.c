/* threads.c: four threads each drop five 64-byte blocks and end; they are joined
 * (20 direct leaks, 1280 bytes). */
#include <pthread.h>
#include <stdlib.h>
#include "scrub.h"

static void *work(void *arg)
{
    for (int i = 0; i < 5; i++)
        escape(malloc(64));
    scrub();
    return NULL;
}

int main(void)
{
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    scrub();
    return 0;
}
