/* SPDX-License-Identifier: Apache-2.0 */
/* ruby_read.c: Ruby heap dumps (`ObjectSpace.dump_all`, JSON lines) into the graph (format
 * layer), prefix ruby_. Every line is one object ({"address":"0x...", "type":"STRING",
 * "class":"0x...", "memsize":40, "references":[...]}) or one GC root category ({"type":"ROOT",
 * "root":"vm", "references":[...]}). Two passes over the mapped file: pass 1 counts objects,
 * references and roots so every array is sized exactly; pass 2 fills them, keeping reference
 * targets as addresses until the id index exists. Classes come from the CLASS / MODULE /
 * ICLASS records ("name"); an object's class is the record its "class" address names, and
 * objects without one (IMEMO, NODE) get one class per Ruby type, "(IMEMO)". Shallow size is
 * memsize (the object's slot plus what it allocated); references are unnamed in the dump, so
 * edges are numbered elements. With ObjectSpace.trace_object_allocations on, a line also
 * carries its allocation site ("file", "line", "method"): sites are kept once each, and each
 * object points at its own (ruby_site_of), for `show` and `top`. Format and mapping:
 * docs/formats/ruby.md. */
#define _GNU_SOURCE /* memmem */
#include "format/ruby.h"

#include "base/hash.h"
#include "base/hmap.h"
#include "format/jscan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char RUBY_FORMAT[] = "ruby"; /* g->format: compared by address */
#define RUBY_MAX_TYPES 32

/* Ruby's value types as dump_all names them, and the graph kind each maps to. */
/* own_class: whether the record's "class" is the object's class. IMEMO records (call caches,
 * method entries) name the class they cache, ICLASS the module they include: neither is an
 * instance of that class. */
static const struct {
    const char *name;
    uint8_t kind;
    uint8_t own_class;
} TYPES[] = {
    {"OBJECT", GRAPH_KIND_INSTANCE, 1},  {"CLASS", GRAPH_KIND_CLASS, 1},
    {"MODULE", GRAPH_KIND_CLASS, 1},     {"ICLASS", GRAPH_KIND_CLASS, 0},
    {"STRING", GRAPH_KIND_STRING, 1},    {"ARRAY", GRAPH_KIND_OBJ_ARRAY, 1},
    {"HASH", GRAPH_KIND_INSTANCE, 1},    {"STRUCT", GRAPH_KIND_INSTANCE, 1},
    {"DATA", GRAPH_KIND_NATIVE, 1},      {"IMEMO", GRAPH_KIND_CODE, 0},
    {"NODE", GRAPH_KIND_CODE, 0},        {"SYMBOL", GRAPH_KIND_OTHER, 1},
    {"FLOAT", GRAPH_KIND_OTHER, 1},      {"BIGNUM", GRAPH_KIND_OTHER, 1},
    {"REGEXP", GRAPH_KIND_INSTANCE, 1},  {"MATCH", GRAPH_KIND_INSTANCE, 1},
    {"FILE", GRAPH_KIND_NATIVE, 1},      {"RATIONAL", GRAPH_KIND_OTHER, 1},
    {"COMPLEX", GRAPH_KIND_OTHER, 1},    {"ZOMBIE", GRAPH_KIND_OTHER, 0},
    {"MOVED", GRAPH_KIND_OTHER, 0},      {"NONE", GRAPH_KIND_OTHER, 0},
};
#define N_TYPES (sizeof TYPES / sizeof TYPES[0])
#define TYPE_UNKNOWN N_TYPES /* a type this reader does not know: kept, named "(unknown)" */

int ruby_sniff(const uint8_t *p, uint64_t n)
{
    /* dump_all starts with its ROOT lines; a dump written with a filter may start with an
     * object line instead. Look at the first line only. */
    size_t bom = jscan_bom(p, n);
    p += bom, n -= bom;
    uint64_t k = n < 512 ? n : 512;
    while (k && *p == ' ')
        p++, k--;
    if (!k || *p != '{')
        return 0;
    const uint8_t *end = jscan_line_end(p, p + k);
    size_t len = (size_t)(end - p);
    return (memmem(p, len, "\"type\":\"ROOT\"", 13) && memmem(p, len, "\"root\":", 7)) ||
           (len > 13 && memcmp(p, "{\"address\":\"0x", 14) == 0);
}

/* What the graph keeps beyond the generic arrays (g->fmt_state): allocation sites. */
typedef struct ruby_state {
    uint32_t *node_site; /* per node: site index + 1, 0 = none; NULL while no line has one */
    ruby_site *sites;
    uint32_t n_sites, cap_sites;
    hmap lookup;         /* while loading: sites by hash of (file, line, method) */
} ruby_state;

static void state_free(void *p)
{
    ruby_state *s = p;
    if (!s)
        return;
    free(s->node_site);
    free(s->sites);
    hmap_free(&s->lookup);
    free(s);
}

static const ruby_state *state_of(const graph *g)
{
    return g && g->format == RUBY_FORMAT ? g->fmt_state : NULL;
}

uint32_t ruby_site_of(const graph *g, node_ix n)
{
    const ruby_state *s = state_of(g);
    return s && s->node_site && n < g->n_nodes ? s->node_site[n] : 0;
}

const ruby_site *ruby_site_get(const graph *g, uint32_t site)
{
    const ruby_state *s = state_of(g);
    return s && site && site <= s->n_sites ? &s->sites[site - 1] : NULL;
}

const char *ruby_site_text(const graph *g, uint32_t site, char *buf, size_t cap)
{
    const ruby_site *r = ruby_site_get(g, site);
    if (!r || !cap)
        return NULL;
    const char *m = graph_str(g, r->method);
    snprintf(buf, cap, "%s:%u%s%s", graph_str(g, r->file), r->line, m[0] ? " in " : "", m);
    return buf;
}

