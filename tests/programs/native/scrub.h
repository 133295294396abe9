/* scrub.h: shared by the native monitor's test programs. Each program's expected leaks must
 * not depend on stale copies of lost pointers, so after losing them a program zeroes the
 * stack below its frame (where the losing calls ran) and the scratch registers. */
#ifndef SCRUB_H
#define SCRUB_H
#include <string.h>

__attribute__((noinline)) static void scrub(void)
{
    volatile char buf[65536];
    memset((char *)buf, 0, sizeof buf);
    __asm__ volatile("xor %%eax, %%eax\n\txor %%ecx, %%ecx\n\txor %%edx, %%edx\n\t"
                     "xor %%esi, %%esi\n\txor %%edi, %%edi\n\txor %%r8d, %%r8d\n\t"
                     "xor %%r9d, %%r9d\n\txor %%r10d, %%r10d\n\txor %%r11d, %%r11d"
                     ::: "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11",
                     "memory");
}

/* Keeps the compiler from deleting an allocation whose pointer is then dropped. */
__attribute__((noinline)) static void escape(void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}
#endif
