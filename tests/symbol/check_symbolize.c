/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_symbolize.c - naming frames (symbol/symbolize.c), on this test
 * program's own file (built with -g) and on a perf map it writes: the
 * symbol and the offset into it of each byte of a function, the inlined
 * level DWARF puts above it, the same answer from an ELF address as from a
 * file offset, nothing for an offset outside the file; a perf map's
 * absolute addresses, its C++ and "@plt" names demangled; the levels
 * written into a profile innermost first, the symbol offset on the
 * outermost only; symbolize_profile's frames, modules (path, build-id,
 * segments) and what it leaves when naming was cut short; the expanded
 * copies kept between runs trimmed to their budget, oldest first.
 */
#include "config.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "symbol/namecache.h"
#include "symbol/symbolize.h"
#include "symbol/symfile-int.h"
#include "symbol/zcache.h"
#include "unit-helpers.h"

__attribute__((noinline)) int sym_outer(int x);
__attribute__((noinline)) int sym_plain(int x);

volatile int sym_sink;

/* Inlined into sym_outer even unoptimized: a level of its own in DWARF. */
static inline __attribute__((always_inline)) int sym_inner(int x)
{
	for (int i = 0; i < 3; i++)
		sym_sink += x * i;
	return sym_sink;
}

enum { OUTER_LINE = __LINE__ };
__attribute__((noinline)) int sym_outer(int x)
{
	int r = sym_inner(x); /* OUTER_LINE + 3 */

	return r + 1;
}

__attribute__((noinline)) int sym_plain(int x)
{
	sym_sink = x;
	return x + 2;
}

/* The main program's load bias, file range of its text and build-id. */
struct self {
	uintptr_t bias;
	uint8_t build_id[BUILD_ID_MAX];
	size_t build_id_len;
};

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct self *s = arg;

	(void)size;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0; /* the main program has an empty name */
	s->bias = info->dlpi_addr;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		const unsigned char *end = p + ph->p_filesz;

		if (ph->p_type != PT_NOTE)
			continue;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const unsigned char *desc = p + sizeof(*nh) + ((nh->n_namesz + 3) & ~3u);

			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(p + sizeof(*nh), "GNU", 4) && nh->n_descsz <= BUILD_ID_MAX) {
				memcpy(s->build_id, desc, nh->n_descsz);
				s->build_id_len = nh->n_descsz;
			}
			p = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return 1;
}

struct find {
	uintptr_t vaddr;
	uint64_t off;
	bool found;
};

/* The file offset of ELF address f->vaddr of the main program. */
static int find_off(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find *f = arg;

	(void)size;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && f->vaddr >= ph->p_vaddr &&
		    f->vaddr < ph->p_vaddr + ph->p_filesz) {
			f->off = f->vaddr - ph->p_vaddr + ph->p_offset;
			f->found = true;
			return 1;
		}
	}
	return 0;
}

static uint64_t vaddr_of(int (*fn)(int))
{
	struct self s = {0};

	dl_iterate_phdr(find_self, &s);
	return (uintptr_t)fn - s.bias;
}

static uint64_t file_off(int (*fn)(int))
{
	struct find f = {vaddr_of(fn), 0, false};

	dl_iterate_phdr(find_off, &f);
	ck_assert_msg(f.found, "no PT_LOAD holds the function");
	return f.off;
}

/* The file offset of the main program's ELF entry point. */
static uint64_t entry_off(void)
{
	struct self s = {0};
	struct find f = {0, 0, false};

	dl_iterate_phdr(find_self, &s);
	f.vaddr = getauxval(AT_ENTRY) - s.bias;
	dl_iterate_phdr(find_off, &f);
	ck_assert_msg(f.found, "no PT_LOAD holds the entry point");
	return f.off;
}

/* The part of path after its last '/'. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

struct fixture {
	char path[4096];
	struct module_set mods;
	struct symbolizer *z;
	struct module *exe;
};

static void setup(struct fixture *fx)
{
	ssize_t n = readlink("/proc/self/exe", fx->path, sizeof(fx->path) - 1);
	struct module_key k;
	struct stat st;

	ck_assert(n > 0);
	fx->path[n] = '\0';
	ck_assert_int_eq(stat(fx->path, &st), 0);
	k = (struct module_key){fx->path, major(st.st_dev), minor(st.st_dev), st.st_ino, 0};
	module_set_init(&fx->mods);
	fx->z = symbolizer_new(&fx->mods, false);
	fx->exe = module_set_get(&fx->mods, &k, 0, 0, 0);
	ck_assert_int_ge(fx->exe->fd, 0);
}

static void teardown(struct fixture *fx)
{
	symbolizer_free(fx->z);
	module_set_release(&fx->mods);
}

/*
 * Every byte of sym_outer is named by its symbol, at its offset from the
 * start; some hold the inlined sym_inner, a level of its own inside
 * sym_outer's, at the line of the call.
 */
