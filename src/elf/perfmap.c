/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfmap.c - a perf map's lines into a symbol table; see perfmap.h.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "elf/perfmap.h"

int perfmap_parse(FILE *f, struct symtab *t, size_t max_bytes)
{
	char *line = NULL;
	size_t cap = 0, read = 0;
	ssize_t len;
	int n = 0;

	while ((len = getline(&line, &cap, f)) > 0) {
		unsigned long long start, size;
		char *p = line, *end;

		read += (size_t)len;
		if (read > max_bytes)
			break;
		errno = 0;
		start = strtoull(p, &end, 16);
		if (errno || end == p || *end != ' ')
			continue;
		p = end + 1;
		size = strtoull(p, &end, 16);
		if (errno || end == p || *end != ' ' || size == 0)
			continue;
		p = end + 1;
		p[strcspn(p, "\n")] = '\0';
		if (!*p)
			continue;
		symtab_add(t, start, size, p, 1);
		n++;
	}
	free(line);
	symtab_finish(t);
	return n;
}
