/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-util.h - checks the fuzz harnesses share (linked into each).
 */
#ifndef PERFMINI_FUZZ_UTIL_H
#define PERFMINI_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "elf/symtab.h"

/*
 * Aborts unless t keeps symtab.h's invariant after symtab_finish: sorted,
 * one entry per address, every size non-zero, every name inside the name
 * buffer and NUL-terminated; and unless lookups at, inside and just
 * before its first entries return NULL or an entry holding the address.
 */
void fuzz_check_symtab(const struct symtab *t);

/* Reads n bytes (so that ASan sees every one) and returns a hash of them. */
uint64_t fuzz_touch(const void *p, size_t n);

#endif
