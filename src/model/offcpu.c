/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * offcpu.c - pairing switch-outs with switch-ins; see offcpu.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "model/offcpu.h"
#include "util/alloc.h"

/* An open span: what is known so far of a thread's last switch-out. */
struct offcpu_open {
	struct offcpu_span s;
	bool have_stack; /* the context-switch sample came */
	bool have_out;	 /* the switch-out record came */
};

void offcpu_init(struct offcpu *o, uint64_t min_ns, offcpu_emit_fn emit, void *arg)
{
	memset(o, 0, sizeof(*o));
	hmap_init(&o->open);
	hmap_init(&o->exited);
	o->min_ns = min_ns;
	o->emit = emit;
	o->arg = arg;
}

void offcpu_release(struct offcpu *o)
{
	struct hmap_slot *s;

	for (size_t pos = 0; (s = hmap_next(&o->open, &pos));)
		free(hmap_ptr(s));
	hmap_release(&o->open);
	hmap_release(&o->exited);
}

/*
 * The open span of tid, made if it has none. A sample (stack) or a
 * switch-out that finds its half already there starts afresh: the
 * switch-in between was lost.
 */
static struct offcpu_open *open_of(struct offcpu *o, uint32_t tid, bool is_stack, uint64_t time)
{
	bool added;
	struct hmap_slot *slot = hmap_insert(&o->open, tid, &added);
	struct offcpu_open *op;

	if (added)
		hmap_set_ptr(slot, xcalloc(1, sizeof(*op)));
	op = hmap_ptr(slot);
	if (!added && (is_stack ? op->have_stack : op->have_out))
		memset(op, 0, sizeof(*op));
	if ((!op->have_stack && !op->have_out) || time < op->s.out)
		op->s.out = time;
	return op;
}

/* Seen of an exited thread's last switch-out: its sample, its record. */
#define EXITED_SAMPLE 1u
#define EXITED_RECORD 2u

/*
 * Whether tid exited; if so, part (EXITED_*) of its last switch-out is
 * noted, and once both are the tid is forgotten (a thread churner would
 * otherwise leave one entry per thread for the whole recording).
 */
static bool exited(struct offcpu *o, uint32_t tid, unsigned part)
{
	struct hmap_slot *slot = hmap_find(&o->exited, tid);

	if (!slot)
		return false;
	slot->val |= part;
	if (slot->val == (EXITED_SAMPLE | EXITED_RECORD))
		hmap_remove(&o->exited, tid, NULL);
	return true;
}

void offcpu_sample(struct offcpu *o, uint32_t pid, uint32_t tid, uint32_t cpu, uint64_t time,
		   uint32_t stack, uint32_t comm)
{
	struct offcpu_open *op;

	if (tid == 0 || exited(o, tid, EXITED_SAMPLE))
		return; /* the idle task, or a thread's last switch-out */
	op = open_of(o, tid, true, time);
	op->s.pid = pid;
	op->s.tid = tid;
	op->s.cpu = cpu;
	op->s.stack = stack;
	op->s.comm = comm;
	op->have_stack = true;
}

void offcpu_switch_out(struct offcpu *o, uint32_t pid, uint32_t tid, uint32_t cpu, uint64_t time,
		       bool preempted)
{
	struct offcpu_open *op;

	if (tid == 0 || exited(o, tid, EXITED_RECORD))
		return;
	op = open_of(o, tid, false, time);
	op->s.pid = pid;
	op->s.tid = tid;
	op->s.cpu = cpu;
	op->s.preempted = preempted;
	op->have_out = true;
	/* Runnable all along: a wake-up taken after its sample was of no sleep. */
	if (preempted && op->s.wake) {
		op->s.wake = 0;
		o->woken--;
	}
}

/* Hands on op's span ending at time, or counts why not. */
static void close_span(struct offcpu *o, struct offcpu_open *op, uint64_t time)
{
	if (!op->have_stack) {
		o->no_stack++;
		return;
	}
	op->s.in = time > op->s.out ? time : op->s.out;
	if (op->s.wake > op->s.in)
		op->s.wake = op->s.in;
	if (op->s.in - op->s.out < o->min_ns) {
		o->too_short++;
		return;
	}
	o->emitted++;
	o->emit(&op->s, o->arg);
}

