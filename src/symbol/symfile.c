/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symfile.c - the symbolizer, and its symfiles by module id: each made on
 * first use, its shared fields set, then read by its source's loader
 * (load-elf.c, load-kernel.c, load-vdso.c, load-perfmap.c), and freed
 * here too (evict.c decides when what was read is let go); see
 * symfile.h. The loaders call nothing here.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libelf.h>

#include "symbol/namecache.h"
#include "symbol/srcline.h"
#include "symbol/symfile-int.h"
#include "symbol/symfile.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/hash.h"

struct symbolizer *symbolizer_new(struct module_set *mods, bool no_lines)
{
	struct symbolizer *z = xcalloc(1, sizeof(*z));

	z->mods = mods;
	z->no_lines = no_lines;
	z->dwfl_cb.find_elf = dwfl_build_id_find_elf;
	z->dwfl_cb.find_debuginfo = symfile_find_debuginfo;
	z->dwfl_cb.debuginfo_path = &z->debuginfo_path;
	z->pagemap = -1;
	z->statm = -1;
	z->lines_budget = SYMBOLIZER_LINES_BUDGET;
	hmap_init(&z->build_ids);
	hmap_init(&z->names);
	hmap_init(&z->kept);
	return z;
}

bool symbolizer_read_kernel(struct symbolizer *z, const struct module *m)
{
	if (m->kind != MODULE_KERNEL)
		return false;
	if (!z->kernel_reader && !symfile_find(z, m))
		z->kernel_reader = ksyms_read_start();
	return z->kernel_reader != NULL;
}

bool symbolizer_kernel_ready(struct symbolizer *z)
{
	return !z->kernel_reader || ksyms_read_done(z->kernel_reader);
}

uint64_t symbolizer_kernel_read_cpu_ns(const struct symbolizer *z)
{
	return z->kernel_read_cpu_ns;
}

void symbolizer_free(struct symbolizer *z)
{
	struct hmap_slot *slot;

	if (!z)
		return;
	if (z->kernel_reader) {
		struct ksyms k;

		ksyms_read_wait(z->kernel_reader, &k, NULL);
		ksyms_release(&k);
	}
	for (size_t i = 0; i < z->nfiles; i++) {
		if (z->files[i])
			symfile_drop_names(z, z->files[i]);
		symfile_free(z->files[i]);
	}
	free(z->files);
	free(z->lined);
	for (size_t pos = 0; (slot = hmap_next(&z->kept, &pos));) {
		struct symfile_kept *k = hmap_ptr(slot);

		free(k->segs);
		free(k);
	}
	hmap_release(&z->kept);
	hmap_release(&z->build_ids);
	hmap_release(&z->names);
	free(z->debuginfo_path);
	if (z->pagemap >= 0)
		close(z->pagemap);
	if (z->statm >= 0)
		close(z->statm);
	free(z);
}

/*
 * Reads what f's module is into f, made by symfile_new and stored in z
 * before (see symfile_changed).
 */
static void symfile_load(struct symbolizer *z, struct symfile *f)
{
	struct module *m = f->mod;

	f->fresh = true;
	f->dwfl_cb = &z->dwfl_cb;
	f->no_lines = z->no_lines || z->lines_off;
	if (z->lines_off && !z->no_lines && m->kind == MODULE_FILE)
		f->lines_reason = LINES_MEMORY;
	elf_version(EV_CURRENT);
	switch (m->kind) {
	case MODULE_KERNEL:
		symfile_load_kernel(z, f);
		break;
	case MODULE_ANON:
		f->reason = REASON_ANON;
		break;
	case MODULE_VDSO:
		symfile_load_vdso(f);
		break;
	case MODULE_PERFMAP:
		symfile_load_perfmap(f);
		break;
	case MODULE_FILE:
		symfile_load_elf(f);
		break;
	}
}

/* Whether f and g are copies of one file: the same build-id and segments. */
static bool same_build(const struct symfile *f, const struct symfile *g)
{
	if (f->build_id_len != g->build_id_len || f->nsegs != g->nsegs ||
	    memcmp(f->build_id, g->build_id, f->build_id_len) != 0)
		return false;
	for (size_t i = 0; i < f->nsegs; i++)
		if (f->segs[i].offset != g->segs[i].offset ||
		    f->segs[i].vaddr != g->segs[i].vaddr || f->segs[i].filesz != g->segs[i].filesz)
			return false;
	return true;
}

