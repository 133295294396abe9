/* SPDX-License-Identifier: Apache-2.0 */
/* leakfind.c: leaking objects (analysis layer), prefix leak_. KeyedWeakReferences are found
 * by class (one flag per class over the hierarchy, then one pass over the nodes), their
 * fields read with graph_field_find, so a reference whose fields are missing or of the wrong
 * type is skipped rather than trusted. Rule finders run the rules layer's leaking inspectors
 * on every instance. Suspects come from the dominator tree. Each object appears once even
 * when several sources name it (the first source wins). Cost O(N) plus the inspectors. */
#include "analysis/leakfind.h"
#include "base/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The set's one copy of reason's text (cut at 255 bytes, as the buffer it replaced), or NULL
 * when out of memory. */
static const char *intern(leak_set *s, const char *reason)
{
    if (!reason || !*reason)
        return "";
    char cut[256];
    snprintf(cut, sizeof cut, "%s", reason);
    uint32_t h = hash_fnv32_str(cut);
    hmap_it it;
    for (uint32_t i = hmap_first(&s->text_index, h, &it); i != HMAP_NONE;
         i = hmap_next(&s->text_index, &it))
        if (!strcmp(s->texts[i], cut))
            return s->texts[i];
    if (s->n_texts == s->cap_texts) {
        uint32_t nc = s->cap_texts ? s->cap_texts * 2 : 16;
        char **t = err_reallocarray(s->texts, nc, sizeof *t);
        if (!t)
            return NULL;
        s->texts = t;
        s->cap_texts = nc;
    }
    char *d = strdup(cut);
    if (!d || !hmap_add(&s->text_index, h, s->n_texts)) {
        free(d);
        return NULL;
    }
    s->texts[s->n_texts++] = d;
    return d;
}

static int push(leak_set *s, node_ix n, uint8_t src, const char *reason)
{
    const char *text = intern(s, reason);
    if (!text)
        return -1;
    if (s->n == s->cap) {
        uint32_t nc = s->cap ? s->cap * 2 : 16;
        leak_object *v = err_reallocarray(s->v, nc, sizeof *v);
        if (!v)
            return -1;
        s->v = v;
        s->cap = nc;
    }
    leak_object *o = &s->v[s->n++];
    memset(o, 0, sizeof *o);
    o->node = n;
    o->source = src;
    o->top = GRAPH_NONE;
    o->reason = text;
    return 0;
}

static int read_long(const graph *g, node_ix n, const char *name, int64_t *out)
{
    graph_value v;
    if (!graph_field_find(g, n, name, &v) || v.type != GRAPH_FT_LONG)
        return 0;
    *out = (int64_t)v.raw;
    return 1;
}

/* The text of String field `name` of n into buf. A U+0000 in it becomes U+2400 (the symbol
 * for NUL): the text is kept as a C string, which ended at the first one. */
static void read_text(const graph *g, node_ix n, const char *name, char *buf, size_t cap)
{
    graph_value v;
    buf[0] = 0;
    if (!graph_field_find(g, n, name, &v) || v.type != GRAPH_FT_OBJECT || v.ref == GRAPH_NONE)
        return;
    char raw[1024];
    long len = graph_string_value(g, v.ref, raw, sizeof raw);
    if (len < 0)
        return;
    size_t k = (size_t)len < sizeof raw - 1 ? (size_t)len : sizeof raw - 1, o = 0;
    for (size_t i = 0; i < k && o + 4 <= cap; i++) {
        if (raw[i]) {
            buf[o++] = raw[i];
        } else {
            memcpy(buf + o, "\xe2\x90\x80", 3);
            o += 3;
        }
    }
    buf[o < cap ? o : cap - 1] = 0;
}

static int cmp_kwr(const void *a, const void *b)
{
    const leak_kwr *x = a, *y = b;
    if (x->referent != y->referent)
        return x->referent < y->referent ? -1 : 1;
    return (x->ref > y->ref) - (x->ref < y->ref);
}

static int64_t heap_dump_uptime(const graph *g, const char *cls)
{
    class_ix c = graph_find_class(g, cls);
    graph_value v;
    if (c != GRAPH_NONE && graph_static_find(g, c, "heapDumpUptimeMillis", &v) &&
        v.type == GRAPH_FT_LONG)
        return (int64_t)v.raw;
    return -1;
}

