/* forks.c: the process forks; the child allocates, frees and leaves with _exit; the parent
 * then drops two 80-byte blocks (2 direct leaks, 160 bytes, in the parent only). */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "scrub.h"

__attribute__((noinline)) static void lose(void)
{
    escape(malloc(80));
    escape(malloc(80));
}

int main(void)
{
    void *before = malloc(128);
    pid_t pid = fork();
    if (pid == 0) {
        char *s = strdup("child");
        free(before);
        free(s);
        for (int i = 0; i < 1000; i++)
            free(malloc((size_t)i + 1));
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    free(before);
    lose();
    scrub();
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
