/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * addr.h - every conversion between perfmini's three address spaces.
 *
 *   runtime address  A    what samples carry, inside a mapping
 *                         [start, end) that maps the file from pgoff;
 *   file offset      off  = A - start + pgoff;
 *   ELF address      vaddr: the PT_LOAD whose *file* range holds off
 *                         (p_offset <= off < p_offset + p_filesz) gives
 *                         vaddr = off - p_offset + p_vaddr.
 *
 * The load bias of a module, base = A - vaddr, is the same for all its
 * addresses; it is 0 for non-PIE executables. No formula here assumes
 * p_vaddr == p_offset, a single executable segment, or that p_align is the
 * page size. Nothing outside this file does such arithmetic.
 */
#ifndef PERFMINI_ADDR_H
#define PERFMINI_ADDR_H

#include <stddef.h>
#include <stdint.h>

/* A PT_LOAD program header, reduced to what the formulas use. */
struct load_seg {
	uint64_t offset; /* p_offset */
	uint64_t vaddr;	 /* p_vaddr */
	uint64_t filesz; /* p_filesz */
	uint64_t memsz;	 /* p_memsz */
	uint32_t flags;	 /* p_flags (PF_X, PF_W, PF_R) */
};

/* Runtime address to file offset within a mapping that starts at start. */
static inline uint64_t addr_to_file_offset(uint64_t a, uint64_t start, uint64_t pgoff)
{
	return a - start + pgoff;
}

/*
 * File offset to ELF address through the segment whose file range holds
 * off. Returns 0, or -ENOENT when no segment holds it (the offset is in
 * headers or padding that no PT_LOAD covers).
 */
int addr_file_offset_to_vaddr(const struct load_seg *segs, size_t n, uint64_t off, uint64_t *vaddr);

/*
 * ELF address to file offset, the inverse: the segment whose memory
 * range holds vaddr within its file part. Returns 0 or -ENOENT (.bss and
 * addresses outside every segment).
 */
int addr_vaddr_to_file_offset(const struct load_seg *segs, size_t n, uint64_t vaddr, uint64_t *off);

/*
 * Load bias of a module from one of its mappings [start, end) of file
 * offset pgoff and protection prot (PROT_*): start - pgoff + p_offset -
 * p_vaddr of a segment whose file range meets the mapping's. Segments can
 * share a file page (lld puts read-only data and code in one), so a
 * segment whose PF_X agrees with PROT_EXEC is preferred. For executable
 * mappings the answer is exact; two non-executable segments on one page
 * cannot be told apart from one mapping. Returns 0 or -ENOENT.
 */
int addr_load_bias(const struct load_seg *segs, size_t n, uint64_t start, uint64_t end,
		   uint64_t pgoff, uint32_t prot, uint64_t *bias);

/*
 * Code moved to anonymous memory: a program that copies its text (to huge
 * pages) and maps the copy over the original leaves an anonymous
 * executable mapping [lo, hi) where its executable segment was. Given
 * another mapping of the same file, [start, end) from pgoff with prot
 * (which gives the load bias), *off gets the file offset that lo stands
 * for when [lo, hi) lies within the pages of an executable segment.
 * Returns 0 or -ENOENT.
 */
int addr_moved_text(const struct load_seg *segs, size_t n, uint64_t start, uint64_t end,
		    uint64_t pgoff, uint32_t prot, uint64_t lo, uint64_t hi, uint64_t *off);

#endif
