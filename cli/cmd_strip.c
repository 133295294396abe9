/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_strip.c: `leakray strip FILE -o OUT [--mode sanitize|shrink]` (cli). Maps the input
 * (gzip/bzip2 inflated by mfile) and hands it to hprof_strip (src/format/hprof_write.c),
 * which writes OUT atomically; this file only parses options, refuses inputs the reader
 * rejects (loaded once first, without references) and prints what was done. */
#include "cli.h"
#include "base/mfile.h"
#include "format/hprof_write.h"

#include <string.h>

int cmd_strip(int argc, char **argv)
{
    const char *out = NULL, *mode = "sanitize";
    const cli_optdef opts[] = {
        CLI_OPTS_OUTPUT(&out, "output file (gzip when it ends in .gz)"),
        {"--mode", CLI_OPT_STR, &mode, "MODE",
         "sanitize: zero array contents and boxed values, same size (default); "
         "shrink: drop arrays except String values and one copy of duplicate bitmaps",
         "sanitize|shrink"},
        {0}};
    const cli_spec spec = {
        "strip", "FILE", "remove array contents from an HPROF dump (privacy, size)", opts, 1, 1,
        CLI_OUTPUT_NOTE
        "sanitize follows LeakCanary's stripper; shrink follows Matrix's HprofBufferShrinker\n"
        "(references to dropped arrays dangle). Both outputs load in leakray and VisualVM."};
    cli_common co;
    int rc = cli_parse_output(argc, argv, &spec, &co, &out);
    if (rc != CLI_CONTINUE)
        return rc;
    if (co.mapping) /* records are copied, never named: a mapping would change nothing */
        return cli_usage_error(&co, "strip writes records as they are; --mapping has no effect");

    double t0 = cli_now_ms();
    /* What the reader rejects is not stripped either: the writer walks records with fewer
     * checks, and a stripped copy of a broken dump would look like a good one. */
    lr_heap *h;
    if ((rc = cli_open(&co, co.pos[0], CLI_OPEN_NO_EDGES, &h)) != 0)
        return rc;
    lr_close(h);
    lr_error err = {0};
    mfile m = {0};
    lr_status s = mfile_open(&m, co.pos[0], co.max_inflate, &err);
    if (s != LR_OK)
        return cli_error(&co, &err);
    hprof_strip_stats st;
    int shrink = strcmp(mode, "shrink") == 0;
    s = hprof_strip(&m, co.pos[0], out, shrink ? HPROF_STRIP_SHRINK : HPROF_STRIP_SANITIZE, &st,
                    &err);
    mfile_close(&m);
    if (s != LR_OK)
        return cli_error(&co, &err);
    double ms = cli_now_ms() - t0;

    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        jsonw_kv_str(&w, "mode", mode);
        jsonw_kv_str(&w, "output", out);
        jsonw_kv_uint(&w, "in_bytes", st.in_bytes);
        jsonw_kv_uint(&w, "out_bytes", st.out_bytes);
        jsonw_kv_uint(&w, "primitive_arrays", st.arrays);
        if (shrink) {
            jsonw_kv_uint(&w, "arrays_kept", st.arrays_kept);
            jsonw_kv_uint(&w, "arrays_dropped", st.arrays_dropped);
            jsonw_kv_uint(&w, "string_arrays", st.string_arrays);
            jsonw_kv_uint(&w, "bitmaps", st.bitmaps);
            jsonw_kv_uint(&w, "bitmap_groups", st.bitmap_groups);
            jsonw_kv_uint(&w, "bitmaps_redirected", st.bitmaps_redirected);
        } else {
            jsonw_kv_uint(&w, "arrays_zeroed", st.arrays_zeroed);
            jsonw_kv_uint(&w, "boxed_zeroed", st.boxed_zeroed);
        }
        cli_json_end_phase(&co, &w, "strip_ms", ms);
        return CLI_EXIT_OK;
    }
    char a[CLI_FMT_MAX], b[CLI_FMT_MAX], c[CLI_FMT_MAX], d[CLI_FMT_MAX];
    printf("%s: %s -> %s\n", mode, co.pos[0], out);
    printf("bytes: %s -> %s", cli_fmt_bytes(a, st.in_bytes), cli_fmt_bytes(b, st.out_bytes));
    if (st.in_bytes)
        printf(" (%.1f%%)", 100.0 * (double)st.out_bytes / (double)st.in_bytes);
    printf("\n");
    if (shrink) {
        printf("primitive arrays: %s kept (%s String values), %s dropped\n",
               cli_fmt_count(a, st.arrays_kept), cli_fmt_count(b, st.string_arrays),
               cli_fmt_count(c, st.arrays_dropped));
        printf("bitmaps: %s with buffers, %s duplicate groups, %s redirected to a kept copy\n",
               cli_fmt_count(a, st.bitmaps), cli_fmt_count(b, st.bitmap_groups),
               cli_fmt_count(d, st.bitmaps_redirected));
    } else {
        printf("primitive arrays zeroed: %s of %s; boxed values zeroed: %s\n",
               cli_fmt_count(a, st.arrays_zeroed), cli_fmt_count(b, st.arrays),
               cli_fmt_count(c, st.boxed_zeroed));
    }
    cli_print_timing(&co, stdout, "strip", ms);
    return CLI_EXIT_OK;
}
