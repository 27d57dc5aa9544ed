/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_stack.c - sample stacks to profile stacks, on hand-built samples
 * and a process model filled by hand (never live): contexts, return
 * addresses one byte back, file offsets through the mappings, kernel
 * frames, broken chains, garbage markers, interning.
 */
#include "config.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "stack/stack.h"
#include "unit-helpers.h"

#define RX (PROT_READ | PROT_EXEC)
#define K  ((uint64_t)PERF_CONTEXT_KERNEL)
#define U  ((uint64_t)PERF_CONTEXT_USER)

/* Paths that do not exist, so nothing is opened. */
static const struct module_key app = {"/nonexistent/bin/app", 8, 2, 2001, 0};
static const struct module_key libc = {"/nonexistent/lib/libc.so.6", 8, 2, 2002, 0};

struct fixture {
	struct module_set mods;
	struct model model;
	struct profile *prof;
	struct stacker stk;
	uint32_t new_frames;
};

static void count_new(void *arg, struct module *m, uint32_t frame, uint64_t addr)
{
	struct fixture *fx = arg;

	(void)m, (void)frame, (void)addr;
	fx->new_frames++;
}

static void fx_init(struct fixture *fx)
{
	memset(fx, 0, sizeof(*fx));
	module_set_init(&fx->mods);
	model_init(&fx->model, &fx->mods, false);
	fx->prof = profile_new();
	stacker_init(&fx->stk, &fx->model, fx->prof, NULL, count_new, fx);
	/* app's code at 0x400000 from file offset 0x1000; libc's at 0x7f00000000 from 0x28000. */
	model_mmap(&fx->model, 100, 0x400000, 0x2000, 0x1000, &app, RX);
	model_mmap(&fx->model, 100, 0x7f00000000ULL, 0x10000, 0x28000, &libc, RX);
}

static void fx_release(struct fixture *fx)
{
	stacker_release(&fx->stk);
	profile_free(fx->prof);
	model_release(&fx->model);
	module_set_release(&fx->mods);
}

/* The stack of a sample of pid with callchain ips[0..n) and ip. */
static uint32_t add_pid(struct fixture *fx, uint32_t pid, const uint64_t *ips, size_t n,
			uint64_t ip, uint16_t misc)
{
	struct rec_sample s;
	static const uint64_t none;
	unsigned char *bytes = unit_exact_copy(n ? ips : &none, n ? n * 8 : 1);
	uint32_t id;

	memset(&s, 0, sizeof(s));
	s.pid = s.tid = pid;
	s.ip = ip;
	s.nr = n;
	s.ips = bytes;
	id = stacker_add(&fx->stk, &s, misc);
	free(bytes);
	return id;
}

/* The same, of pid 100. */
static uint32_t add(struct fixture *fx, const uint64_t *ips, size_t n, uint64_t ip, uint16_t misc)
{
	return add_pid(fx, 100, ips, n, ip, misc);
}

/* Frame d (0 the leaf) of stack id. */
static const struct pm_frame *frame(const struct fixture *fx, uint32_t id, uint32_t d)
{
	const struct pm_stack *st = &fx->prof->stacks[id];

	ck_assert_uint_lt(d, st->depth);
	return &fx->prof->frames[fx->prof->stack_frames[st->off + d]];
}

static uint32_t depth(const struct fixture *fx, uint32_t id)
{
	return fx->prof->stacks[id].depth;
}

static const char *module_path(const struct fixture *fx, const struct pm_frame *f)
{
	return f->module == PM_NONE ? "" : fx->mods.mods[f->module]->path;
}

/* A user stack: the leaf as is, callers one byte back, as file offsets. */
START_TEST(test_user_chain)
{
	struct fixture fx;
	uint64_t ips[] = {U, 0x400100, 0x7f00000205ULL, 0x400fff};
	uint32_t id;

	fx_init(&fx);
	id = add(&fx, ips, 4, 0x400100, PERF_RECORD_MISC_USER);
	ck_assert_uint_eq(depth(&fx, id), 3);
	ck_assert_str_eq(module_path(&fx, frame(&fx, id, 0)), app.path);
	ck_assert_uint_eq(frame(&fx, id, 0)->addr, 0x1100);
	ck_assert_str_eq(module_path(&fx, frame(&fx, id, 1)), libc.path);
	ck_assert_uint_eq(frame(&fx, id, 1)->addr, 0x28204);
	ck_assert_uint_eq(frame(&fx, id, 2)->addr, 0x1ffe);
	ck_assert_uint_eq(frame(&fx, id, 0)->flags, 0);
	fx_release(&fx);
}
END_TEST

