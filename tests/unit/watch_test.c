/* SPDX-License-Identifier: Apache-2.0 */
/* watch_test.c: unit tests of the watcher core (src/watch/watch.c) and of the agent's option
 * and rules parser (src/watch/watch_opts.c). A fake clock and executor drive LeakCanary's
 * schedule without sleeping: retained exactly at the delay, GC -> 100 ms -> finalization ->
 * GC before counting, 2 s re-checks below the threshold, 60 s between dumps, 5 s retry after
 * a failed or 0-byte dump, release of what a dump held (not of what was not due yet), the
 * one-pending-check rule, and the table cap that drops the oldest object with a count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "watch/watch.h"
#include "watch/watch_opts.h"

/* ---- a fake runtime: objects are slots 1..MAXO, alive until the test collects them ---- */

#define MAXO 64

typedef struct fake {
    uint64_t now;              /* the clock */
    uint64_t sched;            /* the executor's next run: min of wake() and watch_run */
    int alive[MAXO + 1];       /* referent present */
    int alive_until_gc[MAXO + 1]; /* referent goes at the next GC (garbage not yet collected) */
    int finalizable[MAXO + 1]; /* referent goes at the GC after a finalization */
    int finalized;             /* a finalization ran since the last GC */
    uint64_t retained_at[MAXO + 1];
    int released[MAXO + 1];
    int n_gc, n_finalize, n_dump;
    uint64_t gc_times[16];
    uint64_t fin_times[16];
    uint64_t dump_times[16];
    unsigned dump_counts[16];
    uint64_t dump_bytes;       /* what dump() returns */
    uint64_t dump_takes;       /* clock advance during a dump */
    uint64_t gc_takes;         /* clock advance during a GC (a real heap's full collection) */
    int object_of[MAXO + 1];   /* the object a handle names: itself when 0 (watched twice) */
} fake;

static uint64_t f_now(void *c) { return ((fake *)c)->now; }
static void f_wake(void *c, uint64_t at)
{
    fake *f = c;
    if (!f->sched || at < f->sched)
        f->sched = at;
}
static int f_alive(void *c, void *o, uint32_t tag) { return ((fake *)c)->alive[(uintptr_t)o]; }
/* Keeps the handle, as the agent does for an explicitly watched reference; object 63 is
 * "gone meanwhile" (a weak handle found cleared when the reference is to be built). */
static void *f_retained(void *c, void *o, uint32_t *tag, uint64_t watched, uint64_t at)
{
    fake *f = c;
    assert_true(watched + WATCH_DELAY_MS <= at);
    assert_int_equal(*tag, (uint32_t)(uintptr_t)o * 10);
    if ((uintptr_t)o == 63) {
        f->released[63]++;
        return NULL;
    }
    f->retained_at[(uintptr_t)o] = at;
    return o;
}
static void f_release(void *c, void *o, uint32_t tag) { ((fake *)c)->released[(uintptr_t)o]++; }

static void f_gc(void *c)
{
    fake *f = c;
    if (f->n_gc < 16)
        f->gc_times[f->n_gc] = f->now;
    f->n_gc++;
    f->now += f->gc_takes;
    for (int i = 1; i <= MAXO; i++) {
        if (f->alive_until_gc[i])
            f->alive[i] = f->alive_until_gc[i] = 0;
        if (f->finalizable[i] && f->finalized)
            f->alive[i] = f->finalizable[i] = 0;
    }
    f->finalized = 0;
}

static void f_finalize(void *c)
{
    fake *f = c;
    if (f->n_finalize < 16)
        f->fin_times[f->n_finalize] = f->now;
    f->n_finalize++;
    f->finalized = 1;
}

static uint64_t f_dump(void *c, unsigned n, uint64_t started)
{
    fake *f = c;
    if (f->n_dump < 16) {
        f->dump_times[f->n_dump] = started;
        f->dump_counts[f->n_dump] = n;
    }
    f->n_dump++;
    f->now += f->dump_takes;
    return f->dump_bytes;
}

static uint64_t f_identity(void *c, void *o, uint32_t tag)
{
    fake *f = c;
    uintptr_t h = (uintptr_t)o;
    return f->alive[h] ? (uint64_t)(f->object_of[h] ? f->object_of[h] : (int)h) % 7 + 1 : 0;
}
static int f_same(void *c, void *a, uint32_t ta, void *b, uint32_t tb)
{
    fake *f = c;
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return (f->object_of[x] ? (uintptr_t)f->object_of[x] : x) ==
           (f->object_of[y] ? (uintptr_t)f->object_of[y] : y);
}

