/* SPDX-License-Identifier: Apache-2.0 */
/* numfmt.c: thousands grouping of exact counts (base layer), prefix numfmt_; see numfmt.h.
 * A comma before every group of three digits counted from the right, as LeakCanary, MAT
 * and VisualVM print counts in English; the digits come from snprintf, never a locale. */
#include "base/numfmt.h"

#include <inttypes.h>
#include <stdio.h>

const char *numfmt_group(char *buf, uint64_t n)
{
    char digits[24];
    int len = snprintf(digits, sizeof digits, "%" PRIu64, n);
    int o = 0;
    for (int i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}
