/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_report.c - what the report formats share, on the synthetic
 * recording of report-synth.c: the filters and grouping of aggregate.c,
 * the option parsers, the counts and layout of the top table, the
 * protobuf encoder, and the SVG writer's escaping and elision.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "report-synth.h"
#include "report/aggregate.h"
#include "report/inline-calls.h"
#include "report/missing.h"
#include "report/protobuf.h"
#include "report/report.h"
#include "report/svg-script.h"
#include "report/wall.h"
#include "store/profile.h"
#include "unit-helpers.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/sbuf.h"

#define PERIOD 1001001ULL

/* A report format's whole output (free it); *len gets its size. */
static char *run_format(const char *name, const struct profile *p, const struct report_opts *o,
			size_t *len)
{
	char *text = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&text, &n);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(report_write(report_format_find(name), p, o, out), 0);
	fclose(out);
	if (len)
		*len = n;
	return text;
}

/* The samples of the stacks under root name in a. */
static uint64_t root_count(const struct aggregate *a, const char *name)
{
	uint64_t n = 0;

	for (size_t i = 0; i < a->nstacks; i++)
		if (strcmp(a->roots[a->stacks[i].root], name) == 0)
			n += a->stacks[i].count;
	return n;
}

static uint64_t selected(const struct profile *p, const struct report_opts *o)
{
	struct aggregate *a = aggregate_new(p, o, 0);
	uint64_t n = a->samples, sum = 0;

	for (size_t i = 0; i < a->nstacks; i++)
		sum += a->stacks[i].count;
	ck_assert_uint_eq(sum, n);
	aggregate_free(a);
	return n;
}

START_TEST(test_aggregate_all)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = -1};
	struct aggregate *a = aggregate_new(p, &o, 0);

	ck_assert_uint_eq(a->samples, 100);
	ck_assert_uint_eq(a->period, 92 * PERIOD + 8 * 500000);
	ck_assert_uint_eq(a->nstacks, 8);
	ck_assert_uint_eq(a->nroots, 5);
	ck_assert_uint_eq(root_count(a, "app"), 50);
	ck_assert_uint_eq(root_count(a, "worker"), 25);
	ck_assert_uint_eq(root_count(a, "work;er"), 5); /* as recorded: formats sanitize */
	ck_assert_uint_eq(root_count(a, "other"), 10);
	ck_assert_uint_eq(root_count(a, "java"), 10);
	/* Stacks stay leaf first, in the order of their first sample. */
	ck_assert_uint_eq(a->stacks[0].depth, 3);
	ck_assert_uint_eq(a->stacks[0].count, 40);
	ck_assert_uint_eq(a->stacks[1].depth, 5);
	ck_assert(p->frames[a->frames[a->stacks[1].off]].flags & PM_FRAME_KERNEL);
	aggregate_free(a);
	profile_free(p);
}
END_TEST

/* Without kernel frames S2 is S1; S6 keeps its samples, with no frame. */
START_TEST(test_aggregate_no_kernel)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = -1, .no_kernel = true};
	struct aggregate *a = aggregate_new(p, &o, 0);
	bool empty = false;

	ck_assert_uint_eq(a->samples, 100);
	ck_assert_uint_eq(a->nstacks, 7);
	ck_assert_uint_eq(a->stacks[0].count, 50);
	ck_assert_uint_eq(a->stacks[0].period, 50 * PERIOD);
	for (size_t i = 0; i < a->nstacks; i++) {
		for (uint32_t d = 0; d < a->stacks[i].depth; d++)
			ck_assert(!(p->frames[a->frames[a->stacks[i].off + d]].flags &
				    PM_FRAME_KERNEL));
		if (a->stacks[i].depth == 0) {
			ck_assert_str_eq(a->roots[a->stacks[i].root], "other");
			ck_assert_uint_eq(a->stacks[i].count, 2);
			empty = true;
		}
	}
	ck_assert(empty);
	aggregate_free(a);
	profile_free(p);
}
END_TEST

START_TEST(test_aggregate_kernel_only)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = -1, .kernel_only = true};
	struct aggregate *a = aggregate_new(p, &o, 0);

	ck_assert_uint_eq(a->samples, 12);
	ck_assert_uint_eq(a->nstacks, 2);
	ck_assert_uint_eq(root_count(a, "app"), 10);
	ck_assert_uint_eq(root_count(a, "other"), 2);
	/* Both are the same two kernel frames, stored once. */
	ck_assert_uint_eq(a->nframes, 2);
	ck_assert_uint_eq(a->stacks[0].off, a->stacks[1].off);
	aggregate_free(a);
	profile_free(p);
}
END_TEST

START_TEST(test_aggregate_ids)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = -1};

	ck_assert_int_eq(aggregate_parse_ids("100", &o.pids, &o.npids), 0);
	ck_assert_uint_eq(selected(p, &o), 80);
	ck_assert_int_eq(aggregate_parse_ids("300,200", &o.pids, &o.npids), 0);
	ck_assert_uint_eq(o.npids, 3);
	ck_assert_uint_eq(selected(p, &o), 100);
	aggregate_opts_release(&o);
	ck_assert_int_eq(aggregate_parse_ids("101", &o.tids, &o.ntids), 0);
	ck_assert_uint_eq(selected(p, &o), 30);
	/* Filters combine: tid 101 of pid 200 is nothing. */
	ck_assert_int_eq(aggregate_parse_ids("200", &o.pids, &o.npids), 0);
	ck_assert_uint_eq(selected(p, &o), 0);
	aggregate_opts_release(&o);
	ck_assert_int_eq(aggregate_parse_ids("999", &o.pids, &o.npids), 0);
	ck_assert_uint_eq(selected(p, &o), 0);
	aggregate_opts_release(&o);
	profile_free(p);
}
END_TEST

START_TEST(test_aggregate_comm)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = -1};

	ck_assert_int_eq(aggregate_parse_comms("other,java", &o), 0);
	ck_assert_uint_eq(selected(p, &o), 20);
	aggregate_opts_release(&o);
	/* The name when sampled: thread 101 was "work;er" for 5 samples. */
	ck_assert_int_eq(aggregate_parse_comms("work;er", &o), 0);
	ck_assert_uint_eq(selected(p, &o), 5);
	aggregate_opts_release(&o);
	ck_assert_int_eq(aggregate_parse_comms("wor", &o), 0);
	ck_assert_uint_eq(selected(p, &o), 0);
	aggregate_opts_release(&o);
	profile_free(p);
}
END_TEST

#define CONTAINER "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/*
 * The synthetic recording with cgroups: process 100's samples in
 * app.service, 200's in a container, 300's unknown; thread 100's record
 * says app.service too, for its off-CPU spans.
 */
static struct profile *cgroup_profile(void)
{
	struct profile *p = synth_profile();
	uint32_t app = strtab_add(&p->str, "/system.slice/app.service");
	uint32_t box = strtab_add(&p->str, "/system.slice/docker-" CONTAINER ".scope");

	for (size_t i = 0; i < p->nsamples; i++)
		p->samples[i].cgroup = p->samples[i].pid == 100	  ? app
				       : p->samples[i].pid == 200 ? box
								  : 0;
	p->threads[0].cgroup = app;
	return p;
}

/* --cgroup: a path and what lies below it, never a longer name beside it. */
START_TEST(test_aggregate_cgroup)
{
	struct profile *p = cgroup_profile();
	struct report_opts o = {.rows = -1};
	struct sbuf b = SBUF_INIT;

	ck_assert_int_eq(aggregate_parse_cgroups("/system.slice/app.service", &o), 0);
	ck_assert_uint_eq(selected(p, &o), 80);
	aggregate_describe(&o, &b);
	ck_assert_str_eq(b.buf, "--cgroup /system.slice/app.service");
	aggregate_opts_release(&o);
	ck_assert_int_eq(aggregate_parse_cgroups("/system.slice", &o), 0);
	ck_assert_uint_eq(selected(p, &o), 90);
	aggregate_opts_release(&o);
	ck_assert_int_eq(aggregate_parse_cgroups("/system.slice/", &o), 0);
	ck_assert_uint_eq(selected(p, &o), 90);
	aggregate_opts_release(&o);
	ck_assert_int_eq(aggregate_parse_cgroups("/system", &o), 0);
	ck_assert_uint_eq(selected(p, &o), 0);
	aggregate_opts_release(&o);
	/* "/" is every known cgroup; process 300's has none. */
	ck_assert_int_eq(aggregate_parse_cgroups("/", &o), 0);
	ck_assert_uint_eq(selected(p, &o), 90);
	aggregate_opts_release(&o);
	ck_assert_int_eq(aggregate_parse_cgroups("/nothing,/system.slice/app.service", &o), 0);
	ck_assert_uint_eq(selected(p, &o), 80);
	aggregate_opts_release(&o);
	ck_assert_int_eq(aggregate_parse_cgroups("system.slice", &o), -EINVAL);
	ck_assert_int_eq(aggregate_parse_cgroups("", &o), -EINVAL);
	ck_assert_int_eq(aggregate_parse_cgroups("/a,,/b", &o), -EINVAL);
	ck_assert_uint_eq(o.ncgroups, 0);
	sbuf_release(&b);
	profile_free(p);
}
END_TEST

/*
 * An address in JIT memory that the perf map does not name is "[anon]";
 * one in no mapping, given to the perf map (the old image's address in a
 * sample taken during exec), is "[unknown]", as one in no module.
 */
START_TEST(test_unresolved_jit_names)
{
	struct profile *p = profile_new();
	uint32_t jit = profile_add_module(p, "/tmp/perf-300.map", "", PM_MODULE_PERFMAP);
	uint32_t fanon = profile_intern_frame(p, jit, 0, 0x7f0000001000ULL);
	uint32_t fnomap = profile_intern_frame(p, jit, PM_FRAME_NOMAP, 0x55000000a0ULL);
	uint32_t fnone = profile_intern_frame(p, PM_NONE, 0, 0x7f00dead0000ULL);
	struct sbuf b = SBUF_INIT;

	report_unresolved_name(p, fanon, &b);
	ck_assert_str_eq(b.buf, "[anon]");
	sbuf_reset(&b);
	report_unresolved_name(p, fnomap, &b);
	ck_assert_str_eq(b.buf, "[unknown]");
	sbuf_reset(&b);
	report_unresolved_name(p, fnone, &b);
	ck_assert_str_eq(b.buf, "[unknown]");
	sbuf_release(&b);
	profile_free(p);
}
END_TEST

/*
 * The cgroup as the root (--sort=cgroup), and as a key of its own
 * (pprof's labels); an off-CPU span has its thread's cgroup.
 */
