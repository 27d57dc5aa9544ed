/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * debugfile.c - where a module's DWARF is: its separate debug file found
 * by build-id or .gnu_debuglink under the debug directories (libdwfl's
 * path and --debug-dir), checked against the module's build-id, else
 * through debuginfod when DEBUGINFOD_URLS asks for it; and a debug file's
 * compressed sections expanded into an unnamed copy that libelf can read
 * (symfile_expand_fd), kept for later runs where it can be (zcache.h).
 * See symfile.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <gelf.h>
#include <zlib.h>

#include "elf/elfz.h"
#include "symbol/symfile-int.h"
#include "symbol/zcache.h"
#include "util/alloc.h"
#include "util/io.h"

/* libdwfl's own default: next to the file, in .debug/, under /usr/lib/debug. */
#define DEFAULT_DEBUGINFO_PATH "-:.debug:/usr/lib/debug"

/*
 * Whether the file system of fd has room for a copy of size bytes and
 * as much again: each copy takes at most half of what is free, so that
 * the copies of many modules together never fill the disk.
 */
static bool room_for(int fd, uint64_t size)
{
	struct statvfs sv;

	if (fstatvfs(fd, &sv) != 0)
		return true; /* nothing known: the write itself will say */
	return size <= (uint64_t)sv.f_bavail * sv.f_frsize / 2;
}

int symfile_expand_fd(int fd, enum module_lines *why, bool zlib)
{
	struct elfz_info info;
	struct stat st;
	void *in;
	int xfd, ret;
	bool kept;

	if (fstat(fd, &st) < 0 || st.st_size <= 0)
		return fd;
	in = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (in == MAP_FAILED)
		return fd;
	ret = elfz_inspect(in, (size_t)st.st_size, &info);
	if (ret == 0 && info.unknown && why)
		*why = LINES_COMPRESSION;
	if (ret < 0 || info.zstd + (zlib ? info.zlib : 0) == 0) {
		/* Nothing to expand (or not ELF: libelf says so). */
		if (ret == -EFBIG && why)
			*why = LINES_EXPAND_FAILED;
		munmap(in, (size_t)st.st_size);
		return fd;
	}
	/* Expanded at an earlier run and kept (zcache.h)? */
	if ((xfd = zcache_find(&st, info.out_size)) >= 0) {
		munmap(in, (size_t)st.st_size);
		close(fd);
		return xfd;
	}
	/* In the cache directory where there is room, else where an unnamed file can be. */
	kept = (xfd = zcache_new()) >= 0 && room_for(xfd, info.out_size);
	if (!kept) {
		if (xfd >= 0)
			close(xfd);
		xfd = unnamed_file("perfmini-debug");
		if (xfd < 0 || !room_for(xfd, info.out_size))
			goto fail;
	}
	/* Never whole in memory: the input's pages are dropped once read. */
	ret = elfz_expand_fd(in, (size_t)st.st_size, xfd, info.out_size, true);
	if (ret < 0)
		goto fail;
	if (kept)
		zcache_keep(xfd, &st);
	munmap(in, (size_t)st.st_size);
	close(fd);
	return xfd;
fail:
	/* zlib alone, libelf expands itself (in memory). */
	if (why && info.zstd)
		*why = LINES_EXPAND_FAILED;
	if (xfd >= 0)
		close(xfd);
	munmap(in, (size_t)st.st_size);
	return fd;
}

/*
 * Whether a search may ask debuginfod servers: only with DEBUGINFOD_URLS
 * set. libdw 0.188 loads its debuginfod client (and with it libcurl and
 * a TLS library: some 5 MB of the recorder's memory) at the first search
 * that finds nothing locally, servers or not; without servers perfmini
 * searches locally itself (local_find_debuginfo).
 */
static bool debuginfod_wanted(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return urls && urls[strspn(urls, " \t")];
}

/*
 * Whether a .gnu_debuglink name may be looked for: a file name alone. One
 * with a '/' or that is "." or ".." would reach outside the standard
 * places (into /root, say, for a root recorder).
 */
