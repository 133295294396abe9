/* SPDX-License-Identifier: Apache-2.0 */
/* url.h: database addresses as messages and pages show them (base layer), prefix url_. */
#ifndef LR_BASE_URL_H
#define LR_BASE_URL_H

#include <stddef.h>

/* Copies url into out (at most cap bytes, NUL-terminated) with the password of a libpq URI
 * (user:secret@host) or of a key=value parameter (password=secret, ?password=secret&...,
 * password='it\'s' quoted as libpq quotes) replaced by ***, however often it appears. */
void url_hide_password(const char *url, char *out, size_t cap);
/* In msg (a NUL-terminated message of cap bytes about url, libpq's own), replaces by ***
 * each quoted piece that is part of one of url's passwords (libpq quotes what it could not
 * parse) and each whole password. */
void url_hide_in_message(const char *url, char *msg, size_t cap);

#endif