static watch *make(fake *f, unsigned threshold, uint32_t cap)
{
    memset(f, 0, sizeof *f);
    f->dump_bytes = 1000;
    watch_env env = {f, f_now, f_wake, f_alive, f_retained, f_release, f_gc, f_finalize, f_dump,
                     f_identity, f_same};
    watch_config cfg;
    watch_config_default(&cfg);
    cfg.threshold = threshold;
    cfg.max_watched = cap;
    watch *w = watch_new(&cfg, &env);
    assert_non_null(w);
    return w;
}

static void add(watch *w, fake *f, int id)
{
    f->alive[id] = 1;
    assert_int_equal(watch_add(w, (void *)(uintptr_t)id, f->now, (uint32_t)id * 10), 0);
}

/* One run of the core at the current clock, remembering when it wants the next. */
static void tick(watch *w, fake *f)
{
    f->sched = 0;
    uint64_t n = watch_run(w);
    if (n)
        f_wake(f, n);
}

/* The executor: runs the core at each time it asks for until `until`, like the agent's
 * thread does; the clock jumps straight to each wake-up. */
static void run_until(watch *w, fake *f, uint64_t until)
{
    for (int guard = 0; guard < 10000; guard++) {
        if (f->sched == 0 || f->sched > until) {
            f->now = until;
            return;
        }
        if (f->sched > f->now)
            f->now = f->sched;
        tick(w, f);
    }
    fail_msg("executor loop did not settle");
}

static watch_stats stats(watch *w)
{
    watch_stats st;
    watch_stats_get(w, &st);
    return st;
}

/* ---- the schedule ---- */

static void retained_exactly_at_delay(void **state)
{
    fake f;
    watch *w = make(&f, 5, 1000);
    f.now = 1000;
    add(w, &f, 1);
    assert_int_equal(f.sched, 1000 + WATCH_DELAY_MS);
    run_until(w, &f, 5999);
    assert_int_equal(f.retained_at[1], 0);
    assert_int_equal(f.n_gc, 0);
    run_until(w, &f, 6000);
    assert_int_equal(f.retained_at[1], 6000);
    /* retained -> a check now: GC at once, finalization + GC 100 ms later, then recount */
    assert_int_equal(f.n_gc, 1);
    assert_int_equal(f.gc_times[0], 6000);
    assert_int_equal(stats(w).state, WATCH_GC);
    /* past its delay, no GC met yet: retained, not yet counted after a GC */
    assert_int_equal(stats(w).retained, 1);
    assert_int_equal(stats(w).retained_after_gc, 0);
    run_until(w, &f, 6099);
    assert_int_equal(f.n_finalize, 0);
    run_until(w, &f, 6100);
    assert_int_equal(f.n_finalize, 1);
    assert_int_equal(f.fin_times[0], 6100);
    assert_int_equal(f.n_gc, 2);
    assert_int_equal(f.gc_times[1], 6100);
    watch_stats st = stats(w);
    assert_int_equal(st.state, WATCH_WAIT_THRESHOLD);
    assert_int_equal(st.retained, 1);
    assert_int_equal(st.retained_after_gc, 1);
    assert_int_equal(st.next_check_ms, 6100 + WATCH_RECHECK_MS);
    assert_int_equal(f.n_dump, 0);
    watch_free(w);
    assert_int_equal(f.released[1], 1);
}

static void collected_before_due_is_never_retained(void **state)
{
    fake f;
    watch *w = make(&f, 1, 1000);
    add(w, &f, 1);
    add(w, &f, 63); /* alive when probed, gone when its reference is built */
    f.alive[1] = 0;
    run_until(w, &f, 10000);
    assert_int_equal(f.retained_at[1], 0);
    assert_int_equal(f.retained_at[63], 0);
    assert_int_equal(f.n_gc, 0);
    assert_int_equal(f.released[1], 1);
    assert_int_equal(f.released[63], 1);
    watch_stats st = stats(w);
    assert_int_equal(st.collected, 2);
    assert_int_equal(st.watched, 0);
    assert_int_equal(st.state, WATCH_IDLE);
    watch_free(w);
}

/* A sweep releases what was collected before its delay (counted collected), asks each
 * object once, leaves younger objects alone, and frees table room: no drop at the cap. */
