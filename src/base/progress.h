/* SPDX-License-Identifier: Apache-2.0 */
/* progress.h: a progress bar on stderr (base layer), prefix progress_. Drawn only when the
 * caller enables it AND stderr is a terminal, so logs, pipes and tests stay byte-stable.
 * progress_update is an inline compare against the next redraw threshold (every 1/200 of
 * the total), cheap enough to call once per record from a reader's hot loop; the drawing
 * itself also waits PROGRESS_MIN_MS between frames. Usage:
 *
 *   progress p; progress_init(&p, "loading", m->len, o->progress);
 *   for (...) progress_update(&p, pos);
 *   progress_done(&p);   erases the bar
 *
 * Not thread-safe: one bar per thread of work. */
#ifndef LR_BASE_PROGRESS_H
#define LR_BASE_PROGRESS_H

#include <stdint.h>

#define PROGRESS_MIN_MS 100 /* fewest milliseconds between two frames */

typedef struct progress {
    const char *label;  /* shown before the bar; not owned, must outlive the bar */
    uint64_t total;     /* units of work (bytes); 0 = unknown (shows a count only) */
    uint64_t next;      /* redraw when done reaches this; UINT64_MAX when disabled */
    uint64_t step;      /* units between redraw checks */
    uint64_t last_ms;   /* monotonic time of the last frame */
    int enabled;        /* drawing (requested and stderr is a TTY) */
    int drawn;          /* a frame is on screen (progress_done erases it) */
} progress;

/* Prepares p. enabled = the caller wants a bar; it is drawn only if stderr is a TTY too. */
void progress_init(progress *p, const char *label, uint64_t total, int enabled);

/* Out-of-line part of progress_update. */
void progress_draw_(progress *p, uint64_t done);

/* Reports that `done` units of `total` are complete. Monotonic calls expected. */
static inline void progress_update(progress *p, uint64_t done)
{
    if (done >= p->next)
        progress_draw_(p, done);
}

/* Erases the bar (if one was drawn). p may be reused after progress_init. */
void progress_done(progress *p);

#endif
