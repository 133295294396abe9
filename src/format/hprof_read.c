/* SPDX-License-Identifier: Apache-2.0 */
/* hprof_read.c: HPROF reader (format layer), prefix hprof_. A top-level scan indexes STRING,
 * LOAD_CLASS, STACK_FRAME/TRACE records and groups heap records into dumps; then two passes
 * over the chosen dump: pass 1 counts objects, roots and class dumps and sizes every graph
 * array exactly, pass 2 fills them; edges are counted from class layouts (upper bound, then
 * shrunk) and filled in node order. No per-object malloc: nodes point at their field bytes in
 * the mapped input. Knows 1.0-1.0.3, 4/8-byte ids and Android heap tags, nothing about leaks.
 * Every length read from the file is checked against the bytes left before it is used; errors
 * carry the absolute offset (in the inflated bytes for compressed input). docs/formats/hprof.md
 * is the spec, including the VisualVM 2.1.5 (HotSpot) and Shark (Android) size models. */
#define _GNU_SOURCE
#include "format/hprof.h"
#include "base/hash.h"
#include "base/hmap.h"
#include "base/phase.h"
#include "base/progress.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

#define NO_HEAP 0xffu
/* Deepest superclass chain accepted. Real hierarchies are a few dozen deep; the cap keeps
 * the per-class chain walks (layouts, sizes) linear in the class count. */
#define HPROF_MAX_CLASS_DEPTH 1024u
#define HPROF_DEPTH_BUSY UINT32_MAX
/* Reference slots of all flattened class layouts (each class repeats its supers' slots):
 * real dumps need a few million; the cap bounds the allocation a hostile hierarchy asks. */
#define HPROF_MAX_LAYOUT_REFS (1u << 25)

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

static const char *const PRIM_NAMES[12] = {NULL,     NULL,     NULL,    NULL,
                                           "boolean", "char",  "float", "double",
                                           "byte",    "short", "int",   "long"};

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

/* What a loaded HPROF graph keeps to read node ids, lengths, sizes and edge names back from
 * the records instead of storing them per node and per edge (graph.derive): the offset of
 * each node's record (just past its sub-tag; the id comes first in every kind), in 32 bits
 * when the input allows, and the per-class tables the reader computed anyway. */
typedef struct hp_state {
    unsigned ids;             /* identifier size */
    int shark;                /* Android size model */
    uint32_t *rec32;          /* record offsets when the input is under 4 GB, else NULL */
    uint64_t *rec64;          /* record offsets otherwise */
    uint32_t *first_ref;      /* per class: index into refs (n_classes + 1 entries) */
    ref_slot *refs;           /* reference slots of every class layout */
    uint32_t *inst_size;      /* per class: instance size in the graph's size model */
    uint32_t unknown_size;    /* instance of a class missing from the dump */
    unsigned oop, min_inst;   /* VisualVM array model */
    uint32_t class_obj_size;  /* VisualVM: size of a class object */
    uint32_t *cls_len;        /* CLASS_DUMP body length per dumped class */
    uint32_t n_cls;           /* dumped classes (the only ones with a class-object node) */
    str_ix inames[4];         /* <super>, <classloader>, <signers>, <protection_domain> */
    uint64_t serial;          /* unique per loaded graph (edge-name cursor key) */
} hp_state;

typedef struct rd {
    graph *g;
    const uint8_t *d;
    uint64_t n;
    const char *name;
    unsigned ids;
    int android;
    int no_edges;
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
    hmap chash; /* hash_mix64(class id) -> class_ix */

    class_ix prim_class[12];  /* class of each primitive array type */
    uint32_t *layout_bytes;   /* per class: instance field bytes over the hierarchy */
    uint32_t *first_ref;      /* per class: index into refs (n_classes + 1 entries) */
    ref_slot *refs;
    uint32_t *vv_size;        /* per class: VisualVM instance size */
    unsigned oop, min_inst;   /* VisualVM model */
    uint32_t class_obj_size;  /* size of a class object */
    str_ix inames[4];         /* names of the four class-internal references */

    uint64_t *root_ids;       /* raw ids of roots, parallel to g->roots during pass 2 */
    char *scratch;
    size_t cap_scratch;
} rd;

/* ---- growable arrays (ceiling: counts are bounded by the file size) ---- */

static lr_status grow(void **p, uint32_t *cap, size_t elem, rd *r)
{
    uint32_t nc = *cap ? *cap * 2 : 64;
    if (nc < *cap)
        return LR_FAIL(r->err, LR_ERR_LIMIT, "%s: too many records", r->name);
    void *q = err_reallocarray(*p, nc, elem);
    if (!q)
        return LR_FAIL(r->err, LR_ERR_NOMEM, "%s: out of memory", r->name);
    *p = q;
    *cap = nc;
    return LR_OK;
}
#define PUSH(r, arr, n, cap)                                                    \
    do {                                                                        \
        if ((n) == (cap))                                                       \
            LR_TRY(grow((void **)&(arr), &(cap), sizeof *(arr), (r)));          \
    } while (0)

static lr_status nomem(rd *r)
{
    return LR_FAIL(r->err, LR_ERR_NOMEM, "%s: out of memory", r->name);
}

/* ---- header ---- */

static const char *const VERSIONS[] = {"JAVA PROFILE 1.0", "JAVA PROFILE 1.0.1",
                                       "JAVA PROFILE 1.0.2", "JAVA PROFILE 1.0.3"};

/* Returns the header length (version + NUL + u4 + u8), or 0 if not a supported header. */
static uint64_t header_len(const uint8_t *p, uint64_t n, int *version)
{
    for (unsigned v = 0; v < 4; v++) {
        size_t l = strlen(VERSIONS[v]);
        if (n >= l + 1 && memcmp(p, VERSIONS[v], l) == 0 && p[l] == 0) {
            if (version)
                *version = (int)v;
            return l + 1 + 4 + 8;
        }
    }
    return 0;
}

int hprof_sniff(const uint8_t *p, uint64_t n) { return header_len(p, n, NULL) != 0; }

static lr_status parse_header(const uint8_t *d, uint64_t n, const char *name, unsigned *ids,
                              uint64_t *start, int *version, uint64_t *ts, lr_error *err)
{
    if (n == 0)
        return LR_TRUNC(err, name, 0, "empty file");
    uint64_t hl = header_len(d, n, version);
    if (hl == 0) {
        if (n < 20 && memcmp(d, "JAVA PROFILE 1.0", n < 16 ? n : 16) == 0)
            return LR_TRUNC(err, name, n, "file ends inside the HPROF header");
        return LR_CORRUPT(err, name, 0, "not an HPROF file (unknown version string)");
    }
    if (hl > n)
        return LR_TRUNC(err, name, n, "file ends inside the HPROF header");
    uint64_t o = hl - 12;
    uint32_t s = be32(d + o);
    if (s != 4 && s != 8)
        return LR_CORRUPT(err, name, o, "unsupported identifier size %u (want 4 or 8)", s);
    *ids = s;
    if (ts)
        *ts = (uint64_t)be32(d + o + 4) << 32 | be32(d + o + 8);
    *start = hl;
    return LR_OK;
}

/* ---- top-level scan ---- */

/* Walks top-level records; if r is non-NULL also indexes strings, classes and stacks. */
static lr_status scan_top(const uint8_t *d, uint64_t n, uint64_t pos, unsigned ids,
                          const char *name, rd *r, hprof_dump *out, uint32_t cap,
                          uint32_t *n_dumps, lr_error *err)
{
    uint32_t nd = 0;
    int open = 0; /* a segmented dump is open */
    while (pos < n) {
        if (n - pos < 9)
            return LR_TRUNC(err, name, pos, "file ends inside a record header");
        unsigned tag = d[pos];
        uint32_t len = be32(d + pos + 5);
        uint64_t body = pos + 9;
        if (len > n - body)
            return LR_TRUNC(err, name, pos, "record tag 0x%02x length %u past end of file",
                            tag, len);
        if (tag == TAG_HEAP_DUMP || tag == TAG_HEAP_DUMP_SEGMENT) {
            if (tag == TAG_HEAP_DUMP || !open) {
                if (nd < cap && out) {
                    out[nd].offset = pos;
                    out[nd].length = 0;
                    out[nd].n_records = 0;
                }
                nd++;
                if (r) {
                    PUSH(r, r->dumps, r->n_dumps, r->cap_dumps);
                    r->dumps[r->n_dumps].offset = pos;
                    r->dumps[r->n_dumps].length = 0;
                    r->dumps[r->n_dumps].n_records = 0;
                    r->n_dumps++;
                }
            }
            open = tag == TAG_HEAP_DUMP_SEGMENT;
            if (nd - 1 < cap && out) {
                out[nd - 1].length = body + len - out[nd - 1].offset;
                out[nd - 1].n_records++;
            }
            if (r) {
                hprof_dump *dd = &r->dumps[r->n_dumps - 1];
                dd->length = body + len - dd->offset;
                dd->n_records++;
            }
        } else if (tag == TAG_HEAP_DUMP_END) {
            open = 0;
        } else if (r) {
            switch (tag) {
            case TAG_STRING:
                if (len < ids)
                    return LR_CORRUPT(err, name, pos, "STRING record length %u < id size", len);
                PUSH(r, r->strs, r->n_strs, r->cap_strs);
                r->strs[r->n_strs++] = (str_ent){rd_id(d + body, ids), body + ids, len - ids};
                break;
            case TAG_LOAD_CLASS:
                if (len < 8 + 2 * ids)
                    return LR_CORRUPT(err, name, pos, "LOAD_CLASS record length %u too short",
                                      len);
                PUSH(r, r->lcs, r->n_lcs, r->cap_lcs);
                r->lcs[r->n_lcs++] = (lc_ent){rd_id(d + body + 4, ids),
                                              rd_id(d + body + 8 + ids, ids), be32(d + body)};
                break;
            case TAG_STACK_FRAME:
                if (len < 4 * ids + 8)
                    return LR_CORRUPT(err, name, pos, "STACK_FRAME record length %u too short",
                                      len);
                PUSH(r, r->frames, r->n_frames, r->cap_frames);
                r->frames[r->n_frames++] = (frame_ent){rd_id(d + body, ids), body};
                break;
            case TAG_STACK_TRACE: {
                if (len < 12)
                    return LR_CORRUPT(err, name, pos, "STACK_TRACE record length %u too short",
                                      len);
                uint32_t nf = be32(d + body + 8);
                if ((uint64_t)nf * ids > len - 12)
                    return LR_CORRUPT(err, name, pos, "STACK_TRACE with %u frames in %u bytes",
                                      nf, len);
                PUSH(r, r->traces, r->n_traces, r->cap_traces);
                r->traces[r->n_traces++] = (trace_ent){be32(d + body), body};
                break;
            }
            case TAG_UNLOAD_CLASS:
            case TAG_ALLOC_SITES:
            case TAG_HEAP_SUMMARY:
            case TAG_START_THREAD:
            case TAG_END_THREAD:
            case TAG_CPU_SAMPLES:
            case TAG_CONTROL_SETTINGS:
                break;
            default:
                diag_count(&r->g->diag, DIAG_UNKNOWN_RECORD);
                break;
            }
        }
        pos = body + len;
    }
    /* A file cut at a record boundary parses; what gives it away is a segmented dump that
     * never got its HEAP_DUMP_END, or no heap dump at all (a header and strings only). */
    if (r && (open || nd == 0))
        diag_count(&r->g->diag, DIAG_TRUNCATED);
    *n_dumps = nd;
    return LR_OK;
}

