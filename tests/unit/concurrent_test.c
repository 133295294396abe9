/* SPDX-License-Identifier: Apache-2.0 */
/* concurrent_test.c: "different heaps may be used from different threads" (leakray.h), held
 * on real dumps. Two heaps of other shapes (a HotSpot and an Android dump) are analysed,
 * clustered, sorted into histograms and rendered (text and JSON) in two threads at once, many
 * times over, and every result must be byte for byte the one the same heap gave alone. The
 * sorts that hand their comparator its context through a file-scope variable (clusters,
 * dupes, histograms, tops), the renderer's indent and the phase table once made such runs
 * crash in qsort or give another heap's order. Only public headers are included here. */
#include <malloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <time.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "leakray/analysis.h"
#include "leakray/leakray.h"
#include "leakray/report.h"
#include "test_fixtures.h"
#include "test_scale.h"

#define ROUNDS TS_ROUNDS(40)

typedef struct job {
    lr_heap *h;
    char *alone;      /* the result computed before any thread started */
    int differ;       /* rounds whose result differed */
    int failed;       /* rounds where a call failed */
} job;

/* Appends s to the growing buffer *b (length *n). */
static void put(char **b, size_t *n, const char *s)
{
    size_t k = strlen(s);
    char *q = realloc(*b, *n + k + 1);
    if (!q)
        abort();
    memcpy(q + *n, s, k + 1);
    *b = q;
    *n += k;
}

/* Everything the heap gives, as one text; NULL when a call failed. */
static char *results(lr_heap *h)
{
    lr_error err = {0};
    char *out = NULL, *buf = NULL, line[600];
    size_t n = 0, len = 0;
    lr_analysis *an = NULL;
    if (lr_analyze(h, NULL, &an, &err) != LR_OK)
        return NULL;
    lr_render_opts ro = {.no_timing = 1};
    for (int f = 0; f < 2; f++) {
        if (lr_render_buffer(an, f ? LR_RENDER_JSON : LR_RENDER_TEXT, &ro, &buf, &len, &err) !=
            LR_OK) {
            lr_analysis_free(an);
            free(out);
            return NULL;
        }
        put(&out, &n, buf);
        lr_free(buf);
    }
    lr_analysis_free(an);
    lr_clusters *c = NULL;
    if (lr_clusters_build(h, NULL, 0, &c, &err) != LR_OK) {
        free(out);
        return NULL;
    }
    for (uint32_t i = 0; i < lr_clusters_count(c); i++) {
        lr_cluster cl;
        if (lr_clusters_get(c, i, &cl, &err) != LR_OK)
            break;
        snprintf(line, sizeof line, "%s|%s|%u|%llu|%llu\n", cl.title, cl.origin, cl.count,
                 (unsigned long long)cl.shallow, (unsigned long long)cl.retained);
        put(&out, &n, line);
    }
    lr_clusters_free(c);
    lr_histogram *hi = NULL;
    if (lr_histogram_build(h, 1, &hi, &err) != LR_OK) {
        free(out);
        return NULL;
    }
    for (uint32_t i = 0; i < lr_histogram_count(hi); i++) {
        const lr_histogram_row *r = lr_histogram_get(hi, i);
        snprintf(line, sizeof line, "%s %llu %llu\n", r->name, (unsigned long long)r->shallow,
                 (unsigned long long)r->retained);
        put(&out, &n, line);
    }
    lr_histogram_free(hi);
    return out;
}

static void *run(void *arg)
{
    job *j = arg;
    for (int i = 0; i < ROUNDS; i++) {
        char *s = results(j->h);
        if (!s)
            j->failed++;
        else if (strcmp(s, j->alone) != 0)
            j->differ++;
        free(s);
    }
    return NULL;
}

static void two_heaps_two_threads(void **state)
{
    (void)state;
    if (!tf_have("hprof", "HPROF"))
        skip();
    const char *names[2] = {"hprof/sun_jdk6_18_x64.hprof", "hprof/dialer.android-hprof"};
    job jobs[2];
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        char p[4400];
        snprintf(p, sizeof p, "%s/%s", fixdir, names[i]);
        lr_error err = {0};
        memset(&jobs[i], 0, sizeof jobs[i]);
        assert_int_equal(lr_open(p, NULL, &jobs[i].h, &err), LR_OK);
        jobs[i].alone = results(jobs[i].h);
        assert_non_null(jobs[i].alone);
    }
    assert_string_not_equal(jobs[0].alone, jobs[1].alone);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, run, &jobs[i]), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(jobs[i].failed, 0);
        assert_int_equal(jobs[i].differ, 0);
        free(jobs[i].alone);
        lr_close(jobs[i].h);
    }
}

/* ---- the host's process-wide state ---- */

static void host_xfsz(int sig)
{
    (void)sig;
}

static const char *gz_path;

static void *open_gz(void *arg)
{
    int *failed = arg;
    for (int i = 0; i < 4; i++) {
        lr_heap *h = NULL;
        lr_error err = {0};
        if (lr_open(gz_path, NULL, &h, &err) != LR_OK)
            (*failed)++;
        lr_close(h);
    }
    return NULL;
}

/* A host's SIGXFSZ handler stays installed while four threads inflate gzip dumps, and after:
 * the inflate set SIGXFSZ to ignored around its writes and restored it, process-wide and
 * unlocked, so two threads restored each other's "ignored" and the handler was lost (16 of
 * 17 runs of 4 threads). A V8 load leaves the host's malloc settings alone: it set glibc's
 * mmap threshold to 1 MiB, and a host's 2 MiB blocks went to mmap. */
static void host_state_kept(void **state)
{
    (void)state;
    if (!tf_have("hprof", "HPROF") || !tf_have("v8", "V8"))
        skip();
    char p[4400];
    snprintf(p, sizeof p, "%s/hprof/openjdk_jdk11_04_x64.hprof.gz", fixdir);
    gz_path = p;
    struct sigaction sa, now;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = host_xfsz;
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGXFSZ, &sa, NULL), 0);
    pthread_t th[4];
    int failed[4] = {0};
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&th[i], NULL, open_gz, &failed[i]), 0);
    int ignored = 0;
    for (int k = 0; k < 200; k++) {
        sigaction(SIGXFSZ, NULL, &now);
        ignored += now.sa_handler == SIG_IGN;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    for (int i = 0; i < 4; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_int_equal(failed[i], 0);
    }
    sigaction(SIGXFSZ, NULL, &now);
    assert_true(now.sa_handler == host_xfsz);
    assert_int_equal(ignored, 0);
    signal(SIGXFSZ, SIG_DFL);
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    snprintf(p, sizeof p, "%s/v8/heap-1.heapsnapshot", fixdir);
    lr_heap *h = NULL;
    lr_error err = {0};
    assert_int_equal(lr_open(p, NULL, &h, &err), LR_OK);
    lr_close(h);
    /* mapped chunks, before and after a 2 MiB block (a sanitizer's malloc counts none) */
    struct mallinfo2 before = mallinfo2();
    char *b = malloc(2 << 20);
    assert_non_null(b);
    struct mallinfo2 after = mallinfo2();
    free(b);
    assert_int_equal(after.hblks, before.hblks);
#endif
}

int main(void)
{
    tf_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_heaps_two_threads),
        cmocka_unit_test(host_state_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
