/* threadleak.c: two threads end without being joined or detached (thread leaks), one more
 * is still running when the process exits (a leak past the age limit the test sets); a
 * joined thread and a detached one are not leaks. */
#include <pthread.h>
#include <unistd.h>

static void *quick(void *arg)
{
    return arg;
}

static void *forever(void *arg)
{
    for (;;)
        pause();
    return arg;
}

__attribute__((noinline)) static void spawn_forgotten(void)
{
    pthread_t t;
    pthread_create(&t, NULL, quick, NULL);
    pthread_create(&t, NULL, quick, NULL);
}

__attribute__((noinline)) static void spawn_sleeper(void)
{
    pthread_t t;
    pthread_create(&t, NULL, forever, NULL);
}

int main(void)
{
    pthread_t j, d;
    pthread_create(&j, NULL, quick, NULL);
    pthread_join(j, NULL);
    pthread_create(&d, NULL, quick, NULL);
    pthread_detach(d);
    spawn_forgotten();
    spawn_sleeper();
    usleep(300000);
    return 0;
}