lr_status hprof_list_dumps(const mfile *m, const char *name, hprof_dump *out, uint32_t cap,
                           uint32_t *n_dumps, lr_error *err)
{
    unsigned ids;
    uint64_t start;
    int version;
    *n_dumps = 0;
    if (!name)
        name = "<memory>";
    LR_TRY(parse_header(m->data, m->len, name, &ids, &start, &version, NULL, err));
    return scan_top(m->data, m->len, start, ids, name, NULL, out, cap, n_dumps, err);
}

/* ---- strings and names ---- */

static int cmp_str(const void *a, const void *b)
{
    uint64_t x = ((const str_ent *)a)->id, y = ((const str_ent *)b)->id;
    return x < y ? -1 : x > y;
}
static int cmp_lc(const void *a, const void *b)
{
    uint64_t x = ((const lc_ent *)a)->class_id, y = ((const lc_ent *)b)->class_id;
    return x < y ? -1 : x > y;
}
static int cmp_frame(const void *a, const void *b)
{
    uint64_t x = ((const frame_ent *)a)->id, y = ((const frame_ent *)b)->id;
    return x < y ? -1 : x > y;
}
static int cmp_trace(const void *a, const void *b)
{
    uint32_t x = ((const trace_ent *)a)->serial, y = ((const trace_ent *)b)->serial;
    return x < y ? -1 : x > y;
}

