/* SPDX-License-Identifier: Apache-2.0 */
/* mem.c: accounting of allocated bytes against a limit, and the pre-fault of arrays about to
 * be written (base layer), prefix mem_. Relaxed
 * atomics: the counters need to be exact, not ordered with other memory. The check in
 * mem_charge and the later mem_account are not one atomic step, so threads allocating at
 * once may pass the limit by one allocation each: the limit is a bound to stop at cleanly,
 * not a reservation. */
#include "base/mem.h"
#include "base/phase.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older headers lack it, older kernels say EINVAL */
#endif

static uint64_t limit_b;
static int64_t in_use_b;
static int64_t peak_b;
static int active;

static int refused;
static const char *refused_phase;
static uint64_t refused_asked, refused_in_use;

void mem_set_limit(uint64_t bytes) { __atomic_store_n(&limit_b, bytes, __ATOMIC_RELAXED); }
uint64_t mem_limit(void) { return __atomic_load_n(&limit_b, __ATOMIC_RELAXED); }
void mem_set_active(void) { active = 1; }
int mem_active(void) { return active; }

static int tuning;
void mem_set_tuning(int on) { tuning = on; }
int mem_tuning(void) { return tuning; }

uint64_t mem_in_use(void)
{
    int64_t v = __atomic_load_n(&in_use_b, __ATOMIC_RELAXED);
    return v > 0 ? (uint64_t)v : 0;
}

uint64_t mem_peak(void)
{
    int64_t v = __atomic_load_n(&peak_b, __ATOMIC_RELAXED);
    return v > 0 ? (uint64_t)v : 0;
}

int mem_charge(uint64_t add, uint64_t drop)
{
    uint64_t lim = __atomic_load_n(&limit_b, __ATOMIC_RELAXED);
    if (!lim || add <= drop)
        return 1;
    uint64_t use = mem_in_use();
    uint64_t kept = use > drop ? use - drop : 0; /* what stays allocated */
    if (add <= lim && kept <= lim - add)
        return 1;
    /* Only the first refusal is kept: later ones are its consequences (cleanup paths). */
    if (!__atomic_exchange_n(&refused, 1, __ATOMIC_RELAXED)) {
        refused_phase = phase_current();
        refused_asked = add;
        refused_in_use = use;
    }
    return 0;
}

int mem_fits(uint64_t add, uint64_t drop, uint64_t reserve)
{
    uint64_t lim = __atomic_load_n(&limit_b, __ATOMIC_RELAXED);
    if (!lim || add <= drop)
        return 1;
    if (reserve >= lim)
        return 0;
    lim -= reserve;
    uint64_t use = mem_in_use();
    uint64_t kept = use > drop ? use - drop : 0;
    return add <= lim && kept <= lim - add;
}

void mem_account(int64_t delta)
{
    int64_t v = __atomic_add_fetch(&in_use_b, delta, __ATOMIC_RELAXED);
    int64_t p = __atomic_load_n(&peak_b, __ATOMIC_RELAXED);
    while (v > p && !__atomic_compare_exchange_n(&peak_b, &p, v, 1, __ATOMIC_RELAXED,
                                                 __ATOMIC_RELAXED))
        ;
}

int mem_refused(const char **phase, uint64_t *asked, uint64_t *in_use)
{
    if (!__atomic_load_n(&refused, __ATOMIC_RELAXED))
        return 0;
    if (phase)
        *phase = refused_phase;
    if (asked)
        *asked = refused_asked;
    if (in_use)
        *in_use = refused_in_use;
    return 1;
}

/* "N kB" from a /proc/meminfo line, in bytes; 0 when absent. */
static uint64_t meminfo(const char *key)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[128];
    size_t kl = strlen(key);
    uint64_t v = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long kb;
        if (strncmp(line, key, kl) == 0 && line[kl] == ':' &&
            sscanf(line + kl + 1, "%llu", &kb) == 1) {
            v = (uint64_t)kb << 10;
            break;
        }
    }
    fclose(f);
    return v;
}

/* One number from a cgroup v2 file of this process's cgroup; UINT64_MAX for "max" or when
 * there is none (cgroup v1, no /sys). */
static uint64_t cgroup_value(const char *file)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f)
        return UINT64_MAX;
    char line[512], path[700];
    path[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "0::", 3) == 0) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(path, sizeof path, "/sys/fs/cgroup%s/%s", line + 3, file);
            break;
        }
    }
    fclose(f);
    if (!path[0] || !(f = fopen(path, "r")))
        return UINT64_MAX;
    unsigned long long v;
    uint64_t out = fscanf(f, "%llu", &v) == 1 ? (uint64_t)v : UINT64_MAX;
    fclose(f);
    return out;
}

uint64_t mem_available_now(void)
{
    uint64_t avail = meminfo("MemAvailable");
    uint64_t max = cgroup_value("memory.max"), cur = cgroup_value("memory.current");
    if (max != UINT64_MAX && cur != UINT64_MAX) {
        uint64_t left = max > cur ? max - cur : 0;
        if (!avail || left < avail)
            avail = left;
    }
    return avail;
}

uint64_t mem_default_limit(void) { return mem_available_now() / 10 * 9; }

/* One number from a /proc/sys file; 0 when absent. */
static uint64_t sysctl_value(const char *path)
{
    FILE *f = fopen(path, "r");
    unsigned long long v = 0;
    if (f) {
        if (fscanf(f, "%llu", &v) != 1)
            v = 0;
        fclose(f);
    }
    return v;
}

uint64_t mem_dirty_background(void)
{
    uint64_t b = sysctl_value("/proc/sys/vm/dirty_background_bytes");
    if (b)
        return b;
    uint64_t ratio = sysctl_value("/proc/sys/vm/dirty_background_ratio");
    return ratio <= 100 ? mem_available_now() / 100 * ratio : 0;
}

void mem_populate(void *p, size_t n)
{
    if (!p || !n)
        return;
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = (uintptr_t)p & ~(pg - 1);
    uintptr_t b = ((uintptr_t)p + n - 1) | (pg - 1);
    (void)madvise((void *)a, b - a + 1, MADV_POPULATE_WRITE);
}
