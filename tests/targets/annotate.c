/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A target for report --annotate (run-annotate.sh): an_work's loop, whose
 * body calls an_mix from annotate-mix.h inlined, takes nearly all of the
 * time. The loop's lines carry "loop" comments that the test finds.
 *
 * usage: annotate SECONDS
 *
 * SECONDS of its own CPU time, not of the clock: on a loaded machine it
 * still runs long after the test saw it start, for recorders to attach.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "annotate-mix.h"

static unsigned long __attribute__((noinline)) an_work(const unsigned long *v, int n)
{
	unsigned long s = 0;

	for (int i = 0; i < n; i++) /* loop */
		s += an_mix(v[i]);  /* loop */
	return s;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1, end = now() + seconds;
	int n = argc > 2 ? atoi(argv[2]) : 4096;
	unsigned long *v = malloc((size_t)n * sizeof(*v)), t = 0;

	if (!v)
		return 1;
	for (int i = 0; i < n; i++)
		v[i] = (unsigned long)i * 2654435761u;
	for (int r = 0; now() < end; r++) {
		t += an_work(v, n);
		v[r % n]++;
	}
	printf("%lu\n", t);
	free(v);
	return 0;
}
