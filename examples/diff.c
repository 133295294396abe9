/* SPDX-License-Identifier: Apache-2.0 */
/* diff.c: what grew between two heap dumps of one program, per class (DevTools' Comparison:
 * objects matched by id for V8 snapshots, by class counts otherwise).
 * usage: diff BEFORE AFTER [ROWS] */
#include <leakray/analysis.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: %s BEFORE AFTER [ROWS]\n", argv[0]);
        return 2;
    }
    uint32_t rows = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 10;
    lr_error err = {0};
    lr_heap *a = NULL, *b = NULL;
    lr_diff *d = NULL;
    if (lr_open(argv[1], NULL, &a, &err) != LR_OK || lr_open(argv[2], NULL, &b, &err) != LR_OK ||
        lr_diff_build(a, b, strcmp(lr_heap_format(a), "v8") == 0 ? LR_DIFF_BY_ID : 0, &d,
                      &err) != LR_OK) {
        fprintf(stderr, "diff: %s\n", err.msg);
        lr_close(a);
        lr_close(b);
        return lr_exit_code(err.code);
    }
    if (*lr_diff_warning(d))
        fprintf(stderr, "diff: %s\n", lr_diff_warning(d));
    const lr_diff_row *t = lr_diff_total(d);
    printf("%u classes changed; objects %+" PRId64 ", bytes %+" PRId64 "\n", lr_diff_count(d),
           t->count_delta, t->size_delta);
    for (uint32_t i = 0; i < lr_diff_count(d) && i < rows; i++) {
        const lr_diff_row *r = lr_diff_get(d, i);
        printf("%+" PRId64 " bytes %+" PRId64 " objects %s\n", r->size_delta, r->count_delta,
               r->class_name);
    }
    lr_diff_free(d);
    lr_close(a);
    lr_close(b);
    return 0;
}
