/* cycle.c: three 48-byte blocks pointing at each other in a ring, with no pointer from
 * outside: unreachable, and each is pointed to by another leaked block. */
#include <stdlib.h>
#include "scrub.h"

struct node {
    struct node *next;
    long payload[5];
};

__attribute__((noinline)) static void lose(void)
{
    struct node *a = malloc(sizeof *a), *b = malloc(sizeof *b), *c = malloc(sizeof *c);
    a->next = b;
    b->next = c;
    c->next = a;
    escape(a);
}

int main(void)
{
    lose();
    scrub();
    return 0;
}
