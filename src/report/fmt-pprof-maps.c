/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt-pprof-maps.c - pprof's mappings: one per module segment a frame
 * lies in, with load bias 0, so that pprof finds the code again in the
 * binary by its program headers (see fmt-pprof.c's opening comment);
 * the main program's first, since pprof names the profile after it.
 */
#include "config.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "report/pprof-int.h"
#include "util/alloc.h"

/* The mapping of module's segment seg (PM_NONE: by offset), holding addr; added if new. */
uint64_t pprof_mapping_id(struct pprof *x, uint32_t module, uint32_t seg, uint64_t addr)
{
	const struct pm_module *m = &x->p->modules[module];
	struct hmap_slot *slot;
	struct mapping *mp;
	bool added;

	slot = hmap_insert(&x->mapping_ids, (uint64_t)module << 32 | (uint32_t)(seg + 1), &added);
	if (added) {
		xgrow(&x->mappings, &x->mappings_cap, x->nmappings + 1, sizeof(*x->mappings));
		mp = &x->mappings[x->nmappings];
		mp->module = module;
		mp->seg = seg;
		mp->lo = mp->hi = addr;
		mp->absolute = m->flags & (PM_MODULE_KERNEL | PM_MODULE_PERFMAP);
		mp->filenames = mp->line_numbers = true;
		slot->val = ++x->nmappings;
	}
	mp = &x->mappings[slot->val - 1];
	if (addr < mp->lo)
		mp->lo = addr;
	if (addr > mp->hi)
		mp->hi = addr;
	return slot->val;
}

/*
 * Where frame f goes: its address and the segment holding it (PM_NONE
 * when the module has no segments, or none holds the offset). An
 * executable segment wins over others that hold the offset.
 */
uint64_t pprof_frame_address(const struct pprof *x, const struct pm_frame *fr, uint32_t *seg)
{
	const struct profile *p = x->p;

	*seg = PM_NONE;
	if (p->modules[fr->module].flags & (PM_MODULE_KERNEL | PM_MODULE_PERFMAP))
		return fr->addr;
	for (uint32_t i = x->segs_of[fr->module]; i < x->segs_of[fr->module + 1]; i++) {
		const struct pm_segment *g = &p->segments[x->seg_index[i]];

		if (fr->addr < g->offset || fr->addr - g->offset >= g->filesz)
			continue;
		if (*seg == PM_NONE || ((g->flags & PF_X) && !(p->segments[*seg].flags & PF_X)))
			*seg = x->seg_index[i];
	}
	if (*seg == PM_NONE)
		return fr->addr;
	return fr->addr - p->segments[*seg].offset + p->segments[*seg].vaddr;
}

static void encode_mapping(struct pprof *x, const struct mapping *mp, uint64_t id, struct sbuf *out)
{
	const struct profile *p = x->p;
	const struct pm_module *m = &p->modules[mp->module];
	const uint64_t page = PAGE_SIZE - 1;
	uint64_t start = 0, limit = (mp->hi + PAGE_SIZE) & ~page, offset = 0;

	if (mp->seg != PM_NONE) {
		/* The segment as the kernel maps it at load bias 0. */
		const struct pm_segment *g = &p->segments[mp->seg];

		start = g->vaddr & ~page;
		limit = (g->vaddr + g->memsz + page) & ~page;
		offset = g->offset & ~page;
	} else if (mp->absolute) {
		start = mp->lo & ~page;
	}
	if (limit <= mp->hi) /* wrapped at the top of the address space */
		limit = UINT64_MAX;
	sbuf_reset(&x->scratch);
	pb_uint(&x->scratch, MAPPING_ID, id);
	if (start)
		pb_uint(&x->scratch, MAPPING_MEMORY_START, start);
	pb_uint(&x->scratch, MAPPING_MEMORY_LIMIT, limit);
	pb_uint(&x->scratch, MAPPING_FILE_OFFSET, offset);
	pb_uint(&x->scratch, MAPPING_FILENAME, pprof_str_id(x, strtab_get(&p->str, m->path)));
	if (*strtab_get(&p->str, m->build_id))
		pb_uint(&x->scratch, MAPPING_BUILD_ID,
			pprof_str_id(x, strtab_get(&p->str, m->build_id)));
	pb_uint(&x->scratch, MAPPING_HAS_FUNCTIONS, 1);
	pb_uint(&x->scratch, MAPPING_HAS_FILENAMES, mp->filenames);
	pb_uint(&x->scratch, MAPPING_HAS_LINE_NUMBERS, mp->line_numbers);
	pb_uint(&x->scratch, MAPPING_HAS_INLINE_FRAMES, mp->line_numbers);
	pb_message(out, PROFILE_MAPPING, &x->scratch);
}

/* The mappings, the main program's first (its executable ones leading). */
void pprof_encode_mappings(struct pprof *x, struct sbuf *out)
{
	const struct profile *p = x->p;
	uint32_t mm = x->main_module;

	if (mm != PM_NONE) {
		bool has = false;

		for (size_t i = 0; i < x->nmappings; i++)
			has |= x->mappings[i].module == mm;
		if (!has) {
			/* Not sampled itself: a mapping all the same, so pprof names it. */
			uint32_t seg = PM_NONE;

			for (uint32_t i = x->segs_of[mm]; i < x->segs_of[mm + 1]; i++)
				if (seg == PM_NONE || (p->segments[x->seg_index[i]].flags & PF_X &&
						       !(p->segments[seg].flags & PF_X)))
					seg = x->seg_index[i];
			pprof_mapping_id(x, mm, seg, seg == PM_NONE ? 0 : p->segments[seg].vaddr);
		}
	}
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < x->nmappings; i++) {
			const struct mapping *mp = &x->mappings[i];
			bool exec = mp->seg != PM_NONE && (p->segments[mp->seg].flags & PF_X);
			int want = mp->module != mm ? 2 : exec || mp->seg == PM_NONE ? 0 : 1;

			if (want == pass)
				encode_mapping(x, mp, i + 1, out);
		}
	}
}

