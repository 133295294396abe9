/* SPDX-License-Identifier: Apache-2.0 */
/* phase.c: named phases of one run (base layer), prefix phase_. A fixed table of totals, so
 * entering a phase never allocates (it runs while memory may be exhausted) and costs two
 * clock reads. One table for the process: a program analysing heaps in several threads gets
 * their phases summed, and a lock keeps the table whole. */
#include "base/phase.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

#define PHASE_MAX 48

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static phase_stat table[PHASE_MAX];
static unsigned n_table;
static const char *cur = "start";
static double cur_wall, cur_cpu;
/* A worker thread's own current phase (phase_worker); NULL in the main thread. */
static _Thread_local const char *worker_cur;

static double now_ms(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Adds the time since the current phase began to its totals and restarts its clock. */
static void close_current(void)
{
    double w = now_ms(CLOCK_MONOTONIC), c = now_ms(CLOCK_PROCESS_CPUTIME_ID);
    if (cur_wall > 0) {
        unsigned i = 0;
        while (i < n_table && strcmp(table[i].name, cur) != 0)
            i++;
        if (i == n_table && n_table < PHASE_MAX)
            table[n_table++].name = cur;
        if (i < n_table) {
            table[i].wall_ms += w - cur_wall;
            table[i].cpu_ms += c - cur_cpu;
        }
    }
    cur_wall = w;
    cur_cpu = c;
}

void phase_enter(const char *name)
{
    if (worker_cur) {
        worker_cur = name;
        return;
    }
    pthread_mutex_lock(&table_lock);
    close_current();
    /* other threads read it (a refused allocation in a parallel section): never torn */
    __atomic_store_n(&cur, name, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&table_lock);
}

const char *phase_current(void)
{
    return worker_cur ? worker_cur : __atomic_load_n(&cur, __ATOMIC_RELAXED);
}

void phase_worker(const char *name) { worker_cur = name ? name : "worker"; }

unsigned phase_stats(phase_stat *out, unsigned cap)
{
    pthread_mutex_lock(&table_lock);
    close_current();
    for (unsigned i = 0; i < n_table && i < cap; i++)
        out[i] = table[i];
    unsigned n = n_table;
    pthread_mutex_unlock(&table_lock);
    return n;
}

void phase_print(FILE *out)
{
    phase_stat st[PHASE_MAX];
    unsigned n = phase_stats(st, PHASE_MAX);
    double tw = 0, tc = 0;
    fprintf(out, "%-22s %10s %10s\n", "phase", "wall ms", "cpu ms");
    for (unsigned i = 0; i < n; i++) {
        fprintf(out, "%-22s %10.1f %10.1f\n", st[i].name, st[i].wall_ms, st[i].cpu_ms);
        tw += st[i].wall_ms;
        tc += st[i].cpu_ms;
    }
    fprintf(out, "%-22s %10.1f %10.1f\n", "total", tw, tc);
}
