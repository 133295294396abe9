/* SPDX-License-Identifier: Apache-2.0 */
/* test_hprof_load.h: loads one HPROF fixture into a graph for the tests that read its records
 * themselves (not a test itself: the build registers only *_test.c). Where the fixtures are:
 * LEAKRAY_FIXTURES, else $LEAKRAY_SRC/../shared/fixtures; an absent one prints a visible SKIP,
 * except under CI=true, where it fails. Include after cmocka.h. */
#ifndef LR_TEST_HPROF_LOAD_H
#define LR_TEST_HPROF_LOAD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mfile.h"
#include "format/fmt.h"
#include "graph/graph.h"

/* 1 with hprof/<file> loaded into g (m keeps it mapped); 0 after a SKIP line. */
static inline int tl_load_hprof(graph *g, mfile *m, const char *file)
{
    char path[4200];
    const char *fx = getenv("LEAKRAY_FIXTURES"), *src = getenv("LEAKRAY_SRC");
    if (fx)
        snprintf(path, sizeof path, "%s/hprof/%s", fx, file);
    else
        snprintf(path, sizeof path, "%s/../shared/fixtures/hprof/%s", src ? src : ".", file);
    lr_error err = {.offset = LR_NO_OFFSET};
    if (mfile_open(m, path, 0, &err) != LR_OK) {
        const char *ci = getenv("CI");
        if (ci && !strcmp(ci, "true"))
            fail_msg("fixture %s missing and CI=true", path);
        printf("SKIP: %s not found (set LEAKRAY_FIXTURES)\n", path);
        return 0;
    }
    graph_init(g);
    g->path = strdup(file);
    fmt_opts o = {.dump_index = -1};
    const fmt_reader *rd = fmt_find(m->data, m->len);
    assert_non_null(rd);
    assert_int_equal(rd->load(g, m, &o, &err), LR_OK);
    return 1;
}

#endif
