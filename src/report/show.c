/* SPDX-License-Identifier: Apache-2.0 */
/* show.c: one object as text and JSON (report layer), prefix rep_show_. Walks a show_result in
 * a fixed order (header, retained size, class, fields, elements, edges, referrers). A
 * reference prints as id + label + the first SHOW_STRING_PREVIEW bytes of its string value;
 * a label is "class NAME" for class objects, else the class name, the V8 node name or the
 * node kind, with control characters turned to '?' (V8 strings are named by their contents
 * and must never drive the terminal). Primitive values print as Java writes them; in JSON a
 * char is a one-character string (a lone surrogate becomes U+FFFD, which UTF-8 can carry). */
#include "report/show.h"

#include "report/fmt.h"
#include "report/text.h"
#include "rules/rules.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define REP_SHOW_LABEL_MAX 512 /* bytes of a node label */

/* ---- values ---- */

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

/* Display name of a node: "class Foo" for class objects, a synthetic node's own name
 * ("(root)", "(GC roots)", "(Stack roots)": their class is "(synthetic)" alike), else its
 * class name. */
/* node_label as the dump names it, for JSON */
static const char *node_label_raw(const graph *g, node_ix n, char *buf, size_t cap)
{
    class_ix c = show_class_of_node(g, n);
    const char *syn = rep_fmt_synthetic_name(g, n);
    if (syn) {
        snprintf(buf, cap, "%s", syn);
    } else if (c != GRAPH_NONE) {
        snprintf(buf, cap, "class %s", graph_str(g, g->classes[c].name));
    } else {
        const char *name = graph_class_name(g, n);
        if (!name[0] && g->node_name)
            name = graph_str(g, g->node_name[n]);
        if (!name[0])
            name = graph_node_kind_name(g->node_kind[n]);
        snprintf(buf, cap, "%s", name);
    }
    return buf;
}

/* What a node is called, for a terminal: its class ("class X" for a class object) or, where
 * it has none, its name or kind, escaped as every verb shows a dump's names. */
static const char *node_label(const graph *g, node_ix n, char *buf, size_t cap)
{
    char raw[REP_SHOW_LABEL_MAX];
    node_label_raw(g, n, raw, sizeof raw);
    const char *t = rep_fmt_term(buf, cap, raw);
    if (t != buf)
        snprintf(buf, cap, "%s", t);
    return buf;
}

/* The string value of n, up to SHOW_STRING_PREVIEW bytes, into buf: returns its full UTF-8
 * length (-1: no string) and sets *shown to the bytes held in buf (NULs allowed). */
static long string_preview(const graph *g, node_ix n, char buf[SHOW_STRING_PREVIEW + 1],
                           size_t *shown)
{
    long len = graph_string_value(g, n, buf, SHOW_STRING_PREVIEW + 1);
    *shown = len < 0 ? 0 : (size_t)len < SHOW_STRING_PREVIEW + 1 ? (size_t)len : strlen(buf);
    return len;
}

/* Text: "null", "0x1f (not in dump)", or `0x1f java.lang.String "text"`. */
static void ref_text(FILE *out, const graph *g, show_value v)
{
    char id[REP_FMT_MAX], label[REP_SHOW_LABEL_MAX];
    if (v.raw == 0 && v.ref == GRAPH_NONE) {
        fputs("null", out);
        return;
    }
    if (v.ref == GRAPH_NONE || v.ref >= g->n_nodes) {
        fprintf(out, "%s (not in dump)", rep_fmt_id(id, g, v.raw));
        return;
    }
    fprintf(out, "%s %s", rep_fmt_id(id, g, graph_node_id(g, v.ref)),
            node_label(g, v.ref, label, sizeof label));
    char s[SHOW_STRING_PREVIEW + 1];
    size_t shown;
    long len = string_preview(g, v.ref, s, &shown);
    if (len >= 0) {
        fputs(" \"", out);
        /* Claiming the full length makes rep_fmt_text mark a cut string with "...". */
        rep_fmt_text(out, s, (size_t)len > shown ? (size_t)len : shown, shown);
        fputc('"', out);
    }
}

