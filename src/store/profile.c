/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile.c - building a profile in memory; see profile.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "store/profile.h"
#include "util/alloc.h"
#include "util/hash.h"
#include "util/parse.h"

void strtab_init(struct strtab *t)
{
	t->buf = xmalloc(64);
	t->buf[0] = '\0';
	t->len = 1;
	t->cap = 64;
	hmap_init(&t->index);
}

void strtab_release(struct strtab *t)
{
	free(t->buf);
	hmap_release(&t->index);
	t->buf = NULL;
	t->len = t->cap = 0;
}

/* The string at offset val of strtab ctx. */
static const char *str_at(uint64_t val, const void *ctx, size_t *len)
{
	const struct strtab *t = ctx;
	const char *at = t->buf + val;

	*len = strlen(at);
	return at;
}

uint32_t strtab_addn(struct strtab *t, const char *s, size_t n)
{
	struct hmap_slot *slot;
	bool added;
	uint32_t off;

	if (n == 0)
		return 0;
	slot = hmap_intern_str(&t->index, s, n, str_at, t, &added);
	if (!added)
		return (uint32_t)slot->val;
	xgrow(&t->buf, &t->cap, t->len + n + 1, 1);
	off = (uint32_t)t->len;
	memcpy(t->buf + off, s, n);
	t->buf[off + n] = '\0';
	t->len += n + 1;
	slot->val = off;
	return off;
}

uint32_t strtab_add(struct strtab *t, const char *s)
{
	return strtab_addn(t, s, strlen(s));
}

struct profile *profile_new(void)
{
	struct profile *p = xcalloc(1, sizeof(*p));

	strtab_init(&p->str);
	hmap_init(&p->frame_index);
	hmap_init(&p->stack_index);
	return p;
}

/*
 * A profile of p's modules under the same ids, those keep (if not NULL)
 * refuses, or that p holds let go, with their number, kind and owner
 * alone (profile_new_next's rules); its dropped bytes say which.
 */
static struct profile *modules_of(const struct profile *p, bool (*keep)(uint32_t module, void *arg),
				  void *arg)
{
	struct profile *n = profile_new();
	uint8_t *gone = (keep || p->ndropped) && p->nmodules ? xcalloc(p->nmodules, 1) : NULL;

	for (size_t i = 0; i < p->nmodules; i++) {
		const struct pm_module *m = &p->modules[i];
		/*
		 * Dropped in p and not given back: dropped again, kept or not
		 * (it may be mapped again meanwhile). p has nothing of it to
		 * carry, and only a frame of it brings its path back.
		 */
		bool empty = profile_module_dropped(p, (uint32_t)i) && !m->path;
		bool kept = !empty && (!keep || keep((uint32_t)i, arg));
		uint32_t id;

		if (!kept) {
			/* Its number, kind and owner only: nothing of it is in the slice. */
			gone[i] = 1;
			id = profile_add_module(n, "", "",
						m->flags & ((1u << PM_MODULE_REASON_SHIFT) - 1));
			n->modules[id].owner = m->owner;
			continue;
		}
		id = profile_add_module(n, strtab_get(&p->str, m->path),
					strtab_get(&p->str, m->build_id), m->flags);
		if (m->reason)
			n->modules[id].reason = strtab_add(&n->str, strtab_get(&p->str, m->reason));
		n->modules[id].owner = m->owner;
	}
	n->dropped = gone;
	n->ndropped = gone ? p->nmodules : 0;
	return n;
}

