/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgroup.c - control groups by id; see cgroup.h.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/cgroup.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/io.h"

/* A walk goes no deeper than this, and stops after this many cgroups. */
#define WALK_DEPTH 32
#define WALK_MAX   100000
/* An unknown id sets off a walk at most this often. */
#define WALK_EVERY_NS 1000000000ULL

void cgroups_init(struct cgroups *c)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *text = NULL;
	size_t cap = 0;

	memset(c, 0, sizeof(*c));
	hmap_init(&c->ids);
	if (!f)
		return;
	/* The whole file as one string. */
	if (getdelim(&text, &cap, '\0', f) > 0)
		c->mount = cgroup_mount_in(text);
	free(text);
	fclose(f);
}

void cgroups_release(struct cgroups *c)
{
	for (size_t i = 0; i < c->npaths; i++)
		free(c->paths[i]);
	free(c->paths);
	free(c->mount);
	hmap_release(&c->ids);
	memset(c, 0, sizeof(*c));
}

void cgroups_add(struct cgroups *c, uint64_t id, const char *path)
{
	bool added;
	struct hmap_slot *s = hmap_insert(&c->ids, id, &added);

	if (!added && s->val && strcmp(c->paths[s->val - 1], path) == 0)
		return;
	xgrow(&c->paths, &c->paths_cap, c->npaths + 1, sizeof(*c->paths));
	c->paths[c->npaths++] = xstrdup(path);
	s->val = c->npaths;
}

/*
 * The id of the cgroup directory fd: its kernfs node id, which is what
 * file handles of kernfs hold (and the inode number on 64-bit targets).
 */
static bool dir_id(int fd, uint64_t *id)
{
	union {
		struct file_handle fh;
		char room[sizeof(struct file_handle) + 16];
	} h;
	struct stat st;
	int mount_id;

	h.fh.handle_bytes = 16;
	if (name_to_handle_at(fd, "", &h.fh, &mount_id, AT_EMPTY_PATH) == 0 &&
	    h.fh.handle_bytes == 8) {
		memcpy(id, h.fh.f_handle, 8);
		return true;
	}
	if (fstat(fd, &st) < 0)
		return false;
	*id = (uint64_t)st.st_ino;
	return true;
}

struct walk {
	struct cgroups *c;
	char path[4096];
	size_t found;
};

/* The cgroup at fd (a directory, which this closes), w->path its path, and those below it. */
static void walk_dir(struct walk *w, int fd, size_t len, int depth)
{
	struct dirent *e;
	uint64_t id;
	DIR *d;

	if (dir_id(fd, &id))
		cgroups_add(w->c, id, len ? w->path : "/");
	if (++w->found >= WALK_MAX || depth >= WALK_DEPTH || !(d = fdopendir(fd))) {
		close(fd);
		return;
	}
	while ((e = readdir(d)) && w->found < WALK_MAX) {
		size_t n = strlen(e->d_name);
		int sub;

		if (e->d_type != DT_DIR || e->d_name[0] == '.' || len + 1 + n >= sizeof(w->path))
			continue;
		sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		w->path[len] = '/';
		memcpy(w->path + len + 1, e->d_name, n + 1);
		walk_dir(w, sub, len + 1 + n, depth + 1);
		w->path[len] = '\0';
	}
	closedir(d);
}

void cgroups_walk(struct cgroups *c)
{
	struct walk w = {.c = c};
	int fd;

	c->walks++;
	if (!c->mount)
		return;
	fd = open(c->mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0)
		walk_dir(&w, fd, 0, 0);
}

const char *cgroups_path(struct cgroups *c, uint64_t id, uint64_t now)
{
	const struct hmap_slot *s = hmap_find(&c->ids, id);
	bool added;

	if (s && s->val)
		return c->paths[s->val - 1];
	if (!c->mount || (c->walks && now - c->last_walk < WALK_EVERY_NS))
		return NULL;
	c->last_walk = now;
	cgroups_walk(c);
	s = hmap_insert(&c->ids, id, &added);
	return s->val ? c->paths[s->val - 1] : NULL;
}

/* Copies the field at *p (up to a space) into out, its \ooo escapes undone; advances *p. */
static void take_field(const char **p, char *out, size_t len)
{
	const char *s = *p;
	size_t n = 0;

	while (*s && *s != ' ' && *s != '\n') {
		int ch = (unsigned char)*s++;

		if (ch == '\\' && s[0] >= '0' && s[0] <= '3' && s[1] >= '0' && s[1] <= '7' &&
		    s[2] >= '0' && s[2] <= '7') {
			ch = (s[0] - '0') * 64 + (s[1] - '0') * 8 + (s[2] - '0');
			s += 3;
		}
		if (n + 1 < len)
			out[n++] = (char)ch;
	}
	out[n] = '\0';
	while (*s == ' ')
		s++;
	*p = s;
}

char *cgroup_mount_in(const char *mountinfo)
{
	char field[4096], point[4096];

	for (const char *line = mountinfo; line && *line;) {
		const char *next = strchr(line, '\n'), *p = line, *dash;

		/* "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - TYPE SOURCE OPTIONS" */
		for (int i = 0; i < 4; i++)
			take_field(&p, field, sizeof(field));
		take_field(&p, point, sizeof(point));
		dash = strstr(p, " - ");
		if (dash && (!next || dash < next)) {
			p = dash + 3;
			take_field(&p, field, sizeof(field));
			if (strcmp(field, "cgroup2") == 0 && point[0] == '/')
				return xstrdup(point);
		}
		line = next ? next + 1 : NULL;
	}
	return NULL;
}

bool cgroup_line_in(const char *text, char *buf, size_t len)
{
	for (const char *line = text; line && *line;) {
		const char *next = strchr(line, '\n');
		size_t n = next ? (size_t)(next - line) : strlen(line);

		if (n > 3 && strncmp(line, "0::", 3) == 0 && n - 3 < len) {
			memcpy(buf, line + 3, n - 3);
			buf[n - 3] = '\0';
			return true;
		}
		line = next ? next + 1 : NULL;
	}
	return false;
}

bool cgroup_of_pid(uint32_t pid, char *buf, size_t len)
{
	char path[64], text[8192];

	snprintf(path, sizeof(path), "/proc/%u/cgroup", pid);
	return read_small(path, text, sizeof(text)) > 0 && cgroup_line_in(text, buf, len);
}
