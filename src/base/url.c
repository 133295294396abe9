/* SPDX-License-Identifier: Apache-2.0 */
/* url.c: database addresses as messages and pages show them (base layer), prefix url_. A
 * PostgreSQL store is named by a libpq URI or key=value string that may carry a password;
 * every message and page that names the store goes through here first. */
#include "base/url.h"

#include <stdio.h>
#include <string.h>

void url_hide_password(const char *url, char *out, size_t cap)
{
    if (!cap)
        return;
    snprintf(out, cap, "%s", url);
    /* postgres://user:secret@host/... */
    char *scheme = strstr(out, "://");
    char *at = scheme ? strchr(scheme + 3, '@') : NULL;
    char *colon = scheme ? strchr(scheme + 3, ':') : NULL;
    if (at && colon && colon < at) {
        size_t tail = strlen(at);
        if ((size_t)(colon + 4 - out) + tail < cap) {
            memmove(colon + 4, at, tail + 1);
            memcpy(colon + 1, "***", 3);
        }
    }
    /* ?password=secret&... and password=secret in a key=value string, however often */
    for (char *pw = out; (pw = strstr(pw, "password")) != NULL;) {
        char *v = pw + 8;
        v += strspn(v, " \t");
        if (*v != '=') {
            pw += 8;
            continue;
        }
        v++;
        v += strspn(v, " \t");
        size_t len = *v == '\'' ? strcspn(v + 1, "'") + 2 : strcspn(v, "& \t");
        if (len > strlen(v))
            len = strlen(v);
        size_t tail = strlen(v + len);
        if ((size_t)(v - out) + 3 + tail >= cap)
            break;
        memmove(v + 3, v + len, tail + 1);
        memcpy(v, "***", 3);
        pw = v + 3;
    }
}
