/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stack.c - sample stacks to interned profile stacks; see stack.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "elf/addr.h"
#include "stack/jitmap.h"
#include "stack/stack.h"
#include "util/alloc.h"
#include "util/bytes.h"
#include "util/hash.h"

/*
 * The callchains last turned into stacks, by hash. A program samples the
 * same few chains over and over, and a chain met again while its process's
 * mappings are unchanged makes the same stack: its frames need not be
 * looked up and interned once more. The chain is the kernel's
 * (frame-pointer mode), or its kernel part and the user addresses that an
 * unwinding ahead found (the stack copy no longer matters then); without
 * JIT frames (they depend on the perf map and on the time: see
 * user_frame), of at most CHAIN_MAX entries. Direct-mapped: a newer chain
 * takes its slot.
 */
#define CHAIN_SLOTS 1024
#define CHAIN_MAX   64
_Static_assert(CHAIN_MAX * 8 <= sizeof(((struct stacker *)0)->key), "stacker.key holds a chain");

struct chain {
	uint64_t hash, gen; /* gen: of the process's mappings, for the stack */
	uint32_t pid, nr, stack;
	uint32_t outer;		 /* unwound: the outermost user frame, PM_NONE if none */
	uint8_t end, how, judge; /* unwound: how its unwinding went */
	unsigned char ips[CHAIN_MAX * 8];
};

/*
 * The frames last made of addresses, by address and the generation of the
 * mappings it was found in (maps_generation: unique over every process's
 * set; KERNEL_GEN for the kernel): an address met again under the same
 * mappings is the same frame, with no mapping lookup and no interning.
 * This is what a chain the chain cache misses (a kernel part that differs,
 * a deeper call) still saves on its frames. Not JIT frames. Direct-mapped,
 * like the chains.
 */
#define FRAME_SLOTS 4096
#define KERNEL_GEN  UINT64_MAX

struct frame_slot {
	uint64_t addr, gen; /* gen 0: empty (no mapping set has generation 0) */
	uint32_t id;
};

/*
 * The key of an unwound-ahead sample in the chain cache, into key
 * (CHAIN_MAX entries): its chain's kernel part, the user marker, then the
 * unwound addresses. Returns the entries, 0 when they do not fit.
 */
static size_t ahead_key(const struct rec_sample *smp, const struct stack_ahead *h,
			const void *ahead, uint64_t *key)
{
	size_t n = 0;

	for (uint64_t i = 0; i < smp->nr; i++) {
		uint64_t ip = sample_ip_at(smp, i);

		if (ip == (uint64_t)PERF_CONTEXT_USER)
			break;
		if (n == CHAIN_MAX)
			return 0;
		key[n++] = ip;
	}
	if (n + 1 + h->n > CHAIN_MAX)
		return 0;
	key[n++] = (uint64_t)PERF_CONTEXT_USER;
	memcpy(key + n, (const unsigned char *)ahead + sizeof(*h), (size_t)h->n * 8);
	return n + h->n;
}

void stacker_init(struct stacker *s, struct model *model, struct profile *prof,
		  struct unwinder *unwinder, stack_new_frame_fn new_frame, void *arg)
{
	memset(s, 0, sizeof(*s));
	s->model = model;
	s->prof = prof;
	s->kernel = module_set_kernel(model->mods);
	s->unwinder = unwinder;
	s->new_frame = new_frame;
	s->new_frame_arg = arg;
	unwind_stats_init(&s->unw);
}

void stacker_release(struct stacker *s)
{
	free(s->chains);
	s->chains = NULL;
	free(s->fslots);
	s->fslots = NULL;
	for (size_t i = 0; i < s->njitmaps; i++)
		jitmap_free(s->jitmaps[i]);
	free(s->jitmaps);
	s->jitmaps = NULL;
	s->njitmaps = 0;
	unwind_stats_release(&s->unw);
}

