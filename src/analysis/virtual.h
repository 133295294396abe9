/* SPDX-License-Identifier: Apache-2.0 */
/* virtual.h: the reference view Shark's path finder walks, generated one node at a time over
 * an HPROF graph (analysis layer), prefix virt_. Shark 2.14 does not read a collection field
 * by field first: a recognised collection instance (ArrayList, CopyOnWriteArrayList,
 * LinkedList, HashMap, LinkedHashMap, ConcurrentHashMap, HashSet, LinkedHashSet, in their
 * OpenJDK and Apache Harmony layouts; Android's MessageQueue, ArraySet, SafeIterableMap and the
 * ActivityThread.mNewActivities records; an ObjectAnimator's weak target) lists its elements as
 * direct "array entry" references ahead of its fields, so traces read `ArrayList[0]` and
 * `HashMap["key"]` instead of going through elementData/table/Node. Its other readers shape
 * the rest: instance fields sorted by name, nothing out of Strings and boxed primitives,
 * nothing out of wrapper arrays (Integer[]...), object array entries numbered among the
 * non-null elements. A generator (virt_gen) makes the list of one node on demand into a buffer
 * it reuses, from per-class tables made once (O(classes)); nothing the size of the graph is
 * kept besides a bitmap of one bit per node. Each entry of a list is either a real edge
 * (its `real` edge, so rules and retained sizes still speak about real edges) or a virtual
 * element entry (GRAPH_EDGE_ELEMENT, name = position among the collection's references,
 * optional text label such as "\"key\"" or "key()"), known by its position in its node's
 * list. The graph itself is never changed: dominators and sizes keep using the real edges.
 * Conventions are in docs/graph.md ("Virtual references"). */
#ifndef LR_ANALYSIS_VIRTUAL_H
#define LR_ANALYSIS_VIRTUAL_H

#include "graph/graph.h"

/* Path priority of an entry. Shark's readers fix it for a few references whatever the
 * reference matchers say: ActivityThread.mNewActivities is followed at normal priority (still
 * tagged a library leak), an ObjectAnimator's target read through its WeakReference is low
 * priority. */
enum virt_priority {
    VIRT_PRIO_RULES = 0,  /* as the rules judge the real edge; virtual entries are followed */
    VIRT_PRIO_NORMAL = 1, /* followed at normal priority even if the rules say "visit last" */
    VIRT_PRIO_LOW = 2,    /* visited last */
};

/* One node's list in Shark's order: the collection reader's entries first, then the real
 * edges kept. The arrays belong to the generator and change at its next call. */
typedef struct virt_list {
    node_ix node;         /* whose list it is */
    uint32_t n;           /* entries */
    uint32_t n_lead;      /* the first n_lead entries come from a collection reader */
    const node_ix *to;    /* target node */
    const uint32_t *name; /* as graph edge names; array entries renumbered (see above) */
    const uint8_t *kind;  /* GRAPH_EDGE_MAKE(kind, strength) */
    const edge_ix *real;  /* the real edge behind the entry, GRAPH_NONE for a virtual one */
    const uint8_t *prio;  /* enum virt_priority */
} virt_list;

typedef struct virt_gen virt_gen;

/* Makes the per-class tables for g into *out. Graphs other than HPROF (and graphs loaded
 * without edges) get no view: *out is NULL, and callers use the real edges. O(N) once (a scan
 * for ActivityThread instances) plus O(classes + strings). */
lr_status virt_gen_new(const graph *g, virt_gen **out, lr_error *err);
void virt_gen_free(virt_gen *vg);

/* The list of node x, made now unless it is the one the buffer holds. NULL when out of
 * memory. Walking a collection reads untrusted data: chains stop at a node already seen in
 * the same collection, and all expansions share a step budget proportional to the graph
 * (virt_budget_reset), past which collections list nothing of their own; since a walk only
 * gets cut, the reader's entries made under a smaller budget are a prefix of those made
 * under a larger one, and the real edges never depend on it. */
const virt_list *virt_edges(virt_gen *vg, node_ix x);
/* Gives the shared step budget back in full (say, before reading again lists a traversal
 * read, so the entries it used are there again). */
void virt_budget_reset(virt_gen *vg);
/* HashMap-like tables of at least `buckets` non-null buckets have their entries read in node
 * order before they are listed (default: a size past which that is cheaper on the
 * benchmark machine); the lists are the same whatever the size, which tests check by
 * setting 1 (every table) against UINT32_MAX (none). */
void virt_set_sorted_min(virt_gen *vg, uint32_t buckets);
/* Collections expanded and reader entries made so far (each time a list is made). */
void virt_stats(const virt_gen *vg, uint64_t *collections, uint64_t *entries);

/* Entry `pos` of node from's list (made again when it is not the one held; GRAPH_NONE,
 * VIRT_PRIO_RULES and NULL when pos is out of range or memory runs out). */
edge_ix virt_real_edge(virt_gen *vg, node_ix from, uint32_t pos);
int virt_edge_priority(virt_gen *vg, node_ix from, uint32_t pos);
/* Room virt_edge_label needs for any label (longer ones are cut, as Shark's are not). */
#define VIRT_LABEL_MAX 2200
/* Text name of a virtual element entry ("\"cached-page\"", "key()"), formatted into buf (cap
 * bytes, VIRT_LABEL_MAX for the full text); NULL when its name is its index (or the entry is
 * a real edge). Returns buf or a static string; valid until buf is reused. */
const char *virt_edge_label(virt_gen *vg, node_ix from, uint32_t pos, char *buf, size_t cap);
/* Name the entry standing for real edge e of node from has in the view (array entries are
 * renumbered among the non-null ones), without making the list. */
uint32_t virt_real_name(const virt_gen *vg, node_ix from, edge_ix e);

#endif
