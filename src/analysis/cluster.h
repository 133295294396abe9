/* SPDX-License-Identifier: Apache-2.0 */
/* cluster.h: clustering of same-type objects by origin (analysis layer), prefix cluster_.
 * Implements the ArkTS snapshot clustering method on any graph: every node is put in a
 * "directory" (rules/v8.rules maps V8 types/names onto DevTools' class names: Object, Array,
 * Function, (string), ...; rules/arkts.rules maps ArkTS ones onto DevEco's: jsobject,
 * jsarray, ...; other objects use their class name), every node gets its shortest
 * reference chain from the roots (ties broken by the largest retained size of the holder),
 * and the objects of a directory are grouped by the directory's rule: chain only, name +
 * chain, held property names + chain, promise reaction handler + chain, proxy target +
 * chain. A chain is the sequence of (edge kind, edge name, holder's class) from the root,
 * with array indices, numeric internal slots and the keys of dictionary-like holders written
 * as `[]` and (V8 and ArkTS) a run of one field between objects of one class (a linked
 * list: a timer list's `_idleNext`) counted once, the field into its head written `[]`, so
 * objects from one call site share it. Sizes are exact: a cluster's retained size is the
 * sum of the retained sizes of its members that no other member dominates, and a cluster
 * is "nested" when every such member is dominated by another cluster's member.
 * The same engine clusters an arbitrary selected set (the leaks of `leakray leaks`).
 * Costs: O(N + E) time after the dominator tree; about 32 bytes per node. Spec:
 * docs/background/arkts-snapshot-clustering.txt (reference folder), docs/rules.md. */
#ifndef LR_ANALYSIS_CLUSTER_H
#define LR_ANALYSIS_CLUSTER_H

#include "analysis/devtools.h"
#include "analysis/dominators.h"
#include "base/hmap.h"
#include "graph/graph.h"
#include "rules/cluster_rules.h"

#define CLUSTER_NONE UINT32_MAX /* no cluster / no directory / no chain */
#define CLUSTER_NAME_ANY (UINT32_MAX - 1) /* a chain edge name normalised to `[]` */
/* Directory of every detached DOM node (the graph's DOM link state says detached), whatever
 * its class; the shipped rules cluster it `by=dom`. */
#define CLUSTER_DIR_DETACHED "detached DOM"
#define CLUSTER_DOM_INSIDE 0x40000000u /* by=dom key bit: dominated by another detached node */

/* Binding of the rules to one graph: directories and chains of every node. */
typedef struct cluster_ctx {
    const graph *g;           /* the graph (not owned; must outlive the context) */
    const crules_set *rules;  /* the rules (not owned) */
    const dom_tree *dom;      /* dominators of g (not owned) */
    /* ---- directories ---- */
    uint32_t n_dirs;          /* directories seen */
    char **dir_names;         /* owned strings, n_dirs */
    uint8_t *dir_by;          /* enum crules_by per directory */
    uint8_t *dir_leak_ignore; /* nonzero: `leak-ignore` matched */
    uint32_t cap_dirs;
    hmap dir_index;           /* FNV-1a of a directory name -> its index */
    uint32_t *node_dir;       /* directory per node */
    /* ---- chains (shortest-path forest from the roots) ---- */
    uint32_t *node_chain;     /* chain id per node, CLUSTER_NONE if unreached */
    node_ix *parent;          /* chain predecessor, GRAPH_NONE for roots / unreached */
    edge_ix *parent_edge;     /* edge from parent, GRAPH_NONE for roots / unreached */
    uint32_t *dict_class;     /* per holder: class whose keys are normalised, or CLUSTER_NONE */
    uint32_t *depth;          /* per node: references from the root, UINT32_MAX if unreached */
    uint32_t n_chains;        /* distinct chains */
    uint32_t n_reached;       /* nodes with a chain */
} cluster_ctx;

/* One cluster. */
typedef struct cluster_item {
    uint32_t dir;       /* directory index (cluster_ctx.dir_names) */
    uint8_t by;         /* enum crules_by used */
    uint32_t chain;     /* chain id shared by every member */
    uint32_t extra;     /* rule key: name string, property-set id, handler name, target class;
                         * by=dom: DOM key id | CLUSTER_DOM_INSIDE for nodes inside a tree */
    node_ix rep;        /* representative: the member with the largest retained size */
    uint32_t count;     /* members */
    uint32_t n_top;     /* members not dominated by another member of this cluster */
    uint64_t shallow;   /* sum of shallow (+ native) sizes of the members */
    uint64_t retained;  /* exact retained size of the members together */
    uint32_t nested_in; /* nearest cluster with a member above every top member, or NONE */
} cluster_item;

/* One anchor directory (only for whole-heap clustering). */
typedef struct cluster_anchor {
    uint32_t dir;      /* directory index */
    uint32_t count;    /* reachable objects in the directory */
    uint64_t retained; /* exact retained size of the directory's objects together */
} cluster_anchor;

enum cluster_sort { CLUSTER_SORT_SIZE = 0, CLUSTER_SORT_COUNT = 1 };

#define CLUSTER_SKIP_DIRS 3 /* leak-ignored directories a result names */

