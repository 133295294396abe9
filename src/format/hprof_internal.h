/* SPDX-License-Identifier: Apache-2.0 */
/* hprof_internal.h: what the parts of the HPROF reader share (format layer), prefix hprof_.
 * The reader is four files over one load context `rd`: hprof_scan.c (header, top-level
 * records, the STRING and LOAD_CLASS tables, names), hprof_class.c (CLASS_DUMP records into
 * classes, the size models, reference layouts), hprof_read.c (passes 1 and 2 over the heap
 * records, roots, threads, the load itself) and hprof_edges.c (references into CSR edges, and
 * the values read back from the records afterwards, graph.derive). The record tags and the
 * big-endian readers here are the only copies: hprof_histo.c (a second walker over the heap
 * records, which reuses the header parsing, CLASS_DUMP checks, class building and size models
 * through hprof_model_load so its classes, sizes and errors equal the reader's) and
 * hprof_write.c read through them too. Never included outside src/format/hprof_*.c. */
#ifndef LR_FORMAT_HPROF_INTERNAL_H
#define LR_FORMAT_HPROF_INTERNAL_H

#include "format/hprof.h"
#include "base/hash.h"
#include "base/hmap.h"
#include "base/progress.h"

#include <string.h>

/* ---- record tags (docs/formats/hprof.md) ---- */

/* Top-level record tags. */
enum {
    TAG_STRING = 0x01,
    TAG_LOAD_CLASS = 0x02,
    TAG_UNLOAD_CLASS = 0x03,
    TAG_STACK_FRAME = 0x04,
    TAG_STACK_TRACE = 0x05,
    TAG_ALLOC_SITES = 0x06,
    TAG_HEAP_SUMMARY = 0x07,
    TAG_START_THREAD = 0x0a,
    TAG_END_THREAD = 0x0b,
    TAG_HEAP_DUMP = 0x0c,
    TAG_CPU_SAMPLES = 0x0d,
    TAG_CONTROL_SETTINGS = 0x0e,
    TAG_HEAP_DUMP_SEGMENT = 0x1c,
    TAG_HEAP_DUMP_END = 0x2c,
};

/* Heap-dump sub-record tags. */
enum {
    SUB_ROOT_UNKNOWN = 0xff,
    SUB_ROOT_JNI_GLOBAL = 0x01,
    SUB_ROOT_JNI_LOCAL = 0x02,
    SUB_ROOT_JAVA_FRAME = 0x03,
    SUB_ROOT_NATIVE_STACK = 0x04,
    SUB_ROOT_STICKY_CLASS = 0x05,
    SUB_ROOT_THREAD_BLOCK = 0x06,
    SUB_ROOT_MONITOR_USED = 0x07,
    SUB_ROOT_THREAD_OBJECT = 0x08,
    SUB_ROOT_INTERNED_STRING = 0x89,
    SUB_ROOT_FINALIZING = 0x8a,
    SUB_ROOT_DEBUGGER = 0x8b,
    SUB_ROOT_REFERENCE_CLEANUP = 0x8c,
    SUB_ROOT_VM_INTERNAL = 0x8d,
    SUB_ROOT_JNI_MONITOR = 0x8e,
    SUB_ROOT_UNREACHABLE = 0x90,
    SUB_PRIM_ARRAY_NODATA = 0xc3,
    SUB_HEAP_DUMP_INFO = 0xfe,
    SUB_CLASS_DUMP = 0x20,
    SUB_INSTANCE_DUMP = 0x21,
    SUB_OBJ_ARRAY_DUMP = 0x22,
    SUB_PRIM_ARRAY_DUMP = 0x23,
};

#define NO_HEAP 0xffu /* cls_rec.heap of a class dumped before any HEAP_DUMP_INFO */
/* Deepest superclass chain accepted. Real hierarchies are a few dozen deep; the cap keeps
 * the per-class chain walks (layouts, sizes) linear in the class count. */
