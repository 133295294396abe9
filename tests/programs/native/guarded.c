/* guarded.c: a program that tests what a scan must leave alone. Modes (argv[1]):
 *   churn PIDFILE SECONDS  two threads map, touch and unmap 4 MiB regions without pause while
 *                          main sleeps (a pool allocator): a scan must not fault on a mapping
 *                          unmapped after it read the maps. Main dropped 3 blocks of 100 bytes.
 *   nodump PIDFILE STOP    the program makes itself non-dumpable (as a secret keeper does),
 *                          waits for the file STOP, then prints "dumpable=N" as it is then.
 *   crash PIDFILE GO       drops one block of 100 bytes, waits for the file GO, then faults.
 *   dropper                as root, becomes user nobody, then drops one block of 123 bytes.
 *   status N               drops one block of 77 bytes and exits with status N.
 *   wait PIDFILE           drops two blocks of 64 bytes and waits for a signal to end it.
 *   daemon PIDFILE STOP    as a daemon: closes every descriptor from 3 to 1023, then makes a
 *                          pipe (which takes the freed numbers), writes five messages into it
 *                          and prints how many bytes it read back; drops one block of 42
 *                          bytes, waits for the file STOP.
 * PIDFILE receives the pid once the program is ready to be scanned. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include "scrub.h"

static void *churn(void *arg)
{
    (void)arg;
    for (;;) {
        char *p = mmap(NULL, 4 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
        if (p == MAP_FAILED)
            continue;
        p[0] = 1;
        munmap(p, 4 << 20);
    }
    return NULL;
}

static void ready(const char *pidfile)
{
    FILE *f = fopen(pidfile, "w");
    if (!f)
        exit(2);
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
}

static void wait_for(const char *file)
{
    struct timespec ts = {0, 20 * 1000 * 1000};
    for (int i = 0; i < 1500 && access(file, F_OK) != 0; i++)
        nanosleep(&ts, NULL);
}

__attribute__((noinline)) static void lose(int n, size_t size)
{
    for (int i = 0; i < n; i++) {
        char *p = malloc(size);
        memset(p, 0, size);
        escape(p);
    }
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 4 && !strcmp(argv[1], "churn")) {
        lose(3, 100);
        scrub();
        pthread_t t;
        pthread_create(&t, NULL, churn, NULL);
        pthread_create(&t, NULL, churn, NULL);
        ready(argv[2]);
        sleep((unsigned)atoi(argv[3]));
        return 0;
    }
    if (argc == 4 && !strcmp(argv[1], "nodump")) {
        prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
        ready(argv[2]);
        wait_for(argv[3]);
        printf("dumpable=%d\n", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
        return 0;
    }
    if (argc == 4 && !strcmp(argv[1], "crash")) {
        lose(1, 100);
        scrub();
        ready(argv[2]);
        wait_for(argv[3]);
        raise(SIGSEGV);
        return 0;
    }
    if (argc == 2 && !strcmp(argv[1], "dropper")) {
        if (getuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            return 2;
        lose(1, 123);
        scrub();
        return 0;
    }
    if (argc == 4 && !strcmp(argv[1], "daemon")) {
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
        int p[2];
        if (pipe(p) != 0)
            return 2;
        for (int i = 0; i < 5; i++) {
            char m[8];
            snprintf(m, sizeof m, "msg%d;", i);
            if (write(p[1], m, strlen(m)) < 0)
                return 2;
            struct timespec ts = {0, 100 * 1000 * 1000}; /* the monitor's wake-ups between */
            nanosleep(&ts, NULL);
        }
        char buf[64];
        ssize_t n = read(p[0], buf, sizeof buf);
        printf("read back %zd\n", n);
        lose(1, 42);
        scrub();
        ready(argv[2]);
        wait_for(argv[3]);
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "wait")) {
        lose(2, 64);
        scrub();
        ready(argv[2]);
        for (;;)
            pause();
    }
    if (argc == 3 && !strcmp(argv[1], "status")) {
        lose(1, 77);
        scrub();
        return atoi(argv[2]);
    }
    fprintf(stderr, "usage: guarded churn|nodump|crash PIDFILE ARG | dropper | status N\n");
    return 2;
}
