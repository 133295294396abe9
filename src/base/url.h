/* SPDX-License-Identifier: Apache-2.0 */
/* url.h: database addresses as messages and pages show them (base layer), prefix url_. */
#ifndef LR_BASE_URL_H
#define LR_BASE_URL_H

#include <stddef.h>

/* Copies url into out (at most cap bytes, NUL-terminated) with the password of a libpq URI
 * (user:secret@host) or of a key=value parameter (password=secret, ?password=secret&...)
 * replaced by ***, however often it appears. */
void url_hide_password(const char *url, char *out, size_t cap);

#endif
