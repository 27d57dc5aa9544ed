/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * aggregate.c - the report filters and the grouping of samples into
 * (root, stack) with counts and period sums; see aggregate.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report/aggregate.h"
#include "report/inline-calls.h"
#include "util/alloc.h"
#include "util/hash.h"
#include "util/hmap.h"
#include "util/sbuf.h"
#include "util/utf8.h"

/* canon_of values besides canon + 1. */
#define CANON_UNSEEN  0
#define CANON_DROPPED UINT32_MAX

/* A filtered stack, before it is grouped by root (and thread). */
struct canon {
	uint32_t off, depth;
};

struct builder {
	const struct profile *p;
	const struct report_opts *o;
	unsigned flags;
	struct aggregate *a;
	struct canon *canons;
	size_t ncanons, canons_cap;
	struct hmap canon_index; /* hash of the frames -> index into canons */
	uint32_t *canon_of;	 /* profile stack -> canon + 1, or CANON_* */
	struct strtab roots;	 /* root names, interned */
	struct hmap root_index;	 /* offset in roots -> index into a->roots */
	struct hmap group_index; /* hash of the key -> index into a->stacks */
	struct hmap names;	 /* pid or tid -> profile string */
	struct hmap root_cache;	 /* comm (or pid, or tid) -> root */
	size_t stacks_cap, frames_cap, roots_cap;
	uint32_t *scratch;
	size_t scratch_cap;
	struct sbuf name;
};

