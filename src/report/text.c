/* SPDX-License-Identifier: Apache-2.0 */
/* text.c: the LeakCanary 2.14 text report (report layer), prefix rep_. Pure formatting of a
 * trace_result: no analysis happens here. Column arithmetic counts code points, not bytes,
 * because the "~~~" underline is aligned under a reference name that follows "↓" (three
 * UTF-8 bytes, one column). The leaking object's detail lines start with five spaces, after a
 * U+200B only where the caller asks (rep_text_opts.zwsp): Shark adds that zero-width space so
 * logcat keeps the indentation, and in a file or a pipe it is an invisible byte that breaks
 * grep and diff. Layout: docs/research/hprof-leakcanary-shark.md section 12.
 * With a category set, a trace's runs of one category (analysis/collapse.c) print as one
 * step followed by the reference leaving the run's last object. */
#include "report/text.h"

#include "report/analyze_json.h"
#include "report/fmt.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define REP_LINE "===================================="
#define REP_ZWSP "\xe2\x80\x8b"

/* Detail-line prefix of the leaking object; rep_text_analysis sets it from opts->zwsp for the
 * duration of one report (rep_text_trace alone never adds the zero-width space). */
static _Thread_local const char *rep_detail = "     ";
static _Thread_local const char *rep_detail_unreachable = "  ";

const char *rep_human_bytes(char *buf, uint64_t bytes)
{
    if (bytes < 1000) {
        snprintf(buf, 32, "%llu B", (unsigned long long)bytes);
        return buf;
    }
    static const char units[] = "kMGTPE";
    uint64_t d = 1;
    int exp = 0;
    while (bytes / d >= 1000 && exp < 6) {
        d *= 1000;
        exp++;
    }
    /* Tenths rounded half up on the exact quotient, as Java's "%.1f" rounds the decimal
     * digits (Shark prints so): 107,050 B is 107.1 kB, where binary 107.05 gave 107.0. */
    uint64_t q = bytes / d, r = bytes % d;
    uint64_t tenths = q * 10 + (r * 10 + d / 2) / d;
    snprintf(buf, 32, "%llu.%u %cB", (unsigned long long)(tenths / 10), (unsigned)(tenths % 10),
             units[exp - 1]);
    return buf;
}

static size_t columns(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += (*p & 0xc0) != 0x80;
    return n;
}

/* Label lines LeakCanary never prints ("Also retains leaking object 0x..." names raw ids):
 * shown under --verbose only. */
#define REP_ALSO "Also retains "

static void put_lines(FILE *out, const char *prefix, const char *text, int verbose)
{
    const char *p = text;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (verbose || strncmp(p, REP_ALSO, strlen(REP_ALSO)) != 0) {
            fprintf(out, "\n%s", prefix); /* a label quotes the dump: escaped */
            rep_fmt_text(out, p, len, SIZE_MAX);
        }
        p = nl ? nl + 1 : NULL;
    }
}

int rep_label_shown(const char *line, int verbose)
{
    return verbose || strncmp(line, REP_ALSO, strlen(REP_ALSO)) != 0;
}

static void put_object(FILE *out, const graph *g, const trace_elem *e, const char *first,
                       const char *more, int verbose)
{
    fputs(first, out);
    rep_fmt_name(out, e->class_name);
    fprintf(out, " %s", rep_node_type_key(g, e->node));
    const char *st = rep_trace_status_key(e->status);
    if (e->status != TRACE_UNKNOWN && e->reason && *e->reason) {
        fprintf(out, "\n%sLeaking: %s (", more, st);
        rep_fmt_name(out, e->reason); /* a watch's description is the program's text */
        fputc(')', out);
    } else
        fprintf(out, "\n%sLeaking: %s", more, st);
    if (e->has_retained && e->status != TRACE_NO) {
        char b[32];
        fprintf(out, "\n%sRetaining %s in %llu objects", more, rep_human_bytes(b, e->retained),
                (unsigned long long)e->retained_count);
    }
    put_lines(out, more, e->labels, verbose);
}

