/* SPDX-License-Identifier: Apache-2.0 */
/* lex.h: the text layer shared by every rules-file reader (rules layer), prefix lex_ / LEX_.
 * The rules language, cluster rules, category rules and ProGuard mappings are all line
 * oriented: a reader walks a buffer line by line with numbers (lex_lines), skips blanks,
 * splits words with double-quoted parts (lex_word, lex_quoted) and reports a bad line as
 * LR_ERR_RULES "file:line: message" (LEX_FAIL). The buffer is never modified and need not end
 * in a NUL; every scan is bounded by an end pointer. lex_read_file loads a whole file with a
 * size ceiling, lex_find_rules resolves a shipped file name in the rules folders in one order:
 * $LEAKRAY_RULES_DIR, then the source tree's rules/ (only for a binary inside the build tree it
 * was built in), then <exe dir>/../share/leakray/rules, then the configured install folder. */
#ifndef LR_RULES_LEX_H
#define LR_RULES_LEX_H

#include "base/err.h"

#include <stddef.h>
#include <stdint.h>

/* LR_ERR_RULES "name:line: ..." with a literal fmt; evaluates to LR_ERR_RULES. A macro so
 * debug builds name the line that detected the problem. */
#define LEX_FAIL(err, name, line, fmt, ...)                                          \
    LR_FAIL((err), LR_ERR_RULES, "%s:%u: " fmt, (name), (unsigned)(line), ##__VA_ARGS__)

/* Line reader: after lex_next_line returns 1, [p, eol) is line number `line`, without its
 * '\n' (a '\r' before it stays: blanks include it). */
typedef struct lex_lines {
    const char *p, *eol;
    const char *next, *end;
    uint32_t line;
} lex_lines;

void lex_lines_init(lex_lines *l, const char *text, size_t len, uint32_t first_line);
int lex_next_line(lex_lines *l);
/* Whether the current line holds a NUL byte (rules text is never binary). */
int lex_line_has_nul(const lex_lines *l);

/* Blank: space, tab or carriage return. */
int lex_is_blank(char c);
const char *lex_skip_blanks(const char *p, const char *end);

/* Results of lex_quoted and lex_word besides a length. */
enum { LEX_END = -1, LEX_EQUOTE = -2, LEX_ELONG = -3 };
/* lex_quoted flags: C escapes (\n, \t; a backslash before any other character yields that
 * character). Without it only \" and \\ are escapes and other backslashes stay as written,
 * so glob text keeps fnmatch's own escapes. */
#define LEX_ESC_C 1u

/* Reads the double-quoted string at *pp (pointing at '"') into out[cap], NUL-terminated,
 * and moves *pp past the closing quote. Returns the length, LEX_EQUOTE when the line ends
 * first, LEX_ELONG when out is too small (out then holds what fitted). */
long lex_quoted(const char **pp, const char *end, unsigned flags, char *out, size_t cap);

/* Reads the next blank-separated word of [*pp, end) into out[cap], NUL-terminated. A word may
 * hold double-quoted parts (name="a b"); an unquoted '#' ends the word and starts a comment
 * running to the end. Returns the length, LEX_END when only blanks or a comment remain,
 * LEX_EQUOTE, or LEX_ELONG (out then holds the first cap-1 bytes). */
long lex_word(const char **pp, const char *end, char *out, size_t cap);

/* Loads the whole file into a malloc'd buffer (free it). Files of max_mib MiB or more fail
 * with LR_ERR_LIMIT "PATH: WHAT larger than N MiB"; others with LR_ERR_IO / LR_ERR_NOMEM. */
lr_status lex_read_file(const char *path, const char *what, unsigned max_mib, char **text,
                        size_t *len, lr_error *err);

/* Writes DIR/file of the first rules folder holding a readable `file` into path[cap];
 * returns 0 when none does. */
int lex_find_rules(const char *file, char *path, size_t cap);

/* The copy of shipped rules file `file` compiled into the binary (NUL-terminated), the last
 * place the loaders look when lex_find_rules finds none on disk: *name says where it came
 * from in messages. Returns 0 for a file that is not shipped. */
int lex_builtin_rules_file(const char *file, const char **name, const char **text, size_t *len);

#endif