static bool debuglink_name_ok(const char *name)
{
	return name && *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

/*
 * Whether the owner of the module's file (*main) could read the file of
 * status *st, by its mode: a module's owner picks its debug file (a
 * program anyone may write names its .gnu_debuglink), so a file root
 * alone may read is never taken for a user's program. Directories on the
 * way and ACLs are not looked at.
 */
static bool owner_may_read(const struct stat *main, const struct stat *st)
{
	if (main->st_uid == 0 || (st->st_mode & S_IROTH))
		return true;
	if (st->st_uid == main->st_uid)
		return st->st_mode & S_IRUSR;
	return st->st_gid == main->st_gid && (st->st_mode & S_IRGRP);
}

/* The CRC-32 of the whole file fd (what .gnu_debuglink holds); false when unreadable. */
static bool file_crc(int fd, size_t size, uint32_t *crc)
{
	void *p;

	if (size == 0) {
		*crc = (uint32_t)crc32(0, Z_NULL, 0);
		return true;
	}
	p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return false;
	*crc = 0;
	for (size_t off = 0; off < size;) {
		uInt n = size - off > (1u << 30) ? 1u << 30 : (uInt)(size - off);

		*crc = (uint32_t)crc32(*crc, (const Bytef *)p + off, n);
		off += n;
	}
	munmap(p, size);
	return true;
}

/*
 * The candidate debug file at path, open: a regular file (opened without
 * blocking on a FIFO or opening a device; no link at its end), not the
 * module's own (main), that main's owner could read, whose build-id is
 * want or, when the module has none, whose CRC-32 is crc (the link's);
 * -1 otherwise, -2 when out of descriptors (errno says which).
 */
static int try_debug_file(const char *path, const char *main, const unsigned char *want,
			  int want_len, uint32_t crc)
{
	struct stat a, b;
	uint8_t id[BUILD_ID_MAX];
	uint32_t got;
	size_t n = 0;
	Elf *e;
	int fd = open_regular(AT_FDCWD, path, RESOLVE_NO_MAGICLINKS, &a);

	if (fd < 0)
		return out_of_descriptors(errno) ? -2 : -1;
	if (stat(main, &b) < 0 || (a.st_dev == b.st_dev && a.st_ino == b.st_ino) ||
	    !owner_may_read(&b, &a))
		goto no;
	if (want_len > 0) {
		if (!(e = elf_begin(fd, ELF_C_READ_MMAP, NULL)))
			goto no;
		n = elf_read_build_id(e, id);
		elf_end(e);
		if (n != (size_t)want_len || memcmp(id, want, n) != 0)
			goto no;
	} else if (!file_crc(fd, (size_t)a.st_size, &got) || got != crc) {
		goto no;
	}
	return fd;
no:
	close(fd);
	return -1;
}

/*
 * libdwfl's local search, without debuginfod: by build-id (libdwfl's own
 * function), then by the .gnu_debuglink name L beside the file (DIR/L),
 * for each entry E of the debuginfo path: DIR/L for an empty one, DIR/E/L
 * for a relative one (.debug), E/DIR/L for an absolute one
 * (/usr/lib/debug, --debug-dir); L must be a file name alone, and a found
 * file must carry the module's build-id, or the link's CRC when it has
 * none (try_debug_file). Returns as dwfl_standard_find_debuginfo.
 */
static int local_find_debuginfo(Dwfl_Module *mod, const char *file_name, const char *debuglink,
				uint32_t crc, const char *path, char **debuginfo_file_name)
{
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	char *dir, *list;
	int fd, bits_len;

	errno = 0;
	fd = dwfl_build_id_find_debuginfo(mod, NULL, NULL, 0, NULL, NULL, 0, debuginfo_file_name);
	if (fd >= 0 || (errno != 0 && errno != ENOENT))
		return fd;
	if (!debuglink_name_ok(debuglink) || !file_name || file_name[0] != '/')
		goto none;
	bits_len = dwfl_module_build_id(mod, &bits, &vaddr);
	dir = xstrndup(file_name, (size_t)(strrchr(file_name, '/') - file_name));
	list = xstrdup(path ? path : DEFAULT_DEBUGINFO_PATH);
	for (char *p = list, *end; p; p = end ? end + 1 : NULL) {
		char *entry = p, *cand;

		if ((end = strchr(p, ':')))
			*end = '\0';
		if (*entry == '-' || *entry == '+')
			entry++; /* CRC checks: the build-id is checked instead */
		if (!*entry)
			cand = xasprintf("%s/%s", dir, debuglink);
		else if (*entry == '/')
			cand = xasprintf("%s%s/%s", entry, dir, debuglink);
		else
			cand = xasprintf("%s/%s/%s", dir, entry, debuglink);
		fd = try_debug_file(cand, file_name, bits, bits_len, crc);
		if (fd >= 0 || fd == -2) {
			int err = errno;

			if (fd >= 0) {
				free(*debuginfo_file_name);
				*debuginfo_file_name = cand;
			} else {
				free(cand);
			}
			free(list);
			free(dir);
			errno = err;
			return fd >= 0 ? fd : -1;
		}
		free(cand);
	}
	free(list);
	free(dir);
none:
	errno = ENOENT;
	return -1;
}

/*
 * libdwfl's search for a separate debug file (build-id, .gnu_debuglink,
 * debuginfod; the local part alone without DEBUGINFOD_URLS), for the symfile that is the Dwfl_Module's user data
 * (dwfl_report sets it). libdwfl's search may keep the libelf handle it
 * opened to check a build-id in the module, which then reads the file as
 * found, whatever descriptor this returns. So when the file found has
 * compressed sections (zstd, or zlib when lines are read), its expanded
 * copy is kept in f->zfd and the file itself returned;
 * symfile_dwfl_reload then reports the module again in a new Dwfl, where
 * this returns the copy without searching. servers: debuginfod may be
 * asked (with DEBUGINFOD_URLS set).
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name, bool servers)
{
	struct symfile *f = userdata ? *userdata : NULL;
	int fd, x, y;

	if (f && f->zfd >= 0 && f->zname) {
		free(*debuginfo_file_name);
		*debuginfo_file_name = xstrdup(f->zname);
		return fcntl(f->zfd, F_DUPFD_CLOEXEC, 0);
	}
	errno = 0;
	if ((servers && debuginfod_wanted()) || !f)
		fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						  debuglink_file, debuglink_crc,
						  debuginfo_file_name);
	else
		fd = local_find_debuginfo(mod, file_name, debuglink_file, debuglink_crc,
					  *f->dwfl_cb->debuginfo_path, debuginfo_file_name);
	if (fd < 0 && f && out_of_descriptors(errno))
		f->debug_no_fd = true;
	if (fd < 0 || !f || f->zname)
		return fd;
	x = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (x < 0)
		return fd;
	/* A copy is made while x is open: another descriptor means a copy. */
	y = symfile_expand_fd(x, &f->zreason, !f->no_lines);
	if (y != x) {
		f->zfd = y;
		f->zname = xstrdup(*debuginfo_file_name ? *debuginfo_file_name : "");
	} else {
		close(x);
	}
	return fd;
}

int symfile_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
			   const char *file_name, const char *debuglink_file,
			   GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	return find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
			      debuglink_crc, debuginfo_file_name, true);
}

/* symfile_find_debuginfo without debuginfod servers (symbolizer_local_only). */
static int find_debuginfo_here(Dwfl_Module *mod, void **userdata, const char *modname,
			       GElf_Addr base, const char *file_name, const char *debuglink_file,
			       GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	return find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
			      debuglink_crc, debuginfo_file_name, false);
}

void symbolizer_local_only(struct symbolizer *z)
{
	z->dwfl_cb.find_debuginfo = find_debuginfo_here;
}

int symbolizer_add_debug_dir(struct symbolizer *z, const char *dir)
{
	char *old = z->debuginfo_path, *full;

	/* libdwfl takes relative entries as relative to each binary's directory. */
	full = realpath(dir, NULL);
	if (!full)
		return -errno;
	z->debuginfo_path = xasprintf("%s:%s", old ? old : DEFAULT_DEBUGINFO_PATH, full);
	free(full);
	free(old);
	return 0;
}
