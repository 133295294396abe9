/* SPDX-License-Identifier: Apache-2.0 */
/* clocale.h: the C locale for the calling thread while the library formats or parses numbers
 * (base layer), prefix clocale_. printf's "%.1f" and strtod follow LC_NUMERIC: a program that
 * calls setlocale(LC_ALL, "") in a locale with a decimal comma made "27,7 %" of a suspect's
 * share, a JSON number "0,5" that no reader takes, and read a rule's 1.5 as 1. The library
 * changes nothing process-wide, so its entry points that format or parse switch their own
 * thread (uselocale) and switch it back on the way out. */
#ifndef LR_BASE_CLOCALE_H
#define LR_BASE_CLOCALE_H

#include <locale.h>

/* Puts the calling thread in the C locale; returns what clocale_leave restores. */
locale_t clocale_enter(void);
void clocale_leave(locale_t was);

#endif
