/* SPDX-License-Identifier: Apache-2.0 */
/* graph.h: the heap graph every format loads into (graph layer), prefix graph_. Nodes are
 * dense uint32 indices 0..n_nodes-1 in struct-of-arrays form; edges are CSR (first_edge,
 * edge_to, edge_name, edge_kind); classes carry names, super classes and the instance field
 * layout used to decode raw field bytes lazily from the mapped input; roots are typed. A
 * reader fills the arrays with exact sizes in two passes (no per-object malloc) and the
 * analyses read them without knowing the format. Field bytes, array contents and strings are
 * never copied: `data` points into the mapped (or inflated) input and node_off locates them.
 * Values a reader can read back from its input (ids, offsets, lengths, sizes, edge names) may
 * be left unstored and answered through `derive`: callers use graph_node_id() and friends.
 * Conventions and the meaning of every kind are documented in docs/graph.md. */
#ifndef LR_GRAPH_H
#define LR_GRAPH_H

#include "base/diag.h"
#include "base/err.h"
#include "base/hmap.h"

#include <stddef.h>
#include <stdint.h>

typedef uint32_t node_ix;  /* index of a node, 0..n_nodes-1 */
typedef uint32_t class_ix; /* index of a class, 0..n_classes-1 */
typedef uint32_t str_ix;   /* index of a string in the graph's string table */
typedef uint32_t edge_ix;  /* index of an edge, 0..n_edges-1 */

#define GRAPH_NONE UINT32_MAX /* "no node / no class / no string" */

/* ---- Node kinds (generic; analyses branch on these, never on the format) ---- */
enum graph_node_kind {
    GRAPH_KIND_INSTANCE = 0,   /* object with fields (Java instance, JS object) */
    GRAPH_KIND_CLASS = 1,      /* class object (Java Class, statics live here) */
    GRAPH_KIND_OBJ_ARRAY = 2,  /* array of references */
    GRAPH_KIND_PRIM_ARRAY = 3, /* array of primitives (contents at node_off) */
    GRAPH_KIND_STRING = 4,     /* string (V8 string kinds; Java Strings are instances) */
    GRAPH_KIND_CLOSURE = 5,    /* function/closure */
    GRAPH_KIND_CODE = 6,       /* compiled code, shapes, VM internals */
    GRAPH_KIND_NATIVE = 7,     /* native/external memory object */
    GRAPH_KIND_SYNTHETIC = 8,  /* synthetic (V8 root, (GC roots), sub-roots) */
    GRAPH_KIND_OTHER = 9,      /* anything else (numbers, symbols, hidden) */
    GRAPH_KIND_COUNT
};

/* ---- Edge kinds (low 5 bits of edge_kind) and strength (high 3 bits) ---- */
enum graph_edge_kind {
    GRAPH_EDGE_FIELD = 0,    /* instance field; name = field name */
    GRAPH_EDGE_STATIC = 1,   /* static field of a class; name = field name */
    GRAPH_EDGE_ELEMENT = 2,  /* array element / V8 element; name = index (a number) */
    GRAPH_EDGE_INTERNAL = 3, /* class internals & V8 internal; name = string ("<super>"...) */
    GRAPH_EDGE_CONTEXT = 4,  /* V8 context variable; name = string */
    GRAPH_EDGE_PROPERTY = 5, /* V8 property; name = string */
    GRAPH_EDGE_HIDDEN = 6,   /* V8 hidden; name = number */
    GRAPH_EDGE_SHORTCUT = 7, /* V8 shortcut; name = string */
    GRAPH_EDGE_WEAK = 8,     /* V8 weak edge type; name = string or number */
    GRAPH_EDGE_LOCAL = 9,    /* Java local variable: thread -> object (virtual); name = frame */
    GRAPH_EDGE_NATIVE = 10,  /* ArkTS native edge */
    GRAPH_EDGE_XREF = 11,    /* ArkTS cross reference */
    GRAPH_EDGE_ROOT = 12,    /* synthetic root -> root object (V8 (GC roots) children) */
    GRAPH_EDGE_KIND_COUNT
};
#define GRAPH_EDGE_KIND_MASK 0x1fu
#define GRAPH_EDGE_STRENGTH_SHIFT 5
enum graph_strength {
    GRAPH_STRONG = 0,
    GRAPH_WEAK = 1,      /* WeakReference.referent, V8 weak edges */
    GRAPH_SOFT = 2,      /* SoftReference.referent */
    GRAPH_PHANTOM = 3,   /* PhantomReference.referent (and Cleaner) */
    GRAPH_FINALIZER = 4, /* FinalizerReference / java.lang.ref.Finalizer referent */
};
#define GRAPH_EDGE_KIND(k) ((unsigned)(k) & GRAPH_EDGE_KIND_MASK)
#define GRAPH_EDGE_STRENGTH(k) ((unsigned)(k) >> GRAPH_EDGE_STRENGTH_SHIFT)
#define GRAPH_EDGE_MAKE(kind, strength) \
    ((uint8_t)((kind) | ((unsigned)(strength) << GRAPH_EDGE_STRENGTH_SHIFT)))
/* Whether an edge kind's name is a number (index) rather than a string index. */
#define GRAPH_EDGE_NAME_IS_INDEX(kind) \
    ((kind) == GRAPH_EDGE_ELEMENT || (kind) == GRAPH_EDGE_HIDDEN)

/* ---- GC root kinds (HPROF names; V8 uses GRAPH_ROOT_SYNTHETIC; native scans the last five
 * and GRAPH_ROOT_NATIVE_STACK) ---- */
enum graph_root_kind {
    GRAPH_ROOT_UNKNOWN = 0,
    GRAPH_ROOT_JNI_GLOBAL,
    GRAPH_ROOT_JNI_LOCAL,
    GRAPH_ROOT_JAVA_FRAME,
    GRAPH_ROOT_NATIVE_STACK,
    GRAPH_ROOT_STICKY_CLASS,
    GRAPH_ROOT_THREAD_BLOCK,
    GRAPH_ROOT_MONITOR_USED,
    GRAPH_ROOT_THREAD_OBJECT,
    GRAPH_ROOT_INTERNED_STRING, /* Android 0x89 */
    GRAPH_ROOT_FINALIZING,      /* Android 0x8a */
    GRAPH_ROOT_DEBUGGER,        /* Android 0x8b */
    GRAPH_ROOT_REFERENCE_CLEANUP, /* Android 0x8c */
    GRAPH_ROOT_VM_INTERNAL,     /* Android 0x8d */
    GRAPH_ROOT_JNI_MONITOR,     /* Android 0x8e */
    GRAPH_ROOT_UNREACHABLE,     /* Android 0x90 */
    GRAPH_ROOT_SYNTHETIC,       /* V8/ArkTS synthetic root node */
    GRAPH_ROOT_GLOBAL_DATA,     /* native: a module's .data/.bss */
    GRAPH_ROOT_REGISTERS,       /* native: a stopped thread's registers */
    GRAPH_ROOT_TLS,             /* native: thread-local storage */
    GRAPH_ROOT_DYNAMIC_LINKER,  /* native: allocated by ld.so for its own state */
    GRAPH_ROOT_ANON_MEMORY,     /* native: anonymous memory that holds no malloc block */
    GRAPH_ROOT_KIND_COUNT
};