static void sweep_releases_collected_early(void **state)
{
    fake f;
    watch *w = make(&f, 1, 8);
    for (int id = 1; id <= 6; id++)
        add(w, &f, id);
    f.alive[2] = f.alive[4] = 0;
    f.now = 50;
    assert_int_equal(watch_sweep(w, 50), 2);
    assert_int_equal(f.released[2], 1);
    assert_int_equal(f.released[4], 1);
    watch_stats st = stats(w);
    assert_int_equal(st.collected, 2);
    assert_int_equal(st.watched, 4);
    f.alive[1] = 0; /* swept once already: found at its delay, not by this sweep */
    f.now = 60;
    add(w, &f, 7);
    f.alive[7] = 0; /* watched at 60: too young for a sweep before 60 */
    assert_int_equal(watch_sweep(w, 60), 0);
    assert_int_equal(f.released[1] + f.released[7], 0);
    for (int id = 8; id <= 10; id++) /* 8 entries again: fits after the compaction */
        add(w, &f, id);
    assert_int_equal(stats(w).dropped, 0);
    run_until(w, &f, 5100);
    assert_int_equal(f.retained_at[3], 5000);
    assert_int_equal(f.retained_at[1], 0);
    assert_int_equal(f.retained_at[7], 0);
    assert_int_equal(f.retained_at[8], 5060);
    st = stats(w);
    assert_int_equal(st.collected, 4);
    assert_int_equal(st.dropped, 0);
    watch_free(w);
}

static void gc_before_counting_collects_garbage(void **state)
{
    fake f;
    watch *w = make(&f, 1, 1000);
    add(w, &f, 1);
    f.alive_until_gc[1] = 1; /* unreachable, but no GC ran yet */
    add(w, &f, 2);
    f.finalizable[2] = 1;    /* needs finalization before it goes */
    run_until(w, &f, WATCH_DELAY_MS);
    /* both past their delay, none met by a GC yet: retained, not after a GC */
    assert_int_equal(stats(w).retained, 2);
    assert_int_equal(stats(w).retained_after_gc, 0);
    run_until(w, &f, 20000);
    assert_int_equal(f.retained_at[1], WATCH_DELAY_MS);
    assert_int_equal(f.retained_at[2], WATCH_DELAY_MS);
    assert_int_equal(f.n_dump, 0);
    watch_stats st = stats(w);
    assert_int_equal(st.retained, 0);
    assert_int_equal(st.retained_after_gc, 0);
    assert_int_equal(st.collected, 2);
    assert_int_equal(st.state, WATCH_IDLE);
    watch_free(w);
}

/* Below the threshold a check comes 2 s after the last, then, while it finds the same count,
 * twice as late each time (4 s, 8 s, ... up to WATCH_RECHECK_MAX_MS): each costs two full
 * GCs. An object newly retained brings a check at once, a pending late one or not. */
static void threshold_rechecks_back_off(void **state)
{
    fake f;
    watch *w = make(&f, 5, 1000);
    for (int i = 1; i <= 4; i++)
        add(w, &f, i);
    run_until(w, &f, 5100);
    assert_int_equal(stats(w).state, WATCH_WAIT_THRESHOLD);
    assert_int_equal(f.n_gc, 2);
    assert_int_equal(stats(w).next_check_ms, 5100 + WATCH_RECHECK_MS);
    run_until(w, &f, 7099);
    assert_int_equal(f.n_gc, 2);
    run_until(w, &f, 7100); /* the 2 s re-check: GC again, still 4 */
    assert_int_equal(f.n_gc, 3);
    assert_int_equal(f.gc_times[2], 7100);
    run_until(w, &f, 7200);
    assert_int_equal(stats(w).next_check_ms, 7200 + 2 * WATCH_RECHECK_MS); /* backed off */
    run_until(w, &f, 11300);
    assert_int_equal(f.n_gc, 6);
    assert_int_equal(stats(w).next_check_ms, 11300 + 4 * WATCH_RECHECK_MS);
    /* a fifth object watched at 11400 is retained at 16400, before the check backed off to
     * 19300: a check at once, and it dumps */
    f.now = 11400;
    add(w, &f, 5);
    tick(w, &f); /* the agent's thread runs the core every 100 ms: it learns of the object */
    run_until(w, &f, 16399);
    assert_int_equal(f.n_dump, 0);
    run_until(w, &f, 16400);
    assert_int_equal(f.retained_at[5], 16400);
    run_until(w, &f, 16600);
    assert_int_equal(f.n_dump, 1);
    assert_int_equal(f.dump_counts[0], 5);
    assert_int_equal(f.dump_times[0], 16500);
    watch_free(w);
}

/* The back-off stops at WATCH_RECHECK_MAX_MS. */
static void threshold_back_off_is_capped(void **state)
{
    fake f;
    watch *w = make(&f, 5, 1000);
    add(w, &f, 1);
    run_until(w, &f, 1000000);
    watch_stats st = stats(w);
    assert_int_equal(st.state, WATCH_WAIT_THRESHOLD);
    assert_true(st.next_check_ms - 1000000 <= WATCH_RECHECK_MAX_MS);
    uint64_t gcs = f.n_gc;
    run_until(w, &f, 1000000 + 3 * WATCH_RECHECK_MAX_MS);
    assert_true(f.n_gc - gcs >= 4 && f.n_gc - gcs <= 8); /* two GCs a minute */
    watch_free(w);
}