#define HPROF_MAX_CLASS_DEPTH 1024u
#define HPROF_DEPTH_BUSY UINT32_MAX
/* Below this many bytes in a dump passes 1 and 2 run on one thread: a second costs more. */
#define HPROF_SPLIT_MIN_BYTES (4u << 20)
/* Reference slots of all flattened class layouts (each class repeats its supers' slots):
 * real dumps need a few million; the cap bounds the allocation a hostile hierarchy asks. */
#define HPROF_MAX_LAYOUT_REFS (1u << 25)

/* ---- big-endian readers and value sizes ---- */

static inline uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t be32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return __builtin_bswap32(v);
}
static inline uint64_t be64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
}
static inline uint64_t rd_id(const uint8_t *p, unsigned ids)
{
    return ids == 8 ? be64(p) : be32(p);
}

/* Bytes of a value of basic type t with identifiers of ids bytes; 0 for an invalid type. */
static inline unsigned type_size(unsigned t, unsigned ids)
{
    static const uint8_t SZ[12] = {0, 0, 0, 0, 1, 2, 4, 8, 1, 2, 4, 8};
    if (t == GRAPH_FT_OBJECT)
        return ids;
    return t < 12 ? SZ[t] : 0;
}

/* Size of the fixed part of a root sub-record body (after the tag), or 0 if not a root. */
static inline unsigned root_body(unsigned tag, unsigned ids)
{
    switch (tag) {
    case SUB_ROOT_UNKNOWN:
    case SUB_ROOT_STICKY_CLASS:
    case SUB_ROOT_MONITOR_USED:
    case SUB_ROOT_INTERNED_STRING:
    case SUB_ROOT_FINALIZING:
    case SUB_ROOT_DEBUGGER:
    case SUB_ROOT_REFERENCE_CLEANUP:
    case SUB_ROOT_VM_INTERNAL:
    case SUB_ROOT_UNREACHABLE:
        return ids;
    case SUB_ROOT_JNI_GLOBAL:
        return 2 * ids;
    case SUB_ROOT_NATIVE_STACK:
    case SUB_ROOT_THREAD_BLOCK:
        return ids + 4;
    case SUB_ROOT_JNI_LOCAL:
    case SUB_ROOT_JAVA_FRAME:
    case SUB_ROOT_THREAD_OBJECT:
    case SUB_ROOT_JNI_MONITOR:
        return ids + 8;
    }
    return 0;
}

/* Checks that `need` bytes are available at pos within [.., end) of a segment, or returns
 * the error a cut file (end of the input) or an overlong record (end of its segment) gets. */
#define HPROF_NEED(err, name, n, pos, need, end, what)                                        \
    do {                                                                                     \
        if ((uint64_t)(need) > (end) - (pos)) {                                              \
            if ((end) >= (n))                                                                \
                return LR_TRUNC((err), (name), (pos), "file ends inside " what);             \
            return LR_CORRUPT((err), (name), (pos), what " runs past its heap dump segment"); \
        }                                                                                    \
    } while (0)

/* Walks over the heap records are chains of dependent loads: a record's position is known
 * only once the length before it is read, so without help each record's first cache line is
 * a miss the walk waits for (perf: ~40 % of pass 1's and pass 2's samples on the tag load).
 * Asking for the bytes HPROF_PREFETCH_AHEAD past the position at each record keeps the
 * misses in flight ahead of the walk; on the 1 GB bench dump 4 KB did best of 0.5-16 KB
 * (pass 2 CPU ~430 -> ~205 ms). Walks in node order over the records' offsets (the index
 * reading ids back) ask for the record HPROF_PREFETCH_NODES nodes ahead the same way. */
#define HPROF_PREFETCH_AHEAD 4096u
#define HPROF_PREFETCH_NODES 96u
/* Prefetches d[p + HPROF_PREFETCH_AHEAD], clamped to the last byte of d's n (n > 0). A
 * prefetch never faults, nor changes what the walk reads. */