/* Adds a frame to the stack being built; returns its id, or PM_NONE when the stack is full. */
static uint32_t add_frame(struct stacker *s, uint32_t *n, uint32_t module, uint32_t flags,
			  uint64_t addr)
{
	size_t before = s->prof->nframes;
	uint32_t id;

	if (*n == STACK_MAX_FRAMES)
		return PM_NONE;
	id = profile_intern_frame(s->prof, module, flags, addr);
	s->frames[(*n)++] = id;
	if (s->prof->nframes != before && module != PM_NONE) {
		module_touch(s->model->mods->mods[module]);
		if (profile_module_dropped(s->prof, module))
			profile_module_back(s->prof, module, s->model->mods->mods[module]->path);
		if (s->new_frame)
			s->new_frame(s->new_frame_arg, s->model->mods->mods[module], id, addr);
	}
	return id;
}

/*
 * The id in s's profile of frame f of profile from, added if new: with
 * from's lines when it has them, else handed to new_frame to be named.
 */
static uint32_t carry_frame(struct stacker *s, const struct profile *from, uint32_t f)
{
	const struct pm_frame *fr = &from->frames[f];
	struct profile *to = s->prof;
	size_t before = to->nframes;
	uint32_t id = profile_intern_frame(to, fr->module, fr->flags, fr->addr);

	if (to->nframes == before)
		return id;
	if (fr->module != PM_NONE && profile_module_dropped(to, fr->module))
		profile_module_back(to, fr->module, s->model->mods->mods[fr->module]->path);
	profile_copy_lines(to, id, from, f);
	if (!fr->nlines && fr->module != PM_NONE && s->new_frame)
		s->new_frame(s->new_frame_arg, s->model->mods->mods[fr->module], id, fr->addr);
	return id;
}

uint32_t stacker_carry_stack(struct stacker *s, const struct profile *from, uint32_t stack)
{
	const struct pm_stack *st = &from->stacks[stack];
	uint32_t n = 0;

	for (uint32_t d = 0; d < st->depth && n < STACK_MAX_FRAMES; d++)
		s->frames[n++] = carry_frame(s, from, from->stack_frames[st->off + d]);
	return profile_intern_stack(s->prof, s->frames, n);
}

void stacker_switch_profile(struct stacker *s, struct profile *to)
{
	struct profile *from = s->prof;
	struct hmap outer = s->unw.outer;
	const struct hmap_slot *slot;

	s->prof = to;
	hmap_init(&s->unw.outer);
	for (size_t pos = 0; (slot = hmap_next(&outer, &pos));) {
		uint64_t f = carry_frame(s, from, (uint32_t)slot->key);

		hmap_insert(&s->unw.outer, (slot->key >> 32) << 32 | f, NULL)->val += slot->val;
	}
	hmap_release(&outer);
	/* The caches hold ids of from. */
	free(s->chains);
	s->chains = NULL;
	free(s->fslots);
	s->fslots = NULL;
}

/* The slot of address addr under generation gen; true if it holds that frame. */
static bool frame_slot(struct stacker *s, uint64_t addr, uint64_t gen, struct frame_slot **slot)
{
	if (!s->fslots)
		s->fslots = xcalloc(FRAME_SLOTS, sizeof(*s->fslots));
	*slot = &s->fslots[hash_u64(addr ^ gen) & (FRAME_SLOTS - 1)];
	return (*slot)->gen == gen && (*slot)->addr == addr;
}

static void cached_frame(struct stacker *s, uint32_t *n, struct frame_slot *slot)
{
	s->frame_hits++;
	if (*n < STACK_MAX_FRAMES)
		s->frames[(*n)++] = slot->id;
}

static void remember_frame(struct frame_slot *slot, uint64_t addr, uint64_t gen, uint32_t id)
{
	if (slot && id != PM_NONE) {
		slot->addr = addr;
		slot->gen = gen;
		slot->id = id;
	}
}

static void kernel_frame(struct stacker *s, uint32_t *n, uint64_t ip)
{
	struct frame_slot *slot;

	if (frame_slot(s, ip, KERNEL_GEN, &slot))
		cached_frame(s, n, slot);
	else
		remember_frame(slot, ip, KERNEL_GEN,
			       add_frame(s, n, s->kernel->id, PM_FRAME_KERNEL, ip));
}

