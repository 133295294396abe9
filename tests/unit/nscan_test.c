/* SPDX-License-Identifier: Apache-2.0 */
/* nscan_test.c: unit tests of src/format/nscan.c on hand-written native scan reports: groups
 * come out by bytes descending, totals per kind, traces found by id, the graph section's
 * blocks sorted by address with their pointers, signatures that ignore where a module was
 * loaded (two reports of one leak at different bases agree) but not which frames, one
 * error per kind of bad input with the byte offset of the bad line, and the kinds of root
 * version 2 gives held blocks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "format/nscan.h"

static lr_status parse(const char *text, nscan_report *r, lr_error *err)
{
    mfile m;
    memset(err, 0, sizeof *err);
    assert_int_equal(mfile_from_memory(&m, (const uint8_t *)text, strlen(text), 0, "t.lrn", err),
                     LR_OK);
    lr_status st = nscan_parse(&m, "t.lrn", r, err);
    mfile_close(&m);
    return st;
}

/* A report of one process whose executable /nonexistent/app is loaded at base. */
static void report(char *buf, size_t n, unsigned long base, const char *frames)
{
    snprintf(buf, n,
             "leakray-native 1\npid 7\nexe /nonexistent/app\nreason exit\ntime_ms 5\n"
             "capture ok 2 0\nbacktrace fp 16 0\nheap 4 400\n"
             "map 0x%lx 0x%lx r--p 0x0 /nonexistent/app\n"
             "map 0x%lx 0x%lx r-xp 0x1000 /nonexistent/app\n"
             "trace 3 %s\ntrace 9 0x%lx\n"
             "leak direct 3 1 32 0x1000 00ff\n"
             "leak indirect 3 2 300 0x2000 -\n"
             "leak direct 9 1 100 0x3000 41\n"
             "thread unjoined 77 12 9\n"
             "block 0x3000 100 9 1 8:0x1000\nblock 0x1000 32 3 1\n"
             "scan_us 1\npause_us 2\nend\n",
             base, base + 0x1000, base + 0x1000, base + 0x3000, frames, base + 0x1100);
}

static void test_parse(void **state)
{
    char buf[2048], fr[128];
    snprintf(fr, sizeof fr, "0x%lx 0x%lx", 0x5550001010ul, 0x5550001020ul);
    report(buf, sizeof buf, 0x5550000000ul, fr);
    nscan_report r;
    lr_error err;
    assert_int_equal(parse(buf, &r, &err), LR_OK);
    assert_int_equal(r.pid, 7);
    assert_true(r.capture_ok);
    assert_int_equal(r.n_groups, 3);
    assert_int_equal(r.groups[0].bytes, 300); /* bytes descending */
    assert_int_equal(r.groups[0].kind, NSCAN_INDIRECT);
    assert_int_equal(r.groups[0].n_content, 0);
    assert_int_equal(r.groups[1].bytes, 100);
    assert_int_equal(r.groups[2].n_content, 2);
    assert_int_equal(r.groups[2].content[1], 0xff);
    uint64_t n, b;
    nscan_totals(&r, NSCAN_DIRECT, &n, &b);
    assert_int_equal(n, 2);
    assert_int_equal(b, 132);
    const nscan_trace *t = nscan_trace_find(&r, 3);
    assert_non_null(t);
    assert_int_equal(t->n_frames, 2);
    assert_null(nscan_trace_find(&r, 4));
    assert_int_equal(r.n_threads_leaked, 1);
    assert_int_equal(r.threads_leaked[0].tid, 77);
    assert_int_equal(r.n_blocks, 2);
    assert_int_equal(r.blocks[0].addr, 0x1000); /* sorted by address */
    assert_int_equal(r.blocks[1].n_refs, 1);
    assert_int_equal(r.refs[r.blocks[1].first_ref].target, 0x1000);
    nscan_free(&r);
}

static uint64_t signature_at(unsigned long base, unsigned long off1, unsigned long off2)
{
    char buf[2048], fr[128];
    snprintf(fr, sizeof fr, "0x%lx 0x%lx", base + off1, base + off2);
    report(buf, sizeof buf, base, fr);
    nscan_report r;
    lr_error err;
    assert_int_equal(parse(buf, &r, &err), LR_OK);
    nscan_symbolize(&r);
    const nscan_trace *t = nscan_trace_find(&r, 3);
    assert_non_null(t);
    assert_string_equal(t->frames[0].module, "app");
    assert_int_equal(t->frames[0].rel, off1);
    uint64_t sig = t->signature;
    nscan_free(&r);
    return sig;
}