static const str_ent *find_str(const rd *r, uint64_t id)
{
    uint32_t lo = 0, hi = r->n_strs;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->strs[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->n_strs && r->strs[lo].id == id ? &r->strs[lo] : NULL;
}

static const lc_ent *find_lc(const rd *r, uint64_t class_id)
{
    uint32_t lo = 0, hi = r->n_lcs;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->lcs[mid].class_id < class_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->n_lcs && r->lcs[lo].class_id == class_id ? &r->lcs[lo] : NULL;
}

static lr_status scratch(rd *r, size_t need)
{
    if (need <= r->cap_scratch)
        return LR_OK;
    char *p = realloc(r->scratch, need);
    if (!p)
        return nomem(r);
    r->scratch = p;
    r->cap_scratch = need;
    return LR_OK;
}

static int is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

/* Interns n name bytes with ASCII control characters replaced by '?'. STRING records hold
 * names of classes, fields, methods and files, which never contain them (modified UTF-8
 * writes NUL as C0 80), and every name ends up on a terminal: a dump must not be able to
 * send escape sequences there. */
static lr_status intern_name(rd *r, const char *p, size_t n, str_ix *out)
{
    size_t i = 0;
    while (i < n && !is_control((unsigned char)p[i]))
        i++;
    if (i == n)
        return graph_intern(r->g, p, n, out, r->err);
    if (p != r->scratch) {
        LR_TRY(scratch(r, n ? n : 1));
        memcpy(r->scratch, p, n);
    }
    for (; i < n; i++)
        if (is_control((unsigned char)r->scratch[i]))
            r->scratch[i] = '?';
    return graph_intern(r->g, r->scratch, n, out, r->err);
}

/* Interns the string with HPROF id `id`; a missing one becomes "<missing string 0x..>". */
static lr_status intern_id(rd *r, uint64_t id, str_ix *out)
{
    const str_ent *s = find_str(r, id);
    if (!s) {
        char buf[48];
        int l = snprintf(buf, sizeof buf, "<missing string 0x%llx>", (unsigned long long)id);
        diag_count(&r->g->diag, DIAG_MISSING_STRING);
        return graph_intern(r->g, buf, (size_t)l, out, r->err);
    }
    return intern_name(r, (const char *)r->d + s->off, s->len, out);
}

/* Converts a JVM class name ("java/lang/String", "[I", "[[Ljava/lang/Object;") to Java form
 * ("java.lang.String", "int[]", "java.lang.Object[][]") into r->scratch; returns the length. */
static lr_status java_name(rd *r, const char *s, size_t len, size_t *out_len)
{
    LR_TRY(scratch(r, len + 16 + 2 * len));
    char *o = r->scratch;
    size_t dims = 0;
    while (dims < len && s[dims] == '[')
        dims++;
    const char *e = s + dims;
    size_t el = len - dims;
    size_t k = 0;
    if (dims > 0 && el == 1) {
        static const char CODES[] = "ZCFDBSIJ";
        static const char *const NAMES[] = {"boolean", "char", "float", "double",
                                            "byte",    "short", "int",  "long"};
        const char *c = strchr(CODES, e[0]);
        const char *nm = c && e[0] ? NAMES[c - CODES] : NULL;
        if (nm) {
            k = strlen(nm);
            memcpy(o, nm, k);
        } else {
            memcpy(o, e, el);
            k = el;
        }
    } else {
        if (dims > 0 && el >= 2 && e[0] == 'L' && e[el - 1] == ';') {
            e++;
            el -= 2;
        }
        for (size_t i = 0; i < el; i++)
            o[k++] = e[i] == '/' ? '.' : e[i];
    }
    for (size_t i = 0; i < dims; i++) {
        o[k++] = '[';
        o[k++] = ']';
    }
    *out_len = k;
    return LR_OK;
}

static lr_status intern_class_name(rd *r, uint64_t name_id, str_ix *out)
{
    const str_ent *s = find_str(r, name_id);
    if (!s)
        return intern_id(r, name_id, out);
    size_t l;
    LR_TRY(java_name(r, (const char *)r->d + s->off, s->len, &l));
    return intern_name(r, r->scratch, l, out);
}

/* ---- hashes ---- */

static lr_status chash_build(rd *r)
{
    graph *g = r->g;
    if (!hmap_reserve(&r->chash, g->n_classes))
        return nomem(r);
    for (class_ix c = 0; c < g->n_classes; c++) {
        if (g->classes[c].node == GRAPH_NONE)
            continue; /* synthetic classes have no id */
        uint64_t id = g->classes[c].id;
        uint32_t h = (uint32_t)hash_mix64(id);
        hmap_it it;
        uint32_t e = hmap_first(&r->chash, h, &it);
        while (e != HMAP_NONE && g->classes[e].id != id)
            e = hmap_next(&r->chash, &it);
        if (e == HMAP_NONE) /* same id twice: the first class dump wins */
            hmap_add(&r->chash, h, c); /* reserved: cannot fail */
    }
    return LR_OK;
}

static inline class_ix class_find(const rd *r, uint64_t id)
{
    hmap_it it;
    for (uint32_t e = hmap_first(&r->chash, (uint32_t)hash_mix64(id), &it); e != HMAP_NONE;
         e = hmap_next(&r->chash, &it))
        if (r->g->classes[e].id == id)
            return e;
    return GRAPH_NONE;
}

static inline node_ix node_find(const rd *r, uint64_t id) { return graph_find_id(r->g, id); }

typedef struct cnode {
    uint64_t id, off;
    uint8_t heap;
    class_ix cls;
} cnode;

static int cmp_cnode(const void *a, const void *b)
{
    uint64_t x = ((const cnode *)a)->id, y = ((const cnode *)b)->id;
    return x < y ? -1 : x > y;
}

/* HotSpot writes every CLASS_DUMP first and then the objects in address order, so with the
 * class nodes merged in by id the whole node_id array is ascending, graph_build_index needs
 * no sort and id lookups walk memory forwards. Done only when the objects are ascending. */
static lr_status merge_class_nodes(rd *r)
{
    graph *g = r->g;
    uint32_t c = r->n_cls, n = g->n_nodes;
    for (uint32_t i = c + 1; i < n; i++)
        if (g->node_id[i] < g->node_id[i - 1])
            return LR_OK;
    if (c == 0 || c == n)
        return LR_OK;
    cnode *t = err_mallocarray(c, sizeof *t);
    if (!t)
        return nomem(r);
    for (uint32_t i = 0; i < c; i++)
        t[i] = (cnode){g->node_id[i], g->node_off[i], g->node_heap ? g->node_heap[i] : 0, i};
    qsort(t, c, sizeof *t, cmp_cnode);
    /* Forward merge: the write position never passes the next unread object (it trails it
     * by the number of classes not yet placed), so the object arrays merge in place. */
    uint32_t w = 0, oi = c, ci = 0;
    for (; w < n; w++) {
        if (ci < c && (oi == n || t[ci].id < g->node_id[oi])) {
            g->node_id[w] = t[ci].id;
            g->node_off[w] = t[ci].off;
            g->node_class[w] = GRAPH_NONE;
            g->node_kind[w] = GRAPH_KIND_CLASS;
            g->node_type[w] = GRAPH_KIND_CLASS;
            if (g->node_heap)
                g->node_heap[w] = t[ci].heap;
            g->classes[t[ci].cls].node = w;
            ci++;
        } else {
            g->node_id[w] = g->node_id[oi];
            g->node_off[w] = g->node_off[oi];
            g->node_class[w] = g->node_class[oi];
            g->node_kind[w] = g->node_kind[oi];
            g->node_type[w] = g->node_type[oi];
            if (g->node_heap)
                g->node_heap[w] = g->node_heap[oi];
            oi++;
        }
    }
    free(t);
    return LR_OK;
}

/* ---- pass 1 over the chosen dump ---- */

/* Checks that `need` bytes are available at p within [.., end) of a segment. */
#define NEED(pos, need, end, what)                                                           \
    do {                                                                                     \
        if ((uint64_t)(need) > (end) - (pos)) {                                              \
            if ((end) >= r->n)                                                               \
                return LR_TRUNC(r->err, r->name, (pos), "file ends inside " what);           \
            return LR_CORRUPT(r->err, r->name, (pos), what " runs past its heap dump segment"); \
        }                                                                                    \
    } while (0)

/* Walks a CLASS_DUMP body at pos; returns its end and counts its fields. */
static lr_status class_dump_end(rd *r, uint64_t pos, uint64_t end, uint64_t *out_end,
                                uint32_t *n_statics, uint32_t *n_fields)
{
    const uint8_t *d = r->d;
    unsigned ids = r->ids;
    uint64_t p = pos;
    NEED(p, 7 * ids + 8 + 2, end, "CLASS_DUMP");
    p += 7 * ids + 8;
    uint32_t ncp = be16(d + p);
    p += 2;
    for (uint32_t i = 0; i < ncp; i++) {
        NEED(p, 3, end, "CLASS_DUMP constant pool");
        unsigned t = d[p + 2], sz = type_size(t, ids);
        if (!sz)
            return LR_CORRUPT(r->err, r->name, p + 2, "CLASS_DUMP constant of bad type %u", t);
        NEED(p, 3 + sz, end, "CLASS_DUMP constant pool");
        p += 3 + sz;
    }
    NEED(p, 2, end, "CLASS_DUMP");
    uint32_t nst = be16(d + p);
    p += 2;
    for (uint32_t i = 0; i < nst; i++) {
        NEED(p, ids + 1, end, "CLASS_DUMP static field");
        unsigned t = d[p + ids], sz = type_size(t, ids);
        if (!sz)
            return LR_CORRUPT(r->err, r->name, p + ids, "static field of bad type %u", t);
        NEED(p, ids + 1 + sz, end, "CLASS_DUMP static field");
        p += ids + 1 + sz;
    }
    NEED(p, 2, end, "CLASS_DUMP");
    uint32_t nf = be16(d + p);
    p += 2;
    NEED(p, (uint64_t)nf * (ids + 1), end, "CLASS_DUMP field list");
    for (uint32_t i = 0; i < nf; i++) {
        unsigned t = d[p + ids];
        if (!type_size(t, ids))
            return LR_CORRUPT(r->err, r->name, p + ids, "instance field of bad type %u", t);
        p += ids + 1;
    }
    *out_end = p;
    *n_statics = nst;
    *n_fields = nf;
    return LR_OK;
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

static lr_status heap_index(rd *r, uint32_t heap_id, uint64_t name_id, uint64_t at)
{
    for (uint32_t i = 0; i < r->n_heap_ids; i++)
        if (r->heaps[i].heap_id == heap_id)
            return LR_OK;
    if (r->n_heap_ids == GRAPH_MAX_HEAPS)
        return LR_FAIL(r->err, LR_ERR_LIMIT, "%s: offset 0x%llx: more than %d heaps", r->name,
                       (unsigned long long)at, GRAPH_MAX_HEAPS);
    graph *g = r->g;
    str_ix nm;
    LR_TRY(intern_id(r, name_id, &nm));
    uint32_t ix = 0;
    while (ix < g->n_heaps && g->heap_names[ix] != nm)
        ix++;
    if (ix == g->n_heaps) {
        if (g->n_heaps == GRAPH_MAX_HEAPS)
            return LR_FAIL(r->err, LR_ERR_LIMIT, "%s: more than %d heaps", r->name,
                           GRAPH_MAX_HEAPS);
        g->heap_names[g->n_heaps++] = nm;
    }
    r->heaps[r->n_heap_ids++] = (heap_map){heap_id, (uint8_t)ix};
    return LR_OK;
}

static uint8_t heap_of(const rd *r, uint32_t heap_id)
{
    for (uint32_t i = 0; i < r->n_heap_ids; i++)
        if (r->heaps[i].heap_id == heap_id)
            return r->heaps[i].ix;
    return 0;
}

/* Default heap for objects before any HEAP_DUMP_INFO in a dump that has some. */
static lr_status default_heap(rd *r, uint8_t *out)
{
    graph *g = r->g;
    str_ix nm;
    LR_TRY(graph_intern(g, "default", 7, &nm, r->err));
    for (uint32_t i = 0; i < g->n_heaps; i++)
        if (g->heap_names[i] == nm) {
            *out = (uint8_t)i;
            return LR_OK;
        }
    if (g->n_heaps == GRAPH_MAX_HEAPS)
        return LR_FAIL(r->err, LR_ERR_LIMIT, "%s: more than %d heaps", r->name, GRAPH_MAX_HEAPS);
    g->heap_names[g->n_heaps] = nm;
    *out = (uint8_t)g->n_heaps++;
    return LR_OK;
}

/* Steps *top through the top-level records of dump dd; returns 1 with the body range of the
 * next HEAP_DUMP / HEAP_DUMP_SEGMENT record, 0 at the end of the dump. Record headers were
 * bounds-checked by the top-level scan. */
static int next_segment(const rd *r, const hprof_dump *dd, uint64_t *top, uint64_t *seg,
                        uint64_t *end)
{
    while (*top < dd->offset + dd->length) {
        unsigned tag = r->d[*top];
        uint64_t body = *top + 9;
        *top = body + be32(r->d + *top + 5);
        if (tag == TAG_HEAP_DUMP || tag == TAG_HEAP_DUMP_SEGMENT) {
            *seg = body;
            *end = *top;
            return 1;
        }
    }
    return 0;
}

static lr_status pass1(rd *r, const hprof_dump *dd)
{
    const uint8_t *d = r->d;
    unsigned ids = r->ids;
    uint8_t heap = NO_HEAP;
    int objects_before_info = 0;
    uint64_t top = dd->offset, seg, end;
    while (next_segment(r, dd, &top, &seg, &end)) {
        uint64_t p = seg;
        while (p < end) {
            progress_update(&r->prog, p);
            unsigned tag = d[p];
            uint64_t at = p++;
            unsigned rb = root_body(tag, ids);
            if (rb) {
                NEED(p, rb, end, "GC root record");
                p += rb;
                r->n_roots++;
                continue;
            }
            switch (tag) {
            case SUB_INSTANCE_DUMP: {
                NEED(p, 2 * ids + 8, end, "INSTANCE_DUMP");
                uint32_t nb = be32(d + p + 2 * ids + 4);
                p += 2 * ids + 8;
                NEED(p, nb, end, "INSTANCE_DUMP field bytes");
                p += nb;
                r->n_inst++;
                if (heap == NO_HEAP)
                    objects_before_info = 1;
                break;
            }
            case SUB_OBJ_ARRAY_DUMP: {
                NEED(p, 2 * ids + 8, end, "OBJECT_ARRAY_DUMP");
                uint32_t len = be32(d + p + ids + 4);
                p += 2 * ids + 8;
                NEED(p, (uint64_t)len * ids, end, "OBJECT_ARRAY_DUMP elements");
                p += (uint64_t)len * ids;
                r->n_oarr++;
                if (heap == NO_HEAP)
                    objects_before_info = 1;
                break;
            }
            case SUB_PRIM_ARRAY_DUMP:
            case SUB_PRIM_ARRAY_NODATA: {
                NEED(p, ids + 9, end, "PRIMITIVE_ARRAY_DUMP");
                uint32_t len = be32(d + p + ids + 4);
                unsigned t = d[p + ids + 8], sz = type_size(t, ids);
                if (!sz || t == GRAPH_FT_OBJECT)
                    return LR_CORRUPT(r->err, r->name, p + ids + 8,
                                      "primitive array of bad element type %u", t);
                p += ids + 9;
                if (tag == SUB_PRIM_ARRAY_DUMP) {
                    NEED(p, (uint64_t)len * sz, end, "PRIMITIVE_ARRAY_DUMP elements");
                    p += (uint64_t)len * sz;
                } else {
                    diag_count(&r->g->diag, DIAG_PRIM_ARRAY_NODATA);
                }
                r->n_parr++;
                if (heap == NO_HEAP)
                    objects_before_info = 1;
                break;
            }
            case SUB_CLASS_DUMP: {
                uint64_t ce = p;
                uint32_t nst = 0, nf = 0;
                LR_TRY(class_dump_end(r, p, end, &ce, &nst, &nf));
                PUSH(r, r->cls, r->n_cls, r->cap_cls);
                r->cls[r->n_cls++] = (cls_rec){p, ce, heap};
                r->n_statics += nst;
                r->n_fields += nf;
                if (heap == NO_HEAP)
                    objects_before_info = 1;
                p = ce;
                break;
            }
            case SUB_HEAP_DUMP_INFO: {
                NEED(p, 4 + ids, end, "HEAP_DUMP_INFO");
                uint32_t hid = be32(d + p);
                LR_TRY(heap_index(r, hid, rd_id(d + p + 4, ids), at));
                heap = heap_of(r, hid);
                r->have_heap_info = 1;
                p += 4 + ids;
                break;
            }
            default:
                return LR_CORRUPT(r->err, r->name, at, "unknown heap dump sub-record tag 0x%02x",
                                  tag);
            }
        }
    }
    if (r->have_heap_info && objects_before_info) {
        uint8_t dh = 0;
        LR_TRY(default_heap(r, &dh));
        r->default_heap = dh;
        for (uint32_t i = 0; i < r->n_cls; i++)
            if (r->cls[i].heap == NO_HEAP)
                r->cls[i].heap = dh;
    }
    return LR_OK;
}

/* ---- classes ---- */

static int name_is(const graph *g, str_ix s, const char *want)
{
    return strcmp(graph_str(g, s), want) == 0;
}

static lr_status build_classes(rd *r)
{
    graph *g = r->g;
    const uint8_t *d = r->d;
    unsigned ids = r->ids;
    if (r->n_fields > UINT32_MAX || r->n_statics > UINT32_MAX)
        return LR_FAIL(r->err, LR_ERR_LIMIT, "%s: too many fields", r->name);
    uint32_t cap = r->n_cls + 8;
    g->classes = err_calloc(cap, sizeof *g->classes);
    g->fields = err_calloc(r->n_fields ? r->n_fields : 1, sizeof *g->fields);
    g->statics = err_calloc(r->n_statics ? r->n_statics : 1, sizeof *g->statics);
    if (!g->classes || !g->fields || !g->statics)
        return nomem(r);
    uint32_t nf = 0, ns = 0;
    for (uint32_t i = 0; i < r->n_cls; i++) {
        uint64_t p = r->cls[i].off;
        graph_class *c = &g->classes[i];
        c->id = rd_id(d + p, ids);
        c->node = i;
        c->super = GRAPH_NONE;
        c->instance_size = be32(d + p + 7 * ids + 4);
        const lc_ent *lc = find_lc(r, c->id);
        if (lc) {
            LR_TRY(intern_class_name(r, lc->name_id, &c->name));
        } else {
            char buf[48];
            int l = snprintf(buf, sizeof buf, "<unnamed class 0x%llx>", (unsigned long long)c->id);
            diag_count(&g->diag, DIAG_MISSING_STRING);
            LR_TRY(graph_intern(g, buf, (size_t)l, &c->name, r->err));
        }
        p += 7 * ids + 8;
        uint32_t ncp = be16(d + p);
        p += 2;
        for (uint32_t k = 0; k < ncp; k++)
            p += 3 + type_size(d[p + 2], ids);
        uint32_t nst = be16(d + p);
        p += 2;
        c->first_static = ns;
        for (uint32_t k = 0; k < nst; k++) {
            graph_static *s = &g->statics[ns++];
            LR_TRY(intern_id(r, rd_id(d + p, ids), &s->name));
            s->type = d[p + ids];
            unsigned sz = type_size(s->type, ids);
            const uint8_t *v = d + p + ids + 1;
            s->value = sz == 8 ? be64(v) : sz == 4 ? be32(v) : sz == 2 ? be16(v) : v[0];
            p += ids + 1 + sz;
        }
        c->n_statics = nst;
        uint32_t nfl = be16(d + p);
        p += 2;
        c->first_field = nf;
        for (uint32_t k = 0; k < nfl; k++) {
            graph_field *f = &g->fields[nf++];
            LR_TRY(intern_id(r, rd_id(d + p, ids), &f->name));
            f->type = d[p + ids];
            p += ids + 1;
        }
        c->n_fields = nfl;
        const char *nm = graph_str(g, c->name);
        size_t l = strlen(nm);
        if (l > 2 && nm[l - 2] == '[' && nm[l - 1] == ']') {
            c->flags |= GRAPH_CLASS_ARRAY;
            c->elem_type = GRAPH_FT_OBJECT;
            if (l - 2 <= 7 && memchr(nm, '[', l - 2) == NULL)
                for (unsigned t = 4; t < 12; t++)
                    if (strlen(PRIM_NAMES[t]) == l - 2 && memcmp(nm, PRIM_NAMES[t], l - 2) == 0)
                        c->elem_type = (uint8_t)t;
        }
    }
    g->n_classes = r->n_cls;
    g->n_fields = nf;
    g->n_statics = ns;
    LR_TRY(chash_build(r));
    for (uint32_t i = 0; i < r->n_cls; i++) {
        uint64_t sup = rd_id(d + r->cls[i].off + ids + 4, ids);
        if (sup)
            g->classes[i].super = class_find(r, sup);
    }
    /* Refuse superclass cycles and absurd depths before anything walks the chains: later
     * passes (layouts, sizes, reference strengths) cost classes x depth. One pass, linear:
     * depth[c] is 0 while unknown, HPROF_DEPTH_BUSY while c is on the chain being walked. */
    uint32_t *depth = err_calloc(r->n_cls ? r->n_cls : 1, sizeof *depth);
    if (!depth)
        return nomem(r);
    for (uint32_t i = 0; i < r->n_cls; i++) {
        class_ix c = i;
        uint32_t base = 0;
        for (; c != GRAPH_NONE; c = g->classes[c].super) {
            if (depth[c] == HPROF_DEPTH_BUSY) {
                free(depth);
                return LR_CORRUPT(r->err, r->name, r->cls[i].off - 1,
                                  "class 0x%llx has a cyclic superclass chain",
                                  (unsigned long long)g->classes[i].id);
            }
            if (depth[c]) {
                base = depth[c];
                break;
            }
            depth[c] = HPROF_DEPTH_BUSY;
        }
        /* second walk: number the chain from its known end (base) down to i */
        uint32_t n = 0;
        for (class_ix k = i; k != c; k = g->classes[k].super)
            n++;
        if ((uint64_t)base + n > HPROF_MAX_CLASS_DEPTH) {
            free(depth);
            return LR_CORRUPT(r->err, r->name, r->cls[i].off - 1,
                              "class 0x%llx has a superclass chain deeper than %u",
                              (unsigned long long)g->classes[i].id, HPROF_MAX_CLASS_DEPTH);
        }
        for (class_ix k = i; k != c; k = g->classes[k].super)
            depth[k] = base + n--;
    }
    free(depth);
    /* Primitive array classes: the dump's own `int[]` etc. (the last one of a name, as
     * VisualVM's name map keeps), else a synthetic class without a node. */
    for (unsigned t = 0; t < 12; t++)
        r->prim_class[t] = GRAPH_NONE;
    for (uint32_t i = 0; i < g->n_classes; i++) {
        graph_class *c = &g->classes[i];
        if ((c->flags & GRAPH_CLASS_ARRAY) && c->elem_type != GRAPH_FT_OBJECT)
            r->prim_class[c->elem_type] = i;
    }
    return LR_OK;
}

static lr_status synth_prim_class(rd *r, unsigned t, class_ix *out)
{
    graph *g = r->g;
    if (r->prim_class[t] == GRAPH_NONE) {
        char buf[16];
        int l = snprintf(buf, sizeof buf, "%s[]", PRIM_NAMES[t]);
        graph_class *c = &g->classes[g->n_classes];
        memset(c, 0, sizeof *c);
        LR_TRY(graph_intern(g, buf, (size_t)l, &c->name, r->err));
        c->super = GRAPH_NONE;
        c->node = GRAPH_NONE;
        c->flags = GRAPH_CLASS_ARRAY;
        c->elem_type = (uint8_t)t;
        c->first_field = g->n_fields;
        c->first_static = g->n_statics;
        r->prim_class[t] = g->n_classes++;
    }
    *out = r->prim_class[t];
    return LR_OK;
}

/* Static long value of class `cls`'s field `field`, or 0 if absent / not a long. */
static int static_long(const graph *g, const char *cls, const char *field, uint64_t *out)
{
    for (class_ix c = 0; c < g->n_classes; c++) {
        if (!name_is(g, g->classes[c].name, cls))
            continue;
        const graph_class *k = &g->classes[c];
        for (uint32_t i = 0; i < k->n_statics; i++) {
            const graph_static *s = &g->statics[k->first_static + i];
            if (s->type == GRAPH_FT_LONG && name_is(g, s->name, field)) {
                *out = s->value;
                return 1;
            }
        }
        return 0;
    }
    return 0;
}

static int fields_diff(const graph *g, const char *cls, const char *a, const char *b)
{
    uint64_t va, vb;
    if (!static_long(g, cls, a, &va) || !static_long(g, cls, b, &vb))
        return 0;
    int diff = (int)(int64_t)(vb - va);
    return diff == 4 || diff == 8 ? diff : 0;
}

/* VisualVM 2.1.5's object size model (facts read from its heap library): objects have a
 * header of id size + oop size, fields sized as in the dump but references at oop size,
 * instances and arrays aligned to 8, arrays 4 more bytes of header. When java.lang.Object's
 * CLASS_DUMP declares a nonzero instance size, the dump's sizes are taken as they are. */
static void size_model_visualvm(rd *r)
{
    graph *g = r->g;
    unsigned ids = r->ids;
    int new_size = 0;
    uint32_t obj_raw = 0;
    for (class_ix c = 0; c < g->n_classes; c++)
        if (g->classes[c].node != GRAPH_NONE && name_is(g, g->classes[c].name, "java.lang.Object"))
            obj_raw = g->classes[c].instance_size; /* last one wins, as in VisualVM */
    if (obj_raw > 0)
        new_size = 1;
    unsigned oop = ids;
    if (ids == 8) {
        if (new_size) {
            oop = obj_raw - ids;
        } else {
            int df = fields_diff(g, "java.lang.Class$Atomic", "annotationDataOffset",
                                 "annotationTypeOffset");
            if (!df)
                df = fields_diff(g, "java.util.concurrent.FutureTask", "runnerOffset",
                                 "waitersOffset");
            if (df)
                oop = (unsigned)df;
        }
    }
    r->oop = oop;
    r->min_inst = new_size ? obj_raw : ids + oop;
    /* Unaligned sizes need the super's first: sweep until every class is done (the number of
     * sweeps is the hierarchy depth; cycles were refused in build_classes). */
    for (class_ix c = 0; c < g->n_classes; c++)
        r->vv_size[c] = UINT32_MAX;
    for (int changed = 1; changed;) {
        changed = 0;
        for (class_ix c = 0; c < g->n_classes; c++) {
            const graph_class *gc = &g->classes[c];
            if (r->vv_size[c] != UINT32_MAX)
                continue;
            uint64_t s;
            if (new_size) {
                s = gc->instance_size;
            } else {
                if (gc->super != GRAPH_NONE && r->vv_size[gc->super] == UINT32_MAX)
                    continue;
                s = gc->super == GRAPH_NONE ? r->min_inst : r->vv_size[gc->super];
                for (uint32_t f = 0; f < gc->n_fields; f++) {
                    unsigned t = g->fields[gc->first_field + f].type;
                    s += t == GRAPH_FT_OBJECT ? oop : type_size(t, ids);
                }
            }
            r->vv_size[c] = s > UINT32_MAX - 8 ? UINT32_MAX - 8 : (uint32_t)s;
            changed = 1;
        }
    }
    /* Store the aligned value; keep the unaligned one only while computing. */
    if (!new_size)
        for (class_ix c = 0; c < g->n_classes; c++)
            r->vv_size[c] = (r->vv_size[c] + 7u) & ~7u;
    class_ix jlc = GRAPH_NONE;
    for (class_ix c = 0; c < g->n_classes; c++)
        if (g->classes[c].node != GRAPH_NONE && name_is(g, g->classes[c].name, "java.lang.Class"))
            jlc = c;
    r->class_obj_size = jlc == GRAPH_NONE ? 0 : r->vv_size[jlc];
}

static inline uint32_t sat32(rd *r, uint64_t v)
{
    if (v > UINT32_MAX) {
        diag_count(&r->g->diag, DIAG_SIZE_SATURATED);
        return UINT32_MAX;
    }
    return (uint32_t)v;
}

static inline uint32_t vv_array(rd *r, unsigned elsize, uint32_t len)
{
    return sat32(r, ((uint64_t)r->min_inst + 4 + (uint64_t)elsize * len + 7) & ~7ull);
}

/* ---- pass 2: fill nodes and roots ---- */

static uint8_t root_kind(unsigned tag)
{
    switch (tag) {
    case SUB_ROOT_JNI_GLOBAL: return GRAPH_ROOT_JNI_GLOBAL;
    case SUB_ROOT_JNI_LOCAL: return GRAPH_ROOT_JNI_LOCAL;
    case SUB_ROOT_JAVA_FRAME: return GRAPH_ROOT_JAVA_FRAME;
    case SUB_ROOT_NATIVE_STACK: return GRAPH_ROOT_NATIVE_STACK;
    case SUB_ROOT_STICKY_CLASS: return GRAPH_ROOT_STICKY_CLASS;
    case SUB_ROOT_THREAD_BLOCK: return GRAPH_ROOT_THREAD_BLOCK;
    case SUB_ROOT_MONITOR_USED: return GRAPH_ROOT_MONITOR_USED;
    case SUB_ROOT_THREAD_OBJECT: return GRAPH_ROOT_THREAD_OBJECT;
    case SUB_ROOT_INTERNED_STRING: return GRAPH_ROOT_INTERNED_STRING;
    case SUB_ROOT_FINALIZING: return GRAPH_ROOT_FINALIZING;
    case SUB_ROOT_DEBUGGER: return GRAPH_ROOT_DEBUGGER;
    case SUB_ROOT_REFERENCE_CLEANUP: return GRAPH_ROOT_REFERENCE_CLEANUP;
    case SUB_ROOT_VM_INTERNAL: return GRAPH_ROOT_VM_INTERNAL;
    case SUB_ROOT_JNI_MONITOR: return GRAPH_ROOT_JNI_MONITOR;
    case SUB_ROOT_UNREACHABLE: return GRAPH_ROOT_UNREACHABLE;
    }
    return GRAPH_ROOT_UNKNOWN;
}

static lr_status pass2(rd *r, const hprof_dump *dd)
{
    graph *g = r->g;
    const uint8_t *d = r->d;
    const unsigned ids = r->ids;
    const int shark = r->android;
    const int full = !r->no_edges;
    uint64_t *nid = g->node_id, *noff = g->node_off; /* noff: record offsets, see hp_state */
    uint32_t *nsize = g->node_size; /* only without edges: otherwise read back (hp_node_size) */
    class_ix *ncls = g->node_class;
    uint8_t *nkind = g->node_kind, *ntype = g->node_type, *nheap = g->node_heap;
    uint8_t heap = r->default_heap; /* objects before the first HEAP_DUMP_INFO */
    node_ix ni = r->n_cls; /* class nodes come first */
    uint32_t nroot = 0, next_cls = 0;
    uint64_t last_cid = 0;
    class_ix last_c = GRAPH_NONE;
    uint32_t last_size = 0;
    int have_last = 0;
    uint64_t top = dd->offset, seg, end;
    while (next_segment(r, dd, &top, &seg, &end)) {
        uint64_t p = seg;
        while (p < end) {
            progress_update(&r->prog, r->n + p);
            unsigned tag = d[p];
            p++;
            unsigned rb = root_body(tag, ids);
            if (rb) {
                if (full) {
                    graph_root *rt = &g->roots[nroot];
                    r->root_ids[nroot] = rd_id(d + p, ids);
                    rt->kind = root_kind(tag);
                    rt->thread = 0;
                    rt->frame = -1;
                    if (tag == SUB_ROOT_JNI_LOCAL || tag == SUB_ROOT_JAVA_FRAME ||
                        tag == SUB_ROOT_JNI_MONITOR) {
                        rt->thread = be32(d + p + ids);
                        rt->frame = (int32_t)be32(d + p + ids + 4);
                    } else if (tag == SUB_ROOT_NATIVE_STACK || tag == SUB_ROOT_THREAD_BLOCK ||
                               tag == SUB_ROOT_THREAD_OBJECT) {
                        rt->thread = be32(d + p + ids);
                        if (tag == SUB_ROOT_THREAD_OBJECT)
                            rt->frame = (int32_t)be32(d + p + ids + 4); /* trace serial, kept
                                                                         * until threads */
                    }
                    nroot++;
                }
                p += rb;
                continue;
            }
            switch (tag) {
            case SUB_INSTANCE_DUMP: {
                uint64_t cid = rd_id(d + p + ids + 4, ids);
                uint32_t nb = be32(d + p + 2 * ids + 4);
                if (!have_last || cid != last_cid) {
                    last_cid = cid;
                    have_last = 1;
                    last_c = class_find(r, cid);
                    if (last_c == GRAPH_NONE)
                        last_size = shark ? 0 : ((r->min_inst + 7u) & ~7u);
                    else
                        last_size = shark ? g->classes[last_c].instance_size : r->vv_size[last_c];
                }
                if (last_c == GRAPH_NONE)
                    diag_count(&g->diag, DIAG_UNKNOWN_CLASS);
                if (full) {
                    nid[ni] = rd_id(d + p, ids);
                    noff[ni] = p;
                }
                ncls[ni] = last_c;
                if (nsize)
                    nsize[ni] = last_size;
                nkind[ni] = GRAPH_KIND_INSTANCE;
                ntype[ni] = GRAPH_KIND_INSTANCE;
                if (nheap)
                    nheap[ni] = heap;
                ni++;
                p += 2 * ids + 8 + nb;
                break;
            }
            case SUB_OBJ_ARRAY_DUMP: {
                uint32_t len = be32(d + p + ids + 4);
                uint64_t cid = rd_id(d + p + ids + 8, ids);
                class_ix c = class_find(r, cid);
                if (c == GRAPH_NONE)
                    diag_count(&g->diag, DIAG_UNKNOWN_CLASS);
                if (full) {
                    nid[ni] = rd_id(d + p, ids);
                    noff[ni] = p;
                }
                ncls[ni] = c;
                uint32_t sz = shark ? sat32(r, (uint64_t)len * ids) : vv_array(r, r->oop, len);
                if (nsize)
                    nsize[ni] = sz;
                nkind[ni] = GRAPH_KIND_OBJ_ARRAY;
                ntype[ni] = GRAPH_KIND_OBJ_ARRAY;
                if (nheap)
                    nheap[ni] = heap;
                ni++;
                p += 2 * ids + 8 + (uint64_t)len * ids;
                break;
            }
            case SUB_PRIM_ARRAY_DUMP:
            case SUB_PRIM_ARRAY_NODATA: {
                uint32_t len = be32(d + p + ids + 4);
                unsigned t = d[p + ids + 8], sz = type_size(t, ids);
                class_ix c;
                LR_TRY(synth_prim_class(r, t, &c));
                if (full) {
                    nid[ni] = rd_id(d + p, ids);
                    noff[ni] = p;
                }
                ncls[ni] = c;
                uint32_t size = shark ? sat32(r, (uint64_t)len * sz) : vv_array(r, sz, len);
                if (nsize)
                    nsize[ni] = size;
                nkind[ni] = GRAPH_KIND_PRIM_ARRAY;
                ntype[ni] = GRAPH_KIND_PRIM_ARRAY;
                if (nheap)
                    nheap[ni] = heap;
                ni++;
                p += ids + 9;
                if (tag == SUB_PRIM_ARRAY_DUMP)
                    p += (uint64_t)len * sz;
                break;
            }
            case SUB_CLASS_DUMP: {
                LR_ASSERT(next_cls < r->n_cls && r->cls[next_cls].off == p);
                p = r->cls[next_cls].end;
                next_cls++;
                break;
            }
            case SUB_HEAP_DUMP_INFO:
                heap = heap_of(r, be32(d + p));
                p += 4 + ids;
                break;
            default:
                return LR_CORRUPT(r->err, r->name, p - 1, "unknown heap dump sub-record tag 0x%02x",
                                  tag);
            }
        }
    }
    LR_ASSERT(ni == g->n_nodes);
    /* Class nodes. */
    for (uint32_t i = 0; i < r->n_cls; i++) {
        const graph_class *c = &g->classes[i];
        if (full) {
            nid[i] = c->id;
            noff[i] = r->cls[i].off;
        }
        ncls[i] = GRAPH_NONE;
        uint32_t sz = shark ? sat32(r, r->cls[i].end - r->cls[i].off + 1) : r->class_obj_size;
        if (nsize)
            nsize[i] = sz;
        nkind[i] = GRAPH_KIND_CLASS;
        ntype[i] = GRAPH_KIND_CLASS;
        if (nheap)
            nheap[i] = r->cls[i].heap == NO_HEAP ? 0 : r->cls[i].heap;
    }
    if (full)
        g->n_roots = nroot;
    return LR_OK;
}

/* ---- reference strengths and layouts ---- */

static uint8_t strength_of_name(const char *n)
{
    if (!strcmp(n, "java.lang.ref.WeakReference"))
        return GRAPH_WEAK;
    if (!strcmp(n, "java.lang.ref.SoftReference"))
        return GRAPH_SOFT;
    if (!strcmp(n, "java.lang.ref.PhantomReference") || !strcmp(n, "jdk.internal.ref.Cleaner") ||
        !strcmp(n, "sun.misc.Cleaner"))
        return GRAPH_PHANTOM;
    if (!strcmp(n, "java.lang.ref.Finalizer") || !strcmp(n, "java.lang.ref.FinalizerReference"))
        return GRAPH_FINALIZER;
    return GRAPH_STRONG;
}

static void set_ref_strengths(graph *g)
{
    for (class_ix c = 0; c < g->n_classes; c++) {
        uint8_t s = GRAPH_STRONG;
        for (class_ix k = c; k != GRAPH_NONE; k = g->classes[k].super) {
            s = strength_of_name(graph_str(g, g->classes[k].name));
            if (s != GRAPH_STRONG)
                break;
        }
        g->classes[c].ref_strength = s;
    }
}

static lr_status build_layouts(rd *r)
{
    graph *g = r->g;
    unsigned ids = r->ids;
    uint32_t nc = g->n_classes;
    r->layout_bytes = err_calloc(nc + 1, sizeof *r->layout_bytes);
    r->first_ref = err_calloc(nc + 1, sizeof *r->first_ref);
    if (!r->layout_bytes || !r->first_ref)
        return nomem(r);
    str_ix referent;
    LR_TRY(graph_intern(g, "referent", 8, &referent, r->err));
    uint64_t total = 0;
    for (class_ix c = 0; c < nc; c++) {
        uint64_t bytes = 0, nref = 0;
        for (class_ix k = c; k != GRAPH_NONE; k = g->classes[k].super)
            for (uint32_t f = 0; f < g->classes[k].n_fields; f++) {
                unsigned t = g->fields[g->classes[k].first_field + f].type;
                bytes += type_size(t, ids);
                nref += t == GRAPH_FT_OBJECT;
            }
        r->layout_bytes[c] = bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes;
        r->first_ref[c] = (uint32_t)total;
        total += nref;
        if (total > HPROF_MAX_LAYOUT_REFS)
            return LR_CORRUPT(r->err, r->name, c < r->n_cls ? r->cls[c].off - 1 : 0,
                              "class layouts need more than %u reference slots (class 0x%llx)",
                              HPROF_MAX_LAYOUT_REFS, (unsigned long long)g->classes[c].id);
    }
    r->first_ref[nc] = (uint32_t)total;
    r->refs = err_mallocarray(total ? total : 1, sizeof *r->refs);
    if (!r->refs)
        return nomem(r);
    uint32_t k_out = 0;
    for (class_ix c = 0; c < nc; c++) {
        uint32_t off = 0;
        uint8_t st = g->classes[c].ref_strength;
        for (class_ix k = c; k != GRAPH_NONE; k = g->classes[k].super) {
            const graph_class *kc = &g->classes[k];
            int is_ref_base = st != GRAPH_STRONG && name_is(g, kc->name, "java.lang.ref.Reference");
            for (uint32_t f = 0; f < kc->n_fields; f++) {
                const graph_field *fd = &g->fields[kc->first_field + f];
                if (fd->type == GRAPH_FT_OBJECT) {
                    uint8_t strength = is_ref_base && fd->name == referent ? st : GRAPH_STRONG;
                    r->refs[k_out++] =
                        (ref_slot){off, kc->first_field + f,
                                   GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, strength)};
                }
                off += type_size(fd->type, ids);
            }
        }
    }
    LR_ASSERT(k_out == total);
    return LR_OK;
}

/* ---- edges ---- */

static int cmp_by_node(const void *a, const void *b, void *ctx)
{
    const graph_class *cl = ctx;
    node_ix x = cl[*(const class_ix *)a].node, y = cl[*(const class_ix *)b].node;
    return x < y ? -1 : x > y;
}

/* One thread's share of build_edges: nodes [lo, hi), edges written from `at` on. */
typedef struct edge_part {
    rd *r;
    const class_ix *by_node; /* classes ordered by their node */
    node_ix lo, hi;
    uint32_t next_class;     /* by_node index of the first class node in [lo, hi) */
    edge_ix at;              /* first edge slot; then one past the last edge written */
    uint64_t dangling;
    int failed;              /* a class node out of order (a bug, not bad input) */
} edge_part;

static void *edge_part_run(void *arg)
{
    edge_part *ep = arg;
    rd *r = ep->r;
    graph *g = r->g;
    const uint8_t *d = r->d;
    const unsigned ids = r->ids;
    node_ix *to = g->edge_to;
    uint8_t *kd = g->edge_kind; /* names are read back from the records (hp_edge_name) */
    const uint8_t k_elem = GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG);
    uint32_t e = ep->at, next_class = ep->next_class;
    uint64_t dangling = 0;
    for (node_ix i = ep->lo; i < ep->hi; i++) {
        g->first_edge[i] = e;
        switch (g->node_kind[i]) {
        case GRAPH_KIND_INSTANCE: {
            class_ix c = g->node_class[i];
            if (c == GRAPH_NONE)
                break;
            const uint8_t *fb = d + g->node_off[i] + 2 * ids + 8;
            uint32_t len = be32(d + g->node_off[i] + 2 * ids + 4);
            for (uint32_t k = r->first_ref[c], ke = r->first_ref[c + 1]; k < ke; k++) {
                const ref_slot *s = &r->refs[k];
                if (s->off + ids > len)
                    break; /* short instance: the missing fields read as absent */
                uint64_t id = rd_id(fb + s->off, ids);
                if (!id)
                    continue;
                node_ix t = node_find(r, id);
                if (t == GRAPH_NONE) {
                    dangling++;
                    continue;
                }
                to[e] = t;
                kd[e] = s->kind;
                e++;
            }
            break;
        }
        case GRAPH_KIND_OBJ_ARRAY: {
            const uint8_t *el = d + g->node_off[i] + 2 * ids + 8;
            uint32_t len = be32(d + g->node_off[i] + ids + 4);
            for (uint32_t k = 0; k < len; k++) {
                uint64_t id = rd_id(el + (uint64_t)k * ids, ids);
                if (!id)
                    continue;
                node_ix t = node_find(r, id);
                if (t == GRAPH_NONE) {
                    dangling++;
                    continue;
                }
                to[e] = t;
                kd[e] = k_elem;
                e++;
            }
            break;
        }
        case GRAPH_KIND_CLASS: {
            /* Class nodes appear in the order of by_node. */
            class_ix ci = ep->by_node[next_class++];
            if (g->classes[ci].node != i) {
                ep->failed = 1;
                return NULL;
            }
            const uint8_t *cb = d + g->node_off[i];
            /* super, loader, signers, protection domain follow the id and stack serial */
            for (int k = 0; k < 4; k++) {
                uint64_t id = rd_id(cb + ids + 4 + (uint64_t)k * ids, ids);
                if (!id)
                    continue;
                node_ix t = node_find(r, id);
                if (t == GRAPH_NONE) {
                    dangling++;
                    continue;
                }
                to[e] = t;
                kd[e] = GRAPH_EDGE_MAKE(GRAPH_EDGE_INTERNAL, GRAPH_STRONG);
                e++;
            }
            const graph_class *gc = &g->classes[ci];
            for (uint32_t k = 0; k < gc->n_statics; k++) {
                const graph_static *s = &g->statics[gc->first_static + k];
                if (s->type != GRAPH_FT_OBJECT || !s->value)
                    continue;
                node_ix t = node_find(r, s->value);
                if (t == GRAPH_NONE) {
                    dangling++;
                    continue;
                }
                to[e] = t;
                kd[e] = GRAPH_EDGE_MAKE(GRAPH_EDGE_STATIC, GRAPH_STRONG);
                e++;
            }
            break;
        }
        }
    }
    ep->at = e;
    ep->dangling = dangling;
    return NULL;
}

