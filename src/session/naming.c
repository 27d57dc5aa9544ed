/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record-name.c - a recording's frames named: each new frame handed to
 * the naming thread as it is made, what the thread resolved taken into
 * the profile as the recording goes, and at the stop the rest (JIT
 * frames, what the thread did not finish) within --name-timeout.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/recorder-int.h"
#include "util/alloc.h"
#include "util/clock.h"

/*
 * Whether new frame f takes its name from the slice before, where it has
 * one (--switch-output): not a JIT frame, whose address may hold other
 * code by now.
 */
static bool named_before(struct recorder *r, const struct module *m, uint32_t f)
{
	const struct pm_frame *fr = &r->prof->frames[f];
	uint32_t g;

	if (!r->last || m->kind == MODULE_PERFMAP)
		return false;
	g = profile_find_frame(r->last, fr->module, fr->flags, fr->addr);
	if (g == PM_NONE || !r->last->frames[g].nlines)
		return false;
	profile_copy_lines(r->prof, f, r->last, g);
	return true;
}

/*
 * A new frame: its naming starts now, on the naming thread. JIT frames
 * wait for the end of their slice: the perf map keeps growing while the
 * program runs.
 */
void recorder_on_new_frame(void *arg, struct module *m, uint32_t frame, uint64_t addr)
{
	struct recorder *r = arg;

	/* Its file is kept open from now on (and opened again if it was let go). */
	if (m->kind == MODULE_FILE)
		module_use(&r->mods, m);
	if (r->namer && named_before(r, m, frame))
		return;
	if (r->namer &&
	    (m->kind == MODULE_FILE || m->kind == MODULE_VDSO || m->kind == MODULE_KERNEL))
		namer_frame(r->namer, m, r->gen, frame, addr);
}

bool recorder_resolved(const struct resolved *res, uint32_t f)
{
	return f < res->n && res->b[f];
}

static void mark_resolved(struct resolved *res, uint32_t f)
{
	if (f >= res->n) {
		size_t k = res->n ? res->n : 4096;

		while (k <= f)
			k *= 2;
		res->b = xrealloc(res->b, k);
		memset(res->b + res->n, 0, k - res->n);
		res->n = k;
	}
	res->b[f] = 1;
}

/*
 * A frame the naming thread resolved: its lines into the profile it is
 * of, the slice's now or a sealed one's; none when that file was let go.
 */
static void take_named(uint32_t gen, uint32_t frame, const struct symres *res, void *arg)
{
	struct recorder *r = arg;
	struct profile *p = r->prof;
	struct resolved *marks = &r->res;

	for (size_t k = 0; gen != r->gen && k < r->nsealed; k++) {
		if (r->sealed[k].gen == gen) {
			p = r->sealed[k].prof;
			marks = &r->sealed[k].res;
			break;
		}
	}
	if (marks == &r->res && gen != r->gen)
		return;
	symbolize_add_levels(p, frame, res);
	mark_resolved(marks, frame);
}

/* What the naming thread found of a module: into the module tables of the profiles. */
static void take_module(const struct module_facts *f, void *arg)
{
	struct recorder *r = arg;

	symbolize_modules(r->prof, &r->syms, false);
	symbolize_set_module(r->prof, f);
	for (size_t k = 0; k < r->nsealed; k++)
		symbolize_set_module(r->sealed[k].prof, f);
}

void recorder_take_named(struct recorder *r)
{
	if (!r->namer)
		return;
	namer_drain_modules(r->namer, take_module, r);
	namer_drain(r->namer, take_named, r);
}

/* Whether the naming thread resolved frame of the profile, with a name or without one. */
static bool resolved_by_namer(uint32_t frame, void *arg)
{
	return recorder_resolved(arg, frame);
}

/*
 * Whether named frame f is where a stack starts: an entry-point function
 * (unwind_is_entry_name), or, in a binary without symbols, the code at its
 * ELF entry point (_start is a few dozen bytes).
 */
bool recorder_entry_frame(uint32_t f, void *arg)
{
	struct recorder *r = arg;
	const struct pm_frame *fr = &r->prof->frames[f];

	if (fr->nlines) {
		const struct pm_line *outer = &r->prof->lines[fr->line0 + fr->nlines - 1];

		if (unwind_is_entry_name(strtab_get(&r->prof->str, outer->func)))
			return true;
	}
	/* Naming cut short leaves the symbolizer to the thread. */
	return fr->module != PM_NONE && !r->cut_why &&
	       symbolize_at_entry(&r->syms, r->mods.mods[fr->module], fr->addr);
}

/*
 * The JIT frames of profile p (of generation gen) to the naming thread.
 * With res, only those of a perf map the recorder holds open (a module
 * still without one may get it meanwhile: the thread reads no descriptor
 * the recorder may still write), the others marked resolved: they get no
 * name while recording.
 */
static void queue_jit(struct recorder *r, const struct profile *p, uint32_t gen,
		      struct resolved *res)
{
	for (size_t i = 0; i < p->nframes; i++) {
		const struct pm_frame *f = &p->frames[i];
		struct module *m = f->module < r->mods.n ? r->mods.mods[f->module] : NULL;

		if (!m || m->kind != MODULE_PERFMAP)
			continue;
		if (!res || m->fd >= 0)
			namer_frame(r->namer, m, gen, (uint32_t)i, f->addr);
		else
			mark_resolved(res, (uint32_t)i);
	}
}

/*
 * Names every frame: the naming thread finishes what it has, and the JIT
 * frames (left to the stop, their perf maps now complete), within
 * --name-timeout or until a signal during the stop.
 */
void recorder_name_frames(struct recorder *r, const volatile sig_atomic_t *interrupt)
{
	int ret = 0;

	model_perfmap_last_look(&r->model);
	if (r->namer) {
		uint64_t deadline = 0;

		queue_jit(r, r->prof, r->gen, NULL);
		if (r->o->name_timeout > 0)
			deadline = now_ns() + (uint64_t)(r->o->name_timeout * 1e9);
		ret = namer_finish(r->namer, deadline, interrupt);
		if (ret == -ETIMEDOUT)
			r->cut_why = "--name-timeout";
		else if (ret == -EINTR)
			r->cut_why = "a signal during the stop";
	}
	recorder_take_named(r);
	r->unnamed_cut = symbolize_profile(r->prof, &r->syms, r->namer ? resolved_by_namer : NULL,
					   &r->res, r->cut_why != NULL);
}

void recorder_name_jit(struct recorder *r, struct sealed *s)
{
	queue_jit(r, s->prof, s->gen, &s->res);
}

void recorder_name_sealed(struct recorder *r, struct sealed *s)
{
	symbolize_profile(s->prof, &r->syms, resolved_by_namer, &s->res, r->cut_why != NULL);
}
