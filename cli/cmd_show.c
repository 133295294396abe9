/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_show.c: `leakray show FILE ID` (cli), prefix show_. One object in full: class, kind,
 * heap, shallow size, GC roots, every instance field decoded (strings as text, references as
 * id + class), static fields and declared layout for class objects, array contents
 * (first --limit elements), outgoing edges for formats without field bytes (V8), and the
 * objects that refer to it (reverse edges, first --limit). ID is "0x..." / decimal (HPROF
 * object id) or "@N" (V8 node id); a class name shows that class's object. Field bytes and
 * array elements are read from the mapped input with every offset checked against its end. */
#include "analysis/devtools.h"
#include "cli.h"
#include "format/ruby.h"
#include "format/v8.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SHOW_STRING_PREVIEW 200 /* bytes of a string value shown inline */
#define SHOW_PRIM_ELEMENTS 16   /* primitive array elements listed */
#define SHOW_FULL_STRING 4096   /* bytes of the shown object's own string value */

typedef struct show_ctx {
    const cli_common *co;
    const graph *g;
    jsonw *w;          /* non-NULL under --json */
    node_ix node;      /* the object shown */
    uint64_t limit;    /* rows per list; 0 = all */
    class_ix last_decl; /* declaring class of the previous field (text grouping) */
    const devtools_result *dt; /* V8/Node/ArkTS: DevTools' numbers, else NULL */
    const cli_retained *rt;    /* other dumps: `top`'s default tree, else NULL */
    const v8_frame *stack;     /* allocation stack, innermost first (n_stack shown) */
    uint32_t n_stack;
    uint32_t stack_depth;      /* full depth (may exceed n_stack) */
    int has_traces;            /* the snapshot records allocation traces */
} show_ctx;

#define SHOW_MAX_FRAMES 64 /* allocation-stack frames shown */

/* ---- values ---- */

/* Class index whose class object is node n, or GRAPH_NONE. O(classes); show needs few. */
static class_ix class_of_node(const graph *g, node_ix n)
{
    if (n >= g->n_nodes || g->node_kind[n] != GRAPH_KIND_CLASS)
        return GRAPH_NONE;
    for (class_ix c = 0; c < g->n_classes; c++)
        if (g->classes[c].node == n)
            return c;
    return GRAPH_NONE;
}

static int64_t sign_extend(uint64_t raw, unsigned bits)
{
    uint64_t m = 1ULL << (bits - 1);
    raw &= (bits == 64) ? ~0ULL : ((1ULL << bits) - 1);
    return (int64_t)((raw ^ m) - m);
}

static double bits_to_double(uint8_t type, uint64_t raw)
{
    if (type == GRAPH_FT_FLOAT) {
        uint32_t b = (uint32_t)raw;
        float f;
        memcpy(&f, &b, sizeof f);
        return f;
    }
    double d;
    memcpy(&d, &raw, sizeof d);
    return d;
}

/* Text form of a primitive value. */
static const char *prim_text(char *buf, size_t cap, uint8_t type, uint64_t raw)
{
    switch (type) {
    case GRAPH_FT_BOOLEAN: snprintf(buf, cap, "%s", raw ? "true" : "false"); break;
    case GRAPH_FT_CHAR:
        if (raw >= 0x20 && raw < 0x7f && raw != '\'' && raw != '\\')
            snprintf(buf, cap, "'%c'", (char)raw);
        else
            snprintf(buf, cap, "'\\u%04x'", (unsigned)(raw & 0xffff));
        break;
    case GRAPH_FT_FLOAT: snprintf(buf, cap, "%.9g", bits_to_double(type, raw)); break;
    case GRAPH_FT_DOUBLE: snprintf(buf, cap, "%.17g", bits_to_double(type, raw)); break;
    case GRAPH_FT_BYTE: snprintf(buf, cap, "%" PRId64, sign_extend(raw, 8)); break;
    case GRAPH_FT_SHORT: snprintf(buf, cap, "%" PRId64, sign_extend(raw, 16)); break;
    case GRAPH_FT_INT: snprintf(buf, cap, "%" PRId64, sign_extend(raw, 32)); break;
    case GRAPH_FT_LONG: snprintf(buf, cap, "%" PRId64, (int64_t)raw); break;
    default: snprintf(buf, cap, "0x%" PRIx64, raw); break;
    }
    return buf;
}

