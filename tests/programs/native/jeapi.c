/* jeapi.c: jemalloc's own calls on the blocks malloc made and on their own (mallocx with an
 * alignment and zeroing, rallocx, xallocx, sallocx, dallocx, sdallocx) and malloc_usable_size
 * on both: the program must keep working (exit 0, "ok"). Lost: one malloc block of 300 bytes
 * and one mallocx block of 500: 2 direct leaks, 800 bytes. Built with -ljemalloc only. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <jemalloc/jemalloc.h>
#include "scrub.h"

static int check(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return 0;
    return 1;
}

__attribute__((noinline)) static int work(void)
{
    for (int i = 0; i < 200; i++) {
        size_t n = 16 + (size_t)i * 24;
        unsigned char *a = malloc(n);
        memset(a, 1, n);
        if (malloc_usable_size(a) < n || sallocx(a, 0) < n)
            return 0;
        a = rallocx(a, n * 3, 0);
        if (!a || !check(a, n, 1) || sallocx(a, 0) < n * 3)
            return 0;
        if (xallocx(a, n * 3, 0, 0) < n * 3)
            return 0;
        sdallocx(a, n * 3, 0);
        unsigned char *b = mallocx(n, MALLOCX_ALIGN(256) | MALLOCX_ZERO);
        if (!b || (uintptr_t)b % 256 || !check(b, n, 0) || malloc_usable_size(b) < n)
            return 0;
        memset(b, 2, n);
        b = realloc(b, n * 2);
        if (!b || !check(b, n, 2))
            return 0;
        if (i % 2)
            dallocx(b, 0);
        else
            free(b);
        void *c = mallocx(n, 0);
        c = rallocx(c, n / 2 + 1, MALLOCX_ZERO);
        sdallocx(c, n / 2 + 1, 0);
    }
    escape(malloc(300));
    escape(mallocx(500, 0));
    return 1;
}

int main(void)
{
    int ok = work();
    scrub();
    puts(ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
