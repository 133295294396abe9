/* SPDX-License-Identifier: Apache-2.0 */
/* report_render.c: libFuzzer target for the whole report path of an untrusted dump, through
 * the public API only: lr_open_memory, lr_analyze (shipped rules, traces, suspects), then the
 * three renderings (text, the report model's JSON, the HTML page) into memory. Whatever a
 * reader accepts must render without a crash or a leak, and the HTML must keep exactly the
 * page's three script elements (data, kit.js, report.js) whatever names the dump holds.
 * Built with tests/fuzz/replay_main.c it replays the corpus (hand-made HPROF and V8 inputs,
 * some of them hostile) in `make test`. */
#define _GNU_SOURCE /* memmem */
#include "leakray/report.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_INFLATE (64ull << 20)

/* Occurrences of "<script" in buf[0..len). */
static unsigned scripts(const char *buf, size_t len)
{
    unsigned n = 0;
    for (const char *p = buf; (p = memmem(p, len - (size_t)(p - buf), "<script", 7)); p += 7)
        n++;
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lr_open_opts o = {.max_inflate = FUZZ_MAX_INFLATE, .dump_index = -1};
    lr_heap *h = NULL;
    lr_error err = {0};
    if (lr_open_memory(data, size, "fuzz", &o, &h, &err) != LR_OK)
        return 0;
    lr_analysis *an = NULL;
    if (lr_analyze(h, NULL, &an, &err) == LR_OK) {
        lr_render_opts ro = {1, "fuzz"};
        for (int f = LR_RENDER_TEXT; f <= LR_RENDER_HTML; f++) {
            char *buf = NULL;
            size_t len = 0;
            lr_error e2 = {0};
            if (lr_render_buffer(an, (lr_render_format)f, &ro, &buf, &len, &e2) == LR_OK &&
                f == LR_RENDER_HTML && scripts(buf, len) != 3)
                abort(); /* something from the dump opened a script element */
            lr_free(buf);
        }
    }
    lr_analysis_free(an);
    lr_close(h);
    return 0;
}
