/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * elfread.c - segments, build-id and symbols from ELF; see elfread.h.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdwelf.h>

#include "elf/elfread.h"
#include "elf/gopclntab.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/bytes.h"

int elf_read_segments(Elf *e, struct load_seg **segs)
{
	size_t phnum, nload = 0, n = 0;
	struct load_seg *out;
	GElf_Phdr ph;

	*segs = NULL;
	if (elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &phnum) != 0)
		return -ENOEXEC;
	/* As many as there are: one is kept for each program a machine ever ran. */
	for (size_t i = 0; i < phnum; i++)
		nload += gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD;
	if (!nload)
		return 0;
	out = xcalloc(nload, sizeof(*out));
	for (size_t i = 0; i < phnum && n < nload; i++) {
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		out[n].offset = ph.p_offset;
		out[n].vaddr = ph.p_vaddr;
		out[n].filesz = ph.p_filesz;
		out[n].memsz = ph.p_memsz;
		out[n].flags = ph.p_flags;
		n++;
	}
	*segs = out;
	return (int)n;
}

int elf_moved_text(int fd, uint64_t start, uint64_t end, uint64_t pgoff, uint32_t prot, uint64_t lo,
		   uint64_t hi, uint64_t *off)
{
	struct load_seg *segs = NULL;
	Elf *e;
	int n, ret = -ENOEXEC;

	elf_version(EV_CURRENT);
	e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (e && (n = elf_read_segments(e, &segs)) > 0)
		ret = addr_moved_text(segs, (size_t)n, start, end, pgoff, prot, lo, hi, off);
	free(segs);
	if (e)
		elf_end(e);
	return ret;
}

size_t elf_read_build_id(Elf *e, uint8_t id[BUILD_ID_MAX])
{
	const void *p;
	ssize_t n = dwelf_elf_gnu_build_id(e, &p);

	if (n <= 0)
		return 0;
	if (n > BUILD_ID_MAX)
		n = BUILD_ID_MAX;
	memcpy(id, p, (size_t)n);
	return (size_t)n;
}

void build_id_hex(const uint8_t *id, size_t len, char *out)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = hex[id[i] >> 4];
		out[2 * i + 1] = hex[id[i] & 15];
	}
	out[2 * len] = '\0';
}

size_t elf_symbol_name_len(const char *name)
{
	/* "memcpy@@GLIBC_2.14": the version is not part of the function's name. */
	return strcspn(name, "@");
}

uint8_t elf_symbol_rank(const GElf_Sym *s, const char *name)
{
	unsigned under = 0;
	uint8_t r = 0;

	if (GELF_ST_TYPE(s->st_info) == STT_FUNC)
		r |= 1u << 6;
	if (s->st_size)
		r |= 1u << 5;
	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		r |= 2u << 3;
		break;
	case STB_WEAK:
		r |= 1u << 3;
		break;
	default:
		break;
	}
	while (under < 3 && name[under] == '_')
		under++;
	return (uint8_t)(r | (3 - under));
}

uint64_t elf_symbol_size(Elf *e, const GElf_Sym *s, GElf_Word shndx)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (s->st_size)
		return s->st_size;
	scn = shndx != SHN_UNDEF && shndx < SHN_LORESERVE ? elf_getscn(e, shndx) : NULL;
	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
	    s->st_value < sh.sh_addr || s->st_value - sh.sh_addr >= sh.sh_size)
		return 0;
	return SYMTAB_SIZE_AT_MOST(sh.sh_addr + sh.sh_size - s->st_value);
}

bool elf_symbol_is_label(Elf *e, const GElf_Sym *s, GElf_Word shndx, const char *name)
{
	static const char *const markers[] = {"_etext", "etext", "__etext", "_end", "_edata"};
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (GELF_ST_TYPE(s->st_info) != STT_NOTYPE || !name[0] || name[0] == '.' || name[0] == '$')
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(markers); i++)
		if (!strcmp(name, markers[i]))
			return false;
	scn = shndx != SHN_UNDEF && shndx < SHN_LORESERVE ? elf_getscn(e, shndx) : NULL;
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) &&
	       s->st_value >= sh.sh_addr && s->st_value - sh.sh_addr < sh.sh_size;
}

int elf_add_symbol(Elf *e, const GElf_Sym *s, GElf_Word shndx, uint64_t addr, const char *name,
		   struct symtab *t)
{
	int type = GELF_ST_TYPE(s->st_info);

	if (!name || !*name || shndx == SHN_UNDEF)
		return 0;
	if (type == STT_FUNC || type == STT_GNU_IFUNC) {
		symtab_addn(t, addr, elf_symbol_size(e, s, shndx), name, elf_symbol_name_len(name),
			    elf_symbol_rank(s, name));
		return 1;
	}
	if (elf_symbol_is_label(e, s, shndx, name)) {
		symtab_add_label(t, addr, elf_symbol_size(e, s, shndx), name,
				 elf_symbol_name_len(name));
		return 1;
	}
	return 0;
}

