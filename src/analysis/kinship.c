/* SPDX-License-Identifier: Apache-2.0 */
/* kinship.c: snapshot fingerprints and the "one process?" test (analysis layer), prefix kin_.
 * A fingerprint keeps 32-bit FNV-1a hashes of class names, not the names: a collision can
 * only make two snapshots look more alike, never refuse a valid pair. Objects without a
 * class (V8 strings, code, synthetic nodes) are keyed by their node kind. See kinship.h. */
#include "analysis/kinship.h"
#include "base/hash.h"
#include "graph/classname.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int kin_obj_cmp(const void *pa, const void *pb)
{
    const kin_obj *a = pa, *b = pb;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->cls < b->cls ? -1 : a->cls > b->cls;
}

static int kin_u32_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return a < b ? -1 : a > b;
}

void kin_print_free(kin_print *p)
{
    if (!p)
        return;
    free(p->objs);
    free(p->cls);
    memset(p, 0, sizeof *p);
}

/* The KIN_V8_* marks of a V8 graph: a "smi number" node of type "number" (V8 names heap
 * numbers "heap number" either way), and the reader's size model for a root without user
 * roots. */
static unsigned v8_marks(const graph *g)
{
    unsigned m = g->size_model == GRAPH_SIZES_DEVTOOLS_RAW ? KIN_V8_NO_USER_ROOTS : 0;
    int num = -1;
    for (uint32_t t = 0; t < g->n_types && t < 32; t++)
        if (g->type_names[t] && strcmp(g->type_names[t], "number") == 0)
            num = (int)t;
    for (node_ix v = 0; num >= 0 && v < g->n_nodes; v++)
        if (g->node_type[v] == num && strcmp(graph_str(g, g->node_name[v]), "smi number") == 0)
            return m | KIN_V8_NUMERIC;
    return m;
}