/* Reference slots node i may turn into edges (nulls and dangling ids included). */
static uint64_t edge_bound(const rd *r, node_ix i)
{
    const graph *g = r->g;
    switch (g->node_kind[i]) {
    case GRAPH_KIND_INSTANCE: {
        class_ix c = g->node_class[i];
        return c == GRAPH_NONE ? 0 : r->first_ref[c + 1] - r->first_ref[c];
    }
    case GRAPH_KIND_OBJ_ARRAY: return be32(r->d + g->node_off[i] + r->ids + 4);
    case GRAPH_KIND_CLASS: return 0; /* counted per class below */
    default: return 0;
    }
}

/* Resolving every reference to a node index is most of the load time of a large dump (one
 * id lookup each), so two threads take half the reference slots each, writing into disjoint
 * ranges of the edge arrays sized for the worst case; the second range then moves down. */
static lr_status build_edges(rd *r)
{
    class_ix *by_node;
    graph *g = r->g;
    uint32_t n = g->n_nodes;
    /* Upper bound: every reference slot, null or not. */
    uint64_t bound = 0;
    for (node_ix i = 0; i < n; i++)
        bound += edge_bound(r, i);
    for (class_ix c = 0; c < r->n_cls; c++)
        bound += 4 + g->classes[c].n_statics;
    LR_TRY(graph_check_size(g, 0, bound, "reference slots (null or not)", r->err));
    g->first_edge = err_mallocarray((size_t)n + 1, sizeof *g->first_edge);
    g->edge_to = err_mallocarray(bound ? bound : 1, sizeof *g->edge_to);
    g->edge_kind = err_mallocarray(bound ? bound : 1, sizeof *g->edge_kind);
    if (!g->first_edge || !g->edge_to || !g->edge_kind)
        return nomem(r);
    static const char *const INTERNAL[4] = {"<super>", "<classloader>", "<signers>",
                                            "<protection_domain>"};
    for (int k = 0; k < 4; k++)
        LR_TRY(graph_intern(g, INTERNAL[k], strlen(INTERNAL[k]), &r->inames[k], r->err));
    by_node = err_mallocarray(r->n_cls + 1, sizeof *by_node);
    if (!by_node)
        return nomem(r);
    for (class_ix c = 0; c < r->n_cls; c++)
        by_node[c] = c;
    qsort_r(by_node, r->n_cls, sizeof *by_node, cmp_by_node, g->classes);

    /* The split: the first node past half the slots (class slots counted where they are). */
    edge_part parts[2] = {{r, by_node, 0, n, 0, 0, 0, 0}, {r, by_node, n, n, r->n_cls, 0, 0, 0}};
    if (n > 100000) {
        uint64_t acc = 0;
        uint32_t cls_seen = 0;
        for (node_ix i = 0; i < n; i++) {
            if (acc >= bound / 2) {
                parts[0].hi = parts[1].lo = i;
                parts[1].next_class = cls_seen;
                parts[1].at = (edge_ix)acc;
                break;
            }
            if (g->node_kind[i] == GRAPH_KIND_CLASS) {
                acc += 4 + g->classes[by_node[cls_seen]].n_statics;
                cls_seen++;
            } else {
                acc += edge_bound(r, i);
            }
        }
    }
    pthread_t th;
    int threaded = parts[1].lo < n && pthread_create(&th, NULL, edge_part_run, &parts[1]) == 0;
    edge_part_run(&parts[0]);
    if (threaded)
        pthread_join(th, NULL);
    else if (parts[1].lo < n)
        edge_part_run(&parts[1]);
    free(by_node);
    if (parts[0].failed || parts[1].failed)
        return LR_FAIL(r->err, LR_ERR_INTERNAL, "%s: class nodes out of order", r->name);
    uint32_t e = parts[0].at;
    if (parts[1].lo < n) {
        /* close the gap the first part's nulls and dangling ids left */
        uint32_t from = (uint32_t)parts[1].lo < n ? g->first_edge[parts[1].lo] : e;
        uint32_t cnt = parts[1].at - from, shift = from - e;
        memmove(g->edge_to + e, g->edge_to + from, (size_t)cnt * sizeof *g->edge_to);
        memmove(g->edge_kind + e, g->edge_kind + from, cnt);
        for (node_ix i = parts[1].lo; i < n; i++)
            g->first_edge[i] -= shift;
        e += cnt;
    }
    g->first_edge[n] = e;
    g->n_edges = e;
    diag_add(&g->diag, DIAG_DANGLING_REFERENCE, parts[0].dangling + parts[1].dangling);
    /* Give back what nulls and dangling references did not use. */
    if (e < bound) {
        size_t k = e ? e : 1;
        void *p;
        if ((p = realloc(g->edge_to, k * sizeof *g->edge_to)))
            g->edge_to = p;
        if ((p = realloc(g->edge_kind, k * sizeof *g->edge_kind)))
            g->edge_kind = p;
    }
    return LR_OK;
}

