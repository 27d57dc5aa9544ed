/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * naming.c - a recording's frames named: each new frame handed to the
 * naming thread as it is made, what the thread resolved taken into the
 * profile of its slice as the recording goes, and at the stop the rest
 * (JIT frames, what the thread did not finish) within --name-timeout;
 * see naming-int.h.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "session/session-int.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/msg.h"

int naming_init(struct sess_naming *nm, struct module_set *mods, const struct record_opts *o)
{
	memset(nm, 0, sizeof(*nm));
	hmap_init(&nm->abandoning);
	nm->syms = symbolizer_new(mods, o->no_lines);
	symbolizer_memory_budget(nm->syms, o->max_memory);
	for (size_t i = 0; i < o->ndebug_dirs; i++)
		if (symbolizer_add_debug_dir(nm->syms, o->debug_dirs[i]) < 0) {
			error("bad --debug-dir '%s': %s", o->debug_dirs[i], strerror(errno));
			symbolizer_free(nm->syms);
			nm->syms = NULL;
			hmap_release(&nm->abandoning);
			return -1;
		}
	nm->namer = namer_start(nm->syms, o->live_view);
	return 0;
}

void naming_release(struct sess_naming *nm)
{
	namer_free(nm->namer);
	symbolizer_free(nm->syms);
	free(nm->res.b);
	for (size_t i = 0; i < nm->nold; i++)
		free(nm->old[i].res.b);
	free(nm->old);
	free(nm->retiring);
	hmap_release(&nm->abandoning);
}

bool naming_memory_pressed(const struct sess_naming *nm)
{
	struct memstats st;

	symbolizer_memory_stats(nm->syms, &st);
	return st.level >= MEM_NO_LINES;
}

void naming_memory_stats(const struct sess_naming *nm, struct memstats *st)
{
	symbolizer_memory_stats(nm->syms, st);
}

void naming_kick(struct sess_naming *nm)
{
	if (nm->namer)
		namer_kick(nm->namer);
}

/* The marks of generation gen, NULL when it is gone. */
static struct resolved *marks_of(const struct sess_naming *nm, uint32_t gen)
{
	if (gen == nm->gen)
		return (struct resolved *)&nm->res;
	for (size_t k = 0; k < nm->nold; k++)
		if (nm->old[k].gen == gen)
			return (struct resolved *)&nm->old[k].res;
	return NULL;
}

/* The marks of profile p, the slice's now or a sealed one's; NULL when none. */
static const struct resolved *marks_of_profile(const struct session *s, const struct profile *p)
{
	if (p == s->out.prof)
		return &s->nm.res;
	for (size_t k = 0; k < s->nm.nold; k++)
		if (s->nm.old[k].prof == p)
			return &s->nm.old[k].res;
	return NULL;
}

bool naming_resolved(const struct sess_naming *nm, uint32_t gen, uint32_t f)
{
	const struct resolved *res = marks_of(nm, gen);

	return res && f < res->n && res->b[f];
}

/* Bits of a frame's mark: resolved by the naming thread, and at its module's entry point. */
#define MARK_RESOLVED 1
#define MARK_ENTRY    2

static void mark_resolved(struct resolved *res, uint32_t f, bool at_entry)
{
	if (f >= res->n) {
		size_t k = res->n ? res->n : 4096;

		while (k <= f)
			k *= 2;
		res->b = xrealloc(res->b, k);
		memset(res->b + res->n, 0, k - res->n);
		res->n = k;
	}
	res->b[f] = MARK_RESOLVED | (at_entry ? MARK_ENTRY : 0);
}

/*
 * Whether new frame f takes its name from the slice before, where it has
 * one (--switch-output): not a JIT frame, whose address may hold other
 * code by now.
 */
static bool named_before(struct session *s, const struct module *m, uint32_t f)
{
	const struct profile *last = s->out.last;
	const struct pm_frame *fr = &s->out.prof->frames[f];
	const struct resolved *res;
	uint32_t g;

	if (!last || m->kind == MODULE_PERFMAP)
		return false;
	g = profile_find_frame(last, fr->module, fr->flags, fr->addr);
	if (g == PM_NONE || !last->frames[g].nlines)
		return false;
	profile_copy_lines(s->out.prof, f, last, g);
	/* Where a stack starts there, so here (naming_entry_frame). */
	if ((res = marks_of_profile(s, last)) && g < res->n && (res->b[g] & MARK_ENTRY))
		mark_resolved(&s->nm.res, f, true);
	return true;
}

/*
 * A new frame: its naming starts now, on the naming thread. JIT frames
 * wait for the end of their slice: the perf map keeps growing while the
 * program runs.
 */
void naming_new_frame(struct session *s, struct module *m, uint32_t frame, uint64_t addr)
{
	struct sess_naming *nm = &s->nm;

	if (nm->namer && named_before(s, m, frame))
		return;
	if (nm->namer &&
	    (m->kind == MODULE_FILE || m->kind == MODULE_VDSO || m->kind == MODULE_KERNEL))
		namer_frame(nm->namer, m, nm->gen, frame, s->out.prof->frames[frame].flags, addr);
}

