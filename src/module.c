/*
 * module.c - module identity, pinning and loading; see module.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "elfz.h"
#include "module.h"
#include "srcline.h"
#include "util.h"

/* libdwfl's own default: next to the file, in .debug/, under /usr/lib/debug. */
#define DEFAULT_DEBUGINFO_PATH "-:.debug:/usr/lib/debug"

int module_expand_fd(int fd, enum module_lines *why)
{
	struct elfz_info info;
	struct stat st;
	void *in, *out;
	int mfd, ret;

	if (fstat(fd, &st) < 0 || st.st_size <= 0)
		return fd;
	in = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (in == MAP_FAILED)
		return fd;
	ret = elfz_inspect(in, (size_t)st.st_size, &info);
	if (ret == 0 && info.unknown && why)
		*why = LINES_COMPRESSION;
	if (ret < 0 || info.zstd == 0) {
		/* Nothing libelf cannot read itself (or not ELF: libelf says so). */
		if (ret == -EFBIG && why)
			*why = LINES_EXPAND_FAILED;
		munmap(in, (size_t)st.st_size);
		return fd;
	}
	mfd = memfd_create("perfmini-debug", MFD_CLOEXEC);
	if (mfd < 0 || ftruncate(mfd, (off_t)info.out_size) < 0)
		goto fail;
	out = mmap(NULL, info.out_size, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (out == MAP_FAILED)
		goto fail;
	ret = elfz_expand(in, (size_t)st.st_size, out, info.out_size);
	munmap(out, info.out_size);
	if (ret < 0)
		goto fail;
	munmap(in, (size_t)st.st_size);
	close(fd);
	return mfd;
fail:
	if (why)
		*why = LINES_EXPAND_FAILED;
	if (mfd >= 0)
		close(mfd);
	munmap(in, (size_t)st.st_size);
	return fd;
}

/*
 * libdwfl's search for a separate debug file (build-id, .gnu_debuglink,
 * debuginfod), for the module that is the Dwfl_Module's user data
 * (dwfl_report sets it). libdwfl's search may keep the libelf handle it
 * opened to check a build-id in the module, which then reads the file as
 * found, whatever descriptor this returns. So when the file found has
 * zstd sections, its expanded copy is kept in m->zfd and the file itself
 * returned; module_dwfl_reload then reports the module again in a new
 * Dwfl, where this returns the copy without searching.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct module *m = userdata ? *userdata : NULL;
	int fd, x, y;

	if (m && m->zfd >= 0 && m->zname) {
		free(*debuginfo_file_name);
		*debuginfo_file_name = xstrdup(m->zname);
		return fcntl(m->zfd, F_DUPFD_CLOEXEC, 0);
	}
	fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					  debuglink_crc, debuginfo_file_name);
	if (fd < 0 || !m || m->zname)
		return fd;
	x = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (x < 0)
		return fd;
	/* A copy is made while x is open: another descriptor means a copy. */
	y = module_expand_fd(x, &m->zreason);
	if (y != x) {
		m->zfd = y;
		m->zname = xstrdup(*debuginfo_file_name ? *debuginfo_file_name : "");
	} else {
		close(x);
	}
	return fd;
}

void module_set_init(struct module_set *s)
{
	memset(s, 0, sizeof(*s));
	hmap_init(&s->index);
	s->dwfl_cb.find_elf = dwfl_build_id_find_elf;
	s->dwfl_cb.find_debuginfo = find_debuginfo;
	s->dwfl_cb.debuginfo_path = &s->debuginfo_path;
}

