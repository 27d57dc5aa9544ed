/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * srcline.c - lines and inline chains through libdw; see srcline.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include "elf/dwline.h"
#include "symbol/demangle.h"
#include "symbol/dwname.h"
#include "symbol/scopes.h"
#include "symbol/srcline-int.h"
#include "symbol/srcline.h"
#include "symbol/symfile-int.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/hash.h"

/*
 * What a lookup takes of a scope's DIE, the same at every address the
 * scope holds: read from libdw once (attributes through abstract origins
 * are costly to walk), then at every later lookup in the scope. The
 * strings are the symfile's (die_name, unit_path), kept until it is
 * unloaded, which drops the units' facts first.
 */
struct scope_facts {
	const char *name;      /* srcline_die_name's, or NULL */
	const char *call_file; /* an inlined scope's call site: the level out's place */
	uint32_t call_line, call_col;
	uint32_t decl_line; /* 0: not known */
	Dwarf_Addr entry;   /* a subprogram's entry pc, when has_entry */
	bool known, subprogram, inlined, has_entry, symbol_suffix;
};

/*
 * The units of a module, found by address without .debug_aranges: every
 * compilation unit's own ranges (DW_AT_ranges, or DW_AT_low_pc and
 * DW_AT_high_pc), else the sequences of its line table, sorted by start.
 * Ranges of different units may overlap (code a linker discarded keeps
 * its unit's ranges at 0 or at a tombstone, and some producers emit
 * overlapping units); maxhi[i] is the highest end among ranges 0..i, so
 * a lookup walks back from the last range starting at or below the
 * address only while an earlier range could still hold it.
 */
struct unit {
	Dwarf_Die cu; /* its line table and file names */
	/*
	 * Its line table, read at its first lookup (dwline.h): NULL before,
	 * and when it is libdw's (no_table: a table our reader refused).
	 */
	struct dwline_table *table;
	bool table_read, no_table;
	bool rows_shed;	  /* its table's rows (and its index) dropped by srcline_trim */
	bool used;	  /* looked up in since the last srcline_trim */
	uint16_t version; /* DWARF version of the unit */
	int lang;	  /* DW_LANG_*, -1 when unknown */
	Dwarf_Die scopes; /* its function DIEs: the split unit of a skeleton */
	const char *comp_dir;
	struct unit_scopes *index; /* built at the unit's first lookup */
	struct scope_facts *facts; /* per scope of index, each read at its first lookup */
	size_t nfacts;
};

/* Bytes of unit u's scope facts. */
static size_t facts_size(const struct unit *u)
{
	return u->nfacts * sizeof(*u->facts);
}

struct unit_range {
	uint64_t lo, hi; /* [lo, hi) in the DWARF's address space */
	uint32_t unit;
};

struct srcline_units {
	Dwarf_Addr bias; /* dwfl address = DWARF address + bias */
	/* The sections line tables are read from; own_lines false: libdw reads them. */
	struct dwline_input in;
	bool own_lines;
	struct unit *units;
	size_t nunits, units_cap;
	struct unit_range *ranges;
	size_t nranges, ranges_cap;
	uint64_t *maxhi;
	bool ready;
	size_t held; /* bytes of the units' rows and indexes, which srcline_trim may drop */
	/* The units looked up in since the last srcline_trim (their used set): it clears those alone. */
	uint32_t *used;
	size_t nused, used_cap;
};

/*
 * Code never starts at address 0 in a linked program; ld.bfd leaves the
 * ranges of discarded functions there, lld at -1 or -2.
 */
static bool real_range(uint64_t lo, uint64_t hi)
{
	return lo != 0 && hi > lo && lo < UINT64_MAX - 1;
}

static void add_unit_range(struct srcline_units *x, uint64_t lo, uint64_t hi, uint32_t unit)
{
	if (!real_range(lo, hi))
		return;
	xgrow(&x->ranges, &x->ranges_cap, x->nranges + 1, sizeof(*x->ranges));
	x->ranges[x->nranges++] = (struct unit_range){lo, hi, unit};
}

/*
 * The sections of dw's ELF file that line tables are read from. Our
 * reader takes them as they are in memory: not when libdw could not
 * expand them in place (still compressed), nor in the other byte order.
 */
