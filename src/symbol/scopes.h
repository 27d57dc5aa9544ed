/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scopes.h - a compilation unit's function scopes, indexed for lookup
 * by address: what srcline.c walks to build an inline chain.
 */
#ifndef PERFMINI_SCOPES_H
#define PERFMINI_SCOPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

/*
 * The function scopes of one compilation unit, indexed once: every
 * subprogram and inlined_subroutine DIE with its address ranges and its
 * nearest indexed ancestor. libdw's dwarf_getscopes walks the unit's DIE
 * tree at every call; with this index a lookup is a binary search and a
 * walk up a few parents.
 *
 * Why that walk is enough: DIE ranges nest (a child's ranges lie within
 * its parent's, siblings' ranges do not overlap). Take the range that
 * starts last at or below the address (the deepest of equals); the
 * innermost scope holding the address is its DIE or an ancestor of it.
 * Among DIEs with equal ranges the first in DIE order wins, as in libdw.
 */
struct scope {
	/*
	 * Its DIE: where it lies in libdw's data. The unit (cu) is the
	 * index's, and libdw reads the abbreviation again when asked
	 * (scope_die): 8 bytes here, where a Dwarf_Die takes 32.
	 */
	void *die;
	int32_t parent;	 /* index into scopes, -1 at the top */
	uint32_t range0; /* its ranges: range0 up to the next scope's range0 */
};

struct scope_range {
	uint64_t lo, hi; /* [lo, hi) in the unit's address space */
	uint32_t scope;
	uint32_t depth;
};

struct unit_scopes {
	Dwarf_Die cu;	      /* the unit's DIE: its cu is every scope's */
	struct scope *scopes; /* n of them, then a last one holding nranges in range0 */
	size_t n;
	struct scope_range *ranges; /* in scope order */
	size_t nranges;
	uint32_t *sorted; /* indexes into ranges, sorted for lookup */
	bool too_deep;	  /* DIEs nested beyond MAX_NEST: no scopes kept */
};

/* Indexes the function scopes of the unit cu (its DIE). */
struct unit_scopes *unit_scopes_new(Dwarf_Die *cu);
void unit_scopes_free(struct unit_scopes *u);
/* Bytes an index holds. */
size_t unit_scopes_size(const struct unit_scopes *u);
/* Scope sc's DIE, made whole again. */
Dwarf_Die scope_die(const struct unit_scopes *u, const struct scope *sc);
/* Whether one of scope sc's ranges holds pc. */
bool scope_holds(const struct unit_scopes *u, const struct scope *sc, uint64_t pc);
/* The innermost function scope holding pc, or -1. */
int32_t unit_scopes_innermost(const struct unit_scopes *u, uint64_t pc);

#endif