/* ---- roots and threads ---- */

static int cmp_root(const void *a, const void *b, void *ctx)
{
    const graph_root *roots = ctx;
    const graph_root *x = &roots[*(const uint32_t *)a], *y = &roots[*(const uint32_t *)b];
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* Threads come from THREAD_OBJECT roots (dangling ones included, node GRAPH_NONE). */
static lr_status build_threads(rd *r, const uint32_t *thr_serial, const uint32_t *thr_trace,
                               const node_ix *thr_node, uint32_t n_thr)
{
    graph *g = r->g;
    const uint8_t *d = r->d;
    unsigned ids = r->ids;
    if (!n_thr)
        return LR_OK;
    if (r->n_frames)
        qsort(r->frames, r->n_frames, sizeof *r->frames, cmp_frame);
    if (r->n_traces)
        qsort(r->traces, r->n_traces, sizeof *r->traces, cmp_trace);
    /* Frames to allocate: the traces of the threads. */
    uint64_t nf = 0;
    for (uint32_t t = 0; t < n_thr; t++) {
        trace_ent key = {thr_trace[t], 0};
        trace_ent *tr =
            r->n_traces ? bsearch(&key, r->traces, r->n_traces, sizeof key, cmp_trace) : NULL;
        if (tr)
            nf += be32(d + tr->off + 8);
    }
    if (nf > UINT32_MAX)
        return LR_FAIL(r->err, LR_ERR_LIMIT, "%s: too many stack frames", r->name);
    g->threads = err_calloc(n_thr, sizeof *g->threads);
    g->frames = err_calloc(nf ? nf : 1, sizeof *g->frames);
    if (!g->threads || !g->frames)
        return nomem(r);
    uint32_t fo = 0;
    for (uint32_t t = 0; t < n_thr; t++) {
        graph_thread *th = &g->threads[t];
        th->node = thr_node[t];
        th->serial = thr_serial[t];
        th->trace_serial = thr_trace[t];
        th->first_frame = fo;
        trace_ent key = {thr_trace[t], 0};
        trace_ent *tr =
            r->n_traces ? bsearch(&key, r->traces, r->n_traces, sizeof key, cmp_trace) : NULL;
        if (!tr)
            continue;
        uint32_t cnt = be32(d + tr->off + 8);
        for (uint32_t k = 0; k < cnt; k++) {
            uint64_t fid = rd_id(d + tr->off + 12 + (uint64_t)k * ids, ids);
            frame_ent fk = {fid, 0};
            frame_ent *fr =
                r->n_frames ? bsearch(&fk, r->frames, r->n_frames, sizeof fk, cmp_frame) : NULL;
            graph_frame *gf = &g->frames[fo++];
            gf->method = gf->signature = gf->source = gf->class_name = GRAPH_NONE;
            gf->line = -1;
            if (!fr)
                continue;
            const uint8_t *b = d + fr->off;
            LR_TRY(intern_id(r, rd_id(b + ids, ids), &gf->method));
            LR_TRY(intern_id(r, rd_id(b + 2 * ids, ids), &gf->signature));
            uint64_t src = rd_id(b + 3 * ids, ids);
            if (src && find_str(r, src))
                LR_TRY(intern_id(r, src, &gf->source));
            uint32_t cser = be32(b + 4 * ids);
            gf->line = (int32_t)be32(b + 4 * ids + 4);
            for (uint32_t l = 0; l < r->n_lcs; l++)
                if (r->lcs[l].serial == cser) {
                    LR_TRY(intern_class_name(r, r->lcs[l].name_id, &gf->class_name));
                    break;
                }
        }
        th->n_frames = fo - th->first_frame;
    }
    g->n_threads = n_thr;
    g->n_frames = fo;
    return LR_OK;
}

static lr_status resolve_roots(rd *r)
{
    graph *g = r->g;
    uint32_t n = g->n_roots, k = 0;
    uint32_t n_thr = 0;
    for (uint32_t i = 0; i < n; i++)
        n_thr += g->roots[i].kind == GRAPH_ROOT_THREAD_OBJECT;
    uint32_t *thr_serial = err_mallocarray(n_thr + 1, sizeof *thr_serial);
    uint32_t *thr_trace = err_mallocarray(n_thr + 1, sizeof *thr_trace);
    node_ix *thr_node = err_mallocarray(n_thr + 1, sizeof *thr_node);
    uint32_t *order = err_mallocarray(n + 1, sizeof *order);
    lr_status st = LR_OK;
    if (!thr_serial || !thr_trace || !thr_node || !order) {
        st = nomem(r);
        goto out;
    }
    uint32_t t = 0;
    for (uint32_t i = 0; i < n; i++) {
        graph_root rt = g->roots[i];
        uint64_t id = r->root_ids[i];
        node_ix node = id ? node_find(r, id) : GRAPH_NONE;
        if (rt.kind == GRAPH_ROOT_THREAD_OBJECT) {
            thr_serial[t] = rt.thread;
            thr_trace[t] = (uint32_t)rt.frame;
            thr_node[t] = node;
            t++;
            rt.frame = -1;
        }
        if (!id) {
            diag_count(&g->diag, DIAG_NULL_ROOT);
            continue;
        }
        if (node == GRAPH_NONE) {
            diag_count(&g->diag, DIAG_DANGLING_ROOT);
            continue;
        }
        rt.node = node;
        g->roots[k++] = rt;
    }
    g->n_roots = k;
    /* Repeated (node, kind) pairs stay (docs/graph.md) and are counted. */
    for (uint32_t i = 0; i < k; i++)
        order[i] = i;
    if (k)
        qsort_r(order, k, sizeof *order, cmp_root, g->roots);
    for (uint32_t i = 1; i < k; i++) {
        const graph_root *a = &g->roots[order[i - 1]], *b = &g->roots[order[i]];
        if (a->node == b->node && a->kind == b->kind)
            diag_count(&g->diag, DIAG_DUPLICATE_ROOT);
    }
    st = build_threads(r, thr_serial, thr_trace, thr_node, n_thr);
out:
    free(thr_serial);
    free(thr_trace);
    free(thr_node);
    free(order);
    return st;
}

/* ---- entry ---- */

static void rd_free(rd *r)
{
    free(r->strs);
    free(r->lcs);
    free(r->frames);
    free(r->traces);
    free(r->dumps);
    free(r->cls);
    hmap_free(&r->chash);
    free(r->layout_bytes);
    free(r->first_ref);
    free(r->refs);
    free(r->vv_size);
    free(r->root_ids);
    free(r->scratch);
}

static int sorted_by(const void *base, uint32_t n, size_t sz,
                     int (*cmp)(const void *, const void *))
{
    const char *b = base;
    for (uint32_t i = 1; i < n; i++)
        if (cmp(b + (i - 1) * sz, b + i * sz) > 0)
            return 0;
    return 1;
}

/* Ids repeated by two object records: lookups find one of them. */
static void count_duplicate_ids(graph *g)
{
    for (uint32_t k = 1; k < g->n_nodes; k++) {
        uint64_t a = g->ids_sorted ? g->node_id[k - 1] : g->node_id[g->id_sorted[k - 1]];
        uint64_t b = g->ids_sorted ? g->node_id[k] : g->node_id[g->id_sorted[k]];
        if (a == b)
            diag_count(&g->diag, DIAG_DUPLICATE_ID);
    }
}

/* ---- values read back from the records (graph.derive) ----
 * Ids, payload lengths, shallow sizes and edge names are a pure function of a node's record
 * and the class tables, so an HPROF graph stores only where each record starts: that halves
 * the graph's memory, and every read below is a few loads from the mapped input. */

static inline uint64_t hp_rec(const hp_state *st, node_ix n)
{
    return st->rec32 ? st->rec32[n] : st->rec64[n];
}

static uint64_t hp_node_id(const graph *g, node_ix n)
{
    const hp_state *st = g->fmt_state;
    return rd_id(g->data + hp_rec(st, n), st->ids);
}

static uint32_t hp_node_len(const graph *g, node_ix n)
{
    const hp_state *st = g->fmt_state;
    const uint8_t *p = g->data + hp_rec(st, n);
    switch (g->node_kind[n]) {
    case GRAPH_KIND_INSTANCE: return be32(p + 2 * st->ids + 4);
    case GRAPH_KIND_OBJ_ARRAY:
    case GRAPH_KIND_PRIM_ARRAY: return be32(p + st->ids + 4);
    default: {
        class_ix c = graph_class_of_node(g, n);
        return c < st->n_cls ? st->cls_len[c] : 0;
    }
    }
}

static uint64_t hp_node_off(const graph *g, node_ix n)
{
    const hp_state *st = g->fmt_state;
    uint64_t rec = hp_rec(st, n);
    switch (g->node_kind[n]) {
    case GRAPH_KIND_INSTANCE:
    case GRAPH_KIND_OBJ_ARRAY: return rec + 2 * st->ids + 8;
    case GRAPH_KIND_PRIM_ARRAY:
        return g->data[rec - 1] == SUB_PRIM_ARRAY_NODATA ? UINT64_MAX : rec + st->ids + 9;
    default: return rec; /* a class: its CLASS_DUMP body */
    }
}

static uint32_t hp_sat(uint64_t v) { return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; }

/* The same values pass 2 computes (it counts the saturations once, at load). */
static uint32_t hp_node_size(const graph *g, node_ix n)
{
    const hp_state *st = g->fmt_state;
    const uint8_t *p = g->data + hp_rec(st, n);
    unsigned ids = st->ids;
    switch (g->node_kind[n]) {
    case GRAPH_KIND_INSTANCE: {
        class_ix c = g->node_class[n];
        return c == GRAPH_NONE ? st->unknown_size : st->inst_size[c];
    }
    case GRAPH_KIND_OBJ_ARRAY:
    case GRAPH_KIND_PRIM_ARRAY: {
        uint32_t len = be32(p + ids + 4);
        unsigned el = g->node_kind[n] == GRAPH_KIND_OBJ_ARRAY ? (st->shark ? ids : st->oop)
                                                               : type_size(p[ids + 8], ids);
        if (st->shark)
            return hp_sat((uint64_t)len * el);
        return hp_sat(((uint64_t)st->min_inst + 4 + (uint64_t)el * len + 7) & ~7ull);
    }
    default: {
        if (!st->shark)
            return st->class_obj_size;
        class_ix c = graph_class_of_node(g, n);
        return c < st->n_cls ? hp_sat((uint64_t)st->cls_len[c] + 1) : 0;
    }
    }
}

/* Name of edge e out of `from`: its slots are walked again in build_edges' order, each
 * non-null one matched against the next edge's target (a slot whose id names no object made
 * no edge). Callers mostly ask for a node's edges one after another, so the walk resumes
 * where the previous call stopped instead of starting over (one cursor per thread). */
typedef struct hp_cursor {
    uint64_t serial; /* hp_state.serial: a graph at a reused address is another graph */
    node_ix from;
    edge_ix next; /* the edge the walk reaches next */
    uint32_t slot;  /* and the slot it resumes at */
} hp_cursor;
static _Thread_local hp_cursor hp_cur;

static uint32_t hp_edge_name(const graph *g, node_ix from, edge_ix e)
{
    const hp_state *st = g->fmt_state;
    const uint8_t *d = g->data;
    unsigned ids = st->ids;
    uint64_t rec = hp_rec(st, from);
    hp_cursor c = {st->serial, from, g->first_edge[from], 0};
    if (hp_cur.serial == st->serial && hp_cur.from == from && hp_cur.next <= e)
        c = hp_cur;
    unsigned kind = g->node_kind[from];
    uint32_t n_slots;
    class_ix cls = GRAPH_NONE;
    const uint8_t *base;
    switch (kind) {
    case GRAPH_KIND_INSTANCE: {
        cls = g->node_class[from];
        if (cls == GRAPH_NONE)
            return GRAPH_NONE;
        n_slots = st->first_ref[cls + 1] - st->first_ref[cls];
        base = d + rec + 2 * ids + 8;
        break;
    }
    case GRAPH_KIND_OBJ_ARRAY:
        n_slots = be32(d + rec + ids + 4);
        base = d + rec + 2 * ids + 8;
        break;
    case GRAPH_KIND_CLASS:
        cls = graph_class_of_node(g, from);
        if (cls >= st->n_cls)
            return GRAPH_NONE;
        n_slots = 4 + g->classes[cls].n_statics;
        base = d + rec;
        break;
    default: return GRAPH_NONE;
    }
    uint32_t len = kind == GRAPH_KIND_INSTANCE ? be32(d + rec + 2 * ids + 4) : 0;
    for (; c.slot < n_slots && c.next < g->first_edge[from + 1]; c.slot++) {
        uint64_t id;
        uint32_t name;
        if (kind == GRAPH_KIND_INSTANCE) {
            const ref_slot *s = &st->refs[st->first_ref[cls] + c.slot];
            if (s->off + ids > len)
                break;
            id = rd_id(base + s->off, ids);
            name = g->fields[s->field].name;
        } else if (kind == GRAPH_KIND_OBJ_ARRAY) {
            id = rd_id(base + (uint64_t)c.slot * ids, ids);
            name = c.slot;
        } else if (c.slot < 4) {
            id = rd_id(base + ids + 4 + (uint64_t)c.slot * ids, ids);
            name = st->inames[c.slot];
        } else {
            const graph_static *sf = &g->statics[g->classes[cls].first_static + c.slot - 4];
            id = sf->type == GRAPH_FT_OBJECT ? sf->value : 0;
            name = sf->name;
        }
        if (!id || rd_id(d + hp_rec(st, g->edge_to[c.next]), ids) != id)
            continue; /* null, or dangling: no edge */
        if (c.next++ == e) {
            c.slot++;
            hp_cur = c;
            return name;
        }
    }
    return GRAPH_NONE;
}

static const graph_derive HP_DERIVE = {hp_node_id, hp_node_len, hp_node_size, hp_node_off,
                                       hp_edge_name};

static void hp_state_free(void *p)
{
    hp_state *st = p;
    if (!st)
        return;
    free(st->rec32);
    free(st->rec64);
    free(st->first_ref);
    free(st->refs);
    free(st->inst_size);
    free(st->cls_len);
    free(st);
}

/* Hands the per-class tables over to the graph and drops the per-node ids and 64-bit record
 * offsets that loading needed: from here on graph.derive reads them back. */
static lr_status hp_compact(rd *r)
{
    graph *g = r->g;
    uint32_t n = g->n_nodes, nc = g->n_classes;
    hp_state *st = err_calloc(1, sizeof *st);
    if (!st)
        return nomem(r);
    g->fmt_state = st;
    g->fmt_free = hp_state_free;
    static uint64_t serials;
    st->serial = __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);
    st->ids = r->ids;
    st->shark = r->android;
    st->oop = r->oop;
    st->min_inst = r->min_inst;
    st->class_obj_size = r->class_obj_size;
    st->unknown_size = r->android ? 0 : ((r->min_inst + 7u) & ~7u);
    memcpy(st->inames, r->inames, sizeof st->inames);
    st->first_ref = r->first_ref;
    st->refs = r->refs;
    r->first_ref = NULL;
    r->refs = NULL;
    if (!(st->inst_size = err_mallocarray(nc + 1, sizeof *st->inst_size)))
        return nomem(r);
    for (class_ix c = 0; c < nc; c++)
        st->inst_size[c] = r->android ? g->classes[c].instance_size : r->vv_size[c];
    st->n_cls = r->n_cls;
    if (!(st->cls_len = err_mallocarray(r->n_cls ? r->n_cls : 1, sizeof *st->cls_len)))
        return nomem(r);
    for (class_ix c = 0; c < r->n_cls; c++)
        st->cls_len[c] = sat32(r, r->cls[c].end - r->cls[c].off);
    LR_TRY(graph_index_class_nodes(g, r->err));
    free(g->node_id);
    g->node_id = NULL;
    if (r->n <= UINT32_MAX) {
        /* narrowed in place: entry i is read at byte 8i before 4i is written, so no entry is
         * overwritten before it is read, and the array never exists twice */
        unsigned char *b = (unsigned char *)g->node_off;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t wide;
            memcpy(&wide, b + 8 * (size_t)i, 8);
            uint32_t v = (uint32_t)wide;
            memcpy(b + 4 * (size_t)i, &v, 4);
        }
        void *p = realloc(b, (n ? n : 1) * sizeof *st->rec32);
        st->rec32 = p ? p : (void *)b;
    } else {
        st->rec64 = g->node_off;
    }
    g->node_off = NULL;
    g->derive = &HP_DERIVE;
    return LR_OK;
}