/* After a dump, what it holds as retained is released; an object watched less than the
 * delay before it stays watched and is retained when its delay ends (LeakCanary releases it
 * too, and no report ever names it). */
static void dumps_at_threshold_and_releases_what_it_held(void **state)
{
    fake f;
    watch *w = make(&f, 3, 1000);
    f.dump_takes = 700;
    for (int i = 1; i <= 3; i++)
        add(w, &f, i);
    f.now = 3000;
    add(w, &f, 4); /* watched before the dump, not yet retained when it happens */
    run_until(w, &f, 5200);
    assert_int_equal(f.n_dump, 1);
    assert_int_equal(f.dump_times[0], 5100);
    assert_int_equal(f.dump_counts[0], 3);
    watch_stats st = stats(w);
    assert_int_equal(st.dumps, 1);
    assert_int_equal(st.last_dump_ms, 5800);
    assert_int_equal(st.watched, 1);
    assert_int_equal(st.retained_after_gc, 0); /* the dump took what the check counted */
    for (int i = 1; i <= 3; i++)
        assert_int_equal(f.released[i], 1);
    assert_int_equal(f.released[4], 0);
    assert_int_equal(f.retained_at[4], 0);
    run_until(w, &f, 8200);
    assert_int_equal(f.retained_at[4], 8000);
    assert_int_equal(stats(w).retained, 1);
    assert_int_equal(stats(w).retained_after_gc, 1);
    assert_int_equal(f.n_dump, 1);
    watch_free(w);
}

/* An object whose delay ends during the GCs before a dump is not in it (not found retained
 * yet): it stays watched and goes into the next dump, never released unreported. */
static void due_during_the_gcs_goes_into_the_next_dump(void **state)
{
    fake f;
    watch *w = make(&f, 1, 1000);
    f.gc_takes = 300;
    add(w, &f, 1);
    f.now = 450;
    add(w, &f, 2); /* due at 5450, during the check's second GC (5400-5700) */
    run_until(w, &f, 6000);
    assert_int_equal(f.n_dump, 1);
    assert_int_equal(f.dump_counts[0], 1);
    assert_int_equal(f.released[1], 1);
    assert_int_equal(f.released[2], 0);
    run_until(w, &f, 70000);
    assert_int_not_equal(f.retained_at[2], 0);
    assert_int_equal(f.n_dump, 2);
    assert_int_equal(f.dump_counts[1], 1);
    watch_free(w);
}

/* An object watched twice (close() called twice, 100 ms apart): the dump that holds it
 * through the first watch releases the second too, or the next dump reported it again; an
 * object whose identity hash collides with it (8 and 1: hashes mod 7) but is another stays. */
static void watched_twice_goes_with_the_dump(void **state)
{
    fake f;
    watch *w = make(&f, 1, 1000);
    f.gc_takes = 300;
    add(w, &f, 1);
    f.now = 450;
    add(w, &f, 2);
    f.object_of[2] = 1; /* the same object as handle 1 */
    add(w, &f, 8);      /* another object, its hash equal to 1's */
    run_until(w, &f, 6000);
    assert_int_equal(f.n_dump, 1);
    assert_int_equal(f.dump_counts[0], 1);
    assert_int_equal(f.released[1], 1);
    assert_int_equal(f.released[2], 1);
    assert_int_equal(f.released[8], 0);
    run_until(w, &f, 70000);
    assert_int_equal(f.retained_at[2], 0);
    assert_int_not_equal(f.retained_at[8], 0);
    assert_int_equal(f.n_dump, 2);
    assert_int_equal(f.dump_counts[1], 1);
    watch_free(w);
}

static void dumps_sixty_seconds_apart(void **state)
{
    fake f;
    watch *w = make(&f, 1, 1000);
    add(w, &f, 1);
    run_until(w, &f, 5100);
    assert_int_equal(f.n_dump, 1);
    uint64_t last = stats(w).last_dump_ms;
    f.now = 6000;
    add(w, &f, 2);
    run_until(w, &f, 11100);
    assert_int_equal(stats(w).state, WATCH_WAIT_INTERVAL);
    assert_int_equal(stats(w).next_check_ms, last + WATCH_DUMP_INTERVAL_MS);
    run_until(w, &f, last + WATCH_DUMP_INTERVAL_MS + WATCH_GC_WAIT_MS - 1);
    assert_int_equal(f.n_dump, 1);
    run_until(w, &f, last + WATCH_DUMP_INTERVAL_MS + WATCH_GC_WAIT_MS);
    assert_int_equal(f.n_dump, 2);
    assert_int_equal(f.dump_times[1], last + WATCH_DUMP_INTERVAL_MS + WATCH_GC_WAIT_MS);
    watch_free(w);
}

