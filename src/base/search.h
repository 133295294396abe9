/* SPDX-License-Identifier: Apache-2.0 */
/* search.h: lower-bound binary search over sorted arrays (base layer), prefix SEARCH_.
 * leakray looks things up in sorted arrays rather than per-object maps (strings and classes
 * by dump id, parents by node, extra references by source, ...), each with its own element
 * type and key; this macro writes the search once for all of them. It is a macro, not a
 * function taking a comparator, because several of these searches run once per reference
 * of the heap, where an indirect call per step would show. */
#ifndef LR_BASE_SEARCH_H
#define LR_BASE_SEARCH_H

/* Sets out (of integer type T) to the first index i in [first, end) for which `below` is
 * false, or to end when there is none. `below` is an expression of `search_mid`, the index
 * being probed, that is true while element search_mid sorts before the key; the elements in
 * [first, end) must be ordered so that it is true on a prefix of them. */
#define SEARCH_LOWER_BOUND(T, first, end, below, out)                                          \
    do {                                                                                       \
        T search_lo_ = (first), search_hi_ = (end);                                            \
        while (search_lo_ < search_hi_) {                                                      \
            T search_mid = search_lo_ + (search_hi_ - search_lo_) / 2;                         \
            if (below)                                                                         \
                search_lo_ = search_mid + 1;                                                   \
            else                                                                               \
                search_hi_ = search_mid;                                                       \
        }                                                                                      \
        (out) = search_lo_;                                                                    \
    } while (0)

#endif