/* Whether elf_add_symbol would add s (a defined function, or a label in code). */
static bool symbol_counts(Elf *e, const GElf_Sym *s, GElf_Word shndx, const char *name)
{
	int type = GELF_ST_TYPE(s->st_info);

	if (!name || !*name || shndx == SHN_UNDEF)
		return false;
	return type == STT_FUNC || type == STT_GNU_IFUNC || elf_symbol_is_label(e, s, shndx, name);
}

/* Adds the symbols of table scn to t: the count; with t NULL, 1 at the first it would add. */
static int add_table(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, struct symtab *t)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n;
	int added = 0;

	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;

		if (!gelf_getsym(data, (int)i, &s))
			break;
		if (s.st_value == 0)
			continue;
		if (!t) {
			if (symbol_counts(e, &s, s.st_shndx, elf_strptr(e, sh->sh_link, s.st_name)))
				return 1;
			continue;
		}
		added += elf_add_symbol(e, &s, s.st_shndx, s.st_value,
					elf_strptr(e, sh->sh_link, s.st_name), t);
	}
	return added;
}

int elf_read_symbols(Elf *e, struct symtab *t)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh, symtab_sh, dynsym_sh;
	int which = ELF_SYMS_NONE;

	if (elf_kind(e) != ELF_K_ELF)
		return -ENOEXEC;
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !symtab) {
			symtab = scn;
			symtab_sh = sh;
		} else if (sh.sh_type == SHT_DYNSYM && !dynsym) {
			dynsym = scn;
			dynsym_sh = sh;
		}
	}
	if (symtab && add_table(e, symtab, &symtab_sh, t) > 0)
		which = ELF_SYMS_SYMTAB;
	else if (dynsym && add_table(e, dynsym, &dynsym_sh, t) > 0)
		which = ELF_SYMS_DYNSYM;
	if (t)
		symtab_finish(t);
	return which;
}

Elf_Scn *elf_section(Elf *e, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (gelf_getshdr(scn, sh) && sh->sh_type != SHT_NOBITS &&
		    (n = elf_strptr(e, shstrndx, sh->sh_name)) && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

int elf_go_table(Elf *e, struct gopcln *g)
{
	GElf_Shdr sh, text;
	Elf_Scn *scn = elf_section(e, ".gopclntab", &sh);
	Elf_Data *d;

	if (!scn || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
		return -1;
	return gopcln_init(g, d->d_buf, d->d_size,
			   elf_section(e, ".text", &text) ? text.sh_addr : 0);
}

int elf_read_go_symbols(Elf *e, struct symtab *t)
{
	GElf_Sym fn = {.st_info = GELF_ST_INFO(STB_GLOBAL, STT_FUNC), .st_size = 1};
	struct gopcln g;

	if (elf_go_table(e, &g) < 0)
		return 0;
	return (int)gopcln_add_symbols(&g, t, elf_symbol_rank(&fn, "go"));
}

/* A GOT slot and the function its dynamic relocation binds it to. */
struct got_slot {
	uint64_t addr;
	const char *name;
};

struct plt_relocs {
	struct got_slot *slots; /* sorted by addr */
	size_t n, cap;
	const char **jmprel; /* .rela.plt's names in order, for "push INDEX" */
	size_t njmprel, jmprel_cap;
};

/* The name of the function at addr in Elf symbol table scn, or NULL. */
static const char *function_at(Elf *e, Elf_Scn *scn, uint64_t addr)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Shdr sh;
	const char *best = NULL;
	uint8_t best_rank = 0;

	if (!data || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return NULL;
	for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym s;
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &s))
			break;
		type = GELF_ST_TYPE(s.st_info);
		if (s.st_value != addr || (type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    s.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(e, sh.sh_link, s.st_name);
		if (name && *name && (!best || elf_symbol_rank(&s, name) > best_rank)) {
			best = name;
			best_rank = elf_symbol_rank(&s, name);
		}
	}
	return best;
}

/*
 * The function a relocation binds its GOT slot to: its symbol, or for an
 * R_X86_64_IRELATIVE (an ifunc called inside its own library, or in a
 * static program) the function at the resolver's address, which is the
 * ifunc's own symbol.
 */
static const char *reloc_function(Elf *e, Elf_Scn *symscn, const GElf_Rela *r)
{
	Elf_Data *data = elf_getdata(symscn, NULL);
	GElf_Shdr sh;
	GElf_Sym s;
	Elf_Scn *scn = NULL;
	const char *name;

	switch (GELF_R_TYPE(r->r_info)) {
	case R_X86_64_JUMP_SLOT:
	case R_X86_64_GLOB_DAT:
		if (!data || !gelf_getshdr(symscn, &sh) ||
		    !gelf_getsym(data, (int)GELF_R_SYM(r->r_info), &s))
			return NULL;
		if (GELF_ST_TYPE(s.st_info) != STT_FUNC &&
		    GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC &&
		    GELF_ST_TYPE(s.st_info) != STT_NOTYPE)
			return NULL; /* a GOT slot of data */
		name = elf_strptr(e, sh.sh_link, s.st_name);
		return name && *name ? name : NULL;
	case R_X86_64_IRELATIVE:
		name = function_at(e, symscn, (uint64_t)r->r_addend);
		while (!name && (scn = elf_nextscn(e, scn))) {
			if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
				name = function_at(e, scn, (uint64_t)r->r_addend);
		}
		return name;
	default:
		return NULL;
	}
}

static int cmp_slot(const void *a, const void *b)
{
	const struct got_slot *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The GOT slots of every SHT_RELA section tied to a symbol table. */
static void read_relocs(Elf *e, size_t shstrndx, struct plt_relocs *pr)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		Elf_Scn *symscn;
		const char *sname;
		bool jmprel;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)) || !(symscn = elf_getscn(e, sh.sh_link)))
			continue;
		sname = elf_strptr(e, shstrndx, sh.sh_name);
		jmprel = sname && !strcmp(sname, ".rela.plt");
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			const char *name;

			if (!gelf_getrela(data, (int)i, &r))
				break;
			name = reloc_function(e, symscn, &r);
			if (jmprel) {
				xgrow(&pr->jmprel, &pr->jmprel_cap, pr->njmprel + 1,
				      sizeof(*pr->jmprel));
				pr->jmprel[pr->njmprel++] = name;
			}
			if (!name)
				continue;
			xgrow(&pr->slots, &pr->cap, pr->n + 1, sizeof(*pr->slots));
			pr->slots[pr->n].addr = r.r_offset;
			pr->slots[pr->n].name = name;
			pr->n++;
		}
	}
	if (pr->n)
		qsort(pr->slots, pr->n, sizeof(*pr->slots), cmp_slot);
}