/* Field value types, numbered as HPROF basic types so HPROF needs no translation. */
enum graph_ftype {
    GRAPH_FT_OBJECT = 2,
    GRAPH_FT_BOOLEAN = 4,
    GRAPH_FT_CHAR = 5,
    GRAPH_FT_FLOAT = 6,
    GRAPH_FT_DOUBLE = 7,
    GRAPH_FT_BYTE = 8,
    GRAPH_FT_SHORT = 9,
    GRAPH_FT_INT = 10,
    GRAPH_FT_LONG = 11,
};

/* One GC root. A node may be rooted several times (several entries). */
typedef struct graph_root {
    node_ix node;          /* rooted node */
    uint8_t kind;          /* enum graph_root_kind */
    uint32_t thread;       /* HPROF thread serial number, 0 if none */
    int32_t frame;         /* frame number within the thread's stack trace, -1 if none */
} graph_root;

/* One declared field (instance or static). */
typedef struct graph_field {
    str_ix name;   /* field name */
    uint8_t type;  /* enum graph_ftype */
} graph_field;

/* One static field with its value (statics are stored per class, not per node). */
typedef struct graph_static {
    str_ix name;    /* field name */
    uint8_t type;   /* enum graph_ftype */
    uint64_t value; /* raw value: id for objects, bits for primitives (zero-extended) */
} graph_static;

/* A class (Java class, or a V8/ArkTS class key). */
typedef struct graph_class {
    str_ix name;            /* display name in Java form: java.lang.String, int[], Foo$Bar */
    class_ix super;         /* superclass, GRAPH_NONE for roots */
    node_ix node;           /* the class object's node, GRAPH_NONE if not a node */
    uint64_t id;            /* class object id in the dump (0 if synthetic) */
    uint32_t instance_size; /* HPROF: declared bytes of field values of an instance */
    uint32_t first_field;   /* index into graph.fields of this class's own instance fields */
    uint32_t n_fields;      /* own instance fields (not the super's) */
    uint32_t first_static;  /* index into graph.statics */
    uint32_t n_statics;     /* static fields */
    uint8_t ref_strength;   /* enum graph_strength of `referent` if a java.lang.ref class */
    uint8_t elem_type;      /* arrays: element enum graph_ftype (OBJECT for object arrays) */
    uint8_t flags;          /* GRAPH_CLASS_* */
} graph_class;

#define GRAPH_CLASS_ARRAY 0x01u /* an array class (int[], Foo[]) */

/* Interned strings: NUL-terminated, stored back to back in `chars`. */
typedef struct graph_strtab {
    char *chars;       /* pool of NUL-terminated strings */
    size_t n_chars;    /* bytes used */
    size_t cap_chars;  /* bytes allocated */
    uint64_t *offs;    /* offs[s] = start of string s in chars */
    uint32_t n;        /* strings interned */
    uint32_t cap;      /* capacity of offs */
    hmap index;        /* FNV-1a of the text -> str_ix, for interning; dropped when done */
    int index_dropped; /* graph_drop_intern_table ran: rebuild before the next intern */
} graph_strtab;

/* Per-node heap/space tags (Android app/zygote/image, V8 spaces). */
#define GRAPH_MAX_HEAPS 16

/* The most nodes and edges one graph holds (docs/limits.md). Node and edge indices are
 * 32-bit; the top half of their range stays free for the sentinels (GRAPH_NONE), the
 * virtual roots the analyses add past the last node, and the readers' worst-case edge
 * bounds (every reference slot, null or not), so no sum of indices can wrap. */
#define GRAPH_MAX_NODES ((1ull << 31) - 1)
#define GRAPH_MAX_EDGES ((1ull << 31) - 1)

/* How shallow sizes were computed; `info` names it. */
enum graph_size_model {
    GRAPH_SIZES_RECORD = 0,   /* sizes as reported by the snapshot (V8) */
    GRAPH_SIZES_VISUALVM = 1, /* HotSpot: VisualVM 2.1.5 model (header + fields + alignment) */
    GRAPH_SIZES_SHARK = 2,    /* Android/ART: Shark's ShallowSizeCalculator model */
    GRAPH_SIZES_DEVTOOLS = 3, /* V8/ArkTS: recorded sizes after DevTools' re-attribution of
                               * owned hidden/array nodes to their owners (format/v8.h) */
    GRAPH_SIZES_DEVTOOLS_RAW = 4, /* V8 snapshot without user roots (Node's exposeInternals,
                                   * Chromium 156, convert): recorded sizes, which DevTools
                                   * leaves as they are */
};

