/* SPDX-License-Identifier: Apache-2.0 */
/* progress.c: the stderr progress bar (base layer), prefix progress_. A frame is one line
 * rewritten in place with '\r'; the terminal width is not queried, the bar is kept short
 * (PROGRESS_BAR_COLS) so it fits any sane terminal. Disabled bars set next = UINT64_MAX so
 * the inline check in progress_update never calls in here. */
#include "base/progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_BAR_COLS 30 /* characters of the bar itself */
#define PROGRESS_STEPS 200   /* redraw checks per full bar */

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void progress_init(progress *p, const char *label, uint64_t total, int enabled)
{
    p->label = label ? label : "";
    p->total = total;
    p->enabled = enabled && isatty(STDERR_FILENO);
    p->drawn = 0;
    p->last_ms = now_ms();
    /* Unknown totals are checked every 1 MiB of work. */
    p->step = total ? (total / PROGRESS_STEPS ? total / PROGRESS_STEPS : 1) : (1u << 20);
    /* The first frame waits PROGRESS_MIN_MS, so fast loads never flash a bar. */
    p->next = p->enabled ? p->step : UINT64_MAX;
}

void progress_draw_(progress *p, uint64_t done)
{
    if (!p->enabled) {
        p->next = UINT64_MAX;
        return;
    }
    p->next = done + p->step;
    uint64_t t = now_ms();
    if (t - p->last_ms < PROGRESS_MIN_MS)
        return;
    p->last_ms = t;
    if (p->total) {
        uint64_t d = done > p->total ? p->total : done;
        unsigned pct = (unsigned)(d * 100 / p->total);
        unsigned fill = (unsigned)(d * PROGRESS_BAR_COLS / p->total);
        char bar[PROGRESS_BAR_COLS + 1];
        for (unsigned i = 0; i < PROGRESS_BAR_COLS; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[PROGRESS_BAR_COLS] = '\0';
        fprintf(stderr, "\r%s [%s] %3u%%", p->label, bar, pct);
    } else {
        fprintf(stderr, "\r%s %llu MiB", p->label, (unsigned long long)(done >> 20));
    }
    fflush(stderr);
    p->drawn = 1;
}

void progress_done(progress *p)
{
    if (p->drawn) {
        /* Blank the line so the next output starts clean. */
        fprintf(stderr, "\r%*s\r", PROGRESS_BAR_COLS + 40, "");
        fflush(stderr);
    }
    p->drawn = 0;
    p->next = UINT64_MAX;
}
