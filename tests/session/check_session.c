/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_session.c - the recording engine fed canned records, with no perf
 * event opened: a process of this test's own pid that execs, maps this
 * test's own program (the mapping it really has, so that its file is
 * pinned and named), forks a thread that exits, is sampled with
 * frame-pointer chains and with a stack copy, loses records, and (with
 * --off-cpu) is switched out and in. What the data file holds afterwards
 * is checked as report reads it: every sample, both threads under the
 * name the exec gave, the stacks named canned_leaf under canned_caller
 * (the copy unwound by this program's own tables), the lost records and
 * the off-CPU span with its stack and length.
 */
#include "config.h"

#include <asm/perf_regs.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "capture/event.h"
#include "session/session.h"
#include "stack/cfi.h"
#include "stack/unwind.h"
#include "store/datafile.h"
#include "unit-helpers.h"
#include "unit-records.h"
#include "util/alloc.h"

/* The fields of every sample, and of every record's sample_id. */
#define ST_BASE                                                                  \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

/* Canned times: the session's clock starts at 1 offline. */
#define T0 1000000ULL

static volatile int sink;
static uintptr_t leaf_ret, caller_ret; /* return addresses into canned_caller and its caller */

__attribute__((noinline, noipa)) static int canned_leaf(int n)
{
	leaf_ret = (uintptr_t)__builtin_return_address(0);
	for (int i = 0; i < n; i++)
		sink += i;
	return sink;
}

__attribute__((noinline, noipa)) static int canned_caller(int n)
{
	int r;

	caller_ret = (uintptr_t)__builtin_return_address(0);
	r = canned_leaf(n) + 1;
	sink++; /* no tail call */
	return r;
}

/* This program's mapping that holds canned_leaf, as /proc/self/maps says. */
struct exe_map {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min;
	char path[PATH_MAX];
};

static void find_exe_map(struct exe_map *m)
{
	FILE *f = fopen("/proc/self/maps", "r");
	uintptr_t at = (uintptr_t)&canned_leaf;
	char line[PATH_MAX + 128];
	bool found = false;

	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off, ino;
		unsigned maj, min;
		int n = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu %n", &lo, &hi, &off, &maj, &min,
			   &ino, &n) < 6 ||
		    at < lo || at >= hi)
			continue;
		*m = (struct exe_map){lo, hi, off, ino, maj, min, ""};
		snprintf(m->path, sizeof(m->path), "%s", line + n);
		m->path[strcspn(m->path, "\n")] = '\0';
		found = true;
	}
	fclose(f);
	ck_assert(found);
}

struct fixture {
	char dir[64], path[96];
	struct record_opts o;
	struct decode_layout layout;
	struct session *s;
	struct exe_map exe;
	uint32_t pid;
	struct rb r;
};

static void fx_init(struct fixture *fx, bool off_cpu, bool copy)
{
	memset(fx, 0, sizeof(*fx));
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/check_session.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fx->dir));
	snprintf(fx->path, sizeof(fx->path), "%s/canned.data", fx->dir);
	fx->o.ev.ev = event_find("cpu-clock");
	fx->o.ev.freq = 999;
	fx->o.ev.callchain = true;
	fx->o.output = fx->path;
	fx->o.name_timeout = 30;
	fx->o.off_cpu = fx->o.off_cpu_only = off_cpu;
	fx->layout.sample_type = ST_BASE;
	fx->layout.sample_id_all = true;
	if (copy) {
		fx->o.ev.hybrid = true;
		fx->o.ev.dwarf_stack = 64;
		fx->layout.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		fx->layout.regs_user_mask = unwind_regs_mask();
	}
	find_exe_map(&fx->exe);
	fx->pid = (uint32_t)getpid();
	canned_caller(3); /* the return addresses, for the chains */
	fx->s = session_new_offline(&fx->o, &fx->layout);
	ck_assert_ptr_nonnull(fx->s);
}

/* The session stopped, the file read back (owned by the caller). */
static struct profile *fx_stop(struct fixture *fx)
{
	static const volatile sig_atomic_t no = 0;
	char err[256];
	size_t written = 0;
	struct profile *p;

