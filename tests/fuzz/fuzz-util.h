/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-util.h - what the fuzz harnesses share (linked into each): checks
 * of what the library made of an input, and, for the harnesses that give
 * the library a file (fuzz-module.c, fuzz-dwarf.c), that file, pinned as a
 * module and named.
 */
#ifndef PERFMINI_FUZZ_UTIL_H
#define PERFMINI_FUZZ_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/symtab.h"
#include "model/module.h"
#include "symbol/symfile.h"

/*
 * Aborts unless t keeps symtab.h's invariant after symtab_finish: sorted,
 * one entry per address, every size non-zero, every name inside the name
 * buffer and NUL-terminated; and unless lookups at, inside and just
 * before its first entries return NULL or an entry holding the address.
 */
void fuzz_check_symtab(const struct symtab *t);

/* Reads n bytes (so that ASan sees every one) and returns a hash of them. */
uint64_t fuzz_touch(const void *p, size_t n);

/*
 * Makes the file that each input is written to, in a folder of its own
 * under $TMPDIR (or /tmp), both removed at exit; for LLVMFuzzerInitialize.
 * name is the harness's, for the folder and the messages. Unsets
 * DEBUGINFOD_URLS: a build-id lookup stays on this machine. Exits when the
 * file cannot be made.
 */
void fuzz_file_init(const char *name);
/* Makes the file hold the n bytes at p, and nothing more. */
void fuzz_file_write(const void *p, size_t n);
/* The file as written last, pinned as a module of s (a file module with a descriptor, or abort). */
struct module *fuzz_file_module(struct module_set *s);

/*
 * Names addr of m (an ELF address with is_vaddr, else a file offset)
 * through z, and aborts unless the result has at most SRCLINE_MAX_DEPTH
 * levels, as many as symbolize_addr says, each string NUL-terminated.
 */
void fuzz_lookup(struct symbolizer *z, struct module *m, uint64_t addr, bool is_vaddr);

#endif