START_TEST(test_aggregate_cgroup_roots)
{
	struct profile *p = cgroup_profile();
	struct report_opts o = {.rows = -1, .root = REPORT_ROOT_CGROUP};
	struct pm_offcpu x = {.time = 1000, .duration = 5000, .pid = 100, .tid = 100};
	struct aggregate *a;
	size_t apart = 0;

	a = aggregate_new(p, &o, 0);
	ck_assert_uint_eq(root_count(a, "/system.slice/app.service"), 80);
	ck_assert_uint_eq(root_count(a, "/system.slice/docker-" CONTAINER ".scope"), 10);
	ck_assert_uint_eq(root_count(a, "[unknown]"), 10);
	aggregate_free(a);
	/* Each stack of S1 .. S8 is in one process: by cgroup, as many groups as without. */
	o.root = REPORT_ROOT_NONE;
	a = aggregate_new(p, &o, AGG_BY_CGROUP);
	for (size_t i = 0; i < a->nstacks; i++)
		apart += a->stacks[i].cgroup != 0;
	ck_assert_uint_eq(apart + 1, a->nstacks); /* S7, process 300's, has none */
	aggregate_free(a);

	x.stack = p->samples[0].stack;
	x.comm = p->samples[0].comm;
	profile_add_offcpu(p, &x);
	o.sample_type = REPORT_OFF_CPU;
	ck_assert_int_eq(aggregate_parse_cgroups("/system.slice/app.service", &o), 0);
	ck_assert_uint_eq(selected(p, &o), 0); /* no thread cgroups before aggregate_prepare */
	aggregate_prepare(&o, p);
	ck_assert_uint_eq(selected(p, &o), 5000);
	aggregate_opts_release(&o);
	profile_free(p);
}
END_TEST

/* A cgroup's path: its systemd unit, its container. */
START_TEST(test_cgroup_names)
{
	static const struct {
		const char *path, *unit, *container;
	} cases[] = {
		{"/system.slice/redis-server.service", "redis-server.service", ""},
		{"/user.slice/user-1000.slice/user@1000.service/app.slice/vte-spawn-1.scope",
		 "vte-spawn-1.scope", ""},
		{"/system.slice/docker-" CONTAINER ".scope", "docker-" CONTAINER ".scope",
		 CONTAINER},
		{"/kubepods.slice/kubepods-pod1.slice/cri-containerd-" CONTAINER ".scope",
		 "cri-containerd-" CONTAINER ".scope", CONTAINER},
		{"/docker/" CONTAINER, "", CONTAINER},
		{"/kubepods/besteffort/pod5/" CONTAINER, "", CONTAINER},
		/* 65 digits, a prefix without '-', a ".service" alone: none. */
		{"/x/0" CONTAINER, "", ""},
		{"/x/abc" CONTAINER ".scope", "abc" CONTAINER ".scope", ""},
		{"/.service", "", ""},
		{"/", "", ""},
		{"", "", ""},
	};
	struct sbuf b = SBUF_INIT;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		report_cgroup_unit(cases[i].path, &b);
		ck_assert_str_eq(b.buf ? b.buf : "", cases[i].unit);
		report_cgroup_container(cases[i].path, &b);
		ck_assert_str_eq(b.buf ? b.buf : "", cases[i].container);
	}
	sbuf_release(&b);
}
END_TEST

/* Windows are [START, END): a sample at START counts, one at END does not. */
START_TEST(test_aggregate_time)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = -1};

	ck_assert_int_eq(aggregate_parse_window("1.5,2", REPORT_WINDOW_TIME, &o), 0);
	ck_assert(o.has_start && o.has_end);
	ck_assert_uint_eq(o.start_ns, 1500000000);
	ck_assert_uint_eq(o.end_ns, 2000000000);
	/* S1 1.50-1.95: 10; S3 1.50-1.95: 10; S6 at 1.5: 2; S7 1.5, 1.75: 2. */
	ck_assert_uint_eq(selected(p, &o), 24);
	ck_assert_int_eq(aggregate_parse_window(",0.5", REPORT_WINDOW_TIME, &o), 0);
	ck_assert(!o.has_start && o.has_end);
	ck_assert_uint_eq(selected(p, &o), 11); /* S4's first sample is at 0.5 */
	ck_assert_int_eq(aggregate_parse_window("2.9,", REPORT_WINDOW_TIME, &o), 0);
	ck_assert(o.has_start && !o.has_end);
	ck_assert_uint_eq(selected(p, &o), 6); /* S2 at 2.9, S8 */
	ck_assert_int_eq(aggregate_parse_window("1.5,1.5", REPORT_WINDOW_TIME, &o), 0);
	ck_assert_uint_eq(selected(p, &o), 0);
	ck_assert_int_eq(aggregate_parse_window(",", REPORT_WINDOW_TIME, &o), 0);
	ck_assert_uint_eq(selected(p, &o), 100);
	ck_assert_int_eq(aggregate_parse_window("0,3", REPORT_WINDOW_TIME, &o), 0);
	ck_assert_uint_eq(selected(p, &o), 100);
	profile_free(p);
}
END_TEST

/*
 * --since and --until: wall-clock bounds, placed by the recording's start
 * time to the second; one before the start is the start.
 */
START_TEST(test_wall_window)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = -1};

	profile_set_meta(p, "start-time", "0"); /* none: written before perfmini kept it */
	ck_assert_int_eq(aggregate_parse_window("@1000", REPORT_WINDOW_SINCE, &o), 0);
	ck_assert_int_eq(aggregate_place_window(&o, p), -ENOENT);
	profile_set_meta(p, "start-time", "999");
	ck_assert_int_eq(aggregate_parse_window("@1002", REPORT_WINDOW_UNTIL, &o), 0);
	ck_assert_int_eq(aggregate_place_window(&o, p), 0);
	ck_assert(o.has_start && o.has_end && !o.wall_clock);
	ck_assert_uint_eq(o.start_ns, 1000000000);
	ck_assert_uint_eq(o.end_ns, 3000000000);
	ck_assert_uint_eq(selected(p, &o), 72); /* as --time 1,3 */
	ck_assert_int_eq(aggregate_parse_window("1,3", REPORT_WINDOW_TIME, &o), 0);
	ck_assert_uint_eq(selected(p, &o), 72);
	ck_assert_int_eq(aggregate_parse_window("@5", REPORT_WINDOW_SINCE, &o), 0);
	ck_assert_int_eq(aggregate_place_window(&o, p), 0);
	ck_assert_uint_eq(o.start_ns, 0);
	ck_assert_int_eq(aggregate_parse_window("12:34", REPORT_WINDOW_UNTIL, &o), 0);
	ck_assert_int_eq(aggregate_parse_window("2024-02-29 23:59:59", REPORT_WINDOW_UNTIL, &o), 0);
	for (size_t i = 0; i < 5; i++) {
		static const char *const bad[] = {"@", "@-1", "@1x", "25:00", "yesterday"};

		ck_assert_msg(aggregate_parse_window(bad[i], REPORT_WINDOW_SINCE, &o) == -EINVAL,
			      "'%s'", bad[i]);
	}
	profile_free(p);
}
END_TEST

START_TEST(test_parse_errors)
{
	struct report_opts o = {.rows = -1};
	static const char *const bad_times[] = {
		"1.5", "2,1", "a,b", "-1,2", "inf,", "nan,", "1e3,", "0x10,", "1,2,3", "", " 1,2",
	};
	static const char *const bad_ids[] = {"", "1,,2", ",1", "1,", "x", "4294967296", "-1"};
	static const char *const bad_comms[] = {"", "a,", ",a", "a,,b"};

	for (size_t i = 0; i < ARRAY_SIZE(bad_times); i++) {
		ck_assert_msg(aggregate_parse_window(bad_times[i], REPORT_WINDOW_TIME, &o) ==
				      -EINVAL,
			      "time '%s'", bad_times[i]);
		ck_assert(!o.has_start && !o.has_end);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad_ids); i++) {
		ck_assert_msg(aggregate_parse_ids(bad_ids[i], &o.pids, &o.npids) == -EINVAL,
			      "ids '%s'", bad_ids[i]);
		ck_assert_uint_eq(o.npids, 0);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad_comms); i++) {
		ck_assert_msg(aggregate_parse_comms(bad_comms[i], &o) == -EINVAL, "comm '%s'",
			      bad_comms[i]);
		ck_assert_uint_eq(o.ncomms, 0);
	}
	ck_assert_int_eq(aggregate_parse_ids("4294967295,0x10", &o.pids, &o.npids), 0);
	ck_assert_uint_eq(o.pids[0], 4294967295u);
	ck_assert_uint_eq(o.pids[1], 16);
	aggregate_opts_release(&o);
}
END_TEST

/*
 * --per-pid: one root per process, named after its main thread's last
 * name; --per-tid: one per thread, whatever it was called when sampled.
 */
START_TEST(test_aggregate_roots)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = -1, .root = REPORT_ROOT_PID};
	struct aggregate *a = aggregate_new(p, &o, 0);

	ck_assert_uint_eq(a->nroots, 3);
	ck_assert_uint_eq(root_count(a, "app-100"), 80);
	ck_assert_uint_eq(root_count(a, "other-200"), 10);
	ck_assert_uint_eq(root_count(a, "java-300"), 10);
	/* S1 (thread "app") and S8 (thread "work;er") share a stack and a root. */
	ck_assert_uint_eq(a->stacks[0].count, 45);
	ck_assert_uint_eq(a->nstacks, 7);
	aggregate_free(a);

	/* ... unless the format keeps threads apart (pprof's labels). */
	a = aggregate_new(p, &o, AGG_BY_THREAD);
	ck_assert_uint_eq(a->stacks[0].count, 40);
	ck_assert_uint_eq(a->nstacks, 8);
	aggregate_free(a);

	o.root = REPORT_ROOT_TID;
	a = aggregate_new(p, &o, 0);
	ck_assert_uint_eq(a->nroots, 4);
	ck_assert_uint_eq(root_count(a, "app-100"), 50);
	ck_assert_uint_eq(root_count(a, "worker-101"), 30);
	ck_assert_uint_eq(root_count(a, "other-200"), 10);
	ck_assert_uint_eq(root_count(a, "java-300"), 10);
	aggregate_free(a);
	profile_free(p);
}
END_TEST

/*
 * A thread known by its off-CPU spans alone (no CPU sample, no thread
 * record: a file of an older recorder) is named by its spans.
 */
START_TEST(test_aggregate_roots_offcpu)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = -1, .sample_type = REPORT_WALL};
	struct pm_offcpu x = {.time = 1000, .duration = 5000, .pid = 100, .tid = 102};
	struct aggregate *a;

	x.stack = p->samples[0].stack;
	x.comm = strtab_add(&p->str, "waiter");
	profile_add_offcpu(p, &x);
	for (int root = REPORT_ROOT_PID; root <= REPORT_ROOT_TID; root++) {
		o.root = root;
		a = aggregate_new(p, &o, 0);
		ck_assert_uint_eq(root_count(a, root == REPORT_ROOT_TID ? "waiter-102" : "app-100"),
				  root == REPORT_ROOT_TID ? 5000 : 5000 + 80 * PERIOD);
		aggregate_free(a);
	}
	profile_free(p);
}
END_TEST

/*
 * --off-cpu-state: blocked and preempted spans apart, their totals in the
 * aggregate, the filter described; both states add up to all.
 */
