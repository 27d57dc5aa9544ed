/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * evict.c - what naming holds, kept in bounds: the pages of the modules'
 * files that libelf and libdw read given back (symbolizer_trim,
 * symbolizer_give_back), source lines' tables dropped above their budget,
 * and the modules not used lately let go (symbolizer_forget_idle). See
 * symfile.h.
 */
#include "config.h"

#include <fcntl.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbol/srcline.h"
#include "symbol/symfile-int.h"
#include "util/array.h"
#include "util/pages.h"

/* Giving pages back. */

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

void symbolizer_trim(struct symbolizer *z)
{
	size_t held = 0;

	for (size_t i = 0; i < z->nfiles; i++)
		if (z->files[i])
			held += srcline_held(z->files[i]);
	for (size_t i = 0; i < z->nfiles; i++)
		if (z->files[i])
			srcline_trim(z->files[i], held > z->lines_budget);
	symbolizer_give_back(z);
}

void symbolizer_give_back(struct symbolizer *z)
{
	if (z->pagemap == -1 && (z->pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)) < 0)
		z->pagemap = -2;
	for (size_t i = 0; i < z->nfiles; i++) {
		struct symfile *f = z->files[i];

		if (!f)
			continue;
		f->fresh = false;
		if (z->pagemap < 0 || !f->touched || f->changed)
			continue;
		for (int k = 0; k < f->nrmaps; k++)
			pages_give_back(z->pagemap, f->rmaps[k].start, f->rmaps[k].end);
		f->touched = false;
	}
}

/* Ends f's Dwfl, and with it the mappings remembered. */
void symfile_end_dwfl(struct symfile *f)
{
	dwfl_end(f->dwfl);
	f->dwfl = NULL;
	f->dwmod = NULL;
	f->nrmaps = 0;
}

/* Frees what f read to name frames, keeping what the profile's module table takes. */
static void symfile_unload(struct symfile *f)
{
	struct hmap_slot *s;

	free(f->image);
	f->image = NULL;
	if (f->zfd >= 0)
		close(f->zfd);
	f->zfd = -1;
	free(f->zname);
	f->zname = NULL;
	for (size_t pos = 0; (s = hmap_next(&f->demangled, &pos));)
		free(hmap_ptr(s));
	hmap_release(&f->demangled);
	for (size_t pos = 0; (s = hmap_next(&f->paths, &pos));)
		free(hmap_ptr(s));
	hmap_release(&f->paths);
	srcline_release(f);
	dwname_free(f->dwname);
	f->dwname = NULL;
	if (f->dwfl)
		symfile_end_dwfl(f);
	symtab_release(&f->syms);
	ksyms_release(&f->ksyms);
}

void symfile_free(struct symfile *f)
{
	/*
	 * What libelf and libdw were doing when the file changed under them
	 * was cut off midway: none of it is touched again, not even to free.
	 */
	if (!f || f->changed)
		return;
	symfile_unload(f);
	free(f->segs);
	free(f->debugfile);
	free(f);
}

/* Lets go of what f read, if it is of a module of a file; returns whether it did. */
static bool forget(struct symfile *f)
{
	if (!f || f->unloaded || f->changed || f->mod->kind != MODULE_FILE)
		return false;
	symfile_unload(f);
	f->unloaded = true;
	return true;
}

bool symbolizer_forget(struct symbolizer *z, const struct module *m)
{
	return forget(symfile_find(z, m));
}

size_t symbolizer_forget_idle(struct symbolizer *z, uint64_t now, uint64_t idle_ns)
{
	size_t n = 0;

	for (size_t i = 0; i < z->nfiles; i++)
		if (z->files[i] && now - z->files[i]->used_ns >= idle_ns && forget(z->files[i]))
			n++;
	/* What was freed goes back to the system, the naming thread's heap included. */
	if (n)
		malloc_trim(0);
	return n;
}
