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

/*
 * The runtime ranges of the PLT sections (.plt, .plt.got, .plt.sec) and of
 * the GOT sections their entries jump through (.got, .got.plt).
 */
static uintptr_t plt_lo, plt_hi, got_lo, got_hi;

/* Widens [*lo, *hi) to hold section s. */
static void widen(uintptr_t *lo, uintptr_t *hi, const Elf64_Shdr *s)
{
	if (!*lo || s->sh_addr < *lo)
		*lo = s->sh_addr;
	if (s->sh_addr + s->sh_size > *hi)
		*hi = s->sh_addr + s->sh_size;
}

/* Reads this program's section headers for those ranges; 0 on success. */
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
		if (sh[i].sh_name >= sh[eh.e_shstrndx].sh_size)
			continue;
		if (strncmp(names + sh[i].sh_name, ".plt", 4) == 0)
			widen(&plt_lo, &plt_hi, &sh[i]);
		else if (strncmp(names + sh[i].sh_name, ".got", 4) == 0)
			widen(&got_lo, &got_hi, &sh[i]);
	}
	ret = plt_lo && got_lo ? 0 : -1;
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
 * Evicts the PLT's code and the GOT slots its entries jump through from
 * the caches, so that each call waits in its PLT entry: for the entry's
 * code, and in the entry's indirect jump for the slot it reads. The
 * entries then hold a large and steady share of the samples. Without
 * this, whether the timer's samples land in an entry at all (rather than
 * in the function it jumps to) depends on the load addresses, the load of
 * the machine and the processor: some keep decoded code that a flush of
 * its lines does not reach, but every one waits for a data load.
 */
static inline void flush_range(uintptr_t lo, uintptr_t hi)
{
	for (uintptr_t a = lo & ~(uintptr_t)63; a < hi; a += 64)
		__asm__ volatile("clflush (%0)" : : "r"(a) : "memory");
}

static inline void flush_plt(void)
{
	flush_range(plt_lo, plt_hi);
	flush_range(got_lo, got_hi);
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
		fprintf(stderr, "sym-plt: no PLT or GOT section found in /proc/self/exe\n");
		return 2;
	}
	dl_iterate_phdr(program_bias, &bias);
	plt_lo += bias;
	plt_hi += bias;
	got_lo += bias;
	got_hi += bias;

	sym_plt_fn = plt_tiny_got;
	while (sym_thread_cpu() < secs)
		x = plt_loop(x);
	sym_plt_sink = x + sym_plt_fn(x);
	return 0;
}