/* Kernel frames first (flagged), then the user ones; each context's first as is. */
START_TEST(test_kernel_then_user)
{
	struct fixture fx;
	uint64_t ips[] = {K, 0xffffffff81000010ULL, 0xffffffff81000020ULL, U, 0x400200, 0x400300};
	uint32_t id;

	fx_init(&fx);
	id = add(&fx, ips, 6, 0xffffffff81000010ULL, PERF_RECORD_MISC_KERNEL);
	ck_assert_uint_eq(depth(&fx, id), 4);
	ck_assert_uint_eq(frame(&fx, id, 0)->flags, PM_FRAME_KERNEL);
	ck_assert_uint_eq(frame(&fx, id, 0)->addr, 0xffffffff81000010ULL);
	ck_assert_uint_eq(frame(&fx, id, 1)->addr, 0xffffffff8100001fULL);
	ck_assert_str_eq(module_path(&fx, frame(&fx, id, 1)), "[kernel.kallsyms]");
	/* The user context's first address is where it was interrupted: not moved back. */
	ck_assert_uint_eq(frame(&fx, id, 2)->flags, 0);
	ck_assert_uint_eq(frame(&fx, id, 2)->addr, 0x1200);
	ck_assert_uint_eq(frame(&fx, id, 3)->addr, 0x12ff);
	fx_release(&fx);
}
END_TEST

/*
 * A frame-pointer walk through code without frame pointers: a zero ends
 * nothing but is skipped; an address in no mapping is PM_NONE with its
 * address; a value that looks like a context marker after the user part is
 * garbage, and so is everything after it.
 */
START_TEST(test_broken_chain)
{
	struct fixture fx;
	uint64_t ips[] = {U, 0x400100, 0, 0x1234, K, 0xffffffff81000000ULL, 0x400500};
	uint32_t id;

	fx_init(&fx);
	id = add(&fx, ips, 7, 0x400100, PERF_RECORD_MISC_USER);
	ck_assert_uint_eq(depth(&fx, id), 2);
	ck_assert_uint_eq(frame(&fx, id, 0)->addr, 0x1100);
	ck_assert_uint_eq(frame(&fx, id, 1)->module, PM_NONE);
	ck_assert_uint_eq(frame(&fx, id, 1)->addr, 0x1233);
	for (uint32_t d = 0; d < depth(&fx, id); d++)
		ck_assert_uint_eq(frame(&fx, id, d)->flags, 0);
	fx_release(&fx);
}
END_TEST

/* No callchain: the sampled ip alone, kernel or user by the record's cpumode. */
START_TEST(test_no_callchain)
{
	struct fixture fx;
	uint32_t u, k, none;

	fx_init(&fx);
	u = add(&fx, NULL, 0, 0x400010, PERF_RECORD_MISC_USER);
	ck_assert_uint_eq(depth(&fx, u), 1);
	ck_assert_uint_eq(frame(&fx, u, 0)->addr, 0x1010);
	k = add(&fx, NULL, 0, 0xffffffff81000000ULL, PERF_RECORD_MISC_KERNEL);
	ck_assert_uint_eq(frame(&fx, k, 0)->flags, PM_FRAME_KERNEL);
	/* A chain of nothing usable still gives a stack: the ip, in no module. */
	{
		uint64_t ips[] = {U, 0};

		none = add(&fx, ips, 2, 0x99, PERF_RECORD_MISC_USER);
	}
	ck_assert_uint_eq(depth(&fx, none), 1);
	ck_assert_uint_eq(frame(&fx, none, 0)->module, PM_NONE);
	ck_assert_uint_eq(frame(&fx, none, 0)->addr, 0x99);
	fx_release(&fx);
}
END_TEST

/* Equal stacks are one stack, equal frames one frame; new frames are announced once. */
START_TEST(test_interning)
{
	struct fixture fx;
	uint64_t a[] = {U, 0x400100, 0x400200};
	uint64_t b[] = {U, 0x400101, 0x400200};
	uint32_t s1, s2, s3;

	fx_init(&fx);
	s1 = add(&fx, a, 3, 0, PERF_RECORD_MISC_USER);
	s2 = add(&fx, a, 3, 0, PERF_RECORD_MISC_USER);
	ck_assert_uint_eq(s1, s2);
	ck_assert_uint_eq(fx.new_frames, 2);
	s3 = add(&fx, b, 3, 0, PERF_RECORD_MISC_USER);
	ck_assert_uint_ne(s1, s3);
	ck_assert_uint_eq(fx.new_frames, 3);
	ck_assert_uint_eq(fx.prof->nframes, 3);
	ck_assert_uint_eq(fx.prof->nstacks, 2);
	fx_release(&fx);
}
END_TEST