static lr_status load(rd *r, const fmt_opts *o)
{
    graph *g = r->g;
    int version;
    uint64_t start, ts;
    LR_TRY(parse_header(r->d, r->n, r->name, &r->ids, &start, &version, &ts, r->err));
    r->android = version == 3;
    g->id_size = r->ids;
    g->timestamp_ms = ts;
    snprintf(g->version, sizeof g->version, "%s", VERSIONS[version]);
    g->format = "hprof";
    g->data = r->d;
    g->data_len = r->n;
    g->size_model = r->android ? GRAPH_SIZES_SHARK : GRAPH_SIZES_VISUALVM;
    g->synthetic_root = GRAPH_NONE;
    g->type_names[GRAPH_KIND_INSTANCE] = "instance";
    g->type_names[GRAPH_KIND_CLASS] = "class";
    g->type_names[GRAPH_KIND_OBJ_ARRAY] = "object array";
    g->type_names[GRAPH_KIND_PRIM_ARRAY] = "primitive array";
    g->n_types = 4;

    uint32_t nd;
    phase_enter("hprof scan");
    LR_TRY(scan_top(r->d, r->n, start, r->ids, r->name, r, NULL, 0, &nd, r->err));
    if (!sorted_by(r->strs, r->n_strs, sizeof *r->strs, cmp_str))
        qsort(r->strs, r->n_strs, sizeof *r->strs, cmp_str);
    if (!sorted_by(r->lcs, r->n_lcs, sizeof *r->lcs, cmp_lc))
        qsort(r->lcs, r->n_lcs, sizeof *r->lcs, cmp_lc);

    hprof_dump empty = {start, 0, 0};
    const hprof_dump *dd = &empty;
    if (r->n_dumps) {
        int ix = o && o->dump_index >= 0 ? o->dump_index : (int)r->n_dumps - 1;
        if ((uint32_t)ix >= r->n_dumps)
            return LR_FAIL(r->err, LR_ERR_NOT_FOUND, "%s: heap dump #%d requested, file has %u",
                           r->name, ix, r->n_dumps);
        dd = &r->dumps[ix];
        diag_add(&g->diag, DIAG_EXTRA_DUMPS, r->n_dumps - 1);
    }

    progress_init(&r->prog, "loading", 2 * r->n, o && o->progress);
    phase_enter("hprof pass1");
    LR_TRY(pass1(r, dd));
    phase_enter("hprof classes");
    LR_TRY(build_classes(r));
    uint64_t nn = (uint64_t)r->n_cls + r->n_inst + r->n_oarr + r->n_parr;
    LR_TRY(graph_check_size(g, nn, 0, NULL, r->err));
    if (r->n_roots >= UINT32_MAX)
        return LR_FAIL(r->err, LR_ERR_LIMIT, "%s: more than 4G GC roots", r->name);
    r->vv_size = err_mallocarray(g->n_classes + 8, sizeof *r->vv_size);
    if (!r->vv_size)
        return nomem(r);
    if (!r->android)
        size_model_visualvm(r);
    set_ref_strengths(g);

    uint32_t n = (uint32_t)nn;
    g->n_nodes = n;
    size_t m = n ? n : 1;
    g->node_class = err_mallocarray(m, sizeof *g->node_class);
    g->node_kind = err_mallocarray(m, 1);
    g->node_type = g->node_kind; /* HPROF types are the kinds: one shared array */
    if (!g->node_class || !g->node_kind || !g->node_type)
        return nomem(r);
    if (r->have_heap_info && !(g->node_heap = err_mallocarray(m, 1)))
        return nomem(r);
    r->no_edges = o && o->no_edges;
    if (r->no_edges) {
        /* no records to read back from later: sizes are kept */
        if (!(g->node_size = err_mallocarray(m, sizeof *g->node_size)))
            return nomem(r);
    } else {
        /* ids are needed while references resolve, then read back (hp_compact) */
        g->node_id = err_mallocarray(m, sizeof *g->node_id);
        g->node_off = err_mallocarray(m, sizeof *g->node_off);
        g->roots = err_calloc(r->n_roots ? r->n_roots : 1, sizeof *g->roots);
        r->root_ids = err_mallocarray(r->n_roots ? r->n_roots : 1, sizeof *r->root_ids);
        if (!g->node_id || !g->node_off || !g->roots || !r->root_ids)
            return nomem(r);
    }
    phase_enter("hprof pass2");
    LR_TRY(pass2(r, dd));
    /* every JVM dump has GC roots (sticky classes at least); none means they were cut off */
    if (r->n_roots == 0 && !g->diag.n[DIAG_TRUNCATED])
        diag_count(&g->diag, DIAG_TRUNCATED);
    if (r->no_edges)
        return LR_OK;

    phase_enter("hprof index");
    LR_TRY(merge_class_nodes(r));
    LR_TRY(graph_build_index(g, r->err));
    count_duplicate_ids(g);
    phase_enter("hprof roots");
    LR_TRY(resolve_roots(r));
    LR_TRY(build_layouts(r));
    phase_enter("hprof edges");
    LR_TRY(build_edges(r));
    phase_enter("hprof compact");
    return hp_compact(r);
}

