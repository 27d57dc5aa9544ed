/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sym-moved.c - a program that moves its own text to anonymous memory, as
 * servers that back their code with huge pages do: it copies the
 * executable mapping of its file to a new anonymous mapping, makes that
 * executable and mremaps it over the original. /proc/PID/maps then shows
 * an anonymous r-xp mapping between the file's read-only mappings, and
 * the code runs from it: moved_hot, called by moved_outer, called by main.
 *
 * Usage: sym-moved [-w] [SECONDS]   (CPU seconds after the move, default 1)
 *   -w  print a ready line once moved and wait for SIGUSR1 (sym-hot.h)
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <sys/mman.h>

#include "sym-hot.h"

SYM_HOT_FN static long moved_hot(long n)
{
	long s = 0;

	SYM_FRAME();
	for (long i = 0; i < n; i++)
		s += (i * i) ^ (s >> 3);
	return s;
}

SYM_HOT_FN static long moved_outer(long n)
{
	SYM_FRAME();
	return moved_hot(n) + 1;
}

/* Moves the executable mapping that holds this function; exits on failure. */
SYM_HOT_FN static void move_text(void)
{
	unsigned long lo = 0, hi = 0, me = (unsigned long)(uintptr_t)&move_text;
	char line[512], perm[8];
	FILE *f = fopen("/proc/self/maps", "r");
	void *tmp, *at;

	if (!f) {
		perror("sym-moved: /proc/self/maps");
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b;

		if (sscanf(line, "%lx-%lx %7s", &a, &b, perm) == 3 && me >= a && me < b &&
		    perm[2] == 'x') {
			lo = a;
			hi = b;
		}
	}
	fclose(f);
	if (!lo) {
		fprintf(stderr, "sym-moved: no executable mapping holds the code\n");
		exit(2);
	}
	tmp = mmap(NULL, hi - lo, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (tmp == MAP_FAILED) {
		perror("sym-moved: mmap");
		exit(2);
	}
	memcpy(tmp, (void *)lo, hi - lo);
	if (mprotect(tmp, hi - lo, PROT_READ | PROT_EXEC) != 0) {
		perror("sym-moved: mprotect");
		exit(2);
	}
	/* From here on this very code runs from the copy. */
	at = mremap(tmp, hi - lo, hi - lo, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)lo);
	if (at != (void *)lo) {
		perror("sym-moved: mremap");
		exit(2);
	}
}

int main(int argc, char **argv)
{
	bool wait = argc > 1 && !strcmp(argv[1], "-w");
	double secs = sym_seconds("sym-moved", argc > 1 + wait ? argv[1 + wait] : "1");
	long sink = 0;

	move_text();
	if (wait)
		sym_wait_start("sym-moved");
	while (sym_thread_cpu() < secs)
		sink += moved_outer(1000000);
	return sink == 42;
}