/*
 * The flags of a frame at address a of JIT module jit: the line of its
 * perf map in force for a at the sample's time, when there is one.
 */
static uint32_t jit_flags(struct stacker *s, const struct module *jit, uint64_t a)
{
	uint64_t line;

	if (jit->fd < 0)
		return 0;
	if (jit->id >= s->njitmaps) {
		size_t n = s->njitmaps ? s->njitmaps : 16;

		while (n <= jit->id)
			n *= 2;
		s->jitmaps = xrealloc(s->jitmaps, n * sizeof(*s->jitmaps));
		memset(s->jitmaps + s->njitmaps, 0, (n - s->njitmaps) * sizeof(*s->jitmaps));
		s->njitmaps = n;
	}
	if (!s->jitmaps[jit->id])
		s->jitmaps[jit->id] = jitmap_new();
	line = jitmap_line(s->jitmaps[jit->id], jit->fd, a, s->time);
	return line && line <= PM_FRAME_PERFMAP_LINE_MAX
		       ? (uint32_t)line << PM_FRAME_PERFMAP_LINE_SHIFT
		       : 0;
}

static void user_frame(struct stacker *s, uint32_t pid, uint64_t a, uint32_t *n)
{
	const struct mapping *map;
	struct frame_slot *slot = NULL;
	struct module *jit;

	s->used_maps = true;
	if (s->gen && frame_slot(s, a, s->gen, &slot)) {
		cached_frame(s, n, slot);
		return;
	}
	map = model_find(s->model, pid, a);
	if (map && map->mod && map->mod->kind != MODULE_ANON) {
		remember_frame(slot, a, s->gen,
			       add_frame(s, n, map->mod->id, 0,
					 addr_to_file_offset(a, map->start, map->pgoff)));
		return;
	}
	/*
	 * A miss may have made the model read /proc again, or find the
	 * process's perf map: later frames are looked up under the mappings
	 * as they are now.
	 */
	jit = model_perfmap(s->model, pid, map != NULL);
	s->gen = model_maps_generation(s->model, pid);
	/*
	 * Anonymous executable memory is JIT code, named at the stop from the
	 * perf map's line in force at the sample's time (not cacheable); so
	 * is an address in no mapping if the process has a perf map.
	 */
	if (jit && (map || jit->fd >= 0)) {
		s->cacheable = false;
		add_frame(s, n, jit->id, jit_flags(s, jit, a) | (map ? 0 : PM_FRAME_NOMAP), a);
		return;
	}
	/*
	 * Else it is a broken chain's garbage (a walk through code without
	 * frame pointers repeats one such address up to the kernel's limit):
	 * the same frame while the generation lasts, which a perf map found
	 * later ends.
	 */
	slot = NULL;
	if (s->gen)
		frame_slot(s, a, s->gen, &slot);
	remember_frame(slot, a, s->gen, add_frame(s, n, PM_NONE, 0, a));
}

uint32_t stack_cut_module(uint64_t key)
{
	uint64_t mod = key >> 8;

	return mod ? (uint32_t)(mod - 1) : PM_NONE;
}

enum unwind_end stack_cut_reason(uint64_t key)
{
	return (enum unwind_end)(key & 0xff);
}

/* Counts n stacks whose unwinding ended for reason end in module (or PM_NONE). */
static void count_end(struct stack_unwind_stats *u, uint32_t module, enum unwind_end end,
		      uint64_t n)
{
	u->ends[end] += n;
	if (end != UNWIND_COMPLETE) {
		uint64_t key = (uint64_t)(module == PM_NONE ? 0 : module + 1) << 8 | end;

		hmap_insert(&u->cut, key, NULL)->val += n;
	}
}

void unwind_stats_init(struct stack_unwind_stats *u)
{
	memset(u, 0, sizeof(*u));
	hmap_init(&u->cut);
	hmap_init(&u->outer);
}

void unwind_stats_release(struct stack_unwind_stats *u)
{
	hmap_release(&u->cut);
	hmap_release(&u->outer);
}

