/* SPDX-License-Identifier: Apache-2.0 */
/* hprof_class.c: CLASS_DUMP records into the graph's classes (format layer), prefix hprof_.
 * Validates each CLASS_DUMP body (every count and type checked against the bytes left), then
 * builds classes, fields and statics with Java names, the class-id hash, superclass links
 * (cycles and chains deeper than HPROF_MAX_CLASS_DEPTH refused, in one linear pass), the
 * primitive array classes, VisualVM 2.1.5's instance sizes, reference strengths, and each
 * class's flattened reference slots that edges and edge names are read through. Cost is
 * linear in classes times hierarchy depth; nothing here is per object. Shared through
 * hprof_internal.h; the size models are specified in docs/formats/hprof.md. */
#include "format/hprof_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const PRIM_NAMES[12] = {NULL,     NULL,     NULL,    NULL,
                                           "boolean", "char",  "float", "double",
                                           "byte",    "short", "int",   "long"};

/* ---- CLASS_DUMP records ---- */

/* HPROF_NEED over the load context r. */
#define NEED(pos, need, end, what) HPROF_NEED(r->err, r->name, r->n, pos, need, end, what)

/* Walks a CLASS_DUMP body at pos; returns its end and counts its fields. */
lr_status hprof_class_dump_end(rd *r, uint64_t pos, uint64_t end, uint64_t *out_end,
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
    return hprof_class_dump_end(&r, pos, end, out_end, n_statics, n_fields);
}

/* ---- classes ---- */

static lr_status chash_build(rd *r)
{
    graph *g = r->g;
    if (!hmap_reserve(&r->chash, g->n_classes))
        return hprof_nomem(r);
    /* ids found by inverting hash_mix64 shared one hash: 200,000 classes and 1,000,000
     * instances of a 46 MB file took a minute */
    r->chash_seed = hmap_seed();
    for (class_ix c = 0; c < g->n_classes; c++) {
        if (g->classes[c].node == GRAPH_NONE)
            continue; /* synthetic classes have no id */
        uint64_t id = g->classes[c].id;
        uint32_t h = (uint32_t)hash_mix64(id ^ r->chash_seed);
        hmap_it it;
        uint32_t e = hmap_first(&r->chash, h, &it);
        while (e != HMAP_NONE && g->classes[e].id != id)
            e = hmap_next(&r->chash, &it);
        if (e == HMAP_NONE) /* same id twice: the first class dump wins */
            hmap_add(&r->chash, h, c); /* reserved: cannot fail */
    }
    return LR_OK;
}

static int name_is(const graph *g, str_ix s, const char *want)
{
    return strcmp(graph_str(g, s), want) == 0;
}

