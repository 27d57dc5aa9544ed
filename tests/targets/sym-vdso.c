/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sym-vdso.c - time spent in the vdso: vdso_hot() calls the vdso's
 * clock_gettime(CLOCK_MONOTONIC) directly, found with dlsym() in the
 * C library's handle of the vdso ("linux-vdso.so.1"), so that the leaf of
 * nearly every sample is in the vdso and none is in the C library's
 * wrapper of the same name.
 *
 * Usage: sym-vdso [SECONDS [IMAGE]]   (CPU seconds, default 1; IMAGE: a
 * file to write the vdso's image to, so that a test can read its symbols)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NOLOAD */
#endif
#include <dlfcn.h>

#include "sym-hot.h"

typedef int (*gettime_fn)(clockid_t, struct timespec *);
volatile uint64_t sym_vdso_sink;

SYM_HOT_FN uint64_t vdso_hot(gettime_fn fn)
{
	struct timespec ts;
	uint64_t s = 0;

	SYM_FRAME();
	for (int i = 0; i < 10000; i++) {
		fn(CLOCK_MONOTONIC, &ts);
		s += (uint64_t)ts.tv_nsec;
	}
	return s;
}

/* Writes this process's vdso, as mapped, to path. */
static int dump_vdso(const char *path)
{
	FILE *maps = fopen("/proc/self/maps", "r"), *out;
	unsigned long start = 0, end = 0;
	char line[512];
	size_t n;

	if (!maps)
		return -1;
	while (fgets(line, sizeof(line), maps))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &start, &end) == 2)
			break;
	fclose(maps);
	if (!start || end <= start || !(out = fopen(path, "w")))
		return -1;
	n = fwrite((const void *)start, 1, end - start, out);
	return fclose(out) == 0 && n == end - start ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const char *const names[] = {"__vdso_clock_gettime", "__kernel_clock_gettime"};
	double secs = argc > 1 ? sym_seconds("sym-vdso", argv[1]) : 1.0;
	void *h = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD), *sym = NULL;
	gettime_fn fn;

	for (size_t i = 0; h && !sym && i < sizeof(names) / sizeof(names[0]); i++)
		sym = dlsym(h, names[i]);
	if (!sym) {
		fprintf(stderr, "sym-vdso: no clock_gettime in the vdso (%s)\n",
			h ? "no such symbol" : "no vdso handle");
		return 2;
	}
	if (argc > 2 && dump_vdso(argv[2]) < 0) {
		fprintf(stderr, "sym-vdso: cannot write the vdso to %s\n", argv[2]);
		return 2;
	}
	memcpy(&fn, &sym, sizeof(fn));
	while (sym_thread_cpu() < secs)
		sym_vdso_sink += vdso_hot(fn);
	return 0;
}
