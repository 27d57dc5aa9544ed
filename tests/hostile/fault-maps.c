/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fault-maps.c - a process that names files to trick a profiler, and a
 * watch on named pipes that tells whether anyone opened them. Linked
 * statically, so that it runs alone in a chroot.
 *
 * Usage: fault-maps swap CODE LINK SECONDS
 *          maps the first page of the file CODE for execution, unmaps it,
 *          replaces CODE with a symbolic link to LINK (with LINK "fifo":
 *          with a named pipe), says "fault-maps: swapped CODE" on standard
 *          output, then spends SECONDS of CPU time in maps_hot(). The
 *          profiler learns of the mapping only after it is gone, so that it
 *          must open CODE by its name to read it.
 *        fault-maps watch SECONDS FIFO...
 *          for SECONDS, tries every few milliseconds to open each named
 *          pipe for writing without blocking, which succeeds only while
 *          someone has it open for reading; says "fault-maps: FIFO was
 *          opened" for each that was (and closes it again, which lets the
 *          reader go on); exits 1 if any was, else 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../targets/hot.h"

uint64_t maps_hot(uint64_t x);
volatile uint64_t fault_maps_sink;

HOT uint64_t maps_hot(uint64_t x)
{
	HOT_FRAME();
	for (long i = 0; i < HOT_ROUNDS; i++)
		HOT_STEP(x);
	return x;
}

static int do_swap(const char *code, const char *link, double secs)
{
	int fd = open(code, O_RDONLY | O_CLOEXEC);
	uint64_t x = 1;
	void *p;

	if (fd < 0) {
		perror(code);
		return 2;
	}
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("fault-maps: mmap");
		return 2;
	}
	munmap(p, 4096);
	close(fd);
	if (unlink(code) != 0 ||
	    (!strcmp(link, "fifo") ? mkfifo(code, 0644) : symlink(link, code)) != 0) {
		perror(code);
		return 2;
	}
	printf("fault-maps: swapped %s\n", code);
	fflush(stdout);
	while (hot_thread_cpu() < secs)
		x = maps_hot(x);
	fault_maps_sink = x;
	return 0;
}

static int do_watch(double secs, char **fifos, int n)
{
	double end = hot_now() + secs;
	int opened = 0;

	while (hot_now() < end) {
		for (int i = 0; i < n; i++) {
			int fd = open(fifos[i], O_WRONLY | O_NONBLOCK | O_CLOEXEC);
			struct stat st;

			/* Only a pipe: a path may be a regular file for a while. */
			if (fd >= 0 && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
				printf("fault-maps: %s was opened\n", fifos[i]);
				fflush(stdout);
				opened = 1;
			}
			if (fd >= 0)
				close(fd);
		}
		usleep(2000);
	}
	return opened;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "swap"))
		return do_swap(argv[2], argv[3], hot_seconds(argc, argv, 4, 1));
	if (argc >= 4 && !strcmp(argv[1], "watch"))
		return do_watch(hot_seconds(argc, argv, 2, 1), argv + 3, argc - 3);
	fprintf(stderr, "usage: fault-maps swap CODE LINK|fifo SECONDS\n"
			"       fault-maps watch SECONDS FIFO...\n");
	return 2;
}