static lr_status hprof_load(graph *g, const mfile *m, const fmt_opts *o, lr_error *err)
{
    rd r;
    memset(&r, 0, sizeof r);
    r.g = g;
    r.d = m->data;
    r.n = m->len;
    r.name = g->path ? g->path : "<memory>";
    r.err = err;
    lr_status st = load(&r, o);
    progress_done(&r.prog);
    rd_free(&r);
    return st;
}

static int hprof_sniff_reader(const uint8_t *p, uint64_t n)
{
    /* Accept a bare "JAVA PROFILE 1.0" prefix too, so a truncated header reaches the reader
     * and gets a precise error instead of "unknown format". */
    return hprof_sniff(p, n) || (n >= 16 && memcmp(p, "JAVA PROFILE 1.0", 16) == 0);
}

const fmt_reader fmt_hprof_reader = {"hprof", hprof_sniff_reader, hprof_load};

/* ---- internals for other walkers over the heap records (hprof_internal.h) ---- */

#include "format/hprof_internal.h"

lr_status hprof_class_dump_skip(const uint8_t *d, uint64_t n, unsigned ids, const char *name,
                                uint64_t pos, uint64_t end, uint64_t *out_end,
                                uint32_t *n_statics, uint32_t *n_fields, lr_error *err)
{
    rd r;
    memset(&r, 0, sizeof r);
    r.d = d;
    r.n = n;
    r.ids = ids;
    r.name = name;
    r.err = err;
    return class_dump_end(&r, pos, end, out_end, n_statics, n_fields);
}

