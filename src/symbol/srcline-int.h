/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * srcline-int.h - what srcline.c takes from srcline-names.c: the names
 * and places of a scope's DIE. Strings returned are the symfile's, kept
 * until it is unloaded.
 */
#ifndef PERFMINI_SRCLINE_INT_H
#define PERFMINI_SRCLINE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <elfutils/libdw.h>

struct symfile;
struct dwline_table;
struct unit_scopes;
struct scope;

/*
 * The name of a function DIE: its linkage name demangled, as
 * eu-addr2line -C shows it, else the name built from the DWARF tree (C++)
 * or DW_AT_name; NULL when it has none.
 */
const char *srcline_die_name(struct symfile *f, Dwarf_Die *die);
/* File of a line table made whole: relative to dir (the unit's compilation directory). */
const char *srcline_full_path(struct symfile *f, const char *dir, const char *file);
/*
 * The call site of inlined scope inl of unit cu: the file (from line
 * table t, else libdw's), line and column the level out runs at; whether
 * it has a line.
 */
bool srcline_call_site(const struct dwline_table *t, Dwarf_Die *cu, Dwarf_Die *inl,
		       const char **file, uint32_t *line, uint32_t *col);
/*
 * The name of the out-of-line function of scope sc of u, holding ELF
 * address vaddr: the symbol's that starts inside the function's ranges,
 * else dwarf_name (srcline_die_name's).
 */
const char *srcline_function_name(struct symfile *f, const struct unit_scopes *u,
				  const struct scope *sc, const char *dwarf_name, uint64_t vaddr,
				  Dwarf_Addr cubias);

#endif
