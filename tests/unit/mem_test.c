/* SPDX-License-Identifier: Apache-2.0 */
/* mem_test.c: unit tests of src/base/mem.c's mem_populate: after it, writing across the
 * range takes no page fault per page (a control range of the same size takes one per page),
 * the range's bytes and the bytes around it are unchanged, a range that does not start or
 * end on a page boundary is covered whole, and NULL or 0 bytes do nothing. Faults are
 * counted with getrusage (ru_minflt), with room for AddressSanitizer's shadow pages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <errno.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/mem.h"

#define PAGES 512

static long minflt(void)
{
    struct rusage ru;
    assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
    return ru.ru_minflt;
}

/* Faults taken by writing one byte in each page of [p, p + n). */
static long write_faults(uint8_t *p, size_t n, size_t pg)
{
    long f0 = minflt();
    for (size_t i = 0; i < n; i += pg)
        p[i] = (uint8_t)(i / pg + 1);
    return minflt() - f0;
}

static void populated(void **state)
{
    (void)state;
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = PAGES * pg;
    uint8_t *a = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint8_t *b = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(a != MAP_FAILED && b != MAP_FAILED);
    if (madvise(a, pg, 23 /* MADV_POPULATE_WRITE */) != 0 && errno == EINVAL) {
        munmap(a, n);
        munmap(b, n);
        skip(); /* kernel older than 5.14 */
    }
    a[0] = 0x5a;
    a[n - 1] = 0xa5;
    /* from the middle of the first page to the middle of the last one */
    mem_populate(a + pg / 2, n - pg);
    assert_int_equal(a[0], 0x5a);
    assert_int_equal(a[n - 1], 0xa5);
    for (size_t i = 1; i < n - 1; i++)
        if (a[i]) {
            assert_int_equal(i, 0); /* names the first changed byte */
            break;
        }
    long fa = write_faults(a, n, pg), fb = write_faults(b, n, pg);
    assert_true(fb >= PAGES);    /* the control: one fault per page */
    assert_true(fa < PAGES / 4); /* populated: none but the sanitizer's shadow */
    for (size_t i = 0; i < n; i += pg)
        assert_int_equal(a[i], (uint8_t)(i / pg + 1));
    munmap(a, n);
    munmap(b, n);
}

static void nothing(void **state)
{
    (void)state;
    mem_populate(NULL, 1 << 20);
    uint8_t x = 7;
    mem_populate(&x, 0);
    assert_int_equal(x, 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(populated),
        cmocka_unit_test(nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
