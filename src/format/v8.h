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

/* snapshot.extra_native_bytes from the header (0 when absent or not a V8 graph); DevTools adds
 * it to the total heap size. */
uint64_t v8_extra_native_bytes(const graph *g);

#endif
