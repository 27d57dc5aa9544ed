/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfmap.c - a perf map's lines into a symbol table; see perfmap.h.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "elf/perfmap.h"
#include "util/alloc.h"

/*
 * The next line of f into buf (without its newline, NUL-terminated), at
 * most size - 1 bytes of it. *used counts every byte read, and none is
 * read past limit. Returns the line's length; -1 when the line was longer
 * than buf (the rest of it is read and dropped, so that a line without
 * end costs time but no memory) or ran past limit; -2 at the end of f or
 * of limit.
 */
static long next_line(FILE *f, char *buf, size_t size, size_t *used, size_t limit)
{
	size_t n = 0;
	bool over = false;
	int c = EOF;

	while (*used < limit && (c = getc_unlocked(f)) != EOF) {
		(*used)++;
		if (c == '\n')
			break;
		if (n + 1 < size)
			buf[n++] = (char)c;
		else
			over = true;
	}
	buf[n] = '\0';
	if (c == '\n')
		return over ? -1 : (long)n;
	/* The end of f (a last line without newline counts) or of limit. */
	if (n == 0 && !over)
		return -2;
	return over || *used >= limit ? -1 : (long)n;
}

bool perfmap_line(const char *line, uint64_t *start, uint64_t *size, const char **name)
{
	const char *p = line;
	char *end;

	errno = 0;
	*start = strtoull(p, &end, 16);
	if (errno || end == p || *end != ' ')
		return false;
	p = end + 1;
	*size = strtoull(p, &end, 16);
	if (errno || end == p || *end != ' ' || *size == 0 || *start + *size < *start)
		return false;
	*name = end + 1;
	return **name != '\0';
}

int perfmap_parse(FILE *f, struct symtab *t, size_t max_bytes)
{
	char *line = xmalloc(PERFMAP_MAX_LINE + 1);
	size_t used = 0;
	long len;
	int n = 0;

	while ((len = next_line(f, line, PERFMAP_MAX_LINE + 1, &used, max_bytes)) != -2) {
		uint64_t start, size;
		const char *name;

		if (len < 0 || !perfmap_line(line, &start, &size, &name))
			continue;
		symtab_add(t, start, size, name, 1);
		n++;
	}
	free(line);
	symtab_finish(t);
	return n;
}

int perfmap_line_at(int fd, uint64_t off, char *buf, size_t size, uint64_t *start, uint64_t *len,
		    const char **name)
{
	ssize_t got;
	char *nl;

	if (size < 2 || off > PERFMAP_MAX_BYTES)
		return -EINVAL;
	do
		got = pread(fd, buf, size - 1, (off_t)off);
	while (got < 0 && errno == EINTR);
	if (got <= 0)
		return got < 0 ? -errno : -ENOENT;
	buf[got] = '\0';
	/* A whole line only: one the recorder took had its newline. */
	if (!(nl = memchr(buf, '\n', (size_t)got)))
		return -ENOENT;
	*nl = '\0';
	return perfmap_line(buf, start, len, name) ? 0 : -ENOENT;
}
