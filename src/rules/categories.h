/* SPDX-License-Identifier: Apache-2.0 */
/* categories.h: object categories for path collapsing (rules layer), prefix cat_. Parses
 * `category NAME PATTERN...` lines (docs/rules.md, "Category rules") and binds them to a
 * graph: every class gets the category of the first rule (file order) matching its own name,
 * else its superclass's, and so on up the chain, so `Text extends StatelessWidget extends
 * Widget` is a widget without the word in its name. Patterns are Java-form class names where
 * `*` matches any run of characters (nothing else is special: `[]` is literal). Objects of a
 * class no rule reaches, and class objects, have no category (CAT_NONE: "other"). The
 * category named `collection` is special to collapse.c: a collection run between two runs of
 * one category merges into them. Errors are LR_ERR_RULES "file:line: message". */
#ifndef LR_RULES_CATEGORIES_H
#define LR_RULES_CATEGORIES_H

#include "graph/graph.h"

#include <stddef.h>
#include <stdint.h>

#define CAT_NONE UINT32_MAX /* no category ("other") */
#define CAT_MAX 64          /* distinct category names per set */

typedef struct cat_rule {
    char *pattern; /* class-name pattern ('*' = any run) */
    uint32_t cat;  /* index into names */
    uint32_t line; /* line in its file */
} cat_rule;

typedef struct cat_set {
    char *names[CAT_MAX];  /* category names, first-seen order */
    uint32_t n_names;
    cat_rule *rules;       /* in file order */
    uint32_t n_rules, cap_rules;
    uint32_t collection;   /* index of "collection", CAT_NONE if not declared */
    /* ---- bound state (cat_bind) ---- */
    const graph *g;
    uint32_t *of_class;    /* per class: category, CAT_NONE */
} cat_set;

void cat_init(cat_set *cs);
void cat_fini(cat_set *cs);

/* Parses rules text (len bytes) named `name` for messages; appends to cs. Blank lines and
 * `#` comments are skipped; any other line must be a category rule. */
lr_status cat_parse(cat_set *cs, const char *name, const char *text, size_t len,
                    lr_error *err);
/* Reads and parses a file (LR_ERR_IO when it cannot be read, 16 MiB at most). */
lr_status cat_load_file(cat_set *cs, const char *path, lr_error *err);
/* `what` is a shipped set name ("flutter" -> rules/flutter.rules, "android-views") looked up
 * like rules_load_shipped (LEAKRAY_RULES_DIR, source tree, install dir), or a file path
 * (anything containing '/' or ending in ".rules"). */
lr_status cat_load(cat_set *cs, const char *what, lr_error *err);

/* Computes every class's category for g (which must outlive the binding). O(classes x
 * (rules + depth)). */
lr_status cat_bind(cat_set *cs, const graph *g, lr_error *err);

/* Category of node n (after cat_bind), CAT_NONE for other. */
uint32_t cat_of_node(const cat_set *cs, node_ix n);
/* Name of category c ("other" for CAT_NONE). */
const char *cat_name(const cat_set *cs, uint32_t c);

/* Whether class-name pattern p ('*' = any run) matches s. */
int cat_match(const char *p, const char *s);

#endif
