/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report-synth.c - the synthetic recording of the report tests; see
 * report-synth.h.
 *
 * 100 samples in 3 s, cpu-clock at 999 Hz, in four processes (stacks leaf
 * first, times in seconds):
 *
 *   S1 app    100/100  40  work(+mid_inl, leaf_inl inlined) main libc_start  0.00 + i * 0.05
 *   S2 app    100/100  10  clear_page_erms entry_SYSCALL_64 (kernel) on S1   2.00 + i * 0.10
 *   S3 worker 100/101  20  recurse recurse recurse recurse main libc_start   1.00 + i * 0.05
 *   S4 worker 100/101   5  (a long C++ name) main libc_start                 0.50 + i * 0.10
 *   S5 other  200/200   8  [libc.so.6+0x9a2b0] operator<<... main libc_start 2.50 + i * 0.05
 *   S6 other  200/200   2  clear_page_erms entry_SYSCALL_64 (kernel only)    1.50, 1.50
 *   S7 java   300/300  10  LambdaForm$MH.invoke (perf map) [unknown+0x...]   0.25 + i * 0.25
 *   S8 work;er 100/101  5  the S1 stack, under a name with a ';'             2.95 + i * 0.01
 *
 * Every period is 1001001 ns but S5's, 500000. Thread 101's last name is
 * "worker"; lost: 3 samples in 1 record.
 */
#include "config.h"

#include <stdio.h>

#include "report-synth.h"

#define MS 1000000ULL

static void line(struct profile *p, uint32_t f, const char *func, const char *file, uint32_t no,
		 uint32_t flags)
{
	struct pm_line l = {
		.func = strtab_add(&p->str, func),
		.file = strtab_add(&p->str, file),
		.line = no,
		.flags = flags,
	};

	profile_add_line(p, f, &l);
}

static void samples(struct profile *p, const char *comm, uint32_t pid, uint32_t tid,
		    const uint32_t *frames, uint32_t depth, int n, uint64_t t0, uint64_t step,
		    uint64_t period)
{
	struct pm_sample s = {.pid = pid, .tid = tid, .period = period};

	s.comm = strtab_add(&p->str, comm);
	s.stack = profile_intern_stack(p, frames, depth);
	for (int i = 0; i < n; i++) {
		s.time = t0 + (uint64_t)i * step;
		s.cpu = (uint32_t)i % 4;
		profile_add_sample(p, &s);
	}
}

struct profile *synth_profile(void)
{
	struct profile *p = profile_new();
	uint32_t app, libc, kern, jit;
	uint32_t fmain, fwork, freca, frecb, fhelper, fesc, fstart, funres, fkentry, fkleaf, fjit,
		fnone;
	const uint64_t period = 1001001;

	profile_set_meta(p, "command", "record -F 999 -o app.data -- ./app --run");
	profile_set_meta(p, "perfmini-version", "0.1.0");
	profile_set_meta(p, "event", "cpu-clock");
	profile_set_meta(p, "frequency", "999");
	profile_set_meta(p, "call-graph", "fp");
	profile_set_meta(p, "start-time", "1700000000");
	profile_set_meta(p, "duration-ns", "3000000000");
	profile_set_meta(p, "samples", "100");
	profile_set_meta(p, "lost-records", "1");
	profile_set_meta(p, "lost-samples", "3");

	app = profile_add_module(p, "/usr/bin/app", "0123456789abcdef0123456789abcdef01234567", 0);
	libc = profile_add_module(p, "/usr/lib/x86_64-linux-gnu/libc.so.6", "feedface",
				  1u << PM_MODULE_REASON_SHIFT);
	p->modules[libc].reason =
		strtab_add(&p->str, "stripped: only exported functions have names");
	kern = profile_add_module(p, "[kernel.kallsyms]", "", PM_MODULE_KERNEL);
	jit = profile_add_module(p, "/tmp/perf-300.map", "", PM_MODULE_PERFMAP);