static inline void hprof_prefetch(const uint8_t *d, uint64_t n, uint64_t p)
{
    uint64_t a = p + HPROF_PREFETCH_AHEAD;
    __builtin_prefetch(d + (a < n ? a : n - 1));
}

/* ---- the load context ---- */

typedef struct str_ent {
    uint64_t id;
    uint64_t off; /* offset of the UTF-8 bytes */
    uint32_t len;
} str_ent;

typedef struct lc_ent {
    uint64_t class_id;
    uint64_t name_id;
    uint32_t serial;
} lc_ent;

typedef struct frame_ent {
    uint64_t id;
    uint64_t off; /* body offset of the STACK_FRAME record */
} frame_ent;

typedef struct trace_ent {
    uint32_t serial;
    uint64_t off; /* body offset of the STACK_TRACE record */
} trace_ent;

typedef struct cls_rec {
    uint64_t off; /* offset of the CLASS_DUMP body (after the sub-tag) */
    uint64_t end; /* offset just past the record */
    uint8_t heap;
} cls_rec;

typedef struct heap_map {
    uint32_t heap_id;
    uint8_t ix;
} heap_map;

/* Flattened reference-field layout of a class: every object field of the class and its
 * supers in HPROF order (most-derived first), with its byte offset in the instance. */
typedef struct ref_slot {
    uint32_t off;
    uint32_t field; /* index into graph.fields: the name follows a later rename (mapping) */
    uint8_t kind;   /* GRAPH_EDGE_MAKE(FIELD, strength) */
} ref_slot;

/* A jdk.internal.vm.StackChunk (a parked virtual thread's frames) holds its stack after its
 * fields, so its size is its own: the JVM's class histogram counts, per chunk, a header and
 * fields (the dump's, plus the ones the VM injects: a continuation, an int, a byte, a
 * program counter), its `size` words of stack and a bitmap of a bit per possible reference
 * slot in them (two per word with 4-byte references). Measured against `jcmd
 * GC.class_histogram` of JDK 25 with and without compressed oops, to the byte; the dump
 * gives each chunk 32 bytes (its declared fields), 1/70 of a 3.4 kB stack. */
typedef struct hprof_chunk {
    class_ix cls;    /* the class, or GRAPH_NONE (not in the dump, or not this model) */
    uint32_t off;    /* where its int `size` is in the instance's field bytes */
    uint32_t helper; /* header and fields, the injected ones too, 8-byte aligned */
    uint32_t bits;   /* bitmap bits per stack word */
    uint32_t align;  /* the heap's object alignment (rd.obj_align) */
} hprof_chunk;

/* The size of a chunk whose field bytes are f[0..nb): helper + stack + bitmap. */
static inline uint32_t hprof_chunk_size(const hprof_chunk *k, const uint8_t *f, uint32_t nb,
                                        uint32_t dflt)
{
    if (k->off > nb || nb - k->off < 4)
        return dflt;
    uint64_t w = ((uint64_t)f[k->off] << 24 | (uint64_t)f[k->off + 1] << 16 |
                  (uint64_t)f[k->off + 2] << 8 | f[k->off + 3]) & 0x7fffffffu;
    uint64_t sz = k->helper + 8 * w + 8 * ((w * k->bits + 63) / 64);
    sz = (sz + k->align - 1) & ~((uint64_t)k->align - 1);
    return sz > UINT32_MAX ? UINT32_MAX : (uint32_t)sz;
}