lr_status leak_find(const graph *g, const rules_set *rs, leak_set *out, lr_error *err)
{
    memset(out, 0, sizeof *out);
    out->heap_dump_uptime = heap_dump_uptime(g, "leakcanary.KeyedWeakReference");
    if (out->heap_dump_uptime < 0)
        out->heap_dump_uptime = heap_dump_uptime(g, "com.squareup.leakcanary.KeyedWeakReference");
    uint8_t *is_kwr = err_calloc(g->n_classes ? g->n_classes : 1, 1);
    if (!is_kwr)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory finding leaking objects");
    int any = 0;
    for (class_ix c = 0; c < g->n_classes; c++) {
        is_kwr[c] = (uint8_t)(graph_class_is_named(g, c, "leakcanary.KeyedWeakReference") ||
                              graph_class_is_named(g, c,
                                                   "com.squareup.leakcanary.KeyedWeakReference"));
        any |= is_kwr[c];
    }
    uint32_t cap = 0;
    for (node_ix n = 0; any && n < g->n_nodes; n++) {
        class_ix c = graph_node_class(g, n);
        if (g->node_kind[n] != GRAPH_KIND_INSTANCE || c >= g->n_classes || !is_kwr[c])
            continue;
        if (out->n_kwrs == cap) {
            uint32_t nc = cap ? cap * 2 : 16;
            leak_kwr *v = err_reallocarray(out->kwrs, nc, sizeof *v);
            if (!v) {
                free(is_kwr);
                return LR_FAIL(err, LR_ERR_NOMEM, "out of memory finding leaking objects");
            }
            out->kwrs = v;
            cap = nc;
        }
        leak_kwr *k = &out->kwrs[out->n_kwrs++];
        memset(k, 0, sizeof *k);
        k->ref = n;
        k->referent = GRAPH_NONE;
        graph_value v;
        if (graph_field_find(g, n, "referent", &v) && v.type == GRAPH_FT_OBJECT)
            k->referent = v.ref;
        int64_t retained_up = -1, watch_up = -1;
        int has_ret = read_long(g, n, "retainedUptimeMillis", &retained_up);
        int has_watch = read_long(g, n, "watchUptimeMillis", &watch_up);
        /* The legacy class has no retainedUptimeMillis: every instance is retained. */
        k->retained = has_ret ? retained_up != -1 : 1;
        read_text(g, n, "key", k->key, sizeof k->key);
        read_text(g, n, "description", k->description, sizeof k->description);
        if (!k->description[0])
            read_text(g, n, "name", k->description, sizeof k->description);
        /* heapDumpUptimeMillis stays 0 in a dump LeakCanary's (or the agent's) dumper did
         * not take (jcmd, an IDE, HotSpotDiagnosticMXBean): the durations are then unknown,
         * not the uptime's negative that Shark prints (-62481787 ms for 1.5 s) */
        k->watch_ms = k->retain_ms = LEAK_MS_UNKNOWN;
        if (out->heap_dump_uptime > 0 && has_watch && out->heap_dump_uptime >= watch_up)
            k->watch_ms = out->heap_dump_uptime - watch_up;
        if (out->heap_dump_uptime > 0 && has_ret && retained_up != -1 &&
            out->heap_dump_uptime >= retained_up)
            k->retain_ms = out->heap_dump_uptime - retained_up;
        /* Shark's "retained yet cleared": only references the watcher had found retained;
         * one cleared before that is an object collected as expected */
        if (k->referent == GRAPH_NONE && k->retained)
            out->n_cleared++;
    }
    free(is_kwr);
    if (out->n_kwrs)
        qsort(out->kwrs, out->n_kwrs, sizeof *out->kwrs, cmp_kwr);

    /* bitmap of nodes already leaking, so each appears once */
    uint8_t *seen = err_calloc(g->n_nodes / 8 + 1, 1);
    if (!seen)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory finding leaking objects");
    lr_status st = LR_OK;
    for (uint32_t i = 0; i < out->n_kwrs && st == LR_OK; i++) {
        node_ix r = out->kwrs[i].referent;
        if (r == GRAPH_NONE || r >= g->n_nodes || !out->kwrs[i].retained ||
            (seen[r / 8] >> (r % 8) & 1))
            continue;
        seen[r / 8] |= (uint8_t)(1u << (r % 8));
        if (push(out, r, LEAK_SRC_WATCHED, NULL))
            st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory finding leaking objects");
    }
    uint8_t *may = rs && rs->g == g ? err_malloc((size_t)g->n_classes + 1) : NULL;
    if (rs && rs->g == g && !may)
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory finding leaking objects");
    if (may) {
        /* most objects are of classes no leaking inspector applies to: one byte read each */
        rules_leaking_classes(rs, may);
        char reason[256];
        for (node_ix n = 0; n < g->n_nodes && st == LR_OK; n++) {
            class_ix c = graph_node_class(g, n);
            if (g->node_kind[n] != GRAPH_KIND_CLASS && !may[c < g->n_classes ? c : g->n_classes])
                continue;
            if (seen[n / 8] >> (n % 8) & 1)
                continue;
            if (rules_is_leaking_object(rs, n, reason, sizeof reason)) {
                seen[n / 8] |= (uint8_t)(1u << (n % 8));
                if (push(out, n, LEAK_SRC_RULE, reason))
                    st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory finding leaking objects");
            }
        }
    }
    free(may);
    free(seen);
    return st;
}

