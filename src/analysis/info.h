/* SPDX-License-Identifier: Apache-2.0 */
/* info.h: the census of a loaded dump (analysis layer), prefix info_. What `leakray info`
 * shows: node counts and shallow bytes by kind and heap, roots by kind, strings, native and
 * detached-DOM totals, from one pass over the graph; plus what the caller learnt outside the
 * graph (the file on disk, the heap dumps of a multi-dump HPROF file), carried here so the
 * renderings (report/info.h) read one structure. */
#ifndef LR_ANALYSIS_INFO_H
#define LR_ANALYSIS_INFO_H

#include "graph/graph.h"

#define INFO_MAX_DUMPS 64 /* dumps listed individually; the total is always reported */

typedef struct info_dump {
    uint64_t offset;    /* file offset of the dump's first top-level record */
    uint64_t length;    /* bytes up to the end of its last heap record */
    uint32_t n_records; /* top-level HEAP_DUMP / HEAP_DUMP_SEGMENT records */
} info_dump;

#define INFO_MAX_ROOT_CATS 64 /* root categories listed; the object total counts them all */

/* One category of GC roots in a graph with a synthetic root: a synthetic node under the root
 * (V8's "(Stack roots)", "(Global handles)", ...; Dart's "Isolate") and the objects it holds. */
typedef struct info_root_cat {
    node_ix node;     /* the synthetic node; graph.synthetic_root for what the root holds
                       * itself (V8's user roots: the global objects of its shortcut edges) */
    uint64_t objects; /* distinct non-synthetic nodes it holds through non-weak edges */
} info_root_cat;

/* What the synthetic root holds, as DevTools lists it under (GC roots): the synthetic nodes
 * reachable from the root through synthetic nodes only, in edge order, each with the objects
 * it holds directly. A graph of HPROF roots has no such tree (n_cats 0). */
typedef struct info_roots {
    uint64_t objects;   /* distinct objects held directly by some category */
    uint32_t n_cats;    /* categories holding at least one object */
    info_root_cat cats[INFO_MAX_ROOT_CATS]; /* the first INFO_MAX_ROOT_CATS of them */
} info_roots;

typedef struct info_result {
    const graph *g;      /* the dump (not owned) */
    const char *path;    /* as the user gave it */
    /* ---- counted by info_count ---- */
    uint64_t kind_count[GRAPH_KIND_COUNT];   /* nodes per kind */
    uint64_t kind_shallow[GRAPH_KIND_COUNT]; /* shallow bytes per kind */
    uint64_t root_count[GRAPH_ROOT_KIND_COUNT + 1]; /* last slot: out-of-range kinds */
    uint64_t heap_count[GRAPH_MAX_HEAPS];
    uint64_t heap_shallow[GRAPH_MAX_HEAPS];
    uint64_t shallow;  /* total shallow bytes */
    uint64_t native;   /* total native bytes (node_native) */
    uint64_t strings;  /* java.lang.String instances + string nodes */
    uint64_t dom[3];   /* nodes per DOM link state (enum graph_dom_state) */
    uint64_t detached_shallow; /* shallow bytes of the detached DOM nodes */
    /* ---- filled by the caller ---- */
    uint64_t file_size;   /* bytes on disk, 0 if unknown */
    const char *compress; /* "plain", "gzip", "bzip2" */
    info_dump dumps[INFO_MAX_DUMPS]; /* heap dumps of the file (HPROF), in file order */
    uint32_t n_dumps;     /* all of them (only the first INFO_MAX_DUMPS are listed) */
    int64_t loaded;       /* index of the dump the graph holds */
    /* ---- filled by info_root_cats when the graph has a synthetic root ---- */
    int has_root_cats;    /* nonzero when root_cats is filled */
    info_roots root_cats;
} info_result;

/* Sets g and path and counts; leaves the caller's fields zero. O(N + R). */
void info_count(const graph *g, const char *path, info_result *r);

/* The synthetic node every root hangs from: V8's (root) (graph.synthetic_root), Dart's Root
 * (the one root entry, of kind GRAPH_ROOT_SYNTHETIC); GRAPH_NONE for graphs of typed roots. */
node_ix info_synthetic_root(const graph *g);
/* Fills *r with the root categories of a graph with a synthetic root (zeroed otherwise).
 * Returns LR_OK, or LR_ERR_NOMEM. O(N/8) memory, O(E of synthetic nodes + held log held). */
lr_status info_root_cats(const graph *g, info_roots *r, lr_error *err);

#endif