typedef struct rd {
    graph *g;
    const uint8_t *d;
    uint64_t n;
    const char *name;
    unsigned ids;
    int android;
    int no_edges;
    int count_edges; /* resolve and count references, store no edges (fmt_opts) */
    lr_error *err;
    progress prog;  /* bar over pass 1 + pass 2 (2 x dump bytes) */

    str_ent *strs;
    uint32_t n_strs, cap_strs;
    lc_ent *lcs;
    uint32_t n_lcs, cap_lcs;
    frame_ent *frames;
    uint32_t n_frames, cap_frames;
    trace_ent *traces;
    uint32_t n_traces, cap_traces;
    hprof_dump *dumps;
    uint32_t n_dumps, cap_dumps;

    cls_rec *cls;
    uint32_t n_cls, cap_cls;
    heap_map heaps[GRAPH_MAX_HEAPS];
    uint32_t n_heap_ids;
    int have_heap_info;
    uint8_t default_heap;

    /* pass-1 counts */
    uint64_t n_inst, n_oarr, n_parr, n_roots;
    uint64_t n_fields, n_statics;
    hmap chash; /* hash_mix64(class id ^ chash_seed) -> class_ix */
    uint64_t chash_seed; /* hmap_seed(): ids come from the dump */

    class_ix prim_class[12];  /* class of each primitive array type */
    uint32_t *layout_bytes;   /* per class: instance field bytes over the hierarchy */
    uint32_t *first_ref;      /* per class: index into refs (n_classes + 1 entries) */
    ref_slot *refs;
    uint32_t *vv_size;        /* per class: VisualVM instance size */
    unsigned oop, min_inst;   /* VisualVM model */
    unsigned arr_base;        /* where an array's elements start (min_inst + 4 but where the
                               * dump's Unsafe says otherwise) */
    uint32_t class_obj_size;  /* size of a class object */
    unsigned obj_align;       /* objects' sizes are multiples of it: 8, or the JVM's
                               * -XX:ObjectAlignmentInBytes, which every object id shows */
    hprof_chunk chunk;        /* jdk.internal.vm.StackChunk's sizes (virtual threads' stacks) */
    str_ix inames[4];         /* names of the four class-internal references */

    uint64_t *root_ids;       /* raw ids of roots, parallel to g->roots during pass 2 */
    /* Offset of each node's record, just past its sub-tag: its low 32 bits (rec32) and,
     * when the input is 4 GB or more, its next 16 (rec_hi, else NULL): 6 bytes a node where
     * 8 made pass 2 fault in 0.8 GB more on a 21.6 GB dump. A mapped file is smaller than
     * 2^48 bytes (HPROF_REC_MAX). Filled by pass 2 and handed to the graph's read-back state
     * by hprof_compact; g->node_off is never allocated. */
    uint32_t *rec32;
    uint16_t *rec_hi;
    /* Where pass 2's second thread starts (pass 1 notes it). */
    struct {
        uint64_t pos;     /* first heap sub-record of the second half (0: no split) */
        uint64_t end;     /* end of its segment */
        uint64_t top;     /* the top-level record after that segment */
        node_ix node;     /* objects before it */
        uint32_t root;    /* GC root records before it */
        uint32_t cls;     /* CLASS_DUMPs before it */
        uint8_t heap;     /* pass 1's heap there (NO_HEAP: the default heap) */
    } split;
    uint32_t prim_seen;      /* primitive array types met by pass 1 (bit per type) */
    uint8_t prim_order[12];  /* those types in the order of their first array */
    uint32_t n_prim_order;
    char *scratch;
    size_t cap_scratch;
    /* pass 2's scan of the objects' ids (nodes from n_cls on) for the index: no id is kept
     * per node while loading, so the index's first pass is made while pass 2 reads them */
    graph_id_scan obj_ids;
    /* The edges' census, taken by pass 2 as it reads each object (hprof_build_edges sizes
     * the edge arrays and splits the work with it, with no pass over the nodes of its own):
     * per class, the reference slots of its layout (object fields over the hierarchy,
     * saturated); per HP_SLOT_BLOCK nodes in pass 2's order (before the class nodes merge
     * in), the slots of its instances and object arrays. */
    uint32_t *cls_slots;
    uint64_t *blk_slots;
    /* The edge walk goes backward, in chunks (hprof_build_edges; decided before pass 2).
     * Then, when edges are stored, the census counts the non-null slots only (exact): every
     * chunk's range then starts where its edges go, and none moves unless ids dangle. */
    int edges_back;
    int exact_slots;
    /* Every array's length, in node order (n_oarr + n_parr of them), taken by pass 2 from
     * the record it reads anyway and handed to the read-back state (hp_state.arr_len): the
     * sizes and lengths asked later (the trees' own-size passes and weights) then read no
     * record, which on a dump larger than the page cache is a read from disk. NULL when it
     * could not be had, or pass 2 met other arrays than pass 1 counted or a primitive array
     * whose class has another element type. */
    uint32_t *arr_len;
    /* The objects' ids as pass 1 met them (first, smallest, largest, every id - first ORed,
     * how many), then the rank index's bits pass 2 sets for that range (graph_id_bits). */
    struct {
        uint64_t first, min, max, spread, n;
    } oid;
    graph_id_bits bits;
} rd;

