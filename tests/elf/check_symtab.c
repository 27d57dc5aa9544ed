/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_symtab.c - symbol tables (aliases, sizes, gaps, nesting), the
 * kernel's (kallsyms text, ksyms.h) and the ELF reader on a real file:
 * this test program itself, whose load bias the dynamic loader tells us
 * independently.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <gelf.h>

#include "elf/addr.h"
#include "elf/elfread.h"
#include "elf/ksyms.h"
#include "elf/perfmap.h"
#include "elf/symtab.h"
#include "model/proc.h"
#include "symbol/symfile.h"
#include "unit-helpers.h"
#include "util/alloc.h"
#include "util/array.h"

static const char *lookup_name(const struct symtab *t, uint64_t addr)
{
	const struct sym *s = symtab_lookup(t, addr);

	return s ? symtab_name(t, s) : NULL;
}

START_TEST(test_empty)
{
	struct symtab t;

	symtab_init(&t);
	symtab_finish(&t);
	ck_assert_ptr_null(symtab_lookup(&t, 0));
	ck_assert_ptr_null(symtab_lookup(&t, 0x1000));
	symtab_release(&t);
	symtab_release(&t); /* released twice is harmless */
}
END_TEST

START_TEST(test_aliases)
{
	/* The same three names at one address, added in each order. */
	static const struct {
		const char *name;
		uint8_t rank;
	} names[] = {{"__foo_internal", 1}, {"foo", 3}, {"foo_alias", 2}};

	for (int order = 0; order < 3; order++) {
		struct symtab t;

		symtab_init(&t);
		symtab_add(&t, 0x500, 0x10, "before", 1);
		for (int i = 0; i < 3; i++) {
			int k = (i + order) % 3;

			symtab_add(&t, 0x1000, 0x40, names[k].name, names[k].rank);
		}
		symtab_add(&t, 0x2000, 0x10, "after", 1);
		symtab_finish(&t);
		ck_assert_uint_eq(t.n, 3); /* one entry per address */
		ck_assert_str_eq(lookup_name(&t, 0x1000), "foo");
		ck_assert_str_eq(lookup_name(&t, 0x103f), "foo");
		ck_assert_ptr_null(symtab_lookup(&t, 0x1040));
		ck_assert_str_eq(lookup_name(&t, 0x2000), "after");
		symtab_release(&t);
	}
}
END_TEST

START_TEST(test_sizes_and_gaps)
{
	struct symtab t;
	const struct sym *s;

	symtab_init(&t);
	symtab_add(&t, 0x3000, 0x20, "c", 1);
	symtab_add(&t, 0x1000, 0, "a", 1); /* no size: ends where b begins */
	symtab_add(&t, 0x1100, 0x10, "b", 1);
	symtab_finish(&t);

	ck_assert_ptr_null(symtab_lookup(&t, 0));
	ck_assert_ptr_null(symtab_lookup(&t, 0xfff));
	s = symtab_lookup(&t, 0x1000);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(symtab_name(&t, s), "a");
	ck_assert_uint_eq(s->addr, 0x1000);
	ck_assert_uint_eq(s->size, 0x100);
	ck_assert_str_eq(lookup_name(&t, 0x10ff), "a");
	ck_assert_str_eq(lookup_name(&t, 0x1100), "b");
	ck_assert_str_eq(lookup_name(&t, 0x110f), "b");
	ck_assert_ptr_null(symtab_lookup(&t, 0x1110)); /* the gap after b */
	ck_assert_ptr_null(symtab_lookup(&t, 0x2fff));
	ck_assert_str_eq(lookup_name(&t, 0x301f), "c");
	ck_assert_ptr_null(symtab_lookup(&t, 0x3020));
	ck_assert_ptr_null(symtab_lookup(&t, UINT64_MAX));
	symtab_release(&t);
}
END_TEST

START_TEST(test_nested)
{
	struct symtab t;

	symtab_init(&t);
	symtab_add(&t, 0x3000, 0x100, "outer", 2);
	symtab_add(&t, 0x3040, 0x8, "inner", 1);
	symtab_add(&t, 0x3200, 0x10, "next", 1);
	symtab_finish(&t);
	ck_assert_str_eq(lookup_name(&t, 0x3000), "outer");
	ck_assert_str_eq(lookup_name(&t, 0x303f), "outer");
	ck_assert_str_eq(lookup_name(&t, 0x3040), "inner");
	ck_assert_str_eq(lookup_name(&t, 0x3047), "inner");
	ck_assert_str_eq(lookup_name(&t, 0x3048), "outer"); /* past inner, still in outer */
	ck_assert_str_eq(lookup_name(&t, 0x30ff), "outer");
	ck_assert_ptr_null(symtab_lookup(&t, 0x3100));
	ck_assert_str_eq(lookup_name(&t, 0x3200), "next");
	symtab_release(&t);
}
END_TEST