/* Whether node n is among s->v, through a bitmap that follows v (entries pushed since the
 * last call are added first): a scan of v per call made a leak tracker's report naming
 * 300,000 objects 41 s. */
static int leak_member(leak_set *s, node_ix n, int *oom)
{
    size_t need = (size_t)n / 8 + 1;
    for (uint32_t i = s->member_n; i < s->n; i++)
        if ((size_t)s->v[i].node / 8 + 1 > need)
            need = (size_t)s->v[i].node / 8 + 1;
    if (need > s->member_bytes) {
        size_t cap = s->member_bytes * 2 > need ? s->member_bytes * 2 : need;
        uint8_t *m = realloc(s->member, cap);
        if (!m) {
            *oom = 1;
            return 0;
        }
        memset(m + s->member_bytes, 0, cap - s->member_bytes);
        s->member = m;
        s->member_bytes = cap;
    }
    for (; s->member_n < s->n; s->member_n++) {
        node_ix x = s->v[s->member_n].node;
        s->member[x / 8] |= (uint8_t)(1u << (x % 8));
    }
    return s->member[n / 8] >> (n % 8) & 1;
}

lr_status leak_add(leak_set *s, node_ix n, uint8_t source, const char *reason, lr_error *err)
{
    int oom = 0;
    if (leak_member(s, n, &oom))
        return LR_OK;
    if (oom || push(s, n, source, reason))
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory finding leaking objects");
    return LR_OK;
}

/* A DOM node in DevTools' sense: an element ("Detached <div>", older snapshots
 * "Detached HTMLDivElement", "SVG...Element") or one of the other kinds of DOM node, and a
 * removed frame's window and documents ("Detached Window", "Detached HTMLDocument": a page
 * that keeps an iframe's contentWindow or contentDocument keeps the whole frame, and the
 * window or document is what it holds, not the doctype or root element under it). Not
 * Blink's internals hanging off a node ("Detached blink::NodeRareData", "Detached
 * InternalNode"), which a node's own trace covers, nor the embedder objects Node marks
 * detached ("Detached Node / BindingData"): no document ever held those. */
static int dom_node_name(const char *nm)
{
    static const char *const kinds[] = {"Text", "Comment", "CDATASection", "DocumentFragment",
                                        "ShadowRoot", "DocumentType", "Attr",
                                        "ProcessingInstruction", "Window", "Document",
                                        "HTMLDocument", "XMLDocument"};
    if (!strncmp(nm, "Detached ", 9))
        nm += 9;
    size_t l = strlen(nm);
    if (nm[0] == '<' || ((!strncmp(nm, "HTML", 4) || !strncmp(nm, "SVG", 3)) && l > 7 &&
                         !strcmp(nm + l - 7, "Element")))
        return 1;
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (!strcmp(nm, kinds[i]))
            return 1;
    return 0;
}

/* A node's own name (V8 keeps one per node: `<div class="row">`, `Window / file://`),
 * the class name when the format has none. */
static const char *node_text(const graph *g, node_ix x)
{
    return g->node_name ? graph_str(g, g->node_name[x]) : graph_class_name(g, x);
}

static int type_is(const graph *g, node_ix x, const char *type)
{
    return g->node_type && g->node_type[x] < g->n_types && g->type_names[g->node_type[x]] &&
           !strcmp(g->type_names[g->node_type[x]], type);
}

/* What memlab counts as a DOM node on a trace (a native element, Text, InternalNode, the
 * document, a CSS or style-sheet object, a collection, a token list, a shadow root), and the
 * roots and synthetic holders its trace filters look through (Window natives, Blink roots,
 * pending activities, C++ roots): a detached node they alone hold is the browser's own
 * retention, not the page's. */
