/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * threads.c - what a recording keeps of threads and processes: their
 * names' and cgroups' string ids, the threads sampled (written with
 * their last name when they exit or at the stop) and the counts; see
 * threads-int.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "session/threads-int.h"
#include "util/alloc.h"

void threads_init(struct sess_threads *th)
{
	memset(th, 0, sizeof(*th));
	hmap_init_ids(&th->by_tid);
	hmap_init_ids(&th->procs);
	hmap_init_ids(&th->sampled_tids);
	cgroups_init(&th->cgroups);
}

void threads_release(struct sess_threads *th)
{
	struct hmap_slot *s;

	for (size_t pos = 0; (s = hmap_next(&th->by_tid, &pos));)
		free(hmap_ptr(s));
	hmap_release(&th->by_tid);
	hmap_release(&th->procs);
	hmap_release(&th->sampled_tids);
	cgroups_release(&th->cgroups);
}

/*
 * The entry of model thread t, made (or made anew, for a thread of
 * another serial: a tid taken again) when needed.
 */
static struct sess_thread *entry_of(struct sess_threads *th, const struct thread *t)
{
	struct sess_recent *r = &th->recent[t->tid % THREADS_RECENT];
	struct sess_thread *e = r->e && r->tid == t->tid ? r->e : NULL;
	struct hmap_slot *s;
	bool added;

	if (!e) {
		s = hmap_insert(&th->by_tid, t->tid, &added);
		if (added)
			s->val = (uint64_t)(uintptr_t)xcalloc(1, sizeof(*e));
		e = hmap_ptr(s);
		r->e = e;
		r->tid = t->tid;
	}
	if (e->serial != t->serial) {
		memset(e, 0, sizeof(*e));
		e->serial = t->serial;
	}
	return e;
}

/*
 * Kept until the name changes (comm_gen); no hashing of the name per
 * sample.
 */
uint32_t threads_comm_id(struct sess_threads *th, const struct thread *t, struct profile *p)
{
	struct sess_thread *e = entry_of(th, t);

	if (e->comm_gen != t->comm_gen || !e->comm_id) {
		e->comm_id = strtab_add(&p->str, t->comm);
		e->comm_gen = t->comm_gen;
	}
	return e->comm_id;
}

/*
 * Kept while the thread's samples give the same cgroup id: a cgroup id
 * not found is looked for again at the thread's next sample
 * (cgroups_path walks at most once a second). Where samples have none,
 * the path is read once from /proc, found or not: a process already gone
 * is not read again at each sample.
 */
uint32_t threads_cgroup_id(struct sess_threads *th, const struct thread *t,
			   const struct rec_sample *s, bool in_sample, struct profile *p)
{
	struct sess_thread *e = entry_of(th, t);
	const char *path;
	char buf[4096];

	if (e->cgroup_known && (!in_sample || e->cgroup == s->cgroup))
		return e->cgroup_path;
	if (in_sample)
		path = cgroups_path(&th->cgroups, s->cgroup, s->time);
	else
		path = cgroup_of_pid(t->pid, buf, sizeof(buf)) ? buf : NULL;
	e->cgroup = s->cgroup;
	e->cgroup_known = path != NULL || !in_sample;
	e->cgroup_path = path ? strtab_add(&p->str, path) : 0;
	return e->cgroup_path;
}

/* Thread t to out, with its last name. */
static void write_thread(struct sess_threads *th, const struct thread *t, struct sess_output *out)
{
	struct sess_thread *e = entry_of(th, t);
	struct pm_thread rec = {t->pid, t->tid, threads_comm_id(th, t, out->prof), e->cgroup_path};

	output_add_thread(out, &rec);
}

/*
 * Counts process pid as sampled, once while the model knows it: a
 * process whose pid another takes later is another (no table of every
 * pid ever sampled grows with the recording).
 */
static void note_process(struct sess_threads *th, struct model *m, uint32_t pid)
{
	const struct process *proc = model_process(m, pid);
	bool added;
	struct hmap_slot *s = hmap_insert(&th->procs, pid, &added);

	if (added || s->val != proc->serial) {
		s->val = proc->serial;
		th->nprocs++;
	}
}

void threads_sampled(struct sess_threads *th, struct model *m, const struct thread *t,
		     struct sess_output *out)
{
	struct sess_thread *e = entry_of(th, t);
	bool added;

	if (e->sampled)
		return;
	e->sampled = true;
	if (t->exited) {
		/* First sampled on its way out: written down now, its name final. */
		write_thread(th, t, out);
		th->nthreads++;
	} else {
		hmap_insert(&th->sampled_tids, t->tid, &added)->val = t->pid;
		th->nthreads += added;
	}
	note_process(th, m, t->pid);
}

void threads_exited(struct sess_threads *th, struct model *m, uint32_t pid, uint32_t tid,
		    uint64_t time, struct sess_output *out)
{
	if (hmap_remove(&th->sampled_tids, tid, NULL))
		write_thread(th, model_thread(m, pid, tid), out);
	model_exit(m, pid, tid, time);
}

void threads_write_alive(struct sess_threads *th, struct model *m, struct sess_output *out)
{
	const struct hmap_slot *s;

	for (size_t pos = 0; (s = hmap_next(&th->sampled_tids, &pos));)
		write_thread(th, model_thread(m, (uint32_t)s->val, (uint32_t)s->key), out);
}

void threads_next_slice(struct sess_threads *th, const struct profile *from, struct profile *to)
{
	struct hmap_slot *s;

	for (size_t pos = 0; (s = hmap_next(&th->by_tid, &pos));) {
		struct sess_thread *e = hmap_ptr(s);

		e->comm_gen = 0; /* made again from its name when next needed */
		if (e->cgroup_known && e->cgroup_path)
			e->cgroup_path =
				strtab_add(&to->str, strtab_get(&from->str, e->cgroup_path));
	}
}

void threads_forget(uint32_t id, bool proc, void *arg)
{
	struct sess_threads *th = arg;
	uint64_t val;

	if (proc) {
		hmap_remove(&th->procs, id, NULL);
		return;
	}
	if (th->recent[id % THREADS_RECENT].tid == id)
		th->recent[id % THREADS_RECENT].e = NULL;
	if (hmap_remove(&th->by_tid, id, &val))
		free((void *)(uintptr_t)val);
}

void threads_cgroup_made(struct sess_threads *th, uint64_t id, const char *path)
{
	cgroups_add(&th->cgroups, id, path);
}

void threads_cgroups_walk(struct sess_threads *th)
{
	cgroups_walk(&th->cgroups);
}
