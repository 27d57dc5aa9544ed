/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hot.h - what the profiling targets share: the attribute that keeps a
 * hot function a function of its own name, and a CPU-time clock.
 *
 * Targets run for a given amount of their own CPU time rather than wall
 * time: cpu-clock samples are taken per CPU-second of the task, so the
 * number of samples a test gets stays the same on a loaded machine (only
 * the wall time grows).
 */
#ifndef PERFMINI_TARGETS_HOT_H
#define PERFMINI_TARGETS_HOT_H

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Not inlined and not cloned: samples land in a frame named exactly so. */
#if defined(__clang__)
#define HOT __attribute__((noinline, used))
#else
#define HOT __attribute__((noinline, noclone, used))
#endif

/*
 * The first statement of a hot function. GCC and clang leave a leaf
 * function without a frame even under -fno-omit-frame-pointer; a sample
 * in it then shows its caller's caller as its caller (the return address
 * into the caller is on the stack, not in the frame-pointer chain). Asking
 * for the frame address gives the function a frame, so that frame-pointer
 * call chains read "main;spin_hot", not "__libc_start_call_main;spin_hot".
 */
#define HOT_FRAME() __asm__ volatile("" : : "r"(__builtin_frame_address(0)))

/* About a millisecond of work per call of a hot function. */
#define HOT_ROUNDS 1000000L

/*
 * One step of the busy loop; the asm keeps the loop from being folded. A
 * macro, not an inline function: a hot function has no inlined callee, so
 * its samples' leaf frame is the function itself.
 */
#define HOT_STEP(x)                                                        \
	do {                                                               \
		(x) = (x)*6364136223846793005ULL + 1442695040888963407ULL; \
		__asm__ volatile("" : "+r"(x));                            \
	} while (0)

/* CPU time of the calling thread, in seconds. */
static inline double hot_thread_cpu(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) {
		perror("clock_gettime");
		exit(2);
	}
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The monotonic clock, in seconds. */
static inline double hot_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* argv[i] as a number of seconds, or def when absent. */
static inline double hot_seconds(int argc, char **argv, int i, double def)
{
	char *end;
	double s;

	if (argc <= i)
		return def;
	s = strtod(argv[i], &end);
	if (end == argv[i] || *end || s < 0 || s > 3600) {
		fprintf(stderr, "%s: bad number of seconds '%s'\n", argv[0], argv[i]);
		exit(2);
	}
	return s;
}

/*
 * The start signal of the targets that a test attaches to (-p) before they
 * do what is tested: blocks SIGUSR1, says "ready" on standard output (the
 * test waits for that line, then attaches, then sends SIGUSR1), and waits
 * for the signal, at most 30 s.
 */
static inline void hot_wait_start(const char *prog)
{
	struct timespec limit = {150, 0};
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0) {
		perror("sigprocmask");
		exit(2);
	}
	printf("%s: ready, pid %ld, waiting for SIGUSR1\n", prog, (long)getpid());
	fflush(stdout);
	while (sigtimedwait(&set, NULL, &limit) != SIGUSR1) {
		if (errno == EINTR)
			continue;
		fprintf(stderr, "%s: no SIGUSR1 within 150 s\n", prog);
		exit(2);
	}
}

#endif
