/* SPDX-License-Identifier: Apache-2.0 */
/* spill_test.c: unit tests of src/base/spill.c, the file-backed blocks large arrays spill to
 * past --max-memory: a block is zero-filled, page-aligned, writable end to end, owned until
 * freed, and keeps its head when shrunk; nothing appears in the folder while it lives or
 * after; small sizes and a folder that is off are declined; a file-size limit is reported as
 * no room (EFBIG), not a SIGXFSZ, and recorded only when the caller notes it; the counters
 * track live and peak bytes; a block is written ahead (in the page cache before its first
 * touch) only within the allowance spill_set_prefill gives; a block moved in place keeps its
 * address and bytes and is then file-backed and owned; spill_cool moves marked blocks only
 * past its threshold, only when they make the room, the smallest sufficient one first, and
 * uncounts what it moved. Runs under AddressSanitizer
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
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/mem.h"
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

/* An anonymous mapping of len bytes holding a pattern, its block's pointer 16 bytes in (as
 * glibc places a block it maps alone). */
static unsigned char *anon_block(size_t len, unsigned char **base)
{
    unsigned char *b = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(b != MAP_FAILED);
    for (size_t i = 0; i < len; i++)
        b[i] = (unsigned char)(i * 7 + 1);
    *base = b;
    return b + 16;
}

static int pattern_kept(const unsigned char *base, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (base[i] != (unsigned char)(i * 7 + 1))
            return 0;
    return 1;
}

/* 1 when the mapping holding p is a file's (an inode in /proc/self/maps), 0 when anonymous. */
static int file_backed(const void *p)
{
    FILE *f = fopen("/proc/self/maps", "r");
    assert_non_null(f);
    char line[512];
    int r = -1;
    while (r < 0 && fgets(line, sizeof line, f)) {
        unsigned long lo, hi, ino;
        if (sscanf(line, "%lx-%lx %*s %*s %*s %lu", &lo, &hi, &ino) == 3 &&
            lo <= (uintptr_t)p && (uintptr_t)p < hi)
            r = ino != 0;
    }
    fclose(f);
    assert_true(r >= 0);
    return r;
}

static void moved(void **state)
{
    (void)state;
    size_t len = (1u << 20) + 3 * 4096;
    unsigned char *base, *u = anon_block(len, &base);
    uint64_t mv = spill_moved_blocks(), in = spill_in_use();
    assert_int_equal(file_backed(u), 0);
    assert_false(spill_move(u, base + 1, len - 4096)); /* not page-aligned */
    assert_false(spill_move(base + 4000, base, len));  /* not in the first half page */
    assert_true(spill_move(u, base, len));
    assert_int_equal(file_backed(u), 1);
    assert_true(pattern_kept(base, len)); /* the same bytes at the same address */
    assert_int_equal(entries(), 0);
    size_t l = 0;
    assert_true(spill_owns(u, &l));
    assert_int_equal(l, len - 16);
    assert_false(spill_owns(base, NULL));
    assert_int_equal(spill_in_use(), in + len);
    assert_int_equal(spill_moved_blocks(), mv + 1);
    assert_false(spill_move(u, base, len)); /* listed already */
    u[100] ^= 0xff; /* writable as before */
    assert_int_equal(u[100], (unsigned char)~(unsigned char)(116 * 7 + 1));
    spill_shrink(u, 4096); /* the header's 16 bytes and 4096: two pages */
    assert_true(spill_owns(u, &l));
    assert_int_equal(l, 2 * 4096 - 16);
    assert_int_equal(u[4095], (unsigned char)((4095 + 16) * 7 + 1));
    spill_free(u);
    assert_false(spill_owns(u, NULL));
    assert_int_equal(spill_in_use(), in);
    assert_int_equal(entries(), 0);
}

/* The test's blocks for spill_cool: the three below, by caller's pointer. */
static unsigned char *cool_u[3], *cool_base[3];
static size_t cool_len[3];

static size_t cool_span(void *u, void **base, size_t *len)
{
    for (int i = 0; i < 3; i++)
        if (u == cool_u[i]) {
            *base = cool_base[i];
            *len = cool_len[i];
            return cool_len[i] - 16;
        }
    return 0;
}

