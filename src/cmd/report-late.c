/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report-late.c - naming late; see report-late.h.
 *
 * A module is looked at when it has frames to name (or, recorded with
 * lines but no DWARF found, named frames without a line) and a build-id.
 * Its own file, found again at its path with that build-id, names them
 * with whatever debug file the search finds for it now; without it (gone,
 * or another build there now), its debug file by build-id does, the
 * recording's segments of the module turning file offsets into ELF
 * addresses (a debug file's own program headers have no file part).
 * Without a debug file with its build-id there now, a module is read
 * again only when its naming never read it (no frame of it has a name:
 * naming cut short or given up; or its file could not be opened or
 * changed), or when the recorder left names or lines to it to stay
 * within its memory budget, not when its file had nothing more to give (stripped, no
 * DWARF, addresses no symbol covers): a report of a whole machine does
 * not read every binary again for nothing.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <gelf.h>

#include "cmd/recorded.h"
#include "cmd/report-late.h"
#include "elf/addr.h"
#include "symbol/symbolize.h"
#include "util/alloc.h"
#include "util/sbuf.h"

/* The debug directory searched after --debug-dir's (libdwfl's own). */
#define SYSTEM_DEBUG_DIR "/usr/lib/debug"

struct late {
	struct profile *p;
	struct module_set mods;
	struct symbolizer *z;
	char **dirs; /* --debug-dir's made absolute, then SYSTEM_DEBUG_DIR */
	size_t ndirs;
	bool *named; /* by module: some frame of it has a name */
	bool lines;  /* the recording read lines (not --no-lines) */
};

/* What a frame lacks: nothing, a name, or (named) a source line. */
enum lack { LACK_NONE, LACK_NAME, LACK_LINE };

static enum lack frame_lack(const struct late *l, const struct pm_frame *fr)
{
	const struct pm_module *mod;

	if (fr->module >= l->p->nmodules)
		return LACK_NONE;
	mod = &l->p->modules[fr->module];
	if (mod->flags & (PM_MODULE_KERNEL | PM_MODULE_VDSO | PM_MODULE_ANON | PM_MODULE_PERFMAP) ||
	    !*strtab_get(&l->p->str, mod->build_id))
		return LACK_NONE;
	if (!fr->nlines)
		return LACK_NAME;
	if (l->lines &&
	    (PM_MODULE_LINES(mod->flags) == LINES_NO_DWARF ||
	     PM_MODULE_LINES(mod->flags) == LINES_MEMORY) &&
	    !l->p->lines[fr->line0].line)
		return LACK_LINE;
	return LACK_NONE;
}

/* The recording's segments of module i, for addr_file_offset_to_vaddr; the count. */
static size_t module_segments(const struct profile *p, uint32_t i, struct load_seg **segs)
{
	size_t n = 0;

	*segs = NULL;
	for (size_t k = 0; k < p->nsegments; k++) {
		const struct pm_segment *g = &p->segments[k];

		if (g->module != i)
			continue;
		*segs = xrealloc(*segs, (n + 1) * sizeof(**segs));
		(*segs)[n++] =
			(struct load_seg){g->offset, g->vaddr, g->filesz, g->memsz, g->flags};
	}
	return n;
}

/* The module's own file at its recorded path, if it is the one recorded. */
static struct module *own_file(struct late *l, const struct pm_module *mod)
{
	const char *build_id = strtab_get(&l->p->str, mod->build_id);
	struct sbuf why = SBUF_INIT;
	struct module *m = recorded_open(&l->mods, strtab_get(&l->p->str, mod->path), build_id,
					 mod->owner, &why);
	Elf *e = m ? elf_begin(m->fd, ELF_C_READ_MMAP, NULL) : NULL;
	bool same = e && recorded_same_build(e, build_id);

	if (e)
		elf_end(e);
	sbuf_release(&why);
	return same ? m : NULL;
}

/* Gives frame f the levels r found, if they give what it lacked. */
static void take_levels(struct late *l, uint32_t f, enum lack lack, const struct symres *r)
{
	if (!r->n || !r->lv[r->n - 1].func)
		return;
	if (lack == LACK_LINE) {
		if (!r->lv[0].line)
			return;
		l->p->frames[f].nlines = 0; /* its levels replaced: the old ones stay unused */
	}
	symbolize_add_levels(l->p, f, r);
}

/*
 * Module i, its own file m read again: what the recorder left to report
 * to save memory gives way to what m says now (stripped, say, or nothing).
 */
static void take_reasons(struct late *l, uint32_t i, struct module *m)
{
	struct pm_module *mod = &l->p->modules[i];
	bool names = PM_MODULE_REASON(mod->flags) == REASON_MEMORY;
	bool lines = PM_MODULE_LINES(mod->flags) == LINES_MEMORY;
	struct module_facts f;

	if (!names && !lines)
		return;
	symbolize_module_facts(l->z, m, &f);
	if (names) {
		mod->flags &= ~(0xffu << PM_MODULE_REASON_SHIFT);
		mod->flags |= PM_MODULE_REASON(f.flags) << PM_MODULE_REASON_SHIFT;
		mod->reason = strtab_add(&l->p->str, f.reason ? f.reason : "");
	}
	if (lines && l->lines) {
		mod->flags &= ~(0xffu << PM_MODULE_LINES_SHIFT);
		mod->flags |= PM_MODULE_LINES(f.flags) << PM_MODULE_LINES_SHIFT;
	}
	free(f.segs);
}

/* Names the frames of module i listed in frames[0, n) from the files found for it. */
static void name_module(struct late *l, uint32_t i, const uint32_t *frames, size_t n)
{
	const struct pm_module *mod = &l->p->modules[i];
	const char *build_id = strtab_get(&l->p->str, mod->build_id);
	enum module_reason why = PM_MODULE_REASON(mod->flags);
	struct module *debug =
		recorded_open_debug(&l->mods, (const char *const *)l->dirs, l->ndirs, build_id);
	struct module *m = NULL;
	struct load_seg *segs = NULL;
	size_t nsegs = 0;

	/*
	 * Without a debug file, the file itself names only what its naming
	 * never read: not read at all (cut short, given up, no descriptor),
	 * not what it read and could not name.
	 */
	if (!debug && l->named[i] && why != REASON_FILE_GONE && why != REASON_NO_DESCRIPTORS &&
	    why != REASON_CHANGED && why != REASON_MEMORY &&
	    PM_MODULE_LINES(mod->flags) != LINES_MEMORY)
		return;
	if (!debug && (why == REASON_STRIPPED || why == REASON_NO_SYMBOLS || why == REASON_NOT_ELF))
		return;
	if (!(m = own_file(l, mod))) {
		m = debug;
		nsegs = module_segments(l->p, i, &segs);
		if (!m || !nsegs) {
			free(segs);
			return;
		}
	}
	for (size_t k = 0; k < n; k++) {
		const struct pm_frame *fr = &l->p->frames[frames[k]];
		uint64_t addr = fr->addr;
		struct symres r;

		if (segs && addr_file_offset_to_vaddr(segs, nsegs, fr->addr, &addr) < 0)
			continue;
		symbolize_addr(l->z, m, addr, segs != NULL, &r);
		take_levels(l, frames[k], frame_lack(l, fr), &r);
		symres_release(&r);
	}
	if (!segs)
		take_reasons(l, i, m);
	free(segs);
}

void report_name_late(struct profile *p, const char *const *dirs, size_t ndirs)
{
	const char *lines_meta = profile_get_meta(p, "lines");
	struct late l = {.p = p, .lines = !lines_meta || strcmp(lines_meta, "no")};
	uint32_t *count, *order, *at;

	if (!p->nframes || !p->nmodules)
		return;
	/* The frames that lack something, grouped by module (a counting sort). */
	count = xcalloc(p->nmodules + 1, sizeof(*count));
	l.named = xcalloc(p->nmodules, sizeof(*l.named));
	for (size_t f = 0; f < p->nframes; f++) {
		if (frame_lack(&l, &p->frames[f]) != LACK_NONE)
			count[p->frames[f].module + 1]++;
		if (p->frames[f].nlines && p->frames[f].module < p->nmodules)
			l.named[p->frames[f].module] = true;
	}
	for (size_t i = 1; i <= p->nmodules; i++)
		count[i] += count[i - 1];
	if (!count[p->nmodules]) {
		free(l.named);
		free(count);
		return;
	}
	order = xmalloc(count[p->nmodules] * sizeof(*order));
	at = xmalloc(p->nmodules * sizeof(*at));
	memcpy(at, count, p->nmodules * sizeof(*at));
	for (size_t f = 0; f < p->nframes; f++)
		if (frame_lack(&l, &p->frames[f]) != LACK_NONE)
			order[at[p->frames[f].module]++] = (uint32_t)f;
	free(at);

	elf_version(EV_CURRENT);
	module_set_init(&l.mods);
	l.z = symbolizer_new(&l.mods, !l.lines);
	symbolizer_local_only(l.z);
	l.dirs = xmalloc((ndirs + 1) * sizeof(*l.dirs));
	/* A module's path is absolute: one that is not reads as no file's. */
	for (size_t k = 0; k < ndirs; k++)
		if ((l.dirs[l.ndirs] = realpath(dirs[k], NULL))) {
			symbolizer_add_debug_dir(l.z, l.dirs[l.ndirs]);
			l.ndirs++;
		}
	l.dirs[l.ndirs++] = xstrdup(SYSTEM_DEBUG_DIR);
	for (uint32_t i = 0; i < p->nmodules; i++)
		if (count[i + 1] > count[i])
			name_module(&l, i, order + count[i], count[i + 1] - count[i]);
	symbolizer_free(l.z);
	module_set_release(&l.mods);
	for (size_t k = 0; k < l.ndirs; k++)
		free(l.dirs[k]);
	free(l.dirs);
	free(order);
	free(l.named);
	free(count);
}
