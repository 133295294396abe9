/* SPDX-License-Identifier: Apache-2.0 */
/* nopie.c: built -no-pie, a program whose code takes malloc's address (an allocation table,
 * as CPython's raw allocator and node keep): the executable's dynamic symbols then list
 * malloc undefined with a canonical PLT address, which dlsym(RTLD_DEFAULT) returns. Calls
 * still reach the monitor. Leaks 3 blocks of 96 bytes through the table and 2 of 48 by
 * direct calls: 384 bytes in 5 blocks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct table {
    void *(*alloc)(size_t);
    void (*release)(void *);
};
static struct table tbl;

__attribute__((noinline)) static void set_up(void)
{
    tbl.alloc = malloc;
    tbl.release = free;
}

int main(void)
{
    set_up();
    for (int i = 0; i < 3; i++) {
        char *p = tbl.alloc(96);
        memset(p, 'a', 96);
        __asm__ volatile("" : : "r"(p) : "memory"); /* the pointer dies here */
    }
    for (int i = 0; i < 2; i++) {
        char *p = malloc(48);
        memset(p, 'b', 48);
        __asm__ volatile("" : : "r"(p) : "memory");
    }
    void *kept = tbl.alloc(16);
    tbl.release(kept);
    puts("nopie done");
    return 0;
}
