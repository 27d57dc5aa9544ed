/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symbolize.c - names for frames; see symbolize.h.
 */
#include "config.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "elf/perfmap.h"
#include "symbol/demangle.h"
#include "symbol/namecache.h"
#include "symbol/symbolize.h"
#include "symbol/symfile-int.h"
#include "util/alloc.h"
#include "util/busguard.h"
#include "util/hash.h"

/* Kernel and perf-map frames carry absolute addresses, file frames offsets. */
static bool absolute(const struct module *m)
{
	return m->kind == MODULE_KERNEL || m->kind == MODULE_PERFMAP;
}

/* The symbol's name, demangled (a PLT entry's before its "@plt"); malloc'd. */
static char *symbolize_name(const char *raw)
{
	size_t n = strlen(raw);
	char *d;

	if (n > 4 && !strcmp(raw + n - 4, "@plt")) {
		char *base = xstrndup(raw, n - 4);

		d = demangle(base);
		free(base);
		if (d) {
			base = xasprintf("%s@plt", d);
			free(d);
			return base;
		}
		return xstrdup(raw);
	}
	d = demangle(raw);
	return d ? d : xstrdup(raw);
}

/*
 * Whether the outermost level l is better named by the symbol sym that
 * starts at its entry (see struct srcline): so the frame reads as with
 * --no-lines, and as perf, binutils' addr2line and llvm-symbolizer name it.
 */
static bool by_symbol(const struct srcline *l, const struct sym *sym, const char *symname)
{
	size_t n;

	if (l->inlined || !l->symbol_suffix || !l->func || !symname || l->entry != sym->addr)
		return false;
	n = strlen(l->func);
	return !strncmp(symname, l->func, n) && symname[n] == '.' && symname[n + 1];
}

int symbolize_addr(struct symbolizer *z, struct module *m, uint64_t addr, bool is_vaddr,
		   struct symres *r)
{
	struct symfile *f;
	const struct sym *sym;
	struct bus_guard guard;
	uint64_t vaddr = addr;

	memset(r, 0, sizeof(*r));
	/* libelf and libdw read the module's files through mmap. */
	if (BUS_GUARD_ARM(&guard)) {
		bus_guard_disarm(&guard);
		symres_release(r);
		memset(r, 0, sizeof(*r));
		symfile_changed(z, m);
		return 0;
	}
	f = symfile_get(z, m);
	f->touched = true;
	if (f->changed || (!is_vaddr && !absolute(m) &&
			   addr_file_offset_to_vaddr(f->segs, f->nsegs, addr, &vaddr) < 0)) {
		bus_guard_disarm(&guard);
		return 0;
	}
	if (m->kind == MODULE_KERNEL) {
		uint64_t start;
		const char *raw;

		sym = NULL;
		if (ksyms_lookup(&f->ksyms, vaddr, &start, &raw)) {
			r->symoff = vaddr - start;
			r->symname = symbolize_name(raw);
		}
	} else if ((sym = symtab_lookup(&f->syms, vaddr))) {
		r->symoff = vaddr - sym->addr;
		r->symname = symbolize_name(symtab_name(&f->syms, sym));
	}
	if (f->lines_reason == LINES_MEMORY && sym)
		atomic_fetch_add(&z->mem_no_lines, 1);
	/*
	 * A copy of a file read before: its DWARF, read once. The twin's
	 * symfile stays while it lends (symfile_shrink), and names its module.
	 */
	if (f->twin && !f->no_lines)
		f = symfile_get(z, z->files[f->twin - 1]->mod);
	if (!absolute(m) && !f->no_lines) {
		r->n = srcline_lookup(f, vaddr, r->lv, SRCLINE_MAX_DEPTH, symbolizer_pagemap(z));
		if (f->lines && !f->lined) {
			xgrow(&z->lined, &z->lined_cap, z->nlined + 1, sizeof(*z->lined));
			z->lined[z->nlined++] = f;
			f->lined = true;
		}
	}
	bus_guard_disarm(&guard);
	if (r->n == 0 && r->symname) {
		r->lv[0].func = r->symname;
		r->n = 1;
	} else if (r->n > 0 && !r->lv[r->n - 1].func) {
		/* A place but no function DIE: the symbol names it, if any. */
		r->lv[r->n - 1].func = r->symname;
	} else if (r->n > 0 && sym && by_symbol(&r->lv[r->n - 1], sym, r->symname)) {
		r->lv[r->n - 1].func = r->symname;
	}
	return r->n;
}

