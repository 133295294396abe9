/* SPDX-License-Identifier: Apache-2.0 */
/* vecreg.c [clear]: a worker thread keeps the only pointer to a 320-byte block in xmm3 while
 * it spins (its allocating frame has returned and it zeroes the caller-saved general
 * registers); main calls exit() once the worker is spinning. Not a leak: a stopped thread's
 * SSE registers are roots, as LeakSanitizer takes them. With "clear" the worker zeroes xmm3
 * first: then the block is a leak (320 bytes in 1 block). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int spinning;
static int clear;

__attribute__((noinline)) static void hide(void)
{
    void *p = malloc(320);
    memset(p, 'v', 320);
    __asm__ volatile("movq %0, %%xmm3" : : "r"(p) : "xmm3");
}

static void *worker(void *arg)
{
    (void)arg;
    hide();
    if (clear)
        __asm__ volatile("pxor %%xmm3, %%xmm3" : : : "xmm3");
    __asm__ volatile("xor %%eax, %%eax\n\txor %%ecx, %%ecx\n\txor %%edx, %%edx\n\t"
                     "xor %%esi, %%esi\n\txor %%edi, %%edi\n\txor %%r8d, %%r8d\n\t"
                     "xor %%r9d, %%r9d\n\txor %%r10d, %%r10d\n\txor %%r11d, %%r11d"
                     :
                     :
                     : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory");
    spinning = 1;
    for (;;)
        __asm__ volatile("pause" : : : "memory");
    return NULL;
}

int main(int argc, char **argv)
{
    clear = argc > 1 && strcmp(argv[1], "clear") == 0;
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    while (!spinning)
        usleep(1000);
    usleep(100000);
    puts("vecreg exit");
    exit(0);
}