/* A chain longer than a stack keeps: cut at STACK_MAX_FRAMES. */
START_TEST(test_too_deep)
{
	struct fixture fx;
	size_t n = STACK_MAX_FRAMES + 50;
	uint64_t *ips = calloc(n + 1, sizeof(*ips));
	uint32_t id;

	fx_init(&fx);
	ips[0] = U;
	for (size_t i = 1; i <= n; i++)
		ips[i] = 0x400000 + i * 2;
	id = add(&fx, ips, n + 1, 0, PERF_RECORD_MISC_USER);
	ck_assert_uint_eq(depth(&fx, id), STACK_MAX_FRAMES);
	free(ips);
	fx_release(&fx);
}
END_TEST

/*
 * The chain cache: a chain met again gives its stack without lookups, until
 * the process's mappings change; after that, the same addresses are
 * another library's, and the stack must say so.
 */
START_TEST(test_chain_cache)
{
	static const struct module_key other = {"/nonexistent/lib/libother.so", 8, 2, 2003, 0};
	struct fixture fx;
	uint64_t ips[] = {K, 0xffffffff81000010ULL, U, 0x400100, 0x7f00000205ULL};
	uint32_t s1, s2, s3;

	fx_init(&fx);
	s1 = add(&fx, ips, 5, 0, PERF_RECORD_MISC_KERNEL);
	s2 = add(&fx, ips, 5, 0, PERF_RECORD_MISC_KERNEL);
	ck_assert_uint_eq(s1, s2);
	ck_assert_uint_eq(fx.stk.chain_hits, 1);
	ck_assert_uint_eq(fx.stk.chain_misses, 1);
	/* Another library mapped over it (dlclose, then dlopen). */
	model_mmap(&fx.model, 100, 0x7f00000000ULL, 0x10000, 0x5000, &other, RX);
	s3 = add(&fx, ips, 5, 0, PERF_RECORD_MISC_KERNEL);
	ck_assert_uint_ne(s1, s3);
	ck_assert_uint_eq(fx.stk.chain_hits, 1);
	ck_assert_str_eq(module_path(&fx, frame(&fx, s3, 2)), other.path);
	ck_assert_uint_eq(frame(&fx, s3, 2)->addr, 0x5204);
	ck_assert_uint_eq(add(&fx, ips, 5, 0, PERF_RECORD_MISC_KERNEL), s3);
	ck_assert_uint_eq(fx.stk.chain_hits, 2);
	fx_release(&fx);
}
END_TEST

/*
 * A chain with a frame in no mapping (a broken chain's garbage) is cached
 * like any other until the process's mappings change: code mapped there
 * then makes it that code's frame. Such an address repeated at once (a
 * frame pointer that points at itself, walked up to the kernel's limit)
 * is one frame; a return address of code repeated (recursion) is not. A
 * chain with JIT code (anonymous executable memory, named from the perf
 * map as it is at the stop) is never taken from the cache.
 */
