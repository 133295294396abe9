/* SPDX-License-Identifier: Apache-2.0 */
/* v8.h: the V8 / Node.js / Chrome / ArkTS `.heapsnapshot` reader (format layer), prefix v8_.
 * One streaming pass over the mapped JSON (no document tree) fills the graph: every field and
 * type is looked up by name in snapshot.meta, so 6-, 7- and 8-field layouts (ArkTS adds
 * native_size) and every node/edge type list load. After the arrays are in, the reader applies
 * what Chrome DevTools does before it shows a Summary, so the graph answers like DevTools:
 * detached-DOM renaming, shallow-size re-attribution of owned hidden/array nodes, and DevTools
 * class names and class keys (one graph class per key, interface names for plain objects,
 * script locations for constructors). The format, the mapping to the graph and every deviation
 * from DevTools are documented in docs/formats/v8.md. */
#ifndef LR_FORMAT_V8_H
#define LR_FORMAT_V8_H

#include "format/fmt.h"

extern const fmt_reader fmt_v8_reader;

/* Nonzero if p[0..n) starts (after JSON whitespace) with `{"snapshot":`. */
int v8_sniff(const uint8_t *p, uint64_t n);

/* DevTools' public class key of every class of a graph loaded by this reader: "," + class name,
 * or "scriptId,line,column,name" for constructors with a script location. Indexed by class_ix;
 * the strings live in g->strings. NULL when g was not loaded by this reader. */
const str_ix *v8_class_keys(const graph *g);

/* Names the plain objects of g (type object, name "Object") with the interface definitions
 * of `from` instead of g's own, as DevTools' Comparison view names its base snapshot
 * (aggregatesForDiff), so the same object is `{a, b}` on both sides whenever `from` defines
 * that shape. Both graphs must come from this reader. Changes g's node classes and may add
 * classes (with their keys); g's other classes, sizes and edges are untouched. Returns LR_OK,
 * LR_ERR_USAGE (not two V8 graphs) or LR_ERR_NOMEM. Not thread-safe on g. */
lr_status v8_apply_interfaces(graph *g, const graph *from, lr_error *err);

/* snapshot.extra_native_bytes from the header (0 when absent or not a V8 graph); DevTools adds
 * it to the total heap size. */
uint64_t v8_extra_native_bytes(const graph *g);

/* One frame of an allocation stack (trace_function_infos entry). line and column are as the
 * snapshot records them: 1-based, 0 when unknown. name/script are GRAPH_NONE when the trace
 * names a function the snapshot does not list. */
typedef struct v8_frame {
    str_ix name;        /* function name ("" for anonymous functions) */
    str_ix script;      /* script name or URL */
    uint32_t script_id; /* V8 script id */
    uint32_t line;      /* 1-based line, 0 unknown */
    uint32_t column;    /* 1-based column, 0 unknown */
} v8_frame;

/* Nonzero when the snapshot records allocation stacks (taken while allocations were
 * tracked, with usable trace_function_infos and trace_tree sections). */
int v8_has_traces(const graph *g);

/* trace_node_id of node v: nonzero when the snapshot was taken while allocations were
 * tracked and v's allocation was recorded; 0 otherwise (and for non-V8 graphs). */
uint32_t v8_trace_node(const graph *g, node_ix v);

/* The allocation stack of node v, innermost frame first, as DevTools' "Allocation stack"
 * shows it: decoded from trace_tree on each call (one pass over that section, no recursion).
 * Writes up to cap frames into out and the stack's full depth into *n (0: no stack).
 * Returns LR_OK, LR_ERR_FORMAT for a malformed trace_tree (file and offset in err) or
 * LR_ERR_NOMEM. */
lr_status v8_alloc_stack(const graph *g, node_ix v, v8_frame *out, uint32_t cap, uint32_t *n,
                         lr_error *err);

#endif
