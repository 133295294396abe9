/* SPDX-License-Identifier: Apache-2.0 */
/* api_locale_test.c: the library in a host program's settings. A program that calls
 * setlocale(LC_ALL, "") in a locale with a decimal comma (de_DE, made here with localedef
 * into a scratch folder) gets the same suspect sentences, text and JSON as in the C locale
 * ("27.7 %", never "27,7 %"; JSON that parses); its own locale is left as it was. And a
 * report rendered to a file under a file-size limit (ulimit -f) fails with LR_ERR_IO where
 * the write would have raised SIGXFSZ and ended the program. Only public headers. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "leakray/analysis.h"
#include "leakray/leakray.h"
#include "leakray/report.h"
#include "test_fixtures.h"

static lr_heap *open_fix(const char *rel)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", fixdir, rel);
    lr_heap *h = NULL;
    lr_error err = {0};
    assert_int_equal(lr_open(p, NULL, &h, &err), LR_OK);
    return h;
}

/* The suspects' sentences and the text and JSON renderings of h's analysis, joined. */
static char *outputs(lr_heap *h)
{
    lr_error err = {0};
    lr_analysis *an = NULL;
    assert_int_equal(lr_analyze(h, NULL, &an, &err), LR_OK);
    char *all = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&all, &len);
    assert_non_null(f);
    lr_suspect s;
    for (uint32_t i = 0; i < lr_analysis_suspect_count(an); i++) {
        assert_int_equal(lr_analysis_suspect(an, i, &s, &err), LR_OK);
        fprintf(f, "%s\n", s.description);
    }
    lr_render_opts ro = {0};
    ro.no_timing = 1;
    for (int fmt = LR_RENDER_TEXT; fmt <= LR_RENDER_JSON; fmt++) {
        char *b = NULL;
        size_t n = 0;
        assert_int_equal(lr_render_buffer(an, (lr_render_format)fmt, &ro, &b, &n, &err), LR_OK);
        fwrite(b, 1, n, f);
        lr_free(b);
    }
    fclose(f);
    lr_analysis_free(an);
    return all;
}

static void decimal_comma(void **state)
{
    (void)state;
    if (!tf_have("hprof", "HPROF"))
        skip();
    char dir[] = "/tmp/lr_locale_XXXXXX", cmd[256];
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 2>/dev/null", dir);
    int made = system(cmd) == 0;
    setenv("LOCPATH", dir, 1);
    if (!made || !setlocale(LC_ALL, "de_DE.UTF-8")) {
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        (void)!system(cmd);
        if (getenv("CI") && !strcmp(getenv("CI"), "true"))
            fail_msg("no de_DE locale (localedef and the locales package) and CI=true");
        print_message("SKIP: no de_DE locale (localedef, package locales)\n");
        skip();
    }
    char probe[16];
    snprintf(probe, sizeof probe, "%.1f", 27.7);
    assert_string_equal(probe, "27,7"); /* the host's locale is one with a decimal comma */
    lr_heap *h = open_fix("hprof/test-dump.hprof");
    char *de = outputs(h);
    snprintf(probe, sizeof probe, "%.1f", 27.7);
    assert_string_equal(probe, "27,7"); /* and is still after the library ran */
    setlocale(LC_ALL, "C");
    char *c = outputs(h);
    assert_non_null(strstr(c, " %)")); /* a share was printed at all */
    assert_string_equal(de, c);
    free(de);
    free(c);
    lr_close(h);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    (void)!system(cmd);
}

static void file_size_limit(void **state)
{
    (void)state;
    if (!tf_have("hprof", "HPROF"))
        skip();
    lr_heap *h = open_fix("hprof/test-dump.hprof");
    lr_error err = {0};
    lr_analysis *an = NULL;
    assert_int_equal(lr_analyze(h, NULL, &an, &err), LR_OK);
    char path[] = "/tmp/lr_fsize_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    struct rlimit was, lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
    lim = was;
    lim.rlim_cur = 4096;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    lr_status st = lr_render(an, LR_RENDER_HTML, NULL, f, &err);
    fclose(f);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
    assert_int_equal(st, LR_ERR_IO);
    assert_non_null(strstr(err.msg, "file-size limit"));
    unlink(path);
    lr_analysis_free(an);
    lr_close(h);
}

int main(void)
{
    tf_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decimal_comma),
        cmocka_unit_test(file_size_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
