/* held.c: a program whose main thread sits in a tracing stop while it is checked. It drops
 * one 77-byte block, lets any tracer in (Yama), and with "own" as argv[3] forks a child that
 * seizes and interrupts it, as the monitor's own tracer task does during a scan (a task of
 * the process: its parent is the process). It writes its pid (and the child's) to argv[1],
 * then waits for the file argv[2] to exist; the child lets go when it ends. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "scrub.h"

static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static void nap(void)
{
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

/* The child: seizes its parent, stops it, and holds it until the stop file exists. */
static void hold_parent(pid_t parent, int go, const char *stop)
{
    char c;
    if (read(go, &c, 1) != 1)
        _exit(1);
    if (ptrace(PTRACE_SEIZE, parent, 0, 0) != 0 || ptrace(PTRACE_INTERRUPT, parent, 0, 0) != 0)
        _exit(1);
    int st;
    if (waitpid(parent, &st, __WALL) != parent)
        _exit(1);
    while (!exists(stop) && getppid() == parent)
        nap();
    _exit(0);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    escape(malloc(77));
    scrub();
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    pid_t child = 0;
    int go[2];
    if (argc > 3 && !strcmp(argv[3], "own")) {
        if (pipe(go) != 0)
            return 2;
        child = fork();
        if (child < 0)
            return 2;
        if (child == 0)
            hold_parent(getppid(), go[0], argv[2]);
        prctl(PR_SET_PTRACER, child, 0, 0, 0);
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return 2;
    fprintf(f, "%d %d\n", (int)getpid(), (int)child);
    fclose(f);
    rename(tmp, argv[1]);
    if (child && write(go[1], "g", 1) != 1) /* the pid is out: the child may stop it now */
        return 2;
    while (!exists(argv[2]))
        nap();
    if (child)
        waitpid(child, NULL, 0);
    return 0;
}
