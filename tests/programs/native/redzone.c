/* SPDX-License-Identifier: Apache-2.0 */
/* redzone.c [clear]: a worker thread keeps the only pointer to a 208-byte block in its red
 * zone, 64 bytes below its stack pointer, as a leaf function compiled at -O2 may, and spins
 * there (the 128 bytes below the stack pointer zeroed first, the scratch registers cleared);
 * main calls exit() once the worker is spinning. Not a leak: the x86-64 ABI keeps those bytes
 * for the function, and a signal is delivered below them. With "clear" the worker stores 0
 * there instead: then the block is a leak (208 bytes in 1 block). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int spinning;
static int clear;

__attribute__((noinline)) static void *hide(void)
{
    void *p = malloc(208);
    memset(p, 'r', 208);
    return p;
}

static void *worker(void *arg)
{
    (void)arg;
    uintptr_t p = (uintptr_t)hide();
    uintptr_t keep = clear ? 0 : p;
    __asm__ volatile("mov %%rax, %%rdx\n\t"
                     "lea -128(%%rsp), %%rdi\n\t"
                     "mov $16, %%ecx\n\t"
                     "xor %%eax, %%eax\n\t"
                     "rep stosq\n\t"
                     "mov %%rdx, -64(%%rsp)\n\t"
                     "xor %%edx, %%edx\n\txor %%esi, %%esi\n\txor %%edi, %%edi\n\t"
                     "xor %%r8d, %%r8d\n\txor %%r9d, %%r9d\n\txor %%r10d, %%r10d\n\t"
                     "xor %%r11d, %%r11d\n\t"
                     "movl $1, %0\n\t"
                     "1: pause\n\t"
                     "jmp 1b"
                     : "=m"(spinning)
                     : "a"(keep)
                     : "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory");
    __builtin_unreachable();
}

int main(int argc, char **argv)
{
    clear = argc > 1 && strcmp(argv[1], "clear") == 0;
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    while (!spinning)
        usleep(1000);
    usleep(100000);
    puts("redzone exit");
    exit(0);
}