static void put_root(FILE *out, const graph *g, const trace *t)
{
    fputs("\xe2\x94\xac\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\n\xe2\x94\x82 GC Root: ", out);
    rep_fmt_name(out, trace_root_text(g, t)); /* may name a thread: the program's text */
    fputs("\n\xe2\x94\x82", out);
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
    fputs("\n\xe2\x94\x82", out);
    rep_fmt_name(out, prefix);
    rep_fmt_name(out, name);
    if (e->suspect) {
        fputs("\n\xe2\x94\x82", out);
        for (size_t k = columns(prefix); k > 0; k--)
            fputc(' ', out);
        for (size_t k = columns(name); k > 0; k--)
            fputc('~', out);
    }
}

/* s as one word of a shell command line to copy: as is when every byte is safe there, else
 * single-quoted ('\'' for a quote); "FILE" when s is unknown or too long for buf. */
static const char *shell_word(char *buf, size_t cap, const char *s)
{
    if (!s || !*s || strlen(s) * 4 + 3 > cap)
        return "FILE";
    static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                               "0123456789_./+-@%:,=";
    if (s[strspn(s, safe)] == 0)
        return s;
    size_t n = 0;
    buf[n++] = '\'';
    for (; *s; s++) {
        if (*s == '\'') {
            memcpy(buf + n, "'\\''", 4);
            n += 4;
        } else {
            buf[n++] = *s;
        }
    }
    buf[n++] = '\'';
    buf[n] = 0;
    return buf;
}

/* The line standing for the path objects a trace left out (trace.h, trace_opts). */
static void put_elided(FILE *out, const trace *t)
{
    char b[32];
    fprintf(out, "\n\xe2\x94\x82\n\xe2\x94\x82    \xe2\x80\xa6 %s more reference%s "
                 "\xe2\x80\xa6 (--full shows them)\n\xe2\x94\x82",
            rep_fmt_count(b, t->elided), t->elided == 1 ? "" : "s");
}

void rep_text_trace(FILE *out, const graph *g, const trace *t, int verbose)
{
    put_root(out, g, t);
    for (uint32_t i = 0; i + 1 < t->n; i++) {
        if (t->elided && i == t->n_head)
            put_elided(out, t);
        fputc('\n', out);
        put_object(out, g, &t->el[i], "\xe2\x94\x9c\xe2\x94\x80 ", "\xe2\x94\x82    ", verbose);
        put_ref(out, &t->el[i]);
    }
    if (t->elided && t->n_head + 1 >= t->n)
        put_elided(out, t);
    fputc('\n', out);
    put_object(out, g, &t->el[t->n - 1], "\xe2\x95\xb0\xe2\x86\x92 ", rep_detail, verbose);
}

void rep_text_trace_collapsed(FILE *out, const graph *g, const trace *t, const cat_set *cs,
                              int verbose)
{
    uint32_t n = t->n ? t->n - 1 : 0; /* the leaking object stays on its own */
    node_ix *nodes = calloc(n ? n : 1, sizeof *nodes);
    collapse_line *ln = malloc((n ? n : 1) * sizeof *ln);
    if (!nodes || !ln || !cs) { /* no memory: the full trace says the same, only longer */
        free(nodes);
        free(ln);
        rep_text_trace(out, g, t, verbose);
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
            put_object(out, g, a, "\xe2\x94\x9c\xe2\x94\x80 ", "\xe2\x94\x82    ", verbose);
        } else {
            fprintf(out, "\xe2\x94\x9c\xe2\x94\x80 %u x %s: %s %s ... %s %s",
                    collapse_count(l), cat_name(cs, l->cat), a->class_name ? a->class_name : "",
                    rep_node_type_key(g, a->node), z->class_name ? z->class_name : "",
                    rep_node_type_key(g, z->node));
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
    put_object(out, g, &t->el[t->n - 1], "\xe2\x95\xb0\xe2\x86\x92 ", rep_detail, verbose);
}

static void put_group(FILE *out, const graph *g, const rules_set *rs, const trace_result *tr,
                      const trace_group *gr, const cat_set *cs, int verbose)
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
        rep_text_trace_collapsed(out, g, &tr->traces[gr->traces[0]], cs, verbose);
    else
        rep_text_trace(out, g, &tr->traces[gr->traces[0]], verbose);
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
                shown ? "\n\n" : "", rep_fmt_count(b, n - shown), n - shown == 1 ? "" : "s");
}