typedef struct rctx {
    graph *g;
    const uint8_t *data, *end;
    const char *name;
    lr_error *err;
    /* pass 1 */
    uint32_t n_nodes;
    uint64_t n_refs;
    uint64_t n_root_refs;
    /* pass 2, per node */
    uint64_t *class_addr;   /* the "class" address, 0 if none */
    uint64_t *super_addr;   /* a class's "superclass" address, 0 if none */
    str_ix *class_name;     /* CLASS/MODULE "name"; a DATA object's "struct" (name_structs);
                             * GRAPH_NONE if none */
    str_ix *real_name;      /* a singleton class's "real_class_name" (its object's class),
                             * GRAPH_NONE if none or no singleton */
    uint8_t *singleton;     /* 1: a CLASS record with "singleton":true */
    uint64_t *ref_addr;     /* reference targets by address, CSR by node */
    /* roots */
    uint64_t *root_addr;
    uint8_t *root_kind;
    char *sbuf;             /* unescape scratch */
    size_t scap;
    ruby_state *st;         /* allocation sites, once a line has one */
} rctx;

static uint8_t type_of(const jscan_val *v)
{
    size_t n = (size_t)(v->e - v->s);
    for (unsigned t = 0; t < N_TYPES; t++)
        if (strlen(TYPES[t].name) == n && memcmp(TYPES[t].name, v->s, n) == 0)
            return (uint8_t)t;
    return TYPE_UNKNOWN;
}

/* What text output calls the roots of each kind root_kind_of gives: Ruby's categories by
 * their names in the dump, not the JNI terms the kinds have in a JVM dump. */
static const char *const RUBY_ROOT_TITLES[GRAPH_ROOT_KIND_COUNT] = {
    [GRAPH_ROOT_UNKNOWN] = "Other root category (end_proc, object_id, ...)",
    [GRAPH_ROOT_NATIVE_STACK] = "Machine stack and registers (machine_context)",
    [GRAPH_ROOT_JNI_GLOBAL] = "Global variable (global_tbl, global_list)",
    [GRAPH_ROOT_FINALIZING] = "Finalizer table (finalizers)",
    [GRAPH_ROOT_GLOBAL_DATA] = "VM internal reference (vm)",
};

/* GC root categories of Ruby's root marking, as the closest leakray root kinds. */
static uint8_t root_kind_of(const jscan_val *v)
{
    size_t n = (size_t)(v->e - v->s);
    const char *s = (const char *)v->s;
    if (n == 15 && memcmp(s, "machine_context", 15) == 0)
        return GRAPH_ROOT_NATIVE_STACK;
    if (n >= 6 && memcmp(s, "global", 6) == 0)
        return GRAPH_ROOT_JNI_GLOBAL;
    /* Ruby 3.x writes "finalizers" */
    if ((n == 9 || (n == 10 && s[9] == 's')) && memcmp(s, "finalizer", 9) == 0)
        return GRAPH_ROOT_FINALIZING;
    /* The VM's own struct (global data of the process): the ractor, its threads, loaded
     * features. Not VM_INTERNAL, which paths visit last: every live thread's data hangs
     * here, and the shortest way to it went through another thread a global held. */
    if (n == 2 && memcmp(s, "vm", 2) == 0)
        return GRAPH_ROOT_GLOBAL_DATA;
    return GRAPH_ROOT_UNKNOWN;
}

/* Counts the elements of an array value (pass 1). */
static lr_status count_elems(const jscan *c, const jscan_val *arr, uint64_t *n, lr_error *err)
{
    jscan a;
    jscan_arr(&a, c, arr);
    for (;;) {
        jscan_val v;
        int done;
        LR_TRY(jscan_elem(&a, &v, &done, err));
        if (done)
            return LR_OK;
        ++*n;
    }
}

/* A line's members (jscan_fields slots). */
enum { L_TYPE, L_ADDRESS, L_CLASS, L_REFS, L_MEMSIZE, L_NAME, L_ROOT, L_FILE, L_LINE,
       L_METHOD, L_VALUE, L_SHARED, L_BYTESIZE, L_SINGLETON, L_REAL_CLASS, L_SUPER,
       L_GENERATION, L_STRUCT, L_N };
typedef struct line_info {
    int is_root;
    int is_free;        /* a free or moved heap slot (dump_all(full: true)): no object */
    uint32_t has;       /* bit per slot: present with a usable type */
    jscan_val v[L_N];
} line_info;
#define LI_HAS(li, k) JSCAN_HAS((li)->has, k)

static lr_status read_line(rctx *x, const uint8_t *p, const uint8_t *e, jscan *c,
                           line_info *li)
{
    static const char *const keys[L_N] = {"type", "address", "class", "references", "memsize",
                                          "name", "root", "file", "line", "method",
                                          "value", "shared", "bytesize", "singleton",
                                          "real_class_name", "superclass", "generation", "struct"};
    /* the type each slot must have to be used (JSCAN_NULL: any) */
    static const jscan_type want[L_N] = {JSCAN_NULL, JSCAN_NULL, JSCAN_NULL, JSCAN_ARR,
                                         JSCAN_NULL, JSCAN_STR,  JSCAN_STR,  JSCAN_STR,
                                         JSCAN_NUM,  JSCAN_STR,  JSCAN_STR,
                                         JSCAN_TRUE, JSCAN_NUM,  JSCAN_TRUE, JSCAN_STR,
                                         JSCAN_NULL, JSCAN_NUM,  JSCAN_STR};
    li->is_root = 0;
    LR_TRY(jscan_obj(c, x->data, x->name, p, e, x->err));
    LR_TRY(jscan_fields(c, keys, L_N, li->v, &li->has, x->err));
    for (unsigned k = 0; k < L_N; k++)
        if (want[k] != JSCAN_NULL && LI_HAS(li, k) && li->v[k].type != want[k])
            li->has &= ~(1u << k);
    const jscan_val *t = &li->v[L_TYPE];
    li->is_root = LI_HAS(li, L_ROOT) && LI_HAS(li, L_TYPE) && t->e - t->s == 4 &&
                  memcmp(t->s, "ROOT", 4) == 0;
    if (!li->is_root && (!LI_HAS(li, L_ADDRESS) || !LI_HAS(li, L_TYPE)))
        return LR_CORRUPT(x->err, x->name, jscan_off(c, p),
                          "object without \"address\" and \"type\"");
    /* full: true lists the heap's empty slots too, and a compaction's forwarding slots: they
     * hold no object, and a "class" there is a free-list link, not a class */
    li->is_free = !li->is_root && ((t->e - t->s == 4 && memcmp(t->s, "NONE", 4) == 0) ||
                                   (t->e - t->s == 5 && memcmp(t->s, "MOVED", 5) == 0));
    return LR_OK;
}

