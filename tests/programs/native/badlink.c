/* badlink.c: malloc called with a frame link that points nowhere, as code built without
 * frame pointers leaves it (%rbp = 0xfffffffffffffff0, an `& -16` mask): the monitor's
 * frame-pointer walk must end there, not read past the top of the address space. One block
 * kept (no leak) and one lost: 1 direct leak of 48 bytes. */
#include <stdint.h>
#include <stdlib.h>
#include "scrub.h"

void *kept;

__attribute__((noinline)) static void *malloc_bad_link(void)
{
    void *p;
    __asm__ volatile("mov %%rsp, %%rbx\n\t"
                     "sub $128, %%rsp\n\t" /* past the red zone */
                     "and $-16, %%rsp\n\t"
                     "mov %%rbp, %%r12\n\t"
                     "mov $-16, %%rbp\n\t"
                     "mov $64, %%edi\n\t"
                     "call malloc@PLT\n\t"
                     "mov %%r12, %%rbp\n\t"
                     "mov %%rbx, %%rsp"
                     : "=a"(p)
                     :
                     : "rbx", "r12", "rdi", "rsi", "rdx", "rcx", "r8", "r9", "r10", "r11",
                       "memory", "cc");
    return p;
}

__attribute__((noinline)) static void lose(void)
{
    escape(malloc(48));
}

int main(void)
{
    kept = malloc_bad_link();
    lose();
    scrub();
    return 0;
}
