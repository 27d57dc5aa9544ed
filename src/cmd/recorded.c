/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * recorded.c - a recording's files found again by report; see recorded.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cmd/recorded.h"
#include "util/alloc.h"
#include "util/io.h"

struct module *recorded_open(struct module_set *mods, const char *path, const char *build_id,
			     uint32_t owner, struct sbuf *why)
{
	struct module_key k = {.path = path};
	struct module *m;
	struct stat st;

	if (stat(path, &st) < 0) {
		sbuf_addf(why, "cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	if (owner != geteuid() && owner != 0 && !*build_id) {
		sbuf_addf(why, "%s was not yours or root's, and has no build-id to check it by",
			  path);
		return NULL;
	}
	if (owner != geteuid() && owner != 0 && owner != PM_OWNER_UNKNOWN && st.st_uid != owner) {
		sbuf_addf(why, "%s belonged to uid %u when recorded, and to uid %u now", path,
			  owner, (unsigned)st.st_uid);
		return NULL;
	}
	k.maj = major(st.st_dev);
	k.min = minor(st.st_dev);
	k.ino = st.st_ino;
	m = module_set_get(mods, &k, 0, 0, 0);
	if (m->fd < 0) {
		sbuf_addf(why, "cannot open %s", path);
		return NULL;
	}
	return m;
}

bool recorded_same_build(Elf *e, const char *build_id)
{
	uint8_t id[BUILD_ID_MAX];
	char hex[2 * BUILD_ID_MAX + 1];
	size_t n = elf_read_build_id(e, id);

	if (!*build_id)
		return true;
	build_id_hex(id, n, hex);
	return n && !strcmp(hex, build_id);
}

char *recorded_debug_path(const char *dir, const char *build_id)
{
	size_t n = strlen(build_id);

	if (n < 2 || n > 2 * BUILD_ID_MAX || strspn(build_id, "0123456789abcdef") != n)
		return NULL;
	return xasprintf("%s/.build-id/%.2s/%s.debug", dir, build_id, build_id + 2);
}

/* Whether the file open at fd has build-id build_id. */
static bool fd_has_build(int fd, const char *build_id)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	bool same = e && *build_id && recorded_same_build(e, build_id);

	if (e)
		elf_end(e);
	return same;
}

struct module *recorded_open_debug(struct module_set *mods, const char *const *dirs, size_t ndirs,
				   const char *build_id)
{
	for (size_t i = 0; i < ndirs; i++) {
		char *path = recorded_debug_path(dirs[i], build_id);
		struct module_key k = {.path = path};
		struct module *m = NULL;
		struct stat st;
		int fd;

		if (!path)
			return NULL;
		fd = open_regular(AT_FDCWD, path, RESOLVE_NO_MAGICLINKS, &st);
		if (fd >= 0 && fd_has_build(fd, build_id)) {
			k.maj = major(st.st_dev);
			k.min = minor(st.st_dev);
			k.ino = st.st_ino;
			/* Opened again by path: the same device and inode, or not at all. */
			m = module_set_get(mods, &k, 0, 0, 0);
		}
		if (fd >= 0)
			close(fd);
		free(path);
		if (m && m->fd >= 0)
			return m;
	}
	return NULL;
}
