/*
 * elfread.h - what perfmini reads from an ELF file: load segments, build-id
 * and function symbols.
 *
 * Functions take an Elf handle, so tests and fuzzers can hand them bytes
 * through elf_memory(). They never trust the file: counts and offsets come
 * through libelf's checked accessors.
 */
#ifndef PERFMINI_ELFREAD_H
#define PERFMINI_ELFREAD_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "symtab.h"

#define BUILD_ID_MAX 20

/* The PT_LOAD segments; returns their count (>= 0) or -errno. *segs is malloc'd. */
int elf_read_segments(Elf *e, struct load_seg **segs);

/* The GNU build-id; returns its length (0 when there is none). */
size_t elf_read_build_id(Elf *e, uint8_t id[BUILD_ID_MAX]);

enum elf_symsrc {
	ELF_SYMS_NONE = 0,
	ELF_SYMS_SYMTAB = 1, /* .symtab: every function */
	ELF_SYMS_DYNSYM = 2, /* .dynsym only: exported functions */
};

/*
 * Adds the function symbols of .symtab, or of .dynsym when there is no
 * .symtab, to t and finishes it. Returns which table was used, or -errno.
 */
int elf_read_symbols(Elf *e, struct symtab *t);

/* How a symbol ranks among aliases at its address (higher wins). */
uint8_t elf_symbol_rank(const GElf_Sym *s, const char *name);

/* The length of a symbol's name without its "@VERSION" or "@@VERSION" suffix. */
size_t elf_symbol_name_len(const char *name);

/* Lowercase hex of a build-id into out (2 * len + 1 bytes). */
void build_id_hex(const uint8_t *id, size_t len, char *out);

#endif