static lr_status intern_str(rctx *x, const jscan *c, const jscan_val *v, str_ix *out)
{
    size_t len;
    const char *s = jscan_str(c, v, &x->sbuf, &x->scap, &len, x->err);
    if (!s)
        return x->err->code;
    return graph_intern(x->g, s, len, out, x->err);
}

/* The site index + 1 of (file, line, method), added when new. */
static lr_status site_add(rctx *x, const ruby_site *r, uint32_t *out)
{
    ruby_state *s = x->st;
    uint32_t key[3] = {r->file, r->line, r->method};
    uint32_t h = hash_fnv32(key, sizeof key);
    hmap_it it;
    for (uint32_t e = hmap_first(&s->lookup, h, &it); e != HMAP_NONE;
         e = hmap_next(&s->lookup, &it)) {
        const ruby_site *q = &s->sites[e];
        if (q->file == r->file && q->line == r->line && q->method == r->method) {
            *out = e + 1;
            return LR_OK;
        }
    }
    if (s->n_sites >= UINT32_MAX / 4)
        return LR_FAIL(x->err, LR_ERR_LIMIT, "%s: too many allocation sites", x->name);
    if (s->n_sites == s->cap_sites) {
        uint32_t nc = s->cap_sites ? s->cap_sites * 2 : 256;
        ruby_site *nv = err_reallocarray(s->sites, nc, sizeof *nv);
        if (!nv)
            return LR_FAIL(x->err, LR_ERR_NOMEM, "%s: out of memory", x->name);
        s->sites = nv;
        s->cap_sites = nc;
    }
    if (!hmap_add(&s->lookup, h, s->n_sites))
        return LR_FAIL(x->err, LR_ERR_NOMEM, "%s: out of memory", x->name);
    s->sites[s->n_sites++] = *r;
    *out = s->n_sites;
    return LR_OK;
}

/* Node n's allocation site from its line, when it has one. */
static lr_status read_site(rctx *x, const jscan *c, const line_info *li, uint32_t n)
{
    if (!LI_HAS(li, L_FILE))
        return LR_OK;
    if (!x->st) {
        x->st = err_calloc(1, sizeof *x->st);
        if (x->st) {
            x->g->fmt_state = x->st;
            x->g->fmt_free = state_free;
            x->st->node_site = err_calloc(x->n_nodes ? x->n_nodes : 1, sizeof(uint32_t));
        }
        if (!x->st || !x->st->node_site)
            return LR_FAIL(x->err, LR_ERR_NOMEM, "%s: out of memory", x->name);
    }
    ruby_site r = {GRAPH_NONE, 0, GRAPH_NONE};
    uint64_t line = 0;
    if (LI_HAS(li, L_LINE) && (!jscan_u64(&li->v[L_LINE], &line) || line > UINT32_MAX))
        return LR_CORRUPT(x->err, x->name, jscan_off(c, li->v[L_LINE].s), "bad \"line\"");
    r.line = (uint32_t)line;
    LR_TRY(intern_str(x, c, &li->v[L_FILE], &r.file));
    if (LI_HAS(li, L_METHOD))
        LR_TRY(intern_str(x, c, &li->v[L_METHOD], &r.method));
    else
        LR_TRY(graph_intern(x->g, "", 0, &r.method, x->err));
    return site_add(x, &r, &x->st->node_site[n]);
}

/* Node n's GC generation at its allocation, when the dump gives it (objects made while
 * trace_object_allocations ran): it tells an object from the one whose freed slot, and so
 * address, it took (graph.node_birth). */
static lr_status read_birth(rctx *x, const jscan *c, const line_info *li, uint32_t n)
{
    uint64_t gen;
    if (!LI_HAS(li, L_GENERATION))
        return LR_OK;
    if (!jscan_u64(&li->v[L_GENERATION], &gen))
        return LR_CORRUPT(x->err, x->name, jscan_off(c, li->v[L_GENERATION].s),
                          "bad \"generation\"");
    graph *g = x->g;
    if (!g->node_birth &&
        !(g->node_birth = err_calloc(x->n_nodes ? x->n_nodes : 1, sizeof *g->node_birth)))
        return LR_FAIL(x->err, LR_ERR_NOMEM, "%s: out of memory", x->name);
    /* a wider count folds into 32 bits: compared for equality only */
    g->node_birth[n] = (uint32_t)(gen % (UINT32_MAX - 1)) + 1;
    return LR_OK;
}

/* Ruby caps a string at LONG_MAX bytes; a "bytesize" above it is no Ruby string's. */
#define RUBY_MAX_BYTESIZE ((uint64_t)INT64_MAX)

/* String n's value, when the dump gives one (dump_all writes it for ASCII-only strings), into
 * g->node_value. A shared string's bytes are another string's buffer: a value on one is not
 * kept, so it never counts as a copy of its own. The value is bounded by its line (jscan
 * stops at the line's end); a "bytesize" that is no count is an error. One that disagrees with
 * the value costs that value only (counted, string_value_mismatch): the string keeps its node
 * and size, but a value the dump contradicts is no key for dupes, and one bad record should
 * not stop the analysis of a dump's million others. A value holding a NUL byte is not kept
 * either: interned text ends at the first NUL, and two such values would group as one. */