static int browser_holder(const graph *g, node_ix x)
{
    static const char *const synth[] = {"(GC roots)", "Blink roots", "Blink cross-thread roots",
                                        "Pending activities", "C++ roots"};
    static const char *const dom[] = {"Text", "InternalNode", "HTMLDocument", "XMLDocument",
                                      "DOMTokenList", "ShadowRoot", "StyleEngine"};
    const char *nm = node_text(g, x);
    if (x == g->synthetic_root)
        return 1;
    if (type_is(g, x, "synthetic")) {
        for (size_t i = 0; i < sizeof synth / sizeof *synth; i++)
            if (!strcmp(nm, synth[i]))
                return 1;
        return 0;
    }
    if (!type_is(g, x, "native"))
        return 0;
    if (!strncmp(nm, "Detached ", 9))
        nm += 9;
    size_t l = strlen(nm);
    if (!strncmp(nm, "Window", 6) || (nm[0] == '<' && l > 2 && nm[l - 1] == '>') ||
        !strncmp(nm, "CSS", 3) || strstr(nm, "StyleSheet") ||
        (!strncmp(nm, "HTML", 4) && l > 7 && !strcmp(nm + l - 7, "Element")) ||
        (!strncmp(nm, "SVG", 3) && l > 7 && !strcmp(nm + l - 7, "Element")) ||
        (!strncmp(nm, "HTML", 4) && l > 10 && !strcmp(nm + l - 10, "Collection")))
        return 1;
    for (size_t i = 0; i < sizeof dom / sizeof *dom; i++)
        if (!strcmp(nm, dom[i]))
            return 1;
    return 0;
}

/* An HTML `<template>` element ("Detached <template>", older snapshots
 * "Detached HTMLTemplateElement"). */
static int is_template(const graph *g, node_ix x)
{
    if (!type_is(g, x, "native"))
        return 0;
    const char *nm = node_text(g, x);
    if (!strncmp(nm, "Detached ", 9))
        nm += 9;
    if (!strncmp(nm, "<template", 9) && (nm[9] == '>' || nm[9] == ' '))
        return 1;
    return !strcmp(nm, "HTMLTemplateElement");
}

/* React's fibers: JS objects made by `function FiberNode`, the tree's top a HostRoot fiber
 * whose stateNode is a FiberRootNode (memlab's isFiberNode, isHostRoot). */
enum { FIB_NONE, FIB_UNKNOWN, FIB_MOUNTED, FIB_UNMOUNTED, FIB_WALK, FIB_HOST /* memlab's */ };

static int is_fiber(const graph *g, node_ix x)
{
    return type_is(g, x, "object") && !strcmp(node_text(g, x), "FiberNode");
}

/* The target of x's property edge `name`, GRAPH_NONE if x has none. */
static node_ix prop_of(const graph *g, node_ix x, const char *name)
{
    for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++)
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_PROPERTY &&
            !strcmp(graph_str(g, graph_edge_name_from(g, x, e)), name))
            return g->edge_to[e];
    return GRAPH_NONE;
}

static int is_prop(const graph *g, node_ix x, edge_ix e, const char *name)
{
    return GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_PROPERTY &&
           !strcmp(graph_str(g, graph_edge_name_from(g, x, e)), name);
}

/* Marks every fiber mounted or unmounted: mounted when its `return` chain reaches a HostRoot
 * (React clears `return` when it unmounts a fiber). Each chain is walked once: a walk stops
 * at a fiber already decided, and what it passed takes that answer. O(fibers). */
static void mark_fibers(const graph *g, uint8_t *fib, node_ix *chain)
{
    uint32_t n = g->n_nodes;
    for (node_ix x = 0; x < n; x++) {
        if (fib[x] != FIB_UNKNOWN)
            continue;
        uint32_t k = 0;
        uint8_t ans = FIB_UNMOUNTED;
        for (node_ix c = x; c != GRAPH_NONE && c < n;) {
            if (fib[c] == FIB_MOUNTED || fib[c] == FIB_UNMOUNTED) {
                ans = fib[c];
                break;
            }
            if (fib[c] != FIB_UNKNOWN) /* not a fiber, or a cycle of `return` links */
                break;
            fib[c] = FIB_WALK;
            chain[k++] = c;
            node_ix sn = prop_of(g, c, "stateNode");
            if (sn != GRAPH_NONE && sn < n && type_is(g, sn, "object") &&
                !strcmp(node_text(g, sn), "FiberRootNode")) {
                ans = FIB_MOUNTED;
                break;
            }
            c = prop_of(g, c, "return");
        }
        while (k)
            fib[chain[--k]] = ans;
    }
}

