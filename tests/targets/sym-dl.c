/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sym-dl.c - libraries loaded after a profiler attached, and a library
 * unloaded and another loaded in its place.
 *
 * Usage: sym-dl SECONDS LIB_A SYM_A [LIB_B SYM_B]
 * Start: prints a ready line and waits for SIGUSR1 (see sym-hot.h). Then
 * dlopen()s LIB_A, spends SECONDS of CPU time in its function SYM_A,
 * called from run_a(); with LIB_B, dlclose()s LIB_A, dlopen()s LIB_B and
 * spends SECONDS in SYM_B, called from run_b(). For each library it
 * prints "sym-dl: library N at 0xBASE" (N is 1 or 2, BASE its load bias),
 * so that a test can see whether the second took the first one's place.
 * The callers tell the phases apart in a profile: a sample under run_a
 * ran LIB_A's code, one under run_b LIB_B's.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dlinfo */
#endif
#include <dlfcn.h>
#include <link.h>

#include "sym-hot.h"

typedef uint64_t (*hot_fn)(uint64_t);
volatile uint64_t sym_dl_sink;

/* Different bodies, so that no linker or compiler folds them into one. */
SYM_HOT_FN uint64_t run_a(hot_fn fn, double secs)
{
	double end = sym_thread_cpu() + secs;
	uint64_t x = 1;

	SYM_FRAME();
	while (sym_thread_cpu() < end)
		x = fn(x);
	return x;
}

SYM_HOT_FN uint64_t run_b(hot_fn fn, double secs)
{
	double end = sym_thread_cpu() + secs;
	uint64_t x = 2;

	SYM_FRAME();
	while (sym_thread_cpu() < end)
		x = fn(x) ^ 2;
	return x;
}

static void *load(int n, const char *lib, const char *name, hot_fn *fn)
{
	struct link_map *lm = NULL;
	void *h, *sym;

	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "sym-dl: %s\n", dlerror());
		exit(2);
	}
	sym = dlsym(h, name);
	if (!sym || dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm) {
		fprintf(stderr, "sym-dl: %s: %s\n", lib, dlerror());
		exit(2);
	}
	memcpy(fn, &sym, sizeof(*fn));
	printf("sym-dl: library %d at 0x%lx\n", n, (unsigned long)lm->l_addr);
	fflush(stdout);
	return h;
}

int main(int argc, char **argv)
{
	double secs;
	hot_fn fn;
	void *h;

	if (argc != 4 && argc != 6) {
		fprintf(stderr, "usage: sym-dl SECONDS LIB_A SYM_A [LIB_B SYM_B]\n");
		return 2;
	}
	secs = sym_seconds("sym-dl", argv[1]);
	sym_wait_start("sym-dl");
	h = load(1, argv[2], argv[3], &fn);
	sym_dl_sink = run_a(fn, secs);
	if (argc == 6) {
		if (dlclose(h) != 0) {
			fprintf(stderr, "sym-dl: dlclose %s: %s\n", argv[2], dlerror());
			return 2;
		}
		h = load(2, argv[4], argv[5], &fn);
		sym_dl_sink = run_b(fn, secs);
	}
	dlclose(h);
	return 0;
}
