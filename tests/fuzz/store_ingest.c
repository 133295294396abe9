/* SPDX-License-Identifier: Apache-2.0 */
/* store_ingest.c: libFuzzer target for the leak store's report reader (src/store/store.c):
 * any bytes given as a report must be stored or refused (format, limit or memory error),
 * never crash, leak or leave a half report. A stored report is read back the way the verbs and
 * the dashboard read it: the leak list, each leak's days, history and trace. One in-memory
 * SQLite store lives across inputs, so inputs also meet the leaks earlier ones stored. */
#include "store/store.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static store *s;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lr_error err;
    memset(&err, 0, sizeof err);
    if (!s && store_open(":memory:", &s, &err) != LR_OK)
        __builtin_trap();
    store_meta m = {"fuzz.json", "app", "1.0", "dev", (int64_t)size};
    store_ingest_result r;
    lr_status st = store_ingest_json(s, "fuzz.json", (const char *)data, size, &m, &r, &err);
    if (st != LR_OK && st != LR_ERR_FORMAT && st != LR_ERR_LIMIT && st != LR_ERR_NOMEM)
        __builtin_trap();
    if (st != LR_OK || r.duplicate)
        return 0;
    store_filter f;
    store_filter_init(&f);
    store_leak *lv = NULL;
    store_point *pv = NULL;
    size_t nl = 0, np = 0;
    if (store_leaks(s, &f, &lv, &nl, &err) != LR_OK ||
        store_series(s, &f, &pv, &np, &err) != LR_OK)
        __builtin_trap();
    for (size_t i = 0; i < nl && i < 8; i++) {
        store_detail d;
        int64_t total = 0;
        if (store_history(s, lv[i].signature, 4, &d, &total, &err) != LR_OK)
            __builtin_trap();
        store_trace t;
        if (d.trace_json && store_trace_parse(s, d.trace_json, &t, &err) == LR_OK)
            store_trace_fini(&t);
        store_detail_fini(&d);
    }
    store_leaks_free(lv, nl);
    free(pv);
    return 0;
}