struct profile *profile_new_next(const struct profile *p, bool (*keep)(uint32_t module, void *arg),
				 void *arg)
{
	struct profile *n = modules_of(p, keep, arg);

	for (size_t i = 0; i < p->nmeta; i++)
		profile_set_meta(n, strtab_get(&p->str, p->meta[i].key),
				 strtab_get(&p->str, p->meta[i].value));
	for (size_t i = 0; i < p->nsegments; i++)
		if (!profile_module_dropped(n, p->segments[i].module))
			profile_add_segment(n, &p->segments[i]);
	/*
	 * Room for half as many frames and stacks as p has: a slice is most
	 * often like the one before, and its tables do not grow (and rehash)
	 * again from nothing, but grow once more at most; room for all of
	 * them would be held, unused, for much of the slice.
	 */
	xgrow(&n->frames, &n->frames_cap, p->nframes / 2, sizeof(*n->frames));
	xgrow(&n->lines, &n->lines_cap, p->nlines / 2, sizeof(*n->lines));
	xgrow(&n->stacks, &n->stacks_cap, p->nstacks / 2, sizeof(*n->stacks));
	xgrow(&n->stack_frames, &n->stack_frames_cap, p->nstack_frames / 2,
	      sizeof(*n->stack_frames));
	hmap_reserve(&n->frame_index, p->nframes / 2);
	hmap_reserve(&n->stack_index, p->nstacks / 2);
	return n;
}

struct profile *profile_carry(const struct profile *p, bool (*keep)(uint32_t module, void *arg),
			      void *arg)
{
	struct profile *n = modules_of(p, keep, arg);

	for (size_t g = 0; g < p->nframes; g++) {
		const struct pm_frame *fr = &p->frames[g];

		if (fr->nlines && !profile_module_dropped(n, fr->module))
			profile_copy_lines(n,
					   profile_intern_frame(n, fr->module, fr->flags, fr->addr),
					   p, (uint32_t)g);
	}
	return n;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	strtab_release(&p->str);
	free(p->meta);
	free(p->modules);
	free(p->frames);
	free(p->lines);
	free(p->segments);
	free(p->stack_frames);
	free(p->stacks);
	free(p->samples);
	free(p->offcpu);
	free(p->wakeups);
	free(p->threads);
	free(p->stack_samples);
	hmap_release(&p->frame_index);
	hmap_release(&p->stack_index);
	free(p->seg_modules);
	free(p->dropped);
	free(p->again);
	free(p);
}

void profile_set_meta(struct profile *p, const char *key, const char *value)
{
	uint32_t k = strtab_add(&p->str, key);

	for (size_t i = 0; i < p->nmeta; i++) {
		if (p->meta[i].key == k) {
			p->meta[i].value = strtab_add(&p->str, value);
			return;
		}
	}
	xgrow(&p->meta, &p->meta_cap, p->nmeta + 1, sizeof(*p->meta));
	p->meta[p->nmeta].key = k;
	p->meta[p->nmeta].value = strtab_add(&p->str, value);
	p->nmeta++;
}

const char *profile_get_meta(const struct profile *p, const char *key)
{
	for (size_t i = 0; i < p->nmeta; i++)
		if (strcmp(strtab_get(&p->str, p->meta[i].key), key) == 0)
			return strtab_get(&p->str, p->meta[i].value);
	return NULL;
}

uint64_t profile_get_meta_u64(const struct profile *p, const char *key)
{
	const char *v = profile_get_meta(p, key);
	uint64_t n = 0;

	if (v && parse_u64(v, &n) < 0)
		n = 0;
	return n;
}

uint32_t profile_add_module(struct profile *p, const char *path, const char *build_id,
			    uint32_t flags)
{
	struct pm_module *m;

	xgrow(&p->modules, &p->modules_cap, p->nmodules + 1, sizeof(*p->modules));
	m = &p->modules[p->nmodules];
	m->path = strtab_add(&p->str, path);
	m->build_id = strtab_add(&p->str, build_id ? build_id : "");
	m->flags = flags;
	m->reason = 0;
	m->owner = PM_OWNER_UNKNOWN;
	return (uint32_t)p->nmodules++;
}

static uint64_t frame_key(uint32_t module, uint32_t flags, uint64_t addr)
{
	return hash_u64(addr) ^ hash_u64(((uint64_t)module << 32 | flags) + 0x51ed270b27f2c9d1ULL);
}

struct frame_key {
	const struct profile *p;
	struct pm_frame f;
};

static bool same_frame(uint64_t val, const void *arg)
{
	const struct frame_key *k = arg;
	const struct pm_frame *f = &k->p->frames[val];

	return f->module == k->f.module && f->flags == k->f.flags && f->addr == k->f.addr;
}