static lr_status read_value(rctx *x, const jscan *c, const line_info *li, uint32_t n)
{
    graph *g = x->g;
    uint64_t bytesize = 0;
    const jscan_val *bv = &li->v[L_BYTESIZE];
    if (LI_HAS(li, L_BYTESIZE) && (!jscan_u64(bv, &bytesize) || bytesize > RUBY_MAX_BYTESIZE))
        return LR_CORRUPT(x->err, x->name, jscan_off(c, bv->s), "bad \"bytesize\"");
    if (!LI_HAS(li, L_VALUE) || LI_HAS(li, L_SHARED))
        return LR_OK;
    /* A value longer than a JSON string the scanner decodes (64 MiB as written: a 55 MB CSV
     * export whose newlines are escaped) is not kept: the string keeps its node and size, so
     * the dump a huge string is chased in still opens (it was exit 5) */
    if ((size_t)(li->v[L_VALUE].e - li->v[L_VALUE].s) + 1 > JSCAN_MAX_STRING)
        return LR_OK;
    size_t len;
    const char *s = jscan_str(c, &li->v[L_VALUE], &x->sbuf, &x->scap, &len, x->err);
    if (!s)
        return x->err->code;
    if (LI_HAS(li, L_BYTESIZE) && bytesize != len) {
        diag_count(&g->diag, DIAG_STRING_VALUE_MISMATCH);
        return LR_OK;
    }
    if (memchr(s, 0, len))
        return LR_OK;
    return graph_intern(g, s, len, &g->node_value[n], x->err);
}

/* Calls fn on every non-blank line. */
typedef lr_status (*line_fn)(rctx *x, const uint8_t *p, const uint8_t *e, uint32_t *ni);

static lr_status each_line(rctx *x, line_fn fn)
{
    uint32_t ni = 0;
    for (const uint8_t *p = x->data + jscan_bom(x->data, (uint64_t)(x->end - x->data));
         p < x->end;) {
        const uint8_t *e = jscan_line_end(p, x->end);
        const uint8_t *q = p;
        while (q < e && (*q == ' ' || *q == '\r' || *q == '\t'))
            q++;
        if (q < e)
            LR_TRY(fn(x, q, e, &ni));
        p = e < x->end ? e + 1 : e;
    }
    return LR_OK;
}

static lr_status pass1(rctx *x, const uint8_t *p, const uint8_t *e, uint32_t *ni)
{
    (void)ni;
    jscan c;
    line_info li;
    LR_TRY(read_line(x, p, e, &c, &li));
    if (li.is_free)
        return LR_OK;
    uint64_t n = 0;
    if (LI_HAS(&li, L_REFS))
        LR_TRY(count_elems(&c, &li.v[L_REFS], &n, x->err));
    if (li.is_root) {
        x->n_root_refs += n;
        return LR_OK;
    }
    if (x->n_nodes == UINT32_MAX - 1)
        return LR_FAIL(x->err, LR_ERR_LIMIT, "%s: more than 2^32 objects", x->name);
    x->n_nodes++;
    x->n_refs += n;
    return LR_OK;
}

static lr_status pass2(rctx *x, const uint8_t *p, const uint8_t *e, uint32_t *ni)
{
    graph *g = x->g;
    jscan c;
    line_info li;
    LR_TRY(read_line(x, p, e, &c, &li));
    if (li.is_free)
        return LR_OK;
    jscan a;
    if (li.is_root) {
        uint8_t kind = root_kind_of(&li.v[L_ROOT]);
        if (!LI_HAS(&li, L_REFS))
            return LR_OK;
        jscan_arr(&a, &c, &li.v[L_REFS]);
        for (;;) {
            jscan_val v;
            int done;
            LR_TRY(jscan_elem(&a, &v, &done, x->err));
            if (done)
                break;
            uint64_t addr;
            if (!jscan_u64(&v, &addr))
                return LR_CORRUPT(x->err, x->name, jscan_off(&c, v.s), "root is no address");
            if (g->n_roots >= x->n_root_refs)
                return LR_CORRUPT(x->err, x->name, jscan_off(&c, v.s), "file changed");
            x->root_addr[g->n_roots] = addr;
            x->root_kind[g->n_roots++] = kind;
        }
        return LR_OK;
    }
    uint32_t n = *ni;
    if (n >= x->n_nodes)
        return LR_CORRUPT(x->err, x->name, jscan_off(&c, p), "file changed while read");
    uint64_t id, cls = 0, mem = 0;
    const jscan_val *v = li.v;
    if (!jscan_u64(&v[L_ADDRESS], &id))
        return LR_CORRUPT(x->err, x->name, jscan_off(&c, v[L_ADDRESS].s), "bad \"address\"");
    if (LI_HAS(&li, L_CLASS) && !jscan_u64(&v[L_CLASS], &cls))
        return LR_CORRUPT(x->err, x->name, jscan_off(&c, v[L_CLASS].s), "bad \"class\"");
    uint64_t sup = 0;
    if (LI_HAS(&li, L_SUPER) && !jscan_u64(&v[L_SUPER], &sup))
        return LR_CORRUPT(x->err, x->name, jscan_off(&c, v[L_SUPER].s), "bad \"superclass\"");
    if (LI_HAS(&li, L_MEMSIZE) && !jscan_u64(&v[L_MEMSIZE], &mem))
        return LR_CORRUPT(x->err, x->name, jscan_off(&c, v[L_MEMSIZE].s), "bad \"memsize\"");
    uint8_t t = type_of(&li.v[L_TYPE]);
    g->node_id[n] = id;
    g->node_type[n] = t;
    g->node_kind[n] = t < N_TYPES ? TYPES[t].kind : GRAPH_KIND_OTHER;
    if (mem > UINT32_MAX) {
        diag_count(&g->diag, DIAG_SIZE_SATURATED);
        mem = UINT32_MAX;
    }
    g->node_size[n] = (uint32_t)mem;
    g->node_off[n] = (uint64_t)(p - x->data); /* the line: `show` can point at it */
    g->node_len[n] = 0;
    x->class_addr[n] = cls;
    x->super_addr[n] = g->node_kind[n] == GRAPH_KIND_CLASS ? sup : 0;
    x->class_name[n] = GRAPH_NONE;
    if (LI_HAS(&li, L_NAME) && g->node_kind[n] == GRAPH_KIND_CLASS)
        LR_TRY(intern_str(x, &c, &li.v[L_NAME], &x->class_name[n]));
    else if (LI_HAS(&li, L_STRUCT) && t < N_TYPES && !strcmp(TYPES[t].name, "DATA"))
        LR_TRY(intern_str(x, &c, &li.v[L_STRUCT], &x->class_name[n]));
    x->singleton[n] = LI_HAS(&li, L_SINGLETON) && g->node_kind[n] == GRAPH_KIND_CLASS;
    x->real_name[n] = GRAPH_NONE;
    if (x->singleton[n] && LI_HAS(&li, L_REAL_CLASS))
        LR_TRY(intern_str(x, &c, &li.v[L_REAL_CLASS], &x->real_name[n]));
    LR_TRY(read_site(x, &c, &li, n));
    LR_TRY(read_birth(x, &c, &li, n));
    if (g->node_kind[n] == GRAPH_KIND_STRING)
        LR_TRY(read_value(x, &c, &li, n));
    uint64_t r = g->first_edge[n];
    if (LI_HAS(&li, L_REFS)) {
        jscan_arr(&a, &c, &li.v[L_REFS]);
        for (;;) {
            jscan_val v;
            int done;
            LR_TRY(jscan_elem(&a, &v, &done, x->err));
            if (done)
                break;
            uint64_t addr;
            if (!jscan_u64(&v, &addr))
                return LR_CORRUPT(x->err, x->name, jscan_off(&c, v.s), "reference is no address");
            if (r >= x->n_refs)
                return LR_CORRUPT(x->err, x->name, jscan_off(&c, v.s), "file changed");
            x->ref_addr[r++] = addr;
        }
    }
    g->first_edge[n + 1] = (edge_ix)r;
    *ni = n + 1;
    return LR_OK;
}

