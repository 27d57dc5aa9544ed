/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * module.c - module identity and pinning; see module.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "model/module.h"
#include "util/alloc.h"
#include "util/hash.h"
#include "util/io.h"

void module_set_init(struct module_set *s)
{
	memset(s, 0, sizeof(*s));
	hmap_init(&s->index);
	hmap_init(&s->latest);
}

static void module_free(struct module *m)
{
	if (!m)
		return;
	if (m->fd >= 0)
		close(m->fd);
	free(m->path);
	free(m);
}

void module_set_release(struct module_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		module_free(s->mods[i]);
	free(s->mods);
	free(s->pin_order);
	free(s->idle);
	free(s->free_ids);
	free(s->reused);
	hmap_release(&s->index);
	hmap_release(&s->latest);
	memset(s, 0, sizeof(*s));
}

enum module_kind module_kind_of(const char *path, uint64_t ino)
{
	if (!strcmp(path, "[vdso]") || !strcmp(path, "[vsyscall]"))
		return MODULE_VDSO;
	if (ino == 0 || path[0] != '/')
		return MODULE_ANON;
	return MODULE_FILE;
}

static bool same_key(const struct module *m, const struct module_key *k)
{
	if (m->kind == MODULE_PERFMAP)
		return false; /* found by module_set_perfmap only */
	if (m->ino || k->ino)
		return m->ino == k->ino && m->maj == k->maj && m->min == k->min &&
		       (m->gen == k->gen || !m->gen || !k->gen);
	return strcmp(m->path, k->path) == 0;
}

/* hmap_intern's comparisons: a module of set s with key k, a perf map of pid. */
struct set_key {
	const struct module_set *s;
	const struct module_key *k;
};

static bool same_module(uint64_t val, const void *arg)
{
	const struct set_key *sk = arg;

	return same_key(sk->s->mods[val], sk->k);
}

struct perfmap_key {
	const struct module_set *s;
	uint32_t pid;
};

static bool same_perfmap(uint64_t val, const void *arg)
{
	const struct perfmap_key *pk = arg;
	const struct module *m = pk->s->mods[val];

	return m->kind == MODULE_PERFMAP && m->pid == pk->pid;
}

/*
 * Where a module is filed in its set's index: by device, inode and
 * generation gen (0: not known), or by path without an inode. The
 * generation keeps apart the files that take one inode number in turn: a
 * filesystem gives a deleted program's number to the next file written
 * (ext4 at once), and a storm of new programs would otherwise file every
 * one under one hash, each lookup going through all those before.
 */
static uint64_t key_hash(const struct module_key *k, uint64_t gen)
{
	uint64_t h;

	if (!k->ino)
		return hash_bytes(k->path, strlen(k->path));
	h = hash_u64(k->ino ^ hash_u64((uint64_t)k->maj << 32 | k->min));
	return gen ? hash_u64(h ^ gen) : h;
}

/*
 * Of the modules met with a generation and k's device and inode, latest
 * first: the one of k's path, else the latest; into *id.
 */
static bool find_any_generation(const struct module_set *s, const struct module_key *k,
				uint32_t *id)
{
	const struct hmap_slot *slot = hmap_find(&s->latest, key_hash(k, 0));
	bool found = false;

	for (uint32_t i = slot ? (uint32_t)slot->val + 1 : 0; i;
	     i = s->mods[i - 1]->prev_same_ino) {
		const struct module *m = s->mods[i - 1];

		if (!same_key(m, k))
			continue;
		if (!found)
			*id = m->id;
		found = true;
		if (!strcmp(m->path, k->path)) {
			*id = m->id;
			break;
		}
	}
	return found;
}

/*
 * The module already made for sk's key, into *id: the one of its
 * generation, else one met without a generation (same_key takes either
 * for the other); a key without one takes one met with a generation
 * (find_any_generation).
 */