lr_status kin_print_build(const graph *g, const char *format, kin_print *p, lr_error *err)
{
    memset(p, 0, sizeof *p);
    snprintf(p->format, sizeof p->format, "%s", format ? format : "");
    uint32_t *hc = err_mallocarray(g->n_classes ? g->n_classes : 1, sizeof *hc);
    p->cls = err_mallocarray(g->n_classes ? g->n_classes : 1, sizeof *p->cls);
    p->objs = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *p->objs);
    if (!hc || !p->cls || !p->objs) {
        free(hc);
        kin_print_free(p);
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory for %u objects", g->n_nodes);
    }
    int v8 = strcmp(p->format, "v8") == 0;
    p->births = !v8 && g->node_birth != NULL;
    /* The class names compared: V8's names of objects without a constructor, their property
     * lists (`{constructor}`, `{resolve, normalize, ...}`), come and go as one program
     * runs, and made a start-up snapshot and a later one of one Node process look like two
     * programs (22 and 19 names of 161 each side's own). Their objects keep them below. */
    uint32_t n_named = 0;
    for (class_ix c = 0; c < g->n_classes; c++) {
        const char *name = graph_str(g, g->classes[c].name);
        /* An object keeps its id, and changes its V8 name, in one process: a DOM node a page
         * removed becomes "Detached <li>", an object given a property `{a}` -> `{a, b}`. A
         * page that dropped a 20,000-row list it still held read as another process (33 %
         * of common ids kept their class): names compare without "Detached ", objects of
         * property lists as one. */
        if (v8 && !strncmp(name, "Detached ", 9))
            name += 9;
        /* What the runtime draws anew in each run is left out (classname_stable): V8 15
         * names each closure scope after its object ("system / Context / scope @123"), and
         * a JVM's lambdas, hidden classes and proxies carry their addresses and numbers
         * (`Foo$$Lambda$14+0x...`): a plugin host's two dumps, one reload apart, had
         * 2,703 and 8,823 names of 10,296 the other lacked, and read as two programs */
        char stable[512];
        classname_stable(name, stable, sizeof stable);
        hc[c] = hash_fnv32_str(v8 && name[0] == '{' ? "{}" : stable);
        if (!v8 || name[0] != '{')
            p->cls[n_named++] = hc[c];
    }
    qsort(p->cls, n_named, sizeof *p->cls, kin_u32_cmp);
    for (uint32_t i = 0; i < n_named; i++)
        if (p->n_cls == 0 || p->cls[p->n_cls - 1] != p->cls[i])
            p->cls[p->n_cls++] = p->cls[i];
    if (graph_has_ids(g)) {
        class_ix flat_string = GRAPH_NONE; /* V8's "(string)": a text that never changes */
        for (class_ix c = 0; v8 && c < g->n_classes && flat_string == GRAPH_NONE; c++)
            if (!strcmp(graph_str(g, g->classes[c].name), "(string)"))
                flat_string = c;
        for (node_ix v = 0; v < g->n_nodes; v++) {
            class_ix c = graph_node_class(g, v);
            uint32_t h = c < g->n_classes ? hc[c] : (uint32_t)g->node_kind[v] + 1;
            uint64_t id = graph_node_id(g, v);
            /* A closure's class is its kind; its name (the function's) tells more. */
            uint32_t js = 0;
            if (v8 && g->node_name && c < g->n_classes &&
                (g->node_kind[v] == GRAPH_KIND_INSTANCE ||
                 g->node_kind[v] == GRAPH_KIND_CLOSURE) &&
                strncmp(graph_str(g, g->classes[c].name), "system /", 8) != 0)
                js = hash_fnv32_str(graph_str(g, g->node_name[v])) | 1u;
            else if (v8 && g->node_name && c < g->n_classes && c == flat_string)
                js = (hash_fnv32_str(graph_str(g, g->node_name[v])) & ~1u) | 2u;
            else if (!v8 && g->node_birth)
                js = g->node_birth[v];
            p->objs[p->n_objs++] = (kin_obj){id, h, js};
            p->n_pos += id == v || id == (uint64_t)v + 1;
        }
        /* Readers number nodes in id order (HPROF's sorted id table, V8's ascending ids):
         * the sort is then skipped, which halves the check's cost on large dumps. */
        uint64_t k = 1;
        while (k < p->n_objs && kin_obj_cmp(&p->objs[k - 1], &p->objs[k]) <= 0)
            k++;
        if (k < p->n_objs)
            qsort(p->objs, p->n_objs, sizeof *p->objs, kin_obj_cmp);
    }
    free(hc);
    if (v8)
        p->v8_opts = v8_marks(g);
    for (uint32_t t = 0; t < g->n_threads && !p->entry[0]; t++) {
        const graph_thread *th = &g->threads[t];
        if (th->n_frames == 0 || th->first_frame + th->n_frames > g->n_frames)
            continue;
        const graph_frame *f = &g->frames[th->first_frame + th->n_frames - 1];
        if (f->class_name != GRAPH_NONE && strcmp(graph_str(g, f->method), "main") == 0)
            snprintf(p->entry, sizeof p->entry, "%s", graph_str(g, f->class_name));
    }
    return LR_OK;
}

int kin_same_format(const kin_print *a, const kin_print *b)
{
    return strcmp(a->format, b->format) == 0;
}

int kin_v8_opts_differ(const kin_print *a, const kin_print *b, char *why, size_t cap)
{
    unsigned d = a->v8_opts ^ b->v8_opts;
    const char *with = "the first", *without = "the second";
    if (d & KIN_V8_NUMERIC) {
        if (b->v8_opts & KIN_V8_NUMERIC)
            with = "the second", without = "the first";
        snprintf(why, cap,
                 "%s was written with small integers as nodes (exposeNumericValues), %s "
                 "without: objects holding small integers change class between them",
                 with, without);
        return 1;
    }
    if (d & KIN_V8_NO_USER_ROOTS) {
        if (b->v8_opts & KIN_V8_NO_USER_ROOTS)
            with = "the second", without = "the first";
        snprintf(why, cap,
                 "%s has no user roots (exposeInternals, near-heap-limit), %s has: DevTools "
                 "keeps its recorded sizes, so array and internal sizes move between classes",
                 with, without);
        return 1;
    }
    return 0;
}

/* Percent of part in whole, rounded down; 100 for an empty whole (nothing contradicts). */
static unsigned kin_pct(uint64_t part, uint64_t whole)
{
    return whole ? (unsigned)(part * 100 / whole) : 100;
}

