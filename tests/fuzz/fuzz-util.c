/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-util.c - checks the fuzz harnesses share; see fuzz-util.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz-util.h"

static volatile uint64_t sink;

const char *__lsan_default_suppressions(void);

/*
 * LeakSanitizer's suppressions for every harness. libelf 0.188 loses the
 * section-name table it reads for elf_strptr in some damaged files (one
 * that fuzz-module found: a plain elf_begin, elf_strptr, elf_end leaks the
 * table's 303 bytes under valgrind too). The leak's stack, as the fuzzers'
 * fast unwinding takes it, ends in libelf's own frames, without a frame
 * pointer: the suppression names the library. A perfmini leak of an Elf
 * handle (an elf_end forgotten) is then left to the sanitizer build of
 * the test suite, which has no suppression and reads real files.
 */
const char *__lsan_default_suppressions(void)
{
	return "leak:libelf.so\n";
}

uint64_t fuzz_touch(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++)
		s = s * 31 + b[i];
	return s;
}

void fuzz_check_symtab(const struct symtab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct sym *s = &t->syms[i];
		const struct sym *found;
		uint64_t probes[3] = {s->addr, s->addr + s->size - 1, s->addr - 1};

		if (i && t->syms[i - 1].addr >= s->addr)
			abort(); /* not sorted, or two entries at one address */
		if (!s->size || s->name >= t->names_len)
			abort();
		if (!memchr(t->names + s->name, '\0', t->names_len - s->name))
			abort();
		sink += strlen(symtab_name(t, s));
		if (i >= 64)
			continue;
		for (int k = 0; k < 3; k++) {
			found = symtab_lookup(t, probes[k]);
			if (found && (found < t->syms || found >= t->syms + t->n ||
				      probes[k] - found->addr >= found->size))
				abort();
		}
		if (!symtab_lookup(t, s->addr))
			abort(); /* a symbol's own start finds a symbol */
	}
}