typedef struct graph {
    /* ---- input ---- */
    const char *path;          /* input path for messages (owned by the graph) */
    uint64_t max_nodes;        /* graph_check_size's limits: GRAPH_MAX_NODES/EDGES from */
    uint64_t max_edges;        /* graph_init (tests lower them to reach the checks) */
    const uint8_t *data;       /* mapped/inflated input bytes; node_off indexes into it */
    uint64_t data_len;         /* bytes in data */
    uint32_t id_size;          /* HPROF identifier size (4 or 8); 0 for other formats */
    const char *format;        /* "hprof", "v8", ... (static string) */
    char version[48];          /* format version text, e.g. "JAVA PROFILE 1.0.2" */
    uint64_t timestamp_ms;     /* dump time, ms since epoch (0 if unknown) */
    uint8_t size_model;        /* enum graph_size_model */

    /* ---- nodes (struct of arrays, length n_nodes) ---- */
    uint32_t n_nodes;          /* nodes */
    uint64_t *node_id;         /* original object id (HPROF address, V8 node id) */
    uint32_t *node_id32;       /* the ids instead, when node_id is NULL and they all fit in
                                * 32 bits (V8: half the bytes for the same numbers) */
    class_ix *node_class;      /* class of each node, GRAPH_NONE if none; NULL when
                                * node_class16 holds them: read through graph_node_class() */
    uint32_t *node_size;       /* shallow size in bytes (saturates at UINT32_MAX, see diag) */
    uint32_t *node_native;     /* native size in bytes, or NULL when the format has none */
    uint32_t *node_birth;      /* when the writer made the object, + 1 (Ruby's GC generation,
                                * written under trace_object_allocations), 0 unknown; NULL
                                * when the dump tells none. One id with two births is two
                                * objects: the later one took the slot the first left */
    uint8_t *node_kind;        /* enum graph_node_kind */
    uint8_t *node_type;        /* format type index into type_names */
    uint8_t *node_heap;        /* heap index into heap_names, or NULL when one heap */
    str_ix *node_name;         /* per-node name (V8), or NULL (HPROF: use the class name) */
    uint64_t *node_off;        /* byte offset in data of the node's payload: instance field
                                * bytes, array elements; UINT64_MAX if none */
    uint32_t *node_len;        /* payload length: field bytes, or array element count */
    /* node_id, node_off, node_len, node_size and edge_name may be NULL when the reader can
     * read the values back from the input (HPROF: ids, lengths and field names are in the
     * records): then `derive` answers. Read them through graph_node_id() and friends below. */
    const struct graph_derive *derive;
    /* Node kinds (bit 1u << kind) whose derived size reads the input, and what asks for those
     * bytes ahead (graph_node_size_ahead); 0 and NULL when no size read waits on the input. */
    uint32_t size_read_kinds;
    void (*size_ahead)(const struct graph *g, node_ix n);
    /* Sum of every node's size (graph_node_size; native sizes apart), when the reader added
     * it up while it filled the nodes (HPROF's pass 2 computes each size anyway);
     * shallow_known 0: not known, and graph_shallow_total() sums the nodes (one derived
     * size per node is a read of the node's record, ~0.1 s on 22 M objects). */
    uint64_t shallow_total;
    uint8_t shallow_known;

    /* ---- format type names (node_type values) ---- */
    const char *type_names[32]; /* static strings; n_types used */
    uint32_t n_types;           /* distinct node types */

    /* ---- heaps ---- */
    str_ix heap_names[GRAPH_MAX_HEAPS]; /* names of heaps (Android "app", "zygote", ...) */
    uint32_t n_heaps;                   /* 0 or 1 when the dump has no heap tags */

    /* ---- edges (CSR, length n_edges; first_edge has n_nodes+1 entries) ---- */
    uint32_t n_edges;          /* edges */
    edge_ix *first_edge;       /* edges of n are first_edge[n] .. first_edge[n+1]-1 */
    node_ix *edge_to;          /* target node */
    uint32_t *edge_name;       /* str_ix, or an index when GRAPH_EDGE_NAME_IS_INDEX(kind) */
    uint8_t *edge_kind;        /* GRAPH_EDGE_MAKE(kind, strength) */

    /* ---- reverse edges, built on demand by graph_build_reverse ---- */
    edge_ix *rev_first;        /* n_nodes+1, NULL until built */
    edge_ix *rev_edge;         /* forward edge index of each incoming edge */

    /* ---- classes ---- */
    uint32_t n_classes;        /* classes */
    graph_class *classes;      /* length n_classes */
    graph_field *fields;       /* instance field descriptors of all classes */
    uint32_t n_fields;         /* entries in fields */
    graph_static *statics;     /* static fields of all classes */
    uint32_t n_statics;        /* entries in statics */

    /* ---- roots ---- */
    uint32_t n_roots;          /* root entries */
    graph_root *roots;         /* in dump order (determinism depends on it) */
    node_ix synthetic_root;    /* V8: the synthetic root node; GRAPH_NONE for HPROF */

    /* ---- threads and stacks (HPROF STACK_TRACE / STACK_FRAME / THREAD_OBJECT) ---- */
    uint32_t n_threads;
    struct graph_thread *threads;
    uint32_t *thread_by_serial; /* indices into threads by serial (then index), or NULL:
                                 * lookups by serial then scan threads */
    uint32_t n_frames;
    struct graph_frame *frames;

    /* ---- strings and diagnostics ---- */
    graph_strtab strings;      /* names of classes, fields, properties, heaps */
    diag_counts diag;          /* anomalies counted while loading */

    /* ---- id lookup (built by graph_build_index) ---- */
    uint32_t *id_sorted;       /* node indices sorted by node_id, NULL if node_id is sorted */
    int ids_sorted;            /* nonzero when node_id is ascending (no id_sorted needed) */
    uint32_t *id_dir;          /* bucket directory: first sorted position per id bucket */
    uint32_t id_dir_n;         /* buckets + 1 */
    uint64_t id_min;           /* smallest id */
    unsigned id_shift;         /* bucket = (id - id_min) >> id_shift */

    /* ---- class objects (built by graph_index_class_nodes) ---- */
    uint64_t *class_nodes;     /* node << 32 | class of every class with a node, ascending */
    uint32_t n_class_nodes;    /* entries in class_nodes */

    /* ---- format-private state (freed by the reader's free hook) ---- */
    void *fmt_state;
    void (*fmt_free)(void *);

    /* ---- DOM link state (V8 snapshots of a browser page) ---- */
    uint8_t *node_dom;         /* per node enum graph_dom_state, NULL when no node has one */

    /* ---- script locations (V8: where each closure's function is written) ---- */
    struct graph_loc *locs;    /* ascending by node; NULL when the dump records none */
    uint32_t n_locs;           /* entries in locs */

    /* ---- presentation ---- */
    int hex_ids;               /* ids are addresses (Ruby): shown 0x.. though id_size is 0 */

    /* ---- path ties ---- */
    /* Nonzero: the order of a node's edges carries no meaning from one dump of a program to
     * the next (V8 lists a dictionary object's properties, `global`'s among them, in the
     * order of a hash seeded anew in each process), so the traversals that pick one of
     * equally short ways in take a node's edges in name order (graph_edge_name_cmp), and the
     * same leak keeps the same path, and signature, across restarts. Zero: edge order (a
     * class's field layout) is kept, as Shark's and VisualVM's paths take it. */
    int ties_by_name;

    /* ---- id lookup by rank (built by graph_build_index instead of id_dir, see below) ---- */
    struct graph_id_blk *id_blk; /* blocks of the rank index, NULL when id_dir serves */
    uint32_t *id_chunk;        /* per chunk of positions: its first block, GRAPH_NONE if empty */
    uint64_t id_pos;           /* positions the rank index covers (max - min) >> id_align, + 1 */
    unsigned id_align;         /* log2 of the spacing every id - id_min is a multiple of */
    int ids_strict;            /* node ids strictly ascending: node order is id order, no id
                                * repeats (set by graph_build_index) */
    /* id order as runs of node order, instead of id_sorted (graph_rank_node): ranks
     * id_seg[k].rank up to the next segment's are nodes id_seg[k].node, node + 1, ...; the
     * directory gives, per 2^id_seg_shift ranks, the last segment starting at or before;
     * id_seg[id_seg_n] is a sentinel past every rank, and id_seg_steps steps forward from
     * the directory's segment reach any rank's */
    struct graph_id_seg *id_seg;
    uint32_t id_seg_n;
    uint32_t *id_seg_dir;
    unsigned id_seg_shift;
    unsigned id_seg_steps;

    /* ---- narrow class indices ---- */
    /* The classes of the nodes instead of node_class (which is then NULL) when every class
     * index is below GRAPH_CLASS16_MAX: each stored plus one, 0 for none, so reading one back
     * is a subtraction that turns 0 into GRAPH_NONE. Half the bytes (44 MB less on a
     * 22 M-object dump, whose few thousand classes need 16 bits). The HPROF reader chooses
     * it; other readers fill node_class. */
    uint16_t *node_class16;

    /* ---- rank index blocks set while reading (graph_build_index_bits) ---- */
    size_t id_blk_mapped;      /* id_blk is a mapping of this many bytes (unmapped, not freed);
                                * 0: id_blk is malloc'd */

    /* ---- HotSpot object layout ---- */
    /* The object header and reference sizes the JVM recorded in the dump, when they replace
     * VisualVM's guesses and differ from them (compact headers, no compressed oops or class
     * pointers); 0 when the VisualVM model's own layout holds. Shown by `info`. */
    uint8_t layout_header;
    uint8_t layout_ref;
    /* Objects' alignment when it is not 8 bytes (-XX:ObjectAlignmentInBytes: every object
     * id a multiple of it, every size too); 0 otherwise. Shown by `info`. */
    uint16_t layout_align;

    /* ---- root names in the runtime's words ---- */
    /* Per enum graph_root_kind, the title text output gives a root of that kind when the
     * reader mapped the runtime's own root categories onto the kinds (Ruby's machine_context
     * is GRAPH_ROOT_NATIVE_STACK, which LeakCanary calls JNI's "Input or output parameters
     * in native code"); NULL, or a NULL entry, keeps graph_root_kind_title's. Static strings.
     * Read through graph_root_title(). */
    const char *const *root_titles;

    /* ---- string values carried in the record ---- */
    /* Per node, the value of a GRAPH_KIND_STRING node whose dump states it in text (Ruby's
     * "value"), interned in `strings`: equal values share one index, which is what dupes
     * groups on. GRAPH_NONE where the dump gives none (Ruby: non-ASCII and shared strings);
     * NULL when the format has no such values. Read through graph_string_value(). */
    str_ix *node_value;

    /* ---- names a mapping left for display only ---- */
    /* Per class, with a mapping applied that keeps array classes obfuscated (analyze's
     * traces, as Shark's): the array class's deobfuscated name, GRAPH_NONE for the others;
     * NULL without. Tables of classes print it (graph_class_shown_name). */
    str_ix *class_clear_name;
} graph;

