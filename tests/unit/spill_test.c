/* SPDX-License-Identifier: Apache-2.0 */
/* spill_test.c: unit tests of src/base/spill.c, the file-backed blocks large arrays spill to
 * past --max-memory: a block is zero-filled, page-aligned, writable end to end, owned until
 * freed, and keeps its head when shrunk; nothing appears in the folder while it lives or
 * after; small sizes and a folder that is off are declined; a file-size limit is reported as
 * no room (EFBIG), not a SIGXFSZ, and recorded only when the caller notes it; the counters
 * track live and peak bytes; a block is written ahead (in the page cache before its first
 * touch) only within the allowance spill_set_prefill gives. Runs under AddressSanitizer
 * too: the module does not need the allocator wrappers. */
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
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/spill.h"

static char dir[64];

static int entries(void)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/spill_test.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    spill_set_dir(dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    spill_set_dir(NULL);
    return rmdir(dir);
}

static void blocks(void **state)
{
    (void)state;
    int re;
    uint64_t before = spill_blocks();
    size_t n = (3u << 20) + 123;
    unsigned char *p = spill_alloc(n, 0, &re);
    assert_non_null(p);
    assert_int_equal(re, 0);
    assert_int_equal((uintptr_t)p % 4096, 0);
    for (size_t i = 0; i < n; i += 4096)
        assert_int_equal(p[i], 0);
    memset(p, 0xab, n);
    size_t len = 0;
    assert_true(spill_owns(p, &len));
    assert_true(len >= n);
    assert_false(spill_owns(p + 4096, NULL));
    int local;
    assert_false(spill_owns(&local, NULL));
    assert_int_equal(entries(), 0); /* the file has no name */
    unsigned char *q = spill_alloc(SPILL_MIN_BYTES, 0, &re);
    assert_non_null(q);
    assert_true(spill_in_use() >= len + SPILL_MIN_BYTES);
    uint64_t peak = spill_peak();
    assert_true(peak >= spill_in_use());
    assert_int_equal(spill_blocks(), before + 2);
    assert_int_equal(p[n - 1], 0xab);
    spill_shrink(p, (1u << 20) + 1); /* rounded up to a page */
    assert_true(spill_owns(p, &len));
    assert_int_equal(len, (1u << 20) + 4096);
    assert_int_equal(p[(1u << 20)], 0xab);
    spill_free(p);
    assert_false(spill_owns(p, NULL));
    spill_free(q);
    assert_int_equal(spill_in_use(), 0);
    assert_int_equal(spill_peak(), peak);
    assert_int_equal(entries(), 0);
}

static void declined(void **state)
{
    (void)state;
    int re;
    assert_null(spill_alloc(SPILL_MIN_BYTES - 1, 0, &re));
    assert_int_equal(re, 0);
    spill_set_dir(NULL);
    assert_null(spill_alloc(SPILL_MIN_BYTES, 0, &re));
    assert_int_equal(re, 0);
    spill_set_dir("/nonexistent/spill");
    assert_null(spill_alloc(SPILL_MIN_BYTES, 0, &re));
    assert_int_equal(re, 0); /* a missing folder is not a full one */
    spill_set_dir(dir);
}

static void no_room(void **state)
{
    (void)state;
    struct rlimit old, rl;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    rl = old;
    rl.rlim_cur = 1u << 20;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &rl), 0);
    int re;
    void *p = spill_alloc(2u << 20, 0, &re);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    assert_null(p);
    assert_int_equal(re, EFBIG);
    assert_false(spill_failed(NULL, NULL, NULL)); /* not recorded until the caller says */
    spill_note_failure(2u << 20, ENOMEM);
    assert_false(spill_failed(NULL, NULL, NULL)); /* not a matter of room */
    spill_note_failure(2u << 20, re);
    const char *d;
    uint64_t asked;
    int e;
    assert_true(spill_failed(&d, &asked, &e));
    assert_string_equal(d, dir);
    assert_int_equal(asked, 2u << 20);
    assert_int_equal(e, EFBIG);
    assert_int_equal(entries(), 0);
}

