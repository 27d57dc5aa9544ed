/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record-threads.c - what a recording keeps of threads and of the time
 * they spend off the CPU: the threads sampled (written with their last
 * name when they exit or at the stop), the context-switch samples and
 * wake-ups (--off-cpu) fed to the pairing of spans, and the spans kept.
 * See recorder-int.h.
 */
#include "config.h"

#include <string.h>

#include "capture/decode.h"
#include "cmd/recorder-int.h"
#include "model/offcpu.h"
#include "model/proc.h"
#include "stack/stack.h"
#include "store/datafile.h"
#include "util/bytes.h"

/* Notes id as sampled (with other); returns whether it is new. */
bool recorder_note_sampled(struct hmap *h, uint32_t id, uint32_t other)
{
	bool added;

	hmap_insert(h, id, &added)->val = other;
	return added;
}

void recorder_note_process(struct recorder *r, uint32_t pid)
{
	struct process *p = model_process(&r->model, pid);

	if (!p->sampled) {
		p->sampled = true;
		r->nprocs++;
	}
}

/*
 * The string id of t's name, kept in t until the name changes (0, the
 * empty name, is looked up each time): no hashing of it per sample.
 */
uint32_t recorder_comm_id(struct recorder *r, struct thread *t)
{
	if (!t->comm_id)
		t->comm_id = strtab_add(&r->prof->str, t->comm);
	return t->comm_id;
}

/*
 * The string id of the path of t's cgroup, kept in t while its samples
 * give the same cgroup id: a cgroup id not found is looked for again at
 * the thread's next sample (cgroups_path walks at most once a second).
 * Where samples have none, the path is read once from /proc, found or
 * not: a process already gone is not read again at each sample.
 */
uint32_t recorder_cgroup_id(struct recorder *r, struct thread *t, const struct rec_sample *s)
{
	const char *path;
	char buf[4096];

	if (t->cgroup_known && (!r->cgroup_sampled || t->cgroup == s->cgroup))
		return t->cgroup_path;
	if (r->cgroup_sampled)
		path = cgroups_path(&r->cgroups, s->cgroup, s->time);
	else
		path = cgroup_of_pid(t->pid, buf, sizeof(buf)) ? buf : NULL;
	t->cgroup = s->cgroup;
	t->cgroup_known = path != NULL || !r->cgroup_sampled;
	t->cgroup_path = path ? strtab_add(&r->prof->str, path) : 0;
	return t->cgroup_path;
}

/*
 * A thread that was sampled (or waited, --off-cpu) goes into the file
 * with its last name: at once when it exits, so that threads that come
 * and go take no memory.
 */
void recorder_write_thread(struct recorder *r, struct thread *t)
{
	struct pm_thread out = {t->pid, t->tid, recorder_comm_id(r, t), t->cgroup_path};

	datafile_add_thread(&r->out, &out);
}

void recorder_add_thread(struct recorder *r, uint32_t pid, uint32_t tid)
{
	recorder_write_thread(r, model_thread(&r->model, pid, tid));
}

/* Thread tid of pid exited: it is written down if sampled, and forgotten later. */
void recorder_thread_exited(struct recorder *r, uint32_t pid, uint32_t tid, uint64_t time)
{
	if (hmap_remove(&r->sampled_tids, tid, NULL))
		recorder_add_thread(r, pid, tid);
	model_exit(&r->model, pid, tid, time);
}

/* A context-switch sample (--off-cpu): the stack its thread is switched out at. */
void recorder_apply_switch(struct recorder *r, const struct rec_sample *s, uint16_t misc,
			   const void *ahead)
{
	struct thread *t = model_thread(&r->model, s->pid, s->tid);

	if (s->tid == 0)
		return; /* the idle task of a whole-system recording */
	recorder_cgroup_id(r, t, s);
	offcpu_sample(&r->offcpu, s->pid, s->tid, s->cpu, s->time,
		      stacker_add_ahead(&r->stk, s, misc, ahead), recorder_comm_id(r, t));
}

