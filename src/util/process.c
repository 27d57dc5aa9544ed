/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * process.c - a process's state from /proc; see process.h.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

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
