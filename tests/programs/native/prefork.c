/* prefork.c: a pre-fork server in small. The master loses 50 bytes and forks one worker,
 * which loses 70 bytes, writes its pid to argv[1], waits for the file argv[2] to exist and
 * ends with exit(); the master waits for it (a worker a signal ends is said, not an error). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "scrub.h"

__attribute__((noinline)) static void lose(size_t n)
{
    char *p = malloc(n);
    if (p)
        memset(p, 'w', n);
    escape(p);
}

static void worker(const char *pidfile, const char *stop)
{
    lose(70);
    scrub();
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", pidfile);
    FILE *f = fopen(tmp, "w");
    if (!f)
        exit(2);
    fprintf(f, "%d %d\n", (int)getpid(), (int)getppid());
    fclose(f);
    rename(tmp, pidfile);
    struct timespec ts = {0, 20 * 1000 * 1000};
    while (access(stop, F_OK) != 0)
        nanosleep(&ts, NULL);
    exit(0);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    lose(50);
    scrub();
    pid_t w = fork();
    if (w < 0)
        return 2;
    if (w == 0)
        worker(argv[1], argv[2]);
    int st;
    if (waitpid(w, &st, 0) != w)
        return 1;
    if (WIFSIGNALED(st))
        printf("worker ended by signal %d\n", WTERMSIG(st));
    return WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) == 0) ? 0 : 1;
}