	ck_assert_int_eq(session_stop(fx->s, &no, &written), 0);
	ck_assert_uint_gt(written, 0);
	session_free(fx->s);
	p = datafile_read(fx->path, false, err, sizeof(err));
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_uint_eq(p->cut_at, 0);
	unlink(fx->path);
	rmdir(fx->dir);
	return p;
}

/* The trailing sample_id of ST_BASE. */
static void sid(struct rb *r, uint32_t pid, uint32_t tid, uint64_t time)
{
	rb_u32x2(r, pid, tid);
	rb_u64(r, time);
	rb_u32x2(r, 0, 0);
}

static void feed(struct fixture *fx)
{
	session_feed(fx->s, fx->r.b, rb_end(&fx->r));
}

static void comm(struct fixture *fx, uint32_t tid, const char *name, bool exec, uint64_t t)
{
	rb_begin(&fx->r, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	rb_u32x2(&fx->r, fx->pid, tid);
	rb_string(&fx->r, name);
	sid(&fx->r, fx->pid, tid, t);
	feed(fx);
}

static void mmap_exe(struct fixture *fx, uint64_t t)
{
	rb_begin(&fx->r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	rb_u32x2(&fx->r, fx->pid, fx->pid);
	rb_u64(&fx->r, fx->exe.start);
	rb_u64(&fx->r, fx->exe.end - fx->exe.start);
	rb_u64(&fx->r, fx->exe.pgoff);
	rb_u32x2(&fx->r, fx->exe.maj, fx->exe.min);
	rb_u64(&fx->r, fx->exe.ino);
	rb_u64(&fx->r, 0);
	rb_u32x2(&fx->r, PROT_READ | PROT_EXEC, MAP_PRIVATE);
	rb_string(&fx->r, fx->exe.path);
	sid(&fx->r, fx->pid, fx->pid, t);
	feed(fx);
}

/* FORK or EXIT of thread tid of the process. */
static void task(struct fixture *fx, uint32_t type, uint32_t tid, uint64_t t)
{
	rb_begin(&fx->r, type, 0);
	rb_u32x2(&fx->r, fx->pid, fx->pid);
	rb_u32x2(&fx->r, tid, fx->pid);
	rb_u64(&fx->r, t);
	sid(&fx->r, fx->pid, tid, t);
	feed(fx);
}

/* A sample's fields up to its call chain, which is canned_leaf's under canned_caller. */
static void sample_head(struct fixture *fx, uint32_t tid, uint64_t t, uint16_t misc)
{
	rb_begin(&fx->r, PERF_RECORD_SAMPLE, misc);
	rb_u64(&fx->r, (uintptr_t)&canned_leaf);
	rb_u32x2(&fx->r, fx->pid, tid);
	rb_u64(&fx->r, t);
	rb_u32x2(&fx->r, 0, 0);
	rb_u64(&fx->r, 1001001);
}

static void sample_fp(struct fixture *fx, uint32_t tid, uint64_t t)
{
	sample_head(fx, tid, t, PERF_RECORD_MISC_USER);
	rb_u64(&fx->r, 4);
	rb_u64(&fx->r, (uint64_t)PERF_CONTEXT_USER);
	rb_u64(&fx->r, (uintptr_t)&canned_leaf + 1);
	rb_u64(&fx->r, leaf_ret);
	rb_u64(&fx->r, caller_ret);
	feed(fx);
}

static void lost(struct fixture *fx, uint64_t n, uint64_t t)
{
	rb_begin(&fx->r, PERF_RECORD_LOST, 0);
	rb_u64(&fx->r, 1);
	rb_u64(&fx->r, n);
	sid(&fx->r, fx->pid, fx->pid, t);
	feed(fx);
}

/* The number of samples of p whose stack has canned_leaf called from canned_caller. */
static size_t named_stacks(const struct profile *p, uint32_t tid)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pm_sample *s = &p->samples[i];
		const struct pm_stack *st = &p->stacks[s->stack];
		bool leaf = false, caller = false;

		if (s->tid != tid)
			continue;
		for (uint32_t d = 0; d < st->depth; d++) {
			const struct pm_frame *f = &p->frames[p->stack_frames[st->off + d]];
			const char *name;

			if (!f->nlines)
				continue;
			name = strtab_get(&p->str, p->lines[f->line0 + f->nlines - 1].func);
			if (!strcmp(name, "canned_leaf"))
				leaf = true;
			else if (leaf && !strcmp(name, "canned_caller"))
				caller = true;
		}
		n += leaf && caller;
	}
	return n;
}