static bool id_listed(const uint32_t *ids, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

bool aggregate_selects(const struct report_opts *o, const struct profile *p,
		       const struct pm_sample *s)
{
	if (o->npids && !id_listed(o->pids, o->npids, s->pid))
		return false;
	if (o->ntids && !id_listed(o->tids, o->ntids, s->tid))
		return false;
	if (o->has_start && s->time < o->start_ns)
		return false;
	if (o->has_end && s->time >= o->end_ns)
		return false;
	if (o->ncomms) {
		const char *comm = strtab_get(&p->str, s->comm);
		size_t i;

		for (i = 0; i < o->ncomms; i++)
			if (strcmp(o->comms[i], comm) == 0)
				break;
		if (i == o->ncomms)
			return false;
	}
	if (o->ncgroups && !aggregate_cgroup_listed(o, strtab_get(&p->str, s->cgroup)))
		return false;
	return true;
}

bool aggregate_cgroup_listed(const struct report_opts *o, const char *path)
{
	for (size_t i = 0; i < o->ncgroups; i++) {
		const char *want = o->cgroups[i];
		size_t n = strlen(want);

		/* "/" is every cgroup; "/a" is /a and /a/b, not /ab. */
		if (strncmp(path, want, n) == 0 &&
		    (path[n] == '\0' || path[n] == '/' || (n && want[n - 1] == '/')))
			return true;
	}
	return false;
}

bool aggregate_filtered(const struct report_opts *o)
{
	return o->npids || o->ntids || o->ncomms || o->ncgroups || o->has_start || o->has_end ||
	       o->no_kernel || o->kernel_only ||
	       (o->sample_type != REPORT_CPU && o->offcpu_state != REPORT_STATE_ANY);
}

/* Starts option opt: a space before it unless it is the first since start. */
static void add_opt(struct sbuf *b, size_t start, const char *opt)
{
	if (b->len > start)
		sbuf_adds(b, " ");
	sbuf_adds(b, opt);
}

static void add_ids(struct sbuf *b, size_t start, const char *opt, const uint32_t *ids, size_t n)
{
	if (!n)
		return;
	add_opt(b, start, opt);
	for (size_t i = 0; i < n; i++)
		sbuf_addf(b, "%c%u", i ? ',' : ' ', ids[i]);
}

void aggregate_describe(const struct report_opts *o, struct sbuf *b)
{
	size_t start = b->len;

	add_ids(b, start, "--pid", o->pids, o->npids);
	add_ids(b, start, "--tid", o->tids, o->ntids);
	if (o->ncomms)
		add_opt(b, start, "--comm ");
	for (size_t i = 0; i < o->ncomms; i++) {
		if (i)
			sbuf_adds(b, ",");
		sbuf_add_sanitized(b, o->comms[i]);
	}
	if (o->ncgroups)
		add_opt(b, start, "--cgroup ");
	for (size_t i = 0; i < o->ncgroups; i++) {
		if (i)
			sbuf_adds(b, ",");
		sbuf_add_sanitized(b, o->cgroups[i]);
	}
	if (o->has_start || o->has_end) {
		add_opt(b, start, "--time ");
		if (o->has_start)
			sbuf_addf(b, "%g", (double)o->start_ns / 1e9);
		sbuf_adds(b, ",");
		if (o->has_end)
			sbuf_addf(b, "%g", (double)o->end_ns / 1e9);
	}
	if (o->no_kernel)
		add_opt(b, start, "--no-kernel");
	if (o->kernel_only)
		add_opt(b, start, "--kernel-only");
	if (o->sample_type != REPORT_CPU && o->offcpu_state != REPORT_STATE_ANY) {
		static const char *const states[] = {
			[REPORT_STATE_BLOCKED] = "--off-cpu-state=blocked",
			[REPORT_STATE_PREEMPTED] = "--off-cpu-state=preempted",
			[REPORT_STATE_SLEEPING] = "--off-cpu-state=sleeping",
			[REPORT_STATE_RUNNABLE] = "--off-cpu-state=runnable",
		};

		add_opt(b, start, states[o->offcpu_state]);
	}
}

/*
 * The canonical filtered stack of profile stack sid, interned by content;
 * PM_NONE when --kernel-only leaves no frame.
 */
struct canon_key {
	const struct builder *b;
	uint32_t n; /* frames in b->scratch */
};

static bool same_canon(uint64_t val, const void *arg)
{
	const struct canon_key *k = arg;
	const struct canon *c = &k->b->canons[val];

	return c->depth == k->n && (k->n == 0 || memcmp(k->b->a->frames + c->off, k->b->scratch,
							k->n * sizeof(uint32_t)) == 0);
}

/*
 * --merge-inline: leaves out of frames[0, n) (leaf first) each frame whose
 * call from the next one out was inlined somewhere, so that it counts as
 * that caller; the outermost frame stays. Returns the frames kept.
 */
static int merge_inlined(const struct inline_calls *c, const struct profile *p, uint32_t *frames,
			 int n)
{
	int kept = 0;

	/* frames[i + 1] is read before anything is written over it: kept <= i. */
	for (int i = 0; i < n; i++)
		if (i + 1 == n || !inline_calls_merges(c, p, frames[i], frames[i + 1]))
			frames[kept++] = frames[i];
	return kept;
}

int aggregate_stack_frames(const struct report_opts *o, const struct profile *p, uint32_t sid,
			   uint32_t *frames)
{
	const struct pm_stack *st = &p->stacks[sid];
	int n = 0;

	for (uint32_t d = 0; d < st->depth; d++) {
		uint32_t f = p->stack_frames[st->off + d];
		bool kernel = p->frames[f].flags & PM_FRAME_KERNEL;

		if ((o->no_kernel && kernel) || (o->kernel_only && !kernel))
			continue;
		frames[n++] = f;
	}
	if (o->inlined)
		n = merge_inlined(o->inlined, p, frames, n);
	return n == 0 && o->kernel_only ? -1 : n;
}

static uint32_t canon_stack(struct builder *b, uint32_t sid)
{
	const struct profile *p = b->p;
	const struct pm_stack *st = &p->stacks[sid];
	struct aggregate *a = b->a;
	struct canon_key k = {b, 0};
	struct hmap_slot *slot;
	uint32_t n;
	int kept;
	bool added;

	if (b->canon_of[sid] == CANON_DROPPED)
		return PM_NONE;
	if (b->canon_of[sid] != CANON_UNSEEN)
		return b->canon_of[sid] - 1;
	xgrow(&b->scratch, &b->scratch_cap, st->depth + 1, sizeof(*b->scratch));
	kept = aggregate_stack_frames(b->o, p, sid, b->scratch);
	if (kept < 0) {
		b->canon_of[sid] = CANON_DROPPED;
		return PM_NONE;
	}
	n = (uint32_t)kept;
	k.n = n;
	slot = hmap_intern(&b->canon_index, hash_bytes(b->scratch, n * sizeof(uint32_t)),
			   same_canon, &k, &added);
	if (!added) {
		b->canon_of[sid] = (uint32_t)slot->val + 1;
		return (uint32_t)slot->val;
	}
	if (n) {
		xgrow(&a->frames, &b->frames_cap, a->nframes + n, sizeof(*a->frames));
		memcpy(a->frames + a->nframes, b->scratch, n * sizeof(uint32_t));
	}
	xgrow(&b->canons, &b->canons_cap, b->ncanons + 1, sizeof(*b->canons));
	b->canons[b->ncanons].off = (uint32_t)a->nframes;
	b->canons[b->ncanons].depth = n;
	a->nframes += n;
	slot->val = b->ncanons++;
	b->canon_of[sid] = (uint32_t)slot->val + 1;
	return (uint32_t)slot->val;
}

/*
 * The names --per-pid and --per-tid give their roots: for a process, the
 * last name of its main thread; for a thread, its last name; else the name
 * of its first sample, else of its first off-CPU span. (The same whatever
 * the filters select.)
 */
static void collect_names(struct builder *b)
{
	const struct profile *p = b->p;
	bool per_pid = b->o->root == REPORT_ROOT_PID;

	for (size_t i = 0; i < p->nthreads; i++) {
		const struct pm_thread *t = &p->threads[i];
		struct hmap_slot *slot;
		bool added;

		if (per_pid && t->tid != t->pid)
			continue;
		slot = hmap_insert(&b->names, t->tid, &added);
		if (added)
			slot->val = t->comm;
	}
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pm_sample *s = &p->samples[i];
		uint32_t id = per_pid ? s->pid : s->tid;
		struct hmap_slot *slot;
		bool added;

		slot = hmap_insert(&b->names, id, &added);
		if (added)
			slot->val = s->comm;
	}
	for (size_t i = 0; i < p->noffcpu; i++) {
		const struct pm_offcpu *x = &p->offcpu[i];
		struct hmap_slot *slot;
		bool added;

		slot = hmap_insert(&b->names, per_pid ? x->pid : x->tid, &added);
		if (added)
			slot->val = x->comm;
	}
}