/* f, just read: its twin, if a copy of its file was read before (see struct symfile). */
static void find_twin(struct symbolizer *z, struct symfile *f)
{
	struct hmap_slot *slot;
	bool added;

	if (f->mod->kind != MODULE_FILE || !f->build_id_len || f->reason || f->changed)
		return;
	slot = hmap_insert(&z->build_ids, hash_bytes(f->build_id, f->build_id_len), &added);
	if (added) {
		slot->val = f->mod->id;
		return;
	}
	if (slot->val != f->mod->id && slot->val < z->nfiles && z->files[slot->val] &&
	    same_build(f, z->files[slot->val])) {
		f->twin = (uint32_t)slot->val + 1;
		z->files[slot->val]->twinned++;
	}
}

void symfile_unload(struct symfile *f)
{
	struct hmap_slot *s;

	free(f->image);
	f->image = NULL;
	if (f->zfd >= 0)
		close(f->zfd);
	f->zfd = -1;
	free(f->zname);
	f->zname = NULL;
	for (size_t pos = 0; (s = hmap_next(&f->demangled, &pos));)
		free(hmap_ptr(s));
	hmap_release(&f->demangled);
	for (size_t pos = 0; (s = hmap_next(&f->paths, &pos));)
		free(hmap_ptr(s));
	hmap_release(&f->paths);
	srcline_release(f);
	dwname_free(f->dwname);
	f->dwname = NULL;
	if (f->dwfl)
		symfile_end_dwfl(f);
	symtab_release(&f->syms);
	ksyms_release(&f->ksyms);
}

void symfile_drop_names(struct symbolizer *z, struct symfile *f)
{
	struct hmap_slot *slot;

	if (f->names && namecache_release(f->names)) {
		namecache_save(f->names);
		slot = hmap_find(&z->names, hash_bytes(f->build_id, f->build_id_len));
		if (slot && hmap_ptr(slot) == f->names)
			hmap_remove(&z->names, slot->key, NULL);
		namecache_free(f->names);
	}
	f->names = NULL;
	f->names_tried = false;
}

void symfile_free(struct symfile *f)
{
	/*
	 * What libelf and libdw were doing when the file changed under them
	 * was cut off midway: none of it is touched again, not even to free.
	 */
	if (!f || f->changed)
		return;
	symfile_unload(f);
	free(f->segs);
	free(f->debugfile);
	free(f);
}

/* f out of z->lined (symbolizer_trim's), before it is freed. */
static void unlist_lines(struct symbolizer *z, struct symfile *f)
{
	for (size_t i = 0; f->lined && i < z->nlined; i++)
		if (z->lined[i] == f) {
			z->lined[i] = z->lined[--z->nlined];
			f->lined = false;
		}
}

/* Whether a and b have one build-id: the names kept for one are the other's. */
static bool same_build_id(const struct symfile *a, const struct symfile *b)
{
	return a->build_id_len && a->build_id_len == b->build_id_len &&
	       !memcmp(a->build_id, b->build_id, a->build_id_len);
}

/* A symfile of m with nothing read into it. */
static struct symfile *symfile_new(struct module *m)
{
	struct symfile *f = xcalloc(1, sizeof(*f));

	f->mod = m;
	f->zfd = -1;
	symtab_init(&f->syms);
	ksyms_init(&f->ksyms);
	hmap_init(&f->demangled);
	hmap_init(&f->paths);
	return f;
}

/*
 * Module id's symfile made again, unloaded, from what was kept of it;
 * NULL if nothing was. Its module is the record's, not read from the
 * module set's array, which the recording thread may grow meanwhile.
 */
static struct symfile *revive(struct symbolizer *z, uint32_t id)
{
	struct symfile_kept *k;
	struct symfile *f;
	uint64_t val;

	if (!z->kept.count || !hmap_remove(&z->kept, id, &val))
		return NULL;
	k = hmap_val_ptr(val);
	f = symfile_new(k->mod);
	f->segs = k->segs;
	f->nsegs = k->nsegs;
	f->entry = k->entry;
	memcpy(f->build_id, k->build_id, k->build_id_len);
	f->build_id_len = k->build_id_len;
	f->reason = (enum module_reason)k->reason;
	f->lines_reason = (enum module_lines)k->lines_reason;
	f->unloaded = true;
	free(k);
	xgrow_zero(&z->files, &z->nfiles, (size_t)id + 1, sizeof(*z->files));
	z->files[id] = f;
	return f;
}