/* ---- Android metadata, as LeakCanary's AndroidMetadataExtractor reads it ---- */

/* Object field `name` of instance x, GRAPH_NONE if absent or null. */
static node_ix ref_field(const graph *g, node_ix x, const char *name)
{
    graph_value v;
    if (x == GRAPH_NONE || !graph_field_find(g, x, name, &v) || v.type != GRAPH_FT_OBJECT)
        return GRAPH_NONE;
    return v.ref;
}

static node_ix ref_static(const graph *g, const char *cls, const char *name)
{
    class_ix c = graph_find_class(g, cls);
    graph_value v;
    if (c == GRAPH_NONE || !graph_static_find(g, c, name, &v) || v.type != GRAPH_FT_OBJECT)
        return GRAPH_NONE;
    return v.ref;
}

static const char *string_or_unknown(const graph *g, node_ix x, char *buf, size_t cap)
{
    if (x == GRAPH_NONE || graph_string_value(g, x, buf, cap) < 0)
        snprintf(buf, cap, "Unknown");
    return buf;
}

/* leakcanary.internal.InternalLeakCanary.version */
static const char *leakcanary_version(const graph *g, char *buf, size_t cap)
{
    return string_or_unknown(g, ref_static(g, "leakcanary.internal.InternalLeakCanary",
                                           "version"), buf, cap);
}

/* ActivityThread.sCurrentActivityThread.mBoundApplication.appInfo.processName */
static const char *process_name(const graph *g, char *buf, size_t cap)
{
    node_ix at = ref_static(g, "android.app.ActivityThread", "sCurrentActivityThread");
    node_ix ai = ref_field(g, ref_field(g, at, "mBoundApplication"), "appInfo");
    return string_or_unknown(g, ref_field(g, ai, "processName"), buf, cap);
}

static int64_t int_field(const graph *g, node_ix x, const char *name)
{
    graph_value v;
    return graph_field_find(g, x, name, &v) && v.type == GRAPH_FT_INT ? (int32_t)v.raw : 0;
}

/* Bitmaps (subclasses included) and their native bytes; "large" ones have more pixels than
 * 1.1 times the biggest DisplayMetrics (none when the dump has no DisplayMetrics). */
static void put_bitmaps(FILE *out, const graph *g)
{
    class_ix bc = graph_find_class(g, "android.graphics.Bitmap");
    if (bc == GRAPH_NONE)
        return;
    class_ix dc = graph_find_class(g, "android.util.DisplayMetrics");
    int64_t maxpx = 0;
    for (node_ix x = 0; dc != GRAPH_NONE && x < g->n_nodes; x++)
        if (graph_node_class(g, x) == dc && g->node_kind[x] == GRAPH_KIND_INSTANCE) {
            int64_t px = int_field(g, x, "widthPixels") * int_field(g, x, "heightPixels");
            maxpx = px > maxpx ? px : maxpx;
        }
    int64_t large = (int64_t)((double)maxpx * 1.1);
    uint64_t n = 0, bytes = 0, n_large = 0, large_bytes = 0;
    for (node_ix x = 0; x < g->n_nodes; x++) {
        if (g->node_kind[x] != GRAPH_KIND_INSTANCE || graph_node_class(g, x) >= g->n_classes)
            continue;
        class_ix c = graph_node_class(g, x);
        for (uint32_t k = 0; c != GRAPH_NONE && c != bc && k < 64; k++)
            c = g->classes[c].super;
        if (c != bc)
            continue;
        uint64_t nat = g->node_native ? g->node_native[x] : 0;
        n++;
        bytes += nat;
        if (large > 0 && int_field(g, x, "mWidth") * int_field(g, x, "mHeight") > large) {
            n_large++;
            large_bytes += nat;
        }
    }
    fprintf(out, "Bitmap count: %llu\nBitmap total bytes: %llu\nLarge bitmap count: %llu\n"
                 "Large bitmap total bytes: %llu\n", (unsigned long long)n,
            (unsigned long long)bytes, (unsigned long long)n_large,
            (unsigned long long)large_bytes);
}

