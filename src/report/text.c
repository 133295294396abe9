/* SPDX-License-Identifier: Apache-2.0 */
/* text.c: the LeakCanary 2.14 text report (report layer), prefix rep_. Pure formatting of a
 * trace_result: no analysis happens here. Column arithmetic counts code points, not bytes,
 * because the "~~~" underline is aligned under a reference name that follows "↓" (three
 * UTF-8 bytes, one column). The leaking object's detail lines start with U+200B + five
 * spaces, as Shark prints them. Layout: docs/research/hprof-leakcanary-shark.md section 12.
 * With a category set, a trace's runs of one category (analysis/collapse.c) print as one
 * step followed by the reference leaving the run's last object. */
#include "report/text.h"

#include <stdlib.h>
#include <string.h>

#define REP_LINE "===================================="
#define REP_ZWSP "\xe2\x80\x8b"

const char *rep_human_bytes(char *buf, uint64_t bytes)
{
    if (bytes < 1000) {
        snprintf(buf, 32, "%llu B", (unsigned long long)bytes);
        return buf;
    }
    static const char units[] = "kMGTPE";
    double v = (double)bytes;
    int exp = 0;
    while (v >= 1000.0 && exp < 6) {
        v /= 1000.0;
        exp++;
    }
    snprintf(buf, 32, "%.1f %cB", v, units[exp - 1]);
    return buf;
}

static size_t columns(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += (*p & 0xc0) != 0x80;
    return n;
}

static const char *type_name(const graph *g, node_ix n)
{
    switch (g->node_kind[n]) {
    case GRAPH_KIND_CLASS: return "class";
    case GRAPH_KIND_OBJ_ARRAY:
    case GRAPH_KIND_PRIM_ARRAY: return "array";
    default: return "instance";
    }
}

static void put_lines(FILE *out, const char *prefix, const char *text)
{
    const char *p = text;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(out, "\n%s%.*s", prefix, (int)len, p);
        p = nl ? nl + 1 : NULL;
    }
}

static void put_object(FILE *out, const graph *g, const trace_elem *e, const char *first,
                       const char *more)
{
    fprintf(out, "%s%s %s", first, e->class_name ? e->class_name : "", type_name(g, e->node));
    const char *st = e->status == TRACE_YES ? "YES" : e->status == TRACE_NO ? "NO" : "UNKNOWN";
    if (e->status != TRACE_UNKNOWN && e->reason && *e->reason)
        fprintf(out, "\n%sLeaking: %s (%s)", more, st, e->reason);
    else
        fprintf(out, "\n%sLeaking: %s", more, st);
    if (e->has_retained && e->status != TRACE_NO) {
        char b[32];
        fprintf(out, "\n%sRetaining %s in %llu objects", more, rep_human_bytes(b, e->retained),
                (unsigned long long)e->retained_count);
    }
    put_lines(out, more, e->labels);
}

static void put_root(FILE *out, const graph *g, const trace *t)
{
    unsigned rk = t->root < g->n_roots ? g->roots[t->root].kind : GRAPH_ROOT_UNKNOWN;
    fprintf(out, "\xe2\x94\xac\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\n"
                 "\xe2\x94\x82 GC Root: %s\n\xe2\x94\x82",
            trace_root_description(rk));
}

/* The "↓ owner.name" line (and its "~~~" underline) of the reference leaving e. */
static void put_ref(FILE *out, const trace_elem *e)
{
    char prefix[600], name[600];
    int field = e->ref_type == TRACE_REF_INSTANCE || e->ref_type == TRACE_REF_STATIC;
    snprintf(prefix, sizeof prefix, "    \xe2\x86\x93%s %s%s",
             e->ref_type == TRACE_REF_STATIC ? " static" : "", e->owner ? e->owner : "",
             field ? "." : "");
    trace_ref_display(e, name, sizeof name);
    fprintf(out, "\n\xe2\x94\x82%s%s", prefix, name);
    if (e->suspect) {
        fputs("\n\xe2\x94\x82", out);
        for (size_t k = columns(prefix); k > 0; k--)
            fputc(' ', out);
        for (size_t k = columns(name); k > 0; k--)
            fputc('~', out);
    }
}

/* "1,234,567" into buf (32 bytes). */
static const char *grouped(char *buf, uint64_t v)
{
    char d[24];
    int n = snprintf(d, sizeof d, "%llu", (unsigned long long)v), o = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = d[i];
    }
    buf[o] = 0;
    return buf;
}