static void json_prim(jsonw *w, uint8_t type, uint64_t raw)
{
    char buf[8];
    switch (type) {
    case GRAPH_FT_BOOLEAN: jsonw_bool(w, raw != 0); break;
    case GRAPH_FT_CHAR: {
        /* One UTF-16 unit as a string; lone surrogates cannot be UTF-8, so U+FFFD. */
        unsigned u = (unsigned)(raw & 0xffff);
        if (u >= 0xd800 && u < 0xe000)
            u = 0xfffd;
        size_t k = 0;
        if (u < 0x80) {
            buf[k++] = (char)u;
        } else if (u < 0x800) {
            buf[k++] = (char)(0xc0 | (u >> 6));
            buf[k++] = (char)(0x80 | (u & 0x3f));
        } else {
            buf[k++] = (char)(0xe0 | (u >> 12));
            buf[k++] = (char)(0x80 | ((u >> 6) & 0x3f));
            buf[k++] = (char)(0x80 | (u & 0x3f));
        }
        jsonw_strn(w, buf, k);
        break;
    }
    case GRAPH_FT_FLOAT:
    case GRAPH_FT_DOUBLE: jsonw_double(w, bits_to_double(type, raw)); break;
    case GRAPH_FT_BYTE: jsonw_int(w, sign_extend(raw, 8)); break;
    case GRAPH_FT_SHORT: jsonw_int(w, sign_extend(raw, 16)); break;
    case GRAPH_FT_INT: jsonw_int(w, sign_extend(raw, 32)); break;
    case GRAPH_FT_LONG: jsonw_int(w, (int64_t)raw); break;
    default: jsonw_uint(w, raw); break;
    }
}

/* Display name of a node: "class Foo" for class objects, else its class name. */
static const char *node_label(const graph *g, node_ix n, char *buf, size_t cap)
{
    class_ix c = class_of_node(g, n);
    if (c != GRAPH_NONE) {
        snprintf(buf, cap, "class %s", graph_str(g, g->classes[c].name));
        return buf;
    }
    const char *name = graph_class_name(g, n);
    if (!name[0] && g->node_name)
        name = graph_str(g, g->node_name[n]);
    if (!name[0])
        name = graph_node_kind_name(g->node_kind[n]);
    snprintf(buf, cap, "%s", name);
    /* V8 string nodes are named by their contents: never let them drive the terminal. */
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return buf;
}

/* Decodes the string value of n into buf. Returns the full UTF-8 length (-1: no string) and
 * sets *shown to the bytes held in buf, which may include NULs (Java strings may). */
static long string_of(const graph *g, node_ix n, char *buf, size_t cap, size_t *shown)
{
    long len = graph_string_value(g, n, buf, cap);
    *shown = len < 0 ? 0 : (size_t)len < cap ? (size_t)len : strlen(buf);
    return len;
}

/* Text: "null", "0x1f (not in dump)", or `0x1f java.lang.String "text"`. */
static void ref_text(const graph *g, uint64_t raw, node_ix ref)
{
    char id[CLI_FMT_MAX], label[512];
    if (raw == 0 && ref == GRAPH_NONE) {
        fputs("null", stdout);
        return;
    }
    if (ref == GRAPH_NONE || ref >= g->n_nodes) {
        printf("%s (not in dump)", cli_fmt_id(id, g, raw));
        return;
    }
    printf("%s %s", cli_fmt_id(id, g, graph_node_id(g, ref)),
           node_label(g, ref, label, sizeof label));
    char s[SHOW_STRING_PREVIEW + 1];
    size_t shown;
    long len = string_of(g, ref, s, sizeof s, &shown);
    if (len >= 0) {
        fputs(" \"", stdout);
        /* Claiming the full length makes cli_put_text mark a cut string with "...". */
        cli_put_text(stdout, s, (size_t)len > shown ? (size_t)len : shown, shown);
        fputc('"', stdout);
    }
}

/* JSON members describing a reference (inside an open object). */
static void ref_json(jsonw *w, const graph *g, uint64_t raw, node_ix ref)
{
    char id[CLI_FMT_MAX], label[512];
    if (raw == 0 && ref == GRAPH_NONE) {
        jsonw_kv_null(w, "value");
        return;
    }
    jsonw_kv_str(w, "value", cli_fmt_id(id, g, ref < g->n_nodes ? graph_node_id(g, ref) : raw));
    if (ref == GRAPH_NONE || ref >= g->n_nodes) {
        jsonw_kv_bool(w, "missing", 1);
        return;
    }
    jsonw_kv_str(w, "class", node_label(g, ref, label, sizeof label));
    char s[SHOW_STRING_PREVIEW + 1];
    size_t shown;
    if (string_of(g, ref, s, sizeof s, &shown) >= 0) {
        jsonw_key(w, "string");
        jsonw_strn(w, s, shown);
    }
}

/* ---- fields ---- */

