/* SPDX-License-Identifier: Apache-2.0 */
/* err.c: lr_error recording, status names and checked allocation (base layer), prefix err_.
 * Every allocation whose size derives from input goes through the overflow-checked helpers
 * here, so a hostile count becomes LR_ERR_NOMEM/LR_ERR_LIMIT instead of a short buffer. */
#include "base/err.h"

#include <stdint.h>
#include <string.h>

lr_status err_set(lr_error *err, lr_status code, uint64_t offset, const char *src_file,
                  int src_line, const char *fmt, ...)
{
    if (!err || err->code != LR_OK)
        return code;
    err->code = code;
    err->offset = offset;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
#ifndef NDEBUG
    if (n >= 0 && (size_t)n < sizeof err->msg - 1 && getenv("LEAKRAY_DEBUG_ERRORS"))
        snprintf(err->msg + n, sizeof err->msg - (size_t)n, " [%s:%d]", src_file, src_line);
#else
    (void)n;
    (void)src_file;
    (void)src_line;
#endif
    return code;
}

const char *lr_strerror(lr_status s)
{
    switch (s) {
    case LR_OK: return "ok";
    case LR_ERR_USAGE: return "usage error";
    case LR_ERR_IO: return "I/O error";
    case LR_ERR_NOMEM: return "out of memory";
    case LR_ERR_FORMAT: return "malformed input";
    case LR_ERR_TRUNCATED: return "truncated input";
    case LR_ERR_LIMIT: return "resource limit reached";
    case LR_ERR_NOT_FOUND: return "not found";
    case LR_ERR_RULES: return "invalid rules";
    case LR_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

int lr_exit_code(lr_status s)
{
    switch (s) {
    case LR_OK: return 0;
    case LR_ERR_USAGE:
    case LR_ERR_NOT_FOUND: return 2;
    case LR_ERR_FORMAT:
    case LR_ERR_TRUNCATED:
    case LR_ERR_RULES: return 3;
    case LR_ERR_IO: return 4;
    case LR_ERR_NOMEM:
    case LR_ERR_LIMIT:
    case LR_ERR_INTERNAL: return 5;
    }
    return 5;
}

void *err_malloc(size_t n) { return malloc(n ? n : 1); }

void *err_calloc(size_t count, size_t size)
{
    return calloc(count ? count : 1, size ? size : 1);
}

void *err_mallocarray(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    return malloc((count && size) ? count * size : 1);
}

void *err_reallocarray(void *p, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    return realloc(p, (count && size) ? count * size : 1);
}