/*
 * Labels (untyped code symbols, as hand-written assembly has) name the
 * code up to the next symbol, but never inside a function of a declared
 * size, and lose to a function at their own address.
 */
START_TEST(test_labels)
{
	struct symtab t;

	symtab_init(&t);
	symtab_add_label(&t, 0x1000, 0, "asm_loop", 8);
	symtab_add(&t, 0x1100, 0x80, "func", 1);
	symtab_add_label(&t, 0x1140, 0, "inner_label", 11); /* inside func: left out */
	symtab_add_label(&t, 0x1200, 0, "alias_label", 11);
	symtab_add(&t, 0x1200, 0, "alias_func", 1);
	symtab_add_label(&t, 0x1300, SYMTAB_SIZE_AT_MOST(0x40), "last", 4);
	symtab_finish(&t);
	ck_assert_str_eq(lookup_name(&t, 0x1000), "asm_loop");
	ck_assert_str_eq(lookup_name(&t, 0x10ff), "asm_loop");
	ck_assert_str_eq(lookup_name(&t, 0x1140), "func");
	ck_assert_str_eq(lookup_name(&t, 0x117f), "func");
	ck_assert_ptr_null(symtab_lookup(&t, 0x1180));
	ck_assert_str_eq(lookup_name(&t, 0x1200), "alias_func");
	ck_assert_str_eq(lookup_name(&t, 0x12ff), "alias_func");
	ck_assert_str_eq(lookup_name(&t, 0x133f), "last");
	ck_assert_ptr_null(symtab_lookup(&t, 0x1340));
	symtab_release(&t);
}
END_TEST

/* Names are copied in: the caller's buffer may change afterwards. */
START_TEST(test_names_copied)
{
	struct symtab t;
	char name[32];

	symtab_init(&t);
	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "fn_%d", i);
		symtab_add(&t, 0x1000 + 0x10 * (uint64_t)i, 0x10, name, 1);
	}
	strcpy(name, "overwritten");
	symtab_finish(&t);
	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "fn_%d", i);
		ck_assert_str_eq(lookup_name(&t, 0x1008 + 0x10 * (uint64_t)i), name);
	}
	symtab_release(&t);
}
END_TEST

/* Disjoint random symbols against a linear scan. */
START_TEST(test_random_lookup)
{
	enum { N = 2000 };
	uint64_t *addr = calloc(N, sizeof(*addr)), *size = calloc(N, sizeof(*size));
	uint64_t seed = 42, a = 0x400000;
	struct symtab t;
	char name[32];

	symtab_init(&t);
	for (int i = 0; i < N; i++) {
		a += unit_rand(&seed) % 64; /* a gap, maybe none */
		addr[i] = a;
		size[i] = 1 + unit_rand(&seed) % 256;
		a += size[i];
	}
	/* Added in a scrambled order. */
	for (int i = 0; i < N; i++) {
		int k = (int)((uint64_t)i * 7919 % N);

		snprintf(name, sizeof(name), "s%d", k);
		symtab_add(&t, addr[k], size[k], name, 1);
	}
	symtab_finish(&t);
	for (int iter = 0; iter < 20000; iter++) {
		uint64_t q = 0x400000 - 16 + unit_rand(&seed) % (a - 0x400000 + 32);
		const char *got = lookup_name(&t, q);
		int want = -1;

		for (int i = 0; i < N; i++)
			if (q >= addr[i] && q < addr[i] + size[i])
				want = i;
		if (want < 0) {
			ck_assert_msg(got == NULL, "0x%llx: got %s, expected nothing",
				      (unsigned long long)q, got);
		} else {
			snprintf(name, sizeof(name), "s%d", want);
			ck_assert_ptr_nonnull(got);
			ck_assert_str_eq(got, name);
		}
	}
	symtab_release(&t);
	free(addr);
	free(size);
}
END_TEST

