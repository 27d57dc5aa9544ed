/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symfile.c - reading modules' symbols and DWARF; see symfile.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbol/symfile-int.h"
#include "elf/elfz.h"
#include "symbol/symfile.h"
#include "util/pages.h"
#include "util/alloc.h"
#include "util/clock.h"

void symbolizer_init(struct symbolizer *z, struct module_set *mods, bool no_lines)
{
	memset(z, 0, sizeof(*z));
	z->mods = mods;
	z->no_lines = no_lines;
	z->dwfl_cb.find_elf = dwfl_build_id_find_elf;
	z->dwfl_cb.find_debuginfo = symfile_find_debuginfo;
	z->dwfl_cb.debuginfo_path = &z->debuginfo_path;
	z->pagemap = -1;
	z->lines_budget = SYMBOLIZER_LINES_BUDGET;
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

void symbolizer_release(struct symbolizer *z)
{
	if (z->kernel_reader) {
		struct ksyms k;

		ksyms_read_wait(z->kernel_reader, &k, NULL);
		ksyms_release(&k);
	}
	for (size_t i = 0; i < z->nfiles; i++)
		symfile_free(z->files[i]);
	free(z->files);
	free(z->debuginfo_path);
	if (z->pagemap >= 0)
		close(z->pagemap);
	memset(z, 0, sizeof(*z));
}

/* Loading. */

/* The kernel's symbols: those read meanwhile if symbolizer_read_kernel started a reading. */
static int load_kernel(struct symbolizer *z, struct symfile *f)
{
	int n;

	if (z->kernel_reader) {
		n = ksyms_read_wait(z->kernel_reader, &f->ksyms, &z->kernel_read_cpu_ns);
		z->kernel_reader = NULL;
	} else {
		n = ksyms_read_kernel(&f->ksyms);
	}
	if (n <= 0 || f->ksyms.n == 0) {
		f->reason = REASON_KERNEL_HIDDEN;
		return -EPERM;
	}
	/* The names' pages looked up are given back like a module file's. */
	symfile_remember_region(f, f->ksyms.map, f->ksyms.names_len);
	return 0;
}

/* Whether err means that perfmini has no descriptor left. */
static bool out_of_descriptors(int err)
{
	return err == EMFILE || err == ENFILE;
}

static int load_perfmap(struct symfile *f)
{
	FILE *map;
	int fd;

	if (f->mod->fd < 0) {
		/* The runtime never wrote one we could read, or we could not open it. */
		f->reason =
			out_of_descriptors(f->mod->pin_error) ? REASON_NO_DESCRIPTORS : REASON_ANON;
		return -ENOENT;
	}
	fd = dup(f->mod->fd);
	if (fd < 0 || !(map = fdopen(fd, "r"))) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		f->reason = out_of_descriptors(err) ? REASON_NO_DESCRIPTORS : REASON_FILE_GONE;
		return -EIO;
	}
	rewind(map);
	perfmap_parse(map, &f->syms, PERFMAP_MAX_BYTES);
	fclose(map);
	if (!f->syms.n) {
		f->reason = REASON_NO_SYMBOLS;
		return -ENOENT;
	}
	return 0;
}

static int load_vdso(struct symfile *f)
{
	Elf *e;
	int n;

	if (module_vdso_copy(&f->image, &f->nimage) < 0) {
		f->reason = REASON_VDSO;
		return -ENOENT;
	}
	e = elf_memory((char *)f->image, f->nimage);
	n = e ? elf_read_segments(e, &f->segs) : -ENOEXEC;
	if (n > 0) {
		f->nsegs = (size_t)n;
		f->symsrc = elf_read_symbols(e, &f->syms);
	}
	if (e)
		elf_end(e);
	if (n <= 0 || f->symsrc <= 0) {
		f->reason = REASON_VDSO;
		return -ENOENT;
	}
	return 0;
}

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