void recorder_apply_switch_record(struct recorder *r, const struct sample_id *sid,
				  const struct rec_switch *sw)
{
	/*
	 * Without -a, CPU-wide records come from the dummy event opened per
	 * CPU where allowed (attach_open_switch_wide), of every thread; the
	 * targets' events then have no records of their own (they would
	 * repeat these), and the targets' switches are those of threads
	 * whose spans are open. Else the targets' records are their own.
	 */
	bool own = !sw->cpu_wide || r->o->system_wide ||
		   (r->att.has_switch_wide && offcpu_tracks(&r->offcpu, sid->tid));

	if (own && sw->out)
		offcpu_switch_out(&r->offcpu, sid->pid, sid->tid, sid->cpu, sid->time,
				  sw->preempted);
	else if (own)
		offcpu_switch_in(&r->offcpu, sid->tid, sid->time);
	if (sw->cpu_wide && sw->out)
		offcpu_picked(&r->offcpu, sid->tid, sw->next_prev_tid, sid->cpu, sid->time);
}

/*
 * A wake-up (sched_waking, taken in the waker's context): the woken
 * thread's span gets its waker. The idle task's are interrupts'.
 */
void recorder_apply_wake(struct recorder *r, const struct rec_sample *s, uint16_t misc,
			 const void *ahead)
{
	uint32_t stack, comm, woken;

	if (!s->raw || s->raw_size < r->wake_pid_off + 4)
		return;
	/* Most wake-ups a CPU-wide event sees are of threads not recorded. */
	woken = load_u32(s->raw + r->wake_pid_off);
	if (!offcpu_awaits_wakeup(&r->offcpu, woken))
		return;
	stack = stacker_add_ahead(&r->stk, s, misc, ahead);
	if (s->tid == 0)
		comm = strtab_add(&r->prof->str, "swapper");
	else
		comm = recorder_comm_id(r, model_thread(&r->model, s->pid, s->tid));
	offcpu_wakeup(&r->offcpu, woken, s->time, s->pid, s->tid, stack, comm);
}

/* A paired off-CPU span goes into the profile. */
void recorder_keep_offcpu(const struct offcpu_span *s, void *arg)
{
	struct recorder *r = arg;
	struct pm_offcpu o;

	memset(&o, 0, sizeof(o));
	o.time = s->out > r->start_ns ? s->out - r->start_ns : 0;
	o.duration = s->in - s->out;
	o.pid = s->pid;
	o.tid = s->tid;
	o.cpu = s->cpu;
	o.stack = s->stack;
	o.comm = s->comm;
	o.flags = s->preempted ? PM_OFFCPU_PREEMPTED : 0;
	/* To the file at once, as samples: spans come by the thousand a second. */
	datafile_add_offcpu(&r->out, &o);
	r->nspans++;
	if (r->wakeups) {
		struct pm_wakeup w = {0};

		if (s->wake) {
			w.delay = s->wake - s->out;
			w.pid = s->waker_pid;
			w.tid = s->waker_tid;
			w.stack = s->waker_stack;
			w.comm = s->waker_comm;
			w.flags = PM_WAKEUP_SEEN;
		}
		datafile_add_wakeup(&r->out, &w);
	}
	/* A thread that only waited goes into the profile's threads and the count too. */
	if (recorder_note_sampled(&r->sampled_tids, s->tid, s->pid))
		r->nthreads++;
	recorder_note_process(r, s->pid);
}

/* The threads sampled and still alive at the stop (the others went at their exit). */
void recorder_add_threads(struct recorder *r)
{
	const struct hmap_slot *s;

	for (size_t pos = 0; (s = hmap_next(&r->sampled_tids, &pos));)
		recorder_add_thread(r, (uint32_t)s->val, (uint32_t)s->key);
}
