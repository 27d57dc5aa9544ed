/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-procmaps.c - libFuzzer harness for the /proc/PID/maps parser.
 *
 * Contract checked: proc_maps_parse() reads any text from a FILE *
 * (fmemopen), hands over only well-formed lines (start < end, a
 * NUL-terminated path without its newline, PROT_* bits only), and
 * returns how many; the executable ones, inserted into an address space
 * as model_seed does, keep maps.h's invariant (ordered, no overlap).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "model/maps.h"
#include "model/proc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

struct ctx {
	struct maps *maps;
	int lines;
};

static int on_line(const struct maps_line *l, void *arg)
{
	struct ctx *c = arg;
	struct mapping m = {l->start, l->end, l->pgoff, l->prot, NULL};

	if (l->end <= l->start || (l->prot & ~(uint32_t)(PROT_READ | PROT_WRITE | PROT_EXEC)))
		abort();
	if (strchr(l->path, '\n'))
		abort();
	sink += strlen(l->path) + l->maj + l->min + l->ino;
	if ((l->prot & PROT_EXEC) && maps_insert(c->maps, &m) < 0)
		abort();
	if (maps_find(c->maps, l->start) && !(l->prot & PROT_EXEC))
		sink++;
	c->lines++;
	return 0;
}

static int check_order(const struct mapping *map, void *arg)
{
	uint64_t *last_end = arg;

	if (map->end <= map->start || map->start < *last_end)
		abort();
	*last_end = map->end;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx c = {maps_new(), 0};
	uint64_t last_end = 0;
	FILE *f;
	int n;

	if (size == 0)
		goto out;
	f = fmemopen((void *)(uintptr_t)data, size, "r");
	if (!f)
		abort();
	n = proc_maps_parse(f, on_line, &c);
	fclose(f);
	if (n != c.lines)
		abort();
	maps_foreach(c.maps, check_order, &last_end);
out:
	maps_free(c.maps);
	return 0;
}
