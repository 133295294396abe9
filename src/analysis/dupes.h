/* SPDX-License-Identifier: Apache-2.0 */
/* dupes.h: byte-identical primitive arrays, duplicate bitmaps and duplicate strings
 * (analysis layer), prefix dupes_. Arrays are grouped by element type, length and content:
 * a 64-bit hash sorts candidates and every group member is then byte-compared with the
 * group's first array, so a group never holds two different contents. Bitmaps follow Tencent
 * Matrix's DuplicatedBitmapAnalyzer (android.graphics.Bitmap instances whose mBuffer arrays
 * are identical, default minimum 5000 bytes, recycled ones skipped); strings follow MAT's
 * duplicate strings query (java.lang.String instances with equal contents). A group whose
 * copies beyond one cost nothing (V8's read-only and synthetic strings state 0 bytes) is no
 * finding and is left out of its section, counts and totals. Each array's owner is its
 * first referrer (reverse edges); the shortest strong path to every owner and every bitmap
 * comes from ONE multi-target traversal (paths_find).
 * Bitmap pixels come from mBuffer (before Android 8) or, when the dump was taken with
 * bitmap data (`am dumpheap -b`), from Bitmap's static `dumpData` (an android.graphics.
 * Bitmap$DumpData: `natives` long[] matched against each bitmap's mNativePtr, `buffers`
 * byte[][] holding the image compressed with `format`, a CompressFormat code), as ahat
 * reads them. Bitmaps at or above large_pixels (mWidth x mHeight, KOOM's threshold by
 * default) are listed whether or not their pixels are in the dump. */
#ifndef LR_ANALYSIS_DUPES_H
#define LR_ANALYSIS_DUPES_H

#include "analysis/paths.h"
#include "graph/graph.h"

#define DUPES_DEFAULT_MIN_BYTES 1024     /* arrays smaller than this are not grouped */
#define DUPES_DEFAULT_MIN_BITMAP 5000    /* Matrix's mMinBmpLeakSize */
#define DUPES_DEFAULT_LARGE_PIXELS (768ull * 1366 + 1) /* KOOM's large-bitmap threshold */

typedef struct dupes_opts {
    uint64_t min_bytes;        /* minimum element bytes of an array (0 = every array) */
    uint64_t min_bitmap_bytes; /* minimum mBuffer bytes of a bitmap */
    uint64_t large_pixels;     /* list bitmaps with mWidth x mHeight >= this (0 = KOOM's) */
} dupes_opts;

/* Where a bitmap's pixels are. */
enum dupes_pix_source {
    DUPES_PIX_NONE = 0,     /* not in the dump (Android 8+ without bitmap data) */
    DUPES_PIX_BUFFER = 1,   /* mBuffer: raw pixels, 4 (ARGB_8888) or 2 (RGB_565) bytes each */
    DUPES_PIX_DUMPDATA = 2, /* Bitmap.dumpData buffer for the bitmap's mNativePtr */
};
/* CompressFormat codes of DumpData.format (android.graphics.Bitmap.CompressFormat). */
enum { DUPES_FMT_RAW = -1, DUPES_FMT_JPEG = 0, DUPES_FMT_PNG = 1, DUPES_FMT_WEBP = 2 };

typedef struct dupes_pixels {
    uint8_t source;   /* enum dupes_pix_source */
    int32_t format;   /* DUPES_FMT_RAW for mBuffer, else DumpData.format as dumped */
    node_ix array;    /* the byte[] (or other primitive array) holding them */
    uint64_t off;     /* first byte in g->data */
    uint64_t len;     /* bytes */
    uint32_t width;   /* mWidth (0 if absent or negative) */
    uint32_t height;  /* mHeight */
} dupes_pixels;

/* Finds the pixels of Bitmap instance bm. Returns 1 and fills *px (source NONE when the
 * bitmap has none in the dump), or 0 when bm is no android.graphics.Bitmap instance.
 * O(dumpData count) per call. */
int dupes_bitmap_pixels(const graph *g, node_ix bm, dupes_pixels *px);

/* One group of identical things. Members are node indices in dupes_result.members from
 * first_member, in node order (the first is the group's representative). */
typedef struct dupes_group {
    uint8_t elem_type;     /* enum graph_ftype of the array elements (strings: of value) */
    uint32_t length;       /* elements per array (strings: characters of the value slice) */
    uint64_t bytes;        /* shallow bytes of one copy (strings: String + value array) */
    uint32_t count;        /* copies */
    uint64_t wasted;       /* (count - 1) * bytes */
    uint32_t first_member; /* index into members */
    uint32_t width;        /* bitmaps: mWidth of the first bitmap, else 0 */
    uint32_t height;       /* bitmaps: mHeight of the first bitmap, else 0 */
    uint8_t pix_source;    /* bitmaps: enum dupes_pix_source of the members' pixels */
} dupes_group;

typedef struct dupes_result {
    /* identical primitive arrays; members are the arrays; sorted by wasted bytes, desc */
    dupes_group *arrays;
    uint32_t n_arrays;
    /* bitmaps; members are the Bitmap instances */
    dupes_group *bitmaps;
    uint32_t n_bitmaps;
    /* strings; members are the String instances */
    dupes_group *strings;
    uint32_t n_strings;
    uint64_t wasted_arrays;  /* sums of wasted over each section */
    uint64_t wasted_bitmaps;
    uint64_t wasted_strings;

    node_ix *members;        /* all members of all sections */
    uint32_t n_members;
    node_ix *owner;          /* per member: arrays -> first referrer (GRAPH_NONE if none);
                              * bitmaps and strings -> the member itself */
    edge_ix *owner_edge;     /* per member: the referrer's edge to it, GRAPH_NONE if none */
    paths_result paths;      /* shortest strong paths to every owner (one traversal) */
    /* non-recycled bitmaps with mWidth x mHeight >= large_pixels, by pixels desc, then node */
    node_ix *large;
    uint32_t n_large;
} dupes_result;

/* Finds all three sections. Builds reverse edges on g if needed (hence non-const). Returns
 * LR_OK and fills *r (free: dupes_free), or LR_ERR_NOMEM. Cost: one pass hashing the arrays
 * of at least min_bytes, a sort, byte compares inside groups, one paths_find. */
lr_status dupes_find(graph *g, const dupes_opts *o, dupes_result *r, lr_error *err);

/* dupes_find without owners and paths (owner, owner_edge and paths stay empty): no reverse
 * edges and no traversal, for callers that show the groups only. Same returns. */
lr_status dupes_find_groups(graph *g, const dupes_opts *o, dupes_result *r, lr_error *err);

/* Frees what dupes_find allocated and zeroes *r. Accepts a zeroed result. */
void dupes_free(dupes_result *r);

#endif
