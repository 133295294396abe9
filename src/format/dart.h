/* SPDX-License-Identifier: Apache-2.0 */
/* dart.h: the Dart VM heap snapshot reader ("dartheap" binary, format layer), prefix dart_.
 * Classes with their named fields, objects with shallow and external sizes, references named
 * by field (or numbered), the root object as the GC root; current and older layouts. Format:
 * docs/formats/dart.md. */
#ifndef LR_FORMAT_DART_H
#define LR_FORMAT_DART_H

#include "format/fmt.h"

extern const fmt_reader fmt_dart_reader;

/* Nonzero if p starts with the "dartheap" magic. */
int dart_sniff(const uint8_t *p, uint64_t n);

#endif
