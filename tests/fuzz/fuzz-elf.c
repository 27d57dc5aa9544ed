/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-elf.c - libFuzzer harness for reading ELF files (elfread.h) from
 * arbitrary bytes through elf_memory(), as module_load reads a binary the
 * profiled program mapped.
 *
 * Contract checked: elf_read_segments() returns a count and an array of
 * that many segments (or -errno), elf_read_build_id() at most
 * BUILD_ID_MAX bytes, elf_read_symbols() a finished symbol table and
 * which table it came from; the address conversions of addr.h over those
 * segments stay consistent (an offset mapped to an ELF address maps back
 * into the same segment's file range).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <gelf.h>

#include "elf/addr.h"
#include "elf/elfread.h"
#include "elf/symtab.h"
#include "fuzz-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void check_addrs(const struct load_seg *segs, size_t n)
{
	for (size_t i = 0; i < n && i < 16; i++) {
		const struct load_seg *s = &segs[i];
		uint64_t probes[3] = {s->offset, s->offset + s->filesz / 2, s->offset + s->filesz};
		uint64_t vaddr, off, bias;

		for (int k = 0; k < 3; k++) {
			if (addr_file_offset_to_vaddr(segs, n, probes[k], &vaddr) < 0)
				continue;
			if (addr_vaddr_to_file_offset(segs, n, vaddr, &off) == 0)
				sink += off;
		}
		if (addr_load_bias(segs, n, 0x10000, 0x20000, s->offset & ~0xfffULL,
				   PROT_READ | PROT_EXEC, &bias) == 0)
			sink += bias;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct load_seg *segs = NULL;
	uint8_t id[BUILD_ID_MAX];
	struct symtab t;
	char *copy;
	size_t idlen;
	Elf *e;
	int n, which;

	elf_version(EV_CURRENT);
	copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	e = elf_memory(copy, size);
	if (!e)
		goto out;

	n = elf_read_segments(e, &segs);
	if (n < 0 && n != -ENOEXEC)
		abort();
	if (n > 0)
		sink += fuzz_touch(segs, (size_t)n * sizeof(*segs));
	if (n > 0)
		check_addrs(segs, (size_t)n);
	free(segs);

	memset(id, 0, sizeof(id));
	idlen = elf_read_build_id(e, id);
	if (idlen > BUILD_ID_MAX)
		abort();

	symtab_init(&t);
	which = elf_read_symbols(e, &t);
	if (which != -ENOEXEC && which != ELF_SYMS_NONE && which != ELF_SYMS_SYMTAB &&
	    which != ELF_SYMS_DYNSYM)
		abort();
	if (which == ELF_SYMS_NONE && t.n)
		abort();
	if (elf_read_symbols(e, NULL) != which)
		abort();
	fuzz_check_symtab(&t);
	symtab_release(&t);
	elf_end(e);
out:
	free(copy);
	return 0;
}
