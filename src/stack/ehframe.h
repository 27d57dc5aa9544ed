/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ehframe.h - the rows of an x86-64 file's .eh_frame, read straight from
 * the file: .eh_frame_hdr's sorted table finds the FDE of an address, and
 * that FDE and its CIE are run up to it. A small .eh_frame is read whole
 * when opened; of a large one (a compiler's, a browser's: megabytes),
 * each lookup reads the FDE and CIE it needs (pread), and nothing is kept
 * but the table and the last CIEs met, where libdw copies the whole
 * section and keeps every FDE it parsed. Nothing is allocated per lookup.
 *
 * What it leaves to libdw (cfi.h) is said by -ENOTSUP: rules given by
 * DWARF expressions (PLT entries, some hand-written code), 64-bit
 * lengths, DW_CFA_set_loc, encodings no linker writes. A file without a
 * usable .eh_frame_hdr is not opened (-ENOENT): libdw reads it.
 */
#ifndef PERFMINI_EHFRAME_H
#define PERFMINI_EHFRAME_H

#include <stddef.h>
#include <stdint.h>

#include <gelf.h>

#include "stack/cfi.h"

/* The CIEs kept parsed, the last met. */
#define EH_CIES 4

struct eh_cie {
	uint64_t off;	     /* in .eh_frame; UINT64_MAX when the slot is empty */
	uint64_t code_align; /* caf */
	int64_t data_align;  /* daf */
	uint8_t ra;	     /* the return address's column */
	uint8_t fde_enc;     /* the FDEs' address encoding ('R'), DW_EH_PE_* */
	uint8_t signal;	     /* 'S': a signal frame */
	uint8_t zaug;	     /* 'z': FDEs have augmentation data */
	uint8_t ninsns;
	uint8_t insns[64]; /* the initial instructions */
};

struct eh_frame {
	int fd;			  /* read with pread, -1 when bytes are given */
	unsigned char *whole;	  /* .eh_frame read whole (a small one), or NULL */
	const unsigned char *mem; /* the file's bytes (the vdso's copy), or NULL */
	size_t memlen;		  /* their count */
	uint64_t eh_addr, eh_off; /* .eh_frame's ELF address and file offset */
	uint64_t eh_size;	  /* and size */
	uint64_t hdr_addr;	  /* .eh_frame_hdr's ELF address: the table's base */
	int32_t (*table)[2];	  /* (start, FDE address), both from hdr_addr, by start */
	size_t n;		  /* entries in table */
	struct eh_cie cies[EH_CIES];
	unsigned next_cie; /* the slot the next CIE read takes */
};

/*
 * Opens the .eh_frame of ELF file e, whose bytes are read from fd (with
 * pread) or, fd -1, are mem[0, memlen). Returns 0, -ENOENT when it has
 * no .eh_frame with a table this reader reads (libdw's then), or -EIO.
 */
int eh_frame_open(struct eh_frame *t, Elf *e, int fd, const unsigned char *mem, size_t memlen);
void eh_frame_close(struct eh_frame *t);

/*
 * The row of ELF address vaddr and the addresses [*lo, *hi) it holds for,
 * as cfi_row_find_span gives them (a signal frame's row with only signal
 * set). Returns 0, -ENOENT when no FDE covers vaddr, -ENOTSUP for what
 * it leaves to libdw, -EIO when the bytes cannot be read or make no
 * sense.
 */
int eh_frame_row(struct eh_frame *t, uint64_t vaddr, struct cfi_row *row, uint64_t *lo,
		 uint64_t *hi);

#endif