static void cool(void **state)
{
    (void)state;
    const size_t mb = 1u << 20;
    size_t sizes[3] = {mb / 2, 2 * mb, 4 * mb};
    for (int i = 0; i < 3; i++) {
        cool_len[i] = sizes[i];
        cool_u[i] = anon_block(sizes[i], &cool_base[i]);
    }
    spill_cold(cool_u[0]); /* no span yet (no wrappers): no mark */
    spill_set_span(cool_span);
    spill_set_dir(NULL);
    spill_cold(cool_u[0]); /* spilling off: no mark */
    spill_set_dir(dir);
    mem_set_limit(64 * mb);
    mem_account(62 * (int64_t)mb); /* 2 MB left */
    assert_int_equal(spill_cool(3 * mb, 0, 0), 0); /* nothing marked */
    for (int i = 0; i < 3; i++)
        spill_cold(cool_u[i]);
    /* below the threshold nothing moves */
    spill_set_cool_after(UINT64_MAX);
    assert_int_equal(spill_cool(3 * mb, 0, 0), 0);
    assert_int_equal(file_backed(cool_u[1]), 0);
    spill_set_cool_after(0);
    /* all three together do not make 100 MB: none moves */
    assert_int_equal(spill_cool(100 * mb, 0, 0), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(file_backed(cool_u[i]), 0);
    /* 1 MB more is wanted: the smallest block that makes it alone (2 MB) moves, uncounted */
    assert_int_equal(spill_cool(3 * mb, 0, 0), 1);
    assert_int_equal(file_backed(cool_u[1]), 1);
    assert_int_equal(file_backed(cool_u[0]), 0);
    assert_int_equal(file_backed(cool_u[2]), 0);
    assert_true(spill_owns(cool_u[1], NULL));
    assert_int_equal(mem_in_use(), 60 * mb + 16);
    assert_true(pattern_kept(cool_base[1], cool_len[1]));
    /* a forgotten mark (the block freed) never moves: 7 MB wanted, the 4 MB block alone is
     * left to make room beside the 4 MB free */
    spill_uncold(cool_u[0]);
    assert_int_equal(spill_cool(7 * mb, 0, 0), 1);
    assert_int_equal(file_backed(cool_u[2]), 1);
    assert_int_equal(file_backed(cool_u[0]), 0);
    assert_int_equal(mem_in_use(), 56 * mb + 32);
    spill_free(cool_u[1]);
    spill_free(cool_u[2]);
    munmap(cool_base[0], cool_len[0]);
    spill_set_span(NULL);
    mem_account(-(int64_t)mem_in_use());
    mem_set_limit(0);
    spill_set_dir(dir); /* drops the kept blocks */
    assert_int_equal(spill_in_use(), 0);
    assert_int_equal(entries(), 0);
}

static void *mark_mine(void *p)
{
    spill_cold_mine(p);
    return NULL;
}

/* A block marked by a thread for its own allocations moves by that thread's only. */
static void cool_mine(void **state)
{
    (void)state;
    const size_t mb = 1u << 20;
    unsigned char *base, *u = anon_block(2 * mb, &base);
    cool_u[0] = u;
    cool_base[0] = base;
    cool_len[0] = 2 * mb;
    cool_u[1] = cool_u[2] = NULL;
    spill_set_span(cool_span);
    spill_set_cool_after(0);
    mem_set_limit(64 * mb);
    mem_account(62 * (int64_t)mb);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, mark_mine, u), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(spill_cool(3 * mb, 0, 0), 0); /* the other thread's */
    assert_int_equal(file_backed(u), 0);
    spill_uncold(u);
    spill_cold_mine(u);
    assert_int_equal(spill_cool(3 * mb, 0, 0), 1);
    assert_int_equal(file_backed(u), 1);
    assert_true(pattern_kept(base, 2 * mb));
    spill_free(u);
    spill_set_span(NULL);
    mem_account(-(int64_t)mem_in_use());
    mem_set_limit(0);
    spill_set_dir(dir);
    assert_int_equal(spill_in_use(), 0);
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
        cmocka_unit_test(moved),
        cmocka_unit_test(cool),
        cmocka_unit_test(cool_mine),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
