/* SPDX-License-Identifier: Apache-2.0 */
/* virtual.h: the reference view Shark's path finder walks, as an edge overlay over an HPROF
 * graph (analysis layer), prefix virt_. Shark 2.14 does not read a collection field by field
 * first: a recognised collection instance (ArrayList, CopyOnWriteArrayList, LinkedList,
 * HashMap, LinkedHashMap, ConcurrentHashMap, HashSet, LinkedHashSet, in their OpenJDK and
 * Apache Harmony layouts; Android's MessageQueue, ArraySet, SafeIterableMap and the
 * ActivityThread.mNewActivities records; an ObjectAnimator's weak target) lists its elements as
 * direct "array entry" references ahead of its fields, so traces read `ArrayList[0]` and
 * `HashMap["key"]` instead of going through elementData/table/Node. Its other readers shape
 * the rest: instance fields sorted by name, nothing out of Strings and boxed primitives,
 * nothing out of wrapper arrays (Integer[]...), object array entries numbered among the
 * non-null elements. The overlay is a second CSR over the same nodes; every overlay edge is
 * either a real edge (virt_real_edge gives it, so rules and retained sizes still speak about
 * real edges) or a virtual element edge (GRAPH_EDGE_ELEMENT, name = position among the
 * collection's references, optional text label such as "\"key\"" or "key()"). The graph
 * itself is never changed: dominators and sizes keep using the real edges. Conventions are in
 * docs/graph.md ("Virtual references"). */
#ifndef LR_ANALYSIS_VIRTUAL_H
#define LR_ANALYSIS_VIRTUAL_H

#include "graph/graph.h"

typedef struct virt_overlay {
    const graph *g;        /* the graph it was built for (labels are formatted from it) */
    uint32_t n_edges;      /* overlay edges */
    edge_ix *first_edge;   /* n_nodes+1 entries, NULL when no overlay was built */
    node_ix *edge_to;      /* target node */
    uint32_t *edge_name;   /* as graph.edge_name (element index renumbered, see above) */
    uint8_t *edge_kind;    /* as graph.edge_kind */
    uint32_t *edge_aux;    /* the real edge (< n_real), or UINT32_MAX - label code for a
                            * virtual edge (virtual.c: plain, key(), element(), value named by
                            * key node k); labels are made only when asked for */
    uint32_t n_real;       /* edges of the graph */
    uint32_t n_virtual;    /* virtual edges made */
    uint32_t n_collections; /* collection instances expanded */
    uint32_t n_prio;       /* overlay edges with a priority of their own (few) */
    edge_ix *prio_edge;    /* those edges, ascending */
    uint8_t *prio;         /* their enum virt_priority */
} virt_overlay;

/* Path priority of an overlay edge. Shark's readers fix it for a few references whatever the
 * reference matchers say: ActivityThread.mNewActivities is followed at normal priority (still
 * tagged a library leak), an ObjectAnimator's target read through its WeakReference is low
 * priority. */
enum virt_priority {
    VIRT_PRIO_RULES = 0,  /* as the rules judge the real edge; virtual edges are followed */
    VIRT_PRIO_NORMAL = 1, /* followed at normal priority even if the rules say "visit last" */
    VIRT_PRIO_LOW = 2,    /* visited last */
};

/* Builds the overlay for g. Graphs other than HPROF get none (vo->first_edge stays NULL, and
 * callers use the real edges). O(N + E log F) with F the fields of one object; the edge
 * arrays are sized exactly (13 bytes per overlay edge). */
lr_status virt_build(const graph *g, virt_overlay *vo, lr_error *err);
/* Fills *view as a shallow copy of g whose four edge arrays are the overlay's (reverse
 * edges dropped); g itself when vo has no overlay. The view lives as long as g and vo. */
void virt_view(const graph *g, const virt_overlay *vo, graph *view);
/* The real edge behind overlay edge e, GRAPH_NONE for a virtual one (e itself without an
 * overlay). */
edge_ix virt_real_edge(const virt_overlay *vo, edge_ix e);
/* Room virt_edge_label needs for any label (longer ones are cut, as Shark's are not). */
#define VIRT_LABEL_MAX 2200
/* Text name of a virtual element edge ("\"cached-page\"", "key()"), formatted into buf (cap
 * bytes, VIRT_LABEL_MAX for the full text); NULL when its name is its index (or e is no
 * virtual edge). Returns buf or a static string; valid until buf is reused. */
const char *virt_edge_label(const virt_overlay *vo, edge_ix e, char *buf, size_t cap);
/* enum virt_priority of overlay edge e. O(log n_prio). */
int virt_edge_priority(const virt_overlay *vo, edge_ix e);
void virt_free(virt_overlay *vo);

#endif