static void failed_and_empty_dumps_retry_after_five_seconds(void **state)
{
    fake f;
    watch *w = make(&f, 1, 1000);
    f.dump_bytes = 0; /* failure, or a 0-byte file */
    add(w, &f, 1);
    run_until(w, &f, 5100);
    assert_int_equal(f.n_dump, 1);
    watch_stats st = stats(w);
    assert_int_equal(st.state, WATCH_DUMP_FAILED);
    assert_int_equal(st.failed_dumps, 1);
    assert_int_equal(st.next_check_ms, 5100 + WATCH_DUMP_RETRY_MS);
    assert_int_equal(f.released[1], 0); /* nothing cleared after a failure */
    f.dump_bytes = 4096;
    run_until(w, &f, 10199);
    assert_int_equal(f.n_dump, 1);
    run_until(w, &f, 10200); /* retry check at 10100 + 100 ms GC wait */
    assert_int_equal(f.n_dump, 2);
    assert_int_equal(stats(w).dumps, 1);
    assert_int_equal(stats(w).last_dump_bytes, 4096);
    assert_int_equal(f.released[1], 1);
    watch_free(w);
}

/* A dump that keeps failing (a full disk) costs GCs and a heap's worth of writes each time:
 * retried 5 s, then 10 s, 20 s, ... later, never more than WATCH_DUMP_RETRY_MAX_MS apart;
 * one that succeeds brings the 5 s back. */
static void failing_dumps_back_off(void **state)
{
    fake f;
    watch *w = make(&f, 1, 1000);
    f.dump_bytes = 0;
    add(w, &f, 1);
    run_until(w, &f, 5100);
    uint64_t at = 5100, wait = WATCH_DUMP_RETRY_MS;
    for (int i = 1; i <= 10; i++) {
        assert_int_equal(f.n_dump, i);
        watch_stats st = stats(w);
        assert_int_equal(st.state, WATCH_DUMP_FAILED);
        assert_int_equal(st.next_check_ms, at + wait);
        /* what the dump that failed could tell its user, reading its streak before */
        assert_int_equal(st.fail_streak, i);
        assert_int_equal(watch_retry_ms(st.fail_streak - 1), wait);
        /* the next attempt: its check, then the GC wait */
        at += wait + WATCH_GC_WAIT_MS;
        run_until(w, &f, at - 1);
        assert_int_equal(f.n_dump, i);
        run_until(w, &f, at);
        wait = wait * 2 < WATCH_DUMP_RETRY_MAX_MS ? wait * 2 : WATCH_DUMP_RETRY_MAX_MS;
    }
    assert_int_equal(wait, WATCH_DUMP_RETRY_MAX_MS); /* the cap was reached */
    f.dump_bytes = 4096; /* the disk has room again */
    f.now = at;
    add(w, &f, 2);
    run_until(w, &f, at + WATCH_DUMP_RETRY_MAX_MS + WATCH_GC_WAIT_MS);
    assert_int_equal(stats(w).dumps, 1);
    assert_int_equal(stats(w).fail_streak, 0);
    assert_int_equal(watch_retry_ms(0), WATCH_DUMP_RETRY_MS);
    watch_free(w);
}

static void cap_drops_oldest_with_a_count(void **state)
{
    fake f;
    watch *w = make(&f, 5, 3);
    add(w, &f, 1);
    add(w, &f, 2);
    add(w, &f, 3);
    f.alive[1] = 0;
    add(w, &f, 4); /* 1 is gone: freed, counted as collected */
    add(w, &f, 5); /* 2 is alive: dropped */
    watch_stats st = stats(w);
    assert_int_equal(st.watched, 3);
    assert_int_equal(st.dropped, 1);
    assert_int_equal(st.collected, 1);
    assert_int_equal(st.total_watched, 5);
    assert_int_equal(f.released[1], 1);
    assert_int_equal(f.released[2], 1);
    assert_int_equal(f.released[3], 0);
    assert_true(st.table_bytes <= 3 * WATCH_ENTRY_BYTES);
    watch_free(w);
    assert_int_equal(f.released[5], 1);
}

/* A full table whose oldest entries are leaks found already, waiting for a dump (dumps a
 * minute apart): they stay, and the objects watched meanwhile go unwatched instead (dropping
 * the oldest lost leaks between two dumps). */
