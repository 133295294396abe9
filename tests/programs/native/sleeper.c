/* sleeper.c: a program whose main thread sleeps while it is scanned. It drops three 40-byte
 * blocks (3 direct leaks), writes its pid to argv[1], then sleeps 3 s in one nanosleep and
 * prints whether a signal cut the sleep short. A scan asked for by signal must reach the
 * monitor's thread alone: the program's own sleep runs to its end. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "scrub.h"

__attribute__((noinline)) static void lose(void)
{
    for (int i = 0; i < 3; i++)
        escape(malloc(40));
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    setvbuf(stdout, NULL, _IOLBF, 0);
    lose();
    scrub();
    FILE *f = fopen(argv[1], "w");
    if (!f)
        return 2;
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    struct timespec ts = {3, 0};
    int r = nanosleep(&ts, NULL);
    printf("%s\n", r == 0 ? "slept" : errno == EINTR ? "interrupted" : "failed");
    return 0;
}
