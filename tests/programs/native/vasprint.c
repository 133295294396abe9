/* vasprint.c: one string from asprintf lost (17 bytes). glibc is built without frame
 * pointers, so a frame-pointer walk from inside it reads whatever word sits where a frame
 * pointer would (a stack or heap address), which is no return address at all. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include "scrub.h"

static char *kept;

__attribute__((noinline)) static void lose(void)
{
    kept = malloc(48); /* a live block for the stale word to point at */
    char *s;
    if (asprintf(&s, "%d-%s", 42, "asprintf leak") < 0)
        return;
    escape(s);
    s = NULL;
}

int main(void)
{
    lose();
    scrub();
    return kept == NULL;
}