static const struct pm_thread *find_thread(const struct profile *p, uint32_t tid)
{
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i].tid == tid)
			return &p->threads[i];
	return NULL;
}

/*
 * An exec, a mapping, samples of two threads (one forked and exited),
 * lost records: what the file holds.
 */
START_TEST(test_session_samples)
{
	struct fixture fx;
	struct profile *p;
	const struct pm_thread *t;
	uint32_t child;

	fx_init(&fx, false, false);
	child = fx.pid + 1;
	comm(&fx, fx.pid, "canned", true, T0);
	mmap_exe(&fx, T0 + 1);
	for (int i = 0; i < 10; i++)
		sample_fp(&fx, fx.pid, T0 + 100 + (uint64_t)i);
	task(&fx, PERF_RECORD_FORK, child, T0 + 200);
	for (int i = 0; i < 5; i++)
		sample_fp(&fx, child, T0 + 300 + (uint64_t)i);
	task(&fx, PERF_RECORD_EXIT, child, T0 + 400);
	lost(&fx, 7, T0 + 500);
	p = fx_stop(&fx);

	ck_assert_uint_eq(p->nsamples, 15);
	ck_assert_uint_eq(named_stacks(p, fx.pid), 10);
	ck_assert_uint_eq(named_stacks(p, child), 5);
	t = find_thread(p, fx.pid);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(strtab_get(&p->str, t->comm), "canned");
	t = find_thread(p, child);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(strtab_get(&p->str, t->comm), "canned");
	ck_assert_str_eq(strtab_get(&p->str, p->samples[14].comm), "canned");
	ck_assert_str_eq(profile_get_meta(p, "lost-records"), "7");
	ck_assert_str_eq(profile_get_meta(p, "samples"), "15");
	/* The module: this program, whose owner the file keeps. */
	ck_assert_uint_ge(p->nmodules, 1);
	{
		struct stat st;
		bool seen = false;

		ck_assert_int_eq(stat(fx.exe.path, &st), 0);
		for (size_t i = 0; i < p->nmodules; i++)
			if (!strcmp(strtab_get(&p->str, p->modules[i].path), fx.exe.path)) {
				ck_assert_uint_eq(p->modules[i].owner, st.st_uid);
				seen = true;
			}
		ck_assert(seen);
	}
	profile_free(p);
}
END_TEST

/*
 * A sample with a stack copy: canned_leaf sampled at its first
 * instruction, its frame and canned_caller's laid out as they are at
 * that moment (frame pointers kept), the caller's caller's return
 * address last, then an end of the stack. The copy is unwound by this
 * program's tables.
 */
START_TEST(test_session_stack_copy)
{
	static const int perf_of[CFI_NREGS] = {
		PERF_REG_X86_AX,  PERF_REG_X86_DX,  PERF_REG_X86_CX,  PERF_REG_X86_BX,
		PERF_REG_X86_SI,  PERF_REG_X86_DI,  PERF_REG_X86_BP,  PERF_REG_X86_SP,
		PERF_REG_X86_R8,  PERF_REG_X86_R9,  PERF_REG_X86_R10, PERF_REG_X86_R11,
		PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14, PERF_REG_X86_R15,
		PERF_REG_X86_IP,
	};
	const uint64_t sp = 0x7ffc12340000ULL, mask = unwind_regs_mask();
	uint64_t regs[CFI_NREGS] = {0}, stack[8] = {0};
	struct fixture fx;
	struct profile *p;

	fx_init(&fx, false, true);
	stack[0] = leaf_ret;
	stack[1] = sp + 24;
	stack[2] = caller_ret;
	regs[CFI_RSP] = sp;
	regs[CFI_RBP] = sp + 8;
	regs[CFI_RA] = (uintptr_t)&canned_leaf;
	comm(&fx, fx.pid, "canned", true, T0);
	mmap_exe(&fx, T0 + 1);
	for (int i = 0; i < 3; i++) {
		uint64_t out[64] = {0};

		sample_head(&fx, fx.pid, T0 + 100 + (uint64_t)i, PERF_RECORD_MISC_USER);
		rb_u64(&fx.r, 2);
		rb_u64(&fx.r, (uint64_t)PERF_CONTEXT_USER);
		rb_u64(&fx.r, (uintptr_t)&canned_leaf);
		rb_u64(&fx.r, PERF_SAMPLE_REGS_ABI_64);
		for (int r = 0; r < CFI_NREGS; r++)
			out[__builtin_popcountll(mask & ((1ULL << perf_of[r]) - 1))] = regs[r];
		rb_bytes(&fx.r, out, (size_t)__builtin_popcountll(mask) * 8);
		rb_u64(&fx.r, sizeof(stack));
		rb_bytes(&fx.r, stack, sizeof(stack));
		rb_u64(&fx.r, 5 * 8);
		feed(&fx);
	}
	p = fx_stop(&fx);
	ck_assert_uint_eq(p->nsamples, 3);
	ck_assert_uint_eq(named_stacks(p, fx.pid), 3);
	ck_assert_str_eq(profile_get_meta(p, "call-graph"), "hybrid");
	ck_assert_str_eq(profile_get_meta(p, "unwind-stacks"), "3");
	profile_free(p);
}
END_TEST