START_TEST(test_aggregate_offcpu_state)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = -1, .sample_type = REPORT_OFF_CPU};
	struct pm_offcpu x = {.time = 1000, .duration = 7000, .pid = 100, .tid = 102};
	uint64_t want[] = {7000 + 3000, 7000, 3000};
	struct aggregate *a;
	struct sbuf b = SBUF_INIT;

	x.stack = p->samples[0].stack;
	x.comm = strtab_add(&p->str, "waiter");
	profile_add_offcpu(p, &x);
	x.duration = 3000;
	x.flags = PM_OFFCPU_PREEMPTED;
	profile_add_offcpu(p, &x);
	for (int st = REPORT_STATE_ANY; st <= REPORT_STATE_PREEMPTED; st++) {
		o.offcpu_state = st;
		a = aggregate_new(p, &o, 0);
		ck_assert_uint_eq(a->samples, want[st]);
		ck_assert_uint_eq(a->blocked_ns, st == REPORT_STATE_PREEMPTED ? 0 : 7000);
		ck_assert_uint_eq(a->preempted_ns, st == REPORT_STATE_BLOCKED ? 0 : 3000);
		ck_assert(aggregate_filtered(&o) == (st != REPORT_STATE_ANY));
		aggregate_free(a);
	}
	aggregate_describe(&o, &b);
	ck_assert_str_eq(b.buf, "--off-cpu-state=preempted");
	/* The wall view takes the same filter; the CPU samples stay. */
	o.sample_type = REPORT_WALL;
	o.offcpu_state = REPORT_STATE_BLOCKED;
	a = aggregate_new(p, &o, 0);
	ck_assert_uint_eq(a->samples, 92 * PERIOD + 8 * 500000 + 7000);
	aggregate_free(a);
	sbuf_release(&b);
	profile_free(p);
}
END_TEST

/*
 * AGG_BY_WAKER: spans of one stack woken by threads of different names
 * are groups of their own, apart from a preempted span (no waker); without
 * the flag they are one group.
 */
START_TEST(test_aggregate_by_waker)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = -1, .sample_type = REPORT_OFF_CPU};
	struct pm_offcpu x = {.time = 1000, .duration = 7000, .pid = 100, .tid = 102};
	const char *wakers[] = {"alpha", "beta", "alpha", NULL};
	uint64_t by_name[3] = {0};
	struct aggregate *a;

	x.stack = p->samples[0].stack;
	x.comm = strtab_add(&p->str, "waiter");
	for (size_t i = 0; i < ARRAY_SIZE(wakers); i++) {
		struct pm_wakeup w = {.delay = 1000, .pid = 7, .tid = 8, .stack = x.stack};

		x.flags = wakers[i] ? 0 : PM_OFFCPU_PREEMPTED;
		profile_add_offcpu(p, &x);
		if (wakers[i]) {
			w.comm = strtab_add(&p->str, wakers[i]);
			w.flags = PM_WAKEUP_SEEN;
		}
		profile_add_wakeup(p, &w);
	}
	a = aggregate_new(p, &o, 0);
	ck_assert_uint_eq(a->nstacks, 1);
	aggregate_free(a);
	a = aggregate_new(p, &o, AGG_BY_WAKER);
	ck_assert_uint_eq(a->nstacks, 3);
	for (size_t i = 0; i < a->nstacks; i++) {
		const char *name =
			a->stacks[i].waker ? strtab_get(&p->str, a->stacks[i].waker) : "";

		by_name[strcmp(name, "alpha") == 0  ? 0
			: strcmp(name, "beta") == 0 ? 1
						    : 2] += a->stacks[i].count;
	}
	ck_assert_uint_eq(by_name[0], 14000);
	ck_assert_uint_eq(by_name[1], 7000);
	ck_assert_uint_eq(by_name[2], 7000);
	aggregate_free(a);
	profile_free(p);
}
END_TEST

/* The row of function name in a top table, NULL if none. */
static const char *top_row(const char *text, const char *name, const char *module)
{
	const char *line = strstr(text, "Function");

	for (; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *end = strchr(line, '\n');
		char buf[512];
		char *cols[8];
		size_t n = 0, len = end ? (size_t)(end - line) : strlen(line);
		char *save = NULL;

		if (len >= sizeof(buf))
			continue;
		memcpy(buf, line, len);
		buf[len] = '\0';
		for (char *t = strtok_r(buf, " ", &save); t && n < 8;
		     t = strtok_r(NULL, " ", &save))
			cols[n++] = t;
		if (n == 6 && strcmp(cols[4], module) == 0 && strcmp(cols[5], name) == 0)
			return line;
	}
	return NULL;
}

static void assert_row(const char *text, const char *name, const char *module, const char *counts)
{
	const char *row = top_row(text, name, module);

	ck_assert_msg(row != NULL, "no row for %s in\n%s", name, text);
	ck_assert_msg(strncmp(row, counts, strlen(counts)) == 0, "%s: row '%.60s', want '%s'", name,
		      row, counts);
}

/*
 * Self is the innermost level of the leaf; total counts a sample once
 * however often the function appears in it (S3 recurses four deep).
 */
START_TEST(test_top_counts)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = -1, .columns = 100};
	char *text = run_format("top", p, &o, NULL);

	assert_row(text, "leaf_inl_[i]", "app", " 45.0%   55.0%     45     55");
	assert_row(text, "mid_inl_[i]", "app", "  0.0%   55.0%      0     55");
	assert_row(text, "work", "app", "  0.0%   55.0%      0     55");
	assert_row(text, "recurse", "app", " 20.0%   20.0%     20     20");
	assert_row(text, "main", "app", "  0.0%   88.0%      0     88");
	assert_row(text, "__libc_start_call_main", "libc.so.6", "  0.0%   88.0%      0     88");
	assert_row(text, "clear_page_erms_[k]", "[kernel.kallsyms]",
		   " 12.0%   12.0%     12     12");
	assert_row(text, "[unknown]", "[unknown]", "  0.0%   10.0%      0     10");
	assert_row(text, "LambdaForm$MH.invoke", "perf-300.map", " 10.0%   10.0%     10     10");
	/* Sorted by self, then total. */
	ck_assert(top_row(text, "leaf_inl_[i]", "app") < top_row(text, "recurse", "app"));
	ck_assert(top_row(text, "main", "app") < top_row(text, "work", "app"));
	free(text);

	o.sort = REPORT_SORT_TOTAL;
	text = run_format("top", p, &o, NULL);
	ck_assert(top_row(text, "main", "app") < top_row(text, "leaf_inl_[i]", "app"));
	free(text);
	profile_free(p);
}
END_TEST

static size_t columns_of(const char *line, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		if (((unsigned char)line[i] & 0xc0) != 0x80)
			n++;
	return n;
}

/*
 * Cut to a width (as on a terminal): no line is longer, and the long C++
 * name keeps its own name, losing its qualifiers.
 */
START_TEST(test_top_width)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = -1};
	static const int widths[] = {60, 80, 100, 132};

	for (size_t w = 0; w < ARRAY_SIZE(widths); w++) {
		char *text, *line, *save = NULL;

		o.columns = widths[w];
		for (int lines = 0; lines < 2; lines++) {
			o.names.lines = lines;
			text = run_format("top", p, &o, NULL);
			ck_assert_ptr_nonnull(
				strstr(text, widths[w] < 80 ? "...::_M_r" : "...::_M_realloc_ins"));
			ck_assert_ptr_null(strstr(text, "__normal_iterator<int*, std::vector"));
			for (line = strtok_r(text, "\n", &save); line;
			     line = strtok_r(NULL, "\n", &save))
				ck_assert_msg(columns_of(line, strlen(line)) <= (size_t)widths[w],
					      "%zu columns > %d: '%s'",
					      columns_of(line, strlen(line)), widths[w], line);
			free(text);
		}
	}
	profile_free(p);
}
END_TEST

/* Off a terminal (no width given, a memory stream) nothing is cut. */
START_TEST(test_top_uncut)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = -1, .names.lines = true, .names.full_paths = true};
	char *text = run_format("top", p, &o, NULL);

	ck_assert_ptr_nonnull(strstr(text, "  /usr/include/c++/12/bits/vector.tcc:439  "
					   "std::vector<int, std::allocator<int> "
					   ">::_M_realloc_insert<int const&>(__gnu_cxx::"
					   "__normal_iterator<int*, std::vector<int, "
					   "std::allocator<int> > >, int const&)\n"));
	ck_assert_ptr_null(strstr(text, "..."));
	free(text);
	profile_free(p);
}
END_TEST

/* --sort module: a row per module; self by leaf frame, total once per stack. */
START_TEST(test_top_module)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = -1, .row_keys = REPORT_ROW_MODULE};
	char *text = run_format("top", p, &o, NULL);
	const char *table = strstr(text, " Self%  Total%   Self  Total  Module\n");

	ck_assert_ptr_nonnull(table);
	ck_assert_ptr_nonnull(strstr(table, "\n 70.0%   88.0%     70     88  app\n"
					    " 12.0%   12.0%     12     12  [kernel.kallsyms]\n"
					    " 10.0%   10.0%     10     10  perf-300.map\n"
					    "  8.0%   88.0%      8     88  libc.so.6\n"
					    "  0.0%   10.0%      0     10  [unknown]\n"));
	free(text);
	profile_free(p);
}
END_TEST

/* Cutting names to a width: the own name survives, annotations too. */
START_TEST(test_cut_name)
{
	static const struct {
		const char *name;
		size_t width;
		const char *want;
	} cases[] = {
		{"main", 4, "main"},
		{"std::__cxx11::basic_string<char, std::char_traits<char>, "
		 "std::allocator<char> >::compare(char const*) const",
		 60, "std::__cxx11::basic_string<...>::compare(char const*) const"},
		{"std::__cxx11::basic_string<char, std::char_traits<char>, "
		 "std::allocator<char> >::compare(char const*) const",
		 40, "...::compare(char const*) const"},
		{"std::__cxx11::basic_string<char, std::char_traits<char>, "
		 "std::allocator<char> >::compare(char const*) const",
		 25, "...::compare(...) const"},
		{"std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>("
		 "__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, "
		 "int const&)_[i]",
		 100,
		 "std::vector<...>::_M_realloc_insert<int "
		 "const&>(__gnu_cxx::__normal_iterator<...>, "
		 "int const&)_[i]"},
		{"std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>("
		 "__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, "
		 "int const&)_[i]",
		 40, "...::_M_realloc_insert<...>(...)_[i]"},
		{"std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>("
		 "__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, "
		 "int const&)_[i]",
		 20, "...::_M_reall..._[i]"},
		{"std::operator<< <char>(std::basic_ostream<char, std::char_traits<char> >&, char)",
		 55, "std::operator<< <char>(std::basic_ostream<...>&, char)"},
		{"std::operator<< <char>(std::basic_ostream<char, std::char_traits<char> >&, char)",
		 40, "...::operator<< <char>(...)"},
		{"operator<<(std::ostream&, \"q'\")", 20, "operator<<(...)"},
		{"clear_page_erms_with_a_long_name_[k]", 20, "clear_page_er..._[k]"},
		{"[libc.so.6+0x9a2b0]", 12, "[libc.so...."},
		{"\xc3\xa9t\xc3\xa9::f\xc3\xa9"
		 "e(int)",
		 10, "...::f\xc3\xa9..."},
	};
	struct sbuf b = SBUF_INIT;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		sbuf_reset(&b);
		report_cut_name(cases[i].name, cases[i].width, &b);
		ck_assert_str_eq(b.buf, cases[i].want);
		ck_assert_uint_le(report_text_width(b.buf), cases[i].width);
	}
	sbuf_reset(&b);
	report_cut_start("/usr/include/c++/12/bits/vector.tcc:439", 18, &b);
	ck_assert_str_eq(b.buf, ".../vector.tcc:439");
	sbuf_reset(&b);
	report_cut_end("[kernel.kallsyms]", 8, &b);
	ck_assert_str_eq(b.buf, "[kern...");
	sbuf_release(&b);
}
END_TEST

