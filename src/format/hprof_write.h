/* SPDX-License-Identifier: Apache-2.0 */
/* hprof_write.h: streaming HPROF rewriting (format layer), prefix hprof_. Two rewrites of a
 * dump, both walking the input records sequentially and writing big buffered chunks:
 * - sanitize (LeakCanary Shark's stripper): same layout and byte size; every primitive array's
 *   elements and the `value` field of the eight boxed primitive classes become zeros;
 * - shrink (Tencent Matrix's HprofBufferShrinker): primitive arrays are dropped except the
 *   value arrays of java.lang.String and one copy of each group of identical
 *   android.graphics.Bitmap mBuffer arrays; the other bitmaps' mBuffer ids are rewritten to
 *   the kept copy, and heap-dump record lengths are recomputed. References to dropped arrays
 *   dangle, exactly as in Matrix's output.
 * Memory: sanitize keeps only a handful of class layouts (constant); shrink keeps hash sets
 * of String value ids and bitmap buffer ids. The output is written to a temporary file in the
 * destination's folder and renamed into place only on success. See docs/formats/hprof-write.md. */
#ifndef LR_FORMAT_HPROF_WRITE_H
#define LR_FORMAT_HPROF_WRITE_H

#include "base/mfile.h"

#include <stdint.h>

enum hprof_strip_mode {
    HPROF_STRIP_SANITIZE = 0, /* zero array contents and boxed values; same size */
    HPROF_STRIP_SHRINK = 1,   /* drop arrays as Matrix does; smaller file */
};

/* What a rewrite did (all counters over the whole file, every heap dump). */
typedef struct hprof_strip_stats {
    uint64_t in_bytes;           /* uncompressed input bytes */
    uint64_t out_bytes;          /* uncompressed output bytes (before gzip) */
    uint64_t arrays;             /* PRIMITIVE_ARRAY_DUMP records seen */
    uint64_t arrays_zeroed;      /* sanitize: arrays whose elements were overwritten */
    uint64_t boxed_zeroed;       /* sanitize: boxed primitive instances zeroed */
    uint64_t hashes_zeroed;      /* sanitize: Strings whose cached hash was zeroed */
    uint64_t arrays_kept;        /* shrink: arrays written */
    uint64_t arrays_dropped;     /* shrink: arrays left out */
    uint64_t string_arrays;      /* shrink: kept because a String's value */
    uint64_t bitmaps;            /* shrink: Bitmap instances with a buffer, not recycled */
    uint64_t bitmap_groups;      /* shrink: groups of >= 2 identical bitmap buffers */
    uint64_t bitmaps_redirected; /* shrink: Bitmap.mBuffer ids rewritten to the kept copy */
} hprof_strip_stats;

/* Rewrites the HPROF bytes of `in` (name for messages) into out_path. gzip output when
 * out_path ends in ".gz". Writes `<dir>/.<base>.XXXXXX` beside out_path and renames it over
 * out_path only when everything was written; on any failure the temporary is removed and
 * out_path is untouched. Returns LR_OK and fills *st (may be NULL), or LR_ERR_FORMAT /
 * LR_ERR_TRUNCATED (corrupt input, with offset), LR_ERR_IO (write/rename), LR_ERR_NOMEM. */
lr_status hprof_strip(const mfile *in, const char *name, const char *out_path,
                      enum hprof_strip_mode mode, hprof_strip_stats *st, lr_error *err);

#endif
