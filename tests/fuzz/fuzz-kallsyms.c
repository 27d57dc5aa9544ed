/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-kallsyms.c - libFuzzer harness for the /proc/kallsyms parser.
 *
 * Contract checked: ksyms_read() reads any text from a FILE * (fmemopen)
 * into a finished table, returns how many symbols it read (>= the entries
 * kept after merging aliases) or -errno; the entries are sorted, one per
 * address, each named; a lookup of an entry's start finds that entry, and
 * any lookup that succeeds finds a symbol starting at or below it.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/ksyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksyms k;
	FILE *f;
	int n;

	if (size == 0)
		return 0;
	ksyms_init(&k);
	f = fmemopen((void *)(uintptr_t)data, size, "r");
	if (!f)
		abort();
	n = ksyms_read(&k, f);
	fclose(f);
	if (n >= 0 && k.n > (size_t)n)
		abort();
	for (size_t i = 0; n >= 0 && i < k.n; i++) {
		uint64_t addr = KSYMS_HIGH | k.syms[i].lo, start;
		const char *name;

		if (i && k.syms[i - 1].lo >= k.syms[i].lo)
			abort(); /* not sorted, or two entries at one address */
		if (!(name = ksyms_name(&k, i)))
			abort();
		sink += strlen(name);
		if (!ksyms_lookup(&k, addr, &start, &name) || start != addr)
			abort();
		if (ksyms_lookup(&k, addr - 1, &start, &name) && start >= addr)
			abort();
	}
	ksyms_release(&k);
	return 0;
}
