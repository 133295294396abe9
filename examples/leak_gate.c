/* SPDX-License-Identifier: Apache-2.0 */
/* leak_gate.c: a CI gate on a heap dump. Runs the LeakCanary-style analysis, prints one line
 * per leak group (signature, retained bytes, title), writes the HTML report when asked, and
 * fails (exit 1) when there are more application leak groups than allowed, or (exit 3) when
 * the dump was cut short.
 * usage: leak_gate DUMP [MAX_APP_LEAKS [REPORT.html]] */
#include <leakray/report.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s DUMP [MAX_APP_LEAKS [REPORT.html]]\n", argv[0]);
        return 2;
    }
    unsigned max = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 0;
    lr_error err = {0};
    lr_heap *h = NULL;
    lr_analysis *an = NULL;
    int rc = 0;
    if (lr_open(argv[1], NULL, &h, &err) != LR_OK ||
        lr_analyze(h, NULL, &an, &err) != LR_OK) {
        fprintf(stderr, "leak_gate: %s\n", err.msg);
        lr_close(h);
        return lr_exit_code(err.code);
    }
    /* a dump cut short holds part of the heap: "no leak" there proves nothing */
    if (lr_heap_truncated(h)) {
        fprintf(stderr, "leak_gate: %s: the dump is truncated, no verdict\n", argv[1]);
        lr_analysis_free(an);
        lr_close(h);
        return 3;
    }
    /* what the reader counted rather than failed on, where answers may miss part of the heap */
    for (uint32_t i = 0; i < lr_heap_diagnostic_count(h); i++) {
        lr_diagnostic d;
        if (lr_heap_diagnostic(h, i, &d, NULL) == LR_OK && strcmp(d.severity, "info") != 0)
            fprintf(stderr, "leak_gate: %s: warning: %s (%" PRIu64 ")\n", argv[1],
                    d.description, d.count);
    }
    for (uint32_t i = 0; i < lr_analysis_warning_count(an); i++)
        fprintf(stderr, "leak_gate: %s: warning: %s\n", argv[1], lr_analysis_warning(an, i));
    unsigned app = 0;
    for (uint32_t i = 0; i < lr_analysis_group_count(an); i++) {
        lr_leak_group g;
        if (lr_analysis_group(an, i, &g, &err) != LR_OK)
            break;
        if (!g.library)
            app++;
        printf("%s %s %" PRIu64 " bytes x%u %s\n", g.library ? "library" : "app", g.signature,
               g.retained, g.n_traces, g.title);
        /* The first trace of the group, as LeakCanary lists it. */
        uint32_t t = lr_analysis_group_trace(an, i, 0);
        lr_trace tr;
        if (lr_analysis_trace(an, t, &tr, &err) != LR_OK)
            continue;
        for (uint32_t j = 0; j < tr.n_steps; j++) {
            lr_trace_step s;
            if (lr_analysis_step(an, t, j, &s, &err) != LR_OK)
                break;
            printf("  %s%s [%s]%s%s\n", s.class_name, s.suspect ? " ~" : "",
                   s.leaking == LR_LEAKING_YES ? "YES" : s.leaking == LR_LEAKING_NO ? "NO" : "?",
                   *s.reference ? " -> " : "", s.reference);
        }
    }
    if (argc > 3) {
        FILE *f = fopen(argv[3], "w");
        if (!f || lr_render(an, LR_RENDER_HTML, NULL, f, &err) != LR_OK) {
            fprintf(stderr, "leak_gate: %s\n", f ? err.msg : argv[3]);
            rc = 4;
        }
        if (f && fclose(f) != 0)
            rc = 4;
    }
    printf("%u application leak group(s), %u allowed%s\n", app, max,
           lr_analysis_suspects(an) ? " (nothing watched or declared leaking)" : "");
    if (!rc && app > max)
        rc = 1;
    lr_analysis_free(an);
    lr_close(h);
    return rc;
}