static void find_sections(struct srcline_units *x, Dwarf *dw)
{
	Elf *e = dwarf_getelf(dw);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *ident;

	x->own_lines = false;
	if (!e || elf_getshdrstrndx(e, &shstrndx) != 0 || !(ident = elf_getident(e, NULL)))
		return;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (ident[EI_DATA] != ELFDATA2LSB)
		return;
#else
	if (ident[EI_DATA] != ELFDATA2MSB)
		return;
#endif
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		const uint8_t **data;
		size_t *size;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".debug_line")) {
			data = &x->in.line;
			size = &x->in.line_size;
		} else if (!strcmp(name, ".debug_line_str")) {
			data = &x->in.line_str;
			size = &x->in.line_str_size;
		} else if (!strcmp(name, ".debug_str")) {
			data = &x->in.str;
			size = &x->in.str_size;
		} else {
			continue;
		}
		if ((sh.sh_flags & SHF_COMPRESSED) || sh.sh_type == SHT_NOBITS ||
		    !(d = elf_getdata(scn, NULL)) || !d->d_buf || d->d_type != ELF_T_BYTE)
			return;
		*data = d->d_buf;
		*size = d->d_size;
	}
	x->own_lines = x->in.line != NULL;
}

/* Where the unit's line table lies, and the unit's address size; false when it has none. */
static bool table_place(struct unit *u, Dwarf_Word *off, uint8_t *addr_size)
{
	Dwarf_Attribute attr;
	uint8_t offset_size;
	Dwarf_Die cudie;

	if (dwarf_formudata(dwarf_attr(&u->cu, DW_AT_stmt_list, &attr), off) != 0)
		return false;
	if (!dwarf_diecu(&u->cu, &cudie, addr_size, &offset_size))
		*addr_size = 8;
	return true;
}

/*
 * The unit's line table, read at the first call (and again after
 * srcline_trim dropped its rows); NULL when our reader refused it
 * (u->no_table: libdw's is used), or when the unit has none.
 */
static struct dwline_table *unit_table(struct srcline_units *x, struct unit *u)
{
	Dwarf_Word off;
	uint8_t addr_size = 8;

	if (u->rows_shed) {
		/* The same bytes parse again. */
		u->rows_shed = false;
		if (table_place(u, &off, &addr_size) &&
		    dwline_reread_rows(&x->in, off, u->comp_dir, addr_size, u->table) == 0)
			x->held += dwline_rows_size(u->table);
		return u->table;
	}
	if (u->table_read)
		return u->table;
	u->table_read = true;
	if (!x->own_lines) {
		u->no_table = true;
		return NULL;
	}
	if (!table_place(u, &off, &addr_size))
		return NULL; /* no line table: no lines from libdw either */
	u->table = xmalloc(sizeof(*u->table));
	if (dwline_read(&x->in, off, u->comp_dir, addr_size, u->table) < 0) {
		dwline_free(u->table);
		free(u->table);
		u->table = NULL;
		u->no_table = true;
	} else {
		x->held += dwline_rows_size(u->table);
	}
	return u->table;
}

/* A unit without ranges of its own: the sequences of its line table. */
static void add_line_ranges(struct srcline_units *x, struct unit *u, uint32_t unit)
{
	struct dwline_table *t = unit_table(x, u);
	Dwarf_Lines *lines;
	size_t n;
	uint64_t lo = 0;
	bool open = false;

	if (t) {
		for (size_t i = 0; i < t->nseqs; i++)
			add_unit_range(x, t->seqs[i].lo, t->seqs[i].hi, unit);
		return;
	}
	if (!u->no_table || dwarf_getsrclines(&u->cu, &lines, &n) != 0)
		return;
	/* Sorted by address: sequences follow one another, each closed by its end. */
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		bool end;

		if (!l || dwarf_lineaddr(l, &a) != 0 || dwarf_lineendsequence(l, &end) != 0)
			continue;
		if (!open && !end) {
			lo = a;
			open = true;
		} else if (open && end) {
			add_unit_range(x, lo, a, unit);
			open = false;
		}
	}
}

static int cmp_unit_range(const void *a, const void *b)
{
	const struct unit_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return x->unit < y->unit ? -1 : x->unit > y->unit;
}

/*
 * index_units gives the pages of the module's files back each time its
 * walk has gone this many bytes further into the units, or a 64th of the
 * files' mappings if that is more. A give-back reads the page map of the
 * whole mappings: a unit count would call it every few KiB on a file of
 * many small units (libc's debug file: 2,063 units in 5.8 MB), where the
 * walk's pages come back at once, and a fixed step would read a large
 * file's page map (a library of hundreds of MB) thousands of times.
 */
