/*
 * srcline.c - lines and inline chains through libdw; see srcline.h.
 */
#include "config.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>

#include "demangle.h"
#include "dwname.h"
#include "srcline.h"
#include "util.h"

/*
 * The name of a function DIE without a linkage name: for C++, the full
 * name built from the DWARF tree (dwname.h), else DW_AT_name. Built once
 * per function: keyed by where its abstract origin's DIE lies in libdw's
 * data.
 */
static const char *built_name(struct module *m, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin = *die;
	struct hmap_slot *slot;
	const char *dn;
	bool added;
	char *d;

	if (dwarf_attr(die, DW_AT_abstract_origin, &attr))
		dwarf_formref_die(&attr, &origin);
	slot = hmap_insert(&m->demangled, (uint64_t)(uintptr_t)origin.addr, &added);
	if (added) {
		if (!m->dwname)
			m->dwname = dwname_new();
		d = dwname_function(m->dwname, die);
		if (!d && (dn = dwarf_diename(die)))
			d = xstrdup(dn);
		slot->val = (uintptr_t)d;
	}
	return (const char *)(uintptr_t)slot->val;
}

/*
 * The name of a function DIE: its linkage name demangled, as
 * eu-addr2line -C shows it, else built_name.
 */
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
		return built_name(m, die);
	/* Demangled once per name: keyed by the string's address in libdw's data. */
	slot = hmap_insert(&m->demangled, (uint64_t)(uintptr_t)name, &added);
	if (added) {
		d = demangle(name);
		slot->val = (uintptr_t)(d ? d : xstrdup(name));
	}
	return (const char *)(uintptr_t)slot->val;
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
static const char *full_path(struct module *m, const char *dir, const char *file)
{
	struct hmap_slot *slot;
	struct joined_path *j;
	uint64_t key;
	bool added;
	size_t dl, fl;

	if (!file || file[0] == '/' || !dir || !*dir)
		return file;
	key = hash_u64((uintptr_t)dir) ^ hash_u64((uintptr_t)file + 0x9e3779b97f4a7c15ULL);
	for (key |= 1;; key = hash_u64(key) | 1) {
		slot = hmap_insert(&m->paths, key, &added);
		if (added)
			break;
		j = (struct joined_path *)(uintptr_t)slot->val;
		if (j->dir == dir && j->file == file)
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
	slot->val = (uintptr_t)j;
	return j->path;
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

/*
 * The function scopes of one compilation unit, indexed once: every
 * subprogram and inlined_subroutine DIE with its address ranges and its
 * nearest indexed ancestor. libdw's dwarf_getscopes walks the unit's DIE
 * tree at every call; with this index a lookup is a binary search and a
 * walk up a few parents.
 *
 * Why that walk is enough: DIE ranges nest (a child's ranges lie within
 * its parent's, siblings' ranges do not overlap). Take the range that
 * starts last at or below the address (the deepest of equals); the
 * innermost scope holding the address is its DIE or an ancestor of it.
 * Among DIEs with equal ranges the first in DIE order wins, as in libdw.
 */
struct scope {
	Dwarf_Die die;
	int32_t parent; /* index into scopes, -1 at the top */
	uint32_t range0, nranges;
};

struct scope_range {
	uint64_t lo, hi; /* [lo, hi) in the unit's address space */
	uint32_t scope;
	uint32_t depth;
};

struct unit_scopes {
	struct scope *scopes;
	size_t n, cap;
	struct scope_range *ranges; /* every range, then sorted for lookup */
	size_t nranges, ranges_cap;
	struct scope_range *sorted;
};

static void index_die(struct unit_scopes *u, Dwarf_Die *die, int32_t parent, uint32_t depth)
{
	Dwarf_Die child;

	if (dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		int32_t me = parent;

		switch (tag) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine: {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;
			struct scope *sc;

			xgrow(&u->scopes, &u->cap, u->n + 1, sizeof(*u->scopes));
			sc = &u->scopes[u->n];
			sc->die = child;
			sc->parent = parent;
			sc->range0 = (uint32_t)u->nranges;
			while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				xgrow(&u->ranges, &u->ranges_cap, u->nranges + 1,
				      sizeof(*u->ranges));
				u->ranges[u->nranges++] =
					(struct scope_range){lo, hi, (uint32_t)u->n, depth};
			}
			sc->nranges = (uint32_t)u->nranges - sc->range0;
			me = (int32_t)u->n++;
			break;
		}
		/* What holds no code: types, variables, parameters. */
		case DW_TAG_base_type:
		case DW_TAG_pointer_type:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_typedef:
		case DW_TAG_array_type:
		case DW_TAG_subrange_type:
		case DW_TAG_enumeration_type:
		case DW_TAG_enumerator:
		case DW_TAG_member:
		case DW_TAG_variable:
		case DW_TAG_formal_parameter:
		case DW_TAG_unspecified_parameters:
		case DW_TAG_subroutine_type:
		case DW_TAG_label:
		case DW_TAG_GNU_call_site:
		case DW_TAG_call_site:
			continue;
		default:
			break;
		}
		index_die(u, &child, me, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

static int cmp_range(const void *a, const void *b)
{
	const struct scope_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	/*
	 * Aliases (assembly units give one range several subprograms): the
	 * first in DIE order must sort last, where lookups look first.
	 */
	return x->scope > y->scope ? -1 : x->scope < y->scope;
}

static struct unit_scopes *unit_scopes(struct module *m, Dwarf_Die *cu)
{
	uint64_t key = dwarf_dieoffset(cu) + 1;
	struct hmap_slot *slot = hmap_insert(&m->units, key, NULL);
	struct unit_scopes *u;

	if (slot->val)
		return (struct unit_scopes *)(uintptr_t)slot->val;
	u = xcalloc(1, sizeof(*u));
	index_die(u, cu, -1, 0);
	u->sorted = xmalloc((u->nranges ? u->nranges : 1) * sizeof(*u->sorted));
	if (u->nranges) {
		memcpy(u->sorted, u->ranges, u->nranges * sizeof(*u->sorted));
		qsort(u->sorted, u->nranges, sizeof(*u->sorted), cmp_range);
	}
	slot->val = (uintptr_t)u;
	return u;
}

static bool scope_holds(const struct unit_scopes *u, const struct scope *sc, uint64_t pc)
{
	for (uint32_t i = 0; i < sc->nranges; i++) {
		const struct scope_range *r = &u->ranges[sc->range0 + i];

		if (pc >= r->lo && pc < r->hi)
			return true;
	}
	return false;
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
static const char *function_name(struct module *m, const struct unit_scopes *u,
				 const struct scope *sc, uint64_t vaddr, Dwarf_Addr cubias)
{
	const struct sym *s = symtab_lookup(&m->syms, vaddr);
	struct hmap_slot *slot;
	const char *raw;
	bool added;

	if (!s || !scope_holds(u, sc, s->addr + m->dwbias - cubias))
		return die_name(m, (Dwarf_Die *)&sc->die);
	/* Keyed by the name's address in the finished table, as die_name's keys. */
	raw = symtab_name(&m->syms, s);
	slot = hmap_insert(&m->demangled, (uint64_t)(uintptr_t)raw, &added);
	if (added)
		slot->val = (uintptr_t)demangle_function(raw);
	return (const char *)(uintptr_t)slot->val;
}

/* The innermost function scope holding pc, or -1. */
static int32_t innermost(const struct unit_scopes *u, uint64_t pc)
{
	size_t lo = 0, hi = u->nranges;
	int32_t s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->sorted[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	for (s = (int32_t)u->sorted[lo - 1].scope; s >= 0; s = u->scopes[s].parent)
		if (scope_holds(u, &u->scopes[s], pc))
			return s;
	return -1;
}

void srcline_release(struct module *m)
{
	for (size_t i = 0; i < m->units.cap; i++) {
		struct unit_scopes *u;

		if (!m->units.slots[i].key)
			continue;
		u = (struct unit_scopes *)(uintptr_t)m->units.slots[i].val;
		free(u->scopes);
		free(u->ranges);
		free(u->sorted);
		free(u);
	}
	hmap_release(&m->units);
}

int srcline_lookup(struct module *m, uint64_t vaddr, struct srcline *out, int max)
{
	Dwarf_Addr addr = vaddr + m->dwbias, cubias;
	Dwarf_Die *cu;
	Dwfl_Line *dl;
	int n = 0;
	int line = 0, col = 0;
	const char *file = NULL, *comp_dir;
	Dwarf_Attribute attr;

	if (!m->dwmod || max <= 0)
		return 0;
	cu = dwfl_module_addrdie(m->dwmod, addr, &cubias);
	if (!cu)
		return 0;
	comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
	dl = dwfl_module_getsrc(m->dwmod, addr);
	if (dl)
		file = full_path(m, dwfl_line_comp_dir(dl),
				 dwfl_lineinfo(dl, NULL, &line, &col, NULL, NULL));
	{
		struct unit_scopes *u = unit_scopes(m, cu);

		for (int32_t sc = innermost(u, addr - cubias); sc >= 0 && n < max;
		     sc = u->scopes[sc].parent) {
			Dwarf_Die *die = &u->scopes[sc].die;
			int tag = dwarf_tag(die);

			out[n].func = tag == DW_TAG_subprogram
					      ? function_name(m, u, &u->scopes[sc], vaddr, cubias)
					      : die_name(m, die);
			if (!out[n].func && tag == DW_TAG_inlined_subroutine)
				out[n].func = "??";
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

				call_site(cu, die, &file, &l, &c);
				file = full_path(m, comp_dir, file);
				line = (int)l;
				col = (int)c;
			}
		}
	}
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
