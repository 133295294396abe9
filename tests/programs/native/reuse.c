/* reuse.c: heap memory used again and again, in every shape the allocator hands out. 60,000
 * rounds of malloc, calloc, realloc (growing and shrinking, so blocks move and stay), aligned
 * allocations (64 to 4096 bytes) and frees over 256 slots, all freed at the end; 100 blocks of
 * 1000 bytes freed and their memory reused by 20 blocks of 4000 that stay reachable; a block
 * grown by realloc past the mmap threshold (moved into its own mapping, then grown in place)
 * that holds the only pointers to 10 children; a 300,000-byte mmapped block kept and grown; and
 * a 100,000-byte block whose middle page is locked (mlock), so that its heap mapping is split
 * in three and the block crosses two of the lines: it holds the only pointer to a child.
 * Leaks: a 300,000-byte mmapped block, a memalign(4096) block of 5000 bytes and a block grown
 * by realloc to 1000 bytes (direct, 306,000 bytes) whose only pointer is to a calloc'd block
 * of 100 bytes (indirect). */
#include <malloc.h>
#include <sys/mman.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scrub.h"

#define SLOTS 256
#define ROUNDS 60000

static void *keep[32];
static void **parent;
static char *big;
static void **straddle;

__attribute__((noinline)) static void churn(void)
{
    void *slot[SLOTS] = {0};
    uint64_t seed = 88172645463325252ull;
    for (int i = 0; i < ROUNDS; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        unsigned k = (unsigned)(seed >> 33) % SLOTS, op = (unsigned)(seed >> 20) % 6;
        size_t n = 1 + (size_t)(seed >> 40) % 700;
        if (op == 0 || !slot[k]) {
            free(slot[k]);
            slot[k] = op == 1 ? calloc(1, n) : malloc(n);
        } else if (op <= 2) {
            slot[k] = realloc(slot[k], op == 1 ? n / 2 + 1 : n * 3);
        } else if (op == 3) {
            free(slot[k]);
            slot[k] = memalign((size_t)64 << (seed >> 50) % 7, n);
        } else {
            free(slot[k]);
            slot[k] = NULL;
        }
        if (slot[k])
            memset(slot[k], (int)i, 1);
    }
    for (int k = 0; k < SLOTS; k++)
        free(slot[k]);
}

__attribute__((noinline)) static void leak(void)
{
    escape(malloc(300000));
    escape(memalign(4096, 5000));
    void **p = calloc(1, 10);
    for (size_t n = 20; n <= 1000; n += 70)
        p = realloc(p, n);
    p = realloc(p, 1000);
    memset(p, 0, 1000);
    p[0] = calloc(1, 100);
    escape(p);
}

int main(void)
{
    churn();
    void *small[100];
    for (int i = 0; i < 100; i++)
        small[i] = malloc(1000);
    for (int i = 0; i < 100; i++)
        free(small[i]);
    /* Reused memory holds stale pointers: what stays reachable is cleared, so that only
     * the pointers this program means count. */
    memset(small, 0, sizeof small);
    for (int i = 0; i < 20; i++)
        keep[i] = memset(malloc(4000), 0, 4000);
    parent = malloc(16);
    for (size_t n = 32; n < 400000; n *= 2)
        parent = realloc(parent, n);
    parent = realloc(parent, 600000);
    memset(parent, 0, 600000);
    for (int i = 0; i < 10; i++)
        parent[i * 1000] = calloc(1, 50);
    big = malloc(300000);
    big = realloc(big, 900000);
    memset(big, 0, 900000);
    straddle = calloc(1, 100000);
    straddle[0] = calloc(1, 24);
    if (mlock((void *)(((uintptr_t)straddle + 50000) & ~(uintptr_t)4095), 4096) != 0)
        perror("reuse: mlock");
    leak();
    scrub();
    unsigned long sum = 0;
    for (int i = 0; i < 20; i++)
        sum += (uintptr_t)keep[i] & 1;
    fprintf(stderr, "reuse %lu\n", sum);
    return 0;
}