void unwind_stats_free(struct stack_unwind_stats *u)
{
	if (!u)
		return;
	unwind_stats_release(u);
	free(u);
}

void unwind_stats_settle(struct stack_unwind_stats *u, const struct profile *p,
			 stack_is_entry_fn is_entry, void *arg)
{
	const struct hmap_slot *slot;

	for (size_t pos = 0; (slot = hmap_next(&u->outer, &pos));) {
		uint32_t f = (uint32_t)slot->key;
		enum unwind_end end = (enum unwind_end)(slot->key >> 32);

		/* A stack that ends at an entry point is whole, however the unwind stopped there. */
		if (is_entry(p, f, arg))
			end = UNWIND_COMPLETE;
		else if (end == UNWIND_COMPLETE)
			end = UNWIND_NOT_ENTRY;
		count_end(u, p->frames[f].module, end, slot->val);
	}
	hmap_release(&u->outer);
	hmap_init(&u->outer);
}

void stacker_settle_unwind(struct stacker *s, stack_is_entry_fn is_entry, void *arg)
{
	unwind_stats_settle(&s->unw, s->prof, is_entry, arg);
}

void stacker_take_unwind(struct stacker *s, struct stack_unwind_stats *into)
{
	*into = s->unw;
	unwind_stats_init(&s->unw);
}

void unwind_stats_add(struct stack_unwind_stats *to, const struct stack_unwind_stats *from)
{
	const struct hmap_slot *slot;

	to->unwound += from->unwound;
	for (int i = 0; i < UNWIND_HOW_COUNT; i++)
		to->how[i] += from->how[i];
	for (int i = 0; i < UNWIND_JUDGE_COUNT; i++)
		to->judge[i] += from->judge[i];
	for (int i = 0; i < UNWIND_END_COUNT; i++)
		to->ends[i] += from->ends[i];
	for (size_t pos = 0; (slot = hmap_next(&from->cut, &pos));)
		hmap_insert(&to->cut, slot->key, NULL)->val += slot->val;
}

/* Notes how an unwind ended at outer, the stack's outermost frame (PM_NONE: none), judged at the stop. */
static void note_end_frame(struct stacker *s, uint32_t outer, enum unwind_end end)
{
	s->unw.unwound++;
	if (outer != PM_NONE)
		hmap_insert(&s->unw.outer, (uint64_t)end << 32 | outer, NULL)->val++;
	else
		count_end(&s->unw, PM_NONE, UNWIND_BAD_FRAME, 1);
}

static void note_end(struct stacker *s, uint32_t before, uint32_t n, enum unwind_end end)
{
	note_end_frame(s, n > before ? s->frames[n - 1] : PM_NONE, end);
	s->last_end = end;
}

/*
 * A user frame of a frame-pointer chain, at address ip (a return address
 * already one byte back); *prev is the last one added. A return address
 * in no mapping met again at once is left out: the walk went round a frame
 * pointer that points at itself, and would give it up to the kernel's
 * limit. One frame says it.
 */
static void chain_frame(struct stacker *s, uint32_t pid, uint64_t ip, uint64_t *prev, uint32_t *n)
{
	if (ip == *prev && *n && s->prof->frames[s->frames[*n - 1]].module == PM_NONE)
		return;
	user_frame(s, pid, ip, n);
	*prev = ip;
}

/* The user part of smp's callchain: its length, *chain where it starts (0 when none). */
static size_t user_chain(const struct rec_sample *smp, const unsigned char **chain)
{
	*chain = NULL;
	for (uint64_t i = 0; i < smp->nr; i++) {
		if (sample_ip_at(smp, i) == (uint64_t)PERF_CONTEXT_USER) {
			*chain = smp->ips + (i + 1) * 8;
			return smp->nr - i - 1;
		}
	}
	return 0;
}

