/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * waits.c - the time threads spend off the CPU (--off-cpu): the
 * context-switch samples, switch records and wake-ups fed to the pairing
 * of spans, and each span kept written to the file; see waits-int.h.
 */
#include "config.h"

#include <string.h>

#include "session/session-int.h"
#include "util/bytes.h"

/* A paired off-CPU span (with its wake-up) goes to the file. */
static void keep_span(const struct offcpu_span *span, void *arg)
{
	struct session *s = arg;
	struct pm_wakeup w = {0};
	struct pm_offcpu o;

	memset(&o, 0, sizeof(o));
	o.time = span->out > s->start_ns ? span->out - s->start_ns : 0;
	o.duration = span->in - span->out;
	o.pid = span->pid;
	o.tid = span->tid;
	o.cpu = span->cpu;
	o.stack = span->stack;
	o.comm = span->comm;
	o.flags = span->preempted ? PM_OFFCPU_PREEMPTED : 0;
	if (span->wake) {
		w.delay = span->wake - span->out;
		w.pid = span->waker_pid;
		w.tid = span->waker_tid;
		w.stack = span->waker_stack;
		w.comm = span->waker_comm;
		w.flags = PM_WAKEUP_SEEN;
	}
	/* To the file at once, as samples: spans come by the thousand a second. */
	output_add_span(&s->out, &o, s->ev.wakeups ? &w : NULL);
	s->wt.nspans++;
	/* A thread that only waited goes into the profile's threads and the count too. */
	threads_sampled(&s->th, &s->model, model_thread(&s->model, span->pid, span->tid), &s->out);
}

void waits_init(struct sess_waits *w, uint64_t min_ns, struct session *s)
{
	memset(w, 0, sizeof(*w));
	offcpu_init(&w->offcpu, min_ns, keep_span, s);
}

void waits_release(struct sess_waits *w)
{
	offcpu_release(&w->offcpu);
}

void waits_switch_sample(struct session *s, const struct rec_sample *smp, uint16_t misc,
			 const void *ahead)
{
	const struct thread *t = model_thread(&s->model, smp->pid, smp->tid);

	if (smp->tid == 0)
		return; /* the idle task of a whole-system recording */
	threads_cgroup_id(&s->th, t, smp, s->ev.cgroup_sampled, s->out.prof);
	offcpu_sample(&s->wt.offcpu, smp->pid, smp->tid, smp->cpu, smp->time,
		      stacker_add_ahead(&s->stk, smp, misc, ahead),
		      threads_comm_id(&s->th, t, s->out.prof));
}

void waits_switch_record(struct session *s, const struct sample_id *sid,
			 const struct rec_switch *sw)
{
	/*
	 * Without -a, CPU-wide records come from the dummy event opened per
	 * CPU where allowed (attach_open_switch_wide), of every thread; the
	 * targets' events then have no records of their own (they would
	 * repeat these), and the targets' switches are those of threads
	 * whose spans are open. Else the targets' records are their own.
	 */
	bool own = !sw->cpu_wide || s->o->system_wide ||
		   (s->ev.att.has_switch_wide && offcpu_tracks(&s->wt.offcpu, sid->tid));

	/* The switch tracepoint's sample, at the pick, already opened the span. */
	if (own && sw->out && !(s->ev.switch_tp && offcpu_switched_out(&s->wt.offcpu, sid->tid)))
		offcpu_switch_out(&s->wt.offcpu, sid->pid, sid->tid, sid->cpu, sid->time,
				  sw->preempted);
	else if (own && !sw->out)
		offcpu_switch_in(&s->wt.offcpu, sid->tid, sid->time);
	if (sw->cpu_wide && sw->out)
		offcpu_picked(&s->wt.offcpu, sid->tid, sw->next_prev_tid, sid->cpu, sid->time);
}

