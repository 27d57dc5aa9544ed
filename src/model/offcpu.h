/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * offcpu.h - a thread's switch-outs paired with its next switch-in, into
 * the spans it spent off the CPU.
 *
 * What is fed, in time order, per thread: the sample a context-switch
 * event takes as the thread is switched out (its stack), the switch-out
 * record (whether it was preempted) and the switch-in record. A span is
 * handed on when the switch-in arrives, if its switch-out had a stack and
 * it lasted at least min_ns; spans still open at the stop end there.
 *
 * A wake-up of the thread (the scheduler's sched_waking, taken in the
 * waker's context) between its switch-out and switch-in splits a span
 * that went to sleep: sleeping until the wake-up, runnable (waiting for
 * a CPU) from it. The first wake-up counts; a preempted span (switched
 * out while runnable) has none, and one of a thread with no open span
 * is left out. A span opens at its sample, taken before its switch-out
 * record is written: a wake-up from another CPU may come in between
 * (while the sample's stack is copied) and counts, unless the record
 * then says the thread was preempted.
 *
 * Invariant: a thread has at most one open span; a new switch-out of a
 * thread whose span never saw its switch-in (records lost) replaces it.
 * Used by the recording thread only.
 */
#ifndef PERFMINI_OFFCPU_H
#define PERFMINI_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hmap.h"

struct offcpu_span {
	uint32_t pid, tid, cpu;
	uint64_t out, in; /* switch-out and switch-in times, ns */
	uint32_t stack;	  /* the caller's stack id, from offcpu_sample */
	uint32_t comm;	  /* the caller's name id, from offcpu_sample */
	bool preempted;
	/* The wake-up that made it runnable (offcpu_wakeup); wake 0 when none was seen. */
	uint64_t wake;
	uint32_t waker_pid, waker_tid, waker_stack, waker_comm;
};

typedef void (*offcpu_emit_fn)(const struct offcpu_span *s, void *arg);

struct offcpu {
	struct hmap open; /* tid -> struct offcpu_open * */
	/*
	 * tid -> EXITED_* bits: threads that exited, until both parts of
	 * their last switch-out (its sample and its record) have been seen
	 * or the tid comes back.
	 */
	struct hmap exited;
	uint64_t min_ns;
	offcpu_emit_fn emit;
	void *arg;
	uint64_t emitted, too_short, no_stack; /* spans handed on, and left out */
	uint64_t wakeups, woken;	       /* wake-ups seen, and those that ended a sleep */
	uint64_t picked;		       /* spans handed on that ended at their pick */
};

void offcpu_init(struct offcpu *o, uint64_t min_ns, offcpu_emit_fn emit, void *arg);
void offcpu_release(struct offcpu *o);
/* The context-switch sample of tid at time: the stack it is switched out at. */
void offcpu_sample(struct offcpu *o, uint32_t pid, uint32_t tid, uint32_t cpu, uint64_t time,
		   uint32_t stack, uint32_t comm);
/* The switch-out record of tid. */
void offcpu_switch_out(struct offcpu *o, uint32_t pid, uint32_t tid, uint32_t cpu, uint64_t time,
		       bool preempted);
/* The switch-in record of tid: its open span, if any, ends at time. */
void offcpu_switch_in(struct offcpu *o, uint32_t tid, uint64_t time);
/*
 * A wake-up of tid at time, by thread waker_tid of waker_pid at its stack
 * (a stack id) under its name (a string id).
 */
void offcpu_wakeup(struct offcpu *o, uint32_t tid, uint64_t time, uint32_t waker_pid,
		   uint32_t waker_tid, uint32_t waker_stack, uint32_t waker_comm);
/*
 * Whether tid's switch records count: it has an open span (its stack
 * sample came) or has exited (its last switch-out is awaited). CPU-wide
 * records of other threads do not.
 */
bool offcpu_tracks(const struct offcpu *o, uint32_t tid);
/* Whether tid's open span has its switch-out (offcpu_switch_out). */
bool offcpu_switched_out(const struct offcpu *o, uint32_t tid);
/*
 * Whether tid sleeps, switched out (its sample or its record came) and
 * not woken yet: a wake-up of it would count.
 */
bool offcpu_awaits_wakeup(const struct offcpu *o, uint32_t tid);
/*
 * A CPU-wide switch-out record: on cpu at time, prev_tid (0: the idle
 * task) was switched out for next_tid. next_tid's open span ends where
 * the kernel starts counting its time on the CPU, once it is picked:
 * at prev_tid's switch-out if it is recorded (its stack sample, taken
 * as the switch begins), else at time; not at next_tid's own switch-in
 * record, written once the switch, the perf events' share of it
 * included (prev_tid's stack copy, next_tid's events), is done.
 */
void offcpu_picked(struct offcpu *o, uint32_t prev_tid, uint32_t next_tid, uint32_t cpu,
		   uint64_t time);
/*
 * Hands fn each stack id (is_stack) and name id that the open spans hold,
 * to change: a recording's next slice numbers them anew.
 */
typedef void (*offcpu_ids_fn)(uint32_t *id, bool is_stack, void *arg);
void offcpu_each_open(struct offcpu *o, offcpu_ids_fn fn, void *arg);
/* Thread tid exited: its last switch-out (after the exit record) opens no span. */
void offcpu_exit(struct offcpu *o, uint32_t tid);
/* The stop: every open span ends at time. */
void offcpu_finish(struct offcpu *o, uint64_t time);

#endif
