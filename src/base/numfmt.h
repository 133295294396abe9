/* SPDX-License-Identifier: Apache-2.0 */
/* numfmt.h: exact counts with thousands separators (base layer), prefix numfmt_. The one
 * digit grouping every text output uses, so a count reads alike in a table (report/fmt.c,
 * rep_fmt_count) and in a sentence the analysis layer writes itself (a leak suspect's
 * "7,988 instances of ..."). Plain formatting: no locale, no allocation. */
#ifndef LR_BASE_NUMFMT_H
#define LR_BASE_NUMFMT_H

#include <stdint.h>

/* Room for any uint64_t grouped: 20 digits, 6 commas and the NUL. */
#define NUMFMT_GROUP_MAX 27

/* 1234567 -> "1,234,567" into buf (NUMFMT_GROUP_MAX bytes at least); returns buf. */
const char *numfmt_group(char *buf, uint64_t n);

#endif