/* A freed block serves the next spill its size holds: same pages, no new file. */
static void reuse(void **state)
{
    (void)state;
    int re;
    size_t n = 8u << 20; /* larger than what the tests before left kept */
    uint64_t before = spill_blocks();
    unsigned char *a = spill_alloc(n, 0, &re);
    unsigned char *b = spill_alloc(n, 0, &re);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(spill_blocks(), before + 2);
    memset(a, 0x5a, n);
    spill_free(a);
    assert_false(spill_owns(a, NULL));
    assert_int_equal(entries(), 0);
    unsigned char *c = spill_alloc(n - 4096, 0, &re); /* malloc: the bytes as they were */
    assert_ptr_equal(c, a);
    assert_int_equal(spill_blocks(), before + 2);
    assert_int_equal(c[0], 0x5a);
    assert_int_equal(c[n - 4097], 0x5a);
    spill_free(c);
    unsigned char *z = spill_alloc(n / 2 + 4096, 1, &re); /* calloc: cleared */
    assert_ptr_equal(z, a);
    for (size_t i = 0; i < n / 2 + 4096; i++)
        if (z[i])
            fail_msg("byte %zu of a reused calloc block is %u", i, z[i]);
    spill_free(z);
    size_t len = 0;
    unsigned char *h = spill_alloc(2u << 20, 0, &re); /* far smaller: the tail goes back */
    assert_ptr_equal(h, a);
    assert_true(spill_owns(h, &len));
    assert_int_equal(len, 2u << 20);
    assert_int_equal(spill_blocks(), before + 2);
    spill_free(h);
    spill_free(b);
    assert_int_equal(spill_in_use(), 0);
    /* a block larger than any kept one is a new file */
    unsigned char *d = spill_alloc(2 * n, 0, &re);
    assert_non_null(d);
    assert_int_equal(spill_blocks(), before + 3);
    spill_free(d);
    assert_int_equal(entries(), 0);
}

/* realloc of a spilled block: the same file made longer, its bytes kept, no new block */
static void grow(void **state)
{
    (void)state;
    int re;
    size_t n = 3u << 20;
    unsigned char *p = spill_alloc(n, 0, &re);
    assert_non_null(p);
    uint64_t before = spill_blocks();
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 7);
    uint64_t used = spill_in_use();
    unsigned char *q = spill_grow(p, 5 * n);
    assert_non_null(q);
    size_t len = 0;
    assert_true(spill_owns(q, &len));
    assert_int_equal(len, 5 * n);
    if (q != p)
        assert_false(spill_owns(p, NULL));
    for (size_t i = 0; i < n; i++)
        if (q[i] != (unsigned char)(i * 7))
            fail_msg("byte %zu changed when its block grew", i);
    memset(q + n, 0xee, 4 * n); /* the new part is writable */
    assert_int_equal(spill_in_use(), used + 4 * n);
    assert_int_equal(spill_blocks(), before); /* no new file */
    assert_null(spill_grow(q, n)); /* not larger */
    int local;
    assert_null(spill_grow(&local, 8 * n)); /* not a spilled block */
    spill_free(q);
    assert_int_equal(entries(), 0);
}

/* Pages of [p, p + n) in the page cache now (mincore: a shared file mapping reports its
 * file's pages). */
static size_t resident(const void *p, size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), np = (n + pg - 1) / pg, r = 0;
    unsigned char *v = malloc(np);
    assert_non_null(v);
    assert_int_equal(mincore((void *)p, n, v), 0);
    for (size_t i = 0; i < np; i++)
        r += v[i] & 1;
    free(v);
    return r;
}

static void prefill(void **state)
{
    (void)state;
    int re;
    size_t n = 4u << 20, pg = (size_t)sysconf(_SC_PAGESIZE);
    spill_set_dir(dir); /* no kept block serves these: each is a new file */
    /* off (the default): the pages come with the first touch, where the folder reserves
     * blocks without writing them (ext4, xfs, tmpfs; not where glibc emulates fallocate by
     * writing) */
    unsigned char *a = spill_alloc(n, 0, &re);
    assert_non_null(a);
    int lazy = resident(a, n) == 0;
    if (!lazy)
        fprintf(stderr, "prefill: %s fills reserved blocks at once; untouched pages not checked\n",
                dir);
    /* within the allowance: written ahead, every page in the cache before any touch, zero */
    spill_set_prefill((uint64_t)1 << 30);
    unsigned char *b = spill_alloc(n, 0, &re);
    assert_non_null(b);
    assert_int_equal(resident(b, n), n / pg);
    for (size_t i = 0; i < n; i++)
        if (b[i])
            fail_msg("byte %zu of a block written ahead is %u", i, b[i]);
    memset(b, 0x5a, n);
    /* a grown block: its new part written ahead too, its old bytes kept */
    unsigned char *c = spill_grow(b, 3 * n);
    assert_non_null(c);
    assert_int_equal(resident(c, 3 * n), 3 * n / pg);
    for (size_t i = 0; i < 3 * n; i++)
        if (c[i] != (i < n ? 0x5a : 0))
            fail_msg("byte %zu of the grown block is %u", i, c[i]);
    /* past the allowance (the spilled bytes counted): left to the faults again */
    spill_set_prefill(spill_in_use() + n / 2);
    unsigned char *d = spill_alloc(n, 0, &re);
    assert_non_null(d);
    if (lazy)
        assert_int_equal(resident(d, n), 0);
    for (size_t i = 0; i < n; i += pg)
        assert_int_equal(d[i], 0);
    spill_set_prefill(0);
    spill_free(a);
    spill_free(c);
    spill_free(d);
    spill_set_dir(dir);
    assert_int_equal(entries(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(blocks),
        cmocka_unit_test(declined),
        cmocka_unit_test(no_room),
        cmocka_unit_test(reuse),
        cmocka_unit_test(grow),
        cmocka_unit_test(prefill),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
