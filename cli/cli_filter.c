/* SPDX-License-Identifier: Apache-2.0 */
/* cli_filter.c: --class GLOB / --package P filters of histo and top (cli), prefix
 * cli_filter_. Matching is fnmatch(3) without FNM_PATHNAME, so `*` spans dots and `$`; a
 * pattern equal to the name matches too, whatever brackets it holds, a hidden class's
 * JVM spelling (`/0x`) the dump's (`+0x`), and a name as signatures give it (`Foo$$Lambda`)
 * every class it stands for. */
#include "cli_filter.h"
#include "graph/classname.h"
#include "report/fmt.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

int cli_filter_active(const cli_filter *f)
{
    return f->classes.n > 0 || f->packages.n > 0;
}

/* Whether name lies in package p ("p" itself as a class name, or "p.anything"). */
static int in_package(const char *p, const char *name)
{
    size_t n = strlen(p);
    while (n && (p[n - 1] == '.' || p[n - 1] == '*'))
        n--; /* "com.example.*" and "com.example." mean the package */
    return n && strncmp(name, p, n) == 0 && (name[n] == '.' || name[n] == 0);
}

/* A hidden class spelled as the JVM prints it (`jmap -histo`, Class.getName():
 * `Foo$$Lambda/0x...`) matches the dump's name for it, which has '+' for the '/'. */
static int hidden_match(const char *pat, const char *name)
{
    const char *slash = strstr(pat, "/0x");
    char buf[1024];
    if (!slash || strlen(pat) >= sizeof buf)
        return 0;
    memcpy(buf, pat, strlen(pat) + 1);
    buf[slash - pat] = '+';
    return strcmp(buf, name) == 0 || fnmatch(buf, name, 0) == 0;
}

/* A name as signatures, `diff` rows and `--watch` give it (classname_stable): `Foo$$Lambda`
 * matches every lambda class of Foo, a hidden class's name without its address. */
static int stable_match(const char *pat, const char *name)
{
    return classname_stable_is(name, pat);
}

int cli_filter_match(const cli_filter *f, const char *name)
{
    int includes = 0, included = 0;
    for (int i = 0; i < f->classes.n; i++) {
        const char *v = f->classes.v[i];
        int neg = v[0] == '!';
        /* a name as leakray prints it matches itself, brackets and all: `int[][]` or
         * `Window [JSGlobalObject] / file://` read as a glob matched nothing */
        int hit = strcmp(v + neg, name) == 0 || fnmatch(v + neg, name, 0) == 0 ||
                  hidden_match(v + neg, name) || stable_match(v + neg, name);
        if (neg && hit)
            return 0;
        includes += !neg;
        included |= !neg && hit;
    }
    for (int i = 0; i < f->packages.n; i++) {
        const char *v = f->packages.v[i];
        int neg = v[0] == '!';
        int hit = in_package(v + neg, name);
        if (neg && hit)
            return 0;
        includes += !neg;
        included |= !neg && hit;
    }
    return !includes || included;
}

uint8_t *cli_filter_classes(const cli_filter *f, const graph *g)
{
    uint8_t *keep = malloc(g->n_classes ? g->n_classes : 1);
    for (class_ix c = 0; keep && c < g->n_classes; c++)
        keep[c] = (uint8_t)cli_filter_match(f, graph_str(g, g->classes[c].name));
    return keep;
}

void cli_filter_csv_name(const char *s)
{
    rep_fmt_csv(stdout, s);
}