size_t stacker_unwind_ahead(struct stacker *s, const struct rec_sample *smp, void *out,
			    uint64_t *need)
{
	struct unwind_result res;
	struct stack_ahead h;
	const unsigned char *chain;
	size_t nchain = user_chain(smp, &chain);

	*need = 0;
	if (!s->unwinder || smp->regs_abi != PERF_SAMPLE_REGS_ABI_64 || !smp->stack_dyn_size)
		return 0;
	unwind_sample(s->unwinder, smp->pid, smp, chain, nchain, s->uips, STACK_MAX_FRAMES, &res);
	*need = res.copy_needed;
	memset(&h, 0, sizeof(h));
	h.gen = model_maps_generation(s->model, smp->pid);
	h.n = (uint32_t)res.n;
	h.end = (uint8_t)res.end;
	h.how = (uint8_t)res.how;
	h.judge = (uint8_t)res.judge;
	memcpy(out, &h, sizeof(h));
	memcpy((unsigned char *)out + sizeof(h), s->uips, (size_t)res.n * 8);
	return sizeof(h) + (size_t)res.n * 8;
}

/*
 * The kernel's chain into frames: its kernel part, and its user part
 * unless the sample is to be unwound, in which case that part is left
 * whole in *uchain (*nuchain entries) for unwind_user.
 */
static void walk_chain(struct stacker *s, const struct rec_sample *smp, bool unwind,
		       const unsigned char **uchain, size_t *nuchain, uint32_t *n)
{
	uint64_t ctx = 0, prev = 0;
	bool first = true;

	for (uint64_t i = 0; i < smp->nr; i++) {
		uint64_t ip = sample_ip_at(smp, i);

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			/*
			 * The user part comes last: a "marker" after it is a
			 * garbage return address that a frame-pointer walk
			 * read from the stack, and so is all that follows.
			 */
			if (ctx == (uint64_t)PERF_CONTEXT_USER)
				break;
			ctx = ip;
			first = true;
			/* To be unwound: the chain's user part is handed over whole. */
			if (ctx == (uint64_t)PERF_CONTEXT_USER && unwind) {
				*uchain = smp->ips + (i + 1) * 8;
				*nuchain = smp->nr - i - 1;
				break;
			}
			continue;
		}
		if (ip == 0)
			continue; /* the end of a broken chain, not code */
		if (!first)
			ip--;
		first = false;
		if (ctx == (uint64_t)PERF_CONTEXT_KERNEL)
			kernel_frame(s, n, ip);
		else if (ctx == (uint64_t)PERF_CONTEXT_USER)
			chain_frame(s, smp->pid, ip, &prev, n);
	}
}

/*
 * DWARF and hybrid modes: the user part of the stack, unwound from the
 * registers and stack copy, or as unwound ahead (when the process's
 * mappings are still those it was unwound under); chain[0..nchain) is
 * the user part of the kernel's callchain (hybrid mode), taken as it is
 * when there is no copy.
 */
static void unwind_user(struct stacker *s, const struct rec_sample *smp, const unsigned char *chain,
			size_t nchain, const void *ahead, uint32_t *n)
{
	struct unwind_result res;
	struct stack_ahead h;
	uint32_t before = *n;
	uint64_t prev = 0;

	if (!smp->stack_dyn_size && nchain) {
		for (size_t i = 0; i < nchain; i++) {
			uint64_t ip = load_u64(chain + i * 8);

			if (ip == 0 || ip >= (uint64_t)PERF_CONTEXT_MAX)
				break;
			chain_frame(s, smp->pid, i ? ip - 1 : ip, &prev, n);
		}
		s->unw.how[UNWIND_BY_FP_ONLY]++;
		s->unw.judge[UNWIND_UNJUDGED]++;
		s->last_how = UNWIND_BY_FP_ONLY;
		s->last_judge = UNWIND_UNJUDGED;
		note_end(s, before, *n, UNWIND_COMPLETE);
		return;
	}
	if (ahead)
		memcpy(&h, ahead, sizeof(h));
	if (ahead && h.gen == model_maps_generation(s->model, smp->pid)) {
		const unsigned char *ips = (const unsigned char *)ahead + sizeof(h);

		for (uint32_t i = 0; i < h.n && i < STACK_MAX_FRAMES; i++)
			chain_frame(s, smp->pid, load_u64(ips + i * 8), &prev, n);
		res.how = (enum unwind_how)h.how;
		res.end = (enum unwind_end)h.end;
		res.judge = (enum unwind_judge)h.judge;
	} else {
		unwind_sample(s->unwinder, smp->pid, smp, chain, nchain, s->uips, STACK_MAX_FRAMES,
			      &res);
		for (int i = 0; i < res.n; i++)
			chain_frame(s, smp->pid, s->uips[i], &prev, n);
	}
	s->unw.how[res.how]++;
	s->unw.judge[res.judge]++;
	s->last_how = res.how;
	s->last_judge = res.judge;
	note_end(s, before, *n, res.end);
}

