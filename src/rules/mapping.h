/* SPDX-License-Identifier: Apache-2.0 */
/* mapping.h: ProGuard/R8 mapping files (rules layer), prefix mapping_. Reads the text
 * mapping ("orig.Class -> obf:" lines followed by indented "type field -> obf" and
 * "a:b:type method(args):c:d -> obf" members, R8's `#` JSON headers included) and renames,
 * in a loaded graph, class names (arrays included), declared instance and static field names,
 * the names of field and static edges, resolving each field edge through the class hierarchy
 * as the JVM does (most-derived declaring class first), and stack frames (graph.frames):
 * class, method and line through the method's line ranges, source file from R8's sourceFile
 * header. Names are interned anew; the graph stays consistent. */
#ifndef LR_RULES_MAPPING_H
#define LR_RULES_MAPPING_H

#include "graph/graph.h"

/* Applies the mapping file at path to g. LR_ERR_IO if unreadable, LR_ERR_RULES
 * "file:line: message" for a malformed class line, LR_ERR_NOMEM. */
lr_status mapping_apply_file(graph *g, const char *path, lr_error *err);

/* Same from text in memory (name is used in messages). */
lr_status mapping_apply_text(graph *g, const char *name, const char *text, size_t len,
                             lr_error *err);

/* Flags of the _ex forms. */
enum {
    /* Array classes keep their obfuscated names ("l[]"), as Shark's ProguardMapping leaves
     * them (it looks names up as they are, and no mapping line names an array): leak-trace
     * signatures then equal Shark's with a mapping too. */
    MAPPING_KEEP_ARRAYS = 1,
};
lr_status mapping_apply_file_ex(graph *g, const char *path, unsigned flags, lr_error *err);
lr_status mapping_apply_text_ex(graph *g, const char *name, const char *text, size_t len,
                                unsigned flags, lr_error *err);

#endif
