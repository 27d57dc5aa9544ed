/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source.c - the source files --annotate shows; see source-int.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/source-int.h"
#include "util/alloc.h"
#include "util/io.h"
#include "util/utf8.h"

/* Source files larger than this are not read. */
#define MAX_SOURCE (16 << 20)

void srcfiles_init(struct srcfiles *a, const struct report_opts *o)
{
	memset(a, 0, sizeof(*a));
	a->o = o;
}

void srcfiles_release(struct srcfiles *a)
{
	for (size_t i = 0; i < a->nfiles; i++) {
		free(a->files[i]->path);
		free(a->files[i]->text);
		free(a->files[i]->starts);
		free(a->files[i]);
	}
	free(a->files);
	sbuf_release(&a->line);
}

/* The regular file at path, opened for reading when not too large; -1 else. */
static int open_source(const char *path)
{
	struct stat st;
	int fd = open_regular(AT_FDCWD, path, 0, &st);

	if (fd >= 0 && st.st_size > MAX_SOURCE) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The file named path, as recorded (unless the data file is another
 * user's), else under each --source-dir: the whole path below it, then
 * the path less its leading directories one by one.
 */
static int find_source(const struct report_opts *o, const char *path)
{
	struct sbuf b = SBUF_INIT;
	int fd = o->own_sources ? open_source(path) : -1;

	for (size_t i = 0; fd < 0 && i < o->nsource_dirs; i++) {
		for (const char *tail = path; fd < 0 && tail; tail = strchr(tail, '/')) {
			while (*tail == '/')
				tail++;
			if (!*tail)
				break;
			sbuf_reset(&b);
			sbuf_addf(&b, "%s/%s", o->source_dirs[i], tail);
			fd = open_source(b.buf);
		}
	}
	sbuf_release(&b);
	return fd;
}

/* fd's bytes into f->text, split into lines; false when reading failed. */
static bool read_lines(int fd, struct srcfile *f)
{
	size_t len = 0, cap = 0, lcap = 0;
	ssize_t got;

	do {
		xgrow(&f->text, &cap, len + 65536 + 1, 1);
		got = read(fd, f->text + len, cap - len - 1);
		if (got > 0)
			len += (size_t)got;
	} while (got > 0 || (got < 0 && errno == EINTR));
	if (got < 0) {
		free(f->text);
		f->text = NULL;
		return false;
	}
	f->text[len] = '\0';
	for (char *s = f->text; s < f->text + len;) {
		char *nl = memchr(s, '\n', (size_t)(f->text + len - s));

		xgrow(&f->starts, &lcap, f->nlines + 1, sizeof(*f->starts));
		f->starts[f->nlines++] = s;
		if (!nl)
			break;
		*nl = '\0';
		s = nl + 1;
	}
	return true;
}

struct srcfile *srcfiles_get(struct srcfiles *a, const char *path)
{
	struct srcfile *f;
	int fd;

	for (size_t i = 0; i < a->nfiles; i++)
		if (!strcmp(a->files[i]->path, path))
			return a->files[i];
	a->files = xrealloc(a->files, (a->nfiles + 1) * sizeof(*a->files));
	f = a->files[a->nfiles++] = xcalloc(1, sizeof(*f));
	f->path = xstrdup(path);
	if (*path && (fd = find_source(a->o, path)) >= 0) {
		read_lines(fd, f);
		close(fd);
	}
	return f;
}

const char *srcfile_line(struct srcfiles *a, struct srcfile *f, uint32_t n)
{
	struct sbuf raw = SBUF_INIT;
	size_t col = 0;
	const char *text;

	if (!f->text || n == 0 || n > f->nlines)
		return "";
	for (const char *s = f->starts[n - 1]; *s; s++) {
		if (*s == '\t') {
			do
				sbuf_adds(&raw, " ");
			while (++col % 8);
		} else if (*s != '\r') {
			sbuf_addn(&raw, s, 1);
			col += ((unsigned char)*s & 0xc0) != 0x80; /* a code point's first byte */
		}
	}
	text = printable(&a->line, raw.buf ? raw.buf : "");
	sbuf_release(&raw);
	return text;
}