/* The index of the root of sample s in a->roots, added if new. */
static uint32_t root_of(struct builder *b, const struct pm_sample *s)
{
	const struct profile *p = b->p;
	struct aggregate *a = b->a;
	struct hmap_slot *slot, *cached;
	uint32_t off, by;
	bool added;

	/* A root depends on the comm or cgroup alone, or on the pid or tid alone, or on nothing. */
	if (b->o->root == REPORT_ROOT_COMM)
		by = s->comm;
	else if (b->o->root == REPORT_ROOT_CGROUP)
		by = s->cgroup;
	else if (b->o->root == REPORT_ROOT_NONE)
		by = 0;
	else
		by = b->o->root == REPORT_ROOT_PID ? s->pid : s->tid;
	cached = hmap_insert(&b->root_cache, by, &added);
	if (!added)
		return (uint32_t)cached->val;
	sbuf_reset(&b->name);
	if (b->o->root == REPORT_ROOT_COMM) {
		sbuf_adds(&b->name, strtab_get(&p->str, s->comm));
	} else if (b->o->root == REPORT_ROOT_CGROUP) {
		sbuf_adds(&b->name, s->cgroup ? strtab_get(&p->str, s->cgroup) : "[unknown]");
	} else if (b->o->root != REPORT_ROOT_NONE) {
		uint32_t id = b->o->root == REPORT_ROOT_PID ? s->pid : s->tid;
		const struct hmap_slot *n = hmap_find(&b->names, id);

		sbuf_addf(&b->name, "%s-%u", strtab_get(&p->str, n ? (uint32_t)n->val : s->comm),
			  id);
	}
	off = strtab_addn(&b->roots, b->name.buf, b->name.len);
	slot = hmap_insert(&b->root_index, off, &added);
	if (added) {
		xgrow(&a->roots, &b->roots_cap, a->nroots + 1, sizeof(*a->roots));
		a->roots[a->nroots] = xstrdup(strtab_get(&b->roots, off));
		slot->val = a->nroots++;
	}
	cached->val = slot->val;
	return (uint32_t)slot->val;
}