static const char *slot_function(const struct plt_relocs *pr, uint64_t got)
{
	size_t lo = 0, hi = pr->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pr->slots[mid].addr == got)
			return pr->slots[mid].name;
		if (pr->slots[mid].addr < got)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * The function an x86-64 PLT entry of n bytes at addr leads to. The
 * entries perfmini knows, after an optional endbr64 (f3 0f 1e fa) and
 * bnd prefix (f2):
 *   ff 25 DISP32    jmp *DISP32(%rip): through the GOT slot at the end
 *                   of the instruction plus DISP32 (.plt without IBT,
 *                   .plt.sec, .plt.got);
 *   68 IMM32        push $IMM32: the lazy path of an IBT .plt entry,
 *                   relocation IMM32 of .rela.plt.
 */
static const char *plt_entry_function(const struct plt_relocs *pr, const unsigned char *p, size_t n,
				      uint64_t addr)
{
	size_t i = 0;

	if (n >= 4 && p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
		i = 4;
	if (i < n && p[i] == 0xf2)
		i++;
	if (i + 6 <= n && p[i] == 0xff && p[i + 1] == 0x25) {
		int32_t disp = (int32_t)load_u32(p + i + 2);

		return slot_function(pr, addr + i + 6 + (uint64_t)(int64_t)disp);
	}
	if (i + 5 <= n && p[i] == 0x68) {
		uint32_t idx = load_u32(p + i + 1);

		return idx < pr->njmprel ? pr->jmprel[idx] : NULL;
	}
	return NULL;
}

int elf_read_plt(Elf *e, struct symtab *t)
{
	struct plt_relocs pr = {0};
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	int added = 0;

	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh))
		return -ENOEXEC;
	if (eh.e_machine != EM_X86_64 || gelf_getclass(e) != ELFCLASS64 ||
	    elf_getshdrstrndx(e, &shstrndx) != 0)
		return 0;
	read_relocs(e, shstrndx, &pr);
	while (pr.n && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		const char *sname;
		uint64_t entsize, off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) ||
		    !(sname = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (strcmp(sname, ".plt") && strcmp(sname, ".plt.sec") && strcmp(sname, ".plt.got"))
			continue;
		if (!(data = elf_getdata(scn, NULL)) || !data->d_buf || data->d_size < sh.sh_size)
			continue;
		entsize = sh.sh_entsize == 8 || sh.sh_entsize == 16 ? sh.sh_entsize : 16;
		/*
		 * .plt begins with the entry that calls the dynamic loader's lazy
		 * binder (PLT0), 16 bytes: named after the section, as objdump
		 * labels it.
		 */
		off = 0;
		if (!strcmp(sname, ".plt") && sh.sh_size >= 16) {
			symtab_add(t, sh.sh_addr, 16, ".plt", ELF_PLT_RANK);
			added++;
			off = 16;
		}
		for (; off + entsize <= sh.sh_size; off += entsize) {
			const char *fn =
				plt_entry_function(&pr, (const unsigned char *)data->d_buf + off,
						   entsize, sh.sh_addr + off);
			char *name;

			if (!fn)
				continue;
			name = xasprintf("%.*s@plt", (int)elf_symbol_name_len(fn), fn);
			symtab_add(t, sh.sh_addr + off, entsize, name, ELF_PLT_RANK);
			free(name);
			added++;
		}
	}
	free(pr.slots);
	free(pr.jmprel);
	return added;
}