/*
 * Symbols through libdwfl: it picks the best table among the file's own
 * .symtab, a separate debug file and MiniDebugInfo, plus .dynsym. Adds
 * them to f->syms in the file's ELF address space, with the PLT's
 * entries; returns the count, or -EMFILE or -ENFILE when there was no
 * descriptor to read them with.
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

/* A file module: its ELF identity and layout, then its symbols. */
static int load_file(struct symfile *f)
{
	struct symtab own;
	GElf_Ehdr eh;
	Elf *e;
	int n, ret = 0;

	if (f->mod->fd < 0) {
		f->reason = out_of_descriptors(f->mod->pin_error) ? REASON_NO_DESCRIPTORS
								  : REASON_FILE_GONE;
		return -ENOENT;
	}
	e = elf_begin(f->mod->fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || (n = elf_read_segments(e, &f->segs)) <= 0) {
		f->reason = REASON_NOT_ELF;
		ret = -ENOEXEC;
		goto out;
	}
	f->nsegs = (size_t)n;
	f->build_id_len = elf_read_build_id(e, f->build_id);
	if (gelf_getehdr(e, &eh))
		f->entry = eh.e_entry;
	symtab_init(&own);
	f->symsrc = elf_read_symbols(e, &own);
	symtab_release(&own);
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
out:
	if (e)
		elf_end(e);
	return ret;
}

/* Reads what f's module is into f (stored in z before: see symfile_changed). */
static void symfile_load(struct symbolizer *z, struct symfile *f)
{
	struct module *m = f->mod;

	f->fresh = true;
	f->zfd = -1;
	f->dwfl_cb = &z->dwfl_cb;
	f->no_lines = z->no_lines;
	symtab_init(&f->syms);
	ksyms_init(&f->ksyms);
	hmap_init(&f->demangled);
	hmap_init(&f->paths);
	elf_version(EV_CURRENT);
	switch (m->kind) {
	case MODULE_KERNEL:
		load_kernel(z, f);
		break;
	case MODULE_ANON:
		f->reason = REASON_ANON;
		break;
	case MODULE_VDSO:
		load_vdso(f);
		break;
	case MODULE_PERFMAP:
		load_perfmap(f);
		break;
	case MODULE_FILE:
		load_file(f);
		break;
	}
}

struct symfile *symfile_get(struct symbolizer *z, struct module *m)
{
	if (m->id >= z->nfiles) {
		size_t n = z->nfiles ? z->nfiles : 64;

		while (n <= m->id)
			n *= 2;
		z->files = xrealloc(z->files, n * sizeof(*z->files));
		memset(z->files + z->nfiles, 0, (n - z->nfiles) * sizeof(*z->files));
		z->nfiles = n;
	}
	if (!z->files[m->id] || z->files[m->id]->unloaded) {
		struct symfile *old = z->files[m->id], *f = xcalloc(1, sizeof(*f));

		f->mod = m;
		z->files[m->id] = f;
		symfile_load(z, f);
		/* Read again after it went idle: what its lines lacked is known already. */
		if (old && !f->lines_reason)
			f->lines_reason = old->lines_reason;
		symfile_free(old);
	}
	z->files[m->id]->used_ns = now_coarse_ns();
	return z->files[m->id];
}

struct symfile *symfile_find(struct symbolizer *z, const struct module *m)
{
	return m->id < z->nfiles ? z->files[m->id] : NULL;
}

void symfile_changed(struct symbolizer *z, struct module *m)
{
	/* symfile_get stores a symfile before reading anything into it. */
	if (m->id < z->nfiles && z->files[m->id]) {
		z->files[m->id]->changed = true;
		z->files[m->id]->reason = REASON_CHANGED;
	}
}

enum module_reason symfile_reason(const struct symfile *f)
{
	return f->reason;
}

size_t symfile_nsyms(const struct symfile *f)
{
	return f->syms.n;
}
