/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sigprof.c - a signal handler's stack: every 5 ms of CPU time SIGPROF
 * interrupts spin_main, and its handler spends a while in
 * handler_work. Built without frame pointers: only the signal frame's
 * call frame information (the C library's __restore_rt) leads from the
 * handler back to the interrupted function, and on to main.
 *
 * Usage: sigprof [SECONDS]   (CPU seconds, default 1)
 */
#include <string.h>
#include <sys/time.h>

#include "hot.h"

static volatile uint64_t sink;

HOT void handler_work(void)
{
	uint64_t x = sink;

	for (long i = 0; i < HOT_ROUNDS; i++)
		HOT_STEP(x);
	sink = x;
}

static void on_prof(int sig)
{
	(void)sig;
	handler_work();
	sink++; /* not a tail call */
}

HOT void spin_main(void)
{
	uint64_t x = sink;

	for (long i = 0; i < HOT_ROUNDS; i++)
		HOT_STEP(x);
	sink = x;
}

int main(int argc, char **argv)
{
	double secs = hot_seconds(argc, argv, 1, 1.0);
	struct itimerval it = {{0, 5000}, {0, 5000}};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_prof;
	if (sigaction(SIGPROF, &sa, NULL) != 0 || setitimer(ITIMER_PROF, &it, NULL) != 0) {
		perror("sigprof");
		return 2;
	}
	while (hot_thread_cpu() < secs)
		spin_main();
	return 0;
}
