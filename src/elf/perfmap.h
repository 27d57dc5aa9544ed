/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfmap.h - the perf map a JIT runtime writes for its code
 * (/tmp/perf-PID.map: "START SIZE NAME" lines, hex), read into a symbol
 * table; beside ksyms.h, the kernel's.
 */
#ifndef PERFMINI_PERFMAP_H
#define PERFMINI_PERFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "elf/symtab.h"

/*
 * How much of a perf map is read: a runtime's map is a few megabytes; a
 * file that grows without end (or was made to) is not read into memory
 * whole.
 */
#define PERFMAP_MAX_BYTES (256u << 20)

/*
 * The longest line kept: JIT names with signatures and URLs run to a few
 * kilobytes. A longer line is skipped, read a byte at a time and never
 * held, so that a map without newlines does not make the reader grow.
 */
#define PERFMAP_MAX_LINE (64u << 10)

/*
 * Reads a perf map ("START SIZE NAME" lines, hex) into t, its first
 * max_bytes at most (the lines that end within them; a last line without
 * a newline counts when it ends the file), and finishes t. Lines longer
 * than PERFMAP_MAX_LINE are skipped. Memory stays within that of the
 * symbols read whatever the file holds. Returns the number of symbols.
 */
int perfmap_parse(FILE *f, struct symtab *t, size_t max_bytes);

/*
 * One line of a perf map, without its newline: its code's start and
 * size, and its name (in line). false for a line that says none.
 */
bool perfmap_line(const char *line, uint64_t *start, uint64_t *size, const char **name);

/*
 * The line of the perf map open at fd that starts at byte off (read with
 * pread into buf, size bytes, at most PERFMAP_MAX_LINE + 1 worth
 * having): as perfmap_line. Returns 0, -ENOENT when there is no whole
 * line there that names code, or -errno.
 */
int perfmap_line_at(int fd, uint64_t off, char *buf, size_t size, uint64_t *start, uint64_t *len,
		    const char **name);

#endif