static const char kallsyms[] = "ffffffff81000000 T _stext\n"
			       "ffffffff81000000 t startup_64\n"
			       "ffffffff81000100 t local_fn\n"
			       "ffffffff81000200 W weak_fn\n"
			       "ffffffff81000300 w weak_local\n"
			       "ffffffff81000400 D some_data\n"
			       "ffffffff81000500 d local_data\n"
			       "ffffffff81000600 b some_bss\n"
			       "ffffffff81000700 B global_bss\n"
			       "ffffffff81000800 r some_rodata\n"
			       "ffffffff81001000 T after_data\n"
			       "this is not a symbol line\n"
			       "ffffffff81002000 T\n"
			       "ffffffffc0a01000 t mod_local\t[mymod]\n"
			       "ffffffffc0a01100 T mod_global\t[mymod]\n";

/* A perf map, and one read only as far as a limit allows. */
START_TEST(test_perfmap)
{
	const char *text = "1000 10 first\n"
			   "bad line\n"
			   "2000 20 second one\n"
			   "3000 0 sizeless\n"
			   "4000 40 third\n";
	struct symtab t;
	FILE *f;

	symtab_init(&t);
	f = unit_text_stream(text);
	ck_assert_int_eq(perfmap_parse(f, &t, 1 << 20), 3);
	fclose(f);
	ck_assert_str_eq(symtab_name(&t, symtab_lookup(&t, 0x2010)), "second one");
	ck_assert_ptr_null(symtab_lookup(&t, 0x3000));
	symtab_release(&t);

	/* 40 bytes: the first three lines (14 + 9 + 19 bytes end at 42). */
	symtab_init(&t);
	f = unit_text_stream(text);
	ck_assert_int_eq(perfmap_parse(f, &t, 40), 1);
	fclose(f);
	ck_assert_ptr_nonnull(symtab_lookup(&t, 0x1000));
	ck_assert_ptr_null(symtab_lookup(&t, 0x2000));
	symtab_release(&t);
}
END_TEST

/*
 * A line longer than PERFMAP_MAX_LINE is skipped whole (its bytes read,
 * never held) and the lines after it are read; one just short of it is
 * kept; a last line without a newline counts.
 */
START_TEST(test_perfmap_long_lines)
{
	size_t big = PERFMAP_MAX_LINE * 3, fit = PERFMAP_MAX_LINE - 8;
	char *text = xmalloc(big + fit + 64), *p = text;
	struct symtab t;
	FILE *f;

	memset(p, 'x', big); /* no newline in it: one line of 3 * PERFMAP_MAX_LINE */
	p += big;
	p += sprintf(p, "\n1000 10 after\n");
	p += sprintf(p, "2000 10 ");
	memset(p, 'n', fit - 8);
	p += fit - 8;
	p += sprintf(p, "\n3000 10 last");
	symtab_init(&t);
	f = unit_text_stream(text);
	ck_assert_int_eq(perfmap_parse(f, &t, 1 << 30), 3);
	fclose(f);
	ck_assert_str_eq(symtab_name(&t, symtab_lookup(&t, 0x1008)), "after");
	ck_assert_uint_eq(strlen(symtab_name(&t, symtab_lookup(&t, 0x2000))), fit - 8);
	ck_assert_str_eq(symtab_name(&t, symtab_lookup(&t, 0x3000)), "last");
	symtab_release(&t);

	/* The limit counts the skipped bytes too: it ends inside the long line. */
	symtab_init(&t);
	f = unit_text_stream(text);
	ck_assert_int_eq(perfmap_parse(f, &t, PERFMAP_MAX_LINE * 2), 0);
	fclose(f);
	symtab_release(&t);
	free(text);
}
END_TEST

static const char *klookup(struct ksyms *k, uint64_t addr)
{
	uint64_t start;
	const char *name;

	return ksyms_lookup(k, addr, &start, &name) ? name : NULL;
}

static bool k_has_name(struct ksyms *k, const char *name)
{
	for (size_t i = 0; i < k->n; i++)
		if (strcmp(ksyms_name(k, i), name) == 0)
			return true;
	return false;
}

