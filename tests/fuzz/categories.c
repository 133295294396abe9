/* SPDX-License-Identifier: Apache-2.0 */
/* categories.c: libFuzzer target for the category rules parser (src/rules/categories.c): any
 * bytes must parse or fail with a rules/limit/memory error, never crash or leak. Parsed
 * patterns are matched against a few class names, since cat_match runs once per class and
 * rule on every dump the set is bound to. */
#include "rules/categories.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cat_set cs;
    cat_init(&cs);
    lr_error err;
    memset(&err, 0, sizeof err);
    lr_status st = cat_parse(&cs, "fuzz.rules", (const char *)data, size, &err);
    if (st != LR_OK && st != LR_ERR_RULES && st != LR_ERR_NOMEM && st != LR_ERR_LIMIT)
        __builtin_trap();
    static const char *const names[] = {"", "java.util.HashMap$Node[]",
                                        "android.view.View", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaab"};
    uint32_t sum = 0;
    for (uint32_t r = 0; r < cs.n_rules; r++)
        for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
            sum += (uint32_t)cat_match(cs.rules[r].pattern, names[i]);
    for (uint32_t c = 0; c <= cs.n_names; c++)
        sum += (uint32_t)strlen(cat_name(&cs, c));
    if (sum == 0x5eed)
        cs.collection = 0;
    cat_fini(&cs);
    return 0;
}