/* Rounds of singleton naming: a singleton of a singleton (`#<Class:#<Class:Foo>>`) is named
 * once the one it is attached to is; deeper chains than this keep their address name. */
#define RUBY_SINGLETON_ROUNDS 4
/* Singleton classes passed going up from an object's to its real class: Ruby makes at most a
 * few levels (a singleton of a singleton); a longer chain keeps the object's own. */
#define RUBY_MAX_SINGLETON_UP 64

/* Names singleton classes as Ruby's inspect does: `#<Class:Foo>` for a class's or module's,
 * `#<Class:#<Foo:0x00007f...>>` for an object's. The dump names neither the singleton nor
 * what it is attached to, but a singleton references its object (Ruby's __attached__), whose
 * "class" is the singleton: the first reference of singleton c whose record has c as its
 * class is c's object. Not "the first object whose class is c": a metaclass's metaclass is
 * made only on demand, and until then many metaclasses give a shared ancestor's as their
 * class. One lookup per reference of a singleton. Singletons whose object is not in the dump
 * keep the address name build_classes gave them. node_cls maps class nodes to classes. */
static lr_status name_singletons(rctx *x, const uint32_t *node_cls)
{
    graph *g = x->g;
    node_ix *attached = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *attached);
    uint8_t *done = err_calloc(g->n_nodes ? g->n_nodes : 1, 1);
    char *buf = NULL;
    size_t cap = 0;
    lr_status s = LR_OK;
    if (!attached || !done) {
        s = LR_FAIL(x->err, LR_ERR_NOMEM, "%s: out of memory", x->name);
        goto out;
    }
    for (uint32_t n = 0; n < g->n_nodes; n++)
        attached[n] = GRAPH_NONE;
    for (uint32_t c = 0; c < g->n_nodes; c++) {
        if (!x->singleton[c])
            continue;
        for (uint64_t r = g->first_edge[c]; r < g->first_edge[c + 1]; r++) {
            node_ix a = graph_find_id(g, x->ref_addr[r]);
            int own = a != GRAPH_NONE && g->node_type[a] < N_TYPES &&
                      TYPES[g->node_type[a]].own_class;
            if (own && a != c && x->class_addr[a] == g->node_id[c]) {
                attached[c] = a;
                break;
            }
        }
    }
    for (unsigned round = 0; round < RUBY_SINGLETON_ROUNDS; round++) {
        for (uint32_t c = 0; c < g->n_nodes; c++) {
            node_ix a = attached[c];
            if (!x->singleton[c] || done[c] || a == GRAPH_NONE || node_cls[c] == GRAPH_NONE)
                continue;
            int is_cls = g->node_kind[a] == GRAPH_KIND_CLASS && node_cls[a] != GRAPH_NONE;
            if (is_cls && x->singleton[a] && !done[a])
                continue; /* its object's name is not final yet */
            const char *inner = is_cls ? graph_str(g, g->classes[node_cls[a]].name)
                                       : graph_str(g, x->real_name[c]);
            size_t need = strlen(inner) + 48; /* "#<Class:#<" ":0x" 16 digits ">>" NUL */
            if (need > cap) {
                char *nb = realloc(buf, need);
                if (!nb) {
                    s = LR_FAIL(x->err, LR_ERR_NOMEM, "%s: out of memory", x->name);
                    goto out;
                }
                buf = nb;
                cap = need;
            }
            int k = is_cls ? snprintf(buf, cap, "#<Class:%s>", inner)
                           : snprintf(buf, cap, "#<Class:#<%s:0x%016llx>>",
                                      inner[0] ? inner : "Object",
                                      (unsigned long long)g->node_id[a]);
            s = graph_intern(g, buf, (size_t)k, &g->classes[node_cls[c]].name, x->err);
            if (s != LR_OK)
                goto out;
            done[c] = 1;
        }
    }
out:
    free(attached);
    free(done);
    free(buf);
    return s;
}

/* Each class's super: its "superclass" record, past include classes (ICLASS: a module
 * included, which Ruby's #superclass skips too), so that `inspect Base` and instanceof see
 * subclasses. A chain that comes back on itself (no Ruby writes one) is cut where it does:
 * walks up the chain elsewhere assume none. */
