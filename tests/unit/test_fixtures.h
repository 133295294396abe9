/* SPDX-License-Identifier: Apache-2.0 */
/* test_fixtures.h: where the unit tests find ../shared/fixtures (not a test itself: the build
 * registers only *_test.c). LEAKRAY_FIXTURES wins, else $LEAKRAY_SRC/../shared/fixtures. A
 * test whose fixtures are absent prints a visible SKIP, except under CI=true, where absence
 * fails: CI must never pass by skipping. Include after cmocka.h. */
#ifndef LR_TEST_FIXTURES_H
#define LR_TEST_FIXTURES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char fixdir[4096];

/* Fills fixdir from the environment; call first thing in main. */
static inline void tf_init(void)
{
    const char *fx = getenv("LEAKRAY_FIXTURES");
    const char *src = getenv("LEAKRAY_SRC");
    if (fx && fx[0])
        snprintf(fixdir, sizeof fixdir, "%s", fx);
    else if (src && src[0])
        snprintf(fixdir, sizeof fixdir, "%s/../shared/fixtures", src);
}

/* 1 when fixdir/<sub>/SOURCES.md exists; else 0 after a SKIP line (fails under CI=true). */
static inline int tf_have(const char *sub, const char *label)
{
    FILE *f;
    char p[4200];
    snprintf(p, sizeof p, "%s/%s/SOURCES.md", fixdir, sub);
    if (fixdir[0] && (f = fopen(p, "r"))) {
        fclose(f);
        return 1;
    }
    const char *ci = getenv("CI");
    if (ci && !strcmp(ci, "true"))
        fail_msg("fixtures missing at %s and CI=true", fixdir);
    printf("SKIP: %s fixtures not found at '%s' (set LEAKRAY_FIXTURES)\n", label, fixdir);
    return 0;
}

#endif
