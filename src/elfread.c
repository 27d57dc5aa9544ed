/*
 * elfread.c - segments, build-id and symbols from ELF; see elfread.h.
 */
#include "config.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <stdlib.h>

#include "elfread.h"
#include "util.h"

int elf_read_segments(Elf *e, struct load_seg **segs)
{
	size_t phnum, n = 0;
	struct load_seg *out;

	*segs = NULL;
	if (elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &phnum) != 0)
		return -ENOEXEC;
	out = xcalloc(phnum ? phnum : 1, sizeof(*out));
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph))
			continue;
		if (ph.p_type != PT_LOAD)
			continue;
		out[n].offset = ph.p_offset;
		out[n].vaddr = ph.p_vaddr;
		out[n].filesz = ph.p_filesz;
		out[n].memsz = ph.p_memsz;
		out[n].flags = ph.p_flags;
		n++;
	}
	if (!n) {
		free(out);
		out = NULL;
	}
	*segs = out;
	return (int)n;
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

/* Aliases at one address: a function beats an ifunc; global beats weak beats local. */
size_t elf_symbol_name_len(const char *name)
{
	/* "memcpy@@GLIBC_2.14": the version is not part of the function's name. */
	return strcspn(name, "@");
}

uint8_t elf_symbol_rank(const GElf_Sym *s, const char *name)
{
	uint8_t r = 0;

	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL:
		r = 6;
		break;
	case STB_WEAK:
		r = 4;
		break;
	default:
		r = 2;
	}
	if (GELF_ST_TYPE(s->st_info) == STT_FUNC)
		r += 8;
	if (name[0] != '_')
		r += 1;
	return r;
}

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
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &s))
			break;
		type = GELF_ST_TYPE(s.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		if (s.st_shndx == SHN_UNDEF || s.st_value == 0)
			continue;
		name = elf_strptr(e, sh->sh_link, s.st_name);
		if (!name || !*name)
			continue;
		symtab_addn(t, s.st_value, s.st_size, name, elf_symbol_name_len(name),
			    elf_symbol_rank(&s, name));
		added++;
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
	symtab_finish(t);
	return which;
}