/* Nodes per block of the reference-slot census (rd.blk_slots): the edge split falls on a
 * block boundary of pass 2's order. */
#define HP_SLOT_BLOCK 65536u

/* ---- shared helpers (growable arrays: the ceiling is the file size) ---- */

lr_status hprof_grow(void **p, uint32_t *cap, size_t elem, rd *r);
#define PUSH(r, arr, n, cap)                                                    \
    do {                                                                        \
        if ((n) == (cap))                                                       \
            LR_TRY(hprof_grow((void **)&(arr), &(cap), sizeof *(arr), (r)));    \
    } while (0)
lr_status hprof_nomem(rd *r);

/* A size past 32 bits saturates, and is counted (DIAG_SIZE_SATURATED). */
static inline uint32_t sat32(rd *r, uint64_t v)
{
    if (v > UINT32_MAX) {
        diag_count(&r->g->diag, DIAG_SIZE_SATURATED);
        return UINT32_MAX;
    }
    return (uint32_t)v;
}

/* ---- hprof_scan.c: header, top-level records, strings and names ---- */

extern const char *const hprof_versions[4]; /* version strings, by hprof_parse_header's index */

/* Checks the header: identifier size, where the records start, the version index, the
 * timestamp (ts may be NULL). An error names the byte. */
lr_status hprof_parse_header(const uint8_t *d, uint64_t n, const char *name, unsigned *ids,
                             uint64_t *start, int *version, uint64_t *ts, lr_error *err);
/* Walks the top-level records from pos, checking every record length; groups heap records
 * into dumps (out, up to cap of them; *n_dumps counts all). With r, also fills r's STRING,
 * LOAD_CLASS, STACK_FRAME, STACK_TRACE and dump tables and counts unknown records. */
lr_status hprof_scan_top(const uint8_t *d, uint64_t n, uint64_t pos, unsigned ids,
                         const char *name, rd *r, hprof_dump *out, uint32_t cap,
                         uint32_t *n_dumps, lr_error *err);
/* Sorts r's strings and LOAD_CLASS entries by id for the finds below, unless they already
 * are; radix: a radix sort of the strings (stable) instead of qsort. */
void hprof_sort_tables(rd *r, int radix);
const str_ent *hprof_find_str(const rd *r, uint64_t id);
const lc_ent *hprof_find_lc(const rd *r, uint64_t class_id);
/* Interns the string with HPROF id `id` (control characters replaced); a missing one
 * becomes "<missing string 0x..>" and is counted. */
lr_status hprof_intern_id(rd *r, uint64_t id, str_ix *out);
/* Interns a class name given by its STRING id, in Java form ("int[]", "a.B"). */
lr_status hprof_intern_class_name(rd *r, uint64_t name_id, str_ix *out);

/* ---- hprof_class.c: classes, size models, reference layouts ---- */

/* Walks a CLASS_DUMP body at pos (after the sub-tag) within [pos, end); returns its end and
 * counts its fields, or the error naming the bad byte. */
lr_status hprof_class_dump_end(rd *r, uint64_t pos, uint64_t end, uint64_t *out_end,
                               uint32_t *n_statics, uint32_t *n_fields);
