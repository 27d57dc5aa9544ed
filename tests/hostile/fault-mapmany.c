/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fault-mapmany.c - maps many distinct files as code, then runs a command: a
 * process that leaves a recorder one module per file (as a user mapping
 * thousands of executables does), after which the command's own code
 * must still be named.
 *
 * usage: fault-mapmany DIR N COMMAND [ARGS...]
 *   creates N files of one page in DIR, maps each with PROT_EXEC (the
 *   mappings stay, the descriptors are closed), removes the files, then
 *   runs COMMAND in a child (whose CPU time starts at zero) and exits
 *   with its status.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char page[4096];
	long n;

	if (argc < 4 || (n = strtol(argv[2], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: fault-mapmany DIR N COMMAND [ARGS...]\n");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		char path[4096];
		int fd;

		snprintf(path, sizeof(path), "%s/m%ld", argv[1], i);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0700);
		if (fd < 0 || write(fd, page, sizeof(page)) != (ssize_t)sizeof(page) ||
		    mmap(NULL, sizeof(page), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) ==
			    MAP_FAILED) {
			perror(path);
			return 1;
		}
		close(fd);
		unlink(path);
	}
	pid_t child = fork();
	int status;

	if (child == 0) {
		execv(argv[3], argv + 3);
		perror(argv[3]);
		_exit(127);
	}
	if (child < 0 || waitpid(child, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
