/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dlopen-late.c - loads a library only when told to, so that a profiler
 * attached before sees the library appear (an MMAP2 record, not the
 * /proc/PID/maps read at attach), then spends its time in plugin_hot().
 *
 * Usage: dlopen-late [SECONDS [LIBRARY]]
 *   SECONDS  CPU seconds spent in plugin_hot() (default 1)
 *   LIBRARY  the plugin (default: libplugin.so beside this program)
 * Start: see hot_wait_start() (prints a ready line, waits for SIGUSR1).
 */
#include <dlfcn.h>
#include <limits.h>
#include <string.h>

#include "hot.h"

typedef uint64_t (*hot_fn)(uint64_t);
volatile uint64_t dlopen_late_sink;

int main(int argc, char **argv)
{
	double secs = hot_seconds(argc, argv, 1, 1.0);
	char path[PATH_MAX];
	const char *lib = argc > 2 ? argv[2] : NULL;
	uint64_t x = 1;
	void *h, *sym;
	hot_fn fn;

	if (!lib) {
		ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
		char *slash;

		if (n < 0) {
			perror("readlink /proc/self/exe");
			return 2;
		}
		path[n] = '\0';
		slash = strrchr(path, '/');
		if (!slash || (size_t)(slash - path) + sizeof("/libplugin.so") > sizeof(path)) {
			fprintf(stderr, "dlopen-late: cannot place libplugin.so beside %s\n", path);
			return 2;
		}
		strcpy(slash, "/libplugin.so");
		lib = path;
	}

	hot_wait_start("dlopen-late");
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlopen-late: %s\n", dlerror());
		return 2;
	}
	sym = dlsym(h, "plugin_hot");
	if (!sym) {
		fprintf(stderr, "dlopen-late: %s\n", dlerror());
		return 2;
	}
	memcpy(&fn, &sym, sizeof(fn));
	while (hot_thread_cpu() < secs)
		x = fn(x);
	dlopen_late_sink = x;
	return 0;
}
