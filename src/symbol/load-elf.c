/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * load-elf.c - a module mapped from an ELF file: its identity (build-id,
 * entry point), its load segments, and its symbols and DWARF through
 * libdwfl, which finds separate debug files (debugfile.c) and
 * MiniDebugInfo; compressed debug sections are read from an expanded
 * copy (symfile_expand_fd). See symfile.h for symfile_dwarf and
 * symfile_dwfl_reload.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <gelf.h>

#include "symbol/symfile-int.h"
#include "util/alloc.h"
#include "util/io.h"

static bool has_section(Elf *e, const char *name)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(e, shstrndx, sh.sh_name)) &&
		    !strcmp(n, name))
			return true;
	}
	return false;
}

/*
 * Reports the module's file to a new Dwfl (f->dwfl, f->dwmod,
 * f->dwbias); the file's image with compressed sections expanded, unless lines
 * are not read. Returns 0 or -errno.
 */
static int dwfl_report(struct symfile *f)
{
	const char *path = f->mod->path, *base = strrchr(path, '/');
	GElf_Addr bias;
	void **userdata;
	int fd;

	fd = fcntl(f->mod->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (!f->no_lines)
		fd = symfile_expand_fd(fd, &f->zreason, true);
	f->dwfl = dwfl_begin(f->dwfl_cb);
	if (!f->dwfl) {
		close(fd);
		return -ENOMEM;
	}
	dwfl_report_begin(f->dwfl);
	f->dwmod = dwfl_report_elf(f->dwfl, base ? base + 1 : path, path, fd, 0, false);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (!f->dwmod)
		goto fail_dwfl;
	dwfl_module_info(f->dwmod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = f; /* for find_debuginfo */
	if (!dwfl_module_getelf(f->dwmod, &bias))
		goto fail_dwfl;
	f->dwbias = bias;
	return 0;
fail_dwfl:
	symfile_end_dwfl(f);
	return -ENOEXEC;
}

int symfile_dwfl_reload(struct symfile *f)
{
	if (f->zfd < 0 || f->zreloaded || !f->dwfl)
		return 0;
	f->zreloaded = true;
	symfile_end_dwfl(f);
	return dwfl_report(f);
}

/* Whether e (NULL: none) has a full symbol table, .symtab. */
static bool has_symtab(Elf *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while (e && (scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return true;
	return false;
}

/* The bytes of a symbol's name with its NUL, as C's run: what a table is given room for. */
#define SYMBOL_NAME_GUESS 32

/*
 * Symbols through libdwfl: it picks the best table among the file's own
 * .symtab, a separate debug file and MiniDebugInfo, plus .dynsym; and a
 * Go binary's .gopclntab where none of them is a .symtab. Adds them to
 * f->syms in the file's ELF address space, with the PLT's entries;
 * returns the count, or -EMFILE or -ENFILE when there was no descriptor
 * to read them with.
 */
static int dwfl_symbols(struct symfile *f)
{
	const char *debugfile = NULL;
	Elf *symtab_elf = NULL; /* the file the symbols came from */
	bool reloaded;
	GElf_Addr bias;
	Elf *elf;
	int n, plt, added = 0, ret;

	if ((ret = dwfl_report(f)) < 0)
		return out_of_descriptors(-ret) ? ret : 0;
	if (!(elf = dwfl_module_getelf(f->dwmod, &bias)))
		return 0;
	n = dwfl_module_getsymtab(f->dwmod);
	/* Every symbol, at a name's usual length: the most a table takes, read whole. */
	if (n > 1)
		symtab_reserve(&f->syms, (size_t)n, (size_t)n * SYMBOL_NAME_GUESS);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *symelf;
		const char *name;

		name = dwfl_module_getsym_info(f->dwmod, i, &sym, &addr, &shndx, &symelf, NULL);
		if (elf_add_symbol(symelf, &sym, shndx, addr - bias, name, &f->syms)) {
			symtab_elf = symelf;
			added++;
		}
	}
	/*
	 * A Go binary stripped of its symbols: its own table of functions;
	 * also one linked with cgo, whose .dynsym names a few C functions.
	 */
	if (!added || !has_symtab(symtab_elf))
		added += elf_read_go_symbols(elf, &f->syms);
	/* The PLT's code is in the file itself: its ELF addresses, no bias. */
	plt = elf_read_plt(elf, &f->syms);
	if (plt > 0)
		added += plt;
	dwfl_module_info(f->dwmod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	if (debugfile)
		f->debugfile = xstrdup(debugfile);
	symtab_finish(&f->syms);
	reloaded = f->zreloaded;
	symfile_dwfl_reload(f); /* the symbols came from a compressed debug file */
	if (f->dwmod)
		symfile_remember_map(f, dwfl_module_getelf(f->dwmod, &bias));
	/* Reloaded, the Dwfl that read the symbols is gone, and its mappings. */
	if (f->zreloaded == reloaded)
		symfile_remember_map(f, symtab_elf);
	return added;
}

Dwarf *symfile_dwarf(struct symfile *f, Dwarf_Addr *bias)
{
	Dwarf *dw;

	if (!f->dwmod)
		return NULL;
	dw = dwfl_module_getdwarf(f->dwmod, bias);
	if (f->zfd >= 0 && !f->zreloaded && symfile_dwfl_reload(f) == 0 && f->dwmod)
		dw = dwfl_module_getdwarf(f->dwmod, bias);
	if (dw && f->dwmod) {
		GElf_Addr b;

		symfile_remember_map(f, dwarf_getelf(dw));
		symfile_remember_map(f, dwfl_module_getelf(f->dwmod, &b));
	}
	return dw;
}

/*
 * What f's module is, from its file's headers: its segments, build-id and
 * entry point. The ELF read with cmd, for more, or NULL (f->reason set).
 */
static Elf *read_identity(struct symfile *f, Elf_Cmd cmd)
{
	GElf_Ehdr eh;
	Elf *e;
	int n;

	if (f->mod->fd < 0) {
		f->reason = out_of_descriptors(f->mod->pin_error) ? REASON_NO_DESCRIPTORS
								  : REASON_FILE_GONE;
		return NULL;
	}
	e = elf_begin(f->mod->fd, cmd, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || (n = elf_read_segments(e, &f->segs)) <= 0) {
		f->reason = REASON_NOT_ELF;
		if (e)
			elf_end(e);
		return NULL;
	}
	f->nsegs = (size_t)n;
	f->build_id_len = elf_read_build_id(e, f->build_id);
	if (gelf_getehdr(e, &eh))
		f->entry = eh.e_entry;
	return e;
}

void symfile_load_identity(struct symfile *f)
{
	/*
	 * The headers and a note read, not the file mapped: a storm of new
	 * programs each identified costs a mapping and its unmapping (whose
	 * TLB shootdown reaches every CPU the recorder's threads ran on).
	 */
	Elf *e = read_identity(f, ELF_C_READ);

	if (e)
		elf_end(e);
}

int symfile_load_elf(struct symfile *f)
{
	Elf *e;
	int n, ret = 0;

	if (!(e = read_identity(f, ELF_C_READ_MMAP)))
		return f->reason == REASON_NOT_ELF ? -ENOEXEC : -ENOENT;
	f->symsrc = elf_read_symbols(e, NULL);
	n = dwfl_symbols(f);
	if (n < 0) {
		f->reason = REASON_NO_DESCRIPTORS;
		ret = n;
	} else if (n == 0) {
		f->reason = REASON_NO_SYMBOLS;
		ret = -ENOENT;
	} else if (f->symsrc != ELF_SYMS_SYMTAB && !f->debugfile &&
		   !has_section(e, ".gnu_debugdata")) {
		/* Names, but only the exported ones: none else, or none we could open. */
		f->reason = f->debug_no_fd ? REASON_NO_DESCRIPTORS : REASON_STRIPPED;
	}
	elf_end(e);
	return ret;
}
