/* noleak.c: allocates through many paths (strdup, realloc growth, calloc, stdio, getline,
 * reallocarray, threads) and frees or keeps everything reachable: no leaks. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scrub.h"

struct node {
    struct node *next;
    char *name;
};
struct node *head;

static void *work(void *arg)
{
    for (int i = 0; i < 100; i++)
        free(strdup("temporary"));
    return NULL;
}

int main(void)
{
    for (int i = 0; i < 50; i++) {
        struct node *n = calloc(1, sizeof *n);
        n->name = strdup("node");
        n->next = head;
        head = n;
    }
    char *buf = NULL;
    for (size_t n = 1; n < 100000; n *= 2)
        buf = realloc(buf, n);
    free(buf);
    int *arr = reallocarray(NULL, 100, sizeof(int));
    free(arr);
    FILE *f = fopen("/proc/self/status", "r");
    char *line = NULL;
    size_t cap = 0;
    while (f && getline(&line, &cap, f) > 0)
        ;
    free(line);
    if (f)
        fclose(f);
    pthread_t t;
    pthread_create(&t, NULL, work, NULL);
    pthread_join(t, NULL);
    scrub();
    return 0;
}