	fmain = profile_intern_frame(p, app, 0, 0x1100);
	line(p, fmain, "main", "/src/app/app.c", 50, 0);
	fwork = profile_intern_frame(p, app, 0, 0x1200);
	line(p, fwork, "leaf_inl", "/src/app/leaf.h", 7, PM_LINE_INLINED);
	line(p, fwork, "mid_inl", "/src/app/mid.h", 12, PM_LINE_INLINED);
	line(p, fwork, "work", "/src/app/work.c", 99, 0);
	freca = profile_intern_frame(p, app, 0, 0x1300);
	line(p, freca, "recurse", "/src/app/rec.c", 10, 0);
	frecb = profile_intern_frame(p, app, 0, 0x1310);
	line(p, frecb, "recurse", "/src/app/rec.c", 11, 0);
	fhelper = profile_intern_frame(p, app, 0, 0x1400);
	line(p, fhelper,
	     "std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>(__gnu_cxx::"
	     "__normal_iterator<int*, std::vector<int, std::allocator<int> > >, int const&)",
	     "/usr/include/c++/12/bits/vector.tcc", 439, 0);
	fesc = profile_intern_frame(p, app, 0, 0x1500);
	line(p, fesc, "operator<<(std::ostream&, \"q'\")", "/src/app/out.cc", 3, 0);
	fstart = profile_intern_frame(p, libc, 0, 0x29d90);
	line(p, fstart, "__libc_start_call_main", "", 0, 0);
	funres = profile_intern_frame(p, libc, 0, 0x9a2b0);
	fkentry = profile_intern_frame(p, kern, PM_FRAME_KERNEL, 0xffffffff81c00000ULL);
	line(p, fkentry, "entry_SYSCALL_64", "", 0, 0);
	fkleaf = profile_intern_frame(p, kern, PM_FRAME_KERNEL, 0xffffffff81001000ULL);
	line(p, fkleaf, "clear_page_erms", "", 0, 0);
	fjit = profile_intern_frame(p, jit, 0, 0x7f0000001000ULL);
	line(p, fjit, "LambdaForm$MH.invoke", "", 0, 0);
	fnone = profile_intern_frame(p, PM_NONE, 0, 0x7f00dead0000ULL);

	samples(p, "app", 100, 100, (uint32_t[]){fwork, fmain, fstart}, 3, 40, 0, 50 * MS, period);
	samples(p, "app", 100, 100, (uint32_t[]){fkleaf, fkentry, fwork, fmain, fstart}, 5, 10,
		2000 * MS, 100 * MS, period);
	samples(p, "worker", 100, 101, (uint32_t[]){frecb, freca, frecb, freca, fmain, fstart}, 6,
		20, 1000 * MS, 50 * MS, period);
	samples(p, "worker", 100, 101, (uint32_t[]){fhelper, fmain, fstart}, 3, 5, 500 * MS,
		100 * MS, period);
	samples(p, "other", 200, 200, (uint32_t[]){funres, fesc, fmain, fstart}, 4, 8, 2500 * MS,
		50 * MS, 500000);
	samples(p, "other", 200, 200, (uint32_t[]){fkleaf, fkentry}, 2, 2, 1500 * MS, 0, period);
	samples(p, "java", 300, 300, (uint32_t[]){fjit, fnone}, 2, 10, 250 * MS, 250 * MS, period);
	samples(p, "work;er", 100, 101, (uint32_t[]){fwork, fmain, fstart}, 3, 5, 2950 * MS,
		10 * MS, period);

	profile_add_thread(p, 100, 100, "app");
	profile_add_thread(p, 100, 101, "worker");
	profile_add_thread(p, 200, 200, "other");
	profile_add_thread(p, 300, 300, "java");
	return p;
}

static uint32_t named_frame(struct profile *p, uint32_t module, uint64_t addr, const char *name)
{
	uint32_t f = profile_intern_frame(p, module, 0, addr);

	if (!p->frames[f].nlines)
		line(p, f, name, "/src/wide/wide.c", (uint32_t)(addr & 0xffff), 0);
	return f;
}

struct profile *synth_wide_profile(void)
{
	struct profile *p = profile_new();
	uint32_t app = profile_add_module(p, "/usr/bin/wide", "", 0);
	uint32_t fmain = named_frame(p, app, 0x1000, "main");
	uint32_t fhot = named_frame(p, app, 0x1100, "hot");
	uint32_t fdisp = named_frame(p, app, 0x1200, "dispatch");
	uint32_t fwarm = named_frame(p, app, 0x1300, "warm");
	uint32_t st[64];
	char name[32];
	uint64_t t = 0;

	profile_set_meta(p, "command", "record -a -d 3");
	profile_set_meta(p, "event", "cpu-clock");
	profile_set_meta(p, "frequency", "4000");
	profile_set_meta(p, "duration-ns", "3000000000");
	samples(p, "wide", 1, 1, (uint32_t[]){fhot, fmain}, 2, 8000, t, 100000, 1000);
	t += 8000 * 100000ULL;
	for (int i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "leaf_%04d", i);
		samples(p, "wide", 1, 1,
			(uint32_t[]){named_frame(p, app, 0x2000 + (uint64_t)i, name), fdisp, fmain},
			3, 10, t, 100000, 1000);
		t += 10 * 100000ULL;
	}
	samples(p, "wide", 1, 1, (uint32_t[]){fwarm, fmain}, 2, 1990, t, 100000, 1000);
	t += 1990 * 100000ULL;
	/* Leaf first: deep_59 ... deep_00, warm, main. */
	for (int i = 0; i < 60; i++) {
		snprintf(name, sizeof(name), "deep_%02d", 59 - i);
		st[i] = named_frame(p, app, 0x3000 + (uint64_t)(59 - i), name);
	}
	st[60] = fwarm;
	st[61] = fmain;
	samples(p, "wide", 1, 1, st, 62, 10, t, 100000, 1000);
	profile_add_thread(p, 1, 1, "wide");
	return p;
}
