/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tpcalls.c - known numbers of system calls, for tracepoints sampled as
 * events: "tpcalls write N" makes exactly N write(2) calls of one byte to
 * /dev/null from tp_write(); "tpcalls sleep N" sleeps N times for a
 * millisecond in tp_sleep(), each sleep a switch-out of the thread.
 *
 * Usage: tpcalls write|sleep N
 */
#include <fcntl.h>
#include <string.h>
#include <time.h>

#include "hot.h"

void tp_write(int fd, long n);
void tp_sleep(long n);

HOT void tp_write(int fd, long n)
{
	HOT_FRAME();
	for (long i = 0; i < n; i++)
		if (write(fd, "x", 1) != 1) {
			perror("write");
			exit(1);
		}
}

HOT void tp_sleep(long n)
{
	struct timespec ms = {0, 1000000};

	HOT_FRAME();
	for (long i = 0; i < n; i++)
		while (nanosleep(&ms, &ms) != 0)
			;
}

int main(int argc, char **argv)
{
	long n = argc == 3 ? strtol(argv[2], NULL, 10) : -1;
	int fd;

	if (n < 0 || (strcmp(argv[1], "write") && strcmp(argv[1], "sleep"))) {
		fprintf(stderr, "usage: tpcalls write|sleep N\n");
		return 2;
	}
	if (!strcmp(argv[1], "sleep")) {
		tp_sleep(n);
		return 0;
	}
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		perror("/dev/null");
		return 1;
	}
	tp_write(fd, n);
	return close(fd) != 0;
}
