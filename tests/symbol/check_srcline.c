/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_srcline.c - source lines on this test program's own file (built
 * with -g, its code in many units): what symbolizer_trim drops of the
 * units' line rows and scope indexes above its budget is read again at the
 * next lookup, which then answers as before; the strings given out before
 * stay valid and are the same strings; under the budget nothing is
 * dropped. A module let go when idle is read again as it was.
 */
#include "config.h"

#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "symbol/srcline.h"
#include "symbol/symbolize.h"
#include "symbol/symfile-int.h" /* white-box: the symfile's caches */
#include "unit-helpers.h"
#include "util/alloc.h"
#include "util/clock.h"

enum { NADDR = 400 };

/* The file range of the main program's executable segment. */
struct text {
	uint64_t off, size;
};

static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct text *t = arg;

	(void)size;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0; /* the main program has an empty name */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			t->off = ph->p_offset;
			t->size = ph->p_filesz;
			return 1;
		}
	}
	return 0;
}

/* What one lookup gave: each level's strings as pointers and as copies. */
struct answer {
	int n;
	const char *file[SRCLINE_MAX_DEPTH];
	char *file_copy[SRCLINE_MAX_DEPTH];
	char *func_copy[SRCLINE_MAX_DEPTH];
	uint32_t line[SRCLINE_MAX_DEPTH];
};

static void keep(struct answer *a, const struct symres *r)
{
	a->n = r->n;
	for (int k = 0; k < r->n; k++) {
		a->file[k] = r->lv[k].file;
		a->file_copy[k] = r->lv[k].file ? xstrdup(r->lv[k].file) : NULL;
		a->func_copy[k] = r->lv[k].func ? xstrdup(r->lv[k].func) : NULL;
		a->line[k] = r->lv[k].line;
	}
}

static void same(const struct answer *a, const struct symres *r, uint64_t off)
{
	ck_assert_msg(r->n == a->n, "%#llx: %d levels, before %d", (unsigned long long)off, r->n,
		      a->n);
	for (int k = 0; k < r->n; k++) {
		ck_assert_uint_eq(r->lv[k].line, a->line[k]);
		/* The same string, still holding what it held. */
		ck_assert_ptr_eq(r->lv[k].file, a->file[k]);
		if (a->file[k])
			ck_assert_str_eq(a->file[k], a->file_copy[k]);
		if (a->func_copy[k])
			ck_assert_str_eq(r->lv[k].func, a->func_copy[k]);
		else
			ck_assert_ptr_null(r->lv[k].func);
	}
}

static void forget(struct answer *a)
{
	for (int k = 0; k < a->n; k++) {
		free(a->file_copy[k]);
		free(a->func_copy[k]);
	}
}

/*
 * This test program as a module of mods, named by z (both set up here),
 * and the file range of its text in *text.
 */
static struct module *self_module(struct module_set *mods, struct symbolizer **z, struct text *text)
{
	static char path[4096];
	ssize_t len = readlink("/proc/self/exe", path, sizeof(path) - 1);
	struct module_key key;
	struct stat st;

	ck_assert(len > 0);
	path[len] = '\0';
	ck_assert_int_eq(stat(path, &st), 0);
	key = (struct module_key){path, major(st.st_dev), minor(st.st_dev), st.st_ino, 0};
	module_set_init(mods);
	*z = symbolizer_new(mods, false);
	text->off = text->size = 0;
	dl_iterate_phdr(find_text, text);
	return module_set_get(mods, &key, 0, 0, 0);
}

START_TEST(test_trim_and_read_again)
{
	struct answer *before = xcalloc(NADDR, sizeof(*before));
	struct symres *r = xmalloc(sizeof(*r));
	struct module_set mods;
	struct symbolizer *z;
	struct text text;
	struct module *exe = self_module(&mods, &z, &text);
	struct symfile *f;
	int with_lines = 0;
	size_t held;

	ck_assert_uint_gt(text.size, 64 * 1024);

	/* Addresses spread over the whole text: code of many units. */
	for (int i = 0; i < NADDR; i++) {
		uint64_t off = text.off + text.size / NADDR * (uint64_t)i;

		symbolize_addr(z, exe, off, false, r);
		keep(&before[i], r);
		with_lines += r->n > 0 && r->lv[0].line > 0;
		symres_release(r);
	}
	ck_assert_int_gt(with_lines, NADDR / 4); /* Check itself has no DWARF */
	f = symfile_find(z, exe);
	ck_assert_ptr_nonnull(f);
	held = srcline_held(f);
	ck_assert_uint_gt(held, 0);

	/* Under the budget: nothing goes. */
	z->lines_budget = held;
	symbolizer_trim(z);
	symbolizer_trim(z);
	ck_assert_uint_eq(srcline_held(f), held);

	/* Over it: what was not looked up in since the last trim goes, here all of it. */
	z->lines_budget = 0;
	symbolizer_trim(z);
	ck_assert_uint_eq(srcline_held(f), 0);
	for (int i = 0; i < NADDR; i++) {
		uint64_t off = text.off + text.size / NADDR * (uint64_t)i;

		symbolize_addr(z, exe, off, false, r);
		same(&before[i], r, off);
		symres_release(r);
		if (i == NADDR / 2) {
			/* Used since the last trim: kept by the next, dropped by the one after. */
			symbolizer_trim(z);
			ck_assert_uint_gt(srcline_held(f), 0);
			symbolizer_trim(z);
			ck_assert_uint_eq(srcline_held(f), 0);
		}
	}
	/* A lookup with a line reads its unit's again. */
	for (int i = 0; i < NADDR && srcline_held(f) == 0; i++) {
		if (before[i].n > 0 && before[i].line[0] > 0) {
			symbolize_addr(z, exe, text.off + text.size / NADDR * (uint64_t)i, false,
				       r);
			same(&before[i], r, (uint64_t)i);
			symres_release(r);
		}
	}
	ck_assert_uint_gt(srcline_held(f), 0);
	for (int i = 0; i < NADDR; i++)
		forget(&before[i]);
	free(before);
	free(r);
	symbolizer_free(z);
	module_set_release(&mods);
}
END_TEST

