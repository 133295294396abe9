/* SPDX-License-Identifier: Apache-2.0 */
/* png.c: raw bitmap pixels to PNG bytes in memory (report layer), prefix rep_png_. libpng
 * writes through a callback into a growing buffer; errors longjmp back here and become -1.
 * RGB_565 channels are widened to 8 bits with rounding; ARGB_8888 is stored by Android as
 * R,G,B,A bytes and goes to PNG unchanged. The caller bounds the pixel count. */
#include "report/png.h"

#include <png.h>
#include <stdlib.h>
#include <string.h>

const char *rep_png_image_type(const uint8_t *p, uint64_t n)
{
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n >= 8 && memcmp(p, sig, 8) == 0)
        return "image/png";
    if (n >= 3 && p[0] == 0xff && p[1] == 0xd8 && p[2] == 0xff)
        return "image/jpeg";
    if (n >= 12 && memcmp(p, "RIFF", 4) == 0 && memcmp(p + 8, "WEBP", 4) == 0)
        return "image/webp";
    return NULL;
}

unsigned rep_png_raw_bpp(const dupes_pixels *px, uint64_t max_pixels)
{
    uint64_t n = (uint64_t)px->width * px->height;
    if (n == 0 || n > max_pixels)
        return 0;
    return px->len >= n * 4 ? 4 : px->len >= n * 2 ? 2 : 0;
}

typedef struct membuf {
    uint8_t *p;
    size_t n, cap;
    int failed;
} membuf;

static void mb_write(png_structp png, png_bytep data, png_size_t len)
{
    membuf *m = png_get_io_ptr(png);
    if (m->failed)
        return;
    if (m->n + len > m->cap) {
        size_t cap = m->cap ? m->cap : 4096;
        while (cap < m->n + len)
            cap *= 2;
        uint8_t *q = realloc(m->p, cap);
        if (!q) {
            m->failed = 1;
            return;
        }
        m->p = q, m->cap = cap;
    }
    memcpy(m->p + m->n, data, len);
    m->n += len;
}

static void mb_flush(png_structp png) { (void)png; }

static void on_error(png_structp p, png_const_charp msg)
{
    (void)msg;
    png_longjmp(p, 1);
}

static void on_warning(png_structp p, png_const_charp msg) { (void)p, (void)msg; }

int rep_png_encode(const uint8_t *pix, uint32_t width, uint32_t height, unsigned bpp,
                   uint8_t **out, size_t *len)
{
    *out = NULL, *len = 0;
    unsigned out_bpp = bpp == 4 ? 4 : 3;
    /* volatile: both are read after a longjmp back into this frame */
    membuf *volatile mb = calloc(1, sizeof *mb);
    uint8_t *volatile row = malloc((size_t)width * out_bpp);
    png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, on_error, on_warning);
    png_infop info = p ? png_create_info_struct(p) : NULL;
    if (!mb || !row || !p || !info)
        goto fail;
    if (setjmp(png_jmpbuf(p)))
        goto fail;
    png_set_write_fn(p, mb, mb_write, mb_flush);
    png_set_IHDR(p, info, width, height, 8, bpp == 4 ? PNG_COLOR_TYPE_RGBA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(p, info);
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *src = pix + (uint64_t)y * width * bpp;
        if (bpp == 4) {
            memcpy(row, src, (size_t)width * 4);
        } else {
            for (uint32_t x = 0; x < width; x++) {
                unsigned v = (unsigned)src[2 * x] | (unsigned)src[2 * x + 1] << 8;
                unsigned r = v >> 11 & 0x1f, gr = v >> 5 & 0x3f, b = v & 0x1f;
                row[3 * x] = (uint8_t)((r * 255 + 15) / 31);
                row[3 * x + 1] = (uint8_t)((gr * 255 + 31) / 63);
                row[3 * x + 2] = (uint8_t)((b * 255 + 15) / 31);
            }
        }
        png_write_row(p, row);
    }
    png_write_end(p, info);
    png_destroy_write_struct(&p, &info);
    free(row);
    if (mb->failed) {
        free(mb->p);
        free(mb);
        return -1;
    }
    *out = mb->p, *len = mb->n;
    free(mb);
    return 0;
fail:
    png_destroy_write_struct(p ? &p : NULL, info ? &info : NULL);
    free(row);
    if (mb)
        free(mb->p);
    free(mb);
    return -1;
}
