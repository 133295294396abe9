/* SPDX-License-Identifier: Apache-2.0 */
/* fmt.c: the reader registry (format layer), prefix fmt_. One table lists every format
 * reader; fmt_find asks each sniff in order and returns the first that recognises the bytes,
 * so the loader and the CLI never branch on the format. A new reader adds one line to
 * READERS (and its header to the includes); order matters only if two sniffs could overlap. */
#include "format/fmt.h"

#include "format/dart.h"
#include "format/gtext.h"
#include "format/hprof.h"
#include "format/nscan.h"
#include "format/ruby.h"
#include "format/v8.h"

static const fmt_reader *const READERS[] = {
    &fmt_hprof_reader,
    &fmt_v8_reader,
    &fmt_nscan_reader,
    &fmt_ruby_reader,
    &fmt_dart_reader,
    &fmt_gtext_reader,
    /* Further readers append here, one line each, e.g. `&fmt_v8_reader,`. */
    NULL,
};

const fmt_reader *fmt_find(const uint8_t *p, uint64_t n)
{
    for (const fmt_reader *const *r = READERS; *r; r++)
        if ((*r)->sniff(p, n))
            return *r;
    return NULL;
}

const fmt_reader *const *fmt_all(void) { return READERS; }