START_TEST(test_top_rows)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = 3, .columns = 100};
	char *text = run_format("top", p, &o, NULL);
	const char *table = strstr(text, " Self%");
	size_t n = 0;

	ck_assert_ptr_nonnull(table);
	for (const char *c = table; *c; c++)
		n += *c == '\n';
	ck_assert_uint_eq(n, 1 + 3 + 1);
	ck_assert_ptr_nonnull(strstr(text, "... 10 more functions (-n 0 shows them all)\n"));
	free(text);
	profile_free(p);
}
END_TEST

START_TEST(test_empty)
{
	struct profile *p = profile_new();
	struct report_opts o = {.rows = -1, .columns = 80};
	char *text;
	size_t len;

	text = run_format("top", p, &o, NULL);
	ck_assert_ptr_nonnull(strstr(text, "\nNo samples.\n"));
	free(text);
	text = run_format("folded", p, &o, NULL);
	ck_assert_str_eq(text, "");
	free(text);
	text = run_format("svg", p, &o, NULL);
	ck_assert_ptr_nonnull(strstr(text, "No samples."));
	ck_assert_ptr_nonnull(strstr(text, "</svg>\n"));
	free(text);
	text = run_format("pprof", p, &o, &len);
	ck_assert_uint_ge(len, 18);
	ck_assert_int_eq((unsigned char)text[0], 0x1f);
	ck_assert_int_eq((unsigned char)text[1], 0x8b);
	free(text);
	profile_free(p);
}
END_TEST

static void assert_bytes(const struct sbuf *b, const char *hex)
{
	char got[256] = "";

	for (size_t i = 0; i < b->len && 2 * i + 2 < sizeof(got); i++)
		snprintf(got + 2 * i, 3, "%02x", (unsigned char)b->buf[i]);
	ck_assert_str_eq(got, hex);
}

START_TEST(test_protobuf)
{
	struct sbuf b = SBUF_INIT;
	struct sbuf m = SBUF_INIT;

	pb_varint(&b, 0);
	pb_varint(&b, 1);
	pb_varint(&b, 127);
	assert_bytes(&b, "00017f");
	sbuf_reset(&b);
	pb_varint(&b, 128);
	pb_varint(&b, 300);
	assert_bytes(&b, "8001ac02");
	sbuf_reset(&b);
	pb_varint(&b, UINT64_MAX);
	assert_bytes(&b, "ffffffffffffffffff01");
	/* The examples of the protobuf encoding guide. */
	sbuf_reset(&b);
	pb_uint(&b, 1, 150);
	assert_bytes(&b, "089601");
	sbuf_reset(&b);
	pb_string(&b, 2, "testing");
	assert_bytes(&b, "120774657374696e67");
	sbuf_reset(&b);
	pb_uint(&m, 1, 150);
	pb_message(&b, 3, &m);
	assert_bytes(&b, "1a03089601");
	sbuf_reset(&b);
	pb_string(&b, 6, "");
	pb_uint(&b, 16, 1);
	assert_bytes(&b, "32008001"
			 "01");
	sbuf_release(&b);
	sbuf_release(&m);
	sbuf_release(&b); /* twice: a no-op */
}
END_TEST

/* The pprof output inflates to a Profile that starts with its sample types. */
START_TEST(test_pprof_gzip)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = -1};
	size_t len;
	char *gz = run_format("pprof", p, &o, &len);
	unsigned char buf[1 << 16];
	z_stream z = {0};

	ck_assert_int_eq(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)len;
	z.next_out = buf;
	z.avail_out = sizeof(buf);
	ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
	ck_assert_uint_eq(z.avail_in, 0);
	/* 1: ValueType{1: 1 ("samples"), 2: 2 ("count")} */
	ck_assert_int_eq(buf[0], 0x0a);
	ck_assert_int_eq(buf[1], 4);
	ck_assert_int_eq(buf[2], 0x08);
	ck_assert_int_eq(buf[3], 1);
	ck_assert_int_eq(buf[4], 0x10);
	ck_assert_int_eq(buf[5], 2);
	inflateEnd(&z);
	free(gz);
	profile_free(p);
}
END_TEST

/* A varint at *p (below end); advances *p. */
static uint64_t pb_get_varint(const unsigned char **p, const unsigned char *end)
{
	uint64_t v = 0;

	for (int shift = 0; *p < end; shift += 7) {
		unsigned char c = *(*p)++;

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			break;
	}
	return v;
}

/* The fields of one message: calls fn for each (field, varint or bytes). */
static void pb_walk(const unsigned char *p, const unsigned char *end,
		    void (*fn)(uint32_t field, uint64_t v, const unsigned char *b, size_t n,
			       void *arg),
		    void *arg)
{
	while (p < end) {
		uint64_t key = pb_get_varint(&p, end), v = 0;

		if ((key & 7) == 0) {
			v = pb_get_varint(&p, end);
			fn((uint32_t)(key >> 3), v, NULL, 0, arg);
		} else {
			ck_assert_uint_eq(key & 7, 2);
			v = pb_get_varint(&p, end);
			fn((uint32_t)(key >> 3), 0, p, (size_t)v, arg);
			p += v;
		}
	}
}

struct pprof_funcs {
	char strings[32][64];
	int nstrings;
	uint64_t name[8], file[8], start[8];
	int nfuncs;
};

static void function_field(uint32_t field, uint64_t v, const unsigned char *b, size_t n, void *arg)
{
	struct pprof_funcs *f = arg;

	(void)b, (void)n;
	if (field == 2)
		f->name[f->nfuncs] = v;
	else if (field == 4)
		f->file[f->nfuncs] = v;
	else if (field == 5)
		f->start[f->nfuncs] = v;
}

static void profile_field(uint32_t field, uint64_t v, const unsigned char *b, size_t n, void *arg)
{
	struct pprof_funcs *f = arg;

	(void)v;
	if (field == 5 && f->nfuncs < 8) {
		pb_walk(b, b + n, function_field, f);
		f->nfuncs++;
	} else if (field == 6 && f->nstrings < 32) {
		snprintf(f->strings[f->nstrings++], 64, "%.*s", (int)n, (const char *)b);
	}
}

/*
 * A function whose lines fall in two files (code from a header) is one
 * pprof function, filed under the file most of its samples are in, with
 * its start line.
 */
START_TEST(test_pprof_function_files)
{
	struct profile *p = profile_new();
	uint32_t app = profile_add_module(p, "/bin/x", "", 0);
	uint32_t fa = profile_intern_frame(p, app, 0, 0x10);
	uint32_t fb = profile_intern_frame(p, app, 0, 0x20);
	struct pm_line l = {0};
	struct pm_sample s = {.pid = 1, .tid = 1};
	struct report_opts o = {.rows = -1};
	struct pprof_funcs got = {0};
	unsigned char *buf = xmalloc(1 << 16);
	z_stream z = {0};
	size_t len;
	char *gz;

	l.func = strtab_add(&p->str, "cmp");
	l.file = strtab_add(&p->str, "/src/cmp.c");
	l.line = 12;
	l.start_line = 10;
	profile_add_line(p, fa, &l);
	l.file = strtab_add(&p->str, "/usr/include/string.h");
	l.line = 300;
	profile_add_line(p, fb, &l);
	s.comm = strtab_add(&p->str, "x");
	s.stack = profile_intern_stack(p, &fa, 1);
	profile_add_sample(p, &s);
	profile_add_sample(p, &s);
	s.stack = profile_intern_stack(p, &fb, 1);
	profile_add_sample(p, &s);

	gz = run_format("pprof", p, &o, &len);
	ck_assert_int_eq(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)len;
	z.next_out = buf;
	z.avail_out = 1 << 16;
	ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
	pb_walk(buf, buf + z.total_out, profile_field, &got);
	inflateEnd(&z);
	ck_assert_int_eq(got.nfuncs, 1);
	ck_assert_str_eq(got.strings[got.name[0]], "cmp");
	ck_assert_str_eq(got.strings[got.file[0]], "/src/cmp.c");
	ck_assert_uint_eq(got.start[0], 10);
	free(buf);
	free(gz);
	profile_free(p);
}
END_TEST

/*
 * Frames under 1/1000 of the samples are not drawn at first, and the
 * picture is only as tall as what is: but they are in the tree the script
 * draws from when zoomed.
 */
START_TEST(test_svg_elided)
{
	struct profile *p = profile_new();
	uint32_t app = profile_add_module(p, "/bin/x", "", 0);
	uint32_t fa = profile_intern_frame(p, app, 0, 0x10);
	uint32_t fb = profile_intern_frame(p, app, 0, 0x20);
	uint32_t fc = profile_intern_frame(p, app, 0, 0x30);
	struct pm_line l = {0};
	struct pm_sample s = {.pid = 1, .tid = 1};
	struct report_opts o = {.rows = -1};
	char *text;

	l.func = strtab_add(&p->str, "hot");
	profile_add_line(p, fa, &l);
	l.func = strtab_add(&p->str, "rare");
	profile_add_line(p, fb, &l);
	l.func = strtab_add(&p->str, "rarer");
	profile_add_line(p, fc, &l);
	s.comm = strtab_add(&p->str, "x");
	s.stack = profile_intern_stack(p, (uint32_t[]){fa}, 1);
	for (int i = 0; i < 1999; i++)
		profile_add_sample(p, &s);
	s.stack = profile_intern_stack(p, (uint32_t[]){fc, fb}, 2);
	profile_add_sample(p, &s);
	text = run_format("svg", p, &o, NULL);
	ck_assert_ptr_nonnull(strstr(text, "<title>hot (1999 samples, 99.95%)</title>"));
	ck_assert_ptr_null(strstr(text, "<title>rare"));
	/* all, x, hot: three rows. */
	ck_assert_ptr_nonnull(strstr(text, "height=\"166\""));
	ck_assert_ptr_nonnull(
		strstr(text, "{\"names\":[\"all\",\"x\",\"hot\",\"rare\",\"rarer\"],"));
	/* all 2000: x 2000: hot 1999, rare 1: rarer 1. */
	ck_assert_ptr_nonnull(strstr(text, "\"nodes\":[0,2000,1,1,2000,2,2,1999,0,3,1,1,4,1,0]}"));
	free(text);
	profile_free(p);
}
END_TEST

