/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_strip.c: `leakray strip FILE -o OUT [--mode sanitize|shrink]` (cli). Maps the input
 * (gzip/bzip2 inflated by mfile) and hands it to hprof_strip (src/format/hprof_write.c),
 * which writes OUT atomically; this file only parses options, refuses inputs the reader
 * rejects (loaded once first, without references) and hands what was done to
 * report/status.h. */
#include "cli.h"
#include "base/mfile.h"
#include "format/hprof_write.h"
#include "report/status.h"

#include <string.h>
#include <unistd.h>

int cmd_strip(int argc, char **argv)
{
    const char *out = NULL, *mode = "sanitize";
    const cli_optdef opts[] = {
        CLI_OPTS_OUTPUT(&out, "output file (gzip when it ends in .gz)"),
        {"--mode", CLI_OPT_STR, &mode, "MODE",
         "sanitize: zero array contents and boxed values, same size (default); "
         "shrink: empty arrays except String values and one copy of duplicate bitmaps",
         "sanitize|shrink"},
        {0}};
    const cli_spec spec = {
        "strip", "FILE", "Remove array contents from an HPROF dump (privacy, size).", opts, 1, 1,
        CLI_OUTPUT_NOTE CLI_STDOUT_NOTE
        "sanitize follows LeakCanary's stripper but keeps android.os.Build's strings (the\n"
        "device's maker and build, which the library-leak rules read); the names the dump's\n"
        "symbol records hold (classes, fields, a HotSpot dump's string constants of the code)\n"
        "stay. shrink follows Matrix's HprofBufferShrinker (an emptied array keeps its\n"
        "record). Both load in leakray, VisualVM and Shark."};
    cli_common co;
    int rc = cli_parse_output(argc, argv, &spec, &co, &out);
    if (rc != CLI_CONTINUE)
        return rc;
    if (co.mapping) /* records are copied, never named: a mapping would change nothing */
        return cli_usage_error(&co, "strip writes records as they are; --mapping has no effect");
    if (co.dump_index >= 0) /* it was accepted and changed nothing */
        return cli_usage_error(&co, "strip rewrites every heap dump of the file; --dump has no "
                                    "effect");
    if (cli_out_stdout(out) && isatty(STDOUT_FILENO))
        return cli_usage_error(&co, "-o - would write a binary dump to the terminal; "
                                    "redirect stdout or name a file");

    double t0 = cli_now_ms();
    /* What the reader rejects is not stripped either: the writer walks records with fewer
     * checks, and a stripped copy of a broken dump would look like a good one. */
    lr_heap *h;
    if ((rc = cli_open(&co, co.pos[0], CLI_OPEN_NO_EDGES, &h)) != 0)
        return rc;
    /* the input the reader checked goes on to the writer (a pipe can be read only once); the
     * graph goes first, its memory back before the copy is written */
    lr_error err = {0};
    mfile m = h->input;
    memset(&h->input, 0, sizeof h->input);
    lr_close(h);
    hprof_strip_stats st;
    lr_status s;
    int shrink = strcmp(mode, "shrink") == 0;
    s = hprof_strip(&m, co.pos[0], out, shrink ? HPROF_STRIP_SHRINK : HPROF_STRIP_SANITIZE, &st,
                    &err);
    s = mfile_check_shrunk(&m, co.pos[0], s, &err);
    mfile_close(&m);
    if (s != LR_OK)
        return cli_error(&co, &err);
    double ms = cli_now_ms() - t0;
    if (cli_out_stdout(out)) /* stdout holds the dump alone */
        return CLI_EXIT_OK;

    rep_strip r = {.mode = mode,
                   .input = co.pos[0],
                   .output = out,
                   .shrink = shrink,
                   .in_bytes = st.in_bytes,
                   .out_bytes = st.out_bytes,
                   .arrays = st.arrays,
                   .arrays_zeroed = st.arrays_zeroed,
                   .boxed_zeroed = st.boxed_zeroed,
                   .arrays_kept = st.arrays_kept,
                   .arrays_dropped = st.arrays_dropped,
                   .string_arrays = st.string_arrays,
                   .bitmaps = st.bitmaps,
                   .bitmap_groups = st.bitmap_groups,
                   .bitmaps_redirected = st.bitmaps_redirected};
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        rep_status_strip_json(&w, &r);
        cli_json_end_phase(&co, &w, "strip_ms", ms);
        return CLI_EXIT_OK;
    }
    rep_status_strip_text(stdout, &r);
    cli_print_timing(&co, stdout, "strip", ms);
    return CLI_EXIT_OK;
}
