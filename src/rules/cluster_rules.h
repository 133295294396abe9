/* SPDX-License-Identifier: Apache-2.0 */
/* cluster_rules.h: the cluster rules of rules/arkts.rules and rules/v8.rules (rules layer),
 * prefix crules_. Parses the line-oriented cluster grammar of docs/rules.md ("Cluster
 * rules"): `dir` lines map a node (format type + node name, shell globs) onto a directory,
 * DevEco's (jsobject, jsarray, ...) for ArkTS, DevTools' Summary names (Object, Array,
 * (string), ...) for V8; `cluster` lines say how a directory's objects are grouped
 * (shortest chain, name + chain, properties + chain, promise handler, proxy target, not at
 * all, or never: VM internals); `leak-ignore` lines name directories whose objects are never
 * reported as leaked; `anchors` and `dictionary` set the numeric knobs. Parsing is pure text
 * work; crules_match and crules_by answer per (type, name) and per directory, and the
 * analysis layer (src/analysis/cluster.c) caches the answers per node. Errors are
 * LR_ERR_RULES "file:line: message". The semantics come from the ArkTS clustering article
 * (docs/background/arkts-snapshot-clustering.txt in the reference folder). */
#ifndef LR_RULES_CLUSTER_RULES_H
#define LR_RULES_CLUSTER_RULES_H

#include "base/err.h"

#include <stddef.h>
#include <stdint.h>

/* How a directory's objects are grouped (`cluster DIR by=...`). */
enum crules_by {
    CRULES_BY_NAME = 0,     /* rule 2: node name + shortest chain (default, business classes) */
    CRULES_BY_CHAIN = 1,    /* rule 1: shortest chain only (basic types) */
    CRULES_BY_PROPERTY = 2, /* rule 3: shortest chain + set of held property names */
    CRULES_BY_PROMISE = 3,  /* reaction handler's name + chain (Promise, PromiseReaction) */
    CRULES_BY_PROXY = 4,    /* proxied target's class + chain */
    CRULES_BY_NONE = 5,     /* not clustered: singletons or naturally grouped objects */
    CRULES_BY_INTERNAL = 6, /* VM internals: never clustered, never an anchor */
    CRULES_BY_DOM = 7,      /* detached DOM: tag + class attribute + tree role, no chain */
    CRULES_BY_COUNT
};

/* One `dir` line: nodes whose type and name match go to directory `dir`. */
typedef struct crules_map {
    char *dir;       /* directory name */
    char *type_glob; /* glob over the format's node type name ("object"), NULL = any */
    char *name_glob; /* glob over the node name, NULL = any */
    uint32_t line;   /* line in its file, for messages */
} crules_map;

/* One `cluster` line. */
typedef struct crules_rule {
    char *dir_glob; /* glob over directory names */
    uint8_t by;     /* enum crules_by */
    uint32_t line;
} crules_rule;

typedef struct crules_set {
    crules_map *maps;        /* `dir` lines in file order (first match wins) */
    uint32_t n_maps, cap_maps;
    crules_rule *rules;      /* `cluster` lines in file order (first match wins) */
    uint32_t n_rules, cap_rules;
    char **leak_ignore;      /* `leak-ignore` directory globs */
    uint8_t *leak_contents;  /* per glob: 1, CRULES_IGNORE_CONTENTS or _DOMINATED */
    uint32_t n_leak_ignore, cap_leak_ignore;
    uint32_t anchor_top;     /* `anchors top=N`: biggest directories clustered (default 20) */
    uint32_t anchor_permille; /* `anchors percent=P`: also any over P% of the total, in 0.1% */
    uint32_t dict_min;       /* `dictionary min=N`: holder keys normalised to [] (default 8) */
    uint8_t set_top;         /* a file already set anchor_top: the first setting read wins, */
    uint8_t set_permille;    /* so a user file loaded before the shipped one overrides it */
    uint8_t set_dict;
} crules_set;

#define CRULES_DEFAULT_TOP 20
#define CRULES_DEFAULT_PERMILLE 50
#define CRULES_DEFAULT_DICT_MIN 8
#define CRULES_FILE "arkts.rules"  /* shipped cluster rules: ArkTS, and graphs of other formats */
#define CRULES_V8_FILE "v8.rules" /* shipped cluster rules of V8 snapshots (Node, Chrome, d8) */
#define CRULES_HPROF_FILE "hprof.rules" /* shipped cluster rules of Java heaps (HotSpot, ART) */
#define CRULES_RUBY_FILE "ruby.rules"   /* shipped cluster rules of Ruby heap dumps */

void crules_init(crules_set *rs);
void crules_fini(crules_set *rs);

/* Parses rules text (len bytes, need not be NUL-terminated) named `name` for messages and
 * appends to rs. Returns LR_OK, LR_ERR_RULES ("name:line: message") or LR_ERR_NOMEM. Lines
 * of other rule kinds are rejected: cluster rules live in their own files. */
lr_status crules_parse(crules_set *rs, const char *name, const char *text, size_t len,
                       lr_error *err);
/* Reads and parses a rules file; LR_ERR_IO when it cannot be read. */
lr_status crules_load_file(crules_set *rs, const char *path, lr_error *err);
/* The shipped cluster rules file for a graph of this format and version text (graph.format,
 * graph.version): CRULES_V8_FILE for a V8 snapshot, whose users know DevTools' names,
 * CRULES_HPROF_FILE for a Java heap, CRULES_RUBY_FILE for a Ruby dump, CRULES_FILE for an
 * ArkTS one (the V8 reader names the
 * runtime first in the version) and for every other format, whose nodes fall to class-name
 * directories there. Either may be NULL.
 * Pure; thread-safe. */
const char *crules_shipped_file(const char *format, const char *version);
/* Loads the shipped rules file `file` (crules_shipped_file) from LEAKRAY_RULES_DIR (env), the
 * source tree, beside the binary, the install dir or the copy built into the binary,
 * whichever holds it first; LR_ERR_IO when none does. */
lr_status crules_load_shipped(crules_set *rs, const char *file, lr_error *err);

/* Index of the first `dir` line matching (type, name), or -1. Either may be "" but not NULL.
 * Pure; thread-safe. */
int32_t crules_match(const crules_set *rs, const char *type, const char *name);
/* Whether any `dir` line could match a node of this type (some line's type glob matches). */
int crules_type_has_maps(const crules_set *rs, const char *type);
/* How directory `dir` is clustered: the first matching `cluster` line, else CRULES_BY_NAME. */
enum crules_by crules_by(const crules_set *rs, const char *dir);
/* Whether leaked objects of directory `dir` are ignored (`leak-ignore`): 0 no, 1 yes,
 * CRULES_IGNORE_CONTENTS yes and the objects they immediately dominate (`contents`: a Java
 * String's value array, which is its content as much as the String is),
 * CRULES_IGNORE_DOMINATED yes and every object they dominate (`dominated`: what a V8
 * AllocationSite alone keeps, a literal's boilerplate and the objects nested in it). */
#define CRULES_IGNORE_CONTENTS 2
#define CRULES_IGNORE_DOMINATED 3
/* `owned`: only those whose immediate dominator is itself one of the leaked objects (a
 * string inside a leaked object counts in its owner's size); one an older object holds alone
 * (a memo hash's strings) is a leak of its own. */
#define CRULES_IGNORE_OWNED 4
int crules_leak_ignored(const crules_set *rs, const char *dir);
/* "name", "chain", ... for enum crules_by. */
const char *crules_by_name(unsigned by);

#endif
