/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-perfmap.c - libFuzzer harness for the JIT perf-map parser
 * (/tmp/perf-PID.map, "START SIZE NAME" lines in hexadecimal).
 *
 * Contract checked: perfmap_parse() reads any text from a FILE *
 * (fmemopen) into a finished symbol table (symtab.h's invariant: sorted,
 * one entry per address, every size non-zero, names inside the name
 * buffer and NUL-terminated), and lookups return an entry holding the
 * address or NULL (fuzz-util.c checks). The same text as a file read by
 * the recorder's jitmap (jitmap.h): the line it gives for the address of
 * each symbol is one that starts at that offset and covers the address.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf/perfmap.h"
#include "elf/symtab.h"
#include "fuzz-util.h"
#include "model/module.h"
#include "stack/jitmap.h"
#include "symbol/symfile.h"

/* The line jitmap gives for each symbol's address, checked against the text at its offset. */
static void check_jitmap(const uint8_t *data, size_t size, const struct symtab *t)
{
	static char buf[PERFMAP_MAX_LINE + 2];
	int fd = memfd_create("fuzz-perfmap", MFD_CLOEXEC);
	struct jitmap *j;

	if (fd < 0)
		abort();
	if (write(fd, data, size) != (ssize_t)size)
		abort();
	j = jitmap_new();
	for (size_t i = 0; i < t->n; i++) {
		uint64_t a = t->syms[i].addr, line = jitmap_line(j, fd, a, UINT64_MAX);
		uint64_t start, len;
		const char *name;

		if (!line)
			continue;
		if (line > size ||
		    perfmap_line_at(fd, line - 1, buf, sizeof(buf), &start, &len, &name) < 0 ||
		    a < start || a - start >= len)
			abort();
	}
	jitmap_free(j);
	close(fd);
}

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
	check_jitmap(data, size, &t);
	symtab_release(&t);
	return 0;
}
