/* SPDX-License-Identifier: Apache-2.0 */
/* fastclock.c: an LD_PRELOAD shim for tests/cli/progress_tty.sh. Every CLOCK_MONOTONIC
 * reading is pushed 60 ms further than the last, so a progress bar that waits 100 ms
 * between frames draws on any machine, however fast the load. Other clocks are untouched. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>

int clock_gettime(clockid_t id, struct timespec *ts)
{
    static int (*real)(clockid_t, struct timespec *);
    static long long skew_ms;
    if (!real)
        real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    if (!real)
        return -1;
    int r = real(id, ts);
    if (r == 0 && id == CLOCK_MONOTONIC) {
        skew_ms += 60;
        long long ns = ts->tv_nsec + (skew_ms % 1000) * 1000000LL;
        ts->tv_sec += (time_t)(skew_ms / 1000 + ns / 1000000000LL);
        ts->tv_nsec = (long)(ns % 1000000000LL);
    }
    return r;
}