static void test_signature(void **state)
{
    uint64_t a = signature_at(0x5550000000ul, 0x1010, 0x1020);
    uint64_t b = signature_at(0x7f1234560000ul, 0x1010, 0x1020);
    uint64_t c = signature_at(0x5550000000ul, 0x1010, 0x1030);
    assert_true(a == b); /* ASLR moves the module, not the leak */
    assert_true(a != c); /* another call site */
}

static void expect_error(const char *text, lr_status want, uint64_t off)
{
    nscan_report r;
    lr_error err;
    assert_int_equal(parse(text, &r, &err), want);
    assert_int_equal(err.offset, off);
    assert_non_null(strstr(err.msg, "t.lrn: offset"));
}

static void test_errors(void **state)
{
    expect_error("hello\n", LR_ERR_FORMAT, 0);
    expect_error("leakray-native 1\npid 1\n", LR_ERR_TRUNCATED, 23);        /* no end */
    expect_error("leakray-native 1\npid 1", LR_ERR_TRUNCATED, 17);          /* no newline */
    expect_error("leakray-native 1\npid x\nend\n", LR_ERR_FORMAT, 17);
    expect_error("leakray-native 1\nleak direct 1 1 8 0x10 zz\nend\n", LR_ERR_FORMAT, 17);
    expect_error("leakray-native 1\nleak sideways 1 1 8 0x10 -\nend\n", LR_ERR_FORMAT, 17);
    expect_error("leakray-native 1\ntrace 0 0x1\nend\n", LR_ERR_FORMAT, 17);
    expect_error("leakray-native 1\nblock 0x10 8 0 0 9:0x20\nend\n", LR_ERR_FORMAT, 17);
    expect_error("leakray-native 1\nmap 0x20 0x10 r-xp 0x0 /x\nend\n", LR_ERR_FORMAT, 17);
    expect_error("leakray-native 1\nfrobnicate\nend\n", LR_ERR_FORMAT, 17);
    /* Root kinds (STATE 4..9) exist from version 2 on; nothing beyond them. */
    expect_error("leakray-native 1\nblock 0x10 8 0 5\nend\n", LR_ERR_FORMAT, 17);
    expect_error("leakray-native 2\nblock 0x10 8 0 10\nend\n", LR_ERR_FORMAT, 17);
}

/* Version 2 names the root that holds a block; version 1's "held by a root" still reads. */
static void test_root_kinds(void **state)
{
    nscan_report r;
    lr_error err;
    assert_int_equal(parse("leakray-native 2\nblock 0x10 8 0 5\nblock 0x20 8 0 6\n"
                           "block 0x30 8 0 0\nend\n", &r, &err), LR_OK);
    assert_int_equal(r.n_blocks, 3);
    assert_int_equal(r.blocks[0].state, NSCAN_ROOT_STACK);
    assert_int_equal(r.blocks[1].state, NSCAN_ROOT_REGISTERS);
    assert_int_equal(r.blocks[2].state, 0);
    nscan_free(&r);
    assert_int_equal(parse("leakray-native 1\nblock 0x10 8 0 3\nend\n", &r, &err), LR_OK);
    assert_int_equal(r.blocks[0].state, NSCAN_HELD_BY_ROOT);
    nscan_free(&r);
}

/* Version 3 names the program's allocator and what the monitor could not track. */
static void test_allocator(void **state)
{
    (void)state;
    nscan_report r;
    lr_error err;
    assert_int_equal(parse("leakray-native 3\nallocator libtcmalloc_minimal.so.4 tracked tc_malloc"
                           " is not tracked\nend\n", &r, &err), LR_OK);
    assert_string_equal(r.allocator, "libtcmalloc_minimal.so.4");
    assert_int_equal(r.allocator_tracked, 1);
    assert_string_equal(r.allocator_note, "tc_malloc is not tracked");
    nscan_free(&r);
    assert_int_equal(parse("leakray-native 3\nallocator libjemalloc.so.2 bypassed\nend\n", &r,
                           &err), LR_OK);
    assert_int_equal(r.allocator_tracked, 0);
    assert_string_equal(r.allocator_note, "");
    nscan_free(&r);
    assert_int_equal(parse("leakray-native 2\npid 1\nend\n", &r, &err), LR_OK);
    assert_null(r.allocator); /* before version 3: unknown, not glibc */
    nscan_free(&r);
    expect_error("leakray-native 3\nallocator glibc\nend\n", LR_ERR_FORMAT, 17);
    expect_error("leakray-native 3\nallocator glibc maybe\nend\n", LR_ERR_FORMAT, 17);
    expect_error("leakray-native 2\nallocator glibc tracked\nend\n", LR_ERR_FORMAT, 17);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_signature),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_root_kinds),
        cmocka_unit_test(test_allocator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