static bool find_module(const struct module_set *s, const struct set_key *sk, uint32_t *id)
{
	const struct module_key *k = sk->k;
	const struct hmap_slot *slot = NULL;

	if (k->ino && k->gen)
		slot = hmap_seek(&s->index, key_hash(k, k->gen), same_module, sk);
	if (!slot)
		slot = hmap_seek(&s->index, key_hash(k, 0), same_module, sk);
	if (slot) {
		*id = (uint32_t)slot->val;
		return true;
	}
	return k->ino && !k->gen && find_any_generation(s, k, id);
}

/* Device and inode as the mapping named them. */
static bool same_file(const struct stat *st, const struct module_key *k)
{
	return st->st_ino == k->ino && major(st->st_dev) == k->maj && minor(st->st_dev) == k->min;
}

/*
 * Whether the file open at fd (st its status) is the one k names, by its
 * inode: the device may differ without the file differing (btrfs gives
 * each subvolume a device of its own, the kernel's records name the file
 * system's). On an overlay file system the records name the file beneath,
 * whose inode differs from the overlay's: there the link of
 * /proc/PID/map_files, which the kernel keeps to the mapped file itself,
 * is trusted.
 */
static bool same_mapped_file(int fd, const struct stat *st, const struct module_key *k)
{
	struct statfs sf;

	if (!k->ino || st->st_ino == k->ino)
		return true;
	return fstatfs(fd, &sf) == 0 && sf.f_type == OVERLAYFS_SUPER_MAGIC;
}