static int field_cb(void *vctx, class_ix decl, const graph_field *f, const graph_value *v)
{
    show_ctx *x = vctx;
    const graph *g = x->g;
    const char *name = graph_str(g, f->name);
    const char *decl_name = decl < g->n_classes ? graph_str(g, g->classes[decl].name) : "";
    if (x->w) {
        jsonw_obj_begin(x->w);
        jsonw_kv_str(x->w, "name", name);
        jsonw_kv_str(x->w, "type", graph_ftype_name(f->type));
        jsonw_kv_str(x->w, "declared_in", decl_name);
        if (f->type == GRAPH_FT_OBJECT) {
            ref_json(x->w, g, v->raw, v->ref);
        } else {
            jsonw_key(x->w, "value");
            json_prim(x->w, f->type, v->raw);
        }
        jsonw_obj_end(x->w);
        return 0;
    }
    if (decl != x->last_decl && x->last_decl != GRAPH_NONE)
        printf("  -- inherited from %s\n", decl_name);
    x->last_decl = decl;
    printf("  %-8s %s = ", graph_ftype_name(f->type), name);
    if (f->type == GRAPH_FT_OBJECT) {
        ref_text(g, v->raw, v->ref);
    } else {
        char buf[64];
        fputs(prim_text(buf, sizeof buf, f->type, v->raw), stdout);
    }
    fputc('\n', stdout);
    return 0;
}

static int count_cb(void *ctx, class_ix decl, const graph_field *f, const graph_value *v)
{
    (*(uint32_t *)ctx)++;
    return 0;
}

static void show_fields(show_ctx *x)
{
    const graph *g = x->g;
    node_ix n = x->node;
    if (g->node_kind[n] != GRAPH_KIND_INSTANCE || graph_node_off(g, n) == UINT64_MAX || !g->id_size)
        return;
    uint32_t n_fields = 0;
    graph_fields_each(g, n, count_cb, &n_fields);
    x->last_decl = GRAPH_NONE;
    if (x->w) {
        jsonw_kv_arr_begin(x->w, "fields");
        graph_fields_each(g, n, field_cb, x);
        jsonw_arr_end(x->w);
    } else if (n_fields) {
        printf("fields (%u):\n", n_fields);
        graph_fields_each(g, n, field_cb, x);
    }
}

/* ---- class objects ---- */

static void show_class(show_ctx *x, class_ix c)
{
    const graph *g = x->g;
    const graph_class *k = &g->classes[c];
    const char *super = k->super < g->n_classes ? graph_str(g, g->classes[k->super].name) : NULL;
    jsonw *w = x->w;
    if (w) {
        jsonw_kv_obj_begin(w, "class_info");
        jsonw_kv_str(w, "name", graph_str(g, k->name));
        jsonw_kv_str(w, "super", super);
        jsonw_kv_uint(w, "instance_size", k->instance_size);
        jsonw_kv_arr_begin(w, "instance_fields");
        for (uint32_t i = 0; i < k->n_fields && (uint64_t)k->first_field + i < g->n_fields; i++) {
            const graph_field *f = &g->fields[k->first_field + i];
            jsonw_obj_begin(w);
            jsonw_kv_str(w, "name", graph_str(g, f->name));
            jsonw_kv_str(w, "type", graph_ftype_name(f->type));
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
        jsonw_kv_arr_begin(w, "statics");
        for (uint32_t i = 0; i < k->n_statics && (uint64_t)k->first_static + i < g->n_statics;
             i++) {
            const graph_static *s = &g->statics[k->first_static + i];
            jsonw_obj_begin(w);
            jsonw_kv_str(w, "name", graph_str(g, s->name));
            jsonw_kv_str(w, "type", graph_ftype_name(s->type));
            if (s->type == GRAPH_FT_OBJECT) {
                ref_json(w, g, s->value, s->value ? graph_find_id(g, s->value) : GRAPH_NONE);
            } else {
                jsonw_key(w, "value");
                json_prim(w, s->type, s->value);
            }
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
        jsonw_obj_end(w);
        return;
    }
    char a[CLI_FMT_MAX];
    printf("class:         %s\n", graph_str(g, k->name));
    printf("super:         %s\n", super ? super : "(none)");
    if (g->id_size)
        printf("instance size: %s (field bytes, %u own fields)\n",
               cli_fmt_bytes(a, k->instance_size), k->n_fields);
    if (k->n_statics) {
        printf("statics (%u):\n", k->n_statics);
        for (uint32_t i = 0; i < k->n_statics && (uint64_t)k->first_static + i < g->n_statics;
             i++) {
            const graph_static *s = &g->statics[k->first_static + i];
            printf("  %-8s %s = ", graph_ftype_name(s->type), graph_str(g, s->name));
            if (s->type == GRAPH_FT_OBJECT) {
                ref_text(g, s->value, s->value ? graph_find_id(g, s->value) : GRAPH_NONE);
            } else {
                char buf[64];
                fputs(prim_text(buf, sizeof buf, s->type, s->value), stdout);
            }
            fputc('\n', stdout);
        }
    }
    if (k->n_fields) {
        printf("instance fields (%u, own):\n", k->n_fields);
        for (uint32_t i = 0; i < k->n_fields && (uint64_t)k->first_field + i < g->n_fields; i++) {
            const graph_field *f = &g->fields[k->first_field + i];
            printf("  %-8s %s\n", graph_ftype_name(f->type), graph_str(g, f->name));
        }
    }
}

/* ---- arrays ---- */

static uint64_t read_be(const uint8_t *p, unsigned size)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < size; i++)
        v = (v << 8) | p[i];
    return v;
}

