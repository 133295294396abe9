/* SPDX-License-Identifier: Apache-2.0 */
/* dart.h: the Dart VM heap snapshot reader ("dartheap" binary, format layer), prefix dart_.
 * Classes with their named fields, objects with shallow and external sizes, references named
 * by field (or numbered), the root object as the GC root; current and older layouts. Format:
 * docs/formats/dart.md. */
#ifndef LR_FORMAT_DART_H
#define LR_FORMAT_DART_H

#include "format/fmt.h"

extern const fmt_reader fmt_dart_reader;

/* The identity hash the VM recorded for node n of a Dart snapshot (Object.hashCode /
 * identityHashCode), 0 when none was assigned, the snapshot has no hash section (older
 * layout) or g is no Dart snapshot. */
uint32_t dart_identity_hash(const graph *g, node_ix n);
/* Nonzero when g is a Dart snapshot with identity hashes. */
int dart_has_identity_hashes(const graph *g);

/* Nonzero if p starts with the "dartheap" magic. */
int dart_sniff(const uint8_t *p, uint64_t n);

#endif