uint32_t stacker_add(struct stacker *s, const struct rec_sample *smp, uint16_t misc)
{
	return stacker_add_ahead(s, smp, misc, NULL);
}

uint32_t stacker_add_ahead(struct stacker *s, const struct rec_sample *smp, uint16_t misc,
			   const void *ahead)
{
	/* A 32-bit process's registers and tables are not x86-64's: its chain as it is. */
	bool unwind = s->unwinder && smp->regs_abi == PERF_SAMPLE_REGS_ABI_64;
	const unsigned char *uchain = NULL, *key = smp->ips;
	size_t nuchain = 0, nkey = smp->nr;
	uint64_t hash = 0, gen = 0;
	struct stack_ahead h;
	struct chain *c = NULL;
	uint32_t n = 0, stack, before;
	bool cache;

	gen = model_maps_generation(s->model, smp->pid);
	s->gen = gen;
	s->time = smp->time;
	if (unwind) {
		nkey = 0;
		if (ahead && smp->stack_dyn_size) {
			memcpy(&h, ahead, sizeof(h));
			if (h.gen == gen)
				nkey = ahead_key(smp, &h, ahead, s->key);
			else
				ahead = NULL; /* stale: unwound again below */
		}
		key = (const unsigned char *)s->key;
	}
	cache = nkey && nkey <= CHAIN_MAX;
	if (cache) {
		if (!s->chains)
			s->chains = xcalloc(CHAIN_SLOTS, sizeof(*s->chains));
		hash = hash_fast(key, nkey * 8) ^ smp->pid;
		c = &s->chains[hash & (CHAIN_SLOTS - 1)];
		if (c->hash == hash && c->gen == gen && c->pid == smp->pid && c->nr == nkey &&
		    memcmp(c->ips, key, nkey * 8) == 0) {
			s->chain_hits++;
			if (unwind) {
				s->unw.how[c->how]++;
				s->unw.judge[c->judge]++;
				note_end_frame(s, c->outer, (enum unwind_end)c->end);
			}
			return c->stack;
		}
		s->chain_misses++;
	}
	s->cacheable = true;
	s->used_maps = false;
	if (smp->nr) {
		walk_chain(s, smp, unwind, &uchain, &nuchain, &n);
	} else if ((misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) {
		kernel_frame(s, &n, smp->ip);
	} else if (!s->unwinder) {
		user_frame(s, smp->pid, smp->ip, &n);
	}
	before = n;
	if (unwind)
		unwind_user(s, smp, uchain, nuchain, ahead, &n);
	if (n == 0) {
		add_frame(s, &n, PM_NONE, 0, smp->ip);
		s->cacheable = false;
	}
	stack = profile_intern_stack(s->prof, s->frames, n);
	/*
	 * A stack with user frames is cached only if its process's mappings
	 * were known and did not change meanwhile (a re-read of /proc).
	 */
	if (cache && s->cacheable &&
	    (!s->used_maps || (gen && gen == model_maps_generation(s->model, smp->pid)))) {
		c->hash = hash;
		c->gen = gen;
		c->pid = smp->pid;
		c->nr = (uint32_t)nkey;
		c->stack = stack;
		c->outer = n > before ? s->frames[n - 1] : PM_NONE;
		c->end = (uint8_t)s->last_end;
		c->how = (uint8_t)s->last_how;
		c->judge = (uint8_t)s->last_judge;
		memcpy(c->ips, key, nkey * 8);
	}
	return stack;
}
