/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report-late.h - naming late: the frames a recording left without a
 * name (its naming cut short or given up, a stripped binary) or without a
 * source line (no DWARF found then), named by report from the files of
 * the machine it runs on, found by their module's build-id: the module's
 * own file at the path it was recorded at, and its separate debug file
 * (DIR/.build-id/XX/REST.debug under --debug-dir's and /usr/lib/debug),
 * so that debug symbols installed after the recording still name it.
 * Files on this machine only: no debuginfod server is asked.
 */
#ifndef PERFMINI_REPORT_LATE_H
#define PERFMINI_REPORT_LATE_H

#include <stddef.h>

#include "store/profile.h"

/*
 * Names the frames of p left without a name or a line, where a file with
 * their module's build-id has them, with the debug directories dirs
 * searched first.
 */
void report_name_late(struct profile *p, const char *const *dirs, size_t ndirs);

#endif
