/* SPDX-License-Identifier: Apache-2.0 */
/* retval.c PIDFILE STOPFILE: a worker builds its result in a 123-byte block and returns it;
 * a second one gives its 77-byte result to pthread_exit. main writes its pid, waits until
 * STOPFILE exists, then joins both, prints the results and frees them. A live scan before the
 * joins must not call the results leaks: each waits in its thread's descriptor for
 * pthread_join. No leak at exit. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *returns(void *arg)
{
    (void)arg;
    char *r = malloc(123);
    memset(r, 'R', 122);
    r[122] = 0;
    return r;
}

static void *exits(void *arg)
{
    (void)arg;
    char *r = malloc(77);
    memset(r, 'E', 76);
    r[76] = 0;
    pthread_exit(r);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    pthread_t a, b;
    pthread_create(&a, NULL, returns, NULL);
    pthread_create(&b, NULL, exits, NULL);
    FILE *f = fopen(argv[1], "w");
    if (!f)
        return 1;
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    while (access(argv[2], F_OK) != 0)
        usleep(20000);
    void *ra, *rb;
    pthread_join(a, &ra);
    pthread_join(b, &rb);
    printf("results %zu %zu\n", strlen(ra), strlen(rb));
    free(ra);
    free(rb);
    return 0;
}
