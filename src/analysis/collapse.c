/* SPDX-License-Identifier: Apache-2.0 */
/* collapse.c: path collapsing by category (analysis layer), prefix collapse_. One pass that
 * appends runs to the output as a stack: a new run of category X that finds [X-run,
 * collection-run] on top of the stack swallows both, which applies rule 2 as often as the
 * path allows without a second pass. Semantics: collapse.h. */
#include "analysis/collapse.h"

uint32_t collapse_path(const cat_set *cs, const node_ix *nodes, uint32_t n, collapse_line *out)
{
    uint32_t k = 0;
    uint32_t coll = cs->collection;
    for (uint32_t i = 0; i < n;) {
        uint32_t c = cat_of_node(cs, nodes[i]);
        uint32_t j = i;
        if (c != CAT_NONE)
            while (j + 1 < n && cat_of_node(cs, nodes[j + 1]) == c)
                j++;
        collapse_line run = {i, j, c, 0};
        if (c != CAT_NONE && c != coll && k >= 2 && out[k - 1].cat == coll &&
            coll != CAT_NONE && out[k - 2].cat == c) {
            /* X, collection, X: one X run. */
            out[k - 2].last = j;
            out[k - 2].collections += collapse_count(&out[k - 1]);
            k--;
        } else {
            out[k++] = run;
        }
        i = j + 1;
    }
    return k;
}
