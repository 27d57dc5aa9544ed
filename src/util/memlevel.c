/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * memlevel.c - the steps a recorder takes to stay within its memory
 * budget; see memlevel.h.
 */
#include "config.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "util/memlevel.h"

void memlevel_init(struct memlevel *m, uint64_t budget)
{
	*m = (struct memlevel){.budget = budget};
}

static enum mem_level set(struct memlevel *m, enum mem_level l, uint64_t now_ns)
{
	m->level = l;
	m->changed_ns = now_ns;
	m->entered[l]++;
	return l;
}

enum mem_level memlevel_update(struct memlevel *m, uint64_t bytes, uint64_t now_ns)
{
	uint64_t since = now_ns >= m->changed_ns ? now_ns - m->changed_ns : 0;

	if (bytes > m->peak)
		m->peak = bytes;
	if (!m->budget)
		return m->level;
	/* Three quarters of the budget: lines go at once. */
	if (m->level == MEM_FULL && bytes >= m->budget - m->budget / 4)
		return set(m, MEM_NO_LINES, now_ns);
	/* At the budget, once letting lines go had a moment to show: names go. */
	if (m->level == MEM_NO_LINES && bytes >= m->budget && since >= MEM_STEP_NS)
		return set(m, MEM_NO_NAMES, now_ns);
	/* Well under it for a while: one step back. */
	if (m->level != MEM_FULL && bytes < m->budget / 2 && since >= MEM_HOLD_NS)
		return set(m, m->level - 1, now_ns);
	return m->level;
}

uint64_t memlevel_read_anon(int *fd)
{
	char buf[256];
	uint64_t size, resident, shared;
	ssize_t n;

	if (*fd < 0 && (*fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = pread(*fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* size resident shared ...: pages; shared is RssFile + RssShmem. */
	if (sscanf(buf, "%" SCNu64 " %" SCNu64 " %" SCNu64, &size, &resident, &shared) != 3 ||
	    shared > resident)
		return 0;
	return (resident - shared) * (uint64_t)sysconf(_SC_PAGESIZE);
}

const char *memlevel_name(enum mem_level l)
{
	switch (l) {
	case MEM_FULL:
		return "full";
	case MEM_NO_LINES:
		return "no-lines";
	case MEM_NO_NAMES:
		return "no-names";
	}
	return "";
}
