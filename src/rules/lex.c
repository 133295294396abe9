/* SPDX-License-Identifier: Apache-2.0 */
/* lex.c: line reader, word and quoted-string scanner, file loading and rules-folder search
 * shared by the rules-file readers (rules layer), prefix lex_. Scans never read past the end
 * pointer they are given; the file loader doubles its buffer up to a ceiling so a huge or
 * endless input (a FIFO) cannot make it allocate without bound. */
#include "rules/lex.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void lex_lines_init(lex_lines *l, const char *text, size_t len, uint32_t first_line)
{
    /* A byte-order mark, as editors on Windows write, is no part of a file's first line. */
    if (first_line == 1 && len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
        text += 3;
        len -= 3;
    }
    l->p = l->eol = l->next = text;
    l->end = text + len;
    l->line = first_line - 1;
}

int lex_next_line(lex_lines *l)
{
    if (l->next >= l->end)
        return 0;
    l->p = l->next;
    l->eol = memchr(l->p, '\n', (size_t)(l->end - l->p));
    if (!l->eol)
        l->eol = l->end;
    l->next = l->eol + (l->eol < l->end);
    l->line++;
    return 1;
}

int lex_line_has_nul(const lex_lines *l)
{
    return memchr(l->p, 0, (size_t)(l->eol - l->p)) != NULL;
}

int lex_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

const char *lex_skip_blanks(const char *p, const char *end)
{
    while (p < end && lex_is_blank(*p))
        p++;
    return p;
}

long lex_quoted(const char **pp, const char *end, unsigned flags, char *out, size_t cap)
{
    const char *p = *pp + 1;
    size_t n = 0;
    while (p < end && *p != '"') {
        char ch = *p++;
        if (ch == '\\' && p < end) {
            if (flags & LEX_ESC_C) {
                ch = *p++;
                ch = ch == 'n' ? '\n' : ch == 't' ? '\t' : ch;
            } else if (*p == '"' || *p == '\\') {
                ch = *p++;
            }
        }
        if (n + 1 >= cap) {
            out[n] = 0;
            return LEX_ELONG;
        }
        out[n++] = ch;
    }
    out[n] = 0;
    if (p >= end)
        return LEX_EQUOTE;
    *pp = p + 1;
    return (long)n;
}

long lex_word(const char **pp, const char *end, char *out, size_t cap)
{
    const char *p = lex_skip_blanks(*pp, end);
    size_t n = 0;
    if (p >= end || *p == '#') {
        *pp = end;
        out[0] = 0;
        return LEX_END;
    }
    while (p < end && !lex_is_blank(*p) && *p != '#') {
        if (*p == '"') {
            long k = lex_quoted(&p, end, 0, out + n, cap - n);
            if (k < 0)
                return k;
            n += (size_t)k;
            continue;
        }
        if (n + 1 >= cap) {
            out[n] = 0;
            return LEX_ELONG;
        }
        out[n++] = *p++;
    }
    out[n] = 0;
    *pp = p < end && *p == '#' ? end : p;
    return (long)n;
}

lr_status lex_read_file(const char *path, const char *what, unsigned max_mib, char **text,
                        size_t *len, lr_error *err)
{
    *text = NULL;
    *len = 0;
    /* A FIFO (or `<(...)`) is read as a stream; opening it must not wait for a writer that
     * may never come (O_NONBLOCK; a FIFO without writers then reads as empty); character
     * devices (/dev/stdin, /dev/null) are streamed too, up to the size cap; folders and
     * other kinds are refused. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return LR_FAIL(err, LR_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 ||
        (!S_ISREG(sb.st_mode) && !S_ISFIFO(sb.st_mode) && !S_ISCHR(sb.st_mode))) {
        close(fd);
        return LR_FAIL(err, LR_ERR_IO, "%s: not a regular file, pipe or device", path);
    }
    (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return LR_FAIL(err, LR_ERR_IO, "%s: %s", path, strerror(errno));
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = err_malloc(cap);
    lr_status st = LR_OK;
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        if (cap >= ((size_t)max_mib << 20)) {
            st = LR_FAIL(err, LR_ERR_LIMIT, "%s: %s larger than %u MiB", path, what, max_mib);
            break;
        }
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf)
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", path);
    if (st == LR_OK && bad)
        st = LR_FAIL(err, LR_ERR_IO, "%s: read error", path);
    if (st != LR_OK) {
        free(buf);
        return st;
    }
    *text = buf;
    *len = n;
    return LR_OK;
}

/* The source tree's rules serve only a binary that runs from the build tree it was built in
 * (build/leakray, the unit tests beside it): an installed copy must never read a checkout that may
 * have moved on, so it looks beside itself (<prefix>/bin/../share/leakray/rules, which keeps a
 * relocated install working) and then in the configured install dir. */
static int running_from_build_tree(void)
{
#ifdef LEAKRAY_BUILD_DIR
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return 0;
    exe[n] = 0;
    /* The folder itself, not below it: a test may stage an install inside the build tree. */
    char *slash = strrchr(exe, '/');
    if (!slash)
        return 0;
    *slash = 0;
    return strcmp(exe, LEAKRAY_BUILD_DIR) == 0;
#else
    return 0;
#endif
}

static int rules_beside_exe(char *dir, size_t cap)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return 0;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return 0;
    *slash = 0;
    char rel[4200];
    int k = snprintf(rel, sizeof rel, "%s/../share/leakray/rules", exe);
    if (k <= 0 || (size_t)k >= sizeof rel || cap < PATH_MAX)
        return 0;
    /* Resolved, so error messages name the file as the user knows it. */
    return realpath(rel, dir) != NULL;
}

int lex_find_rules(const char *file, char *path, size_t cap)
{
    char beside[PATH_MAX];
    const char *dirs[4] = {getenv("LEAKRAY_RULES_DIR"), NULL, NULL, NULL};
#ifdef LEAKRAY_SOURCE_RULES_DIR
    if (running_from_build_tree())
        dirs[1] = LEAKRAY_SOURCE_RULES_DIR;
#endif
    if (rules_beside_exe(beside, sizeof beside))
        dirs[2] = beside;
#ifdef LEAKRAY_RULES_DIR
    dirs[3] = LEAKRAY_RULES_DIR;
#endif
    for (int i = 0; i < 4; i++) {
        if (!dirs[i] || !*dirs[i])
            continue;
        int k = snprintf(path, cap, "%s/%s", dirs[i], file);
        if (k > 0 && (size_t)k < cap && access(path, R_OK) == 0)
            return 1;
    }
    return 0;
}

/* builtin_rules.c, generated from the rules folder by scripts/embed-assets.cmake */
typedef struct lr_embedded {
    const char *name, *label, *text;
    size_t len;
} lr_embedded;
extern const lr_embedded lex_builtin_rules[];

int lex_builtin_rules_file(const char *file, const char **name, const char **text, size_t *len)
{
    for (const lr_embedded *e = lex_builtin_rules; e->name; e++)
        if (strcmp(e->name, file) == 0) {
            *name = e->label; /* "built-in/jdk.rules" */
            *text = e->text;
            *len = e->len;
            return 1;
        }
    return 0;
}