/*
 * A frame the naming thread resolved: its lines into the profile it is
 * of, the slice's now or a sealed one's; none when that file was let go.
 */
static void take_named(uint32_t gen, uint32_t frame, const struct symres *res, void *arg)
{
	struct session *s = arg;
	struct resolved *marks = marks_of(&s->nm, gen);
	struct profile *p = s->out.prof;

	if (!marks)
		return;
	for (size_t k = 0; gen != s->nm.gen && k < s->nm.nold; k++)
		if (s->nm.old[k].gen == gen)
			p = s->nm.old[k].prof;
	symbolize_add_levels(p, frame, res);
	mark_resolved(marks, frame, res->at_entry);
}

/* What the naming thread found of a module: into the module tables of the profiles. */
static void take_module(const struct module_facts *f, void *arg)
{
	struct session *s = arg;

	symbolize_modules(s->out.prof, s->nm.syms, false);
	symbolize_set_module(s->out.prof, f);
	for (size_t k = 0; k < s->nm.nold; k++)
		symbolize_set_module(s->nm.old[k].prof, f);
}

/* A module the naming thread let go: its file closed, unless it was mapped again since. */
static void take_retired(uint32_t id, void *arg)
{
	struct session *s = arg;
	struct module *m = s->mods.mods[id];

	hmap_remove(&s->nm.abandoning, id, NULL);
	if (!m->nmaps)
		module_unpin(&s->mods, m);
}

/* A module the naming thread forgot: its id given back. */
static void take_forgotten(uint32_t id, void *arg)
{
	struct session *s = arg;
	struct module *m = s->mods.mods[id];

	module_forgotten(m);
	module_set_recycle(&s->mods, m);
}

void naming_take(struct session *s)
{
	if (!s->nm.namer)
		return;
	namer_drain_modules(s->nm.namer, take_module, s);
	namer_drain(s->nm.namer, take_named, s);
	namer_drain_retired(s->nm.namer, take_retired, s);
	namer_drain_forgotten(s->nm.namer, take_forgotten, s);
}

void naming_forget_module(struct session *s, struct module *m)
{
	struct sess_naming *nm = &s->nm;
	size_t kept = 0;

	for (size_t i = 0; i < nm->nretiring; i++)
		if (nm->retiring[i] != m->id)
			nm->retiring[kept++] = nm->retiring[i];
	nm->nretiring = kept;
	hmap_remove(&nm->abandoning, m->id, NULL);
	if (nm->namer && !nm->joined) {
		namer_forget(nm->namer, m);
		return;
	}
	symbolizer_drop(nm->syms, m->id);
	module_forgotten(m);
	module_set_recycle(&s->mods, m);
}

void naming_retire(struct session *s, struct module *m)
{
	struct sess_naming *nm = &s->nm;

	if (nm->namer) {
		namer_retire(nm->namer, m);
		xgrow(&nm->retiring, &nm->retiring_cap, nm->nretiring + 1, sizeof(*nm->retiring));
		nm->retiring[nm->nretiring++] = m->id;
		return;
	}
	symbolizer_retire(s->nm.syms, m);
	module_unpin(&s->mods, m);
}

void naming_module_back(const struct session *s, uint32_t id)
{
	struct profile *p = s->out.prof;
	struct module_facts f;

	if (id >= s->mods.n || !profile_module_dropped(p, id))
		return;
	profile_module_back(p, id, s->mods.mods[id]->path);
	/* Naming cut short: the thread may still read the symbolizer. */
	if (s->nm.namer && !s->nm.joined)
		return;
	symbolize_module_facts(s->nm.syms, s->mods.mods[id], &f);
	symbolize_set_module(p, &f);
	free(f.segs);
}

void naming_read_kernel(struct sess_naming *nm, struct module_set *mods)
{
	symfile_get(nm->syms, module_set_kernel(mods));
}

void naming_add_modules(struct session *s)
{
	symbolize_modules(s->out.prof, s->nm.syms, false);
	symbolize_modules_reused(s->out.prof, s->nm.syms);
}

void naming_hold_budget(struct session *s)
{
	struct sess_naming *nm = &s->nm;
	size_t budget = s->mods.pin_budget, k = 0;
	bool added;

	/* Those let go already, or mapped again, in front: done with. */
	while (k < nm->nretiring &&
	       (s->mods.mods[nm->retiring[k]]->fd < 0 || s->mods.mods[nm->retiring[k]]->nmaps))
		k++;
	while (budget && s->mods.pinned > budget + nm->abandoning.count && k < nm->nretiring) {
		struct module *m = s->mods.mods[nm->retiring[k++]];

		if (m->fd < 0 || m->nmaps)
			continue;
		hmap_insert(&nm->abandoning, m->id, &added);
		if (!added)
			continue;
		nm->abandoned++;
		namer_abandon(nm->namer, m);
	}
	/* The entries looked at are done with: let go, abandoned, or mapped again. */
	if (k) {
		memmove(nm->retiring, nm->retiring + k,
			(nm->nretiring - k) * sizeof(*nm->retiring));
		nm->nretiring -= k;
	}
}