#define BIT(a, x) ((a)[(x) / 8] >> ((x) % 8) & 1)
#define SET(a, x) ((a)[(x) / 8] |= (uint8_t)(1u << ((x) % 8)))

/* What the walk of the strong edges from the roots leaves for memlab's rules: seen (a bit per
 * node reached; the walk stops at unmounted fibers and never follows a fiber's `deletions`),
 * held (a bit per detached node the page holds, or that such a node holds) and fib (a byte
 * per node: FIB_NONE, or the fiber's state). Buffers owned by the caller (free each). */
typedef struct dwalk {
    uint8_t *seen, *held, *fib;
    uint8_t *tpl;   /* with inert templates: each <template> and its content's nodes */
    uint8_t *tpl_held; /* those the page holds, and the template trees they lie in */
    node_ix *queue; /* n_nodes entries, scratch */
} dwalk;

static void dwalk_free(dwalk *w)
{
    free(w->tpl);
    free(w->tpl_held);
    free(w->seen);
    free(w->held);
    free(w->fib);
    free(w->queue);
    memset(w, 0, sizeof *w);
}

/* Marks in tpl every `<template>` element and the tree of its content: the detached DOM
 * nodes its content fragment reaches (Blink's edges between a node and its parent,
 * children and siblings), not back through the template itself. A template's children live
 * in that fragment, never under the element; the nodes a framework cut from it and cached
 * (Svelte's compiled roots) keep their parent, the fragment, which keeps its host. */
static void mark_templates(const graph *g, uint8_t *tpl, node_ix *queue)
{
    uint32_t n = g->n_nodes;
    for (node_ix t = 0; t < n; t++) {
        if (BIT(tpl, t) || !is_template(g, t))
            continue;
        SET(tpl, t);
        uint32_t qn = 0;
        for (edge_ix e = g->first_edge[t]; e < g->first_edge[t + 1]; e++) {
            node_ix f = g->edge_to[e];
            const char *nm = f < n ? node_text(g, f) : "";
            if (!strncmp(nm, "Detached ", 9))
                nm += 9;
            if (f >= n || BIT(tpl, f) || GRAPH_EDGE_STRENGTH(g->edge_kind[e]) != GRAPH_STRONG ||
                !type_is(g, f, "native") || strcmp(nm, "DocumentFragment"))
                continue;
            SET(tpl, f);
            queue[qn++] = f;
        }
        for (uint32_t q = 0; q < qn; q++) {
            node_ix x = queue[q];
            for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
                node_ix y = g->edge_to[e];
                if (y >= n || BIT(tpl, y) || GRAPH_EDGE_STRENGTH(g->edge_kind[e]) != GRAPH_STRONG ||
                    graph_node_dom(g, y) != GRAPH_DOM_DETACHED || !type_is(g, y, "native") ||
                    !dom_node_name(node_text(g, y)))
                    continue;
                SET(tpl, y);
                queue[qn++] = y;
            }
        }
    }
}

/* Strong reachability from the roots: a detached node nothing holds is garbage the snapshot
 * caught, not a leak. An unmounted fiber is a leak of its own (memlab's unmounted-Fiber
 * rule): what it holds (its child fibers, its detached host element) is its leak, so the
 * walk stops there; fibers listed in a parent's `deletions` are a commit in progress, not
 * followed. A detached node counts when something else than the browser's DOM and roots
 * holds it (memlab's trace filters), or a detached node that counts holds it (its subtree);
 * a fiber's `stateNode` is the fiber's leak. Unlike memlab, a page's expando on an attached
 * element (`nav.lastTip = tip`) counts: the page wrote that reference, Blink did not.
 * With `inert`, a `<template>` and its content do not count (mark_templates), whoever holds
 * them: an inert template renders nothing, and frameworks keep their templates for the page's
 * life, to parse or clone markup (Vue's template container, Lit's template cache, Svelte's
 * compiled roots). Inside a detached tree that counts, a template is part of that tree's
 * retained size; a template the page holds inside a removed tree makes that tree count.
 * memlab counts them (its filter passes 0).
 * O(N + E); LR_ERR_NOMEM leaves w freed. */
