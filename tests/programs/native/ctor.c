/* ctor.c: frees a block a library constructor allocated (libctorlib.so, linked in), prints
 * its text and leaks nothing itself: 1 direct leak of 40 bytes, the constructor's. */
#include <stdio.h>
#include <stdlib.h>

extern char *ctor_kept;

int main(void)
{
    printf("%s\n", ctor_kept);
    free(ctor_kept);
    return 0;
}
