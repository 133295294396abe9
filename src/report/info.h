/* SPDX-License-Identifier: Apache-2.0 */
/* info.h: the dump census as `leakray info` prints it (report layer), prefix rep_info_. The
 * text form and the JSON keys (docs/json.md "info"), pure functions of an info_result; the
 * JSON writes keys into an object the caller opened. */
#ifndef LR_REPORT_INFO_H
#define LR_REPORT_INFO_H

#include "analysis/info.h"
#include "base/jsonw.h"

#include <stdio.h>

void rep_info_text(FILE *out, const info_result *r);
void rep_info_json(jsonw *w, const info_result *r);

#endif
