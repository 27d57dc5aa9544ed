/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fault-exec.c - a process that changes program under a profiler: it
 * spends its CPU time in before_exec_hot(), then execs another program.
 *
 * Usage: fault-exec SECONDS GO_FILE PROGRAM [ARG...]
 *   SECONDS  CPU seconds in before_exec_hot before the exec
 *   GO_FILE  "-", or a file to wait for (at most 30 s) before starting to
 *            count: a test attaching with -p creates it once attached
 * Says "fault-exec: ready, pid PID" on standard output first.
 */
#include <string.h>

#include "../targets/hot.h"

uint64_t before_exec_hot(uint64_t x);
volatile uint64_t fault_exec_sink;

HOT uint64_t before_exec_hot(uint64_t x)
{
	HOT_FRAME();
	for (long i = 0; i < HOT_ROUNDS; i++)
		HOT_STEP(x);
	return x;
}

int main(int argc, char **argv)
{
	double secs = hot_seconds(argc, argv, 1, 1.0), start;
	uint64_t x = 1;

	if (argc < 4) {
		fprintf(stderr, "usage: fault-exec SECONDS GO_FILE PROGRAM [ARG...]\n");
		return 2;
	}
	printf("fault-exec: ready, pid %ld\n", (long)getpid());
	fflush(stdout);
	if (strcmp(argv[2], "-") != 0) {
		for (int i = 0; access(argv[2], F_OK) != 0; i++) {
			if (i > 3000) {
				fprintf(stderr, "fault-exec: no %s within 30 s\n", argv[2]);
				return 2;
			}
			usleep(10000);
		}
	}
	start = hot_thread_cpu();
	while (hot_thread_cpu() - start < secs)
		x = before_exec_hot(x);
	fault_exec_sink = x;
	execv(argv[3], argv + 3);
	perror("fault-exec: execv");
	return 127;
}