/* A file a program can be: not the kernel, the vdso, a perf map, anonymous memory. */
static bool is_file_module(const struct profile *p, uint32_t i)
{
	const struct pm_module *m = &p->modules[i];

	return !(m->flags &
		 (PM_MODULE_KERNEL | PM_MODULE_VDSO | PM_MODULE_ANON | PM_MODULE_PERFMAP)) &&
	       strtab_get(&p->str, m->path)[0] == '/';
}

/*
 * The main program, which pprof expects in mapping[0] (it names the
 * profile after it): the command recorded (the word after "--" in the
 * record command line), else the file whose name the most samples' thread
 * names are (the kernel names a thread after its program, cut to 15
 * bytes), else the file that is no shared library (no ".so" in its name)
 * with the most samples, else the file with the most samples. PM_NONE
 * when there is no file.
 */
uint32_t pprof_find_main_module(const struct profile *p, const struct aggregate *a)
{
	const char *cmd = profile_get_meta(p, "command");
	uint64_t *by_comm = xcalloc(p->nmodules + 1, sizeof(*by_comm));
	uint64_t *by_samples = xcalloc(p->nmodules + 1, sizeof(*by_samples));
	uint32_t *stamp = xcalloc(p->nmodules + 1, sizeof(*stamp));
	uint32_t best = PM_NONE;
	char *prog = NULL;

	if (cmd) {
		const char *dd = strstr(cmd, " -- ");

		if (dd) {
			dd += 4;
			prog = xstrndup(dd, strcspn(dd, " "));
		}
	}
	for (size_t i = 0; i < a->nstacks; i++) {
		const struct agg_stack *g = &a->stacks[i];
		const char *comm = strtab_get(&p->str, g->comm);

		for (uint32_t d = 0; d < g->depth; d++) {
			uint32_t m = p->frames[a->frames[g->off + d]].module;

			if (m == PM_NONE || stamp[m] == i + 1)
				continue;
			stamp[m] = (uint32_t)i + 1;
			by_samples[m] += g->count;
			if (*comm &&
			    strncmp(report_base_name(strtab_get(&p->str, p->modules[m].path)), comm,
				    15) == 0)
				by_comm[m] += g->count;
		}
	}
	for (int rule = 0; rule < 4 && best == PM_NONE; rule++) {
		uint64_t best_score = 0;

		for (uint32_t m = 0; m < p->nmodules; m++) {
			const char *base =
				report_base_name(strtab_get(&p->str, p->modules[m].path));
			uint64_t score;

			if (!is_file_module(p, m))
				continue;
			if (rule == 0)
				score = prog && strcmp(base, report_base_name(prog)) == 0;
			else if (rule == 1)
				score = by_comm[m];
			else if (rule == 2)
				score = strstr(base, ".so") ? 0 : by_samples[m];
			else
				score = by_samples[m] + 1;
			if (score > best_score) {
				best_score = score;
				best = m;
			}
		}
	}
	free(prog);
	free(by_comm);
	free(by_samples);
	free(stamp);
	return best;
}

/* Groups the segments by module: segs_of[m] .. segs_of[m + 1] in seg_index. */
void pprof_index_segments(struct pprof *x)
{
	const struct profile *p = x->p;

	x->segs_of = xcalloc(p->nmodules + 2, sizeof(*x->segs_of));
	x->seg_index = xcalloc(p->nsegments + 1, sizeof(*x->seg_index));
	for (size_t i = 0; i < p->nsegments; i++)
		x->segs_of[p->segments[i].module + 2]++;
	for (size_t m = 0; m < p->nmodules; m++)
		x->segs_of[m + 2] += x->segs_of[m + 1];
	for (size_t i = 0; i < p->nsegments; i++)
		x->seg_index[x->segs_of[p->segments[i].module + 1]++] = (uint32_t)i;
}