START_TEST(test_kallsyms)
{
	FILE *f = unit_text_stream(kallsyms);
	struct ksyms k;
	uint64_t start;
	const char *name;
	static const char *const kept[] = {"_stext",	 "local_fn",  "weak_fn",   "weak_local",
					   "after_data", "mod_local", "mod_global"};
	static const char *const dropped[] = {"startup_64", "some_data",  "local_data",
					      "some_bss",   "global_bss", "some_rodata"};

	ksyms_init(&k);
	/* Eight function lines; the two at one address merge into one entry. */
	ck_assert_int_eq(ksyms_read(&k, f), 8);
	fclose(f);
	ck_assert_uint_eq(k.n, 7);
	/* So few names stay in memory: no file. */
	ck_assert_int_lt(k.fd, 0);
	ck_assert_ptr_null(k.map);
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++)
		ck_assert_msg(k_has_name(&k, kept[i]), "%s missing", kept[i]);
	for (size_t i = 0; i < ARRAY_SIZE(dropped); i++)
		ck_assert_msg(!k_has_name(&k, dropped[i]), "%s kept", dropped[i]);

	/* T beats t at one address. */
	ck_assert_str_eq(klookup(&k, 0xffffffff81000000ULL), "_stext");
	ck_assert_str_eq(klookup(&k, 0xffffffff81000150ULL), "local_fn");
	ck_assert_str_eq(klookup(&k, 0xffffffff81000200ULL), "weak_fn");
	/* A symbol ends where the next starts; data symbols in between are not kept. */
	ck_assert_str_eq(klookup(&k, 0xffffffff81000fffULL), "weak_local");
	/* Module symbols under their bare names; the last ends 4096 bytes on. */
	ck_assert_str_eq(klookup(&k, 0xffffffffc0a01010ULL), "mod_local");
	ck_assert(ksyms_lookup(&k, 0xffffffffc0a01100ULL + 4095, &start, &name));
	ck_assert_str_eq(name, "mod_global");
	ck_assert_uint_eq(start, 0xffffffffc0a01100ULL);
	ck_assert_ptr_null(klookup(&k, 0xffffffffc0a01100ULL + 4096));
	ck_assert_ptr_null(klookup(&k, 0xffffffff80ffffffULL));
	ck_assert_ptr_null(klookup(&k, 0x81000100ULL));
	ksyms_release(&k);
}
END_TEST

/*
 * Many blocks of names, read out of address order (as modules' symbols
 * come), with aliases whose names lie in different blocks: every lookup
 * finds the symbol the rules choose, whatever block it was stored in.
 * The names are in a file, mapped; with no descriptor left for the file,
 * in memory, with the same answers.
 */
static void check_blocks(bool with_file)
{
	enum { N = 20000 }; /* names past the 64 KiB kept in memory */
	char *text = xmalloc(N * 64 + 256), *p = text;
	struct ksyms k;
	struct rlimit old, low;
	FILE *f;

	/* Symbol i at 0xffffffffa0000000 + 16 * i, written last first. */
	for (int i = N - 1; i >= 0; i--)
		p += sprintf(p, "%016llx %c fn_%d\n", 0xffffffffa0000000ULL + 16ULL * (unsigned)i,
			     i % 3 ? 't' : 'T', i);
	/* Aliases, far from their symbols in the text (other blocks). */
	p += sprintf(p, "%016llx t a_%d\n", 0xffffffffa0000000ULL + 16ULL * 6,
		     6); /* loses: local */
	p += sprintf(p, "%016llx t f%d\n", 0xffffffffa0000000ULL + 16ULL * 8,
		     8); /* wins: shorter */
	p += sprintf(p, "%016llx t fn_99\n",
		     0xffffffffa0000000ULL + 16ULL * 10); /* loses: byte order */
	p += sprintf(p, "%016llx t fn_00\n",
		     0xffffffffa0000000ULL + 16ULL * 11); /* wins: byte order */
	f = unit_text_stream(text);
	ksyms_init(&k);
	if (!with_file) {
		/* The lowest free descriptor as the limit: no file can be made. */
		int fd = dup(0);

		ck_assert_int_ge(fd, 0);
		close(fd);
		ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
		low = old;
		low.rlim_cur = (rlim_t)fd;
		ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	}
	ck_assert_int_eq(ksyms_read(&k, f), N + 4);
	if (!with_file)
		ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
	fclose(f);
	ck_assert_int_eq(k.fd >= 0, with_file);
	ck_assert_int_eq(k.map != NULL, with_file);
	ck_assert_int_eq(k.buf == NULL, with_file); /* nothing of the names in the heap */
	ck_assert_uint_eq(k.n, N);
	ck_assert_uint_ge(k.nblk, N / KSYMS_BLOCK);
	for (int i = 0; i < N; i++) {
		char want[32];

		if (i == 8)
			snprintf(want, sizeof(want), "f8");
		else if (i == 11)
			snprintf(want, sizeof(want), "fn_00");
		else
			snprintf(want, sizeof(want), "fn_%d", i);
		ck_assert_str_eq(klookup(&k, 0xffffffffa0000000ULL + 16ULL * (unsigned)i + 15),
				 want);
	}
	ksyms_release(&k);
	free(text);
}

