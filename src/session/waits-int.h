/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * waits-int.h - the session's off-CPU tracks (--off-cpu; waits.c alone
 * writes them): the context-switch samples, switch records and wake-ups
 * paired into spans (model/offcpu.h), each span written to the file with
 * its wake-up as it ends.
 */
#ifndef PERFMINI_SESSION_WAITS_INT_H
#define PERFMINI_SESSION_WAITS_INT_H

#include <stdint.h>

#include "capture/decode.h"
#include "model/offcpu.h"

struct session;

struct sess_waits {
	struct offcpu offcpu;
	uint64_t nspans;       /* written */
	uint64_t wake_samples; /* of the wake-up events, of targets or not */
};

/* Spans shorter than min_ns are left out; each kept goes to s's file. */
void waits_init(struct sess_waits *w, uint64_t min_ns, struct session *s);
void waits_release(struct sess_waits *w);
/* A context-switch sample: the stack a thread is switched out at. */
void waits_switch_sample(struct session *s, const struct rec_sample *smp, uint16_t misc,
			 const void *ahead);
/*
 * A switch record of thread sid->tid. A CPU-wide one's switch-out also
 * names the thread picked next (offcpu_picked).
 */
void waits_switch_record(struct session *s, const struct sample_id *sid,
			 const struct rec_switch *sw);
/*
 * A sample of the CPU-wide sched_switch tracepoint (switch_tp), at the
 * pick of a target's thread: its span ends there (offcpu_picked).
 */
void waits_switch_tp(struct session *s, const struct rec_sample *smp);
/* A wake-up sample (sched_waking, in the waker's context). */
void waits_wake(struct session *s, const struct rec_sample *smp, uint16_t misc, const void *ahead);
/* Thread tid exited: its spans end. */
void waits_exit(struct session *s, uint32_t tid);
/* The stop at time end: the spans of threads still off the CPU end there. */
void waits_finish(struct session *s, uint64_t end);
/*
 * A new slice's profile, to: what the open spans hold (stacks, names)
 * moved to it from the profile before, from.
 */
void waits_next_slice(struct session *s, const struct profile *from, struct profile *to);

#endif