static void cap_keeps_retained_oldest(void **state)
{
    fake f;
    watch *w = make(&f, 100, 4); /* threshold 100: no dump */
    add(w, &f, 1);
    add(w, &f, 2);
    run_until(w, &f, 10000); /* 1 and 2 retained */
    assert_int_equal(stats(w).retained, 2);
    add(w, &f, 3);
    add(w, &f, 4);
    f.alive[5] = 1;
    assert_int_equal(watch_add(w, (void *)(uintptr_t)5, f.now, 50), -1); /* not taken */
    watch_stats st = stats(w);
    assert_int_equal(st.retained, 2);
    assert_int_equal(st.watched, 4);
    assert_int_equal(st.dropped, 1);
    assert_int_equal(f.released[1], 0);
    assert_int_equal(f.released[2], 0);
    watch_free(w);
}

/* Entries found retained before any GC (a dump waiting for its interval) are mostly garbage
 * by the time the table is full: a full table asks them again, and frees the collected ones
 * rather than refusing new objects. */
static void cap_sweeps_retained_garbage(void **state)
{
    fake f;
    watch *w = make(&f, 100, 4);
    add(w, &f, 1);
    add(w, &f, 2);
    run_until(w, &f, 10000);
    assert_int_equal(stats(w).retained, 2);
    add(w, &f, 3);
    add(w, &f, 4);
    f.alive[1] = 0; /* the GC collected it since it was found retained */
    add(w, &f, 5);
    watch_stats st = stats(w);
    assert_int_equal(st.retained, 1);
    assert_int_equal(st.watched, 4);
    assert_int_equal(st.dropped, 0);
    assert_int_equal(f.released[1], 1);
    assert_int_equal(f.released[2], 0);
    watch_free(w);
}

/* A program that watches faster than the cap over the delay: the table fills with objects
 * the GC has collected since they were swept. Room is made from those, not by dropping the
 * oldest entry, which may be a real leak. */
static void cap_full_of_garbage_keeps_leaks(void **state)
{
    fake f;
    watch *w = make(&f, 100, 8);
    for (int id = 1; id <= 60; id++) {
        add(w, &f, id);
        if (id % 10)
            f.alive[id] = 0; /* garbage, collected soon after its watch */
    }
    watch_stats st = stats(w);
    assert_int_equal(st.dropped, 0);
    assert_true(st.watched >= 6 && st.watched <= 8);
    run_until(w, &f, 10000);
    st = stats(w);
    assert_int_equal(st.retained, 6);
    assert_int_equal(st.dropped, 0);
    for (int id = 10; id <= 60; id += 10)
        assert_int_equal(f.released[id], 0);
    watch_free(w);
}

static void disabled_refuses(void **state)
{
    fake f;
    watch *w = make(&f, 1, 10);
    add(w, &f, 1);
    watch_disable(w);
    assert_int_equal(watch_add(w, (void *)2, 0, 20), -1);
    run_until(w, &f, 20000);
    assert_int_equal(f.n_dump, 0);
    assert_int_equal(stats(w).state, WATCH_DISABLED);
    watch_free(w);
}

/* A batch is the same as its objects added one by one at its clock value: in order, with
 * their tags, one wake-up when it is the only thing waiting, the oldest dropped at the cap
 * (this batch's own first ones included), and nothing taken once disabled. */
static void batch_adds_in_order(void **state)
{
    fake f;
    watch *w = make(&f, 100, 6);
    void *objs[8];
    uint32_t tags[8];
    for (int i = 0; i < 8; i++) {
        objs[i] = (void *)(uintptr_t)(i + 1);
        tags[i] = (uint32_t)(i + 1) * 10;
        f.alive[i + 1] = 1;
    }
    f.now = 300;
    assert_int_equal(watch_add_n(w, (void *const *)objs, tags, 4, f.now), 4);
    assert_int_equal(f.sched, 300 + WATCH_DELAY_MS);
    f.sched = 0;
    f.now = 400; /* waiting entries already have a wake-up: none asked again */
    assert_int_equal(watch_add_n(w, (void *const *)objs + 4, tags + 4, 4, f.now), 4);
    assert_int_equal(f.sched, 0);
    watch_stats st = stats(w);
    assert_int_equal(st.watched, 6);
    assert_int_equal(st.dropped, 2); /* 1 and 2, the oldest, at the 6-entry cap */
    assert_int_equal(f.released[1] + f.released[2], 2);
    f.sched = 300 + WATCH_DELAY_MS;
    run_until(w, &f, 400 + WATCH_DELAY_MS);
    assert_int_equal(f.retained_at[3], 300 + WATCH_DELAY_MS);
    assert_int_equal(f.retained_at[5], 400 + WATCH_DELAY_MS);
    watch_disable(w);
    assert_int_equal(watch_add_n(w, (void *const *)objs, tags, 2, f.now), 0);
    watch_free(w);
}