/* Fills g's classes, fields and statics from r->cls, the class-id hash, superclasses
 * (refusing cycles and chains deeper than HPROF_MAX_CLASS_DEPTH) and r->prim_class. */
lr_status hprof_build_classes(rd *r);
/* The class of primitive arrays of type t: the dump's own, else a synthetic one (the graph
 * has room for 8 more classes than the dump declares). */
lr_status hprof_synth_prim_class(rd *r, unsigned t, class_ix *out);
/* VisualVM 2.1.5's sizes: r->oop, r->min_inst, r->vv_size per class, r->class_obj_size. */
void hprof_size_model_visualvm(rd *r);
/* Each class's reference strength from its nearest java.lang.ref superclass. */
void hprof_set_ref_strengths(graph *g);
/* r->first_ref / r->refs: every class's flattened reference slots; r->layout_bytes. */
lr_status hprof_build_layouts(rd *r);

/* Class index of a class id, or GRAPH_NONE (the first CLASS_DUMP of an id wins). */
static inline class_ix class_find(const rd *r, uint64_t id)
{
    hmap_it it;
    for (uint32_t e = hmap_first(&r->chash, (uint32_t)hash_mix64(id ^ r->chash_seed), &it);
         e != HMAP_NONE; e = hmap_next(&r->chash, &it))
        if (r->g->classes[e].id == id)
            return e;
    return GRAPH_NONE;
}

/* Node of an object id: the rank index inline when the ids allow one (every reference is
 * resolved through here), else the graph's directory. */
static inline node_ix node_find(const rd *r, uint64_t id)
{
    return r->g->id_blk ? graph_find_id_rank(r->g, id) : graph_find_id(r->g, id);
}

/* Largest input: the offsets keep 48 bits (rec_hi). */
#define HPROF_REC_MAX ((uint64_t)1 << 48)

static inline uint64_t rec_get(const rd *r, node_ix i)
{
    return r->rec_hi ? (uint64_t)r->rec_hi[i] << 32 | r->rec32[i] : r->rec32[i];
}
static inline void rec_set(rd *r, node_ix i, uint64_t off)
{
    r->rec32[i] = (uint32_t)off;
    if (r->rec_hi) /* the input is under HPROF_REC_MAX bytes */
        r->rec_hi[i] = (uint16_t)(off >> 32);
}

/* Node i's class, in the width the graph keeps: node_class16 when every class index fits
 * (hprof_load chooses), else node_class. w and w16 are those arrays, one of them NULL. */
static inline void cls_put(class_ix *w, uint16_t *w16, node_ix i, class_ix c)
{
    if (w16)
        w16[i] = (uint16_t)(c + 1u); /* GRAPH_NONE + 1 wraps to 0, node_class16's none */
    else
        w[i] = c;
}

/* ---- hprof_read.c: the load ---- */

/* Dumps of at least this many bytes run passes 1 and 2 on two threads (default
 * HPROF_SPLIT_MIN_BYTES; tests lower it to split small fixtures), and the loads whose pass 2
 * did; hprof_pass1_splits counts those whose pass 1 did (a dump of several segments). */
extern uint64_t hprof_split_min_bytes;
extern unsigned hprof_splits;
extern unsigned hprof_pass1_splits;
/* Whether pass 2 keeps the arrays' lengths (rd.arr_len; default 1, tests turn it off to
 * compare with sizes read back), and the loads that handed them to the graph. */
extern int hprof_arr_table;
extern unsigned hprof_arr_tables;

/* ---- hprof_edges.c: edges, then the graph's read-back state ---- */

/* Graphs of at least this many nodes have their record offsets packed on two threads
 * (default HPROF_PACK_SPLIT_MIN; tests lower it to split small fixtures). */