/* The name of m's code at addr by the line of its perf map at byte line - 1; as symbolize_addr. */
static int by_perfmap_line(struct symbolizer *z, struct module *m, uint64_t line, uint64_t addr,
			   struct symres *r)
{
	char *buf = xmalloc(PERFMAP_MAX_LINE + 2);
	struct symfile *f = symfile_get(z, m);
	uint64_t start, size;
	const char *name;

	memset(r, 0, sizeof(*r));
	f->touched = true;
	if (m->fd >= 0 &&
	    perfmap_line_at(m->fd, line - 1, buf, PERFMAP_MAX_LINE + 2, &start, &size, &name) ==
		    0 &&
	    addr >= start && addr - start < size) {
		r->symoff = addr - start;
		r->symname = symbolize_name(name);
		r->lv[0].func = r->symname;
		r->n = 1;
	}
	free(buf);
	return r->n;
}

int symbolize_frame(struct symbolizer *z, struct module *m, uint32_t flags, uint64_t addr,
		    struct symres *r)
{
	uint64_t line = PM_FRAME_PERFMAP_LINE(flags);

	if (m->kind == MODULE_PERFMAP && line && by_perfmap_line(z, m, line, addr, r))
		return r->n;
	return symbolize_addr(z, m, addr, false, r);
}

bool symbolize_at_entry(struct symbolizer *z, struct module *m, uint64_t off)
{
	struct symfile *f;
	uint64_t vaddr;

	if (m->kind != MODULE_FILE)
		return false;
	/* A module let go keeps its entry and segments; one not read yet is identified only. */
	if (!(f = symfile_find(z, m)))
		f = symfile_get_identity(z, m);
	return f->entry && addr_file_offset_to_vaddr(f->segs, f->nsegs, off, &vaddr) == 0 &&
	       vaddr >= f->entry && vaddr - f->entry < 64;
}

void symres_release(struct symres *r)
{
	free(r->symname);
	r->symname = NULL;
}

static size_t str_bytes(const char *str)
{
	return str ? strlen(str) + 1 : 0;
}

/* A copy of str at *to, which moves past it; NULL stays NULL. */
static const char *copy_str(const char *str, char **to)
{
	char *at = *to;
	size_t len = str_bytes(str);

	if (!str)
		return NULL;
	memcpy(at, str, len);
	*to += len;
	return at;
}

size_t symres_strings_size(const struct symres *r)
{
	size_t strs = 0;

	for (int k = 0; k < r->n; k++)
		strs += str_bytes(r->lv[k].func) + str_bytes(r->lv[k].file);
	return strs;
}

void symres_copy_levels(const struct symres *r, struct srcline *lv, char *strs)
{
	for (int k = 0; k < r->n; k++) {
		lv[k] = r->lv[k];
		lv[k].func = copy_str(r->lv[k].func, &strs);
		lv[k].file = copy_str(r->lv[k].file, &strs);
	}
}

void symbolize_add_levels(struct profile *p, uint32_t frame, const struct symres *r)
{
	if (!r->n || !r->lv[r->n - 1].func || p->frames[frame].nlines)
		return;
	for (int k = 0; k < r->n; k++) {
		struct pm_line l = {0};

		l.func = strtab_add(&p->str, r->lv[k].func);
		l.file = r->lv[k].file ? strtab_add(&p->str, r->lv[k].file) : 0;
		l.line = r->lv[k].line;
		l.flags = r->lv[k].inlined ? PM_LINE_INLINED : 0;
		l.symoff = k == r->n - 1 ? r->symoff : 0;
		l.start_line = r->lv[k].decl_line;
		profile_add_line(p, frame, &l);
	}
}

/* Module m's flags in a profile: its kind, and what naming it found. */
static uint32_t module_flags(const struct module *m, const struct symfile *sf)
{
	uint32_t flags = 0;

	if (m->kind == MODULE_KERNEL)
		flags = PM_MODULE_KERNEL;
	else if (m->kind == MODULE_VDSO)
		flags = PM_MODULE_VDSO;
	else if (m->kind == MODULE_ANON)
		flags = PM_MODULE_ANON;
	else if (m->kind == MODULE_PERFMAP)
		flags = PM_MODULE_PERFMAP;
	if (sf) {
		flags |= (uint32_t)sf->reason << PM_MODULE_REASON_SHIFT;
		flags |= (uint32_t)sf->lines_reason << PM_MODULE_LINES_SHIFT;
	}
	return flags;
}

