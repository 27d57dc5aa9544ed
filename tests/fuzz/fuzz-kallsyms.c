/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-kallsyms.c - libFuzzer harness for the /proc/kallsyms parser.
 *
 * Contract checked: symtab_read_kallsyms() reads any text from a FILE *
 * (fmemopen) into a finished symbol table, returns how many symbols it
 * read (>= the entries kept after merging aliases) or -errno, and lookups
 * behave (fuzz-util.c checks).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz-util.h"
#include "elf/symtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symtab t;
	FILE *f;
	int n;

	if (size == 0)
		return 0;
	symtab_init(&t);
	f = fmemopen((void *)(uintptr_t)data, size, "r");
	if (!f)
		abort();
	n = symtab_read_kallsyms(&t, f);
	fclose(f);
	if (n >= 0) {
		if (t.n > (size_t)n)
			abort();
		fuzz_check_symtab(&t);
	}
	symtab_release(&t);
	return 0;
}
