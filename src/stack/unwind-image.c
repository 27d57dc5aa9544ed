/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind-image.c - the unwind tables of a module's file (or the vdso's
 * copy): .eh_frame, and where it has no row, a Go binary's .gopclntab,
 * else .debug_frame; see unwind.h.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gelf.h>

#include "elf/elfread.h"
#include "stack/unwind.h"
#include "util/array.h"

static bool has_section(Elf *e, const char *name)
{
	GElf_Shdr sh;

	return elf_section(e, name, &sh) != NULL;
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
	img->has_table = eh_frame_open(&img->table, img->elf, img->copy ? -1 : img->fd, img->copy,
				       img->nbytes) == 0;
	img->has_debug_frame = has_section(img->elf, ".debug_frame");
	img->go = img->has_pcln = has_section(img->elf, ".gopclntab");
	return 0;
}

/* libdw's .eh_frame, read the first time it is needed. */
static Dwarf_CFI *eh_cfi(struct unwind_image *img)
{
	if (!img->eh_read) {
		img->eh_read = true;
		img->eh = dwarf_getcfi_elf(img->elf);
	}
	return img->eh;
}

/*
 * A Go binary's .gopclntab, read the first time a row is wanted from it
 * (through libelf, which keeps the bytes until the image is closed).
 */
static const struct gopcln *go_table(struct unwind_image *img)
{
	if (img->has_pcln) {
		img->has_pcln = false; /* tried */
		if (elf_go_table(img->elf, &img->pcln) < 0)
			memset(&img->pcln, 0, sizeof(img->pcln));
	}
	return img->pcln.data ? &img->pcln : NULL;
}

/*
 * sp_moved for the row of a Go function that moves its stack pointer, at
 * vaddr of a stretch [*lo, *hi) where it has pushed sp bytes; but not in
 * the first instructions of the stretch, where the prologue may not have
 * pointed rbp at the frame yet (a MOVQ of rbp into the frame and a LEAQ,
 * at most 16 bytes), nor in its last, where the epilogue may have given
 * it back (an ADDQ to rsp, at most 7): the stretch is cut to what holds.
 */
static void body_only(struct cfi_row *row, uint64_t vaddr, int32_t sp, uint64_t *lo, uint64_t *hi)
{
	uint64_t pro = sp - 8 < 128 ? 10 : 16, epi = sp < 128 ? 4 : 7;

	if (vaddr < *lo + pro) {
		*hi = *hi < *lo + pro ? *hi : *lo + pro;
	} else if (vaddr + epi >= *hi) {
		*lo = *hi - epi > *lo ? *hi - epi : *lo;
	} else {
		*lo += pro;
		*hi -= epi;
		row->sp_moved = true;
	}
}

/*
 * Whether Go's function name moves to the thread's system stack, calls a
 * function there for its caller, who waits, and keeps its caller's rbp
 * (cfi.h, bp_caller). Not runtime.mcall: the goroutine that called it
 * is parked, and what runs on that stack (the scheduler) is not its work;
 * its stack may be another's by then.
 */
static bool calls_on_system_stack(const char *name)
{
	static const char *const names[] = {"runtime.systemstack", "runtime.asmcgocall"};

	for (size_t i = 0; name && i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/*
 * The row of a Go function at vaddr from the bytes it has pushed there:
 * the CFA that far above the stack pointer and the return address; rbp
 * where Go keeps it (cfi_bp_rule); the registers that survive a call
 * kept; sp_moved for a function Go marks as moving the stack pointer
 * (cfi.h). -ENOENT when the table has none.
 */
static int go_row(const struct gopcln *g, uint64_t vaddr, struct cfi_row *row, uint64_t *lo,
		  uint64_t *hi)
{
	uint64_t flo, fhi;
	long fn = gopcln_func(g, vaddr, &flo, &fhi);
	int32_t sp;
	int flags;

	if (fn < 0 || gopcln_sp(g, fn, vaddr, &sp, lo, hi) < 0 || sp < 0 || sp > (1 << 30))
		return -ENOENT;
	flags = gopcln_flags(g, fn);
	memset(row, 0, sizeof(*row));
	row->cfa = (struct cfi_rule){.kind = CFI_REG, .reg = CFI_RSP, .off = sp + 8};
	for (int i = 0; i < CFI_NKEPT; i++)
		row->rules[i].kind = CFI_SAME;
	row->rules[2] = (struct cfi_rule){.kind = CFI_VAL, .off = 0};
	row->rules[CFI_NKEPT - 1] = (struct cfi_rule){.kind = CFI_AT, .off = -8};
	row->bp_frame = sp > 0;
	if (flags < 0 || !(flags & GOPCLN_SPWRITE))
		return 0;
	/* No frame record of its own, whatever it pushed on the other stack. */
	if (calls_on_system_stack(gopcln_name(g, fn)))
		row->bp_caller = true, row->bp_frame = false;
	else if (sp > 0)
		body_only(row, vaddr, sp, lo, hi);
	return 0;
}

/*
 * Go's .debug_frame says nothing of rbp: where a function has a frame of
 * its own, its rbp is that of cfi_bp_rule, as in go_row's.
 */
static void go_bp_frame(struct cfi_row *row)
{
	row->bp_frame = !row->signal && row->cfa.kind == CFI_REG && row->cfa.reg == CFI_RSP &&
			row->cfa.off > 8 && row->rules[1].kind == CFI_SAME;
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
	if (img->has_table)
		eh_frame_close(&img->table);
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
	const struct gopcln *g;
	int ret = img->has_table ? eh_frame_row(&img->table, vaddr, row, lo, hi) : -ENOTSUP;

	/* What the table leaves to libdw, or a file without one. */
	if (ret != 0 && ret != -ENOENT)
		ret = cfi_row_find_span(eh_cfi(img), vaddr, &img->pool, row, lo, hi);

	/* Go's own code has no .eh_frame (the C code of a cgo binary has). */
	if (ret == -ENOENT && img->go && (g = go_table(img)))
		ret = go_row(g, vaddr, row, lo, hi);
	if (ret == -ENOENT && debug_frame(img)) {
		ret = cfi_row_find_span(img->debug, vaddr, &img->pool, row, lo, hi);
		if (ret == 0 && img->go)
			go_bp_frame(row);
	}
	return ret;
}

Dwarf_CFI *unwind_image_cfi(struct unwind_image *img)
{
	return eh_cfi(img) ? img->eh : debug_frame(img);
}

int unwind_image_row(struct unwind_image *img, uint64_t vaddr, struct cfi_row *row)
{
	uint64_t lo, hi;

	return unwind_image_row_span(img, vaddr, row, &lo, &hi);
}
