/* SPDX-License-Identifier: Apache-2.0 */
/* cli_retained.c: the verbs' handle on the dump's retained-size model (cli), prefix
 * cli_retained_. The model lives in analysis/retained.c; this file only supplies the V8
 * class keys from the format layer, which the analysis layer may not include. */
#include "cli.h"

#include "format/v8.h"

lr_status cli_retained_build(const graph *g, cli_retained *r, lr_error *err)
{
    return ret_build(g, v8_class_keys(g), r, err);
}

void cli_retained_free(cli_retained *r)
{
    ret_free(r);
}
