/* SPDX-License-Identifier: Apache-2.0 */
/* store_ingest.c: libFuzzer target for the leak store's report reader (src/store/store.c):
 * any bytes given as a report must be stored or refused (format, limit or memory error),
 * never crash, leak or leave a half report. A stored report is read back the way the verbs and
 * the dashboard read it (the leak list, each leak's days, history and trace:
 * store_dashboard_build) and rendered as they render it (the dashboard's model, `store show`
 * and `store leaks` text). One in-memory SQLite store lives across inputs, so inputs also meet
 * the leaks earlier ones stored. */
#include "report/dashboard.h"
#include "report/store.h"
#include "store/store.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static store *s;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lr_error err;
    memset(&err, 0, sizeof err);
    if (!s && store_open(":memory:", &s, &err) != LR_OK)
        __builtin_trap();
    store_meta m = {"fuzz.json", "app", "1.0", "dev", (int64_t)size, 0};
    store_ingest_result r;
    lr_status st = store_ingest_json(s, "fuzz.json", (const char *)data, size, &m, &r, &err);
    if (st != LR_OK && st != LR_ERR_FORMAT && st != LR_ERR_LIMIT && st != LR_ERR_NOMEM)
        __builtin_trap();
    if (st != LR_OK || r.duplicate)
        return 0;
    store_filter f;
    store_filter_init(&f);
    store_dashboard d;
    if (store_dashboard_build(s, &f, 8, 8, 4, NULL, NULL, 10, &d, &err) != LR_OK)
        __builtin_trap();
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (out) {
        jsonw w;
        jsonw_init(&w, out, 0);
        rep_dash_view v = {"fuzz.db", NULL, NULL, NULL, NULL, -1};
        rep_dashboard_json(&w, &d, &v);
        jsonw_finish(&w);
        rep_store_leaks_text(out, d.leaks, d.n_leaks);
        for (size_t i = 0; i < d.n_listed; i++)
            if (d.listed[i].detailed)
                rep_store_show_text(out, &d.listed[i].detail, &d.listed[i].trace);
        fclose(out);
    }
    free(buf);
    store_dashboard_fini(&d);
    return 0;
}
