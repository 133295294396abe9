/* corexit.c: main keeps a block in a local, then runs a coroutine (makecontext, on a stack
 * of its own) that loses a 33-byte block and calls exit(): 1 direct leak, 33 bytes. The main
 * thread's stack pointer is then on the coroutine's stack, and main's own stack, which still
 * holds the 222-byte block, must be read all the same. */
#include <stdlib.h>
#include <ucontext.h>
#include "scrub.h"

static ucontext_t main_ctx, co_ctx;
static char co_stack[256 << 10];

__attribute__((noinline)) static void lose(void) { escape(malloc(33)); }

static void coroutine(void)
{
    lose();
    scrub();
    exit(0);
}

int main(void)
{
    void *volatile held = malloc(222);
    escape(held);
    getcontext(&co_ctx);
    co_ctx.uc_stack.ss_sp = co_stack;
    co_ctx.uc_stack.ss_size = sizeof co_stack;
    co_ctx.uc_link = &main_ctx;
    makecontext(&co_ctx, coroutine, 0);
    swapcontext(&main_ctx, &co_ctx);
    return 0;
}
