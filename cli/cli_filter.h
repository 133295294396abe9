/* SPDX-License-Identifier: Apache-2.0 */
/* cli_filter.h: the class filters of histo and top (cli), prefix cli_filter_. --class GLOB
 * (fnmatch wildcards; `*` also crosses dots) and --package P (P itself or anything under
 * "P.") are repeatable; a value starting with `!` excludes instead. A name is kept when it
 * matches at least one include (or no include was given) and no exclude. */
#ifndef LR_CLI_FILTER_H
#define LR_CLI_FILTER_H

#include "cli.h"

typedef struct cli_filter {
    cli_strlist classes;  /* --class values */
    cli_strlist packages; /* --package values */
} cli_filter;

/* The two option lines for a verb's cli_optdef table. */
#define CLI_FILTER_OPTS(f)                                                                 \
    {"--class", CLI_OPT_LIST, &(f)->classes, "GLOB",                                       \
     "only classes matching GLOB (repeatable; !GLOB excludes)", NULL},                     \
    {"--package", CLI_OPT_LIST, &(f)->packages, "P",                                      \
     "only classes in package P or below (repeatable; !P excludes)", NULL}

/* Whether any filter was given. */
int cli_filter_active(const cli_filter *f);
/* Whether class name `name` is kept. */
int cli_filter_match(const cli_filter *f, const char *name);
/* keep[c] = cli_filter_match of class c's name, for every class of g (caller frees; NULL
 * when out of memory). */
uint8_t *cli_filter_classes(const cli_filter *f, const graph *g);

/* Writes a name as one CSV field on stdout (quoted when it holds , " or a newline). */
void cli_filter_csv_name(const char *s);

#endif