/* JSON members describing a reference (inside an open object). */
static void ref_json(jsonw *w, const graph *g, show_value v)
{
    char id[REP_FMT_MAX], label[REP_SHOW_LABEL_MAX];
    if (v.raw == 0 && v.ref == GRAPH_NONE) {
        jsonw_kv_null(w, "value");
        return;
    }
    uint64_t shown_id = v.ref < g->n_nodes ? graph_node_id(g, v.ref) : v.raw;
    jsonw_kv_str(w, "value", rep_fmt_id(id, g, shown_id));
    if (v.ref == GRAPH_NONE || v.ref >= g->n_nodes) {
        jsonw_kv_bool(w, "missing", 1);
        return;
    }
    jsonw_kv_str(w, "class", node_label_raw(g, v.ref, label, sizeof label));
    char s[SHOW_STRING_PREVIEW + 1];
    size_t shown;
    if (string_preview(g, v.ref, s, &shown) >= 0) {
        jsonw_key(w, "string");
        jsonw_strn(w, s, shown);
    }
}

static const char *decl_name(const graph *g, class_ix decl)
{
    return decl < g->n_classes ? graph_str(g, g->classes[decl].name) : "";
}

/* ---- edges and referrers ---- */

static void edge_json(jsonw *w, const graph *g, edge_ix e, node_ix other, const char *key)
{
    char id[REP_FMT_MAX], label[REP_SHOW_LABEL_MAX], name[256];
    unsigned k = g->edge_kind[e];
    jsonw_obj_begin(w);
    jsonw_kv_str(w, key, rep_fmt_id(id, g, graph_node_id(g, other)));
    jsonw_kv_str(w, "class", node_label_raw(g, other, label, sizeof label));
    jsonw_kv_str(w, "edge", graph_edge_kind_name(GRAPH_EDGE_KIND(k)));
    jsonw_kv_str(w, "name", graph_edge_name_text(g, e, name, sizeof name));
    jsonw_kv_str(w, "strength", graph_strength_name(GRAPH_EDGE_STRENGTH(k)));
    jsonw_obj_end(w);
}

static void edge_text(FILE *out, const graph *g, edge_ix e, node_ix other)
{
    char id[REP_FMT_MAX], label[REP_SHOW_LABEL_MAX], name[256], shown[4 * 256 + 4];
    unsigned k = g->edge_kind[e];
    unsigned s = GRAPH_EDGE_STRENGTH(k);
    /* a V8 weak edge is weak by its kind: "(weak)", not "(weak, weak)" */
    if (GRAPH_EDGE_KIND(k) == GRAPH_EDGE_WEAK && s == GRAPH_WEAK)
        s = GRAPH_STRONG;
    /* an index reads "[3]" as DevTools writes it; JVM dumps keep their ".[3]" */
    const char *dot = GRAPH_EDGE_NAME_IS_INDEX(GRAPH_EDGE_KIND(k)) &&
                      rep_fmt_runtime(g) != REP_RT_JAVA ? "" : ".";
    fprintf(out, "  %s %s  %s%s (%s%s%s)\n", rep_fmt_id(id, g, graph_node_id(g, other)),
            node_label(g, other, label, sizeof label), dot,
            rep_fmt_term(shown, sizeof shown, graph_edge_name_text(g, e, name, sizeof name)),
            graph_edge_kind_name(GRAPH_EDGE_KIND(k)),
            s ? ", " : "", s ? graph_strength_name(s) : "");
}

/* ---- JSON ---- */