/* Element type and payload of an HPROF array node, or 0 when the bytes are not available
 * (V8 arrays, Android PRIMITIVE_ARRAY_NODATA, offsets past the end). */
static int array_payload(const graph *g, node_ix n, uint8_t *type, unsigned *esz,
                         const uint8_t **p)
{
    class_ix c = g->node_class[n];
    if (!g->id_size || graph_node_off(g, n) == UINT64_MAX || !g->data)
        return 0;
    *type = g->node_kind[n] == GRAPH_KIND_OBJ_ARRAY ? GRAPH_FT_OBJECT
            : c < g->n_classes                      ? g->classes[c].elem_type
                                                    : 0;
    *esz = graph_ftype_size(g, *type);
    uint64_t len = graph_node_len(g, n), off = graph_node_off(g, n);
    if (!*esz || off > g->data_len || len > (g->data_len - off) / *esz)
        return 0;
    *p = g->data + off;
    return 1;
}

static void show_array(show_ctx *x)
{
    const graph *g = x->g;
    node_ix n = x->node;
    unsigned kind = g->node_kind[n];
    if (kind != GRAPH_KIND_OBJ_ARRAY && kind != GRAPH_KIND_PRIM_ARRAY)
        return;
    uint8_t type;
    unsigned esz;
    const uint8_t *p;
    uint64_t len = graph_node_len(g, n);
    int have = array_payload(g, n, &type, &esz, &p);
    uint64_t shown = len;
    if (kind == GRAPH_KIND_PRIM_ARRAY && shown > SHOW_PRIM_ELEMENTS)
        shown = SHOW_PRIM_ELEMENTS;
    if (x->limit && shown > x->limit)
        shown = x->limit;
    if (!have)
        shown = 0;
    const char *tname = have ? graph_ftype_name(type) : "?";
    jsonw *w = x->w;
    if (w) {
        jsonw_kv_obj_begin(w, "array");
        jsonw_kv_str(w, "element_type", tname);
        jsonw_kv_uint(w, "length", len);
        jsonw_kv_bool(w, "contents_available", have);
        jsonw_kv_arr_begin(w, "elements");
    } else {
        char nb[CLI_FMT_MAX];
        printf("length:        %s (%s elements)%s\n", cli_fmt_count(nb, len), tname,
               have ? "" : ", contents not in the dump");
    }
    for (uint64_t i = 0; i < shown; i++) {
        uint64_t raw = read_be(p + i * esz, esz);
        if (type == GRAPH_FT_OBJECT) {
            node_ix ref = raw ? graph_find_id(g, raw) : GRAPH_NONE;
            if (w) {
                jsonw_obj_begin(w);
                jsonw_kv_uint(w, "index", i);
                ref_json(w, g, raw, ref);
                jsonw_obj_end(w);
            } else {
                printf("  [%" PRIu64 "] ", i);
                ref_text(g, raw, ref);
                fputc('\n', stdout);
            }
        } else if (w) {
            json_prim(w, type, raw);
        } else {
            char buf[64];
            printf("%s%s", i ? ", " : "  ", prim_text(buf, sizeof buf, type, raw));
        }
    }
    if (w) {
        jsonw_arr_end(w);
        jsonw_obj_end(w);
        return;
    }
    if (type != GRAPH_FT_OBJECT && shown)
        printf("%s\n", shown < len ? ", ..." : "");
    else if (shown < len && have)
        printf("  ... %s more\n", cli_fmt_count((char[CLI_FMT_MAX]){0}, len - shown));
}

/* ---- edges and referrers ---- */