uint32_t profile_intern_frame(struct profile *p, uint32_t module, uint32_t flags, uint64_t addr)
{
	struct frame_key k = {p, {.module = module, .flags = flags, .addr = addr}};
	struct hmap_slot *slot;
	struct pm_frame *f;
	bool added;

	slot = hmap_intern(&p->frame_index, frame_key(module, flags, addr), same_frame, &k, &added);
	if (!added)
		return (uint32_t)slot->val;
	xgrow(&p->frames, &p->frames_cap, p->nframes + 1, sizeof(*p->frames));
	f = &p->frames[p->nframes];
	f->module = module;
	f->flags = flags;
	f->addr = addr;
	f->line0 = 0;
	f->nlines = 0;
	slot->val = p->nframes;
	return (uint32_t)p->nframes++;
}

uint32_t profile_find_frame(const struct profile *p, uint32_t module, uint32_t flags, uint64_t addr)
{
	struct frame_key k = {p, {.module = module, .flags = flags, .addr = addr}};
	const struct hmap_slot *slot =
		hmap_seek(&p->frame_index, frame_key(module, flags, addr), same_frame, &k);

	return slot ? (uint32_t)slot->val : PM_NONE;
}

struct stack_key {
	const struct profile *p;
	const uint32_t *frames;
	uint32_t depth;
};

static bool same_stack(uint64_t val, const void *arg)
{
	const struct stack_key *k = arg;
	const struct pm_stack *s = &k->p->stacks[val];

	return s->depth == k->depth &&
	       memcmp(k->p->stack_frames + s->off, k->frames, k->depth * sizeof(*k->frames)) == 0;
}

uint32_t profile_intern_stack(struct profile *p, const uint32_t *frames, uint32_t depth)
{
	struct stack_key k = {p, frames, depth};
	struct hmap_slot *slot;
	struct pm_stack *s;
	bool added;

	slot = hmap_intern(&p->stack_index, hash_fast(frames, depth * sizeof(*frames)), same_stack,
			   &k, &added);
	if (!added)
		return (uint32_t)slot->val;
	xgrow(&p->stack_frames, &p->stack_frames_cap, p->nstack_frames + depth,
	      sizeof(*p->stack_frames));
	memcpy(p->stack_frames + p->nstack_frames, frames, depth * sizeof(*frames));
	xgrow(&p->stacks, &p->stacks_cap, p->nstacks + 1, sizeof(*p->stacks));
	s = &p->stacks[p->nstacks];
	s->off = (uint32_t)p->nstack_frames;
	s->depth = depth;
	p->nstack_frames += depth;
	slot->val = p->nstacks;
	return (uint32_t)p->nstacks++;
}

void profile_add_wakeup(struct profile *p, const struct pm_wakeup *w)
{
	xgrow(&p->wakeups, &p->wakeups_cap, p->nwakeups + 1, sizeof(*p->wakeups));
	p->wakeups[p->nwakeups++] = *w;
}

void profile_add_offcpu(struct profile *p, const struct pm_offcpu *o)
{
	xgrow(&p->offcpu, &p->offcpu_cap, p->noffcpu + 1, sizeof(*p->offcpu));
	p->offcpu[p->noffcpu++] = *o;
}

void profile_add_sample(struct profile *p, const struct pm_sample *s)
{
	xgrow(&p->samples, &p->samples_cap, p->nsamples + 1, sizeof(*p->samples));
	p->samples[p->nsamples++] = *s;
}

void profile_count_sample(struct profile *p, uint32_t stack)
{
	size_t old = p->stack_samples_cap;

	if (stack < old) {
		p->stack_samples[stack]++;
		return;
	}
	xgrow(&p->stack_samples, &p->stack_samples_cap, (size_t)stack + 1,
	      sizeof(*p->stack_samples));
	if (p->stack_samples_cap > old)
		memset(p->stack_samples + old, 0,
		       (p->stack_samples_cap - old) * sizeof(*p->stack_samples));
	p->stack_samples[stack]++;
}

