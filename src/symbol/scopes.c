/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scopes.c - a unit's function scopes indexed once; see scopes.h.
 */
#include "config.h"

#include <stdlib.h>

#include <dwarf.h>

#include "symbol/scopes.h"
#include "util/alloc.h"
#include "util/array.h"

/*
 * How deep DIEs may nest below a unit before its scopes are given up:
 * far beyond what compilers write (a few dozen), low enough that a
 * crafted file cannot make the walk slow. libdw finds a DIE's next
 * sibling by skipping its subtree when the DIE has no DW_AT_sibling, so
 * each level of nesting costs a pass over what lies below it.
 */
#define MAX_NEST 256

/* What holds no code: types, variables, parameters; never descended into. */
static bool holds_no_code(int tag)
{
	switch (tag) {
	case DW_TAG_base_type:
	case DW_TAG_pointer_type:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_typedef:
	case DW_TAG_array_type:
	case DW_TAG_subrange_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_enumerator:
	case DW_TAG_member:
	case DW_TAG_variable:
	case DW_TAG_formal_parameter:
	case DW_TAG_unspecified_parameters:
	case DW_TAG_subroutine_type:
	case DW_TAG_label:
	case DW_TAG_GNU_call_site:
	case DW_TAG_call_site:
		return true;
	default:
		return false;
	}
}

/* While the index is built: its arrays' capacities. */
struct scopes_builder {
	struct unit_scopes *u;
	size_t scopes_cap, ranges_cap;
};

/* Adds the function scope die, child of scope parent, at depth; returns its index. */
static int32_t add_scope(struct scopes_builder *b, Dwarf_Die *die, int32_t parent, uint32_t depth)
{
	struct unit_scopes *u = b->u;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	xgrow(&u->scopes, &b->scopes_cap, u->n + 1, sizeof(*u->scopes));
	u->scopes[u->n] = (struct scope){die->addr, parent, (uint32_t)u->nranges};
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		xgrow(&u->ranges, &b->ranges_cap, u->nranges + 1, sizeof(*u->ranges));
		u->ranges[u->nranges++] = (struct scope_range){lo, hi, (uint32_t)u->n, depth};
	}
	return (int32_t)u->n++;
}

/* Scope sc's DIE, made whole again. */
Dwarf_Die scope_die(const struct unit_scopes *u, const struct scope *sc)
{
	Dwarf_Die d = u->cu;

	d.addr = sc->die;
	d.abbrev = NULL; /* libdw reads it at the first use */
	return d;
}

/*
 * Indexes the function scopes below cu, walking its DIE tree in DIE order
 * with a stack of its own (a thread's stack holds no deep recursion).
 * A unit nested deeper than MAX_NEST keeps no scopes at all: it is
 * malformed or made to hurt, and its frames get their lines and names
 * from the line table and the symbols instead.
 */
static void index_unit(struct scopes_builder *b, Dwarf_Die *cu)
{
	struct unit_scopes *u = b->u;
	struct level {
		Dwarf_Die die;	/* the DIE at this depth being visited */
		int32_t parent; /* the nearest scope above it */
	} stack[MAX_NEST];
	int top = 0;

	if (dwarf_child(cu, &stack[0].die) != 0)
		return;
	stack[0].parent = -1;
	while (top >= 0) {
		struct level *l = &stack[top];
		int tag = dwarf_tag(&l->die);
		int32_t me = l->parent;

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
			me = add_scope(b, &l->die, l->parent, (uint32_t)top);
		if (!holds_no_code(tag) && dwarf_haschildren(&l->die) > 0) {
			if (top + 1 == MAX_NEST) {
				u->n = u->nranges = 0;
				u->too_deep = true;
				return;
			}
			if (dwarf_child(&l->die, &stack[top + 1].die) == 0) {
				stack[top + 1].parent = me;
				top++;
				continue;
			}
		}
		/* Its next sibling, or its parent's, and so on up. */
		while (top >= 0 && dwarf_siblingof(&stack[top].die, &stack[top].die) != 0)
			top--;
	}
}

static int cmp_range(const void *a, const void *b, void *arg)
{
	const struct scope_range *ranges = arg;
	const struct scope_range *x = &ranges[*(const uint32_t *)a];
	const struct scope_range *y = &ranges[*(const uint32_t *)b];

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	/*
	 * Aliases (assembly units give one range several subprograms): the
	 * first in DIE order must sort last, where lookups look first.
	 */
	return x->scope > y->scope ? -1 : x->scope < y->scope;
}

struct unit_scopes *unit_scopes_new(Dwarf_Die *cu)
{
	struct unit_scopes *u = xcalloc(1, sizeof(*u));
	struct scopes_builder b = {.u = u};

	u->cu = *cu;
	index_unit(&b, cu);
	/* Exact sizes, with the closing scope that ends the last one's ranges. */
	u->scopes = xrealloc(u->scopes, (u->n + 1) * sizeof(*u->scopes));
	u->scopes[u->n] = (struct scope){NULL, -1, (uint32_t)u->nranges};
	if (u->nranges)
		u->ranges = xrealloc(u->ranges, u->nranges * sizeof(*u->ranges));
	u->sorted = xmalloc((u->nranges ? u->nranges : 1) * sizeof(*u->sorted));
	for (size_t i = 0; i < u->nranges; i++)
		u->sorted[i] = (uint32_t)i;
	if (u->nranges > 1)
		qsort_r(u->sorted, u->nranges, sizeof(*u->sorted), cmp_range, u->ranges);
	return u;
}

void unit_scopes_free(struct unit_scopes *u)
{
	if (!u)
		return;
	free(u->scopes);
	free(u->ranges);
	free(u->sorted);
	free(u);
}

/* Bytes an index holds. */
size_t unit_scopes_size(const struct unit_scopes *u)
{
	return sizeof(*u) + (u->n + 1) * sizeof(*u->scopes) +
	       u->nranges * (sizeof(*u->ranges) + sizeof(*u->sorted));
}

bool scope_holds(const struct unit_scopes *u, const struct scope *sc, uint64_t pc)
{
	for (uint32_t i = sc->range0; i < sc[1].range0; i++) {
		const struct scope_range *r = &u->ranges[i];

		if (pc >= r->lo && pc < r->hi)
			return true;
	}
	return false;
}

/* The start of the range sorted[i] stands for (arr: the index). */
static uint64_t sorted_lo(const void *arr, size_t i)
{
	const struct unit_scopes *u = arr;

	return u->ranges[u->sorted[i]].lo;
}

int32_t unit_scopes_innermost(const struct unit_scopes *u, uint64_t pc)
{
	size_t lo = bsearch_last_le(u, u->nranges, pc, sorted_lo);
	int32_t s;

	if (lo == 0)
		return -1;
	for (s = (int32_t)u->ranges[u->sorted[lo - 1]].scope; s >= 0; s = u->scopes[s].parent)
		if (scope_holds(u, &u->scopes[s], pc))
			return s;
	return -1;
}