START_TEST(test_kallsyms_blocks)
{
	check_blocks(true);
}
END_TEST

START_TEST(test_kallsyms_blocks_no_file)
{
	check_blocks(false);
}
END_TEST

/* kptr_restrict: every address reads as 0; nothing usable. */
START_TEST(test_kallsyms_restricted)
{
	FILE *f = unit_text_stream("0000000000000000 T _stext\n"
				   "0000000000000000 t local_fn\n");
	struct ksyms k;

	ksyms_init(&k);
	ck_assert_int_eq(ksyms_read(&k, f), 0);
	ck_assert_uint_eq(k.n, 0);
	ck_assert_ptr_null(klookup(&k, 0xffffffff81000000ULL));
	fclose(f);
	ksyms_release(&k);
}
END_TEST

/* The ELF reader on this very program. */

/* A function the test looks up by name; noinline so that it has an address. */
__attribute__((noinline, used)) static int symtab_test_marker(int x)
{
	return x * 7 + 1;
}

struct self_info {
	uint64_t bias;
	uint8_t build_id[BUILD_ID_MAX];
	size_t build_id_len;
	bool found;
};

/* The dynamic loader's own view of the main program: its bias and build-id note. */
static int self_phdr(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct self_info *si = arg;

	(void)size;
	if (si->found)
		return 1;
	si->found = true; /* the main program comes first */
	si->bias = info->dlpi_addr;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *p = (const void *)(info->dlpi_addr + ph->p_vaddr);
		const unsigned char *end = p + ph->p_memsz;

		if (ph->p_type != PT_NOTE)
			continue;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const void *)p;
			const unsigned char *name = p + sizeof(*n);
			const unsigned char *desc = name + ((n->n_namesz + 3) & ~3U);

			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0 && n->n_descsz <= BUILD_ID_MAX) {
				memcpy(si->build_id, desc, n->n_descsz);
				si->build_id_len = n->n_descsz;
			}
			p = desc + ((n->n_descsz + 3) & ~3U);
		}
	}
	return 1;
}

struct find_map {
	uint64_t addr;
	struct maps_line line;
	char path[4096];
	bool found;
};

static int find_line(const struct maps_line *l, void *arg)
{
	struct find_map *fm = arg;

	if (fm->addr >= l->start && fm->addr < l->end) {
		fm->line = *l;
		snprintf(fm->path, sizeof(fm->path), "%s", l->path);
		fm->found = true;
	}
	return 0;
}