/* Names reach the SVG as well-formed XML text, whatever their bytes. */
START_TEST(test_svg_escaping)
{
	struct profile *p = profile_new();
	uint32_t app = profile_add_module(p, "/bin/x", "", 0);
	uint32_t f = profile_intern_frame(p, app, 0, 0x10);
	struct pm_line l = {0};
	struct pm_sample s = {.pid = 1, .tid = 1};
	struct report_opts o = {.rows = -1};
	char *text;

	l.func = strtab_add(&p->str, "a<b>&\"c'\xff\xc3(\xed\xa0\x80\xc3\xa9\xe2\x88\x9a");
	profile_add_line(p, f, &l);
	s.comm = strtab_add(&p->str, "t\x01;");
	s.stack = profile_intern_stack(p, &f, 1);
	profile_add_sample(p, &s);
	profile_set_meta(p, "command", "record -- sh -c 'a && b < c'");
	text = run_format("svg", p, &o, NULL);
	ck_assert_ptr_nonnull(strstr(text, "<title>a&lt;b&gt;&amp;&quot;c&apos;?"
					   "?(???\xc3\xa9\xe2\x88\x9a (1 "
					   "sample, 100.00%)</title>"));
	ck_assert_ptr_nonnull(strstr(text, "<title>t?: (1 sample"));
	ck_assert_ptr_nonnull(strstr(text, "perfmini: record -- sh -c &apos;a &amp;&amp; b &lt; "
					   "c&apos;</text>"));
	ck_assert_ptr_null(strstr(svg_script, "]]>"));
	free(text);
	profile_free(p);
}
END_TEST

/*
 * A program (module path, thread comm, function addresses at base) whose
 * main calls f in nf samples and g in ng: two builds differ in path,
 * thread name and addresses, never in function names.
 */
static struct profile *build_profile(const char *path, const char *comm, uint64_t base, unsigned nf,
				     unsigned ng)
{
	struct profile *p = profile_new();
	uint32_t m = profile_add_module(p, path, "", 0);
	const char *names[] = {"main", "f", "g"};
	uint32_t fr[3], stack[2];

	for (int i = 0; i < 3; i++) {
		struct pm_line l = {.func = strtab_add(&p->str, names[i])};

		fr[i] = profile_intern_frame(p, m, 0, base + 0x100 * (uint64_t)i);
		profile_add_line(p, fr[i], &l);
	}
	for (unsigned i = 0; i < nf + ng; i++) {
		struct pm_sample s = {.time = i, .period = 1000, .pid = 1, .tid = 1};

		stack[0] = fr[i < nf ? 1 : 2];
		stack[1] = fr[0];
		s.stack = profile_intern_stack(p, stack, 2);
		s.comm = strtab_add(&p->str, comm);
		profile_add_sample(p, &s);
	}
	profile_add_thread(p, 1, 1, comm);
	return p;
}

/* The same, of thread "prog". */
static struct profile *mix_profile(const char *path, uint64_t base, unsigned nf, unsigned ng)
{
	return build_profile(path, "prog", base, nf, ng);
}

/*
 * The --top --diff row of function name in module mod, thread thread
 * (NULL: no Thread column): "B N C NOISE TB TN TC NOISE [THREAD] MOD NAME".
 */
static const char *diff_row_in(const char *text, const char *thread, const char *mod,
			       const char *name)
{
	size_t want = thread ? 11 : 10;

	for (const char *line = text; line;
	     line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line), n = 0;
		char buf[512], *cols[12], *save = NULL;

		if (len >= sizeof(buf))
			continue;
		memcpy(buf, line, len);
		buf[len] = '\0';
		for (char *t = strtok_r(buf, " ", &save); t && n < 12;
		     t = strtok_r(NULL, " ", &save))
			cols[n++] = t;
		if (n == want && (!thread || strcmp(cols[8], thread) == 0) &&
		    strcmp(cols[want - 2], mod) == 0 && strcmp(cols[want - 1], name) == 0)
			return line;
	}
	return NULL;
}

/* The row of name in module "prog", without a Thread column. */
static const char *diff_row(const char *text, const char *name)
{
	return diff_row_in(text, NULL, "prog", name);
}

static void assert_diff_row(const char *text, const char *name, const char *numbers)
{
	const char *row = diff_row(text, name);

	ck_assert_msg(row != NULL, "no row for %s in\n%s", name, text);
	ck_assert_msg(strncmp(row, numbers, strlen(numbers)) == 0, "%s: '%.60s', want '%s'", name,
		      row, numbers);
}

/*
 * --diff: two builds (other paths and addresses, one base name) matched by
 * name; shares of each one's total, the base 200 samples, the new 100.
 */
START_TEST(test_diff)
{
	struct profile *base = mix_profile("/old/prog", 0x1000, 140, 60);
	struct profile *p = mix_profile("/new/prog", 0x5000, 30, 70);
	struct report_opts o = {.rows = -1, .columns = 120, .base = base, .base_input = "old.data"};
	char *text;
	const char *f, *g;

	aggregate_prepare(&o, p);
	text = run_format("top", p, &o, NULL);
	ck_assert_msg(strstr(text, "Base:     old.data, 200 samples"), "%s", text);
	/*
	 * Noise: 4 tests could pass (f's and g's self and total), each at
	 * 0.05 / 4. Of f's 170 samples, 100 of 300 drawn: the least count of
	 * the new recording whose lower tail is over 0.05 / 8 is 47 (the sum
	 * of C(100, x) C(200, 170 - x) / C(300, 170) up to x), a change of
	 * 47/100 - 123/200 = -14.5 points; g's upper bound 53, +14.5. main's
	 * counts cannot move: no noise.
	 */
	assert_diff_row(text, "f",
			"   70.0     30.0   -40.0*     14.5     70.0     30.0   -40.0*     14.5");
	assert_diff_row(text, "g",
			"   30.0     70.0   +40.0*     14.5     30.0     70.0   +40.0*     14.5");
	assert_diff_row(text, "main",
			"    0.0      0.0     0.0       0.0    100.0    100.0     0.0       0.0");
	ck_assert_msg(strstr(text, "4 tests that could pass"), "%s", text);
	/* The largest changes first; on a tie, growth first. */
	f = diff_row(text, "f");
	g = diff_row(text, "g");
	ck_assert(g && f && g < f && f < diff_row(text, "main"));
	free(text);

	/*
	 * Folded: BASE normalized to the new total (140 * 100 / 200), then
	 * NEW; without the thread in the key, no root frame.
	 */
	text = run_format("folded", p, &o, NULL);
	ck_assert_str_eq(text, "main;f_[-] 70 30\nmain;g_[+] 30 70\n");
	free(text);

	/* A base stack that rounds to nothing at the new total still shows 1. */
	profile_free(base);
	base = mix_profile("/old/prog", 0x1000, 999, 1);
	o.base = base;
	text = run_format("folded", p, &o, NULL);
	ck_assert_str_eq(text, "main;f_[-] 100 30\nmain;g_[+] 1 70\n");
	free(text);

	ck_assert_uint_eq(report_normalize(3, 1, 2), 2); /* 1.5 rounds up */
	ck_assert_uint_eq(report_normalize(5, 0, 7), 0);
	ck_assert_uint_eq(report_normalize(5, 7, 0), 0);
	ck_assert_uint_eq(report_normalize(UINT64_MAX, 3, 1), UINT64_MAX);
	profile_free(p);
	profile_free(base);
}
END_TEST

/*
 * --diff of two builds under other file names (prog-O0, prog-O2), run as
 * threads of those names: by default functions match by name alone, in
 * the top table and in the stacks (no root frame); --diff-key=module
 * keeps the modules apart (frames MODULE`FUNCTION), --diff-key=thread the
 * threads (a Thread column, stacks with their root frame).
 */
START_TEST(test_diff_key)
{
	struct profile *base = build_profile("/b/prog-O0", "prog-O0", 0x1000, 140, 60);
	struct profile *p = build_profile("/b/prog-O2", "prog-O2", 0x5000, 30, 70);
	struct report_opts o = {.rows = -1, .columns = 120, .base = base, .base_input = "o0.data"};
	char *text;

	aggregate_prepare(&o, p);
	ck_assert_int_eq(o.root, REPORT_ROOT_NONE);
	text = run_format("top", p, &o, NULL);
	ck_assert_msg(diff_row_in(text, NULL, "prog-O2", "f") &&
			      !diff_row_in(text, NULL, "prog-O0", "f"),
		      "%s", text);
	ck_assert_ptr_nonnull(strstr(text, "functions matched by name, not by address"));
	ck_assert_int_eq(strncmp(diff_row_in(text, NULL, "prog-O2", "f"),
				 "   70.0     30.0   -40.0*     14.5     70.0     30.0   -40.0*",
				 60),
			 0);
	free(text);
	text = run_format("folded", p, &o, NULL);
	ck_assert_str_eq(text, "main;f_[-] 70 30\nmain;g_[+] 30 70\n");
	free(text);

	/* The module in the key: nothing matches. */
	o = (struct report_opts){
		.rows = -1, .columns = 120, .base = base, .diff_key = REPORT_KEY_MODULE};
	aggregate_prepare(&o, p);
	text = run_format("top", p, &o, NULL);
	ck_assert_msg(
		!strncmp(diff_row_in(text, NULL, "prog-O0", "f"), "   70.0      0.0   -70.0*", 25),
		"%s", text);
	ck_assert_msg(
		!strncmp(diff_row_in(text, NULL, "prog-O2", "f"), "    0.0     30.0   +30.0*", 25),
		"%s", text);
	free(text);
	text = run_format("folded", p, &o, NULL);
	ck_assert_str_eq(text, "prog-O0`main_[-];prog-O0`f_[-] 70 0\n"
			       "prog-O0`main_[-];prog-O0`g_[-] 30 0\n"
			       "prog-O2`main_[+];prog-O2`f_[+] 0 30\n"
			       "prog-O2`main_[+];prog-O2`g_[+] 0 70\n");
	free(text);

	/* The thread in the key: a Thread column, and the root frames. */
	o = (struct report_opts){
		.rows = -1, .columns = 120, .base = base, .diff_key = REPORT_KEY_THREAD};
	aggregate_prepare(&o, p);
	ck_assert_int_eq(o.root, REPORT_ROOT_COMM);
	text = run_format("top", p, &o, NULL);
	ck_assert_msg(diff_row_in(text, "prog-O0", "prog-O0", "f") &&
			      diff_row_in(text, "prog-O2", "prog-O2", "f"),
		      "%s", text);
	ck_assert_ptr_nonnull(strstr(text, "Thread   Module   Function"));
	free(text);
	text = run_format("folded", p, &o, NULL);
	ck_assert_str_eq(text, "prog-O0;main_[-];f_[-] 70 0\nprog-O0;main_[-];g_[-] 30 0\n"
			       "prog-O2;main_[+];f_[+] 0 30\nprog-O2;main_[+];g_[+] 0 70\n");
	free(text);
	profile_free(p);
	profile_free(base);
}
END_TEST