void symbolize_module_facts(struct symbolizer *z, const struct module *m, struct module_facts *out)
{
	struct symfile *sf = symfile_find(z, m);

	memset(out, 0, sizeof(*out));
	out->module = m->id;
	out->flags = module_flags(m, sf);
	if (!sf)
		return;
	build_id_hex(sf->build_id, sf->build_id_len, out->build_id);
	out->reason = sf->reason ? module_reason_text(sf->reason) : NULL;
	if (m->kind == MODULE_FILE && sf->nsegs) {
		out->segs = xmalloc(sf->nsegs * sizeof(*sf->segs));
		memcpy(out->segs, sf->segs, sf->nsegs * sizeof(*sf->segs));
		out->nsegs = sf->nsegs;
	}
}

/* f into p's module f->module; its segments unless p has them (has_segs). */
static void set_module(struct profile *p, const struct module_facts *f, bool has_segs)
{
	struct pm_module *pm = &p->modules[f->module];
	/* Frames of it left unnamed for memory stay for report to name, whatever came after. */
	bool memory = PM_MODULE_REASON(pm->flags) == REASON_MEMORY;

	pm->build_id = strtab_add(&p->str, f->build_id);
	pm->flags = f->flags;
	if (memory && PM_MODULE_REASON(f->flags) != REASON_MEMORY) {
		pm->flags &= ~(0xffu << PM_MODULE_REASON_SHIFT);
		pm->flags |= (uint32_t)REASON_MEMORY << PM_MODULE_REASON_SHIFT;
	} else if (f->reason) {
		pm->reason = strtab_add(&p->str, f->reason);
	}
	for (size_t k = 0; !has_segs && k < f->nsegs; k++) {
		struct pm_segment g = {
			.module = f->module,
			.flags = f->segs[k].flags,
			.offset = f->segs[k].offset,
			.vaddr = f->segs[k].vaddr,
			.filesz = f->segs[k].filesz,
			.memsz = f->segs[k].memsz,
		};

		profile_add_segment(p, &g);
	}
}

void symbolize_set_module(struct profile *p, const struct module_facts *f)
{
	/* Nothing of one let go is in p (its id may be another module's now). */
	if (f->module >= p->nmodules ||
	    (profile_module_dropped(p, f->module) && !p->modules[f->module].path))
		return;
	set_module(p, f, profile_module_has_segments(p, f->module));
}

/* A byte per module of p: whether a frame of p is in it. */
static uint8_t *modules_sampled(const struct profile *p)
{
	uint8_t *in = xcalloc(p->nmodules + 1, 1);

	for (size_t i = 0; i < p->nframes; i++)
		if (p->frames[i].module < p->nmodules)
			in[p->frames[i].module] = 1;
	return in;
}

void symbolize_modules(struct profile *p, struct symbolizer *z, bool final)
{
	struct module_set *mods = z->mods;
	uint8_t *sampled;

	for (size_t i = p->nmodules; i < mods->n; i++) {
		const struct module *m = mods->mods[i];
		uint32_t id = profile_add_module(p, m->path, "", module_flags(m, NULL));

		/* Who may be trusted with the files its debug information names. */
		p->modules[id].owner = m->uid == MODULE_NO_UID ? PM_OWNER_UNKNOWN : m->uid;
	}
	/*
	 * What was read of each module for naming, if anything (a module no
	 * sampled frame is in is not read now). Before the end, the naming
	 * thread may be reading z: it is not touched.
	 */
	sampled = final && p->ndropped ? modules_sampled(p) : NULL;
	for (size_t i = 0; final && i < mods->n; i++) {
		struct module_facts f;

		/* Let go before this slice began, and no frame of it since: nothing of it here. */
		if (profile_module_dropped(p, (uint32_t)i) && !sampled[i])
			continue;
		symbolize_module_facts(z, mods->mods[i], &f);
		/* Of every module, those just added too; each one's own segments come after its look. */
		set_module(p, &f, i < p->nmodules && profile_module_has_segments(p, (uint32_t)i));
		free(f.segs);
	}
	free(sampled);
}

void symbolize_modules_reused(struct profile *p, struct symbolizer *z)
{
	struct module_set *mods = z->mods;

	for (size_t i = 0; i < mods->nreused; i++) {
		const struct module *m = mods->mods[mods->reused[i]];

		/* One at or past p's modules got its row from symbolize_modules. */
		if (m->id >= p->nmodules || m->free)
			continue;
		profile_module_reuse(p, m->id, m->path, module_flags(m, NULL));
		p->modules[m->id].owner = m->uid == MODULE_NO_UID ? PM_OWNER_UNKNOWN : m->uid;
	}
	mods->nreused = 0;
}

