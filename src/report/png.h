/* SPDX-License-Identifier: Apache-2.0 */
/* png.h: bitmap pixels to PNG bytes in memory (report layer), prefix rep_png_. Android's raw
 * bitmap buffers (ARGB_8888 as R,G,B,A bytes, or RGB_565 little-endian) become an 8-bit RGBA
 * or RGB PNG through libpng; buffers that already are image files (Bitmap.dumpData PNG, JPEG,
 * WebP) are recognised so a page can show them as they are. */
#ifndef LR_REPORT_PNG_H
#define LR_REPORT_PNG_H

#include "analysis/dupes.h"

#include <stddef.h>
#include <stdint.h>

/* MIME type of bytes that already are an image file ("image/png", "image/jpeg",
 * "image/webp"), or NULL. */
const char *rep_png_image_type(const uint8_t *p, uint64_t n);

/* Bytes per pixel of a raw buffer of px: 4 (ARGB_8888), 2 (RGB_565), or 0 when it holds too
 * few bytes or more than max_pixels pixels. */
unsigned rep_png_raw_bpp(const dupes_pixels *px, uint64_t max_pixels);

/* Encodes width x height raw pixels of bpp bytes as PNG into a malloc'd buffer (*out, *len;
 * free()). Returns 0, or -1 (out of memory or a libpng error). */
int rep_png_encode(const uint8_t *pix, uint32_t width, uint32_t height, unsigned bpp,
                   uint8_t **out, size_t *len);

#endif
