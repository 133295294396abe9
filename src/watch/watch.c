/* SPDX-License-Identifier: Apache-2.0 */
/* watch.c: the watcher core's table and trigger (watch layer), prefix watch_. Watched
 * objects live in one ring of WATCH_ENTRY_BYTES entries in watch order. Because the delay is
 * the same for all, they come due in that order too, so the ring splits in two: the front
 * `n_done` entries were checked (retained, or tombstones of collected ones awaiting
 * compaction), the rest wait for their delay. Due-processing pops from the waiting part, a
 * recount sweeps the front, a dump clears by watch time; each is O(entries touched). The
 * lock guards the ring and counters; the GC, finalization and dump callbacks run without it
 * so watch_add never waits for a dump. Schedule and rules: watch.h. */
#include "watch/watch.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    void *obj;         /* the env's handle; NULL marks a tombstone */
    uint64_t watch_ms; /* clock when watched */
    uint32_t flags;    /* ENTRY_RETAINED once found retained; ENTRY_SWEPT once swept */
    uint32_t tag;      /* the caller's tag (watch_add), passed to env->retained */
} entry;

#define ENTRY_RETAINED 1u /* past its delay and still there */
#define ENTRY_SWEPT 2u    /* a sweep found it alive before its delay: not asked again early */

_Static_assert(sizeof(entry) == WATCH_ENTRY_BYTES, "WATCH_ENTRY_BYTES is the entry size");

#define TABLE_MIN 64 /* first allocation, entries */

struct watch {
    pthread_mutex_t lock; /* guards everything below */
    watch_config cfg;     /* as given, checked */
    watch_env env;        /* callbacks */
    entry *ring;          /* cap entries */
    size_t cap;           /* allocated entries (grows to cfg.max_watched) */
    size_t head;          /* index of the oldest entry */
    size_t n;             /* entries in use, tombstones included */
    size_t n_done;        /* front entries already checked (retained or tombstone) */
    watch_stats st;       /* counters; state and schedule fields are kept live */
    uint64_t check_at;    /* scheduled check, 0 = none (LeakCanary's checkScheduledAt) */
    uint64_t gc_at;       /* second GC step of a running check, 0 = none */
    size_t since_resweep; /* entries added since the table, full, was last swept again */
    uint64_t full_gc_ms;  /* when a full table last asked for a GC, 0 = never */
    uint64_t below;       /* retained count the last check below the threshold found */
    uint64_t recheck_ms;  /* its wait for the next check (backs off while the count stays) */
    int disabled;         /* watch_disable was called */
};

uint64_t watch_retry_ms(unsigned fail_streak)
{
    uint64_t wait = WATCH_DUMP_RETRY_MS;
    for (unsigned i = 0; i < fail_streak && wait < WATCH_DUMP_RETRY_MAX_MS; i++)
        wait *= 2;
    return wait < WATCH_DUMP_RETRY_MAX_MS ? wait : WATCH_DUMP_RETRY_MAX_MS;
}

void watch_config_default(watch_config *cfg)
{
    cfg->delay_ms = WATCH_DELAY_MS;
    cfg->threshold = WATCH_THRESHOLD;
    cfg->max_watched = WATCH_MAX_WATCHED;
}

watch *watch_new(const watch_config *cfg, const watch_env *env)
{
    watch *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    if (pthread_mutex_init(&w->lock, NULL) != 0) {
        free(w);
        return NULL;
    }
    w->cfg = *cfg;
    if (w->cfg.threshold < 1)
        w->cfg.threshold = 1;
    if (w->cfg.max_watched < 1)
        w->cfg.max_watched = 1;
    w->env = *env;
    w->st.state = WATCH_IDLE;
    w->since_resweep = SIZE_MAX / 2;
    return w;
}

static entry *at(watch *w, size_t i) { return &w->ring[(w->head + i) % w->cap]; }

