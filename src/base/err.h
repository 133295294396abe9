/* SPDX-License-Identifier: Apache-2.0 */
/* err.h: error recording for every layer (base layer), prefix err_ / LR_ macros. A fallible
 * function returns lr_status and fills the caller's lr_error with the code, the byte offset
 * where the input went wrong and a message naming the file. The first failure wins, so a
 * low-level reader's precise message survives being forwarded up through LR_TRY. Debug
 * builds append the detecting source line, so one breakpoint in err_set catches them all. */
#ifndef LR_BASE_ERR_H
#define LR_BASE_ERR_H

#include "leakray/leakray.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Fills *err (if it holds no error yet) and returns code. fmt is printf-style. */
lr_status err_set(lr_error *err, lr_status code, uint64_t offset, const char *src_file,
                  int src_line, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Corrupt input found at byte offset `off` of file `name`; evaluates to LR_ERR_FORMAT.
 * e.g. return LR_CORRUPT(err, path, off, "INSTANCE_DUMP length %u past end", len); */
#define LR_CORRUPT(err, name, off, fmt, ...)                                                \
    err_set((err), LR_ERR_FORMAT, (uint64_t)(off), __FILE__, __LINE__, "%s: offset 0x%llx: " fmt, \
            (name), (unsigned long long)(off), ##__VA_ARGS__)
/* Same for input that ends inside a record; evaluates to LR_ERR_TRUNCATED. */
#define LR_TRUNC(err, name, off, fmt, ...)                                                  \
    err_set((err), LR_ERR_TRUNCATED, (uint64_t)(off), __FILE__, __LINE__,                   \
            "%s: offset 0x%llx: " fmt, (name), (unsigned long long)(off), ##__VA_ARGS__)
/* Any other failure without an input offset. */
#define LR_FAIL(err, code, fmt, ...) \
    err_set((err), (code), LR_NO_OFFSET, __FILE__, __LINE__, fmt, ##__VA_ARGS__)

/* Forwards a failure unchanged. */
#define LR_TRY(expr)                 \
    do {                             \
        lr_status lr_try_s_ = (expr); \
        if (lr_try_s_ != LR_OK)      \
            return lr_try_s_;        \
    } while (0)

#ifndef NDEBUG
#define LR_ASSERT(c)                                                                  \
    do {                                                                              \
        if (!(c)) {                                                                   \
            fprintf(stderr, "leakray: internal error %s:%d: %s\n", __FILE__, __LINE__, #c); \
            abort();                                                                  \
        }                                                                             \
    } while (0)
#else
#define LR_ASSERT(c) ((void)0)
#endif

/* Checked allocation helpers: return NULL on failure and on size overflow (never abort). */
void *err_malloc(size_t n);
void *err_calloc(size_t count, size_t size);
void *err_mallocarray(size_t count, size_t size);
void *err_reallocarray(void *p, size_t count, size_t size);

#endif