static lr_status dwalk_run(const graph *g, dwalk *w, int inert, lr_error *err)
{
    uint32_t n = g->n_nodes, fibers = 0;
    memset(w, 0, sizeof *w);
    w->seen = err_calloc(n / 8 + 1, 1);
    w->held = err_calloc(n / 8 + 1, 1);
    w->fib = err_calloc(n ? n : 1, 1);
    w->queue = err_mallocarray(n ? n : 1, sizeof *w->queue);
    if (!w->seen || !w->held || !w->fib || !w->queue) {
        dwalk_free(w);
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory finding detached DOM nodes");
    }
    uint8_t *seen = w->seen, *held = w->held, *fib = w->fib, *tpl = NULL;
    node_ix *queue = w->queue;
    if (inert) {
        tpl = w->tpl = err_calloc(n / 8 + 1, 1);
        w->tpl_held = err_calloc(n / 8 + 1, 1);
        if (!tpl || !w->tpl_held) {
            dwalk_free(w);
            return LR_FAIL(err, LR_ERR_NOMEM, "out of memory finding detached DOM nodes");
        }
        mark_templates(g, tpl, queue);
    }
    for (node_ix x = 0; x < n; x++)
        if (is_fiber(g, x)) {
            fib[x] = FIB_UNKNOWN;
            fibers++;
        }
    if (fibers)
        mark_fibers(g, fib, queue);
    uint32_t qn = 0;
    for (uint32_t r = 0; r < g->n_roots; r++) {
        node_ix x = g->roots[r].node;
        if (x < n && !BIT(seen, x)) {
            SET(seen, x);
            queue[qn++] = x;
        }
    }
    for (uint32_t q = 0; q < qn; q++) {
        node_ix x = queue[q];
        if (fib[x] == FIB_UNMOUNTED)
            continue;
        int page = !browser_holder(g, x);
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            node_ix y = g->edge_to[e];
            if (y >= n || GRAPH_EDGE_STRENGTH(g->edge_kind[e]) != GRAPH_STRONG)
                continue;
            if (fib[x] && is_prop(g, x, e, "deletions"))
                continue;
            /* a named property of a DOM node is the page's own (an expando), not Blink's */
            if ((page || GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_PROPERTY) &&
                graph_node_dom(g, y) == GRAPH_DOM_DETACHED &&
                !(fib[x] && is_prop(g, x, e, "stateNode")))
                SET(tpl && BIT(tpl, y) ? w->tpl_held : held, y);
            if (BIT(seen, y))
                continue;
            SET(seen, y);
            queue[qn++] = y;
        }
    }
    /* a template the page holds holds the tree it sits in: the detached DOM nodes next to
     * the template's own tree count (a removed row a kept <template> lies in) */
    qn = 0;
    for (node_ix x = 0; tpl && x < n; x++)
        if (BIT(w->tpl_held, x))
            queue[qn++] = x;
    for (uint32_t q = 0; q < qn; q++) {
        node_ix x = queue[q];
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            node_ix y = g->edge_to[e];
            if (y >= n || GRAPH_EDGE_STRENGTH(g->edge_kind[e]) != GRAPH_STRONG ||
                graph_node_dom(g, y) != GRAPH_DOM_DETACHED || !BIT(seen, y))
                continue;
            if (BIT(tpl, y)) {
                if (!BIT(w->tpl_held, y)) {
                    SET(w->tpl_held, y);
                    queue[qn++] = y;
                }
            } else if (type_is(g, y, "native") && dom_node_name(node_text(g, y))) {
                SET(held, y);
            }
        }
    }
    /* a detached node that counts holds its subtree: the detached nodes it reaches */
    qn = 0;
    for (node_ix x = 0; x < n; x++)
        if (BIT(held, x) && BIT(seen, x))
            queue[qn++] = x;
    for (uint32_t q = 0; q < qn; q++) {
        node_ix x = queue[q];
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            node_ix y = g->edge_to[e];
            if (y >= n || GRAPH_EDGE_STRENGTH(g->edge_kind[e]) != GRAPH_STRONG ||
                graph_node_dom(g, y) != GRAPH_DOM_DETACHED || !BIT(seen, y) || BIT(held, y) ||
                (tpl && BIT(tpl, y)))
                continue;
            SET(held, y);
            queue[qn++] = y;
        }
    }
    return LR_OK;
}

