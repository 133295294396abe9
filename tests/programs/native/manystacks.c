/* manystacks.c: loses one 24-byte block down each of 2^D call paths (D is argv[1], at most
 * 16): path b recurses D times through descend(), taking at depth i the call site bit i of b
 * names, so every block has a backtrace of its own made of the same few return addresses. */
#include <stdlib.h>
#include <string.h>
#include "scrub.h"

__attribute__((noinline)) static void descend(unsigned b, int d)
{
    if (d == 0) {
        char *p = malloc(24);
        if (p)
            memset(p, 7, 24);
        escape(p);
        return;
    }
    if (b & 1)
        descend(b >> 1, d - 1);
    else
        descend(b >> 1, d - 1);
    __asm__ volatile("" ::: "memory"); /* no tail calls: each return address stays */
}

int main(int argc, char **argv)
{
    int d = argc > 1 ? atoi(argv[1]) : 0;
    if (d < 0 || d > 16)
        return 2;
    for (unsigned b = 0; b < 1u << d; b++)
        descend(b, d);
    scrub();
    return 0;
}
