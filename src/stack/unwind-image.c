/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind-image.c - the unwind tables of a module's file (or the vdso's
 * copy): .eh_frame, and .debug_frame where it has no row; see unwind.h.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gelf.h>

#include "elf/elfread.h"
#include "stack/unwind.h"

static bool has_section(Elf *e, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    (n = elf_strptr(e, shstrndx, sh.sh_name)) && !strcmp(n, name))
			return true;
	}
	return false;
}

int unwind_image_open(struct unwind_image *img, const struct module *m)
{
	struct stat st;
	int n;

	memset(img, 0, sizeof(*img));
	img->fd = -1;
	elf_version(EV_CURRENT);
	if (m->kind == MODULE_VDSO) {
		if (module_vdso_copy(&img->copy, &img->nbytes) < 0)
			return -ENOENT;
		img->elf = elf_memory((char *)img->copy, img->nbytes);
	} else if (m->kind == MODULE_FILE && m->fd >= 0) {
		if (fstat(m->fd, &st) < 0 || st.st_size <= 0)
			return -ENOENT;
		img->fd = m->fd;
		img->nbytes = (size_t)st.st_size;
		/* Read through pread, not mapped. */
		img->elf = elf_begin(m->fd, ELF_C_READ, NULL);
	} else {
		return -ENOENT;
	}
	if (!img->elf || (n = elf_read_segments(img->elf, &img->segs)) <= 0) {
		unwind_image_close(img);
		return -ENOEXEC;
	}
	img->nsegs = (size_t)n;
	img->eh = dwarf_getcfi_elf(img->elf);
	img->has_debug_frame = has_section(img->elf, ".debug_frame");
	return 0;
}

/*
 * .debug_frame, read the first time .eh_frame has no row (Go's binaries
 * have no other, some hand-written code neither): libdw reads every debug
 * section of a file it begins, which a file with .eh_frame for all its
 * code never needs.
 */
static Dwarf_CFI *debug_frame(struct unwind_image *img)
{
	if (img->has_debug_frame && !img->dwarf) {
		img->has_debug_frame = false; /* tried */
		img->dwarf = dwarf_begin_elf(img->elf, DWARF_C_READ, NULL);
		if (img->dwarf)
			img->debug = dwarf_getcfi(img->dwarf);
	}
	return img->debug;
}

void unwind_image_close(struct unwind_image *img)
{
	if (img->eh)
		dwarf_cfi_end(img->eh);
	if (img->dwarf)
		dwarf_end(img->dwarf);
	if (img->elf)
		elf_end(img->elf);
	free(img->copy);
	free(img->segs);
	cfi_pool_release(&img->pool);
	cfi_spans_release(&img->spans);
	memset(img, 0, sizeof(*img));
	img->fd = -1;
}

int unwind_image_row_span(struct unwind_image *img, uint64_t vaddr, struct cfi_row *row,
			  uint64_t *lo, uint64_t *hi)
{
	int ret = cfi_row_find_span(img->eh, vaddr, &img->pool, row, lo, hi);

	if (ret == -ENOENT && debug_frame(img))
		ret = cfi_row_find_span(img->debug, vaddr, &img->pool, row, lo, hi);
	return ret;
}

int unwind_image_row(struct unwind_image *img, uint64_t vaddr, struct cfi_row *row)
{
	uint64_t lo, hi;

	return unwind_image_row_span(img, vaddr, row, &lo, &hi);
}