#define GRAPH_CLASS16_MAX 65535u /* node_class16 holds class indices below this */

/* The name class c is listed under in tables: the deobfuscated name a mapping kept aside,
 * else its name. */
static inline str_ix graph_class_shown_name(const graph *g, class_ix c)
{
    if (g->class_clear_name && g->class_clear_name[c] != GRAPH_NONE)
        return g->class_clear_name[c];
    return g->classes[c].name;
}

/* Class of node n, GRAPH_NONE if none (or when the graph stores no classes). */
static inline class_ix graph_node_class(const graph *g, node_ix n)
{
    if (g->node_class16)
        return (class_ix)g->node_class16[n] - 1u; /* 0 - 1 is GRAPH_NONE */
    return g->node_class ? g->node_class[n] : GRAPH_NONE;
}
/* Whether the graph stores a class per node (either width). */
static inline int graph_has_node_classes(const graph *g)
{
    return g->node_class16 || g->node_class;
}

/* The rank index (graph_build_index): when the ids are strictly ascending in node order and
 * lie densely (HotSpot: object addresses after a full GC, 8-byte aligned), node n is the
 * number of ids below its own, so a bit per possible id position and a running count answer
 * a lookup with one 64-byte block read and one popcount, without reading any id back. Only
 * chunks of GRAPH_ID_CHUNK_BLKS blocks that hold an id are stored (id_chunk). */
#define GRAPH_ID_BLK_WORDS 6u
#define GRAPH_ID_BLK_BITS (64u * GRAPH_ID_BLK_WORDS) /* positions per block */
#define GRAPH_ID_CHUNK_BLKS 16u /* blocks per chunk: a chunk holding no id has none */
typedef struct graph_id_blk {
    uint32_t rank;                    /* ids at positions before this block */
    uint16_t sub[GRAPH_ID_BLK_WORDS]; /* ids in this block before word k */
    uint64_t w[GRAPH_ID_BLK_WORDS];   /* bit p % 64 of word k: position p holds an id */
} graph_id_blk;

/* Set bits of x without a library call (the build targets baseline x86-64, which has no
 * popcount instruction; __builtin_popcountll would call libgcc on every lookup). */