START_TEST(test_function_bytes)
{
	struct fixture fx;
	uint64_t off;
	struct symres r;
	int inlined = 0, bytes = 0;

	setup(&fx);
	off = file_off(sym_outer);
	for (uint64_t k = 0; k < 4096; k++) {
		symbolize_addr(fx.z, fx.exe, off + k, false, &r);
		if (!r.symname || strcmp(r.symname, "sym_outer")) {
			symres_release(&r);
			ck_assert_uint_gt(k, 0);
			break;
		}
		bytes++;
		ck_assert_uint_eq(r.symoff, k);
		ck_assert_int_ge(r.n, 1);
		ck_assert_str_eq(r.lv[r.n - 1].func, "sym_outer");
		ck_assert(!r.lv[r.n - 1].inlined);
		ck_assert_ptr_nonnull(r.lv[r.n - 1].file);
		ck_assert_str_eq(base_name(r.lv[r.n - 1].file), "check_symbolize.c");
		if (r.n == 2) {
			inlined++;
			ck_assert_str_eq(r.lv[0].func, "sym_inner");
			ck_assert(r.lv[0].inlined);
			ck_assert_uint_eq(r.lv[1].line, OUTER_LINE + 3);
			ck_assert_uint_lt(r.lv[0].line, OUTER_LINE);
			ck_assert_uint_gt(r.lv[0].line, 0);
		} else {
			ck_assert_int_eq(r.n, 1);
		}
		symres_release(&r);
	}
	ck_assert_int_gt(bytes, 8);
	ck_assert_int_gt(inlined, 0);
	teardown(&fx);
}
END_TEST

/* An ELF address (is_vaddr) names as its file offset does. */
/*
 * A copy of the test binary under another name (another module, the same
 * build-id): named as the original, through the original's DWARF.
 */
/* A copy of the fixture's binary at copy (a mkstemp template), as a module of its own. */
static struct module *copy_module(struct fixture *fx, char *copy)
{
	struct module_key k;
	struct stat st;
	char cmd[8192];
	int fd = mkstemp(copy);

	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", fx->path, copy);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(stat(copy, &st), 0);
	k = (struct module_key){copy, major(st.st_dev), minor(st.st_dev), st.st_ino, 0};
	return module_set_get(&fx->mods, &k, 0, 0, 0);
}

START_TEST(test_twin)
{
	struct fixture fx;
	char copy[] = "/tmp/check_symbolize.XXXXXX";
	struct module *twin;
	struct symres a, b;
	uint64_t off;

	setup(&fx);
	twin = copy_module(&fx, copy);
	ck_assert_int_ge(twin->fd, 0);
	ck_assert_ptr_ne(twin, fx.exe);
	off = file_off(sym_outer);
	ck_assert_int_ge(symbolize_addr(fx.z, fx.exe, off + 4, false, &a), 1);
	ck_assert_int_ge(symbolize_addr(fx.z, twin, off + 4, false, &b), 1);
	ck_assert_uint_eq(symfile_find(fx.z, twin)->twin, fx.exe->id + 1);
	ck_assert_int_eq(a.n, b.n);
	for (int i = 0; i < a.n; i++) {
		ck_assert_str_eq(a.lv[i].func, b.lv[i].func);
		ck_assert_str_eq(a.lv[i].file, b.lv[i].file);
		ck_assert_uint_eq(a.lv[i].line, b.lv[i].line);
	}
	symres_release(&a);
	symres_release(&b);
	unlink(copy);
	teardown(&fx);
}
END_TEST

/* Files in DIR/names. */
static int names_files(const char *dir)
{
	char path[256];
	struct dirent *d;
	DIR *dp;
	int n = 0;

	snprintf(path, sizeof(path), "%s/names", dir);
	if (!(dp = opendir(path)))
		return 0;
	while ((d = readdir(dp)))
		n += d->d_name[0] != '.';
	closedir(dp);
	return n;
}

/*
 * Two copies of one build share the names kept for it: what one kept,
 * the other finds before anything was saved; they are saved, once, when
 * the last copy is retired.
 */