/* The root directory of pid, for open_regular; -1 if the process is gone. */
static int open_root(pid_t pid)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "/proc/%d/root", (int)pid);
	return open(buf, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/*
 * Opens the file behind the mapping: through the mapping itself, else by
 * its path inside the process's root, else (the process is gone) by its
 * path here; by path only when device and inode are those of the mapping.
 * -1 if it is gone or unreachable.
 */
static int pin(const struct module_key *k, pid_t pid, uint64_t start, uint64_t end)
{
	char buf[96];
	struct stat st;
	int fd, root;

	if (pid > 0) {
		snprintf(buf, sizeof(buf), "/proc/%d/map_files/%llx-%llx", (int)pid,
			 (unsigned long long)start, (unsigned long long)end);
		/* Not O_NOFOLLOW: the entry is a link to the mapped file itself. */
		fd = open(buf, O_PATH | O_CLOEXEC);
		if (fd >= 0) {
			int rd = -1;

			/*
			 * The mapping there now may be another file's (an exec or
			 * a dlopen since the record was written): never trusted
			 * unless it is the file the record names.
			 */
			if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
			    same_mapped_file(fd, &st, k)) {
				snprintf(buf, sizeof(buf), "/proc/self/fd/%d", fd);
				rd = open(buf, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
			}
			close(fd);
			if (rd >= 0)
				return rd;
		}
		root = open_root(pid);
		if (root >= 0) {
			fd = open_regular(root, k->path, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
					  &st);
			close(root);
			if (fd >= 0 && same_file(&st, k))
				return fd;
			if (fd >= 0)
				close(fd);
			return -1; /* alive, and this file is not in its root */
		}
	}
	fd = open_regular(AT_FDCWD, k->path, RESOLVE_NO_MAGICLINKS, &st);
	if (fd >= 0 && (same_file(&st, k) || (pid <= 0 && !k->ino)))
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

static struct module *add_module(struct module_set *s, struct hmap_slot *slot,
				 const struct module_key *k)
{
	struct module *m;

	if (s->nfree) {
		/* An id given back: its struct made anew, its spells idle counted on. */
		uint32_t id = s->free_ids[--s->nfree], idle_gen;

		m = s->mods[id];
		idle_gen = m->idle_gen;
		free(m->path);
		memset(m, 0, sizeof(*m));
		m->id = id;
		m->idle_gen = idle_gen + 1;
		xgrow(&s->reused, &s->reused_cap, s->nreused + 1, sizeof(*s->reused));
		s->reused[s->nreused++] = id;
	} else {
		m = xcalloc(1, sizeof(*m));
		m->id = (uint32_t)s->n;
		xgrow(&s->mods, &s->cap, s->n + 1, sizeof(*s->mods));
		s->mods[s->n++] = m;
	}
	m->path = xstrdup(k->path);
	m->maj = k->maj;
	m->min = k->min;
	m->ino = k->ino;
	m->gen = k->gen;
	m->kind = module_kind_of(k->path, k->ino);
	m->fd = -1;
	m->uid = MODULE_NO_UID;
	m->set = s;
	s->made++;
	slot->val = m->id;
	return m;
}

void module_set_budget(struct module_set *s, size_t max_open)
{
	s->pin_budget = max_open;
}

/* Closes the file of the oldest module pinned and not used, if any. */
static void let_one_go(struct module_set *s)
{
	while (s->pin_next < s->npin_order) {
		struct module *m = s->mods[s->pin_order[s->pin_next++]];

		if (m->used || m->fd < 0)
			continue;
		close(m->fd);
		m->fd = -1;
		m->unpinned = true;
		s->pinned--;
		return;
	}
}

/* The owner of m's file, once it is open. */
static void note_owner(struct module *m)
{
	struct stat st;

	if (m->uid == MODULE_NO_UID && m->fd >= 0 && fstat(m->fd, &st) == 0)
		m->uid = (uint32_t)st.st_uid;
}

/* m's file is open: counted, and others let go past the budget. */
static void note_pinned(struct module_set *s, struct module *m)
{
	note_owner(m);
	s->pinned++;
	/* The ids let go already, dropped once they are half of the order. */
	if (s->pin_next > 64 && s->pin_next * 2 > s->npin_order) {
		memmove(s->pin_order, s->pin_order + s->pin_next,
			(s->npin_order - s->pin_next) * sizeof(*s->pin_order));
		s->npin_order -= s->pin_next;
		s->pin_next = 0;
	}
	xgrow(&s->pin_order, &s->pin_order_cap, s->npin_order + 1, sizeof(*s->pin_order));
	s->pin_order[s->npin_order++] = m->id;
	if (s->pin_budget && s->pinned > s->pin_budget)
		let_one_go(s);
}

int module_use(struct module_set *s, struct module *m)
{
	m->touched = true;
	if (m->used)
		return m->fd;
	m->used = true;
	if (m->unpinned) {
		struct module_key k = {m->path, m->maj, m->min, m->ino, m->gen};

		m->unpinned = false;
		m->fd = pin(&k, (pid_t)m->seen_pid, m->seen_start, m->seen_end);
		if (m->fd >= 0) {
			note_owner(m);
			s->pinned++;
		} else if (out_of_descriptors(errno))
			m->pin_error = errno;
	}
	return m->fd;
}

struct module *module_set_get(struct module_set *s, const struct module_key *k, pid_t pid,
			      uint64_t start, uint64_t end)
{
	struct set_key sk = {s, k};
	struct hmap_slot *slot;
	struct module *m;
	uint32_t id;
	bool added;

	if (find_module(s, &sk, &id)) {
		m = s->mods[id];
		/* Let go since no process mapped it: pinned again through this mapping. */
		if (m->retired && m->fd < 0 && pid > 0) {
			m->retired = false;
			m->seen_pid = (uint32_t)pid;
			m->seen_start = start;
			m->seen_end = end;
			m->fd = pin(k, pid, start, end);
			if (m->fd >= 0) {
				m->unpinned = false;
				s->pinned++;
			}
		}
		return m;
	}
	slot = hmap_intern(&s->index, key_hash(k, k->gen), same_module, &sk, &added);
	m = add_module(s, slot, k);
	if (k->ino && k->gen) {
		slot = hmap_insert(&s->latest, key_hash(k, 0), &added);
		m->prev_same_ino = added ? 0 : (uint32_t)slot->val + 1;
		if (!added)
			s->mods[slot->val]->next_same_ino = m->id + 1;
		slot->val = m->id;
	}
	if (m->kind == MODULE_FILE) {
		errno = 0;
		m->seen_pid = pid > 0 ? (uint32_t)pid : 0;
		m->seen_start = start;
		m->seen_end = end;
		m->fd = pin(k, pid, start, end);
		if (m->fd >= 0)
			note_pinned(s, m);
		else if (out_of_descriptors(errno))
			m->pin_error = errno;
	}
	return m;
}

struct module *module_set_kernel(struct module_set *s)
{
	struct module_key k = {.path = "[kernel.kallsyms]"};
	struct module *m = module_set_get(s, &k, 0, 0, 0);

	m->kind = MODULE_KERNEL;
	return m;
}

int perfmap_nspid_parse(FILE *f, uint32_t *nspid)
{
	char line[512];

	while (fgets(line, sizeof(line), f)) {
		unsigned long long v, last = 0;
		char *p = line + 6, *end;

		if (strncmp(line, "NSpid:", 6) != 0)
			continue;
		/* The last field is the pid in the process's own namespace. */
		for (;; p = end) {
			errno = 0;
			v = strtoull(p, &end, 10);
			if (end == p || errno)
				break;
			last = v;
		}
		if (last == 0 || last > UINT32_MAX)
			return -EINVAL;
		*nspid = (uint32_t)last;
		return 0;
	}
	return -ENOENT;
}

/* The pid that process pid knows itself by (its own PID namespace's). */
static uint32_t namespaced_pid(uint32_t pid)
{
	char path[64];
	uint32_t ns = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	f = fopen(path, "re");
	if (!f)
		return pid;
	if (perfmap_nspid_parse(f, &ns) < 0)
		ns = pid; /* before Linux 4.1: no NSpid, no namespaces to mind */
	fclose(f);
	return ns;
}

#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000 /* Linux 5.8 */
#endif

/* Whether the file open at fd is the root of a mount (a file bind-mounted there). */
static bool is_mount_root(int fd)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) != 0)
		return false;
	return (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	       (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

/*
 * Opens the perf map of m's process inside its root (links resolved there,
 * none at the end), only a regular file owned by the process's user or by
 * root, with one name (a hard link to another file is not its map) and
 * not mounted there: a user may bind-mount, in a namespace of its own, a
 * file only root can read over its map, which root would then read.
 */
static int open_perfmap(uint32_t pid, const char *map)
{
	char path[64];
	struct stat st, owner;
	int fd, root;

	snprintf(path, sizeof(path), "/proc/%u", pid);
	if (stat(path, &owner) < 0)
		return -1;
	root = open_root((pid_t)pid);
	if (root < 0)
		return -1;
	fd = open_regular(root, map, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS, &st);
	close(root);
	if (fd >= 0 && ((st.st_uid != 0 && st.st_uid != owner.st_uid) || st.st_nlink != 1 ||
			is_mount_root(fd))) {
		close(fd);
		errno = EPERM; /* there, but refused: said as such (REASON_PERFMAP_REFUSED) */
		return -1;
	}
	return fd;
}

struct module *module_set_perfmap(struct module_set *s, uint32_t pid, bool live)
{
	char key_path[64], path[64];
	struct module_key k = {.path = key_path};
	struct perfmap_key pk = {s, pid};
	struct hmap_slot *slot;
	struct module *m;
	bool added;

	/* Hashed by the host pid; the path is the one the process writes. */
	snprintf(key_path, sizeof(key_path), "perf-map:%u", pid);
	slot = hmap_intern(&s->index, key_hash(&k, 0), same_perfmap, &pk, &added);
	if (!added)
		return s->mods[slot->val];
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", live ? namespaced_pid(pid) : pid);
	k.path = path;
	m = add_module(s, slot, &k);
	m->kind = MODULE_PERFMAP;
	m->pid = pid;
	return m;
}

int module_perfmap_probe(uint32_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/tmp/perf-%u.map", namespaced_pid(pid));
	return open_perfmap(pid, path);
}

int module_perfmap_open(struct module *m)
{
	if (m->fd >= 0)
		return 0;
	errno = 0;
	m->fd = open_perfmap(m->pid, m->path);
	if (m->fd < 0 && (out_of_descriptors(errno) || errno == EPERM))
		m->pin_error = errno;
	return m->fd >= 0 ? 0 : -ENOENT;
}

int module_vdso_copy(unsigned char **bytes, size_t *len)
{
	unsigned long long start = 0, end = 0;
	char line[512];
	FILE *f;

	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &start, &end) == 2)
			break;
	fclose(f);
	if (!start || end <= start || end - start > (64u << 20))
		return -ENOENT;
	*len = end - start;
	*bytes = xmalloc(*len);
	memcpy(*bytes, (const void *)(uintptr_t)start, *len);
	return 0;
}

