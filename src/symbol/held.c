/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * held.c - the pages of the modules' files that libelf and libdw map,
 * remembered as they are read (symfile_remember_region,
 * symfile_remember_map) and given back to the kernel between reads
 * (symbolizer_give_back); and a module's Dwfl ended with its mappings
 * (symfile_end_dwfl). Below every other file of symbol/: it calls none.
 * See symfile.h.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "symbol/symfile-int.h"
#include "util/array.h"
#include "util/clock.h"
#include "util/pages.h"

/*
 * Remembers the n bytes at raw, if they are mapped privately from a file
 * (libelf may also read a file into memory, which must never be given
 * back): checked against /proc/self/maps.
 */
void symfile_remember_region(struct symfile *f, const void *raw, size_t n)
{
	uintptr_t p = (uintptr_t)raw, lo, hi, page = (uintptr_t)sysconf(_SC_PAGESIZE);
	char line[512];
	FILE *maps;

	if (!raw || !n || f->nrmaps == (int)ARRAY_SIZE(f->rmaps))
		return;
	for (int i = 0; i < f->nrmaps; i++)
		if (p >= f->rmaps[i].start && p < f->rmaps[i].end)
			return;
	if (!(maps = fopen("/proc/self/maps", "re")))
		return;
	while (fgets(line, sizeof(line), maps)) {
		unsigned long start, end, inode;
		char perms[5];

		if (sscanf(line, "%lx-%lx %4s %*s %*s %lu", &start, &end, perms, &inode) != 4 ||
		    p < start || p >= end)
			continue;
		/* Whole pages inside both the mapping and the image only. */
		lo = (p + page - 1) & ~(page - 1);
		hi = (p + n) & ~(page - 1);
		if (hi > end)
			hi = end;
		if ((!strcmp(perms, "r--p") || !strcmp(perms, "rw-p")) && inode && hi > lo) {
			f->rmaps[f->nrmaps].start = lo;
			f->rmaps[f->nrmaps].end = hi;
			f->nrmaps++;
		}
		break;
	}
	fclose(maps);
}

/* The same for the image of e. */
void symfile_remember_map(struct symfile *f, Elf *e)
{
	size_t n = 0;
	char *raw = e ? elf_rawfile(e, &n) : NULL;

	symfile_remember_region(f, raw, n);
}

/* The pages of files (and shared memory) resident in this process; 0 when unknown. */
static uint64_t file_pages(struct symbolizer *z)
{
	char buf[128];
	unsigned long long size, rss, shared;
	ssize_t n;

	if (z->statm == -1 && (z->statm = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)) < 0)
		z->statm = -2;
	if (z->statm < 0 || (n = pread(z->statm, buf, sizeof(buf) - 1, 0)) <= 0)
		return 0;
	buf[n] = '\0';
	return sscanf(buf, "%llu %llu %llu", &size, &rss, &shared) == 3 ? shared : 0;
}

void symbolizer_set_give_back_bytes(struct symbolizer *z, size_t bytes)
{
	z->give_back_bytes = bytes;
}

/* How often, at most, symbolizer_give_back_due reads /proc/self/statm. */
#define STATM_LOOK_NS 50000000ULL

bool symbolizer_give_back_due(struct symbolizer *z)
{
	uint64_t now, t;

	if (!z->give_back_bytes)
		return true;
	t = now_coarse_ns();
	if (t - z->statm_at < STATM_LOOK_NS)
		return false;
	z->statm_at = t;
	now = file_pages(z);
	return !now || now >= z->file_pages + z->give_back_bytes / (size_t)sysconf(_SC_PAGESIZE);
}

int symbolizer_pagemap(struct symbolizer *z)
{
	if (z->pagemap == -1 && (z->pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)) < 0)
		z->pagemap = -2;
	return z->pagemap >= 0 ? z->pagemap : -1;
}

void symfile_give_back(struct symfile *f, int pagemap)
{
	if (pagemap < 0 || f->changed)
		return;
	for (int k = 0; k < f->nrmaps; k++)
		pages_give_back(pagemap, f->rmaps[k].start, f->rmaps[k].end);
}

void symbolizer_give_back(struct symbolizer *z)
{
	int pagemap = symbolizer_pagemap(z);

	for (size_t i = 0; i < z->nfiles; i++) {
		struct symfile *f = z->files[i];

		if (!f)
			continue;
		f->fresh = false;
		if (pagemap < 0 || !f->touched || f->changed)
			continue;
		symfile_give_back(f, pagemap);
		f->touched = false;
	}
	if (z->give_back_bytes)
		z->file_pages = file_pages(z);
}

/* Ends f's Dwfl, and with it the mappings remembered. */
void symfile_end_dwfl(struct symfile *f)
{
	dwfl_end(f->dwfl);
	f->dwfl = NULL;
	f->dwmod = NULL;
	f->nrmaps = 0;
}