void symbolizer_drop(struct symbolizer *z, uint32_t id)
{
	struct symfile *f = id < z->nfiles ? z->files[id] : NULL;
	struct hmap_slot *slot;
	uint64_t val;

	if (z->kept.count && hmap_remove(&z->kept, id, &val)) {
		struct symfile_kept *k = hmap_val_ptr(val);

		free(k->segs);
		free(k);
	}
	if (!f)
		return;
	if (f->build_id_len &&
	    (slot = hmap_find(&z->build_ids, hash_bytes(f->build_id, f->build_id_len))) &&
	    slot->val == id)
		hmap_remove(&z->build_ids, slot->key, NULL);
	/* Neither lent nor lending DWARF any more. */
	if (f->twin && f->twin - 1 < z->nfiles && z->files[f->twin - 1] &&
	    z->files[f->twin - 1]->twinned)
		z->files[f->twin - 1]->twinned--;
	for (size_t i = 0; f->twinned && i < z->nfiles; i++)
		if (z->files[i] && z->files[i]->twin == id + 1) {
			z->files[i]->twin = 0;
			f->twinned--;
		}
	symfile_drop_names(z, f);
	unlist_lines(z, f);
	z->files[id] = NULL;
	symfile_free(f);
}

void symfile_shrink(struct symbolizer *z, struct symfile *f)
{
	struct symfile_kept *k;

	if (f->changed || !f->unloaded || f->twinned || f->names)
		return;
	/* Its twin no longer lends it its DWARF. */
	if (f->twin && f->twin - 1 < z->nfiles && z->files[f->twin - 1] &&
	    z->files[f->twin - 1]->twinned)
		z->files[f->twin - 1]->twinned--;
	unlist_lines(z, f);
	k = xcalloc(1, sizeof(*k));
	k->mod = f->mod;
	k->segs = f->segs;
	k->nsegs = (uint32_t)f->nsegs;
	f->segs = NULL;
	k->entry = f->entry;
	memcpy(k->build_id, f->build_id, f->build_id_len);
	k->build_id_len = (uint8_t)f->build_id_len;
	k->reason = (uint8_t)f->reason;
	k->lines_reason = (uint8_t)f->lines_reason;
	hmap_set_ptr(hmap_insert(&z->kept, f->mod->id, NULL), k);
	z->files[f->mod->id] = NULL;
	symfile_free(f);
}

struct symfile *symfile_get(struct symbolizer *z, struct module *m)
{
	xgrow_zero(&z->files, &z->nfiles, (size_t)m->id + 1, sizeof(*z->files));
	if (!z->files[m->id])
		revive(z, m->id);
	if (!z->files[m->id] || z->files[m->id]->unloaded) {
		struct symfile *old = z->files[m->id], *f = symfile_new(m);

		z->files[m->id] = f;
		symfile_load(z, f);
		f->loaded_ns = now_coarse_ns();
		find_twin(z, f);
		/* Read again after it went idle: what its lines lacked is known already. */
		if (old && !f->lines_reason && old->lines_reason != LINES_MEMORY)
			f->lines_reason = old->lines_reason;
		if (old && same_build_id(old, f)) {
			f->names = old->names;
			f->names_tried = old->names_tried;
			old->names = NULL;
		} else if (old) {
			/* Its file went or is another build: let go by the key they are shared under. */
			symfile_drop_names(z, old);
		}
		if (old)
			unlist_lines(z, old);
		symfile_free(old);
	}
	z->files[m->id]->used_ns = now_coarse_ns();
	return z->files[m->id];
}

struct symfile *symfile_get_identity(struct symbolizer *z, struct module *m)
{
	struct symfile *f;

	xgrow_zero(&z->files, &z->nfiles, (size_t)m->id + 1, sizeof(*z->files));
	if (z->files[m->id] || revive(z, m->id))
		return z->files[m->id];
	f = symfile_new(m);
	elf_version(EV_CURRENT);
	if (m->kind == MODULE_FILE)
		symfile_load_identity(f);
	f->unloaded = true;
	z->files[m->id] = f;
	return f;
}

void symfile_changed(struct symbolizer *z, struct module *m)
{
	/* symfile_get stores a symfile before reading anything into it. */
	if (m->id < z->nfiles && z->files[m->id]) {
		z->files[m->id]->changed = true;
		z->files[m->id]->reason = REASON_CHANGED;
	}
}

struct symfile *symfile_find(struct symbolizer *z, const struct module *m)
{
	if (m->id < z->nfiles && z->files[m->id])
		return z->files[m->id];
	return revive(z, m->id);
}

enum module_reason symfile_reason(const struct symfile *f)
{
	return f->reason;
}

size_t symfile_nsyms(const struct symfile *f)
{
	return f->syms.n;
}

bool symfile_loaded(const struct symfile *f)
{
	return !f->unloaded;
}

bool symfile_fresh(const struct symfile *f)
{
	return f->fresh;
}

bool symfile_take_news(struct symfile *f)
{
	bool news = !f->told;

	f->told = true;
	return news;
}
