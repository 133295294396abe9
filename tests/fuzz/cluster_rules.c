/* SPDX-License-Identifier: Apache-2.0 */
/* cluster_rules.c: libFuzzer target for the cluster rules parser (src/rules/cluster_rules.c):
 * any bytes must parse or fail with LR_ERR_RULES / LR_ERR_NOMEM, never crash or leak. A parsed
 * set is also queried with a few fixed names, since its globs reach fnmatch(3) at match time. */
#include "rules/cluster_rules.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    crules_set rs;
    crules_init(&rs);
    lr_error err;
    memset(&err, 0, sizeof err);
    lr_status st = crules_parse(&rs, "fuzz.rules", (const char *)data, size, &err);
    if (st != LR_OK && st != LR_ERR_RULES && st != LR_ERR_NOMEM)
        __builtin_trap();
    if (st == LR_OK) {
        static const char *const names[] = {"", "Object", "system / Context", "a*b[c]?"};
        for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
            (void)crules_match(&rs, "object", names[i]);
            (void)crules_type_has_maps(&rs, names[i]);
            (void)crules_by_name(crules_by(&rs, names[i]));
            (void)crules_leak_ignored(&rs, names[i]);
        }
    }
    crules_fini(&rs);
    return 0;
}