static void link_supers(rctx *x, const uint32_t *node_cls)
{
    graph *g = x->g;
    for (uint32_t n = 0; n < g->n_nodes; n++) {
        if (node_cls[n] == GRAPH_NONE || !x->super_addr[n] || g->node_type[n] >= N_TYPES ||
            strcmp(TYPES[g->node_type[n]].name, "CLASS"))
            continue;
        node_ix s = graph_find_id(g, x->super_addr[n]);
        for (int hops = 0; s != GRAPH_NONE && hops < 256; hops++) {
            if (node_cls[s] == GRAPH_NONE || g->node_type[s] >= N_TYPES)
                break;
            if (strcmp(TYPES[g->node_type[s]].name, "ICLASS")) {
                g->classes[node_cls[n]].super = node_cls[s];
                break;
            }
            s = x->super_addr[s] ? graph_find_id(g, x->super_addr[s]) : GRAPH_NONE;
        }
    }
    /* cycles: each chain walked once (state 1 on the walk, 2 done); a link back into the
     * walk is cut */
    uint8_t *state = err_calloc(g->n_classes ? g->n_classes : 1, 1);
    if (!state) { /* no check possible: no supers rather than a chain without end */
        for (uint32_t c = 0; c < g->n_classes; c++)
            g->classes[c].super = GRAPH_NONE;
        return;
    }
    for (uint32_t c = 0; c < g->n_classes; c++) {
        uint32_t k = c;
        while (k < g->n_classes && !state[k]) {
            state[k] = 1;
            uint32_t up = g->classes[k].super;
            if (up < g->n_classes && state[up] == 1) {
                g->classes[k].super = GRAPH_NONE;
                diag_count(&g->diag, DIAG_UNKNOWN_CLASS);
                break;
            }
            k = up;
        }
        for (k = c; k < g->n_classes && state[k] == 1; k = g->classes[k].super)
            state[k] = 2;
    }
    free(state);
}

typedef struct struct_node {
    str_ix name; /* the "struct" */
    node_ix n;
} struct_node;

static int struct_node_cmp(const void *pa, const void *pb)
{
    const struct_node *a = pa, *b = pb;
    if (a->name != b->name)
        return a->name < b->name ? -1 : 1;
    return a->n < b->n ? -1 : a->n > b->n;
}

/* Whether node n is a DATA object of class plain Object with a "struct" (name_structs). */
static int object_struct(const rctx *x, node_ix n)
{
    const graph *g = x->g;
    return x->class_name[n] != GRAPH_NONE && g->node_kind[n] == GRAPH_KIND_NATIVE &&
           g->node_class[n] < g->n_classes &&
           !strcmp(graph_str(g, g->classes[g->node_class[n]].name), "Object");
}

/* The VM's own DATA objects whose class is plain Object get a class per "struct" of theirs,
 * "(DATA ObjectTracing/allocation_info_tracer)": as "Object" the allocation tracer's table
 * (trace_object_allocations_start, which users turn on for file:line) was a suspect and the
 * biggest growth of `diff`, read as some Object.new of the program. */
static lr_status name_structs(rctx *x)
{
    graph *g = x->g;
    uint32_t m = 0;
    for (node_ix n = 0; n < g->n_nodes; n++)
        if (object_struct(x, n))
            m++;
    if (!m)
        return LR_OK;
    struct_node *v = err_mallocarray(m, sizeof *v);
    if (!v)
        return LR_FAIL(x->err, LR_ERR_NOMEM, "%s: out of memory", x->name);
    m = 0;
    for (node_ix n = 0; n < g->n_nodes; n++)
        if (object_struct(x, n))
            v[m++] = (struct_node){x->class_name[n], n};
    qsort(v, m, sizeof *v, struct_node_cmp);
    uint32_t runs = 0;
    for (uint32_t i = 0; i < m; i++)
        runs += i == 0 || v[i].name != v[i - 1].name;
    graph_class *nc = err_reallocarray(g->classes, (size_t)g->n_classes + runs, sizeof *nc);
    if (!nc) {
        free(v);
        return LR_FAIL(x->err, LR_ERR_NOMEM, "%s: out of memory", x->name);
    }
    g->classes = nc;
    lr_status st = LR_OK;
    char *buf = NULL;
    for (uint32_t i = 0; i < m && st == LR_OK; i++) {
        if (i == 0 || v[i].name != v[i - 1].name) {
            const char *s = graph_str(g, v[i].name);
            size_t len = strlen(s) + 8;
            char *nb = realloc(buf, len);
            str_ix name = GRAPH_NONE;
            if (!nb) {
                st = LR_FAIL(x->err, LR_ERR_NOMEM, "%s: out of memory", x->name);
                break;
            }
            buf = nb;
            snprintf(buf, len, "(DATA %s)", s);
            if ((st = graph_intern(g, buf, strlen(buf), &name, x->err)) != LR_OK)
                break;
            g->classes[g->n_classes++] =
                (graph_class){.name = name, .super = GRAPH_NONE, .node = GRAPH_NONE};
        }
        g->node_class[v[i].n] = g->n_classes - 1;
    }
    free(buf);
    free(v);
    return st;
}

/* Classes: one per CLASS/MODULE/ICLASS object, then one per Ruby type for objects whose
 * class is not in the dump, and one per struct of the VM's objects of class Object
 * (name_structs). Sets node_class. */