static Elf *open_self(int *fd)
{
	Elf *e;

	ck_assert_uint_ne(elf_version(EV_CURRENT), EV_NONE);
	*fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(*fd, 0);
	e = elf_begin(*fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(e);
	return e;
}

START_TEST(test_elf_self)
{
	uint64_t fn = (uint64_t)(uintptr_t)&symtab_test_marker;
	struct self_info si = {0};
	struct find_map fm = {.addr = fn};
	struct load_seg *segs = NULL;
	struct symtab t;
	const struct sym *s;
	uint64_t off, vaddr = 0, bias = 0;
	uint8_t id[BUILD_ID_MAX];
	bool exec_seg = false;
	FILE *maps;
	Elf *e;
	int fd, n;

	ck_assert_int_eq(symtab_test_marker(1), 8);
	dl_iterate_phdr(self_phdr, &si);
	ck_assert(si.found);

	e = open_self(&fd);
	n = elf_read_segments(e, &segs);
	ck_assert_int_gt(n, 0);
	for (int i = 0; i < n; i++)
		exec_seg = exec_seg || (segs[i].flags & PF_X);
	ck_assert(exec_seg);

	symtab_init(&t);
	ck_assert_int_eq(elf_read_symbols(e, &t), ELF_SYMS_SYMTAB);
	ck_assert_int_eq(elf_read_symbols(e, NULL), ELF_SYMS_SYMTAB);
	ck_assert_uint_gt(t.n, 10);

	/* Runtime address -> mapping -> file offset -> ELF address -> symbol. */
	maps = fopen("/proc/self/maps", "re");
	ck_assert_ptr_nonnull(maps);
	ck_assert_int_gt(proc_maps_parse(maps, find_line, &fm), 0);
	fclose(maps);
	ck_assert(fm.found);
	ck_assert(fm.line.prot & PROT_EXEC);
	off = addr_to_file_offset(fn, fm.line.start, fm.line.pgoff);
	ck_assert_int_eq(addr_file_offset_to_vaddr(segs, (size_t)n, off, &vaddr), 0);
	ck_assert_uint_eq(vaddr, fn - si.bias);
	s = symtab_lookup(&t, vaddr);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(symtab_name(&t, s), "symtab_test_marker");
	ck_assert_uint_eq(s->addr, vaddr);
	ck_assert_uint_gt(s->size, 0);

	/* The bias from the executable mapping is the loader's. */
	ck_assert_int_eq(addr_load_bias(segs, (size_t)n, fm.line.start, fm.line.end, fm.line.pgoff,
					fm.line.prot, &bias),
			 0);
	ck_assert_uint_eq(bias, si.bias);

	/* The build-id note the loader mapped is the one in the file. */
	ck_assert_uint_eq(elf_read_build_id(e, id), si.build_id_len);
	ck_assert_mem_eq(id, si.build_id, si.build_id_len);

	symtab_release(&t);
	free(segs);
	elf_end(e);
	close(fd);
}
END_TEST

START_TEST(test_build_id_hex)
{
	static const uint8_t id[] = {0x00, 0x01, 0xab, 0xcd, 0xef, 0x10, 0x9f};
	char out[2 * sizeof(id) + 1];

	memset(out, 'x', sizeof(out));
	build_id_hex(id, sizeof(id), out);
	ck_assert_str_eq(out, "0001abcdef109f");
	build_id_hex(id, 0, out);
	ck_assert_str_eq(out, "");
}
END_TEST

/* Feeds bytes through elf_memory; every reader must fail or succeed cleanly. */
static void read_image(const unsigned char *bytes, size_t len, bool expect_error)
{
	unsigned char *copy = unit_exact_copy(bytes, len);
	Elf *e = elf_memory((char *)copy, len);
	struct load_seg *segs = (void *)1;
	struct symtab t;
	uint8_t id[BUILD_ID_MAX];
	int n, which;

	symtab_init(&t);
	if (e) {
		n = elf_read_segments(e, &segs);
		which = elf_read_symbols(e, &t);
		/* Asked only which table, the same answer. */
		ck_assert_int_eq(elf_read_symbols(e, NULL), which);
		(void)elf_read_build_id(e, id);
		if (expect_error) {
			ck_assert_int_lt(n, 0);
			ck_assert_ptr_null(segs);
			ck_assert_int_lt(which, 0);
		}
		if (n < 0)
			ck_assert_ptr_null(segs);
		for (size_t i = 0; i < t.n; i++)
			(void)symtab_name(&t, &t.syms[i]);
		free(segs == (void *)1 ? NULL : segs);
		elf_end(e);
	}
	symtab_release(&t);
	free(copy);
}

START_TEST(test_elf_garbage)
{
	unsigned char junk[4096];
	uint64_t seed = 7;

	ck_assert_uint_ne(elf_version(EV_CURRENT), EV_NONE);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)unit_rand(&seed);
	read_image(junk, sizeof(junk), true);
	read_image(junk, 3, true);
	memset(junk, 0, sizeof(junk));
	read_image(junk, sizeof(junk), true);
	/* An ELF magic in front of junk: whatever libelf makes of it, no crash. */
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)unit_rand(&seed);
	memcpy(junk, ELFMAG, SELFMAG);
	junk[EI_CLASS] = ELFCLASS64;
	junk[EI_DATA] = ELFDATA2LSB;
	junk[EI_VERSION] = EV_CURRENT;
	read_image(junk, sizeof(junk), false);
}
END_TEST

/* Prefixes of a real ELF file: headers that point past the end. */
START_TEST(test_elf_truncated)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	unsigned char *buf;
	off_t size;
	ssize_t got;
	static const size_t lens[] = {16, 52, 64, 100, 200, 1000, 4096, 10000};

	ck_assert_uint_ne(elf_version(EV_CURRENT), EV_NONE);
	ck_assert_int_ge(fd, 0);
	size = lseek(fd, 0, SEEK_END);
	ck_assert_int_gt(size, 16384);
	buf = malloc((size_t)size);
	got = pread(fd, buf, (size_t)size, 0);
	ck_assert_int_eq(got, size);
	close(fd);
	for (size_t i = 0; i < ARRAY_SIZE(lens); i++)
		read_image(buf, lens[i], false);
	read_image(buf, (size_t)size / 2, false);
	read_image(buf, (size_t)size - 1, false);
	read_image(buf, (size_t)size, false);
	free(buf);
}
END_TEST