START_TEST(test_diff_key_parse)
{
	struct report_opts o = {0};
	const char *bad[] = {"", "name", "module,", ",thread", "module,,thread", "Module"};

	ck_assert_int_eq(aggregate_parse_diff_key("module", &o), 0);
	ck_assert_uint_eq(o.diff_key, REPORT_KEY_MODULE);
	ck_assert_int_eq(aggregate_parse_diff_key("thread,module", &o), 0);
	ck_assert_uint_eq(o.diff_key, REPORT_KEY_MODULE | REPORT_KEY_THREAD);
	ck_assert_int_eq(aggregate_parse_diff_key("thread", &o), 0);
	ck_assert_uint_eq(o.diff_key, REPORT_KEY_THREAD);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		ck_assert_int_eq(aggregate_parse_diff_key(bad[i], &o), -EINVAL);
		ck_assert_uint_eq(o.diff_key, REPORT_KEY_THREAD);
	}
}
END_TEST

/* A frame of p in module m at addr, its lines given innermost first (inlined but the last). */
static uint32_t chain_frame(struct profile *p, uint32_t m, uint64_t addr, const char *const *names,
			    unsigned n)
{
	uint32_t f = profile_intern_frame(p, m, 0, addr);

	for (unsigned i = 0; i < n; i++) {
		struct pm_line l = {.func = strtab_add(&p->str, names[i]),
				    .flags = i + 1 < n ? PM_LINE_INLINED : 0};

		profile_add_line(p, f, &l);
	}
	return f;
}

/* Adds n samples of the stack frames (leaf first) to p, thread comm. */
static void add_samples(struct profile *p, const uint32_t *frames, uint32_t depth, unsigned n,
			const char *comm)
{
	for (unsigned i = 0; i < n; i++) {
		struct pm_sample s = {.time = i, .period = 1000, .pid = 1, .tid = 1};

		s.stack = profile_intern_stack(p, frames, depth);
		s.comm = strtab_add(&p->str, comm);
		profile_add_sample(p, &s);
	}
}

/*
 * Two builds of: main calls hot, which calls step (75 samples in step, 25
 * in hot itself) and, 10 times in 100, other. The -O0 build (base) calls
 * each; the -O2 build inlines step into hot, and calls other.
 */
static struct profile *o0_profile(void)
{
	struct profile *p = profile_new();
	uint32_t m = profile_add_module(p, "/b/app-O0", "", 0);
	const char *main_[] = {"main"}, *hot[] = {"hot"}, *step[] = {"step"}, *other[] = {"other"};
	uint32_t fm = chain_frame(p, m, 0x100, main_, 1), fh = chain_frame(p, m, 0x200, hot, 1);
	uint32_t fs = chain_frame(p, m, 0x300, step, 1), fo = chain_frame(p, m, 0x400, other, 1);

	add_samples(p, (uint32_t[]){fs, fh, fm}, 3, 140, "app-O0");
	add_samples(p, (uint32_t[]){fh, fm}, 2, 40, "app-O0");
	add_samples(p, (uint32_t[]){fo, fh, fm}, 3, 20, "app-O0");
	return p;
}

static struct profile *o2_profile(void)
{
	struct profile *p = profile_new();
	uint32_t m = profile_add_module(p, "/b/app-O2", "", 0);
	const char *main_[] = {"main"}, *hot[] = {"hot"}, *step[] = {"step", "hot"},
		   *other[] = {"other"};
	uint32_t fm = chain_frame(p, m, 0x100, main_, 1), fh = chain_frame(p, m, 0x180, hot, 1);
	uint32_t fs = chain_frame(p, m, 0x1a0, step, 2), fo = chain_frame(p, m, 0x400, other, 1);

	add_samples(p, (uint32_t[]){fs, fm}, 2, 70, "app-O2");
	add_samples(p, (uint32_t[]){fh, fm}, 2, 20, "app-O2");
	add_samples(p, (uint32_t[]){fo, fh, fm}, 3, 10, "app-O2");
	return p;
}

/*
 * --merge-inline: the inlined call (step into hot) is found in the -O2
 * build and merged in both, the call that neither inlines (other) is
 * left; without a base, the -O2 recording alone loses its inline level.
 */
/*
 * --annotate on a profile built by hand: function "work" of /x/app,
 * starting at file offset 0x100, source file work.c written here:
 *   frame 0x100 work.c:3                         4 samples
 *   frame 0x104 mix at mix.h:2, inlined at
 *               work.c:4                          6 samples
 *   frame 0x108 work.c:4 (after the call)         2 samples
 *   frame 0x200 main, another function            3 samples
 */
static char annotate_dir[] = "/tmp/check_report.XXXXXX";

static void add_level(struct profile *p, uint32_t f, const char *func, const char *file,
		      uint32_t line, bool inlined, uint64_t symoff, uint32_t decl)
{
	struct pm_line l = {.line = line, .symoff = symoff, .start_line = decl};

	l.func = strtab_add(&p->str, func);
	l.file = strtab_add(&p->str, file);
	l.flags = inlined ? PM_LINE_INLINED : 0;
	profile_add_line(p, f, &l);
}

static void add_frame_samples(struct profile *p, uint32_t frame, unsigned n)
{
	struct pm_sample s = {.pid = 7, .tid = 7, .period = PERIOD};

	s.stack = profile_intern_stack(p, &frame, 1);
	s.comm = strtab_add(&p->str, "app");
	while (n--)
		profile_add_sample(p, &s);
}

static struct profile *annotate_profile(const char *src)
{
	struct profile *p = profile_new();
	uint32_t m = profile_add_module(p, "/x/app", "", 0);
	uint32_t f0, f1, f2, f3;

	p->modules[m].owner = (uint32_t)geteuid();
	f0 = profile_intern_frame(p, m, 0, 0x100);
	f1 = profile_intern_frame(p, m, 0, 0x104);
	f2 = profile_intern_frame(p, m, 0, 0x108);
	f3 = profile_intern_frame(p, m, 0, 0x200);

	add_level(p, f0, "work", src, 3, false, 0, 1);
	add_level(p, f1, "mix", "mix.h", 2, true, 0, 0); /* innermost first */
	add_level(p, f1, "work", src, 4, false, 4, 1);
	add_level(p, f2, "work", src, 4, false, 8, 1);
	add_level(p, f3, "main", src, 9, false, 0, 8);
	add_frame_samples(p, f0, 4);
	add_frame_samples(p, f1, 6);
	add_frame_samples(p, f2, 2);
	add_frame_samples(p, f3, 3);
	profile_add_thread(p, 7, 7, "app");
	return p;
}

/* A disassembler that knows three instructions of work, one per frame. */
static int fake_disasm(void *arg, const char *path, const char *build_id, uint32_t owner,
		       uint64_t start, const char *func, struct annotate_insn **insns, size_t *n,
		       struct sbuf *why)
{
	static const char *const text[] = {"pushq %rbp", "imulq %rsi, %rax", "retq"};

	(void)build_id;
	(void)owner;
	if (strcmp(path, "/x/app") || strcmp(func, "work") || start != 0x100) {
		sbuf_adds(why, "asked for something else");
		return -1;
	}
	*insns = calloc(3, sizeof(**insns));
	for (size_t i = 0; i < 3; i++) {
		(*insns)[i].off = 0x100 + 4 * i;
		(*insns)[i].vaddr = 0x1100 + 4 * i;
		(*insns)[i].text = strdup(text[i]);
		(*insns)[i].file = strdup(i == 1 ? "mix.h" : arg); /* arg: work.c's path */
		(*insns)[i].line = i == 1 ? 2 : 3 + (uint32_t)(i > 0);
	}
	*n = 3;
	return 0;
}

