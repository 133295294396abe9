/* SPDX-License-Identifier: Apache-2.0 */
/* grown.c: the leaks of a program that reads input into a buffer it grows: read_all starts
 * at 64 bytes and doubles with realloc up to 1 MiB, then loses it; make_big loses a block of
 * 1 MiB made at once. Under sampling (--sample 64K) both are past the sample size and both
 * must carry a backtrace: the grown one its growing realloc's. */
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static char *read_all(void)
{
    size_t cap = 64, len = 0;
    char *b = malloc(cap);
    while (len < (1u << 20)) {
        while (len + 4096 > cap) {
            cap *= 2;
            b = realloc(b, cap);
        }
        memset(b + len, 'r', 4096);
        len += 4096;
    }
    return b;
}

__attribute__((noinline)) static char *make_big(void)
{
    char *b = malloc(1 << 20);
    memset(b, 'd', 1 << 20);
    return b;
}

int main(void)
{
    char *volatile x = read_all();
    x = NULL;
    char *volatile y = make_big();
    y = NULL;
    for (int i = 0; i < 1000; i++) /* small blocks, sampled away */
        free(malloc(32));
    char scrub[4096];
    memset(scrub, 0, sizeof scrub);
    __asm__ volatile("" : : "r"(scrub) : "memory");
    return 0;
}
