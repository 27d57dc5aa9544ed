/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fault-storm.c - a storm of new programs, as a build or a test suite
 * makes: over and over, a fresh copy of this program is written to a new
 * file, run (it spends its CPU time in storm_hot for a few milliseconds),
 * waited for and deleted, as fast as the machine allows, or RATE copies
 * a second at most (each started 1/RATE s after the one before, or at
 * once when the one before ended late).
 *
 * Usage: fault-storm DIR SECONDS [RATE]
 *        fault-storm hot MILLISECONDS   (what each copy runs)
 * Prints "fault-storm: N programs in S s" at the end, or when SIGTERM
 * ends it sooner.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "../targets/hot.h"

uint64_t storm_hot(uint64_t x);
volatile uint64_t fault_storm_sink;
static volatile sig_atomic_t stopped;

static void on_term(int sig)
{
	(void)sig;
	stopped = 1;
}

HOT uint64_t storm_hot(uint64_t x)
{
	HOT_FRAME();
	for (long i = 0; i < HOT_ROUNDS; i++)
		HOT_STEP(x);
	return x;
}

/* Sleeps until the monotonic clock reads t (seconds), if it is not past. */
static void sleep_until(double t)
{
	double wait = t - hot_now();
	struct timespec ts;

	if (wait <= 0)
		return;
	ts.tv_sec = (time_t)wait;
	ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

/* This program's bytes, read once. */
static char *self(size_t *len)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf;

	if (fd < 0 || fstat(fd, &st) < 0 || !(buf = malloc((size_t)st.st_size)) ||
	    read(fd, buf, (size_t)st.st_size) != st.st_size) {
		perror("fault-storm: /proc/self/exe");
		exit(2);
	}
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

/* A copy of the program at path, run with "hot MS" and waited for; then deleted. */
static int run_copy(const char *path, const char *bytes, size_t len, char *ms)
{
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0755);
	char *argv[] = {(char *)path, "hot", ms, NULL};
	pid_t pid;
	int status;

	if (fd < 0 || write(fd, bytes, len) != (ssize_t)len || close(fd) < 0) {
		perror("fault-storm: writing a copy");
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		execv(path, argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "fault-storm: the copy %s failed\n", path);
		return -1;
	}
	return unlink(path);
}

int main(int argc, char **argv)
{
	char path[4096], ms[] = "3";
	double end, start, rate = 0, next;
	uint64_t x = 1;
	size_t len;
	char *bytes;
	long n = 0;

	if (argc == 3 && !strcmp(argv[1], "hot")) {
		start = hot_thread_cpu();
		while (hot_thread_cpu() - start < atof(argv[2]) / 1000)
			x = storm_hot(x);
		fault_storm_sink = x;
		return 0;
	}
	if (argc == 4)
		rate = atof(argv[3]);
	if ((argc != 3 && argc != 4) || rate < 0) {
		fprintf(stderr, "usage: fault-storm DIR SECONDS [RATE]\n");
		return 2;
	}
	bytes = self(&len);
	signal(SIGTERM, on_term);
	start = next = hot_now();
	end = next + atof(argv[2]);
	while (!stopped && hot_now() < end) {
		if (rate > 0) {
			sleep_until(next);
			next += 1 / rate;
			if (next < hot_now())
				next = hot_now();
		}
		snprintf(path, sizeof(path), "%s/storm-%ld", argv[1], n);
		if (run_copy(path, bytes, len, ms) < 0 && !stopped)
			return 1;
		n++;
	}
	printf("fault-storm: %ld programs in %.1f s\n", n, hot_now() - start);
	free(bytes);
	return 0;
}