#define INDEX_GIVE_BACK_BYTES (512 * 1024)
#define INDEX_GIVE_BACKS      64

/* How far index_units walks between give-backs of f's pages. */
static Dwarf_Off give_back_step(const struct symfile *f)
{
	uint64_t mapped = 0;

	for (int k = 0; k < f->nrmaps; k++)
		mapped += f->rmaps[k].end - f->rmaps[k].start;
	return mapped / INDEX_GIVE_BACKS > INDEX_GIVE_BACK_BYTES ? mapped / INDEX_GIVE_BACKS
								 : INDEX_GIVE_BACK_BYTES;
}

static void index_units(struct srcline_units *x, Dwarf *dw, struct symfile *f, int pagemap)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t type;
	Dwarf_Die cudie, subdie;
	Dwarf_Off given = 0, at, step = give_back_step(f);

	while (dwarf_get_units(dw, cu, &next, &version, &type, &cudie, &subdie) == 0) {
		Dwarf_Addr base, lo, hi;
		Dwarf_Attribute attr;
		ptrdiff_t off = 0;
		size_t before = x->nranges;
		struct unit *u;
		uint32_t id = (uint32_t)x->nunits;

		cu = next;
		at = dwarf_dieoffset(&cudie);
		/* Offsets start again in another section (.debug_types). */
		if (pagemap >= 0 && at != (Dwarf_Off)-1 && (at < given || at - given >= step)) {
			symfile_give_back(f, pagemap);
			given = at;
		}
		if (type != DW_UT_compile && type != DW_UT_skeleton)
			continue; /* type and partial units hold no code of their own */
		if (dwarf_tag(&cudie) != DW_TAG_compile_unit &&
		    dwarf_tag(&cudie) != DW_TAG_skeleton_unit)
			continue;
		xgrow(&x->units, &x->units_cap, x->nunits + 1, sizeof(*x->units));
		u = &x->units[x->nunits++];
		u->cu = cudie;
		u->version = version;
		u->lang = dwarf_srclang(&cudie);
		u->scopes = type == DW_UT_skeleton && dwarf_tag(&subdie) ? subdie : cudie;
		u->comp_dir = dwarf_formstring(dwarf_attr(&cudie, DW_AT_comp_dir, &attr));
		u->index = NULL;
		u->facts = NULL;
		u->nfacts = 0;
		u->table = NULL;
		u->table_read = u->no_table = u->rows_shed = u->used = false;
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0)
			add_unit_range(x, lo, hi, id);
		if (x->nranges == before)
			add_line_ranges(x, u, id);
	}
	if (x->nranges)
		qsort(x->ranges, x->nranges, sizeof(*x->ranges), cmp_unit_range);
	x->maxhi = xmalloc((x->nranges ? x->nranges : 1) * sizeof(*x->maxhi));
	for (size_t i = 0; i < x->nranges; i++)
		x->maxhi[i] =
			i && x->maxhi[i - 1] > x->ranges[i].hi ? x->maxhi[i - 1] : x->ranges[i].hi;
}

/* The module's units, indexed at the first lookup; NULL without DWARF. */
static struct srcline_units *file_units(struct symfile *f, int pagemap)
{
	struct srcline_units *x = f->lines;
	Dwarf *dw;

	if (x)
		return x->ready ? x : NULL;
	x = f->lines = xcalloc(1, sizeof(*x));
	if (!f->dwmod)
		return NULL;
	dw = symfile_dwarf(f, &x->bias);
	if (!dw) {
		/* Compressed sections libelf skipped, or none at all. */
		f->lines_reason = f->zreason ? f->zreason : LINES_NO_DWARF;
		return NULL;
	}
	f->fresh = true;
	find_sections(x, dw);
	index_units(x, dw, f, pagemap);
	if (x->nunits == 0)
		f->lines_reason = f->zreason ? f->zreason : LINES_NO_DWARF;
	x->ready = true;
	return x;
}

static uint64_t unit_range_lo(const void *ranges, size_t i)
{
	return ((const struct unit_range *)ranges)[i].lo;
}

/* The unit whose ranges hold pc (the one starting last), or NULL. */
static struct unit *unit_at(struct srcline_units *x, uint64_t pc)
{
	size_t lo = bsearch_last_le(x->ranges, x->nranges, pc, unit_range_lo);