static void json_tree(jsonw *w, const show_result *r)
{
    const graph *g = r->g;
    char id[REP_FMT_MAX], label[REP_SHOW_LABEL_MAX];
    jsonw_kv_uint(w, "retained", r->retained);
    if (r->ret == SHOW_RET_DEVTOOLS)
        jsonw_kv_int(w, "distance", r->distance);
    else
        jsonw_kv_str(w, "retained_model", r->model);
    if (r->dominator < g->n_nodes) {
        jsonw_kv_obj_begin(w, "dominator");
        jsonw_kv_str(w, "id", rep_fmt_id(id, g, graph_node_id(g, r->dominator)));
        jsonw_kv_str(w, "class", node_label_raw(g, r->dominator, label, sizeof label));
        jsonw_obj_end(w);
    } else {
        jsonw_kv_null(w, "dominator");
    }
    if (r->ret != SHOW_RET_DEVTOOLS)
        return;
    if (!r->has_traces) {
        jsonw_kv_null(w, "allocation_stack");
        return;
    }
    jsonw_kv_arr_begin(w, "allocation_stack");
    for (uint32_t i = 0; i < r->n_stack; i++) {
        const show_frame *f = &r->stack[i];
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "function", f->name == GRAPH_NONE ? "" : graph_str(g, f->name));
        jsonw_kv_str(w, "script", f->script == GRAPH_NONE ? "" : graph_str(g, f->script));
        jsonw_kv_uint(w, "script_id", f->script_id);
        jsonw_kv_uint(w, "line", f->line);
        jsonw_kv_uint(w, "column", f->column);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_kv_uint(w, "allocation_stack_depth", r->stack_depth);
}

