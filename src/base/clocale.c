/* SPDX-License-Identifier: Apache-2.0 */
/* clocale.c: the C locale for the calling thread (see clocale.h). The locale object is made
 * once and kept for the process's life; where it cannot be made (out of memory), the thread
 * stays in its locale, as before. */
#define _GNU_SOURCE
#include "base/clocale.h"

#include <pthread.h>

static locale_t c_locale = (locale_t)0;
static pthread_once_t c_once = PTHREAD_ONCE_INIT;

static void make_c(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

locale_t clocale_enter(void)
{
    pthread_once(&c_once, make_c);
    return c_locale ? uselocale(c_locale) : (locale_t)0;
}

void clocale_leave(locale_t was)
{
    if (was)
        uselocale(was);
}
