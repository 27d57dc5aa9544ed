/*
 * sym-vdso.c - time spent in the vdso: vdso_hot() calls the vdso's
 * clock_gettime(CLOCK_MONOTONIC) directly, found with dlsym() in the
 * C library's handle of the vdso ("linux-vdso.so.1"), so that the leaf of
 * nearly every sample is in the vdso and none is in the C library's
 * wrapper of the same name.
 *
 * Usage: sym-vdso [SECONDS]   (CPU seconds, default 1)
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
	memcpy(&fn, &sym, sizeof(fn));
	while (sym_thread_cpu() < secs)
		sym_vdso_sink += vdso_hot(fn);
	return 0;
}
