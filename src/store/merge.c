/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * merge.c - several recordings into one profile (profile_merge), for
 * report -i A -i B and the slices of record --switch-output.
 *
 * Everything of src is added to dst under dst's ids: strings interned
 * again, a module matched by its path and build-id (a file written
 * before the recording's end may not have the build-id yet), else added
 * with its segments, frames and stacks interned (a frame named in either keeps
 * its names), then the samples, off-CPU spans with their wake-ups and
 * threads appended. Time grows linearly with src; nothing is read twice.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/profile.h"
#include "util/alloc.h"
#include "util/hash.h"
#include "util/hmap.h"
#include "util/sbuf.h"

/* src's string off in dst. */
static uint32_t str_in(struct profile *dst, const struct profile *src, uint32_t off)
{
	return off ? strtab_add(&dst->str, strtab_get(&src->str, off)) : 0;
}

/*
 * src's segment indexes by module, by a counting sort: module i's are
 * at[start[i] .. start[i + 1]) (start has nmodules + 1 entries).
 */
struct segs_by_module {
	size_t *start, *at;
};

static void segs_by_module(const struct profile *src, struct segs_by_module *b)
{
	b->start = xcalloc(src->nmodules + 2, sizeof(*b->start));
	b->at = xcalloc(src->nsegments + 1, sizeof(*b->at));
	for (size_t g = 0; g < src->nsegments; g++)
		if (src->segments[g].module < src->nmodules)
			b->start[src->segments[g].module + 2]++;
	for (size_t i = 2; i < src->nmodules + 2; i++)
		b->start[i] += b->start[i - 1];
	for (size_t g = 0; g < src->nsegments; g++)
		if (src->segments[g].module < src->nmodules)
			b->at[b->start[src->segments[g].module + 1]++] = g;
}

/*
 * dst's modules by path (a string of dst): the latest of each path, the
 * ones before it through next (PM_NONE ends). A slice of a busy machine
 * holds tens of thousands of modules: not each looked for among all.
 */
struct modules_by_path {
	struct hmap latest;
	uint32_t *next; /* by module id */
	size_t cap;
};

static void by_path_add(struct modules_by_path *b, uint32_t path, uint32_t k)
{
	bool added;
	struct hmap_slot *slot = hmap_insert(&b->latest, path, &added);

	xgrow(&b->next, &b->cap, (size_t)k + 1, sizeof(*b->next));
	b->next[k] = added ? PM_NONE : (uint32_t)slot->val;
	slot->val = k;
}

/*
 * The first of dst's modules (the lowest id) of path and build-id id. A
 * file written before the recording's end may not have its modules'
 * build-ids yet (they are read last): no build-id matches any of the
 * same path, and takes the other's. dst->nmodules if none.
 */
static size_t find_module(const struct profile *dst, const struct modules_by_path *b, uint32_t path,
			  uint32_t id)
{
	const struct hmap_slot *slot = hmap_find(&b->latest, path);
	size_t found = dst->nmodules;

	for (uint32_t k = slot ? (uint32_t)slot->val : PM_NONE; k != PM_NONE; k = b->next[k])
		if (dst->modules[k].build_id == id || !dst->modules[k].build_id || !id)
			found = k;
	return found;
}

/* src's modules in dst: an array by src module id (malloc'd). */
static uint32_t *merge_modules(struct profile *dst, const struct profile *src)
{
	uint32_t *map = xcalloc(src->nmodules + 1, sizeof(*map));
	struct modules_by_path paths = {0};
	struct segs_by_module by;

	segs_by_module(src, &by);
	for (size_t k = 0; k < dst->nmodules; k++)
		by_path_add(&paths, dst->modules[k].path, (uint32_t)k);
	for (size_t i = 0; i < src->nmodules; i++) {
		const struct pm_module *m = &src->modules[i];
		uint32_t path = str_in(dst, src, m->path), id = str_in(dst, src, m->build_id);
		size_t k = find_module(dst, &paths, path, id);

		if (k < dst->nmodules && !dst->modules[k].build_id && id) {
			dst->modules[k].build_id = id;
			dst->modules[k].flags = m->flags;
			dst->modules[k].reason = str_in(dst, src, m->reason);
		}
		/* Two recordings that disagree on the owner: nobody is sure of it. */
		if (k < dst->nmodules && dst->modules[k].owner != m->owner)
			dst->modules[k].owner = PM_OWNER_UNKNOWN;
		if (k == dst->nmodules) {
			k = profile_add_module(dst, strtab_get(&dst->str, path),
					       strtab_get(&dst->str, id), m->flags);
			dst->modules[k].reason = str_in(dst, src, m->reason);
			dst->modules[k].owner = m->owner;
			by_path_add(&paths, path, (uint32_t)k);
		}
		/* Its segments from the first slice that has them (a slice may hold its name alone). */
		if (by.start[i] < by.start[i + 1] && !profile_module_has_segments(dst, (uint32_t)k))
			for (size_t g = by.start[i]; g < by.start[i + 1]; g++) {
				struct pm_segment seg = src->segments[by.at[g]];

				seg.module = (uint32_t)k;
				profile_add_segment(dst, &seg);
			}
		map[i] = (uint32_t)k;
	}
	free(by.start);
	free(by.at);
	hmap_release(&paths.latest);
	free(paths.next);
	return map;
}

/* src's frames in dst, with their lines where dst has none: an array by src frame id. */
static uint32_t *merge_frames(struct profile *dst, const struct profile *src, const uint32_t *mods)
{
	uint32_t *map = xcalloc(src->nframes + 1, sizeof(*map));

	for (size_t i = 0; i < src->nframes; i++) {
		const struct pm_frame *f = &src->frames[i];
		uint32_t m = f->module == PM_NONE ? PM_NONE : mods[f->module];
		uint32_t nf = profile_intern_frame(dst, m, f->flags, f->addr);

		if (!dst->frames[nf].nlines)
			for (uint32_t k = 0; k < f->nlines; k++) {
				struct pm_line l = src->lines[f->line0 + k];

				l.func = str_in(dst, src, l.func);
				l.file = str_in(dst, src, l.file);
				profile_add_line(dst, nf, &l);
			}
		map[i] = nf;
	}
	return map;
}

/* src's stacks in dst: an array by src stack id. */
static uint32_t *merge_stacks(struct profile *dst, const struct profile *src,
			      const uint32_t *frames)
{
	uint32_t *map = xcalloc(src->nstacks + 1, sizeof(*map)), *tmp = NULL;
	size_t cap = 0;

	for (size_t i = 0; i < src->nstacks; i++) {
		const struct pm_stack *s = &src->stacks[i];

		xgrow(&tmp, &cap, s->depth + 1, sizeof(*tmp));
		for (uint32_t d = 0; d < s->depth; d++)
			tmp[d] = frames[src->stack_frames[s->off + d]];
		map[i] = profile_intern_stack(dst, tmp, s->depth);
	}
	free(tmp);
	return map;
}

/*
 * src's off-CPU spans, with their wake-ups: dst keeps one wake-up per
 * span or none, so a recording without them gets empty ones beside one
 * that has them.
 */
static void merge_offcpu(struct profile *dst, const struct profile *src, const uint32_t *stacks)
{
	bool src_w = src->noffcpu && src->nwakeups == src->noffcpu;
	const struct pm_wakeup none = {0};

	if (src_w)
		while (dst->nwakeups < dst->noffcpu)
			profile_add_wakeup(dst, &none);
	for (size_t i = 0; i < src->noffcpu; i++) {
		struct pm_offcpu o = src->offcpu[i];
		bool pad = dst->nwakeups == dst->noffcpu && dst->nwakeups;

		o.stack = stacks[o.stack];
		o.comm = str_in(dst, src, o.comm);
		profile_add_offcpu(dst, &o);
		if (src_w) {
			struct pm_wakeup w = src->wakeups[i];

			if (w.flags & PM_WAKEUP_SEEN)
				w.stack = stacks[w.stack];
			w.comm = str_in(dst, src, w.comm);
			profile_add_wakeup(dst, &w);
		} else if (pad) {
			profile_add_wakeup(dst, &none);
		}
	}
}

static void set_u64(struct profile *p, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	profile_set_meta(p, key, buf);
}

/*
 * Whether p and q are slices of one recording (--switch-output): the same
 * start time, each with where its slice begins.
 */
static bool same_recording(const struct profile *p, const struct profile *q)
{
	const char *a = profile_get_meta(p, "start-time"), *b = profile_get_meta(q, "start-time");

	return a && b && !strcmp(a, b) && profile_get_meta(p, "slice-start-ns") &&
	       profile_get_meta(q, "slice-start-ns");
}

/* The counts of the meta entries that files add up, where either file has them. */
static void sum_counts(struct profile *dst, const struct profile *src)
{
	static const char *const counts[] = {"unwind-stacks",
					     "unwind-complete",
					     "unwind-by-cfi",
					     "unwind-spliced",
					     "unwind-spliced-past",
					     "unwind-fp-only",
					     "unwind-agreed",
					     "unwind-tables-won-skipped",
					     "unwind-tables-won-not-ra",
					     "unwind-chain-won",
					     "names-kept"};

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		if (profile_get_meta(dst, counts[i]) || profile_get_meta(src, counts[i]))
			set_u64(dst, counts[i],
				profile_get_meta_u64(dst, counts[i]) +
					profile_get_meta_u64(src, counts[i]));
}

/* The line at *at (to its newline or end), *at moved past it; NULL at the end. */
static const char *next_line(const char **at, size_t *len)
{
	const char *l = *at, *nl;

	if (!*l)
		return NULL;
	nl = strchr(l, '\n');
	*len = nl ? (size_t)(nl - l) : strlen(l);
	*at = l + *len + (nl ? 1 : 0);
	return l;
}

/* Whether line l (len bytes) and line m (mlen) name one (reason, module): all past the count. */
static bool same_cut(const char *l, size_t len, const char *m, size_t mlen)
{
	const char *tab = memchr(l, '\t', len), *mtab = memchr(m, '\t', mlen);

	return tab && mtab && len - (size_t)(tab - l) == mlen - (size_t)(mtab - m) &&
	       !memcmp(tab, mtab, len - (size_t)(tab - l));
}

/*
 * "unwind-cut": lines "COUNT\tREASON\tMODULE", one per (reason, module):
 * src's added to dst's, a pair in both summed.
 */
static void sum_cuts(struct profile *dst, const struct profile *src)
{
	const char *a = profile_get_meta(dst, "unwind-cut"),
		   *b = profile_get_meta(src, "unwind-cut");
	struct sbuf out = SBUF_INIT;
	const char *l, *m, *at, *other;
	size_t len, mlen;

	if (!b || !*b)
		return;
	/* dst's lines, each with what src has of its pair. */
	for (at = a ? a : ""; (l = next_line(&at, &len));) {
		const char *tab = memchr(l, '\t', len);
		unsigned long long n = strtoull(l, NULL, 10);

		if (!tab)
			continue;
		for (other = b; (m = next_line(&other, &mlen));)
			if (same_cut(l, len, m, mlen))
				n += strtoull(m, NULL, 10);
		sbuf_addf(&out, "%llu%.*s\n", n, (int)(len - (size_t)(tab - l)), tab);
	}
	/* src's pairs that dst has not. */
	for (at = b; (l = next_line(&at, &len));) {
		bool found = false;

		for (other = a ? a : ""; !found && (m = next_line(&other, &mlen));)
			found = same_cut(l, len, m, mlen);
		if (!found && memchr(l, '\t', len))
			sbuf_addf(&out, "%.*s\n", (int)len, l);
	}
	profile_set_meta(dst, "unwind-cut", out.buf);
	sbuf_release(&out);
}

/*
 * Meta: dst's first file's, with the counts summed (samples, losses, how
 * stacks were unwound and where they were cut, frames named from kept
 * names: each slice holds its own); the duration, for slices of one
 * recording, from the first's start to the last's end, else the longest.
 */
static void merge_meta(struct profile *dst, const struct profile *src)
{
	static const char *const sums[] = {"samples", "lost-records", "lost-samples",
					   "bad-records"};
	uint64_t d0, d1, s0, s1;

	if (!dst->nmeta) {
		for (size_t i = 0; i < src->nmeta; i++)
			profile_set_meta(dst, strtab_get(&src->str, src->meta[i].key),
					 strtab_get(&src->str, src->meta[i].value));
		return;
	}
	for (size_t i = 0; i < sizeof(sums) / sizeof(sums[0]); i++)
		set_u64(dst, sums[i],
			profile_get_meta_u64(dst, sums[i]) + profile_get_meta_u64(src, sums[i]));
	sum_cuts(dst, src);
	sum_counts(dst, src);
	d0 = profile_get_meta_u64(dst, "duration-ns");
	d1 = profile_get_meta_u64(src, "duration-ns");
	if (same_recording(dst, src)) {
		s0 = profile_get_meta_u64(dst, "slice-start-ns");
		s1 = profile_get_meta_u64(src, "slice-start-ns");
		set_u64(dst, "duration-ns",
			(s0 + d0 > s1 + d1 ? s0 + d0 : s1 + d1) - (s0 < s1 ? s0 : s1));
		set_u64(dst, "slice-start-ns", s0 < s1 ? s0 : s1);
	} else if (d1 > d0) {
		set_u64(dst, "duration-ns", d1);
	}
}

void profile_merge(struct profile *dst, const struct profile *src)
{
	uint32_t *mods = merge_modules(dst, src);
	uint32_t *frames = merge_frames(dst, src, mods);
	uint32_t *stacks = merge_stacks(dst, src, frames);

	merge_meta(dst, src);
	for (size_t i = 0; i < src->nsamples; i++) {
		struct pm_sample s = src->samples[i];

		s.stack = stacks[s.stack];
		s.comm = str_in(dst, src, s.comm);
		s.cgroup = str_in(dst, src, s.cgroup);
		profile_add_sample(dst, &s);
	}
	merge_offcpu(dst, src, stacks);
	for (size_t i = 0; i < src->nthreads; i++) {
		profile_add_thread(dst, src->threads[i].pid, src->threads[i].tid,
				   strtab_get(&src->str, src->threads[i].comm));
		dst->threads[dst->nthreads - 1].cgroup = str_in(dst, src, src->threads[i].cgroup);
	}
	free(mods);
	free(frames);
	free(stacks);
}
