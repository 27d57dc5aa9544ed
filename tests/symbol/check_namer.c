/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_namer.c - the naming thread, on this test program's own file:
 * frames queued across many chunks are all named, each as symbolize_addr
 * names it on the caller's thread, and handed on once, drained while the
 * thread runs or after; counts add up; a frame never queued is not
 * resolved; the kernel's frames are named while its symbols are read
 * on a thread of their own; freeing a namer that was never finished ends
 * its thread.
 */
#include "config.h"

#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "elf/ksyms.h"
#include "symbol/namer.h"
#include "symbol/symfile.h"
#include "unit-helpers.h"
#include "util/alloc.h"
#include "util/array.h"

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
	struct symbolizer *z;
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
	k = (struct module_key){path, major(st.st_dev), minor(st.st_dev), st.st_ino, 0};
	module_set_init(&fx->mods);
	fx->z = symbolizer_new(&fx->mods, false);
	fx->exe = module_set_get(&fx->mods, &k, 0, 0, 0);
	ck_assert_int_ge(fx->exe->fd, 0);
	fx->off[0] = file_off(namer_target_a);
	fx->off[1] = file_off(namer_target_b);
}

static void teardown(struct fixture *fx)
{
	symbolizer_free(fx->z);
	module_set_release(&fx->mods);
}

/* What namer_drain handed on: each frame's outermost name, line and symbol offset. */
struct drained {
	uint32_t n;
	int levels[5000 + 8];
	char *func[5000 + 8];
	uint32_t line[5000 + 8];
	uint64_t symoff[5000 + 8];
};

/* The generation every test queues its frames under: handed back with each. */
#define GEN 7

static void take(uint32_t gen, uint32_t frame, const struct symres *r, void *arg)
{
	struct drained *d = arg;

	ck_assert_uint_eq(gen, GEN + frame % 2);
	ck_assert_uint_lt(frame, ARRAY_SIZE(d->levels));
	ck_assert_int_eq(d->levels[frame], -1); /* each frame once */
	ck_assert_ptr_null(r->symname);
	d->levels[frame] = r->n;
	if (r->n > 0) {
		d->func[frame] = xstrdup(r->lv[r->n - 1].func ? r->lv[r->n - 1].func : "");
		d->line[frame] = r->lv[r->n - 1].line;
	}
	d->symoff[frame] = r->symoff;
	d->n++;
}

static struct drained *drained_new(void)
{
	struct drained *d = xcalloc(1, sizeof(*d));

	for (size_t i = 0; i < ARRAY_SIZE(d->levels); i++)
		d->levels[i] = -1;
	return d;
}

static void drained_free(struct drained *d)
{
	for (size_t i = 0; i < ARRAY_SIZE(d->func); i++)
		free(d->func[i]);
	free(d);
}

/* Finishes n and drains it into d: each of the nqueued frames was named, and handed on. */
static void finish_all(struct namer *n, struct drained *d, uint32_t nqueued)
{
	uint64_t queued, done;

	ck_assert_int_eq(namer_finish(n, 0, NULL), 0);
	namer_counts(n, &queued, &done);
	ck_assert_uint_eq(queued, nqueued);
	ck_assert_uint_eq(done, nqueued);
	namer_drain(n, take, d);
	ck_assert_uint_eq(d->n, nqueued);
}

START_TEST(test_names_everything_queued)
{
	enum { N = 5000 }; /* several chunks of the queue */
	static const char *const want[2] = {"namer_target_a", "namer_target_b"};
	struct drained *d = drained_new();
	struct fixture fx;
	struct namer *n;

	setup(&fx);
	n = namer_start(fx.z, false);
	ck_assert_ptr_nonnull(n);
	for (uint32_t i = 0; i < N; i++) {
		namer_frame(n, fx.exe, GEN + i % 2, i, 0, fx.off[i % 2]);
		if (i % 1000 == 999)
			namer_drain(n, take, d); /* while the thread runs */
	}
	finish_all(n, d, N);
	for (uint32_t i = 0; i < N; i++) {
		ck_assert_msg(d->levels[i] > 0, "frame %u: no levels (%d)", i, d->levels[i]);
		ck_assert_str_eq(d->func[i], want[i % 2]);
	}
	/* Drained: nothing is handed on twice. */
	namer_drain(n, take, d);
	ck_assert_uint_eq(d->n, N);
	/* The same as naming on this thread, now that the namer's thread is gone. */
	for (int j = 0; j < 2; j++) {
		struct symres *r = xmalloc(sizeof(*r));
		int k = symbolize_addr(fx.z, fx.exe, fx.off[j], false, r);

		ck_assert_int_eq(d->levels[j], k);
		ck_assert_str_eq(r->lv[k - 1].func, d->func[j]);
		ck_assert_uint_eq(r->lv[k - 1].line, d->line[j]);
		ck_assert_uint_eq(r->symoff, d->symoff[j]);
		symres_release(r);
		free(r);
	}
	namer_free(n);
	drained_free(d);
	teardown(&fx);
}
END_TEST

/* The address of kernel function name in /proc/kallsyms, 0 when hidden or unreadable. */
static uint64_t kernel_addr(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], sym[256], type;
	unsigned long long a;
	uint64_t found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 && !strcmp(sym, name))
			found = a;
	fclose(f);
	return found;
}

/*
 * Frames of the kernel among a program's: the kernel's symbols are read
 * on a thread of their own while the program's frames are named, queued
 * while the thread runs (set aside, then named once they are read) and
 * at the stop (named last); each named as on the caller's thread after.
 */