START_TEST(test_annotate)
{
	static const char source[] = "static int work(int n)\n{\n\tint s = 0;\n\ts += mix(n);\n"
				     "\treturn s;\n}\n\nint main(void)\n{\n\treturn work(1);\n}\n";
	struct annotate_code code = {fake_disasm, NULL};
	struct report_opts o = {.rows = -1, .own_sources = true, .annotate = "work"};
	struct sbuf why = SBUF_INIT;
	char path[64], uid[64], *text;
	struct profile *p;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(annotate_dir));
	snprintf(path, sizeof(path), "%s/work.c", annotate_dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(source, f);
	fclose(f);
	p = annotate_profile(path);

	ck_assert_int_eq(report_annotate_check(p, &o, &why), 0);
	text = run_format("annotate", p, &o, NULL);
	ck_assert_msg(strstr(text, "Function: work (app): 12 samples, 80.0% of the 15 selected\n"),
		      "%s", text);
	/* Lines 1 to 6 (the declaration to the brace), counted where the code came from. */
	ck_assert_msg(strstr(text, "                      1  static int work(int n)\n"), "%s",
		      text);
	ck_assert_msg(strstr(text, "   33.3%         4      3          int s = 0;\n"), "%s", text);
	ck_assert_msg(strstr(text, "   66.7%         8      4          s += mix(n);\n"
				   "                           + inlined mix (mix.h)\n"
				   "   50.0%         6      2  |\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "                      6  }\n"), "%s", text);
	ck_assert_msg(!strstr(text, "main(void)"), "%s", text);
	free(text);

	/* --asm: each instruction with its frame's samples, its line above it. */
	code.arg = path;
	o.code = &code;
	text = run_format("annotate", p, &o, NULL);
	ck_assert_msg(strstr(text, "                   work.c:3          int s = 0;\n"
				   "   33.3%         4 0x1100     pushq %rbp\n"
				   "                   mix.h:2\n"
				   "   50.0%         6 0x1104     imulq %rsi, %rax\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "   16.7%         2 0x1108     retq\n"), "%s", text);
	free(text);

	/* Without a function: the hottest first, then main; -n 1 only work. */
	o.code = NULL;
	o.annotate = NULL;
	text = run_format("annotate", p, &o, NULL);
	ck_assert_msg(strstr(text, "Function: work") < strstr(text, "Function: main"), "%s", text);
	free(text);
	o.rows = 1;
	text = run_format("annotate", p, &o, NULL);
	ck_assert_msg(!strstr(text, "Function: main"), "%s", text);
	free(text);

	/* Sources another user's file names are not read: lines and counts alone. */
	o.own_sources = false;
	text = run_format("annotate", p, &o, NULL);
	ck_assert_msg(strstr(text, "(not read where recorded: the data file is another user's; "
				   "give --source-dir DIR)"),
		      "%s", text);
	ck_assert_msg(strstr(text, "   33.3%         4      3\n"), "%s", text);
	free(text);
	o.own_sources = true;

	/*
	 * A module of another user's (#line "/etc/shadow" in their program):
	 * its paths are not read, and the report says why; under
	 * --source-dir they are.
	 */
	p->modules[0].owner = (uint32_t)geteuid() + 1;
	text = run_format("annotate", p, &o, NULL);
	snprintf(uid, sizeof(uid), "belonged to uid %u,", (unsigned)geteuid() + 1);
	ck_assert_msg(strstr(text, "(not read where recorded: the module belonged to "), "%s",
		      text);
	ck_assert_msg(strstr(text, uid), "%s", text);
	ck_assert_msg(!strstr(text, "int s = 0;"), "%s", text);
	free(text);
	p->modules[0].owner = PM_OWNER_UNKNOWN;
	text = run_format("annotate", p, &o, NULL);
	ck_assert_msg(strstr(text, "the recording does not say who owned the module"), "%s", text);
	ck_assert_msg(!strstr(text, "int s = 0;"), "%s", text);
	free(text);
	{
		const char *dirs[] = {annotate_dir};

		o.source_dirs = dirs;
		o.nsource_dirs = 1;
		text = run_format("annotate", p, &o, NULL);
		ck_assert_msg(strstr(text, "int s = 0;"), "%s", text);
		free(text);
		o.source_dirs = NULL;
		o.nsource_dirs = 0;
	}
	p->modules[0].owner = (uint32_t)geteuid();
	{
		/*
		 * --source-dir is never left: not by a recorded "..", not by a
		 * link in it that leads out.
		 */
		char inner[96], link[128];
		const char *dirs[] = {inner};
		struct profile *q;

		snprintf(inner, sizeof(inner), "%s/inner", annotate_dir);
		snprintf(link, sizeof(link), "%s/up", inner);
		ck_assert_int_eq(mkdir(inner, 0700), 0);
		ck_assert_int_eq(symlink("..", link), 0);
		o.source_dirs = dirs;
		o.nsource_dirs = 1;
		o.own_sources = false;
		q = annotate_profile("/any/where/../../work.c");
		text = run_format("annotate", q, &o, NULL);
		ck_assert_msg(!strstr(text, "int s = 0;"), "%s", text);
		free(text);
		profile_free(q);
		q = annotate_profile("/src/up/work.c");
		text = run_format("annotate", q, &o, NULL);
		ck_assert_msg(!strstr(text, "int s = 0;"), "%s", text);
		free(text);
		profile_free(q);
		unlink(link);
		rmdir(inner);
		o.source_dirs = NULL;
		o.nsource_dirs = 0;
		o.own_sources = true;
	}

	/* A name without samples, and the C++ and copy forms of names. */
	o.annotate = "nothing";
	ck_assert_int_eq(report_annotate_check(p, &o, &why), -1);
	ck_assert_str_eq(why.buf,
			 "no samples in a function named 'nothing'; the hottest: work, main");
	o.annotate = "work.constprop.0";
	ck_assert_int_eq(report_annotate_check(p, &o, &why), 0);
	sbuf_release(&why);
	profile_free(p);
	unlink(path);
	rmdir(annotate_dir);
}
END_TEST

/* --sort: an order word, or perf's keys (and their aliases), each once or more. */
START_TEST(test_sort_parse)
{
	struct report_opts o = {0};

	ck_assert_int_eq(aggregate_parse_sort("total", &o), 0);
	ck_assert_int_eq(o.sort, REPORT_SORT_TOTAL);
	ck_assert_uint_eq(o.row_keys, 0);
	ck_assert_int_eq(aggregate_parse_sort("comm,dso,sym,comm", &o), 0);
	ck_assert_uint_eq(o.row_keys, REPORT_ROW_COMM | REPORT_ROW_MODULE | REPORT_ROW_SYMBOL);
	ck_assert_int_eq(aggregate_parse_sort("pid,tid", &o), 0);
	ck_assert_uint_eq(o.row_keys, REPORT_ROW_PID | REPORT_ROW_TID);
	/* A bad word leaves the keys as they were; so does an order word among keys. */
	ck_assert_int_eq(aggregate_parse_sort("comm,cpu", &o), -EINVAL);
	ck_assert_int_eq(aggregate_parse_sort("comm,total", &o), -EINVAL);
	ck_assert_int_eq(aggregate_parse_sort("", &o), -EINVAL);
	ck_assert_uint_eq(o.row_keys, REPORT_ROW_PID | REPORT_ROW_TID);
	ck_assert_int_eq(o.sort, REPORT_SORT_TOTAL);
}
END_TEST

/* --top --sort=comm: a row per thread name, self and total alike, no module column. */
START_TEST(test_top_sort_comm)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = -1, .row_keys = REPORT_ROW_COMM};
	char *text = run_format("top", p, &o, NULL);
	const char *table = strstr(text, " Self%");

	ck_assert_ptr_nonnull(table);
	ck_assert_str_eq(table, " Self%  Total%   Self  Total  Command\n"
				" 50.0%   50.0%     50     50  app\n"
				" 25.0%   25.0%     25     25  worker\n"
				" 10.0%   10.0%     10     10  java\n"
				" 10.0%   10.0%     10     10  other\n"
				"  5.0%    5.0%      5      5  work;er\n");
	free(text);
	profile_free(p);
}
END_TEST

START_TEST(test_merge_inline)
{
	struct profile *base = o0_profile(), *p = o2_profile();
	struct report_opts o = {.rows = -1, .columns = 120, .base = base, .merge_inline = true};
	struct inline_calls *c = inline_calls_new(p, base);
	char *text;

	/* The pair, and what it merges: frames 2 (step) and 1 (hot) of each. */
	ck_assert_uint_eq(inline_calls_count(c), 1);
	ck_assert(inline_calls_merges(c, base, 2, 1));
	ck_assert(!inline_calls_merges(c, base, 1, 0));
	ck_assert(!inline_calls_merges(c, base, 3, 1));
	ck_assert(!inline_calls_merges(c, p, 2, 0));
	ck_assert(!inline_calls_merges(c, NULL, 2, 1));
	inline_calls_free(c);
	inline_calls_free(NULL);

	aggregate_prepare(&o, p);
	ck_assert(o.names.no_inline);
	text = run_format("folded", p, &o, NULL);
	ck_assert_str_eq(text, "main;hot 90 90\nmain;hot;other 10 10\n");
	free(text);
	text = run_format("top", p, &o, NULL);
	ck_assert_msg(
		!strncmp(diff_row_in(text, NULL, "app-O2", "hot"), "   90.0     90.0     0.0 ", 25),
		"%s", text);
	ck_assert_msg(!strstr(text, "step"), "%s", text);
	free(text);
	aggregate_opts_release(&o);
	ck_assert_ptr_null(o.inlined);

	/* Without it: step and step_[i] are rows of their own. */
	o = (struct report_opts){.rows = -1, .columns = 120, .base = base};
	aggregate_prepare(&o, p);
	text = run_format("folded", p, &o, NULL);
	ck_assert_str_eq(text, "main;hot 20 20\nmain;hot;other 10 10\nmain;hot;step_[+]_[i] 0 70\n"
			       "main;hot;step_[-] 70 0\n");
	free(text);

	/* No base: the -O2 recording merged alone. */
	o = (struct report_opts){.rows = -1, .merge_inline = true};
	aggregate_prepare(&o, p);
	text = run_format("folded", p, &o, NULL);
	ck_assert_str_eq(text, "app-O2;main;hot 90\napp-O2;main;hot;other 10\n");
	free(text);
	aggregate_opts_release(&o);
	profile_free(p);
	profile_free(base);
}
END_TEST

/*
 * What the slices of one recording could not name, summed: a module met
 * in a later slice only grows the sum, and frames in no mapping keep
 * their own slot, at the end.
 */
START_TEST(test_missing_sum)
{
	struct profile *a = profile_new(), *b;
	struct missing *sum = NULL, *m;
	size_t nsum = 0;
	uint32_t f0, f1, fu, st, lib;
	struct pm_line l = {0};

	profile_add_module(a, "/bin/app", "", 0);
	f0 = profile_intern_frame(a, 0, 0, 0x10);
	f1 = profile_intern_frame(a, 0, 0, 0x20);
	fu = profile_intern_frame(a, PM_NONE, 0, 0x7f0000001234ULL);
	l.func = strtab_add(&a->str, "named_fn");
	profile_add_line(a, f0, &l);
	st = profile_intern_stack(a, (uint32_t[]){f0, f1}, 2);
	for (int i = 0; i < 3; i++)
		profile_count_sample(a, st);
	profile_count_sample(a, profile_intern_stack(a, &fu, 1));

	b = profile_new_next(a, NULL, NULL);
	lib = profile_add_module(b, "/lib/libb.so", "", 0);
	st = profile_intern_stack(b,
				  (uint32_t[]){profile_intern_frame(b, lib, 0, 0x30),
					       profile_intern_frame(b, 0, 0, 0x20)},
				  2);
	profile_count_sample(b, st);
	profile_count_sample(b, st);

	m = report_missing_count(a);
	report_missing_add(&sum, &nsum, m, a->nmodules);
	free(m);
	ck_assert_uint_eq(nsum, 1);
	ck_assert_uint_eq(sum[1].module, PM_NONE);
	m = report_missing_count(b);
	report_missing_add(&sum, &nsum, m, b->nmodules);
	free(m);
	ck_assert_uint_eq(nsum, 2);
	ck_assert_uint_eq(sum[0].frames, 8);
	ck_assert_uint_eq(sum[0].unnamed, 5);
	ck_assert_uint_eq(sum[0].named, 3);
	ck_assert_uint_eq(sum[1].module, 1);
	ck_assert_uint_eq(sum[1].frames, 2);
	ck_assert_uint_eq(sum[1].unnamed, 2);
	ck_assert_uint_eq(sum[2].module, PM_NONE);
	ck_assert_uint_eq(sum[2].unnamed, 1);
	ck_assert_uint_eq(sum[2].samples, 1);
	for (size_t i = 0; i <= nsum; i++)
		ck_assert_uint_eq(sum[i].all_samples, 6);
	free(sum);
	profile_free(a);
	profile_free(b);
}
END_TEST

/*
 * The same sum kept for the sampled modules alone (the recorder's, for a
 * machine that meets many more modules than it samples): added into the
 * last slice's counts, it gives what the dense sum gives.
 */
/*
 * A module's counts go from the sum when all its frames had names and
 * lines (its id is to be another module's), not when some lacked one;
 * the counts of the others stay whole, under their ids.
 */
START_TEST(test_missing_sum_forget)
{
	struct profile *a = profile_new();
	struct missing_sum sum = {0};
	struct missing *m;
	uint32_t f[3];
	struct pm_line ln = {0};

	profile_add_module(a, "/tmp/storm-1", "", 0);
	profile_add_module(a, "/tmp/storm-2", "", 0);
	profile_add_module(a, "/bin/stripped", "", 0);
	ln.func = strtab_add(&a->str, "storm_hot");
	ln.file = strtab_add(&a->str, "storm.c");
	for (uint32_t i = 0; i < 3; i++) {
		f[i] = profile_intern_frame(a, i, 0, 0x10);
		if (i < 2)
			profile_add_line(a, f[i], &ln);
		profile_count_sample(a, profile_intern_stack(a, &f[i], 1));
	}
	m = report_missing_count(a);
	report_missing_sum_add(&sum, m, a->nmodules);
	free(m);
	ck_assert_uint_eq(sum.n, 3);
	uint32_t demoted;

	ck_assert(report_missing_sum_forget(&sum, 0, &demoted));
	ck_assert(!report_missing_sum_forget(&sum, 2, &demoted)); /* unnamed: said at the stop */
	ck_assert_uint_eq(demoted, PM_NONE);
	ck_assert(report_missing_sum_forget(&sum, 7, &demoted)); /* nothing of it */
	ck_assert_uint_eq(sum.n, 2);
	m = report_missing_count(a);
	memset(m, 0, (a->nmodules + 1) * sizeof(*m));
	report_missing_sum_into(&sum, m, a->nmodules);
	ck_assert_uint_eq(m[0].frames, 0);
	ck_assert_uint_eq(m[1].frames, 1);
	ck_assert_uint_eq(m[1].named, 1);
	ck_assert_uint_eq(m[2].frames, 1);
	ck_assert_uint_eq(m[2].unnamed, 1);
	free(m);
	report_missing_sum_release(&sum);
	profile_free(a);
}
END_TEST

/*
 * At most MISSING_HELD modules let go keep their ids for the stop to name:
 * one lacking less than all of them is said by its number alone; one
 * lacking more takes the place of the least, whose id is given back.
 */
START_TEST(test_missing_sum_held)
{
	struct profile *a = profile_new();
	struct missing_sum sum = {0};
	struct missing *m;
	uint32_t demoted, n = MISSING_HELD + 2;
	char path[32];
	FILE *f;
	char *text = NULL;
	size_t len = 0;

	/* Module i: i + 1 sampled frames, none named (module 0: two, so that none ties). */
	for (uint32_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/tmp/storm-%u", i);
		profile_add_module(a, path, "", 0);
		for (uint32_t k = 0; k <= i + (i == 0); k++) {
			uint32_t fr = profile_intern_frame(a, i, 0, 0x10 + k);

			profile_count_sample(a, profile_intern_stack(a, &fr, 1));
		}
	}
	m = report_missing_count(a);
	report_missing_sum_add(&sum, m, a->nmodules);
	free(m);
	/* Modules 1 .. MISSING_HELD held, in turn. */
	for (uint32_t i = 1; i <= MISSING_HELD; i++) {
		ck_assert(!report_missing_sum_forget(&sum, i, &demoted));
		ck_assert_uint_eq(demoted, PM_NONE);
	}
	ck_assert_uint_eq(sum.nheld, MISSING_HELD);
	/* Module 0 (2 frames) lacks less than the least held (module 1, 2 frames): a number. */
	ck_assert(report_missing_sum_forget(&sum, 0, &demoted));
	ck_assert_uint_eq(demoted, PM_NONE);
	ck_assert_uint_eq(sum.more_names, 1);
	/* The last lacks the most: held, in place of module 1, now a number too. */
	ck_assert(!report_missing_sum_forget(&sum, n - 1, &demoted));
	ck_assert_uint_eq(demoted, 1);
	ck_assert_uint_eq(sum.more_names, 2);
	ck_assert_uint_eq(sum.nheld, MISSING_HELD);
	ck_assert(report_missing_sum_forget(&sum, 1, &demoted)); /* its id given back */
	ck_assert(!hmap_find(&sum.at, 1));
	/* The stop: the held ones by name, the two others in the count. */
	m = xcalloc(a->nmodules + 1, sizeof(*m));
	for (size_t i = 0; i <= a->nmodules; i++)
		m[i].module = i < a->nmodules ? (uint32_t)i : PM_NONE;
	report_missing_sum_into(&sum, m, a->nmodules);
	f = open_memstream(&text, &len);
	report_print_missing_counts(a, m, &sum, f, 5);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "storm-17:"));
	ck_assert_ptr_null(strstr(text, "storm-1:"));
	snprintf(path, sizeof(path), "and %u more modules", MISSING_HELD - 5 + 2);
	ck_assert_ptr_nonnull(strstr(text, path));
	free(text);
	free(m);
	report_missing_sum_release(&sum);
	profile_free(a);
}
END_TEST

