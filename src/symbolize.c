/*
 * symbolize.c - names for frames; see symbolize.h.
 */
#include "config.h"

#include "symbolize.h"
#include "util.h"

const char *symbolize_offset(struct module *m, uint64_t off, uint64_t *symoff)
{
	const struct sym *s;
	uint64_t vaddr;

	if (module_load(m) < 0 && !m->syms.n)
		return NULL;
	if (m->kind == MODULE_KERNEL) {
		vaddr = off;
	} else if (addr_file_offset_to_vaddr(m->segs, m->nsegs, off, &vaddr) < 0) {
		return NULL;
	}
	s = symtab_lookup(&m->syms, vaddr);
	if (!s)
		return NULL;
	*symoff = vaddr - s->addr;
	return symtab_name(&m->syms, s);
}

void symbolize_profile(struct profile *p, struct module_set *mods, struct symbolize_stats *st)
{
	struct symbolize_stats local = {0};

	for (size_t i = 0; i < p->nframes; i++) {
		struct pm_frame *f = &p->frames[i];
		struct pm_line l = {0};
		const char *name;

		local.frames++;
		if (f->module == PM_NONE || f->module >= mods->n || f->nlines)
			continue;
		name = symbolize_offset(mods->mods[f->module], f->addr, &l.symoff);
		if (!name)
			continue;
		l.func = strtab_add(&p->str, name);
		profile_add_line(p, (uint32_t)i, &l);
		local.resolved++;
	}
	for (size_t i = p->nmodules; i < mods->n; i++) {
		struct module *m = mods->mods[i];
		char hex[2 * BUILD_ID_MAX + 1];
		uint32_t flags = 0, id;

		build_id_hex(m->build_id, m->build_id_len, hex);
		if (m->kind == MODULE_KERNEL)
			flags = PM_MODULE_KERNEL;
		else if (m->kind == MODULE_VDSO)
			flags = PM_MODULE_VDSO;
		else if (m->kind == MODULE_ANON)
			flags = PM_MODULE_ANON;
		id = profile_add_module(p, m->path, hex, flags);
		if (m->reason)
			p->modules[id].reason = strtab_add(&p->str, m->reason);
	}
	if (st)
		*st = local;
}