typedef struct cluster_result {
    uint32_t n;               /* clusters */
    cluster_item *items;      /* sorted as asked; nested_in indexes this array */
    uint32_t n_members;       /* objects clustered */
    uint64_t members_shallow; /* their shallow total */
    uint64_t members_retained; /* retained size of all members together (no double count) */
    uint64_t heap_total;      /* retained size of the whole reachable heap */
    uint32_t n_anchors;       /* anchors (0 when a selection was given) */
    cluster_anchor *anchors;  /* sorted by retained size, descending */
    uint32_t n_skipped;       /* selected objects dropped (internal/none/leak-ignore/unreached) */
    /* ... by reason: no path from a root; the runtime's own (rules' internal or none,
     * synthetic nodes); leak-ignore rules, with the directories that dropped the most */
    uint32_t n_skip_unreached, n_skip_internal, n_skip_ignored;
    uint32_t n_skip_dirs;
    uint32_t skip_dir[CLUSTER_SKIP_DIRS], skip_dir_count[CLUSTER_SKIP_DIRS];
    uint32_t *node_item;      /* per node: its cluster (items index), CLUSTER_NONE; only when
                               * cluster_run_keep was asked to keep it, else NULL */
} cluster_result;

/* The dominator tree clustering uses for g: for V8/ArkTS graphs DevTools' own (essential
 * edges, src/analysis/devtools.c) so retained sizes match Chrome DevTools and memlab; for
 * other graphs dom_build's strong edges from the roots. Returns LR_OK (free: dom_free) or
 * LR_ERR_NOMEM. */
lr_status cluster_dom_build(const graph *g, dom_tree *t, lr_error *err);
/* The same tree for a V8/ArkTS graph from DevTools' tree r already built for it (with any
 * class keys: they name classes only), copying its arrays: r stays the caller's. */
lr_status cluster_dom_copy(const graph *g, const devtools_result *r, dom_tree *t, lr_error *err);
/* DevTools' tree r as it is (no native bytes added: `top`'s), copied into t. */
lr_status cluster_dom_devtools(const graph *g, const devtools_result *r, dom_tree *t,
                               lr_error *err);

/* Builds directories and chains for g. t must be dom_build's tree of g (its retained sizes
 * break ties between equally short chains). Returns LR_OK (free: cluster_fini) or
 * LR_ERR_NOMEM. O(N + E). */
lr_status cluster_bind(cluster_ctx *c, const graph *g, const crules_set *rs, const dom_tree *t,
                       lr_error *err);
void cluster_fini(cluster_ctx *c);

/* Clusters either the anchor directories (select == NULL: the rules' top-N directories by
 * retained size plus any above the percentage; every reachable object in them) or the nodes
 * with select[n] != 0 (leak mode: objects in internal, none and leak-ignore directories and
 * unreached objects are dropped and counted in n_skipped). Fills *r (free: cluster_result_free).
 * O(N). */
lr_status cluster_run(const cluster_ctx *c, const uint8_t *select, enum cluster_sort sort,
                      cluster_result *r, lr_error *err);
/* cluster_run, and with keep != 0 also r->node_item (g->n_nodes entries, freed with r). */
/* Sorts r's clusters again, as cluster_run sorts them, after a caller changed their sizes
 * (the leaks verb's memlab sizes): nested_in and node_item follow, and old_to_new (r->n
 * entries, or NULL) receives each cluster's new position for the caller's own arrays.
 * Returns 0, or -1 when out of memory (r unchanged). */
int cluster_resort(const cluster_ctx *c, cluster_result *r, enum cluster_sort sort,
                   uint32_t *old_to_new);
lr_status cluster_run_keep(const cluster_ctx *c, const uint8_t *select, enum cluster_sort sort,
                           int keep, cluster_result *r, lr_error *err);
void cluster_result_free(cluster_result *r);

/* The chain of node n as root-first arrays: nodes[0] is the root, edges[i] leads from
 * nodes[i] to nodes[i+1]. Returns the node count (0 if unreached); fills at most cap. */
uint32_t cluster_chain_get(const cluster_ctx *c, node_ix n, node_ix *nodes, edge_ix *edges,
                           uint32_t cap);
/* Label of chain edge e out of holder `from` as clustering sees it: "[]" when normalised,
 * else the edge name. Writes into buf (cap >= 32) and returns it. */
const char *cluster_edge_label(const cluster_ctx *c, node_ix from, edge_ix e, char *buf,
                               size_t cap);
/* Display name of node n for chains and cluster titles: its node name, else its class name,
 * else its type name; a class object is "class NAME" (written into buf[cap]). Never NULL. */
const char *cluster_node_label(const graph *g, node_ix n, char *buf, size_t cap);
/* Title of a cluster ("LeakedRecord", "onTick", "{key, meta}", "Promise -> onSettled",
 * "Proxy -> ProxiedModel") into buf (cap >= 4): whole up to CLUSTER_TITLE_MAX - 1 bytes and
 * cap, else cut on a character and ended with an ellipsis (U+2026). */
#define CLUSTER_TITLE_MAX 4096
const char *cluster_title(const cluster_ctx *c, const cluster_item *it, char *buf, size_t cap);

#endif