uint64_t *profile_stack_weights(const struct profile *p)
{
	uint64_t *w = xcalloc(p->nstacks ? p->nstacks : 1, sizeof(*w));

	for (size_t i = 0; i < p->nstacks && i < p->stack_samples_cap; i++)
		w[i] = p->stack_samples[i];
	for (size_t i = 0; i < p->nsamples; i++)
		w[p->samples[i].stack]++;
	return w;
}

void profile_add_line(struct profile *p, uint32_t f, const struct pm_line *l)
{
	struct pm_frame *fr = &p->frames[f];

	xgrow(&p->lines, &p->lines_cap, p->nlines + 1, sizeof(*p->lines));
	if (fr->nlines == 0)
		fr->line0 = (uint32_t)p->nlines;
	p->lines[p->nlines++] = *l;
	fr->nlines++;
}

void profile_copy_lines(struct profile *p, uint32_t f, const struct profile *from, uint32_t g)
{
	const struct pm_frame *fr = &from->frames[g];

	for (uint32_t k = 0; k < fr->nlines; k++) {
		struct pm_line l = from->lines[fr->line0 + k];

		l.func = strtab_add(&p->str, strtab_get(&from->str, l.func));
		l.file = strtab_add(&p->str, strtab_get(&from->str, l.file));
		profile_add_line(p, f, &l);
	}
}

void profile_add_thread(struct profile *p, uint32_t pid, uint32_t tid, const char *comm)
{
	struct pm_thread *t;

	xgrow(&p->threads, &p->threads_cap, p->nthreads + 1, sizeof(*p->threads));
	t = &p->threads[p->nthreads++];
	t->pid = pid;
	t->tid = tid;
	t->comm = strtab_add(&p->str, comm);
	t->cgroup = 0;
}

void profile_add_segment(struct profile *p, const struct pm_segment *s)
{
	xgrow(&p->segments, &p->segments_cap, p->nsegments + 1, sizeof(*p->segments));
	p->segments[p->nsegments++] = *s;
}

bool profile_module_dropped(const struct profile *p, uint32_t module)
{
	return module < p->ndropped && p->dropped[module];
}

/* Module id's row changed after a file may have written it: the file's next chunk writes it again. */
static void row_again(struct profile *p, uint32_t id)
{
	xgrow(&p->again, &p->again_cap, p->nagain + 1, sizeof(*p->again));
	p->again[p->nagain++] = id;
}

void profile_module_back(struct profile *p, uint32_t module, const char *path)
{
	if (!profile_module_dropped(p, module) || p->modules[module].path)
		return;
	p->modules[module].path = strtab_add(&p->str, path);
	row_again(p, module);
}

void profile_module_drop(struct profile *p, uint32_t id)
{
	struct pm_module *m;

	if (id >= p->nmodules)
		return;
	m = &p->modules[id];
	if (id >= p->ndropped) {
		p->dropped = xrealloc(p->dropped, p->nmodules);
		memset(p->dropped + p->ndropped, 0, p->nmodules - p->ndropped);
		p->ndropped = p->nmodules;
	}
	p->dropped[id] = 1;
	m->path = m->build_id = m->reason = 0;
	m->flags &= (1u << PM_MODULE_REASON_SHIFT) - 1;
	row_again(p, id);
}

void profile_module_reuse(struct profile *p, uint32_t id, const char *path, uint32_t flags)
{
	struct pm_module *m = &p->modules[id];

	m->path = strtab_add(&p->str, path);
	m->build_id = 0;
	m->flags = flags;
	m->reason = 0;
	m->owner = PM_OWNER_UNKNOWN;
	if (id < p->ndropped)
		p->dropped[id] = 0;
	row_again(p, id);
}

bool profile_module_has_segments(struct profile *p, uint32_t module)
{
	/* The segments added since the last look, noted: a look costs what was added since. */
	for (; p->segs_seen < p->nsegments; p->segs_seen++) {
		uint32_t m = p->segments[p->segs_seen].module;

		if (m == PM_NONE)
			continue;
		xgrow_zero(&p->seg_modules, &p->seg_modules_cap, (size_t)m + 1, 1);
		p->seg_modules[m] = 1;
	}
	return module < p->seg_modules_cap && p->seg_modules[module];
}