void watch_free(watch *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->n; i++)
        if (at(w, i)->obj)
            w->env.release(w->env.ctx, at(w, i)->obj, at(w, i)->tag);
    free(w->ring);
    pthread_mutex_destroy(&w->lock);
    free(w);
}

/* ---- the table ---- */

/* Grows the ring in place (realloc: a large table is moved by remapping its pages, so the
 * old and new tables are never both resident, which would double the peak per-object
 * memory), then moves the wrapped front part [0, head) behind the old end. The ring is full
 * when called (n == cap), so after the move the entries are contiguous from head. Returns 0,
 * or -1 at the cap / no memory. */
static int grow(watch *w)
{
    if (w->cap >= w->cfg.max_watched)
        return -1;
    size_t ncap = w->cap ? w->cap * 2 : TABLE_MIN;
    if (ncap > w->cfg.max_watched)
        ncap = w->cfg.max_watched;
    entry *r = realloc(w->ring, ncap * sizeof *r);
    if (!r)
        return -1;
    size_t old = w->cap, wrapped = w->head + w->n > old ? w->head + w->n - old : 0;
    /* entries at [head, old) then [0, wrapped): move the second run behind the first, as far
     * as the new room allows, and slide what is left to the start */
    size_t room = ncap - old, first = wrapped < room ? wrapped : room;
    memcpy(r + old, r, first * sizeof *r);
    memmove(r, r + first, (wrapped - first) * sizeof *r);
    w->ring = r;
    w->cap = ncap;
    w->st.table_bytes = ncap * sizeof *r;
    return 0;
}

/* Removes the oldest entry, which the caller has released or tombstoned. */
static void pop_front(watch *w)
{
    w->head = (w->head + 1) % w->cap;
    w->n--;
    if (w->n_done > 0)
        w->n_done--;
}

/* Drops tombstones and keeps order: survivors slide towards the back, the head moves up.
 * n_done is recomputed from how many checked entries survive. O(n). */
static void compact(watch *w)
{
    size_t dst = w->n, done = 0;
    for (size_t i = w->n; i-- > 0;) {
        entry *e = at(w, i);
        if (!e->obj)
            continue;
        dst--;
        if (i < w->n_done)
            done++;
        if (dst != i)
            *at(w, dst) = *e;
    }
    w->head = (w->head + dst) % w->cap;
    w->n -= dst;
    w->n_done = done;
}

/* Releases e's object and tombstones it; collected says why (collected vs dropped/cleared). */
static void forget(watch *w, entry *e)
{
    if (e->flags & ENTRY_RETAINED)
        w->st.retained--;
    w->st.watched--;
    w->env.release(w->env.ctx, e->obj, e->tag);
    e->obj = NULL;
}

/* The table is full: asks every entry again whether its object is still there and releases
 * the collected ones. A sweep asks each entry once, at the tick after its watch, when an
 * object watched a moment ago is still there, garbage or not; a program that watches
 * faster than the cap over the delay (20,000 a second at the defaults) fills the table with
 * garbage the GC has collected since, and dropping the oldest entry to make room dropped
 * real leaks with it. Retained entries are asked too: past their delay before any GC (while
 * a dump waits for its interval, a minute), most were garbage as well, and held the table
 * full. Run once per cap/8 entries added at most, so a table full of live objects costs at
 * most 8 asks per add. Returns whether room was made. */
static int resweep(watch *w)
{
    size_t every = w->cap / 8 ? w->cap / 8 : 1, freed = 0;
    if (w->since_resweep < every)
        return 0;
    w->since_resweep = 0;
    for (size_t i = 0; i < w->n; i++) {
        entry *e = at(w, i);
        if (e->obj && !w->env.alive(w->env.ctx, e->obj, e->tag)) {
            w->st.collected++;
            forget(w, e);
            freed++;
        }
    }
    if (freed)
        compact(w);
    return freed > 0;
}

