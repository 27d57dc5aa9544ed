/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_namer.c - the naming thread, on this test program's own file:
 * frames queued across many chunks are all named, each as symbolize_addr
 * names it on the caller's thread; counts add up; a frame never queued has
 * no result; freeing a namer that was never finished ends its thread.
 */
#include "config.h"

#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "symbol/namer.h"
#include "symbol/symfile.h"
#include "unit-helpers.h"
#include "util/util.h"

__attribute__((noinline)) int namer_target_a(int x);
__attribute__((noinline)) int namer_target_b(int x);

__attribute__((noinline)) int namer_target_a(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int namer_target_b(int x)
{
	return x * 5 + 2;
}

struct fixture {
	struct module_set mods;
	struct symbolizer z;
	struct module *exe;
	uint64_t off[2]; /* file offsets of namer_target_a and _b, a few bytes in */
};

struct find {
	uintptr_t addr;
	uint64_t off;
	bool found;
};

/* The file offset of addr in the main program, through its PT_LOAD headers. */
static int find_off(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find *f = arg;

	(void)size;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0; /* the main program has an empty name */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t vaddr = f->addr - info->dlpi_addr;

		if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr &&
		    vaddr < ph->p_vaddr + ph->p_filesz) {
			f->off = vaddr - ph->p_vaddr + ph->p_offset;
			f->found = true;
			return 1;
		}
	}
	return 0;
}

static uint64_t file_off(int (*fn)(int))
{
	struct find f = {(uintptr_t)fn + 2, 0, false};

	dl_iterate_phdr(find_off, &f);
	ck_assert_msg(f.found, "no PT_LOAD holds the function");
	return f.off;
}

static void setup(struct fixture *fx)
{
	char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	struct stat st;
	struct module_key k;

	ck_assert(n > 0);
	path[n] = '\0';
	ck_assert_int_eq(stat(path, &st), 0);
	k = (struct module_key){path, major(st.st_dev), minor(st.st_dev), st.st_ino};
	module_set_init(&fx->mods);
	symbolizer_init(&fx->z, &fx->mods, false);
	fx->exe = module_set_get(&fx->mods, &k, 0, 0, 0);
	ck_assert_int_ge(fx->exe->fd, 0);
	fx->off[0] = file_off(namer_target_a);
	fx->off[1] = file_off(namer_target_b);
}

static void teardown(struct fixture *fx)
{
	symbolizer_release(&fx->z);
	module_set_release(&fx->mods);
}

START_TEST(test_names_everything_queued)
{
	enum { N = 5000 }; /* several chunks of the queue */
	static const char *const want[2] = {"namer_target_a", "namer_target_b"};
	struct fixture fx;
	struct namer *n;
	struct symres *r = xmalloc(sizeof(*r));
	uint64_t queued, done;

	setup(&fx);
	n = namer_start(&fx.z);
	ck_assert_ptr_nonnull(n);
	for (uint32_t i = 0; i < N; i++)
		namer_frame(n, fx.exe, i, fx.off[i % 2]);
	ck_assert_int_eq(namer_finish(n, 0, NULL), 0);
	namer_counts(n, &queued, &done);
	ck_assert_uint_eq(queued, N);
	ck_assert_uint_eq(done, N);
	for (uint32_t i = 0; i < N; i++) {
		int k = namer_levels(n, i, r);

		ck_assert_msg(k > 0, "frame %u: no levels (%d)", i, k);
		ck_assert_ptr_nonnull(r->lv[k - 1].func);
		ck_assert_str_eq(r->lv[k - 1].func, want[i % 2]);
		ck_assert_ptr_null(r->symname); /* the namer keeps its strings */
	}
	ck_assert_int_eq(namer_levels(n, N + 5, r), -1);
	/* The same as naming on this thread, now that the namer's thread is gone. */
	for (int j = 0; j < 2; j++) {
		struct symres *d = xmalloc(sizeof(*d));
		int k = symbolize_addr(&fx.z, fx.exe, fx.off[j], false, d);

		ck_assert_int_eq(namer_levels(n, (uint32_t)j, r), k);
		ck_assert_str_eq(d->lv[k - 1].func, r->lv[k - 1].func);
		ck_assert_uint_eq(d->lv[k - 1].line, r->lv[k - 1].line);
		ck_assert_uint_eq(d->symoff, r->symoff);
		symres_release(d);
		free(d);
	}
	namer_free(n);
	free(r);
	teardown(&fx);
}
END_TEST

/* A recording that fails before its stop frees a namer never finished. */
START_TEST(test_free_unfinished)
{
	struct fixture fx;
	struct namer *n;

	setup(&fx);
	n = namer_start(&fx.z);
	ck_assert_ptr_nonnull(n);
	for (uint32_t i = 0; i < 300; i++)
		namer_frame(n, fx.exe, i, fx.off[i % 2]);
	namer_free(n); /* joins the thread: the symbolizer is the caller's again */
	teardown(&fx);
}
END_TEST

/* An empty queue finishes at once. */
START_TEST(test_nothing_queued)
{
	struct fixture fx;
	struct namer *n;
	struct symres r;
	uint64_t queued = 1, done = 1;

	setup(&fx);
	n = namer_start(&fx.z);
	ck_assert_ptr_nonnull(n);
	ck_assert_int_eq(namer_finish(n, 0, NULL), 0);
	namer_counts(n, &queued, &done);
	ck_assert_uint_eq(queued, 0);
	ck_assert_uint_eq(done, 0);
	ck_assert_int_eq(namer_levels(n, 0, &r), -1);
	namer_free(n);
	teardown(&fx);
}
END_TEST

static Suite *namer_suite(void)
{
	Suite *s = suite_create("namer");
	TCase *tc = tcase_create("thread");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_names_everything_queued);
	tcase_add_test(tc, test_free_unfinished);
	tcase_add_test(tc, test_nothing_queued);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(namer_suite());
}