void offcpu_each_open(struct offcpu *o, offcpu_ids_fn fn, void *arg)
{
	struct hmap_slot *slot;

	for (size_t pos = 0; (slot = hmap_next(&o->open, &pos));) {
		struct offcpu_open *op = hmap_ptr(slot);

		if (op->have_stack) {
			fn(&op->s.stack, true, arg);
			fn(&op->s.comm, false, arg);
		}
		if (op->s.wake) {
			fn(&op->s.waker_stack, true, arg);
			fn(&op->s.waker_comm, false, arg);
		}
	}
}

void offcpu_wakeup(struct offcpu *o, uint32_t tid, uint64_t time, uint32_t waker_pid,
		   uint32_t waker_tid, uint32_t waker_stack, uint32_t waker_comm)
{
	struct hmap_slot *slot = hmap_find(&o->open, tid);
	struct offcpu_open *op;

	o->wakeups++;
	if (!slot)
		return;
	op = hmap_ptr(slot);
	if (!(op->have_out || op->have_stack) || op->s.preempted || op->s.wake || time < op->s.out)
		return;
	op->s.wake = time;
	op->s.waker_pid = waker_pid;
	op->s.waker_tid = waker_tid;
	op->s.waker_stack = waker_stack;
	op->s.waker_comm = waker_comm;
	o->woken++;
}

bool offcpu_tracks(const struct offcpu *o, uint32_t tid)
{
	return hmap_find(&o->open, tid) || hmap_find(&o->exited, tid);
}

bool offcpu_switched_out(const struct offcpu *o, uint32_t tid)
{
	const struct hmap_slot *slot = hmap_find(&o->open, tid);

	return slot && ((const struct offcpu_open *)hmap_ptr(slot))->have_out;
}

bool offcpu_awaits_wakeup(const struct offcpu *o, uint32_t tid)
{
	const struct hmap_slot *slot = hmap_find(&o->open, tid);
	const struct offcpu_open *op = slot ? hmap_ptr(slot) : NULL;

	return op && (op->have_out || op->have_stack) && !op->s.preempted && !op->s.wake;
}

void offcpu_switch_in(struct offcpu *o, uint32_t tid, uint64_t time)
{
	uint64_t val;

	hmap_remove(&o->exited, tid, NULL); /* a new thread of a reused tid */
	if (!hmap_remove(&o->open, tid, &val))
		return;
	close_span(o, hmap_val_ptr(val), time);
	free(hmap_val_ptr(val));
}

/*
 * How long before the record of a switch its outgoing thread's stack
 * sample may have been taken and still be of that switch: the sample's
 * own copying, on a slow virtual machine, with a wide margin.
 */
#define PICK_WINDOW_NS 1000000

void offcpu_picked(struct offcpu *o, uint32_t prev_tid, uint32_t next_tid, uint32_t cpu,
		   uint64_t time)
{
	const struct hmap_slot *slot = prev_tid ? hmap_find(&o->open, prev_tid) : NULL;
	const struct offcpu_open *prev = slot ? hmap_ptr(slot) : NULL;
	uint64_t emitted = o->emitted;

	if (!next_tid || !hmap_find(&o->open, next_tid))
		return;
	if (prev && prev->have_stack && prev->s.cpu == cpu && prev->s.out <= time &&
	    time - prev->s.out < PICK_WINDOW_NS)
		time = prev->s.out;
	offcpu_switch_in(o, next_tid, time);
	o->picked += o->emitted - emitted;
}

void offcpu_exit(struct offcpu *o, uint32_t tid)
{
	uint64_t val;
	bool added;

	if (hmap_remove(&o->open, tid, &val))
		free(hmap_val_ptr(val));
	hmap_insert(&o->exited, tid, &added)->val = 0;
}

void offcpu_finish(struct offcpu *o, uint64_t time)
{
	struct hmap_slot *slot;

	for (size_t pos = 0; (slot = hmap_next(&o->open, &pos));) {
		close_span(o, hmap_ptr(slot), time);
		free(hmap_ptr(slot));
		slot->val = 0;
	}
	hmap_release(&o->open);
	hmap_init(&o->open);
}
