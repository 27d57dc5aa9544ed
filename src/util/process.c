/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * process.c - a process's state from /proc; see process.h.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "util/parse.h"
#include "util/process.h"

bool process_alive(uint32_t pid)
{
	char path[64], buf[512], state = 0;
	size_t n;
	FILE *f;
	char *rp;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "pid (comm) S ...": the comm may hold spaces and parentheses. */
	rp = strrchr(buf, ')');
	if (rp && rp[1] == ' ')
		state = rp[2];
	return state && state != 'Z' && state != 'X';
}

size_t process_each_task(uint32_t pid, void (*fn)(uint32_t tid, void *arg), void *arg)
{
	char path[64];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	if (!(d = opendir(path)))
		return 0;
	while ((de = readdir(d))) {
		uint64_t tid;

		if (parse_u64(de->d_name, &tid) || tid == 0 || tid > UINT32_MAX)
			continue;
		fn((uint32_t)tid, arg);
		n++;
	}
	closedir(d);
	return n;
}