/* The table is full and nothing in it was collected: the garbage in it may not have met a
 * GC yet (a large young generation, a program that allocates little besides what it
 * watches). One GC, at most once per delay, then the sweep again; only if that frees nothing
 * does the oldest entry go. The GC runs on the thread that watches, under the lock (the
 * env's GC takes no lock of the core). */
static int gc_and_resweep(watch *w, uint64_t now)
{
    if (w->cap == 0 || (w->full_gc_ms && now - w->full_gc_ms < w->cfg.delay_ms))
        return 0;
    w->full_gc_ms = now ? now : 1;
    w->env.gc(w->env.ctx);
    w->st.full_gcs++;
    w->since_resweep = SIZE_MAX / 2;
    return resweep(w);
}

/* Appends one entry; the lock is held and the core is not disabled. *first_waiting tells
 * whether it is the only waiting entry (the executor must be woken for it). Returns 0, or -1
 * when even the first table cannot be allocated, or the table is full and its oldest entry
 * is retained (obj not taken). */
static int add_locked(watch *w, void *obj, uint64_t watch_ms, uint32_t tag, int *first_waiting)
{
    w->since_resweep++;
    if (w->n == w->cap && grow(w) != 0 && !resweep(w) && !gc_and_resweep(w, watch_ms)) {
        if (w->cap == 0) /* not even the first table: refuse rather than lose track */
            return -1;
        entry *old = at(w, 0);
        /* The oldest is a leak found already, waiting for its dump (dumps are a minute
         * apart, and no GC sweeps meanwhile): it stays, and the new object is not watched.
         * Dropping it lost 3 of 90 leaks of a service that watched faster than the cap. */
        if (old->obj && (old->flags & ENTRY_RETAINED)) {
            w->st.dropped++;
            return -1;
        }
        if (w->env.alive(w->env.ctx, old->obj, old->tag))
            w->st.dropped++;
        else
            w->st.collected++;
        forget(w, old);
        pop_front(w);
    }
    *first_waiting = w->n == w->n_done;
    entry *e = &w->ring[(w->head + w->n) % w->cap];
    e->obj = obj;
    e->watch_ms = watch_ms;
    e->flags = 0;
    e->tag = tag;
    w->n++;
    w->st.watched++;
    w->st.total_watched++;
    return 0;
}

size_t watch_add_n(watch *w, void *const *objs, const uint32_t *tags, size_t n,
                   uint64_t watch_ms)
{
    pthread_mutex_lock(&w->lock);
    if (w->disabled) {
        pthread_mutex_unlock(&w->lock);
        return 0;
    }
    while (w->n > 0 && !at(w, 0)->obj)
        pop_front(w);
    int first_waiting = 0, first;
    size_t i = 0;
    while (i < n && add_locked(w, objs[i], watch_ms, tags[i], &first) == 0)
        if (i++ == 0)
            first_waiting = first;
    pthread_mutex_unlock(&w->lock);
    /* the executor is woken when these are the only waiting entries: otherwise an older
     * waiting entry, due first, already has it scheduled */
    if (first_waiting && i > 0)
        w->env.wake(w->env.ctx, watch_ms + w->cfg.delay_ms);
    return i;
}

int watch_add(watch *w, void *obj, uint64_t watch_ms, uint32_t tag)
{
    return watch_add_n(w, &obj, &tag, 1, watch_ms) == 1 ? 0 : -1;
}

/* ---- the trigger ---- */

/* LeakCanary's scheduleRetainedObjectCheck: a pending check wins over a new one. */
static void schedule_check(watch *w, uint64_t now, uint64_t delay)
{
    if (w->check_at)
        return;
    w->check_at = now + delay;
    if (w->check_at == 0) /* clock at 0: keep 0 meaning "none" */
        w->check_at = 1;
}

