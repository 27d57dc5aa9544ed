/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * load-vdso.c - the vdso's segments and symbols, from a copy of the
 * image in perfmini's own memory (the kernel maps the same one into
 * every process), kept in the symfile for as long as it lives.
 */
#include "config.h"

#include <errno.h>

#include <libelf.h>

#include "symbol/symfile-int.h"

int symfile_load_vdso(struct symfile *f)
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
