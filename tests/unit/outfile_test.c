/* SPDX-License-Identifier: Apache-2.0 */
/* outfile_test.c: unit tests of src/base/outfile.c, the atomic output file of strip and
 * convert: content through every write path (small, buffer-crossing, direct, putc, zero),
 * gzip round trip at two levels, the file mode (a replaced file's kept), abort keeping an
 * existing target and leaving no temporary, creation failure naming the path and errno, and
 * a write failure (file size limit) that is reported at commit and leaves neither target nor
 * temporary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/outfile.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/outfile_test.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[512];
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.' || (e->d_name[1] && strcmp(e->d_name, ".."))) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    if (d)
        closedir(d);
    return rmdir(dir);
}

/* Entries of dir other than . and .., hidden temporaries included. */
static int entries(void)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* Writes the reference content through every path of the API and returns it in *want. */
static void write_mix(outfile *of, uint8_t **want, size_t *want_len)
{
    size_t big = 3 * OUTFILE_BUF + 17, cap = 6 * OUTFILE_BUF;
    uint8_t *w = malloc(cap), *src = malloc(big);
    assert_non_null(w);
    assert_non_null(src);
    for (size_t i = 0; i < big; i++)
        src[i] = (uint8_t)((i * 2654435761u) >> 13);
    size_t n = 0;
    outfile_write(of, "head:", 5);
    memcpy(w + n, "head:", 5), n += 5;
    for (int i = 0; i < 1000; i++) {
        outfile_putc(of, (char)('a' + i % 26));
        w[n++] = (uint8_t)('a' + i % 26);
    }
    outfile_zero(of, 70000);
    memset(w + n, 0, 70000), n += 70000;
    /* pieces that cross the buffer boundary */
    for (size_t off = 0; off + 300000 <= OUTFILE_BUF + 300000; off += 300000) {
        outfile_write(of, src + off, 300000);
        memcpy(w + n, src + off, 300000), n += 300000;
    }
    outfile_write(of, src, big); /* direct */
    memcpy(w + n, src, big), n += big;
    outfile_zero(of, OUTFILE_BUF + 5);
    memset(w + n, 0, OUTFILE_BUF + 5), n += OUTFILE_BUF + 5;
    outfile_write(of, "tail", 4);
    memcpy(w + n, "tail", 4), n += 4;
    assert_true(n <= cap);
    assert_int_equal(outfile_bytes(of), n);
    assert_int_equal(outfile_failed(of), 0);
    free(src);
    *want = w;
    *want_len = n;
}

static void test_plain(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/out.bin", dir);
    outfile *of;
    lr_error err = {0};
    assert_int_equal(outfile_open(path, &of, &err), LR_OK);
    assert_int_equal(entries(), 1); /* the temporary only */
    uint8_t *want;
    size_t wl, gl;
    write_mix(of, &want, &wl);
    assert_int_equal(outfile_commit(of, &err), LR_OK);
    assert_int_equal(entries(), 1); /* the target only */
    uint8_t *got = slurp(path, &gl);
    assert_int_equal(gl, wl);
    assert_memory_equal(got, want, wl);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    mode_t um = umask(0);
    umask(um);
    assert_int_equal(sb.st_mode & 0777, 0666 & ~um);
    free(got);
    free(want);
    /* a file it replaces keeps its mode: a report locked down to 0600 is not published */
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(outfile_open(path, &of, &err), LR_OK);
    outfile_write(of, "x", 1);
    assert_int_equal(outfile_commit(of, &err), LR_OK);
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
}

static void test_gzip(void **state)
{
    (void)state;
    long sizes[2];
    for (int k = 0; k < 2; k++) {
        char path[128];
        snprintf(path, sizeof path, "%s/out%d.bin.gz", dir, k);
        outfile *of;
        lr_error err = {0};
        assert_int_equal(outfile_open(path, &of, &err), LR_OK);
        outfile_gzip_level(of, k == 0 ? 1 : 9);
        uint8_t *want;
        size_t wl;
        write_mix(of, &want, &wl);
        assert_int_equal(outfile_commit(of, &err), LR_OK);
        struct stat sb;
        assert_int_equal(stat(path, &sb), 0);
        sizes[k] = (long)sb.st_size;
        assert_true((size_t)sb.st_size < wl);
        gzFile gz = gzopen(path, "rb");
        assert_non_null(gz);
        uint8_t *got = malloc(wl + 1);
        assert_int_equal(gzread(gz, got, (unsigned)wl + 1), (int)wl);
        assert_int_equal(gzclose(gz), Z_OK);
        assert_memory_equal(got, want, wl);
        free(got);
        free(want);
    }
    assert_int_equal(entries(), 2);
    assert_true(sizes[1] < sizes[0]); /* the level reached deflate */
}

static void test_abort_keeps_target(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/keep.txt", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("old", f);
    fclose(f);
    outfile *of;
    lr_error err = {0};
    assert_int_equal(outfile_open(path, &of, &err), LR_OK);
    outfile_zero(of, 3 * OUTFILE_BUF);
    outfile_abort(of);
    outfile_abort(NULL);
    assert_int_equal(entries(), 1);
    size_t n;
    uint8_t *got = slurp(path, &n);
    assert_int_equal(n, 3);
    assert_memory_equal(got, "old", 3);
    free(got);
}

static void test_open_fails(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/no/such/out.bin", dir);
    outfile *of = (outfile *)&of;
    lr_error err = {0};
    assert_int_equal(outfile_open(path, &of, &err), LR_ERR_IO);
    assert_null(of);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "cannot create temporary file"));
    assert_non_null(strstr(err.msg, strerror(ENOENT)));
}

static void test_write_fails(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/big.bin", dir);
    outfile *of;
    lr_error err = {0};
    assert_int_equal(outfile_open(path, &of, &err), LR_OK);
    /* A file size limit makes write(2) fail with EFBIG like a full disk would fail. */
    struct rlimit old, lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = 100000;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    outfile_zero(of, 2 * OUTFILE_BUF);
    outfile_write(of, "x", 1);
    int failed = outfile_failed(of);
    lr_status s = outfile_commit(of, &err);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, prev);
    assert_int_equal(failed, EFBIG);
    assert_int_equal(s, LR_ERR_IO);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "write failed"));
    assert_non_null(strstr(err.msg, strerror(EFBIG)));
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(entries(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_plain, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gzip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_abort_keeps_target, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_fails, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
