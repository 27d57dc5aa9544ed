/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gopclntab.h - Go's table of functions (.gopclntab): for a code address,
 * its function's entry and end, its name, and how far the function has
 * moved the stack pointer there (its "pcsp" table). Go's runtime reads
 * the same table to walk its own stacks; it is in every Go binary, also
 * one stripped of its symbols and of its DWARF.
 *
 * The layouts of Go 1.18 and later (magic 0xfffffff0, 0xfffffff1) for
 * 64-bit x86 are read; an older table is refused (-ENOTSUP). Nothing is
 * trusted: every offset is checked against the section's bytes, which
 * the caller owns and keeps while the table is used.
 */
#ifndef PERFMINI_GOPCLNTAB_H
#define PERFMINI_GOPCLNTAB_H

#include <stddef.h>
#include <stdint.h>

#include "elf/symtab.h"

struct gopcln {
	const uint8_t *data; /* the section (not owned) */
	size_t len;
	uint64_t text;	/* the ELF address function entries count from */
	uint64_t nfunc; /* functions, in functab's order of entries */
	size_t names;	/* where the function names start in data */
	size_t pctab;	/* where the tables of values by address start */
	size_t functab; /* the functions' table: nfunc + 1 pairs of 32-bit offsets */
	size_t flag_at; /* where a _func's flags are, by the layout */
};

/*
 * Reads the header of a .gopclntab section of len bytes at data; text is
 * the ELF address of the code (.text's start), used when the header does
 * not say it (a position-independent binary's is relocated at run time).
 * Returns 0, -ENOTSUP for another layout or machine, -EINVAL for a table
 * that does not fit in its bytes.
 */
int gopcln_init(struct gopcln *g, const void *data, size_t len, uint64_t text);

/*
 * The function that holds ELF address pc: its index (for gopcln_name),
 * and its entry and end in *lo and *hi. Returns the index (>= 0), or
 * -ENOENT.
 */
long gopcln_func(const struct gopcln *g, uint64_t pc, uint64_t *lo, uint64_t *hi);

/*
 * How many bytes function fn has pushed on the stack at ELF address pc
 * (the return address not counted), in *sp, and the addresses [*lo, *hi)
 * where it has pushed that many. Returns 0, -ENOENT when its table does
 * not cover pc, -EINVAL for a table that does not fit.
 */
int gopcln_sp(const struct gopcln *g, long fn, uint64_t pc, int32_t *sp, uint64_t *lo,
	      uint64_t *hi);

/* The name of function fn (in the section's bytes), or NULL. */
const char *gopcln_name(const struct gopcln *g, long fn);

/*
 * Go's flags of function fn (its _func's funcFlag), or -EINVAL when they
 * do not fit. GOPCLN_SPWRITE: the function sets the stack pointer to
 * values its pcsp table does not describe (the runtime's vDSO calls
 * align it, or switch to the thread's system stack, and put it back).
 */
#define GOPCLN_SPWRITE 0x2
int gopcln_flags(const struct gopcln *g, long fn);

/*
 * Adds every function of g with a name to t, at its entry with its
 * extent, with rank rank (symtab.h); returns the count added. t is not
 * finished.
 */
size_t gopcln_add_symbols(const struct gopcln *g, struct symtab *t, uint8_t rank);

#endif
