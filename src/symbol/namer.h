/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * namer.h - naming frames on a thread of their own, while recording.
 *
 * Each new frame is handed to the naming thread as it is met, which
 * resolves it (reading its module's symbols and DWARF the first time), so
 * that at the stop only the last moments' frames are left. The thread
 * runs in the idle scheduling class while the recording goes on: it takes
 * only CPU time the profiled programs leave, and never delays them; at
 * the stop it runs at normal priority to finish. When every CPU stays
 * busy, an idle-class thread gets no time at all and everything would be
 * left for the stop: a job that has waited a second moves the thread to
 * the batch class at nice 19 (a small share, about 1.5% of a CPU against
 * one busy thread of nice 0) until the queue is empty again.
 *
 * Ownership: the symbolizer handed to namer_start is the thread's alone
 * until namer_finish has joined it. Results are written under the namer's
 * lock, so that they can be read even when the thread could not be
 * joined (naming cut short, the thread still waiting on a slow source).
 */
#ifndef PERFMINI_NAMER_H
#define PERFMINI_NAMER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/module.h"
#include "symbol/symbolize.h"

struct namer;

/*
 * Starts the thread over z. Returns NULL when it cannot be started: then
 * nothing is named in the background and the caller names every frame
 * itself.
 */
struct namer *namer_start(struct symbolizer *z);

/* Queues frame id frame, at addr of m (recorder thread). */
void namer_frame(struct namer *n, struct module *m, uint32_t frame, uint64_t addr);

/*
 * Looks at the queue's age (recorder thread, now on now_ns()'s clock,
 * called often, say every 100 ms): promotes the thread to the batch class
 * while a job has waited BACKLOG_AGE_NS, back to idle once none waits.
 */
void namer_tick(struct namer *n, uint64_t now);

/*
 * Lets the thread finish what is queued, at normal priority, and joins
 * it. It is cut short when deadline_ns (on now_ns()'s clock; 0 for none)
 * passes or *interrupt becomes non-zero: the frames not named by then stay
 * unnamed, and the thread, if it is still busy, is left to end with the
 * process. Returns 0 when everything was named, -ETIMEDOUT or -EINTR.
 */
int namer_finish(struct namer *n, uint64_t deadline_ns, const volatile sig_atomic_t *interrupt);

/* How many frames were queued, and how many of them are named (resolved or not). */
void namer_counts(struct namer *n, uint64_t *queued, uint64_t *done);

/*
 * Frame id frame as the thread resolved it, copied into r (whose symname
 * stays NULL: the namer keeps the strings, valid until namer_free).
 * Returns r->n, or -1 when the thread never got to it.
 */
int namer_levels(struct namer *n, uint32_t frame, struct symres *r);

/*
 * Frees n, ending its thread first if namer_finish has not; never after
 * namer_finish failed (the thread, left running, may still use it).
 */
void namer_free(struct namer *n);

#endif
