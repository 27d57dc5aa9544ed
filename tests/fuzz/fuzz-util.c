/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-util.c - what the fuzz harnesses share; see fuzz-util.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fuzz-util.h"
#include "symbol/symbolize.h"

static volatile uint64_t sink;

const char *__lsan_default_suppressions(void);

/*
 * LeakSanitizer's suppressions for every harness. libelf 0.188 loses the
 * section-name table it reads for elf_strptr in some damaged files (one
 * that fuzz-module found: a plain elf_begin, elf_strptr, elf_end leaks the
 * table's 303 bytes under valgrind too). The leak's stack, as the fuzzers'
 * fast unwinding takes it, ends in libelf's own frames, without a frame
 * pointer: the suppression names the library. A perfmini leak of an Elf
 * handle (an elf_end forgotten) is then left to the sanitizer build of
 * the test suite, which has no suppression and reads real files.
 */
const char *__lsan_default_suppressions(void)
{
	return "leak:libelf.so\n";
}

uint64_t fuzz_touch(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++)
		s = s * 31 + b[i];
	return s;
}

void fuzz_check_symtab(const struct symtab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct sym *s = &t->syms[i];
		const struct sym *found;
		uint64_t probes[3] = {s->addr, s->addr + s->size - 1, s->addr - 1};

		if (i && t->syms[i - 1].addr >= s->addr)
			abort(); /* not sorted, or two entries at one address */
		if (!s->size || s->name >= t->names_len)
			abort();
		if (!memchr(t->names + s->name, '\0', t->names_len - s->name))
			abort();
		sink += strlen(symtab_name(t, s));
		if (i >= 64)
			continue;
		for (int k = 0; k < 3; k++) {
			found = symtab_lookup(t, probes[k]);
			if (found && (found < t->syms || found >= t->syms + t->n ||
				      probes[k] - found->addr >= found->size))
				abort();
		}
		if (!symtab_lookup(t, s->addr))
			abort(); /* a symbol's own start finds a symbol */
	}
}

static char dir[64], path[96];
static int fd = -1;

static void cleanup(void)
{
	if (path[0])
		unlink(path);
	if (dir[0])
		rmdir(dir);
}

void fuzz_file_init(const char *name)
{
	const char *tmpdir = getenv("TMPDIR");

	unsetenv("DEBUGINFOD_URLS");
	snprintf(dir, sizeof(dir), "%s/%s.XXXXXX",
		 tmpdir && *tmpdir && strlen(tmpdir) < 32 ? tmpdir : "/tmp", name);
	if (!mkdtemp(dir)) {
		fprintf(stderr, "%s: mkdtemp: %s\n", name, strerror(errno));
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/module", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "%s: open: %s\n", name, strerror(errno));
		exit(1);
	}
	atexit(cleanup);
}

void fuzz_file_write(const void *p, size_t n)
{
	size_t done = 0;

	if (ftruncate(fd, 0) < 0)
		abort();
	while (done < n) {
		ssize_t w = pwrite(fd, (const char *)p + done, n - done, (off_t)done);

		if (w <= 0)
			abort();
		done += (size_t)w;
	}
}

struct module *fuzz_file_module(struct module_set *s)
{
	struct module_key k = {.path = path};
	struct module *m;
	struct stat st;

	if (fstat(fd, &st) < 0)
		abort();
	k.maj = major(st.st_dev);
	k.min = minor(st.st_dev);
	k.ino = st.st_ino;
	m = module_set_get(s, &k, 0, 0, 0);
	if (m->kind != MODULE_FILE || m->fd < 0)
		abort();
	return m;
}

void fuzz_lookup(struct symbolizer *z, struct module *m, uint64_t addr, bool is_vaddr)
{
	struct symres r;
	int n = symbolize_addr(z, m, addr, is_vaddr, &r);

	if (n < 0 || n > SRCLINE_MAX_DEPTH || n != r.n)
		abort();
	for (int i = 0; i < n; i++) {
		if (r.lv[i].func)
			sink += strlen(r.lv[i].func);
		if (r.lv[i].file)
			sink += strlen(r.lv[i].file);
	}
	symres_release(&r);
}
