/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symtab.c - sorted symbol tables; see symtab.h.
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "elf/symtab.h"
#include "util/alloc.h"
#include "util/array.h"

void symtab_init(struct symtab *t)
{
	memset(t, 0, sizeof(*t));
}

void symtab_release(struct symtab *t)
{
	free(t->syms);
	free(t->names);
	symtab_init(t);
}

void symtab_add(struct symtab *t, uint64_t addr, uint64_t size, const char *name, uint8_t rank)
{
	symtab_addn(t, addr, size, name, strlen(name), rank);
}

void symtab_addn(struct symtab *t, uint64_t addr, uint64_t size, const char *name, size_t n,
		 uint8_t rank)
{
	size_t len = n + 1;
	struct sym *s;

	xgrow(&t->names, &t->names_cap, t->names_len + len, 1);
	memcpy(t->names + t->names_len, name, n);
	t->names[t->names_len + n] = '\0';
	xgrow(&t->syms, &t->cap, t->n + 1, sizeof(*t->syms));
	s = &t->syms[t->n++];
	s->addr = addr;
	s->size = size;
	s->name = (uint32_t)t->names_len;
	s->rank = rank;
	s->label = false;
	t->names_len += len;
}

void symtab_reserve(struct symtab *t, size_t nsyms, size_t name_bytes)
{
	xgrow(&t->syms, &t->cap, t->n + nsyms, sizeof(*t->syms));
	xgrow(&t->names, &t->names_cap, t->names_len + name_bytes, 1);
}

/* The room past what t holds given back (symtab_reserve's, a doubling's). */
static void fit(struct symtab *t)
{
	if (!t->n) {
		free(t->syms);
		t->syms = NULL;
		t->cap = 0;
	} else if (t->cap > t->n) {
		t->syms = xrealloc(t->syms, t->n * sizeof(*t->syms));
		t->cap = t->n;
	}
	if (!t->names_len) {
		free(t->names);
		t->names = NULL;
		t->names_cap = 0;
	} else if (t->names_cap > t->names_len) {
		t->names = xrealloc(t->names, t->names_len);
		t->names_cap = t->names_len;
	}
}

void symtab_add_label(struct symtab *t, uint64_t addr, uint64_t size, const char *name, size_t len)
{
	symtab_addn(t, addr, size, name, len, 0);
	t->syms[t->n - 1].label = true;
}

/* Best first among aliases: see symtab.h and elf_symbol_rank. */
static int cmp_sym(const void *a, const void *b, void *arg)
{
	const struct sym *x = a, *y = b;
	const char *names = arg;
	size_t xl, yl;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->label != y->label)
		return x->label ? 1 : -1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	xl = strlen(names + x->name);
	yl = strlen(names + y->name);
	if (xl != yl)
		return xl < yl ? -1 : 1;
	return strcmp(names + x->name, names + y->name);
}

static bool sorted_by_addr(const struct symtab *t)
{
	for (size_t i = 1; i < t->n; i++)
		if (t->syms[i].addr < t->syms[i - 1].addr)
			return false;
	return true;
}

/* Leaves out the labels that a symbol of a declared size holds (its internal labels). */
static void drop_covered_labels(struct symtab *t)
{
	uint64_t end = 0; /* of the symbols of declared sizes so far */
	size_t j = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct sym *s = &t->syms[i];

		if (s->label && s->addr < end)
			continue;
		if (!s->label && s->size && !(s->size & SYMTAB_SIZE_AT_MOST_FLAG) &&
		    s->addr + s->size > end)
			end = s->addr + s->size;
		t->syms[j++] = *s;
	}
	t->n = j;
}

void symtab_finish(struct symtab *t)
{
	size_t i, j = 0;

	if (!t->n) {
		fit(t);
		return;
	}
	/*
	 * A table added in address order is not sorted (qsort's merge
	 * buffer would double its memory for a moment). Either way the best
	 * of each run of aliases is kept.
	 */
	if (!sorted_by_addr(t))
		qsort_r(t->syms, t->n, sizeof(*t->syms), cmp_sym, t->names);
	for (i = 0; i < t->n; i++) {
		if (j && t->syms[j - 1].addr == t->syms[i].addr) {
			if (cmp_sym(&t->syms[i], &t->syms[j - 1], t->names) < 0)
				t->syms[j - 1] = t->syms[i];
			continue;
		}
		t->syms[j++] = t->syms[i];
	}
	t->n = j;
	drop_covered_labels(t);
	for (i = 0; i < t->n; i++) {
		struct sym *s = &t->syms[i];
		uint64_t gap = i + 1 < t->n ? t->syms[i + 1].addr - s->addr : 4096;

		if (!s->size)
			s->size = gap;
		else if (s->size & SYMTAB_SIZE_AT_MOST_FLAG)
			s->size = gap < (s->size & ~SYMTAB_SIZE_AT_MOST_FLAG)
					  ? gap
					  : s->size & ~SYMTAB_SIZE_AT_MOST_FLAG;
		if (!s->size)
			s->size = 1; /* a bound of 0: the symbol at least holds itself */
	}
	fit(t);
}

static uint64_t sym_addr(const void *syms, size_t i)
{
	return ((const struct sym *)syms)[i].addr;
}

const struct sym *symtab_lookup(const struct symtab *t, uint64_t addr)
{
	/* Just after the last symbol starting at or below addr. */
	size_t lo = bsearch_last_le(t->syms, t->n, addr, sym_addr);

	/*
	 * A short symbol nested inside a longer one may come last; look back
	 * a few entries for one that still holds addr.
	 */
	for (size_t k = 0; k < 4 && lo > 0; k++, lo--) {
		const struct sym *s = &t->syms[lo - 1];

		if (addr - s->addr < s->size)
			return s;
	}
	return NULL;
}