uint64_t naming_skipped(const struct sess_naming *nm)
{
	return nm->namer ? namer_skipped(nm->namer) : 0;
}

uint32_t naming_next_slice(struct sess_naming *nm, struct profile *prof)
{
	uint32_t gen = nm->gen++;

	if (nm->namer) {
		nm->old = xrealloc(nm->old, (nm->nold + 1) * sizeof(*nm->old));
		nm->old[nm->nold++] = (struct gen_marks){gen, prof, nm->res};
	} else {
		free(nm->res.b);
	}
	nm->res = (struct resolved){0};
	return gen;
}

void naming_forget(struct sess_naming *nm, uint32_t gen)
{
	for (size_t k = 0; k < nm->nold; k++)
		if (nm->old[k].gen == gen) {
			free(nm->old[k].res.b);
			memmove(nm->old + k, nm->old + k + 1, (--nm->nold - k) * sizeof(*nm->old));
			return;
		}
}

/* Whether the naming thread resolved frame of the profile, with a name or without one. */
static bool resolved_by_namer(uint32_t frame, void *arg)
{
	const struct resolved *res = arg;

	return frame < res->n && res->b[frame];
}

/*
 * Whether named frame f is where a stack starts: an entry-point function
 * (unwind_is_entry_name), or, in a binary without symbols, the code at its
 * ELF entry point (_start is a few dozen bytes).
 */
bool naming_entry_frame(const struct profile *p, uint32_t f, void *arg)
{
	struct session *s = arg;
	const struct pm_frame *fr = &p->frames[f];

	if (fr->nlines) {
		const struct pm_line *outer = &p->lines[fr->line0 + fr->nlines - 1];

		if (unwind_is_entry_name(strtab_get(&p->str, outer->func)))
			return true;
	}
	if (fr->module == PM_NONE)
		return false;
	/*
	 * The symbolizer is the naming thread's while it runs: its answer,
	 * where it named the frame. Once it is joined, the rest (frames named
	 * at the stop) are asked here; naming cut short leaves it running.
	 */
	if (s->nm.namer) {
		const struct resolved *res = marks_of_profile(s, p);

		if (res && f < res->n && res->b[f])
			return res->b[f] & MARK_ENTRY;
		if (!s->nm.joined)
			return false;
	}
	return !s->nm.cut_why && symbolize_at_entry(s->nm.syms, s->mods.mods[fr->module], fr->addr);
}

/*
 * The JIT frames of profile p (of generation gen) to the naming thread.
 * With res, only those of a perf map the recorder holds open (a module
 * still without one may get it meanwhile: the thread reads no descriptor
 * the recorder may still write), the others marked resolved: they get no
 * name while recording.
 */
static void queue_jit(struct session *s, const struct profile *p, uint32_t gen,
		      struct resolved *res)
{
	for (size_t i = 0; i < p->nframes; i++) {
		const struct pm_frame *f = &p->frames[i];
		struct module *m = f->module < s->mods.n ? s->mods.mods[f->module] : NULL;

		if (!m || m->kind != MODULE_PERFMAP)
			continue;
		if (!res || m->fd >= 0)
			namer_frame(s->nm.namer, m, gen, (uint32_t)i, f->flags, f->addr);
		else
			mark_resolved(res, (uint32_t)i, false);
	}
}

void naming_name_frames(struct session *s, const volatile sig_atomic_t *interrupt)
{
	struct sess_naming *nm = &s->nm;
	int ret = 0;

	if (nm->namer) {
		uint64_t deadline = 0;

		queue_jit(s, s->out.prof, nm->gen, NULL);
		if (s->o->name_timeout > 0)
			deadline = now_ns() + (uint64_t)(s->o->name_timeout * 1e9);
		ret = namer_finish(nm->namer, deadline, interrupt);
		/* The thread is gone: what it named is kept for the next recording. */
		nm->joined = ret == 0;
		if (ret == 0)
			symbolizer_save_names(nm->syms, NULL);
		if (ret == -ETIMEDOUT)
			nm->cut_why = "--name-timeout";
		else if (ret == -EINTR)
			nm->cut_why = "a signal during the stop";
	}
	naming_take(s);
	nm->unnamed_cut =
		symbolize_profile(s->out.prof, nm->syms, nm->namer ? resolved_by_namer : NULL,
				  &nm->res, nm->cut_why != NULL);
}

void naming_name_jit(struct session *s, const struct profile *p, uint32_t gen)
{
	struct resolved *res = marks_of(&s->nm, gen);

	if (s->nm.namer && res)
		queue_jit(s, p, gen, res);
}

void naming_name_sealed(struct session *s, struct profile *p, uint32_t gen)
{
	struct resolved none = {0}, *res = marks_of(&s->nm, gen);

	symbolize_profile(p, s->nm.syms, resolved_by_namer, res ? res : &none,
			  s->nm.cut_why != NULL);
}