/* The line standing for the path objects a trace left out (trace.h, trace_opts). */
static void put_elided(FILE *out, const trace *t)
{
    char b[32];
    fprintf(out, "\n\xe2\x94\x82\n\xe2\x94\x82    \xe2\x80\xa6 %s more reference%s "
                 "\xe2\x80\xa6 (--full shows them)\n\xe2\x94\x82",
            grouped(b, t->elided), t->elided == 1 ? "" : "s");
}

void rep_text_trace(FILE *out, const graph *g, const trace *t)
{
    put_root(out, g, t);
    for (uint32_t i = 0; i + 1 < t->n; i++) {
        if (t->elided && i == t->n_head)
            put_elided(out, t);
        fputc('\n', out);
        put_object(out, g, &t->el[i], "\xe2\x94\x9c\xe2\x94\x80 ", "\xe2\x94\x82    ");
        put_ref(out, &t->el[i]);
    }
    if (t->elided && t->n_head + 1 >= t->n)
        put_elided(out, t);
    fputc('\n', out);
    put_object(out, g, &t->el[t->n - 1], "\xe2\x95\xb0\xe2\x86\x92 ", REP_ZWSP "     ");
}

void rep_text_trace_collapsed(FILE *out, const graph *g, const trace *t, const cat_set *cs)
{
    uint32_t n = t->n ? t->n - 1 : 0; /* the leaking object stays on its own */
    node_ix *nodes = calloc(n ? n : 1, sizeof *nodes);
    collapse_line *ln = malloc((n ? n : 1) * sizeof *ln);
    if (!nodes || !ln || !cs) { /* no memory: the full trace says the same, only longer */
        free(nodes);
        free(ln);
        rep_text_trace(out, g, t);
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        nodes[i] = t->el[i].node;
    /* both ends of a path with its middle left out are collapsed on their own */
    uint32_t h = t->elided && t->n_head < n ? t->n_head : n;
    uint32_t n_ln = collapse_path(cs, nodes, h, ln), n_h = n_ln;
    if (h < n) {
        n_ln += collapse_path(cs, nodes + h, n - h, ln + n_ln);
        for (uint32_t i = n_h; i < n_ln; i++) {
            ln[i].first += h;
            ln[i].last += h;
        }
    }
    put_root(out, g, t);
    for (uint32_t i = 0; i < n_ln; i++) {
        const collapse_line *l = &ln[i];
        if (t->elided && i == n_h)
            put_elided(out, t);
        const trace_elem *a = &t->el[l->first], *z = &t->el[l->last];
        fputc('\n', out);
        if (l->first == l->last) {
            put_object(out, g, a, "\xe2\x94\x9c\xe2\x94\x80 ", "\xe2\x94\x82    ");
        } else {
            fprintf(out, "\xe2\x94\x9c\xe2\x94\x80 %u x %s: %s %s ... %s %s",
                    collapse_count(l), cat_name(cs, l->cat), a->class_name ? a->class_name : "",
                    type_name(g, a->node), z->class_name ? z->class_name : "",
                    type_name(g, z->node));
            if (l->collections)
                fprintf(out, " (through %u collection object%s)", l->collections,
                        l->collections == 1 ? "" : "s");
        }
        put_ref(out, z);
    }
    free(nodes);
    free(ln);
    if (t->elided && n_h == n_ln)
        put_elided(out, t);
    fputc('\n', out);
    put_object(out, g, &t->el[t->n - 1], "\xe2\x95\xb0\xe2\x86\x92 ", REP_ZWSP "     ");
}

static void put_group(FILE *out, const graph *g, const rules_set *rs, const trace_result *tr,
                      const trace_group *gr, const cat_set *cs)
{
    if (gr->library) {
        const rules_ref *r = &rs->refs[gr->lib];
        fprintf(out, "Leak pattern: %s\nDescription: %s\n", r->pattern, r->description);
    }
    if (gr->retained || gr->retained_count)
        fprintf(out, "%llu bytes retained by leaking objects\n",
                (unsigned long long)gr->retained);
    if (gr->n > 1)
        fprintf(out, "Displaying only 1 leak trace out of %u with the same signature\n", gr->n);
    fprintf(out, "Signature: %s\n", gr->fingerprint);
    if (cs)
        rep_text_trace_collapsed(out, g, &tr->traces[gr->traces[0]], cs);
    else
        rep_text_trace(out, g, &tr->traces[gr->traces[0]]);
    if (gr->library)
        fputc('\n', out);
}

/* The line after the groups a section did not print (rep_text_opts.max_traces). */
static void put_more(FILE *out, uint32_t n, uint32_t shown)
{
    char b[32];
    if (n > shown)
        fprintf(out, "%s\xe2\x80\xa6 %s more leak trace%s with other signatures \xe2\x80\xa6 "
                     "(--max-traces N or --full shows them)",
                shown ? "\n\n" : "", grouped(b, n - shown), n - shown == 1 ? "" : "s");
}

void rep_text_analysis(FILE *out, const graph *g, const rules_set *rs, const leak_set *ls,
                       const trace_result *tr, const rep_text_opts *o)
{
    uint32_t n_app = tr->n_app_groups, n_lib = tr->n_groups - tr->n_app_groups;
    uint32_t max = o->max_traces ? o->max_traces : UINT32_MAX;
    fprintf(out, REP_LINE "\nHEAP ANALYSIS RESULT\n" REP_LINE "\n");
    fprintf(out, "%u APPLICATION LEAKS\n\nReferences underlined with \"~~~\" are likely causes.\n"
                 "Learn more at https://squ.re/leaks.\n",
            n_app);
    if (n_app) {
        fputc('\n', out);
        for (uint32_t i = 0; i < n_app && i < max; i++) {
            if (i)
                fputs("\n\n", out);
            put_group(out, g, rs, tr, &tr->groups[i], o->collapse);
        }
        put_more(out, n_app, max);
        fputc('\n', out);
    }
    fprintf(out, REP_LINE "\n%u LIBRARY LEAKS\n\nA Library Leak is a leak caused by a known bug "
                 "in 3rd party code that you do not have control over.\nSee "
                 "https://square.github.io/leakcanary/fundamentals-how-leakcanary-works/"
                 "#4-categorizing-leaks\n",
            n_lib);
    if (n_lib) {
        fputc('\n', out);
        uint32_t lmax = max > n_app ? max - n_app : 0;
        for (uint32_t i = 0; i < n_lib && i < lmax; i++) {
            if (i)
                fputs("\n\n", out);
            put_group(out, g, rs, tr, &tr->groups[n_app + i], o->collapse);
        }
        put_more(out, n_lib, lmax);
        fputc('\n', out);
    }
    fprintf(out, REP_LINE "\n%u UNREACHABLE OBJECTS\n\nAn unreachable object is still in memory "
                 "but LeakCanary could not find a strong reference path\nfrom GC roots.\n",
            tr->n_unreachable);
    if (tr->n_unreachable) {
        fputc('\n', out);
        for (uint32_t i = 0; i < tr->n_unreachable; i++) {
            if (i)
                fputs("\n\n", out);
            put_object(out, g, &tr->unreachable[i].el, "", REP_ZWSP "     ");
        }
        fputc('\n', out);
    }
    fprintf(out, REP_LINE "\nMETADATA\n\nPlease include this in bug reports and Stack Overflow "
                 "questions.\n");
    /* metadata keys as Shark's metadata extractors name them */
    uint64_t cls = 0, inst = 0, prim = 0, objarr = 0, bytes = 0;
    for (uint32_t n = 0; n < g->n_nodes; n++) {
        switch (g->node_kind[n]) {
        case GRAPH_KIND_CLASS: cls++; break;
        case GRAPH_KIND_OBJ_ARRAY: objarr++; break;
        case GRAPH_KIND_PRIM_ARRAY: prim++; break;
        default: inst++; break;
        }
        bytes += graph_node_size(g, n);
    }
    fputc('\n', out);
    if (rs && rs->build.is_android) {
        if (rs->build.has_sdk)
            fprintf(out, "Build.VERSION.SDK_INT: %lld\n", (long long)rs->build.sdk);
        fprintf(out, "Build.MANUFACTURER: %s\n", rs->build.manufacturer);
    }
    if (ls->n_kwrs)
        fprintf(out, "Count of retained yet cleared: %u KeyedWeakReference instances\n",
                ls->n_cleared);
    if (o->suspects)
        fprintf(out, "Leaking objects: leak suspects (no watched objects or leaking rules "
                     "matched)\n");
    fprintf(out, "Class count: %llu\nInstance count: %llu\nPrimitive array count: %llu\n"
                 "Object array count: %llu\nThread count: %u\nHeap total bytes: %llu\n",
            (unsigned long long)cls, (unsigned long long)inst, (unsigned long long)prim,
            (unsigned long long)objarr, g->n_threads, (unsigned long long)bytes);
    if (!o->no_timing)
        fprintf(out, "Analysis duration: %.0f ms\n", o->analysis_ms);
    fprintf(out, "Heap dump file path: %s\n", o->dump_path ? o->dump_path : g->path);
    fprintf(out, "Heap dump timestamp: %llu\n", (unsigned long long)g->timestamp_ms);
    fprintf(out, "Heap dump duration: Unknown\n" REP_LINE "\n");
}