static void json_class(jsonw *w, const show_result *r)
{
    const graph *g = r->g;
    const graph_class *k = &g->classes[r->as_class];
    const char *super = k->super < g->n_classes ? graph_str(g, g->classes[k->super].name) : NULL;
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
    for (uint32_t i = 0; i < r->n_statics; i++) {
        const graph_static *s = &g->statics[k->first_static + i];
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "name", graph_str(g, s->name));
        jsonw_kv_str(w, "type", graph_ftype_name(s->type));
        if (s->type == GRAPH_FT_OBJECT) {
            ref_json(w, g, r->statics[i]);
        } else {
            jsonw_key(w, "value");
            json_prim(w, s->type, s->value);
        }
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

static void json_lists(jsonw *w, const show_result *r)
{
    const graph *g = r->g;
    if (r->has_fields) {
        jsonw_kv_arr_begin(w, "fields");
        for (uint32_t i = 0; i < r->n_fields; i++) {
            const show_field *f = &r->fields[i];
            jsonw_obj_begin(w);
            jsonw_kv_str(w, "name", graph_str(g, f->f->name));
            jsonw_kv_str(w, "type", graph_ftype_name(f->f->type));
            jsonw_kv_str(w, "declared_in", decl_name(g, f->decl));
            if (f->f->type == GRAPH_FT_OBJECT) {
                ref_json(w, g, f->v);
            } else {
                jsonw_key(w, "value");
                json_prim(w, f->f->type, f->v.raw);
            }
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
    }
    if (r->is_array) {
        jsonw_kv_obj_begin(w, "array");
        jsonw_kv_str(w, "element_type", r->have_elements ? graph_ftype_name(r->elem_type) : "?");
        jsonw_kv_uint(w, "length", r->length);
        jsonw_kv_bool(w, "contents_available", r->have_elements);
        jsonw_kv_arr_begin(w, "elements");
        for (uint64_t i = 0; i < r->n_elements; i++) {
            show_value v = show_element(r, i);
            if (r->elem_type == GRAPH_FT_OBJECT) {
                jsonw_obj_begin(w);
                jsonw_kv_uint(w, "index", i);
                ref_json(w, g, v);
                jsonw_obj_end(w);
            } else {
                json_prim(w, r->elem_type, v.raw);
            }
        }
        jsonw_arr_end(w);
        jsonw_obj_end(w);
    }
    if (r->has_edges) {
        jsonw_kv_uint(w, "edges_total", r->edges_total);
        jsonw_kv_arr_begin(w, "edges");
        for (uint64_t i = 0; i < r->n_edges; i++) {
            edge_ix e = r->first_edge + (edge_ix)i;
            edge_json(w, g, e, g->edge_to[e], "to");
        }
        jsonw_arr_end(w);
    }
    if (r->has_referrers) {
        jsonw_kv_uint(w, "referrers_total", r->referrers_total);
        jsonw_kv_arr_begin(w, "referrers");
        for (uint64_t i = 0; i < r->n_referrers; i++) {
            edge_ix e = r->referrers[i];
            edge_json(w, g, e, graph_edge_from(g, e), "from");
        }
        jsonw_arr_end(w);
    }
}

/* Node names (function names, property keys...) say more than the class key, unless equal
 * to the label. */
/* A JavaScript number whose value the snapshot records (a heap number with
 * exposeNumericValues, a smi node): 1 and *js, else 0. */
static int js_number(const graph *g, node_ix n, rules_js *js)
{
    return rules_js_primitive(g, n, js) && (js->kind == RULES_JS_INT ||
                                            js->kind == RULES_JS_FLOAT);
}

/* d in the fewest digits that read back as d (0.1, not 0.10000000000000001). */
static const char *shortest(double d, char *buf, size_t cap)
{
    for (int p = 15; p <= 17; p++) {
        snprintf(buf, cap, "%.*g", p, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    return buf;
}

static const char *own_name(const show_result *r)
{
    char label[REP_SHOW_LABEL_MAX];
    if (strcmp(r->name, node_label_raw(r->g, r->node, label, sizeof label)) == 0)
        return "";
    return r->name;
}

void rep_show_json(jsonw *w, const show_result *r)
{
    const graph *g = r->g;
    node_ix n = r->node;
    char id[REP_FMT_MAX], label[REP_SHOW_LABEL_MAX];
    const char *name = own_name(r);
    jsonw_kv_obj_begin(w, "object");
    jsonw_kv_str(w, "id", rep_fmt_id(id, g, graph_node_id(g, n)));
    jsonw_kv_str(w, "class", node_label_raw(g, n, label, sizeof label));
    jsonw_kv_str(w, "kind", graph_node_kind_name(g->node_kind[n]));
    if (r->type)
        jsonw_kv_str(w, "type", r->type);
    jsonw_kv_str(w, "heap", r->heap);
    jsonw_kv_uint(w, "shallow", graph_node_size(g, n));
    if (g->node_native)
        jsonw_kv_uint(w, "native", g->node_native[n]);
    jsonw_kv_arr_begin(w, "roots");
    for (unsigned k = 0; k <= GRAPH_ROOT_KIND_COUNT; k++)
        if (r->roots[k])
            jsonw_str(w, k < GRAPH_ROOT_KIND_COUNT ? graph_root_kind_name(k) : "other");
    jsonw_arr_end(w);
    if (r->n_thread_roots) {
        jsonw_kv_arr_begin(w, "thread_roots");
        for (uint32_t k = 0; k < r->n_thread_roots; k++) {
            jsonw_obj_begin(w);
            jsonw_kv_str(w, "kind", graph_root_kind_name(r->thread_roots[k]->kind));
            rep_root_thread_json(w, g, r->thread_roots[k]);
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
        jsonw_kv_bool(w, "thread_roots_more", r->thread_roots_more);
    }
    if (r->has_site) { /* Ruby with allocation tracing */
        jsonw_kv_obj_begin(w, "allocation_site");
        jsonw_kv_str(w, "file", graph_str(g, r->site.file));
        jsonw_kv_uint(w, "line", r->site.line);
        jsonw_kv_str(w, "method", graph_str(g, r->site.method));
        jsonw_obj_end(w);
    }
    if (name[0] && r->string_len < 0)
        jsonw_kv_str(w, "name", name);
    const graph_loc *at = graph_node_loc(g, r->node);
    if (at) { /* a V8 closure: where its function is written */
        char b[GRAPH_LOC_MAX];
        jsonw_kv_obj_begin(w, "location");
        jsonw_kv_str(w, "text", graph_loc_text(g, at, b));
        jsonw_kv_str(w, "url", graph_str(g, at->url));
        jsonw_kv_uint(w, "script_id", at->script);
        jsonw_kv_uint(w, "line", (uint64_t)at->line + 1);
        jsonw_kv_uint(w, "column", (uint64_t)at->col + 1);
        jsonw_obj_end(w);
    }
    rules_js js;
    if (js_number(g, r->node, &js)) {
        if (js.kind == RULES_JS_INT)
            jsonw_kv_int(w, "number", js.i);
        else
            jsonw_key(w, "number"), jsonw_double(w, js.d);
    }
    if (r->string_len >= 0) {
        jsonw_key(w, "string");
        jsonw_strn(w, r->string, r->string_shown);
        jsonw_kv_uint(w, "string_bytes", (uint64_t)r->string_len);
        if (graph_string_partial(g, r->node))
            jsonw_kv_bool(w, "string_partial", 1);
    }
    if (r->ret != SHOW_RET_NONE)
        json_tree(w, r);
    if (r->as_class != GRAPH_NONE)
        json_class(w, r);
    json_lists(w, r);
    jsonw_obj_end(w);
}

/* ---- text ---- */

static void text_frame(FILE *out, const graph *g, const show_frame *f)
{
    const char *fn = f->name == GRAPH_NONE ? "<unknown function>" : graph_str(g, f->name);
    fprintf(out, "  %s", fn[0] ? fn : "(anonymous)");
    const char *sc = f->script == GRAPH_NONE ? "" : graph_str(g, f->script);
    if (sc[0] || f->line)
        fprintf(out, "  %s:%" PRIu32 ":%" PRIu32, sc[0] ? sc : "<unknown script>", f->line,
                f->column);
    fputc('\n', out);
}

static void text_tree(FILE *out, const show_result *r)
{
    const graph *g = r->g;
    char id[REP_FMT_MAX], label[REP_SHOW_LABEL_MAX], a[REP_FMT_MAX];
    node_ix d = r->dominator;
    if (r->ret == SHOW_RET_TREE) {
        fprintf(out, "retained size: %s (%s model, as `leakray top`)\n",
                rep_fmt_bytes(a, r->retained), r->model);
        if (d < g->n_nodes)
            fprintf(out, "dominator:     %s %s\n", rep_fmt_id(id, g, graph_node_id(g, d)),
                    node_label(g, d, label, sizeof label));
        else if (d == GRAPH_NONE)
            fprintf(out, "dominator:     none (unreachable)\n");
        else
            fprintf(out, "dominator:     GC roots (nothing else holds it alone)\n");
        return;
    }
    fprintf(out, "retained size: %s (DevTools)\n", rep_fmt_bytes(a, r->retained));
    if (r->distance == DEVTOOLS_NO_DISTANCE)
        fprintf(out, "distance:      none (unreachable without weak edges)\n");
    else if (r->distance >= DEVTOOLS_SYSTEM_DISTANCE)
        fprintf(out, "distance:      %s (reached only through the root's system edges)\n",
                rep_fmt_distance(id, r->distance));
    else
        fprintf(out, "distance:      %s\n", rep_fmt_distance(id, r->distance));
    if (d < g->n_nodes)
        fprintf(out, "dominator:     %s %s\n", rep_fmt_id(id, g, graph_node_id(g, d)),
                node_label(g, d, label, sizeof label));
    if (!r->has_traces)
        return;
    if (!r->stack_depth) {
        fprintf(out, "allocation stack: none recorded\n");
        return;
    }
    fprintf(out, "allocation stack (innermost first):\n");
    for (uint32_t i = 0; i < r->n_stack; i++)
        text_frame(out, g, &r->stack[i]);
    if (r->stack_depth > r->n_stack)
        fprintf(out, "  ... %" PRIu32 " more frames\n", r->stack_depth - r->n_stack);
}

static void text_class(FILE *out, const show_result *r)
{
    const graph *g = r->g;
    const graph_class *k = &g->classes[r->as_class];
    const char *super = k->super < g->n_classes ? graph_str(g, g->classes[k->super].name) : NULL;
    char a[REP_FMT_MAX], buf[64];
    fprintf(out, "class:         ");
    rep_fmt_name(out, graph_str(g, k->name));
    fprintf(out, "\nsuper:         ");
    rep_fmt_name(out, super ? super : "(none)");
    fputc('\n', out);
    if (g->id_size)
        fprintf(out, "instance size: %s (field bytes, %s own fields)\n",
                rep_fmt_bytes(a, k->instance_size), REP_FMT_COUNT(k->n_fields));
    if (k->n_statics) {
        fprintf(out, "statics (%s):\n", rep_fmt_count(a, k->n_statics));
        for (uint32_t i = 0; i < r->n_statics; i++) {
            const graph_static *s = &g->statics[k->first_static + i];
            fprintf(out, "  %-8s %s = ", graph_ftype_name(s->type), graph_str(g, s->name));
            if (s->type == GRAPH_FT_OBJECT)
                ref_text(out, g, r->statics[i]);
            else
                fputs(prim_text(buf, sizeof buf, s->type, s->value), out);
            fputc('\n', out);
        }
    }
    if (k->n_fields) {
        fprintf(out, "instance fields (%s, own):\n", rep_fmt_count(a, k->n_fields));
        for (uint32_t i = 0; i < k->n_fields && (uint64_t)k->first_field + i < g->n_fields; i++) {
            const graph_field *f = &g->fields[k->first_field + i];
            fprintf(out, "  %-8s %s\n", graph_ftype_name(f->type), graph_str(g, f->name));
        }
    }
}

static void text_fields(FILE *out, const show_result *r)
{
    const graph *g = r->g;
    char buf[64];
    if (!r->n_fields)
        return;
    fprintf(out, "fields (%s):\n", REP_FMT_COUNT(r->n_fields));
    /* the object's own class first: when it declares no field, the first ones shown are
     * already inherited and say so */
    class_ix last = graph_node_class(g, r->node);
    for (uint32_t i = 0; i < r->n_fields; i++) {
        const show_field *f = &r->fields[i];
        /* a new declaring class: the fields below are inherited from it */
        if (f->decl != last && last != GRAPH_NONE && f->decl != GRAPH_NONE)
            fprintf(out, "  -- inherited from %s\n", decl_name(g, f->decl));
        last = f->decl;
        fprintf(out, "  %-8s ", graph_ftype_name(f->f->type));
        rep_fmt_name(out, graph_str(g, f->f->name));
        fputs(" = ", out);
        if (f->f->type == GRAPH_FT_OBJECT)
            ref_text(out, g, f->v);
        else
            fputs(prim_text(buf, sizeof buf, f->f->type, f->v.raw), out);
        fputc('\n', out);
    }
}

static void text_array(FILE *out, const show_result *r)
{
    const graph *g = r->g;
    char nb[REP_FMT_MAX], buf[64];
    fprintf(out, "length:        %s (%s elements)%s\n", rep_fmt_count(nb, r->length),
            r->have_elements ? graph_ftype_name(r->elem_type) : "?",
            r->have_elements ? "" : ", contents not in the dump");
    int refs = r->elem_type == GRAPH_FT_OBJECT;
    for (uint64_t i = 0; i < r->n_elements; i++) {
        show_value v = show_element(r, i);
        if (refs) {
            fprintf(out, "  [%" PRIu64 "] ", i);
            ref_text(out, g, v);
            fputc('\n', out);
        } else {
            fprintf(out, "%s%s", i ? ", " : "  ", prim_text(buf, sizeof buf, r->elem_type, v.raw));
        }
    }
    if (!refs && r->n_elements)
        fprintf(out, "%s\n", r->n_elements < r->length ? ", ..." : "");
    else if (r->n_elements < r->length && r->have_elements)
        fprintf(out, "  ... %s more\n", rep_fmt_count(nb, r->length - r->n_elements));
}

static void text_lists(FILE *out, const show_result *r)
{
    const graph *g = r->g;
    if (r->has_edges && r->edges_total) {
        fprintf(out, "edges (%s):\n", REP_FMT_COUNT(r->edges_total));
        for (uint64_t i = 0; i < r->n_edges; i++) {
            edge_ix e = r->first_edge + (edge_ix)i;
            edge_text(out, g, e, g->edge_to[e]);
        }
        if (r->n_edges < r->edges_total)
            fprintf(out, "  ... %s more (--limit 0 shows all)\n",
                    REP_FMT_COUNT(r->edges_total - r->n_edges));
    }
    if (!r->has_referrers)
        return;
    fprintf(out, "referrers (%s):%s\n", REP_FMT_COUNT(r->referrers_total),
            r->referrers_total ? "" : " none");
    for (uint64_t i = 0; i < r->n_referrers; i++) {
        edge_ix e = r->referrers[i];
        edge_text(out, g, e, graph_edge_from(g, e));
    }
    if (r->n_referrers < r->referrers_total)
        fprintf(out, "  ... %s more (--limit 0 shows all)\n",
                REP_FMT_COUNT(r->referrers_total - r->n_referrers));
}

void rep_show_text(FILE *out, const show_result *r)
{
    const graph *g = r->g;
    node_ix n = r->node;
    char id[REP_FMT_MAX], label[REP_SHOW_LABEL_MAX], a[REP_FMT_MAX];
    const char *name = own_name(r);
    const char *kind = graph_node_kind_name(g->node_kind[n]);
    fprintf(out, "%s %s\n", rep_fmt_id(id, g, graph_node_id(g, n)),
            node_label(g, n, label, sizeof label));
    fprintf(out, "kind:          %s", kind);
    if (r->type && strcmp(r->type, kind) != 0)
        fprintf(out, " (%s)", r->type);
    fputc('\n', out);
    if (name[0] && r->string_len < 0) {
        fprintf(out, "name:          ");
        rep_fmt_text(out, name, strlen(name), SHOW_STRING_PREVIEW);
        fputc('\n', out);
    }
    const graph_loc *at = graph_node_loc(g, n);
    if (at) {
        char b[GRAPH_LOC_MAX];
        fprintf(out, "location:      ");
        const char *t = graph_loc_text(g, at, b);
        rep_fmt_text(out, t, strlen(t), GRAPH_LOC_MAX);
        fputc('\n', out);
    }
    if (r->heap)
        fprintf(out, "heap:          %s\n", r->heap);
    fprintf(out, "shallow size:  %s\n", rep_fmt_bytes(a, graph_node_size(g, n)));
    if (g->node_native && g->node_native[n])
        fprintf(out, "native size:   %s\n", rep_fmt_bytes(a, g->node_native[n]));
    int any = 0;
    for (unsigned k = 0; k <= GRAPH_ROOT_KIND_COUNT; k++) {
        if (!r->roots[k])
            continue;
        fprintf(out, "%s%s", any ? ", " : "gc roots:      ",
                k < GRAPH_ROOT_KIND_COUNT ? graph_root_title(g, k) : "other");
        any = 1;
    }
    if (any)
        fputc('\n', out);
    for (uint32_t k = 0; k < r->n_thread_roots; k++) {
        char where[1024];
        fprintf(out, "  %s in %s\n", graph_root_title(g, r->thread_roots[k]->kind),
                rep_root_thread(g, r->thread_roots[k], where, sizeof where));
    }
    if (r->thread_roots_more)
        fprintf(out, "  and in more threads or frames\n");
    if (r->has_site) {
        const char *m = graph_str(g, r->site.method);
        char site[600];
        snprintf(site, sizeof site, "%s:%u%s%s", graph_str(g, r->site.file), r->site.line,
                 m[0] ? " in " : "", m);
        fprintf(out, "allocated at:  ");
        rep_fmt_name(out, site); /* file and method names from the dump */
        fputc('\n', out);
    }
    rules_js js;
    char num[40];
    if (js_number(g, n, &js)) {
        if (js.kind == RULES_JS_INT)
            fprintf(out, "value:         %lld\n", (long long)js.i);
        else
            fprintf(out, "value:         %s\n", shortest(js.d, num, sizeof num));
    }
    if (r->string_len >= 0) {
        fprintf(out, "value:         \"");
        rep_fmt_text(out, r->string,
                     (size_t)r->string_len > r->string_shown ? (size_t)r->string_len
                                                              : r->string_shown,
                     r->string_shown);
        fprintf(out, "\" (%ld bytes UTF-8%s)\n", r->string_len,
                graph_string_partial(g, r->node)
                    ? "; the snapshot keeps only the first 1,024 characters of a long string "
                      "or part, and no text of a sliced part: the text is longer"
                    : "");
    }
    if (r->ret != SHOW_RET_NONE)
        text_tree(out, r);
    if (r->as_class != GRAPH_NONE)
        text_class(out, r);
    text_fields(out, r);
    /* a V8 or Dart array's elements are its edges, listed below: no length and contents to
     * miss, as an HPROF array whose bytes the dump left out would */
    if (r->is_array && (r->have_elements || rep_fmt_runtime(g) == REP_RT_JAVA))
        text_array(out, r);
    text_lists(out, r);
}