size_t symbolize_profile(struct profile *p, struct symbolizer *z,
			 bool (*resolved)(uint32_t frame, void *arg), void *arg, bool cut_short)
{
	struct module_set *mods = z->mods;
	struct symres *r = xmalloc(sizeof(*r));
	size_t unresolved = 0, named = 0;

	for (size_t i = 0; i < p->nframes; i++) {
		struct pm_frame *f = &p->frames[i];
		struct symfile *sf;

		if (f->module == PM_NONE || f->module >= mods->n || f->nlines)
			continue;
		if (resolved && resolved((uint32_t)i, arg))
			continue; /* resolved, without a name */
		if (cut_short) {
			unresolved++;
			continue;
		}
		symbolizer_memory_look(z, false);
		if (symbolizer_memory_skips(z, mods->mods[f->module]))
			continue; /* for report to name: the budget allows no more */
		symbolize_frame(z, mods->mods[f->module], f->flags, f->addr, r);
		symbolize_add_levels(p, (uint32_t)i, r);
		symres_release(r);
		/* Only once r's strings are copied: a look may let go of what they are in. */
		sf = symfile_find(z, mods->mods[f->module]);
		symbolizer_memory_look(z, sf && symfile_fresh(sf));
		if (++named % 64 == 0)
			symbolizer_trim(z);
		else if (sf && symfile_fresh(sf))
			symbolizer_give_back(z);
	}
	free(r);
	symbolize_modules(p, z, !cut_short);
	return unresolved;
}

/* Whether frames of m at flags are named the same at every recording of its build. */
static bool keepable(const struct symbolizer *z, const struct module *m, uint32_t flags)
{
	return m->kind == MODULE_FILE && flags == 0 && !z->no_lines && !z->lines_off;
}

/*
 * The names kept for f's build-id, looked for once (NULL: none, no
 * cache): read from their file by the first module of the build, shared
 * by its copies (z->names) until the last lets them go.
 */
static struct namecache *names_of(struct symbolizer *z, struct symfile *f)
{
	char hex[2 * BUILD_ID_MAX + 1];
	struct hmap_slot *slot;
	bool added;

	if (f->names_tried)
		return f->names;
	f->names_tried = true;
	build_id_hex(f->build_id, f->build_id_len, hex);
	slot = hmap_insert(&z->names, hash_bytes(f->build_id, f->build_id_len), &added);
	if (!added && namecache_is(hmap_ptr(slot), hex))
		return f->names = namecache_hold(hmap_ptr(slot));
	f->names = namecache_open(hex);
	if (added && f->names)
		hmap_set_ptr(slot, f->names);
	else if (added)
		hmap_remove(&z->names, slot->key, NULL);
	return f->names; /* another build of the same hash: its own */
}

bool symbolize_cached(struct symbolizer *z, struct module *m, uint32_t flags, uint64_t addr,
		      struct symres *r)
{
	struct symfile *f = symfile_find(z, m);

	/* Read or not: a name found there costs no lookup of its lines either. */
	if (!keepable(z, m, flags))
		return false;
	if (!f)
		f = symfile_get_identity(z, m);
	if (f->reason || f->changed || !f->build_id_len)
		return false;
	if (!names_of(z, f) || !namecache_find(f->names, addr, r))
		return false;
	atomic_fetch_add(&z->names_cached, 1);
	return true;
}

void symbolize_keep(struct symbolizer *z, struct module *m, uint32_t flags, uint64_t addr,
		    const struct symres *r)
{
	struct symfile *f = symfile_find(z, m);

	/* Only a module named as well as it can be: its symbols, and DWARF for its lines. */
	if (!keepable(z, m, flags) || !f || f->unloaded || f->changed || f->reason || f->no_lines ||
	    (f->lines_reason != LINES_OK && f->lines_reason != LINES_UNCOVERED) || !f->build_id_len)
		return;
	if (names_of(z, f))
		namecache_add(f->names, addr, r);
}

void symbolizer_save_names(struct symbolizer *z, const struct module *m)
{
	struct symfile *f;

	/* One module's is found by its id: the program let go, not every one met. */
	if (m) {
		if ((f = symfile_find(z, m)) && f->names)
			namecache_save(f->names);
		return;
	}
	for (size_t i = 0; i < z->nfiles; i++)
		if (z->files[i] && z->files[i]->names)
			namecache_save(z->files[i]->names);
}

uint64_t symbolizer_names_cached(struct symbolizer *z)
{
	return atomic_load(&z->names_cached);
}
