/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source.c - the source files --annotate shows; see source-int.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
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

/* Whether fd is a file of the kernel's making (/proc, /sys...): no source of anyone's. */
static bool pseudo_file(int fd)
{
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return true;
	switch ((unsigned long)sf.f_type) {
	case PROC_SUPER_MAGIC:
	case SYSFS_MAGIC:
	case DEBUGFS_MAGIC:
	case TRACEFS_MAGIC:
	case SECURITYFS_MAGIC:
	case CGROUP_SUPER_MAGIC:
	case CGROUP2_SUPER_MAGIC:
	case BPF_FS_MAGIC:
		return true;
	default:
		return false;
	}
}

/*
 * The regular file at path (under dirfd, kept beneath it by resolve),
 * opened for reading when not too large and not the kernel's; -1 else.
 */
static int open_source(int dirfd, const char *path, uint64_t resolve)
{
	struct stat st;
	int fd = open_regular(dirfd, path, resolve | RESOLVE_NO_MAGICLINKS, &st);

	if (fd >= 0 && (st.st_size > MAX_SOURCE || pseudo_file(fd))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The file named path: as recorded when by_path (the module's debug
 * information may be trusted with it), else, or when not there, under
 * each --source-dir, never outside it: the whole path below it, then the
 * path less its leading directories one by one.
 */
static int find_source(const struct report_opts *o, const char *path, bool by_path)
{
	int fd = by_path ? open_source(AT_FDCWD, path, 0) : -1;

	for (size_t i = 0; fd < 0 && i < o->nsource_dirs; i++) {
		int dir = open(o->source_dirs[i], O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (dir < 0)
			continue;
		for (const char *tail = path; fd < 0 && tail; tail = strchr(tail, '/')) {
			while (*tail == '/')
				tail++;
			if (!*tail)
				break;
			/* The kernel keeps the lookup inside: no "..", no link, leads out. */
			fd = open_source(dir, tail, RESOLVE_BENEATH);
		}
		close(dir);
	}
	return fd;
}

bool srcfiles_may_read(const struct srcfiles *a, uint32_t owner)
{
	uid_t me = geteuid();

	return a->o->own_sources && owner != PM_OWNER_UNKNOWN && (owner == me || owner == 0);
}

/* fd's bytes into f->text, split into lines; false when reading failed. */
static bool read_lines(int fd, struct srcfile *f)
{
	size_t len, lcap = 0;

	if (read_whole(fd, &f->text, &len) < 0)
		return false;
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

struct srcfile *srcfiles_get(struct srcfiles *a, const char *path, bool by_path)
{
	struct srcfile *f;
	int fd;

	for (size_t i = 0; i < a->nfiles; i++)
		if (a->files[i]->by_path == by_path && !strcmp(a->files[i]->path, path))
			return a->files[i];
	a->files = xrealloc(a->files, (a->nfiles + 1) * sizeof(*a->files));
	f = a->files[a->nfiles++] = xcalloc(1, sizeof(*f));
	f->path = xstrdup(path);
	f->by_path = by_path;
	if (*path && (fd = find_source(a->o, path, by_path)) >= 0) {
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