static void edge_json(jsonw *w, const graph *g, edge_ix e, node_ix other, const char *key)
{
    char id[CLI_FMT_MAX], label[512], name[256];
    unsigned k = g->edge_kind[e];
    jsonw_obj_begin(w);
    jsonw_kv_str(w, key, cli_fmt_id(id, g, graph_node_id(g, other)));
    jsonw_kv_str(w, "class", node_label(g, other, label, sizeof label));
    jsonw_kv_str(w, "edge", graph_edge_kind_name(GRAPH_EDGE_KIND(k)));
    jsonw_kv_str(w, "name", graph_edge_name_text(g, e, name, sizeof name));
    jsonw_kv_str(w, "strength", graph_strength_name(GRAPH_EDGE_STRENGTH(k)));
    jsonw_obj_end(w);
}

static void edge_text(const graph *g, edge_ix e, node_ix other)
{
    char id[CLI_FMT_MAX], label[512], name[256];
    unsigned k = g->edge_kind[e];
    unsigned s = GRAPH_EDGE_STRENGTH(k);
    printf("  %s %s  .%s (%s%s%s)\n", cli_fmt_id(id, g, graph_node_id(g, other)),
           node_label(g, other, label, sizeof label), graph_edge_name_text(g, e, name, sizeof name),
           graph_edge_kind_name(GRAPH_EDGE_KIND(k)), s ? ", " : "",
           s ? graph_strength_name(s) : "");
}

/* Outgoing edges, for nodes whose contents are not decoded above (V8 objects, closures). */
static void show_edges(show_ctx *x)
{
    const graph *g = x->g;
    node_ix n = x->node;
    /* HPROF contents are decoded from the bytes (fields, elements, statics); listing the
     * edges too would only repeat them. */
    if (!g->first_edge || g->id_size || g->node_kind[n] == GRAPH_KIND_CLASS)
        return;
    edge_ix first = g->first_edge[n], end = g->first_edge[n + 1];
    uint64_t total = end - first;
    uint64_t shown = x->limit && total > x->limit ? x->limit : total;
    if (x->w) {
        jsonw_kv_uint(x->w, "edges_total", total);
        jsonw_kv_arr_begin(x->w, "edges");
        for (uint64_t i = 0; i < shown; i++)
            edge_json(x->w, g, first + (edge_ix)i, g->edge_to[first + i], "to");
        jsonw_arr_end(x->w);
        return;
    }
    if (!total)
        return;
    printf("edges (%" PRIu64 "):\n", total);
    for (uint64_t i = 0; i < shown; i++)
        edge_text(g, first + (edge_ix)i, g->edge_to[first + i]);
    if (shown < total)
        printf("  ... %" PRIu64 " more (--limit 0 shows all)\n", total - shown);
}

static lr_status show_referrers(show_ctx *x, graph *g, lr_error *err)
{
    node_ix n = x->node;
    if (!g->first_edge)
        return LR_OK;
    LR_TRY(graph_build_reverse(g, err));
    edge_ix first = g->rev_first[n], end = g->rev_first[n + 1];
    uint64_t total = end - first;
    uint64_t shown = x->limit && total > x->limit ? x->limit : total;
    if (x->w) {
        jsonw_kv_uint(x->w, "referrers_total", total);
        jsonw_kv_arr_begin(x->w, "referrers");
        for (uint64_t i = 0; i < shown; i++) {
            edge_ix e = g->rev_edge[first + i];
            edge_json(x->w, g, e, graph_edge_from(g, e), "from");
        }
        jsonw_arr_end(x->w);
        return LR_OK;
    }
    printf("referrers (%" PRIu64 "):%s\n", total, total ? "" : " none");
    for (uint64_t i = 0; i < shown; i++) {
        edge_ix e = g->rev_edge[first + i];
        edge_text(g, e, graph_edge_from(g, e));
    }
    if (shown < total)
        printf("  ... %" PRIu64 " more (--limit 0 shows all)\n", total - shown);
    return LR_OK;
}

/* ---- V8: DevTools' retained size, distance, dominator and allocation stack ---- */

static void show_frame_text(const graph *g, const v8_frame *f)
{
    const char *fn = f->name == GRAPH_NONE ? "<unknown function>" : graph_str(g, f->name);
    printf("  %s", fn[0] ? fn : "(anonymous)");
    const char *sc = f->script == GRAPH_NONE ? "" : graph_str(g, f->script);
    if (sc[0] || f->line)
        printf("  %s:%" PRIu32 ":%" PRIu32, sc[0] ? sc : "<unknown script>", f->line, f->column);
    fputc('\n', stdout);
}