START_TEST(test_chain_cache_unmapped)
{
	static const struct module_key other = {"/nonexistent/lib/libother.so", 8, 2, 2003, 0};
	static const struct module_key anon = {"", 0, 0, 0, 0};
	struct fixture fx;
	uint64_t ips[] = {U, 0x400100, 0x1235, 0x1235, 0x1235};
	uint64_t again[] = {U, 0x400104, 0x1235};
	uint64_t rec[] = {U, 0x400100, 0x400201, 0x400201, 0x400201};
	uint64_t jit[] = {U, 0x400100, 0x20000011};
	uint32_t s1, s2;
	uint64_t hits;

	fx_init(&fx);
	s1 = add(&fx, ips, 5, 0, PERF_RECORD_MISC_USER);
	for (int i = 0; i < 2; i++)
		ck_assert_uint_eq(add(&fx, ips, 5, 0, PERF_RECORD_MISC_USER), s1);
	ck_assert_uint_eq(fx.stk.chain_hits, 2);
	ck_assert_uint_eq(fx.stk.chain_misses, 1);
	ck_assert_uint_eq(depth(&fx, s1), 2);
	ck_assert_uint_eq(frame(&fx, s1, 1)->module, PM_NONE);
	ck_assert_uint_eq(frame(&fx, s1, 1)->addr, 0x1234);
	/* The same garbage in another chain: from the frame cache. */
	hits = fx.stk.frame_hits;
	s2 = add(&fx, again, 3, 0, PERF_RECORD_MISC_USER);
	ck_assert_uint_eq(fx.stk.frame_hits, hits + 1);
	ck_assert_ptr_eq(frame(&fx, s2, 1), frame(&fx, s1, 1));
	/* Recursion keeps its frames. */
	ck_assert_uint_eq(depth(&fx, add(&fx, rec, 5, 0, PERF_RECORD_MISC_USER)), 4);
	/* Code mapped there. */
	model_mmap(&fx.model, 100, 0x1000, 0x1000, 0x3000, &other, RX);
	s2 = add(&fx, ips, 5, 0, PERF_RECORD_MISC_USER);
	ck_assert_uint_ne(s1, s2);
	ck_assert_uint_eq(depth(&fx, s2), 4);
	ck_assert_str_eq(module_path(&fx, frame(&fx, s2, 1)), other.path);
	ck_assert_uint_eq(frame(&fx, s2, 1)->addr, 0x3234);
	/* JIT code: its process's perf map module, never cached. */
	model_process(&fx.model, 100)->perfmap = module_set_perfmap(&fx.mods, 100, false);
	model_mmap(&fx.model, 100, 0x20000000, 0x1000, 0, &anon, RX);
	fx.stk.chain_hits = fx.stk.chain_misses = 0;
	for (int i = 0; i < 3; i++)
		s2 = add(&fx, jit, 3, 0, PERF_RECORD_MISC_USER);
	ck_assert_uint_eq(fx.stk.chain_hits, 0);
	ck_assert_uint_eq(fx.stk.chain_misses, 3);
	ck_assert_uint_eq(frame(&fx, s2, 1)->module, fx.model.last_proc->perfmap->id);
	ck_assert_uint_eq(frame(&fx, s2, 1)->addr, 0x20000010);
	fx_release(&fx);
}
END_TEST

/*
 * Chains the chain cache misses still take their frames from the frame
 * cache: the same address under the same mappings is the same frame; a
 * library mapped over another, or another process, makes new ones.
 */
START_TEST(test_frame_cache)
{
	static const struct module_key other = {"/nonexistent/lib/libother.so", 8, 2, 2003, 0};
	struct fixture fx;
	uint64_t a[] = {K, 0xffffffff81000010ULL, U, 0x400100, 0x7f00000205ULL};
	uint64_t b[] = {K, 0xffffffff81000020ULL, U, 0x400100, 0x7f00000205ULL};
	uint32_t sa, sb, sc, sd;
	uint32_t frames;

	fx_init(&fx);
	sa = add(&fx, a, 5, 0, PERF_RECORD_MISC_KERNEL);
	ck_assert_uint_eq(fx.stk.frame_hits, 0);
	sb = add(&fx, b, 5, 0, PERF_RECORD_MISC_KERNEL);
	ck_assert_uint_eq(fx.stk.chain_hits, 0);
	ck_assert_uint_eq(fx.stk.frame_hits, 2); /* the two user frames */
	ck_assert_uint_ne(sa, sb);
	ck_assert_uint_eq(frame(&fx, sb, 1)->addr, 0x1100);
	ck_assert_uint_eq(frame(&fx, sb, 2)->addr, 0x28204);
	/* The kernel frame of a, behind a deeper user stack. */
	{
		uint64_t c[] = {K, 0xffffffff81000010ULL, U, 0x400100, 0x400180, 0x7f00000205ULL};

		sc = add(&fx, c, 6, 0, PERF_RECORD_MISC_KERNEL);
		ck_assert_uint_eq(fx.stk.frame_hits, 5);
		ck_assert_uint_eq(depth(&fx, sc), 4);
		ck_assert_uint_eq(frame(&fx, sc, 0)->addr, frame(&fx, sa, 0)->addr);
		ck_assert_uint_eq(frame(&fx, sc, 2)->addr, 0x117f);
	}
	/* Another library mapped over libc: its frame is made anew. */
	frames = (uint32_t)fx.prof->nframes;
	model_mmap(&fx.model, 100, 0x7f00000000ULL, 0x10000, 0x5000, &other, RX);
	sd = add(&fx, b, 5, 0, PERF_RECORD_MISC_KERNEL);
	ck_assert_str_eq(module_path(&fx, frame(&fx, sd, 2)), other.path);
	ck_assert_uint_eq(frame(&fx, sd, 2)->addr, 0x5204);
	ck_assert_uint_eq(frame(&fx, sd, 1)->addr, 0x1100);
	ck_assert_uint_eq(fx.prof->nframes, frames + 1);
	/* Another process, libc where pid 100 has app: libc's frame, not app's. */
	model_mmap(&fx.model, 200, 0x400000, 0x2000, 0x28000, &libc, RX);
	sd = add_pid(&fx, 200, b, 5, 0, PERF_RECORD_MISC_KERNEL);
	ck_assert_str_eq(module_path(&fx, frame(&fx, sd, 1)), libc.path);
	ck_assert_uint_eq(frame(&fx, sd, 1)->addr, 0x28100);
	fx_release(&fx);
}
END_TEST