/* Moves waiting entries past their delay to retained, or releases collected ones. */
static void process_due(watch *w, uint64_t now)
{
    int any = 0;
    while (w->n_done < w->n) {
        entry *e = at(w, w->n_done);
        if (e->watch_ms + w->cfg.delay_ms > now)
            break;
        if (!e->obj) { /* released by a sweep, awaiting compaction */
            w->n_done++;
            continue;
        }
        if (w->env.alive(w->env.ctx, e->obj, e->tag)) {
            void *kept = w->env.retained(w->env.ctx, e->obj, &e->tag, e->watch_ms, now);
            if (kept) {
                e->obj = kept;
                e->flags |= ENTRY_RETAINED;
                w->st.retained++;
                any = 1;
            } else { /* gone meanwhile; the env released the handle */
                w->st.collected++;
                w->st.watched--;
                e->obj = NULL;
            }
        } else {
            w->st.collected++;
            forget(w, e);
        }
        w->n_done++;
    }
    if (any) {
        /* a check waiting out a back-off below the threshold comes now */
        if (w->st.state == WATCH_WAIT_THRESHOLD && w->check_at > now + WATCH_RECHECK_MS)
            w->check_at = 0;
        w->recheck_ms = 0;
        schedule_check(w, now, 0);
    }
    while (w->n > 0 && !at(w, 0)->obj)
        pop_front(w);
}

/* Releases retained entries whose referent is gone and returns how many are left. */
static uint64_t recount(watch *w)
{
    for (size_t i = 0; i < w->n_done; i++) {
        entry *e = at(w, i);
        if (e->obj && (e->flags & ENTRY_RETAINED) &&
            !w->env.alive(w->env.ctx, e->obj, e->tag)) {
            w->st.collected++;
            forget(w, e);
        }
    }
    compact(w);
    return w->st.retained;
}

/* LeakCanary's removeWeaklyReachableObjects, ahead of the delay: each waiting entry watched
 * before `before` is asked once whether its referent is still there; gone ones are released
 * (collected) and the ring compacted. Most watched objects die young: releasing them early
 * keeps the env's handles few (a JVM's collector visits every weak handle on each GC) and
 * the table under its cap. O(waiting entries) per call, one env->alive per entry in all. */
size_t watch_sweep(watch *w, uint64_t before)
{
    size_t released = 0;
    pthread_mutex_lock(&w->lock);
    for (size_t i = w->n_done; i < w->n && !w->disabled; i++) {
        entry *e = at(w, i);
        if (!e->obj || (e->flags & ENTRY_SWEPT) || e->watch_ms >= before)
            continue;
        e->flags |= ENTRY_SWEPT;
        if (!w->env.alive(w->env.ctx, e->obj, e->tag)) {
            w->st.collected++;
            forget(w, e);
            released++;
        }
    }
    if (released)
        compact(w);
    pthread_mutex_unlock(&w->lock);
    return released;
}

/* After a dump: what it holds as retained goes (LeakCanary's clearObjectsWatchedBefore), with
 * every other entry of the same objects (release_duplicates). One departure: an object not
 * found retained yet stays watched, and is checked when its delay ends, even one whose delay
 * ended during the GCs before the dump. LeakCanary releases every
 * object watched before the dump began, yet no dump reports those (not retained when it was
 * taken): a server whose applications were undeployed seconds apart had the class loaders of
 * all but the first few released unreported, leaks and all. */
typedef struct idkey {
    uint64_t hash;
    size_t at; /* ring position of the retained entry */
} idkey;

static int idkey_cmp(const void *a, const void *b)
{
    const idkey *x = a, *y = b;
    return x->hash < y->hash ? -1 : x->hash > y->hash;
}

/* The entries not found retained whose object the dump held through a retained entry: the
 * report named that object, and the next dump named it again (a loader Jetty closes twice
 * was watched twice, the second watch 100 ms later not yet due when the dump began). O(n
 * log r) identity hashes and comparisons, r retained entries; nothing when the env cannot
 * tell objects apart, or the memory for the keys is missing. */