static inline unsigned graph_popcount64(uint64_t x)
{
    x = x - (x >> 1 & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + (x >> 2 & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
}
/* Position of `id` among the sorted ids through the rank index (g->id_blk must be set), or
 * GRAPH_NONE when no node has it. O(1). */
static inline uint32_t graph_id_rank(const graph *g, uint64_t id)
{
    uint64_t x = id - g->id_min;
    if (id < g->id_min || (x & ((1ull << g->id_align) - 1)) != 0)
        return GRAPH_NONE;
    uint64_t p = x >> g->id_align;
    if (p >= g->id_pos)
        return GRAPH_NONE;
    uint32_t c = g->id_chunk[p / (GRAPH_ID_BLK_BITS * GRAPH_ID_CHUNK_BLKS)];
    if (c == GRAPH_NONE)
        return GRAPH_NONE;
    const graph_id_blk *b = &g->id_blk[c + p % (GRAPH_ID_BLK_BITS * GRAPH_ID_CHUNK_BLKS) /
                                               GRAPH_ID_BLK_BITS];
    unsigned o = (unsigned)(p % GRAPH_ID_BLK_BITS), k = o / 64, bit = o % 64;
    uint64_t w = b->w[k];
    if (!(w >> bit & 1))
        return GRAPH_NONE;
    return b->rank + b->sub[k] + graph_popcount64(w & ((1ull << bit) - 1));
}
/* Where id order runs along node order (graph_build_index): a heap dump writes its regions
 * one after another, each in address order, so a 22 M-object HotSpot dump's id order is
 * ~1,300 runs of consecutive nodes; a table of them answers what an array of 4 bytes per
 * node (id_sorted) would, from memory that stays in cache. */
typedef struct graph_id_seg {
    uint32_t rank; /* first rank of the segment */
    node_ix node;  /* its node; the next ranks are the next nodes */
} graph_id_seg;
/* The node whose id is the r-th smallest (r < n_nodes; the graph has an id index). O(1): the
 * rank itself when node order is id order, an id_sorted read, or a segment found through
 * the directory in at most 8 steps (graph_build_index bounds them, most dumps need 1-2), or
 * a binary search in the few buckets marked GRAPH_SEG_SEARCH. */
/* An id_seg_dir entry with this bit: the bucket spans more than id_seg_steps segments (class
 * objects among a region's objects, a segment each), whose ranks graph_rank_seg_search
 * searches; a few buckets at most, so the directory stays coarse elsewhere. */
#define GRAPH_SEG_SEARCH 0x80000000u
/* The segment holding rank r, by binary search within r's bucket (marked GRAPH_SEG_SEARCH). */
uint32_t graph_rank_seg_search(const graph *g, uint32_t r);
static inline node_ix graph_rank_node(const graph *g, uint32_t r)
{
    if (g->ids_sorted)
        return r;
    if (g->id_sorted)
        return g->id_sorted[r];
    uint32_t s = g->id_seg_dir[r >> g->id_seg_shift];
    if (s & GRAPH_SEG_SEARCH)
        s = graph_rank_seg_search(g, r);
    else
        while (g->id_seg[s + 1].rank <= r) /* at most id_seg_steps; the sentinel stops it */
            s++;
    return g->id_seg[s].node + (r - g->id_seg[s].rank);
}
/* Node with id `id` through the rank index (g->id_blk must be set), or GRAPH_NONE. O(1). */
static inline node_ix graph_find_id_rank(const graph *g, uint64_t id)
{
    uint32_t r = graph_id_rank(g, id);
    return r == GRAPH_NONE ? r : graph_rank_node(g, r);
}

/* DOM link state of a node, what DevTools calls its detachedness: the snapshot's
 * `detachedness` field spread over the native DOM graph, or the "Detached " name prefix of
 * snapshots without the field. */
enum graph_dom_state {
    GRAPH_DOM_UNKNOWN = 0,  /* not a DOM node, or not known */
    GRAPH_DOM_ATTACHED = 1, /* reachable from a document */
    GRAPH_DOM_DETACHED = 2  /* a DOM node no document reaches */
};

/* The DOM link state of n (GRAPH_DOM_UNKNOWN when the graph has none). */
static inline unsigned graph_node_dom(const graph *g, node_ix n)
{
    return g->node_dom ? g->node_dom[n] & 3u : GRAPH_DOM_UNKNOWN;
}

/* Where an object's code is written: a V8 closure's function, from the snapshot's
 * `locations` (0-based line and column, as written) and its script's name. */
typedef struct graph_loc {
    node_ix node;   /* the object */
    uint32_t script; /* script id as the snapshot writes it */
    str_ix url;     /* the script's name (a URL or a path), GRAPH_NONE when unknown */
    uint32_t line;  /* 0-based */
    uint32_t col;   /* 0-based */
} graph_loc;

/* The location of n, or NULL when the graph records none for it. */
const graph_loc *graph_node_loc(const graph *g, node_ix n);
/* l as a reader finds it in an editor: "URL:line:column", 1-based, or "script N:line:column"
 * when its script has no name; returns buf. */
#define GRAPH_LOC_MAX 256
const char *graph_loc_text(const graph *g, const graph_loc *l, char buf[GRAPH_LOC_MAX]);

/* Readers of values a graph does not store (see graph.derive); set by the format reader. */
typedef struct graph_derive {
    uint64_t (*node_id)(const graph *g, node_ix n);
    uint32_t (*node_len)(const graph *g, node_ix n);
    uint32_t (*node_size)(const graph *g, node_ix n);
    uint64_t (*node_off)(const graph *g, node_ix n);
    /* name of edge e, whose source node is `from` */
    uint32_t (*edge_name)(const graph *g, node_ix from, edge_ix e);
} graph_derive;

/* ---- per-node and per-edge values: the only way to read them ---- */

/* Whether the graph has node ids (stored or read back); an HPROF graph loaded without edges
 * has none. */
static inline int graph_has_ids(const graph *g)
{
    return g->node_id || g->node_id32 || (g->derive && g->derive->node_id);
}
/* Original object id of node n (HPROF address, V8 node id). */
static inline uint64_t graph_node_id(const graph *g, node_ix n)
{
    return g->node_id     ? g->node_id[n]
           : g->node_id32 ? g->node_id32[n]
                          : g->derive->node_id(g, n);
}
/* Shallow size of node n in bytes. */
static inline uint32_t graph_node_size(const graph *g, node_ix n)
{
    return g->node_size ? g->node_size[n] : g->derive->node_size(g, n);
}
/* Asks for what graph_node_size(g, n) will read from the input (an HPROF array's record)
 * without waiting for it: a walk over many nodes that calls this some nodes before it asks
 * their sizes overlaps the misses instead of waiting on each in turn. A few loads and no call
 * when the size is stored or derived without the input. Never changes a result. */
#define GRAPH_SIZE_AHEAD 32u /* how many nodes ahead a node-order walk asks it */
static inline void graph_node_size_ahead(const graph *g, node_ix n)
{
    unsigned k = g->node_kind[n];
    if (k < 32 && (g->size_read_kinds >> k & 1) && !g->node_size)
        g->size_ahead(g, n);
}
/* Payload length of node n: field bytes, or array element count. */
static inline uint32_t graph_node_len(const graph *g, node_ix n)
{
    return g->node_len ? g->node_len[n] : g->derive->node_len(g, n);
}
/* Byte offset of node n's payload in g->data, UINT64_MAX if none. */
static inline uint64_t graph_node_off(const graph *g, node_ix n)
{
    return g->node_off ? g->node_off[n] : g->derive ? g->derive->node_off(g, n) : UINT64_MAX;
}
/* Sum over all nodes of graph_node_size (the heap's shallow total, native sizes apart). */
uint64_t graph_shallow_total(const graph *g);
/* Nodes per node_kind byte value: out[v] = how many nodes have kind v (every entry set). */
void graph_kind_census(const graph *g, uint64_t out[256]);
node_ix graph_edge_from(const graph *g, edge_ix e);
/* Name of edge e (str_ix, or an index when GRAPH_EDGE_NAME_IS_INDEX) whose source is known
 * to be `from`: cheaper than graph_edge_name when names are derived. */
static inline uint32_t graph_edge_name_from(const graph *g, node_ix from, edge_ix e)
{
    return g->edge_name ? g->edge_name[e] : g->derive->edge_name(g, from, e);
}
/* Names of all edges of node n, in edge order, into out (first_edge[n+1] - first_edge[n]
 * entries): one pass over the node's record when names are derived, where asking edge by edge
 * in another order would decode the record again for each. */
void graph_edge_names_of(const graph *g, node_ix n, uint32_t *out);
/* Name of edge e. O(1) when stored, O(log N + fields) when derived. */
static inline uint32_t graph_edge_name(const graph *g, edge_ix e)
{
    return g->edge_name ? g->edge_name[e] : g->derive->edge_name(g, graph_edge_from(g, e), e);
}

/* graph.ties_by_name: of a node's edges, the ones whose order is a hash's (V8's dictionary
 * properties and number-keyed elements, as Node's timer lists by period: the property and
 * element edges; other kinds come in an order fixed by the runtime). */
#define GRAPH_EDGE_TIES_BY_NAME(kind) \
    ((kind) == GRAPH_EDGE_PROPERTY || (kind) == GRAPH_EDGE_ELEMENT)
/* How many of v[0..n) (edges, bit 31 free for the caller) are of such a kind. */
uint32_t graph_edge_ties(const graph *g, const edge_ix *v, uint32_t n);
/* Orders edges a and b out of node `from` by name: texts by bytes, indices by value, then by
 * edge order. Bit 31 of a and b is ignored (callers keep a flag there: edge indices stay
 * below GRAPH_MAX_EDGES). */
int graph_edge_name_cmp(const graph *g, node_ix from, edge_ix a, edge_ix b);
/* Puts the edges of v[0..n) that graph_edge_ties counts in name order (graph_edge_name_cmp)
 * among the places they hold; the others stay where they are. names[i]: the name of v[i]
 * where it is of such a kind (read while the caller walked the edges: where names are
 * derived, V8 reads each back from its record, cheaply only forward from the last one
 * read), or names NULL to read them here. tmp holds 4n entries of scratch. */
void graph_order_ties(const graph *g, node_ix from, edge_ix *v, const uint32_t *names,
                      uint32_t n, edge_ix *tmp);

/* A thread (THREAD_OBJECT root) with its stack trace. */
typedef struct graph_thread {
    node_ix node;          /* the java.lang.Thread object, GRAPH_NONE if missing */
    uint32_t serial;       /* thread serial number */
    uint32_t trace_serial; /* stack trace serial */
    uint32_t first_frame;  /* index into graph.frames */
    uint32_t n_frames;     /* frames, innermost first */
} graph_thread;

/* One stack frame. */
typedef struct graph_frame {
    str_ix method;     /* method name */
    str_ix signature;  /* method signature */
    str_ix source;     /* source file, GRAPH_NONE if unknown */
    str_ix class_name; /* declaring class in Java form, GRAPH_NONE if unknown */
    int32_t line;      /* >0 line; 0 none; -1 unknown; -2 compiled; -3 native */
} graph_frame;

/* ---- lifecycle ---- */

/* Zero-initialises g. */
void graph_init(graph *g);
/* Frees everything g owns (not g itself). Accepts a zeroed graph. */
void graph_fini(graph *g);
/* Called once the reader has filled g: from here on its per-node and per-edge arrays are
 * read, not written, but by the loading thread before any analysis starts (a class-name
 * mapping renames fields in edge_name): base/spill's cold blocks, which past the memory
 * limit go to files before an analysis's scratch arrays do. */
void graph_settle(const graph *g);

/* Allocates the node arrays for n nodes (node_native/node_heap/node_name only when asked).
 * Returns LR_OK or LR_ERR_NOMEM/LR_ERR_LIMIT. */
enum { GRAPH_WANT_NATIVE = 1, GRAPH_WANT_HEAP = 2, GRAPH_WANT_NAME = 4 };
lr_status graph_alloc_nodes(graph *g, uint64_t n, unsigned want, lr_error *err);
/* Allocates CSR arrays for n edges (first_edge must be filled by the reader). Both check n
 * with graph_check_size first. */
lr_status graph_alloc_edges(graph *g, uint64_t n, lr_error *err);

/* Whether `nodes` nodes and `edges` edges fit in g (g->max_nodes, g->max_edges). Readers
 * call it as soon as they know a count, before allocating for it, so a dump too large for
 * 32-bit indices stops there with LR_ERR_LIMIT (exit 5) and a message giving the count and
 * the limit, instead of failing later. `what_edges` names what was counted ("references",
 * "reference slots"); NULL for "edges". */
lr_status graph_check_size(const graph *g, uint64_t nodes, uint64_t edges,
                           const char *what_edges, lr_error *err);

/* ---- strings ---- */

/* Interns s[0..len) (copied), returning its index in *out. */
lr_status graph_intern(graph *g, const char *s, size_t len, str_ix *out, lr_error *err);
/* Sizes the intern table for about n strings (a reader that knows its count avoids the
 * rehashes of growing from small). Returns LR_OK or LR_ERR_NOMEM. */
lr_status graph_reserve_strings(graph *g, uint32_t n, lr_error *err);
/* Frees the intern hash table (two uint32 per slot, about four per string) once a reader
 * has interned what it needs; a later graph_intern rebuilds it from the strings. */
void graph_drop_intern_table(graph *g);
/* The string with index s; "" for GRAPH_NONE. Lives until graph_fini. */
const char *graph_str(const graph *g, str_ix s);

/* ---- lookups ---- */

/* Builds the id -> node index (call after the nodes are filled): the rank index (id_blk)
 * when the ids are unique and it takes at most GRAPH_ID_RANK_MAX_BYTES per node (ranks to
 * nodes: none needed in id order, else the runs of node order, id_seg, or when they are
 * too many the permutation, id_sorted), else the sorted permutation and bucket directory
 * (id_sorted, id_dir). Either way a lookup never changes its answer. */
#define GRAPH_ID_RANK_MAX_BYTES 2u
lr_status graph_build_index(graph *g, lr_error *err);

/* What the index's first pass learns of the ids of nodes [lo, hi) in node order. A reader
 * that holds each id while it fills the nodes (HPROF pass 2, which keeps no id per node)
 * collects this there with graph_id_scan_add and hands it to graph_build_index_scanned, so
 * the index reads the ids back two times fewer. */
typedef struct graph_id_scan {
    uint64_t first, last, min;
    uint64_t max;      /* the largest id before the last run: graph_id_scan_max() for all */
    uint64_t spread;   /* every id - first, ORed: its lowest set bit is the ids' spacing */
    uint32_t lo, hi;   /* the nodes scanned (hi: the next one) */
    int sorted;        /* ascending, repeats allowed */
    int strict;        /* strictly ascending */
    uint32_t *desc;    /* nodes whose id is below the previous node's (run starts), owned */
    uint32_t n_desc;   /* ... how many; UINT32_MAX: more than cap_desc (no run table) */
    uint32_t cap_desc;
} graph_id_scan;
/* An empty scan starting at node lo, keeping up to cap_desc run starts. */
void graph_id_scan_init(graph_id_scan *s, uint32_t lo, uint32_t cap_desc);
void graph_id_scan_free(graph_id_scan *s);
/* The id of node s->hi is not above the previous one (graph_id_scan_add). */
void graph_id_scan_turn(graph_id_scan *s, uint64_t id);
/* Adds the id of node s->hi. Ascending ids (the common case) take the short path: a new
 * minimum can only come after a step down, and the maximum is the end of some run. */
static inline void graph_id_scan_add(graph_id_scan *s, uint64_t id)
{
    if (s->hi == s->lo)
        s->first = s->last = s->min = s->max = id;
    else if (id <= s->last)
        graph_id_scan_turn(s, id);
    s->spread |= id - s->first;
    s->last = id;
    s->hi++;
}
static inline uint64_t graph_id_scan_max(const graph_id_scan *s)
{
    return s->last > s->max ? s->last : s->max;
}
/* Appends b (nodes from a->hi on) to a and frees b. Out of memory for the run starts drops
 * them (n_desc UINT32_MAX): the index then holds the permutation instead of a run table. */
void graph_id_scan_join(graph_id_scan *a, graph_id_scan *b);
/* graph_build_index with the first pass done by the caller: s covers nodes [0, n_nodes) in
 * their final order (else the ids are scanned again). s stays the caller's. keep_ids, for a
 * reader that stores no ids (graph.derive reads them back): when the directory serves (no
 * rank index), its sort and every lookup's search read ids, so they are first copied into
 * node_id (8 bytes a node), which the caller frees when it no longer looks ids up. */
lr_status graph_build_index_scanned(graph *g, const graph_id_scan *s, int keep_ids,
                                    lr_error *err);
/* The rank index's bits set by a reader while it reads the ids (HPROF pass 2), so that the
 * index makes no pass of its own over them: the reader learns the ids' range and spacing
 * first (HPROF pass 1 reads each object's id beside its tag), graph_id_bits_init maps zero
 * pages for as many blocks as the index's budget allows, and each thread of the reader adds
 * its ids through a cursor of its own lane (graph_id_bits_add, then graph_id_bits_flush). A
 * chunk gets blocks when its first id comes (a heap's unused regions take none, as in
 * graph_build_index), per lane: a lane's words are written by one thread only, with no
 * atomic operation (a locked one per word, which waits for every store before it, made
 * HPROF pass 2 ~40 % slower), and graph_build_index_bits ORs the lanes' common chunks. */
#define GRAPH_ID_BITS_LANES 2u
typedef struct graph_id_bits {
    uint64_t base, pos;  /* smallest id; positions p < pos, ids base + (p << align) */
    unsigned align;
    uint64_t n_chunks;
    /* per lane and chunk: the chunk's first block in blk, GRAPH_NONE while it has none */
    uint32_t *ch[GRAPH_ID_BITS_LANES];
    graph_id_blk *blk;   /* cap blocks mapped; NULL: no bits kept (range past the budget) */
    uint64_t cap, used;  /* blocks mapped, blocks handed out to chunks (atomic) */
    int bad;             /* an id repeated or outside the range, or blocks ran out */
} graph_id_bits;
/* One thread's cursor: its lane, the word being filled (position at / 64) and its bits so
 * far. Start it with GRAPH_ID_BITS_CUR(lane). */
typedef struct graph_id_bits_cur {
    uint64_t *word;
    uint64_t acc, at;
    unsigned lane;
} graph_id_bits_cur;
#define GRAPH_ID_BITS_CUR(lane) {NULL, 0, UINT64_MAX, (lane)}
/* Maps blocks for the ids [min, max] whose differences (ORed: spread) are multiples of the
 * same power of two, when the chunk tables fit GRAPH_ID_RANK_MAX_BYTES per node of n_nodes;
 * else, or out of memory, b->blk stays NULL (the index then reads the ids back). */
void graph_id_bits_init(graph_id_bits *b, uint32_t n_nodes, uint64_t min, uint64_t max,
                        uint64_t spread);
void graph_id_bits_free(graph_id_bits *b);
/* Hands chunk k of a lane its blocks: their first index, or GRAPH_NONE with b marked bad
 * when the mapped blocks ran out. Thread-safe between lanes. */
uint32_t graph_id_bits_chunk(graph_id_bits *b, unsigned lane, uint64_t k);
/* Puts c's bits into its word; a bit already set marks b bad (a repeated id). */
static inline void graph_id_bits_flush(graph_id_bits *b, graph_id_bits_cur *c)
{
    if (c->word) {
        if (*c->word & c->acc)
            __atomic_store_n(&b->bad, 1, __ATOMIC_RELAXED);
        *c->word |= c->acc;
    }
    c->word = NULL;
    c->acc = 0;
    c->at = UINT64_MAX;
}
/* Sets id's bit through cursor c (b->blk set); one thread per lane at a time. */
static inline void graph_id_bits_add(graph_id_bits *b, graph_id_bits_cur *c, uint64_t id)
{
    const uint64_t chunk = (uint64_t)GRAPH_ID_BLK_BITS * GRAPH_ID_CHUNK_BLKS;
    uint64_t x = id - b->base, p = x >> b->align;
    if (id < b->base || (x & ((1ull << b->align) - 1)) != 0 || p >= b->pos) {
        __atomic_store_n(&b->bad, 1, __ATOMIC_RELAXED);
        return;
    }
    if (p / 64 != c->at) {
        graph_id_bits_flush(b, c);
        uint32_t f = b->ch[c->lane][p / chunk];
        if (f == GRAPH_NONE && (f = graph_id_bits_chunk(b, c->lane, p / chunk)) == GRAPH_NONE)
            return;
        c->word = &b->blk[f + p % chunk / GRAPH_ID_BLK_BITS].w[p % GRAPH_ID_BLK_BITS / 64];
        c->at = p / 64;
    }
    uint64_t bit = 1ull << (p % 64);
    if (c->acc & bit)
        __atomic_store_n(&b->bad, 1, __ATOMIC_RELAXED);
    c->acc |= bit;
}
/* graph_build_index_scanned with the rank index's bits set by the caller: they serve when
 * they match the range and spacing of s and no id was repeated, else the ids are read back
 * as without them. Takes bits over (*bits is left empty). */
lr_status graph_build_index_bits(graph *g, const graph_id_scan *s, graph_id_bits *bits,
                                 int keep_ids, lr_error *err);
/* Counts in g->diag (duplicate_id) each node whose id an earlier one in id order repeats:
 * lookups answer the first of them, so a later one's referrers and roots go to it instead.
 * Call after graph_build_index; O(n). */
void graph_count_duplicate_ids(graph *g);
/* Node with original id, or GRAPH_NONE. O(1) expected (bucket directory), O(log n) worst;
 * O(n), a scan, when the reader built no index (V8). */
node_ix graph_find_id(const graph *g, uint64_t id);
/* graph_find_id for n ids at once into out[] (GRAPH_NONE where absent): without an id index
 * (V8) one pass over the nodes answers them all, where a scan per id cost ids x nodes
 * (100,000 ids of a 300,000-node snapshot: 68 s). Returns LR_OK or LR_ERR_NOMEM. */
lr_status graph_find_ids(const graph *g, const uint64_t *ids, uint32_t n, node_ix *out,
                         lr_error *err);
/* Indexes class-object nodes for graph_class_of_node (readers call it once the classes'
 * nodes are final). Returns LR_OK or LR_ERR_NOMEM. */
lr_status graph_index_class_nodes(graph *g, lr_error *err);
/* The class that class-object node n describes (the lowest class index if several do), or
 * GRAPH_NONE. O(log classes) once indexed, O(classes) without the index. */
class_ix graph_class_of_node(const graph *g, node_ix n);
/* Class by exact Java-form name; the first one in class order, or GRAPH_NONE. O(classes). */
class_ix graph_find_class(const graph *g, const char *name);
/* A JVM class name as source code writes a nested class (`app.Repo.Companion`) found as the
 * dump writes it (`app.Repo$Companion`, dots turned into '$' from the innermost out): the
 * class, its name in buf, or GRAPH_NONE (always, outside HPROF). */
class_ix graph_find_nested(const graph *g, const char *name, char *buf, size_t cap);
/* Whether class c is `ancestor` or a subclass of it. */
int graph_class_is(const graph *g, class_ix c, class_ix ancestor);
/* Whether class c or a superclass is named `name`. */
int graph_class_is_named(const graph *g, class_ix c, const char *name);
/* Display name of a node's class ("" if none). */
const char *graph_class_name(const graph *g, node_ix n);

/* Builds reverse edges (rev_first/rev_edge). Idempotent. O(N+E). Referrers of n are
 * rev_edge[rev_first[n] .. rev_first[n+1]-1] (forward edge indices, in source order). */
lr_status graph_build_reverse(graph *g, lr_error *err);
/* Source node of edge e. O(log N). (Declared above the accessors.) */

/* ---- field values (HPROF instances; V8 nodes answer through edges) ---- */

/* A decoded field value. */
typedef struct graph_value {
    uint8_t type;  /* enum graph_ftype */
    uint64_t raw;  /* id for objects; bits for primitives, zero-extended */
    node_ix ref;   /* for objects: the node, or GRAPH_NONE (null or missing) */
} graph_value;

/* Size in bytes of a field type for this graph (objects are id_size). 0 if unknown. */
unsigned graph_ftype_size(const graph *g, uint8_t type);

/* Calls fn for every instance field of node n, most-derived class first (as HPROF lays
 * them out). fn returns nonzero to stop. Declaring class is passed for shadowed names. */
typedef int (*graph_field_fn)(void *ctx, class_ix decl, const graph_field *f,
                              const graph_value *v);
void graph_fields_each(const graph *g, node_ix n, graph_field_fn fn, void *ctx);
/* Finds a field by name (most-derived first). Returns 1 and *out, or 0 if absent. For nodes
 * without field bytes (V8), looks for an outgoing edge with that name instead. */
int graph_field_find(const graph *g, node_ix n, const char *name, graph_value *out);
/* Finds instance field `name` of node n as code of class `from` reads it: the one `from`
 * declares, or the nearest of its superclasses (a subclass may declare a field of the same
 * name again, a different field). 0 when none of them declares it, or n has no field bytes. */
int graph_field_find_from(const graph *g, node_ix n, class_ix from, const char *name,
                          graph_value *out);
/* The class that declares the instance field `name` of node n whose value is `to`: a
 * subclass may declare a field of a superclass's name again, and both are in the object.
 * GRAPH_NONE when no such field holds `to` (or n has no field bytes: V8). */
class_ix graph_field_holder(const graph *g, node_ix n, const char *name, node_ix to);
/* The elements of array n read from its bytes (HPROF object and primitive arrays whose
 * contents the dump holds): returns how many and sets *type (enum graph_ftype, OBJECT for an
 * object array); 0 for anything else, an Android dump's array without contents among them.
 * graph_element reads element i (< that count) into *out as a field reads: 1, or 0 when i is
 * out of range. Arrays of other graphs have element edges instead (GRAPH_EDGE_ELEMENT). */
uint32_t graph_elements(const graph *g, node_ix n, uint8_t *type);
int graph_element(const graph *g, node_ix n, uint32_t i, graph_value *out);
/* Finds a static field of class c (not its supers) by name. */
int graph_static_find(const graph *g, class_ix c, const char *name, graph_value *out);

/* Decodes a java.lang.String (or V8 string node, or string with a node_value) into buf (UTF-8,
 * truncated to cap-1 bytes, always NUL-terminated). Returns the full length in UTF-8 bytes, or
 * -1 if n is no string or its value is not in the dump. A V8 concatenated string is rebuilt
 * from its parts, as DevTools does, within GRAPH_CONS_PARTS nodes and GRAPH_CONS_BYTES bytes
 * (the length returned is then that of the part rebuilt). */
#define GRAPH_CONS_PARTS ((uint32_t)1 << 16)
#define GRAPH_CONS_BYTES ((size_t)1 << 20)
long graph_string_value(const graph *g, node_ix n, char *buf, size_t cap);
/* The text of a char[] (UTF-16) or byte[] (UTF-8 where valid, else Latin-1) array a as
 * UTF-8, bounded and terminated as graph_string_value's (a NUL in the text is copied: the
 * length returned says where it ends); -1 if a is no such array or its contents are not in
 * the dump. */
long graph_chars_text(const graph *g, node_ix a, char *buf, size_t cap);

/* V8 writes a string's text as the node's name, cut at this many UTF-16 units
 * (--heap-snapshot-string-limit), and a sliced string's not at all (graph_string_value: -1). */
#define GRAPH_V8_NAME_LIMIT 1024
/* Whether the text graph_string_value gives for n may be only the first part of the string's:
 * a V8 flat string of GRAPH_V8_NAME_LIMIT units or more. Two such strings with one prefix read
 * equal, and a search for their tail finds neither. */
int graph_string_partial(const graph *g, node_ix n);

/* Name of edge e as text into buf ("[3]" for elements, field/property names otherwise). */
const char *graph_edge_name_text(const graph *g, edge_ix e, char *buf, size_t cap);

/* Static name tables. */
const char *graph_root_kind_name(unsigned kind);   /* "Java frame", "JNI global", ... */
/* The name people read in text output, in every verb: LeakCanary's ("System class", "Global
 * variable in native code", "Java local variable", ...). graph_root_kind_name stays the
 * identifier JSON carries. */
const char *graph_root_kind_title(unsigned kind);
/* graph_root_kind_title in the words of g's runtime (graph.root_titles), for text output. */
const char *graph_root_title(const graph *g, unsigned kind);
const char *graph_edge_kind_name(unsigned kind);   /* "field", "static", "element", ... */
const char *graph_node_kind_name(unsigned kind);   /* "instance", "class", ... */
const char *graph_strength_name(unsigned s);       /* "strong", "weak", ... */
const char *graph_ftype_name(unsigned t);          /* "int", "boolean", "object", ... */

/* Asks the kernel to back the 2 MB-aligned interior of a fresh, densely written array of
 * `bytes` with huge pages: one fault per 2 MB instead of per 4 KB. Only an advice, for arrays
 * of millions of entries that will be written throughout (a sparse array would grow its
 * memory); a no-op where unsupported or for arrays under 4 MB. */
void graph_hint_huge(void *p, size_t bytes);

#endif