#define HPROF_PACK_SPLIT_MIN 1000000u
extern uint32_t hprof_pack_split_min;
/* The edge walk (hprof_build_edges) splits graphs of more than hprof_edge_split_min nodes
 * between two threads; it goes backward, in chunks, over dumps of hprof_edges_back_min
 * bytes or more (0: half the memory available), hprof_edge_chunks of them (0: one per
 * HP_EDGE_CHUNK_BYTES of the dump, at least 2, at most HP_EDGE_CHUNKS_MAX);
 * hprof_edges_backward counts those walks, hprof_edges_last_chunks is the last walk's
 * number of chunks and hprof_edges_moved how many of them moved down. Tests set them to cut
 * small dumps. */
#define HP_EDGE_CHUNK_BYTES (256ull << 20)
#define HP_EDGE_CHUNKS_MAX 1024u
extern uint32_t hprof_edge_split_min;
extern uint64_t hprof_edges_back_min;
extern uint32_t hprof_edge_chunks;
extern unsigned hprof_edges_backward;
extern unsigned hprof_edges_last_chunks;
extern unsigned hprof_edges_moved;
/* Whether the edge walk of a dump of `bytes` goes backward (hprof_edges_back_min). */
int hprof_edges_backward_for(uint64_t bytes);
/* Resolves every reference slot of every node into CSR edges, on two threads. */
lr_status hprof_build_edges(rd *r);
/* Hands the class tables and record offsets to the graph (graph.derive) and drops the
 * per-node ids: from here on ids, lengths, sizes and edge names are read back. */
lr_status hprof_compact(rd *r);

/* ---- walkers over the heap records other than the reader (hprof_histo.c) ---- */

/* A CLASS_DUMP found by a walker: body offset (after the sub-tag), end, field counts. */
typedef struct hprof_cls_pos {
    uint64_t off, end;
    uint32_t n_statics, n_fields;
} hprof_cls_pos;

/* What hprof_model_load hands to the walker and what the walker returns. */
typedef struct hprof_walk {
    /* in */
    const uint8_t *d;
    uint64_t n;
    const char *name;  /* for messages */
    unsigned ids;      /* identifier size, 4 or 8 */
    int android;       /* 1.0.3: Shark size model */
    hprof_dump dump;   /* the chosen dump (length 0 when the file has none) */
    /* out: CLASS_DUMPs in file order (err_malloc'd, freed by hprof_model_load) */
    hprof_cls_pos *cls;
    uint32_t n_cls;
    uint64_t n_objects; /* instances and arrays, for the reader's 4G-node ceiling */
} hprof_walk;

typedef lr_status (*hprof_walk_fn)(void *ctx, hprof_walk *w, lr_error *err);

/* Sizes the reader would give each node. inst_size is err_malloc'd (free it). */
typedef struct hprof_model {
    int android;
    unsigned ids;
    uint32_t min_inst, oop;    /* VisualVM model (HotSpot); unused for Android */
    uint32_t arr_base;         /* an array's elements start here (rd.arr_base) */
    uint32_t class_obj_size;   /* VisualVM size of a class object */
    uint32_t *inst_size;       /* per class index: an instance's shallow size */
    class_ix prim_class[12];   /* the dump's own class of each primitive array type, or NONE */
    hprof_chunk chunk;         /* rd.chunk: StackChunk instances have sizes of their own */
    unsigned obj_align;        /* rd.obj_align */
} hprof_model;

/* Runs the reader's load up to its pass 1 (header, top-level index, dump choice by
 * dump_index as fmt_opts.dump_index), calls walk in place of pass 1, then builds the classes
 * into g (g->path names the input) and the size model, with the reader's errors. */
lr_status hprof_model_load(graph *g, const mfile *m, int dump_index, hprof_walk_fn walk,
                           void *ctx, hprof_model *out, lr_error *err);

/* The reader's CLASS_DUMP walk (hprof_class.c) without a load context: validates the body
 * at pos (after the sub-tag) within [pos, end) and returns its end and field counts, or the
 * reader's error. */
lr_status hprof_class_dump_skip(const uint8_t *d, uint64_t n, unsigned ids, const char *name,
                                uint64_t pos, uint64_t end, uint64_t *out_end,
                                uint32_t *n_statics, uint32_t *n_fields, lr_error *err);

#endif