void rep_text_analysis(FILE *out, const graph *g, const rules_set *rs, const leak_set *ls,
                       const trace_result *tr, const rep_text_opts *o)
{
    int verbose = o->verbose;
    rep_detail = o->zwsp ? REP_ZWSP "     " : "     ";
    rep_detail_unreachable = o->zwsp ? REP_ZWSP "  " : "  ";
    uint32_t n_app = tr->n_app_groups, n_lib = tr->n_groups - tr->n_app_groups;
    uint32_t max = o->max_traces ? o->max_traces : UINT32_MAX;
    /* LeakCanary's pages explain Android leaks: JVM dumps keep its header lines byte for
     * byte (Shark parity), other runtimes get them without its links */
    int java = rep_fmt_runtime(g) == REP_RT_JAVA;
    fprintf(out, REP_LINE "\nHEAP ANALYSIS RESULT\n" REP_LINE "\n");
    fprintf(out, "%u APPLICATION LEAKS\n\nReferences underlined with \"~~~\" are likely causes.\n"
                 "%s",
            n_app, java ? "Learn more at https://squ.re/leaks.\n" : "");
    if (n_app) {
        fputc('\n', out);
        for (uint32_t i = 0; i < n_app && i < max; i++) {
            if (i)
                fputs("\n\n", out);
            put_group(out, g, rs, tr, &tr->groups[i], o->collapse, o->verbose);
        }
        put_more(out, n_app, max);
        fputc('\n', out);
    }
    fprintf(out, REP_LINE "\n%u LIBRARY LEAKS\n\nA Library Leak is a leak caused by a known bug "
                 "in 3rd party code that you do not have control over.\n%s",
            n_lib, java ? "See https://square.github.io/leakcanary/"
                          "fundamentals-how-leakcanary-works/#4-categorizing-leaks\n" : "");
    if (n_lib) {
        fputc('\n', out);
        uint32_t lmax = max > n_app ? max - n_app : 0;
        for (uint32_t i = 0; i < n_lib && i < lmax; i++) {
            if (i)
                fputs("\n\n", out);
            put_group(out, g, rs, tr, &tr->groups[n_app + i], o->collapse, o->verbose);
        }
        put_more(out, n_lib, lmax);
        fputc('\n', out);
    }
    fprintf(out, REP_LINE "\n%u UNREACHABLE OBJECTS\n\nAn unreachable object is still in memory "
                 "but %s could not find a strong reference path\nfrom GC roots.\n",
            tr->n_unreachable, java ? "LeakCanary" : "leakray");
    if (tr->n_unreachable) {
        fputc('\n', out);
        for (uint32_t i = 0; i < tr->n_unreachable; i++) {
            if (i)
                fputs("\n\n", out);
            /* Shark indents an unreachable object's lines by two spaces, not five */
            put_object(out, g, &tr->unreachable[i].el, "", rep_detail_unreachable, verbose);
            if (tr->unreachable[i].ignored_only) {
                /* a local of thread main (jdk.rules, as Shark) holds it: not garbage */
                char id[REP_FMT_MAX], dp[1024];
                fprintf(out, "\n%sHeld only through references the rules ignore: `leakray "
                             "path %s %s` shows the way",
                        rep_detail_unreachable,
                        shell_word(dp, sizeof dp, o->dump_path ? o->dump_path : g->path),
                        rep_fmt_id(id, g, graph_node_id(g, tr->unreachable[i].el.node)));
            } else if (tr->unreachable[i].garbage) {
                /* a dump written without a GC first: collectable, no leak, no failed gate */
                fprintf(out, "\n%sGarbage: no strong or soft reference reaches it from a GC "
                             "root; the next GC frees it", rep_detail_unreachable);
            }
        }
        fputc('\n', out);
    }
    if (o->suspects_found)
        rep_text_suspects(out, g, o->suspects_found);
    fprintf(out, REP_LINE "\nMETADATA\n\nPlease include this in bug reports and Stack Overflow "
                 "questions.\n");
    /* metadata keys as Shark's metadata extractors name them */
    uint64_t kinds[256];
    graph_kind_census(g, kinds);
    uint64_t cls = kinds[GRAPH_KIND_CLASS], objarr = kinds[GRAPH_KIND_OBJ_ARRAY];
    uint64_t prim = kinds[GRAPH_KIND_PRIM_ARRAY];
    uint64_t inst = g->n_nodes - cls - objarr - prim;
    uint64_t bytes = graph_shallow_total(g);
    fputc('\n', out);
    int android = rs && rs->build.is_android;
    if (android) {
        char v[256];
        if (rs->build.has_sdk)
            fprintf(out, "Build.VERSION.SDK_INT: %lld\n", (long long)rs->build.sdk);
        fprintf(out, "Build.MANUFACTURER: %s\n", rs->build.manufacturer);
        fprintf(out, "LeakCanary version: %s\n", leakcanary_version(g, v, sizeof v));
        fprintf(out, "App process name: %s\n", process_name(g, v, sizeof v));
        /* Shark's heap total counts a class by its record without the sub-record tag */
        bytes -= bytes >= cls ? cls : bytes;
    }
    /* as Shark: the line only when some retained reference was cleared */
    if (ls->n_cleared)
        fprintf(out, "Count of retained yet cleared: %u KeyedWeakReference instances\n",
                ls->n_cleared);
    if (java) {
        fprintf(out, "Class count: %llu\nInstance count: %llu\nPrimitive array count: %llu\n"
                     "Object array count: %llu\nThread count: %u\nHeap total bytes: %llu\n",
                (unsigned long long)cls, (unsigned long long)inst, (unsigned long long)prim,
                (unsigned long long)objarr, g->n_threads, (unsigned long long)bytes);
    } else {
        /* V8 and Dart classes are no objects of the heap (a JS constructor is a Function):
         * the classes are those `histo` lists; threads and primitive arrays only when the
         * runtime has them */
        fprintf(out, "Class count: %llu\nInstance count: %llu\n",
                (unsigned long long)(cls ? cls : g->n_classes), (unsigned long long)inst);
        if (prim)
            fprintf(out, "Primitive array count: %llu\n", (unsigned long long)prim);
        fprintf(out, "Object array count: %llu\n", (unsigned long long)objarr);
        if (g->n_threads)
            fprintf(out, "Thread count: %u\n", g->n_threads);
        fprintf(out, "Heap total bytes: %llu\n", (unsigned long long)bytes);
    }
    if (android)
        put_bitmaps(out, g);
    if (!o->no_timing)
        fprintf(out, "Analysis duration: %.0f ms\n", o->analysis_ms);
    fprintf(out, "Heap dump file path: %s\n", o->dump_path ? o->dump_path : g->path);
    if (!java && !g->timestamp_ms) /* a V8 or Dart snapshot records no time: not 1970 */
        fprintf(out, "Heap dump timestamp: unknown\n");
    else
        fprintf(out, "Heap dump timestamp: %llu\n", (unsigned long long)g->timestamp_ms);
    fprintf(out, "Heap dump duration: Unknown\n" REP_LINE "\n");
    rep_detail = "     ";
    rep_detail_unreachable = "  ";
}

