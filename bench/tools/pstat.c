/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pstat - run a command and note when it ended and, optionally, what it
 * alone used (its peak resident set and CPU time, without its children's)
 * or what its whole process tree used (CPU time).
 *
 * usage: pstat [-o FILE] [-m] [-t] -- COMMAND [ARG...]
 *
 * Appends one line to FILE (default: standard error):
 *   start=SECONDS end=SECONDS wall=SECONDS status=N [hwm_kb=N cpu=SECONDS]
 *   [tree_cpu=SECONDS]
 * start and end are CLOCK_MONOTONIC, comparable across processes, so a
 * pstat around a recorder and another around its target give the time
 * from the target's exit to the recorder's exit.
 *
 * /usr/bin/time cannot give a recorder's own peak memory: wait4() folds
 * the largest descendant's into it, and the target (xz -9: 700 MB) is the
 * largest. With -m, pstat traces the command (PTRACE_O_TRACEEXIT only; its
 * children are not traced) and reads VmHWM and utime+stime from /proc at
 * the exit stop, when the process is about to exit but still has its
 * memory. Signals are passed on unchanged. Exit status: the command's.
 *
 * With -t, pstat makes itself a child subreaper (PR_SET_CHILD_SUBREAPER)
 * and, once the command has ended, waits for every descendant left, then
 * reports tree_cpu: user + system time of the command and of every process
 * it started, at any depth. wait4() alone misses the helpers a parent never
 * waits for (perf script leaves an addr2line running when it exits); as
 * orphans they come to pstat, which reaps them, so their time is counted.
 * end and wall are still the command's own exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long read_hwm_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static double read_cpu(pid_t pid)
{
	char path[64], buf[4096], *p;
	unsigned long utime, stime;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* comm may hold spaces */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime,
			 &stime) != 2)
		return -1;
	return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

/* User + system time of every descendant reaped so far, in seconds. */
static double reaped_cpu(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru) < 0)
		return -1;
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

/* Waits for every descendant left (orphans come to a subreaper). */
static void reap_all(void)
{
	for (;;) {
		if (waitpid(-1, NULL, 0) < 0 && errno != EINTR)
			return; /* ECHILD: none left */
	}
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	int trace = 0, tree = 0, c, status, code;
	long hwm = -1;
	double cpu = -1, tree_cpu = -1, start, end;
	pid_t pid;
	FILE *f;

	while ((c = getopt(argc, argv, "+o:mt")) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'm':
			trace = 1;
			break;
		case 't':
			tree = 1;
			break;
		default:
			fprintf(stderr, "usage: pstat [-o FILE] [-m] [-t] -- COMMAND [ARG...]\n");
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: pstat [-o FILE] [-m] [-t] -- COMMAND [ARG...]\n");
		return 2;
	}
	if (tree && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		perror("pstat: PR_SET_CHILD_SUBREAPER");
		return 127;
	}
	start = mono();
	pid = fork();
	if (pid < 0) {
		perror("pstat: fork");
		return 127;
	}
	if (pid == 0) {
		if (trace && ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0) {
			perror("pstat: ptrace");
			_exit(127);
		}
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "pstat: cannot run '%s': %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	for (;;) {
		if (waitpid(pid, &status, 0) < 0) {
			if (errno == EINTR)
				continue;
			perror("pstat: waitpid");
			return 127;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		if (!WIFSTOPPED(status))
			continue;
		if (WSTOPSIG(status) == SIGTRAP && (status >> 16) == PTRACE_EVENT_EXIT) {
			hwm = read_hwm_kb(pid);
			cpu = read_cpu(pid);
			ptrace(PTRACE_CONT, pid, NULL, NULL);
		} else if (WSTOPSIG(status) == SIGTRAP && hwm < 0 && cpu < 0 &&
			   (status >> 16) == 0 && trace == 1) {
			/* The stop after the traced exec: ask for the exit event. */
			ptrace(PTRACE_SETOPTIONS, pid, NULL,
			       (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL));
			trace = 2;
			ptrace(PTRACE_CONT, pid, NULL, NULL);
		} else {
			ptrace(PTRACE_CONT, pid, NULL, (void *)(long)WSTOPSIG(status));
		}
	}
	end = mono();
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (tree) {
		reap_all();
		tree_cpu = reaped_cpu();
	}
	f = out ? fopen(out, "a") : stderr;
	if (!f) {
		perror("pstat: output");
		return code;
	}
	fprintf(f, "start=%.6f end=%.6f wall=%.6f status=%d", start, end, end - start, code);
	if (hwm >= 0 || cpu >= 0)
		fprintf(f, " hwm_kb=%ld cpu=%.2f", hwm, cpu);
	if (tree_cpu >= 0)
		fprintf(f, " tree_cpu=%.4f", tree_cpu);
	fputc('\n', f);
	if (out)
		fclose(f);
	return code;
}