lr_status leak_find_detached(const graph *g, leak_set *s, uint32_t *n_added, lr_error *err)
{
    *n_added = 0;
    uint32_t n = g->n_nodes, cand = 0;
    if (!g->node_dom || !n)
        return LR_OK;
    /* the traversal only for a snapshot with detached DOM nodes (Node marks none) */
    for (node_ix x = 0; x < n && !cand; x++)
        cand = graph_node_dom(g, x) == GRAPH_DOM_DETACHED &&
               dom_node_name(graph_class_name(g, x));
    if (!cand)
        return LR_OK;
    dwalk w;
    lr_status st = dwalk_run(g, &w, 1, err);
    if (st != LR_OK)
        return st;
    /* what s holds already is not added twice: cleared from the reachable set */
    for (uint32_t i = 0; i < s->n; i++)
        if (s->v[i].node < n)
            w.seen[s->v[i].node / 8] &= (uint8_t) ~(1u << (s->v[i].node % 8));
    for (node_ix x = 0; x < n; x++) {
        if (!BIT(w.seen, x))
            continue;
        const char *why;
        if (w.fib[x] == FIB_UNMOUNTED)
            why = LEAK_FIBER_REASON;
        else if (BIT(w.held, x) && graph_node_dom(g, x) == GRAPH_DOM_DETACHED &&
                 dom_node_name(graph_class_name(g, x)))
            why = LEAK_DETACHED_REASON;
        else
            continue;
        if (push(s, x, LEAK_SRC_RULE, why)) {
            st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory finding detached DOM nodes");
            break;
        }
        (*n_added)++;
    }
    dwalk_free(&w);
    return st;
}

int leak_is_browser(const graph *g)
{
    for (node_ix x = 0; g->node_dom && x < g->n_nodes; x++)
        if (graph_node_dom(g, x) == GRAPH_DOM_ATTACHED)
            return 1;
    /* A snapshot without `detachedness` (Chrome before 2021) marks detached nodes by their
     * "Detached " names and none attached: its page shows in Blink's own natives, the
     * document and the window ("Window / https://..."), which no Node.js heap has. */
    for (node_ix x = 0; g->node_dom && g->node_name && x < g->n_nodes; x++) {
        if (!type_is(g, x, "native"))
            continue;
        const char *nm = node_text(g, x);
        if (!strcmp(nm, "HTMLDocument") || !strncmp(nm, "Window / ", 9))
            return 1;
    }
    return 0;
}

/* memlab's finished-XMLHttpRequest rule: a native XMLHttpRequest holding the response text
 * `{"status":"ok"}`. */
static int finished_xhr(const graph *g, node_ix x)
{
    if (!type_is(g, x, "native") || strcmp(node_text(g, x), "XMLHttpRequest"))
        return 0;
    for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
        node_ix y = g->edge_to[e];
        if (y < g->n_nodes && !strcmp(node_text(g, y), "{\"status\":\"ok\"}"))
            return 1;
    }
    return 0;
}

lr_status leak_memlab_filter(const graph *g, const dom_tree *t, uint8_t *sel, uint8_t *stop,
                             uint64_t *n_kept, lr_error *err)
{
    uint32_t n = g->n_nodes;
    uint64_t kept = 0;
    dwalk w = {0};
    lr_status st = n ? dwalk_run(g, &w, 0, err) : LR_OK;
    if (st != LR_OK)
        return st;
    /* memlab reports what an unmounted fiber holds too (its child fibers, the DOM under its
     * host element), each on the fiber's trace; only the node a fiber's `stateNode` names
     * is the fiber's own (FilterDetachedDOMElementRule). So the walk goes on below them. */
    uint32_t qn = 0;
    for (node_ix x = 0; x < n; x++)
        if (w.fib[x] == FIB_UNMOUNTED && BIT(w.seen, x))
            w.queue[qn++] = x;
    for (uint32_t q = 0; q < qn; q++) {
        node_ix x = w.queue[q];
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            node_ix y = g->edge_to[e];
            if (y >= n || GRAPH_EDGE_STRENGTH(g->edge_kind[e]) != GRAPH_STRONG ||
                (w.fib[x] && is_prop(g, x, e, "deletions")))
                continue;
            if (graph_node_dom(g, y) == GRAPH_DOM_DETACHED &&
                !(w.fib[x] && is_prop(g, x, e, "stateNode")))
                SET(w.held, y);
            if (BIT(w.seen, y))
                continue;
            SET(w.seen, y);
            w.queue[qn++] = y;
        }
    }
    /* a host element its fiber's `stateNode` dominates is the fiber's leak, not its own
     * (marked FIB_HOST: from here on fib[] only tells fibers and such hosts apart from the
     * rest) */
    for (node_ix x = 0; t && x < n; x++) {
        node_ix y = w.fib[x] == FIB_MOUNTED || w.fib[x] == FIB_UNMOUNTED
                        ? prop_of(g, x, "stateNode")
                        : GRAPH_NONE;
        if (y < n && y < t->n && t->idom[y] == x && !w.fib[y])
            w.fib[y] = FIB_HOST;
    }
    for (node_ix x = 0; x < n; x++) {
        const char *nm = node_text(g, x);
        /* memlab's isDetachedDOMNode with ignoreInternalNode: marked detached (only native
         * nodes are), neither a fiber nor an InternalNode, nor a V8 store Chromium types
         * native ("Detached system / PropertyArray": a wrapper's expando properties, which
         * memlab never counts; 100 of them on a React page) */
        const char *base = strncmp(nm, "Detached ", 9) ? nm : nm + 9;
        int detached = graph_node_dom(g, x) == GRAPH_DOM_DETACHED && !w.fib[x] &&
                       strcmp(base, "InternalNode") && strncmp(base, "system / ", 9);
        if (stop)
            stop[x] = (uint8_t)(detached || w.fib[x] == FIB_UNMOUNTED);
        if (!sel[x])
            continue;
        int leak = BIT(w.seen, x) &&
                   (w.fib[x] == FIB_UNMOUNTED || (detached && BIT(w.held, x)) ||
                    (type_is(g, x, "hidden") && !strcmp(nm, "system / StackTraceFrame")) ||
                    finished_xhr(g, x));
        sel[x] = (uint8_t)leak;
        kept += (uint64_t)leak;
    }
    dwalk_free(&w);
    *n_kept = kept;
    return LR_OK;
}