	for (size_t i = lo; i > 0 && x->maxhi[i - 1] > pc; i--)
		if (pc < x->ranges[i - 1].hi)
			return &x->units[x->ranges[i - 1].unit];
	return NULL;
}

/*
 * The row of the unit's line table for pc: the last row at the highest
 * address at or below pc, unless that row ends a sequence (pc lies in a
 * gap). libdw keeps the rows sorted by address.
 */
static Dwarf_Line *line_at(Dwarf_Die *cu, uint64_t pc)
{
	Dwarf_Lines *lines;
	Dwarf_Line *l;
	Dwarf_Addr a;
	size_t n, lo = 0, hi;
	bool end;

	if (dwarf_getsrclines(cu, &lines, &n) != 0 || n == 0)
		return NULL;
	hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		l = dwarf_onesrcline(lines, mid);
		if (l && dwarf_lineaddr(l, &a) == 0 && a <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	l = dwarf_onesrcline(lines, lo - 1);
	if (!l || dwarf_lineendsequence(l, &end) != 0 || end)
		return NULL;
	return l;
}

/*
 * A file name of the unit's line table made whole (full_path). Before
 * DWARF 5, directory 0 is the compilation directory, which libdw has
 * already put before the name; a relative one (Go's ".") must not be put
 * there twice. In DWARF 5 directory 0 is a string of the table's own,
 * joined to the compilation directory like any other (as binutils,
 * elfutils and LLVM do, even where the two are the same).
 */
static const char *unit_path(struct symfile *f, const struct unit *u, const char *file)
{
	size_t n;

	if (u->version < 5 && file && u->comp_dir && u->comp_dir[0] != '/' &&
	    (n = strlen(u->comp_dir)) && !strncmp(file, u->comp_dir, n) && file[n] == '/')
		return file;
	return srcline_full_path(f, u->comp_dir, file);
}

void srcline_release(struct symfile *f)
{
	struct srcline_units *x = f->lines;

	if (!x)
		return;
	for (size_t i = 0; i < x->nunits; i++) {
		unit_scopes_free(x->units[i].index);
		free(x->units[i].facts);
		if (x->units[i].table) {
			dwline_free(x->units[i].table);
			free(x->units[i].table);
		}
	}
	free(x->units);
	free(x->ranges);
	free(x->maxhi);
	free(x->used);
	free(x);
	f->lines = NULL;
}

size_t srcline_held(const struct symfile *f)
{
	return f->lines ? f->lines->held : 0;
}

void srcline_trim(struct symfile *f, bool shed)
{
	struct srcline_units *x = f->lines;

	if (!x)
		return;
	if (!shed) {
		/* Nothing dropped: a walk of the units used, not of them all (thousands in a big program). */
		for (size_t i = 0; i < x->nused; i++)
			x->units[x->used[i]].used = false;
		x->nused = 0;
		return;
	}
	x->nused = 0;
	for (size_t i = 0; i < x->nunits; i++) {
		struct unit *u = &x->units[i];

		if (!u->used) {
			if (u->index) {
				x->held -= unit_scopes_size(u->index);
				unit_scopes_free(u->index);
				u->index = NULL;
			}
			if (u->facts) {
				x->held -= facts_size(u);
				free(u->facts);
				u->facts = NULL;
				u->nfacts = 0;
			}
			if (u->table && !u->rows_shed) {
				x->held -= dwline_rows_size(u->table);
				dwline_drop_rows(u->table);
				u->rows_shed = true;
			}
		}
		u->used = false;
	}
}

/*
 * The file, line and column of pc in unit u: from its own table t, or
 * from libdw's where the unit's program could not be read by dwline;
 * NULL when neither has pc.
 */
static const char *pc_line(struct symfile *f, struct unit *u, const struct dwline_table *t,
			   uint64_t pc, int *line, int *col)
{
	const struct dwline_row *row;
	Dwarf_Line *dl;
	uint64_t lo;

	if (t && (row = dwline_find(t, pc, &lo))) {
		*line = (int)(row->line <= INT32_MAX ? row->line : 0);
		*col = row->col;
		return unit_path(f, u, dwline_file(t, row->file));
	}
	if (u->no_table && (dl = line_at(&u->cu, pc))) {
		dwarf_lineno(dl, line);
		dwarf_linecol(dl, col);
		return unit_path(f, u, dwarf_linesrc(dl, NULL, NULL));
	}
	return NULL;
}

/* The facts of scope sc of unit u (its index built), read from its DIE the first time. */
static const struct scope_facts *facts_of(struct symfile *f, struct srcline_units *x,
					  struct unit *u, const struct dwline_table *t, int32_t sc)
{
	struct scope_facts *sf;
	Dwarf_Die whole, *die = &whole;
	int tag, decl;

	if (!u->facts) {
		u->nfacts = u->index->n;
		u->facts = xcalloc(u->nfacts ? u->nfacts : 1, sizeof(*u->facts));
		x->held += facts_size(u);
	}
	sf = &u->facts[sc];
	if (sf->known)
		return sf;
	whole = scope_die(u->index, &u->index->scopes[sc]);
	tag = dwarf_tag(die);
	sf->known = true;
	sf->subprogram = tag == DW_TAG_subprogram;
	sf->inlined = tag == DW_TAG_inlined_subroutine;
	sf->name = srcline_die_name(f, die);
	/* Through the abstract origin or the specification. */
	sf->decl_line = dwarf_decl_line(die, &decl) == 0 && decl > 0 ? (uint32_t)decl : 0;
	if (sf->subprogram) {
		sf->has_entry = dwarf_entrypc(die, &sf->entry) == 0;
		sf->symbol_suffix =
			u->lang == DW_LANG_Go && !dwarf_hasattr_integrate(die, DW_AT_linkage_name);
	} else {
		/* The next level out runs at this level's call site. */
		srcline_call_site(t, &u->cu, die, &sf->call_file, &sf->call_line, &sf->call_col);
		sf->call_file = unit_path(f, u, sf->call_file);
	}
	return sf;
}

int srcline_lookup(struct symfile *f, uint64_t vaddr, struct srcline *out, int max, int pagemap)
{
	struct srcline_units *x;
	struct unit *u;
	struct dwline_table *t;
	uint64_t pc;
	int n = 0;
	int line = 0, col = 0;
	const char *file = NULL;

	if (max <= 0 || !(x = file_units(f, pagemap)))
		return 0;
	pc = vaddr + f->dwbias - x->bias;
	u = unit_at(x, pc);
	if (!u) {
		if (!f->lines_reason)
			f->lines_reason = LINES_UNCOVERED;
		return 0;
	}
	if (!u->table_read || u->rows_shed)
		f->fresh = true; /* the table is read now */
	t = unit_table(x, u);
	file = pc_line(f, u, t, pc, &line, &col);
	if (!u->used) {
		xgrow(&x->used, &x->used_cap, x->nused + 1, sizeof(*x->used));
		x->used[x->nused++] = (uint32_t)(u - x->units);
		u->used = true;
	}
	if (!u->index) {
		f->fresh = true;
		u->index = unit_scopes_new(&u->scopes);
		x->held += unit_scopes_size(u->index);
	}
	for (int32_t sc = unit_scopes_innermost(u->index, pc); sc >= 0 && n < max;
	     sc = u->index->scopes[sc].parent) {
		const struct scope_facts *sf = facts_of(f, x, u, t, sc);

		out[n].func = sf->subprogram
				      ? srcline_function_name(f, u->index, &u->index->scopes[sc],
							      sf->name, vaddr, x->bias)
				      : sf->name;
		if (!out[n].func && sf->inlined)
			out[n].func = "??";
		out[n].file = file;
		out[n].line = line > 0 ? (uint32_t)line : 0;
		out[n].col = col > 0 ? (uint32_t)col : 0;
		out[n].inlined = sf->inlined;
		out[n].decl_line = sf->decl_line;
		out[n].entry = 0;
		out[n].symbol_suffix = false;
		n++;
		if (sf->subprogram) {
			if (sf->has_entry && sf->entry + x->bias >= f->dwbias)
				out[n - 1].entry = sf->entry + x->bias - f->dwbias;
			out[n - 1].symbol_suffix = sf->symbol_suffix;
			break;
		}
		file = sf->call_file;
		line = (int)sf->call_line;
		col = (int)sf->call_col;
	}
	if (n == 0 && file) {
		/* Lines but no function DIE: keep the line, the symbol names it. */
		out[0] = (struct srcline){.file = file,
					  .line = line > 0 ? (uint32_t)line : 0,
					  .col = col > 0 ? (uint32_t)col : 0};
		n = 1;
	}
	return n;
}