/* A switch: PERF_RECORD_SWITCH of tid, out or in. */
static void switch_record(struct fixture *fx, bool out, uint64_t t)
{
	rb_begin(&fx->r, PERF_RECORD_SWITCH, out ? PERF_RECORD_MISC_SWITCH_OUT : 0);
	sid(&fx->r, fx->pid, fx->pid, t);
	feed(fx);
}

/*
 * --off-cpu-only: the context-switch sample at the switch-out, its
 * records out and in 2 ms apart: one span of that length, with the
 * sample's stack, named.
 */
START_TEST(test_session_offcpu)
{
	struct fixture fx;
	struct profile *p;
	const struct pm_offcpu *span;
	bool named = false;

	fx_init(&fx, true, false);
	comm(&fx, fx.pid, "canned", true, T0);
	mmap_exe(&fx, T0 + 1);
	sample_fp(&fx, fx.pid, T0 + 1000);
	switch_record(&fx, true, T0 + 1000);
	switch_record(&fx, false, T0 + 2001000);
	p = fx_stop(&fx);
	ck_assert_uint_eq(p->nsamples, 0);
	ck_assert_uint_eq(p->noffcpu, 1);
	span = &p->offcpu[0];
	ck_assert_uint_eq(span->tid, fx.pid);
	ck_assert_uint_eq(span->duration, 2000000);
	ck_assert_str_eq(strtab_get(&p->str, span->comm), "canned");
	for (uint32_t d = 0; d < p->stacks[span->stack].depth; d++) {
		const struct pm_frame *f =
			&p->frames[p->stack_frames[p->stacks[span->stack].off + d]];

		if (f->nlines &&
		    !strcmp(strtab_get(&p->str, p->lines[f->line0].func), "canned_leaf"))
			named = true;
	}
	ck_assert(named);
	ck_assert_str_eq(profile_get_meta(p, "off-cpu"), "only");
	profile_free(p);
}
END_TEST

/* Records that make no sense are counted, not applied. */
START_TEST(test_session_bad_records)
{
	struct fixture fx;
	struct profile *p;

	fx_init(&fx, false, false);
	rb_begin(&fx.r, PERF_RECORD_MMAP2, 0);
	rb_u64(&fx.r, 1); /* far too short for a mapping */
	feed(&fx);
	session_feed(fx.s, fx.r.b, 3); /* shorter than a header */
	p = fx_stop(&fx);
	ck_assert_uint_eq(p->nsamples, 0);
	ck_assert_str_eq(profile_get_meta(p, "bad-records"), "2");
	profile_free(p);
}
END_TEST

static Suite *session_suite(void)
{
	Suite *s = suite_create("session");
	TCase *tc = tcase_create("session");

	tcase_add_test(tc, test_session_samples);
	tcase_add_test(tc, test_session_stack_copy);
	tcase_add_test(tc, test_session_offcpu);
	tcase_add_test(tc, test_session_bad_records);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(session_suite());
}
