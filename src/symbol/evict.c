/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * evict.c - what naming holds, kept in bounds: source lines' tables
 * dropped above their budget and the pages held given back
 * (symbolizer_trim; held.c gives the pages back), and the modules not
 * used lately let go (symbolizer_forget_idle). See symfile.h.
 */
#include "config.h"

#include <malloc.h>
#include <stdatomic.h>

#include "symbol/namecache.h"
#include "symbol/srcline.h"
#include "symbol/symfile-int.h"
#include "util/clock.h"
#include "util/hash.h"

void symbolizer_trim(struct symbolizer *z)
{
	size_t held = 0, k = 0;

	for (size_t i = 0; i < z->nlined; i++)
		held += srcline_held(z->lined[i]);
	for (size_t i = 0; i < z->nlined; i++) {
		struct symfile *f = z->lined[i];

		srcline_trim(f, held > z->lines_budget);
		if (f->lines)
			z->lined[k++] = f;
		else
			f->lined = false;
	}
	z->nlined = k;
	if (symbolizer_give_back_due(z))
		symbolizer_give_back(z);
}

/* Lets go of what f read, if it is of a module of a file; returns whether it did. */
static bool forget(struct symfile *f)
{
	if (!f || f->unloaded || f->changed || f->mod->kind != MODULE_FILE)
		return false;
	symfile_unload(f);
	f->unloaded = true;
	return true;
}

bool symbolizer_forget(struct symbolizer *z, const struct module *m)
{
	return forget(symfile_find(z, m));
}

void symbolizer_retire(struct symbolizer *z, const struct module *m)
{
	struct symfile *f = symfile_find(z, m);
	struct hmap_slot *slot;

	if (!f)
		return;
	/* No copy of its binary looks its lines up in its DWARF from now on. */
	if (f->build_id_len &&
	    (slot = hmap_find(&z->build_ids, hash_bytes(f->build_id, f->build_id_len))) &&
	    slot->val == m->id)
		hmap_remove(&z->build_ids, slot->key, NULL);
	for (size_t i = 0; f->twinned && i < z->nfiles; i++)
		if (z->files[i] && z->files[i]->twin == m->id + 1) {
			z->files[i]->twin = 0;
			f->twinned--;
		}
	/* Its names are saved once no copy of its build is mapped. */
	symfile_drop_names(z, f);
	forget(f);
	/* The next slice keeps nothing of it (profile_new_next): said again if it is named again. */
	f->told = false;
	/* A program run once leaves what the profile takes of it, not its symfile. */
	if (m->kind == MODULE_FILE)
		symfile_shrink(z, f);
}

size_t symbolizer_forget_idle(struct symbolizer *z, uint64_t now, uint64_t idle_ns)
{
	size_t n = 0;

	for (size_t i = 0; i < z->nfiles; i++)
		if (z->files[i] && now - z->files[i]->used_ns >= idle_ns && forget(z->files[i]))
			n++;
	return n;
}

size_t symbolizer_forget_old(struct symbolizer *z, uint64_t now, uint64_t age_ns)
{
	size_t n = 0;

	for (size_t i = 0; i < z->nfiles; i++)
		if (z->files[i] && !z->files[i]->unloaded &&
		    now - z->files[i]->loaded_ns >= age_ns && forget(z->files[i]))
			n++;
	return n;
}

bool symbolizer_reread_perfmap(struct symbolizer *z, const struct module *m)
{
	struct symfile *f = symfile_find(z, m);

	if (!f || f->unloaded || f->changed || m->kind != MODULE_PERFMAP)
		return false;
	symfile_unload(f);
	f->unloaded = true;
	return true;
}

size_t symbolizer_forget_all(struct symbolizer *z)
{
	size_t n = 0;

	for (size_t i = 0; i < z->nfiles; i++) {
		struct symfile *f = z->files[i];

		if (forget(f))
			n++;
		/* The names kept go to their files and out of memory: read again when wanted. */
		if (f)
			symfile_drop_names(z, f);
	}
	malloc_trim(0);
	return n;
}

void symbolizer_hold_lines(struct symbolizer *z, bool off)
{
	if (z->lines_off == off)
		return;
	z->lines_off = off;
	if (off)
		return;
	/* Read without lines meanwhile: read again, with them, when next used. */
	for (size_t i = 0; i < z->nfiles; i++)
		if (z->files[i] && z->files[i]->lines_reason == LINES_MEMORY)
			forget(z->files[i]);
}

bool symbolizer_identify(struct symbolizer *z, struct module *m)
{
	struct symfile *f = symfile_find(z, m);

	if (m->kind != MODULE_FILE)
		return false;
	if (f && !f->unloaded)
		return false; /* read already: naming it costs nothing more */
	if (!f)
		f = symfile_get_identity(z, m);
	/* Said anew (symfile_take_news) the first time, for the profile's module table. */
	if (!f->changed && (f->reason == REASON_NONE || f->reason == REASON_STRIPPED)) {
		f->reason = REASON_MEMORY;
		f->told = false;
	}
	return true;
}

void symbolizer_memory_budget(struct symbolizer *z, uint64_t bytes)
{
	memlevel_init(&z->mem, bytes);
}

/* Level l taken: a step up lets go of what was read under the one before. */
static void take_level(struct symbolizer *z, enum mem_level l)
{
	if (l > z->mem_applied)
		symbolizer_forget_all(z);
	symbolizer_hold_lines(z, l >= MEM_NO_LINES);
	z->mem_applied = l;
	atomic_store(&z->mem_level_now, (int)l);
	for (int k = 0; k < MEM_LEVELS; k++)
		atomic_store(&z->mem_entered[k], z->mem.entered[k]);
}

void symbolizer_memory_look(struct symbolizer *z, bool soon)
{
	uint64_t now, bytes;

	if (!z->mem.budget)
		return;
	now = now_coarse_ns();
	if (z->mem_look_ns && now - z->mem_look_ns < (soon ? MEM_SOON_NS : MEM_LOOK_NS))
		return;
	z->mem_look_ns = now;
	if (!(bytes = memlevel_read_anon(&z->statm)))
		return;
	memlevel_update(&z->mem, bytes, now);
	atomic_store(&z->mem_peak, z->mem.peak);
	if (z->mem.level != z->mem_applied)
		take_level(z, z->mem.level);
}

bool symbolizer_memory_skips(struct symbolizer *z, struct module *m)
{
	if (z->mem_applied < MEM_NO_NAMES || !symbolizer_identify(z, m))
		return false;
	atomic_fetch_add(&z->mem_unnamed, 1);
	return true;
}

void symbolizer_memory_stats(struct symbolizer *z, struct memstats *st)
{
	st->budget = z->mem.budget;
	st->peak = atomic_load(&z->mem_peak);
	st->level = (enum mem_level)atomic_load(&z->mem_level_now);
	for (int k = 0; k < MEM_LEVELS; k++)
		st->entered[k] = atomic_load(&z->mem_entered[k]);
	st->no_lines = atomic_load(&z->mem_no_lines);
	st->unnamed = atomic_load(&z->mem_unnamed);
}
