/*
 * module.c - module identity, pinning and loading; see module.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "module.h"
#include "util.h"

void module_set_init(struct module_set *s)
{
	memset(s, 0, sizeof(*s));
	hmap_init(&s->index);
}

static void module_free(struct module *m)
{
	if (!m)
		return;
	if (m->fd >= 0)
		close(m->fd);
	free(m->path);
	free(m->segs);
	symtab_release(&m->syms);
	free(m);
}

void module_set_release(struct module_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		module_free(s->mods[i]);
	free(s->mods);
	hmap_release(&s->index);
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
	if (m->ino || k->ino)
		return m->ino == k->ino && m->maj == k->maj && m->min == k->min;
	return strcmp(m->path, k->path) == 0;
}

static uint64_t key_hash(const struct module_key *k)
{
	if (k->ino)
		return hash_u64(k->ino ^ hash_u64((uint64_t)k->maj << 32 | k->min));
	return hash_bytes(k->path, strlen(k->path));
}

static bool fd_matches(int fd, const struct module_key *k)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_ino == k->ino &&
	       major(st.st_dev) == k->maj && minor(st.st_dev) == k->min;
}

/* Opens the file behind the mapping; -1 if it is gone or unreachable. */
static int pin(const struct module_key *k, pid_t pid, uint64_t start, uint64_t end)
{
	char buf[4096 + 64];
	int fd;

	if (pid > 0) {
		snprintf(buf, sizeof(buf), "/proc/%d/map_files/%llx-%llx", (int)pid,
			 (unsigned long long)start, (unsigned long long)end);
		fd = open(buf, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			return fd;
		snprintf(buf, sizeof(buf), "/proc/%d/root%s", (int)pid, k->path);
		fd = open(buf, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && fd_matches(fd, k))
			return fd;
		if (fd >= 0)
			close(fd);
	}
	fd = open(k->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && (fd_matches(fd, k) || (pid <= 0 && !k->ino)))
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

struct module *module_set_get(struct module_set *s, const struct module_key *k, pid_t pid,
			      uint64_t start, uint64_t end)
{
	struct hmap_slot *slot;
	struct module *m;
	uint64_t key;
	bool added;

	for (key = key_hash(k) | 1;; key = hash_u64(key) | 1) {
		slot = hmap_insert(&s->index, key, &added);
		if (added)
			break;
		if (same_key(s->mods[slot->val], k))
			return s->mods[slot->val];
	}
	m = xcalloc(1, sizeof(*m));
	m->id = (uint32_t)s->n;
	m->path = xstrdup(k->path);
	m->maj = k->maj;
	m->min = k->min;
	m->ino = k->ino;
	m->kind = module_kind_of(k->path, k->ino);
	m->fd = m->kind == MODULE_FILE ? pin(k, pid, start, end) : -1;
	symtab_init(&m->syms);
	xgrow(&s->mods, &s->cap, s->n + 1, sizeof(*s->mods));
	s->mods[s->n++] = m;
	slot->val = m->id;
	return m;
}

struct module *module_set_kernel(struct module_set *s)
{
	struct module_key k = {.path = "[kernel.kallsyms]"};
	struct module *m = module_set_get(s, &k, 0, 0, 0);

	m->kind = MODULE_KERNEL;
	return m;
}

static int load_kernel(struct module *m)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	int n;

	if (!f) {
		m->reason = "cannot read /proc/kallsyms";
		return -errno;
	}
	n = symtab_read_kallsyms(&m->syms, f);
	fclose(f);
	if (n <= 0 || m->syms.n == 0 || m->syms.syms[0].addr == 0) {
		m->reason = "kernel symbols hidden (kernel.kptr_restrict)";
		return -EPERM;
	}
	m->symsrc = ELF_SYMS_SYMTAB;
	return 0;
}

int module_load(struct module *m)
{
	Elf *e;
	int n, ret = 0;

	if (m->loaded)
		return m->reason ? -ENOENT : 0;
	m->loaded = true;
	switch (m->kind) {
	case MODULE_KERNEL:
		return load_kernel(m);
	case MODULE_ANON:
		m->reason = "anonymous executable memory (no file)";
		return -ENOENT;
	case MODULE_VDSO:
		m->reason = "vdso symbols not read";
		return -ENOENT;
	case MODULE_FILE:
		break;
	}
	if (m->fd < 0) {
		m->reason = "file gone or unreadable";
		return -ENOENT;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		m->reason = "not an ELF file";
		ret = -ENOEXEC;
		goto out;
	}
	n = elf_read_segments(e, &m->segs);
	if (n <= 0) {
		m->reason = "no loadable segments";
		ret = -ENOEXEC;
		goto out;
	}
	m->nsegs = (size_t)n;
	m->build_id_len = elf_read_build_id(e, m->build_id);
	m->symsrc = elf_read_symbols(e, &m->syms);
	if (m->symsrc <= 0) {
		m->reason = "stripped (no .symtab or .dynsym functions)";
		ret = -ENOENT;
	}
out:
	if (e)
		elf_end(e);
	return ret;
}