/* ---------------------------------------------------------------- suspects */

const char *rep_class_label(const graph *g, node_ix x, char *buf, size_t cap)
{
    if (g->node_kind[x] == GRAPH_KIND_CLASS) {
        class_ix c = graph_class_of_node(g, x);
        if (c != GRAPH_NONE) {
            snprintf(buf, cap, "%s", graph_str(g, g->classes[c].name));
            return buf;
        }
    }
    const char *n = graph_class_name(g, x);
    snprintf(buf, cap, "%s", n && *n ? n : "<no class>");
    return buf;
}

const char *rep_frame_fmt(const graph *g, const graph_frame *f, char *buf, size_t cap)
{
    char where[600];
    const char *src = f->source != GRAPH_NONE ? graph_str(g, f->source) : "";
    if (f->line > 0)
        snprintf(where, sizeof where, "%s:%d", *src ? src : "Unknown Source", f->line);
    else if (f->line == -3)
        snprintf(where, sizeof where, "Native Method");
    else if (f->line == -2)
        snprintf(where, sizeof where, "Compiled method");
    else
        snprintf(where, sizeof where, "%s", *src ? src : "Unknown Source");
    const char *cls = f->class_name != GRAPH_NONE ? graph_str(g, f->class_name) : "";
    if (snprintf(buf, cap, "%s%s%s(%s)", cls, *cls ? "." : "", graph_str(g, f->method), where) <
            0 &&
        cap)
        buf[0] = 0;
    return buf;
}