void waits_switch_tp(struct session *s, const struct rec_sample *smp)
{
	const struct sess_events *e = &s->ev;
	uint32_t prev, next;
	uint64_t state;

	if (!smp->raw || smp->raw_size < e->sw_prev_off + 4 || smp->raw_size < e->sw_next_off + 4 ||
	    smp->raw_size < e->sw_state_off + e->sw_state_size)
		return;
	prev = load_u32(smp->raw + e->sw_prev_off);
	next = load_u32(smp->raw + e->sw_next_off);
	state = e->sw_state_size == 8 ? load_u64(smp->raw + e->sw_state_off)
				      : load_u32(smp->raw + e->sw_state_off);
	/*
	 * A target switched out here, at the pick: its span opens before its
	 * stack sample, so that a wake-up from another CPU meanwhile counts.
	 * The state's low byte is the task's (S, D, ... I); none set, or only
	 * the bit above (preempted), is runnable.
	 */
	if (prev && prev == smp->tid && events_is_target(e, prev))
		offcpu_switch_out(&s->wt.offcpu, smp->pid, prev, smp->cpu, smp->time,
				  (state & 0xff) == 0);
	offcpu_picked(&s->wt.offcpu, prev, next, smp->cpu, smp->time);
}

/*
 * A trace entry's flags: the event fired in a hardware interrupt's handler
 * (or an NMI's), whatever thread it interrupted.
 */
#define TRACE_FLAG_HARDIRQ 0x08
#define TRACE_FLAG_NMI	   0x40

static bool in_interrupt(const struct session *s, const struct rec_sample *smp)
{
	unsigned off = s->ev.wake_flags_off;

	return off < smp->raw_size && (smp->raw[off] & (TRACE_FLAG_HARDIRQ | TRACE_FLAG_NMI));
}

/* The idle task's wake-ups are interrupts'. */
void waits_wake(struct session *s, const struct rec_sample *smp, uint16_t misc, const void *ahead)
{
	uint32_t stack, comm, woken;

	s->wt.wake_samples++;
	if (!smp->raw || smp->raw_size < s->ev.wake_pid_off + 4)
		return;
	/* Most wake-ups a CPU-wide event sees are of threads not recorded. */
	woken = load_u32(smp->raw + s->ev.wake_pid_off);
	if (!offcpu_awaits_wakeup(&s->wt.offcpu, woken))
		return;
	if (in_interrupt(s, smp)) {
		/* Not the interrupted thread's doing: where in the kernel, and no user stack. */
		struct rec_sample k = *smp;

		k.nr = 0;
		k.regs_abi = 0;
		k.stack_size = k.stack_dyn_size = 0;
		offcpu_wakeup(&s->wt.offcpu, woken, smp->time, 0, 0,
			      stacker_add_ahead(&s->stk, &k, misc, NULL),
			      strtab_add(&s->out.prof->str, "[interrupt]"));
		return;
	}
	stack = stacker_add_ahead(&s->stk, smp, misc, ahead);
	if (smp->tid == 0)
		comm = strtab_add(&s->out.prof->str, "swapper");
	else
		comm = threads_comm_id(&s->th, model_thread(&s->model, smp->pid, smp->tid),
				       s->out.prof);
	offcpu_wakeup(&s->wt.offcpu, woken, smp->time, smp->pid, smp->tid, stack, comm);
}

void waits_exit(struct session *s, uint32_t tid)
{
	offcpu_exit(&s->wt.offcpu, tid);
}

void waits_finish(struct session *s, uint64_t end)
{
	offcpu_finish(&s->wt.offcpu, end);
}

/* The profiles of a slice change, while what refers to the one before moves. */
struct carry {
	struct session *s;
	const struct profile *from;
	struct profile *to;
};

/* An id an open off-CPU span holds, moved to the next slice's profile. */
static void carry_span_id(uint32_t *id, bool is_stack, void *arg)
{
	struct carry *c = arg;

	*id = is_stack ? stacker_carry_stack(&c->s->stk, c->from, *id)
		       : strtab_add(&c->to->str, strtab_get(&c->from->str, *id));
}

void waits_next_slice(struct session *s, const struct profile *from, struct profile *to)
{
	struct carry c = {s, from, to};

	offcpu_each_open(&s->wt.offcpu, carry_span_id, &c);
}