/* An ELF symbol of binding bind and type type, with size size, at 0x9d7a0. */
static GElf_Sym elf_sym(int bind, int type, uint64_t size)
{
	GElf_Sym s = {0};

	s.st_info = GELF_ST_INFO(bind, type);
	s.st_value = 0x9d7a0;
	s.st_size = size;
	s.st_shndx = 16;
	return s;
}

/* The winner among n named ELF symbols at one address, added in the order given. */
static const char *alias_winner(const GElf_Sym *syms, const char *const *names, const int *order,
				int n, char *out, size_t outlen)
{
	struct symtab t;

	symtab_init(&t);
	for (int i = 0; i < n; i++) {
		int k = order[i];

		symtab_add(&t, syms[k].st_value, syms[k].st_size, names[k],
			   elf_symbol_rank(&syms[k], names[k]));
	}
	symtab_finish(&t);
	ck_assert_uint_eq(t.n, 1);
	snprintf(out, outlen, "%s", symtab_name(&t, &t.syms[0]));
	symtab_release(&t);
	return out;
}

START_TEST(test_alias_rule_glibc)
{
	/* glibc 2.36's three names of one function, in every order. */
	const GElf_Sym syms[] = {
		elf_sym(STB_LOCAL, STT_FUNC, 4412),
		elf_sym(STB_GLOBAL, STT_FUNC, 4412),
		elf_sym(STB_WEAK, STT_FUNC, 4412),
	};
	const char *const names[] = {"__GI___strcoll_l", "__strcoll_l", "strcoll_l"};
	const int orders[][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
	char buf[64];

	for (size_t i = 0; i < ARRAY_SIZE(orders); i++)
		ck_assert_str_eq(alias_winner(syms, names, orders[i], 3, buf, sizeof(buf)),
				 "__strcoll_l");
}
END_TEST

START_TEST(test_alias_rule_order)
{
	/*
	 * Each rule of elf_symbol_rank, alone deciding between two names;
	 * the names are chosen so that every later rule would say otherwise.
	 */
	static const struct {
		int bind[2], type[2];
		uint64_t size[2];
		const char *name[2]; /* the winner first */
	} cases[] = {
		/* 1. a function over an ifunc */
		{{STB_LOCAL, STB_GLOBAL}, {STT_FUNC, STT_GNU_IFUNC}, {8, 8}, {"__x_impl", "x"}},
		/* 2. sized over sizeless */
		{{STB_LOCAL, STB_GLOBAL}, {STT_FUNC, STT_FUNC}, {8, 0}, {"__y", "y"}},
		/* 3. global over weak over local */
		{{STB_GLOBAL, STB_WEAK}, {STT_FUNC, STT_FUNC}, {8, 8}, {"__write", "write"}},
		{{STB_WEAK, STB_LOCAL}, {STT_FUNC, STT_FUNC}, {8, 8}, {"__w", "w"}},
		{{STB_GNU_UNIQUE, STB_WEAK}, {STT_FUNC, STT_FUNC}, {8, 8}, {"__u", "u"}},
		/* 4. fewer leading underscores */
		{{STB_GLOBAL, STB_GLOBAL}, {STT_FUNC, STT_FUNC}, {8, 8}, {"_libc_x", "__x"}},
		{{STB_GLOBAL, STB_GLOBAL}, {STT_FUNC, STT_FUNC}, {8, 8}, {"libc_x", "_x"}},
		/* then the shorter name, then the smaller name */
		{{STB_GLOBAL, STB_GLOBAL},
		 {STT_FUNC, STT_FUNC},
		 {8, 8},
		 {"__write", "__libc_write"}},
		{{STB_GLOBAL, STB_GLOBAL}, {STT_FUNC, STT_FUNC}, {8, 8}, {"abc", "abd"}},
	};
	const int orders[][2] = {{0, 1}, {1, 0}};
	char buf[64];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		GElf_Sym syms[2];

		for (int k = 0; k < 2; k++)
			syms[k] = elf_sym(cases[i].bind[k], cases[i].type[k], cases[i].size[k]);
		for (size_t o = 0; o < 2; o++)
			ck_assert_msg(!strcmp(alias_winner(syms, cases[i].name, orders[o], 2, buf,
							   sizeof(buf)),
					      cases[i].name[0]),
				      "case %zu, order %zu: %s won over %s", i, o, buf,
				      cases[i].name[0]);
	}
}
END_TEST