static void show_devtools(show_ctx *x)
{
    const graph *g = x->g;
    const devtools_result *r = x->dt;
    node_ix n = x->node, d = r->idom[n];
    char id[CLI_FMT_MAX], label[512], a[CLI_FMT_MAX];
    int has_dom = n != r->root && d < g->n_nodes;
    if (x->w) {
        jsonw *w = x->w;
        jsonw_kv_uint(w, "retained", r->retained[n]);
        jsonw_kv_int(w, "distance", r->distance[n]);
        if (has_dom) {
            jsonw_kv_obj_begin(w, "dominator");
            jsonw_kv_str(w, "id", cli_fmt_id(id, g, graph_node_id(g, d)));
            jsonw_kv_str(w, "class", node_label(g, d, label, sizeof label));
            jsonw_obj_end(w);
        } else {
            jsonw_kv_null(w, "dominator");
        }
        if (!x->has_traces) {
            jsonw_kv_null(w, "allocation_stack");
            return;
        }
        jsonw_kv_arr_begin(w, "allocation_stack");
        for (uint32_t i = 0; i < x->n_stack; i++) {
            const v8_frame *f = &x->stack[i];
            jsonw_obj_begin(w);
            jsonw_kv_str(w, "function", f->name == GRAPH_NONE ? "" : graph_str(g, f->name));
            jsonw_kv_str(w, "script", f->script == GRAPH_NONE ? "" : graph_str(g, f->script));
            jsonw_kv_uint(w, "script_id", f->script_id);
            jsonw_kv_uint(w, "line", f->line);
            jsonw_kv_uint(w, "column", f->column);
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
        jsonw_kv_uint(w, "allocation_stack_depth", x->stack_depth);
        return;
    }
    printf("retained size: %s (DevTools)\n", cli_fmt_bytes(a, r->retained[n]));
    if (r->distance[n] == DEVTOOLS_NO_DISTANCE)
        printf("distance:      none (unreachable without weak edges)\n");
    else if (r->distance[n] >= DEVTOOLS_SYSTEM_DISTANCE)
        printf("distance:      %s (reached only through the root's system edges)\n",
               cli_fmt_distance(id, r->distance[n]));
    else
        printf("distance:      %s\n", cli_fmt_distance(id, r->distance[n]));
    if (has_dom)
        printf("dominator:     %s %s\n", cli_fmt_id(id, g, graph_node_id(g, d)),
               node_label(g, d, label, sizeof label));
    if (!x->has_traces)
        return;
    if (!x->stack_depth) {
        printf("allocation stack: none recorded\n");
        return;
    }
    printf("allocation stack (innermost first):\n");
    for (uint32_t i = 0; i < x->n_stack; i++)
        show_frame_text(g, &x->stack[i]);
    if (x->stack_depth > x->n_stack)
        printf("  ... %" PRIu32 " more frames\n", x->stack_depth - x->n_stack);
}

/* ---- other dumps: retained size and dominator as `leakray top` computes them ---- */

static void show_retained(show_ctx *x)
{
    const graph *g = x->g;
    const cli_retained *r = x->rt;
    node_ix n = x->node, d = r->idom[n];
    char id[CLI_FMT_MAX], label[512], a[CLI_FMT_MAX];
    int has_dom = d < g->n_nodes;
    if (x->w) {
        jsonw *w = x->w;
        jsonw_kv_uint(w, "retained", r->retained[n]);
        jsonw_kv_str(w, "retained_model", r->model);
        if (has_dom) {
            jsonw_kv_obj_begin(w, "dominator");
            jsonw_kv_str(w, "id", cli_fmt_id(id, g, graph_node_id(g, d)));
            jsonw_kv_str(w, "class", node_label(g, d, label, sizeof label));
            jsonw_obj_end(w);
        } else {
            jsonw_kv_null(w, "dominator");
        }
        return;
    }
    printf("retained size: %s (%s model, as `leakray top`)\n", cli_fmt_bytes(a, r->retained[n]),
           r->model);
    if (has_dom)
        printf("dominator:     %s %s\n", cli_fmt_id(id, g, graph_node_id(g, d)),
               node_label(g, d, label, sizeof label));
    else if (d == GRAPH_NONE)
        printf("dominator:     none (unreachable)\n");
    else
        printf("dominator:     GC roots (nothing else holds it alone)\n");
}

/* ---- the object ---- */

static lr_status show_node(show_ctx *x, graph *g, lr_error *err)
{
    node_ix n = x->node;
    jsonw *w = x->w;
    char id[CLI_FMT_MAX], label[512], a[CLI_FMT_MAX];
    const char *heap = g->node_heap && g->node_heap[n] < g->n_heaps
                           ? graph_str(g, g->heap_names[g->node_heap[n]])
                           : NULL;
    class_ix as_class = class_of_node(g, n);
    /* V8 node names (function names, property keys...) say more than the class key. */
    const char *node_name = g->node_name ? graph_str(g, g->node_name[n]) : "";
    if (strcmp(node_name, node_label(g, n, label, sizeof label)) == 0)
        node_name = "";
    char sval[SHOW_FULL_STRING + 1];
    size_t sshown;
    long slen = string_of(g, n, sval, sizeof sval, &sshown);

    /* GC roots of this node, in dump order, each kind once. */
    uint8_t seen[GRAPH_ROOT_KIND_COUNT + 1] = {0};
    for (uint32_t r = 0; r < g->n_roots; r++)
        if (g->roots[r].node == n)
            seen[g->roots[r].kind < GRAPH_ROOT_KIND_COUNT ? g->roots[r].kind
                                                          : GRAPH_ROOT_KIND_COUNT] = 1;

    if (w) {
        jsonw_kv_obj_begin(w, "object");
        jsonw_kv_str(w, "id", cli_fmt_id(id, g, graph_node_id(g, n)));
        jsonw_kv_str(w, "class", node_label(g, n, label, sizeof label));
        jsonw_kv_str(w, "kind", graph_node_kind_name(g->node_kind[n]));
        if (g->node_type && g->node_type[n] < g->n_types && g->type_names[g->node_type[n]])
            jsonw_kv_str(w, "type", g->type_names[g->node_type[n]]);
        jsonw_kv_str(w, "heap", heap);
        jsonw_kv_uint(w, "shallow", graph_node_size(g, n));
        if (g->node_native)
            jsonw_kv_uint(w, "native", g->node_native[n]);
        jsonw_kv_arr_begin(w, "roots");
        for (unsigned k = 0; k <= GRAPH_ROOT_KIND_COUNT; k++)
            if (seen[k])
                jsonw_str(w, k < GRAPH_ROOT_KIND_COUNT ? graph_root_kind_name(k) : "other");
        jsonw_arr_end(w);
        const ruby_site *site = ruby_site_get(g, ruby_site_of(g, n));
        if (site) { /* Ruby with allocation tracing */
            jsonw_kv_obj_begin(w, "allocation_site");
            jsonw_kv_str(w, "file", graph_str(g, site->file));
            jsonw_kv_uint(w, "line", site->line);
            jsonw_kv_str(w, "method", graph_str(g, site->method));
            jsonw_obj_end(w);
        }
        if (node_name[0] && slen < 0)
            jsonw_kv_str(w, "name", node_name);
        if (slen >= 0) {
            jsonw_key(w, "string");
            jsonw_strn(w, sval, sshown);
            jsonw_kv_uint(w, "string_bytes", (uint64_t)slen);
        }
    } else {
        printf("%s %s\n", cli_fmt_id(id, g, graph_node_id(g, n)),
               node_label(g, n, label, sizeof label));
        printf("kind:          %s", graph_node_kind_name(g->node_kind[n]));
        if (g->node_type && g->node_type[n] < g->n_types && g->type_names[g->node_type[n]] &&
            strcmp(g->type_names[g->node_type[n]], graph_node_kind_name(g->node_kind[n])) != 0)
            printf(" (%s)", g->type_names[g->node_type[n]]);
        fputc('\n', stdout);
        if (node_name[0] && slen < 0) {
            printf("name:          ");
            cli_put_text(stdout, node_name, strlen(node_name), SHOW_STRING_PREVIEW);
            fputc('\n', stdout);
        }
        if (heap)
            printf("heap:          %s\n", heap);
        printf("shallow size:  %s\n", cli_fmt_bytes(a, graph_node_size(g, n)));
        if (g->node_native && g->node_native[n])
            printf("native size:   %s\n", cli_fmt_bytes(a, g->node_native[n]));
        int any = 0;
        for (unsigned k = 0; k <= GRAPH_ROOT_KIND_COUNT; k++) {
            if (!seen[k])
                continue;
            printf("%s%s", any ? ", " : "gc roots:      ",
                   k < GRAPH_ROOT_KIND_COUNT ? graph_root_kind_title(k) : "other");
            any = 1;
        }
        if (any)
            fputc('\n', stdout);
        char site[600];
        if (ruby_site_text(g, ruby_site_of(g, n), site, sizeof site))
            printf("allocated at:  %s\n", site);
        if (slen >= 0) {
            printf("value:         \"");
            cli_put_text(stdout, sval, (size_t)slen > sshown ? (size_t)slen : sshown, sshown);
            printf("\" (%ld bytes UTF-8)\n", slen);
        }
    }
    if (x->dt)
        show_devtools(x);
    else if (x->rt)
        show_retained(x);
    if (as_class != GRAPH_NONE)
        show_class(x, as_class);
    show_fields(x);
    show_array(x);
    show_edges(x);
    LR_TRY(show_referrers(x, g, err));
    if (w)
        jsonw_obj_end(w);
    return LR_OK;
}

int cmd_show(int argc, char **argv)
{
    uint64_t limit = 20;
    const cli_optdef opts[] = {
        {"--limit", CLI_OPT_UINT, &limit, "N",
         "rows per list: referrers, elements, edges (default 20; 0 = all)", NULL},
        {0},
    };
    const cli_spec spec = {
        "show", "FILE ID",
        "One object: class, kind, heap, size, GC roots, fields, statics, array contents and\n"
        "the objects referring to it.",
        opts, 2, 2,
        "ID is an object id as other commands print it: 0x7f3a10 (hex), 123 (decimal) or @123\n"
        "(V8 node id). A class name (java.util.HashMap) shows that class's object, with\n"
        "its static fields."};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    const char *path = co.pos[0], *arg = co.pos[1];
    uint64_t id = 0;
    int by_id = cli_parse_id(arg, &id);
    /* Anything starting like a number must be one; everything else names a class. */
    if (!by_id && (!arg[0] || arg[0] == '@' || (arg[0] >= '0' && arg[0] <= '9')))
        return cli_usage_error(&co, "'%s' is not an object id (0x1f, 31 or @31) or a class name",
                               arg);

    lr_heap *lh;
    if ((rc = cli_open(&co, path, 0, &lh)) != 0)
        return rc;
    graph *g = lr_heap_graph(lh);

    node_ix n = GRAPH_NONE;
    if (by_id) {
        n = graph_find_id(g, id);
    } else {
        class_ix c = graph_find_class(g, arg);
        if (c != GRAPH_NONE && c < g->n_classes)
            n = g->classes[c].node;
    }
    if (n == GRAPH_NONE || n >= g->n_nodes) {
        rc = cli_fail(&co, LR_ERR_NOT_FOUND, "%s: no %s %s in the dump", path,
                      by_id ? "object with id" : "class named", arg);
        lr_close(lh);
        return rc;
    }

    show_ctx x = {.co = &co, .g = g, .node = n, .limit = limit, .last_decl = GRAPH_NONE};
    jsonw w;
    lr_error err = {.offset = LR_NO_OFFSET};
    lr_status s;
    /* V8/Node/ArkTS: DevTools' numbers and the allocation stack, computed before any output
     * so a failure prints a clean error. */
    devtools_result dt;
    memset(&dt, 0, sizeof dt);
    v8_frame frames[SHOW_MAX_FRAMES];
    if (v8_class_keys(g) && g->synthetic_root != GRAPH_NONE) {
        uint32_t depth = 0;
        if (devtools_build(g, v8_class_keys(g), &dt, &err) != LR_OK ||
            v8_alloc_stack(g, n, frames, SHOW_MAX_FRAMES, &depth, &err) != LR_OK) {
            devtools_free(&dt);
            rc = cli_error(&co, &err);
            lr_close(lh);
            return rc;
        }
        x.dt = &dt;
        x.stack = frames;
        x.stack_depth = depth;
        x.n_stack = depth < SHOW_MAX_FRAMES ? depth : SHOW_MAX_FRAMES;
        x.has_traces = v8_has_traces(g);
    }
    cli_retained rt;
    memset(&rt, 0, sizeof rt);
    if (!x.dt && g->first_edge) {
        if (cli_retained_build(g, &rt, &err) != LR_OK) {
            rc = cli_error(&co, &err);
            lr_close(lh);
            return rc;
        }
        x.rt = &rt;
    }
    if (co.json) {
        /* Reverse edges are built before any output so a failure prints a clean error. */
        if (g->first_edge && (s = graph_build_reverse(g, &err)) != LR_OK) {
            rc = cli_error(&co, &err);
            lr_close(lh);
            return rc;
        }
        x.w = &w;
        cli_json_begin(&w);
        s = show_node(&x, g, &err);
        cli_json_end(&co, &w);
    } else {
        s = show_node(&x, g, &err);
        if (s == LR_OK)
            cli_print_timing(&co, stdout, "load time", co.load_ms);
    }
    rc = s == LR_OK ? CLI_EXIT_OK : cli_error(&co, &err);
    devtools_free(&dt);
    cli_retained_free(&rt);
    lr_close(lh);
    return rc;
}
