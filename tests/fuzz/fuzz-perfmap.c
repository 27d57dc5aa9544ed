/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-perfmap.c - libFuzzer harness for the JIT perf-map parser
 * (/tmp/perf-PID.map, "START SIZE NAME" lines in hexadecimal).
 *
 * Contract checked: perfmap_parse() reads any text from a FILE *
 * (fmemopen) into a finished symbol table (symtab.h's invariant: sorted,
 * one entry per address, every size non-zero, names inside the name
 * buffer and NUL-terminated), and lookups return an entry holding the
 * address or NULL (fuzz-util.c checks).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/symtab.h"
#include "fuzz-util.h"
#include "model/module.h"
#include "symbol/symfile.h"

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
	n = perfmap_parse(f, &t, 1 << 16);
	fclose(f);
	if (n < 0 || t.n > (size_t)n)
		abort();
	fuzz_check_symtab(&t);
	symtab_release(&t);
	return 0;
}
