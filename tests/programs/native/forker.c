/* forker.c: a program that forks workers. The parent loses 5 blocks of 100 bytes; each of 3
 * forked workers loses 7 blocks of 200 bytes and ends with exit(). Known, under --children:
 * the parent 5 direct (500 bytes), each worker 7 direct (1,400 bytes). */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "scrub.h"

__attribute__((noinline)) static void lose(int k, size_t n)
{
    for (int i = 0; i < k; i++) {
        char *p = malloc(n);
        memset(p, 'f', n);
        escape(p);
    }
}

int main(void)
{
    for (int w = 0; w < 3; w++) {
        pid_t pid = fork();
        if (pid == 0) {
            lose(7, 200);
            scrub();
            exit(0);
        }
        if (pid < 0)
            return 2;
    }
    while (wait(NULL) > 0)
        ;
    lose(5, 100);
    scrub();
    return 0;
}
