/* SPDX-License-Identifier: Apache-2.0 */
/* watch_opts.h: the JVM agent's option string (watch layer), prefix watch_opts_. One parser
 * for the agent (Agent_OnLoad / Agent_OnAttach) and for `leakray attach`, which checks the
 * options before it asks the JVM to load the agent, so both reject the same strings with the
 * same one-line message. The string is comma-separated KEY=VALUE or flags (docs/agent.md):
 *   dump-dir=DIR threshold=N delay-ms=N watch=CLASS#METHOD (repeatable) report=text|json|db
 *   store=URL app=NAME version=V device=D max-dumps=N max-watched=N rules=FILE|none
 *   leakray=PATH quiet
 * Values cannot contain commas. Parsing copies what it keeps; nothing points into the input. */
#ifndef LR_WATCH_OPTS_H
#define LR_WATCH_OPTS_H

#include <stddef.h>
#include <stdint.h>

#define WATCH_OPTS_MAX_RULES 64  /* watch= options accepted */
#define WATCH_OPTS_MAX_UNWATCH 32 /* unwatch lines accepted */
#define WATCH_OPTS_CLASS_MAX 256 /* longest class name of an unwatch line */
#define WATCH_OPTS_MAX_DUMPS 7   /* default max-dumps, LeakCanary's maxStoredHeapDumps */
#define WATCH_OPTS_PATH_MAX 1024 /* longest dump-dir, rules or leakray path */
#define WATCH_OPTS_META_MAX 256  /* longest app=, version= or device= (with the NUL) */

enum watch_report { WATCH_REPORT_TEXT = 0, WATCH_REPORT_JSON, WATCH_REPORT_DB };

typedef struct watch_rule {
    char cls[256];    /* Java-form class or interface name: java.io.Closeable */
    char method[128]; /* method name: close */
} watch_rule;

typedef struct watch_opts {
    char dump_dir[WATCH_OPTS_PATH_MAX]; /* "" = the JVM's working directory */
    char rules[WATCH_OPTS_PATH_MAX];    /* rules file, "" = shipped jvm.rules, "none" = none */
    char leakray[WATCH_OPTS_PATH_MAX];  /* the leakray CLI, "" = found beside the agent */
    unsigned threshold;                 /* retained objects that trigger a dump (>= 1) */
    uint64_t delay_ms;                  /* watched -> retained delay */
    unsigned max_dumps;                 /* dumps kept in dump_dir (>= 1) */
    uint32_t max_watched;               /* cap on watched objects (>= 1) */
    int report;                         /* enum watch_report (db: also the leak store) */
    char store[WATCH_OPTS_PATH_MAX];    /* store=URL (implies report=db), "" = the default */
    /* the leak store's app, version and device of every report ("" = none), as `leakray
     * store ingest --app --version --device`: a fleet tells its JVMs apart by them */
    char app[WATCH_OPTS_META_MAX], version[WATCH_OPTS_META_MAX], device[WATCH_OPTS_META_MAX];
    int quiet;                          /* no informational lines, errors only */
    watch_rule watch[WATCH_OPTS_MAX_RULES]; /* watch= rules, in order */
    int n_watch;                        /* rules given */
    /* `unwatch CLASS` lines: objects of these classes (or subclasses) are never watched by a
     * rule nor as ended threads (the JDK keeps them on purpose) */
    char unwatch[WATCH_OPTS_MAX_UNWATCH][WATCH_OPTS_CLASS_MAX];
    int n_unwatch;
} watch_opts;

/* Fills o with the defaults. */
void watch_opts_default(watch_opts *o);

/* Parses s (NULL or "" = defaults) into *o. Returns 0, or -1 with a one-line message naming
 * the offending option in err ("unknown agent option 'foo'"). */
int watch_opts_parse(const char *s, watch_opts *o, char *err, size_t n);

/* Parses one rule "CLASS#METHOD" into *r. Returns 0, or -1 if malformed. */
int watch_rule_parse(const char *s, size_t len, watch_rule *r);

/* Reads `watch CLASS#METHOD` and `unwatch CLASS` lines of a rules file (comments with '#' at
 * line start or after whitespace, blank lines) and appends them to o->watch and o->unwatch.
 * Returns 0, or -1 with "file:line: message" in err. Other rule kinds in the file are an
 * error: jvm.rules holds run-time rules only. */
int watch_rules_load(const char *path, watch_opts *o, char *err, size_t n);

#endif