START_TEST(test_missing_sum_sparse)
{
	struct profile *a = profile_new(), *b;
	struct missing_sum sum = {0};
	struct missing *m;
	uint32_t f0, fu, st, lib;

	profile_add_module(a, "/bin/app", "", 0);
	profile_add_module(a, "/bin/never-sampled", "", 0);
	f0 = profile_intern_frame(a, 0, 0, 0x10);
	fu = profile_intern_frame(a, PM_NONE, 0, 0x7f0000001234ULL);
	st = profile_intern_stack(a, (uint32_t[]){f0}, 1);
	for (int i = 0; i < 3; i++)
		profile_count_sample(a, st);
	profile_count_sample(a, profile_intern_stack(a, &fu, 1));
	b = profile_new_next(a, NULL, NULL);
	lib = profile_add_module(b, "/lib/libb.so", "", 0);
	profile_count_sample(
		b, profile_intern_stack(b, (uint32_t[]){profile_intern_frame(b, lib, 0, 0x30)}, 1));

	m = report_missing_count(a);
	report_missing_sum_add(&sum, m, a->nmodules);
	free(m);
	ck_assert(sum.any);
	ck_assert_uint_eq(sum.n, 2); /* app and no mapping: not the module never sampled */
	m = report_missing_count(b);
	report_missing_sum_into(&sum, m, b->nmodules);
	ck_assert_uint_eq(m[0].frames, 3);
	ck_assert_uint_eq(m[0].unnamed, 3);
	ck_assert_uint_eq(m[1].frames, 0);
	ck_assert_uint_eq(m[2].frames, 1);
	ck_assert_uint_eq(m[3].module, PM_NONE);
	ck_assert_uint_eq(m[3].unnamed, 1);
	ck_assert_uint_eq(m[3].samples, 1);
	for (size_t i = 0; i <= b->nmodules; i++)
		ck_assert_uint_eq(m[i].all_samples, 5);
	free(m);
	report_missing_sum_release(&sum);
	profile_free(a);
	profile_free(b);
}
END_TEST

/* A CPU sample of thread tid at time, of period, into p. */
static void wall_sample(struct profile *p, uint32_t tid, uint64_t time, uint64_t period)
{
	struct pm_sample s = {.time = time, .period = period, .pid = 100, .tid = tid};

	profile_add_sample(p, &s);
}

/* An off-CPU span of thread tid from time, duration long, into p. */
static void wall_span(struct profile *p, uint32_t tid, uint64_t time, uint64_t duration)
{
	struct pm_offcpu x = {.time = time, .duration = duration, .pid = 100, .tid = tid};

	profile_add_offcpu(p, &x);
}

/*
 * wall_weigh_samples: a sample weighs its thread's time on the CPU since
 * its previous sample, by the spans between (more or less than its
 * period), a thread's first its period or the time since a span's end;
 * at most its period where spans may be missing; a file without spans
 * keeps its periods.
 */
START_TEST(test_wall_weights)
{
	static const uint64_t want[2][5] = {{500, 2000, 500, 600, 300}, {500, 1000, 500, 600, 300}};

	for (int lost = 0; lost < 2; lost++) {
		struct profile *p = profile_new();

		if (lost)
			profile_set_meta(p, "lost-records", "5");
		/* Added out of order: the weights follow each thread's time. */
		wall_sample(p, 101, 9100, 1000);
		wall_sample(p, 101, 1000, 500);
		wall_span(p, 101, 2000, 3000);
		wall_sample(p, 101, 6000, 1000);
		wall_sample(p, 101, 6500, 1000);
		wall_span(p, 101, 7000, 2000);
		wall_span(p, 201, 4000, 700);
		wall_sample(p, 201, 5000, 1000);
		wall_weigh_samples(p);
		ck_assert_uint_eq(p->samples[1].period, want[lost][0]);
		ck_assert_uint_eq(p->samples[2].period, want[lost][1]);
		ck_assert_uint_eq(p->samples[3].period, want[lost][2]);
		ck_assert_uint_eq(p->samples[0].period, want[lost][3]);
		ck_assert_uint_eq(p->samples[4].period, want[lost][4]);
		/* The spans stay as they were. */
		ck_assert_uint_eq(p->offcpu[0].duration, 3000);
		profile_free(p);
	}
	{
		struct profile *p = profile_new();

		wall_sample(p, 101, 1000, 500);
		wall_sample(p, 101, 9000, 500);
		wall_weigh_samples(p);
		ck_assert_uint_eq(p->samples[1].period, 500);
		profile_free(p);
	}
}
END_TEST

static Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("aggregate");

	tcase_add_test(tc, test_aggregate_all);
	tcase_add_test(tc, test_unresolved_jit_names);
	tcase_add_test(tc, test_aggregate_no_kernel);
	tcase_add_test(tc, test_aggregate_kernel_only);
	tcase_add_test(tc, test_aggregate_ids);
	tcase_add_test(tc, test_aggregate_comm);
	tcase_add_test(tc, test_aggregate_cgroup);
	tcase_add_test(tc, test_aggregate_cgroup_roots);
	tcase_add_test(tc, test_aggregate_by_waker);
	tcase_add_test(tc, test_cgroup_names);
	tcase_add_test(tc, test_aggregate_time);
	tcase_add_test(tc, test_wall_window);
	tcase_add_test(tc, test_parse_errors);
	tcase_add_test(tc, test_missing_sum);
	tcase_add_test(tc, test_missing_sum_sparse);
	tcase_add_test(tc, test_missing_sum_forget);
	tcase_add_test(tc, test_missing_sum_held);
	tcase_add_test(tc, test_aggregate_roots);
	tcase_add_test(tc, test_aggregate_roots_offcpu);
	tcase_add_test(tc, test_aggregate_offcpu_state);
	tcase_add_test(tc, test_wall_weights);
	suite_add_tcase(s, tc);

	tc = tcase_create("formats");
	tcase_add_test(tc, test_top_counts);
	tcase_add_test(tc, test_top_width);
	tcase_add_test(tc, test_top_uncut);
	tcase_add_test(tc, test_top_module);
	tcase_add_test(tc, test_cut_name);
	tcase_add_test(tc, test_top_rows);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_protobuf);
	tcase_add_test(tc, test_pprof_gzip);
	tcase_add_test(tc, test_pprof_function_files);
	tcase_add_test(tc, test_svg_elided);
	tcase_add_test(tc, test_svg_escaping);
	tcase_add_test(tc, test_diff);
	tcase_add_test(tc, test_diff_key);
	tcase_add_test(tc, test_diff_key_parse);
	tcase_add_test(tc, test_merge_inline);
	tcase_add_test(tc, test_annotate);
	tcase_add_test(tc, test_sort_parse);
	tcase_add_test(tc, test_top_sort_comm);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(report_suite());
}