static void module_free(struct module *m)
{
	if (!m)
		return;
	if (m->fd >= 0)
		close(m->fd);
	free(m->path);
	free(m->segs);
	free(m->debugfile);
	if (m->zfd >= 0)
		close(m->zfd);
	free(m->zname);
	if (m->bytes_mapped)
		munmap((void *)(uintptr_t)m->bytes, m->nbytes);
	free(m->image);
	for (size_t i = 0; i < m->demangled.cap; i++)
		if (m->demangled.slots[i].key)
			free((void *)(uintptr_t)m->demangled.slots[i].val);
	hmap_release(&m->demangled);
	for (size_t i = 0; i < m->paths.cap; i++)
		if (m->paths.slots[i].key)
			free((void *)(uintptr_t)m->paths.slots[i].val);
	hmap_release(&m->paths);
	srcline_release(m);
	dwname_free(m->dwname);
	if (m->dwfl)
		dwfl_end(m->dwfl);
	symtab_release(&m->syms);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

void module_set_release(struct module_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		module_free(s->mods[i]);
	free(s->mods);
	free(s->debuginfo_path);
	hmap_release(&s->index);
	memset(s, 0, sizeof(*s));
}

int module_set_add_debug_dir(struct module_set *s, const char *dir)
{
	char *old = s->debuginfo_path, *full;

	/* libdwfl takes relative entries as relative to each binary's directory. */
	full = realpath(dir, NULL);
	if (!full)
		return -errno;
	s->debuginfo_path = xasprintf("%s:%s", old ? old : DEFAULT_DEBUGINFO_PATH, full);
	free(full);
	free(old);
	return 0;
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
		return m->ino == k->ino && m->maj == k->maj && m->min == k->min;
	return strcmp(m->path, k->path) == 0;
}

static uint64_t key_hash(const struct module_key *k)
{
	if (k->ino)
		return hash_u64(k->ino ^ hash_u64((uint64_t)k->maj << 32 | k->min));
	return hash_bytes(k->path, strlen(k->path));
}

/* Device and inode as the mapping named them. */
static bool same_file(const struct stat *st, const struct module_key *k)
{
	return st->st_ino == k->ino && major(st->st_dev) == k->maj && minor(st->st_dev) == k->min;
}

/*
 * Opens a regular file for reading without side effects: first as O_PATH
 * (no open of a device, no wait on a FIFO), with the links along path
 * resolved by the kernel as resolve says (RESOLVE_IN_ROOT keeps them inside
 * a target's root) and none at the end; then, if it is a regular file,
 * reopened for reading. *st gets its status. Returns the descriptor or -1.
 */
static int open_regular(int dirfd, const char *path, uint64_t resolve, struct stat *st)
{
	struct open_how how = {.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC, .resolve = resolve};
	char proc[64];
	int pfd, fd;

	pfd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	if (pfd < 0 && errno == ENOSYS && !(resolve & RESOLVE_IN_ROOT))
		pfd = openat(dirfd, path, O_PATH | O_NOFOLLOW | O_CLOEXEC); /* before Linux 5.6 */
	if (pfd < 0)
		return -1;
	if (fstat(pfd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(pfd);
		return -1;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	close(pfd);
	return fd;
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

			if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
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
	struct module *m = xcalloc(1, sizeof(*m));

	m->id = (uint32_t)s->n;
	m->path = xstrdup(k->path);
	m->maj = k->maj;
	m->min = k->min;
	m->ino = k->ino;
	m->kind = module_kind_of(k->path, k->ino);
	m->fd = -1;
	m->zfd = -1;
	{
		/* Recursive: resolving a frame holds it around module_load. */
		pthread_mutexattr_t attr;

		pthread_mutexattr_init(&attr);
		pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
		pthread_mutex_init(&m->lock, &attr);
		pthread_mutexattr_destroy(&attr);
	}
	symtab_init(&m->syms);
	hmap_init(&m->demangled);
	hmap_init(&m->paths);
	xgrow(&s->mods, &s->cap, s->n + 1, sizeof(*s->mods));
	s->mods[s->n++] = m;
	slot->val = m->id;
	return m;
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
	m = add_module(s, slot, k);
	if (m->kind == MODULE_FILE)
		m->fd = pin(k, pid, start, end);
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

/*
 * Opens the perf map of m's process inside its root (links resolved there,
 * none at the end), only a regular file owned by the process's user or by
 * root.
 */
static int open_perfmap(const struct module *m)
{
	char path[64];
	struct stat st, owner;
	int fd, root;

	snprintf(path, sizeof(path), "/proc/%u", m->pid);
	if (stat(path, &owner) < 0)
		return -1;
	root = open_root((pid_t)m->pid);
	if (root < 0)
		return -1;
	fd = open_regular(root, m->path, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS, &st);
	close(root);
	if (fd >= 0 && st.st_uid != 0 && st.st_uid != owner.st_uid) {
		close(fd);
		return -1;
	}
	return fd;
}

struct module *module_set_perfmap(struct module_set *s, uint32_t pid, bool live)
{
	char key_path[64], path[64];
	struct module_key k = {.path = key_path};
	struct hmap_slot *slot;
	struct module *m;
	uint64_t key;
	bool added;

	/* Hashed by the host pid; the path is the one the process writes. */
	snprintf(key_path, sizeof(key_path), "perf-map:%u", pid);
	for (key = key_hash(&k) | 1;; key = hash_u64(key) | 1) {
		slot = hmap_insert(&s->index, key, &added);
		if (added)
			break;
		m = s->mods[slot->val];
		if (m->kind == MODULE_PERFMAP && m->pid == pid)
			return m;
	}
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", live ? namespaced_pid(pid) : pid);
	k.path = path;
	m = add_module(s, slot, &k);
	m->kind = MODULE_PERFMAP;
	m->pid = pid;
	return m;
}

int module_perfmap_open(struct module *m)
{
	if (m->fd >= 0)
		return 0;
	m->fd = open_perfmap(m);
	return m->fd >= 0 ? 0 : -ENOENT;
}

static int load_kernel(struct module *m)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	int n;

	if (!f) {
		m->reason = REASON_KERNEL_HIDDEN;
		return -errno;
	}
	n = symtab_read_kallsyms(&m->syms, f);
	fclose(f);
	if (n <= 0 || m->syms.n == 0 || m->syms.syms[0].addr == 0) {
		m->reason = REASON_KERNEL_HIDDEN;
		return -EPERM;
	}
	return 0;
}

int perfmap_parse(FILE *f, struct symtab *t)
{
	char *line = NULL;
	size_t cap = 0;
	int n = 0;

	while (getline(&line, &cap, f) > 0) {
		unsigned long long start, size;
		char *p = line, *end;

		errno = 0;
		start = strtoull(p, &end, 16);
		if (errno || end == p || *end != ' ')
			continue;
		p = end + 1;
		size = strtoull(p, &end, 16);
		if (errno || end == p || *end != ' ' || size == 0)
			continue;
		p = end + 1;
		p[strcspn(p, "\n")] = '\0';
		if (!*p)
			continue;
		symtab_add(t, start, size, p, 1);
		n++;
	}
	free(line);
	symtab_finish(t);
	return n;
}

static int load_perfmap(struct module *m)
{
	FILE *f;
	int fd;

	if (m->fd < 0) {
		m->reason = REASON_ANON; /* the runtime never wrote one we could read */
		return -ENOENT;
	}
	fd = dup(m->fd);
	if (fd < 0 || !(f = fdopen(fd, "r"))) {
		if (fd >= 0)
			close(fd);
		m->reason = REASON_FILE_GONE;
		return -EIO;
	}
	rewind(f);
	perfmap_parse(f, &m->syms);
	fclose(f);
	if (!m->syms.n) {
		m->reason = REASON_NO_SYMBOLS;
		return -ENOENT;
	}
	return 0;
}

/* Copies the vdso from perfmini's own memory: every process maps the same image. */
static int vdso_image(struct module *m)
{
	FILE *f;
	unsigned long long start = 0, end = 0;
	char line[512];

	if (m->image)
		return 0;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &start, &end) == 2)
			break;
	fclose(f);
	if (!start || end <= start || end - start > (64u << 20))
		return -ENOENT;
	m->image = xmalloc(end - start);
	memcpy(m->image, (const void *)(uintptr_t)start, end - start);
	m->bytes = m->image;
	m->nbytes = end - start;
	return 0;
}

/* Segments (if not read yet) of an ELF image held in memory. */
static int image_segments(struct module *m, const unsigned char *bytes, size_t n)
{
	Elf *e;
	int ret;

	if (m->nsegs)
		return 0;
	elf_version(EV_CURRENT);
	e = elf_memory((char *)(uintptr_t)bytes, n);
	ret = e ? elf_read_segments(e, &m->segs) : -ENOEXEC;
	if (ret > 0)
		m->nsegs = (size_t)ret;
	if (e)
		elf_end(e);
	return ret > 0 ? 0 : -ENOEXEC;
}

static int load_vdso(struct module *m)
{
	Elf *e;

	if (vdso_image(m) < 0 || image_segments(m, m->image, m->nbytes) < 0) {
		m->reason = REASON_VDSO;
		return -ENOENT;
	}
	e = elf_memory((char *)m->image, m->nbytes);
	if (e) {
		m->symsrc = elf_read_symbols(e, &m->syms);
		elf_end(e);
	}
	if (m->symsrc <= 0) {
		m->reason = REASON_VDSO;
		return -ENOENT;
	}
	return 0;
}

static int prepare_unwind(struct module *m)
{
	struct stat st;
	Elf *e;
	size_t phnum;

	if (m->kind == MODULE_VDSO) {
		if (vdso_image(m) < 0)
			return -ENOENT;
	} else if (m->kind == MODULE_FILE && m->fd >= 0) {
		void *p;

		if (fstat(m->fd, &st) < 0 || st.st_size <= 0)
			return -ENOENT;
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, m->fd, 0);
		if (p == MAP_FAILED)
			return -errno;
		m->bytes = p;
		m->nbytes = (size_t)st.st_size;
		m->bytes_mapped = true;
	} else {
		return -ENOENT;
	}
	if (image_segments(m, m->bytes, m->nbytes) < 0)
		goto fail;
	elf_version(EV_CURRENT);
	e = elf_memory((char *)(uintptr_t)m->bytes, m->nbytes);
	if (e && elf_getphdrnum(e, &phnum) == 0) {
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_GNU_EH_FRAME) {
				m->eh_hdr_vaddr = ph.p_vaddr;
				m->eh_hdr_size = ph.p_memsz;
			}
		}
	}
	if (e)
		elf_end(e);
	return 0;