uint32_t leak_kwrs_of(const leak_set *s, node_ix n, uint32_t *first)
{
    uint32_t lo = 0, hi = s->n_kwrs;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (s->kwrs[mid].referent < n)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t k = 0;
    while (lo + k < s->n_kwrs && s->kwrs[lo + k].referent == n)
        k++;
    *first = lo;
    return k;
}

lr_status leak_suspects(const graph *g, const dom_tree *t, double share, double accum,
                        leak_set *out, lr_error *err)
{
    uint32_t n = t->n;
    if (!t->total_reachable || n == 0)
        return LR_OK;
    /* biggest dominated child of every node, one pass over idom */
    node_ix *big = err_mallocarray(n, sizeof *big);
    if (!big)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory computing suspects");
    for (uint32_t i = 0; i < n; i++)
        big[i] = GRAPH_NONE;
    node_ix tops[64];
    uint32_t n_tops = 0;
    for (uint32_t x = 0; x < n; x++) {
        node_ix d = t->idom[x];
        if (d == GRAPH_NONE)
            continue;
        if (d == DOM_SUPER_ROOT) {
            if ((double)t->retained[x] > share * (double)t->total_reachable && n_tops < 64)
                tops[n_tops++] = x;
            continue;
        }
        if (d < n && (big[d] == GRAPH_NONE || t->retained[x] > t->retained[big[d]]))
            big[d] = x;
    }
    /* largest first */
    for (uint32_t i = 1; i < n_tops; i++)
        for (uint32_t j = i; j > 0 && t->retained[tops[j]] > t->retained[tops[j - 1]]; j--) {
            node_ix tmp = tops[j];
            tops[j] = tops[j - 1];
            tops[j - 1] = tmp;
        }
    lr_status st = LR_OK;
    for (uint32_t i = 0; i < n_tops && st == LR_OK; i++) {
        node_ix a = tops[i];
        for (uint32_t guard = 0; guard < n; guard++) {
            node_ix c = big[a];
            if (c == GRAPH_NONE || (double)t->retained[c] <= accum * (double)t->retained[a])
                break;
            a = c;
        }
        char reason[256];
        double pct = 100.0 * (double)t->retained[tops[i]] / (double)t->total_reachable;
        snprintf(reason, sizeof reason, "Accumulation point of a dominator holding %.1f%% of "
                 "the heap", pct);
        if (push(out, a, LEAK_SRC_SUSPECT, reason))
            st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory computing suspects");
        else
            out->v[out->n - 1].top = tops[i];
    }
    free(big);
    return st;
}

void leak_set_free(leak_set *s)
{
    if (!s)
        return;
    free(s->v);
    free(s->kwrs);
    for (uint32_t i = 0; i < s->n_texts; i++)
        free(s->texts[i]);
    free(s->texts);
    hmap_free(&s->text_index);
    free(s->member);
    memset(s, 0, sizeof *s);
}
