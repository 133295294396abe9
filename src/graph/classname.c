/* SPDX-License-Identifier: Apache-2.0 */
/* classname.c: class names as they stay from run to run (graph layer), prefix classname_;
 * see classname.h. One pass over the name, no allocation. */
#include "graph/classname.h"

#include <string.h>

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int is_alnum(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The length of the code generator's marker p starts with, whose class names end in a
 * random or counted suffix drawn anew in each run (ByteBuddy, and Hibernate's and Mockito's
 * classes through it, CGLIB and Spring's, Javassist), else 0. */
static size_t generated_marker(const char *p)
{
    static const char *const marks[] = {"$ByteBuddy$", "$HibernateProxy$", "$MockitoMock$",
                                        "$$EnhancerByCGLIB$$", "$$EnhancerBySpringCGLIB$$",
                                        "$$FastClassByCGLIB$$", "$$FastClassBySpringCGLIB$$",
                                        "$$SpringCGLIB$$", "_$$_jvst", "_$$_javassist_"};
    for (size_t i = 0; i < sizeof marks / sizeof *marks; i++) {
        size_t n = strlen(marks[i]);
        if (!strncmp(p, marks[i], n) && (is_alnum(p[n]) || p[n] == '_'))
            return n;
    }
    return 0;
}

/* Whether p starts a URL: letters, then "://". */
static int url_at(const char *p)
{
    size_t i = 0;
    while ((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z'))
        i++;
    return i > 0 && !strncmp(p + i, "://", 3);
}

void classname_stable(const char *cn, char *out, size_t cap)
{
    static const char lam[] = "$$Lambda", prx[] = "$Proxy", jpx[] = "jdk.proxy";
    const size_t nl = sizeof lam - 1, np = sizeof prx - 1, nj = sizeof jpx - 1;
    size_t o = 0;
    if (!cap)
        return;
    for (const char *p = cn ? cn : ""; *p;) {
        size_t keep = 1, k = 1; /* bytes of the input kept, and consumed */
        if (*p == '$' && !strncmp(p, lam, nl)) {
            size_t j = nl;
            if (p[j] == '$' && is_digit(p[j + 1]))
                for (j++; is_digit(p[j]);)
                    j++;
            if (p[j] == '/' || p[j] == '+' || (p[j] == '.' && is_digit(p[j + 1]))) {
                /* the JVM's lambda class: nothing after "$$Lambda" but array brackets
                 * (Android's "-$$Lambda$Activity$x8Kf..." is named by a hash: kept whole) */
                for (keep = nl, k = j; p[k] && p[k] != '[';)
                    k++;
            }
        } else if ((*p == '+' || *p == '/') && p[1] == '0' && (p[2] == 'x' || p[2] == 'X') &&
                   is_hex(p[3])) {
            for (keep = 0, k = 3; is_hex(p[k]);) /* a hidden class's address: dropped */
                k++;
        } else if (*p == '$' && !strncmp(p, prx, np) && is_digit(p[np])) {
            for (keep = np, k = np; is_digit(p[k]);)
                k++;
        } else if (p == cn && !strncmp(p, jpx, nj) && is_digit(p[nj])) {
            for (keep = nj, k = nj; is_digit(p[k]);) /* the proxies' module, per class loader */
                k++;
        } else if (*p == ' ' && p[1] == '/' && p[2] == ' ' && url_at(p + 3)) {
            /* a page's global object names the page ("Window / https://host:port/page"):
             * the same page served elsewhere is the same leak */
            for (keep = 3, k = 3; p[k] && p[k] != ' ' && p[k] != '[';)
                k++;
        } else if (*p == ' ' && p[1] == '@' && is_digit(p[2])) {
            /* a number the runtime draws per run after a name (Chromium's closure scopes,
             * "system / Context / scope @96363"): dropped when it ends the name */
            for (k = 2; is_digit(p[k]);)
                k++;
            if (!p[k] || p[k] == '[')
                keep = 0;
            else
                k = 1;
        } else if ((*p == '$' || *p == '_') && generated_marker(p)) {
            /* a code generator's class: the marker kept, the name it drew dropped */
            for (keep = k = generated_marker(p); is_alnum(p[k]) || p[k] == '_';)
                k++;
        }
        for (size_t q = 0; q < keep && o + 1 < cap; q++)
            out[o++] = p[q];
        p += k;
    }
    out[o] = 0;
}

int classname_stable_is(const char *cn, const char *stable)
{
    char buf[1024];
    classname_stable(cn, buf, sizeof buf);
    return !strcmp(buf, stable);
}
