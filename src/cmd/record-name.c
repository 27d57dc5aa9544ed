/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record-name.c - a recording's frames named: each new frame handed to
 * the naming thread as it is made, what the thread resolved taken into
 * the profile as the recording goes, and at the stop the rest (JIT
 * frames, what the thread did not finish) within --name-timeout.
 */
#include "config.h"

#include <errno.h>

#include "cmd/recorder-int.h"
#include "util/clock.h"

/*
 * A new frame: its naming starts now, on the naming thread. JIT frames
 * wait for the stop: the perf map keeps growing while the program runs.
 */
void recorder_on_new_frame(void *arg, struct module *m, uint32_t frame, uint64_t addr)
{
	struct recorder *r = arg;

	/* Its file is kept open from now on (and opened again if it was let go). */
	if (m->kind == MODULE_FILE)
		module_use(&r->mods, m);
	if (r->namer &&
	    (m->kind == MODULE_FILE || m->kind == MODULE_VDSO || m->kind == MODULE_KERNEL))
		namer_frame(r->namer, m, frame, addr);
}

/* A frame the naming thread resolved: its lines into the profile. */
static void take_named(uint32_t frame, const struct symres *res, void *arg)
{
	symbolize_add_levels(arg, frame, res);
}

/* What the naming thread found of a module: into the profile's module table. */
static void take_module(const struct module_facts *f, void *arg)
{
	struct recorder *r = arg;

	symbolize_modules(r->prof, &r->syms, false);
	symbolize_set_module(r->prof, f);
}

void recorder_take_named(struct recorder *r)
{
	if (!r->namer)
		return;
	namer_drain_modules(r->namer, take_module, r);
	namer_drain(r->namer, take_named, r->prof);
}

/* Whether the naming thread resolved frame, with a name or without one. */
static bool resolved_by_namer(uint32_t frame, void *arg)
{
	return namer_resolved(arg, frame);
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

		for (size_t i = 0; i < r->prof->nframes; i++) {
			const struct pm_frame *f = &r->prof->frames[i];

			if (f->module != PM_NONE && r->mods.mods[f->module]->kind == MODULE_PERFMAP)
				namer_frame(r->namer, r->mods.mods[f->module], (uint32_t)i,
					    f->addr);
		}
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
					   r->namer, r->cut_why != NULL);
}
