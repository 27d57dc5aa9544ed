/*
 * srcline.c - lines and inline chains through libdw; see srcline.h.
 */
#include "config.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>

#include "demangle.h"
#include "srcline.h"
#include "util.h"

/* The name eu-addr2line -C shows for a function DIE. */
static const char *die_name(struct module *m, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;
	struct hmap_slot *slot;
	bool added;
	char *d;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	if (!name)
		return dwarf_diename(die);
	/* Demangled once per name: keyed by the string's address in libdw's data. */
	slot = hmap_insert(&m->demangled, (uint64_t)(uintptr_t)name, &added);
	if (added) {
		d = demangle(name);
		slot->val = (uintptr_t)(d ? d : xstrdup(name));
	}
	return (const char *)(uintptr_t)slot->val;
}

static bool call_site(Dwarf_Die *cu, Dwarf_Die *inl, const char **file, uint32_t *line,
		      uint32_t *col)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;
	Dwarf_Files *files;
	size_t nfiles;

	*file = NULL;
	*line = 0;
	*col = 0;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &attr), &v) == 0)
		*line = (uint32_t)v;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_column, &attr), &v) == 0)
		*col = (uint32_t)v;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &attr), &v) == 0 &&
	    dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && v < nfiles)
		*file = dwarf_filesrc(files, v, NULL, NULL);
	return *line != 0;
}

int srcline_lookup(struct module *m, uint64_t vaddr, struct srcline *out, int max)
{
	Dwarf_Addr addr = vaddr + m->dwbias, cubias;
	Dwarf_Die *cu, *scopes = NULL;
	Dwfl_Line *dl;
	int nscopes, n = 0;
	int line = 0, col = 0;
	const char *file = NULL;

	if (!m->dwmod || max <= 0)
		return 0;
	cu = dwfl_module_addrdie(m->dwmod, addr, &cubias);
	if (!cu)
		return 0;
	dl = dwfl_module_getsrc(m->dwmod, addr);
	if (dl)
		file = dwfl_lineinfo(dl, NULL, &line, &col, NULL, NULL);
	/*
	 * dwarf_getscopes continues past an inlined instance with the scopes of
	 * the abstract definition; the chain of DIEs that physically contain
	 * the innermost scope comes from dwarf_getscopes_die.
	 */
	nscopes = dwarf_getscopes(cu, addr - cubias, &scopes);
	if (nscopes > 0) {
		Dwarf_Die inner = scopes[0];

		free(scopes);
		scopes = NULL;
		nscopes = dwarf_getscopes_die(&inner, &scopes);
	}
	for (int i = 0; i < nscopes && n < max; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		out[n].func = die_name(m, &scopes[i]);
		out[n].file = file;
		out[n].line = line > 0 ? (uint32_t)line : 0;
		out[n].col = col > 0 ? (uint32_t)col : 0;
		out[n].inlined = tag == DW_TAG_inlined_subroutine;
		n++;
		if (tag == DW_TAG_subprogram)
			break;
		/* The next level out runs at this level's call site. */
		{
			uint32_t l, c;

			call_site(cu, &scopes[i], &file, &l, &c);
			line = (int)l;
			col = (int)c;
		}
	}
	free(scopes);
	if (n == 0 && file) {
		/* Lines but no function DIE: keep the line, the symbol names it. */
		out[0].func = NULL;
		out[0].file = file;
		out[0].line = line > 0 ? (uint32_t)line : 0;
		out[0].col = col > 0 ? (uint32_t)col : 0;
		out[0].inlined = false;
		n = 1;
	}
	return n;
}