lr_status hprof_build_classes(rd *r)
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
        return hprof_nomem(r);
    uint32_t nf = 0, ns = 0;
    for (uint32_t i = 0; i < r->n_cls; i++) {
        uint64_t p = r->cls[i].off;
        graph_class *c = &g->classes[i];
        c->id = rd_id(d + p, ids);
        c->node = i;
        c->super = GRAPH_NONE;
        c->instance_size = be32(d + p + 7 * ids + 4);
        const lc_ent *lc = hprof_find_lc(r, c->id);
        if (lc) {
            LR_TRY(hprof_intern_class_name(r, lc->name_id, &c->name));
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
            LR_TRY(hprof_intern_id(r, rd_id(d + p, ids), &s->name));
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
            LR_TRY(hprof_intern_id(r, rd_id(d + p, ids), &f->name));
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
        return hprof_nomem(r);
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

lr_status hprof_synth_prim_class(rd *r, unsigned t, class_ix *out)
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

/* Static value of type `type` of class `cls`'s field `field`, or 0 if absent / another type. */
static int static_of(const graph *g, const char *cls, const char *field, unsigned type,
                     uint64_t *out)
{
    for (class_ix c = 0; c < g->n_classes; c++) {
        if (!name_is(g, g->classes[c].name, cls))
            continue;
        const graph_class *k = &g->classes[c];
        for (uint32_t i = 0; i < k->n_statics; i++) {
            const graph_static *s = &g->statics[k->first_static + i];
            if (s->type == type && name_is(g, s->name, field)) {
                *out = s->value;
                return 1;
            }
        }
        return 0;
    }
    return 0;
}

static int static_long(const graph *g, const char *cls, const char *field, uint64_t *out)
{
    return static_of(g, cls, field, GRAPH_FT_LONG, out);
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
 * CLASS_DUMP declares a nonzero instance size, the dump's sizes are taken as they are.
 * VisualVM's header (id size + oop size) is the JVM's only with compressed class pointers
 * and oops both on or both off: since JDK 15 they are set apart (-XX:-UseCompressedOops
 * keeps 4-byte class pointers, a 12-byte header; ZGC runs so), and JDK 24's compact headers
 * (-XX:+UseCompactObjectHeaders) are 8 bytes. A HotSpot dump of JDK 9 or later holds what the
 * JVM measured itself: AtomicInteger.VALUE, the offset of its only field (an int), is the
 * header size, and Unsafe.ARRAY_OBJECT_INDEX_SCALE the size of a reference; read when present,
 * they give every instance and array the size the JVM's own class histogram gives (where
 * both models agree, as on default settings, nothing changes). */
/* r->chunk from StackChunk's unaligned size (r->vv_size, before the rounding) and its fields:
 * the injected ones are a reference, an int and a byte, then an 8-byte program counter. */
static void chunk_model(rd *r, unsigned oop)
{
    graph *g = r->g;
    for (class_ix c = 0; c < g->n_classes; c++) {
        const graph_class *gc = &g->classes[c];
        if (!name_is(g, gc->name, "jdk.internal.vm.StackChunk"))
            continue;
        uint32_t off = 0;
        for (uint32_t f = 0; f < gc->n_fields; f++) {
            const graph_field *fd = &g->fields[gc->first_field + f];
            if (fd->type == GRAPH_FT_INT && name_is(g, fd->name, "size")) {
                r->chunk.cls = c;
                r->chunk.off = off;
                /* the instance's own size, as every instance's, is a multiple of the
                 * heap's object alignment before the stack and bitmap are added (at 128
                 * bytes, 127 B a chunk went missing) */
                uint32_t a = r->obj_align > 8 ? r->obj_align : 8;
                r->chunk.helper = ((((r->vv_size[c] + oop + 5u + 7u) & ~7u) + 8u) + a - 1) &
                                  ~(a - 1);
                r->chunk.bits = oop == 4 ? 2 : 1;
                r->chunk.align = r->obj_align;
                return;
            }
            off += type_size(fd->type, r->ids);
        }
    }
}

void hprof_size_model_visualvm(rd *r)
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
    unsigned header = ids + oop, arr_base = 0;
    uint64_t hdr, scale;
    if (ids == 8 && !new_size &&
        static_long(g, "java.util.concurrent.atomic.AtomicInteger", "VALUE", &hdr) &&
        (hdr == 8 || hdr == 12 || hdr == 16) &&
        static_of(g, "jdk.internal.misc.Unsafe", "ARRAY_OBJECT_INDEX_SCALE", GRAPH_FT_INT,
                  &scale) &&
        (scale == 4 || scale == 8)) {
        if (hdr != header || scale != oop)
            g->layout_header = (uint8_t)hdr, g->layout_ref = (uint8_t)scale;
        oop = (unsigned)scale;
        header = (unsigned)hdr;
        /* Where elements start: up to JDK 21 the length word was padded to 8 bytes (24
         * after a 16-byte header, without compressed class pointers), from JDK 22 on it is
         * not (20). Unsafe.ARRAY_INT_BASE_OFFSET says which; 8-byte elements start at 24
         * either way, which the rounding below gives too. */
        uint64_t base;
        if (static_of(g, "jdk.internal.misc.Unsafe", "ARRAY_INT_BASE_OFFSET", GRAPH_FT_INT,
                      &base) &&
            (base == hdr + 4 || base == ((hdr + 4 + 7) & ~7ull)))
            arr_base = (unsigned)base;
    }
    /* -XX:ObjectAlignmentInBytes (16 or more for compressed oops over 32 GB heaps): every
     * object's address is a multiple of it, and every size. With the JVM's default, 8, half
     * the ids of any heap are odd multiples of 8; that all of thousands are multiples of 16
     * by chance is below 2^-1000. */
    r->obj_align = 8;
    if (ids == 8 && !new_size && r->oid.n >= 1024) {
        uint64_t bits = r->oid.spread | r->oid.first;
        unsigned tz = bits ? (unsigned)__builtin_ctzll(bits) : 3;
        if (tz >= 4 && tz <= 8)
            r->obj_align = 1u << tz;
    }
    g->layout_align = r->obj_align != 8 ? (uint16_t)r->obj_align : 0;
    const uint32_t am = r->obj_align - 1;
    r->oop = oop;
    r->min_inst = new_size ? obj_raw : header;
    r->arr_base = arr_base ? arr_base : r->min_inst + 4;
    /* Unaligned sizes need the super's first: sweep until every class is done (the number of
     * sweeps is the hierarchy depth; cycles were refused in hprof_build_classes). */
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
            r->vv_size[c] = s > UINT32_MAX - 256 ? UINT32_MAX - 256 : (uint32_t)s;
            changed = 1;
        }
    }
    r->chunk.cls = GRAPH_NONE;
    if (!new_size)
        chunk_model(r, oop);
    /* Store the aligned value; keep the unaligned one only while computing. */
    if (!new_size)
        for (class_ix c = 0; c < g->n_classes; c++)
            r->vv_size[c] = (r->vv_size[c] + am) & ~am;
    class_ix jlc = GRAPH_NONE;
    for (class_ix c = 0; c < g->n_classes; c++)
        if (g->classes[c].node != GRAPH_NONE && name_is(g, g->classes[c].name, "java.lang.Class"))
            jlc = c;
    r->class_obj_size = jlc == GRAPH_NONE ? 0 : r->vv_size[jlc];
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

void hprof_set_ref_strengths(graph *g)
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

lr_status hprof_build_layouts(rd *r)
{
    graph *g = r->g;
    unsigned ids = r->ids;
    uint32_t nc = g->n_classes;
    r->layout_bytes = err_calloc(nc + 1, sizeof *r->layout_bytes);
    r->first_ref = err_calloc(nc + 1, sizeof *r->first_ref);
    if (!r->layout_bytes || !r->first_ref)
        return hprof_nomem(r);
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
        return hprof_nomem(r);
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