static lr_status build_classes(rctx *x)
{
    graph *g = x->g;
    uint32_t n_cls = 0;
    for (uint32_t n = 0; n < g->n_nodes; n++)
        n_cls += g->node_kind[n] == GRAPH_KIND_CLASS;
    g->classes = err_calloc((size_t)n_cls + N_TYPES + 1, sizeof *g->classes);
    uint32_t *node_cls = err_mallocarray(g->n_nodes, sizeof *node_cls);
    if (!g->classes || !node_cls) {
        free(node_cls);
        return LR_FAIL(x->err, LR_ERR_NOMEM, "%s: out of memory", x->name);
    }
    char buf[64];
    for (uint32_t n = 0; n < g->n_nodes; n++) {
        node_cls[n] = GRAPH_NONE;
        if (g->node_kind[n] != GRAPH_KIND_CLASS)
            continue;
        graph_class *k = &g->classes[g->n_classes];
        str_ix name = x->class_name[n];
        if (name == GRAPH_NONE) {
            /* Singleton, anonymous and include classes have no name of their own. An
             * anonymous class or module is what Ruby's inspect shows (`#<Class:0x00007f...>`);
             * name_singletons renames the singletons it can attach; include classes, which
             * Ruby never shows, keep the dump's type and address. */
            const char *t = g->node_type[n] < N_TYPES ? TYPES[g->node_type[n]].name : "?";
            if (!x->singleton[n] && (!strcmp(t, "CLASS") || !strcmp(t, "MODULE")))
                snprintf(buf, sizeof buf, "#<%s:0x%016llx>", t[0] == 'C' ? "Class" : "Module",
                         (unsigned long long)g->node_id[n]);
            else
                snprintf(buf, sizeof buf, "#<%s:0x%llx>", t, (unsigned long long)g->node_id[n]);
            LR_TRY(graph_intern(g, buf, strlen(buf), &name, x->err));
        }
        *k = (graph_class){.name = name, .super = GRAPH_NONE, .node = n, .id = g->node_id[n],
                           .first_field = 0, .first_static = 0};
        node_cls[n] = g->n_classes++;
    }
    lr_status s = name_singletons(x, node_cls);
    if (s != LR_OK) {
        free(node_cls);
        return s;
    }
    link_supers(x, node_cls);
    /* An object with a singleton class (obj.extend(M), def obj.x, class << obj) names that
     * singleton as its "class"; Ruby's obj.class, each_object and inspect skip it for the
     * first class above that is none (a class object's metaclass chain ends at Class): the
     * histogram and every by-class verb count it there, and its singleton stays its own
     * class object, held through the "class" reference. real[c]: that class for class c. */
    uint32_t *real = err_mallocarray(g->n_classes ? g->n_classes : 1, sizeof *real);
    if (!real) {
        free(node_cls);
        return LR_FAIL(x->err, LR_ERR_NOMEM, "%s: out of memory", x->name);
    }
    for (uint32_t c = 0; c < g->n_classes; c++) {
        uint32_t k = c;
        for (int up = 0; up < RUBY_MAX_SINGLETON_UP && k < g->n_classes &&
                         x->singleton[g->classes[k].node];
             up++)
            k = g->classes[k].super;
        real[c] = k < g->n_classes && !x->singleton[g->classes[k].node] ? k : c;
    }
    uint32_t type_cls[N_TYPES + 1];
    for (unsigned t = 0; t <= N_TYPES; t++)
        type_cls[t] = GRAPH_NONE;
    for (uint32_t n = 0; n < g->n_nodes; n++) {
        int own = g->node_type[n] < N_TYPES && TYPES[g->node_type[n]].own_class;
        node_ix cn = own && x->class_addr[n] ? graph_find_id(g, x->class_addr[n]) : GRAPH_NONE;
        if (cn != GRAPH_NONE && node_cls[cn] != GRAPH_NONE) {
            g->node_class[n] = real[node_cls[cn]];
            continue;
        }
        if (own && x->class_addr[n])
            diag_count(&g->diag, DIAG_UNKNOWN_CLASS);
        unsigned t = g->node_type[n] < N_TYPES ? g->node_type[n] : N_TYPES;
        if (type_cls[t] == GRAPH_NONE) {
            snprintf(buf, sizeof buf, "(%s)", t < N_TYPES ? TYPES[t].name : "unknown");
            str_ix name;
            lr_status st = graph_intern(g, buf, strlen(buf), &name, x->err);
            if (st != LR_OK) {
                free(node_cls);
                free(real);
                return st;
            }
            g->classes[g->n_classes] =
                (graph_class){.name = name, .super = GRAPH_NONE, .node = GRAPH_NONE};
            type_cls[t] = g->n_classes++;
        }
        g->node_class[n] = type_cls[t];
    }
    free(node_cls);
    free(real);
    LR_TRY(name_structs(x));
    return graph_index_class_nodes(g, x->err);
}

/* The machine stack's entries of objects another root holds too. Ruby scans its C stack
 * and registers conservatively, and meets what the VM or a global holds anyway: `class
 * Object` there put every constant's leak under "Machine stack and registers", read as a
 * local of a running frame, the opposite of a constant held for the process's life (paths
 * take root kinds in Shark's order, the stack's before the VM's). */
static lr_status drop_stack_twins(rctx *x)
{
    graph *g = x->g;
    uint8_t *other = err_calloc(g->n_nodes ? g->n_nodes : 1, 1);
    if (!other)
        return LR_FAIL(x->err, LR_ERR_NOMEM, "%s: out of memory", x->name);
    for (uint32_t i = 0; i < g->n_roots; i++)
        if (g->roots[i].kind != GRAPH_ROOT_NATIVE_STACK)
            other[g->roots[i].node] = 1;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < g->n_roots; i++)
        if (g->roots[i].kind != GRAPH_ROOT_NATIVE_STACK || !other[g->roots[i].node])
            g->roots[kept++] = g->roots[i];
    g->n_roots = kept;
    free(other);
    return LR_OK;
}

/* Reference addresses -> node indices, dropping (and counting) those with no object. Each
 * object also references its class, an internal edge named "class": dump_all gives the
 * class in "class" and never among "references", yet Ruby's GC marks it (an object keeps
 * its class alive, and a singleton or anonymous class, with its instance variables and
 * methods, is held by its objects alone). */