START_TEST(test_size_at_most)
{
	struct symtab t;

	/* _init without a size, the PLT after its section: it ends with its section. */
	symtab_init(&t);
	symtab_add(&t, 0x1000, SYMTAB_SIZE_AT_MOST(0x1b), "_init", 1);
	symtab_add(&t, 0x1030, 16, "puts@plt", 0);
	symtab_add(&t, 0x2000, SYMTAB_SIZE_AT_MOST(0x100), "last", 1);
	symtab_add(&t, 0x2080, 8, "inside", 1); /* the next symbol comes first */
	symtab_finish(&t);
	ck_assert_str_eq(lookup_name(&t, 0x101a), "_init");
	ck_assert_ptr_null(symtab_lookup(&t, 0x101b));
	ck_assert_ptr_null(symtab_lookup(&t, 0x1020)); /* PLT0 */
	ck_assert_str_eq(lookup_name(&t, 0x1030), "puts@plt");
	ck_assert_str_eq(lookup_name(&t, 0x207f), "last");
	ck_assert_str_eq(lookup_name(&t, 0x2080), "inside");
	ck_assert_ptr_null(symtab_lookup(&t, 0x2088));
	symtab_release(&t);
}
END_TEST

/*
 * Room reserved for a whole table, of which a few are functions: the
 * finished table holds only what it uses, its names and lookups right;
 * a table that got none holds nothing.
 */
START_TEST(test_reserve)
{
	struct symtab t;
	char name[32];

	symtab_init(&t);
	symtab_reserve(&t, 10000, 320000);
	ck_assert_uint_ge(t.cap, 10000);
	ck_assert_uint_ge(t.names_cap, 320000);
	for (int i = 0; i < 50; i++) {
		snprintf(name, sizeof(name), "fn_%d", i);
		symtab_add(&t, 0x1000 + 0x100 * (uint64_t)(49 - i), 0x80, name, 1);
	}
	symtab_add(&t, 0x1000, 0x80, "fn_49_alias", 0);
	symtab_finish(&t);
	ck_assert_uint_eq(t.n, 50);
	ck_assert_uint_eq(t.cap, 50);
	ck_assert_uint_eq(t.names_cap, t.names_len);
	ck_assert_str_eq(lookup_name(&t, 0x1000), "fn_49");
	ck_assert_str_eq(lookup_name(&t, 0x1000 + 0x100 * 49 + 0x7f), "fn_0");
	ck_assert_ptr_null(symtab_lookup(&t, 0x1080));
	/* Added to after it was finished, as a table of the PLT's may be: it grows again. */
	symtab_add(&t, 0x9000, 0x10, "late", 1);
	symtab_finish(&t);
	ck_assert_str_eq(lookup_name(&t, 0x9008), "late");
	symtab_release(&t);

	symtab_init(&t);
	symtab_reserve(&t, 1000, 32000);
	symtab_finish(&t);
	ck_assert_uint_eq(t.cap, 0);
	ck_assert_uint_eq(t.names_cap, 0);
	ck_assert_ptr_null(symtab_lookup(&t, 0x1000));
	symtab_release(&t);
}
END_TEST

static Suite *symtab_suite(void)
{
	Suite *s = suite_create("symtab");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_reserve);
	tcase_add_test(tc, test_aliases);
	tcase_add_test(tc, test_sizes_and_gaps);
	tcase_add_test(tc, test_nested);
	tcase_add_test(tc, test_labels);
	tcase_add_test(tc, test_names_copied);
	tcase_add_test(tc, test_random_lookup);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tc = tcase_create("kallsyms");
	tcase_add_test(tc, test_kallsyms);
	tcase_add_test(tc, test_kallsyms_blocks);
	tcase_add_test(tc, test_kallsyms_blocks_no_file);
	tcase_add_test(tc, test_kallsyms_restricted);
	tcase_add_test(tc, test_perfmap);
	tcase_add_test(tc, test_perfmap_long_lines);
	suite_add_tcase(s, tc);

	tc = tcase_create("aliases");
	tcase_add_test(tc, test_alias_rule_glibc);
	tcase_add_test(tc, test_alias_rule_order);
	tcase_add_test(tc, test_size_at_most);
	suite_add_tcase(s, tc);

	tc = tcase_create("elf");
	tcase_add_test(tc, test_elf_self);
	tcase_add_test(tc, test_build_id_hex);
	tcase_add_test(tc, test_elf_garbage);
	tcase_add_test(tc, test_elf_truncated);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(symtab_suite());
}