static void ring_wraps_many_objects(void **state)
{
    fake f;
    watch *w = make(&f, 100, 40);
    /* 60 short-lived objects at 100 ms spacing through a 40-entry table: all collected */
    for (int i = 1; i <= 60; i++) {
        f.now = (uint64_t)i * 100;
        add(w, &f, i);
        if (i > 2)
            f.alive[i - 2] = 0;
        tick(w, &f);
    }
    f.alive[59] = f.alive[60] = 0;
    run_until(w, &f, 20000);
    watch_stats st = stats(w);
    assert_int_equal(st.watched, 0);
    assert_int_equal(st.dropped, 0);
    assert_int_equal(st.collected, 60);
    for (int i = 1; i <= 60; i++)
        assert_int_equal(f.released[i], 1);
    watch_free(w);
}

/* The table grows while its ring is wrapped (the front was popped): every entry survives
 * the move once, in order. */
static void ring_grows_wrapped(void **state)
{
    fake f;
    watch *w = make(&f, 100, 200);
    for (int i = 1; i <= 10; i++)
        add(w, &f, i);
    for (int i = 1; i <= 10; i++)
        f.alive[i] = 0;
    f.now = WATCH_DELAY_MS;
    tick(w, &f); /* 1..10 collected: tombstones at the front of the 64-entry ring */
    for (int i = 11; i <= 64; i++)
        add(w, &f, i); /* pops them: the ring starts at 10 */
    for (int i = 1; i <= 10; i++)
        add(w, &f, i); /* wraps to 0..9: the ring is full */
    assert_int_equal(stats(w).table_bytes, 64 * WATCH_ENTRY_BYTES);
    add(w, &f, 1);     /* grows with 10 entries wrapped */
    assert_int_equal(stats(w).table_bytes, 128 * WATCH_ENTRY_BYTES);
    for (int i = 1; i <= MAXO; i++)
        f.alive[i] = 0;
    run_until(w, &f, 4 * WATCH_DELAY_MS);
    watch_stats st = stats(w);
    assert_int_equal(st.watched, 0);
    assert_int_equal(st.collected, 75);
    assert_int_equal(st.total_watched, 75);
    assert_int_equal(f.released[1], 3);
    for (int i = 2; i <= 10; i++)
        assert_int_equal(f.released[i], 2);
    for (int i = 11; i <= 64; i++)
        assert_int_equal(f.released[i], 1);
    watch_free(w);
}

/* ---- options and rules ---- */

