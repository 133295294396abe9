/* SPDX-License-Identifier: Apache-2.0 */
/* rules_parse.c: libFuzzer target for the rules parser (src/rules/rules_parse.c): any bytes must
 * parse or fail with LR_ERR_RULES / LR_ERR_NOMEM, never crash or leak; a parsed set is also
 * evaluated once as build conditions, which must not crash without a graph. */
#include "rules/rules.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rules_set rs;
    rules_init(&rs);
    lr_error err;
    memset(&err, 0, sizeof err);
    lr_status st = rules_parse(&rs, "fuzz", (const char *)data, size, &err);
    if (st != LR_OK && st != LR_ERR_RULES && st != LR_ERR_NOMEM)
        __builtin_trap();
    if (st == LR_OK && size < 512) {
        char expr[512];
        memcpy(expr, data, size);
        expr[size] = 0;
        memset(&err, 0, sizeof err);
        (void)rules_eval_text(&rs, GRAPH_NONE, expr, &err);
    }
    rules_fini(&rs);
    return 0;
}