void module_mapped(struct module *m, int delta)
{
	struct module_set *s = m->set;

	m->nmaps = (uint32_t)((int64_t)m->nmaps + delta);
	if (m->nmaps)
		return;
	m->idle_gen++;
	if (m->noted_idle || !s)
		return;
	m->noted_idle = true;
	xgrow(&s->idle, &s->idle_cap, s->nidle + 1, sizeof(*s->idle));
	s->idle[s->nidle++] = m->id;
}

size_t module_set_take_idle(struct module_set *s, uint32_t **ids)
{
	size_t n = 0;

	*ids = s->nidle ? xmalloc(s->nidle * sizeof(**ids)) : NULL;
	for (size_t i = 0; i < s->nidle; i++) {
		struct module *m = s->mods[s->idle[i]];

		m->noted_idle = false;
		if (!m->nmaps)
			(*ids)[n++] = m->id;
	}
	s->nidle = 0;
	return n;
}

/*
 * Removes the entry of value id from an index that interns under hash
 * (hmap_intern: keys hash, hash_u64(hash), ..., until one is unused): the
 * chain's last entry takes its place, so that none after it is cut off.
 */
static void unintern(struct hmap *h, uint64_t hash, uint64_t id)
{
	struct hmap_slot *at = NULL, *s;
	uint64_t last = hash;

	for (uint64_t key = hash; (s = hmap_find(h, key)); key = hash_u64(key)) {
		if (s->val == id)
			at = s;
		last = key;
	}
	if (!at)
		return;
	at->val = hmap_find(h, last)->val;
	hmap_remove(h, last, NULL);
}

