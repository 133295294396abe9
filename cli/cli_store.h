/* SPDX-License-Identifier: Apache-2.0 */
/* cli_store.h: what the leak store's verbs share (cli), prefix cli_store_: the --db and
 * filter options, times as the store parses them, and one start for every verb (parse the
 * options, build the filter, open the store). Used by cmd_store.c (`leakray store ...`) and
 * cmd_dashboard.c (`leakray report --db`); what they print is src/report/store.c's and
 * dashboard.c's. */
#ifndef LR_CLI_STORE_H
#define LR_CLI_STORE_H

#include "cli.h"

#include "store/store.h"

typedef struct store_opts {
    const char *db;      /* --db */
    const char *app;     /* --app */
    const char *version; /* --version */
    const char *device;  /* --device */
    const char *at;      /* --at */
    const char *since;   /* --since */
    const char *kind;    /* --kind */
} store_opts;

#define STORE_DB_OPT(o) {"--db", CLI_OPT_STR, &(o)->db, "URL", \
    "store: SQLite file, postgres://... or 'default' ($LEAKRAY_DB, ~/.local/share/leakray/" \
    "store.db)", NULL}, \
    {"--store", CLI_OPT_STR, &(o)->db, "URL", "the same as --db (native, watch)", NULL}
#define STORE_APP_OPT(o) {"--app", CLI_OPT_STR, &(o)->app, "NAME", "only reports of this app", NULL}
#define STORE_KIND_OPT(o) {"--kind", CLI_OPT_STR, &(o)->kind, "KIND", "only leaks of this kind", \
    "application|library|suspect|native"}
#define STORE_FILTER_OPTS(o)                                                                  \
    STORE_APP_OPT(o),                                                                         \
    {"--version", CLI_OPT_STR, &(o)->version, "V", "only reports of this app version", NULL},  \
    STORE_KIND_OPT(o),                                                                        \
    {"--since", CLI_OPT_STR, &(o)->since, "TIME", "only reports taken at or after TIME", NULL}

/* The store --db names: db itself, or, when NULL or "default" (as `native --store default`
 * and `watch analyze --store default` say it), cli_store_default's, written into buf. */
const char *cli_store_url(const char *db, char *buf, size_t cap);

/* "2026-12-01", "2026-12-01T10:20[:30][Z]" (UTC), "@1764584400" or "1764584400" (Unix
 * seconds). Returns 1 and *ms, or 0. */
int cli_store_parse_time(const char *s, int64_t *ms);

/* Parses argv by spec (with out: cli_parse_output, so -o OUT is required) and builds *f
 * from o when f is not NULL. Returns CLI_CONTINUE, or the exit code after printing why. */
int cli_store_parse(int argc, char **argv, const cli_spec *spec, const char *const *out,
                    store_opts *o, cli_common *co, store_filter *f);
/* Opens the store (--db, $LEAKRAY_DB or the default). Returns CLI_CONTINUE with *s open
 * (free: store_close), or the exit code after printing why. */
int cli_store_open(const cli_common *co, const store_opts *o, store **s);
/* The start of a store verb without usage checks of its own: cli_store_parse (no -o; f may
 * be NULL), then cli_store_open. Returns CLI_CONTINUE with *s open (free: store_close), or
 * the exit code after printing why. A verb that checks its options runs cli_store_parse,
 * its checks, then cli_store_open, so a usage mistake never creates a store. */
/* cli_store_open for a command that only reads: a SQLite store that does not exist is an
 * error (exit 4), not an empty store made on the spot. */
int cli_store_open_existing(const cli_common *co, const store_opts *o, store **s);
int cli_store_begin(int argc, char **argv, const cli_spec *spec, store_opts *o, cli_common *co,
                    store_filter *f, store **s);
/* Closes s and prints err: the exit code of a verb whose store call failed. */
int cli_store_fail(const cli_common *co, store *s, const lr_error *err);

#endif