/* Objects of p whose id is at most id (p->objs sorted by id). O(log n). */
static uint64_t kin_at_most(const kin_print *p, uint64_t id)
{
    uint64_t lo = 0, hi = p->n_objs;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (p->objs[mid].id <= id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether a and b number their objects afresh (kinship.h, KIN_MAX_RENUM_PCT): both by
 * position, or apart: few ids in common, and the later side's ids above the earlier side's
 * but for a few (Bun 1.3.14 on keeps its root and (GC roots) at ids 1 and 2). */
static int kin_renumbered(const kin_print *a, const kin_print *b, uint64_t shared)
{
    uint64_t small = a->n_objs < b->n_objs ? a->n_objs : b->n_objs;
    /* HPROF ids are addresses: ranges apart mean another heap layout (a 32-bit and a 64-bit
     * JVM), never a renumbering, and diff already compares HPROF dumps per class. */
    if (small < KIN_MIN_RENUM_OBJS || strcmp(a->format, "hprof") == 0 ||
        strcmp(b->format, "hprof") == 0)
        return 0;
    if (a->n_pos * 100 >= a->n_objs * KIN_MIN_POS_PCT &&
        b->n_pos * 100 >= b->n_objs * KIN_MIN_POS_PCT)
        return 1;
    if (shared * 100 >= small * KIN_MAX_RENUM_PCT)
        return 0;
    /* b later: b's objects at or below a's highest id; a later: the reverse */
    uint64_t in_b = kin_at_most(b, a->objs[a->n_objs - 1].id);
    uint64_t in_a = kin_at_most(a, b->objs[b->n_objs - 1].id);
    return in_b * 100 < b->n_objs * KIN_MAX_RENUM_PCT ||
           in_a * 100 < a->n_objs * KIN_MAX_RENUM_PCT;
}

int kin_compare(const kin_print *a, const kin_print *b, int by_id, kin_stats *s, char *why,
                size_t cap)
{
    memset(s, 0, sizeof *s);
    s->classes_a = a->n_cls;
    s->classes_b = b->n_cls;
    for (uint32_t i = 0, j = 0; i < a->n_cls && j < b->n_cls;) {
        if (a->cls[i] == b->cls[j]) {
            s->classes_shared++;
            i++;
            j++;
        } else if (a->cls[i] < b->cls[j]) {
            i++;
        } else {
            j++;
        }
    }
    s->hprof = strcmp(a->format, "hprof") == 0 && strcmp(b->format, "hprof") == 0;
    uint32_t fill[3] = {hash_fnv32_str("int[]"), hash_fnv32_str("jdk.internal.vm.FillerObject"),
                        hash_fnv32_str("jdk.internal.vm.FillerElement[]")};
    int v8 = !strcmp(a->format, "v8") && !strcmp(b->format, "v8");
    /* Merge walk; an id repeated on one side (ArkTS root groups) pairs up once. */
    for (uint64_t i = 0, j = 0; i < a->n_objs && j < b->n_objs;) {
        if (a->objs[i].id < b->objs[j].id) {
            i++;
        } else if (b->objs[j].id < a->objs[i].id) {
            j++;
        } else {
            int same = a->objs[i].cls == b->objs[j].cls;
            s->ids_shared++;
            s->ids_same_class += same;
            uint32_t ca = a->objs[i].cls;
            s->ids_refilled +=
                s->hprof && !same && (ca == fill[0] || ca == fill[1] || ca == fill[2]);
            uint32_t ja = a->objs[i].js, jb = b->objs[j].js;
            if (!v8) {
                /* js is a birth there (Ruby's generation), no name */
            } else if (ja && jb && !(ja & 1) && !(jb & 1)) { /* a string on both sides */
                s->str_shared++;
                s->str_same_text += ja == jb;
            } else if ((ja | jb) & 1) { /* a JavaScript object on either side */
                s->js_shared++;
                s->js_same_class += ja == jb;
            }
            i++;
            j++;
        }
    }
    s->ids_renumbered = kin_renumbered(a, b, s->ids_shared);
    uint32_t smaller = a->n_cls < b->n_cls ? a->n_cls : b->n_cls;
    uint32_t own_a = a->n_cls - s->classes_shared, own_b = b->n_cls - s->classes_shared;
    uint32_t own = own_a < own_b ? own_a : own_b;
    unsigned cls_pct = kin_pct(s->classes_shared, smaller);
    unsigned id_pct = kin_pct(s->ids_same_class, s->ids_shared);
    if (a->entry[0] && b->entry[0] && strcmp(a->entry, b->entry) != 0) {
        snprintf(why, cap, "the first runs %.100s.main, the second %.100s.main: different programs",
                 a->entry, b->entry);
        return 0;
    }
    /* V8 numbers a process's objects in one sequence: many ids in common, nearly all with
     * their class, is one process whatever the class names say (a hot reload's 25 new
     * classes of 179 read as "different programs") */
    int one_seq = by_id && !strcmp(a->format, "v8") && !strcmp(b->format, "v8") &&
                  s->ids_shared >= KIN_MIN_ID_SAMPLE && !s->ids_renumbered &&
                  s->ids_same_class * 100 >= s->ids_shared * KIN_SAME_SEQ_PCT;
    if (!one_seq && smaller && (uint64_t)own * 100 >= (uint64_t)smaller * KIN_MAX_OWN_PCT) {
        snprintf(why, cap,
                 "each has class names the other lacks (%u and %u, of %u): the snapshots come "
                 "from different programs (or runtime versions)",
                 own_a, own_b, smaller);
        return 0;
    }
    if (!one_seq && cls_pct < KIN_MIN_CLASS_PCT) {
        snprintf(why, cap,
                 "only %u of %u class names (%u%%) are shared: the snapshots come from "
                 "different programs",
                 s->classes_shared, smaller, cls_pct);
        return 0;
    }
    if (s->ids_renumbered) {
        snprintf(why, cap,
                 "%u%% of class names shared; object ids renumbered in each snapshot",
                 cls_pct);
        return 1;
    }
    if (!by_id) {
        snprintf(why, cap, "%u%% of class names shared; compared per class", cls_pct);
        return 1;
    }
    /* An address-like id changes class when the collector moves objects too (a compacting
     * HotSpot collection, Ruby's GC.compact): that is said before --force is offered. */
    const char *moved = !strcmp(a->format, "hprof") ?
        ", or the collector moved objects between them (an HPROF id is an address)" :
        !strcmp(a->format, "ruby") ?
        ", or GC.compact moved objects between them (a Ruby id is a heap slot)" :
        !strcmp(a->format, "v8") ?
        ", or were each taken by a new inspector session, which numbers objects afresh" : "";
    if (s->ids_shared >= KIN_MIN_ID_SAMPLE && id_pct < KIN_MIN_ID_PCT) {
        snprintf(why, cap,
                 "of %llu object ids present in both, only %u%% keep their class: the "
                 "snapshots come from different processes%s",
                 (unsigned long long)s->ids_shared, id_pct, moved);
        return 0;
    }
    if (s->js_shared >= KIN_MIN_JS_SAMPLE &&
        s->js_same_class * 100 < s->js_shared * KIN_MIN_JS_PCT) {
        snprintf(why, cap,
                 "of %llu JavaScript objects present in both by id, only %u%% keep their "
                 "constructor or function name: the snapshots come from different "
                 "processes (or isolates)%s",
                 (unsigned long long)s->js_shared, kin_pct(s->js_same_class, s->js_shared),
                 moved);
        return 0;
    }
    if (s->str_shared >= KIN_MIN_JS_SAMPLE &&
        s->str_same_text * 100 < s->str_shared * KIN_MIN_STR_PCT) {
        snprintf(why, cap,
                 "of %llu strings present in both by id, only %u%% keep their text: the "
                 "snapshots come from different processes (or isolates)%s",
                 (unsigned long long)s->str_shared, kin_pct(s->str_same_text, s->str_shared),
                 moved);
        return 0;
    }
    if (a->n_objs >= KIN_MIN_ID_SAMPLE && b->n_objs >= KIN_MIN_ID_SAMPLE &&
        s->ids_same_class == 0) {
        snprintf(why, cap,
                 "no object id of one is found in the other with its class: the snapshots "
                 "come from different processes%s", moved);
        return 0;
    }
    snprintf(why, cap, "%u%% of class names shared, %u%% of common ids keep their class", cls_pct,
             id_pct);
    return 1;
}
