/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sym-hot.h - what the symbolization targets (tests/targets/sym-*) share:
 * the attribute that keeps a hot function one function of its own name,
 * the busy loop, a CPU-time clock and the start signal.
 *
 * Kept apart from hot.h so that the symbolization tests do not change
 * when the other targets' helpers do.
 */
#ifndef PERFMINI_TARGETS_SYM_HOT_H
#define PERFMINI_TARGETS_SYM_HOT_H

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * Not inlined, not cloned (no ".constprop.0" suffix) and not folded into
 * an identical function (GCC's noipa covers all three): samples land in a
 * frame named exactly so. clang does none of these to a noinline function.
 */
#if defined(__clang__)
#define SYM_HOT_FN __attribute__((noinline, used))
#else
#define SYM_HOT_FN __attribute__((noipa, used))
#endif

/*
 * The first statement of a hot function: gives it a frame even where the
 * compiler would leave a leaf without one, so that frame-pointer call
 * chains name its caller.
 */
#define SYM_FRAME() __asm__ volatile("" : : "r"(__builtin_frame_address(0)))

/* About a millisecond of work per call of a hot function. */
#define SYM_ROUNDS 1000000L

/*
 * The busy loop of a hot function, on x. A macro, not an inline function:
 * a hot function has no inlined callee, so its samples' leaf frame is the
 * function itself. The asm keeps the loop from being folded.
 */
#define SYM_SPIN(x)                                                                \
	do {                                                                       \
		for (long sym_i_ = 0; sym_i_ < SYM_ROUNDS; sym_i_++) {             \
			(x) = (x)*6364136223846793005ULL + 1442695040888963407ULL; \
			__asm__ volatile("" : "+r"(x));                            \
		}                                                                  \
	} while (0)

/* CPU time of the calling thread (user and system), in seconds. */
static inline double sym_thread_cpu(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) {
		perror("clock_gettime");
		exit(2);
	}
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* s as a number of seconds, exits on anything else. */
static inline double sym_seconds(const char *prog, const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || v < 0 || v > 3600) {
		fprintf(stderr, "%s: bad number of seconds '%s'\n", prog, s);
		exit(2);
	}
	return v;
}

/*
 * The start signal of a target that a test attaches to (-p) or changes
 * (renames, deletes) before the target does what is tested: blocks
 * SIGUSR1, prints "PROG: ready, pid PID" on standard output, and waits
 * for SIGUSR1, at most 30 s.
 */
static inline void sym_wait_start(const char *prog)
{
	struct timespec limit = {30, 0};
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0) {
		perror("sigprocmask");
		exit(2);
	}
	printf("%s: ready, pid %ld\n", prog, (long)getpid());
	fflush(stdout);
	while (sigtimedwait(&set, NULL, &limit) != SIGUSR1) {
		if (errno == EINTR)
			continue;
		fprintf(stderr, "%s: no SIGUSR1 within 30 s\n", prog);
		exit(2);
	}
}

#endif