START_TEST(test_kernel_frames_among_others)
{
	enum { N = 600 };
	struct drained *d = drained_new();
	struct fixture fx;
	struct module *kernel;
	struct namer *n;
	uint64_t kaddr = kernel_addr("schedule");
	struct symres *r = xmalloc(sizeof(*r));
	int k;

	setup(&fx);
	kernel = module_set_kernel(&fx.mods);
	n = namer_start(fx.z, false);
	ck_assert_ptr_nonnull(n);
	for (uint32_t i = 0; i < N; i++) {
		if (i % 3 == 0)
			namer_frame(n, kernel, GEN + i % 2, i, 0, kaddr + 4);
		else
			namer_frame(n, fx.exe, GEN + i % 2, i, 0, fx.off[i % 2]);
		if (i == N / 2)
			namer_drain(n, take, d);
	}
	finish_all(n, d, N);
	k = symbolize_addr(fx.z, kernel, kaddr + 4, false, r);
	for (uint32_t i = 0; i < N; i += 3) {
		ck_assert_int_eq(d->levels[i], k);
		if (k > 0)
			ck_assert_str_eq(d->func[i], r->lv[k - 1].func);
	}
	/* Readable symbols (perf events need them anyway): the kernel's frames have names. */
	if (kaddr)
		ck_assert_str_eq(d->func[0], "schedule");
	for (uint32_t i = 1; i < N; i += 3)
		ck_assert_str_eq(d->func[i], i % 2 ? "namer_target_b" : "namer_target_a");
	symres_release(r);
	free(r);
	namer_free(n);
	drained_free(d);
	teardown(&fx);
}
END_TEST

/* A recording that fails before its stop frees a namer never finished. */
START_TEST(test_free_unfinished)
{
	struct fixture fx;
	struct namer *n;

	setup(&fx);
	n = namer_start(fx.z, false);
	ck_assert_ptr_nonnull(n);
	for (uint32_t i = 0; i < 300; i++)
		namer_frame(n, fx.exe, GEN + i % 2, i, 0, fx.off[i % 2]);
	/* A kernel frame too: the reading of its symbols may still be under way. */
	namer_frame(n, module_set_kernel(&fx.mods), GEN, 300, 0, KSYMS_HIGH);
	namer_free(n); /* joins the thread: the symbolizer is the caller's again */
	teardown(&fx);
}
END_TEST

/* A module's facts, as namer_drain_modules hands them on. */
struct facts_seen {
	int n;
	uint32_t module;
	size_t nsegs;
};

static void count_fact(const struct module_facts *f, void *arg)
{
	struct facts_seen *seen = arg;

	seen->n++;
	seen->module = f->module;
	seen->nsegs = f->nsegs;
}

/* How many frames the thread has named so far. */
static uint64_t named(struct namer *n)
{
	uint64_t queued, done;

	namer_counts(n, &queued, &done);
	return done;
}

/*
 * Frames queued while the thread sleeps are named once namer_kick wakes
 * it, before any namer_finish; the module's facts come once, with its
 * first frame. A kick within 50 ms of the last wakes nothing: the
 * recorder kicks every round, as the second wait here does.
 */
START_TEST(test_kick)
{
	struct facts_seen seen = {0};
	struct fixture fx;
	struct namer *n;
	int k;

	setup(&fx);
	n = namer_start(fx.z, false);
	ck_assert_ptr_nonnull(n);
	usleep(50000); /* the thread asleep, with nothing queued */
	namer_frame(n, fx.exe, GEN, 0, 0, fx.off[0]);
	namer_kick(n);
	for (k = 0; k < 1000 && named(n) < 1; k++)
		usleep(10000);
	ck_assert_msg(named(n) == 1, "not named 10 s after the kick");
	namer_drain_modules(n, count_fact, &seen);
	ck_assert_int_eq(seen.n, 1);
	ck_assert_uint_eq(seen.module, fx.exe->id);
	ck_assert_uint_gt(seen.nsegs, 0);
	namer_frame(n, fx.exe, GEN + 1, 1, 0, fx.off[1]);
	namer_kick(n);
	namer_kick(n); /* nothing new: no second wakeup needed */
	for (k = 0; k < 1000 && named(n) < 2; k++) {
		usleep(10000);
		namer_kick(n);
	}
	ck_assert_uint_eq(named(n), 2);
	namer_drain_modules(n, count_fact, &seen);
	ck_assert_int_eq(seen.n, 1); /* told once */
	ck_assert_int_eq(namer_finish(n, 0, NULL), 0);
	namer_free(n);
	teardown(&fx);
}
END_TEST

/* An empty queue finishes at once. */
START_TEST(test_nothing_queued)
{
	struct fixture fx;
	struct namer *n;
	uint64_t queued = 1, done = 1;

	setup(&fx);
	n = namer_start(fx.z, false);
	ck_assert_ptr_nonnull(n);
	ck_assert_int_eq(namer_finish(n, 0, NULL), 0);
	namer_counts(n, &queued, &done);
	ck_assert_uint_eq(queued, 0);
	ck_assert_uint_eq(done, 0);
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
	tcase_add_test(tc, test_kernel_frames_among_others);
	tcase_add_test(tc, test_free_unfinished);
	tcase_add_test(tc, test_nothing_queued);
	tcase_add_test(tc, test_kick);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(namer_suite());
}