/* Whether a lookup gave what a before gave, by content (the strings may have moved). */
static void same_content(const struct answer *a, const struct symres *r, uint64_t off)
{
	ck_assert_msg(r->n == a->n, "%#llx: %d levels, before %d", (unsigned long long)off, r->n,
		      a->n);
	for (int k = 0; k < r->n; k++) {
		ck_assert_uint_eq(r->lv[k].line, a->line[k]);
		if (a->file_copy[k])
			ck_assert_str_eq(r->lv[k].file, a->file_copy[k]);
		if (a->func_copy[k])
			ck_assert_str_eq(r->lv[k].func, a->func_copy[k]);
	}
}

/*
 * symbolizer_forget_idle lets go of a module not given out for the idle
 * time: its symbols, DWARF and lines go, its build-id and segments stay;
 * naming it again reads it again, with the same answers. A module used
 * within the idle time stays.
 */
START_TEST(test_forget_idle)
{
	struct answer *before = xcalloc(NADDR, sizeof(*before));
	struct symres *r = xmalloc(sizeof(*r));
	struct module_set mods;
	struct symbolizer *z;
	struct text text;
	struct module *exe = self_module(&mods, &z, &text);
	struct symfile *f;
	uint8_t build_id[BUILD_ID_MAX];
	size_t build_id_len, nsegs;

	for (int i = 0; i < NADDR; i++) {
		symbolize_addr(z, exe, text.off + text.size / NADDR * (uint64_t)i, false, r);
		keep(&before[i], r);
		symres_release(r);
	}
	f = symfile_find(z, exe);
	ck_assert_uint_gt(f->syms.n, 0);
	ck_assert_uint_gt(srcline_held(f), 0);
	build_id_len = f->build_id_len;
	memcpy(build_id, f->build_id, sizeof(build_id));
	nsegs = f->nsegs;
	ck_assert_uint_gt(nsegs, 0);

	/* Used a moment ago: kept. */
	ck_assert_uint_eq(symbolizer_forget_idle(z, now_coarse_ns(), 60000000000ULL), 0);
	ck_assert(!f->unloaded);
	/* A minute later, idle all that time: let go. */
	ck_assert_uint_eq(symbolizer_forget_idle(z, f->used_ns + 60000000000ULL, 60000000000ULL),
			  1);
	ck_assert_ptr_eq(symfile_find(z, exe), f);
	ck_assert(f->unloaded);
	ck_assert_uint_eq(f->syms.n, 0);
	ck_assert_uint_eq(srcline_held(f), 0);
	ck_assert_ptr_null(f->dwfl);
	ck_assert_uint_eq(f->build_id_len, build_id_len);
	ck_assert_mem_eq(f->build_id, build_id, build_id_len);
	ck_assert_uint_eq(f->nsegs, nsegs);
	/* Once only. */
	ck_assert_uint_eq(symbolizer_forget_idle(z, f->used_ns + 120000000000ULL, 1), 0);
	/* Whether code is at its entry point is still known: it is not read again for that. */
	ck_assert(!symbolize_at_entry(z, exe, text.off + text.size - 1));
	ck_assert(f->unloaded);

	for (int i = 0; i < NADDR; i++) {
		uint64_t off = text.off + text.size / NADDR * (uint64_t)i;

		symbolize_addr(z, exe, off, false, r);
		same_content(&before[i], r, off);
		symres_release(r);
	}
	f = symfile_find(z, exe);
	ck_assert(!f->unloaded);
	ck_assert_uint_gt(f->syms.n, 0);
	ck_assert_uint_eq(f->build_id_len, build_id_len);
	/* One module, at once, whatever its idle time; once. */
	ck_assert(symbolizer_forget(z, exe));
	ck_assert(f->unloaded);
	ck_assert(!symbolizer_forget(z, exe));
	symbolize_addr(z, exe, text.off + text.size / 2, false, r);
	symres_release(r);
	f = symfile_find(z, exe);
	ck_assert(!f->unloaded);
	/* Old: let go at its age, used or not (symbolizer_forget_old), once. */
	ck_assert_uint_eq(symbolizer_forget_old(z, f->loaded_ns + 299, 300), 0);
	ck_assert_uint_eq(symbolizer_forget_old(z, f->loaded_ns + 300, 300), 1);
	ck_assert(f->unloaded);
	ck_assert_uint_eq(symbolizer_forget_old(z, f->loaded_ns + 900, 300), 0);
	symbolize_addr(z, exe, text.off + text.size / NADDR * (NADDR / 2), false, r);
	same_content(&before[NADDR / 2], r, text.off + text.size / NADDR * (NADDR / 2));
	symres_release(r);
	ck_assert(!symfile_find(z, exe)->unloaded);
	/* Never the kernel's symbols. */
	symfile_get(z, module_set_kernel(&mods));
	ck_assert(!symbolizer_forget(z, module_set_kernel(&mods)));
	for (int i = 0; i < NADDR; i++)
		forget(&before[i]);
	free(before);
	free(r);
	symbolizer_free(z);
	module_set_release(&mods);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("srcline");
	TCase *tc = tcase_create("trim");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_trim_and_read_again);
	tcase_add_test(tc, test_forget_idle);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