const char *rep_frame_text(const graph *g, uint32_t serial, int32_t frame, char *buf,
                           size_t cap)
{
    if (cap)
        buf[0] = 0;
    for (uint32_t t = 0; t < g->n_threads; t++) {
        const graph_thread *th = &g->threads[t];
        if (th->serial != serial || frame < 0 || (uint32_t)frame >= th->n_frames)
            continue;
        uint32_t fi = th->first_frame + (uint32_t)frame;
        if (fi < g->n_frames)
            rep_frame_fmt(g, &g->frames[fi], buf, cap);
        break;
    }
    return buf;
}

const char *rep_root_thread(const graph *g, const graph_root *r, char *buf, size_t cap)
{
    char name[256], fr[700];
    if (cap)
        buf[0] = 0;
    if (!r->thread)
        return buf;
    rules_thread_name(g, rules_thread_of_serial(g, r->thread), name, sizeof name);
    rep_frame_text(g, r->thread, r->frame, fr, sizeof fr);
    /* text for a terminal: the dump's names escaped, as every verb shows them */
    char ename[sizeof name * 4], efr[sizeof fr * 4];
    int k = *name ? snprintf(buf, cap, "thread \"%s\" (serial %" PRIu32 ")",
                             rep_fmt_term(ename, sizeof ename, name), r->thread)
                  : snprintf(buf, cap, "thread serial %" PRIu32, r->thread);
    if (k > 0 && (size_t)k < cap && *fr)
        snprintf(buf + k, cap - (size_t)k, " at %s", rep_fmt_term(efr, sizeof efr, fr));
    return buf;
}

void rep_root_thread_json(jsonw *w, const graph *g, const graph_root *r)
{
    char nm[256], fr[700];
    if (!r->thread)
        return;
    jsonw_kv_uint(w, "thread_serial", r->thread);
    rules_thread_name(g, rules_thread_of_serial(g, r->thread), nm, sizeof nm);
    if (*nm)
        jsonw_kv_str(w, "thread_name", nm);
    if (*rep_frame_text(g, r->thread, r->frame, fr, sizeof fr))
        jsonw_kv_str(w, "frame", fr);
}

/* "5.4 MB (73.8 %)" */
static void put_share(FILE *out, uint64_t bytes, uint64_t total)
{
    char b[32];
    fprintf(out, "%s (%.1f %%)", rep_human_bytes(b, bytes),
            total ? 100.0 * (double)bytes / (double)total : 0.0);
}

/* The class declaring the instance field of node x that a reference named `name` to `to`
 * reads. A subclass may declare a field of the name again (it hides the superclass's, and
 * both are in the object): the field is the one whose value is `to`, as the traces name it
 * (trace_elems.c) and Shark does; without field values (V8) or a match, the first field of
 * the name, most derived first, as graph_fields_each lays them out. GRAPH_NONE when no
 * field has the name. */
typedef struct field_decl {
    const graph *g;
    const char *name; /* field looked for */
    node_ix to;       /* the node the reference leads to */
    class_ix first;   /* the first class declaring the name, once found */
    class_ix decl;    /* the class whose field of the name holds `to`, once found */
} field_decl;

static int find_decl(void *ctx, class_ix decl, const graph_field *f, const graph_value *v)
{
    field_decl *d = ctx;
    if (strcmp(graph_str(d->g, f->name), d->name))
        return 0;
    if (d->first == GRAPH_NONE)
        d->first = decl;
    if (v->type != GRAPH_FT_OBJECT || v->ref != d->to)
        return 0;
    d->decl = decl;
    return 1;
}

