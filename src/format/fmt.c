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

#include <string.h>

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

/* Whether the n bytes at p contain the string s (a bounded look at a file's head). */
static int fmt_has(const uint8_t *p, uint64_t n, const char *s)
{
    size_t k = strlen(s);
    for (uint64_t i = 0; i + k <= n; i++)
        if (memcmp(p + i, s, k) == 0)
            return 1;
    return 0;
}

/* How many bytes of a file's head the recognisers below look at. */
#define FMT_HEAD 256

const char *fmt_unsupported(const uint8_t *p, uint64_t n)
{
    /* compressions a dump is often shipped in that the input layer does not inflate */
#define FMT_UNPACK ": unpack it first (gzip and bzip2 are read as they are)"
    static const struct {
        uint8_t len;
        uint8_t magic[6];
        const char *what;
    } packed[] = {
        {6, {0xfd, '7', 'z', 'X', 'Z', 0}, "xz-compressed" FMT_UNPACK},
        {4, {0x28, 0xb5, 0x2f, 0xfd}, "zstd-compressed" FMT_UNPACK},
        {4, {0x04, 0x22, 0x4d, 0x18}, "lz4-compressed" FMT_UNPACK},
        {6, {'7', 'z', 0xbc, 0xaf, 0x27, 0x1c}, "a 7-Zip archive" FMT_UNPACK},
        {4, {'P', 'K', 3, 4}, "a zip archive" FMT_UNPACK},
    };
#undef FMT_UNPACK
    for (size_t k = 0; k < sizeof packed / sizeof packed[0]; k++)
        if (n >= packed[k].len && !memcmp(p, packed[k].magic, packed[k].len))
            return packed[k].what;
    uint64_t h = n < FMT_HEAD ? n : FMT_HEAD, i = 0;
    while (i < h && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
        i++;
    /* JavaScriptCore's own snapshot (Safari's Web Inspector, Bun.generateHeapSnapshot()
     * without an argument): {"version":N,"type":"Inspector"|"GCDebugging","nodes":[...  */
    if (i < h && p[i] == '{' && fmt_has(p + i, h - i, "\"version\"") &&
        (fmt_has(p + i, h - i, "\"type\":\"Inspector\"") ||
         fmt_has(p + i, h - i, "\"type\":\"GCDebugging\"")))
        return "a JavaScriptCore heap snapshot (Safari, Bun): leakray reads the V8 format, "
               "which Bun 1.2 and later write with Bun.generateHeapSnapshot(\"v8\")";
    return NULL;
}

int fmt_head_known(const uint8_t *p, uint64_t n)
{
    return fmt_find(p, n) || fmt_unsupported(p, n);
}

const fmt_reader *const *fmt_all(void) { return READERS; }