static void release_duplicates(watch *w)
{
    size_t r = 0;
    if (!w->env.identity || !w->env.same || !w->st.retained)
        return;
    idkey *k = malloc(w->st.retained * sizeof *k);
    if (!k)
        return;
    for (size_t i = 0; i < w->n && r < w->st.retained; i++) {
        entry *e = at(w, i);
        if (e->obj && (e->flags & ENTRY_RETAINED) &&
            (k[r].hash = w->env.identity(w->env.ctx, e->obj, e->tag)) != 0)
            k[r++].at = i;
    }
    qsort(k, r, sizeof *k, idkey_cmp);
    for (size_t i = 0; i < w->n && r; i++) {
        entry *e = at(w, i);
        if (!e->obj || (e->flags & ENTRY_RETAINED))
            continue;
        idkey q = {w->env.identity(w->env.ctx, e->obj, e->tag), 0};
        if (!q.hash)
            continue;
        size_t lo = 0, hi = r;
        while (lo < hi) { /* first key not below q */
            size_t mid = lo + (hi - lo) / 2;
            if (k[mid].hash < q.hash)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (; lo < r && k[lo].hash == q.hash; lo++) {
            entry *d = at(w, k[lo].at);
            if (w->env.same(w->env.ctx, e->obj, e->tag, d->obj, d->tag)) {
                forget(w, e);
                break;
            }
        }
    }
    free(k);
}

static void clear_retained(watch *w)
{
    release_duplicates(w);
    for (size_t i = 0; i < w->n; i++) {
        entry *e = at(w, i);
        if (e->obj && (e->flags & ENTRY_RETAINED))
            forget(w, e);
    }
    compact(w);
}

/* The second half of a check: decide on the recounted number. Called with the lock held;
 * may drop it around the dump callback. */
static void decide(watch *w, uint64_t now)
{
    uint64_t count = recount(w);
    w->st.retained_after_gc = count;
    if (count == 0) {
        w->st.state = WATCH_IDLE;
        w->recheck_ms = 0;
        return;
    }
    if (count < w->cfg.threshold) {
        w->st.state = WATCH_WAIT_THRESHOLD;
        if (w->recheck_ms && count == w->below)
            w->recheck_ms = w->recheck_ms * 2 < WATCH_RECHECK_MAX_MS ? w->recheck_ms * 2
                                                                    : WATCH_RECHECK_MAX_MS;
        else
            w->recheck_ms = WATCH_RECHECK_MS;
        w->below = count;
        schedule_check(w, now, w->recheck_ms);
        return;
    }
    w->recheck_ms = 0;
    if (w->st.dumps > 0 && now - w->st.last_dump_ms < WATCH_DUMP_INTERVAL_MS) {
        w->st.state = WATCH_WAIT_INTERVAL;
        schedule_check(w, now, WATCH_DUMP_INTERVAL_MS - (now - w->st.last_dump_ms));
        return;
    }
    w->st.state = WATCH_DUMPING;
    pthread_mutex_unlock(&w->lock);
    uint64_t bytes = w->env.dump(w->env.ctx, (unsigned)count, now);
    uint64_t end = w->env.now_ms(w->env.ctx);
    pthread_mutex_lock(&w->lock);
    if (w->disabled)
        return;
    if (bytes == 0) {
        w->st.failed_dumps++;
        w->st.state = WATCH_DUMP_FAILED;
        schedule_check(w, end, watch_retry_ms(w->st.fail_streak++));
        return;
    }
    w->st.fail_streak = 0;
    w->st.dumps++;
    w->st.last_dump_ms = end;
    w->st.last_dump_bytes = bytes;
    clear_retained(w);
    w->st.retained_after_gc = 0;
    w->st.state = w->st.retained ? WATCH_WAIT_THRESHOLD : WATCH_IDLE;
}

uint64_t watch_run(watch *w)
{
    pthread_mutex_lock(&w->lock);
    if (w->disabled) {
        pthread_mutex_unlock(&w->lock);
        return 0;
    }
    uint64_t now = w->env.now_ms(w->env.ctx);
    process_due(w, now);
    if (w->gc_at && now >= w->gc_at) {
        w->gc_at = 0;
        pthread_mutex_unlock(&w->lock);
        w->env.finalize(w->env.ctx);
        w->env.gc(w->env.ctx);
        pthread_mutex_lock(&w->lock);
        if (!w->disabled)
            decide(w, w->env.now_ms(w->env.ctx));
    } else if (!w->gc_at && w->check_at && now >= w->check_at) {
        w->check_at = 0;
        if (w->st.retained > 0) {
            /* GcTrigger: GC now, finalization and the second GC 100 ms later */
            w->st.state = WATCH_GC;
            pthread_mutex_unlock(&w->lock);
            w->env.gc(w->env.ctx);
            pthread_mutex_lock(&w->lock);
            w->gc_at = w->env.now_ms(w->env.ctx) + WATCH_GC_WAIT_MS;
        } else {
            w->st.state = WATCH_IDLE;
        }
    }
    uint64_t next = 0;
    if (!w->disabled) {
        if (w->gc_at)
            next = w->gc_at;
        else if (w->check_at)
            next = w->check_at;
        if (w->n_done < w->n) {
            uint64_t due = at(w, w->n_done)->watch_ms + w->cfg.delay_ms;
            if (!next || due < next)
                next = due;
        }
    }
    pthread_mutex_unlock(&w->lock);
    return next;
}

void watch_stats_get(watch *w, watch_stats *st)
{
    pthread_mutex_lock(&w->lock);
    *st = w->st;
    if (st->retained_after_gc > st->retained) /* collected since, outside a check */
        st->retained_after_gc = st->retained;
    st->next_check_ms = w->gc_at ? w->gc_at : w->check_at;
    st->next_due_ms = w->n_done < w->n ? at(w, w->n_done)->watch_ms + w->cfg.delay_ms : 0;
    if (w->disabled)
        st->state = WATCH_DISABLED;
    pthread_mutex_unlock(&w->lock);
}

void watch_disable(watch *w)
{
    pthread_mutex_lock(&w->lock);
    w->disabled = 1;
    w->check_at = w->gc_at = 0;
    pthread_mutex_unlock(&w->lock);
}

const char *watch_state_name(watch_state s)
{
    static const char *const names[] = {"idle", "waiting-threshold", "waiting-interval",
                                        "gc", "dumping", "dump-failed", "disabled"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "unknown";
}

const char *watch_next_action(const watch_stats *st, const watch_config *cfg, uint64_t now_ms,
                              char *buf, size_t n)
{
    uint64_t t = st->next_check_ms;
    unsigned long long in = t > now_ms ? (unsigned long long)(t - now_ms) : 0;
    switch (st->state) {
    case WATCH_WAIT_THRESHOLD:
        snprintf(buf, n, "%llu retained, waiting until %u: re-check in %llu ms",
                 (unsigned long long)st->retained, cfg->threshold, in);
        break;
    case WATCH_WAIT_INTERVAL:
        snprintf(buf, n, "last heap dump was less than a minute ago: dump in %llu ms", in);
        break;
    case WATCH_GC:
        snprintf(buf, n, "running GC and finalization before counting");
        break;
    case WATCH_DUMPING:
        snprintf(buf, n, "dumping the heap");
        break;
    case WATCH_DUMP_FAILED:
        snprintf(buf, n, "heap dump failed: retry in %llu ms", in);
        break;
    case WATCH_DISABLED:
        snprintf(buf, n, "disabled after an agent error");
        break;
    default:
        if (st->next_due_ms)
            snprintf(buf, n, "next watched object comes due in %llu ms",
                     (unsigned long long)(st->next_due_ms > now_ms ? st->next_due_ms - now_ms
                                                                   : 0));
        else
            snprintf(buf, n, "nothing watched");
    }
    return buf;
}