/*
 * A recording's next slice: stacks go into a new profile, with none of
 * the old ids; a stack of the old one carried over keeps its frames (by
 * module and address), with their lines where they had them, the others
 * handed to new_frame; the unwinds to judge at the stop keep their
 * outermost frame; a sample met again makes the carried stack.
 */
START_TEST(test_switch_profile)
{
	struct fixture fx;
	uint64_t ips[] = {U, 0x400100, 0x7f00000205ULL, 0x400fff};
	struct pm_line l = {0};
	struct profile *old, *next;
	const struct hmap_slot *slot;
	uint32_t id, outer, carried, frames;
	size_t pos = 0;

	fx_init(&fx);
	id = add(&fx, ips, 4, 0x400100, PERF_RECORD_MISC_USER);
	old = fx.prof;
	l.func = strtab_add(&old->str, "leaf_fn");
	l.file = strtab_add(&old->str, "app.c");
	l.line = 12;
	profile_add_line(old, old->stack_frames[old->stacks[id].off], &l);
	outer = old->stack_frames[old->stacks[id].off + 2];
	hmap_insert(&fx.stk.unw.outer, (uint64_t)UNWIND_COMPLETE << 32 | outer, NULL)->val = 3;

	next = profile_new_next(old, NULL, NULL);
	ck_assert_uint_eq(next->nmodules, old->nmodules);
	ck_assert_uint_eq(next->nframes, 0);
	frames = fx.new_frames;
	stacker_switch_profile(&fx.stk, next);
	fx.prof = next;
	/* The outermost frame, unnamed, is named anew. */
	ck_assert_uint_eq(fx.stk.unw.outer.count, 1);
	slot = hmap_next(&fx.stk.unw.outer, &pos);
	ck_assert_uint_eq(slot->val, 3);
	ck_assert_uint_eq(slot->key >> 32, UNWIND_COMPLETE);
	ck_assert_uint_eq(next->frames[(uint32_t)slot->key].addr, 0x1ffe);
	ck_assert_uint_eq(fx.new_frames, frames + 1);

	carried = stacker_carry_stack(&fx.stk, old, id);
	ck_assert_uint_eq(depth(&fx, carried), 3);
	for (uint32_t d = 0; d < 3; d++) {
		const struct pm_frame *was =
			&old->frames[old->stack_frames[old->stacks[id].off + d]];

		ck_assert_uint_eq(frame(&fx, carried, d)->module, was->module);
		ck_assert_uint_eq(frame(&fx, carried, d)->addr, was->addr);
	}
	/* The leaf kept its name; the middle frame is new and unnamed; the outer one was carried. */
	ck_assert_uint_eq(frame(&fx, carried, 0)->nlines, 1);
	ck_assert_str_eq(strtab_get(&next->str, next->lines[frame(&fx, carried, 0)->line0].func),
			 "leaf_fn");
	ck_assert_uint_eq(next->lines[frame(&fx, carried, 0)->line0].line, 12);
	ck_assert_uint_eq(fx.new_frames, frames + 2);
	/* The same sample now: the carried stack, no frame of the old profile. */
	ck_assert_uint_eq(add(&fx, ips, 4, 0x400100, PERF_RECORD_MISC_USER), carried);
	ck_assert_uint_eq(next->nstacks, 1);
	profile_free(old);
	fx_release(&fx);
}
END_TEST

static Suite *stack_suite(void)
{
	Suite *s = suite_create("stack");
	TCase *tc = tcase_create("normalize");

	tcase_add_test(tc, test_user_chain);
	tcase_add_test(tc, test_kernel_then_user);
	tcase_add_test(tc, test_broken_chain);
	tcase_add_test(tc, test_no_callchain);
	tcase_add_test(tc, test_interning);
	tcase_add_test(tc, test_too_deep);
	tcase_add_test(tc, test_chain_cache);
	tcase_add_test(tc, test_chain_cache_unmapped);
	tcase_add_test(tc, test_frame_cache);
	tcase_add_test(tc, test_switch_profile);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(stack_suite());
}