fail:
	if (m->bytes_mapped) {
		munmap((void *)(uintptr_t)m->bytes, m->nbytes);
	} else {
		free(m->image); /* the vdso copy: bytes points at it */
		m->image = NULL;
	}
	m->bytes = NULL;
	m->nbytes = 0;
	m->bytes_mapped = false;
	return -ENOEXEC;
}

static bool has_section(Elf *e, const char *name)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(e, shstrndx, sh.sh_name)) &&
		    !strcmp(n, name))
			return true;
	}
	return false;
}

/*
 * Reports m's file to a new Dwfl (m->dwfl, m->dwmod, m->dwbias); the
 * file's image with zstd sections expanded, unless lines are not read.
 * Returns 0 or -errno.
 */
static int dwfl_report(struct module *m)
{
	const char *base = strrchr(m->path, '/');
	GElf_Addr bias;
	void **userdata;
	int fd;

	fd = fcntl(m->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (!m->no_lines)
		fd = module_expand_fd(fd, &m->zreason);
	m->dwfl = dwfl_begin(m->dwfl_cb);
	if (!m->dwfl) {
		close(fd);
		return -ENOMEM;
	}
	dwfl_report_begin(m->dwfl);
	m->dwmod = dwfl_report_elf(m->dwfl, base ? base + 1 : m->path, m->path, fd, 0, false);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (!m->dwmod)
		goto fail_dwfl;
	dwfl_module_info(m->dwmod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = m; /* for find_debuginfo */
	if (!dwfl_module_getelf(m->dwmod, &bias))
		goto fail_dwfl;
	m->dwbias = bias;
	return 0;
fail_dwfl:
	dwfl_end(m->dwfl);
	m->dwfl = NULL;
	m->dwmod = NULL;
	return -ENOEXEC;
}

int module_dwfl_reload(struct module *m)
{
	if (m->zfd < 0 || m->zreloaded || !m->dwfl)
		return 0;
	m->zreloaded = true;
	dwfl_end(m->dwfl);
	m->dwfl = NULL;
	m->dwmod = NULL;
	return dwfl_report(m);
}

/*
 * Symbols through libdwfl: it picks the best table among the file's own
 * .symtab, a separate debug file and MiniDebugInfo, plus .dynsym. Adds
 * them to m->syms in the file's ELF address space; returns the count.
 */
static int dwfl_symbols(struct module_set *s, struct module *m)
{
	const char *debugfile = NULL;
	GElf_Addr bias;
	Elf *elf;
	int n, plt, added = 0;

	m->dwfl_cb = &s->dwfl_cb;
	m->no_lines = s->no_lines;
	if (dwfl_report(m) < 0 || !(elf = dwfl_module_getelf(m->dwmod, &bias)))
		return 0;
	n = dwfl_module_getsymtab(m->dwmod);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *symelf;
		const char *name;
		int type;

		name = dwfl_module_getsym_info(m->dwmod, i, &sym, &addr, &shndx, &symelf, NULL);
		if (!name || !*name || shndx == SHN_UNDEF)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		symtab_addn(&m->syms, addr - bias, elf_symbol_size(symelf, &sym, shndx), name,
			    elf_symbol_name_len(name), elf_symbol_rank(&sym, name));
		added++;
	}
	/* The PLT's code is in the file itself: its ELF addresses, no bias. */
	plt = elf_read_plt(elf, &m->syms);
	if (plt > 0)
		added += plt;
	dwfl_module_info(m->dwmod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	if (debugfile)
		m->debugfile = xstrdup(debugfile);
	symtab_finish(&m->syms);
	module_dwfl_reload(m); /* the symbols came from a zstd debug file */
	return added;
}

Dwarf *module_dwarf(struct module *m, Dwarf_Addr *bias)
{
	Dwarf *dw;

	if (!m->dwmod)
		return NULL;
	dw = dwfl_module_getdwarf(m->dwmod, bias);
	if (m->zfd >= 0 && !m->zreloaded && module_dwfl_reload(m) == 0 && m->dwmod)
		dw = dwfl_module_getdwarf(m->dwmod, bias);
	return dw;
}

int module_prepare_unwind(struct module *m)
{
	int ret;

	/* unwind_ready is the recorder thread's alone: no lock on this path. */
	if (m->unwind_ready)
		return m->bytes ? 0 : -ENOENT;
	pthread_mutex_lock(&m->lock);
	ret = prepare_unwind(m);
	pthread_mutex_unlock(&m->lock);
	m->unwind_ready = true;
	return ret;
}

static int load(struct module_set *s, struct module *m);

int module_load(struct module_set *s, struct module *m)
{
	int ret;

	pthread_mutex_lock(&m->lock);
	ret = load(s, m);
	pthread_mutex_unlock(&m->lock);
	return ret;
}

static int load(struct module_set *s, struct module *m)
{
	Elf *e;
	int n, ret = 0;

	if (m->loaded)
		return m->reason ? -ENOENT : 0;
	m->loaded = true;
	elf_version(EV_CURRENT);
	switch (m->kind) {
	case MODULE_KERNEL:
		return load_kernel(m);
	case MODULE_ANON:
		m->reason = REASON_ANON;
		return -ENOENT;
	case MODULE_VDSO:
		return load_vdso(m);
	case MODULE_PERFMAP:
		return load_perfmap(m);
	case MODULE_FILE:
		break;
	}
	if (m->fd < 0) {
		m->reason = REASON_FILE_GONE;
		return -ENOENT;
	}
	e = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		m->reason = REASON_NOT_ELF;
		ret = -ENOEXEC;
		goto out;
	}
	if (!m->nsegs) {
		n = elf_read_segments(e, &m->segs);
		if (n <= 0) {
			m->reason = REASON_NOT_ELF;
			ret = -ENOEXEC;
			goto out;
		}
		m->nsegs = (size_t)n;
	}
	m->build_id_len = elf_read_build_id(e, m->build_id);
	{
		GElf_Ehdr eh;

		if (gelf_getehdr(e, &eh))
			m->entry = eh.e_entry;
	}
	{
		struct symtab own;

		symtab_init(&own);
		m->symsrc = elf_read_symbols(e, &own);
		symtab_release(&own);
	}
	if (dwfl_symbols(s, m) <= 0) {
		m->reason = REASON_NO_SYMBOLS;
		ret = -ENOENT;
	} else if (m->symsrc != ELF_SYMS_SYMTAB && !m->debugfile &&
		   !has_section(e, ".gnu_debugdata")) {
		m->reason = REASON_STRIPPED; /* names, but only the exported ones */
	}
out:
	if (e)
		elf_end(e);
	return ret;
}

const char *module_reason_text(enum module_reason r)
{
	switch (r) {
	case REASON_NONE:
		return "";
	case REASON_STRIPPED:
		return "stripped: only exported functions have names";
	case REASON_NO_SYMBOLS:
		return "no symbol table";
	case REASON_FILE_GONE:
		return "the file was gone or unreadable when perfmini opened it";
	case REASON_NOT_ELF:
		return "not an ELF file";
	case REASON_ANON:
		return "anonymous executable memory (JIT code) without a perf map";
	case REASON_KERNEL_HIDDEN:
		return "kernel addresses hidden by kernel.kptr_restrict";
	case REASON_NO_MAPPING:
		return "addresses in no known mapping (a frame-pointer chain broken by code "
		       "built without frame pointers, or lost records)";
	case REASON_VDSO:
		return "the vdso image could not be read";
	}
	return "";
}

const char *module_lines_text(enum module_lines r)
{
	switch (r) {
	case LINES_OK:
		return "";
	case LINES_NO_DWARF:
		return "no DWARF debug information, in the file or in a debug file found";
	case LINES_COMPRESSION:
		return "its debug sections are compressed with a method perfmini cannot read";
	case LINES_EXPAND_FAILED:
		return "its compressed debug sections could not be expanded (damaged, or "
		       "too large)";
	case LINES_UNCOVERED:
		return "some of its code is in no DWARF unit (sources built without -g, or "
		       "assembly)";
	}
	return "";
}

const char *module_lines_fix(enum module_lines r)
{
	switch (r) {
	case LINES_NO_DWARF:
		return "build it with -g, or install its debug symbols (the -dbgsym or -dbg "
		       "package), point --debug-dir at them, or set DEBUGINFOD_URLS";
	case LINES_COMPRESSION:
	case LINES_EXPAND_FAILED:
		return "store them uncompressed: objcopy --decompress-debug-sections on the "
		       "file that holds them (the binary or its debug file)";
	case LINES_UNCOVERED:
		return "build every source file of it with -g";
	default:
		return "";
	}
}

const char *module_reason_fix(enum module_reason r)
{
	switch (r) {
	case REASON_STRIPPED:
	case REASON_NO_SYMBOLS:
		return "install its debug symbols (the -dbgsym or -dbg package), point "
		       "--debug-dir at them, or set DEBUGINFOD_URLS";
	case REASON_FILE_GONE:
		return "keep the binary in place until perfmini has seen it";
	case REASON_ANON:
		return "have the runtime write /tmp/perf-PID.map (e.g. node --perf-basic-prof)";
	case REASON_KERNEL_HIDDEN:
		return "run as root or set kernel.kptr_restrict=0";
	case REASON_NO_MAPPING:
		return "build with -fno-omit-frame-pointer; if records were lost, lower -F or "
		       "raise "
		       "-m";
	default:
		return "";
	}
}