const char *rep_ref_owner(const graph *g, node_ix x, edge_ix e, char *buf, size_t cap)
{
    char cls[300], name[300];
    rep_class_label(g, x, cls, sizeof cls);
    /* a class hop (PATHS_CLASS_HOP) is no graph edge: its owner is the instance's class */
    unsigned k = rep_suspect_edge_kind(g, e);
    if (k == GRAPH_EDGE_FIELD && g->node_kind[x] != GRAPH_KIND_CLASS) {
        field_decl d = {g, graph_edge_name_text(g, e, name, sizeof name), g->edge_to[e],
                        GRAPH_NONE, GRAPH_NONE};
        graph_fields_each(g, x, find_decl, &d);
        class_ix c = d.decl != GRAPH_NONE ? d.decl : d.first;
        if (c != GRAPH_NONE && c < g->n_classes)
            snprintf(cls, sizeof cls, "%s", graph_str(g, g->classes[c].name));
    }
    const char *simple = strrchr(cls, '.');
    simple = simple && simple[1] ? simple + 1 : cls;
    size_t sl = strlen(simple);
    if (k == GRAPH_EDGE_ELEMENT && sl >= 2 && !strcmp(simple + sl - 2, "[]"))
        sl -= 2;
    snprintf(buf, cap, "%.*s", (int)sl, simple);
    return buf;
}

const char *rep_suspect_edge_name(const graph *g, edge_ix e, char *buf, size_t cap)
{
    if (e != PATHS_CLASS_HOP)
        return graph_edge_name_text(g, e, buf, cap);
    snprintf(buf, cap, "<class>");
    return buf;
}

unsigned rep_suspect_edge_kind(const graph *g, edge_ix e)
{
    return e == PATHS_CLASS_HOP ? GRAPH_EDGE_INTERNAL : GRAPH_EDGE_KIND(g->edge_kind[e]);
}

/* The reference from path node x along edge e, as a trace prints one (rep_ref_owner). */
static void put_suspect_ref(FILE *out, const graph *g, node_ix x, edge_ix e)
{
    char own[300], name[300];
    unsigned k = rep_suspect_edge_kind(g, e);
    fprintf(out, "\n\xe2\x94\x82    \xe2\x86\x93 %s", k == GRAPH_EDGE_STATIC ? "static " : "");
    rep_fmt_name(out, rep_ref_owner(g, x, e, own, sizeof own));
    if (k == GRAPH_EDGE_LOCAL) {
        fputs("<Java Local>", out);
        return;
    }
    rep_suspect_edge_name(g, e, name, sizeof name);
    fputs(name[0] == '[' ? "" : ".", out);
    rep_fmt_name(out, name);
}

