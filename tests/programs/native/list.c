/* list.c: a linked list of 10 nodes whose head pointer is dropped: the head is a direct
 * leak, the 9 nodes it leads to are indirect (1 direct of 32 bytes, 9 indirect, 288 bytes). */
#include <stdlib.h>
#include "scrub.h"

struct node {
    struct node *next;
    long payload[3];
};

__attribute__((noinline)) static void lose(void)
{
    struct node *head = NULL;
    for (int i = 0; i < 10; i++) {
        struct node *n = malloc(sizeof *n);
        n->next = head;
        n->payload[0] = i;
        head = n;
    }
    escape(head);
}

int main(void)
{
    lose();
    scrub();
    return 0;
}
