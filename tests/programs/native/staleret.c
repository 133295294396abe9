/* staleret.c: stale.c returning from main instead of calling exit(). */
#define STALE_RETURN 1
#include "stale.c"