static lr_status resolve_edges(rctx *x)
{
    graph *g = x->g;
    str_ix class_name;
    LR_TRY(graph_intern(g, "class", 5, &class_name, x->err));
    LR_TRY(graph_alloc_edges(g, x->n_refs + g->n_nodes, x->err));
    uint64_t out = 0;
    for (uint32_t n = 0; n < g->n_nodes; n++) {
        uint64_t b = g->first_edge[n], e = g->first_edge[n + 1];
        g->first_edge[n] = (edge_ix)out;
        for (uint64_t r = b; r < e; r++) {
            node_ix t = graph_find_id(g, x->ref_addr[r]);
            if (t == GRAPH_NONE) {
                diag_count(&g->diag, DIAG_DANGLING_REFERENCE);
                continue;
            }
            /* Ruby lists some objects (frozen shared strings, IO objects) among their own
             * references: holding oneself keeps nothing alive, and `cycles` listed each as a
             * cycle of one object */
            if (t == n)
                continue;
            g->edge_to[out] = t;
            g->edge_name[out] = (uint32_t)(r - b);
            g->edge_kind[out] = GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG);
            out++;
        }
        int own = g->node_type[n] < N_TYPES && TYPES[g->node_type[n]].own_class;
        node_ix c = own && x->class_addr[n] ? graph_find_id(g, x->class_addr[n]) : GRAPH_NONE;
        if (c != GRAPH_NONE && c != n && g->node_kind[c] == GRAPH_KIND_CLASS) {
            g->edge_to[out] = c;
            g->edge_name[out] = class_name;
            g->edge_kind[out] = GRAPH_EDGE_MAKE(GRAPH_EDGE_INTERNAL, GRAPH_STRONG);
            out++;
        }
    }
    g->first_edge[g->n_nodes] = (edge_ix)out;
    g->n_edges = (uint32_t)out;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < g->n_roots; i++) {
        node_ix t = graph_find_id(g, x->root_addr[i]);
        if (t == GRAPH_NONE) {
            diag_count(&g->diag, DIAG_DANGLING_ROOT);
            continue;
        }
        g->roots[kept++] = (graph_root){.node = t, .kind = x->root_kind[i], .frame = -1};
    }
    /* dump_all writes its ROOT lines first and every live object after them, so a root
     * whose object has no line means lines are missing: a dump cut at a line's end (a
     * process killed while it wrote) reads as a smaller, valid heap otherwise. A dump
     * written with since: has no ROOT line at all. */
    if (kept < g->n_roots)
        diag_count(&g->diag, DIAG_TRUNCATED);
    g->n_roots = kept;
    return drop_stack_twins(x);
}

static lr_status ruby_load(graph *g, const mfile *m, const fmt_opts *o, lr_error *err)
{
    (void)o;
    rctx x = {.g = g, .data = m->data, .end = m->data + m->len,
              .name = g->path ? g->path : "<input>", .err = err};
    g->format = RUBY_FORMAT;
    g->data = m->data;
    g->data_len = m->len;
    g->size_model = GRAPH_SIZES_RECORD;
    g->synthetic_root = GRAPH_NONE;
    g->root_titles = RUBY_ROOT_TITLES;
    g->hex_ids = 1;
    snprintf(g->version, sizeof g->version, "ObjectSpace.dump_all");
    for (unsigned t = 0; t < N_TYPES; t++)
        g->type_names[t] = TYPES[t].name;
    g->type_names[TYPE_UNKNOWN] = "(unknown)";
    g->n_types = TYPE_UNKNOWN + 1;
    lr_status s = each_line(&x, pass1);
    /* every object may also reference its class (resolve_edges) */
    if (s == LR_OK && (x.n_refs + x.n_nodes > UINT32_MAX - 1 || x.n_root_refs > UINT32_MAX - 1))
        s = LR_FAIL(err, LR_ERR_LIMIT, "%s: more than 2^32 references", x.name);
    if (s == LR_OK)
        s = graph_alloc_nodes(g, x.n_nodes, 0, err);
    if (s == LR_OK) {
        g->first_edge = err_calloc((size_t)x.n_nodes + 1, sizeof *g->first_edge);
        x.class_addr = err_mallocarray(x.n_nodes ? x.n_nodes : 1, sizeof *x.class_addr);
        x.super_addr = err_mallocarray(x.n_nodes ? x.n_nodes : 1, sizeof *x.super_addr);
        x.class_name = err_mallocarray(x.n_nodes ? x.n_nodes : 1, sizeof *x.class_name);
        x.real_name = err_mallocarray(x.n_nodes ? x.n_nodes : 1, sizeof *x.real_name);
        x.singleton = err_mallocarray(x.n_nodes ? x.n_nodes : 1, 1);
        x.ref_addr = err_mallocarray(x.n_refs ? x.n_refs : 1, sizeof *x.ref_addr);
        x.root_addr = err_mallocarray(x.n_root_refs ? x.n_root_refs : 1, sizeof *x.root_addr);
        x.root_kind = err_mallocarray(x.n_root_refs ? x.n_root_refs : 1, 1);
        g->node_value = err_mallocarray(x.n_nodes ? x.n_nodes : 1, sizeof *g->node_value);
        for (uint32_t i = 0; g->node_value && i < x.n_nodes; i++)
            g->node_value[i] = GRAPH_NONE;
        g->roots = err_calloc(x.n_root_refs ? x.n_root_refs : 1, sizeof *g->roots);
        if (!g->first_edge || !x.class_addr || !x.super_addr || !x.class_name || !x.real_name ||
            !x.singleton ||
            !x.ref_addr || !x.root_addr || !x.root_kind || !g->roots || !g->node_value)
            s = LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", x.name);
    }
    if (s == LR_OK)
        s = each_line(&x, pass2);
    if (s == LR_OK)
        s = graph_build_index(g, err);
    if (s == LR_OK) /* references to a repeated address go to its first object */
        graph_count_duplicate_ids(g);
    if (s == LR_OK)
        s = build_classes(&x);
    if (s == LR_OK)
        s = resolve_edges(&x);
    free(x.class_addr);
    free(x.super_addr);
    free(x.class_name);
    free(x.real_name);
    free(x.singleton);
    free(x.ref_addr);
    free(x.root_addr);
    free(x.root_kind);
    free(x.sbuf);
    if (x.st) { /* the lookup table only served loading */
        hmap_free(&x.st->lookup);
    }
    return s;
}

const fmt_reader fmt_ruby_reader = {RUBY_FORMAT, ruby_sniff, ruby_load};
