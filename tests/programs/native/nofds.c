/* SPDX-License-Identifier: Apache-2.0 */
/* nofds.c: a program that leaks file descriptors until it has none left (EMFILE), as a
 * server leaking sockets does, and loses the only pointers to 9 blocks of 70 bytes; then
 * exit(): the at-exit scan must still write its report (its copy of the process closes the
 * program's descriptors first). Run it under a low `ulimit -n`. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) static void lose(void)
{
    for (int i = 0; i < 9; i++) {
        char *p = malloc(70);
        memset(p, 'f', 70);
        __asm__ volatile("" : : "r"(p) : "memory");
    }
}

int main(void)
{
    lose();
    char scrub[4096];
    memset(scrub, 0, sizeof scrub);
    __asm__ volatile("" : : "r"(scrub) : "memory");
    int n = 0;
    while (open("/dev/null", O_RDONLY) >= 0)
        n++;
    printf("nofds: %d descriptors opened\n", n);
    exit(0);
}
