/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * srcline-names.c - the names and places srcline.c gives a scope: its
 * function's name, demangled or built from the DWARF tree, the call site
 * of an inlined scope, file names made whole; see srcline-int.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "elf/dwline.h"
#include "symbol/demangle.h"
#include "symbol/dwname.h"
#include "symbol/scopes.h"
#include "symbol/srcline-int.h"
#include "symbol/symfile-int.h"
#include "util/alloc.h"
#include "util/hash.h"

/*
 * The name of a function DIE without a linkage name: for C++, the full
 * name built from the DWARF tree (dwname.h), else DW_AT_name. Built once
 * per function: keyed by where its abstract origin's DIE lies in libdw's
 * data.
 */
static const char *built_name(struct symfile *f, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin = *die;
	struct hmap_slot *slot;
	const char *dn;
	bool added;
	char *d;

	if (dwarf_attr(die, DW_AT_abstract_origin, &attr))
		dwarf_formref_die(&attr, &origin);
	slot = hmap_insert(&f->demangled, hmap_key_ptr(origin.addr), &added);
	if (added) {
		if (!f->dwname)
			f->dwname = dwname_new();
		d = dwname_function(f->dwname, die);
		if (!d && (dn = dwarf_diename(die)))
			d = xstrdup(dn);
		hmap_set_ptr(slot, d);
	}
	return hmap_ptr(slot);
}

/*
 * The name of a function DIE: its linkage name demangled, as
 * eu-addr2line -C shows it, else built_name.
 */
const char *srcline_die_name(struct symfile *f, Dwarf_Die *die)
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
		return built_name(f, die);
	/* Demangled once per name: keyed by the string's address in libdw's data. */
	slot = hmap_insert(&f->demangled, hmap_key_ptr(name), &added);
	if (added) {
		d = demangle(name);
		hmap_set_ptr(slot, d ? d : xstrdup(name));
	}
	return hmap_ptr(slot);
}

struct joined_path {
	const char *dir, *file;
	char path[];
};

/*
 * A file name of the line table made whole: relative names are relative
 * to the unit's compilation directory. Joined once per (dir, file) pair;
 * the pair is identified by where libdw holds the two strings.
 */
/* hmap_intern's comparison: the joined path of (dir, file) in arg. */
static bool same_path(uint64_t val, const void *arg)
{
	const struct joined_path *j = hmap_val_ptr(val);
	const char *const *df = arg;

	return j->dir == df[0] && j->file == df[1];
}

const char *srcline_full_path(struct symfile *f, const char *dir, const char *file)
{
	const char *df[2] = {dir, file};
	struct hmap_slot *slot;
	struct joined_path *j;
	uint64_t key;
	bool added;
	size_t dl, fl;

	if (!file || file[0] == '/' || !dir || !*dir)
		return file;
	key = hash_u64((uintptr_t)dir) ^ hash_u64((uintptr_t)file + 0x9e3779b97f4a7c15ULL);
	slot = hmap_intern(&f->paths, key, same_path, df, &added);
	if (!added) {
		j = hmap_ptr(slot);
		return j->path;
	}
	dl = strlen(dir);
	fl = strlen(file);
	j = xmalloc(sizeof(*j) + dl + fl + 2);
	j->dir = dir;
	j->file = file;
	memcpy(j->path, dir, dl);
	j->path[dl] = '/';
	memcpy(j->path + dl + 1, file, fl + 1);
	hmap_set_ptr(slot, j);
	return j->path;
}

bool srcline_call_site(const struct dwline_table *t, Dwarf_Die *cu, Dwarf_Die *inl,
		       const char **file, uint32_t *line, uint32_t *col)
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
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &attr), &v) != 0)
		return *line != 0;
	if (t)
		*file = v < UINT32_MAX ? dwline_file(t, (uint32_t)v) : NULL;
	else if (dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && v < nfiles)
		*file = dwarf_filesrc(files, v, NULL, NULL);
	return *line != 0;
}

/*
 * The name of the out-of-line function of scope sc, holding ELF address
 * vaddr: the symbol's that holds vaddr when that symbol starts inside the
 * function's ranges (so the symbol and DWARF agree on the function), its
 * clone suffix dropped and demangled; else DWARF's. The symbol table
 * knows what DWARF may not: the mangled name of a function of internal
 * linkage (a lambda, a method in an anonymous namespace), which GCC gives
 * no DW_AT_linkage_name, and the best of several aliases
 * (elf_symbol_rank), where DWARF names the one the source defined
 * (glibc's __GI___strcoll_l for __strcoll_l).
 */
const char *srcline_function_name(struct symfile *f, const struct unit_scopes *u,
				  const struct scope *sc, const char *dwarf_name, uint64_t vaddr,
				  Dwarf_Addr cubias)
{
	const struct sym *s = symtab_lookup(&f->syms, vaddr);
	struct hmap_slot *slot;
	const char *raw;
	bool added;

	if (!s || !scope_holds(u, sc, s->addr + f->dwbias - cubias))
		return dwarf_name;
	/* Keyed by the name's address in the finished table, as srcline_die_name's keys. */
	raw = symtab_name(&f->syms, s);
	slot = hmap_insert(&f->demangled, hmap_key_ptr(raw), &added);
	if (added)
		hmap_set_ptr(slot, demangle_function(raw));
	return hmap_ptr(slot);
}
