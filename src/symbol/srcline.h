/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * srcline.h - source lines and inline chains of code addresses, from DWARF.
 *
 * An address inside inlined code stands for a chain of functions: the
 * innermost inlined callee, the functions it was inlined into, and the
 * real (out-of-line) function that holds them all. Levels are reported
 * innermost first. The innermost level's line is the address's own line
 * (from the line table); every outer level's line is the call site of the
 * level inside it (DW_AT_call_file and DW_AT_call_line). The real
 * function is named by the symbol holding the address when that symbol
 * starts inside the function's ranges (as llvm-symbolizer and perf name
 * it), its clone suffix dropped; an inlined one, or a real one the
 * symbols disagree on, by its DWARF linkage name, else by the C++ full
 * name built from the DWARF tree (dwname.h), else by DW_AT_name. Names are
 * demangled.
 */
#ifndef PERFMINI_SRCLINE_H
#define PERFMINI_SRCLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "symbol/symfile.h"

#define SRCLINE_MAX_DEPTH 64

struct srcline {
	const char *func; /* owned by the module's cache; NULL when unknown */
	const char *file; /* owned by libdw; NULL when unknown */
	uint32_t line;
	uint32_t col;
	bool inlined;	    /* this level was inlined into the next */
	uint32_t decl_line; /* where its function is declared (DW_AT_decl_line); 0 if unknown */
	/*
	 * The outermost level: the function's entry as an ELF address (0 when
	 * unknown), and whether a symbol starting there whose name is func
	 * with a suffix names it better: Go's assembly functions, which DWARF
	 * names "runtime.futex" and the symbol table (as perf, binutils and
	 * llvm-symbolizer show them) "runtime.futex.abi0".
	 */
	uint64_t entry;
	bool symbol_suffix;
};

/*
 * The levels at ELF address vaddr of a loaded module, innermost first, at
 * most max of them. Returns the number filled; 0 when the module has no
 * DWARF for the address. pagemap (symbolizer_pagemap's, or -1): while the
 * first lookup indexes the module's units, which reads a little of each
 * unit and, through the kernel's fault-around, maps 64 KiB of the file
 * around each, the pages of its files are given back every few units, so
 * that a program with a large .debug_info is never resident whole.
 */
int srcline_lookup(struct symfile *f, uint64_t vaddr, struct srcline *out, int max, int pagemap);

/* The bytes of f's per-unit line rows and scope indexes, which srcline_trim may drop. */
size_t srcline_held(const struct symfile *f);

/*
 * With shed, drops the line rows and scope index of every unit of f not
 * looked up in since the last call (a later lookup reads them again; the
 * strings it gave out stay); either way each unit is then taken as not
 * looked up in.
 */
void srcline_trim(struct symfile *f, bool shed);

/* Frees the per-unit indexes srcline_lookup built for m. */
void srcline_release(struct symfile *f);

#endif