static void options_parse(void **state)
{
    watch_opts o;
    char err[256];
    assert_int_equal(watch_opts_parse(NULL, &o, err, sizeof err), 0);
    /* a store of a scheme no store speaks is refused at start; a file, file: and postgres
     * URLs of either spelling are taken */
    assert_int_not_equal(watch_opts_parse("store=pg:leaks", &o, err, sizeof err), 0);
    assert_int_not_equal(watch_opts_parse("store=postgress://h/db", &o, err, sizeof err), 0);
    assert_int_equal(watch_opts_parse("store=/var/lib/leaks.db", &o, err, sizeof err), 0);
    assert_int_equal(watch_opts_parse("store=file:leaks.db", &o, err, sizeof err), 0);
    assert_int_equal(watch_opts_parse("store=postgres://u@h/db", &o, err, sizeof err), 0);
    assert_int_equal(watch_opts_parse("store=postgresql://u@h/db", &o, err, sizeof err), 0);
    assert_int_equal(watch_opts_parse(NULL, &o, err, sizeof err), 0);
    assert_int_equal(o.threshold, 5);
    assert_int_equal(o.delay_ms, 5000);
    assert_int_equal(o.max_dumps, 7);
    assert_int_equal(watch_opts_parse("dump-dir=/tmp/x,threshold=3,delay-ms=250,"
                                      "watch=java.io.Closeable#close,watch=a.B$C#dispose,"
                                      "report=json,max-dumps=2,quiet",
                                      &o, err, sizeof err),
                     0);
    assert_string_equal(o.dump_dir, "/tmp/x");
    assert_int_equal(o.threshold, 3);
    assert_int_equal(o.delay_ms, 250);
    assert_int_equal(o.n_watch, 2);
    assert_string_equal(o.watch[0].cls, "java.io.Closeable");
    assert_string_equal(o.watch[0].method, "close");
    assert_string_equal(o.watch[1].cls, "a.B$C");
    assert_int_equal(o.report, WATCH_REPORT_JSON);
    assert_int_equal(o.max_dumps, 2);
    assert_int_equal(o.quiet, 1);
    assert_int_equal(watch_opts_parse("report=DB", &o, err, sizeof err), 0);
    assert_int_equal(o.report, WATCH_REPORT_DB);

    static const char *const bad[][2] = {
        {"bogus=1", "unknown agent option 'bogus=1'"},
        {"threshold=0", "malformed agent option 'threshold=0'"},
        {"threshold=5x", "malformed agent option 'threshold=5x'"},
        {"delay-ms=", "malformed agent option 'delay-ms='"},
        {"threshold", "agent option needs a value 'threshold'"},
        {"quiet=1", "agent option takes no value 'quiet=1'"},
        {"watch=java.io.Closeable", "agent option expects CLASS#METHOD 'watch=java.io.Closeable'"},
        {"watch=#close", "agent option expects CLASS#METHOD 'watch=#close'"},
        {"watch=a.B#<init>", "agent option expects CLASS#METHOD 'watch=a.B#<init>'"},
        {"report=html", "malformed agent option 'report=html'"},
        {"quiet,,threshold=2", "empty agent option ''"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(watch_opts_parse(bad[i][0], &o, err, sizeof err), -1);
        assert_string_equal(err, bad[i][1]);
    }
}

static void rules_file(void **state)
{
    const char *src = getenv("LEAKRAY_SRC");
    watch_opts o;
    char err[512], path[1024];
    watch_opts_default(&o);
    if (src) {
        snprintf(path, sizeof path, "%s/rules/jvm.rules", src);
        assert_int_equal(watch_rules_load(path, &o, err, sizeof err), 0);
        int closeable = 0;
        for (int i = 0; i < o.n_watch; i++)
            closeable |= strcmp(o.watch[i].cls, "java.io.Closeable") == 0 &&
                         strcmp(o.watch[i].method, "close") == 0;
        assert_true(closeable);
        int keepalive = 0;
        for (int i = 0; i < o.n_unwatch; i++)
            keepalive |= strcmp(o.unwatch[i], "sun.net.www.http.KeepAliveStream") == 0;
        assert_true(keepalive);
    }
    char tmp[] = "/tmp/watch_test_XXXXXX";
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("# comment\n\nwatch a.B#close  # reason\nunwatch a.C\nignore instance a.B#x\n", f);
    fclose(f);
    watch_opts_default(&o);
    assert_int_equal(watch_rules_load(tmp, &o, err, sizeof err), -1);
    assert_int_equal(o.n_watch, 1);
    assert_string_equal(o.watch[0].cls, "a.B");
    assert_int_equal(o.n_unwatch, 1);
    assert_string_equal(o.unwatch[0], "a.C");
    char want[600];
    snprintf(want, sizeof want, "%s:5: expected `watch CLASS#METHOD` or `unwatch CLASS`", tmp);
    assert_string_equal(err, want);
    /* an unwatch line names a class, no method */
    f = fopen(tmp, "w");
    fputs("unwatch a.B#close\n", f);
    fclose(f);
    watch_opts_default(&o);
    assert_int_equal(watch_rules_load(tmp, &o, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:1: expected `unwatch CLASS`, got 'a.B#close'", tmp);
    assert_string_equal(err, want);
    remove(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(retained_exactly_at_delay),
        cmocka_unit_test(collected_before_due_is_never_retained),
        cmocka_unit_test(sweep_releases_collected_early),
        cmocka_unit_test(gc_before_counting_collects_garbage),
        cmocka_unit_test(threshold_rechecks_back_off),
        cmocka_unit_test(threshold_back_off_is_capped),
        cmocka_unit_test(dumps_at_threshold_and_releases_what_it_held),
        cmocka_unit_test(due_during_the_gcs_goes_into_the_next_dump),
        cmocka_unit_test(watched_twice_goes_with_the_dump),
        cmocka_unit_test(dumps_sixty_seconds_apart),
        cmocka_unit_test(failed_and_empty_dumps_retry_after_five_seconds),
        cmocka_unit_test(failing_dumps_back_off),
        cmocka_unit_test(cap_drops_oldest_with_a_count),
        cmocka_unit_test(cap_full_of_garbage_keeps_leaks),
        cmocka_unit_test(cap_keeps_retained_oldest),
        cmocka_unit_test(cap_sweeps_retained_garbage),
        cmocka_unit_test(disabled_refuses),
        cmocka_unit_test(batch_adds_in_order),
        cmocka_unit_test(ring_wraps_many_objects),
        cmocka_unit_test(ring_grows_wrapped),
        cmocka_unit_test(options_parse),
        cmocka_unit_test(rules_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
