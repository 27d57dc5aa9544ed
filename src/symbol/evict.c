/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * evict.c - what naming holds, kept in bounds: source lines' tables
 * dropped above their budget and the pages held given back
 * (symbolizer_trim; held.c gives the pages back), and the modules not
 * used lately let go (symbolizer_forget_idle). See symfile.h.
 */
#include "config.h"

#include <malloc.h>

#include "symbol/srcline.h"
#include "symbol/symfile-int.h"
#include "util/hash.h"

void symbolizer_trim(struct symbolizer *z)
{
	size_t held = 0;

	for (size_t i = 0; i < z->nfiles; i++)
		if (z->files[i])
			held += srcline_held(z->files[i]);
	for (size_t i = 0; i < z->nfiles; i++)
		if (z->files[i])
			srcline_trim(z->files[i], held > z->lines_budget);
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
	forget(f);
}

size_t symbolizer_forget_idle(struct symbolizer *z, uint64_t now, uint64_t idle_ns)
{
	size_t n = 0;

	for (size_t i = 0; i < z->nfiles; i++)
		if (z->files[i] && now - z->files[i]->used_ns >= idle_ns && forget(z->files[i]))
			n++;
	/* What was freed goes back to the system, the naming thread's heap included. */
	if (n)
		malloc_trim(0);
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
