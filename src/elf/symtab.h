/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symtab.h - a sorted table of function symbols and address lookup.
 *
 * Invariant: after symtab_finish, entries are sorted by address, one per
 * address, and each has a size (a symbol that declared none ends where
 * the next begins, or at the bound it was given). A label (a code address
 * named without a type or size, as hand-written assembly has) is kept
 * only where no symbol of a declared size holds it, and loses to any
 * other symbol at its address. Among aliases at one
 * address the best is kept: the highest rank (for ELF symbols,
 * elf_symbol_rank says what ranks higher), then the larger size, then
 * the shorter name, then the smaller name in byte order; so the choice
 * depends on the symbols only, never on their order in the table. Names
 * are copied in, so the table outlives the ELF file or text it was read
 * from.
 */
#ifndef PERFMINI_SYMTAB_H
#define PERFMINI_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sym {
	uint64_t addr, size;
	uint32_t name; /* offset into names */
	uint8_t rank;  /* higher wins among aliases */
	bool label;    /* see symtab_add_label */
};

struct symtab {
	struct sym *syms;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
};

void symtab_init(struct symtab *t);
void symtab_release(struct symtab *t);
/*
 * A size for symtab_add: unknown, but the symbol ends within n bytes of
 * its start (the end of its section), n < 2^63.
 */
#define SYMTAB_SIZE_AT_MOST_FLAG (1ULL << 63)
#define SYMTAB_SIZE_AT_MOST(n)	 ((uint64_t)(n) | SYMTAB_SIZE_AT_MOST_FLAG)

/* rank orders aliases at one address; size 0 means unknown. */
void symtab_add(struct symtab *t, uint64_t addr, uint64_t size, const char *name, uint8_t rank);
/* The same, for the first len bytes of name. */
void symtab_addn(struct symtab *t, uint64_t addr, uint64_t size, const char *name, size_t len,
		 uint8_t rank);
/* A label: its size is unknown, or at most SYMTAB_SIZE_AT_MOST's bound. */
void symtab_add_label(struct symtab *t, uint64_t addr, uint64_t size, const char *name, size_t len);
/*
 * Room for nsyms more symbols with name_bytes of names (NULs included)
 * before the table grows again: a table read whole is then not copied
 * at every doubling. symtab_finish gives back what was not used.
 */
void symtab_reserve(struct symtab *t, size_t nsyms, size_t name_bytes);
/* Sorts, merges aliases and fills in unknown sizes; call once after adding. */
void symtab_finish(struct symtab *t);
/* The symbol holding addr, or NULL. */
const struct sym *symtab_lookup(const struct symtab *t, uint64_t addr);
static inline const char *symtab_name(const struct symtab *t, const struct sym *s)
{
	return t->names + s->name;
}

#endif