static uint64_t group_hash(uint32_t root, uint32_t canon, const struct pm_sample *s, bool thread,
			   bool cgroup, uint32_t waker)
{
	uint64_t h = hash_u64((uint64_t)root << 32 | canon);

	if (thread)
		h = hash_u64(h ^ ((uint64_t)s->pid << 32 | s->tid)) ^ hash_u64(s->comm + 1ULL);
	if (cgroup)
		h = hash_u64(h ^ s->cgroup);
	return waker ? hash_u64(h ^ waker) : h;
}

struct group_key {
	const struct builder *b;
	uint32_t root;
	const struct canon *c;
	const struct pm_sample *s;
	bool thread, cgroup;
	uint32_t waker;
};

static bool same_group(uint64_t val, const void *arg)
{
	const struct group_key *k = arg;
	const struct agg_stack *g = &k->b->a->stacks[val];

	return g->root == k->root && g->off == k->c->off && g->depth == k->c->depth &&
	       (!k->thread ||
		(g->pid == k->s->pid && g->tid == k->s->tid && g->comm == k->s->comm)) &&
	       (!k->cgroup || g->cgroup == k->s->cgroup) && g->waker == k->waker;
}

/*
 * Adds s to its group, weighing count (1 for a sample, else nanoseconds),
 * with the name of its waker (an off-CPU span's, with AGG_BY_WAKER; else
 * 0); false when the kernel filters leave it no frame.
 */
static bool add_weighed(struct builder *b, const struct pm_sample *s, uint64_t count,
			uint32_t waker)
{
	struct aggregate *a = b->a;
	bool thread = b->flags & AGG_BY_THREAD, cgroup = b->flags & AGG_BY_CGROUP;
	uint32_t canon = canon_stack(b, s->stack), root;
	const struct canon *c;
	struct agg_stack *g;
	struct group_key k;
	struct hmap_slot *slot;
	bool added;

	if (canon == PM_NONE)
		return false;
	c = &b->canons[canon];
	root = root_of(b, s);
	k = (struct group_key){b, root, c, s, thread, cgroup, waker};
	slot = hmap_intern(&b->group_index, group_hash(root, canon, s, thread, cgroup, waker),
			   same_group, &k, &added);
	if (!added) {
		g = &a->stacks[slot->val];
		goto count;
	}
	xgrow(&a->stacks, &b->stacks_cap, a->nstacks + 1, sizeof(*a->stacks));
	g = &a->stacks[a->nstacks];
	memset(g, 0, sizeof(*g));
	g->root = root;
	g->off = c->off;
	g->depth = c->depth;
	g->pid = s->pid;
	g->tid = s->tid;
	g->comm = s->comm;
	g->cgroup = s->cgroup;
	g->waker = waker;
	slot->val = a->nstacks++;
count:
	g->count += count;
	g->period += s->period;
	g->records++;
	a->samples += count;
	a->period += s->period;
	a->records++;
	return true;
}

const struct pm_wakeup *aggregate_offcpu_split(const struct profile *p, const struct pm_offcpu *x,
					       uint64_t *sleeping, uint64_t *runnable)
{
	size_t i = (size_t)(x - p->offcpu);
	const struct pm_wakeup *w =
		p->nwakeups == p->noffcpu && i < p->nwakeups ? &p->wakeups[i] : NULL;

	if (w && !(w->flags & PM_WAKEUP_SEEN))
		w = NULL;
	if (x->flags & PM_OFFCPU_PREEMPTED) {
		*sleeping = 0;
		*runnable = x->duration;
	} else {
		*sleeping = w && w->delay <= x->duration ? w->delay : x->duration;
		*runnable = x->duration - *sleeping;
	}
	return w;
}

