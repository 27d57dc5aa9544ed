/* SPDX-License-Identifier: GPL-2.0-or-later */
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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gelf.h>

#include "elf/addr.h"
#include "elf/gopclntab.h"
#include "elf/symtab.h"

#define BUILD_ID_MAX 20

/* The PT_LOAD segments; returns their count (>= 0) or -errno. *segs is malloc'd. */
int elf_read_segments(Elf *e, struct load_seg **segs);

/*
 * addr_moved_text for the ELF file open at fd, read with pread: 0, or
 * -errno (-ENOENT when [lo, hi) is not where its code belongs).
 */
int elf_moved_text(int fd, uint64_t start, uint64_t end, uint64_t pgoff, uint32_t prot, uint64_t lo,
		   uint64_t hi, uint64_t *off);

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
 * With t NULL, only says which table would be: it stops at the first
 * symbol it would add, reading nothing else of the table.
 */
int elf_read_symbols(Elf *e, struct symtab *t);

/*
 * Adds the functions of a Go binary's table of functions (.gopclntab,
 * which a binary stripped of its symbols keeps) to t, unfinished.
 * Returns the count added (0 when e has no such table, or one of a
 * layout not read).
 */
int elf_read_go_symbols(Elf *e, struct symtab *t);
/* The section called name with contents in the file, its header in *sh; NULL when none. */
Elf_Scn *elf_section(Elf *e, const char *name, GElf_Shdr *sh);
/* Go's table of functions of e (.gopclntab) into g: 0, or < 0 when e has none that reads. */
int elf_go_table(Elf *e, struct gopcln *g);

/*
 * How a symbol ranks among aliases at its address (higher wins): the one
 * rule by which perfmini chooses the name a user knows among several
 * symbols at one address. In order, the first difference decides:
 *   1. a function (STT_FUNC) over anything else, such as the ifunc
 *      symbol that shares its address with its resolver;
 *   2. a symbol with a size over one without;
 *   3. global (or unique) over weak over local binding;
 *   4. fewer leading underscores (0, 1, 2, 3 or more);
 * then symtab_finish decides: the larger size, the shorter name, the
 * smaller name in byte order. So glibc's strcoll_l aliases
 * (__strcoll_l global, strcoll_l weak, __GI___strcoll_l local) give
 * __strcoll_l, whatever the order of the symbol table.
 */
uint8_t elf_symbol_rank(const GElf_Sym *s, const char *name);

/*
 * The size to give symtab_add for symbol s of section shndx of e: its own,
 * or when it declares none, SYMTAB_SIZE_AT_MOST the end of its section
 * (so that _init, sizeless, does not swallow the PLT that follows it).
 */
uint64_t elf_symbol_size(Elf *e, const GElf_Sym *s, GElf_Word shndx);

/*
 * Whether symbol s (of name, in section shndx of e) is a label of code: an
 * untyped symbol in an executable section, as hand-written assembly
 * defines its functions (zstd's decoding loops, ld.so's _start); not a
 * linker's marker (_etext) nor a local or mapping label.
 */
bool elf_symbol_is_label(Elf *e, const GElf_Sym *s, GElf_Word shndx, const char *name);

/*
 * Adds symbol s of e to t at ELF address addr if it is a function or a
 * label of code (symtab_add_label); returns 1 if it was added, else 0.
 */
int elf_add_symbol(Elf *e, const GElf_Sym *s, GElf_Word shndx, uint64_t addr, const char *name,
		   struct symtab *t);

/* The rank of a synthesized NAME@plt symbol: below every real symbol. */
#define ELF_PLT_RANK 0

/*
 * Adds a symbol NAME@plt, ranked ELF_PLT_RANK, for every entry of the
 * procedure linkage table of an x86-64 ELF file (.plt after its first
 * entry, .plt.sec, .plt.got), named from the dynamic relocation of the
 * GOT slot the entry jumps through: R_X86_64_JUMP_SLOT (.rela.plt, lazy
 * or -z now binding), R_X86_64_GLOB_DAT (.rela.dyn, for .plt.got), or
 * R_X86_64_IRELATIVE (an ifunc, named by the symbol at its resolver);
 * and the first entry of .plt, which calls the lazy binder, ".plt".
 * Reads the entries' code, so e must be the file itself, not a separate
 * debug file. Does not finish t. Returns the number added (0 for other
 * machines or a file without a PLT), or -errno.
 */
int elf_read_plt(Elf *e, struct symtab *t);

/* The length of a symbol's name without its "@VERSION" or "@@VERSION" suffix. */
size_t elf_symbol_name_len(const char *name);

/* Lowercase hex of a build-id into out (2 * len + 1 bytes). */
void build_id_hex(const uint8_t *id, size_t len, char *out);

#endif
