/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sym-plt.c - a program that spends much of its time in PLT entries:
 * plt_loop calls, through the PLT, two tiny functions of libsym-plt.so
 * and glibc's __errno_location. plt_tiny_got's address is also taken in
 * code, through the GOT, so the linker routes its calls through .plt.got
 * (a GLOB_DAT relocation) instead of .plt (JUMP_SLOT). Built in several
 * layouts by make check (lazy and immediate binding, IBT PLTs with
 * .plt.sec, stripped).
 *
 * Usage: PROG [SECONDS]   (CPU seconds, default 1)
 */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <elf.h>
#include <link.h>

#include "sym-hot.h"

uint64_t plt_tiny(uint64_t x);
uint64_t plt_tiny_got(uint64_t x);

uint64_t (*volatile sym_plt_fn)(uint64_t);
volatile uint64_t sym_plt_sink;

/* The runtime range of the PLT sections (.plt, .plt.got, .plt.sec). */
static uintptr_t plt_lo, plt_hi;

/* Reads this program's section headers for the PLT's range; 0 on success. */
static int find_plt(void)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;
	char *names = NULL;
	FILE *f = fopen("/proc/self/exe", "rb");
	int ret = -1;

	if (!f || fread(&eh, sizeof(eh), 1, f) != 1 || eh.e_shentsize != sizeof(*sh) ||
	    eh.e_shstrndx >= eh.e_shnum)
		goto out;
	sh = calloc(eh.e_shnum, sizeof(*sh));
	if (!sh || fseek(f, (long)eh.e_shoff, SEEK_SET) != 0 ||
	    fread(sh, sizeof(*sh), eh.e_shnum, f) != eh.e_shnum)
		goto out;
	names = calloc(1, sh[eh.e_shstrndx].sh_size + 1);
	if (!names || fseek(f, (long)sh[eh.e_shstrndx].sh_offset, SEEK_SET) != 0 ||
	    fread(names, 1, sh[eh.e_shstrndx].sh_size, f) != sh[eh.e_shstrndx].sh_size)
		goto out;
	for (int i = 0; i < eh.e_shnum; i++) {
		if (sh[i].sh_name >= sh[eh.e_shstrndx].sh_size ||
		    strncmp(names + sh[i].sh_name, ".plt", 4))
			continue;
		if (!plt_lo || sh[i].sh_addr < plt_lo)
			plt_lo = sh[i].sh_addr;
		if (sh[i].sh_addr + sh[i].sh_size > plt_hi)
			plt_hi = sh[i].sh_addr + sh[i].sh_size;
	}
	ret = plt_lo ? 0 : -1;
out:
	free(names);
	free(sh);
	if (f)
		fclose(f);
	return ret;
}

/* The load bias of this program, from the dynamic loader. */
static int program_bias(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uintptr_t *)data = info->dlpi_addr;
	return 1; /* the first object is the program */
}

/*
 * Evicts the PLT's code from the caches, so that each call, once made,
 * waits in its PLT entry for the entry's code: the entries hold a large
 * and steady share of the samples. Without this, whether the timer's
 * samples land in an entry at all (rather than in the function it jumps
 * to) depends on the load addresses and on the load of the machine.
 */
static inline void flush_plt(void)
{
	for (uintptr_t a = plt_lo & ~(uintptr_t)63; a < plt_hi; a += 64)
		__asm__ volatile("clflush (%0)" : : "r"(a) : "memory");
}

SYM_HOT_FN uint64_t plt_loop(uint64_t x)
{
	SYM_FRAME();
	for (long i = 0; i < SYM_ROUNDS / 16; i++) {
		flush_plt();
		x = plt_tiny(x);
		x = plt_tiny_got(x);
		x += (uint64_t)*__errno_location();
	}
	return x;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? sym_seconds("sym-plt", argv[1]) : 1.0;
	uintptr_t bias = 0;
	uint64_t x = 1;

	if (find_plt() != 0) {
		fprintf(stderr, "sym-plt: no PLT section found in /proc/self/exe\n");
		return 2;
	}
	dl_iterate_phdr(program_bias, &bias);
	plt_lo += bias;
	plt_hi += bias;

	sym_plt_fn = plt_tiny_got;
	while (sym_thread_cpu() < secs)
		x = plt_loop(x);
	sym_plt_sink = x + sym_plt_fn(x);
	return 0;
}
