/* plugin.c: the library dlopen.c loads; it allocates through the malloc its loader binds. */
#include <stdlib.h>

void *plugin_make(unsigned long n)
{
    return malloc(n);
}

void plugin_drop(void *p)
{
    free(p);
}
