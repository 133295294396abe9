/* SPDX-License-Identifier: Apache-2.0 */
/* leakfind.h: which objects are leaking (analysis layer), prefix leak_. Three sources, in
 * this order: objects watched by LeakCanary's KeyedWeakReference (leakcanary.* or the legacy
 * com.squareup.leakcanary.*) whose referent is still set and whose retainedUptimeMillis is
 * not -1; objects a leaking inspector or watch rule (rules layer, including --watch /
 * --leaking-if) declares leaking; and, only when both found nothing and the caller asks,
 * MAT-style leak suspects: dominator-tree tops holding more than a share of the heap,
 * descended to their accumulation point. Semantics: docs/research/hprof-leakcanary-shark.md
 * sections 8.2-8.3. */
#ifndef LR_ANALYSIS_LEAKFIND_H
#define LR_ANALYSIS_LEAKFIND_H

#include "analysis/dominators.h"
#include "base/hmap.h"
#include "graph/graph.h"
#include "rules/rules.h"

#define LEAK_MS_UNKNOWN INT64_MIN /* a duration the dump cannot tell */

enum leak_source { LEAK_SRC_WATCHED = 0, LEAK_SRC_RULE = 1, LEAK_SRC_SUSPECT = 2 };

/* One KeyedWeakReference found in the dump (cleared ones included). */
typedef struct leak_kwr {
    node_ix ref;        /* the KeyedWeakReference instance */
    node_ix referent;   /* watched object, GRAPH_NONE when cleared */
    int retained;       /* retainedUptimeMillis != -1 */
    char key[64];       /* key field */
    char description[192]; /* description (or legacy name) field */
    int64_t watch_ms;   /* watchDurationMillis, LEAK_MS_UNKNOWN when unknown: also when
                         * heapDumpUptimeMillis is 0 (never set: Shark prints a negative) */
    int64_t retain_ms;  /* retainedDurationMillis, LEAK_MS_UNKNOWN when unknown */
} leak_kwr;

/* One leaking object. */
typedef struct leak_object {
    node_ix node;
    uint8_t source;    /* enum leak_source */
    const char *reason; /* rule / suspect reason, at most 255 bytes ("" for watched objects:
                         * see kwrs); one copy per distinct text, owned by the set: a
                         * million watched objects share one (a buffer each was 256 B) */
    node_ix top;       /* LEAK_SRC_SUSPECT: the dominator-tree top it descends from */
} leak_object;

typedef struct leak_set {
    leak_object *v;
    uint32_t n, cap;
    leak_kwr *kwrs;     /* every KeyedWeakReference, sorted by referent */
    uint32_t n_kwrs;
    uint32_t n_cleared; /* retained KeyedWeakReferences whose referent was cleared */
    int64_t heap_dump_uptime; /* KeyedWeakReference.heapDumpUptimeMillis, -1 if absent */
    char **texts;       /* the distinct reasons (owned) */
    uint32_t n_texts, cap_texts;
    hmap text_index;    /* texts by hash */
    uint8_t *member;    /* leak_add: a bit per node among v[0..member_n) */
    size_t member_bytes;
    uint32_t member_n;
} leak_set;

/* Finds watched and rule-declared leaking objects, in node order within each source.
 * rs may be NULL (watched objects only). Returns LR_OK or LR_ERR_NOMEM. */
lr_status leak_find(const graph *g, const rules_set *rs, leak_set *out, lr_error *err);

/* Adds MAT-style suspects: dominator tops retaining more than `share` (0..1) of the
 * reachable heap, each followed down to its accumulation point (the biggest dominated child,
 * while that child retains more than `accum` of its parent). */
lr_status leak_suspects(const graph *g, const dom_tree *t, double share, double accum,
                        leak_set *out, lr_error *err);

/* Adds n as leaking (enum leak_source, reason) unless s holds it already: for objects a
 * caller names itself, such as a run-time leak report matched to the dump. O(s->n). Returns
 * LR_OK or LR_ERR_NOMEM. */
lr_status leak_add(leak_set *s, node_ix n, uint8_t source, const char *reason, lr_error *err);

/* Adds the detached DOM nodes still retained (browser snapshots: DevTools' detachedness,
 * graph_node_dom): DOM nodes no document reaches but a strong path from a root does, as
 * memlab's find-leaks reports them: elements and the other kinds of DOM node (Text,
 * Comment, ShadowRoot ...), not Blink's internal objects of a node ("blink::...",
 * InternalNode) nor the embedder objects Node.js marks detached; only those the page holds
 * (not the browser's DOM links and roots alone), and the unmounted React fibers in their
 * place (LEAK_FIBER_REASON), fibers in a `deletions` array left alone. Node order, after
 * what s holds (never twice); *n_added counts them. O(N + E): two traversals of the strong
 * edges, only when some DOM node is detached. Returns LR_OK or LR_ERR_NOMEM. */
#define LEAK_DETACHED_REASON "detached DOM node: no document holds it"
#define LEAK_FIBER_REASON "unmounted React fiber: no HostRoot above it"
lr_status leak_find_detached(const graph *g, leak_set *s, uint32_t *n_added, lr_error *err);

/* Whether g is a browser page's snapshot: some node is attached to a document (Node.js marks
 * a few embedder objects detached, never one attached), or, in a snapshot without DOM link
 * states (older Chrome: only "Detached " names), a native HTMLDocument or Window is there. */
int leak_is_browser(const graph *g);

/* memlab's default leak filter (find-leaks without --trace-all-objects) over the selected
 * nodes: sel[n] stays 1 only for a detached DOM node in memlab's sense (a node the snapshot
 * marks detached, InternalNode and fibers excepted) that the page holds as
 * leak_find_detached says (memlab's trace filters: the browser's own DOM links, roots, shadow
 * roots, style engine and pending activities alone do not count), or that an unmounted fiber
 * holds, but not a host element its fiber's `stateNode` dominates (t: the dominators of g,
 * NULL to skip that rule); an unmounted React fiber outside `deletions`; a `system /
 * StackTraceFrame`; a finished XMLHttpRequest. *n_kept counts them. stop, when not NULL
 * (g->n_nodes bytes), gets 1 for the nodes where memlab ends a trace before clustering it
 * (the first detached node or unmounted fiber from the root). O(N + E). Returns LR_OK or
 * LR_ERR_NOMEM. */
lr_status leak_memlab_filter(const graph *g, const dom_tree *t, uint8_t *sel, uint8_t *stop,
                             uint64_t *n_kept, lr_error *err);

/* KeyedWeakReferences watching n (first index into s->kwrs, count), 0 if none. */
uint32_t leak_kwrs_of(const leak_set *s, node_ix n, uint32_t *first);

void leak_set_free(leak_set *s);

#endif
