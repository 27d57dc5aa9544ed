/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgroup.h - control groups by id, as samples carry them.
 *
 * PERF_SAMPLE_CGROUP gives each sample the id of its thread's cgroup in
 * the unified (v2) hierarchy; the id is the cgroup directory's kernfs
 * node, as name_to_handle_at gives it. Its path (from the hierarchy's
 * root, "/" for the root itself) comes from a walk of the cgroup2 mount
 * once the events are open, from PERF_RECORD_CGROUP for cgroups made
 * later, and from a walk again for an id neither gave (a cgroup made
 * where the events do not see it), at most once per second.
 *
 * Where the kernel has no PERF_SAMPLE_CGROUP, cgroup_of_pid reads a
 * process's cgroup from /proc instead.
 */
#ifndef PERFMINI_CGROUP_H
#define PERFMINI_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hmap.h"

struct cgroups {
	char *mount;	 /* the cgroup2 mount point; NULL when there is none */
	struct hmap ids; /* id -> index into paths + 1, or 0: not found by the last walk */
	char **paths;
	size_t npaths, paths_cap;
	uint64_t last_walk; /* monotonic ns */
	size_t walks;
};

/* Finds the cgroup2 mount (in /proc/self/mountinfo); walks nothing yet. */
void cgroups_init(struct cgroups *c);
void cgroups_release(struct cgroups *c);
/* Walks the whole hierarchy, adding every cgroup found. */
void cgroups_walk(struct cgroups *c);
/* Cgroup id is at path (PERF_RECORD_CGROUP). */
void cgroups_add(struct cgroups *c, uint64_t id, const char *path);
/*
 * The path of cgroup id, or NULL. An id not known sets off a walk, unless
 * the last was less than a second before now (monotonic ns).
 */
const char *cgroups_path(struct cgroups *c, uint64_t id, uint64_t now);

/*
 * The cgroup2 mount point in the text of a mountinfo file: a malloc'd
 * path with its octal escapes undone, or NULL.
 */
char *cgroup_mount_in(const char *mountinfo);
/*
 * The unified hierarchy's path in the text of a /proc/PID/cgroup file
 * (its "0::PATH" line), into buf; false when it has none.
 */
bool cgroup_line_in(const char *text, char *buf, size_t len);
/* The same from /proc/PID/cgroup itself. */
bool cgroup_of_pid(uint32_t pid, char *buf, size_t len);

#endif
