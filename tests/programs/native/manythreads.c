/* manythreads.c: N threads (argument, default 1,100), each holding a 128-byte block in a
 * local of its own stack while it waits in read(); main loses one 77-byte block and exits.
 * Known: 1 direct leak of 77 bytes; every thread's block is held. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include "scrub.h"

static int fds[2];
static pthread_barrier_t all_up;

static void *worker(void *arg)
{
    (void)arg;
    char *volatile held = malloc(128);
    char c;
    pthread_barrier_wait(&all_up);
    ssize_t r = read(fds[0], &c, 1); /* never written: blocks until exit */
    (void)r;
    free(held);
    return NULL;
}

__attribute__((noinline)) static void lose(void)
{
    escape(malloc(77));
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1100;
    if (n < 1 || pipe(fds))
        return 2;
    pthread_barrier_init(&all_up, NULL, (unsigned)n + 1);
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 64 << 10);
    for (int i = 0; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, &at, worker, NULL))
            return 3;
    }
    pthread_barrier_wait(&all_up);
    lose();
    scrub();
    exit(0);
}
