/* ownapi.c: an allocator's own calls given the blocks malloc made: tcmalloc's tc_free,
 * tc_malloc_size, tc_realloc (ALLOC=tc), mimalloc's mi_free, mi_usable_size, mi_realloc and
 * malloc_size (ALLOC=mi). The program must keep working (exit 0, "ok"); lost: 3 malloc blocks
 * of 70 bytes (3 direct leaks, 210 bytes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scrub.h"

#if ALLOC_TC
void tc_free(void *);
size_t tc_malloc_size(void *);
void *tc_realloc(void *, size_t);
#define OWN_FREE tc_free
#define OWN_SIZE tc_malloc_size
#define OWN_REALLOC tc_realloc
#else
void mi_free(void *);
size_t mi_usable_size(const void *);
void *mi_realloc(void *, size_t);
#define OWN_FREE mi_free
#define OWN_SIZE mi_usable_size
#define OWN_REALLOC mi_realloc
#endif

__attribute__((noinline)) static int work(void)
{
    for (int i = 0; i < 300; i++) {
        size_t n = 8 + (size_t)i * 40;
        char *a = malloc(n);
        memset(a, 3, n);
        if (OWN_SIZE(a) < n)
            return 0;
        a = OWN_REALLOC(a, n * 2);
        if (!a || a[n - 1] != 3)
            return 0;
        OWN_FREE(a);
    }
    for (int i = 0; i < 3; i++)
        escape(malloc(70));
    return 1;
}

int main(void)
{
    int ok = work();
    scrub();
    puts(ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
