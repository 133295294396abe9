/* SPDX-License-Identifier: Apache-2.0 */
/* url.c: database addresses as messages and pages show them (base layer), prefix url_. A
 * PostgreSQL store is named by a libpq URI or key=value string that may carry a password;
 * every message and page that names the store goes through here first, and so does a
 * message of libpq's that may quote a piece of it. */
#include "base/url.h"

#include <stdio.h>
#include <string.h>

#define URL_MAX_SPANS 16

typedef struct span {
    size_t at, len;
} span;

static int is_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* Whether p starts a key=value pair ("  sslmode = require"): the end of an unquoted value
 * in libpq's key=value form, which a password with a space in it would otherwise pass. */
static int starts_pair(const char *p)
{
    p += strspn(p, " \t");
    if (!is_word(*p))
        return 0;
    while (is_word(*p))
        p++;
    p += strspn(p, " \t");
    return *p == '=';
}

/* The passwords in url: the user:secret@ of a URI, and every password=VALUE and
 * sslpassword=VALUE (a URI's query ends it at '&'; libpq's key=value form quotes it with
 * backslash escapes, or ends it where the next pair begins). Returns how many, at most
 * max. */
static size_t secret_spans(const char *url, span *v, size_t max)
{
    size_t n = 0;
    const char *scheme = strstr(url, "://");
    if (scheme) {
        const char *auth = scheme + 3;
        size_t alen = strcspn(auth, "/?#");
        const char *at = NULL;
        for (const char *p = auth; p < auth + alen; p++)
            if (*p == '@')
                at = p; /* the last '@': a password may hold one unencoded */
        const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
        if (colon && n < max)
            v[n++] = (span){(size_t)(colon + 1 - url), (size_t)(at - colon - 1)};
    }
    const char *query = scheme ? strchr(scheme, '?') : NULL;
    for (const char *pw = url; n < max && (pw = strstr(pw, "password")) != NULL;) {
        const char *p = pw + 8;
        p += strspn(p, " \t");
        /* sslpassword= (the client key's passphrase) is one too; mypassword= is not */
        const char *key = pw >= url + 3 && !strncmp(pw - 3, "ssl", 3) ? pw - 3 : pw;
        if (*p != '=' || (key > url && is_word(key[-1]))) {
            pw += 8;
            continue;
        }
        p++;
        p += strspn(p, " \t");
        const char *e = p;
        if (query && p > query) {
            e += strcspn(p, "&#");
        } else if (*p == '\'') {
            for (e = p + 1; *e && *e != '\''; e++)
                if (*e == '\\' && e[1])
                    e++;
            if (*e)
                e++;
        } else {
            while (*e && !((*e == ' ' || *e == '\t') && starts_pair(e)))
                e++;
            while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
                e--;
        }
        v[n++] = (span){(size_t)(p - url), (size_t)(e - p)};
        pw = e;
    }
    return n;
}

void url_hide_password(const char *url, char *out, size_t cap)
{
    if (!cap)
        return;
    span v[URL_MAX_SPANS];
    size_t n = secret_spans(url, v, URL_MAX_SPANS), o = 0, i = 0;
    for (size_t k = 0; k <= n; k++) {
        size_t end = k < n ? v[k].at : strlen(url);
        if (end < i) /* overlapping spans: the earlier one covered it */
            end = i;
        size_t take = end - i < cap - 1 - o ? end - i : cap - 1 - o;
        memcpy(out + o, url + i, take);
        o += take;
        if (k == n || o + 3 >= cap)
            break;
        memcpy(out + o, "***", 3);
        o += 3;
        i = v[k].at + v[k].len > end ? v[k].at + v[k].len : end;
    }
    out[o] = 0;
}

/* Whether s[0..len) lies within one of url's passwords. */
static int in_secret(const char *url, const span *v, size_t n, const char *s, size_t len)
{
    for (size_t k = 0; k < n; k++)
        for (size_t j = 0; len && j + len <= v[k].len; j++)
            if (memcmp(url + v[k].at + j, s, len) == 0)
                return 1;
    return 0;
}

/* Replaces msg[at..at+len) by "***", or by as many '*' where the message has no room. */
static void mask(char *msg, size_t cap, size_t at, size_t len)
{
    size_t total = strlen(msg);
    if (len >= 3 || total + (3 - len) < cap) {
        memmove(msg + at + 3, msg + at + len, total - at - len + 1);
        memcpy(msg + at, "***", 3);
    } else {
        memset(msg + at, '*', len);
    }
}

void url_hide_in_message(const char *url, char *msg, size_t cap)
{
    span v[URL_MAX_SPANS];
    size_t n = secret_spans(url, v, URL_MAX_SPANS);
    if (!n || !cap)
        return;
    /* libpq quotes the piece of the string it could not parse ("50%off"): a quoted piece
     * that is part of a password goes */
    for (char *q = strchr(msg, '"'); q;) {
        char *e = strchr(q + 1, '"');
        if (!e)
            break;
        size_t len = (size_t)(e - q - 1);
        if (len && in_secret(url, v, n, q + 1, len)) {
            mask(msg, cap, (size_t)(q + 1 - msg), len);
            e = strchr(q + 1, '"');
        }
        q = strchr(e + 1, '"');
    }
    /* and a whole password, wherever it stands */
    for (size_t k = 0; k < n; k++) {
        char pw[512];
        if (v[k].len < 4 || v[k].len >= sizeof pw)
            continue;
        memcpy(pw, url + v[k].at, v[k].len);
        pw[v[k].len] = 0;
        for (char *hit = strstr(msg, pw); hit; hit = strstr(hit + 3, pw))
            mask(msg, cap, (size_t)(hit - msg), v[k].len);
    }
}