void rep_text_suspects(FILE *out, const graph *g, const susp_result *sr)
{
    char cls[300], fr[700];
    fprintf(out, REP_LINE "\n%u LARGEST RETAINERS\n\nLeak suspects as Eclipse MAT finds them: "
                 "what holds over %.0f %% of the\nheap (%s, %s model, as `leakray top`), "
                 "followed down while one child keeps over\n%.0f %% of its parent. A big "
                 "retainer may be legitimate: check whether it should hold that\nmuch.\n",
            sr->n, 100.0 * sr->share, rep_human_bytes(cls, sr->total),
            sr->model ? sr->model : "", 100.0 * sr->accum);
    for (uint32_t i = 0; i < sr->n; i++) {
        const susp_item *it = &sr->v[i];
        fprintf(out, "\nSuspect %u: ", i + 1);
        rep_fmt_name(out, it->text);
        fputc('\n', out);
        if (it->kind == SUSP_THREAD_LOCALS &&
            *rep_frame_text(g, it->thread_serial, it->frame, fr, sizeof fr))
        {
            fputs("Biggest local held in frame: ", out);
            rep_fmt_name(out, fr);
            fputc('\n', out);
        }
        if (it->path_n == 0) {
            rep_fmt_name(out, rep_class_label(g, it->accumulation, cls, sizeof cls));
            fprintf(out, " %s (no path from a GC root)\n", rep_node_type_key(g, it->accumulation));
            continue;
        }
        unsigned rk = it->path_root < g->n_roots ? g->roots[it->path_root].kind
                                                 : GRAPH_ROOT_SYNTHETIC;
        /* V8: the synthetic sub-roots the path leaves out ("(GC roots)") name the root, as
         * in the traces; none: the path leaves the snapshot root for a global object */
        const char *rd = rk != GRAPH_ROOT_SYNTHETIC       ? graph_root_title(g, rk)
                         : it->root_name[0]               ? it->root_name
                         : g->synthetic_root != GRAPH_NONE ? TRACE_ROOT_GLOBAL
                                                          : trace_root_description(rk);
        fputs("\xe2\x94\xac\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\n"
              "\xe2\x94\x82 GC Root: ", out);
        rep_fmt_name(out, rd); /* a V8 sub-root's name comes from the snapshot */
        if (rk == GRAPH_ROOT_JAVA_FRAME) {
            char tn[200];
            const char *nm = rules_thread_name(
                g, rules_thread_of_serial(g, g->roots[it->path_root].thread), tn, sizeof tn);
            if (*nm) {
                fputs(" (thread ", out);
                rep_fmt_name(out, nm);
                fputc(')', out);
            }
        }
        fputs("\n\xe2\x94\x82", out);
        uint32_t cut = it->path_n > 2 * SUSP_PATH_ENDS ? SUSP_PATH_ENDS : UINT32_MAX;
        for (uint32_t k = 0; k < it->path_n; k++) {
            if (k == cut) {
                char b[REP_FMT_MAX];
                uint32_t left = it->path_n - 2 * SUSP_PATH_ENDS;
                rep_fmt_count(b, left);
                fprintf(out, "\n\xe2\x94\x82\n\xe2\x94\x82    \xe2\x80\xa6 %s more reference%s "
                             "\xe2\x80\xa6\n\xe2\x94\x82", b, left == 1 ? "" : "s");
                k = it->path_n - SUSP_PATH_ENDS - 1;
                continue;
            }
            node_ix x = it->path[k];
            int last = k + 1 == it->path_n;
            fprintf(out, "\n%s",
                    last ? "\xe2\x95\xb0\xe2\x86\x92 " : "\xe2\x94\x9c\xe2\x94\x80 ");
            rep_fmt_name(out, rep_class_label(g, x, cls, sizeof cls));
            fprintf(out, " %s\n%s    Retaining ", rep_node_type_key(g, x),
                    last ? " " : "\xe2\x94\x82");
            put_share(out, it->path_retained[k], sr->total);
            if (x == it->node && it->node != it->accumulation)
                fprintf(out, "\n%s    Suspect", last ? " " : "\xe2\x94\x82");
            if (!last)
                put_suspect_ref(out, g, x, it->path_edges[k]);
        }
        fputc('\n', out);
    }
    if (sr->pending_bytes &&
        (double)sr->pending_bytes >= sr->share * (double)(sr->total + sr->pending_bytes)) {
        char b1[REP_FMT_MAX], b2[64], b3[REP_FMT_MAX];
        rep_fmt_count(b1, sr->pending_objects);
        fprintf(out, "\nWaiting for finalization: %s objects, %s (%.1f %% of what the JVM "
                     "keeps) that no\nstrong reference reaches: java.lang.ref.Finalizer's queue "
                     "holds them until their\nfinalize() has run",
                b1, rep_human_bytes(b2, sr->pending_bytes),
                100.0 * (double)sr->pending_bytes / (double)(sr->total + sr->pending_bytes));
        if (sr->pending_class < g->n_classes) {
            rep_fmt_count(b3, sr->pending_class_n);
            fputs(" (", out);
            rep_fmt_name(out, graph_str(g, g->classes[sr->pending_class].name));
            fprintf(out, ": %s of them)", b3);
        }
        fputs(".\nA finalizer that blocks, or runs slower than such objects come, leaks them "
              "all: see\nthe \"Finalizer\" thread (`leakray threads`).\n", out);
    }
}