START_TEST(test_names_shared)
{
	char dir[] = "/tmp/check-shared-XXXXXX", copy[] = "/tmp/check_symbolize.XXXXXX";
	char cmd[8192];
	struct fixture fx;
	struct module *twin;
	struct symres a, b;
	uint64_t off;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	setenv("PERFMINI_CACHE_DIR", dir, 1);
	setup(&fx);
	twin = copy_module(&fx, copy);
	off = file_off(sym_outer) + 4;
	ck_assert(!symbolize_cached(fx.z, fx.exe, 0, off, &a));
	ck_assert_int_ge(symbolize_addr(fx.z, fx.exe, off, false, &a), 1);
	symbolize_keep(fx.z, fx.exe, 0, off, &a);
	ck_assert(symbolize_cached(fx.z, twin, 0, off, &b));
	ck_assert_ptr_eq(symfile_find(fx.z, twin)->names, symfile_find(fx.z, fx.exe)->names);
	ck_assert_int_eq(b.n, a.n);
	ck_assert_str_eq(b.lv[0].func, a.lv[0].func);
	ck_assert_uint_eq(b.lv[0].line, a.lv[0].line);
	symbolizer_retire(fx.z, fx.exe);
	ck_assert_int_eq(names_files(dir), 0);
	ck_assert(symbolize_cached(fx.z, twin, 0, off, &b));
	symbolizer_retire(fx.z, twin);
	ck_assert_int_eq(names_files(dir), 1);
	symres_release(&a);
	unlink(copy);
	teardown(&fx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/*
 * A module read again after its file went (a program that ended, its copy
 * deleted) has no build-id: the names kept for its build are let go by
 * that build's key, saved, and the table of shared names holds nothing
 * freed; another copy of the build finds them in their file.
 */
START_TEST(test_names_file_gone)
{
	char dir[] = "/tmp/check-gone-XXXXXX", copy[] = "/tmp/check_symbolize.XXXXXX";
	char cmd[8192];
	struct fixture fx;
	struct module *twin;
	struct symres a, b;
	uint64_t off, line;
	char *func;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	setenv("PERFMINI_CACHE_DIR", dir, 1);
	setup(&fx);
	twin = copy_module(&fx, copy);
	off = file_off(sym_outer) + 4;
	ck_assert_int_ge(symbolize_addr(fx.z, twin, off, false, &a), 1);
	symbolize_keep(fx.z, twin, 0, off, &a);
	func = strdup(a.lv[0].func);
	line = a.lv[0].line;
	symres_release(&a);
	ck_assert_uint_eq(fx.z->names.count, 1);
	ck_assert(symbolizer_forget(fx.z, twin));
	ck_assert_int_eq(unlink(copy), 0);
	ck_assert(module_unpin(&fx.mods, twin));
	ck_assert_int_eq(symbolize_addr(fx.z, twin, off, false, &b), 0);
	ck_assert_ptr_null(symfile_find(fx.z, twin)->names);
	symbolizer_retire(fx.z, twin);
	ck_assert_uint_eq(fx.z->names.count, 0);
	ck_assert_int_eq(names_files(dir), 1);
	ck_assert(symbolize_cached(fx.z, fx.exe, 0, off, &b));
	ck_assert_str_eq(b.lv[0].func, func);
	ck_assert_uint_eq(b.lv[0].line, line);
	free(func);
	teardown(&fx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(test_vaddr)
{
	struct fixture fx;
	struct symres a, b;

	setup(&fx);
	ck_assert_int_eq(symbolize_addr(fx.z, fx.exe, file_off(sym_plain) + 3, false, &a), 1);
	ck_assert_int_eq(symbolize_addr(fx.z, fx.exe, vaddr_of(sym_plain) + 3, true, &b), 1);
	ck_assert_str_eq(a.symname, "sym_plain");
	ck_assert_str_eq(b.symname, "sym_plain");
	ck_assert_uint_eq(a.symoff, 3);
	ck_assert_uint_eq(b.symoff, 3);
	ck_assert_str_eq(a.lv[0].func, "sym_plain");
	ck_assert_str_eq(b.lv[0].func, "sym_plain");
	ck_assert_uint_eq(a.lv[0].line, b.lv[0].line);
	ck_assert_uint_gt(a.lv[0].decl_line, OUTER_LINE);
	symres_release(&a);
	symres_release(&b);
	/* Past every segment of the file: nothing, and nothing to free. */
	ck_assert_int_eq(symbolize_addr(fx.z, fx.exe, 1ULL << 40, false, &a), 0);
	ck_assert_ptr_null(a.symname);
	symres_release(&a);
	teardown(&fx);
}
END_TEST

/* Names from the symbol table alone (no_lines): the symbol, one level, no file. */
START_TEST(test_no_lines)
{
	struct fixture fx;
	struct symres r;

	setup(&fx);
	fx.z->no_lines = true;
	ck_assert_int_eq(symbolize_addr(fx.z, fx.exe, file_off(sym_outer) + 1, false, &r), 1);
	ck_assert_str_eq(r.lv[0].func, "sym_outer");
	ck_assert_ptr_eq(r.lv[0].func, r.symname);
	ck_assert_ptr_null(r.lv[0].file);
	ck_assert_uint_eq(r.symoff, 1);
	symres_release(&r);
	teardown(&fx);
}
END_TEST

/*
 * A perf map: addresses are absolute, not file offsets; a C++ name is
 * demangled, and a PLT entry's before its "@plt".
 */
START_TEST(test_perfmap)
{
	struct fixture fx;
	struct module *m;
	struct symres r;
	char map[64];
	FILE *f;

	setup(&fx);
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(map, "w");
	ck_assert_ptr_nonnull(f);
	fputs("7f0000001000 40 JitFunc\n"
	      "7f0000002000 20 _ZN2ns3jitEi\n"
	      "7f0000003000 10 _Z5thunkv@plt\n"
	      "7f0000004000 10 not_mangled@plt\n",
	      f);
	ck_assert_int_eq(fclose(f), 0);
	m = module_set_perfmap(&fx.mods, (uint32_t)getpid(), true);
	ck_assert_int_eq(module_perfmap_open(m), 0);
	unlink(map); /* the descriptor is kept */

	ck_assert_int_eq(symbolize_addr(fx.z, m, 0x7f0000001010, false, &r), 1);
	ck_assert_str_eq(r.lv[0].func, "JitFunc");
	ck_assert_ptr_null(r.lv[0].file);
	ck_assert_uint_eq(r.symoff, 0x10);
	symres_release(&r);
	ck_assert_int_eq(symbolize_addr(fx.z, m, 0x7f0000002004, false, &r), 1);
	ck_assert_str_eq(r.lv[0].func, "ns::jit(int)");
	ck_assert_uint_eq(r.symoff, 4);
	symres_release(&r);
	ck_assert_int_eq(symbolize_addr(fx.z, m, 0x7f0000003000, false, &r), 1);
	ck_assert_str_eq(r.lv[0].func, "thunk()@plt");
	symres_release(&r);
	ck_assert_int_eq(symbolize_addr(fx.z, m, 0x7f0000004008, false, &r), 1);
	ck_assert_str_eq(r.lv[0].func, "not_mangled@plt");
	symres_release(&r);
	/* Between the symbols and past the last: no name. */
	ck_assert_int_eq(symbolize_addr(fx.z, m, 0x7f0000001800, false, &r), 0);
	ck_assert_ptr_null(r.symname);
	symres_release(&r);
	ck_assert_int_eq(symbolize_addr(fx.z, m, 0x7f0000009000, false, &r), 0);
	symres_release(&r);
	teardown(&fx);
}
END_TEST

static const char *line_func(const struct profile *p, uint32_t line)
{
	return strtab_get(&p->str, p->lines[line].func);
}

/* The levels go into the profile innermost first; a frame named once stays so. */
START_TEST(test_add_levels)
{
	struct profile *p = profile_new();
	uint32_t m = profile_add_module(p, "/bin/x", "", 0);
	uint32_t f = profile_intern_frame(p, m, 0, 0x100);
	uint32_t g = profile_intern_frame(p, m, 0, 0x200);
	struct symres r = {0};
	const struct pm_frame *fr;

	r.n = 2;
	r.lv[0] = (struct srcline){
		.func = "inner", .file = "/src/a.h", .line = 7, .inlined = true, .decl_line = 5};
	r.lv[1] =
		(struct srcline){.func = "outer", .file = "/src/a.c", .line = 20, .decl_line = 18};
	r.symoff = 0x24;
	symbolize_add_levels(p, f, &r);
	fr = &p->frames[f];
	ck_assert_uint_eq(fr->nlines, 2);
	ck_assert_str_eq(line_func(p, fr->line0), "inner");
	ck_assert_str_eq(strtab_get(&p->str, p->lines[fr->line0].file), "/src/a.h");
	ck_assert_uint_eq(p->lines[fr->line0].line, 7);
	ck_assert_uint_eq(p->lines[fr->line0].flags, PM_LINE_INLINED);
	ck_assert_uint_eq(p->lines[fr->line0].symoff, 0);
	ck_assert_uint_eq(p->lines[fr->line0].start_line, 5);
	ck_assert_str_eq(line_func(p, fr->line0 + 1), "outer");
	ck_assert_uint_eq(p->lines[fr->line0 + 1].flags, 0);
	ck_assert_uint_eq(p->lines[fr->line0 + 1].symoff, 0x24);
	ck_assert_uint_eq(p->lines[fr->line0 + 1].start_line, 18);

	/* Named already: unchanged. */
	r.lv[1].func = "other";
	symbolize_add_levels(p, f, &r);
	ck_assert_uint_eq(p->frames[f].nlines, 2);
	ck_assert_str_eq(line_func(p, p->frames[f].line0 + 1), "outer");
	/* A place without a function is no name; no levels neither. */
	r.lv[1].func = NULL;
	symbolize_add_levels(p, g, &r);
	ck_assert_uint_eq(p->frames[g].nlines, 0);
	r.n = 0;
	symbolize_add_levels(p, g, &r);
	ck_assert_uint_eq(p->frames[g].nlines, 0);
	/* A level without a file: the empty string. */
	r.n = 1;
	r.lv[0] = (struct srcline){.func = "bare"};
	symbolize_add_levels(p, g, &r);
	ck_assert_uint_eq(p->frames[g].nlines, 1);
	ck_assert_str_eq(strtab_get(&p->str, p->lines[p->frames[g].line0].file), "");
	profile_free(p);
}
END_TEST

static bool is_resolved(uint32_t frame, void *arg)
{
	return frame == *(uint32_t *)arg;
}

/*
 * symbolize_profile names the frames without lines but those resolved
 * already, then adds the set's modules: path, build-id as hex, segments.
 */
START_TEST(test_profile)
{
	struct fixture fx;
	struct profile *p = profile_new();
	uint64_t outer = file_off(sym_outer), plain = file_off(sym_plain);
	uint32_t fa, fb, fc, fd;
	struct pm_line keep = {0};
	struct self self = {0};
	char hex[2 * BUILD_ID_MAX + 1];
	bool text = false;

	setup(&fx);
	fa = profile_intern_frame(p, 0, 0, outer + 1);
	fb = profile_intern_frame(p, 0, 0, plain + 1);
	fc = profile_intern_frame(p, PM_NONE, 0, 0x1234);
	fd = profile_intern_frame(p, 0, 0, plain + 2);
	keep.func = strtab_add(&p->str, "kept");
	profile_add_line(p, fb, &keep);

	ck_assert_uint_eq(symbolize_profile(p, fx.z, is_resolved, &fd, false), 0);
	ck_assert_uint_ge(p->frames[fa].nlines, 1);
	ck_assert_str_eq(line_func(p, p->frames[fa].line0 + p->frames[fa].nlines - 1), "sym_outer");
	ck_assert_uint_eq(p->lines[p->frames[fa].line0 + p->frames[fa].nlines - 1].symoff, 1);
	ck_assert_uint_eq(p->frames[fb].nlines, 1);
	ck_assert_str_eq(line_func(p, p->frames[fb].line0), "kept");
	ck_assert_uint_eq(p->frames[fc].nlines, 0);
	ck_assert_uint_eq(p->frames[fd].nlines, 0);

	ck_assert_uint_eq(p->nmodules, 1);
	ck_assert_str_eq(strtab_get(&p->str, p->modules[0].path), fx.path);
	ck_assert_uint_eq(p->modules[0].flags, 0);
	dl_iterate_phdr(find_self, &self);
	if (self.build_id_len) {
		build_id_hex(self.build_id, self.build_id_len, hex);
		ck_assert_str_eq(strtab_get(&p->str, p->modules[0].build_id), hex);
	}
	ck_assert_uint_gt(p->nsegments, 0);
	for (size_t i = 0; i < p->nsegments; i++) {
		const struct pm_segment *s = &p->segments[i];

		ck_assert_uint_eq(s->module, 0);
		if ((s->flags & PF_X) && s->offset <= outer && outer < s->offset + s->filesz)
			text = true;
	}
	ck_assert(text);
	profile_free(p);
	teardown(&fx);
}
END_TEST

/*
 * A module's facts taken while recording (symbolize_module_facts on the
 * naming thread, symbolize_set_module on the recorder's): the profile's
 * module gets its build-id and segments at once, and the final pass of
 * symbolize_modules adds no second copy of them.
 */
START_TEST(test_module_facts)
{
	struct fixture fx;
	struct profile *p = profile_new();
	struct module_facts f;
	size_t nsegs;

	setup(&fx);
	profile_intern_frame(p, 0, 0, file_off(sym_outer) + 1);
	symbolize_modules(p, fx.z, false);
	ck_assert_uint_eq(p->nmodules, 1);
	ck_assert_uint_eq(p->nsegments, 0);
	ck_assert_str_eq(strtab_get(&p->str, p->modules[0].build_id), "");
	/* Nothing read of it yet: only its kind. */
	symbolize_module_facts(fx.z, fx.z->mods->mods[0], &f);
	ck_assert_uint_eq(f.nsegs, 0);
	ck_assert_str_eq(f.build_id, "");
	symbolize_set_module(p, &f);
	free(f.segs);
	ck_assert_uint_eq(p->nsegments, 0);

	symfile_get(fx.z, fx.z->mods->mods[0]);
	symbolize_module_facts(fx.z, fx.z->mods->mods[0], &f);
	ck_assert_uint_eq(f.module, 0);
	ck_assert_uint_gt(f.nsegs, 0);
	symbolize_set_module(p, &f);
	symbolize_set_module(p, &f); /* told twice (a module read again): once */
	ck_assert_uint_eq(p->nsegments, f.nsegs);
	ck_assert_str_eq(strtab_get(&p->str, p->modules[0].build_id), f.build_id);
	nsegs = f.nsegs;
	free(f.segs);
	symbolize_modules(p, fx.z, true);
	ck_assert_uint_eq(p->nsegments, nsegs);
	for (size_t i = 0; i < p->nsegments; i++)
		ck_assert_uint_eq(p->segments[i].module, 0);
	profile_free(p);
	teardown(&fx);
}
END_TEST

/* The facts of two looks at one module are the same. */
static void same_facts(const struct module_facts *a, const struct module_facts *b)
{
	ck_assert_uint_eq(a->flags, b->flags);
	ck_assert_str_eq(a->build_id, b->build_id);
	ck_assert_ptr_eq(a->reason, b->reason);
	ck_assert_uint_eq(a->nsegs, b->nsegs);
	ck_assert_int_eq(memcmp(a->segs, b->segs, a->nsegs * sizeof(*a->segs)), 0);
}

/*
 * A module let go (symbolizer_retire) keeps only what the profile's
 * module table and the entry-point test take of it, not its symfile; its
 * facts and its entry point read the same from what is kept, and its
 * frames are named again from its file.
 */
START_TEST(test_retire_shrinks)
{
	struct fixture fx;
	struct module_facts before, after;
	struct symres r = {0};
	uint64_t entry = entry_off();

	setup(&fx);
	ck_assert_int_ge(symbolize_addr(fx.z, fx.exe, file_off(sym_outer) + 1, false, &r), 1);
	symres_release(&r);
	symbolize_module_facts(fx.z, fx.exe, &before);
	ck_assert_uint_gt(before.nsegs, 0);
	ck_assert_str_ne(before.build_id, "");
	ck_assert(symbolize_at_entry(fx.z, fx.exe, entry));

	symbolizer_retire(fx.z, fx.exe);
	ck_assert_ptr_null(fx.z->files[fx.exe->id]);
	ck_assert_uint_eq(fx.z->kept.count, 1);
	symbolize_module_facts(fx.z, fx.exe, &after);
	same_facts(&before, &after);
	free(after.segs);
	ck_assert_ptr_nonnull(fx.z->files[fx.exe->id]);
	ck_assert_uint_eq(fx.z->kept.count, 0);

	symbolizer_retire(fx.z, fx.exe);
	ck_assert_uint_eq(fx.z->kept.count, 1);
	ck_assert(symbolize_at_entry(fx.z, fx.exe, entry));
	ck_assert(!symbolize_at_entry(fx.z, fx.exe, file_off(sym_outer)));

	symbolizer_retire(fx.z, fx.exe);
	ck_assert_uint_eq(fx.z->kept.count, 1);
	ck_assert_int_ge(symbolize_addr(fx.z, fx.exe, file_off(sym_outer) + 1, false, &r), 1);
	ck_assert_str_eq(r.lv[r.n - 1].func, "sym_outer");
	symres_release(&r);
	ck_assert_uint_eq(fx.z->kept.count, 0);
	symbolize_module_facts(fx.z, fx.exe, &after);
	same_facts(&before, &after);
	free(after.segs);
	free(before.segs);

	/* Dropped, loaded or kept: nothing of its id is left, nor found again. */
	symbolizer_drop(fx.z, fx.exe->id);
	ck_assert_ptr_null(fx.z->files[fx.exe->id]);
	ck_assert_uint_eq(fx.z->build_ids.count, 0);
	symbolizer_retire(fx.z, fx.exe);
	ck_assert_uint_eq(fx.z->kept.count, 0); /* nothing loaded to keep */
	symbolize_addr(fx.z, fx.exe, file_off(sym_outer) + 1, false, &r);
	symres_release(&r);
	symbolizer_retire(fx.z, fx.exe);
	ck_assert_uint_eq(fx.z->kept.count, 1);
	symbolizer_drop(fx.z, fx.exe->id);
	ck_assert_uint_eq(fx.z->kept.count, 0);
	ck_assert_ptr_null(symfile_find(fx.z, fx.exe));
	teardown(&fx);
}
END_TEST

/* Cut short: nothing is named, and what was left is counted. */
START_TEST(test_profile_cut_short)
{
	struct fixture fx;
	struct profile *p = profile_new();
	uint32_t fa, fb;

	setup(&fx);
	fa = profile_intern_frame(p, 0, 0, file_off(sym_outer) + 1);
	fb = profile_intern_frame(p, 0, 0, file_off(sym_plain) + 1);
	profile_intern_frame(p, 7, 0, 0x10); /* no such module: not counted */
	ck_assert_uint_eq(symbolize_profile(p, fx.z, NULL, NULL, true), 2);
	ck_assert_uint_eq(p->frames[fa].nlines, 0);
	ck_assert_uint_eq(p->frames[fb].nlines, 0);
	/* The module is still listed, without what was not read. */
	ck_assert_uint_eq(p->nmodules, 1);
	ck_assert_str_eq(strtab_get(&p->str, p->modules[0].build_id), "");
	ck_assert_uint_eq(p->nsegments, 0);
	profile_free(p);
	teardown(&fx);
}
END_TEST

/*
 * The kept copies trimmed (zcache.h): three of 8 KiB, used in the order
 * a, b, c, and a file not named as a copy; trimmed to 16 KiB, a (the
 * least recently used) goes, the rest stay.
 */
START_TEST(test_zcache_trim)
{
	char dir[] = "/tmp/check-zcache-XXXXXX";
	static const char *const names[] = {"a.x", "b.x", "c.x", "other"};
	char block[8192];
	int dfd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(dfd, 0);
	memset(block, 'x', sizeof(block));
	for (int i = 0; i < 4; i++) {
		struct timespec t[2] = {{1000 + i, 0}, {1000 + i, 0}};
		int fd = openat(dfd, names[i], O_CREAT | O_WRONLY, 0600);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, block, sizeof(block)), (ssize_t)sizeof(block));
		ck_assert_int_eq(fsync(fd), 0);
		ck_assert_int_eq(futimens(fd, t), 0);
		close(fd);
	}
	zcache_trim(dfd, 16384);
	for (int i = 0; i < 4; i++)
		ck_assert_msg((faccessat(dfd, names[i], F_OK, 0) == 0) == (i != 0), "%s", names[i]);
	zcache_trim(dfd, 0);
	ck_assert_int_eq(faccessat(dfd, "other", F_OK, 0), 0);
	ck_assert_int_ne(faccessat(dfd, "c.x", F_OK, 0), 0);
	for (int i = 0; i < 4; i++)
		unlinkat(dfd, names[i], 0);
	close(dfd);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* The file of build-id id in cache directory dir (namecache.h). */
static void cache_file(const char *dir, const char *id, char *path, size_t n)
{
	snprintf(path, n, "%s/names/%s.n", dir, id);
}

/*
 * Names kept between recordings: an address's levels saved and read
 * back the same, once; a damaged file, one others may write to, and a
 * build-id that is no hex name nothing.
 */
/* A file of many entries, written a chunk at a time, read back whole. */
START_TEST(test_namecache_chunks)
{
	char dir[] = "/tmp/check-names-XXXXXX", func[64], path[256];
	struct symres r = {0}, got;
	struct namecache *c;
	size_t from_file;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	setenv("PERFMINI_CACHE_DIR", dir, 1);
	c = namecache_open("c0ffee");
	ck_assert_ptr_nonnull(c);
	r.n = 1;
	r.lv[0].file = "/src/many.c";
	r.lv[0].func = func;
	for (unsigned i = 0; i < 6000; i++) {
		snprintf(func, sizeof(func), "function_number_%u_of_a_big_program", i);
		r.lv[0].line = i + 1;
		namecache_add(c, 0x1000 + 16 * (uint64_t)i, &r);
	}
	ck_assert_int_eq(namecache_save(c), 0);
	namecache_free(c);

	c = namecache_open("c0ffee");
	ck_assert_uint_eq(namecache_count(c, &from_file), 6000);
	ck_assert_uint_eq(from_file, 6000);
	for (unsigned i = 0; i < 6000; i += 599) {
		snprintf(func, sizeof(func), "function_number_%u_of_a_big_program", i);
		ck_assert(namecache_find(c, 0x1000 + 16 * (uint64_t)i, &got));
		ck_assert_str_eq(got.lv[0].func, func);
		ck_assert_uint_eq(got.lv[0].line, i + 1);
	}
	ck_assert(namecache_find(c, 0x1000 + 16 * 5999, &got));
	ck_assert_uint_eq(got.lv[0].line, 6000);
	namecache_free(c);
	cache_file(dir, "c0ffee", path, sizeof(path));
	ck_assert_int_eq(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/names", dir);
	ck_assert_int_eq(rmdir(path), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(test_namecache)
{
	char dir[] = "/tmp/check-names-XXXXXX", path[256];
	struct symres r = {0}, got;
	struct namecache *c;
	size_t from_file;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	setenv("PERFMINI_CACHE_DIR", dir, 1);
	r.n = 2;
	r.symoff = 7;
	r.lv[0] = (struct srcline){.func = "inner",
				   .file = "/src/a.c",
				   .line = 3,
				   .col = 4,
				   .inlined = true,
				   .decl_line = 2};
	r.lv[1] = (struct srcline){
		.func = "outer", .line = 9, .entry = 0x1234, .symbol_suffix = true};
	ck_assert_ptr_null(namecache_open("ABCD"));
	ck_assert_ptr_null(namecache_open("../x"));
	ck_assert_ptr_null(namecache_open("a"));
	c = namecache_open("abcd12");
	ck_assert_ptr_nonnull(c);
	ck_assert(!namecache_find(c, 0x100, &got));
	namecache_add(c, 0x100, &r);
	namecache_add(c, 0x100, &r); /* once */
	got.n = 0;
	namecache_add(c, 0x200, &got); /* no name: not kept */
	ck_assert_uint_eq(namecache_count(c, &from_file), 1);
	ck_assert_int_eq(namecache_save(c), 0);
	namecache_free(c);

	c = namecache_open("abcd12");
	ck_assert_uint_eq(namecache_count(c, &from_file), 1);
	ck_assert_uint_eq(from_file, 1);
	ck_assert(namecache_find(c, 0x100, &got));
	ck_assert_int_eq(got.n, 2);
	ck_assert_uint_eq(got.symoff, 7);
	ck_assert_str_eq(got.lv[0].func, "inner");
	ck_assert_str_eq(got.lv[0].file, "/src/a.c");
	ck_assert_uint_eq(got.lv[0].line, 3);
	ck_assert_uint_eq(got.lv[0].col, 4);
	ck_assert(got.lv[0].inlined);
	ck_assert_uint_eq(got.lv[0].decl_line, 2);
	ck_assert_str_eq(got.lv[1].func, "outer");
	ck_assert_ptr_null(got.lv[1].file);
	ck_assert(!got.lv[1].inlined && got.lv[1].symbol_suffix);
	ck_assert_uint_eq(got.lv[1].entry, 0x1234);
	ck_assert(!namecache_find(c, 0x200, &got));
	namecache_free(c);

	/* Cut short: none of it. */
	cache_file(dir, "abcd12", path, sizeof(path));
	ck_assert_int_eq(truncate(path, 40), 0);
	c = namecache_open("abcd12");
	ck_assert_uint_eq(namecache_count(c, &from_file), 0);
	ck_assert(!namecache_find(c, 0x100, &got));
	/* Written anew, whole. */
	namecache_add(c, 0x100, &r);
	ck_assert_int_eq(namecache_save(c), 0);
	namecache_free(c);
	c = namecache_open("abcd12");
	ck_assert(namecache_find(c, 0x100, &got));
	namecache_free(c);

	/* A file others may write to is not believed. */
	ck_assert_int_eq(chmod(path, 0666), 0);
	c = namecache_open("abcd12");
	ck_assert(!namecache_find(c, 0x100, &got));
	namecache_free(c);

	/* Garbage of the right size and magic. */
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchmod(fd, 0600), 0);
	ck_assert_int_eq(write(fd, "PMNAMES1\x05\0\0\0\xff\xff\xff\xff", 16), 16);
	close(fd);
	c = namecache_open("abcd12");
	ck_assert_uint_eq(namecache_count(c, &from_file), 0);
	namecache_free(c);

	unlink(path);
	snprintf(path, sizeof(path), "%s/names", dir);
	ck_assert_int_eq(rmdir(path), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

static Suite *symbolize_suite(void)
{
	Suite *s = suite_create("symbolize");
	TCase *tc = tcase_create("symbolize");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_function_bytes);
	tcase_add_test(tc, test_twin);
	tcase_add_test(tc, test_names_shared);
	tcase_add_test(tc, test_names_file_gone);
	tcase_add_test(tc, test_vaddr);
	tcase_add_test(tc, test_no_lines);
	tcase_add_test(tc, test_perfmap);
	tcase_add_test(tc, test_add_levels);
	tcase_add_test(tc, test_profile);
	tcase_add_test(tc, test_profile_cut_short);
	tcase_add_test(tc, test_module_facts);
	tcase_add_test(tc, test_retire_shrinks);
	tcase_add_test(tc, test_namecache);
	tcase_add_test(tc, test_namecache_chunks);
	tcase_add_test(tc, test_zcache_trim);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(symbolize_suite());
}