bool module_set_unlist(struct module_set *s, struct module *m)
{
	struct module_key k = {m->path, m->maj, m->min, m->ino, m->gen};

	if (m->unlisted)
		return true;
	if (m->kind != MODULE_FILE || !m->retired || m->free || m->nmaps || m->fd >= 0 ||
	    m->noted_idle)
		return false;
	unintern(&s->index, key_hash(&k, m->gen), m->id);
	if (m->ino && m->gen) {
		/* Out of the chain of its inode's generations. */
		if (m->next_same_ino)
			s->mods[m->next_same_ino - 1]->prev_same_ino = m->prev_same_ino;
		else if (m->prev_same_ino)
			hmap_insert(&s->latest, key_hash(&k, 0), NULL)->val = m->prev_same_ino - 1;
		else
			hmap_remove(&s->latest, key_hash(&k, 0), NULL);
		if (m->prev_same_ino)
			s->mods[m->prev_same_ino - 1]->next_same_ino = m->next_same_ino;
	}
	m->prev_same_ino = m->next_same_ino = 0;
	m->unlisted = true;
	return true;
}

bool module_set_recycle(struct module_set *s, struct module *m)
{
	if (m->free || m->touched || !module_set_unlist(s, m))
		return false;
	m->free = true;
	xgrow(&s->free_ids, &s->free_cap, s->nfree + 1, sizeof(*s->free_ids));
	s->free_ids[s->nfree++] = m->id;
	return true;
}

bool module_unpin(struct module_set *s, struct module *m)
{
	if (m->kind != MODULE_FILE)
		return false;
	/* Let go, its file open or not (gone before it could be opened). */
	m->used = false;
	m->retired = true;
	if (m->fd < 0)
		return false;
	close(m->fd);
	m->fd = -1;
	m->unpinned = true;
	s->pinned--;
	return true;
}
