/* SPDX-License-Identifier: Apache-2.0 */
/* nscan_parse.c: libFuzzer target for the native scan report reader (src/format/nscan.c):
 * any bytes must parse or fail with a format/truncation/memory error, never crash or leak.
 * A parsed report is walked the way the renderer walks it (totals, each group's trace). */
#include "format/nscan.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lr_error err;
    memset(&err, 0, sizeof err);
    mfile m;
    if (mfile_from_memory(&m, data, size, 1u << 24, "fuzz.lrn", &err) != LR_OK)
        return 0;
    nscan_report r;
    lr_status st = nscan_parse(&m, "fuzz.lrn", &r, &err);
    if (st != LR_OK && st != LR_ERR_FORMAT && st != LR_ERR_TRUNCATED && st != LR_ERR_NOMEM)
        __builtin_trap();
    if (st == LR_OK) {
        uint64_t n, b, sum = 0;
        nscan_totals(&r, NSCAN_DIRECT, &n, &b);
        sum += n + b;
        for (uint32_t i = 0; i < r.n_groups; i++) {
            const nscan_trace *t = nscan_trace_find(&r, r.groups[i].trace);
            sum += t ? t->n_frames : 0;
        }
        if (sum == 0x5eed)
            r.pid = 0;
        nscan_free(&r);
    }
    mfile_close(&m);
    return 0;
}