/* The cgroup of off-CPU span x: its thread's (aggregate_prepare's maps), 0 when unknown. */
static uint32_t span_cgroup(const struct report_opts *o, const struct profile *p,
			    const struct pm_offcpu *x)
{
	const struct hmap *m = p == o->base ? o->base_span_cgroups : o->span_cgroups;
	const struct hmap_slot *s = m ? hmap_find(m, (uint64_t)x->pid << 32 | x->tid) : NULL;

	return s ? (uint32_t)s->val : 0;
}

bool aggregate_selects_offcpu(const struct report_opts *o, const struct profile *p,
			      const struct pm_offcpu *x, struct pm_sample *s)
{
	bool preempted = x->flags & PM_OFFCPU_PREEMPTED;
	uint64_t sleeping, runnable;

	aggregate_offcpu_split(p, x, &sleeping, &runnable);
	memset(s, 0, sizeof(*s));
	s->time = x->time;
	s->period = x->duration;
	if (o->offcpu_state == REPORT_STATE_SLEEPING)
		s->period = sleeping;
	if (o->offcpu_state == REPORT_STATE_RUNNABLE) {
		s->time = x->time + sleeping;
		s->period = runnable;
	}
	if (!s->period &&
	    (o->offcpu_state == REPORT_STATE_SLEEPING || o->offcpu_state == REPORT_STATE_RUNNABLE))
		return false;
	s->pid = x->pid;
	s->tid = x->tid;
	s->cpu = x->cpu;
	s->stack = x->stack;
	s->comm = x->comm;
	s->cgroup = span_cgroup(o, p, x);
	if ((o->offcpu_state == REPORT_STATE_BLOCKED && preempted) ||
	    (o->offcpu_state == REPORT_STATE_PREEMPTED && !preempted))
		return false;
	return aggregate_selects(o, p, s);
}

struct aggregate *aggregate_new(const struct profile *p, const struct report_opts *o,
				unsigned flags)
{
	struct aggregate *a = xcalloc(1, sizeof(*a));
	struct builder b = {.p = p, .o = o, .flags = flags, .a = a, .name = SBUF_INIT};

	b.canon_of = xcalloc(p->nstacks, sizeof(*b.canon_of));
	hmap_init(&b.canon_index);
	hmap_init(&b.root_index);
	hmap_init(&b.group_index);
	hmap_init(&b.names);
	hmap_init(&b.root_cache);
	strtab_init(&b.roots);
	if (o->root == REPORT_ROOT_PID || o->root == REPORT_ROOT_TID)
		collect_names(&b);
	for (size_t i = 0; o->sample_type != REPORT_OFF_CPU && i < p->nsamples; i++)
		if (aggregate_selects(o, p, &p->samples[i]))
			add_weighed(&b, &p->samples[i],
				    o->sample_type == REPORT_CPU ? 1 : p->samples[i].period, 0);
	for (size_t i = 0; report_has_spans(o->sample_type) && i < p->noffcpu; i++) {
		uint64_t sleeping, runnable;
		const struct pm_wakeup *w =
			aggregate_offcpu_split(p, &p->offcpu[i], &sleeping, &runnable);
		struct pm_sample s;

		if (!aggregate_selects_offcpu(o, p, &p->offcpu[i], &s))
			continue;
		if (add_weighed(&b, &s, s.period, w && (flags & AGG_BY_WAKER) ? w->comm : 0)) {
			if (p->offcpu[i].flags & PM_OFFCPU_PREEMPTED)
				a->preempted_ns += s.period;
			else
				a->blocked_ns += s.period;
			if (o->offcpu_state != REPORT_STATE_RUNNABLE)
				a->sleeping_ns += sleeping;
			if (o->offcpu_state != REPORT_STATE_SLEEPING)
				a->runnable_ns += runnable;
		}
	}
	free(b.canon_of);
	free(b.canons);
	free(b.scratch);
	hmap_release(&b.canon_index);
	hmap_release(&b.root_index);
	hmap_release(&b.group_index);
	hmap_release(&b.names);
	hmap_release(&b.root_cache);
	strtab_release(&b.roots);
	sbuf_release(&b.name);
	return a;
}

void aggregate_free(struct aggregate *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nroots; i++)
		free(a->roots[i]);
	free(a->roots);
	free(a->stacks);
	free(a->frames);
	free(a);
}
