/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fault-fork.c - many short-lived processes: forks N children one after
 * another, each spending MS milliseconds of CPU time in child_hot() and
 * exiting; waits for each before the next.
 *
 * Usage: fault-fork N MS
 * Exits 0 when every child exited 0.
 */
#include <sys/wait.h>

#include "../targets/hot.h"

uint64_t child_hot(uint64_t x);
volatile uint64_t fault_fork_sink;

HOT uint64_t child_hot(uint64_t x)
{
	HOT_FRAME();
	for (long i = 0; i < HOT_ROUNDS / 20; i++)
		HOT_STEP(x);
	return x;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	double ms = argc > 2 ? strtod(argv[2], NULL) : 2;
	int bad = 0;

	if (argc != 3 || n <= 0 || n > 100000 || ms < 0) {
		fprintf(stderr, "usage: fault-fork N MS\n");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();
		int status;

		if (pid < 0) {
			perror("fault-fork: fork");
			return 2;
		}
		if (pid == 0) {
			uint64_t x = (uint64_t)i;

			while (hot_thread_cpu() < ms / 1000)
				x = child_hot(x);
			fault_fork_sink = x;
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			bad++;
	}
	if (bad)
		fprintf(stderr, "fault-fork: %d children failed\n", bad);
	return bad ? 1 : 0;
}