/* LSD radix sort of the strings by id, skipping the bytes every id shares (ids are
 * addresses): a comparison sort of tens of thousands of strings costs more than the rest of
 * a histogram's setup. Falls back to qsort without memory for the copy. */
static void sort_strs_by_id(rd *r)
{
    uint32_t n = r->n_strs;
    str_ent *a = r->strs, *tmp = n > 1 ? err_mallocarray(n, sizeof *tmp) : NULL;
    if (!tmp) {
        if (n > 1)
            qsort(r->strs, n, sizeof *r->strs, cmp_str);
        return;
    }
    uint64_t all_or = 0, all_and = UINT64_MAX;
    for (uint32_t i = 0; i < n; i++) {
        all_or |= a[i].id;
        all_and &= a[i].id;
    }
    str_ent *src = a, *dst = tmp;
    for (unsigned shift = 0; shift < 64; shift += 8) {
        if (((all_or ^ all_and) >> shift & 0xff) == 0)
            continue; /* every id has the same byte here */
        uint32_t cnt[257] = {0};
        for (uint32_t i = 0; i < n; i++)
            cnt[(src[i].id >> shift & 0xff) + 1]++;
        for (unsigned b = 0; b < 256; b++)
            cnt[b + 1] += cnt[b];
        for (uint32_t i = 0; i < n; i++)
            dst[cnt[src[i].id >> shift & 0xff]++] = src[i];
        str_ent *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, (size_t)n * sizeof *a);
    free(tmp);
}

/* load() with pass 1 done by the caller's walk and without pass 2. */
static lr_status model_load(rd *r, int dump_index, hprof_walk_fn walk, void *ctx,
                            hprof_model *out)
{
    graph *g = r->g;
    int version;
    uint64_t start, ts;
    LR_TRY(parse_header(r->d, r->n, r->name, &r->ids, &start, &version, &ts, r->err));
    r->android = version == 3;
    g->id_size = r->ids;
    g->size_model = r->android ? GRAPH_SIZES_SHARK : GRAPH_SIZES_VISUALVM;
    uint32_t nd;
    phase_enter("hprof scan");
    LR_TRY(scan_top(r->d, r->n, start, r->ids, r->name, r, NULL, 0, &nd, r->err));
    if (!sorted_by(r->strs, r->n_strs, sizeof *r->strs, cmp_str))
        sort_strs_by_id(r);
    if (!sorted_by(r->lcs, r->n_lcs, sizeof *r->lcs, cmp_lc))
        qsort(r->lcs, r->n_lcs, sizeof *r->lcs, cmp_lc);
    hprof_dump empty = {start, 0, 0};
    const hprof_dump *dd = &empty;
    if (r->n_dumps) {
        int ix = dump_index >= 0 ? dump_index : (int)r->n_dumps - 1;
        if ((uint32_t)ix >= r->n_dumps)
            return LR_FAIL(r->err, LR_ERR_NOT_FOUND, "%s: heap dump #%d requested, file has %u",
                           r->name, ix, r->n_dumps);
        dd = &r->dumps[ix];
    }
    hprof_walk w = {.d = r->d, .n = r->n, .name = r->name, .ids = r->ids,
                    .android = r->android, .dump = *dd};
    lr_status st = walk(ctx, &w, r->err);
    if (st == LR_OK && w.n_cls && !(r->cls = err_mallocarray(w.n_cls, sizeof *r->cls)))
        st = nomem(r);
    if (st == LR_OK) {
        for (uint32_t i = 0; i < w.n_cls; i++) {
            r->cls[i] = (cls_rec){w.cls[i].off, w.cls[i].end, NO_HEAP};
            r->n_statics += w.cls[i].n_statics;
            r->n_fields += w.cls[i].n_fields;
        }
        r->n_cls = r->cap_cls = w.n_cls;
    }
    free(w.cls);
    LR_TRY(st);
    LR_TRY(build_classes(r));
    LR_TRY(graph_check_size(g, (uint64_t)r->n_cls + w.n_objects, 0, NULL, r->err));
    r->vv_size = err_mallocarray(g->n_classes + 8, sizeof *r->vv_size);
    if (!r->vv_size)
        return nomem(r);
    if (!r->android)
        size_model_visualvm(r);
    else
        for (class_ix c = 0; c < g->n_classes; c++)
            r->vv_size[c] = g->classes[c].instance_size;
    out->android = r->android;
    out->ids = r->ids;
    out->min_inst = r->min_inst;
    out->oop = r->oop;
    out->class_obj_size = r->class_obj_size;
    out->inst_size = r->vv_size;
    r->vv_size = NULL;
    memcpy(out->prim_class, r->prim_class, sizeof out->prim_class);
    return LR_OK;
}

lr_status hprof_model_load(graph *g, const mfile *m, int dump_index, hprof_walk_fn walk,
                           void *ctx, hprof_model *out, lr_error *err)
{
    rd r;
    memset(&r, 0, sizeof r);
    memset(out, 0, sizeof *out);
    r.g = g;
    r.d = m->data;
    r.n = m->len;
    r.name = g->path ? g->path : "<memory>";
    r.err = err;
    lr_status st = model_load(&r, dump_index, walk, ctx, out);
    rd_free(&r);
    return st;
}
